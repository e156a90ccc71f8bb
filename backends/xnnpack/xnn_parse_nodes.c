/* Blob parsing: nodes, topological checks and lifetimes, external arguments. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pte_gen/xnnpack_gen.h"
#include "xnn_compile_ctx.h"

/* ============================================================================ nodes */

static pte_status map_id(cctx *c, size_t ni, unsigned type, const char *field, uint32_t id, bool optional,
                         uint32_t *out) {
  if (optional && id == PTE_XNN_INVALID_ID) {
    *out = PTE_XNN_INVALID_ID;
    return PTE_OK;
  }
  if (!pte_xnn_cc_lookup_id(c, id, out))
    return CERR(c, PTE_ERR_INVALID_PROGRAM, "xnnpack: node %zu (%s): %s %u is not a defined value", ni,
                pte_xnn_node_name(type), field, id);
  return PTE_OK;
}

static pte_status read_dims_vec(cctx *c, size_t ni, unsigned type, const char *what, pte_fb_vec vv, uint32_t n,
                                size_t *out) {
  if (n > PTE_XNN_MAX_DIMS)
    return CERR(c, PTE_ERR_INVALID_PROGRAM, "xnnpack: node %zu (%s): %u dims (at most %d)", ni, pte_xnn_node_name(type),
                n, PTE_XNN_MAX_DIMS);
  if (n > 0 && (!vv.present || vv.len != n))
    return CERR(c, PTE_ERR_INVALID_PROGRAM, "xnnpack: node %zu (%s): %s has %u entries, %u expected", ni,
                pte_xnn_node_name(type), what, vv.present ? vv.len : 0u, n);
  for (uint32_t i = 0; i < n; i++) out[i] = pte_fb_vec_u32(vv, i);
  return PTE_OK;
}

#define MAP(field, id, opt, dst)                                               \
  do {                                                                         \
    pte_status s_ = map_id(c, ni, type, field, (id), (opt), (dst));            \
    if (s_ != PTE_OK) return s_;                                               \
  } while (0)

