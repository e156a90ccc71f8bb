/* XNNPACK backend: the vectorised elementwise kernels (backends/xnnpack/xnn_vmath.h) on every ISA
 * this CPU runs, against double-precision libm (transcendental ones: max error in float ulps) or
 * the scalar C definitions (exact ones: bit-identical), over ~2M inputs incl. edge values and
 * every tail length; and the SiLU / output-clamp fusion, whose results are compared with a
 * double-precision evaluation written here. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../backends/xnnpack/xnn_internal.h"
#include "test.h"
#include "test_xnnpack_util.h"

typedef struct vm_isa {
  const char *name;
  const pte_xnn_vec_kernels *k;
} vm_isa;

static size_t vm_isas(vm_isa *out) {
  size_t n = 0;
  out[n].name = "scalar", out[n].k = pte_xnn_vec_kernels_scalar(), n++;
  if (pte_xnnpack_isa_supported(PTE_XNN_ISA_AVX2) && pte_xnn_vec_kernels_avx2())
    out[n].name = "avx2", out[n].k = pte_xnn_vec_kernels_avx2(), n++;
  if (pte_xnnpack_isa_supported(PTE_XNN_ISA_AVX512) && pte_xnn_vec_kernels_avx512())
    out[n].name = "avx512", out[n].k = pte_xnn_vec_kernels_avx512(), n++;
  return n;
}

/* Inputs: edge values, a dense sweep of [lo, hi], and +-2^k * (1 + j/64) for small magnitudes. */
static float *vm_inputs(float lo, float hi, size_t *count) {
  static const float edges[] = {0.0f, -0.0f, 1e-45f, -1e-45f, FLT_MIN, -FLT_MIN, 1.0f, -1.0f, 0.5f, -0.5f,
                                INFINITY, -INFINITY, NAN, 88.72f, 88.7228f, 88.73f, 89.0f, -87.33f, -87.34f,
                                -100.0f, -103.9f, -104.0f, -105.0f, -150.0f, 9.0f, -9.0f, 9.1f, -9.1f, 17.5f,
                                -17.5f, -17.6f, 1e-8f, -1e-8f, 0.34657359f, -0.34657359f, FLT_MAX, -FLT_MAX, 3.0f,
                                -3.0f, 6.0f, -6.0f, 2.5f, -2.5f};
  const size_t n_edge = sizeof edges / sizeof edges[0], n_sweep = 1500000, n_small = 2 * 60 * 64 + 2 * 277 * 8;
  float *x = (float *)malloc((n_edge + n_sweep + n_small) * sizeof(float));
  size_t n = 0;
  for (size_t i = 0; i < n_edge; i++) x[n++] = edges[i];
  for (size_t i = 0; i < n_sweep; i++) x[n++] = lo + (hi - lo) * (float)((double)i / (double)(n_sweep - 1));
  for (int k = -40; k < 20; k++)
    for (int j = 0; j < 64; j++) {
      const float v = ldexpf(1.0f + (float)j / 64.0f, k);
      x[n++] = v;
      x[n++] = -v;
    }
  for (int k = -149; k < 128; k++) /* every binade, denormals included */
    for (int j = 0; j < 64; j += 8) {
      const float v = ldexpf(1.0f + (float)j / 64.0f, k);
      x[n++] = v;
      x[n++] = -v;
    }
  *count = n;
  return x;
}

/* |got - ref| in units of the float ulp at ref (denormal spacing below FLT_MIN); 0 when both
 * are NaN or equal infinities, 1e9 for a NaN / infinity mismatch. */
static double vm_ulps(float got, double ref) {
  if (isnan(ref)) return isnan(got) ? 0.0 : 1e9;
  if (isnan(got)) return 1e9;
  if (isinf(ref) || fabs(ref) > FLT_MAX) {
    /* a result beyond FLT_MAX rounds to infinity (or FLT_MAX when just above) */
    if (isinf(got) && (got > 0) == (ref > 0)) return 0.0;
    return fabs(ref) <= (double)FLT_MAX * (1.0 + 0x1p-24) && fabsf(got) == FLT_MAX ? 0.5 : 1e9;
  }
  const double a = fabs(ref);
  double ulp;
  if (a < (double)FLT_MIN) ulp = 0x1p-149;
  else {
    int e;
    frexp(a, &e);
    ulp = ldexp(1.0, e - 24);
  }
  return fabs((double)got - ref) / ulp;
}

