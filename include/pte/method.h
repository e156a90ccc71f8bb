/* pte/method.h — loading and running one method (ExecutionPlan) of a program.
 *
 *   pte_method_meta meta;                              // sizes before loading
 *   pte_method_meta_get(&prog, "forward", &meta, &err);
 *   uint64_t sz;  pte_method_meta_planned_buffer_size(&meta, 0, &sz);
 *   ... allocate planned buffer(s), set up a pte_memory_manager (pte/memory.h) ...
 *   pte_register_portable_kernels();                   // or any kernel tables you need
 *   pte_method *m;
 *   if (pte_method_load(&prog, "forward", &mm, NULL, NULL, &m, &err) != PTE_OK) puts(err.msg);
 *   int32_t sizes[] = {3};
 *   pte_method_set_input_tensor(m, 0, PTE_DTYPE_FLOAT, sizes, 1, in, sizeof in);
 *   pte_method_execute(m, &err);
 *   const pte_evalue *out = pte_method_get_output(m, 0);   // out->u.tensor->data
 *   pte_method_destroy(m);
 *
 * Loading does all the work up front: every value is parsed (tensors get their data pointers:
 * constants in the program, memory-planned slots, EXTERNAL data from a .ptd map), every
 * delegate is initialised once, every KernelCall gets its kernel function and argument array.
 * Executing is then a loop over precomputed instructions.
 *
 * Ownership: the method lives in the memory manager's method allocator (the caller's memory) and
 * points into the program, so the program, the loader, the external data map and the planned
 * buffers must outlive it. pte_method_destroy() releases what is not plain memory (delegate
 * handles, buffers obtained from loaders/data maps); it never frees the allocator. A failed load
 * releases everything it acquired and rewinds the method allocator to where it was.
 *
 * Threads: a loaded method is single-threaded (execute mutates its values). Several methods may be
 * loaded from one program and run on different threads, each with its own memory manager.
 */
#ifndef PTE_METHOD_H
#define PTE_METHOD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pte/backend.h"
#include "pte/evalue.h"
#include "pte/event_tracer.h"
#include "pte/kernel.h"
#include "pte/memory.h"
#include "pte/named_data_map.h"
#include "pte/program.h"
#include "pte/status.h"
#include "pte/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Method metadata (no allocation, no loading) ------------------------------------------- */

/* Caller storage; fields are private. Valid while the program is loaded. */
typedef struct pte_method_meta {
  const struct pte_program *program;
  const uint8_t *fb; /* program flatbuffer */
  size_t fb_size;
  uint32_t plan;     /* ExecutionPlan table position */
  const char *name;
} pte_method_meta;

/* Description of a tensor input/output, as declared by the program. */
typedef struct pte_tensor_info {
  uint8_t dtype;                      /* pte_dtype */
  uint8_t dynamism;                   /* pte_shape_dynamism */
  int32_t dim;
  int32_t sizes[PTE_MAX_RANK];        /* upper bounds for DYNAMIC_BOUND tensors */
  uint8_t dim_order[PTE_MAX_RANK];
  size_t nbytes;                      /* numel(sizes) * element size */
  bool is_memory_planned;             /* lives in a planned buffer (or is a program constant):
                                         set_input copies into it, set_output_data_ptr refuses it */
} pte_tensor_info;

/* Finds method `name`. Errors: PTE_ERR_INVALID_ARGUMENT (NULL argument, no such method),
 * PTE_ERR_INVALID_PROGRAM (the plan lacks name, inputs, outputs or non_const_buffer_sizes). */
pte_status pte_method_meta_get(const struct pte_program *program, const char *name, pte_method_meta *meta,
                               pte_error_info *err);

const char *pte_method_meta_name(const pte_method_meta *meta);
size_t pte_method_meta_num_inputs(const pte_method_meta *meta);
size_t pte_method_meta_num_outputs(const pte_method_meta *meta);
/* Tag (pte_tag) of input/output i: None, Tensor, String, Double, Int or Bool.
 * Errors: PTE_ERR_INVALID_ARGUMENT (i out of range), PTE_ERR_INVALID_PROGRAM (bad value index),
 * PTE_ERR_INTERNAL (a list or other kind: not a valid method input/output, as upstream). */
pte_status pte_method_meta_input_tag(const pte_method_meta *meta, size_t i, pte_tag *out);
pte_status pte_method_meta_output_tag(const pte_method_meta *meta, size_t i, pte_tag *out);
/* Tensor description of input/output i. Errors as above, plus PTE_ERR_INVALID_ARGUMENT when the
 * value is not a tensor and PTE_ERR_INVALID_PROGRAM for a malformed tensor. */
