/* AVX-512F microkernels (compiled with target attributes; used only when the CPU has them). */
#include <string.h>

#include "xnn_internal.h"
#include "xnn_qs8_tile.h"

#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
#include <immintrin.h>

#define PTE_AVX512 __attribute__((target("avx512f")))

static inline __mmask16 mask16(size_t n) { return n >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << n) - 1u); }

/* mr == 1: the panel is streamed once; four k streams hide the FMA latency. */
PTE_AVX512 static void f32_gemv_1x32(size_t nc, size_t kc, const float *a, const float *w, const float *bias,
                                     float *c, float vmin, float vmax) {
  const __mmask16 m0 = mask16(nc), m1 = mask16(nc > 16 ? nc - 16 : 0);
  __m512 p0 = bias ? _mm512_loadu_ps(bias) : _mm512_maskz_loadu_ps(m0, c);
  __m512 p1 = bias ? _mm512_loadu_ps(bias + 16) : _mm512_maskz_loadu_ps(m1, c + 16);
  __m512 q0 = _mm512_setzero_ps(), q1 = _mm512_setzero_ps(), r0 = _mm512_setzero_ps(), r1 = _mm512_setzero_ps();
  __m512 s0 = _mm512_setzero_ps(), s1 = _mm512_setzero_ps();
  size_t k = 0;
  for (; k + 4 <= kc; k += 4) {
    /* the panel is read once: fetch 4 KiB ahead (measured ~20% faster from L3 than hardware
     * prefetch alone) */
    for (int j = 0; j < 8; j++) _mm_prefetch((const char *)(w + 1024 + 16 * j), _MM_HINT_T0);
    const __m512 x0 = _mm512_set1_ps(a[k]), x1 = _mm512_set1_ps(a[k + 1]);
    const __m512 x2 = _mm512_set1_ps(a[k + 2]), x3 = _mm512_set1_ps(a[k + 3]);
    p0 = _mm512_fmadd_ps(x0, _mm512_loadu_ps(w), p0);
    p1 = _mm512_fmadd_ps(x0, _mm512_loadu_ps(w + 16), p1);
    q0 = _mm512_fmadd_ps(x1, _mm512_loadu_ps(w + 32), q0);
    q1 = _mm512_fmadd_ps(x1, _mm512_loadu_ps(w + 48), q1);
    r0 = _mm512_fmadd_ps(x2, _mm512_loadu_ps(w + 64), r0);
    r1 = _mm512_fmadd_ps(x2, _mm512_loadu_ps(w + 80), r1);
    s0 = _mm512_fmadd_ps(x3, _mm512_loadu_ps(w + 96), s0);
    s1 = _mm512_fmadd_ps(x3, _mm512_loadu_ps(w + 112), s1);
    w += 128;
  }
  for (; k < kc; k++) {
    const __m512 x0 = _mm512_set1_ps(a[k]);
    p0 = _mm512_fmadd_ps(x0, _mm512_loadu_ps(w), p0);
    p1 = _mm512_fmadd_ps(x0, _mm512_loadu_ps(w + 16), p1);
    w += 32;
  }
  p0 = _mm512_add_ps(_mm512_add_ps(p0, q0), _mm512_add_ps(r0, s0));
  p1 = _mm512_add_ps(_mm512_add_ps(p1, q1), _mm512_add_ps(r1, s1));
  const __m512 lo = _mm512_set1_ps(vmin), hi = _mm512_set1_ps(vmax);
  p0 = _mm512_min_ps(_mm512_max_ps(p0, lo), hi);
  p1 = _mm512_min_ps(_mm512_max_ps(p1, lo), hi);
  _mm512_mask_storeu_ps(c, m0, p0);
  _mm512_mask_storeu_ps(c + 16, m1, p1);
}

/* fp32 GEMM 8x32 with explicit accumulators (16) for full 8-row tiles, over nseg K segments: segment s reads rows a[s] + r * as and
 * the kc x 32 weights at w[s] (nseg 1 is a plain GEMM). */
