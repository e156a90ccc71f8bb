/* Data movement: transpose (batched 2-D fast path), reshape, slice, constant pad, concatenate,
 * bilinear resize — strided copies straight into the output, no temporary. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "xnn_ops.h"

/* ---- data movement ------------------------------------------------------------------------ */

static void strides_of(const size_t *dims, unsigned r, size_t *st) {
  size_t s = 1;
  for (int i = (int)r - 1; i >= 0; i--) {
    st[i] = s;
    s *= dims[i];
  }
}

/* [X, Y] -> [Y, X] for fp32, output rows [ya, yb) (16 x 16 tiles; 3 rows: a straight loop, e.g.
 * an RGB image NCHW -> NHWC with three sequential reads and one sequential write). */
static void tr2d_rows(const float *src, float *dst, size_t X, size_t Y, size_t ya, size_t yb) {
  if (X == 3) {
    const float *s0 = src, *s1 = src + Y, *s2 = src + 2 * Y;
    for (size_t y = ya; y < yb; y++) {
      dst[3 * y] = s0[y];
      dst[3 * y + 1] = s1[y];
      dst[3 * y + 2] = s2[y];
    }
    return;
  }
  for (size_t x0 = 0; x0 < X; x0 += 16) {
    const size_t x1 = x0 + 16 < X ? x0 + 16 : X;
    for (size_t y0 = ya; y0 < yb; y0 += 16) {
      const size_t y1 = y0 + 16 < yb ? y0 + 16 : yb;
      for (size_t y = y0; y < y1; y++)
        for (size_t xx = x0; xx < x1; xx++) dst[y * X + xx] = src[xx * Y + y];
    }
  }
}

typedef struct tr_job {
  const float *src;
  float *dst;
  size_t X, Y;
} tr_job;

static void tr_task(void *ctx, size_t item, int tid) {
  (void)tid;
  const tr_job *j = (const tr_job *)ctx;
  const size_t b = item / 16, part = item % 16, per = ((j->Y + 15) / 16 + 15) & ~(size_t)15;
  const size_t ya = part * per, yb = ya + per < j->Y ? ya + per : j->Y;
  if (ya < yb) tr2d_rows(j->src + b * j->X * j->Y, j->dst + b * j->X * j->Y, j->X, j->Y, ya, yb);
}

/* batch x ([X, Y] -> [Y, X]), over the thread pool when large */
static void tr2d_f32(pte_xnn_exec *x, const float *src, float *dst, size_t batch, size_t X, size_t Y) {
  if (x->threads > 1 && batch * X * Y >= 65536) {
    const tr_job j = {src, dst, X, Y};
    pte_xnn_parallel(x->pool, tr_task, (void *)&j, batch * 16);
    return;
  }
  for (size_t bi = 0; bi < batch; bi++) tr2d_rows(src + bi * X * Y, dst + bi * X * Y, X, Y, 0, Y);
}

