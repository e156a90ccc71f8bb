/* kernels/portable/portable_bitwise.h — bitwise and logical ops.
 *
 * aten::bitwise_not.out, bitwise_and/or/xor .Tensor_out and .Scalar_out (integral or bool
 * operands, ATen promotion; bool operands act logically; the result must be castable to out),
 * logical_and.out, logical_or.out, logical_xor.out (any supported dtypes; an element is true when
 * nonzero, NaN included; out of any supported dtype receives 0/1). Fallback kernels (key NULL)
 * with broadcasting and any dim_order.
 */
#ifndef PTE_KERNELS_PORTABLE_BITWISE_H
#define PTE_KERNELS_PORTABLE_BITWISE_H

#include <stddef.h>

#include "pte/kernel.h"

extern const pte_kernel pte_portable_bitwise_kernels[];
extern const size_t pte_portable_bitwise_kernels_count;

#endif
