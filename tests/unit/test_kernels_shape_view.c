/* Tests for the view-like copy kernels (kernels/portable/op_view.c). Expected values are derived
 * by hand from the ATen definitions (comments show the derivation). */
#include "test.h"

#include "portable/portable_view.h"
#include "support/ktest.h"
#include "support/ktest_sugar.h"

static pte_status run(const char *name, pte_evalue **args, size_t n) {
  return ktest_run(ktest_find(pte_portable_view_kernels, pte_portable_view_kernels_count, name), args, n);
}

TEST(table_names) {
  const char *names[] = {"aten::as_strided_copy.out", "aten::diagonal_copy.out", "aten::unfold_copy.out",
                         "aten::narrow_copy.out", "aten::unbind_copy.int_out", "aten::view_as_real_copy.out",
                         "aten::detach_copy.out", "aten::lift_fresh_copy.out", "aten::copy_"};
  CHECK(ktest_table_is(pte_portable_view_kernels, pte_portable_view_kernels_count, names, sizeof names / sizeof names[0]));
}

TEST(as_strided_copy) {
  /* out[i][j] = flat[1 + i*1 + j*2] over flat = 0..11 */
  pte_tensor *x = ktest_tensor(PTE_DTYPE_FLOAT, 2, SZ(3, 4), NULL, ktest_iota(12));
  pte_tensor *o = ktest_dyn(PTE_DTYPE_FLOAT, 2, 16);
  pte_evalue *a[] = {EV(x), IL(2, 2), IL(1, 2), I(1), EV(o), NULL};
  a[5] = ktest_ev_none();
  CHECK_OK(run("aten::as_strided_copy.out", a, 6));
  CHECK(ktest_expect_shape(o, 2, SZ(2, 2)));
  CHECK(ktest_expect(o, DV(1, 3, 2, 4), 4, 0));
  CHECK(a[5]->tag == PTE_TAG_TENSOR && a[5]->u.tensor == o); /* return slot */
  /* storage_offset None, a zero stride (broadcast of element 0) */
  pte_evalue *b[] = {EV(x), IL(2, 3), IL(0, 5), ktest_ev_none(), EV(o)};
  pte_tensor *o3 = ktest_dyn(PTE_DTYPE_FLOAT, 2, 16);
  b[4] = EV(o3);
  CHECK_OK(run("aten::as_strided_copy.out", b, 5));
  CHECK(ktest_expect(o3, DV(0, 5, 10, 0, 5, 10), 6, 0));
  /* channels-last self: memory order (h, w, c) of logical c*4 + h*2 + w = 0,4,1,5,2,6,3,7 */
  pte_tensor *cl = ktest_tensor(PTE_DTYPE_INT, 4, SZ(1, 2, 2, 2), ktest_cl4, ktest_iota(8));
  pte_tensor *o1 = ktest_dyn(PTE_DTYPE_INT, 1, 8);
  pte_evalue *c[] = {EV(cl), IL(4), IL(2), I(1), EV(o1)};
  CHECK_OK(run("aten::as_strided_copy.out", c, 5));
  CHECK(ktest_expect(o1, DV(4, 5, 6, 7), 4, 0));
  /* empty size */
  pte_evalue *e[] = {EV(x), IL(0, 3), IL(1, 1), I(100), EV(o)};
  CHECK_OK(run("aten::as_strided_copy.out", e, 5));
  CHECK(ktest_expect_shape(o, 2, SZ(0, 3)));
  /* errors: beyond self, negative stride, length mismatch, negative offset, dtype */
  pte_evalue *b1[] = {EV(x), IL(3, 4), IL(4, 1), I(1), EV(o)};
  CHECK_STATUS(run("aten::as_strided_copy.out", b1, 5), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(ktest_last_msg(), "as_strided_copy");
  pte_evalue *b2[] = {EV(x), IL(2), IL(-1), I(3), EV(o1)};
  CHECK_STATUS(run("aten::as_strided_copy.out", b2, 5), PTE_ERR_INVALID_ARGUMENT);
  pte_evalue *b3[] = {EV(x), IL(2, 2), IL(1), I(0), EV(o)};
  CHECK_STATUS(run("aten::as_strided_copy.out", b3, 5), PTE_ERR_INVALID_ARGUMENT);
  pte_evalue *b4[] = {EV(x), IL(2, 2), IL(1, 1), I(-1), EV(o)};
  CHECK_STATUS(run("aten::as_strided_copy.out", b4, 5), PTE_ERR_INVALID_ARGUMENT);
  pte_evalue *b6[] = {EV(x), IL(2, 2), IL(1, 1), I(INT64_MAX), EV(o)}; /* no overflow */
  CHECK_STATUS(run("aten::as_strided_copy.out", b6, 5), PTE_ERR_INVALID_ARGUMENT);
  pte_evalue *b7[] = {EV(x), IL(INT32_MAX, INT32_MAX, INT32_MAX, INT32_MAX, INT32_MAX, INT32_MAX, INT32_MAX, INT32_MAX),
                      IL(INT32_MAX, INT32_MAX, INT32_MAX, INT32_MAX, INT32_MAX, INT32_MAX, INT32_MAX, INT32_MAX), I(0), EV(o)};
  CHECK_STATUS(run("aten::as_strided_copy.out", b7, 5), PTE_ERR_INVALID_ARGUMENT);
  pte_tensor *od = ktest_dyn(PTE_DTYPE_DOUBLE, 2, 16);
  pte_evalue *b5[] = {EV(x), IL(2, 2), IL(1, 1), I(0), EV(od)};
  CHECK_STATUS(run("aten::as_strided_copy.out", b5, 5), PTE_ERR_INVALID_ARGUMENT);
}

TEST(diagonal_copy) {
  pte_tensor *x = ktest_tensor(PTE_DTYPE_FLOAT, 2, SZ(3, 4), NULL, ktest_iota(12));
  pte_tensor *o = ktest_dyn(PTE_DTYPE_FLOAT, 1, 8);
  struct { int64_t off; size_t n; double v[3]; } cases[] = {
      {0, 3, {0, 5, 10}}, {1, 3, {1, 6, 11}}, {2, 2, {2, 7}}, {-1, 2, {4, 9}}, {-2, 1, {8}}, {4, 0, {0}}, {-3, 0, {0}}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    pte_evalue *a[] = {EV(x), I(cases[i].off), I(0), I(1), EV(o)};
    CHECK_OK(run("aten::diagonal_copy.out", a, 5));
    CHECK_MSG(ktest_expect_shape(o, 1, SZ((int32_t)cases[i].n)), "offset %lld", (long long)cases[i].off);
    CHECK_MSG(ktest_expect(o, cases[i].v, cases[i].n, 0), "offset %lld", (long long)cases[i].off);
  }
  /* extreme offsets give empty diagonals (no overflow) */
  pte_evalue *ex[] = {EV(x), I(INT64_MIN), I(0), I(1), EV(o)};
  CHECK_OK(run("aten::diagonal_copy.out", ex, 5));
  CHECK(ktest_expect_shape(o, 1, SZ(0)));
  pte_evalue *ex2[] = {EV(x), I(INT64_MAX), I(0), I(1), EV(o)};
  CHECK_OK(run("aten::diagonal_copy.out", ex2, 5));
  CHECK(ktest_expect_shape(o, 1, SZ(0)));
  /* 3-D, dim1=-1 (2), dim2=0: out[j][i] = x[i][j][i] = 13i + 4j */
  pte_tensor *y = ktest_tensor(PTE_DTYPE_LONG, 3, SZ(2, 3, 4), NULL, ktest_iota(24));
  pte_tensor *o2 = ktest_dyn(PTE_DTYPE_LONG, 2, 16);
  pte_evalue *b[] = {EV(y), I(0), I(-1), I(0), EV(o2)};
  CHECK_OK(run("aten::diagonal_copy.out", b, 5));
  CHECK(ktest_expect_shape(o2, 2, SZ(3, 2)));
  CHECK(ktest_expect(o2, DV(0, 13, 4, 17, 8, 21), 6, 0));
  /* every dtype, transposed (column-major) self: x^T diag of [[0,1],[2,3]] laid out column-major */
  for (size_t k = 0; k < KTEST_N_NUM_DTYPES; k++) {
    pte_tensor *t = ktest_tensor(ktest_num_dtypes[k], 2, SZ(2, 2), ktest_t2, DV(0, 1, 2, 3));
    pte_tensor *ot = ktest_dyn(ktest_num_dtypes[k], 1, 4);
    pte_evalue *c[] = {EV(t), I(0), I(0), I(1), EV(ot)};
    CHECK_OK(run("aten::diagonal_copy.out", c, 5));
    CHECK_MSG(ktest_expect(ot, DV(0, 3), 2, 0), "dtype %d", ktest_num_dtypes[k]);
    pte_evalue *c2[] = {EV(t), I(1), I(1), I(0), EV(ot)}; /* dims swapped: offset 1 walks below */
    CHECK_OK(run("aten::diagonal_copy.out", c2, 5));
    CHECK_MSG(ktest_expect(ot, DV(2), 1, 0), "dtype %d", ktest_num_dtypes[k]);
  }
  /* errors */
  pte_evalue *b1[] = {EV(x), I(0), I(1), I(-1), EV(o)};
  CHECK_STATUS(run("aten::diagonal_copy.out", b1, 5), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(ktest_last_msg(), "dim1 and dim2");
  pte_evalue *b2[] = {EV(x), I(0), I(0), I(2), EV(o)};
  CHECK_STATUS(run("aten::diagonal_copy.out", b2, 5), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(ktest_last_msg(), "dim2");
  pte_tensor *v = ktest_tensor(PTE_DTYPE_FLOAT, 1, SZ(3), NULL, NULL);
  pte_evalue *b3[] = {EV(v), I(0), I(0), I(1), EV(o)};
  CHECK_STATUS(run("aten::diagonal_copy.out", b3, 5), PTE_ERR_INVALID_ARGUMENT);
}

TEST(unfold_copy) {
  pte_tensor *x = ktest_tensor(PTE_DTYPE_FLOAT, 1, SZ(7), NULL, ktest_iota(7));
  pte_tensor *o = ktest_dyn(PTE_DTYPE_FLOAT, 2, 16);
  pte_evalue *a[] = {EV(x), I(0), I(3), I(2), EV(o)};
  CHECK_OK(run("aten::unfold_copy.out", a, 5));
  CHECK(ktest_expect_shape(o, 2, SZ(3, 3)));
  CHECK(ktest_expect(o, DV(0, 1, 2, 2, 3, 4, 4, 5, 6), 9, 0));
  /* [2,3] along -1, size 2 step 1 -> [2,2,2] */
  pte_tensor *y = ktest_tensor(PTE_DTYPE_SHORT, 2, SZ(2, 3), NULL, ktest_iota(6));
  pte_tensor *o3 = ktest_dyn(PTE_DTYPE_SHORT, 3, 16);
  pte_evalue *b[] = {EV(y), I(-1), I(2), I(1), EV(o3)};
  CHECK_OK(run("aten::unfold_copy.out", b, 5));
  CHECK(ktest_expect_shape(o3, 3, SZ(2, 2, 2)));
  CHECK(ktest_expect(o3, DV(0, 1, 1, 2, 3, 4, 4, 5), 8, 0));
  /* along dim 0 of the same: windows of rows -> [1,3,2]: out[0][j][k] = y[k][j] */
  pte_evalue *b2[] = {EV(y), I(0), I(2), I(5), EV(o3)};
  CHECK_OK(run("aten::unfold_copy.out", b2, 5));
  CHECK(ktest_expect_shape(o3, 3, SZ(1, 3, 2)));
  CHECK(ktest_expect(o3, DV(0, 3, 1, 4, 2, 5), 6, 0));
  /* 0-dim self is treated as size 1 */
  pte_tensor *s = ktest_tensor(PTE_DTYPE_DOUBLE, 0, NULL, NULL, DV(-0.5));
  pte_tensor *o1 = ktest_dyn(PTE_DTYPE_DOUBLE, 1, 4);
  pte_evalue *c[] = {EV(s), I(0), I(1), I(1), EV(o1)};
  CHECK_OK(run("aten::unfold_copy.out", c, 5));
  CHECK(ktest_expect_shape(o1, 1, SZ(1)));
  CHECK(ktest_expect(o1, DV(-0.5), 1, 0));
  /* size 0: windows of nothing, (7-0)/1+1 = 8 of them */
  pte_evalue *c2[] = {EV(x), I(0), I(0), I(1), EV(o)};
  CHECK_OK(run("aten::unfold_copy.out", c2, 5));
  CHECK(ktest_expect_shape(o, 2, SZ(8, 0)));
  /* errors */
  pte_evalue *b1[] = {EV(x), I(0), I(8), I(1), EV(o)};
  CHECK_STATUS(run("aten::unfold_copy.out", b1, 5), PTE_ERR_INVALID_ARGUMENT);
  pte_evalue *b3[] = {EV(x), I(0), I(2), I(0), EV(o)};
  CHECK_STATUS(run("aten::unfold_copy.out", b3, 5), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(ktest_last_msg(), "step");
  pte_evalue *b4[] = {EV(x), I(1), I(2), I(1), EV(o)};
  CHECK_STATUS(run("aten::unfold_copy.out", b4, 5), PTE_ERR_INVALID_ARGUMENT);
}

TEST(narrow_copy) {
  pte_tensor *x = ktest_tensor(PTE_DTYPE_FLOAT, 2, SZ(3, 4), NULL, ktest_iota(12));
  pte_tensor *o = ktest_dyn(PTE_DTYPE_FLOAT, 2, 16);
  pte_evalue *a[] = {EV(x), I(1), I(-3), I(2), EV(o)};
  CHECK_OK(run("aten::narrow_copy.out", a, 5));
  CHECK(ktest_expect_shape(o, 2, SZ(3, 2)));
  CHECK(ktest_expect(o, DV(1, 2, 5, 6, 9, 10), 6, 0));
  pte_evalue *b[] = {EV(x), I(-2), I(2), I(1), EV(o)};
  CHECK_OK(run("aten::narrow_copy.out", b, 5));
  CHECK(ktest_expect(o, DV(8, 9, 10, 11), 4, 0));
  pte_evalue *c[] = {EV(x), I(0), I(3), I(0), EV(o)}; /* start == size, length 0 */
  CHECK_OK(run("aten::narrow_copy.out", c, 5));
  CHECK(ktest_expect_shape(o, 2, SZ(0, 4)));
  /* every dtype, channels-last 4-D: narrow channels [1, 2) of logical 0..7 over [1,2,2,2] */
  for (size_t k = 0; k < KTEST_N_NUM_DTYPES; k++) {
    pte_tensor *t = ktest_tensor(ktest_num_dtypes[k], 4, SZ(1, 2, 2, 2), ktest_cl4, ktest_iota(8));
    pte_tensor *ot = ktest_dyn(ktest_num_dtypes[k], 4, 8);
    pte_evalue *d[] = {EV(t), I(1), I(1), I(1), EV(ot)};
    CHECK_OK(run("aten::narrow_copy.out", d, 5));
    CHECK_MSG(ktest_expect(ot, DV(4, 5, 6, 7), 4, 0), "dtype %d", ktest_num_dtypes[k]);
  }
  pte_evalue *b1[] = {EV(x), I(1), I(3), I(2), EV(o)};
  CHECK_STATUS(run("aten::narrow_copy.out", b1, 5), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(ktest_last_msg(), "narrow_copy");
  pte_evalue *b2[] = {EV(x), I(2), I(0), I(1), EV(o)};
  CHECK_STATUS(run("aten::narrow_copy.out", b2, 5), PTE_ERR_INVALID_ARGUMENT);
  pte_evalue *b3[] = {EV(x), I(0), I(-4), I(1), EV(o)};
  CHECK_STATUS(run("aten::narrow_copy.out", b3, 5), PTE_ERR_INVALID_ARGUMENT);
  pte_evalue *b4[] = {EV(x), I(0), I(0), I(-1), EV(o)};
  CHECK_STATUS(run("aten::narrow_copy.out", b4, 5), PTE_ERR_INVALID_ARGUMENT);
  pte_evalue *b5[] = {EV(x), I(0), I(1), I(INT64_MAX), EV(o)}; /* start + length would overflow */
  CHECK_STATUS(run("aten::narrow_copy.out", b5, 5), PTE_ERR_INVALID_ARGUMENT);
}

TEST(unbind_copy) {
  pte_tensor *x = ktest_tensor(PTE_DTYPE_INT, 2, SZ(2, 3), NULL, ktest_iota(6));
  pte_tensor *outs[3] = {ktest_dyn(PTE_DTYPE_INT, 1, 4), ktest_dyn(PTE_DTYPE_INT, 1, 4), ktest_dyn(PTE_DTYPE_INT, 1, 4)};
  pte_evalue *a[] = {EV(x), I(-1), ktest_ev_tensor_list(outs, 3)};
  CHECK_OK(run("aten::unbind_copy.int_out", a, 3));
  CHECK(ktest_expect(outs[0], DV(0, 3), 2, 0));
  CHECK(ktest_expect(outs[1], DV(1, 4), 2, 0));
  CHECK(ktest_expect(outs[2], DV(2, 5), 2, 0));
  pte_tensor *rows[2] = {ktest_dyn(PTE_DTYPE_INT, 1, 4), ktest_dyn(PTE_DTYPE_INT, 1, 4)};
  pte_evalue *b[] = {EV(x), I(0), ktest_ev_tensor_list(rows, 2)};
  CHECK_OK(run("aten::unbind_copy.int_out", b, 3));
  CHECK(ktest_expect(rows[1], DV(3, 4, 5), 3, 0));
  /* 1-D self gives 0-dim tensors */
  pte_tensor *v = ktest_tensor(PTE_DTYPE_BOOL, 1, SZ(2), NULL, DV(1, 0));
  pte_tensor *sc[2] = {ktest_tensor(PTE_DTYPE_BOOL, 0, NULL, NULL, DV(0)), ktest_tensor(PTE_DTYPE_BOOL, 0, NULL, NULL, DV(1))};
  pte_evalue *c[] = {EV(v), I(0), ktest_ev_tensor_list(sc, 2)};
  CHECK_OK(run("aten::unbind_copy.int_out", c, 3));
  CHECK(ktest_expect(sc[0], DV(1), 1, 0));
  CHECK(ktest_expect(sc[1], DV(0), 1, 0));
  /* errors: list length, dim, dtype */
  pte_evalue *b1[] = {EV(x), I(1), ktest_ev_tensor_list(rows, 2)};
  CHECK_STATUS(run("aten::unbind_copy.int_out", b1, 3), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(ktest_last_msg(), "unbind_copy");
  pte_evalue *b2[] = {EV(x), I(2), ktest_ev_tensor_list(rows, 2)};
  CHECK_STATUS(run("aten::unbind_copy.int_out", b2, 3), PTE_ERR_INVALID_ARGUMENT);
  pte_tensor *bad[2] = {ktest_dyn(PTE_DTYPE_LONG, 1, 4), ktest_dyn(PTE_DTYPE_LONG, 1, 4)};
  pte_evalue *b3[] = {EV(x), I(0), ktest_ev_tensor_list(bad, 2)};
  CHECK_STATUS(run("aten::unbind_copy.int_out", b3, 3), PTE_ERR_INVALID_ARGUMENT);
}

TEST(view_as_real_copy) {
  float c[4] = {1, 2, 3, -4}; /* (1+2i), (3-4i) */
  pte_tensor *x = ktest_tensor_raw(PTE_DTYPE_COMPLEX_FLOAT, 1, SZ(2), NULL, c, sizeof c);
  pte_tensor *o = ktest_dyn(PTE_DTYPE_FLOAT, 2, 8);
  pte_evalue *a[] = {EV(x), EV(o)};
  CHECK_OK(run("aten::view_as_real_copy.out", a, 2));
  CHECK(ktest_expect_shape(o, 2, SZ(2, 2)));
  CHECK(ktest_expect(o, DV(1, 2, 3, -4), 4, 0));
  /* column-major complex double [2,2]: memory a,b,c,d is logical a,c / b,d */
  double m[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  pte_tensor *y = ktest_tensor_raw(PTE_DTYPE_COMPLEX_DOUBLE, 2, SZ(2, 2), ktest_t2, m, sizeof m);
  pte_tensor *o3 = ktest_dyn(PTE_DTYPE_DOUBLE, 3, 8);
  pte_evalue *b[] = {EV(y), EV(o3)};
  CHECK_OK(run("aten::view_as_real_copy.out", b, 2));
  CHECK(ktest_expect_shape(o3, 3, SZ(2, 2, 2)));
  CHECK(ktest_expect(o3, DV(1, 2, 5, 6, 3, 4, 7, 8), 8, 0));
  /* complex half: 0x3c00 = 1.0, 0xc000 = -2.0 */
  uint16_t h[2] = {0x3c00, 0xc000};
  pte_tensor *z = ktest_tensor_raw(PTE_DTYPE_COMPLEX_HALF, 0, NULL, NULL, h, sizeof h);
  pte_tensor *oh = ktest_dyn(PTE_DTYPE_HALF, 1, 2);
  pte_evalue *d[] = {EV(z), EV(oh)};
  CHECK_OK(run("aten::view_as_real_copy.out", d, 2));
  CHECK(ktest_expect(oh, DV(1, -2), 2, 0));
  /* errors: real self, wrong out dtype */
  pte_tensor *r = ktest_tensor(PTE_DTYPE_FLOAT, 1, SZ(2), NULL, NULL);
  pte_evalue *b1[] = {EV(r), EV(o)};
  CHECK_STATUS(run("aten::view_as_real_copy.out", b1, 2), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(ktest_last_msg(), "complex");
  pte_evalue *b2[] = {EV(x), EV(o3)};
  CHECK_STATUS(run("aten::view_as_real_copy.out", b2, 2), PTE_ERR_INVALID_ARGUMENT);
}

TEST(detach_and_lift_fresh_copy) {
  const char *ops[] = {"aten::detach_copy.out", "aten::lift_fresh_copy.out"};
  for (int k = 0; k < 2; k++) {
    /* channels-last in, contiguous out: logical values survive */
    pte_tensor *x = ktest_tensor(PTE_DTYPE_BFLOAT16, 4, SZ(1, 2, 1, 2), ktest_cl4, DV(1.5, -2, 0.25, 3));
    pte_tensor *o = ktest_dyn(PTE_DTYPE_BFLOAT16, 4, 4);
    pte_evalue *a[] = {EV(x), EV(o), NULL};
    a[2] = ktest_ev_none();
    CHECK_OK(run(ops[k], a, 3));
    CHECK(ktest_expect_shape(o, 4, SZ(1, 2, 1, 2)));
    CHECK(ktest_expect(o, DV(1.5, -2, 0.25, 3), 4, 0));
    CHECK(a[2]->tag == PTE_TAG_TENSOR);
    pte_tensor *e = ktest_tensor(PTE_DTYPE_LONG, 2, SZ(0, 3), NULL, NULL);
    pte_tensor *oe = ktest_dyn(PTE_DTYPE_LONG, 2, 4);
    pte_evalue *b[] = {EV(e), EV(oe)};
    CHECK_OK(run(ops[k], b, 2));
    CHECK(ktest_expect_shape(oe, 2, SZ(0, 3)));
    pte_tensor *wrong = ktest_dyn(PTE_DTYPE_FLOAT, 4, 4);
    pte_evalue *b1[] = {EV(x), EV(wrong)};
    CHECK_STATUS(run(ops[k], b1, 2), PTE_ERR_INVALID_ARGUMENT);
    pte_tensor *st = ktest_tensor(PTE_DTYPE_BFLOAT16, 4, SZ(1, 1, 1, 2), NULL, NULL); /* static, wrong shape */
    pte_evalue *b2[] = {EV(x), EV(st)};
    CHECK_STATUS(run(ops[k], b2, 2), PTE_ERR_INVALID_ARGUMENT);
  }
}

TEST(copy_inplace) {
  /* int32 self [2,3] <- float src [3] broadcast, truncating toward zero */
  pte_tensor *self = ktest_tensor(PTE_DTYPE_INT, 2, SZ(2, 3), NULL, ktest_iota(6));
  pte_tensor *src = ktest_tensor(PTE_DTYPE_FLOAT, 1, SZ(3), NULL, DV(1.7, -2.9, 3));
  pte_evalue *a[] = {EV(self), EV(src), ktest_ev_bool(false), ktest_ev_none()};
  CHECK_OK(run("aten::copy_", a, 4));
  CHECK(ktest_expect(self, DV(1, -2, 3, 1, -2, 3), 6, 0));
  CHECK(a[3]->tag == PTE_TAG_TENSOR && a[3]->u.tensor == self);
  /* no return slot; transposed self, double -> half rounding (2049 -> 2048 ties to even) */
  pte_tensor *h = ktest_tensor(PTE_DTYPE_HALF, 2, SZ(2, 2), ktest_t2, NULL);
  pte_tensor *s2 = ktest_tensor(PTE_DTYPE_DOUBLE, 2, SZ(2, 2), NULL, DV(2049, -0.0, 1.0 / 0.0, 0.1));
  pte_evalue *b[] = {EV(h), EV(s2), ktest_ev_bool(false)};
  CHECK_OK(run("aten::copy_", b, 3));
  CHECK(ktest_expect(h, DV(2048, -0.0, 1.0 / 0.0, 0.0999755859375), 4, 0));
  CHECK_EQ_INT(ktest_get_u16(h, 1), 0x8000); /* -0 kept */
  /* errors: not broadcastable, non-tensor src */
  pte_tensor *bad = ktest_tensor(PTE_DTYPE_FLOAT, 1, SZ(2), NULL, NULL);
  pte_evalue *b1[] = {EV(self), EV(bad), ktest_ev_bool(false)};
  CHECK_STATUS(run("aten::copy_", b1, 3), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(ktest_last_msg(), "copy_");
  pte_evalue *b2[] = {EV(self), I(1), ktest_ev_bool(false)};
  CHECK_STATUS(run("aten::copy_", b2, 3), PTE_ERR_INVALID_ARGUMENT);
}

int main(void) {
  RUN(table_names);
  RUN(as_strided_copy);
  RUN(diagonal_copy);
  RUN(unfold_copy);
  RUN(narrow_copy);
  RUN(unbind_copy);
  RUN(view_as_real_copy);
  RUN(detach_and_lift_fresh_copy);
  RUN(copy_inplace);
  ktest_free_all();
  return test_summary();
}
