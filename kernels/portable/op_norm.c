/* Normalisation kernels:
 *   aten::native_layer_norm.out(Tensor input, SymInt[] normalized_shape, Tensor? weight,
 *       Tensor? bias, float eps, *, Tensor(a!) out0, Tensor(b!) out1, Tensor(c!) out2)
 *   aten::_native_batch_norm_legit_no_training.out(Tensor input, Tensor? weight, Tensor? bias,
 *       Tensor running_mean, Tensor running_var, float momentum, float eps, *, Tensor(a!) out0,
 *       Tensor(b!) out1, Tensor(c!) out2)
 *   aten::native_group_norm.out(Tensor input, Tensor? weight, Tensor? bias, SymInt N, SymInt C,
 *       SymInt HxW, int group, float eps, *, Tensor(a!) out0, Tensor(b!) out1, Tensor(c!) out2)
 *
 * Statistics are accumulated in double with two passes (mean, then centred variance; biased
 * variance, rstd = 1/sqrt(var + eps)). Every tensor is addressed through its strides, so any dim
 * order works (a block of dimensions that is dense in memory is walked with a single stride).
 * Floating dtypes only.
 */
#include <math.h>

#include "portable/portable_nn.h"
#include "portable/util/kutil.h"
#include "portable/util/kutil_nn.h"

/* A block of dimensions [from, to) of a tensor, walked in logical row-major order. */
typedef struct span {
  const pte_tensor *t;
  int32_t from, to;
  bool collapsed; /* the block is one arithmetic progression of `stride` */
  int64_t stride;
} span;

static span make_span(const pte_tensor *t, int32_t from, int32_t to) {
  span s = {t, from, to, true, 0};
  int32_t prev = -1;
  for (int32_t d = from; d < to; d++) {
    if (t->sizes[d] == 1) continue;
    if (prev >= 0 && (int64_t)t->strides[prev] != (int64_t)t->strides[d] * t->sizes[d]) {
      s.collapsed = false;
      return s;
    }
    prev = d;
    s.stride = t->strides[d];
  }
  return s;
}

/* Element offset of the j-th element (row-major within the block). */
static inline int64_t span_off(const span *s, int64_t j) {
  if (s->collapsed) return j * s->stride;
  int64_t off = 0;
  for (int32_t d = s->to - 1; d >= s->from; d--) {
    int64_t sz = s->t->sizes[d];
    off += (j % sz) * s->t->strides[d];
    j /= sz;
  }
  return off;
}

static bool check_floating(pte_kernel_context *ctx, const pte_tensor *t, const char *what) {
  if (t && !pte_k_is_floating(t->dtype)) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "%s: expected a floating dtype, got %s", what,
                    pte_dtype_name(t->dtype));
    return false;
  }
  return true;
}

static bool read_opt(pte_kernel_context *ctx, pte_evalue **args, size_t nargs, size_t i,
                     pte_tensor **t) {
  bool ok;
  *t = pte_k_arg_opt_tensor(ctx, args, nargs, i, &ok);
  return ok;
}

/* Loads element j (logical) of a small parameter vector of any layout. */
static inline double param(const pte_tensor *t, int64_t j, double dflt) {
  if (!t) return dflt;
  return pte_k_load_double(t->data, t->dtype, pte_k_offset_of_linear(t, (size_t)j));
}

/* ---- native_layer_norm -------------------------------------------------------------------- */

