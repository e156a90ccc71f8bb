/* kernels/portable/op_activation.c — sigmoid, tanh, relu, gelu, hardtanh, leaky_relu, silu,
 * clamp (Scalar and Tensor bounds), elu, glu. */
#include <math.h>

#include "portable/portable_activation.h"
#include "portable/util/elementwise.h"
#include "portable/util/kutil.h"
#include "portable/util/kutil_shape.h"

#define K_SQRT1_2 0.70710678118654752440      /* 1/sqrt(2) */
#define K_SQRT_2_OVER_PI 0.79788456080286535588 /* sqrt(2/pi) */
#define K_GELU_KAPPA 0.044715

typedef struct aparams {
  double lo_d, hi_d, slope_d;
  int64_t lo_i, hi_i;
  float lo_f, hi_f, slope_f;
  bool has_lo, has_hi;
} aparams;

#define ACT_F32_RUN1(name, EXPR)                                                               \
  static void name(float *o, const float *a, int64_t n, int64_t so, int64_t sa, void *pv) {   \
    const aparams *P = (const aparams *)pv;                                                    \
    (void)P;                                                                                   \
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

/* ---- element functions ---- */

static double sigmoid_d(double x, void *p) {
  (void)p;
  return 1.0 / (1.0 + exp(-x));
}
static double tanh_d(double x, void *p) {
  (void)p;
  return tanh(x);
}
static double relu_d(double x, void *p) {
  (void)p;
  return (x != x) ? x : (x > 0.0 ? x : 0.0);
}
static int64_t relu_i(int64_t x, void *p) {
  (void)p;
  return x > 0 ? x : 0;
}
static double gelu_d(double x, void *p) {
  (void)p;
  return 0.5 * x * (1.0 + erf(x * K_SQRT1_2));
}
static double gelu_tanh_d(double x, void *p) {
  (void)p;
  double inner = K_SQRT_2_OVER_PI * (x + K_GELU_KAPPA * x * x * x);
  return 0.5 * x * (1.0 + tanh(inner));
}
static double leaky_d(double x, void *p) {
  return x > 0.0 ? x : x * ((aparams *)p)->slope_d;
}
static double silu_d(double x, void *p) {
  (void)p;
  return x / (1.0 + exp(-x));
}
/* clamp: NaN input propagates, and so does a NaN bound (as the Tensor overload and ATen);
 * bounds applied min first, then max (so lo > hi gives hi). */
static double clamp_d(double x, void *p) {
  const aparams *P = (const aparams *)p;
  if (P->has_lo && (x < P->lo_d || P->lo_d != P->lo_d)) x = P->lo_d;
  if (P->has_hi && (P->hi_d < x || P->hi_d != P->hi_d)) x = P->hi_d;
  return x;
}
static int64_t clamp_i(int64_t x, void *p) {
  const aparams *P = (const aparams *)p;
  if (P->has_lo && x < P->lo_i) x = P->lo_i;
  if (P->has_hi && P->hi_i < x) x = P->hi_i;
  return x;
}
static double clamp3_d(double x, double lo, double hi, void *p) {
  const aparams *P = (const aparams *)p;
  if (P->has_lo && (x < lo || lo != lo)) x = lo;
  if (P->has_hi && (hi < x || hi != hi)) x = hi;
  return x;
}
static int64_t clamp3_i(int64_t x, int64_t lo, int64_t hi, void *p) {
  const aparams *P = (const aparams *)p;
  if (P->has_lo && x < lo) x = lo;
  if (P->has_hi && hi < x) x = hi;
  return x;
}

static inline float clampf_lohi(float x, const aparams *P) {
  if (P->has_lo && (x < P->lo_f || P->lo_f != P->lo_f)) x = P->lo_f;
  if (P->has_hi && (P->hi_f < x || P->hi_f != P->hi_f)) x = P->hi_f;
  return x;
}

ACT_F32_RUN1(sigmoid_f32, 1.0f / (1.0f + expf(-x)))
ACT_F32_RUN1(tanh_f32, tanhf(x))
ACT_F32_RUN1(relu_f32, (x != x) ? x : (x > 0.0f ? x : 0.0f))
ACT_F32_RUN1(gelu_f32, 0.5f * x * (1.0f + erff(x * (float)K_SQRT1_2)))
ACT_F32_RUN1(gelu_tanh_f32,
         0.5f * x *
             (1.0f + tanhf((float)K_SQRT_2_OVER_PI * (x + (float)K_GELU_KAPPA * x * x * x))))
ACT_F32_RUN1(leaky_f32, x > 0.0f ? x : x * P->slope_f)
ACT_F32_RUN1(silu_f32, x / (1.0f + expf(-x)))
ACT_F32_RUN1(clamp_f32, clampf_lohi(x, P))

static const pte_k_unop k_sigmoid = {sigmoid_d, NULL, sigmoid_f32};
static const pte_k_unop k_tanh = {tanh_d, NULL, tanh_f32};
static const pte_k_unop k_relu = {relu_d, relu_i, relu_f32};
static const pte_k_unop k_gelu = {gelu_d, NULL, gelu_f32};
static const pte_k_unop k_gelu_tanh = {gelu_tanh_d, NULL, gelu_tanh_f32};
static const pte_k_unop k_leaky = {leaky_d, NULL, leaky_f32};
static const pte_k_unop k_silu = {silu_d, NULL, silu_f32};
static const pte_k_unop k_clamp = {clamp_d, clamp_i, clamp_f32};
static const pte_k_ternop k_clamp3 = {clamp3_d, clamp3_i};

/* Sets P's bounds from scalar values for the compute dtype. */
static void set_bound(aparams *P, bool lo, double d, int64_t i, int compute) {
  if (compute == PTE_DTYPE_FLOAT) d = pte_k_round_to_dtype(d, PTE_DTYPE_FLOAT);
  if (lo) {
    P->has_lo = true;
    P->lo_d = d;
    P->lo_i = i;
    P->lo_f = (float)pte_k_round_to_dtype(d, PTE_DTYPE_FLOAT);
  } else {
    P->has_hi = true;
    P->hi_d = d;
    P->hi_i = i;
    P->hi_f = (float)pte_k_round_to_dtype(d, PTE_DTYPE_FLOAT);
  }
}

/* Reads a scalar bound at args[i] as double and int64 (a Double truncates toward zero). */
static bool read_bound(pte_kernel_context *ctx, pte_evalue **args, size_t nargs, size_t i,
                       double *d, int64_t *iv) {
  if (!pte_k_arg_double(ctx, args, nargs, i, d)) return false;
  if (args[i]->tag == PTE_TAG_DOUBLE) *iv = pte_k_double_to_int64(*d);
  else if (!pte_k_arg_int(ctx, args, nargs, i, iv)) return false;
  return true;
}

/* ---- kernels ---- */

static void sigmoid_out(pte_kernel_context *c, pte_evalue **a, size_t n) {
  pte_k_unary_kernel(c, a, n, 0, PTE_K_UNARY_TO_FLOAT, true, &k_sigmoid, NULL, "sigmoid");
}
static void tanh_out(pte_kernel_context *c, pte_evalue **a, size_t n) {
  pte_k_unary_kernel(c, a, n, 0, PTE_K_UNARY_TO_FLOAT, true, &k_tanh, NULL, "tanh");
}
static void relu_out(pte_kernel_context *c, pte_evalue **a, size_t n) {
  pte_k_unary_kernel(c, a, n, 0, PTE_K_UNARY_SAME, false, &k_relu, NULL, "relu");
}
static void silu_out(pte_kernel_context *c, pte_evalue **a, size_t n) {
  aparams P = {0};
  pte_k_unary_kernel(c, a, n, 0, PTE_K_UNARY_FLOAT_ONLY, false, &k_silu, &P, "silu");
}

/* gelu.out(Tensor self, *, str approximate='none', Tensor(a!) out) */
static void gelu_out(pte_kernel_context *c, pte_evalue **a, size_t n) {
  if (!pte_k_check_nargs(c, n, 3, 4)) return;
  size_t len;
  bool ok;
  const char *s = pte_k_arg_string(c, a, n, 1, &len, true, &ok);
  if (!ok) return;
  const pte_k_unop *op;
  if (!s || pte_k_str_eq(s, len, "none")) op = &k_gelu;
  else if (pte_k_str_eq(s, len, "tanh")) op = &k_gelu_tanh;
  else {
    pte_kernel_fail(c, PTE_ERR_INVALID_ARGUMENT, "gelu: approximate must be 'none' or 'tanh'");
    return;
  }
  aparams P = {0};
  pte_k_unary_kernel(c, a, n, 1, PTE_K_UNARY_FLOAT_ONLY, false, op, &P, "gelu");
}

/* hardtanh.out(Tensor self, Scalar min_val=-1, Scalar max_val=1, *, Tensor(a!) out) */
static void hardtanh_out(pte_kernel_context *c, pte_evalue **a, size_t n) {
  if (!pte_k_check_nargs(c, n, 4, 5)) return;
  pte_tensor *in = pte_k_arg_tensor(c, a, n, 0);
  if (!in) return;
  double lo, hi;
  int64_t loi, hii;
  if (!read_bound(c, a, n, 1, &lo, &loi) || !read_bound(c, a, n, 2, &hi, &hii)) return;
  aparams P = {0};
  int compute = pte_k_opmath(in->dtype);
  set_bound(&P, true, lo, loi, compute);
  set_bound(&P, false, hi, hii, compute);
  pte_k_unary_kernel(c, a, n, 2, PTE_K_UNARY_SAME, false, &k_clamp, &P, "hardtanh");
}

/* leaky_relu.out(Tensor self, Scalar negative_slope=0.01, *, Tensor(a!) out) */
static void leaky_relu_out(pte_kernel_context *c, pte_evalue **a, size_t n) {
  if (!pte_k_check_nargs(c, n, 3, 4)) return;
  pte_tensor *in = pte_k_arg_tensor(c, a, n, 0);
  if (!in) return;
  aparams P = {0};
  if (!pte_k_arg_double(c, a, n, 1, &P.slope_d)) return;
  if (in->dtype != PTE_DTYPE_DOUBLE) P.slope_d = pte_k_round_to_dtype(P.slope_d, PTE_DTYPE_FLOAT);
  P.slope_f = (float)P.slope_d;
  pte_k_unary_kernel(c, a, n, 1, PTE_K_UNARY_FLOAT_ONLY, false, &k_leaky, &P, "leaky_relu");
}

/* clamp.out(Tensor self, Scalar? min=None, Scalar? max=None, *, Tensor(a!) out) */
static void clamp_out(pte_kernel_context *c, pte_evalue **a, size_t n) {
  pte_tensor *in, *out;
  if (!pte_k_self_out_args(c, a, n, 2, &in, &out)) return;
  if (in->dtype == PTE_DTYPE_BOOL) {
    pte_kernel_fail(c, PTE_ERR_INVALID_ARGUMENT, "clamp: bool input not supported");
    return;
  }
  bool has_lo = !pte_k_arg_is_none(a, n, 1), has_hi = !pte_k_arg_is_none(a, n, 2);
  if (!has_lo && !has_hi) {
    pte_kernel_fail(c, PTE_ERR_INVALID_ARGUMENT, "clamp: at least one of min and max is needed");
    return;
  }
  int common = in->dtype;
  double lo = 0, hi = 0;
  int64_t loi = 0, hii = 0;
  if (has_lo) {
    if (!read_bound(c, a, n, 1, &lo, &loi)) return;
    common = pte_k_promote_scalar(common, a[1]);
  }
  if (has_hi) {
    if (!read_bound(c, a, n, 2, &hi, &hii)) return;
    common = pte_k_promote_scalar(common, a[2]);
  }
  if (common == PTE_K_DTYPE_INVALID || !pte_k_can_cast(common, out->dtype)) {
    pte_kernel_fail(c, PTE_ERR_INVALID_ARGUMENT, "clamp: result dtype cannot be cast to out %s",
                    pte_dtype_name(out->dtype));
    return;
  }
  int compute = pte_k_opmath(common);
  aparams P = {0};
  if (has_lo) set_bound(&P, true, lo, loi, compute);
  if (has_hi) set_bound(&P, false, hi, hii, compute);
  if (!pte_k_resize_like(c, out, in) || !pte_k_check_data(c, in, "self")) return;
  pte_k_ew_unary(in, out, compute, &k_clamp, &P);
  pte_k_set_return(a, n, 3);
}

/* clamp.Tensor_out(Tensor self, Tensor? min=None, Tensor? max=None, *, Tensor(a!) out) */
static void clamp_tensor_out(pte_kernel_context *c, pte_evalue **a, size_t n) {
  if (!pte_k_check_nargs(c, n, 4, 5)) return;
  pte_tensor *in = pte_k_arg_tensor(c, a, n, 0);
  if (!in) return;
  bool ok1, ok2;
  pte_tensor *lo = pte_k_arg_opt_tensor(c, a, n, 1, &ok1);
  if (!ok1) return;
  pte_tensor *hi = pte_k_arg_opt_tensor(c, a, n, 2, &ok2);
  if (!ok2) return;
  pte_tensor *out = pte_k_arg_tensor(c, a, n, 3);
  if (!out) return;
  if (!lo && !hi) {
    pte_kernel_fail(c, PTE_ERR_INVALID_ARGUMENT, "clamp: at least one of min and max is needed");
    return;
  }
  if (!pte_k_check_dtype(c, in->dtype, "self") || !pte_k_check_dtype(c, out->dtype, "out") ||
      (lo && !pte_k_check_dtype(c, lo->dtype, "min")) ||
      (hi && !pte_k_check_dtype(c, hi->dtype, "max")))
    return;
  int common = in->dtype;
  if (lo) common = pte_k_promote(common, lo->dtype);
  if (hi) common = pte_k_promote(common, hi->dtype);
  if (common == PTE_DTYPE_BOOL) {
    pte_kernel_fail(c, PTE_ERR_INVALID_ARGUMENT, "clamp: bool not supported");
    return;
  }
  if (!pte_k_can_cast(common, out->dtype)) {
    pte_kernel_fail(c, PTE_ERR_INVALID_ARGUMENT, "clamp: result dtype %s cannot be cast to out %s",
                    pte_dtype_name(common), pte_dtype_name(out->dtype));
    return;
  }
  int32_t shape[PTE_MAX_RANK], dim = in->dim;
  for (int32_t d = 0; d < in->dim; d++) shape[d] = in->sizes[d];
  const pte_tensor *bounds[2] = {lo, hi};
  for (int k = 0; k < 2; k++) {
    if (!bounds[k]) continue;
    int32_t tmp[PTE_MAX_RANK], tdim;
    if (pte_k_broadcast_sizes(shape, dim, bounds[k]->sizes, bounds[k]->dim, tmp, &tdim) != PTE_OK) {
      pte_kernel_fail(c, PTE_ERR_INVALID_ARGUMENT, "clamp: shapes cannot be broadcast");
      return;
    }
    for (int32_t d = 0; d < tdim; d++) shape[d] = tmp[d];
    dim = tdim;
  }
  if (!pte_k_resize_out(c, out, shape, dim)) return;
  if (!pte_k_check_data(c, in, "self") || (lo && !pte_k_check_data(c, lo, "min")) ||
      (hi && !pte_k_check_data(c, hi, "max")))
    return;
  aparams P = {0};
  P.has_lo = lo != NULL;
  P.has_hi = hi != NULL;
  pte_k_ew_ternary(in, lo ? lo : in, hi ? hi : in, out, pte_k_opmath(common), &k_clamp3, &P);
  pte_k_set_return(a, n, 3);
}

/* elu.out(Tensor self, Scalar alpha=1, Scalar scale=1, Scalar input_scale=1, *, Tensor(a!) out):
 * x > 0 ? scale * x : alpha * scale * expm1(x * input_scale); NaN stays NaN. */
typedef struct elu_params {
  double negcoef, scale, iscale;
  float negcoef_f, scale_f, iscale_f;
} elu_params;

static double elu_d(double x, void *pv) {
  const elu_params *P = (const elu_params *)pv;
  return x <= 0.0 ? expm1(x * P->iscale) * P->negcoef : x * P->scale;
}
static void elu_f32(float *o, const float *a, int64_t n, int64_t so, int64_t sa, void *pv) {
  const elu_params *P = (const elu_params *)pv;
  if (so == 1 && sa == 1) {
    for (int64_t i = 0; i < n; i++) {
      float x = a[i];
      o[i] = x <= 0.0f ? expm1f(x * P->iscale_f) * P->negcoef_f : x * P->scale_f;
    }
    return;
  }
  for (int64_t i = 0; i < n; i++) {
    float x = a[i * sa];
    o[i * so] = x <= 0.0f ? expm1f(x * P->iscale_f) * P->negcoef_f : x * P->scale_f;
  }
}
static const pte_k_unop k_elu = {elu_d, NULL, elu_f32};

static void elu_out(pte_kernel_context *c, pte_evalue **a, size_t n) {
  if (!pte_k_check_nargs(c, n, 5, 6)) return;
  pte_tensor *in = pte_k_arg_tensor(c, a, n, 0);
  if (!in) return;
  static const char *const names[3] = {"alpha", "scale", "input_scale"};
  double v[3];
  for (size_t i = 0; i < 3; i++) {
    if (!pte_k_arg_is_scalar(a, n, 1 + i) || !pte_k_arg_double(c, a, n, 1 + i, &v[i])) {
      pte_kernel_fail(c, PTE_ERR_INVALID_ARGUMENT, "elu: %s must be a scalar", names[i]);
      return;
    }
    /* coefficients live in the op-math type: double for double, float otherwise */
    if (in->dtype != PTE_DTYPE_DOUBLE) v[i] = pte_k_round_to_dtype(v[i], PTE_DTYPE_FLOAT);
  }
  elu_params P;
  P.negcoef = v[0] * v[1];
  if (in->dtype != PTE_DTYPE_DOUBLE) P.negcoef = pte_k_round_to_dtype(P.negcoef, PTE_DTYPE_FLOAT);
  P.scale = v[1];
  P.iscale = v[2];
  P.negcoef_f = (float)P.negcoef;
  P.scale_f = (float)P.scale;
  P.iscale_f = (float)P.iscale;
  pte_k_unary_kernel(c, a, n, 3, PTE_K_UNARY_FLOAT_ONLY, false, &k_elu, &P, "elu");
}

/* glu.out(Tensor self, int dim=-1, *, Tensor(a!) out): with self split in halves a | b along dim,
 * out = a * sigmoid(b). self and out must be floating. */
static double glu_d(double x, double g, void *p) {
  (void)p;
  return x * (1.0 / (1.0 + exp(-g)));
}
static const pte_k_binop k_glu = {glu_d, NULL, NULL};

static void glu_out(pte_kernel_context *c, pte_evalue **a, size_t n) {
  if (!pte_k_check_nargs(c, n, 3, 4)) return;
  pte_tensor *in = pte_k_arg_tensor(c, a, n, 0);
  if (!in) return;
  pte_tensor *out = pte_k_arg_tensor(c, a, n, 2);
  if (!out) return;
  int64_t d64;
  if (!pte_k_arg_int(c, a, n, 1, &d64)) return;
  if (!pte_k_check_dtype(c, in->dtype, "self") || !pte_k_check_dtype(c, out->dtype, "out")) return;
  if (!pte_k_is_floating(in->dtype) || !pte_k_is_floating(out->dtype)) {
    pte_kernel_fail(c, PTE_ERR_INVALID_ARGUMENT, "glu: self (%s) and out (%s) must be floating",
                    pte_dtype_name(in->dtype), pte_dtype_name(out->dtype));
    return;
  }
  int32_t dim;
  if (in->dim == 0 || !pte_ks_wrap_dim(d64, in->dim, &dim)) {
    pte_kernel_fail(c, PTE_ERR_INVALID_ARGUMENT, "glu: dim %lld out of range for self of rank %d",
                    (long long)d64, (int)in->dim);
    return;
  }
  if (in->sizes[dim] % 2 != 0) {
    pte_kernel_fail(c, PTE_ERR_INVALID_ARGUMENT, "glu: self size %d at dim %d must be even",
                    (int)in->sizes[dim], (int)dim);
    return;
  }
  int32_t half[PTE_MAX_RANK];
  for (int32_t i = 0; i < in->dim; i++) half[i] = in->sizes[i];
  half[dim] /= 2;
  if (!pte_k_resize_out(c, out, half, in->dim)) return;
  if (!pte_k_check_data(c, in, "self")) return;
  /* Two views of self sharing its strides: the first half and the second half along dim. */
  pte_tensor va = *in, vb = *in;
  va.sizes = half;
  vb.sizes = half;
  va.numel = vb.numel = out->numel;
  if (out->numel > 0)
    vb.data = (uint8_t *)in->data +
              (size_t)half[dim] * (size_t)in->strides[dim] * pte_dtype_size(in->dtype);
  pte_k_ew_binary(&va, &vb, out, pte_k_opmath(in->dtype), &k_glu, NULL);
  pte_k_set_return(a, n, 2);
}

const pte_kernel pte_portable_activation_kernels[] = {
    {"aten::sigmoid.out", NULL, sigmoid_out},
    {"aten::tanh.out", NULL, tanh_out},
    {"aten::relu.out", NULL, relu_out},
    {"aten::gelu.out", NULL, gelu_out},
    {"aten::hardtanh.out", NULL, hardtanh_out},
    {"aten::leaky_relu.out", NULL, leaky_relu_out},
    {"aten::silu.out", NULL, silu_out},
    {"aten::clamp.out", NULL, clamp_out},
    {"aten::clamp.Tensor_out", NULL, clamp_tensor_out},
    {"aten::elu.out", NULL, elu_out},
    {"aten::glu.out", NULL, glu_out},
};
const size_t pte_portable_activation_kernels_count =
    sizeof pte_portable_activation_kernels / sizeof pte_portable_activation_kernels[0];
