/* quantized_decomposed quantize kernels:
 *   quantized_decomposed::quantize_per_tensor.out(Tensor input, float scale, int zero_point,
 *       int quant_min, int quant_max, ScalarType dtype, *, Tensor(a!) out)
 *   quantized_decomposed::quantize_per_tensor.Tensor_out(Tensor input, Tensor scale,
 *       Tensor zero_point, int quant_min, int quant_max, ScalarType dtype, *, Tensor(a!) out)
 *   quantized_decomposed::quantize_per_channel.out(Tensor input, Tensor scales,
 *       Tensor zero_points, int axis, int quant_min, int quant_max, ScalarType dtype, *,
 *       Tensor(a!) out)
 *   quantized_decomposed::quantize_per_token.out(Tensor input, Tensor scales,
 *       Tensor zero_points, int quant_min, int quant_max, ScalarType dtype, *, Tensor(a!) out)
 *
 * q = clamp(zero_point + nearbyint(x * (1.0f / (float)scale)), quant_min, quant_max) in float
 * arithmetic (ties to even; see pte_q_quantize_val). input float32 / float64 / float16; out
 * dtype = `dtype` in {uint8, int8, int16, int32, uint16, bits16} with quant_min / quant_max
 * inside its range. Per-channel: one (scale, zero_point) per index along `axis`; per-token: one
 * per row of the input viewed as [numel / size(-1), size(-1)]. Scales may be float64 or float32
 * tensors, zero points int64 or int32 (the .Tensor_out overload requires float64 / int64 with one
 * element, as upstream). Any dim order.
 */
#include "portable/util/kutil.h"
#include "quantized/q_internal.h"
#include "quantized/q_ops.h"

/* Validates input / out / dtype / range (upstream check_quantize_per_tensor_args). */
static bool check_quant_args(pte_kernel_context *ctx, const pte_tensor *in, const pte_tensor *out,
                             int64_t dtype, int64_t qmin, int64_t qmax) {
  if (!pte_q_is_ftype(in->dtype)) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "input must be floating, got %s",
                    pte_dtype_name(in->dtype));
    return false;
  }
  if (out->dtype != dtype) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "out is %s but dtype is %s",
                    pte_dtype_name(out->dtype), pte_dtype_name((int)dtype));
    return false;
  }
  if (!pte_q_is_qtype((int)dtype)) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "unsupported quantized dtype %s",
                    pte_dtype_name((int)dtype));
    return false;
  }
  int64_t lo, hi;
  pte_q_range((int)dtype, &lo, &hi);
  if (qmin < lo || qmax > hi) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "quant range [%lld, %lld] exceeds %s",
                    (long long)qmin, (long long)qmax, pte_dtype_name((int)dtype));
    return false;
  }
  return pte_k_check_data(ctx, in, "input") && pte_k_check_data(ctx, out, "out");
}

/* Quantizes every element; scale / zero point come from (scales, zps) at index
 * (li / inner) % axis_size, or from the scalars when scales is NULL. */
static void quantize_loop(const pte_tensor *in, pte_tensor *out, double scale, int64_t zp,
                          const pte_tensor *scales, const pte_tensor *zps, int64_t inner,
                          int64_t axis_size, int64_t qmin, int64_t qmax) {
  const bool dense = pte_k_is_contiguous(in) && pte_k_is_contiguous(out);
  int64_t last_ch = -1;
  for (size_t li = 0; li < in->numel; li++) {
    if (scales) {
      const int64_t ch = ((int64_t)li / inner) % axis_size;
      if (ch != last_ch) {
        scale = pte_q_scale_at(scales, ch);
        zp = pte_q_zp_at(zps, ch);
        last_ch = ch;
      }
    }
    const int64_t io = dense ? (int64_t)li : pte_k_offset_of_linear(in, li);
    const int64_t oo = dense ? (int64_t)li : pte_k_offset_of_linear(out, li);
    const double x = pte_q_load_float(in->data, in->dtype, io);
    pte_q_store(out->data, out->dtype, oo, pte_q_quantize_val(scale, zp, x, in->dtype, qmin, qmax));
  }
}

