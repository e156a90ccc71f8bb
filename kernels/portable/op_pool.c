/* 2-D pooling kernels:
 *   aten::max_pool2d_with_indices.out(Tensor self, int[2] kernel_size, int[2] stride=[],
 *       int[2] padding=0, int[2] dilation=1, bool ceil_mode=False, *, Tensor(a!) out,
 *       Tensor(b!) indices)
 *   aten::avg_pool2d.out(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0,
 *       bool ceil_mode=False, bool count_include_pad=True, int? divisor_override=None, *,
 *       Tensor(a!) out)
 *   aten::_adaptive_avg_pool2d.out / aten::adaptive_avg_pool2d.out(Tensor self,
 *       SymInt[2] output_size, *, Tensor(a!) out)
 *   aten::max_pool2d_with_indices_backward.grad_input (see below)
 *
 * Input is [C, H, W] or [N, C, H, W] in any dim order (NCHW, channels-last, ...): every access
 * goes through the strides. Output sizes follow ATen's pooling_output_shape (ceil_mode windows
 * must start inside the input or the left padding). Max pooling treats padding as -inf, propagates
 * NaN and records the flat index h * W + w of the maximum within its input plane. Floating dtypes
 * and integer dtypes (integer averages truncate as ATen's int64 path does).
 */
#include <math.h>

#include "portable/portable_nn.h"
#include "portable/util/kutil.h"
#include "portable/util/kutil_nn.h"

typedef struct pool_geom {
  int64_t nb, C, H, W, OH, OW; /* nb: 1 for 3-D input */
  int64_t kH, kW, sH, sW, pH, pW, dH, dW;
  bool batched;
} pool_geom;

/* floor division for a positive divisor */
static int64_t div_floor(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && (a < 0)) q--;
  return q;
}

static int64_t pool_out_size(int64_t in, int64_t k, int64_t pad, int64_t stride, int64_t dil,
                             bool ceil_mode) {
  int64_t out = div_floor(in + 2 * pad - dil * (k - 1) - 1 + (ceil_mode ? stride - 1 : 0), stride) + 1;
  /* the last window must start inside the input or the left padding */
  if (ceil_mode && (out - 1) * stride >= in + pad) out--;
  return out;
}

/* Reads an int[2] argument that may have 1 element (used for both) or 2; `empty_ok` lets an empty
 * list through (stride=[] means "same as kernel_size"). */
static bool read_pair(pte_kernel_context *ctx, pte_evalue **args, size_t nargs, size_t i,
                      const char *what, bool empty_ok, int64_t *a, int64_t *b, bool *empty) {
  size_t n = 0;
  const int64_t *v = pte_k_arg_int_list(ctx, args, nargs, i, &n);
  if (!v) return false;
  if (empty) *empty = n == 0;
  if (n == 0 && empty_ok) return true;
  if (n != 1 && n != 2) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "%s must have 1 or 2 values, got %zu", what, n);
    return false;
  }
  *a = v[0];
  *b = n == 2 ? v[1] : v[0];
  return true;
}

/* Checks the input rank/sizes and fills the spatial/channel part of g. */
static bool input_geom(pte_kernel_context *ctx, const pte_tensor *in, pool_geom *g) {
  if (in->dim != 3 && in->dim != 4) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "pool2d: expected 3-D or 4-D input, got %d-D",
                    (int)in->dim);
    return false;
  }
  g->batched = in->dim == 4;
  g->nb = g->batched ? in->sizes[0] : 1;
  g->C = in->sizes[in->dim - 3];
  g->H = in->sizes[in->dim - 2];
  g->W = in->sizes[in->dim - 1];
  if (g->C == 0 || g->H == 0 || g->W == 0) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "pool2d: input has an empty non-batch dimension");
    return false;
  }
  return true;
}

static bool resize_pool_out(pte_kernel_context *ctx, pte_tensor *out, const pool_geom *g) {
  int32_t sz[4];
  int32_t n = 0;
  if (g->batched) sz[n++] = (int32_t)g->nb;
  sz[n++] = (int32_t)g->C;
  sz[n++] = (int32_t)g->OH;
  sz[n++] = (int32_t)g->OW;
  if (out->dim != n) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "pool2d: out must be %d-D", (int)n);
    return false;
  }
  return pte_k_resize_out(ctx, out, sz, n);
}

