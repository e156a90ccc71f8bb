/* pte/custom_kernels.h — third-party custom operator library (kernels/custom).
 *
 * Operators that are not part of ExecuTorch's portable / quantized libraries but that real
 * exported programs call, implemented in portable C:
 *
 *   etnp::lstm.out  (executorch-numpy-runtime / executorch-runtime-dist v1.3.1 custom op)
 *     etnp::lstm.out(Tensor input, Tensor h0, Tensor c0, Tensor w_ih, Tensor w_hh,
 *                    Tensor? b_ih, Tensor? b_hh, *, Tensor(a!) output, Tensor(b!) hn,
 *                    Tensor(c!) cn) -> (Tensor(a!), Tensor(b!), Tensor(c!))
 *     Single-layer, unidirectional, sequence-first float32 LSTM: input [T,B,I], h0/c0 [B,H],
 *     w_ih [4H,I], w_hh [4H,H], b_ih/b_hh [4H] (optional); output [T,B,H], hn/cn [B,H] (final
 *     state). Gate rows in PyTorch order i, f, g, o:
 *       a = W_ih x_t + b_ih + W_hh h_{t-1} + b_hh
 *       c_t = sigmoid(a_f) * c_{t-1} + sigmoid(a_i) * tanh(a_g);  h_t = sigmoid(a_o) * tanh(c_t)
 *     computed in float32. The exporter's trailing TensorList return value is accepted.
 *     Needs 4H floats of scratch: on the stack up to H = 64, from the temp allocator beyond.
 *
 *   Cadence (Xtensa) backend operators, with the arithmetic of upstream's generic reference
 *   kernels (backends/cadence/generic):
 *   cadence::quantize_per_tensor.out(Tensor input, float scale, int zero_point, int quant_min,
 *       int quant_max, ScalarType dtype, *, Tensor(a!) out)
 *     float32 input -> out of dtype uint8 / int8 / int16 / uint16 / bits16 / int32 (must equal
 *     `dtype`): q = clamp((float)zero_point + nearbyintf((float)(1.0 / scale) * x)), float32
 *     arithmetic, ties to even, clamped to [max(quant_min, dtype min), min(quant_max, dtype max)]
 *     (NaN gives the lower bound).
 *   cadence::dequantize_per_tensor.out(same arguments)
 *     input of dtype uint8 / int8 / int16 / uint16 / bits16 / int32 (must equal `dtype`) ->
 *     float32 out: x = (float)scale * (float)(q - zero_point).
 *   cadence::quantized_conv2d_nchw.per_tensor_out(Tensor input, Tensor weight, Tensor bias,
 *       int[] stride, SymInt[] padding, int[] dilation, int groups, int input_zero_point,
 *       int weight_zero_point, float bias_scale, float out_scale, int out_zero_point,
 *       int out_multiplier, int out_shift, *, Tensor(a!) out)
 *     Grouped, strided, padded, dilated 2-D convolution of NCHW input [N,C,H,W] with weight
 *     [OC,C/groups,KH,KW] (or 1-D: [N,C,W] with [OC,C/groups,K], using the last entry of each
 *     list) and int32 bias [OC]; input/weight/out all int8, all uint8, all int16, or int16
 *     activations with int8 weights. acc = bias[oc] + sum (in - input_zero_point) *
 *     (w - weight_zero_point) over the unpadded taps (exact, in int64), then
 *     out = clamp((float)out_zero_point + nearbyintf((1.0f / (float)out_scale) *
 *     ((float)bias_scale * (float)acc))) to the out dtype's range. out_multiplier / out_shift
 *     are ignored (as upstream's reference does). Upstream accumulates in float32, so results
 *     are identical whenever its partial sums stay below 2^24 in magnitude.
 *
 * All kernels accept any dim order (strided access), resize their outputs, and accept the trailing
 * return value(s) the exporter appends. Failures go through pte_kernel_fail():
 * PTE_ERR_INVALID_ARGUMENT for wrong tags, dtypes, shapes, zero points outside the dtype range or
 * non-finite / zero scales; PTE_ERR_MEMORY_ALLOCATION_FAILED when the LSTM needs temp memory and
 * none is available.
 */
#ifndef PTE_CUSTOM_KERNELS_H
#define PTE_CUSTOM_KERNELS_H

#include <stddef.h>

#include "pte/kernel.h"
#include "pte/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Registers every custom kernel (etnp::lstm.out and the three cadence:: operators above) with
 * pte_register_kernels(). Idempotent: a second call returns PTE_OK without registering anything.
 * Errors: those of pte_register_kernels (PTE_ERR_REGISTRATION_ALREADY_REGISTERED if another
 * kernel already took one of the names with a NULL key, PTE_ERR_REGISTRATION_EXCEEDING_MAX_KERNELS
 * when the registry is full). */
pte_status pte_register_custom_kernels(void);

/* Number of kernels in the library, and kernel i (NULL when out of range), for listings. */
size_t pte_custom_kernel_count(void);
const pte_kernel *pte_custom_kernel(size_t i);

#ifdef __cplusplus
}
#endif
#endif
