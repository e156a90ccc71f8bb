#define _POSIX_C_SOURCE 200809L
/* libFuzzer target: .bpte (BundledProgram) load, every suite / case / value accessor, the
 * embedded program at both verification levels, and — for each suite whose method exists — the
 * method loaded and run once with the case's own inputs (as `pte test` does), so set_input sees
 * arbitrary dtypes, ranks and shapes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "pte/bundled.h"
#include "pte/data_loader.h"
#include "pte/backend_xnnpack.h"
#include "pte/portable_kernels.h"
#include "pte/program.h"

#define FZ_POOL (8u << 20)
#define FZ_TEMP (1u << 20)
static uint8_t *pool, *temp;
static volatile uint32_t fz_bp_sink;

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  (void)pte_register_portable_kernels();
  /* The real backend for XnnpackBackend delegates (FZ_NO_XNNPACK=1: the stub instead, to fuzz
   * the rest of the method path while an XNNPACK finding is open). */
  if (!getenv("FZ_NO_XNNPACK")) (void)pte_register_xnnpack_backend();
  fz_register_stub_backends(); /* stubs for the other ids */
  pool = (uint8_t *)malloc(FZ_POOL);
  temp = (uint8_t *)malloc(FZ_TEMP);
  return 0;
}

static void touch_value(const pte_bundled_value *v) {
  uint32_t acc = (uint32_t)v->kind + (uint32_t)v->int_val + v->bool_val;
  if (v->kind == PTE_BUNDLED_TENSOR) {
    for (int32_t d = 0; d < v->tensor.dim; d++) acc += (uint32_t)v->tensor.sizes[d];
    if (v->tensor.dim_order)
      for (int32_t d = 0; d < v->tensor.dim; d++) acc += v->tensor.dim_order[d];
    const uint8_t *p = (const uint8_t *)v->tensor.data;
    if (p && v->tensor.nbytes) acc += p[0] + p[v->tensor.nbytes - 1];
  }
  fz_bp_sink = acc;
}

/* Sets input i of m from a bundled value; returns the status. */
static pte_status set_bundled_input(pte_method *m, size_t i, const pte_bundled_value *v) {
  pte_evalue ev;
  memset(&ev, 0, sizeof ev);
  pte_tensor t;
  int32_t strides[PTE_MAX_RANK];
  uint8_t order[PTE_MAX_RANK];
  switch (v->kind) {
    case PTE_BUNDLED_INT: ev.tag = PTE_TAG_INT; ev.u.i = v->int_val; break;
    case PTE_BUNDLED_BOOL: ev.tag = PTE_TAG_BOOL; ev.u.b = v->bool_val; break;
    case PTE_BUNDLED_DOUBLE: ev.tag = PTE_TAG_DOUBLE; ev.u.d = v->double_val; break;
    case PTE_BUNDLED_TENSOR: {
      if (v->tensor.dim < 0 || v->tensor.dim > PTE_MAX_RANK) return PTE_ERR_INVALID_ARGUMENT;
      for (int32_t d = 0; d < v->tensor.dim; d++) order[d] = v->tensor.dim_order ? v->tensor.dim_order[d] : (uint8_t)d;
      memset(&t, 0, sizeof t);
      t.data = (void *)(uintptr_t)v->tensor.data;
      t.sizes = (int32_t *)(uintptr_t)v->tensor.sizes;
      t.dim_order = order;
      t.dim = v->tensor.dim;
      t.dtype = v->tensor.dtype;
      if (pte_strides_from_dim_order(v->tensor.sizes, order, v->tensor.dim, strides) != PTE_OK)
        return PTE_ERR_INVALID_ARGUMENT;
      t.strides = strides;
      size_t es = pte_dtype_size(t.dtype);
      t.numel = es ? v->tensor.nbytes / es : 0;
      t.capacity_bytes = v->tensor.nbytes;
      ev.tag = PTE_TAG_TENSOR;
      ev.u.tensor = &t;
      break;
    }
    default: return PTE_ERR_INVALID_ARGUMENT;
  }
  return pte_method_set_input(m, i, &ev, NULL);
}

