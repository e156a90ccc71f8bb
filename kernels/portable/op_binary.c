/* kernels/portable/op_binary.c — add, sub, rsub, mul, div, pow, atan2, fmod, remainder,
 * floor_divide, maximum, minimum (tensor and Scalar overloads). */
/* As in kutil_nn.c: GCC at -O2 leaves the float32 runs scalar (the output may alias an input, and
 * -O2's cost model adds no runtime alias check); -O3 vectorises them behind one. Elementwise IEEE
 * operations: the same results either way. The pragma is standard C (ignored by other compilers). */
#if defined(__GNUC__) && !defined(__clang__) && defined(__OPTIMIZE__) && !defined(__OPTIMIZE_SIZE__)
#pragma GCC optimize("O3")
#endif

#include <math.h>

#include "portable/portable_binary.h"
#include "portable/util/elementwise.h"
#include "portable/util/kutil.h"

typedef enum {
  OP_ADD,
  OP_SUB,
  OP_MUL,
  OP_DIV,
  OP_POW,
  OP_RSUB,
  OP_ATAN2,
  OP_FMOD,
  OP_REM,
  OP_FLOORDIV,
  OP_MAX,
  OP_MIN
} binop_kind;
typedef enum { MODE_TRUE, MODE_TRUNC, MODE_FLOOR } div_mode;

typedef struct bparams {
  double alpha_d;
  int64_t alpha_i;
  float alpha_f;
  bool div_zero; /* set by integer division by zero */
} bparams;

/* ---- element functions ---- */

static double add_d(double a, double b, void *p) { return a + ((bparams *)p)->alpha_d * b; }
static int64_t add_i(int64_t a, int64_t b, void *p) {
  return pte_k_wrap_u64((uint64_t)a + (uint64_t)((bparams *)p)->alpha_i * (uint64_t)b);
}
static double sub_d(double a, double b, void *p) { return a - ((bparams *)p)->alpha_d * b; }
static int64_t sub_i(int64_t a, int64_t b, void *p) {
  return pte_k_wrap_u64((uint64_t)a - (uint64_t)((bparams *)p)->alpha_i * (uint64_t)b);
}
static double mul_d(double a, double b, void *p) {
  (void)p;
  return a * b;
}
static int64_t mul_i(int64_t a, int64_t b, void *p) {
  (void)p;
  return pte_k_wrap_u64((uint64_t)a * (uint64_t)b);
}
static double div_d(double a, double b, void *p) {
  (void)p;
  return a / b;
}
static double div_trunc_d(double a, double b, void *p) {
  (void)p;
  return trunc(a / b);
}
/* Python-style floor division for floating values (as ATen's div_floor). */
static double div_floor_d(double a, double b, void *p) {
  (void)p;
  if (b == 0.0) return a / b;
  double mod = fmod(a, b);
  double div = (a - mod) / b;
  if (mod != 0.0 && ((b < 0.0) != (mod < 0.0))) div -= 1.0;
  double fl;
  if (div != 0.0) {
    fl = floor(div);
    if (div - fl > 0.5) fl += 1.0;
  } else {
    fl = copysign(0.0, a / b);
  }
  return fl;
}
static int64_t div_trunc_i(int64_t a, int64_t b, void *p) {
  if (b == 0) {
    ((bparams *)p)->div_zero = true;
    return 0;
  }
  if (b == -1) return pte_k_wrap_u64(0u - (uint64_t)a); /* INT64_MIN / -1 wraps */
  return a / b;
}
static int64_t div_floor_i(int64_t a, int64_t b, void *p) {
  if (b == 0) {
    ((bparams *)p)->div_zero = true;
    return 0;
  }
  if (b == -1) return pte_k_wrap_u64(0u - (uint64_t)a);
  int64_t q = a / b, r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) q--;
  return q;
}
/* rsub: other - alpha * self (a is self, b the Scalar other). */
static double rsub_d(double a, double b, void *p) { return b - ((bparams *)p)->alpha_d * a; }
static int64_t rsub_i(int64_t a, int64_t b, void *p) {
  return pte_k_wrap_u64((uint64_t)b - (uint64_t)((bparams *)p)->alpha_i * (uint64_t)a);
}
static double atan2_d(double a, double b, void *p) {
  (void)p;
  return atan2(a, b);
}
static double fmod_d(double a, double b, void *p) {
  (void)p;
  return fmod(a, b);
}
/* C remainder (sign of the dividend), as ATen's integral fmod. */
static int64_t fmod_i(int64_t a, int64_t b, void *p) {
  if (b == 0) {
    ((bparams *)p)->div_zero = true;
    return 0;
  }
  if (b == -1) return 0; /* INT64_MIN % -1 would trap */
  return a % b;
}
/* Python-style remainder (sign of the divisor), as ATen's remainder. */
static double rem_d(double a, double b, void *p) {
  (void)p;
  double m = fmod(a, b);
  if (m != 0.0 && ((b < 0.0) != (m < 0.0))) m += b;
  return m;
}
static int64_t rem_i(int64_t a, int64_t b, void *p) {
  if (b == 0) {
    ((bparams *)p)->div_zero = true;
    return 0;
  }
  if (b == -1) return 0;
  int64_t m = a % b;
  if (m != 0 && ((b < 0) != (m < 0))) m += b;
  return m;
}
/* maximum / minimum: a NaN operand gives NaN. */
static double max_d(double a, double b, void *p) {
  (void)p;
  if (a != a) return a;
  if (b != b) return b;
  return a > b ? a : b;
}
static double min_d(double a, double b, void *p) {
  (void)p;
  if (a != a) return a;
  if (b != b) return b;
  return a < b ? a : b;
}
static int64_t max_i(int64_t a, int64_t b, void *p) {
  (void)p;
  return a > b ? a : b;
}
static int64_t min_i(int64_t a, int64_t b, void *p) {
  (void)p;
  return a < b ? a : b;
}
static double pow_d(double a, double b, void *p) {
  (void)p;
  return pow(a, b);
}
/* Integer power with wrap-around; negative exponents give 1 / -1 / 0 as ATen's tensor pow. */
static int64_t pow_i(int64_t a, int64_t b, void *p) {
  (void)p;
  if (b < 0) {
    if (a == 1) return 1;
    if (a == -1) return (b & 1) ? -1 : 1;
    return 0;
  }
  uint64_t base = (uint64_t)a, r = 1;
  uint64_t e = (uint64_t)b;
  while (e) {
    if (e & 1u) r *= base;
    base *= base;
    e >>= 1;
  }
  return pte_k_wrap_u64(r);
}

