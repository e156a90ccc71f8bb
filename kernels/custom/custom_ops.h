/* kernels/custom/custom_ops.h — kernel tables of the custom operator files (internal).
 * pte_register_custom_kernels() (include/pte/custom_kernels.h) registers all of them. */
#ifndef PTE_KERNELS_CUSTOM_CUSTOM_OPS_H
#define PTE_KERNELS_CUSTOM_CUSTOM_OPS_H

#include <stddef.h>

#include "pte/kernel.h"

/* op_etnp_lstm.c: etnp::lstm.out */
extern const pte_kernel pte_custom_lstm_kernels[];
extern const size_t pte_custom_lstm_kernels_count;
/* op_cadence.c: cadence::quantize_per_tensor.out, cadence::dequantize_per_tensor.out,
 * cadence::quantized_conv2d_nchw.per_tensor_out */
extern const pte_kernel pte_custom_cadence_kernels[];
extern const size_t pte_custom_cadence_kernels_count;

#endif
