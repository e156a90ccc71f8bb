/* AVX2 + FMA microkernels (compiled with target attributes; used only when the CPU has them). */
#include "xnn_internal.h"

#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
#include <immintrin.h>

#define PTE_AVX2 __attribute__((target("avx2,fma")))


PTE_AVX2 static inline __m256i lane_mask(size_t n) {
  /* lanes [0, n) set, n in [0, 8] */
  const __m256i idx = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  return _mm256_cmpgt_epi32(_mm256_set1_epi32((int)n), idx);
}

/* mr == 1: four independent k streams keep the FMA pipes busy. */
PTE_AVX2 static void f32_gemv_1x16(size_t nc, size_t kc, const float *a, const float *w, const float *bias,
                                   float *c, float vmin, float vmax) {
  const __m256i m0 = lane_mask(nc < 8 ? nc : 8), m1 = lane_mask(nc > 8 ? nc - 8 : 0);
  __m256 p0 = bias ? _mm256_loadu_ps(bias) : _mm256_maskload_ps(c, m0);
  __m256 p1 = bias ? _mm256_loadu_ps(bias + 8) : _mm256_maskload_ps(c + 8, m1);
  __m256 q0 = _mm256_setzero_ps(), q1 = _mm256_setzero_ps(), r0 = _mm256_setzero_ps(), r1 = _mm256_setzero_ps();
  __m256 s0 = _mm256_setzero_ps(), s1 = _mm256_setzero_ps();
  size_t k = 0;
  for (; k + 4 <= kc; k += 4) {
    for (int j = 0; j < 4; j++) _mm_prefetch((const char *)(w + 1024 + 16 * j), _MM_HINT_T0);
    const __m256 x0 = _mm256_broadcast_ss(a + k), x1 = _mm256_broadcast_ss(a + k + 1);
    const __m256 x2 = _mm256_broadcast_ss(a + k + 2), x3 = _mm256_broadcast_ss(a + k + 3);
    p0 = _mm256_fmadd_ps(x0, _mm256_loadu_ps(w), p0);
    p1 = _mm256_fmadd_ps(x0, _mm256_loadu_ps(w + 8), p1);
    q0 = _mm256_fmadd_ps(x1, _mm256_loadu_ps(w + 16), q0);
    q1 = _mm256_fmadd_ps(x1, _mm256_loadu_ps(w + 24), q1);
    r0 = _mm256_fmadd_ps(x2, _mm256_loadu_ps(w + 32), r0);
    r1 = _mm256_fmadd_ps(x2, _mm256_loadu_ps(w + 40), r1);
    s0 = _mm256_fmadd_ps(x3, _mm256_loadu_ps(w + 48), s0);
    s1 = _mm256_fmadd_ps(x3, _mm256_loadu_ps(w + 56), s1);
    w += 64;
  }
  for (; k < kc; k++) {
    const __m256 x0 = _mm256_broadcast_ss(a + k);
    p0 = _mm256_fmadd_ps(x0, _mm256_loadu_ps(w), p0);
    p1 = _mm256_fmadd_ps(x0, _mm256_loadu_ps(w + 8), p1);
    w += 16;
  }
  p0 = _mm256_add_ps(_mm256_add_ps(p0, q0), _mm256_add_ps(r0, s0));
  p1 = _mm256_add_ps(_mm256_add_ps(p1, q1), _mm256_add_ps(r1, s1));
  const __m256 lo = _mm256_set1_ps(vmin), hi = _mm256_set1_ps(vmax);
  p0 = _mm256_min_ps(_mm256_max_ps(p0, lo), hi);
  p1 = _mm256_min_ps(_mm256_max_ps(p1, lo), hi);
  if (nc == 16) {
    _mm256_storeu_ps(c, p0);
    _mm256_storeu_ps(c + 8, p1);
  } else {
    _mm256_maskstore_ps(c, m0, p0);
    _mm256_maskstore_ps(c + 8, m1, p1);
  }
}

