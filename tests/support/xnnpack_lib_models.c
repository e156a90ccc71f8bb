/* xnnpack_lib_models.c — generated XNNPACK graphs (see xnnpack_lib_models.h). */
#include "xnnpack_lib_models.h"
#include "xnnpack_lib_build.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "format/flatbuf.h"
#include "pte/tensor.h"
#include "pte/writer.h"
#include "pte_gen/xnnpack_gen.h"


float pxm_rand(pxm *m) { /* uniform in [-1, 1) */
  m->rng = m->rng * 1664525u + 1013904223u;
  return (float)((m->rng >> 8) & 0xFFFFFF) / 8388608.0f - 1.0f;
}

uint32_t pxm_add(pxm *m, const pte_xnn_tensor_desc *t) {
  uint32_t id = 0;
  if (m->s == PTE_OK) m->s = pte_xnn_builder_add_tensor(m->b, t, &id);
  return id;
}

/* fp32 activation; ext < 0: internal, else external input (in) / output */
uint32_t pxm_f32(pxm *m, uint32_t rank, const uint32_t *dims, int ext, bool in) {
  pte_xnn_tensor_desc t;
  memset(&t, 0, sizeof t);
  t.dtype = PTE_XNN_DT_FP32;
  t.rank = rank;
  t.dims = dims;
  if (ext >= 0) {
    t.flags = in ? PTE_XNN_VALUE_EXTERNAL_INPUT : PTE_XNN_VALUE_EXTERNAL_OUTPUT;
    t.external_id = (uint32_t)ext;
  }
  return pxm_add(m, &t);
}

/* fp32 constant of n random values in [-scale, scale) */
uint32_t pxm_f32_const(pxm *m, uint32_t rank, const uint32_t *dims, float scale) {
  size_t n = 1;
  for (uint32_t i = 0; i < rank; i++) n *= dims[i];
  float *w = (float *)malloc(n * sizeof(float));
  if (!w) {
    m->s = PTE_ERR_MEMORY_ALLOCATION_FAILED;
    return 0;
  }
  for (size_t i = 0; i < n; i++) w[i] = pxm_rand(m) * scale;
  pte_xnn_tensor_desc t;
  memset(&t, 0, sizeof t);
  t.dtype = PTE_XNN_DT_FP32;
  t.rank = rank;
  t.dims = dims;
  t.data = w;
  t.nbytes = n * sizeof(float);
  uint32_t id = pxm_add(m, &t);
  free(w);
  return id;
}

pte_status pxm_finish(pxm *m, pte_xnn_blob *out, pte_error_info *err, const char *what) {
  pte_status s = m->s;
  if (s == PTE_OK) s = pte_xnn_builder_finish(m->b, PTE_XNN_CONSTANTS_NAMED, out, err);
  else pte_error_set(err, s, "%s: cannot build the graph (%s)", what, pte_status_name(s));
  pte_xnn_builder_free(m->b);
  m->b = NULL;
  return s;
}

void pxm_node(pxm *m, const pte_xnn_node_desc *n) {
  if (m->s == PTE_OK) m->s = pte_xnn_builder_add_node(m->b, n);
}

void pxm_conv_desc(pte_xnn_node_desc *n, unsigned type, uint32_t x, uint32_t w, uint32_t bias, uint32_t y,
                          uint32_t kh, uint32_t kw, uint32_t stride, const uint32_t pad[4], uint32_t groups,
                          uint32_t gic, uint32_t goc) {
  memset(n, 0, sizeof *n);
  n->type = type;
  n->inputs[0] = x;
  n->inputs[1] = w;
  n->inputs[2] = bias;
  n->output = y;
  memcpy(n->padding, pad, sizeof n->padding);
  n->kernel[0] = kh;
  n->kernel[1] = kw;
  n->stride[0] = n->stride[1] = stride;
  n->dilation[0] = n->dilation[1] = 1;
  n->groups = groups;
  n->group_input_channels = gic;
  n->group_output_channels = goc;
}

/* ---- YOLO-like fp32 CNN ------------------------------------------------------------------ */

