/* GEMM-based nodes at execute: FullyConnected, BatchMatrixMultiply, Conv2d (direct 1x1, the
 * copy-free multi-segment row path, im2col tiles), DepthwiseConv2d (multi-pixel kernels). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "xnn_ops.h"

size_t pte_xnn_conv_tile_rows(const pte_xnn_kernels *k, size_t kdim, size_t elem) {
  size_t mr = k->f32_mr > k->i8_mr ? k->f32_mr : k->i8_mr;
  if (k->f32n_mr > mr) mr = k->f32n_mr;
  size_t rows = (256u * 1024u) / ((kdim ? kdim : 1) * elem);
  if (rows > 256) rows = 256;
  if (rows < mr) rows = mr;
  return rows - rows % mr;
}

/* ---- FC, BMM, conv -------------------------------------------------------------------------- */

pte_status pte_xnn_run_fc(pte_xnn_exec *x, const pte_xnn_node *n) {
  pte_xnn_delegate *d = x->d;
  const pte_xnn_value *a = V(n->in[0]), *w = V(n->in[1]), *o = V(n->out[0]);
  const bool tr = (n->flags & PTE_XNN_FLAG_TRANSPOSE_WEIGHTS) != 0;
  const size_t nout = tr ? w->shape[1] : w->shape[0], kdim = tr ? w->shape[0] : w->shape[1];
  const size_t m = kdim ? a->numel / kdim : (a->rank ? a->numel / (a->shape[a->rank - 1] ? a->shape[a->rank - 1] : 1) : 1);
  if (n->variant == PTE_XNN_V_QD8_Q4) return pte_xnn_run_fc_q4(x, n);
  const uint8_t *packed = n->packed.bytes;
  if (n->weights_dynamic) {
    const pte_xnn_value *b = n->in[2] != PTE_XNN_INVALID_ID ? V(n->in[2]) : NULL;
    pte_xnn_pack_f32_gemm_into(x->k, nout, kdim, (const float *)w->data, tr ? 1 : kdim, tr ? nout : 1,
                               b ? (const float *)b->data : NULL, x->shared);
    packed = x->shared;
  }
  switch (n->variant) {
    case PTE_XNN_V_F32:
      pte_xnn_f32_gemm(x, packed, m, (const float *)a->data, kdim, (float *)o->data, nout, n->out_min, n->out_max);
      break;
    case PTE_XNN_V_QS8:
      pte_xnn_qs8_gemm(x, packed, m, (const int8_t *)a->data, kdim, (int8_t *)o->data, nout, o->zero_point, n->qmin,
                       n->qmax);
      break;
    default: {
      const int nb = a->num_nonbatch_dims > 0 ? a->num_nonbatch_dims : 1;
      size_t inner = 1;
      for (int i = (int)a->rank - nb; i < (int)a->rank; i++)
        if (i >= 0) inner *= a->shape[i];
      const size_t rows = inner ? a->numel / inner : 1;
      const pte_xnn_qrow *qp = (const pte_xnn_qrow *)(a->data + ((a->numel + 63) & ~(size_t)63));
      pte_xnn_qd8_gemm(x, packed, m, (const int8_t *)a->data, kdim, qp, 0, rows ? m / rows : 1, (float *)o->data, nout,
                       n->out_min, n->out_max);
      break;
    }
  }
  return PTE_OK;
}

