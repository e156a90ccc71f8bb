/* Tests for _cdist_forward / _pdist_forward (op_distance.c). Expected values come from numpy at
 * test time (knn_numpy.h; a missing numpy fails the tests) plus a few hand-derived ones. */
#include "test.h"

#include "knn_numpy.h"
#include "portable/portable_nn.h"
#include "support/ktest.h"
#include "support/ktest_sugar.h"

static pte_op_fn dist_fn(const char *name) {
  return ktest_find(pte_portable_distance_kernels, pte_portable_distance_kernels_count, name);
}

static uint32_t g_seed = 12345u;
/* multiples of 0.5 in [-2, 2]: exact in every float dtype and often equal (p = 0 counts) */
static double rnd(void) { return ktest_rnd_grid(&g_seed, 13, 9, 2.0); }
static size_t numel(const int32_t *s, int d) {
  size_t n = 1;
  for (int i = 0; i < d; i++) n *= (size_t)s[i];
  return n;
}

static const char k_np_dist[] =
    "def dist(d, p):\n"
    "    d = np.abs(d)\n"
    "    if d.shape[-1] == 0: return np.zeros(d.shape[:-1])\n"
    "    if p == 0: return (d != 0).sum(-1).astype(np.float64)\n"
    "    if np.isinf(p): return d.max(-1)\n"
    "    return (d ** p).sum(-1) ** (1.0 / p)\n";

/* cdist of random x1 (s1, order o1) and x2 (s2, order o2) against numpy. */
static bool cdist_case(int dtype, const int32_t *s1, int d1, const uint8_t *o1, const int32_t *s2, int d2,
                       const uint8_t *o2, double p, double tol) {
  size_t n1 = numel(s1, d1), n2 = numel(s2, d2);
  double *a = ktest_rnd_array(n1, rnd), *b = ktest_rnd_array(n2, rnd);
  np_script s = {0};
  nps_array(&s, "x1", a, n1, s1, d1);
  nps_array(&s, "x2", b, n2, s2, d2);
  nps_printf(&s, "%s", k_np_dist);
  nps_printf(&s, "res = dist(x1[..., :, None, :] - x2[..., None, :, :], %.17g)\n", p);
  /* output shape computed here: broadcast batch dims + [P, R] */
  int32_t os[PTE_MAX_RANK];
  int bd = (d1 > d2 ? d1 : d2) - 2;
  for (int i = 0; i < bd; i++) {
    int i1 = i - (bd - (d1 - 2)), i2 = i - (bd - (d2 - 2));
    int v1 = i1 >= 0 ? s1[i1] : 1, v2 = i2 >= 0 ? s2[i2] : 1;
    os[i] = v1 == 1 ? v2 : v1;
  }
  os[bd] = s1[d1 - 2];
  os[bd + 1] = s2[d2 - 2];
  size_t no = numel(os, bd + 2);
  double *want = nps_run(&s, no);
  pte_tensor *t1 = ktest_tensor(dtype, d1, s1, o1, a), *t2 = ktest_tensor(dtype, d2, s2, o2, b);
  pte_tensor *to = ktest_tensor_dyn(dtype, bd + 2, os, NULL, no + 4);
  pte_evalue *out = EV(to);
  pte_evalue *args[] = {EV(t1), EV(t2), ktest_ev_double(p), ktest_ev_none(), out, out};
  pte_status st = ktest_run(dist_fn("aten::_cdist_forward.out"), args, 6);
  bool ok = want && st == PTE_OK && ktest_expect_shape(to, bd + 2, os) && ktest_expect(to, want, no, tol);
  if (st != PTE_OK) fprintf(stderr, "    cdist status %d: %s\n", (int)st, ktest_last_msg());
  if (!ok) fprintf(stderr, "    cdist case p=%g dtype=%d failed\n", p, dtype);
  free(a);
  free(b);
  free(want);
  return ok;
}

