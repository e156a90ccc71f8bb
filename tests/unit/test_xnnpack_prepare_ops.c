#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE 1 /* MAP_ANONYMOUS */
/* XnnpackBackend prepare support, per weight kind and path (test_xnnpack_prepare_util.h): conv
 * weights, int8 and 4-bit weights, keys shared between delegates, the prepare hook's lazy
 * per-weight compile, file-backed ranges, a streamed large weight, and corpus programs prepared
 * and run with outputs bitwise identical before and after. The envelope, fingerprints and
 * repack: test_xnnpack_prepare.c. */
#include "test_xnnpack_prepare_util.h"

/* Convolutions: Conv2d, depthwise (multiplier 1: direct taps; multiplier 2: grouped GEMM) and a
 * grouped 1x1 conv, named and inline, prepared and repacked. */
static void conv_case(pte_xnn_constants_mode mode, const char *name) {
  const pte_xnn_conv2d_spec specs[4] = {
      {1, 3, 9, 11, 8, 3, 3, 1, 1, 1, 1, 1, 1, 1, true},  /* 3 -> 8, 3x3, pad 1 */
      {1, 8, 9, 11, 8, 3, 3, 1, 1, 1, 1, 1, 1, 8, false}, /* depthwise, multiplier 1 */
      {1, 8, 9, 11, 4, 1, 1, 1, 1, 0, 0, 1, 1, 2, false}, /* grouped 1x1: 2 groups 4 -> 2 */
      {1, 4, 9, 11, 8, 3, 3, 2, 2, 1, 1, 1, 1, 4, true},  /* depthwise, multiplier 2, stride 2 */
  };
  pte_xnn_blob blobs[4];
  float *w[4], *b[4];
  xp_layer L[4];
  pte_error_info err;
  bool ok = true;
  for (int i = 0; i < 4; i++) {
    const pte_xnn_conv2d_spec *c = &specs[i];
    const size_t wn = (size_t)c->c_out * (c->c_in / c->groups) * c->kh * c->kw;
    w[i] = xp_weights(wn, 500u + (uint32_t)i, 0.5f);
    b[i] = xp_weights(c->c_out, 600u + (uint32_t)i, 0.25f);
    if (pte_xnn_blob_build_conv2d(c, w[i], b[i], mode, &blobs[i], &err) != PTE_OK) {
      test_fail(__FILE__, __LINE__, "conv blob %d: %s", i, err.msg);
      ok = false;
    }
    const size_t oh = (c->h + 2 * c->pad_h - c->kh) / c->stride_h + 1, ow = (c->w + 2 * c->pad_w - c->kw) / c->stride_w + 1;
    L[i] = (xp_layer){&blobs[i], i, 4, {1, c->c_in, c->h, c->w}, 4, {1, c->c_out, oh, ow}};
  }
  const char *path = ok ? xp_write(L, 4, false, name) : NULL;
  char in_path[256], out_path[300];
  if (path) {
    snprintf(in_path, sizeof in_path, "%s", path);
    snprintf(out_path, sizeof out_path, "%s.prepared", path);
    xp_result before, after, rp;
    pte_prepare_report rep;
    if (xp_run(in_path, NULL, 0, 21, NULL, &before, &err) != PTE_OK) {
      test_fail(__FILE__, __LINE__, "portable run: %s", err.msg);
    } else if (xp_prepare(in_path, out_path, &rep, &err) != PTE_OK) {
      test_fail(__FILE__, __LINE__, "prepare: %s", err.msg);
    } else if (xp_run(out_path, NULL, 0, 21, NULL, &after, &err) != PTE_OK) {
      test_fail(__FILE__, __LINE__, "prepared run: %s", err.msg);
    } else {
      if (!xp_same(&before, &after)) test_fail(__FILE__, __LINE__, "%s: outputs differ after prepare", name);
      if (before.load_stats.packs != 4 || after.load_stats.packs != 0 || after.load_stats.prepared != 4)
        test_fail(__FILE__, __LINE__, "%s: packs %llu -> %llu, prepared %llu", name,
                  (unsigned long long)before.load_stats.packs, (unsigned long long)after.load_stats.packs,
                  (unsigned long long)after.load_stats.prepared);
      const unsigned want_named = mode == PTE_XNN_CONSTANTS_NAMED ? 4 : 0, want_blobs = 4; /* named: XPB1 containers listing
                                                                             the packed keys; inline: with the constants */
      if (rep.backends[0].named_replaced != want_named || rep.backends[0].blobs_replaced != want_blobs)
        test_fail(__FILE__, __LINE__, "%s: replaced %u named, %u blobs", name, rep.backends[0].named_replaced,
                  rep.backends[0].blobs_replaced);
      /* prepared on the scalar kernels, repacked for this machine */
      if (pte_xnnpack_detect_isa() != PTE_XNN_ISA_SCALAR) {
        set_default_isa(PTE_XNN_ISA_SCALAR);
        pte_status ps = xp_prepare(in_path, out_path, &rep, &err);
        set_default_isa(PTE_XNN_ISA_AUTO);
        pte_backend_option o = opt_bool(PTE_XNNPACK_OPTION_REPACK_PREPARED, true);
        pte_backend_load_options bo = {PTE_XNNPACK_BACKEND_ID, &o, 1};
        if (ps != PTE_OK || xp_run(out_path, &bo, 1, 21, NULL, &rp, &err) != PTE_OK) {
          test_fail(__FILE__, __LINE__, "%s repack: %s", name, err.msg);
        } else {
          if (!xp_same(&before, &rp)) test_fail(__FILE__, __LINE__, "%s: outputs differ after repack", name);
          /* depthwise taps do not depend on the ISA: used in place; the 3 GEMMs are re-laid out */
          if (rp.load_stats.packs != 0 || rp.load_stats.repacks != 3 || rp.load_stats.prepared != 1)
            test_fail(__FILE__, __LINE__, "%s: repack packs %llu, repacks %llu, prepared %llu", name,
                      (unsigned long long)rp.load_stats.packs, (unsigned long long)rp.load_stats.repacks,
                      (unsigned long long)rp.load_stats.prepared);
          xp_result_free(&rp);
        }
      }
      xp_result_free(&after);
    }
    xp_result_free(&before);
    unlink(in_path);
    unlink(out_path);
  }
  for (int i = 0; i < 4; i++) {
    free(w[i]);
    free(b[i]);
    pte_xnn_blob_free(&blobs[i]);
  }
}

