/* Static int8 (qs8) depthwise convolution with channel multiplier 1: per-ISA kernels over an
 * indirection row (tap pointers per output pixel, padding taps pointing at a row of the input
 * zero point), weights re-laid out once at init for the kernel (layouts below).
 *
 * Semantics are those of the grouped-GEMM path it replaces (one 1 x taps GEMM per channel):
 *   acc = bias' + sum_t x_t * w_t      (bias' = bias - zx * sum_t w_t, folded when packing;
 *                                       padding taps read x = zx, so they cancel exactly)
 *   y   = lrint(clamp((float)acc * scale, qmin - zy, qmax - zy)) + zy
 * with scale = float(sx * sw / sy). The integer sum is exact in int32 when
 * |bias'| + 128 * sum_t |w_t| < 2^31 for every channel, which init checks (otherwise the node
 * keeps the grouped path); the float steps are one conversion, one multiply, two compares and
 * one round-to-nearest-even in every kernel, so all kernels are bit-identical to the GEMM path.
 *
 * Layouts (pte_xnn_node.dwq, owned by the node), after a 64-byte header (layout, taps, tap
 * stride of the indirection, offset of the padding row):
 *   B16 (scalar, AVX2): per block of 16 channels
 *     [16 x i32 bias'][16 x f32 scale][taps x 16 x i8 weights]   (channels past C: zeros)
 *   P32 (AVX-512BW): per block of 32 channels, taps padded to even (weight 0, padding row),
 *     [32 x i32 bias'][32 x f32 scale][taps/2 x {lo, hi} x 16 x (i16 w_2p, i16 w_2p+1)]
 *     where the "lo" half holds channels 8L + 0..3 and "hi" channels 8L + 4..7 of each 128-bit
 *     lane L: the order vpunpckl/hwd of two taps' widened inputs produce, so one vpmaddwd adds
 *     two taps; bias and scale are stored in that order, and the int8 results are put back in
 *     channel order by interleaving 32-bit groups of the two halves.
 *   then C + 64 bytes of the input zero point (the padding row). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "xnn_ops.h"

#define DWQ_CB 16
#define DWQ_HDR 64
#define DWQ_KH_MAX 16 /* kernel rows whose input row is looked up once per output row */
enum { DWQ_B16 = 1, DWQ_P32 = 2 };

typedef struct dwq_hdr {
  uint32_t layout, taps, tstride, qd8; /* qd8: the qd8 channel header and kernels */
  uint64_t zrow; /* offset of the padding row from the start of the buffer */
} dwq_hdr;

typedef void (*dwq_fn)(size_t npix, size_t c, size_t taps, size_t tstride, const int8_t *const *ind, const uint8_t *w,
                       int8_t *out, int32_t ozp, float lo, float hi);

static size_t dwq_block_bytes(size_t taps) { return DWQ_CB * 8 + taps * DWQ_CB; }

/* ---- kernels ---------------------------------------------------------------------------------- */

static void dwq_scalar(size_t npix, size_t c, size_t taps, size_t tstride, const int8_t *const *ind, const uint8_t *w,
                       int8_t *out, int32_t ozp, float lo, float hi) {
  const size_t bb = dwq_block_bytes(taps);
  for (size_t px = 0; px < npix; px++, ind += tstride, out += c) {
    for (size_t c0 = 0; c0 < c; c0 += DWQ_CB) {
      const uint8_t *blk = w + (c0 / DWQ_CB) * bb;
      const int32_t *bias = (const int32_t *)(const void *)blk;
      const float *scale = (const float *)(const void *)(blk + DWQ_CB * 4);
      const int8_t *wt = (const int8_t *)(blk + DWQ_CB * 8);
      const size_t nc = c - c0 < DWQ_CB ? c - c0 : DWQ_CB;
      for (size_t j = 0; j < nc; j++) {
        int32_t acc = bias[j];
        for (size_t t = 0; t < taps; t++) acc += (int32_t)ind[t][c0 + j] * (int32_t)wt[t * DWQ_CB + j];
        float v = (float)acc * scale[j];
        v = v < lo ? lo : (v > hi ? hi : v);
        out[c0 + j] = (int8_t)((int32_t)lrintf(v) + ozp);
      }
    }
  }
}

