/* GEMM drivers over packed weights: cache blocking, threading, int8 epilogues. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "xnn_internal.h"

#if defined(__GNUC__)
#define PTE_XNN_PREFETCH(p) __builtin_prefetch((p), 0, 3)
#else
#define PTE_XNN_PREFETCH(p) ((void)(p))
#endif

static inline uint32_t hdr32(const uint8_t *p, size_t off) {
  return (uint32_t)p[off] | ((uint32_t)p[off + 1] << 8) | ((uint32_t)p[off + 2] << 16) | ((uint32_t)p[off + 3] << 24);
}
static inline uint64_t hdr64(const uint8_t *p, size_t off) {
  return (uint64_t)hdr32(p, off) | ((uint64_t)hdr32(p, off + 4) << 32);
}

typedef struct gemm_shape {
  size_t nr, n, k, panels, stride;
} gemm_shape;

static gemm_shape shape_of(const uint8_t *packed) {
  gemm_shape s;
  s.nr = hdr32(packed, 16);
  s.n = hdr32(packed, 24);
  s.k = hdr32(packed, 28);
  s.panels = hdr32(packed, 32);
  s.stride = (size_t)hdr64(packed, 40);
  return s;
}

/* K block: the kc x NR slice of a panel should stay in L1 while MR-row tiles stream through. */
static size_t k_block(size_t nr) {
  size_t kc = (32u * 1024u) / (nr * sizeof(float));
  return kc < 64 ? 64 : kc;
}

void pte_xnn_f32_gemm_region(const pte_xnn_kernels *kr, const uint8_t *packed, size_t m0, size_t m1, size_t p0,
                             size_t p1, const float *a, size_t lda, float *c, size_t ldc, float vmin, float vmax) {
  const gemm_shape g = shape_of(packed);
  const pte_xnn_f32_tile tile = pte_xnn_f32_tile_for_nr(kr, g.nr);
  const size_t mr = tile.mr, nr = g.nr;
  const uint8_t *base = packed + PTE_XNN_PACKED_HEADER_SIZE;
  /* one row tile reuses nothing across K blocks: stream each panel whole */
  const size_t kc_max = (m1 - m0 <= mr && g.k) ? g.k : k_block(nr);
  size_t mc = (512u * 1024u) / ((kc_max < g.k ? kc_max : (g.k ? g.k : 1)) * sizeof(float));
  mc = mc < mr ? mr : mc - mc % mr;
  size_t k0 = 0;
  do {
    const size_t kc = g.k - k0 < kc_max ? g.k - k0 : kc_max;
    const bool first = k0 == 0, last = k0 + kc >= g.k;
    const float lo = last ? vmin : -INFINITY, hi = last ? vmax : INFINITY;
    for (size_t mb = m0; mb < m1; mb += mc) {
      const size_t me = mb + mc < m1 ? mb + mc : m1;
      for (size_t p = p0; p < p1; p++) {
        const float *panel = (const float *)(base + p * g.stride);
        const float *w = panel + nr + k0 * nr;
        const size_t n0 = p * nr;
        const size_t nc = g.n - n0 < nr ? g.n - n0 : nr;
        /* while this K slice is reused by every row tile, pull the next panel's slice toward
         * the cache a piece per tile (it is read from memory only once per block) */
        const uint8_t *next = p + 1 < p1 ? (const uint8_t *)((const float *)(base + (p + 1) * g.stride) + nr + k0 * nr)
                                         : NULL;
        const size_t slice = kc * nr * sizeof(float);
        const size_t tiles = (me - mb + mr - 1) / mr;
        const size_t per = ((slice / tiles) + 63) & ~(size_t)63;
        size_t pf = 0;
        for (size_t m = mb; m < me; m += mr) {
          const size_t rows = me - m < mr ? me - m : mr;
          tile.gemm(rows, nc, kc, a + m * lda + k0, lda, w, first ? panel : NULL, c + m * ldc + n0, ldc, lo, hi);
          if (next && tiles > 1)
            for (size_t e = pf + per; pf < e && pf < slice; pf += 64) PTE_XNN_PREFETCH(next + pf);
        }
      }
    }
    k0 += kc;
  } while (k0 < g.k);
}

typedef struct f32_job {
  const pte_xnn_kernels *k;
  const uint8_t *packed;
  size_t m, panels, mr;
  size_t chunks_m, chunks_p, rows_per, panels_per;
  const float *a;
  size_t lda;
  float *c;
  size_t ldc;
  float vmin, vmax;
} f32_job;

