/* kernels/portable/portable_copy.h — fills, copies and dtype/layout conversions.
 *
 * aten::full.out, full_like.out, scalar_tensor.out, fill.Scalar_out, _to_copy.out, clone.out,
 * alias_copy.out, copy.out, dim_order_ops::_to_dim_order_copy.out,
 * dim_order_ops::_clone_dim_order.out. Fallback kernels (key NULL).
 */
#ifndef PTE_KERNELS_PORTABLE_COPY_H
#define PTE_KERNELS_PORTABLE_COPY_H

#include <stddef.h>

#include "pte/kernel.h"

extern const pte_kernel pte_portable_copy_kernels[];
extern const size_t pte_portable_copy_kernels_count;

#endif
