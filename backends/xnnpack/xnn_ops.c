/* Per-node preparation (dtype checks, weight packing) and execution; shape inference: xnn_infer.c. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "xnn_ops.h"
#include "xnn_q4.h"

#define NERR(st, ...) pte_error_set(err, (st), __VA_ARGS__)

/* ============================================================================ helpers */

static bool is_q8(const pte_xnn_value *v) { return v->dtype == PTE_XD_QINT8 || v->dtype == PTE_XD_QUINT8; }

static bool same_q(const pte_xnn_value *a, const pte_xnn_value *b) {
  return a->dtype == b->dtype && (!is_q8(a) || (a->scale == b->scale && a->zero_point == b->zero_point));
}

static void mark_raw(pte_xnn_delegate *d, uint32_t vi) {
  if (vi != PTE_XNN_INVALID_ID && V(vi)->is_const) V(vi)->raw_needed = true;
}

/* quantized output bounds of a fused clamp */
static void q_bounds(const pte_xnn_value *out, float mn, float mx, int32_t *qmin, int32_t *qmax) {
  float lo = mn / out->scale + (float)out->zero_point, hi = mx / out->scale + (float)out->zero_point;
  float a = (float)xo_q_lo(out), b = (float)xo_q_hi(out);
  lo = lo < a ? a : (lo > b ? b : lo);
  hi = hi < a ? a : (hi > b ? b : hi);
  if (isnan(lo)) lo = a;
  if (isnan(hi)) hi = b;
  *qmin = (int32_t)lrintf(lo);
  *qmax = (int32_t)lrintf(hi);
}

/* ============================================================================ node kinds */

#define K_BIN(op) {PTE_XNN_FAM_BINARY, op, pte_xnn_run_binary}
#define K_UN(op) {PTE_XNN_FAM_UNARY, op, pte_xnn_run_unary}
#define K_MOVE(fn) {PTE_XNN_FAM_MOVE, -1, fn}
#define K_OTHER(fn) {PTE_XNN_FAM_OTHER, -1, fn}