static void f32_task(void *ctx, size_t item, int tid) {
  (void)tid;
  const f32_job *j = (const f32_job *)ctx;
  const size_t im = item / j->chunks_p, ip = item % j->chunks_p;
  const size_t m0 = im * j->rows_per, p0 = ip * j->panels_per;
  const size_t m1 = m0 + j->rows_per < j->m ? m0 + j->rows_per : j->m;
  const size_t p1 = p0 + j->panels_per < j->panels ? p0 + j->panels_per : j->panels;
  if (m0 >= m1 || p0 >= p1) return;
  pte_xnn_f32_gemm_region(j->k, j->packed, m0, m1, p0, p1, j->a, j->lda, j->c, j->ldc, j->vmin, j->vmax);
}

void pte_xnn_f32_gemm(pte_xnn_exec *x, const uint8_t *packed, size_t m, const float *a, size_t lda, float *c,
                      size_t ldc, float vmin, float vmax) {
  if (m == 0) return;
  const gemm_shape g = shape_of(packed);
  const int t = x->threads;
  /* below ~4M multiply-adds a fork/join costs more than it saves */
  if (t <= 1 || (m * g.n * (g.k + 1)) < ((size_t)1 << 22)) {
    pte_xnn_f32_gemm_region(x->k, packed, 0, m, 0, g.panels, a, lda, c, ldc, vmin, vmax);
    return;
  }
  f32_job j;
  j.k = x->k;
  j.packed = packed;
  j.m = m;
  j.panels = g.panels;
  j.mr = pte_xnn_f32_tile_for_nr(x->k, g.nr).mr;
  j.a = a, j.lda = lda, j.c = c, j.ldc = ldc, j.vmin = vmin, j.vmax = vmax;
  /* Split the panels when there are enough of them (each thread streams its own weights);
   * otherwise split the rows. Over-partition for balance (a worker that starts late, or is
   * descheduled on a busy machine, then leaves fewer items to the others). */
  const size_t want = (size_t)t * 4;
  if (g.panels >= want || m <= j.mr) {
    j.chunks_m = 1;
    j.rows_per = m;
    j.chunks_p = g.panels < want ? g.panels : want;
    j.panels_per = (g.panels + j.chunks_p - 1) / j.chunks_p;
    j.chunks_p = (g.panels + j.panels_per - 1) / j.panels_per;
  } else {
    j.chunks_p = 1;
    j.panels_per = g.panels;
    size_t tiles = (m + j.mr - 1) / j.mr;
    size_t chunks = tiles < want ? tiles : want;
    size_t tiles_per = (tiles + chunks - 1) / chunks;
    j.rows_per = tiles_per * j.mr;
    j.chunks_m = (m + j.rows_per - 1) / j.rows_per;
  }
  pte_xnn_parallel(x->pool, f32_task, &j, j.chunks_m * j.chunks_p);
}

/* ---- int8 ------------------------------------------------------------------------------------ */
typedef struct i8_job {
  const pte_xnn_kernels *k;
  const uint8_t *packed;
  gemm_shape g;
  size_t m, rows_per, chunks;
  const int8_t *a;
  size_t lda;
  bool qd8;
  /* qs8 */
  int8_t *cq;
  int32_t out_zp, qmin, qmax;
  bool fused; /* AVX-512BW/VL tile with the epilogue (pte_xnn_qs8_gemm_8x8_avx512bw) */
  bool vnni;  /* ... on AVX-512 VNNI (pte_xnn_qs8_gemm_8x8_vnni) */
  /* qd8 */
  const pte_xnn_qrow *rows;
  size_t row_off, row_div;
  float *cf;
  float vmin, vmax;
  size_t ldc;
} i8_job;

/* qs8 epilogue of one row of nc <= 8 columns: out = lrint(clamp((float)(acc + bias) * scale)) + zp.
 * The caller guarantees acc + bias fits int32 (then the int32 and int64 sums convert to the
 * same float); one conversion, one multiply, the same compares and round-to-nearest-even as the
 * scalar loop, so the results are bit-identical. */
#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
#include <immintrin.h>
__attribute__((target("avx2"))) static void qs8_requant_row8_avx2(size_t nc, const int32_t *acc, const int32_t *pb,
                                                                  const float *ps, float lo, float hi, int32_t zp,
                                                                  int8_t *out) {
  const __m256i a = _mm256_add_epi32(_mm256_loadu_si256((const __m256i *)(const void *)acc),
                                     _mm256_loadu_si256((const __m256i *)(const void *)pb));
  __m256 f = _mm256_mul_ps(_mm256_cvtepi32_ps(a), _mm256_loadu_ps(ps));
  f = _mm256_min_ps(_mm256_set1_ps(hi), _mm256_max_ps(_mm256_set1_ps(lo), f));
  const __m256i q = _mm256_add_epi32(_mm256_cvtps_epi32(f), _mm256_set1_epi32(zp));
  const __m128i s16 = _mm_packs_epi32(_mm256_castsi256_si128(q), _mm256_extracti128_si256(q, 1));
  const __m128i s8 = _mm_packs_epi16(s16, s16);
  if (nc == 8) {
    _mm_storel_epi64((__m128i *)(void *)out, s8);
  } else {
    int8_t tmp[16];
    _mm_storeu_si128((__m128i *)(void *)tmp, s8);
    memcpy(out, tmp, nc);
  }
}
#endif