static void op_layer_norm(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  if (!pte_nn_check_nargs(ctx, nargs, 8, 3)) return;
  pte_tensor *in = pte_k_arg_tensor(ctx, args, nargs, 0);
  size_t k = 0;
  const int64_t *ns = in ? pte_k_arg_int_list(ctx, args, nargs, 1, &k) : NULL;
  pte_tensor *w, *b;
  double eps;
  if (!in || !ns || !read_opt(ctx, args, nargs, 2, &w) || !read_opt(ctx, args, nargs, 3, &b) ||
      !pte_k_arg_double(ctx, args, nargs, 4, &eps))
    return;
  pte_tensor *out = pte_k_arg_tensor(ctx, args, nargs, 5);
  pte_tensor *mean_t = pte_k_arg_tensor(ctx, args, nargs, 6);
  pte_tensor *rstd_t = pte_k_arg_tensor(ctx, args, nargs, 7);
  if (!out || !mean_t || !rstd_t) return;
  if (k < 1 || (int64_t)k > in->dim) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT,
                    "layer_norm: normalized_shape has %zu dims, input has %d", k, (int)in->dim);
    return;
  }
  const int32_t axis = in->dim - (int32_t)k;
  int64_t N = 1, M = 1;
  for (size_t i = 0; i < k; i++) {
    if (ns[i] != in->sizes[axis + (int32_t)i]) {
      pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT,
                      "layer_norm: normalized_shape[%zu]=%lld does not match input dim %d (%d)", i,
                      (long long)ns[i], (int)(axis + (int32_t)i), (int)in->sizes[axis + (int32_t)i]);
      return;
    }
    N *= ns[i];
  }
  for (int32_t d = 0; d < axis; d++) M *= in->sizes[d];
  const pte_tensor *params[2] = {w, b};
  for (int p = 0; p < 2; p++) {
    const pte_tensor *t = params[p];
    if (!t) continue;
    bool same = t->dim == (int32_t)k;
    for (int32_t d = 0; same && d < t->dim; d++) same = t->sizes[d] == ns[d];
    if (!same) {
      pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "layer_norm: %s shape != normalized_shape",
                      p ? "bias" : "weight");
      return;
    }
  }
  if (!check_floating(ctx, in, "input") || !check_floating(ctx, w, "weight") ||
      !check_floating(ctx, b, "bias") || !check_floating(ctx, mean_t, "mean") ||
      !check_floating(ctx, rstd_t, "rstd"))
    return;
  if (out->dtype != in->dtype) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "layer_norm: out dtype %s != input dtype %s",
                    pte_dtype_name(out->dtype), pte_dtype_name(in->dtype));
    return;
  }
  int32_t ssz[PTE_MAX_RANK];
  for (int32_t d = 0; d < in->dim; d++) ssz[d] = d < axis ? in->sizes[d] : 1;
  if (!pte_k_resize_like(ctx, out, in) || !pte_k_resize_out(ctx, mean_t, ssz, in->dim) ||
      !pte_k_resize_out(ctx, rstd_t, ssz, in->dim))
    return;
  if (!pte_k_check_data(ctx, in, "input") || (w && !pte_k_check_data(ctx, w, "weight")) ||
      (b && !pte_k_check_data(ctx, b, "bias")))
    return;
  span rin = make_span(in, 0, axis), rout = make_span(out, 0, axis);
  span rmean = make_span(mean_t, 0, axis), rrstd = make_span(rstd_t, 0, axis);
  span xin = make_span(in, axis, in->dim), xout = make_span(out, axis, out->dim);
  const bool fast = in->dtype == PTE_DTYPE_FLOAT && xin.collapsed && xout.collapsed &&
                    (!w || (w->dtype == PTE_DTYPE_FLOAT && pte_k_is_contiguous(w))) &&
                    (!b || (b->dtype == PTE_DTYPE_FLOAT && pte_k_is_contiguous(b)));
  for (int64_t r = 0; r < M; r++) {
    const int64_t bi = span_off(&rin, r), bo = span_off(&rout, r);
    double mean = 0.0, var = 0.0;
    if (fast) {
      const float *x = (const float *)in->data + bi;
      float *y = (float *)out->data + bo;
      const int64_t sx = xin.stride, sy = xout.stride;
      const float *wf = w ? (const float *)w->data : NULL, *bf = b ? (const float *)b->data : NULL;
      double s = 0.0;
      for (int64_t j = 0; j < N; j++) s += x[j * sx];
      mean = N ? s / (double)N : 0.0;
      double q = 0.0;
      for (int64_t j = 0; j < N; j++) {
        double dlt = x[j * sx] - mean;
        q += dlt * dlt;
      }
      var = N ? q / (double)N : 0.0;
      const float fm = (float)mean, fr = (float)(1.0 / sqrt(var + eps));
      for (int64_t j = 0; j < N; j++) {
        float v = (x[j * sx] - fm) * fr;
        if (wf) v *= wf[j];
        if (bf) v += bf[j];
        y[j * sy] = v;
      }
    } else {
      double s = 0.0;
      for (int64_t j = 0; j < N; j++) s += pte_k_load_double(in->data, in->dtype, bi + span_off(&xin, j));
      mean = N ? s / (double)N : 0.0;
      double q = 0.0;
      for (int64_t j = 0; j < N; j++) {
        double dlt = pte_k_load_double(in->data, in->dtype, bi + span_off(&xin, j)) - mean;
        q += dlt * dlt;
      }
      var = N ? q / (double)N : 0.0;
      const double rs = 1.0 / sqrt(var + eps);
      for (int64_t j = 0; j < N; j++) {
        double v = (pte_k_load_double(in->data, in->dtype, bi + span_off(&xin, j)) - mean) * rs;
        v = v * param(w, j, 1.0) + param(b, j, 0.0);
        pte_k_store_double(out->data, out->dtype, bo + span_off(&xout, j), v);
      }
    }
    pte_k_store_double(mean_t->data, mean_t->dtype, span_off(&rmean, r), mean);
    pte_k_store_double(rstd_t->data, rstd_t->dtype, span_off(&rrstd, r), 1.0 / sqrt(var + eps));
  }
  pte_nn_set_returns(args, nargs, 5, 3);
}

