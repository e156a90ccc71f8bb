/* Tests for the reduction kernels (kernels/portable/op_reduce.c). Expected values are written out
 * by hand. */
#include "test.h"

#include "portable/portable_reduce.h"
#include "support/ktest.h"
#include "support/ktest_sugar.h"

static pte_status run(const char *name, pte_evalue **args, size_t n) {
  return ktest_run(ktest_find(pte_portable_reduce_kernels, pte_portable_reduce_kernels_count, name), args, n);
}

TEST(table_names) {
  const char *names[] = {"aten::sum.IntList_out", "aten::mean.out", "aten::amax.out", "aten::amin.out",
                         "aten::argmax.out", "aten::argmin.out", "aten::any.out", "aten::any.all_out",
                         "aten::any.dims_out", "aten::max.dim_max", "aten::min.dim_min", "aten::cumsum.out",
                         "aten::mean.dtype_out", "aten::prod.out", "aten::prod.int_out", "aten::max.unary_out",
                         "aten::min.unary_out"};
  CHECK(ktest_table_is(pte_portable_reduce_kernels, pte_portable_reduce_kernels_count, names, sizeof names / sizeof names[0]));
}

/* ---- sum ---- */

TEST(sum_dims_keepdim) {
  pte_tensor *x = ktest_tensor(PTE_DTYPE_FLOAT, 2, SZ(2, 3), NULL, DV(1, 2, 3, 4, 5, 6));
  pte_tensor *o = ktest_dyn(PTE_DTYPE_FLOAT, 1, 8);
  pte_evalue *args[] = {EV(x), IL(1), B(false), NONE(), EV(o), NULL};
  args[5] = args[4];
  CHECK_OK(run("aten::sum.IntList_out", args, 6));
  CHECK(ktest_expect_shape(o, 1, SZ(2)));
  CHECK(ktest_expect(o, DV(6, 15), 2, 0));
  pte_tensor *ok = ktest_dyn(PTE_DTYPE_FLOAT, 2, 8);
  pte_evalue *args2[] = {EV(x), IL(-2), B(true), NONE(), EV(ok)};
  CHECK_OK(run("aten::sum.IntList_out", args2, 5));
  CHECK(ktest_expect_shape(ok, 2, SZ(1, 3)));
  CHECK(ktest_expect(ok, DV(5, 7, 9), 3, 0));
  /* None, [] and [0,-1] all reduce everything */
  pte_tensor *s = ktest_scalar(PTE_DTYPE_FLOAT);
  pte_evalue *args3[] = {EV(x), NONE(), B(false), NONE(), EV(s)};
  CHECK_OK(run("aten::sum.IntList_out", args3, 5));
  CHECK(ktest_expect(s, DV(21), 1, 0));
  pte_evalue *args4[] = {EV(x), EMPTY_IL(), B(false), NONE(), EV(s)};
  ((float *)s->data)[0] = 0;
  CHECK_OK(run("aten::sum.IntList_out", args4, 5));
  CHECK(ktest_expect(s, DV(21), 1, 0));
  pte_tensor *k11 = ktest_tensor(PTE_DTYPE_FLOAT, 2, SZ(1, 1), NULL, NULL);
  pte_evalue *args5[] = {EV(x), IL(0, -1), B(true), NONE(), EV(k11)};
  CHECK_OK(run("aten::sum.IntList_out", args5, 5));
  CHECK(ktest_expect(k11, DV(21), 1, 0));
}

