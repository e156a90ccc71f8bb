/* Tests for the linear-algebra kernels (kernels/portable/op_linalg.c): mm, addmm, bmm, linear.
 * Expected values are written out by hand for small cases and computed by an independent naive
 * double loop in this file for larger, block-boundary-crossing shapes. */
#include "test.h"

#include "portable/portable_nn.h"
#include "support/ktest.h"

#define TBL pte_portable_linalg_kernels, pte_portable_linalg_kernels_count

static pte_op_fn find(const char *name) { return ktest_find(TBL, name); }

/* Deterministic pseudo-random values in [-2, 2) with 1/64 resolution (exact in float). */
static uint32_t g_seed = 12345u;
static double rnd(void) { return ktest_rnd_grid(&g_seed, 12, 256, 64.0); }

/* C = A[M,K] @ B[K,N], all row-major logical arrays, in double. */
static double *naive_mm(const double *a, const double *b, int M, int N, int K) {
  double *c = (double *)calloc((size_t)M * (size_t)N, sizeof(double));
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      double s = 0;
      for (int k = 0; k < K; k++) s += a[i * K + k] * b[k * N + j];
      c[i * N + j] = s;
    }
  return c;
}

TEST(mm_hand_values) {
  int32_t sa[] = {2, 3}, sb[] = {3, 2}, so[] = {2, 2};
  pte_tensor *a = ktest_tensor(PTE_DTYPE_FLOAT, 2, sa, NULL, (double[]){1, 2, 3, 4, 5, 6});
  pte_tensor *b = ktest_tensor(PTE_DTYPE_FLOAT, 2, sb, NULL, (double[]){7, 8, 9, 10, 11, 12});
  pte_tensor *o = ktest_tensor(PTE_DTYPE_FLOAT, 2, so, NULL, NULL);
  pte_evalue *out = ktest_ev_tensor(o);
  pte_evalue *ret = ktest_ev_none();
  pte_evalue *args[] = {ktest_ev_tensor(a), ktest_ev_tensor(b), out, ret};
  CHECK_OK(ktest_run(find("aten::mm.out"), args, 4));
  /* [1 2 3]·[7 9 11] = 58, [1 2 3]·[8 10 12] = 64, [4 5 6]·[7 9 11] = 139, ... = 154 */
  CHECK(ktest_expect(o, (double[]){58, 64, 139, 154}, 4, 0));
  CHECK_EQ_INT(ret->tag, PTE_TAG_TENSOR); /* return slot aliases out */
  CHECK(ret->u.tensor == o);
}

TEST(mm_double_and_transposed_operands) {
  /* a is stored column-major; b row-major; out column-major. */
  int32_t sa[] = {2, 2}, so[] = {2, 2};
  pte_tensor *a = ktest_tensor(PTE_DTYPE_DOUBLE, 2, sa, ktest_t2, (double[]){1, 2, 3, 4});
  pte_tensor *b = ktest_tensor(PTE_DTYPE_DOUBLE, 2, sa, NULL, (double[]){0.5, -1, 2, 0.25});
  pte_tensor *o = ktest_tensor(PTE_DTYPE_DOUBLE, 2, so, ktest_t2, NULL);
  pte_evalue *out = ktest_ev_tensor(o);
  pte_evalue *args[] = {ktest_ev_tensor(a), ktest_ev_tensor(b), out, out};
  CHECK_OK(ktest_run(find("aten::mm.out"), args, 4));
  /* [1 2;3 4] @ [.5 -1;2 .25] = [4.5 -0.5; 9.5 -2] */
  CHECK(ktest_expect(o, (double[]){4.5, -0.5, 9.5, -2}, 4, 0));
  /* memory order of the column-major out: 4.5, 9.5, -0.5, -2 */
  const double *raw = (const double *)o->data;
  CHECK(raw[0] == 4.5 && raw[1] == 9.5 && raw[2] == -0.5 && raw[3] == -2);
}

