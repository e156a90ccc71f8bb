/* Tests for reflection / replication padding (kernels/portable/op_pad.c). Expected values are
 * derived by hand (reflection mirrors without repeating the edge: [1,2,3] padded (2,1) is
 * [3,2,1,2,3,2]; replication repeats the edge: [1,1,1,2,3,3]). */
#include "test.h"

#include "portable/portable_pad.h"
#include "support/ktest.h"
#include "support/ktest_sugar.h"

static pte_status run(const char *name, pte_evalue **args, size_t n) {
  return ktest_run(ktest_find(pte_portable_pad_kernels, pte_portable_pad_kernels_count, name), args, n);
}

TEST(table_names) {
  const char *names[] = {"aten::reflection_pad1d.out", "aten::reflection_pad2d.out", "aten::reflection_pad3d.out",
                         "aten::replication_pad1d.out", "aten::replication_pad2d.out", "aten::replication_pad3d.out"};
  CHECK(ktest_table_is(pte_portable_pad_kernels, pte_portable_pad_kernels_count, names, sizeof names / sizeof names[0]));
}

TEST(pad1d) {
  pte_tensor *x = ktest_tensor(PTE_DTYPE_FLOAT, 2, SZ(1, 3), NULL, DV(1, 2, 3));
  pte_tensor *o = ktest_dyn(PTE_DTYPE_FLOAT, 2, 16);
  pte_evalue *a[] = {EV(x), IL(2, 1), EV(o), NULL};
  a[3] = a[2];
  CHECK_OK(run("aten::reflection_pad1d.out", a, 4));
  CHECK(ktest_expect_shape(o, 2, SZ(1, 6)));
  CHECK(ktest_expect(o, DV(3, 2, 1, 2, 3, 2), 6, 0));
  CHECK_OK(run("aten::replication_pad1d.out", a, 3));
  CHECK(ktest_expect(o, DV(1, 1, 1, 2, 3, 3), 6, 0));
  /* negative padding crops */
  pte_evalue *b[] = {EV(x), IL(-1, 1), EV(o)};
  CHECK_OK(run("aten::reflection_pad1d.out", b, 3));
  CHECK(ktest_expect(o, DV(2, 3, 2), 3, 0));
  pte_evalue *c[] = {EV(x), IL(-1, 2), EV(o)};
  CHECK_OK(run("aten::replication_pad1d.out", c, 3));
  CHECK(ktest_expect(o, DV(2, 3, 3, 3), 4, 0));
  /* batched 3-D with an empty batch */
  pte_tensor *e = ktest_tensor(PTE_DTYPE_FLOAT, 3, SZ(0, 1, 3), NULL, NULL);
  pte_tensor *o3 = ktest_dyn(PTE_DTYPE_FLOAT, 3, 16);
  pte_evalue *d[] = {EV(e), IL(1, 1), EV(o3)};
  CHECK_OK(run("aten::reflection_pad1d.out", d, 3));
  CHECK(ktest_expect_shape(o3, 3, SZ(0, 1, 5)));
  /* every dtype, 2 channels */
  for (size_t k = 0; k < KTEST_N_ALL_DTYPES; k++) {
    int dt = ktest_all_dtypes[k];
    bool b01 = dt == PTE_DTYPE_BOOL;
    pte_tensor *t = ktest_tensor(dt, 3, SZ(1, 2, 2), NULL, b01 ? DV(1, 0, 0, 1) : DV(1, 2, 3, 4));
    pte_tensor *ot = ktest_dyn(dt, 3, 16);
    pte_evalue *f[] = {EV(t), IL(1, 2), EV(ot)};
    CHECK_OK(run("aten::replication_pad1d.out", f, 3));
    CHECK_MSG(ktest_expect(ot, b01 ? DV(1, 1, 0, 0, 0, 0, 0, 1, 1, 1) : DV(1, 1, 2, 2, 2, 3, 3, 4, 4, 4), 10, 0), "dtype %d", dt);
    pte_evalue *g[] = {EV(t), IL(1, 1), EV(ot)};
    CHECK_OK(run("aten::reflection_pad1d.out", g, 3));
    CHECK_MSG(ktest_expect(ot, b01 ? DV(0, 1, 0, 1, 1, 0, 1, 0) : DV(2, 1, 2, 1, 4, 3, 4, 3), 8, 0), "dtype %d", dt);
  }
  /* errors */
  pte_evalue *b1[] = {EV(x), IL(3, 0), EV(o)};
  CHECK_STATUS(run("aten::reflection_pad1d.out", b1, 3), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(ktest_last_msg(), "reflection_pad1d");
  pte_evalue *b2[] = {EV(x), IL(1), EV(o)};
  CHECK_STATUS(run("aten::replication_pad1d.out", b2, 3), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(ktest_last_msg(), "padding");
  pte_tensor *v1 = ktest_tensor(PTE_DTYPE_FLOAT, 1, SZ(3), NULL, NULL);
  pte_tensor *o1 = ktest_dyn(PTE_DTYPE_FLOAT, 1, 8);
  pte_evalue *b3[] = {EV(v1), IL(1, 1), EV(o1)};
  CHECK_STATUS(run("aten::replication_pad1d.out", b3, 3), PTE_ERR_INVALID_ARGUMENT);
  pte_tensor *od = ktest_dyn(PTE_DTYPE_DOUBLE, 2, 8);
  pte_evalue *b4[] = {EV(x), IL(1, 1), EV(od)};
  CHECK_STATUS(run("aten::replication_pad1d.out", b4, 3), PTE_ERR_INVALID_ARGUMENT);
  pte_tensor *ec = ktest_tensor(PTE_DTYPE_FLOAT, 2, SZ(0, 3), NULL, NULL); /* empty channel dim, no batch */
  pte_evalue *b5[] = {EV(ec), IL(1, 1), EV(o)};
  CHECK_STATUS(run("aten::replication_pad1d.out", b5, 3), PTE_ERR_INVALID_ARGUMENT);
  pte_evalue *b7[] = {EV(x), IL(INT64_MAX, INT64_MAX), EV(o)};
  CHECK_STATUS(run("aten::replication_pad1d.out", b7, 3), PTE_ERR_INVALID_ARGUMENT);
  pte_evalue *b6[] = {EV(x), IL(-2, -1), EV(o)}; /* nothing left */
  CHECK_STATUS(run("aten::replication_pad1d.out", b6, 3), PTE_ERR_INVALID_ARGUMENT);
}

TEST(pad2d) {
  pte_tensor *x = ktest_tensor(PTE_DTYPE_DOUBLE, 3, SZ(1, 2, 3), NULL, DV(1, 2, 3, 4, 5, 6));
  pte_tensor *o = ktest_dyn(PTE_DTYPE_DOUBLE, 3, 32);
  pte_evalue *a[] = {EV(x), IL(1, 1, 1, 0), EV(o)};
  CHECK_OK(run("aten::reflection_pad2d.out", a, 3));
  CHECK(ktest_expect_shape(o, 3, SZ(1, 3, 5)));
  CHECK(ktest_expect(o, DV(5, 4, 5, 6, 5, 2, 1, 2, 3, 2, 5, 4, 5, 6, 5), 15, 0));
  CHECK_OK(run("aten::replication_pad2d.out", a, 3));
  CHECK(ktest_expect(o, DV(1, 1, 2, 3, 3, 1, 1, 2, 3, 3, 4, 4, 5, 6, 6), 15, 0));
  /* channels-last 4-D in and out: c0 [[0,1],[2,3]], c1 [[4,5],[6,7]], pad (1,0,0,1) */
  double iota8[8] = {0, 1, 2, 3, 4, 5, 6, 7};
  pte_tensor *y = ktest_tensor(PTE_DTYPE_HALF, 4, SZ(1, 2, 2, 2), ktest_cl4, iota8);
  pte_tensor *oy = ktest_tensor_dyn(PTE_DTYPE_HALF, 4, SZ(1, 2, 1, 1), ktest_cl4, 32);
  pte_evalue *b[] = {EV(y), IL(1, 0, 0, 1), EV(oy)};
  CHECK_OK(run("aten::replication_pad2d.out", b, 3));
  CHECK(ktest_expect_shape(oy, 4, SZ(1, 2, 3, 3)));
  CHECK(ktest_expect(oy, DV(0, 0, 1, 2, 2, 3, 2, 2, 3, 4, 4, 5, 6, 6, 7, 6, 6, 7), 18, 0));
  pte_evalue *c[] = {EV(y), IL(1, 0, 0, 1), EV(oy)};
  CHECK_OK(run("aten::reflection_pad2d.out", c, 3));
  CHECK(ktest_expect(oy, DV(1, 0, 1, 3, 2, 3, 1, 0, 1, 5, 4, 5, 7, 6, 7, 5, 4, 5), 18, 0));
  /* errors */
  pte_evalue *b1[] = {EV(x), IL(1, 1, 2, 0), EV(o)}; /* H = 2: reflection pad 2 too big */
  CHECK_STATUS(run("aten::reflection_pad2d.out", b1, 3), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(ktest_last_msg(), "reflection_pad2d");
  pte_evalue *b2[] = {EV(x), IL(1, 1), EV(o)};
  CHECK_STATUS(run("aten::reflection_pad2d.out", b2, 3), PTE_ERR_INVALID_ARGUMENT);
  pte_tensor *st = ktest_tensor(PTE_DTYPE_DOUBLE, 3, SZ(1, 2, 3), NULL, NULL); /* static, wrong shape */
  pte_evalue *b3[] = {EV(x), IL(1, 1, 0, 0), EV(st)};
  CHECK_STATUS(run("aten::replication_pad2d.out", b3, 3), PTE_ERR_INVALID_ARGUMENT);
}

TEST(pad3d) {
  pte_tensor *x = ktest_tensor(PTE_DTYPE_LONG, 4, SZ(1, 2, 1, 2), NULL, DV(1, 2, 3, 4));
  pte_tensor *o = ktest_dyn(PTE_DTYPE_LONG, 4, 32);
  pte_evalue *a[] = {EV(x), IL(1, 0, 0, 0, 1, 1), EV(o)};
  CHECK_OK(run("aten::reflection_pad3d.out", a, 3));
  CHECK(ktest_expect_shape(o, 4, SZ(1, 4, 1, 3)));
  CHECK(ktest_expect(o, DV(4, 3, 4, 2, 1, 2, 4, 3, 4, 2, 1, 2), 12, 0));
  CHECK_OK(run("aten::replication_pad3d.out", a, 3));
  CHECK(ktest_expect(o, DV(1, 1, 2, 1, 1, 2, 3, 3, 4, 3, 3, 4), 12, 0));
  /* 5-D batched: two batches, second is the first + 10 */
  pte_tensor *y = ktest_tensor(PTE_DTYPE_FLOAT, 5, SZ(2, 1, 1, 1, 2), NULL, DV(1, 2, 11, 12));
  pte_tensor *o5 = ktest_dyn(PTE_DTYPE_FLOAT, 5, 32);
  pte_evalue *b[] = {EV(y), IL(0, 1, 1, 0, 0, 1), EV(o5)};
  CHECK_OK(run("aten::replication_pad3d.out", b, 3));
  CHECK(ktest_expect_shape(o5, 5, SZ(2, 1, 2, 2, 3)));
  CHECK(ktest_expect(o5, DV(1, 2, 2, 1, 2, 2, 1, 2, 2, 1, 2, 2, 11, 12, 12, 11, 12, 12, 11, 12, 12, 11, 12, 12), 24, 0));
  pte_evalue *b1[] = {EV(x), IL(0, 0, 1, 0, 0, 0), EV(o)}; /* H = 1 cannot reflect */
  CHECK_STATUS(run("aten::reflection_pad3d.out", b1, 3), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(ktest_last_msg(), "reflection_pad3d");
  pte_tensor *r3 = ktest_tensor(PTE_DTYPE_LONG, 3, SZ(2, 1, 2), NULL, NULL);
  pte_evalue *b2[] = {EV(r3), IL(0, 0, 0, 0, 0, 0), EV(o)};
  CHECK_STATUS(run("aten::replication_pad3d.out", b2, 3), PTE_ERR_INVALID_ARGUMENT);
}

int main(void) {
  RUN(table_names);
  RUN(pad1d);
  RUN(pad2d);
  RUN(pad3d);
  ktest_free_all();
  return test_summary();
}
