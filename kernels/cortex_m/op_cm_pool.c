/* cortex_m int8 2-D pooling (CMSIS-NN arm_avgpool_s8 / arm_max_pool_s8 arithmetic):
 *
 *   cortex_m::quantized_avg_pool2d.out(Tensor input, int[] kernel_size, int[] stride,
 *       int[] padding, bool ceil_mode, int zero_point, int multiplier, int shift, Tensor scratch,
 *       *, Tensor(a!) out)
 *     (the older form without ceil_mode and scratch is accepted too)
 *     Average over the window taps inside the input (padding is not counted), rounded to
 *     nearest with ties away from zero: sum > 0 ? (sum + cnt/2) / cnt : (sum - cnt/2) / cnt
 *     (C division truncating toward zero), clamped to [-128, 127]. Input and output share their
 *     quantization, so zero_point / multiplier / shift do not enter the arithmetic.
 *     OH = (H + 2 ph - kh) / sh + 1; with ceil_mode one more window when the division has a
 *     remainder, dropped again if it would start at or after H + ph.
 *   cortex_m::quantized_max_pool2d.out(Tensor input, int[] kernel_size, int[] stride,
 *       int[] padding, int[] dilation, bool ceil_mode, int input_zero_point,
 *       int output_zero_point, int activation_min, int activation_max, *, Tensor(a!) out)
 *     Maximum over the taps inside the input, clamped to [activation_min, activation_max].
 *     dilation must be 1, ceil_mode false and the two zero points equal (as upstream).
 *
 * input / out are [N, C, H, W] int8 in any dim order (normally channels-last); any batch size.
 * Padding may be at most half the kernel (every window then holds at least one input tap).
 */
#include "cortex_m/cm_internal.h"
#include "cortex_m/cm_ops.h"
#include "cortex_m/cm_simd.h"
#include "portable/util/kutil.h"

typedef struct pool_args {
  pte_tensor *in, *out;
  int64_t k[2], s[2], p[2];
  bool ceil_mode;
} pool_args;

static bool read_pool_common(pte_kernel_context *ctx, pte_evalue **args, size_t nargs,
                             size_t out_idx, pool_args *a) {
  a->in = pte_cm_tensor_of(ctx, args, nargs, 0, PTE_DTYPE_CHAR, "input");
  a->out = a->in ? pte_cm_tensor_of(ctx, args, nargs, out_idx, PTE_DTYPE_CHAR, "out") : NULL;
  if (!a->in || !a->out) return false;
  if (!pte_cm_int_list_n(ctx, args, nargs, 1, 2, 1, INT32_MAX, a->k, "kernel_size") ||
      !pte_cm_int_list_n(ctx, args, nargs, 2, 2, 1, INT32_MAX, a->s, "stride") ||
      !pte_cm_int_list_n(ctx, args, nargs, 3, 2, 0, INT32_MAX, a->p, "padding"))
    return false;
  if (a->in->dim != 4) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "pooling input must be 4-D");
    return false;
  }
  for (int d = 0; d < 2; d++) {
    if (a->p[d] > a->k[d] / 2) {
      pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT,
                      "padding %lld must be at most half the kernel size %lld", (long long)a->p[d],
                      (long long)a->k[d]);
      return false;
    }
  }
  return true;
}

static int64_t pool_out(int64_t in, int64_t k, int64_t s, int64_t p, bool ceil_mode) {
  const int64_t num = in + 2 * p - k;
  if (num < 0) return -1;
  int64_t o = num / s + 1;
  if (ceil_mode && num % s != 0) o++;
  if (ceil_mode && (o - 1) * s >= in + p) o--;
  return o;
}