/* Shapes crossing the 4-row, 16/8-column and 256-deep blocks; every layout combination. */
static void check_mm_random(int dtype, int M, int N, int K, bool ta, bool tb, bool to, double tol) {
  double *av = ktest_rnd_array((size_t)M * K, rnd), *bv = ktest_rnd_array((size_t)K * N, rnd);
  double *ref = naive_mm(av, bv, M, N, K);
  int32_t sa[] = {M, K}, sb[] = {K, N}, so[] = {M, N};
  pte_tensor *a = ktest_tensor(dtype, 2, sa, ta ? ktest_t2 : NULL, av);
  pte_tensor *b = ktest_tensor(dtype, 2, sb, tb ? ktest_t2 : NULL, bv);
  pte_tensor *o = ktest_tensor(dtype, 2, so, to ? ktest_t2 : NULL, NULL);
  pte_evalue *out = ktest_ev_tensor(o);
  pte_evalue *args[] = {ktest_ev_tensor(a), ktest_ev_tensor(b), out, out};
  pte_status s = ktest_run(find("aten::mm.out"), args, 4);
  bool ok = s == PTE_OK && ktest_expect(o, ref, (size_t)M * N, tol);
  free(av);
  free(bv);
  free(ref);
  if (!ok) test_fail(__FILE__, __LINE__, "mm %s %dx%dx%d ta=%d tb=%d to=%d (status %d)",
                     pte_dtype_name(dtype), M, N, K, ta, tb, to, (int)s);
}

TEST(mm_random_shapes_vs_naive) {
  static const int shapes[][3] = {{1, 1, 1},    {5, 17, 3},  {37, 29, 53}, {9, 33, 300},
                                  {64, 48, 520}, {1, 37, 300}, {1, 300, 19}, {1, 5, 8}};
  for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
    int M = shapes[i][0], N = shapes[i][1], K = shapes[i][2];
    for (int lay = 0; lay < 8; lay++) {
      int before = test_current_failed;
      check_mm_random(PTE_DTYPE_FLOAT, M, N, K, lay & 1, lay & 2, lay & 4, 1e-3);
      check_mm_random(PTE_DTYPE_DOUBLE, M, N, K, lay & 1, lay & 2, lay & 4, 1e-9);
      if (test_current_failed != before) return;
    }
  }
}

TEST(mm_empty_k_gives_zeros) {
  int32_t sa[] = {2, 0}, sb[] = {0, 3}, so[] = {2, 3};
  pte_tensor *a = ktest_tensor(PTE_DTYPE_FLOAT, 2, sa, NULL, NULL);
  pte_tensor *b = ktest_tensor(PTE_DTYPE_FLOAT, 2, sb, NULL, NULL);
  pte_tensor *o = ktest_tensor(PTE_DTYPE_FLOAT, 2, so, NULL, (double[]){9, 9, 9, 9, 9, 9});
  pte_evalue *out = ktest_ev_tensor(o);
  pte_evalue *args[] = {ktest_ev_tensor(a), ktest_ev_tensor(b), out};
  CHECK_OK(ktest_run(find("aten::mm.out"), args, 3));
  CHECK(ktest_expect(o, (double[]){0, 0, 0, 0, 0, 0}, 6, 0));
}

TEST(mm_integer_dtypes_wrap) {
  int32_t sa[] = {1, 2}, sb[] = {2, 1}, so[] = {1, 1};
  /* int8: 100*2 + 100*1 = 300 -> 300 - 256 = 44 */
  pte_tensor *a = ktest_tensor(PTE_DTYPE_CHAR, 2, sa, NULL, (double[]){100, 100});
  pte_tensor *b = ktest_tensor(PTE_DTYPE_CHAR, 2, sb, NULL, (double[]){2, 1});
  pte_tensor *o = ktest_tensor(PTE_DTYPE_CHAR, 2, so, NULL, NULL);
  pte_evalue *out = ktest_ev_tensor(o);
  pte_evalue *args[] = {ktest_ev_tensor(a), ktest_ev_tensor(b), out, out};
  CHECK_OK(ktest_run(find("aten::mm.out"), args, 4));
  CHECK_EQ_INT(ktest_get_i64(o, 0), 44);
  /* int64 exact beyond 2^53: (2^40+1) * (2^20+1) = 2^60 + 2^40 + 2^20 + 1 */
  int64_t x = ((int64_t)1 << 40) + 1, y = ((int64_t)1 << 20) + 1;
  int32_t s11[] = {1, 1};
  pte_tensor *la = ktest_tensor_i64(PTE_DTYPE_LONG, 2, s11, NULL, &x);
  pte_tensor *lb = ktest_tensor_i64(PTE_DTYPE_LONG, 2, s11, NULL, &y);
  pte_tensor *lo = ktest_tensor(PTE_DTYPE_LONG, 2, s11, NULL, NULL);
  pte_evalue *lout = ktest_ev_tensor(lo);
  pte_evalue *largs[] = {ktest_ev_tensor(la), ktest_ev_tensor(lb), lout, lout};
  CHECK_OK(ktest_run(find("aten::mm.out"), largs, 4));
  CHECK_EQ_INT(ktest_get_i64(lo, 0),
               ((int64_t)1 << 60) + ((int64_t)1 << 40) + ((int64_t)1 << 20) + 1);
  /* uint8 and int32 2x2 */
  int32_t s22[] = {2, 2};
  pte_tensor *ua = ktest_tensor(PTE_DTYPE_BYTE, 2, s22, NULL, (double[]){1, 2, 3, 4});
  pte_tensor *ub = ktest_tensor(PTE_DTYPE_BYTE, 2, s22, NULL, (double[]){5, 6, 7, 8});
  pte_tensor *uo = ktest_tensor(PTE_DTYPE_BYTE, 2, s22, NULL, NULL);
  pte_evalue *uout = ktest_ev_tensor(uo);
  pte_evalue *uargs[] = {ktest_ev_tensor(ua), ktest_ev_tensor(ub), uout, uout};
  CHECK_OK(ktest_run(find("aten::mm.out"), uargs, 4));
  CHECK(ktest_expect(uo, (double[]){19, 22, 43, 50}, 4, 0));
}

