/* quantized_decomposed mixed-precision matrix products (float activations, int8 weights):
 *   quantized_decomposed::mixed_mm.out(Tensor input, Tensor weight, Tensor weight_scales,
 *       Tensor? weight_zero_points, *, Tensor(a!) out)
 *     input [M, K] float32/float16, weight [K, N] int8, weight_scales [K] (input's dtype),
 *     out [M, N] (input's dtype):   out[i][j] = sum_k input[i][k] * weight[k][j] * scales[k]
 *   quantized_decomposed::mixed_linear.out(Tensor input, Tensor weight, Tensor weight_scales,
 *       Tensor? weight_zero_points, ScalarType? dtype=None, *, Tensor(a!) out)
 *     input [M, K], weight [N, K] int8, weight_scales [N] or [N, G] (group-wise: group size
 *     g = ceil(K / G), and G must equal ceil(K / g)), out [M, N] float32/float16/float64 (dtype,
 *     when given, must equal out's dtype):
 *       out[i][j] = sum over groups q of (sum_{k in q} input[i][k] * weight[j][k]) * scales[j][q]
 * As upstream, weight_zero_points must be None (NotSupported otherwise). The arithmetic follows
 * upstream's loops: float32 products and sums for float32; for float16 every product and
 * partial sum is rounded to float16 as the reference's half arithmetic does. Any dim order.
 */
#include "portable/util/kutil.h"
#include "quantized/q_internal.h"
#include "quantized/q_ops.h"

#define QM_FAIL(ctx, ...) pte_kernel_fail((ctx), PTE_ERR_INVALID_ARGUMENT, __VA_ARGS__)

/* Rounds v to the precision of dtype (float32, float16 or float64). */
static double qm_round(double v, int dtype) {
  if (dtype == PTE_DTYPE_FLOAT) return (double)(float)v;
  if (dtype == PTE_DTYPE_HALF) return pte_k_round_to_dtype(v, PTE_DTYPE_HALF);
  return v;
}

static double qm_at2(const pte_tensor *t, int64_t r, int64_t c) {
  const int64_t off = r * t->strides[0] + c * t->strides[1];
  if (t->dtype == PTE_DTYPE_CHAR) return ((const int8_t *)t->data)[off];
  return pte_q_load_float(t->data, t->dtype, off);
}

static bool qm_common(pte_kernel_context *ctx, const pte_tensor *in, const pte_tensor *w, const pte_tensor *sc,
                      const pte_tensor *zp) {
  if (in->dim != 2 || w->dim != 2) {
    QM_FAIL(ctx, "input and weight must be 2-D, got %d-D and %d-D", (int)in->dim, (int)w->dim);
    return false;
  }
  if (in->dtype != PTE_DTYPE_FLOAT && in->dtype != PTE_DTYPE_HALF) {
    QM_FAIL(ctx, "input must be float32 or float16, got %s", pte_dtype_name(in->dtype));
    return false;
  }
  if (w->dtype != PTE_DTYPE_CHAR) {
    QM_FAIL(ctx, "weight must be int8, got %s", pte_dtype_name(w->dtype));
    return false;
  }
  if (sc->dtype != in->dtype) {
    QM_FAIL(ctx, "weight_scales must have input's dtype %s, got %s", pte_dtype_name(in->dtype),
            pte_dtype_name(sc->dtype));
    return false;
  }
  if (zp) {
    /* upstream's argument check refuses them the same way (InvalidArgument) */
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "weight_zero_points are not supported (asymmetric weights)");
    return false;
  }
  return pte_k_check_data(ctx, in, "input") && pte_k_check_data(ctx, w, "weight") &&
         pte_k_check_data(ctx, sc, "weight_scales");
}

/* Arguments input, weight, weight_scales, weight_zero_points (None), out at out_idx, checked by
 * qm_common. */
static bool qm_args(pte_kernel_context *ctx, pte_evalue **args, size_t nargs, size_t out_idx,
                    pte_tensor **in, pte_tensor **w, pte_tensor **sc, pte_tensor **out) {
  *in = pte_k_arg_tensor(ctx, args, nargs, 0);
  *w = *in ? pte_k_arg_tensor(ctx, args, nargs, 1) : NULL;
  *sc = *w ? pte_k_arg_tensor(ctx, args, nargs, 2) : NULL;
  bool ok = *sc != NULL;
  pte_tensor *zp = ok ? pte_k_arg_opt_tensor(ctx, args, nargs, 3, &ok) : NULL;
  *out = ok ? pte_k_arg_tensor(ctx, args, nargs, out_idx) : NULL;
  return *out && qm_common(ctx, *in, *w, *sc, zp);
}

