/* tests/unit/test_method_corpus_util.h — fixtures of the corpus method tests
 * (test_method_corpus.c, test_method_corpus_errors.c): the portable kernels registered, corpus
 * .pte / .ptd files opened, a method loaded with its own memory and run (LOAD_OK, EXEC_OK).
 * static inline so a test that does not use one does not warn. */
#ifndef PTE_TEST_METHOD_CORPUS_UTIL_H
#define PTE_TEST_METHOD_CORPUS_UTIL_H

#include "test.h"

#include "portable/portable_activation.h"
#include "portable/portable_binary.h"
#include "portable/portable_compare.h"
#include "portable/portable_copy.h"
#include "portable/portable_index.h"
#include "portable/portable_nn.h"
#include "portable/portable_reduce.h"
#include "portable/portable_shape.h"
#include "portable/portable_unary.h"
#include "pte/backend.h"
#include "pte/bundled.h"
#include "pte/data_loader.h"
#include "pte/method.h"
#include "pte/program.h"
#include "pte/ptd.h"

static inline void register_portable(void) {
  static bool done;
  if (done) return;
  done = true;
  struct { const pte_kernel *k; size_t n; } tabs[] = {
      {pte_portable_activation_kernels, pte_portable_activation_kernels_count},
      {pte_portable_binary_kernels, pte_portable_binary_kernels_count},
      {pte_portable_compare_kernels, pte_portable_compare_kernels_count},
      {pte_portable_copy_kernels, pte_portable_copy_kernels_count},
      {pte_portable_index_kernels, pte_portable_index_kernels_count},
      {pte_portable_linalg_kernels, pte_portable_linalg_kernels_count},
      {pte_portable_conv_kernels, pte_portable_conv_kernels_count},
      {pte_portable_pool_kernels, pte_portable_pool_kernels_count},
      {pte_portable_norm_kernels, pte_portable_norm_kernels_count},
      {pte_portable_softmax_kernels, pte_portable_softmax_kernels_count},
      {pte_portable_reduce_kernels, pte_portable_reduce_kernels_count},
      {pte_portable_shape_kernels, pte_portable_shape_kernels_count},
      {pte_portable_unary_kernels, pte_portable_unary_kernels_count},
  };
  for (size_t i = 0; i < sizeof tabs / sizeof tabs[0]; i++) {
    pte_status s = pte_register_kernels(tabs[i].k, tabs[i].n);
    if (s != PTE_OK) fprintf(stderr, "note: kernel table %zu: %s\n", i, pte_status_name(s));
  }
}

typedef struct prog_file {
  uint8_t *bytes;
  size_t size;
  pte_buffer_loader bl;
  pte_program prog;
  bool loaded;
} prog_file;

static inline bool open_prog(prog_file *f, const char *name) {
  memset(f, 0, sizeof *f);
  f->bytes = test_read_corpus(name, &f->size);
  if (!f->bytes) return false;
  pte_buffer_loader_init(&f->bl, f->bytes, f->size);
  pte_error_info e;
  pte_status s = pte_program_load(&f->bl.base, PTE_VERIFY_INTERNAL_CONSISTENCY, &f->prog, &e);
  if (s != PTE_OK) {
    test_fail(__FILE__, __LINE__, "program %s: %s: %s", name, pte_status_name(s), e.msg);
    return false;
  }
  f->loaded = true;
  return true;
}

static inline void close_prog(prog_file *f) {
  if (f->loaded) pte_program_destroy(&f->prog);
  free(f->bytes);
  memset(f, 0, sizeof *f);
}

typedef struct ptd_file {
  uint8_t *bytes;
  size_t size;
  pte_buffer_loader bl;
  pte_ptd ptd;
  bool loaded;
} ptd_file;

