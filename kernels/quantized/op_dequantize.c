/* quantized_decomposed dequantize kernels:
 *   quantized_decomposed::dequantize_per_tensor.out(Tensor input, float scale, int zero_point,
 *       int quant_min, int quant_max, ScalarType dtype, *, ScalarType? out_dtype=None,
 *       Tensor(a!) out)
 *   quantized_decomposed::dequantize_per_tensor.Tensor_out(Tensor input, Tensor scale,
 *       Tensor zero_point, int quant_min, int quant_max, ScalarType dtype, *,
 *       ScalarType? out_dtype=None, Tensor(a!) out)
 *   quantized_decomposed::dequantize_per_channel.out(Tensor input, Tensor scales,
 *       Tensor? zero_points, int axis, int quant_min, int quant_max, ScalarType dtype, *,
 *       ScalarType? out_dtype=None, Tensor(a!) out)
 *   quantized_decomposed::dequantize_per_token.out(Tensor input, Tensor scales,
 *       Tensor zero_points, int quant_min, int quant_max, ScalarType dtype,
 *       ScalarType output_dtype, *, Tensor(a!) out)
 *
 * x = (float)(q - zero_point) * (float)scale, computed in float32 and stored as the out dtype
 * (float32 / float64 / float16). A 1-D per-channel input follows the reference's other loop:
 * (OUT)(q - zero_point) * (float)scale, i.e. the product is formed in float64 for a float64 out.
 * quant_min / quant_max are metadata (only quant_min <= quant_max is checked). input dtype must
 * equal `dtype` and be uint8 / int8 / int16 / int32 / uint16 / bits16; out_dtype, when given,
 * must equal the out tensor's dtype. Missing per-channel zero points mean 0. Any dim order.
 */
#include "portable/util/kutil.h"
#include "quantized/q_internal.h"
#include "quantized/q_ops.h"

static bool check_dequant_args(pte_kernel_context *ctx, const pte_tensor *in,
                               const pte_tensor *out, int64_t dtype, int64_t qmin, int64_t qmax,
                               bool has_out_dtype, int64_t out_dtype) {
  if (!pte_q_is_qtype(in->dtype)) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "unsupported quantized input dtype %s",
                    pte_dtype_name(in->dtype));
    return false;
  }
  if (in->dtype != dtype) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "input is %s but dtype is %s",
                    pte_dtype_name(in->dtype), pte_dtype_name((int)dtype));
    return false;
  }
  if (has_out_dtype && out->dtype != out_dtype) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "out is %s but out_dtype is %s",
                    pte_dtype_name(out->dtype), pte_dtype_name((int)out_dtype));
    return false;
  }
  if (!pte_q_is_ftype(out->dtype)) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "out must be float32/float64/float16, got %s",
                    pte_dtype_name(out->dtype));
    return false;
  }
  if (qmin > qmax) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "quant_min %lld > quant_max %lld",
                    (long long)qmin, (long long)qmax);
    return false;
  }
  return pte_k_check_data(ctx, in, "input") && pte_k_check_data(ctx, out, "out");
}

/* Reads an optional ScalarType argument (None or Int). */
static bool opt_dtype_arg(pte_kernel_context *ctx, pte_evalue **args, size_t nargs, size_t i,
                          bool *has, int64_t *v) {
  *has = !pte_k_arg_is_none(args, nargs, i);
  if (!*has) return true;
  return pte_k_arg_int(ctx, args, nargs, i, v);
}