pte_status pte_xnn_run_transpose(pte_xnn_exec *x, const pte_xnn_node *n) {
  pte_xnn_delegate *d = x->d;
  const pte_xnn_value *a = V(n->in[0]), *o = V(n->out[0]);
  const unsigned r = a->rank;
  const size_t es = pte_xnn_dtype_size(a->dtype);
  size_t ist[PTE_XNN_MAX_DIMS], src_st[PTE_XNN_MAX_DIMS];
  strides_of(a->shape, r, ist);
  for (unsigned i = 0; i < r; i++) src_st[i] = ist[n->p.transpose.perm[i]];
  if (o->numel == 0) return PTE_OK;
  if (r == 0) {
    memcpy(o->data, a->data, es);
    return PTE_OK;
  }
  /* merge output dims that stay adjacent in the input; a batched 2-D transpose [B, X, Y] ->
   * [B, Y, X] (e.g. NCHW <-> NHWC) then runs as tiles that read and write whole cache lines */
  if (es == 4 && r >= 2) {
    size_t md[PTE_XNN_MAX_DIMS], mp[PTE_XNN_MAX_DIMS];
    unsigned mr = 0;
    for (unsigned i = 0; i < r; i++) {
      const uint32_t pi = n->p.transpose.perm[i];
      if (a->shape[pi] == 1) continue;
      if (mr > 0 && mp[mr - 1] + 1 == pi) {
        md[mr - 1] *= a->shape[pi];
        mp[mr - 1] = pi;
        continue;
      }
      md[mr] = a->shape[pi];
      mp[mr] = pi;
      mr++;
    }
    /* input order of the merged dims: perm values increase along input order */
    if (mr == 2 && mp[0] > mp[1]) {
      tr2d_f32(x, (const float *)a->data, (float *)o->data, 1, md[1], md[0]);
      return PTE_OK;
    }
    if (mr == 3 && mp[0] < mp[2] && mp[2] < mp[1]) {
      tr2d_f32(x, (const float *)a->data, (float *)o->data, md[0], md[2], md[1]);
      return PTE_OK;
    }
  }
  /* iterate the output in order; the innermost output dim reads with stride src_st[r-1] */
  size_t idx[PTE_XNN_MAX_DIMS] = {0};
  const size_t inner = o->shape[r - 1], sin = src_st[r - 1];
  const size_t outer = o->numel / inner;
  uint8_t *po = o->data;
  for (size_t q = 0; q < outer; q++) {
    size_t off = 0;
    for (unsigned i = 0; i + 1 < r; i++) off += idx[i] * src_st[i];
    if (es == 4) {
      const float *src = (const float *)a->data + off;
      float *dst = (float *)po;
      for (size_t i = 0; i < inner; i++) dst[i] = src[i * sin];
    } else {
      const uint8_t *src = a->data + off * es;
      for (size_t i = 0; i < inner; i++) memcpy(po + i * es, src + i * sin * es, es);
    }
    po += inner * es;
    for (int i = (int)r - 2; i >= 0; i--) {
      if (++idx[i] < o->shape[i]) break;
      idx[i] = 0;
    }
  }
  return PTE_OK;
}

pte_status pte_xnn_run_slice(pte_xnn_exec *x, const pte_xnn_node *n) {
  pte_xnn_delegate *d = x->d;
  const pte_xnn_value *a = V(n->in[0]), *o = V(n->out[0]);
  const unsigned r = a->rank;
  const size_t es = pte_xnn_dtype_size(a->dtype);
  if (o->numel == 0) return PTE_OK;
  size_t ist[PTE_XNN_MAX_DIMS];
  strides_of(a->shape, r, ist);
  size_t base = 0;
  for (unsigned i = 0; i < r; i++) base += n->p.slice.offsets[i] * ist[i];
  const size_t inner = o->shape[r - 1];
  const size_t outer = o->numel / inner;
  size_t idx[PTE_XNN_MAX_DIMS] = {0};
  for (size_t q = 0; q < outer; q++) {
    size_t off = base;
    for (unsigned i = 0; i + 1 < r; i++) off += idx[i] * ist[i];
    memcpy(o->data + q * inner * es, a->data + off * es, inner * es);
    for (int i = (int)r - 2; i >= 0; i--) {
      if (++idx[i] < o->shape[i]) break;
      idx[i] = 0;
    }
  }
  return PTE_OK;
}

/* count elements of es bytes (4 or 1) set to the pad value pv */
static void pad_fill(uint8_t *dst, size_t count, size_t es, const uint8_t *pv) {
  if (es == 1) {
    memset(dst, pv[0], count);
    return;
  }
  uint32_t v;
  memcpy(&v, pv, 4);
  for (size_t i = 0; i < count; i++) memcpy(dst + 4 * i, &v, 4);
}

/* Every output row (last dim) is written once: the pad value where it lies outside the input,
 * else pre-padding, the input row, post-padding. */