/* ---- _native_batch_norm_legit_no_training ------------------------------------------------- */

static bool check_channel_vec(pte_kernel_context *ctx, const pte_tensor *t, int64_t C,
                              const char *what) {
  if (!t) return true;
  if (t->dim != 1 || t->sizes[0] != C) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "%s: expected shape [%lld]", what, (long long)C);
    return false;
  }
  return check_floating(ctx, t, what) && pte_k_check_data(ctx, t, what);
}

static bool resize_empty(pte_kernel_context *ctx, pte_tensor *t) {
  int32_t z[PTE_MAX_RANK] = {0};
  if (t->dim == 0) return true; /* a 0-dim tensor cannot be empty; leave it untouched */
  return pte_k_resize_out(ctx, t, z, t->dim);
}

static void op_batch_norm_no_training(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  if (!pte_nn_check_nargs(ctx, nargs, 10, 3)) return;
  pte_tensor *in = pte_k_arg_tensor(ctx, args, nargs, 0);
  pte_tensor *w, *b;
  if (!in || !read_opt(ctx, args, nargs, 1, &w) || !read_opt(ctx, args, nargs, 2, &b)) return;
  pte_tensor *rm = pte_k_arg_tensor(ctx, args, nargs, 3);
  pte_tensor *rv = pte_k_arg_tensor(ctx, args, nargs, 4);
  double momentum, eps;
  if (!rm || !rv || !pte_k_arg_double(ctx, args, nargs, 5, &momentum) ||
      !pte_k_arg_double(ctx, args, nargs, 6, &eps))
    return;
  pte_tensor *out = pte_k_arg_tensor(ctx, args, nargs, 7);
  pte_tensor *o1 = pte_k_arg_tensor(ctx, args, nargs, 8);
  pte_tensor *o2 = pte_k_arg_tensor(ctx, args, nargs, 9);
  if (!out || !o1 || !o2) return;
  if (in->dim < 2) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "batch_norm: input must be at least 2-D");
    return;
  }
  const int64_t C = in->sizes[1];
  if (!check_floating(ctx, in, "input") || !check_channel_vec(ctx, w, C, "weight") ||
      !check_channel_vec(ctx, b, C, "bias") || !check_channel_vec(ctx, rm, C, "running_mean") ||
      !check_channel_vec(ctx, rv, C, "running_var"))
    return;
  if (out->dtype != in->dtype) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "batch_norm: out dtype %s != input dtype %s",
                    pte_dtype_name(out->dtype), pte_dtype_name(in->dtype));
    return;
  }
  if (!pte_k_resize_like(ctx, out, in) || !resize_empty(ctx, o1) || !resize_empty(ctx, o2)) return;
  if (!pte_k_check_data(ctx, in, "input")) return;
  const int64_t Nb = in->sizes[0];
  int64_t S = 1;
  for (int32_t d = 2; d < in->dim; d++) S *= in->sizes[d];
  span sin = make_span(in, 2, in->dim), sout = make_span(out, 2, out->dim);
  const bool fast = in->dtype == PTE_DTYPE_FLOAT && sin.collapsed && sout.collapsed;
  for (int64_t c = 0; c < C; c++) {
    /* y = x * scale + shift with scale = w * invstd, shift = b - mean * scale */
    double invstd = 1.0 / sqrt(param(rv, c, 0.0) + eps);
    double scale = param(w, c, 1.0) * invstd;
    double shift = param(b, c, 0.0) - param(rm, c, 0.0) * scale;
    for (int64_t n = 0; n < Nb; n++) {
      int64_t bi = n * in->strides[0] + c * in->strides[1];
      int64_t bo = n * out->strides[0] + c * out->strides[1];
      if (fast) {
        const float *x = (const float *)in->data + bi;
        float *y = (float *)out->data + bo;
        const float fs = (float)scale, fsh = (float)shift;
        const int64_t sx = sin.stride, sy = sout.stride;
        if (sx == 1 && sy == 1) {
          for (int64_t j = 0; j < S; j++) y[j] = x[j] * fs + fsh;
        } else {
          for (int64_t j = 0; j < S; j++) y[j * sy] = x[j * sx] * fs + fsh;
        }
      } else {
        for (int64_t j = 0; j < S; j++) {
          double v = pte_k_load_double(in->data, in->dtype, bi + span_off(&sin, j));
          pte_k_store_double(out->data, out->dtype, bo + span_off(&sout, j), v * scale + shift);
        }
      }
    }
  }
  (void)momentum;
  pte_nn_set_returns(args, nargs, 7, 3);
}

