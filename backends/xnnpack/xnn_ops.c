/* Per-node preparation (dtype checks, weight packing), shape inference and execution. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pte_gen/xnnpack_gen.h"
#include "xnn_internal.h"

#define V(i) (&d->values[(i)])
#define NERR(st, ...) pte_error_set(err, (st), __VA_ARGS__)

/* ============================================================================ helpers */

static void fmt_dims(char *buf, size_t cap, const size_t *dims, unsigned rank) {
  size_t o = 0;
  if (cap < 4) return;
  buf[o++] = '[';
  for (unsigned i = 0; i < rank; i++) {
    char tmp[24];
    int t = 0;
    size_t x = dims[i];
    do {
      tmp[t++] = (char)('0' + x % 10);
      x /= 10;
    } while (x && t < 23);
    if (o + (size_t)t + 3 >= cap) break;
    if (i) buf[o++] = ',';
    while (t) buf[o++] = tmp[--t];
  }
  buf[o++] = ']';
  buf[o] = 0;
}

static pte_status set_shape(pte_xnn_delegate *d, size_t ni, uint32_t vi, const size_t *dims, unsigned rank, bool check,
                            pte_error_info *err) {
  pte_xnn_value *v = V(vi);
  const pte_xnn_node *n = &d->nodes[ni];
  if (!check) v->rank = (uint8_t)rank; /* ranks follow the inputs at run time */
  if (rank != v->rank) {
    char a[96];
    fmt_dims(a, sizeof a, dims, rank);
    return NERR(PTE_ERR_INVALID_PROGRAM, "xnnpack: node %zu (%s): output value %u has rank %u, the node produces %s", ni,
                pte_xnn_node_name(n->type), v->id, (unsigned)v->rank, a);
  }
  size_t numel = 1;
  for (unsigned i = 0; i < rank; i++) {
    if (dims[i] > 0x7FFFFFFFu || (dims[i] && numel > ((size_t)1 << 40) / dims[i]))
      return NERR(PTE_ERR_INVALID_PROGRAM, "xnnpack: node %zu (%s): output value %u would be too large", ni,
                  pte_xnn_node_name(n->type), v->id);
    numel *= dims[i];
  }
  if (check) {
    for (unsigned i = 0; i < rank; i++)
      if (dims[i] != v->decl[i]) {
        char a[96], b[96];
        fmt_dims(a, sizeof a, dims, rank);
        fmt_dims(b, sizeof b, v->decl, rank);
        return NERR(PTE_ERR_INVALID_PROGRAM, "xnnpack: node %zu (%s): output value %u shape %s differs from the declared %s",
                    ni, pte_xnn_node_name(n->type), v->id, a, b);
      }
  }
  for (unsigned i = 0; i < rank; i++) v->shape[i] = dims[i];
  v->numel = numel;
  return PTE_OK;
}

static bool is_f32(const pte_xnn_value *v) { return v->dtype == PTE_XD_FP32; }
static bool is_q8(const pte_xnn_value *v) { return v->dtype == PTE_XD_QINT8 || v->dtype == PTE_XD_QUINT8; }
static int32_t q_lo(const pte_xnn_value *v) { return v->dtype == PTE_XD_QUINT8 ? 0 : -128; }
static int32_t q_hi(const pte_xnn_value *v) { return v->dtype == PTE_XD_QUINT8 ? 255 : 127; }

static float load_q(const pte_xnn_value *v, const uint8_t *p, size_t i) {
  int32_t q = v->dtype == PTE_XD_QUINT8 ? (int32_t)p[i] : (int32_t)((const int8_t *)p)[i];
  return (float)(q - v->zero_point) * v->scale;
}
static void store_q(const pte_xnn_value *v, uint8_t *p, size_t i, float x) {
  int32_t q = pte_xnn_quantize(x, 1.0f / v->scale, v->zero_point, q_lo(v), q_hi(v));
  if (v->dtype == PTE_XD_QUINT8) p[i] = (uint8_t)q;
  else ((int8_t *)p)[i] = (int8_t)q;
}

static bool same_q(const pte_xnn_value *a, const pte_xnn_value *b) {
  return a->dtype == b->dtype && (!is_q8(a) || (a->scale == b->scale && a->zero_point == b->zero_point));
}

static void mark_raw(pte_xnn_delegate *d, uint32_t vi) {
  if (vi != PTE_XNN_INVALID_ID && V(vi)->is_const) V(vi)->raw_needed = true;
}

static size_t numel_of(const size_t *dims, unsigned rank) {
  size_t n = 1;
  for (unsigned i = 0; i < rank; i++) n *= dims[i];
  return n;
}

/* quantized output bounds of a fused clamp */
static void q_bounds(const pte_xnn_value *out, float mn, float mx, int32_t *qmin, int32_t *qmax) {
  float lo = mn / out->scale + (float)out->zero_point, hi = mx / out->scale + (float)out->zero_point;
  float a = (float)q_lo(out), b = (float)q_hi(out);
  lo = lo < a ? a : (lo > b ? b : lo);
  hi = hi < a ? a : (hi > b ? b : hi);
  if (isnan(lo)) lo = a;
  if (isnan(hi)) hi = b;
  *qmin = (int32_t)lrintf(lo);
  *qmax = (int32_t)lrintf(hi);
}

static bool is_binary(unsigned t) {
  return t == pte_xn_XNodeUnion_XNNAdd || t == pte_xn_XNodeUnion_XNNSubtract || t == pte_xn_XNodeUnion_XNNMultiply ||
         t == pte_xn_XNodeUnion_XNNDiv || t == pte_xn_XNodeUnion_XNNMinimum || t == pte_xn_XNodeUnion_XNNMaximum ||
         t == pte_xn_XNodeUnion_XNNPReLU;
}

static bool is_unary_math(unsigned t) {
  switch (t) {
    case pte_xn_XNodeUnion_XNNSigmoid:
    case pte_xn_XNodeUnion_XNNClamp:
    case pte_xn_XNodeUnion_XNNFloor:
    case pte_xn_XNodeUnion_XNNSquareRoot:
    case pte_xn_XNodeUnion_XNNCeiling:
    case pte_xn_XNodeUnion_XNNHardswish:
    case pte_xn_XNodeUnion_XNNNegate:
    case pte_xn_XNodeUnion_XNNSquare:
    case pte_xn_XNodeUnion_XNNAbs:
    case pte_xn_XNodeUnion_XNNReciprocalSquareRoot:
    case pte_xn_XNodeUnion_XNNLog:
    case pte_xn_XNodeUnion_XNNGelu:
    case pte_xn_XNodeUnion_XNNTanh:
    case pte_xn_XNodeUnion_XNNExp:
    case pte_xn_XNodeUnion_XNNSin:
    case pte_xn_XNodeUnion_XNNELU:
    case pte_xn_XNodeUnion_XNNLeakyReLU:
      return true;
    default:
      return false;
  }
}

static bool is_data_movement(unsigned t) {
  switch (t) {
    case pte_xn_XNodeUnion_XNNStaticTranspose:
    case pte_xn_XNodeUnion_XNNStaticReshape:
    case pte_xn_XNodeUnion_XNNStaticSlice:
    case pte_xn_XNodeUnion_XNNStaticConstantPad:
    case pte_xn_XNodeUnion_XNNConcatenate2:
    case pte_xn_XNodeUnion_XNNConcatenate3:
    case pte_xn_XNodeUnion_XNNConcatenate4:
    case pte_xn_XNodeUnion_XNNConcatenate5:
      return true;
    default:
      return false;
  }
}

/* ============================================================================ prepare */

/* Weights of FC/conv as fp32 (dequantizing weight-only int8); caller frees *tmp. */
static pte_status weights_f32(const pte_xnn_value *w, const float **out, float **tmp) {
  *tmp = NULL;
  if (w->dtype == PTE_XD_FP32) {
    *out = (const float *)w->cdata;
    return PTE_OK;
  }
  float *f = (float *)malloc((w->numel ? w->numel : 1) * sizeof(float));
  if (!f) return PTE_ERR_MEMORY_ALLOCATION_FAILED;
  const int8_t *q = (const int8_t *)w->cdata;
  size_t inner = 1;
  for (unsigned i = w->channel_dim + 1; i < w->rank; i++) inner *= w->decl[i];
  for (size_t i = 0; i < w->numel; i++) {
    float s = w->scale;
    if (w->dtype == PTE_XD_QCINT8) s = w->channel_scales[(i / inner) % w->decl[w->channel_dim]];
    f[i] = (float)((int32_t)q[i] - (w->dtype == PTE_XD_QINT8 ? w->zero_point : 0)) * s;
  }
  *out = f;
  *tmp = f;
  return PTE_OK;
}

/* scale of output channel o of an int8 weight tensor */
static float wscale_of(const pte_xnn_value *w, size_t o) {
  return w->dtype == PTE_XD_QCINT8 ? w->channel_scales[o] : w->scale;
}

static bool same_layout(const pte_xnn_packed_info *a, const pte_xnn_packed_info *b) {
  return a->kind == b->kind && a->isa == b->isa && a->nr == b->nr && a->kr == b->kr && a->n == b->n && a->k == b->k &&
         a->n_panels == b->n_panels && a->panel_stride == b->panel_stride && a->total_size == b->total_size;
}

/* Packed weights stored by `pte prepare` (w->prep): `groups` XPW1 blobs, `one` bytes apart, for
 * the layout `want`. Used in place when they match exactly (the common case: no packing, no
 * copy); copied when misaligned or inside a processed blob that does not outlive the delegate;
 * re-laid out when made for another ISA / tile and the repack_prepared option allows it. */
