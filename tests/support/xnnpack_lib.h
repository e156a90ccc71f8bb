/* xnnpack_lib.h — runs a graph parsed by pte's XNNPACK backend on the real XNNPACK library
 * (Debian libxnnpack-dev), as an independent oracle (tests) and peer (benchmarks).
 *
 * The translator reads the structures pte compiled from a delegate blob (pte_xnn_delegate:
 * values with their current shapes, quantization and flags; nodes with their parameters) and
 * defines the same graph through the library's subgraph API (xnn_define_*_tensor_value,
 * xnn_define_<node>, xnn_create_runtime_v2, xnn_setup_runtime, xnn_invoke_runtime). Constant
 * bytes are read again from the blob (constant region, constant_buffer or named data), since pte
 * drops the raw bytes of constants it packed.
 *
 * The library snapshot lacks some node kinds. Pure data movement among them (StaticTranspose,
 * StaticSlice, Concatenate2..5) runs here on the host between library runtimes (the graph is cut
 * into runs of library nodes); pxl_host_nodes() names them. Any other node or datatype the
 * library lacks makes pxl_create fail with a message naming every such node (never skipped).
 *
 * Test/bench-only code: built only when CMake finds the library.
 */
#ifndef PTE_TESTS_XNNPACK_LIB_H
#define PTE_TESTS_XNNPACK_LIB_H

#include <stddef.h>

#include "pte/backend_xnnpack.h"
#include "pte/named_data_map.h"

typedef struct pxl_runner pxl_runner;

/* Initialises the library once (thread-unsafe; call from the main thread). 0 on success. */
int pxl_init(void);

/* Builds library runtimes for delegate d (compiled by pte from blob/size/ndm; the shapes used
 * are the values' current ones, i.e. those of d's last execute or its declared ones). threads:
 * 1 = no thread pool; more: a pthreadpool whose workers yield after each run
 * (XNN_FLAG_YIELD_WORKERS). On failure returns non-zero with a message in err (names every node the
 * library lacks, or the failing xnn_* call and node). */
int pxl_create(const pte_xnn_delegate *d, const void *blob, size_t size, const pte_named_data_map *ndm, int threads,
               pxl_runner **out, char *err, size_t err_cap);

/* Binds the external tensors: ext[external_id] points at input data / output space (byte sizes
 * pxl_ext_bytes) and sets the runtimes up. Must precede pxl_invoke; again when pointers change. */
int pxl_bind(pxl_runner *r, void *const *ext, size_t n_ext, char *err, size_t err_cap);
/* Runs the graph once (bound tensors). */
int pxl_invoke(pxl_runner *r, char *err, size_t err_cap);
/* Sends the library's pthreadpool workers to sleep now (an empty job with the yield flag); a
 * benchmark calls it after a timed invoke so that the workers do not spin through the next
 * turn of another runtime. No-op without a pool. */
void pxl_yield_workers(pxl_runner *r);

size_t pxl_num_ext(const pxl_runner *r);       /* external ids: max + 1 */
size_t pxl_ext_bytes(const pxl_runner *r, size_t ext_id); /* 0 when unused */
/* Comma-separated names of the nodes run on the host ("" when none), e.g. "XNNStaticTranspose x2". */
const char *pxl_host_nodes(const pxl_runner *r);
size_t pxl_num_runtimes(const pxl_runner *r);
void pxl_destroy(pxl_runner *r);

#endif
