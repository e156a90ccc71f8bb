/* Tests for the indexing kernels (kernels/portable/op_index.c). Expected values are written out
 * by hand. */
#include "test.h"

#include "portable/portable_index.h"
#include "support/ktest.h"
#include "support/ktest_sugar.h"

static pte_status run(const char *name, pte_evalue **args, size_t n) {
  return ktest_run(ktest_find(pte_portable_index_kernels, pte_portable_index_kernels_count, name), args, n);
}

TEST(table_names) {
  const char *names[] = {"aten::index.Tensor_out", "aten::index_select.out", "aten::gather.out",
                         "aten::scatter.value_out", "aten::scatter.src_out", "aten::scatter_add.out", "aten::embedding.out",
                         "aten::upsample_nearest2d.vec_out"};
  CHECK(ktest_table_is(pte_portable_index_kernels, pte_portable_index_kernels_count, names, sizeof names / sizeof names[0]));
}

/* ---- index.Tensor ---- */

TEST(index_single_leading) {
  pte_tensor *x = ktest_tensor(PTE_DTYPE_FLOAT, 2, SZ(3, 4), NULL, ktest_iota(12));
  pte_tensor *i0 = ktest_index1(2, DV(2, -3));
  pte_tensor *o = ktest_dyn(PTE_DTYPE_FLOAT, 2, 64);
  pte_tensor *ix[] = {i0};
  pte_evalue *args[] = {EV(x), ktest_ev_opt_tensor_list(ix, 1), EV(o), NULL};
  args[3] = args[2];
  CHECK_OK(run("aten::index.Tensor_out", args, 4));
  CHECK(ktest_expect_shape(o, 2, SZ(2, 4)));
  CHECK(ktest_expect(o, DV(8, 9, 10, 11, 0, 1, 2, 3), 8, 0));
  /* int32 index, 0-dim */
  pte_tensor *s = ktest_tensor(PTE_DTYPE_INT, 0, NULL, NULL, DV(1));
  pte_tensor *ix2[] = {s};
  pte_evalue *args2[] = {EV(x), ktest_ev_opt_tensor_list(ix2, 1), EV(o)};
  pte_tensor *o1 = ktest_dyn(PTE_DTYPE_FLOAT, 1, 64);
  args2[2] = EV(o1);
  CHECK_OK(run("aten::index.Tensor_out", args2, 3));
  CHECK(ktest_expect_shape(o1, 1, SZ(4)));
  CHECK(ktest_expect(o1, DV(4, 5, 6, 7), 4, 0));
}

TEST(index_broadcast_two_tensors) {
  pte_tensor *x = ktest_tensor(PTE_DTYPE_LONG, 2, SZ(3, 4), NULL, ktest_iota(12));
  pte_tensor *r = ktest_tensor(PTE_DTYPE_LONG, 2, SZ(2, 1), NULL, DV(0, 2));
  pte_tensor *c = ktest_tensor(PTE_DTYPE_INT, 1, SZ(2), NULL, DV(1, -1));
  pte_tensor *o = ktest_dyn(PTE_DTYPE_LONG, 2, 16);
  pte_tensor *ix[] = {r, c};
  pte_evalue *args[] = {EV(x), ktest_ev_opt_tensor_list(ix, 2), EV(o)};
  CHECK_OK(run("aten::index.Tensor_out", args, 3));
  CHECK(ktest_expect_shape(o, 2, SZ(2, 2)));
  CHECK(ktest_expect(o, DV(1, 3, 9, 11), 4, 0));
  /* incompatible shapes */
  pte_tensor *c3 = ktest_index1(3, DV(0, 1, 2));
  pte_tensor *r2 = ktest_index1(2, DV(0, 1));
  pte_tensor *ix2[] = {r2, c3};
  pte_evalue *args2[] = {EV(x), ktest_ev_opt_tensor_list(ix2, 2), EV(o)};
  CHECK_STATUS(run("aten::index.Tensor_out", args2, 3), PTE_ERR_INVALID_ARGUMENT);
}

