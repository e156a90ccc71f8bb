/* The SIMD paths of the cortex_m kernels (kernels/cortex_m/cm_simd.h) against the portable
 * loops: every case runs once with the ISA pinned to PORTABLE (the reference: the portable C
 * loops, themselves checked against hand-derived values in test_kernels_cortex_m*.c) and once
 * per SIMD ISA this machine has (AVX2, AVX-512 VNNI; the Arm DSP path when built for Arm), and
 * the int8 outputs must be identical byte for byte. Shapes, zero points / offsets, multipliers,
 * shifts and biases are random (fixed seeds), with odd channel counts and tails, strided /
 * padded / dilated / grouped convolutions, and saturation cases (outputs pinned at -128 / 127,
 * accumulators that wrap int32, positive shifts that wrap the left shift). Cases built for a
 * SIMD path also check that it ran (pte_cm_simd_forced_runs), so a silent fallback fails.
 */
#include "test.h"

#include "cortex_m/cm_internal.h"
#include "cortex_m/cm_simd.h"
#include "pte/cortex_m_kernels.h"
#include "support/ktest.h"

static pte_op_fn cmfn(const char *name) {
  for (size_t i = 0; i < pte_cortex_m_kernel_count(); i++) {
    const pte_kernel *k = pte_cortex_m_kernel(i);
    if (strcmp(k->name, name) == 0) return k->fn;
  }
  return NULL;
}

static uint32_t g_seed = 12345u;
static uint32_t rnd32(void) {
  g_seed = g_seed * 1664525u + 1013904223u;
  uint32_t a = g_seed >> 16;
  g_seed = g_seed * 1664525u + 1013904223u;
  return (a << 16) ^ (g_seed >> 16);
}
static int64_t rint_(int64_t lo, int64_t hi) { return lo + (int64_t)(rnd32() % (uint64_t)(hi - lo + 1)); }

static const uint8_t k_cl[4] = {0, 2, 3, 1};

/* int8 tensor with random bytes in [lo, hi] (memory order) */
static pte_tensor *i8r(int32_t dim, const int32_t *sizes, const uint8_t *order, int lo, int hi) {
  size_t n = 1;
  for (int32_t d = 0; d < dim; d++) n *= (size_t)sizes[d];
  int8_t *b = (int8_t *)malloc(n ? n : 1);
  for (size_t i = 0; i < n; i++) b[i] = (int8_t)rint_(lo, hi);
  pte_tensor *t = ktest_tensor_raw(PTE_DTYPE_CHAR, dim, sizes, order, b, n);
  free(b);
  return t;
}
static pte_tensor *i8out(int32_t dim, const int32_t *sizes, const uint8_t *order) {
  return i8r(dim, sizes, order, 0, 0);
}
static pte_tensor *i32t(int32_t n, const int64_t *v) {
  int32_t sz[] = {n};
  return ktest_tensor_i64(PTE_DTYPE_INT, 1, sz, NULL, v);
}

/* requantization parameters: mostly realistic, sometimes extreme */
static int64_t rnd_mult(void) {
  switch (rint_(0, 9)) {
    case 0: return INT32_MAX;
    case 1: return -INT32_MAX;
    case 2: return rint_(-INT32_MAX, INT32_MAX);
    default: return rint_(1073741824LL, INT32_MAX);
  }
}
static int64_t rnd_shift(int64_t max_shift) {
  switch (rint_(0, 9)) {
    case 0: return -31;
    case 1: return rint_(1, max_shift);
    case 2: return 0;
    default: return rint_(-14, -1);
  }
}
static int64_t rnd_bias(void) {
  return rint_(0, 7) == 0 ? rint_(INT32_MIN, INT32_MAX) : rint_(-3000, 3000);
}
static int64_t rnd_off(void) {
  switch (rint_(0, 7)) {
    case 0: return 128;
    case 1: return -127;
    case 2: return rint_(-255, 255);
    default: return rint_(-128, 127);
  }
}

#define ALL_SIMD                                                                               \
  ((1u << PTE_CM_ISA_AVX2) | (1u << PTE_CM_ISA_AVX512VNNI) | (1u << PTE_CM_ISA_ARM_DSP) | \
   (1u << PTE_CM_ISA_ARM_MVE))
