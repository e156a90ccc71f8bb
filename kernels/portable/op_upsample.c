/* Bilinear resampling kernels:
 *   aten::upsample_bilinear2d.vec_out(Tensor input, SymInt[]? output_size, bool align_corners,
 *       float[]? scale_factors, *, Tensor(a!) out)
 *   aten::_upsample_bilinear2d_aa.out(Tensor self, SymInt[2] output_size, bool align_corners,
 *       float? scales_h=None, float? scales_w=None, *, Tensor(a!) out)
 *
 * ATen's coordinate rules: the source scale of a dim is (in-1)/(out-1) with align_corners (0 for
 * out == 1), else 1/scale_factor when one is given (> 0), else in/out. Plain bilinear maps
 * dst -> src = scale * dst (align_corners) or scale * (dst + 0.5) - 0.5 clamped at 0, and blends
 * the two neighbours; a dim whose output size equals its input size is copied. The antialiased variant uses a triangle filter of support max(scale, 1)
 * around center = scale * (dst + 0.5), with taps normalised to sum 1 (separable, as in PIL).
 * 4-D input [N, C, H, W], any dim order; real dtypes (integral results rounded to nearest and
 * saturated); arithmetic in double.
 */
#include <math.h>

#include "portable/portable_nn.h"
#include "pte/allocator.h"
#include "portable/util/kutil.h"

/* Shared checks: 4-D non-empty spatial input, out dtype, out rank; resizes out to
 * [N, C, oh, ow]. */
static bool ups_prepare(pte_kernel_context *ctx, const char *op, const pte_tensor *in, int64_t oh, int64_t ow,
                        pte_tensor *out) {
  if (in->dim != 4) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "%s: input must be 4-D [N, C, H, W], got rank %d", op, (int)in->dim);
    return false;
  }
  if (!pte_k_dtype_supported(in->dtype) || in->dtype == PTE_DTYPE_BOOL) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "%s: unsupported input dtype %s", op, pte_dtype_name(in->dtype));
    return false;
  }
  if (out->dtype != in->dtype) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "%s: out dtype %s != input dtype %s", op,
                    pte_dtype_name(out->dtype), pte_dtype_name(in->dtype));
    return false;
  }
  if (in->sizes[2] <= 0 || in->sizes[3] <= 0 || oh <= 0 || ow <= 0 || oh > INT32_MAX || ow > INT32_MAX) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT,
                    "%s: input (%d, %d) and output (%lld, %lld) spatial sizes should be greater than 0", op,
                    (int)in->sizes[2], (int)in->sizes[3], (long long)oh, (long long)ow);
    return false;
  }
  if (out->dim != 4) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "%s: out must be 4-D, got rank %d", op, (int)out->dim);
    return false;
  }
  int32_t osz[4] = {in->sizes[0], in->sizes[1], (int32_t)oh, (int32_t)ow};
  return pte_k_resize_out(ctx, out, osz, 4) && pte_k_check_data(ctx, in, "input");
}

/* ATen area_pixel_compute_scale. */
static double ups_scale(int64_t in, int64_t out, bool align_corners, double scale) {
  if (align_corners) return out > 1 ? (double)(in - 1) / (double)(out - 1) : 0.0;
  return scale > 0 ? 1.0 / scale : (double)in / (double)out;
}

/* Element `off` of t as double (float32 read directly). */
static inline double ups_ld(const pte_tensor *t, int64_t off) {
  return t->dtype == PTE_DTYPE_FLOAT ? (double)((const float *)t->data)[off] : pte_k_load_double(t->data, t->dtype, off);
}

