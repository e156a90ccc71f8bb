/* kernels/quantized/q_internal.h — shared pieces of the quantized_decomposed kernels (internal).
 *
 * Quantized storage dtypes: BYTE (uint8), CHAR (int8), SHORT (int16), INT (int32), UINT16 and
 * BITS16 (both stored as uint16). Floating dtypes: FLOAT, DOUBLE, HALF.
 */
#ifndef PTE_KERNELS_QUANTIZED_Q_INTERNAL_H
#define PTE_KERNELS_QUANTIZED_Q_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pte/evalue.h"
#include "pte/kernel.h"
#include "pte/tensor.h"

/* True for the quantized storage dtypes above. */
bool pte_q_is_qtype(int dtype);
/* True for FLOAT, DOUBLE, HALF. */
bool pte_q_is_ftype(int dtype);
/* Representable range of a quantized dtype. */
void pte_q_range(int dtype, int64_t *lo, int64_t *hi);

static inline int64_t pte_q_load(const void *data, int dtype, int64_t i) {
  switch (dtype) {
    case PTE_DTYPE_BYTE: return ((const uint8_t *)data)[i];
    case PTE_DTYPE_CHAR: return ((const int8_t *)data)[i];
    case PTE_DTYPE_SHORT: return ((const int16_t *)data)[i];
    case PTE_DTYPE_INT: return ((const int32_t *)data)[i];
    case PTE_DTYPE_UINT16:
    case PTE_DTYPE_BITS16: return ((const uint16_t *)data)[i];
    default: return 0;
  }
}

static inline void pte_q_store(void *data, int dtype, int64_t i, int64_t v) {
  switch (dtype) {
    case PTE_DTYPE_BYTE: ((uint8_t *)data)[i] = (uint8_t)v; break;
    case PTE_DTYPE_CHAR: ((int8_t *)data)[i] = (int8_t)v; break;
    case PTE_DTYPE_SHORT: ((int16_t *)data)[i] = (int16_t)v; break;
    case PTE_DTYPE_INT: ((int32_t *)data)[i] = (int32_t)v; break;
    case PTE_DTYPE_UINT16:
    case PTE_DTYPE_BITS16: ((uint16_t *)data)[i] = (uint16_t)v; break;
    default: break;
  }
}

/* Loads a FLOAT / DOUBLE / HALF element as double (HALF widened exactly). */
double pte_q_load_float(const void *data, int dtype, int64_t i);
/* Stores v converted to dtype (HALF rounds to nearest even). */
void pte_q_store_float(void *data, int dtype, int64_t i, double v);

/* quantize_val of the reference: q = clamp((int64)((float)(int32)zp + nearbyint(p)), qmin,
 * qmax) where p = (1.0f / (float)scale) * x evaluated in float for float/half input and in
 * double (then rounded to float) for double input. */
int64_t pte_q_quantize_val(double scale, int64_t zero_point, double x, int in_dtype, int64_t qmin,
                           int64_t qmax);
/* dequantize of the reference: (float)((int32)q - (int32)zp) * (float)scale, as float. */
static inline float pte_q_dequantize_val(int64_t q, int64_t zp, float scale) {
  const int64_t d = (int64_t)(int32_t)(uint32_t)(uint64_t)(q - (int64_t)(int32_t)zp);
  return (float)d * scale;
}

/* Scale / zero-point tensor element k (logical index): FLOAT or DOUBLE scales, INT or LONG zero
 * points. */
double pte_q_scale_at(const pte_tensor *t, int64_t k);
int64_t pte_q_zp_at(const pte_tensor *t, int64_t k);

/* Per-channel axis of `in`: wraps a negative axis (a 0-dim tensor counts as rank 1), checks the
 * range (PTE_ERR_INVALID_ARGUMENT through ctx) and gives the channel count and the number of
 * elements per channel step (product of the sizes after the axis). */
bool pte_q_channel_axis(pte_kernel_context *ctx, const pte_tensor *in, int64_t *axis, int64_t *axis_size,
                        int64_t *inner);

/* Argument helpers: nargs is n_schema or n_schema + 1 (return alias). */
bool pte_q_check_nargs(pte_kernel_context *ctx, size_t nargs, size_t n_schema);

#endif
