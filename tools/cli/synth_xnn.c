/* `pte synth --delegate xnnpack` (synth.h): the models of cmd_synth.c lowered into one XNNPACK
 * delegate, as the exporter lowers them; constants are generated in the delegate's layouts and
 * stored as named data keyed by the sha256 of their bytes. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pte/data_writer.h"
#include "hash_key.h"
#include "synth.h"

/* ------------------------------------------------------------------ XNNPACK-delegated models */

static pte_status xgen_read(void *ctx, uint64_t offset, void *dst, size_t size, pte_error_info *err) {
  const xgen *x = (const xgen *)ctx;
  if (x->identity) return pte_cli_gen_read((void *)&x->g, offset, dst, size, err);
  if (size == 0) return PTE_OK;
  uint8_t *out = (uint8_t *)dst;
  uint64_t e = offset / 4, end = offset + size;
  uint32_t s[4] = {0, 0, 0, 0};
  uint64_t rem = e, gi = 0;
  for (uint32_t j = x->rank; j-- > 0;) {
    s[j] = (uint32_t)(rem % x->sdims[j]);
    rem /= x->sdims[j];
    gi += s[j] * x->gstride[j];
  }
  const uint32_t last = x->rank - 1;
  for (uint64_t pos = offset; pos < end; e++) {
    float f = pte_cli_gen_value(&x->g, (uint32_t)gi);
    uint64_t lo = e * 4, skip = pos - lo;
    size_t k = (size_t)(4 - skip < end - pos ? 4 - skip : end - pos);
    memcpy(out, (const uint8_t *)&f + skip, k);
    out += k;
    pos += k;
    /* next stored element */
    s[last]++;
    gi += x->gstride[last];
    for (uint32_t j = last; j > 0 && s[j] == x->sdims[j]; j--) {
      gi -= (uint64_t)s[j] * x->gstride[j];
      s[j] = 0;
      s[j - 1]++;
      gi += x->gstride[j - 1];
    }
  }
  return PTE_OK;
}


static pte_status xerr(synth *S, pte_status s, const char *what) {
  return pte_error_set(&S->err, s, "xnnpack graph: cannot add %s (%s)", what, pte_status_name(s));
}

/* A generated fp32 constant of the delegate: stored shape sdims (rank r), stored axis j being axis
 * perm[j] of the generator's (portable) shape gdims (perm NULL: same layout). Its bytes become a
 * named-data entry keyed by their sha256; the graph value refers to that key. */
static pte_status xconst(synth *S, pte_xnn_builder *b, uint32_t r, const uint32_t *gdims, const uint32_t *perm,
                         uint32_t fan_in, uint32_t *id) {
  if (S->n_xgens == S->cap_xgens) return pte_error_set(&S->err, PTE_ERR_INTERNAL, "too many generated tensors");
  xgen *x = &S->xgens[S->n_xgens++];
  memset(x, 0, sizeof *x);
  x->g.seed32 = pte_cli_gen_seed32(S->seed, S->next_tensor_id++);
  x->g.scale = 1.0f / sqrtf((float)(fan_in ? fan_in : 1));
  x->rank = r;
  x->identity = true;
  uint64_t gstride[4], numel = 1;
  for (uint32_t a = r; a-- > 0;) {
    gstride[a] = numel;
    numel *= gdims[a];
  }
  for (uint32_t j = 0; j < r; j++) {
    uint32_t a = perm ? perm[j] : j;
    x->sdims[j] = gdims[a];
    x->gstride[j] = gstride[a];
    if (a != j) x->identity = false;
  }
  const uint64_t nbytes = numel * 4;
  /* key: sha256 of the stored bytes, streamed through the bounded buffer */
  pte_sha256_ctx h;
  pte_sha256_init(&h);
  pte_status hs = pte_cli_hash_stream(&h, xgen_read, x, nbytes, S->hash_buf, HASH_BUF_SIZE, S->progress, &S->hashed,
                                      S->to_hash, &S->err);
  if (hs != PTE_OK) return hs;
  char key[65];
  pte_cli_hash_hex(&h, key);
  bool seen = false;
  for (size_t i = 0; i < S->n_keys && !seen; i++) seen = strcmp(S->keys[i], key) == 0;
  if (!seen) { /* identical bytes are stored once, as the exporter does */
    uint32_t blob;
    pte_source src = pte_source_callback(xgen_read, x, nbytes);
    pte_status s = pte_writer_add_blob(S->w, &src, &blob, &S->err);
    if (s == PTE_OK) s = pte_writer_add_named_data(S->w, key, blob, 16, &S->err);
    if (s != PTE_OK) return s;
    memcpy(S->keys[S->n_keys++], key, 65);
    S->named_bytes += nbytes;
  }
  pte_xnn_tensor_desc t;
  memset(&t, 0, sizeof t);
  t.dtype = PTE_XNN_DT_FP32;
  t.rank = r;
  t.dims = x->sdims;
  t.nbytes = (size_t)nbytes;
  t.named_key = key;
  pte_status s = pte_xnn_builder_add_tensor(b, &t, id);
  return s == PTE_OK ? PTE_OK : xerr(S, s, "a constant");
}

