/* xnnpack_lib.c — pte's parsed XNNPACK graph on the real XNNPACK library (see xnnpack_lib.h). */
#include "xnnpack_lib.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pthreadpool.h>
#include <xnnpack.h>

#include "pte_gen/xnnpack_gen.h"
#include "xnnpack_lib_internal.h"

enum { PXL_UNIT_LIB = 0, PXL_UNIT_HOST = 1 };

typedef struct pxl_unit {
  int kind;
  size_t first, last; /* node range [first, last] (HOST: one node) */
  xnn_runtime_t rt;
  uint32_t *ext_vals; /* pte value index of each library external id */
  size_t n_ext;
} pxl_unit;

typedef struct pxl_shape {
  size_t rank;
  size_t dims[PTE_XNN_MAX_DIMS];
} pxl_shape;

struct pxl_runner {
  const pte_xnn_delegate *d;
  pte_xnn_node *nodes; /* d's nodes as serialized (init-time fusions undone, see pxl_unfuse) */
  pxl_shape *shape;    /* per value: current shape (values left dead by a fusion: their source's) */
  pthreadpool_t pool;
  pxl_unit *units;
  size_t n_units;
  int *unit_of_node;
  uint8_t **cbytes;   /* per value: aligned copy of constant bytes (NULL for non-constants) */
  uint8_t **hbuf;     /* per value: host buffer of boundary values (owned unless external) */
  bool *boundary;     /* per value */
  bool *hbuf_owned;
  size_t num_ext;
  size_t *ext_bytes;  /* per external id */
  char host_nodes[512];
  bool bound;
};

static const char *pxl_status_name(enum xnn_status s) {
  switch (s) {
    case xnn_status_success: return "success";
    case xnn_status_uninitialized: return "uninitialized";
    case xnn_status_invalid_parameter: return "invalid parameter";
    case xnn_status_invalid_state: return "invalid state";
    case xnn_status_unsupported_parameter: return "unsupported parameter";
    case xnn_status_unsupported_hardware: return "unsupported hardware";
    case xnn_status_out_of_memory: return "out of memory";
    default: return "unknown status";
  }
}

int pxl_init(void) { return xnn_initialize(NULL) == xnn_status_success ? 0 : 1; }

static size_t pxl_numel(const pxl_shape *s) {
  size_t n = 1;
  for (size_t i = 0; i < s->rank; i++) n *= s->dims[i];
  return n;
}

/* ---- translation of one run of library nodes -------------------------------------------- */

typedef struct pxl_build {
  pxl_runner *r;
  xnn_subgraph_t sg;
  uint32_t *lib_id; /* per pte value: id in this subgraph, XNN_INVALID_VALUE_ID when not defined */
  char *err;
  size_t cap;
} pxl_build;

static int pxl_define_value(pxl_build *b, uint32_t vi, uint32_t ext_id, uint32_t flags, const uint32_t *shape_override,
                            size_t rank_override) {
  const pte_xnn_value *v = &b->r->d->values[vi];
  size_t dims[PTE_XNN_MAX_DIMS];
  size_t rank = b->r->shape[vi].rank;
  for (size_t i = 0; i < rank; i++) dims[i] = b->r->shape[vi].dims[i];
  if (shape_override) {
    rank = rank_override;
    for (size_t i = 0; i < rank; i++) dims[i] = shape_override[i];
  }
  const void *data = v->is_const ? b->r->cbytes[vi] : NULL;
  uint32_t id = XNN_INVALID_VALUE_ID;
  enum xnn_status s;
  switch (v->dtype) {
    case PTE_XD_FP32:
      s = xnn_define_tensor_value(b->sg, xnn_datatype_fp32, rank, dims, data, ext_id, flags, &id);
      break;
    case PTE_XD_QINT8:
    case PTE_XD_QUINT8:
    case PTE_XD_QINT32:
      s = xnn_define_quantized_tensor_value(b->sg,
                                            v->dtype == PTE_XD_QINT8    ? xnn_datatype_qint8
                                            : v->dtype == PTE_XD_QUINT8 ? xnn_datatype_quint8
                                                                        : xnn_datatype_qint32,
                                            v->zero_point, v->scale, rank, dims, data, ext_id, flags, &id);
      break;
    case PTE_XD_QCINT8:
    case PTE_XD_QCINT32:
      s = xnn_define_channelwise_quantized_tensor_value(
          b->sg, v->dtype == PTE_XD_QCINT8 ? xnn_datatype_qcint8 : xnn_datatype_qcint32, v->channel_scales, rank,
          v->channel_dim, dims, data, ext_id, flags, &id);
      break;
    default:
      pxl_msg(b->err, b->cap, "value id %u: datatype %s is not supported by the library", v->id,
              pte_xnn_dtype_name(v->dtype));
      return 1;
  }
  if (s != xnn_status_success) {
    pxl_msg(b->err, b->cap, "xnn_define_*tensor_value(value id %u, %s, rank %zu): %s", v->id,
            pte_xnn_dtype_name(v->dtype), rank, pxl_status_name(s));
    return 1;
  }
  b->lib_id[vi] = id;
  return 0;
}