/* ---- _native_batch_norm_legit (training statistics) ---------------------------------------- */

/* Batch statistics per channel (biased variance over N and the spatial dims), normalises with
 * them, writes save_mean / save_invstd ([C]) and, when given, updates the running stats:
 * running = (1 - momentum) * running + momentum * stat (variance unbiased: * n / (n - 1)). */
static void bn_train(pte_kernel_context *ctx, const char *op, const pte_tensor *in, const pte_tensor *w,
                     const pte_tensor *b, pte_tensor *rm, pte_tensor *rv, double momentum, double eps,
                     pte_tensor *out, pte_tensor *sm, pte_tensor *si) {
  if (in->dim < 2) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "%s: input must be at least 2-D, got rank %d", op, (int)in->dim);
    return;
  }
  const int64_t C = in->sizes[1];
  if (!check_floating(ctx, in, "input") || !check_channel_vec(ctx, w, C, "weight") ||
      !check_channel_vec(ctx, b, C, "bias") || !check_channel_vec(ctx, rm, C, "running_mean") ||
      !check_channel_vec(ctx, rv, C, "running_var") || !check_floating(ctx, sm, "save_mean") ||
      !check_floating(ctx, si, "save_invstd"))
    return;
  if ((rm == NULL) != (rv == NULL)) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "%s: running_mean and running_var must both be given or both be None", op);
    return;
  }
  if (out->dtype != in->dtype) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "%s: out dtype %s != input dtype %s", op,
                    pte_dtype_name(out->dtype), pte_dtype_name(in->dtype));
    return;
  }
  int32_t csz[1] = {(int32_t)C};
  if (!pte_k_resize_like(ctx, out, in) || !pte_k_resize_out(ctx, sm, csz, 1) ||
      !pte_k_resize_out(ctx, si, csz, 1) || !pte_k_check_data(ctx, in, "input"))
    return;
  const int64_t Nb = in->sizes[0];
  int64_t S = 1;
  for (int32_t d = 2; d < in->dim; d++) S *= in->sizes[d];
  const int64_t cnt = Nb * S;
  span sin = make_span(in, 2, in->dim), sout = make_span(out, 2, out->dim);
  for (int64_t c = 0; c < C; c++) {
    double sum = 0.0, q = 0.0;
    for (int64_t n = 0; n < Nb; n++) {
      int64_t bi = n * in->strides[0] + c * in->strides[1];
      for (int64_t j = 0; j < S; j++) sum += pte_k_load_double(in->data, in->dtype, bi + span_off(&sin, j));
    }
    const double mean = cnt ? sum / (double)cnt : NAN;
    for (int64_t n = 0; n < Nb; n++) {
      int64_t bi = n * in->strides[0] + c * in->strides[1];
      for (int64_t j = 0; j < S; j++) {
        double d = pte_k_load_double(in->data, in->dtype, bi + span_off(&sin, j)) - mean;
        q += d * d;
      }
    }
    const double var = cnt ? q / (double)cnt : NAN, invstd = 1.0 / sqrt(var + eps);
    const double scale = param(w, c, 1.0) * invstd, shift = param(b, c, 0.0) - mean * scale;
    for (int64_t n = 0; n < Nb; n++) {
      int64_t bi = n * in->strides[0] + c * in->strides[1];
      int64_t bo = n * out->strides[0] + c * out->strides[1];
      for (int64_t j = 0; j < S; j++) {
        double v = pte_k_load_double(in->data, in->dtype, bi + span_off(&sin, j));
        pte_k_store_double(out->data, out->dtype, bo + span_off(&sout, j), v * scale + shift);
      }
    }
    pte_k_store_double(sm->data, sm->dtype, c * sm->strides[0], mean);
    pte_k_store_double(si->data, si->dtype, c * si->strides[0], invstd);
    if (rm) {
      const int64_t om = c * rm->strides[0], ov = c * rv->strides[0];
      const double unbiased = q / (double)(cnt - 1);
      pte_k_store_double(rm->data, rm->dtype, om,
                         (1.0 - momentum) * pte_k_load_double(rm->data, rm->dtype, om) + momentum * mean);
      pte_k_store_double(rv->data, rv->dtype, ov,
                         (1.0 - momentum) * pte_k_load_double(rv->data, rv->dtype, ov) + momentum * unbiased);
    }
  }
}