/* A non-constant fp32 graph value; ext >= 0 makes it external input (in) or output (!in). */
static pte_status xval(synth *S, pte_xnn_builder *b, uint32_t r, const uint32_t *dims, int ext, bool in, uint32_t *id) {
  pte_xnn_tensor_desc t;
  memset(&t, 0, sizeof t);
  t.dtype = PTE_XNN_DT_FP32;
  t.rank = r;
  t.dims = dims;
  if (ext >= 0) {
    t.flags = in ? PTE_XNN_VALUE_EXTERNAL_INPUT : PTE_XNN_VALUE_EXTERNAL_OUTPUT;
    t.external_id = (uint32_t)ext;
  }
  pte_status s = pte_xnn_builder_add_tensor(b, &t, id);
  return s == PTE_OK ? PTE_OK : xerr(S, s, "a value");
}

static pte_status xnode(synth *S, pte_xnn_builder *b, const pte_xnn_node_desc *n) {
  pte_status s = pte_xnn_builder_add_node(b, n);
  return s == PTE_OK ? PTE_OK : xerr(S, s, "a node");
}

/* y = relu?(x W^T + b) as one FullyConnected node (weight [out, in] as PyTorch stores it; the
 * generator's layout is the portable model's [in, out]); ReLU is the fused output clamp. */
static pte_status xlinear(synth *S, pte_xnn_builder *b, uint32_t x, uint32_t batch, uint32_t in, uint32_t out,
                          bool relu, int ext_out, uint32_t *y) {
  static const uint32_t tr[2] = {1, 0};
  uint32_t gw[2] = {in, out}, gb[1] = {out}, od[2] = {batch, out};
  uint32_t W, B;
  pte_status s = xconst(S, b, 2, gw, tr, in, &W);
  if (s == PTE_OK) s = xconst(S, b, 1, gb, NULL, in, &B);
  if (s == PTE_OK) s = xval(S, b, 2, od, ext_out, false, y);
  if (s != PTE_OK) return s;
  pte_xnn_node_desc n;
  memset(&n, 0, sizeof n);
  n.type = PTE_XNN_NODE_FULLY_CONNECTED;
  n.inputs[0] = x;
  n.inputs[1] = W;
  n.inputs[2] = B;
  n.output = *y;
  if (relu) {
    n.has_min_max = true;
    n.out_min = 0.0f;
    n.out_max = INFINITY;
  }
  return xnode(S, b, &n);
}

/* The MLP of build_mlp as one graph: input external id 0 [batch, widths[0]], output id 1. */
pte_status synth_xnn_mlp_graph(synth *S, pte_xnn_builder *b, const int32_t *widths, size_t n, int32_t batch) {
  uint32_t id[2] = {(uint32_t)batch, (uint32_t)widths[0]}, x;
  pte_status s = xval(S, b, 2, id, 0, true, &x);
  for (size_t i = 0; i + 1 < n && s == PTE_OK; i++)
    s = xlinear(S, b, x, (uint32_t)batch, (uint32_t)widths[i], (uint32_t)widths[i + 1], i + 2 < n, i + 2 < n ? -1 : 1,
                &x);
  return s;
}

/* The CNN of build_cnn as one graph (NCHW in and out of the delegate, NHWC inside, as the
 * exporter lowers it): transpose, per stage Conv2d 3x3 pad 1 (+ fused ReLU) and 2x2 max pooling,
 * transpose back, reshape to [batch, flat], FullyConnected. Conv weights are stored OHWI
 * (the generator's layout is OIHW). */