/* Stores v into out, rounding to nearest and saturating for integral dtypes. */
static inline void ups_store(pte_tensor *out, int64_t off, double v) {
  if (out->dtype == PTE_DTYPE_FLOAT) {
    ((float *)out->data)[off] = (float)v;
    return;
  }
  if (pte_k_is_integral(out->dtype)) {
    static const double lo[] = {[PTE_DTYPE_BYTE] = 0, [PTE_DTYPE_CHAR] = -128, [PTE_DTYPE_SHORT] = -32768,
                                [PTE_DTYPE_INT] = -2147483648.0, [PTE_DTYPE_LONG] = -9223372036854775808.0};
    static const double hi[] = {[PTE_DTYPE_BYTE] = 255, [PTE_DTYPE_CHAR] = 127, [PTE_DTYPE_SHORT] = 32767,
                                [PTE_DTYPE_INT] = 2147483647.0, [PTE_DTYPE_LONG] = 9223372036854775807.0};
    v = nearbyint(v);
    if (v < lo[out->dtype]) v = lo[out->dtype];
    if (v > hi[out->dtype]) v = hi[out->dtype];
  }
  pte_k_store_double(out->data, out->dtype, off, v);
}

/* Reads an optional float[] of two scale factors (NULL-able). */
static bool ups_opt_scales(pte_kernel_context *ctx, const char *op, pte_evalue **args, size_t nargs, size_t i,
                           bool *has, double *sh, double *sw) {
  *has = false;
  *sh = *sw = -1.0;
  if (pte_k_arg_is_none(args, nargs, i)) return true;
  const pte_evalue *v = args[i];
  if (v->tag != PTE_TAG_LIST_DOUBLE || v->u.double_list.len != 2) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "%s: scale_factors (argument %zu) must be a list of 2 floats", op, i);
    return false;
  }
  *has = true;
  *sh = v->u.double_list.items[0];
  *sw = v->u.double_list.items[1];
  return true;
}

/* ---- upsample_bilinear2d.vec ---------------------------------------------------------------- */

typedef struct ups_tap {
  int64_t i0, i1; /* neighbours */
  double l0, l1;  /* weights */
} ups_tap;

static ups_tap ups_linear_tap(int64_t dst, int64_t in_size, int64_t out_size, double scale, bool align_corners) {
  if (in_size == out_size) return (ups_tap){dst, dst, 1.0, 0.0}; /* ATen copies an unscaled dim */
  double src = align_corners ? scale * (double)dst : scale * ((double)dst + 0.5) - 0.5;
  if (src < 0) src = 0;
  ups_tap t;
  t.i0 = (int64_t)src;
  if (t.i0 > in_size - 1) t.i0 = in_size - 1;
  t.i1 = t.i0 + (t.i0 < in_size - 1 ? 1 : 0);
  t.l1 = src - (double)t.i0;
  if (t.l1 > 1) t.l1 = 1;
  t.l0 = 1.0 - t.l1;
  return t;
}

