/* pte/portable_kernels.h — the portable operator library (kernels/portable).
 *
 * Call pte_register_portable_kernels() once at start-up, before loading methods. The kernels are
 * plain C, handle every dtype/dim order ATen allows for each op, and are registered as fallback
 * kernels (key NULL), so a backend-specific or optimised kernel registered with an exact key for
 * the same name takes precedence for matching tensors.
 */
#ifndef PTE_PORTABLE_KERNELS_H
#define PTE_PORTABLE_KERNELS_H

#include <stddef.h>

#include "pte/kernel.h"
#include "pte/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Registers every portable kernel. Idempotent: a second call returns PTE_OK without
 * registering anything. Errors: those of pte_register_kernels (a conflicting kernel already
 * registered under one of the names with a NULL key, or the registry full). */
pte_status pte_register_portable_kernels(void);

/* Number of kernels in the portable library, and kernel i (for listings). */
size_t pte_portable_kernel_count(void);
const pte_kernel *pte_portable_kernel(size_t i);

#ifdef __cplusplus
}
#endif
#endif