TEST(cdist_hand_values) {
  /* x1 rows (0,0) (1,1); x2 rows (3,4) (1,1): p=2 -> 5, sqrt2 / sqrt(13), 0; p=1 -> 7 2 / 5 0;
   * p=inf -> 4 1 / 3 0; p=0 -> 2 2 / 2 0 */
  pte_tensor *a = ktest_tensor(PTE_DTYPE_FLOAT, 2, SZ(2, 2), NULL, DV(0, 0, 1, 1));
  pte_tensor *b = ktest_tensor(PTE_DTYPE_FLOAT, 2, SZ(2, 2), NULL, DV(3, 4, 1, 1));
  pte_tensor *o = ktest_tensor(PTE_DTYPE_FLOAT, 2, SZ(2, 2), NULL, NULL);
  const double ps[4] = {2, 1, INFINITY, 0};
  const double want[4][4] = {{5, sqrt(2.0), sqrt(13.0), 0}, {7, 2, 5, 0}, {4, 1, 3, 0}, {2, 2, 2, 0}};
  for (int k = 0; k < 4; k++) {
    pte_evalue *args[] = {EV(a), EV(b), ktest_ev_double(ps[k]), ktest_ev_int(0), EV(o)};
    CHECK_OK(ktest_run(dist_fn("aten::_cdist_forward.out"), args, 5));
    CHECK(ktest_expect(o, want[k], 4, 1e-6));
  }
}

TEST(cdist_numpy_shapes_ps_dtypes_layouts) {
  static const uint8_t t2[2] = {1, 0}, t3[3] = {0, 2, 1}, p3[3] = {2, 1, 0};
  const double ps[] = {0, 1, 2, 3, 0.5, INFINITY};
  for (size_t k = 0; k < sizeof ps / sizeof ps[0]; k++) {
    CHECK(cdist_case(PTE_DTYPE_FLOAT, SZ(4, 3), 2, NULL, SZ(5, 3), 2, NULL, ps[k], 1e-5));
    CHECK(cdist_case(PTE_DTYPE_DOUBLE, SZ(2, 3, 4), 3, t3, SZ(2, 5, 4), 3, p3, ps[k], 1e-12));
    /* broadcast batch: [3,1,2,3] vs [4,5,3] -> [3,4,2,5] */
    CHECK(cdist_case(PTE_DTYPE_FLOAT, SZ(3, 1, 2, 3), 4, NULL, SZ(4, 5, 3), 3, t3, ps[k], 1e-5));
  }
  CHECK(cdist_case(PTE_DTYPE_FLOAT, SZ(6, 7), 2, t2, SZ(1, 7), 2, NULL, 2, 1e-5));
  CHECK(cdist_case(PTE_DTYPE_HALF, SZ(3, 2), 2, NULL, SZ(2, 2), 2, NULL, 2, 3e-3));
  CHECK(cdist_case(PTE_DTYPE_BFLOAT16, SZ(3, 2), 2, NULL, SZ(2, 2), 2, NULL, 1, 0));
  /* empty: P = 0, M = 0 */
  CHECK(cdist_case(PTE_DTYPE_FLOAT, SZ(0, 3), 2, NULL, SZ(4, 3), 2, NULL, 2, 0));
  CHECK(cdist_case(PTE_DTYPE_FLOAT, SZ(2, 0), 2, NULL, SZ(3, 0), 2, NULL, 2, 0));
}

