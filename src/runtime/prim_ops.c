/* The primitive operators (upstream's prim_ops registry): scalar arithmetic on symbolic ints,
 * tensor size queries and the two tensor helpers et_copy_index / et_view.
 *
 * They live in the runtime, in a constant table that pte_kernel_lookup() consults after every
 * registered kernel, so a program never needs a kernel library for aten::sym_size.int and
 * nothing has to be registered (no global mutable state, no allocation). A registered kernel of
 * the same name takes precedence. A core built with PTE_PRIM_OPS_BUILTIN=0 (the Cortex-M build)
 * skips that fallback, so this file is linked only by images that call pte_register_prim_ops().
 *
 * Calling convention (as upstream): the arguments are EValues (Int / Double / Bool / Tensor) and
 * the result is written into the LAST EValue of the call (an Int, Double or Bool slot; the value
 * an IntList item points to, so symbolic sizes flow into later view/reshape calls).
 *
 * Semantics:
 *   add/sub/mul.Scalar      Int op Int -> Int (two's complement wrap); any Double -> Double
 *   truediv.Scalar          always Double (x / 0 gives +-inf or nan, as upstream)
 *   floordiv.Scalar / .int  Int // Int -> Int with Python floor semantics (-7 // 2 = -4);
 *                           a zero divisor is an error; with a Double: (a - fmod(a, b)) / b
 *                           adjusted to the floor, as upstream (b == 0 gives +-inf)
 *   mod.Scalar / .int       Int % Int -> Int with Python semantics (sign of the divisor:
 *                           -7 % 2 = 1, 7 % -2 = -1); zero divisor is an error; Ints only (as
 *                           upstream)
 *   eq/gt/lt/ge/le.Scalar   -> Bool over Int/Double (mixed compare as doubles) or Bool/Bool
 *   neg.Scalar              Int or Double
 *   ceil/round/trunc.Scalar Double (or Int) -> Int; round is half-to-even like Python round()
 *   sym_float.Scalar        -> Double;  sym_int.Scalar -> Int (truncates toward zero)
 *   sym_max/sym_min.Scalar  Int/Int -> Int (Doubles -> Double)
 *   sym_not.Scalar          Bool -> Bool;  sym_ite.Scalar(Bool c, a, b) -> a if c else b
 *   aten::sym_size.int      (Tensor self, int dim) -> Int (negative dim counts from the end)
 *   aten::sym_numel         (Tensor self) -> Int
 *   aten::_local_scalar_dense (Tensor self) -> the first element as Int/Double/Bool (integer,
 *                           float32/float64 and bool tensors, as upstream)
 *   et_copy_index.tensor    (Tensor copy_to, Tensor to_copy, int index): copy_to[index] =
 *                           to_copy; copy_to's first dimension becomes index + 1 (as upstream:
 *                           a loop that stacks rows restarts at 1 row on the next run)
 *   et_view.default         (Tensor self, int[] size) -> out (args[2]) aliases self's data
 */
#include <math.h>
#include <string.h>

#include "pte/kernel.h"

#define PRIM_FAIL(ctx, ...) pte_kernel_fail((ctx), PTE_ERR_INVALID_ARGUMENT, __VA_ARGS__)

/* ------------------------------------------------------------------------------ libm-free math
 * The core runtime links without libm (docs/footprint.md), so the few rounding functions the
 * prim ops need are written here. All are exact. */

static double pm_abs(double v) { return signbit(v) ? -v : v; }
static double pm_copysign(double x, double y) { return signbit(x) != signbit(y) ? -x : x; }

/* Toward zero (keeps the sign of zero; NaN, infinities and |v| >= 2^52 are already integral). */
static double pm_trunc(double v) {
  if (!(pm_abs(v) < 4503599627370496.0)) return v;
  return pm_copysign((double)(int64_t)v, v);
}
static double pm_ceil(double v) {
  double t = pm_trunc(v);
  return t < v ? t + 1.0 : t;
}
/* Nearest, ties to even (Python's round()). */
static double pm_round_even(double v) {
  double t = pm_trunc(v), d = pm_abs(v - t); /* v - t is exact */
  if (d < 0.5) return t;
  double up = t + pm_copysign(1.0, v);
  if (d > 0.5) return up;
  return pm_trunc(t / 2.0) == t / 2.0 ? t : up;
}
/* fmod: the remainder of x / y with x's sign, exactly (binary long division; every subtraction
 * m <= a < 2m is exact). y != 0, x finite. */