typedef double (*vm_ref_fn)(double x, double alpha);
static double ref_exp(double x, double a) { (void)a; return exp(x); }
static double ref_log(double x, double a) { (void)a; return log(x); }
static double ref_sigmoid(double x, double a) { (void)a; return 1.0 / (1.0 + exp(-x)); }
static double ref_tanh(double x, double a) { (void)a; return tanh(x); }
static double ref_elu(double x, double a) { return x > 0 ? x : a * expm1(x); }
static double ref_silu(double x, double a) { (void)a; return x / (1.0 + exp(-x)); }
static double ref_gelu(double x, double a) { (void)a; return 0.5 * x * erfc(-x / sqrt(2.0)); }
static double ref_sin(double x, double a) { (void)a; return sin(x); }

typedef struct vm_case {
  const char *name;
  int op;
  vm_ref_fn ref;
  float lo, hi, alpha;
  double max_ulp;    /* the bound stated in xnn_vmath.h (normal results) */
  double max_denorm; /* results below FLT_MIN: absolute error in units of 2^-149 */
  float abs_below;   /* inputs below this: absolute error <= |x| * 2^-125 instead of ulps */
  float keep_abs;    /* > 0: only inputs with |x| <= keep_abs (and NaN) are used */
} vm_case;

static const vm_case k_cases[] = {
    {"exp", PTE_XNN_U_EXP, ref_exp, -110.0f, 90.0f, 0.0f, 2.0, 1.0, -INFINITY, 0.0f},
    /* the sweep plus +-2^k (1 + j/64), k in [-40, 20), denormals, 0, FLT_MAX, inf, negatives */
    {"log", PTE_XNN_U_LOG, ref_log, 0.0f, 3.0f, 0.0f, 2.0, 1.0, -INFINITY, 0.0f},
    /* sigmoid family: e^-|x| below FLT_MIN is flushed to 0, so are results below FLT_MIN
     * (x < -87.34): absolute error < 2^-126 */
    {"sigmoid", PTE_XNN_U_SIGMOID, ref_sigmoid, -120.0f, 120.0f, 0.0f, 3.0, 8388608.0, -INFINITY, 0.0f},
    {"tanh", PTE_XNN_U_TANH, ref_tanh, -12.0f, 12.0f, 0.0f, 3.0, 1.0, -INFINITY, 0.0f},
    {"elu", PTE_XNN_U_ELU, ref_elu, -30.0f, 30.0f, 1.0f, 3.0, 1.0, -INFINITY, 0.0f},
    {"elu alpha 0.3", PTE_XNN_U_ELU, ref_elu, -30.0f, 30.0f, 0.3f, 3.0, 1.0, -INFINITY, 0.0f},
    /* x times a sigmoid below FLT_MIN (x < -87.3) keeps the sigmoid's absolute error, times |x| */
    {"silu", PTE_XNN_U_SILU, ref_silu, -120.0f, 120.0f, 0.0f, 4.0, 1.0, -87.3f, 0.0f},
    {"gelu", PTE_XNN_U_GELU, ref_gelu, -20.0f, 20.0f, 0.0f, 8.0, 4.0, -INFINITY, 0.0f},
    /* the polynomial range (edge values beyond it dropped), then inputs beyond it (libm's sinf) */
    {"sin", PTE_XNN_U_SIN, ref_sin, -6000.0f, 6000.0f, 0.0f, 3.0, 1.0, -INFINITY, 6000.0f},
    {"sin (libm range)", PTE_XNN_U_SIN, ref_sin, -1e6f, 1e6f, 0.0f, 1.0, 1.0, -INFINITY, 0.0f},
};

