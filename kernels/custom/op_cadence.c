/* Cadence (Xtensa) backend operators, with the arithmetic of upstream's generic reference kernels
 * (backends/cadence/generic): see include/pte/custom_kernels.h for the formulas.
 *
 *   cadence::quantize_per_tensor.out(Tensor input, float scale, int zero_point, int quant_min,
 *       int quant_max, ScalarType dtype, *, Tensor(a!) out) -> Tensor(a!)
 *   cadence::dequantize_per_tensor.out(Tensor input, float scale, int zero_point, int quant_min,
 *       int quant_max, ScalarType dtype, *, Tensor(a!) out) -> Tensor(a!)
 *   cadence::quantized_conv2d_nchw.per_tensor_out(Tensor input, Tensor weight, Tensor bias,
 *       int[] stride, SymInt[] padding, int[] dilation, int groups, int input_zero_point,
 *       int weight_zero_point, float bias_scale, float out_scale, int out_zero_point,
 *       int out_multiplier, int out_shift, *, Tensor(a!) out) -> Tensor(a!)
 */
#include <math.h>

#include "custom/custom_ops.h"
#include "portable/util/kutil.h"

/* ------------------------------------------------------------------ quantized storage types */

static bool cad_is_qtype(int dtype) {
  switch (dtype) {
    case PTE_DTYPE_BYTE:
    case PTE_DTYPE_CHAR:
    case PTE_DTYPE_SHORT:
    case PTE_DTYPE_INT:
    case PTE_DTYPE_UINT16:
    case PTE_DTYPE_BITS16: return true;
    default: return false;
  }
}

static void cad_range(int dtype, int64_t *lo, int64_t *hi) {
  switch (dtype) {
    case PTE_DTYPE_BYTE: *lo = 0; *hi = UINT8_MAX; break;
    case PTE_DTYPE_CHAR: *lo = INT8_MIN; *hi = INT8_MAX; break;
    case PTE_DTYPE_SHORT: *lo = INT16_MIN; *hi = INT16_MAX; break;
    case PTE_DTYPE_UINT16:
    case PTE_DTYPE_BITS16: *lo = 0; *hi = UINT16_MAX; break;
    default: *lo = INT32_MIN; *hi = INT32_MAX; break;
  }
}

static inline int64_t cad_load(const void *data, int dtype, int64_t i) {
  switch (dtype) {
    case PTE_DTYPE_BYTE: return ((const uint8_t *)data)[i];
    case PTE_DTYPE_CHAR: return ((const int8_t *)data)[i];
    case PTE_DTYPE_SHORT: return ((const int16_t *)data)[i];
    case PTE_DTYPE_UINT16:
    case PTE_DTYPE_BITS16: return ((const uint16_t *)data)[i];
    default: return ((const int32_t *)data)[i];
  }
}

/* v must already be in the dtype's range. */
static inline void cad_store(void *data, int dtype, int64_t i, int64_t v) {
  switch (dtype) {
    case PTE_DTYPE_BYTE: ((uint8_t *)data)[i] = (uint8_t)v; break;
    case PTE_DTYPE_CHAR: ((int8_t *)data)[i] = (int8_t)v; break;
    case PTE_DTYPE_SHORT: ((int16_t *)data)[i] = (int16_t)v; break;
    case PTE_DTYPE_UINT16:
    case PTE_DTYPE_BITS16: ((uint16_t *)data)[i] = (uint16_t)v; break;
    default: ((int32_t *)data)[i] = (int32_t)v; break;
  }
}

/* The reference's quantize(): (int64)(zero_point + nearbyint(inv_scale * x)) in float32, clamped
 * to [lo, hi]. The clamp happens before the conversion (no UB for huge values); NaN gives lo, as
 * the reference's float->int64 conversion does on x86 (INT64_MIN, then clamped). */
static inline int64_t cad_quantize(float x, float inv_scale, int32_t zero_point, int64_t lo,
                                   int64_t hi) {
  const float r = (float)zero_point + nearbyintf(inv_scale * x);
  if (isnan(r) || (double)r <= (double)lo) return lo;
  if ((double)r >= (double)hi) return hi;
  return (int64_t)r;
}

static bool cad_zero_point(pte_kernel_context *ctx, const char *op, const char *what, int64_t zp,
                           int dtype) {
  int64_t lo, hi;
  cad_range(dtype, &lo, &hi);
  if (zp < lo || zp > hi) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "%s: %s %lld outside the %s range", op, what,
                    (long long)zp, pte_dtype_name(dtype));
    return false;
  }
  return true;
}

