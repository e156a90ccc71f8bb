/* tests/fuzz/fuzz_util.h — shared harness for the libFuzzer targets and the robustness tests.
 *
 * Header-only (static functions): the fuzz targets are built without the test support library.
 * The central piece is fz_run_method(): everything an application does with one method of an
 * untrusted program — metadata queries, planned buffers sized from the metadata (under a cap),
 * load with resource caps, fixed inputs, unplanned outputs bound to heap buffers, execute twice
 * (the second run checks the step state was reset), read the outputs back, destroy. Any crash,
 * leak or sanitizer report while doing that is a bug in pte.
 */
#ifndef PTE_TESTS_FUZZ_UTIL_H
#define PTE_TESTS_FUZZ_UTIL_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pte/allocator.h"
#include "pte/backend.h"
#include "pte/method.h"
#include "pte/program.h"

/* Bytes copied into 64-aligned heap memory of exactly `size` bytes (so ASan sees any read past
 * the end; pte_program_load needs 16-byte alignment). Free with free(). NULL on failure. */
static inline uint8_t *fz_aligned_copy(const uint8_t *data, size_t size) {
  void *buf = NULL;
  if (posix_memalign(&buf, 64, size ? size : 1) != 0) return NULL;
  if (size) memcpy(buf, data, size);
  return (uint8_t *)buf;
}

/* ---- A permissive test backend ----------------------------------------------------------------
 * Registered under the delegate ids the corpus uses for backends pte does not implement (and under
 * "XnnpackBackend" when the real one is not linked). init keeps a copy of the blob's first byte in
 * a handle from the runtime allocator (touching the blob); execute reads every byte of every
 * tensor argument that has data (so a tensor whose data/size disagree is caught by ASan) and
 * writes nothing. */
typedef struct fz_stub_handle {
  uint8_t first;
  size_t blob_size;
  size_t n_specs;
} fz_stub_handle;

static inline pte_status fz_stub_init(pte_backend_init_context *ctx, pte_freeable_buffer *processed,
                                      const pte_compile_spec *specs, size_t n_specs, pte_delegate_handle **out) {
  fz_stub_handle *h = PTE_ALLOC(ctx->runtime_allocator, fz_stub_handle);
  if (!h) return PTE_ERR_MEMORY_ALLOCATION_FAILED;
  h->blob_size = processed->size;
  h->first = processed->size ? ((const uint8_t *)processed->data)[0] : 0;
  if (processed->size) h->first ^= ((const uint8_t *)processed->data)[processed->size - 1];
  size_t spec_bytes = 0;
  for (size_t i = 0; i < n_specs; i++) {
    spec_bytes += specs[i].key ? strlen(specs[i].key) : 0;
    if (specs[i].nbytes) spec_bytes += ((const uint8_t *)specs[i].value)[specs[i].nbytes - 1];
  }
  h->n_specs = n_specs + (spec_bytes & 1);
  *out = h;
  return PTE_OK;
}

static volatile uint32_t fz_sink;

static inline pte_status fz_stub_execute(pte_backend_execution_context *ctx, pte_delegate_handle *handle,
                                         pte_evalue **args, size_t nargs) {
  (void)ctx;
  fz_stub_handle *h = (fz_stub_handle *)handle;
  uint32_t acc = h->first;
  for (size_t i = 0; i < nargs; i++) {
    if (!args[i] || args[i]->tag != PTE_TAG_TENSOR || !args[i]->u.tensor) continue;
    const pte_tensor *t = args[i]->u.tensor;
    size_t nb = pte_tensor_nbytes(t);
    if (!t->data) continue;
    const uint8_t *p = (const uint8_t *)t->data;
    for (size_t k = 0; k < nb; k += 61) acc += p[k];
    if (nb) acc += p[nb - 1];
  }
  fz_sink = acc;
  return PTE_OK;
}