typedef void (*dwd_fn)(size_t npix, size_t c, size_t taps, size_t tstride, const int8_t *const *ind, const uint8_t *w,
                       float *out, int32_t izp, float rscale, float lo, float hi);

static void dwd_scalar(size_t npix, size_t c, size_t taps, size_t tstride, const int8_t *const *ind, const uint8_t *w,
                       float *out, int32_t izp, float rscale, float lo, float hi) {
  const size_t bb = DWQ_CB * 12 + taps * DWQ_CB;
  for (size_t px = 0; px < npix; px++, ind += tstride, out += c) {
    for (size_t c0 = 0; c0 < c; c0 += DWQ_CB) {
      const uint8_t *blk = w + (c0 / DWQ_CB) * bb;
      const int32_t *ksum = (const int32_t *)(const void *)blk;
      const float *ws = (const float *)(const void *)(blk + DWQ_CB * 4), *bs = ws + DWQ_CB;
      const int8_t *wt = (const int8_t *)(blk + DWQ_CB * 12);
      const size_t nc = c - c0 < DWQ_CB ? c - c0 : DWQ_CB;
      for (size_t j = 0; j < nc; j++) {
        int32_t acc = -izp * ksum[j];
        for (size_t t = 0; t < taps; t++) acc += (int32_t)ind[t][c0 + j] * (int32_t)wt[t * DWQ_CB + j];
        out[c0 + j] = pte_xnn_clampf((float)acc * (rscale * ws[j]) + bs[j], lo, hi);
      }
    }
  }
}

#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
#include <immintrin.h>

__attribute__((target("avx2"))) static void dwq_avx2(size_t npix, size_t c, size_t taps, size_t tstride,
                                                     const int8_t *const *ind, const uint8_t *w, int8_t *out,
                                                     int32_t ozp, float lo, float hi) {
  const size_t bb = dwq_block_bytes(taps);
  const __m256 vlo = _mm256_set1_ps(lo), vhi = _mm256_set1_ps(hi);
  const __m256i vzp = _mm256_set1_epi32(ozp);
  for (size_t px = 0; px < npix; px++, ind += tstride, out += c) {
    for (size_t c0 = 0; c0 < c; c0 += DWQ_CB) {
      const uint8_t *blk = w + (c0 / DWQ_CB) * bb;
      const int8_t *wt = (const int8_t *)(blk + DWQ_CB * 8);
      const size_t nc = c - c0 < DWQ_CB ? c - c0 : DWQ_CB;
      __m256i a0 = _mm256_loadu_si256((const __m256i *)(const void *)blk);
      __m256i a1 = _mm256_loadu_si256((const __m256i *)(const void *)(blk + 32));
      if (nc == DWQ_CB) {
        for (size_t t = 0; t < taps; t++) {
          const __m256i x = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(const void *)(ind[t] + c0)));
          const __m256i k = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(const void *)(wt + t * DWQ_CB)));
          const __m256i p = _mm256_mullo_epi16(x, k);
          a0 = _mm256_add_epi32(a0, _mm256_cvtepi16_epi32(_mm256_castsi256_si128(p)));
          a1 = _mm256_add_epi32(a1, _mm256_cvtepi16_epi32(_mm256_extracti128_si256(p, 1)));
        }
      } else {
        for (size_t t = 0; t < taps; t++) {
          int8_t tmp[DWQ_CB] = {0};
          memcpy(tmp, ind[t] + c0, nc);
          const __m256i x = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(const void *)tmp));
          const __m256i k = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(const void *)(wt + t * DWQ_CB)));
          const __m256i p = _mm256_mullo_epi16(x, k);
          a0 = _mm256_add_epi32(a0, _mm256_cvtepi16_epi32(_mm256_castsi256_si128(p)));
          a1 = _mm256_add_epi32(a1, _mm256_cvtepi16_epi32(_mm256_extracti128_si256(p, 1)));
        }
      }
      const float *scale = (const float *)(const void *)(blk + DWQ_CB * 4);
      __m256 f0 = _mm256_mul_ps(_mm256_cvtepi32_ps(a0), _mm256_loadu_ps(scale));
      __m256 f1 = _mm256_mul_ps(_mm256_cvtepi32_ps(a1), _mm256_loadu_ps(scale + 8));
      f0 = _mm256_min_ps(vhi, _mm256_max_ps(vlo, f0));
      f1 = _mm256_min_ps(vhi, _mm256_max_ps(vlo, f1));
      const __m256i q0 = _mm256_add_epi32(_mm256_cvtps_epi32(f0), vzp);
      const __m256i q1 = _mm256_add_epi32(_mm256_cvtps_epi32(f1), vzp);
      /* packs works per 128-bit lane: [q0 lo, q1 lo, q0 hi, q1 hi] -> reorder the 64-bit quarters */
      const __m256i s16 = _mm256_permute4x64_epi64(_mm256_packs_epi32(q0, q1), 0xD8);
      const __m128i s8 = _mm_packs_epi16(_mm256_castsi256_si128(s16), _mm256_extracti128_si256(s16, 1));
      if (nc == DWQ_CB) {
        _mm_storeu_si128((__m128i *)(void *)(out + c0), s8);
      } else {
        int8_t tmp[DWQ_CB];
        _mm_storeu_si128((__m128i *)(void *)tmp, s8);
        memcpy(out + c0, tmp, nc);
      }
    }
  }
}