TEST(pdist_numpy) {
  const double ps[] = {0, 1, 2, 1.5, INFINITY};
  static const uint8_t t2[2] = {1, 0};
  for (size_t k = 0; k < sizeof ps / sizeof ps[0]; k++) {
    for (int layout = 0; layout < 2; layout++) {
      int32_t sz[2] = {5, 3};
      double *a = ktest_rnd_array(15, rnd);
      np_script s = {0};
      nps_array(&s, "x", a, 15, sz, 2);
      nps_printf(&s, "%s", k_np_dist);
      nps_printf(&s, "i, j = np.triu_indices(5, 1)\nres = dist(x[i] - x[j], %.17g)\n", ps[k]);
      double *want = nps_run(&s, 10);
      CHECK(want != NULL);
      pte_tensor *x = ktest_tensor(PTE_DTYPE_FLOAT, 2, sz, layout ? t2 : NULL, a);
      pte_tensor *o = ktest_tensor_dyn(PTE_DTYPE_FLOAT, 1, SZ(1), NULL, 16);
      pte_evalue *args[] = {EV(x), ktest_ev_double(ps[k]), EV(o)};
      CHECK_OK(ktest_run(dist_fn("aten::_pdist_forward.out"), args, 3));
      CHECK(ktest_expect_shape(o, 1, SZ(10)));
      CHECK(ktest_expect(o, want, 10, 1e-5));
      free(a);
      free(want);
    }
  }
  /* N = 1 -> empty */
  pte_tensor *x1 = ktest_tensor(PTE_DTYPE_DOUBLE, 2, SZ(1, 3), NULL, DV(1, 2, 3));
  pte_tensor *o = ktest_tensor_dyn(PTE_DTYPE_DOUBLE, 1, SZ(1), NULL, 4);
  pte_evalue *args[] = {EV(x1), ktest_ev_double(2), EV(o)};
  CHECK_OK(ktest_run(dist_fn("aten::_pdist_forward.out"), args, 3));
  CHECK_EQ_INT(o->sizes[0], 0);
}

TEST(distance_errors) {
  pte_op_fn cd = dist_fn("aten::_cdist_forward.out"), pd = dist_fn("aten::_pdist_forward.out");
  pte_tensor *a = ktest_tensor(PTE_DTYPE_FLOAT, 2, SZ(2, 2), NULL, NULL);
  pte_tensor *b3 = ktest_tensor(PTE_DTYPE_FLOAT, 2, SZ(2, 3), NULL, NULL);
  pte_tensor *ai = ktest_tensor(PTE_DTYPE_INT, 2, SZ(2, 2), NULL, NULL);
  pte_tensor *ad = ktest_tensor(PTE_DTYPE_DOUBLE, 2, SZ(2, 2), NULL, NULL);
  pte_tensor *v = ktest_tensor(PTE_DTYPE_FLOAT, 1, SZ(2), NULL, NULL);
  pte_tensor *o = ktest_tensor(PTE_DTYPE_FLOAT, 2, SZ(2, 2), NULL, NULL);
  struct {
    pte_tensor *x1, *x2;
    double p;
    int64_t mode;
    const char *msg;
  } cases[] = {
      {a, b3, 2, 0, "same number of columns"},
      {a, a, -1, 0, "non-negative p"},
      {ai, ai, 2, 0, "floating-point dtypes, x1 is int32"},
      {a, ad, 2, 0, "x2 dtype float64 differs"},
      {v, a, 2, 0, "at least 2-D"},
      {a, a, 2, 3, "compute_mode"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    pte_evalue *args[] = {EV(cases[i].x1), EV(cases[i].x2), ktest_ev_double(cases[i].p), ktest_ev_int(cases[i].mode),
                          EV(o)};
    CHECK_STATUS(ktest_run(cd, args, 5), PTE_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(ktest_last_msg(), "_cdist_forward");
    CHECK_CONTAINS(ktest_last_msg(), cases[i].msg);
  }
  pte_tensor *x3 = ktest_tensor(PTE_DTYPE_FLOAT, 3, SZ(1, 2, 2), NULL, NULL);
  pte_evalue *args[] = {EV(x3), ktest_ev_double(2), EV(v)};
  CHECK_STATUS(ktest_run(pd, args, 3), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(ktest_last_msg(), "_pdist_forward: self must be 2-D");
}

int main(void) {
  RUN(cdist_hand_values);
  RUN(cdist_numpy_shapes_ps_dtypes_layouts);
  RUN(pdist_numpy);
  RUN(distance_errors);
  ktest_free_all();
  return test_summary();
}
