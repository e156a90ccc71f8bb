/* AVX-512 VNNI paths of the cortex_m kernels (cm_simd.h). Compiled with target attributes and
 * called only when the CPU has AVX-512 F/BW/VL and VNNI.
 *
 * GEMM: vpdpbusd multiplies unsigned by signed bytes, so the activations enter as
 * u = x + 128 (x ^ 0x80) and the accumulator starts at bias + (in_off - 128) * sum_k w[o][k]:
 *   sum_k (x + in_off) w = sum_k u w + (in_off - 128) sum_k w      (exact modulo 2^32;
 * vpdpbusd is the non-saturating form, so every step wraps like the target's int32 adds).
 * Weights are packed per block of 16 output channels as [k / 4][16 lanes][4 bytes] (one gather
 * per 4-byte column), activations are broadcast 4 bytes at a time; outputs are channel lanes,
 * requantized lane-wise (cm_simd_x86.h).
 */
#include <string.h>

#include "cortex_m/cm_internal.h"
#include "cortex_m/cm_simd.h"

#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
#include <immintrin.h>

#define CM512 __attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni")))

/* Lane-wise pte_cm_requantize(acc, mult, shift) with left = max(shift, 0), right = max(-shift, 0). */
CM512 static inline __m512i rq512(__m512i acc, __m512i mult, __m512i left, __m512i right) {
  const __m512i a = _mm512_sllv_epi32(acc, left);
  const __m512i rnd = _mm512_set1_epi64(1LL << 30);
  /* (a * mult + 2^30) >> 31, low 32 bits: bits 31..62 of the 64-bit sums (even / odd lanes) */
  __m512i pe = _mm512_add_epi64(_mm512_mul_epi32(a, mult), rnd);
  __m512i po = _mm512_add_epi64(
      _mm512_mul_epi32(_mm512_srli_epi64(a, 32), _mm512_srli_epi64(mult, 32)), rnd);
  pe = _mm512_srli_epi64(pe, 31);
  po = _mm512_slli_epi64(po, 1);
  const __m512i h = _mm512_mask_blend_epi32(0xAAAA, pe, po);
  /* rounding divide by 2^right, ties away from zero */
  const __m512i one = _mm512_set1_epi32(1);
  const __m512i mask = _mm512_sub_epi32(_mm512_sllv_epi32(one, right), one);
  const __m512i rem = _mm512_and_si512(h, mask);
  __m512i thr = _mm512_srli_epi32(mask, 1);
  thr = _mm512_mask_add_epi32(thr, _mm512_cmplt_epi32_mask(h, _mm512_setzero_si512()), thr, one);
  __m512i res = _mm512_srav_epi32(h, right);
  return _mm512_mask_add_epi32(res, _mm512_cmpgt_epi32_mask(rem, thr), res, one);
}

/* requantize + offset + clamp, store the first lanes of `m` as int8 */
CM512 static inline void finish512(__m512i acc, __m512i mult, __m512i left, __m512i right,
                                   __m512i ooff, __m512i lo, __m512i hi, int8_t *y, __mmask16 m) {
  __m512i v = _mm512_add_epi32(rq512(acc, mult, left, right), ooff);
  v = _mm512_min_epi32(_mm512_max_epi32(v, lo), hi);
  _mm_mask_storeu_epi8(y, m, _mm512_cvtepi32_epi8(v));
}

CM512 static inline void shifts512(const int32_t *shift, __mmask16 m, __m512i *left,
                                   __m512i *right) {
  const __m512i s = _mm512_maskz_loadu_epi32(m, shift);
  *left = _mm512_max_epi32(s, _mm512_setzero_si512());
  *right = _mm512_max_epi32(_mm512_sub_epi32(_mm512_setzero_si512(), s), _mm512_setzero_si512());
}

static inline __mmask16 lanes16(int64_t n) {
  return n >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << n) - 1u);
}
static inline __mmask64 lanes64(int64_t n) {
  return n >= 64 ? ~(__mmask64)0 : (((__mmask64)1 << n) - 1);
}

#define CM_PACK_WORDS 8192 /* 32 KiB of packed weights */
#define CM_ROWS 4

