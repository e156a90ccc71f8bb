/* The quantized_decomposed operators beyond quantize / dequantize: embedding_byte / 4bit / 2bit
 * (.out and .dtype_out), mixed_mm, mixed_linear, add, choose_qparams_per_token_asymmetric.
 *
 * Oracles:
 *   - numpy, at test time (/usr/bin/python3): random weights, scales and zero points are drawn by
 *     numpy, packed by numpy (4-bit: element 2k in the high nibble of byte k, values + 8; 2-bit:
 *     element 4k+s in bits 2s..2s+1, values + 2) and the expected outputs are numpy's float32
 *     arithmetic ((q - zp) * scale per element; float64 matrix products for mixed_mm / linear,
 *     compared at 1e-5 relative; float32 dequantize-add-requantize with np.rint for add);
 *   - upstream's published test values for choose_qparams_per_token_asymmetric.
 * Every upstream quantized operator name (../shared/reference/upstream-ops.md) must resolve. */
#include "pte/quantized_kernels.h"
#include "support/ktest.h"
#include "test.h"

static pte_op_fn qfn(const char *name) {
  for (size_t i = 0; i < pte_quantized_kernel_count(); i++)
    if (strcmp(pte_quantized_kernel(i)->name, name) == 0) return pte_quantized_kernel(i)->fn;
  return NULL;
}

#define T(t) ktest_ev_tensor(t)
#define I(v) ktest_ev_int(v)
#define D(v) ktest_ev_double(v)

/* ---- python driver: runs a script file, returns the numbers it prints (whitespace separated) */

static double g_nums[4096];
static size_t g_n, g_pos;

static bool py_run(const char *script) {
  const char *path = test_tmp_path("q_oracle.py");
  if (test_write_file(path, script, strlen(script)) != 0) return false;
  char cmd[2048];
  snprintf(cmd, sizeof cmd, "/usr/bin/python3 '%s'", path);
  int code = -1;
  char *out = test_run_capture(cmd, &code);
  if (!out || code != 0) {
    free(out);
    return false;
  }
  g_n = g_pos = 0;
  for (char *p = out; g_n < sizeof g_nums / sizeof g_nums[0];) {
    char *end;
    double v = strtod(p, &end);
    if (end == p) break;
    g_nums[g_n++] = v;
    p = end;
  }
  free(out);
  return g_n > 0;
}
/* Next n numbers (NULL when the output is short). */
static const double *take(size_t n) {
  if (g_pos + n > g_n) return NULL;
  g_pos += n;
  return g_nums + g_pos - n;
}

TEST(every_upstream_quantized_op_registered) {
  const char *c = getenv("PTE_CORPUS");
  CHECK_MSG(c != NULL, "PTE_CORPUS must be set (run through ctest)");
  char path[1024];
  snprintf(path, sizeof path, "%s/../reference/upstream-ops.md", c);
  size_t n = 0;
  uint8_t *txt = test_read_file(path, &n);
  CHECK_MSG(txt != NULL, "cannot read %s", path);
  char *s = (char *)realloc(txt, n + 1);
  CHECK(s != NULL);
  s[n] = '\0';
  int count = 0, missing = 0;
  for (char *line = strtok(s, "\n"); line; line = strtok(NULL, "\n")) {
    if (strncmp(line, "quantized_decomposed::", 22) != 0) continue;
    count++;
    if (!qfn(line)) {
      fprintf(stderr, "  missing %s\n", line);
      missing++;
    }
  }
  free(s);
  CHECK_EQ_INT(count, 19);
  CHECK_EQ_INT(missing, 0);
  CHECK_OK(pte_register_quantized_kernels());
  CHECK(pte_kernel_lookup("quantized_decomposed::embedding_4bit.dtype_out", NULL, NULL, 0) != NULL);
}

/* ---- embeddings ---------------------------------------------------------------------------- */

/* numpy: V=5 rows, D=8 values; per case prints packed weight bytes, scales, zero points and the
 * expected [2, 3, 8] output for indices [[1, 4, 0], [3, 3, 2]]. */