pte_status synth_xnn_cnn_graph(synth *S, pte_xnn_builder *b, const int32_t *ch, size_t n, int32_t image,
                               int32_t classes, int32_t batch) {
  static const uint32_t to_nhwc[4] = {0, 2, 3, 1}, to_nchw[4] = {0, 3, 1, 2}, ohwi[4] = {0, 2, 3, 1};
  const uint32_t N = (uint32_t)batch;
  uint32_t hw = (uint32_t)image;
  uint32_t d_in[4] = {N, (uint32_t)ch[0], hw, hw}, d_t[4] = {N, hw, hw, (uint32_t)ch[0]};
  uint32_t x, t = -1;
  pte_status s = xval(S, b, 4, d_in, 0, true, &x);
  if (s == PTE_OK) s = xval(S, b, 4, d_t, -1, false, &t);
  pte_xnn_node_desc nd;
  memset(&nd, 0, sizeof nd);
  nd.type = PTE_XNN_NODE_STATIC_TRANSPOSE;
  nd.inputs[0] = x;
  nd.output = t;
  nd.num_dims = 4;
  nd.a = to_nhwc;
  if (s == PTE_OK) s = xnode(S, b, &nd);
  x = t;
  for (size_t i = 0; i + 1 < n && s == PTE_OK; i++) {
    uint32_t cin = (uint32_t)ch[i], cout = (uint32_t)ch[i + 1];
    uint32_t gw[4] = {cout, cin, 3, 3}, gb[1] = {cout}, d_c[4] = {N, hw, hw, cout};
    uint32_t W, B, c, p = -1;
    s = xconst(S, b, 4, gw, ohwi, cin * 9, &W);
    if (s == PTE_OK) s = xconst(S, b, 1, gb, NULL, cin * 9, &B);
    if (s == PTE_OK) s = xval(S, b, 4, d_c, -1, false, &c);
    if (s != PTE_OK) break;
    memset(&nd, 0, sizeof nd);
    nd.type = PTE_XNN_NODE_CONV2D;
    nd.inputs[0] = x;
    nd.inputs[1] = W;
    nd.inputs[2] = B;
    nd.output = c;
    nd.padding[0] = nd.padding[1] = nd.padding[2] = nd.padding[3] = 1;
    nd.kernel[0] = nd.kernel[1] = 3;
    nd.stride[0] = nd.stride[1] = 1;
    nd.dilation[0] = nd.dilation[1] = 1;
    nd.groups = 1;
    nd.group_input_channels = cin;
    nd.group_output_channels = cout;
    nd.has_min_max = true;
    nd.out_min = 0.0f;
    nd.out_max = INFINITY;
    s = xnode(S, b, &nd);
    hw /= 2;
    uint32_t d_p[4] = {N, hw, hw, cout};
    if (s == PTE_OK) s = xval(S, b, 4, d_p, -1, false, &p);
    memset(&nd, 0, sizeof nd);
    nd.type = PTE_XNN_NODE_MAX_POOLING_2D;
    nd.inputs[0] = c;
    nd.output = p;
    nd.kernel[0] = nd.kernel[1] = 2;
    nd.stride[0] = nd.stride[1] = 2;
    nd.dilation[0] = nd.dilation[1] = 1;
    if (s == PTE_OK) s = xnode(S, b, &nd);
    x = p;
  }
  const uint32_t cl = (uint32_t)ch[n - 1], flat = cl * hw * hw;
  uint32_t d_back[4] = {N, cl, hw, hw}, d_flat[2] = {N, flat}, back = -1, v = -1, y;
  if (s == PTE_OK) s = xval(S, b, 4, d_back, -1, false, &back);
  memset(&nd, 0, sizeof nd);
  nd.type = PTE_XNN_NODE_STATIC_TRANSPOSE;
  nd.inputs[0] = x;
  nd.output = back;
  nd.num_dims = 4;
  nd.a = to_nchw;
  if (s == PTE_OK) s = xnode(S, b, &nd);
  if (s == PTE_OK) s = xval(S, b, 2, d_flat, -1, false, &v);
  memset(&nd, 0, sizeof nd);
  nd.type = PTE_XNN_NODE_STATIC_RESHAPE;
  nd.inputs[0] = back;
  nd.output = v;
  nd.num_dims = 2;
  nd.a = d_flat;
  if (s == PTE_OK) s = xnode(S, b, &nd);
  if (s == PTE_OK) s = xlinear(S, b, v, N, flat, (uint32_t)classes, false, 1, &y);
  return s;
}

