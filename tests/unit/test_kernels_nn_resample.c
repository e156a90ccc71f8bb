/* Tests for upsample_bilinear2d.vec / _upsample_bilinear2d_aa (op_upsample.c) and
 * grid_sampler_2d (op_grid_sample.c). Hand-derived values (in the comments) plus numpy at test
 * time: the Python below is a direct transcription of ATen's documented coordinate rules,
 * vectorised/looped differently from the C kernels (knn_numpy.h; a missing numpy fails). */
#include "test.h"

#include "knn_numpy.h"
#include "portable/portable_nn.h"
#include "support/ktest.h"
#include "support/ktest_sugar.h"

static const uint8_t k_odd4[4] = {3, 1, 0, 2};

static pte_op_fn ups_fn(const char *name) {
  return ktest_find(pte_portable_upsample_kernels, pte_portable_upsample_kernels_count, name);
}
static pte_op_fn gs_fn(void) {
  return ktest_find(pte_portable_grid_sample_kernels, pte_portable_grid_sample_kernels_count,
                    "aten::grid_sampler_2d.out");
}

static uint32_t g_seed = 99u;
static double rnd(void) { return ktest_rnd_grid(&g_seed, 12, 256, 32.0); }

/* ======================================================================================== */
/* upsample_bilinear2d                                                                       */

TEST(bilinear_hand_values) {
  pte_op_fn fn = ups_fn("aten::upsample_bilinear2d.vec_out");
  /* align_corners: [[0,1],[2,3]] -> 3x3 midpoints */
  pte_tensor *x = ktest_tensor(PTE_DTYPE_FLOAT, 4, SZ(1, 1, 2, 2), NULL, DV(0, 1, 2, 3));
  pte_tensor *o = ktest_tensor_dyn(PTE_DTYPE_FLOAT, 4, SZ(1, 1, 1, 1), NULL, 64);
  pte_evalue *args[] = {EV(x), IL(3, 3), ktest_ev_bool(true), ktest_ev_none(), EV(o), NULL};
  args[5] = args[4];
  CHECK_OK(ktest_run(fn, args, 6));
  CHECK(ktest_expect_shape(o, 4, SZ(1, 1, 3, 3)));
  CHECK(ktest_expect(o, DV(0, 0.5, 1, 1, 1.5, 2, 2, 2.5, 3), 9, 1e-6));
  /* same without temp memory (column taps computed per element instead of cached) */
  pte_tensor *o1 = ktest_tensor_dyn(PTE_DTYPE_FLOAT, 4, SZ(1, 1, 1, 1), NULL, 64);
  pte_evalue *a1[] = {EV(x), IL(3, 3), ktest_ev_bool(true), ktest_ev_none(), EV(o1)};
  CHECK_OK(ktest_run_no_temp(fn, a1, 5));
  CHECK(ktest_expect(o1, DV(0, 0.5, 1, 1, 1.5, 2, 2, 2.5, 3), 9, 1e-6));
  /* half-pixel: [0, 4] -> 4 wide: src = 0.5*(d+0.5)-0.5 = -0.25(->0), 0.25, 0.75, 1.25(->clamped
   * neighbour) -> 0, 1, 3, 4; height 1 -> 1 is copied */
  pte_tensor *r = ktest_tensor(PTE_DTYPE_DOUBLE, 4, SZ(1, 1, 1, 2), NULL, DV(0, 4));
  pte_tensor *o2 = ktest_tensor_dyn(PTE_DTYPE_DOUBLE, 4, SZ(1, 1, 1, 1), NULL, 64);
  double sf[2] = {1.0, 2.0};
  pte_evalue *a2[] = {EV(r), ktest_ev_none(), ktest_ev_bool(false), ktest_ev_double_list(sf, 2), EV(o2)};
  CHECK_OK(ktest_run(fn, a2, 5));
  CHECK(ktest_expect_shape(o2, 4, SZ(1, 1, 1, 4)));
  CHECK(ktest_expect(o2, DV(0, 1, 3, 4), 4, 1e-12));
  /* uint8: [0, 255] -> 3 wide, align_corners: 127.5 rounds to 128 (half to even) */
  pte_tensor *u = ktest_tensor(PTE_DTYPE_BYTE, 4, SZ(1, 1, 1, 2), NULL, DV(0, 255));
  pte_tensor *ou = ktest_tensor(PTE_DTYPE_BYTE, 4, SZ(1, 1, 1, 3), NULL, NULL);
  pte_evalue *a3[] = {EV(u), IL(1, 3), ktest_ev_bool(true), ktest_ev_none(), EV(ou)};
  CHECK_OK(ktest_run(fn, a3, 5));
  CHECK(ktest_expect(ou, DV(0, 128, 255), 3, 0));
}

