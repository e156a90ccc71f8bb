/* cortex_m int8 convolutions (CMSIS-NN arm_convolve_wrapper_s8 / arm_depthwise_conv_wrapper_s8 /
 * arm_transpose_conv_wrapper_s8 arithmetic):
 *
 *   cortex_m::quantized_conv2d.out(Tensor input, Tensor weight, Tensor? bias, int[] stride,
 *       int[] padding, int[] dilation, int input_offset, int output_offset,
 *       Tensor requantize_multipliers, Tensor requantize_shifts, int activation_min,
 *       int activation_max, Tensor scratch, *, Tensor(a!) out)
 *     input [N, C, H, W] (logical; normally channels-last in memory), weight OHWI
 *     [OC, KH, KW, C / groups] (groups = C / weight.size(3)), bias [OC] int32,
 *     out [N, OC, OH, OW] with OH = (H + 2 ph - dh (KH - 1) - 1) / sh + 1.
 *       acc = bias[oc] + sum_{ky,kx,ic} (x[n, g*Cg + ic, iy, ix] + input_offset) * w[oc, ky, kx, ic]
 *       over taps inside the input (padding contributes nothing, i.e. pads with the zero point),
 *       y = clamp(requantize(acc, mult[oc], shift[oc]) + output_offset, act_min, act_max).
 *   cortex_m::quantized_depthwise_conv2d.out(Tensor input, Tensor weight, Tensor? bias,
 *       int[] stride, int[] padding, int[] dilation, int depth_multiplier, int input_offset,
 *       int output_offset, Tensor requantize_multipliers, Tensor requantize_shifts,
 *       int activation_min, int activation_max, Tensor scratch, *, Tensor(a!) out)
 *     weight IHWO [1, KH, KW, OC], OC = C * depth_multiplier, out channel oc reads input
 *     channel oc / depth_multiplier; same accumulation / requantization.
 *   cortex_m::quantized_transpose_conv2d.out(Tensor input, Tensor weight, Tensor? bias,
 *       int[] stride, int[] padding, int[] output_padding, int[] dilation, int input_offset,
 *       int output_offset, Tensor requantize_multipliers, Tensor requantize_shifts,
 *       int activation_min, int activation_max, Tensor scratch, Tensor output_scratch, *,
 *       Tensor(a!) out)
 *     weight OHWI [OC, KH, KW, C] (groups 1), out [N, OC, OH, OW] with
 *     OH = (H - 1) sh - 2 ph + dh (KH - 1) + oph + 1; input pixel (iy, ix) feeds output
 *     (iy sh - ph + ky dh, ix sw - pw + kx dw) — torch.nn.functional.conv_transpose2d, which is
 *     what the lowering's reference implementation computes.
 *
 * The scratch tensors are CMSIS-NN work buffers; these portable kernels need none and ignore
 * them (older forms of the three schemas without the scratch arguments are accepted too).
 * Accumulation is int32 with wrap-around as on the target. Any batch size; any dim order for
 * input, weight and out (a unit-stride inner loop is used when channels are innermost).
 */
#include <string.h>

#include "cortex_m/cm_internal.h"
#include "cortex_m/cm_ops.h"
#include "cortex_m/cm_simd.h"
#include "portable/util/kutil.h"

/* Resolves where `out` is for a schema of n_base arguments (inputs + out, without the trailing
 * scratch tensors) that gained n_scratch scratch tensors before out in newer versions. Returns
 * the out index or -1 (failure recorded). */
static int resolve_out(pte_kernel_context *ctx, pte_evalue **args, size_t nargs, size_t n_base,
                       size_t n_scratch) {
  const size_t n_new = n_base + n_scratch;
  if (nargs == n_new || nargs == n_new + 1) return (int)n_new - 1;
  if (nargs == n_base) return (int)n_base - 1;
  if (nargs == n_base + 1) {
    /* older form + return alias, unless (n_scratch == 1) the newer form without one */
    if (n_scratch != 1) return (int)n_base - 1;
    const pte_evalue *a = args[n_base - 1], *b = args[n_base];
    const bool same = a && b &&
                      (a == b || (a->tag == PTE_TAG_TENSOR && b->tag == PTE_TAG_TENSOR &&
                                  a->u.tensor == b->u.tensor));
    return same ? (int)n_base - 1 : (int)n_base;
  }
  pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "expected %zu or %zu arguments, got %zu", n_new,
                  n_new + 1, nargs);
  return -1;
}