pte_status pte_xnn_cc_parse_node(cctx *c, size_t ni, pte_fb_table xn) {
  pte_xnn_delegate *d = c->d;
  unsigned type = pte_xn_XNode_xnode_union_type(xn);
  pte_fb_table t = pte_xn_XNode_xnode_union(xn);
  if (type == 0 || !pte_fb_table_present(t))
    return CERR(c, PTE_ERR_INVALID_PROGRAM, "xnnpack: node %zu has no operator", ni);
  pte_xnn_node *n = pte_xnn_cc_new_node(d);
  if (!n) return CERR(c, PTE_ERR_MEMORY_ALLOCATION_FAILED, "xnnpack: out of memory");
  n->type = (uint8_t)type;
  n->debug_handle = pte_xn_XNode_debug_handle(xn);
  pte_fb_table mm = pte_xn_XNode_output_min_max(xn);
  if (pte_fb_table_present(mm)) {
    n->out_min = pte_xn_OutputMinMax_output_min(mm);
    n->out_max = pte_xn_OutputMinMax_output_max(mm);
    if (isnan(n->out_min) || isnan(n->out_max) || n->out_min > n->out_max)
      return CERR(c, PTE_ERR_INVALID_PROGRAM, "xnnpack: node %zu (%s): invalid output range", ni, pte_xnn_node_name(type));
  }
  n->n_out = 1;
  switch (type) {
    case pte_xn_XNodeUnion_XNNAdd:
    case pte_xn_XNodeUnion_XNNDiv:
    case pte_xn_XNodeUnion_XNNMinimum:
    case pte_xn_XNodeUnion_XNNMaximum:
    case pte_xn_XNodeUnion_XNNMultiply:
    case pte_xn_XNodeUnion_XNNSubtract:
    case pte_xn_XNodeUnion_XNNPReLU:
    case pte_xn_XNodeUnion_XNNBatchMatrixMultiply:
      n->n_in = 2;
      MAP("input1_id", pte_xn__XNNNode2x1_input1_id(t), false, &n->in[0]);
      MAP("input2_id", pte_xn__XNNNode2x1_input2_id(t), false, &n->in[1]);
      MAP("output_id", pte_xn__XNNNode2x1_output_id(t), false, &n->out[0]);
      n->flags = pte_xn__XNNNode2x1_flags(t);
      break;
    case pte_xn_XNodeUnion_XNNSoftmax:
    case pte_xn_XNodeUnion_XNNSigmoid:
    case pte_xn_XNodeUnion_XNNClamp:
    case pte_xn_XNodeUnion_XNNFloor:
    case pte_xn_XNodeUnion_XNNConvert:
    case pte_xn_XNodeUnion_XNNGlobalAvgPooling2d:
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
      n->n_in = 1;
      MAP("input_id", pte_xn__XNNNode1x1_input_id(t), false, &n->in[0]);
      MAP("output_id", pte_xn__XNNNode1x1_output_id(t), false, &n->out[0]);
      n->flags = pte_xn__XNNNode1x1_flags(t);
      break;
    case pte_xn_XNodeUnion_XNNFullyConnected:
      n->n_in = 3;
      MAP("input1_id", pte_xn_XNNFullyConnected_input1_id(t), false, &n->in[0]);
      MAP("filter_id", pte_xn_XNNFullyConnected_filter_id(t), false, &n->in[1]);
      MAP("bias_id", pte_xn_XNNFullyConnected_bias_id(t), true, &n->in[2]);
      MAP("output_id", pte_xn_XNNFullyConnected_output_id(t), false, &n->out[0]);
      n->flags = pte_xn_XNNFullyConnected_flags(t);
      break;
    case pte_xn_XNodeUnion_XNNConv2d:
    case pte_xn_XNodeUnion_XNNDepthwiseConv2d: {
      pte_xnn_conv_params *p = &n->p.conv;
      p->pt = pte_xn__XNNNodeConv_padding_top(t);
      p->pr = pte_xn__XNNNodeConv_padding_right(t);
      p->pb = pte_xn__XNNNodeConv_padding_bottom(t);
      p->pl = pte_xn__XNNNodeConv_padding_left(t);
      p->kh = pte_xn__XNNNodeConv_kernel_height(t);
      p->kw = pte_xn__XNNNodeConv_kernel_width(t);
      p->sh = pte_xn__XNNNodeConv_subsampling_height(t);
      p->sw = pte_xn__XNNNodeConv_subsampling_width(t);
      p->dh = pte_xn__XNNNodeConv_dilation_height(t);
      p->dw = pte_xn__XNNNodeConv_dilation_width(t);
      p->gic = pte_xn__XNNNodeConv_group_input_channels(t);
      p->goc = pte_xn__XNNNodeConv_group_output_channels(t);
      p->groups = pte_xn__XNNNodeConv_groups(t);
      p->adj_h = pte_xn__XNNNodeConv_adjustment_height(t);
      p->adj_w = pte_xn__XNNNodeConv_adjustment_width(t);
      n->n_in = 3;
      MAP("input1_id", pte_xn__XNNNodeConv_input1_id(t), false, &n->in[0]);
      MAP("filter_id", pte_xn__XNNNodeConv_filter_id(t), false, &n->in[1]);
      MAP("bias_id", pte_xn__XNNNodeConv_bias_id(t), true, &n->in[2]);
      MAP("output_id", pte_xn__XNNNodeConv_output_id(t), false, &n->out[0]);
      n->flags = pte_xn__XNNNodeConv_flags(t);
      break;
    }
    case pte_xn_XNodeUnion_XNNAvgPooling2d:
    case pte_xn_XNodeUnion_XNNMaxPooling2d: {
      pte_xnn_pool_params *p = &n->p.pool;
      p->pt = pte_xn__XNNPooling2D_padding_top(t);
      p->pr = pte_xn__XNNPooling2D_padding_right(t);
      p->pb = pte_xn__XNNPooling2D_padding_bottom(t);
      p->pl = pte_xn__XNNPooling2D_padding_left(t);
      p->ph = pte_xn__XNNPooling2D_pooling_height(t);
      p->pw = pte_xn__XNNPooling2D_pooling_width(t);
      p->sh = pte_xn__XNNPooling2D_stride_height(t);
      p->sw = pte_xn__XNNPooling2D_stride_width(t);
      p->dh = pte_xn__XNNPooling2D_dilation_height(t);
      p->dw = pte_xn__XNNPooling2D_dilation_width(t);
      n->n_in = 1;
      MAP("input_id", pte_xn__XNNPooling2D_input_id(t), false, &n->in[0]);
      MAP("output_id", pte_xn__XNNPooling2D_output_id(t), false, &n->out[0]);
      n->flags = pte_xn__XNNPooling2D_flags(t);
      break;
    }
    case pte_xn_XNodeUnion_XNNStaticTranspose: {
      uint32_t nd = pte_xn_XNNStaticTranspose_num_dims(t);
      size_t perm[PTE_XNN_MAX_DIMS];
      pte_status s = read_dims_vec(c, ni, type, "perm", pte_xn_XNNStaticTranspose_perm(t), nd, perm);
      if (s != PTE_OK) return s;
      n->p.transpose.n = nd;
      for (uint32_t i = 0; i < nd; i++) n->p.transpose.perm[i] = (uint32_t)(perm[i] > 0xFFFF ? 0xFFFF : perm[i]);
      n->n_in = 1;
      MAP("input_id", pte_xn_XNNStaticTranspose_input_id(t), false, &n->in[0]);
      MAP("output_id", pte_xn_XNNStaticTranspose_output_id(t), false, &n->out[0]);
      n->flags = pte_xn_XNNStaticTranspose_flags(t);
      break;
    }
    case pte_xn_XNodeUnion_XNNStaticReshape: {
      uint32_t nd = pte_xn_XNNStaticReshape_num_dims(t);
      pte_status s = read_dims_vec(c, ni, type, "new_shape", pte_xn_XNNStaticReshape_new_shape(t), nd, n->p.reshape.shape);
      if (s != PTE_OK) return s;
      n->p.reshape.n = nd;
      n->n_in = 1;
      MAP("input_id", pte_xn_XNNStaticReshape_input_id(t), false, &n->in[0]);
      MAP("output_id", pte_xn_XNNStaticReshape_output_id(t), false, &n->out[0]);
      n->flags = pte_xn_XNNStaticReshape_flags(t);
      break;
    }
    case pte_xn_XNodeUnion_XNNStaticSlice: {
      uint32_t nd = pte_xn_XNNStaticSlice_num_dims(t);
      pte_status s = read_dims_vec(c, ni, type, "offsets", pte_xn_XNNStaticSlice_offsets(t), nd, n->p.slice.offsets);
      if (s == PTE_OK) s = read_dims_vec(c, ni, type, "sizes", pte_xn_XNNStaticSlice_sizes(t), nd, n->p.slice.sizes);
      if (s != PTE_OK) return s;
      n->p.slice.n = nd;
      n->n_in = 1;
      MAP("input_id", pte_xn_XNNStaticSlice_input_id(t), false, &n->in[0]);
      MAP("output_id", pte_xn_XNNStaticSlice_output_id(t), false, &n->out[0]);
      n->flags = pte_xn_XNNStaticSlice_flags(t);
      break;
    }
    case pte_xn_XNodeUnion_XNNStaticConstantPad: {
      pte_fb_vec pre = pte_xn_XNNStaticConstantPad_pre_paddings(t), post = pte_xn_XNNStaticConstantPad_post_paddings(t);
      uint32_t nd = pre.present ? pre.len : 0;
      pte_status s = read_dims_vec(c, ni, type, "pre_paddings", pre, nd, n->p.pad.pre);
      if (s == PTE_OK) s = read_dims_vec(c, ni, type, "post_paddings", post, nd, n->p.pad.post);
      if (s != PTE_OK) return s;
      n->p.pad.n = nd;
      n->p.pad.value = pte_xn_XNNStaticConstantPad_padding_value(t);
      n->n_in = 1;
      MAP("input_id", pte_xn_XNNStaticConstantPad_input_id(t), false, &n->in[0]);
      MAP("output_id", pte_xn_XNNStaticConstantPad_output_id(t), false, &n->out[0]);
      n->flags = pte_xn_XNNStaticConstantPad_flags(t);
      break;
    }
    case pte_xn_XNodeUnion_XNNStaticResizeBilinear2D:
      n->p.resize.h = pte_xn_XNNStaticResizeBilinear2D_new_height(t);
      n->p.resize.w = pte_xn_XNNStaticResizeBilinear2D_new_width(t);
      n->n_in = 1;
      MAP("input_id", pte_xn_XNNStaticResizeBilinear2D_input_id(t), false, &n->in[0]);
      MAP("output_id", pte_xn_XNNStaticResizeBilinear2D_output_id(t), false, &n->out[0]);
      n->flags = pte_xn_XNNStaticResizeBilinear2D_flags(t);
      break;
    case pte_xn_XNodeUnion_XNNConcatenate2:
    case pte_xn_XNodeUnion_XNNConcatenate3:
    case pte_xn_XNodeUnion_XNNConcatenate4:
    case pte_xn_XNodeUnion_XNNConcatenate5: {
      unsigned k = type == pte_xn_XNodeUnion_XNNConcatenate2   ? 2
                   : type == pte_xn_XNodeUnion_XNNConcatenate3 ? 3
                   : type == pte_xn_XNodeUnion_XNNConcatenate4 ? 4
                                                                : 5;
      n->p.cat.axis = pte_xn__XNNCat_axis(t);
      n->n_in = (uint8_t)k;
      MAP("input1_id", pte_xn__XNNCat_input1_id(t), false, &n->in[0]);
      MAP("input2_id", pte_xn__XNNCat_input2_id(t), false, &n->in[1]);
      if (k > 2) MAP("input3_id", pte_xn__XNNCat_input3_id(t), false, &n->in[2]);
      if (k > 3) MAP("input4_id", pte_xn__XNNCat_input4_id(t), false, &n->in[3]);
      if (k > 4) MAP("input5_id", pte_xn__XNNCat_input5_id(t), false, &n->in[4]);
      MAP("output_id", pte_xn__XNNCat_output_id(t), false, &n->out[0]);
      n->flags = pte_xn__XNNCat_flags(t);
      break;
    }
    case pte_xn_XNodeUnion_XNNELU:
      n->p.elu.alpha = pte_xn_XNNELU_alpha(t);
      n->n_in = 1;
      MAP("input_id", pte_xn_XNNELU_input_id(t), false, &n->in[0]);
      MAP("output_id", pte_xn_XNNELU_output_id(t), false, &n->out[0]);
      n->flags = pte_xn_XNNELU_flags(t);
      break;
    case pte_xn_XNodeUnion_XNNLeakyReLU:
      n->p.leaky.slope = pte_xn_XNNLeakyReLU_negative_slope(t);
      n->n_in = 1;
      MAP("input_id", pte_xn_XNNLeakyReLU_input_id(t), false, &n->in[0]);
      MAP("output_id", pte_xn_XNNLeakyReLU_output_id(t), false, &n->out[0]);
      n->flags = pte_xn_XNNLeakyReLU_flags(t);
      break;
    default:
      return CERR(c, PTE_ERR_NOT_IMPLEMENTED, "xnnpack: node %zu: %s is not supported", ni, pte_xnn_node_name(type));
  }
  return PTE_OK;
}
#undef MAP