pte_status pte_xnn_run_bmm(pte_xnn_exec *x, const pte_xnn_node *n) {
  pte_xnn_delegate *d = x->d;
  const pte_xnn_value *a = V(n->in[0]), *b = V(n->in[1]), *o = V(n->out[0]);
  const bool tr = (n->flags & PTE_XNN_FLAG_TRANSPOSE_WEIGHTS) != 0;
  const size_t m = a->shape[a->rank - 2], kk = a->shape[a->rank - 1];
  const size_t nn = o->shape[o->rank - 1];
  const unsigned br = o->rank - 2;
  const size_t batches = br ? o->numel / ((m * nn) != 0 ? m * nn : 1) : 1;
  if (o->numel == 0) return PTE_OK;
  pte_xnn_value ta = *a, tb = *b;
  ta.rank = (uint8_t)(a->rank - 2);
  tb.rank = (uint8_t)(b->rank - 2);
  size_t sa[PTE_XNN_MAX_DIMS], sb[PTE_XNN_MAX_DIMS];
  pte_xnn_bstrides(&ta, br, o->shape, sa);
  pte_xnn_bstrides(&tb, br, o->shape, sb);
  for (size_t bi = 0; bi < batches; bi++) {
    size_t rem = bi, ia = 0, ib = 0;
    for (int i = (int)br - 1; i >= 0; i--) {
      size_t idx = rem % o->shape[i];
      rem /= o->shape[i];
      ia += idx * sa[i];
      ib += idx * sb[i];
    }
    const float *pa = (const float *)a->data + ia * m * kk;
    const float *pb = (const float *)b->data + ib * kk * nn;
    /* B as an N x K weight matrix: element (j, i) = B[i][j], or B[j][i] when transposed */
    pte_xnn_pack_f32_gemm_into(x->k, nn, kk, pb, tr ? kk : 1, tr ? 1 : nn, NULL, x->shared);
    pte_xnn_f32_gemm(x, x->shared, m, pa, kk, (float *)o->data + bi * m * nn, nn, -INFINITY, INFINITY);
  }
  return PTE_OK;
}

typedef struct conv_job {
  pte_xnn_exec *x;
  const pte_xnn_node *n;
  const pte_xnn_value *a, *o;
  size_t H, W, Cin, OH, OW, Cout, M, tile, kdim, gin, gout;
  size_t tiles;
  bool direct; /* 1x1, stride 1, no padding, one group: the input is the GEMM A matrix */
} conv_job;

/* len bytes; short runs (a kernel row of a few one-channel taps) without a library call */
static inline void im2col_copy(uint8_t *dst, const uint8_t *src, size_t len) {
  if (len > 16) {
    memcpy(dst, src, len);
    return;
  }
  if (len >= 8) {
    memcpy(dst, src, 8);
    memcpy(dst + len - 8, src + len - 8, 8);
  } else if (len >= 4) {
    memcpy(dst, src, 4);
    memcpy(dst + len - 4, src + len - 4, 4);
  } else {
    for (size_t i = 0; i < len; i++) dst[i] = src[i];
  }
}

/* One im2col row: the kh x kw x gin input values output pixel m reads (padding -> pad_q). */
static void im2col_at(const conv_job *j, size_t b, size_t oy, size_t ox, uint8_t *row, int32_t pad_q,
                      size_t cin_off) {
  const pte_xnn_node *n = j->n;
  const pte_xnn_conv_params *p = &n->p.conv;
  const size_t es = n->variant == PTE_XNN_V_F32 ? 4 : 1;
  size_t col = 0;
  const long ix0 = (long)(ox * p->sw) - (long)n->rt_pl;
  /* with unit dilation and one group, the taps of a kernel row are adjacent input pixels */
  const bool run = p->dw == 1 && j->gin == j->Cin && ix0 >= 0 && ix0 + (long)p->kw <= (long)j->W;
  const int pad_byte = es == 4 ? 0 : (int)(int8_t)pad_q;
  const size_t krow = p->kw * j->gin; /* values per kernel row */
  for (size_t ky = 0; ky < p->kh; ky++) {
    const long iy = (long)(oy * p->sh + ky * p->dh) - (long)n->rt_pt;
    if (iy < 0 || iy >= (long)j->H) { /* the whole kernel row is padding */
      memset(row + col * es, pad_byte, krow * es);
      col += krow;
      continue;
    }
    const uint8_t *in_row = j->a->data + (b * j->H + (size_t)iy) * j->W * j->Cin * es;
    if (run) {
      im2col_copy(row + col * es, in_row + (size_t)ix0 * j->Cin * es, krow * es);
      col += krow;
      continue;
    }
    for (size_t kx = 0; kx < p->kw; kx++) {
      const long ix = ix0 + (long)(kx * p->dw);
      uint8_t *dst = row + col * es;
      if (ix < 0 || ix >= (long)j->W) {
        if (es == 1 && j->gin == 1) dst[0] = (uint8_t)pad_byte;
        else memset(dst, pad_byte, j->gin * es);
      } else {
        const uint8_t *src = in_row + ((size_t)ix * j->Cin + cin_off) * es;
        if (j->gin == 1 && es == 1) dst[0] = src[0];
        else if (j->gin == 1) memcpy(dst, src, 4);
        else memcpy(dst, src, j->gin * es);
      }
      col += j->gin;
    }
  }
}

