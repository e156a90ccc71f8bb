/* Tests for the floating unary math kernels (trig/hyperbolic, erf, expm1, log1p, log2, log10,
 * reciprocal, logit), rounding (ceil/floor/round/trunc), sign, isinf/isnan, _conj_physical, elu
 * and glu. Expected values come from closed forms (acos(1/2) = pi/3, cosh(ln 2) = 5/4, ...),
 * published constants (erf(1)) or hand derivation; never from pte's output. */
#include "portable/portable_activation.h"
#include "portable/portable_math.h"
#include "portable/portable_unary.h"
#include "support/ktest.h"
#include "support/ktest_sugar.h"
#include "test.h"

static pte_op_fn K(const char *name) {
  pte_op_fn f = ktest_find(pte_portable_umath_kernels, pte_portable_umath_kernels_count, name);
  if (!f) f = ktest_find(pte_portable_unary_kernels, pte_portable_unary_kernels_count, name);
  if (!f) f = ktest_find(pte_portable_activation_kernels, pte_portable_activation_kernels_count, name);
  if (!f) fprintf(stderr, "    kernel %s not found\n", name);
  return f;
}

#define CALL(name, ...) ktest_run(K(name), ARGS(__VA_ARGS__), NARGS(__VA_ARGS__))

#define PI 3.14159265358979323846
#define LN2 0.69314718055994530942
#define LN3 1.09861228866810969140
#define ERF1 0.84270079294971486934 /* erf(1), Abramowitz & Stegun table 7.1 */

/* One row per op: 4 float32 inputs, 4 expected results (closed forms). */
typedef struct math_case {
  const char *op;
  double in[4];
  double want[4];
} math_case;

TEST(unary_math_float32_values) {
  const double inf = INFINITY, nan = NAN;
  const math_case cases[] = {
      {"aten::acos.out", {1, 0.5, -1, 0}, {0, PI / 3, PI, PI / 2}},
      {"aten::acosh.out", {1, 2, 10, 0.5}, {0, log(2 + sqrt(3.0)), log(10 + sqrt(99.0)), nan}},
      {"aten::asin.out", {0, 0.5, -1, 2}, {0, PI / 6, -PI / 2, nan}},
      {"aten::asinh.out", {0, 1, -2, 0.75}, {0, log(1 + sqrt(2.0)), -log(2 + sqrt(5.0)), LN2}},
      {"aten::atan.out", {0, 1, -1, inf}, {0, PI / 4, -PI / 4, PI / 2}},
      {"aten::atanh.out", {0, 0.5, -0.5, 1}, {0, 0.5 * LN3, -0.5 * LN3, inf}},
      {"aten::cos.out", {0, PI / 3, PI, PI / 2}, {1, 0.5, -1, 0}},
      {"aten::cosh.out", {0, LN2, -LN2, 2 * LN2}, {1, 1.25, 1.25, 2.125}},
      {"aten::sin.out", {0, PI / 6, -PI / 2, PI}, {0, 0.5, -1, 0}},
      {"aten::sinh.out", {0, LN2, -LN2, 2 * LN2}, {0, 0.75, -0.75, 1.875}},
      {"aten::tan.out", {0, PI / 4, -PI / 4, PI / 3}, {0, 1, -1, sqrt(3.0)}},
      {"aten::erf.out", {0, 1, -1, inf}, {0, ERF1, -ERF1, 1}},
      {"aten::expm1.out", {0, LN2, -inf, 2 * LN2}, {0, 1, -1, 3}},
      {"aten::log1p.out", {0, 1, -1, 3}, {0, LN2, -inf, 2 * LN2}},
      {"aten::log2.out", {1, 8, 0.25, -1}, {0, 3, -2, nan}},
      {"aten::log10.out", {1, 1000, 0.01, 0}, {0, 3, -2, -inf}},
      {"aten::reciprocal.out", {2, -4, 0, -0.0}, {0.5, -0.25, inf, -inf}},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    pte_tensor *a = T(PTE_DTYPE_FLOAT, 2, SZ(2, 2), cases[i].in);
    pte_tensor *o = T(PTE_DTYPE_FLOAT, 2, SZ(2, 2), NULL);
    CHECK_MSG(CALL(cases[i].op, EV(a), EV(o), EV(o)) == PTE_OK, "%s", cases[i].op);
    CHECK_MSG(ktest_expect(o, cases[i].want, 4, 2e-6), "%s", cases[i].op);
    /* the same in double: 1e-14 */
    pte_tensor *ad = T(PTE_DTYPE_DOUBLE, 1, SZ(4), cases[i].in);
    pte_tensor *od = T(PTE_DTYPE_DOUBLE, 1, SZ(4), NULL);
    CHECK_MSG(CALL(cases[i].op, EV(ad), EV(od), EV(od)) == PTE_OK, "%s", cases[i].op);
    CHECK_MSG(ktest_expect(od, cases[i].want, 4, 1e-14), "%s (double)", cases[i].op);
  }
  /* reciprocal keeps the sign of zero */
  pte_tensor *z = T(PTE_DTYPE_FLOAT, 1, SZ(2), DV(0.0, -0.0));
  pte_tensor *oz = T(PTE_DTYPE_FLOAT, 1, SZ(2), NULL);
  CHECK_OK(CALL("aten::reciprocal.out", EV(z), EV(oz), EV(oz)));
  CHECK(ktest_get(oz, 0) > 0 && ktest_get(oz, 1) < 0);
}