/* Lib id of an input value (absent optional input: XNN_INVALID_VALUE_ID). */
static uint32_t pxl_in(pxl_build *b, uint32_t vi) {
  return vi == PTE_XNN_INVALID_ID ? XNN_INVALID_VALUE_ID : b->lib_id[vi];
}

/* The library node kinds without a fused output range get an explicit clamp after them. */
static bool pxl_has_range(const pte_xnn_node *n) { return isfinite(n->out_min) || isfinite(n->out_max); }

static int pxl_define_node(pxl_build *b, size_t ni) {
  const pte_xnn_delegate *d = b->r->d;
  const pte_xnn_node *n = &b->r->nodes[ni];
  const char *name = pte_xnn_node_name(n->type);
  const float lo = n->out_min, hi = n->out_max;
  uint32_t out = b->lib_id[n->out[0]];
  const uint32_t final_out = out;
  bool post_clamp = false;
  /* nodes whose library call has no output range */
  switch (n->type) {
    case pte_xn_XNodeUnion_XNNMinimum:
    case pte_xn_XNodeUnion_XNNMaximum:
    case pte_xn_XNodeUnion_XNNPReLU:
    case pte_xn_XNodeUnion_XNNSoftmax:
    case pte_xn_XNodeUnion_XNNSigmoid:
    case pte_xn_XNodeUnion_XNNFloor:
    case pte_xn_XNodeUnion_XNNCeiling:
    case pte_xn_XNodeUnion_XNNSquareRoot:
    case pte_xn_XNodeUnion_XNNSquare:
    case pte_xn_XNodeUnion_XNNNegate:
    case pte_xn_XNodeUnion_XNNAbs:
    case pte_xn_XNodeUnion_XNNHardswish:
    case pte_xn_XNodeUnion_XNNELU:
    case pte_xn_XNodeUnion_XNNLeakyReLU:
    case pte_xn_XNodeUnion_XNNConvert:
    case pte_xn_XNodeUnion_XNNStaticReshape:
    case pte_xn_XNodeUnion_XNNStaticConstantPad:
    case pte_xn_XNodeUnion_XNNStaticResizeBilinear2D:
      if (pxl_has_range(n)) {
        post_clamp = true;
        const pte_xnn_value *ov = &d->values[n->out[0]];
        const pxl_shape *os = &b->r->shape[n->out[0]];
        enum xnn_status s;
        if (ov->dtype == PTE_XD_FP32)
          s = xnn_define_tensor_value(b->sg, xnn_datatype_fp32, os->rank, os->dims, NULL, XNN_INVALID_VALUE_ID, 0, &out);
        else
          s = xnn_define_quantized_tensor_value(b->sg, ov->dtype == PTE_XD_QUINT8 ? xnn_datatype_quint8 : xnn_datatype_qint8,
                                                ov->zero_point, ov->scale, os->rank, os->dims, NULL, XNN_INVALID_VALUE_ID,
                                                0, &out);
        if (s != xnn_status_success) {
          pxl_msg(b->err, b->cap, "node %zu (%s): temporary for its output range: %s", ni, name, pxl_status_name(s));
          return 1;
        }
      }
      break;
    default:
      break;
  }
  const uint32_t in0 = pxl_in(b, n->in[0]), in1 = n->n_in > 1 ? pxl_in(b, n->in[1]) : XNN_INVALID_VALUE_ID,
                 in2 = n->n_in > 2 ? pxl_in(b, n->in[2]) : XNN_INVALID_VALUE_ID;
  const char *call = name;
  enum xnn_status s = xnn_status_success;
  switch (n->type) {
    case pte_xn_XNodeUnion_XNNAdd: call = "xnn_define_add2"; s = xnn_define_add2(b->sg, lo, hi, in0, in1, out, 0); break;
    case pte_xn_XNodeUnion_XNNSubtract:
      call = "xnn_define_subtract";
      s = xnn_define_subtract(b->sg, lo, hi, in0, in1, out, 0);
      break;
    case pte_xn_XNodeUnion_XNNMultiply:
      call = "xnn_define_multiply2";
      s = xnn_define_multiply2(b->sg, lo, hi, in0, in1, out, 0);
      break;
    case pte_xn_XNodeUnion_XNNDiv: call = "xnn_define_divide"; s = xnn_define_divide(b->sg, lo, hi, in0, in1, out, 0); break;
    case pte_xn_XNodeUnion_XNNMinimum: call = "xnn_define_minimum2"; s = xnn_define_minimum2(b->sg, in0, in1, out, 0); break;
    case pte_xn_XNodeUnion_XNNMaximum: call = "xnn_define_maximum2"; s = xnn_define_maximum2(b->sg, in0, in1, out, 0); break;
    case pte_xn_XNodeUnion_XNNPReLU: call = "xnn_define_prelu"; s = xnn_define_prelu(b->sg, in0, in1, out, 0); break;
    case pte_xn_XNodeUnion_XNNFullyConnected:
      call = "xnn_define_fully_connected";
      s = xnn_define_fully_connected(b->sg, lo, hi, in0, in1, in2, out,
                                     n->flags & (XNN_FLAG_TRANSPOSE_WEIGHTS | XNN_FLAG_TENSORFLOW_RESHAPE_2D));
      break;
    case pte_xn_XNodeUnion_XNNConv2d: {
      const pte_xnn_conv_params *p = &n->p.conv;
      call = "xnn_define_convolution_2d";
      s = xnn_define_convolution_2d(b->sg, p->pt, p->pr, p->pb, p->pl, p->kh, p->kw, p->sh, p->sw, p->dh, p->dw,
                                    p->groups, p->gic, p->goc, lo, hi, in0, in1, in2, out,
                                    n->flags & XNN_FLAG_TENSORFLOW_SAME_PADDING);
      break;
    }
    case pte_xn_XNodeUnion_XNNDepthwiseConv2d: {
      const pte_xnn_conv_params *p = &n->p.conv;
      call = "xnn_define_depthwise_convolution_2d";
      uint32_t mult = p->gic ? p->goc / p->gic : 0;
      s = xnn_define_depthwise_convolution_2d(b->sg, p->pt, p->pr, p->pb, p->pl, p->kh, p->kw, p->sh, p->sw, p->dh, p->dw,
                                              mult, p->groups, lo, hi, in0, in1, in2, out,
                                              n->flags & XNN_FLAG_TENSORFLOW_SAME_PADDING);
      break;
    }
    case pte_xn_XNodeUnion_XNNAvgPooling2d: {
      const pte_xnn_pool_params *p = &n->p.pool;
      call = "xnn_define_average_pooling_2d";
      s = xnn_define_average_pooling_2d(b->sg, p->pt, p->pr, p->pb, p->pl, p->ph, p->pw, p->sh, p->sw, lo, hi, in0, out,
                                        n->flags & XNN_FLAG_TENSORFLOW_SAME_PADDING);
      break;
    }
    case pte_xn_XNodeUnion_XNNMaxPooling2d: {
      const pte_xnn_pool_params *p = &n->p.pool;
      call = "xnn_define_max_pooling_2d";
      s = xnn_define_max_pooling_2d(b->sg, p->pt, p->pr, p->pb, p->pl, p->ph, p->pw, p->sh, p->sw, p->dh ? p->dh : 1,
                                    p->dw ? p->dw : 1, lo, hi, in0, out, n->flags & XNN_FLAG_TENSORFLOW_SAME_PADDING);
      break;
    }
    case pte_xn_XNodeUnion_XNNGlobalAvgPooling2d:
      call = "xnn_define_global_average_pooling_2d";
      s = xnn_define_global_average_pooling_2d(b->sg, lo, hi, in0, out, 0);
      break;
    case pte_xn_XNodeUnion_XNNSoftmax: call = "xnn_define_softmax"; s = xnn_define_softmax(b->sg, in0, out, 0); break;
    case pte_xn_XNodeUnion_XNNSigmoid: call = "xnn_define_sigmoid"; s = xnn_define_sigmoid(b->sg, in0, out, 0); break;
    case pte_xn_XNodeUnion_XNNClamp: call = "xnn_define_clamp"; s = xnn_define_clamp(b->sg, lo, hi, in0, out, 0); break;
    case pte_xn_XNodeUnion_XNNFloor: call = "xnn_define_floor"; s = xnn_define_floor(b->sg, in0, out, 0); break;
    case pte_xn_XNodeUnion_XNNCeiling: call = "xnn_define_ceiling"; s = xnn_define_ceiling(b->sg, in0, out, 0); break;
    case pte_xn_XNodeUnion_XNNSquareRoot:
      call = "xnn_define_square_root";
      s = xnn_define_square_root(b->sg, in0, out, 0);
      break;
    case pte_xn_XNodeUnion_XNNSquare: call = "xnn_define_square"; s = xnn_define_square(b->sg, in0, out, 0); break;
    case pte_xn_XNodeUnion_XNNNegate: call = "xnn_define_negate"; s = xnn_define_negate(b->sg, in0, out, 0); break;
    case pte_xn_XNodeUnion_XNNAbs: call = "xnn_define_abs"; s = xnn_define_abs(b->sg, in0, out, 0); break;
    case pte_xn_XNodeUnion_XNNHardswish: call = "xnn_define_hardswish"; s = xnn_define_hardswish(b->sg, in0, out, 0); break;
    case pte_xn_XNodeUnion_XNNELU: call = "xnn_define_elu"; s = xnn_define_elu(b->sg, n->p.elu.alpha, in0, out, 0); break;
    case pte_xn_XNodeUnion_XNNLeakyReLU:
      call = "xnn_define_leaky_relu";
      s = xnn_define_leaky_relu(b->sg, n->p.leaky.slope, in0, out, 0);
      break;
    case pte_xn_XNodeUnion_XNNConvert: call = "xnn_define_convert"; s = xnn_define_convert(b->sg, in0, out, 0); break;
    case pte_xn_XNodeUnion_XNNStaticReshape: {
      /* the output's current shape (the serialized new_shape may hold a 0 = inferred dim) */
      const pxl_shape *os = &b->r->shape[n->out[0]];
      call = "xnn_define_static_reshape";
      s = xnn_define_static_reshape(b->sg, os->rank, os->dims, in0, out, 0);
      break;
    }
    case pte_xn_XNodeUnion_XNNStaticConstantPad: {
      size_t pre[XNN_MAX_TENSOR_DIMS] = {0}, post[XNN_MAX_TENSOR_DIMS] = {0};
      for (uint32_t i = 0; i < n->p.pad.n && i < XNN_MAX_TENSOR_DIMS; i++) {
        pre[i] = n->p.pad.pre[i];
        post[i] = n->p.pad.post[i];
      }
      call = "xnn_define_static_constant_pad";
      s = xnn_define_static_constant_pad(b->sg, pre, post, n->p.pad.value, in0, out, 0);
      break;
    }
    case pte_xn_XNodeUnion_XNNStaticResizeBilinear2D:
      call = "xnn_define_static_resize_bilinear_2d";
      s = xnn_define_static_resize_bilinear_2d(b->sg, n->p.resize.h, n->p.resize.w, in0, out,
                                               n->flags & (XNN_FLAG_ALIGN_CORNERS | XNN_FLAG_TENSORFLOW_LEGACY_MODE));
      break;
    default:
      pxl_msg(b->err, b->cap, "node %zu (%s): not translated", ni, name);
      return 1;
  }
  if (s != xnn_status_success) {
    pxl_msg(b->err, b->cap, "node %zu (%s): %s: %s", ni, name, call, pxl_status_name(s));
    return 1;
  }
  if (post_clamp) {
    s = xnn_define_clamp(b->sg, lo, hi, out, final_out, 0);
    if (s != xnn_status_success) {
      pxl_msg(b->err, b->cap, "node %zu (%s): xnn_define_clamp for its output range: %s", ni, name, pxl_status_name(s));
      return 1;
    }
  }
  return 0;
}