static void run_suite(const pte_program *prog, const pte_bundled_suite *s) {
  size_t idx;
  if (!s->method_name || pte_program_find_method(prog, s->method_name, &idx) != PTE_OK) return;
  pte_method_meta meta;
  if (pte_method_meta_get(prog, s->method_name, &meta, NULL) != PTE_OK) return;
  uint64_t total;
  if (pte_method_meta_planned_memory(&meta, &total) != PTE_OK || total > (4u << 20)) return;
  size_t np = pte_method_meta_num_planned_buffers(&meta);
  pte_planned_buffer *pb = (pte_planned_buffer *)calloc(np ? np : 1, sizeof *pb);
  if (!pb) return;
  for (size_t i = 0; i < np; i++) {
    uint64_t sz = 0;
    (void)pte_method_meta_planned_buffer_size(&meta, i, &sz);
    pb[i].size = (size_t)sz;
    pb[i].data = sz ? calloc(1, (size_t)sz) : NULL;
  }
  pte_allocator ma, ta;
  pte_allocator_init(&ma, pool, FZ_POOL);
  pte_allocator_init(&ta, temp, FZ_TEMP);
  pte_memory_manager mm;
  pte_memory_manager_init(&mm, &ma, pb, np, &ta);
  pte_method_options mo;
  memset(&mo, 0, sizeof mo);
  mo.max_instructions = 10000;
  mo.max_planned_memory = 4u << 20;
  pte_method *m = NULL;
  if (pte_method_load_ex(prog, s->method_name, &mm, &mo, &m, NULL) == PTE_OK) {
    for (size_t c = 0; c < s->num_cases && c < 4; c++) {
      pte_bundled_case tc;
      if (pte_bundled_get_case(s, c, &tc) != PTE_OK) continue;
      pte_status st = PTE_OK;
      for (size_t i = 0; i < tc.num_inputs && st == PTE_OK; i++) {
        pte_bundled_value v;
        st = pte_bundled_case_input(&tc, i, &v);
        if (st == PTE_OK) st = set_bundled_input(m, i, &v);
      }
      if (st == PTE_OK && pte_method_execute(m, NULL) == PTE_OK) fz_touch_outputs(m);
    }
    pte_method_destroy(m);
  }
  for (size_t i = 0; i < np; i++) free(pb[i].data);
  free(pb);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  uint8_t *buf = fz_aligned_copy(data, size);
  if (!buf || !pool || !temp) {
    free(buf);
    return 0;
  }
  pte_buffer_loader bl;
  pte_buffer_loader_init(&bl, buf, size);
  pte_bundled_program bp;
  if (pte_bundled_program_load(&bl.base, &bp, NULL) == PTE_OK) {
    uint64_t off, sz;
    pte_bundled_program_location(&bp, &off, &sz);
    (void)pte_bundled_program_version(&bp);
    size_t ns = pte_bundled_num_suites(&bp);
    for (size_t i = 0; i <= ns && i < 16; i++) {
      pte_bundled_suite s;
      if (pte_bundled_get_suite(&bp, i, &s) != PTE_OK) continue;
      pte_bundled_suite s2;
      if (s.method_name) (void)pte_bundled_find_suite(&bp, s.method_name, &s2);
      for (size_t c = 0; c <= s.num_cases && c < 16; c++) {
        pte_bundled_case tc;
        if (pte_bundled_get_case(&s, c, &tc) != PTE_OK) continue;
        pte_bundled_value v;
        for (size_t k = 0; k <= tc.num_inputs && k < 16; k++)
          if (pte_bundled_case_input(&tc, k, &v) == PTE_OK) touch_value(&v);
        for (size_t k = 0; k <= tc.num_expected_outputs && k < 16; k++)
          if (pte_bundled_case_expected_output(&tc, k, &v) == PTE_OK) touch_value(&v);
      }
    }
    for (int lv = 0; lv < 2; lv++) {
      pte_program prog;
      if (pte_program_load(pte_bundled_program_loader(&bp), (pte_verification)lv, &prog, NULL) != PTE_OK) continue;
      for (size_t i = 0; i < ns && i < 4; i++) {
        pte_bundled_suite s;
        if (pte_bundled_get_suite(&bp, i, &s) == PTE_OK) run_suite(&prog, &s);
      }
      pte_program_destroy(&prog);
    }
    pte_bundled_program_destroy(&bp);
  }
  free(buf);
  return 0;
}
