/* kernels/portable/portable_unary.h — unary math ops.
 *
 * aten::neg.out, exp.out, log.out, sqrt.out, rsqrt.out, abs.out, ceil.out, floor.out, round.out,
 * trunc.out, sign.out, isinf.out, isnan.out, _conj_physical.out. Fallback kernels (key NULL) for
 * every supported dtype and any dim_order. exp/log/sqrt/rsqrt produce a floating out from any
 * real or bool input; neg/abs/ceil/floor/round/trunc keep the dtype (bool rejected; integral
 * values pass through the rounding ops); sign and _conj_physical keep the dtype (bool allowed);
 * isinf/isnan take any input and need a bool out.
 */
#ifndef PTE_KERNELS_PORTABLE_UNARY_H
#define PTE_KERNELS_PORTABLE_UNARY_H

#include <stddef.h>

#include "pte/kernel.h"

extern const pte_kernel pte_portable_unary_kernels[];
extern const size_t pte_portable_unary_kernels_count;

#endif