PTE_AVX512 static void f32_igemm_8x32_all(size_t mr, size_t nc, size_t nseg, size_t kc, const float *const *aseg, size_t as,
                                      const float *const *wseg, const float *bias, float *c, size_t cs, float vmin,
                                      float vmax) {
  float *c0 = c, *c1 = mr > 1 ? c0 + cs : c0, *c2 = mr > 2 ? c1 + cs : c1, *c3 = mr > 3 ? c2 + cs : c2;
  float *c4 = mr > 4 ? c3 + cs : c3, *c5 = mr > 5 ? c4 + cs : c4, *c6 = mr > 6 ? c5 + cs : c5;
  float *c7 = mr > 7 ? c6 + cs : c6;
  const size_t o1 = mr > 1 ? as : 0, o2 = mr > 2 ? 2 * as : o1, o3 = mr > 3 ? 3 * as : o2, o4 = mr > 4 ? 4 * as : o3;
  const size_t o5 = mr > 5 ? 5 * as : o4, o6 = mr > 6 ? 6 * as : o5, o7 = mr > 7 ? 7 * as : o6;
  const __mmask16 m0 = mask16(nc), m1 = mask16(nc > 16 ? nc - 16 : 0);
  __m512 v00, v01, v10, v11, v20, v21, v30, v31, v40, v41, v50, v51, v60, v61, v70, v71;
  if (bias) {
    v00 = _mm512_loadu_ps(bias);
    v01 = _mm512_loadu_ps(bias + 16);
    v10 = v00, v11 = v01, v20 = v00, v21 = v01, v30 = v00, v31 = v01;
    v40 = v00, v41 = v01, v50 = v00, v51 = v01, v60 = v00, v61 = v01, v70 = v00, v71 = v01;
  } else {
    v00 = _mm512_maskz_loadu_ps(m0, c0), v01 = _mm512_maskz_loadu_ps(m1, c0 + 16);
    v10 = _mm512_maskz_loadu_ps(m0, c1), v11 = _mm512_maskz_loadu_ps(m1, c1 + 16);
    v20 = _mm512_maskz_loadu_ps(m0, c2), v21 = _mm512_maskz_loadu_ps(m1, c2 + 16);
    v30 = _mm512_maskz_loadu_ps(m0, c3), v31 = _mm512_maskz_loadu_ps(m1, c3 + 16);
    v40 = _mm512_maskz_loadu_ps(m0, c4), v41 = _mm512_maskz_loadu_ps(m1, c4 + 16);
    v50 = _mm512_maskz_loadu_ps(m0, c5), v51 = _mm512_maskz_loadu_ps(m1, c5 + 16);
    v60 = _mm512_maskz_loadu_ps(m0, c6), v61 = _mm512_maskz_loadu_ps(m1, c6 + 16);
    v70 = _mm512_maskz_loadu_ps(m0, c7), v71 = _mm512_maskz_loadu_ps(m1, c7 + 16);
  }
  for (size_t sgi = 0; sgi < nseg; sgi++) {
    const float *a0 = aseg[sgi], *a1 = a0 + o1, *a2 = a0 + o2, *a3 = a0 + o3;
    const float *a4 = a0 + o4, *a5 = a0 + o5, *a6 = a0 + o6, *a7 = a0 + o7;
    const float *w = wseg[sgi];
    for (size_t k = 0; k < kc; k++) {
      const __m512 w0 = _mm512_loadu_ps(w), w1 = _mm512_loadu_ps(w + 16);
      w += 32;
      __m512 x = _mm512_set1_ps(a0[k]);
      v00 = _mm512_fmadd_ps(x, w0, v00), v01 = _mm512_fmadd_ps(x, w1, v01);
      x = _mm512_set1_ps(a1[k]);
      v10 = _mm512_fmadd_ps(x, w0, v10), v11 = _mm512_fmadd_ps(x, w1, v11);
      x = _mm512_set1_ps(a2[k]);
      v20 = _mm512_fmadd_ps(x, w0, v20), v21 = _mm512_fmadd_ps(x, w1, v21);
      x = _mm512_set1_ps(a3[k]);
      v30 = _mm512_fmadd_ps(x, w0, v30), v31 = _mm512_fmadd_ps(x, w1, v31);
      x = _mm512_set1_ps(a4[k]);
      v40 = _mm512_fmadd_ps(x, w0, v40), v41 = _mm512_fmadd_ps(x, w1, v41);
      x = _mm512_set1_ps(a5[k]);
      v50 = _mm512_fmadd_ps(x, w0, v50), v51 = _mm512_fmadd_ps(x, w1, v51);
      x = _mm512_set1_ps(a6[k]);
      v60 = _mm512_fmadd_ps(x, w0, v60), v61 = _mm512_fmadd_ps(x, w1, v61);
      x = _mm512_set1_ps(a7[k]);
      v70 = _mm512_fmadd_ps(x, w0, v70), v71 = _mm512_fmadd_ps(x, w1, v71);
    }
  }
  const __m512 lo = _mm512_set1_ps(vmin), hi = _mm512_set1_ps(vmax);
#define ST(cp, va, vb)                                                          \
  _mm512_mask_storeu_ps(cp, m0, _mm512_min_ps(_mm512_max_ps(va, lo), hi));      \
  _mm512_mask_storeu_ps(cp + 16, m1, _mm512_min_ps(_mm512_max_ps(vb, lo), hi))
  ST(c7, v70, v71);
  ST(c6, v60, v61);
  ST(c5, v50, v51);
  ST(c4, v40, v41);
  ST(c3, v30, v31);
  ST(c2, v20, v21);
  ST(c1, v10, v11);
  ST(c0, v00, v01);
#undef ST
}

