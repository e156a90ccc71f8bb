/* qd8 x 4-bit FullyConnected: tiles (scalar, AVX2, AVX-512 VNNI) and the driver (block sums,
 * threading). Packed layout and the output formula: xnn_q4.h. */
#include <string.h>

#include "xnn_q4.h"

static inline uint32_t q4_ld32(const uint8_t *p) {
  return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

/* Sum of n int8 values (an activation row's block sums). */
typedef int32_t (*q4_sum_fn)(const int8_t *p, size_t n);
static int32_t q4_sum_i8_scalar(const int8_t *p, size_t n) {
  int32_t s = 0;
  for (size_t k = 0; k < n; k++) s += p[k];
  return s;
}

static inline float q4_epilogue(float f, float zp_ksum, float s, float bias, float vmin, float vmax) {
  return pte_xnn_clampf((f - zp_ksum) * s + bias, vmin, vmax);
}

void pte_xnn_q4_tile_scalar(size_t mr, size_t nc, size_t kp, size_t nb, size_t bl, bool blockwise,
                            const int8_t *const *a, const int32_t *asum, const float *ascale, const int32_t *azp,
                            const uint8_t *panel, float *c, size_t ldc, float vmin, float vmax) {
  const float *bias = (const float *)(const void *)panel, *wsc = bias + 16, *ksum = bias + 32;
  const uint16_t *bsc = (const uint16_t *)(const void *)(panel + 192);
  const uint8_t *ch = panel + 192 + (blockwise ? ((nb * 32 + 63) & ~(size_t)63) : 0);
  (void)kp;
  for (size_t r = 0; r < mr; r++) {
    for (size_t col = 0; col < nc; col++) {
      float f = 0.0f;
      for (size_t b = 0; b < nb; b++) {
        int32_t acc = 0;
        for (size_t k = b * bl; k < b * bl + bl; k++) {
          const uint8_t byte = ch[(k >> 3) * 64 + 4 * col + (k & 3)];
          const int32_t nib = (k & 4) ? (byte >> 4) : (byte & 0x0F);
          acc += (int32_t)a[r][k] * nib;
        }
        const float t = (float)(acc - 8 * asum[r * nb + b]);
        f = blockwise ? f + t * pte_xnn_bf16_to_f32(bsc[b * 16 + col]) : f + t;
      }
      c[r * ldc + col] = q4_epilogue(f, (float)azp[r] * ksum[col], ascale[r] * wsc[col], bias[col], vmin, vmax);
    }
  }
}

#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
#include <immintrin.h>

/* AVX2: two rows at a time, 8 columns per register (bytes 0..31 of a chunk hold columns 0..7). */
__attribute__((target("avx2,fma"))) static void q4_tile_avx2(size_t mr, size_t nc, size_t kp, size_t nb, size_t bl,
                                                             bool blockwise, const int8_t *const *a,
                                                             const int32_t *asum, const float *ascale,
                                                             const int32_t *azp, const uint8_t *panel, float *c,
                                                             size_t ldc, float vmin, float vmax) {
  (void)kp;
  const float *pb = (const float *)(const void *)panel;
  const uint16_t *bsc = (const uint16_t *)(const void *)(panel + 192);
  const uint8_t *chunks = panel + 192 + (blockwise ? ((nb * 32 + 63) & ~(size_t)63) : 0);
  const __m256i mask = _mm256_set1_epi8(0x0F), ones = _mm256_set1_epi16(1);
  for (size_t r0 = 0; r0 < mr; r0 += 2) {
    const size_t rows = mr - r0 < 2 ? mr - r0 : 2;
    const int8_t *a0 = a[r0], *a1 = a[r0 + rows - 1];
    __m256 f00 = _mm256_setzero_ps(), f01 = _mm256_setzero_ps(), f10 = _mm256_setzero_ps(), f11 = _mm256_setzero_ps();
    const uint8_t *ch = chunks;
    for (size_t b = 0; b < nb; b++) {
      __m256i i00 = _mm256_setzero_si256(), i01 = _mm256_setzero_si256();
      __m256i i10 = _mm256_setzero_si256(), i11 = _mm256_setzero_si256();
      for (size_t k = b * bl; k < b * bl + bl; k += 8, ch += 64) {
        const __m256i v0 = _mm256_load_si256((const __m256i *)(const void *)ch);
        const __m256i v1 = _mm256_load_si256((const __m256i *)(const void *)(ch + 32));
        const __m256i l0 = _mm256_and_si256(v0, mask), h0 = _mm256_and_si256(_mm256_srli_epi16(v0, 4), mask);
        const __m256i l1 = _mm256_and_si256(v1, mask), h1 = _mm256_and_si256(_mm256_srli_epi16(v1, 4), mask);
        const __m256i x0l = _mm256_set1_epi32((int32_t)q4_ld32((const uint8_t *)a0 + k));
        const __m256i x0h = _mm256_set1_epi32((int32_t)q4_ld32((const uint8_t *)a0 + k + 4));
        const __m256i x1l = _mm256_set1_epi32((int32_t)q4_ld32((const uint8_t *)a1 + k));
        const __m256i x1h = _mm256_set1_epi32((int32_t)q4_ld32((const uint8_t *)a1 + k + 4));
        /* maddubs: nibble (u8 <= 15) x int8 pairs never saturate int16 */
        i00 = _mm256_add_epi32(i00, _mm256_madd_epi16(_mm256_add_epi16(_mm256_maddubs_epi16(l0, x0l),
                                                                        _mm256_maddubs_epi16(h0, x0h)), ones));
        i01 = _mm256_add_epi32(i01, _mm256_madd_epi16(_mm256_add_epi16(_mm256_maddubs_epi16(l1, x0l),
                                                                        _mm256_maddubs_epi16(h1, x0h)), ones));
        i10 = _mm256_add_epi32(i10, _mm256_madd_epi16(_mm256_add_epi16(_mm256_maddubs_epi16(l0, x1l),
                                                                        _mm256_maddubs_epi16(h0, x1h)), ones));
        i11 = _mm256_add_epi32(i11, _mm256_madd_epi16(_mm256_add_epi16(_mm256_maddubs_epi16(l1, x1l),
                                                                        _mm256_maddubs_epi16(h1, x1h)), ones));
      }
      const __m256i s0 = _mm256_set1_epi32(8 * asum[r0 * nb + b]);
      const __m256i s1 = _mm256_set1_epi32(8 * asum[(r0 + rows - 1) * nb + b]);
      const __m256 t00 = _mm256_cvtepi32_ps(_mm256_sub_epi32(i00, s0)), t01 = _mm256_cvtepi32_ps(_mm256_sub_epi32(i01, s0));
      const __m256 t10 = _mm256_cvtepi32_ps(_mm256_sub_epi32(i10, s1)), t11 = _mm256_cvtepi32_ps(_mm256_sub_epi32(i11, s1));
      if (blockwise) {
        const __m256 b0 = _mm256_castsi256_ps(
            _mm256_slli_epi32(_mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(const void *)(bsc + b * 16))), 16));
        const __m256 b1 = _mm256_castsi256_ps(_mm256_slli_epi32(
            _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(const void *)(bsc + b * 16 + 8))), 16));
        f00 = _mm256_fmadd_ps(t00, b0, f00), f01 = _mm256_fmadd_ps(t01, b1, f01);
        f10 = _mm256_fmadd_ps(t10, b0, f10), f11 = _mm256_fmadd_ps(t11, b1, f11);
      } else {
        f00 = _mm256_add_ps(f00, t00), f01 = _mm256_add_ps(f01, t01);
        f10 = _mm256_add_ps(f10, t10), f11 = _mm256_add_ps(f11, t11);
      }
    }
    float tmp[2][16];
    _mm256_storeu_ps(tmp[0], f00), _mm256_storeu_ps(tmp[0] + 8, f01);
    _mm256_storeu_ps(tmp[1], f10), _mm256_storeu_ps(tmp[1] + 8, f11);
    for (size_t r = 0; r < rows; r++) {
      const size_t row = r0 + r;
      for (size_t col = 0; col < nc; col++)
        c[row * ldc + col] =
            q4_epilogue(tmp[r][col], (float)azp[row] * pb[32 + col], ascale[row] * pb[16 + col], pb[col], vmin, vmax);
    }
  }
}