static int pxl_build_unit(pxl_runner *r, pxl_unit *u, char *err, size_t cap) {
  const pte_xnn_delegate *d = r->d;
  const size_t nv = d->n_values;
  pxl_build b = {r, NULL, NULL, err, cap};
  b.lib_id = (uint32_t *)malloc(nv * sizeof(uint32_t));
  uint8_t *role = (uint8_t *)calloc(nv, 1); /* 1 used as input here, 2 defined here */
  u->ext_vals = (uint32_t *)malloc(nv * sizeof(uint32_t));
  int rc = 1;
  if (!b.lib_id || !role || !u->ext_vals) {
    pxl_msg(err, cap, "out of memory");
    goto done;
  }
  for (size_t i = 0; i < nv; i++) b.lib_id[i] = XNN_INVALID_VALUE_ID;
  for (size_t ni = u->first; ni <= u->last; ni++) {
    const pte_xnn_node *n = &r->nodes[ni];
    for (int k = 0; k < n->n_in; k++)
      if (n->in[k] != PTE_XNN_INVALID_ID && !(role[n->in[k]] & 2)) role[n->in[k]] |= 1;
    for (int k = 0; k < n->n_out; k++)
      if (n->out[k] != PTE_XNN_INVALID_ID) role[n->out[k]] |= 2;
  }
  u->n_ext = 0;
  for (size_t vi = 0; vi < nv; vi++)
    if (role[vi] && r->boundary[vi] && !d->values[vi].is_const) u->ext_vals[u->n_ext++] = (uint32_t)vi;
  enum xnn_status s = xnn_create_subgraph((uint32_t)u->n_ext, 0, &b.sg);
  if (s != xnn_status_success) {
    pxl_msg(err, cap, "xnn_create_subgraph: %s", pxl_status_name(s));
    goto done;
  }
  for (size_t e = 0; e < u->n_ext; e++) {
    uint32_t vi = u->ext_vals[e];
    uint32_t fl = (role[vi] & 2) ? XNN_VALUE_FLAG_EXTERNAL_OUTPUT : XNN_VALUE_FLAG_EXTERNAL_INPUT;
    if (pxl_define_value(&b, vi, (uint32_t)e, fl, NULL, 0)) goto done;
  }
  for (size_t vi = 0; vi < nv; vi++)
    if (role[vi] && b.lib_id[vi] == XNN_INVALID_VALUE_ID)
      if (pxl_define_value(&b, (uint32_t)vi, XNN_INVALID_VALUE_ID, 0, NULL, 0)) goto done;
  for (size_t ni = u->first; ni <= u->last; ni++)
    if (pxl_define_node(&b, ni)) goto done;
  /* with a pool, workers sleep after each run instead of spinning (a benchmark interleaves runs
   * of pte and of the library; spinning workers would take the CPU from pte's runs) */
  s = xnn_create_runtime_v2(b.sg, r->pool, r->pool ? XNN_FLAG_YIELD_WORKERS : 0, &u->rt);
  if (s != xnn_status_success) {
    pxl_msg(err, cap, "xnn_create_runtime_v2 (nodes %zu..%zu): %s", u->first, u->last, pxl_status_name(s));
    u->rt = NULL;
    goto done;
  }
  rc = 0;
done:
  if (b.sg) xnn_delete_subgraph(b.sg);
  free(b.lib_id);
  free(role);
  return rc;
}

