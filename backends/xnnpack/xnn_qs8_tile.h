/* xnn_qs8_tile.h — the two pieces shared by the AVX-512 qs8 GEMM tiles (xnn_kernels_avx512.c: the
 * AVX-512BW tile; xnn_qs8_vnni.c: the VNNI tile): the K tail taken in int16 pairs, and the
 * requantizing store (out = lrint(clamp((float)acc * scale, lo, hi)) + zp, the float steps of the
 * scalar epilogue, so bit-identical). Always inlined into a caller compiled for at least these
 * targets, so the accumulators stay in registers. Include only from x86 kernel files. */
#ifndef PTE_XNN_QS8_TILE_H
#define PTE_XNN_QS8_TILE_H

#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
#include <immintrin.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PTE_XNN_QS8_TILE_FN __attribute__((target("avx512f,avx512bw,avx512vl,avx2"), always_inline)) static inline

/* k .. kc in pairs (the last pair maybe half zero padding) of up to 8 rows ar[r] against one or
 * two KR-2 panels (w0, w1: 16 bytes per pair), added into acc[panel][row]. */
PTE_XNN_QS8_TILE_FN void pte_xnn_qs8_tile_k_tail(__m256i acc[2][8], int np, const int8_t *const *ar, size_t k,
                                                 size_t kc, const int8_t *w0, const int8_t *w1) {
  for (; k < kc; k += 2) {
    const bool two = k + 1 < kc;
    const __m256i wa = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(const void *)w0));
    const __m256i wb = np > 1 ? _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(const void *)w1)) : wa;
    w0 += 16, w1 += 16;
#pragma GCC unroll 8
    for (int r = 0; r < 8; r++) {
      const int32_t pr = (int32_t)(uint16_t)(int16_t)ar[r][k] |
                         (int32_t)((uint32_t)(uint16_t)(int16_t)(two ? ar[r][k + 1] : 0) << 16);
      const __m256i x = _mm256_set1_epi32(pr);
      acc[0][r] = _mm256_add_epi32(acc[0][r], _mm256_madd_epi16(x, wa));
      if (np > 1) acc[1][r] = _mm256_add_epi32(acc[1][r], _mm256_madd_epi16(x, wb));
    }
  }
}

/* Requantizes acc[panel][row] (bias already added) and stores nc[panel] columns of `rows` rows. */
PTE_XNN_QS8_TILE_FN void pte_xnn_qs8_tile_store(__m256i acc[2][8], int np, size_t rows, const size_t *nc,
                                                const float *const *scale, int8_t *out, size_t ldc, float lo,
                                                float hi, int32_t zp) {
  const __m256 vlo = _mm256_set1_ps(lo), vhi = _mm256_set1_ps(hi);
  const __m256i vzp = _mm256_set1_epi32(zp);
  for (int q = 0; q < np; q++) {
    const __m256 vs = _mm256_loadu_ps(scale[q]);
    const __mmask16 m = (__mmask16)((1u << nc[q]) - 1u);
    for (size_t r = 0; r < rows; r++) {
      __m256 f = _mm256_mul_ps(_mm256_cvtepi32_ps(acc[q][r]), vs);
      f = _mm256_min_ps(vhi, _mm256_max_ps(vlo, f));
      const __m256i v = _mm256_add_epi32(_mm256_cvtps_epi32(f), vzp);
      _mm_mask_storeu_epi8((void *)(out + r * ldc + (size_t)q * 8), m, _mm256_cvtsepi32_epi8(v));
    }
  }
}

#endif /* x86 + GNU C */
#endif /* PTE_XNN_QS8_TILE_H */