static const char k_np_bilinear[] =
    "def taps(insz, outsz, ac, sf):\n"
    "    d = np.arange(outsz, dtype=np.float64)\n"
    "    if insz == outsz: return d.astype(int), d.astype(int), np.ones(outsz), np.zeros(outsz)\n"
    "    if ac: r = (insz - 1) / (outsz - 1) if outsz > 1 else 0.0\n"
    "    else: r = 1.0 / sf if sf > 0 else insz / outsz\n"
    "    s = r * d if ac else np.maximum(r * (d + 0.5) - 0.5, 0.0)\n"
    "    i0 = np.minimum(np.floor(s).astype(int), insz - 1)\n"
    "    i1 = np.where(i0 < insz - 1, i0 + 1, i0)\n"
    "    l1 = np.clip(s - i0, 0.0, 1.0)\n"
    "    return i0, i1, 1.0 - l1, l1\n"
    "def bilinear(x, oh, ow, ac, sh, sw):\n"
    "    y0, y1, a0, a1 = taps(x.shape[2], oh, ac, sh)\n"
    "    x0, x1, b0, b1 = taps(x.shape[3], ow, ac, sw)\n"
    "    r0 = x[:, :, y0, :] * a0[:, None] + x[:, :, y1, :] * a1[:, None]\n"
    "    return r0[:, :, :, x0] * b0 + r0[:, :, :, x1] * b1\n";

/* One random case: output_size (oh, ow) or, when sh > 0, scale factors. */
static bool bilinear_case(int dtype, const int32_t *s, const uint8_t *in_ord, const uint8_t *out_ord, int64_t oh,
                          int64_t ow, double sh, double sw, bool ac, double tol) {
  size_t n = (size_t)s[0] * s[1] * s[2] * s[3];
  double *v = ktest_rnd_array(n, rnd);
  if (sh > 0) {
    oh = (int64_t)((double)s[2] * sh);
    ow = (int64_t)((double)s[3] * sw);
  }
  np_script sc = {0};
  nps_array(&sc, "x", v, n, s, 4);
  nps_printf(&sc, "%s", k_np_bilinear);
  nps_printf(&sc, "res = bilinear(x, %lld, %lld, %s, %.17g, %.17g)\n", (long long)oh, (long long)ow,
             ac ? "True" : "False", sh, sw);
  size_t no = (size_t)s[0] * s[1] * (size_t)oh * (size_t)ow;
  double *want = nps_run(&sc, no);
  int32_t os[4] = {s[0], s[1], (int32_t)oh, (int32_t)ow};
  pte_tensor *x = ktest_tensor(dtype, 4, s, in_ord, v);
  pte_tensor *o = ktest_tensor(dtype, 4, os, out_ord, NULL);
  double sf[2] = {sh, sw};
  pte_evalue *args[] = {EV(x), sh > 0 ? ktest_ev_none() : IL(oh, ow), ktest_ev_bool(ac),
                        sh > 0 ? ktest_ev_double_list(sf, 2) : ktest_ev_none(), EV(o)};
  pte_status st = ktest_run(ups_fn("aten::upsample_bilinear2d.vec_out"), args, 5);
  bool ok = want && st == PTE_OK && ktest_expect(o, want, no, tol);
  if (!ok) fprintf(stderr, "    bilinear case %dx%d -> %lldx%lld ac=%d failed: %s\n", (int)s[2], (int)s[3],
                   (long long)oh, (long long)ow, (int)ac, st == PTE_OK ? "values" : ktest_last_msg());
  free(v);
  free(want);
  return ok;
}