/* fp32 GEMM MR x 32 (2 * MR accumulators, MR <= 8) over nseg K segments: segment s reads rows
 * a[s] + r * as and the kc x 32 weights at w[s] (nseg 1 is a plain GEMM). MR is a compile-time
 * constant in every instantiation below, so a tile of r < 8 rows costs r rows of FMAs (a 14-pixel
 * row runs as 7 + 7, not 8 + 8 with two wasted rows). */
#define F32R_ROW(r)                                                                        \
  if (MR > r) {                                                                            \
    const __m512 x = _mm512_set1_ps(a0[(r) * as + k]);                                    \
    acc[r][0] = _mm512_fmadd_ps(x, w0, acc[r][0]), acc[r][1] = _mm512_fmadd_ps(x, w1, acc[r][1]); \
  }
__attribute__((always_inline)) PTE_AVX512 static inline void f32_igemm_rx32(const size_t MR, size_t nc, size_t nseg,
                                                                          size_t kc, const float *const *aseg,
                                                                          size_t as, const float *const *wseg,
                                                                          const float *bias, float *c, size_t cs,
                                                                          float vmin, float vmax) {
  const __mmask16 m0 = mask16(nc), m1 = mask16(nc > 16 ? nc - 16 : 0);
  __m512 acc[8][2];
  for (size_t r = 0; r < MR; r++) {
    acc[r][0] = bias ? _mm512_loadu_ps(bias) : _mm512_maskz_loadu_ps(m0, c + r * cs);
    acc[r][1] = bias ? _mm512_loadu_ps(bias + 16) : _mm512_maskz_loadu_ps(m1, c + r * cs + 16);
  }
  for (size_t sgi = 0; sgi < nseg; sgi++) {
    const float *a0 = aseg[sgi];
    const float *w = wseg[sgi];
    for (size_t k = 0; k < kc; k++) {
      const __m512 w0 = _mm512_loadu_ps(w), w1 = _mm512_loadu_ps(w + 16);
      w += 32;
      F32R_ROW(0) F32R_ROW(1) F32R_ROW(2) F32R_ROW(3) F32R_ROW(4) F32R_ROW(5) F32R_ROW(6) F32R_ROW(7)
    }
  }
  const __m512 lo = _mm512_set1_ps(vmin), hi = _mm512_set1_ps(vmax);
#pragma GCC unroll 8
  for (size_t r = 0; r < MR; r++) {
    _mm512_mask_storeu_ps(c + r * cs, m0, _mm512_min_ps(_mm512_max_ps(acc[r][0], lo), hi));
    _mm512_mask_storeu_ps(c + r * cs + 16, m1, _mm512_min_ps(_mm512_max_ps(acc[r][1], lo), hi));
  }
}
#undef F32R_ROW

#define F32R_INST(R)                                                                                              \
  PTE_AVX512 static void f32_igemm_##R##x32(size_t nc, size_t nseg, size_t kc, const float *const *aseg, size_t as, \
                                            const float *const *wseg, const float *bias, float *c, size_t cs,      \
                                            float vmin, float vmax) {                                              \
    f32_igemm_rx32(R, nc, nseg, kc, aseg, as, wseg, bias, c, cs, vmin, vmax);                                      \
  }
F32R_INST(1)
F32R_INST(2)
F32R_INST(3)
F32R_INST(4)
F32R_INST(5)
F32R_INST(6)
F32R_INST(7)
#undef F32R_INST

PTE_AVX512 static void f32_igemm_8x32(size_t mr, size_t nc, size_t nseg, size_t kc, const float *const *aseg, size_t as,
                                      const float *const *wseg, const float *bias, float *c, size_t cs, float vmin,
                                      float vmax) {
  switch (mr) {
    case 1: f32_igemm_1x32(nc, nseg, kc, aseg, as, wseg, bias, c, cs, vmin, vmax); break;
    case 2: f32_igemm_2x32(nc, nseg, kc, aseg, as, wseg, bias, c, cs, vmin, vmax); break;
    case 3: f32_igemm_3x32(nc, nseg, kc, aseg, as, wseg, bias, c, cs, vmin, vmax); break;
    case 4: f32_igemm_4x32(nc, nseg, kc, aseg, as, wseg, bias, c, cs, vmin, vmax); break;
    case 5: f32_igemm_5x32(nc, nseg, kc, aseg, as, wseg, bias, c, cs, vmin, vmax); break;
    case 6: f32_igemm_6x32(nc, nseg, kc, aseg, as, wseg, bias, c, cs, vmin, vmax); break;
    case 7: f32_igemm_7x32(nc, nseg, kc, aseg, as, wseg, bias, c, cs, vmin, vmax); break;
    default: f32_igemm_8x32_all(8, nc, nseg, kc, aseg, as, wseg, bias, c, cs, vmin, vmax); break;
  }
}

