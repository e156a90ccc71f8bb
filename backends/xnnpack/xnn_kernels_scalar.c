/* Portable microkernels (always compiled) and run-time ISA selection. */
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "xnn_internal.h"

/* fp32 GEMM 4x4 over nseg K segments: rows past mr alias the last valid row (their results are
 * identical, so the duplicate stores are harmless); columns past nc are computed on the zero
 * padding of the panel and not stored. */
static void f32_igemm_4x4(size_t mr, size_t nc, size_t nseg, size_t kc, const float *const *aseg, size_t as,
                          const float *const *wseg, const float *bias, float *c, size_t cs, float vmin, float vmax) {
  float *c0 = c, *c1 = mr > 1 ? c0 + cs : c0, *c2 = mr > 2 ? c1 + cs : c1, *c3 = mr > 3 ? c2 + cs : c2;
  const size_t o1 = mr > 1 ? as : 0, o2 = mr > 2 ? 2 * as : o1, o3 = mr > 3 ? 3 * as : o2;
  float acc[4][4];
  float *cr[4] = {c0, c1, c2, c3};
  if (bias) {
    for (int r = 0; r < 4; r++)
      for (int j = 0; j < 4; j++) acc[r][j] = bias[j];
  } else {
    for (int r = 0; r < 4; r++)
      for (int j = 0; j < 4; j++) acc[r][j] = (size_t)j < nc ? cr[r][j] : 0.0f;
  }
  for (size_t sgi = 0; sgi < nseg; sgi++) {
    const float *a0 = aseg[sgi], *a1 = a0 + o1, *a2 = a0 + o2, *a3 = a0 + o3;
    const float *w = wseg[sgi];
    for (size_t k = 0; k < kc; k++) {
      const float x0 = a0[k], x1 = a1[k], x2 = a2[k], x3 = a3[k];
      for (int j = 0; j < 4; j++) {
        const float wj = w[j];
        acc[0][j] += x0 * wj;
        acc[1][j] += x1 * wj;
        acc[2][j] += x2 * wj;
        acc[3][j] += x3 * wj;
      }
      w += 4;
    }
  }
  for (int r = 3; r >= 0; r--)
    for (size_t j = 0; j < nc; j++) cr[r][j] = pte_xnn_clampf(acc[r][j], vmin, vmax);
}

static void f32_gemm_4x4(size_t mr, size_t nc, size_t kc, const float *a, size_t as, const float *w,
                         const float *bias, float *c, size_t cs, float vmin, float vmax) {
  f32_igemm_4x4(mr, nc, 1, kc, &a, as, &w, bias, c, cs, vmin, vmax);
}

/* int8 GEMM 4x8: acc[r][j] = sum_k a_r[k] * w[k][j]; the panel holds k pairs interleaved per
 * column (w[k/2][j][k%2], K padded to even with zeros). */
void pte_xnn_i8_gemm_4x8(size_t mr, size_t kc, const int8_t *a, size_t as, const int8_t *w, int32_t *acc) {
  const int8_t *a0 = a, *a1 = mr > 1 ? a0 + as : a0, *a2 = mr > 2 ? a1 + as : a1, *a3 = mr > 3 ? a2 + as : a2;
  const int8_t *ar[4] = {a0, a1, a2, a3};
  int32_t s[4][8];
  memset(s, 0, sizeof s);
  for (size_t k = 0; k < kc; k += 2) {
    const bool two = k + 1 < kc;
    for (int r = 0; r < 4; r++) {
      const int32_t x0 = ar[r][k], x1 = two ? ar[r][k + 1] : 0;
      for (int j = 0; j < 8; j++) s[r][j] += x0 * w[2 * j] + x1 * w[2 * j + 1];
    }
    w += 16;
  }
  memcpy(acc, s, sizeof s);
}

