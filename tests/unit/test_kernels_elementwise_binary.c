/* Tests for the binary elementwise kernels added for issue 13: bitwise_not/and/or/xor,
 * logical_and/or/xor, atan2, fmod, remainder, floor_divide, maximum, minimum, rsub. Expected
 * values are worked out by hand (two's complement bit patterns, Python/C modulo sign rules,
 * closed forms for atan2). */
#include "portable/portable_binary.h"
#include "pte/kernel.h"
#include "pte/portable_kernels.h"
#include "portable/portable_bitwise.h"
#include "support/ktest.h"
#include "support/ktest_sugar.h"
#include "test.h"

static pte_op_fn K(const char *name) {
  pte_op_fn f = ktest_find(pte_portable_binary_kernels, pte_portable_binary_kernels_count, name);
  if (!f) f = ktest_find(pte_portable_bitwise_kernels, pte_portable_bitwise_kernels_count, name);
  if (!f) fprintf(stderr, "    kernel %s not found\n", name);
  return f;
}

#define CALL(name, ...) ktest_run(K(name), ARGS(__VA_ARGS__), NARGS(__VA_ARGS__))

#define PI 3.14159265358979323846

/* ------------------------------------------------------------------------------------------ */
/* bitwise */

TEST(bitwise_tensor_values) {
  /* 12 = 1100b, 10 = 1010b; -1 = all ones; 5 = 101b, 3 = 011b */
  pte_tensor *a = T(PTE_DTYPE_INT, 1, SZ(4), DV(12, -1, 0, 5));
  pte_tensor *b = T(PTE_DTYPE_INT, 1, SZ(4), DV(10, 7, -1, 3));
  pte_tensor *o = T(PTE_DTYPE_INT, 1, SZ(4), NULL);
  CHECK_OK(CALL("aten::bitwise_and.Tensor_out", EV(a), EV(b), EV(o), EV(o)));
  CHECK(ktest_expect(o, DV(8, 7, 0, 1), 4, 0));
  CHECK_OK(CALL("aten::bitwise_or.Tensor_out", EV(a), EV(b), EV(o), EV(o)));
  CHECK(ktest_expect(o, DV(14, -1, -1, 7), 4, 0));
  CHECK_OK(CALL("aten::bitwise_xor.Tensor_out", EV(a), EV(b), EV(o), EV(o)));
  CHECK(ktest_expect(o, DV(6, -8, -1, 6), 4, 0));
  /* broadcast int64 [2,1] with [3]: high bits survive */
  pte_tensor *l = TI(PTE_DTYPE_LONG, 2, SZ(2, 1), VI(INT64_MIN, 0x0F0F0F0F0F0F0F0FLL));
  pte_tensor *m = TI(PTE_DTYPE_LONG, 1, SZ(3), VI(-1, 0xFF, INT64_MAX));
  pte_tensor *ol = ktest_tensor_dyn(PTE_DTYPE_LONG, 2, SZ(1, 1), NULL, 6);
  CHECK_OK(CALL("aten::bitwise_xor.Tensor_out", EV(l), EV(m), EV(ol), EV(ol)));
  CHECK(ktest_expect_shape(ol, 2, SZ(2, 3)));
  CHECK(ktest_expect_i64(ol, VI(INT64_MAX, INT64_MIN | 0xFF, -1, (int64_t)0xF0F0F0F0F0F0F0F0ULL,
                                0x0F0F0F0F0F0F0FF0LL, (int64_t)0x70F0F0F0F0F0F0F0ULL),
                         6));
  /* bool operands act logically */
  pte_tensor *p = T(PTE_DTYPE_BOOL, 1, SZ(4), DV(1, 1, 0, 0));
  pte_tensor *q = T(PTE_DTYPE_BOOL, 1, SZ(4), DV(1, 0, 1, 0));
  pte_tensor *ob = T(PTE_DTYPE_BOOL, 1, SZ(4), NULL);
  CHECK_OK(CALL("aten::bitwise_and.Tensor_out", EV(p), EV(q), EV(ob), EV(ob)));
  CHECK(ktest_expect(ob, DV(1, 0, 0, 0), 4, 0));
  CHECK_OK(CALL("aten::bitwise_or.Tensor_out", EV(p), EV(q), EV(ob), EV(ob)));
  CHECK(ktest_expect(ob, DV(1, 1, 1, 0), 4, 0));
  CHECK_OK(CALL("aten::bitwise_xor.Tensor_out", EV(p), EV(q), EV(ob), EV(ob)));
  CHECK(ktest_expect(ob, DV(0, 1, 1, 0), 4, 0));
  /* uint8 with int8 promotes to int16: 255 & -1 = 255, 128 | -128 = -128 (0xFF80) */
  pte_tensor *u = T(PTE_DTYPE_BYTE, 1, SZ(2), DV(255, 128));
  pte_tensor *s = T(PTE_DTYPE_CHAR, 1, SZ(2), DV(-1, -128));
  pte_tensor *o16 = T(PTE_DTYPE_SHORT, 1, SZ(2), NULL);
  CHECK_OK(CALL("aten::bitwise_and.Tensor_out", EV(u), EV(s), EV(o16), EV(o16)));
  CHECK(ktest_expect(o16, DV(255, 128), 2, 0));
  CHECK_OK(CALL("aten::bitwise_or.Tensor_out", EV(u), EV(s), EV(o16), EV(o16)));
  CHECK(ktest_expect(o16, DV(-1, -128), 2, 0));
  /* bool with int32 -> int32 */
  pte_tensor *bi = T(PTE_DTYPE_BOOL, 1, SZ(4), DV(1, 0, 1, 0));
  CHECK_OK(CALL("aten::bitwise_or.Tensor_out", EV(bi), EV(a), EV(o), EV(o)));
  CHECK(ktest_expect(o, DV(13, -1, 1, 5), 4, 0));
  /* channels-last operand */
  const uint8_t cl[] = {0, 2, 3, 1};
  pte_tensor *c = ktest_tensor(PTE_DTYPE_SHORT, 4, SZ(1, 2, 1, 2), cl, DV(1, 2, 4, 8));
  pte_tensor *c2 = T(PTE_DTYPE_SHORT, 4, SZ(1, 2, 1, 2), DV(3, 3, 12, 12));
  pte_tensor *oc = T(PTE_DTYPE_SHORT, 4, SZ(1, 2, 1, 2), NULL);
  CHECK_OK(CALL("aten::bitwise_and.Tensor_out", EV(c), EV(c2), EV(oc), EV(oc)));
  CHECK(ktest_expect(oc, DV(1, 2, 4, 8), 4, 0));
  CHECK_OK(CALL("aten::bitwise_xor.Tensor_out", EV(c), EV(c2), EV(oc), EV(oc)));
  CHECK(ktest_expect(oc, DV(2, 1, 8, 4), 4, 0));
}