typedef struct conv_args {
  pte_tensor *in, *w, *bias, *out, *mults, *shifts;
  int64_t stride[2], pad[2], dil[2], opad[2];
  int32_t in_off, out_off, act_min, act_max;
  int64_t depth_mult;
} conv_args;

/* Reads the arguments common to the three convolutions. Positions: input 0, weight 1, bias 2,
 * stride 3, padding 4, then `extra` (output_padding or depth_multiplier) when has_extra, then
 * dilation, input_offset, output_offset, multipliers, shifts, act_min, act_max. */
static bool read_conv_args(pte_kernel_context *ctx, pte_evalue **args, size_t nargs, int out_idx,
                           bool transposed, bool depthwise, conv_args *c) {
  bool ok = true;
  c->in = pte_cm_tensor_of(ctx, args, nargs, 0, PTE_DTYPE_CHAR, "input");
  c->w = c->in ? pte_cm_tensor_of(ctx, args, nargs, 1, PTE_DTYPE_CHAR, "weight") : NULL;
  c->bias = c->w ? pte_cm_opt_tensor_of(ctx, args, nargs, 2, PTE_DTYPE_INT, "bias", &ok) : NULL;
  if (!c->in || !c->w || !ok) return false;
  c->out = pte_cm_tensor_of(ctx, args, nargs, (size_t)out_idx, PTE_DTYPE_CHAR, "out");
  if (!c->out) return false;
  size_t i = 3;
  if (!pte_cm_int_list_n(ctx, args, nargs, i++, 2, 1, INT32_MAX, c->stride, "stride") ||
      !pte_cm_int_list_n(ctx, args, nargs, i++, 2, 0, INT32_MAX, c->pad, "padding"))
    return false;
  c->opad[0] = c->opad[1] = 0;
  c->depth_mult = 1;
  if (transposed &&
      !pte_cm_int_list_n(ctx, args, nargs, i++, 2, 0, INT32_MAX, c->opad, "output_padding"))
    return false;
  if (!pte_cm_int_list_n(ctx, args, nargs, i++, 2, 1, INT32_MAX, c->dil, "dilation")) return false;
  if (depthwise) {
    if (!pte_k_arg_int(ctx, args, nargs, i++, &c->depth_mult)) return false;
    if (c->depth_mult < 1) {
      pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "depth_multiplier must be >= 1");
      return false;
    }
  }
  int64_t in_off, out_off, amin, amax;
  if (!pte_k_arg_int(ctx, args, nargs, i, &in_off) ||
      !pte_k_arg_int(ctx, args, nargs, i + 1, &out_off))
    return false;
  c->mults = pte_k_arg_tensor(ctx, args, nargs, i + 2);
  c->shifts = c->mults ? pte_k_arg_tensor(ctx, args, nargs, i + 3) : NULL;
  if (!c->shifts || !pte_k_arg_int(ctx, args, nargs, i + 4, &amin) ||
      !pte_k_arg_int(ctx, args, nargs, i + 5, &amax))
    return false;
  if (in_off < -255 || in_off > 255 || out_off < -255 || out_off > 255) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "input/output offsets must be within [-255, 255]");
    return false;
  }
  if (!pte_cm_check_act(ctx, amin, amax)) return false;
  c->in_off = (int32_t)in_off;
  c->out_off = (int32_t)out_off;
  c->act_min = (int32_t)amin;
  c->act_max = (int32_t)amax;
  if (c->in->dim != 4 || c->w->dim != 4) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "input and weight must be 4-D");
    return false;
  }
  return true;
}

/* Per-channel requantization parameters: n entries, multiplier in (INT32_MIN, INT32_MAX],
 * shift in [-31, 30]. */
static bool check_per_channel(pte_kernel_context *ctx, const conv_args *c, int64_t n) {
  if (!pte_cm_check_param_tensor(ctx, c->mults, n, "requantize_multipliers") ||
      !pte_cm_check_param_tensor(ctx, c->shifts, n, "requantize_shifts"))
    return false;
  if (c->bias && (int64_t)c->bias->numel != n) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "bias has %zu entries, expected %lld",
                    c->bias->numel, (long long)n);
    return false;
  }
  for (int64_t k = 0; k < n; k++)
    if (!pte_cm_check_requant(ctx, pte_cm_param_at(c->mults, k), pte_cm_param_at(c->shifts, k), 30,
                              "per-channel"))
      return false;
  return true;
}