static double pm_fmod(double x, double y) {
  double a = pm_abs(x), b = pm_abs(y);
  if (!(a >= b)) return x;
  double m = b;
  while (m <= a / 2.0) m *= 2.0;
  while (m >= b) {
    if (a >= m) a -= m;
    m /= 2.0;
  }
  return pm_copysign(a, x);
}

/* ------------------------------------------------------------------------------ helpers */

static bool prim_nargs(pte_kernel_context *ctx, size_t nargs, size_t want) {
  if (nargs == want) return true;
  pte_kernel_fail(ctx, PTE_ERR_INVALID_PROGRAM, "expected %zu arguments, got %zu", want, nargs);
  return false;
}

static int prim_tag(pte_evalue **args, size_t i) { return args[i] ? (int)args[i]->tag : PTE_TAG_NONE; }

static bool prim_is_num(int tag) { return tag == PTE_TAG_INT || tag == PTE_TAG_DOUBLE; }

static double prim_dbl(const pte_evalue *v) { return v->tag == PTE_TAG_INT ? (double)v->u.i : v->u.d; }

/* The result slot: the last EValue, which must be a scalar slot (or None). */
static pte_evalue *prim_out(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  pte_evalue *o = args[nargs - 1];
  int t = o ? (int)o->tag : -1;
  if (t == PTE_TAG_NONE || t == PTE_TAG_INT || t == PTE_TAG_DOUBLE || t == PTE_TAG_BOOL) return o;
  PRIM_FAIL(ctx, "out (argument %zu) is a %s, expected a scalar slot", nargs - 1, o ? pte_tag_name(t) : "null");
  return NULL;
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

static int64_t wrap_i64(uint64_t v) { return v <= (uint64_t)INT64_MAX ? (int64_t)v : -(int64_t)(~v) - 1; }

/* Python float floor division: (a - fmod(a, b)) / b, one less when the remainder and b differ
 * in sign, then snapped to the nearest integer as Python does (b == 0 gives +-inf, as upstream). */
static double dbl_floordiv(double a, double b) {
  if (b == 0.0) return signbit(a) ? -INFINITY : INFINITY;
  if (!isfinite(a) || !isfinite(b)) return a / b; /* nan / inf cases: not reached by sizes */
  const double mod = pm_fmod(a, b);
  double div = (a - mod) / b;
  if (mod != 0.0 && signbit(b) != signbit(mod)) div -= 1.0;
  if (div == 0.0) return pm_copysign(0.0, a / b);
  double fl = pm_trunc(div);
  if (fl > div) fl -= 1.0;
  return div - fl > 0.5 ? fl + 1.0 : fl;
}

/* ------------------------------------------------------------------------------ scalar ops
 * One routine for every scalar operator; the table entries are thin wrappers with the op code. */

enum {
  /* binary (a, b, out) */
  P_ADD, P_SUB, P_MUL, P_TRUEDIV, P_FLOORDIV, P_FLOORDIV_INT, P_MOD, P_MOD_INT, P_MAX, P_MIN,
  P_EQ, P_GT, P_LT, P_GE, P_LE,
  /* unary (a, out) */
  P_NEG, P_CEIL, P_ROUND, P_TRUNC, P_SYM_INT, P_SYM_FLOAT, P_NOT,
  /* (cond, then, else, out) */
  P_ITE
};

static bool prim_compare(int op, int c) { /* c: -1, 0, 1 */
  return op == P_EQ ? c == 0 : op == P_GT ? c > 0 : op == P_LT ? c < 0 : op == P_GE ? c >= 0 : c <= 0;
}

static void prim_scalar(pte_kernel_context *ctx, pte_evalue **args, size_t nargs, int op) {
  const size_t arity = op == P_ITE ? 3 : op >= P_NEG ? 1 : 2;
  if (!prim_nargs(ctx, nargs, arity + 1)) return;
  pte_evalue *o = prim_out(ctx, args, nargs);
  if (!o) return;
  const int ta = prim_tag(args, 0), tb = arity > 1 ? prim_tag(args, 1) : PTE_TAG_NONE;
  const pte_evalue *a = args[0], *b = args[1];
  if (op == P_ITE) {
    const int tc = prim_tag(args, 2);
    if (ta != PTE_TAG_BOOL || (!prim_is_num(tb) && tb != PTE_TAG_BOOL) || (!prim_is_num(tc) && tc != PTE_TAG_BOOL)) {
      pte_kernel_fail(ctx, PTE_ERR_INVALID_TYPE, "condition, then, else are %s, %s, %s: expected Bool and two scalars",
                      pte_tag_name(ta), pte_tag_name(tb), pte_tag_name(tc));
    } else {
      const pte_evalue *pick = a->u.b ? args[1] : args[2];
      if (pick != o) *o = *pick;
    }
    return;
  }
  if (op >= P_NEG) {
    if (ta == PTE_TAG_INT) {
      /* ceil / round / trunc / sym_int of an Int is the Int */
      if (op == P_NEG) set_int(o, wrap_i64(0u - (uint64_t)a->u.i));
      else if (op == P_SYM_FLOAT) set_dbl(o, (double)a->u.i);
      else if (op != P_NOT) set_int(o, a->u.i);
      else goto bad1;
      return;
    }
    if (ta == PTE_TAG_BOOL && op == P_NOT) {
      set_bool(o, !a->u.b);
      return;
    }
    if (ta != PTE_TAG_DOUBLE || op == P_NOT) goto bad1;
    const double v = a->u.d;
    if (op == P_NEG || op == P_SYM_FLOAT) {
      set_dbl(o, op == P_NEG ? -v : v);
      return;
    }
    const double r = op == P_CEIL ? pm_ceil(v) : op == P_ROUND ? pm_round_even(v) : pm_trunc(v);
    if (!(r >= -9.2233720368547758e18 && r < 9.2233720368547758e18)) {
      PRIM_FAIL(ctx, "a (%s) is not finite or out of the int64 range", isnan(v) ? "nan" : "a Double");
      return;
    }
    set_int(o, (int64_t)r);
    return;
  bad1:
    pte_kernel_fail(ctx, PTE_ERR_INVALID_TYPE, "a is %s, expected %s", pte_tag_name(ta),
                    op == P_NOT ? "Bool" : "Int or Double");
    return;
  }
  if (op >= P_EQ && ta == PTE_TAG_BOOL && tb == PTE_TAG_BOOL) {
    set_bool(o, prim_compare(op, (int)a->u.b - (int)b->u.b));
    return;
  }
  if (ta == PTE_TAG_INT && tb == PTE_TAG_INT && op != P_TRUEDIV) {
    const int64_t x = a->u.i, y = b->u.i;
    const uint64_t ux = (uint64_t)x, uy = (uint64_t)y;
    if (op >= P_EQ) {
      set_bool(o, prim_compare(op, x < y ? -1 : x > y));
    } else if (op <= P_MUL) {
      set_int(o, wrap_i64(op == P_ADD ? ux + uy : op == P_SUB ? ux - uy : ux * uy));
    } else if (op == P_MAX || op == P_MIN) {
      set_int(o, (op == P_MAX) == (x > y) ? x : y);
    } else if (y == 0) {
      PRIM_FAIL(ctx, "integer division by zero (b is 0)");
    } else if (y == -1) { /* x // -1 = -x (INT64_MIN overflows), x % -1 = 0 */
      if (op == P_MOD || op == P_MOD_INT) set_int(o, 0);
      else if (x == INT64_MIN) PRIM_FAIL(ctx, "integer overflow (a is INT64_MIN, b is -1)");
      else set_int(o, -x);
    } else {
      int64_t q = x / y, r = x % y;
      if (r != 0 && ((r < 0) != (y < 0))) {
        q -= 1;
        r += y;
      }
      set_int(o, op == P_MOD || op == P_MOD_INT ? r : q);
    }
    return;
  }
  const bool ints_only = op == P_FLOORDIV_INT || op == P_MOD_INT || op == P_MOD; /* mod: Ints only, as upstream */
  if (ints_only || !prim_is_num(ta) || !prim_is_num(tb)) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_TYPE, "a is %s and b is %s: expected %s", pte_tag_name(ta), pte_tag_name(tb),
                    ints_only ? "Int" : op >= P_EQ ? "two numbers or two Bools" : "Int or Double");
    return;
  }
  const double x = prim_dbl(a), y = prim_dbl(b);
  if (op >= P_EQ) {
    set_bool(o, !isnan(x) && !isnan(y) && prim_compare(op, x < y ? -1 : x > y)); /* nan compares false */
    return;
  }
  double r;
  switch (op) {
    case P_ADD: r = x + y; break;
    case P_SUB: r = x - y; break;
    case P_MUL: r = x * y; break;
    case P_TRUEDIV: r = x / y; break;
    case P_FLOORDIV: r = dbl_floordiv(x, y); break;
    default: r = (op == P_MAX) == (x > y) ? x : y; break; /* max / min (nan: the second operand) */
  }
  set_dbl(o, r);
}