/* aten::_native_batch_norm_legit.out(Tensor input, Tensor? weight, Tensor? bias,
 *     Tensor(a!) running_mean, Tensor(b!) running_var, bool training, float momentum, float eps, *,
 *     Tensor(d!) out, Tensor(e!) save_mean, Tensor(f!) save_invstd)
 * training: batch statistics + running stats update; otherwise exactly
 * _native_batch_norm_legit_no_training (running stats, empty save_mean / save_invstd). */
static void op_batch_norm_legit(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  if (!pte_nn_check_nargs(ctx, nargs, 11, 3)) return;
  pte_tensor *in = pte_k_arg_tensor(ctx, args, nargs, 0);
  pte_tensor *w, *b;
  if (!in || !read_opt(ctx, args, nargs, 1, &w) || !read_opt(ctx, args, nargs, 2, &b)) return;
  pte_tensor *rm = pte_k_arg_tensor(ctx, args, nargs, 3);
  pte_tensor *rv = pte_k_arg_tensor(ctx, args, nargs, 4);
  bool training;
  double momentum, eps;
  if (!rm || !rv || !pte_k_arg_bool(ctx, args, nargs, 5, &training) ||
      !pte_k_arg_double(ctx, args, nargs, 6, &momentum) || !pte_k_arg_double(ctx, args, nargs, 7, &eps))
    return;
  if (!training) {
    pte_evalue *a2[13];
    size_t n2 = 0;
    for (size_t i = 0; i < nargs; i++)
      if (i != 5) a2[n2++] = args[i];
    op_batch_norm_no_training(ctx, a2, n2);
    return;
  }
  pte_tensor *out = pte_k_arg_tensor(ctx, args, nargs, 8);
  pte_tensor *sm = pte_k_arg_tensor(ctx, args, nargs, 9);
  pte_tensor *si = pte_k_arg_tensor(ctx, args, nargs, 10);
  if (!out || !sm || !si) return;
  if (!pte_k_check_data(ctx, rm, "running_mean") || !pte_k_check_data(ctx, rv, "running_var")) return;
  bn_train(ctx, "_native_batch_norm_legit", in, w, b, rm, rv, momentum, eps, out, sm, si);
  if (ctx->failure == PTE_OK) pte_nn_set_returns(args, nargs, 8, 3);
}