/* ------------------------------------------------------------------ (de)quantize_per_tensor */

typedef struct cad_qparams {
  pte_tensor *in, *out;
  double scale;
  int64_t zp, qmin, qmax, dtype;
} cad_qparams;

/* Shared argument reading: input, scale, zero_point, quant_min, quant_max, dtype, out [, ret]. */
static bool cad_read_qparams(pte_kernel_context *ctx, pte_evalue **args, size_t nargs, cad_qparams *p) {
  if (!pte_k_check_nargs(ctx, nargs, 7, 8)) return false;
  p->in = pte_k_arg_tensor(ctx, args, nargs, 0);
  p->out = pte_k_arg_tensor(ctx, args, nargs, 6);
  if (!p->in || !p->out) return false;
  if (!pte_k_arg_double(ctx, args, nargs, 1, &p->scale) || !pte_k_arg_int(ctx, args, nargs, 2, &p->zp) ||
      !pte_k_arg_int(ctx, args, nargs, 3, &p->qmin) || !pte_k_arg_int(ctx, args, nargs, 4, &p->qmax) ||
      !pte_k_arg_int(ctx, args, nargs, 5, &p->dtype))
    return false;
  if (!isfinite(p->scale) || p->scale <= 0.0) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "%s: scale must be finite and > 0, got %g",
                    ctx->op_name ? ctx->op_name : "cadence", p->scale);
    return false;
  }
  if (p->qmin > p->qmax) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "quant_min %lld > quant_max %lld",
                    (long long)p->qmin, (long long)p->qmax);
    return false;
  }
  return true;
}

/* Walks input and out together (any dim orders; same dense layout takes the linear path). */
#define CAD_FOR_EACH(in, out, body)                                                              \
  do {                                                                                           \
    if (pte_k_is_dense(in) && pte_k_is_dense(out) && pte_k_same_dim_order(in, out)) {            \
      for (int64_t io_ = 0; io_ < (int64_t)(in)->numel; io_++) {                                 \
        const int64_t ii = io_, oi = io_;                                                        \
        body;                                                                                    \
      }                                                                                          \
    } else {                                                                                     \
      const pte_tensor *ops_[2] = {(out), (in)};                                                 \
      pte_k_iter it_;                                                                            \
      if (pte_k_iter_init(&it_, (out)->sizes, (out)->dim, ops_, 2)) {                            \
        do {                                                                                     \
          for (int64_t j_ = 0; j_ < it_.inner; j_++) {                                           \
            const int64_t oi = it_.off[0] + j_ * it_.istride[0];                                 \
            const int64_t ii = it_.off[1] + j_ * it_.istride[1];                                 \
            body;                                                                                \
          }                                                                                      \
        } while (pte_k_iter_next(&it_));                                                         \
      }                                                                                          \
    }                                                                                            \
  } while (0)

static void cad_quantize_per_tensor_out(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  cad_qparams p;
  if (!cad_read_qparams(ctx, args, nargs, &p)) return;
  const char *op = "cadence::quantize_per_tensor";
  if (p.in->dtype != PTE_DTYPE_FLOAT) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "%s: input must be float32, got %s", op,
                    pte_dtype_name(p.in->dtype));
    return;
  }
  if (!cad_is_qtype(p.out->dtype)) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "%s: unsupported out dtype %s", op,
                    pte_dtype_name(p.out->dtype));
    return;
  }
  if (p.dtype != p.out->dtype) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "%s: out is %s but dtype is %s", op,
                    pte_dtype_name(p.out->dtype), pte_dtype_name((int)p.dtype));
    return;
  }
  if (p.zp < INT32_MIN || p.zp > INT32_MAX) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "%s: zero_point %lld does not fit int32", op,
                    (long long)p.zp);
    return;
  }
  int64_t lo, hi;
  cad_range(p.out->dtype, &lo, &hi);
  if (p.qmin > lo) lo = p.qmin;
  if (p.qmax < hi) hi = p.qmax;
  if (lo > hi) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "%s: [quant_min, quant_max] = [%lld, %lld] is outside the %s range",
                    op, (long long)p.qmin, (long long)p.qmax, pte_dtype_name(p.out->dtype));
    return;
  }
  if (!pte_k_resize_like(ctx, p.out, p.in) || !pte_k_check_data(ctx, p.in, "input") ||
      !pte_k_check_data(ctx, p.out, "out"))
    return;
  const float inv = (float)(1.0 / p.scale);
  const int32_t zp = (int32_t)p.zp;
  const float *x = (const float *)p.in->data;
  void *q = p.out->data;
  const int odt = p.out->dtype;
  if (odt == PTE_DTYPE_CHAR && pte_k_is_contiguous(p.in) && pte_k_is_contiguous(p.out)) {
    int8_t *q8 = (int8_t *)q;
    for (size_t i = 0; i < p.in->numel; i++) q8[i] = (int8_t)cad_quantize(x[i], inv, zp, lo, hi);
  } else {
    CAD_FOR_EACH(p.in, p.out, cad_store(q, odt, oi, cad_quantize(x[ii], inv, zp, lo, hi)));
  }
  pte_k_set_return(args, nargs, 6);
}

