/* tools/cli/runner.h — loading and running methods for the CLI verbs (run, test).
 *
 * Files are opened behind one of the three loaders (mmap by default, file, or buffer: the whole
 * file read into 64-byte aligned heap memory). Method memory is heap: planned buffers exactly as
 * large as pte_method_meta says, a method allocator that grows (doubling, up to 1 GiB) when the
 * load reports it exhausted, and a temp allocator for kernel scratch.
 */
#ifndef PTE_TOOLS_RUNNER_H
#define PTE_TOOLS_RUNNER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pte/data_loader.h"
#include "pte/io.h"
#include "pte/method.h"
#include "pte/program.h"

typedef enum pte_cli_loader_kind {
  PTE_CLI_LOADER_MMAP = 0,
  PTE_CLI_LOADER_FILE = 1,
  PTE_CLI_LOADER_BUFFER = 2
} pte_cli_loader_kind;

/* "mmap" / "file" / "buffer" -> kind; false for anything else. */
bool pte_cli_parse_loader(const char *s, pte_cli_loader_kind *out);
const char *pte_cli_loader_name(pte_cli_loader_kind k);

/* An open file behind a data loader. Must not move after open (the loader points into it). */
typedef struct pte_cli_source {
  pte_cli_loader_kind kind;
  pte_file_loader fl;
  pte_mmap_loader ml;
  pte_buffer_loader bl;
  uint8_t *bytes; /* buffer loader: the file contents */
  size_t size;
  bool open;
} pte_cli_source;

/* Opens `path` with the given loader. Errors: the loader's (ACCESS_FAILED with the reason). */
pte_status pte_cli_source_open(pte_cli_source *s, const char *path, pte_cli_loader_kind kind, pte_error_info *err);
const pte_data_loader *pte_cli_source_loader(const pte_cli_source *s);
void pte_cli_source_close(pte_cli_source *s);

/* Whole-file read into 64-byte aligned heap memory (NULL with errno on failure). */
uint8_t *pte_cli_read_file(const char *path, size_t *size);

/* Heap memory for one method. */
typedef struct pte_cli_memory {
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
} pte_cli_memory;

/* Allocates the planned buffers of `meta` (zeroed), a 16 KiB method allocator (grown on demand
 * by pte_cli_method_load) and a 16 MiB temp allocator. Errors: MEMORY_ALLOCATION_FAILED (heap),
 * errors of the meta queries. */
pte_status pte_cli_memory_init(pte_cli_memory *mem, const pte_method_meta *meta, pte_error_info *err);
void pte_cli_memory_free(pte_cli_memory *mem);

/* Loads method `name` into mem (resetting the method allocator first). When the load reports the
 * method allocator exhausted, doubles it and tries again (up to 1 GiB). *ms (may be NULL) receives
 * the duration of the successful attempt in milliseconds. */
pte_status pte_cli_method_load(pte_cli_memory *mem, const pte_program *p, const char *name,
                               const pte_named_data_map *ext, pte_method **out, double *ms, pte_error_info *err);

/* Gives every unplanned tensor output a heap buffer of its declared size (kept in mem, reused
 * across loads). */
pte_status pte_cli_bind_outputs(pte_cli_memory *mem, pte_method *m, pte_error_info *err);

/* Monotonic clock in milliseconds. */
double pte_cli_now_ms(void);

/* Element i of a tensor's data as a double (0 for dtypes without a numeric reading). */
double pte_cli_elem_double(int dtype, const void *data, size_t i);
bool pte_cli_dtype_is_float(int dtype);
bool pte_cli_dtype_is_complex(int dtype);

/* Copies tensor t into dst (t->numel * element size bytes) in C (contiguous) order. */
void pte_cli_tensor_to_contiguous(const pte_tensor *t, void *dst);

/* Copies contiguous (C-order) data of `sizes` into the layout described by dim_order. */
void pte_cli_contiguous_to_layout(void *dst, const void *src, const int32_t *sizes, const uint8_t *dim_order,
                                  int32_t dim, size_t es);

/* Lists the fully-qualified names of the EXTERNAL tensors of method `name` into buf
 * ("a, b"), returning how many there are. */
size_t pte_cli_external_keys(const pte_program *p, const char *name, char *buf, size_t cap);

/* Registers the portable kernels and the XNNPACK backend ("XnnpackBackend"). */
pte_status pte_cli_register_all(pte_error_info *err);

#endif
