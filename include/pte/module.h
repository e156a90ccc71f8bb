/* pte/module.h — a convenience layer for host programs: open a file, run a method, read outputs.
 *
 *   pte_error_info err;
 *   pte_module *mod;
 *   float x[3] = {1, 2, 3};
 *   int32_t shape[1] = {3};
 *   pte_module_open("model.pte", NULL, &mod, &err);                          // + error checks
 *   pte_module_set_input(mod, "forward", 0, PTE_DTYPE_FLOAT, shape, 1, x, sizeof x, &err);
 *   pte_module_forward(mod, &err);
 *   const pte_tensor *y = pte_module_output_tensor(mod, "forward", 0);      // y->data, y->numel
 *   pte_module_destroy(mod);
 *
 * Unlike the core API (pte/program.h, pte/method.h: no heap, every byte from the caller), this
 * layer allocates with malloc and reads files with the OS, like upstream's Module:
 *   - pte_module_open maps the file (mmap loader by default; the file and buffer loaders are
 *     options), loads and verifies the program, opens an optional .ptd, and registers every kernel
 *     library and backend pte ships (pte_module_register_all) unless told not to;
 *   - a method is loaded on first use (or by pte_module_load_method): its planned buffers are
 *     allocated exactly as pte_method_meta sizes them, the method allocator starts at twice the
 *     program flatbuffer's size (a power of two, at most 64 MiB; usually one load attempt) and
 *     grows until the load fits, kernels get a 16 MiB temp allocator, unplanned tensor outputs
 *     get heap buffers;
 *   - inputs are given as C-order (row-major) data; the module checks dtype, rank, shape and byte
 *     size first (a message names the expected and the given dtype/shape), rearranges the data
 *     for a method that wants another dim order, and keeps its own copy of an input the program
 *     does not plan (so the caller's buffer may be reused as soon as set_input returns);
 *   - outputs stay valid until the next execute of that method or pte_module_destroy.
 * Every call returns a pte_status (the same codes as the core) and fills an optional
 * pte_error_info. A module is single-threaded: use one module per thread (several modules may
 * open the same file).
 */
#ifndef PTE_MODULE_H
#define PTE_MODULE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pte/evalue.h"
#include "pte/method.h"
#include "pte/program.h"
#include "pte/status.h"
#include "pte/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pte_module pte_module;

/* How the module reads the file (pte/io.h, pte/data_loader.h). */
typedef enum pte_module_loader {
  PTE_MODULE_LOADER_MMAP = 0,   /* read-only mapping of the whole file (default) */
  PTE_MODULE_LOADER_FILE = 1,   /* pread into heap buffers */
  PTE_MODULE_LOADER_BUFFER = 2  /* the whole file read into memory once */
} pte_module_loader;

/* Zero-initialise (or pass NULL) for the defaults in brackets. */
typedef struct pte_module_options {
  pte_module_loader loader;     /* [mmap] for the program and the .ptd */
  const char *data_path;        /* [none] .ptd file holding the program's EXTERNAL tensors */
  bool verify_minimal;          /* [false] true: PTE_VERIFY_MINIMAL instead of full verification */
  bool no_register;             /* [false] true: do not call pte_module_register_all (the caller
                                   registers the kernels and backends it wants) */
  uint64_t max_planned_memory;  /* [0 = no limit] refuse a method whose planned buffers add up to
                                   more bytes (PTE_ERR_OUT_OF_RESOURCES, before allocating) */
  uint64_t max_instructions;    /* [0 = 10,000,000] instructions per execute */
  int num_threads;              /* [0 = the backend's default: the calling thread] threads of each
                                   XNNPACK delegate (1..64) */
} pte_module_options;

/* Registers every kernel library and backend this build of pte ships: portable,
 * quantized_decomposed, cortex_m and custom (etnp / cadence) kernels, and the XNNPACK backend.
 * Safe to call any number of times from any thread (the work is done once; later calls return the
 * first call's status). */
pte_status pte_module_register_all(pte_error_info *err);

/* Opens `path` and loads its program (no method is loaded yet). opts may be NULL.
 * Errors: PTE_ERR_INVALID_ARGUMENT (NULL path/out, unknown loader), PTE_ERR_ACCESS_FAILED (the
 * file or the .ptd cannot be opened: the message names the path and the reason),
 * PTE_ERR_MEMORY_ALLOCATION_FAILED, any pte_program_load / pte_ptd_load error (e.g.
 * PTE_ERR_INVALID_PROGRAM, PTE_ERR_INVALID_EXTERNAL_DATA), any registration error. On failure
 * *out is NULL and nothing needs destroying. */
pte_status pte_module_open(const char *path, const pte_module_options *opts, pte_module **out, pte_error_info *err);