PTE_AVX512 static void f32_gemm_8x32(size_t mr, size_t nc, size_t kc, const float *a, size_t as, const float *w,
                                     const float *bias, float *c, size_t cs, float vmin, float vmax) {
  if (mr == 1) {
    f32_gemv_1x32(nc, kc, a, w, bias, c, vmin, vmax);
    return;
  }
  f32_igemm_8x32(mr, nc, 1, kc, &a, as, &w, bias, c, cs, vmin, vmax);
}

/* fp32 GEMM 16x16 for narrow outputs (N <= 16): one zmm per row, 16 accumulators. */
PTE_AVX512 static void f32_igemm_16x16(size_t mr, size_t nc, size_t nseg, size_t kc, const float *const *aseg,
                                       size_t as, const float *const *wseg, const float *bias, float *c, size_t cs,
                                       float vmin, float vmax) {
  size_t off[16];
  float *cp[16];
  off[0] = 0;
  cp[0] = c;
  for (size_t r = 1; r < 16; r++) {
    off[r] = r < mr ? r * as : off[r - 1];
    cp[r] = r < mr ? c + r * cs : cp[r - 1];
  }
  const __mmask16 m0 = mask16(nc);
  __m512 v0, v1, v2, v3, v4, v5, v6, v7, v8, v9, v10, v11, v12, v13, v14, v15;
  if (bias) {
    v0 = _mm512_loadu_ps(bias);
    v1 = v0; v2 = v0; v3 = v0; v4 = v0; v5 = v0; v6 = v0; v7 = v0; v8 = v0; v9 = v0; v10 = v0; v11 = v0; v12 = v0; v13 = v0; v14 = v0; v15 = v0;
  } else {
    v0 = _mm512_maskz_loadu_ps(m0, cp[0]);
    v1 = _mm512_maskz_loadu_ps(m0, cp[1]);
    v2 = _mm512_maskz_loadu_ps(m0, cp[2]);
    v3 = _mm512_maskz_loadu_ps(m0, cp[3]);
    v4 = _mm512_maskz_loadu_ps(m0, cp[4]);
    v5 = _mm512_maskz_loadu_ps(m0, cp[5]);
    v6 = _mm512_maskz_loadu_ps(m0, cp[6]);
    v7 = _mm512_maskz_loadu_ps(m0, cp[7]);
    v8 = _mm512_maskz_loadu_ps(m0, cp[8]);
    v9 = _mm512_maskz_loadu_ps(m0, cp[9]);
    v10 = _mm512_maskz_loadu_ps(m0, cp[10]);
    v11 = _mm512_maskz_loadu_ps(m0, cp[11]);
    v12 = _mm512_maskz_loadu_ps(m0, cp[12]);
    v13 = _mm512_maskz_loadu_ps(m0, cp[13]);
    v14 = _mm512_maskz_loadu_ps(m0, cp[14]);
    v15 = _mm512_maskz_loadu_ps(m0, cp[15]);
  }
  for (size_t sgi = 0; sgi < nseg; sgi++) {
    const float *a0 = aseg[sgi];
    const float *a1 = a0 + off[1];
    const float *a2 = a0 + off[2];
    const float *a3 = a0 + off[3];
    const float *a4 = a0 + off[4];
    const float *a5 = a0 + off[5];
    const float *a6 = a0 + off[6];
    const float *a7 = a0 + off[7];
    const float *a8 = a0 + off[8];
    const float *a9 = a0 + off[9];
    const float *a10 = a0 + off[10];
    const float *a11 = a0 + off[11];
    const float *a12 = a0 + off[12];
    const float *a13 = a0 + off[13];
    const float *a14 = a0 + off[14];
    const float *a15 = a0 + off[15];
    const float *w = wseg[sgi];
    for (size_t k = 0; k < kc; k++) {
      const __m512 w0 = _mm512_loadu_ps(w);
      w += 16;
      v0 = _mm512_fmadd_ps(_mm512_set1_ps(a0[k]), w0, v0);
      v1 = _mm512_fmadd_ps(_mm512_set1_ps(a1[k]), w0, v1);
      v2 = _mm512_fmadd_ps(_mm512_set1_ps(a2[k]), w0, v2);
      v3 = _mm512_fmadd_ps(_mm512_set1_ps(a3[k]), w0, v3);
      v4 = _mm512_fmadd_ps(_mm512_set1_ps(a4[k]), w0, v4);
      v5 = _mm512_fmadd_ps(_mm512_set1_ps(a5[k]), w0, v5);
      v6 = _mm512_fmadd_ps(_mm512_set1_ps(a6[k]), w0, v6);
      v7 = _mm512_fmadd_ps(_mm512_set1_ps(a7[k]), w0, v7);
      v8 = _mm512_fmadd_ps(_mm512_set1_ps(a8[k]), w0, v8);
      v9 = _mm512_fmadd_ps(_mm512_set1_ps(a9[k]), w0, v9);
      v10 = _mm512_fmadd_ps(_mm512_set1_ps(a10[k]), w0, v10);
      v11 = _mm512_fmadd_ps(_mm512_set1_ps(a11[k]), w0, v11);
      v12 = _mm512_fmadd_ps(_mm512_set1_ps(a12[k]), w0, v12);
      v13 = _mm512_fmadd_ps(_mm512_set1_ps(a13[k]), w0, v13);
      v14 = _mm512_fmadd_ps(_mm512_set1_ps(a14[k]), w0, v14);
      v15 = _mm512_fmadd_ps(_mm512_set1_ps(a15[k]), w0, v15);
    }
  }
  const __m512 lo = _mm512_set1_ps(vmin), hi = _mm512_set1_ps(vmax);
  _mm512_mask_storeu_ps(cp[15], m0, _mm512_min_ps(_mm512_max_ps(v15, lo), hi));
  _mm512_mask_storeu_ps(cp[14], m0, _mm512_min_ps(_mm512_max_ps(v14, lo), hi));
  _mm512_mask_storeu_ps(cp[13], m0, _mm512_min_ps(_mm512_max_ps(v13, lo), hi));
  _mm512_mask_storeu_ps(cp[12], m0, _mm512_min_ps(_mm512_max_ps(v12, lo), hi));
  _mm512_mask_storeu_ps(cp[11], m0, _mm512_min_ps(_mm512_max_ps(v11, lo), hi));
  _mm512_mask_storeu_ps(cp[10], m0, _mm512_min_ps(_mm512_max_ps(v10, lo), hi));
  _mm512_mask_storeu_ps(cp[9], m0, _mm512_min_ps(_mm512_max_ps(v9, lo), hi));
  _mm512_mask_storeu_ps(cp[8], m0, _mm512_min_ps(_mm512_max_ps(v8, lo), hi));
  _mm512_mask_storeu_ps(cp[7], m0, _mm512_min_ps(_mm512_max_ps(v7, lo), hi));
  _mm512_mask_storeu_ps(cp[6], m0, _mm512_min_ps(_mm512_max_ps(v6, lo), hi));
  _mm512_mask_storeu_ps(cp[5], m0, _mm512_min_ps(_mm512_max_ps(v5, lo), hi));
  _mm512_mask_storeu_ps(cp[4], m0, _mm512_min_ps(_mm512_max_ps(v4, lo), hi));
  _mm512_mask_storeu_ps(cp[3], m0, _mm512_min_ps(_mm512_max_ps(v3, lo), hi));
  _mm512_mask_storeu_ps(cp[2], m0, _mm512_min_ps(_mm512_max_ps(v2, lo), hi));
  _mm512_mask_storeu_ps(cp[1], m0, _mm512_min_ps(_mm512_max_ps(v1, lo), hi));
  _mm512_mask_storeu_ps(cp[0], m0, _mm512_min_ps(_mm512_max_ps(v0, lo), hi));
}