/* ---- float32 fast paths ---- */

#define F32_RUN2(name, EXPR)                                                                  \
  static void name(float *o, const float *a, const float *b, int64_t n, int64_t so, int64_t sa, \
                   int64_t sb, void *pv) {                                                    \
    const bparams *P = (const bparams *)pv;                                                   \
    (void)P;                                                                                  \
    if (so == 1 && sa == 1 && sb == 1) {                                                      \
      for (int64_t i = 0; i < n; i++) {                                                       \
        float x = a[i], y = b[i];                                                             \
        o[i] = (EXPR);                                                                        \
      }                                                                                       \
    } else if (so == 1 && sa == 1 && sb == 0) {                                               \
      const float y = b[0];                                                                   \
      for (int64_t i = 0; i < n; i++) {                                                       \
        float x = a[i];                                                                       \
        o[i] = (EXPR);                                                                        \
      }                                                                                       \
    } else if (so == 1 && sa == 0 && sb == 1) {                                               \
      const float x = a[0];                                                                   \
      for (int64_t i = 0; i < n; i++) {                                                       \
        float y = b[i];                                                                       \
        o[i] = (EXPR);                                                                        \
      }                                                                                       \
    } else {                                                                                  \
      for (int64_t i = 0; i < n; i++) {                                                       \
        float x = a[i * sa], y = b[i * sb];                                                   \
        o[i * so] = (EXPR);                                                                   \
      }                                                                                       \
    }                                                                                         \
  }

F32_RUN2(add_f32, x + P->alpha_f * y)
F32_RUN2(sub_f32, x - P->alpha_f * y)
F32_RUN2(mul_f32, x *y)
F32_RUN2(div_f32, x / y)