/* half: 1*1 + 2048*1 = 2049 in float32, rounds (ties-to-even) to 2048 in half. bf16: 1 + 256 =
 * 257 rounds to 256. Same with and without temp memory. */
TEST(mm_half_bf16_compute_in_float) {
  for (int pass = 0; pass < 2; pass++) {
    int32_t sa[] = {1, 2}, sb[] = {2, 2}, so[] = {1, 2};
    pte_tensor *a = ktest_tensor(PTE_DTYPE_HALF, 2, sa, NULL, (double[]){1, 2048});
    pte_tensor *b = ktest_tensor(PTE_DTYPE_HALF, 2, sb, ktest_t2, (double[]){1, 0.5, 1, 0.25});
    pte_tensor *o = ktest_tensor(PTE_DTYPE_HALF, 2, so, NULL, NULL);
    pte_evalue *out = ktest_ev_tensor(o);
    pte_evalue *args[] = {ktest_ev_tensor(a), ktest_ev_tensor(b), out, out};
    pte_op_fn fn = find("aten::mm.out");
    CHECK_OK(pass ? ktest_run_no_temp(fn, args, 4) : ktest_run(fn, args, 4));
    CHECK_EQ_INT(ktest_get_u16(o, 0), 0x6800); /* 2048 */
    CHECK(ktest_expect(o, (double[]){2048, 512.5}, 2, 0));

    pte_tensor *c = ktest_tensor(PTE_DTYPE_BFLOAT16, 2, sa, NULL, (double[]){1, 256});
    pte_tensor *d = ktest_tensor(PTE_DTYPE_BFLOAT16, 2, sb, NULL, (double[]){1, 3, 1, 0.5});
    pte_tensor *p = ktest_tensor(PTE_DTYPE_BFLOAT16, 2, so, NULL, NULL);
    pte_evalue *pout = ktest_ev_tensor(p);
    pte_evalue *pargs[] = {ktest_ev_tensor(c), ktest_ev_tensor(d), pout, pout};
    CHECK_OK(pass ? ktest_run_no_temp(fn, pargs, 4) : ktest_run(fn, pargs, 4));
    CHECK_EQ_INT(ktest_get_u16(p, 0), 0x4380); /* 256 */
    CHECK(ktest_expect(p, (double[]){256, 131}, 2, 0));
  }
}

