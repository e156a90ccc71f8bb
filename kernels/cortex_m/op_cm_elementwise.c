/* cortex_m elementwise int8 kernels (CMSIS-NN arm_elementwise_add_s8 / arm_elementwise_mul_s8 /
 * arm_maximum_s8 / arm_minimum_s8 arithmetic):
 *
 *   cortex_m::quantized_add.out(Tensor self, int self_zero_point, int self_multiplier,
 *       int self_shift, Tensor other, int other_zero_point, int other_multiplier, int other_shift,
 *       int output_zero_point, int output_multiplier, int output_shift, int activation_min,
 *       int activation_max, *, Tensor(a!) out)
 *     (the older 11-scalar form without activation_min/max is accepted too: clamp to int8)
 *       a = requantize((x1 - zp1) << 20, m1, s1); b = requantize((x2 - zp2) << 20, m2, s2)
 *       y = clamp(requantize(a + b, mo, so) + zpo, activation_min, activation_max)
 *   cortex_m::quantized_mul.out(Tensor self, int self_zero_point, Tensor other,
 *       int other_zero_point, int output_zero_point, int output_multiplier, int output_shift, *,
 *       Tensor(a!) out)
 *       y = clamp(requantize((x1 - zp1) * (x2 - zp2), mo, so) + zpo, -128, 127)
 *   cortex_m::quantized_div.out(Tensor self, int self_zero_point, Tensor other,
 *       int other_zero_point, int output_zero_point, float output_scale, *, Tensor(a!) out)
 *     (also the C++ runtime form with int output_multiplier, int output_shift instead of
 *      output_scale: scale = ldexpf((float)multiplier / 2^31, shift))
 *       y = clamp(roundf(((float)(x1 - zp1) / (float)(x2 - zp2)) * scale) + zpo, dtype range),
 *       a zero divisor gives quotient 0; int8 or int16, equal shapes (no broadcasting), roundf
 *       rounds ties away from zero (std::round of the reference kernel).
 *   cortex_m::quantized_activation.out(Tensor input, Tensor lut, *, Tensor(a!) out)
 *       y = lut[x + 128] (lut: 256 int8 entries)
 *   cortex_m::minimum.out / cortex_m::maximum.out(Tensor self, Tensor other, *, Tensor(a!) out)
 *       int8 min / max with numpy broadcasting.
 *
 * add, mul, minimum and maximum broadcast with numpy rules (a superset of the channel
 * broadcast upstream lowers to). Every tensor may have any dim order.
 */
#include <math.h>

#include "cortex_m/cm_internal.h"
#include "cortex_m/cm_ops.h"
#include "cortex_m/cm_simd.h"
#include "portable/util/kutil.h"

#define CM_ADD_LEFT_SHIFT 20

/* Broadcasts a and b into out (resized) and prepares the walk over (out, a, b). */
static bool binary_setup(pte_kernel_context *ctx, const pte_tensor *a, const pte_tensor *b,
                         pte_tensor *out, pte_k_iter *it, bool *nonempty) {
  int32_t sizes[PTE_MAX_RANK];
  int32_t dim = 0;
  if (pte_k_broadcast_shape(a, b, sizes, &dim) != PTE_OK) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "shapes cannot be broadcast together");
    return false;
  }
  if (!pte_cm_resize(ctx, out, sizes, dim)) return false;
  const pte_tensor *ops[3] = {out, a, b};
  *nonempty = pte_k_iter_init(it, out->sizes, out->dim, ops, 3);
  return true;
}

/* True when a, b and out have one shape and one dense layout: a linear walk in memory order
 * (the SIMD paths of add / mul, cm_simd.h). */
static bool same_dense(const pte_tensor *a, const pte_tensor *b, const pte_tensor *out) {
  return pte_cm_simd_active() != PTE_CM_ISA_PORTABLE && pte_k_same_shape(a, b) &&
         pte_k_same_shape(a, out) && pte_k_same_dim_order(a, b) && pte_k_same_dim_order(a, out) &&
         pte_k_is_dense(a) && pte_k_is_dense(b) && pte_k_is_dense(out);
}

/* ------------------------------------------------------------------------------------------ */