/* the same for output pixel m (m = (b * OH + oy) * OW + ox) */
static void im2col_pixel(const conv_job *j, size_t m, uint8_t *row, int32_t pad_q, size_t cin_off) {
  const size_t OHW = j->OH * j->OW, rem = m % OHW;
  im2col_at(j, m / OHW, rem / j->OW, rem % j->OW, row, pad_q, cin_off);
}

/* fp32, one group, unit horizontal dilation: output row (b, oy) without copying. For pixels whose
 * taps are all inside the row, kernel row ky of MR consecutive pixels is an MR x (kw * Cin)
 * matrix of the input with row stride sw * Cin, and the packed K order (ky, kx, ic) makes its
 * weights one contiguous K block: the output is the sum over valid ky of such GEMMs (bias on the
 * first, clamp on the last). Border pixels go through im2col. */
static void conv_row(void *ctx, size_t item, int tid) {
  const conv_job *j = (const conv_job *)ctx;
  const pte_xnn_node *n = j->n;
  const pte_xnn_conv_params *p = &n->p.conv;
  const pte_xnn_kernels *k = j->x->k;
  const size_t b = item / j->OH, oy = item % j->OH;
  const uint8_t *packed0 = n->packed.bytes;
  const pte_xnn_f32_tile tile = pte_xnn_f32_tile_for_nr(
      k, (size_t)packed0[16] | ((size_t)packed0[17] << 8) | ((size_t)packed0[18] << 16) | ((size_t)packed0[19] << 24));
  const size_t nr = tile.nr, mr = tile.mr;
  const size_t panels = (j->Cout + nr - 1) / nr;
  const uint8_t *packed = n->packed.bytes;
  const size_t pstride = (size_t)((uint64_t)packed[40] | ((uint64_t)packed[41] << 8) | ((uint64_t)packed[42] << 16) |
                                  ((uint64_t)packed[43] << 24));
  const uint8_t *base = packed + PTE_XNN_PACKED_HEADER_SIZE;
  float *out_row = (float *)j->o->data + (b * j->OH + oy) * j->OW * j->Cout;
  /* interior: ox*sw - pl >= 0 and ox*sw - pl + kw <= W */
  size_t lo = (n->rt_pl + p->sw - 1) / p->sw, hi = 0;
  if (j->W + n->rt_pl >= p->kw) hi = (j->W + n->rt_pl - p->kw) / p->sw + 1;
  if (hi > j->OW) hi = j->OW;
  if (lo > hi) lo = hi;
  /* valid kernel rows */
  size_t kys[64], nky = 0;
  for (size_t ky = 0; ky < p->kh && nky < 64; ky++) {
    const long iy = (long)(oy * p->sh + ky * p->dh) - (long)n->rt_pt;
    if (iy >= 0 && iy < (long)j->H) kys[nky++] = ky;
  }
  const size_t krun = p->kw * j->Cin;
  if (nky > 0) {
    /* balanced tiles (14 pixels: 7 + 7): the microkernels cost per row actually computed */
    const size_t ntl = (hi - lo + mr - 1) / mr, rbase = ntl ? (hi - lo) / ntl : 0, rext = ntl ? (hi - lo) % ntl : 0;
    size_t ox = lo;
    for (size_t ti = 0; ti < ntl; ti++) {
      const size_t rows = rbase + (ti < rext ? 1 : 0);
      for (size_t pi = 0; pi < panels; pi++) {
        const float *panel = (const float *)(base + pi * pstride);
        const size_t nc = j->Cout - pi * nr < nr ? j->Cout - pi * nr : nr;
        const float *as[64], *ws[64];
        for (size_t v = 0; v < nky; v++) {
          const size_t ky = kys[v];
          const long iy = (long)(oy * p->sh + ky * p->dh) - (long)n->rt_pt;
          as[v] = (const float *)j->a->data + (((b * j->H + (size_t)iy) * j->W) + ox * p->sw - n->rt_pl) * j->Cin;
          ws[v] = panel + nr + ky * krun * nr;
        }
        tile.igemm(rows, nc, nky, krun, as, p->sw * j->Cin, ws, panel, out_row + ox * j->Cout + pi * nr, j->Cout,
                   n->out_min, n->out_max);
      }
      ox += rows;
    }
  } else {
    lo = hi = 0; /* no valid kernel row: everything through the generic path (bias only) */
  }
  if (nky > 0) return; /* border pixels: conv_borders */
  /* no valid kernel row: every pixel of the row through im2col (bias only) */
  uint8_t *buf = pte_xnn_scratch(j->x, tid);
  const size_t rowbase = (b * j->OH + oy) * j->OW;
  for (int side = 0; side < 2; side++) {
    size_t s0 = side ? hi : 0, s1 = side ? j->OW : lo;
    for (size_t t0 = s0; t0 < s1; t0 += j->tile) {
      const size_t t1 = t0 + j->tile < s1 ? t0 + j->tile : s1;
      for (size_t ox = t0; ox < t1; ox++) im2col_pixel(j, rowbase + ox, buf + (ox - t0) * j->kdim * 4, 0, 0);
      pte_xnn_f32_gemm_region(k, packed, 0, t1 - t0, 0, panels, (const float *)buf, j->kdim, out_row + t0 * j->Cout,
                              j->Cout, n->out_min, n->out_max);
    }
  }
}

