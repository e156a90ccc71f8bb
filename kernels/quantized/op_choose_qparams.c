/* quantized_decomposed::choose_qparams.Tensor_out(Tensor input, int quant_min, int quant_max,
 *     float eps, ScalarType dtype, *, Tensor(a!) scale_out, Tensor(b!) zero_point_out)
 *     -> (Tensor(a!), Tensor(b!))
 *
 * Per-tensor asymmetric parameters of a float32 input, as the reference computes them:
 *   min = min(min(x), 0), max = max(max(x), 0)                       (float32)
 *   scale = ((double)max - min) / (quant_max - quant_min)           (float64)
 *   scale = 0.1 if (float)scale == 0 or 1 / (float)scale is inf
 *   if scale < 6.1e-5f: scale = 6.1e-5f and min / max are stretched to match
 *   zero point from whichever of (min, quant_min) / (max, quant_max) has the smaller error term,
 *   clamped to [quant_min, quant_max], else nearbyint((float)zp) (ties to even).
 * scale_out: 1-element float64, zero_point_out: 1-element int64 (a dynamic out of another size is
 * resized to all-ones sizes of its rank). eps and dtype are
 * accepted but unused, as upstream. quant_min must be < quant_max.
 */
#include <math.h>

#include "portable/util/kutil.h"
#include "portable/util/kutil_nn.h"
#include "quantized/q_internal.h"
#include "quantized/q_ops.h"

#define Q_SMALL_SCALE_THRESHOLD 6.1e-5f

/* Parameters of the logical elements [first, first + n) of a float32 tensor (n >= 1). */
static void choose(const pte_tensor *in, size_t first, size_t n, int32_t qmin, int32_t qmax,
                   double *scale_out, int64_t *zp_out) {
  const float *x = (const float *)in->data;
  float mn = x[pte_k_offset_of_linear(in, first)];
  float mx = mn;
  for (size_t i = 1; i < n; i++) {
    const float v = x[pte_k_offset_of_linear(in, first + i)];
    mn = v < mn ? v : mn; /* std::min(mn, v) */
    mx = mx < v ? v : mx; /* std::max(mx, v) */
  }
  mn = 0.0f < mn ? 0.0f : mn;
  mx = mx < 0.0f ? 0.0f : mx;

  double scale = ((double)mx - (double)mn) / (double)(qmax - qmin);
  if ((float)scale == 0.0f || isinf(1.0f / (float)scale)) scale = 0.1;
  if (scale < (double)Q_SMALL_SCALE_THRESHOLD) {
    const float org_scale = (float)scale;
    scale = (double)Q_SMALL_SCALE_THRESHOLD;
    if (mn == 0.0f) {
      mx = Q_SMALL_SCALE_THRESHOLD * (float)(qmax - qmin);
    } else if (mx == 0.0f) {
      mn = -Q_SMALL_SCALE_THRESHOLD * (float)(qmax - qmin);
    } else {
      const float amplifier = Q_SMALL_SCALE_THRESHOLD / org_scale;
      mn *= amplifier;
      mx *= amplifier;
    }
  }
  const double zp_from_min = (double)qmin - (double)mn / scale;
  const double zp_from_max = (double)qmax - (double)mx / scale;
  const double err_min = (double)(qmin < 0 ? -(int64_t)qmin : qmin) - fabs((double)mn / scale);
  const double err_max = (double)(qmax < 0 ? -(int64_t)qmax : qmax) - fabs((double)mx / scale);
  const double initial = err_min < err_max ? zp_from_min : zp_from_max;
  int64_t zp;
  if (initial < qmin)
    zp = qmin;
  else if (initial > qmax)
    zp = qmax;
  else
    zp = (int64_t)(int32_t)nearbyintf((float)initial);
  *scale_out = scale;
  *zp_out = zp;
}

