/* Weights of `pte synth llama` (synth_llama.h): 8da4w quantization of generated rows (the
 * generator: synth_gen.h), and the XNNPACK delegates holding the linears. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pte/data_writer.h"
#include "hash_key.h"
#include "synth_llama.h"

/* The generator: synth_gen.h. A source of zeros (the caches' initial values). */
pte_status sl_zero_read(void *ctx, uint64_t offset, void *dst, size_t size, pte_error_info *err) {
  (void)ctx, (void)offset, (void)err;
  memset(dst, 0, size);
  return PTE_OK;
}

/* ------------------------------------------------------------------ 8da4w weights */

/* Quantizes row `o` with the writer's 8da4w recipe (pte_xnn_quantize_qb4w): nibbles into q
 * (k / 2 bytes), bf16 scales into sc (k / G entries) when not NULL. */
static void sl_q4_row(sl_q4 *Q, uint32_t o, uint8_t *q, uint16_t *sc) {
  const uint32_t K = Q->k, G = (uint32_t)Q->S->c.group;
  pte_cli_gen_block(&Q->g, o * K, Q->S->row, K);
  (void)pte_xnn_quantize_qb4w(Q->S->row, 1, K, G, q, sc ? sc : Q->S->qscales); /* finite, G | K: cannot fail */
}

static pte_status sl_q4_read(void *ctx, uint64_t offset, void *dst, size_t size, pte_error_info *err) {
  sl_q4 *Q = (sl_q4 *)ctx;
  (void)err;
  const uint64_t rb = Q->k / 2;
  uint8_t *out = (uint8_t *)dst;
  while (size) {
    uint32_t o = (uint32_t)(offset / rb);
    uint64_t in_row = offset % rb;
    sl_q4_row(Q, o, Q->S->qrow, NULL);
    size_t k = (size_t)(rb - in_row < size ? rb - in_row : size);
    memcpy(out, Q->S->qrow + in_row, k);
    out += k, offset += k, size -= k;
  }
  return PTE_OK;
}

static pte_status sl_named_once(sl *S, const char *key, const void *data, uint64_t nbytes) {
  for (size_t i = 0; i < S->n_keys; i++)
    if (!strcmp(S->keys[i], key)) return PTE_OK;
  if (S->n_keys == S->cap_keys) return pte_error_set(&S->err, PTE_ERR_INTERNAL, "llama: too many named constants");
  uint32_t blob;
  pte_source src = pte_source_memory(data, nbytes);
  pte_status s = pte_writer_add_blob(S->w, &src, &blob, &S->err);
  if (s == PTE_OK) s = pte_writer_add_named_data(S->w, key, blob, 16, &S->err);
  if (s != PTE_OK) return s;
  memcpy(S->keys[S->n_keys++], key, 65);
  S->named_bytes += nbytes;
  S->n_named++;
  return PTE_OK;
}

/* ------------------------------------------------------------------ XNNPACK linears */
static pte_status sl_xerr(sl *S, pte_status s, const char *what) {
  return pte_error_set(&S->err, s, "llama: xnnpack graph: cannot add %s (%s)", what, pte_status_name(s));
}

/* A generated weight [out, in] stored as named data under the sha256 of its bytes: fp32, or for
 * 8da4w the qbint4 nibbles (the bf16 scales go into the blob builder, which returns them as named
 * data of their own). */
