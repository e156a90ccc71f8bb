/* kernels/portable/portable_activation.h — activations and clamps.
 *
 * aten::sigmoid.out, tanh.out, relu.out, gelu.out (approximate "none" / "tanh"), hardtanh.out,
 * leaky_relu.out, silu.out, clamp.out, clamp.Tensor_out, elu.out (floating self, out of the same
 * dtype family), glu.out (floating self split in halves along dim; floating out). Fallback
 * kernels (key NULL).
 */
#ifndef PTE_KERNELS_PORTABLE_ACTIVATION_H
#define PTE_KERNELS_PORTABLE_ACTIVATION_H

#include <stddef.h>

#include "pte/kernel.h"

extern const pte_kernel pte_portable_activation_kernels[];
extern const size_t pte_portable_activation_kernels_count;

#endif