static float powf_special(float x, float y) {
  if (y == 2.0f) return x * x;
  if (y == 3.0f) return x * x * x;
  if (y == 1.0f) return x;
  if (y == 0.5f) return sqrtf(x);
  if (y == -1.0f) return 1.0f / x;
  if (y == -2.0f) return 1.0f / (x * x);
  return powf(x, y);
}
F32_RUN2(pow_f32, powf_special(x, y))
F32_RUN2(rsub_f32, y - P->alpha_f * x)
F32_RUN2(atan2_f32, atan2f(x, y))
F32_RUN2(fmod_f32, fmodf(x, y))

static inline float maxf_nan(float x, float y) { return x != x ? x : (y != y ? y : (x > y ? x : y)); }
static inline float minf_nan(float x, float y) { return x != x ? x : (y != y ? y : (x < y ? x : y)); }
F32_RUN2(max_f32, maxf_nan(x, y))
F32_RUN2(min_f32, minf_nan(x, y))

static const pte_k_binop k_add = {add_d, add_i, add_f32};
static const pte_k_binop k_sub = {sub_d, sub_i, sub_f32};
static const pte_k_binop k_mul = {mul_d, mul_i, mul_f32};
static const pte_k_binop k_div = {div_d, NULL, div_f32};
static const pte_k_binop k_div_trunc = {div_trunc_d, div_trunc_i, NULL};
static const pte_k_binop k_div_floor = {div_floor_d, div_floor_i, NULL};
static const pte_k_binop k_pow = {pow_d, pow_i, pow_f32};
static const pte_k_binop k_rsub = {rsub_d, rsub_i, rsub_f32};
static const pte_k_binop k_atan2 = {atan2_d, NULL, atan2_f32};
static const pte_k_binop k_fmod = {fmod_d, fmod_i, fmod_f32};
static const pte_k_binop k_rem = {rem_d, rem_i, NULL};
static const pte_k_binop k_max = {max_d, max_i, max_f32};
static const pte_k_binop k_min = {min_d, min_i, min_f32};

static const char *kind_name(binop_kind k) {
  switch (k) {
    case OP_ADD:
      return "add";
    case OP_SUB:
      return "sub";
    case OP_MUL:
      return "mul";
    case OP_DIV:
      return "div";
    case OP_POW:
      return "pow";
    case OP_RSUB:
      return "rsub";
    case OP_ATAN2:
      return "atan2";
    case OP_FMOD:
      return "fmod";
    case OP_REM:
      return "remainder";
    case OP_FLOORDIV:
      return "floor_divide";
    case OP_MAX:
      return "maximum";
    default:
      return "minimum";
  }
}

/* Reads an optional rounding_mode string arg: None / "trunc" / "floor". */
static bool read_mode(pte_kernel_context *ctx, pte_evalue **args, size_t nargs, size_t i,
                      div_mode *mode) {
  size_t len;
  bool ok;
  const char *s = pte_k_arg_string(ctx, args, nargs, i, &len, true, &ok);
  if (!ok) return false;
  if (!s) *mode = MODE_TRUE;
  else if (pte_k_str_eq(s, len, "trunc")) *mode = MODE_TRUNC;
  else if (pte_k_str_eq(s, len, "floor")) *mode = MODE_FLOOR;
  else {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "div: bad rounding_mode");
    return false;
  }
  return true;
}

/* Validates alpha against the common dtype (as ATen's alpha_check) and fills params. */
static bool read_alpha(pte_kernel_context *ctx, pte_evalue **args, size_t nargs, size_t i,
                       int common, bparams *P) {
  pte_evalue *v = args[i];
  if (!pte_k_arg_is_scalar(args, nargs, i)) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "alpha must be a scalar");
    return false;
  }
  if (v->tag == PTE_TAG_BOOL && common != PTE_DTYPE_BOOL) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "boolean alpha only supported for bool results");
    return false;
  }
  if (v->tag == PTE_TAG_DOUBLE && !pte_k_is_floating(common)) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT,
                    "alpha must not be a floating point number for integral inputs");
    return false;
  }
  if (!pte_k_arg_double(ctx, args, nargs, i, &P->alpha_d)) return false;
  if (v->tag == PTE_TAG_DOUBLE) {
    P->alpha_i = pte_k_double_to_int64(P->alpha_d);
  } else if (!pte_k_arg_int(ctx, args, nargs, i, &P->alpha_i)) {
    return false;
  }
  /* alpha is used in the op-math dtype (double for double, float otherwise) */
  if (pte_k_is_floating(common) && common != PTE_DTYPE_DOUBLE)
    P->alpha_d = pte_k_round_to_dtype(P->alpha_d, PTE_DTYPE_FLOAT);
  P->alpha_f = (float)P->alpha_d;
  return true;
}