TEST(transcendental_ulp) {
  vm_isa isas[3];
  const size_t n_isa = vm_isas(isas);
  for (size_t c = 0; c < sizeof k_cases / sizeof k_cases[0]; c++) {
    const vm_case *vc = &k_cases[c];
    size_t n;
    float *x = vm_inputs(vc->lo, vc->hi, &n);
    if (vc->keep_abs > 0) {
      size_t k = 0;
      for (size_t i = 0; i < n; i++)
        if (!(fabsf(x[i]) > vc->keep_abs)) x[k++] = x[i];
      n = k;
    }
    float *y = (float *)malloc(n * sizeof(float));
    double *ref = (double *)malloc(n * sizeof(double));
    for (size_t i = 0; i < n; i++) ref[i] = vc->ref((double)x[i], (double)vc->alpha);
    pte_xnn_uparams prm = {-INFINITY, INFINITY, vc->alpha};
    for (size_t s = 0; s < n_isa; s++) {
      isas[s].k->unary[vc->op](n, x, y, &prm);
      double worst = 0, worst_dn = 0;
      size_t wi = 0;
      for (size_t i = 0; i < n; i++) {
        const double u = vm_ulps(y[i], ref[i]);
        if (x[i] < vc->abs_below) {
          CHECK_MSG((isnan(y[i]) && isnan(ref[i])) || fabs((double)y[i] - ref[i]) <= fabs((double)x[i]) * 0x1p-125, "%s on %s: x = %.9g gives %.9g, want %.9g",
                    vc->name, isas[s].name, (double)x[i], (double)y[i], ref[i]);
          continue;
        }
        if (fabs(ref[i]) < (double)FLT_MIN) {
          if (u > worst_dn) worst_dn = u;
          CHECK_MSG(u <= vc->max_denorm, "%s on %s: x = %.9g gives %.9g, want %.9g (denormal result, bound %.0f x 2^-149)",
                    vc->name, isas[s].name, (double)x[i], (double)y[i], ref[i], vc->max_denorm);
          continue;
        }
        if (u > worst) worst = u, wi = i;
      }
      fprintf(stderr, "  %-14s %-7s max error %.2f ulp (at x = %.9g: %.9g vs %.9g); denormal results %.0f x 2^-149\n",
              vc->name, isas[s].name, worst, (double)x[wi], (double)y[wi], ref[wi], worst_dn);
      CHECK_MSG(worst <= vc->max_ulp, "%s on %s: %.2f ulp at x = %.9g (got %.9g, want %.9g), bound %.1f", vc->name,
                isas[s].name, worst, (double)x[wi], (double)y[wi], ref[wi], vc->max_ulp);
    }
    free(x);
    free(y);
    free(ref);
  }
}

/* The exact operators: bit-identical to their scalar C definitions. */
static float ex_ref(int op, float v, const pte_xnn_uparams *p) {
  switch (op) {
    case PTE_XNN_U_ABS: return fabsf(v);
    case PTE_XNN_U_NEG: return -v;
    case PTE_XNN_U_SQUARE: return v * v;
    case PTE_XNN_U_SQRT: return sqrtf(v);
    case PTE_XNN_U_RSQRT: return 1.0f / sqrtf(v);
    case PTE_XNN_U_FLOOR: return floorf(v);
    case PTE_XNN_U_CEIL: return ceilf(v);
    case PTE_XNN_U_CLAMP: return v < p->vmin ? p->vmin : (v > p->vmax ? p->vmax : v);
    case PTE_XNN_U_HARDSWISH: {
      float t = v + 3.0f;
      t = t < 0.0f ? 0.0f : (t > 6.0f ? 6.0f : t);
      return v * t * (1.0f / 6.0f);
    }
    case PTE_XNN_U_LEAKY: return v < 0.0f ? v * p->alpha : v;
    default: return NAN;
  }
}

static bool same_bits(float a, float b) {
  if (isnan(a) && isnan(b)) return true;
  return memcmp(&a, &b, 4) == 0;
}