static pte_status sl_xweight(sl *S, pte_xnn_builder *b, uint32_t tid, uint32_t out, uint32_t in, uint32_t *id) {
  pte_cli_gen *g = sl_new_gen(S, tid, 1.0f / sqrtf((float)in), 0.0f);
  if (!g) return pte_error_set(&S->err, PTE_ERR_INTERNAL, "llama: too many generated tensors");
  const bool q4 = S->c.quant == 1;
  const uint64_t nbytes = q4 ? (uint64_t)out * in / 2 : (uint64_t)out * in * 4;
  S->weight_params += (uint64_t)out * in;
  sl_q4 *Q = NULL;
  uint16_t *scales = NULL;
  size_t n_scales = 0;
  pte_source_read_fn rd = pte_cli_gen_read;
  void *ctx = g;
  if (q4) {
    if (in % (uint32_t)S->c.group)
      return pte_error_set(&S->err, PTE_ERR_INVALID_ARGUMENT, "llama: 8da4w group size %d does not divide %u inputs",
                           (int)S->c.group, in);
    Q = &S->q4s[S->n_q4s++];
    Q->S = S, Q->g = *g, Q->n = out, Q->k = in;
    rd = sl_q4_read, ctx = Q;
    n_scales = (size_t)out * (in / (uint32_t)S->c.group);
    scales = (uint16_t *)malloc(n_scales * sizeof *scales);
    if (!scales) return pte_error_set(&S->err, PTE_ERR_MEMORY_ALLOCATION_FAILED, "llama: out of memory");
  }
  pte_sha256_ctx h;
  pte_sha256_init(&h);
  if (q4) { /* row by row: nibbles hashed, scales collected */
    for (uint32_t o = 0; o < out; o++) {
      sl_q4_row(Q, o, S->qrow, scales + (size_t)o * (in / (uint32_t)S->c.group));
      pte_sha256_update(&h, S->qrow, in / 2);
    }
    S->hashed += (uint64_t)out * in * 4;
    if (S->progress && S->to_hash) pte_cli_progress_update(S->progress, S->hashed, S->to_hash);
  }
  if (!q4) {
    pte_status hs = pte_cli_hash_stream(&h, pte_cli_gen_read, g, nbytes, S->hash_buf, SL_HASH_BUF, S->progress, &S->hashed,
                                        S->to_hash, &S->err);
    if (hs != PTE_OK) return hs;
  }
  char key[65];
  pte_cli_hash_hex(&h, key);
  uint32_t blob;
  pte_source src = pte_source_callback(rd, ctx, nbytes);
  pte_status s = pte_writer_add_blob(S->w, &src, &blob, &S->err);
  if (s == PTE_OK) s = pte_writer_add_named_data(S->w, key, blob, 16, &S->err);
  if (s != PTE_OK) {
    free(scales);
    return s;
  }
  S->named_bytes += nbytes;
  S->n_named++;
  uint32_t dims[2] = {out, in};
  pte_xnn_tensor_desc t;
  memset(&t, 0, sizeof t);
  t.dtype = q4 ? PTE_XNN_DT_QBINT4 : PTE_XNN_DT_FP32;
  t.rank = 2;
  t.dims = dims;
  t.nbytes = (size_t)nbytes;
  t.named_key = key;
  if (q4) {
    t.quant = PTE_XNN_QUANT_PER_CHANNEL_GROUP;
    t.block_size = (uint32_t)S->c.group;
    t.block_scales_bf16 = scales;
    t.n_block_scales = n_scales;
  }
  s = pte_xnn_builder_add_tensor(b, &t, id);
  free(scales);
  return s == PTE_OK ? PTE_OK : sl_xerr(S, s, "a weight");
}

/* One delegate: y_j = x W_j^T for the n weights (tensor ids tids[j], W_j [outs[j], in]); x is
 * [1, T, in] (rank 3) or [1, in] (rank 2). outputs[j] receives the program values. */