TEST(bilinear_numpy) {
  for (int ac = 0; ac < 2; ac++) {
    CHECK(bilinear_case(PTE_DTYPE_FLOAT, SZ(2, 3, 4, 5), NULL, NULL, 7, 9, -1, -1, ac, 1e-5));
    CHECK(bilinear_case(PTE_DTYPE_FLOAT, SZ(1, 2, 6, 7), ktest_cl4, ktest_cl4, 3, 4, -1, -1, ac, 1e-5));  /* downsample */
    CHECK(bilinear_case(PTE_DTYPE_DOUBLE, SZ(1, 3, 5, 4), k_odd4, NULL, 1, 9, -1, -1, ac, 1e-12)); /* out 1 */
    CHECK(bilinear_case(PTE_DTYPE_DOUBLE, SZ(2, 1, 3, 5), NULL, ktest_cl4, 0, 0, 2.5, 1.5, ac, 1e-12)); /* scales */
    CHECK(bilinear_case(PTE_DTYPE_FLOAT, SZ(1, 1, 4, 4), NULL, NULL, 0, 0, 1.1, 0.6, ac, 1e-5));   /* 4 -> 4 copy */
    CHECK(bilinear_case(PTE_DTYPE_HALF, SZ(1, 2, 3, 3), NULL, NULL, 5, 6, -1, -1, ac, 4e-3));
    CHECK(bilinear_case(PTE_DTYPE_BFLOAT16, SZ(1, 2, 3, 3), ktest_cl4, NULL, 5, 6, -1, -1, ac, 2e-2));
    CHECK(bilinear_case(PTE_DTYPE_FLOAT, SZ(0, 2, 3, 3), NULL, NULL, 5, 6, -1, -1, ac, 0)); /* N = 0 */
  }
}

/* ---- antialiased ---- */

TEST(bilinear_aa_hand_values) {
  /* 1x8 row 0..7 -> 4 wide (scale 2, support 2, centers 1,3,5,7): taps (3,3,1)/7 on x0..x2,
   * (1,3,3,1)/8 on x1..x4 and x3..x6, (1,3,3)/7 on x5..x7 -> 5/7, 2.5, 4.5, 44/7 */
  pte_tensor *x = ktest_tensor(PTE_DTYPE_FLOAT, 4, SZ(1, 1, 1, 8), NULL, DV(0, 1, 2, 3, 4, 5, 6, 7));
  pte_tensor *o = ktest_tensor(PTE_DTYPE_FLOAT, 4, SZ(1, 1, 1, 4), NULL, NULL);
  pte_evalue *args[] = {EV(x), IL(1, 4), ktest_ev_bool(false), ktest_ev_none(), ktest_ev_none(), EV(o)};
  CHECK_OK(ktest_run(ups_fn("aten::_upsample_bilinear2d_aa.out"), args, 6));
  CHECK(ktest_expect(o, DV(5.0 / 7, 2.5, 4.5, 44.0 / 7), 4, 1e-6));
  /* without temp memory the weights are computed per element */
  pte_tensor *o2 = ktest_tensor(PTE_DTYPE_FLOAT, 4, SZ(1, 1, 1, 4), NULL, NULL);
  pte_evalue *a2[] = {EV(x), IL(1, 4), ktest_ev_bool(false), ktest_ev_none(), ktest_ev_none(), EV(o2)};
  CHECK_OK(ktest_run_no_temp(ups_fn("aten::_upsample_bilinear2d_aa.out"), a2, 6));
  CHECK(ktest_expect(o2, DV(5.0 / 7, 2.5, 4.5, 44.0 / 7), 4, 1e-6));
}

static const char k_np_aa[] =
    "def aa_matrix(insz, outsz, ac, sc):\n"
    "    m = np.zeros((outsz, insz))\n"
    "    if insz == outsz: return np.eye(insz)\n"
    "    if ac: scale = (insz - 1) / (outsz - 1) if outsz > 1 else 0.0\n"
    "    else: scale = 1.0 / sc if sc > 0 else insz / outsz\n"
    "    support = scale if scale >= 1.0 else 1.0\n"
    "    inv = 1.0 / scale if scale >= 1.0 else 1.0\n"
    "    for i in range(outsz):\n"
    "        c = scale * (i + 0.5)\n"
    "        lo = max(int(c - support + 0.5), 0); hi = min(int(c + support + 0.5), insz)\n"
    "        js = np.arange(lo, hi)\n"
    "        w = np.maximum(0.0, 1.0 - np.abs((js - c + 0.5) * inv))\n"
    "        if w.sum() != 0: m[i, lo:hi] = w / w.sum()\n"
    "    return m\n"
    "def aa(x, oh, ow, ac, sh, sw):\n"
    "    return np.einsum('ij,ncjk,lk->ncil', aa_matrix(x.shape[2], oh, ac, sh), x, aa_matrix(x.shape[3], ow, ac, sw))\n";

