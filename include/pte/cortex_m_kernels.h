/* pte/cortex_m_kernels.h — the cortex_m operator library (kernels/cortex_m).
 *
 * Portable C implementations of ExecuTorch's Cortex-M backend operators (namespace
 * "cortex_m::"), bit-exact with the int8 arithmetic of CMSIS-NN's reference C code in its default
 * configuration (double-rounding requantization; see kernels/cortex_m/cm_internal.h for the
 * formulas). Argument order follows upstream backends/cortex_m/ops/operators.yaml; every kernel
 * also accepts the trailing return alias the exporter appends after the out tensor.
 *
 * Registered operators (all fallback kernels, key NULL):
 *   cortex_m::quantize_per_tensor.out, cortex_m::dequantize_per_tensor.out,
 *   cortex_m::quantized_add.out, cortex_m::quantized_mul.out, cortex_m::quantized_div.out,
 *   cortex_m::quantized_activation.out, cortex_m::minimum.out, cortex_m::maximum.out,
 *   cortex_m::quantized_linear.out, cortex_m::softmax.out, cortex_m::transpose.out,
 *   cortex_m::pad.out, cortex_m::quantized_conv2d.out, cortex_m::quantized_depthwise_conv2d.out,
 *   cortex_m::quantized_transpose_conv2d.out, cortex_m::quantized_avg_pool2d.out,
 *   cortex_m::quantized_max_pool2d.out, cortex_m::quantized_batch_matmul.out
 *
 * Kernel failures are reported through pte_kernel_fail(): PTE_ERR_INVALID_ARGUMENT for wrong
 * argument tags / dtypes / shapes / out-of-range quantization parameters (where upstream aborts
 * with ET_CHECK), PTE_ERR_NOT_SUPPORTED for legal but unimplemented configurations (e.g. a
 * dilated max pool).
 */
#ifndef PTE_CORTEX_M_KERNELS_H
#define PTE_CORTEX_M_KERNELS_H

#include <stddef.h>

#include "pte/kernel.h"
#include "pte/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Registers every cortex_m kernel with pte_register_kernels(). Idempotent: a second call returns
 * PTE_OK without registering anything. Errors: those of pte_register_kernels
 * (PTE_ERR_REGISTRATION_ALREADY_REGISTERED if another kernel already took one of the names with
 * a NULL key, PTE_ERR_REGISTRATION_EXCEEDING_MAX_KERNELS when the registry is full). */
pte_status pte_register_cortex_m_kernels(void);

/* Number of kernels in the library, and kernel i (NULL when out of range), for listings. */
size_t pte_cortex_m_kernel_count(void);
const pte_kernel *pte_cortex_m_kernel(size_t i);

#ifdef __cplusplus
}
#endif
#endif