static inline bool open_ptd(ptd_file *f, const char *name) {
  memset(f, 0, sizeof *f);
  f->bytes = test_read_corpus(name, &f->size);
  if (!f->bytes) return false;
  pte_buffer_loader_init(&f->bl, f->bytes, f->size);
  pte_error_info e;
  pte_status s = pte_ptd_load(&f->bl.base, &f->ptd, &e);
  if (s != PTE_OK) {
    test_fail(__FILE__, __LINE__, "ptd %s: %s: %s", name, pte_status_name(s), e.msg);
    return false;
  }
  f->loaded = true;
  return true;
}

static inline void close_ptd(ptd_file *f) {
  if (f->loaded) pte_ptd_destroy(&f->ptd);
  free(f->bytes);
  memset(f, 0, sizeof *f);
}

/* Memory for one method: heap planned buffers sized from the meta. */
typedef struct runner {
  uint8_t *pool, *temp_mem;
  pte_allocator ma, temp;
  void *planned_mem[4];
  pte_planned_buffer planned[4];
  size_t n_planned;
  pte_memory_manager mm;
  pte_method *m;
  pte_error_info err;
} runner;

static inline void runner_free(runner *r) {
  if (r->m) pte_method_destroy(r->m);
  for (size_t i = 0; i < r->n_planned; i++) free(r->planned_mem[i]);
  free(r->pool);
  free(r->temp_mem);
  memset(r, 0, sizeof *r);
}

/* Sets up memory for `name` and loads it; returns the load status (message in r->err). */
static inline pte_status runner_load(runner *r, const pte_program *p, const char *name, const pte_named_data_map *ext) {
  memset(r, 0, sizeof *r);
  pte_method_meta meta;
  pte_status s = pte_method_meta_get(p, name, &meta, &r->err);
  if (s != PTE_OK) return s;
  r->n_planned = pte_method_meta_num_planned_buffers(&meta);
  if (r->n_planned > 4) return PTE_ERR_NOT_SUPPORTED;
  for (size_t i = 0; i < r->n_planned; i++) {
    uint64_t sz = 0;
    if (pte_method_meta_planned_buffer_size(&meta, i, &sz) != PTE_OK) return PTE_ERR_INTERNAL;
    r->planned_mem[i] = calloc(1, (size_t)sz + 64);
    if (!r->planned_mem[i]) return PTE_ERR_MEMORY_ALLOCATION_FAILED;
    r->planned[i].data = r->planned_mem[i];
    r->planned[i].size = (size_t)sz;
  }
  r->pool = malloc(4 << 20);
  r->temp_mem = malloc(1 << 20);
  pte_allocator_init(&r->ma, r->pool, 4 << 20);
  pte_allocator_init(&r->temp, r->temp_mem, 1 << 20);
  pte_memory_manager_init(&r->mm, &r->ma, r->planned, r->n_planned, &r->temp);
  return pte_method_load(p, name, &r->mm, NULL, ext, &r->m, &r->err);
}

#define LOAD_OK(r, p, name, ext)                                                                        \
  do {                                                                                                  \
    pte_status _ls = runner_load((r), (p), (name), (ext));                                              \
    if (_ls != PTE_OK) {                                                                                \
      test_fail(__FILE__, __LINE__, "load %s: %s: %s", (name), pte_status_name(_ls), (r)->err.msg);     \
      runner_free(r);                                                                                   \
      return;                                                                                           \
    }                                                                                                   \
  } while (0)

#define EXEC_OK(r)                                                                                      \
  do {                                                                                                  \
    pte_status _es = pte_method_execute((r)->m, &(r)->err);                                             \
    if (_es != PTE_OK) {                                                                                \
      test_fail(__FILE__, __LINE__, "execute: %s: %s", pte_status_name(_es), (r)->err.msg);             \
      runner_free(r);                                                                                   \
      return;                                                                                           \
    }                                                                                                   \
  } while (0)

static inline const pte_tensor *out_tensor(runner *r, size_t i) {
  const pte_evalue *v = pte_method_get_output(r->m, i);
  return (v && v->tag == PTE_TAG_TENSOR) ? v->u.tensor : NULL;
}

static inline float rd_f32(const uint8_t *p) {
  float f;
  memcpy(&f, p, 4);
  return f;
}

#endif
