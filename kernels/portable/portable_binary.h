/* kernels/portable/portable_binary.h — arithmetic binary ops (add, sub, mul, div, pow).
 *
 * aten::add.out, add.Scalar_out, sub.out, sub.Scalar_out, mul.out, mul.Scalar_out, div.out,
 * div.out_mode, div.Scalar_out, div.Scalar_mode_out, pow.Tensor_Scalar_out,
 * pow.Tensor_Tensor_out, pow.Scalar_out. All are fallback kernels (key NULL) handling every
 * supported dtype with ATen promotion and broadcasting, for any dim_order.
 */
#ifndef PTE_KERNELS_PORTABLE_BINARY_H
#define PTE_KERNELS_PORTABLE_BINARY_H

#include <stddef.h>

#include "pte/kernel.h"

extern const pte_kernel pte_portable_binary_kernels[];
extern const size_t pte_portable_binary_kernels_count;

#endif