static pte_status use_prepared(pte_xnn_delegate *d, pte_xnn_node *n, const pte_xnn_value *w, size_t groups,
                               const pte_xnn_packed_info *want, size_t one, pte_error_info *err) {
  const size_t ni = (size_t)(n - d->nodes);
  const char *name = pte_xnn_node_name(n->type);
  const uint8_t *src = w->prep;
  bool same = groups > 0 && one > 0 && w->prep_size / one == groups && w->prep_size % one == 0;
  for (size_t g = 0; same && g < groups; g++) {
    pte_xnn_packed_info h;
    same = pte_xnn_packed_header_read(src + g * one, one, &h) && same_layout(&h, want);
  }
  n->group_stride = one;
  n->n_groups = (uint32_t)groups;
  if (same) {
    if (((uintptr_t)src & 63u) == 0 && (!w->prep_in_blob || d->blob_persistent)) {
      n->packed.bytes = (uint8_t *)(uintptr_t)src; /* read only: never written */
      n->packed.size = one * groups;
      n->packed_borrowed = true;
      pte_xnn_stat_add(PTE_XNN_STAT_PREPARED, 1);
      return PTE_OK;
    }
    n->packed.bytes = (uint8_t *)pte_xnn_aligned_alloc(one * groups);
    if (!n->packed.bytes) return NERR(PTE_ERR_MEMORY_ALLOCATION_FAILED, "xnnpack: out of memory copying weights");
    n->packed.size = one * groups;
    memcpy(n->packed.bytes, src, one * groups);
    pte_xnn_stat_add(PTE_XNN_STAT_PREPARED_COPIES, 1);
    return PTE_OK;
  }
  pte_xnn_packed_info si;
  if (!w->prep_foreign || !pte_xnn_packed_header_read(src, w->prep_size, &si))
    return NERR(PTE_ERR_INVALID_PROGRAM,
                "xnnpack: node %zu (%s): the prepared weights of constant %u do not match this node "
                "(expected kind %u, NR %u, N %u, K %u, %zu group(s))",
                ni, name, w->const_index, want->kind, want->nr, want->n, want->k, groups);
  /* made for another machine: same values, another panel width */
  bool ok = si.kind == want->kind && si.kr == want->kr && si.n == want->n && si.k == want->k &&
            (si.kind == PTE_XNN_PACK_F32_GEMM || si.kind == PTE_XNN_PACK_QS8_GEMM || si.kind == PTE_XNN_PACK_QD8_GEMM) &&
            si.nr >= 1 && si.nr <= 256;
  pte_xnn_packed_info se;
  if (ok) {
    se = pte_xnn_packed_layout(si.kind, si.isa, si.nr, si.n, si.k);
    ok = same_layout(&si, &se);
  }
  const size_t sone = ok ? (size_t)((si.total_size + 63) & ~(uint64_t)63) : 0;
  ok = ok && sone > 0 && w->prep_size / sone == groups && w->prep_size % sone == 0;
  for (size_t g = 1; ok && g < groups; g++) ok = memcmp(src, src + g * sone, PTE_XNN_PACKED_HEADER_SIZE) == 0;
  if (!ok)
    return NERR(PTE_ERR_INVALID_PROGRAM,
                "xnnpack: node %zu (%s): the prepared weights of constant %u cannot be repacked for this node", ni, name,
                w->const_index);
  n->packed.bytes = (uint8_t *)pte_xnn_aligned_alloc(one * groups);
  if (!n->packed.bytes) return NERR(PTE_ERR_MEMORY_ALLOCATION_FAILED, "xnnpack: out of memory repacking weights");
  n->packed.size = one * groups;
  memset(n->packed.bytes, 0, n->packed.size);
  for (size_t g = 0; g < groups; g++) pte_xnn_packed_relayout(src + g * sone, &si, n->packed.bytes + g * one, want);
  pte_xnn_stat_add(PTE_XNN_STAT_REPACKS, 1);
  return PTE_OK;
}

/* Parallel fp32 packing: item i of 16 packs its share of the panels. */
typedef struct pk_job {
  const pte_xnn_kernels *k;
  size_t n, kdim;
  const float *w;
  size_t rs, cs;
  const float *bias;
  uint8_t *dst;
  size_t panels;
} pk_job;

static void pk_task(void *ctx, size_t item, int tid) {
  (void)tid;
  const pk_job *j = (const pk_job *)ctx;
  const size_t per = (j->panels + 15) / 16, p0 = item * per, p1 = p0 + per < j->panels ? p0 + per : j->panels;
  if (p0 < p1) pte_xnn_pack_f32_gemm_panels(j->k, j->n, j->kdim, j->w, j->rs, j->cs, j->bias, j->dst, p0, p1);
}

/* Packs one GEMM problem per group. Element (o, i) of group g's weight matrix is
 * w[g * gstep + o * rs + i * cs]. */
static pte_status pack_groups(pte_xnn_delegate *d, pte_xnn_node *n, size_t groups, size_t nout, size_t kdim,
                              size_t gstep, size_t rs, size_t cs, pte_error_info *err) {
  const pte_xnn_value *w = V(n->in[1]);
  const pte_xnn_value *b = n->in[2] != PTE_XNN_INVALID_ID ? V(n->in[2]) : NULL;
  const pte_xnn_value *in = V(n->in[0]), *out = V(n->out[0]);
  size_t one;
  if (n->variant == PTE_XNN_V_F32) one = pte_xnn_pack_f32_gemm_into(d->k, nout, kdim, NULL, 0, 0, NULL, NULL);
  else one = pte_xnn_pack_i8_size(d->k, nout, kdim, n->variant == PTE_XNN_V_QD8);
  one = (one + 63) & ~(size_t)63;
  if (b && b->prep)
    return NERR(PTE_ERR_INVALID_PROGRAM, "xnnpack: node %zu (%s): bias constant %u holds prepared (packed) data",
                (size_t)(n - d->nodes), pte_xnn_node_name(n->type), b->const_index);
  if (w->prep) {
    const uint32_t kind = n->variant == PTE_XNN_V_F32   ? PTE_XNN_PACK_F32_GEMM
                          : n->variant == PTE_XNN_V_QS8 ? PTE_XNN_PACK_QS8_GEMM
                                                        : PTE_XNN_PACK_QD8_GEMM;
    pte_xnn_packed_info want = pte_xnn_packed_expect(d->k, kind, nout, kdim);
    return use_prepared(d, n, w, groups, &want, one, err);
  }
  n->group_stride = one;
  n->n_groups = (uint32_t)groups;
  n->packed.bytes = (uint8_t *)pte_xnn_packed_alloc(one * groups);
  if (!n->packed.bytes) return NERR(PTE_ERR_MEMORY_ALLOCATION_FAILED, "xnnpack: out of memory packing weights");
  n->packed.size = one * groups; /* the packers write every byte of each group's blob once */
  if (n->variant == PTE_XNN_V_F32) {
    const float *wf;
    float *tmp;
    if (weights_f32(w, &wf, &tmp) != PTE_OK) return NERR(PTE_ERR_MEMORY_ALLOCATION_FAILED, "xnnpack: out of memory");
    const float *bf = b ? (const float *)b->cdata : NULL;
    if (d->pool && groups == 1 && one >= ((size_t)1 << 20)) {
      /* header, then the panels in parallel over the pool */
      pk_job pj = {d->k, nout, kdim, wf, rs, cs, bf, n->packed.bytes, 0};
      pj.panels = (nout + pte_xnn_f32_tile_for_n(d->k, nout).nr - 1) / pte_xnn_f32_tile_for_n(d->k, nout).nr;
      pte_xnn_pack_f32_gemm_header(d->k, nout, kdim, n->packed.bytes);
      pte_xnn_parallel(d->pool, pk_task, &pj, 16);
    } else {
      for (size_t g = 0; g < groups; g++)
        pte_xnn_pack_f32_gemm_into(d->k, nout, kdim, wf + g * gstep, rs, cs, bf ? bf + g * nout : NULL,
                                   n->packed.bytes + g * one);
    }
    free(tmp);
    pte_xnn_stat_add(PTE_XNN_STAT_PACKS, 1);
    pte_xnn_stat_add(PTE_XNN_STAT_PACKED_BYTES, n->packed.size);
    return PTE_OK;
  }
  const int8_t *wq = (const int8_t *)w->cdata;
  float *scales = (float *)malloc((nout ? nout : 1) * sizeof(float));
  if (!scales) return NERR(PTE_ERR_MEMORY_ALLOCATION_FAILED, "xnnpack: out of memory");
  for (size_t g = 0; g < groups; g++) {
    for (size_t o = 0; o < nout; o++) {
      float ws = wscale_of(w, g * nout + o);
      scales[o] = n->variant == PTE_XNN_V_QS8 ? (float)((double)in->scale * (double)ws / (double)out->scale) : ws;
    }
    if (n->variant == PTE_XNN_V_QS8) {
      const int32_t *bq = b ? (const int32_t *)b->cdata + g * nout : NULL;
      pte_xnn_pack_qs8_gemm(d->k, nout, kdim, wq + g * gstep, rs, cs, bq, in->zero_point, scales,
                            n->packed.bytes + g * one);
    } else {
      const float *bf = b ? (const float *)b->cdata + g * nout : NULL;
      pte_xnn_pack_qd8_gemm(d->k, nout, kdim, wq + g * gstep, rs, cs, scales, bf, n->packed.bytes + g * one);
    }
  }
  free(scales);
  pte_xnn_stat_add(PTE_XNN_STAT_PACKS, 1);
  pte_xnn_stat_add(PTE_XNN_STAT_PACKED_BYTES, n->packed.size);
  return PTE_OK;
}

/* Variant of a FC/conv from its dtypes. */
static pte_status pick_variant(pte_xnn_delegate *d, size_t ni, pte_xnn_node *n, pte_error_info *err) {
  const pte_xnn_value *in = V(n->in[0]), *w = V(n->in[1]), *out = V(n->out[0]);
  const pte_xnn_value *b = n->in[2] != PTE_XNN_INVALID_ID ? V(n->in[2]) : NULL;
  const char *name = pte_xnn_node_name(n->type);
  if (is_f32(in) && is_f32(out) && (!b || is_f32(b))) {
    if (is_f32(w)) {
      n->variant = PTE_XNN_V_F32;
      return PTE_OK;
    }
    if ((w->dtype == PTE_XD_QCINT8 || w->dtype == PTE_XD_QINT8) && w->is_const) {
      n->variant = PTE_XNN_V_F32; /* weight-only int8: dequantized at pack time */
      return PTE_OK;
    }
  }
  if (in->dtype == PTE_XD_QINT8 && out->dtype == PTE_XD_QINT8 &&
      (w->dtype == PTE_XD_QINT8 || w->dtype == PTE_XD_QCINT8) &&
      (!b || b->dtype == PTE_XD_QINT32 || b->dtype == PTE_XD_QCINT32)) {
    if (w->dtype == PTE_XD_QINT8 && w->zero_point != 0)
      return NERR(PTE_ERR_NOT_IMPLEMENTED, "xnnpack: node %zu (%s): int8 weights with a non-zero zero point", ni, name);
    n->variant = PTE_XNN_V_QS8;
    return PTE_OK;
  }
  if (in->dtype == PTE_XD_QDINT8 && is_f32(out) && (w->dtype == PTE_XD_QCINT8 || w->dtype == PTE_XD_QINT8) &&
      (!b || is_f32(b))) {
    if (w->dtype == PTE_XD_QINT8 && w->zero_point != 0)
      return NERR(PTE_ERR_NOT_IMPLEMENTED, "xnnpack: node %zu (%s): int8 weights with a non-zero zero point", ni, name);
    n->variant = PTE_XNN_V_QD8;
    return PTE_OK;
  }
  return NERR(PTE_ERR_NOT_IMPLEMENTED, "xnnpack: node %zu (%s): input %s, filter %s, bias %s, output %s is not supported",
              ni, name, pte_xnn_dtype_name(in->dtype), pte_xnn_dtype_name(w->dtype), b ? pte_xnn_dtype_name(b->dtype) : "none",
              pte_xnn_dtype_name(out->dtype));
}