TEST(conv_named) { conv_case(PTE_XNN_CONSTANTS_NAMED, "conv_named"); }
TEST(conv_inline) { conv_case(PTE_XNN_CONSTANTS_INLINE, "conv_inline"); }

/* qd8: fp32 input -> Convert (dynamic int8) -> FullyConnected with per-channel int8 weights. */
static pte_status qd8_blob(size_t m, size_t k, size_t n, const int8_t *w, const float *scales, const float *bias,
                           pte_xnn_blob *out, pte_error_info *err) {
  pte_xnn_builder *b = pte_xnn_builder_new();
  if (!b) return PTE_ERR_MEMORY_ALLOCATION_FAILED;
  uint32_t xd[2] = {(uint32_t)m, (uint32_t)k}, wd[2] = {(uint32_t)n, (uint32_t)k}, bd[1] = {(uint32_t)n},
           yd[2] = {(uint32_t)m, (uint32_t)n};
  uint32_t x, xq = 0, wv = 0, bv = 0, y = 0;
  pte_xnn_tensor_desc t;
  memset(&t, 0, sizeof t);
  t.dtype = PTE_XNN_DT_FP32, t.rank = 2, t.dims = xd, t.flags = PTE_XNN_VALUE_EXTERNAL_INPUT, t.external_id = 0;
  pte_status s = pte_xnn_builder_add_tensor(b, &t, &x);
  memset(&t, 0, sizeof t);
  t.dtype = PTE_XNN_DT_QDINT8, t.rank = 2, t.dims = xd, t.quant = PTE_XNN_QUANT_PER_TOKEN, t.num_nonbatch_dims = 1;
  if (s == PTE_OK) s = pte_xnn_builder_add_tensor(b, &t, &xq);
  memset(&t, 0, sizeof t);
  t.dtype = PTE_XNN_DT_QCINT8, t.rank = 2, t.dims = wd, t.data = w, t.nbytes = n * k;
  t.quant = PTE_XNN_QUANT_PER_CHANNEL, t.channel_scales = scales, t.n_channel_scales = (uint32_t)n, t.channel_dim = 0;
  if (s == PTE_OK) s = pte_xnn_builder_add_tensor(b, &t, &wv);
  memset(&t, 0, sizeof t);
  t.dtype = PTE_XNN_DT_FP32, t.rank = 1, t.dims = bd, t.data = bias, t.nbytes = n * 4;
  if (s == PTE_OK) s = pte_xnn_builder_add_tensor(b, &t, &bv);
  memset(&t, 0, sizeof t);
  t.dtype = PTE_XNN_DT_FP32, t.rank = 2, t.dims = yd, t.flags = PTE_XNN_VALUE_EXTERNAL_OUTPUT, t.external_id = 1;
  if (s == PTE_OK) s = pte_xnn_builder_add_tensor(b, &t, &y);
  pte_xnn_node_desc nd;
  memset(&nd, 0, sizeof nd);
  nd.type = PTE_XNN_NODE_CONVERT, nd.inputs[0] = x, nd.output = xq;
  if (s == PTE_OK) s = pte_xnn_builder_add_node(b, &nd);
  memset(&nd, 0, sizeof nd);
  nd.type = PTE_XNN_NODE_FULLY_CONNECTED, nd.inputs[0] = xq, nd.inputs[1] = wv, nd.inputs[2] = bv, nd.output = y;
  if (s == PTE_OK) s = pte_xnn_builder_add_node(b, &nd);
  if (s == PTE_OK) s = pte_xnn_builder_finish(b, PTE_XNN_CONSTANTS_NAMED, out, err);
  pte_xnn_builder_free(b);
  return s;
}

TEST(int8_weights) {
  const size_t m = 3, k = 37, n = 21;
  int8_t *w = (int8_t *)malloc(n * k);
  float scales[21], bias[21];
  xt_rng = 77;
  for (size_t i = 0; i < n * k; i++) w[i] = (int8_t)((int)(xt_rand() * 127.0f));
  for (size_t i = 0; i < n; i++) scales[i] = 0.01f + 0.001f * (float)i, bias[i] = xt_rand();
  pte_error_info err;
  pte_xnn_blob blob;
  CHECK_MSG(qd8_blob(m, k, n, w, scales, bias, &blob, &err) == PTE_OK, "%s", err.msg);
  xp_layer L[1] = {{&blob, 0, 2, {m, k}, 2, {m, n}}};
  const char *path = xp_write(L, 1, false, "qd8");
  CHECK(path);
  char in_path[256], out_path[300];
  snprintf(in_path, sizeof in_path, "%s", path);
  snprintf(out_path, sizeof out_path, "%s.prepared", path);
  xp_result before, after;
  pte_prepare_report rep;
  CHECK_OK(xp_run(in_path, NULL, 0, 31, NULL, &before, &err));
  CHECK_MSG(xp_prepare(in_path, out_path, &rep, &err) == PTE_OK, "%s", err.msg);
  CHECK_EQ_INT(rep.backends[0].named_replaced, 1); /* the int8 weights; bias stays */
  CHECK_OK(xp_run(out_path, NULL, 0, 31, NULL, &after, &err));
  CHECK(xp_same(&before, &after));
  CHECK_EQ_INT(after.load_stats.packs, 0);
  CHECK_EQ_INT(after.load_stats.prepared, 1);
  xp_result_free(&after);
  if (pte_xnnpack_detect_isa() != PTE_XNN_ISA_SCALAR) {
    set_default_isa(PTE_XNN_ISA_SCALAR);
    pte_status ps = xp_prepare(in_path, out_path, &rep, &err);
    set_default_isa(PTE_XNN_ISA_AUTO);
    CHECK_OK(ps);
    pte_backend_option o = opt_bool(PTE_XNNPACK_OPTION_REPACK_PREPARED, true);
    pte_backend_load_options bo = {PTE_XNNPACK_BACKEND_ID, &o, 1};
    CHECK_MSG(xp_run(out_path, &bo, 1, 31, NULL, &after, &err) == PTE_OK, "%s", err.msg);
    CHECK(xp_same(&before, &after));
    CHECK_EQ_INT(after.load_stats.repacks, 1);
    xp_result_free(&after);
  }
  xp_result_free(&before);
  unlink(in_path);
  unlink(out_path);
  pte_xnn_blob_free(&blob);
  free(w);
}

