/* cortex_m int8 softmax (CMSIS-NN arm_softmax_s8, TFLite Micro bit-exact):
 *
 *   cortex_m::softmax.out(Tensor input, int dim, int input_zero_point, int output_zero_point,
 *       int input_multiplier, int input_shift, int diff_min, *, Tensor(a!) out)
 *
 * Only the last dimension (dim == -1 or rank-1). output_zero_point must be -128 (the output scale
 * is 1/256). Per row with max m:
 *   d = x - m; if d < diff_min the output is -128, else
 *   e = exp_on_negative(dhm_sat(d * 2^input_shift, input_multiplier))   (Q0.31)
 *   sum = sum_d rdiv2(e, 12); h = clz(sum); s = one_over_one_plus_x((sum << h) - 2^31)
 *   y = clamp(rdiv2(dhm_sat(s, e), 35 - h) - 128, -128, 127)
 * with the helpers of cm_internal.h. input_zero_point cancels out and is only range-checked.
 */
#include "cortex_m/cm_internal.h"
#include "cortex_m/cm_ops.h"
#include "cortex_m/cm_simd.h"
#include "portable/util/kutil.h"

#define CM_SOFTMAX_ACCUM_BITS 12

static int clz32(uint32_t v) {
  if (v == 0) return 32;
  int n = 0;
  while (!(v & 0x80000000u)) {
    v <<= 1;
    n++;
  }
  return n;
}

static void cm_softmax(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  if (!pte_cm_check_nargs(ctx, nargs, 8)) return;
  pte_tensor *in = pte_cm_tensor_of(ctx, args, nargs, 0, PTE_DTYPE_CHAR, "input");
  pte_tensor *out = pte_cm_tensor_of(ctx, args, nargs, 7, PTE_DTYPE_CHAR, "out");
  if (!in || !out) return;
  int64_t dim, in_zp, out_zp, mult, shift, diff_min;
  if (!pte_k_arg_int(ctx, args, nargs, 1, &dim) || !pte_k_arg_int(ctx, args, nargs, 2, &in_zp) ||
      !pte_k_arg_int(ctx, args, nargs, 3, &out_zp) || !pte_k_arg_int(ctx, args, nargs, 4, &mult) ||
      !pte_k_arg_int(ctx, args, nargs, 5, &shift) || !pte_k_arg_int(ctx, args, nargs, 6, &diff_min))
    return;
  if (in->dim < 1) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "softmax needs rank >= 1");
    return;
  }
  const int64_t nd = dim < 0 ? dim + in->dim : dim;
  if (nd != in->dim - 1) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT,
                    "only last-dimension softmax is supported (dim=%lld, rank=%d)",
                    (long long)dim, (int)in->dim);
    return;
  }
  if (out_zp != -128) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "output zero_point must be -128, got %lld",
                    (long long)out_zp);
    return;
  }
  if (!pte_cm_check_zp(ctx, in_zp, "input_zero_point")) return;
  if (mult < INT32_MIN || mult > INT32_MAX || shift < 0 || shift > 31 || diff_min < INT32_MIN ||
      diff_min > INT32_MAX) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT,
                    "input_multiplier must fit int32, input_shift be in [0, 31]");
    return;
  }
  if (!pte_cm_resize(ctx, out, in->sizes, in->dim)) return;
  const int64_t row = in->sizes[in->dim - 1];
  if (row == 0 || in->numel == 0) {
    pte_cm_set_return(args, nargs, 7);
    return;
  }
  const int64_t rows = (int64_t)in->numel / row;
  const int64_t si = in->strides[in->dim - 1], so = out->strides[out->dim - 1];
  const int8_t *x = (const int8_t *)in->data;
  int8_t *y = (int8_t *)out->data;
  const int32_t m = (int32_t)mult, dmin = (int32_t)diff_min;
  const int32_t mask = pte_cm_shl32(1, (int)shift);

  for (int64_t r = 0; r < rows; r++) {
    const int8_t *xr = x + pte_k_offset_of_linear(in, (size_t)(r * row));
    int8_t *yr = y + pte_k_offset_of_linear(out, (size_t)(r * row));
    if (si == 1 && so == 1) {
      const pte_cm_softmax sm = {xr, yr, row, m, mask, dmin};
      if (pte_cm_simd_softmax(&sm)) continue; /* cm_simd.h */
    }
    int8_t mx = xr[0];
    for (int64_t c = 1; c < row; c++)
      if (xr[c * si] > mx) mx = xr[c * si];
    int32_t sum = 0;
    for (int64_t c = 0; c < row; c++) {
      const int32_t d = (int32_t)xr[c * si] - mx;
      if (d >= dmin)
        sum = pte_cm_add32(sum, pte_cm_div_pow2(pte_cm_exp_on_negative_values(
                                                    pte_cm_dhm_sat(pte_cm_mul32(d, mask), m)),
                                                CM_SOFTMAX_ACCUM_BITS));
    }
    const int headroom = clz32((uint32_t)sum);
    const uint32_t shifted = sum > 0 ? ((uint32_t)sum << headroom) : 0u;
    const int32_t shifted_scale =
        pte_cm_one_over_one_plus_x_for_x_in_0_1(pte_cm_wrap32((int64_t)shifted - 2147483648LL));
    const int bits_over_unit = CM_SOFTMAX_ACCUM_BITS - headroom + 23;
    for (int64_t c = 0; c < row; c++) {
      const int32_t d = (int32_t)xr[c * si] - mx;
      int32_t res = -128;
      if (d >= dmin) {
        const int32_t e = pte_cm_exp_on_negative_values(pte_cm_dhm_sat(pte_cm_mul32(d, mask), m));
        res = pte_cm_add32(pte_cm_div_pow2(pte_cm_dhm_sat(shifted_scale, e), bits_over_unit), -128);
        res = pte_cm_clamp32(res, -128, 127);
      }
      yr[c * so] = (int8_t)res;
    }
  }
  pte_cm_set_return(args, nargs, 7);
}

const pte_kernel pte_cm_softmax_kernels[] = {
    {"cortex_m::softmax.out", NULL, cm_softmax},
};
const size_t pte_cm_softmax_kernels_count =
    sizeof pte_cm_softmax_kernels / sizeof pte_cm_softmax_kernels[0];