pte_xnn_q4_tile_fn pte_xnn_q4_tile_avx2(void) {
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") ? q4_tile_avx2 : NULL;
}

/* Sum of n int8 values: bytes biased to unsigned (x ^ 0x80 = x + 128) summed by vpsadbw 32 at a time. */
__attribute__((target("avx2"))) static int32_t q4_sum_i8_avx2(const int8_t *p, size_t n) {
  const __m256i bias = _mm256_set1_epi8((char)0x80), zero = _mm256_setzero_si256();
  __m256i acc = zero;
  size_t k = 0;
  for (; k + 32 <= n; k += 32)
    acc = _mm256_add_epi64(acc, _mm256_sad_epu8(_mm256_xor_si256(_mm256_loadu_si256((const __m256i *)(const void *)(p + k)), bias), zero));
  const __m128i h = _mm_add_epi64(_mm256_castsi256_si128(acc), _mm256_extracti128_si256(acc, 1));
  int64_t s = _mm_cvtsi128_si64(h) + _mm_cvtsi128_si64(_mm_unpackhi_epi64(h, h)) - 128 * (int64_t)k;
  for (; k < n; k++) s += p[k];
  return (int32_t)s;
}
static q4_sum_fn q4_sum_avx2(void) { return __builtin_cpu_supports("avx2") ? q4_sum_i8_avx2 : NULL; }