static bool aa_case(int dtype, const int32_t *s, const uint8_t *ord, int64_t oh, int64_t ow, double sh, double sw,
                    bool ac, double tol) {
  size_t n = (size_t)s[0] * s[1] * s[2] * s[3];
  double *v = ktest_rnd_array(n, rnd);
  np_script sc = {0};
  nps_array(&sc, "x", v, n, s, 4);
  nps_printf(&sc, "%s", k_np_aa);
  nps_printf(&sc, "res = aa(x, %lld, %lld, %s, %.17g, %.17g)\n", (long long)oh, (long long)ow, ac ? "True" : "False",
             sh, sw);
  size_t no = (size_t)s[0] * s[1] * (size_t)oh * (size_t)ow;
  double *want = nps_run(&sc, no);
  int32_t os[4] = {s[0], s[1], (int32_t)oh, (int32_t)ow};
  pte_tensor *x = ktest_tensor(dtype, 4, s, ord, v);
  pte_tensor *o = ktest_tensor(dtype, 4, os, ord, NULL);
  pte_evalue *args[] = {EV(x), IL(oh, ow), ktest_ev_bool(ac), sh > 0 ? ktest_ev_double(sh) : ktest_ev_none(),
                        sw > 0 ? ktest_ev_double(sw) : ktest_ev_none(), EV(o)};
  pte_status st = ktest_run(ups_fn("aten::_upsample_bilinear2d_aa.out"), args, 6);
  bool ok = want && st == PTE_OK && ktest_expect(o, want, no, tol);
  if (!ok) fprintf(stderr, "    aa case %dx%d -> %lldx%lld ac=%d failed: %s\n", (int)s[2], (int)s[3], (long long)oh,
                   (long long)ow, (int)ac, st == PTE_OK ? "values" : ktest_last_msg());
  free(v);
  free(want);
  return ok;
}

TEST(bilinear_aa_numpy) {
  for (int ac = 0; ac < 2; ac++) {
    CHECK(aa_case(PTE_DTYPE_FLOAT, SZ(1, 2, 9, 11), NULL, 4, 3, -1, -1, ac, 1e-5));   /* downscale 2.25, 3.67 */
    CHECK(aa_case(PTE_DTYPE_FLOAT, SZ(2, 1, 5, 4), ktest_cl4, 8, 7, -1, -1, ac, 1e-5));   /* upscale */
    CHECK(aa_case(PTE_DTYPE_DOUBLE, SZ(1, 1, 16, 6), NULL, 3, 6, -1, -1, ac, 1e-12)); /* width copied */
    CHECK(aa_case(PTE_DTYPE_DOUBLE, SZ(1, 2, 6, 6), k_odd4, 3, 2, 0.5, 0.25, ac, 1e-12)); /* explicit scales */
  }
}

