/* kernels/portable/portable_shape.h — shape changes and data-movement copies (kernels/portable/op_shape.c).
 *
 * aten::view_copy.out, executorch_prim::et_view.default, aten::permute_copy.out,
 * aten::expand_copy.out, aten::squeeze_copy.dim_out, aten::squeeze_copy.dims_out,
 * aten::unsqueeze_copy.out, aten::select_copy.int_out, aten::slice_copy.Tensor_out, aten::cat.out,
 * aten::stack.out, aten::split_with_sizes_copy.out, aten::split_copy.Tensor_out, aten::constant_pad_nd.out,
 * aten::arange.out, aten::arange.start_out, aten::repeat.out, aten::transpose_copy.int_out,
 * aten::t_copy.out, aten::flip.out.
 * et_view sets out->data to self->data (no copy) and out->capacity_bytes to self's, and mirrors
 * self's PTE_TENSOR_CONST flag onto out.
 * Fallback kernels (key NULL) handling every dtype and dim order the operator allows; register
 * with pte_register_kernels(pte_portable_shape_kernels, pte_portable_shape_kernels_count).
 */
#ifndef PTE_KERNELS_PORTABLE_SHAPE_H
#define PTE_KERNELS_PORTABLE_SHAPE_H

#include <stddef.h>

#include "pte/kernel.h"

extern const pte_kernel pte_portable_shape_kernels[];
extern const size_t pte_portable_shape_kernels_count;

#endif