TEST(sum_dtypes) {
  /* int8 values summed into int64 (dtype given) do not wrap at 8 bits */
  pte_tensor *c = ktest_tensor(PTE_DTYPE_CHAR, 1, SZ(3), NULL, DV(100, 100, 100));
  pte_tensor *l = ktest_scalar(PTE_DTYPE_LONG);
  pte_evalue *args[] = {EV(c), NONE(), B(false), I(PTE_DTYPE_LONG), EV(l)};
  CHECK_OK(run("aten::sum.IntList_out", args, 5));
  CHECK(ktest_expect_i64(l, (int64_t[]){300}, 1));
  /* int32 wraps like ATen */
  pte_tensor *i = ktest_tensor_i64(PTE_DTYPE_INT, 1, SZ(2), NULL, (int64_t[]){INT32_MAX, 1});
  pte_tensor *io = ktest_scalar(PTE_DTYPE_INT);
  pte_evalue *args2[] = {EV(i), NONE(), B(false), NONE(), EV(io)};
  CHECK_OK(run("aten::sum.IntList_out", args2, 5));
  CHECK(ktest_expect_i64(io, (int64_t[]){INT32_MIN}, 1));
  /* int64 exact beyond 2^53 */
  pte_tensor *big = ktest_tensor_i64(PTE_DTYPE_LONG, 1, SZ(2), NULL, (int64_t[]){(1LL << 60) + 1, 2});
  pte_evalue *args3[] = {EV(big), IL(0), B(false), NONE(), EV(l)};
  CHECK_OK(run("aten::sum.IntList_out", args3, 5));
  CHECK(ktest_expect_i64(l, (int64_t[]){(1LL << 60) + 3}, 1));
  /* bool counts into int64 */
  pte_tensor *b = ktest_tensor(PTE_DTYPE_BOOL, 1, SZ(4), NULL, DV(1, 0, 1, 1));
  pte_evalue *args4[] = {EV(b), NONE(), B(false), NONE(), EV(l)};
  CHECK_OK(run("aten::sum.IntList_out", args4, 5));
  CHECK(ktest_expect_i64(l, (int64_t[]){3}, 1));
  /* half in, float out; bf16 in and out */
  pte_tensor *h = ktest_tensor(PTE_DTYPE_HALF, 1, SZ(3), NULL, DV(0.5, 0.25, 2048));
  pte_tensor *f = ktest_scalar(PTE_DTYPE_FLOAT);
  pte_evalue *args5[] = {EV(h), NONE(), B(false), I(PTE_DTYPE_FLOAT), EV(f)};
  CHECK_OK(run("aten::sum.IntList_out", args5, 5));
  CHECK(ktest_expect(f, DV(2048.75), 1, 0));
  pte_tensor *bf = ktest_tensor(PTE_DTYPE_BFLOAT16, 1, SZ(2), NULL, DV(1, 2));
  pte_tensor *bfo = ktest_scalar(PTE_DTYPE_BFLOAT16);
  pte_evalue *args6[] = {EV(bf), NONE(), B(false), NONE(), EV(bfo)};
  CHECK_OK(run("aten::sum.IntList_out", args6, 5));
  CHECK(ktest_expect(bfo, DV(3), 1, 0));
  /* double */
  pte_tensor *d = ktest_tensor(PTE_DTYPE_DOUBLE, 1, SZ(2), NULL, DV(0.1, 0.2));
  pte_tensor *dout = ktest_scalar(PTE_DTYPE_DOUBLE);
  pte_evalue *args7[] = {EV(d), NONE(), B(false), NONE(), EV(dout)};
  CHECK_OK(run("aten::sum.IntList_out", args7, 5));
  CHECK(ktest_expect(dout, DV(0.1 + 0.2), 1, 0));
}

TEST(sum_channels_last_and_empty) {
  double v[8] = {0, 1, 2, 3, 4, 5, 6, 7};
  pte_tensor *x = ktest_tensor(PTE_DTYPE_FLOAT, 4, SZ(1, 2, 2, 2), ktest_cl4, v);
  pte_tensor *o = ktest_tensor(PTE_DTYPE_FLOAT, 4, SZ(1, 2, 1, 1), ktest_cl4, NULL);
  pte_evalue *args[] = {EV(x), IL(2, 3), B(true), NONE(), EV(o)};
  CHECK_OK(run("aten::sum.IntList_out", args, 5));
  CHECK(ktest_expect(o, DV(6, 22), 2, 0));
  pte_tensor *o2 = ktest_tensor(PTE_DTYPE_FLOAT, 3, SZ(1, 2, 2), NULL, NULL);
  pte_evalue *args2[] = {EV(x), IL(1), B(false), NONE(), EV(o2)};
  CHECK_OK(run("aten::sum.IntList_out", args2, 5));
  CHECK(ktest_expect(o2, DV(4, 6, 8, 10), 4, 0));
  /* empty reduction gives 0 */
  pte_tensor *e = ktest_tensor(PTE_DTYPE_FLOAT, 2, SZ(0, 3), NULL, NULL);
  pte_tensor *eo = ktest_tensor(PTE_DTYPE_FLOAT, 1, SZ(3), NULL, DV(9, 9, 9));
  pte_evalue *args3[] = {EV(e), IL(0), B(false), NONE(), EV(eo)};
  CHECK_OK(run("aten::sum.IntList_out", args3, 5));
  CHECK(ktest_expect(eo, DV(0, 0, 0), 3, 0));
  /* 0-dim input */
  pte_tensor *s = ktest_tensor(PTE_DTYPE_FLOAT, 0, NULL, NULL, DV(4.5));
  pte_tensor *so = ktest_scalar(PTE_DTYPE_FLOAT);
  pte_evalue *args4[] = {EV(s), IL(-1), B(true), NONE(), EV(so)};
  CHECK_OK(run("aten::sum.IntList_out", args4, 5));
  CHECK(ktest_expect(so, DV(4.5), 1, 0));
}