TEST(index_none_gap_adjacent) {
  /* x[2,3,4] = 12i + 4j + k; x[:, [2,0]] -> [2,2,4] */
  pte_tensor *x = ktest_tensor(PTE_DTYPE_SHORT, 3, SZ(2, 3, 4), NULL, ktest_iota(24));
  pte_tensor *i1 = ktest_index1(2, DV(2, 0));
  pte_tensor *o = ktest_dyn(PTE_DTYPE_SHORT, 3, 64);
  pte_tensor *ix[] = {NULL, i1};
  pte_evalue *args[] = {EV(x), ktest_ev_opt_tensor_list(ix, 2), EV(o)};
  CHECK_OK(run("aten::index.Tensor_out", args, 3));
  CHECK(ktest_expect_shape(o, 3, SZ(2, 2, 4)));
  CHECK(ktest_expect(o, DV(8, 9, 10, 11, 0, 1, 2, 3, 20, 21, 22, 23, 12, 13, 14, 15), 16, 0));
}

TEST(index_non_adjacent_goes_first) {
  /* x[[1,0], :, [3,1]] -> broadcast dim first: out[b][j] = x[i0[b]][j][i2[b]] */
  pte_tensor *x = ktest_tensor(PTE_DTYPE_FLOAT, 3, SZ(2, 3, 4), NULL, ktest_iota(24));
  pte_tensor *i0 = ktest_index1(2, DV(1, 0));
  pte_tensor *i2 = ktest_index1(2, DV(3, 1));
  pte_tensor *o = ktest_dyn(PTE_DTYPE_FLOAT, 2, 64);
  pte_tensor *ix[] = {i0, NULL, i2};
  pte_evalue *args[] = {EV(x), ktest_ev_opt_tensor_list(ix, 3), EV(o)};
  CHECK_OK(run("aten::index.Tensor_out", args, 3));
  CHECK(ktest_expect_shape(o, 2, SZ(2, 3)));
  CHECK(ktest_expect(o, DV(15, 19, 23, 1, 5, 9), 6, 0));
}

TEST(index_bool_masks) {
  pte_tensor *x = ktest_tensor(PTE_DTYPE_DOUBLE, 2, SZ(2, 3), NULL, ktest_iota(6));
  pte_tensor *m = ktest_tensor(PTE_DTYPE_BOOL, 2, SZ(2, 3), NULL, DV(1, 0, 1, 0, 1, 0));
  pte_tensor *o = ktest_dyn(PTE_DTYPE_DOUBLE, 1, 16);
  pte_tensor *ix[] = {m};
  pte_evalue *args[] = {EV(x), ktest_ev_opt_tensor_list(ix, 1), EV(o)};
  CHECK_OK(run("aten::index.Tensor_out", args, 3));
  CHECK(ktest_expect_shape(o, 1, SZ(3)));
  CHECK(ktest_expect(o, DV(0, 2, 4), 3, 0));
  /* a 1-D uint8 mask over the first dim */
  pte_tensor *m1 = ktest_tensor(PTE_DTYPE_BYTE, 1, SZ(2), NULL, DV(0, 1));
  pte_tensor *o2 = ktest_dyn(PTE_DTYPE_DOUBLE, 2, 16);
  pte_tensor *ix2[] = {m1};
  pte_evalue *args2[] = {EV(x), ktest_ev_opt_tensor_list(ix2, 1), EV(o2)};
  CHECK_OK(run("aten::index.Tensor_out", args2, 3));
  CHECK(ktest_expect_shape(o2, 2, SZ(1, 3)));
  CHECK(ktest_expect(o2, DV(3, 4, 5), 3, 0));
  /* mask on dim 1 with a None before it; mask [T,F,T] */
  pte_tensor *m2 = ktest_tensor(PTE_DTYPE_BOOL, 1, SZ(3), NULL, DV(1, 0, 1));
  pte_tensor *ix3[] = {NULL, m2};
  pte_evalue *args3[] = {EV(x), ktest_ev_opt_tensor_list(ix3, 2), EV(o2)};
  CHECK_OK(run("aten::index.Tensor_out", args3, 3));
  CHECK(ktest_expect_shape(o2, 2, SZ(2, 2)));
  CHECK(ktest_expect(o2, DV(0, 2, 3, 5), 4, 0));
  /* mask + int index broadcast: x[[1,0], mask[T,F,T]] -> pairs (1,0),(0,2) */
  pte_tensor *r = ktest_index1(2, DV(1, 0));
  pte_tensor *ix4[] = {r, m2};
  pte_evalue *args4[] = {EV(x), ktest_ev_opt_tensor_list(ix4, 2), EV(o)};
  CHECK_OK(run("aten::index.Tensor_out", args4, 3));
  CHECK(ktest_expect(o, DV(3, 2), 2, 0));
  /* all-false mask: empty result */
  pte_tensor *mf = ktest_tensor(PTE_DTYPE_BOOL, 2, SZ(2, 3), NULL, NULL);
  pte_tensor *ix5[] = {mf};
  pte_evalue *args5[] = {EV(x), ktest_ev_opt_tensor_list(ix5, 1), EV(o)};
  CHECK_OK(run("aten::index.Tensor_out", args5, 3));
  CHECK(ktest_expect_shape(o, 1, SZ(0)));
  /* mask shape mismatch */
  pte_tensor *mb = ktest_tensor(PTE_DTYPE_BOOL, 1, SZ(3), NULL, NULL);
  pte_tensor *ix6[] = {mb};
  pte_evalue *args6[] = {EV(x), ktest_ev_opt_tensor_list(ix6, 1), EV(o)};
  CHECK_STATUS(run("aten::index.Tensor_out", args6, 3), PTE_ERR_INVALID_ARGUMENT);
}

