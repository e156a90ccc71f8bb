/* AVX2 paths of the cortex_m kernels (cm_simd.h). Compiled with target attributes and called
 * only when the CPU has AVX2.
 *
 * GEMM: vpmaddwd on sign-extended int16 (exact: no vpmaddubsw, whose int16 pair sums saturate).
 * Every 4-byte column of weights is split like SXTB16 into the pairs (w0, w2) and (w1, w3), and
 * the activations the same way, so two vpmaddwd give x0 w0 + x1 w1 + x2 w2 + x3 w3 per lane.
 * The accumulator starts at bias + in_off * sum_k w[o][k] (wrapping int32 adds throughout).
 */
#include <string.h>

#include "cortex_m/cm_internal.h"
#include "cortex_m/cm_simd.h"

#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
#include <immintrin.h>

#define CM256 __attribute__((target("avx2")))

bool pte_cm_simd_x86_compiled(void) { return true; }

/* Lane-wise pte_cm_requantize (see cm_simd_avx512.c for the derivation). */
CM256 static inline __m256i rq256(__m256i acc, __m256i mult, __m256i left, __m256i right) {
  const __m256i a = _mm256_sllv_epi32(acc, left);
  const __m256i rnd = _mm256_set1_epi64x(1LL << 30);
  __m256i pe = _mm256_add_epi64(_mm256_mul_epi32(a, mult), rnd);
  __m256i po = _mm256_add_epi64(
      _mm256_mul_epi32(_mm256_srli_epi64(a, 32), _mm256_srli_epi64(mult, 32)), rnd);
  pe = _mm256_srli_epi64(pe, 31);
  po = _mm256_slli_epi64(po, 1);
  const __m256i h = _mm256_blend_epi32(pe, po, 0xAA);
  const __m256i one = _mm256_set1_epi32(1);
  const __m256i mask = _mm256_sub_epi32(_mm256_sllv_epi32(one, right), one);
  const __m256i rem = _mm256_and_si256(h, mask);
  /* threshold = mask >> 1, plus one when h < 0 (cmpgt gives -1) */
  const __m256i thr =
      _mm256_sub_epi32(_mm256_srli_epi32(mask, 1), _mm256_cmpgt_epi32(_mm256_setzero_si256(), h));
  const __m256i res = _mm256_srav_epi32(h, right);
  return _mm256_sub_epi32(res, _mm256_cmpgt_epi32(rem, thr));
}

/* requantize + offset + clamp, store n (<= 8) lanes as int8 */
CM256 static inline void finish256(__m256i acc, __m256i mult, __m256i left, __m256i right,
                                   __m256i ooff, __m256i lo, __m256i hi, int8_t *y, int64_t n) {
  __m256i v = _mm256_add_epi32(rq256(acc, mult, left, right), ooff);
  v = _mm256_min_epi32(_mm256_max_epi32(v, lo), hi);
  const __m128i w16 = _mm_packs_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
  const __m128i b8 = _mm_packs_epi16(w16, w16);
  if (n >= 8) {
    _mm_storel_epi64((__m128i *)(void *)y, b8);
  } else {
    int8_t t[16];
    _mm_storeu_si128((__m128i *)(void *)t, b8);
    memcpy(y, t, (size_t)n);
  }
}

