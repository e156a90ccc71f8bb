/* test_xnnpack_ref.h — a naive, test-only evaluator of XNNPACK delegate graphs.
 *
 * Reads the blob's XNNGraph with the generated accessors and evaluates every node with plain
 * double-precision loops straight from the operator definitions (no packing, no blocking, no SIMD,
 * nothing shared with backends/xnnpack), so the backend's outputs can be checked against it.
 * Quantized tensors carry both integer values and their real values.
 */
#ifndef PTE_TEST_XNNPACK_REF_H
#define PTE_TEST_XNNPACK_REF_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "format/flatbuf.h"
#include "pte/named_data_map.h"
#include "pte_gen/xnnpack_gen.h"

#define XR_MAXD 6

typedef struct xr_val {
  int dtype;
  int rank;
  size_t dims[XR_MAXD];
  size_t numel;
  double *x;     /* real values */
  int32_t *q;    /* integer values of quantized tensors */
  float scale;
  int32_t zp;
  float *cs;     /* per-channel scales */
  int cdim;
  int nb;        /* qdint8: num_nonbatch_dims */
  float *rs;     /* qdint8 per-row scale */
  int32_t *rz;   /* qdint8 per-row zero point */
  uint32_t id, ext, flags;
  int is_const;
} xr_val;

typedef struct xr_graph {
  pte_fb_table root;
  xr_val *v;
  size_t nv;
  char err[256];
} xr_graph;

/* external argument: real values (fp32) plus shape */
typedef struct xr_arg {
  int rank;
  size_t dims[XR_MAXD];
  const float *in;  /* inputs */
  double *out;      /* outputs (allocated by xr_run, free()) */
  size_t out_numel;
  size_t out_dims[XR_MAXD];
  int out_rank;
  int8_t *out_q;    /* quantized outputs (int8) when the output is qint8 */
} xr_arg;