/* Strides of the (n, c, h, w) view of a 3-D/4-D tensor. */
static void nchw_strides(const pte_tensor *t, int64_t st[4]) {
  int32_t o = t->dim - 3;
  st[0] = t->dim == 4 ? t->strides[0] : 0;
  st[1] = t->strides[o];
  st[2] = t->strides[o + 1];
  st[3] = t->strides[o + 2];
}

static bool pool_dtype_ok(pte_kernel_context *ctx, const pte_tensor *in, const pte_tensor *out) {
  if (!pte_k_is_floating(in->dtype) && !pte_k_is_integral(in->dtype)) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "pool2d: dtype %s not supported",
                    pte_dtype_name(in->dtype));
    return false;
  }
  if (out->dtype != in->dtype) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "pool2d: out dtype %s != input dtype %s",
                    pte_dtype_name(out->dtype), pte_dtype_name(in->dtype));
    return false;
  }
  return true;
}

/* Common parameter checks (ATen pool2d_shape_check). */
static bool pool_check_params(pte_kernel_context *ctx, pool_geom *g, bool ceil_mode) {
  if (g->kH <= 0 || g->kW <= 0 || g->sH <= 0 || g->sW <= 0 || g->dH <= 0 || g->dW <= 0 ||
      g->pH < 0 || g->pW < 0 || g->kH > INT32_MAX || g->kW > INT32_MAX || g->sH > INT32_MAX ||
      g->sW > INT32_MAX || g->pH > INT32_MAX || g->pW > INT32_MAX || g->dH > INT32_MAX ||
      g->dW > INT32_MAX) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT,
                    "pool2d: kernel, stride and dilation must be > 0 and padding >= 0");
    return false;
  }
  if (g->pH > g->kH / 2 || g->pW > g->kW / 2) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT,
                    "pool2d: pad should be at most half of the kernel size");
    return false;
  }
  g->OH = pool_out_size(g->H, g->kH, g->pH, g->sH, g->dH, ceil_mode);
  g->OW = pool_out_size(g->W, g->kW, g->pW, g->sW, g->dW, ceil_mode);
  if (g->OH < 1 || g->OW < 1 || g->OH > INT32_MAX || g->OW > INT32_MAX) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "pool2d: output size %lldx%lld is too small",
                    (long long)g->OH, (long long)g->OW);
    return false;
  }
  return true;
}

/* ---- max_pool2d_with_indices -------------------------------------------------------------- */

/* First window row/col inside the input (skipping padding) and the end (exclusive). */
static inline void window(int64_t o, int64_t s, int64_t p, int64_t k, int64_t d, int64_t n,
                          int64_t *start, int64_t *end) {
  int64_t st = o * s - p;
  int64_t en = st + (k - 1) * d + 1;
  if (en > n) en = n;
  while (st < 0) st += d;
  *start = st;
  *end = en;
}