#define X86_SIMD ((1u << PTE_CM_ISA_AVX2) | (1u << PTE_CM_ISA_AVX512VNNI))

/* Runs fn on args with PORTABLE and with every available SIMD ISA; outputs must match.
 * must_simd: bit per ISA whose SIMD path the case is built for (check it ran). */
static bool compare_isas(const char *what, pte_op_fn fn, pte_evalue **args, size_t nargs,
                         pte_tensor *out, unsigned must_simd, int *n_isas) {
  if (!pte_cm_simd_force(PTE_CM_ISA_PORTABLE)) {
    test_fail(__FILE__, __LINE__, "cannot pin the portable path");
    return false;
  }
  memset(out->data, 0x5A, out->capacity_bytes);
  const pte_status s0 = ktest_run(fn, args, nargs);
  if (s0 != PTE_OK) {
    test_fail(__FILE__, __LINE__, "%s: portable run failed: %s", what, ktest_last_msg());
    return false;
  }
  const size_t nb = out->numel;
  int8_t *ref = (int8_t *)malloc(out->capacity_bytes + 1);
  memcpy(ref, out->data, out->capacity_bytes);
  bool ok = true;
  *n_isas = 0;
  for (int isa = PTE_CM_ISA_AVX2; isa < PTE_CM_ISA_COUNT && ok; isa++) {
    if (!pte_cm_simd_force((pte_cm_isa)isa)) continue;
    (*n_isas)++;
    memset(out->data, 0xA5, out->capacity_bytes);
    const uint32_t runs0 = pte_cm_simd_forced_runs();
    const pte_status s = ktest_run(fn, args, nargs);
    if (s != PTE_OK) {
      test_fail(__FILE__, __LINE__, "%s [%s]: failed: %s", what, pte_cm_simd_name((pte_cm_isa)isa),
                ktest_last_msg());
      ok = false;
      break;
    }
    if ((must_simd & (1u << isa)) && pte_cm_simd_forced_runs() == runs0) {
      test_fail(__FILE__, __LINE__, "%s [%s]: the SIMD path did not run", what,
                pte_cm_simd_name((pte_cm_isa)isa));
      ok = false;
      break;
    }
    if (memcmp(ref, out->data, out->capacity_bytes) != 0) {
      size_t i = 0;
      while (i < nb && ((int8_t *)out->data)[i] == ref[i]) i++;
      test_fail(__FILE__, __LINE__, "%s [%s]: byte %zu of %zu: %d, portable %d", what,
                pte_cm_simd_name((pte_cm_isa)isa), i, nb, ((int8_t *)out->data)[i], ref[i]);
      ok = false;
      break;
    }
    /* again without temp memory: the x86 GEMMs pack on their stack instead of the temp scratch,
     * parameters that need a copy are read through their tensors */
    memset(out->data, 0xA5, out->capacity_bytes);
    if (ktest_run_no_temp(fn, args, nargs) != PTE_OK ||
        memcmp(ref, out->data, out->capacity_bytes) != 0) {
      test_fail(__FILE__, __LINE__, "%s [%s]: the run without temp memory differs: %s", what,
                pte_cm_simd_name((pte_cm_isa)isa), ktest_last_msg());
      ok = false;
    }
  }
  free(ref);
  pte_cm_simd_force(PTE_CM_ISA_AUTO);
  return ok;
}

static bool any_simd(void) {
  for (int isa = PTE_CM_ISA_AVX2; isa < PTE_CM_ISA_COUNT; isa++)
    if (pte_cm_simd_available((pte_cm_isa)isa)) return true;
  return false;
}

#define IL2(a, b) ktest_ev_int_list((const int64_t[]){(a), (b)}, 2)

/* ---- convolution ---------------------------------------------------------------------- */

typedef struct conv_case {
  int32_t N, C, H, W, OC, KH, KW, groups;
  int64_t sh, sw, ph, pw, dh, dw, in_off, out_off, amin, amax;
  int wlo, whi, xlo, xhi;
  bool channels_last, bias, saturate;
} conv_case;