TEST(index_channels_last_and_errors) {
  pte_tensor *x = ktest_tensor(PTE_DTYPE_FLOAT, 4, SZ(1, 2, 2, 2), ktest_cl4, ktest_iota(8));
  pte_tensor *c = ktest_index1(1, DV(1));
  pte_tensor *o = ktest_tensor(PTE_DTYPE_FLOAT, 4, SZ(1, 1, 2, 2), ktest_cl4, NULL);
  pte_tensor *ix[] = {NULL, c};
  pte_evalue *args[] = {EV(x), ktest_ev_opt_tensor_list(ix, 2), EV(o)};
  CHECK_OK(run("aten::index.Tensor_out", args, 3));
  CHECK(ktest_expect(o, DV(4, 5, 6, 7), 4, 0));
  /* out of range */
  pte_tensor *bad = ktest_index1(1, DV(2));
  pte_tensor *ixb[] = {NULL, bad};
  pte_evalue *a1[] = {EV(x), ktest_ev_opt_tensor_list(ixb, 2), EV(o)};
  CHECK_STATUS(run("aten::index.Tensor_out", a1, 3), PTE_ERR_INVALID_ARGUMENT);
  /* float index */
  pte_tensor *fi = ktest_tensor(PTE_DTYPE_FLOAT, 1, SZ(1), NULL, DV(0));
  pte_tensor *ixf[] = {fi};
  pte_evalue *a2[] = {EV(x), ktest_ev_opt_tensor_list(ixf, 1), EV(o)};
  CHECK_STATUS(run("aten::index.Tensor_out", a2, 3), PTE_ERR_INVALID_ARGUMENT);
  /* too many indices */
  pte_tensor *z = ktest_index1(1, DV(0));
  pte_tensor *ixm[] = {z, z, z, z, z};
  pte_evalue *a3[] = {EV(x), ktest_ev_opt_tensor_list(ixm, 5), EV(o)};
  CHECK_STATUS(run("aten::index.Tensor_out", a3, 3), PTE_ERR_INVALID_ARGUMENT);
  /* no index tensors: a copy */
  pte_tensor *oc = ktest_tensor(PTE_DTYPE_FLOAT, 4, SZ(1, 2, 2, 2), NULL, NULL);
  pte_tensor *ixn[] = {NULL};
  pte_evalue *a4[] = {EV(x), ktest_ev_opt_tensor_list(ixn, 1), EV(oc)};
  CHECK_OK(run("aten::index.Tensor_out", a4, 3));
  CHECK(ktest_expect(oc, ktest_iota(8), 8, 0));
}

/* ---- index_select ---- */