static void op_max_pool2d_with_indices(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  if (!pte_nn_check_nargs(ctx, nargs, 8, 2)) return;
  pte_tensor *in = pte_k_arg_tensor(ctx, args, nargs, 0);
  if (!in) return;
  pool_geom g;
  bool ceil_mode, sempty;
  if (!read_pair(ctx, args, nargs, 1, "kernel_size", false, &g.kH, &g.kW, NULL) ||
      !read_pair(ctx, args, nargs, 2, "stride", true, &g.sH, &g.sW, &sempty) ||
      !read_pair(ctx, args, nargs, 3, "padding", false, &g.pH, &g.pW, NULL) ||
      !read_pair(ctx, args, nargs, 4, "dilation", false, &g.dH, &g.dW, NULL) ||
      !pte_k_arg_bool(ctx, args, nargs, 5, &ceil_mode))
    return;
  if (sempty) {
    g.sH = g.kH;
    g.sW = g.kW;
  }
  pte_tensor *out = pte_k_arg_tensor(ctx, args, nargs, 6);
  pte_tensor *idx = pte_k_arg_tensor(ctx, args, nargs, 7);
  if (!out || !idx) return;
  if (!input_geom(ctx, in, &g) || !pool_dtype_ok(ctx, in, out) || !pool_check_params(ctx, &g, ceil_mode))
    return;
  if (idx->dtype != PTE_DTYPE_LONG) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "max_pool2d: indices must be int64, got %s",
                    pte_dtype_name(idx->dtype));
    return;
  }
  if (!resize_pool_out(ctx, out, &g) || !resize_pool_out(ctx, idx, &g)) return;
  if (!pte_k_check_data(ctx, in, "self")) return;
  int64_t si[4], so[4], sx[4];
  nchw_strides(in, si);
  nchw_strides(out, so);
  nchw_strides(idx, sx);
  int64_t *ip = (int64_t *)idx->data;
  const int dt = in->dtype;
  const bool isf = pte_k_is_floating(dt);
  for (int64_t n = 0; n < g.nb; n++) {
    for (int64_t c = 0; c < g.C; c++) {
      const int64_t bi = n * si[0] + c * si[1], bo = n * so[0] + c * so[1],
                    bx = n * sx[0] + c * sx[1];
      for (int64_t oh = 0; oh < g.OH; oh++) {
        int64_t h0, h1;
        window(oh, g.sH, g.pH, g.kH, g.dH, g.H, &h0, &h1);
        for (int64_t ow = 0; ow < g.OW; ow++) {
          int64_t w0, w1;
          window(ow, g.sW, g.pW, g.kW, g.dW, g.W, &w0, &w1);
          int64_t best = h0 * g.W + w0;
          const int64_t oo = bo + oh * so[2] + ow * so[3];
          if (dt == PTE_DTYPE_FLOAT) {
            const float *x = (const float *)in->data + bi;
            float mx = -INFINITY;
            for (int64_t h = h0; h < h1; h += g.dH)
              for (int64_t w = w0; w < w1; w += g.dW) {
                float v = x[h * si[2] + w * si[3]];
                if (v > mx || isnan(v)) {
                  mx = v;
                  best = h * g.W + w;
                }
              }
            ((float *)out->data)[oo] = mx;
          } else if (isf) {
            double mx = -INFINITY;
            for (int64_t h = h0; h < h1; h += g.dH)
              for (int64_t w = w0; w < w1; w += g.dW) {
                double v = pte_k_load_double(in->data, dt, bi + h * si[2] + w * si[3]);
                if (v > mx || isnan(v)) {
                  mx = v;
                  best = h * g.W + w;
                }
              }
            pte_k_store_double(out->data, dt, oo, mx);
          } else {
            int64_t mx = INT64_MIN;
            bool any = false;
            for (int64_t h = h0; h < h1; h += g.dH)
              for (int64_t w = w0; w < w1; w += g.dW) {
                int64_t v = pte_k_load_int64(in->data, dt, bi + h * si[2] + w * si[3]);
                if (!any || v > mx) {
                  mx = v;
                  best = h * g.W + w;
                  any = true;
                }
              }
            pte_k_store_int64(out->data, dt, oo, mx);
          }
          ip[bx + oh * sx[2] + ow * sx[3]] = best;
        }
      }
    }
  }
  pte_nn_set_returns(args, nargs, 6, 2);
}

/* ---- avg_pool2d --------------------------------------------------------------------------- */