static bool run_conv_case(const conv_case *k, int idx, bool must_simd_) {
  const unsigned must_simd = must_simd_ ? ALL_SIMD : 0u;
  const int64_t OH = (k->H + 2 * k->ph - k->dh * (k->KH - 1) - 1) / k->sh + 1;
  const int64_t OW = (k->W + 2 * k->pw - k->dw * (k->KW - 1) - 1) / k->sw + 1;
  const int32_t xs[4] = {k->N, k->C, k->H, k->W}, ws[4] = {k->OC, k->KH, k->KW, k->C / k->groups};
  const int32_t os[4] = {k->N, k->OC, (int32_t)OH, (int32_t)OW};
  const uint8_t *ord = k->channels_last ? k_cl : NULL;
  pte_tensor *x = i8r(4, xs, ord, k->xlo, k->xhi), *w = i8r(4, ws, NULL, k->wlo, k->whi);
  pte_tensor *o = i8out(4, os, ord);
  int64_t b[512], m[512], s[512];
  for (int32_t i = 0; i < k->OC; i++) {
    b[i] = k->saturate ? rint_(INT32_MAX - 100000, INT32_MAX) : rnd_bias();
    m[i] = k->saturate ? INT32_MAX : rnd_mult();
    s[i] = k->saturate ? rint_(20, 30) : rnd_shift(30);
  }
  pte_evalue *ov = ktest_ev_tensor(o);
  int32_t one[1] = {1};
  pte_evalue *args[] = {ktest_ev_tensor(x), ktest_ev_tensor(w),
                        k->bias ? ktest_ev_tensor(i32t(k->OC, b)) : ktest_ev_none(),
                        IL2(k->sh, k->sw), IL2(k->ph, k->pw), IL2(k->dh, k->dw),
                        ktest_ev_int(k->in_off), ktest_ev_int(k->out_off),
                        ktest_ev_tensor(i32t(k->OC, m)), ktest_ev_tensor(i32t(k->OC, s)),
                        ktest_ev_int(k->amin), ktest_ev_int(k->amax),
                        ktest_ev_tensor(i8out(1, one, NULL)), ov, ov};
  char what[200];
  snprintf(what, sizeof what,
           "conv #%d N%d C%d %dx%d OC%d k%dx%d g%d s%lldx%lld p%lldx%lld d%lldx%lld off %lld", idx,
           k->N, k->C, k->H, k->W, k->OC, k->KH, k->KW, k->groups, (long long)k->sh,
           (long long)k->sw, (long long)k->ph, (long long)k->pw, (long long)k->dh,
           (long long)k->dw, (long long)k->in_off);
  int n;
  return compare_isas(what, cmfn("cortex_m::quantized_conv2d.out"), args, 15, o, must_simd, &n);
}

static void rnd_conv(conv_case *k, bool pointwise) {
  memset(k, 0, sizeof *k);
  for (;;) {
    k->N = (int32_t)rint_(1, 2);
    k->groups = rint_(0, 4) == 0 ? (int32_t)rint_(2, 3) : 1;
    k->C = k->groups * (int32_t)rint_(1, 24);
    k->OC = k->groups * (int32_t)rint_(1, rint_(0, 3) == 0 ? 80 : 24);
    k->H = (int32_t)rint_(1, 12);
    k->W = (int32_t)rint_(1, 12);
    k->KH = pointwise ? 1 : (int32_t)rint_(1, 4);
    k->KW = pointwise ? 1 : (int32_t)rint_(1, 4);
    k->sh = rint_(1, 3);
    k->sw = rint_(1, 3);
    k->ph = pointwise ? 0 : rint_(0, 2);
    k->pw = pointwise ? 0 : rint_(0, 2);
    k->dh = rint_(1, 2);
    k->dw = rint_(1, 2);
    if (k->H + 2 * k->ph - k->dh * (k->KH - 1) - 1 >= 0 &&
        k->W + 2 * k->pw - k->dw * (k->KW - 1) - 1 >= 0)
      break;
  }
  k->in_off = rnd_off();
  k->out_off = rint_(-128, 127);
  k->amin = rint_(-128, 0);
  k->amax = rint_(k->amin, 127);
  if (rint_(0, 2) == 0) {
    k->amin = -128;
    k->amax = 127;
  }
  k->wlo = -128;
  k->whi = 127;
  k->xlo = -128;
  k->xhi = 127;
  k->channels_last = rint_(0, 5) != 0;
  k->bias = rint_(0, 4) != 0;
}

