/* aten::convolution_backward.out(Tensor grad_output, Tensor input, Tensor weight,
 *     SymInt[]? bias_sizes, SymInt[] stride, SymInt[] padding, SymInt[] dilation, bool transposed,
 *     SymInt[] output_padding, SymInt groups, bool[3] output_mask, *, Tensor(a!) out0,
 *     Tensor(b!) out1, Tensor(c!) out2) -> (Tensor(a!), Tensor(b!), Tensor(c!))
 *
 * Gradients of a 1-D or 2-D convolution (regular or transposed, groups, stride, padding,
 * dilation, output_padding) with respect to input (out0), weight (out1) and bias (out2), each
 * only when its output_mask entry is set (an unset out is left untouched).
 *
 * Both kinds are one relation between a "small" tensor S and a "big" tensor B: big position =
 * small position * stride - padding + k * dilation, with weight [C_S, C_B / groups, kH, kW].
 * A regular convolution has S = grad_output, B = input; a transposed one S = input,
 * B = grad_output. Gradient elements are gathered and summed in double (no temp memory), except
 * a float32 regular-convolution grad_input, which is scattered with float accumulation (as
 * ATen's col2im). Floating dtypes, one dtype throughout; every tensor through its strides.
 */
#include <string.h>

#include "portable/portable_nn.h"
#include "portable/util/kutil.h"
#include "portable/util/kutil_nn.h"

typedef struct cb_side {
  const pte_tensor *t;
  int64_t st[4];
  int64_t C, Cg, H, W; /* channels, channels per group, spatial */
} cb_side;

/* Element `off` as double (float32 read directly: this is the hot load). */
static inline double cb_ld(const pte_tensor *t, int64_t off) {
  return t->dtype == PTE_DTYPE_FLOAT ? (double)((const float *)t->data)[off] : pte_k_load_double(t->data, t->dtype, off);
}

static inline double cb_at(const cb_side *s, int64_t n, int64_t c, int64_t h, int64_t w) {
  return cb_ld(s->t, n * s->st[0] + c * s->st[1] + h * s->st[2] + w * s->st[3]);
}

static void cb_store(pte_tensor *t, const int64_t st[4], int64_t a, int64_t b, int64_t c, int64_t d, double v) {
  pte_k_store_double(t->data, t->dtype, a * st[0] + b * st[1] + c * st[2] + d * st[3], v);
}

/* Range [lo, hi) of small positions s with 0 <= s * stride - pad + k * dil < big. */
static void cb_range(int64_t k, int64_t stride, int64_t pad, int64_t dil, int64_t small, int64_t big, int64_t *lo,
                     int64_t *hi) {
  const int64_t off = k * dil - pad; /* big = s * stride + off */
  int64_t a = off >= 0 ? 0 : (-off + stride - 1) / stride;
  int64_t b = big - off <= 0 ? 0 : (big - off + stride - 1) / stride;
  if (b > small) b = small;
  *lo = a;
  *hi = b > a ? b : a;
}

/* grad of B: gB[n, cb, bh, bw] = sum over the group's small channels and the kernel taps that land
 * on (bh, bw) of S * w. */
static void cb_grad_big(const pte_nn_conv_geom *g, const cb_side *S, const cb_side *B, const pte_tensor *w,
                        const int64_t ws[4], pte_tensor *out) {
  int64_t os[4];
  pte_nn_view4(out, os);
  for (int64_t n = 0; n < g->N; n++)
    for (int64_t cb = 0; cb < B->C; cb++) {
      const int64_t grp = cb / B->Cg, cbg = cb % B->Cg;
      for (int64_t bh = 0; bh < B->H; bh++)
        for (int64_t bw = 0; bw < B->W; bw++) {
          double acc = 0.0;
          for (int64_t kh = 0; kh < g->kH; kh++) {
            const int64_t th = bh + g->pH - kh * g->dH;
            if (th < 0 || th % g->sH != 0 || th / g->sH >= S->H) continue;
            const int64_t sh = th / g->sH;
            for (int64_t kw = 0; kw < g->kW; kw++) {
              const int64_t tw = bw + g->pW - kw * g->dW;
              if (tw < 0 || tw % g->sW != 0 || tw / g->sW >= S->W) continue;
              const int64_t sw = tw / g->sW;
              for (int64_t csg = 0; csg < S->Cg; csg++) {
                const int64_t cs = grp * S->Cg + csg;
                acc += cb_at(S, n, cs, sh, sw) *
                       cb_ld(w, cs * ws[0] + cbg * ws[1] + kh * ws[2] + kw * ws[3]);
              }
            }
          }
          cb_store(out, os, n, cb, bh, bw, acc);
        }
    }
}