static void op_avg_pool2d(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  if (!pte_k_check_nargs(ctx, nargs, 8, 9)) return;
  pte_tensor *in = pte_k_arg_tensor(ctx, args, nargs, 0);
  if (!in) return;
  pool_geom g;
  bool ceil_mode, cip, sempty;
  int64_t divisor = 0;
  if (!read_pair(ctx, args, nargs, 1, "kernel_size", false, &g.kH, &g.kW, NULL) ||
      !read_pair(ctx, args, nargs, 2, "stride", true, &g.sH, &g.sW, &sempty) ||
      !read_pair(ctx, args, nargs, 3, "padding", false, &g.pH, &g.pW, NULL) ||
      !pte_k_arg_bool(ctx, args, nargs, 4, &ceil_mode) || !pte_k_arg_bool(ctx, args, nargs, 5, &cip))
    return;
  if (!pte_k_arg_is_none(args, nargs, 6)) {
    if (!pte_k_arg_int(ctx, args, nargs, 6, &divisor)) return;
    if (divisor == 0) {
      pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "avg_pool2d: divisor must be not zero");
      return;
    }
  }
  if (sempty) {
    g.sH = g.kH;
    g.sW = g.kW;
  }
  g.dH = g.dW = 1;
  pte_tensor *out = pte_k_arg_tensor(ctx, args, nargs, 7);
  if (!out) return;
  if (!input_geom(ctx, in, &g) || !pool_dtype_ok(ctx, in, out) || !pool_check_params(ctx, &g, ceil_mode))
    return;
  if (!resize_pool_out(ctx, out, &g)) return;
  if (!pte_k_check_data(ctx, in, "self")) return;
  int64_t si[4], so[4];
  nchw_strides(in, si);
  nchw_strides(out, so);
  const int dt = in->dtype;
  const bool isf = pte_k_is_floating(dt);
  for (int64_t n = 0; n < g.nb; n++) {
    for (int64_t c = 0; c < g.C; c++) {
      const int64_t bi = n * si[0] + c * si[1], bo = n * so[0] + c * so[1];
      for (int64_t oh = 0; oh < g.OH; oh++) {
        for (int64_t ow = 0; ow < g.OW; ow++) {
          int64_t h0 = oh * g.sH - g.pH, w0 = ow * g.sW - g.pW;
          int64_t h1 = h0 + g.kH, w1 = w0 + g.kW;
          if (h1 > g.H + g.pH) h1 = g.H + g.pH;
          if (w1 > g.W + g.pW) w1 = g.W + g.pW;
          const int64_t pool_size = (h1 - h0) * (w1 - w0);
          if (h0 < 0) h0 = 0;
          if (w0 < 0) w0 = 0;
          if (h1 > g.H) h1 = g.H;
          if (w1 > g.W) w1 = g.W;
          const int64_t oo = bo + oh * so[2] + ow * so[3];
          if (h0 >= h1 || w0 >= w1) {
            pte_k_store_int64(out->data, dt, oo, 0);
            continue;
          }
          const int64_t factor = divisor ? divisor : cip ? pool_size : (h1 - h0) * (w1 - w0);
          if (isf) {
            double s = 0.0;
            if (dt == PTE_DTYPE_FLOAT) {
              const float *x = (const float *)in->data + bi;
              for (int64_t h = h0; h < h1; h++)
                for (int64_t w = w0; w < w1; w++) s += x[h * si[2] + w * si[3]];
            } else {
              for (int64_t h = h0; h < h1; h++)
                for (int64_t w = w0; w < w1; w++)
                  s += pte_k_load_double(in->data, dt, bi + h * si[2] + w * si[3]);
            }
            pte_k_store_double(out->data, dt, oo, s / (double)factor);
          } else {
            uint64_t s = 0;
            for (int64_t h = h0; h < h1; h++)
              for (int64_t w = w0; w < w1; w++)
                s += (uint64_t)pte_k_load_int64(in->data, dt, bi + h * si[2] + w * si[3]);
            int64_t sv = pte_k_wrap_u64(s);
            int64_t q = (factor == -1 && sv == INT64_MIN) ? sv : sv / factor;
            pte_k_store_int64(out->data, dt, oo, q);
          }
        }
      }
    }
  }
  pte_k_set_return(args, nargs, 7);
}

/* ---- _adaptive_avg_pool2d ----------------------------------------------------------------- */