static int64_t out_size(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d) {
  const int64_t num = in + 2 * p - d * (k - 1) - 1;
  return num < 0 ? -1 : num / s + 1;
}

/* Per-channel bias / multiplier / shift for up to CM_PARAM_CACHE channels: read in place when
 * they are dense int32 vectors (the usual case), else copied into the kernel context's temp
 * memory; read through the tensors (not cached) beyond CM_PARAM_CACHE channels or when no temp
 * memory is available. Nothing of it lives on the stack (microcontroller stacks are small). */
#define CM_PARAM_CACHE 256
/* Largest im2col patch (KH * KW * channels per group) of the fast convolution path (int16 on
 * the stack: 4 KiB on hosts, 1 KiB on 32-bit Arm; deeper patches use the direct loop). */
#if defined(__arm__) || defined(__thumb__)
#define CM_PATCH_MAX 512
#else
#define CM_PATCH_MAX 2048
#endif
typedef struct chan_params {
  const int32_t *bias, *mult, *shift;
  bool cached;
} chan_params;

static bool dense_i32(const pte_tensor *t) {
  return t->dtype == PTE_DTYPE_INT && pte_k_is_contiguous(t);
}

static void load_params(pte_kernel_context *ctx, const conv_args *c, int64_t n, chan_params *p) {
  p->cached = false;
  if (n > CM_PARAM_CACHE) return;
  const bool bias_in_place = c->bias && dense_i32(c->bias);
  const bool ms_in_place = dense_i32(c->mults) && dense_i32(c->shifts);
  int32_t *store = NULL;
  if (!bias_in_place || !ms_in_place) {
    store = (int32_t *)pte_kernel_alloc_temp(ctx, sizeof(int32_t) * 3 * (size_t)n, sizeof(int32_t));
    if (!store) return;
  }
  if (bias_in_place) {
    p->bias = (const int32_t *)c->bias->data;
  } else {
    for (int64_t k = 0; k < n; k++) store[k] = c->bias ? pte_cm_param_at(c->bias, k) : 0;
    p->bias = store;
  }
  if (ms_in_place) {
    p->mult = (const int32_t *)c->mults->data;
    p->shift = (const int32_t *)c->shifts->data;
  } else {
    for (int64_t k = 0; k < n; k++) {
      store[n + k] = pte_cm_param_at(c->mults, k);
      store[2 * n + k] = pte_cm_param_at(c->shifts, k);
    }
    p->mult = store + n;
    p->shift = store + 2 * n;
  }
  p->cached = true;
}
static inline int32_t bias_of(const conv_args *c, const chan_params *p, int64_t oc) {
  if (p->cached) return p->bias[oc];
  return c->bias ? pte_cm_param_at(c->bias, oc) : 0;
}

/* Finishes one accumulator: requantize, add the output offset and clamp. */
static inline int8_t finish(const conv_args *c, const chan_params *p, int64_t acc, int64_t oc) {
  const int32_t m = p->cached ? p->mult[oc] : pte_cm_param_at(c->mults, oc);
  const int32_t s = p->cached ? p->shift[oc] : pte_cm_param_at(c->shifts, oc);
  int32_t v = pte_cm_requantize(pte_cm_wrap32(acc), m, s);
  v = pte_cm_add32(v, c->out_off);
  return (int8_t)pte_cm_clamp32(v, c->act_min, c->act_max);
}

/* sum_i (x[i*sx] + off) * w[i*sw] over n terms (int32 per 2^15 terms, then int64). */
static inline int64_t dot_off(const int8_t *x, int64_t sx, const int8_t *w, int64_t sw, int64_t n,
                              int32_t off) {
  int64_t acc = 0;
  if (sx == 1 && sw == 1) {
    for (int64_t i0 = 0; i0 < n; i0 += 32768) {
      const int64_t e = n - i0 < 32768 ? n - i0 : 32768;
      int32_t part = 0;
      for (int64_t i = 0; i < e; i++) part += ((int32_t)x[i0 + i] + off) * (int32_t)w[i0 + i];
      acc += part;
    }
  } else {
    for (int64_t i = 0; i < n; i++) acc += ((int32_t)x[i * sx] + off) * (int32_t)w[i * sw];
  }
  return acc;
}

