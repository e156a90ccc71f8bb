/* kernels/cortex_m/cm_internal.h — shared pieces of the cortex_m (CMSIS-NN compatible) kernels.
 *
 * Internal header (not installed). Two parts:
 *
 * 1. Fixed-point arithmetic, bit-exact with CMSIS-NN's scalar C code in its DEFAULT build
 *    configuration (CMSIS_NN_USE_SINGLE_ROUNDING not defined, which is what CMSIS-NN's CMake and
 *    ExecuTorch's cortex_m backend use). Every value is computed on the two's-complement int32
 *    the Cortex-M hardware would hold; intermediate overflow wraps exactly as it does on the
 *    target (we compute through uint32/int64 so the host compiler never sees signed overflow).
 *
 *    Requantization ("double rounding", arm_nn_requantize default branch):
 *        requantize(v, M, s) = rdiv2(dhm(v * 2^max(s,0), M), max(-s,0))
 *      where
 *        dhm(a, b)   = (a * b + 2^30) >> 31              (64-bit product, arithmetic shift:
 *                                                        rounds half toward +infinity)
 *        rdiv2(x, e) = x / 2^e rounded to nearest, ties AWAY from zero
 *      M is a Q31 multiplier in (INT32_MIN, INT32_MAX], s in [-31, 30] (positive = left shift).
 *
 * 2. Argument helpers shared by the cortex_m op files (int8 tensor checks, per-channel
 *    parameter tensors, the trailing-return convention).
 */
#ifndef PTE_KERNELS_CORTEX_M_CM_INTERNAL_H
#define PTE_KERNELS_CORTEX_M_CM_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pte/evalue.h"
#include "pte/kernel.h"
#include "pte/tensor.h"

/* ------------------------------------------------------------------------------------------ */
/* wrap-around int32 arithmetic (what the target computes)                                     */

static inline int32_t pte_cm_wrap32(int64_t v) {
  uint32_t u = (uint32_t)((uint64_t)v & 0xFFFFFFFFu);
  return u <= 0x7FFFFFFFu ? (int32_t)u : (int32_t)(int64_t)((int64_t)u - 4294967296LL);
}
static inline int32_t pte_cm_add32(int32_t a, int32_t b) { return pte_cm_wrap32((int64_t)a + b); }
static inline int32_t pte_cm_sub32(int32_t a, int32_t b) { return pte_cm_wrap32((int64_t)a - b); }
static inline int32_t pte_cm_mul32(int32_t a, int32_t b) { return pte_cm_wrap32((int64_t)a * b); }
/* a << n on the 32-bit register (n in [0, 31]). */
static inline int32_t pte_cm_shl32(int32_t a, int n) {
  return pte_cm_wrap32((int64_t)(((uint64_t)(uint32_t)a << n) & 0xFFFFFFFFu));
}
/* Arithmetic (flooring) right shift of a signed 64-bit value, portable for negative values. */
static inline int64_t pte_cm_asr64(int64_t v, int n) {
  if (n <= 0) return v;
  if (n >= 63) return v < 0 ? -1 : 0;
  return v >= 0 ? (v >> n) : -(int64_t)(((uint64_t)(-(v + 1)) >> n)) - 1;
}
static inline int32_t pte_cm_asr32(int32_t v, int n) { return (int32_t)pte_cm_asr64(v, n); }

/* arm_nn_doubling_high_mult_no_sat: (m1 * m2 + 2^30) >> 31 (floor shift). */
static inline int32_t pte_cm_dhm_no_sat(int32_t m1, int32_t m2) {
  return pte_cm_wrap32(pte_cm_asr64((int64_t)m1 * m2 + (1LL << 30), 31));
}

/* arm_nn_doubling_high_mult (saturating, VQRDMULH-like): rounding offset +-2^30 by sign of the
 * product, truncating division by 2^31, INT32_MIN*INT32_MIN saturates to INT32_MAX. */
static inline int32_t pte_cm_dhm_sat(int32_t m1, int32_t m2) {
  int64_t mult = 1LL << 30;
  if ((m1 < 0) != (m2 < 0)) mult = 1 - mult;
  mult += (int64_t)m1 * m2;
  int32_t r = pte_cm_wrap32(mult / (1LL << 31));
  if (m1 == m2 && m1 == INT32_MIN) r = INT32_MAX;
  return r;
}

/* arm_nn_divide_by_power_of_two: round(dividend / 2^exponent), ties away from zero.
 * exponent in [0, 31]. */
static inline int32_t pte_cm_div_pow2(int32_t dividend, int exponent) {
  if (exponent <= 0) return dividend;
  if (exponent > 31) exponent = 31;
  const int32_t mask = (int32_t)((1LL << exponent) - 1);
  const int32_t remainder = (int32_t)((uint32_t)dividend & (uint32_t)mask);
  int32_t result = pte_cm_asr32(dividend, exponent);
  int32_t threshold = mask >> 1;
  if (result < 0) threshold++;
  if (remainder > threshold) result++;
  return result;
}