static const char k_emb_py[] =
    "import numpy as np\n"
    "rng = np.random.default_rng(1234)\n"
    "V, D = 5, 8\n"
    "idx = np.array([[1, 4, 0], [3, 3, 2]])\n"
    "def emit(a):\n"
    "    print(' '.join(repr(float(v)) for v in np.asarray(a).ravel()))\n"
    "def case(nbit, signed, groups, with_zp, out_half):\n"
    "    if nbit == 8:\n"
    "        q = rng.integers(-128 if signed else 0, 128 if signed else 256, size=(V, D))\n"
    "        packed = (q.astype(np.int8) if signed else q.astype(np.uint8)).astype(np.int64)\n"
    "    elif nbit == 4:\n"
    "        q = rng.integers(-8, 8, size=(V, D))\n"
    "        u = (q + 8).astype(np.int64)\n"
    "        packed = (u[:, 0::2] << 4) | u[:, 1::2]\n"
    "    else:\n"
    "        q = rng.integers(-2, 2, size=(V, D))\n"
    "        u = (q + 2).astype(np.int64)\n"
    "        packed = u[:, 0::4] | (u[:, 1::4] << 2) | (u[:, 2::4] << 4) | (u[:, 3::4] << 6)\n"
    "    shape = (V,) if groups == 0 else (V, groups)\n"
    "    s = rng.uniform(0.01, 0.2, size=shape).astype(np.float32)\n"
    "    z = (rng.integers(-3, 4, size=shape).astype(np.float32) if with_zp else np.zeros(shape, np.float32))\n"
    "    g = 1 if groups == 0 else groups\n"
    "    se = np.repeat(s.reshape(V, g), D // g, axis=1)\n"
    "    ze = np.repeat(z.reshape(V, g), D // g, axis=1)\n"
    "    out = ((q.astype(np.float32) - ze) * se)[idx]\n"
    "    if out_half: out = out.astype(np.float16)\n"
    "    emit(packed); emit(s); emit(z); emit(out)\n"
    "case(8, True, 2, True, False)\n"
    "case(8, False, 0, False, True)\n"
    "case(4, False, 0, True, False)\n"
    "case(4, False, 4, False, True)\n"
    "case(2, False, 2, True, False)\n"
    "case(2, False, 0, False, False)\n";

typedef struct emb_case {
  int nbit;
  bool is_signed;
  int groups;
  bool with_zp, out_half;
} emb_case;