/* P32 layout: 32 channels per step, two taps per vpmaddwd (see the top of this file). */
__attribute__((target("avx512f,avx512bw,avx512vl"))) static void dwq_avx512(size_t npix, size_t c, size_t taps,
                                                                            size_t tstride, const int8_t *const *ind,
                                                                            const uint8_t *w, int8_t *out,
                                                                            int32_t ozp, float lo, float hi) {
  const size_t pairs = tstride / 2, bb = 256 + pairs * 128;
  const __m512 vlo = _mm512_set1_ps(lo), vhi = _mm512_set1_ps(hi);
  const __m512i vzp = _mm512_set1_epi32(ozp);
  (void)taps;
  for (size_t px = 0; px < npix; px++, ind += tstride, out += c) {
    for (size_t c0 = 0; c0 < c; c0 += 32) {
      const uint8_t *blk = w + (c0 / 32) * bb;
      const size_t nc = c - c0 < 32 ? c - c0 : 32;
      const __mmask32 m = (__mmask32)(nc == 32 ? 0xFFFFFFFFu : ((1u << nc) - 1u));
      __m512i al = _mm512_loadu_si512((const void *)blk), ah = _mm512_loadu_si512((const void *)(blk + 64));
      const uint8_t *wp = blk + 256;
      for (size_t p = 0; p < pairs; p++, wp += 128) {
        const __m512i xa = _mm512_cvtepi8_epi16(_mm256_maskz_loadu_epi8(m, (const void *)(ind[2 * p] + c0)));
        const __m512i xb = _mm512_cvtepi8_epi16(_mm256_maskz_loadu_epi8(m, (const void *)(ind[2 * p + 1] + c0)));
        al = _mm512_add_epi32(al, _mm512_madd_epi16(_mm512_unpacklo_epi16(xa, xb), _mm512_loadu_si512((const void *)wp)));
        ah = _mm512_add_epi32(ah,
                              _mm512_madd_epi16(_mm512_unpackhi_epi16(xa, xb), _mm512_loadu_si512((const void *)(wp + 64))));
      }
      __m512 fl = _mm512_mul_ps(_mm512_cvtepi32_ps(al), _mm512_loadu_ps((const void *)(blk + 128)));
      __m512 fh = _mm512_mul_ps(_mm512_cvtepi32_ps(ah), _mm512_loadu_ps((const void *)(blk + 192)));
      fl = _mm512_min_ps(vhi, _mm512_max_ps(vlo, fl));
      fh = _mm512_min_ps(vhi, _mm512_max_ps(vlo, fh));
      const __m128i bl = _mm512_cvtsepi32_epi8(_mm512_add_epi32(_mm512_cvtps_epi32(fl), vzp));
      const __m128i bh = _mm512_cvtsepi32_epi8(_mm512_add_epi32(_mm512_cvtps_epi32(fh), vzp));
      const __m128i o0 = _mm_unpacklo_epi32(bl, bh), o1 = _mm_unpackhi_epi32(bl, bh);
      if (nc == 32) {
        _mm_storeu_si128((__m128i *)(void *)(out + c0), o0);
        _mm_storeu_si128((__m128i *)(void *)(out + c0 + 16), o1);
      } else {
        _mm_mask_storeu_epi8((void *)(out + c0), (__mmask16)(m & 0xFFFFu), o0);
        if (nc > 16) _mm_mask_storeu_epi8((void *)(out + c0 + 16), (__mmask16)(m >> 16), o1);
      }
    }
  }
}