static void cm_quantized_add(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  bool with_act;
  size_t out_idx;
  if (nargs == 14 || nargs == 15) {
    with_act = true;
    out_idx = 13;
  } else if (nargs == 12 || nargs == 13) {
    with_act = false;
    out_idx = 11;
  } else {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "expected 14 or 15 arguments, got %zu", nargs);
    return;
  }
  pte_tensor *a = pte_cm_tensor_of(ctx, args, nargs, 0, PTE_DTYPE_CHAR, "self");
  pte_tensor *b = pte_cm_tensor_of(ctx, args, nargs, 4, PTE_DTYPE_CHAR, "other");
  pte_tensor *out = pte_cm_tensor_of(ctx, args, nargs, out_idx, PTE_DTYPE_CHAR, "out");
  if (!a || !b || !out) return;
  int64_t p[11];
  const size_t idx[11] = {1, 2, 3, 5, 6, 7, 8, 9, 10, 11, 12};
  const size_t np = with_act ? 11 : 9;
  for (size_t k = 0; k < np; k++)
    if (!pte_k_arg_int(ctx, args, nargs, idx[k], &p[k])) return;
  if (!with_act) {
    p[9] = -128;
    p[10] = 127;
  }
  if (!pte_cm_check_zp(ctx, p[0], "self_zero_point") ||
      !pte_cm_check_requant(ctx, p[1], p[2], 31, "self") ||
      !pte_cm_check_zp(ctx, p[3], "other_zero_point") ||
      !pte_cm_check_requant(ctx, p[4], p[5], 31, "other") ||
      !pte_cm_check_zp(ctx, p[6], "output_zero_point") ||
      !pte_cm_check_requant(ctx, p[7], p[8], 31, "output") || !pte_cm_check_act(ctx, p[9], p[10]))
    return;
  const int32_t off1 = (int32_t)-p[0], m1 = (int32_t)p[1], s1 = (int32_t)p[2];
  const int32_t off2 = (int32_t)-p[3], m2 = (int32_t)p[4], s2 = (int32_t)p[5];
  const int32_t zpo = (int32_t)p[6], mo = (int32_t)p[7], so = (int32_t)p[8];
  const int32_t lo = (int32_t)p[9], hi = (int32_t)p[10];

  pte_k_iter it;
  bool nonempty;
  if (!binary_setup(ctx, a, b, out, &it, &nonempty)) return;
  const int8_t *pa = (const int8_t *)a->data, *pb = (const int8_t *)b->data;
  int8_t *po = (int8_t *)out->data;
  if (nonempty && same_dense(a, b, out)) {
    const pte_cm_addmul e = {pa, pb, po, (int64_t)out->numel, false, off1, m1, s1, off2, m2, s2,
                             mo, so, zpo, lo, hi};
    if (pte_cm_simd_addmul(&e)) nonempty = false;
  }
  if (nonempty) {
    do {
      for (int64_t j = 0; j < it.inner; j++) {
        const int32_t x1 = (int32_t)pa[it.off[1] + j * it.istride[1]] + off1;
        const int32_t x2 = (int32_t)pb[it.off[2] + j * it.istride[2]] + off2;
        const int32_t r1 = pte_cm_requantize(pte_cm_shl32(x1, CM_ADD_LEFT_SHIFT), m1, s1);
        const int32_t r2 = pte_cm_requantize(pte_cm_shl32(x2, CM_ADD_LEFT_SHIFT), m2, s2);
        int32_t sum = pte_cm_requantize(pte_cm_add32(r1, r2), mo, so);
        sum = pte_cm_add32(sum, zpo);
        po[it.off[0] + j * it.istride[0]] = (int8_t)pte_cm_clamp32(sum, lo, hi);
      }
    } while (pte_k_iter_next(&it));
  }
  pte_cm_set_return(args, nargs, out_idx);
}