#define PRIM_SCALAR(fn, code) \
  static void fn(pte_kernel_context *c, pte_evalue **a, size_t n) { prim_scalar(c, a, n, code); }
PRIM_SCALAR(prim_add, P_ADD)
PRIM_SCALAR(prim_sub, P_SUB)
PRIM_SCALAR(prim_mul, P_MUL)
PRIM_SCALAR(prim_truediv, P_TRUEDIV)
PRIM_SCALAR(prim_floordiv, P_FLOORDIV)
PRIM_SCALAR(prim_floordiv_int, P_FLOORDIV_INT)
PRIM_SCALAR(prim_mod, P_MOD)
PRIM_SCALAR(prim_mod_int, P_MOD_INT)
PRIM_SCALAR(prim_sym_max, P_MAX)
PRIM_SCALAR(prim_sym_min, P_MIN)
PRIM_SCALAR(prim_eq, P_EQ)
PRIM_SCALAR(prim_gt, P_GT)
PRIM_SCALAR(prim_lt, P_LT)
PRIM_SCALAR(prim_ge, P_GE)
PRIM_SCALAR(prim_le, P_LE)
PRIM_SCALAR(prim_neg, P_NEG)
PRIM_SCALAR(prim_ceil, P_CEIL)
PRIM_SCALAR(prim_round, P_ROUND)
PRIM_SCALAR(prim_trunc, P_TRUNC)
PRIM_SCALAR(prim_sym_int, P_SYM_INT)
PRIM_SCALAR(prim_sym_float, P_SYM_FLOAT)
PRIM_SCALAR(prim_sym_not, P_NOT)
PRIM_SCALAR(prim_sym_ite, P_ITE)

