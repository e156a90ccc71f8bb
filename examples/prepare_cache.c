/* prepare_cache.c — "prepare on first launch": keep a device-prepared copy of a model in an app
 * cache directory and run that copy.
 *
 *   prepare_cache model.pte CACHE_DIR
 *
 * Backends (here XNNPACK) may transform their data at every load (weight packing...). Preparing
 * does it once and saves the result (pte/prepare.h). The app logic:
 *   - CACHE_DIR/<model file name> missing, or older than the model  -> prepare it now;
 *   - otherwise load the cached copy; if a backend says it was prepared for another device or
 *     backend version (PTE_ERR_DELEGATE_INVALID_COMPATIBILITY, e.g. the cache was restored onto a
 *     new phone), prepare again and retry once.
 * pte_prepare_file writes through a temp file + rename under a lock, so a crash or two launches
 * at once never leave a half-written cache entry. Prints "cache: prepared" or "cache: hit", then
 * the float outputs of "forward" on all-ones inputs (like run_model.c).
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "pte/backend_xnnpack.h"
#include "pte/io.h"
#include "pte/method.h"
#include "pte/portable_kernels.h"
#include "pte/prepare.h"
#include "pte/program.h"

/* The cached copy is stale when it is missing or older than the model. */
static int is_stale(const char *model, const char *cached) {
  struct stat m, c;
  if (stat(cached, &c) != 0) return 1;
  if (stat(model, &m) != 0) return 0; /* model gone: the cached copy is all we have */
  if (c.st_mtim.tv_sec != m.st_mtim.tv_sec) return c.st_mtim.tv_sec < m.st_mtim.tv_sec;
  return c.st_mtim.tv_nsec < m.st_mtim.tv_nsec;
}

/* Loads `path` (mmap: prepared data is used in place) and runs "forward" on ones. */
static pte_status run(const char *path, pte_error_info *err) {
  enum { MAX = 16 };
  pte_mmap_loader ml;
  pte_program prog;
  pte_method_meta meta;
  pte_planned_buffer bufs[MAX] = {{0, 0}};
  float *ones[MAX] = {0};
  pte_method *m = NULL;
  static unsigned char pool_mem[4 << 20];
  pte_status s = pte_mmap_loader_open(&ml, path, PTE_MLOCK_NONE, err);
  if (s != PTE_OK) return s;
  s = pte_program_load(&ml.base, PTE_VERIFY_INTERNAL_CONSISTENCY, &prog, err);
  if (s != PTE_OK) return pte_mmap_loader_close(&ml), s;
  size_t nb = 0, nin = 0;
  if ((s = pte_method_meta_get(&prog, "forward", &meta, err)) == PTE_OK) {
    nb = pte_method_meta_num_planned_buffers(&meta);
    nin = pte_method_meta_num_inputs(&meta);
    if (nb > MAX || nin > MAX) s = pte_error_set(err, PTE_ERR_NOT_SUPPORTED, "more than %d buffers/inputs", MAX);
  }
  for (size_t i = 0; s == PTE_OK && i < nb; i++) {
    uint64_t size = 0;
    pte_method_meta_planned_buffer_size(&meta, i, &size);
    bufs[i] = (pte_planned_buffer){calloc(1, (size_t)size + 1), (size_t)size};
  }
  pte_allocator pool;
  pte_allocator_init(&pool, pool_mem, sizeof pool_mem);
  pte_memory_manager mm;
  pte_memory_manager_init(&mm, &pool, bufs, nb, NULL);
  if (s == PTE_OK) s = pte_method_load(&prog, "forward", &mm, NULL, NULL, &m, err);
  for (size_t i = 0; s == PTE_OK && i < nin; i++) {
    pte_tensor_info ti;
    if (pte_method_meta_input_tensor_info(&meta, i, &ti) != PTE_OK || ti.dtype != PTE_DTYPE_FLOAT) continue;
    ones[i] = malloc(ti.nbytes + 1);
    for (size_t k = 0; k < ti.nbytes / sizeof(float); k++) ones[i][k] = 1.0f;
    s = pte_method_set_input_tensor(m, i, PTE_DTYPE_FLOAT, ti.sizes, ti.dim, ones[i], ti.nbytes, err);
  }
  if (s == PTE_OK) s = pte_method_execute(m, err);
  for (size_t i = 0; s == PTE_OK && i < pte_method_num_outputs(m); i++) {
    const pte_evalue *v = pte_method_get_output(m, i);
    printf("output %zu:", i);
    for (size_t k = 0; v->tag == PTE_TAG_TENSOR && v->u.tensor->dtype == PTE_DTYPE_FLOAT && k < v->u.tensor->numel; k++)
      printf(" %g", ((const float *)v->u.tensor->data)[k]);
    printf("\n");
  }
  pte_method_destroy(m);
  pte_program_destroy(&prog);
  pte_mmap_loader_close(&ml);
  for (size_t i = 0; i < MAX; i++) free(ones[i]), free(bufs[i].data);
  return s;
}

int main(int argc, char **argv) {
  if (argc != 3) return fprintf(stderr, "usage: %s model.pte CACHE_DIR\n", argv[0]), 2;
  const char *model = argv[1], *dir = argv[2];
  const char *base = strrchr(model, '/') ? strrchr(model, '/') + 1 : model;
  char cached[4096];
  if ((size_t)snprintf(cached, sizeof cached, "%s/%s", dir, base) >= sizeof cached) return 2;
  if (mkdir(dir, 0755) != 0 && errno != EEXIST) return perror(dir), 1;

  /* Register what the app runs with BEFORE preparing: prepare asks each registered backend. */
  pte_register_portable_kernels();
  pte_register_xnnpack_backend();

  pte_error_info err;
  pte_status s = PTE_OK;
  for (int attempt = 0; attempt < 2; attempt++) {
    if (attempt > 0 || is_stale(model, cached)) {
      pte_prepare_report report;
      s = pte_prepare_file(model, cached, NULL, &report, &err);
      if (s != PTE_OK) return fprintf(stderr, "prepare %s: %s\n", model, err.msg), 1;
      printf("cache: prepared %s -> %s (%s)\n", model, cached, report.changed ? "backend data prepared" : "nothing to prepare: copy");
    } else {
      printf("cache: hit %s\n", cached);
    }
    s = run(cached, &err);
    if (s != PTE_ERR_DELEGATE_INVALID_COMPATIBILITY) break;
    printf("cache: %s prepared for another device/version: %s\n", cached, err.msg);
  }
  if (s != PTE_OK) return fprintf(stderr, "%s: %s\n", cached, err.msg), 1;
  return 0;
}