/* Horizontal interior [lo, hi) of the row path (as in conv_row). */
static void conv_row_interior(const conv_job *j, size_t *lo, size_t *hi) {
  const pte_xnn_node *n = j->n;
  const pte_xnn_conv_params *p = &n->p.conv;
  size_t l = (n->rt_pl + p->sw - 1) / p->sw, h = 0;
  if (j->W + n->rt_pl >= p->kw) h = (j->W + n->rt_pl - p->kw) / p->sw + 1;
  if (h > j->OW) h = j->OW;
  if (l > h) l = h;
  *lo = l, *hi = h;
}

/* The border pixels of the row path (lo + OW - hi per output row that has a valid kernel row),
 * gathered across rows into im2col tiles of j->tile pixels: one GEMM per tile reuses each
 * weight panel over the whole tile (per row, two lone pixels would stream every panel twice).
 * Results go to a scratch tile, then to their pixels. Item = tile index. */
static void conv_borders(void *ctx, size_t item, int tid) {
  const conv_job *j = (const conv_job *)ctx;
  const pte_xnn_node *n = j->n;
  const pte_xnn_conv_params *p = &n->p.conv;
  size_t lo, hi;
  conv_row_interior(j, &lo, &hi);
  const size_t per_row = lo + (j->OW - hi), total = j->tiles;
  const size_t i0 = item * j->tile, i1 = i0 + j->tile < total ? i0 + j->tile : total;
  uint8_t *buf = pte_xnn_scratch(j->x, tid);
  float *res = (float *)(void *)(buf + ((j->tile * j->kdim * 4 + 63) & ~(size_t)63));
  size_t px[512], cnt = 0; /* tile <= 256 */
  for (size_t i = i0; i < i1; i++) {
    const size_t row = i / per_row, e = i % per_row, oy = row % j->OH;
    const size_t ox = e < lo ? e : hi + (e - lo);
    bool any = false; /* rows without a valid kernel row were done whole by conv_row */
    for (size_t ky = 0; ky < p->kh && !any; ky++) {
      const long iy = (long)(oy * p->sh + ky * p->dh) - (long)n->rt_pt;
      any = iy >= 0 && iy < (long)j->H;
    }
    if (!any) continue;
    px[cnt] = row * j->OW + ox;
    im2col_pixel(j, px[cnt], buf + cnt * j->kdim * 4, 0, 0);
    cnt++;
  }
  if (cnt == 0) return;
  const size_t panels = (j->Cout + pte_xnn_f32_tile_for_n(j->x->k, j->Cout).nr - 1) / pte_xnn_f32_tile_for_n(j->x->k, j->Cout).nr;
  pte_xnn_f32_gemm_region(j->x->k, n->packed.bytes, 0, cnt, 0, panels, (const float *)buf, j->kdim, res, j->Cout,
                          n->out_min, n->out_max);
  for (size_t r = 0; r < cnt; r++)
    memcpy((float *)j->o->data + px[r] * j->Cout, res + r * j->Cout, j->Cout * sizeof(float));
}