/* The shared driver. scalar_other: args[1] is a Scalar; scalar_self: args[0] is a Scalar and
 * args[1] the tensor (pow.Scalar_out). */
static void run_binary(pte_kernel_context *ctx, pte_evalue **args, size_t nargs, binop_kind kind,
                       bool scalar_other, bool scalar_self, bool has_alpha, bool has_mode) {
  size_t nin = 2 + (has_alpha ? 1 : 0) + (has_mode ? 1 : 0);
  size_t out_idx = nin;
  if (!pte_k_check_nargs(ctx, nargs, nin + 1, nin + 2)) return;
  pte_k_scalar sa, sb;
  const pte_tensor *a = NULL, *b = NULL;
  int da, db, common;
  if (scalar_self) {
    b = pte_k_arg_tensor(ctx, args, nargs, 1);
    if (!b) return;
    if (!pte_k_arg_is_scalar(args, nargs, 0)) {
      pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "%s: arg 0 (self): expected a scalar",
                      kind_name(kind));
      return;
    }
    db = b->dtype;
    if (!pte_k_check_dtype(ctx, db, "exponent")) return;
    common = pte_k_promote_scalar(db, args[0]);
    da = common;
  } else {
    a = pte_k_arg_tensor(ctx, args, nargs, 0);
    if (!a) return;
    da = a->dtype;
    if (!pte_k_check_dtype(ctx, da, "self")) return;
    if (scalar_other) {
      if (!pte_k_arg_is_scalar(args, nargs, 1)) {
        pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "%s: arg 1 (other): expected a scalar",
                        kind_name(kind));
        return;
      }
      common = pte_k_promote_scalar(da, args[1]);
      db = common;
    } else {
      b = pte_k_arg_tensor(ctx, args, nargs, 1);
      if (!b) return;
      db = b->dtype;
      if (!pte_k_check_dtype(ctx, db, "other")) return;
      common = pte_k_promote(da, db);
    }
  }
  pte_tensor *out = pte_k_arg_tensor(ctx, args, nargs, out_idx);
  if (!out) return;
  if (!pte_k_check_dtype(ctx, out->dtype, "out")) return;

  bparams P = {1.0, 1, 1.0f, false};
  if (has_alpha && !read_alpha(ctx, args, nargs, 2, common, &P)) return;
  div_mode mode = MODE_TRUE;
  if (has_mode && !read_mode(ctx, args, nargs, 2, &mode)) return;

  if ((kind == OP_SUB || kind == OP_RSUB) &&
      (common == PTE_DTYPE_BOOL || (!scalar_other && db == PTE_DTYPE_BOOL) ||
       da == PTE_DTYPE_BOOL || (scalar_other && args[1]->tag == PTE_TAG_BOOL))) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT,
                    "%s: subtraction with bool tensors is not supported", kind_name(kind));
    return;
  }
  if ((kind == OP_POW || kind == OP_FMOD || kind == OP_REM || kind == OP_FLOORDIV) &&
      common == PTE_DTYPE_BOOL) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "%s: not supported for bool self and other",
                    kind_name(kind));
    return;
  }

  int compute = common;
  const pte_k_binop *op = NULL;
  switch (kind) {
    case OP_ADD:
      op = &k_add;
      break;
    case OP_SUB:
      op = &k_sub;
      break;
    case OP_MUL:
      op = &k_mul;
      break;
    case OP_POW:
      op = &k_pow;
      break;
    case OP_RSUB:
      op = &k_rsub;
      break;
    case OP_ATAN2:
      op = &k_atan2;
      if (!pte_k_is_floating(common)) compute = PTE_DTYPE_FLOAT;
      break;
    case OP_FMOD:
      op = &k_fmod;
      break;
    case OP_REM:
      op = &k_rem;
      break;
    case OP_FLOORDIV:
      op = &k_div_floor;
      break;
    case OP_MAX:
      op = &k_max;
      break;
    case OP_MIN:
      op = &k_min;
      break;
    case OP_DIV:
      if (mode == MODE_TRUE) {
        op = &k_div;
        if (!pte_k_is_floating(common)) compute = PTE_DTYPE_FLOAT;
      } else {
        op = mode == MODE_TRUNC ? &k_div_trunc : &k_div_floor;
        if (common == PTE_DTYPE_BOOL) compute = PTE_DTYPE_LONG;
      }
      break;
  }
  if (!pte_k_can_cast(compute, out->dtype)) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "%s: result dtype %s cannot be cast to out %s",
                    kind_name(kind), pte_dtype_name(compute), pte_dtype_name(out->dtype));
    return;
  }

  /* half / bfloat16 compute in float (ATen's op-math type) and round when stored. */
  if (compute == PTE_DTYPE_HALF || compute == PTE_DTYPE_BFLOAT16) compute = PTE_DTYPE_FLOAT;
  /* Scalars become 0-dim tensors in the compute dtype. */
  if (scalar_self) {
    if (pte_k_is_floating(compute) && args[0]->tag == PTE_TAG_DOUBLE)
      a = pte_k_scalar_init_double(&sa, compute, args[0]->u.d);
    else a = pte_k_scalar_init(&sa, compute, args[0]);
  }
  if (scalar_other) {
    if (kind == OP_POW && !pte_k_is_floating(compute)) {
      int64_t e = 0;
      if (!pte_k_arg_int(ctx, args, nargs, 1, &e)) return;
      if (e < 0) {
        pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT,
                        "pow: integers to negative integer powers are not allowed");
        return;
      }
      /* keep the exponent exact (not wrapped to a narrow compute dtype) */
      b = pte_k_scalar_init_int64(&sb, PTE_DTYPE_LONG, e);
    } else {
      b = pte_k_scalar_init(&sb, compute, args[1]);
    }
  }

  int32_t shape[PTE_MAX_RANK];
  int32_t dim;
  if (pte_k_broadcast_shape(a, b, shape, &dim) != PTE_OK) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT,
                    "%s: shapes cannot be broadcast (self and other)", kind_name(kind));
    return;
  }
  if (!pte_k_resize_out(ctx, out, shape, dim)) return;
  if (!pte_k_check_data(ctx, a, "self") || !pte_k_check_data(ctx, b, "other")) return;

  if (!pte_k_ew_binary(a, b, out, compute, op, &P)) {
    pte_kernel_fail(ctx, PTE_ERR_NOT_SUPPORTED, "%s: dtype %s not supported", kind_name(kind),
                    pte_dtype_name(compute));
    return;
  }
  if (P.div_zero) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "%s: integer division by zero (other)",
                    kind_name(kind));
    return;
  }
  pte_k_set_return(args, nargs, out_idx);
}