pte_status pte_xnn_run_pad(pte_xnn_exec *x, const pte_xnn_node *n) {
  pte_xnn_delegate *d = x->d;
  const pte_xnn_value *a = V(n->in[0]), *o = V(n->out[0]);
  const unsigned r = a->rank;
  const size_t es = pte_xnn_dtype_size(a->dtype);
  if (o->numel == 0) return PTE_OK;
  uint8_t pv[4];
  if (es == 4) {
    float f = n->p.pad.value;
    memcpy(pv, &f, 4);
  } else {
    int32_t q = pte_xnn_quantize(n->p.pad.value, 1.0f / o->scale, o->zero_point, xo_q_lo(o), xo_q_hi(o));
    pv[0] = (uint8_t)q;
  }
  if (r == 0) {
    memcpy(o->data, a->data, es);
    return PTE_OK;
  }
  const size_t orow = o->shape[r - 1], irow = a->shape[r - 1];
  const size_t pre = n->p.pad.pre[r - 1], post = orow - pre - irow;
  const size_t outer = o->numel / orow;
  size_t idx[PTE_XNN_MAX_DIMS] = {0}, ist[PTE_XNN_MAX_DIMS];
  strides_of(a->shape, r, ist);
  uint8_t *dst = o->data;
  for (size_t q = 0; q < outer; q++, dst += orow * es) {
    bool inside = irow > 0;
    size_t src = 0;
    for (unsigned i = 0; i + 1 < r && inside; i++) {
      inside = idx[i] >= n->p.pad.pre[i] && idx[i] - n->p.pad.pre[i] < a->shape[i];
      src += (idx[i] - n->p.pad.pre[i]) * ist[i];
    }
    if (inside) {
      pad_fill(dst, pre, es, pv);
      memcpy(dst + pre * es, a->data + src * es, irow * es);
      pad_fill(dst + (pre + irow) * es, post, es, pv);
    } else {
      pad_fill(dst, orow, es, pv);
    }
    for (int i = (int)r - 2; i >= 0; i--) {
      if (++idx[i] < o->shape[i]) break;
      idx[i] = 0;
    }
  }
  return PTE_OK;
}

typedef struct cat_job {
  pte_xnn_exec *x;
  const pte_xnn_node *n;
  const pte_xnn_value *o;
  size_t inner_o, es;
} cat_job;

/* outer index q: the inputs' rows side by side */
static void cat_row(void *ctx, size_t q, int tid) {
  (void)tid;
  const cat_job *j = (const cat_job *)ctx;
  const pte_xnn_delegate *d = j->x->d;
  const unsigned ax = j->n->p.cat.axis, r = j->o->rank;
  size_t col = 0;
  for (unsigned k = 0; k < j->n->n_in; k++) {
    const pte_xnn_value *a = V(j->n->in[k]);
    size_t inner_a = 1;
    for (unsigned i = ax; i < r; i++) inner_a *= a->shape[i];
    memcpy(j->o->data + (q * j->inner_o + col) * j->es, a->data + q * inner_a * j->es, inner_a * j->es);
    col += inner_a;
  }
}

pte_status pte_xnn_run_concat(pte_xnn_exec *x, const pte_xnn_node *n) {
  pte_xnn_delegate *d = x->d;
  cat_job j;
  j.x = x;
  j.n = n;
  j.o = V(n->out[0]);
  j.es = pte_xnn_dtype_size(j.o->dtype);
  const unsigned ax = n->p.cat.axis, r = j.o->rank;
  size_t outer = 1;
  j.inner_o = 1;
  for (unsigned i = 0; i < ax; i++) outer *= j.o->shape[i];
  for (unsigned i = ax; i < r; i++) j.inner_o *= j.o->shape[i];
  const size_t groups = x->threads > 1 && j.o->numel >= 65536 ? (size_t)x->threads * 8 : 1;
  pte_xnn_parallel_grouped(x->pool, cat_row, &j, outer, groups);
  return PTE_OK;
}

typedef struct rs_job {
  pte_xnn_exec *x;
  const pte_xnn_value *a, *o;
  size_t H, W, C, OH, OW;
  float sy, sx;
  bool half; /* half-pixel centers (neither align_corners nor legacy) */
} rs_job;