TEST(mm_errors) {
  pte_op_fn fn = find("aten::mm.out");
  int32_t s23[] = {2, 3}, s22[] = {2, 2}, s3[] = {3};
  pte_tensor *a = ktest_tensor(PTE_DTYPE_FLOAT, 2, s23, NULL, NULL);
  pte_tensor *b = ktest_tensor(PTE_DTYPE_FLOAT, 2, s22, NULL, NULL);
  pte_tensor *o = ktest_tensor(PTE_DTYPE_FLOAT, 2, s22, NULL, NULL);
  /* inner dims 3 vs 2 */
  pte_evalue *args[] = {ktest_ev_tensor(a), ktest_ev_tensor(b), ktest_ev_tensor(o)};
  CHECK_STATUS(ktest_run(fn, args, 3), PTE_ERR_INVALID_ARGUMENT);
  /* 1-D operand */
  pte_tensor *v = ktest_tensor(PTE_DTYPE_FLOAT, 1, s3, NULL, NULL);
  pte_evalue *args2[] = {ktest_ev_tensor(v), ktest_ev_tensor(b), ktest_ev_tensor(o)};
  CHECK_STATUS(ktest_run(fn, args2, 3), PTE_ERR_INVALID_ARGUMENT);
  /* dtype mismatch float @ double */
  pte_tensor *bd = ktest_tensor(PTE_DTYPE_DOUBLE, 2, s22, NULL, NULL);
  pte_evalue *args3[] = {ktest_ev_tensor(b), ktest_ev_tensor(bd), ktest_ev_tensor(o)};
  CHECK_STATUS(ktest_run(fn, args3, 3), PTE_ERR_INVALID_ARGUMENT);
  /* bool */
  pte_tensor *bb = ktest_tensor(PTE_DTYPE_BOOL, 2, s22, NULL, NULL);
  pte_evalue *args4[] = {ktest_ev_tensor(bb), ktest_ev_tensor(bb), ktest_ev_tensor(bb)};
  CHECK_STATUS(ktest_run(fn, args4, 3), PTE_ERR_INVALID_ARGUMENT);
  /* static out of the wrong shape: [2,3]@[3,2] -> [2,2] but out is [2,3] */
  int32_t s32[] = {3, 2};
  pte_tensor *c = ktest_tensor(PTE_DTYPE_FLOAT, 2, s32, NULL, NULL);
  pte_tensor *o23 = ktest_tensor(PTE_DTYPE_FLOAT, 2, s23, NULL, NULL);
  pte_evalue *args5[] = {ktest_ev_tensor(a), ktest_ev_tensor(c), ktest_ev_tensor(o23)};
  CHECK_STATUS(ktest_run(fn, args5, 3), PTE_ERR_INVALID_ARGUMENT);
  /* a dynamic out is resized */
  pte_tensor *dyn = ktest_tensor_dyn(PTE_DTYPE_FLOAT, 2, s23, NULL, 6);
  pte_evalue *args6[] = {ktest_ev_tensor(a), ktest_ev_tensor(c), ktest_ev_tensor(dyn)};
  CHECK_OK(ktest_run(fn, args6, 3));
  CHECK(ktest_expect_shape(dyn, 2, s22));
  /* wrong arg count / tag */
  CHECK_STATUS(ktest_run(fn, args, 2), PTE_ERR_INVALID_ARGUMENT);
  pte_evalue *args7[] = {ktest_ev_int(1), ktest_ev_tensor(b), ktest_ev_tensor(o)};
  CHECK_STATUS(ktest_run(fn, args7, 3), PTE_ERR_INVALID_ARGUMENT);
}

TEST(addmm_beta_alpha_broadcast) {
  pte_op_fn fn = find("aten::addmm.out");
  int32_t s22[] = {2, 2}, s2[] = {2}, s21[] = {2, 1};
  pte_tensor *m1 = ktest_tensor(PTE_DTYPE_FLOAT, 2, s22, NULL, (double[]){1, 2, 3, 4});
  pte_tensor *m2 = ktest_tensor(PTE_DTYPE_FLOAT, 2, s22, NULL, (double[]){1, 0, 1, 1});
  /* m1 @ m2 = [3 2; 7 4] */
  pte_tensor *bias = ktest_tensor(PTE_DTYPE_FLOAT, 1, s2, NULL, (double[]){10, 20});
  pte_tensor *o = ktest_tensor(PTE_DTYPE_FLOAT, 2, s22, NULL, NULL);
  pte_evalue *out = ktest_ev_tensor(o);
  pte_evalue *args[] = {ktest_ev_tensor(bias), ktest_ev_tensor(m1), ktest_ev_tensor(m2),
                        ktest_ev_int(2), ktest_ev_double(0.5), out, out};
  CHECK_OK(ktest_run(fn, args, 7));
  /* 2*[10 20] + 0.5*[3 2; 7 4] = [21.5 41; 23.5 42] */
  CHECK(ktest_expect(o, (double[]){21.5, 41, 23.5, 42}, 4, 0));
  /* column bias [2,1], defaults beta=1 alpha=1 */
  pte_tensor *colb = ktest_tensor(PTE_DTYPE_FLOAT, 2, s21, NULL, (double[]){-1, 1});
  pte_evalue *args2[] = {ktest_ev_tensor(colb), ktest_ev_tensor(m1), ktest_ev_tensor(m2),
                         ktest_ev_int(1), ktest_ev_int(1), out, out};
  CHECK_OK(ktest_run(fn, args2, 7));
  CHECK(ktest_expect(o, (double[]){2, 1, 8, 5}, 4, 0));
  /* beta = 0: NaN in self is ignored */
  pte_tensor *nanb = ktest_tensor(PTE_DTYPE_FLOAT, 2, s22, NULL, (double[]){NAN, NAN, NAN, NAN});
  pte_evalue *args3[] = {ktest_ev_tensor(nanb), ktest_ev_tensor(m1), ktest_ev_tensor(m2),
                         ktest_ev_double(0.0), ktest_ev_int(1), out, out};
  CHECK_OK(ktest_run(fn, args3, 7));
  CHECK(ktest_expect(o, (double[]){3, 2, 7, 4}, 4, 0));
}

