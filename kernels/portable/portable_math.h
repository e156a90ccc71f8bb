/* kernels/portable/portable_math.h — floating unary math.
 *
 * aten::acos.out, acosh.out, asin.out, asinh.out, atan.out, atanh.out, cos.out, cosh.out,
 * sin.out, sinh.out, tan.out, erf.out, expm1.out, log1p.out, log2.out, log10.out,
 * reciprocal.out, logit.out. Fallback kernels (key NULL) for any dim_order. Every op takes a
 * real, bool, half or bfloat16 input; floating inputs keep their dtype, integral/bool inputs give
 * float32 (ATen's default dtype); the result must be castable to out. Half and bfloat16 compute
 * in float32.
 */
#ifndef PTE_KERNELS_PORTABLE_MATH_H
#define PTE_KERNELS_PORTABLE_MATH_H

#include <stddef.h>

#include "pte/kernel.h"

extern const pte_kernel pte_portable_umath_kernels[];
extern const size_t pte_portable_umath_kernels_count;

#endif
