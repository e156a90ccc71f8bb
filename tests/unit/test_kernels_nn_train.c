/* Tests for the training-mode kernels: _native_batch_norm_legit (.out / .no_stats_out) in
 * op_norm.c. Expected values are derived by hand in the comments. */
#include "test.h"

#include "portable/portable_nn.h"
#include "support/ktest.h"
#include "support/ktest_sugar.h"

static pte_op_fn norm_fn(const char *name) {
  return ktest_find(pte_portable_norm_kernels, pte_portable_norm_kernels_count, name);
}

/* x: [N=2, C=2, H=1, W=2] = 1..8. Channel 0 holds {1,2,5,6}: mean 3.5, squared deviations
 * 6.25+2.25+2.25+6.25 = 17, biased var 4.25, unbiased 17/3. Channel 1 holds {3,4,7,8}: mean 5.5,
 * same variances. With eps 0.75, var + eps = 5. */
TEST(batch_norm_legit_training) {
  pte_op_fn fn = norm_fn("aten::_native_batch_norm_legit.out");
  const double x[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  const double is5 = 1.0 / sqrt(5.0);
  double want[8];
  for (int i = 0; i < 8; i++) {
    int c = (i / 2) % 2;
    want[i] = c == 0 ? (x[i] - 3.5) * is5 * 2 + 0.5 : (x[i] - 5.5) * is5 * 1 + 0;
  }
  for (int layout = 0; layout < 2; layout++) {
    const uint8_t *ord = layout ? ktest_cl4 : NULL;
    pte_tensor *in = ktest_tensor(PTE_DTYPE_FLOAT, 4, SZ(2, 2, 1, 2), ord, x);
    pte_tensor *w = ktest_tensor(PTE_DTYPE_FLOAT, 1, SZ(2), NULL, DV(2, 1));
    pte_tensor *b = ktest_tensor(PTE_DTYPE_FLOAT, 1, SZ(2), NULL, DV(0.5, 0));
    pte_tensor *rm = ktest_tensor(PTE_DTYPE_FLOAT, 1, SZ(2), NULL, DV(1, 0));
    pte_tensor *rv = ktest_tensor(PTE_DTYPE_FLOAT, 1, SZ(2), NULL, DV(4, 0.25));
    pte_tensor *o = ktest_tensor(PTE_DTYPE_FLOAT, 4, SZ(2, 2, 1, 2), ord, NULL);
    pte_tensor *sm = ktest_tensor_dyn(PTE_DTYPE_FLOAT, 1, SZ(0), NULL, 4);
    pte_tensor *si = ktest_tensor_dyn(PTE_DTYPE_FLOAT, 1, SZ(0), NULL, 4);
    pte_tensor *items[3] = {o, sm, si};
    pte_evalue *args[] = {EV(in), EV(w), EV(b), EV(rm), EV(rv), ktest_ev_bool(true), ktest_ev_double(0.1),
                          ktest_ev_double(0.75), EV(o), EV(sm), EV(si), ktest_ev_tensor_list(items, 3)};
    CHECK_OK(ktest_run(fn, args, 12));
    CHECK(ktest_expect(o, want, 8, 1e-6));
    CHECK(ktest_expect_shape(sm, 1, SZ(2)));
    CHECK(ktest_expect(sm, DV(3.5, 5.5), 2, 1e-6));
    CHECK(ktest_expect(si, DV(is5, is5), 2, 1e-6));
    /* running_mean = 0.9 * old + 0.1 * mean; running_var = 0.9 * old + 0.1 * 17/3 */
    CHECK(ktest_expect(rm, DV(0.9 + 0.35, 0.55), 2, 1e-6));
    CHECK(ktest_expect(rv, DV(3.6 + 1.7 / 3, 0.225 + 1.7 / 3), 2, 1e-6));
  }
}

TEST(batch_norm_legit_eval_uses_running_stats) {
  pte_op_fn fn = norm_fn("aten::_native_batch_norm_legit.out");
  /* running mean 1 / var 3, eps 1: (x - 1) / 2; running stats untouched */
  pte_tensor *in = ktest_tensor(PTE_DTYPE_DOUBLE, 2, SZ(2, 1), NULL, DV(3, 7));
  pte_tensor *rm = ktest_tensor(PTE_DTYPE_DOUBLE, 1, SZ(1), NULL, DV(1));
  pte_tensor *rv = ktest_tensor(PTE_DTYPE_DOUBLE, 1, SZ(1), NULL, DV(3));
  pte_tensor *o = ktest_tensor(PTE_DTYPE_DOUBLE, 2, SZ(2, 1), NULL, NULL);
  pte_tensor *sm = ktest_tensor_dyn(PTE_DTYPE_DOUBLE, 1, SZ(1), NULL, 4);
  pte_tensor *si = ktest_tensor_dyn(PTE_DTYPE_DOUBLE, 1, SZ(1), NULL, 4);
  pte_evalue *args[] = {EV(in), ktest_ev_none(), ktest_ev_none(), EV(rm), EV(rv), ktest_ev_bool(false),
                        ktest_ev_double(0.5), ktest_ev_double(1.0), EV(o), EV(sm), EV(si)};
  CHECK_OK(ktest_run(fn, args, 11));
  CHECK(ktest_expect(o, DV(1, 3), 2, 1e-12));
  CHECK(ktest_expect(rm, DV(1), 1, 0));
  CHECK(ktest_expect(rv, DV(3), 1, 0));
  CHECK_EQ_INT(sm->sizes[0], 0);
}

TEST(batch_norm_no_stats) {
  pte_op_fn fn = norm_fn("aten::_native_batch_norm_legit.no_stats_out");
  /* [N=3, C=1, L=1] = {0, 3, 6}: mean 3, var 6, eps 3 -> invstd 1/3; out = (x - 3) / 3 */
  pte_tensor *in = ktest_tensor(PTE_DTYPE_DOUBLE, 3, SZ(3, 1, 1), NULL, DV(0, 3, 6));
  pte_tensor *o = ktest_tensor(PTE_DTYPE_DOUBLE, 3, SZ(3, 1, 1), NULL, NULL);
  pte_tensor *sm = ktest_tensor(PTE_DTYPE_DOUBLE, 1, SZ(1), NULL, NULL);
  pte_tensor *si = ktest_tensor(PTE_DTYPE_DOUBLE, 1, SZ(1), NULL, NULL);
  pte_evalue *args[] = {EV(in), ktest_ev_none(), ktest_ev_none(), ktest_ev_bool(true), ktest_ev_double(0.1),
                        ktest_ev_double(3.0), EV(o), EV(sm), EV(si)};
  CHECK_OK(ktest_run(fn, args, 9));
  CHECK(ktest_expect(o, DV(-1, 0, 1), 3, 1e-12));
  CHECK(ktest_expect(sm, DV(3), 1, 1e-12));
  CHECK(ktest_expect(si, DV(1.0 / 3), 1, 1e-12));
  /* half input, 2-D [N=2, C=2], weight 0.5: channel 0 {1, 3} mean 2 var 1; channel 1 {-4, 4} mean 0
   * var 16; eps 0 -> ch0 (x-2)*0.5, ch1 x/4*0.5 */
  pte_tensor *h = ktest_tensor(PTE_DTYPE_HALF, 2, SZ(2, 2), NULL, DV(1, -4, 3, 4));
  pte_tensor *w = ktest_tensor(PTE_DTYPE_HALF, 1, SZ(2), NULL, DV(0.5, 0.5));
  pte_tensor *oh = ktest_tensor(PTE_DTYPE_HALF, 2, SZ(2, 2), NULL, NULL);
  pte_tensor *smh = ktest_tensor(PTE_DTYPE_HALF, 1, SZ(2), NULL, NULL);
  pte_tensor *sih = ktest_tensor(PTE_DTYPE_HALF, 1, SZ(2), NULL, NULL);
  pte_evalue *a2[] = {EV(h), EV(w), ktest_ev_none(), ktest_ev_bool(true), ktest_ev_double(0.1),
                      ktest_ev_double(0.0), EV(oh), EV(smh), EV(sih)};
  CHECK_OK(ktest_run(fn, a2, 9));
  CHECK(ktest_expect(oh, DV(-0.5, -0.5, 0.5, 0.5), 4, 0));
  CHECK(ktest_expect(sih, DV(1, 0.25), 2, 0));
  /* errors: integer input; 1-D input; weight of the wrong size */
  pte_tensor *xi = ktest_tensor(PTE_DTYPE_INT, 2, SZ(2, 2), NULL, DV(1, 2, 3, 4));
  pte_evalue *a3[] = {EV(xi), ktest_ev_none(), ktest_ev_none(), ktest_ev_bool(true), ktest_ev_double(0.1),
                      ktest_ev_double(0.0), EV(oh), EV(smh), EV(sih)};
  CHECK_STATUS(ktest_run(fn, a3, 9), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(ktest_last_msg(), "input: expected a floating dtype");
  pte_tensor *x1 = ktest_tensor(PTE_DTYPE_HALF, 1, SZ(2), NULL, DV(1, 2));
  pte_evalue *a4[] = {EV(x1), ktest_ev_none(), ktest_ev_none(), ktest_ev_bool(true), ktest_ev_double(0.1),
                      ktest_ev_double(0.0), EV(oh), EV(smh), EV(sih)};
  CHECK_STATUS(ktest_run(fn, a4, 9), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(ktest_last_msg(), "at least 2-D");
  pte_tensor *w3 = ktest_tensor(PTE_DTYPE_HALF, 1, SZ(3), NULL, DV(1, 1, 1));
  pte_evalue *a5[] = {EV(h), EV(w3), ktest_ev_none(), ktest_ev_bool(true), ktest_ev_double(0.1),
                      ktest_ev_double(0.0), EV(oh), EV(smh), EV(sih)};
  CHECK_STATUS(ktest_run(fn, a5, 9), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(ktest_last_msg(), "weight: expected shape [2]");
  /* training=False without running stats */
  pte_evalue *a6[] = {EV(h), EV(w), ktest_ev_none(), ktest_ev_bool(false), ktest_ev_double(0.1),
                      ktest_ev_double(0.0), EV(oh), EV(smh), EV(sih)};
  CHECK_STATUS(ktest_run(fn, a6, 9), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(ktest_last_msg(), "training=False needs running_mean");
}

int main(void) {
  RUN(batch_norm_legit_training);
  RUN(batch_norm_legit_eval_uses_running_stats);
  RUN(batch_norm_no_stats);
  ktest_free_all();
  return test_summary();
}
