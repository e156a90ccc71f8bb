/* kernels/portable/portable_reduce.h — reductions (kernels/portable/op_reduce.c).
 *
 * aten::sum.IntList_out, aten::mean.out, aten::amax.out, aten::amin.out, aten::argmax.out,
 * aten::argmin.out, aten::any.out, aten::any.all_out, aten::any.dims_out, aten::max.dim_max,
 * aten::min.dim_min, aten::cumsum.out, aten::mean.dtype_out, aten::prod.out, aten::prod.int_out,
 * aten::max.unary_out, aten::min.unary_out.
 * Fallback kernels (key NULL) handling every dtype and dim order the operator allows; register
 * with pte_register_kernels(pte_portable_reduce_kernels, pte_portable_reduce_kernels_count).
 */
#ifndef PTE_KERNELS_PORTABLE_REDUCE_H
#define PTE_KERNELS_PORTABLE_REDUCE_H

#include <stddef.h>

#include "pte/kernel.h"

extern const pte_kernel pte_portable_reduce_kernels[];
extern const size_t pte_portable_reduce_kernels_count;

/* aten::var.out, aten::var.correction_out, aten::var_mean.correction_out (op_var.c). */
extern const pte_kernel pte_portable_var_kernels[];
extern const size_t pte_portable_var_kernels_count;

#endif