/* ---- host nodes (data movement) ------------------------------------------------------------ */

static const uint8_t *pxl_vdata(const pxl_runner *r, uint32_t vi) {
  return r->d->values[vi].is_const ? r->cbytes[vi] : r->hbuf[vi];
}

static void pxl_transpose(const pxl_runner *r, const pte_xnn_node *n) {
  const pte_xnn_value *iv = &r->d->values[n->in[0]], *ov = &r->d->values[n->out[0]];
  const size_t es = pte_xnn_dtype_size(iv->dtype), rank = iv->rank;
  size_t istride[PTE_XNN_MAX_DIMS], idx[PTE_XNN_MAX_DIMS] = {0};
  size_t st = 1;
  for (size_t i = rank; i-- > 0;) {
    istride[i] = st;
    st *= iv->shape[i];
  }
  const uint8_t *src = pxl_vdata(r, n->in[0]);
  uint8_t *dst = r->hbuf[n->out[0]];
  const size_t total = pxl_numel(&r->shape[n->out[0]]);
  for (size_t o = 0; o < total; o++) {
    size_t off = 0;
    for (size_t i = 0; i < rank; i++) off += idx[i] * istride[n->p.transpose.perm[i]];
    memcpy(dst + o * es, src + off * es, es);
    for (size_t i = rank; i-- > 0;) {
      if (++idx[i] < ov->shape[i]) break;
      idx[i] = 0;
    }
  }
}