/* Runs the window loop; is_max selects max (with clamp) or average. */
static bool run_pool(pte_kernel_context *ctx, pool_args *a, bool is_max, int32_t lo, int32_t hi) {
  const int64_t N = a->in->sizes[0], C = a->in->sizes[1], H = a->in->sizes[2], W = a->in->sizes[3];
  const int64_t OH = pool_out(H, a->k[0], a->s[0], a->p[0], a->ceil_mode);
  const int64_t OW = pool_out(W, a->k[1], a->s[1], a->p[1], a->ceil_mode);
  if (OH < 0 || OW < 0) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "kernel larger than the padded input");
    return false;
  }
  const int32_t osz[4] = {(int32_t)N, (int32_t)C, (int32_t)OH, (int32_t)OW};
  if (!pte_cm_resize(ctx, a->out, osz, 4)) return false;
  const int8_t *x = (const int8_t *)a->in->data;
  int8_t *y = (int8_t *)a->out->data;
  /* SIMD over the channels of channels-last dense tensors (cm_simd.h) */
  const bool simd = pte_cm_simd_active() != PTE_CM_ISA_PORTABLE && pte_cm_is_nhwc_dense(a->in) &&
                    pte_cm_is_nhwc_dense(a->out) && a->k[0] * a->k[1] <= (1 << 20);
  for (int64_t n = 0; n < N; n++)
    for (int64_t oy = 0; oy < OH; oy++)
      for (int64_t ox = 0; ox < OW; ox++) {
        const int64_t y0 = oy * a->s[0] - a->p[0], x0 = ox * a->s[1] - a->p[1];
        const int64_t ys = y0 < 0 ? 0 : y0, ye = y0 + a->k[0] < H ? y0 + a->k[0] : H;
        const int64_t xs = x0 < 0 ? 0 : x0, xe = x0 + a->k[1] < W ? x0 + a->k[1] : W;
        const int64_t cnt = (ye - ys) * (xe - xs);
        if (cnt <= 0) {
          pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "pooling window outside the input");
          return false;
        }
        if (simd) {
          const pte_cm_pool pp = {x + n * H * W * C, W * C, C, ys, ye, xs, xe, is_max, lo, hi,
                                  y + ((n * OH + oy) * OW + ox) * C};
          if (pte_cm_simd_pool(&pp)) continue;
        }
        for (int64_t c = 0; c < C; c++) {
          int32_t v;
          if (is_max) {
            int32_t m = -128;
            for (int64_t iy = ys; iy < ye; iy++)
              for (int64_t ix = xs; ix < xe; ix++) {
                const int32_t t = x[pte_cm_off4(a->in, n, c, iy, ix)];
                if (t > m) m = t;
              }
            v = pte_cm_clamp32(m, lo, hi);
          } else {
            int64_t sum = 0;
            for (int64_t iy = ys; iy < ye; iy++)
              for (int64_t ix = xs; ix < xe; ix++) sum += x[pte_cm_off4(a->in, n, c, iy, ix)];
            const int64_t half = cnt / 2;
            v = (int32_t)(sum > 0 ? (sum + half) / cnt : (sum - half) / cnt);
            v = pte_cm_clamp32(v, -128, 127);
          }
          y[pte_cm_off4(a->out, n, c, oy, ox)] = (int8_t)v;
        }
      }
  return true;
}

static void cm_avg_pool2d(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  /* newest: input, kernel, stride, padding, ceil_mode, zp, mult, shift, scratch, out (10)
   * older:  input, kernel, stride, padding, zp, mult, shift, out (8) */
  bool newer;
  if (nargs == 10 || nargs == 11) {
    newer = true;
  } else if (nargs == 8 || nargs == 9) {
    newer = false;
  } else {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "expected 10 or 11 arguments, got %zu", nargs);
    return;
  }
  const size_t out_idx = newer ? 9 : 7;
  pool_args a;
  if (!read_pool_common(ctx, args, nargs, out_idx, &a)) return;
  a.ceil_mode = false;
  const size_t q = newer ? 5 : 4;
  if (newer && !pte_k_arg_bool(ctx, args, nargs, 4, &a.ceil_mode)) return;
  int64_t zp, mult, shift;
  if (!pte_k_arg_int(ctx, args, nargs, q, &zp) || !pte_k_arg_int(ctx, args, nargs, q + 1, &mult) ||
      !pte_k_arg_int(ctx, args, nargs, q + 2, &shift))
    return;
  if (newer && !pte_k_arg_tensor(ctx, args, nargs, 8)) return;
  if (!pte_cm_check_zp(ctx, zp, "zero_point")) return;
  if (!run_pool(ctx, &a, false, -128, 127)) return;
  pte_cm_set_return(args, nargs, out_idx);
}

static void cm_max_pool2d(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  if (!pte_cm_check_nargs(ctx, nargs, 11)) return;
  pool_args a;
  if (!read_pool_common(ctx, args, nargs, 10, &a)) return;
  int64_t dil[2], in_zp, out_zp, amin, amax;
  if (!pte_cm_int_list_n(ctx, args, nargs, 4, 2, 1, INT32_MAX, dil, "dilation") ||
      !pte_k_arg_bool(ctx, args, nargs, 5, &a.ceil_mode) ||
      !pte_k_arg_int(ctx, args, nargs, 6, &in_zp) || !pte_k_arg_int(ctx, args, nargs, 7, &out_zp) ||
      !pte_k_arg_int(ctx, args, nargs, 8, &amin) || !pte_k_arg_int(ctx, args, nargs, 9, &amax))
    return;
  if (dil[0] != 1 || dil[1] != 1) {
    pte_kernel_fail(ctx, PTE_ERR_NOT_SUPPORTED, "quantized_max_pool2d supports dilation 1 only");
    return;
  }
  if (a.ceil_mode) {
    pte_kernel_fail(ctx, PTE_ERR_NOT_SUPPORTED, "quantized_max_pool2d does not support ceil_mode");
    return;
  }
  if (!pte_cm_check_zp(ctx, in_zp, "input_zero_point") ||
      !pte_cm_check_zp(ctx, out_zp, "output_zero_point"))
    return;
  if (in_zp != out_zp) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "input and output zero points must match");
    return;
  }
  if (!pte_cm_check_act(ctx, amin, amax)) return;
  if (!run_pool(ctx, &a, true, (int32_t)amin, (int32_t)amax)) return;
  pte_cm_set_return(args, nargs, 10);
}

const pte_kernel pte_cm_pool_kernels[] = {
    {"cortex_m::quantized_avg_pool2d.out", NULL, cm_avg_pool2d},
    {"cortex_m::quantized_max_pool2d.out", NULL, cm_max_pool2d},
};
const size_t pte_cm_pool_kernels_count = sizeof pte_cm_pool_kernels / sizeof pte_cm_pool_kernels[0];