/* The SIMD path of quantized_conv2d (cm_simd.h): channels-last dense input and output,
 * contiguous OHWI weights, cached per-channel parameters, patch depth <= PTE_CM_SIMD_KMAX.
 * 1x1 unpadded convolutions read the input rows in place; the others gather int8 patches
 * whose padded taps hold -input_offset (the zero point, so (x + input_offset) is 0 there),
 * which needs input_offset in [-127, 128]. Returns false (nothing written) when it does not
 * apply. */
#if defined(__x86_64__) || defined(__i386__)
/* patch rows of the x86 GEMM: 16 KiB from the kernel context's temp memory when it has room,
 * else 2 KiB on the stack */
#define CM_SIMD_PATCH_BYTES 2048
#define CM_SIMD_PATCH_TEMP 16384
#else
#define CM_SIMD_PATCH_BYTES 1024 /* microcontroller stacks are small; the Arm GEMM packs nothing */
#define CM_SIMD_PATCH_TEMP 0
#endif
static bool conv_simd(pte_kernel_context *ctx, const conv_args *c, const chan_params *prm,
                      int64_t groups) {
  const int64_t N = c->in->sizes[0], C = c->in->sizes[1], H = c->in->sizes[2], W = c->in->sizes[3];
  const int64_t OC = c->w->sizes[0], KH = c->w->sizes[1], KW = c->w->sizes[2], Cg = c->w->sizes[3];
  const int64_t OH = c->out->sizes[2], OW = c->out->sizes[3], OCg = OC / groups, K = KH * KW * Cg;
  if (pte_cm_simd_active() == PTE_CM_ISA_PORTABLE || !prm->cached || K > PTE_CM_SIMD_KMAX ||
      !pte_cm_is_nhwc_dense(c->in) || !pte_cm_is_nhwc_dense(c->out) || !pte_k_is_contiguous(c->w))
    return false;
  const bool direct = KH == 1 && KW == 1 && c->pad[0] == 0 && c->pad[1] == 0;
  if (!direct && (c->in_off < -127 || c->in_off > 128)) return false;
  const int8_t *x = (const int8_t *)c->in->data, *wd = (const int8_t *)c->w->data;
  int8_t *y = (int8_t *)c->out->data;
  pte_cm_gemm g;
  g.K = K;
  g.OC = OCg;
  g.in_off = c->in_off;
  g.row_add = NULL;
  g.out_off = c->out_off;
  g.act_min = c->act_min;
  g.act_max = c->act_max;
  g.ys = OC;
  g.scratch = pte_cm_gemm_scratch(ctx);
  int8_t patch_stack[CM_SIMD_PATCH_BYTES], *patch = NULL; /* patch rows, set up on first use */
  int64_t patch_cap = 0;
  for (int64_t n = 0; n < N; n++) {
    const int8_t *xn = x + n * H * W * C;
    int8_t *yn = y + n * OH * OW * OC;
    for (int64_t gi = 0; gi < groups; gi++) {
      g.w = wd + gi * OCg * K;
      g.bias = prm->bias + gi * OCg;
      g.mult = prm->mult + gi * OCg;
      g.shift = prm->shift + gi * OCg;
      if (direct && c->stride[0] == 1 && c->stride[1] == 1) {
        /* every pixel is a row: one call over the whole image */
        g.x = xn + gi * Cg;
        g.xs = C;
        g.P = OH * OW;
        g.y = yn + gi * OCg;
        if (!pte_cm_simd_gemm(&g)) return false;
        continue;
      }
      if (direct) {
        for (int64_t oy = 0; oy < OH; oy++) {
          g.x = xn + oy * c->stride[0] * W * C + gi * Cg;
          g.xs = c->stride[1] * C;
          g.P = OW;
          g.y = yn + oy * OW * OC + gi * OCg;
          if (!pte_cm_simd_gemm(&g)) return false;
        }
        continue;
      }
      if (!patch) {
        patch = patch_stack;
        patch_cap = CM_SIMD_PATCH_BYTES;
        if (CM_SIMD_PATCH_TEMP > 0) {
          int8_t *t = (int8_t *)pte_kernel_alloc_temp(ctx, CM_SIMD_PATCH_TEMP, 64);
          if (t) {
            patch = t;
            patch_cap = CM_SIMD_PATCH_TEMP;
          }
        }
      }
      const int64_t rows = patch_cap / K, npix = OH * OW;
      const int8_t pad_value = (int8_t)(-c->in_off);
      for (int64_t q0 = 0; q0 < npix; q0 += rows) {
        const int64_t nq = npix - q0 < rows ? npix - q0 : rows;
        for (int64_t q = 0; q < nq; q++) {
          const int64_t oy = (q0 + q) / OW, ox = (q0 + q) % OW;
          const int64_t iy0 = oy * c->stride[0] - c->pad[0], ix0 = ox * c->stride[1] - c->pad[1];
          int8_t *pp = patch + q * K;
          for (int64_t ky = 0; ky < KH; ky++) {
            const int64_t iy = iy0 + ky * c->dil[0];
            if (groups == 1 && c->dil[1] == 1 && iy >= 0 && iy < H && ix0 >= 0 && ix0 + KW <= W) {
              /* the whole kernel row is one run of KW * C bytes */
              memcpy(pp, xn + (iy * W + ix0) * C, (size_t)(KW * C));
              pp += KW * C;
              continue;
            }
            for (int64_t kx = 0; kx < KW; kx++, pp += Cg) {
              const int64_t ix = ix0 + kx * c->dil[1];
              const bool inside = iy >= 0 && iy < H && ix >= 0 && ix < W;
              const int8_t *src = inside ? xn + (iy * W + ix) * C + gi * Cg : NULL;
              if (Cg >= 16) {
                if (inside)
                  memcpy(pp, src, (size_t)Cg);
                else
                  memset(pp, pad_value, (size_t)Cg);
              } else {
                for (int64_t i = 0; i < Cg; i++) pp[i] = inside ? src[i] : pad_value;
              }
            }
          }
        }
        g.x = patch;
        g.xs = K;
        g.P = nq;
        g.y = yn + q0 * OC + gi * OCg;
        if (!pte_cm_simd_gemm(&g)) return false;
      }
    }
  }
  return true;
}

