/* kernels/portable/portable_rearrange.h — element rearrangement (kernels/portable/op_rearrange.c).
 *
 * aten::roll.out, aten::pixel_shuffle.out, aten::pixel_unshuffle.out,
 * aten::repeat_interleave.Tensor_out, aten::tril.out, aten::topk.values (values + int64
 * indices; NaN counts as the largest value; equal values keep ascending index order; the result
 * is always sorted, which also satisfies sorted=False). Fallback kernels (key NULL).
 */
#ifndef PTE_KERNELS_PORTABLE_REARRANGE_H
#define PTE_KERNELS_PORTABLE_REARRANGE_H

#include <stddef.h>

#include "pte/kernel.h"

extern const pte_kernel pte_portable_rearrange_kernels[];
extern const size_t pte_portable_rearrange_kernels_count;

#endif