static void op_upsample_bilinear2d(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  static const char op[] = "upsample_bilinear2d";
  if (!pte_k_check_nargs(ctx, nargs, 5, 6)) return;
  pte_tensor *in = pte_k_arg_tensor(ctx, args, nargs, 0);
  bool align_corners, has_scales;
  double sh, sw;
  if (!in || !pte_k_arg_bool(ctx, args, nargs, 2, &align_corners) ||
      !ups_opt_scales(ctx, op, args, nargs, 3, &has_scales, &sh, &sw))
    return;
  pte_tensor *out = pte_k_arg_tensor(ctx, args, nargs, 4);
  if (!out) return;
  if (in->dim != 4) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "%s: input must be 4-D [N, C, H, W], got rank %d", op, (int)in->dim);
    return;
  }
  const bool has_size = !pte_k_arg_is_none(args, nargs, 1);
  if (has_size == has_scales) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "%s: must specify exactly one of output_size and scale_factors", op);
    return;
  }
  int64_t oh, ow;
  if (has_size) {
    size_t n;
    const int64_t *os = pte_k_arg_int_list(ctx, args, nargs, 1, &n);
    if (!os) return;
    if (n != 2) {
      pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "%s: output_size must have 2 entries, got %zu", op, n);
      return;
    }
    oh = os[0];
    ow = os[1];
  } else {
    double fh = (double)in->sizes[2] * sh, fw = (double)in->sizes[3] * sw;
    if (!(fh >= 0 && fh < 2147483648.0 && fw >= 0 && fw < 2147483648.0)) {
      pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "%s: invalid scale_factors (%g, %g)", op, sh, sw);
      return;
    }
    oh = (int64_t)fh;
    ow = (int64_t)fw;
  }
  if (!ups_prepare(ctx, op, in, oh, ow, out)) return;
  const int64_t N = in->sizes[0], C = in->sizes[1], H = in->sizes[2], W = in->sizes[3];
  const double rh = ups_scale(H, oh, align_corners, sh), rw = ups_scale(W, ow, align_corners, sw);
  /* column taps: computed once into temp memory when the context has some, else per element */
  ups_tap *xt = NULL;
  const size_t mark = ctx->temp ? ctx->temp->used : 0;
  if (ctx->temp) xt = PTE_ALLOC_ARRAY(ctx->temp, ups_tap, (size_t)ow);
  if (xt)
    for (int64_t x = 0; x < ow; x++) xt[x] = ups_linear_tap(x, W, ow, rw, align_corners);
  /* channel innermost when channels are the densest dim of the input (channels-last), else the
   * spatial walk innermost */
  const bool c_inner = in->strides[1] < in->strides[3];
  const bool f32 = in->dtype == PTE_DTYPE_FLOAT && !c_inner;
  const int64_t outer = c_inner ? N : N * C;
  for (int64_t nc = 0; nc < outer; nc++) {
    const int64_t c0 = c_inner ? 0 : nc % C, c1 = c_inner ? C : c0 + 1, n = c_inner ? nc : nc / C;
    for (int64_t y = 0; y < oh; y++) {
      const ups_tap ty = ups_linear_tap(y, H, oh, rh, align_corners);
      const int64_t sy0 = ty.i0 * in->strides[2], sy1 = ty.i1 * in->strides[2];
      if (f32 && xt) {
        /* float32, one channel per row: two input rows blended along the cached column taps */
        const float *r0 = (const float *)in->data + n * in->strides[0] + c0 * in->strides[1] + sy0;
        const float *r1 = (const float *)in->data + n * in->strides[0] + c0 * in->strides[1] + sy1;
        float *o = (float *)out->data + n * out->strides[0] + c0 * out->strides[1] + y * out->strides[2];
        const int64_t sx = in->strides[3], so = out->strides[3];
        const double a0 = ty.l0, a1 = ty.l1;
        for (int64_t x = 0; x < ow; x++) {
          const ups_tap *t = &xt[x];
          const double top = t->l0 * r0[t->i0 * sx] + t->l1 * r0[t->i1 * sx];
          const double bot = t->l0 * r1[t->i0 * sx] + t->l1 * r1[t->i1 * sx];
          o[x * so] = (float)(a0 * top + a1 * bot);
        }
        continue;
      }
      for (int64_t x = 0; x < ow; x++) {
        const ups_tap tx = xt ? xt[x] : ups_linear_tap(x, W, ow, rw, align_corners);
        const int64_t sx0 = tx.i0 * in->strides[3], sx1 = tx.i1 * in->strides[3];
        const int64_t ob = n * out->strides[0] + y * out->strides[2] + x * out->strides[3];
        for (int64_t c = c0; c < c1; c++) {
          const int64_t b = n * in->strides[0] + c * in->strides[1];
          const double v = ty.l0 * (tx.l0 * ups_ld(in, b + sy0 + sx0) + tx.l1 * ups_ld(in, b + sy0 + sx1)) +
                           ty.l1 * (tx.l0 * ups_ld(in, b + sy1 + sx0) + tx.l1 * ups_ld(in, b + sy1 + sx1));
          ups_store(out, ob + c * out->strides[1], v);
        }
      }
    }
  }
  if (ctx->temp) ctx->temp->used = mark;
  pte_k_set_return(args, nargs, 4);
}