static const pte_backend fz_stub_backend = {NULL, fz_stub_init, fz_stub_execute, NULL, NULL};

/* Registers the stub under the ids corpus files use, skipping ids already taken. */
static inline void fz_register_stub_backends(void) {
  static const char *const ids[] = {"OpenvinoBackend", "XnnpackBackend", "FuzzBackend"};
  for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++)
    if (!pte_get_backend(ids[i])) (void)pte_register_backend(ids[i], &fz_stub_backend);
}

/* ---- Running one method ------------------------------------------------------------------- */

typedef struct fz_run_opts {
  uint64_t max_planned;        /* planned memory cap (also given to the load as max_planned_memory) */
  size_t max_io_bytes;         /* largest unplanned input/output buffer we allocate */
  uint64_t max_instructions;   /* per execute */
  int executes;                /* how many times to execute after one load */
  const pte_named_data_map *ext;
  uint8_t *pool;               /* method allocator memory (reused across calls) */
  size_t pool_size;
  uint8_t *temp;               /* temp allocator memory */
  size_t temp_size;
} fz_run_opts;

typedef struct fz_run_result {
  pte_status meta, load, exec;
  pte_error_info err;
} fz_run_result;

/* Fills n bytes of a tensor of dtype with small deterministic values (floats 0.5, 1.5, ...;
 * integers 1, 2, 3...; bools 0/1). */
static inline void fz_fill(void *data, size_t nbytes, int dtype, unsigned seed) {
  uint8_t *p = (uint8_t *)data;
  if (dtype == PTE_DTYPE_FLOAT) {
    for (size_t i = 0; i + 4 <= nbytes; i += 4) {
      float f = 0.5f + (float)((i / 4 + seed) % 7);
      memcpy(p + i, &f, 4);
    }
  } else if (dtype == PTE_DTYPE_DOUBLE) {
    for (size_t i = 0; i + 8 <= nbytes; i += 8) {
      double f = 0.5 + (double)((i / 8 + seed) % 7);
      memcpy(p + i, &f, 8);
    }
  } else if (dtype == PTE_DTYPE_BOOL) {
    for (size_t i = 0; i < nbytes; i++) p[i] = (uint8_t)((i + seed) & 1);
  } else {
    size_t es = pte_dtype_size(dtype);
    if (!es) es = 1;
    memset(p, 0, nbytes);
    for (size_t i = 0; i + es <= nbytes; i += es) p[i] = (uint8_t)(1 + (i / es + seed) % 5);
  }
}

/* Sets every input to a fixed value: tensors from fz_fill, scalars back to their traced value. */
static inline pte_status fz_set_inputs(pte_method *m, const pte_method_meta *meta, size_t max_io, void **bufs,
                                       unsigned seed, pte_error_info *err) {
  size_t n = pte_method_num_inputs(m);
  for (size_t i = 0; i < n; i++) {
    pte_tag tag;
    pte_status s = pte_method_meta_input_tag(meta, i, &tag);
    if (s != PTE_OK) return s;
    if (tag == PTE_TAG_TENSOR) {
      pte_tensor_info info;
      if ((s = pte_method_meta_input_tensor_info(meta, i, &info)) != PTE_OK) return s;
      if (info.nbytes > max_io) return PTE_ERR_OUT_OF_RESOURCES;
      void *nb = malloc(info.nbytes ? info.nbytes : 1);
      if (!nb) return PTE_ERR_MEMORY_ALLOCATION_FAILED;
      fz_fill(nb, info.nbytes, info.dtype, seed);
      s = pte_method_set_input_tensor(m, i, (pte_dtype)info.dtype, info.sizes, info.dim, nb, info.nbytes, err);
      if (s != PTE_OK) {
        free(nb);
        return s;
      }
      /* An unplanned input now points at nb: the previous buffer is no longer referenced. */
      free(bufs[i]);
      bufs[i] = nb;
    } else {
      const pte_evalue *cur = pte_method_get_input(m, i);
      if (!cur) return PTE_ERR_INTERNAL;
      pte_evalue v = *cur;
      if ((s = pte_method_set_input(m, i, &v, err)) != PTE_OK) return s;
    }
  }
  return PTE_OK;
}