/* qd8 (dynamically quantized input, fp32 output), B16 layout with a 12-byte channel header
 * [16 i32 ksum][16 f32 wscale][16 f32 bias]: a = sum x*w - zx*ksum (exact int32),
 * y = clamp((float)a * (rscale * wscale) + bias), the scalar steps of the grouped path. */
__attribute__((target("avx2"))) static void dwd_avx2(size_t npix, size_t c, size_t taps, size_t tstride,
                                                     const int8_t *const *ind, const uint8_t *w, float *out,
                                                     int32_t izp, float rscale, float lo, float hi) {
  const size_t bb = DWQ_CB * 12 + taps * DWQ_CB;
  const __m256 vlo = _mm256_set1_ps(lo), vhi = _mm256_set1_ps(hi), vrs = _mm256_set1_ps(rscale);
  const __m256i vnz = _mm256_set1_epi32(-izp);
  for (size_t px = 0; px < npix; px++, ind += tstride, out += c) {
    for (size_t c0 = 0; c0 < c; c0 += DWQ_CB) {
      const uint8_t *blk = w + (c0 / DWQ_CB) * bb;
      const int8_t *wt = (const int8_t *)(blk + DWQ_CB * 12);
      const size_t nc = c - c0 < DWQ_CB ? c - c0 : DWQ_CB;
      __m256i a0 = _mm256_mullo_epi32(_mm256_loadu_si256((const __m256i *)(const void *)blk), vnz);
      __m256i a1 = _mm256_mullo_epi32(_mm256_loadu_si256((const __m256i *)(const void *)(blk + 32)), vnz);
      for (size_t t = 0; t < taps; t++) {
        int8_t tmp[DWQ_CB] = {0};
        const int8_t *src = ind[t] + c0;
        if (nc < DWQ_CB) {
          memcpy(tmp, src, nc);
          src = tmp;
        }
        const __m256i x = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(const void *)src));
        const __m256i k = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(const void *)(wt + t * DWQ_CB)));
        const __m256i p = _mm256_mullo_epi16(x, k);
        a0 = _mm256_add_epi32(a0, _mm256_cvtepi16_epi32(_mm256_castsi256_si128(p)));
        a1 = _mm256_add_epi32(a1, _mm256_cvtepi16_epi32(_mm256_extracti128_si256(p, 1)));
      }
      const float *ws = (const float *)(const void *)(blk + DWQ_CB * 4), *bs = ws + DWQ_CB;
      __m256 f0 = _mm256_add_ps(_mm256_mul_ps(_mm256_cvtepi32_ps(a0), _mm256_mul_ps(vrs, _mm256_loadu_ps(ws))),
                                _mm256_loadu_ps(bs));
      __m256 f1 = _mm256_add_ps(_mm256_mul_ps(_mm256_cvtepi32_ps(a1), _mm256_mul_ps(vrs, _mm256_loadu_ps(ws + 8))),
                                _mm256_loadu_ps(bs + 8));
      f0 = _mm256_min_ps(vhi, _mm256_max_ps(vlo, f0));
      f1 = _mm256_min_ps(vhi, _mm256_max_ps(vlo, f1));
      if (nc == DWQ_CB) {
        _mm256_storeu_ps(out + c0, f0);
        _mm256_storeu_ps(out + c0 + 8, f1);
      } else {
        float tmp[DWQ_CB];
        _mm256_storeu_ps(tmp, f0);
        _mm256_storeu_ps(tmp + 8, f1);
        memcpy(out + c0, tmp, nc * sizeof(float));
      }
    }
  }
}