TEST(conv2d_random_shapes_match_portable) {
  if (!any_simd()) SKIP("no SIMD ISA on this machine");
  g_seed = 1001u;
  for (int i = 0; i < 300; i++) {
    conv_case k;
    rnd_conv(&k, i % 3 == 0);
    const bool simd = k.channels_last && (k.KH * k.KW == 1 && k.ph == 0 && k.pw == 0
                                              ? true
                                              : (k.in_off >= -127 && k.in_off <= 128));
    if (!run_conv_case(&k, i, simd)) return;
  }
}

TEST(conv2d_kws_shapes_and_saturation_match_portable) {
  if (!any_simd()) SKIP("no SIMD ISA on this machine");
  g_seed = 1002u;
  /* the KWS first conv (10x4 stride 2, pad 5x1, 1 -> 64) and a pointwise 64 -> 64 */
  conv_case k = {1, 1, 49, 10, 64, 10, 4, 1, 2, 2, 5, 1, 1, 1, 7, -20, -20, 127, -60, 60, -128, 127, true, true, false};
  CHECK(run_conv_case(&k, 0, true));
  conv_case pw = {1, 64, 25, 5, 64, 1, 1, 1, 1, 1, 0, 0, 1, 1, 20, -5, -5, 127, -70, 70, -128, 127, true, true, false};
  CHECK(run_conv_case(&pw, 1, true));
  /* largest depth (3x3x227 = 2043 taps) with extreme values: accumulators near the limits */
  conv_case big = {1, 227, 5, 4, 37, 3, 3, 1, 1, 1, 1, 1, 1, 1, 128, 0, -128, 127, -128, -128, 127, 127, true, true, false};
  CHECK(run_conv_case(&big, 2, true));
  big.wlo = big.whi = 127;
  big.in_off = -127;
  big.xlo = big.xhi = -128;
  CHECK(run_conv_case(&big, 3, true));
  /* positive shifts and biases near INT32_MAX: the accumulator and the left shift wrap, outputs
   * pinned at the clamp bounds */
  for (int i = 0; i < 20; i++) {
    conv_case s;
    rnd_conv(&s, i % 2 == 0);
    s.channels_last = true;
    s.saturate = true;
    s.in_off = rint_(-128, 127);
    CHECK(run_conv_case(&s, 10 + i, true));
  }
  /* depth beyond PTE_CM_SIMD_KMAX and an offset outside [-127, 128] with padding: portable */
  conv_case deep = {1, 300, 3, 3, 5, 3, 3, 1, 1, 1, 0, 0, 1, 1, 3, 0, -128, 127, -128, 127, -128, 127, true, true, false};
  CHECK(run_conv_case(&deep, 40, false));
  conv_case off = {1, 3, 5, 5, 9, 3, 3, 1, 1, 1, 1, 1, 1, 1, -255, 0, -128, 127, -128, 127, -128, 127, true, true, false};
  CHECK(run_conv_case(&off, 41, false));
}

/* ---- depthwise ------------------------------------------------------------------------ */

