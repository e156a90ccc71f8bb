/* Static int8 (qs8) depthwise convolution with channel multiplier 1: per-ISA kernels over an
 * indirection row (tap pointers per output pixel, padding taps pointing at a row of the input
 * zero point), weights re-laid out once at init in blocks of 16 channels.
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
 * Layout (pte_xnn_node.dwq, owned by the node): per block of 16 channels
 *   [16 x i32 bias'][16 x f32 scale][taps x 16 x i8 weights]   (channels past C: zeros)
 * then C + 64 bytes of the input zero point (the padding row). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "xnn_ops.h"

#define DWQ_CB 16

typedef void (*dwq_fn)(size_t npix, size_t c, size_t taps, const int8_t *const *ind, const uint8_t *w, int8_t *out,
                       int32_t ozp, float lo, float hi);

static size_t dwq_block_bytes(size_t taps) { return DWQ_CB * 8 + taps * DWQ_CB; }

/* ---- kernels ---------------------------------------------------------------------------------- */

static void dwq_scalar(size_t npix, size_t c, size_t taps, const int8_t *const *ind, const uint8_t *w, int8_t *out,
                       int32_t ozp, float lo, float hi) {
  const size_t bb = dwq_block_bytes(taps);
  for (size_t px = 0; px < npix; px++, ind += taps, out += c) {
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

#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
#include <immintrin.h>

__attribute__((target("avx2"))) static void dwq_avx2(size_t npix, size_t c, size_t taps, const int8_t *const *ind,
                                                     const uint8_t *w, int8_t *out, int32_t ozp, float lo, float hi) {
  const size_t bb = dwq_block_bytes(taps);
  const __m256 vlo = _mm256_set1_ps(lo), vhi = _mm256_set1_ps(hi);
  const __m256i vzp = _mm256_set1_epi32(ozp);
  for (size_t px = 0; px < npix; px++, ind += taps, out += c) {
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
      f0 = _mm256_min_ps(_mm256_max_ps(f0, vlo), vhi);
      f1 = _mm256_min_ps(_mm256_max_ps(f1, vlo), vhi);
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

__attribute__((target("avx512f,avx512bw,avx512vl"))) static void dwq_avx512(size_t npix, size_t c, size_t taps,
                                                                            const int8_t *const *ind, const uint8_t *w,
                                                                            int8_t *out, int32_t ozp, float lo,
                                                                            float hi) {
  const size_t bb = dwq_block_bytes(taps);
  const __m512 vlo = _mm512_set1_ps(lo), vhi = _mm512_set1_ps(hi);
  const __m512i vzp = _mm512_set1_epi32(ozp);
  for (size_t px = 0; px < npix; px++, ind += taps, out += c) {
    for (size_t c0 = 0; c0 < c; c0 += DWQ_CB) {
      const uint8_t *blk = w + (c0 / DWQ_CB) * bb;
      const int8_t *wt = (const int8_t *)(blk + DWQ_CB * 8);
      const size_t nc = c - c0 < DWQ_CB ? c - c0 : DWQ_CB;
      const __mmask16 m = (__mmask16)(nc == DWQ_CB ? 0xFFFFu : ((1u << nc) - 1u));
      __m512i acc = _mm512_loadu_si512((const void *)blk);
      for (size_t t = 0; t < taps; t++) {
        const __m256i x = _mm256_cvtepi8_epi16(_mm_maskz_loadu_epi8(m, (const void *)(ind[t] + c0)));
        const __m256i k = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(const void *)(wt + t * DWQ_CB)));
        acc = _mm512_add_epi32(acc, _mm512_cvtepi16_epi32(_mm256_mullo_epi16(x, k)));
      }
      __m512 f = _mm512_mul_ps(_mm512_cvtepi32_ps(acc), _mm512_loadu_ps((const void *)(blk + DWQ_CB * 4)));
      f = _mm512_min_ps(_mm512_max_ps(f, vlo), vhi);
      const __m512i q = _mm512_add_epi32(_mm512_cvtps_epi32(f), vzp);
      _mm_mask_storeu_epi8((void *)(out + c0), m, _mm512_cvtsepi32_epi8(q));
    }
  }
}
#endif

static dwq_fn dwq_pick(const pte_xnn_kernels *k) {
#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
  if (k && k->isa == PTE_XNN_KISA_AVX512 && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl"))
    return dwq_avx512;
  if (k && (k->isa == PTE_XNN_KISA_AVX512 || k->isa == PTE_XNN_KISA_AVX2)) return dwq_avx2;
#else
  (void)k;
#endif
  return dwq_scalar;
}

/* ---- init ------------------------------------------------------------------------------------- */

pte_status pte_xnn_dwq_prepare(pte_xnn_node *n, int32_t in_zp) {
  n->dwq = NULL;
  if (n->variant != PTE_XNN_V_QS8 || n->n_groups == 0 || !n->packed.bytes) return PTE_OK;
  const size_t c = n->n_groups;
  pte_xnn_packed_info h;
  if (!pte_xnn_packed_header_read(n->packed.bytes, n->group_stride, &h) || h.kind != PTE_XNN_PACK_QS8_GEMM ||
      h.n != 1 || h.kr != 2 || h.nr == 0)
    return PTE_OK; /* not the grouped 1-output layout: keep the generic path */
  const size_t taps = h.k, nr = h.nr;
  if (taps == 0 || taps > 4096 || c > ((size_t)1 << 24)) return PTE_OK;
  const size_t blocks = (c + DWQ_CB - 1) / DWQ_CB, bb = dwq_block_bytes(taps);
  const size_t total = blocks * bb + c + 64;
  uint8_t *q = (uint8_t *)calloc(1, total);
  if (!q) return PTE_ERR_MEMORY_ALLOCATION_FAILED;
  for (size_t ch = 0; ch < c; ch++) {
    const uint8_t *panel = n->packed.bytes + ch * n->group_stride + PTE_XNN_PACKED_HEADER_SIZE;
    int32_t bias;
    float scale;
    memcpy(&bias, panel, 4);
    memcpy(&scale, panel + nr * 4, 4);
    const int8_t *pw = (const int8_t *)(panel + nr * 8);
    uint8_t *blk = q + (ch / DWQ_CB) * bb;
    const size_t j = ch % DWQ_CB;
    int64_t bound = bias < 0 ? -(int64_t)bias : (int64_t)bias;
    for (size_t t = 0; t < taps; t++) {
      const int8_t v = pw[(t / 2) * nr * 2 + (t % 2)]; /* column 0 of the KR-2 panel */
      ((int8_t *)(blk + DWQ_CB * 8))[t * DWQ_CB + j] = v;
      bound += 128 * (int64_t)(v < 0 ? -v : v);
    }
    if (bound > INT32_MAX) { /* the int32 accumulator could overflow: keep the int64 path */
      free(q);
      return PTE_OK;
    }
    memcpy(blk + j * 4, &bias, 4);
    memcpy(blk + DWQ_CB * 4 + j * 4, &scale, 4);
  }
  memset(q + blocks * bb, (int)(int8_t)in_zp, c + 64);
  n->dwq = q;
  return PTE_OK;
}

size_t pte_xnn_dwq_scratch(const pte_xnn_node *n, size_t ow) {
  return ow * (size_t)n->p.conv.kh * n->p.conv.kw * sizeof(const int8_t *);
}

/* ---- execute ---------------------------------------------------------------------------------- */

typedef struct dwq_job {
  pte_xnn_exec *x;
  const pte_xnn_node *n;
  const pte_xnn_value *a, *o;
  size_t H, W, C, OH, OW;
  dwq_fn fn;
  float lo, hi;
} dwq_job;

static void dwq_rows(void *ctx, size_t item, int tid) {
  const dwq_job *j = (const dwq_job *)ctx;
  const pte_xnn_node *n = j->n;
  const pte_xnn_conv_params *p = &n->p.conv;
  const size_t b = item / j->OH, oy = item % j->OH, C = j->C, taps = (size_t)p->kh * p->kw;
  const int8_t **ind = (const int8_t **)(void *)pte_xnn_scratch(j->x, tid);
  const int8_t *src = (const int8_t *)j->a->data + b * j->H * j->W * C;
  const int8_t *zrow = (const int8_t *)(n->dwq + ((C + DWQ_CB - 1) / DWQ_CB) * dwq_block_bytes(taps));
  for (size_t ox = 0; ox < j->OW; ox++) {
    const int8_t **pi = ind + ox * taps;
    for (size_t ky = 0; ky < p->kh; ky++) {
      const long iy = (long)(oy * p->sh + ky * p->dh) - (long)n->rt_pt;
      const bool rok = iy >= 0 && iy < (long)j->H;
      for (size_t kx = 0; kx < p->kw; kx++) {
        const long ix = (long)(ox * p->sw + kx * p->dw) - (long)n->rt_pl;
        *pi++ = rok && ix >= 0 && ix < (long)j->W ? src + ((size_t)iy * j->W + (size_t)ix) * C : zrow;
      }
    }
  }
  int8_t *dst = (int8_t *)j->o->data + (b * j->OH + oy) * j->OW * C;
  j->fn(j->OW, C, taps, ind, n->dwq, dst, j->o->zero_point, j->lo, j->hi);
}

void pte_xnn_dwq_run(pte_xnn_exec *x, const pte_xnn_node *n) {
  pte_xnn_delegate *d = x->d;
  const pte_xnn_value *a = V(n->in[0]), *o = V(n->out[0]);
  dwq_job j = {x, n, a, o, a->shape[1], a->shape[2], a->shape[3], o->shape[1], o->shape[2], dwq_pick(x->k), 0, 0};
  j.lo = (float)(n->qmin - o->zero_point);
  j.hi = (float)(n->qmax - o->zero_point);
  pte_xnn_parallel(x->threads > 1 ? x->pool : NULL, dwq_rows, &j, a->shape[0] * j.OH);
}
