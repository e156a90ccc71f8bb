/* The primitive operators (upstream's prim_ops registry): scalar arithmetic on symbolic ints,
 * tensor size queries and the two tensor helpers et_copy_index / et_view.
 *
 * They live in the runtime, in a constant table that pte_kernel_lookup() consults after every
 * registered kernel, so a program never needs a kernel library for aten::sym_size.int and
 * nothing has to be registered (no global mutable state, no allocation). A registered kernel of
 * the same name takes precedence.
 *
 * Calling convention (as upstream): the arguments are EValues (Int / Double / Bool / Tensor) and
 * the result is written into the LAST EValue of the call (an Int, Double or Bool slot; the value
 * an IntList item points to, so symbolic sizes flow into later view/reshape calls).
 *
 * Semantics:
 *   add/sub/mul.Scalar      Int op Int -> Int (two's complement wrap); any Double -> Double
 *   truediv.Scalar          always Double (x / 0 gives +-inf or nan, as upstream)
 *   floordiv.Scalar / .int  Int // Int -> Int with Python floor semantics (-7 // 2 = -4);
 *                           a zero divisor is an error; with a Double: Python float floordiv
 *                           (b == 0 gives +-inf as upstream)
 *   mod.Scalar / .int       Int % Int -> Int with Python semantics (sign of the divisor:
 *                           -7 % 2 = 1, 7 % -2 = -1); zero divisor is an error; Doubles follow
 *                           Python's float modulo
 *   eq/gt/lt/ge/le.Scalar   -> Bool over Int/Double (mixed compare as doubles) or Bool/Bool
 *   neg.Scalar              Int or Double
 *   ceil/round/trunc.Scalar Double (or Int) -> Int; round is half-to-even like Python round()
 *   sym_float.Scalar        -> Double;  sym_int.Scalar -> Int (truncates toward zero)
 *   sym_max/sym_min.Scalar  Int/Int -> Int (Doubles -> Double)
 *   sym_not.Scalar          Bool -> Bool;  sym_ite.Scalar(Bool c, a, b) -> a if c else b
 *   aten::sym_size.int      (Tensor self, int dim) -> Int (negative dim counts from the end)
 *   aten::sym_numel         (Tensor self) -> Int
 *   aten::_local_scalar_dense (Tensor self) -> the first element as Int/Double/Bool
 *   et_copy_index.tensor    (Tensor copy_to, Tensor to_copy, int index): copy_to[index] =
 *                           to_copy; copy_to's first dimension becomes index + 1 (as upstream:
 *                           a loop that stacks rows restarts at 1 row on the next run)
 *   et_view.default         (Tensor self, int[] size) -> out (args[2]) aliases self's data
 */
#include <math.h>
#include <string.h>

#include "pte/kernel.h"

#define PRIM_FAIL(ctx, ...) pte_kernel_fail((ctx), PTE_ERR_INVALID_ARGUMENT, __VA_ARGS__)

/* ------------------------------------------------------------------------------ helpers */

static bool prim_nargs(pte_kernel_context *ctx, size_t nargs, size_t want) {
  if (nargs == want) return true;
  pte_kernel_fail(ctx, PTE_ERR_INVALID_PROGRAM, "expected %zu arguments, got %zu", want, nargs);
  return false;
}

static int prim_tag(pte_evalue **args, size_t i) { return args[i] ? (int)args[i]->tag : PTE_TAG_NONE; }

static bool prim_is_num(pte_evalue **args, size_t i) {
  int t = prim_tag(args, i);
  return t == PTE_TAG_INT || t == PTE_TAG_DOUBLE;
}

static double prim_dbl(pte_evalue **args, size_t i) {
  return args[i]->tag == PTE_TAG_INT ? (double)args[i]->u.i : args[i]->u.d;
}

/* The result slot: the last EValue, which must be a scalar slot (or None). */
static pte_evalue *prim_out(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  pte_evalue *o = args[nargs - 1];
  if (!o) {
    PRIM_FAIL(ctx, "out (argument %zu) is missing", nargs - 1);
    return NULL;
  }
  switch (o->tag) {
    case PTE_TAG_NONE: case PTE_TAG_INT: case PTE_TAG_DOUBLE: case PTE_TAG_BOOL: return o;
    default:
      PRIM_FAIL(ctx, "out (argument %zu) is a %s, expected a scalar slot", nargs - 1, pte_tag_name((int)o->tag));
      return NULL;
  }
}