/* pack: CM_PACK_WORDS, xw: CM_ROWS * PTE_CM_SIMD_KMAX / 4 words, both 64-byte aligned */
CM512 static void gemm512(const pte_cm_gemm *g, int32_t *pack, int32_t *xw) {
  const int64_t K = g->K, OC = g->OC, Kq = (K + 3) / 4, Kq16 = (Kq + 15) & ~(int64_t)15;
  _Alignas(64) int32_t init[PTE_CM_SIMD_NMAX + 16];
  const int64_t blocks_per_chunk = CM_PACK_WORDS / (16 * Kq);
  const int64_t nblocks = (OC + 15) / 16;
  const __m512i ooff = _mm512_set1_epi32(g->out_off), lo = _mm512_set1_epi32(g->act_min),
                hi = _mm512_set1_epi32(g->act_max);
  const __m512i ones = _mm512_set1_epi32(0x01010101);
  const __m512i lane_row = _mm512_mullo_epi32(
      _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
      _mm512_set1_epi32((int32_t)K));
  for (int64_t b0 = 0; b0 < nblocks; b0 += blocks_per_chunk) {
    const int64_t b1 = b0 + blocks_per_chunk < nblocks ? b0 + blocks_per_chunk : nblocks;
    /* pack the chunk's weights and fold bias + (in_off - 128) * sum(w) into init */
    for (int64_t b = b0; b < b1; b++) {
      const int64_t o0 = b * 16, nb = OC - o0 < 16 ? OC - o0 : 16;
      const __mmask16 lm = lanes16(nb);
      int32_t *pb = pack + (b - b0) * 16 * Kq;
      const int8_t *wb = g->w + o0 * K;
      __m512i wsum = _mm512_setzero_si512();
      for (int64_t kq = 0; kq < Kq; kq++) {
        __m512i v;
        if (4 * kq + 4 <= K) {
          v = _mm512_mask_i32gather_epi32(_mm512_setzero_si512(), lm, lane_row, wb + 4 * kq, 1);
        } else {
          _Alignas(64) int32_t t[16];
          for (int64_t l = 0; l < 16; l++) {
            uint32_t word = 0;
            if (l < nb)
              for (int64_t j = 0; 4 * kq + j < K; j++)
                word |= (uint32_t)(uint8_t)wb[l * K + 4 * kq + j] << (8 * j);
            t[l] = (int32_t)word;
          }
          v = _mm512_load_si512(t);
        }
        _mm512_store_si512(pb + kq * 16, v);
        wsum = _mm512_dpbusd_epi32(wsum, ones, v);
      }
      const __m512i bias = _mm512_maskz_loadu_epi32(lm, g->bias + o0);
      const __m512i corr = _mm512_mullo_epi32(wsum, _mm512_set1_epi32(g->in_off - 128));
      _mm512_storeu_si512(init + o0, _mm512_add_epi32(bias, corr));
    }
    for (int64_t p = 0; p < g->P; p += CM_ROWS) {
      const int64_t nr = g->P - p < CM_ROWS ? g->P - p : CM_ROWS;
      /* rows as u8 words (x ^ 0x80), zero bytes past K (their weights are zero) */
      for (int64_t r = 0; r < nr; r++) {
        const int8_t *xr = g->x + (p + r) * g->xs;
        for (int64_t k = 0; k < K; k += 64) {
          const __m512i v = _mm512_maskz_loadu_epi8(lanes64(K - k), xr + k);
          _mm512_store_si512(xw + r * Kq16 + k / 4,
                             _mm512_xor_si512(v, _mm512_set1_epi8((char)0x80)));
        }
      }
      int32_t radd[CM_ROWS] = {0, 0, 0, 0};
      if (g->row_add)
        for (int64_t r = 0; r < nr; r++) radd[r] = g->row_add[p + r];
      const int32_t *x0 = xw, *x1 = xw + (nr > 1 ? Kq16 : 0), *x2 = xw + (nr > 2 ? 2 * Kq16 : 0),
                    *x3 = xw + (nr > 3 ? 3 * Kq16 : 0);
      for (int64_t b = b0; b < b1; b++) {
        const int64_t o0 = b * 16, nb = OC - o0 < 16 ? OC - o0 : 16;
        const __mmask16 lm = lanes16(nb);
        const int32_t *pb = pack + (b - b0) * 16 * Kq;
        const __m512i in = _mm512_load_si512(init + o0);
        __m512i a0 = _mm512_add_epi32(in, _mm512_set1_epi32(radd[0]));
        __m512i a1 = _mm512_add_epi32(in, _mm512_set1_epi32(radd[1]));
        __m512i a2 = _mm512_add_epi32(in, _mm512_set1_epi32(radd[2]));
        __m512i a3 = _mm512_add_epi32(in, _mm512_set1_epi32(radd[3]));
        for (int64_t kq = 0; kq < Kq; kq++) {
          const __m512i wv = _mm512_load_si512(pb + kq * 16);
          a0 = _mm512_dpbusd_epi32(a0, _mm512_set1_epi32(x0[kq]), wv);
          a1 = _mm512_dpbusd_epi32(a1, _mm512_set1_epi32(x1[kq]), wv);
          a2 = _mm512_dpbusd_epi32(a2, _mm512_set1_epi32(x2[kq]), wv);
          a3 = _mm512_dpbusd_epi32(a3, _mm512_set1_epi32(x3[kq]), wv);
        }
        const __m512i mult = _mm512_maskz_loadu_epi32(lm, g->mult + o0);
        __m512i left, right;
        shifts512(g->shift + o0, lm, &left, &right);
        int8_t *yp = g->y + p * g->ys + o0;
        finish512(a0, mult, left, right, ooff, lo, hi, yp, lm);
        if (nr > 1) finish512(a1, mult, left, right, ooff, lo, hi, yp + g->ys, lm);
        if (nr > 2) finish512(a2, mult, left, right, ooff, lo, hi, yp + 2 * g->ys, lm);
        if (nr > 3) finish512(a3, mult, left, right, ooff, lo, hi, yp + 3 * g->ys, lm);
      }
    }
  }
}