/* qd8 x qbint4 (blockwise 4-bit, bf16 block scales): the packed 4-bit panels are what prepare
 * stores; the layout does not depend on the ISA, so data prepared for another kernel table is
 * used as is once the repack option lets the envelope through. */
static pte_status q4_blob(size_t m, size_t k, size_t n, size_t block, const uint8_t *w, const uint16_t *bscales,
                          const float *bias, pte_xnn_blob *out, pte_error_info *err) {
  pte_xnn_builder *b = pte_xnn_builder_new();
  if (!b) return PTE_ERR_MEMORY_ALLOCATION_FAILED;
  uint32_t xd[2] = {(uint32_t)m, (uint32_t)k}, wd[2] = {(uint32_t)n, (uint32_t)k}, bd[1] = {(uint32_t)n},
           yd[2] = {(uint32_t)m, (uint32_t)n};
  uint32_t x, xq = 0, wv = 0, bv = 0, y = 0;
  pte_xnn_tensor_desc t;
  memset(&t, 0, sizeof t);
  t.dtype = PTE_XNN_DT_FP32, t.rank = 2, t.dims = xd, t.flags = PTE_XNN_VALUE_EXTERNAL_INPUT, t.external_id = 0;
  pte_status s = pte_xnn_builder_add_tensor(b, &t, &x);
  memset(&t, 0, sizeof t);
  t.dtype = PTE_XNN_DT_QDINT8, t.rank = 2, t.dims = xd, t.quant = PTE_XNN_QUANT_PER_TOKEN, t.num_nonbatch_dims = 1;
  if (s == PTE_OK) s = pte_xnn_builder_add_tensor(b, &t, &xq);
  memset(&t, 0, sizeof t);
  t.dtype = PTE_XNN_DT_QBINT4, t.rank = 2, t.dims = wd, t.data = w, t.nbytes = n * k / 2;
  t.quant = PTE_XNN_QUANT_PER_CHANNEL_GROUP, t.block_size = (uint32_t)block, t.block_scales_bf16 = bscales;
  t.n_block_scales = n * (k / block);
  if (s == PTE_OK) s = pte_xnn_builder_add_tensor(b, &t, &wv);
  memset(&t, 0, sizeof t);
  t.dtype = PTE_XNN_DT_FP32, t.rank = 1, t.dims = bd, t.data = bias, t.nbytes = n * 4;
  if (s == PTE_OK) s = pte_xnn_builder_add_tensor(b, &t, &bv);
  memset(&t, 0, sizeof t);
  t.dtype = PTE_XNN_DT_FP32, t.rank = 2, t.dims = yd, t.flags = PTE_XNN_VALUE_EXTERNAL_OUTPUT, t.external_id = 1;
  if (s == PTE_OK) s = pte_xnn_builder_add_tensor(b, &t, &y);
  pte_xnn_node_desc nd;
  memset(&nd, 0, sizeof nd);
  nd.type = PTE_XNN_NODE_CONVERT, nd.inputs[0] = x, nd.output = xq;
  if (s == PTE_OK) s = pte_xnn_builder_add_node(b, &nd);
  memset(&nd, 0, sizeof nd);
  nd.type = PTE_XNN_NODE_FULLY_CONNECTED, nd.inputs[0] = xq, nd.inputs[1] = wv, nd.inputs[2] = bv, nd.output = y;
  if (s == PTE_OK) s = pte_xnn_builder_add_node(b, &nd);
  if (s == PTE_OK) s = pte_xnn_builder_finish(b, PTE_XNN_CONSTANTS_NAMED, out, err);
  pte_xnn_builder_free(b);
  return s;
}