TEST(depthwise_random_shapes_match_portable) {
  if (!any_simd()) SKIP("no SIMD ISA on this machine");
  g_seed = 2001u;
  for (int i = 0; i < 200; i++) {
    int32_t N = (int32_t)rint_(1, 2), C = (int32_t)rint_(1, i % 5 == 0 ? 90 : 40);
    int32_t H = (int32_t)rint_(1, 10), W = (int32_t)rint_(1, 10), KH = (int32_t)rint_(1, 4),
            KW = (int32_t)rint_(1, 4);
    int64_t sh = rint_(1, 3), sw = rint_(1, 3), ph = rint_(0, 2), pw = rint_(0, 2),
            dh = rint_(1, 2), dw = rint_(1, 2);
    const int64_t nh = H + 2 * ph - dh * (KH - 1) - 1, nw = W + 2 * pw - dw * (KW - 1) - 1;
    if (nh < 0 || nw < 0) continue;
    const bool sat = i % 7 == 0;
    const int32_t OH = (int32_t)(nh / sh + 1), OW = (int32_t)(nw / sw + 1);
    const int32_t xs[4] = {N, C, H, W}, ws[4] = {1, KH, KW, C}, os[4] = {N, C, OH, OW};
    pte_tensor *x = i8r(4, xs, k_cl, -128, 127), *w = i8r(4, ws, NULL, sat ? 127 : -128, 127);
    pte_tensor *o = i8out(4, os, k_cl);
    int64_t b[128], m[128], s[128];
    for (int32_t c = 0; c < C; c++) {
      b[c] = sat ? rint_(INT32_MAX - 50000, INT32_MAX) : rnd_bias();
      m[c] = rnd_mult();
      s[c] = sat ? rint_(10, 30) : rnd_shift(30);
    }
    const int64_t amin = rint_(-128, 0), amax = rint_(amin, 127);
    pte_evalue *ov = ktest_ev_tensor(o);
    int32_t one[1] = {1};
    pte_evalue *args[] = {ktest_ev_tensor(x), ktest_ev_tensor(w),
                          rint_(0, 4) ? ktest_ev_tensor(i32t(C, b)) : ktest_ev_none(),
                          IL2(sh, sw), IL2(ph, pw), IL2(dh, dw), ktest_ev_int(1),
                          ktest_ev_int(rnd_off()), ktest_ev_int(rint_(-128, 127)),
                          ktest_ev_tensor(i32t(C, m)), ktest_ev_tensor(i32t(C, s)),
                          ktest_ev_int(amin), ktest_ev_int(amax),
                          ktest_ev_tensor(i8out(1, one, NULL)), ov, ov};
    char what[160];
    snprintf(what, sizeof what, "depthwise #%d N%d C%d %dx%d k%dx%d", i, N, C, H, W, KH, KW);
    int n;
    if (!compare_isas(what, cmfn("cortex_m::quantized_depthwise_conv2d.out"), args, 16, o, ALL_SIMD,
                      &n))
      return;
  }
}

/* ---- linear --------------------------------------------------------------------------- */

TEST(linear_random_shapes_match_portable) {
  if (!any_simd()) SKIP("no SIMD ISA on this machine");
  g_seed = 3001u;
  for (int i = 0; i < 150; i++) {
    const int32_t rows = (int32_t)rint_(1, i % 10 == 0 ? 70 : 6);
    const int32_t K = (int32_t)rint_(1, i % 10 == 1 ? 2048 : 150);
    const int32_t N = (int32_t)rint_(1, i % 10 == 2 ? 300 : 40);
    const int32_t xs[2] = {rows, K}, ws[2] = {N, K}, os[2] = {rows, N};
    pte_tensor *x = i8r(2, xs, NULL, -128, 127), *w = i8r(2, ws, NULL, -128, 127);
    pte_tensor *o = i8out(2, os, NULL);
    int64_t b[300], ks[300], m[300], s[300];
    const bool per_ch = rint_(0, 1) == 1;
    for (int32_t j = 0; j < N; j++) {
      b[j] = rnd_bias();
      ks[j] = rnd_bias();
      m[j] = rnd_mult();
      s[j] = rnd_shift(31);
    }
    const int mode = (int)rint_(0, 2); /* 0 bias, 1 kernel_sum, 2 neither */
    const int64_t amin = rint_(-128, 0), amax = rint_(amin, 127);
    pte_evalue *ov = ktest_ev_tensor(o);
    pte_evalue *args[] = {ktest_ev_tensor(x),
                          ktest_ev_tensor(w),
                          mode == 0 ? ktest_ev_tensor(i32t(N, b)) : ktest_ev_none(),
                          mode == 1 ? ktest_ev_tensor(i32t(N, ks)) : ktest_ev_none(),
                          ktest_ev_int(rnd_off()),
                          ktest_ev_int(rint_(0, 2) == 0 ? rint_(-255, 255) : 0),
                          ktest_ev_int(rint_(-128, 127)),
                          ktest_ev_int_list(m, per_ch ? (size_t)N : 1),
                          ktest_ev_int_list(s, per_ch ? (size_t)N : 1),
                          ktest_ev_int(amax),
                          ktest_ev_int(amin),
                          ov,
                          ov};
    char what[120];
    snprintf(what, sizeof what, "linear #%d rows %d K %d N %d mode %d", i, rows, K, N, mode);
    int n;
    if (!compare_isas(what, cmfn("cortex_m::quantized_linear.out"), args, 13, o, ALL_SIMD, &n)) return;
  }
}