static void set_int(pte_evalue *o, int64_t v) {
  o->tag = PTE_TAG_INT;
  o->u.i = v;
}
static void set_dbl(pte_evalue *o, double v) {
  o->tag = PTE_TAG_DOUBLE;
  o->u.d = v;
}
static void set_bool(pte_evalue *o, bool v) {
  o->tag = PTE_TAG_BOOL;
  o->u.b = v;
}

static void bad_types2(pte_kernel_context *ctx, pte_evalue **args, const char *what) {
  pte_kernel_fail(ctx, PTE_ERR_INVALID_TYPE, "a is %s and b is %s: expected %s", pte_tag_name(prim_tag(args, 0)),
                  pte_tag_name(prim_tag(args, 1)), what);
}

static int64_t wrap_i64(uint64_t v) { return v <= (uint64_t)INT64_MAX ? (int64_t)v : -(int64_t)(~v) - 1; }

/* Double -> Int for ceil/round/trunc/sym_int: finite and in range. */
static bool dbl_to_i64(pte_kernel_context *ctx, double v, int64_t *out) {
  if (!(v >= -9.2233720368547758e18 && v < 9.2233720368547758e18)) {
    PRIM_FAIL(ctx, "a is not finite or out of the int64 range");
    return false;
  }
  *out = (int64_t)v;
  return true;
}

/* ------------------------------------------------------------------------------ arithmetic */

enum { OP_ADD, OP_SUB, OP_MUL };

static void prim_arith(pte_kernel_context *ctx, pte_evalue **args, size_t nargs, int op) {
  if (!prim_nargs(ctx, nargs, 3)) return;
  pte_evalue *o = prim_out(ctx, args, nargs);
  if (!o) return;
  if (prim_tag(args, 0) == PTE_TAG_INT && prim_tag(args, 1) == PTE_TAG_INT) {
    uint64_t a = (uint64_t)args[0]->u.i, b = (uint64_t)args[1]->u.i;
    set_int(o, wrap_i64(op == OP_ADD ? a + b : op == OP_SUB ? a - b : a * b));
    return;
  }
  if (!prim_is_num(args, 0) || !prim_is_num(args, 1)) {
    bad_types2(ctx, args, "Int or Double");
    return;
  }
  double a = prim_dbl(args, 0), b = prim_dbl(args, 1);
  set_dbl(o, op == OP_ADD ? a + b : op == OP_SUB ? a - b : a * b);
}

static void prim_add(pte_kernel_context *c, pte_evalue **a, size_t n) { prim_arith(c, a, n, OP_ADD); }
static void prim_sub(pte_kernel_context *c, pte_evalue **a, size_t n) { prim_arith(c, a, n, OP_SUB); }
static void prim_mul(pte_kernel_context *c, pte_evalue **a, size_t n) { prim_arith(c, a, n, OP_MUL); }

static void prim_truediv(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  if (!prim_nargs(ctx, nargs, 3)) return;
  pte_evalue *o = prim_out(ctx, args, nargs);
  if (!o) return;
  if (!prim_is_num(args, 0) || !prim_is_num(args, 1)) {
    bad_types2(ctx, args, "Int or Double");
    return;
  }
  set_dbl(o, prim_dbl(args, 0) / prim_dbl(args, 1));
}

/* Python integer floor division / modulo; false (failure recorded) for b == 0 or overflow. */
static bool int_divmod(pte_kernel_context *ctx, int64_t a, int64_t b, int64_t *q, int64_t *r) {
  if (b == 0) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "integer division by zero (b is 0)");
    return false;
  }
  if (a == INT64_MIN && b == -1) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "integer overflow (a is INT64_MIN, b is -1)");
    return false;
  }
  int64_t qq = a / b, rr = a % b;
  if (rr != 0 && ((rr < 0) != (b < 0))) {
    qq -= 1;
    rr += b;
  }
  *q = qq;
  *r = rr;
  return true;
}