/* the packing buffers on the stack (40 KiB): only when the caller has no scratch */
CM512 __attribute__((noinline)) static void gemm512_stack(const pte_cm_gemm *g) {
  _Alignas(64) int32_t pack[CM_PACK_WORDS];
  _Alignas(64) int32_t xw[CM_ROWS * (PTE_CM_SIMD_KMAX / 4)];
  gemm512(g, pack, xw);
}

CM512 void pte_cm_gemm_avx512(const pte_cm_gemm *g) {
  _Static_assert((CM_PACK_WORDS + CM_ROWS * (PTE_CM_SIMD_KMAX / 4)) * 4 <= PTE_CM_GEMM_SCRATCH_BYTES,
                 "scratch too small");
  if (g->scratch)
    gemm512(g, g->scratch, g->scratch + CM_PACK_WORDS);
  else
    gemm512_stack(g);
}

/* Depthwise: 64 channels (four 16-lane int32 accumulators) per pass over the valid taps. */
CM512 void pte_cm_dw_avx512(const pte_cm_dw *d) {
  const int64_t C = d->C;
  const __m512i ooff = _mm512_set1_epi32(d->out_off), lo = _mm512_set1_epi32(d->act_min),
                hi = _mm512_set1_epi32(d->act_max), ioff = _mm512_set1_epi32(d->in_off);
  for (int64_t oy = 0; oy < d->OH; oy++) {
    const int64_t iy0 = oy * d->sh - d->ph;
    ptrdiff_t ky0, ky1;
    pte_cm_valid_taps(iy0, d->dh, d->KH, d->H, &ky0, &ky1);
    for (int64_t ox = 0; ox < d->OW; ox++) {
      const int64_t ix0 = ox * d->sw - d->pw;
      ptrdiff_t kx0, kx1;
      pte_cm_valid_taps(ix0, d->dw, d->KW, d->W, &kx0, &kx1);
      int8_t *yp = d->y + (oy * d->OW + ox) * C;
      for (int64_t c0 = 0; c0 < C; c0 += 64) {
        const __mmask16 m0 = lanes16(C - c0), m1 = lanes16(C - c0 - 16 > 0 ? C - c0 - 16 : 0),
                        m2 = lanes16(C - c0 - 32 > 0 ? C - c0 - 32 : 0),
                        m3 = lanes16(C - c0 - 48 > 0 ? C - c0 - 48 : 0);
        __m512i a0 = _mm512_maskz_loadu_epi32(m0, d->bias + c0);
        __m512i a1 = _mm512_maskz_loadu_epi32(m1, d->bias + c0 + 16);
        __m512i a2 = _mm512_maskz_loadu_epi32(m2, d->bias + c0 + 32);
        __m512i a3 = _mm512_maskz_loadu_epi32(m3, d->bias + c0 + 48);
        for (int64_t ky = ky0; ky < ky1; ky++) {
          const int8_t *xr = d->x + ((iy0 + ky * d->dh) * d->W + ix0) * C + c0;
          const int8_t *wr = d->w + ky * d->KW * C + c0;
          for (int64_t kx = kx0; kx < kx1; kx++) {
            const int8_t *xp = xr + kx * d->dw * C, *wp = wr + kx * C;
#define CM_DW_STEP(a, m, o)                                                                  \
  a = _mm512_add_epi32(                                                                      \
      a, _mm512_mullo_epi32(                                                                 \
             _mm512_add_epi32(_mm512_cvtepi8_epi32(_mm_maskz_loadu_epi8(m, xp + (o))), ioff), \
             _mm512_cvtepi8_epi32(_mm_maskz_loadu_epi8(m, wp + (o)))))
            CM_DW_STEP(a0, m0, 0);
            if (m1) CM_DW_STEP(a1, m1, 16);
            if (m2) CM_DW_STEP(a2, m2, 32);
            if (m3) CM_DW_STEP(a3, m3, 48);
#undef CM_DW_STEP
          }
        }
        __m512i left, right;
        shifts512(d->shift + c0, m0, &left, &right);
        finish512(a0, _mm512_maskz_loadu_epi32(m0, d->mult + c0), left, right, ooff, lo, hi,
                  yp + c0, m0);
        if (m1) {
          shifts512(d->shift + c0 + 16, m1, &left, &right);
          finish512(a1, _mm512_maskz_loadu_epi32(m1, d->mult + c0 + 16), left, right, ooff, lo,
                    hi, yp + c0 + 16, m1);
        }
        if (m2) {
          shifts512(d->shift + c0 + 32, m2, &left, &right);
          finish512(a2, _mm512_maskz_loadu_epi32(m2, d->mult + c0 + 32), left, right, ooff, lo,
                    hi, yp + c0 + 32, m2);
        }
        if (m3) {
          shifts512(d->shift + c0 + 48, m3, &left, &right);
          finish512(a3, _mm512_maskz_loadu_epi32(m3, d->mult + c0 + 48), left, right, ooff, lo,
                    hi, yp + c0 + 48, m3);
        }
      }
    }
  }
}