/* Gives every unplanned tensor output a heap buffer of its declared size. */
static inline pte_status fz_bind_outputs(pte_method *m, const pte_method_meta *meta, size_t max_io, void **bufs,
                                         pte_error_info *err) {
  size_t n = pte_method_num_outputs(m);
  for (size_t i = 0; i < n; i++) {
    pte_tag tag;
    if (pte_method_meta_output_tag(meta, i, &tag) != PTE_OK || tag != PTE_TAG_TENSOR) continue;
    pte_tensor_info info;
    if (pte_method_meta_output_tensor_info(meta, i, &info) != PTE_OK || info.is_memory_planned) continue;
    if (info.nbytes > max_io) return PTE_ERR_OUT_OF_RESOURCES;
    bufs[i] = calloc(1, info.nbytes ? info.nbytes : 1);
    if (!bufs[i]) return PTE_ERR_MEMORY_ALLOCATION_FAILED;
    pte_status s = pte_method_set_output_data_ptr(m, i, bufs[i], info.nbytes, err);
    if (s != PTE_OK) return s;
  }
  return PTE_OK;
}

/* Reads every byte of every tensor output (ASan checks they are in bounds). */
static inline void fz_touch_outputs(const pte_method *m) {
  uint32_t acc = 0;
  for (size_t i = 0; i < pte_method_num_outputs(m); i++) {
    const pte_evalue *v = pte_method_get_output(m, i);
    if (!v || v->tag != PTE_TAG_TENSOR || !v->u.tensor || !v->u.tensor->data) continue;
    const uint8_t *p = (const uint8_t *)v->u.tensor->data;
    size_t nb = pte_tensor_nbytes(v->u.tensor);
    for (size_t k = 0; k < nb; k += 13) acc += p[k];
    if (nb) acc += p[nb - 1];
  }
  fz_sink = acc;
}

static inline void fz_free_all(void **bufs, size_t n) {
  if (!bufs) return;
  for (size_t i = 0; i < n; i++) free(bufs[i]);
  free(bufs);
}