TEST(exact_unary_bit_identical) {
  static const int ops[] = {PTE_XNN_U_ABS,   PTE_XNN_U_NEG,  PTE_XNN_U_SQUARE, PTE_XNN_U_SQRT,      PTE_XNN_U_RSQRT,
                            PTE_XNN_U_FLOOR, PTE_XNN_U_CEIL, PTE_XNN_U_CLAMP,  PTE_XNN_U_HARDSWISH, PTE_XNN_U_LEAKY};
  vm_isa isas[3];
  const size_t n_isa = vm_isas(isas);
  size_t n;
  float *x = vm_inputs(-1e6f, 1e6f, &n);
  /* fractional values near integers for floor/ceil */
  for (size_t i = 0; i < 4096 && i < n; i++) x[n - 1 - i] = (float)((int)i - 2048) * 0.25f + 1e-3f * (float)(i % 3);
  float *y = (float *)malloc(n * sizeof(float));
  const pte_xnn_uparams prm = {-2.5f, 6.0f, 0.125f};
  for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++)
    for (size_t s = 0; s < n_isa; s++) {
      isas[s].k->unary[ops[o]](n, x, y, &prm);
      for (size_t i = 0; i < n; i++) {
        const float want = ex_ref(ops[o], x[i], &prm);
        CHECK_MSG(same_bits(y[i], want), "op %d on %s: x = %.9g gives %.9g, want %.9g", ops[o], isas[s].name,
                  (double)x[i], (double)y[i], (double)want);
      }
    }
  free(x);
  free(y);
}

static float bin_ref(int op, float a, float b) {
  switch (op) {
    case PTE_XNN_B_ADD: return a + b;
    case PTE_XNN_B_SUB: return a - b;
    case PTE_XNN_B_MUL: return a * b;
    case PTE_XNN_B_DIV: return a / b;
    case PTE_XNN_B_MIN: return isnan(a) || isnan(b) ? NAN : (a < b ? a : b);
    case PTE_XNN_B_MAX: return isnan(a) || isnan(b) ? NAN : (a > b ? a : b);
    default: return a < 0.0f ? a * b : a;
  }
}

/* Every operator x shape (vv, vs, sv) x tail length 0..40 x fused clamp, with NaN/inf/zeros. */
TEST(binary_bit_identical) {
  vm_isa isas[3];
  const size_t n_isa = vm_isas(isas);
  enum { N = 41 };
  static const float special[] = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, 1.0f, -1.0f, 3.5f, -7.25f, 1e30f};
  float a[N], b[N], y[N];
  for (int i = 0; i < N; i++) {
    a[i] = i < 10 ? special[i] : xt_rand() * 10.0f;
    b[i] = i < 10 ? special[(i * 3 + 1) % 10] : xt_rand() * 10.0f;
  }
  const float clamps[2][2] = {{-INFINITY, INFINITY}, {-2.0f, 4.0f}};
  for (int op = 0; op < PTE_XNN_B_COUNT; op++)
    for (int shape = 0; shape < 3; shape++)
      for (int cl = 0; cl < 2; cl++)
        for (size_t s = 0; s < n_isa; s++)
          for (size_t len = 0; len <= N; len++) {
            for (int i = 0; i < N; i++) y[i] = 12345.0f;
            isas[s].k->binary[op][shape](len, shape == PTE_XNN_BS_SV ? a + 7 : a, b, y, clamps[cl][0], clamps[cl][1]);
            for (size_t i = 0; i < (size_t)N; i++) {
              if (i >= len) {
                CHECK_MSG(y[i] == 12345.0f, "op %d shape %d on %s wrote past %zu elements", op, shape, isas[s].name, len);
                continue;
              }
              const float av = shape == PTE_XNN_BS_SV ? a[7] : a[i];
              const float bv = shape == PTE_XNN_BS_VS ? b[0] : (shape == PTE_XNN_BS_SV ? b[i] : b[i]);
              float want = bin_ref(op, av, bv);
              want = want < clamps[cl][0] ? clamps[cl][0] : (want > clamps[cl][1] ? clamps[cl][1] : want);
              CHECK_MSG(same_bits(y[i], want), "op %d shape %d clamp %d on %s, len %zu, i %zu: %.9g op %.9g = %.9g, want %.9g",
                        op, shape, cl, isas[s].name, len, i, (double)av, (double)bv, (double)y[i], (double)want);
            }
          }
}