static void q_quantize_per_tensor(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  if (!pte_q_check_nargs(ctx, nargs, 7)) return;
  pte_tensor *in = pte_k_arg_tensor(ctx, args, nargs, 0);
  pte_tensor *out = in ? pte_k_arg_tensor(ctx, args, nargs, 6) : NULL;
  double scale;
  int64_t zp, qmin, qmax, dtype;
  if (!out || !pte_k_arg_double(ctx, args, nargs, 1, &scale) ||
      !pte_k_arg_int(ctx, args, nargs, 2, &zp) || !pte_k_arg_int(ctx, args, nargs, 3, &qmin) ||
      !pte_k_arg_int(ctx, args, nargs, 4, &qmax) || !pte_k_arg_int(ctx, args, nargs, 5, &dtype))
    return;
  if (!pte_k_resize_like(ctx, out, in)) return;
  if (!check_quant_args(ctx, in, out, dtype, qmin, qmax)) return;
  quantize_loop(in, out, scale, zp, NULL, NULL, 1, 1, qmin, qmax);
  pte_k_set_return(args, nargs, 6);
}

static void q_quantize_per_tensor_tensor(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  if (!pte_q_check_nargs(ctx, nargs, 7)) return;
  pte_tensor *in = pte_k_arg_tensor(ctx, args, nargs, 0);
  pte_tensor *st = in ? pte_k_arg_tensor(ctx, args, nargs, 1) : NULL;
  pte_tensor *zt = st ? pte_k_arg_tensor(ctx, args, nargs, 2) : NULL;
  pte_tensor *out = zt ? pte_k_arg_tensor(ctx, args, nargs, 6) : NULL;
  int64_t qmin, qmax, dtype;
  if (!out || !pte_k_arg_int(ctx, args, nargs, 3, &qmin) ||
      !pte_k_arg_int(ctx, args, nargs, 4, &qmax) || !pte_k_arg_int(ctx, args, nargs, 5, &dtype))
    return;
  if (st->dtype != PTE_DTYPE_DOUBLE || zt->dtype != PTE_DTYPE_LONG || st->numel != 1 ||
      zt->numel != 1) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT,
                    "scale must be a 1-element float64 and zero_point a 1-element int64 tensor");
    return;
  }
  if (!pte_k_check_data(ctx, st, "scale") || !pte_k_check_data(ctx, zt, "zero_point")) return;
  if (!pte_k_resize_like(ctx, out, in)) return;
  if (!check_quant_args(ctx, in, out, dtype, qmin, qmax)) return;
  quantize_loop(in, out, pte_q_scale_at(st, 0), pte_q_zp_at(zt, 0), NULL, NULL, 1, 1, qmin, qmax);
  pte_k_set_return(args, nargs, 6);
}

/* Checks per-channel parameter tensors: n elements, float/double scales, int/long zero points. */
static bool check_channel_params(pte_kernel_context *ctx, const pte_tensor *scales,
                                 const pte_tensor *zps, int64_t n) {
  if (scales->dtype != PTE_DTYPE_DOUBLE && scales->dtype != PTE_DTYPE_FLOAT) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "scales must be float64 or float32, got %s",
                    pte_dtype_name(scales->dtype));
    return false;
  }
  if ((int64_t)scales->numel != n) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "scales has %zu elements, expected %lld",
                    scales->numel, (long long)n);
    return false;
  }
  if (!pte_k_check_data(ctx, scales, "scales")) return false;
  if (zps) {
    if (zps->dtype != PTE_DTYPE_LONG && zps->dtype != PTE_DTYPE_INT) {
      pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "zero_points must be int64 or int32, got %s",
                      pte_dtype_name(zps->dtype));
      return false;
    }
    if ((int64_t)zps->numel != n) {
      pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "zero_points has %zu elements, expected %lld",
                      zps->numel, (long long)n);
      return false;
    }
    if (!pte_k_check_data(ctx, zps, "zero_points")) return false;
  }
  return true;
}