/* ---- pooling -------------------------------------------------------------------------- */

TEST(pooling_random_shapes_match_portable) {
  if (!any_simd()) SKIP("no SIMD ISA on this machine");
  g_seed = 4001u;
  const unsigned x86 = X86_SIMD;
  for (int i = 0; i < 200; i++) {
    const bool is_max = i % 2 == 0;
    const int32_t N = (int32_t)rint_(1, 2), C = (int32_t)rint_(1, i % 5 == 0 ? 150 : 40);
    const int32_t H = (int32_t)rint_(1, 12), W = (int32_t)rint_(1, 12);
    const int64_t kh = rint_(1, H), kw = rint_(1, W), sh = rint_(1, 3), sw = rint_(1, 3);
    const int64_t ph = rint_(0, kh / 2), pw = rint_(0, kw / 2);
    const bool ceil_mode = !is_max && rint_(0, 1) == 1;
    int64_t OH = (H + 2 * ph - kh) / sh + 1, OW = (W + 2 * pw - kw) / sw + 1;
    if (ceil_mode && (H + 2 * ph - kh) % sh != 0) OH++;
    if (ceil_mode && (OH - 1) * sh >= H + ph) OH--;
    if (ceil_mode && (W + 2 * pw - kw) % sw != 0) OW++;
    if (ceil_mode && (OW - 1) * sw >= W + pw) OW--;
    const int32_t xs[4] = {N, C, H, W}, os[4] = {N, C, (int32_t)OH, (int32_t)OW};
    pte_tensor *x = i8r(4, xs, k_cl, i % 9 == 0 ? 120 : -128, 127), *o = i8out(4, os, k_cl);
    pte_evalue *ov = ktest_ev_tensor(o);
    char what[120];
    snprintf(what, sizeof what, "%s pool #%d N%d C%d %dx%d k%lldx%lld", is_max ? "max" : "avg", i,
             N, C, H, W, (long long)kh, (long long)kw);
    int n;
    if (is_max) {
      const int64_t amin = rint_(-128, 0), amax = rint_(amin, 127);
      const int64_t zp = rint_(-128, 127);
      pte_evalue *args[] = {ktest_ev_tensor(x), IL2(kh, kw), IL2(sh, sw), IL2(ph, pw), IL2(1, 1),
                            ktest_ev_bool(false), ktest_ev_int(zp), ktest_ev_int(zp),
                            ktest_ev_int(amin), ktest_ev_int(amax), ov, ov};
      if (!compare_isas(what, cmfn("cortex_m::quantized_max_pool2d.out"), args, 12, o, x86, &n))
        return;
    } else {
      int32_t one[1] = {1};
      pte_evalue *args[] = {ktest_ev_tensor(x), IL2(kh, kw), IL2(sh, sw), IL2(ph, pw),
                            ktest_ev_bool(ceil_mode), ktest_ev_int(-3), ktest_ev_int(1 << 30),
                            ktest_ev_int(0), ktest_ev_tensor(i8out(1, one, NULL)), ov, ov};
      if (!compare_isas(what, cmfn("cortex_m::quantized_avg_pool2d.out"), args, 11, o, x86, &n))
        return;
    }
  }
}

/* ---- add / mul ------------------------------------------------------------------------ */