static void pxl_slice(const pxl_runner *r, const pte_xnn_node *n) {
  const pte_xnn_value *iv = &r->d->values[n->in[0]], *ov = &r->d->values[n->out[0]];
  const size_t es = pte_xnn_dtype_size(iv->dtype), rank = iv->rank;
  size_t istride[PTE_XNN_MAX_DIMS], idx[PTE_XNN_MAX_DIMS] = {0};
  size_t st = 1;
  for (size_t i = rank; i-- > 0;) {
    istride[i] = st;
    st *= iv->shape[i];
  }
  const uint8_t *src = pxl_vdata(r, n->in[0]);
  uint8_t *dst = r->hbuf[n->out[0]];
  const size_t total = pxl_numel(&r->shape[n->out[0]]);
  for (size_t o = 0; o < total; o++) {
    size_t off = 0;
    for (size_t i = 0; i < rank; i++) off += (idx[i] + n->p.slice.offsets[i]) * istride[i];
    memcpy(dst + o * es, src + off * es, es);
    for (size_t i = rank; i-- > 0;) {
      if (++idx[i] < ov->shape[i]) break;
      idx[i] = 0;
    }
  }
}

static void pxl_concat(const pxl_runner *r, const pte_xnn_node *n) {
  const pte_xnn_value *ov = &r->d->values[n->out[0]];
  const size_t es = pte_xnn_dtype_size(ov->dtype), axis = n->p.cat.axis;
  size_t outer = 1, inner = 1;
  for (size_t i = 0; i < axis; i++) outer *= ov->shape[i];
  for (size_t i = axis + 1; i < ov->rank; i++) inner *= ov->shape[i];
  uint8_t *dst = r->hbuf[n->out[0]];
  const size_t orow = ov->shape[axis] * inner * es;
  size_t col = 0;
  for (int k = 0; k < n->n_in; k++) {
    const pte_xnn_value *iv = &r->d->values[n->in[k]];
    const uint8_t *src = pxl_vdata(r, n->in[k]);
    const size_t irow = iv->shape[axis] * inner * es;
    for (size_t o = 0; o < outer; o++) memcpy(dst + o * orow + col, src + o * irow, irow);
    col += irow;
  }
}

/* ---- runner -------------------------------------------------------------------------------- */