TEST(addmm_xor_shapes_vs_naive) {
  /* the xor model's linear layers: [4,2] @ [2,10] + bias[10], and [4,10] @ [10,2] + bias[2] */
  pte_op_fn fn = find("aten::addmm.out");
  static const int dims[][3] = {{4, 10, 2}, {4, 2, 10}, {33, 70, 257}};
  for (size_t t = 0; t < 3; t++) {
    int M = dims[t][0], N = dims[t][1], K = dims[t][2];
    double *av = ktest_rnd_array((size_t)M * K, rnd), *bv = ktest_rnd_array((size_t)K * N, rnd), *cv = ktest_rnd_array((size_t)N, rnd);
    double *ref = naive_mm(av, bv, M, N, K);
    for (int i = 0; i < M * N; i++) ref[i] = 0.75 * cv[i % N] + (-1.5) * ref[i];
    int32_t sa[] = {M, K}, sb[] = {K, N}, sc[] = {N}, so[] = {M, N};
    /* mat2 is a permuted (column-major) view, as permute_copy + addmm exports produce */
    pte_tensor *a = ktest_tensor(PTE_DTYPE_FLOAT, 2, sa, NULL, av);
    pte_tensor *b = ktest_tensor(PTE_DTYPE_FLOAT, 2, sb, ktest_t2, bv);
    pte_tensor *c = ktest_tensor(PTE_DTYPE_FLOAT, 1, sc, NULL, cv);
    pte_tensor *o = ktest_tensor(PTE_DTYPE_FLOAT, 2, so, NULL, NULL);
    pte_evalue *out = ktest_ev_tensor(o);
    pte_evalue *args[] = {ktest_ev_tensor(c), ktest_ev_tensor(a), ktest_ev_tensor(b),
                          ktest_ev_double(0.75), ktest_ev_double(-1.5), out, out};
    pte_status s = ktest_run(fn, args, 7);
    bool ok = s == PTE_OK && ktest_expect(o, ref, (size_t)M * N, 2e-3);
    free(av);
    free(bv);
    free(cv);
    free(ref);
    CHECK(ok);
  }
}