static void cad_dequantize_per_tensor_out(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  cad_qparams p;
  if (!cad_read_qparams(ctx, args, nargs, &p)) return;
  const char *op = "cadence::dequantize_per_tensor";
  if (!cad_is_qtype(p.in->dtype)) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "%s: unsupported input dtype %s", op,
                    pte_dtype_name(p.in->dtype));
    return;
  }
  if (p.dtype != p.in->dtype) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "%s: input is %s but dtype is %s", op,
                    pte_dtype_name(p.in->dtype), pte_dtype_name((int)p.dtype));
    return;
  }
  if (p.out->dtype != PTE_DTYPE_FLOAT) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "%s: out must be float32, got %s", op,
                    pte_dtype_name(p.out->dtype));
    return;
  }
  if (p.zp < INT32_MIN || p.zp > INT32_MAX) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "%s: zero_point %lld does not fit int32", op,
                    (long long)p.zp);
    return;
  }
  if (!pte_k_resize_like(ctx, p.out, p.in) || !pte_k_check_data(ctx, p.in, "input") ||
      !pte_k_check_data(ctx, p.out, "out"))
    return;
  const float scale = (float)p.scale;
  const int64_t zp = p.zp;
  const void *q = p.in->data;
  float *y = (float *)p.out->data;
  const int idt = p.in->dtype;
  if (idt == PTE_DTYPE_CHAR && pte_k_is_contiguous(p.in) && pte_k_is_contiguous(p.out)) {
    const int8_t *q8 = (const int8_t *)q;
    for (size_t i = 0; i < p.in->numel; i++) y[i] = scale * (float)((int64_t)q8[i] - zp);
  } else {
    CAD_FOR_EACH(p.in, p.out, y[oi] = scale * (float)(cad_load(q, idt, ii) - zp));
  }
  pte_k_set_return(args, nargs, 6);
}

/* ------------------------------------------------------------------ quantized_conv2d_nchw */

/* An int[] argument of 1 or 2 entries as (h, w); a 1-D convolution uses the last entry for w. */
static bool cad_pair(pte_kernel_context *ctx, pte_evalue **args, size_t nargs, size_t i,
                     const char *what, bool conv1d, int64_t min, int64_t out[2]) {
  size_t len = 0;
  const int64_t *v = pte_k_arg_int_list(ctx, args, nargs, i, &len);
  if (!v) return false;
  if (len < 1 || len > 2) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "cadence::quantized_conv2d_nchw: %s needs 1 or 2 entries, got %zu",
                    what, len);
    return false;
  }
  if (conv1d) {
    out[0] = min; /* stride/dilation 1, padding 0 along the absent height */
    out[1] = v[len - 1];
  } else {
    out[0] = v[0];
    out[1] = v[len - 1];
  }
  for (int k = 0; k < 2; k++) {
    if (out[k] < min || out[k] > INT32_MAX) {
      pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "cadence::quantized_conv2d_nchw: %s %lld out of range",
                      what, (long long)out[k]);
      return false;
    }
  }
  return true;
}

/* Everything the typed convolution loops need. Strides are in elements. */
typedef struct cad_conv {
  const void *in, *w;
  const int32_t *bias;
  void *out;
  int64_t N, IH, IW, OC, KH, KW, OH, OW;
  int64_t sh, sw, ph, pw, dh, dw, icpg, ocpg;
  int64_t isn, isc, ish, isw, wso, wsc, wsh, wsw, osn, osc, osh, osw, bs;
  int64_t izp, wzp, qlo, qhi;
  int32_t ozp;
  float bias_scale, inv_out;
} cad_conv;