/* pte may rewrite the graph at init (backends/xnnpack/xnn_fuse.c): an absorbed node stays in
 * the list but no longer defines its output (values[out].def_node is not its index). The graph
 * as serialized is rebuilt here, so the library checks the rewrite as well:
 *  - a Multiply(x, x) standing for x * sigmoid(x): its absorbed Sigmoid(x) -> s runs again and
 *    the Multiply reads (x, s) (a genuine x * x beside a fused SiLU of the same x would be
 *    ambiguous; pte's own rules never produce that pairing from one Multiply);
 *  - a producer writing an absorbed Clamp's output (with the intersected range): it writes the
 *    Clamp's input again and the Clamp runs (clamping twice to nested ranges = once).
 * Values left dead take their source's shape. Any other absorbed node is reported. */
static int pxl_unfuse(pxl_runner *r, char *err, size_t cap) {
  const pte_xnn_delegate *d = r->d;
  const size_t nn = d->n_nodes;
  for (size_t vi = 0; vi < d->n_values; vi++) {
    const pte_xnn_value *v = &d->values[vi];
    r->shape[vi].rank = v->rank;
    for (size_t k = 0; k < v->rank; k++) r->shape[vi].dims[k] = v->shape[k];
  }
  bool *absorbed = (bool *)calloc(nn ? nn : 1, sizeof(bool)), *claimed = (bool *)calloc(nn ? nn : 1, sizeof(bool));
  int rc = 1;
  if (!absorbed || !claimed) {
    pxl_msg(err, cap, "out of memory");
    goto done;
  }
  for (size_t ni = 0; ni < nn; ni++) {
    const pte_xnn_node *n = &r->nodes[ni];
    absorbed[ni] = n->n_out > 0 && n->out[0] != PTE_XNN_INVALID_ID && d->values[n->out[0]].def_node != (int)ni;
  }
  for (size_t ni = 0; ni < nn; ni++) {
    if (!absorbed[ni]) continue;
    pte_xnn_node *n = &r->nodes[ni];
    if (n->type == pte_xn_XNodeUnion_XNNSigmoid) {
      r->shape[n->out[0]] = r->shape[n->in[0]];
    } else if (n->type == pte_xn_XNodeUnion_XNNClamp) {
      const int p = d->values[n->out[0]].def_node;
      if (p < 0 || (size_t)p >= nn || absorbed[p] || r->nodes[p].out[0] != n->out[0]) {
        pxl_msg(err, cap, "node %zu (XNNClamp) absorbed, but no producer writes its output", ni);
        goto done;
      }
      r->nodes[p].out[0] = n->in[0];
      r->shape[n->in[0]] = r->shape[n->out[0]];
    } else {
      pxl_msg(err, cap, "node %zu (%s) absorbed by an init-time rewrite the translator does not know", ni,
              pte_xnn_node_name(n->type));
      goto done;
    }
  }
  for (size_t mi = 0; mi < nn; mi++) {
    pte_xnn_node *m = &r->nodes[mi];
    if (absorbed[mi] || m->type != pte_xn_XNodeUnion_XNNMultiply || m->in[0] != m->in[1]) continue;
    for (size_t gi = 0; gi < mi; gi++) {
      const pte_xnn_node *g = &r->nodes[gi];
      if (!absorbed[gi] || claimed[gi] || g->type != pte_xn_XNodeUnion_XNNSigmoid || g->in[0] != m->in[0]) continue;
      m->in[1] = g->out[0];
      claimed[gi] = true;
      break;
    }
  }
  for (size_t gi = 0; gi < nn; gi++)
    if (absorbed[gi] && r->nodes[gi].type == pte_xn_XNodeUnion_XNNSigmoid && !claimed[gi]) {
      pxl_msg(err, cap, "node %zu (XNNSigmoid) absorbed, but no Multiply(x, x) of its input follows", gi);
      goto done;
    }
  rc = 0;
done:
  free(absorbed);
  free(claimed);
  return rc;
}

