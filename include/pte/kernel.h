/* pte/kernel.h — operator kernels and the kernel registry.
 *
 * A kernel implements one operator overload ("aten::add.out") for all dtypes/dim orders, or for
 * one exact key. Arguments arrive as the KernelCall's value list in ATen "out" order: inputs,
 * then the out tensor(s) (and, as the exporter writes, the returned alias of out).
 *
 * Registration is explicit and static: call pte_register_kernels() with a table (no constructor
 * tricks). Lookup is by "name.overload" plus a key built from the tensor arguments' dtype and
 * dim_order ("v1/6;0,1|6;0,1"); an exact key match wins, otherwise the last fallback kernel
 * (key NULL) registered under the name.
 */
#ifndef PTE_KERNEL_H
#define PTE_KERNEL_H

#include <stddef.h>
#include <stdint.h>

#include "pte/allocator.h"
#include "pte/evalue.h"
#include "pte/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pte_kernel_context {
  pte_status failure;        /* set through pte_kernel_fail(); PTE_OK on success */
  pte_allocator *temp;       /* reset after every instruction; may be NULL */
  void *event_tracer;        /* pte_event_tracer*, may be NULL */
  const char *op_name;       /* "aten::add.out", for messages */
  char msg[160];             /* optional detail written by pte_kernel_fail() */
} pte_kernel_context;

/* Records a failure (the first one wins) with a short printf-style message (see pte_error_set). */
void pte_kernel_fail(pte_kernel_context *ctx, pte_status s, const char *fmt, ...);

/* Temp memory valid until the instruction returns (NULL if unavailable). */
void *pte_kernel_alloc_temp(pte_kernel_context *ctx, size_t size, size_t align);

typedef void (*pte_op_fn)(pte_kernel_context *ctx, pte_evalue **args, size_t nargs);

typedef struct pte_kernel {
  const char *name; /* "aten::add.out" (name.overload; just name if overload is empty) */
  const char *key;  /* NULL: fallback for any dtype/dim order; else "v1/..." exact key */
  pte_op_fn fn;
} pte_kernel;

/* Capacity of the kernel registry (a static table of PTE_MAX_KERNELS entries in the core's .bss).
 * A build-time setting: CMake -DPTE_MAX_KERNELS=N defines it for the core and everything linking
 * it (the Cortex-M build uses a small value, docs/mcu.md); pte_kernel_registry_capacity() is the
 * value the core was compiled with. */
#ifndef PTE_MAX_KERNELS
#define PTE_MAX_KERNELS 2000
#endif

/* Adds kernels to the global registry. Errors: PTE_ERR_REGISTRATION_EXCEEDING_MAX_KERNELS when
 * full, PTE_ERR_REGISTRATION_ALREADY_REGISTERED for a name+key already present (nothing from
 * the table is registered in either case). */
pte_status pte_register_kernels(const pte_kernel *kernels, size_t n);
/* The same, with a message in err (may be NULL) naming the kernel or the capacity on failure. */
pte_status pte_register_kernels_ex(const pte_kernel *kernels, size_t n, pte_error_info *err);
/* The registry's capacity in kernels (PTE_MAX_KERNELS of the core's build). */
size_t pte_kernel_registry_capacity(void);

/* Finds a kernel: first in `method_kernels` (may be NULL), then the global registry, then the
 * built-in primitive operators (pte_prim_kernel). */
pte_op_fn pte_kernel_lookup(const char *name, const char *key, const pte_kernel *method_kernels,
                            size_t n_method_kernels);

/* True if a kernel named `name` in `method_kernels` or the registry has a non-NULL key: only then
 * does pte_kernel_lookup's result depend on the key (method load builds a key per instruction
 * only for such operators). */
bool pte_kernel_name_keyed(const char *name, const pte_kernel *method_kernels, size_t n_method_kernels);

/* The primitive operators (aten::sym_size.int, aten::sym_numel, aten::_local_scalar_dense,
 * executorch_prim::*: 28, as upstream's prim_ops registry). They are part of the runtime and, by
 * default, always available to pte_kernel_lookup() without registration (a registered kernel of
 * the same name wins) and never counted by pte_num_registered_kernels().
 * A core built with PTE_PRIM_OPS_BUILTIN=0 (CMake -DPTE_PRIM_OPS_BUILTIN=OFF; the Cortex-M build)
 * does not consult them: an image whose programs use none of them links without them, and one
 * that needs them calls pte_register_prim_ops(), which adds the 28 to the registry like any
 * kernel library (idempotent; registry errors as pte_register_kernels). */
pte_status pte_register_prim_ops(void);
size_t pte_prim_kernel_count(void);
const pte_kernel *pte_prim_kernel(size_t i);
/* The primitive operator `name` ("executorch_prim::add.Scalar"), or NULL. */
pte_op_fn pte_prim_lookup(const char *name);

size_t pte_num_registered_kernels(void);
const pte_kernel *pte_registered_kernel(size_t i);

/* Builds the lookup key for the tensor arguments (Tensor values only, in order) into buf.
 * Returns PTE_ERR_INTERNAL if it does not fit. */
pte_status pte_kernel_key(pte_evalue **args, size_t nargs, char *buf, size_t buf_size);

/* Test hook: forget every registered kernel. Not thread-safe. */
void pte_kernel_registry_reset(void);

#ifdef __cplusplus
}
#endif
#endif