TEST(index_select) {
  pte_tensor *x = ktest_tensor(PTE_DTYPE_FLOAT, 2, SZ(3, 2), NULL, ktest_iota(6));
  pte_tensor *o = ktest_dyn(PTE_DTYPE_FLOAT, 2, 16);
  pte_evalue *args[] = {EV(x), ktest_ev_int(0), EV(ktest_index1(3, DV(2, 0, 2))), EV(o), NULL};
  args[4] = args[3];
  CHECK_OK(run("aten::index_select.out", args, 5));
  CHECK(ktest_expect_shape(o, 2, SZ(3, 2)));
  CHECK(ktest_expect(o, DV(4, 5, 0, 1, 4, 5), 6, 0));
  pte_tensor *i32 = ktest_tensor(PTE_DTYPE_INT, 1, SZ(1), NULL, DV(1));
  pte_evalue *args2[] = {EV(x), ktest_ev_int(-1), EV(i32), EV(o)};
  CHECK_OK(run("aten::index_select.out", args2, 4));
  CHECK(ktest_expect_shape(o, 2, SZ(3, 1)));
  CHECK(ktest_expect(o, DV(1, 3, 5), 3, 0));
  /* column-major input, dim 1 */
  pte_tensor *cm = ktest_tensor(PTE_DTYPE_CHAR, 2, SZ(2, 3), ktest_t2, DV(1, 2, 3, 4, 5, 6));
  pte_tensor *oc = ktest_dyn(PTE_DTYPE_CHAR, 2, 16);
  pte_evalue *args3[] = {EV(cm), ktest_ev_int(1), EV(ktest_index1(2, DV(2, 1))), EV(oc)};
  CHECK_OK(run("aten::index_select.out", args3, 4));
  CHECK(ktest_expect(oc, DV(3, 2, 6, 5), 4, 0));
  /* 0-dim self */
  pte_tensor *s = ktest_tensor(PTE_DTYPE_FLOAT, 0, NULL, NULL, DV(7));
  pte_tensor *so = ktest_tensor(PTE_DTYPE_FLOAT, 0, NULL, NULL, NULL);
  pte_evalue *args4[] = {EV(s), ktest_ev_int(0), EV(ktest_index1(1, DV(0))), EV(so)};
  CHECK_OK(run("aten::index_select.out", args4, 4));
  CHECK(ktest_expect(so, DV(7), 1, 0));
  /* empty index */
  pte_evalue *args5[] = {EV(x), ktest_ev_int(0), EV(ktest_index1(0, NULL)), EV(o)};
  CHECK_OK(run("aten::index_select.out", args5, 4));
  CHECK(ktest_expect_shape(o, 2, SZ(0, 2)));
  /* errors: out of range, negative, float index, 2-D index */
  pte_evalue *b1[] = {EV(x), ktest_ev_int(0), EV(ktest_index1(1, DV(3))), EV(o)};
  CHECK_STATUS(run("aten::index_select.out", b1, 4), PTE_ERR_INVALID_ARGUMENT);
  pte_evalue *b2[] = {EV(x), ktest_ev_int(0), EV(ktest_index1(1, DV(-1))), EV(o)};
  CHECK_STATUS(run("aten::index_select.out", b2, 4), PTE_ERR_INVALID_ARGUMENT);
  pte_evalue *b3[] = {EV(x), ktest_ev_int(0), EV(ktest_tensor(PTE_DTYPE_FLOAT, 1, SZ(1), NULL, DV(0))), EV(o)};
  CHECK_STATUS(run("aten::index_select.out", b3, 4), PTE_ERR_INVALID_ARGUMENT);
  pte_evalue *b4[] = {EV(x), ktest_ev_int(0), EV(ktest_tensor(PTE_DTYPE_LONG, 2, SZ(1, 1), NULL, DV(0))), EV(o)};
  CHECK_STATUS(run("aten::index_select.out", b4, 4), PTE_ERR_INVALID_ARGUMENT);
  pte_evalue *b5[] = {EV(x), ktest_ev_int(2), EV(ktest_index1(1, DV(0))), EV(o)};
  CHECK_STATUS(run("aten::index_select.out", b5, 4), PTE_ERR_INVALID_ARGUMENT);
}

/* ---- gather / scatter ---- */

