/* Ready-made XNNPACK graphs built with the blob builder's public interface (xnn_blob_build.c):
 * fp32 linear, MLP and 2-D convolution blobs for tests, benchmarks and examples. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "xnn_internal.h"

static pte_xnn_tensor_desc fp32_desc(uint32_t rank, const uint32_t *dims) {
  pte_xnn_tensor_desc t;
  memset(&t, 0, sizeof t);
  t.dtype = PTE_XNN_DT_FP32;
  t.rank = rank;
  t.dims = dims;
  return t;
}

pte_status pte_xnn_blob_build_mlp(size_t batch, size_t n_layers, const size_t *widths, const float *const *weights,
                                  const float *const *biases, bool relu_hidden, bool relu_last,
                                  pte_xnn_constants_mode mode, pte_xnn_blob *out, pte_error_info *err) {
  if (!widths || !weights || !out || n_layers == 0)
    return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "xnnpack builder: bad MLP arguments");
  for (size_t i = 0; i <= n_layers; i++)
    if (widths[i] == 0 || widths[i] > 0x7FFFFFFF || batch > 0x7FFFFFFF)
      return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "xnnpack builder: bad MLP sizes");
  pte_xnn_builder *b = pte_xnn_builder_new();
  if (!b) return pte_error_set(err, PTE_ERR_MEMORY_ALLOCATION_FAILED, "xnnpack builder: out of memory");
  pte_status s = PTE_OK;
  uint32_t dims[2] = {(uint32_t)batch, (uint32_t)widths[0]};
  pte_xnn_tensor_desc t = fp32_desc(2, dims);
  t.flags = PTE_XNN_VALUE_EXTERNAL_INPUT;
  t.external_id = 0;
  uint32_t cur;
  s = pte_xnn_builder_add_tensor(b, &t, &cur);
  for (size_t l = 0; s == PTE_OK && l < n_layers; l++) {
    const uint32_t nout = (uint32_t)widths[l + 1], kin = (uint32_t)widths[l];
    uint32_t wd[2] = {nout, kin}, bd[1] = {nout}, od[2] = {(uint32_t)batch, nout};
    pte_xnn_tensor_desc w = fp32_desc(2, wd);
    w.data = weights[l];
    w.nbytes = (size_t)nout * kin * sizeof(float);
    uint32_t wid, bid = PTE_XNN_NO_VALUE, oid;
    s = pte_xnn_builder_add_tensor(b, &w, &wid);
    if (s == PTE_OK && biases && biases[l]) {
      pte_xnn_tensor_desc bb = fp32_desc(1, bd);
      bb.data = biases[l];
      bb.nbytes = nout * sizeof(float);
      s = pte_xnn_builder_add_tensor(b, &bb, &bid);
    }
    if (s != PTE_OK) break;
    pte_xnn_tensor_desc o = fp32_desc(2, od);
    if (l + 1 == n_layers) {
      o.flags = PTE_XNN_VALUE_EXTERNAL_OUTPUT;
      o.external_id = 1;
    }
    s = pte_xnn_builder_add_tensor(b, &o, &oid);
    if (s != PTE_OK) break;
    pte_xnn_node_desc nd;
    memset(&nd, 0, sizeof nd);
    nd.type = PTE_XNN_NODE_FULLY_CONNECTED;
    nd.inputs[0] = cur;
    nd.inputs[1] = wid;
    nd.inputs[2] = bid;
    nd.output = oid;
    nd.debug_handle = (uint32_t)l;
    if ((l + 1 < n_layers && relu_hidden) || (l + 1 == n_layers && relu_last)) {
      nd.has_min_max = true;
      nd.out_min = 0.0f;
      nd.out_max = INFINITY;
    }
    s = pte_xnn_builder_add_node(b, &nd);
    cur = oid;
  }
  if (s == PTE_OK) s = pte_xnn_builder_finish(b, mode, out, err);
  else s = pte_error_set(err, s, "xnnpack builder: cannot add MLP layer (%s)", pte_status_name(s));
  pte_xnn_builder_free(b);
  return s;
}

pte_status pte_xnn_blob_build_linear(size_t batch, size_t in_features, size_t out_features, const float *weight,
                                     const float *bias, pte_xnn_constants_mode mode, pte_xnn_blob *out,
                                     pte_error_info *err) {
  size_t widths[2] = {in_features, out_features};
  const float *w[1] = {weight};
  const float *bb[1] = {bias};
  return pte_xnn_blob_build_mlp(batch, 1, widths, w, bb, false, false, mode, out, err);
}

pte_status pte_xnn_blob_build_conv2d(const pte_xnn_conv2d_spec *sp, const float *weight, const float *bias,
                                     pte_xnn_constants_mode mode, pte_xnn_blob *out, pte_error_info *err) {
  if (!sp || !weight || !out || sp->groups == 0 || sp->c_in % sp->groups || sp->c_out % sp->groups || sp->kh == 0 ||
      sp->kw == 0)
    return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "xnnpack builder: bad conv2d spec");
  const uint32_t sh = sp->stride_h ? sp->stride_h : 1, sw = sp->stride_w ? sp->stride_w : 1;
  const uint32_t dh = sp->dilation_h ? sp->dilation_h : 1, dw = sp->dilation_w ? sp->dilation_w : 1;
  const uint32_t eh = (sp->kh - 1) * dh + 1, ew = (sp->kw - 1) * dw + 1;
  if (sp->h + 2 * sp->pad_h < eh || sp->w + 2 * sp->pad_w < ew)
    return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "xnnpack builder: kernel larger than the padded input");
  const uint32_t oh = (sp->h + 2 * sp->pad_h - eh) / sh + 1, ow = (sp->w + 2 * sp->pad_w - ew) / sw + 1;
  const uint32_t gic = sp->c_in / sp->groups, goc = sp->c_out / sp->groups;
  const bool depthwise = sp->groups == sp->c_in && sp->groups > 1;
  const size_t taps = (size_t)sp->kh * sp->kw;
  /* weight OIHW [c_out, gic, kh, kw] -> OHWI (regular) or [1, kh, kw, c_out] (depthwise) */
  float *wt = (float *)malloc((size_t)sp->c_out * gic * taps * sizeof(float) + 4);
  if (!wt) return pte_error_set(err, PTE_ERR_MEMORY_ALLOCATION_FAILED, "xnnpack builder: out of memory");
  for (uint32_t o = 0; o < sp->c_out; o++)
    for (uint32_t i = 0; i < gic; i++)
      for (size_t t = 0; t < taps; t++) {
        const float v = weight[((size_t)o * gic + i) * taps + t];
        if (depthwise) wt[t * sp->c_out + o] = v; /* gic == 1 */
        else wt[((size_t)o * taps + t) * gic + i] = v;
      }
  pte_xnn_builder *b = pte_xnn_builder_new();
  if (!b) {
    free(wt);
    return pte_error_set(err, PTE_ERR_MEMORY_ALLOCATION_FAILED, "xnnpack builder: out of memory");
  }
  pte_status s;
  uint32_t in_d[4] = {sp->n, sp->c_in, sp->h, sp->w}, nhwc_d[4] = {sp->n, sp->h, sp->w, sp->c_in};
  uint32_t w_d[4] = {sp->c_out, sp->kh, sp->kw, gic}, dw_d[4] = {1, sp->kh, sp->kw, sp->c_out}, b_d[1] = {sp->c_out};
  uint32_t co_d[4] = {sp->n, oh, ow, sp->c_out}, out_d[4] = {sp->n, sp->c_out, oh, ow};
  uint32_t vin = 0, vnhwc = 0, vw = 0, vb = PTE_XNN_NO_VALUE, vco = 0, vout = 0;
  pte_xnn_tensor_desc t = fp32_desc(4, in_d);
  t.flags = PTE_XNN_VALUE_EXTERNAL_INPUT;
  t.external_id = 0;
  s = pte_xnn_builder_add_tensor(b, &t, &vin);
  t = fp32_desc(4, nhwc_d);
  if (s == PTE_OK) s = pte_xnn_builder_add_tensor(b, &t, &vnhwc);
  t = fp32_desc(4, depthwise ? dw_d : w_d);
  t.data = wt;
  t.nbytes = (size_t)sp->c_out * gic * taps * sizeof(float);
  if (s == PTE_OK) s = pte_xnn_builder_add_tensor(b, &t, &vw);
  t = fp32_desc(4, co_d);
  if (s == PTE_OK) s = pte_xnn_builder_add_tensor(b, &t, &vco);
  if (s == PTE_OK && bias) {
    t = fp32_desc(1, b_d);
    t.data = bias;
    t.nbytes = sp->c_out * sizeof(float);
    s = pte_xnn_builder_add_tensor(b, &t, &vb);
  }
  t = fp32_desc(4, out_d);
  t.flags = PTE_XNN_VALUE_EXTERNAL_OUTPUT;
  t.external_id = 1;
  if (s == PTE_OK) s = pte_xnn_builder_add_tensor(b, &t, &vout);
  static const uint32_t to_nhwc[4] = {0, 2, 3, 1}, to_nchw[4] = {0, 3, 1, 2};
  pte_xnn_node_desc nd;
  memset(&nd, 0, sizeof nd);
  nd.type = PTE_XNN_NODE_STATIC_TRANSPOSE;
  nd.inputs[0] = vin;
  nd.output = vnhwc;
  nd.num_dims = 4;
  nd.a = to_nhwc;
  if (s == PTE_OK) s = pte_xnn_builder_add_node(b, &nd);
  memset(&nd, 0, sizeof nd);
  nd.type = depthwise ? PTE_XNN_NODE_DEPTHWISE_CONV2D : PTE_XNN_NODE_CONV2D;
  nd.inputs[0] = vnhwc;
  nd.inputs[1] = vw;
  nd.inputs[2] = vb;
  nd.output = vco;
  nd.padding[0] = nd.padding[2] = sp->pad_h;
  nd.padding[1] = nd.padding[3] = sp->pad_w;
  nd.kernel[0] = sp->kh;
  nd.kernel[1] = sp->kw;
  nd.stride[0] = sh;
  nd.stride[1] = sw;
  nd.dilation[0] = dh;
  nd.dilation[1] = dw;
  nd.groups = sp->groups;
  nd.group_input_channels = gic;
  nd.group_output_channels = goc;
  if (sp->relu) {
    nd.has_min_max = true;
    nd.out_min = 0.0f;
    nd.out_max = INFINITY;
  }
  if (s == PTE_OK) s = pte_xnn_builder_add_node(b, &nd);
  memset(&nd, 0, sizeof nd);
  nd.type = PTE_XNN_NODE_STATIC_TRANSPOSE;
  nd.inputs[0] = vco;
  nd.output = vout;
  nd.num_dims = 4;
  nd.a = to_nchw;
  if (s == PTE_OK) s = pte_xnn_builder_add_node(b, &nd);
  if (s == PTE_OK) s = pte_xnn_builder_finish(b, mode, out, err);
  else s = pte_error_set(err, s, "xnnpack builder: cannot build conv2d graph (%s)", pte_status_name(s));
  pte_xnn_builder_free(b);
  free(wt);
  return s;
}