/* Python float floor division (b == 0: +-inf, as upstream). */
static double dbl_floordiv(double a, double b) {
  if (b == 0.0) return signbit(a) ? -INFINITY : INFINITY;
  double mod = fmod(a, b);
  double div = (a - mod) / b;
  if (mod != 0.0 && (signbit(b) != signbit(mod))) div -= 1.0;
  if (div == 0.0) return copysign(0.0, a / b);
  double fl = floor(div);
  if (div - fl > 0.5) fl += 1.0;
  return fl;
}

/* Python float modulo: result has the divisor's sign (b == 0: nan). */
static double dbl_mod(double a, double b) {
  if (b == 0.0) return NAN;
  double m = fmod(a, b);
  if (m != 0.0) {
    if (signbit(b) != signbit(m)) m += b;
  } else {
    m = copysign(0.0, b);
  }
  return m;
}

static void prim_floordiv_impl(pte_kernel_context *ctx, pte_evalue **args, size_t nargs, bool ints_only) {
  if (!prim_nargs(ctx, nargs, 3)) return;
  pte_evalue *o = prim_out(ctx, args, nargs);
  if (!o) return;
  if (prim_tag(args, 0) == PTE_TAG_INT && prim_tag(args, 1) == PTE_TAG_INT) {
    int64_t q, r;
    if (int_divmod(ctx, args[0]->u.i, args[1]->u.i, &q, &r)) set_int(o, q);
    return;
  }
  if (ints_only || !prim_is_num(args, 0) || !prim_is_num(args, 1)) {
    bad_types2(ctx, args, ints_only ? "Int" : "Int or Double");
    return;
  }
  set_dbl(o, dbl_floordiv(prim_dbl(args, 0), prim_dbl(args, 1)));
}

static void prim_floordiv(pte_kernel_context *c, pte_evalue **a, size_t n) { prim_floordiv_impl(c, a, n, false); }
static void prim_floordiv_int(pte_kernel_context *c, pte_evalue **a, size_t n) { prim_floordiv_impl(c, a, n, true); }

static void prim_mod_impl(pte_kernel_context *ctx, pte_evalue **args, size_t nargs, bool ints_only) {
  if (!prim_nargs(ctx, nargs, 3)) return;
  pte_evalue *o = prim_out(ctx, args, nargs);
  if (!o) return;
  if (prim_tag(args, 0) == PTE_TAG_INT && prim_tag(args, 1) == PTE_TAG_INT) {
    int64_t q, r;
    if (args[1]->u.i == -1) { /* avoids the INT64_MIN / -1 trap; x % -1 == 0 */
      set_int(o, 0);
      return;
    }
    if (int_divmod(ctx, args[0]->u.i, args[1]->u.i, &q, &r)) set_int(o, r);
    return;
  }
  if (ints_only || !prim_is_num(args, 0) || !prim_is_num(args, 1)) {
    bad_types2(ctx, args, ints_only ? "Int" : "Int or Double");
    return;
  }
  set_dbl(o, dbl_mod(prim_dbl(args, 0), prim_dbl(args, 1)));
}

static void prim_mod(pte_kernel_context *c, pte_evalue **a, size_t n) { prim_mod_impl(c, a, n, false); }
static void prim_mod_int(pte_kernel_context *c, pte_evalue **a, size_t n) { prim_mod_impl(c, a, n, true); }

/* ------------------------------------------------------------------------------ comparisons */

enum { CMP_EQ, CMP_GT, CMP_LT, CMP_GE, CMP_LE };

static bool cmp_result(int op, int c) { /* c: -1, 0, 1 */
  switch (op) {
    case CMP_EQ: return c == 0;
    case CMP_GT: return c > 0;
    case CMP_LT: return c < 0;
    case CMP_GE: return c >= 0;
    default: return c <= 0;
  }
}