static void cm_quantized_mul(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  if (!pte_cm_check_nargs(ctx, nargs, 8)) return;
  pte_tensor *a = pte_cm_tensor_of(ctx, args, nargs, 0, PTE_DTYPE_CHAR, "self");
  pte_tensor *b = pte_cm_tensor_of(ctx, args, nargs, 2, PTE_DTYPE_CHAR, "other");
  pte_tensor *out = pte_cm_tensor_of(ctx, args, nargs, 7, PTE_DTYPE_CHAR, "out");
  if (!a || !b || !out) return;
  int64_t zp1, zp2, zpo, mo, so;
  if (!pte_k_arg_int(ctx, args, nargs, 1, &zp1) || !pte_k_arg_int(ctx, args, nargs, 3, &zp2) ||
      !pte_k_arg_int(ctx, args, nargs, 4, &zpo) || !pte_k_arg_int(ctx, args, nargs, 5, &mo) ||
      !pte_k_arg_int(ctx, args, nargs, 6, &so))
    return;
  if (!pte_cm_check_zp(ctx, zp1, "self_zero_point") ||
      !pte_cm_check_zp(ctx, zp2, "other_zero_point") ||
      !pte_cm_check_zp(ctx, zpo, "output_zero_point") ||
      !pte_cm_check_requant(ctx, mo, so, 31, "output"))
    return;
  pte_k_iter it;
  bool nonempty;
  if (!binary_setup(ctx, a, b, out, &it, &nonempty)) return;
  const int8_t *pa = (const int8_t *)a->data, *pb = (const int8_t *)b->data;
  int8_t *po = (int8_t *)out->data;
  if (nonempty && same_dense(a, b, out)) {
    const pte_cm_addmul e = {pa, pb, po, (int64_t)out->numel, true, (int32_t)-zp1, 0, 0,
                             (int32_t)-zp2, 0, 0, (int32_t)mo, (int32_t)so, (int32_t)zpo, -128, 127};
    if (pte_cm_simd_addmul(&e)) nonempty = false;
  }
  if (nonempty) {
    do {
      for (int64_t j = 0; j < it.inner; j++) {
        const int32_t x1 = (int32_t)pa[it.off[1] + j * it.istride[1]] - (int32_t)zp1;
        const int32_t x2 = (int32_t)pb[it.off[2] + j * it.istride[2]] - (int32_t)zp2;
        int32_t r = pte_cm_requantize(x1 * x2, (int32_t)mo, (int32_t)so);
        r = pte_cm_add32(r, (int32_t)zpo);
        po[it.off[0] + j * it.istride[0]] = (int8_t)pte_cm_clamp32(r, -128, 127);
      }
    } while (pte_k_iter_next(&it));
  }
  pte_cm_set_return(args, nargs, 7);
}

static void cm_quantized_div(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  /* 7 schema args (float output_scale) or 8 (int multiplier, int shift); + optional return. */
  bool scale_form;
  if (nargs == 7) {
    scale_form = true;
  } else if (nargs == 9) {
    scale_form = false;
  } else if (nargs == 8) {
    scale_form = args[5] && args[5]->tag == PTE_TAG_DOUBLE;
  } else {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "expected 7 or 8 arguments, got %zu", nargs);
    return;
  }
  const size_t out_idx = scale_form ? 6 : 7;
  pte_tensor *out = pte_k_arg_tensor(ctx, args, nargs, out_idx);
  if (!out) return;
  const int dt = out->dtype;
  if (dt != PTE_DTYPE_CHAR && dt != PTE_DTYPE_SHORT) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "quantized_div supports int8 and int16, got %s",
                    pte_dtype_name(dt));
    return;
  }
  pte_tensor *a = pte_cm_tensor_of(ctx, args, nargs, 0, dt, "self");
  pte_tensor *b = pte_cm_tensor_of(ctx, args, nargs, 2, dt, "other");
  if (!a || !b || !pte_k_check_data(ctx, out, "out")) return;
  if (!pte_k_same_shape(a, b)) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "quantized_div needs equal shapes");
    return;
  }
  int64_t zp1, zp2, zpo;
  if (!pte_k_arg_int(ctx, args, nargs, 1, &zp1) || !pte_k_arg_int(ctx, args, nargs, 3, &zp2) ||
      !pte_k_arg_int(ctx, args, nargs, 4, &zpo))
    return;
  const int64_t tmin = dt == PTE_DTYPE_CHAR ? -128 : -32768;
  const int64_t tmax = dt == PTE_DTYPE_CHAR ? 127 : 32767;
  if (zp1 < tmin || zp1 > tmax || zp2 < tmin || zp2 > tmax || zpo < tmin || zpo > tmax) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "zero points must fit %s", pte_dtype_name(dt));
    return;
  }
  float scale;
  if (scale_form) {
    double d;
    if (!pte_k_arg_double(ctx, args, nargs, 5, &d)) return;
    scale = (float)d;
  } else {
    int64_t m, s;
    if (!pte_k_arg_int(ctx, args, nargs, 5, &m) || !pte_k_arg_int(ctx, args, nargs, 6, &s)) return;
    if (!pte_cm_check_requant(ctx, m, s, 31, "output")) return;
    scale = ldexpf((float)m / (float)(1LL << 31), (int)s);
  }
  if (!pte_cm_resize(ctx, out, a->sizes, a->dim)) return;
  const pte_tensor *ops[3] = {out, a, b};
  pte_k_iter it;
  if (pte_k_iter_init(&it, out->sizes, out->dim, ops, 3)) {
    do {
      for (int64_t j = 0; j < it.inner; j++) {
        const int64_t ia = it.off[1] + j * it.istride[1], ib = it.off[2] + j * it.istride[2];
        const int32_t xa = dt == PTE_DTYPE_CHAR ? ((const int8_t *)a->data)[ia]
                                                : ((const int16_t *)a->data)[ia];
        const int32_t xb = dt == PTE_DTYPE_CHAR ? ((const int8_t *)b->data)[ib]
                                                : ((const int16_t *)b->data)[ib];
        const int32_t num = xa - (int32_t)zp1, den = xb - (int32_t)zp2;
        const float q = den != 0 ? (float)num / (float)den : 0.0f;
        const float r = roundf(q * scale);
        int64_t v = r >= 2147483647.0f ? INT32_MAX : (r <= -2147483648.0f ? INT32_MIN : (int64_t)r);
        v += zpo;
        if (v < tmin) v = tmin;
        if (v > tmax) v = tmax;
        const int64_t io = it.off[0] + j * it.istride[0];
        if (dt == PTE_DTYPE_CHAR)
          ((int8_t *)out->data)[io] = (int8_t)v;
        else
          ((int16_t *)out->data)[io] = (int16_t)v;
      }
    } while (pte_k_iter_next(&it));
  }
  pte_cm_set_return(args, nargs, out_idx);
}

