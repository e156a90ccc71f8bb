/* kernels/cortex_m/cm_ops.h — kernel tables of the cortex_m operator files (internal).
 * pte_register_cortex_m_kernels() (include/pte/cortex_m_kernels.h) registers all of them. */
#ifndef PTE_KERNELS_CORTEX_M_CM_OPS_H
#define PTE_KERNELS_CORTEX_M_CM_OPS_H

#include <stddef.h>

#include "pte/kernel.h"

/* op_cm_quant.c: quantize_per_tensor.out, dequantize_per_tensor.out */
extern const pte_kernel pte_cm_quant_kernels[];
extern const size_t pte_cm_quant_kernels_count;
/* op_cm_elementwise.c: quantized_add/mul/div/activation.out, minimum.out, maximum.out */
extern const pte_kernel pte_cm_elementwise_kernels[];
extern const size_t pte_cm_elementwise_kernels_count;
/* op_cm_linear.c: quantized_linear.out, quantized_batch_matmul.out */
extern const pte_kernel pte_cm_linear_kernels[];
extern const size_t pte_cm_linear_kernels_count;
/* op_cm_softmax.c: softmax.out */
extern const pte_kernel pte_cm_softmax_kernels[];
extern const size_t pte_cm_softmax_kernels_count;
/* op_cm_shape.c: transpose.out, pad.out */
extern const pte_kernel pte_cm_shape_kernels[];
extern const size_t pte_cm_shape_kernels_count;
/* op_cm_conv.c: quantized_conv2d.out, quantized_depthwise_conv2d.out,
 * quantized_transpose_conv2d.out */
extern const pte_kernel pte_cm_conv_kernels[];
extern const size_t pte_cm_conv_kernels_count;
/* op_cm_pool.c: quantized_avg_pool2d.out, quantized_max_pool2d.out */
extern const pte_kernel pte_cm_pool_kernels[];
extern const size_t pte_cm_pool_kernels_count;

#endif