/* ---- _upsample_bilinear2d_aa ----------------------------------------------------------------- */

/* Filter window of output index dst along one dim: taps [*lo, *lo + *cnt), weight of tap j is
 * aa_weight(...) / *total. */
typedef struct ups_aa {
  double scale, support, invscale, center, total;
  int64_t lo, cnt;
} ups_aa;

static double ups_tri(double x) {
  x = fabs(x);
  return x < 1.0 ? 1.0 - x : 0.0;
}

static double ups_aa_w(const ups_aa *a, int64_t j) {
  return ups_tri(((double)(j + a->lo) - a->center + 0.5) * a->invscale);
}

static ups_aa ups_aa_window(int64_t dst, int64_t in_size, int64_t out_size, double scale) {
  ups_aa a;
  if (in_size == out_size) { /* ATen skips the pass of an unscaled dim: identity */
    a.scale = a.support = a.invscale = 1.0;
    a.center = (double)dst + 0.5;
    a.lo = dst;
    a.cnt = 1;
    a.total = 1.0;
    return a;
  }
  a.scale = scale;
  a.support = scale >= 1.0 ? scale : 1.0;
  a.invscale = scale >= 1.0 ? 1.0 / scale : 1.0;
  a.center = scale * ((double)dst + 0.5);
  int64_t lo = (int64_t)(a.center - a.support + 0.5), hi = (int64_t)(a.center + a.support + 0.5);
  if (lo < 0) lo = 0;
  if (hi > in_size) hi = in_size;
  a.lo = lo;
  a.cnt = hi > lo ? hi - lo : 0;
  a.total = 0.0;
  for (int64_t j = 0; j < a.cnt; j++) a.total += ups_aa_w(&a, j);
  return a;
}

/* Windows of every output index along one dim: taps [lo, lo + cnt) with weights w[ofs ..]. */
typedef struct ups_wtab {
  int64_t *lo, *cnt, *ofs;
  double *w;
} ups_wtab;

static bool ups_wtab_build(pte_allocator *temp, int64_t in_size, int64_t out_size, double scale, ups_wtab *t) {
  t->lo = PTE_ALLOC_ARRAY(temp, int64_t, (size_t)out_size);
  t->cnt = PTE_ALLOC_ARRAY(temp, int64_t, (size_t)out_size);
  t->ofs = PTE_ALLOC_ARRAY(temp, int64_t, (size_t)out_size);
  if (!t->lo || !t->cnt || !t->ofs) return false;
  int64_t total = 0;
  for (int64_t i = 0; i < out_size; i++) {
    const ups_aa a = ups_aa_window(i, in_size, out_size, scale);
    t->lo[i] = a.lo;
    t->cnt[i] = a.cnt;
    t->ofs[i] = total;
    total += a.cnt;
  }
  t->w = PTE_ALLOC_ARRAY(temp, double, (size_t)(total ? total : 1));
  if (!t->w) return false;
  for (int64_t i = 0; i < out_size; i++) {
    const ups_aa a = ups_aa_window(i, in_size, out_size, scale);
    for (int64_t j = 0; j < a.cnt; j++) t->w[t->ofs[i] + j] = a.total != 0.0 ? ups_aa_w(&a, j) / a.total : 0.0;
  }
  return true;
}