/* Tails: each length 0..40 writes exactly that many outputs, equal to the full-length result. */
TEST(unary_tails) {
  vm_isa isas[3];
  const size_t n_isa = vm_isas(isas);
  enum { N = 41 };
  float x[N], full[N], y[N];
  for (int i = 0; i < N; i++) x[i] = xt_rand() * 8.0f;
  const pte_xnn_uparams prm = {-1.0f, 1.0f, 0.5f};
  for (int op = 0; op < PTE_XNN_U_COUNT; op++)
    for (size_t s = 0; s < n_isa; s++) {
      isas[s].k->unary[op](N, x, full, &prm);
      for (size_t len = 0; len <= N; len++) {
        for (int i = 0; i < N; i++) y[i] = -777.0f;
        isas[s].k->unary[op](len, x, y, &prm);
        for (size_t i = 0; i < N; i++) {
          if (i < len) CHECK_MSG(same_bits(y[i], full[i]), "op %d on %s len %zu: element %zu differs", op, isas[s].name, len, i);
          else CHECK_MSG(y[i] == -777.0f, "op %d on %s len %zu wrote element %zu", op, isas[s].name, len, i);
        }
      }
    }
}

/* ---- fusion ------------------------------------------------------------------------------ */

static uint32_t fu_val(pte_xnn_builder *b, uint32_t n, uint32_t flags, uint32_t ext) {
  uint32_t dims[2] = {1, n}, id = 0;
  pte_xnn_tensor_desc t;
  memset(&t, 0, sizeof t);
  t.dtype = PTE_XNN_DT_FP32;
  t.rank = 2;
  t.dims = dims;
  t.flags = flags;
  t.external_id = ext;
  pte_xnn_builder_add_tensor(b, &t, &id);
  return id;
}

static void fu_node(pte_xnn_builder *b, unsigned type, uint32_t in0, uint32_t in1, uint32_t out, float lo, float hi) {
  pte_xnn_node_desc nd;
  memset(&nd, 0, sizeof nd);
  nd.type = type;
  nd.inputs[0] = in0, nd.inputs[1] = in1, nd.output = out;
  nd.has_min_max = true;
  nd.out_min = lo, nd.out_max = hi;
  pte_xnn_builder_add_node(b, &nd);
}

/* y = Add(x, x); s = Sigmoid(y); m = Multiply(s, y); out = Clamp(m, -0.1, 0.6) — and, with
 * `keep`, s is also a graph output (so neither rewrite may happen). */
