/* Tests for prod / mean.dtype / max.unary / min.unary (op_reduce.c) and var / var_mean
 * (op_var.c). Expected values are worked out by hand in the comments. */
#include "test.h"

#include "portable/portable_reduce.h"
#include "support/ktest.h"
#include "support/ktest_sugar.h"

static pte_status run(const char *name, pte_evalue **args, size_t n) {
  pte_op_fn fn = ktest_find(pte_portable_reduce_kernels, pte_portable_reduce_kernels_count, name);
  if (!fn) fn = ktest_find(pte_portable_var_kernels, pte_portable_var_kernels_count, name);
  return ktest_run(fn, args, n);
}

/* ---- prod ---- */

TEST(prod_all_float_and_default_dtypes) {
  pte_tensor *x = ktest_tensor(PTE_DTYPE_FLOAT, 2, SZ(2, 3), NULL, DV(1, 2, 3, 4, 5, -0.5));
  pte_tensor *o = ktest_scalar(PTE_DTYPE_FLOAT);
  pte_evalue *args[] = {EV(x), NONE(), EV(o)};
  CHECK_OK(run("aten::prod.out", args, 3));
  CHECK(ktest_expect(o, DV(-60), 1, 0)); /* 1*2*3*4*5*-0.5 */
  /* int32 input -> int64 out by default */
  pte_tensor *xi = ktest_tensor(PTE_DTYPE_INT, 1, SZ(4), NULL, DV(-3, 7, 2, 5));
  pte_tensor *ol = ktest_scalar(PTE_DTYPE_LONG);
  pte_evalue *a2[] = {EV(xi), NONE(), EV(ol)};
  CHECK_OK(run("aten::prod.out", a2, 3));
  CHECK(ktest_expect_i64(ol, (int64_t[]){-210}, 1));
  /* int32 out without dtype: rejected (ATen would give int64) */
  pte_tensor *oi = ktest_scalar(PTE_DTYPE_INT);
  pte_evalue *a3[] = {EV(xi), NONE(), EV(oi)};
  CHECK_STATUS(run("aten::prod.out", a3, 3), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(ktest_last_msg(), "prod");
  /* with dtype=int32 it is fine; bool input -> int64 */
  pte_evalue *a4[] = {EV(xi), I(PTE_DTYPE_INT), EV(oi)};
  CHECK_OK(run("aten::prod.out", a4, 3));
  CHECK(ktest_expect(oi, DV(-210), 1, 0));
  pte_tensor *xb = ktest_tensor(PTE_DTYPE_BOOL, 1, SZ(3), NULL, DV(1, 1, 0));
  pte_evalue *a5[] = {EV(xb), NONE(), EV(ol)};
  CHECK_OK(run("aten::prod.out", a5, 3));
  CHECK(ktest_expect_i64(ol, (int64_t[]){0}, 1));
  /* empty -> 1 */
  pte_tensor *xe = ktest_tensor(PTE_DTYPE_FLOAT, 2, SZ(0, 3), NULL, NULL);
  pte_evalue *a6[] = {EV(xe), NONE(), EV(o)};
  CHECK_OK(run("aten::prod.out", a6, 3));
  CHECK(ktest_expect(o, DV(1), 1, 0));
}

TEST(prod_int_dim_layouts_overflow) {
  /* logical [[1,2,3],[4,5,6]] stored transposed */
  pte_tensor *x = ktest_tensor(PTE_DTYPE_DOUBLE, 2, SZ(2, 3), ktest_t2, DV(1, 2, 3, 4, 5, 6));
  pte_tensor *o = ktest_dyn(PTE_DTYPE_DOUBLE, 2, 8);
  pte_evalue *args[] = {EV(x), I(1), B(true), NONE(), EV(o)};
  CHECK_OK(run("aten::prod.int_out", args, 5));
  CHECK(ktest_expect_shape(o, 2, SZ(2, 1)));
  CHECK(ktest_expect(o, DV(6, 120), 2, 0));
  pte_tensor *o2 = ktest_dyn(PTE_DTYPE_DOUBLE, 1, 8);
  pte_evalue *a2[] = {EV(x), I(-2), B(false), NONE(), EV(o2)};
  CHECK_OK(run("aten::prod.int_out", a2, 5));
  CHECK(ktest_expect_shape(o2, 1, SZ(3)));
  CHECK(ktest_expect(o2, DV(4, 10, 18), 3, 0));
  /* int8 with dtype=int8: 100*3 = 300 wraps to 44 */
  pte_tensor *xc = ktest_tensor(PTE_DTYPE_CHAR, 2, SZ(1, 2), NULL, DV(100, 3));
  pte_tensor *oc = ktest_dyn(PTE_DTYPE_CHAR, 1, 4);
  pte_evalue *a3[] = {EV(xc), I(1), B(false), I(PTE_DTYPE_CHAR), EV(oc)};
  CHECK_OK(run("aten::prod.int_out", a3, 5));
  CHECK(ktest_expect(oc, DV(44), 1, 0));
  /* int64 wrap: 2^62 * 4 = 2^64 -> 0 */
  pte_tensor *xl = ktest_tensor_i64(PTE_DTYPE_LONG, 1, SZ(2), NULL, (int64_t[]){INT64_C(1) << 62, 4});
  pte_tensor *ol = ktest_scalar(PTE_DTYPE_LONG);
  pte_evalue *a4[] = {EV(xl), I(0), B(false), NONE(), EV(ol)};
  CHECK_OK(run("aten::prod.int_out", a4, 5));
  CHECK(ktest_expect_i64(ol, (int64_t[]){0}, 1));
  /* NaN / inf / -0 */
  pte_tensor *xf = ktest_tensor(PTE_DTYPE_FLOAT, 2, SZ(3, 2), NULL, DV(NAN, 1, INFINITY, 0, -0.0, 2));
  pte_tensor *of = ktest_dyn(PTE_DTYPE_FLOAT, 1, 4);
  pte_evalue *a5[] = {EV(xf), I(1), B(false), NONE(), EV(of)};
  CHECK_OK(run("aten::prod.int_out", a5, 5));
  CHECK(ktest_expect(of, DV(NAN, NAN, -0.0), 3, 0)); /* inf*0 = NaN */
  CHECK(signbit(ktest_get(of, 2)));
  /* half */
  pte_tensor *xh = ktest_tensor(PTE_DTYPE_HALF, 1, SZ(3), NULL, DV(1.5, 2, -4));
  pte_tensor *oh = ktest_scalar(PTE_DTYPE_HALF);
  pte_evalue *a6[] = {EV(xh), I(0), B(false), NONE(), EV(oh)};
  CHECK_OK(run("aten::prod.int_out", a6, 5));
  CHECK(ktest_expect(oh, DV(-12), 1, 0));
  /* bad dim */
  pte_evalue *a7[] = {EV(x), I(2), B(false), NONE(), EV(o2)};
  CHECK_STATUS(run("aten::prod.int_out", a7, 5), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(ktest_last_msg(), "prod: dim 2 out of range");
}

/* ---- mean.dtype_out ---- */

TEST(mean_dtype_out) {
  pte_tensor *x = ktest_tensor(PTE_DTYPE_FLOAT, 4, SZ(1, 2, 1, 2), ktest_cl4, DV(1, 2, 3, 10));
  pte_tensor *o = ktest_scalar(PTE_DTYPE_FLOAT);
  pte_evalue *args[] = {EV(x), NONE(), EV(o), NULL};
  args[3] = args[2];
  CHECK_OK(run("aten::mean.dtype_out", args, 4));
  CHECK(ktest_expect(o, DV(4), 1, 0));
  pte_tensor *xi = ktest_tensor(PTE_DTYPE_INT, 1, SZ(3), NULL, DV(1, 2, 2));
  pte_tensor *od = ktest_scalar(PTE_DTYPE_DOUBLE);
  pte_evalue *a2[] = {EV(xi), I(PTE_DTYPE_DOUBLE), EV(od)};
  CHECK_OK(run("aten::mean.dtype_out", a2, 3));
  CHECK(ktest_expect(od, DV(5.0 / 3.0), 1, 1e-15));
  pte_evalue *a3[] = {EV(xi), NONE(), EV(od)};
  CHECK_STATUS(run("aten::mean.dtype_out", a3, 3), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(ktest_last_msg(), "mean");
  pte_tensor *xe = ktest_tensor(PTE_DTYPE_FLOAT, 1, SZ(0), NULL, NULL);
  pte_evalue *a4[] = {EV(xe), NONE(), EV(o)};
  CHECK_OK(run("aten::mean.dtype_out", a4, 3));
  CHECK(isnan(ktest_get(o, 0)));
}

/* ---- max / min unary ---- */

TEST(max_min_unary) {
  pte_tensor *x = ktest_tensor(PTE_DTYPE_FLOAT, 2, SZ(2, 3), ktest_t2, DV(3, -1, 7, 2, -8, 0));
  pte_tensor *o = ktest_scalar(PTE_DTYPE_FLOAT);
  pte_evalue *args[] = {EV(x), EV(o)};
  CHECK_OK(run("aten::max.unary_out", args, 2));
  CHECK(ktest_expect(o, DV(7), 1, 0));
  CHECK_OK(run("aten::min.unary_out", args, 2));
  CHECK(ktest_expect(o, DV(-8), 1, 0));
  /* NaN propagates */
  pte_tensor *xn = ktest_tensor(PTE_DTYPE_DOUBLE, 1, SZ(4), NULL, DV(1, NAN, INFINITY, -INFINITY));
  pte_tensor *od = ktest_scalar(PTE_DTYPE_DOUBLE);
  pte_evalue *a2[] = {EV(xn), EV(od)};
  CHECK_OK(run("aten::max.unary_out", a2, 2));
  CHECK(isnan(ktest_get(od, 0)));
  CHECK_OK(run("aten::min.unary_out", a2, 2));
  CHECK(isnan(ktest_get(od, 0)));
  /* int64 exact extremes, into int64 and (castable) double */
  pte_tensor *xl = ktest_tensor_i64(PTE_DTYPE_LONG, 1, SZ(3), NULL, (int64_t[]){INT64_MAX, 5, INT64_MIN});
  pte_tensor *ol = ktest_scalar(PTE_DTYPE_LONG);
  pte_evalue *a3[] = {EV(xl), EV(ol)};
  CHECK_OK(run("aten::max.unary_out", a3, 2));
  CHECK(ktest_expect_i64(ol, (int64_t[]){INT64_MAX}, 1));
  CHECK_OK(run("aten::min.unary_out", a3, 2));
  CHECK(ktest_expect_i64(ol, (int64_t[]){INT64_MIN}, 1));
  /* bool */
  pte_tensor *xb = ktest_tensor(PTE_DTYPE_BOOL, 1, SZ(3), NULL, DV(0, 1, 0));
  pte_tensor *ob = ktest_scalar(PTE_DTYPE_BOOL);
  pte_evalue *a4[] = {EV(xb), EV(ob)};
  CHECK_OK(run("aten::max.unary_out", a4, 2));
  CHECK(ktest_expect(ob, DV(1), 1, 0));
  CHECK_OK(run("aten::min.unary_out", a4, 2));
  CHECK(ktest_expect(ob, DV(0), 1, 0));
  /* bf16, 0-dim input */
  pte_tensor *x0 = ktest_tensor(PTE_DTYPE_BFLOAT16, 0, NULL, NULL, DV(-2.5));
  pte_tensor *o0 = ktest_scalar(PTE_DTYPE_BFLOAT16);
  pte_evalue *a5[] = {EV(x0), EV(o0)};
  CHECK_OK(run("aten::max.unary_out", a5, 2));
  CHECK(ktest_expect(o0, DV(-2.5), 1, 0));
  /* errors: empty input, float -> int out */
  pte_tensor *xe = ktest_tensor(PTE_DTYPE_FLOAT, 2, SZ(2, 0), NULL, NULL);
  pte_evalue *a6[] = {EV(xe), EV(o)};
  CHECK_STATUS(run("aten::max.unary_out", a6, 2), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(ktest_last_msg(), "max()");
  pte_evalue *a7[] = {EV(x), EV(ol)};
  CHECK_STATUS(run("aten::min.unary_out", a7, 2), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(ktest_last_msg(), "min: cannot cast");
}

/* ---- var / var_mean ---- */

TEST(var_out_unbiased_and_dims) {
  /* rows [1,2,3,4] and [2,4,6,8]: means 2.5, 5; sum sq dev 5, 20 */
  pte_tensor *x = ktest_tensor(PTE_DTYPE_FLOAT, 2, SZ(2, 4), ktest_t2, DV(1, 2, 3, 4, 2, 4, 6, 8));
  pte_tensor *o = ktest_dyn(PTE_DTYPE_FLOAT, 1, 8);
  pte_evalue *args[] = {EV(x), IL(1), B(true), B(false), EV(o)};
  CHECK_OK(run("aten::var.out", args, 5));
  CHECK(ktest_expect_shape(o, 1, SZ(2)));
  CHECK(ktest_expect(o, DV(5.0 / 3, 20.0 / 3), 2, 1e-6));
  pte_evalue *a2[] = {EV(x), IL(-1), B(false), B(false), EV(o)};
  CHECK_OK(run("aten::var.out", a2, 5));
  CHECK(ktest_expect(o, DV(1.25, 5), 2, 1e-6));
  /* all dims via None and via []: mean 3.75, sum sq dev = 5 + 20 + 4*(1.25^2)*2 = 37.5 */
  pte_tensor *o0 = ktest_scalar(PTE_DTYPE_FLOAT);
  pte_evalue *a3[] = {EV(x), NONE(), B(true), B(false), EV(o0)};
  CHECK_OK(run("aten::var.out", a3, 5));
  CHECK(ktest_expect(o0, DV(37.5 / 7), 1, 1e-6));
  pte_evalue *a4[] = {EV(x), EMPTY_IL(), B(false), B(false), EV(o0)};
  CHECK_OK(run("aten::var.out", a4, 5));
  CHECK(ktest_expect(o0, DV(37.5 / 8), 1, 1e-6));
  /* keepdim, channels-last 4-D over dims (2,3) */
  pte_tensor *x4 = ktest_tensor(PTE_DTYPE_DOUBLE, 4, SZ(1, 2, 1, 3), ktest_cl4, DV(0, 3, 6, 1, 1, 4));
  pte_tensor *o4 = ktest_dyn(PTE_DTYPE_DOUBLE, 4, 8);
  pte_evalue *a5[] = {EV(x4), IL(2, 3), B(true), B(true), EV(o4)};
  CHECK_OK(run("aten::var.out", a5, 5));
  CHECK(ktest_expect_shape(o4, 4, SZ(1, 2, 1, 1)));
  CHECK(ktest_expect(o4, DV(9, 3), 2, 1e-12)); /* [0,3,6]: 18/2; [1,1,4]: mean 2, 6/2 */
}

TEST(var_correction_edges) {
  pte_tensor *x = ktest_tensor(PTE_DTYPE_DOUBLE, 2, SZ(2, 3), NULL, DV(1, 2, 6, 5, 5, 5));
  pte_tensor *o = ktest_dyn(PTE_DTYPE_DOUBLE, 1, 4);
  /* correction 2: [1,2,6] mean 3, ssd 4+1+9 = 14 -> 14/1; [5,5,5] -> 0 */
  pte_evalue *args[] = {EV(x), IL(1), I(2), B(false), EV(o)};
  CHECK_OK(run("aten::var.correction_out", args, 5));
  CHECK(ktest_expect(o, DV(14, 0), 2, 1e-12));
  /* double correction 0.5 */
  pte_evalue *a2[] = {EV(x), IL(1), D(0.5), B(false), EV(o)};
  CHECK_OK(run("aten::var.correction_out", a2, 5));
  CHECK(ktest_expect(o, DV(14 / 2.5, 0), 2, 1e-12));
  /* None -> 1 */
  pte_evalue *a3[] = {EV(x), IL(1), NONE(), B(false), EV(o)};
  CHECK_OK(run("aten::var.correction_out", a3, 5));
  CHECK(ktest_expect(o, DV(7, 0), 2, 1e-12));
  /* correction >= N: divisor 0 -> inf, or NaN when ssd is 0 */
  pte_evalue *a4[] = {EV(x), IL(1), I(3), B(false), EV(o)};
  CHECK_OK(run("aten::var.correction_out", a4, 5));
  CHECK(isinf(ktest_get(o, 0)) && ktest_get(o, 0) > 0);
  CHECK(isnan(ktest_get(o, 1)));
  /* NaN and inf inputs give NaN */
  pte_tensor *xn = ktest_tensor(PTE_DTYPE_FLOAT, 2, SZ(2, 2), NULL, DV(1, NAN, INFINITY, 1));
  pte_tensor *on = ktest_dyn(PTE_DTYPE_FLOAT, 1, 4);
  pte_evalue *a5[] = {EV(xn), IL(1), NONE(), B(false), EV(on)};
  CHECK_OK(run("aten::var.correction_out", a5, 5));
  CHECK(isnan(ktest_get(on, 0)) && isnan(ktest_get(on, 1)));
  /* empty reduction -> NaN */
  pte_tensor *xe = ktest_tensor(PTE_DTYPE_FLOAT, 2, SZ(2, 0), NULL, NULL);
  pte_evalue *a6[] = {EV(xe), IL(1), NONE(), B(false), EV(on)};
  CHECK_OK(run("aten::var.correction_out", a6, 5));
  CHECK(ktest_expect_shape(on, 1, SZ(2)));
  CHECK(isnan(ktest_get(on, 0)));
  /* half: [1, 3] unbiased var 2 */
  pte_tensor *xh = ktest_tensor(PTE_DTYPE_HALF, 1, SZ(2), NULL, DV(1, 3));
  pte_tensor *oh = ktest_scalar(PTE_DTYPE_HALF);
  pte_evalue *a7[] = {EV(xh), NONE(), NONE(), B(false), EV(oh)};
  CHECK_OK(run("aten::var.correction_out", a7, 5));
  CHECK(ktest_expect(oh, DV(2), 1, 0));
  /* errors: integer self, out dtype mismatch, repeated dim */
  pte_tensor *xi = ktest_tensor(PTE_DTYPE_INT, 1, SZ(2), NULL, DV(1, 3));
  pte_tensor *oi = ktest_scalar(PTE_DTYPE_INT);
  pte_evalue *a8[] = {EV(xi), NONE(), NONE(), B(false), EV(oi)};
  CHECK_STATUS(run("aten::var.correction_out", a8, 5), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(ktest_last_msg(), "var: std and var only support floating point");
  pte_evalue *a9[] = {EV(xh), NONE(), NONE(), B(false), EV(o)};
  CHECK_STATUS(run("aten::var.correction_out", a9, 5), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(ktest_last_msg(), "var: expected out dtype");
  pte_evalue *a10[] = {EV(x), IL(1, -1), NONE(), B(false), EV(o)};
  CHECK_STATUS(run("aten::var.correction_out", a10, 5), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(ktest_last_msg(), "multiple times");
}

TEST(var_mean_two_outs) {
  pte_tensor *x = ktest_tensor(PTE_DTYPE_FLOAT, 3, SZ(2, 2, 2), NULL, DV(1, 3, 2, 6, 0, 0, 4, 8));
  pte_tensor *v = ktest_dyn(PTE_DTYPE_FLOAT, 3, 8), *m = ktest_dyn(PTE_DTYPE_FLOAT, 3, 8);
  pte_tensor *items[2] = {v, m};
  pte_evalue *ret = ktest_ev_tensor_list(items, 2);
  /* over dim 0, keepdim: pairs (1,0) (3,0) (2,4) (6,8) -> means .5 1.5 3 7, var(corr 1) .5 4.5 2 2 */
  pte_evalue *args[] = {EV(x), IL(0), I(1), B(true), EV(v), EV(m), ret};
  CHECK_OK(run("aten::var_mean.correction_out", args, 7));
  CHECK(ktest_expect_shape(v, 3, SZ(1, 2, 2)));
  CHECK(ktest_expect_shape(m, 3, SZ(1, 2, 2)));
  CHECK(ktest_expect(v, DV(0.5, 4.5, 2, 2), 4, 1e-6));
  CHECK(ktest_expect(m, DV(0.5, 1.5, 3, 7), 4, 1e-6));
  /* all dims, correction 0: mean 3, ssd 4+0+1+9+9+9+1+25 = 58 -> 7.25 */
  pte_tensor *v0 = ktest_scalar(PTE_DTYPE_FLOAT), *m0 = ktest_scalar(PTE_DTYPE_FLOAT);
  pte_evalue *a2[] = {EV(x), NONE(), I(0), B(false), EV(v0), EV(m0)};
  CHECK_OK(run("aten::var_mean.correction_out", a2, 6));
  CHECK(ktest_expect(v0, DV(7.25), 1, 1e-6));
  CHECK(ktest_expect(m0, DV(3), 1, 1e-6));
  /* mean out of another dtype */
  pte_tensor *md = ktest_scalar(PTE_DTYPE_DOUBLE);
  pte_evalue *a3[] = {EV(x), NONE(), I(0), B(false), EV(v0), EV(md)};
  CHECK_STATUS(run("aten::var_mean.correction_out", a3, 6), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(ktest_last_msg(), "var_mean: expected out1 (mean) dtype");
}

int main(void) {
  RUN(prod_all_float_and_default_dtypes);
  RUN(prod_int_dim_layouts_overflow);
  RUN(mean_dtype_out);
  RUN(max_min_unary);
  RUN(var_out_unbiased_and_dims);
  RUN(var_correction_edges);
  RUN(var_mean_two_outs);
  ktest_free_all();
  return test_summary();
}