/* arm_nn_requantize, default (double rounding) branch; see the header comment. */
static inline int32_t pte_cm_requantize(int32_t val, int32_t multiplier, int32_t shift) {
  const int left = shift > 0 ? shift : 0;
  const int right = shift > 0 ? 0 : -shift;
  return pte_cm_div_pow2(pte_cm_dhm_no_sat(pte_cm_shl32(val, left), multiplier), right);
}

static inline int32_t pte_cm_clamp32(int32_t v, int32_t lo, int32_t hi) {
  return v < lo ? lo : (v > hi ? hi : v);
}

/* Softmax helpers (arm_nn_exp_on_negative_values, arm_nn_one_over_one_plus_x_for_x_in_0_1,
 * arm_nn_mult_by_power_of_two), implemented in cm_common.c. */
int32_t pte_cm_exp_on_negative_values(int32_t val);
int32_t pte_cm_one_over_one_plus_x_for_x_in_0_1(int32_t val);
int32_t pte_cm_mult_by_power_of_two(int32_t val, int exp);

/* ------------------------------------------------------------------------------------------ */
/* argument helpers                                                                            */

/* Checks nargs is n_schema (inputs + out) or n_schema + 1 (trailing return alias). */
bool pte_cm_check_nargs(pte_kernel_context *ctx, size_t nargs, size_t n_schema);
/* args[i] as a tensor of dtype `dtype` (failing InvalidArgument naming `what` otherwise). */
pte_tensor *pte_cm_tensor_of(pte_kernel_context *ctx, pte_evalue **args, size_t nargs, size_t i,
                             int dtype, const char *what);
/* Like pte_cm_tensor_of but None is allowed (returns NULL with *ok true). */
pte_tensor *pte_cm_opt_tensor_of(pte_kernel_context *ctx, pte_evalue **args, size_t nargs,
                                 size_t i, int dtype, const char *what, bool *ok);
/* Int argument (an integral Double is accepted too). */
bool pte_cm_int_arg(pte_kernel_context *ctx, pte_evalue **args, size_t nargs, size_t i,
                    int64_t *out);
/* Int argument that must fit int32. */
bool pte_cm_i32_arg(pte_kernel_context *ctx, pte_evalue **args, size_t nargs, size_t i,
                    int32_t *out, const char *what);
/* int[] argument of exactly `n` entries, each in [lo, hi] (copied to out). */
bool pte_cm_int_list_n(pte_kernel_context *ctx, pte_evalue **args, size_t nargs, size_t i,
                       size_t n, int64_t lo, int64_t hi, int64_t *out, const char *what);
/* A per-channel int32 parameter tensor (dtype INT or LONG) with exactly n elements; element k
 * is read with pte_cm_param_at(). Values must fit int32. */
bool pte_cm_check_param_tensor(pte_kernel_context *ctx, const pte_tensor *t, int64_t n,
                               const char *what);
int32_t pte_cm_param_at(const pte_tensor *t, int64_t k);
/* Validates CMSIS-NN requantization parameters: multiplier in (INT32_MIN, INT32_MAX], shift in
 * [-31, max_shift] (upstream accepts 31 for the per-tensor scalar parameters and 30 for the
 * per-channel tensors). */
bool pte_cm_check_requant(pte_kernel_context *ctx, int64_t multiplier, int64_t shift,
                          int64_t max_shift, const char *what);
/* Validates a zero point in the int8 range. */
bool pte_cm_check_zp(pte_kernel_context *ctx, int64_t zp, const char *what);
/* Validates an activation clamp [lo, hi] within int8 and lo <= hi. */
bool pte_cm_check_act(pte_kernel_context *ctx, int64_t lo, int64_t hi);
/* True when t is a 4-D tensor whose data is channels-last dense (or the layouts coincide). */
bool pte_cm_is_nhwc_dense(const pte_tensor *t);
/* Resizes out, fails InvalidArgument if impossible. */
bool pte_cm_resize(pte_kernel_context *ctx, pte_tensor *out, const int32_t *sizes, int32_t dim);
/* Makes the trailing return slot (if any) alias args[out_idx]. */
void pte_cm_set_return(pte_evalue **args, size_t nargs, size_t out_idx);

/* Element offset of logical coordinates (n, c, h, w) in a 4-D tensor. */
static inline int64_t pte_cm_off4(const pte_tensor *t, int64_t n, int64_t c, int64_t h,
                                  int64_t w) {
  return n * t->strides[0] + c * t->strides[1] + h * t->strides[2] + w * t->strides[3];
}

#endif