int pxl_create(const pte_xnn_delegate *d, const void *blob, size_t size, const pte_named_data_map *ndm, int threads,
               pxl_runner **out, char *err, size_t cap) {
  *out = NULL;
  if (pxl_check_graph(d, err, cap)) return 1;
  pxl_runner *r = (pxl_runner *)calloc(1, sizeof *r);
  if (!r) {
    pxl_msg(err, cap, "out of memory");
    return 1;
  }
  r->d = d;
  const size_t nv = d->n_values, nn = d->n_nodes;
  r->units = (pxl_unit *)calloc(nn ? nn : 1, sizeof(pxl_unit));
  r->unit_of_node = (int *)calloc(nn ? nn : 1, sizeof(int));
  r->cbytes = (uint8_t **)calloc(nv ? nv : 1, sizeof(uint8_t *));
  r->hbuf = (uint8_t **)calloc(nv ? nv : 1, sizeof(uint8_t *));
  r->boundary = (bool *)calloc(nv ? nv : 1, sizeof(bool));
  r->hbuf_owned = (bool *)calloc(nv ? nv : 1, sizeof(bool));
  r->num_ext = d->num_externs;
  r->ext_bytes = (size_t *)calloc(r->num_ext ? r->num_ext : 1, sizeof(size_t));
  r->nodes = (pte_xnn_node *)malloc((nn ? nn : 1) * sizeof(pte_xnn_node));
  r->shape = (pxl_shape *)calloc(nv ? nv : 1, sizeof(pxl_shape));
  if (!r->units || !r->unit_of_node || !r->cbytes || !r->hbuf || !r->boundary || !r->hbuf_owned || !r->ext_bytes ||
      !r->nodes || !r->shape) {
    pxl_msg(err, cap, "out of memory");
    pxl_destroy(r);
    return 1;
  }
  if (nn) memcpy(r->nodes, d->nodes, nn * sizeof(pte_xnn_node));
  if (pxl_unfuse(r, err, cap)) {
    pxl_destroy(r);
    return 1;
  }
  if (threads > 1) {
    r->pool = pthreadpool_create((size_t)threads);
    if (!r->pool) {
      pxl_msg(err, cap, "pthreadpool_create(%d) failed", threads);
      pxl_destroy(r);
      return 1;
    }
  }
  /* constants */
  for (size_t vi = 0; vi < nv; vi++)
    if (d->values[vi].is_const &&
        pxl_constant(&d->values[vi], (const uint8_t *)blob, size, ndm, &r->cbytes[vi], err, cap)) {
      pxl_destroy(r);
      return 1;
    }
  /* units: runs of library nodes; each host node alone */
  unsigned host_count[256] = {0};
  for (size_t ni = 0; ni < nn; ni++) {
    const bool host = pxl_is_host_node(d->nodes[ni].type);
    if (host) host_count[d->nodes[ni].type]++;
    if (!host && r->n_units && r->units[r->n_units - 1].kind == PXL_UNIT_LIB) {
      r->units[r->n_units - 1].last = ni;
    } else {
      pxl_unit *u = &r->units[r->n_units++];
      u->kind = host ? PXL_UNIT_HOST : PXL_UNIT_LIB;
      u->first = u->last = ni;
    }
    r->unit_of_node[ni] = (int)(r->n_units - 1);
  }
  for (unsigned t = 0; t < 256; t++)
    if (host_count[t])
      snprintf(r->host_nodes + strlen(r->host_nodes), sizeof r->host_nodes - strlen(r->host_nodes), "%s%s x%u",
               r->host_nodes[0] ? ", " : "", pte_xnn_node_name(t), host_count[t]);
  /* boundary values: graph inputs/outputs, or used by a unit other than their producer's */
  int *def_unit = (int *)malloc((nv ? nv : 1) * sizeof(int));
  if (!def_unit) {
    pxl_msg(err, cap, "out of memory");
    pxl_destroy(r);
    return 1;
  }
  for (size_t vi = 0; vi < nv; vi++) {
    def_unit[vi] = -1;
    const pte_xnn_value *v = &d->values[vi];
    if (!v->is_const && (v->is_input || v->is_output)) r->boundary[vi] = true;
  }
  for (size_t ni = 0; ni < nn; ni++)
    for (int k = 0; k < r->nodes[ni].n_out; k++)
      if (r->nodes[ni].out[k] != PTE_XNN_INVALID_ID) def_unit[r->nodes[ni].out[k]] = r->unit_of_node[ni];
  for (size_t ni = 0; ni < nn; ni++) {
    const pte_xnn_node *n = &r->nodes[ni];
    const bool host = r->units[r->unit_of_node[ni]].kind == PXL_UNIT_HOST;
    for (int k = 0; k < n->n_in; k++) {
      uint32_t vi = n->in[k];
      if (vi == PTE_XNN_INVALID_ID || d->values[vi].is_const) continue;
      if (host || def_unit[vi] != r->unit_of_node[ni]) r->boundary[vi] = true;
    }
    if (host) r->boundary[n->out[0]] = true;
  }
  free(def_unit);
  for (size_t vi = 0; vi < nv; vi++) {
    const pte_xnn_value *v = &d->values[vi];
    size_t bytes = pxl_numel(&r->shape[vi]) * pte_xnn_dtype_size(v->dtype);
    if ((v->is_input || v->is_output) && v->external_id < r->num_ext) r->ext_bytes[v->external_id] = bytes;
    if (!r->boundary[vi] || v->is_input || v->is_output) continue;
    r->hbuf[vi] = (uint8_t *)aligned_alloc(64, (bytes + 63) / 64 * 64 + 64);
    r->hbuf_owned[vi] = true;
    if (!r->hbuf[vi]) {
      pxl_msg(err, cap, "out of memory");
      pxl_destroy(r);
      return 1;
    }
  }
  for (size_t ui = 0; ui < r->n_units; ui++)
    if (r->units[ui].kind == PXL_UNIT_LIB && pxl_build_unit(r, &r->units[ui], err, cap)) {
      pxl_destroy(r);
      return 1;
    }
  *out = r;
  return 0;
}