TEST(addmm_integer_and_errors) {
  pte_op_fn fn = find("aten::addmm.out");
  int32_t s22[] = {2, 2}, s3[] = {3};
  pte_tensor *m1 = ktest_tensor(PTE_DTYPE_INT, 2, s22, NULL, (double[]){1, 2, 3, 4});
  pte_tensor *m2 = ktest_tensor(PTE_DTYPE_INT, 2, s22, NULL, (double[]){5, 6, 7, 8});
  pte_tensor *bias = ktest_tensor(PTE_DTYPE_INT, 2, s22, NULL, (double[]){1, 1, 1, 1});
  pte_tensor *o = ktest_tensor(PTE_DTYPE_INT, 2, s22, NULL, NULL);
  pte_evalue *out = ktest_ev_tensor(o);
  pte_evalue *args[] = {ktest_ev_tensor(bias), ktest_ev_tensor(m1), ktest_ev_tensor(m2),
                        ktest_ev_int(3), ktest_ev_int(-1), out, out};
  CHECK_OK(ktest_run(fn, args, 7));
  /* 3*1 - [19 22; 43 50] */
  CHECK(ktest_expect(o, (double[]){-16, -19, -40, -47}, 4, 0));
  /* floating alpha with integral tensors */
  pte_evalue *args2[] = {ktest_ev_tensor(bias), ktest_ev_tensor(m1), ktest_ev_tensor(m2),
                         ktest_ev_int(1), ktest_ev_double(1.0), out, out};
  CHECK_STATUS(ktest_run(fn, args2, 7), PTE_ERR_INVALID_ARGUMENT);
  /* self not broadcastable ([3] vs [2,2]) */
  pte_tensor *b3 = ktest_tensor(PTE_DTYPE_INT, 1, s3, NULL, NULL);
  pte_evalue *args3[] = {ktest_ev_tensor(b3), ktest_ev_tensor(m1), ktest_ev_tensor(m2),
                         ktest_ev_int(1), ktest_ev_int(1), out, out};
  CHECK_STATUS(ktest_run(fn, args3, 7), PTE_ERR_INVALID_ARGUMENT);
  /* alpha not a scalar */
  pte_evalue *args4[] = {ktest_ev_tensor(bias), ktest_ev_tensor(m1), ktest_ev_tensor(m2),
                         ktest_ev_int(1), ktest_ev_none(), out, out};
  CHECK_STATUS(ktest_run(fn, args4, 7), PTE_ERR_INVALID_ARGUMENT);
}

TEST(bmm_hand_values) {
  pte_op_fn fn = find("aten::bmm.out");
  int32_t sa[] = {2, 1, 2}, sb[] = {2, 2, 1}, so[] = {2, 1, 1};
  pte_tensor *a = ktest_tensor(PTE_DTYPE_FLOAT, 3, sa, NULL, (double[]){1, 2, 3, 4});
  pte_tensor *b = ktest_tensor(PTE_DTYPE_FLOAT, 3, sb, NULL, (double[]){5, 6, 7, 8});
  pte_tensor *o = ktest_tensor(PTE_DTYPE_FLOAT, 3, so, NULL, NULL);
  pte_evalue *out = ktest_ev_tensor(o);
  pte_evalue *args[] = {ktest_ev_tensor(a), ktest_ev_tensor(b), out, out};
  CHECK_OK(ktest_run(fn, args, 4));
  /* batch 0: 1*5 + 2*6 = 17; batch 1: 3*7 + 4*8 = 53 */
  CHECK(ktest_expect(o, (double[]){17, 53}, 2, 0));
  /* a permuted (batch-innermost) layout, int64 */
  static const uint8_t perm[] = {2, 1, 0};
  int32_t s3[] = {3, 2, 2};
  double av[12], bv[12], ref[12];
  for (int i = 0; i < 12; i++) {
    av[i] = i - 5;
    bv[i] = (i * 7) % 5;
  }
  for (int n = 0; n < 3; n++)
    for (int i = 0; i < 2; i++)
      for (int j = 0; j < 2; j++)
        ref[n * 4 + i * 2 + j] = av[n * 4 + i * 2] * bv[n * 4 + j] + av[n * 4 + i * 2 + 1] * bv[n * 4 + 2 + j];
  pte_tensor *la = ktest_tensor(PTE_DTYPE_LONG, 3, s3, perm, av);
  pte_tensor *lb = ktest_tensor(PTE_DTYPE_LONG, 3, s3, NULL, bv);
  pte_tensor *lo = ktest_tensor(PTE_DTYPE_LONG, 3, s3, perm, NULL);
  pte_evalue *lout = ktest_ev_tensor(lo);
  pte_evalue *largs[] = {ktest_ev_tensor(la), ktest_ev_tensor(lb), lout, lout};
  CHECK_OK(ktest_run(fn, largs, 4));
  CHECK(ktest_expect(lo, ref, 12, 0));
  /* batch mismatch */
  int32_t sbad[] = {3, 2, 1};
  pte_tensor *bad = ktest_tensor(PTE_DTYPE_FLOAT, 3, sbad, NULL, NULL);
  pte_evalue *args2[] = {ktest_ev_tensor(a), ktest_ev_tensor(bad), out, out};
  CHECK_STATUS(ktest_run(fn, args2, 4), PTE_ERR_INVALID_ARGUMENT);
}

