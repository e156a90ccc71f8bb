/* Tests for the scatter-style kernels (kernels/portable/op_scatter.c) and scatter_add
 * (op_index.c). Expected values are derived by hand (comments show how). */
#include <math.h>

#include "test.h"

#include "portable/portable_index.h"
#include "portable/portable_scatter.h"
#include "support/ktest.h"
#include "support/ktest_sugar.h"

static pte_status run(const char *name, pte_evalue **args, size_t n) {
  pte_op_fn fn = ktest_find(pte_portable_scatter_kernels, pte_portable_scatter_kernels_count, name);
  if (!fn) fn = ktest_find(pte_portable_index_kernels, pte_portable_index_kernels_count, name);
  return ktest_run(fn, args, n);
}

static pte_evalue *IX(pte_tensor *a, pte_tensor *b, pte_tensor *c, size_t n) {
  pte_tensor *ts[3] = {a, b, c};
  return ktest_ev_opt_tensor_list(ts, n);
}

TEST(table_names) {
  const char *names[] = {"aten::index_put.out",       "aten::index_put_",          "aten::select_scatter.out",
                         "aten::slice_scatter.out",   "aten::masked_scatter.out",  "aten::masked_select.out",
                         "aten::nonzero.out"};
  CHECK(ktest_table_is(pte_portable_scatter_kernels, pte_portable_scatter_kernels_count, names, sizeof names / sizeof names[0]));
}