TEST(expm1_log1p_are_accurate_near_zero) {
  /* expm1(x) = x + x^2/2 + ..., log1p(x) = x - x^2/2 + ...; exp(x) - 1 in double would be off by
   * ~8e-17 at x = 1e-10 (relative 1e-6). */
  pte_tensor *x = T(PTE_DTYPE_DOUBLE, 1, SZ(2), DV(1e-10, -1e-10));
  pte_tensor *o = T(PTE_DTYPE_DOUBLE, 1, SZ(2), NULL);
  CHECK_OK(CALL("aten::expm1.out", EV(x), EV(o), EV(o)));
  CHECK_NEAR(ktest_get(o, 0), 1e-10 + 5e-21, 1e-25);
  CHECK_NEAR(ktest_get(o, 1), -1e-10 + 5e-21, 1e-25);
  CHECK_OK(CALL("aten::log1p.out", EV(x), EV(o), EV(o)));
  CHECK_NEAR(ktest_get(o, 0), 1e-10 - 5e-21, 1e-25);
  CHECK_NEAR(ktest_get(o, 1), -1e-10 - 5e-21, 1e-25);
  /* float32: expm1f(1e-6) ~ 1.0000005e-6 (expf(1e-6f) - 1 would give ~9.5e-7) */
  pte_tensor *xf = T(PTE_DTYPE_FLOAT, 1, SZ(1), DV(1e-6));
  pte_tensor *of = T(PTE_DTYPE_FLOAT, 1, SZ(1), NULL);
  CHECK_OK(CALL("aten::expm1.out", EV(xf), EV(of), EV(of)));
  CHECK_NEAR(ktest_get(of, 0), (double)(float)1e-6 * (1 + 0.5e-6), 1e-12);
}