static pte_status prepare_fc(pte_xnn_delegate *d, size_t ni, pte_xnn_node *n, pte_error_info *err) {
  const pte_xnn_value *w = V(n->in[1]);
  const pte_xnn_value *b = n->in[2] != PTE_XNN_INVALID_ID ? V(n->in[2]) : NULL;
  pte_status s = pick_variant(d, ni, n, err);
  if (s != PTE_OK) return s;
  if (w->rank != 2)
    return NERR(PTE_ERR_INVALID_PROGRAM, "xnnpack: node %zu (FullyConnected): filter has rank %u, 2 expected", ni,
                (unsigned)w->rank);
  const bool tr = (n->flags & PTE_XNN_FLAG_TRANSPOSE_WEIGHTS) != 0;
  const size_t nout = tr ? w->decl[1] : w->decl[0], kdim = tr ? w->decl[0] : w->decl[1];
  if (b && (b->rank != 1 || b->decl[0] != nout))
    return NERR(PTE_ERR_INVALID_PROGRAM, "xnnpack: node %zu (FullyConnected): bias has %zu elements, %zu expected", ni,
                b->numel, nout);
  if (w->dtype == PTE_XD_QCINT8 && w->channel_dim != (tr ? 1u : 0u))
    return NERR(PTE_ERR_INVALID_PROGRAM, "xnnpack: node %zu (FullyConnected): filter scales are not per output channel", ni);
  if (!w->is_const || (b && !b->is_const)) {
    if (n->variant != PTE_XNN_V_F32 || !is_f32(w))
      return NERR(PTE_ERR_NOT_IMPLEMENTED, "xnnpack: node %zu (FullyConnected): quantized weights must be constant", ni);
    n->weights_dynamic = true;
    mark_raw(d, n->in[1]);
    mark_raw(d, n->in[2]);
    return PTE_OK;
  }
  if (n->variant == PTE_XNN_V_QS8) {
    const pte_xnn_value *out = V(n->out[0]);
    q_bounds(out, n->out_min, n->out_max, &n->qmin, &n->qmax);
  }
  return pack_groups(d, n, 1, nout, kdim, 0, tr ? 1 : kdim, tr ? nout : 1, err);
}

static pte_status prepare_conv(pte_xnn_delegate *d, size_t ni, pte_xnn_node *n, pte_error_info *err) {
  pte_xnn_conv_params *p = &n->p.conv;
  const bool dw = n->type == pte_xn_XNodeUnion_XNNDepthwiseConv2d;
  const char *name = pte_xnn_node_name(n->type);
  const pte_xnn_value *w = V(n->in[1]), *in = V(n->in[0]);
  const pte_xnn_value *b = n->in[2] != PTE_XNN_INVALID_ID ? V(n->in[2]) : NULL;
  if (p->kh == 0 || p->kw == 0 || p->groups == 0 || p->gic == 0 || p->goc == 0)
    return NERR(PTE_ERR_INVALID_PROGRAM, "xnnpack: node %zu (%s): zero kernel size, groups or channels", ni, name);
  if (p->sh == 0) p->sh = 1;
  if (p->sw == 0) p->sw = 1;
  if (p->dh == 0) p->dh = 1;
  if (p->dw == 0) p->dw = 1;
  if ((n->flags & PTE_XNN_FLAG_TENSORFLOW_SAME_PADDING) && (p->pt | p->pr | p->pb | p->pl))
    return NERR(PTE_ERR_INVALID_PROGRAM, "xnnpack: node %zu (%s): SAME padding with explicit paddings", ni, name);
  if (in->rank != 4 || w->rank != 4)
    return NERR(PTE_ERR_INVALID_PROGRAM, "xnnpack: node %zu (%s): input and filter must be 4-D", ni, name);
  if (!w->is_const || (b && !b->is_const))
    return NERR(PTE_ERR_NOT_IMPLEMENTED, "xnnpack: node %zu (%s): non-constant filter or bias", ni, name);
  pte_status s = pick_variant(d, ni, n, err);
  if (s != PTE_OK) return s;
  size_t groups, nout, kdim, gstep, rs, cs, total_out;
  const size_t taps = (size_t)p->kh * p->kw;
  if (dw) {
    /* input channels = groups, multiplier = goc / gic; filter [1, kh, kw, C * multiplier] */
    if (p->goc % p->gic)
      return NERR(PTE_ERR_INVALID_PROGRAM, "xnnpack: node %zu (%s): output channels not a multiple of input channels",
                  ni, name);
    const size_t c = p->groups, mult = p->goc / p->gic;
    total_out = c * mult;
    if (w->decl[0] != 1 || w->decl[1] != p->kh || w->decl[2] != p->kw || w->decl[3] != total_out)
      return NERR(PTE_ERR_INVALID_PROGRAM, "xnnpack: node %zu (%s): filter shape does not match [1, %u, %u, %zu]", ni, name,
                  p->kh, p->kw, total_out);
    if (w->dtype == PTE_XD_QCINT8 && w->channel_dim != 3)
      return NERR(PTE_ERR_INVALID_PROGRAM, "xnnpack: node %zu (%s): filter scales are not per output channel", ni, name);
    if (mult == 1 && n->variant == PTE_XNN_V_F32) {
      if (b && b->prep)
        return NERR(PTE_ERR_INVALID_PROGRAM, "xnnpack: node %zu (%s): bias constant %u holds prepared (packed) data", ni,
                    name, b->const_index);
      if (b && b->numel != total_out) /* checked before the bias is read */
        return NERR(PTE_ERR_INVALID_PROGRAM, "xnnpack: node %zu (%s): bias has %zu elements, %zu expected", ni, name,
                    b->numel, total_out);
      if (w->prep) {
        if (c > 0xFFFFFFFFu || taps > 0xFFFFFFFFu)
          return NERR(PTE_ERR_NOT_SUPPORTED, "xnnpack: node %zu (%s): cannot pack weights", ni, name);
        pte_xnn_packed_info want = pte_xnn_packed_expect(d->k, PTE_XNN_PACK_F32_DWCONV, c, taps);
        s = use_prepared(d, n, w, 1, &want, (size_t)want.total_size, err);
        if (s != PTE_OK) return s;
      } else {
        const float *wf;
        float *tmp;
        if (weights_f32(w, &wf, &tmp) != PTE_OK) return NERR(PTE_ERR_MEMORY_ALLOCATION_FAILED, "xnnpack: out of memory");
        s = pte_xnn_pack_f32_dwconv(c, taps, wf, b ? (const float *)b->cdata : NULL, &n->packed);
        free(tmp);
        if (s != PTE_OK) return NERR(s, "xnnpack: node %zu (%s): cannot pack weights", ni, name);
        pte_xnn_stat_add(PTE_XNN_STAT_PACKS, 1);
        pte_xnn_stat_add(PTE_XNN_STAT_PACKED_BYTES, n->packed.size);
      }
      n->as_dwconv = true;
      n->n_groups = 1;
      if (b && b->numel != total_out)
        return NERR(PTE_ERR_INVALID_PROGRAM, "xnnpack: node %zu (%s): bias has %zu elements, %zu expected", ni, name,
                    b->numel, total_out);
      return PTE_OK;
    }
    /* as a grouped convolution: group g = input channel g, mult outputs, taps reduction */
    groups = c, nout = mult, kdim = taps, gstep = mult, rs = 1, cs = total_out;
  } else {
    total_out = (size_t)p->groups * p->goc;
    if (w->decl[0] != total_out || w->decl[1] != p->kh || w->decl[2] != p->kw || w->decl[3] != p->gic)
      return NERR(PTE_ERR_INVALID_PROGRAM, "xnnpack: node %zu (%s): filter shape does not match [%zu, %u, %u, %u]", ni, name,
                  total_out, p->kh, p->kw, p->gic);
    if (w->dtype == PTE_XD_QCINT8 && w->channel_dim != 0)
      return NERR(PTE_ERR_INVALID_PROGRAM, "xnnpack: node %zu (%s): filter scales are not per output channel", ni, name);
    groups = p->groups, nout = p->goc, kdim = taps * p->gic, gstep = p->goc * kdim, rs = kdim, cs = 1;
  }
  if (b && b->numel != total_out)
    return NERR(PTE_ERR_INVALID_PROGRAM, "xnnpack: node %zu (%s): bias has %zu elements, %zu expected", ni, name, b->numel,
                total_out);
  if (n->variant == PTE_XNN_V_QS8) q_bounds(V(n->out[0]), n->out_min, n->out_max, &n->qmin, &n->qmax);
  if (n->variant == PTE_XNN_V_QD8 && in->num_nonbatch_dims < 3)
    return NERR(PTE_ERR_NOT_IMPLEMENTED, "xnnpack: node %zu (%s): qdint8 input must be quantized per batch", ni, name);
  return pack_groups(d, n, groups, nout, kdim, gstep, rs, cs, err);
}

pte_status pte_xnn_prepare_node(pte_xnn_delegate *d, size_t ni, pte_error_info *err) {
  pte_xnn_node *n = &d->nodes[ni];
  const unsigned t = n->type;
  const char *name = pte_xnn_node_name(t);
  n->n_groups = 1;
  if (t == pte_xn_XNodeUnion_XNNFullyConnected) return prepare_fc(d, ni, n, err);
  if (t == pte_xn_XNodeUnion_XNNConv2d || t == pte_xn_XNodeUnion_XNNDepthwiseConv2d) return prepare_conv(d, ni, n, err);
  for (unsigned k = 0; k < n->n_in; k++) mark_raw(d, n->in[k]);
  const pte_xnn_value *in = V(n->in[0]), *out = V(n->out[0]);
  if (is_binary(t)) {
    const pte_xnn_value *in2 = V(n->in[1]);
    if (t == pte_xn_XNodeUnion_XNNPReLU) {
      if (!is_f32(in) || !is_f32(in2) || !is_f32(out))
        return NERR(PTE_ERR_NOT_IMPLEMENTED, "xnnpack: node %zu (%s): only fp32 is supported", ni, name);
      return PTE_OK;
    }
    if (is_f32(in) && is_f32(in2) && is_f32(out)) return PTE_OK;
    if (is_q8(in) && is_q8(in2) && is_q8(out) && in->dtype == out->dtype && in2->dtype == out->dtype) return PTE_OK;
    return NERR(PTE_ERR_NOT_IMPLEMENTED, "xnnpack: node %zu (%s): %s x %s -> %s is not supported", ni, name,
                pte_xnn_dtype_name(in->dtype), pte_xnn_dtype_name(in2->dtype), pte_xnn_dtype_name(out->dtype));
  }
  if (t == pte_xn_XNodeUnion_XNNBatchMatrixMultiply) {
    if (!is_f32(in) || !is_f32(V(n->in[1])) || !is_f32(out))
      return NERR(PTE_ERR_NOT_IMPLEMENTED, "xnnpack: node %zu (%s): only fp32 is supported", ni, name);
    return PTE_OK;
  }
  if (is_unary_math(t)) {
    if (is_f32(in) && is_f32(out)) return PTE_OK;
    if ((t == pte_xn_XNodeUnion_XNNClamp || t == pte_xn_XNodeUnion_XNNLeakyReLU || t == pte_xn_XNodeUnion_XNNSigmoid ||
         t == pte_xn_XNodeUnion_XNNTanh || t == pte_xn_XNodeUnion_XNNHardswish || t == pte_xn_XNodeUnion_XNNELU) &&
        is_q8(in) && in->dtype == out->dtype)
      return PTE_OK;
    return NERR(PTE_ERR_NOT_IMPLEMENTED, "xnnpack: node %zu (%s): %s -> %s is not supported", ni, name,
                pte_xnn_dtype_name(in->dtype), pte_xnn_dtype_name(out->dtype));
  }
  switch (t) {
    case pte_xn_XNodeUnion_XNNSoftmax:
    case pte_xn_XNodeUnion_XNNGlobalAvgPooling2d:
    case pte_xn_XNodeUnion_XNNAvgPooling2d:
    case pte_xn_XNodeUnion_XNNStaticResizeBilinear2D:
      if (is_f32(in) && is_f32(out)) break;
      if (t != pte_xn_XNodeUnion_XNNSoftmax && is_q8(in) && in->dtype == out->dtype) break;
      return NERR(PTE_ERR_NOT_IMPLEMENTED, "xnnpack: node %zu (%s): %s -> %s is not supported", ni, name,
                  pte_xnn_dtype_name(in->dtype), pte_xnn_dtype_name(out->dtype));
    case pte_xn_XNodeUnion_XNNMaxPooling2d:
      if ((is_f32(in) && is_f32(out)) || (is_q8(in) && same_q(in, out))) break;
      return NERR(PTE_ERR_NOT_IMPLEMENTED, "xnnpack: node %zu (%s): %s -> %s is not supported", ni, name,
                  pte_xnn_dtype_name(in->dtype), pte_xnn_dtype_name(out->dtype));
    case pte_xn_XNodeUnion_XNNConvert: {
      const unsigned a = in->dtype, b = out->dtype;
      const bool ok = (a == PTE_XD_FP32 && (b == PTE_XD_QINT8 || b == PTE_XD_QUINT8 || b == PTE_XD_QDINT8)) ||
                      ((a == PTE_XD_QINT8 || a == PTE_XD_QUINT8) && (b == PTE_XD_FP32 || b == a)) ||
                      (a == PTE_XD_FP32 && b == PTE_XD_FP32);
      if (!ok)
        return NERR(PTE_ERR_NOT_IMPLEMENTED, "xnnpack: node %zu (Convert): %s -> %s is not supported", ni,
                    pte_xnn_dtype_name(a), pte_xnn_dtype_name(b));
      break;
    }
    default:
      if (is_data_movement(t)) {
        for (unsigned k = 0; k < n->n_in; k++)
          if (V(n->in[k])->dtype != out->dtype)
            return NERR(PTE_ERR_INVALID_PROGRAM, "xnnpack: node %zu (%s): input %s and output %s differ", ni, name,
                        pte_xnn_dtype_name(V(n->in[k])->dtype), pte_xnn_dtype_name(out->dtype));
        if (out->dtype == PTE_XD_QDINT8)
          return NERR(PTE_ERR_NOT_IMPLEMENTED, "xnnpack: node %zu (%s): qdint8 data movement", ni, name);
        break;
      }
      return NERR(PTE_ERR_NOT_IMPLEMENTED, "xnnpack: node %zu: %s is not supported", ni, name);
  }
  return PTE_OK;
}