static void q_mixed_mm(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  if (!pte_q_check_nargs(ctx, nargs, 5)) return;
  pte_tensor *in, *w, *sc, *out;
  if (!qm_args(ctx, args, nargs, 4, &in, &w, &sc, &out)) return;
  const int64_t M = in->sizes[0], K = in->sizes[1], N = w->sizes[1];
  if (w->sizes[0] != K) {
    QM_FAIL(ctx, "input is [%lld, %lld] but weight has %d rows", (long long)M, (long long)K, (int)w->sizes[0]);
    return;
  }
  if (sc->dim != 1 || sc->sizes[0] != K) {
    QM_FAIL(ctx, "weight_scales must be [%lld] (one per weight row)", (long long)K);
    return;
  }
  if (out->dtype != in->dtype || out->dim != 2) {
    QM_FAIL(ctx, "out must be a 2-D %s tensor", pte_dtype_name(in->dtype));
    return;
  }
  const int32_t osz[2] = {(int32_t)M, (int32_t)N};
  if (!pte_k_resize_out(ctx, out, osz, 2)) return;
  const int dt = in->dtype;
  for (int64_t i = 0; i < M; i++)
    for (int64_t j = 0; j < N; j++) {
      double sum = 0.0;
      for (int64_t k = 0; k < K; k++) {
        const double s = pte_q_load_float(sc->data, sc->dtype, pte_k_offset_of_linear(sc, (size_t)k));
        const double p = qm_round(qm_round(qm_at2(in, i, k) * qm_at2(w, k, j), dt) * s, dt);
        sum = qm_round(sum + p, dt);
      }
      pte_q_store_float(out->data, dt, i * out->strides[0] + j * out->strides[1], sum);
    }
  pte_k_set_return(args, nargs, 4);
}

static void q_mixed_linear(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  if (!pte_q_check_nargs(ctx, nargs, 6)) return;
  pte_tensor *in, *w, *sc, *out;
  if (!qm_args(ctx, args, nargs, 5, &in, &w, &sc, &out)) return;
  if (!pte_k_arg_is_none(args, nargs, 4)) {
    int64_t dt;
    if (!pte_k_arg_int(ctx, args, nargs, 4, &dt)) return;
    if (dt != out->dtype) {
      QM_FAIL(ctx, "dtype is %s but out is %s", pte_dtype_name((int)dt), pte_dtype_name(out->dtype));
      return;
    }
  }
  const int odt = out->dtype;
  if (odt != PTE_DTYPE_FLOAT && odt != PTE_DTYPE_HALF && odt != PTE_DTYPE_DOUBLE) {
    QM_FAIL(ctx, "out must be float32, float16 or float64, got %s", pte_dtype_name(odt));
    return;
  }
  const int64_t M = in->sizes[0], K = in->sizes[1], N = w->sizes[0];
  if (w->sizes[1] != K) {
    QM_FAIL(ctx, "input is [%lld, %lld] but weight is [%d, %d]", (long long)M, (long long)K, (int)w->sizes[0],
            (int)w->sizes[1]);
    return;
  }
  if ((sc->dim != 1 && sc->dim != 2) || sc->sizes[0] != N) {
    QM_FAIL(ctx, "weight_scales must be [%lld] or [%lld, groups]", (long long)N, (long long)N);
    return;
  }
  int64_t g = K, ngroups = 1;
  if (sc->dim == 2) {
    const int64_t G = sc->sizes[1];
    if (G <= 0 || K == 0) {
      QM_FAIL(ctx, "weight_scales has %lld groups for %lld input features", (long long)G, (long long)K);
      return;
    }
    g = (K + G - 1) / G;
    ngroups = (K + g - 1) / g;
    if (ngroups != G) {
      QM_FAIL(ctx, "weight_scales has %lld groups; %lld features in groups of %lld make %lld", (long long)G,
              (long long)K, (long long)g, (long long)ngroups);
      return;
    }
  }
  if (out->dim != 2) {
    QM_FAIL(ctx, "out must be 2-D, got %d-D", (int)out->dim);
    return;
  }
  const int32_t osz[2] = {(int32_t)M, (int32_t)N};
  if (!pte_k_resize_out(ctx, out, osz, 2)) return;
  const int idt = in->dtype;
  for (int64_t i = 0; i < M; i++)
    for (int64_t j = 0; j < N; j++) {
      double sum = 0.0;
      for (int64_t k = 0; k < K; k += g) {
        double psum = 0.0;
        const int64_t end = k + g < K ? k + g : K;
        for (int64_t k2 = k; k2 < end; k2++) {
          const double p = qm_round(qm_at2(in, i, k2) * qm_at2(w, j, k2), idt);
          psum = qm_round(psum + p, odt);
        }
        const double s = pte_q_load_float(sc->data, sc->dtype, pte_k_offset_of_linear(sc, (size_t)(j * ngroups + k / g)));
        sum = qm_round(sum + qm_round(psum * s, odt), odt);
      }
      pte_q_store_float(out->data, odt, i * out->strides[0] + j * out->strides[1], sum);
    }
  pte_k_set_return(args, nargs, 5);
}

const pte_kernel pte_q_mixed_kernels[] = {
    {"quantized_decomposed::mixed_mm.out", NULL, q_mixed_mm},
    {"quantized_decomposed::mixed_linear.out", NULL, q_mixed_linear},
};
const size_t pte_q_mixed_kernels_count = sizeof pte_q_mixed_kernels / sizeof pte_q_mixed_kernels[0];