int pxl_bind(pxl_runner *r, void *const *ext, size_t n_ext, char *err, size_t cap) {
  const pte_xnn_delegate *d = r->d;
  if (n_ext < r->num_ext) {
    pxl_msg(err, cap, "%zu external tensors given, %zu needed", n_ext, r->num_ext);
    return 1;
  }
  for (size_t vi = 0; vi < d->n_values; vi++) {
    const pte_xnn_value *v = &d->values[vi];
    if (v->is_const || !(v->is_input || v->is_output)) continue;
    r->hbuf[vi] = (uint8_t *)ext[v->external_id];
  }
  for (size_t ui = 0; ui < r->n_units; ui++) {
    pxl_unit *u = &r->units[ui];
    if (u->kind != PXL_UNIT_LIB) continue;
    struct xnn_external_value *ev = (struct xnn_external_value *)calloc(u->n_ext ? u->n_ext : 1, sizeof *ev);
    if (!ev) {
      pxl_msg(err, cap, "out of memory");
      return 1;
    }
    for (size_t e = 0; e < u->n_ext; e++) {
      ev[e].id = (uint32_t)e;
      ev[e].data = r->hbuf[u->ext_vals[e]];
    }
    enum xnn_status s = xnn_setup_runtime(u->rt, u->n_ext, ev);
    free(ev);
    if (s != xnn_status_success) {
      pxl_msg(err, cap, "xnn_setup_runtime (nodes %zu..%zu): %s", u->first, u->last, pxl_status_name(s));
      return 1;
    }
  }
  r->bound = true;
  return 0;
}

int pxl_invoke(pxl_runner *r, char *err, size_t cap) {
  if (!r->bound) {
    pxl_msg(err, cap, "pxl_invoke before pxl_bind");
    return 1;
  }
  for (size_t ui = 0; ui < r->n_units; ui++) {
    pxl_unit *u = &r->units[ui];
    if (u->kind == PXL_UNIT_LIB) {
      enum xnn_status s = xnn_invoke_runtime(u->rt);
      if (s != xnn_status_success) {
        pxl_msg(err, cap, "xnn_invoke_runtime (nodes %zu..%zu): %s", u->first, u->last, pxl_status_name(s));
        return 1;
      }
      continue;
    }
    const pte_xnn_node *n = &r->nodes[u->first];
    if (n->type == pte_xn_XNodeUnion_XNNStaticTranspose) pxl_transpose(r, n);
    else if (n->type == pte_xn_XNodeUnion_XNNStaticSlice) pxl_slice(r, n);
    else pxl_concat(r, n);
  }
  return 0;
}

static void pxl_noop(void *ctx, size_t i) { (void)ctx, (void)i; }

void pxl_yield_workers(pxl_runner *r) {
  if (!r || !r->pool) return;
  const size_t n = pthreadpool_get_threads_count(r->pool);
  if (n > 1) pthreadpool_parallelize_1d(r->pool, pxl_noop, NULL, n, PTHREADPOOL_FLAG_YIELD_WORKERS);
}

size_t pxl_num_ext(const pxl_runner *r) { return r->num_ext; }
size_t pxl_ext_bytes(const pxl_runner *r, size_t e) { return e < r->num_ext ? r->ext_bytes[e] : 0; }
const char *pxl_host_nodes(const pxl_runner *r) { return r->host_nodes; }
size_t pxl_num_runtimes(const pxl_runner *r) {
  size_t k = 0;
  for (size_t i = 0; i < r->n_units; i++) k += r->units[i].kind == PXL_UNIT_LIB;
  return k;
}

void pxl_destroy(pxl_runner *r) {
  if (!r) return;
  for (size_t i = 0; r->units && i < r->n_units; i++) {
    if (r->units[i].rt) xnn_delete_runtime(r->units[i].rt);
    free(r->units[i].ext_vals);
  }
  const size_t nv = r->d->n_values;
  for (size_t vi = 0; vi < nv; vi++) {
    if (r->cbytes) free(r->cbytes[vi]);
    if (r->hbuf && r->hbuf_owned && r->hbuf_owned[vi]) free(r->hbuf[vi]);
  }
  if (r->pool) pthreadpool_destroy(r->pool);
  free(r->units);
  free(r->nodes);
  free(r->shape);
  free(r->unit_of_node);
  free(r->cbytes);
  free(r->hbuf);
  free(r->boundary);
  free(r->hbuf_owned);
  free(r->ext_bytes);
  free(r);
}