TEST(q4_weights) {
  const size_t m = 3, k = 128, n = 40, block = 32;
  uint8_t *w = (uint8_t *)malloc(n * k / 2);
  uint16_t bs[40 * 4];
  float bias[40];
  xt_rng = 91;
  for (size_t i = 0; i < n * k / 2; i++) w[i] = (uint8_t)(xt_rand() * 127.0f + 128.0f);
  for (size_t i = 0; i < n * (k / block); i++) bs[i] = (uint16_t)(0x3C00 + (i % 64));
  for (size_t i = 0; i < n; i++) bias[i] = xt_rand();
  pte_error_info err;
  pte_xnn_blob blob;
  CHECK_MSG(q4_blob(m, k, n, block, w, bs, bias, &blob, &err) == PTE_OK, "%s", err.msg);
  xp_layer L[1] = {{&blob, 0, 2, {m, k}, 2, {m, n}}};
  const char *path = xp_write(L, 1, false, "q4");
  CHECK(path);
  char in_path[256], out_path[300];
  snprintf(in_path, sizeof in_path, "%s", path);
  snprintf(out_path, sizeof out_path, "%s.prepared", path);
  xp_result before, after;
  pte_prepare_report rep;
  CHECK_OK(xp_run(in_path, NULL, 0, 31, NULL, &before, &err));
  CHECK_EQ_INT(before.load_stats.packs, 1);
  CHECK_MSG(xp_prepare(in_path, out_path, &rep, &err) == PTE_OK, "%s", err.msg);
  CHECK_EQ_INT(rep.backends[0].named_replaced, 1); /* the nibbles; bias and block scales stay */
  CHECK_OK(xp_run(out_path, NULL, 0, 31, NULL, &after, &err));
  CHECK(xp_same(&before, &after));
  CHECK_EQ_INT(after.load_stats.packs, 0);
  CHECK_EQ_INT(after.load_stats.prepared, 1);
  CHECK_EQ_INT(after.load_stats.prepared_copies, 0);
  xp_result_free(&after);
  if (pte_xnnpack_detect_isa() != PTE_XNN_ISA_SCALAR) {
    set_default_isa(PTE_XNN_ISA_SCALAR);
    pte_status ps = xp_prepare(in_path, out_path, &rep, &err);
    set_default_isa(PTE_XNN_ISA_AUTO);
    CHECK_OK(ps);
    CHECK_STATUS(xp_run(out_path, NULL, 0, 31, NULL, &after, &err), PTE_ERR_DELEGATE_INVALID_COMPATIBILITY);
    xp_result_free(&after);
    pte_backend_option o = opt_bool(PTE_XNNPACK_OPTION_REPACK_PREPARED, true);
    pte_backend_load_options bo = {PTE_XNNPACK_BACKEND_ID, &o, 1};
    CHECK_MSG(xp_run(out_path, &bo, 1, 31, NULL, &after, &err) == PTE_OK, "%s", err.msg);
    CHECK(xp_same(&before, &after)); /* this ISA's kernels on the same panels */
    CHECK_EQ_INT(after.load_stats.repacks, 0);
    CHECK_EQ_INT(after.load_stats.prepared, 1);
    xp_result_free(&after);
  }
  xp_result_free(&before);
  unlink(in_path);
  unlink(out_path);
  pte_xnn_blob_free(&blob);
  free(w);
}

/* Reads `path`, overwrites `len` bytes at the only occurrence of `pat` (plen bytes) plus `at`
 * with `rep`, writes `out`. Returns the number of occurrences found (the file is written only when
 * there is exactly one). */
static int q4_patch(const char *path, const void *pat, size_t plen, size_t at, const void *rep, size_t len,
                    const char *out) {
  size_t n = 0;
  uint8_t *b = (uint8_t *)test_read_file(path, &n);
  if (!b) return -1;
  int hits = 0;
  size_t pos = 0;
  for (size_t i = 0; i + plen <= n; i++)
    if (!memcmp(b + i, pat, plen)) hits++, pos = i;
  if (hits == 1 && pos + at + len <= n) {
    memcpy(b + pos + at, rep, len);
    if (test_write_file(out, b, n) != 0) hits = -1;
  }
  free(b);
  return hits;
}

/* With prepared 4-bit panels the block scales come from the panels (prepare checked them): the
 * serialized bf16 scales are neither copied nor re-checked at load, so corrupting them changes
 * nothing, while the same corruption in the unprepared file is refused. A prepared panel whose
 * header disagrees with the node (block size) is refused with the specific error. */
TEST(q4_prepared_skips_serialized_scales) {
  const size_t m = 2, k = 128, n = 24, block = 32;
  uint8_t *w = (uint8_t *)malloc(n * k / 2);
  uint16_t bs[24 * 4];
  float bias[24];
  xt_rng = 17;
  for (size_t i = 0; i < n * k / 2; i++) w[i] = (uint8_t)(xt_rand() * 127.0f + 128.0f);
  for (size_t i = 0; i < n * (k / block); i++) bs[i] = (uint16_t)(0x3E00 + 3 * i); /* distinct, positive, normal */
  for (size_t i = 0; i < n; i++) bias[i] = xt_rand();
  pte_error_info err;
  pte_xnn_blob blob;
  CHECK_MSG(q4_blob(m, k, n, block, w, bs, bias, &blob, &err) == PTE_OK, "%s", err.msg);
  xp_layer L[1] = {{&blob, 0, 2, {m, k}, 2, {m, n}}};
  const char *path = xp_write(L, 1, false, "q4s");
  CHECK(path);
  char in_path[256], out_path[300], bad_path[300];
  snprintf(in_path, sizeof in_path, "%s", path);
  snprintf(out_path, sizeof out_path, "%s.prepared", path);
  snprintf(bad_path, sizeof bad_path, "%s.bad", path);
  xp_result before, after;
  pte_prepare_report rep;
  CHECK_OK(xp_run(in_path, NULL, 0, 5, NULL, &before, &err));
  CHECK_MSG(xp_prepare(in_path, out_path, &rep, &err) == PTE_OK, "%s", err.msg);
  const uint16_t zero = 0;
  /* unprepared: block scale 0 set to 0 is refused */
  CHECK_EQ_INT(q4_patch(in_path, bs, sizeof bs, 0, &zero, 2, bad_path), 1);
  CHECK_STATUS(xp_run(bad_path, NULL, 0, 5, NULL, &after, &err), PTE_ERR_INVALID_PROGRAM);
  CHECK_CONTAINS(err.msg, "block scale 0 (bf16 bits 0x0) is not finite, normal and positive");
  xp_result_free(&after);
  /* prepared: the serialized scales (still in the file, unused) may be anything */
  CHECK_EQ_INT(q4_patch(out_path, bs, sizeof bs, 0, &zero, 2, bad_path), 1);
  CHECK_MSG(xp_run(bad_path, NULL, 0, 5, NULL, &after, &err) == PTE_OK, "%s", err.msg);
  CHECK(xp_same(&before, &after));
  CHECK_EQ_INT(after.load_stats.prepared, 1);
  CHECK_EQ_INT(after.load_stats.packs, 0);
  xp_result_free(&after);
  /* prepared panel header with another block size (kr, offset 20): refused */
  const uint8_t kr64[4] = {64, 0, 0, 0};
  CHECK_EQ_INT(q4_patch(out_path, "XPW1", 4, 20, kr64, 4, bad_path), 1);
  CHECK_STATUS(xp_run(bad_path, NULL, 0, 5, NULL, &after, &err), PTE_ERR_INVALID_PROGRAM);
  CHECK_CONTAINS(err.msg, "do not match this node");
  xp_result_free(&after);
  xp_result_free(&before);
  unlink(in_path);
  unlink(out_path);
  unlink(bad_path);
  pte_xnn_blob_free(&blob);
  free(w);
}