TEST(embeddings_match_numpy) {
  CHECK_MSG(py_run(k_emb_py), "python3/numpy oracle unavailable");
  const emb_case cases[] = {{8, true, 2, true, false}, {8, false, 0, false, true}, {4, false, 0, true, false},
                            {4, false, 4, false, true}, {2, false, 2, true, false}, {2, false, 0, false, false}};
  const int V = 5, Dm = 8;
  int checked = 0;
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    const emb_case *e = &cases[c];
    const int packed_dim = Dm * e->nbit / 8, g = e->groups ? e->groups : 1;
    const double *wv = take((size_t)(V * packed_dim)), *sv = take((size_t)(V * g)), *zv = take((size_t)(V * g));
    const double *ov = take((size_t)(6 * Dm));
    CHECK_MSG(wv && sv && zv && ov, "short python output");
    int32_t wsz[] = {V, packed_dim}, ssz[] = {V, g}, isz[] = {2, 3}, osz[] = {2, 3, Dm};
    pte_tensor *w = ktest_tensor(e->nbit == 8 && e->is_signed ? PTE_DTYPE_CHAR : PTE_DTYPE_BYTE, 2, wsz, NULL, wv);
    pte_tensor *s = ktest_tensor(PTE_DTYPE_FLOAT, e->groups ? 2 : 1, ssz, NULL, sv);
    pte_tensor *z = ktest_tensor(PTE_DTYPE_FLOAT, e->groups ? 2 : 1, ssz, NULL, zv);
    pte_tensor *idx = ktest_tensor(PTE_DTYPE_LONG, 2, isz, NULL, (double[]){1, 4, 0, 3, 3, 2});
    const int odt = e->out_half ? PTE_DTYPE_HALF : PTE_DTYPE_FLOAT;
    /* a dynamic out that starts at the wrong shape: the kernel resizes it */
    pte_tensor *o = ktest_tensor_dyn(odt, 3, (int32_t[]){1, 1, 1}, NULL, 48);
    const char *base = e->nbit == 8 ? "quantized_decomposed::embedding_byte" :
                       e->nbit == 4 ? "quantized_decomposed::embedding_4bit" : "quantized_decomposed::embedding_2bit";
    char name[96];
    /* the half-output cases use .dtype_out with dtype = float16, the others .out */
    snprintf(name, sizeof name, "%s.%s", base, e->out_half ? "dtype_out" : "out");
    pte_evalue *zpv = e->with_zp ? T(z) : ktest_ev_none();
    pte_evalue *args8[] = {T(w), T(s), zpv, I(e->nbit == 8 ? -128 : -(1 << (e->nbit - 1))),
                           I(e->nbit == 8 ? 127 : (1 << (e->nbit - 1)) - 1), T(idx), I(odt), T(o)};
    pte_evalue *args7[] = {args8[0], args8[1], args8[2], args8[3], args8[4], args8[5], args8[7]};
    pte_status st = e->out_half ? ktest_run(qfn(name), args8, 8) : ktest_run(qfn(name), args7, 7);
    CHECK_MSG(st == PTE_OK, "%s case %zu: %s", name, c, ktest_last_msg());
    CHECK(ktest_expect_shape(o, 3, osz));
    for (int i = 0; i < 6 * Dm; i++) {
      const double got = ktest_get(o, (size_t)i);
      CHECK_MSG(got == ov[i], "%s case %zu element %d: %.9g, numpy %.9g", name, c, i, got, ov[i]);
      checked++;
    }
  }
  CHECK_EQ_INT(checked, 6 * 48);
}