/* y = SiLU(x) = x * sigmoid(x) on [1, h, w, c] */
static uint32_t pxm_silu(pxm *m, uint32_t x, uint32_t h, uint32_t w, uint32_t c) {
  uint32_t d[4] = {1, h, w, c};
  uint32_t s = pxm_f32(m, 4, d, -1, false), y = pxm_f32(m, 4, d, -1, false);
  pte_xnn_node_desc n;
  memset(&n, 0, sizeof n);
  n.type = PTE_XNN_NODE_SIGMOID;
  n.inputs[0] = x;
  n.output = s;
  pxm_node(m, &n);
  memset(&n, 0, sizeof n);
  n.type = PTE_XNN_NODE_MULTIPLY;
  n.inputs[0] = x;
  n.inputs[1] = s;
  n.output = y;
  pxm_node(m, &n);
  return y;
}

/* conv kxk (groups 1) + SiLU; *h, *w updated; ext >= 0 / silu false: a plain output head */
static uint32_t pxm_conv(pxm *m, uint32_t x, uint32_t *h, uint32_t *w, uint32_t cin, uint32_t cout, uint32_t k,
                         uint32_t stride, bool silu, int ext) {
  const uint32_t p = k / 2, pad[4] = {p, p, p, p};
  const uint32_t oh = (*h + 2 * p - k) / stride + 1, ow = (*w + 2 * p - k) / stride + 1;
  uint32_t wd[4] = {cout, k, k, cin}, bd[1] = {cout}, od[4] = {1, oh, ow, cout};
  uint32_t W = pxm_f32_const(m, 4, wd, 1.7f / sqrtf((float)(k * k * cin)));
  uint32_t B = pxm_f32_const(m, 1, bd, 0.1f);
  uint32_t y = pxm_f32(m, 4, od, ext, false);
  pte_xnn_node_desc n;
  pxm_conv_desc(&n, PTE_XNN_NODE_CONV2D, x, W, B, y, k, k, stride, pad, 1, cin, cout);
  pxm_node(m, &n);
  *h = oh;
  *w = ow;
  return silu ? pxm_silu(m, y, oh, ow, cout) : y;
}

/* depthwise 3x3 + SiLU */
static uint32_t pxm_dw(pxm *m, uint32_t x, uint32_t *h, uint32_t *w, uint32_t c, uint32_t stride) {
  const uint32_t pad[4] = {1, 1, 1, 1};
  const uint32_t oh = (*h + 2 - 3) / stride + 1, ow = (*w + 2 - 3) / stride + 1;
  uint32_t wd[4] = {1, 3, 3, c}, bd[1] = {c}, od[4] = {1, oh, ow, c};
  uint32_t W = pxm_f32_const(m, 4, wd, 1.7f / 3.0f), B = pxm_f32_const(m, 1, bd, 0.1f);
  uint32_t y = pxm_f32(m, 4, od, -1, false);
  pte_xnn_node_desc n;
  pxm_conv_desc(&n, PTE_XNN_NODE_DEPTHWISE_CONV2D, x, W, B, y, 3, 3, stride, pad, c, 1, 1);
  pxm_node(m, &n);
  *h = oh;
  *w = ow;
  return pxm_silu(m, y, oh, ow, c);
}

/* depthwise-separable block: dw 3x3 (stride) + pw 1x1 cin -> cout, both SiLU */
static uint32_t pxm_dsblock(pxm *m, uint32_t x, uint32_t *h, uint32_t *w, uint32_t cin, uint32_t cout, uint32_t stride) {
  x = pxm_dw(m, x, h, w, cin, stride);
  return pxm_conv(m, x, h, w, cin, cout, 1, 1, true, -1);
}

