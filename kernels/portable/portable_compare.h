/* kernels/portable/portable_compare.h — comparisons, logical_not, where, masked_fill.
 *
 * aten::eq/ne/lt/le/gt/ge .Scalar_out and .Tensor_out, logical_not.out, where.self_out,
 * masked_fill.Scalar_out. Fallback kernels (key NULL). Comparisons compute in the promoted dtype
 * and write 0/1 converted to out's dtype (normally bool).
 */
#ifndef PTE_KERNELS_PORTABLE_COMPARE_H
#define PTE_KERNELS_PORTABLE_COMPARE_H

#include <stddef.h>

#include "pte/kernel.h"

extern const pte_kernel pte_portable_compare_kernels[];
extern const size_t pte_portable_compare_kernels_count;

#endif
