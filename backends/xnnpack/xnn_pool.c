/* Pooling: max / average pooling 2-D, global average pooling. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "xnn_ops.h"

/* ---- pooling, resize ---------------------------------------------------------------------- */

/* fp32 pooling: every output pixel is accumulated in place over its valid taps with the vector
 * max/add kernels (no temporary), then scaled (average) and clamped. */
typedef struct pool_job {
  pte_xnn_exec *x;
  const pte_xnn_node *n;
  const pte_xnn_value *a, *o;
} pool_job;

/* output rows [r0, r1) of all (b, oy) rows */
static void pool_f32_rows(const pool_job *j, size_t r0, size_t r1) {
  pte_xnn_exec *x = j->x;
  const pte_xnn_node *n = j->n;
  const pte_xnn_value *a = j->a, *o = j->o;
  const pte_xnn_pool_params *p = &n->p.pool;
  const size_t H = a->shape[1], W = a->shape[2], C = a->shape[3];
  const size_t OH = o->shape[1], OW = o->shape[2];
  const size_t sh = p->sh ? p->sh : 1, sw = p->sw ? p->sw : 1, dh = p->dh ? p->dh : 1, dw = p->dw ? p->dw : 1;
  const bool mx = n->type == pte_xn_XNodeUnion_XNNMaxPooling2d;
  const pte_xnn_f32_binary_fn acc = x->vec->binary[mx ? PTE_XNN_B_MAX : PTE_XNN_B_ADD][PTE_XNN_BS_VV];
  const pte_xnn_f32_binary_fn scale = x->vec->binary[PTE_XNN_B_MUL][PTE_XNN_BS_VS];
  const pte_xnn_f32_unary_fn clamp = x->vec->unary[PTE_XNN_U_CLAMP];
  const pte_xnn_uparams cp = {n->out_min, n->out_max, 0.0f};
  const float *in = (const float *)a->data;
  /* no clamp pass when the bounds are infinite (the common unfused pool) */
  const bool clamped = !(n->out_min == -INFINITY && n->out_max == INFINITY);
  for (size_t row = r0; row < r1; row++) {
    const size_t b = row / OH, oy = row % OH;
    for (size_t ox = 0; ox < OW; ox++) {
      float *dst = (float *)o->data + ((b * OH + oy) * OW + ox) * C;
      size_t valid = 0;
      const float *first = NULL;
      for (size_t ky = 0; ky < p->ph; ky++) {
        const long iy = (long)(oy * sh + ky * dh) - (long)n->rt_pt;
        if (iy < 0 || iy >= (long)H) continue;
        for (size_t kx = 0; kx < p->pw; kx++) {
          const long ix = (long)(ox * sw + kx * dw) - (long)n->rt_pl;
          if (ix < 0 || ix >= (long)W) continue;
          const float *src = in + ((b * H + (size_t)iy) * W + (size_t)ix) * C;
          /* the first two taps combine straight into dst (no copy of the first) */
          if (valid == 0) first = src;
          else if (valid == 1) acc(C, first, src, dst, -INFINITY, INFINITY);
          else acc(C, dst, src, dst, -INFINITY, INFINITY);
          valid++;
        }
      }
      if (valid == 1) memcpy(dst, first, C * sizeof(float));
      if (valid == 0) {
        const float fill = mx ? -INFINITY : 0.0f;
        for (size_t c = 0; c < C; c++) dst[c] = fill;
      } else if (!mx && valid > 1) {
        const float inv = 1.0f / (float)valid;
        scale(C, dst, &inv, dst, -INFINITY, INFINITY);
      }
      if (clamped || valid == 0) clamp(C, dst, dst, &cp);
    }
  }
}

static void pool_task(void *ctx, size_t item, int tid) {
  (void)tid;
  const pool_job *j = (const pool_job *)ctx;
  const size_t rows = j->o->shape[0] * j->o->shape[1], per = (rows + 15) / 16;
  const size_t r0 = item * per, r1 = r0 + per < rows ? r0 + per : rows;
  if (r0 < r1) pool_f32_rows(j, r0, r1);
}

/* fp32 pooling over the thread pool (16 row ranges) when the output is large enough. */
static void pool_f32(pte_xnn_exec *x, const pte_xnn_node *n, const pte_xnn_value *a, const pte_xnn_value *o) {
  const pool_job j = {x, n, a, o};
  if (x->threads > 1 && o->numel >= 16384) pte_xnn_parallel(x->pool, pool_task, (void *)&j, 16);
  else pool_f32_rows(&j, 0, o->shape[0] * o->shape[1]);
}