pte_status sl_xlinears(sl *S, int32_t x, uint32_t rank, uint32_t in, size_t n, const uint32_t *tids,
                       const uint32_t *outs, int32_t *outputs) {
  pte_xnn_builder *b = pte_xnn_builder_new();
  if (!b) return pte_error_set(&S->err, PTE_ERR_MEMORY_ALLOCATION_FAILED, "llama: out of memory");
  const uint32_t TB = S->c.dynamic ? (uint32_t)S->c.seq : 1;
  uint32_t xd[3] = {1, TB, in};
  if (rank == 2) xd[1] = in;
  pte_xnn_tensor_desc t;
  memset(&t, 0, sizeof t);
  t.dtype = PTE_XNN_DT_FP32;
  t.rank = rank;
  t.dims = xd;
  t.flags = PTE_XNN_VALUE_EXTERNAL_INPUT;
  t.external_id = 0;
  uint32_t xin;
  pte_status s = pte_xnn_builder_add_tensor(b, &t, &xin);
  if (s != PTE_OK) s = sl_xerr(S, s, "the input");
  if (s == PTE_OK && S->c.quant == 1) { /* per-token dynamic int8 activations */
    uint32_t xq;
    memset(&t, 0, sizeof t);
    t.dtype = PTE_XNN_DT_QDINT8;
    t.rank = rank;
    t.dims = xd;
    t.quant = PTE_XNN_QUANT_PER_TOKEN;
    t.num_nonbatch_dims = 1;
    s = pte_xnn_builder_add_tensor(b, &t, &xq);
    pte_xnn_node_desc nd;
    memset(&nd, 0, sizeof nd);
    nd.type = PTE_XNN_NODE_CONVERT;
    nd.inputs[0] = xin;
    nd.output = xq;
    if (s == PTE_OK) s = pte_xnn_builder_add_node(b, &nd);
    if (s != PTE_OK) s = sl_xerr(S, s, "the qdint8 Convert");
    xin = xq;
  }
  for (size_t j = 0; j < n && s == PTE_OK; j++) {
    uint32_t W, y;
    s = sl_xweight(S, b, tids[j], outs[j], in, &W);
    if (s != PTE_OK) break;
    uint32_t yd[3] = {1, TB, outs[j]};
    if (rank == 2) yd[1] = outs[j];
    memset(&t, 0, sizeof t);
    t.dtype = PTE_XNN_DT_FP32;
    t.rank = rank;
    t.dims = yd;
    t.flags = PTE_XNN_VALUE_EXTERNAL_OUTPUT;
    t.external_id = (uint32_t)j + 1;
    s = pte_xnn_builder_add_tensor(b, &t, &y);
    if (s != PTE_OK) {
      s = sl_xerr(S, s, "an output");
      break;
    }
    pte_xnn_node_desc nd;
    memset(&nd, 0, sizeof nd);
    nd.type = PTE_XNN_NODE_FULLY_CONNECTED;
    nd.inputs[0] = xin;
    nd.inputs[1] = W;
    nd.inputs[2] = PTE_XNN_NO_VALUE;
    nd.output = y;
    s = pte_xnn_builder_add_node(b, &nd);
    if (s != PTE_OK) s = sl_xerr(S, s, "a FullyConnected node");
  }
  if (s == PTE_OK && S->n_blobs == S->cap_blobs) s = pte_error_set(&S->err, PTE_ERR_INTERNAL, "llama: too many delegates");
  pte_xnn_blob *blob = s == PTE_OK ? &S->blobs[S->n_blobs++] : NULL;
  if (s == PTE_OK) s = pte_xnn_builder_finish(b, PTE_XNN_CONSTANTS_NAMED, blob, &S->err);
  pte_xnn_builder_free(b);
  for (size_t i = 0; s == PTE_OK && i < blob->n_named; i++) /* e.g. the 8da4w scales */
    s = sl_named_once(S, blob->named[i].key, blob->named[i].data, blob->named[i].size);
  if (s != PTE_OK) return s;
  uint32_t bi, module;
  pte_source src = pte_source_memory(blob->data, blob->size);
  s = pte_writer_add_blob(S->w, &src, &bi, &S->err);
  pte_wr_delegate d;
  memset(&d, 0, sizeof d);
  d.id = PTE_XNNPACK_BACKEND_ID;
  d.blob = bi;
  if (s == PTE_OK) s = pte_writer_add_lowered_module(S->w, &d, &module, &S->err);
  int32_t args[8];
  args[0] = x;
  for (size_t j = 0; j < n && s == PTE_OK; j++) {
    int32_t osz[3] = {1, (int32_t)TB, (int32_t)outs[j]};
    if (rank == 2) osz[1] = (int32_t)outs[j];
    s = sl_act(S, osz, rank, rank == 3, &outputs[j]);
    args[j + 1] = outputs[j];
  }
  if (s == PTE_OK) s = pte_writer_call_module(S->w, S->m, S->chain, module, args, n + 1, NULL, &S->err);
  return s;
}