CM512 void pte_cm_pool_avx512(const pte_cm_pool *p) {
  const int64_t C = p->C, cnt = (p->ye - p->ys) * (p->xe - p->xs);
  for (int64_t c0 = 0; c0 < C; c0 += 64) {
    const int64_t nc = C - c0 < 64 ? C - c0 : 64;
    const __mmask64 lm = lanes64(nc);
    if (p->is_max) {
      __m512i m = _mm512_set1_epi8(-128);
      for (int64_t iy = p->ys; iy < p->ye; iy++)
        for (int64_t ix = p->xs; ix < p->xe; ix++)
          m = _mm512_max_epi8(m, _mm512_maskz_loadu_epi8(lm, p->x + iy * p->row + ix * C + c0));
      m = _mm512_max_epi8(m, _mm512_set1_epi8((char)p->lo));
      m = _mm512_min_epi8(m, _mm512_set1_epi8((char)p->hi));
      _mm512_mask_storeu_epi8(p->y + c0, lm, m);
      continue;
    }
    /* sums in int32 lanes (4 x 16 channels), division per channel as the portable loop */
    __m512i s0 = _mm512_setzero_si512(), s1 = s0, s2 = s0, s3 = s0;
    for (int64_t iy = p->ys; iy < p->ye; iy++)
      for (int64_t ix = p->xs; ix < p->xe; ix++) {
        const __m512i v = _mm512_maskz_loadu_epi8(lm, p->x + iy * p->row + ix * C + c0);
        s0 = _mm512_add_epi32(s0, _mm512_cvtepi8_epi32(_mm512_extracti32x4_epi32(v, 0)));
        s1 = _mm512_add_epi32(s1, _mm512_cvtepi8_epi32(_mm512_extracti32x4_epi32(v, 1)));
        s2 = _mm512_add_epi32(s2, _mm512_cvtepi8_epi32(_mm512_extracti32x4_epi32(v, 2)));
        s3 = _mm512_add_epi32(s3, _mm512_cvtepi8_epi32(_mm512_extracti32x4_epi32(v, 3)));
      }
    _Alignas(64) int32_t sums[64];
    _mm512_store_si512(sums, s0);
    _mm512_store_si512(sums + 16, s1);
    _mm512_store_si512(sums + 32, s2);
    _mm512_store_si512(sums + 48, s3);
    const int64_t half = cnt / 2;
    for (int64_t c = 0; c < nc; c++) {
      const int64_t sum = sums[c];
      int64_t v = sum > 0 ? (sum + half) / cnt : (sum - half) / cnt;
      v = v < -128 ? -128 : (v > 127 ? 127 : v);
      p->y[c0 + c] = (int8_t)v;
    }
  }
}