TEST(unary_math_dtypes) {
  /* integral and bool inputs compute in float32 */
  pte_tensor *i32 = T(PTE_DTYPE_INT, 1, SZ(3), DV(1, 8, 1024));
  pte_tensor *of = T(PTE_DTYPE_FLOAT, 1, SZ(3), NULL);
  CHECK_OK(CALL("aten::log2.out", EV(i32), EV(of), EV(of)));
  CHECK(ktest_expect(of, DV(0, 3, 10), 3, 0));
  pte_tensor *od = T(PTE_DTYPE_DOUBLE, 1, SZ(3), NULL); /* float result into a double out */
  CHECK_OK(CALL("aten::log10.out", EV(i32), EV(od), EV(od)));
  CHECK(ktest_expect(od, DV(0, (double)log10f(8.0f), (double)log10f(1024.0f)), 3, 1e-7));
  pte_tensor *bl = T(PTE_DTYPE_BOOL, 1, SZ(2), DV(1, 0));
  pte_tensor *ob = T(PTE_DTYPE_FLOAT, 1, SZ(2), NULL);
  CHECK_OK(CALL("aten::acos.out", EV(bl), EV(ob), EV(ob)));
  CHECK(ktest_expect(ob, DV(0, PI / 2), 2, 1e-6));
  pte_tensor *i64 = TI(PTE_DTYPE_LONG, 1, SZ(2), VI(-4, 0));
  CHECK_OK(CALL("aten::reciprocal.out", EV(i64), EV(ob), EV(ob)));
  CHECK(ktest_expect(ob, DV(-0.25, INFINITY), 2, 0));
  /* half: log2(8) = 3 exactly, sin(0) = 0; half result rounds: cos(1) = 0.5403 -> 0x3853 */
  pte_tensor *h = T(PTE_DTYPE_HALF, 1, SZ(2), DV(8, 1));
  pte_tensor *oh = T(PTE_DTYPE_HALF, 1, SZ(2), NULL);
  CHECK_OK(CALL("aten::log2.out", EV(h), EV(oh), EV(oh)));
  CHECK(ktest_expect(oh, DV(3, 0), 2, 0));
  CHECK_OK(CALL("aten::cos.out", EV(h), EV(oh), EV(oh)));
  /* cos(1) = 0.540302...; half spacing in [0.5,1) is 2^-11: 0.540302 * 2048 = 1106.54 -> 1107
   * -> 0x3800 + (1107 - 1024) = 0x3853 */
  CHECK_EQ_INT(ktest_get_u16(oh, 1), 0x3853);
  /* bfloat16: atan(1) = pi/4 = 0.785398; spacing 2^-8 in [0.5,1): 201.06 -> 201 ->
   * 0x3F00 + (201 - 128) = 0x3F49 */
  pte_tensor *bf = T(PTE_DTYPE_BFLOAT16, 1, SZ(1), DV(1));
  pte_tensor *obf = T(PTE_DTYPE_BFLOAT16, 1, SZ(1), NULL);
  CHECK_OK(CALL("aten::atan.out", EV(bf), EV(obf), EV(obf)));
  CHECK_EQ_INT(ktest_get_u16(obf, 0), 0x3F49);
  /* an integral out cannot hold a floating result */
  pte_tensor *oi = T(PTE_DTYPE_INT, 1, SZ(3), NULL);
  CHECK_STATUS(CALL("aten::sin.out", EV(i32), EV(oi), EV(oi)), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(ktest_last_msg(), "sin");
  CHECK_CONTAINS(ktest_last_msg(), "out");
  /* float32 result into a half out is a cast ATen allows */
  pte_tensor *f = T(PTE_DTYPE_FLOAT, 1, SZ(2), DV(0.25, 4));
  CHECK_OK(CALL("aten::log2.out", EV(f), EV(oh), EV(oh)));
  CHECK(ktest_expect(oh, DV(-2, 2), 2, 0));
}

TEST(unary_math_layouts_and_empty) {
  /* channels-last input, contiguous out and vice versa */
  const uint8_t cl[] = {0, 2, 3, 1};
  double v[8] = {1, 2, 4, 8, 16, 32, 64, 128};
  pte_tensor *a = ktest_tensor(PTE_DTYPE_FLOAT, 4, SZ(1, 2, 2, 2), cl, v);
  pte_tensor *o = T(PTE_DTYPE_FLOAT, 4, SZ(1, 2, 2, 2), NULL);
  CHECK_OK(CALL("aten::log2.out", EV(a), EV(o), EV(o)));
  CHECK(ktest_expect(o, DV(0, 1, 2, 3, 4, 5, 6, 7), 8, 0));
  pte_tensor *ocl = ktest_tensor(PTE_DTYPE_DOUBLE, 4, SZ(1, 2, 2, 2), cl, NULL);
  pte_tensor *c = T(PTE_DTYPE_FLOAT, 4, SZ(1, 2, 2, 2), v);
  CHECK_OK(CALL("aten::reciprocal.out", EV(c), EV(ocl), EV(ocl)));
  CHECK(ktest_expect(ocl, DV(1, 0.5, 0.25, 0.125, 0.0625, 0.03125, 0.015625, 0.0078125), 8, 0));
  /* out is resized from a dynamic bound */
  pte_tensor *dyn = ktest_tensor_dyn(PTE_DTYPE_FLOAT, 4, SZ(1, 1, 1, 1), NULL, 8);
  CHECK_OK(CALL("aten::log2.out", EV(a), EV(dyn), EV(dyn)));
  CHECK(ktest_expect_shape(dyn, 4, SZ(1, 2, 2, 2)));
  CHECK(ktest_expect(dyn, DV(0, 1, 2, 3, 4, 5, 6, 7), 8, 0));
  /* empty and 0-dim */
  pte_tensor *e = T(PTE_DTYPE_FLOAT, 2, SZ(0, 3), NULL);
  pte_tensor *oe = T(PTE_DTYPE_FLOAT, 2, SZ(0, 3), NULL);
  CHECK_OK(CALL("aten::tan.out", EV(e), EV(oe), EV(oe)));
  CHECK_EQ_INT(oe->numel, 0);
  pte_tensor *s = T(PTE_DTYPE_FLOAT, 0, NULL, DV(1000));
  pte_tensor *os = T(PTE_DTYPE_FLOAT, 0, NULL, NULL);
  CHECK_OK(CALL("aten::log10.out", EV(s), EV(os), EV(os)));
  CHECK(ktest_expect(os, DV(3), 1, 0));
  /* shape mismatch with a static out */
  pte_tensor *bad = T(PTE_DTYPE_FLOAT, 1, SZ(3), NULL);
  CHECK_STATUS(CALL("aten::cosh.out", EV(a), EV(bad), EV(bad)), PTE_ERR_INVALID_ARGUMENT);
}

TEST(logit_eps) {
  pte_tensor *x = T(PTE_DTYPE_FLOAT, 1, SZ(5), DV(0.5, 0.25, 0.75, 0, NAN));
  pte_tensor *o = T(PTE_DTYPE_FLOAT, 1, SZ(5), NULL);
  CHECK_OK(CALL("aten::logit.out", EV(x), NONE(), EV(o), EV(o)));
  CHECK(ktest_expect(o, DV(0, -LN3, LN3, -INFINITY, NAN), 5, 1e-6));
  /* eps clamps to [eps, 1 - eps]; NaN stays NaN */
  pte_tensor *y = T(PTE_DTYPE_FLOAT, 1, SZ(5), DV(0.5, 0.1, 0.9, 0, NAN));
  CHECK_OK(CALL("aten::logit.out", EV(y), D(0.25), EV(o), EV(o)));
  CHECK(ktest_expect(o, DV(0, -LN3, LN3, -LN3, NAN), 5, 1e-6));
  /* a negative eps means no clamping */
  CHECK_OK(CALL("aten::logit.out", EV(y), D(-1.0), EV(o), EV(o)));
  CHECK(ktest_expect(o, DV(0, -log(9.0), log(9.0), -INFINITY, NAN), 5, 2e-6));
  /* int input -> float: logit(0) = -inf, logit(1) = inf */
  pte_tensor *i = T(PTE_DTYPE_INT, 1, SZ(2), DV(0, 1));
  pte_tensor *oi = T(PTE_DTYPE_FLOAT, 1, SZ(2), NULL);
  CHECK_OK(CALL("aten::logit.out", EV(i), NONE(), EV(oi), EV(oi)));
  CHECK(ktest_expect(oi, DV(-INFINITY, INFINITY), 2, 0));
  /* double, eps 0.125: logit(0.125) = ln(1/7) */
  pte_tensor *d = T(PTE_DTYPE_DOUBLE, 1, SZ(2), DV(-3, 0.875));
  pte_tensor *od = T(PTE_DTYPE_DOUBLE, 1, SZ(2), NULL);
  CHECK_OK(CALL("aten::logit.out", EV(d), D(0.125), EV(od), EV(od)));
  CHECK(ktest_expect(od, DV(-log(7.0), log(7.0)), 2, 1e-15));
  CHECK_STATUS(CALL("aten::logit.out", EV(d), ktest_ev_string("x"), EV(od), EV(od)),
               PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(ktest_last_msg(), "logit: eps");
}

TEST(rounding_float) {
  const double in[10] = {-2.5, -0.5, 0.5, 1.5, 2.5, 2.7, -2.7, NAN, INFINITY, -0.0};
  struct {
    const char *op;
    double want[10];
  } rows[] = {
      {"aten::ceil.out", {-2, -0.0, 1, 2, 3, 3, -2, NAN, INFINITY, -0.0}},
      {"aten::floor.out", {-3, -1, 0, 1, 2, 2, -3, NAN, INFINITY, -0.0}},
      {"aten::round.out", {-2, -0.0, 0, 2, 2, 3, -3, NAN, INFINITY, -0.0}}, /* half to even */
      {"aten::trunc.out", {-2, -0.0, 0, 1, 2, 2, -2, NAN, INFINITY, -0.0}},
  };
  for (size_t r = 0; r < 4; r++) {
    pte_tensor *a = T(PTE_DTYPE_FLOAT, 1, SZ(10), in);
    pte_tensor *o = T(PTE_DTYPE_FLOAT, 1, SZ(10), NULL);
    CHECK_MSG(CALL(rows[r].op, EV(a), EV(o), EV(o)) == PTE_OK, "%s", rows[r].op);
    CHECK_MSG(ktest_expect(o, rows[r].want, 10, 0), "%s", rows[r].op);
    /* signs of zero: ceil(-0.5) = -0, trunc(-0.5) = -0, round(-0.5) = -0 */
    if (r != 1) CHECK_MSG(signbit(ktest_get(o, 1)), "%s(-0.5) keeps the sign", rows[r].op);
    CHECK_MSG(signbit(ktest_get(o, 9)), "%s(-0)", rows[r].op);
    /* double and half paths */
    pte_tensor *d = T(PTE_DTYPE_DOUBLE, 1, SZ(10), in);
    pte_tensor *od = T(PTE_DTYPE_DOUBLE, 1, SZ(10), NULL);
    CHECK_OK(CALL(rows[r].op, EV(d), EV(od), EV(od)));
    CHECK_MSG(ktest_expect(od, rows[r].want, 10, 0), "%s (double)", rows[r].op);
    pte_tensor *h = T(PTE_DTYPE_HALF, 1, SZ(10), in);
    pte_tensor *oh = T(PTE_DTYPE_HALF, 1, SZ(10), NULL);
    CHECK_OK(CALL(rows[r].op, EV(h), EV(oh), EV(oh)));
    /* 2.7 in half is 2.69921875; the rounded results are the same */
    CHECK_MSG(ktest_expect(oh, rows[r].want, 10, 0), "%s (half)", rows[r].op);
  }
  /* round: 0.49999999999999994 -> 0 and 2^52 + 1 stays (floor(x + 0.5) would get both wrong) */
  pte_tensor *d = T(PTE_DTYPE_DOUBLE, 1, SZ(2), DV(0.49999999999999994, 4503599627370497.0));
  pte_tensor *od = T(PTE_DTYPE_DOUBLE, 1, SZ(2), NULL);
  CHECK_OK(CALL("aten::round.out", EV(d), EV(od), EV(od)));
  CHECK(ktest_expect(od, DV(0, 4503599627370497.0), 2, 0));
  /* bfloat16 floor of -1.5 */
  pte_tensor *bf = T(PTE_DTYPE_BFLOAT16, 1, SZ(1), DV(-1.5));
  pte_tensor *obf = T(PTE_DTYPE_BFLOAT16, 1, SZ(1), NULL);
  CHECK_OK(CALL("aten::floor.out", EV(bf), EV(obf), EV(obf)));
  CHECK(ktest_expect(obf, DV(-2), 1, 0));
}

TEST(rounding_integers_pass_through) {
  const char *ops[4] = {"aten::ceil.out", "aten::floor.out", "aten::round.out", "aten::trunc.out"};
  const char *names[4] = {"ceil: input dtype", "floor: input dtype", "round: input dtype",
                          "trunc: input dtype"};
  for (int k = 0; k < 4; k++) {
    pte_tensor *l = TI(PTE_DTYPE_LONG, 1, SZ(3), VI(INT64_MAX, INT64_MIN, -3));
    pte_tensor *ol = T(PTE_DTYPE_LONG, 1, SZ(3), NULL);
    CHECK_OK(CALL(ops[k], EV(l), EV(ol), EV(ol)));
    CHECK(ktest_expect_i64(ol, VI(INT64_MAX, INT64_MIN, -3), 3));
    pte_tensor *c = T(PTE_DTYPE_CHAR, 1, SZ(2), DV(-128, 127));
    pte_tensor *oc = T(PTE_DTYPE_CHAR, 1, SZ(2), NULL);
    CHECK_OK(CALL(ops[k], EV(c), EV(oc), EV(oc)));
    CHECK(ktest_expect(oc, DV(-128, 127), 2, 0));
    /* bool is rejected, float result into int out is rejected */
    pte_tensor *b = T(PTE_DTYPE_BOOL, 1, SZ(1), DV(1));
    pte_tensor *ob = T(PTE_DTYPE_BOOL, 1, SZ(1), NULL);
    CHECK_STATUS(CALL(ops[k], EV(b), EV(ob), EV(ob)), PTE_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(ktest_last_msg(), names[k]);
    pte_tensor *f = T(PTE_DTYPE_FLOAT, 1, SZ(1), DV(1.5));
    pte_tensor *oi = T(PTE_DTYPE_INT, 1, SZ(1), NULL);
    CHECK_STATUS(CALL(ops[k], EV(f), EV(oi), EV(oi)), PTE_ERR_INVALID_ARGUMENT);
  }
}

TEST(sign_values) {
  pte_tensor *f = T(PTE_DTYPE_FLOAT, 1, SZ(6), DV(-3, 0, -0.0, 2e-30, NAN, -INFINITY));
  pte_tensor *o = T(PTE_DTYPE_FLOAT, 1, SZ(6), NULL);
  CHECK_OK(CALL("aten::sign.out", EV(f), EV(o), EV(o)));
  CHECK(ktest_expect(o, DV(-1, 0, 0, 1, NAN, -1), 6, 0));
  pte_tensor *c = T(PTE_DTYPE_CHAR, 1, SZ(3), DV(-128, 0, 127));
  pte_tensor *oc = T(PTE_DTYPE_CHAR, 1, SZ(3), NULL);
  CHECK_OK(CALL("aten::sign.out", EV(c), EV(oc), EV(oc)));
  CHECK(ktest_expect(oc, DV(-1, 0, 1), 3, 0));
  pte_tensor *u = T(PTE_DTYPE_BYTE, 1, SZ(2), DV(0, 255));
  pte_tensor *ou = T(PTE_DTYPE_BYTE, 1, SZ(2), NULL);
  CHECK_OK(CALL("aten::sign.out", EV(u), EV(ou), EV(ou)));
  CHECK(ktest_expect(ou, DV(0, 1), 2, 0));
  pte_tensor *l = TI(PTE_DTYPE_LONG, 1, SZ(2), VI(INT64_MIN, INT64_MAX));
  pte_tensor *ol = T(PTE_DTYPE_LONG, 1, SZ(2), NULL);
  CHECK_OK(CALL("aten::sign.out", EV(l), EV(ol), EV(ol)));
  CHECK(ktest_expect_i64(ol, VI(-1, 1), 2));
  pte_tensor *b = T(PTE_DTYPE_BOOL, 1, SZ(2), DV(1, 0));
  pte_tensor *ob = T(PTE_DTYPE_BOOL, 1, SZ(2), NULL);
  CHECK_OK(CALL("aten::sign.out", EV(b), EV(ob), EV(ob)));
  CHECK(ktest_expect(ob, DV(1, 0), 2, 0));
  pte_tensor *h = T(PTE_DTYPE_HALF, 1, SZ(2), DV(-0.001, 65504));
  pte_tensor *oh = T(PTE_DTYPE_HALF, 1, SZ(2), NULL);
  CHECK_OK(CALL("aten::sign.out", EV(h), EV(oh), EV(oh)));
  CHECK(ktest_expect(oh, DV(-1, 1), 2, 0));
}

TEST(isinf_isnan) {
  pte_tensor *f = T(PTE_DTYPE_FLOAT, 1, SZ(5), DV(1, INFINITY, -INFINITY, NAN, 0));
  pte_tensor *o = T(PTE_DTYPE_BOOL, 1, SZ(5), NULL);
  CHECK_OK(CALL("aten::isinf.out", EV(f), EV(o), EV(o)));
  CHECK(ktest_expect(o, DV(0, 1, 1, 0, 0), 5, 0));
  CHECK_OK(CALL("aten::isnan.out", EV(f), EV(o), EV(o)));
  CHECK(ktest_expect(o, DV(0, 0, 0, 1, 0), 5, 0));
  /* half and bfloat16 keep their infinities and NaNs; 65504 (half max) is finite */
  pte_tensor *h = T(PTE_DTYPE_HALF, 1, SZ(3), DV(65504, -INFINITY, NAN));
  pte_tensor *oh = T(PTE_DTYPE_BOOL, 1, SZ(3), NULL);
  CHECK_OK(CALL("aten::isinf.out", EV(h), EV(oh), EV(oh)));
  CHECK(ktest_expect(oh, DV(0, 1, 0), 3, 0));
  pte_tensor *bf = T(PTE_DTYPE_BFLOAT16, 1, SZ(3), DV(1e38, INFINITY, NAN));
  CHECK_OK(CALL("aten::isnan.out", EV(bf), EV(oh), EV(oh)));
  CHECK(ktest_expect(oh, DV(0, 0, 1), 3, 0));
  /* double beyond float range is finite */
  pte_tensor *d = T(PTE_DTYPE_DOUBLE, 1, SZ(2), DV(1e300, -INFINITY));
  pte_tensor *od = T(PTE_DTYPE_BOOL, 1, SZ(2), NULL);
  CHECK_OK(CALL("aten::isinf.out", EV(d), EV(od), EV(od)));
  CHECK(ktest_expect(od, DV(0, 1), 2, 0));
  /* integers and bools are never inf or NaN */
  pte_tensor *l = TI(PTE_DTYPE_LONG, 2, SZ(1, 2), VI(INT64_MAX, 0));
  pte_tensor *ol = T(PTE_DTYPE_BOOL, 2, SZ(1, 2), DV(1, 1));
  CHECK_OK(CALL("aten::isnan.out", EV(l), EV(ol), EV(ol)));
  CHECK(ktest_expect(ol, DV(0, 0), 2, 0));
  /* channels-last input */
  const uint8_t cl[] = {0, 2, 3, 1};
  pte_tensor *a = ktest_tensor(PTE_DTYPE_FLOAT, 4, SZ(1, 2, 1, 2), cl, DV(NAN, 1, 2, NAN));
  pte_tensor *oa = T(PTE_DTYPE_BOOL, 4, SZ(1, 2, 1, 2), NULL);
  CHECK_OK(CALL("aten::isnan.out", EV(a), EV(oa), EV(oa)));
  CHECK(ktest_expect(oa, DV(1, 0, 0, 1), 4, 0));
  /* out must be bool */
  pte_tensor *of = T(PTE_DTYPE_FLOAT, 1, SZ(5), NULL);
  CHECK_STATUS(CALL("aten::isinf.out", EV(f), EV(of), EV(of)), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(ktest_last_msg(), "isinf: out must be bool");
}

TEST(conj_physical_copies) {
  pte_tensor *l = TI(PTE_DTYPE_LONG, 1, SZ(2), VI(INT64_MIN, 9007199254740993LL));
  pte_tensor *ol = T(PTE_DTYPE_LONG, 1, SZ(2), NULL);
  CHECK_OK(CALL("aten::_conj_physical.out", EV(l), EV(ol), EV(ol)));
  CHECK(ktest_expect_i64(ol, VI(INT64_MIN, 9007199254740993LL), 2));
  const uint8_t cl[] = {0, 2, 3, 1};
  pte_tensor *f = ktest_tensor(PTE_DTYPE_FLOAT, 4, SZ(1, 2, 1, 2), cl, DV(1.5, -0.0, NAN, 4));
  pte_tensor *of = T(PTE_DTYPE_FLOAT, 4, SZ(1, 2, 1, 2), NULL);
  CHECK_OK(CALL("aten::_conj_physical.out", EV(f), EV(of), EV(of)));
  CHECK(ktest_expect(of, DV(1.5, -0.0, NAN, 4), 4, 0));
  CHECK(signbit(ktest_get(of, 1)));
  pte_tensor *b = T(PTE_DTYPE_BOOL, 1, SZ(2), DV(1, 0));
  pte_tensor *ob = T(PTE_DTYPE_BOOL, 1, SZ(2), NULL);
  CHECK_OK(CALL("aten::_conj_physical.out", EV(b), EV(ob), EV(ob)));
  CHECK(ktest_expect(ob, DV(1, 0), 2, 0));
  pte_tensor *oi = T(PTE_DTYPE_INT, 4, SZ(1, 2, 1, 2), NULL);
  CHECK_STATUS(CALL("aten::_conj_physical.out", EV(f), EV(oi), EV(oi)), PTE_ERR_INVALID_ARGUMENT);
}

TEST(elu_values) {
  /* alpha = scale = input_scale = 1: x <= 0 -> expm1(x) */
  pte_tensor *x = T(PTE_DTYPE_FLOAT, 1, SZ(6), DV(-LN2, 0, 2, -INFINITY, NAN, -2 * LN2));
  pte_tensor *o = T(PTE_DTYPE_FLOAT, 1, SZ(6), NULL);
  CHECK_OK(CALL("aten::elu.out", EV(x), I(1), I(1), I(1), EV(o), EV(o)));
  CHECK(ktest_expect(o, DV(-0.5, 0, 2, -1, NAN, -0.75), 6, 1e-7));
  /* alpha 2, scale 1.5, input_scale 0.5: x = -2 ln 2 -> 3 * expm1(-ln 2) = -1.5; x = 3 -> 4.5 */
  pte_tensor *y = T(PTE_DTYPE_DOUBLE, 2, SZ(1, 2), DV(-2 * LN2, 3));
  pte_tensor *od = T(PTE_DTYPE_DOUBLE, 2, SZ(1, 2), NULL);
  CHECK_OK(CALL("aten::elu.out", EV(y), D(2.0), D(1.5), D(0.5), EV(od), EV(od)));
  CHECK(ktest_expect(od, DV(-1.5, 4.5), 2, 1e-15));
  /* half */
  pte_tensor *h = T(PTE_DTYPE_HALF, 1, SZ(2), DV(-LN2, 1.5));
  pte_tensor *oh = T(PTE_DTYPE_HALF, 1, SZ(2), NULL);
  CHECK_OK(CALL("aten::elu.out", EV(h), I(1), I(1), I(1), EV(oh), EV(oh)));
  CHECK(ktest_expect(oh, DV(-0.5, 1.5), 2, 1e-3));
  /* integral input is rejected; a non-scalar alpha too */
  pte_tensor *i = T(PTE_DTYPE_INT, 1, SZ(1), DV(1));
  pte_tensor *oi = T(PTE_DTYPE_FLOAT, 1, SZ(1), NULL);
  CHECK_STATUS(CALL("aten::elu.out", EV(i), I(1), I(1), I(1), EV(oi), EV(oi)),
               PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(ktest_last_msg(), "elu");
  CHECK_STATUS(CALL("aten::elu.out", EV(x), NONE(), I(1), I(1), EV(o), EV(o)),
               PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(ktest_last_msg(), "elu: alpha");
}

TEST(glu_values) {
  /* [[1, 2 | 0, ln3], [5, 6 | -ln3, 0]] along the last dim: sigmoid(0) = 1/2,
   * sigmoid(ln 3) = 3/4, sigmoid(-ln 3) = 1/4 */
  pte_tensor *x = T(PTE_DTYPE_FLOAT, 2, SZ(2, 4), DV(1, 2, 0, LN3, 5, 6, -LN3, 0));
  pte_tensor *o = ktest_tensor_dyn(PTE_DTYPE_FLOAT, 2, SZ(2, 4), NULL, 8);
  CHECK_OK(CALL("aten::glu.out", EV(x), I(-1), EV(o), EV(o)));
  CHECK(ktest_expect_shape(o, 2, SZ(2, 2)));
  CHECK(ktest_expect(o, DV(0.5, 1.5, 1.25, 3.0), 4, 1e-6));
  /* dim 0: first row gated by the second */
  pte_tensor *o0 = T(PTE_DTYPE_DOUBLE, 2, SZ(1, 4), NULL);
  CHECK_OK(CALL("aten::glu.out", EV(x), I(0), EV(o0), EV(o0)));
  CHECK(ktest_expect(o0, DV(1 / (1 + exp(-5.0)), 2 / (1 + exp(-6.0)), 0, LN3 / 2), 4, 1e-7));
  /* channels-last [1,2,2,2] along the channel dim */
  const uint8_t cl[] = {0, 2, 3, 1};
  pte_tensor *c = ktest_tensor(PTE_DTYPE_DOUBLE, 4, SZ(1, 2, 2, 2), cl,
                               DV(1, 2, 3, 4, 0, LN3, -LN3, 0));
  pte_tensor *oc = T(PTE_DTYPE_DOUBLE, 4, SZ(1, 1, 2, 2), NULL);
  CHECK_OK(CALL("aten::glu.out", EV(c), I(1), EV(oc), EV(oc)));
  CHECK(ktest_expect(oc, DV(0.5, 1.5, 0.75, 2.0), 4, 1e-15));
  /* empty */
  pte_tensor *e = T(PTE_DTYPE_FLOAT, 2, SZ(0, 4), NULL);
  pte_tensor *oe = T(PTE_DTYPE_FLOAT, 2, SZ(0, 2), NULL);
  CHECK_OK(CALL("aten::glu.out", EV(e), I(1), EV(oe), EV(oe)));
  /* errors: odd size, dim out of range, integral input */
  pte_tensor *odd = T(PTE_DTYPE_FLOAT, 1, SZ(3), DV(1, 2, 3));
  pte_tensor *oo = T(PTE_DTYPE_FLOAT, 1, SZ(1), NULL);
  CHECK_STATUS(CALL("aten::glu.out", EV(odd), I(0), EV(oo), EV(oo)), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(ktest_last_msg(), "must be even");
  CHECK_STATUS(CALL("aten::glu.out", EV(x), I(2), EV(o), EV(o)), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(ktest_last_msg(), "glu: dim 2");
  pte_tensor *i = T(PTE_DTYPE_INT, 1, SZ(2), DV(1, 2));
  pte_tensor *oi = T(PTE_DTYPE_FLOAT, 1, SZ(1), NULL);
  CHECK_STATUS(CALL("aten::glu.out", EV(i), I(0), EV(oi), EV(oi)), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(ktest_last_msg(), "glu: self");
}

int main(void) {
  RUN(unary_math_float32_values);
  RUN(expm1_log1p_are_accurate_near_zero);
  RUN(unary_math_dtypes);
  RUN(unary_math_layouts_and_empty);
  RUN(logit_eps);
  RUN(rounding_float);
  RUN(rounding_integers_pass_through);
  RUN(sign_values);
  RUN(isinf_isnan);
  RUN(conj_physical_copies);
  RUN(elu_values);
  RUN(glu_values);
  ktest_free_all();
  return test_summary();
}