static void fusion_case(bool keep) {
  enum { N = 1003 };
  pte_xnn_builder *b = pte_xnn_builder_new();
  const uint32_t x = fu_val(b, N, PTE_XNN_VALUE_EXTERNAL_INPUT, 0);
  const uint32_t y = fu_val(b, N, 0, 0);
  const uint32_t s = keep ? fu_val(b, N, PTE_XNN_VALUE_EXTERNAL_OUTPUT, 2) : fu_val(b, N, 0, 0);
  const uint32_t m = fu_val(b, N, 0, 0);
  const uint32_t out = fu_val(b, N, PTE_XNN_VALUE_EXTERNAL_OUTPUT, 1);
  fu_node(b, PTE_XNN_NODE_ADD, x, x, y, -INFINITY, INFINITY);
  fu_node(b, PTE_XNN_NODE_SIGMOID, y, PTE_XNN_NO_VALUE, s, -INFINITY, INFINITY);
  fu_node(b, PTE_XNN_NODE_MULTIPLY, s, y, m, -INFINITY, INFINITY);
  fu_node(b, PTE_XNN_NODE_CLAMP, m, PTE_XNN_NO_VALUE, out, -0.1f, 0.6f);
  pte_xnn_blob blob;
  pte_error_info err;
  CHECK_OK(pte_xnn_builder_finish(b, PTE_XNN_CONSTANTS_NAMED, &blob, &err));
  pte_xnn_builder_free(b);
  static const pte_xnn_isa isas[] = {PTE_XNN_ISA_SCALAR, PTE_XNN_ISA_AVX2, PTE_XNN_ISA_AVX512};
  for (size_t k = 0; k < 3; k++) {
    if (!pte_xnnpack_isa_supported(isas[k])) continue;
    pte_xnnpack_options o = {1, isas[k]};
    pte_xnn_delegate *d = NULL;
    CHECK_OK(pte_xnn_delegate_init(blob.data, blob.size, NULL, &o, &d, &err));
    /* rewrites: Sigmoid skipped and Multiply computing SiLU (not when s is an output); the Clamp
     * folded into the Multiply either way */
    CHECK_EQ_INT(d->n_nodes, 4);
    CHECK_EQ_INT(d->nodes[1].fuse, keep ? PTE_XNN_FUSE_NONE : PTE_XNN_FUSE_SKIP);
    CHECK_EQ_INT(d->nodes[2].fuse, keep ? PTE_XNN_FUSE_NONE : PTE_XNN_FUSE_SILU);
    CHECK_EQ_INT(d->nodes[3].fuse, PTE_XNN_FUSE_SKIP);
    float xv[N], ov[N], sv[N];
    for (int i = 0; i < N; i++) xv[i] = (float)(i - N / 2) * 0.01f;
    size_t dims[2] = {1, N};
    xt_tensor ti, to, ts;
    xt_tensor_init(&ti, PTE_DTYPE_FLOAT, 2, dims, xv, sizeof xv, 0);
    xt_tensor_init(&to, PTE_DTYPE_FLOAT, 2, dims, ov, sizeof ov, 0);
    xt_tensor_init(&ts, PTE_DTYPE_FLOAT, 2, dims, sv, sizeof sv, 0);
    pte_evalue *args[3] = {&ti.ev, &to.ev, &ts.ev};
    if (!keep) { /* profiling: per kind and per node, and the process-wide totals */
      CHECK_OK(pte_xnn_delegate_set_profiling(d, true));
      pte_xnnpack_profile_reset();
      for (int r = 0; r < 2; r++) CHECK_OK(pte_xnn_delegate_execute(d, args, 2, &err));
      pte_xnn_node_time kt[8], nt[8], gt[8];
      CHECK_EQ_INT(pte_xnn_delegate_profile_kinds(d, kt, 8), 2); /* Add, Multiply (SiLU + clamp) */
      CHECK_EQ_INT(pte_xnn_delegate_profile_nodes(d, nt, 8), 4);
      CHECK_EQ_INT(pte_xnnpack_profile_kinds(gt, 8), 2);
      for (int q = 0; q < 2; q++) {
        CHECK(kt[q].type == PTE_XNN_NODE_ADD || kt[q].type == PTE_XNN_NODE_MULTIPLY);
        CHECK_EQ_INT(kt[q].calls, 2);
        CHECK_EQ_INT(gt[q].calls, 2);
      }
      CHECK(kt[0].ns >= kt[1].ns);
      CHECK_STR(nt[2].name, "XNNMultiply");
      CHECK_EQ_INT(nt[2].node, 2);
      CHECK_EQ_INT(nt[0].calls, 2);
      CHECK(nt[0].ns + nt[2].ns > 0);
      pte_xnn_delegate_profile_reset(d);
      CHECK_EQ_INT(pte_xnn_delegate_profile_kinds(d, kt, 8), 0);
      CHECK_OK(pte_xnn_delegate_set_profiling(d, false));
    }
    CHECK_OK(pte_xnn_delegate_execute(d, args, keep ? 3 : 2, &err));
    for (int i = 0; i < N; i++) {
      const double yd = 2.0 * (double)xv[i];
      const double sd = 1.0 / (1.0 + exp(-yd));
      double want = yd * sd;
      want = want < -0.1 ? -0.1 : (want > 0.6 ? 0.6 : want);
      CHECK_MSG(fabs((double)ov[i] - want) <= 1e-6 * (fabs(want) + 1e-3), "isa %d, i %d: %.9g vs %.9g", (int)isas[k], i,
                (double)ov[i], want);
      if (keep) CHECK_NEAR(sv[i], sd, 1e-6);
    }
    pte_xnn_delegate_destroy(d);
  }
  pte_xnn_blob_free(&blob);
}

