/* kernels/portable/portable_creation.h — tensor creation (kernels/portable/op_creation.c).
 *
 * aten::empty.out, aten::ones.out, aten::zeros.out, aten::fill.Tensor_out, aten::rand.out,
 * aten::randn.out, aten::native_dropout.out. rand/randn/dropout draw from a splitmix64 stream
 * with a fixed seed per call (deterministic: the same call gives the same numbers); rand is in
 * [0, 1) after rounding to out's dtype. Fallback kernels (key NULL).
 */
#ifndef PTE_KERNELS_PORTABLE_CREATION_H
#define PTE_KERNELS_PORTABLE_CREATION_H

#include <stddef.h>

#include "pte/kernel.h"

extern const pte_kernel pte_portable_creation_kernels[];
extern const size_t pte_portable_creation_kernels_count;

#endif