static void cm_conv2d(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  const int out_idx = resolve_out(ctx, args, nargs, 13, 1);
  if (out_idx < 0) return;
  conv_args c;
  if (!read_conv_args(ctx, args, nargs, out_idx, false, false, &c)) return;
  const int64_t N = c.in->sizes[0], C = c.in->sizes[1], H = c.in->sizes[2], W = c.in->sizes[3];
  const int64_t OC = c.w->sizes[0], KH = c.w->sizes[1], KW = c.w->sizes[2], Cg = c.w->sizes[3];
  if (Cg <= 0 || C % Cg != 0 || OC % (C / Cg) != 0) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT,
                    "weight [%lld, %lld, %lld, %lld] does not match %lld input channels",
                    (long long)OC, (long long)KH, (long long)KW, (long long)Cg, (long long)C);
    return;
  }
  const int64_t groups = C / Cg, OCg = OC / groups;
  const int64_t OH = out_size(H, KH, c.stride[0], c.pad[0], c.dil[0]);
  const int64_t OW = out_size(W, KW, c.stride[1], c.pad[1], c.dil[1]);
  if (OH < 0 || OW < 0) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "kernel larger than the padded input");
    return;
  }
  if (!check_per_channel(ctx, &c, OC)) return;
  const int32_t osz[4] = {(int32_t)N, (int32_t)OC, (int32_t)OH, (int32_t)OW};
  if (!pte_cm_resize(ctx, c.out, osz, 4)) return;

  chan_params prm;
  load_params(ctx, &c, OC, &prm);
  const int8_t *x = (const int8_t *)c.in->data, *wd = (const int8_t *)c.w->data;
  int8_t *y = (int8_t *)c.out->data;
  if (conv_simd(ctx, &c, &prm, groups)) {
    pte_cm_set_return(args, nargs, (size_t)out_idx);
    return;
  }
  const int64_t sc = c.in->strides[1], swi = c.w->strides[3];
  const int64_t K = KH * KW * Cg;
  if (K <= CM_PATCH_MAX && pte_k_is_contiguous(c.w)) {
    /* im2col per output pixel (as CMSIS-NN): gather the (x + input_offset) patch of each group
     * once, padded taps as 0, then one contiguous dot product per output channel. */
    int16_t patch[CM_PATCH_MAX];
    for (int64_t n = 0; n < N; n++)
      for (int64_t oy = 0; oy < OH; oy++)
        for (int64_t ox = 0; ox < OW; ox++) {
          const int64_t iy0 = oy * c.stride[0] - c.pad[0], ix0 = ox * c.stride[1] - c.pad[1];
          for (int64_t g = 0; g < groups; g++) {
            int16_t *pp = patch;
            for (int64_t ky = 0; ky < KH; ky++) {
              const int64_t iy = iy0 + ky * c.dil[0];
              for (int64_t kx = 0; kx < KW; kx++, pp += Cg) {
                const int64_t ix = ix0 + kx * c.dil[1];
                if (iy < 0 || iy >= H || ix < 0 || ix >= W) {
                  for (int64_t i = 0; i < Cg; i++) pp[i] = 0;
                  continue;
                }
                const int8_t *xp = x + pte_cm_off4(c.in, n, g * Cg, iy, ix);
                for (int64_t i = 0; i < Cg; i++) pp[i] = (int16_t)(xp[i * sc] + c.in_off);
              }
            }
            int8_t *yp = y + pte_cm_off4(c.out, n, 0, oy, ox);
            const int64_t syc = c.out->strides[1];
            for (int64_t oc = g * OCg; oc < (g + 1) * OCg; oc++) {
              const int8_t *wr = wd + oc * K;
              int32_t acc = 0; /* |term| <= 255 * 128, K <= CM_PATCH_MAX: fits int32 */
              for (int64_t i = 0; i < K; i++) acc += (int32_t)patch[i] * (int32_t)wr[i];
              yp[oc * syc] = finish(&c, &prm, (int64_t)acc + bias_of(&c, &prm, oc), oc);
            }
          }
        }
    pte_cm_set_return(args, nargs, (size_t)out_idx);
    return;
  }
  for (int64_t n = 0; n < N; n++)
    for (int64_t oy = 0; oy < OH; oy++)
      for (int64_t ox = 0; ox < OW; ox++) {
        const int64_t iy0 = oy * c.stride[0] - c.pad[0], ix0 = ox * c.stride[1] - c.pad[1];
        for (int64_t oc = 0; oc < OC; oc++) {
          const int64_t ic0 = (oc / OCg) * Cg;
          int64_t acc = bias_of(&c, &prm, oc);
          for (int64_t ky = 0; ky < KH; ky++) {
            const int64_t iy = iy0 + ky * c.dil[0];
            if (iy < 0 || iy >= H) continue;
            for (int64_t kx = 0; kx < KW; kx++) {
              const int64_t ix = ix0 + kx * c.dil[1];
              if (ix < 0 || ix >= W) continue;
              acc += dot_off(x + pte_cm_off4(c.in, n, ic0, iy, ix), sc,
                             wd + pte_cm_off4(c.w, oc, ky, kx, 0), swi, Cg, c.in_off);
            }
          }
          y[pte_cm_off4(c.out, n, oc, oy, ox)] = finish(&c, &prm, acc, oc);
        }
      }
  pte_cm_set_return(args, nargs, (size_t)out_idx);
}