TEST(linear_bias_and_batches) {
  pte_op_fn fn = find("aten::linear.out");
  int32_t si[] = {2, 3}, sw[] = {2, 3}, sb[] = {2}, so[] = {2, 2};
  pte_tensor *in = ktest_tensor(PTE_DTYPE_FLOAT, 2, si, NULL, (double[]){1, 2, 3, 4, 5, 6});
  pte_tensor *w = ktest_tensor(PTE_DTYPE_FLOAT, 2, sw, NULL, (double[]){1, 0, -1, 0.5, 0.5, 0.5});
  pte_tensor *b = ktest_tensor(PTE_DTYPE_FLOAT, 1, sb, NULL, (double[]){100, 200});
  pte_tensor *o = ktest_tensor(PTE_DTYPE_FLOAT, 2, so, NULL, NULL);
  pte_evalue *out = ktest_ev_tensor(o);
  pte_evalue *args[] = {ktest_ev_tensor(in), ktest_ev_tensor(w), ktest_ev_tensor(b), out, out};
  CHECK_OK(ktest_run(fn, args, 5));
  /* row0: 1-3=-2, 0.5*6=3; row1: 4-6=-2, 0.5*15=7.5 */
  CHECK(ktest_expect(o, (double[]){98, 203, 98, 207.5}, 4, 0));
  /* no bias, 3-D input with a permuted layout (rows don't collapse) */
  static const uint8_t perm[] = {1, 0, 2};
  int32_t s3[] = {2, 2, 3}, so3[] = {2, 2, 2};
  double iv[12];
  for (int i = 0; i < 12; i++) iv[i] = i;
  pte_tensor *in3 = ktest_tensor(PTE_DTYPE_FLOAT, 3, s3, perm, iv);
  pte_tensor *o3 = ktest_tensor(PTE_DTYPE_FLOAT, 3, so3, NULL, NULL);
  pte_evalue *out3 = ktest_ev_tensor(o3);
  pte_evalue *args3[] = {ktest_ev_tensor(in3), ktest_ev_tensor(w), ktest_ev_none(), out3, out3};
  CHECK_OK(ktest_run(fn, args3, 5));
  double ref[8];
  for (int r = 0; r < 4; r++) {
    ref[r * 2] = iv[r * 3] - iv[r * 3 + 2];
    ref[r * 2 + 1] = 0.5 * (iv[r * 3] + iv[r * 3 + 1] + iv[r * 3 + 2]);
  }
  CHECK(ktest_expect(o3, ref, 8, 1e-6));
  /* 1-D input */
  int32_t s1[] = {3}, so1[] = {2};
  pte_tensor *in1 = ktest_tensor(PTE_DTYPE_DOUBLE, 1, s1, NULL, (double[]){1, 1, 1});
  pte_tensor *w1 = ktest_tensor(PTE_DTYPE_DOUBLE, 2, sw, NULL, (double[]){1, 2, 3, 4, 5, 6});
  pte_tensor *o1 = ktest_tensor(PTE_DTYPE_DOUBLE, 1, so1, NULL, NULL);
  pte_evalue *out1 = ktest_ev_tensor(o1);
  pte_evalue *args1[] = {ktest_ev_tensor(in1), ktest_ev_tensor(w1), ktest_ev_none(), out1, out1};
  CHECK_OK(ktest_run(fn, args1, 5));
  CHECK(ktest_expect(o1, (double[]){6, 15}, 2, 0));
  /* bias of the wrong length */
  int32_t s3b[] = {3};
  pte_tensor *b3 = ktest_tensor(PTE_DTYPE_FLOAT, 1, s3b, NULL, NULL);
  pte_evalue *args4[] = {ktest_ev_tensor(in), ktest_ev_tensor(w), ktest_ev_tensor(b3), out, out};
  CHECK_STATUS(ktest_run(fn, args4, 5), PTE_ERR_INVALID_ARGUMENT);
}

int main(void) {
  RUN(mm_hand_values);
  RUN(mm_double_and_transposed_operands);
  RUN(mm_random_shapes_vs_naive);
  RUN(mm_empty_k_gives_zeros);
  RUN(mm_integer_dtypes_wrap);
  RUN(mm_half_bf16_compute_in_float);
  RUN(mm_errors);
  RUN(addmm_beta_alpha_broadcast);
  RUN(addmm_xor_shapes_vs_naive);
  RUN(addmm_integer_and_errors);
  RUN(bmm_hand_values);
  RUN(linear_bias_and_batches);
  ktest_free_all();
  return test_summary();
}
