/* Tests for the creation kernels (kernels/portable/op_creation.c). Deterministic values are hand
 * derived; rand/randn/dropout are checked by range and sample statistics (bounds far wider than
 * the sampling error: n = 4000 gives sigma(mean) ~ 0.005 for rand and ~ 0.016 for randn). */
#include <math.h>

#include "test.h"

#include "portable/portable_creation.h"
#include "support/ktest.h"
#include "support/ktest_sugar.h"

static pte_status run(const char *name, pte_evalue **args, size_t n) {
  return ktest_run(ktest_find(pte_portable_creation_kernels, pte_portable_creation_kernels_count, name), args, n);
}

TEST(table_names) {
  const char *names[] = {"aten::empty.out", "aten::ones.out",  "aten::zeros.out",          "aten::fill.Tensor_out",
                         "aten::rand.out",  "aten::randn.out", "aten::native_dropout.out"};
  CHECK(ktest_table_is(pte_portable_creation_kernels, pte_portable_creation_kernels_count, names, sizeof names / sizeof names[0]));
}

TEST(empty_ones_zeros) {
  pte_tensor *o = ktest_dyn(PTE_DTYPE_FLOAT, 2, 16);
  pte_evalue *a[] = {IL(2, 3), ktest_ev_none(), EV(o), NULL};
  a[3] = a[2];
  CHECK_OK(run("aten::empty.out", a, 4));
  CHECK(ktest_expect_shape(o, 2, SZ(2, 3)));
  pte_evalue *a2[] = {IL(0, 3), ktest_ev_int(0), EV(o)};
  CHECK_OK(run("aten::empty.out", a2, 3));
  CHECK(ktest_expect_shape(o, 2, SZ(0, 3)));
  for (size_t k = 0; k < KTEST_N_ALL_DTYPES; k++) {
    pte_tensor *t = ktest_tensor_dyn(ktest_all_dtypes[k], 2, SZ(1, 1), ktest_t2, 8);
    pte_evalue *b[] = {IL(2, 2), EV(t)};
    CHECK_OK(run("aten::ones.out", b, 2));
    CHECK_MSG(ktest_expect(t, DV(1, 1, 1, 1), 4, 0), "dtype %d", ktest_all_dtypes[k]);
    CHECK_OK(run("aten::zeros.out", b, 2));
    CHECK_MSG(ktest_expect(t, DV(0, 0, 0, 0), 4, 0), "dtype %d", ktest_all_dtypes[k]);
  }
  pte_tensor *s = ktest_tensor(PTE_DTYPE_HALF, 0, NULL, NULL, NULL);
  pte_evalue *c[] = {IL(), EV(s)};
  CHECK_OK(run("aten::ones.out", c, 2));
  CHECK_EQ_INT(ktest_get_u16(s, 0), 0x3c00);
  /* errors: rank mismatch, negative size, static out of another shape */
  pte_evalue *b1[] = {IL(2), EV(o)};
  CHECK_STATUS(run("aten::ones.out", b1, 2), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(ktest_last_msg(), "ones");
  pte_evalue *b2[] = {IL(2, -1), EV(o)};
  CHECK_STATUS(run("aten::zeros.out", b2, 2), PTE_ERR_INVALID_ARGUMENT);
  pte_tensor *st = ktest_tensor(PTE_DTYPE_FLOAT, 2, SZ(2, 2), NULL, NULL);
  pte_evalue *b3[] = {IL(3, 2), ktest_ev_none(), EV(st)};
  CHECK_STATUS(run("aten::empty.out", b3, 3), PTE_ERR_INVALID_ARGUMENT);
}

TEST(fill_tensor) {
  pte_tensor *self = ktest_tensor(PTE_DTYPE_FLOAT, 2, SZ(2, 2), NULL, NULL);
  pte_tensor *o = ktest_dyn(PTE_DTYPE_FLOAT, 2, 8);
  pte_tensor *v = ktest_tensor(PTE_DTYPE_DOUBLE, 0, NULL, NULL, DV(2.5));
  pte_evalue *a[] = {EV(self), EV(v), EV(o), NULL};
  a[3] = a[2];
  CHECK_OK(run("aten::fill.Tensor_out", a, 4));
  CHECK(ktest_expect(o, DV(2.5, 2.5, 2.5, 2.5), 4, 0));
  /* float value into int32 truncates toward zero; -3.9 -> -3 */
  pte_tensor *si = ktest_tensor(PTE_DTYPE_INT, 1, SZ(2), NULL, NULL);
  pte_tensor *oi = ktest_dyn(PTE_DTYPE_INT, 1, 4);
  pte_tensor *vf = ktest_tensor(PTE_DTYPE_FLOAT, 0, NULL, NULL, DV(-3.9));
  pte_evalue *b[] = {EV(si), EV(vf), EV(oi)};
  CHECK_OK(run("aten::fill.Tensor_out", b, 3));
  CHECK(ktest_expect(oi, DV(-3, -3), 2, 0));
  /* int64 value keeps full precision into int64 */
  pte_tensor *sl = ktest_tensor(PTE_DTYPE_LONG, 1, SZ(2), NULL, NULL);
  pte_tensor *ol = ktest_dyn(PTE_DTYPE_LONG, 1, 4);
  pte_tensor *vl = ktest_tensor_i64(PTE_DTYPE_LONG, 0, NULL, NULL, (int64_t[]){INT64_MAX});
  pte_evalue *c[] = {EV(sl), EV(vl), EV(ol)};
  CHECK_OK(run("aten::fill.Tensor_out", c, 3));
  CHECK(ktest_expect_i64(ol, (int64_t[]){INT64_MAX, INT64_MAX}, 2));
  /* bool value into bfloat16; double 0.1 into half */
  pte_tensor *sb = ktest_tensor(PTE_DTYPE_BFLOAT16, 1, SZ(1), NULL, NULL);
  pte_tensor *ob = ktest_dyn(PTE_DTYPE_BFLOAT16, 1, 2);
  pte_tensor *vb = ktest_tensor(PTE_DTYPE_BOOL, 0, NULL, NULL, DV(1));
  pte_evalue *d[] = {EV(sb), EV(vb), EV(ob)};
  CHECK_OK(run("aten::fill.Tensor_out", d, 3));
  CHECK_EQ_INT(ktest_get_u16(ob, 0), 0x3f80);
  pte_tensor *sh = ktest_tensor(PTE_DTYPE_HALF, 1, SZ(1), NULL, NULL);
  pte_tensor *oh = ktest_dyn(PTE_DTYPE_HALF, 1, 2);
  pte_tensor *vh = ktest_tensor(PTE_DTYPE_DOUBLE, 0, NULL, NULL, DV(0.1));
  pte_evalue *e[] = {EV(sh), EV(vh), EV(oh)};
  CHECK_OK(run("aten::fill.Tensor_out", e, 3));
  CHECK_EQ_INT(ktest_get_u16(oh, 0), 0x2e66);
  /* errors: 1-D value, out dtype */
  pte_tensor *v1 = ktest_tensor(PTE_DTYPE_FLOAT, 1, SZ(1), NULL, DV(1));
  pte_evalue *b1[] = {EV(self), EV(v1), EV(o)};
  CHECK_STATUS(run("aten::fill.Tensor_out", b1, 3), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(ktest_last_msg(), "0-dim");
  pte_evalue *b2[] = {EV(self), EV(v), EV(oi)};
  CHECK_STATUS(run("aten::fill.Tensor_out", b2, 3), PTE_ERR_INVALID_ARGUMENT);
}

TEST(rand_and_randn) {
  const int fdt[] = {PTE_DTYPE_FLOAT, PTE_DTYPE_DOUBLE, PTE_DTYPE_HALF, PTE_DTYPE_BFLOAT16};
  for (size_t k = 0; k < 4; k++) {
    pte_tensor *o = ktest_dyn(fdt[k], 2, 4000);
    pte_evalue *a[] = {IL(40, 100), EV(o)};
    CHECK_OK(run("aten::rand.out", a, 2));
    CHECK(ktest_expect_shape(o, 2, SZ(40, 100)));
    double sum = 0, mn = 2, mx = -1;
    for (size_t i = 0; i < 4000; i++) {
      double v = ktest_get(o, i);
      sum += v;
      if (v < mn) mn = v;
      if (v > mx) mx = v;
    }
    CHECK_MSG(mn >= 0.0 && mx < 1.0, "dtype %d range [%g, %g]", fdt[k], mn, mx);
    CHECK_MSG(fabs(sum / 4000 - 0.5) < 0.03, "dtype %d mean %g", fdt[k], sum / 4000);
    CHECK_MSG(mx - mn > 0.9, "dtype %d spread %g", fdt[k], mx - mn);
    pte_tensor *n = ktest_dyn(fdt[k], 1, 4000);
    pte_evalue *b[] = {IL(4000), EV(n)};
    CHECK_OK(run("aten::randn.out", b, 2));
    double s1 = 0, s2 = 0;
    bool finite = true;
    for (size_t i = 0; i < 4000; i++) {
      double v = ktest_get(n, i);
      finite = finite && isfinite(v);
      s1 += v;
      s2 += v * v;
    }
    double mean = s1 / 4000, var = s2 / 4000 - mean * mean;
    CHECK_MSG(finite, "dtype %d", fdt[k]);
    CHECK_MSG(fabs(mean) < 0.1 && fabs(var - 1.0) < 0.15, "dtype %d mean %g var %g", fdt[k], mean, var);
  }
  /* errors */
  pte_tensor *oi = ktest_dyn(PTE_DTYPE_INT, 1, 8);
  pte_evalue *b1[] = {IL(4), EV(oi)};
  CHECK_STATUS(run("aten::rand.out", b1, 2), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(ktest_last_msg(), "rand");
  CHECK_STATUS(run("aten::randn.out", b1, 2), PTE_ERR_INVALID_ARGUMENT);
}

TEST(native_dropout) {
  double v[6] = {1, -2, 0.5, NAN, -0.0, 0x1p100};
  pte_tensor *x = ktest_tensor(PTE_DTYPE_FLOAT, 2, SZ(2, 3), NULL, v);
  pte_tensor *o = ktest_dyn(PTE_DTYPE_FLOAT, 2, 8), *m = ktest_dyn(PTE_DTYPE_BOOL, 2, 8);
  /* p = 0 in training: exact copy, mask all true */
  pte_evalue *a[] = {EV(x), ktest_ev_double(0.0), ktest_ev_bool(true), EV(o), EV(m)};
  CHECK_OK(run("aten::native_dropout.out", a, 5));
  CHECK(ktest_expect(o, v, 6, 0));
  CHECK(ktest_expect(m, DV(1, 1, 1, 1, 1, 1), 6, 0));
  /* train = false: exact copy whatever p */
  pte_evalue *b[] = {EV(x), ktest_ev_double(0.7), ktest_ev_bool(false), EV(o), EV(m)};
  CHECK_OK(run("aten::native_dropout.out", b, 5));
  CHECK(ktest_expect(o, v, 6, 0));
  CHECK(ktest_expect(m, DV(1, 1, 1, 1, 1, 1), 6, 0));
  /* p = 1: everything dropped (x * 0 * 0: NaN stays NaN, -0 * 0 = -0) */
  pte_evalue *c[] = {EV(x), ktest_ev_double(1.0), ktest_ev_none(), EV(o), EV(m)};
  CHECK_OK(run("aten::native_dropout.out", c, 5));
  CHECK(ktest_expect(o, DV(0, -0.0, 0, NAN, 0, 0), 6, 0));
  CHECK(ktest_expect(m, DV(0, 0, 0, 0, 0, 0), 6, 0));
  /* p = 0.25 over 4000 ones: kept values are exactly 1/0.75 rounded to float, kept share ~0.75 */
  pte_tensor *big = ktest_tensor_dyn(PTE_DTYPE_DOUBLE, 1, SZ(4000), NULL, 4000);
  for (size_t i = 0; i < 4000; i++) ((double *)big->data)[i] = 1.0;
  pte_tensor *ob = ktest_dyn(PTE_DTYPE_DOUBLE, 1, 4000), *mb = ktest_dyn(PTE_DTYPE_BOOL, 1, 4000);
  pte_evalue *d[] = {EV(big), ktest_ev_double(0.25), ktest_ev_bool(true), EV(ob), EV(mb), NULL};
  pte_tensor *rl[2] = {ob, mb};
  d[5] = ktest_ev_tensor_list(rl, 2);
  CHECK_OK(run("aten::native_dropout.out", d, 6));
  size_t kept = 0;
  bool consistent = true;
  for (size_t i = 0; i < 4000; i++) {
    bool k = ktest_get(mb, i) != 0;
    double y = ktest_get(ob, i);
    kept += k;
    if (k ? y != 1.0 / 0.75 : y != 0.0) consistent = false;
  }
  CHECK(consistent);
  CHECK_MSG(kept > 2850 && kept < 3150, "kept %zu of 4000", kept);
  /* errors */
  pte_evalue *b1[] = {EV(x), ktest_ev_double(1.5), ktest_ev_bool(true), EV(o), EV(m)};
  CHECK_STATUS(run("aten::native_dropout.out", b1, 5), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(ktest_last_msg(), "native_dropout");
  pte_tensor *xi = ktest_tensor(PTE_DTYPE_INT, 2, SZ(2, 3), NULL, NULL), *oi = ktest_dyn(PTE_DTYPE_INT, 2, 8);
  pte_evalue *b2[] = {EV(xi), ktest_ev_double(0.5), ktest_ev_bool(true), EV(oi), EV(m)};
  CHECK_STATUS(run("aten::native_dropout.out", b2, 5), PTE_ERR_INVALID_ARGUMENT);
  pte_tensor *mf = ktest_dyn(PTE_DTYPE_FLOAT, 2, 8);
  pte_evalue *b3[] = {EV(x), ktest_ev_double(0.5), ktest_ev_bool(true), EV(o), EV(mf)};
  CHECK_STATUS(run("aten::native_dropout.out", b3, 5), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(ktest_last_msg(), "mask");
}

int main(void) {
  RUN(table_names);
  RUN(empty_ones_zeros);
  RUN(fill_tensor);
  RUN(rand_and_randn);
  RUN(native_dropout);
  ktest_free_all();
  return test_summary();
}