/* AVX-512 VNNI: up to 4 rows, 16 columns in one register; vpdpbusd multiplies the unsigned
 * nibbles by the signed activations 4 at a time; low and high nibbles in separate accumulators. */
#define PTE_Q4_VNNI __attribute__((target("avx512f,avx512bw,avx512vnni")))
PTE_Q4_VNNI static void q4_tile_vnni(size_t mr, size_t nc, size_t kp, size_t nb, size_t bl, bool blockwise,
                                     const int8_t *const *a, const int32_t *asum, const float *ascale,
                                     const int32_t *azp, const uint8_t *panel, float *c, size_t ldc, float vmin,
                                     float vmax) {
  (void)kp;
  const float *pb = (const float *)(const void *)panel;
  const uint16_t *bsc = (const uint16_t *)(const void *)(panel + 192);
  const uint8_t *ch = panel + 192 + (blockwise ? ((nb * 32 + 63) & ~(size_t)63) : 0);
  const __m512i mask = _mm512_set1_epi8(0x0F);
  const uint8_t *a0 = (const uint8_t *)a[0], *a1 = (const uint8_t *)a[mr > 1 ? 1 : 0];
  const uint8_t *a2 = (const uint8_t *)a[mr > 2 ? 2 : 0], *a3 = (const uint8_t *)a[mr > 3 ? 3 : 0];
  __m512 f0 = _mm512_setzero_ps(), f1 = _mm512_setzero_ps(), f2 = _mm512_setzero_ps(), f3 = _mm512_setzero_ps();
  for (size_t b = 0; b < nb; b++) {
    __m512i l0 = _mm512_setzero_si512(), h0 = _mm512_setzero_si512(), l1 = _mm512_setzero_si512(),
            h1 = _mm512_setzero_si512();
    __m512i l2 = _mm512_setzero_si512(), h2 = _mm512_setzero_si512(), l3 = _mm512_setzero_si512(),
            h3 = _mm512_setzero_si512();
    const size_t k1 = b * bl + bl;
    if (mr == 1) {
      for (size_t k = b * bl; k < k1; k += 8, ch += 64) {
        _mm_prefetch((const char *)(ch + 2048), _MM_HINT_T0);
        const __m512i v = _mm512_load_si512((const void *)ch);
        const __m512i lo = _mm512_and_si512(v, mask), hi = _mm512_and_si512(_mm512_srli_epi16(v, 4), mask);
        l0 = _mm512_dpbusd_epi32(l0, lo, _mm512_set1_epi32((int32_t)q4_ld32(a0 + k)));
        h0 = _mm512_dpbusd_epi32(h0, hi, _mm512_set1_epi32((int32_t)q4_ld32(a0 + k + 4)));
      }
    } else {
      for (size_t k = b * bl; k < k1; k += 8, ch += 64) {
        const __m512i v = _mm512_load_si512((const void *)ch);
        const __m512i lo = _mm512_and_si512(v, mask), hi = _mm512_and_si512(_mm512_srli_epi16(v, 4), mask);
        l0 = _mm512_dpbusd_epi32(l0, lo, _mm512_set1_epi32((int32_t)q4_ld32(a0 + k)));
        h0 = _mm512_dpbusd_epi32(h0, hi, _mm512_set1_epi32((int32_t)q4_ld32(a0 + k + 4)));
        l1 = _mm512_dpbusd_epi32(l1, lo, _mm512_set1_epi32((int32_t)q4_ld32(a1 + k)));
        h1 = _mm512_dpbusd_epi32(h1, hi, _mm512_set1_epi32((int32_t)q4_ld32(a1 + k + 4)));
        l2 = _mm512_dpbusd_epi32(l2, lo, _mm512_set1_epi32((int32_t)q4_ld32(a2 + k)));
        h2 = _mm512_dpbusd_epi32(h2, hi, _mm512_set1_epi32((int32_t)q4_ld32(a2 + k + 4)));
        l3 = _mm512_dpbusd_epi32(l3, lo, _mm512_set1_epi32((int32_t)q4_ld32(a3 + k)));
        h3 = _mm512_dpbusd_epi32(h3, hi, _mm512_set1_epi32((int32_t)q4_ld32(a3 + k + 4)));
      }
    }
    const size_t r1 = mr > 1 ? 1 : 0, r2 = mr > 2 ? 2 : 0, r3 = mr > 3 ? 3 : 0;
    const __m512 t0 = _mm512_cvtepi32_ps(_mm512_sub_epi32(_mm512_add_epi32(l0, h0), _mm512_set1_epi32(8 * asum[b])));
    const __m512 t1 = _mm512_cvtepi32_ps(_mm512_sub_epi32(_mm512_add_epi32(l1, h1), _mm512_set1_epi32(8 * asum[r1 * nb + b])));
    const __m512 t2 = _mm512_cvtepi32_ps(_mm512_sub_epi32(_mm512_add_epi32(l2, h2), _mm512_set1_epi32(8 * asum[r2 * nb + b])));
    const __m512 t3 = _mm512_cvtepi32_ps(_mm512_sub_epi32(_mm512_add_epi32(l3, h3), _mm512_set1_epi32(8 * asum[r3 * nb + b])));
    if (blockwise) {
      const __m512 s = _mm512_castsi512_ps(
          _mm512_slli_epi32(_mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i *)(const void *)(bsc + b * 16))), 16));
      f0 = _mm512_fmadd_ps(t0, s, f0), f1 = _mm512_fmadd_ps(t1, s, f1);
      f2 = _mm512_fmadd_ps(t2, s, f2), f3 = _mm512_fmadd_ps(t3, s, f3);
    } else {
      f0 = _mm512_add_ps(f0, t0), f1 = _mm512_add_ps(f1, t1), f2 = _mm512_add_ps(f2, t2), f3 = _mm512_add_ps(f3, t3);
    }
  }
  const __m512 bias = _mm512_load_ps(pb), wsc = _mm512_load_ps(pb + 16), ksum = _mm512_load_ps(pb + 32);
  const __m512 lo = _mm512_set1_ps(vmin), hi = _mm512_set1_ps(vmax);
  const __mmask16 km = nc >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << nc) - 1u);
  const __m512 fs[4] = {f0, f1, f2, f3};
  for (size_t r = 0; r < mr; r++) {
    __m512 y = _mm512_sub_ps(fs[r], _mm512_mul_ps(_mm512_set1_ps((float)azp[r]), ksum));
    y = _mm512_fmadd_ps(y, _mm512_mul_ps(_mm512_set1_ps(ascale[r]), wsc), bias);
    y = _mm512_min_ps(_mm512_max_ps(y, lo), hi);
    _mm512_mask_storeu_ps(c + r * ldc, km, y);
  }
}