/* float32 grad of B by scatter: zero it, then for every (small channel, tap) add the scaled
 * small rows into the big positions they reach (unit-stride inner loop, float accumulation as
 * ATen's col2im does). */
static void cb_grad_big_f32(const pte_nn_conv_geom *g, const cb_side *S, const cb_side *B, const pte_tensor *w,
                            const int64_t ws[4], pte_tensor *out) {
  int64_t os[4];
  pte_nn_view4(out, os);
  float *o = (float *)out->data;
  const float *sv = (const float *)S->t->data, *wv = (const float *)w->data;
  for (int64_t n = 0; n < g->N; n++)
    for (int64_t cb = 0; cb < B->C; cb++)
      for (int64_t bh = 0; bh < B->H; bh++)
        for (int64_t bw = 0; bw < B->W; bw++) o[n * os[0] + cb * os[1] + bh * os[2] + bw * os[3]] = 0.0f;
  const int64_t ostep = g->sW * os[3];
  for (int64_t n = 0; n < g->N; n++)
    for (int64_t cs = 0; cs < S->C; cs++) {
      const int64_t grp = cs / S->Cg;
      for (int64_t cbg = 0; cbg < B->Cg; cbg++) {
        const int64_t cb = grp * B->Cg + cbg;
        for (int64_t kh = 0; kh < g->kH; kh++) {
          int64_t h0, h1;
          cb_range(kh, g->sH, g->pH, g->dH, S->H, B->H, &h0, &h1);
          for (int64_t kw = 0; kw < g->kW; kw++) {
            int64_t w0, w1;
            cb_range(kw, g->sW, g->pW, g->dW, S->W, B->W, &w0, &w1);
            const float wk = wv[cs * ws[0] + cbg * ws[1] + kh * ws[2] + kw * ws[3]];
            const int64_t bw0 = w0 * g->sW - g->pW + kw * g->dW;
            for (int64_t sh = h0; sh < h1; sh++) {
              const int64_t bh = sh * g->sH - g->pH + kh * g->dH;
              const float *sp = sv + n * S->st[0] + cs * S->st[1] + sh * S->st[2];
              float *op = o + n * os[0] + cb * os[1] + bh * os[2] + bw0 * os[3];
              for (int64_t sw = w0, j = 0; sw < w1; sw++, j++) op[j * ostep] += sp[sw * S->st[3]] * wk;
            }
          }
        }
      }
    }
}

/* grad of S: gS[n, cs, sh, sw] = sum over the group's big channels and taps of B * w. */
static void cb_grad_small(const pte_nn_conv_geom *g, const cb_side *S, const cb_side *B, const pte_tensor *w,
                          const int64_t ws[4], pte_tensor *out) {
  int64_t os[4];
  pte_nn_view4(out, os);
  for (int64_t n = 0; n < g->N; n++)
    for (int64_t cs = 0; cs < S->C; cs++) {
      const int64_t grp = cs / S->Cg;
      for (int64_t sh = 0; sh < S->H; sh++)
        for (int64_t sw = 0; sw < S->W; sw++) {
          double acc = 0.0;
          for (int64_t kh = 0; kh < g->kH; kh++) {
            const int64_t bh = sh * g->sH - g->pH + kh * g->dH;
            if (bh < 0 || bh >= B->H) continue;
            for (int64_t kw = 0; kw < g->kW; kw++) {
              const int64_t bw = sw * g->sW - g->pW + kw * g->dW;
              if (bw < 0 || bw >= B->W) continue;
              for (int64_t cbg = 0; cbg < B->Cg; cbg++)
                acc += cb_at(B, n, grp * B->Cg + cbg, bh, bw) *
                       cb_ld(w, cs * ws[0] + cbg * ws[1] + kh * ws[2] + kw * ws[3]);
            }
          }
          cb_store(out, os, n, cs, sh, sw, acc);
        }
    }
}

