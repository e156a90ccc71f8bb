/* Shared helpers of the cortex_m kernels: the softmax fixed-point functions and argument checks.
 * See cm_internal.h. */
#include "cortex_m/cm_internal.h"

#include "portable/util/kutil.h"

/* ------------------------------------------------------------------------------------------ */
/* softmax fixed point (gemmlowp / TFLite Micro / CMSIS-NN, 5 integer bits on the input)       */

static int32_t mask_if_non_zero(int32_t x) { return x != 0 ? -1 : 0; }
static int32_t select_using_mask(int32_t mask, int32_t a, int32_t b) {
  return (int32_t)(((uint32_t)mask & (uint32_t)a) ^ (~(uint32_t)mask & (uint32_t)b));
}

/* exp(x) for x <= 0 in Q5.26, result in Q0.31. */
int32_t pte_cm_exp_on_negative_values(int32_t val) {
  int shift = 24;
  const int32_t val_mod_minus_quarter =
      pte_cm_sub32((int32_t)((uint32_t)val & ((1u << 24) - 1u)), (int32_t)(1 << 24));
  const int32_t remainder = pte_cm_sub32(val_mod_minus_quarter, val);
  const int32_t x = pte_cm_add32(pte_cm_shl32(val_mod_minus_quarter, 5), (int32_t)(1 << 28));
  const int32_t x2 = pte_cm_dhm_sat(x, x);

  /* 1895147668 + MUL_SAT(1895147668, x + DIV_POW2(MUL_SAT(DIV_POW2(MUL_SAT(x2, x2), 2) +
   *                                                        MUL_SAT(x2, x), 715827883) + x2, 1)) */
  const int32_t x4_over_4 = pte_cm_div_pow2(pte_cm_dhm_sat(x2, x2), 2);
  const int32_t x3 = pte_cm_dhm_sat(x2, x);
  const int32_t poly = pte_cm_dhm_sat(pte_cm_add32(x4_over_4, x3), 715827883);
  const int32_t inner = pte_cm_add32(x, pte_cm_div_pow2(pte_cm_add32(poly, x2), 1));
  int32_t result = pte_cm_add32(1895147668, pte_cm_dhm_sat(1895147668, inner));

  static const int32_t k_consts[7] = {1672461947, 1302514674, 790015084, 290630308,
                                      39332535,   720401,     242};
  for (int i = 0; i < 7; i++) {
    const int32_t mask = mask_if_non_zero((int32_t)((uint32_t)remainder & (1u << shift)));
    shift++;
    result = select_using_mask(mask, pte_cm_dhm_sat(result, k_consts[i]), result);
  }
  return select_using_mask(val == 0 ? -1 : 0, INT32_MAX, result);
}

int32_t pte_cm_mult_by_power_of_two(int32_t val, int exp) {
  const int32_t thresh = (int32_t)((1LL << (31 - exp)) - 1);
  int32_t result = pte_cm_shl32(val, exp);
  result = select_using_mask(mask_if_non_zero(val > thresh), INT32_MAX, result);
  result = select_using_mask(mask_if_non_zero(val < -thresh), INT32_MIN, result);
  return result;
}

/* 1 / (1 + x) for x in [0, 1) in Q0.31 via three Newton-Raphson steps (result in Q2.29 << 1). */
int32_t pte_cm_one_over_one_plus_x_for_x_in_0_1(int32_t val) {
  const int64_t sum = (int64_t)val + (int64_t)INT32_MAX;
  const int32_t half_denominator = (int32_t)((sum + (sum >= 0 ? 1 : -1)) / 2);
  int32_t x = pte_cm_add32(1515870810, pte_cm_dhm_sat(half_denominator, -1010580540));
  const int32_t shift = (int32_t)(1 << 29);
  for (int i = 0; i < 3; i++) {
    const int32_t t = pte_cm_sub32(shift, pte_cm_dhm_sat(half_denominator, x));
    x = pte_cm_add32(x, pte_cm_mult_by_power_of_two(pte_cm_dhm_sat(x, t), 2));
  }
  return pte_cm_mult_by_power_of_two(x, 1);
}

/* ------------------------------------------------------------------------------------------ */
/* argument helpers                                                                            */

bool pte_cm_check_nargs(pte_kernel_context *ctx, size_t nargs, size_t n_schema) {
  if (nargs != n_schema && nargs != n_schema + 1) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "expected %zu or %zu arguments, got %zu",
                    n_schema, n_schema + 1, nargs);
    return false;
  }
  return true;
}

static bool check_tensor_dtype(pte_kernel_context *ctx, const pte_tensor *t, int dtype,
                               const char *what) {
  if (dtype >= 0 && t->dtype != dtype) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "%s must be %s, got %s", what,
                    pte_dtype_name(dtype), pte_dtype_name(t->dtype));
    return false;
  }
  return pte_k_check_data(ctx, t, what);
}

pte_tensor *pte_cm_tensor_of(pte_kernel_context *ctx, pte_evalue **args, size_t nargs, size_t i,
                             int dtype, const char *what) {
  pte_tensor *t = pte_k_arg_tensor(ctx, args, nargs, i);
  if (!t) return NULL;
  return check_tensor_dtype(ctx, t, dtype, what) ? t : NULL;
}