/* mr == 1 on the 16-column panel (a batch-1 classifier head): one row instead of the 16 the
 * 16x16 tile would compute, four k streams hide the FMA latency. */
PTE_AVX512 static void f32_gemv_1x16(size_t nc, size_t kc, const float *a, const float *w, const float *bias, float *c,
                                     float vmin, float vmax) {
  const __mmask16 m0 = mask16(nc);
  __m512 p = bias ? _mm512_loadu_ps(bias) : _mm512_maskz_loadu_ps(m0, c);
  __m512 q = _mm512_setzero_ps(), r = _mm512_setzero_ps(), s = _mm512_setzero_ps();
  size_t k = 0;
  for (; k + 4 <= kc; k += 4) {
    for (int j = 0; j < 4; j++) _mm_prefetch((const char *)(w + 1024 + 16 * j), _MM_HINT_T0);
    p = _mm512_fmadd_ps(_mm512_set1_ps(a[k]), _mm512_loadu_ps(w), p);
    q = _mm512_fmadd_ps(_mm512_set1_ps(a[k + 1]), _mm512_loadu_ps(w + 16), q);
    r = _mm512_fmadd_ps(_mm512_set1_ps(a[k + 2]), _mm512_loadu_ps(w + 32), r);
    s = _mm512_fmadd_ps(_mm512_set1_ps(a[k + 3]), _mm512_loadu_ps(w + 48), s);
    w += 64;
  }
  for (; k < kc; k++, w += 16) p = _mm512_fmadd_ps(_mm512_set1_ps(a[k]), _mm512_loadu_ps(w), p);
  p = _mm512_add_ps(_mm512_add_ps(p, q), _mm512_add_ps(r, s));
  _mm512_mask_storeu_ps(c, m0, _mm512_min_ps(_mm512_max_ps(p, _mm512_set1_ps(vmin)), _mm512_set1_ps(vmax)));
}