/* grad of weight: gw[cs, cbg, kh, kw] = sum over batch and small positions of S * B (each row a
 * branch-free dot product over the in-range positions). */
static void cb_grad_weight(const pte_nn_conv_geom *g, const cb_side *S, const cb_side *B, pte_tensor *out) {
  int64_t os[4];
  pte_nn_view4(out, os);
  const bool f32 = S->t->dtype == PTE_DTYPE_FLOAT;
  for (int64_t cs = 0; cs < S->C; cs++) {
    const int64_t grp = cs / S->Cg;
    for (int64_t cbg = 0; cbg < B->Cg; cbg++)
      for (int64_t kh = 0; kh < g->kH; kh++) {
        int64_t h0, h1;
        cb_range(kh, g->sH, g->pH, g->dH, S->H, B->H, &h0, &h1);
        for (int64_t kw = 0; kw < g->kW; kw++) {
          int64_t w0, w1;
          cb_range(kw, g->sW, g->pW, g->dW, S->W, B->W, &w0, &w1);
          const int64_t bw0 = w0 * g->sW - g->pW + kw * g->dW, sbw = g->sW * B->st[3];
          double acc = 0.0;
          for (int64_t n = 0; n < g->N; n++)
            for (int64_t sh = h0; sh < h1; sh++) {
              const int64_t bh = sh * g->sH - g->pH + kh * g->dH;
              const int64_t so = n * S->st[0] + cs * S->st[1] + sh * S->st[2];
              const int64_t bo = n * B->st[0] + (grp * B->Cg + cbg) * B->st[1] + bh * B->st[2] + bw0 * B->st[3];
              if (f32) {
                const float *sp = (const float *)S->t->data + so, *bp = (const float *)B->t->data + bo;
                for (int64_t sw = w0, j = 0; sw < w1; sw++, j++) acc += (double)sp[sw * S->st[3]] * (double)bp[j * sbw];
              } else {
                for (int64_t sw = w0, j = 0; sw < w1; sw++, j++) acc += cb_ld(S->t, so + sw * S->st[3]) * cb_ld(B->t, bo + j * sbw);
              }
            }
          cb_store(out, os, cs, cbg, kh, kw, acc);
        }
      }
  }
}