static void op_adaptive_avg_pool2d(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  if (!pte_k_check_nargs(ctx, nargs, 3, 4)) return;
  pte_tensor *in = pte_k_arg_tensor(ctx, args, nargs, 0);
  size_t n_os = 0;
  const int64_t *os = in ? pte_k_arg_int_list(ctx, args, nargs, 1, &n_os) : NULL;
  pte_tensor *out = os ? pte_k_arg_tensor(ctx, args, nargs, 2) : NULL;
  if (!in || !os || !out) return;
  pool_geom g;
  if (!input_geom(ctx, in, &g) || !pool_dtype_ok(ctx, in, out)) return;
  if (n_os != 2 || os[0] < 0 || os[1] < 0 || os[0] > INT32_MAX || os[1] > INT32_MAX) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT,
                    "adaptive_avg_pool2d: output_size must be 2 non-negative values");
    return;
  }
  g.OH = os[0];
  g.OW = os[1];
  if (!resize_pool_out(ctx, out, &g)) return;
  if (!pte_k_check_data(ctx, in, "self")) return;
  int64_t si[4], so[4];
  nchw_strides(in, si);
  nchw_strides(out, so);
  const int dt = in->dtype;
  const bool isf = pte_k_is_floating(dt);
  for (int64_t n = 0; n < g.nb; n++) {
    for (int64_t c = 0; c < g.C; c++) {
      const int64_t bi = n * si[0] + c * si[1], bo = n * so[0] + c * so[1];
      for (int64_t oh = 0; oh < g.OH; oh++) {
        const int64_t h0 = (oh * g.H) / g.OH, h1 = ((oh + 1) * g.H + g.OH - 1) / g.OH;
        for (int64_t ow = 0; ow < g.OW; ow++) {
          const int64_t w0 = (ow * g.W) / g.OW, w1 = ((ow + 1) * g.W + g.OW - 1) / g.OW;
          const int64_t cnt = (h1 - h0) * (w1 - w0);
          const int64_t oo = bo + oh * so[2] + ow * so[3];
          if (isf) {
            double s = 0.0;
            for (int64_t h = h0; h < h1; h++)
              for (int64_t w = w0; w < w1; w++)
                s += pte_k_load_double(in->data, dt, bi + h * si[2] + w * si[3]);
            pte_k_store_double(out->data, dt, oo, s / (double)cnt);
          } else {
            uint64_t s = 0;
            for (int64_t h = h0; h < h1; h++)
              for (int64_t w = w0; w < w1; w++)
                s += (uint64_t)pte_k_load_int64(in->data, dt, bi + h * si[2] + w * si[3]);
            int64_t sv = pte_k_wrap_u64(s);
            pte_k_store_int64(out->data, dt, oo, sv / cnt);
          }
        }
      }
    }
  }
  pte_k_set_return(args, nargs, 2);
}

/* ---- max_pool2d_with_indices_backward ------------------------------------------------------ */

/* aten::max_pool2d_with_indices_backward.grad_input(Tensor grad_output, Tensor self,
 *     int[2] kernel_size, int[2] stride, int[2] padding, int[2] dilation, bool ceil_mode,
 *     Tensor indices, *, Tensor(a!) grad_input)
 * grad_input is zero except that each grad_output element is added at the flat position its
 * index names within its (n, c) plane (windows may overlap, so positions can collect several). */
static bool same_pool_shape(const pte_tensor *t, const pool_geom *g) {
  int32_t n = 0;
  if (t->dim != (g->batched ? 4 : 3)) return false;
  if (g->batched && t->sizes[n++] != g->nb) return false;
  return t->sizes[n] == g->C && t->sizes[n + 1] == g->OH && t->sizes[n + 2] == g->OW;
}

