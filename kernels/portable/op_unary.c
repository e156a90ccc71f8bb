/* kernels/portable/op_unary.c — neg, exp, log, sqrt, rsqrt, abs; ceil, floor, round, trunc,
 * sign; isinf, isnan; _conj_physical. */
#include <math.h>

#include "portable/portable_unary.h"
#include "portable/util/elementwise.h"
#include "portable/util/kutil.h"

#define UNARY_F32_RUN1(name, EXPR)                                                             \
  static void name(float *o, const float *a, int64_t n, int64_t so, int64_t sa, void *pv) {   \
    (void)pv;                                                                                  \
    if (so == 1 && sa == 1) {                                                                  \
      for (int64_t i = 0; i < n; i++) {                                                        \
        float x = a[i];                                                                        \
        o[i] = (EXPR);                                                                         \
      }                                                                                        \
    } else {                                                                                   \
      for (int64_t i = 0; i < n; i++) {                                                        \
        float x = a[i * sa];                                                                   \
        o[i * so] = (EXPR);                                                                    \
      }                                                                                        \
    }                                                                                          \
  }

static double neg_d(double x, void *p) {
  (void)p;
  return -x;
}
static int64_t neg_i(int64_t x, void *p) {
  (void)p;
  return pte_k_wrap_u64(0u - (uint64_t)x);
}
static double exp_d(double x, void *p) {
  (void)p;
  return exp(x);
}
static double log_d(double x, void *p) {
  (void)p;
  return log(x);
}
static double sqrt_d(double x, void *p) {
  (void)p;
  return sqrt(x);
}
static double rsqrt_d(double x, void *p) {
  (void)p;
  return 1.0 / sqrt(x);
}
static double abs_d(double x, void *p) {
  (void)p;
  return fabs(x);
}
static int64_t abs_i(int64_t x, void *p) {
  (void)p;
  return x < 0 ? pte_k_wrap_u64(0u - (uint64_t)x) : x;
}

UNARY_F32_RUN1(neg_f32, -x)
UNARY_F32_RUN1(exp_f32, expf(x))
UNARY_F32_RUN1(log_f32, logf(x))
UNARY_F32_RUN1(sqrt_f32, sqrtf(x))
UNARY_F32_RUN1(rsqrt_f32, 1.0f / sqrtf(x))
UNARY_F32_RUN1(abs_f32, fabsf(x))

static const pte_k_unop k_neg = {neg_d, neg_i, neg_f32};
static const pte_k_unop k_exp = {exp_d, NULL, exp_f32};
static const pte_k_unop k_log = {log_d, NULL, log_f32};
static const pte_k_unop k_sqrt = {sqrt_d, NULL, sqrt_f32};
static const pte_k_unop k_rsqrt = {rsqrt_d, NULL, rsqrt_f32};
static const pte_k_unop k_abs = {abs_d, abs_i, abs_f32};

static void neg_out(pte_kernel_context *c, pte_evalue **a, size_t n) {
  pte_k_unary_kernel(c, a, n, 0, PTE_K_UNARY_SAME, false, &k_neg, NULL, "neg");
}
static void exp_out(pte_kernel_context *c, pte_evalue **a, size_t n) {
  pte_k_unary_kernel(c, a, n, 0, PTE_K_UNARY_TO_FLOAT, true, &k_exp, NULL, "exp");
}
static void log_out(pte_kernel_context *c, pte_evalue **a, size_t n) {
  pte_k_unary_kernel(c, a, n, 0, PTE_K_UNARY_TO_FLOAT, true, &k_log, NULL, "log");
}
static void sqrt_out(pte_kernel_context *c, pte_evalue **a, size_t n) {
  pte_k_unary_kernel(c, a, n, 0, PTE_K_UNARY_TO_FLOAT, true, &k_sqrt, NULL, "sqrt");
}
static void rsqrt_out(pte_kernel_context *c, pte_evalue **a, size_t n) {
  pte_k_unary_kernel(c, a, n, 0, PTE_K_UNARY_TO_FLOAT, true, &k_rsqrt, NULL, "rsqrt");
}
static void abs_out(pte_kernel_context *c, pte_evalue **a, size_t n) {
  pte_k_unary_kernel(c, a, n, 0, PTE_K_UNARY_SAME, false, &k_abs, NULL, "abs");
}

/* ---- rounding: floating values round, integral values pass through (ATen) ---- */

static int64_t ident_i(int64_t x, void *p) {
  (void)p;
  return x;
}
static double ident_d(double x, void *p) {
  (void)p;
  return x;
}
static double ceil_d(double x, void *p) {
  (void)p;
  return ceil(x);
}
static double floor_d(double x, void *p) {
  (void)p;
  return floor(x);
}
/* round half to even, as ATen's round (std::nearbyint in the default rounding mode) */
static double round_d(double x, void *p) {
  (void)p;
  return nearbyint(x);
}
static double trunc_d(double x, void *p) {
  (void)p;
  return trunc(x);
}
/* sign: NaN stays NaN (as upstream's portable kernel and numpy), zeros give +0 */
static double sign_d(double x, void *p) {
  (void)p;
  if (x != x) return x;
  return (double)((x > 0.0) - (x < 0.0));
}
static int64_t sign_i(int64_t x, void *p) {
  (void)p;
  return (x > 0) - (x < 0);
}