TEST(silu_and_clamp_fusion) { fusion_case(false); }

/* With graph rewrites off the parsed graph stays as serialized (same results). */
TEST(graph_rewrites_off) {
  pte_xnnpack_set_graph_rewrites(false);
  enum { N = 64 };
  pte_xnn_builder *b = pte_xnn_builder_new();
  const uint32_t x = fu_val(b, N, PTE_XNN_VALUE_EXTERNAL_INPUT, 0), s = fu_val(b, N, 0, 0);
  const uint32_t out = fu_val(b, N, PTE_XNN_VALUE_EXTERNAL_OUTPUT, 1);
  fu_node(b, PTE_XNN_NODE_SIGMOID, x, PTE_XNN_NO_VALUE, s, -INFINITY, INFINITY);
  fu_node(b, PTE_XNN_NODE_MULTIPLY, x, s, out, -INFINITY, INFINITY);
  pte_xnn_blob blob;
  pte_error_info err;
  pte_status st = pte_xnn_builder_finish(b, PTE_XNN_CONSTANTS_NAMED, &blob, &err);
  pte_xnn_builder_free(b);
  pte_xnn_delegate *d = NULL;
  if (st == PTE_OK) st = pte_xnn_delegate_init(blob.data, blob.size, NULL, NULL, &d, &err);
  pte_xnnpack_set_graph_rewrites(true);
  CHECK_OK(st);
  CHECK_EQ_INT(d->nodes[0].fuse, PTE_XNN_FUSE_NONE);
  CHECK_EQ_INT(d->nodes[1].fuse, PTE_XNN_FUSE_NONE);
  CHECK(d->nodes[1].in[1] != d->nodes[1].in[0]);
  float xv[N], ov[N];
  for (int i = 0; i < N; i++) xv[i] = (float)(i - 32) * 0.25f;
  size_t dims[2] = {1, N};
  xt_tensor ti, to;
  xt_tensor_init(&ti, PTE_DTYPE_FLOAT, 2, dims, xv, sizeof xv, 0);
  xt_tensor_init(&to, PTE_DTYPE_FLOAT, 2, dims, ov, sizeof ov, 0);
  pte_evalue *args[2] = {&ti.ev, &to.ev};
  CHECK_OK(pte_xnn_delegate_execute(d, args, 2, &err));
  for (int i = 0; i < N; i++) CHECK_NEAR(ov[i], (double)xv[i] / (1.0 + exp(-(double)xv[i])), 1e-6 * (1 + fabs(xv[i])));
  pte_xnn_delegate_destroy(d);
  pte_xnn_blob_free(&blob);
}

/* Quantized binary nodes (dequantize, fp32 vector kernel per block, requantize): qint8 Add of a
 * [3, 300] tensor and a per-row [3, 1] operand, quint8 Multiply of two [3, 300] tensors, against
 * the real-domain result requantized here in double (1 step allowed for rounding ties). */