pte_tensor *pte_cm_opt_tensor_of(pte_kernel_context *ctx, pte_evalue **args, size_t nargs,
                                 size_t i, int dtype, const char *what, bool *ok) {
  pte_tensor *t = pte_k_arg_opt_tensor(ctx, args, nargs, i, ok);
  if (!*ok || !t) return NULL;
  if (!check_tensor_dtype(ctx, t, dtype, what)) {
    *ok = false;
    return NULL;
  }
  return t;
}

bool pte_cm_int_arg(pte_kernel_context *ctx, pte_evalue **args, size_t nargs, size_t i,
                    int64_t *out) {
  return pte_k_arg_int(ctx, args, nargs, i, out);
}

bool pte_cm_i32_arg(pte_kernel_context *ctx, pte_evalue **args, size_t nargs, size_t i,
                    int32_t *out, const char *what) {
  int64_t v;
  if (!pte_k_arg_int(ctx, args, nargs, i, &v)) return false;
  if (v < INT32_MIN || v > INT32_MAX) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "%s (%lld) does not fit int32", what,
                    (long long)v);
    return false;
  }
  *out = (int32_t)v;
  return true;
}

bool pte_cm_int_list_n(pte_kernel_context *ctx, pte_evalue **args, size_t nargs, size_t i,
                       size_t n, int64_t lo, int64_t hi, int64_t *out, const char *what) {
  size_t len = 0;
  const int64_t *v = pte_k_arg_int_list(ctx, args, nargs, i, &len);
  if (!v) return false;
  if (len != n) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "%s must have %zu entries, got %zu", what, n,
                    len);
    return false;
  }
  for (size_t k = 0; k < n; k++) {
    if (v[k] < lo || v[k] > hi) {
      pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "%s[%zu] = %lld out of range [%lld, %lld]",
                      what, k, (long long)v[k], (long long)lo, (long long)hi);
      return false;
    }
    out[k] = v[k];
  }
  return true;
}

int32_t pte_cm_param_at(const pte_tensor *t, int64_t k) {
  const int64_t off = pte_k_offset_of_linear(t, (size_t)k);
  if (t->dtype == PTE_DTYPE_LONG) return (int32_t)((const int64_t *)t->data)[off];
  return ((const int32_t *)t->data)[off];
}

bool pte_cm_check_param_tensor(pte_kernel_context *ctx, const pte_tensor *t, int64_t n,
                               const char *what) {
  if (t->dtype != PTE_DTYPE_INT && t->dtype != PTE_DTYPE_LONG) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "%s must be int32 or int64, got %s", what,
                    pte_dtype_name(t->dtype));
    return false;
  }
  if ((int64_t)t->numel != n) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "%s has %zu elements, expected %lld", what,
                    t->numel, (long long)n);
    return false;
  }
  if (!pte_k_check_data(ctx, t, what)) return false;
  if (t->dtype == PTE_DTYPE_LONG) {
    for (int64_t k = 0; k < n; k++) {
      const int64_t v = ((const int64_t *)t->data)[pte_k_offset_of_linear(t, (size_t)k)];
      if (v < INT32_MIN || v > INT32_MAX) {
        pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "%s[%lld] does not fit int32", what,
                        (long long)k);
        return false;
      }
    }
  }
  return true;
}

bool pte_cm_check_requant(pte_kernel_context *ctx, int64_t multiplier, int64_t shift,
                          int64_t max_shift, const char *what) {
  if (multiplier <= INT32_MIN || multiplier > INT32_MAX) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "%s multiplier %lld outside (INT32_MIN, INT32_MAX]",
                    what, (long long)multiplier);
    return false;
  }
  if (shift < -31 || shift > max_shift) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "%s shift %lld outside [-31, %lld]", what,
                    (long long)shift, (long long)max_shift);
    return false;
  }
  return true;
}

bool pte_cm_check_zp(pte_kernel_context *ctx, int64_t zp, const char *what) {
  if (zp < -128 || zp > 127) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "%s %lld is not an int8 zero point", what,
                    (long long)zp);
    return false;
  }
  return true;
}

bool pte_cm_check_act(pte_kernel_context *ctx, int64_t lo, int64_t hi) {
  if (lo < -128 || hi > 127 || lo > hi) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT,
                    "activation range [%lld, %lld] is not an int8 range", (long long)lo,
                    (long long)hi);
    return false;
  }
  return true;
}

bool pte_cm_is_nhwc_dense(const pte_tensor *t) {
  if (t->dim != 4) return false;
  const int64_t C = t->sizes[1], H = t->sizes[2], W = t->sizes[3];
  return (C == 1 || t->strides[1] == 1) && (W == 1 || t->strides[3] == C) &&
         (H == 1 || t->strides[2] == C * W) && (t->sizes[0] == 1 || t->strides[0] == C * H * W);
}

bool pte_cm_resize(pte_kernel_context *ctx, pte_tensor *out, const int32_t *sizes, int32_t dim) {
  return pte_k_resize_out(ctx, out, sizes, dim);
}

void pte_cm_set_return(pte_evalue **args, size_t nargs, size_t out_idx) {
  pte_k_set_return(args, nargs, out_idx);
}