TEST(index_put_basic) {
  pte_tensor *x = ktest_tensor(PTE_DTYPE_FLOAT, 2, SZ(3, 4), NULL, NULL);
  pte_tensor *o = ktest_dyn(PTE_DTYPE_FLOAT, 2, 16);
  pte_tensor *vals = ktest_tensor(PTE_DTYPE_FLOAT, 1, SZ(4), NULL, DV(1, 2, 3, 4));
  pte_evalue *a[] = {EV(x), IX(ktest_index1(2, DV(0, -1)), NULL, NULL, 1), EV(vals), B(false), EV(o), NULL};
  a[5] = a[4];
  CHECK_OK(run("aten::index_put.out", a, 6));
  CHECK(ktest_expect(o, DV(1, 2, 3, 4, 0, 0, 0, 0, 1, 2, 3, 4), 12, 0));
  CHECK(ktest_expect(x, DV(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0), 12, 0)); /* self untouched */
  /* two index tensors, 0-dim value */
  pte_tensor *nine = ktest_tensor(PTE_DTYPE_FLOAT, 0, NULL, NULL, DV(9));
  pte_evalue *b[] = {EV(x), IX(ktest_index1(2, DV(0, 2)), ktest_index1(2, DV(1, 3)), NULL, 2), EV(nine), B(false), EV(o)};
  CHECK_OK(run("aten::index_put.out", b, 5));
  CHECK(ktest_expect(o, DV(0, 9, 0, 0, 0, 0, 0, 0, 0, 0, 0, 9), 12, 0));
  /* None gap: x[:, [2,0]] = [[1,2],[3,4]] */
  pte_tensor *y = ktest_tensor(PTE_DTYPE_LONG, 2, SZ(2, 3), NULL, NULL);
  pte_tensor *oy = ktest_dyn(PTE_DTYPE_LONG, 2, 8);
  pte_tensor *v2 = ktest_tensor(PTE_DTYPE_LONG, 2, SZ(2, 2), NULL, DV(1, 2, 3, 4));
  pte_evalue *c[] = {EV(y), IX(NULL, ktest_index1(2, DV(2, 0)), NULL, 2), EV(v2), B(false), EV(oy)};
  CHECK_OK(run("aten::index_put.out", c, 5));
  CHECK(ktest_expect(oy, DV(2, 0, 1, 4, 0, 3), 6, 0));
  /* non-adjacent: x[[1,0], :, [3,1]] = v[b][j] -> x[1][j][3] = j, x[0][j][1] = 3 + j */
  pte_tensor *z = ktest_tensor(PTE_DTYPE_INT, 3, SZ(2, 3, 4), NULL, NULL);
  pte_tensor *oz = ktest_dyn(PTE_DTYPE_INT, 3, 32);
  pte_tensor *v3 = ktest_tensor(PTE_DTYPE_INT, 2, SZ(2, 3), NULL, DV(10, 11, 12, 13, 14, 15));
  pte_evalue *d[] = {EV(z), IX(ktest_index1(2, DV(1, 0)), NULL, ktest_index1(2, DV(3, 1)), 3), EV(v3), B(false), EV(oz)};
  CHECK_OK(run("aten::index_put.out", d, 5));
  double ez[24] = {0};
  for (int j = 0; j < 3; j++) {
    ez[12 + 4 * j + 3] = 10 + j;
    ez[4 * j + 1] = 13 + j;
  }
  CHECK(ktest_expect(oz, ez, 24, 0));
  /* bool mask picks (0,0), (0,2), (1,1) in row-major order */
  pte_tensor *m = ktest_tensor(PTE_DTYPE_BOOL, 2, SZ(2, 3), NULL, DV(1, 0, 1, 0, 1, 0));
  pte_tensor *w = ktest_tensor(PTE_DTYPE_DOUBLE, 2, SZ(2, 3), NULL, ktest_iota(6));
  pte_tensor *ow = ktest_dyn(PTE_DTYPE_DOUBLE, 2, 8);
  pte_tensor *v4 = ktest_tensor(PTE_DTYPE_DOUBLE, 1, SZ(3), NULL, DV(10, 20, 30));
  pte_evalue *e[] = {EV(w), IX(m, NULL, NULL, 1), EV(v4), B(false), EV(ow)};
  CHECK_OK(run("aten::index_put.out", e, 5));
  CHECK(ktest_expect(ow, DV(10, 1, 20, 3, 30, 5), 6, 0));
  /* channels-last self and out */
  pte_tensor *cl = ktest_tensor(PTE_DTYPE_BFLOAT16, 4, SZ(1, 2, 1, 2), ktest_cl4, ktest_iota(4));
  pte_tensor *ocl = ktest_tensor(PTE_DTYPE_BFLOAT16, 4, SZ(1, 2, 1, 2), ktest_cl4, NULL);
  pte_tensor *v5 = ktest_tensor(PTE_DTYPE_BFLOAT16, 1, SZ(2), NULL, DV(-1, -2));
  pte_evalue *f[] = {EV(cl), IX(NULL, ktest_index1(1, DV(1)), NULL, 2), EV(v5), B(false), EV(ocl)};
  CHECK_OK(run("aten::index_put.out", f, 5));
  CHECK(ktest_expect(ocl, DV(0, 1, -1, -2), 4, 0));
}