/* ------------------------------------------------------------------------------ tensors */

static pte_tensor *prim_tensor(pte_kernel_context *ctx, pte_evalue **args, size_t i, const char *what) {
  if (prim_tag(args, i) != PTE_TAG_TENSOR || !args[i]->u.tensor) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_TYPE, "%s (argument %zu) is %s, expected a Tensor", what, i,
                    pte_tag_name(prim_tag(args, i)));
    return NULL;
  }
  return args[i]->u.tensor;
}

/* The shared start of sym_size / sym_numel / _local_scalar_dense: self = args[0], result slot. */
static pte_tensor *prim_self(pte_kernel_context *ctx, pte_evalue **args, size_t nargs, size_t want,
                             pte_evalue **o) {
  if (!prim_nargs(ctx, nargs, want) || !(*o = prim_out(ctx, args, nargs))) return NULL;
  return prim_tensor(ctx, args, 0, "self");
}

static void prim_sym_size(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  pte_evalue *o;
  pte_tensor *t = prim_self(ctx, args, nargs, 3, &o);
  if (!t) return;
  if (prim_tag(args, 1) != PTE_TAG_INT) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_TYPE, "dim (argument 1) is %s, expected Int", pte_tag_name(prim_tag(args, 1)));
    return;
  }
  int64_t d = args[1]->u.i, r = t->dim;
  if (d < -r || d >= r) {
    PRIM_FAIL(ctx, "dim %lld out of range for a rank-%d tensor", (long long)d, (int)r);
    return;
  }
  set_int(o, t->sizes[d < 0 ? d + r : d]);
}

static void prim_sym_numel(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  pte_evalue *o;
  pte_tensor *t = prim_self(ctx, args, nargs, 2, &o);
  if (t) set_int(o, (int64_t)t->numel);
}

/* As upstream: integer, float32/float64 and bool tensors (the first element). */
static void prim_local_scalar_dense(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  pte_evalue *o;
  pte_tensor *t = prim_self(ctx, args, nargs, 2, &o);
  if (!t) return;
  if (t->numel < 1 || !t->data) {
    PRIM_FAIL(ctx, "self has no elements (a Scalar needs one)");
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
    default:
      pte_kernel_fail(ctx, PTE_ERR_INVALID_TYPE, "self has unsupported dtype %s", pte_dtype_name(t->dtype));
      break;
  }
}

/* et_copy_index(Tensor copy_to, Tensor to_copy, int index): writes to_copy into row `index` of
 * copy_to and sets copy_to's first dimension to index + 1 (contiguous tensors). */