CM512 void pte_cm_addmul_avx512(const pte_cm_addmul *e) {
  const __m512i off1 = _mm512_set1_epi32(e->off1), off2 = _mm512_set1_epi32(e->off2);
  const __m512i zero = _mm512_setzero_si512();
  const __m512i m1 = _mm512_set1_epi32(e->m1), m2 = _mm512_set1_epi32(e->m2),
                mo = _mm512_set1_epi32(e->mo);
  const __m512i l1 = _mm512_set1_epi32(e->s1 > 0 ? e->s1 : 0),
                r1 = _mm512_set1_epi32(e->s1 > 0 ? 0 : -e->s1);
  const __m512i l2 = _mm512_set1_epi32(e->s2 > 0 ? e->s2 : 0),
                r2 = _mm512_set1_epi32(e->s2 > 0 ? 0 : -e->s2);
  const __m512i lo_ = _mm512_set1_epi32(e->so > 0 ? e->so : 0),
                ro = _mm512_set1_epi32(e->so > 0 ? 0 : -e->so);
  const __m512i zpo = _mm512_set1_epi32(e->zpo), lo = _mm512_set1_epi32(e->lo),
                hi = _mm512_set1_epi32(e->hi);
  (void)zero;
  for (int64_t i = 0; i < e->n; i += 16) {
    const __mmask16 lm = lanes16(e->n - i);
    const __m512i x1 = _mm512_add_epi32(_mm512_cvtepi8_epi32(_mm_maskz_loadu_epi8(lm, e->a + i)), off1);
    const __m512i x2 = _mm512_add_epi32(_mm512_cvtepi8_epi32(_mm_maskz_loadu_epi8(lm, e->b + i)), off2);
    __m512i acc;
    if (e->is_mul) {
      acc = _mm512_mullo_epi32(x1, x2);
    } else {
      const __m512i a = rq512(_mm512_slli_epi32(x1, 20), m1, l1, r1);
      const __m512i b = rq512(_mm512_slli_epi32(x2, 20), m2, l2, r2);
      acc = _mm512_add_epi32(a, b);
    }
    finish512(acc, mo, lo_, ro, zpo, lo, hi, e->y + i, lm);
  }
}

/* ---- softmax (lanes = elements of a row) ----------------------------------------------- */

/* Lane-wise pte_cm_dhm_sat: (a b + (signs differ ? 1 - 2^30 : 2^30)) / 2^31 truncated toward
 * zero, INT32_MIN * INT32_MIN -> INT32_MAX. */
CM512 static inline __m512i dhm_sat512(__m512i a, __m512i b) {
  const __m512i pos = _mm512_set1_epi64(1LL << 30), neg = _mm512_set1_epi64(1 - (1LL << 30));
  const __m512i bias = _mm512_set1_epi64((1LL << 31) - 1);
  const __m512i z = _mm512_setzero_si512();
  /* even lanes */
  __m512i pe = _mm512_mul_epi32(a, b);
  __mmask8 de = _mm512_cmplt_epi64_mask(_mm512_slli_epi64(_mm512_xor_si512(a, b), 32), z);
  pe = _mm512_add_epi64(pe, _mm512_mask_blend_epi64(de, pos, neg));
  pe = _mm512_mask_add_epi64(pe, _mm512_cmplt_epi64_mask(pe, z), pe, bias);
  pe = _mm512_srai_epi64(pe, 31);
  /* odd lanes */
  const __m512i ao = _mm512_srai_epi64(a, 32), bo = _mm512_srai_epi64(b, 32);
  __m512i po = _mm512_mul_epi32(ao, bo);
  __mmask8 dodd = _mm512_cmplt_epi64_mask(_mm512_xor_si512(ao, bo), z);
  po = _mm512_add_epi64(po, _mm512_mask_blend_epi64(dodd, pos, neg));
  po = _mm512_mask_add_epi64(po, _mm512_cmplt_epi64_mask(po, z), po, bias);
  po = _mm512_srai_epi64(po, 31);
  __m512i r = _mm512_mask_blend_epi32(0xAAAA, pe, _mm512_slli_epi64(po, 32));
  const __m512i mn = _mm512_set1_epi32(INT32_MIN);
  const __mmask16 both = _mm512_cmpeq_epi32_mask(a, mn) & _mm512_cmpeq_epi32_mask(b, mn);
  return _mm512_mask_mov_epi32(r, both, _mm512_set1_epi32(INT32_MAX));
}

