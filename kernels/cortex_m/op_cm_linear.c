/* cortex_m int8 matrix kernels (CMSIS-NN arm_fully_connected_s8 / arm_batch_matmul_s8):
 *
 *   cortex_m::quantized_linear.out(Tensor input, Tensor weights, Tensor? bias, Tensor? kernel_sum,
 *       int input_offset, int filter_offset, int output_offset, int[] requantize_multipliers,
 *       int[] requantize_shifts, int activation_max, int activation_min, *, Tensor(a!) out)
 *     input [..., K] int8, weights [N, K] int8, bias [N] int32, kernel_sum [N] int32;
 *     out [..., N] int8. For each row x of input and output feature o:
 *       without kernel_sum: acc = bias[o] + sum_k (x[k] + input_offset) * (w[o][k] + filter_offset)
 *       with kernel_sum (CMSIS MVE contract, bias ignored):
 *                           acc = kernel_sum[o] + sum_k x[k] * w[o][k] + filter_offset * sum_k x[k]
 *       y = clamp(requantize(acc, M, S) + output_offset, activation_min, activation_max)
 *     M, S: requantize_multipliers[0], requantize_shifts[0] (per tensor), or one per output
 *     feature when the lists have N entries. Note activation_max comes before activation_min.
 *
 *   cortex_m::quantized_batch_matmul.out(Tensor lhs, int lhs_zero_point, Tensor rhs_transposed,
 *       int rhs_zero_point, int output_zero_point, int output_multiplier, int output_shift,
 *       Tensor scratch, *, Tensor(a!) out)
 *     lhs [B, M, K], rhs_transposed [B, N, K], out [B, M, N], all int8. The "zero points" are
 *     CMSIS offsets and are ADDED (the lowering passes the negated zero point):
 *       y = clamp(requantize(sum_k (l[k] + lhs_zp) * (r[k] + rhs_zp), M, S) + output_zp, -128, 127)
 *     The older form without the scratch tensor is accepted too.
 *
 * Accumulators are int32 with wrap-around, as on the target. Any dim order.
 */
#include "cortex_m/cm_internal.h"
#include "cortex_m/cm_ops.h"
#include "cortex_m/cm_simd.h"
#include "portable/util/kutil.h"

static bool read_requant_list(pte_kernel_context *ctx, pte_evalue **args, size_t nargs,
                              size_t i, int64_t n_out, const int64_t **v, size_t *len,
                              const char *what) {
  *v = pte_k_arg_int_list(ctx, args, nargs, i, len);
  if (!*v) return false;
  if (*len != 1 && (int64_t)*len != n_out) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "%s must have 1 or %lld entries, got %zu", what,
                    (long long)n_out, *len);
    return false;
  }
  return true;
}

/* The SIMD path of quantized_linear (cm_simd.h) for contiguous input, weights and out:
 *   (x + i)(w + f) summed = sum x w + i sum w + f sum x + K i f        (without kernel_sum)
 *   kernel_sum + sum x w + f sum x                                     (with kernel_sum)
 * the per-row terms go to row_add, output features in chunks of CM_LIN_OCB, rows in chunks of
 * CM_LIN_ROWS (their parameter copies live on the stack: small chunks on microcontrollers). */