/* fp32 GEMM 6x16 over nseg K segments (see the AVX-512 kernel). */
PTE_AVX2 static void f32_igemm_6x16(size_t mr, size_t nc, size_t nseg, size_t kc, const float *const *aseg, size_t as,
                                    const float *const *wseg, const float *bias, float *c, size_t cs, float vmin,
                                    float vmax) {
  float *c0 = c, *c1 = mr > 1 ? c0 + cs : c0, *c2 = mr > 2 ? c1 + cs : c1;
  float *c3 = mr > 3 ? c2 + cs : c2, *c4 = mr > 4 ? c3 + cs : c3, *c5 = mr > 5 ? c4 + cs : c4;
  const size_t o1 = mr > 1 ? as : 0, o2 = mr > 2 ? 2 * as : o1, o3 = mr > 3 ? 3 * as : o2, o4 = mr > 4 ? 4 * as : o3;
  const size_t o5 = mr > 5 ? 5 * as : o4;
  const __m256i m0 = lane_mask(nc < 8 ? nc : 8), m1 = lane_mask(nc > 8 ? nc - 8 : 0);
  __m256 v00, v01, v10, v11, v20, v21, v30, v31, v40, v41, v50, v51;
  if (bias) {
    v00 = _mm256_loadu_ps(bias);
    v01 = _mm256_loadu_ps(bias + 8);
    v10 = v00, v11 = v01, v20 = v00, v21 = v01, v30 = v00, v31 = v01, v40 = v00, v41 = v01, v50 = v00, v51 = v01;
  } else {
    v00 = _mm256_maskload_ps(c0, m0), v01 = _mm256_maskload_ps(c0 + 8, m1);
    v10 = _mm256_maskload_ps(c1, m0), v11 = _mm256_maskload_ps(c1 + 8, m1);
    v20 = _mm256_maskload_ps(c2, m0), v21 = _mm256_maskload_ps(c2 + 8, m1);
    v30 = _mm256_maskload_ps(c3, m0), v31 = _mm256_maskload_ps(c3 + 8, m1);
    v40 = _mm256_maskload_ps(c4, m0), v41 = _mm256_maskload_ps(c4 + 8, m1);
    v50 = _mm256_maskload_ps(c5, m0), v51 = _mm256_maskload_ps(c5 + 8, m1);
  }
  for (size_t sgi = 0; sgi < nseg; sgi++) {
    const float *a0 = aseg[sgi], *a1 = a0 + o1, *a2 = a0 + o2, *a3 = a0 + o3, *a4 = a0 + o4, *a5 = a0 + o5;
    const float *w = wseg[sgi];
    for (size_t k = 0; k < kc; k++) {
      const __m256 w0 = _mm256_loadu_ps(w), w1 = _mm256_loadu_ps(w + 8);
      w += 16;
      __m256 x = _mm256_broadcast_ss(a0 + k);
      v00 = _mm256_fmadd_ps(x, w0, v00), v01 = _mm256_fmadd_ps(x, w1, v01);
      x = _mm256_broadcast_ss(a1 + k);
      v10 = _mm256_fmadd_ps(x, w0, v10), v11 = _mm256_fmadd_ps(x, w1, v11);
      x = _mm256_broadcast_ss(a2 + k);
      v20 = _mm256_fmadd_ps(x, w0, v20), v21 = _mm256_fmadd_ps(x, w1, v21);
      x = _mm256_broadcast_ss(a3 + k);
      v30 = _mm256_fmadd_ps(x, w0, v30), v31 = _mm256_fmadd_ps(x, w1, v31);
      x = _mm256_broadcast_ss(a4 + k);
      v40 = _mm256_fmadd_ps(x, w0, v40), v41 = _mm256_fmadd_ps(x, w1, v41);
      x = _mm256_broadcast_ss(a5 + k);
      v50 = _mm256_fmadd_ps(x, w0, v50), v51 = _mm256_fmadd_ps(x, w1, v51);
    }
  }
  const __m256 lo = _mm256_set1_ps(vmin), hi = _mm256_set1_ps(vmax);
#define CL(v) v = _mm256_min_ps(_mm256_max_ps(v, lo), hi)
  CL(v00); CL(v01); CL(v10); CL(v11); CL(v20); CL(v21); CL(v30); CL(v31); CL(v40); CL(v41); CL(v50); CL(v51);
#undef CL
  if (nc == 16) {
    _mm256_storeu_ps(c5, v50), _mm256_storeu_ps(c5 + 8, v51);
    _mm256_storeu_ps(c4, v40), _mm256_storeu_ps(c4 + 8, v41);
    _mm256_storeu_ps(c3, v30), _mm256_storeu_ps(c3 + 8, v31);
    _mm256_storeu_ps(c2, v20), _mm256_storeu_ps(c2 + 8, v21);
    _mm256_storeu_ps(c1, v10), _mm256_storeu_ps(c1 + 8, v11);
    _mm256_storeu_ps(c0, v00), _mm256_storeu_ps(c0 + 8, v01);
  } else {
    _mm256_maskstore_ps(c5, m0, v50), _mm256_maskstore_ps(c5 + 8, m1, v51);
    _mm256_maskstore_ps(c4, m0, v40), _mm256_maskstore_ps(c4 + 8, m1, v41);
    _mm256_maskstore_ps(c3, m0, v30), _mm256_maskstore_ps(c3 + 8, m1, v31);
    _mm256_maskstore_ps(c2, m0, v20), _mm256_maskstore_ps(c2 + 8, m1, v21);
    _mm256_maskstore_ps(c1, m0, v10), _mm256_maskstore_ps(c1 + 8, m1, v11);
    _mm256_maskstore_ps(c0, m0, v00), _mm256_maskstore_ps(c0 + 8, m1, v01);
  }
}