TEST(quantized_binary) {
  enum { R = 3, C = 300 };
  for (int kind = 0; kind < 2; kind++) {
    const int dt = kind ? PTE_XNN_DT_QUINT8 : PTE_XNN_DT_QINT8;
    const float sa = 0.05f, sb = 0.03f, so = kind ? 0.02f : 0.08f;
    const int32_t za = kind ? 128 : 3, zb = kind ? 120 : -5, zo = kind ? 10 : -2;
    const int32_t lo = kind ? 0 : -128, hi = kind ? 255 : 127;
    const uint32_t bcols = kind ? C : 1;
    pte_xnn_builder *b = pte_xnn_builder_new();
    uint32_t da[2] = {R, C}, db[2] = {R, bcols}, ids[3];
    const uint32_t *dims[3] = {da, db, da};
    const float scales[3] = {sa, sb, so};
    const int32_t zps[3] = {za, zb, zo};
    for (int v = 0; v < 3; v++) {
      pte_xnn_tensor_desc t;
      memset(&t, 0, sizeof t);
      t.dtype = dt, t.rank = 2, t.dims = dims[v];
      t.flags = v < 2 ? PTE_XNN_VALUE_EXTERNAL_INPUT : PTE_XNN_VALUE_EXTERNAL_OUTPUT;
      t.external_id = (uint32_t)v;
      t.quant = PTE_XNN_QUANT_PER_TENSOR, t.scale = scales[v], t.zero_point = zps[v];
      CHECK_OK(pte_xnn_builder_add_tensor(b, &t, &ids[v]));
    }
    fu_node(b, kind ? PTE_XNN_NODE_MULTIPLY : PTE_XNN_NODE_ADD, ids[0], ids[1], ids[2], -INFINITY, INFINITY);
    pte_xnn_blob blob;
    pte_error_info err;
    CHECK_OK(pte_xnn_builder_finish(b, PTE_XNN_CONSTANTS_INLINE, &blob, &err));
    pte_xnn_builder_free(b);
    uint8_t av[R * C], bv[R * C], ov[R * C];
    for (int i = 0; i < R * C; i++) {
      av[i] = (uint8_t)((i * 37 + 11) & 255);
      bv[i] = (uint8_t)((i * 53 + 7) & 255);
    }
    pte_xnn_delegate *d = NULL;
    CHECK_OK(pte_xnn_delegate_init(blob.data, blob.size, NULL, NULL, &d, &err));
    pte_xnn_blob_free(&blob);
    size_t sda[2] = {R, C}, sdb[2] = {R, bcols};
    const int pd = kind ? PTE_DTYPE_BYTE : PTE_DTYPE_CHAR;
    xt_tensor ta, tb, to;
    xt_tensor_init(&ta, pd, 2, sda, av, sizeof av, 0);
    xt_tensor_init(&tb, pd, 2, sdb, bv, sizeof bv, 0);
    xt_tensor_init(&to, pd, 2, sda, ov, sizeof ov, 0);
    pte_evalue *args[3] = {&ta.ev, &tb.ev, &to.ev};
    CHECK_OK(pte_xnn_delegate_execute(d, args, 3, &err));
    pte_xnn_delegate_destroy(d);
    for (int r = 0; r < R; r++)
      for (int c = 0; c < C; c++) {
        const int i = r * C + c, ib = kind ? i : r;
        const double qa = kind ? (double)av[i] : (double)(int8_t)av[i];
        const double qb = kind ? (double)bv[ib] : (double)(int8_t)bv[ib];
        const double ra = (qa - za) * sa, rb = (qb - zb) * sb;
        double q = nearbyint((kind ? ra * rb : ra + rb) / so) + zo;
        q = q < lo ? lo : (q > hi ? hi : q);
        const double got = kind ? (double)ov[i] : (double)(int8_t)ov[i];
        CHECK_MSG(fabs(got - q) <= 1.0, "%s (%d,%d): %g, want %g", kind ? "quint8 mul" : "qint8 add", r, c, got, q);
      }
  }
}
TEST(no_fusion_when_sigmoid_is_an_output) { fusion_case(true); }

int main(void) {
  RUN(transcendental_ulp);
  RUN(exact_unary_bit_identical);
  RUN(binary_bit_identical);
  RUN(unary_tails);
  RUN(silu_and_clamp_fusion);
  RUN(quantized_binary);
  RUN(graph_rewrites_off);
  RUN(no_fusion_when_sigmoid_is_an_output);
  return test_summary();
}
