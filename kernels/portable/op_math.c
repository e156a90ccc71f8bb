/* kernels/portable/op_math.c — trigonometric, hyperbolic, erf, expm1, log1p, log2, log10,
 * reciprocal and logit (see portable_math.h). */
#include <math.h>

#include "portable/portable_math.h"
#include "portable/util/elementwise.h"
#include "portable/util/kutil.h"

/* One element function in double, one float32 run using the float libm function. */
#define MATH_OP(name, DEXPR, FEXPR)                                                          \
  static double name##_d(double x, void *p) {                                                \
    (void)p;                                                                                 \
    return (DEXPR);                                                                          \
  }                                                                                          \
  static void name##_f32(float *o, const float *a, int64_t n, int64_t so, int64_t sa,       \
                         void *p) {                                                          \
    (void)p;                                                                                 \
    if (so == 1 && sa == 1) {                                                                \
      for (int64_t i = 0; i < n; i++) {                                                      \
        float x = a[i];                                                                      \
        o[i] = (FEXPR);                                                                      \
      }                                                                                      \
      return;                                                                                \
    }                                                                                        \
    for (int64_t i = 0; i < n; i++) {                                                        \
      float x = a[i * sa];                                                                   \
      o[i * so] = (FEXPR);                                                                   \
    }                                                                                        \
  }                                                                                          \
  static const pte_k_unop k_##name = {name##_d, NULL, name##_f32};                          \
  static void name##_out(pte_kernel_context *c, pte_evalue **a, size_t n) {                \
    pte_k_unary_kernel(c, a, n, 0, PTE_K_UNARY_TO_FLOAT, true, &k_##name, NULL, #name);    \
  }

MATH_OP(acos, acos(x), acosf(x))
MATH_OP(acosh, acosh(x), acoshf(x))
MATH_OP(asin, asin(x), asinf(x))
MATH_OP(asinh, asinh(x), asinhf(x))
MATH_OP(atan, atan(x), atanf(x))
MATH_OP(atanh, atanh(x), atanhf(x))
MATH_OP(cos, cos(x), cosf(x))
MATH_OP(cosh, cosh(x), coshf(x))
MATH_OP(sin, sin(x), sinf(x))
MATH_OP(sinh, sinh(x), sinhf(x))
MATH_OP(tan, tan(x), tanf(x))
MATH_OP(erf, erf(x), erff(x))
MATH_OP(expm1, expm1(x), expm1f(x))
MATH_OP(log1p, log1p(x), log1pf(x))
MATH_OP(log2, log2(x), log2f(x))
MATH_OP(log10, log10(x), log10f(x))
MATH_OP(reciprocal, 1.0 / x, 1.0f / x)

/* logit.out(Tensor self, float? eps=None, *, Tensor(a!) out): log(z / (1 - z)) where z is self
 * clamped to [eps, 1 - eps] when eps is given (a NaN self stays NaN). */
typedef struct logit_params {
  bool clamp;
  double lo, hi;
  float lo_f, hi_f;
} logit_params;

static double logit_d(double x, void *pv) {
  const logit_params *P = (const logit_params *)pv;
  if (P->clamp) x = x < P->lo ? P->lo : (x > P->hi ? P->hi : x);
  return log(x / (1.0 - x));
}
static void logit_f32(float *o, const float *a, int64_t n, int64_t so, int64_t sa, void *pv) {
  const logit_params *P = (const logit_params *)pv;
  for (int64_t i = 0; i < n; i++) {
    float x = a[i * sa];
    if (P->clamp) x = x < P->lo_f ? P->lo_f : (x > P->hi_f ? P->hi_f : x);
    o[i * so] = logf(x / (1.0f - x));
  }
}
static const pte_k_unop k_logit = {logit_d, NULL, logit_f32};

static void logit_out(pte_kernel_context *c, pte_evalue **a, size_t n) {
  if (!pte_k_check_nargs(c, n, 3, 4)) return;
  logit_params P = {false, 0.0, 0.0, 0.0f, 0.0f};
  if (!pte_k_arg_is_none(a, n, 1)) {
    double eps;
    if (!pte_k_arg_is_scalar(a, n, 1) || !pte_k_arg_double(c, a, n, 1, &eps)) {
      pte_kernel_fail(c, PTE_ERR_INVALID_ARGUMENT, "logit: eps must be a float or None");
      return;
    }
    /* ATen: a negative eps means no clamping (as None). */
    if (eps >= 0.0) {
      P.clamp = true;
      P.lo = eps;
      P.hi = 1.0 - eps;
      P.lo_f = (float)P.lo;
      P.hi_f = (float)P.hi;
    }
  }
  pte_k_unary_kernel(c, a, n, 1, PTE_K_UNARY_TO_FLOAT, true, &k_logit, &P, "logit");
}

const pte_kernel pte_portable_umath_kernels[] = {
    {"aten::acos.out", NULL, acos_out},
    {"aten::acosh.out", NULL, acosh_out},
    {"aten::asin.out", NULL, asin_out},
    {"aten::asinh.out", NULL, asinh_out},
    {"aten::atan.out", NULL, atan_out},
    {"aten::atanh.out", NULL, atanh_out},
    {"aten::cos.out", NULL, cos_out},
    {"aten::cosh.out", NULL, cosh_out},
    {"aten::sin.out", NULL, sin_out},
    {"aten::sinh.out", NULL, sinh_out},
    {"aten::tan.out", NULL, tan_out},
    {"aten::erf.out", NULL, erf_out},
    {"aten::expm1.out", NULL, expm1_out},
    {"aten::log1p.out", NULL, log1p_out},
    {"aten::log2.out", NULL, log2_out},
    {"aten::log10.out", NULL, log10_out},
    {"aten::reciprocal.out", NULL, reciprocal_out},
    {"aten::logit.out", NULL, logit_out},
};
const size_t pte_portable_umath_kernels_count =
    sizeof pte_portable_umath_kernels / sizeof pte_portable_umath_kernels[0];