TEST(gather) {
  pte_tensor *x = ktest_tensor(PTE_DTYPE_FLOAT, 2, SZ(2, 2), NULL, DV(1, 2, 3, 4));
  pte_tensor *i = ktest_tensor(PTE_DTYPE_LONG, 2, SZ(2, 2), NULL, DV(0, 0, 1, 0));
  pte_tensor *o = ktest_dyn(PTE_DTYPE_FLOAT, 2, 16);
  pte_evalue *args[] = {EV(x), ktest_ev_int(1), EV(i), ktest_ev_bool(false), EV(o), NULL};
  args[5] = args[4];
  CHECK_OK(run("aten::gather.out", args, 6));
  CHECK(ktest_expect(o, DV(1, 1, 4, 3), 4, 0));
  /* dim 0 with a smaller index */
  pte_tensor *i2 = ktest_tensor(PTE_DTYPE_LONG, 2, SZ(1, 2), NULL, DV(1, 0));
  pte_evalue *args2[] = {EV(x), ktest_ev_int(-2), EV(i2), ktest_ev_bool(false), EV(o)};
  CHECK_OK(run("aten::gather.out", args2, 5));
  CHECK(ktest_expect_shape(o, 2, SZ(1, 2)));
  CHECK(ktest_expect(o, DV(3, 2), 2, 0));
  /* column-major self and index */
  pte_tensor *xc = ktest_tensor(PTE_DTYPE_INT, 2, SZ(2, 3), ktest_t2, DV(1, 2, 3, 4, 5, 6));
  pte_tensor *ic = ktest_tensor(PTE_DTYPE_LONG, 2, SZ(2, 2), ktest_t2, DV(2, 0, 1, 1));
  pte_tensor *oc = ktest_dyn(PTE_DTYPE_INT, 2, 16);
  pte_evalue *args3[] = {EV(xc), ktest_ev_int(1), EV(ic), ktest_ev_bool(false), EV(oc)};
  CHECK_OK(run("aten::gather.out", args3, 5));
  CHECK(ktest_expect(oc, DV(3, 1, 5, 5), 4, 0));
  /* errors */
  pte_tensor *ib = ktest_tensor(PTE_DTYPE_LONG, 2, SZ(1, 1), NULL, DV(2));
  pte_evalue *b1[] = {EV(x), ktest_ev_int(1), EV(ib), ktest_ev_bool(false), EV(o)};
  CHECK_STATUS(run("aten::gather.out", b1, 5), PTE_ERR_INVALID_ARGUMENT);
  pte_tensor *ii = ktest_tensor(PTE_DTYPE_INT, 2, SZ(1, 1), NULL, DV(0));
  pte_evalue *b2[] = {EV(x), ktest_ev_int(1), EV(ii), ktest_ev_bool(false), EV(o)};
  CHECK_STATUS(run("aten::gather.out", b2, 5), PTE_ERR_INVALID_ARGUMENT);
  pte_tensor *i3 = ktest_tensor(PTE_DTYPE_LONG, 2, SZ(3, 1), NULL, DV(0, 0, 0));
  pte_evalue *b3[] = {EV(x), ktest_ev_int(1), EV(i3), ktest_ev_bool(false), EV(o)};
  CHECK_STATUS(run("aten::gather.out", b3, 5), PTE_ERR_INVALID_ARGUMENT);
  pte_evalue *b4[] = {EV(x), ktest_ev_int(1), EV(i), ktest_ev_bool(true), EV(o)};
  CHECK_STATUS(run("aten::gather.out", b4, 5), PTE_ERR_NOT_SUPPORTED);
  pte_tensor *i1d = ktest_index1(2, DV(0, 1));
  pte_evalue *b5[] = {EV(x), ktest_ev_int(1), EV(i1d), ktest_ev_bool(false), EV(o)};
  CHECK_STATUS(run("aten::gather.out", b5, 5), PTE_ERR_INVALID_ARGUMENT);
  /* the xor training pattern: log-probs [1,2] gathered by a target [1,1] */
  pte_tensor *lp = ktest_tensor(PTE_DTYPE_FLOAT, 2, SZ(1, 2), NULL, DV(-0.25, -1.5));
  pte_tensor *t = ktest_tensor(PTE_DTYPE_LONG, 2, SZ(1, 1), NULL, DV(1));
  pte_tensor *ot = ktest_tensor(PTE_DTYPE_FLOAT, 2, SZ(1, 1), NULL, NULL);
  pte_evalue *args6[] = {EV(lp), ktest_ev_int(1), EV(t), ktest_ev_bool(false), EV(ot), NULL};
  args6[5] = args6[4];
  CHECK_OK(run("aten::gather.out", args6, 6));
  CHECK(ktest_expect(ot, DV(-1.5), 1, 0));
}