TEST(upsample_errors) {
  pte_op_fn fn = ups_fn("aten::upsample_bilinear2d.vec_out");
  pte_tensor *x = ktest_tensor(PTE_DTYPE_FLOAT, 4, SZ(1, 1, 2, 2), NULL, NULL);
  pte_tensor *x3 = ktest_tensor(PTE_DTYPE_FLOAT, 3, SZ(1, 2, 2), NULL, NULL);
  pte_tensor *xb = ktest_tensor(PTE_DTYPE_BOOL, 4, SZ(1, 1, 2, 2), NULL, NULL);
  pte_tensor *o = ktest_tensor(PTE_DTYPE_FLOAT, 4, SZ(1, 1, 4, 4), NULL, NULL);
  pte_tensor *od = ktest_tensor(PTE_DTYPE_DOUBLE, 4, SZ(1, 1, 4, 4), NULL, NULL);
  double sf[2] = {2, 2};
  pte_evalue *a1[] = {EV(x), IL(4, 4), ktest_ev_bool(false), ktest_ev_double_list(sf, 2), EV(o)};
  CHECK_STATUS(ktest_run(fn, a1, 5), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(ktest_last_msg(), "upsample_bilinear2d: must specify exactly one");
  pte_evalue *a2[] = {EV(x3), IL(4, 4), ktest_ev_bool(false), ktest_ev_none(), EV(o)};
  CHECK_STATUS(ktest_run(fn, a2, 5), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(ktest_last_msg(), "input must be 4-D");
  pte_evalue *a3[] = {EV(xb), IL(4, 4), ktest_ev_bool(false), ktest_ev_none(), EV(o)};
  CHECK_STATUS(ktest_run(fn, a3, 5), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(ktest_last_msg(), "unsupported input dtype bool");
  pte_evalue *a4[] = {EV(x), IL(4, 4), ktest_ev_bool(false), ktest_ev_none(), EV(od)};
  CHECK_STATUS(ktest_run(fn, a4, 5), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(ktest_last_msg(), "out dtype float64 != input dtype float32");
  pte_evalue *a5[] = {EV(x), IL(0, 4), ktest_ev_bool(false), ktest_ev_none(), EV(o)};
  CHECK_STATUS(ktest_run(fn, a5, 5), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(ktest_last_msg(), "greater than 0");
  pte_evalue *a6[] = {EV(x), IL(4), ktest_ev_bool(false), ktest_ev_none(), ktest_ev_none(), EV(o)};
  CHECK_STATUS(ktest_run(ups_fn("aten::_upsample_bilinear2d_aa.out"), a6, 6), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(ktest_last_msg(), "_upsample_bilinear2d_aa: output_size must have 2 entries");
  /* out too small to resize (static) */
  pte_tensor *os = ktest_tensor(PTE_DTYPE_FLOAT, 4, SZ(1, 1, 2, 2), NULL, NULL);
  pte_evalue *a7[] = {EV(x), IL(4, 4), ktest_ev_bool(false), ktest_ev_none(), EV(os)};
  CHECK_STATUS(ktest_run(fn, a7, 5), PTE_ERR_INVALID_ARGUMENT);
}

/* ======================================================================================== */
/* grid_sampler_2d                                                                           */

TEST(grid_sample_hand_values) {
  /* input [[1,2],[3,4]], align_corners: (0,0) is the centre -> 2.5; (-1,-1) -> 1; (1,-1) -> 2.
   * (2, 0): ix = 1.5, iy = 0.5 -> zeros: taps x=1 (weight .5) and x=2 (outside) over rows 0/1 ->
   * .25*2 + .25*4 = 1.5; border clips ix to 1 -> 3; reflection folds 1.5 to 0.5 -> 2.5 */
  pte_tensor *x = ktest_tensor(PTE_DTYPE_FLOAT, 4, SZ(1, 1, 2, 2), NULL, DV(1, 2, 3, 4));
  pte_tensor *g = ktest_tensor(PTE_DTYPE_FLOAT, 4, SZ(1, 1, 4, 2), NULL, DV(0, 0, -1, -1, 1, -1, 2, 0));
  pte_tensor *o = ktest_tensor(PTE_DTYPE_FLOAT, 4, SZ(1, 1, 1, 4), NULL, NULL);
  const double want[3][4] = {{2.5, 1, 2, 1.5}, {2.5, 1, 2, 3}, {2.5, 1, 2, 2.5}};
  for (int pad = 0; pad < 3; pad++) {
    pte_evalue *args[] = {EV(x), EV(g), ktest_ev_int(0), ktest_ev_int(pad), ktest_ev_bool(true), EV(o)};
    CHECK_OK(ktest_run(gs_fn(), args, 6));
    CHECK(ktest_expect(o, want[pad], 4, 1e-6));
  }
  /* nearest: (0,0) -> ix = iy = 0.5 rounds half to even -> 0 -> 1; (1,-1) -> 2 */
  pte_evalue *a2[] = {EV(x), EV(g), ktest_ev_int(1), ktest_ev_int(0), ktest_ev_bool(true), EV(o)};
  CHECK_OK(ktest_run(gs_fn(), a2, 6));
  CHECK(ktest_expect(o, DV(1, 1, 2, 0), 4, 0));
  /* NaN / inf grid coordinates read as out of range -> 0 */
  pte_tensor *gn = ktest_tensor(PTE_DTYPE_FLOAT, 4, SZ(1, 1, 2, 2), NULL, DV(NAN, 0, 0, INFINITY));
  pte_tensor *on = ktest_tensor(PTE_DTYPE_FLOAT, 4, SZ(1, 1, 1, 2), NULL, NULL);
  for (int mode = 0; mode < 3; mode++) {
    pte_evalue *a3[] = {EV(x), EV(gn), ktest_ev_int(mode), ktest_ev_int(0), ktest_ev_bool(false), EV(on)};
    CHECK_OK(ktest_run(gs_fn(), a3, 6));
    CHECK(ktest_expect(on, DV(0, 0), 2, 0));
  }
}

static const char k_np_grid[] =
    "def unnorm(c, size, ac):\n"
    "    return (c + 1) / 2 * (size - 1) if ac else ((c + 1) * size - 1) / 2\n"
    "def reflect(c, lo2, hi2):\n"
    "    if lo2 == hi2: return 0.0\n"
    "    mn = lo2 / 2; span = (hi2 - lo2) / 2\n"
    "    c = abs(c - mn); extra = np.fmod(c, span); flips = int(np.floor(c / span))\n"
    "    return extra + mn if flips % 2 == 0 else span - extra + mn\n"
    "def pad(c, size, mode, ac):\n"
    "    if mode == 1: c = min(max(c, 0.0), size - 1.0)\n"
    "    if mode == 2:\n"
    "        c = reflect(c, 0, 2 * (size - 1)) if ac else reflect(c, -1, 2 * size - 1)\n"
    "        c = min(max(c, 0.0), size - 1.0)\n"
    "    return c\n"
    "def at(img, x, y):\n"
    "    H, W = img.shape\n"
    "    return img[y, x] if 0 <= x < W and 0 <= y < H else 0.0\n"
    "def cubic(t):\n"
    "    A = -0.75\n"
    "    c1 = lambda x: ((A + 2) * x - (A + 3)) * x * x + 1\n"
    "    c2 = lambda x: ((A * x - 5 * A) * x + 8 * A) * x - 4 * A\n"
    "    return [c2(t + 1), c1(t), c1(1 - t), c2(2 - t)]\n"
    "def sample(img, gx, gy, mode, pm, ac):\n"
    "    H, W = img.shape\n"
    "    if mode == 2:\n"
    "        ix = unnorm(gx, W, ac); iy = unnorm(gy, H, ac)\n"
    "        fx = np.floor(ix); fy = np.floor(iy); wx = cubic(ix - fx); wy = cubic(iy - fy)\n"
    "        v = 0.0\n"
    "        for i in range(4):\n"
    "            for j in range(4):\n"
    "                tx = int(pad(fx - 1 + j, W, pm, ac)); ty = int(pad(fy - 1 + i, H, pm, ac))\n"
    "                v += wy[i] * wx[j] * at(img, tx, ty)\n"
    "        return v\n"
    "    ix = pad(unnorm(gx, W, ac), W, pm, ac); iy = pad(unnorm(gy, H, ac), H, pm, ac)\n"
    "    if mode == 1: return at(img, int(np.rint(ix)), int(np.rint(iy)))\n"
    "    x0 = int(np.floor(ix)); y0 = int(np.floor(iy)); tx = ix - x0; ty = iy - y0\n"
    "    return ((1 - tx) * (1 - ty) * at(img, x0, y0) + tx * (1 - ty) * at(img, x0 + 1, y0) +\n"
    "            (1 - tx) * ty * at(img, x0, y0 + 1) + tx * ty * at(img, x0 + 1, y0 + 1))\n"
    "def grid_sample(x, g, mode, pm, ac):\n"
    "    N, C, H, W = x.shape; _, Ho, Wo, _ = g.shape\n"
    "    r = np.zeros((N, C, Ho, Wo))\n"
    "    for n in range(N):\n"
    "        for c in range(C):\n"
    "            for i in range(Ho):\n"
    "                for j in range(Wo):\n"
    "                    r[n, c, i, j] = sample(x[n, c], g[n, i, j, 0], g[n, i, j, 1], mode, pm, ac)\n"
    "    return r\n";

TEST(grid_sample_numpy_modes_paddings) {
  const int32_t xs[4] = {2, 3, 4, 5}, gsz[4] = {2, 3, 6, 2};
  size_t nx = 2 * 3 * 4 * 5, ng = 2 * 3 * 6 * 2, no = 2 * 3 * 3 * 6;
  double *xv = ktest_rnd_array(nx, rnd), *gv = (double *)malloc(ng * sizeof(double));
  /* grid in [-1.6, 1.6]: inside, borders and outside, to exercise every padding */
  for (size_t i = 0; i < ng; i++) gv[i] = rnd() / 2.5;
  gv[0] = 1.0; /* exact corners and a half-pixel tie */
  gv[1] = -1.0;
  gv[2] = 0.0;
  gv[3] = 0.25;
  for (int mode = 0; mode < 3; mode++)
    for (int pm = 0; pm < 3; pm++)
      for (int ac = 0; ac < 2; ac++) {
        const int layout = (mode + pm + ac) % 2; /* float32 contiguous / float64 permuted */
        {
          np_script sc = {0};
          nps_array(&sc, "x", xv, nx, xs, 4);
          nps_array(&sc, "g", gv, ng, gsz, 4);
          nps_printf(&sc, "%s", k_np_grid);
          nps_printf(&sc, "res = grid_sample(x, g, %d, %d, %s)\n", mode, pm, ac ? "True" : "False");
          double *want = nps_run(&sc, no);
          CHECK(want != NULL);
          int dt = layout ? PTE_DTYPE_DOUBLE : PTE_DTYPE_FLOAT;
          pte_tensor *x = ktest_tensor(dt, 4, xs, layout ? ktest_cl4 : NULL, xv);
          pte_tensor *g = ktest_tensor(dt, 4, gsz, layout ? k_odd4 : NULL, gv);
          pte_tensor *o = ktest_tensor_dyn(dt, 4, SZ(1, 1, 1, 1), NULL, no);
          pte_evalue *args[] = {EV(x), EV(g), ktest_ev_int(mode), ktest_ev_int(pm), ktest_ev_bool(ac), EV(o)};
          CHECK_OK(ktest_run(gs_fn(), args, 6));
          CHECK(ktest_expect_shape(o, 4, SZ(2, 3, 3, 6)));
          CHECK_MSG(ktest_expect(o, want, no, layout ? 1e-12 : 1e-5), "mode %d pad %d ac %d layout %d", mode, pm, ac,
                    layout);
          free(want);
        }
      }
  free(xv);
  free(gv);
}

TEST(grid_sample_errors) {
  pte_tensor *x = ktest_tensor(PTE_DTYPE_FLOAT, 4, SZ(1, 1, 2, 2), NULL, NULL);
  pte_tensor *g = ktest_tensor(PTE_DTYPE_FLOAT, 4, SZ(1, 1, 1, 2), NULL, NULL);
  pte_tensor *g3 = ktest_tensor(PTE_DTYPE_FLOAT, 4, SZ(1, 1, 1, 3), NULL, NULL);
  pte_tensor *gd = ktest_tensor(PTE_DTYPE_DOUBLE, 4, SZ(1, 1, 1, 2), NULL, NULL);
  pte_tensor *xi = ktest_tensor(PTE_DTYPE_INT, 4, SZ(1, 1, 2, 2), NULL, NULL);
  pte_tensor *o = ktest_tensor(PTE_DTYPE_FLOAT, 4, SZ(1, 1, 1, 1), NULL, NULL);
  struct {
    pte_tensor *x, *g;
    int mode, pad;
    const char *msg;
  } cases[] = {
      {x, g, 3, 0, "interpolation_mode"},   {x, g, 0, 5, "padding_mode"},
      {x, g3, 0, 0, "grid must be [N=1"},    {x, gd, 0, 0, "share one floating dtype"},
      {xi, g, 0, 0, "share one floating dtype"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    pte_evalue *args[] = {EV(cases[i].x), EV(cases[i].g), ktest_ev_int(cases[i].mode), ktest_ev_int(cases[i].pad),
                          ktest_ev_bool(false), EV(o)};
    CHECK_STATUS(ktest_run(gs_fn(), args, 6), PTE_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(ktest_last_msg(), "grid_sampler_2d");
    CHECK_CONTAINS(ktest_last_msg(), cases[i].msg);
  }
}

int main(void) {
  RUN(bilinear_hand_values);
  RUN(bilinear_numpy);
  RUN(bilinear_aa_hand_values);
  RUN(bilinear_aa_numpy);
  RUN(upsample_errors);
  RUN(grid_sample_hand_values);
  RUN(grid_sample_numpy_modes_paddings);
  RUN(grid_sample_errors);
  ktest_free_all();
  return test_summary();
}