/* Lane-wise pte_cm_div_pow2 by a constant exponent e in [0, 31]. */
CM512 static inline __m512i div_pow2_512(__m512i x, int e) {
  const __m512i right = _mm512_set1_epi32(e), one = _mm512_set1_epi32(1);
  const __m512i mask = _mm512_sub_epi32(_mm512_sllv_epi32(one, right), one);
  const __m512i rem = _mm512_and_si512(x, mask);
  __m512i thr = _mm512_srli_epi32(mask, 1);
  thr = _mm512_mask_add_epi32(thr, _mm512_cmplt_epi32_mask(x, _mm512_setzero_si512()), thr, one);
  const __m512i res = _mm512_srav_epi32(x, right);
  return _mm512_mask_add_epi32(res, _mm512_cmpgt_epi32_mask(rem, thr), res, one);
}

/* Lane-wise pte_cm_exp_on_negative_values. */
CM512 static inline __m512i exp_neg512(__m512i val) {
  const __m512i q = _mm512_sub_epi32(_mm512_and_si512(val, _mm512_set1_epi32((1 << 24) - 1)),
                                     _mm512_set1_epi32(1 << 24));
  const __m512i remainder = _mm512_sub_epi32(q, val);
  const __m512i x = _mm512_add_epi32(_mm512_slli_epi32(q, 5), _mm512_set1_epi32(1 << 28));
  const __m512i x2 = dhm_sat512(x, x);
  const __m512i x4_over_4 = div_pow2_512(dhm_sat512(x2, x2), 2);
  const __m512i x3 = dhm_sat512(x2, x);
  const __m512i poly = dhm_sat512(_mm512_add_epi32(x4_over_4, x3), _mm512_set1_epi32(715827883));
  const __m512i inner = _mm512_add_epi32(x, div_pow2_512(_mm512_add_epi32(poly, x2), 1));
  const __m512i c0 = _mm512_set1_epi32(1895147668);
  __m512i result = _mm512_add_epi32(c0, dhm_sat512(c0, inner));
  static const int32_t k_consts[7] = {1672461947, 1302514674, 790015084, 290630308,
                                      39332535,   720401,     242};
  for (int i = 0; i < 7; i++) {
    const __mmask16 m = _mm512_test_epi32_mask(remainder, _mm512_set1_epi32(1 << (24 + i)));
    result = _mm512_mask_mov_epi32(result, m, dhm_sat512(result, _mm512_set1_epi32(k_consts[i])));
  }
  return _mm512_mask_mov_epi32(result, _mm512_cmpeq_epi32_mask(val, _mm512_setzero_si512()),
                               _mm512_set1_epi32(INT32_MAX));
}