pte_status pxm_build_yolo(uint32_t image, pte_xnn_blob *out, pte_error_info *err) {
  memset(out, 0, sizeof *out);
  if (image < 16 || image % 16)
    return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "yolo: image %u is not a multiple of 16", image);
  pxm m = {pte_xnn_builder_new(), 0x5eed1u, PTE_OK};
  if (!m.b) return pte_error_set(err, PTE_ERR_MEMORY_ALLOCATION_FAILED, "yolo: out of memory");
  uint32_t h = image, w = image, d_in[4] = {1, image, image, 3};
  uint32_t x = pxm_f32(&m, 4, d_in, 0, true);
  x = pxm_conv(&m, x, &h, &w, 3, 16, 3, 2, true, -1);       /* 1/2, 16 */
  x = pxm_dsblock(&m, x, &h, &w, 16, 32, 2);                 /* 1/4, 32 */
  x = pxm_dsblock(&m, x, &h, &w, 32, 32, 1);
  x = pxm_dsblock(&m, x, &h, &w, 32, 64, 2);                 /* 1/8, 64 */
  x = pxm_dsblock(&m, x, &h, &w, 64, 64, 1);
  const uint32_t p3 = x, h3 = h, w3 = w;
  x = pxm_dsblock(&m, x, &h, &w, 64, 128, 2);                /* 1/16, 128 */
  x = pxm_dsblock(&m, x, &h, &w, 128, 128, 1);
  const uint32_t p4 = x, h4 = h, w4 = w;
  /* neck: reduce, upsample x2, concatenate with the 1/8 map */
  uint32_t lat = pxm_conv(&m, p4, &h, &w, 128, 64, 1, 1, true, -1);
  uint32_t d_up[4] = {1, h3, w3, 64}, d_cat[4] = {1, h3, w3, 128};
  uint32_t up = pxm_f32(&m, 4, d_up, -1, false), cat = pxm_f32(&m, 4, d_cat, -1, false);
  pte_xnn_node_desc n;
  memset(&n, 0, sizeof n);
  n.type = PTE_XNN_NODE_STATIC_RESIZE_BILINEAR_2D;
  n.inputs[0] = lat;
  n.output = up;
  n.new_h = h3;
  n.new_w = w3;
  pxm_node(&m, &n);
  memset(&n, 0, sizeof n);
  n.type = PTE_XNN_NODE_CONCATENATE2;
  n.inputs[0] = up;
  n.inputs[1] = p3;
  n.output = cat;
  n.axis = 3;
  pxm_node(&m, &n);
  h = h3, w = w3;
  uint32_t f3 = pxm_dsblock(&m, cat, &h, &w, 128, 64, 1);
  pxm_conv(&m, f3, &h, &w, 64, 27, 1, 1, false, 1);         /* head 1/8 */
  h = h4, w = w4;
  pxm_conv(&m, p4, &h, &w, 128, 27, 1, 1, false, 2);        /* head 1/16 */
  return pxm_finish(&m, out, err, "yolo");
}

/* ---- int8 KWS DS-CNN -------------------------------------------------------------------- */

uint32_t pxm_q8(pxm *m, uint32_t rank, const uint32_t *dims, float scale, int32_t zp) {
  pte_xnn_tensor_desc t;
  memset(&t, 0, sizeof t);
  t.dtype = PTE_XNN_DT_QINT8;
  t.rank = rank;
  t.dims = dims;
  t.quant = PTE_XNN_QUANT_PER_TENSOR;
  t.scale = scale;
  t.zero_point = zp;
  return pxm_add(m, &t);
}

/* per-channel int8 filter (channel_dim cdim, nch channels) with real range ~[-a, a], and its
 * int32 bias with scales in_scale * wscale[c]; returns the filter id, *bias the bias id */