/* ============================================================================ shape inference */

static pte_status broadcast(const pte_xnn_value *a, const pte_xnn_value *b, size_t *out, unsigned *rank) {
  unsigned r = a->rank > b->rank ? a->rank : b->rank;
  for (unsigned i = 0; i < r; i++) {
    size_t da = i < r - a->rank ? 1 : a->shape[i - (r - a->rank)];
    size_t db = i < r - b->rank ? 1 : b->shape[i - (r - b->rank)];
    if (da != db && da != 1 && db != 1) return PTE_ERR_INVALID_PROGRAM;
    out[i] = (da == 1) ? db : da;
    if (da == 0 || db == 0) out[i] = 0;
  }
  *rank = r;
  return PTE_OK;
}

static size_t conv_out(size_t in, size_t pad0, size_t pad1, size_t k, size_t dil, size_t stride, bool *ok) {
  const size_t eff = (k - 1) * dil + 1;
  const size_t padded = in + pad0 + pad1;
  if (padded < eff) {
    *ok = false;
    return 0;
  }
  return (padded - eff) / stride + 1;
}

/* TensorFlow SAME padding: output = ceil(in / stride), padding split with the extra on the end. */
static size_t same_pad(size_t in, size_t k, size_t dil, size_t stride, uint32_t *pad_begin) {
  const size_t out = (in + stride - 1) / stride;
  const size_t eff = (k - 1) * dil + 1;
  const size_t need = out ? (out - 1) * stride + eff : 0;
  const size_t total = need > in ? need - in : 0;
  *pad_begin = (uint32_t)(total / 2);
  return out;
}

static size_t conv_tile_rows(const pte_xnn_kernels *k, size_t kdim, size_t elem) {
  size_t mr = k->f32_mr > k->i8_mr ? k->f32_mr : k->i8_mr;
  if (k->f32n_mr > mr) mr = k->f32n_mr;
  size_t rows = (256u * 1024u) / ((kdim ? kdim : 1) * elem);
  if (rows > 256) rows = 256;
  if (rows < mr) rows = mr;
  return rows - rows % mr;
}