static void add_out(pte_kernel_context *c, pte_evalue **a, size_t n) {
  run_binary(c, a, n, OP_ADD, false, false, true, false);
}
static void add_scalar_out(pte_kernel_context *c, pte_evalue **a, size_t n) {
  run_binary(c, a, n, OP_ADD, true, false, true, false);
}
static void sub_out(pte_kernel_context *c, pte_evalue **a, size_t n) {
  run_binary(c, a, n, OP_SUB, false, false, true, false);
}
static void sub_scalar_out(pte_kernel_context *c, pte_evalue **a, size_t n) {
  run_binary(c, a, n, OP_SUB, true, false, true, false);
}
static void mul_out(pte_kernel_context *c, pte_evalue **a, size_t n) {
  run_binary(c, a, n, OP_MUL, false, false, false, false);
}
static void mul_scalar_out(pte_kernel_context *c, pte_evalue **a, size_t n) {
  run_binary(c, a, n, OP_MUL, true, false, false, false);
}
static void div_out(pte_kernel_context *c, pte_evalue **a, size_t n) {
  run_binary(c, a, n, OP_DIV, false, false, false, false);
}
static void div_out_mode(pte_kernel_context *c, pte_evalue **a, size_t n) {
  run_binary(c, a, n, OP_DIV, false, false, false, true);
}
static void div_scalar_out(pte_kernel_context *c, pte_evalue **a, size_t n) {
  run_binary(c, a, n, OP_DIV, true, false, false, false);
}
static void div_scalar_mode_out(pte_kernel_context *c, pte_evalue **a, size_t n) {
  run_binary(c, a, n, OP_DIV, true, false, false, true);
}
static void pow_tensor_scalar_out(pte_kernel_context *c, pte_evalue **a, size_t n) {
  run_binary(c, a, n, OP_POW, true, false, false, false);
}
static void pow_tensor_tensor_out(pte_kernel_context *c, pte_evalue **a, size_t n) {
  run_binary(c, a, n, OP_POW, false, false, false, false);
}
static void pow_scalar_out(pte_kernel_context *c, pte_evalue **a, size_t n) {
  run_binary(c, a, n, OP_POW, false, true, false, false);
}
static void rsub_scalar_out(pte_kernel_context *c, pte_evalue **a, size_t n) {
  run_binary(c, a, n, OP_RSUB, true, false, true, false);
}
static void atan2_out(pte_kernel_context *c, pte_evalue **a, size_t n) {
  run_binary(c, a, n, OP_ATAN2, false, false, false, false);
}
static void fmod_tensor_out(pte_kernel_context *c, pte_evalue **a, size_t n) {
  run_binary(c, a, n, OP_FMOD, false, false, false, false);
}
static void fmod_scalar_out(pte_kernel_context *c, pte_evalue **a, size_t n) {
  run_binary(c, a, n, OP_FMOD, true, false, false, false);
}
static void remainder_tensor_out(pte_kernel_context *c, pte_evalue **a, size_t n) {
  run_binary(c, a, n, OP_REM, false, false, false, false);
}
static void remainder_scalar_out(pte_kernel_context *c, pte_evalue **a, size_t n) {
  run_binary(c, a, n, OP_REM, true, false, false, false);
}
static void floor_divide_out(pte_kernel_context *c, pte_evalue **a, size_t n) {
  run_binary(c, a, n, OP_FLOORDIV, false, false, false, false);
}
static void maximum_out(pte_kernel_context *c, pte_evalue **a, size_t n) {
  run_binary(c, a, n, OP_MAX, false, false, false, false);
}
static void minimum_out(pte_kernel_context *c, pte_evalue **a, size_t n) {
  run_binary(c, a, n, OP_MIN, false, false, false, false);
}