CM512 void pte_cm_softmax_avx512(const pte_cm_softmax *s) {
  const int64_t n = s->n;
  __m512i vmax = _mm512_set1_epi32(-128);
  for (int64_t i = 0; i < n; i += 16)
    vmax = _mm512_max_epi32(
        vmax, _mm512_cvtepi8_epi32(_mm_mask_loadu_epi8(_mm_set1_epi8(-128), lanes16(n - i), s->x + i)));
  const int32_t mx = _mm512_reduce_max_epi32(vmax);
  const __m512i vmx = _mm512_set1_epi32(mx), vmask = _mm512_set1_epi32(s->mask),
                vmult = _mm512_set1_epi32(s->mult), dmin = _mm512_set1_epi32(s->diff_min);
  __m512i vsum = _mm512_setzero_si512();
  for (int64_t i = 0; i < n; i += 16) {
    const __mmask16 lm = lanes16(n - i);
    const __m512i d = _mm512_sub_epi32(_mm512_cvtepi8_epi32(_mm_maskz_loadu_epi8(lm, s->x + i)), vmx);
    const __mmask16 ok = lm & _mm512_cmpge_epi32_mask(d, dmin);
    const __m512i e = exp_neg512(dhm_sat512(_mm512_mullo_epi32(d, vmask), vmult));
    vsum = _mm512_mask_add_epi32(vsum, ok, vsum, div_pow2_512(e, 12));
  }
  const int32_t sum = _mm512_reduce_add_epi32(vsum);
  int headroom = 0;
  while (headroom < 32 && !((uint32_t)sum & (0x80000000u >> headroom))) headroom++;
  const uint32_t shifted = sum > 0 ? ((uint32_t)sum << headroom) : 0u;
  const int32_t shifted_scale =
      pte_cm_one_over_one_plus_x_for_x_in_0_1(pte_cm_wrap32((int64_t)shifted - 2147483648LL));
  int bits_over_unit = 12 - headroom + 23;
  if (bits_over_unit > 31) bits_over_unit = 31;
  const __m512i vscale = _mm512_set1_epi32(shifted_scale), m128 = _mm512_set1_epi32(-128);
  for (int64_t i = 0; i < n; i += 16) {
    const __mmask16 lm = lanes16(n - i);
    const __m512i d = _mm512_sub_epi32(_mm512_cvtepi8_epi32(_mm_maskz_loadu_epi8(lm, s->x + i)), vmx);
    const __mmask16 ok = _mm512_cmpge_epi32_mask(d, dmin);
    const __m512i e = exp_neg512(dhm_sat512(_mm512_mullo_epi32(d, vmask), vmult));
    __m512i r = _mm512_add_epi32(div_pow2_512(dhm_sat512(vscale, e), bits_over_unit), m128);
    r = _mm512_min_epi32(_mm512_max_epi32(r, m128), _mm512_set1_epi32(127));
    r = _mm512_mask_mov_epi32(m128, ok, r);
    _mm_mask_storeu_epi8(s->y + i, lm, _mm512_cvtepi32_epi8(r));
  }
}

CM512 static void check_math512(const int32_t *a, const int32_t *b, const int32_t *shift,
                                int64_t n, int32_t *rq, int32_t *dhm, int32_t *ex) {
  for (int64_t i = 0; i < n; i += 16) {
    const __mmask16 lm = lanes16(n - i);
    const __m512i va = _mm512_maskz_loadu_epi32(lm, a + i), vb = _mm512_maskz_loadu_epi32(lm, b + i);
    __m512i left, right;
    shifts512(shift + i, lm, &left, &right);
    _mm512_mask_storeu_epi32(rq + i, lm, rq512(va, vb, left, right));
    _mm512_mask_storeu_epi32(dhm + i, lm, dhm_sat512(va, vb));
    /* exp_on_negative_values is defined for val <= 0 */
    const __m512i neg = _mm512_min_epi32(va, _mm512_setzero_si512());
    _mm512_mask_storeu_epi32(ex + i, lm, exp_neg512(neg));
  }
}

bool pte_cm_avx512_check_math(const int32_t *a, const int32_t *b, const int32_t *shift, int64_t n,
                              int32_t *rq, int32_t *dhm, int32_t *ex) {
  if (!pte_cm_simd_available(PTE_CM_ISA_AVX512VNNI)) return false;
  check_math512(a, b, shift, n, rq, dhm, ex);
  return true;
}

#else
void pte_cm_gemm_avx512(const pte_cm_gemm *g) { (void)g; }
void pte_cm_dw_avx512(const pte_cm_dw *d) { (void)d; }
void pte_cm_pool_avx512(const pte_cm_pool *p) { (void)p; }
void pte_cm_addmul_avx512(const pte_cm_addmul *e) { (void)e; }
void pte_cm_softmax_avx512(const pte_cm_softmax *s) { (void)s; }
bool pte_cm_avx512_check_math(const int32_t *a, const int32_t *b, const int32_t *shift, int64_t n,
                              int32_t *rq, int32_t *dhm, int32_t *ex) {
  (void)a, (void)b, (void)shift, (void)n, (void)rq, (void)dhm, (void)ex;
  return false;
}
#endif