static void prim_et_copy_index(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  if (nargs != 4 && !prim_nargs(ctx, nargs, 3)) return; /* a 4th value is a returned alias of copy_to */
  pte_tensor *dst = prim_tensor(ctx, args, 0, "copy_to");
  pte_tensor *src = dst ? prim_tensor(ctx, args, 1, "to_copy") : NULL;
  if (!src) return;
  if (prim_tag(args, 2) != PTE_TAG_INT) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_TYPE, "index (argument 2) is %s, expected Int", pte_tag_name(prim_tag(args, 2)));
    return;
  }
  const int64_t index = args[2]->u.i;
  bool ok = dst->dtype == src->dtype && dst->dim == src->dim + 1 && pte_dim_order_is_contiguous(dst->dim_order, dst->dim) &&
            pte_dim_order_is_contiguous(src->dim_order, src->dim);
  for (int32_t d = 0; ok && d < src->dim; d++) ok = dst->sizes[d + 1] == src->sizes[d];
  if (!ok) {
    PRIM_FAIL(ctx, "to_copy is not a contiguous row of copy_to (dtype, rank, sizes)");
    return;
  }
  int32_t sizes[PTE_MAX_RANK];
  memcpy(sizes, dst->sizes, sizeof(int32_t) * (size_t)dst->dim);
  sizes[0] = (int32_t)(index + 1);
  if (index < 0 || index >= INT32_MAX || pte_tensor_resize(dst, sizes, dst->dim) != PTE_OK) {
    PRIM_FAIL(ctx, "index %lld: copy_to cannot hold %lld rows", (long long)index, (long long)index + 1);
    return;
  }
  if (nargs == 4 && args[3] && args[3] != args[0] && (args[3]->tag == PTE_TAG_TENSOR || args[3]->tag == PTE_TAG_NONE))
    *args[3] = *args[0];
  const size_t slot = src->numel * pte_dtype_size(src->dtype);
  if (slot && (!dst->data || !src->data)) {
    PRIM_FAIL(ctx, "copy_to or to_copy has no data");
    return;
  }
  if (slot) memmove((uint8_t *)dst->data + (size_t)index * slot, src->data, slot);
}

/* et_view(Tensor self, int[] size) -> Tensor: out (args[2]) aliases self's data with new sizes
 * (one -1 entry is inferred). */
static void prim_et_view(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  if (nargs != 4 && !prim_nargs(ctx, nargs, 3)) return;
  pte_tensor *self = prim_tensor(ctx, args, 0, "self");
  pte_tensor *out = self ? prim_tensor(ctx, args, 2, "out") : NULL;
  if (!out) return;
  size_t n = 0;
  const int64_t *size = pte_evalue_int_list(args[1], &n);
  if (!size) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_TYPE, "size (argument 1) is %s, expected an IntList", pte_tag_name(prim_tag(args, 1)));
    return;
  }
  int32_t sizes[PTE_MAX_RANK];
  size_t known = 1;
  int infer = -1;
  bool ok = self->dtype == out->dtype && (int32_t)n == out->dim;
  for (size_t i = 0; ok && i < n; i++) {
    if (size[i] == -1 && infer < 0) {
      infer = (int)i;
      continue;
    }
    ok = size[i] >= 0 && size[i] <= INT32_MAX && (size[i] == 0 || known <= SIZE_MAX / (size_t)size[i]);
    sizes[i] = (int32_t)size[i];
    known *= (size_t)size[i];
  }
  if (ok && infer >= 0) {
    ok = known && self->numel % known == 0 && self->numel / known <= INT32_MAX;
    sizes[infer] = (int32_t)(ok ? self->numel / known : 0);
    known = self->numel;
  }
  if (!ok || known != self->numel || (self->numel && !self->data)) {
    PRIM_FAIL(ctx, "size (%zu entries) is not a view of self's %zu elements as out (dtype, rank)", n, self->numel);
    return;
  }
  out->data = self->data;
  const size_t nbytes = self->numel * pte_dtype_size(self->dtype);
  out->capacity_bytes = self->capacity_bytes > nbytes ? self->capacity_bytes : nbytes;
  out->flags = (uint8_t)((out->flags & ~PTE_TENSOR_CONST) | (self->flags & PTE_TENSOR_CONST));
  if (pte_tensor_resize(out, sizes, (int32_t)n) != PTE_OK) {
    PRIM_FAIL(ctx, "cannot resize out");
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

pte_status pte_register_prim_ops(void) {
  /* idempotent without global state: registered iff the first one is (with its NULL key) */
  for (size_t i = 0; i < pte_num_registered_kernels(); i++) {
    const pte_kernel *k = pte_registered_kernel(i);
    if (k->fn == k_prim_kernels[0].fn && k->key == NULL) return PTE_OK;
  }
  return pte_register_kernels(k_prim_kernels, pte_prim_kernel_count());
}
