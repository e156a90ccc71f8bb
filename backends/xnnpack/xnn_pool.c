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
  for (size_t row = r0; row < r1; row++) {
    const size_t b = row / OH, oy = row % OH;
    for (size_t ox = 0; ox < OW; ox++) {
      float *dst = (float *)o->data + ((b * OH + oy) * OW + ox) * C;
      size_t valid = 0;
      for (size_t ky = 0; ky < p->ph; ky++) {
        const long iy = (long)(oy * sh + ky * dh) - (long)n->rt_pt;
        if (iy < 0 || iy >= (long)H) continue;
        for (size_t kx = 0; kx < p->pw; kx++) {
          const long ix = (long)(ox * sw + kx * dw) - (long)n->rt_pl;
          if (ix < 0 || ix >= (long)W) continue;
          const float *src = in + ((b * H + (size_t)iy) * W + (size_t)ix) * C;
          if (valid++ == 0) memcpy(dst, src, C * sizeof(float));
          else acc(C, dst, src, dst, -INFINITY, INFINITY);
        }
      }
      if (valid == 0) {
        const float fill = mx ? -INFINITY : 0.0f;
        for (size_t c = 0; c < C; c++) dst[c] = fill;
      } else if (!mx && valid > 1) {
        const float inv = 1.0f / (float)valid;
        scale(C, dst, &inv, dst, -INFINITY, INFINITY);
      }
      clamp(C, dst, dst, &cp);
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

pte_status pte_xnn_run_global_avg(pte_xnn_exec *x, const pte_xnn_node *n) {
  pte_xnn_delegate *d = x->d;
  const pte_xnn_value *a = V(n->in[0]), *o = V(n->out[0]);
  const size_t N = a->shape[0], HW = a->shape[1] * a->shape[2], C = a->shape[3];
  const bool q = !xo_f32(a);
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
          for (size_t i = i0; i < i1; i++)
            for (size_t c = 0; c < cn; c++) acc[c] += (double)xo_load_q(a, a->data, (b * HW + i) * C + c0 + c);
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