/* x[1, 40] + W[24, 40] (broadcast): W read as a tensor. */
static pte_status add_blob(const float *wdata, pte_xnn_blob *out, pte_error_info *err) {
  pte_xnn_builder *b = pte_xnn_builder_new();
  if (!b) return PTE_ERR_MEMORY_ALLOCATION_FAILED;
  uint32_t xd[2] = {1, 40}, wd[2] = {24, 40};
  uint32_t x, wv = 0, y = 0;
  pte_xnn_tensor_desc t;
  memset(&t, 0, sizeof t);
  t.dtype = PTE_XNN_DT_FP32, t.rank = 2, t.dims = xd, t.flags = PTE_XNN_VALUE_EXTERNAL_INPUT, t.external_id = 0;
  pte_status s = pte_xnn_builder_add_tensor(b, &t, &x);
  memset(&t, 0, sizeof t);
  t.dtype = PTE_XNN_DT_FP32, t.rank = 2, t.dims = wd, t.data = wdata, t.nbytes = 24 * 40 * 4;
  if (s == PTE_OK) s = pte_xnn_builder_add_tensor(b, &t, &wv);
  memset(&t, 0, sizeof t);
  t.dtype = PTE_XNN_DT_FP32, t.rank = 2, t.dims = wd, t.flags = PTE_XNN_VALUE_EXTERNAL_OUTPUT, t.external_id = 1;
  if (s == PTE_OK) s = pte_xnn_builder_add_tensor(b, &t, &y);
  pte_xnn_node_desc nd;
  memset(&nd, 0, sizeof nd);
  nd.type = PTE_XNN_NODE_ADD, nd.inputs[0] = x, nd.inputs[1] = wv, nd.output = y;
  nd.out_min = -INFINITY, nd.out_max = INFINITY;
  if (s == PTE_OK) s = pte_xnn_builder_add_node(b, &nd);
  if (s == PTE_OK) s = pte_xnn_builder_finish(b, PTE_XNN_CONSTANTS_NAMED, out, err);
  pte_xnn_builder_free(b);
  return s;
}

/* Shared keys: one packed value per key; a weight needed in two packed forms or read as a tensor
 * stays portable (and is packed at init as before). */
TEST(shared_keys) {
  pte_error_info err;
  float *w = xp_weights(24 * 40, 41, 0.5f), *b1 = xp_weights(24, 42, 0.25f), *b2 = xp_weights(24, 43, 0.25f);
  float *w2 = xp_weights(24 * 24, 44, 0.5f);
  pte_xnn_blob A, B, C, D, T;
  const size_t wid[2] = {40, 24};
  const float *wa[1] = {w}, *ba[1] = {b1};
  CHECK_OK(pte_xnn_blob_build_linear(1, 40, 24, w, b1, PTE_XNN_CONSTANTS_NAMED, &A, &err));
  /* B: same weights and bias, fused ReLU: another blob, the same packed bytes */
  CHECK_OK(pte_xnn_blob_build_mlp(1, 1, wid, wa, ba, true, true, PTE_XNN_CONSTANTS_NAMED, &B, &err));
  /* C: same weights, another bias: a second packed form */
  CHECK_OK(pte_xnn_blob_build_linear(1, 40, 24, w, b2, PTE_XNN_CONSTANTS_NAMED, &C, &err));
  /* D: the weights read as a tensor */
  CHECK_OK(add_blob(w, &D, &err));
  /* T: an unrelated layer after A */
  CHECK_OK(pte_xnn_blob_build_linear(1, 24, 24, w2, b1, PTE_XNN_CONSTANTS_NAMED, &T, &err));
  CHECK(A.size != B.size || memcmp(A.data, B.data, A.size) != 0);
  char wkey[65], w2key[65];
  pte_sha256_hex(w, 24 * 40 * 4, wkey);
  pte_sha256_hex(w2, 24 * 24 * 4, w2key);
  const xp_layer la = {&A, 0, 2, {1, 40}, 2, {1, 24}}, lt = {&T, 1, 2, {1, 24}, 2, {1, 24}};
  struct {
    const char *name;
    xp_layer third;
    bool w_packed;
    unsigned named_replaced, packs_after, prepared_after;
  } cases[3] = {
      {"share_same", {&B, 0, 2, {1, 40}, 2, {1, 24}}, true, 2, 0, 3},
      {"share_two_forms", {&C, 0, 2, {1, 40}, 2, {1, 24}}, false, 1, 2, 1},
      {"share_tensor_use", {&D, 0, 2, {1, 40}, 2, {24, 40}}, false, 1, 1, 1},
  };
  for (int c = 0; c < 3; c++) {
    xp_layer L[3] = {la, lt, cases[c].third};
    const char *path = xp_write(L, 3, false, cases[c].name);
    CHECK(path);
    char in_path[256], out_path[300];
    snprintf(in_path, sizeof in_path, "%s", path);
    snprintf(out_path, sizeof out_path, "%s.prepared", path);
    xp_result before, after;
    pte_prepare_report rep;
    CHECK_MSG(xp_run(in_path, NULL, 0, 51, NULL, &before, &err) == PTE_OK, "%s: %s", cases[c].name, err.msg);
    CHECK_EQ_INT(before.count, 2);
    CHECK_MSG(xp_prepare(in_path, out_path, &rep, &err) == PTE_OK, "%s: %s", cases[c].name, err.msg);
    CHECK_MSG(rep.backends[0].named_replaced == cases[c].named_replaced, "%s: %u named values replaced",
              cases[c].name, rep.backends[0].named_replaced);
    CHECK_MSG(xp_run(out_path, NULL, 0, 51, NULL, &after, &err) == PTE_OK, "%s: %s", cases[c].name, err.msg);
    CHECK_MSG(xp_same(&before, &after), "%s: outputs differ", cases[c].name);
    CHECK_MSG(after.load_stats.packs == cases[c].packs_after && after.load_stats.prepared == cases[c].prepared_after,
              "%s: packs %llu prepared %llu", cases[c].name, (unsigned long long)after.load_stats.packs,
              (unsigned long long)after.load_stats.prepared);
    size_t vs = 0;
    uint8_t *v = named_value(out_path, wkey, &vs);
    CHECK(v);
    CHECK_EQ_INT(pte_prepared_is_envelope(v, vs), cases[c].w_packed);
    if (!cases[c].w_packed) CHECK(vs == sizeof(float) * 24 * 40 && memcmp(v, w, vs) == 0);
    free(v);
    v = named_value(out_path, w2key, &vs);
    CHECK(v && pte_prepared_is_envelope(v, vs));
    free(v);
    xp_result_free(&before);
    xp_result_free(&after);
    unlink(in_path);
    unlink(out_path);
  }
  free(w);
  free(b1);
  free(b2);
  free(w2);
  pte_xnn_blob_free(&A);
  pte_xnn_blob_free(&B);
  pte_xnn_blob_free(&C);
  pte_xnn_blob_free(&D);
  pte_xnn_blob_free(&T);
}