/* int32 is exact for a qs8 panel of NR 8 when |bias'| + 128 * 128 * K stays below 2^31 */
static inline bool qs8_fits(const i8_job *j, const uint8_t *panel) {
  const int32_t *pb = (const int32_t *)(const void *)panel;
  bool fits = j->g.k < ((size_t)1 << 16);
  for (size_t q = 0; fits && q < 8; q++)
    fits = (int64_t)(pb[q] < 0 ? -(int64_t)pb[q] : pb[q]) + (int64_t)16384 * (int64_t)j->g.k <= INT32_MAX;
  return fits;
}

static void i8_rows(const i8_job *j, size_t m0, size_t m1) {
  const size_t mr = j->k->i8_mr, nr = j->g.nr;
  const uint8_t *base = j->packed + PTE_XNN_PACKED_HEADER_SIZE;
  int32_t acc[16 * 64];
  for (size_t p = 0; p < j->g.panels; p++) {
    const uint8_t *panel = base + p * j->g.stride;
    const size_t n0 = p * nr;
    const size_t nc = j->g.n - n0 < nr ? j->g.n - n0 : nr;
#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
    if (!j->qd8 && nr == 8 && j->k->isa == PTE_XNN_KISA_AVX512 && j->fused && qs8_fits(j, panel)) {
      /* AVX-512BW: 8-row tiles over this panel and the next, the epilogue in registers */
      const size_t np = p + 1 < j->g.panels && qs8_fits(j, panel + j->g.stride) ? 2 : 1;
      const uint8_t *p1 = panel + (np - 1) * j->g.stride;
      const size_t ncs[2] = {nc, np > 1 ? (j->g.n - n0 - nr < nr ? j->g.n - n0 - nr : nr) : 0};
      const int8_t *ws[2] = {(const int8_t *)(panel + nr * 8), (const int8_t *)(p1 + nr * 8)};
      const int32_t *bs[2] = {(const int32_t *)panel, (const int32_t *)p1};
      const float *ss[2] = {(const float *)(panel + nr * 4), (const float *)(p1 + nr * 4)};
      const float lo = (float)(j->qmin - j->out_zp), hi = (float)(j->qmax - j->out_zp);
      if (j->vnni) {
        int32_t corr[2][8];
        const int32_t *cs[2] = {corr[0], corr[1]};
        pte_xnn_qs8_vnni_corr(j->g.k, ws[0], corr[0]);
        if (np > 1) pte_xnn_qs8_vnni_corr(j->g.k, ws[1], corr[1]);
        for (size_t m = m0; m < m1; m += 8)
          pte_xnn_qs8_gemm_8x8_vnni(m1 - m < 8 ? m1 - m : 8, np, ncs, j->g.k, j->a + m * j->lda, j->lda, ws, bs, cs,
                                    ss, j->cq + m * j->ldc + n0, j->ldc, lo, hi, j->out_zp);
        p += np - 1;
        continue;
      }
      for (size_t m = m0; m < m1; m += 8)
        pte_xnn_qs8_gemm_8x8_avx512bw(m1 - m < 8 ? m1 - m : 8, np, ncs, j->g.k, j->a + m * j->lda, j->lda, ws, bs, ss,
                                      j->cq + m * j->ldc + n0, j->ldc, lo, hi, j->out_zp);
      p += np - 1;
      continue;
    }
#endif
    for (size_t m = m0; m < m1; m += mr) {
      const size_t rows = m1 - m < mr ? m1 - m : mr;
      if (!j->qd8) {
        const int32_t *pb = (const int32_t *)panel;
        const float *ps = (const float *)(panel + nr * 4);
        j->k->i8_gemm(rows, j->g.k, j->a + m * j->lda, j->lda, (const int8_t *)(panel + nr * 8), acc);
        const float lo = (float)(j->qmin - j->out_zp), hi = (float)(j->qmax - j->out_zp);
#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
        if (nr == 8 && j->k->isa != PTE_XNN_KISA_SCALAR) {
          /* int32 is exact when |bias'| + 128 * 128 * K stays below 2^31 for every column */
          bool fits = j->g.k < ((size_t)1 << 16);
          for (size_t q = 0; fits && q < nr; q++)
            fits = (int64_t)(pb[q] < 0 ? -(int64_t)pb[q] : pb[q]) + (int64_t)16384 * (int64_t)j->g.k <= INT32_MAX;
          if (fits) {
            for (size_t r = 0; r < rows; r++)
              qs8_requant_row8_avx2(nc, acc + r * nr, pb, ps, lo, hi, j->out_zp, j->cq + (m + r) * j->ldc + n0);
            continue;
          }
        }
#endif
        for (size_t r = 0; r < rows; r++) {
          int8_t *out = j->cq + (m + r) * j->ldc + n0;
          for (size_t q = 0; q < nc; q++) {
            /* int64: a qint32 bias near +-2^31 plus the accumulator must not overflow */
            float v = (float)((int64_t)acc[r * nr + q] + pb[q]) * ps[q];
            v = v < lo ? lo : (v > hi ? hi : v);
            out[q] = (int8_t)((int32_t)lrintf(v) + j->out_zp);
          }
        }
      } else {
        const float *pb = (const float *)panel;
        const float *ps = (const float *)(panel + nr * 4);
        const int32_t *pk = (const int32_t *)(panel + nr * 8);
        j->k->i8_gemm(rows, j->g.k, j->a + m * j->lda, j->lda, (const int8_t *)(panel + nr * 12), acc);
        for (size_t r = 0; r < rows; r++) {
          const pte_xnn_qrow qr = j->rows[(j->row_off + m + r) / j->row_div];
          float *out = j->cf + (m + r) * j->ldc + n0;
          for (size_t q = 0; q < nc; q++) {
            const int64_t a64 = (int64_t)acc[r * nr + q] - (int64_t)qr.zero_point * pk[q];
            float v = (float)a64 * (qr.scale * ps[q]) + pb[q];
            out[q] = pte_xnn_clampf(v, j->vmin, j->vmax);
          }
        }
      }
    }
  }
}