TEST(add_mul_random_match_portable) {
  if (!any_simd()) SKIP("no SIMD ISA on this machine");
  g_seed = 5001u;
  const unsigned x86 = X86_SIMD;
  for (int i = 0; i < 200; i++) {
    const int32_t sz[4] = {(int32_t)rint_(1, 2), (int32_t)rint_(1, 33), (int32_t)rint_(1, 5),
                           (int32_t)rint_(1, 7)};
    const uint8_t *ord = i % 3 == 0 ? NULL : k_cl;
    pte_tensor *a = i8r(4, sz, ord, -128, 127), *b = i8r(4, sz, ord, -128, 127);
    pte_tensor *o = i8out(4, sz, ord);
    pte_evalue *ov = ktest_ev_tensor(o);
    char what[80];
    int n;
    if (i % 2 == 0) {
      snprintf(what, sizeof what, "add #%d", i);
      const int64_t amin = rint_(-128, 0), amax = rint_(amin, 127);
      pte_evalue *args[] = {ktest_ev_tensor(a), ktest_ev_int(rint_(-128, 127)),
                            ktest_ev_int(rnd_mult()), ktest_ev_int(rnd_shift(31)),
                            ktest_ev_tensor(b), ktest_ev_int(rint_(-128, 127)),
                            ktest_ev_int(rnd_mult()), ktest_ev_int(rnd_shift(31)),
                            ktest_ev_int(rint_(-128, 127)), ktest_ev_int(rnd_mult()),
                            ktest_ev_int(rnd_shift(31)), ktest_ev_int(amin), ktest_ev_int(amax),
                            ov, ov};
      if (!compare_isas(what, cmfn("cortex_m::quantized_add.out"), args, 15, o, x86, &n)) return;
    } else {
      snprintf(what, sizeof what, "mul #%d", i);
      pte_evalue *args[] = {ktest_ev_tensor(a), ktest_ev_int(rint_(-128, 127)), ktest_ev_tensor(b),
                            ktest_ev_int(rint_(-128, 127)), ktest_ev_int(rint_(-128, 127)),
                            ktest_ev_int(rnd_mult()), ktest_ev_int(rnd_shift(31)), ov, ov};
      if (!compare_isas(what, cmfn("cortex_m::quantized_mul.out"), args, 9, o, x86, &n)) return;
    }
  }
}

/* ---- softmax ------------------------------------------------------------------------- */

TEST(softmax_random_match_portable) {
  if (!any_simd()) SKIP("no SIMD ISA on this machine");
  g_seed = 6001u;
  const unsigned avx512 = X86_SIMD;
  for (int i = 0; i < 300; i++) {
    const int32_t sz[2] = {(int32_t)rint_(1, 5), (int32_t)rint_(1, i % 4 == 0 ? 70 : 20)};
    /* narrow inputs (many equal values / saturated probabilities) or the full int8 range */
    const int lo = i % 3 == 0 ? (int)rint_(-128, 120) : -128;
    pte_tensor *x = i8r(2, sz, NULL, lo, i % 3 == 0 ? lo + 7 : 127), *o = i8out(2, sz, NULL);
    /* input_multiplier / shift as TFLite derives them (beta * scale in Q5.26), sometimes
     * extreme; diff_min from the same range */
    const int64_t mult = rint_(0, 4) == 0 ? rint_(1, INT32_MAX) : rint_(1073741824LL, INT32_MAX);
    const int64_t shift = rint_(0, 4) == 0 ? rint_(0, 31) : rint_(18, 26);
    const int64_t dmin = rint_(0, 5) == 0 ? rint_(-300, 10) : -rint_(100, 4000);
    pte_evalue *ov = ktest_ev_tensor(o);
    pte_evalue *args[] = {ktest_ev_tensor(x), ktest_ev_int(-1), ktest_ev_int(rint_(-128, 127)),
                          ktest_ev_int(-128), ktest_ev_int(mult), ktest_ev_int(shift),
                          ktest_ev_int(dmin), ov, ov};
    char what[120];
    snprintf(what, sizeof what, "softmax #%d %dx%d mult %lld shift %lld diff_min %lld", i, sz[0],
             sz[1], (long long)mult, (long long)shift, (long long)dmin);
    int n;
    if (!compare_isas(what, cmfn("cortex_m::softmax.out"), args, 9, o, avx512, &n)) return;
  }
}

/* The lane-wise fixed-point helpers against cm_internal.h's scalar ones on random and edge
 * values (the op-level comparisons only see them through int8 rounding). */