static void cm_quantized_activation(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  if (!pte_cm_check_nargs(ctx, nargs, 3)) return;
  pte_tensor *in = pte_cm_tensor_of(ctx, args, nargs, 0, PTE_DTYPE_CHAR, "input");
  pte_tensor *lut = pte_cm_tensor_of(ctx, args, nargs, 1, PTE_DTYPE_CHAR, "lut");
  pte_tensor *out = pte_cm_tensor_of(ctx, args, nargs, 2, PTE_DTYPE_CHAR, "out");
  if (!in || !lut || !out) return;
  if (lut->numel != 256) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "lut must have 256 entries, got %zu",
                    lut->numel);
    return;
  }
  int8_t table[256];
  for (size_t k = 0; k < 256; k++)
    table[k] = ((const int8_t *)lut->data)[pte_k_offset_of_linear(lut, k)];
  if (!pte_cm_resize(ctx, out, in->sizes, in->dim)) return;
  const pte_tensor *ops[2] = {out, in};
  pte_k_iter it;
  const int8_t *src = (const int8_t *)in->data;
  int8_t *dst = (int8_t *)out->data;
  if (pte_k_iter_init(&it, out->sizes, out->dim, ops, 2)) {
    do {
      for (int64_t j = 0; j < it.inner; j++)
        dst[it.off[0] + j * it.istride[0]] =
            table[(uint8_t)((int32_t)src[it.off[1] + j * it.istride[1]] + 128)];
    } while (pte_k_iter_next(&it));
  }
  pte_cm_set_return(args, nargs, 2);
}

static void minmax(pte_kernel_context *ctx, pte_evalue **args, size_t nargs, bool is_max) {
  if (!pte_cm_check_nargs(ctx, nargs, 3)) return;
  pte_tensor *a = pte_cm_tensor_of(ctx, args, nargs, 0, PTE_DTYPE_CHAR, "self");
  pte_tensor *b = pte_cm_tensor_of(ctx, args, nargs, 1, PTE_DTYPE_CHAR, "other");
  pte_tensor *out = pte_cm_tensor_of(ctx, args, nargs, 2, PTE_DTYPE_CHAR, "out");
  if (!a || !b || !out) return;
  pte_k_iter it;
  bool nonempty;
  if (!binary_setup(ctx, a, b, out, &it, &nonempty)) return;
  const int8_t *pa = (const int8_t *)a->data, *pb = (const int8_t *)b->data;
  int8_t *po = (int8_t *)out->data;
  if (nonempty) {
    do {
      for (int64_t j = 0; j < it.inner; j++) {
        const int8_t x = pa[it.off[1] + j * it.istride[1]];
        const int8_t y = pb[it.off[2] + j * it.istride[2]];
        po[it.off[0] + j * it.istride[0]] = is_max ? (x >= y ? x : y) : (x <= y ? x : y);
      }
    } while (pte_k_iter_next(&it));
  }
  pte_cm_set_return(args, nargs, 2);
}

static void cm_maximum(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  minmax(ctx, args, nargs, true);
}
static void cm_minimum(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  minmax(ctx, args, nargs, false);
}

const pte_kernel pte_cm_elementwise_kernels[] = {
    {"cortex_m::quantized_add.out", NULL, cm_quantized_add},
    {"cortex_m::quantized_mul.out", NULL, cm_quantized_mul},
    {"cortex_m::quantized_div.out", NULL, cm_quantized_div},
    {"cortex_m::quantized_activation.out", NULL, cm_quantized_activation},
    {"cortex_m::minimum.out", NULL, cm_minimum},
    {"cortex_m::maximum.out", NULL, cm_maximum},
};
const size_t pte_cm_elementwise_kernels_count =
    sizeof pte_cm_elementwise_kernels / sizeof pte_cm_elementwise_kernels[0];
