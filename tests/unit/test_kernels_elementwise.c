/* Tests for the elementwise portable kernels: binary arithmetic, unary math, activations,
 * comparisons/where/masked_fill, fills and copies. Expected values are worked out by hand. */
#include "portable/portable_activation.h"
#include "portable/portable_binary.h"
#include "portable/portable_compare.h"
#include "portable/portable_copy.h"
#include "portable/portable_unary.h"
#include "support/ktest.h"
#include "support/ktest_sugar.h"
#include "test.h"

static pte_op_fn K(const char *name) {
  pte_op_fn f = ktest_find(pte_portable_binary_kernels, pte_portable_binary_kernels_count, name);
  if (!f) f = ktest_find(pte_portable_unary_kernels, pte_portable_unary_kernels_count, name);
  if (!f) f = ktest_find(pte_portable_activation_kernels, pte_portable_activation_kernels_count, name);
  if (!f) f = ktest_find(pte_portable_compare_kernels, pte_portable_compare_kernels_count, name);
  if (!f) f = ktest_find(pte_portable_copy_kernels, pte_portable_copy_kernels_count, name);
  if (!f) fprintf(stderr, "    kernel %s not found\n", name);
  return f;
}

/* Runs kernel `name` with the given EValues. */
#define CALL(name, ...) ktest_run(K(name), ARGS(__VA_ARGS__), NARGS(__VA_ARGS__))

/* ------------------------------------------------------------------------------------------ */
/* add / sub / mul */

TEST(add_broadcast_alpha) {
  pte_tensor *a = T(PTE_DTYPE_FLOAT, 2, SZ(2, 3), DV(1, 2, 3, 4, 5, 6));
  pte_tensor *b = T(PTE_DTYPE_FLOAT, 1, SZ(3), DV(10, 20, 30));
  pte_tensor *o = T(PTE_DTYPE_FLOAT, 2, SZ(2, 3), NULL);
  pte_evalue *out = EV(o);
  CHECK_OK(CALL("aten::add.out", EV(a), EV(b), I(2), out, out));
  CHECK(ktest_expect(o, DV(21, 42, 63, 24, 45, 66), 6, 0));
  /* other order: b + a, alpha 1 */
  CHECK_OK(CALL("aten::add.out", EV(b), EV(a), I(1), out, out));
  CHECK(ktest_expect(o, DV(11, 22, 33, 14, 25, 36), 6, 0));
}

TEST(add_zero_dim_and_rank_mismatch) {
  pte_tensor *s = T(PTE_DTYPE_FLOAT, 0, NULL, DV(0.5));
  pte_tensor *a = T(PTE_DTYPE_FLOAT, 2, SZ(2, 2), DV(1, 2, 3, 4));
  pte_tensor *o = T(PTE_DTYPE_FLOAT, 2, SZ(2, 2), NULL);
  CHECK_OK(CALL("aten::add.out", EV(s), EV(a), I(1), EV(o), EV(o)));
  CHECK(ktest_expect(o, DV(1.5, 2.5, 3.5, 4.5), 4, 0));
  /* [2,1,2] + [3,1] -> [2,3,2] */
  pte_tensor *x = T(PTE_DTYPE_FLOAT, 3, SZ(2, 1, 2), DV(1, 2, 3, 4));
  pte_tensor *y = T(PTE_DTYPE_FLOAT, 2, SZ(3, 1), DV(10, 20, 30));
  pte_tensor *o2 = ktest_tensor_dyn(PTE_DTYPE_FLOAT, 3, SZ(1, 1, 1), NULL, 12);
  CHECK_OK(CALL("aten::add.out", EV(x), EV(y), I(1), EV(o2), EV(o2)));
  CHECK(ktest_expect_shape(o2, 3, SZ(2, 3, 2)));
  CHECK(ktest_expect(o2, DV(11, 12, 21, 22, 31, 32, 13, 14, 23, 24, 33, 34), 12, 0));
  /* 0-dim + 0-dim -> 0-dim */
  pte_tensor *o3 = T(PTE_DTYPE_FLOAT, 0, NULL, NULL);
  CHECK_OK(CALL("aten::add.out", EV(s), EV(s), I(3), EV(o3), EV(o3)));
  CHECK(ktest_expect(o3, DV(2.0), 1, 0));
  /* size-1 dims on both sides: [1,3] + [2,1] -> [2,3] */
  pte_tensor *p = T(PTE_DTYPE_DOUBLE, 2, SZ(1, 3), DV(1, 2, 3));
  pte_tensor *q = T(PTE_DTYPE_DOUBLE, 2, SZ(2, 1), DV(100, 200));
  pte_tensor *o4 = T(PTE_DTYPE_DOUBLE, 2, SZ(2, 3), NULL);
  CHECK_OK(CALL("aten::add.out", EV(p), EV(q), I(1), EV(o4), EV(o4)));
  CHECK(ktest_expect(o4, DV(101, 102, 103, 201, 202, 203), 6, 0));
}

TEST(add_type_promotion) {
  /* int32 tensor + float64 Scalar -> float32 */
  pte_tensor *a = T(PTE_DTYPE_INT, 1, SZ(3), DV(1, 2, 3));
  pte_tensor *of = T(PTE_DTYPE_FLOAT, 1, SZ(3), NULL);
  CHECK_OK(CALL("aten::add.Scalar_out", EV(a), D(0.5), I(1), EV(of), EV(of)));
  CHECK(ktest_expect(of, DV(1.5, 2.5, 3.5), 3, 0));
  pte_tensor *oi = T(PTE_DTYPE_INT, 1, SZ(3), NULL);
  CHECK_STATUS(CALL("aten::add.Scalar_out", EV(a), D(0.5), I(1), EV(oi), EV(oi)),
               PTE_ERR_INVALID_ARGUMENT);
  /* int32 + Int scalar stays int32 */
  CHECK_OK(CALL("aten::add.Scalar_out", EV(a), I(10), I(2), EV(oi), EV(oi)));
  CHECK(ktest_expect(oi, DV(21, 22, 23), 3, 0));
  /* int8 + uint8 -> int16 */
  pte_tensor *i8 = T(PTE_DTYPE_CHAR, 1, SZ(3), DV(-128, 127, -1));
  pte_tensor *u8 = T(PTE_DTYPE_BYTE, 1, SZ(3), DV(255, 255, 1));
  pte_tensor *o16 = T(PTE_DTYPE_SHORT, 1, SZ(3), NULL);
  CHECK_OK(CALL("aten::add.out", EV(i8), EV(u8), I(1), EV(o16), EV(o16)));
  CHECK(ktest_expect(o16, DV(127, 382, 0), 3, 0));
  /* int8 out cannot hold int16 result semantics? canCast(int16 -> int8) is allowed (wraps) */
  pte_tensor *o8 = T(PTE_DTYPE_CHAR, 1, SZ(3), NULL);
  CHECK_OK(CALL("aten::add.out", EV(i8), EV(u8), I(1), EV(o8), EV(o8)));
  CHECK(ktest_expect(o8, DV(127, 126, 0), 3, 0)); /* 382 wraps to 126 */
  /* half + float -> float */
  pte_tensor *h = T(PTE_DTYPE_HALF, 1, SZ(2), DV(1.5, 0.333251953125));
  pte_tensor *f = T(PTE_DTYPE_FLOAT, 1, SZ(2), DV(0.25, 1e-4));
  pte_tensor *o32 = T(PTE_DTYPE_FLOAT, 1, SZ(2), NULL);
  CHECK_OK(CALL("aten::add.out", EV(h), EV(f), I(1), EV(o32), EV(o32)));
  CHECK(ktest_expect(o32, DV(1.75, (double)(0.333251953125f + 1e-4f)), 2, 0));
  /* float out cannot take a float result into int: InvalidArgument */
  pte_tensor *ol = T(PTE_DTYPE_LONG, 1, SZ(2), NULL);
  CHECK_STATUS(CALL("aten::add.out", EV(h), EV(f), I(1), EV(ol), EV(ol)),
               PTE_ERR_INVALID_ARGUMENT);
  /* int64 + double tensor -> double */
  pte_tensor *l = TI(PTE_DTYPE_LONG, 1, SZ(1), VI(3));
  pte_tensor *d = T(PTE_DTYPE_DOUBLE, 1, SZ(1), DV(0.125));
  pte_tensor *od = T(PTE_DTYPE_DOUBLE, 1, SZ(1), NULL);
  CHECK_OK(CALL("aten::add.out", EV(l), EV(d), I(1), EV(od), EV(od)));
  CHECK(ktest_expect(od, DV(3.125), 1, 0));
}