UNARY_F32_RUN1(ceil_f32, ceilf(x))
UNARY_F32_RUN1(floor_f32, floorf(x))
UNARY_F32_RUN1(round_f32, nearbyintf(x))
UNARY_F32_RUN1(trunc_f32, truncf(x))

static const pte_k_unop k_ceil = {ceil_d, ident_i, ceil_f32};
static const pte_k_unop k_floor = {floor_d, ident_i, floor_f32};
static const pte_k_unop k_unary_round = {round_d, ident_i, round_f32};
static const pte_k_unop k_trunc = {trunc_d, ident_i, trunc_f32};
static const pte_k_unop k_sign = {sign_d, sign_i, NULL};
static const pte_k_unop k_ident = {ident_d, ident_i, NULL};

static void ceil_out(pte_kernel_context *c, pte_evalue **a, size_t n) {
  pte_k_unary_kernel(c, a, n, 0, PTE_K_UNARY_SAME, false, &k_ceil, NULL, "ceil");
}
static void floor_out(pte_kernel_context *c, pte_evalue **a, size_t n) {
  pte_k_unary_kernel(c, a, n, 0, PTE_K_UNARY_SAME, false, &k_floor, NULL, "floor");
}
static void round_out(pte_kernel_context *c, pte_evalue **a, size_t n) {
  pte_k_unary_kernel(c, a, n, 0, PTE_K_UNARY_SAME, false, &k_unary_round, NULL, "round");
}
static void trunc_out(pte_kernel_context *c, pte_evalue **a, size_t n) {
  pte_k_unary_kernel(c, a, n, 0, PTE_K_UNARY_SAME, false, &k_trunc, NULL, "trunc");
}
static void sign_out(pte_kernel_context *c, pte_evalue **a, size_t n) {
  pte_k_unary_kernel(c, a, n, 0, PTE_K_UNARY_SAME, true, &k_sign, NULL, "sign");
}
/* _conj_physical.out: every supported dtype is real, so this is a copy. */
static void conj_physical_out(pte_kernel_context *c, pte_evalue **a, size_t n) {
  pte_k_unary_kernel(c, a, n, 0, PTE_K_UNARY_SAME, true, &k_ident, NULL, "_conj_physical");
}

/* ---- isinf / isnan: any real, bool, half or bfloat16 input; out must be bool ---- */

static double isinf_d(double x, void *p) {
  (void)p;
  return isinf(x) ? 1.0 : 0.0;
}
static double isnan_d(double x, void *p) {
  (void)p;
  return x != x ? 1.0 : 0.0;
}
static int64_t false_i(int64_t x, void *p) {
  (void)x;
  (void)p;
  return 0;
}
static const pte_k_unop k_isinf = {isinf_d, false_i, NULL};
static const pte_k_unop k_isnan = {isnan_d, false_i, NULL};

static void run_predicate(pte_kernel_context *c, pte_evalue **a, size_t n, const pte_k_unop *op,
                          const char *name) {
  if (!pte_k_check_nargs(c, n, 2, 3)) return;
  pte_tensor *in = pte_k_arg_tensor(c, a, n, 0);
  if (!in) return;
  pte_tensor *out = pte_k_arg_tensor(c, a, n, 1);
  if (!out) return;
  if (!pte_k_check_dtype(c, in->dtype, "self")) return;
  if (out->dtype != PTE_DTYPE_BOOL) {
    pte_kernel_fail(c, PTE_ERR_INVALID_ARGUMENT, "%s: out must be bool, got %s", name,
                    pte_dtype_name(out->dtype));
    return;
  }
  if (!pte_k_resize_like(c, out, in) || !pte_k_check_data(c, in, "self")) return;
  /* Computing in the input's own op-math dtype keeps every inf/NaN (half/bf16 widen exactly). */
  pte_k_ew_unary(in, out, pte_k_opmath(in->dtype), op, NULL);
  pte_k_set_return(a, n, 1);
}
static void isinf_out(pte_kernel_context *c, pte_evalue **a, size_t n) {
  run_predicate(c, a, n, &k_isinf, "isinf");
}
static void isnan_out(pte_kernel_context *c, pte_evalue **a, size_t n) {
  run_predicate(c, a, n, &k_isnan, "isnan");
}

const pte_kernel pte_portable_unary_kernels[] = {
    {"aten::neg.out", NULL, neg_out},     {"aten::exp.out", NULL, exp_out},
    {"aten::log.out", NULL, log_out},     {"aten::sqrt.out", NULL, sqrt_out},
    {"aten::rsqrt.out", NULL, rsqrt_out}, {"aten::abs.out", NULL, abs_out},
    {"aten::ceil.out", NULL, ceil_out},   {"aten::floor.out", NULL, floor_out},
    {"aten::round.out", NULL, round_out}, {"aten::trunc.out", NULL, trunc_out},
    {"aten::sign.out", NULL, sign_out},   {"aten::isinf.out", NULL, isinf_out},
    {"aten::isnan.out", NULL, isnan_out}, {"aten::_conj_physical.out", NULL, conj_physical_out},
};
const size_t pte_portable_unary_kernels_count =
    sizeof pte_portable_unary_kernels / sizeof pte_portable_unary_kernels[0];