static void conv_tile(void *ctx, size_t item, int tid) {
  const conv_job *j = (const conv_job *)ctx;
  const pte_xnn_node *n = j->n;
  pte_xnn_exec *x = j->x;
  const size_t groups = n->n_groups;
  const size_t tiles_per_group = j->tiles;
  const size_t g = item / tiles_per_group, ti = item % tiles_per_group;
  const size_t m0 = ti * j->tile, m1 = m0 + j->tile < j->M ? m0 + j->tile : j->M;
  if (m0 >= m1 || g >= groups) return;
  const uint8_t *packed = n->packed.bytes + g * n->group_stride;
  const size_t es = n->variant == PTE_XNN_V_F32 ? 4 : 1;
  const size_t cin_off = g * j->gin;
  const size_t cout_off = g * j->gout;
  if (j->direct) {
    if (n->variant == PTE_XNN_V_F32)
      pte_xnn_f32_gemm_region(x->k, packed, m0, m1, 0, (j->gout + pte_xnn_f32_tile_for_n(x->k, j->gout).nr - 1) /
                                                            pte_xnn_f32_tile_for_n(x->k, j->gout).nr,
                              (const float *)j->a->data, j->Cin, (float *)j->o->data, j->Cout, n->out_min, n->out_max);
    if (n->variant == PTE_XNN_V_QS8) { /* the input rows are the GEMM A matrix: no im2col copy */
      pte_xnn_exec one = *x;
      one.threads = 1;
      one.pool = NULL;
      pte_xnn_qs8_gemm(&one, packed, m1 - m0, (const int8_t *)j->a->data + m0 * j->Cin, j->Cin,
                       (int8_t *)j->o->data + m0 * j->Cout, j->Cout, j->o->zero_point, n->qmin, n->qmax);
    }
    return;
  }
  uint8_t *buf = pte_xnn_scratch(x, tid);
  const pte_xnn_qrow *qrows = NULL;
  size_t rdiv = 1;
  if (n->variant == PTE_XNN_V_QD8) {
    qrows = (const pte_xnn_qrow *)(j->a->data + ((j->a->numel + 63) & ~(size_t)63));
    /* rows of quantization params: one per batch (num_nonbatch_dims 3) or one in all (4) */
    size_t inner = 1;
    for (int i = 4 - j->a->num_nonbatch_dims; i < 4; i++) inner *= j->a->shape[i];
    const size_t nrows = inner ? j->a->numel / inner : 1;
    rdiv = nrows ? j->M / nrows : j->M;
    if (rdiv == 0) rdiv = 1;
  }
  /* im2col rows m0..m1 into buf (row = kh x kw x gin values) */
  const size_t OHW = j->OH * j->OW;
  size_t pb = m0 / OHW, py = m0 % OHW / j->OW, px = m0 % j->OW; /* pixel m, stepped without divisions */
  for (size_t m = m0; m < m1; m++) {
    int32_t pad_q = 0;
    if (n->variant == PTE_XNN_V_QS8) pad_q = j->a->zero_point;
    if (n->variant == PTE_XNN_V_QD8) pad_q = qrows[m / rdiv].zero_point;
    im2col_at(j, pb, py, px, buf + (m - m0) * j->kdim * es, pad_q, cin_off);
    if (++px == j->OW) {
      px = 0;
      if (++py == j->OH) py = 0, pb++;
    }
  }
  const size_t rows = m1 - m0;
  if (n->variant == PTE_XNN_V_F32) {
    pte_xnn_f32_gemm_region(x->k, packed, 0, rows, 0,
                            (j->gout + pte_xnn_f32_tile_for_n(x->k, j->gout).nr - 1) / pte_xnn_f32_tile_for_n(x->k, j->gout).nr,
                            (const float *)buf,
                            j->kdim, (float *)j->o->data + m0 * j->Cout + cout_off, j->Cout, n->out_min, n->out_max);
  } else {
    /* int8 GEMMs run single-threaded inside a tile */
    pte_xnn_exec one = *x;
    one.threads = 1;
    one.pool = NULL;
    if (n->variant == PTE_XNN_V_QS8)
      pte_xnn_qs8_gemm(&one, packed, rows, (const int8_t *)buf, j->kdim, (int8_t *)j->o->data + m0 * j->Cout + cout_off,
                       j->Cout, j->o->zero_point, n->qmin, n->qmax);
    else
      pte_xnn_qd8_gemm(&one, packed, rows, (const int8_t *)buf, j->kdim, qrows, m0, rdiv,
                       (float *)j->o->data + m0 * j->Cout + cout_off, j->Cout, n->out_min, n->out_max);
  }
}