TEST(scatter_value_and_src) {
  pte_tensor *x = ktest_tensor(PTE_DTYPE_FLOAT, 2, SZ(2, 3), NULL, DV(1, 1, 1, 1, 1, 1));
  pte_tensor *i = ktest_tensor(PTE_DTYPE_LONG, 2, SZ(2, 1), NULL, DV(0, 2));
  pte_tensor *o = ktest_dyn(PTE_DTYPE_FLOAT, 2, 16);
  pte_evalue *args[] = {EV(x), ktest_ev_int(1), EV(i), ktest_ev_double(-2.5), EV(o), NULL};
  args[5] = args[4];
  CHECK_OK(run("aten::scatter.value_out", args, 6));
  CHECK(ktest_expect(o, DV(-2.5, 1, 1, 1, 1, -2.5), 6, 0));
  CHECK(ktest_expect(x, DV(1, 1, 1, 1, 1, 1), 6, 0)); /* self untouched */
  /* one-hot into int64 with an Int value */
  pte_tensor *z = ktest_tensor(PTE_DTYPE_LONG, 2, SZ(2, 3), NULL, NULL);
  pte_tensor *oz = ktest_dyn(PTE_DTYPE_LONG, 2, 16);
  pte_evalue *args2[] = {EV(z), ktest_ev_int(-1), EV(i), ktest_ev_int(1), EV(oz)};
  CHECK_OK(run("aten::scatter.value_out", args2, 5));
  CHECK(ktest_expect(oz, DV(1, 0, 0, 0, 0, 1), 6, 0));
  /* src: scatter a row into a diagonal */
  pte_tensor *zz = ktest_tensor(PTE_DTYPE_DOUBLE, 2, SZ(3, 3), NULL, NULL);
  pte_tensor *si = ktest_tensor(PTE_DTYPE_LONG, 2, SZ(1, 3), NULL, DV(0, 1, 2));
  pte_tensor *src = ktest_tensor(PTE_DTYPE_DOUBLE, 2, SZ(2, 3), NULL, DV(7, 8, 9, 10, 11, 12));
  pte_tensor *os = ktest_tensor(PTE_DTYPE_DOUBLE, 2, SZ(3, 3), ktest_t2, NULL);
  pte_evalue *args3[] = {EV(zz), ktest_ev_int(0), EV(si), EV(src), EV(os)};
  CHECK_OK(run("aten::scatter.src_out", args3, 5));
  CHECK(ktest_expect(os, DV(7, 0, 0, 0, 8, 0, 0, 0, 9), 9, 0));
  /* errors */
  pte_tensor *ib = ktest_tensor(PTE_DTYPE_LONG, 2, SZ(1, 1), NULL, DV(3));
  pte_evalue *b1[] = {EV(x), ktest_ev_int(1), EV(ib), ktest_ev_int(0), EV(o)};
  CHECK_STATUS(run("aten::scatter.value_out", b1, 5), PTE_ERR_INVALID_ARGUMENT);
  pte_tensor *srcb = ktest_tensor(PTE_DTYPE_FLOAT, 2, SZ(2, 3), NULL, NULL);
  pte_evalue *b2[] = {EV(zz), ktest_ev_int(0), EV(si), EV(srcb), EV(os)};
  CHECK_STATUS(run("aten::scatter.src_out", b2, 5), PTE_ERR_INVALID_ARGUMENT);
  pte_tensor *ibig = ktest_tensor(PTE_DTYPE_LONG, 2, SZ(3, 3), NULL, NULL);
  pte_evalue *b3[] = {EV(zz), ktest_ev_int(0), EV(ibig), EV(src), EV(os)};
  CHECK_STATUS(run("aten::scatter.src_out", b3, 5), PTE_ERR_INVALID_ARGUMENT);
  pte_evalue *b4[] = {EV(x), ktest_ev_int(1), EV(i), EV(x), EV(o)};
  CHECK_STATUS(run("aten::scatter.value_out", b4, 5), PTE_ERR_INVALID_ARGUMENT);
}