/* ---- one weight at a time (the prepare hook's lazy compile) --------------------------------- */

static const pte_xnn_kernels *hook_kernels(void) { /* what the prepare hook packs for */
  pte_xnnpack_options o;
  pte_xnnpack_get_default_options(&o);
  return pte_xnnpack_kernels_for_isa(o.isa);
}

static pte_status compile_blob(const pte_xnn_blob *b, bool lazy, size_t pack_node, uint8_t *buf, size_t buf_size,
                               pte_xnn_delegate **d, pte_error_info *err) {
  static pte_xnn_blob_data_map m;
  pte_xnn_blob_data_map_init(&m, b);
  pte_xnn_init_cfg cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.threads = 1;
  cfg.k = hook_kernels();
  cfg.lazy_pack = lazy;
  cfg.pack_node = pack_node;
  cfg.pack_buf = buf;
  cfg.pack_buf_size = buf_size;
  return pte_xnn_delegate_init_internal(b->data, b->size, &m.base, &cfg, d, err);
}

/* Packing node i alone (lazy compile, into new memory or a caller buffer) gives the bytes the
 * full compile gives; a lazy compile with no node selected packs nothing but knows the sizes. */
static void lazy_matches_full(const pte_xnn_blob *b, const char *what, unsigned *compared) {
  pte_error_info err;
  *compared = 0;
  pte_xnn_delegate *full = NULL, *none = NULL;
  CHECK_MSG(compile_blob(b, false, 0, NULL, 0, &full, &err) == PTE_OK, "%s: %s", what, err.msg);
  if (!full) return;
  pte_xnnpack_stats st0, st1;
  pte_xnnpack_stats_get(&st0);
  CHECK_MSG(compile_blob(b, true, 0, NULL, 0, &none, &err) == PTE_OK, "%s: %s", what, err.msg);
  pte_xnnpack_stats_get(&st1);
  CHECK_MSG(st1.packs == st0.packs, "%s: a lazy compile packed %llu weights", what,
            (unsigned long long)(st1.packs - st0.packs));
  for (size_t i = 0; none && i < full->n_nodes; i++) {
    const pte_xnn_packed *want = &full->nodes[i].packed;
    CHECK_EQ_INT(none->nodes[i].packed.size, want->size);
    CHECK(none->nodes[i].packed.bytes == NULL);
    if (!want->bytes) continue;
    for (int mode = 0; mode < 3; mode++) { /* new memory, a big enough buffer, a too small one */
      const size_t cap = mode == 0 ? 0 : mode == 1 ? want->size + 64 : want->size - 1;
      uint8_t *buf = cap ? (uint8_t *)pte_xnn_aligned_alloc(cap) : NULL;
      if (buf) memset(buf, 0xA5, cap);
      pte_xnn_delegate *one = NULL;
      CHECK_MSG(compile_blob(b, true, i + 1, buf, cap, &one, &err) == PTE_OK, "%s: %s", what, err.msg);
      for (size_t j = 0; one && j < one->n_nodes; j++)
        if (j != i) CHECK_MSG(one->nodes[j].packed.bytes == NULL, "%s: node %zu packed too", what, j);
      if (one) {
        const pte_xnn_packed *got = &one->nodes[i].packed;
        CHECK_MSG(got->size == want->size && got->bytes && memcmp(got->bytes, want->bytes, want->size) == 0,
                  "%s: node %zu packed alone differs", what, i);
        if (!one->nodes[i].as_dwconv) CHECK_EQ_INT(got->bytes == buf, mode == 1); /* GEMMs use the buffer */
      }
      pte_xnn_delegate_destroy(one);
      pte_xnn_aligned_free(buf);
      (*compared)++;
    }
  }
  pte_xnn_delegate_destroy(none);
  pte_xnn_delegate_destroy(full);
}