/* Runs method `name` of `prog` as described at the top of this file. */
static inline fz_run_result fz_run_method(const pte_program *prog, const char *name, const fz_run_opts *o) {
  fz_run_result r;
  memset(&r, 0, sizeof r);
  r.load = r.exec = PTE_ERR_INTERNAL;
  pte_method_meta meta;
  r.meta = pte_method_meta_get(prog, name, &meta, &r.err);
  if (r.meta != PTE_OK) return r;
  /* Metadata queries must be safe on anything that passed pte_method_meta_get. */
  for (size_t i = 0; i < pte_method_meta_num_inputs(&meta); i++) {
    pte_tag t;
    pte_tensor_info ti;
    (void)pte_method_meta_input_tag(&meta, i, &t);
    (void)pte_method_meta_input_tensor_info(&meta, i, &ti);
  }
  for (size_t i = 0; i < pte_method_meta_num_outputs(&meta); i++) {
    pte_tag t;
    pte_tensor_info ti;
    (void)pte_method_meta_output_tag(&meta, i, &t);
    (void)pte_method_meta_output_tensor_info(&meta, i, &ti);
  }
  (void)pte_method_meta_num_instructions(&meta);
  for (size_t i = 0; i < pte_method_meta_num_delegates(&meta); i++) (void)pte_method_meta_delegate_id(&meta, i);

  uint64_t total = 0;
  if (pte_method_meta_planned_memory(&meta, &total) != PTE_OK || total > o->max_planned) {
    r.load = PTE_ERR_OUT_OF_RESOURCES; /* what the load itself answers (checked below) */
  }
  size_t np = pte_method_meta_num_planned_buffers(&meta);
  pte_planned_buffer *planned = (pte_planned_buffer *)calloc(np ? np : 1, sizeof *planned);
  void **pmem = (void **)calloc(np ? np : 1, sizeof *pmem);
  if (!planned || !pmem) goto out_planned;
  if (r.load != PTE_ERR_OUT_OF_RESOURCES) {
    for (size_t i = 0; i < np; i++) {
      uint64_t sz = 0;
      (void)pte_method_meta_planned_buffer_size(&meta, i, &sz);
      if (sz) {
        pmem[i] = calloc(1, (size_t)sz);
        if (!pmem[i]) goto out_planned;
      }
      planned[i].data = pmem[i];
      planned[i].size = (size_t)sz;
    }
  }
  pte_allocator ma, temp;
  pte_allocator_init(&ma, o->pool, o->pool_size);
  pte_allocator_init(&temp, o->temp, o->temp_size);
  pte_memory_manager mm;
  pte_memory_manager_init(&mm, &ma, planned, np, o->temp ? &temp : NULL);
  pte_method_options mo;
  memset(&mo, 0, sizeof mo);
  mo.external_data = o->ext;
  mo.max_instructions = o->max_instructions;
  mo.max_planned_memory = o->max_planned;
  pte_method *m = NULL;
  pte_status ls = pte_method_load_ex(prog, name, &mm, &mo, &m, &r.err);
  if (r.load == PTE_ERR_OUT_OF_RESOURCES) {
    /* Our cap and the runtime's cap must agree. */
    if (ls == PTE_OK) abort();
    goto out_planned;
  }
  r.load = ls;
  if (ls != PTE_OK) goto out_planned;
  {
    size_t nin = pte_method_num_inputs(m), nout = pte_method_num_outputs(m);
    void **inb = (void **)calloc(nin ? nin : 1, sizeof(void *));
    void **outb = (void **)calloc(nout ? nout : 1, sizeof(void *));
    (void)pte_method_name(m);
    (void)pte_method_get_meta(m);
    for (size_t i = 0; i < pte_method_num_values(m); i++) (void)pte_method_get_value(m, i);
    if (inb && outb) {
      r.exec = fz_bind_outputs(m, &meta, o->max_io_bytes, outb, &r.err);
      for (int k = 0; k < o->executes && r.exec == PTE_OK; k++) {
        /* Unplanned inputs share our buffers: they are freed only after the next set_input
         * (or after destroy). */
        r.exec = fz_set_inputs(m, &meta, o->max_io_bytes, inb, (unsigned)k, &r.err);
        if (r.exec == PTE_OK) r.exec = pte_method_execute(m, &r.err);
        if (r.exec == PTE_OK) fz_touch_outputs(m);
      }
      /* A step-wise run after the full runs (exercises step/reset). */
      if (r.exec == PTE_OK) {
        pte_error_info e2;
        pte_status st;
        uint64_t steps = 0;
        while ((st = pte_method_step(m, &e2)) == PTE_OK && ++steps < o->max_instructions + 2) {
        }
        if (st == PTE_END_OF_METHOD) (void)pte_method_reset_execution(m);
      }
    }
    pte_method_destroy(m);
    fz_free_all(inb, nin);
    fz_free_all(outb, nout);
  }
out_planned:
  if (pmem)
    for (size_t i = 0; i < np; i++) free(pmem[i]);
  free(pmem);
  free(planned);
  return r;
}

/* Runs every method of the program. */
static inline void fz_run_all_methods(const pte_program *prog, const fz_run_opts *o) {
  size_t n = pte_program_num_methods(prog);
  for (size_t i = 0; i < n && i < 16; i++) {
    const char *name = pte_program_method_name(prog, i);
    if (name) (void)fz_run_method(prog, name, o);
  }
}

#endif
