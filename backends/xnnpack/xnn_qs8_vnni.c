/* qs8 GEMM tile on AVX-512 VNNI (vpdpbusd) over the KR-2 packed panels of pte_xnn_qs8_gemm.
 *
 * vpdpbusd multiplies unsigned bytes by signed bytes, four per int32 lane. The activations are
 * made unsigned by adding 128 (xor 0x80): sum (a + 128) w = sum a w + 128 sum w, and the caller
 * passes 128 sum w per column (pte_xnn_qs8_vnni_corr) to take back. Eight k values per step:
 * a byte permute (VBMI) turns 64 bytes of the KR-2 panel (four k pairs x 8 columns) into 16
 * lanes, lane 2c = column c k0..3 and lane 2c+1 = column c k4..7, so one broadcast 8-byte load
 * feeds a row. The int32 sums are exact (the caller's bound |bias| + 16384 K < 2^31 with K < 2^16
 * keeps every partial sum in range), so the result is bit-identical to the AVX-512BW tile. */
#include <string.h>

#include "xnn_internal.h"
#include "xnn_qs8_tile.h"

#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
#include <immintrin.h>

#define QV_FN __attribute__((target("avx512f,avx512bw,avx512vl,avx2,avx512vnni,avx512vbmi")))

bool pte_xnn_have_qs8_vnni(void) {
  return __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl") &&
         __builtin_cpu_supports("avx512vnni") && __builtin_cpu_supports("avx512vbmi");
}

/* byte b of lane 2c+e (k = 4e + b) comes from pair j = 2e + b/2, half b%2 of column c:
 * index 16 j + 2 c + b % 2 */
static const int8_t qv_perm_ix[64] = {0,  1,  16, 17, 32, 33, 48, 49, 2,  3,  18, 19, 34, 35, 50, 51,
                                      4,  5,  20, 21, 36, 37, 52, 53, 6,  7,  22, 23, 38, 39, 54, 55,
                                      8,  9,  24, 25, 40, 41, 56, 57, 10, 11, 26, 27, 42, 43, 58, 59,
                                      12, 13, 28, 29, 44, 45, 60, 61, 14, 15, 30, 31, 46, 47, 62, 63};
QV_FN static inline __m512i qv_perm(void) { return _mm512_loadu_si512((const void *)qv_perm_ix); }

/* lanes 2c + 2c+1 -> column c (8 int32) */
QV_FN static inline __m256i qv_fold(__m512i v) { return _mm512_cvtepi64_epi32(_mm512_add_epi64(v, _mm512_srli_epi64(v, 32))); }

QV_FN void pte_xnn_qs8_vnni_corr(size_t kc, const int8_t *w, int32_t *corr8) {
  const __m512i perm = qv_perm(), u128 = _mm512_set1_epi8((char)0x80);
  __m512i s = _mm512_setzero_si512();
  for (size_t k = 0; k + 8 <= kc; k += 8, w += 64)
    s = _mm512_dpbusd_epi32(s, u128, _mm512_permutexvar_epi8(perm, _mm512_loadu_si512((const void *)w)));
  _mm256_storeu_si256((__m256i *)(void *)corr8, qv_fold(s));
}

__attribute__((target("avx512f,avx512bw,avx512vl,avx2,avx512vnni,avx512vbmi"), always_inline)) static inline void
qv_tile(const int np, size_t rows, const size_t *nc, size_t kc, const int8_t *a, size_t as, const int8_t *const *wp,
        const int32_t *const *bias, const int32_t *const *corr, const float *const *scale, int8_t *out, size_t ldc,
        float lo, float hi, int32_t zp) {
  const int8_t *ar[8];
  for (size_t r = 0; r < 8; r++) ar[r] = a + (r < rows ? r : rows - 1) * as;
  const int8_t *w0 = wp[0], *w1 = np > 1 ? wp[1] : wp[0];
  const __m512i perm = qv_perm(), flip = _mm512_set1_epi8((char)0x80);
  __m512i s[2][8];
  for (int q = 0; q < 2; q++)
    for (int r = 0; r < 8; r++) s[q][r] = _mm512_setzero_si512();
  size_t k = 0;
  for (; k + 8 <= kc; k += 8) {
    const __m512i wa = _mm512_permutexvar_epi8(perm, _mm512_loadu_si512((const void *)w0));
    const __m512i wb = np > 1 ? _mm512_permutexvar_epi8(perm, _mm512_loadu_si512((const void *)w1)) : wa;
    w0 += 64, w1 += 64;
#pragma GCC unroll 8
    for (int r = 0; r < 8; r++) {
      int64_t t8;
      memcpy(&t8, ar[r] + k, 8);
      const __m512i x = _mm512_xor_si512(_mm512_set1_epi64(t8), flip);
      s[0][r] = _mm512_dpbusd_epi32(s[0][r], x, wa);
      if (np > 1) s[1][r] = _mm512_dpbusd_epi32(s[1][r], x, wb);
    }
  }
  __m256i acc[2][8];
  for (int q = 0; q < np; q++) {
    const __m256i vb = _mm256_sub_epi32(_mm256_loadu_si256((const __m256i *)(const void *)bias[q]),
                                        _mm256_loadu_si256((const __m256i *)(const void *)corr[q]));
#pragma GCC unroll 8
    for (int r = 0; r < 8; r++) acc[q][r] = _mm256_add_epi32(qv_fold(s[q][r]), vb);
  }
  pte_xnn_qs8_tile_k_tail(acc, np, ar, k, kc, w0, w1);
  pte_xnn_qs8_tile_store(acc, np, rows, nc, scale, out, ldc, lo, hi, zp);
}

QV_FN void pte_xnn_qs8_gemm_8x8_vnni(size_t rows, size_t np, const size_t *nc, size_t kc, const int8_t *a, size_t as,
                                     const int8_t *const *w, const int32_t *const *bias, const int32_t *const *corr,
                                     const float *const *scale, int8_t *out, size_t ldc, float lo, float hi,
                                     int32_t zp) {
  if (np > 1) qv_tile(2, rows, nc, kc, a, as, w, bias, corr, scale, out, ldc, lo, hi, zp);
  else qv_tile(1, rows, nc, kc, a, as, w, bias, corr, scale, out, ldc, lo, hi, zp);
}

#else
bool pte_xnn_have_qs8_vnni(void) { return false; }
void pte_xnn_qs8_vnni_corr(size_t kc, const int8_t *w, int32_t *corr8) {
  (void)kc, (void)w;
  memset(corr8, 0, 8 * sizeof *corr8);
}
void pte_xnn_qs8_gemm_8x8_vnni(size_t rows, size_t np, const size_t *nc, size_t kc, const int8_t *a, size_t as,
                               const int8_t *const *w, const int32_t *const *bias, const int32_t *const *corr,
                               const float *const *scale, int8_t *out, size_t ldc, float lo, float hi, int32_t zp) {
  (void)rows, (void)np, (void)nc, (void)kc, (void)a, (void)as, (void)w, (void)bias, (void)corr, (void)scale;
  (void)out, (void)ldc, (void)lo, (void)hi, (void)zp;
}
#endif