pte_status pte_xnn_run_pool(pte_xnn_exec *x, const pte_xnn_node *n) {
  pte_xnn_delegate *d = x->d;
  const pte_xnn_value *a = V(n->in[0]), *o = V(n->out[0]);
  if (xo_f32(a)) {
    pool_f32(x, n, a, o);
    return PTE_OK;
  }
  const pte_xnn_pool_params *p = &n->p.pool;
  const size_t N = a->shape[0], H = a->shape[1], W = a->shape[2], C = a->shape[3];
  const size_t OH = o->shape[1], OW = o->shape[2];
  const size_t sh = p->sh ? p->sh : 1, sw = p->sw ? p->sw : 1, dh = p->dh ? p->dh : 1, dw = p->dw ? p->dw : 1;
  const bool mx = n->type == pte_xn_XNodeUnion_XNNMaxPooling2d;
  float acc[512]; /* channels in blocks of 512: no allocation at execute */
  for (size_t b = 0; b < N; b++)
    for (size_t oy = 0; oy < OH; oy++)
      for (size_t ox = 0; ox < OW; ox++)
        for (size_t c0 = 0; c0 < C; c0 += 512) {
          const size_t cn = C - c0 < 512 ? C - c0 : 512;
          size_t valid = 0;
          for (size_t c = 0; c < cn; c++) acc[c] = mx ? -INFINITY : 0.0f;
          for (size_t ky = 0; ky < p->ph; ky++) {
            const long iy = (long)(oy * sh + ky * dh) - (long)n->rt_pt;
            if (iy < 0 || iy >= (long)H) continue;
            for (size_t kx = 0; kx < p->pw; kx++) {
              const long ix = (long)(ox * sw + kx * dw) - (long)n->rt_pl;
              if (ix < 0 || ix >= (long)W) continue;
              const size_t base = ((b * H + (size_t)iy) * W + (size_t)ix) * C + c0;
              valid++;
              for (size_t c = 0; c < cn; c++) {
                float v = xo_load_q(a, a->data, base + c);
                acc[c] = mx ? (v > acc[c] ? v : acc[c]) : acc[c] + v;
              }
            }
          }
          const size_t obase = ((b * OH + oy) * OW + ox) * C + c0;
          const float inv = valid ? 1.0f / (float)valid : 0.0f;
          for (size_t c = 0; c < cn; c++) {
            float v = mx ? acc[c] : acc[c] * inv;
            xo_store_q(o, o->data, obase + c, pte_xnn_clampf(v, n->out_min, n->out_max));
          }
        }
  return PTE_OK;
}

/* Quantized global average pooling, one block of pixels (pte_xnn_gavg_q8_fn). The vector versions
 * do the same float multiply and the same double additions in the same order per channel, so they
 * give the scalar result bit for bit. */
static void gavg_q8_scalar(const uint8_t *p, bool u8, size_t C, size_t rows, size_t cn, int32_t zp, float scale,
                           double *acc) {
  for (size_t i = 0; i < rows; i++, p += C)
    for (size_t c = 0; c < cn; c++) {
      const int32_t q = u8 ? (int32_t)p[c] : (int32_t)(int8_t)p[c];
      acc[c] += (double)((float)(q - zp) * scale);
    }
}

#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
#include <immintrin.h>

__attribute__((target("avx2"))) static void gavg_q8_avx2(const uint8_t *p, bool u8, size_t C, size_t rows,
                                                          size_t cn, int32_t zp, float scale, double *acc) {
  const __m256i vzp = _mm256_set1_epi32(zp);
  const __m256 vs = _mm256_set1_ps(scale);
  size_t c = 0;
  for (; c + 8 <= cn; c += 8) {
    __m256d lo = _mm256_loadu_pd(acc + c), hi = _mm256_loadu_pd(acc + c + 4);
    const uint8_t *r = p + c;
    for (size_t i = 0; i < rows; i++, r += C) {
      const __m128i b = _mm_loadl_epi64((const __m128i *)(const void *)r);
      const __m256i q = u8 ? _mm256_cvtepu8_epi32(b) : _mm256_cvtepi8_epi32(b);
      const __m256 f = _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_sub_epi32(q, vzp)), vs);
      lo = _mm256_add_pd(lo, _mm256_cvtps_pd(_mm256_castps256_ps128(f)));
      hi = _mm256_add_pd(hi, _mm256_cvtps_pd(_mm256_extractf128_ps(f, 1)));
    }
    _mm256_storeu_pd(acc + c, lo);
    _mm256_storeu_pd(acc + c + 4, hi);
  }
  if (c < cn) gavg_q8_scalar(p + c, u8, C, rows, cn - c, zp, scale, acc + c);
}