typedef struct dw_job {
  pte_xnn_exec *x;
  const pte_xnn_node *n;
  const pte_xnn_value *a, *o;
  size_t H, W, C, OH, OW;
} dw_job;

/* One output row (b, oy): the pixels whose horizontal taps are all inside the input run as one
 * multi-pixel kernel call (tap pointers advance by sw * C per pixel; kernel rows outside the
 * input are dropped with their weights); border pixels one by one over their valid taps. */
static void dw_rows(void *ctx, size_t item, int tid) {
  const dw_job *j = (const dw_job *)ctx;
  const pte_xnn_node *n = j->n;
  const pte_xnn_conv_params *p = &n->p.conv;
  const size_t b = item / j->OH, oy = item % j->OH;
  const float **in = (const float **)(void *)pte_xnn_scratch(j->x, tid);
  const float **wt = in + (size_t)p->kh * p->kw;
  const float *pk = (const float *)(n->packed.bytes + PTE_XNN_PACKED_HEADER_SIZE);
  const size_t C = j->C, kw = p->kw;
  const float *w = pk + C;
  const float *src = (const float *)j->a->data + b * j->H * j->W * C;
  float *dst = (float *)j->o->data + (b * j->OH + oy) * j->OW * C;
  const pte_xnn_vec_kernels *vk = j->x->vec;
  /* interior: ox * sw - pl >= 0 and ox * sw - pl + (kw - 1) * dw < W */
  const size_t span = (kw - 1) * p->dw + 1;
  size_t lo = (n->rt_pl + p->sw - 1) / p->sw, hi = 0;
  if (j->W + n->rt_pl >= span) hi = (j->W + n->rt_pl - span) / p->sw + 1;
  if (hi > j->OW) hi = j->OW;
  if (lo > hi) lo = hi;
  if (lo < hi) {
    size_t t = 0;
    for (size_t ky = 0; ky < p->kh; ky++) {
      const long iy = (long)(oy * p->sh + ky * p->dh) - (long)n->rt_pt;
      if (iy < 0 || iy >= (long)j->H) continue;
      for (size_t kx = 0; kx < kw; kx++, t++) {
        in[t] = src + ((size_t)iy * j->W + lo * p->sw - n->rt_pl + kx * p->dw) * C;
        wt[t] = w + (ky * kw + kx) * C;
      }
    }
    const size_t full = (size_t)p->kh * kw;
    const pte_xnn_f32_dw_fn fn = t == full && full == 9 ? vk->dw[PTE_XNN_DW_3X3]
                                 : t == full && full == 25 ? vk->dw[PTE_XNN_DW_5X5] : vk->dw[PTE_XNN_DW_ANY];
    fn(hi - lo, C, t, in, wt, p->sw * C, pk, dst + lo * C, C, n->out_min, n->out_max);
  }
  for (size_t ox = 0; ox < j->OW; ox++) {
    if (ox == lo && lo < hi) ox = hi;
    if (ox >= j->OW) break;
    size_t t = 0;
    for (size_t ky = 0; ky < p->kh; ky++) {
      const long iy = (long)(oy * p->sh + ky * p->dh) - (long)n->rt_pt;
      if (iy < 0 || iy >= (long)j->H) continue;
      for (size_t kx = 0; kx < kw; kx++) {
        const long ix = (long)(ox * p->sw + kx * p->dw) - (long)n->rt_pl;
        if (ix < 0 || ix >= (long)j->W) continue;
        in[t] = src + ((size_t)iy * j->W + (size_t)ix) * C;
        wt[t] = w + (ky * kw + kx) * C;
        t++;
      }
    }
    vk->dw[PTE_XNN_DW_ANY](1, C, t, in, wt, 0, pk, dst + ox * C, C, n->out_min, n->out_max);
  }
}