pte_status pte_method_meta_input_tensor_info(const pte_method_meta *meta, size_t i, pte_tensor_info *out);
pte_status pte_method_meta_output_tensor_info(const pte_method_meta *meta, size_t i, pte_tensor_info *out);
/* Planned buffers the method needs: non_const_buffer_sizes without its reserved entry 0.
 * Buffer i backs memory_id i + 1. Sizes are bytes (64-bit). */
size_t pte_method_meta_num_planned_buffers(const pte_method_meta *meta);
pte_status pte_method_meta_planned_buffer_size(const pte_method_meta *meta, size_t i, uint64_t *out);
/* Sum of every planned buffer size in bytes: the memory a caller must provide before loading
 * (compare it with a budget before allocating anything for an untrusted file). Errors:
 * PTE_ERR_INVALID_ARGUMENT (NULL), PTE_ERR_INVALID_PROGRAM (a negative size, or the sum
 * overflows 64 bits). */
pte_status pte_method_meta_planned_memory(const pte_method_meta *meta, uint64_t *total);
/* Instructions over all chains, and delegates (with their backend ids). */
size_t pte_method_meta_num_instructions(const pte_method_meta *meta);
size_t pte_method_meta_num_delegates(const pte_method_meta *meta);
const char *pte_method_meta_delegate_id(const pte_method_meta *meta, size_t i); /* NULL if out of range */

/* ---- Loading --------------------------------------------------------------------------------- */

typedef struct pte_method pte_method;

#define PTE_METHOD_DEFAULT_MAX_INSTRUCTIONS 10000000ull

/* Load options. A zero-initialised struct gives the defaults. */
typedef struct pte_method_options {
  pte_event_tracer *tracer;                   /* may be NULL */
  const pte_named_data_map *external_data;    /* .ptd map for EXTERNAL tensors and delegates */
  const pte_kernel *kernels;                  /* method-scoped kernels, searched before the global
                                                 registry; must outlive the load */
  size_t n_kernels;
  const pte_backend_load_options *backend_options; /* runtime options per backend id */
  size_t n_backend_options;
  uint64_t max_instructions;                  /* per execute; 0 = 10,000,000 (infinite-loop guard) */
  size_t temp_arena_size;                     /* used only when the memory manager has no temp
                                                 allocator: bytes carved out of the method allocator
                                                 as kernel/delegate scratch (0 = no scratch) */
  uint64_t max_planned_memory;                /* resource cap: if non-zero, a method whose planned
                                                 buffers (pte_method_meta_planned_memory) add up to
                                                 more bytes is refused with PTE_ERR_OUT_OF_RESOURCES
                                                 before anything is allocated (0 = no limit) */
} pte_method_options;

/* Loads method `name` of `program` into *out (see pte_method_load_ex). */
pte_status pte_method_load(const struct pte_program *program, const char *name, const pte_memory_manager *mm,
                           pte_event_tracer *tracer, const pte_named_data_map *external_data,
                           pte_method **out, pte_error_info *err);

/* Loads method `name`. opts may be NULL (defaults). Errors (message in *err):
 *   PTE_ERR_OUT_OF_RESOURCES        the method's planned memory exceeds opts->max_planned_memory
 *   PTE_ERR_INVALID_ARGUMENT        NULL argument, unknown method name, method allocator equal to
 *                                   the temp allocator, a tensor in a planned buffer the memory
 *                                   manager does not provide (memory_id > n_planned)
 *   PTE_ERR_MEMORY_ALLOCATION_FAILED method allocator exhausted; a planned tensor past the end of
 *                                   its buffer (buffer smaller than the program planned)
 *   PTE_ERR_INVALID_PROGRAM         malformed plan: bad value/operator/delegate index, unknown value
 *                                   or instruction kind, memory_id 0 or beyond the program's
 *                                   planned buffers, bad tensor sizes/dim_order, TensorList item
 *                                   that is not an earlier tensor, no chains, a delegate with
 *                                   scratch memory called by more than one DelegateCall or with
 *                                   share_handle set (pte extension, pte/backend.h), tensor data
 *                                   (planned, constant, external) at an address that is not a
 *                                   multiple of its element size (at most 8)...
 *   PTE_ERR_NOT_SUPPORTED           DYNAMIC_UNBOUND tensor, storage_offset != 0
 *   PTE_ERR_OPERATOR_MISSING        no kernel for some operator: the message lists every missing
 *                                   operator ("missing operators: etnp::lstm.out, ...")
 *   PTE_ERR_INVALID_STATE           EXTERNAL constant tensors but no external data map ("external
 *                                   data map is null")
 *   PTE_ERR_INVALID_EXTERNAL_DATA   EXTERNAL data whose layout differs from the tensor, or a
 *                                   mutable EXTERNAL tensor without an external data map
 *   PTE_ERR_NOT_FOUND               delegate backend not registered / not available (the message
 *                                   names the backend id and the method), EXTERNAL key absent, or
 *                                   inline delegate data index out of range
 *   any error of the data loader, the data map or a backend's init(). */