PTE_AVX2 static void f32_gemm_6x16(size_t mr, size_t nc, size_t kc, const float *a, size_t as, const float *w,
                                   const float *bias, float *c, size_t cs, float vmin, float vmax) {
  if (mr == 1) {
    f32_gemv_1x16(nc, kc, a, w, bias, c, vmin, vmax);
    return;
  }
  f32_igemm_6x16(mr, nc, 1, kc, &a, as, &w, bias, c, cs, vmin, vmax);
}

PTE_AVX2 static void f32_vadd(size_t n, const float *a, const float *b, float *y, float vmin, float vmax) {
  const __m256 lo = _mm256_set1_ps(vmin), hi = _mm256_set1_ps(vmax);
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m256 v = _mm256_add_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i));
    _mm256_storeu_ps(y + i, _mm256_min_ps(_mm256_max_ps(v, lo), hi));
  }
  for (; i < n; i++) y[i] = pte_xnn_clampf(a[i] + b[i], vmin, vmax);
}

PTE_AVX2 static void f32_vmul(size_t n, const float *a, const float *b, float *y, float vmin, float vmax) {
  const __m256 lo = _mm256_set1_ps(vmin), hi = _mm256_set1_ps(vmax);
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m256 v = _mm256_mul_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i));
    _mm256_storeu_ps(y + i, _mm256_min_ps(_mm256_max_ps(v, lo), hi));
  }
  for (; i < n; i++) y[i] = pte_xnn_clampf(a[i] * b[i], vmin, vmax);
}

PTE_AVX2 static void f32_vclamp(size_t n, const float *x, float *y, float vmin, float vmax) {
  const __m256 lo = _mm256_set1_ps(vmin), hi = _mm256_set1_ps(vmax);
  size_t i = 0;
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(y + i, _mm256_min_ps(_mm256_max_ps(_mm256_loadu_ps(x + i), lo), hi));
  for (; i < n; i++) y[i] = pte_xnn_clampf(x[i], vmin, vmax);
}