/* Decode (one row) over two adjacent panels: every activation broadcast feeds both panels, four
 * chunks (32 k) per step, low and high nibbles in separate accumulators. */
PTE_Q4_VNNI static void q4_gemv2_vnni(size_t nc0, size_t nc1, size_t nb, size_t bl, bool blockwise, const int8_t *a8,
                                      const int32_t *asum, float ascale, int32_t azp, const uint8_t *pa,
                                      const uint8_t *pb, float *c, float vmin, float vmax, const uint8_t *pf,
                                      size_t pfn) {
  const uint8_t *a = (const uint8_t *)a8;
  const size_t sc = blockwise ? ((nb * 32 + 63) & ~(size_t)63) : 0;
  const uint16_t *s0p = (const uint16_t *)(const void *)(pa + 192), *s1p = (const uint16_t *)(const void *)(pb + 192);
  const uint8_t *ch0 = pa + 192 + sc, *ch1 = pb + 192 + sc;
  const __m512i mask = _mm512_set1_epi8(0x0F);
  __m512 f0 = _mm512_setzero_ps(), f1 = _mm512_setzero_ps();
  /* the next pass's panels [pf, pf + pfn) into L2 while these stream, one line per 64 bytes: the
   * headers' worth first, then 512 bytes per 32-k step, so they are all requested by the time this
   * pass ends (the hardware prefetcher alone leaves short panels waiting on memory) */
  size_t pfo = 0;
  for (; pfo < pfn && pfo < 2 * (192 + sc); pfo += 64) _mm_prefetch((const char *)(pf + pfo), _MM_HINT_T1);
#define PTE_Q4_STEP(q)                                                                                   \
  do {                                                                                                   \
    const __m512i xl = _mm512_set1_epi32((int32_t)q4_ld32(a + k + 8 * (q)));                             \
    const __m512i xh = _mm512_set1_epi32((int32_t)q4_ld32(a + k + 8 * (q) + 4));                         \
    const __m512i v0 = _mm512_load_si512((const void *)(ch0 + 64 * (q)));                                \
    const __m512i v1 = _mm512_load_si512((const void *)(ch1 + 64 * (q)));                                \
    i0 = _mm512_dpbusd_epi32(i0, _mm512_and_si512(v0, mask), xl);                                        \
    j0 = _mm512_dpbusd_epi32(j0, _mm512_and_si512(_mm512_srli_epi16(v0, 4), mask), xh);                  \
    i1 = _mm512_dpbusd_epi32(i1, _mm512_and_si512(v1, mask), xl);                                        \
    j1 = _mm512_dpbusd_epi32(j1, _mm512_and_si512(_mm512_srli_epi16(v1, 4), mask), xh);                  \
  } while (0)
  for (size_t b = 0; b < nb; b++) {
    __m512i i0 = _mm512_setzero_si512(), j0 = _mm512_setzero_si512(), i1 = _mm512_setzero_si512(),
            j1 = _mm512_setzero_si512();
    size_t k = b * bl;
    const size_t kend = k + bl;
    for (; k + 32 <= kend; k += 32, ch0 += 256, ch1 += 256) {
      if (pfo < pfn) {
        for (size_t i = 0; i < 512; i += 64) _mm_prefetch((const char *)(pf + pfo + i), _MM_HINT_T1);
        pfo += 512;
      }
      PTE_Q4_STEP(0);
      PTE_Q4_STEP(1);
      PTE_Q4_STEP(2);
      PTE_Q4_STEP(3);
    }
    for (; k < kend; k += 8, ch0 += 64, ch1 += 64) PTE_Q4_STEP(0);
    const __m512i s8 = _mm512_set1_epi32(8 * asum[b]);
    const __m512 t0 = _mm512_cvtepi32_ps(_mm512_sub_epi32(_mm512_add_epi32(i0, j0), s8));
    const __m512 t1 = _mm512_cvtepi32_ps(_mm512_sub_epi32(_mm512_add_epi32(i1, j1), s8));
    if (blockwise) {
      f0 = _mm512_fmadd_ps(t0, _mm512_castsi512_ps(_mm512_slli_epi32(
                                   _mm512_cvtepu16_epi32(_mm256_load_si256((const __m256i *)(const void *)(s0p + b * 16))), 16)),
                           f0);
      f1 = _mm512_fmadd_ps(t1, _mm512_castsi512_ps(_mm512_slli_epi32(
                                   _mm512_cvtepu16_epi32(_mm256_load_si256((const __m256i *)(const void *)(s1p + b * 16))), 16)),
                           f1);
    } else {
      f0 = _mm512_add_ps(f0, t0), f1 = _mm512_add_ps(f1, t1);
    }
  }
#undef PTE_Q4_STEP
  const __m512 lo = _mm512_set1_ps(vmin), hi = _mm512_set1_ps(vmax), zp = _mm512_set1_ps((float)azp);
  const float *ha = (const float *)(const void *)pa, *hb = (const float *)(const void *)pb;
  __m512 y0 = _mm512_sub_ps(f0, _mm512_mul_ps(zp, _mm512_load_ps(ha + 32)));
  __m512 y1 = _mm512_sub_ps(f1, _mm512_mul_ps(zp, _mm512_load_ps(hb + 32)));
  y0 = _mm512_fmadd_ps(y0, _mm512_mul_ps(_mm512_set1_ps(ascale), _mm512_load_ps(ha + 16)), _mm512_load_ps(ha));
  y1 = _mm512_fmadd_ps(y1, _mm512_mul_ps(_mm512_set1_ps(ascale), _mm512_load_ps(hb + 16)), _mm512_load_ps(hb));
  y0 = _mm512_min_ps(_mm512_max_ps(y0, lo), hi);
  y1 = _mm512_min_ps(_mm512_max_ps(y1, lo), hi);
  _mm512_mask_storeu_ps(c, nc0 >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << nc0) - 1u), y0);
  _mm512_mask_storeu_ps(c + 16, nc1 >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << nc1) - 1u), y1);
}