__attribute__((target("avx512f"))) static void gavg_q8_avx512(const uint8_t *p, bool u8, size_t C, size_t rows,
                                                               size_t cn, int32_t zp, float scale, double *acc) {
  const __m512i vzp = _mm512_set1_epi32(zp);
  const __m512 vs = _mm512_set1_ps(scale);
  size_t c = 0;
  for (; c + 16 <= cn; c += 16) {
    __m512d lo = _mm512_loadu_pd(acc + c), hi = _mm512_loadu_pd(acc + c + 8);
    const uint8_t *r = p + c;
    for (size_t i = 0; i < rows; i++, r += C) {
      const __m128i b = _mm_loadu_si128((const __m128i *)(const void *)r);
      const __m512i q = u8 ? _mm512_cvtepu8_epi32(b) : _mm512_cvtepi8_epi32(b);
      const __m512 f = _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_sub_epi32(q, vzp)), vs);
      lo = _mm512_add_pd(lo, _mm512_cvtps_pd(_mm512_castps512_ps256(f)));
      hi = _mm512_add_pd(hi, _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(f), 1))));
    }
    _mm512_storeu_pd(acc + c, lo);
    _mm512_storeu_pd(acc + c + 8, hi);
  }
  if (c < cn) gavg_q8_avx2(p + c, u8, C, rows, cn - c, zp, scale, acc + c);
}
#endif

/* scalar unless vec is one of the x86 vector tables */
pte_xnn_gavg_q8_fn pte_xnn_gavg_q8_for(const pte_xnn_vec_kernels *vec) {
#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
  if (vec && vec == pte_xnn_vec_kernels_avx512()) return gavg_q8_avx512;
  if (vec && vec == pte_xnn_vec_kernels_avx2()) return gavg_q8_avx2;
#endif
  (void)vec;
  return gavg_q8_scalar;
}

pte_status pte_xnn_run_global_avg(pte_xnn_exec *x, const pte_xnn_node *n) {
  pte_xnn_delegate *d = x->d;
  const pte_xnn_value *a = V(n->in[0]), *o = V(n->out[0]);
  const size_t N = a->shape[0], HW = a->shape[1] * a->shape[2], C = a->shape[3];
  const bool q = !xo_f32(a);
  const pte_xnn_gavg_q8_fn gq = pte_xnn_gavg_q8_for(x->vec);
  double acc[256]; /* channels in blocks of 256: no allocation at execute */
  float part[256];
  for (size_t b = 0; b < N; b++)
    for (size_t c0 = 0; c0 < C; c0 += 256) {
      const size_t cn = C - c0 < 256 ? C - c0 : 256;
      for (size_t c = 0; c < cn; c++) acc[c] = 0.0;
      /* walk the pixels in memory order; a float partial sum per run of 64 pixels keeps it fast */
      for (size_t i0 = 0; i0 < HW; i0 += 64) {
        const size_t i1 = i0 + 64 < HW ? i0 + 64 : HW;
        if (!q) {
          for (size_t c = 0; c < cn; c++) part[c] = 0.0f;
          for (size_t i = i0; i < i1; i++)
            x->vec->binary[PTE_XNN_B_ADD][PTE_XNN_BS_VV](cn, part, (const float *)a->data + (b * HW + i) * C + c0, part,
                                                         -INFINITY, INFINITY);
          for (size_t c = 0; c < cn; c++) acc[c] += (double)part[c];
        } else {
          gq(a->data + (b * HW + i0) * C + c0, a->dtype == PTE_XD_QUINT8, C, i1 - i0, cn, a->zero_point, a->scale,
             acc);
        }
      }
      for (size_t c = 0; c < cn; c++) {
        float v = HW ? (float)(acc[c] / (double)HW) : 0.0f;
        v = pte_xnn_clampf(v, n->out_min, n->out_max);
        if (q) xo_store_q(o, o->data, b * C + c0 + c, v);
        else ((float *)o->data)[b * C + c0 + c] = v;
      }
    }
  return PTE_OK;
}