TEST(lazy_pack_matches_full) {
  mlp_fixture f;
  if (!mlp_make(&f, PTE_XNN_CONSTANTS_NAMED, false, "lazy_mlp")) return;
  unsigned cmp = 0;
  lazy_matches_full(&f.mlp, "mlp", &cmp);
  CHECK_EQ_INT(cmp, 3 * 3); /* 3 layers, 3 ways each */
  lazy_matches_full(&f.lin, "linear", &cmp);
  CHECK_EQ_INT(cmp, 3);
  mlp_free(&f);
  const pte_xnn_conv2d_spec specs[3] = {
      {1, 3, 9, 11, 8, 3, 3, 1, 1, 1, 1, 1, 1, 1, true},  /* conv */
      {1, 8, 9, 11, 8, 3, 3, 1, 1, 1, 1, 1, 1, 8, false}, /* depthwise, multiplier 1 */
      {1, 4, 9, 11, 8, 3, 3, 2, 2, 1, 1, 1, 1, 4, true},  /* depthwise, multiplier 2: grouped GEMMs */
  };
  for (int i = 0; i < 3; i++) {
    const pte_xnn_conv2d_spec *c = &specs[i];
    float *w = xp_weights((size_t)c->c_out * (c->c_in / c->groups) * c->kh * c->kw, 700u + (uint32_t)i, 0.5f);
    float *b = xp_weights(c->c_out, 710u + (uint32_t)i, 0.25f);
    pte_xnn_blob blob;
    pte_error_info err;
    CHECK_OK(pte_xnn_blob_build_conv2d(c, w, b, PTE_XNN_CONSTANTS_NAMED, &blob, &err));
    lazy_matches_full(&blob, "conv", &cmp);
    CHECK_EQ_INT(cmp, 3);
    pte_xnn_blob_free(&blob);
    free(w);
    free(b);
  }
}

/* Shared or read-only file mappings may have their pages dropped; heap, anonymous and writable
 * private memory may not. Dropping pages never changes what the mapping reads. */
TEST(file_backed_ranges) {
  char path[] = "/tmp/pte_xnn_fb_XXXXXX";
  int fd = mkstemp(path);
  CHECK(fd >= 0);
  if (fd < 0) return;
  const size_t n = (size_t)4 << 20;
  uint8_t *data = (uint8_t *)malloc(n);
  for (size_t i = 0; i < n; i++) data[i] = (uint8_t)(i * 131u + (i >> 12));
  CHECK(write(fd, data, n) == (ssize_t)n);
  uint8_t *sh = (uint8_t *)mmap(NULL, n, PROT_READ, MAP_SHARED, fd, 0);
  uint8_t *pr = (uint8_t *)mmap(NULL, n, PROT_READ, MAP_PRIVATE, fd, 0);
  uint8_t *pw = (uint8_t *)mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
  uint8_t *an = (uint8_t *)mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  CHECK(sh != MAP_FAILED && pr != MAP_FAILED && pw != MAP_FAILED && an != MAP_FAILED);
  if (sh != MAP_FAILED && pr != MAP_FAILED && pw != MAP_FAILED && an != MAP_FAILED) {
    CHECK(pte_xnn_file_backed(sh + 100, n - 200));
    CHECK(pte_xnn_file_backed(pr, n));
    CHECK(!pte_xnn_file_backed(pw, n));
    CHECK(!pte_xnn_file_backed(an, n));
    CHECK(!pte_xnn_file_backed(data, n));
    CHECK(!pte_xnn_file_backed(sh, n + 4096)); /* past the mapping */
    CHECK(!pte_xnn_file_backed(NULL, 16));
    CHECK(memcmp(sh, data, n) == 0 && memcmp(pr, data, n) == 0);
    pte_xnn_release_pages(sh + 100, n - 200);
    pte_xnn_release_pages(pr, n);
    CHECK(memcmp(sh, data, n) == 0);
    CHECK(memcmp(pr, data, n) == 0);
  }
  if (sh != MAP_FAILED) munmap(sh, n);
  if (pr != MAP_FAILED) munmap(pr, n);
  if (pw != MAP_FAILED) munmap(pw, n);
  if (an != MAP_FAILED) munmap(an, n);
  free(data);
  close(fd);
  unlink(path);
}

/* A weight large enough to be packed in several slices (its rows dropped as they are packed):
 * the prepared value is the envelope around exactly the bytes a full compile packs, and the
 * prepared model gives the same outputs with no packing at load. The model is run only after
 * prepare: a packing freed just before could leave the right bytes in reused heap memory. */
static void streamed_case(const pte_xnn_blob *blob, size_t m, size_t k, size_t n, const void *w, size_t wbytes,
                          const char *name) {
  pte_error_info err;
  xp_layer L[1] = {{blob, 0, 2, {m, k}, 2, {m, n}}};
  const char *p = xp_write(L, 1, false, name);
  CHECK(p);
  if (!p) return;
  char in[256], out[300];
  snprintf(in, sizeof in, "%s", p);
  snprintf(out, sizeof out, "%s.prepared", p);
  pte_xnn_delegate *full = NULL;
  CHECK_OK(compile_blob(blob, false, 0, NULL, 0, &full, &err));
  const pte_xnn_packed *want = NULL;
  for (size_t i = 0; full && i < full->n_nodes; i++)
    if (full->nodes[i].packed.bytes) want = &full->nodes[i].packed;
  CHECK_MSG(want && want->size > ((size_t)8 << 20), "%s: packed %zu bytes", name, want ? want->size : 0);
  xp_result before, after;
  pte_prepare_report rep;
  CHECK_MSG(xp_prepare(in, out, &rep, &err) == PTE_OK, "prepare: %s", err.msg);
  CHECK_EQ_INT(rep.backends[0].named_replaced, 1);
  char wkey[65];
  pte_sha256_hex(w, wbytes, wkey);
  size_t vs = 0;
  uint8_t *v = named_value(out, wkey, &vs);
  CHECK(v);
  if (v && want) {
    pte_prepared_info pi;
    pte_error_info e2;
    char fp[33];
    const size_t fpn = pte_xnn_fingerprint(hook_kernels(), fp);
    CHECK_OK(pte_prepared_envelope_check(v, vs, PTE_XNNPACK_BACKEND_ID, PTE_XNN_PREPARED_FORMAT, fp, fpn, &pi, &e2));
    CHECK_MSG(pi.payload_size == want->size && memcmp(pi.payload, want->bytes, want->size) == 0,
              "%s: prepared bytes differ from the full compile's", name);
  }
  free(v);
  CHECK_OK(xp_run(in, NULL, 0, 77, NULL, &before, &err));
  CHECK_OK(xp_run(out, NULL, 0, 77, NULL, &after, &err));
  CHECK(xp_same(&before, &after));
  CHECK_EQ_INT(after.load_stats.packs, 0);
  CHECK_EQ_INT(after.load_stats.prepared, 1);
  xp_result_free(&before);
  xp_result_free(&after);
  pte_xnn_delegate_destroy(full);
  unlink(in);
  unlink(out);
}