static bool q4_has_vnni(void) {
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vnni");
}

pte_xnn_q4_gemv2_fn pte_xnn_q4_gemv2_avx512vnni(void) { return q4_has_vnni() ? q4_gemv2_vnni : NULL; }

pte_xnn_q4_tile_fn pte_xnn_q4_tile_avx512vnni(void) {
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                 __builtin_cpu_supports("avx512vnni")
             ? q4_tile_vnni
             : NULL;
}
#else
static q4_sum_fn q4_sum_avx2(void) { return NULL; }
pte_xnn_q4_tile_fn pte_xnn_q4_tile_avx2(void) { return NULL; }
pte_xnn_q4_tile_fn pte_xnn_q4_tile_avx512vnni(void) { return NULL; }
pte_xnn_q4_gemv2_fn pte_xnn_q4_gemv2_avx512vnni(void) { return NULL; }
#endif

pte_xnn_q4_tile_fn pte_xnn_q4_tile_for(const pte_xnn_kernels *k) {
  pte_xnn_q4_tile_fn f = NULL;
  if (k->isa == PTE_XNN_KISA_AVX512) f = pte_xnn_q4_tile_avx512vnni();
  if (!f && k->isa != PTE_XNN_KISA_SCALAR) f = pte_xnn_q4_tile_avx2();
  return f ? f : pte_xnn_q4_tile_scalar;
}

