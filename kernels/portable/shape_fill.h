/* kernels/portable/shape_fill.h — internal: the shape kernels kept in op_shape_fill.c
 * (constant_pad_nd, arange), listed in pte_portable_shape_kernels (op_shape.c).
 */
#ifndef PTE_KERNELS_PORTABLE_SHAPE_FILL_H
#define PTE_KERNELS_PORTABLE_SHAPE_FILL_H

#include <stddef.h>

#include "pte/kernel.h"

void pte_portable_shape_constant_pad_nd(pte_kernel_context *ctx, pte_evalue **args, size_t nargs);
void pte_portable_shape_arange(pte_kernel_context *ctx, pte_evalue **args, size_t nargs);
void pte_portable_shape_arange_start(pte_kernel_context *ctx, pte_evalue **args, size_t nargs);

#endif