pte_status pte_xnn_infer_node(pte_xnn_delegate *d, size_t ni, bool check, pte_error_info *err) {
  pte_xnn_node *n = &d->nodes[ni];
  const unsigned t = n->type;
  const char *name = pte_xnn_node_name(t);
  const pte_xnn_value *in = V(n->in[0]);
  size_t dims[PTE_XNN_MAX_DIMS];
  unsigned rank = in->rank;
  n->scratch = 0;
  n->shared_scratch = 0;
  memcpy(dims, in->shape, sizeof dims);

  if (is_binary(t) || t == pte_xn_XNodeUnion_XNNPReLU) {
    const pte_xnn_value *b = V(n->in[1]);
    if (broadcast(in, b, dims, &rank) != PTE_OK) {
      char a1[96], b1[96];
      fmt_dims(a1, sizeof a1, in->shape, in->rank);
      fmt_dims(b1, sizeof b1, b->shape, b->rank);
      return NERR(PTE_ERR_INVALID_PROGRAM, "xnnpack: node %zu (%s): shapes %s and %s do not broadcast", ni, name, a1, b1);
    }
    if (t == pte_xn_XNodeUnion_XNNPReLU) {
      /* the slope broadcasts onto the input; the output has the input's shape */
      if (rank != in->rank || numel_of(dims, rank) != in->numel)
        return NERR(PTE_ERR_INVALID_PROGRAM, "xnnpack: node %zu (PReLU): slope does not broadcast onto the input", ni);
    }
    return set_shape(d, ni, n->out[0], dims, rank, check, err);
  }
  if (is_unary_math(t) || t == pte_xn_XNodeUnion_XNNSoftmax || t == pte_xn_XNodeUnion_XNNConvert) {
    if (t == pte_xn_XNodeUnion_XNNSoftmax && rank == 0)
      return NERR(PTE_ERR_INVALID_PROGRAM, "xnnpack: node %zu (Softmax): scalar input", ni);
    return set_shape(d, ni, n->out[0], dims, rank, check, err);
  }
  switch (t) {
    case pte_xn_XNodeUnion_XNNFullyConnected: {
      const pte_xnn_value *w = V(n->in[1]);
      const bool tr = (n->flags & PTE_XNN_FLAG_TRANSPOSE_WEIGHTS) != 0;
      const size_t nout = tr ? w->shape[1] : w->shape[0], kdim = tr ? w->shape[0] : w->shape[1];
      if (rank < 1 || in->shape[rank - 1] != kdim)
        return NERR(PTE_ERR_INVALID_PROGRAM, "xnnpack: node %zu (FullyConnected): input inner dim %zu != filter K %zu", ni,
                    rank ? in->shape[rank - 1] : (size_t)0, kdim);
      if (n->flags & PTE_XNN_FLAG_TENSORFLOW_RESHAPE_2D) {
        dims[0] = kdim ? in->numel / kdim : 0;
        dims[1] = nout;
        rank = 2;
      } else {
        dims[rank - 1] = nout;
      }
      if (n->weights_dynamic)
        n->shared_scratch = pte_xnn_pack_f32_gemm_into(d->k, nout, kdim, NULL, 0, 0, NULL, NULL);
      return set_shape(d, ni, n->out[0], dims, rank, check, err);
    }
    case pte_xn_XNodeUnion_XNNConv2d:
    case pte_xn_XNodeUnion_XNNDepthwiseConv2d: {
      const pte_xnn_conv_params *p = &n->p.conv;
      const bool dw = t == pte_xn_XNodeUnion_XNNDepthwiseConv2d;
      const size_t cin = dw ? p->groups : (size_t)p->groups * p->gic;
      const size_t cout = dw ? (size_t)p->groups * (p->goc / p->gic) : (size_t)p->groups * p->goc;
      if (rank != 4 || in->shape[3] != cin)
        return NERR(PTE_ERR_INVALID_PROGRAM, "xnnpack: node %zu (%s): input must be NHWC with %zu channels", ni, name, cin);
      bool ok = true;
      size_t oh, ow;
      if (n->flags & PTE_XNN_FLAG_TENSORFLOW_SAME_PADDING) {
        oh = same_pad(in->shape[1], p->kh, p->dh, p->sh, &n->rt_pt);
        ow = same_pad(in->shape[2], p->kw, p->dw, p->sw, &n->rt_pl);
      } else {
        oh = conv_out(in->shape[1], p->pt, p->pb, p->kh, p->dh, p->sh, &ok);
        ow = conv_out(in->shape[2], p->pl, p->pr, p->kw, p->dw, p->sw, &ok);
        n->rt_pt = p->pt;
        n->rt_pl = p->pl;
      }
      if (!ok)
        return NERR(PTE_ERR_INVALID_PROGRAM, "xnnpack: node %zu (%s): kernel larger than the padded input", ni, name);
      dims[1] = oh;
      dims[2] = ow;
      dims[3] = cout;
      const size_t taps = (size_t)p->kh * p->kw;
      if (n->as_dwconv) {
        n->scratch = 2 * taps * sizeof(float *); /* tap input and weight pointers (dw_rows) */
      } else {
        const size_t kdim = dw ? taps : taps * p->gic;
        const size_t es = n->variant == PTE_XNN_V_F32 ? 4 : 1;
        n->scratch = conv_tile_rows(d->k, kdim, es) * kdim * es + 64;
      }
      return set_shape(d, ni, n->out[0], dims, 4, check, err);
    }
    case pte_xn_XNodeUnion_XNNAvgPooling2d:
    case pte_xn_XNodeUnion_XNNMaxPooling2d: {
      pte_xnn_pool_params *p = &n->p.pool;
      if (rank != 4) return NERR(PTE_ERR_INVALID_PROGRAM, "xnnpack: node %zu (%s): input must be 4-D NHWC", ni, name);
      if (p->ph == 0 || p->pw == 0) return NERR(PTE_ERR_INVALID_PROGRAM, "xnnpack: node %zu (%s): zero pooling size", ni, name);
      const size_t sh = p->sh ? p->sh : 1, sw = p->sw ? p->sw : 1, dh = p->dh ? p->dh : 1, dwl = p->dw ? p->dw : 1;
      bool ok = true;
      if (n->flags & PTE_XNN_FLAG_TENSORFLOW_SAME_PADDING) {
        dims[1] = same_pad(in->shape[1], p->ph, dh, sh, &n->rt_pt);
        dims[2] = same_pad(in->shape[2], p->pw, dwl, sw, &n->rt_pl);
      } else {
        dims[1] = conv_out(in->shape[1], p->pt, p->pb, p->ph, dh, sh, &ok);
        dims[2] = conv_out(in->shape[2], p->pl, p->pr, p->pw, dwl, sw, &ok);
        n->rt_pt = p->pt;
        n->rt_pl = p->pl;
      }
      if (!ok)
        return NERR(PTE_ERR_INVALID_PROGRAM, "xnnpack: node %zu (%s): pooling window larger than the padded input", ni, name);
      return set_shape(d, ni, n->out[0], dims, 4, check, err);
    }
    case pte_xn_XNodeUnion_XNNGlobalAvgPooling2d: {
      const pte_xnn_value *o = V(n->out[0]);
      if (rank != 4) return NERR(PTE_ERR_INVALID_PROGRAM, "xnnpack: node %zu (%s): input must be 4-D NHWC", ni, name);
      if (o->rank == 4) {
        dims[1] = dims[2] = 1;
        return set_shape(d, ni, n->out[0], dims, 4, check, err);
      }
      dims[1] = in->shape[3];
      return set_shape(d, ni, n->out[0], dims, 2, check, err);
    }
    case pte_xn_XNodeUnion_XNNStaticTranspose: {
      if (n->p.transpose.n != rank)
        return NERR(PTE_ERR_INVALID_PROGRAM, "xnnpack: node %zu (%s): perm has %u entries for rank %u", ni, name,
                    n->p.transpose.n, rank);
      unsigned seen = 0;
      for (unsigned i = 0; i < rank; i++) {
        uint32_t pi = n->p.transpose.perm[i];
        if (pi >= rank || (seen & (1u << pi)))
          return NERR(PTE_ERR_INVALID_PROGRAM, "xnnpack: node %zu (%s): perm is not a permutation", ni, name);
        seen |= 1u << pi;
        dims[i] = in->shape[pi];
      }
      return set_shape(d, ni, n->out[0], dims, rank, check, err);
    }
    case pte_xn_XNodeUnion_XNNStaticReshape: {
      unsigned r = n->p.reshape.n;
      size_t known = 1;
      int infer = -1;
      for (unsigned i = 0; i < r; i++) {
        dims[i] = n->p.reshape.shape[i];
        if (dims[i] == 0) {
          if (infer >= 0)
            return NERR(PTE_ERR_INVALID_PROGRAM, "xnnpack: node %zu (%s): more than one inferred dimension", ni, name);
          infer = (int)i;
        } else {
          if (known > ((size_t)1 << 40) / dims[i])
            return NERR(PTE_ERR_INVALID_PROGRAM, "xnnpack: node %zu (%s): new shape too large", ni, name);
          known *= dims[i];
        }
      }
      if (infer >= 0) {
        if (known == 0 || in->numel % known)
          return NERR(PTE_ERR_INVALID_PROGRAM, "xnnpack: node %zu (%s): cannot infer a dimension", ni, name);
        dims[infer] = in->numel / known;
      } else if (known != in->numel) {
        return NERR(PTE_ERR_INVALID_PROGRAM, "xnnpack: node %zu (%s): new shape has %zu elements, input has %zu", ni, name,
                    known, in->numel);
      }
      return set_shape(d, ni, n->out[0], dims, r, check, err);
    }
    case pte_xn_XNodeUnion_XNNStaticSlice: {
      if (n->p.slice.n != rank)
        return NERR(PTE_ERR_INVALID_PROGRAM, "xnnpack: node %zu (%s): %u dims for rank %u", ni, name, n->p.slice.n, rank);
      for (unsigned i = 0; i < rank; i++) {
        size_t off = n->p.slice.offsets[i], sz = n->p.slice.sizes[i];
        if (off > in->shape[i])
          return NERR(PTE_ERR_INVALID_PROGRAM, "xnnpack: node %zu (%s): offset %zu past dim %u (%zu)", ni, name, off, i,
                      in->shape[i]);
        if (sz == 0) sz = in->shape[i] - off;
        if (sz > in->shape[i] - off)
          return NERR(PTE_ERR_INVALID_PROGRAM, "xnnpack: node %zu (%s): slice [%zu, +%zu) past dim %u (%zu)", ni, name, off,
                      sz, i, in->shape[i]);
        dims[i] = sz;
      }
      return set_shape(d, ni, n->out[0], dims, rank, check, err);
    }
    case pte_xn_XNodeUnion_XNNStaticConstantPad: {
      if (n->p.pad.n != rank)
        return NERR(PTE_ERR_INVALID_PROGRAM, "xnnpack: node %zu (%s): %u paddings for rank %u", ni, name, n->p.pad.n, rank);
      for (unsigned i = 0; i < rank; i++) dims[i] = in->shape[i] + n->p.pad.pre[i] + n->p.pad.post[i];
      return set_shape(d, ni, n->out[0], dims, rank, check, err);
    }
    case pte_xn_XNodeUnion_XNNStaticResizeBilinear2D:
      if (rank != 4) return NERR(PTE_ERR_INVALID_PROGRAM, "xnnpack: node %zu (%s): input must be 4-D NHWC", ni, name);
      if (n->p.resize.h == 0 || n->p.resize.w == 0)
        return NERR(PTE_ERR_INVALID_PROGRAM, "xnnpack: node %zu (%s): zero output size", ni, name);
      dims[1] = n->p.resize.h;
      dims[2] = n->p.resize.w;
      return set_shape(d, ni, n->out[0], dims, 4, check, err);
    case pte_xn_XNodeUnion_XNNConcatenate2:
    case pte_xn_XNodeUnion_XNNConcatenate3:
    case pte_xn_XNodeUnion_XNNConcatenate4:
    case pte_xn_XNodeUnion_XNNConcatenate5: {
      const uint32_t ax = n->p.cat.axis;
      if (ax >= rank) return NERR(PTE_ERR_INVALID_PROGRAM, "xnnpack: node %zu (%s): axis %u out of range", ni, name, ax);
      dims[ax] = 0;
      for (unsigned k = 0; k < n->n_in; k++) {
        const pte_xnn_value *x = V(n->in[k]);
        if (x->rank != rank)
          return NERR(PTE_ERR_INVALID_PROGRAM, "xnnpack: node %zu (%s): inputs have different ranks", ni, name);
        for (unsigned i = 0; i < rank; i++)
          if (i != ax && x->shape[i] != in->shape[i])
            return NERR(PTE_ERR_INVALID_PROGRAM, "xnnpack: node %zu (%s): input %u differs in dim %u", ni, name, k + 1, i);
        dims[ax] += x->shape[ax];
      }
      return set_shape(d, ni, n->out[0], dims, rank, check, err);
    }
    case pte_xn_XNodeUnion_XNNBatchMatrixMultiply: {
      const pte_xnn_value *b = V(n->in[1]);
      if (in->rank < 2 || b->rank < 2)
        return NERR(PTE_ERR_INVALID_PROGRAM, "xnnpack: node %zu (%s): inputs must have rank >= 2", ni, name);
      const bool tr = (n->flags & PTE_XNN_FLAG_TRANSPOSE_WEIGHTS) != 0;
      const size_t m = in->shape[in->rank - 2], kk = in->shape[in->rank - 1];
      const size_t bk = tr ? b->shape[b->rank - 1] : b->shape[b->rank - 2];
      const size_t nn = tr ? b->shape[b->rank - 2] : b->shape[b->rank - 1];
      if (kk != bk)
        return NERR(PTE_ERR_INVALID_PROGRAM, "xnnpack: node %zu (%s): inner dims %zu and %zu differ", ni, name, kk, bk);
      pte_xnn_value ta = *in, tb = *b;
      ta.rank = (uint8_t)(in->rank - 2);
      tb.rank = (uint8_t)(b->rank - 2);
      unsigned br;
      if (broadcast(&ta, &tb, dims, &br) != PTE_OK)
        return NERR(PTE_ERR_INVALID_PROGRAM, "xnnpack: node %zu (%s): batch dims do not broadcast", ni, name);
      dims[br] = m;
      dims[br + 1] = nn;
      n->shared_scratch = pte_xnn_pack_f32_gemm_into(d->k, nn, kk, NULL, 0, 0, NULL, NULL);
      return set_shape(d, ni, n->out[0], dims, br + 2, check, err);
    }
    default:
      return NERR(PTE_ERR_NOT_IMPLEMENTED, "xnnpack: node %zu: %s is not supported", ni, name);
  }
}

/* ============================================================================ execution */

typedef float (*binop_fn)(float a, float b, float p);
static float op_add(float a, float b, float p) { (void)p; return a + b; }
static float op_sub(float a, float b, float p) { (void)p; return a - b; }
static float op_mul(float a, float b, float p) { (void)p; return a * b; }
static float op_div(float a, float b, float p) { (void)p; return a / b; }
static float op_min(float a, float b, float p) { (void)p; return a < b ? a : (b < a ? b : (isnan(a) ? a : b)); }
static float op_max(float a, float b, float p) { (void)p; return a > b ? a : (b > a ? b : (isnan(a) ? a : b)); }
static float op_prelu(float a, float b, float p) { (void)p; return a < 0.0f ? a * b : a; }

static int vbin_for(unsigned t) {
  switch (t) {
    case pte_xn_XNodeUnion_XNNAdd: return PTE_XNN_B_ADD;
    case pte_xn_XNodeUnion_XNNSubtract: return PTE_XNN_B_SUB;
    case pte_xn_XNodeUnion_XNNMultiply: return PTE_XNN_B_MUL;
    case pte_xn_XNodeUnion_XNNDiv: return PTE_XNN_B_DIV;
    case pte_xn_XNodeUnion_XNNMinimum: return PTE_XNN_B_MIN;
    case pte_xn_XNodeUnion_XNNMaximum: return PTE_XNN_B_MAX;
    default: return PTE_XNN_B_PRELU;
  }
}

static binop_fn binop_for(unsigned t) {
  switch (t) {
    case pte_xn_XNodeUnion_XNNAdd: return op_add;
    case pte_xn_XNodeUnion_XNNSubtract: return op_sub;
    case pte_xn_XNodeUnion_XNNMultiply: return op_mul;
    case pte_xn_XNodeUnion_XNNDiv: return op_div;
    case pte_xn_XNodeUnion_XNNMinimum: return op_min;
    case pte_xn_XNodeUnion_XNNMaximum: return op_max;
    default: return op_prelu;
  }
}

/* Strides (elements) of a value broadcast to an output of rank r. */
static void bstrides(const pte_xnn_value *v, unsigned r, const size_t *odims, size_t *st) {
  size_t s = 1;
  for (int i = (int)r - 1; i >= 0; i--) {
    int vi = i - (int)(r - v->rank);
    size_t dv = vi >= 0 ? v->shape[vi] : 1;
    st[i] = (dv == 1 && odims[i] != 1) ? 0 : s;
    if (vi >= 0) s *= dv;
  }
}

typedef struct bin_job {
  pte_xnn_delegate *d;
  const pte_xnn_kernels *k;
  const pte_xnn_node *n;
  const pte_xnn_value *a, *b, *o;
  unsigned r;          /* collapsed rank */
  size_t dims[PTE_XNN_MAX_DIMS], sa[PTE_XNN_MAX_DIMS], sb[PTE_XNN_MAX_DIMS];
  size_t inner, outer;
  binop_fn fn;
  const pte_xnn_f32_binary_fn *vfn; /* [PTE_XNN_BS_*] */
} bin_job;

