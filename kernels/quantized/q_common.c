/* Shared helpers of the quantized_decomposed kernels (see q_internal.h). */
#include "quantized/q_internal.h"

#include <math.h>

#include "portable/util/kutil.h"

bool pte_q_is_qtype(int dtype) {
  return dtype == PTE_DTYPE_BYTE || dtype == PTE_DTYPE_CHAR || dtype == PTE_DTYPE_SHORT ||
         dtype == PTE_DTYPE_INT || dtype == PTE_DTYPE_UINT16 || dtype == PTE_DTYPE_BITS16;
}

bool pte_q_is_ftype(int dtype) {
  return dtype == PTE_DTYPE_FLOAT || dtype == PTE_DTYPE_DOUBLE || dtype == PTE_DTYPE_HALF;
}

void pte_q_range(int dtype, int64_t *lo, int64_t *hi) {
  switch (dtype) {
    case PTE_DTYPE_BYTE: *lo = 0; *hi = 255; break;
    case PTE_DTYPE_CHAR: *lo = -128; *hi = 127; break;
    case PTE_DTYPE_SHORT: *lo = -32768; *hi = 32767; break;
    case PTE_DTYPE_INT: *lo = INT32_MIN; *hi = INT32_MAX; break;
    case PTE_DTYPE_UINT16:
    case PTE_DTYPE_BITS16: *lo = 0; *hi = 65535; break;
    default: *lo = 0; *hi = -1; break;
  }
}

double pte_q_load_float(const void *data, int dtype, int64_t i) {
  switch (dtype) {
    case PTE_DTYPE_FLOAT: return ((const float *)data)[i];
    case PTE_DTYPE_DOUBLE: return ((const double *)data)[i];
    case PTE_DTYPE_HALF: return pte_k_half_to_float(((const uint16_t *)data)[i]);
    default: return 0.0;
  }
}

void pte_q_store_float(void *data, int dtype, int64_t i, double v) {
  switch (dtype) {
    case PTE_DTYPE_FLOAT: ((float *)data)[i] = (float)v; break;
    case PTE_DTYPE_DOUBLE: ((double *)data)[i] = v; break;
    case PTE_DTYPE_HALF: ((uint16_t *)data)[i] = pte_k_float_to_half((float)v); break;
    default: break;
  }
}

int64_t pte_q_quantize_val(double scale, int64_t zero_point, double x, int in_dtype, int64_t qmin,
                           int64_t qmax) {
  const float inv_scale = 1.0f / (float)scale;
  float p;
  if (in_dtype == PTE_DTYPE_DOUBLE)
    p = (float)((double)inv_scale * x);
  else
    p = inv_scale * (float)x;
  /* int32 zero point + float rounded value: the addition happens in float */
  const float f = (float)(int32_t)zero_point + nearbyintf(p);
  int64_t q;
  if (isnan(f))
    q = INT64_MIN; /* what the float->int64 conversion yields on x86; clamps to quant_min */
  else if (f >= 9223372036854775807.0f)
    q = INT64_MAX;
  else if (f <= -9223372036854775808.0f)
    q = INT64_MIN;
  else
    q = (int64_t)f;
  if (q < qmin) q = qmin; /* max(q, qmin) then min(q, qmax), in that order */
  if (q > qmax) q = qmax;
  return q;
}

double pte_q_scale_at(const pte_tensor *t, int64_t k) {
  const int64_t off = pte_k_offset_of_linear(t, (size_t)k);
  return t->dtype == PTE_DTYPE_DOUBLE ? ((const double *)t->data)[off]
                                      : (double)((const float *)t->data)[off];
}

int64_t pte_q_zp_at(const pte_tensor *t, int64_t k) {
  const int64_t off = pte_k_offset_of_linear(t, (size_t)k);
  return t->dtype == PTE_DTYPE_LONG ? ((const int64_t *)t->data)[off]
                                    : (int64_t)((const int32_t *)t->data)[off];
}

bool pte_q_check_nargs(pte_kernel_context *ctx, size_t nargs, size_t n_schema) {
  if (nargs != n_schema && nargs != n_schema + 1) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "expected %zu or %zu arguments, got %zu",
                    n_schema, n_schema + 1, nargs);
    return false;
  }
  return true;
}

bool pte_q_channel_axis(pte_kernel_context *ctx, const pte_tensor *in, int64_t *axis, int64_t *axis_size,
                        int64_t *inner) {
  const int64_t rank = in->dim > 0 ? in->dim : 1;
  if (*axis < -rank || *axis >= rank) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "axis %lld out of range for rank %d", (long long)*axis,
                    (int)in->dim);
    return false;
  }
  if (*axis < 0) *axis += rank;
  *axis_size = in->dim > 0 ? in->sizes[*axis] : 1;
  *inner = 1;
  for (int32_t d = (int32_t)*axis + 1; d < in->dim; d++) *inner *= in->sizes[d];
  return true;
}
