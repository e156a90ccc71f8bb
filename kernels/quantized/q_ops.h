/* kernels/quantized/q_ops.h — kernel tables of the quantized_decomposed operator files
 * (internal). pte_register_quantized_kernels() (include/pte/quantized_kernels.h) registers all. */
#ifndef PTE_KERNELS_QUANTIZED_Q_OPS_H
#define PTE_KERNELS_QUANTIZED_Q_OPS_H

#include <stddef.h>

#include "pte/kernel.h"

/* op_quantize.c: quantize_per_tensor.out / .Tensor_out, quantize_per_channel.out,
 * quantize_per_token.out */
extern const pte_kernel pte_q_quantize_kernels[];
extern const size_t pte_q_quantize_kernels_count;
/* op_dequantize.c: dequantize_per_tensor.out / .Tensor_out, dequantize_per_channel.out,
 * dequantize_per_token.out */
extern const pte_kernel pte_q_dequantize_kernels[];
extern const size_t pte_q_dequantize_kernels_count;
/* op_choose_qparams.c: choose_qparams.Tensor_out, choose_qparams_per_token_asymmetric.out */
extern const pte_kernel pte_q_choose_qparams_kernels[];
extern const size_t pte_q_choose_qparams_kernels_count;
/* op_embedding.c: embedding_byte / embedding_4bit / embedding_2bit (.out and .dtype_out) */
extern const pte_kernel pte_q_embedding_kernels[];
extern const size_t pte_q_embedding_kernels_count;
/* op_mixed.c: mixed_mm.out, mixed_linear.out */
extern const pte_kernel pte_q_mixed_kernels[];
extern const size_t pte_q_mixed_kernels_count;
/* op_add.c: add.out */
extern const pte_kernel pte_q_add_kernels[];
extern const size_t pte_q_add_kernels_count;

#endif