/* ---- driver ---------------------------------------------------------------------------------- */

size_t pte_xnn_q4_scratch(size_t m, size_t kdim, size_t block) {
  const size_t nb = block ? kdim / block : 1, kp = pte_xnn_q4_kp(kdim);
  size_t s = ((m * nb * sizeof(int32_t)) + 63) & ~(size_t)63;
  if (kp != kdim) s += m * kp;
  return s + 64;
}

typedef struct q4_job {
  pte_xnn_q4_tile_fn tile;
  pte_xnn_q4_gemv2_fn gemv2; /* one row, two panels (NULL: tiles only) */
  const uint8_t *base;
  size_t n, kp, nb, bl, stride, panels;
  bool blockwise;
  const int8_t *a;
  size_t lda;
  const int32_t *asum;
  const pte_xnn_qrow *rows;
  size_t row_div, m;
  float *c;
  size_t ldc;
  float vmin, vmax;
  size_t chunks_p, rows_per, panels_per;
} q4_job;

static void q4_region(const q4_job *j, size_t m0, size_t m1, size_t p0, size_t p1) {
  if (j->gemv2 && m1 - m0 == 1) {
    const pte_xnn_qrow q = j->rows[m0 / j->row_div];
    for (; p0 + 2 <= p1; p0 += 2) {
      const size_t n0 = p0 * PTE_XNN_Q4_NR, nc1 = j->n - n0 - PTE_XNN_Q4_NR;
      const size_t next = p1 - p0 - 2 < 2 ? p1 - p0 - 2 : 2; /* panels of the next pass */
      j->gemv2(PTE_XNN_Q4_NR, nc1 < PTE_XNN_Q4_NR ? nc1 : PTE_XNN_Q4_NR, j->nb, j->bl, j->blockwise, j->a + m0 * j->lda,
               j->asum + m0 * j->nb, q.scale, q.zero_point, j->base + p0 * j->stride, j->base + (p0 + 1) * j->stride,
               j->c + m0 * j->ldc + n0, j->vmin, j->vmax, next ? j->base + (p0 + 2) * j->stride : NULL,
               next * j->stride);
    }
  }
  for (size_t p = p0; p < p1; p++) {
    const uint8_t *panel = j->base + p * j->stride;
    const size_t n0 = p * PTE_XNN_Q4_NR, nc = j->n - n0 < PTE_XNN_Q4_NR ? j->n - n0 : PTE_XNN_Q4_NR;
    for (size_t m = m0; m < m1; m += 4) {
      const size_t mr = m1 - m < 4 ? m1 - m : 4;
      const int8_t *ar[4];
      float as[4];
      int32_t az[4];
      for (size_t r = 0; r < mr; r++) {
        const pte_xnn_qrow q = j->rows[(m + r) / j->row_div];
        ar[r] = j->a + (m + r) * j->lda;
        as[r] = q.scale;
        az[r] = q.zero_point;
      }
      j->tile(mr, nc, j->kp, j->nb, j->bl, j->blockwise, ar, j->asum + m * j->nb, as, az, panel, j->c + m * j->ldc + n0,
              j->ldc, j->vmin, j->vmax);
    }
  }
}