static void op_convolution_backward(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  static const char op[] = "convolution_backward";
  if (!pte_nn_check_nargs(ctx, nargs, 14, 3)) return;
  pte_tensor *gy = pte_k_arg_tensor(ctx, args, nargs, 0);
  pte_tensor *in = pte_k_arg_tensor(ctx, args, nargs, 1);
  pte_tensor *w = pte_k_arg_tensor(ctx, args, nargs, 2);
  if (!gy || !in || !w) return;
  pte_nn_conv_geom g;
  if (!pte_nn_conv_geom_read(ctx, op, args, nargs, 4, in, w, &g)) return;
  const pte_evalue *mv = args[10];
  if (!mv || mv->tag != PTE_TAG_LIST_BOOL || mv->u.bool_list.len != 3) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "%s: output_mask (argument 10) must be a list of 3 bools", op);
    return;
  }
  bool mask[3];
  for (int i = 0; i < 3; i++) mask[i] = mv->u.bool_list.items[i] != 0;
  pte_tensor *outs[3] = {NULL, NULL, NULL};
  for (int i = 0; i < 3; i++) {
    if (!mask[i]) continue;
    outs[i] = pte_k_arg_tensor(ctx, args, nargs, 11 + (size_t)i);
    if (!outs[i]) return;
  }
  const int dt = in->dtype;
  if (!pte_k_is_floating(dt) || gy->dtype != dt || w->dtype != dt) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT,
                    "%s: grad_output, input and weight must share one floating dtype, got %s, %s, %s", op,
                    pte_dtype_name(gy->dtype), pte_dtype_name(dt), pte_dtype_name(w->dtype));
    return;
  }
  for (int i = 0; i < 3; i++)
    if (outs[i] && outs[i]->dtype != dt) {
      pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "%s: out%d dtype %s != input dtype %s", op, i,
                      pte_dtype_name(outs[i]->dtype), pte_dtype_name(dt));
      return;
    }
  /* grad_output must have the forward output's shape */
  const bool gy_ok = gy->dim == in->dim && gy->sizes[0] == g.N && gy->sizes[1] == g.Cout &&
                     (g.one_d ? gy->sizes[2] == g.OW : gy->sizes[2] == g.OH && gy->sizes[3] == g.OW);
  if (!gy_ok) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT,
                    "%s: grad_output must have the convolution's output shape [%lld, %lld, %lld, %lld]", op,
                    (long long)g.N, (long long)g.Cout, (long long)g.OH, (long long)g.OW);
    return;
  }
  if ((outs[0] && outs[0]->dim != in->dim) || (outs[1] && outs[1]->dim != w->dim) || (outs[2] && outs[2]->dim != 1)) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "%s: out0/out1/out2 must have the ranks of input, weight and [C_out]",
                    op);
    return;
  }
  int32_t bsz[1] = {(int32_t)g.Cout};
  if ((outs[0] && !pte_k_resize_like(ctx, outs[0], in)) || (outs[1] && !pte_k_resize_like(ctx, outs[1], w)) ||
      (outs[2] && !pte_k_resize_out(ctx, outs[2], bsz, 1)))
    return;
  if (!pte_k_check_data(ctx, gy, "grad_output") || !pte_k_check_data(ctx, in, "input") ||
      !pte_k_check_data(ctx, w, "weight"))
    return;
  cb_side X = {in, {0}, g.Cin, g.Cin_g, g.H, g.W}, Y = {gy, {0}, g.Cout, g.Cout_g, g.OH, g.OW};
  pte_nn_view4(in, X.st);
  pte_nn_view4(gy, Y.st);
  int64_t ws[4];
  pte_nn_view4(w, ws);
  const cb_side *S = g.transposed ? &X : &Y, *B = g.transposed ? &Y : &X;
  if (outs[0]) {
    if (g.transposed)
      cb_grad_small(&g, S, B, w, ws, outs[0]);
    else if (dt == PTE_DTYPE_FLOAT)
      cb_grad_big_f32(&g, S, B, w, ws, outs[0]);
    else
      cb_grad_big(&g, S, B, w, ws, outs[0]);
  }
  if (outs[1]) cb_grad_weight(&g, S, B, outs[1]);
  if (outs[2]) {
    for (int64_t c = 0; c < g.Cout; c++) {
      double acc = 0.0;
      for (int64_t n = 0; n < g.N; n++)
        for (int64_t h = 0; h < g.OH; h++)
          for (int64_t x = 0; x < g.OW; x++) acc += cb_at(&Y, n, c, h, x);
      pte_k_store_double(outs[2]->data, dt, c * outs[2]->strides[0], acc);
    }
  }
  pte_nn_set_returns(args, nargs, 11, 3);
}

const pte_kernel pte_portable_conv_backward_kernels[] = {
    {"aten::convolution_backward.out", NULL, op_convolution_backward},
};
const size_t pte_portable_conv_backward_kernels_count =
    sizeof pte_portable_conv_backward_kernels / sizeof pte_portable_conv_backward_kernels[0];