/* one output row (item = b * OH + oy) */
static void rs_row(void *ctx, size_t item, int tid) {
  (void)tid;
  const rs_job *j = (const rs_job *)ctx;
  const pte_xnn_value *a = j->a, *o = j->o;
  const size_t H = j->H, W = j->W, C = j->C, OH = j->OH, OW = j->OW;
  const size_t b = item / OH, oy = item % OH;
  const bool q = !xo_f32(a);
  float fy = j->half ? ((float)oy + 0.5f) * j->sy - 0.5f : (float)oy * j->sy;
  if (fy < 0.0f) fy = 0.0f;
  size_t y0 = (size_t)fy;
  if (y0 > H - 1) y0 = H - 1;
  const size_t y1 = y0 + 1 < H ? y0 + 1 : H - 1;
  const float ly = fy - (float)y0 > 1.0f ? 1.0f : fy - (float)y0;
  for (size_t ox = 0; ox < OW; ox++) {
    float fx = j->half ? ((float)ox + 0.5f) * j->sx - 0.5f : (float)ox * j->sx;
    if (fx < 0.0f) fx = 0.0f;
    size_t x0 = (size_t)fx;
    if (x0 > W - 1) x0 = W - 1;
    const size_t x1 = x0 + 1 < W ? x0 + 1 : W - 1;
    const float lx = fx - (float)x0 > 1.0f ? 1.0f : fx - (float)x0;
    const size_t i00 = ((b * H + y0) * W + x0) * C, i01 = ((b * H + y0) * W + x1) * C;
    const size_t i10 = ((b * H + y1) * W + x0) * C, i11 = ((b * H + y1) * W + x1) * C;
    const size_t ob = ((b * OH + oy) * OW + ox) * C;
    if (!q) {
      const float *pa = (const float *)a->data;
      j->x->vec->bilerp(C, pa + i00, pa + i01, pa + i10, pa + i11, lx, ly, (float *)o->data + ob);
      continue;
    }
    for (size_t c = 0; c < C; c++) {
      const float v00 = xo_load_q(a, a->data, i00 + c), v01 = xo_load_q(a, a->data, i01 + c);
      const float v10 = xo_load_q(a, a->data, i10 + c), v11 = xo_load_q(a, a->data, i11 + c);
      const float top = v00 + (v01 - v00) * lx, bot = v10 + (v11 - v10) * lx;
      xo_store_q(o, o->data, ob + c, top + (bot - top) * ly);
    }
  }
}

pte_status pte_xnn_run_resize(pte_xnn_exec *x, const pte_xnn_node *n) {
  pte_xnn_delegate *d = x->d;
  rs_job j;
  j.x = x;
  j.a = V(n->in[0]);
  j.o = V(n->out[0]);
  j.H = j.a->shape[1], j.W = j.a->shape[2], j.C = j.a->shape[3];
  j.OH = j.o->shape[1], j.OW = j.o->shape[2];
  const bool align = (n->flags & PTE_XNN_FLAG_ALIGN_CORNERS) != 0;
  const bool legacy = (n->flags & PTE_XNN_FLAG_TENSORFLOW_LEGACY_MODE) != 0;
  j.sy = (align && j.OH > 1) ? (float)(j.H - 1) / (float)(j.OH - 1) : (float)j.H / (float)j.OH;
  j.sx = (align && j.OW > 1) ? (float)(j.W - 1) / (float)(j.OW - 1) : (float)j.W / (float)j.OW;
  j.half = !(align || legacy);
  const size_t rows = j.a->shape[0] * j.OH;
  const size_t groups = x->threads > 1 && j.o->numel >= 65536 ? (size_t)x->threads * 8 : 1;
  pte_xnn_parallel_grouped(x->pool, rs_row, &j, rows, groups);
  return PTE_OK;
}

pte_status pte_xnn_run_reshape(pte_xnn_exec *x, const pte_xnn_node *n) {
  pte_xnn_delegate *d = x->d;
  const pte_xnn_value *a = V(n->in[0]), *o = V(n->out[0]);
  if (a->data != o->data) memmove(o->data, a->data, a->numel * pte_xnn_dtype_size(a->dtype));
  return PTE_OK;
}