static void prim_cmp(pte_kernel_context *ctx, pte_evalue **args, size_t nargs, int op) {
  if (!prim_nargs(ctx, nargs, 3)) return;
  pte_evalue *o = prim_out(ctx, args, nargs);
  if (!o) return;
  int ta = prim_tag(args, 0), tb = prim_tag(args, 1);
  if (ta == PTE_TAG_INT && tb == PTE_TAG_INT) {
    int64_t a = args[0]->u.i, b = args[1]->u.i;
    set_bool(o, cmp_result(op, a < b ? -1 : a > b ? 1 : 0));
  } else if (ta == PTE_TAG_BOOL && tb == PTE_TAG_BOOL) {
    int a = args[0]->u.b, b = args[1]->u.b;
    set_bool(o, cmp_result(op, a < b ? -1 : a > b ? 1 : 0));
  } else if (prim_is_num(args, 0) && prim_is_num(args, 1)) {
    double a = prim_dbl(args, 0), b = prim_dbl(args, 1);
    if (isnan(a) || isnan(b)) set_bool(o, false); /* every comparison with nan is false */
    else set_bool(o, cmp_result(op, a < b ? -1 : a > b ? 1 : 0));
  } else {
    bad_types2(ctx, args, "two numbers (Int/Double) or two Bools");
  }
}

static void prim_eq(pte_kernel_context *c, pte_evalue **a, size_t n) { prim_cmp(c, a, n, CMP_EQ); }
static void prim_gt(pte_kernel_context *c, pte_evalue **a, size_t n) { prim_cmp(c, a, n, CMP_GT); }
static void prim_lt(pte_kernel_context *c, pte_evalue **a, size_t n) { prim_cmp(c, a, n, CMP_LT); }
static void prim_ge(pte_kernel_context *c, pte_evalue **a, size_t n) { prim_cmp(c, a, n, CMP_GE); }
static void prim_le(pte_kernel_context *c, pte_evalue **a, size_t n) { prim_cmp(c, a, n, CMP_LE); }

/* ------------------------------------------------------------------------------ unary */

static void bad_type1(pte_kernel_context *ctx, pte_evalue **args, const char *what) {
  pte_kernel_fail(ctx, PTE_ERR_INVALID_TYPE, "a is %s, expected %s", pte_tag_name(prim_tag(args, 0)), what);
}

static void prim_neg(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  if (!prim_nargs(ctx, nargs, 2)) return;
  pte_evalue *o = prim_out(ctx, args, nargs);
  if (!o) return;
  if (prim_tag(args, 0) == PTE_TAG_INT) set_int(o, wrap_i64(0u - (uint64_t)args[0]->u.i));
  else if (prim_tag(args, 0) == PTE_TAG_DOUBLE) set_dbl(o, -args[0]->u.d);
  else bad_type1(ctx, args, "Int or Double");
}

/* Python round(): nearest, ties to even. */
static double round_half_even(double v) {
  double r = round(v); /* ties away from zero */
  if (fabs(r - v) == 0.5) r = 2.0 * round(v / 2.0);
  return r;
}

enum { RND_CEIL, RND_ROUND, RND_TRUNC, RND_INT };

static void prim_to_int(pte_kernel_context *ctx, pte_evalue **args, size_t nargs, int mode) {
  if (!prim_nargs(ctx, nargs, 2)) return;
  pte_evalue *o = prim_out(ctx, args, nargs);
  if (!o) return;
  int t = prim_tag(args, 0);
  if (t == PTE_TAG_INT) {
    set_int(o, args[0]->u.i);
    return;
  }
  if (t == PTE_TAG_BOOL && mode == RND_INT) {
    set_int(o, args[0]->u.b ? 1 : 0);
    return;
  }
  if (t != PTE_TAG_DOUBLE) {
    bad_type1(ctx, args, "Double or Int");
    return;
  }
  double v = args[0]->u.d;
  double r = mode == RND_CEIL ? ceil(v) : mode == RND_ROUND ? round_half_even(v) : trunc(v);
  int64_t iv;
  if (dbl_to_i64(ctx, r, &iv)) set_int(o, iv);
}

static void prim_ceil(pte_kernel_context *c, pte_evalue **a, size_t n) { prim_to_int(c, a, n, RND_CEIL); }
static void prim_round(pte_kernel_context *c, pte_evalue **a, size_t n) { prim_to_int(c, a, n, RND_ROUND); }
static void prim_trunc(pte_kernel_context *c, pte_evalue **a, size_t n) { prim_to_int(c, a, n, RND_TRUNC); }
static void prim_sym_int(pte_kernel_context *c, pte_evalue **a, size_t n) { prim_to_int(c, a, n, RND_INT); }