static void bin_rows(const bin_job *j, size_t o0, size_t o1) {
  const unsigned r = j->r;
  const size_t inner = j->inner;
  const size_t sai = j->sa[r - 1], sbi = j->sb[r - 1];
  const bool q = j->o->dtype != PTE_XD_FP32;
  float vmin = j->n->out_min, vmax = j->n->out_max;
  float buf_a[256], buf_b[256], buf_o[256];
  for (size_t o = o0; o < o1; o++) {
    size_t rem = o, offa = 0, offb = 0;
    for (int i = (int)r - 2; i >= 0; i--) {
      size_t idx = rem % j->dims[i];
      rem /= j->dims[i];
      offa += idx * j->sa[i];
      offb += idx * j->sb[i];
    }
    const size_t out_off = o * inner;
    if (!q) {
      const float *pa = (const float *)j->a->data + offa, *pb = (const float *)j->b->data + offb;
      float *po = (float *)j->o->data + out_off;
      if (sai == 1 && sbi == 1) {
        j->vfn[PTE_XNN_BS_VV](inner, pa, pb, po, vmin, vmax);
      } else if (sai == 1 && sbi == 0) {
        j->vfn[PTE_XNN_BS_VS](inner, pa, pb, po, vmin, vmax);
      } else if (sai == 0 && sbi == 1) {
        j->vfn[PTE_XNN_BS_SV](inner, pa, pb, po, vmin, vmax);
      } else {
        for (size_t i = 0; i < inner; i++) po[i] = pte_xnn_clampf(j->fn(pa[i * sai], pb[i * sbi], 0.0f), vmin, vmax);
      }
    } else {
      for (size_t i0 = 0; i0 < inner; i0 += 256) {
        size_t cnt = inner - i0 < 256 ? inner - i0 : 256;
        for (size_t i = 0; i < cnt; i++) {
          buf_a[i] = load_q(j->a, j->a->data, offa + (i0 + i) * sai);
          buf_b[i] = load_q(j->b, j->b->data, offb + (i0 + i) * sbi);
          buf_o[i] = pte_xnn_clampf(j->fn(buf_a[i], buf_b[i], 0.0f), vmin, vmax);
          store_q(j->o, j->o->data, out_off + i0 + i, buf_o[i]);
        }
      }
    }
  }
}

static void bin_task(void *ctx, size_t item, int tid) {
  (void)tid;
  const bin_job *j = (const bin_job *)ctx;
  const size_t per = (j->outer + 63) / 64;
  size_t o0 = item * per, o1 = o0 + per < j->outer ? o0 + per : j->outer;
  if (o0 < o1) bin_rows(j, o0, o1);
}

/* Splits a contiguous fp32 elementwise pass over the pool (chunks of 16 KiB and more). */
typedef struct ew_job {
  const pte_xnn_node *n;
  pte_xnn_f32_unary_fn fn;
  pte_xnn_uparams prm;
  const float *x;
  float *y;
  size_t numel, chunk;
  bool clamp_after; /* SiLU with a finite fused clamp */
  pte_xnn_f32_unary_fn clamp;
} ew_job;

static void ew_range(const ew_job *j, size_t i0, size_t i1) {
  j->fn(i1 - i0, j->x + i0, j->y + i0, &j->prm);
  if (j->clamp_after) j->clamp(i1 - i0, j->y + i0, j->y + i0, &j->prm);
}

static void ew_task(void *ctx, size_t item, int tid) {
  (void)tid;
  const ew_job *j = (const ew_job *)ctx;
  const size_t i0 = item * j->chunk, i1 = i0 + j->chunk < j->numel ? i0 + j->chunk : j->numel;
  if (i0 < i1) ew_range(j, i0, i1);
}

static void ew_run(pte_xnn_exec *x, ew_job *j) {
  if (x->threads > 1 && j->numel >= 65536) {
    const size_t parts = (size_t)x->threads * 4;
    j->chunk = ((j->numel + parts - 1) / parts + 15) & ~(size_t)15;
    pte_xnn_parallel(x->pool, ew_task, j, (j->numel + j->chunk - 1) / j->chunk);
  } else {
    ew_range(j, 0, j->numel);
  }
}

static pte_status run_binary(pte_xnn_exec *x, const pte_xnn_node *n) {
  pte_xnn_delegate *d = x->d;
  if (n->fuse == PTE_XNN_FUSE_SILU) {
    const pte_xnn_value *a = V(n->in[0]), *o = V(n->out[0]);
    ew_job e;
    memset(&e, 0, sizeof e);
    e.n = n;
    e.fn = x->vec->unary[PTE_XNN_U_SILU];
    e.prm.vmin = n->out_min;
    e.prm.vmax = n->out_max;
    e.x = (const float *)a->data;
    e.y = (float *)o->data;
    e.numel = o->numel;
    e.clamp_after = !(isinf(n->out_min) && n->out_min < 0) || !(isinf(n->out_max) && n->out_max > 0);
    e.clamp = x->vec->unary[PTE_XNN_U_CLAMP];
    ew_run(x, &e);
    return PTE_OK;
  }
  bin_job j;
  memset(&j, 0, sizeof j);
  j.d = d;
  j.k = x->k;
  j.n = n;
  j.a = V(n->in[0]);
  j.b = V(n->in[1]);
  j.o = V(n->out[0]);
  j.fn = binop_for(n->type);
  j.vfn = x->vec->binary[vbin_for(n->type)];
  const unsigned r = j.o->rank;
  size_t sa[PTE_XNN_MAX_DIMS], sb[PTE_XNN_MAX_DIMS];
  bstrides(j.a, r, j.o->shape, sa);
  bstrides(j.b, r, j.o->shape, sb);
  if (j.o->numel == 0) return PTE_OK;
  /* collapse dims: drop size-1 dims, merge neighbours with matching contiguity */
  unsigned cr = 0;
  for (unsigned i = 0; i < r; i++) {
    if (j.o->shape[i] == 1) continue;
    if (cr > 0) {
      unsigned p = cr - 1;
      bool a_ok = (sa[i] == 0 && j.sa[p] == 0) || (sa[i] != 0 && j.sa[p] == sa[i] * j.o->shape[i]);
      bool b_ok = (sb[i] == 0 && j.sb[p] == 0) || (sb[i] != 0 && j.sb[p] == sb[i] * j.o->shape[i]);
      if (a_ok && b_ok) {
        j.dims[p] *= j.o->shape[i];
        j.sa[p] = sa[i];
        j.sb[p] = sb[i];
        continue;
      }
    }
    j.dims[cr] = j.o->shape[i];
    j.sa[cr] = sa[i];
    j.sb[cr] = sb[i];
    cr++;
  }
  if (cr == 0) {
    j.dims[0] = 1;
    j.sa[0] = j.sb[0] = 1;
    cr = 1;
  }
  j.r = cr;
  j.inner = j.dims[cr - 1];
  j.outer = j.o->numel / j.inner;
  if (x->threads > 1 && j.o->numel >= 65536) {
    pte_xnn_parallel(x->pool, bin_task, &j, 64);
  } else {
    bin_rows(&j, 0, j.outer);
  }
  return PTE_OK;
}

static float gelu(float v) { return 0.5f * v * (1.0f + erff(v * 0.70710678118654752f)); }

static float unary_f(const pte_xnn_node *n, float v) {
  switch (n->type) {
    case pte_xn_XNodeUnion_XNNSigmoid: return 1.0f / (1.0f + expf(-v));
    case pte_xn_XNodeUnion_XNNClamp: return pte_xnn_clampf(v, n->out_min, n->out_max);
    case pte_xn_XNodeUnion_XNNFloor: return floorf(v);
    case pte_xn_XNodeUnion_XNNSquareRoot: return sqrtf(v);
    case pte_xn_XNodeUnion_XNNCeiling: return ceilf(v);
    case pte_xn_XNodeUnion_XNNHardswish: return v * pte_xnn_clampf(v + 3.0f, 0.0f, 6.0f) * (1.0f / 6.0f);
    case pte_xn_XNodeUnion_XNNNegate: return -v;
    case pte_xn_XNodeUnion_XNNSquare: return v * v;
    case pte_xn_XNodeUnion_XNNAbs: return fabsf(v);
    case pte_xn_XNodeUnion_XNNReciprocalSquareRoot: return 1.0f / sqrtf(v);
    case pte_xn_XNodeUnion_XNNLog: return logf(v);
    case pte_xn_XNodeUnion_XNNGelu: return gelu(v);
    case pte_xn_XNodeUnion_XNNTanh: return tanhf(v);
    case pte_xn_XNodeUnion_XNNExp: return expf(v);
    case pte_xn_XNodeUnion_XNNSin: return sinf(v);
    case pte_xn_XNodeUnion_XNNELU: return v > 0.0f ? v : n->p.elu.alpha * expm1f(v);
    case pte_xn_XNodeUnion_XNNLeakyReLU: return v < 0.0f ? v * n->p.leaky.slope : v;
    default: return v;
  }
}

/* Vectorised kernel of a unary node kind (PTE_XNN_U_*), or -1 (Log, Gelu, Sin: libm per element). */
static int vun_for(unsigned t) {
  switch (t) {
    case pte_xn_XNodeUnion_XNNAbs: return PTE_XNN_U_ABS;
    case pte_xn_XNodeUnion_XNNNegate: return PTE_XNN_U_NEG;
    case pte_xn_XNodeUnion_XNNSquare: return PTE_XNN_U_SQUARE;
    case pte_xn_XNodeUnion_XNNSquareRoot: return PTE_XNN_U_SQRT;
    case pte_xn_XNodeUnion_XNNReciprocalSquareRoot: return PTE_XNN_U_RSQRT;
    case pte_xn_XNodeUnion_XNNFloor: return PTE_XNN_U_FLOOR;
    case pte_xn_XNodeUnion_XNNCeiling: return PTE_XNN_U_CEIL;
    case pte_xn_XNodeUnion_XNNClamp: return PTE_XNN_U_CLAMP;
    case pte_xn_XNodeUnion_XNNSigmoid: return PTE_XNN_U_SIGMOID;
    case pte_xn_XNodeUnion_XNNTanh: return PTE_XNN_U_TANH;
    case pte_xn_XNodeUnion_XNNExp: return PTE_XNN_U_EXP;
    case pte_xn_XNodeUnion_XNNELU: return PTE_XNN_U_ELU;
    case pte_xn_XNodeUnion_XNNHardswish: return PTE_XNN_U_HARDSWISH;
    case pte_xn_XNodeUnion_XNNLeakyReLU: return PTE_XNN_U_LEAKY;
    default: return -1;
  }
}

static void un_log(size_t n, const float *x, float *y, const pte_xnn_uparams *p) {
  (void)p;
  for (size_t i = 0; i < n; i++) y[i] = logf(x[i]);
}
static void un_gelu(size_t n, const float *x, float *y, const pte_xnn_uparams *p) {
  (void)p;
  for (size_t i = 0; i < n; i++) y[i] = gelu(x[i]);
}
static void un_sin(size_t n, const float *x, float *y, const pte_xnn_uparams *p) {
  (void)p;
  for (size_t i = 0; i < n; i++) y[i] = sinf(x[i]);
}

