/* kernels/portable/op_unary.c — neg, exp, log, sqrt, rsqrt, abs. */
#include <math.h>

#include "portable/portable_unary.h"
#include "portable/util/elementwise.h"
#include "portable/util/kutil.h"

static inline int64_t u2i(uint64_t u) {
  return u <= (uint64_t)INT64_MAX ? (int64_t)u : -(int64_t)(~u) - 1;
}

#define F32_RUN1(name, EXPR)                                                                   \
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
  return u2i(0u - (uint64_t)x);
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
  return x < 0 ? u2i(0u - (uint64_t)x) : x;
}

F32_RUN1(neg_f32, -x)
F32_RUN1(exp_f32, expf(x))
F32_RUN1(log_f32, logf(x))
F32_RUN1(sqrt_f32, sqrtf(x))
F32_RUN1(rsqrt_f32, 1.0f / sqrtf(x))
F32_RUN1(abs_f32, fabsf(x))

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

const pte_kernel pte_portable_unary_kernels[] = {
    {"aten::neg.out", NULL, neg_out},     {"aten::exp.out", NULL, exp_out},
    {"aten::log.out", NULL, log_out},     {"aten::sqrt.out", NULL, sqrt_out},
    {"aten::rsqrt.out", NULL, rsqrt_out}, {"aten::abs.out", NULL, abs_out},
};
const size_t pte_portable_unary_kernels_count =
    sizeof pte_portable_unary_kernels / sizeof pte_portable_unary_kernels[0];