/* Every node kind this backend runs, by XNodeUnion tag (absent: not supported). */
static const pte_xnn_kind k_kinds[] = {
    [pte_xn_XNodeUnion_XNNAdd] = K_BIN(PTE_XNN_B_ADD),
    [pte_xn_XNodeUnion_XNNSubtract] = K_BIN(PTE_XNN_B_SUB),
    [pte_xn_XNodeUnion_XNNMultiply] = K_BIN(PTE_XNN_B_MUL),
    [pte_xn_XNodeUnion_XNNDiv] = K_BIN(PTE_XNN_B_DIV),
    [pte_xn_XNodeUnion_XNNMinimum] = K_BIN(PTE_XNN_B_MIN),
    [pte_xn_XNodeUnion_XNNMaximum] = K_BIN(PTE_XNN_B_MAX),
    [pte_xn_XNodeUnion_XNNPReLU] = K_BIN(PTE_XNN_B_PRELU),
    [pte_xn_XNodeUnion_XNNAbs] = K_UN(PTE_XNN_U_ABS),
    [pte_xn_XNodeUnion_XNNNegate] = K_UN(PTE_XNN_U_NEG),
    [pte_xn_XNodeUnion_XNNSquare] = K_UN(PTE_XNN_U_SQUARE),
    [pte_xn_XNodeUnion_XNNSquareRoot] = K_UN(PTE_XNN_U_SQRT),
    [pte_xn_XNodeUnion_XNNReciprocalSquareRoot] = K_UN(PTE_XNN_U_RSQRT),
    [pte_xn_XNodeUnion_XNNFloor] = K_UN(PTE_XNN_U_FLOOR),
    [pte_xn_XNodeUnion_XNNCeiling] = K_UN(PTE_XNN_U_CEIL),
    [pte_xn_XNodeUnion_XNNClamp] = K_UN(PTE_XNN_U_CLAMP),
    [pte_xn_XNodeUnion_XNNSigmoid] = K_UN(PTE_XNN_U_SIGMOID),
    [pte_xn_XNodeUnion_XNNTanh] = K_UN(PTE_XNN_U_TANH),
    [pte_xn_XNodeUnion_XNNExp] = K_UN(PTE_XNN_U_EXP),
    [pte_xn_XNodeUnion_XNNELU] = K_UN(PTE_XNN_U_ELU),
    [pte_xn_XNodeUnion_XNNHardswish] = K_UN(PTE_XNN_U_HARDSWISH),
    [pte_xn_XNodeUnion_XNNLeakyReLU] = K_UN(PTE_XNN_U_LEAKY),
    [pte_xn_XNodeUnion_XNNLog] = K_UN(PTE_XNN_U_LOG),
    [pte_xn_XNodeUnion_XNNGelu] = K_UN(PTE_XNN_U_GELU),
    [pte_xn_XNodeUnion_XNNSin] = K_UN(PTE_XNN_U_SIN),
    [pte_xn_XNodeUnion_XNNStaticTranspose] = K_MOVE(pte_xnn_run_transpose),
    [pte_xn_XNodeUnion_XNNStaticReshape] = K_MOVE(pte_xnn_run_reshape),
    [pte_xn_XNodeUnion_XNNStaticSlice] = K_MOVE(pte_xnn_run_slice),
    [pte_xn_XNodeUnion_XNNStaticConstantPad] = K_MOVE(pte_xnn_run_pad),
    [pte_xn_XNodeUnion_XNNConcatenate2] = K_MOVE(pte_xnn_run_concat),
    [pte_xn_XNodeUnion_XNNConcatenate3] = K_MOVE(pte_xnn_run_concat),
    [pte_xn_XNodeUnion_XNNConcatenate4] = K_MOVE(pte_xnn_run_concat),
    [pte_xn_XNodeUnion_XNNConcatenate5] = K_MOVE(pte_xnn_run_concat),
    [pte_xn_XNodeUnion_XNNStaticResizeBilinear2D] = K_OTHER(pte_xnn_run_resize),
    [pte_xn_XNodeUnion_XNNFullyConnected] = K_OTHER(pte_xnn_run_fc),
    [pte_xn_XNodeUnion_XNNConv2d] = K_OTHER(pte_xnn_run_conv),
    [pte_xn_XNodeUnion_XNNDepthwiseConv2d] = K_OTHER(pte_xnn_run_conv),
    [pte_xn_XNodeUnion_XNNBatchMatrixMultiply] = K_OTHER(pte_xnn_run_bmm),
    [pte_xn_XNodeUnion_XNNSoftmax] = K_OTHER(pte_xnn_run_softmax),
    [pte_xn_XNodeUnion_XNNConvert] = K_OTHER(pte_xnn_run_convert),
    [pte_xn_XNodeUnion_XNNMaxPooling2d] = K_OTHER(pte_xnn_run_pool),
    [pte_xn_XNodeUnion_XNNAvgPooling2d] = K_OTHER(pte_xnn_run_pool),
    [pte_xn_XNodeUnion_XNNGlobalAvgPooling2d] = K_OTHER(pte_xnn_run_global_avg),
};

const pte_xnn_kind *pte_xnn_kind_of(unsigned type) {
  static const pte_xnn_kind none = {PTE_XNN_FAM_NONE, -1, NULL};
  if (type >= sizeof k_kinds / sizeof k_kinds[0] || !k_kinds[type].run) return &none;
  return &k_kinds[type];
}

static bool is_data_movement(unsigned t) { return pte_xnn_kind_of(t)->family == PTE_XNN_FAM_MOVE; }

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
  if (w->dtype == PTE_XD_FP16 || w->dtype == PTE_XD_BF16) { /* half-precision weights: widened at pack time */
    for (size_t i = 0; i < w->numel; i++) {
      const uint16_t h = (uint16_t)(w->cdata[2 * i] | (w->cdata[2 * i + 1] << 8));
      f[i] = w->dtype == PTE_XD_FP16 ? pte_xnn_f16_to_f32(h) : pte_xnn_bf16_to_f32(h);
    }
    *out = f;
    *tmp = f;
    return PTE_OK;
  }
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

/* The envelope around prepared weights an XPB1 NAMED entry vouched for (w->prep_deferred): this
 * backend, format and machine, and its payload exactly the bytes init took. */