/* qd8, P32 layout with [32 i32 ksum][32 f32 wscale][32 f32 bias] in the lo/hi order. */
__attribute__((target("avx512f,avx512bw,avx512vl"))) static void dwd_avx512(size_t npix, size_t c, size_t taps,
                                                                            size_t tstride, const int8_t *const *ind,
                                                                            const uint8_t *w, float *out,
                                                                            int32_t izp, float rscale, float lo,
                                                                            float hi) {
  const size_t pairs = tstride / 2, bb = 384 + pairs * 128;
  const __m512 vlo = _mm512_set1_ps(lo), vhi = _mm512_set1_ps(hi), vrs = _mm512_set1_ps(rscale);
  const __m512i vnz = _mm512_set1_epi32(-izp);
  const __m512i il = _mm512_setr_epi32(0, 1, 2, 3, 16, 17, 18, 19, 4, 5, 6, 7, 20, 21, 22, 23);
  const __m512i ih = _mm512_setr_epi32(8, 9, 10, 11, 24, 25, 26, 27, 12, 13, 14, 15, 28, 29, 30, 31);
  (void)taps;
  for (size_t px = 0; px < npix; px++, ind += tstride, out += c) {
    for (size_t c0 = 0; c0 < c; c0 += 32) {
      const uint8_t *blk = w + (c0 / 32) * bb;
      const size_t nc = c - c0 < 32 ? c - c0 : 32;
      const __mmask32 m = (__mmask32)(nc == 32 ? 0xFFFFFFFFu : ((1u << nc) - 1u));
      __m512i al = _mm512_mullo_epi32(_mm512_loadu_si512((const void *)blk), vnz);
      __m512i ah = _mm512_mullo_epi32(_mm512_loadu_si512((const void *)(blk + 64)), vnz);
      const uint8_t *wp = blk + 384;
      for (size_t p = 0; p < pairs; p++, wp += 128) {
        const __m512i xa = _mm512_cvtepi8_epi16(_mm256_maskz_loadu_epi8(m, (const void *)(ind[2 * p] + c0)));
        const __m512i xb = _mm512_cvtepi8_epi16(_mm256_maskz_loadu_epi8(m, (const void *)(ind[2 * p + 1] + c0)));
        al = _mm512_add_epi32(al, _mm512_madd_epi16(_mm512_unpacklo_epi16(xa, xb), _mm512_loadu_si512((const void *)wp)));
        ah = _mm512_add_epi32(ah,
                              _mm512_madd_epi16(_mm512_unpackhi_epi16(xa, xb), _mm512_loadu_si512((const void *)(wp + 64))));
      }
      const float *ws = (const float *)(const void *)(blk + 128), *bs = ws + 32;
      __m512 fl = _mm512_add_ps(_mm512_mul_ps(_mm512_cvtepi32_ps(al), _mm512_mul_ps(vrs, _mm512_loadu_ps(ws))),
                                _mm512_loadu_ps(bs));
      __m512 fh = _mm512_add_ps(_mm512_mul_ps(_mm512_cvtepi32_ps(ah), _mm512_mul_ps(vrs, _mm512_loadu_ps(ws + 16))),
                                _mm512_loadu_ps(bs + 16));
      fl = _mm512_min_ps(vhi, _mm512_max_ps(vlo, fl));
      fh = _mm512_min_ps(vhi, _mm512_max_ps(vlo, fh));
      /* lo holds channels 8L + 0..3, hi 8L + 4..7: channel order is groups of 4 alternating */
      const __m512 o0 = _mm512_permutex2var_ps(fl, il, fh), o1 = _mm512_permutex2var_ps(fl, ih, fh);
      _mm512_mask_storeu_ps(out + c0, (__mmask16)(m & 0xFFFFu), o0);
      if (nc > 16) _mm512_mask_storeu_ps(out + c0 + 16, (__mmask16)(m >> 16), o1);
    }
  }
}
#endif

static bool dwq_has_bw(void) {
#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
  return __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl");
#else
  return false;
#endif
}