/* aten::_native_batch_norm_legit.no_stats_out(Tensor input, Tensor? weight, Tensor? bias,
 *     bool training, float momentum, float eps, *, Tensor(a!) out, Tensor(b!) save_mean,
 *     Tensor(c!) save_invstd)
 * Batch statistics only: with training=False there are no statistics to normalise with (ATen needs
 * running stats in evaluation mode), which is an error. */
static void op_batch_norm_no_stats(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  if (!pte_nn_check_nargs(ctx, nargs, 9, 3)) return;
  pte_tensor *in = pte_k_arg_tensor(ctx, args, nargs, 0);
  pte_tensor *w, *b;
  if (!in || !read_opt(ctx, args, nargs, 1, &w) || !read_opt(ctx, args, nargs, 2, &b)) return;
  bool training;
  double momentum, eps;
  if (!pte_k_arg_bool(ctx, args, nargs, 3, &training) || !pte_k_arg_double(ctx, args, nargs, 4, &momentum) ||
      !pte_k_arg_double(ctx, args, nargs, 5, &eps))
    return;
  pte_tensor *out = pte_k_arg_tensor(ctx, args, nargs, 6);
  pte_tensor *sm = pte_k_arg_tensor(ctx, args, nargs, 7);
  pte_tensor *si = pte_k_arg_tensor(ctx, args, nargs, 8);
  if (!out || !sm || !si) return;
  if (!training) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT,
                    "_native_batch_norm_legit.no_stats: training=False needs running_mean/running_var "
                    "(use _native_batch_norm_legit_no_training)");
    return;
  }
  bn_train(ctx, "_native_batch_norm_legit.no_stats", in, w, b, NULL, NULL, momentum, eps, out, sm, si);
  if (ctx->failure == PTE_OK) pte_nn_set_returns(args, nargs, 6, 3);
}

/* ---- native_group_norm -------------------------------------------------------------------- */