/* ---- embedding ---- */

TEST(embedding) {
  pte_tensor *w = ktest_tensor(PTE_DTYPE_FLOAT, 2, SZ(4, 2), NULL, ktest_iota(8));
  pte_tensor *ids = ktest_tensor(PTE_DTYPE_LONG, 2, SZ(2, 2), NULL, DV(1, 3, 0, 0));
  pte_tensor *o = ktest_dyn(PTE_DTYPE_FLOAT, 3, 16);
  pte_evalue *args[] = {EV(w), EV(ids), ktest_ev_int(-1), ktest_ev_bool(false), ktest_ev_bool(false), EV(o), NULL};
  args[6] = args[5];
  CHECK_OK(run("aten::embedding.out", args, 7));
  CHECK(ktest_expect_shape(o, 3, SZ(2, 2, 2)));
  CHECK(ktest_expect(o, DV(2, 3, 6, 7, 0, 1, 0, 1), 8, 0));
  /* int32 indices, half weights, column-major weight */
  pte_tensor *wh = ktest_tensor(PTE_DTYPE_HALF, 2, SZ(3, 2), ktest_t2, DV(0.5, 1, 1.5, 2, 2.5, 3));
  pte_tensor *i32 = ktest_tensor(PTE_DTYPE_INT, 1, SZ(3), NULL, DV(2, 0, 1));
  pte_tensor *oh = ktest_dyn(PTE_DTYPE_HALF, 2, 16);
  pte_evalue *args2[] = {EV(wh), EV(i32), ktest_ev_int(0), ktest_ev_bool(false), ktest_ev_bool(false), EV(oh)};
  CHECK_OK(run("aten::embedding.out", args2, 6));
  CHECK(ktest_expect(oh, DV(2.5, 3, 0.5, 1, 1.5, 2), 6, 0));
  /* errors */
  pte_tensor *bad = ktest_tensor(PTE_DTYPE_LONG, 1, SZ(1), NULL, DV(4));
  pte_evalue *b1[] = {EV(w), EV(bad), ktest_ev_int(-1), ktest_ev_bool(false), ktest_ev_bool(false), EV(o)};
  CHECK_STATUS(run("aten::embedding.out", b1, 6), PTE_ERR_INVALID_ARGUMENT);
  pte_tensor *fi = ktest_tensor(PTE_DTYPE_FLOAT, 1, SZ(1), NULL, DV(0));
  pte_evalue *b2[] = {EV(w), EV(fi), ktest_ev_int(-1), ktest_ev_bool(false), ktest_ev_bool(false), EV(o)};
  CHECK_STATUS(run("aten::embedding.out", b2, 6), PTE_ERR_INVALID_ARGUMENT);
  pte_evalue *b3[] = {EV(ids), EV(ids), ktest_ev_int(-1), ktest_ev_bool(false), ktest_ev_bool(false), EV(o)};
  CHECK_STATUS(run("aten::embedding.out", b3, 6), PTE_ERR_INVALID_ARGUMENT);
}

/* ---- upsample_nearest2d ---- */

TEST(upsample_nearest2d_sizes) {
  pte_tensor *x = ktest_tensor(PTE_DTYPE_FLOAT, 4, SZ(1, 1, 2, 2), NULL, DV(1, 2, 3, 4));
  pte_tensor *o = ktest_dyn(PTE_DTYPE_FLOAT, 4, 64);
  pte_evalue *args[] = {EV(x), IL(4, 4), ktest_ev_none(), EV(o), NULL};
  args[4] = args[3];
  CHECK_OK(run("aten::upsample_nearest2d.vec_out", args, 5));
  CHECK(ktest_expect_shape(o, 4, SZ(1, 1, 4, 4)));
  CHECK(ktest_expect(o, DV(1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4), 16, 0));
  /* 2 -> 3: source index floor(o * 2/3) = 0, 0, 1 */
  pte_evalue *args2[] = {EV(x), IL(3, 3), ktest_ev_none(), EV(o)};
  CHECK_OK(run("aten::upsample_nearest2d.vec_out", args2, 4));
  CHECK(ktest_expect(o, DV(1, 1, 2, 1, 1, 2, 3, 3, 4), 9, 0));
  /* downsample 2 -> 1 */
  pte_evalue *args3[] = {EV(x), IL(1, 2), ktest_ev_none(), EV(o)};
  CHECK_OK(run("aten::upsample_nearest2d.vec_out", args3, 4));
  CHECK(ktest_expect(o, DV(1, 2), 2, 0));
}