const pte_kernel pte_portable_binary_kernels[] = {
    {"aten::add.out", NULL, add_out},
    {"aten::add.Scalar_out", NULL, add_scalar_out},
    {"aten::sub.out", NULL, sub_out},
    {"aten::sub.Scalar_out", NULL, sub_scalar_out},
    {"aten::mul.out", NULL, mul_out},
    {"aten::mul.Scalar_out", NULL, mul_scalar_out},
    {"aten::div.out", NULL, div_out},
    {"aten::div.out_mode", NULL, div_out_mode},
    {"aten::div.Scalar_out", NULL, div_scalar_out},
    {"aten::div.Scalar_mode_out", NULL, div_scalar_mode_out},
    {"aten::pow.Tensor_Scalar_out", NULL, pow_tensor_scalar_out},
    {"aten::pow.Tensor_Tensor_out", NULL, pow_tensor_tensor_out},
    {"aten::pow.Scalar_out", NULL, pow_scalar_out},
    {"aten::rsub.Scalar_out", NULL, rsub_scalar_out},
    {"aten::atan2.out", NULL, atan2_out},
    {"aten::fmod.Tensor_out", NULL, fmod_tensor_out},
    {"aten::fmod.Scalar_out", NULL, fmod_scalar_out},
    {"aten::remainder.Tensor_out", NULL, remainder_tensor_out},
    {"aten::remainder.Scalar_out", NULL, remainder_scalar_out},
    {"aten::floor_divide.out", NULL, floor_divide_out},
    {"aten::maximum.out", NULL, maximum_out},
    {"aten::minimum.out", NULL, minimum_out},
};
const size_t pte_portable_binary_kernels_count =
    sizeof pte_portable_binary_kernels / sizeof pte_portable_binary_kernels[0];