static void op_upsample_bilinear2d_aa(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  static const char op[] = "_upsample_bilinear2d_aa";
  if (!pte_k_check_nargs(ctx, nargs, 6, 7)) return;
  pte_tensor *in = pte_k_arg_tensor(ctx, args, nargs, 0);
  size_t n = 0;
  const int64_t *os = in ? pte_k_arg_int_list(ctx, args, nargs, 1, &n) : NULL;
  bool align_corners;
  double sh = -1.0, sw = -1.0;
  if (!in || !os || !pte_k_arg_bool(ctx, args, nargs, 2, &align_corners) ||
      (!pte_k_arg_is_none(args, nargs, 3) && !pte_k_arg_double(ctx, args, nargs, 3, &sh)) ||
      (!pte_k_arg_is_none(args, nargs, 4) && !pte_k_arg_double(ctx, args, nargs, 4, &sw)))
    return;
  pte_tensor *out = pte_k_arg_tensor(ctx, args, nargs, 5);
  if (!out) return;
  if (n != 2) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "%s: output_size must have 2 entries, got %zu", op, n);
    return;
  }
  const int64_t oh = os[0], ow = os[1];
  if (!ups_prepare(ctx, op, in, oh, ow, out)) return;
  const int64_t N = in->sizes[0], C = in->sizes[1], H = in->sizes[2], W = in->sizes[3];
  const double rh = ups_scale(H, oh, align_corners, sh), rw = ups_scale(W, ow, align_corners, sw);
  /* normalised tap weights of every output row and column, in temp memory when there is some */
  const size_t mark = ctx->temp ? ctx->temp->used : 0;
  ups_wtab ty, tx;
  const bool tab = ctx->temp && ups_wtab_build(ctx->temp, H, oh, rh, &ty) && ups_wtab_build(ctx->temp, W, ow, rw, &tx);
  const bool c_inner = in->strides[1] < in->strides[3];
  const int64_t outer = c_inner ? N : N * C;
  for (int64_t nc = 0; nc < outer; nc++) {
    const int64_t c0 = c_inner ? 0 : nc % C, c1 = c_inner ? C : c0 + 1, nn = c_inner ? nc : nc / C;
    for (int64_t y = 0; y < oh; y++) {
      const ups_aa ay = tab ? (ups_aa){0} : ups_aa_window(y, H, oh, rh);
      const int64_t ylo = tab ? ty.lo[y] : ay.lo, ycnt = tab ? ty.cnt[y] : ay.cnt;
      const double *wyt = tab ? ty.w + ty.ofs[y] : NULL;
      for (int64_t x = 0; x < ow; x++) {
        const ups_aa ax = tab ? (ups_aa){0} : ups_aa_window(x, W, ow, rw);
        const int64_t xlo = tab ? tx.lo[x] : ax.lo, xcnt = tab ? tx.cnt[x] : ax.cnt;
        const double *wxt = tab ? tx.w + tx.ofs[x] : NULL;
        for (int64_t c = c0; c < c1; c++) {
          const int64_t b = nn * in->strides[0] + c * in->strides[1] + ylo * in->strides[2] + xlo * in->strides[3];
          double v = 0.0;
          for (int64_t i = 0; i < ycnt; i++) {
            const double wy = tab ? wyt[i] : (ay.total != 0.0 ? ups_aa_w(&ay, i) / ay.total : 0.0);
            double row = 0.0;
            for (int64_t j = 0; j < xcnt; j++) {
              const double wx = tab ? wxt[j] : (ax.total != 0.0 ? ups_aa_w(&ax, j) / ax.total : 0.0);
              row += wx * ups_ld(in, b + i * in->strides[2] + j * in->strides[3]);
            }
            v += wy * row;
          }
          ups_store(out, nn * out->strides[0] + c * out->strides[1] + y * out->strides[2] + x * out->strides[3], v);
        }
      }
    }
  }
  if (ctx->temp) ctx->temp->used = mark;
  pte_k_set_return(args, nargs, 5);
}

const pte_kernel pte_portable_upsample_kernels[] = {
    {"aten::upsample_bilinear2d.vec_out", NULL, op_upsample_bilinear2d},
    {"aten::_upsample_bilinear2d_aa.out", NULL, op_upsample_bilinear2d_aa},
};
const size_t pte_portable_upsample_kernels_count =
    sizeof pte_portable_upsample_kernels / sizeof pte_portable_upsample_kernels[0];