/* Destroys every loaded method, the program, the .ptd and the loaders. NULL is a no-op. */
void pte_module_destroy(pte_module *mod);

/* The program's methods, in file order (names stay valid until pte_module_destroy). */
size_t pte_module_num_methods(const pte_module *mod);
const char *pte_module_method_name(const pte_module *mod, size_t i); /* NULL if out of range */
/* The loaded program, for the low-level queries of pte/program.h. */
const pte_program *pte_module_program(const pte_module *mod);

/* Metadata of method `method` without loading it (pte/method.h: inputs, outputs, planned
 * buffers...). Errors: PTE_ERR_INVALID_ARGUMENT (NULL argument, no such method: the message lists
 * the program's methods), PTE_ERR_INVALID_PROGRAM. */
pte_status pte_module_method_meta(const pte_module *mod, const char *method, pte_method_meta *out,
                                  pte_error_info *err);

/* Loads `method` now (otherwise the first set_input / execute does). A loaded method stays loaded.
 * Errors: those of pte_module_method_meta; PTE_ERR_OUT_OF_RESOURCES (over max_planned_memory);
 * PTE_ERR_MEMORY_ALLOCATION_FAILED; any pte_method_load_ex error (PTE_ERR_OPERATOR_MISSING naming
 * the operators, PTE_ERR_NOT_FOUND naming a missing backend, PTE_ERR_INVALID_STATE when the
 * program needs a .ptd that was not given: the message says which keys and how to pass one). */
pte_status pte_module_load_method(pte_module *mod, const char *method, pte_error_info *err);
bool pte_module_is_method_loaded(const pte_module *mod, const char *method);
/* The loaded method (loading it if needed) for the low-level calls of pte/method.h; NULL on
 * failure (message in *err). Owned by the module. */
pte_method *pte_module_method(pte_module *mod, const char *method, pte_error_info *err);

/* Sets tensor input i of `method` from C-order data (loads the method if needed). `sizes` has
 * `dim` entries; nbytes must be numel(sizes) * element size. The data is copied (or, for an input
 * the program plans, copied by the runtime), so `data` may be reused when this returns.
 * Errors: PTE_ERR_INVALID_ARGUMENT (no such method or input; input is not a tensor; dtype or rank
 * differs; nbytes differs from the shape's byte size; NULL data with nbytes > 0),
 * PTE_ERR_NOT_SUPPORTED (shape differs from a static input's, or exceeds a dynamic input's
 * bounds). Messages read "method 'forward' input 0: expected float32[1, 3], got int64[1, 3]". */
pte_status pte_module_set_input(pte_module *mod, const char *method, size_t i, pte_dtype dtype, const int32_t *sizes,
                                int32_t dim, const void *data, size_t nbytes, pte_error_info *err);
/* Sets input i from a value (an Int, Double, Bool, String or None input must equal the value the
 * program was traced with, as upstream; a Tensor value's data must be in the method's layout and
 * stay valid until execute). Errors: as pte_method_set_input, with the method and input named. */
pte_status pte_module_set_input_value(pte_module *mod, const char *method, size_t i, const pte_evalue *v,
                                      pte_error_info *err);

/* Runs `method` (loading it if needed). Non-tensor inputs not set keep their traced values.
 * Errors: those of loading, then of pte_method_execute (PTE_ERR_INVALID_ARGUMENT for a tensor
 * input not set, or a kernel's status with "instruction N (op) failed: ..."). */
pte_status pte_module_execute(pte_module *mod, const char *method, pte_error_info *err);
/* pte_module_execute(mod, "forward", err). */
pte_status pte_module_forward(pte_module *mod, pte_error_info *err);

/* Outputs of a loaded method: count, value i, tensor i (NULL if the method is not loaded, i is
 * out of range, or for pte_module_output_tensor when output i is not a tensor). Tensor data is in
 * the method's dim order (C order for the usual contiguous outputs; see pte_module_output_copy). */
size_t pte_module_num_outputs(const pte_module *mod, const char *method);
const pte_evalue *pte_module_output(const pte_module *mod, const char *method, size_t i);
const pte_tensor *pte_module_output_tensor(const pte_module *mod, const char *method, size_t i);
/* Copies tensor output i in C order into dst (cap bytes, at least the tensor's current nbytes).
 * Errors: PTE_ERR_INVALID_STATE (method not loaded), PTE_ERR_INVALID_ARGUMENT (no such output,
 * not a tensor, cap too small: the message gives both sizes). */
pte_status pte_module_output_copy(const pte_module *mod, const char *method, size_t i, void *dst, size_t cap,
                                  pte_error_info *err);

#ifdef __cplusplus
}
#endif
#endif