TEST(upsample_nearest2d_scales_and_channels_last) {
  pte_tensor *x = ktest_tensor(PTE_DTYPE_BYTE, 4, SZ(1, 2, 2, 2), ktest_cl4, DV(1, 2, 3, 4, 5, 6, 7, 8));
  pte_tensor *o = ktest_tensor(PTE_DTYPE_BYTE, 4, SZ(1, 2, 4, 3), ktest_cl4, NULL);
  pte_evalue *args[] = {EV(x), ktest_ev_none(), ktest_ev_double_list(DV(2.0, 1.5), 2), EV(o)};
  CHECK_OK(run("aten::upsample_nearest2d.vec_out", args, 4));
  /* h: 2x (o>>1); w: scale 1/1.5 -> 0,0,1 */
  CHECK(ktest_expect(o, DV(1, 1, 2, 1, 1, 2, 3, 3, 4, 3, 3, 4, 5, 5, 6, 5, 5, 6, 7, 7, 8, 7, 7, 8), 24, 0));
  /* same into an NCHW out */
  pte_tensor *o2 = ktest_tensor(PTE_DTYPE_BYTE, 4, SZ(1, 2, 4, 3), NULL, NULL);
  pte_evalue *args2[] = {EV(x), ktest_ev_none(), ktest_ev_double_list(DV(2.0, 1.5), 2), EV(o2)};
  CHECK_OK(run("aten::upsample_nearest2d.vec_out", args2, 4));
  CHECK(ktest_expect(o2, DV(1, 1, 2, 1, 1, 2, 3, 3, 4, 3, 3, 4, 5, 5, 6, 5, 5, 6, 7, 7, 8, 7, 7, 8), 24, 0));
  /* errors: both / neither given, wrong rank, bool */
  pte_evalue *b1[] = {EV(x), IL(4, 3), ktest_ev_double_list(DV(2.0, 1.5), 2), EV(o)};
  CHECK_STATUS(run("aten::upsample_nearest2d.vec_out", b1, 4), PTE_ERR_INVALID_ARGUMENT);
  pte_evalue *b2[] = {EV(x), ktest_ev_none(), ktest_ev_none(), EV(o)};
  CHECK_STATUS(run("aten::upsample_nearest2d.vec_out", b2, 4), PTE_ERR_INVALID_ARGUMENT);
  pte_tensor *x3 = ktest_tensor(PTE_DTYPE_BYTE, 3, SZ(1, 2, 2), NULL, NULL);
  pte_evalue *b3[] = {EV(x3), IL(4, 4), ktest_ev_none(), EV(o)};
  CHECK_STATUS(run("aten::upsample_nearest2d.vec_out", b3, 4), PTE_ERR_INVALID_ARGUMENT);
  pte_evalue *b4[] = {EV(x), IL(4), ktest_ev_none(), EV(o)};
  CHECK_STATUS(run("aten::upsample_nearest2d.vec_out", b4, 4), PTE_ERR_INVALID_ARGUMENT);
  pte_evalue *b5[] = {EV(x), IL(0, 3), ktest_ev_none(), EV(o)};
  CHECK_STATUS(run("aten::upsample_nearest2d.vec_out", b5, 4), PTE_ERR_INVALID_ARGUMENT);
}

int main(void) {
  RUN(table_names);
  RUN(index_single_leading);
  RUN(index_broadcast_two_tensors);
  RUN(index_none_gap_adjacent);
  RUN(index_non_adjacent_goes_first);
  RUN(index_bool_masks);
  RUN(index_channels_last_and_errors);
  RUN(index_select);
  RUN(gather);
  RUN(scatter_value_and_src);
  RUN(embedding);
  RUN(upsample_nearest2d_sizes);
  RUN(upsample_nearest2d_scales_and_channels_last);
  ktest_free_all();
  return test_summary();
}