PTE_AVX2 static void f32_dw_row(size_t c, size_t taps, const float **in, const float *w, const float *bias, float *out,
                                float vmin, float vmax) {
  const __m256 lo = _mm256_set1_ps(vmin), hi = _mm256_set1_ps(vmax);
  size_t ch = 0;
  for (; ch + 8 <= c; ch += 8) {
    __m256 acc = _mm256_loadu_ps(bias + ch);
    for (size_t t = 0; t < taps; t++) acc = _mm256_fmadd_ps(_mm256_loadu_ps(in[t] + ch), _mm256_loadu_ps(w + t * c + ch), acc);
    _mm256_storeu_ps(out + ch, _mm256_min_ps(_mm256_max_ps(acc, lo), hi));
  }
  for (; ch < c; ch++) {
    float acc = bias[ch];
    for (size_t t = 0; t < taps; t++) acc += in[t][ch] * w[t * c + ch];
    out[ch] = pte_xnn_clampf(acc, vmin, vmax);
  }
}

/* int8 GEMM 4x8 with pairs of k (KR = 2): one vpmaddwd per row and k pair. */
PTE_AVX2 void pte_xnn_i8_gemm_4x8_avx2(size_t mr, size_t kc, const int8_t *a, size_t as, const int8_t *w, int32_t *acc) {
  const int8_t *a0 = a, *a1 = mr > 1 ? a0 + as : a0, *a2 = mr > 2 ? a1 + as : a1, *a3 = mr > 3 ? a2 + as : a2;
  __m256i s0 = _mm256_setzero_si256(), s1 = _mm256_setzero_si256(), s2 = _mm256_setzero_si256();
  __m256i s3 = _mm256_setzero_si256();
  size_t k = 0;
#define PAIR(p, i) ((int32_t)(uint16_t)(int16_t)(p)[i] | (int32_t)((uint32_t)(uint16_t)(int16_t)(p)[(i) + 1] << 16))
  for (; k + 2 <= kc; k += 2) {
    const __m256i wv = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)w));
    w += 16;
    s0 = _mm256_add_epi32(s0, _mm256_madd_epi16(_mm256_set1_epi32(PAIR(a0, k)), wv));
    s1 = _mm256_add_epi32(s1, _mm256_madd_epi16(_mm256_set1_epi32(PAIR(a1, k)), wv));
    s2 = _mm256_add_epi32(s2, _mm256_madd_epi16(_mm256_set1_epi32(PAIR(a2, k)), wv));
    s3 = _mm256_add_epi32(s3, _mm256_madd_epi16(_mm256_set1_epi32(PAIR(a3, k)), wv));
  }
#undef PAIR
  if (k < kc) { /* odd K: the last pair's second half is zero padding */
    const __m256i wv = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)w));
    s0 = _mm256_add_epi32(s0, _mm256_madd_epi16(_mm256_set1_epi32((int32_t)(uint16_t)(int16_t)a0[k]), wv));
    s1 = _mm256_add_epi32(s1, _mm256_madd_epi16(_mm256_set1_epi32((int32_t)(uint16_t)(int16_t)a1[k]), wv));
    s2 = _mm256_add_epi32(s2, _mm256_madd_epi16(_mm256_set1_epi32((int32_t)(uint16_t)(int16_t)a2[k]), wv));
    s3 = _mm256_add_epi32(s3, _mm256_madd_epi16(_mm256_set1_epi32((int32_t)(uint16_t)(int16_t)a3[k]), wv));
  }
  _mm256_storeu_si256((__m256i *)acc, s0);
  _mm256_storeu_si256((__m256i *)(acc + 8), s1);
  _mm256_storeu_si256((__m256i *)(acc + 16), s2);
  _mm256_storeu_si256((__m256i *)(acc + 24), s3);
}

static const pte_xnn_kernels k_avx2 = {PTE_XNN_KISA_AVX2, 6, 16, f32_gemm_6x16, f32_igemm_6x16, 0, 0, NULL, NULL, 4, 8,
                                       pte_xnn_i8_gemm_4x8_avx2, f32_vadd, f32_vmul, f32_vclamp, f32_dw_row};

const pte_xnn_kernels *pte_xnn_kernels_avx2(void) { return &k_avx2; }

#else
const pte_xnn_kernels *pte_xnn_kernels_avx2(void) { return NULL; }
#endif