static void cm_depthwise_conv2d(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  const int out_idx = resolve_out(ctx, args, nargs, 14, 1);
  if (out_idx < 0) return;
  conv_args c;
  if (!read_conv_args(ctx, args, nargs, out_idx, false, true, &c)) return;
  const int64_t N = c.in->sizes[0], C = c.in->sizes[1], H = c.in->sizes[2], W = c.in->sizes[3];
  const int64_t KH = c.w->sizes[1], KW = c.w->sizes[2], OC = c.w->sizes[3];
  if (c.w->sizes[0] != 1 || OC != C * c.depth_mult) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT,
                    "depthwise weight must be [1, KH, KW, C * depth_multiplier] = [1, %lld, %lld, %lld]",
                    (long long)KH, (long long)KW, (long long)(C * c.depth_mult));
    return;
  }
  const int64_t OH = out_size(H, KH, c.stride[0], c.pad[0], c.dil[0]);
  const int64_t OW = out_size(W, KW, c.stride[1], c.pad[1], c.dil[1]);
  if (OH < 0 || OW < 0) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "kernel larger than the padded input");
    return;
  }
  if (!check_per_channel(ctx, &c, OC)) return;
  const int32_t osz[4] = {(int32_t)N, (int32_t)OC, (int32_t)OH, (int32_t)OW};
  if (!pte_cm_resize(ctx, c.out, osz, 4)) return;

  chan_params prm;
  load_params(ctx, &c, OC, &prm);
  const int8_t *x = (const int8_t *)c.in->data, *wd = (const int8_t *)c.w->data;
  int8_t *y = (int8_t *)c.out->data;
  if (c.depth_mult == 1 && prm.cached && pte_cm_simd_active() != PTE_CM_ISA_PORTABLE &&
      pte_cm_is_nhwc_dense(c.in) && pte_cm_is_nhwc_dense(c.out) && pte_k_is_contiguous(c.w)) {
    pte_cm_dw d = {NULL, H, W, C, wd, KH, KW, c.stride[0], c.stride[1], c.pad[0], c.pad[1],
                   c.dil[0], c.dil[1], prm.bias, prm.mult, prm.shift, c.in_off, c.out_off,
                   c.act_min, c.act_max, NULL, OH, OW};
    bool ran = true;
    for (int64_t n = 0; n < N && ran; n++) {
      d.x = x + n * H * W * C;
      d.y = y + n * OH * OW * OC;
      ran = pte_cm_simd_dw(&d);
    }
    if (ran) {
      pte_cm_set_return(args, nargs, (size_t)out_idx);
      return;
    }
  }
  if (c.depth_mult == 1 && prm.cached && (C == 1 || c.in->strides[1] == 1) &&
      (OC == 1 || c.w->strides[3] == 1)) {
    /* channels innermost in input and weight: accumulate all channels of a pixel together */
    int32_t acc[CM_PARAM_CACHE];
    const int64_t swy = c.w->strides[1], swx = c.w->strides[2];
    const int32_t *pbias = prm.bias, *pmult = prm.mult, *pshift = prm.shift;
    for (int64_t n = 0; n < N; n++)
      for (int64_t oy = 0; oy < OH; oy++)
        for (int64_t ox = 0; ox < OW; ox++) {
          const int64_t iy0 = oy * c.stride[0] - c.pad[0], ix0 = ox * c.stride[1] - c.pad[1];
          for (int64_t oc = 0; oc < OC; oc++) acc[oc] = 0;
          for (int64_t ky = 0; ky < KH; ky++) {
            const int64_t iy = iy0 + ky * c.dil[0];
            if (iy < 0 || iy >= H) continue;
            for (int64_t kx = 0; kx < KW; kx++) {
              const int64_t ix = ix0 + kx * c.dil[1];
              if (ix < 0 || ix >= W) continue;
              const int8_t *xp = x + pte_cm_off4(c.in, n, 0, iy, ix);
              const int8_t *wp = wd + ky * swy + kx * swx;
              for (int64_t oc = 0; oc < OC; oc++)
                acc[oc] += ((int32_t)xp[oc] + c.in_off) * (int32_t)wp[oc];
            }
          }
          int8_t *yp = y + pte_cm_off4(c.out, n, 0, oy, ox);
          const int64_t syc = c.out->strides[1];
          for (int64_t oc = 0; oc < OC; oc++) {
            int32_t v = pte_cm_requantize(pte_cm_add32(acc[oc], pbias[oc]), pmult[oc], pshift[oc]);
            v = pte_cm_add32(v, c.out_off);
            yp[oc * syc] = (int8_t)pte_cm_clamp32(v, c.act_min, c.act_max);
          }
        }
    pte_cm_set_return(args, nargs, (size_t)out_idx);
    return;
  }
  for (int64_t n = 0; n < N; n++)
    for (int64_t oy = 0; oy < OH; oy++)
      for (int64_t ox = 0; ox < OW; ox++) {
        const int64_t iy0 = oy * c.stride[0] - c.pad[0], ix0 = ox * c.stride[1] - c.pad[1];
        for (int64_t oc = 0; oc < OC; oc++) {
          const int64_t ic = oc / c.depth_mult;
          int64_t acc = bias_of(&c, &prm, oc);
          for (int64_t ky = 0; ky < KH; ky++) {
            const int64_t iy = iy0 + ky * c.dil[0];
            if (iy < 0 || iy >= H) continue;
            for (int64_t kx = 0; kx < KW; kx++) {
              const int64_t ix = ix0 + kx * c.dil[1];
              if (ix < 0 || ix >= W) continue;
              acc += ((int32_t)x[pte_cm_off4(c.in, n, ic, iy, ix)] + c.in_off) *
                     (int32_t)wd[pte_cm_off4(c.w, 0, ky, kx, oc)];
            }
          }
          y[pte_cm_off4(c.out, n, oc, oy, ox)] = finish(&c, &prm, acc, oc);
        }
      }
  pte_cm_set_return(args, nargs, (size_t)out_idx);
}