static void op_max_pool2d_backward(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  static const char op[] = "max_pool2d_with_indices_backward";
  if (!pte_nn_check_nargs(ctx, nargs, 9, 1)) return;
  pte_tensor *gy = pte_k_arg_tensor(ctx, args, nargs, 0);
  pte_tensor *in = pte_k_arg_tensor(ctx, args, nargs, 1);
  if (!gy || !in) return;
  pool_geom g;
  bool ceil_mode, sempty;
  if (!read_pair(ctx, args, nargs, 2, "kernel_size", false, &g.kH, &g.kW, NULL) ||
      !read_pair(ctx, args, nargs, 3, "stride", true, &g.sH, &g.sW, &sempty) ||
      !read_pair(ctx, args, nargs, 4, "padding", false, &g.pH, &g.pW, NULL) ||
      !read_pair(ctx, args, nargs, 5, "dilation", false, &g.dH, &g.dW, NULL) ||
      !pte_k_arg_bool(ctx, args, nargs, 6, &ceil_mode))
    return;
  if (sempty) {
    g.sH = g.kH;
    g.sW = g.kW;
  }
  pte_tensor *idx = pte_k_arg_tensor(ctx, args, nargs, 7);
  pte_tensor *gx = pte_k_arg_tensor(ctx, args, nargs, 8);
  if (!idx || !gx) return;
  if (!input_geom(ctx, in, &g) || !pool_check_params(ctx, &g, ceil_mode)) return;
  if (!pte_k_is_floating(in->dtype) || gy->dtype != in->dtype || gx->dtype != in->dtype) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT,
                    "%s: self, grad_output and grad_input must share one floating dtype, got %s, %s, %s", op,
                    pte_dtype_name(in->dtype), pte_dtype_name(gy->dtype), pte_dtype_name(gx->dtype));
    return;
  }
  if (idx->dtype != PTE_DTYPE_LONG) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "%s: indices must be int64, got %s", op, pte_dtype_name(idx->dtype));
    return;
  }
  if (!same_pool_shape(gy, &g) || !same_pool_shape(idx, &g)) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "%s: grad_output and indices must have the pooled shape (C=%lld, %lldx%lld)",
                    op, (long long)g.C, (long long)g.OH, (long long)g.OW);
    return;
  }
  if (gx->dim != in->dim) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "%s: grad_input must have rank %d", op, (int)in->dim);
    return;
  }
  if (!pte_k_resize_like(ctx, gx, in) || !pte_k_check_data(ctx, gy, "grad_output") ||
      !pte_k_check_data(ctx, idx, "indices"))
    return;
  int64_t sy[4], sx[4], sg[4];
  nchw_strides(gy, sy);
  nchw_strides(idx, sx);
  nchw_strides(gx, sg);
  const int dt = in->dtype;
  const int64_t *ip = (const int64_t *)idx->data;
  for (int64_t n = 0; n < g.nb; n++)
    for (int64_t c = 0; c < g.C; c++) {
      const int64_t bg = n * sg[0] + c * sg[1];
      for (int64_t h = 0; h < g.H; h++)
        for (int64_t w = 0; w < g.W; w++) pte_k_store_double(gx->data, dt, bg + h * sg[2] + w * sg[3], 0.0);
      for (int64_t oh = 0; oh < g.OH; oh++)
        for (int64_t ow = 0; ow < g.OW; ow++) {
          const int64_t k = ip[n * sx[0] + c * sx[1] + oh * sx[2] + ow * sx[3]];
          if (k < 0 || k >= g.H * g.W) {
            pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "%s: index %lld out of range for a %lldx%lld plane", op,
                            (long long)k, (long long)g.H, (long long)g.W);
            return;
          }
          const int64_t o = bg + (k / g.W) * sg[2] + (k % g.W) * sg[3];
          const double v = pte_k_load_double(gy->data, dt, n * sy[0] + c * sy[1] + oh * sy[2] + ow * sy[3]);
          pte_k_store_double(gx->data, dt, o, pte_k_load_double(gx->data, dt, o) + v);
        }
    }
  pte_nn_set_returns(args, nargs, 8, 1);
}

const pte_kernel pte_portable_pool_kernels[] = {
    {"aten::max_pool2d_with_indices_backward.grad_input", NULL, op_max_pool2d_backward},
    {"aten::max_pool2d_with_indices.out", NULL, op_max_pool2d_with_indices},
    {"aten::avg_pool2d.out", NULL, op_avg_pool2d},
    {"aten::_adaptive_avg_pool2d.out", NULL, op_adaptive_avg_pool2d},
    {"aten::adaptive_avg_pool2d.out", NULL, op_adaptive_avg_pool2d},
};
const size_t pte_portable_pool_kernels_count =
    sizeof pte_portable_pool_kernels / sizeof pte_portable_pool_kernels[0];