/* Taps [*lo, *hi) of a kernel dimension of size k (dilation d) whose input coordinate
 * start + t*d falls inside [0, size). */
static inline void cad_tap_range(int64_t start, int64_t d, int64_t k, int64_t size, int64_t *lo, int64_t *hi) {
  *lo = start >= 0 ? 0 : (-start + d - 1) / d;
  *hi = start >= size ? 0 : (size - start + d - 1) / d;
  if (*hi > k) *hi = k;
  if (*lo > *hi) *lo = *hi;
}

/* One convolution loop per dtype combination (IT input, WT weight, OT out, PT product type).
 * Padded taps are skipped (they contribute zero, as the reference's bounds checks do). */
#define CAD_DEFINE_CONV(NAME, IT, WT, OT, PT)                                                          \
  static void NAME(const cad_conv *c) {                                                                \
    const IT *pin = (const IT *)c->in;                                                                 \
    const WT *pw = (const WT *)c->w;                                                                   \
    OT *po = (OT *)c->out;                                                                             \
    const PT izp = (PT)c->izp, wzp = (PT)c->wzp;                                                       \
    const int64_t istep = c->dw * c->isw;                                                              \
    const bool unit = istep == 1 && c->wsw == 1;                                                       \
    for (int64_t n = 0; n < c->N; n++) {                                                               \
      for (int64_t oc = 0; oc < c->OC; oc++) {                                                         \
        const int64_t ic0 = (oc / c->ocpg) * c->icpg;                                                  \
        const int64_t b = c->bias[oc * c->bs];                                                         \
        for (int64_t oh = 0; oh < c->OH; oh++) {                                                       \
          const int64_t ih0 = oh * c->sh - c->ph;                                                      \
          int64_t kh0, kh1;                                                                            \
          cad_tap_range(ih0, c->dh, c->KH, c->IH, &kh0, &kh1);                                         \
          for (int64_t ow = 0; ow < c->OW; ow++) {                                                     \
            const int64_t iw0 = ow * c->sw - c->pw;                                                    \
            int64_t kw0, kw1;                                                                          \
            cad_tap_range(iw0, c->dw, c->KW, c->IW, &kw0, &kw1);                                       \
            int64_t acc = b;                                                                           \
            for (int64_t icg = 0; icg < c->icpg; icg++) {                                              \
              /* element offsets; ib may be negative (padding) but ib + kw * istep >= 0 for kept taps */ \
              const int64_t ib = n * c->isn + (ic0 + icg) * c->isc + iw0 * c->isw;                     \
              const int64_t wb = oc * c->wso + icg * c->wsc;                                           \
              for (int64_t kh = kh0; kh < kh1; kh++) {                                                 \
                const int64_t ir = ib + (ih0 + kh * c->dh) * c->ish;                                   \
                const int64_t wr = wb + kh * c->wsh;                                                   \
                PT sum = 0;                                                                            \
                if (unit && kw1 > kw0) {                                                              \
                  const IT *x = pin + ir + kw0;                                                        \
                  const WT *wv = pw + wr + kw0;                                                        \
                  for (int64_t k = 0; k < kw1 - kw0; k++) sum += ((PT)x[k] - izp) * ((PT)wv[k] - wzp); \
                } else {                                                                               \
                  for (int64_t kw = kw0; kw < kw1; kw++)                                               \
                    sum += ((PT)pin[ir + kw * istep] - izp) * ((PT)pw[wr + kw * c->wsw] - wzp);        \
                }                                                                                      \
                acc += sum;                                                                            \
              }                                                                                        \
            }                                                                                          \
            const float val = c->bias_scale * (float)acc;                                              \
            po[n * c->osn + oc * c->osc + oh * c->osh + ow * c->osw] =                                 \
                (OT)cad_quantize(val, c->inv_out, c->ozp, c->qlo, c->qhi);                             \
          }                                                                                            \
        }                                                                                              \
      }                                                                                                \
    }                                                                                                  \
  }

/* 8-bit products and a row of at most INT32_MAX / 65025 taps fit int32; 16-bit ones need int64. */
CAD_DEFINE_CONV(cad_conv_s8_row32, int8_t, int8_t, int8_t, int32_t)
CAD_DEFINE_CONV(cad_conv_u8_row32, uint8_t, uint8_t, uint8_t, int32_t)
CAD_DEFINE_CONV(cad_conv_s8_row64, int8_t, int8_t, int8_t, int64_t)
CAD_DEFINE_CONV(cad_conv_u8_row64, uint8_t, uint8_t, uint8_t, int64_t)
CAD_DEFINE_CONV(cad_conv_s16, int16_t, int16_t, int16_t, int64_t)
CAD_DEFINE_CONV(cad_conv_s16_s8, int16_t, int8_t, int16_t, int64_t)