static uint32_t pxm_qc_filter(pxm *m, uint32_t rank, const uint32_t *dims, uint32_t cdim, float a, float in_scale,
                              uint32_t *bias) {
  size_t n = 1;
  for (uint32_t i = 0; i < rank; i++) n *= dims[i];
  const uint32_t nch = dims[cdim];
  int8_t *q = (int8_t *)malloc(n);
  float *ws = (float *)malloc(nch * sizeof(float)), *bs = (float *)malloc(nch * sizeof(float));
  int32_t *bq = (int32_t *)malloc(nch * sizeof(int32_t));
  if (!q || !ws || !bs || !bq) {
    m->s = PTE_ERR_MEMORY_ALLOCATION_FAILED;
    free(q), free(ws), free(bs), free(bq);
    return 0;
  }
  for (uint32_t c = 0; c < nch; c++) {
    ws[c] = a * (0.75f + 0.25f * pxm_rand(m)) / 127.0f;
    bs[c] = in_scale * ws[c];
    bq[c] = (int32_t)lrintf(pxm_rand(m) * 0.1f / bs[c]);
  }
  for (size_t i = 0; i < n; i++) q[i] = (int8_t)lrintf(pxm_rand(m) * 127.0f);
  pte_xnn_tensor_desc t;
  memset(&t, 0, sizeof t);
  t.dtype = PTE_XNN_DT_QCINT8;
  t.rank = rank;
  t.dims = dims;
  t.data = q;
  t.nbytes = n;
  t.quant = PTE_XNN_QUANT_PER_CHANNEL;
  t.channel_scales = ws;
  t.n_channel_scales = nch;
  t.channel_dim = cdim;
  uint32_t wid = pxm_add(m, &t);
  uint32_t bd[1] = {nch};
  memset(&t, 0, sizeof t);
  t.dtype = PTE_XNN_DT_QCINT32;
  t.rank = 1;
  t.dims = bd;
  t.data = bq;
  t.nbytes = nch * sizeof(int32_t);
  t.quant = PTE_XNN_QUANT_PER_CHANNEL;
  t.channel_scales = bs;
  t.n_channel_scales = nch;
  t.channel_dim = 0;
  *bias = pxm_add(m, &t);
  free(q), free(ws), free(bs), free(bq);
  return wid;
}