static dwq_fn dwq_pick(const pte_xnn_kernels *k, uint32_t layout) {
#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
  if (layout == DWQ_P32) return dwq_avx512;
  if (k && k->isa != PTE_XNN_KISA_SCALAR) return dwq_avx2;
#else
  (void)k;
  (void)layout;
#endif
  return dwq_scalar;
}

static dwd_fn dwd_pick(const pte_xnn_kernels *k, uint32_t layout) {
#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
  if (layout == DWQ_P32) return dwd_avx512;
  if (k && k->isa != PTE_XNN_KISA_SCALAR) return dwd_avx2;
#else
  (void)k;
  (void)layout;
#endif
  return dwd_scalar;
}

/* ---- init ------------------------------------------------------------------------------------- */

/* position of channel j (0..31) of a P32 block in its lo/hi halves: half * 16 + index */
static size_t dwq_p32_slot(size_t j) {
  const size_t lane = j / 8, r = j % 8;
  return (r < 4 ? 0 : 16) + lane * 4 + (r % 4);
}

pte_status pte_xnn_dwq_prepare(pte_xnn_node *n, const pte_xnn_kernels *k, int32_t in_zp) {
  n->dwq = NULL;
  const bool qd8 = n->variant == PTE_XNN_V_QD8;
  if ((n->variant != PTE_XNN_V_QS8 && !qd8) || n->n_groups == 0 || !n->packed.bytes) return PTE_OK;
  const size_t c = n->n_groups;
  pte_xnn_packed_info h;
  if (!pte_xnn_packed_header_read(n->packed.bytes, n->group_stride, &h) ||
      h.kind != (qd8 ? PTE_XNN_PACK_QD8_GEMM : PTE_XNN_PACK_QS8_GEMM) || h.n != 1 || h.kr != 2 || h.nr == 0)
    return PTE_OK; /* not the grouped 1-output layout: keep the generic path */
  const size_t taps = h.k, nr = h.nr;
  if (taps == 0 || taps > 4096 || c > ((size_t)1 << 24)) return PTE_OK;
  const bool p32 = k && k->isa == PTE_XNN_KISA_AVX512 && dwq_has_bw();
  const size_t tstride = p32 ? (taps + 1) & ~(size_t)1 : taps;
  const size_t cb = p32 ? 32 : DWQ_CB, hb = cb * (qd8 ? 12 : 8);
  const size_t blocks = (c + cb - 1) / cb, bb = hb + (p32 ? (tstride / 2) * 128 : taps * DWQ_CB);
  const size_t zrow = DWQ_HDR + blocks * bb, total = zrow + c + 64;
  uint8_t *q = (uint8_t *)calloc(1, total);
  if (!q) return PTE_ERR_MEMORY_ALLOCATION_FAILED;
  const dwq_hdr hd = {p32 ? DWQ_P32 : DWQ_B16, (uint32_t)taps, (uint32_t)tstride, qd8 ? 1u : 0u, zrow};
  memcpy(q, &hd, sizeof hd);
  for (size_t ch = 0; ch < c; ch++) {
    const uint8_t *panel = n->packed.bytes + ch * n->group_stride + PTE_XNN_PACKED_HEADER_SIZE;
    /* qs8 panel: [NR i32 bias'][NR f32 scale][weights]; qd8: [NR f32 bias][NR f32 wscale][NR i32 ksum][weights] */
    uint8_t f0[4], f1[4], f2[4];
    memcpy(f0, panel, 4);
    memcpy(f1, panel + nr * 4, 4);
    if (qd8) memcpy(f2, panel + nr * 8, 4);
    const int8_t *pw = (const int8_t *)(panel + nr * (qd8 ? 12 : 8));
    uint8_t *blk = q + DWQ_HDR + (ch / cb) * bb;
    const size_t j = ch % cb, slot = p32 ? dwq_p32_slot(j) : j;
    int64_t wabs = 0;
    for (size_t t = 0; t < taps; t++) {
      const int8_t v = pw[(t / 2) * nr * 2 + (t % 2)]; /* column 0 of the KR-2 panel */
      if (p32) {
        const int16_t v16 = v;
        memcpy(blk + hb + (t / 2) * 128 + slot * 4 + (t % 2) * 2, &v16, 2);
      } else {
        ((int8_t *)(blk + hb))[t * DWQ_CB + j] = v;
      }
      wabs += v < 0 ? -v : v;
    }
    int64_t bound;
    if (qd8) { /* |sum x w| + |zx ksum| <= 256 sum |w| */
      bound = 256 * wabs;
    } else {
      int32_t bias;
      memcpy(&bias, f0, 4);
      bound = (bias < 0 ? -(int64_t)bias : (int64_t)bias) + 128 * wabs;
    }
    if (bound > INT32_MAX) { /* the int32 accumulator could overflow: keep the int64 path */
      free(q);
      return PTE_OK;
    }
    if (qd8) { /* [ksum][wscale][bias] */
      memcpy(blk + slot * 4, f2, 4);
      memcpy(blk + cb * 4 + slot * 4, f1, 4);
      memcpy(blk + cb * 8 + slot * 4, f0, 4);
    } else { /* [bias'][scale] */
      memcpy(blk + slot * 4, f0, 4);
      memcpy(blk + cb * 4 + slot * 4, f1, 4);
    }
  }
  memset(q + zrow, (int)(int8_t)in_zp, c + 64);
  n->dwq = q;
  return PTE_OK;
}