TEST(bitwise_scalar_values) {
  pte_tensor *a = T(PTE_DTYPE_CHAR, 1, SZ(3), DV(-128, 127, -1));
  pte_tensor *o = T(PTE_DTYPE_CHAR, 1, SZ(3), NULL);
  CHECK_OK(CALL("aten::bitwise_and.Scalar_out", EV(a), I(0x0F), EV(o), EV(o)));
  CHECK(ktest_expect(o, DV(0, 15, 15), 3, 0));
  CHECK_OK(CALL("aten::bitwise_or.Scalar_out", EV(a), I(1), EV(o), EV(o)));
  CHECK(ktest_expect(o, DV(-127, 127, -1), 3, 0));
  /* the scalar wraps to the tensor's dtype: 0x1FF -> int8 -1 */
  CHECK_OK(CALL("aten::bitwise_xor.Scalar_out", EV(a), I(0x1FF), EV(o), EV(o)));
  CHECK(ktest_expect(o, DV(127, -128, 0), 3, 0));
  /* bool tensor with Bool scalar stays bool; with Int scalar becomes int64 */
  pte_tensor *b = T(PTE_DTYPE_BOOL, 1, SZ(2), DV(1, 0));
  pte_tensor *ob = T(PTE_DTYPE_BOOL, 1, SZ(2), NULL);
  CHECK_OK(CALL("aten::bitwise_xor.Scalar_out", EV(b), B(true), EV(ob), EV(ob)));
  CHECK(ktest_expect(ob, DV(0, 1), 2, 0));
  pte_tensor *ol = T(PTE_DTYPE_LONG, 1, SZ(2), NULL);
  CHECK_OK(CALL("aten::bitwise_or.Scalar_out", EV(b), I(6), EV(ol), EV(ol)));
  CHECK(ktest_expect(ol, DV(7, 6), 2, 0));
  CHECK_STATUS(CALL("aten::bitwise_or.Scalar_out", EV(b), I(6), EV(ob), EV(ob)),
               PTE_ERR_INVALID_ARGUMENT); /* int64 result into bool out */
  CHECK_CONTAINS(ktest_last_msg(), "bitwise_or: result dtype");
}