TEST(sum_errors) {
  pte_tensor *x = ktest_tensor(PTE_DTYPE_FLOAT, 2, SZ(2, 3), NULL, NULL);
  pte_tensor *o = ktest_dyn(PTE_DTYPE_FLOAT, 1, 8);
  pte_evalue *a1[] = {EV(x), IL(1, -1), B(false), NONE(), EV(o)};
  CHECK_STATUS(run("aten::sum.IntList_out", a1, 5), PTE_ERR_INVALID_ARGUMENT);
  pte_evalue *a2[] = {EV(x), IL(2), B(false), NONE(), EV(o)};
  CHECK_STATUS(run("aten::sum.IntList_out", a2, 5), PTE_ERR_INVALID_ARGUMENT);
  pte_evalue *a3[] = {EV(x), IL(1), B(false), I(PTE_DTYPE_DOUBLE), EV(o)};
  CHECK_STATUS(run("aten::sum.IntList_out", a3, 5), PTE_ERR_INVALID_ARGUMENT);
  pte_tensor *o2 = ktest_dyn(PTE_DTYPE_FLOAT, 2, 8); /* wrong rank */
  pte_evalue *a4[] = {EV(x), IL(1), B(false), NONE(), EV(o2)};
  CHECK_STATUS(run("aten::sum.IntList_out", a4, 5), PTE_ERR_INVALID_ARGUMENT);
  pte_evalue *a5[] = {EV(x), IL(1), B(false), NONE(), EV(o)};
  CHECK_STATUS(run("aten::sum.IntList_out", a5, 4), PTE_ERR_INVALID_ARGUMENT);
}

/* ---- mean ---- */

TEST(mean) {
  pte_tensor *x = ktest_tensor(PTE_DTYPE_FLOAT, 2, SZ(2, 3), NULL, DV(1, 2, 3, 4, 5, 6));
  pte_tensor *o = ktest_dyn(PTE_DTYPE_FLOAT, 2, 8);
  pte_evalue *args[] = {EV(x), IL(-1), B(true), NONE(), EV(o), NULL};
  args[5] = args[4];
  CHECK_OK(run("aten::mean.out", args, 6));
  CHECK(ktest_expect_shape(o, 2, SZ(2, 1)));
  CHECK(ktest_expect(o, DV(2, 5), 2, 0));
  /* the upstream_module_test_model pattern: mean over dim [-1] of FLOAT[1,2] */
  pte_tensor *m = ktest_tensor(PTE_DTYPE_FLOAT, 2, SZ(1, 2), NULL, DV(1, 2));
  pte_tensor *mo = ktest_tensor(PTE_DTYPE_FLOAT, 1, SZ(1), NULL, NULL);
  pte_evalue *args2[] = {EV(m), IL(-1), B(false), NONE(), EV(mo)};
  CHECK_OK(run("aten::mean.out", args2, 5));
  CHECK(ktest_expect(mo, DV(1.5), 1, 0));
  /* int input with dtype float */
  pte_tensor *i = ktest_tensor(PTE_DTYPE_INT, 1, SZ(2), NULL, DV(1, 2));
  pte_tensor *f = ktest_scalar(PTE_DTYPE_FLOAT);
  pte_evalue *args3[] = {EV(i), NONE(), B(false), I(PTE_DTYPE_FLOAT), EV(f)};
  CHECK_OK(run("aten::mean.out", args3, 5));
  CHECK(ktest_expect(f, DV(1.5), 1, 0));
  /* half rounding: mean(1, 2, 2) = 5/3 -> nearest half 1.6669921875 */
  pte_tensor *h = ktest_tensor(PTE_DTYPE_HALF, 1, SZ(3), NULL, DV(1, 2, 2));
  pte_tensor *ho = ktest_scalar(PTE_DTYPE_HALF);
  pte_evalue *args4[] = {EV(h), NONE(), B(false), NONE(), EV(ho)};
  CHECK_OK(run("aten::mean.out", args4, 5));
  CHECK(ktest_expect(ho, DV(1.6669921875), 1, 0));
  /* empty reduction: NaN */
  pte_tensor *e = ktest_tensor(PTE_DTYPE_DOUBLE, 2, SZ(0, 2), NULL, NULL);
  pte_tensor *eo = ktest_tensor(PTE_DTYPE_DOUBLE, 1, SZ(2), NULL, NULL);
  pte_evalue *args5[] = {EV(e), IL(0), B(false), NONE(), EV(eo)};
  CHECK_OK(run("aten::mean.out", args5, 5));
  CHECK(isnan(ktest_get(eo, 0)) && isnan(ktest_get(eo, 1)));
  /* errors: int input without dtype, int out */
  pte_evalue *b1[] = {EV(i), NONE(), B(false), NONE(), EV(f)};
  CHECK_STATUS(run("aten::mean.out", b1, 5), PTE_ERR_INVALID_ARGUMENT);
  pte_tensor *lo = ktest_scalar(PTE_DTYPE_LONG);
  pte_evalue *b2[] = {EV(i), NONE(), B(false), I(PTE_DTYPE_LONG), EV(lo)};
  CHECK_STATUS(run("aten::mean.out", b2, 5), PTE_ERR_INVALID_ARGUMENT);
}