/* Topological checks and lifetimes. */
pte_status pte_xnn_cc_check_graph(cctx *c) {
  pte_xnn_delegate *d = c->d;
  for (size_t i = 0; i < d->n_nodes; i++) {
    pte_xnn_node *n = &d->nodes[i];
    for (unsigned k = 0; k < n->n_in; k++) {
      uint32_t vi = n->in[k];
      if (vi == PTE_XNN_INVALID_ID) continue;
      pte_xnn_value *v = &d->values[vi];
      if (!v->is_input && !v->is_const && v->def_node < 0)
        return CERR(c, PTE_ERR_INVALID_PROGRAM, "xnnpack: node %zu (%s) reads value %u before any node produces it", i,
                    pte_xnn_node_name(n->type), v->id);
      v->last_use = (int)i;
    }
    for (unsigned k = 0; k < n->n_out; k++) {
      pte_xnn_value *v = &d->values[n->out[k]];
      if (v->is_input || v->is_const)
        return CERR(c, PTE_ERR_INVALID_PROGRAM, "xnnpack: node %zu (%s) writes value %u, which is an input or a constant",
                    i, pte_xnn_node_name(n->type), v->id);
      if (v->def_node >= 0)
        return CERR(c, PTE_ERR_INVALID_PROGRAM, "xnnpack: value %u is produced by nodes %d and %zu", v->id, v->def_node, i);
      v->def_node = (int)i;
      if (v->last_use < (int)i) v->last_use = (int)i;
    }
  }
  for (size_t i = 0; i < d->n_values; i++) {
    pte_xnn_value *v = &d->values[i];
    if (v->is_output && v->def_node < 0 && !v->is_input)
      return CERR(c, PTE_ERR_INVALID_PROGRAM, "xnnpack: output value %u is not produced by any node", v->id);
  }
  return PTE_OK;
}

