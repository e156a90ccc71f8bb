/* pte/quantized_kernels.h — the quantized_decomposed operator library (kernels/quantized).
 *
 * The quantize / dequantize operators an exported ExecuTorch program calls at the boundaries of
 * quantized regions (namespace "quantized_decomposed::"), with the arithmetic of upstream
 * kernels/quantized/cpu:
 *   quantize:   q = clamp(zero_point + nearbyint(x * (1.0f / (float)scale)), quant_min,
 *               quant_max), float32 arithmetic, ties to even
 *   dequantize: x = (float)(q - zero_point) * (float)scale
 * Quantized dtypes: uint8, int8, int16, int32 (and uint16 / bits16); floating dtypes: float32,
 * float64, float16.
 *
 * Registered operators (fallback kernels, key NULL):
 *   quantized_decomposed::quantize_per_tensor.out, quantized_decomposed::quantize_per_tensor.Tensor_out,
 *   quantized_decomposed::dequantize_per_tensor.out,
 *   quantized_decomposed::dequantize_per_tensor.Tensor_out,
 *   quantized_decomposed::quantize_per_channel.out, quantized_decomposed::dequantize_per_channel.out,
 *   quantized_decomposed::choose_qparams.Tensor_out,
 *   quantized_decomposed::quantize_per_token.out, quantized_decomposed::dequantize_per_token.out,
 *   quantized_decomposed::choose_qparams_per_token_asymmetric.out,
 *   quantized_decomposed::embedding_byte.out / .dtype_out, embedding_4bit.out / .dtype_out,
 *   embedding_2bit.out / .dtype_out (4-bit: high nibble first, values - 8; 2-bit: low bit pair
 *   first, values - 2; per-row or group-wise scales, optional zero points),
 *   quantized_decomposed::mixed_mm.out, quantized_decomposed::mixed_linear.out,
 *   quantized_decomposed::add.out (dequantize -> add -> quantize)
 *
 * Failures go through pte_kernel_fail(): PTE_ERR_INVALID_ARGUMENT for wrong tags, dtypes, shapes
 * or parameters (where upstream aborts with ET_CHECK).
 */
#ifndef PTE_QUANTIZED_KERNELS_H
#define PTE_QUANTIZED_KERNELS_H

#include <stddef.h>

#include "pte/kernel.h"
#include "pte/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Registers every quantized_decomposed kernel with pte_register_kernels(). Idempotent: a second
 * call returns PTE_OK without registering anything. Errors: those of pte_register_kernels
 * (PTE_ERR_REGISTRATION_ALREADY_REGISTERED, PTE_ERR_REGISTRATION_EXCEEDING_MAX_KERNELS). */
pte_status pte_register_quantized_kernels(void);

/* Number of kernels in the library, and kernel i (NULL when out of range), for listings. */
size_t pte_quantized_kernel_count(void);
const pte_kernel *pte_quantized_kernel(size_t i);

#ifdef __cplusplus
}
#endif
#endif