#if defined(__arm__) || defined(__thumb__)
#define CM_LIN_OCB 32
#define CM_LIN_ROWS 16
#else
#define CM_LIN_OCB PTE_CM_SIMD_NMAX
#define CM_LIN_ROWS 64
#endif
static bool linear_simd(pte_kernel_context *ctx, const pte_tensor *in, const pte_tensor *w,
                        const pte_tensor *bias, const pte_tensor *ksum, pte_tensor *out,
                        int32_t in_off, int32_t f_off, const int64_t *mults,
                        const int64_t *shifts, size_t nm, int32_t out_off, int32_t act_min,
                        int32_t act_max) {
  const int64_t K = in->sizes[in->dim - 1], N = w->sizes[0];
  if (pte_cm_simd_active() == PTE_CM_ISA_PORTABLE || K <= 0 || K > PTE_CM_SIMD_KMAX ||
      !pte_k_is_contiguous(in) || !pte_k_is_contiguous(w) || !pte_k_is_contiguous(out) ||
      in->numel / (size_t)K != out->numel / (size_t)N)
    return false;
  const int64_t rows = (int64_t)(in->numel / (size_t)K);
  const int8_t *x = (const int8_t *)in->data;
  int32_t b[CM_LIN_OCB], m[CM_LIN_OCB], s[CM_LIN_OCB], radd[CM_LIN_ROWS];
  pte_cm_gemm g;
  g.K = K;
  g.in_off = ksum ? 0 : in_off;
  g.out_off = out_off;
  g.act_min = act_min;
  g.act_max = act_max;
  g.bias = b;
  g.mult = m;
  g.shift = s;
  g.row_add = radd;
  g.xs = K;
  g.ys = N;
  g.scratch = pte_cm_gemm_scratch(ctx);
  const uint32_t kif = (uint32_t)K * (uint32_t)in_off * (uint32_t)f_off;
  for (int64_t o0 = 0; o0 < N; o0 += CM_LIN_OCB) {
    const int64_t no = N - o0 < CM_LIN_OCB ? N - o0 : CM_LIN_OCB;
    for (int64_t o = 0; o < no; o++) {
      const pte_tensor *bt = ksum ? ksum : bias;
      b[o] = bt ? pte_cm_param_at(bt, o0 + o) : 0;
      m[o] = (int32_t)mults[nm == 1 ? 0 : (size_t)(o0 + o)];
      s[o] = (int32_t)shifts[nm == 1 ? 0 : (size_t)(o0 + o)];
    }
    g.w = (const int8_t *)w->data + o0 * K;
    g.OC = no;
    for (int64_t r0 = 0; r0 < rows; r0 += CM_LIN_ROWS) {
      const int64_t nr = rows - r0 < CM_LIN_ROWS ? rows - r0 : CM_LIN_ROWS;
      for (int64_t r = 0; r < nr; r++) {
        const int8_t *xr = x + (r0 + r) * K;
        uint32_t xsum = 0;
        for (int64_t k = 0; k < K; k++) xsum += (uint32_t)(int32_t)xr[k];
        uint32_t v = xsum * (uint32_t)f_off;
        if (!ksum) v += kif;
        radd[r] = pte_cm_wrap32((int64_t)v);
      }
      g.x = x + r0 * K;
      g.P = nr;
      g.y = (int8_t *)out->data + r0 * N + o0;
      if (!pte_cm_simd_gemm(&g)) return false;
    }
  }
  return true;
}