/* Finishes the graph into S->blob and adds it as a lowered module of the program. */
static pte_status xnn_module(synth *S, pte_xnn_builder *b, bool share, uint32_t *module) {
  pte_status s = pte_xnn_builder_finish(b, PTE_XNN_CONSTANTS_NAMED, &S->blob, &S->err);
  if (s != PTE_OK) return s;
  uint32_t blob;
  pte_source src = pte_source_memory(S->blob.data, S->blob.size);
  s = pte_writer_add_blob(S->w, &src, &blob, &S->err);
  if (s != PTE_OK) return s;
  pte_wr_delegate d;
  memset(&d, 0, sizeof d);
  d.id = PTE_XNNPACK_BACKEND_ID;
  d.blob = blob;
  d.share_handle = share;
  return pte_writer_add_lowered_module(S->w, &d, module, &S->err);
}

/* A model lowered whole into one delegate: method = one DelegateCall(input, output), both
 * memory planned as the exporter plans them. */
pte_status synth_build_delegated(synth *S, pte_xnn_builder *b, const int32_t *in_sz, size_t in_dim,
                                 const int32_t *out_sz, size_t out_dim) {
  uint32_t module;
  int32_t x = -1, y = -1;
  pte_status s = xnn_module(S, b, false, &module);
  if (s == PTE_OK) s = synth_act(S, in_sz, in_dim, &x);
  if (s == PTE_OK) s = synth_act(S, out_sz, out_dim, &y);
  int32_t args[2] = {x, y};
  if (s == PTE_OK) s = pte_writer_call_module(S->w, S->m, S->chain, module, args, 2, NULL, &S->err);
  if (s == PTE_OK) s = pte_writer_set_inputs(S->w, S->m, &x, 1, &S->err);
  if (s == PTE_OK) s = pte_writer_set_outputs(S->w, S->m, &y, 1, &S->err);
  S->n_calls = 1;
  return s;
}

/* denoise: x_{t+1} = x_t - block(x_t) for `steps` steps, block = Linear(w, w) + ReLU + Linear(w, w)
 * lowered into ONE XNNPACK module called at every step (share: one BackendDelegate for all the
 * calls; otherwise one per call, all referencing the one stored blob); the subtraction is the
 * portable aten::sub.out. */
pte_status synth_build_denoise(synth *S, pte_xnn_builder *b, int32_t width, int32_t batch, uint32_t steps,
                               bool share) {
  const int32_t widths[3] = {width, width, width};
  uint32_t module, op_sub;
  pte_status s = synth_xnn_mlp_graph(S, b, widths, 3, batch);
  if (s == PTE_OK) s = xnn_module(S, b, share, &module);
  if (s == PTE_OK) s = pte_writer_add_operator(S->w, S->m, "aten::sub", "out", &op_sub, &S->err);
  int32_t sz[2] = {batch, width}, x = -1, in, one;
  if (s == PTE_OK) s = synth_int_value(S, 1, &one);
  if (s == PTE_OK) s = synth_act(S, sz, 2, &x);
  in = x;
  for (uint32_t t = 0; t < steps && s == PTE_OK; t++) {
    int32_t eps, nx = -1;
    s = synth_act(S, sz, 2, &eps);
    if (s == PTE_OK) s = synth_act(S, sz, 2, &nx);
    int32_t dargs[2] = {x, eps};
    if (s == PTE_OK) s = pte_writer_call_module(S->w, S->m, S->chain, module, dargs, 2, NULL, &S->err);
    int32_t sargs[5] = {x, eps, one, nx, nx};
    if (s == PTE_OK) s = pte_writer_add_kernel_call(S->w, S->m, S->chain, op_sub, sargs, 5, NULL, &S->err);
    x = nx;
  }
  if (s == PTE_OK) s = pte_writer_set_inputs(S->w, S->m, &in, 1, &S->err);
  if (s == PTE_OK) s = pte_writer_set_outputs(S->w, S->m, &x, 1, &S->err);
  S->n_calls = steps;
  S->n_delegates = share ? 1 : steps;
  return s;
}