/* ---- amax / amin ---- */

TEST(amax_amin) {
  pte_tensor *x = ktest_tensor(PTE_DTYPE_FLOAT, 2, SZ(2, 3), NULL, DV(1, 5, 3, 4, 2, 6));
  pte_tensor *o = ktest_dyn(PTE_DTYPE_FLOAT, 1, 8);
  pte_evalue *args[] = {EV(x), IL(1), B(false), EV(o), NULL};
  args[4] = args[3];
  CHECK_OK(run("aten::amax.out", args, 5));
  CHECK(ktest_expect(o, DV(5, 6), 2, 0));
  pte_evalue *args2[] = {EV(x), IL(0), B(false), EV(o)};
  CHECK_OK(run("aten::amin.out", args2, 4));
  CHECK(ktest_expect(o, DV(1, 2, 3), 3, 0));
  pte_tensor *s = ktest_scalar(PTE_DTYPE_FLOAT);
  pte_evalue *args3[] = {EV(x), EMPTY_IL(), B(false), EV(s)};
  CHECK_OK(run("aten::amax.out", args3, 4));
  CHECK(ktest_expect(s, DV(6), 1, 0));
  /* NaN propagates */
  pte_tensor *n = ktest_tensor(PTE_DTYPE_FLOAT, 1, SZ(3), NULL, DV(1, NAN, 3));
  pte_evalue *args4[] = {EV(n), IL(0), B(false), EV(s)};
  CHECK_OK(run("aten::amin.out", args4, 4));
  CHECK(isnan(ktest_get(s, 0)));
  /* int64 exact */
  pte_tensor *l = ktest_tensor_i64(PTE_DTYPE_LONG, 1, SZ(2), NULL, (int64_t[]){(1LL << 62) + 1, 1LL << 62});
  pte_tensor *lo = ktest_scalar(PTE_DTYPE_LONG);
  pte_evalue *args5[] = {EV(l), IL(0), B(false), EV(lo)};
  CHECK_OK(run("aten::amax.out", args5, 4));
  CHECK(ktest_expect_i64(lo, (int64_t[]){(1LL << 62) + 1}, 1));
  /* bool, uint8 */
  pte_tensor *b = ktest_tensor(PTE_DTYPE_BOOL, 1, SZ(3), NULL, DV(0, 1, 0));
  pte_tensor *bo = ktest_scalar(PTE_DTYPE_BOOL);
  pte_evalue *args6[] = {EV(b), IL(0), B(false), EV(bo)};
  CHECK_OK(run("aten::amax.out", args6, 4));
  CHECK(ktest_expect(bo, DV(1), 1, 0));
  pte_tensor *u = ktest_tensor(PTE_DTYPE_BYTE, 1, SZ(3), NULL, DV(200, 7, 255));
  pte_tensor *uo = ktest_scalar(PTE_DTYPE_BYTE);
  pte_evalue *args7[] = {EV(u), IL(0), B(false), EV(uo)};
  CHECK_OK(run("aten::amin.out", args7, 4));
  CHECK(ktest_expect(uo, DV(7), 1, 0));
  /* channels-last, reduce H and W */
  pte_tensor *c = ktest_tensor(PTE_DTYPE_HALF, 4, SZ(1, 2, 2, 2), ktest_cl4, DV(0, 9, 2, 3, -4, -5, -1, -7));
  pte_tensor *co = ktest_tensor(PTE_DTYPE_HALF, 4, SZ(1, 2, 1, 1), ktest_cl4, NULL);
  pte_evalue *args8[] = {EV(c), IL(-1, -2), B(true), EV(co)};
  CHECK_OK(run("aten::amax.out", args8, 4));
  CHECK(ktest_expect(co, DV(9, -1), 2, 0));
  /* errors: empty reduction, dtype mismatch */
  pte_tensor *e = ktest_tensor(PTE_DTYPE_FLOAT, 2, SZ(0, 3), NULL, NULL);
  pte_tensor *eo = ktest_dyn(PTE_DTYPE_FLOAT, 1, 4);
  pte_evalue *b1[] = {EV(e), IL(0), B(false), EV(eo)};
  CHECK_STATUS(run("aten::amax.out", b1, 4), PTE_ERR_INVALID_ARGUMENT);
  pte_evalue *b1ok[] = {EV(e), IL(1), B(false), EV(eo)};
  CHECK_OK(run("aten::amax.out", b1ok, 4));
  CHECK(ktest_expect_shape(eo, 1, SZ(0)));
  pte_evalue *b2[] = {EV(x), IL(0), B(false), EV(lo)};
  CHECK_STATUS(run("aten::amax.out", b2, 4), PTE_ERR_INVALID_ARGUMENT);
}