static void cm_quantized_linear(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  if (!pte_cm_check_nargs(ctx, nargs, 12)) return;
  bool ok_b = true, ok_k = true;
  pte_tensor *in = pte_cm_tensor_of(ctx, args, nargs, 0, PTE_DTYPE_CHAR, "input");
  pte_tensor *w = pte_cm_tensor_of(ctx, args, nargs, 1, PTE_DTYPE_CHAR, "weights");
  pte_tensor *bias = pte_cm_opt_tensor_of(ctx, args, nargs, 2, PTE_DTYPE_INT, "bias", &ok_b);
  pte_tensor *ksum = pte_cm_opt_tensor_of(ctx, args, nargs, 3, PTE_DTYPE_INT, "kernel_sum", &ok_k);
  pte_tensor *out = pte_cm_tensor_of(ctx, args, nargs, 11, PTE_DTYPE_CHAR, "out");
  if (!in || !w || !ok_b || !ok_k || !out) return;
  int64_t in_off, f_off, out_off, act_max, act_min;
  if (!pte_k_arg_int(ctx, args, nargs, 4, &in_off) || !pte_k_arg_int(ctx, args, nargs, 5, &f_off) ||
      !pte_k_arg_int(ctx, args, nargs, 6, &out_off) ||
      !pte_k_arg_int(ctx, args, nargs, 9, &act_max) || !pte_k_arg_int(ctx, args, nargs, 10, &act_min))
    return;
  if (in->dim < 1 || w->dim != 2) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "input must have rank >= 1 and weights rank 2");
    return;
  }
  const int64_t K = in->sizes[in->dim - 1], N = w->sizes[0];
  if (w->sizes[1] != K) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "weights are [%lld, %lld], input has %lld features",
                    (long long)N, (long long)w->sizes[1], (long long)K);
    return;
  }
  if ((bias && (int64_t)bias->numel != N) || (ksum && (int64_t)ksum->numel != N)) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "bias / kernel_sum must have %lld entries",
                    (long long)N);
    return;
  }
  if (in_off < -255 || in_off > 255 || f_off < -255 || f_off > 255 || out_off < -255 ||
      out_off > 255) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "offsets must be within [-255, 255]");
    return;
  }
  if (!pte_cm_check_act(ctx, act_min, act_max)) return;
  const int64_t *mults, *shifts;
  size_t nm, ns;
  if (!read_requant_list(ctx, args, nargs, 7, N, &mults, &nm, "requantize_multipliers") ||
      !read_requant_list(ctx, args, nargs, 8, N, &shifts, &ns, "requantize_shifts"))
    return;
  if (nm != ns) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "multipliers and shifts differ in length");
    return;
  }
  for (size_t k = 0; k < nm; k++)
    if (!pte_cm_check_requant(ctx, mults[k], shifts[k], 31, "requantize")) return;

  int32_t osizes[PTE_MAX_RANK];
  for (int32_t d = 0; d < in->dim - 1; d++) osizes[d] = in->sizes[d];
  osizes[in->dim - 1] = (int32_t)N;
  if (!pte_cm_resize(ctx, out, osizes, in->dim)) return;
  if (out->numel == 0) {
    pte_cm_set_return(args, nargs, 11);
    return;
  }
  if (linear_simd(ctx, in, w, bias, ksum, out, (int32_t)in_off, (int32_t)f_off, mults, shifts, nm,
                  (int32_t)out_off, (int32_t)act_min, (int32_t)act_max)) {
    pte_cm_set_return(args, nargs, 11);
    return;
  }
  const int64_t rows = (int64_t)(in->numel / (size_t)(K > 0 ? K : 1));
  const int64_t rows_out = (int64_t)(out->numel / (size_t)N);
  const int8_t *x = (const int8_t *)in->data, *wd = (const int8_t *)w->data;
  int8_t *y = (int8_t *)out->data;
  const int64_t sk = in->strides[in->dim - 1], sw0 = w->strides[0], sw1 = w->strides[1];
  const int64_t so = out->strides[out->dim - 1];
  for (int64_t r = 0; r < rows_out; r++) {
    const int64_t xbase = K > 0 && r < rows ? pte_k_offset_of_linear(in, (size_t)(r * K)) : 0;
    const int64_t ybase = pte_k_offset_of_linear(out, (size_t)(r * N));
    int64_t xsum = 0;
    if (ksum)
      for (int64_t k = 0; k < K; k++) xsum += x[xbase + k * sk];
    for (int64_t o = 0; o < N; o++) {
      const int8_t *wr = wd + o * sw0;
      int64_t acc = 0;
      if (ksum) {
        for (int64_t k = 0; k < K; k++) acc += (int32_t)x[xbase + k * sk] * (int32_t)wr[k * sw1];
        acc += f_off * xsum + pte_cm_param_at(ksum, o);
      } else {
        if (sk == 1 && sw1 == 1) {
          const int8_t *xr = x + xbase;
          int32_t part = 0; /* |term| <= 255 * 255: 2^15 terms fit int32 */
          for (int64_t k = 0; k < K; k++) {
            part += ((int32_t)xr[k] + (int32_t)in_off) * ((int32_t)wr[k] + (int32_t)f_off);
            if ((k & 0x7FFF) == 0x7FFF) {
              acc += part;
              part = 0;
            }
          }
          acc += part;
        } else {
          for (int64_t k = 0; k < K; k++)
            acc += ((int32_t)x[xbase + k * sk] + in_off) * ((int32_t)wr[k * sw1] + f_off);
        }
        if (bias) acc += pte_cm_param_at(bias, o);
      }
      const size_t q = nm == 1 ? 0 : (size_t)o;
      int32_t v = pte_cm_requantize(pte_cm_wrap32(acc), (int32_t)mults[q], (int32_t)shifts[q]);
      v = pte_cm_add32(v, (int32_t)out_off);
      y[ybase + o * so] = (int8_t)pte_cm_clamp32(v, (int32_t)act_min, (int32_t)act_max);
    }
  }
  pte_cm_set_return(args, nargs, 11);
}