pte_status pxm_build_kws(pte_xnn_blob *out, pte_error_info *err) {
  memset(out, 0, sizeof *out);
  pxm m = {pte_xnn_builder_new(), 0xc0ffeeu, PTE_OK};
  if (!m.b) return pte_error_set(err, PTE_ERR_MEMORY_ALLOCATION_FAILED, "kws: out of memory");
  const float s_in = 1.0f / 64.0f, s_act = 3.0f / 127.0f;
  const uint32_t C = 64;
  uint32_t d_in[4] = {1, 49, 10, 1};
  uint32_t xf = pxm_f32(&m, 4, d_in, 0, true), xq = pxm_q8(&m, 4, d_in, s_in, 0);
  pte_xnn_node_desc n;
  memset(&n, 0, sizeof n);
  n.type = PTE_XNN_NODE_CONVERT;
  n.inputs[0] = xf;
  n.output = xq;
  pxm_node(&m, &n);
  /* conv 10x4 stride 2, padding (4, 2, 5, 1) -> [1, 25, 5, 64] */
  uint32_t wd[4] = {C, 10, 4, 1}, B = 0;
  uint32_t W = pxm_qc_filter(&m, 4, wd, 0, 1.7f / sqrtf(40.0f), s_in, &B);
  uint32_t h = 25, w = 5, d_a[4] = {1, h, w, C};
  uint32_t x = pxm_q8(&m, 4, d_a, s_act, -128);
  const uint32_t pad0[4] = {4, 2, 5, 1};
  pxm_conv_desc(&n, PTE_XNN_NODE_CONV2D, xq, W, B, x, 10, 4, 2, pad0, 1, 1, C);
  n.has_min_max = true;
  n.out_min = 0.0f;
  n.out_max = INFINITY;
  pxm_node(&m, &n);
  const uint32_t pad1[4] = {1, 1, 1, 1}, pad_none[4] = {0, 0, 0, 0};
  for (int blk = 0; blk < 4; blk++) {
    uint32_t dwd[4] = {1, 3, 3, C}, pwd[4] = {C, 1, 1, C};
    uint32_t Wd = pxm_qc_filter(&m, 4, dwd, 3, 1.7f / 3.0f, s_act, &B);
    uint32_t y = pxm_q8(&m, 4, d_a, s_act, -128);
    pxm_conv_desc(&n, PTE_XNN_NODE_DEPTHWISE_CONV2D, x, Wd, B, y, 3, 3, 1, pad1, C, 1, 1);
    n.has_min_max = true;
    n.out_min = 0.0f;
    n.out_max = INFINITY;
    pxm_node(&m, &n);
    uint32_t Wp = pxm_qc_filter(&m, 4, pwd, 0, 1.7f / 8.0f, s_act, &B);
    uint32_t z = pxm_q8(&m, 4, d_a, s_act, -128);
    pxm_conv_desc(&n, PTE_XNN_NODE_CONV2D, y, Wp, B, z, 1, 1, 1, pad_none, 1, C, C);
    n.has_min_max = true;
    n.out_min = 0.0f;
    n.out_max = INFINITY;
    pxm_node(&m, &n);
    x = z;
  }
  uint32_t d_g[4] = {1, 1, 1, C}, d_f[2] = {1, C};
  uint32_t g = pxm_q8(&m, 4, d_g, s_act, -128), f = pxm_q8(&m, 2, d_f, s_act, -128);
  memset(&n, 0, sizeof n);
  n.type = PTE_XNN_NODE_GLOBAL_AVG_POOLING_2D;
  n.inputs[0] = x;
  n.output = g;
  pxm_node(&m, &n);
  memset(&n, 0, sizeof n);
  n.type = PTE_XNN_NODE_STATIC_RESHAPE;
  n.inputs[0] = g;
  n.output = f;
  n.num_dims = 2;
  n.a = d_f;
  pxm_node(&m, &n);
  /* FullyConnected 64 -> 12, per-tensor qint8 weights */
  const uint32_t K = 12;
  int8_t wq[12 * 64];
  int32_t bq[12];
  const float w_scale = 1.7f / 8.0f / 127.0f;
  for (size_t i = 0; i < sizeof wq; i++) wq[i] = (int8_t)lrintf(pxm_rand(&m) * 127.0f);
  for (uint32_t i = 0; i < K; i++) bq[i] = (int32_t)lrintf(pxm_rand(&m) * 0.1f / (s_act * w_scale));
  uint32_t fwd[2] = {K, C}, fbd[1] = {K}, d_o[2] = {1, K};
  pte_xnn_tensor_desc t;
  memset(&t, 0, sizeof t);
  t.dtype = PTE_XNN_DT_QINT8;
  t.rank = 2;
  t.dims = fwd;
  t.data = wq;
  t.nbytes = sizeof wq;
  t.quant = PTE_XNN_QUANT_PER_TENSOR;
  t.scale = w_scale;
  uint32_t FW = pxm_add(&m, &t);
  memset(&t, 0, sizeof t);
  t.dtype = PTE_XNN_DT_QINT32;
  t.rank = 1;
  t.dims = fbd;
  t.data = bq;
  t.nbytes = sizeof bq;
  t.quant = PTE_XNN_QUANT_PER_TENSOR;
  t.scale = s_act * w_scale;
  uint32_t FB = pxm_add(&m, &t);
  uint32_t lq = pxm_q8(&m, 2, d_o, 1.0f / 127.0f, 0), lf = pxm_f32(&m, 2, d_o, 1, false);
  memset(&n, 0, sizeof n);
  n.type = PTE_XNN_NODE_FULLY_CONNECTED;
  n.inputs[0] = f;
  n.inputs[1] = FW;
  n.inputs[2] = FB;
  n.output = lq;
  pxm_node(&m, &n);
  pxm_cvt(&m, lq, lf);
  return pxm_finish(&m, out, err, "kws");
}

/* fp32 x [rank dims] -> Convert -> qdint8 (num_nonbatch_dims nb) */
static uint32_t pxm_qd8(pxm *m, uint32_t x, uint32_t rank, const uint32_t *dims, int32_t nb) {
  pte_xnn_tensor_desc t;
  memset(&t, 0, sizeof t);
  t.dtype = PTE_XNN_DT_QDINT8;
  t.rank = rank;
  t.dims = dims;
  t.quant = PTE_XNN_QUANT_PER_TOKEN;
  t.num_nonbatch_dims = nb;
  uint32_t q = pxm_add(m, &t);
  return pxm_cvt(m, x, q);
}