static void cad_conv_s8(const cad_conv *c) {
  if (c->KW <= INT32_MAX / 65025) cad_conv_s8_row32(c);
  else cad_conv_s8_row64(c);
}
static void cad_conv_u8(const cad_conv *c) {
  if (c->KW <= INT32_MAX / 65025) cad_conv_u8_row32(c);
  else cad_conv_u8_row64(c);
}

static void cad_quantized_conv2d_nchw_per_tensor_out(pte_kernel_context *ctx, pte_evalue **args,
                                                     size_t nargs) {
  const char *op = "cadence::quantized_conv2d_nchw";
  if (!pte_k_check_nargs(ctx, nargs, 15, 16)) return;
  pte_tensor *in = pte_k_arg_tensor(ctx, args, nargs, 0);
  pte_tensor *w = pte_k_arg_tensor(ctx, args, nargs, 1);
  pte_tensor *bias = pte_k_arg_tensor(ctx, args, nargs, 2);
  pte_tensor *out = pte_k_arg_tensor(ctx, args, nargs, 14);
  if (!in || !w || !bias || !out) return;
  if ((in->dim != 4 && in->dim != 3) || w->dim != in->dim || out->dim != in->dim) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT,
                    "%s: input, weight and out must all be 4-D (NCHW) or 3-D (NCL); got ranks %d, %d, %d",
                    op, (int)in->dim, (int)w->dim, (int)out->dim);
    return;
  }
  const bool conv1d = in->dim == 3;
  int64_t stride[2], pad[2], dil[2];
  int64_t groups, izp, wzp, ozp, omul, oshift;
  double bias_scale, out_scale;
  if (!cad_pair(ctx, args, nargs, 3, "stride", conv1d, 1, stride) ||
      !cad_pair(ctx, args, nargs, 4, "padding", conv1d, 0, pad) ||
      !cad_pair(ctx, args, nargs, 5, "dilation", conv1d, 1, dil) ||
      !pte_k_arg_int(ctx, args, nargs, 6, &groups) || !pte_k_arg_int(ctx, args, nargs, 7, &izp) ||
      !pte_k_arg_int(ctx, args, nargs, 8, &wzp) || !pte_k_arg_double(ctx, args, nargs, 9, &bias_scale) ||
      !pte_k_arg_double(ctx, args, nargs, 10, &out_scale) || !pte_k_arg_int(ctx, args, nargs, 11, &ozp) ||
      !pte_k_arg_int(ctx, args, nargs, 12, &omul) || !pte_k_arg_int(ctx, args, nargs, 13, &oshift))
    return;
  (void)omul; /* the reference requantizes in float from the scales */
  (void)oshift;

  /* dtypes: same quantized type everywhere, or int16 activations with int8 weights */
  const int idt = in->dtype, wdt = w->dtype, odt = out->dtype;
  const bool same = idt == wdt && wdt == odt &&
                    (idt == PTE_DTYPE_CHAR || idt == PTE_DTYPE_BYTE || idt == PTE_DTYPE_SHORT);
  const bool w8a16 = idt == PTE_DTYPE_SHORT && wdt == PTE_DTYPE_CHAR && odt == PTE_DTYPE_SHORT;
  if (!same && !w8a16) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "%s: unsupported dtypes input %s, weight %s, out %s", op,
                    pte_dtype_name(idt), pte_dtype_name(wdt), pte_dtype_name(odt));
    return;
  }
  if (bias->dtype != PTE_DTYPE_INT) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "%s: bias must be int32, got %s", op,
                    pte_dtype_name(bias->dtype));
    return;
  }
  if (!cad_zero_point(ctx, op, "input_zero_point", izp, idt) ||
      !cad_zero_point(ctx, op, "weight_zero_point", wzp, wdt) ||
      !cad_zero_point(ctx, op, "out_zero_point", ozp, odt))
    return;
  if (!isfinite(bias_scale) || !isfinite(out_scale) || out_scale == 0.0) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "%s: bias_scale %g / out_scale %g must be finite, out_scale non-zero",
                    op, bias_scale, out_scale);
    return;
  }

  /* shapes */
  const int64_t N = in->sizes[0], C = in->sizes[1];
  const int64_t IH = conv1d ? 1 : in->sizes[2], IW = in->sizes[in->dim - 1];
  const int64_t OC = w->sizes[0], WC = w->sizes[1];
  const int64_t KH = conv1d ? 1 : w->sizes[2], KW = w->sizes[w->dim - 1];
  if (groups < 1 || C % groups != 0 || OC % groups != 0 || WC != C / groups) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT,
                    "%s: groups %lld does not fit %lld input channels / %lld output channels (weight has %lld per group)",
                    op, (long long)groups, (long long)C, (long long)OC, (long long)WC);
    return;
  }
  if ((int64_t)bias->numel != OC) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "%s: bias has %zu elements, expected %lld", op,
                    bias->numel, (long long)OC);
    return;
  }
  const int64_t eh = IH + 2 * pad[0] - dil[0] * (KH - 1) - 1;
  const int64_t ew = IW + 2 * pad[1] - dil[1] * (KW - 1) - 1;
  if (KH < 1 || KW < 1 || eh < 0 || ew < 0) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "%s: kernel %lldx%lld does not fit the padded input %lldx%lld",
                    op, (long long)KH, (long long)KW, (long long)(IH + 2 * pad[0]), (long long)(IW + 2 * pad[1]));
    return;
  }
  const int64_t OH = eh / stride[0] + 1, OW = ew / stride[1] + 1;
  int32_t osz[4];
  osz[0] = (int32_t)N;
  osz[1] = (int32_t)OC;
  if (conv1d) {
    osz[2] = (int32_t)OW;
  } else {
    osz[2] = (int32_t)OH;
    osz[3] = (int32_t)OW;
  }
  if (OH > INT32_MAX || OW > INT32_MAX || !pte_k_resize_out(ctx, out, osz, out->dim)) return;
  if (!pte_k_check_data(ctx, in, "input") || !pte_k_check_data(ctx, w, "weight") ||
      !pte_k_check_data(ctx, bias, "bias") || !pte_k_check_data(ctx, out, "out"))
    return;

  /* strides (elements); a 1-D tensor has no height stride */
  cad_conv cv;
  cv.in = in->data;
  cv.w = w->data;
  cv.bias = (const int32_t *)bias->data;
  cv.out = out->data;
  cv.N = N, cv.IH = IH, cv.IW = IW, cv.OC = OC, cv.KH = KH, cv.KW = KW, cv.OH = OH, cv.OW = OW;
  cv.sh = stride[0], cv.sw = stride[1], cv.ph = pad[0], cv.pw = pad[1], cv.dh = dil[0], cv.dw = dil[1];
  cv.icpg = C / groups;
  cv.ocpg = OC / groups;
  cv.isn = in->strides[0], cv.isc = in->strides[1];
  cv.ish = conv1d ? 0 : in->strides[2], cv.isw = in->strides[in->dim - 1];
  cv.wso = w->strides[0], cv.wsc = w->strides[1];
  cv.wsh = conv1d ? 0 : w->strides[2], cv.wsw = w->strides[w->dim - 1];
  cv.osn = out->strides[0], cv.osc = out->strides[1];
  cv.osh = conv1d ? 0 : out->strides[2], cv.osw = out->strides[out->dim - 1];
  cv.bs = bias->dim > 0 ? bias->strides[bias->dim - 1] : 1;
  cv.izp = izp, cv.wzp = wzp;
  cv.ozp = (int32_t)ozp;
  cv.bias_scale = (float)bias_scale;
  cv.inv_out = 1.0f / (float)out_scale;
  cad_range(odt, &cv.qlo, &cv.qhi);
  if (w8a16) cad_conv_s16_s8(&cv);
  else if (idt == PTE_DTYPE_CHAR) cad_conv_s8(&cv);
  else if (idt == PTE_DTYPE_BYTE) cad_conv_u8(&cv);
  else cad_conv_s16(&cv);
  pte_k_set_return(args, nargs, 14);
}

const pte_kernel pte_custom_cadence_kernels[] = {
    {"cadence::quantize_per_tensor.out", NULL, cad_quantize_per_tensor_out},
    {"cadence::dequantize_per_tensor.out", NULL, cad_dequantize_per_tensor_out},
    {"cadence::quantized_conv2d_nchw.per_tensor_out", NULL, cad_quantized_conv2d_nchw_per_tensor_out},
};
const size_t pte_custom_cadence_kernels_count =
    sizeof pte_custom_cadence_kernels / sizeof pte_custom_cadence_kernels[0];