static void dequantize_loop(const pte_tensor *in, pte_tensor *out, double scale, int64_t zp,
                            const pte_tensor *scales, const pte_tensor *zps, int64_t inner,
                            int64_t axis_size, bool one_d) {
  const bool dense = pte_k_is_contiguous(in) && pte_k_is_contiguous(out);
  int64_t last_ch = -1;
  float fs = (float)scale;
  for (size_t li = 0; li < in->numel; li++) {
    if (scales) {
      const int64_t ch = ((int64_t)li / inner) % axis_size;
      if (ch != last_ch) {
        fs = (float)pte_q_scale_at(scales, ch);
        zp = zps ? pte_q_zp_at(zps, ch) : 0;
        last_ch = ch;
      }
    }
    const int64_t io = dense ? (int64_t)li : pte_k_offset_of_linear(in, li);
    const int64_t oo = dense ? (int64_t)li : pte_k_offset_of_linear(out, li);
    const int64_t q = pte_q_load(in->data, in->dtype, io);
    if (one_d && out->dtype != PTE_DTYPE_FLOAT) {
      /* (OUT)(q - zp) * scale: double product for float64, float product of the half value
       * for float16 */
      const int64_t d = (int64_t)(int32_t)(uint32_t)(uint64_t)(q - (int64_t)(int32_t)zp);
      if (out->dtype == PTE_DTYPE_DOUBLE) {
        pte_q_store_float(out->data, out->dtype, oo, (double)d * (double)fs);
      } else {
        const float h = pte_k_half_to_float(pte_k_float_to_half((float)d));
        pte_q_store_float(out->data, out->dtype, oo, (double)(h * fs));
      }
    } else {
      pte_q_store_float(out->data, out->dtype, oo, (double)pte_q_dequantize_val(q, zp, fs));
    }
  }
}

static void q_dequantize_per_tensor(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  if (!pte_q_check_nargs(ctx, nargs, 8)) return;
  pte_tensor *in = pte_k_arg_tensor(ctx, args, nargs, 0);
  pte_tensor *out = in ? pte_k_arg_tensor(ctx, args, nargs, 7) : NULL;
  double scale;
  int64_t zp, qmin, qmax, dtype, odt = 0;
  bool has_odt;
  if (!out || !pte_k_arg_double(ctx, args, nargs, 1, &scale) ||
      !pte_k_arg_int(ctx, args, nargs, 2, &zp) || !pte_k_arg_int(ctx, args, nargs, 3, &qmin) ||
      !pte_k_arg_int(ctx, args, nargs, 4, &qmax) || !pte_k_arg_int(ctx, args, nargs, 5, &dtype) ||
      !opt_dtype_arg(ctx, args, nargs, 6, &has_odt, &odt))
    return;
  if (!pte_k_resize_like(ctx, out, in)) return;
  if (!check_dequant_args(ctx, in, out, dtype, qmin, qmax, has_odt, odt)) return;
  dequantize_loop(in, out, scale, zp, NULL, NULL, 1, 1, false);
  pte_k_set_return(args, nargs, 7);
}

static void q_dequantize_per_tensor_tensor(pte_kernel_context *ctx, pte_evalue **args,
                                           size_t nargs) {
  if (!pte_q_check_nargs(ctx, nargs, 8)) return;
  pte_tensor *in = pte_k_arg_tensor(ctx, args, nargs, 0);
  pte_tensor *st = in ? pte_k_arg_tensor(ctx, args, nargs, 1) : NULL;
  pte_tensor *zt = st ? pte_k_arg_tensor(ctx, args, nargs, 2) : NULL;
  pte_tensor *out = zt ? pte_k_arg_tensor(ctx, args, nargs, 7) : NULL;
  int64_t qmin, qmax, dtype, odt = 0;
  bool has_odt;
  if (!out || !pte_k_arg_int(ctx, args, nargs, 3, &qmin) ||
      !pte_k_arg_int(ctx, args, nargs, 4, &qmax) || !pte_k_arg_int(ctx, args, nargs, 5, &dtype) ||
      !opt_dtype_arg(ctx, args, nargs, 6, &has_odt, &odt))
    return;
  if (st->dtype != PTE_DTYPE_DOUBLE || zt->dtype != PTE_DTYPE_LONG || st->numel != 1 ||
      zt->numel != 1) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT,
                    "scale must be a 1-element float64 and zero_point a 1-element int64 tensor");
    return;
  }
  if (!pte_k_check_data(ctx, st, "scale") || !pte_k_check_data(ctx, zt, "zero_point")) return;
  if (!pte_k_resize_like(ctx, out, in)) return;
  if (!check_dequant_args(ctx, in, out, dtype, qmin, qmax, has_odt, odt)) return;
  dequantize_loop(in, out, pte_q_scale_at(st, 0), pte_q_zp_at(zt, 0), NULL, NULL, 1, 1, false);
  pte_k_set_return(args, nargs, 7);
}