size_t pte_xnn_dwq_scratch(const pte_xnn_node *n, size_t ow) {
  const size_t taps = (size_t)n->p.conv.kh * n->p.conv.kw;
  /* tap pointers; qd8: then the padding row of the current batch's zero point */
  return ow * ((taps + 1) & ~(size_t)1) * sizeof(const int8_t *) + (n->variant == PTE_XNN_V_QD8 ? n->n_groups + 128 : 0);
}

/* ---- execute ---------------------------------------------------------------------------------- */

typedef struct dwq_job {
  pte_xnn_exec *x;
  const pte_xnn_node *n;
  const pte_xnn_value *a, *o;
  size_t H, W, C, OH, OW;
  dwq_fn fn;
  dwd_fn fnd;       /* qd8 */
  float lo, hi;
  const pte_xnn_qrow *qrows; /* qd8: per-row parameters of the input, row of pixel m = m / rdiv */
  size_t rdiv;
} dwq_job;

static void dwq_rows(void *ctx, size_t item, int tid) {
  const dwq_job *j = (const dwq_job *)ctx;
  const pte_xnn_node *n = j->n;
  const pte_xnn_conv_params *p = &n->p.conv;
  dwq_hdr hd;
  memcpy(&hd, n->dwq, sizeof hd);
  const size_t b = item / j->OH, oy = item % j->OH, C = j->C, ts = hd.tstride;
  const int8_t **ind = (const int8_t **)(void *)pte_xnn_scratch(j->x, tid);
  const int8_t *src = (const int8_t *)j->a->data + b * j->H * j->W * C;
  const int8_t *zrow = (const int8_t *)(n->dwq + hd.zrow);
  pte_xnn_qrow qr = {0.0f, 0};
  if (hd.qd8) { /* padding reads this batch's zero point */
    qr = j->qrows[((b * j->OH + oy) * j->OW) / j->rdiv];
    int8_t *zr = (int8_t *)(void *)(ind + j->OW * ts);
    memset(zr, (int)(int8_t)qr.zero_point, C + 64);
    zrow = zr;
  }
  /* the input row of every kernel row (NULL: above or below the image), then per pixel the tap
   * pointers: a run of kw steps of dw * C bytes when all its columns are inside */
  const int8_t *rows[DWQ_KH_MAX];
  const size_t kh = p->kh <= DWQ_KH_MAX ? p->kh : 0, kw = p->kw, step = p->dw * C;
  for (size_t ky = 0; ky < kh; ky++) {
    const long iy = (long)(oy * p->sh + ky * p->dh) - (long)n->rt_pt;
    rows[ky] = iy >= 0 && iy < (long)j->H ? src + (size_t)iy * j->W * C : NULL;
  }
  for (size_t ox = 0; ox < j->OW; ox++) {
    const int8_t **pi = ind + ox * ts;
    const long ix0 = (long)(ox * p->sw) - (long)n->rt_pl;
    const bool inside = ix0 >= 0 && ix0 + (long)((kw ? kw - 1 : 0) * p->dw) < (long)j->W;
    for (size_t ky = 0; ky < kh; ky++) {
      const int8_t *r = rows[ky];
      if (!r) {
        for (size_t kx = 0; kx < kw; kx++) *pi++ = zrow;
      } else if (inside) {
        const int8_t *q = r + (size_t)ix0 * C;
        for (size_t kx = 0; kx < kw; kx++, q += step) *pi++ = q;
      } else {
        for (size_t kx = 0; kx < kw; kx++) {
          const long ix = ix0 + (long)(kx * p->dw);
          *pi++ = ix >= 0 && ix < (long)j->W ? r + (size_t)ix * C : zrow;
        }
      }
    }
    for (size_t ky = kh; ky < p->kh; ky++) { /* kernels taller than DWQ_KH_MAX: tap by tap */
      const long iy = (long)(oy * p->sh + ky * p->dh) - (long)n->rt_pt;
      const bool rok = iy >= 0 && iy < (long)j->H;
      for (size_t kx = 0; kx < kw; kx++) {
        const long ix = ix0 + (long)(kx * p->dw);
        *pi++ = rok && ix >= 0 && ix < (long)j->W ? src + ((size_t)iy * j->W + (size_t)ix) * C : zrow;
      }
    }
    for (size_t t = hd.taps; t < ts; t++) *pi++ = zrow; /* the even padding tap (weight 0) */
  }
  if (hd.qd8) {
    float *dst = (float *)(void *)j->o->data + (b * j->OH + oy) * j->OW * C;
    j->fnd(j->OW, C, hd.taps, ts, ind, n->dwq + DWQ_HDR, dst, qr.zero_point, qr.scale, n->out_min, n->out_max);
    return;
  }
  int8_t *dst = (int8_t *)j->o->data + (b * j->OH + oy) * j->OW * C;
  j->fn(j->OW, C, hd.taps, ts, ind, n->dwq + DWQ_HDR, dst, j->o->zero_point, j->lo, j->hi);
}

