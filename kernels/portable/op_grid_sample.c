/* aten::grid_sampler_2d.out(Tensor input, Tensor grid, int interpolation_mode, int padding_mode,
 *     bool align_corners, *, Tensor(a!) out)
 *
 * input [N, C, H, W], grid [N, Ho, Wo, 2] holding normalised (x, y) in [-1, 1]; out
 * [N, C, Ho, Wo]. interpolation_mode 0 bilinear, 1 nearest (round half to even), 2 bicubic
 * (A = -0.75); padding_mode 0 zeros, 1 border, 2 reflection. ATen's rules: unnormalise
 * ((c + 1) / 2 * (size - 1) with align_corners, else ((c + 1) * size - 1) / 2), then border clips
 * and reflection reflects about the edges (pixel centres with align_corners, else pixel borders)
 * and clips; out-of-range taps read 0, and so do non-finite or huge coordinates. Bicubic applies the padding to each of its 16 taps.
 * Floating dtypes; input, grid and out the same dtype; any dim order; arithmetic in double.
 */
#include <math.h>

#include "portable/portable_nn.h"
#include "portable/util/kutil.h"

enum { GS_BILINEAR = 0, GS_NEAREST = 1, GS_BICUBIC = 2 };
enum { GS_ZEROS = 0, GS_BORDER = 1, GS_REFLECTION = 2 };

static double gs_unnormalize(double c, int64_t size, bool ac) {
  return ac ? (c + 1.0) / 2.0 * (double)(size - 1) : ((c + 1.0) * (double)size - 1.0) / 2.0;
}

static double gs_clip(double c, int64_t size) {
  double hi = (double)(size - 1);
  return c < 0.0 ? 0.0 : c > hi ? hi : c; /* NaN stays NaN */
}

/* Reflects c into [twice_lo / 2, twice_hi / 2]. */
static double gs_reflect(double c, int64_t twice_lo, int64_t twice_hi) {
  if (twice_lo == twice_hi) return 0.0;
  double mn = (double)twice_lo / 2.0, span = (double)(twice_hi - twice_lo) / 2.0;
  c = fabs(c - mn);
  double extra = fmod(c, span);
  int64_t flips = (int64_t)floor(c / span);
  return flips % 2 == 0 ? extra + mn : span - extra + mn;
}

/* As ATen: a non-finite or huge coordinate becomes -100, which reads as out of range. */
static double gs_safe(double c) {
  return (!isfinite(c) || c > 2147483646.0 || c < -2147483648.0) ? -100.0 : c;
}

/* Applies the padding mode to an unnormalised coordinate. */
static double gs_pad(double c, int64_t size, int pad, bool ac) {
  if (pad == GS_BORDER) {
    c = gs_clip(c, size);
  } else if (pad == GS_REFLECTION) {
    c = ac ? gs_reflect(c, 0, 2 * (size - 1)) : gs_reflect(c, -1, 2 * size - 1);
    c = gs_clip(c, size);
  }
  return gs_safe(c);
}

/* The taps of one grid point (the same for every channel): element offsets within an (n, c)
 * plane and their weights; out-of-range taps are left out (they read 0). */
typedef struct gs_taps {
  int n;
  int64_t off[16];
  double w[16];
} gs_taps;

static void gs_add(gs_taps *t, const pte_tensor *in, int64_t x, int64_t y, double w) {
  if (x < 0 || y < 0 || x >= in->sizes[3] || y >= in->sizes[2]) return;
  t->off[t->n] = y * in->strides[2] + x * in->strides[3];
  t->w[t->n] = w;
  t->n++;
}

static double gs_cubic1(double x, double A) { return ((A + 2.0) * x - (A + 3.0)) * x * x + 1.0; }
static double gs_cubic2(double x, double A) { return ((A * x - 5.0 * A) * x + 8.0 * A) * x - 4.0 * A; }

static void gs_cubic_coeffs(double t, double w[4]) {
  const double A = -0.75;
  w[0] = gs_cubic2(t + 1.0, A);
  w[1] = gs_cubic1(t, A);
  w[2] = gs_cubic1(1.0 - t, A);
  w[3] = gs_cubic2(2.0 - t, A);
}

static void gs_plan(gs_taps *t, const pte_tensor *in, double gx, double gy, int mode, int pad, bool ac) {
  const int64_t H = in->sizes[2], W = in->sizes[3];
  t->n = 0;
  if (mode == GS_BICUBIC) {
    double ix = gs_unnormalize(gx, W, ac), iy = gs_unnormalize(gy, H, ac);
    if (gs_safe(ix) != ix || gs_safe(iy) != iy) return; /* non-finite / huge: nothing in range */
    double fx = floor(ix), fy = floor(iy);
    double wx[4], wy[4];
    gs_cubic_coeffs(ix - fx, wx);
    gs_cubic_coeffs(iy - fy, wy);
    int64_t px[4], py[4];
    for (int j = 0; j < 4; j++) {
      px[j] = (int64_t)gs_pad(fx - 1.0 + j, W, pad, ac);
      py[j] = (int64_t)gs_pad(fy - 1.0 + j, H, pad, ac);
    }
    for (int i = 0; i < 4; i++)
      for (int j = 0; j < 4; j++) gs_add(t, in, px[j], py[i], wy[i] * wx[j]);
    return;
  }
  double ix = gs_pad(gs_unnormalize(gx, W, ac), W, pad, ac);
  double iy = gs_pad(gs_unnormalize(gy, H, ac), H, pad, ac);
  if (mode == GS_NEAREST) {
    gs_add(t, in, (int64_t)nearbyint(ix), (int64_t)nearbyint(iy), 1.0);
    return;
  }
  double fx = floor(ix), fy = floor(iy);
  int64_t x0 = (int64_t)fx, y0 = (int64_t)fy;
  double tx = ix - fx, ty = iy - fy;
  gs_add(t, in, x0, y0, (1 - tx) * (1 - ty));
  gs_add(t, in, x0 + 1, y0, tx * (1 - ty));
  gs_add(t, in, x0, y0 + 1, (1 - tx) * ty);
  gs_add(t, in, x0 + 1, y0 + 1, tx * ty);
}

