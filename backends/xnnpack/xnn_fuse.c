/* Graph rewrites at init, after the nodes are prepared and before memory planning:
 *
 *  - SiLU: Multiply(x, s) with s = Sigmoid(x), s read by nothing else and not a graph output,
 *    all fp32: the Multiply computes x * sigmoid(x) itself (one pass over x, no s tensor) and the
 *    Sigmoid node is skipped.
 *  - Output clamp: Clamp(y) where y is produced by a node that applies a fused fp32 output clamp
 *    (FullyConnected, Conv2d, DepthwiseConv2d, the binary arithmetic nodes, pooling, Clamp) and is
 *    read by nothing else: the producer writes the Clamp's output with the intersected bounds
 *    and the Clamp node is skipped.
 *
 *  - Reshape in place: a StaticReshape's output shares its input's storage (same dtype, not
 *    qdint8): an internal output aliases the input (internal, graph input or constant); a graph
 *    output makes an internal input (produced by a node, not aliased by anything yet) live in the
 *    output buffer. The node is still shape-inferred but copies nothing.
 *
 * A skipped node's output value is dead (def_node -1: not planned, never bound). Shapes are
 * unchanged, so dynamic re-planning needs nothing more.
 */
#include <math.h>
#include <stdlib.h>

#include "pte_gen/xnnpack_gen.h"
#include "xnn_internal.h"

/* How many node inputs read value vi (a node reading it twice counts twice). */
static size_t xf_uses(const pte_xnn_delegate *d, uint32_t vi) {
  size_t n = 0;
  for (size_t i = 0; i < d->n_nodes; i++) {
    const pte_xnn_node *nd = &d->nodes[i];
    if (nd->fuse == PTE_XNN_FUSE_SKIP) continue;
    for (unsigned k = 0; k < nd->n_in; k++)
      if (nd->in[k] == vi) n++;
  }
  return n;
}

static bool xf_f32(const pte_xnn_delegate *d, uint32_t vi) {
  return vi != PTE_XNN_INVALID_ID && d->values[vi].dtype == PTE_XD_FP32;
}

static void xf_kill(pte_xnn_delegate *d, uint32_t vi) {
  d->values[vi].def_node = -1;
  d->values[vi].last_use = -1;
}

static bool xf_clamp_producer(const pte_xnn_delegate *d, const pte_xnn_node *p) {
  switch (p->type) {
    case pte_xn_XNodeUnion_XNNFullyConnected:
    case pte_xn_XNodeUnion_XNNConv2d:
    case pte_xn_XNodeUnion_XNNDepthwiseConv2d: return p->variant == PTE_XNN_V_F32 && xf_f32(d, p->out[0]);
    case pte_xn_XNodeUnion_XNNAdd:
    case pte_xn_XNodeUnion_XNNSubtract:
    case pte_xn_XNodeUnion_XNNMultiply:
    case pte_xn_XNodeUnion_XNNDiv:
    case pte_xn_XNodeUnion_XNNMinimum:
    case pte_xn_XNodeUnion_XNNMaximum:
    case pte_xn_XNodeUnion_XNNMaxPooling2d:
    case pte_xn_XNodeUnion_XNNAvgPooling2d:
    case pte_xn_XNodeUnion_XNNClamp:
      return xf_f32(d, p->out[0]) && xf_f32(d, p->in[0]) && (p->n_in < 2 || xf_f32(d, p->in[1]));
    default: return false;
  }
}

void pte_xnn_fuse(pte_xnn_delegate *d) {
  if (!pte_xnnpack_graph_rewrites()) return;
  /* SiLU */
  for (size_t i = 0; i < d->n_nodes; i++) {
    pte_xnn_node *m = &d->nodes[i];
    if (m->type != pte_xn_XNodeUnion_XNNMultiply || m->fuse != PTE_XNN_FUSE_NONE || m->n_in != 2) continue;
    if (!xf_f32(d, m->in[0]) || !xf_f32(d, m->in[1]) || !xf_f32(d, m->out[0])) continue;
    for (int side = 0; side < 2; side++) {
      const uint32_t x = m->in[side], s = m->in[1 - side];
      const pte_xnn_value *sv = &d->values[s];
      if (sv->def_node < 0 || sv->is_output || sv->is_input) continue;
      pte_xnn_node *g = &d->nodes[sv->def_node];
      if (g->type != pte_xn_XNodeUnion_XNNSigmoid || g->fuse != PTE_XNN_FUSE_NONE || g->in[0] != x) continue;
      if (xf_uses(d, s) != 1) continue;
      g->fuse = PTE_XNN_FUSE_SKIP;
      xf_kill(d, s);
      m->in[0] = m->in[1] = x;
      m->fuse = PTE_XNN_FUSE_SILU;
      break;
    }
  }
  /* output clamps */
  for (size_t i = 0; i < d->n_nodes; i++) {
    pte_xnn_node *c = &d->nodes[i];
    if (c->type != pte_xn_XNodeUnion_XNNClamp || c->fuse != PTE_XNN_FUSE_NONE) continue;
    const uint32_t y = c->in[0], out = c->out[0];
    if (!xf_f32(d, y) || !xf_f32(d, out)) continue;
    const pte_xnn_value *yv = &d->values[y];
    if (yv->def_node < 0 || yv->is_output || yv->is_input || xf_uses(d, y) != 1) continue;
    const pte_xnn_value *ov = &d->values[out];
    bool same = yv->rank == ov->rank;
    for (unsigned k = 0; same && k < yv->rank; k++) same = yv->decl[k] == ov->decl[k];
    if (!same) continue;
    pte_xnn_node *p = &d->nodes[yv->def_node];
    if (p->fuse == PTE_XNN_FUSE_SKIP || p->n_out != 1 || !xf_clamp_producer(d, p)) continue;
    /* a SiLU node applies its clamp after the activation, like a separate Clamp would */
    const float lo = fmaxf(p->out_min, c->out_min), hi = fminf(p->out_max, c->out_max);
    if (!(lo <= hi)) continue; /* disjoint ranges: clamp(clamp(x)) is a constant; leave it */
    p->out_min = lo;
    p->out_max = hi;
    p->out[0] = out;
    d->values[out].def_node = yv->def_node;
    xf_kill(d, y);
    c->fuse = PTE_XNN_FUSE_SKIP;
  }
  /* reshapes in place */
  for (size_t i = 0; i < d->n_nodes; i++) {
    pte_xnn_node *r = &d->nodes[i];
    if (r->type != pte_xn_XNodeUnion_XNNStaticReshape || r->fuse != PTE_XNN_FUSE_NONE) continue;
    const uint32_t a = r->in[0], o = r->out[0];
    pte_xnn_value *av = &d->values[a], *ov = &d->values[o];
    if (av->dtype != ov->dtype || av->dtype == PTE_XD_QDINT8 || ov->is_input || ov->aliased) continue;
    if (!ov->is_output) {
      ov->aliased = true;
      ov->alias = av->aliased ? av->alias : a;
      r->fuse = PTE_XNN_FUSE_ALIAS;
      continue;
    }
    if (av->def_node < 0 || av->is_input || av->is_output || av->is_const || av->aliased) continue;
    bool root = false;
    for (size_t k = 0; k < d->n_values && !root; k++) root = d->values[k].aliased && d->values[k].alias == a;
    if (root) continue;
    av->aliased = true;
    av->alias = o;
    r->fuse = PTE_XNN_FUSE_ALIAS;
  }
}