PTE_AVX512 static void f32_gemm_16x16(size_t mr, size_t nc, size_t kc, const float *a, size_t as, const float *w,
                                      const float *bias, float *c, size_t cs, float vmin, float vmax) {
  if (mr == 1) {
    f32_gemv_1x16(nc, kc, a, w, bias, c, vmin, vmax);
    return;
  }
  f32_igemm_16x16(mr, nc, 1, kc, &a, as, &w, bias, c, cs, vmin, vmax);
}

PTE_AVX512 static void f32_vadd(size_t n, const float *a, const float *b, float *y, float vmin, float vmax) {
  const __m512 lo = _mm512_set1_ps(vmin), hi = _mm512_set1_ps(vmax);
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    __m512 v = _mm512_add_ps(_mm512_loadu_ps(a + i), _mm512_loadu_ps(b + i));
    _mm512_storeu_ps(y + i, _mm512_min_ps(_mm512_max_ps(v, lo), hi));
  }
  if (i < n) {
    const __mmask16 m = mask16(n - i);
    __m512 v = _mm512_add_ps(_mm512_maskz_loadu_ps(m, a + i), _mm512_maskz_loadu_ps(m, b + i));
    _mm512_mask_storeu_ps(y + i, m, _mm512_min_ps(_mm512_max_ps(v, lo), hi));
  }
}

PTE_AVX512 static void f32_vmul(size_t n, const float *a, const float *b, float *y, float vmin, float vmax) {
  const __m512 lo = _mm512_set1_ps(vmin), hi = _mm512_set1_ps(vmax);
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    __m512 v = _mm512_mul_ps(_mm512_loadu_ps(a + i), _mm512_loadu_ps(b + i));
    _mm512_storeu_ps(y + i, _mm512_min_ps(_mm512_max_ps(v, lo), hi));
  }
  if (i < n) {
    const __mmask16 m = mask16(n - i);
    __m512 v = _mm512_mul_ps(_mm512_maskz_loadu_ps(m, a + i), _mm512_maskz_loadu_ps(m, b + i));
    _mm512_mask_storeu_ps(y + i, m, _mm512_min_ps(_mm512_max_ps(v, lo), hi));
  }
}

PTE_AVX512 static void f32_vclamp(size_t n, const float *x, float *y, float vmin, float vmax) {
  const __m512 lo = _mm512_set1_ps(vmin), hi = _mm512_set1_ps(vmax);
  size_t i = 0;
  for (; i + 16 <= n; i += 16) _mm512_storeu_ps(y + i, _mm512_min_ps(_mm512_max_ps(_mm512_loadu_ps(x + i), lo), hi));
  if (i < n) {
    const __mmask16 m = mask16(n - i);
    _mm512_mask_storeu_ps(y + i, m, _mm512_min_ps(_mm512_max_ps(_mm512_maskz_loadu_ps(m, x + i), lo), hi));
  }
}

PTE_AVX512 static void f32_dw_row(size_t c, size_t taps, const float **in, const float *w, const float *bias,
                                  float *out, float vmin, float vmax) {
  const __m512 lo = _mm512_set1_ps(vmin), hi = _mm512_set1_ps(vmax);
  for (size_t ch = 0; ch < c; ch += 16) {
    const __mmask16 m = mask16(c - ch);
    __m512 acc = _mm512_maskz_loadu_ps(m, bias + ch);
    for (size_t t = 0; t < taps; t++)
      acc = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(m, in[t] + ch), _mm512_maskz_loadu_ps(m, w + t * c + ch), acc);
    _mm512_mask_storeu_ps(out + ch, m, _mm512_min_ps(_mm512_max_ps(acc, lo), hi));
  }
}

/* int8 GEMM 4x8 over the KR-2 panel (see pte_xnn_i8_gemm_4x8), AVX-512BW: two k pairs per
 * step, 32 weights widened to int16 in one register (pair p in the low half, p + 1 in the high
 * half), each row's 4 activations widened and spread as (pair k, pair k+2) over the two halves;
 * the halves are summed at the end. Integer sums, so identical to every other i8 kernel.
 * CPUs with AVX-512F but not BW/VL run the AVX2 kernel. */