static inline uint32_t xr_ld32(const uint8_t *p) {
  return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

static xr_val *xr_find(xr_graph *g, uint32_t id) {
  for (size_t i = 0; i < g->nv; i++)
    if (g->v[i].id == id) return &g->v[i];
  return NULL;
}

static inline void xr_alloc(xr_val *v) {
  v->numel = 1;
  for (int i = 0; i < v->rank; i++) v->numel *= v->dims[i];
  free(v->x);
  free(v->q);
  v->x = (double *)calloc(v->numel + 1, sizeof(double));
  v->q = (int32_t *)calloc(v->numel + 1, sizeof(int32_t));
}

static inline int32_t xr_qlo(const xr_val *v) { return v->dtype == 4 ? 0 : -128; }
static inline int32_t xr_qhi(const xr_val *v) { return v->dtype == 4 ? 255 : 127; }
static inline int xr_isq8(const xr_val *v) { return v->dtype == 3 || v->dtype == 4; }

/* quantize real r into v at i (round half to even, as the spec's lrintf in the default mode) */
static inline void xr_setq(xr_val *v, size_t i, double r) {
  float f = (float)r * (1.0f / v->scale) + (float)v->zp;
  if (!(f >= (float)xr_qlo(v))) f = (float)xr_qlo(v);
  if (f > (float)xr_qhi(v)) f = (float)xr_qhi(v);
  v->q[i] = (int32_t)lrintf(f);
  v->x[i] = (double)(v->q[i] - v->zp) * v->scale;
}

static inline void xr_set(xr_val *v, size_t i, double r) {
  if (xr_isq8(v)) xr_setq(v, i, r);
  else v->x[i] = (double)(float)r;
}

static inline void xr_free(xr_graph *g) {
  for (size_t i = 0; i < g->nv; i++) {
    free(g->v[i].x);
    free(g->v[i].q);
    free(g->v[i].cs);
    free(g->v[i].rs);
    free(g->v[i].rz);
  }
  free(g->v);
  g->v = NULL;
  g->nv = 0;
}

static inline double xr_clamp(double x, double lo, double hi) { return x < lo ? lo : (x > hi ? hi : x); }

/* Loads constants; returns 0 on success. */
static inline int xr_load(xr_graph *g, const uint8_t *blob, size_t size, const pte_named_data_map *ndm,
                   pte_freeable_buffer *keep, size_t *n_keep) {
  const uint8_t *fb = blob;
  size_t fbsize = size;
  const uint8_t *cdata = NULL;
  int has_header = size >= 30 && memcmp(blob + 4, "XH00", 4) == 0;
  if (has_header) {
    fb = blob + xr_ld32(blob + 10);
    fbsize = xr_ld32(blob + 14);
    cdata = blob + xr_ld32(blob + 18);
  }
  g->root = pte_fb_root(fb, fbsize);
  pte_fb_vec vals = pte_xn_XNNGraph_xvalues(g->root);
  g->nv = vals.len;
  g->v = (xr_val *)calloc(vals.len + 1, sizeof(xr_val));
  pte_fb_vec cd = pte_xn_XNNGraph_constant_data(g->root);
  for (uint32_t i = 0; i < vals.len; i++) {
    pte_fb_table xv = pte_fb_vec_table(vals, i);
    pte_fb_table u = pte_xn_XValue_xvalue_union(xv), tv = u, qp = {0};
    int qt = 0;
    if (pte_xn_XValue_xvalue_union_type(xv) == pte_xn_XValueUnion_XNNQuantizedTensorValue) {
      tv = pte_xn_XNNQuantizedTensorValue_tensor_value(u);
      qt = pte_xn_XNNQuantizedTensorValue_quant_params_type(u);
      qp = pte_xn_XNNQuantizedTensorValue_quant_params(u);
    }
    xr_val *v = &g->v[i];
    v->dtype = pte_xn_XNNTensorValue_datatype(tv);
    pte_fb_vec dims = pte_xn_XNNTensorValue_dims(tv);
    v->rank = (int)(dims.present ? dims.len : 0);
    for (int k = 0; k < v->rank; k++) v->dims[k] = pte_fb_vec_u32(dims, (uint32_t)k);
    v->id = pte_xn_XNNTensorValue_id_out(tv);
    if (pte_xn_XNNTensorValue_dq_datatype(tv) == 3) v->nb = -1; /* legacy: quantized per row on input */
    v->ext = pte_xn_XNNTensorValue_external_id(tv);
    v->flags = pte_xn_XNNTensorValue_flags(tv);
    v->scale = 1.0f;
    if (qt == pte_xn_XNNQuantParams_PerTensorQuant) {
      v->scale = pte_xn_PerTensorQuant_scale(qp);
      v->zp = pte_xn_PerTensorQuant_zero_point(qp);
    } else if (qt == pte_xn_XNNQuantParams_PerChannelQuant) {
      pte_fb_vec s = pte_xn_PerChannelQuant_scale(qp);
      v->cdim = pte_xn_PerChannelQuant_channel_dim(qp);
      v->cs = (float *)calloc(s.len + 1, sizeof(float));
      for (uint32_t k = 0; k < s.len; k++) {
        uint32_t bits = pte_fb_vec_u32(s, k);
        memcpy(&v->cs[k], &bits, 4);
      }
    } else if (qt == pte_xn_XNNQuantParams_PerTokenDynamicQuant) {
      v->nb = pte_xn_PerTokenDynamicQuant_num_nonbatch_dims(qp);
    }
    xr_alloc(v);
    uint32_t cbi = pte_xn_XNNTensorValue_constant_buffer_idx(tv);
    if (!cbi) continue;
    v->is_const = 1;
    const uint8_t *p = NULL;
    if (has_header) {
      pte_fb_table e = pte_fb_vec_table(cd, cbi);
      pte_fb_str key = pte_xn_ConstantDataOffset_named_key(e);
      if (key.ptr && key.len) {
        pte_freeable_buffer b;
        if (pte_named_data_map_get_data(ndm, key.ptr, &b) != PTE_OK) {
          snprintf(g->err, sizeof g->err, "named key %s missing", key.ptr);
          return -1;
        }
        keep[(*n_keep)++] = b;
        p = (const uint8_t *)b.data;
      } else {
        p = cdata + pte_xn_ConstantDataOffset_offset(e);
      }
    } else {
      pte_fb_vec cb = pte_xn_XNNGraph_constant_buffer(g->root);
      p = pte_fb_vec_data(pte_xn_Buffer_storage(pte_fb_vec_table(cb, cbi)));
    }
    size_t inner = 1;
    if (v->cs)
      for (int k = v->cdim + 1; k < v->rank; k++) inner *= v->dims[k];
    for (size_t k = 0; k < v->numel; k++) {
      if (v->dtype == 1) {
        float f;
        memcpy(&f, p + 4 * k, 4);
        v->x[k] = f;
      } else if (v->dtype == 3 || v->dtype == 6) {
        v->q[k] = ((const int8_t *)p)[k];
        float s = v->cs ? v->cs[(k / inner) % v->dims[v->cdim]] : v->scale;
        v->x[k] = (double)(v->q[k] - (v->cs ? 0 : v->zp)) * s;
      } else if (v->dtype == 4) {
        v->q[k] = p[k];
        v->x[k] = (double)(v->q[k] - v->zp) * v->scale;
      } else if (v->dtype == 5 || v->dtype == 7) {
        int32_t q;
        memcpy(&q, p + 4 * k, 4);
        v->q[k] = q;
        v->x[k] = (double)q * (v->cs ? v->cs[k] : v->scale);
      }
    }
  }
  return 0;
}

static inline size_t xr_off(const xr_val *v, const size_t *idx, int orank) {
  /* broadcast read: idx is an index of an output of rank orank */
  size_t off = 0;
  for (int i = 0; i < v->rank; i++) {
    int oi = i + (orank - v->rank);
    size_t x = v->dims[i] == 1 ? 0 : idx[oi];
    off = off * v->dims[i] + x;
  }
  return off;
}

static inline int xr_next(size_t *idx, const size_t *dims, int rank) {
  for (int i = rank - 1; i >= 0; i--) {
    if (++idx[i] < dims[i]) return 1;
    idx[i] = 0;
  }
  return 0;
}

/* the qd8 conversion rule: per row, range includes 0, 255 steps, zero point nudged to an integer */
static inline void xr_qd8_row(const double *row, size_t n, float *scale, int32_t *zp, int32_t *q) {
  float mn = 0.0f, mx = 0.0f;
  for (size_t i = 0; i < n; i++) {
    float f = (float)row[i];
    mn = f < mn ? f : mn;
    mx = f > mx ? f : mx;
  }
  const float inv = mn == mx ? 1.0f : 255.0f / (mx - mn);
  const float a = mn * inv, b = mx * inv;
  float z = (-128.0f + a) + (127.0f + b) > 0.0f ? -128.0f - a : 127.0f - b;
  z = z < -128.0f ? -128.0f : (z > 127.0f ? 127.0f : z);
  *zp = (int32_t)lrintf(z);
  *scale = 1.0f / inv;
  for (size_t i = 0; i < n; i++) {
    float f = (float)row[i] * inv + (float)*zp;
    f = f < -128.0f ? -128.0f : (f > 127.0f ? 127.0f : f);
    q[i] = (int32_t)lrintf(f);
  }
}

/* int32 accumulator -> output of a quantized FC/conv (fp32 requantization rule) */
static inline void xr_requant(xr_val *o, size_t idx, int64_t acc, float in_scale, float w_scale, double lo, double hi) {
  float req = (float)((double)in_scale * (double)w_scale / (double)o->scale);
  float l2 = (float)(lo / o->scale + o->zp), h2 = (float)(hi / o->scale + o->zp);
  l2 = l2 < -128 ? -128 : (l2 > 127 ? 127 : l2);
  h2 = h2 < -128 ? -128 : (h2 > 127 ? 127 : h2);
  float qlo = (float)(lrintf(l2) - o->zp), qhi = (float)(lrintf(h2) - o->zp);
  float f = (float)acc * req;
  f = f < qlo ? qlo : (f > qhi ? qhi : f);
  o->q[idx] = (int32_t)lrintf(f) + o->zp;
  o->x[idx] = (double)(o->q[idx] - o->zp) * o->scale;
}

static inline int xr_node(xr_graph *g, pte_fb_table xn) {
  unsigned t = pte_xn_XNode_xnode_union_type(xn);
  pte_fb_table p = pte_xn_XNode_xnode_union(xn);
  double lo = -INFINITY, hi = INFINITY;
  pte_fb_table mm = pte_xn_XNode_output_min_max(xn);
  if (pte_fb_table_present(mm)) {
    lo = pte_xn_OutputMinMax_output_min(mm);
    hi = pte_xn_OutputMinMax_output_max(mm);
  }
  switch (t) {
    case pte_xn_XNodeUnion_XNNAdd:
    case pte_xn_XNodeUnion_XNNSubtract:
    case pte_xn_XNodeUnion_XNNMultiply:
    case pte_xn_XNodeUnion_XNNDiv:
    case pte_xn_XNodeUnion_XNNMinimum:
    case pte_xn_XNodeUnion_XNNMaximum:
    case pte_xn_XNodeUnion_XNNPReLU: {
      xr_val *a = xr_find(g, pte_xn__XNNNode2x1_input1_id(p)), *b = xr_find(g, pte_xn__XNNNode2x1_input2_id(p));
      xr_val *o = xr_find(g, pte_xn__XNNNode2x1_output_id(p));
      int r = a->rank > b->rank ? a->rank : b->rank;
      o->rank = r;
      for (int i = 0; i < r; i++) {
        size_t da = i < r - a->rank ? 1 : a->dims[i - (r - a->rank)];
        size_t db = i < r - b->rank ? 1 : b->dims[i - (r - b->rank)];
        o->dims[i] = da == 1 ? db : da;
      }
      xr_alloc(o);
      size_t idx[XR_MAXD] = {0};
      for (size_t k = 0; k < o->numel; k++) {
        double x = a->x[xr_off(a, idx, r)], y = b->x[xr_off(b, idx, r)], z;
        switch (t) {
          case pte_xn_XNodeUnion_XNNAdd: z = x + y; break;
          case pte_xn_XNodeUnion_XNNSubtract: z = x - y; break;
          case pte_xn_XNodeUnion_XNNMultiply: z = x * y; break;
          case pte_xn_XNodeUnion_XNNDiv: z = x / y; break;
          case pte_xn_XNodeUnion_XNNMinimum: z = x < y ? x : y; break;
          case pte_xn_XNodeUnion_XNNMaximum: z = x > y ? x : y; break;
          default: z = x < 0 ? x * y : x; break;
        }
        xr_set(o, k, xr_clamp(z, lo, hi));
        xr_next(idx, o->dims, r);
      }
      return 0;
    }
    case pte_xn_XNodeUnion_XNNFullyConnected: {
      xr_val *a = xr_find(g, pte_xn_XNNFullyConnected_input1_id(p)), *w = xr_find(g, pte_xn_XNNFullyConnected_filter_id(p));
      uint32_t bid = pte_xn_XNNFullyConnected_bias_id(p);
      xr_val *b = bid == 0xFFFFFFFFu ? NULL : xr_find(g, bid), *o = xr_find(g, pte_xn_XNNFullyConnected_output_id(p));
      int tr = (pte_xn_XNNFullyConnected_flags(p) & 1) != 0;
      size_t n = tr ? w->dims[1] : w->dims[0], k = tr ? w->dims[0] : w->dims[1];
      o->rank = a->rank;
      memcpy(o->dims, a->dims, sizeof o->dims);
      o->dims[o->rank - 1] = n;
      xr_alloc(o);
      size_t m = a->numel / k;
      size_t rows = 1, rdiv = 1;
      if (a->dtype == 9) {
        size_t inner = 1;
        for (int i = a->rank - a->nb; i < a->rank; i++) inner *= a->dims[i];
        rows = a->numel / inner;
        rdiv = m / rows;
      }
      for (size_t i = 0; i < m; i++)
        for (size_t j = 0; j < n; j++) {
          if (a->dtype == 1) {
            double s = b ? b->x[j] : 0.0;
            for (size_t q = 0; q < k; q++) s += a->x[i * k + q] * w->x[tr ? q * n + j : j * k + q];
            o->x[i * n + j] = xr_clamp(s, lo, hi);
          } else if (a->dtype == 3) {
            int64_t acc = b ? b->q[j] : 0;
            for (size_t q = 0; q < k; q++) acc += (int64_t)(a->q[i * k + q] - a->zp) * w->q[tr ? q * n + j : j * k + q];
            xr_requant(o, i * n + j, acc, a->scale, w->cs ? w->cs[j] : w->scale, lo, hi);
          } else { /* qdint8 x qcint8 */
            int64_t acc = 0;
            size_t r = i / rdiv;
            for (size_t q = 0; q < k; q++) acc += (int64_t)(a->q[i * k + q] - a->rz[r]) * w->q[tr ? q * n + j : j * k + q];
            float ws = w->cs ? w->cs[j] : w->scale;
            double s = (double)acc * (double)a->rs[r] * (double)ws + (b ? b->x[j] : 0.0);
            o->x[i * n + j] = xr_clamp(s, lo, hi);
          }
        }
      return 0;
    }
    case pte_xn_XNodeUnion_XNNConv2d:
    case pte_xn_XNodeUnion_XNNDepthwiseConv2d: {
      xr_val *a = xr_find(g, pte_xn__XNNNodeConv_input1_id(p)), *w = xr_find(g, pte_xn__XNNNodeConv_filter_id(p));
      uint32_t bid = pte_xn__XNNNodeConv_bias_id(p);
      xr_val *b = bid == 0xFFFFFFFFu ? NULL : xr_find(g, bid), *o = xr_find(g, pte_xn__XNNNodeConv_output_id(p));
      size_t pt = pte_xn__XNNNodeConv_padding_top(p), pl = pte_xn__XNNNodeConv_padding_left(p);
      size_t pb = pte_xn__XNNNodeConv_padding_bottom(p), pr = pte_xn__XNNNodeConv_padding_right(p);
      size_t kh = pte_xn__XNNNodeConv_kernel_height(p), kw = pte_xn__XNNNodeConv_kernel_width(p);
      size_t sh = pte_xn__XNNNodeConv_subsampling_height(p), sw = pte_xn__XNNNodeConv_subsampling_width(p);
      size_t dh = pte_xn__XNNNodeConv_dilation_height(p), dw = pte_xn__XNNNodeConv_dilation_width(p);
      size_t gic = pte_xn__XNNNodeConv_group_input_channels(p), goc = pte_xn__XNNNodeConv_group_output_channels(p);
      size_t groups = pte_xn__XNNNodeConv_groups(p);
      sh = sh ? sh : 1, sw = sw ? sw : 1, dh = dh ? dh : 1, dw = dw ? dw : 1;
      int dwc = t == pte_xn_XNodeUnion_XNNDepthwiseConv2d;
      size_t N = a->dims[0], H = a->dims[1], W = a->dims[2], C = a->dims[3];
      size_t cout = dwc ? groups * (goc / gic) : groups * goc, mult = dwc ? goc / gic : 0;
      size_t OH = (H + pt + pb - ((kh - 1) * dh + 1)) / sh + 1, OW = (W + pl + pr - ((kw - 1) * dw + 1)) / sw + 1;
      o->rank = 4;
      o->dims[0] = N, o->dims[1] = OH, o->dims[2] = OW, o->dims[3] = cout;
      xr_alloc(o);
      for (size_t n = 0; n < N; n++)
        for (size_t oy = 0; oy < OH; oy++)
          for (size_t ox = 0; ox < OW; ox++)
            for (size_t oc = 0; oc < cout; oc++) {
              /* quantized inputs: integer products of (q - zero point) and int8 weights */
              const int quant = a->dtype == 3 || a->dtype == 9;
              const int32_t zrow = a->dtype == 9 ? a->rz[(a->nb >= 4) ? 0 : n] : a->zp;
              double s = b ? b->x[oc] : 0.0;
              int64_t acc = quant && a->dtype == 3 && b ? b->q[oc] : 0;
              for (size_t ky = 0; ky < kh; ky++)
                for (size_t kx = 0; kx < kw; kx++) {
                  long iy = (long)(oy * sh + ky * dh) - (long)pt, ix = (long)(ox * sw + kx * dw) - (long)pl;
                  if (iy < 0 || ix < 0 || iy >= (long)H || ix >= (long)W) continue;
                  const size_t base = ((n * H + (size_t)iy) * W + (size_t)ix) * C;
                  const double *src = a->x + base;
                  if (dwc) {
                    const size_t wi = (ky * kw + kx) * cout + oc;
                    if (quant) acc += (int64_t)(a->q[base + oc / mult] - zrow) * w->q[wi];
                    else s += src[oc / mult] * w->x[wi];
                  } else {
                    size_t gi = oc / goc;
                    for (size_t ic = 0; ic < gic; ic++) {
                      const size_t wi = ((oc * kh + ky) * kw + kx) * gic + ic;
                      if (quant) acc += (int64_t)(a->q[base + gi * gic + ic] - zrow) * w->q[wi];
                      else s += src[gi * gic + ic] * w->x[wi];
                    }
                  }
                }
              const size_t oi = ((n * OH + oy) * OW + ox) * cout + oc;
              const float ws = w->cs ? w->cs[oc] : w->scale;
              if (a->dtype == 3) xr_requant(o, oi, acc, a->scale, ws, lo, hi);
              else if (a->dtype == 9)
                o->x[oi] = xr_clamp((double)acc * (double)a->rs[(a->nb >= 4) ? 0 : n] * (double)ws + s, lo, hi);
              else o->x[oi] = xr_clamp(s, lo, hi);
            }
      return 0;
    }
    case pte_xn_XNodeUnion_XNNMaxPooling2d:
    case pte_xn_XNodeUnion_XNNAvgPooling2d: {
      xr_val *a = xr_find(g, pte_xn__XNNPooling2D_input_id(p)), *o = xr_find(g, pte_xn__XNNPooling2D_output_id(p));
      size_t pt = pte_xn__XNNPooling2D_padding_top(p), pl = pte_xn__XNNPooling2D_padding_left(p);
      size_t pb = pte_xn__XNNPooling2D_padding_bottom(p), pr = pte_xn__XNNPooling2D_padding_right(p);
      size_t kh = pte_xn__XNNPooling2D_pooling_height(p), kw = pte_xn__XNNPooling2D_pooling_width(p);
      size_t sh = pte_xn__XNNPooling2D_stride_height(p), sw = pte_xn__XNNPooling2D_stride_width(p);
      size_t dh = pte_xn__XNNPooling2D_dilation_height(p), dw = pte_xn__XNNPooling2D_dilation_width(p);
      sh = sh ? sh : 1, sw = sw ? sw : 1, dh = dh ? dh : 1, dw = dw ? dw : 1;
      size_t N = a->dims[0], H = a->dims[1], W = a->dims[2], C = a->dims[3];
      size_t OH = (H + pt + pb - ((kh - 1) * dh + 1)) / sh + 1, OW = (W + pl + pr - ((kw - 1) * dw + 1)) / sw + 1;
      o->rank = 4;
      o->dims[0] = N, o->dims[1] = OH, o->dims[2] = OW, o->dims[3] = C;
      xr_alloc(o);
      for (size_t n = 0; n < N; n++)
        for (size_t oy = 0; oy < OH; oy++)
          for (size_t ox = 0; ox < OW; ox++)
            for (size_t c = 0; c < C; c++) {
              double s = t == pte_xn_XNodeUnion_XNNMaxPooling2d ? -INFINITY : 0.0;
              size_t cnt = 0;
              for (size_t ky = 0; ky < kh; ky++)
                for (size_t kx = 0; kx < kw; kx++) {
                  long iy = (long)(oy * sh + ky * dh) - (long)pt, ix = (long)(ox * sw + kx * dw) - (long)pl;
                  if (iy < 0 || ix < 0 || iy >= (long)H || ix >= (long)W) continue;
                  double v = a->x[((n * H + (size_t)iy) * W + (size_t)ix) * C + c];
                  if (t == pte_xn_XNodeUnion_XNNMaxPooling2d) s = v > s ? v : s;
                  else s += v;
                  cnt++;
                }
              if (t == pte_xn_XNodeUnion_XNNAvgPooling2d) s = cnt ? s / (double)cnt : 0.0;
              xr_set(o, ((n * OH + oy) * OW + ox) * C + c, xr_clamp(s, lo, hi));
            }
      return 0;
    }
    case pte_xn_XNodeUnion_XNNGlobalAvgPooling2d: {
      xr_val *a = xr_find(g, pte_xn__XNNNode1x1_input_id(p)), *o = xr_find(g, pte_xn__XNNNode1x1_output_id(p));
      size_t N = a->dims[0], HW = a->dims[1] * a->dims[2], C = a->dims[3];
      if (o->rank == 4) o->dims[0] = N, o->dims[1] = 1, o->dims[2] = 1, o->dims[3] = C;
      else o->dims[0] = N, o->dims[1] = C;
      xr_alloc(o);
      for (size_t n = 0; n < N; n++)
        for (size_t c = 0; c < C; c++) {
          double s = 0;
          for (size_t i = 0; i < HW; i++) s += a->x[(n * HW + i) * C + c];
          xr_set(o, n * C + c, xr_clamp(s / (double)HW, lo, hi));
        }
      return 0;
    }
    case pte_xn_XNodeUnion_XNNStaticTranspose: {
      xr_val *a = xr_find(g, pte_xn_XNNStaticTranspose_input_id(p)), *o = xr_find(g, pte_xn_XNNStaticTranspose_output_id(p));
      pte_fb_vec pv = pte_xn_XNNStaticTranspose_perm(p);
      size_t perm[XR_MAXD];
      o->rank = a->rank;
      for (int i = 0; i < a->rank; i++) perm[i] = pte_fb_vec_u32(pv, (uint32_t)i), o->dims[i] = a->dims[perm[i]];
      xr_alloc(o);
      size_t idx[XR_MAXD] = {0};
      for (size_t k = 0; k < o->numel; k++) {
        size_t ai[XR_MAXD], off = 0;
        for (int i = 0; i < a->rank; i++) ai[perm[i]] = idx[i];
        for (int i = 0; i < a->rank; i++) off = off * a->dims[i] + ai[i];
        o->x[k] = a->x[off];
        o->q[k] = a->q[off];
        xr_next(idx, o->dims, o->rank);
      }
      return 0;
    }
    case pte_xn_XNodeUnion_XNNStaticReshape: {
      xr_val *a = xr_find(g, pte_xn_XNNStaticReshape_input_id(p)), *o = xr_find(g, pte_xn_XNNStaticReshape_output_id(p));
      pte_fb_vec ns = pte_xn_XNNStaticReshape_new_shape(p);
      o->rank = (int)ns.len;
      size_t known = 1;
      int z = -1;
      for (int i = 0; i < o->rank; i++) {
        o->dims[i] = pte_fb_vec_u32(ns, (uint32_t)i);
        if (o->dims[i]) known *= o->dims[i];
        else z = i;
      }
      if (z >= 0) o->dims[z] = a->numel / known;
      xr_alloc(o);
      memcpy(o->x, a->x, a->numel * sizeof(double));
      memcpy(o->q, a->q, a->numel * sizeof(int32_t));
      return 0;
    }
    case pte_xn_XNodeUnion_XNNStaticSlice: {
      xr_val *a = xr_find(g, pte_xn_XNNStaticSlice_input_id(p)), *o = xr_find(g, pte_xn_XNNStaticSlice_output_id(p));
      pte_fb_vec ov = pte_xn_XNNStaticSlice_offsets(p), sv = pte_xn_XNNStaticSlice_sizes(p);
      size_t off[XR_MAXD];
      o->rank = a->rank;
      for (int i = 0; i < a->rank; i++) {
        off[i] = pte_fb_vec_u32(ov, (uint32_t)i);
        size_t s = pte_fb_vec_u32(sv, (uint32_t)i);
        o->dims[i] = s ? s : a->dims[i] - off[i];
      }
      xr_alloc(o);
      size_t idx[XR_MAXD] = {0};
      for (size_t k = 0; k < o->numel; k++) {
        size_t src = 0;
        for (int i = 0; i < a->rank; i++) src = src * a->dims[i] + idx[i] + off[i];
        o->x[k] = a->x[src];
        o->q[k] = a->q[src];
        xr_next(idx, o->dims, o->rank);
      }
      return 0;
    }
    case pte_xn_XNodeUnion_XNNStaticConstantPad: {
      xr_val *a = xr_find(g, pte_xn_XNNStaticConstantPad_input_id(p)), *o = xr_find(g, pte_xn_XNNStaticConstantPad_output_id(p));
      pte_fb_vec pre = pte_xn_XNNStaticConstantPad_pre_paddings(p), post = pte_xn_XNNStaticConstantPad_post_paddings(p);
      double val = pte_xn_XNNStaticConstantPad_padding_value(p);
      o->rank = a->rank;
      size_t pr[XR_MAXD];
      for (int i = 0; i < a->rank; i++) {
        pr[i] = pte_fb_vec_u32(pre, (uint32_t)i);
        o->dims[i] = a->dims[i] + pr[i] + pte_fb_vec_u32(post, (uint32_t)i);
      }
      xr_alloc(o);
      size_t idx[XR_MAXD] = {0};
      for (size_t k = 0; k < o->numel; k++) {
        int inside = 1;
        size_t src = 0;
        for (int i = 0; i < a->rank; i++) {
          if (idx[i] < pr[i] || idx[i] >= pr[i] + a->dims[i]) inside = 0;
          else src = src * a->dims[i] + idx[i] - pr[i];
        }
        if (inside) o->x[k] = a->x[src], o->q[k] = a->q[src];
        else xr_set(o, k, val);
        xr_next(idx, o->dims, o->rank);
      }
      return 0;
    }
    case pte_xn_XNodeUnion_XNNConcatenate2:
    case pte_xn_XNodeUnion_XNNConcatenate3:
    case pte_xn_XNodeUnion_XNNConcatenate4:
    case pte_xn_XNodeUnion_XNNConcatenate5: {
      unsigned k = t == pte_xn_XNodeUnion_XNNConcatenate2 ? 2 : t == pte_xn_XNodeUnion_XNNConcatenate3 ? 3
                 : t == pte_xn_XNodeUnion_XNNConcatenate4 ? 4 : 5;
      uint32_t ids[5] = {pte_xn__XNNCat_input1_id(p), pte_xn__XNNCat_input2_id(p), pte_xn__XNNCat_input3_id(p),
                         pte_xn__XNNCat_input4_id(p), pte_xn__XNNCat_input5_id(p)};
      size_t ax = pte_xn__XNNCat_axis(p);
      xr_val *o = xr_find(g, pte_xn__XNNCat_output_id(p)), *a0 = xr_find(g, ids[0]);
      o->rank = a0->rank;
      memcpy(o->dims, a0->dims, sizeof o->dims);
      o->dims[ax] = 0;
      for (unsigned i = 0; i < k; i++) o->dims[ax] += xr_find(g, ids[i])->dims[ax];
      xr_alloc(o);
      size_t idx[XR_MAXD] = {0};
      for (size_t e = 0; e < o->numel; e++) {
        size_t c = idx[ax];
        unsigned which = 0;
        while (c >= xr_find(g, ids[which])->dims[ax]) c -= xr_find(g, ids[which++])->dims[ax];
        xr_val *a = xr_find(g, ids[which]);
        size_t src = 0;
        for (int i = 0; i < a->rank; i++) src = src * a->dims[i] + ((size_t)i == ax ? c : idx[i]);
        o->x[e] = a->x[src];
        o->q[e] = a->q[src];
        xr_next(idx, o->dims, o->rank);
      }
      return 0;
    }
    case pte_xn_XNodeUnion_XNNConvert: {
      xr_val *a = xr_find(g, pte_xn__XNNNode1x1_input_id(p)), *o = xr_find(g, pte_xn__XNNNode1x1_output_id(p));
      o->rank = a->rank;
      memcpy(o->dims, a->dims, sizeof o->dims);
      xr_alloc(o);
      if (o->dtype == 9) {
        size_t inner = 1;
        for (int i = o->rank - o->nb; i < o->rank; i++) inner *= o->dims[i];
        size_t rows = o->numel / inner;
        free(o->rs);
        free(o->rz);
        o->rs = (float *)calloc(rows + 1, sizeof(float));
        o->rz = (int32_t *)calloc(rows + 1, sizeof(int32_t));
        for (size_t r = 0; r < rows; r++) xr_qd8_row(a->x + r * inner, inner, &o->rs[r], &o->rz[r], o->q + r * inner);
        return 0;
      }
      for (size_t k = 0; k < a->numel; k++) xr_set(o, k, a->x[k]);
      return 0;
    }
    case pte_xn_XNodeUnion_XNNSoftmax: {
      xr_val *a = xr_find(g, pte_xn__XNNNode1x1_input_id(p)), *o = xr_find(g, pte_xn__XNNNode1x1_output_id(p));
      o->rank = a->rank;
      memcpy(o->dims, a->dims, sizeof o->dims);
      xr_alloc(o);
      size_t c = a->dims[a->rank - 1];
      for (size_t r = 0; r < a->numel / c; r++) {
        double mx = -INFINITY, s = 0;
        for (size_t i = 0; i < c; i++) mx = a->x[r * c + i] > mx ? a->x[r * c + i] : mx;
        for (size_t i = 0; i < c; i++) s += exp(a->x[r * c + i] - mx);
        for (size_t i = 0; i < c; i++) o->x[r * c + i] = exp(a->x[r * c + i] - mx) / s;
      }
      return 0;
    }
    case pte_xn_XNodeUnion_XNNStaticResizeBilinear2D: {
      xr_val *a = xr_find(g, pte_xn_XNNStaticResizeBilinear2D_input_id(p));
      xr_val *o = xr_find(g, pte_xn_XNNStaticResizeBilinear2D_output_id(p));
      size_t N = a->dims[0], H = a->dims[1], W = a->dims[2], C = a->dims[3];
      size_t OH = pte_xn_XNNStaticResizeBilinear2D_new_height(p), OW = pte_xn_XNNStaticResizeBilinear2D_new_width(p);
      int align = (pte_xn_XNNStaticResizeBilinear2D_flags(p) & 8) != 0;
      o->rank = 4;
      o->dims[0] = N, o->dims[1] = OH, o->dims[2] = OW, o->dims[3] = C;
      xr_alloc(o);
      for (size_t n = 0; n < N; n++)
        for (size_t oy = 0; oy < OH; oy++)
          for (size_t ox = 0; ox < OW; ox++) {
            double fy = align ? (OH > 1 ? (double)oy * (H - 1) / (OH - 1) : 0) : ((double)oy + 0.5) * H / OH - 0.5;
            double fx = align ? (OW > 1 ? (double)ox * (W - 1) / (OW - 1) : 0) : ((double)ox + 0.5) * W / OW - 0.5;
            fy = fy < 0 ? 0 : fy;
            fx = fx < 0 ? 0 : fx;
            size_t y0 = (size_t)fy, x0 = (size_t)fx;
            y0 = y0 > H - 1 ? H - 1 : y0;
            x0 = x0 > W - 1 ? W - 1 : x0;
            size_t y1 = y0 + 1 < H ? y0 + 1 : H - 1, x1 = x0 + 1 < W ? x0 + 1 : W - 1;
            double ly = fy - y0, lx = fx - x0;
            for (size_t c = 0; c < C; c++) {
              double v00 = a->x[((n * H + y0) * W + x0) * C + c], v01 = a->x[((n * H + y0) * W + x1) * C + c];
              double v10 = a->x[((n * H + y1) * W + x0) * C + c], v11 = a->x[((n * H + y1) * W + x1) * C + c];
              o->x[((n * OH + oy) * OW + ox) * C + c] =
                  (v00 * (1 - lx) + v01 * lx) * (1 - ly) + (v10 * (1 - lx) + v11 * lx) * ly;
            }
          }
      return 0;
    }
    case pte_xn_XNodeUnion_XNNBatchMatrixMultiply: {
      xr_val *a = xr_find(g, pte_xn__XNNNode2x1_input1_id(p)), *b = xr_find(g, pte_xn__XNNNode2x1_input2_id(p));
      xr_val *o = xr_find(g, pte_xn__XNNNode2x1_output_id(p));
      int tr = (pte_xn__XNNNode2x1_flags(p) & 1) != 0;
      size_t m = a->dims[a->rank - 2], k = a->dims[a->rank - 1], n = tr ? b->dims[b->rank - 2] : b->dims[b->rank - 1];
      int br = (a->rank > b->rank ? a->rank : b->rank) - 2;
      o->rank = br + 2;
      for (int i = 0; i < br; i++) {
        int ia = i - (br - (a->rank - 2)), ib = i - (br - (b->rank - 2));
        size_t da = ia >= 0 ? a->dims[ia] : 1, db = ib >= 0 ? b->dims[ib] : 1;
        o->dims[i] = da == 1 ? db : da;
      }
      o->dims[br] = m, o->dims[br + 1] = n;
      xr_alloc(o);
      size_t idx[XR_MAXD] = {0};
      size_t nb = o->numel / (m * n);
      for (size_t bi = 0; bi < nb; bi++) {
        size_t oa = 0, ob = 0;
        for (int i = 0; i < a->rank - 2; i++) oa = oa * a->dims[i] + (a->dims[i] == 1 ? 0 : idx[i + br - (a->rank - 2)]);
        for (int i = 0; i < b->rank - 2; i++) ob = ob * b->dims[i] + (b->dims[i] == 1 ? 0 : idx[i + br - (b->rank - 2)]);
        for (size_t i = 0; i < m; i++)
          for (size_t j = 0; j < n; j++) {
            double s = 0;
            for (size_t q = 0; q < k; q++)
              s += a->x[oa * m * k + i * k + q] * b->x[ob * k * n + (tr ? j * k + q : q * n + j)];
            o->x[bi * m * n + i * n + j] = s;
          }
        xr_next(idx, o->dims, br);
      }
      return 0;
    }
    default: {
      /* unary kinds */
      uint32_t in_id, out_id;
      double alpha = 0;
      if (t == pte_xn_XNodeUnion_XNNELU) {
        in_id = pte_xn_XNNELU_input_id(p), out_id = pte_xn_XNNELU_output_id(p), alpha = pte_xn_XNNELU_alpha(p);
      } else if (t == pte_xn_XNodeUnion_XNNLeakyReLU) {
        in_id = pte_xn_XNNLeakyReLU_input_id(p), out_id = pte_xn_XNNLeakyReLU_output_id(p);
        alpha = pte_xn_XNNLeakyReLU_negative_slope(p);
      } else {
        in_id = pte_xn__XNNNode1x1_input_id(p), out_id = pte_xn__XNNNode1x1_output_id(p);
      }
      xr_val *a = xr_find(g, in_id), *o = xr_find(g, out_id);
      o->rank = a->rank;
      memcpy(o->dims, a->dims, sizeof o->dims);
      xr_alloc(o);
      for (size_t k = 0; k < a->numel; k++) {
        double x = a->x[k], y;
        switch (t) {
          case pte_xn_XNodeUnion_XNNSigmoid: y = 1.0 / (1.0 + exp(-x)); break;
          case pte_xn_XNodeUnion_XNNClamp: y = xr_clamp(x, lo, hi); break;
          case pte_xn_XNodeUnion_XNNFloor: y = floor(x); break;
          case pte_xn_XNodeUnion_XNNCeiling: y = ceil(x); break;
          case pte_xn_XNodeUnion_XNNSquareRoot: y = sqrt(x); break;
          case pte_xn_XNodeUnion_XNNReciprocalSquareRoot: y = 1.0 / sqrt(x); break;
          case pte_xn_XNodeUnion_XNNHardswish: y = x * xr_clamp(x + 3.0, 0.0, 6.0) / 6.0; break;
          case pte_xn_XNodeUnion_XNNNegate: y = -x; break;
          case pte_xn_XNodeUnion_XNNSquare: y = x * x; break;
          case pte_xn_XNodeUnion_XNNAbs: y = fabs(x); break;
          case pte_xn_XNodeUnion_XNNLog: y = log(x); break;
          case pte_xn_XNodeUnion_XNNExp: y = exp(x); break;
          case pte_xn_XNodeUnion_XNNSin: y = sin(x); break;
          case pte_xn_XNodeUnion_XNNTanh: y = tanh(x); break;
          case pte_xn_XNodeUnion_XNNGelu: y = 0.5 * x * (1.0 + erf(x / sqrt(2.0))); break;
          case pte_xn_XNodeUnion_XNNELU: y = x > 0 ? x : alpha * (exp(x) - 1.0); break;
          case pte_xn_XNodeUnion_XNNLeakyReLU: y = x < 0 ? x * alpha : x; break;
          default:
            snprintf(g->err, sizeof g->err, "reference: node kind %u not implemented", t);
            return -1;
        }
        xr_set(o, k, y);
      }
      return 0;
    }
  }
}

/* Evaluates the blob's graph. args[ext] give input values/shapes; outputs are allocated into
 * args[ext].out (free with free()). Returns 0 on success (g->err explains failures). */
static inline int xr_run(const uint8_t *blob, size_t size, const pte_named_data_map *ndm, xr_arg *args, size_t nargs,
                  char *errbuf, size_t errcap) {
  xr_graph g;
  memset(&g, 0, sizeof g);
  pte_freeable_buffer keep[256];
  size_t n_keep = 0;
  int rc = xr_load(&g, blob, size, ndm, keep, &n_keep);
  for (size_t i = 0; rc == 0 && i < g.nv; i++) {
    xr_val *v = &g.v[i];
    if (!(v->flags & 1)) continue;
    if (v->ext >= nargs) {
      snprintf(g.err, sizeof g.err, "missing arg %u", v->ext);
      rc = -1;
      break;
    }
    v->rank = args[v->ext].rank;
    memcpy(v->dims, args[v->ext].dims, sizeof v->dims);
    xr_alloc(v);
    for (size_t k = 0; k < v->numel; k++) v->x[k] = args[v->ext].in[k];
    if (v->nb == -1) { /* the legacy dq_datatype input becomes a per-row qdint8 value */
      size_t inner = v->rank ? v->dims[v->rank - 1] : 1, rows = inner ? v->numel / inner : 0;
      v->dtype = 9;
      v->nb = 1;
      v->rs = (float *)calloc(rows + 1, sizeof(float));
      v->rz = (int32_t *)calloc(rows + 1, sizeof(int32_t));
      for (size_t r = 0; r < rows; r++) xr_qd8_row(v->x + r * inner, inner, &v->rs[r], &v->rz[r], v->q + r * inner);
    }
  }
  pte_fb_vec nodes = pte_xn_XNNGraph_xnodes(g.root);
  for (uint32_t i = 0; rc == 0 && i < nodes.len; i++) rc = xr_node(&g, pte_fb_vec_table(nodes, i));
  for (size_t i = 0; rc == 0 && i < g.nv; i++) {
    xr_val *v = &g.v[i];
    if (!(v->flags & 2)) continue;
    xr_arg *a = &args[v->ext];
    a->out = (double *)malloc((v->numel + 1) * sizeof(double));
    memcpy(a->out, v->x, v->numel * sizeof(double));
    a->out_numel = v->numel;
    a->out_rank = v->rank;
    memcpy(a->out_dims, v->dims, sizeof a->out_dims);
  }
  if (rc && errbuf) snprintf(errbuf, errcap, "%s", g.err);
  for (size_t i = 0; i < n_keep; i++) pte_freeable_buffer_free(&keep[i]);
  xr_free(&g);
  return rc;
}

#endif