pte_status pte_method_load_ex(const struct pte_program *program, const char *name, const pte_memory_manager *mm,
                              const pte_method_options *opts, pte_method **out, pte_error_info *err);

/* Releases delegate handles and loaded buffers. NULL is a no-op. Call once; the method's memory
 * stays in the method allocator (reset it yourself when you reuse it). */
void pte_method_destroy(pte_method *m);

/* ---- Inputs ---------------------------------------------------------------------------------- */

size_t pte_method_num_inputs(const pte_method *m);
size_t pte_method_num_outputs(const pte_method *m);
const char *pte_method_name(const pte_method *m);
/* Metadata of the loaded method. */
const pte_method_meta *pte_method_get_meta(const pte_method *m);

/* Sets input i from *v (upstream Method::set_input):
 *   - only before execution starts or after it finished (not mid step());
 *   - the tags must match; a Tensor must have the same dtype and rank, sizes equal to the
 *     declared ones (STATIC) or within the bound (DYNAMIC_BOUND: the input is resized), and the
 *     same memory layout (dim order, ignoring size-1 dims);
 *   - a memory-planned input receives a copy of the data; an unplanned input shares the caller's
 *     data pointer, which must then stay valid until the method stops using it;
 *   - Int, Bool and String inputs must equal the traced value; Double within atol 1e-4 +
 *     rtol 1e-5 (NaN equals NaN, same-sign infinities are equal); None accepts None.
 * Errors: PTE_ERR_INVALID_STATE (mid execution), PTE_ERR_INVALID_ARGUMENT (index, tag, dtype,
 * rank, layout, value or NULL data), PTE_ERR_NOT_SUPPORTED (shape differs from a STATIC input, or
 * exceeds a DYNAMIC_BOUND bound), PTE_ERR_INVALID_STATE (input is a program constant). */
pte_status pte_method_set_input(pte_method *m, size_t i, const pte_evalue *v, pte_error_info *err);

/* Convenience: input i from raw data laid out as the method expects (its declared dim order).
 * nbytes must equal numel(sizes) * element size. Same rules and errors as pte_method_set_input. */
pte_status pte_method_set_input_tensor(pte_method *m, size_t i, pte_dtype dtype, const int32_t *sizes,
                                       int32_t dim, const void *data, size_t nbytes, pte_error_info *err);

/* Current value of input i (NULL if out of range). */
const pte_evalue *pte_method_get_input(const pte_method *m, size_t i);

/* ---- Outputs --------------------------------------------------------------------------------- */

/* Output i (NULL if out of range). Tensor outputs point into planned memory or into the buffer
 * given to pte_method_set_output_data_ptr; they are overwritten by the next execute. */
const pte_evalue *pte_method_get_output(const pte_method *m, size_t i);

/* Makes unplanned output tensor i write into buf: size must cover the tensor's declared nbytes
 * (its upper bound for a DYNAMIC_BOUND tensor, so kernels may grow it up to the bound).
 * Errors: PTE_ERR_INVALID_ARGUMENT (index, not a tensor, buffer too small, NULL buf),
 * PTE_ERR_INVALID_STATE (the output is memory planned or a constant). */
pte_status pte_method_set_output_data_ptr(pte_method *m, size_t i, void *buf, size_t size, pte_error_info *err);

/* ---- Execution ------------------------------------------------------------------------------- */

/* Runs every instruction of every chain, then resets the step state (upstream Method::execute).
 * Errors: PTE_ERR_INVALID_STATE (mid step(), or a tensor used by an instruction has no data: an
 * unplanned output without pte_method_set_output_data_ptr), PTE_ERR_INVALID_ARGUMENT (an input
 * not set), PTE_ERR_INVALID_PROGRAM (more than max_instructions instructions: infinite loop
 * guard; bad JumpFalse condition; FreeCall on a non-tensor), or the status a kernel/delegate
 * reported, with the message "instruction 3 (aten::add.out) failed: <detail>". On error the step
 * state goes back to the start. */
pte_status pte_method_execute(pte_method *m, pte_error_info *err);

/* Runs the next instruction. Returns PTE_END_OF_METHOD once every chain has run (then call
 * pte_method_reset_execution). Errors as pte_method_execute (inputs are not checked). */
pte_status pte_method_step(pte_method *m, pte_error_info *err);

/* Back to the first instruction after the end was reached (PTE_ERR_INVALID_STATE otherwise). */
pte_status pte_method_reset_execution(pte_method *m);

/* Number of values in the method's value table, and value i (for tools and debugging). */
size_t pte_method_num_values(const pte_method *m);
const pte_evalue *pte_method_get_value(const pte_method *m, size_t i);

#ifdef __cplusplus
}
#endif
#endif