/* n (<= 8) int32 from p, zero-filled */
CM256 static inline __m256i load_i32(const int32_t *p, int64_t n) {
  if (n >= 8) return _mm256_loadu_si256((const __m256i *)(const void *)p);
  int32_t t[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  memcpy(t, p, sizeof(int32_t) * (size_t)n);
  return _mm256_loadu_si256((const __m256i *)(const void *)t);
}
/* n (<= 8) int8 from p, sign-extended to int32 lanes, zero-filled */
CM256 static inline __m256i load_i8x8(const int8_t *p, int64_t n) {
  int64_t q = 0;
  if (n >= 8) {
    memcpy(&q, p, 8);
  } else {
    memcpy(&q, p, (size_t)n);
  }
  return _mm256_cvtepi8_epi32(_mm_cvtsi64_si128(q));
}

CM256 static inline void shifts256(const int32_t *shift, int64_t n, __m256i *left, __m256i *right) {
  const __m256i s = load_i32(shift, n), z = _mm256_setzero_si256();
  *left = _mm256_max_epi32(s, z);
  *right = _mm256_max_epi32(_mm256_sub_epi32(z, s), z);
}

/* (b0, b2) and (b1, b3) of each 32-bit lane as sign-extended int16 pairs */
CM256 static inline __m256i even16(__m256i v) { return _mm256_srai_epi16(_mm256_slli_epi16(v, 8), 8); }
CM256 static inline __m256i odd16(__m256i v) { return _mm256_srai_epi16(v, 8); }

#define CM_PACK_WORDS 8192
#define CM_ROWS 4

/* pack: CM_PACK_WORDS ([blk][kq][E|O][8]), xe / xo: CM_ROWS * PTE_CM_SIMD_KMAX / 4 words each,
 * all 32-byte aligned */
CM256 static void gemm256(const pte_cm_gemm *g, int32_t *pack, int32_t *xe, int32_t *xo) {
  const int64_t K = g->K, OC = g->OC, Kq = (K + 3) / 4, Kq8 = (Kq + 7) & ~(int64_t)7;
  _Alignas(32) int32_t init[PTE_CM_SIMD_NMAX + 8];
  const int64_t blocks_per_chunk = CM_PACK_WORDS / (16 * Kq);
  const int64_t nblocks = (OC + 7) / 8;
  const __m256i ooff = _mm256_set1_epi32(g->out_off), lo = _mm256_set1_epi32(g->act_min),
                hi = _mm256_set1_epi32(g->act_max), ones = _mm256_set1_epi16(1);
  for (int64_t b0 = 0; b0 < nblocks; b0 += blocks_per_chunk) {
    const int64_t b1 = b0 + blocks_per_chunk < nblocks ? b0 + blocks_per_chunk : nblocks;
    for (int64_t b = b0; b < b1; b++) {
      const int64_t o0 = b * 8, nb = OC - o0 < 8 ? OC - o0 : 8;
      int32_t *pb = pack + (b - b0) * 16 * Kq;
      const int8_t *wb = g->w + o0 * K;
      __m256i wsum = _mm256_setzero_si256();
      for (int64_t kq = 0; kq < Kq; kq++) {
        _Alignas(32) int32_t t[8];
        for (int64_t l = 0; l < 8; l++) {
          uint32_t word = 0;
          if (l < nb) {
            if (4 * kq + 4 <= K) {
              memcpy(&word, wb + l * K + 4 * kq, 4);
            } else {
              for (int64_t j = 0; 4 * kq + j < K; j++)
                word |= (uint32_t)(uint8_t)wb[l * K + 4 * kq + j] << (8 * j);
            }
          }
          t[l] = (int32_t)word;
        }
        const __m256i v = _mm256_load_si256((const __m256i *)(const void *)t);
        const __m256i e = even16(v), o = odd16(v);
        _mm256_store_si256((__m256i *)(void *)(pb + kq * 16), e);
        _mm256_store_si256((__m256i *)(void *)(pb + kq * 16 + 8), o);
        wsum = _mm256_add_epi32(wsum, _mm256_add_epi32(_mm256_madd_epi16(e, ones),
                                                       _mm256_madd_epi16(o, ones)));
      }
      const __m256i corr = _mm256_mullo_epi32(wsum, _mm256_set1_epi32(g->in_off));
      _mm256_storeu_si256((__m256i *)(void *)(init + o0),
                          _mm256_add_epi32(load_i32(g->bias + o0, nb), corr));
    }
    for (int64_t p = 0; p < g->P; p += CM_ROWS) {
      const int64_t nr = g->P - p < CM_ROWS ? g->P - p : CM_ROWS;
      for (int64_t r = 0; r < nr; r++) {
        const int8_t *xr = g->x + (p + r) * g->xs;
        for (int64_t k = 0; k < 4 * Kq; k += 32) {
          __m256i v;
          if (k + 32 <= K) {
            v = _mm256_loadu_si256((const __m256i *)(const void *)(xr + k));
          } else {
            _Alignas(32) int8_t t[32];
            memset(t, 0, sizeof t);
            if (K > k) memcpy(t, xr + k, (size_t)(K - k));
            v = _mm256_load_si256((const __m256i *)(const void *)t);
          }
          _mm256_store_si256((__m256i *)(void *)(xe + r * Kq8 + k / 4), even16(v));
          _mm256_store_si256((__m256i *)(void *)(xo + r * Kq8 + k / 4), odd16(v));
        }
      }
      int32_t radd[CM_ROWS] = {0, 0, 0, 0};
      if (g->row_add)
        for (int64_t r = 0; r < nr; r++) radd[r] = g->row_add[p + r];
      const int64_t r1 = nr > 1 ? Kq8 : 0, r2 = nr > 2 ? 2 * Kq8 : 0, r3 = nr > 3 ? 3 * Kq8 : 0;
      for (int64_t b = b0; b < b1; b++) {
        const int64_t o0 = b * 8, nb = OC - o0 < 8 ? OC - o0 : 8;
        const int32_t *pb = pack + (b - b0) * 16 * Kq;
        const __m256i in = _mm256_loadu_si256((const __m256i *)(const void *)(init + o0));
        __m256i a0 = _mm256_add_epi32(in, _mm256_set1_epi32(radd[0]));
        __m256i a1 = _mm256_add_epi32(in, _mm256_set1_epi32(radd[1]));
        __m256i a2 = _mm256_add_epi32(in, _mm256_set1_epi32(radd[2]));
        __m256i a3 = _mm256_add_epi32(in, _mm256_set1_epi32(radd[3]));
        for (int64_t kq = 0; kq < Kq; kq++) {
          const __m256i we = _mm256_load_si256((const __m256i *)(const void *)(pb + kq * 16));
          const __m256i wo = _mm256_load_si256((const __m256i *)(const void *)(pb + kq * 16 + 8));
          a0 = _mm256_add_epi32(a0, _mm256_madd_epi16(_mm256_set1_epi32(xe[kq]), we));
          a1 = _mm256_add_epi32(a1, _mm256_madd_epi16(_mm256_set1_epi32(xe[r1 + kq]), we));
          a2 = _mm256_add_epi32(a2, _mm256_madd_epi16(_mm256_set1_epi32(xe[r2 + kq]), we));
          a3 = _mm256_add_epi32(a3, _mm256_madd_epi16(_mm256_set1_epi32(xe[r3 + kq]), we));
          a0 = _mm256_add_epi32(a0, _mm256_madd_epi16(_mm256_set1_epi32(xo[kq]), wo));
          a1 = _mm256_add_epi32(a1, _mm256_madd_epi16(_mm256_set1_epi32(xo[r1 + kq]), wo));
          a2 = _mm256_add_epi32(a2, _mm256_madd_epi16(_mm256_set1_epi32(xo[r2 + kq]), wo));
          a3 = _mm256_add_epi32(a3, _mm256_madd_epi16(_mm256_set1_epi32(xo[r3 + kq]), wo));
        }
        const __m256i mult = load_i32(g->mult + o0, nb);
        __m256i left, right;
        shifts256(g->shift + o0, nb, &left, &right);
        int8_t *yp = g->y + p * g->ys + o0;
        finish256(a0, mult, left, right, ooff, lo, hi, yp, nb);
        if (nr > 1) finish256(a1, mult, left, right, ooff, lo, hi, yp + g->ys, nb);
        if (nr > 2) finish256(a2, mult, left, right, ooff, lo, hi, yp + 2 * g->ys, nb);
        if (nr > 3) finish256(a3, mult, left, right, ooff, lo, hi, yp + 3 * g->ys, nb);
      }
    }
  }
}

/* the packing buffers on the stack (48 KiB): only when the caller has no scratch */
CM256 __attribute__((noinline)) static void gemm256_stack(const pte_cm_gemm *g) {
  _Alignas(32) int32_t pack[CM_PACK_WORDS];
  _Alignas(32) int32_t xe[CM_ROWS * (PTE_CM_SIMD_KMAX / 4)], xo[CM_ROWS * (PTE_CM_SIMD_KMAX / 4)];
  gemm256(g, pack, xe, xo);
}

CM256 void pte_cm_gemm_avx2(const pte_cm_gemm *g) {
  enum { ROWW = CM_ROWS * (PTE_CM_SIMD_KMAX / 4) };
  _Static_assert((CM_PACK_WORDS + 2 * ROWW) * 4 <= PTE_CM_GEMM_SCRATCH_BYTES, "scratch too small");
  if (g->scratch)
    gemm256(g, g->scratch, g->scratch + CM_PACK_WORDS, g->scratch + CM_PACK_WORDS + ROWW);
  else
    gemm256_stack(g);
}

/* Depthwise: 32 channels (four 8-lane int32 accumulators) per pass over the valid taps; full
 * 8-channel groups load directly, a channel tail goes through load_i8x8. */
CM256 void pte_cm_dw_avx2(const pte_cm_dw *d) {
  const int64_t C = d->C;
  const __m256i ooff = _mm256_set1_epi32(d->out_off), lo = _mm256_set1_epi32(d->act_min),
                hi = _mm256_set1_epi32(d->act_max), ioff = _mm256_set1_epi32(d->in_off);
  for (int64_t oy = 0; oy < d->OH; oy++) {
    const int64_t iy0 = oy * d->sh - d->ph;
    ptrdiff_t ky0, ky1;
    pte_cm_valid_taps(iy0, d->dh, d->KH, d->H, &ky0, &ky1);
    for (int64_t ox = 0; ox < d->OW; ox++) {
      const int64_t ix0 = ox * d->sw - d->pw;
      ptrdiff_t kx0, kx1;
      pte_cm_valid_taps(ix0, d->dw, d->KW, d->W, &kx0, &kx1);
      int8_t *yp = d->y + (oy * d->OW + ox) * C;
      for (int64_t c0 = 0; c0 < C; c0 += 32) {
        const int64_t nc = C - c0 < 32 ? C - c0 : 32;
        const int64_t n0 = nc < 8 ? nc : 8, n1 = nc > 8 ? (nc < 16 ? nc - 8 : 8) : 0,
                      n2 = nc > 16 ? (nc < 24 ? nc - 16 : 8) : 0, n3 = nc > 24 ? nc - 24 : 0;
        __m256i a0 = load_i32(d->bias + c0, n0);
        __m256i a1 = n1 ? load_i32(d->bias + c0 + 8, n1) : _mm256_setzero_si256();
        __m256i a2 = n2 ? load_i32(d->bias + c0 + 16, n2) : _mm256_setzero_si256();
        __m256i a3 = n3 ? load_i32(d->bias + c0 + 24, n3) : _mm256_setzero_si256();
        for (int64_t ky = ky0; ky < ky1; ky++) {
          const int8_t *xr = d->x + ((iy0 + ky * d->dh) * d->W + ix0) * C + c0;
          const int8_t *wr = d->w + ky * d->KW * C + c0;
          for (int64_t kx = kx0; kx < kx1; kx++) {
            const int8_t *xp = xr + kx * d->dw * C, *wp = wr + kx * C;
            if (nc == 32) {
              const __m256i xv = _mm256_loadu_si256((const __m256i *)(const void *)xp);
              const __m256i wv = _mm256_loadu_si256((const __m256i *)(const void *)wp);
#define CM_DW8(a, k)                                                                         \
  a = _mm256_add_epi32(                                                                      \
      a, _mm256_mullo_epi32(                                                                 \
             _mm256_add_epi32(_mm256_cvtepi8_epi32(_mm_cvtsi64_si128(_mm256_extract_epi64(xv, k))), ioff), \
             _mm256_cvtepi8_epi32(_mm_cvtsi64_si128(_mm256_extract_epi64(wv, k)))))
              CM_DW8(a0, 0);
              CM_DW8(a1, 1);
              CM_DW8(a2, 2);
              CM_DW8(a3, 3);
#undef CM_DW8
            } else {
#define CM_DWT(a, n, o)                                                                    \
  if (n)                                                                                   \
  a = _mm256_add_epi32(a, _mm256_mullo_epi32(_mm256_add_epi32(load_i8x8(xp + (o), n), ioff), \
                                             load_i8x8(wp + (o), n)))
              CM_DWT(a0, n0, 0);
              CM_DWT(a1, n1, 8);
              CM_DWT(a2, n2, 16);
              CM_DWT(a3, n3, 24);
#undef CM_DWT
            }
          }
        }
        __m256i left, right;
        shifts256(d->shift + c0, n0, &left, &right);
        finish256(a0, load_i32(d->mult + c0, n0), left, right, ooff, lo, hi, yp + c0, n0);
        if (n1) {
          shifts256(d->shift + c0 + 8, n1, &left, &right);
          finish256(a1, load_i32(d->mult + c0 + 8, n1), left, right, ooff, lo, hi, yp + c0 + 8, n1);
        }
        if (n2) {
          shifts256(d->shift + c0 + 16, n2, &left, &right);
          finish256(a2, load_i32(d->mult + c0 + 16, n2), left, right, ooff, lo, hi, yp + c0 + 16, n2);
        }
        if (n3) {
          shifts256(d->shift + c0 + 24, n3, &left, &right);
          finish256(a3, load_i32(d->mult + c0 + 24, n3), left, right, ooff, lo, hi, yp + c0 + 24, n3);
        }
      }
    }
  }
}

CM256 void pte_cm_pool_avx2(const pte_cm_pool *p) {
  const int64_t C = p->C, cnt = (p->ye - p->ys) * (p->xe - p->xs), half = cnt / 2;
  for (int64_t c0 = 0; c0 < C; c0 += 32) {
    const int64_t nc = C - c0 < 32 ? C - c0 : 32;
    if (p->is_max) {
      __m256i m = _mm256_set1_epi8(-128);
      for (int64_t iy = p->ys; iy < p->ye; iy++)
        for (int64_t ix = p->xs; ix < p->xe; ix++) {
          const int8_t *xp = p->x + iy * p->row + ix * C + c0;
          __m256i v;
          if (nc == 32) {
            v = _mm256_loadu_si256((const __m256i *)(const void *)xp);
          } else {
            int8_t t[32];
            memset(t, -128, sizeof t);
            memcpy(t, xp, (size_t)nc);
            v = _mm256_loadu_si256((const __m256i *)(const void *)t);
          }
          m = _mm256_max_epi8(m, v);
        }
      m = _mm256_min_epi8(_mm256_max_epi8(m, _mm256_set1_epi8((char)p->lo)),
                          _mm256_set1_epi8((char)p->hi));
      int8_t t[32];
      _mm256_storeu_si256((__m256i *)(void *)t, m);
      memcpy(p->y + c0, t, (size_t)nc);
      continue;
    }
    __m256i s[4] = {_mm256_setzero_si256(), _mm256_setzero_si256(), _mm256_setzero_si256(),
                    _mm256_setzero_si256()};
    for (int64_t iy = p->ys; iy < p->ye; iy++)
      for (int64_t ix = p->xs; ix < p->xe; ix++) {
        const int8_t *xp = p->x + iy * p->row + ix * C + c0;
        for (int64_t j = 0; j < 4 && 8 * j < nc; j++)
          s[j] = _mm256_add_epi32(s[j], load_i8x8(xp + 8 * j, nc - 8 * j));
      }
    _Alignas(32) int32_t sums[32];
    for (int j = 0; j < 4; j++) _mm256_store_si256((__m256i *)(void *)(sums + 8 * j), s[j]);
    for (int64_t c = 0; c < nc; c++) {
      const int64_t sum = sums[c];
      int64_t v = sum > 0 ? (sum + half) / cnt : (sum - half) / cnt;
      v = v < -128 ? -128 : (v > 127 ? 127 : v);
      p->y[c0 + c] = (int8_t)v;
    }
  }
}

CM256 void pte_cm_addmul_avx2(const pte_cm_addmul *e) {
  const __m256i off1 = _mm256_set1_epi32(e->off1), off2 = _mm256_set1_epi32(e->off2);
  const __m256i m1 = _mm256_set1_epi32(e->m1), m2 = _mm256_set1_epi32(e->m2),
                mo = _mm256_set1_epi32(e->mo);
  const __m256i l1 = _mm256_set1_epi32(e->s1 > 0 ? e->s1 : 0),
                r1 = _mm256_set1_epi32(e->s1 > 0 ? 0 : -e->s1);
  const __m256i l2 = _mm256_set1_epi32(e->s2 > 0 ? e->s2 : 0),
                r2 = _mm256_set1_epi32(e->s2 > 0 ? 0 : -e->s2);
  const __m256i lo_ = _mm256_set1_epi32(e->so > 0 ? e->so : 0),
                ro = _mm256_set1_epi32(e->so > 0 ? 0 : -e->so);
  const __m256i zpo = _mm256_set1_epi32(e->zpo), lo = _mm256_set1_epi32(e->lo),
                hi = _mm256_set1_epi32(e->hi);
  for (int64_t i = 0; i < e->n; i += 8) {
    const int64_t n = e->n - i < 8 ? e->n - i : 8;
    const __m256i x1 = _mm256_add_epi32(load_i8x8(e->a + i, n), off1);
    const __m256i x2 = _mm256_add_epi32(load_i8x8(e->b + i, n), off2);
    __m256i acc;
    if (e->is_mul) {
      acc = _mm256_mullo_epi32(x1, x2);
    } else {
      acc = _mm256_add_epi32(rq256(_mm256_slli_epi32(x1, 20), m1, l1, r1),
                             rq256(_mm256_slli_epi32(x2, 20), m2, l2, r2));
    }
    finish256(acc, mo, lo_, ro, zpo, lo, hi, e->y + i, n);
  }
}

/* ---- softmax (lanes = elements of a row; see cm_simd_avx512.c) -------------------------- */

/* Lane-wise pte_cm_dhm_sat. The quotient's low 32 bits are bits 31..62 of the biased 64-bit
 * sum, so the logical 64-bit shift (AVX2 has no arithmetic one) gives them too. */
CM256 static inline __m256i dhm_sat256(__m256i a, __m256i b) {
  const __m256i pos = _mm256_set1_epi64x(1LL << 30), neg = _mm256_set1_epi64x(1 - (1LL << 30));
  const __m256i bias = _mm256_set1_epi64x((1LL << 31) - 1), z = _mm256_setzero_si256();
  __m256i pe = _mm256_mul_epi32(a, b);
  const __m256i de = _mm256_cmpgt_epi64(z, _mm256_slli_epi64(_mm256_xor_si256(a, b), 32));
  pe = _mm256_add_epi64(pe, _mm256_blendv_epi8(pos, neg, de));
  pe = _mm256_add_epi64(pe, _mm256_and_si256(_mm256_cmpgt_epi64(z, pe), bias));
  pe = _mm256_srli_epi64(pe, 31);
  const __m256i ao = _mm256_srli_epi64(a, 32), bo = _mm256_srli_epi64(b, 32);
  __m256i po = _mm256_mul_epi32(ao, bo);
  const __m256i dodd = _mm256_cmpgt_epi64(z, _mm256_slli_epi64(_mm256_xor_si256(ao, bo), 32));
  po = _mm256_add_epi64(po, _mm256_blendv_epi8(pos, neg, dodd));
  po = _mm256_add_epi64(po, _mm256_and_si256(_mm256_cmpgt_epi64(z, po), bias));
  po = _mm256_slli_epi64(_mm256_srli_epi64(po, 31), 32);
  const __m256i r = _mm256_blend_epi32(pe, po, 0xAA);
  const __m256i mn = _mm256_set1_epi32(INT32_MIN);
  const __m256i both = _mm256_and_si256(_mm256_cmpeq_epi32(a, mn), _mm256_cmpeq_epi32(b, mn));
  return _mm256_blendv_epi8(r, _mm256_set1_epi32(INT32_MAX), both);
}

CM256 static inline __m256i div_pow2_256(__m256i x, int e) {
  const __m256i right = _mm256_set1_epi32(e), one = _mm256_set1_epi32(1);
  const __m256i mask = _mm256_sub_epi32(_mm256_sllv_epi32(one, right), one);
  const __m256i rem = _mm256_and_si256(x, mask);
  const __m256i thr =
      _mm256_sub_epi32(_mm256_srli_epi32(mask, 1), _mm256_cmpgt_epi32(_mm256_setzero_si256(), x));
  return _mm256_sub_epi32(_mm256_srav_epi32(x, right), _mm256_cmpgt_epi32(rem, thr));
}

CM256 static inline __m256i exp_neg256(__m256i val) {
  const __m256i q = _mm256_sub_epi32(_mm256_and_si256(val, _mm256_set1_epi32((1 << 24) - 1)),
                                     _mm256_set1_epi32(1 << 24));
  const __m256i remainder = _mm256_sub_epi32(q, val);
  const __m256i x = _mm256_add_epi32(_mm256_slli_epi32(q, 5), _mm256_set1_epi32(1 << 28));
  const __m256i x2 = dhm_sat256(x, x);
  const __m256i x4_over_4 = div_pow2_256(dhm_sat256(x2, x2), 2);
  const __m256i x3 = dhm_sat256(x2, x);
  const __m256i poly = dhm_sat256(_mm256_add_epi32(x4_over_4, x3), _mm256_set1_epi32(715827883));
  const __m256i inner = _mm256_add_epi32(x, div_pow2_256(_mm256_add_epi32(poly, x2), 1));
  const __m256i c0 = _mm256_set1_epi32(1895147668);
  __m256i result = _mm256_add_epi32(c0, dhm_sat256(c0, inner));
  static const int32_t k_consts[7] = {1672461947, 1302514674, 790015084, 290630308,
                                      39332535,   720401,     242};
  const __m256i z = _mm256_setzero_si256();
  for (int i = 0; i < 7; i++) {
    const __m256i bit = _mm256_and_si256(remainder, _mm256_set1_epi32(1 << (24 + i)));
    const __m256i m = _mm256_xor_si256(_mm256_cmpeq_epi32(bit, z), _mm256_set1_epi32(-1));
    result = _mm256_blendv_epi8(result, dhm_sat256(result, _mm256_set1_epi32(k_consts[i])), m);
  }
  return _mm256_blendv_epi8(result, _mm256_set1_epi32(INT32_MAX), _mm256_cmpeq_epi32(val, z));
}

/* int8 lanes [i, i + n) (n <= 8) sign-extended, `fill` in the others */
CM256 static inline __m256i load_i8x8_fill(const int8_t *p, int64_t n, int8_t fill) {
  int8_t t[8];
  memset(t, fill, sizeof t);
  memcpy(t, p, (size_t)(n < 8 ? n : 8));
  int64_t q;
  memcpy(&q, t, 8);
  return _mm256_cvtepi8_epi32(_mm_cvtsi64_si128(q));
}

CM256 void pte_cm_softmax_avx2(const pte_cm_softmax *s) {
  const int64_t n = s->n;
  __m256i vmax = _mm256_set1_epi32(-128);
  for (int64_t i = 0; i < n; i += 8)
    vmax = _mm256_max_epi32(vmax, load_i8x8_fill(s->x + i, n - i, -128));
  _Alignas(32) int32_t t[8];
  _mm256_store_si256((__m256i *)(void *)t, vmax);
  int32_t mx = t[0];
  for (int j = 1; j < 8; j++) mx = t[j] > mx ? t[j] : mx;
  const __m256i vmx = _mm256_set1_epi32(mx), vmask = _mm256_set1_epi32(s->mask),
                vmult = _mm256_set1_epi32(s->mult), dmin = _mm256_set1_epi32(s->diff_min),
                all = _mm256_set1_epi32(-1);
  const __m256i idx = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  __m256i vsum = _mm256_setzero_si256();
  for (int64_t i = 0; i < n; i += 8) {
    const __m256i lanes = _mm256_cmpgt_epi32(_mm256_set1_epi32((int32_t)(n - i < 8 ? n - i : 8)), idx);
    const __m256i d = _mm256_sub_epi32(load_i8x8(s->x + i, n - i), vmx);
    const __m256i ok = _mm256_andnot_si256(_mm256_cmpgt_epi32(dmin, d), lanes); /* d >= diff_min */
    const __m256i e = exp_neg256(dhm_sat256(_mm256_mullo_epi32(d, vmask), vmult));
    vsum = _mm256_add_epi32(vsum, _mm256_and_si256(div_pow2_256(e, 12), ok));
  }
  _mm256_store_si256((__m256i *)(void *)t, vsum);
  uint32_t usum = 0;
  for (int j = 0; j < 8; j++) usum += (uint32_t)t[j];
  const int32_t sum = pte_cm_wrap32((int64_t)usum);
  int headroom = 0;
  while (headroom < 32 && !(usum & (0x80000000u >> headroom))) headroom++;
  const uint32_t shifted = sum > 0 ? (usum << headroom) : 0u;
  const int32_t shifted_scale =
      pte_cm_one_over_one_plus_x_for_x_in_0_1(pte_cm_wrap32((int64_t)shifted - 2147483648LL));
  int bits_over_unit = 12 - headroom + 23;
  if (bits_over_unit > 31) bits_over_unit = 31;
  const __m256i vscale = _mm256_set1_epi32(shifted_scale), m128 = _mm256_set1_epi32(-128);
  for (int64_t i = 0; i < n; i += 8) {
    const int64_t m = n - i < 8 ? n - i : 8;
    const __m256i d = _mm256_sub_epi32(load_i8x8(s->x + i, m), vmx);
    const __m256i ok = _mm256_xor_si256(_mm256_cmpgt_epi32(dmin, d), all);
    const __m256i e = exp_neg256(dhm_sat256(_mm256_mullo_epi32(d, vmask), vmult));
    __m256i r = _mm256_add_epi32(div_pow2_256(dhm_sat256(vscale, e), bits_over_unit), m128);
    r = _mm256_min_epi32(_mm256_max_epi32(r, m128), _mm256_set1_epi32(127));
    r = _mm256_blendv_epi8(m128, r, ok);
    const __m128i w16 = _mm_packs_epi32(_mm256_castsi256_si128(r), _mm256_extracti128_si256(r, 1));
    int8_t out[16];
    _mm_storeu_si128((__m128i *)(void *)out, _mm_packs_epi16(w16, w16));
    memcpy(s->y + i, out, (size_t)m);
  }
}

CM256 static void check_math256(const int32_t *a, const int32_t *b, const int32_t *shift,
                                int64_t n, int32_t *rq, int32_t *dhm, int32_t *ex) {
  for (int64_t i = 0; i < n; i += 8) {
    const int64_t m = n - i < 8 ? n - i : 8;
    __m256i left, right;
    shifts256(shift + i, m, &left, &right);
    const __m256i va = load_i32(a + i, m), vb = load_i32(b + i, m);
    _Alignas(32) int32_t t[8];
    _mm256_store_si256((__m256i *)(void *)t, rq256(va, vb, left, right));
    memcpy(rq + i, t, sizeof(int32_t) * (size_t)m);
    _mm256_store_si256((__m256i *)(void *)t, dhm_sat256(va, vb));
    memcpy(dhm + i, t, sizeof(int32_t) * (size_t)m);
    _mm256_store_si256((__m256i *)(void *)t, exp_neg256(_mm256_min_epi32(va, _mm256_setzero_si256())));
    memcpy(ex + i, t, sizeof(int32_t) * (size_t)m);
  }
}

bool pte_cm_avx2_check_math(const int32_t *a, const int32_t *b, const int32_t *shift, int64_t n,
                            int32_t *rq, int32_t *dhm, int32_t *ex) {
  if (!pte_cm_simd_available(PTE_CM_ISA_AVX2)) return false;
  check_math256(a, b, shift, n, rq, dhm, ex);
  return true;
}

#else
bool pte_cm_simd_x86_compiled(void) { return false; }
void pte_cm_gemm_avx2(const pte_cm_gemm *g) { (void)g; }
void pte_cm_dw_avx2(const pte_cm_dw *d) { (void)d; }
void pte_cm_pool_avx2(const pte_cm_pool *p) { (void)p; }
void pte_cm_addmul_avx2(const pte_cm_addmul *e) { (void)e; }
void pte_cm_softmax_avx2(const pte_cm_softmax *s) { (void)s; }
bool pte_cm_avx2_check_math(const int32_t *a, const int32_t *b, const int32_t *shift, int64_t n,
                            int32_t *rq, int32_t *dhm, int32_t *ex) {
  (void)a, (void)b, (void)shift, (void)n, (void)rq, (void)dhm, (void)ex;
  return false;
}
#endif
