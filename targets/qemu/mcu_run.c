/* mcu_run.c — see mcu_run.h. */
#include "mcu_run.h"

#include <string.h>

#include "pte/allocator.h"
#include "pte/cortex_m_kernels.h"
#include "pte/data_loader.h"
#include "pte/memory.h"
#include "pte/method.h"
#include "pte/portable_kernels.h"
#include "pte/program.h"
#include "pte/quantized_kernels.h"

#define MCU_MAX_PLANNED 8

void pte_mcu_line_str(pte_mcu_line *l, const char *s) {
  while (*s && l->n + 1 < sizeof l->buf) l->buf[l->n++] = *s++;
  l->buf[l->n] = '\0';
}

void pte_mcu_line_u64(pte_mcu_line *l, uint64_t v) {
  char tmp[24];
  int i = 0;
  do {
    tmp[i++] = (char)('0' + (int)(v % 10u));
    v /= 10u;
  } while (v);
  char out[24];
  for (int k = 0; k < i; k++) out[k] = tmp[i - 1 - k];
  out[i] = '\0';
  pte_mcu_line_str(l, out);
}

void pte_mcu_line_hex(pte_mcu_line *l, uint64_t v, int digits) {
  char out[17];
  if (digits > 16) digits = 16;
  for (int k = digits - 1; k >= 0; k--) {
    out[k] = "0123456789abcdef"[v & 0xFu];
    v >>= 4;
  }
  out[digits] = '\0';
  pte_mcu_line_str(l, out);
}

static void mcu_flush(const pte_mcu_job *job, pte_mcu_line *l) {
  pte_mcu_line_str(l, "\n");
  job->write(l->buf);
  l->n = 0;
  l->buf[0] = '\0';
}

static int mcu_fail(const pte_mcu_job *job, int code, const char *step, pte_status s, const pte_error_info *err) {
  pte_mcu_line l = {{0}, 0};
  pte_mcu_line_str(&l, "error: ");
  pte_mcu_line_str(&l, step);
  pte_mcu_line_str(&l, ": ");
  pte_mcu_line_str(&l, pte_status_name(s));
  if (err && err->msg[0]) {
    pte_mcu_line_str(&l, ": ");
    pte_mcu_line_str(&l, err->msg);
  }
  mcu_flush(job, &l);
  return code;
}

/* Prints one element per word: its bytes as a little-endian integer of the element's size. */
static void mcu_print_tensor(const pte_mcu_job *job, size_t idx, const pte_tensor *t) {
  pte_mcu_line l = {{0}, 0};
  const size_t es = pte_dtype_size(t->dtype);
  pte_mcu_line_str(&l, "out ");
  pte_mcu_line_u64(&l, idx);
  pte_mcu_line_str(&l, " ");
  pte_mcu_line_str(&l, pte_dtype_name(t->dtype));
  pte_mcu_line_str(&l, " ");
  pte_mcu_line_u64(&l, t->numel);
  pte_mcu_line_str(&l, ":");
  const uint8_t *p = (const uint8_t *)t->data;
  for (size_t i = 0; i < t->numel; i++) {
    uint64_t v = 0;
    for (size_t b = 0; b < es && b < 8; b++) v |= (uint64_t)p[i * es + b] << (8u * b);
    if (l.n + 2 + 2 * es + 2 >= sizeof l.buf) { /* continue on a new "out" line */
      mcu_flush(job, &l);
      pte_mcu_line_str(&l, "out ");
      pte_mcu_line_u64(&l, idx);
      pte_mcu_line_str(&l, " +");
      pte_mcu_line_u64(&l, i);
      pte_mcu_line_str(&l, ":");
    }
    pte_mcu_line_str(&l, " ");
    pte_mcu_line_hex(&l, v, (int)(2 * (es > 8 ? 8 : es)));
  }
  mcu_flush(job, &l);
  /* argmax over the last row of small int8 / float outputs (a classifier's label) */
  if (t->numel > 0 && t->numel <= 64 && (t->dtype == PTE_DTYPE_CHAR || t->dtype == PTE_DTYPE_FLOAT)) {
    size_t best = 0;
    for (size_t i = 1; i < t->numel; i++) {
      const int gt = t->dtype == PTE_DTYPE_CHAR ? ((const int8_t *)t->data)[i] > ((const int8_t *)t->data)[best]
                                                 : ((const float *)t->data)[i] > ((const float *)t->data)[best];
      if (gt) best = i;
    }
    pte_mcu_line_str(&l, "argmax ");
    pte_mcu_line_u64(&l, idx);
    pte_mcu_line_str(&l, ": ");
    pte_mcu_line_u64(&l, best);
    mcu_flush(job, &l);
  }
}