/* per-channel int8 filter with real range ~[-a, a] and an fp32 bias */
static uint32_t pxm_qc_filter_f32bias(pxm *m, uint32_t rank, const uint32_t *dims, uint32_t cdim, float a,
                                      uint32_t *bias) {
  size_t n = 1;
  for (uint32_t i = 0; i < rank; i++) n *= dims[i];
  const uint32_t nch = dims[cdim];
  int8_t *q = (int8_t *)malloc(n);
  float *ws = (float *)malloc(nch * sizeof(float));
  if (!q || !ws) {
    m->s = PTE_ERR_MEMORY_ALLOCATION_FAILED;
    free(q), free(ws);
    return 0;
  }
  for (uint32_t c = 0; c < nch; c++) ws[c] = a * (0.75f + 0.25f * pxm_rand(m)) / 127.0f;
  for (size_t i = 0; i < n; i++) q[i] = (int8_t)lrintf(pxm_rand(m) * 127.0f);
  pte_xnn_tensor_desc t;
  memset(&t, 0, sizeof t);
  t.dtype = PTE_XNN_DT_QCINT8;
  t.rank = rank;
  t.dims = dims;
  t.data = q;
  t.nbytes = n;
  t.quant = PTE_XNN_QUANT_PER_CHANNEL;
  t.channel_scales = ws;
  t.n_channel_scales = nch;
  t.channel_dim = cdim;
  uint32_t wid = pxm_add(m, &t);
  uint32_t bd[1] = {nch};
  *bias = pxm_f32_const(m, 1, bd, 0.1f);
  free(q), free(ws);
  return wid;
}

pte_status pxm_build_kws_qd8(pte_xnn_blob *out, pte_error_info *err) {
  memset(out, 0, sizeof *out);
  pxm m = {pte_xnn_builder_new(), 0xc0ffeeu, PTE_OK};
  if (!m.b) return pte_error_set(err, PTE_ERR_MEMORY_ALLOCATION_FAILED, "kws qd8: out of memory");
  const uint32_t C = 64;
  uint32_t d_in[4] = {1, 49, 10, 1}, d_a[4] = {1, 25, 5, C};
  uint32_t xf = pxm_f32(&m, 4, d_in, 0, true);
  uint32_t wd[4] = {C, 10, 4, 1}, B = 0;
  uint32_t W = pxm_qc_filter_f32bias(&m, 4, wd, 0, 1.7f / sqrtf(40.0f), &B);
  uint32_t x = pxm_f32(&m, 4, d_a, -1, false);
  const uint32_t pad0[4] = {4, 2, 5, 1}, pad1[4] = {1, 1, 1, 1}, pad_none[4] = {0, 0, 0, 0};
  pte_xnn_node_desc n;
  pxm_conv_desc(&n, PTE_XNN_NODE_CONV2D, pxm_qd8(&m, xf, 4, d_in, 3), W, B, x, 10, 4, 2, pad0, 1, 1, C);
  n.has_min_max = true;
  n.out_min = 0.0f;
  n.out_max = INFINITY;
  pxm_node(&m, &n);
  for (int blk = 0; blk < 4; blk++) {
    uint32_t dwd[4] = {1, 3, 3, C}, pwd[4] = {C, 1, 1, C};
    uint32_t Wd = pxm_qc_filter_f32bias(&m, 4, dwd, 3, 1.7f / 3.0f, &B);
    uint32_t y = pxm_f32(&m, 4, d_a, -1, false);
    pxm_conv_desc(&n, PTE_XNN_NODE_DEPTHWISE_CONV2D, pxm_qd8(&m, x, 4, d_a, 3), Wd, B, y, 3, 3, 1, pad1, C, 1, 1);
    n.has_min_max = true;
    n.out_min = 0.0f;
    n.out_max = INFINITY;
    pxm_node(&m, &n);
    uint32_t Wp = pxm_qc_filter_f32bias(&m, 4, pwd, 0, 1.7f / 8.0f, &B);
    uint32_t z = pxm_f32(&m, 4, d_a, -1, false);
    pxm_conv_desc(&n, PTE_XNN_NODE_CONV2D, pxm_qd8(&m, y, 4, d_a, 3), Wp, B, z, 1, 1, 1, pad_none, 1, C, C);
    n.has_min_max = true;
    n.out_min = 0.0f;
    n.out_max = INFINITY;
    pxm_node(&m, &n);
    x = z;
  }
  uint32_t d_g[4] = {1, 1, 1, C}, d_f[2] = {1, C}, fwd[2] = {12, C}, d_o[2] = {1, 12};
  uint32_t g = pxm_un(&m, PTE_XNN_NODE_GLOBAL_AVG_POOLING_2D, x, 4, d_g, -1);
  uint32_t f = pxm_f32(&m, 2, d_f, -1, false);
  memset(&n, 0, sizeof n);
  n.type = PTE_XNN_NODE_STATIC_RESHAPE;
  n.inputs[0] = g;
  n.output = f;
  n.num_dims = 2;
  n.a = d_f;
  pxm_node(&m, &n);
  uint32_t FW = pxm_qc_filter_f32bias(&m, 2, fwd, 0, 1.7f / 8.0f, &B);
  uint32_t o = pxm_f32(&m, 2, d_o, 1, false);
  memset(&n, 0, sizeof n);
  n.type = PTE_XNN_NODE_FULLY_CONNECTED;
  n.inputs[0] = pxm_qd8(&m, f, 2, d_f, 1);
  n.inputs[1] = FW;
  n.inputs[2] = B;
  n.output = o;
  pxm_node(&m, &n);
  return pxm_finish(&m, out, err, "kws qd8");
}

