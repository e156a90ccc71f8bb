/* Shape inference of XNNPACK nodes (xnn_ops.h): output shapes from input shapes and node
 * parameters (broadcasting, convolution and pooling windows with explicit or SAME padding, ...),
 * checked against the declared shapes when asked. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "xnn_ops.h"
#include "xnn_q4.h"

#define NERR(st, ...) pte_error_set(err, (st), __VA_ARGS__)

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

static size_t numel_of(const size_t *dims, unsigned rank) {
  size_t n = 1;
  for (unsigned i = 0; i < rank; i++) n *= dims[i];
  return n;
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

  if (xo_is_binary(t) || t == pte_xn_XNodeUnion_XNNPReLU) {
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
  if (xo_is_unary_math(t) || t == pte_xn_XNodeUnion_XNNSoftmax || t == pte_xn_XNodeUnion_XNNConvert) {
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
      if (n->variant == PTE_XNN_V_QD8_Q4)
        n->shared_scratch = pte_xnn_q4_scratch(kdim ? in->numel / kdim : 0, kdim, w->block_size);
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
      } else if (n->dwq) {
        n->scratch = pte_xnn_dwq_scratch(n, ow); /* the tap pointers of one output row */
      } else {
        const size_t kdim = dw ? taps : taps * p->gic;
        const size_t es = n->variant == PTE_XNN_V_F32 ? 4 : 1;
        const size_t rows = pte_xnn_conv_tile_rows(d->k, kdim, es);
        n->scratch = rows * kdim * es + 64;
        /* fp32: the border pixels of the row path are gathered into tiles with their own results */
        if (n->variant == PTE_XNN_V_F32) n->scratch += rows * cout * 4 + 64;
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
