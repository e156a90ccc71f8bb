/* quantized_decomposed::add.out(Tensor a, float a_scale, int a_zero_point, int a_quant_min,
 *     int a_quant_max, Tensor b, float b_scale, int b_zero_point, int b_quant_min, int b_quant_max,
 *     float out_scale, int out_zero_point, int out_quant_min, int out_quant_max, *,
 *     Tensor(a!) out)
 *
 * Dequantize -> float add -> quantize, elementwise, as upstream:
 *   da = (float)((double)(a - a_zero_point) * (double)(float)a_scale)   (same for b)
 *   out = clamp((int64)((float)out_zero_point + nearbyintf((1.0f / (float)out_scale) * (da + db))),
 *               out_quant_min, out_quant_max)
 * a, b and out have the same shape and the same integer dtype (uint8, int8, int16, int32, int64);
 * every quant range must lie within [0, 255] with min <= max (upstream's contract). Any dim order.
 */
#include "portable/util/kutil.h"
#include "quantized/q_internal.h"
#include "quantized/q_ops.h"

static bool qa_range(pte_kernel_context *ctx, pte_evalue **args, size_t nargs, size_t i, const char *what,
                     int64_t *lo, int64_t *hi) {
  if (!pte_k_arg_int(ctx, args, nargs, i, lo) || !pte_k_arg_int(ctx, args, nargs, i + 1, hi)) return false;
  if (*lo < 0 || *hi > 255 || *lo > *hi) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "%s quant range [%lld, %lld] must be within [0, 255]", what,
                    (long long)*lo, (long long)*hi);
    return false;
  }
  return true;
}

static void q_add(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  if (!pte_q_check_nargs(ctx, nargs, 15)) return;
  pte_tensor *a = pte_k_arg_tensor(ctx, args, nargs, 0);
  pte_tensor *b = a ? pte_k_arg_tensor(ctx, args, nargs, 5) : NULL;
  pte_tensor *out = b ? pte_k_arg_tensor(ctx, args, nargs, 14) : NULL;
  double as, bs, os;
  int64_t az, bz, oz, lo, hi, olo, ohi;
  if (!out || !pte_k_arg_double(ctx, args, nargs, 1, &as) || !pte_k_arg_int(ctx, args, nargs, 2, &az) ||
      !qa_range(ctx, args, nargs, 3, "a", &lo, &hi) || !pte_k_arg_double(ctx, args, nargs, 6, &bs) ||
      !pte_k_arg_int(ctx, args, nargs, 7, &bz) || !qa_range(ctx, args, nargs, 8, "b", &lo, &hi) ||
      !pte_k_arg_double(ctx, args, nargs, 10, &os) || !pte_k_arg_int(ctx, args, nargs, 11, &oz) ||
      !qa_range(ctx, args, nargs, 12, "out", &olo, &ohi))
    return;
  if (!pte_k_same_shape(a, b)) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "a and b must have the same shape");
    return;
  }
  if (a->dtype != b->dtype || a->dtype != out->dtype || !pte_k_is_integral(a->dtype)) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "a, b and out must share one integer dtype (got %s, %s, %s)",
                    pte_dtype_name(a->dtype), pte_dtype_name(b->dtype), pte_dtype_name(out->dtype));
    return;
  }
  if (!pte_k_resize_like(ctx, out, a) || !pte_k_check_data(ctx, a, "a") || !pte_k_check_data(ctx, b, "b")) return;
  const double fa = (double)(float)as, fb = (double)(float)bs;
  const int64_t za = (int32_t)az, zb = (int32_t)bz;
  const pte_tensor *ops[3] = {out, a, b};
  pte_k_iter it;
  if (pte_k_iter_init(&it, out->sizes, out->dim, ops, 3)) {
    do {
      for (int64_t j = 0; j < it.inner; j++) {
        const int64_t qa = pte_k_load_int64(a->data, a->dtype, it.off[1] + j * it.istride[1]);
        const int64_t qb = pte_k_load_int64(b->data, b->dtype, it.off[2] + j * it.istride[2]);
        const float da = (float)((double)(qa - za) * fa), db = (float)((double)(qb - zb) * fb);
        const int64_t q = pte_q_quantize_val(os, (int32_t)oz, (double)(da + db), PTE_DTYPE_FLOAT, olo, ohi);
        pte_k_store_int64(out->data, out->dtype, it.off[0] + j * it.istride[0], q);
      }
    } while (pte_k_iter_next(&it));
  }
  pte_k_set_return(args, nargs, 14);
}

const pte_kernel pte_q_add_kernels[] = {
    {"quantized_decomposed::add.out", NULL, q_add},
};
const size_t pte_q_add_kernels_count = sizeof pte_q_add_kernels / sizeof pte_q_add_kernels[0];