__attribute__((target("avx512f,avx512bw,avx512vl,avx2"))) static void i8_gemm_4x8_bw(size_t mr, size_t kc,
                                                                                    const int8_t *a, size_t as,
                                                                                    const int8_t *w, int32_t *acc) {
  const int8_t *a0 = a, *a1 = mr > 1 ? a0 + as : a0, *a2 = mr > 2 ? a1 + as : a1, *a3 = mr > 3 ? a2 + as : a2;
  __m512i s0 = _mm512_setzero_si512(), s1 = _mm512_setzero_si512(), s2 = _mm512_setzero_si512();
  __m512i s3 = _mm512_setzero_si512();
  const __m512i idx = _mm512_setr_epi32(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1);
  size_t k = 0;
#define I8BW_ROW(ar, s)                                                                        \
  do {                                                                                         \
    int32_t t4;                                                                                \
    memcpy(&t4, (ar) + k, 4);                                                                  \
    const __m128i x = _mm_cvtepi8_epi16(_mm_cvtsi32_si128(t4));                                \
    s = _mm512_add_epi32(s, _mm512_madd_epi16(_mm512_permutexvar_epi32(idx, _mm512_castsi128_si512(x)), wv)); \
  } while (0)
  for (; k + 4 <= kc; k += 4) {
    const __m512i wv = _mm512_cvtepi8_epi16(_mm256_loadu_si256((const __m256i *)(const void *)w));
    w += 32;
    I8BW_ROW(a0, s0);
    I8BW_ROW(a1, s1);
    I8BW_ROW(a2, s2);
    I8BW_ROW(a3, s3);
  }
#undef I8BW_ROW
  __m256i r0 = _mm256_add_epi32(_mm512_castsi512_si256(s0), _mm512_extracti64x4_epi64(s0, 1));
  __m256i r1 = _mm256_add_epi32(_mm512_castsi512_si256(s1), _mm512_extracti64x4_epi64(s1, 1));
  __m256i r2 = _mm256_add_epi32(_mm512_castsi512_si256(s2), _mm512_extracti64x4_epi64(s2, 1));
  __m256i r3 = _mm256_add_epi32(_mm512_castsi512_si256(s3), _mm512_extracti64x4_epi64(s3, 1));
#define I8BW_PAIR(p, i, two) \
  ((int32_t)(uint16_t)(int16_t)(p)[i] | (int32_t)((uint32_t)(uint16_t)(int16_t)((two) ? (p)[(i) + 1] : 0) << 16))
  for (; k < kc; k += 2) { /* 1-3 left: one or two pairs, the last maybe half zero padding */
    const bool two = k + 1 < kc;
    const __m256i wv = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(const void *)w));
    w += 16;
    r0 = _mm256_add_epi32(r0, _mm256_madd_epi16(_mm256_set1_epi32(I8BW_PAIR(a0, k, two)), wv));
    r1 = _mm256_add_epi32(r1, _mm256_madd_epi16(_mm256_set1_epi32(I8BW_PAIR(a1, k, two)), wv));
    r2 = _mm256_add_epi32(r2, _mm256_madd_epi16(_mm256_set1_epi32(I8BW_PAIR(a2, k, two)), wv));
    r3 = _mm256_add_epi32(r3, _mm256_madd_epi16(_mm256_set1_epi32(I8BW_PAIR(a3, k, two)), wv));
  }
#undef I8BW_PAIR
  _mm256_storeu_si256((__m256i *)(void *)acc, r0);
  _mm256_storeu_si256((__m256i *)(void *)(acc + 8), r1);
  _mm256_storeu_si256((__m256i *)(void *)(acc + 16), r2);
  _mm256_storeu_si256((__m256i *)(void *)(acc + 24), r3);
}

/* qs8 GEMM tile with its epilogue, AVX-512BW/VL: up to 8 rows x one or two KR-2 panels of 8
 * columns (w[0], w[1]; nc[i] <= 8 valid columns each), out = lrint(clamp((float)(acc + bias) *
 * scale, lo, hi)) + zp. Two panels share the activation loads and spreads. The caller
 * guarantees acc + bias fits int32 (pte_xnn_qs8_gemm); the float steps are those of the scalar
 * epilogue (one conversion, multiply, compares, round to nearest even), so bit-identical. */