TEST(vector_fixed_point_helpers_match_scalar) {
  if (!any_simd()) SKIP("no SIMD ISA on this machine");
  g_seed = 7001u;
  enum { N = 4099 };
  static int32_t a[N], b[N], sh[N], rq[N], dhm[N], ex[N];
  const int32_t edge[] = {INT32_MIN, INT32_MIN + 1, -1073741824, -65536, -1, 0, 1, 65535,
                          1073741824, INT32_MAX - 1, INT32_MAX};
  const int ne = (int)(sizeof edge / sizeof edge[0]);
  for (int i = 0; i < N; i++) {
    if (i < ne * ne) {
      a[i] = edge[i % ne];
      b[i] = edge[i / ne];
    } else {
      const int64_t k = rint_(0, 3);
      a[i] = (int32_t)(k == 0 ? rint_(-4096, 4096) : (k == 1 ? -rint_(0, 1 << 26) : rint_(INT32_MIN, INT32_MAX)));
      b[i] = (int32_t)(rint_(0, 3) == 0 ? rint_(INT32_MIN, INT32_MAX) : rint_(1073741824LL, INT32_MAX));
    }
    sh[i] = (int32_t)rint_(-31, 31);
  }
  if (pte_cm_avx512_check_math(a, b, sh, N, rq, dhm, ex)) {
    for (int i = 0; i < N; i++) {
      if (b[i] != INT32_MIN)
        CHECK_MSG(rq[i] == pte_cm_requantize(a[i], b[i], sh[i]), "avx512 requantize(%d, %d, %d): %d vs %d",
                  a[i], b[i], sh[i], rq[i], pte_cm_requantize(a[i], b[i], sh[i]));
      CHECK_MSG(dhm[i] == pte_cm_dhm_sat(a[i], b[i]), "avx512 dhm_sat(%d, %d): %d vs %d", a[i], b[i],
                dhm[i], pte_cm_dhm_sat(a[i], b[i]));
      const int32_t v = a[i] < 0 ? a[i] : 0;
      CHECK_MSG(ex[i] == pte_cm_exp_on_negative_values(v), "avx512 exp(%d): %d vs %d", v, ex[i],
                pte_cm_exp_on_negative_values(v));
    }
  }
  if (pte_cm_avx2_check_math(a, b, sh, N, rq, dhm, ex)) {
    for (int i = 0; i < N; i++) {
      if (b[i] != INT32_MIN)
        CHECK_MSG(rq[i] == pte_cm_requantize(a[i], b[i], sh[i]), "avx2 requantize(%d, %d, %d): %d vs %d",
                  a[i], b[i], sh[i], rq[i], pte_cm_requantize(a[i], b[i], sh[i]));
      CHECK_MSG(dhm[i] == pte_cm_dhm_sat(a[i], b[i]), "avx2 dhm_sat(%d, %d): %d vs %d", a[i], b[i],
                dhm[i], pte_cm_dhm_sat(a[i], b[i]));
      const int32_t v = a[i] < 0 ? a[i] : 0;
      CHECK_MSG(ex[i] == pte_cm_exp_on_negative_values(v), "avx2 exp(%d): %d vs %d", v, ex[i],
                pte_cm_exp_on_negative_values(v));
    }
  }
}

/* The ISA switch itself: PORTABLE is always available, pinning an unavailable ISA fails and
 * changes nothing, AUTO picks the best. */
TEST(isa_switch) {
  CHECK(pte_cm_simd_available(PTE_CM_ISA_PORTABLE));
  CHECK(pte_cm_simd_force(PTE_CM_ISA_PORTABLE));
  CHECK_EQ_INT(pte_cm_simd_active(), PTE_CM_ISA_PORTABLE);
  CHECK(!pte_cm_simd_force((pte_cm_isa)99));
  CHECK_EQ_INT(pte_cm_simd_active(), PTE_CM_ISA_PORTABLE);
  CHECK(pte_cm_simd_force(PTE_CM_ISA_AUTO));
#if defined(__x86_64__)
  CHECK(!pte_cm_simd_available(PTE_CM_ISA_ARM_DSP));
  CHECK(!pte_cm_simd_available(PTE_CM_ISA_ARM_MVE));
  if (pte_cm_simd_available(PTE_CM_ISA_AVX512VNNI))
    CHECK_EQ_INT(pte_cm_simd_active(), PTE_CM_ISA_AVX512VNNI);
#endif
  printf("  cortex_m SIMD ISA: %s\n", pte_cm_simd_name(pte_cm_simd_active()));
}

int main(void) {
  RUN(isa_switch);
  RUN(conv2d_random_shapes_match_portable);
  RUN(conv2d_kws_shapes_and_saturation_match_portable);
  RUN(depthwise_random_shapes_match_portable);
  RUN(linear_random_shapes_match_portable);
  RUN(pooling_random_shapes_match_portable);
  RUN(add_mul_random_match_portable);
  RUN(softmax_random_match_portable);
  RUN(vector_fixed_point_helpers_match_scalar);
  ktest_free_all();
  return test_summary();
}