static void sort_by_external(const pte_xnn_value *values, uint32_t *idx, size_t n) {
  /* insertion sort: few externals, and no global state */
  for (size_t i = 1; i < n; i++) {
    uint32_t x = idx[i];
    size_t j = i;
    while (j > 0 && values[idx[j - 1]].external_id > values[x].external_id) {
      idx[j] = idx[j - 1];
      j--;
    }
    idx[j] = x;
  }
}

pte_status pte_xnn_cc_collect_externals(cctx *c) {
  pte_xnn_delegate *d = c->d;
  size_t ni = 0, no = 0;
  for (size_t i = 0; i < d->n_values; i++) {
    if (d->values[i].is_input) ni++;
    if (d->values[i].is_output) no++;
  }
  d->inputs = (uint32_t *)malloc((ni ? ni : 1) * sizeof(uint32_t));
  d->outputs = (uint32_t *)malloc((no ? no : 1) * sizeof(uint32_t));
  if (!d->inputs || !d->outputs) return CERR(c, PTE_ERR_MEMORY_ALLOCATION_FAILED, "xnnpack: out of memory");
  d->n_inputs = d->n_outputs = 0;
  uint32_t max_ext = 0;
  bool any = false;
  for (size_t i = 0; i < d->n_values; i++) {
    pte_xnn_value *v = &d->values[i];
    if (!v->is_input && !v->is_output) continue;
    if (v->external_id == PTE_XNN_INVALID_ID || v->external_id >= 0x10000u)
      return CERR(c, PTE_ERR_INVALID_PROGRAM, "xnnpack: external value %u has invalid external id %u", v->id,
                  v->external_id);
    if (v->is_input) d->inputs[d->n_inputs++] = (uint32_t)i;
    if (v->is_output) d->outputs[d->n_outputs++] = (uint32_t)i;
    if (!any || v->external_id > max_ext) max_ext = v->external_id;
    any = true;
  }
  for (size_t i = 0; i < d->n_values; i++) {
    const pte_xnn_value *a = &d->values[i];
    if (!a->is_input && !a->is_output) continue;
    for (size_t j = i + 1; j < d->n_values; j++) {
      const pte_xnn_value *b = &d->values[j];
      if ((b->is_input || b->is_output) && b->external_id == a->external_id)
        return CERR(c, PTE_ERR_INVALID_PROGRAM, "xnnpack: values %u and %u share external id %u", a->id, b->id,
                    a->external_id);
    }
  }
  sort_by_external(d->values, d->inputs, d->n_inputs);
  sort_by_external(d->values, d->outputs, d->n_outputs);
  d->num_externs = any ? max_ext + 1 : 0;
  /* the graph's own input/output id lists must agree with the flags */
  pte_fb_vec in_ids = pte_xn_XNNGraph_input_ids(c->root), out_ids = pte_xn_XNNGraph_output_ids(c->root);
  for (int pass = 0; pass < 2; pass++) {
    pte_fb_vec vv = pass ? out_ids : in_ids;
    if (!vv.present) continue;
    for (uint32_t i = 0; i < vv.len; i++) {
      uint32_t id = pte_fb_vec_u32(vv, i), idx;
      if (!pte_xnn_cc_lookup_id(c, id, &idx))
        return CERR(c, PTE_ERR_INVALID_PROGRAM, "xnnpack: graph %s_ids[%u] = %u is not a defined value",
                    pass ? "output" : "input", i, id);
      const pte_xnn_value *v = &d->values[idx];
      /* a legacy dq input is listed by its serialized id, now the hidden fp32 external's */
      bool ok = pass ? v->is_output : (v->is_input || (v->dtype == PTE_XD_QDINT8 && v->def_node >= 0));
      if (!ok)
        return CERR(c, PTE_ERR_INVALID_PROGRAM, "xnnpack: graph %s_ids lists value %u, which is not an external %s",
                    pass ? "output" : "input", id, pass ? "output" : "input");
    }
  }
  return PTE_OK;
}