TEST(bitwise_not_values) {
  pte_tensor *a = T(PTE_DTYPE_CHAR, 1, SZ(4), DV(0, -1, 127, -128));
  pte_tensor *o = T(PTE_DTYPE_CHAR, 1, SZ(4), NULL);
  CHECK_OK(CALL("aten::bitwise_not.out", EV(a), EV(o), EV(o)));
  CHECK(ktest_expect(o, DV(-1, 0, -128, 127), 4, 0));
  pte_tensor *u = T(PTE_DTYPE_BYTE, 1, SZ(3), DV(0, 255, 1));
  pte_tensor *ou = T(PTE_DTYPE_BYTE, 1, SZ(3), NULL);
  CHECK_OK(CALL("aten::bitwise_not.out", EV(u), EV(ou), EV(ou)));
  CHECK(ktest_expect(ou, DV(255, 0, 254), 3, 0));
  pte_tensor *l = TI(PTE_DTYPE_LONG, 1, SZ(2), VI(INT64_MIN, 5));
  pte_tensor *ol = T(PTE_DTYPE_LONG, 1, SZ(2), NULL);
  CHECK_OK(CALL("aten::bitwise_not.out", EV(l), EV(ol), EV(ol)));
  CHECK(ktest_expect_i64(ol, VI(INT64_MAX, -6), 2));
  pte_tensor *i = T(PTE_DTYPE_INT, 2, SZ(1, 2), DV(0, 0x7FFFFFFF));
  pte_tensor *oi = T(PTE_DTYPE_INT, 2, SZ(1, 2), NULL);
  CHECK_OK(CALL("aten::bitwise_not.out", EV(i), EV(oi), EV(oi)));
  CHECK(ktest_expect(oi, DV(-1, -2147483648.0), 2, 0));
  pte_tensor *b = T(PTE_DTYPE_BOOL, 1, SZ(2), DV(1, 0));
  pte_tensor *ob = T(PTE_DTYPE_BOOL, 1, SZ(2), NULL);
  CHECK_OK(CALL("aten::bitwise_not.out", EV(b), EV(ob), EV(ob)));
  CHECK(ktest_expect(ob, DV(0, 1), 2, 0));
  pte_tensor *e = T(PTE_DTYPE_INT, 2, SZ(2, 0), NULL);
  pte_tensor *oe = T(PTE_DTYPE_INT, 2, SZ(2, 0), NULL);
  CHECK_OK(CALL("aten::bitwise_not.out", EV(e), EV(oe), EV(oe)));
  pte_tensor *f = T(PTE_DTYPE_FLOAT, 1, SZ(1), DV(1));
  pte_tensor *of = T(PTE_DTYPE_FLOAT, 1, SZ(1), NULL);
  CHECK_STATUS(CALL("aten::bitwise_not.out", EV(f), EV(of), EV(of)), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(ktest_last_msg(), "bitwise_not: self dtype");
}

TEST(bitwise_errors) {
  pte_tensor *f = T(PTE_DTYPE_FLOAT, 1, SZ(2), DV(1, 2));
  pte_tensor *i = T(PTE_DTYPE_INT, 1, SZ(2), DV(1, 2));
  pte_tensor *o = T(PTE_DTYPE_INT, 1, SZ(2), NULL);
  CHECK_STATUS(CALL("aten::bitwise_and.Tensor_out", EV(f), EV(i), EV(o), EV(o)),
               PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(ktest_last_msg(), "bitwise_and: self dtype");
  CHECK_STATUS(CALL("aten::bitwise_xor.Tensor_out", EV(i), EV(f), EV(o), EV(o)),
               PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(ktest_last_msg(), "bitwise_xor: other dtype");
  CHECK_STATUS(CALL("aten::bitwise_or.Scalar_out", EV(i), D(1.0), EV(o), EV(o)),
               PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(ktest_last_msg(), "bitwise_or: other");
  pte_tensor *j = T(PTE_DTYPE_INT, 1, SZ(3), DV(1, 2, 3));
  CHECK_STATUS(CALL("aten::bitwise_and.Tensor_out", EV(i), EV(j), EV(o), EV(o)),
               PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(ktest_last_msg(), "bitwise_and: shapes of self and other");
}

/* ------------------------------------------------------------------------------------------ */
/* logical */

TEST(logical_values) {
  /* NaN and -0.0: NaN is true, -0.0 is false */
  pte_tensor *a = T(PTE_DTYPE_FLOAT, 1, SZ(4), DV(0, 1.5, NAN, -0.0));
  pte_tensor *b = T(PTE_DTYPE_INT, 1, SZ(4), DV(0, 0, 3, 2));
  pte_tensor *o = T(PTE_DTYPE_BOOL, 1, SZ(4), NULL);
  CHECK_OK(CALL("aten::logical_and.out", EV(a), EV(b), EV(o), EV(o)));
  CHECK(ktest_expect(o, DV(0, 0, 1, 0), 4, 0));
  CHECK_OK(CALL("aten::logical_or.out", EV(a), EV(b), EV(o), EV(o)));
  CHECK(ktest_expect(o, DV(0, 1, 1, 1), 4, 0));
  CHECK_OK(CALL("aten::logical_xor.out", EV(a), EV(b), EV(o), EV(o)));
  CHECK(ktest_expect(o, DV(0, 1, 0, 1), 4, 0));
  /* out of any dtype receives 0/1 */
  pte_tensor *of = T(PTE_DTYPE_FLOAT, 1, SZ(4), NULL);
  CHECK_OK(CALL("aten::logical_or.out", EV(a), EV(b), EV(of), EV(of)));
  CHECK(ktest_expect(of, DV(0, 1, 1, 1), 4, 0));
  pte_tensor *oh = T(PTE_DTYPE_HALF, 1, SZ(4), NULL);
  CHECK_OK(CALL("aten::logical_xor.out", EV(a), EV(b), EV(oh), EV(oh)));
  CHECK(ktest_expect(oh, DV(0, 1, 0, 1), 4, 0));
  /* broadcast [2,1] x [3] with int64 extremes and a tiny double */
  pte_tensor *l = TI(PTE_DTYPE_LONG, 2, SZ(2, 1), VI(INT64_MIN, 0));
  pte_tensor *d = T(PTE_DTYPE_DOUBLE, 1, SZ(3), DV(1e-300, 0, -2));
  pte_tensor *ol = T(PTE_DTYPE_LONG, 2, SZ(2, 3), NULL);
  CHECK_OK(CALL("aten::logical_and.out", EV(l), EV(d), EV(ol), EV(ol)));
  CHECK(ktest_expect(ol, DV(1, 0, 1, 0, 0, 0), 6, 0));
  /* bool x bool */
  pte_tensor *p = T(PTE_DTYPE_BOOL, 1, SZ(4), DV(1, 1, 0, 0));
  pte_tensor *q = T(PTE_DTYPE_BOOL, 1, SZ(4), DV(1, 0, 1, 0));
  CHECK_OK(CALL("aten::logical_xor.out", EV(p), EV(q), EV(o), EV(o)));
  CHECK(ktest_expect(o, DV(0, 1, 1, 0), 4, 0));
  /* uint8 256-wrap cannot happen: 256 is not representable, but 0x100 in int16 is true */
  pte_tensor *s = T(PTE_DTYPE_SHORT, 1, SZ(2), DV(256, 0));
  pte_tensor *u = T(PTE_DTYPE_BYTE, 1, SZ(2), DV(1, 1));
  pte_tensor *o2 = T(PTE_DTYPE_BOOL, 1, SZ(2), NULL);
  CHECK_OK(CALL("aten::logical_and.out", EV(s), EV(u), EV(o2), EV(o2)));
  CHECK(ktest_expect(o2, DV(1, 0), 2, 0));
  /* bfloat16 tiny value is true */
  pte_tensor *bf = T(PTE_DTYPE_BFLOAT16, 1, SZ(2), DV(1e-30, 0));
  CHECK_OK(CALL("aten::logical_or.out", EV(bf), EV(bf), EV(o2), EV(o2)));
  CHECK(ktest_expect(o2, DV(1, 0), 2, 0));
  /* channels-last out */
  const uint8_t cl[] = {0, 2, 3, 1};
  pte_tensor *x = T(PTE_DTYPE_INT, 4, SZ(1, 2, 1, 2), DV(0, 1, 2, 0));
  pte_tensor *ocl = ktest_tensor(PTE_DTYPE_BOOL, 4, SZ(1, 2, 1, 2), cl, NULL);
  CHECK_OK(CALL("aten::logical_or.out", EV(x), EV(x), EV(ocl), EV(ocl)));
  CHECK(ktest_expect(ocl, DV(0, 1, 1, 0), 4, 0));
  /* errors */
  pte_tensor *bad = T(PTE_DTYPE_INT, 1, SZ(3), DV(1, 2, 3));
  CHECK_STATUS(CALL("aten::logical_and.out", EV(a), EV(bad), EV(o), EV(o)),
               PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(ktest_last_msg(), "logical_and: shapes of self and other");
}

/* ------------------------------------------------------------------------------------------ */
/* atan2 */

TEST(atan2_values) {
  pte_tensor *y = T(PTE_DTYPE_FLOAT, 1, SZ(6), DV(1, 1, -1, 0, -0.0, INFINITY));
  pte_tensor *x = T(PTE_DTYPE_FLOAT, 1, SZ(6), DV(1, -1, -1, -1, -1, INFINITY));
  pte_tensor *o = T(PTE_DTYPE_FLOAT, 1, SZ(6), NULL);
  CHECK_OK(CALL("aten::atan2.out", EV(y), EV(x), EV(o), EV(o)));
  CHECK(ktest_expect(o, DV(PI / 4, 3 * PI / 4, -3 * PI / 4, PI, -PI, PI / 4), 6, 1e-6));
  /* integers compute in float32; a double operand gives double */
  pte_tensor *iy = T(PTE_DTYPE_INT, 2, SZ(2, 1), DV(1, -1));
  pte_tensor *ix = T(PTE_DTYPE_LONG, 1, SZ(2), DV(0, 1));
  pte_tensor *of = T(PTE_DTYPE_FLOAT, 2, SZ(2, 2), NULL);
  CHECK_OK(CALL("aten::atan2.out", EV(iy), EV(ix), EV(of), EV(of)));
  CHECK(ktest_expect(of, DV(PI / 2, PI / 4, -PI / 2, -PI / 4), 4, 1e-6));
  pte_tensor *dx = T(PTE_DTYPE_DOUBLE, 1, SZ(2), DV(0, 1));
  pte_tensor *od = T(PTE_DTYPE_DOUBLE, 2, SZ(2, 2), NULL);
  CHECK_OK(CALL("aten::atan2.out", EV(iy), EV(dx), EV(od), EV(od)));
  CHECK(ktest_expect(od, DV(PI / 2, PI / 4, -PI / 2, -PI / 4), 4, 1e-15));
  pte_tensor *oi = T(PTE_DTYPE_INT, 2, SZ(2, 2), NULL);
  CHECK_STATUS(CALL("aten::atan2.out", EV(iy), EV(ix), EV(oi), EV(oi)), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(ktest_last_msg(), "atan2: result dtype float32 cannot be cast to out int32");
  /* half: atan2(1, 1) = pi/4 = 0.785398 -> 0x3A48 (0.78515625) */
  pte_tensor *h = T(PTE_DTYPE_HALF, 1, SZ(1), DV(1));
  pte_tensor *oh = T(PTE_DTYPE_HALF, 1, SZ(1), NULL);
  CHECK_OK(CALL("aten::atan2.out", EV(h), EV(h), EV(oh), EV(oh)));
  CHECK_EQ_INT(ktest_get_u16(oh, 0), 0x3A48);
}

/* ------------------------------------------------------------------------------------------ */
/* fmod / remainder / floor_divide */

TEST(fmod_values) {
  /* C rule: the result takes the dividend's sign */
  pte_tensor *a = T(PTE_DTYPE_FLOAT, 1, SZ(7), DV(5.5, -5.5, 5.5, -5.5, 1, INFINITY, 3));
  pte_tensor *b = T(PTE_DTYPE_FLOAT, 1, SZ(7), DV(2, 2, -2, -2, 0, 2, INFINITY));
  pte_tensor *o = T(PTE_DTYPE_FLOAT, 1, SZ(7), NULL);
  CHECK_OK(CALL("aten::fmod.Tensor_out", EV(a), EV(b), EV(o), EV(o)));
  CHECK(ktest_expect(o, DV(1.5, -1.5, 1.5, -1.5, NAN, NAN, 3), 7, 0));
  pte_tensor *i = T(PTE_DTYPE_INT, 1, SZ(4), DV(7, -7, 7, -7));
  pte_tensor *j = T(PTE_DTYPE_INT, 1, SZ(4), DV(3, 3, -3, -3));
  pte_tensor *oi = T(PTE_DTYPE_INT, 1, SZ(4), NULL);
  CHECK_OK(CALL("aten::fmod.Tensor_out", EV(i), EV(j), EV(oi), EV(oi)));
  CHECK(ktest_expect(oi, DV(1, -1, 1, -1), 4, 0));
  /* int64 exact beyond 2^53, INT64_MIN % -1 = 0 */
  pte_tensor *l = TI(PTE_DTYPE_LONG, 1, SZ(2), VI(9007199254740993LL, INT64_MIN));
  pte_tensor *m = TI(PTE_DTYPE_LONG, 1, SZ(2), VI(10, -1));
  pte_tensor *ol = T(PTE_DTYPE_LONG, 1, SZ(2), NULL);
  CHECK_OK(CALL("aten::fmod.Tensor_out", EV(l), EV(m), EV(ol), EV(ol)));
  CHECK(ktest_expect_i64(ol, VI(3, 0), 2));
  /* Scalar: int tensor with a Double scalar computes in float32 */
  pte_tensor *of = T(PTE_DTYPE_FLOAT, 1, SZ(4), NULL);
  CHECK_OK(CALL("aten::fmod.Scalar_out", EV(i), D(2.5), EV(of), EV(of)));
  CHECK(ktest_expect(of, DV(2, -2, 2, -2), 4, 0));
  CHECK_OK(CALL("aten::fmod.Scalar_out", EV(i), I(-4), EV(oi), EV(oi)));
  CHECK(ktest_expect(oi, DV(3, -3, 3, -3), 4, 0));
  /* broadcast */
  pte_tensor *col = T(PTE_DTYPE_DOUBLE, 2, SZ(2, 1), DV(10, -10));
  pte_tensor *row = T(PTE_DTYPE_DOUBLE, 1, SZ(3), DV(3, 4, 0.75));
  pte_tensor *od = T(PTE_DTYPE_DOUBLE, 2, SZ(2, 3), NULL);
  CHECK_OK(CALL("aten::fmod.Tensor_out", EV(col), EV(row), EV(od), EV(od)));
  CHECK(ktest_expect(od, DV(1, 2, 0.25, -1, -2, -0.25), 6, 0));
  /* integer division by zero */
  pte_tensor *z = T(PTE_DTYPE_INT, 1, SZ(4), DV(1, 1, 0, 1));
  CHECK_STATUS(CALL("aten::fmod.Tensor_out", EV(i), EV(z), EV(oi), EV(oi)),
               PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(ktest_last_msg(), "fmod: integer division by zero");
  CHECK_STATUS(CALL("aten::fmod.Scalar_out", EV(i), I(0), EV(oi), EV(oi)),
               PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(ktest_last_msg(), "fmod: integer division by zero");
  /* bool is rejected */
  pte_tensor *bb = T(PTE_DTYPE_BOOL, 1, SZ(1), DV(1));
  pte_tensor *ob = T(PTE_DTYPE_BOOL, 1, SZ(1), NULL);
  CHECK_STATUS(CALL("aten::fmod.Tensor_out", EV(bb), EV(bb), EV(ob), EV(ob)),
               PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(ktest_last_msg(), "fmod: not supported for bool");
}

TEST(remainder_values) {
  /* Python rule: the result takes the divisor's sign */
  pte_tensor *a = T(PTE_DTYPE_FLOAT, 1, SZ(7), DV(5.5, -5.5, 5.5, -5.5, -1, 1, 1));
  pte_tensor *b = T(PTE_DTYPE_FLOAT, 1, SZ(7), DV(2, 2, -2, -2, INFINITY, -INFINITY, 0));
  pte_tensor *o = T(PTE_DTYPE_FLOAT, 1, SZ(7), NULL);
  CHECK_OK(CALL("aten::remainder.Tensor_out", EV(a), EV(b), EV(o), EV(o)));
  CHECK(ktest_expect(o, DV(1.5, 0.5, -0.5, -1.5, INFINITY, -INFINITY, NAN), 7, 0));
  pte_tensor *i = T(PTE_DTYPE_INT, 1, SZ(5), DV(7, -7, 7, -7, 6));
  pte_tensor *j = T(PTE_DTYPE_INT, 1, SZ(5), DV(3, 3, -3, -3, -3));
  pte_tensor *oi = T(PTE_DTYPE_INT, 1, SZ(5), NULL);
  CHECK_OK(CALL("aten::remainder.Tensor_out", EV(i), EV(j), EV(oi), EV(oi)));
  CHECK(ktest_expect(oi, DV(1, 2, -2, -1, 0), 5, 0));
  /* int8 with -1 divisor and extremes */
  pte_tensor *c = T(PTE_DTYPE_CHAR, 1, SZ(3), DV(-128, -128, 127));
  pte_tensor *d = T(PTE_DTYPE_CHAR, 1, SZ(3), DV(-1, 127, -128));
  pte_tensor *oc = T(PTE_DTYPE_CHAR, 1, SZ(3), NULL);
  CHECK_OK(CALL("aten::remainder.Tensor_out", EV(c), EV(d), EV(oc), EV(oc)));
  CHECK(ktest_expect(oc, DV(0, 126, -1), 3, 0));
  /* Scalar overloads */
  CHECK_OK(CALL("aten::remainder.Scalar_out", EV(i), I(-4), EV(oi), EV(oi)));
  CHECK(ktest_expect(oi, DV(-1, -3, -1, -3, -2), 5, 0));
  pte_tensor *of = T(PTE_DTYPE_FLOAT, 1, SZ(5), NULL);
  CHECK_OK(CALL("aten::remainder.Scalar_out", EV(i), D(2.5), EV(of), EV(of)));
  CHECK(ktest_expect(of, DV(2, 0.5, 2, 0.5, 1), 5, 0));
  /* half */
  pte_tensor *h = T(PTE_DTYPE_HALF, 1, SZ(2), DV(-7, 7));
  pte_tensor *oh = T(PTE_DTYPE_HALF, 1, SZ(2), NULL);
  CHECK_OK(CALL("aten::remainder.Scalar_out", EV(h), D(4.0), EV(oh), EV(oh)));
  CHECK(ktest_expect(oh, DV(1, 3), 2, 0));
  /* errors */
  pte_tensor *z = TI(PTE_DTYPE_LONG, 1, SZ(1), VI(0));
  CHECK_STATUS(CALL("aten::remainder.Tensor_out", EV(i), EV(z), EV(oi), EV(oi)),
               PTE_ERR_INVALID_ARGUMENT); /* int32 % int64 -> int64 result into int32: allowed cast */
  CHECK_CONTAINS(ktest_last_msg(), "remainder: integer division by zero");
  pte_tensor *bad = T(PTE_DTYPE_INT, 1, SZ(2), DV(1, 2));
  CHECK_STATUS(CALL("aten::remainder.Tensor_out", EV(i), EV(bad), EV(oi), EV(oi)),
               PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(ktest_last_msg(), "remainder: shapes cannot be broadcast (self and other)");
}

TEST(floor_divide_values) {
  pte_tensor *i = T(PTE_DTYPE_INT, 1, SZ(5), DV(7, -7, 7, -7, 6));
  pte_tensor *j = T(PTE_DTYPE_INT, 1, SZ(5), DV(2, 2, -2, -2, 3));
  pte_tensor *oi = T(PTE_DTYPE_INT, 1, SZ(5), NULL);
  CHECK_OK(CALL("aten::floor_divide.out", EV(i), EV(j), EV(oi), EV(oi)));
  CHECK(ktest_expect(oi, DV(3, -4, -4, 3, 2), 5, 0));
  /* int8 -128 // -1 wraps to -128 */
  pte_tensor *c = T(PTE_DTYPE_CHAR, 1, SZ(2), DV(-128, -1));
  pte_tensor *d = T(PTE_DTYPE_CHAR, 1, SZ(2), DV(-1, 127));
  pte_tensor *oc = T(PTE_DTYPE_CHAR, 1, SZ(2), NULL);
  CHECK_OK(CALL("aten::floor_divide.out", EV(c), EV(d), EV(oc), EV(oc)));
  CHECK(ktest_expect(oc, DV(-128, -1), 2, 0));
  pte_tensor *l = TI(PTE_DTYPE_LONG, 1, SZ(2), VI(INT64_MIN, INT64_MIN));
  pte_tensor *m = TI(PTE_DTYPE_LONG, 1, SZ(2), VI(-1, 3));
  pte_tensor *ol = T(PTE_DTYPE_LONG, 1, SZ(2), NULL);
  CHECK_OK(CALL("aten::floor_divide.out", EV(l), EV(m), EV(ol), EV(ol)));
  /* -9223372036854775808 / 3 = -3074457345618258602.67 -> floor -3074457345618258603 */
  CHECK(ktest_expect_i64(ol, VI(INT64_MIN, -3074457345618258603LL), 2));
  /* floating: floor of the true quotient; division by zero gives +-inf / NaN */
  pte_tensor *a = T(PTE_DTYPE_FLOAT, 1, SZ(6), DV(7.5, -7.5, 1, -1, 0, -0.5));
  pte_tensor *b = T(PTE_DTYPE_FLOAT, 1, SZ(6), DV(2, 2, 0, 0, 0, 4));
  pte_tensor *o = T(PTE_DTYPE_FLOAT, 1, SZ(6), NULL);
  CHECK_OK(CALL("aten::floor_divide.out", EV(a), EV(b), EV(o), EV(o)));
  CHECK(ktest_expect(o, DV(3, -4, INFINITY, -INFINITY, NAN, -1), 6, 0));
  /* int with double -> double */
  pte_tensor *dd = T(PTE_DTYPE_DOUBLE, 1, SZ(1), DV(0.1));
  pte_tensor *od = T(PTE_DTYPE_DOUBLE, 1, SZ(5), NULL);
  CHECK_OK(CALL("aten::floor_divide.out", EV(i), EV(dd), EV(od), EV(od)));
  /* 0.1 is slightly above 1/10, so 7 // 0.1 is 69 (as Python: fmod(7, 0.1) = 0.0999..96 and
   * (7 - that) / 0.1 = 69.00000000000001); -7 // 0.1 is -70 */
  CHECK(ktest_expect(od, DV(69, -70, 69, -70, 59), 5, 0));
  /* errors */
  pte_tensor *z = T(PTE_DTYPE_INT, 1, SZ(1), DV(0));
  CHECK_STATUS(CALL("aten::floor_divide.out", EV(i), EV(z), EV(oi), EV(oi)),
               PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(ktest_last_msg(), "floor_divide: integer division by zero (other)");
  pte_tensor *bb = T(PTE_DTYPE_BOOL, 1, SZ(1), DV(1));
  pte_tensor *ob = T(PTE_DTYPE_BOOL, 1, SZ(1), NULL);
  CHECK_STATUS(CALL("aten::floor_divide.out", EV(bb), EV(bb), EV(ob), EV(ob)),
               PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(ktest_last_msg(), "floor_divide: not supported for bool");
}

/* ------------------------------------------------------------------------------------------ */
/* maximum / minimum / rsub */

TEST(maximum_minimum_values) {
  pte_tensor *a = T(PTE_DTYPE_FLOAT, 1, SZ(5), DV(1, NAN, -2, 3, -INFINITY));
  pte_tensor *b = T(PTE_DTYPE_FLOAT, 1, SZ(5), DV(2, 1, NAN, -INFINITY, 5));
  pte_tensor *o = T(PTE_DTYPE_FLOAT, 1, SZ(5), NULL);
  CHECK_OK(CALL("aten::maximum.out", EV(a), EV(b), EV(o), EV(o)));
  CHECK(ktest_expect(o, DV(2, NAN, NAN, 3, 5), 5, 0));
  CHECK_OK(CALL("aten::minimum.out", EV(a), EV(b), EV(o), EV(o)));
  CHECK(ktest_expect(o, DV(1, NAN, NAN, -INFINITY, -INFINITY), 5, 0));
  /* double path (non-float32) too */
  pte_tensor *ad = T(PTE_DTYPE_DOUBLE, 1, SZ(5), DV(1, NAN, -2, 3, -INFINITY));
  pte_tensor *od = T(PTE_DTYPE_DOUBLE, 1, SZ(5), NULL);
  CHECK_OK(CALL("aten::maximum.out", EV(ad), EV(b), EV(od), EV(od)));
  CHECK(ktest_expect(od, DV(2, NAN, NAN, 3, 5), 5, 0));
  /* int8 [2,1] with int32 [3] -> int32 [2,3] */
  pte_tensor *c = T(PTE_DTYPE_CHAR, 2, SZ(2, 1), DV(-128, 5));
  pte_tensor *d = T(PTE_DTYPE_INT, 1, SZ(3), DV(-1000, 0, 1000));
  pte_tensor *oi = T(PTE_DTYPE_INT, 2, SZ(2, 3), NULL);
  CHECK_OK(CALL("aten::maximum.out", EV(c), EV(d), EV(oi), EV(oi)));
  CHECK(ktest_expect(oi, DV(-128, 0, 1000, 5, 5, 1000), 6, 0));
  CHECK_OK(CALL("aten::minimum.out", EV(c), EV(d), EV(oi), EV(oi)));
  CHECK(ktest_expect(oi, DV(-1000, -128, -128, -1000, 0, 5), 6, 0));
  /* uint8 255 vs int8 -1 -> int16: max 255, min -1 */
  pte_tensor *u = T(PTE_DTYPE_BYTE, 1, SZ(1), DV(255));
  pte_tensor *s = T(PTE_DTYPE_CHAR, 1, SZ(1), DV(-1));
  pte_tensor *o16 = T(PTE_DTYPE_SHORT, 1, SZ(1), NULL);
  CHECK_OK(CALL("aten::maximum.out", EV(u), EV(s), EV(o16), EV(o16)));
  CHECK(ktest_expect(o16, DV(255), 1, 0));
  CHECK_OK(CALL("aten::minimum.out", EV(u), EV(s), EV(o16), EV(o16)));
  CHECK(ktest_expect(o16, DV(-1), 1, 0));
  /* int64 extremes exact */
  pte_tensor *l = TI(PTE_DTYPE_LONG, 1, SZ(2), VI(INT64_MAX, INT64_MIN));
  pte_tensor *m = TI(PTE_DTYPE_LONG, 1, SZ(2), VI(INT64_MAX - 1, INT64_MIN + 1));
  pte_tensor *ol = T(PTE_DTYPE_LONG, 1, SZ(2), NULL);
  CHECK_OK(CALL("aten::maximum.out", EV(l), EV(m), EV(ol), EV(ol)));
  CHECK(ktest_expect_i64(ol, VI(INT64_MAX, INT64_MIN + 1), 2));
  /* bool: maximum is or, minimum is and */
  pte_tensor *p = T(PTE_DTYPE_BOOL, 1, SZ(4), DV(1, 1, 0, 0));
  pte_tensor *q = T(PTE_DTYPE_BOOL, 1, SZ(4), DV(1, 0, 1, 0));
  pte_tensor *ob = T(PTE_DTYPE_BOOL, 1, SZ(4), NULL);
  CHECK_OK(CALL("aten::maximum.out", EV(p), EV(q), EV(ob), EV(ob)));
  CHECK(ktest_expect(ob, DV(1, 1, 1, 0), 4, 0));
  CHECK_OK(CALL("aten::minimum.out", EV(p), EV(q), EV(ob), EV(ob)));
  CHECK(ktest_expect(ob, DV(1, 0, 0, 0), 4, 0));
  /* bf16 with half -> float */
  pte_tensor *bf = T(PTE_DTYPE_BFLOAT16, 1, SZ(1), DV(1.5));
  pte_tensor *h = T(PTE_DTYPE_HALF, 1, SZ(1), DV(1.25));
  pte_tensor *of = T(PTE_DTYPE_FLOAT, 1, SZ(1), NULL);
  CHECK_OK(CALL("aten::minimum.out", EV(bf), EV(h), EV(of), EV(of)));
  CHECK(ktest_expect(of, DV(1.25), 1, 0));
  /* channels-last mixed with contiguous */
  const uint8_t cl[] = {0, 2, 3, 1};
  pte_tensor *x = ktest_tensor(PTE_DTYPE_FLOAT, 4, SZ(1, 2, 1, 2), cl, DV(1, 5, 3, 7));
  pte_tensor *y = T(PTE_DTYPE_FLOAT, 4, SZ(1, 2, 1, 2), DV(4, 4, 4, 4));
  pte_tensor *ox = T(PTE_DTYPE_FLOAT, 4, SZ(1, 2, 1, 2), NULL);
  CHECK_OK(CALL("aten::maximum.out", EV(x), EV(y), EV(ox), EV(ox)));
  CHECK(ktest_expect(ox, DV(4, 5, 4, 7), 4, 0));
  /* errors */
  pte_tensor *oint = T(PTE_DTYPE_INT, 1, SZ(5), NULL);
  CHECK_STATUS(CALL("aten::maximum.out", EV(a), EV(b), EV(oint), EV(oint)),
               PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(ktest_last_msg(), "maximum: result dtype float32 cannot be cast to out int32");
  pte_tensor *bad = T(PTE_DTYPE_FLOAT, 1, SZ(3), DV(1, 2, 3));
  CHECK_STATUS(CALL("aten::minimum.out", EV(a), EV(bad), EV(o), EV(o)), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(ktest_last_msg(), "minimum: shapes cannot be broadcast");
}

TEST(rsub_values) {
  /* other - alpha * self */
  pte_tensor *a = T(PTE_DTYPE_FLOAT, 1, SZ(3), DV(1, 2, NAN));
  pte_tensor *o = T(PTE_DTYPE_FLOAT, 1, SZ(3), NULL);
  CHECK_OK(CALL("aten::rsub.Scalar_out", EV(a), I(10), I(2), EV(o), EV(o)));
  CHECK(ktest_expect(o, DV(8, 6, NAN), 3, 0));
  CHECK_OK(CALL("aten::rsub.Scalar_out", EV(a), D(0.5), D(0.25), EV(o), EV(o)));
  CHECK(ktest_expect(o, DV(0.25, 0, NAN), 3, 0));
  pte_tensor *i = T(PTE_DTYPE_INT, 1, SZ(2), DV(1, 2));
  pte_tensor *oi = T(PTE_DTYPE_INT, 1, SZ(2), NULL);
  CHECK_OK(CALL("aten::rsub.Scalar_out", EV(i), I(10), I(3), EV(oi), EV(oi)));
  CHECK(ktest_expect(oi, DV(7, 4), 2, 0));
  /* int tensor with a Double scalar -> float32 */
  pte_tensor *of = T(PTE_DTYPE_FLOAT, 1, SZ(2), NULL);
  CHECK_OK(CALL("aten::rsub.Scalar_out", EV(i), D(0.5), I(1), EV(of), EV(of)));
  CHECK(ktest_expect(of, DV(-0.5, -1.5), 2, 0));
  /* int32 wraps: INT32_MIN - 1 * 1 */
  pte_tensor *w = TI(PTE_DTYPE_INT, 1, SZ(1), VI(1));
  pte_tensor *ow = T(PTE_DTYPE_INT, 1, SZ(1), NULL);
  CHECK_OK(CALL("aten::rsub.Scalar_out", EV(w), I(INT32_MIN), I(1), EV(ow), EV(ow)));
  CHECK(ktest_expect_i64(ow, VI(INT32_MAX), 1));
  /* half: 1 - 3 * 0.1 computed in float32 and rounded once: 0.7 -> 0x399A */
  pte_tensor *h = T(PTE_DTYPE_HALF, 1, SZ(1), DV(3));
  pte_tensor *oh = T(PTE_DTYPE_HALF, 1, SZ(1), NULL);
  CHECK_OK(CALL("aten::rsub.Scalar_out", EV(h), D(1.0), D(0.1), EV(oh), EV(oh)));
  CHECK_EQ_INT(ktest_get_u16(oh, 0), 0x399A);
  /* empty */
  pte_tensor *e = T(PTE_DTYPE_FLOAT, 2, SZ(0, 2), NULL);
  pte_tensor *oe = T(PTE_DTYPE_FLOAT, 2, SZ(0, 2), NULL);
  CHECK_OK(CALL("aten::rsub.Scalar_out", EV(e), I(1), I(1), EV(oe), EV(oe)));
  /* errors: bool, float alpha with integral, float result into int out */
  pte_tensor *bb = T(PTE_DTYPE_BOOL, 1, SZ(1), DV(1));
  pte_tensor *ob = T(PTE_DTYPE_BOOL, 1, SZ(1), NULL);
  CHECK_STATUS(CALL("aten::rsub.Scalar_out", EV(bb), B(true), I(1), EV(ob), EV(ob)),
               PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(ktest_last_msg(), "rsub: subtraction with bool");
  CHECK_STATUS(CALL("aten::rsub.Scalar_out", EV(i), I(1), D(1.5), EV(oi), EV(oi)),
               PTE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(CALL("aten::rsub.Scalar_out", EV(i), D(1.5), I(1), EV(oi), EV(oi)),
               PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(ktest_last_msg(), "rsub: result dtype");
}

/* Every operator of this slice of issue 13 is registered by the portable library. */
TEST(slice_ops_registered) {
  static const char *const names[] = {
      "aten::acos.out", "aten::acosh.out", "aten::asin.out", "aten::asinh.out", "aten::atan.out",
      "aten::atanh.out", "aten::cos.out", "aten::cosh.out", "aten::sin.out", "aten::sinh.out",
      "aten::tan.out", "aten::erf.out", "aten::expm1.out", "aten::log1p.out", "aten::log2.out",
      "aten::log10.out", "aten::reciprocal.out", "aten::logit.out", "aten::ceil.out",
      "aten::floor.out", "aten::round.out", "aten::trunc.out", "aten::sign.out", "aten::isinf.out",
      "aten::isnan.out", "aten::bitwise_not.out", "aten::bitwise_and.Scalar_out",
      "aten::bitwise_and.Tensor_out", "aten::bitwise_or.Scalar_out", "aten::bitwise_or.Tensor_out",
      "aten::bitwise_xor.Scalar_out", "aten::bitwise_xor.Tensor_out", "aten::logical_and.out",
      "aten::logical_or.out", "aten::logical_xor.out", "aten::atan2.out", "aten::fmod.Scalar_out",
      "aten::fmod.Tensor_out", "aten::remainder.Scalar_out", "aten::remainder.Tensor_out",
      "aten::floor_divide.out", "aten::maximum.out", "aten::minimum.out", "aten::rsub.Scalar_out",
      "aten::elu.out", "aten::glu.out", "aten::_conj_physical.out",
  };
  pte_kernel_registry_reset();
  CHECK_OK(pte_register_portable_kernels());
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    CHECK_MSG(pte_kernel_lookup(names[i], NULL, NULL, 0) != NULL, "missing %s", names[i]);
  pte_kernel_registry_reset();
}

int main(void) {
  RUN(bitwise_tensor_values);
  RUN(bitwise_scalar_values);
  RUN(bitwise_not_values);
  RUN(bitwise_errors);
  RUN(logical_values);
  RUN(atan2_values);
  RUN(fmod_values);
  RUN(remainder_values);
  RUN(floor_divide_values);
  RUN(maximum_minimum_values);
  RUN(rsub_values);
  RUN(slice_ops_registered);
  ktest_free_all();
  return test_summary();
}