static pte_status run_unary(pte_xnn_exec *x, const pte_xnn_node *n) {
  pte_xnn_delegate *d = x->d;
  const pte_xnn_value *a = V(n->in[0]), *o = V(n->out[0]);
  if (is_f32(a)) {
    ew_job e;
    memset(&e, 0, sizeof e);
    e.n = n;
    const int u = vun_for(n->type);
    e.fn = u >= 0 ? x->vec->unary[u]
           : n->type == pte_xn_XNodeUnion_XNNLog ? un_log
           : n->type == pte_xn_XNodeUnion_XNNGelu ? un_gelu : un_sin;
    e.prm.vmin = n->out_min;
    e.prm.vmax = n->out_max;
    e.prm.alpha = n->type == pte_xn_XNodeUnion_XNNELU ? n->p.elu.alpha : n->p.leaky.slope;
    e.x = (const float *)a->data;
    e.y = (float *)o->data;
    e.numel = a->numel;
    ew_run(x, &e);
    return PTE_OK;
  }
  for (size_t i = 0; i < a->numel; i++) store_q(o, o->data, i, unary_f(n, load_q(a, a->data, i)));
  return PTE_OK;
}

static pte_status run_softmax(pte_xnn_exec *x, const pte_xnn_node *n) {
  pte_xnn_delegate *d = x->d;
  const pte_xnn_value *a = V(n->in[0]), *o = V(n->out[0]);
  const size_t c = a->shape[a->rank - 1];
  if (c == 0) return PTE_OK;
  const size_t rows = a->numel / c;
  for (size_t r = 0; r < rows; r++) {
    const float *pa = (const float *)a->data + r * c;
    float *po = (float *)o->data + r * c;
    float mx = pa[0];
    for (size_t i = 1; i < c; i++) mx = pa[i] > mx ? pa[i] : mx;
    float sum = 0.0f;
    for (size_t i = 0; i < c; i++) {
      po[i] = expf(pa[i] - mx);
      sum += po[i];
    }
    const float inv = 1.0f / sum;
    for (size_t i = 0; i < c; i++) po[i] *= inv;
  }
  return PTE_OK;
}

static pte_status run_convert(pte_xnn_exec *x, const pte_xnn_node *n) {
  pte_xnn_delegate *d = x->d;
  const pte_xnn_value *a = V(n->in[0]), *o = V(n->out[0]);
  if (is_f32(a) && is_f32(o)) {
    if (a->data != o->data) memmove(o->data, a->data, a->numel * 4);
    return PTE_OK;
  }
  if (is_f32(a) && o->dtype == PTE_XD_QDINT8) {
    const int nb = o->num_nonbatch_dims > 0 ? o->num_nonbatch_dims : 1;
    size_t inner = 1;
    for (int i = (int)o->rank - nb; i < (int)o->rank; i++)
      if (i >= 0) inner *= o->shape[i];
    const size_t rows = inner ? o->numel / inner : 0;
    pte_xnn_qrow *qp = (pte_xnn_qrow *)(o->data + ((o->numel + 63) & ~(size_t)63));
    const float *pa = (const float *)a->data;
    int8_t *po = (int8_t *)o->data;
    for (size_t r = 0; r < rows; r++) {
      const float *row = pa + r * inner;
      float mn = 0.0f, mx = 0.0f;
      for (size_t i = 0; i < inner; i++) {
        mn = row[i] < mn ? row[i] : mn;
        mx = row[i] > mx ? row[i] : mx;
      }
      float inv;
      qp[r] = pte_xnn_qd8_params(mn, mx, &inv);
      for (size_t i = 0; i < inner; i++)
        po[r * inner + i] = (int8_t)pte_xnn_quantize(row[i], inv, qp[r].zero_point, -128, 127);
    }
    return PTE_OK;
  }
  if (is_f32(a)) {
    const float *pa = (const float *)a->data;
    for (size_t i = 0; i < a->numel; i++) store_q(o, o->data, i, pa[i]);
    return PTE_OK;
  }
  if (is_f32(o)) {
    float *po = (float *)o->data;
    for (size_t i = 0; i < a->numel; i++) po[i] = load_q(a, a->data, i);
    return PTE_OK;
  }
  for (size_t i = 0; i < a->numel; i++) store_q(o, o->data, i, load_q(a, a->data, i));
  return PTE_OK;
}

/* ---- data movement ------------------------------------------------------------------------ */

static void strides_of(const size_t *dims, unsigned r, size_t *st) {
  size_t s = 1;
  for (int i = (int)r - 1; i >= 0; i--) {
    st[i] = s;
    s *= dims[i];
  }
}

/* batch x ([X, Y] -> [Y, X]) for fp32, in 16 x 16 tiles. */
static void tr2d_f32(const float *src, float *dst, size_t batch, size_t X, size_t Y) {
  for (size_t bi = 0; bi < batch; bi++, src += X * Y, dst += X * Y)
    for (size_t x0 = 0; x0 < X; x0 += 16) {
      const size_t x1 = x0 + 16 < X ? x0 + 16 : X;
      for (size_t y0 = 0; y0 < Y; y0 += 16) {
        const size_t y1 = y0 + 16 < Y ? y0 + 16 : Y;
        for (size_t y = y0; y < y1; y++)
          for (size_t xx = x0; xx < x1; xx++) dst[y * X + xx] = src[xx * Y + y];
      }
    }
}

static pte_status run_transpose(pte_xnn_exec *x, const pte_xnn_node *n) {
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
      tr2d_f32((const float *)a->data, (float *)o->data, 1, md[1], md[0]);
      return PTE_OK;
    }
    if (mr == 3 && mp[0] < mp[2] && mp[2] < mp[1]) {
      tr2d_f32((const float *)a->data, (float *)o->data, md[0], md[2], md[1]);
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

static pte_status run_slice(pte_xnn_exec *x, const pte_xnn_node *n) {
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

static pte_status run_pad(pte_xnn_exec *x, const pte_xnn_node *n) {
  pte_xnn_delegate *d = x->d;
  const pte_xnn_value *a = V(n->in[0]), *o = V(n->out[0]);
  const unsigned r = a->rank;
  const size_t es = pte_xnn_dtype_size(a->dtype);
  if (o->numel == 0) return PTE_OK;
  /* fill with the padding value, then copy the input rows in place */
  uint8_t pv[4];
  if (es == 4) {
    float f = n->p.pad.value;
    memcpy(pv, &f, 4);
  } else {
    int32_t q = pte_xnn_quantize(n->p.pad.value, 1.0f / o->scale, o->zero_point, q_lo(o), q_hi(o));
    pv[0] = (uint8_t)q;
  }
  for (size_t i = 0; i < o->numel; i++) memcpy(o->data + i * es, pv, es);
  if (a->numel == 0) return PTE_OK;
  size_t ost[PTE_XNN_MAX_DIMS];
  strides_of(o->shape, r, ost);
  const size_t inner = a->shape[r - 1];
  const size_t outer = a->numel / inner;
  size_t idx[PTE_XNN_MAX_DIMS] = {0};
  for (size_t q = 0; q < outer; q++) {
    size_t off = n->p.pad.pre[r - 1] * ost[r - 1];
    for (unsigned i = 0; i + 1 < r; i++) off += (idx[i] + n->p.pad.pre[i]) * ost[i];
    memcpy(o->data + off * es, a->data + q * inner * es, inner * es);
    for (int i = (int)r - 2; i >= 0; i--) {
      if (++idx[i] < a->shape[i]) break;
      idx[i] = 0;
    }
  }
  return PTE_OK;
}

static pte_status run_concat(pte_xnn_exec *x, const pte_xnn_node *n) {
  pte_xnn_delegate *d = x->d;
  const pte_xnn_value *o = V(n->out[0]);
  const unsigned ax = n->p.cat.axis, r = o->rank;
  const size_t es = pte_xnn_dtype_size(o->dtype);
  size_t outer = 1, inner_o = 1;
  for (unsigned i = 0; i < ax; i++) outer *= o->shape[i];
  for (unsigned i = ax; i < r; i++) inner_o *= o->shape[i];
  size_t col = 0;
  for (unsigned k = 0; k < n->n_in; k++) {
    const pte_xnn_value *a = V(n->in[k]);
    size_t inner_a = 1;
    for (unsigned i = ax; i < r; i++) inner_a *= a->shape[i];
    for (size_t q = 0; q < outer; q++) memcpy(o->data + (q * inner_o + col) * es, a->data + q * inner_a * es, inner_a * es);
    col += inner_a;
  }
  return PTE_OK;
}

/* ---- pooling, resize ---------------------------------------------------------------------- */

/* fp32 pooling: every output pixel is accumulated in place over its valid taps with the vector
 * max/add kernels (no temporary), then scaled (average) and clamped. */
static void pool_f32(pte_xnn_exec *x, const pte_xnn_node *n, const pte_xnn_value *a, const pte_xnn_value *o) {
  const pte_xnn_pool_params *p = &n->p.pool;
  const size_t N = a->shape[0], H = a->shape[1], W = a->shape[2], C = a->shape[3];
  const size_t OH = o->shape[1], OW = o->shape[2];
  const size_t sh = p->sh ? p->sh : 1, sw = p->sw ? p->sw : 1, dh = p->dh ? p->dh : 1, dw = p->dw ? p->dw : 1;
  const bool mx = n->type == pte_xn_XNodeUnion_XNNMaxPooling2d;
  const pte_xnn_f32_binary_fn acc = x->vec->binary[mx ? PTE_XNN_B_MAX : PTE_XNN_B_ADD][PTE_XNN_BS_VV];
  const pte_xnn_f32_binary_fn scale = x->vec->binary[PTE_XNN_B_MUL][PTE_XNN_BS_VS];
  const pte_xnn_f32_unary_fn clamp = x->vec->unary[PTE_XNN_U_CLAMP];
  const pte_xnn_uparams cp = {n->out_min, n->out_max, 0.0f};
  const float *in = (const float *)a->data;
  for (size_t b = 0; b < N; b++)
    for (size_t oy = 0; oy < OH; oy++)
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

static pte_status run_pool(pte_xnn_exec *x, const pte_xnn_node *n) {
  pte_xnn_delegate *d = x->d;
  const pte_xnn_value *a = V(n->in[0]), *o = V(n->out[0]);
  if (is_f32(a)) {
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
                float v = load_q(a, a->data, base + c);
                acc[c] = mx ? (v > acc[c] ? v : acc[c]) : acc[c] + v;
              }
            }
          }
          const size_t obase = ((b * OH + oy) * OW + ox) * C + c0;
          const float inv = valid ? 1.0f / (float)valid : 0.0f;
          for (size_t c = 0; c < cn; c++) {
            float v = mx ? acc[c] : acc[c] * inv;
            store_q(o, o->data, obase + c, pte_xnn_clampf(v, n->out_min, n->out_max));
          }
        }
  return PTE_OK;
}

static pte_status run_global_avg(pte_xnn_exec *x, const pte_xnn_node *n) {
  pte_xnn_delegate *d = x->d;
  const pte_xnn_value *a = V(n->in[0]), *o = V(n->out[0]);
  const size_t N = a->shape[0], HW = a->shape[1] * a->shape[2], C = a->shape[3];
  const bool q = !is_f32(a);
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
            for (size_t c = 0; c < cn; c++) acc[c] += (double)load_q(a, a->data, (b * HW + i) * C + c0 + c);
        }
      }
      for (size_t c = 0; c < cn; c++) {
        float v = HW ? (float)(acc[c] / (double)HW) : 0.0f;
        v = pte_xnn_clampf(v, n->out_min, n->out_max);
        if (q) store_q(o, o->data, b * C + c0 + c, v);
        else ((float *)o->data)[b * C + c0 + c] = v;
      }
    }
  return PTE_OK;
}