static void prim_sym_float(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  if (!prim_nargs(ctx, nargs, 2)) return;
  pte_evalue *o = prim_out(ctx, args, nargs);
  if (!o) return;
  int t = prim_tag(args, 0);
  if (t == PTE_TAG_INT) set_dbl(o, (double)args[0]->u.i);
  else if (t == PTE_TAG_DOUBLE) set_dbl(o, args[0]->u.d);
  else if (t == PTE_TAG_BOOL) set_dbl(o, args[0]->u.b ? 1.0 : 0.0);
  else bad_type1(ctx, args, "Int, Double or Bool");
}

static void prim_minmax(pte_kernel_context *ctx, pte_evalue **args, size_t nargs, bool is_max) {
  if (!prim_nargs(ctx, nargs, 3)) return;
  pte_evalue *o = prim_out(ctx, args, nargs);
  if (!o) return;
  if (prim_tag(args, 0) == PTE_TAG_INT && prim_tag(args, 1) == PTE_TAG_INT) {
    int64_t a = args[0]->u.i, b = args[1]->u.i;
    set_int(o, is_max ? (a > b ? a : b) : (a < b ? a : b));
  } else if (prim_is_num(args, 0) && prim_is_num(args, 1)) {
    double a = prim_dbl(args, 0), b = prim_dbl(args, 1);
    set_dbl(o, is_max ? fmax(a, b) : fmin(a, b));
  } else {
    bad_types2(ctx, args, "Int or Double");
  }
}

static void prim_sym_max(pte_kernel_context *c, pte_evalue **a, size_t n) { prim_minmax(c, a, n, true); }
static void prim_sym_min(pte_kernel_context *c, pte_evalue **a, size_t n) { prim_minmax(c, a, n, false); }

static void prim_sym_not(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  if (!prim_nargs(ctx, nargs, 2)) return;
  pte_evalue *o = prim_out(ctx, args, nargs);
  if (!o) return;
  if (prim_tag(args, 0) != PTE_TAG_BOOL) {
    bad_type1(ctx, args, "Bool");
    return;
  }
  set_bool(o, !args[0]->u.b);
}

static void prim_sym_ite(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  if (!prim_nargs(ctx, nargs, 4)) return;
  pte_evalue *o = prim_out(ctx, args, nargs);
  if (!o) return;
  if (prim_tag(args, 0) != PTE_TAG_BOOL) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_TYPE, "condition (argument 0) is %s, expected Bool", pte_tag_name(prim_tag(args, 0)));
    return;
  }
  for (size_t i = 1; i <= 2; i++) {
    int t = prim_tag(args, i);
    if (t != PTE_TAG_INT && t != PTE_TAG_DOUBLE && t != PTE_TAG_BOOL) {
      pte_kernel_fail(ctx, PTE_ERR_INVALID_TYPE, "%s (argument %zu) is %s, expected Int, Double or Bool",
                      i == 1 ? "then" : "else", i, pte_tag_name(t));
      return;
    }
  }
  const pte_evalue *pick = args[0]->u.b ? args[1] : args[2];
  if (pick != o) *o = *pick;
}

/* ------------------------------------------------------------------------------ tensors */

static pte_tensor *prim_tensor(pte_kernel_context *ctx, pte_evalue **args, size_t i, const char *what) {
  if (prim_tag(args, i) != PTE_TAG_TENSOR || !args[i]->u.tensor) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_TYPE, "%s (argument %zu) is %s, expected a Tensor", what, i,
                    pte_tag_name(prim_tag(args, i)));
    return NULL;
  }
  return args[i]->u.tensor;
}