int pte_mcu_run(const pte_mcu_job *job) {
  pte_error_info err;
  memset(&err, 0, sizeof err);
  pte_mcu_line l = {{0}, 0};
#ifndef PTE_MCU_NO_KERNELS
  pte_status s = pte_register_portable_kernels();
  if (s == PTE_OK) s = pte_register_cortex_m_kernels();
  if (s == PTE_OK) s = pte_register_quantized_kernels();
  if (s != PTE_OK) return mcu_fail(job, 10, "register kernels", s, NULL);
#else
  /* the core alone (footprint): programs with operators fail to load with OperatorMissing */
  pte_status s = PTE_OK;
#endif

  pte_buffer_loader bl;
  pte_buffer_loader_init(&bl, job->model, job->model_size);
  pte_program prog;
  s = pte_program_load(&bl.base, PTE_VERIFY_INTERNAL_CONSISTENCY, &prog, &err);
  if (s != PTE_OK) return mcu_fail(job, 11, "program load", s, &err);
  pte_method_meta meta;
  s = pte_method_meta_get(&prog, "forward", &meta, &err);
  if (s != PTE_OK) return mcu_fail(job, 12, "method meta", s, &err);

  /* planned buffers: carved out of the caller's arena, 16-byte aligned */
  pte_planned_buffer planned[MCU_MAX_PLANNED];
  const size_t np = pte_method_meta_num_planned_buffers(&meta);
  if (np > MCU_MAX_PLANNED) return mcu_fail(job, 13, "planned buffers (more than 8)", PTE_ERR_OUT_OF_RESOURCES, NULL);
  size_t used = 0;
  for (size_t i = 0; i < np; i++) {
    uint64_t sz = 0;
    s = pte_method_meta_planned_buffer_size(&meta, i, &sz);
    if (s != PTE_OK) return mcu_fail(job, 13, "planned buffer size", s, NULL);
    if (sz > job->planned_size - used) {
      pte_mcu_line_str(&l, "planned buffer ");
      pte_mcu_line_u64(&l, i);
      pte_mcu_line_str(&l, ": ");
      pte_mcu_line_u64(&l, sz);
      pte_mcu_line_str(&l, " bytes, arena has ");
      pte_mcu_line_u64(&l, job->planned_size - used);
      mcu_flush(job, &l);
      return mcu_fail(job, 13, "planned arena too small", PTE_ERR_OUT_OF_RESOURCES, NULL);
    }
    planned[i].data = (uint8_t *)job->planned + used;
    planned[i].size = (size_t)sz;
    used += ((size_t)sz + 15u) & ~(size_t)15u;
  }
  pte_mcu_line_str(&l, "ram: method-pool ");
  pte_mcu_line_u64(&l, job->method_pool_size);
  pte_mcu_line_str(&l, " planned ");
  pte_mcu_line_u64(&l, used);
  pte_mcu_line_str(&l, " (");
  pte_mcu_line_u64(&l, np);
  pte_mcu_line_str(&l, " buffers) input ");
  pte_mcu_line_u64(&l, job->input_size);
  pte_mcu_line_str(&l, " model ");
  pte_mcu_line_u64(&l, job->model_size);
  pte_mcu_line_str(&l, " bytes");
  mcu_flush(job, &l);

  pte_allocator ma;
  pte_allocator_init(&ma, job->method_pool, job->method_pool_size);
  pte_memory_manager mm;
  pte_memory_manager_init(&mm, &ma, planned, np, NULL);
  pte_method *m = NULL;
  s = pte_method_load(&prog, "forward", &mm, NULL, NULL, &m, &err);
  if (s != PTE_OK) return mcu_fail(job, 14, "method load", s, &err);
  pte_mcu_line_str(&l, "loaded: method-pool used ");
  pte_mcu_line_u64(&l, ma.peak);
  mcu_flush(job, &l);

  /* inputs: consecutive byte ranges of job->input */
  const uint8_t *in = (const uint8_t *)job->input;
  size_t off = 0;
  int rc = 0;
  for (size_t i = 0; i < pte_method_num_inputs(m) && rc == 0; i++) {
    pte_tensor_info ti;
    s = pte_method_meta_input_tensor_info(&meta, i, &ti);
    if (s != PTE_OK) {
      rc = mcu_fail(job, 15, "input is not a tensor", s, NULL);
      break;
    }
    if (ti.nbytes > job->input_size - off) {
      rc = mcu_fail(job, 15, "input data shorter than the method's inputs", PTE_ERR_INVALID_ARGUMENT, NULL);
      break;
    }
    s = pte_method_set_input_tensor(m, i, (pte_dtype)ti.dtype, ti.sizes, ti.dim, in + off, ti.nbytes, &err);
    if (s != PTE_OK) rc = mcu_fail(job, 15, "set input", s, &err);
    off += ti.nbytes;
  }
  if (rc == 0 && off != job->input_size)
    rc = mcu_fail(job, 15, "input data longer than the method's inputs", PTE_ERR_INVALID_ARGUMENT, NULL);
  if (rc == 0) {
    if (job->before_execute) job->before_execute();
    s = pte_method_execute(m, &err);
    if (job->after_execute) job->after_execute();
    if (s != PTE_OK) rc = mcu_fail(job, 16, "execute", s, &err);
  }
  for (size_t i = 0; rc == 0 && i < pte_method_num_outputs(m); i++) {
    const pte_evalue *o = pte_method_get_output(m, i);
    if (o && o->tag == PTE_TAG_TENSOR) {
      mcu_print_tensor(job, i, o->u.tensor);
    } else {
      pte_mcu_line_str(&l, "out ");
      pte_mcu_line_u64(&l, i);
      pte_mcu_line_str(&l, " tag ");
      pte_mcu_line_u64(&l, o ? (uint64_t)o->tag : 0u);
      mcu_flush(job, &l);
    }
  }
  pte_method_destroy(m);
  pte_program_destroy(&prog);
  return rc;
}