static void q4_task(void *ctx, size_t item, int tid) {
  (void)tid;
  const q4_job *j = (const q4_job *)ctx;
  const size_t im = item / j->chunks_p, ip = item % j->chunks_p;
  const size_t m0 = im * j->rows_per, p0 = ip * j->panels_per;
  const size_t m1 = m0 + j->rows_per < j->m ? m0 + j->rows_per : j->m;
  const size_t p1 = p0 + j->panels_per < j->panels ? p0 + j->panels_per : j->panels;
  if (m0 < m1 && p0 < p1) q4_region(j, m0, m1, p0, p1);
}

void pte_xnn_qd8_q4_gemm(pte_xnn_exec *x, const uint8_t *packed, size_t m, const int8_t *a, size_t lda,
                         const pte_xnn_qrow *rows, size_t row_div, float *c, size_t ldc, float vmin, float vmax) {
  if (m == 0) return;
  q4_job j;
  memset(&j, 0, sizeof j);
  j.n = q4_ld32(packed + 24);
  const size_t kdim = q4_ld32(packed + 28), block = q4_ld32(packed + 20);
  j.panels = q4_ld32(packed + 32);
  j.stride = (size_t)q4_ld32(packed + 40) | ((size_t)q4_ld32(packed + 44) << 32);
  j.base = packed + PTE_XNN_PACKED_HEADER_SIZE;
  j.kp = pte_xnn_q4_kp(kdim);
  j.blockwise = block != 0;
  j.nb = block ? kdim / block : 1;
  j.bl = block ? block : j.kp;
  j.tile = pte_xnn_q4_tile_for(x->k);
  j.gemv2 = x->k->isa == PTE_XNN_KISA_AVX512 ? pte_xnn_q4_gemv2_avx512vnni() : NULL;
  j.rows = rows, j.row_div = row_div ? row_div : 1, j.m = m, j.c = c, j.ldc = ldc, j.vmin = vmin, j.vmax = vmax;
  /* block sums of every row (and rows padded to kp when K is not a multiple of 8) */
  q4_sum_fn sum = x->k->isa != PTE_XNN_KISA_SCALAR ? q4_sum_avx2() : NULL;
  if (!sum) sum = q4_sum_i8_scalar;
  int32_t *asum = (int32_t *)(void *)x->shared;
  int8_t *pad = (int8_t *)(x->shared + (((m * j.nb * sizeof(int32_t)) + 63) & ~(size_t)63));
  for (size_t r = 0; r < m; r++) {
    const int8_t *ar = a + r * lda;
    for (size_t b = 0; b < j.nb; b++) {
      const size_t k1 = b * j.bl + j.bl < kdim ? b * j.bl + j.bl : kdim;
      asum[r * j.nb + b] = sum(ar + b * j.bl, k1 - b * j.bl);
    }
    if (j.kp != kdim) {
      memcpy(pad + r * j.kp, ar, kdim);
      memset(pad + r * j.kp + kdim, 0, j.kp - kdim);
    }
  }
  j.asum = asum;
  if (j.kp != kdim) j.a = pad, j.lda = j.kp;
  else j.a = a, j.lda = lda;
  const int t = x->threads;
  const size_t work = m * j.n * kdim;
  if (t <= 1 || work < ((size_t)1 << 20)) {
    q4_region(&j, 0, m, 0, j.panels);
    return;
  }
  const size_t want = (size_t)t * 4;
  if (j.panels >= want || m <= 4) {
    j.rows_per = m;
    j.chunks_p = j.panels < want ? j.panels : want;
    j.panels_per = (j.panels + j.chunks_p - 1) / j.chunks_p;
    j.chunks_p = (j.panels + j.panels_per - 1) / j.panels_per;
    pte_xnn_parallel(x->pool, q4_task, &j, j.chunks_p);
  } else {
    j.chunks_p = 1;
    j.panels_per = j.panels;
    const size_t tiles = (m + 3) / 4, chunks = tiles < want ? tiles : want;
    j.rows_per = ((tiles + chunks - 1) / chunks) * 4;
    pte_xnn_parallel(x->pool, q4_task, &j, (m + j.rows_per - 1) / j.rows_per);
  }
}