static void prim_sym_size(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  if (!prim_nargs(ctx, nargs, 3)) return;
  pte_tensor *t = prim_tensor(ctx, args, 0, "self");
  pte_evalue *o = prim_out(ctx, args, nargs);
  if (!t || !o) return;
  if (prim_tag(args, 1) != PTE_TAG_INT) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_TYPE, "dim (argument 1) is %s, expected Int", pte_tag_name(prim_tag(args, 1)));
    return;
  }
  int64_t d = args[1]->u.i, r = t->dim;
  if (d < -r || d >= r || r == 0) {
    PRIM_FAIL(ctx, "dim %lld out of range for a rank-%d tensor", (long long)d, (int)r);
    return;
  }
  if (d < 0) d += r;
  set_int(o, t->sizes[d]);
}

static void prim_sym_numel(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  if (!prim_nargs(ctx, nargs, 2)) return;
  pte_tensor *t = prim_tensor(ctx, args, 0, "self");
  pte_evalue *o = prim_out(ctx, args, nargs);
  if (!t || !o) return;
  set_int(o, (int64_t)t->numel);
}

static float half_bits_to_float(uint16_t h) {
  int e = (h >> 10) & 0x1f, m = h & 0x3ff;
  float v;
  if (e == 0) v = ldexpf((float)m, -24);
  else if (e == 31) v = m ? NAN : INFINITY;
  else v = ldexpf((float)(m | 0x400), e - 25);
  return (h & 0x8000) ? -v : v;
}

static void prim_local_scalar_dense(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  if (!prim_nargs(ctx, nargs, 2)) return;
  pte_tensor *t = prim_tensor(ctx, args, 0, "self");
  pte_evalue *o = prim_out(ctx, args, nargs);
  if (!t || !o) return;
  if (t->numel < 1) {
    PRIM_FAIL(ctx, "self has no elements (a Scalar needs one)");
    return;
  }
  if (!t->data) {
    PRIM_FAIL(ctx, "self has no data");
    return;
  }
  const void *p = t->data;
  switch (t->dtype) {
    case PTE_DTYPE_BYTE: set_int(o, *(const uint8_t *)p); break;
    case PTE_DTYPE_CHAR: set_int(o, *(const int8_t *)p); break;
    case PTE_DTYPE_SHORT: set_int(o, *(const int16_t *)p); break;
    case PTE_DTYPE_INT: set_int(o, *(const int32_t *)p); break;
    case PTE_DTYPE_LONG: set_int(o, *(const int64_t *)p); break;
    case PTE_DTYPE_FLOAT: set_dbl(o, *(const float *)p); break;
    case PTE_DTYPE_DOUBLE: set_dbl(o, *(const double *)p); break;
    case PTE_DTYPE_BOOL: set_bool(o, *(const uint8_t *)p != 0); break;
    case PTE_DTYPE_HALF: set_dbl(o, half_bits_to_float(*(const uint16_t *)p)); break;
    case PTE_DTYPE_BFLOAT16: {
      uint32_t bits = (uint32_t)*(const uint16_t *)p << 16;
      float f;
      memcpy(&f, &bits, sizeof f);
      set_dbl(o, f);
      break;
    }
    default:
      pte_kernel_fail(ctx, PTE_ERR_INVALID_TYPE, "self has unsupported dtype %s", pte_dtype_name(t->dtype));
      break;
  }
}

/* et_copy_index(Tensor copy_to, Tensor to_copy, int index): writes to_copy into slot `index` of
 * copy_to's first dimension and sets that dimension to index + 1. */