void pte_xnn_dwq_run(pte_xnn_exec *x, const pte_xnn_node *n) {
  pte_xnn_delegate *d = x->d;
  const pte_xnn_value *a = V(n->in[0]), *o = V(n->out[0]);
  dwq_hdr hd;
  memcpy(&hd, n->dwq, sizeof hd);
  dwq_job j;
  memset(&j, 0, sizeof j);
  j.x = x, j.n = n, j.a = a, j.o = o;
  j.H = a->shape[1], j.W = a->shape[2], j.C = a->shape[3], j.OH = o->shape[1], j.OW = o->shape[2];
  j.fn = dwq_pick(x->k, hd.layout);
  j.fnd = dwd_pick(x->k, hd.layout);
  j.lo = (float)(n->qmin - o->zero_point);
  j.hi = (float)(n->qmax - o->zero_point);
  if (hd.qd8) { /* as the grouped path: one parameter row per batch (3 non-batch dims) or one in all */
    j.qrows = (const pte_xnn_qrow *)(const void *)(a->data + ((a->numel + 63) & ~(size_t)63));
    size_t inner = 1;
    for (int i = 4 - a->num_nonbatch_dims; i < 4; i++) inner *= a->shape[i];
    const size_t nrows = inner ? a->numel / inner : 1, M = a->shape[0] * j.OH * j.OW;
    j.rdiv = nrows ? M / nrows : M;
    if (j.rdiv == 0) j.rdiv = 1;
  }
  /* rows in a few runs per thread; below ~32K multiply-adds (a couple of microseconds) the
   * hand-off costs more than it saves */
  const size_t rows = a->shape[0] * j.OH, work = rows * j.OW * j.C * hd.taps;
  const size_t groups = x->threads > 1 && work >= ((size_t)1 << 15) ? (size_t)x->threads * 8 : 1;
  pte_xnn_parallel_grouped(x->pool, dwq_rows, &j, rows, groups);
}