pte_status pte_xnn_run_conv(pte_xnn_exec *x, const pte_xnn_node *n) {
  pte_xnn_delegate *d = x->d;
  const pte_xnn_value *a = V(n->in[0]), *o = V(n->out[0]);
  const pte_xnn_conv_params *p = &n->p.conv;
  if (o->numel == 0) return PTE_OK;
  if (n->dwq) {
    pte_xnn_dwq_run(x, n);
    return PTE_OK;
  }
  if (n->as_dwconv) {
    dw_job j = {x, n, a, o, a->shape[1], a->shape[2], a->shape[3], o->shape[1], o->shape[2]};
    const size_t rows = a->shape[0] * j.OH, work = rows * j.OW * j.C * p->kh * p->kw;
    const size_t groups = x->threads > 1 && work >= ((size_t)1 << 15) ? (size_t)x->threads * 8 : 1;
    pte_xnn_parallel_grouped(x->pool, dw_rows, &j, rows, groups);
    return PTE_OK;
  }
  conv_job j;
  memset(&j, 0, sizeof j);
  j.x = x, j.n = n, j.a = a, j.o = o;
  j.H = a->shape[1], j.W = a->shape[2], j.Cin = a->shape[3];
  j.OH = o->shape[1], j.OW = o->shape[2], j.Cout = o->shape[3];
  j.M = a->shape[0] * j.OH * j.OW;
  const bool dw = n->type == pte_xn_XNodeUnion_XNNDepthwiseConv2d;
  j.gin = dw ? 1 : p->gic;
  j.gout = dw ? p->goc / p->gic : p->goc;
  j.kdim = (size_t)p->kh * p->kw * j.gin;
  const size_t es = n->variant == PTE_XNN_V_F32 ? 4 : 1;
  j.direct = (n->variant == PTE_XNN_V_F32 || n->variant == PTE_XNN_V_QS8) && n->n_groups == 1 && p->kh == 1 && p->kw == 1 && p->sh == 1 && p->sw == 1 &&
             n->rt_pt == 0 && n->rt_pl == 0 && j.OH == j.H && j.OW == j.W;
  j.tile = j.direct ? (j.M < 256 ? j.M : 256) : pte_xnn_conv_tile_rows(x->k, j.kdim, es);
  if (j.tile == 0) j.tile = 1;
  j.tiles = (j.M + j.tile - 1) / j.tile;
  if (x->threads > 1 && j.tiles * n->n_groups < (size_t)x->threads * 2) {
    /* few tiles (a small image): smaller ones so that every thread gets some, when the node is
     * large enough to pay for the hand-off (~64K multiply-adds, a few microseconds) */
    const size_t macs = j.M * j.kdim * j.gout * n->n_groups;
    size_t mr = x->k->f32_mr > x->k->i8_mr ? x->k->f32_mr : x->k->i8_mr;
    if (x->k->f32n_mr > mr) mr = x->k->f32n_mr;
    const size_t per_group = ((size_t)x->threads * 2 + n->n_groups - 1) / n->n_groups;
    size_t t = (j.M + per_group - 1) / per_group;
    t = (t + mr - 1) / mr * mr;
    if (macs >= ((size_t)1 << 16) && t < j.tile) {
      j.tile = t;
      j.tiles = (j.M + j.tile - 1) / j.tile;
    }
  }
  if (!j.direct && n->variant == PTE_XNN_V_F32 && n->n_groups == 1 && j.gin == j.Cin && p->dw == 1 && p->kh <= 64) {
    pte_xnn_parallel(x->threads > 1 ? x->pool : NULL, conv_row, &j, a->shape[0] * j.OH);
    size_t lo, hi;
    conv_row_interior(&j, &lo, &hi);
    conv_job jb = j;
    jb.tile = pte_xnn_conv_tile_rows(x->k, j.kdim, 4);
    if (jb.tile > 256) jb.tile = 256;
    jb.tiles = a->shape[0] * j.OH * (lo + (j.OW - hi)); /* border pixels (conv_borders) */
    if (x->threads > 1 && jb.tiles > 0) {
      /* a small image's borders fit one tile: split them so that every thread gets a share */
      const size_t mr = x->k->f32n_mr > x->k->f32_mr ? x->k->f32n_mr : x->k->f32_mr;
      size_t t = (jb.tiles + (size_t)x->threads - 1) / (size_t)x->threads;
      t = (t + mr - 1) / mr * mr;
      if (t < jb.tile) jb.tile = t;
    }
    if (jb.tiles > 0 && jb.tile > 0)
      pte_xnn_parallel(x->threads > 1 ? x->pool : NULL, conv_borders, &jb, (jb.tiles + jb.tile - 1) / jb.tile);
    return PTE_OK;
  }
  pte_xnn_parallel(x->threads > 1 ? x->pool : NULL, conv_tile, &j, j.tiles * n->n_groups);
  return PTE_OK;
}