/* ---- argmax / argmin ---- */

TEST(argmax_argmin) {
  pte_tensor *x = ktest_tensor(PTE_DTYPE_FLOAT, 2, SZ(2, 3), NULL, DV(1, 5, 5, 4, 2, 6));
  pte_tensor *o = ktest_dyn(PTE_DTYPE_LONG, 1, 8);
  pte_evalue *args[] = {EV(x), I(1), B(false), EV(o), NULL};
  args[4] = args[3];
  CHECK_OK(run("aten::argmax.out", args, 5));
  CHECK(ktest_expect_i64(o, (int64_t[]){1, 2}, 2));
  pte_evalue *args2[] = {EV(x), I(-2), B(false), EV(o)};
  CHECK_OK(run("aten::argmin.out", args2, 4));
  CHECK(ktest_expect_i64(o, (int64_t[]){0, 1, 0}, 3));
  pte_tensor *s = ktest_scalar(PTE_DTYPE_LONG);
  pte_evalue *args3[] = {EV(x), NONE(), B(false), EV(s)};
  CHECK_OK(run("aten::argmax.out", args3, 4));
  CHECK(ktest_expect_i64(s, (int64_t[]){5}, 1));
  pte_tensor *k = ktest_tensor(PTE_DTYPE_LONG, 2, SZ(1, 1), NULL, NULL);
  pte_evalue *args4[] = {EV(x), NONE(), B(true), EV(k)};
  CHECK_OK(run("aten::argmin.out", args4, 4));
  CHECK(ktest_expect_i64(k, (int64_t[]){0}, 1));
  /* NaN wins, first one */
  pte_tensor *n = ktest_tensor(PTE_DTYPE_DOUBLE, 1, SZ(4), NULL, DV(1, NAN, 3, NAN));
  pte_evalue *args5[] = {EV(n), I(0), B(false), EV(s)};
  CHECK_OK(run("aten::argmax.out", args5, 4));
  CHECK(ktest_expect_i64(s, (int64_t[]){1}, 1));
  CHECK_OK(run("aten::argmin.out", args5, 4));
  CHECK(ktest_expect_i64(s, (int64_t[]){1}, 1));
  /* channels-last input: argmax over C of [1,3,1,2] */
  pte_tensor *c = ktest_tensor(PTE_DTYPE_INT, 4, SZ(1, 3, 1, 2), ktest_cl4, DV(1, 9, 7, 2, 3, 4));
  pte_tensor *co = ktest_tensor(PTE_DTYPE_LONG, 3, SZ(1, 1, 2), NULL, NULL);
  pte_evalue *args6[] = {EV(c), I(1), B(false), EV(co)};
  CHECK_OK(run("aten::argmax.out", args6, 4));
  CHECK(ktest_expect_i64(co, (int64_t[]){1, 0}, 2));
  /* 0-dim input */
  pte_tensor *z = ktest_tensor(PTE_DTYPE_FLOAT, 0, NULL, NULL, DV(3));
  pte_evalue *args7[] = {EV(z), I(0), B(false), EV(s)};
  CHECK_OK(run("aten::argmax.out", args7, 4));
  CHECK(ktest_expect_i64(s, (int64_t[]){0}, 1));
  /* the xor pattern: argmax over dim 1 of FLOAT[1,2] */
  pte_tensor *xp = ktest_tensor(PTE_DTYPE_FLOAT, 2, SZ(1, 2), NULL, DV(-0.5, 0.25));
  pte_tensor *xo = ktest_tensor(PTE_DTYPE_LONG, 1, SZ(1), NULL, NULL);
  pte_evalue *args8[] = {EV(xp), I(1), B(false), EV(xo), NULL};
  args8[4] = args8[3];
  CHECK_OK(run("aten::argmax.out", args8, 5));
  CHECK(ktest_expect_i64(xo, (int64_t[]){1}, 1));
  /* errors */
  pte_tensor *fo = ktest_scalar(PTE_DTYPE_FLOAT);
  pte_evalue *b1[] = {EV(x), NONE(), B(false), EV(fo)};
  CHECK_STATUS(run("aten::argmax.out", b1, 4), PTE_ERR_INVALID_ARGUMENT);
  pte_tensor *e = ktest_tensor(PTE_DTYPE_FLOAT, 1, SZ(0), NULL, NULL);
  pte_evalue *b2[] = {EV(e), NONE(), B(false), EV(s)};
  CHECK_STATUS(run("aten::argmax.out", b2, 4), PTE_ERR_INVALID_ARGUMENT);
  pte_evalue *b3[] = {EV(x), I(2), B(false), EV(o)};
  CHECK_STATUS(run("aten::argmax.out", b3, 4), PTE_ERR_INVALID_ARGUMENT);
}