#define QT_FN __attribute__((target("avx512f,avx512bw,avx512vl,avx2"), always_inline)) static inline
QT_FN void qs8_tile(const int np, size_t rows, const size_t *nc, size_t kc, const int8_t *a, size_t as,
                    const int8_t *const *wp, const int32_t *const *bias, const float *const *scale, int8_t *out,
                    size_t ldc, float lo, float hi, int32_t zp) {
  const int8_t *ar[8];
  for (size_t r = 0; r < 8; r++) ar[r] = a + (r < rows ? r : rows - 1) * as;
  const int8_t *w0 = wp[0], *w1 = np > 1 ? wp[1] : wp[0];
  __m512i s[2][8];
  for (int q = 0; q < 2; q++)
    for (int r = 0; r < 8; r++) s[q][r] = _mm512_setzero_si512();
  const __m512i idx = _mm512_setr_epi32(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1);
  const __m512i idx2 = _mm512_setr_epi32(2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3);
  size_t k = 0;
  for (; k + 8 <= kc; k += 8) { /* four k pairs: two weight registers per panel, one 8-byte load per row */
    const __m512i wa0 = _mm512_cvtepi8_epi16(_mm256_loadu_si256((const __m256i *)(const void *)w0));
    const __m512i wa1 = _mm512_cvtepi8_epi16(_mm256_loadu_si256((const __m256i *)(const void *)(w0 + 32)));
    __m512i wb0 = wa0, wb1 = wa1;
    if (np > 1) {
      wb0 = _mm512_cvtepi8_epi16(_mm256_loadu_si256((const __m256i *)(const void *)w1));
      wb1 = _mm512_cvtepi8_epi16(_mm256_loadu_si256((const __m256i *)(const void *)(w1 + 32)));
    }
    w0 += 64, w1 += 64;
#pragma GCC unroll 8
    for (int r = 0; r < 8; r++) {
      int64_t t8;
      memcpy(&t8, ar[r] + k, 8);
      const __m512i x = _mm512_castsi128_si512(_mm_cvtepi8_epi16(_mm_cvtsi64_si128(t8)));
      const __m512i x0 = _mm512_permutexvar_epi32(idx, x), x1 = _mm512_permutexvar_epi32(idx2, x);
      s[0][r] = _mm512_add_epi32(s[0][r], _mm512_madd_epi16(x0, wa0));
      s[0][r] = _mm512_add_epi32(s[0][r], _mm512_madd_epi16(x1, wa1));
      if (np > 1) {
        s[1][r] = _mm512_add_epi32(s[1][r], _mm512_madd_epi16(x0, wb0));
        s[1][r] = _mm512_add_epi32(s[1][r], _mm512_madd_epi16(x1, wb1));
      }
    }
  }
  for (; k + 4 <= kc; k += 4) {
    const __m512i wa = _mm512_cvtepi8_epi16(_mm256_loadu_si256((const __m256i *)(const void *)w0));
    const __m512i wb = np > 1 ? _mm512_cvtepi8_epi16(_mm256_loadu_si256((const __m256i *)(const void *)w1)) : wa;
    w0 += 32, w1 += 32;
#pragma GCC unroll 8
    for (int r = 0; r < 8; r++) {
      int32_t t4;
      memcpy(&t4, ar[r] + k, 4);
      const __m512i x = _mm512_permutexvar_epi32(idx, _mm512_castsi128_si512(_mm_cvtepi8_epi16(_mm_cvtsi32_si128(t4))));
      s[0][r] = _mm512_add_epi32(s[0][r], _mm512_madd_epi16(x, wa));
      if (np > 1) s[1][r] = _mm512_add_epi32(s[1][r], _mm512_madd_epi16(x, wb));
    }
  }
  __m256i acc[2][8];
  for (int q = 0; q < np; q++) {
    const __m256i vb = _mm256_loadu_si256((const __m256i *)(const void *)bias[q]);
#pragma GCC unroll 8
    for (int r = 0; r < 8; r++)
      acc[q][r] =
          _mm256_add_epi32(_mm256_add_epi32(_mm512_castsi512_si256(s[q][r]), _mm512_extracti64x4_epi64(s[q][r], 1)), vb);
  }
  pte_xnn_qs8_tile_k_tail(acc, np, ar, k, kc, w0, w1);
  pte_xnn_qs8_tile_store(acc, np, rows, nc, scale, out, ldc, lo, hi, zp);
}

__attribute__((target("avx512f,avx512bw,avx512vl,avx2"))) void pte_xnn_qs8_gemm_8x8_avx512bw(
    size_t rows, size_t np, const size_t *nc, size_t kc, const int8_t *a, size_t as, const int8_t *const *w,
    const int32_t *const *bias, const float *const *scale, int8_t *out, size_t ldc, float lo, float hi, int32_t zp) {
  if (np > 1) qs8_tile(2, rows, nc, kc, a, as, w, bias, scale, out, ldc, lo, hi, zp);
  else qs8_tile(1, rows, nc, kc, a, as, w, bias, scale, out, ldc, lo, hi, zp);
}
#undef QT_FN

static void i8_gemm_4x8_avx512(size_t mr, size_t kc, const int8_t *a, size_t as, const int8_t *w, int32_t *acc) {
  if (__builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl")) i8_gemm_4x8_bw(mr, kc, a, as, w, acc);
  else pte_xnn_i8_gemm_4x8_avx2(mr, kc, a, as, w, acc);
}

static const pte_xnn_kernels k_avx512 = {PTE_XNN_KISA_AVX512, 8, 32, f32_gemm_8x32, f32_igemm_8x32,
                                         16, 16, f32_gemm_16x16, f32_igemm_16x16, 4, 8,
                                         i8_gemm_4x8_avx512, f32_vadd, f32_vmul, f32_vclamp, f32_dw_row};

const pte_xnn_kernels *pte_xnn_kernels_avx512(void) { return &k_avx512; }

#else
const pte_xnn_kernels *pte_xnn_kernels_avx512(void) { return NULL; }
#endif