static pte_status run_resize(pte_xnn_exec *x, const pte_xnn_node *n) {
  pte_xnn_delegate *d = x->d;
  const pte_xnn_value *a = V(n->in[0]), *o = V(n->out[0]);
  const size_t N = a->shape[0], H = a->shape[1], W = a->shape[2], C = a->shape[3];
  const size_t OH = o->shape[1], OW = o->shape[2];
  const bool align = (n->flags & PTE_XNN_FLAG_ALIGN_CORNERS) != 0;
  const bool legacy = (n->flags & PTE_XNN_FLAG_TENSORFLOW_LEGACY_MODE) != 0;
  const bool q = !is_f32(a);
  const float sy = (align && OH > 1) ? (float)(H - 1) / (float)(OH - 1) : (float)H / (float)OH;
  const float sx = (align && OW > 1) ? (float)(W - 1) / (float)(OW - 1) : (float)W / (float)OW;
  for (size_t b = 0; b < N; b++)
    for (size_t oy = 0; oy < OH; oy++) {
      float fy = (align || legacy) ? (float)oy * sy : ((float)oy + 0.5f) * sy - 0.5f;
      if (fy < 0.0f) fy = 0.0f;
      size_t y0 = (size_t)fy;
      if (y0 > H - 1) y0 = H - 1;
      const size_t y1 = y0 + 1 < H ? y0 + 1 : H - 1;
      const float ly = fy - (float)y0 > 1.0f ? 1.0f : fy - (float)y0;
      for (size_t ox = 0; ox < OW; ox++) {
        float fx = (align || legacy) ? (float)ox * sx : ((float)ox + 0.5f) * sx - 0.5f;
        if (fx < 0.0f) fx = 0.0f;
        size_t x0 = (size_t)fx;
        if (x0 > W - 1) x0 = W - 1;
        const size_t x1 = x0 + 1 < W ? x0 + 1 : W - 1;
        const float lx = fx - (float)x0 > 1.0f ? 1.0f : fx - (float)x0;
        const size_t i00 = ((b * H + y0) * W + x0) * C, i01 = ((b * H + y0) * W + x1) * C;
        const size_t i10 = ((b * H + y1) * W + x0) * C, i11 = ((b * H + y1) * W + x1) * C;
        const size_t ob = ((b * OH + oy) * OW + ox) * C;
        for (size_t c = 0; c < C; c++) {
          float v00, v01, v10, v11;
          if (q) {
            v00 = load_q(a, a->data, i00 + c), v01 = load_q(a, a->data, i01 + c);
            v10 = load_q(a, a->data, i10 + c), v11 = load_q(a, a->data, i11 + c);
          } else {
            const float *pa = (const float *)a->data;
            v00 = pa[i00 + c], v01 = pa[i01 + c], v10 = pa[i10 + c], v11 = pa[i11 + c];
          }
          const float top = v00 + (v01 - v00) * lx, bot = v10 + (v11 - v10) * lx;
          const float v = top + (bot - top) * ly;
          if (q) store_q(o, o->data, ob + c, v);
          else ((float *)o->data)[ob + c] = v;
        }
      }
    }
  return PTE_OK;
}

/* ---- FC, BMM, conv -------------------------------------------------------------------------- */

static pte_status run_fc(pte_xnn_exec *x, const pte_xnn_node *n) {
  pte_xnn_delegate *d = x->d;
  const pte_xnn_value *a = V(n->in[0]), *w = V(n->in[1]), *o = V(n->out[0]);
  const bool tr = (n->flags & PTE_XNN_FLAG_TRANSPOSE_WEIGHTS) != 0;
  const size_t nout = tr ? w->shape[1] : w->shape[0], kdim = tr ? w->shape[0] : w->shape[1];
  const size_t m = kdim ? a->numel / kdim : (a->rank ? a->numel / (a->shape[a->rank - 1] ? a->shape[a->rank - 1] : 1) : 1);
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

static pte_status run_bmm(pte_xnn_exec *x, const pte_xnn_node *n) {
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
  bstrides(&ta, br, o->shape, sa);
  bstrides(&tb, br, o->shape, sb);
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

/* One im2col row: the kh x kw x gin input values output pixel m reads (padding -> pad_q). */
static void im2col_pixel(const conv_job *j, size_t m, uint8_t *row, int32_t pad_q, size_t cin_off) {
  const pte_xnn_node *n = j->n;
  const pte_xnn_conv_params *p = &n->p.conv;
  const size_t es = n->variant == PTE_XNN_V_F32 ? 4 : 1;
  const size_t OHW = j->OH * j->OW;
  const size_t b = m / OHW, rem = m % OHW, oy = rem / j->OW, ox = rem % j->OW;
  size_t col = 0;
  const long ix0 = (long)(ox * p->sw) - (long)n->rt_pl;
  /* with unit dilation and one group, the taps of a kernel row are adjacent input pixels */
  const bool run = p->dw == 1 && j->gin == j->Cin && ix0 >= 0 && ix0 + (long)p->kw <= (long)j->W;
  for (size_t ky = 0; ky < p->kh; ky++) {
    const long iy = (long)(oy * p->sh + ky * p->dh) - (long)n->rt_pt;
    if (run && iy >= 0 && iy < (long)j->H) {
      const size_t src = ((b * j->H + (size_t)iy) * j->W + (size_t)ix0) * j->Cin;
      memcpy(row + col * es, j->a->data + src * es, p->kw * j->gin * es);
      col += p->kw * j->gin;
      continue;
    }
    for (size_t kx = 0; kx < p->kw; kx++) {
      const long ix = ix0 + (long)(kx * p->dw);
      uint8_t *dst = row + col * es;
      if (iy < 0 || iy >= (long)j->H || ix < 0 || ix >= (long)j->W) {
        if (es == 4) memset(dst, 0, j->gin * 4);
        else memset(dst, (int)(int8_t)pad_q, j->gin);
      } else {
        const size_t src = ((b * j->H + (size_t)iy) * j->W + (size_t)ix) * j->Cin + cin_off;
        if (es == 4 && j->gin == 1) ((float *)dst)[0] = ((const float *)j->a->data)[src];
        else memcpy(dst, j->a->data + src * es, j->gin * es);
      }
      col += j->gin;
    }
  }
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
    for (size_t ox = lo; ox < hi; ox += mr) {
      const size_t rows = hi - ox < mr ? hi - ox : mr;
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
    }
  } else {
    lo = hi = 0; /* no valid kernel row: everything through the generic path (bias only) */
  }
  /* borders: [0, lo) and [hi, OW) */
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
  for (size_t m = m0; m < m1; m++) {
    int32_t pad_q = 0;
    if (n->variant == PTE_XNN_V_QS8) pad_q = j->a->zero_point;
    if (n->variant == PTE_XNN_V_QD8) pad_q = qrows[m / rdiv].zero_point;
    im2col_pixel(j, m, buf + (m - m0) * j->kdim * es, pad_q, cin_off);
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

static pte_status run_conv(pte_xnn_exec *x, const pte_xnn_node *n) {
  pte_xnn_delegate *d = x->d;
  const pte_xnn_value *a = V(n->in[0]), *o = V(n->out[0]);
  const pte_xnn_conv_params *p = &n->p.conv;
  if (o->numel == 0) return PTE_OK;
  if (n->as_dwconv) {
    dw_job j = {x, n, a, o, a->shape[1], a->shape[2], a->shape[3], o->shape[1], o->shape[2]};
    pte_xnn_parallel(x->threads > 1 ? x->pool : NULL, dw_rows, &j, a->shape[0] * j.OH);
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
  j.direct = n->variant == PTE_XNN_V_F32 && n->n_groups == 1 && p->kh == 1 && p->kw == 1 && p->sh == 1 && p->sw == 1 &&
             n->rt_pt == 0 && n->rt_pl == 0 && j.OH == j.H && j.OW == j.W;
  j.tile = j.direct ? (j.M < 256 ? j.M : 256) : conv_tile_rows(x->k, j.kdim, es);
  if (j.tile == 0) j.tile = 1;
  j.tiles = (j.M + j.tile - 1) / j.tile;
  if (!j.direct && n->variant == PTE_XNN_V_F32 && n->n_groups == 1 && j.gin == j.Cin && p->dw == 1 && p->kh <= 64) {
    pte_xnn_parallel(x->threads > 1 ? x->pool : NULL, conv_row, &j, a->shape[0] * j.OH);
    return PTE_OK;
  }
  pte_xnn_parallel(x->threads > 1 ? x->pool : NULL, conv_tile, &j, j.tiles * n->n_groups);
  return PTE_OK;
}

pte_status pte_xnn_run_node(pte_xnn_exec *x, size_t ni, pte_error_info *err) {
  pte_xnn_delegate *d = x->d;
  const pte_xnn_node *n = &d->nodes[ni];
  const unsigned t = n->type;
  pte_status s;
  if (n->fuse == PTE_XNN_FUSE_SKIP) return PTE_OK;
  if (is_binary(t)) s = run_binary(x, n);
  else if (is_unary_math(t)) s = run_unary(x, n);
  else
    switch (t) {
      case pte_xn_XNodeUnion_XNNFullyConnected: s = run_fc(x, n); break;
      case pte_xn_XNodeUnion_XNNConv2d:
      case pte_xn_XNodeUnion_XNNDepthwiseConv2d: s = run_conv(x, n); break;
      case pte_xn_XNodeUnion_XNNBatchMatrixMultiply: s = run_bmm(x, n); break;
      case pte_xn_XNodeUnion_XNNSoftmax: s = run_softmax(x, n); break;
      case pte_xn_XNodeUnion_XNNConvert: s = run_convert(x, n); break;
      case pte_xn_XNodeUnion_XNNStaticTranspose: s = run_transpose(x, n); break;
      case pte_xn_XNodeUnion_XNNStaticReshape: {
        const pte_xnn_value *a = V(n->in[0]), *o = V(n->out[0]);
        if (a->data != o->data) memmove(o->data, a->data, a->numel * pte_xnn_dtype_size(a->dtype));
        s = PTE_OK;
        break;
      }
      case pte_xn_XNodeUnion_XNNStaticSlice: s = run_slice(x, n); break;
      case pte_xn_XNodeUnion_XNNStaticConstantPad: s = run_pad(x, n); break;
      case pte_xn_XNodeUnion_XNNConcatenate2:
      case pte_xn_XNodeUnion_XNNConcatenate3:
      case pte_xn_XNodeUnion_XNNConcatenate4:
      case pte_xn_XNodeUnion_XNNConcatenate5: s = run_concat(x, n); break;
      case pte_xn_XNodeUnion_XNNAvgPooling2d:
      case pte_xn_XNodeUnion_XNNMaxPooling2d: s = run_pool(x, n); break;
      case pte_xn_XNodeUnion_XNNGlobalAvgPooling2d: s = run_global_avg(x, n); break;
      case pte_xn_XNodeUnion_XNNStaticResizeBilinear2D: s = run_resize(x, n); break;
      default: s = PTE_ERR_NOT_IMPLEMENTED;
    }
  if (s != PTE_OK)
    return NERR(s, "xnnpack: node %zu (%s) failed (%s)", ni, pte_xnn_node_name(t), pte_status_name(s));
  return PTE_OK;
}