/* ---- max.dim / min.dim ---- */

TEST(max_min_dim) {
  pte_tensor *x = ktest_tensor(PTE_DTYPE_FLOAT, 2, SZ(2, 3), NULL, DV(1, 5, 5, 4, 2, 6));
  pte_tensor *v = ktest_dyn(PTE_DTYPE_FLOAT, 1, 8), *ix = ktest_dyn(PTE_DTYPE_LONG, 1, 8);
  pte_tensor *rv = ktest_dyn(PTE_DTYPE_FLOAT, 1, 8), *ri = ktest_dyn(PTE_DTYPE_LONG, 1, 8);
  pte_tensor *rl[] = {rv, ri}; /* a distinct return list, as a worst case */
  pte_evalue *ret = ktest_ev_tensor_list(rl, 2);
  pte_evalue *args[] = {EV(x), I(1), B(false), EV(v), EV(ix), ret};
  CHECK_OK(run("aten::max.dim_max", args, 6));
  CHECK(ktest_expect(v, DV(5, 6), 2, 0));
  CHECK(ktest_expect_i64(ix, (int64_t[]){1, 2}, 2));
  CHECK(ret->u.tensor_list.items[0]->u.tensor == v);
  CHECK(ret->u.tensor_list.items[1]->u.tensor == ix);
  pte_tensor *vk = ktest_dyn(PTE_DTYPE_FLOAT, 2, 8), *ik = ktest_tensor_dyn(PTE_DTYPE_LONG, 2, SZ(1, 1), ktest_t2, 8);
  pte_evalue *args2[] = {EV(x), I(0), B(true), EV(vk), EV(ik)};
  CHECK_OK(run("aten::min.dim_min", args2, 5));
  CHECK(ktest_expect_shape(vk, 2, SZ(1, 3)));
  CHECK(ktest_expect(vk, DV(1, 2, 5), 3, 0));
  CHECK(ktest_expect_i64(ik, (int64_t[]){0, 1, 0}, 3));
  /* int16 and NaN */
  pte_tensor *sh = ktest_tensor(PTE_DTYPE_SHORT, 1, SZ(3), NULL, DV(-7, 3, -9));
  pte_tensor *sv = ktest_scalar(PTE_DTYPE_SHORT), *si = ktest_scalar(PTE_DTYPE_LONG);
  pte_evalue *args3[] = {EV(sh), I(0), B(false), EV(sv), EV(si)};
  CHECK_OK(run("aten::min.dim_min", args3, 5));
  CHECK(ktest_expect(sv, DV(-9), 1, 0));
  CHECK(ktest_expect_i64(si, (int64_t[]){2}, 1));
  pte_tensor *n = ktest_tensor(PTE_DTYPE_BFLOAT16, 1, SZ(3), NULL, DV(1, NAN, 3));
  pte_tensor *nv = ktest_scalar(PTE_DTYPE_BFLOAT16);
  pte_evalue *args4[] = {EV(n), I(0), B(false), EV(nv), EV(si)};
  CHECK_OK(run("aten::max.dim_max", args4, 5));
  CHECK(isnan(ktest_get(nv, 0)));
  CHECK(ktest_expect_i64(si, (int64_t[]){1}, 1));
  /* errors */
  pte_evalue *b1[] = {EV(x), I(1), B(false), EV(v), EV(v)};
  CHECK_STATUS(run("aten::max.dim_max", b1, 5), PTE_ERR_INVALID_ARGUMENT);
  pte_tensor *e = ktest_tensor(PTE_DTYPE_FLOAT, 2, SZ(2, 0), NULL, NULL);
  pte_evalue *b2[] = {EV(e), I(1), B(false), EV(v), EV(ix)};
  CHECK_STATUS(run("aten::max.dim_max", b2, 5), PTE_ERR_INVALID_ARGUMENT);
}

