/* src/module/host.h — heap-backed loading helpers shared by the Module API (pte/module.h) and the
 * CLI (tools/cli/runner.c). Outside the core: these malloc and call the OS.
 *
 * A host source is an open file behind one of the three loaders (mmap, file, or buffer: the whole
 * file read into 64-byte aligned heap memory). Host memory is what one method needs: planned
 * buffers exactly as large as pte_method_meta says (calloc: pages are touched only when used), a
 * method allocator that grows (doubling from 16 KiB up to 1 GiB) when a load reports it exhausted,
 * a 16 MiB temp allocator for kernel scratch, and heap buffers for unplanned tensor outputs.
 */
#ifndef PTE_MODULE_HOST_H
#define PTE_MODULE_HOST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pte/data_loader.h"
#include "pte/io.h"
#include "pte/method.h"
#include "pte/program.h"

typedef enum pte_host_loader_kind {
  PTE_HOST_LOADER_MMAP = 0,
  PTE_HOST_LOADER_FILE = 1,
  PTE_HOST_LOADER_BUFFER = 2
} pte_host_loader_kind;

/* An open file behind a data loader. Must not move after open (the loader points into it). */
typedef struct pte_host_source {
  pte_host_loader_kind kind;
  pte_file_loader fl;
  pte_mmap_loader ml;
  pte_buffer_loader bl;
  uint8_t *bytes; /* buffer loader: the file contents */
  size_t size;
  bool open;
} pte_host_source;

/* Opens `path` with the given loader. Errors: the loader's (ACCESS_FAILED naming path and reason). */
pte_status pte_host_source_open(pte_host_source *s, const char *path, pte_host_loader_kind kind, pte_error_info *err);
const pte_data_loader *pte_host_source_loader(const pte_host_source *s);
/* Safe on a zeroed or already closed source. */
void pte_host_source_close(pte_host_source *s);

/* Whole-file read into 64-byte aligned heap memory (NULL with errno set on failure). */
uint8_t *pte_host_read_file(const char *path, size_t *size);

typedef struct pte_host_memory {
  size_t n_planned;
  void **planned_mem;
  pte_planned_buffer *planned;
  uint8_t *pool;
  size_t pool_size;
  pte_allocator ma;
  uint8_t *temp_mem;
  size_t temp_size;
  pte_allocator temp;
  pte_memory_manager mm;
  size_t n_outputs;
  void **out_bufs; /* buffers given to unplanned tensor outputs */
} pte_host_memory;

/* Allocates the planned buffers of `meta` (zeroed), the method allocator and the temp allocator.
 * Errors: MEMORY_ALLOCATION_FAILED (heap, naming the buffer), errors of the meta queries. */
pte_status pte_host_memory_init(pte_host_memory *mem, const pte_method_meta *meta, pte_error_info *err);
/* Safe on a zeroed memory. */
void pte_host_memory_free(pte_host_memory *mem);

/* Loads method `name` into mem (resetting the method allocator first). When the load reports the
 * method allocator exhausted, doubles it and tries again (up to 1 GiB). opts may be NULL. *ms
 * (may be NULL) receives the duration of the successful attempt in milliseconds. */
pte_status pte_host_method_load(pte_host_memory *mem, const pte_program *p, const char *name,
                                const pte_method_options *opts, pte_method **out, double *ms, pte_error_info *err);

/* Gives every unplanned tensor output a heap buffer of its declared size (kept in mem, reused
 * across loads). */
pte_status pte_host_bind_outputs(pte_host_memory *mem, pte_method *m, pte_error_info *err);

/* Monotonic clock in milliseconds. */
double pte_host_now_ms(void);

/* Copies contiguous (C-order) data of `sizes` into the layout described by dim_order, and back. */
void pte_host_contiguous_to_layout(void *dst, const void *src, const int32_t *sizes, const uint8_t *dim_order,
                                   int32_t dim, size_t es);
void pte_host_layout_to_contiguous(void *dst, const void *src, const int32_t *sizes, const uint8_t *dim_order,
                                   int32_t dim, size_t es);

/* Copies `sizes` elements of es bytes between two strided layouts (strides in elements). */
void pte_host_copy_strided(void *dst, const int64_t *dst_strides, const void *src, const int64_t *src_strides,
                           const int32_t *sizes, int32_t dim, size_t es);

#endif