TEST(add_bool_rules) {
  pte_tensor *a = T(PTE_DTYPE_BOOL, 1, SZ(4), DV(1, 0, 1, 0));
  pte_tensor *b = T(PTE_DTYPE_BOOL, 1, SZ(4), DV(1, 1, 0, 0));
  pte_tensor *o = T(PTE_DTYPE_BOOL, 1, SZ(4), NULL);
  CHECK_OK(CALL("aten::add.out", EV(a), EV(b), I(1), EV(o), EV(o)));
  CHECK(ktest_expect(o, DV(1, 1, 1, 0), 4, 0)); /* logical or */
  CHECK_OK(CALL("aten::add.out", EV(a), EV(b), B(true), EV(o), EV(o)));
  CHECK(ktest_expect(o, DV(1, 1, 1, 0), 4, 0));
  CHECK_OK(CALL("aten::mul.out", EV(a), EV(b), EV(o), EV(o)));
  CHECK(ktest_expect(o, DV(1, 0, 0, 0), 4, 0)); /* logical and */
  /* bool + bool into an int out: values are still 0/1 */
  pte_tensor *oi = T(PTE_DTYPE_INT, 1, SZ(4), NULL);
  CHECK_OK(CALL("aten::add.out", EV(a), EV(b), I(1), EV(oi), EV(oi)));
  CHECK(ktest_expect(oi, DV(1, 1, 1, 0), 4, 0));
  /* bool tensor + Int scalar -> int64 */
  pte_tensor *ol = T(PTE_DTYPE_LONG, 1, SZ(4), NULL);
  CHECK_OK(CALL("aten::add.Scalar_out", EV(a), I(2), I(1), EV(ol), EV(ol)));
  CHECK(ktest_expect(ol, DV(3, 2, 3, 2), 4, 0));
  /* bool result needs a non-bool out? canCast(int64 -> bool) fails */
  CHECK_STATUS(CALL("aten::add.Scalar_out", EV(a), I(2), I(1), EV(o), EV(o)),
               PTE_ERR_INVALID_ARGUMENT);
  /* Bool alpha with non-bool inputs; float alpha with integral inputs */
  pte_tensor *n = T(PTE_DTYPE_INT, 1, SZ(4), DV(1, 2, 3, 4));
  CHECK_STATUS(CALL("aten::add.out", EV(n), EV(n), B(true), EV(oi), EV(oi)),
               PTE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(CALL("aten::add.out", EV(n), EV(n), D(1.5), EV(oi), EV(oi)),
               PTE_ERR_INVALID_ARGUMENT);
  /* sub on bools is rejected */
  CHECK_STATUS(CALL("aten::sub.out", EV(a), EV(b), I(1), EV(o), EV(o)),
               PTE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(CALL("aten::sub.Scalar_out", EV(n), B(true), I(1), EV(oi), EV(oi)),
               PTE_ERR_INVALID_ARGUMENT);
}

TEST(half_and_bf16_rounding_ties) {
  /* half: 1 + 2^-11 ties to 1.0 (even); (1 + 2^-10) + 2^-11 ties to 1 + 2^-9 */
  pte_tensor *a = T(PTE_DTYPE_HALF, 1, SZ(2), DV(1.0, 1.0009765625));
  pte_tensor *b = T(PTE_DTYPE_HALF, 1, SZ(1), DV(0.00048828125));
  pte_tensor *o = T(PTE_DTYPE_HALF, 1, SZ(2), NULL);
  CHECK_OK(CALL("aten::add.out", EV(a), EV(b), I(1), EV(o), EV(o)));
  CHECK_EQ_INT(ktest_get_u16(o, 0), 0x3C00);
  CHECK_EQ_INT(ktest_get_u16(o, 1), 0x3C02);
  /* bf16: 1 + 2^-8 ties to 1.0; (1 + 2^-7) + 2^-8 ties to 1 + 2^-6 */
  pte_tensor *c = T(PTE_DTYPE_BFLOAT16, 1, SZ(2), DV(1.0, 1.0078125));
  pte_tensor *d = T(PTE_DTYPE_BFLOAT16, 1, SZ(1), DV(0.00390625));
  pte_tensor *ob = T(PTE_DTYPE_BFLOAT16, 1, SZ(2), NULL);
  CHECK_OK(CALL("aten::add.out", EV(c), EV(d), I(1), EV(ob), EV(ob)));
  CHECK_EQ_INT(ktest_get_u16(ob, 0), 0x3F80);
  CHECK_EQ_INT(ktest_get_u16(ob, 1), 0x3F82);
  /* half * Double scalar: computed in float, rounded once to half: 3 * 0.1 = 0.3 -> 0x34CD */
  pte_tensor *h = T(PTE_DTYPE_HALF, 1, SZ(1), DV(3.0));
  pte_tensor *oh = T(PTE_DTYPE_HALF, 1, SZ(1), NULL);
  CHECK_OK(CALL("aten::mul.Scalar_out", EV(h), D(0.1), EV(oh), EV(oh)));
  CHECK_EQ_INT(ktest_get_u16(oh, 0), 0x34CD);
  /* half + bfloat16 -> float */
  pte_tensor *of = T(PTE_DTYPE_FLOAT, 1, SZ(2), NULL);
  CHECK_OK(CALL("aten::add.out", EV(a), EV(c), I(1), EV(of), EV(of)));
  CHECK(ktest_expect(of, DV(2.0, 1.0009765625 + 1.0078125), 2, 0));
}

TEST(integer_wraparound) {
  pte_tensor *a = TI(PTE_DTYPE_INT, 1, SZ(2), VI(INT32_MAX, INT32_MIN));
  pte_tensor *o = T(PTE_DTYPE_INT, 1, SZ(2), NULL);
  CHECK_OK(CALL("aten::add.Scalar_out", EV(a), I(1), I(1), EV(o), EV(o)));
  CHECK(ktest_expect_i64(o, VI(INT32_MIN, INT32_MIN + 1), 2));
  pte_tensor *l = TI(PTE_DTYPE_LONG, 1, SZ(2), VI(INT64_MAX, INT64_MIN));
  pte_tensor *ol = T(PTE_DTYPE_LONG, 1, SZ(2), NULL);
  CHECK_OK(CALL("aten::add.Scalar_out", EV(l), I(1), I(1), EV(ol), EV(ol)));
  CHECK(ktest_expect_i64(ol, VI(INT64_MIN, INT64_MIN + 1), 2));
  CHECK_OK(CALL("aten::mul.Scalar_out", EV(l), I(2), EV(ol), EV(ol)));
  CHECK(ktest_expect_i64(ol, VI(-2, 0), 2));
  CHECK_OK(CALL("aten::sub.Scalar_out", EV(l), I(1), I(-1), EV(ol), EV(ol)));
  CHECK(ktest_expect_i64(ol, VI(INT64_MIN, INT64_MIN + 1), 2));
  CHECK_OK(CALL("aten::neg.out", EV(l), EV(ol), EV(ol)));
  CHECK(ktest_expect_i64(ol, VI(INT64_MIN + 1, INT64_MIN), 2));
}

TEST(sub_and_mul_values) {
  pte_tensor *a = T(PTE_DTYPE_FLOAT, 1, SZ(2), DV(5, 7));
  pte_tensor *b = T(PTE_DTYPE_FLOAT, 1, SZ(2), DV(1, 2));
  pte_tensor *o = T(PTE_DTYPE_FLOAT, 1, SZ(2), NULL);
  CHECK_OK(CALL("aten::sub.out", EV(a), EV(b), I(2), EV(o), EV(o)));
  CHECK(ktest_expect(o, DV(3, 3), 2, 0));
  CHECK_OK(CALL("aten::sub.out", EV(a), EV(b), D(0.5), EV(o), EV(o)));
  CHECK(ktest_expect(o, DV(4.5, 6), 2, 0));
  CHECK_OK(CALL("aten::sub.Scalar_out", EV(a), D(1.5), I(1), EV(o), EV(o)));
  CHECK(ktest_expect(o, DV(3.5, 5.5), 2, 0));
  pte_tensor *n = T(PTE_DTYPE_INT, 1, SZ(1), DV(5));
  pte_tensor *on = T(PTE_DTYPE_INT, 1, SZ(1), NULL);
  CHECK_OK(CALL("aten::sub.Scalar_out", EV(n), I(2), I(3), EV(on), EV(on)));
  CHECK(ktest_expect(on, DV(-1), 1, 0));
  CHECK_OK(CALL("aten::mul.out", EV(a), EV(b), EV(o), EV(o)));
  CHECK(ktest_expect(o, DV(5, 14), 2, 0));
  CHECK_OK(CALL("aten::mul.Scalar_out", EV(a), D(0.5), EV(o), EV(o)));
  CHECK(ktest_expect(o, DV(2.5, 3.5), 2, 0));
  /* int tensor * float Scalar -> float */
  pte_tensor *of = T(PTE_DTYPE_FLOAT, 1, SZ(1), NULL);
  CHECK_OK(CALL("aten::mul.Scalar_out", EV(n), D(2.5), EV(of), EV(of)));
  CHECK(ktest_expect(of, DV(12.5), 1, 0));
  /* uint8 * uint8 wraps in uint8 */
  pte_tensor *u = T(PTE_DTYPE_BYTE, 1, SZ(2), DV(16, 200));
  pte_tensor *ou = T(PTE_DTYPE_BYTE, 1, SZ(2), NULL);
  CHECK_OK(CALL("aten::mul.out", EV(u), EV(u), EV(ou), EV(ou)));
  CHECK(ktest_expect(ou, DV(0, 64), 2, 0)); /* 256 -> 0, 40000 mod 256 = 64 */
}

/* ------------------------------------------------------------------------------------------ */
/* div / pow */

TEST(div_true_and_modes) {
  pte_tensor *a = T(PTE_DTYPE_INT, 1, SZ(4), DV(7, -7, 7, -7));
  pte_tensor *b = T(PTE_DTYPE_INT, 1, SZ(4), DV(2, 2, -2, -2));
  pte_tensor *of = T(PTE_DTYPE_FLOAT, 1, SZ(4), NULL);
  CHECK_OK(CALL("aten::div.out", EV(a), EV(b), EV(of), EV(of)));
  CHECK(ktest_expect(of, DV(3.5, -3.5, -3.5, 3.5), 4, 0));
  /* true division of ints cannot go to an int out */
  pte_tensor *oi = T(PTE_DTYPE_INT, 1, SZ(4), NULL);
  CHECK_STATUS(CALL("aten::div.out", EV(a), EV(b), EV(oi), EV(oi)), PTE_ERR_INVALID_ARGUMENT);
  CHECK_OK(CALL("aten::div.out_mode", EV(a), EV(b), NONE(), EV(of), EV(of)));
  CHECK(ktest_expect(of, DV(3.5, -3.5, -3.5, 3.5), 4, 0));
  CHECK_OK(CALL("aten::div.out_mode", EV(a), EV(b), STR("trunc"), EV(oi), EV(oi)));
  CHECK(ktest_expect(oi, DV(3, -3, -3, 3), 4, 0));
  CHECK_OK(CALL("aten::div.out_mode", EV(a), EV(b), STR("floor"), EV(oi), EV(oi)));
  CHECK(ktest_expect(oi, DV(3, -4, -4, 3), 4, 0));
  CHECK_STATUS(CALL("aten::div.out_mode", EV(a), EV(b), STR("round"), EV(oi), EV(oi)),
               PTE_ERR_INVALID_ARGUMENT);
  /* floating modes */
  pte_tensor *x = T(PTE_DTYPE_FLOAT, 1, SZ(3), DV(7.5, -7.5, 1.0));
  pte_tensor *y = T(PTE_DTYPE_FLOAT, 1, SZ(3), DV(2, 2, 0));
  pte_tensor *o = T(PTE_DTYPE_FLOAT, 1, SZ(3), NULL);
  CHECK_OK(CALL("aten::div.out_mode", EV(x), EV(y), STR("trunc"), EV(o), EV(o)));
  CHECK(ktest_expect(o, DV(3, -3, INFINITY), 3, 0));
  CHECK_OK(CALL("aten::div.out_mode", EV(x), EV(y), STR("floor"), EV(o), EV(o)));
  CHECK(ktest_expect(o, DV(3, -4, INFINITY), 3, 0));
  CHECK_OK(CALL("aten::div.out", EV(x), EV(y), EV(o), EV(o)));
  CHECK(ktest_expect(o, DV(3.75, -3.75, INFINITY), 3, 0));
  /* div.Scalar: ints divided by an Int scalar still true-divide */
  pte_tensor *n = T(PTE_DTYPE_LONG, 1, SZ(2), DV(1, 2));
  pte_tensor *o2 = T(PTE_DTYPE_FLOAT, 1, SZ(2), NULL);
  CHECK_OK(CALL("aten::div.Scalar_out", EV(n), I(4), EV(o2), EV(o2)));
  CHECK(ktest_expect(o2, DV(0.25, 0.5), 2, 0));
  pte_tensor *ol = T(PTE_DTYPE_LONG, 1, SZ(2), NULL);
  CHECK_OK(CALL("aten::div.Scalar_mode_out", EV(n), I(-4), STR("floor"), EV(ol), EV(ol)));
  CHECK(ktest_expect(ol, DV(-1, -1), 2, 0));
}

TEST(div_integer_by_zero) {
  pte_tensor *a = T(PTE_DTYPE_INT, 1, SZ(2), DV(7, 1));
  pte_tensor *z = T(PTE_DTYPE_INT, 1, SZ(2), DV(2, 0));
  pte_tensor *o = T(PTE_DTYPE_INT, 1, SZ(2), NULL);
  CHECK_STATUS(CALL("aten::div.out_mode", EV(a), EV(z), STR("trunc"), EV(o), EV(o)),
               PTE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(CALL("aten::div.out_mode", EV(a), EV(z), STR("floor"), EV(o), EV(o)),
               PTE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(CALL("aten::div.Scalar_mode_out", EV(a), I(0), STR("trunc"), EV(o), EV(o)),
               PTE_ERR_INVALID_ARGUMENT);
  /* true division by integer zero is fine: inf / nan */
  pte_tensor *of = T(PTE_DTYPE_FLOAT, 1, SZ(2), NULL);
  CHECK_OK(CALL("aten::div.out", EV(a), EV(z), EV(of), EV(of)));
  CHECK(ktest_expect(of, DV(3.5, INFINITY), 2, 0));
  /* INT64_MIN / -1 wraps instead of trapping */
  pte_tensor *m = TI(PTE_DTYPE_LONG, 1, SZ(1), VI(INT64_MIN));
  pte_tensor *ol = T(PTE_DTYPE_LONG, 1, SZ(1), NULL);
  CHECK_OK(CALL("aten::div.Scalar_mode_out", EV(m), I(-1), STR("trunc"), EV(ol), EV(ol)));
  CHECK(ktest_expect_i64(ol, VI(INT64_MIN), 1));
}

TEST(pow_variants) {
  pte_tensor *a = T(PTE_DTYPE_FLOAT, 1, SZ(3), DV(1, 2, 3));
  pte_tensor *o = T(PTE_DTYPE_FLOAT, 1, SZ(3), NULL);
  CHECK_OK(CALL("aten::pow.Tensor_Scalar_out", EV(a), I(2), EV(o), EV(o)));
  CHECK(ktest_expect(o, DV(1, 4, 9), 3, 0));
  CHECK_OK(CALL("aten::pow.Tensor_Scalar_out", EV(a), D(0.5), EV(o), EV(o)));
  CHECK(ktest_expect(o, DV(1, 1.41421353816986083984375, 1.73205077648162841796875), 3, 0));
  CHECK_OK(CALL("aten::pow.Tensor_Scalar_out", EV(a), D(-1.0), EV(o), EV(o)));
  CHECK(ktest_expect(o, DV(1, 0.5, (double)(1.0f / 3.0f)), 3, 0));
  /* integer tensor ^ Int stays integer; negative Int exponent is an error */
  pte_tensor *n = T(PTE_DTYPE_INT, 1, SZ(3), DV(2, 3, -2));
  pte_tensor *on = T(PTE_DTYPE_INT, 1, SZ(3), NULL);
  CHECK_OK(CALL("aten::pow.Tensor_Scalar_out", EV(n), I(3), EV(on), EV(on)));
  CHECK(ktest_expect(on, DV(8, 27, -8), 3, 0));
  CHECK_STATUS(CALL("aten::pow.Tensor_Scalar_out", EV(n), I(-1), EV(on), EV(on)),
               PTE_ERR_INVALID_ARGUMENT);
  /* int ^ Double -> float */
  pte_tensor *of = T(PTE_DTYPE_FLOAT, 1, SZ(3), NULL);
  CHECK_OK(CALL("aten::pow.Tensor_Scalar_out", EV(n), D(2.0), EV(of), EV(of)));
  CHECK(ktest_expect(of, DV(4, 9, 4), 3, 0));
  /* int8 ^ 2 with an Int exponent beyond int8 range still uses the exact exponent */
  pte_tensor *c = T(PTE_DTYPE_CHAR, 1, SZ(1), DV(1));
  pte_tensor *oc = T(PTE_DTYPE_CHAR, 1, SZ(1), NULL);
  CHECK_OK(CALL("aten::pow.Tensor_Scalar_out", EV(c), I(1000), EV(oc), EV(oc)));
  CHECK(ktest_expect(oc, DV(1), 1, 0));
  /* Tensor ^ Tensor with integer negative exponents */
  pte_tensor *base = TI(PTE_DTYPE_LONG, 1, SZ(4), VI(2, -1, 2, 3));
  pte_tensor *ex = TI(PTE_DTYPE_LONG, 1, SZ(4), VI(10, -3, -1, 40));
  pte_tensor *ol = T(PTE_DTYPE_LONG, 1, SZ(4), NULL);
  CHECK_OK(CALL("aten::pow.Tensor_Tensor_out", EV(base), EV(ex), EV(ol), EV(ol)));
  CHECK(ktest_expect_i64(ol, VI(1024, -1, 0, -6289078614652622815LL), 4)); /* 3^40 wraps */
  /* Scalar ^ Tensor */
  pte_tensor *e2 = T(PTE_DTYPE_FLOAT, 1, SZ(2), DV(3, -1));
  pte_tensor *o2 = T(PTE_DTYPE_FLOAT, 1, SZ(2), NULL);
  CHECK_OK(CALL("aten::pow.Scalar_out", I(2), EV(e2), EV(o2), EV(o2)));
  CHECK(ktest_expect(o2, DV(8, 0.5), 2, 0));
  /* pow with a broadcast float tensor exponent */
  pte_tensor *ex2 = T(PTE_DTYPE_FLOAT, 2, SZ(2, 1), DV(2, 3));
  pte_tensor *o3 = T(PTE_DTYPE_FLOAT, 2, SZ(2, 3), NULL);
  CHECK_OK(CALL("aten::pow.Tensor_Tensor_out", EV(a), EV(ex2), EV(o3), EV(o3)));
  CHECK(ktest_expect(o3, DV(1, 4, 9, 1, 8, 27), 6, 0));
}

/* ------------------------------------------------------------------------------------------ */
/* unary */

TEST(unary_math) {
  pte_tensor *a = T(PTE_DTYPE_FLOAT, 1, SZ(3), DV(0, 1, -2));
  pte_tensor *o = T(PTE_DTYPE_FLOAT, 1, SZ(3), NULL);
  CHECK_OK(CALL("aten::neg.out", EV(a), EV(o), EV(o)));
  CHECK(ktest_expect(o, DV(-0.0, -1, 2), 3, 0));
  CHECK_OK(CALL("aten::exp.out", EV(a), EV(o), EV(o)));
  CHECK(ktest_expect(o, DV(1, 2.718281828459045, 0.1353352832366127), 3, 1e-6));
  CHECK_OK(CALL("aten::abs.out", EV(a), EV(o), EV(o)));
  CHECK(ktest_expect(o, DV(0, 1, 2), 3, 0));
  pte_tensor *p = T(PTE_DTYPE_FLOAT, 1, SZ(3), DV(1, 4, 0.25));
  CHECK_OK(CALL("aten::log.out", EV(p), EV(o), EV(o)));
  CHECK(ktest_expect(o, DV(0, 1.3862943611198906, -1.3862943611198906), 3, 1e-6));
  CHECK_OK(CALL("aten::sqrt.out", EV(p), EV(o), EV(o)));
  CHECK(ktest_expect(o, DV(1, 2, 0.5), 3, 0));
  CHECK_OK(CALL("aten::rsqrt.out", EV(p), EV(o), EV(o)));
  CHECK(ktest_expect(o, DV(1, 0.5, 2), 3, 0));
  /* log of 0 / negative */
  pte_tensor *q = T(PTE_DTYPE_FLOAT, 1, SZ(2), DV(0, -1));
  pte_tensor *oq = T(PTE_DTYPE_FLOAT, 1, SZ(2), NULL);
  CHECK_OK(CALL("aten::log.out", EV(q), EV(oq), EV(oq)));
  CHECK(ktest_get(oq, 0) == -INFINITY && isnan(ktest_get(oq, 1)));
  /* int input -> float output for exp/sqrt; int input keeps int for abs/neg */
  pte_tensor *n = T(PTE_DTYPE_INT, 1, SZ(2), DV(4, 9));
  pte_tensor *of = T(PTE_DTYPE_FLOAT, 1, SZ(2), NULL);
  CHECK_OK(CALL("aten::sqrt.out", EV(n), EV(of), EV(of)));
  CHECK(ktest_expect(of, DV(2, 3), 2, 0));
  pte_tensor *oi = T(PTE_DTYPE_INT, 1, SZ(2), NULL);
  CHECK_STATUS(CALL("aten::sqrt.out", EV(n), EV(oi), EV(oi)), PTE_ERR_INVALID_ARGUMENT);
  pte_tensor *m = T(PTE_DTYPE_CHAR, 1, SZ(3), DV(-3, -128, 5));
  pte_tensor *om = T(PTE_DTYPE_CHAR, 1, SZ(3), NULL);
  CHECK_OK(CALL("aten::abs.out", EV(m), EV(om), EV(om)));
  CHECK(ktest_expect(om, DV(3, -128, 5), 3, 0)); /* abs(-128) wraps in int8 */
  CHECK_OK(CALL("aten::neg.out", EV(m), EV(om), EV(om)));
  CHECK(ktest_expect(om, DV(3, -128, -5), 3, 0));
  /* bool: exp gives float, neg is rejected */
  pte_tensor *bt = T(PTE_DTYPE_BOOL, 1, SZ(2), DV(0, 1));
  CHECK_OK(CALL("aten::exp.out", EV(bt), EV(of), EV(of)));
  CHECK(ktest_expect(of, DV(1, 2.718281828459045), 2, 1e-6));
  pte_tensor *ob = T(PTE_DTYPE_BOOL, 1, SZ(2), NULL);
  CHECK_STATUS(CALL("aten::neg.out", EV(bt), EV(ob), EV(ob)), PTE_ERR_INVALID_ARGUMENT);
  /* double stays double */
  pte_tensor *dd = T(PTE_DTYPE_DOUBLE, 1, SZ(1), DV(2));
  pte_tensor *od = T(PTE_DTYPE_DOUBLE, 1, SZ(1), NULL);
  CHECK_OK(CALL("aten::sqrt.out", EV(dd), EV(od), EV(od)));
  CHECK(ktest_expect(od, DV(1.4142135623730951), 1, 0));
  /* half exp rounds to half: exp(1) = 2.71828 -> 0x4170 (2.71875) */
  pte_tensor *h = T(PTE_DTYPE_HALF, 1, SZ(1), DV(1));
  pte_tensor *oh = T(PTE_DTYPE_HALF, 1, SZ(1), NULL);
  CHECK_OK(CALL("aten::exp.out", EV(h), EV(oh), EV(oh)));
  CHECK_EQ_INT(ktest_get_u16(oh, 0), 0x4170);
}

/* ------------------------------------------------------------------------------------------ */
/* activations */

TEST(activations) {
  pte_tensor *a = T(PTE_DTYPE_FLOAT, 1, SZ(3), DV(0, 1, -1));
  pte_tensor *o = T(PTE_DTYPE_FLOAT, 1, SZ(3), NULL);
  CHECK_OK(CALL("aten::sigmoid.out", EV(a), EV(o), EV(o)));
  CHECK(ktest_expect(o, DV(0.5, 0.7310585786300049, 0.2689414213699951), 3, 1e-7));
  CHECK_OK(CALL("aten::tanh.out", EV(a), EV(o), EV(o)));
  CHECK(ktest_expect(o, DV(0, 0.7615941559557649, -0.7615941559557649), 3, 1e-7));
  CHECK_OK(CALL("aten::relu.out", EV(a), EV(o), EV(o)));
  CHECK(ktest_expect(o, DV(0, 1, 0), 3, 0));
  CHECK_OK(CALL("aten::gelu.out", EV(a), STR("none"), EV(o), EV(o)));
  CHECK(ktest_expect(o, DV(0, 0.8413447460685429, -0.15865525393145707), 3, 1e-6));
  CHECK_OK(CALL("aten::gelu.out", EV(a), STR("tanh"), EV(o), EV(o)));
  CHECK(ktest_expect(o, DV(0, 0.8411919906082768, -0.15880800939172324), 3, 1e-6));
  CHECK_STATUS(CALL("aten::gelu.out", EV(a), STR("erf"), EV(o), EV(o)), PTE_ERR_INVALID_ARGUMENT);
  CHECK_OK(CALL("aten::silu.out", EV(a), EV(o), EV(o)));
  CHECK(ktest_expect(o, DV(0, 0.7310585786300049, -0.2689414213699951), 3, 1e-7));
  pte_tensor *b = T(PTE_DTYPE_FLOAT, 1, SZ(4), DV(-2, 0.5, 2, NAN));
  pte_tensor *ob = T(PTE_DTYPE_FLOAT, 1, SZ(4), NULL);
  CHECK_OK(CALL("aten::hardtanh.out", EV(b), I(-1), I(1), EV(ob), EV(ob)));
  CHECK(ktest_expect(ob, DV(-1, 0.5, 1, NAN), 4, 0));
  CHECK_OK(CALL("aten::leaky_relu.out", EV(b), D(0.1), EV(ob), EV(ob)));
  CHECK(ktest_expect(ob, DV((double)(-2.0f * 0.1f), 0.5, 2, NAN), 4, 0));
  CHECK_OK(CALL("aten::relu.out", EV(b), EV(ob), EV(ob)));
  CHECK(ktest_expect(ob, DV(0, 0.5, 2, NAN), 4, 0));
  /* relu on ints keeps the dtype; gelu on ints is rejected */
  pte_tensor *n = T(PTE_DTYPE_LONG, 1, SZ(2), DV(-5, 5));
  pte_tensor *on = T(PTE_DTYPE_LONG, 1, SZ(2), NULL);
  CHECK_OK(CALL("aten::relu.out", EV(n), EV(on), EV(on)));
  CHECK(ktest_expect(on, DV(0, 5), 2, 0));
  CHECK_OK(CALL("aten::hardtanh.out", EV(n), I(-2), I(3), EV(on), EV(on)));
  CHECK(ktest_expect(on, DV(-2, 3), 2, 0));
  pte_tensor *of = T(PTE_DTYPE_FLOAT, 1, SZ(2), NULL);
  CHECK_STATUS(CALL("aten::gelu.out", EV(n), NONE(), EV(of), EV(of)), PTE_ERR_INVALID_ARGUMENT);
  /* sigmoid of int -> float */
  CHECK_OK(CALL("aten::sigmoid.out", EV(n), EV(of), EV(of)));
  CHECK(ktest_expect(of, DV(0.0066928509242848554, 0.9933071490757153), 2, 1e-7));
  /* double precision path */
  pte_tensor *d = T(PTE_DTYPE_DOUBLE, 1, SZ(1), DV(1));
  pte_tensor *od = T(PTE_DTYPE_DOUBLE, 1, SZ(1), NULL);
  CHECK_OK(CALL("aten::gelu.out", EV(d), NONE(), EV(od), EV(od)));
  CHECK(ktest_expect(od, DV(0.8413447460685429), 1, 1e-15));
}

TEST(clamp_scalar_and_tensor) {
  pte_tensor *a = T(PTE_DTYPE_FLOAT, 1, SZ(4), DV(-2, 0.5, 2, NAN));
  pte_tensor *o = T(PTE_DTYPE_FLOAT, 1, SZ(4), NULL);
  CHECK_OK(CALL("aten::clamp.out", EV(a), D(-1), D(1), EV(o), EV(o)));
  CHECK(ktest_expect(o, DV(-1, 0.5, 1, NAN), 4, 0));
  CHECK_OK(CALL("aten::clamp.out", EV(a), NONE(), I(0), EV(o), EV(o)));
  CHECK(ktest_expect(o, DV(-2, 0, 0, NAN), 4, 0));
  CHECK_OK(CALL("aten::clamp.out", EV(a), I(0), NONE(), EV(o), EV(o)));
  CHECK(ktest_expect(o, DV(0, 0.5, 2, NAN), 4, 0));
  /* min > max: every value becomes max */
  CHECK_OK(CALL("aten::clamp.out", EV(a), I(3), I(1), EV(o), EV(o)));
  CHECK(ktest_expect(o, DV(1, 1, 1, NAN), 4, 0));
  CHECK_STATUS(CALL("aten::clamp.out", EV(a), NONE(), NONE(), EV(o), EV(o)), PTE_ERR_INVALID_ARGUMENT);
  /* int tensor with a Double bound -> float result; int out rejected */
  pte_tensor *n = T(PTE_DTYPE_INT, 1, SZ(3), DV(-5, 0, 5));
  pte_tensor *of = T(PTE_DTYPE_FLOAT, 1, SZ(3), NULL);
  CHECK_OK(CALL("aten::clamp.out", EV(n), D(-0.5), I(2), EV(of), EV(of)));
  CHECK(ktest_expect(of, DV(-0.5, 0, 2), 3, 0));
  pte_tensor *oi = T(PTE_DTYPE_INT, 1, SZ(3), NULL);
  CHECK_STATUS(CALL("aten::clamp.out", EV(n), D(-0.5), I(2), EV(oi), EV(oi)),
               PTE_ERR_INVALID_ARGUMENT);
  /* uint8 with a negative Int bound is not wrapped */
  pte_tensor *u = T(PTE_DTYPE_BYTE, 1, SZ(2), DV(0, 200));
  pte_tensor *ou = T(PTE_DTYPE_BYTE, 1, SZ(2), NULL);
  CHECK_OK(CALL("aten::clamp.out", EV(u), I(-1), I(100), EV(ou), EV(ou)));
  CHECK(ktest_expect(ou, DV(0, 100), 2, 0));
  /* clamp.Tensor_out with broadcasting bounds */
  pte_tensor *x = T(PTE_DTYPE_FLOAT, 2, SZ(2, 2), DV(-3, 3, -3, 3));
  pte_tensor *lo = T(PTE_DTYPE_FLOAT, 2, SZ(2, 1), DV(-1, -2));
  pte_tensor *hi = T(PTE_DTYPE_FLOAT, 1, SZ(2), DV(1, 2));
  pte_tensor *o2 = T(PTE_DTYPE_FLOAT, 2, SZ(2, 2), NULL);
  CHECK_OK(CALL("aten::clamp.Tensor_out", EV(x), EV(lo), EV(hi), EV(o2), EV(o2)));
  CHECK(ktest_expect(o2, DV(-1, 2, -2, 2), 4, 0));
  CHECK_OK(CALL("aten::clamp.Tensor_out", EV(x), NONE(), EV(hi), EV(o2), EV(o2)));
  CHECK(ktest_expect(o2, DV(-3, 2, -3, 2), 4, 0));
  CHECK_STATUS(CALL("aten::clamp.Tensor_out", EV(x), NONE(), NONE(), EV(o2), EV(o2)),
               PTE_ERR_INVALID_ARGUMENT);
}

/* ------------------------------------------------------------------------------------------ */
/* comparisons, logical_not, where, masked_fill */

TEST(comparisons) {
  pte_tensor *a = T(PTE_DTYPE_FLOAT, 1, SZ(3), DV(1, 2, 3));
  pte_tensor *o = T(PTE_DTYPE_BOOL, 1, SZ(3), NULL);
  CHECK_OK(CALL("aten::eq.Scalar_out", EV(a), I(2), EV(o), EV(o)));
  CHECK(ktest_expect(o, DV(0, 1, 0), 3, 0));
  CHECK_OK(CALL("aten::ne.Scalar_out", EV(a), D(2.0), EV(o), EV(o)));
  CHECK(ktest_expect(o, DV(1, 0, 1), 3, 0));
  CHECK_OK(CALL("aten::lt.Scalar_out", EV(a), D(2.5), EV(o), EV(o)));
  CHECK(ktest_expect(o, DV(1, 1, 0), 3, 0));
  CHECK_OK(CALL("aten::le.Scalar_out", EV(a), I(2), EV(o), EV(o)));
  CHECK(ktest_expect(o, DV(1, 1, 0), 3, 0));
  CHECK_OK(CALL("aten::gt.Scalar_out", EV(a), I(2), EV(o), EV(o)));
  CHECK(ktest_expect(o, DV(0, 0, 1), 3, 0));
  CHECK_OK(CALL("aten::ge.Scalar_out", EV(a), I(2), EV(o), EV(o)));
  CHECK(ktest_expect(o, DV(0, 1, 1), 3, 0));
  /* int tensor vs 2.5 compares in float (not truncated to 2) */
  pte_tensor *n = T(PTE_DTYPE_INT, 1, SZ(3), DV(1, 2, 3));
  CHECK_OK(CALL("aten::lt.Scalar_out", EV(n), D(2.5), EV(o), EV(o)));
  CHECK(ktest_expect(o, DV(1, 1, 0), 3, 0));
  CHECK_OK(CALL("aten::eq.Scalar_out", EV(n), D(2.5), EV(o), EV(o)));
  CHECK(ktest_expect(o, DV(0, 0, 0), 3, 0));
  /* Tensor variants with broadcasting and mixed dtypes: [2,1] int64 vs [3] float */
  pte_tensor *l = T(PTE_DTYPE_LONG, 2, SZ(2, 1), DV(1, 3));
  pte_tensor *f = T(PTE_DTYPE_FLOAT, 1, SZ(3), DV(0.5, 1, 3.5));
  pte_tensor *o2 = T(PTE_DTYPE_BOOL, 2, SZ(2, 3), NULL);
  CHECK_OK(CALL("aten::gt.Tensor_out", EV(l), EV(f), EV(o2), EV(o2)));
  CHECK(ktest_expect(o2, DV(1, 0, 0, 1, 1, 0), 6, 0));
  CHECK_OK(CALL("aten::ge.Tensor_out", EV(l), EV(f), EV(o2), EV(o2)));
  CHECK(ktest_expect(o2, DV(1, 1, 0, 1, 1, 0), 6, 0));
  CHECK_OK(CALL("aten::lt.Tensor_out", EV(l), EV(f), EV(o2), EV(o2)));
  CHECK(ktest_expect(o2, DV(0, 0, 1, 0, 0, 1), 6, 0));
  CHECK_OK(CALL("aten::le.Tensor_out", EV(l), EV(f), EV(o2), EV(o2)));
  CHECK(ktest_expect(o2, DV(0, 1, 1, 0, 0, 1), 6, 0));
  CHECK_OK(CALL("aten::eq.Tensor_out", EV(l), EV(f), EV(o2), EV(o2)));
  CHECK(ktest_expect(o2, DV(0, 1, 0, 0, 0, 0), 6, 0));
  CHECK_OK(CALL("aten::ne.Tensor_out", EV(l), EV(f), EV(o2), EV(o2)));
  CHECK(ktest_expect(o2, DV(1, 0, 1, 1, 1, 1), 6, 0));
  /* NaN compares unequal to itself */
  pte_tensor *nn = T(PTE_DTYPE_FLOAT, 1, SZ(1), DV(NAN));
  pte_tensor *o1 = T(PTE_DTYPE_BOOL, 1, SZ(1), NULL);
  CHECK_OK(CALL("aten::eq.Tensor_out", EV(nn), EV(nn), EV(o1), EV(o1)));
  CHECK(ktest_expect(o1, DV(0), 1, 0));
  /* out of another dtype receives 0/1 */
  pte_tensor *of = T(PTE_DTYPE_FLOAT, 1, SZ(3), NULL);
  CHECK_OK(CALL("aten::eq.Scalar_out", EV(a), I(3), EV(of), EV(of)));
  CHECK(ktest_expect(of, DV(0, 0, 1), 3, 0));
  /* large int64 values compare exactly */
  pte_tensor *big = TI(PTE_DTYPE_LONG, 1, SZ(1), VI(INT64_MAX));
  pte_tensor *big2 = TI(PTE_DTYPE_LONG, 1, SZ(1), VI(INT64_MAX - 1));
  CHECK_OK(CALL("aten::gt.Tensor_out", EV(big), EV(big2), EV(o1), EV(o1)));
  CHECK(ktest_expect(o1, DV(1), 1, 0));
  /* shape mismatch */
  pte_tensor *bad = T(PTE_DTYPE_FLOAT, 1, SZ(2), DV(1, 2));
  CHECK_STATUS(CALL("aten::eq.Tensor_out", EV(a), EV(bad), EV(o), EV(o)), PTE_ERR_INVALID_ARGUMENT);
}

TEST(logical_not_where_masked_fill) {
  pte_tensor *a = T(PTE_DTYPE_FLOAT, 1, SZ(4), DV(0, 2, -0.0, NAN));
  pte_tensor *o = T(PTE_DTYPE_BOOL, 1, SZ(4), NULL);
  CHECK_OK(CALL("aten::logical_not.out", EV(a), EV(o), EV(o)));
  CHECK(ktest_expect(o, DV(1, 0, 1, 0), 4, 0));
  pte_tensor *of = T(PTE_DTYPE_FLOAT, 1, SZ(4), NULL);
  CHECK_OK(CALL("aten::logical_not.out", EV(a), EV(of), EV(of)));
  CHECK(ktest_expect(of, DV(1, 0, 1, 0), 4, 0));

  /* where: cond [2,1] broadcast against x int32 [2,2] and y a 0-dim float */
  pte_tensor *cond = T(PTE_DTYPE_BOOL, 2, SZ(2, 1), DV(1, 0));
  pte_tensor *x = T(PTE_DTYPE_INT, 2, SZ(2, 2), DV(1, 2, 3, 4));
  pte_tensor *y = T(PTE_DTYPE_FLOAT, 0, NULL, DV(-0.5));
  pte_tensor *ow = T(PTE_DTYPE_FLOAT, 2, SZ(2, 2), NULL);
  CHECK_OK(CALL("aten::where.self_out", EV(cond), EV(x), EV(y), EV(ow), EV(ow)));
  CHECK(ktest_expect(ow, DV(1, 2, -0.5, -0.5), 4, 0));
  pte_tensor *oi = T(PTE_DTYPE_INT, 2, SZ(2, 2), NULL);
  CHECK_STATUS(CALL("aten::where.self_out", EV(cond), EV(x), EV(y), EV(oi), EV(oi)),
               PTE_ERR_INVALID_ARGUMENT);
  pte_tensor *fcond = T(PTE_DTYPE_FLOAT, 2, SZ(2, 1), DV(1, 0));
  CHECK_STATUS(CALL("aten::where.self_out", EV(fcond), EV(x), EV(y), EV(ow), EV(ow)),
               PTE_ERR_INVALID_ARGUMENT);
  /* where with int64 values keeps them exact */
  pte_tensor *l1 = TI(PTE_DTYPE_LONG, 1, SZ(2), VI(INT64_MAX, 1));
  pte_tensor *l2 = TI(PTE_DTYPE_LONG, 1, SZ(2), VI(7, INT64_MIN));
  pte_tensor *c2 = T(PTE_DTYPE_BOOL, 1, SZ(2), DV(1, 0));
  pte_tensor *ol = T(PTE_DTYPE_LONG, 1, SZ(2), NULL);
  CHECK_OK(CALL("aten::where.self_out", EV(c2), EV(l1), EV(l2), EV(ol), EV(ol)));
  CHECK(ktest_expect_i64(ol, VI(INT64_MAX, INT64_MIN), 2));

  /* masked_fill: mask [1,2] broadcast over [2,2] */
  pte_tensor *s = T(PTE_DTYPE_FLOAT, 2, SZ(2, 2), DV(1, 2, 3, 4));
  pte_tensor *mask = T(PTE_DTYPE_BOOL, 2, SZ(1, 2), DV(0, 1));
  pte_tensor *om = T(PTE_DTYPE_FLOAT, 2, SZ(2, 2), NULL);
  CHECK_OK(CALL("aten::masked_fill.Scalar_out", EV(s), EV(mask), D(-1e9), EV(om), EV(om)));
  CHECK(ktest_expect(om, DV(1, -1e9, 3, -1e9), 4, 0));
  /* int tensor filled with a Double value is truncated to the tensor dtype */
  pte_tensor *si = T(PTE_DTYPE_INT, 2, SZ(2, 2), DV(1, 2, 3, 4));
  pte_tensor *omi = T(PTE_DTYPE_INT, 2, SZ(2, 2), NULL);
  CHECK_OK(CALL("aten::masked_fill.Scalar_out", EV(si), EV(mask), D(7.9), EV(omi), EV(omi)));
  CHECK(ktest_expect(omi, DV(1, 7, 3, 7), 4, 0));
  CHECK_STATUS(CALL("aten::masked_fill.Scalar_out", EV(s), EV(mask), D(0), EV(omi), EV(omi)),
               PTE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(CALL("aten::masked_fill.Scalar_out", EV(s), EV(s), D(0), EV(om), EV(om)),
               PTE_ERR_INVALID_ARGUMENT); /* float mask */
  /* a mask larger than self does not broadcast onto it */
  pte_tensor *bigmask = T(PTE_DTYPE_BOOL, 3, SZ(3, 2, 2), NULL);
  CHECK_STATUS(CALL("aten::masked_fill.Scalar_out", EV(s), EV(bigmask), D(0), EV(om), EV(om)),
               PTE_ERR_INVALID_ARGUMENT);
}

/* ------------------------------------------------------------------------------------------ */
/* fills and copies */

TEST(fills) {
  pte_tensor *o = T(PTE_DTYPE_FLOAT, 2, SZ(2, 3), NULL);
  CHECK_OK(CALL("aten::full.out", ktest_ev_int_list(VI(2, 3), 2), D(1.5), EV(o), EV(o)));
  CHECK(ktest_expect(o, DV(1.5, 1.5, 1.5, 1.5, 1.5, 1.5), 6, 0));
  CHECK_STATUS(CALL("aten::full.out", ktest_ev_int_list(VI(3, 3), 2), D(1.5), EV(o), EV(o)),
               PTE_ERR_INVALID_ARGUMENT);
  pte_tensor *od = ktest_tensor_dyn(PTE_DTYPE_INT, 1, SZ(0), NULL, 8);
  CHECK_OK(CALL("aten::full.out", ktest_ev_int_list(VI(5), 1), I(7), EV(od), EV(od)));
  CHECK(ktest_expect(od, DV(7, 7, 7, 7, 7), 5, 0));
  pte_tensor *ob = T(PTE_DTYPE_BOOL, 1, SZ(2), NULL);
  CHECK_OK(CALL("aten::full.out", ktest_ev_int_list(VI(2), 1), B(true), EV(ob), EV(ob)));
  CHECK(ktest_expect(ob, DV(1, 1), 2, 0));

  pte_tensor *like = T(PTE_DTYPE_LONG, 2, SZ(2, 2), NULL);
  pte_tensor *ol = T(PTE_DTYPE_LONG, 2, SZ(2, 2), NULL);
  CHECK_OK(CALL("aten::full_like.out", EV(like), I(-3), NONE(), EV(ol), EV(ol)));
  CHECK(ktest_expect(ol, DV(-3, -3, -3, -3), 4, 0));
  pte_tensor *oh = T(PTE_DTYPE_HALF, 2, SZ(2, 2), NULL);
  CHECK_OK(CALL("aten::full_like.out", EV(like), D(0.1), I(1), EV(oh), EV(oh)));
  CHECK_EQ_INT(ktest_get_u16(oh, 3), 0x2E66); /* 0.1 in half */

  pte_tensor *s = T(PTE_DTYPE_FLOAT, 0, NULL, NULL);
  CHECK_OK(CALL("aten::scalar_tensor.out", D(2.25), EV(s), EV(s)));
  CHECK(ktest_expect(s, DV(2.25), 1, 0));
  pte_tensor *sl = T(PTE_DTYPE_LONG, 0, NULL, NULL);
  CHECK_OK(CALL("aten::scalar_tensor.out", I(INT64_MIN), EV(sl), EV(sl)));
  CHECK(ktest_expect_i64(sl, VI(INT64_MIN), 1));
  pte_tensor *not0 = T(PTE_DTYPE_FLOAT, 1, SZ(1), NULL);
  CHECK_STATUS(CALL("aten::scalar_tensor.out", D(2.25), EV(not0), EV(not0)),
               PTE_ERR_INVALID_ARGUMENT);

  pte_tensor *in = T(PTE_DTYPE_SHORT, 1, SZ(3), DV(1, 2, 3));
  pte_tensor *of = T(PTE_DTYPE_SHORT, 1, SZ(3), NULL);
  CHECK_OK(CALL("aten::fill.Scalar_out", EV(in), I(9), EV(of), EV(of)));
  CHECK(ktest_expect(of, DV(9, 9, 9), 3, 0));
  CHECK_STATUS(CALL("aten::fill.Scalar_out", EV(in), I(9), EV(o), EV(o)), PTE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(CALL("aten::fill.Scalar_out", EV(in), EV(in), EV(of), EV(of)),
               PTE_ERR_INVALID_ARGUMENT);
}

TEST(to_dim_order_copy) {
  /* int64 -> float32, contiguous (dim_order None and explicit) */
  pte_tensor *a = TI(PTE_DTYPE_LONG, 2, SZ(2, 3), VI(1, -2, 3, 16777217, 5, 6));
  pte_tensor *o = T(PTE_DTYPE_FLOAT, 2, SZ(2, 3), NULL);
  CHECK_OK(CALL("dim_order_ops::_to_dim_order_copy.out", EV(a), B(false), NONE(), EV(o), EV(o)));
  CHECK(ktest_expect(o, DV(1, -2, 3, 16777216, 5, 6), 6, 0)); /* 2^24+1 rounds to even */
  CHECK_OK(CALL("dim_order_ops::_to_dim_order_copy.out", EV(a), B(false),
                ktest_ev_int_list(VI(0, 1), 2), EV(o), EV(o)));
  CHECK(ktest_expect(o, DV(1, -2, 3, 16777216, 5, 6), 6, 0));
  /* contiguous -> channels-last */
  double v[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  pte_tensor *x = T(PTE_DTYPE_FLOAT, 4, SZ(1, 2, 2, 2), v);
  const uint8_t cl[] = {0, 2, 3, 1};
  pte_tensor *ocl = ktest_tensor(PTE_DTYPE_FLOAT, 4, SZ(1, 2, 2, 2), cl, NULL);
  pte_evalue *order = ktest_ev_int_list(VI(0, 2, 3, 1), 4);
  CHECK_OK(CALL("dim_order_ops::_to_dim_order_copy.out", EV(x), B(false), order, EV(ocl),
                EV(ocl)));
  CHECK(ktest_expect(ocl, v, 8, 0)); /* same logical values */
  const float *m = (const float *)ocl->data;
  const float expect[8] = {1, 5, 2, 6, 3, 7, 4, 8};
  for (int i = 0; i < 8; i++) CHECK_MSG(m[i] == expect[i], "mem[%d] = %g", i, m[i]);
  /* and back to contiguous, converting to half */
  pte_tensor *oh = T(PTE_DTYPE_HALF, 4, SZ(1, 2, 2, 2), NULL);
  CHECK_OK(CALL("dim_order_ops::_to_dim_order_copy.out", EV(ocl), B(false), NONE(), EV(oh), EV(oh)));
  CHECK(ktest_expect(oh, v, 8, 0));
  CHECK_EQ_INT(((const uint16_t *)oh->data)[1], 0x4000); /* contiguous memory: 2.0 second */
  /* errors: dim_order not matching out, None with a channels-last out, non_blocking */
  CHECK_STATUS(CALL("dim_order_ops::_to_dim_order_copy.out", EV(x), B(false),
                    ktest_ev_int_list(VI(0, 1, 2, 3), 4), EV(ocl), EV(ocl)),
               PTE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(CALL("dim_order_ops::_to_dim_order_copy.out", EV(x), B(false), NONE(), EV(ocl),
                    EV(ocl)),
               PTE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(CALL("dim_order_ops::_to_dim_order_copy.out", EV(x), B(true), order, EV(ocl),
                    EV(ocl)),
               PTE_ERR_INVALID_ARGUMENT);
  pte_tensor *wrong = T(PTE_DTYPE_FLOAT, 2, SZ(3, 2), NULL);
  CHECK_STATUS(CALL("dim_order_ops::_to_dim_order_copy.out", EV(a), B(false), NONE(), EV(wrong),
                    EV(wrong)),
               PTE_ERR_INVALID_ARGUMENT);
  /* _clone_dim_order keeps the dtype */
  pte_tensor *ocl2 = ktest_tensor(PTE_DTYPE_FLOAT, 4, SZ(1, 2, 2, 2), cl, NULL);
  CHECK_OK(CALL("dim_order_ops::_clone_dim_order.out", EV(x), B(false), order, EV(ocl2),
                EV(ocl2)));
  CHECK(ktest_expect(ocl2, v, 8, 0));
  CHECK_STATUS(CALL("dim_order_ops::_clone_dim_order.out", EV(x), B(false), NONE(), EV(oh), EV(oh)),
               PTE_ERR_INVALID_ARGUMENT);
}

TEST(copies) {
  pte_tensor *a = T(PTE_DTYPE_INT, 2, SZ(2, 2), DV(1, 2, 3, 4));
  pte_tensor *of = T(PTE_DTYPE_FLOAT, 2, SZ(2, 2), NULL);
  CHECK_OK(CALL("aten::_to_copy.out", EV(a), B(false), NONE(), EV(of), EV(of)));
  CHECK(ktest_expect(of, DV(1, 2, 3, 4), 4, 0));
  pte_tensor *f = T(PTE_DTYPE_FLOAT, 1, SZ(3), DV(-1.7, 0.2, 300.9));
  pte_tensor *ou = T(PTE_DTYPE_BYTE, 1, SZ(3), NULL);
  CHECK_OK(CALL("aten::_to_copy.out", EV(f), B(false), NONE(), EV(ou), EV(ou)));
  CHECK(ktest_expect(ou, DV(255, 0, 44), 3, 0)); /* truncate then wrap */
  pte_tensor *ob = T(PTE_DTYPE_BOOL, 1, SZ(3), NULL);
  CHECK_OK(CALL("aten::_to_copy.out", EV(f), B(false), NONE(), EV(ob), EV(ob)));
  CHECK(ktest_expect(ob, DV(1, 1, 1), 3, 0));

  pte_tensor *oc = T(PTE_DTYPE_INT, 2, SZ(2, 2), NULL);
  CHECK_OK(CALL("aten::clone.out", EV(a), NONE(), EV(oc), EV(oc)));
  CHECK(ktest_expect(oc, DV(1, 2, 3, 4), 4, 0));
  CHECK_STATUS(CALL("aten::clone.out", EV(a), NONE(), EV(of), EV(of)), PTE_ERR_INVALID_ARGUMENT);
  pte_tensor *oa = T(PTE_DTYPE_INT, 2, SZ(2, 2), NULL);
  CHECK_OK(CALL("aten::alias_copy.out", EV(a), EV(oa), EV(oa)));
  CHECK(ktest_expect(oa, DV(1, 2, 3, 4), 4, 0));
  /* alias_copy onto the same memory is a no-op */
  CHECK_OK(CALL("aten::alias_copy.out", EV(a), EV(a), EV(a)));
  CHECK(ktest_expect(a, DV(1, 2, 3, 4), 4, 0));

  /* copy.out: src [2] broadcast into self's [2,2], dtype of self */
  pte_tensor *src = T(PTE_DTYPE_DOUBLE, 1, SZ(2), DV(9.5, -1));
  pte_tensor *ocp = T(PTE_DTYPE_INT, 2, SZ(2, 2), NULL);
  CHECK_OK(CALL("aten::copy.out", EV(a), EV(src), B(false), EV(ocp), EV(ocp)));
  CHECK(ktest_expect(ocp, DV(9, -1, 9, -1), 4, 0));
  pte_tensor *src3 = T(PTE_DTYPE_DOUBLE, 1, SZ(3), DV(1, 2, 3));
  CHECK_STATUS(CALL("aten::copy.out", EV(a), EV(src3), B(false), EV(ocp), EV(ocp)),
               PTE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(CALL("aten::copy.out", EV(a), EV(src), B(false), EV(of), EV(of)),
               PTE_ERR_INVALID_ARGUMENT);
  /* clone of a channels-last tensor into a contiguous out */
  const uint8_t cl[] = {0, 2, 3, 1};
  double v[12];
  for (int i = 0; i < 12; i++) v[i] = i * 0.5;
  pte_tensor *x = ktest_tensor(PTE_DTYPE_FLOAT, 4, SZ(1, 3, 2, 2), cl, v);
  pte_tensor *ox = T(PTE_DTYPE_FLOAT, 4, SZ(1, 3, 2, 2), NULL);
  CHECK_OK(CALL("aten::clone.out", EV(x), NONE(), EV(ox), EV(ox)));
  const float *m = (const float *)ox->data;
  for (int i = 0; i < 12; i++) CHECK_MSG(m[i] == (float)(i * 0.5), "mem[%d] = %g", i, m[i]);
}

/* ------------------------------------------------------------------------------------------ */
/* layouts, shapes, argument errors */

TEST(channels_last_inputs) {
  /* a: channels-last [1,2,2,2]; b: contiguous; out: contiguous, then channels-last */
  const uint8_t cl[] = {0, 2, 3, 1};
  double va[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  double vb[8] = {10, 20, 30, 40, 50, 60, 70, 80};
  pte_tensor *a = ktest_tensor(PTE_DTYPE_FLOAT, 4, SZ(1, 2, 2, 2), cl, va);
  pte_tensor *b = T(PTE_DTYPE_FLOAT, 4, SZ(1, 2, 2, 2), vb);
  pte_tensor *o = T(PTE_DTYPE_FLOAT, 4, SZ(1, 2, 2, 2), NULL);
  CHECK_OK(CALL("aten::add.out", EV(a), EV(b), I(1), EV(o), EV(o)));
  CHECK(ktest_expect(o, DV(11, 22, 33, 44, 55, 66, 77, 88), 8, 0));
  pte_tensor *ocl = ktest_tensor(PTE_DTYPE_FLOAT, 4, SZ(1, 2, 2, 2), cl, NULL);
  CHECK_OK(CALL("aten::mul.out", EV(a), EV(b), EV(ocl), EV(ocl)));
  CHECK(ktest_expect(ocl, DV(10, 40, 90, 160, 250, 360, 490, 640), 8, 0));
  /* memory of the channels-last out: c fastest */
  CHECK(((const float *)ocl->data)[1] == 250.0f);
  /* per-channel bias [1,2,1,1] broadcast onto channels-last, generic (double) path */
  pte_tensor *ad = ktest_tensor(PTE_DTYPE_DOUBLE, 4, SZ(1, 2, 2, 2), cl, va);
  pte_tensor *bias = T(PTE_DTYPE_DOUBLE, 4, SZ(1, 2, 1, 1), DV(100, 200));
  pte_tensor *od = ktest_tensor(PTE_DTYPE_DOUBLE, 4, SZ(1, 2, 2, 2), cl, NULL);
  CHECK_OK(CALL("aten::sub.out", EV(ad), EV(bias), I(1), EV(od), EV(od)));
  CHECK(ktest_expect(od, DV(-99, -98, -97, -96, -195, -194, -193, -192), 8, 0));
  /* unary and compare on channels-last */
  pte_tensor *ou = ktest_tensor(PTE_DTYPE_FLOAT, 4, SZ(1, 2, 2, 2), cl, NULL);
  CHECK_OK(CALL("aten::neg.out", EV(a), EV(ou), EV(ou)));
  CHECK(ktest_expect(ou, DV(-1, -2, -3, -4, -5, -6, -7, -8), 8, 0));
  pte_tensor *obool = T(PTE_DTYPE_BOOL, 4, SZ(1, 2, 2, 2), NULL);
  CHECK_OK(CALL("aten::gt.Scalar_out", EV(a), I(4), EV(obool), EV(obool)));
  CHECK(ktest_expect(obool, DV(0, 0, 0, 0, 1, 1, 1, 1), 8, 0));
  /* [0,2,1,3] order (seen in the corpus) through where */
  const uint8_t o2[] = {0, 2, 1, 3};
  pte_tensor *p = ktest_tensor(PTE_DTYPE_FLOAT, 4, SZ(1, 2, 2, 2), o2, va);
  pte_tensor *cond = T(PTE_DTYPE_BOOL, 1, SZ(2), DV(1, 0));
  pte_tensor *ow = T(PTE_DTYPE_FLOAT, 4, SZ(1, 2, 2, 2), NULL);
  CHECK_OK(CALL("aten::where.self_out", EV(cond), EV(p), EV(b), EV(ow), EV(ow)));
  CHECK(ktest_expect(ow, DV(1, 20, 3, 40, 5, 60, 7, 80), 8, 0));
}

TEST(out_shape_and_dtype_errors) {
  pte_tensor *a = T(PTE_DTYPE_FLOAT, 2, SZ(2, 3), DV(1, 2, 3, 4, 5, 6));
  pte_tensor *bad = T(PTE_DTYPE_FLOAT, 2, SZ(2, 2), NULL);
  CHECK_STATUS(CALL("aten::add.out", EV(a), EV(a), I(1), EV(bad), EV(bad)),
               PTE_ERR_INVALID_ARGUMENT);
  pte_tensor *rank = T(PTE_DTYPE_FLOAT, 1, SZ(6), NULL);
  CHECK_STATUS(CALL("aten::mul.out", EV(a), EV(a), EV(rank), EV(rank)), PTE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(CALL("aten::exp.out", EV(a), EV(bad), EV(bad)), PTE_ERR_INVALID_ARGUMENT);
  /* a dynamic out too small for the result */
  pte_tensor *dyn = ktest_tensor_dyn(PTE_DTYPE_FLOAT, 2, SZ(1, 1), NULL, 4);
  CHECK_STATUS(CALL("aten::add.out", EV(a), EV(a), I(1), EV(dyn), EV(dyn)),
               PTE_ERR_INVALID_ARGUMENT);
  /* a dynamic out big enough is resized */
  pte_tensor *dyn2 = ktest_tensor_dyn(PTE_DTYPE_FLOAT, 2, SZ(1, 1), NULL, 6);
  CHECK_OK(CALL("aten::add.out", EV(a), EV(a), I(1), EV(dyn2), EV(dyn2)));
  CHECK(ktest_expect_shape(dyn2, 2, SZ(2, 3)));
  CHECK(ktest_expect(dyn2, DV(2, 4, 6, 8, 10, 12), 6, 0));
  /* wrong out dtype for a float result */
  pte_tensor *oi = T(PTE_DTYPE_INT, 2, SZ(2, 3), NULL);
  CHECK_STATUS(CALL("aten::mul.out", EV(a), EV(a), EV(oi), EV(oi)), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(ktest_last_msg(), "cannot be cast");
  pte_tensor *ob = T(PTE_DTYPE_BOOL, 2, SZ(2, 3), NULL);
  CHECK_STATUS(CALL("aten::relu.out", EV(a), EV(ob), EV(ob)), PTE_ERR_INVALID_ARGUMENT);
  /* unsupported dtype (uint16) */
  pte_tensor *u16 = T(PTE_DTYPE_UINT16, 1, SZ(2), NULL);
  CHECK_STATUS(CALL("aten::neg.out", EV(u16), EV(u16), EV(u16)), PTE_ERR_INVALID_ARGUMENT);
}

TEST(argument_errors) {
  pte_tensor *a = T(PTE_DTYPE_FLOAT, 1, SZ(2), DV(1, 2));
  pte_tensor *o = T(PTE_DTYPE_FLOAT, 1, SZ(2), NULL);
  /* too few / too many args */
  CHECK_STATUS(CALL("aten::add.out", EV(a), EV(a), EV(o)), PTE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(CALL("aten::neg.out", EV(a), EV(o), EV(o), EV(o)), PTE_ERR_INVALID_ARGUMENT);
  /* wrong tags */
  CHECK_STATUS(CALL("aten::add.out", I(1), EV(a), I(1), EV(o), EV(o)), PTE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(CALL("aten::add.out", EV(a), EV(a), EV(a), EV(o), EV(o)), PTE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(CALL("aten::mul.out", EV(a), EV(a), I(0), I(0)), PTE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(CALL("aten::mul.Scalar_out", EV(a), EV(a), EV(o), EV(o)), PTE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(CALL("aten::hardtanh.out", EV(a), NONE(), I(1), EV(o), EV(o)),
               PTE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(CALL("aten::full.out", I(3), D(1), EV(o), EV(o)), PTE_ERR_INVALID_ARGUMENT);
  /* the out/ret convention: without the trailing ret arg it still works */
  CHECK_OK(CALL("aten::mul.out", EV(a), EV(a), EV(o)));
  CHECK(ktest_expect(o, DV(1, 4), 2, 0));
  /* a distinct ret EValue receives the out tensor */
  pte_evalue *ret = ktest_ev_none();
  CHECK_OK(CALL("aten::add.out", EV(a), EV(a), I(1), EV(o), ret));
  CHECK_EQ_INT(ret->tag, PTE_TAG_TENSOR);
  CHECK(ret->u.tensor == o);
  /* a tensor with elements but no data */
  pte_tensor *nod = T(PTE_DTYPE_FLOAT, 1, SZ(2), NULL);
  nod->data = NULL;
  CHECK_STATUS(CALL("aten::neg.out", EV(nod), EV(o), EV(o)), PTE_ERR_INVALID_ARGUMENT);
}

TEST(empty_tensors) {
  pte_tensor *a = T(PTE_DTYPE_FLOAT, 2, SZ(0, 3), NULL);
  pte_tensor *b = T(PTE_DTYPE_FLOAT, 1, SZ(3), DV(1, 2, 3));
  pte_tensor *o = T(PTE_DTYPE_FLOAT, 2, SZ(0, 3), NULL);
  CHECK_OK(CALL("aten::add.out", EV(a), EV(b), I(1), EV(o), EV(o)));
  CHECK_EQ_INT(o->numel, 0);
  CHECK_OK(CALL("aten::exp.out", EV(a), EV(o), EV(o)));
  CHECK_OK(CALL("dim_order_ops::_to_dim_order_copy.out", EV(a), B(false), NONE(), EV(o), EV(o)));
}

TEST(all_dtypes_add) {
  /* 3 + 4 in every supported dtype (bool: 1 + 1 = 1) */
  const int dts[] = {PTE_DTYPE_BYTE, PTE_DTYPE_CHAR,   PTE_DTYPE_SHORT, PTE_DTYPE_INT,
                     PTE_DTYPE_LONG, PTE_DTYPE_HALF,   PTE_DTYPE_FLOAT, PTE_DTYPE_DOUBLE,
                     PTE_DTYPE_BFLOAT16};
  for (size_t i = 0; i < sizeof dts / sizeof dts[0]; i++) {
    pte_tensor *a = T(dts[i], 1, SZ(2), DV(3, 100));
    pte_tensor *b = T(dts[i], 1, SZ(2), DV(4, 20));
    pte_tensor *o = T(dts[i], 1, SZ(2), NULL);
    CHECK_OK(CALL("aten::add.out", EV(a), EV(b), I(1), EV(o), EV(o)));
    CHECK_MSG(ktest_get(o, 0) == 7.0 && ktest_get(o, 1) == 120.0, "dtype %d", dts[i]);
    CHECK_OK(CALL("aten::mul.out", EV(a), EV(b), EV(o), EV(o)));
    CHECK_MSG(ktest_get(o, 0) == 12.0, "dtype %d", dts[i]);
    pte_tensor *ob = T(PTE_DTYPE_BOOL, 1, SZ(2), NULL);
    CHECK_OK(CALL("aten::lt.Tensor_out", EV(a), EV(b), EV(ob), EV(ob)));
    CHECK_MSG(ktest_get(ob, 0) == 1.0 && ktest_get(ob, 1) == 0.0, "dtype %d", dts[i]);
  }
}

int main(void) {
  RUN(add_broadcast_alpha);
  RUN(add_zero_dim_and_rank_mismatch);
  RUN(add_type_promotion);
  RUN(add_bool_rules);
  RUN(half_and_bf16_rounding_ties);
  RUN(integer_wraparound);
  RUN(sub_and_mul_values);
  RUN(div_true_and_modes);
  RUN(div_integer_by_zero);
  RUN(pow_variants);
  RUN(unary_math);
  RUN(activations);
  RUN(clamp_scalar_and_tensor);
  RUN(comparisons);
  RUN(logical_not_where_masked_fill);
  RUN(fills);
  RUN(to_dim_order_copy);
  RUN(copies);
  RUN(channels_last_inputs);
  RUN(out_shape_and_dtype_errors);
  RUN(argument_errors);
  RUN(empty_tensors);
  RUN(all_dtypes_add);
  ktest_free_all();
  return test_summary();
}