TEST(streamed_prepare_large_weight) {
  const size_t k = 1100, n = 2048; /* 8.6 MiB of fp32 weights */
  float *w = xp_weights(n * k, 901, 0.05f), *b = xp_weights(n, 902, 0.25f);
  pte_xnn_blob blob;
  pte_error_info err;
  CHECK_OK(pte_xnn_blob_build_linear(2, k, n, w, b, PTE_XNN_CONSTANTS_NAMED, &blob, &err));
  streamed_case(&blob, 2, k, n, w, n * k * 4, "streamed_f32");
  pte_xnn_blob_free(&blob);
  free(w);
  free(b);
  /* int8 (qdint8 input, qcint8 weights): 2048 x 4400, 8.6 MiB */
  const size_t k8 = 4400;
  int8_t *w8 = (int8_t *)malloc(n * k8);
  float *sc = xp_weights(n, 903, 0.01f), *b8 = xp_weights(n, 904, 0.25f);
  for (size_t i = 0; i < n * k8; i++) w8[i] = (int8_t)((i * 2654435761u) >> 24);
  for (size_t i = 0; i < n; i++) sc[i] = 0.001f + (sc[i] < 0 ? -sc[i] : sc[i]);
  CHECK_OK(qd8_blob(2, k8, n, w8, sc, b8, &blob, &err));
  streamed_case(&blob, 2, k8, n, w8, n * k8, "streamed_qd8");
  pte_xnn_blob_free(&blob);
  free(w8);
  free(sc);
  free(b8);
}

/* Upstream exports: prepare, then the same outputs bit for bit and no packing at load. */
static void corpus_case(const char *name, const int32_t *shape0, unsigned want_prepared) {
  const char *in = test_corpus_path(name);
  CHECK(in);
  char in_path[512], out_path[300];
  snprintf(in_path, sizeof in_path, "%s", in);
  snprintf(out_path, sizeof out_path, "%s", test_tmp_path("xprep_corpus.pte"));
  pte_error_info err;
  xp_result before, after;
  pte_prepare_report rep;
  CHECK_MSG(xp_run(in_path, NULL, 0, 61, shape0, &before, &err) == PTE_OK, "%s: %s", name, err.msg);
  CHECK_MSG(xp_prepare(in_path, out_path, &rep, &err) == PTE_OK, "%s: prepare: %s", name, err.msg);
  CHECK_MSG(xp_run(out_path, NULL, 0, 61, shape0, &after, &err) == PTE_OK, "%s: %s", name, err.msg);
  CHECK_MSG(xp_same(&before, &after), "%s: outputs differ after prepare", name);
  CHECK_MSG(before.load_stats.packs == want_prepared && after.load_stats.packs == 0 &&
                after.load_stats.prepared == want_prepared,
            "%s: packs %llu -> %llu, prepared %llu (want %u)", name, (unsigned long long)before.load_stats.packs,
            (unsigned long long)after.load_stats.packs, (unsigned long long)after.load_stats.prepared, want_prepared);
  CHECK_EQ_INT(rep.changed, want_prepared > 0);
  if (want_prepared) {
    CHECK_EQ_INT(rep.backends[0].named_replaced, want_prepared);
    CHECK_EQ_INT(rep.backends[0].blobs_sealed + rep.backends[0].blobs_replaced, rep.backends[0].n_blobs);
    size_t sealed = 0;
    check_sealed(in_path, out_path, &sealed);
    CHECK(sealed > 0);
    CHECK_MSG(rep.size_after <= rep.size_before + rep.backends[0].bytes_after - rep.backends[0].bytes_before +
                                    128 * (uint64_t)(want_prepared + rep.backends[0].n_blobs),
              "%s: %llu -> %llu bytes", name, (unsigned long long)rep.size_before, (unsigned long long)rep.size_after);
  }
  xp_result_free(&before);
  xp_result_free(&after);
  unlink(out_path);
}

TEST(corpus_djl_spike_lin129) { corpus_case("djl_spike_lin129.pte", NULL, 1); }
TEST(corpus_djl_spike_lin129_planned) { corpus_case("djl_spike_lin129_planned.pte", NULL, 1); }
TEST(corpus_djl_spike_conv) { corpus_case("djl_spike_conv.pte", NULL, 1); }
TEST(corpus_djl_stress_mlp) { corpus_case("djl_stress_mlp.pte", NULL, 10); }
TEST(corpus_simple_torch_model) {
  static const int32_t small[4] = {1, 1, 24, 31};
  corpus_case("simple-torch-model.pte", small, 3);
}
TEST(corpus_numpyrt_quantized) { corpus_case("numpyrt_quantized.pte", NULL, 1); }
TEST(corpus_numpyrt_add_unchanged) { corpus_case("numpyrt_add.pte", NULL, 0); }

int main(void) {
  RUN(conv_named);
  RUN(conv_inline);
  RUN(int8_weights);
  RUN(q4_weights);
  RUN(q4_prepared_skips_serialized_scales);
  RUN(shared_keys);
  RUN(lazy_pack_matches_full);
  RUN(file_backed_ranges);
  RUN(streamed_prepare_large_weight);
  RUN(corpus_djl_spike_lin129);
  RUN(corpus_djl_spike_lin129_planned);
  RUN(corpus_djl_spike_conv);
  RUN(corpus_djl_stress_mlp);
  RUN(corpus_simple_torch_model);
  RUN(corpus_numpyrt_quantized);
  RUN(corpus_numpyrt_add_unchanged);
  return test_summary();
}