static void cm_transpose_conv2d(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  const int out_idx = resolve_out(ctx, args, nargs, 14, 2);
  if (out_idx < 0) return;
  conv_args c;
  if (!read_conv_args(ctx, args, nargs, out_idx, true, false, &c)) return;
  const int64_t N = c.in->sizes[0], C = c.in->sizes[1], H = c.in->sizes[2], W = c.in->sizes[3];
  const int64_t OC = c.w->sizes[0], KH = c.w->sizes[1], KW = c.w->sizes[2];
  if (c.w->sizes[3] != C) {
    pte_kernel_fail(ctx, PTE_ERR_NOT_SUPPORTED,
                    "transpose conv weight has %lld input channels, input has %lld (groups > 1)",
                    (long long)c.w->sizes[3], (long long)C);
    return;
  }
  for (int k = 0; k < 2; k++) {
    if (c.opad[k] >= c.stride[k] && c.opad[k] >= c.dil[k]) {
      pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT,
                      "output_padding must be smaller than stride or dilation");
      return;
    }
  }
  const int64_t OH = (H - 1) * c.stride[0] - 2 * c.pad[0] + c.dil[0] * (KH - 1) + c.opad[0] + 1;
  const int64_t OW = (W - 1) * c.stride[1] - 2 * c.pad[1] + c.dil[1] * (KW - 1) + c.opad[1] + 1;
  if (OH < 0 || OW < 0 || OH > INT32_MAX || OW > INT32_MAX) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "invalid transpose-conv output size");
    return;
  }
  if (!check_per_channel(ctx, &c, OC)) return;
  const int32_t osz[4] = {(int32_t)N, (int32_t)OC, (int32_t)OH, (int32_t)OW};
  if (!pte_cm_resize(ctx, c.out, osz, 4)) return;

  chan_params prm;
  load_params(ctx, &c, OC, &prm);
  const int8_t *x = (const int8_t *)c.in->data, *wd = (const int8_t *)c.w->data;
  int8_t *y = (int8_t *)c.out->data;
  const int64_t sc = c.in->strides[1], swi = c.w->strides[3];
  for (int64_t n = 0; n < N; n++)
    for (int64_t oy = 0; oy < OH; oy++)
      for (int64_t ox = 0; ox < OW; ox++)
        for (int64_t oc = 0; oc < OC; oc++) {
          int64_t acc = bias_of(&c, &prm, oc);
          for (int64_t ky = 0; ky < KH; ky++) {
            const int64_t ty = oy + c.pad[0] - ky * c.dil[0];
            if (ty < 0 || ty % c.stride[0] != 0 || ty / c.stride[0] >= H) continue;
            const int64_t iy = ty / c.stride[0];
            for (int64_t kx = 0; kx < KW; kx++) {
              const int64_t tx = ox + c.pad[1] - kx * c.dil[1];
              if (tx < 0 || tx % c.stride[1] != 0 || tx / c.stride[1] >= W) continue;
              const int64_t ix = tx / c.stride[1];
              acc += dot_off(x + pte_cm_off4(c.in, n, 0, iy, ix), sc,
                             wd + pte_cm_off4(c.w, oc, ky, kx, 0), swi, C, c.in_off);
            }
          }
          y[pte_cm_off4(c.out, n, oc, oy, ox)] = finish(&c, &prm, acc, oc);
        }
  pte_cm_set_return(args, nargs, (size_t)out_idx);
}

const pte_kernel pte_cm_conv_kernels[] = {
    {"cortex_m::quantized_conv2d.out", NULL, cm_conv2d},
    {"cortex_m::quantized_depthwise_conv2d.out", NULL, cm_depthwise_conv2d},
    {"cortex_m::quantized_transpose_conv2d.out", NULL, cm_transpose_conv2d},
};
const size_t pte_cm_conv_kernels_count = sizeof pte_cm_conv_kernels / sizeof pte_cm_conv_kernels[0];