static void prim_et_copy_index(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  if (nargs != 4 && !prim_nargs(ctx, nargs, 3)) return; /* a 4th value is a returned alias of copy_to */
  pte_tensor *dst = prim_tensor(ctx, args, 0, "copy_to");
  pte_tensor *src = prim_tensor(ctx, args, 1, "to_copy");
  if (!dst || !src) return;
  if (prim_tag(args, 2) != PTE_TAG_INT) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_TYPE, "index (argument 2) is %s, expected Int", pte_tag_name(prim_tag(args, 2)));
    return;
  }
  int64_t index = args[2]->u.i;
  if (dst->dtype != src->dtype) {
    PRIM_FAIL(ctx, "copy_to is %s but to_copy is %s", pte_dtype_name(dst->dtype), pte_dtype_name(src->dtype));
    return;
  }
  if (dst->dim != src->dim + 1) {
    PRIM_FAIL(ctx, "copy_to has rank %d, expected to_copy's rank + 1 (%d)", (int)dst->dim, (int)src->dim + 1);
    return;
  }
  for (int32_t d = 0; d < src->dim; d++)
    if (dst->sizes[d + 1] != src->sizes[d]) {
      PRIM_FAIL(ctx, "copy_to dim %d is %d but to_copy dim %d is %d", (int)d + 1, (int)dst->sizes[d + 1], (int)d,
                (int)src->sizes[d]);
      return;
    }
  if (index < 0 || index >= INT32_MAX) {
    PRIM_FAIL(ctx, "index %lld out of range", (long long)index);
    return;
  }
  if (!pte_dim_order_is_contiguous(dst->dim_order, dst->dim) || !pte_dim_order_is_contiguous(src->dim_order, src->dim)) {
    pte_kernel_fail(ctx, PTE_ERR_NOT_SUPPORTED, "copy_to and to_copy must be contiguous");
    return;
  }
  size_t es = pte_dtype_size(src->dtype), slot = src->numel * es;
  if (dst->sizes[0] != index + 1) { /* as upstream: copy_to ends with exactly index + 1 rows */
    int32_t sizes[PTE_MAX_RANK];
    memcpy(sizes, dst->sizes, sizeof(int32_t) * (size_t)dst->dim);
    sizes[0] = (int32_t)(index + 1);
    pte_status s = pte_tensor_resize(dst, sizes, dst->dim);
    if (s != PTE_OK) {
      PRIM_FAIL(ctx, "copy_to cannot grow to %lld rows (%s)", (long long)(index + 1), pte_status_name(s));
      return;
    }
  }
  if (nargs == 4 && args[3] && args[3] != args[0] && (args[3]->tag == PTE_TAG_TENSOR || args[3]->tag == PTE_TAG_NONE))
    *args[3] = *args[0];
  if (slot == 0) return;
  if (!dst->data || !src->data) {
    PRIM_FAIL(ctx, "%s has no data", dst->data ? "to_copy" : "copy_to");
    return;
  }
  if ((uint64_t)index > (uint64_t)(dst->capacity_bytes / slot) || ((size_t)index + 1) * slot > dst->capacity_bytes) {
    PRIM_FAIL(ctx, "index %lld exceeds copy_to's capacity", (long long)index);
    return;
  }
  memmove((uint8_t *)dst->data + (size_t)index * slot, src->data, slot);
}

/* et_view(Tensor self, int[] size) -> Tensor: out (args[2]) aliases self's data with new sizes
 * (one -1 entry is inferred). */
static void prim_et_view(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  if (nargs != 3 && nargs != 4) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_PROGRAM, "expected 3 arguments, got %zu", nargs);
    return;
  }
  pte_tensor *self = prim_tensor(ctx, args, 0, "self");
  pte_tensor *out = prim_tensor(ctx, args, 2, "out");
  if (!self || !out) return;
  size_t n = 0;
  const int64_t *size = pte_evalue_int_list(args[1], &n);
  if (!size) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_TYPE, "size (argument 1) is %s, expected an IntList of Ints",
                    pte_tag_name(prim_tag(args, 1)));
    return;
  }
  if (self->dtype != out->dtype) {
    PRIM_FAIL(ctx, "out is %s but self is %s", pte_dtype_name(out->dtype), pte_dtype_name(self->dtype));
    return;
  }
  if ((int32_t)n != out->dim || n > PTE_MAX_RANK) {
    PRIM_FAIL(ctx, "size has %zu entries but out has rank %d", n, (int)out->dim);
    return;
  }
  int32_t sizes[PTE_MAX_RANK];
  size_t known = 1;
  int infer = -1;
  for (size_t i = 0; i < n; i++) {
    if (size[i] == -1 && infer < 0) {
      infer = (int)i;
      sizes[i] = 0;
      continue;
    }
    if (size[i] < 0 || size[i] > INT32_MAX) {
      PRIM_FAIL(ctx, "size[%zu] = %lld is invalid", i, (long long)size[i]);
      return;
    }
    sizes[i] = (int32_t)size[i];
    if (sizes[i] && known > SIZE_MAX / (size_t)sizes[i]) {
      PRIM_FAIL(ctx, "size overflows");
      return;
    }
    known *= (size_t)sizes[i];
  }
  if (infer >= 0) {
    if (known == 0 || self->numel % known != 0 || self->numel / known > INT32_MAX) {
      PRIM_FAIL(ctx, "size is invalid for self with %zu elements", self->numel);
      return;
    }
    sizes[infer] = (int32_t)(self->numel / known);
    known = self->numel;
  }
  if (known != self->numel) {
    PRIM_FAIL(ctx, "size has %zu elements but self has %zu", known, self->numel);
    return;
  }
  if (self->numel && !self->data) {
    PRIM_FAIL(ctx, "self has no data");
    return;
  }
  out->data = self->data;
  size_t nbytes = self->numel * pte_dtype_size(self->dtype);
  out->capacity_bytes = self->capacity_bytes > nbytes ? self->capacity_bytes : nbytes;
  out->flags = (uint8_t)((out->flags & ~PTE_TENSOR_CONST) | (self->flags & PTE_TENSOR_CONST));
  pte_status s = pte_tensor_resize(out, sizes, (int32_t)n);
  if (s != PTE_OK) {
    PRIM_FAIL(ctx, "cannot resize out (%s)", pte_status_name(s));
    return;
  }
  if (nargs == 4 && args[3] && args[3] != args[2] && args[3]->tag == PTE_TAG_TENSOR) *args[3] = *args[2];
}