static void q_choose_qparams_tensor(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  if (!pte_nn_check_nargs(ctx, nargs, 7, 2)) return;
  pte_tensor *in = pte_k_arg_tensor(ctx, args, nargs, 0);
  pte_tensor *so = in ? pte_k_arg_tensor(ctx, args, nargs, 5) : NULL;
  pte_tensor *zo = so ? pte_k_arg_tensor(ctx, args, nargs, 6) : NULL;
  int64_t qmin, qmax, dtype;
  double eps;
  if (!zo || !pte_k_arg_int(ctx, args, nargs, 1, &qmin) ||
      !pte_k_arg_int(ctx, args, nargs, 2, &qmax) || !pte_k_arg_double(ctx, args, nargs, 3, &eps) ||
      !pte_k_arg_int(ctx, args, nargs, 4, &dtype))
    return;
  if (qmin >= qmax || qmin < INT32_MIN || qmax > INT32_MAX) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "quant_min %lld must be < quant_max %lld",
                    (long long)qmin, (long long)qmax);
    return;
  }
  if (in->dtype != PTE_DTYPE_FLOAT || so->dtype != PTE_DTYPE_DOUBLE ||
      zo->dtype != PTE_DTYPE_LONG) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT,
                    "input must be float32, scale_out float64 and zero_point_out int64");
    return;
  }
  /* one element each; a dynamic out of another size is resized to all-ones sizes */
  const int32_t ones[PTE_MAX_RANK] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
  if ((so->numel != 1 && pte_tensor_resize(so, ones, so->dim) != PTE_OK) ||
      (zo->numel != 1 && pte_tensor_resize(zo, ones, zo->dim) != PTE_OK)) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "scale_out and zero_point_out need 1 element");
    return;
  }
  if (in->numel == 0) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "choose_qparams of an empty tensor");
    return;
  }
  if (!pte_k_check_data(ctx, in, "input") || !pte_k_check_data(ctx, so, "scale_out") ||
      !pte_k_check_data(ctx, zo, "zero_point_out"))
    return;
  double scale;
  int64_t zp;
  choose(in, 0, in->numel, (int32_t)qmin, (int32_t)qmax, &scale, &zp);
  ((double *)so->data)[pte_k_offset_of_linear(so, 0)] = scale;
  ((int64_t *)zo->data)[pte_k_offset_of_linear(zo, 0)] = zp;
  pte_nn_set_returns(args, nargs, 5, 2);
}

/* choose_qparams_per_token_asymmetric.out(Tensor input, ScalarType dtype, *, Tensor(a!) scale_out,
 * Tensor(b!) zero_point_out): the same parameters per token (a token = the last dimension; one
 * per index of the leading dimensions) with the range fixed at [-128, 127]. scale_out (float64)
 * and zero_point_out (int64) are resized to input's shape with the last dimension 1. */
static void q_choose_qparams_per_token(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  if (!pte_nn_check_nargs(ctx, nargs, 4, 2)) return;
  pte_tensor *in = pte_k_arg_tensor(ctx, args, nargs, 0);
  pte_tensor *so = in ? pte_k_arg_tensor(ctx, args, nargs, 2) : NULL;
  pte_tensor *zo = so ? pte_k_arg_tensor(ctx, args, nargs, 3) : NULL;
  int64_t dtype;
  if (!zo || !pte_k_arg_int(ctx, args, nargs, 1, &dtype)) return;
  if (in->dtype != PTE_DTYPE_FLOAT || so->dtype != PTE_DTYPE_DOUBLE || zo->dtype != PTE_DTYPE_LONG) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT,
                    "input must be float32, scale_out float64 and zero_point_out int64");
    return;
  }
  if (in->dim < 1 || so->dim != in->dim || zo->dim != in->dim) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT,
                    "input must have rank >= 1 and scale_out / zero_point_out its rank (%d)", (int)in->dim);
    return;
  }
  int32_t osz[PTE_MAX_RANK];
  for (int32_t d = 0; d < in->dim; d++) osz[d] = in->sizes[d];
  osz[in->dim - 1] = 1;
  if (!pte_k_resize_out(ctx, so, osz, in->dim) || !pte_k_resize_out(ctx, zo, osz, in->dim)) return;
  const size_t tok = (size_t)in->sizes[in->dim - 1];
  if (tok == 0 && in->numel == 0 && so->numel > 0) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "tokens of input are empty");
    return;
  }
  if (!pte_k_check_data(ctx, in, "input")) return;
  for (size_t t = 0; t < so->numel; t++) {
    double scale;
    int64_t zp;
    choose(in, t * tok, tok, -128, 127, &scale, &zp);
    ((double *)so->data)[pte_k_offset_of_linear(so, t)] = scale;
    ((int64_t *)zo->data)[pte_k_offset_of_linear(zo, t)] = zp;
  }
  pte_nn_set_returns(args, nargs, 2, 2);
}

const pte_kernel pte_q_choose_qparams_kernels[] = {
    {"quantized_decomposed::choose_qparams.Tensor_out", NULL, q_choose_qparams_tensor},
    {"quantized_decomposed::choose_qparams_per_token_asymmetric.out", NULL, q_choose_qparams_per_token},
};
const size_t pte_q_choose_qparams_kernels_count =
    sizeof pte_q_choose_qparams_kernels / sizeof pte_q_choose_qparams_kernels[0];