static void op_grid_sampler_2d(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  static const char op[] = "grid_sampler_2d";
  if (!pte_k_check_nargs(ctx, nargs, 6, 7)) return;
  pte_tensor *in = pte_k_arg_tensor(ctx, args, nargs, 0);
  pte_tensor *grid = pte_k_arg_tensor(ctx, args, nargs, 1);
  int64_t mode, pad;
  bool ac;
  if (!in || !grid || !pte_k_arg_int(ctx, args, nargs, 2, &mode) || !pte_k_arg_int(ctx, args, nargs, 3, &pad) ||
      !pte_k_arg_bool(ctx, args, nargs, 4, &ac))
    return;
  pte_tensor *out = pte_k_arg_tensor(ctx, args, nargs, 5);
  if (!out) return;
  if (mode < 0 || mode > 2) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "%s: interpolation_mode must be 0 (bilinear), 1 (nearest) or 2 (bicubic), got %lld",
                    op, (long long)mode);
    return;
  }
  if (pad < 0 || pad > 2) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "%s: padding_mode must be 0 (zeros), 1 (border) or 2 (reflection), got %lld",
                    op, (long long)pad);
    return;
  }
  if (in->dim != 4 || grid->dim != 4) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "%s: input and grid must be 4-D, got ranks %d and %d", op,
                    (int)in->dim, (int)grid->dim);
    return;
  }
  if (grid->sizes[0] != in->sizes[0] || grid->sizes[3] != 2) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT,
                    "%s: grid must be [N=%d, H_out, W_out, 2], got [%d, %d, %d, %d]", op, (int)in->sizes[0],
                    (int)grid->sizes[0], (int)grid->sizes[1], (int)grid->sizes[2], (int)grid->sizes[3]);
    return;
  }
  if (!pte_k_is_floating(in->dtype) || grid->dtype != in->dtype || out->dtype != in->dtype) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT,
                    "%s: input, grid and out must share one floating dtype, got %s, %s, %s", op,
                    pte_dtype_name(in->dtype), pte_dtype_name(grid->dtype), pte_dtype_name(out->dtype));
    return;
  }
  if (in->sizes[2] <= 0 || in->sizes[3] <= 0) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "%s: input spatial dims must be non-empty, got %d x %d", op,
                    (int)in->sizes[2], (int)in->sizes[3]);
    return;
  }
  if (out->dim != 4) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "%s: out must be 4-D, got rank %d", op, (int)out->dim);
    return;
  }
  int32_t osz[4] = {in->sizes[0], in->sizes[1], grid->sizes[1], grid->sizes[2]};
  if (!pte_k_resize_out(ctx, out, osz, 4) || !pte_k_check_data(ctx, in, "input") ||
      !pte_k_check_data(ctx, grid, "grid"))
    return;
  const int64_t N = in->sizes[0], C = in->sizes[1], Ho = grid->sizes[1], Wo = grid->sizes[2];
  const bool f32 = in->dtype == PTE_DTYPE_FLOAT;
  for (int64_t n = 0; n < N; n++)
    for (int64_t y = 0; y < Ho; y++)
      for (int64_t x = 0; x < Wo; x++) {
        const int64_t g = n * grid->strides[0] + y * grid->strides[1] + x * grid->strides[2];
        const double gx = pte_k_load_double(grid->data, grid->dtype, g);
        const double gy = pte_k_load_double(grid->data, grid->dtype, g + grid->strides[3]);
        gs_taps t;
        gs_plan(&t, in, gx, gy, (int)mode, (int)pad, ac);
        const int64_t ob = n * out->strides[0] + y * out->strides[2] + x * out->strides[3];
        for (int64_t c = 0; c < C; c++) {
          const int64_t b = n * in->strides[0] + c * in->strides[1];
          double v = 0.0;
          if (f32) {
            const float *p = (const float *)in->data + b;
            for (int k = 0; k < t.n; k++) v += t.w[k] * p[t.off[k]];
            ((float *)out->data)[ob + c * out->strides[1]] = (float)v;
          } else {
            for (int k = 0; k < t.n; k++) v += t.w[k] * pte_k_load_double(in->data, in->dtype, b + t.off[k]);
            pte_k_store_double(out->data, out->dtype, ob + c * out->strides[1], v);
          }
        }
      }
  pte_k_set_return(args, nargs, 5);
}

const pte_kernel pte_portable_grid_sample_kernels[] = {
    {"aten::grid_sampler_2d.out", NULL, op_grid_sampler_2d},
};
const size_t pte_portable_grid_sample_kernels_count =
    sizeof pte_portable_grid_sample_kernels / sizeof pte_portable_grid_sample_kernels[0];
