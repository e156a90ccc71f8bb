/* cortex_m quantize / dequantize (float32 <-> int8, per tensor):
 *   cortex_m::quantize_per_tensor.out(Tensor input, float scale, int zero_point, int quant_min,
 *       int quant_max, ScalarType dtype, *, Tensor(a!) out)
 *   cortex_m::dequantize_per_tensor.out(Tensor input, float scale, int zero_point, int quant_min,
 *       int quant_max, ScalarType dtype, *, Tensor(a!) out)
 *
 * quantize:   q = clamp(zero_point + nearbyint(x * (1.0f / (float)scale)), quant_min, quant_max)
 *             computed in float32; nearbyint rounds ties to even. NaN gives quant_min (what the
 *             float->int conversion of the reference produces on x86 before clamping).
 * dequantize: x = (float)(q - zero_point) * (float)scale.
 * Only float32 <-> int8 (dtype must be CHAR), any dim order (walked through strides).
 */
#include <math.h>

#include "cortex_m/cm_internal.h"
#include "cortex_m/cm_ops.h"
#include "portable/util/kutil.h"

static bool read_qparams(pte_kernel_context *ctx, pte_evalue **args, size_t nargs, double *scale,
                         int64_t *zp, int64_t *qmin, int64_t *qmax) {
  int64_t dtype;
  if (!pte_k_arg_double(ctx, args, nargs, 1, scale) || !pte_k_arg_int(ctx, args, nargs, 2, zp) ||
      !pte_k_arg_int(ctx, args, nargs, 3, qmin) || !pte_k_arg_int(ctx, args, nargs, 4, qmax) ||
      !pte_k_arg_int(ctx, args, nargs, 5, &dtype))
    return false;
  if (dtype != PTE_DTYPE_CHAR) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "dtype must be int8, got %s",
                    pte_dtype_name((int)dtype));
    return false;
  }
  if (*qmin < -128 || *qmax > 127 || *qmin > *qmax) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "quant range [%lld, %lld] is not within int8",
                    (long long)*qmin, (long long)*qmax);
    return false;
  }
  return true;
}

static void cm_quantize_per_tensor(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  if (!pte_cm_check_nargs(ctx, nargs, 7)) return;
  pte_tensor *in = pte_cm_tensor_of(ctx, args, nargs, 0, PTE_DTYPE_FLOAT, "input");
  pte_tensor *out = pte_cm_tensor_of(ctx, args, nargs, 6, PTE_DTYPE_CHAR, "out");
  double scale;
  int64_t zp, qmin, qmax;
  if (!in || !out || !read_qparams(ctx, args, nargs, &scale, &zp, &qmin, &qmax)) return;
  if (zp < INT32_MIN || zp > INT32_MAX) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "zero_point does not fit int32");
    return;
  }
  if (!pte_cm_resize(ctx, out, in->sizes, in->dim)) return;

  const float inv_scale = 1.0f / (float)scale;
  const float *src = (const float *)in->data;
  int8_t *dst = (int8_t *)out->data;
  const pte_tensor *ops[2] = {out, in};
  pte_k_iter it;
  if (pte_k_iter_init(&it, out->sizes, out->dim, ops, 2)) {
    do {
      for (int64_t j = 0; j < it.inner; j++) {
        const float p = inv_scale * src[it.off[1] + j * it.istride[1]];
        int64_t q;
        if (isnan(p)) {
          q = qmin;
        } else {
          const float r = nearbyintf(p);
          /* the reference converts to int32 before adding the zero point: saturate there */
          const int64_t ri = r >= 2147483647.0f ? INT32_MAX : (r <= -2147483648.0f ? INT32_MIN : (int64_t)r);
          q = (int64_t)pte_cm_add32((int32_t)ri, (int32_t)zp);
        }
        if (q < qmin) q = qmin;
        if (q > qmax) q = qmax;
        dst[it.off[0] + j * it.istride[0]] = (int8_t)q;
      }
    } while (pte_k_iter_next(&it));
  }
  pte_cm_set_return(args, nargs, 6);
}

static void cm_dequantize_per_tensor(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  if (!pte_cm_check_nargs(ctx, nargs, 7)) return;
  pte_tensor *in = pte_cm_tensor_of(ctx, args, nargs, 0, PTE_DTYPE_CHAR, "input");
  pte_tensor *out = pte_cm_tensor_of(ctx, args, nargs, 6, PTE_DTYPE_FLOAT, "out");
  double scale;
  int64_t zp, qmin, qmax;
  if (!in || !out || !read_qparams(ctx, args, nargs, &scale, &zp, &qmin, &qmax)) return;
  if (zp < qmin || zp > qmax) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "zero_point %lld outside [%lld, %lld]",
                    (long long)zp, (long long)qmin, (long long)qmax);
    return;
  }
  if (!pte_cm_resize(ctx, out, in->sizes, in->dim)) return;

  const float fscale = (float)scale;
  const int32_t z = (int32_t)zp;
  const int8_t *src = (const int8_t *)in->data;
  float *dst = (float *)out->data;
  const pte_tensor *ops[2] = {out, in};
  pte_k_iter it;
  if (pte_k_iter_init(&it, out->sizes, out->dim, ops, 2)) {
    do {
      for (int64_t j = 0; j < it.inner; j++)
        dst[it.off[0] + j * it.istride[0]] =
            (float)((int32_t)src[it.off[1] + j * it.istride[1]] - z) * fscale;
    } while (pte_k_iter_next(&it));
  }
  pte_cm_set_return(args, nargs, 6);
}

const pte_kernel pte_cm_quant_kernels[] = {
    {"cortex_m::quantize_per_tensor.out", NULL, cm_quantize_per_tensor},
    {"cortex_m::dequantize_per_tensor.out", NULL, cm_dequantize_per_tensor},
};
const size_t pte_cm_quant_kernels_count = sizeof pte_cm_quant_kernels / sizeof pte_cm_quant_kernels[0];