/* ---- as a program file ------------------------------------------------------------------- */

#define PXM_MAX_EXT 32

pte_status pxm_write_pte(const pte_xnn_blob *blob, const char *path, pte_error_info *err) {
  pte_xnn_header h;
  pte_status s = pte_xnn_parse_header(blob->data, blob->size, &h, err);
  if (s != PTE_OK) return s;
  const uint8_t *fb = h.present ? blob->data + h.flatbuffer_offset : blob->data;
  pte_fb_table root = pte_fb_root(fb, h.present ? h.flatbuffer_size : blob->size);
  pte_fb_vec vals = pte_xn_XNNGraph_xvalues(root);
  /* externals by id: rank, dims, input? */
  int32_t sizes[PXM_MAX_EXT][6];
  uint32_t rank[PXM_MAX_EXT];
  int kind[PXM_MAX_EXT] = {0}; /* 1 input, 2 output */
  uint32_t n_ext = 0;
  for (uint32_t i = 0; vals.present && i < vals.len; i++) {
    pte_fb_table xv = pte_fb_vec_table(vals, i), tv = pte_xn_XValue_xvalue_union(xv);
    if (pte_xn_XValue_xvalue_union_type(xv) == pte_xn_XValueUnion_XNNQuantizedTensorValue)
      tv = pte_xn_XNNQuantizedTensorValue_tensor_value(tv);
    uint32_t fl = pte_xn_XNNTensorValue_flags(tv);
    if (!(fl & 3)) continue;
    uint32_t e = pte_xn_XNNTensorValue_external_id(tv);
    pte_fb_vec d = pte_xn_XNNTensorValue_dims(tv);
    if (e >= PXM_MAX_EXT || d.len > 6 || pte_xn_XNNTensorValue_datatype(tv) != PTE_XNN_DT_FP32)
      return pte_error_set(err, PTE_ERR_NOT_SUPPORTED, "pxm_write_pte: external %u is not an fp32 tensor of rank <= 6 "
                           "with id < %d", e, PXM_MAX_EXT);
    kind[e] = (fl & 1) ? 1 : 2;
    rank[e] = d.len;
    for (uint32_t k = 0; k < d.len; k++) sizes[e][k] = (int32_t)pte_fb_vec_u32(d, k);
    if (e + 1 > n_ext) n_ext = e + 1;
  }
  for (uint32_t e = 0; e < n_ext; e++)
    if (!kind[e]) return pte_error_set(err, PTE_ERR_NOT_SUPPORTED, "pxm_write_pte: external id %u unused", e);
  pte_writer *w = NULL;
  s = pte_writer_create(NULL, &w, err);
  if (s != PTE_OK) return s;
  for (size_t i = 0; s == PTE_OK && i < blob->n_named; i++) {
    uint32_t b;
    pte_source src = pte_source_memory(blob->named[i].data, blob->named[i].size);
    s = pte_writer_add_blob(w, &src, &b, err);
    if (s == PTE_OK) s = pte_writer_add_named_data(w, blob->named[i].key, b, 16, err);
  }
  uint32_t bi = 0, module = 0, m = 0, chain = 0;
  pte_source src = pte_source_memory(blob->data, blob->size);
  if (s == PTE_OK) s = pte_writer_add_blob(w, &src, &bi, err);
  pte_wr_delegate del;
  memset(&del, 0, sizeof del);
  del.id = PTE_XNNPACK_BACKEND_ID;
  del.blob = bi;
  if (s == PTE_OK) s = pte_writer_add_lowered_module(w, &del, &module, err);
  if (s == PTE_OK) s = pte_writer_add_method(w, "forward", &m, err);
  if (s == PTE_OK) s = pte_writer_add_chain(w, m, NULL, 0, NULL, 0, &chain, err);
  int32_t args[PXM_MAX_EXT], ins[PXM_MAX_EXT], outs[PXM_MAX_EXT];
  size_t n_in = 0, n_out = 0;
  for (uint32_t e = 0; s == PTE_OK && e < n_ext; e++) {
    pte_wr_tensor t;
    memset(&t, 0, sizeof t);
    t.dtype = PTE_DTYPE_FLOAT;
    t.dim = rank[e];
    t.sizes = sizes[e];
    t.plan = PTE_WR_PLAN_AUTO;
    s = pte_writer_add_tensor(w, m, &t, &args[e], err);
    if (kind[e] == 1) ins[n_in++] = args[e];
    else outs[n_out++] = args[e];
  }
  if (s == PTE_OK) s = pte_writer_call_module(w, m, chain, module, args, n_ext, NULL, err);
  if (s == PTE_OK) s = pte_writer_set_inputs(w, m, ins, n_in, err);
  if (s == PTE_OK) s = pte_writer_set_outputs(w, m, outs, n_out, err);
  if (s == PTE_OK) s = pte_writer_write_file(w, path, NULL, err);
  pte_writer_destroy(w);
  return s;
}