static bool dq_check_params(pte_kernel_context *ctx, const pte_tensor *scales, const pte_tensor *zps,
                         int64_t n) {
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
  if (zps && zps->dtype != PTE_DTYPE_LONG && zps->dtype != PTE_DTYPE_INT) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "zero_points must be int64 or int32, got %s",
                    pte_dtype_name(zps->dtype));
    return false;
  }
  if (zps && (int64_t)zps->numel != n) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "zero_points has %zu elements, expected %lld",
                    zps->numel, (long long)n);
    return false;
  }
  return pte_k_check_data(ctx, scales, "scales") && (!zps || pte_k_check_data(ctx, zps, "zero_points"));
}

static void q_dequantize_per_channel(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  if (!pte_q_check_nargs(ctx, nargs, 9)) return;
  bool ok = true;
  pte_tensor *in = pte_k_arg_tensor(ctx, args, nargs, 0);
  pte_tensor *sc = in ? pte_k_arg_tensor(ctx, args, nargs, 1) : NULL;
  pte_tensor *zp = sc ? pte_k_arg_opt_tensor(ctx, args, nargs, 2, &ok) : NULL;
  pte_tensor *out = sc && ok ? pte_k_arg_tensor(ctx, args, nargs, 8) : NULL;
  int64_t axis, qmin, qmax, dtype, odt = 0;
  bool has_odt;
  if (!out || !pte_k_arg_int(ctx, args, nargs, 3, &axis) ||
      !pte_k_arg_int(ctx, args, nargs, 4, &qmin) || !pte_k_arg_int(ctx, args, nargs, 5, &qmax) ||
      !pte_k_arg_int(ctx, args, nargs, 6, &dtype) ||
      !opt_dtype_arg(ctx, args, nargs, 7, &has_odt, &odt))
    return;
  int64_t axis_size, inner;
  if (!pte_q_channel_axis(ctx, in, &axis, &axis_size, &inner)) return;
  if (!pte_k_resize_like(ctx, out, in)) return;
  if (!dq_check_params(ctx, sc, zp, axis_size)) return;
  if (!check_dequant_args(ctx, in, out, dtype, qmin, qmax, has_odt, odt)) return;
  if (in->numel > 0) dequantize_loop(in, out, 0, 0, sc, zp, inner, axis_size, in->dim == 1);
  pte_k_set_return(args, nargs, 8);
}

static void q_dequantize_per_token(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  if (!pte_q_check_nargs(ctx, nargs, 8)) return;
  pte_tensor *in = pte_k_arg_tensor(ctx, args, nargs, 0);
  pte_tensor *sc = in ? pte_k_arg_tensor(ctx, args, nargs, 1) : NULL;
  pte_tensor *zp = sc ? pte_k_arg_tensor(ctx, args, nargs, 2) : NULL;
  pte_tensor *out = zp ? pte_k_arg_tensor(ctx, args, nargs, 7) : NULL;
  int64_t qmin, qmax, dtype, odt;
  if (!out || !pte_k_arg_int(ctx, args, nargs, 3, &qmin) ||
      !pte_k_arg_int(ctx, args, nargs, 4, &qmax) || !pte_k_arg_int(ctx, args, nargs, 5, &dtype) ||
      !pte_k_arg_int(ctx, args, nargs, 6, &odt))
    return;
  if (in->dim < 1) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "per-token dequantization needs rank >= 1");
    return;
  }
  const int64_t tok = in->sizes[in->dim - 1];
  const int64_t ntok = tok > 0 ? (int64_t)in->numel / tok : 0;
  if (!pte_k_resize_like(ctx, out, in)) return;
  if (!dq_check_params(ctx, sc, zp, ntok)) return;
  if (!check_dequant_args(ctx, in, out, dtype, qmin, qmax, true, odt)) return;
  if (in->numel > 0) dequantize_loop(in, out, 0, 0, sc, zp, tok, ntok, false);
  pte_k_set_return(args, nargs, 7);
}

const pte_kernel pte_q_dequantize_kernels[] = {
    {"quantized_decomposed::dequantize_per_tensor.out", NULL, q_dequantize_per_tensor},
    {"quantized_decomposed::dequantize_per_tensor.Tensor_out", NULL, q_dequantize_per_tensor_tensor},
    {"quantized_decomposed::dequantize_per_channel.out", NULL, q_dequantize_per_channel},
    {"quantized_decomposed::dequantize_per_token.out", NULL, q_dequantize_per_token},
};
const size_t pte_q_dequantize_kernels_count =
    sizeof pte_q_dequantize_kernels / sizeof pte_q_dequantize_kernels[0];
