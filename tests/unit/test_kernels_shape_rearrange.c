/* Tests for the rearrangement kernels (kernels/portable/op_rearrange.c): roll, pixel_shuffle,
 * pixel_unshuffle, repeat_interleave, tril, topk. Expected values derived by hand. */
#include <math.h>

#include "test.h"

#include "portable/portable_rearrange.h"
#include "support/ktest.h"
#include "support/ktest_sugar.h"

static pte_status run(const char *name, pte_evalue **args, size_t n) {
  return ktest_run(ktest_find(pte_portable_rearrange_kernels, pte_portable_rearrange_kernels_count, name), args, n);
}

TEST(table_names) {
  const char *names[] = {"aten::roll.out", "aten::pixel_shuffle.out", "aten::pixel_unshuffle.out",
                         "aten::repeat_interleave.Tensor_out", "aten::tril.out", "aten::topk.values"};
  CHECK(ktest_table_is(pte_portable_rearrange_kernels, pte_portable_rearrange_kernels_count, names, sizeof names / sizeof names[0]));
}

TEST(roll) {
  pte_tensor *x = ktest_tensor(PTE_DTYPE_FLOAT, 2, SZ(2, 3), NULL, ktest_iota(6));
  pte_tensor *o = ktest_dyn(PTE_DTYPE_FLOAT, 2, 8);
  pte_evalue *a[] = {EV(x), IL(1), IL(1), EV(o), NULL};
  a[4] = a[3];
  CHECK_OK(run("aten::roll.out", a, 5));
  CHECK(ktest_expect(o, DV(2, 0, 1, 5, 3, 4), 6, 0));
  pte_evalue *b[] = {EV(x), IL(-1), IL(), EV(o)}; /* flattened */
  CHECK_OK(run("aten::roll.out", b, 4));
  CHECK(ktest_expect(o, DV(1, 2, 3, 4, 5, 0), 6, 0));
  pte_evalue *c[] = {EV(x), IL(1, -1), IL(0, 1), EV(o)}; /* rows down 1, cols left 1 */
  CHECK_OK(run("aten::roll.out", c, 4));
  CHECK(ktest_expect(o, DV(4, 5, 3, 1, 2, 0), 6, 0));
  pte_evalue *d[] = {EV(x), IL(1, 1), IL(-1, 1), EV(o)}; /* same dim twice: shift 2 */
  CHECK_OK(run("aten::roll.out", d, 4));
  CHECK(ktest_expect(o, DV(1, 2, 0, 4, 5, 3), 6, 0));
  pte_evalue *e[] = {EV(x), IL(7), IL(1), EV(o)}; /* 7 mod 3 = 1 */
  CHECK_OK(run("aten::roll.out", e, 4));
  CHECK(ktest_expect(o, DV(2, 0, 1, 5, 3, 4), 6, 0));
  /* transposed storage, flattened roll by 2 of logical 0..5 */
  for (size_t k = 0; k < KTEST_N_NUM_DTYPES; k++) {
    pte_tensor *t = ktest_tensor(ktest_num_dtypes[k], 2, SZ(2, 3), ktest_t2, ktest_iota(6));
    pte_tensor *ot = ktest_tensor(ktest_num_dtypes[k], 2, SZ(2, 3), ktest_t2, NULL);
    pte_evalue *f[] = {EV(t), IL(2), IL(), EV(ot)};
    CHECK_OK(run("aten::roll.out", f, 4));
    CHECK_MSG(ktest_expect(ot, DV(4, 5, 0, 1, 2, 3), 6, 0), "dtype %d", ktest_num_dtypes[k]);
    pte_evalue *g[] = {EV(t), IL(-4), IL(0), EV(ot)}; /* -4 mod 2 = 0: identity */
    CHECK_OK(run("aten::roll.out", g, 4));
    CHECK_MSG(ktest_expect(ot, ktest_iota(6), 6, 0), "dtype %d", ktest_num_dtypes[k]);
  }
  /* empty tensor */
  pte_tensor *z = ktest_tensor(PTE_DTYPE_FLOAT, 2, SZ(0, 3), NULL, NULL);
  pte_evalue *h[] = {EV(z), IL(1), IL(0), EV(o)};
  CHECK_OK(run("aten::roll.out", h, 4));
  CHECK(ktest_expect_shape(o, 2, SZ(0, 3)));
  /* errors */
  pte_evalue *b1[] = {EV(x), IL(1, 2), IL(0), EV(o)};
  CHECK_STATUS(run("aten::roll.out", b1, 4), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(ktest_last_msg(), "roll");
  pte_evalue *b2[] = {EV(x), IL(1), IL(2), EV(o)};
  CHECK_STATUS(run("aten::roll.out", b2, 4), PTE_ERR_INVALID_ARGUMENT);
  pte_evalue *b3[] = {EV(x), IL(1, 1), IL(), EV(o)};
  CHECK_STATUS(run("aten::roll.out", b3, 4), PTE_ERR_INVALID_ARGUMENT);
}

TEST(pixel_shuffle_unshuffle) {
  /* in[c][0][w] = 2c + w; out[0][i][2w + j] = in[2i + j][0][w] */
  const double shuffled[8] = {0, 2, 1, 3, 4, 6, 5, 7};
  pte_tensor *x = ktest_tensor(PTE_DTYPE_FLOAT, 4, SZ(1, 4, 1, 2), NULL, ktest_iota(8));
  pte_tensor *o = ktest_dyn(PTE_DTYPE_FLOAT, 4, 8);
  pte_evalue *a[] = {EV(x), I(2), EV(o)};
  CHECK_OK(run("aten::pixel_shuffle.out", a, 3));
  CHECK(ktest_expect_shape(o, 4, SZ(1, 1, 2, 4)));
  CHECK(ktest_expect(o, shuffled, 8, 0));
  pte_tensor *back = ktest_dyn(PTE_DTYPE_FLOAT, 4, 8);
  pte_evalue *b[] = {EV(o), I(2), EV(back)};
  CHECK_OK(run("aten::pixel_unshuffle.out", b, 3));
  CHECK(ktest_expect_shape(back, 4, SZ(1, 4, 1, 2)));
  CHECK(ktest_expect(back, ktest_iota(8), 8, 0));
  /* every dtype, channels-last in and out */
  for (size_t k = 0; k < KTEST_N_NUM_DTYPES; k++) {
    pte_tensor *t = ktest_tensor(ktest_num_dtypes[k], 4, SZ(1, 4, 1, 2), ktest_cl4, ktest_iota(8));
    pte_tensor *ot = ktest_tensor(ktest_num_dtypes[k], 4, SZ(1, 1, 2, 4), ktest_cl4, NULL);
    pte_evalue *c[] = {EV(t), I(2), EV(ot)};
    CHECK_OK(run("aten::pixel_shuffle.out", c, 3));
    CHECK_MSG(ktest_expect(ot, shuffled, 8, 0), "dtype %d", ktest_num_dtypes[k]);
    pte_tensor *ob = ktest_tensor(ktest_num_dtypes[k], 4, SZ(1, 4, 1, 2), ktest_cl4, NULL);
    pte_evalue *d[] = {EV(ot), I(2), EV(ob)};
    CHECK_OK(run("aten::pixel_unshuffle.out", d, 3));
    CHECK_MSG(ktest_expect(ob, ktest_iota(8), 8, 0), "dtype %d", ktest_num_dtypes[k]);
  }
  /* no batch (3-D) and two batch dims (5-D); r = 1 is the identity */
  pte_tensor *y = ktest_tensor(PTE_DTYPE_LONG, 3, SZ(4, 1, 2), NULL, ktest_iota(8));
  pte_tensor *o3 = ktest_dyn(PTE_DTYPE_LONG, 3, 8);
  pte_evalue *e[] = {EV(y), I(2), EV(o3)};
  CHECK_OK(run("aten::pixel_shuffle.out", e, 3));
  CHECK(ktest_expect_shape(o3, 3, SZ(1, 2, 4)));
  CHECK(ktest_expect(o3, shuffled, 8, 0));
  pte_tensor *y5 = ktest_tensor(PTE_DTYPE_INT, 5, SZ(2, 1, 4, 1, 2), NULL, ktest_iota(16));
  pte_tensor *o5 = ktest_dyn(PTE_DTYPE_INT, 5, 16);
  pte_evalue *f[] = {EV(y5), I(2), EV(o5)};
  CHECK_OK(run("aten::pixel_shuffle.out", f, 3));
  CHECK(ktest_expect(o5, DV(0, 2, 1, 3, 4, 6, 5, 7, 8, 10, 9, 11, 12, 14, 13, 15), 16, 0));
  pte_evalue *g[] = {EV(y5), I(1), EV(o5)};
  CHECK_OK(run("aten::pixel_unshuffle.out", g, 3));
  CHECK(ktest_expect(o5, ktest_iota(16), 16, 0));
  /* unshuffle [1,1,4,4] by 2: out[c=2i+j][h][w] = in[2h+i][2w+j] with in = 4r + c */
  pte_tensor *s = ktest_tensor(PTE_DTYPE_DOUBLE, 4, SZ(1, 1, 4, 4), NULL, ktest_iota(16));
  pte_tensor *os = ktest_dyn(PTE_DTYPE_DOUBLE, 4, 16);
  pte_evalue *h[] = {EV(s), I(2), EV(os)};
  CHECK_OK(run("aten::pixel_unshuffle.out", h, 3));
  CHECK(ktest_expect_shape(os, 4, SZ(1, 4, 2, 2)));
  CHECK(ktest_expect(os, DV(0, 2, 8, 10, 1, 3, 9, 11, 4, 6, 12, 14, 5, 7, 13, 15), 16, 0));
  /* errors */
  pte_evalue *b1[] = {EV(x), I(3), EV(o)};
  CHECK_STATUS(run("aten::pixel_shuffle.out", b1, 3), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(ktest_last_msg(), "pixel_shuffle");
  pte_evalue *b2[] = {EV(x), I(0), EV(o)};
  CHECK_STATUS(run("aten::pixel_shuffle.out", b2, 3), PTE_ERR_INVALID_ARGUMENT);
  pte_evalue *b3[] = {EV(x), I(2), EV(o)}; /* H = 1 not divisible by 2 */
  CHECK_STATUS(run("aten::pixel_unshuffle.out", b3, 3), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(ktest_last_msg(), "pixel_unshuffle");
  pte_tensor *v2 = ktest_tensor(PTE_DTYPE_FLOAT, 2, SZ(4, 4), NULL, NULL);
  pte_evalue *b4[] = {EV(v2), I(2), EV(o)};
  CHECK_STATUS(run("aten::pixel_shuffle.out", b4, 3), PTE_ERR_INVALID_ARGUMENT);
}

TEST(repeat_interleave) {
  pte_tensor *r = ktest_tensor(PTE_DTYPE_LONG, 1, SZ(3), NULL, DV(2, 0, 3));
  pte_tensor *o = ktest_dyn(PTE_DTYPE_LONG, 1, 8);
  pte_evalue *a[] = {EV(r), ktest_ev_none(), EV(o), NULL};
  a[3] = a[2];
  CHECK_OK(run("aten::repeat_interleave.Tensor_out", a, 4));
  CHECK(ktest_expect_shape(o, 1, SZ(5)));
  CHECK(ktest_expect(o, DV(0, 0, 2, 2, 2), 5, 0));
  pte_tensor *r32 = ktest_tensor(PTE_DTYPE_INT, 1, SZ(2), NULL, DV(1, 2));
  pte_tensor *o32 = ktest_dyn(PTE_DTYPE_INT, 1, 8);
  pte_evalue *b[] = {EV(r32), I(3), EV(o32)};
  CHECK_OK(run("aten::repeat_interleave.Tensor_out", b, 3));
  CHECK(ktest_expect(o32, DV(0, 1, 1), 3, 0));
  pte_tensor *r0 = ktest_tensor(PTE_DTYPE_LONG, 1, SZ(0), NULL, NULL);
  pte_evalue *c[] = {EV(r0), ktest_ev_none(), EV(o)};
  CHECK_OK(run("aten::repeat_interleave.Tensor_out", c, 3));
  CHECK(ktest_expect_shape(o, 1, SZ(0)));
  /* errors */
  pte_evalue *b1[] = {EV(r32), I(4), EV(o32)};
  CHECK_STATUS(run("aten::repeat_interleave.Tensor_out", b1, 3), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(ktest_last_msg(), "output_size");
  pte_tensor *neg = ktest_tensor(PTE_DTYPE_LONG, 1, SZ(2), NULL, DV(1, -1));
  pte_evalue *b2[] = {EV(neg), ktest_ev_none(), EV(o)};
  CHECK_STATUS(run("aten::repeat_interleave.Tensor_out", b2, 3), PTE_ERR_INVALID_ARGUMENT);
  pte_tensor *fl = ktest_tensor(PTE_DTYPE_FLOAT, 1, SZ(2), NULL, DV(1, 1));
  pte_evalue *b3[] = {EV(fl), ktest_ev_none(), EV(o)};
  CHECK_STATUS(run("aten::repeat_interleave.Tensor_out", b3, 3), PTE_ERR_INVALID_ARGUMENT);
  pte_evalue *b4[] = {EV(r), ktest_ev_none(), EV(o32)};
  CHECK_STATUS(run("aten::repeat_interleave.Tensor_out", b4, 3), PTE_ERR_INVALID_ARGUMENT);
  pte_tensor *st = ktest_tensor(PTE_DTYPE_LONG, 1, SZ(4), NULL, NULL); /* static, needs 5 */
  pte_evalue *b5[] = {EV(r), ktest_ev_none(), EV(st)};
  CHECK_STATUS(run("aten::repeat_interleave.Tensor_out", b5, 3), PTE_ERR_INVALID_ARGUMENT);
  pte_tensor *r2 = ktest_tensor(PTE_DTYPE_LONG, 2, SZ(1, 2), NULL, DV(1, 1));
  pte_evalue *b6[] = {EV(r2), ktest_ev_none(), EV(o)};
  CHECK_STATUS(run("aten::repeat_interleave.Tensor_out", b6, 3), PTE_ERR_INVALID_ARGUMENT);
}

TEST(tril) {
  double v[12];
  for (int i = 0; i < 12; i++) v[i] = i + 1;
  pte_tensor *x = ktest_tensor(PTE_DTYPE_FLOAT, 2, SZ(3, 4), NULL, v);
  pte_tensor *o = ktest_dyn(PTE_DTYPE_FLOAT, 2, 12);
  pte_evalue *a[] = {EV(x), I(0), EV(o)};
  CHECK_OK(run("aten::tril.out", a, 3));
  CHECK(ktest_expect(o, DV(1, 0, 0, 0, 5, 6, 0, 0, 9, 10, 11, 0), 12, 0));
  pte_evalue *b[] = {EV(x), I(-1), EV(o)};
  CHECK_OK(run("aten::tril.out", b, 3));
  CHECK(ktest_expect(o, DV(0, 0, 0, 0, 5, 0, 0, 0, 9, 10, 0, 0), 12, 0));
  pte_evalue *c[] = {EV(x), I(2), EV(o)};
  CHECK_OK(run("aten::tril.out", c, 3));
  CHECK(ktest_expect(o, DV(1, 2, 3, 0, 5, 6, 7, 8, 9, 10, 11, 12), 12, 0));
  pte_evalue *d[] = {EV(x), I(-5), EV(o)};
  CHECK_OK(run("aten::tril.out", d, 3));
  CHECK(ktest_expect(o, DV(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0), 12, 0));
  /* extreme diagonals clamp (no overflow) */
  pte_evalue *d2[] = {EV(x), I(INT64_MAX), EV(o)};
  CHECK_OK(run("aten::tril.out", d2, 3));
  CHECK(ktest_expect(o, v, 12, 0));
  pte_evalue *d3[] = {EV(x), I(INT64_MIN), EV(o)};
  CHECK_OK(run("aten::tril.out", d3, 3));
  CHECK(ktest_expect(o, DV(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0), 12, 0));
  /* NaN above the diagonal becomes 0; below it stays NaN */
  pte_tensor *n = ktest_tensor(PTE_DTYPE_DOUBLE, 2, SZ(2, 2), NULL, DV(NAN, NAN, NAN, -0.0));
  pte_tensor *on = ktest_dyn(PTE_DTYPE_DOUBLE, 2, 4);
  pte_evalue *e[] = {EV(n), I(0), EV(on)};
  CHECK_OK(run("aten::tril.out", e, 3));
  CHECK(ktest_expect(on, DV(NAN, 0, NAN, -0.0), 4, 0));
  /* every dtype + bool, batched, channels-last in / contiguous out */
  for (size_t k = 0; k <= KTEST_N_NUM_DTYPES; k++) {
    int dt = k < KTEST_N_NUM_DTYPES ? ktest_num_dtypes[k] : PTE_DTYPE_BOOL;
    pte_tensor *t = ktest_tensor(dt, 4, SZ(2, 1, 2, 2), ktest_cl4, DV(1, 1, 1, 1, 1, 0, 1, 1));
    pte_tensor *ot = ktest_dyn(dt, 4, 8);
    pte_evalue *f[] = {EV(t), I(0), EV(ot)};
    CHECK_OK(run("aten::tril.out", f, 3));
    CHECK_MSG(ktest_expect(ot, DV(1, 0, 1, 1, 1, 0, 1, 1), 8, 0), "dtype %d", dt);
  }
  /* errors */
  pte_tensor *v1 = ktest_tensor(PTE_DTYPE_FLOAT, 1, SZ(3), NULL, NULL);
  pte_evalue *b1[] = {EV(v1), I(0), EV(o)};
  CHECK_STATUS(run("aten::tril.out", b1, 3), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(ktest_last_msg(), "tril");
  pte_tensor *od = ktest_dyn(PTE_DTYPE_DOUBLE, 2, 12);
  pte_evalue *b2[] = {EV(x), I(0), EV(od)};
  CHECK_STATUS(run("aten::tril.out", b2, 3), PTE_ERR_INVALID_ARGUMENT);
}

/* runs topk and checks values + indices */
static bool topk_case(pte_tensor *x, int64_t k, int64_t dim, bool largest, int32_t odim, const int32_t *osz,
                      const double *vals, const double *idx, size_t n) {
  pte_tensor *v = ktest_dyn(x->dtype, odim, 32);
  pte_tensor *ix = ktest_dyn(PTE_DTYPE_LONG, odim, 32);
  pte_tensor *outs[2] = {v, ix};
  pte_evalue *ret = ktest_ev_tensor_list(outs, 2);
  pte_evalue *a[] = {EV(x), I(k), I(dim), B(largest), B(true), EV(v), EV(ix), ret};
  if (run("aten::topk.values", a, 8) != PTE_OK) {
    fprintf(stderr, "topk failed: %s\n", ktest_last_msg());
    return false;
  }
  return ktest_expect_shape(v, odim, osz) && ktest_expect_shape(ix, odim, osz) && ktest_expect(v, vals, n, 0) &&
         ktest_expect(ix, idx, n, 0);
}

TEST(topk) {
  pte_tensor *x = ktest_tensor(PTE_DTYPE_FLOAT, 1, SZ(8), NULL, DV(3, 1, 4, 1, 5, 9, 2, 6));
  CHECK(topk_case(x, 3, -1, true, 1, SZ(3), DV(9, 6, 5), DV(5, 7, 4), 3));
  CHECK(topk_case(x, 3, 0, false, 1, SZ(3), DV(1, 1, 2), DV(1, 3, 6), 3)); /* tie: lower index first */
  CHECK(topk_case(x, 8, 0, true, 1, SZ(8), DV(9, 6, 5, 4, 3, 2, 1, 1), DV(5, 7, 4, 2, 0, 6, 1, 3), 8));
  CHECK(topk_case(x, 0, 0, true, 1, SZ(0), DV(0), DV(0), 0));
  /* NaN is the largest value */
  pte_tensor *n = ktest_tensor(PTE_DTYPE_DOUBLE, 1, SZ(5), NULL, DV(1, NAN, 3, NAN, 2));
  CHECK(topk_case(n, 3, 0, true, 1, SZ(3), DV(NAN, NAN, 3), DV(1, 3, 2), 3));
  CHECK(topk_case(n, 4, 0, false, 1, SZ(4), DV(1, 2, 3, NAN), DV(0, 4, 2, 1), 4));
  /* -0 and 0 compare equal: index order */
  pte_tensor *z = ktest_tensor(PTE_DTYPE_FLOAT, 1, SZ(3), NULL, DV(-0.0, 0.0, -1.0 / 0.0));
  CHECK(topk_case(z, 3, 0, true, 1, SZ(3), DV(-0.0, 0.0, -1.0 / 0.0), DV(0, 1, 2), 3));
  /* 2-D along dim 0, transposed storage */
  pte_tensor *m = ktest_tensor(PTE_DTYPE_INT, 2, SZ(3, 2), ktest_t2, DV(1, 5, 3, 2, 2, 9));
  CHECK(topk_case(m, 2, 0, true, 2, SZ(2, 2), DV(3, 9, 2, 5), DV(1, 2, 2, 0), 4));
  CHECK(topk_case(m, 1, 1, false, 2, SZ(3, 1), DV(1, 2, 2), DV(0, 1, 0), 3));
  /* integer extremes, every dtype on small values */
  pte_tensor *c = ktest_tensor(PTE_DTYPE_CHAR, 1, SZ(3), NULL, DV(-128, 127, 0));
  CHECK(topk_case(c, 1, 0, true, 1, SZ(1), DV(127), DV(1), 1));
  CHECK(topk_case(c, 1, 0, false, 1, SZ(1), DV(-128), DV(0), 1));
  pte_tensor *big = ktest_tensor_i64(PTE_DTYPE_LONG, 1, SZ(3), NULL, (int64_t[]){INT64_MAX, INT64_MAX - 1, INT64_MIN});
  pte_tensor *bv = ktest_dyn(PTE_DTYPE_LONG, 1, 4), *bi = ktest_dyn(PTE_DTYPE_LONG, 1, 4);
  pte_evalue *ba[] = {EV(big), I(2), I(0), B(true), B(false), EV(bv), EV(bi)};
  CHECK_OK(run("aten::topk.values", ba, 7));
  CHECK(ktest_expect_i64(bv, (int64_t[]){INT64_MAX, INT64_MAX - 1}, 2));
  for (size_t k = 0; k < KTEST_N_NUM_DTYPES; k++) {
    pte_tensor *t = ktest_tensor(ktest_num_dtypes[k], 2, SZ(2, 3), NULL, DV(2, 7, 5, 1, 0, 3));
    CHECK_MSG(topk_case(t, 2, 1, true, 2, SZ(2, 2), DV(7, 5, 3, 1), DV(1, 2, 2, 0), 4), "dtype %d", ktest_num_dtypes[k]);
  }
  /* 0-dim self */
  pte_tensor *s = ktest_tensor(PTE_DTYPE_FLOAT, 0, NULL, NULL, DV(4));
  CHECK(topk_case(s, 1, 0, true, 0, NULL, DV(4), DV(0), 1));
  /* errors */
  pte_tensor *v = ktest_dyn(PTE_DTYPE_FLOAT, 1, 16), *ix = ktest_dyn(PTE_DTYPE_LONG, 1, 16), *i32 = ktest_dyn(PTE_DTYPE_INT, 1, 16);
  pte_evalue *b1[] = {EV(x), I(9), I(0), B(true), B(true), EV(v), EV(ix)};
  CHECK_STATUS(run("aten::topk.values", b1, 7), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(ktest_last_msg(), "topk");
  pte_evalue *b2[] = {EV(x), I(1), I(1), B(true), B(true), EV(v), EV(ix)};
  CHECK_STATUS(run("aten::topk.values", b2, 7), PTE_ERR_INVALID_ARGUMENT);
  pte_evalue *b3[] = {EV(x), I(1), I(0), B(true), B(true), EV(v), EV(i32)};
  CHECK_STATUS(run("aten::topk.values", b3, 7), PTE_ERR_INVALID_ARGUMENT);
  pte_tensor *bl = ktest_tensor(PTE_DTYPE_BOOL, 1, SZ(2), NULL, NULL), *bo = ktest_dyn(PTE_DTYPE_BOOL, 1, 4);
  pte_evalue *b4[] = {EV(bl), I(1), I(0), B(true), B(true), EV(bo), EV(ix)};
  CHECK_STATUS(run("aten::topk.values", b4, 7), PTE_ERR_INVALID_ARGUMENT);
  pte_evalue *b5[] = {EV(x), I(-1), I(0), B(true), B(true), EV(v), EV(ix)};
  CHECK_STATUS(run("aten::topk.values", b5, 7), PTE_ERR_INVALID_ARGUMENT);
}

int main(void) {
  RUN(table_names);
  RUN(roll);
  RUN(pixel_shuffle_unshuffle);
  RUN(repeat_interleave);
  RUN(tril);
  RUN(topk);
  ktest_free_all();
  return test_summary();
}