static void cm_quantized_batch_matmul(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  /* 9 schema args (with scratch) or 8 (older form); + optional return alias. */
  size_t out_idx;
  if (nargs == 10) {
    out_idx = 8;
  } else if (nargs == 8) {
    out_idx = 7;
  } else if (nargs == 9) {
    const bool same = args[7] && args[8] &&
                      (args[7] == args[8] ||
                       (args[7]->tag == PTE_TAG_TENSOR && args[8]->tag == PTE_TAG_TENSOR &&
                        args[7]->u.tensor == args[8]->u.tensor));
    out_idx = same ? 7 : 8;
  } else {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "expected 9 or 10 arguments, got %zu", nargs);
    return;
  }
  pte_tensor *l = pte_cm_tensor_of(ctx, args, nargs, 0, PTE_DTYPE_CHAR, "lhs");
  pte_tensor *r = pte_cm_tensor_of(ctx, args, nargs, 2, PTE_DTYPE_CHAR, "rhs_transposed");
  pte_tensor *out = pte_cm_tensor_of(ctx, args, nargs, out_idx, PTE_DTYPE_CHAR, "out");
  if (!l || !r || !out) return;
  if (out_idx == 8 && !pte_k_arg_tensor(ctx, args, nargs, 7)) return;
  int64_t loff, roff, ooff, m, s;
  if (!pte_k_arg_int(ctx, args, nargs, 1, &loff) || !pte_k_arg_int(ctx, args, nargs, 3, &roff) ||
      !pte_k_arg_int(ctx, args, nargs, 4, &ooff) || !pte_k_arg_int(ctx, args, nargs, 5, &m) ||
      !pte_k_arg_int(ctx, args, nargs, 6, &s))
    return;
  if (loff < -255 || loff > 255 || roff < -255 || roff > 255 || ooff < -255 || ooff > 255) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "offsets must be within [-255, 255]");
    return;
  }
  if (!pte_cm_check_requant(ctx, m, s, 31, "output")) return;
  if (l->dim != 3 || r->dim != 3) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "lhs and rhs_transposed must be 3-D");
    return;
  }
  const int64_t B = l->sizes[0], M = l->sizes[1], K = l->sizes[2], N = r->sizes[1];
  if (r->sizes[0] != B || r->sizes[2] != K) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "batch / inner dimensions do not match");
    return;
  }
  const int32_t osz[3] = {(int32_t)B, (int32_t)M, (int32_t)N};
  if (!pte_cm_resize(ctx, out, osz, 3)) return;
  const int8_t *ld = (const int8_t *)l->data, *rd = (const int8_t *)r->data;
  int8_t *od = (int8_t *)out->data;
  for (int64_t b = 0; b < B; b++)
    for (int64_t i = 0; i < M; i++)
      for (int64_t j = 0; j < N; j++) {
        int64_t acc = 0;
        const int8_t *lp = ld + b * l->strides[0] + i * l->strides[1];
        const int8_t *rp = rd + b * r->strides[0] + j * r->strides[1];
        for (int64_t k = 0; k < K; k++)
          acc += ((int32_t)lp[k * l->strides[2]] + loff) * ((int32_t)rp[k * r->strides[2]] + roff);
        int32_t v = pte_cm_requantize(pte_cm_wrap32(acc), (int32_t)m, (int32_t)s);
        v = pte_cm_add32(v, (int32_t)ooff);
        od[b * out->strides[0] + i * out->strides[1] + j * out->strides[2]] =
            (int8_t)pte_cm_clamp32(v, -128, 127);
      }
  pte_cm_set_return(args, nargs, out_idx);
}

const pte_kernel pte_cm_linear_kernels[] = {
    {"cortex_m::quantized_linear.out", NULL, cm_quantized_linear},
    {"cortex_m::quantized_batch_matmul.out", NULL, cm_quantized_batch_matmul},
};
const size_t pte_cm_linear_kernels_count =
    sizeof pte_cm_linear_kernels / sizeof pte_cm_linear_kernels[0];