static void q_quantize_per_channel(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  if (!pte_q_check_nargs(ctx, nargs, 8)) return;
  pte_tensor *in = pte_k_arg_tensor(ctx, args, nargs, 0);
  pte_tensor *sc = in ? pte_k_arg_tensor(ctx, args, nargs, 1) : NULL;
  pte_tensor *zp = sc ? pte_k_arg_tensor(ctx, args, nargs, 2) : NULL;
  pte_tensor *out = zp ? pte_k_arg_tensor(ctx, args, nargs, 7) : NULL;
  int64_t axis, qmin, qmax, dtype;
  if (!out || !pte_k_arg_int(ctx, args, nargs, 3, &axis) ||
      !pte_k_arg_int(ctx, args, nargs, 4, &qmin) || !pte_k_arg_int(ctx, args, nargs, 5, &qmax) ||
      !pte_k_arg_int(ctx, args, nargs, 6, &dtype))
    return;
  int64_t axis_size, inner;
  if (!pte_q_channel_axis(ctx, in, &axis, &axis_size, &inner)) return;
  if (!pte_k_resize_like(ctx, out, in)) return;
  if (!check_channel_params(ctx, sc, zp, axis_size)) return;
  if (!check_quant_args(ctx, in, out, dtype, qmin, qmax)) return;
  if (in->numel > 0) quantize_loop(in, out, 0, 0, sc, zp, inner, axis_size, qmin, qmax);
  pte_k_set_return(args, nargs, 7);
}

static void q_quantize_per_token(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  if (!pte_q_check_nargs(ctx, nargs, 7)) return;
  pte_tensor *in = pte_k_arg_tensor(ctx, args, nargs, 0);
  pte_tensor *sc = in ? pte_k_arg_tensor(ctx, args, nargs, 1) : NULL;
  pte_tensor *zp = sc ? pte_k_arg_tensor(ctx, args, nargs, 2) : NULL;
  pte_tensor *out = zp ? pte_k_arg_tensor(ctx, args, nargs, 6) : NULL;
  int64_t qmin, qmax, dtype;
  if (!out || !pte_k_arg_int(ctx, args, nargs, 3, &qmin) ||
      !pte_k_arg_int(ctx, args, nargs, 4, &qmax) || !pte_k_arg_int(ctx, args, nargs, 5, &dtype))
    return;
  if (in->dim < 1) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "per-token quantization needs rank >= 1");
    return;
  }
  const int64_t tok = in->sizes[in->dim - 1];
  const int64_t ntok = tok > 0 ? (int64_t)in->numel / tok : 0;
  if (!pte_k_resize_like(ctx, out, in)) return;
  if (!check_channel_params(ctx, sc, zp, ntok)) return;
  if (!check_quant_args(ctx, in, out, dtype, qmin, qmax)) return;
  if (in->numel > 0) quantize_loop(in, out, 0, 0, sc, zp, tok, ntok, qmin, qmax);
  pte_k_set_return(args, nargs, 6);
}

const pte_kernel pte_q_quantize_kernels[] = {
    {"quantized_decomposed::quantize_per_tensor.out", NULL, q_quantize_per_tensor},
    {"quantized_decomposed::quantize_per_tensor.Tensor_out", NULL, q_quantize_per_tensor_tensor},
    {"quantized_decomposed::quantize_per_channel.out", NULL, q_quantize_per_channel},
    {"quantized_decomposed::quantize_per_token.out", NULL, q_quantize_per_token},
};
const size_t pte_q_quantize_kernels_count =
    sizeof pte_q_quantize_kernels / sizeof pte_q_quantize_kernels[0];