static void i8_task(void *ctx, size_t item, int tid) {
  (void)tid;
  const i8_job *j = (const i8_job *)ctx;
  const size_t m0 = item * j->rows_per;
  const size_t m1 = m0 + j->rows_per < j->m ? m0 + j->rows_per : j->m;
  if (m0 < m1) i8_rows(j, m0, m1);
}

static void i8_run(pte_xnn_exec *x, i8_job *j) {
  const size_t mr = x->k->i8_mr;
  const size_t tiles = (j->m + mr - 1) / mr;
  /* below ~64K multiply-adds (a couple of microseconds) the hand-off costs more than it saves */
  size_t chunks = x->threads > 1 && j->m * j->g.n * j->g.k >= ((size_t)1 << 16) ? (size_t)x->threads * 2 : 1;
  if (chunks > tiles) chunks = tiles;
  j->rows_per = ((tiles + chunks - 1) / chunks) * mr;
  j->chunks = (j->m + j->rows_per - 1) / j->rows_per;
  pte_xnn_parallel(x->threads > 1 ? x->pool : NULL, i8_task, j, j->chunks);
}

void pte_xnn_qs8_gemm(pte_xnn_exec *x, const uint8_t *packed, size_t m, const int8_t *a, size_t lda, int8_t *c,
                      size_t ldc, int32_t out_zp, int32_t qmin, int32_t qmax) {
  if (m == 0) return;
  i8_job j;
  memset(&j, 0, sizeof j);
  j.k = x->k, j.packed = packed, j.g = shape_of(packed), j.m = m, j.a = a, j.lda = lda;
  j.cq = c, j.ldc = ldc, j.out_zp = out_zp, j.qmin = qmin, j.qmax = qmax;
#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
  j.fused = x->k->isa == PTE_XNN_KISA_AVX512 && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl");
  j.vnni = j.fused && pte_xnn_have_qs8_vnni();
#endif
  i8_run(x, &j);
}

void pte_xnn_qd8_gemm(pte_xnn_exec *x, const uint8_t *packed, size_t m, const int8_t *a, size_t lda,
                      const pte_xnn_qrow *rows, size_t row_off, size_t row_div, float *c, size_t ldc, float vmin,
                      float vmax) {
  if (m == 0) return;
  i8_job j;
  memset(&j, 0, sizeof j);
  j.k = x->k, j.packed = packed, j.g = shape_of(packed), j.m = m, j.a = a, j.lda = lda, j.qd8 = true;
  j.rows = rows, j.row_off = row_off, j.row_div = row_div ? row_div : 1, j.cf = c, j.ldc = ldc, j.vmin = vmin, j.vmax = vmax;
  i8_run(x, &j);
}