TEST(index_put_accumulate_and_inplace) {
  /* duplicates: assignment keeps the last, accumulate sums; -1 wraps to 4 */
  pte_tensor *x = ktest_tensor(PTE_DTYPE_INT, 1, SZ(5), NULL, NULL);
  pte_tensor *o = ktest_dyn(PTE_DTYPE_INT, 1, 8);
  pte_tensor *i = ktest_index1(4, DV(1, 1, 3, -1));
  pte_tensor *v = ktest_tensor(PTE_DTYPE_INT, 1, SZ(4), NULL, DV(1, 2, 3, 4));
  pte_evalue *a[] = {EV(x), IX(i, NULL, NULL, 1), EV(v), B(false), EV(o)};
  CHECK_OK(run("aten::index_put.out", a, 5));
  CHECK(ktest_expect(o, DV(0, 2, 0, 3, 4), 5, 0));
  pte_evalue *b[] = {EV(x), IX(i, NULL, NULL, 1), EV(v), B(true), EV(o)};
  CHECK_OK(run("aten::index_put.out", b, 5));
  CHECK(ktest_expect(o, DV(0, 3, 0, 3, 4), 5, 0));
  /* int8 wraps: 127 + 1 = -128 */
  pte_tensor *c8 = ktest_tensor(PTE_DTYPE_CHAR, 1, SZ(1), NULL, DV(127));
  pte_tensor *o8 = ktest_dyn(PTE_DTYPE_CHAR, 1, 2);
  pte_tensor *one8 = ktest_tensor(PTE_DTYPE_CHAR, 0, NULL, NULL, DV(1));
  pte_evalue *c[] = {EV(c8), IX(ktest_index1(1, DV(0)), NULL, NULL, 1), EV(one8), B(true), EV(o8)};
  CHECK_OK(run("aten::index_put.out", c, 5));
  CHECK(ktest_expect(o8, DV(-128), 1, 0));
  /* half rounds after each add: 2048 + 1 = 2049 -> 2048 (ties to even), twice */
  pte_tensor *h = ktest_tensor(PTE_DTYPE_HALF, 1, SZ(1), NULL, DV(2048));
  pte_tensor *oh = ktest_dyn(PTE_DTYPE_HALF, 1, 2);
  pte_tensor *ones = ktest_tensor(PTE_DTYPE_HALF, 1, SZ(2), NULL, DV(1, 1));
  pte_evalue *d[] = {EV(h), IX(ktest_index1(2, DV(0, 0)), NULL, NULL, 1), EV(ones), B(true), EV(oh)};
  CHECK_OK(run("aten::index_put.out", d, 5));
  CHECK(ktest_expect(oh, DV(2048), 1, 0));
  /* bool accumulate is a logical or */
  pte_tensor *bl = ktest_tensor(PTE_DTYPE_BOOL, 1, SZ(3), NULL, DV(1, 0, 0));
  pte_tensor *ob = ktest_dyn(PTE_DTYPE_BOOL, 1, 4);
  pte_tensor *vb = ktest_tensor(PTE_DTYPE_BOOL, 1, SZ(3), NULL, DV(1, 1, 0));
  pte_evalue *e[] = {EV(bl), IX(ktest_index1(3, DV(0, 1, 2)), NULL, NULL, 1), EV(vb), B(true), EV(ob)};
  CHECK_OK(run("aten::index_put.out", e, 5));
  CHECK(ktest_expect(ob, DV(1, 1, 0), 3, 0));
  /* in place with the return slot */
  pte_tensor *s = ktest_tensor(PTE_DTYPE_FLOAT, 2, SZ(2, 2), ktest_t2, DV(1, 2, 3, 4));
  pte_tensor *vs = ktest_tensor(PTE_DTYPE_FLOAT, 0, NULL, NULL, DV(0.5));
  pte_evalue *f[] = {EV(s), IX(ktest_index1(1, DV(1)), NULL, NULL, 1), EV(vs), B(true), ktest_ev_none()};
  CHECK_OK(run("aten::index_put_", f, 5));
  CHECK(ktest_expect(s, DV(1, 2, 3.5, 4.5), 4, 0));
  CHECK(f[4]->tag == PTE_TAG_TENSOR && f[4]->u.tensor == s);
  /* errors: nothing written on an out-of-range index */
  pte_tensor *bad = ktest_index1(2, DV(0, 5));
  pte_evalue *b1[] = {EV(s), IX(bad, NULL, NULL, 1), EV(vs), B(false)};
  CHECK_STATUS(run("aten::index_put_", b1, 4), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(ktest_last_msg(), "index_put_");
  CHECK(ktest_expect(s, DV(1, 2, 3.5, 4.5), 4, 0));
  pte_tensor *vd = ktest_tensor(PTE_DTYPE_DOUBLE, 0, NULL, NULL, DV(1));
  pte_evalue *b2[] = {EV(s), IX(ktest_index1(1, DV(0)), NULL, NULL, 1), EV(vd), B(false)};
  CHECK_STATUS(run("aten::index_put_", b2, 4), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(ktest_last_msg(), "values");
  pte_tensor *v3 = ktest_tensor(PTE_DTYPE_FLOAT, 1, SZ(3), NULL, NULL);
  pte_evalue *b3[] = {EV(s), IX(ktest_index1(1, DV(0)), NULL, NULL, 1), EV(v3), B(false)};
  CHECK_STATUS(run("aten::index_put_", b3, 4), PTE_ERR_INVALID_ARGUMENT);
  pte_tensor *fi = ktest_tensor(PTE_DTYPE_FLOAT, 1, SZ(1), NULL, NULL);
  pte_evalue *b4[] = {EV(s), IX(fi, NULL, NULL, 1), EV(vs), B(false)};
  CHECK_STATUS(run("aten::index_put_", b4, 4), PTE_ERR_INVALID_ARGUMENT);
  pte_evalue *b5[] = {EV(s), IX(ktest_index1(1, DV(0)), ktest_index1(1, DV(0)), ktest_index1(1, DV(0)), 3), EV(vs), B(false)};
  CHECK_STATUS(run("aten::index_put_", b5, 4), PTE_ERR_INVALID_ARGUMENT);
}

TEST(scatter_add) {
  /* row0: col0 += 1 + 2, col2 += 3; row1: col1 += 4 + 5 + 6 */
  pte_tensor *x = ktest_tensor(PTE_DTYPE_FLOAT, 2, SZ(2, 3), NULL, DV(0, 0, 0, 0, 0, 0.5));
  pte_tensor *i = ktest_tensor(PTE_DTYPE_LONG, 2, SZ(2, 3), NULL, DV(0, 0, 2, 1, 1, 1));
  pte_tensor *src = ktest_tensor(PTE_DTYPE_FLOAT, 2, SZ(2, 3), NULL, DV(1, 2, 3, 4, 5, 6));
  pte_tensor *o = ktest_dyn(PTE_DTYPE_FLOAT, 2, 8);
  pte_evalue *a[] = {EV(x), I(1), EV(i), EV(src), EV(o), NULL};
  a[5] = a[4];
  CHECK_OK(run("aten::scatter_add.out", a, 6));
  CHECK(ktest_expect(o, DV(3, 0, 3, 0, 15, 0.5), 6, 0));
  /* int8 wraps, bool ors, dim 0 with transposed out */
  pte_tensor *c = ktest_tensor(PTE_DTYPE_CHAR, 1, SZ(1), NULL, DV(127));
  pte_tensor *ci = ktest_tensor(PTE_DTYPE_LONG, 1, SZ(2), NULL, DV(0, 0));
  pte_tensor *cs = ktest_tensor(PTE_DTYPE_CHAR, 1, SZ(2), NULL, DV(1, 1));
  pte_tensor *co = ktest_dyn(PTE_DTYPE_CHAR, 1, 2);
  pte_evalue *b[] = {EV(c), I(0), EV(ci), EV(cs), EV(co)};
  CHECK_OK(run("aten::scatter_add.out", b, 5));
  CHECK(ktest_expect(co, DV(-127), 1, 0));
  pte_tensor *bl = ktest_tensor(PTE_DTYPE_BOOL, 2, SZ(2, 2), NULL, DV(0, 1, 0, 0));
  pte_tensor *bi = ktest_tensor(PTE_DTYPE_LONG, 2, SZ(1, 2), NULL, DV(1, 0));
  pte_tensor *bs = ktest_tensor(PTE_DTYPE_BOOL, 2, SZ(1, 2), NULL, DV(1, 1));
  pte_tensor *bo = ktest_tensor(PTE_DTYPE_BOOL, 2, SZ(2, 2), ktest_t2, NULL);
  pte_evalue *d[] = {EV(bl), I(0), EV(bi), EV(bs), EV(bo)};
  CHECK_OK(run("aten::scatter_add.out", d, 5));
  CHECK(ktest_expect(bo, DV(0, 1, 1, 0), 4, 0));
  /* errors */
  pte_tensor *ib = ktest_tensor(PTE_DTYPE_LONG, 2, SZ(1, 1), NULL, DV(3));
  pte_evalue *b1[] = {EV(x), I(1), EV(ib), EV(src), EV(o)};
  CHECK_STATUS(run("aten::scatter_add.out", b1, 5), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(ktest_last_msg(), "scatter_add");
  pte_tensor *sd = ktest_tensor(PTE_DTYPE_DOUBLE, 2, SZ(2, 3), NULL, NULL);
  pte_evalue *b2[] = {EV(x), I(1), EV(i), EV(sd), EV(o)};
  CHECK_STATUS(run("aten::scatter_add.out", b2, 5), PTE_ERR_INVALID_ARGUMENT);
  pte_tensor *i32 = ktest_tensor(PTE_DTYPE_INT, 2, SZ(2, 3), NULL, NULL);
  pte_evalue *b3[] = {EV(x), I(1), EV(i32), EV(src), EV(o)};
  CHECK_STATUS(run("aten::scatter_add.out", b3, 5), PTE_ERR_INVALID_ARGUMENT);
}

TEST(select_and_slice_scatter) {
  pte_tensor *x = ktest_tensor(PTE_DTYPE_FLOAT, 2, SZ(2, 3), NULL, NULL);
  pte_tensor *o = ktest_dyn(PTE_DTYPE_FLOAT, 2, 8);
  pte_tensor *s3 = ktest_tensor(PTE_DTYPE_FLOAT, 1, SZ(3), NULL, DV(1, 2, 3));
  pte_evalue *a[] = {EV(x), EV(s3), I(0), I(-1), EV(o), NULL};
  a[5] = a[4];
  CHECK_OK(run("aten::select_scatter.out", a, 6));
  CHECK(ktest_expect(o, DV(0, 0, 0, 1, 2, 3), 6, 0));
  /* int src converted into float self along dim 1; transposed out */
  pte_tensor *s2 = ktest_tensor(PTE_DTYPE_INT, 1, SZ(2), NULL, DV(7, -8));
  pte_tensor *ot = ktest_tensor(PTE_DTYPE_FLOAT, 2, SZ(2, 3), ktest_t2, NULL);
  pte_evalue *b[] = {EV(x), EV(s2), I(1), I(1), EV(ot)};
  CHECK_OK(run("aten::select_scatter.out", b, 5));
  CHECK(ktest_expect(ot, DV(0, 7, 0, 0, -8, 0), 6, 0));
  /* slice_scatter: positions 1, 4 of [6] */
  pte_tensor *y = ktest_tensor(PTE_DTYPE_LONG, 1, SZ(6), NULL, NULL);
  pte_tensor *oy = ktest_dyn(PTE_DTYPE_LONG, 1, 8);
  pte_tensor *sy = ktest_tensor(PTE_DTYPE_LONG, 1, SZ(2), NULL, DV(1, 2));
  pte_evalue *c[] = {EV(y), EV(sy), I(0), I(1), ktest_ev_none(), I(3), EV(oy)};
  CHECK_OK(run("aten::slice_scatter.out", c, 7));
  CHECK(ktest_expect(oy, DV(0, 1, 0, 0, 2, 0), 6, 0));
  /* [2,3] dim -1, start -2: columns 1, 2; channels-last-free 2-D with transposed src */
  pte_tensor *sz = ktest_tensor(PTE_DTYPE_FLOAT, 2, SZ(2, 2), ktest_t2, DV(5, 6, 7, 8));
  pte_evalue *d[] = {EV(x), EV(sz), I(-1), I(-2), ktest_ev_none(), I(1), EV(o)};
  CHECK_OK(run("aten::slice_scatter.out", d, 7));
  CHECK(ktest_expect(o, DV(0, 5, 6, 0, 7, 8), 6, 0));
  /* empty slice: end before start -> copy of self, src must be empty */
  pte_tensor *se = ktest_tensor(PTE_DTYPE_FLOAT, 2, SZ(2, 0), NULL, NULL);
  pte_tensor *w = ktest_tensor(PTE_DTYPE_FLOAT, 2, SZ(2, 3), NULL, ktest_iota(6));
  pte_evalue *e[] = {EV(w), EV(se), I(1), I(2), I(1), I(1), EV(o)};
  CHECK_OK(run("aten::slice_scatter.out", e, 7));
  CHECK(ktest_expect(o, ktest_iota(6), 6, 0));
  /* errors */
  pte_evalue *b1[] = {EV(x), EV(s3), I(0), I(2), EV(o)};
  CHECK_STATUS(run("aten::select_scatter.out", b1, 5), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(ktest_last_msg(), "select_scatter");
  pte_evalue *b2[] = {EV(x), EV(s2), I(0), I(0), EV(o)};
  CHECK_STATUS(run("aten::select_scatter.out", b2, 5), PTE_ERR_INVALID_ARGUMENT);
  pte_evalue *b3[] = {EV(y), EV(sy), I(0), I(0), ktest_ev_none(), I(0), EV(oy)};
  CHECK_STATUS(run("aten::slice_scatter.out", b3, 7), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(ktest_last_msg(), "slice_scatter");
  pte_evalue *b4[] = {EV(y), EV(sy), I(0), I(0), ktest_ev_none(), I(1), EV(oy)};
  CHECK_STATUS(run("aten::slice_scatter.out", b4, 7), PTE_ERR_INVALID_ARGUMENT);
  pte_evalue *b5[] = {EV(y), EV(sy), I(1), I(0), ktest_ev_none(), I(3), EV(oy)};
  CHECK_STATUS(run("aten::slice_scatter.out", b5, 7), PTE_ERR_INVALID_ARGUMENT);
}

TEST(masked_scatter) {
  pte_tensor *x = ktest_tensor(PTE_DTYPE_FLOAT, 2, SZ(2, 3), NULL, ktest_iota(6));
  pte_tensor *m = ktest_tensor(PTE_DTYPE_BOOL, 1, SZ(3), NULL, DV(1, 0, 1));
  pte_tensor *src = ktest_tensor(PTE_DTYPE_FLOAT, 1, SZ(5), NULL, DV(10, 11, 12, 13, 14));
  pte_tensor *o = ktest_dyn(PTE_DTYPE_FLOAT, 2, 8);
  pte_evalue *a[] = {EV(x), EV(m), EV(src), EV(o), NULL};
  a[4] = a[3];
  CHECK_OK(run("aten::masked_scatter.out", a, 5));
  CHECK(ktest_expect(o, DV(10, 1, 11, 12, 4, 13), 6, 0));
  /* self [3] and mask [2,1] broadcast to [2,3]; source read in row-major order (transposed) */
  pte_tensor *s1 = ktest_tensor(PTE_DTYPE_SHORT, 1, SZ(3), NULL, DV(0, 1, 2));
  pte_tensor *m2 = ktest_tensor(PTE_DTYPE_BOOL, 2, SZ(2, 1), NULL, DV(1, 0));
  pte_tensor *sr = ktest_tensor(PTE_DTYPE_SHORT, 2, SZ(2, 2), ktest_t2, DV(7, 8, 9, 10));
  pte_tensor *o2 = ktest_dyn(PTE_DTYPE_SHORT, 2, 8);
  pte_evalue *b[] = {EV(s1), EV(m2), EV(sr), EV(o2)};
  CHECK_OK(run("aten::masked_scatter.out", b, 4));
  CHECK(ktest_expect_shape(o2, 2, SZ(2, 3)));
  CHECK(ktest_expect(o2, DV(7, 8, 9, 0, 1, 2), 6, 0));
  /* errors */
  pte_tensor *small = ktest_tensor(PTE_DTYPE_FLOAT, 1, SZ(3), NULL, NULL);
  pte_evalue *b1[] = {EV(x), EV(m), EV(small), EV(o)};
  CHECK_STATUS(run("aten::masked_scatter.out", b1, 4), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(ktest_last_msg(), "masked_scatter");
  pte_tensor *mu = ktest_tensor(PTE_DTYPE_BYTE, 1, SZ(3), NULL, NULL);
  pte_evalue *b2[] = {EV(x), EV(mu), EV(src), EV(o)};
  CHECK_STATUS(run("aten::masked_scatter.out", b2, 4), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(ktest_last_msg(), "mask");
  pte_tensor *sd = ktest_tensor(PTE_DTYPE_DOUBLE, 1, SZ(5), NULL, NULL);
  pte_evalue *b3[] = {EV(x), EV(m), EV(sd), EV(o)};
  CHECK_STATUS(run("aten::masked_scatter.out", b3, 4), PTE_ERR_INVALID_ARGUMENT);
  pte_tensor *m4 = ktest_tensor(PTE_DTYPE_BOOL, 1, SZ(4), NULL, NULL);
  pte_evalue *b4[] = {EV(x), EV(m4), EV(src), EV(o)};
  CHECK_STATUS(run("aten::masked_scatter.out", b4, 4), PTE_ERR_INVALID_ARGUMENT);
}

TEST(masked_select) {
  pte_tensor *x = ktest_tensor(PTE_DTYPE_FLOAT, 2, SZ(2, 3), ktest_t2, ktest_iota(6));
  pte_tensor *m = ktest_tensor(PTE_DTYPE_BOOL, 2, SZ(2, 3), NULL, DV(1, 0, 1, 0, 0, 1));
  pte_tensor *o = ktest_dyn(PTE_DTYPE_FLOAT, 1, 8);
  pte_evalue *a[] = {EV(x), EV(m), EV(o), NULL};
  a[3] = a[2];
  CHECK_OK(run("aten::masked_select.out", a, 4));
  CHECK(ktest_expect_shape(o, 1, SZ(3)));
  CHECK(ktest_expect(o, DV(0, 2, 5), 3, 0));
  /* broadcast: self [3] x mask [2,1] all true -> self twice */
  pte_tensor *s = ktest_tensor(PTE_DTYPE_LONG, 1, SZ(3), NULL, DV(4, 5, 6));
  pte_tensor *mt = ktest_tensor(PTE_DTYPE_BOOL, 2, SZ(2, 1), NULL, DV(1, 1));
  pte_tensor *ol = ktest_dyn(PTE_DTYPE_LONG, 1, 8);
  pte_evalue *b[] = {EV(s), EV(mt), EV(ol)};
  CHECK_OK(run("aten::masked_select.out", b, 3));
  CHECK(ktest_expect(ol, DV(4, 5, 6, 4, 5, 6), 6, 0));
  /* all false -> empty */
  pte_tensor *mf = ktest_tensor(PTE_DTYPE_BOOL, 0, NULL, NULL, DV(0));
  pte_evalue *c[] = {EV(s), EV(mf), EV(ol)};
  CHECK_OK(run("aten::masked_select.out", c, 3));
  CHECK(ktest_expect_shape(ol, 1, SZ(0)));
  /* static out: fits exactly -> fine; otherwise a clear error */
  pte_tensor *st3 = ktest_tensor(PTE_DTYPE_FLOAT, 1, SZ(3), NULL, NULL);
  pte_evalue *d[] = {EV(x), EV(m), EV(st3)};
  CHECK_OK(run("aten::masked_select.out", d, 3));
  CHECK(ktest_expect(st3, DV(0, 2, 5), 3, 0));
  pte_tensor *st4 = ktest_tensor(PTE_DTYPE_FLOAT, 1, SZ(4), NULL, NULL);
  pte_evalue *b1[] = {EV(x), EV(m), EV(st4)};
  CHECK_STATUS(run("aten::masked_select.out", b1, 3), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(ktest_last_msg(), "static");
  pte_tensor *small = ktest_tensor_dyn(PTE_DTYPE_FLOAT, 1, SZ(1), NULL, 2); /* capacity 2 < 3 */
  pte_evalue *b2[] = {EV(x), EV(m), EV(small)};
  CHECK_STATUS(run("aten::masked_select.out", b2, 3), PTE_ERR_INVALID_ARGUMENT);
  pte_tensor *o2 = ktest_dyn(PTE_DTYPE_FLOAT, 2, 8);
  pte_evalue *b3[] = {EV(x), EV(m), EV(o2)};
  CHECK_STATUS(run("aten::masked_select.out", b3, 3), PTE_ERR_INVALID_ARGUMENT);
}

TEST(nonzero) {
  pte_tensor *x = ktest_tensor(PTE_DTYPE_FLOAT, 2, SZ(2, 2), NULL, DV(0, 1.5, NAN, -0.0));
  pte_tensor *o = ktest_dyn(PTE_DTYPE_LONG, 2, 16);
  pte_evalue *a[] = {EV(x), EV(o), NULL};
  a[2] = a[1];
  CHECK_OK(run("aten::nonzero.out", a, 3));
  CHECK(ktest_expect_shape(o, 2, SZ(2, 2)));
  CHECK(ktest_expect(o, DV(0, 1, 1, 0), 4, 0));
  /* 3-D int, transposed-in-memory out */
  pte_tensor *y = ktest_tensor(PTE_DTYPE_INT, 3, SZ(2, 1, 2), NULL, DV(0, 3, -1, 0));
  pte_tensor *ot = ktest_tensor_dyn(PTE_DTYPE_LONG, 2, SZ(1, 1), ktest_t2, 16);
  pte_evalue *b[] = {EV(y), EV(ot)};
  CHECK_OK(run("aten::nonzero.out", b, 2));
  CHECK(ktest_expect_shape(ot, 2, SZ(2, 3)));
  CHECK(ktest_expect(ot, DV(0, 0, 1, 1, 0, 0), 6, 0));
  /* 0-dim: [1, 0] when nonzero, [0, 0] when zero; bool input */
  pte_tensor *s = ktest_tensor(PTE_DTYPE_BOOL, 0, NULL, NULL, DV(1));
  pte_evalue *c[] = {EV(s), EV(o)};
  CHECK_OK(run("aten::nonzero.out", c, 2));
  CHECK(ktest_expect_shape(o, 2, SZ(1, 0)));
  pte_tensor *s0 = ktest_tensor(PTE_DTYPE_BFLOAT16, 0, NULL, NULL, DV(0));
  pte_evalue *d[] = {EV(s0), EV(o)};
  CHECK_OK(run("aten::nonzero.out", d, 2));
  CHECK(ktest_expect_shape(o, 2, SZ(0, 0)));
  /* errors: static out of another shape, wrong dtype, wrong rank */
  pte_tensor *st = ktest_tensor(PTE_DTYPE_LONG, 2, SZ(3, 2), NULL, NULL);
  pte_evalue *b1[] = {EV(x), EV(st)};
  CHECK_STATUS(run("aten::nonzero.out", b1, 2), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(ktest_last_msg(), "nonzero");
  CHECK_CONTAINS(ktest_last_msg(), "static");
  pte_tensor *oi = ktest_dyn(PTE_DTYPE_INT, 2, 16);
  pte_evalue *b2[] = {EV(x), EV(oi)};
  CHECK_STATUS(run("aten::nonzero.out", b2, 2), PTE_ERR_INVALID_ARGUMENT);
  pte_tensor *o1 = ktest_dyn(PTE_DTYPE_LONG, 1, 16);
  pte_evalue *b3[] = {EV(x), EV(o1)};
  CHECK_STATUS(run("aten::nonzero.out", b3, 2), PTE_ERR_INVALID_ARGUMENT);
}

int main(void) {
  RUN(table_names);
  RUN(index_put_basic);
  RUN(index_put_accumulate_and_inplace);
  RUN(scatter_add);
  RUN(select_and_slice_scatter);
  RUN(masked_scatter);
  RUN(masked_select);
  RUN(nonzero);
  ktest_free_all();
  return test_summary();
}