pte_status pxm_build_tanh(pte_xnn_blob *out, pte_error_info *err) {
  memset(out, 0, sizeof *out);
  pxm m = {pte_xnn_builder_new(), 7u, PTE_OK};
  if (!m.b) return pte_error_set(err, PTE_ERR_MEMORY_ALLOCATION_FAILED, "tanh: out of memory");
  uint32_t d[2] = {1, 8}, wd[2] = {8, 8};
  uint32_t x = pxm_f32(&m, 2, d, 0, true), W = pxm_f32_const(&m, 2, wd, 0.3f);
  uint32_t h = pxm_f32(&m, 2, d, -1, false), y = pxm_f32(&m, 2, d, 1, false);
  pte_xnn_node_desc n;
  memset(&n, 0, sizeof n);
  n.type = PTE_XNN_NODE_FULLY_CONNECTED;
  n.inputs[0] = x;
  n.inputs[1] = W;
  n.inputs[2] = PTE_XNN_NO_VALUE;
  n.output = h;
  pxm_node(&m, &n);
  memset(&n, 0, sizeof n);
  n.type = PTE_XNN_NODE_TANH;
  n.inputs[0] = h;
  n.output = y;
  pxm_node(&m, &n);
  return pxm_finish(&m, out, err, "tanh");
}