static pte_status deferred_envelope(pte_xnn_delegate *d, size_t ni, const pte_xnn_value *w, const uint8_t *payload,
                                    size_t size, pte_error_info *err) {
  const char *name = pte_xnn_node_name(d->nodes[ni].type);
  pte_prepared_info pi;
  bool foreign = false;
  pte_status s = pte_xnn_envelope_check(payload - PTE_PREPARED_HEADER_SIZE, PTE_PREPARED_HEADER_SIZE + size, d->k, false,
                                        &pi, &foreign, err);
  if (s == PTE_ERR_NOT_FOUND)
    return NERR(PTE_ERR_INVALID_PROGRAM,
                "xnnpack: node %zu (%s): constant %u is listed as prepared by its blob but its value is not a "
                "prepared-data envelope",
                ni, name, w->const_index);
  if (s != PTE_OK) return s;
  if (pi.payload != payload || pi.payload_size != size)
    return NERR(PTE_ERR_INVALID_PROGRAM,
                "xnnpack: node %zu (%s): the envelope of constant %u (payload %llu bytes at %llu) is not what its "
                "prepared blob records (%zu bytes at %u)",
                ni, name, w->const_index, (unsigned long long)pi.payload_size, (unsigned long long)pi.payload_offset,
                size, PTE_PREPARED_HEADER_SIZE);
  return PTE_OK;
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
  if (w->prep_deferred && ((uintptr_t)src & 63u) != 0) {
    /* not usable in place (a loader's unaligned buffer): checked now, then copied below */
    pte_status s = deferred_envelope(d, ni, w, src, w->prep_size, err);
    if (s != PTE_OK) return s;
  } else if (w->prep_deferred) {
    /* not read at init: used in place as the sizes say; the first execute checks the envelope
     * and every group's panel header against `want` (pte_xnn_check_deferred) before a kernel
     * reads the bytes */
    if (!same)
      return NERR(PTE_ERR_INVALID_PROGRAM,
                  "xnnpack: node %zu (%s): the prepared weights of constant %u do not match this node "
                  "(expected kind %u, NR %u, N %u, K %u, %zu group(s))",
                  ni, name, w->const_index, want->kind, want->nr, want->n, want->k, groups);
    n->group_stride = one;
    n->n_groups = (uint32_t)groups;
    n->packed.bytes = (uint8_t *)(uintptr_t)src; /* read only: never written */
    n->packed.size = one * groups;
    n->packed_borrowed = true;
    n->prep_check = true;
    n->prep_want = *want;
    d->prep_checks_pending = true;
    pte_xnn_stat_add(PTE_XNN_STAT_PREPARED, 1);
    return PTE_OK;
  }
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

pte_status pte_xnn_check_deferred(pte_xnn_delegate *d, pte_error_info *err) {
  for (size_t ni = 0; ni < d->n_nodes; ni++) {
    pte_xnn_node *n = &d->nodes[ni];
    if (!n->prep_check) continue;
    const pte_xnn_value *w = &d->values[n->in[1]];
    const char *name = pte_xnn_node_name(n->type);
    pte_status s = deferred_envelope(d, ni, w, n->packed.bytes, n->packed.size, err);
    if (s != PTE_OK) return s;
    for (uint32_t g = 0; g < n->n_groups; g++) {
      pte_xnn_packed_info h;
      if (!pte_xnn_packed_header_read(n->packed.bytes + (size_t)g * n->group_stride, n->group_stride, &h) ||
          !same_layout(&h, &n->prep_want))
        return NERR(PTE_ERR_INVALID_PROGRAM,
                    "xnnpack: node %zu (%s): the prepared weights of constant %u do not match this node "
                    "(expected kind %u, NR %u, N %u, K %u, %u group(s))",
                    ni, name, w->const_index, n->prep_want.kind, n->prep_want.nr, n->prep_want.n, n->prep_want.k,
                    n->n_groups);
    }
    n->prep_check = false;
  }
  d->prep_checks_pending = false;
  return PTE_OK;
}

pte_status pte_xnn_use_prepared(pte_xnn_delegate *d, pte_xnn_node *n, const pte_xnn_value *w, size_t groups,
                                const pte_xnn_packed_info *want, size_t one, pte_error_info *err) {
  return use_prepared(d, n, w, groups, want, one, err);
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
  if (d->lazy_pack && d->lazy_node != (size_t)(n - d->nodes) + 1) { /* not this one (lazy init) */
    n->packed.size = one * groups;
    return PTE_OK;
  }
  if (d->lazy_pack && one * groups <= d->lazy_buf_size) { /* the caller's reused buffer */
    n->packed.bytes = d->lazy_buf;
    n->packed_borrowed = true;
  } else {
    n->packed.bytes = (uint8_t *)pte_xnn_packed_alloc(one * groups);
  }
  if (!n->packed.bytes) return NERR(PTE_ERR_MEMORY_ALLOCATION_FAILED, "xnnpack: out of memory packing weights");
  n->packed.size = one * groups; /* the packers write every byte of each group's blob once */
  if (n->variant == PTE_XNN_V_F32) {
    const float *wf;
    float *tmp;
    if (weights_f32(w, &wf, &tmp) != PTE_OK) return NERR(PTE_ERR_MEMORY_ALLOCATION_FAILED, "xnnpack: out of memory");
    const float *bf = b ? (const float *)b->cdata : NULL;
    float *btmp = NULL;
    if (b && !xo_f32(b)) { /* fp16 / bf16 bias */
      const float *bw;
      if (weights_f32(b, &bw, &btmp) != PTE_OK) {
        free(tmp);
        return NERR(PTE_ERR_MEMORY_ALLOCATION_FAILED, "xnnpack: out of memory");
      }
      bf = bw;
    }
    if (d->pool && groups == 1 && one >= ((size_t)1 << 20)) {
      /* header, then the panels in parallel over the pool */
      pk_job pj = {d->k, nout, kdim, wf, rs, cs, bf, n->packed.bytes, 0};
      pj.panels = (nout + pte_xnn_f32_tile_for_n(d->k, nout).nr - 1) / pte_xnn_f32_tile_for_n(d->k, nout).nr;
      pte_xnn_pack_f32_gemm_header(d->k, nout, kdim, n->packed.bytes);
      pte_xnn_parallel(d->pool, pk_task, &pj, 16);
    } else if (d->lazy_pack && groups == 1 && !tmp && cs == 1 && rs == kdim && pte_xnn_file_backed(w->cdata, w->csize)) {
      /* pte prepare (one weight at a time): panels in slices of about 8 MiB of weight rows, each
       * slice's rows dropped from the process once packed (the input is a mapped file) */
      const size_t nr = pte_xnn_f32_tile_for_n(d->k, nout).nr, panels = (nout + nr - 1) / nr;
      const size_t row = kdim * sizeof(float), per = row && nr ? ((size_t)8 << 20) / (row * nr) + 1 : panels;
      pte_xnn_pack_f32_gemm_header(d->k, nout, kdim, n->packed.bytes);
      for (size_t p0 = 0; p0 < panels; p0 += per) {
        const size_t p1 = p0 + per < panels ? p0 + per : panels, r1 = p1 * nr < nout ? p1 * nr : nout;
        pte_xnn_pack_f32_gemm_panels(d->k, nout, kdim, wf, rs, cs, bf, n->packed.bytes, p0, p1);
        pte_xnn_release_pages(wf + p0 * nr * kdim, (r1 - p0 * nr) * row);
      }
    } else {
      for (size_t g = 0; g < groups; g++)
        pte_xnn_pack_f32_gemm_into(d->k, nout, kdim, wf + g * gstep, rs, cs, bf ? bf + g * nout : NULL,
                                   n->packed.bytes + g * one);
    }
    free(tmp);
    free(btmp);
    if (d->lazy_pack && pte_xnn_file_backed(w->cdata, w->csize)) pte_xnn_release_pages(w->cdata, w->csize);
    pte_xnn_stat_add(PTE_XNN_STAT_PACKS, 1);
    pte_xnn_stat_add(PTE_XNN_STAT_PACKED_BYTES, n->packed.size);
    return PTE_OK;
  }
  const int8_t *wq = (const int8_t *)w->cdata;
  const bool release = d->lazy_pack && groups == 1 && cs == 1 && rs == kdim && pte_xnn_file_backed(w->cdata, w->csize);
  float *scales = (float *)malloc((nout ? nout : 1) * sizeof(float));
  if (!scales) return NERR(PTE_ERR_MEMORY_ALLOCATION_FAILED, "xnnpack: out of memory");
  for (size_t g = 0; g < groups; g++) {
    for (size_t o = 0; o < nout; o++) {
      float ws = wscale_of(w, g * nout + o);
      scales[o] = n->variant == PTE_XNN_V_QS8 ? (float)((double)in->scale * (double)ws / (double)out->scale) : ws;
    }
    /* pte prepare (one weight at a time, from a file mapping): panels in slices of about 8 MiB
     * of weight rows, each slice's rows dropped from the process once packed */
    const size_t nr = d->k->i8_nr, panels = (nout + nr - 1) / nr;
    const size_t per = release && kdim && nr ? ((size_t)8 << 20) / (kdim * nr) + 1 : panels;
    for (size_t p0 = 0; p0 < panels || p0 == 0; p0 += per) { /* once at least: the header */
      const size_t p1 = p0 + per < panels ? p0 + per : panels, r1 = p1 * nr < nout ? p1 * nr : nout;
      if (n->variant == PTE_XNN_V_QS8) {
        const int32_t *bq = b ? (const int32_t *)b->cdata + g * nout : NULL;
        pte_xnn_pack_qs8_gemm_panels(d->k, nout, kdim, wq + g * gstep, rs, cs, bq, in->zero_point, scales,
                                     n->packed.bytes + g * one, p0, p1);
      } else {
        const float *bf = b ? (const float *)b->cdata + g * nout : NULL;
        pte_xnn_pack_qd8_gemm_panels(d->k, nout, kdim, wq + g * gstep, rs, cs, scales, bf, n->packed.bytes + g * one,
                                     p0, p1);
      }
      if (release) pte_xnn_release_pages(wq + p0 * nr * kdim, (r1 - p0 * nr) * kdim);
    }
  }
  free(scales);
  if (d->lazy_pack && pte_xnn_file_backed(w->cdata, w->csize)) pte_xnn_release_pages(w->cdata, w->csize);
  pte_xnn_stat_add(PTE_XNN_STAT_PACKS, 1);
  pte_xnn_stat_add(PTE_XNN_STAT_PACKED_BYTES, n->packed.size);
  return PTE_OK;
}

/* Variant of a FC/conv from its dtypes. */
static pte_status pick_variant(pte_xnn_delegate *d, size_t ni, pte_xnn_node *n, pte_error_info *err) {
  const pte_xnn_value *in = V(n->in[0]), *w = V(n->in[1]), *out = V(n->out[0]);
  const pte_xnn_value *b = n->in[2] != PTE_XNN_INVALID_ID ? V(n->in[2]) : NULL;
  const char *name = pte_xnn_node_name(n->type);
  const bool half_w = (w->dtype == PTE_XD_FP16 || w->dtype == PTE_XD_BF16) && w->is_const;
  if (xo_f32(in) && xo_f32(out) && (!b || xo_f32(b) || (half_w && b->dtype == w->dtype && b->is_const))) {
    if (xo_f32(w) || half_w) { /* fp16 / bf16 constant weights: widened to fp32 at pack time */
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
  if (in->dtype == PTE_XD_QDINT8 && xo_f32(out) && (w->dtype == PTE_XD_QCINT4 || w->dtype == PTE_XD_QBINT4) &&
      (!b || xo_f32(b))) {
    if (n->type != pte_xn_XNodeUnion_XNNFullyConnected)
      return NERR(PTE_ERR_NOT_IMPLEMENTED, "xnnpack: node %zu (%s): %s filters are supported on FullyConnected only", ni,
                  name, pte_xnn_dtype_name(w->dtype));
    n->variant = PTE_XNN_V_QD8_Q4;
    return PTE_OK;
  }
  if (in->dtype == PTE_XD_QDINT8 && xo_f32(out) && (w->dtype == PTE_XD_QCINT8 || w->dtype == PTE_XD_QINT8) &&
      (!b || xo_f32(b))) {
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
  if (tr && n->variant == PTE_XNN_V_QD8_Q4)
    return NERR(PTE_ERR_NOT_IMPLEMENTED, "xnnpack: node %zu (FullyConnected): transposed %s filter is not supported", ni,
                pte_xnn_dtype_name(w->dtype));
  const size_t nout = tr ? w->decl[1] : w->decl[0], kdim = tr ? w->decl[0] : w->decl[1];
  if (b && (b->rank != 1 || b->decl[0] != nout))
    return NERR(PTE_ERR_INVALID_PROGRAM, "xnnpack: node %zu (FullyConnected): bias has %zu elements, %zu expected", ni,
                b->numel, nout);
  if (w->dtype == PTE_XD_QCINT8 && w->channel_dim != (tr ? 1u : 0u))
    return NERR(PTE_ERR_INVALID_PROGRAM, "xnnpack: node %zu (FullyConnected): filter scales are not per output channel", ni);
  if (!w->is_const || (b && !b->is_const)) {
    if (n->variant != PTE_XNN_V_F32 || !xo_f32(w))
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
  if (n->variant == PTE_XNN_V_QD8_Q4) return pte_xnn_prepare_fc_q4(d, n, nout, kdim, err);
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
      } else if (d->lazy_pack && d->lazy_node != ni + 1) { /* not this one (lazy init) */
        if (c > 0xFFFFFFFFu || taps > 0xFFFFFFFFu)
          return NERR(PTE_ERR_NOT_SUPPORTED, "xnnpack: node %zu (%s): cannot pack weights", ni, name);
        n->packed.size = (size_t)pte_xnn_packed_expect(d->k, PTE_XNN_PACK_F32_DWCONV, c, taps).total_size;
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
  s = pack_groups(d, n, groups, nout, kdim, gstep, rs, cs, err);
  /* one input and one output channel per group (depthwise, multiplier 1): the direct int8 kernel */
  if (s == PTE_OK && (n->variant == PTE_XNN_V_QS8 || n->variant == PTE_XNN_V_QD8) && groups > 1 && nout == 1 &&
      kdim == taps &&
      (dw || p->gic == 1)) {
    s = pte_xnn_dwq_prepare(n, d->k, in->zero_point);
    if (s != PTE_OK) return NERR(s, "xnnpack: node %zu (%s): out of memory laying out depthwise weights", ni, name);
  }
  return s;
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
  if (xo_is_binary(t)) {
    const pte_xnn_value *in2 = V(n->in[1]);
    if (t == pte_xn_XNodeUnion_XNNPReLU) {
      if (!xo_f32(in) || !xo_f32(in2) || !xo_f32(out))
        return NERR(PTE_ERR_NOT_IMPLEMENTED, "xnnpack: node %zu (%s): only fp32 is supported", ni, name);
      return PTE_OK;
    }
    if (xo_f32(in) && xo_f32(in2) && xo_f32(out)) return PTE_OK;
    if (is_q8(in) && is_q8(in2) && is_q8(out) && in->dtype == out->dtype && in2->dtype == out->dtype) return PTE_OK;
    return NERR(PTE_ERR_NOT_IMPLEMENTED, "xnnpack: node %zu (%s): %s x %s -> %s is not supported", ni, name,
                pte_xnn_dtype_name(in->dtype), pte_xnn_dtype_name(in2->dtype), pte_xnn_dtype_name(out->dtype));
  }
  if (t == pte_xn_XNodeUnion_XNNBatchMatrixMultiply) {
    if (!xo_f32(in) || !xo_f32(V(n->in[1])) || !xo_f32(out))
      return NERR(PTE_ERR_NOT_IMPLEMENTED, "xnnpack: node %zu (%s): only fp32 is supported", ni, name);
    return PTE_OK;
  }
  if (xo_is_unary_math(t)) {
    if (xo_f32(in) && xo_f32(out)) return PTE_OK;
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
      if (xo_f32(in) && xo_f32(out)) break;
      if (t != pte_xn_XNodeUnion_XNNSoftmax && is_q8(in) && in->dtype == out->dtype) break;
      return NERR(PTE_ERR_NOT_IMPLEMENTED, "xnnpack: node %zu (%s): %s -> %s is not supported", ni, name,
                  pte_xnn_dtype_name(in->dtype), pte_xnn_dtype_name(out->dtype));
    case pte_xn_XNodeUnion_XNNMaxPooling2d:
      if ((xo_f32(in) && xo_f32(out)) || (is_q8(in) && same_q(in, out))) break;
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

/* ============================================================================ execution */

pte_status pte_xnn_run_node(pte_xnn_exec *x, size_t ni, pte_error_info *err) {
  pte_xnn_delegate *d = x->d;
  const pte_xnn_node *n = &d->nodes[ni];
  if (n->fuse == PTE_XNN_FUSE_SKIP || n->fuse == PTE_XNN_FUSE_ALIAS) return PTE_OK;
  const pte_xnn_kind *k = pte_xnn_kind_of(n->type);
  const pte_status s = k->run ? k->run(x, n) : PTE_ERR_NOT_IMPLEMENTED;
  if (s != PTE_OK)
    return NERR(s, "xnnpack: node %zu (%s) failed (%s)", ni, pte_xnn_node_name(n->type), pte_status_name(s));
  return PTE_OK;
}