TEST(embedding_errors) {
  int32_t wsz[] = {3, 2}, ssz[] = {3}, isz[] = {2};
  pte_tensor *w = ktest_tensor(PTE_DTYPE_BYTE, 2, wsz, NULL, NULL);
  pte_tensor *s = ktest_tensor(PTE_DTYPE_FLOAT, 1, ssz, NULL, (double[]){1, 1, 1});
  pte_tensor *o = ktest_tensor_dyn(PTE_DTYPE_FLOAT, 2, (int32_t[]){2, 4}, NULL, 8);
  pte_tensor *bad = ktest_tensor(PTE_DTYPE_LONG, 1, isz, NULL, (double[]){0, 3});
  pte_evalue *a[] = {T(w), T(s), ktest_ev_none(), I(-8), I(7), T(bad), T(o)};
  CHECK_STATUS(ktest_run(qfn("quantized_decomposed::embedding_4bit.out"), a, 7), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(ktest_last_msg(), "indices[1] = 3 out of range");
  a[5] = T(ktest_tensor(PTE_DTYPE_FLOAT, 1, isz, NULL, NULL));
  CHECK_STATUS(ktest_run(qfn("quantized_decomposed::embedding_4bit.out"), a, 7), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(ktest_last_msg(), "indices must be");
  a[5] = T(ktest_tensor(PTE_DTYPE_LONG, 1, isz, NULL, NULL));
  a[1] = T(ktest_tensor(PTE_DTYPE_FLOAT, 2, (int32_t[]){3, 3}, NULL, NULL)); /* 3 groups do not divide 4 */
  CHECK_STATUS(ktest_run(qfn("quantized_decomposed::embedding_4bit.out"), a, 7), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(ktest_last_msg(), "groups");
  a[1] = T(s);
  pte_evalue *a8[] = {a[0], a[1], a[2], a[3], a[4], a[5], I(PTE_DTYPE_HALF), T(o)};
  CHECK_STATUS(ktest_run(qfn("quantized_decomposed::embedding_4bit.dtype_out"), a8, 8), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(ktest_last_msg(), "dtype");
}

/* ---- mixed_mm / mixed_linear ---------------------------------------------------------------- */

static const char k_mixed_py[] =
    "import numpy as np\n"
    "rng = np.random.default_rng(99)\n"
    "def emit(a):\n"
    "    print(' '.join(repr(float(v)) for v in np.asarray(a).ravel()))\n"
    "M, K, N = 3, 10, 4\n"
    "x = rng.uniform(-2, 2, size=(M, K)).astype(np.float32)\n"
    "w = rng.integers(-128, 128, size=(K, N))\n"
    "s = rng.uniform(0.001, 0.05, size=(K,)).astype(np.float32)\n"
    "emit(x); emit(w); emit(s)\n"
    "emit(x.astype(np.float64) @ (w.astype(np.float64) * s.astype(np.float64)[:, None]))\n"
    "wl = rng.integers(-128, 128, size=(N, K))\n"
    "G = 4\n"
    "g = (K + G - 1) // G\n"
    "sl = rng.uniform(0.001, 0.05, size=(N, G)).astype(np.float32)\n"
    "se = np.repeat(sl.astype(np.float64), g, axis=1)[:, :K]\n"
    "emit(wl); emit(sl)\n"
    "emit(x.astype(np.float64) @ (wl.astype(np.float64) * se).T)\n"
    "sr = rng.uniform(0.001, 0.05, size=(N,)).astype(np.float32)\n"
    "emit(sr)\n"
    "emit(x.astype(np.float64) @ (wl.astype(np.float64) * sr.astype(np.float64)[:, None]).T)\n";

static bool close_rel(double got, double want) { return fabs(got - want) <= 1e-5 * fabs(want) + 1e-6; }

TEST(mixed_mm_and_linear_match_numpy) {
  CHECK_MSG(py_run(k_mixed_py), "python3/numpy oracle unavailable");
  const int M = 3, K = 10, N = 4, G = 4;
  const double *xv = take(M * K), *wv = take(K * N), *sv = take(K), *mm = take(M * N);
  const double *wlv = take(N * K), *slv = take(N * G), *lin = take(M * N), *srv = take(N), *lin1 = take(M * N);
  CHECK_MSG(xv && wv && sv && mm && wlv && slv && lin && srv && lin1, "short python output");
  pte_tensor *x = ktest_tensor(PTE_DTYPE_FLOAT, 2, (int32_t[]){M, K}, NULL, xv);
  /* the mm weight is given in a transposed dim order: read through strides */
  pte_tensor *w = ktest_tensor(PTE_DTYPE_CHAR, 2, (int32_t[]){K, N}, (const uint8_t[]){1, 0}, wv);
  pte_tensor *s = ktest_tensor(PTE_DTYPE_FLOAT, 1, (int32_t[]){K}, NULL, sv);
  pte_tensor *o = ktest_tensor(PTE_DTYPE_FLOAT, 2, (int32_t[]){M, N}, NULL, NULL);
  pte_evalue *a[] = {T(x), T(w), T(s), ktest_ev_none(), T(o)};
  CHECK_MSG(ktest_run(qfn("quantized_decomposed::mixed_mm.out"), a, 5) == PTE_OK, "%s", ktest_last_msg());
  for (int i = 0; i < M * N; i++) CHECK_MSG(close_rel(ktest_get(o, (size_t)i), mm[i]), "mm[%d] %.9g vs %.9g", i, ktest_get(o, (size_t)i), mm[i]);
  /* group-wise linear: 10 features in 4 groups of 3 (the last has 1) */
  pte_tensor *wl = ktest_tensor(PTE_DTYPE_CHAR, 2, (int32_t[]){N, K}, NULL, wlv);
  pte_tensor *sl = ktest_tensor(PTE_DTYPE_FLOAT, 2, (int32_t[]){N, G}, NULL, slv);
  pte_tensor *ol = ktest_tensor(PTE_DTYPE_FLOAT, 2, (int32_t[]){M, N}, NULL, NULL);
  pte_evalue *b[] = {T(x), T(wl), T(sl), ktest_ev_none(), ktest_ev_none(), T(ol)};
  CHECK_MSG(ktest_run(qfn("quantized_decomposed::mixed_linear.out"), b, 6) == PTE_OK, "%s", ktest_last_msg());
  for (int i = 0; i < M * N; i++) CHECK_MSG(close_rel(ktest_get(ol, (size_t)i), lin[i]), "linear[%d] %.9g vs %.9g", i, ktest_get(ol, (size_t)i), lin[i]);
  /* per-row scales, dtype given */
  b[2] = T(ktest_tensor(PTE_DTYPE_FLOAT, 1, (int32_t[]){N}, NULL, srv));
  b[4] = I(PTE_DTYPE_FLOAT);
  CHECK_MSG(ktest_run(qfn("quantized_decomposed::mixed_linear.out"), b, 6) == PTE_OK, "%s", ktest_last_msg());
  for (int i = 0; i < M * N; i++) CHECK_MSG(close_rel(ktest_get(ol, (size_t)i), lin1[i]), "linear1[%d]", i);
  /* errors: zero points (unsupported, as upstream), shape mismatch, wrong weight dtype */
  a[3] = T(s);
  CHECK_STATUS(ktest_run(qfn("quantized_decomposed::mixed_mm.out"), a, 5), PTE_ERR_INVALID_ARGUMENT);
  a[3] = ktest_ev_none();
  a[1] = T(wl);
  CHECK_STATUS(ktest_run(qfn("quantized_decomposed::mixed_mm.out"), a, 5), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(ktest_last_msg(), "weight");
  b[1] = T(ktest_tensor(PTE_DTYPE_BYTE, 2, (int32_t[]){N, K}, NULL, NULL));
  CHECK_STATUS(ktest_run(qfn("quantized_decomposed::mixed_linear.out"), b, 6), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(ktest_last_msg(), "weight must be int8");
}

/* ---- add ------------------------------------------------------------------------------------ */

static const char k_add_py[] =
    "import numpy as np\n"
    "rng = np.random.default_rng(7)\n"
    "def emit(a):\n"
    "    print(' '.join(repr(float(v)) for v in np.asarray(a).ravel()))\n"
    "a = rng.integers(0, 256, size=24); b = rng.integers(0, 256, size=24)\n"
    "sa, za, sb, zb, so, zo, lo, hi = 0.05, 120, 0.021, 3, 0.07, 100, 10, 240\n"
    "da = ((a - za).astype(np.float64) * np.float64(np.float32(sa))).astype(np.float32)\n"
    "db = ((b - zb).astype(np.float64) * np.float64(np.float32(sb))).astype(np.float32)\n"
    "acc = (da + db).astype(np.float32)\n"
    "inv = np.float32(1.0) / np.float32(so)\n"
    "f = np.float32(zo) + np.rint((inv * acc).astype(np.float32)).astype(np.float32)\n"
    "q = np.clip(f.astype(np.int64), lo, hi)\n"
    "emit(a); emit(b); emit(q)\n";

TEST(add_matches_numpy) {
  CHECK_MSG(py_run(k_add_py), "python3/numpy oracle unavailable");
  const double *av = take(24), *bv = take(24), *qv = take(24);
  CHECK_MSG(av && bv && qv, "short python output");
  int32_t sz[] = {2, 3, 4};
  pte_tensor *a = ktest_tensor(PTE_DTYPE_BYTE, 3, sz, NULL, av);
  pte_tensor *b = ktest_tensor(PTE_DTYPE_BYTE, 3, sz, (const uint8_t[]){2, 0, 1}, bv); /* other dim order */
  pte_tensor *o = ktest_tensor(PTE_DTYPE_BYTE, 3, sz, NULL, NULL);
  pte_evalue *args[] = {T(a), D(0.05), I(120), I(0), I(255), T(b), D(0.021), I(3), I(0), I(255),
                        D(0.07), I(100), I(10), I(240), T(o)};
  CHECK_MSG(ktest_run(qfn("quantized_decomposed::add.out"), args, 15) == PTE_OK, "%s", ktest_last_msg());
  int distinct = 0;
  for (int i = 0; i < 24; i++) {
    CHECK_MSG(ktest_get_i64(o, (size_t)i) == (int64_t)qv[i], "add[%d] = %lld, numpy %lld", i,
              (long long)ktest_get_i64(o, (size_t)i), (long long)qv[i]);
    distinct += qv[i] != 10 && qv[i] != 240;
  }
  CHECK(distinct > 8);
  /* ranges outside [0, 255], shape and dtype mismatch */
  args[12] = I(-1);
  CHECK_STATUS(ktest_run(qfn("quantized_decomposed::add.out"), args, 15), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(ktest_last_msg(), "out quant range");
  args[12] = I(10);
  args[5] = T(ktest_tensor(PTE_DTYPE_BYTE, 1, (int32_t[]){24}, NULL, NULL));
  CHECK_STATUS(ktest_run(qfn("quantized_decomposed::add.out"), args, 15), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(ktest_last_msg(), "same shape");
  args[5] = T(ktest_tensor(PTE_DTYPE_CHAR, 3, sz, NULL, NULL));
  CHECK_STATUS(ktest_run(qfn("quantized_decomposed::add.out"), args, 15), PTE_ERR_INVALID_ARGUMENT);
}

/* ---- choose_qparams_per_token_asymmetric ----------------------------------------------------- */

TEST(choose_qparams_per_token_published_values) {
  /* upstream's own test: [[-0.5, 0.3, 1.2], [0.1, -0.8, 2.1]] -> scales (1.7 / 255, 2.9 / 255) =
   * (0.00666667, 0.0113725485), zero points (-53, -58); the same with an extra leading dim. */
  for (int extra = 0; extra < 2; extra++) {
    int32_t sz3[] = {1, 2, 3}, sz2[] = {2, 3};
    const int32_t *sz = extra ? sz3 : sz2;
    const int32_t r = extra ? 3 : 2;
    pte_tensor *in = ktest_tensor(PTE_DTYPE_FLOAT, r, sz, NULL, (double[]){-0.5, 0.3, 1.2, 0.1, -0.8, 2.1});
    pte_tensor *s = ktest_tensor_dyn(PTE_DTYPE_DOUBLE, r, extra ? (int32_t[]){1, 1, 1} : (int32_t[]){1, 1}, NULL, 2);
    pte_tensor *z = ktest_tensor_dyn(PTE_DTYPE_LONG, r, extra ? (int32_t[]){1, 1, 1} : (int32_t[]){1, 1}, NULL, 2);
    pte_evalue *args[] = {T(in), I(PTE_DTYPE_CHAR), T(s), T(z)};
    CHECK_MSG(ktest_run(qfn("quantized_decomposed::choose_qparams_per_token_asymmetric.out"), args, 4) == PTE_OK,
              "%s", ktest_last_msg());
    CHECK(ktest_expect_shape(s, r, extra ? (int32_t[]){1, 2, 1} : (int32_t[]){2, 1}));
    CHECK_NEAR(ktest_get(s, 0), 1.7 / 255.0, 1e-7);
    CHECK_NEAR(ktest_get(s, 1), 2.9 / 255.0, 1e-7);
    CHECK_EQ_INT(ktest_get_i64(z, 0), -53);
    CHECK_EQ_INT(ktest_get_i64(z, 1), -58);
  }
  /* wrong out dtype */
  int32_t sz[] = {2, 3}, one[] = {2, 1};
  pte_tensor *in = ktest_tensor(PTE_DTYPE_FLOAT, 2, sz, NULL, NULL);
  pte_evalue *bad[] = {T(in), I(PTE_DTYPE_CHAR), T(ktest_tensor(PTE_DTYPE_FLOAT, 2, one, NULL, NULL)),
                       T(ktest_tensor(PTE_DTYPE_LONG, 2, one, NULL, NULL))};
  CHECK_STATUS(ktest_run(qfn("quantized_decomposed::choose_qparams_per_token_asymmetric.out"), bad, 4),
               PTE_ERR_INVALID_ARGUMENT);
}

int main(void) {
  RUN(every_upstream_quantized_op_registered);
  RUN(embeddings_match_numpy);
  RUN(embedding_errors);
  RUN(mixed_mm_and_linear_match_numpy);
  RUN(add_matches_numpy);
  RUN(choose_qparams_per_token_published_values);
  ktest_free_all();
  return test_summary();
}