static void op_group_norm(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  if (!pte_nn_check_nargs(ctx, nargs, 11, 3)) return;
  pte_tensor *in = pte_k_arg_tensor(ctx, args, nargs, 0);
  pte_tensor *w, *b;
  int64_t N, C, HxW, G;
  double eps;
  if (!in || !read_opt(ctx, args, nargs, 1, &w) || !read_opt(ctx, args, nargs, 2, &b) ||
      !pte_k_arg_int(ctx, args, nargs, 3, &N) || !pte_k_arg_int(ctx, args, nargs, 4, &C) ||
      !pte_k_arg_int(ctx, args, nargs, 5, &HxW) || !pte_k_arg_int(ctx, args, nargs, 6, &G) ||
      !pte_k_arg_double(ctx, args, nargs, 7, &eps))
    return;
  pte_tensor *out = pte_k_arg_tensor(ctx, args, nargs, 8);
  pte_tensor *mean_t = pte_k_arg_tensor(ctx, args, nargs, 9);
  pte_tensor *rstd_t = pte_k_arg_tensor(ctx, args, nargs, 10);
  if (!out || !mean_t || !rstd_t) return;
  if (in->dim < 2 || in->sizes[0] != N || in->sizes[1] != C || N < 0 || C < 0 || HxW < 0 ||
      (uint64_t)in->numel != (uint64_t)N * (uint64_t)C * (uint64_t)HxW) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "group_norm: input does not match N, C, HxW");
    return;
  }
  if (G <= 0 || C % G != 0 || G > INT32_MAX) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "group_norm: C=%lld not divisible by group=%lld",
                    (long long)C, (long long)G);
    return;
  }
  if (!check_floating(ctx, in, "input") || !check_channel_vec(ctx, w, C, "weight") ||
      !check_channel_vec(ctx, b, C, "bias") || !check_floating(ctx, mean_t, "mean") ||
      !check_floating(ctx, rstd_t, "rstd"))
    return;
  if (out->dtype != in->dtype) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "group_norm: out dtype %s != input dtype %s",
                    pte_dtype_name(out->dtype), pte_dtype_name(in->dtype));
    return;
  }
  if (mean_t->dim != 2 || rstd_t->dim != 2) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "group_norm: mean/rstd must be 2-D [N, group]");
    return;
  }
  int32_t msz[2] = {(int32_t)N, (int32_t)G};
  if (!pte_k_resize_like(ctx, out, in) || !pte_k_resize_out(ctx, mean_t, msz, 2) ||
      !pte_k_resize_out(ctx, rstd_t, msz, 2))
    return;
  if (!pte_k_check_data(ctx, in, "input")) return;
  const int64_t Cg = C / G, cnt = Cg * HxW;
  span sin = make_span(in, 2, in->dim), sout = make_span(out, 2, out->dim);
  for (int64_t n = 0; n < N; n++) {
    for (int64_t g = 0; g < G; g++) {
      double s = 0.0;
      for (int64_t c = g * Cg; c < (g + 1) * Cg; c++) {
        int64_t bi = n * in->strides[0] + c * in->strides[1];
        for (int64_t j = 0; j < HxW; j++)
          s += pte_k_load_double(in->data, in->dtype, bi + span_off(&sin, j));
      }
      double mean = cnt ? s / (double)cnt : 0.0, q = 0.0;
      for (int64_t c = g * Cg; c < (g + 1) * Cg; c++) {
        int64_t bi = n * in->strides[0] + c * in->strides[1];
        for (int64_t j = 0; j < HxW; j++) {
          double d = pte_k_load_double(in->data, in->dtype, bi + span_off(&sin, j)) - mean;
          q += d * d;
        }
      }
      double var = cnt ? q / (double)cnt : 0.0, rstd = 1.0 / sqrt(var + eps);
      for (int64_t c = g * Cg; c < (g + 1) * Cg; c++) {
        double scale = param(w, c, 1.0) * rstd, shift = param(b, c, 0.0) - mean * scale;
        int64_t bi = n * in->strides[0] + c * in->strides[1];
        int64_t bo = n * out->strides[0] + c * out->strides[1];
        for (int64_t j = 0; j < HxW; j++) {
          double v = pte_k_load_double(in->data, in->dtype, bi + span_off(&sin, j));
          pte_k_store_double(out->data, out->dtype, bo + span_off(&sout, j), v * scale + shift);
        }
      }
      pte_k_store_double(mean_t->data, mean_t->dtype, n * mean_t->strides[0] + g * mean_t->strides[1],
                         mean);
      pte_k_store_double(rstd_t->data, rstd_t->dtype, n * rstd_t->strides[0] + g * rstd_t->strides[1],
                         rstd);
    }
  }
  pte_nn_set_returns(args, nargs, 8, 3);
}

const pte_kernel pte_portable_norm_kernels[] = {
    {"aten::native_layer_norm.out", NULL, op_layer_norm},
    {"aten::_native_batch_norm_legit_no_training.out", NULL, op_batch_norm_no_training},
    {"aten::native_group_norm.out", NULL, op_group_norm},
    {"aten::_native_batch_norm_legit.out", NULL, op_batch_norm_legit},
    {"aten::_native_batch_norm_legit.no_stats_out", NULL, op_batch_norm_no_stats},
};
const size_t pte_portable_norm_kernels_count =
    sizeof pte_portable_norm_kernels / sizeof pte_portable_norm_kernels[0];