/* ---- any ---- */

TEST(any_variants) {
  pte_tensor *z = ktest_tensor(PTE_DTYPE_FLOAT, 1, SZ(3), NULL, DV(0, -0.0, 0));
  pte_tensor *s = ktest_scalar(PTE_DTYPE_BOOL);
  pte_evalue *args[] = {EV(z), EV(s), NULL};
  args[2] = args[1];
  CHECK_OK(run("aten::any.all_out", args, 3));
  CHECK(ktest_expect(s, DV(0), 1, 0));
  pte_tensor *n = ktest_tensor(PTE_DTYPE_FLOAT, 1, SZ(2), NULL, DV(0, NAN));
  pte_evalue *args2[] = {EV(n), EV(s)};
  CHECK_OK(run("aten::any.all_out", args2, 2));
  CHECK(ktest_expect(s, DV(1), 1, 0));
  /* any.out over dim 1, keepdim, uint8 out */
  pte_tensor *x = ktest_tensor(PTE_DTYPE_LONG, 2, SZ(2, 3), NULL, DV(0, 0, 0, 0, 7, 0));
  pte_tensor *o = ktest_dyn(PTE_DTYPE_BYTE, 2, 8);
  pte_evalue *args3[] = {EV(x), I(1), B(true), EV(o)};
  CHECK_OK(run("aten::any.out", args3, 4));
  CHECK(ktest_expect_shape(o, 2, SZ(2, 1)));
  CHECK(ktest_expect(o, DV(0, 1), 2, 0));
  /* any.dims: None = all; [] = elementwise; [0] */
  pte_tensor *b = ktest_tensor(PTE_DTYPE_BOOL, 2, SZ(2, 3), ktest_t2, DV(1, 0, 1, 1, 0, 0));
  pte_evalue *args4[] = {EV(b), NONE(), B(false), EV(s)};
  CHECK_OK(run("aten::any.dims_out", args4, 4));
  CHECK(ktest_expect(s, DV(1), 1, 0));
  pte_tensor *ob = ktest_dyn(PTE_DTYPE_BOOL, 2, 8);
  pte_evalue *args5[] = {EV(x), EMPTY_IL(), B(false), EV(ob)};
  CHECK_OK(run("aten::any.dims_out", args5, 4));
  CHECK(ktest_expect_shape(ob, 2, SZ(2, 3)));
  CHECK(ktest_expect(ob, DV(0, 0, 0, 0, 1, 0), 6, 0));
  pte_tensor *o1 = ktest_dyn(PTE_DTYPE_BOOL, 1, 8);
  pte_evalue *args6[] = {EV(b), IL(0), B(false), EV(o1)};
  CHECK_OK(run("aten::any.dims_out", args6, 4));
  CHECK(ktest_expect(o1, DV(1, 0, 1), 3, 0));
  /* empty reduce gives false */
  pte_tensor *e = ktest_tensor(PTE_DTYPE_FLOAT, 2, SZ(0, 3), NULL, NULL);
  pte_evalue *args7[] = {EV(e), I(0), B(false), EV(o1)};
  CHECK_OK(run("aten::any.out", args7, 4));
  CHECK(ktest_expect(o1, DV(0, 0, 0), 3, 0));
  /* errors: float out, bad dim */
  pte_tensor *fo = ktest_scalar(PTE_DTYPE_FLOAT);
  pte_evalue *b1[] = {EV(x), EV(fo)};
  CHECK_STATUS(run("aten::any.all_out", b1, 2), PTE_ERR_INVALID_ARGUMENT);
  pte_evalue *b2[] = {EV(x), I(2), B(false), EV(o1)};
  CHECK_STATUS(run("aten::any.out", b2, 4), PTE_ERR_INVALID_ARGUMENT);
}