/* ------------------------------------------------------------------------------ the table */

static const pte_kernel k_prim_kernels[] = {
    {"aten::sym_size.int", NULL, prim_sym_size},
    {"aten::sym_numel", NULL, prim_sym_numel},
    {"aten::_local_scalar_dense", NULL, prim_local_scalar_dense},
    {"executorch_prim::add.Scalar", NULL, prim_add},
    {"executorch_prim::sub.Scalar", NULL, prim_sub},
    {"executorch_prim::mul.Scalar", NULL, prim_mul},
    {"executorch_prim::truediv.Scalar", NULL, prim_truediv},
    {"executorch_prim::floordiv.Scalar", NULL, prim_floordiv},
    {"executorch_prim::floordiv.int", NULL, prim_floordiv_int},
    {"executorch_prim::mod.Scalar", NULL, prim_mod},
    {"executorch_prim::mod.int", NULL, prim_mod_int},
    {"executorch_prim::eq.Scalar", NULL, prim_eq},
    {"executorch_prim::gt.Scalar", NULL, prim_gt},
    {"executorch_prim::lt.Scalar", NULL, prim_lt},
    {"executorch_prim::ge.Scalar", NULL, prim_ge},
    {"executorch_prim::le.Scalar", NULL, prim_le},
    {"executorch_prim::neg.Scalar", NULL, prim_neg},
    {"executorch_prim::ceil.Scalar", NULL, prim_ceil},
    {"executorch_prim::round.Scalar", NULL, prim_round},
    {"executorch_prim::trunc.Scalar", NULL, prim_trunc},
    {"executorch_prim::sym_float.Scalar", NULL, prim_sym_float},
    {"executorch_prim::sym_int.Scalar", NULL, prim_sym_int},
    {"executorch_prim::sym_ite.Scalar", NULL, prim_sym_ite},
    {"executorch_prim::sym_max.Scalar", NULL, prim_sym_max},
    {"executorch_prim::sym_min.Scalar", NULL, prim_sym_min},
    {"executorch_prim::sym_not.Scalar", NULL, prim_sym_not},
    {"executorch_prim::et_copy_index.tensor", NULL, prim_et_copy_index},
    {"executorch_prim::et_view.default", NULL, prim_et_view},
};

size_t pte_prim_kernel_count(void) { return sizeof k_prim_kernels / sizeof k_prim_kernels[0]; }

const pte_kernel *pte_prim_kernel(size_t i) { return i < pte_prim_kernel_count() ? &k_prim_kernels[i] : NULL; }

pte_op_fn pte_prim_lookup(const char *name) {
  if (!name) return NULL;
  for (size_t i = 0; i < pte_prim_kernel_count(); i++)
    if (strcmp(k_prim_kernels[i].name, name) == 0) return k_prim_kernels[i].fn;
  return NULL;
}