static void f32_vadd(size_t n, const float *a, const float *b, float *y, float vmin, float vmax) {
  for (size_t i = 0; i < n; i++) y[i] = pte_xnn_clampf(a[i] + b[i], vmin, vmax);
}
static void f32_vmul(size_t n, const float *a, const float *b, float *y, float vmin, float vmax) {
  for (size_t i = 0; i < n; i++) y[i] = pte_xnn_clampf(a[i] * b[i], vmin, vmax);
}
static void f32_vclamp(size_t n, const float *x, float *y, float vmin, float vmax) {
  for (size_t i = 0; i < n; i++) y[i] = pte_xnn_clampf(x[i], vmin, vmax);
}

static void f32_dw_row(size_t c, size_t taps, const float **in, const float *w, const float *bias, float *out,
                       float vmin, float vmax) {
  for (size_t ch = 0; ch < c; ch++) {
    float acc = bias[ch];
    for (size_t t = 0; t < taps; t++) acc += in[t][ch] * w[t * c + ch];
    out[ch] = pte_xnn_clampf(acc, vmin, vmax);
  }
}

static const pte_xnn_kernels k_scalar = {
    PTE_XNN_KISA_SCALAR, 4, 4, f32_gemm_4x4, f32_igemm_4x4, 0, 0, NULL, NULL, 4, 8, pte_xnn_i8_gemm_4x8, f32_vadd, f32_vmul, f32_vclamp,
    f32_dw_row};

const pte_xnn_kernels *pte_xnn_kernels_scalar(void) { return &k_scalar; }


pte_xnn_kisa pte_xnn_cpu_best_isa(void) {
#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
  __builtin_cpu_init();
  if (pte_xnn_kernels_avx512() && __builtin_cpu_supports("avx512f")) return PTE_XNN_KISA_AVX512;
  if (pte_xnn_kernels_avx2() && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
    return PTE_XNN_KISA_AVX2;
#endif
  return PTE_XNN_KISA_SCALAR;
}

const pte_xnn_kernels *pte_xnn_kernels_for(pte_xnn_kisa isa) {
  switch (isa) {
    case PTE_XNN_KISA_AVX512: return pte_xnn_kernels_avx512();
    case PTE_XNN_KISA_AVX2: return pte_xnn_kernels_avx2();
    case PTE_XNN_KISA_SCALAR: return &k_scalar;
  }
  return NULL;
}

const pte_xnn_vec_kernels *pte_xnn_vec_kernels_for(const pte_xnn_kernels *k) {
  const pte_xnn_vec_kernels *v = NULL;
  if (k && k->isa == PTE_XNN_KISA_AVX512) v = pte_xnn_vec_kernels_avx512();
  if (k && k->isa == PTE_XNN_KISA_AVX2) v = pte_xnn_vec_kernels_avx2();
  return v ? v : pte_xnn_vec_kernels_scalar();
}

int32_t pte_xnn_quantize(float x, float inv_scale, int32_t zp, int32_t qmin, int32_t qmax) {
  float v = x * inv_scale + (float)zp;
  float lo = (float)qmin, hi = (float)qmax;
  if (!(v >= lo)) v = lo; /* NaN -> qmin */
  if (v > hi) v = hi;
  return (int32_t)lrintf(v);
}

pte_xnn_qrow pte_xnn_qd8_params(float rmin, float rmax, float *inv_scale) {
  /* The range always contains 0; it is spread over the 255 int8 steps and the zero point is
   * nudged to an integer so that 0.0 is exact (the rule of XNNPACK's f32 -> qd8 conversion).
   * *inv_scale is the multiplier that quantizes (x * inv_scale + zero_point). */
  pte_xnn_qrow q;
  if (!(rmin < 0.0f)) rmin = 0.0f;
  if (!(rmax > 0.0f)) rmax = 0.0f;
  const float qmin = -128.0f, qmax = 127.0f;
  const float inv = rmin == rmax ? 1.0f : (qmax - qmin) / (rmax - rmin);
  const float rmin_s = rmin * inv, rmax_s = rmax * inv;
  float zp = (qmin + rmin_s) + (qmax + rmax_s) > 0.0f ? qmin - rmin_s : qmax - rmax_s;
  if (zp < qmin) zp = qmin;
  if (zp > qmax) zp = qmax;
  q.scale = 1.0f / inv;
  q.zero_point = (int32_t)lrintf(zp);
  if (inv_scale) *inv_scale = inv;
  return q;
}