/* ---- cumsum ---- */

TEST(cumsum) {
  pte_tensor *x = ktest_tensor(PTE_DTYPE_FLOAT, 2, SZ(2, 3), NULL, DV(1, 2, 3, 4, 5, 6));
  pte_tensor *o = ktest_dyn(PTE_DTYPE_FLOAT, 2, 8);
  pte_evalue *args[] = {EV(x), I(1), NONE(), EV(o), NULL};
  args[4] = args[3];
  CHECK_OK(run("aten::cumsum.out", args, 5));
  CHECK(ktest_expect(o, DV(1, 3, 6, 4, 9, 15), 6, 0));
  pte_evalue *args2[] = {EV(x), I(-2), NONE(), EV(o)};
  CHECK_OK(run("aten::cumsum.out", args2, 4));
  CHECK(ktest_expect(o, DV(1, 2, 3, 5, 7, 9), 6, 0));
  /* column-major input into a column-major out */
  pte_tensor *cm = ktest_tensor(PTE_DTYPE_INT, 2, SZ(2, 3), ktest_t2, DV(1, 2, 3, 4, 5, 6));
  pte_tensor *co = ktest_tensor(PTE_DTYPE_LONG, 2, SZ(2, 3), ktest_t2, NULL);
  pte_evalue *args3[] = {EV(cm), I(1), I(PTE_DTYPE_LONG), EV(co)};
  CHECK_OK(run("aten::cumsum.out", args3, 4));
  CHECK(ktest_expect_i64(co, (int64_t[]){1, 3, 6, 4, 9, 15}, 6));
  /* float into int truncates each element first */
  pte_tensor *f = ktest_tensor(PTE_DTYPE_FLOAT, 1, SZ(3), NULL, DV(1.5, 2.5, -0.5));
  pte_tensor *fo = ktest_tensor(PTE_DTYPE_INT, 1, SZ(3), NULL, NULL);
  pte_evalue *args4[] = {EV(f), I(0), I(PTE_DTYPE_INT), EV(fo)};
  CHECK_OK(run("aten::cumsum.out", args4, 4));
  CHECK(ktest_expect(fo, DV(1, 3, 3), 3, 0));
  /* 0-dim */
  pte_tensor *s = ktest_tensor(PTE_DTYPE_DOUBLE, 0, NULL, NULL, DV(2.5));
  pte_tensor *so = ktest_scalar(PTE_DTYPE_DOUBLE);
  pte_evalue *args5[] = {EV(s), I(-1), NONE(), EV(so)};
  CHECK_OK(run("aten::cumsum.out", args5, 4));
  CHECK(ktest_expect(so, DV(2.5), 1, 0));
  /* errors */
  pte_evalue *b1[] = {EV(x), I(1), I(PTE_DTYPE_DOUBLE), EV(o)};
  CHECK_STATUS(run("aten::cumsum.out", b1, 4), PTE_ERR_INVALID_ARGUMENT);
  pte_evalue *b2[] = {EV(x), I(2), NONE(), EV(o)};
  CHECK_STATUS(run("aten::cumsum.out", b2, 4), PTE_ERR_INVALID_ARGUMENT);
  pte_tensor *bo = ktest_tensor(PTE_DTYPE_BOOL, 2, SZ(2, 3), NULL, NULL);
  pte_evalue *b3[] = {EV(x), I(1), NONE(), EV(bo)};
  CHECK_STATUS(run("aten::cumsum.out", b3, 4), PTE_ERR_INVALID_ARGUMENT);
}

int main(void) {
  RUN(table_names);
  RUN(sum_dims_keepdim);
  RUN(sum_dtypes);
  RUN(sum_channels_last_and_empty);
  RUN(sum_errors);
  RUN(mean);
  RUN(amax_amin);
  RUN(argmax_argmin);
  RUN(max_min_dim);
  RUN(any_variants);
  RUN(cumsum);
  ktest_free_all();
  return test_summary();
}
