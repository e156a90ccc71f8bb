/* XNNPACK backend, graph by graph: every supported node kind (fp32, static int8, dynamic int8)
 * built with the blob writer and checked against the naive reference evaluator on every ISA and
 * with 1 and 2 threads; writer output structure; packed-weight byte layout; init-time rejection
 * of inconsistent graphs. */
#include <math.h>

#include "../../backends/xnnpack/xnn_internal.h"
#include "test_xnnpack_util.h"

/* ---- graph building helpers ------------------------------------------------------------------ */
typedef struct g_t {
  pte_xnn_builder *b;
  bool bad;
} g_t;

static uint32_t g_val(g_t *g, int dtype, pte_xnn_quant q, uint32_t flags, uint32_t ext, int rank, const uint32_t *dims,
                      const void *data, float scale, int32_t zp) {
  pte_xnn_tensor_desc t;
  memset(&t, 0, sizeof t);
  t.dtype = dtype;
  t.rank = (uint32_t)rank;
  t.dims = dims;
  t.flags = flags;
  t.external_id = ext;
  t.quant = q;
  t.scale = scale;
  t.zero_point = zp;
  t.num_nonbatch_dims = 1;
  size_t numel = 1;
  for (int i = 0; i < rank; i++) numel *= dims[i];
  if (data) {
    t.data = data;
    t.nbytes = numel * pte_xnn_dtype_size((unsigned)dtype);
  }
  uint32_t id = 0;
  if (pte_xnn_builder_add_tensor(g->b, &t, &id) != PTE_OK) g->bad = true;
  return id;
}
#define F32(g, rank, ...) g_val(g, PTE_XNN_DT_FP32, PTE_XNN_QUANT_NONE, 0, 0, rank, (const uint32_t[]){__VA_ARGS__}, NULL, 1, 0)
#define IN(g, ext, rank, ...)                                                                                \
  g_val(g, PTE_XNN_DT_FP32, PTE_XNN_QUANT_NONE, PTE_XNN_VALUE_EXTERNAL_INPUT, ext, rank, (const uint32_t[]){__VA_ARGS__}, \
        NULL, 1, 0)
#define OUT(g, ext, rank, ...)                                                                                \
  g_val(g, PTE_XNN_DT_FP32, PTE_XNN_QUANT_NONE, PTE_XNN_VALUE_EXTERNAL_OUTPUT, ext, rank, (const uint32_t[]){__VA_ARGS__}, \
        NULL, 1, 0)
#define CONST(g, data, rank, ...) \
  g_val(g, PTE_XNN_DT_FP32, PTE_XNN_QUANT_NONE, 0, 0, rank, (const uint32_t[]){__VA_ARGS__}, data, 1, 0)

static pte_xnn_node_desc nd(unsigned type, uint32_t in0, uint32_t in1, uint32_t out) {
  pte_xnn_node_desc n;
  memset(&n, 0, sizeof n);
  n.type = type;
  n.inputs[0] = in0;
  n.inputs[1] = in1;
  n.inputs[2] = PTE_XNN_NO_VALUE;
  n.output = out;
  return n;
}

static void g_node(g_t *g, const pte_xnn_node_desc *n) {
  if (pte_xnn_builder_add_node(g->b, n) != PTE_OK) g->bad = true;
}

/* finish in `mode` and check against the reference on every ISA / thread count */
static bool g_check(g_t *g, pte_xnn_constants_mode mode, const size_t (*shapes)[6], double rel, const char *what) {
  if (g->bad) {
    test_fail(__FILE__, __LINE__, "%s: building the graph failed", what);
    pte_xnn_builder_free(g->b);
    return false;
  }
  pte_xnn_blob blob;
  pte_error_info err;
  if (pte_xnn_builder_finish(g->b, mode, &blob, &err) != PTE_OK) {
    test_fail(__FILE__, __LINE__, "%s: finish: %s", what, err.msg);
    pte_xnn_builder_free(g->b);
    return false;
  }
  pte_xnn_blob_data_map map;
  pte_xnn_blob_data_map_init(&map, &blob);
  bool ok = xt_check_blob(blob.data, blob.size, &map.base, shapes, 2, rel, what);
  pte_xnn_blob_free(&blob);
  pte_xnn_builder_free(g->b);
  return ok;
}

static g_t g_new(void) {
  g_t g = {pte_xnn_builder_new(), false};
  return g;
}

static float *rnd(size_t n, float scale) {
  float *p = (float *)malloc(n * sizeof(float) + 4);
  xt_fill(p, n, scale);
  return p;
}

/* ---- elementwise ------------------------------------------------------------------------------ */

TEST(binary_broadcast) {
  static const unsigned kinds[] = {PTE_XNN_NODE_ADD,     PTE_XNN_NODE_SUBTRACT, PTE_XNN_NODE_MULTIPLY,
                                   PTE_XNN_NODE_DIV,     PTE_XNN_NODE_MINIMUM,  PTE_XNN_NODE_MAXIMUM};
  for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
    /* [2,3,4] op [4]; [2,1,5] op [3,1] (both broadcast); [7] op [7] with a clamp */
    g_t g = g_new();
    uint32_t a = IN(&g, 0, 3, 2, 3, 4), b = IN(&g, 1, 1, 4), o = OUT(&g, 2, 3, 2, 3, 4);
    pte_xnn_node_desc n = nd(kinds[k], a, b, o);
    g_node(&g, &n);
    char what[64];
    snprintf(what, sizeof what, "%s [2,3,4]x[4]", pte_xnn_node_name(kinds[k]));
    if (!g_check(&g, PTE_XNN_CONSTANTS_NAMED, NULL, 1e-5, what)) return;
    g = g_new();
    a = IN(&g, 0, 3, 2, 1, 5), b = IN(&g, 1, 2, 3, 1), o = OUT(&g, 2, 3, 2, 3, 5);
    n = nd(kinds[k], a, b, o);
    g_node(&g, &n);
    snprintf(what, sizeof what, "%s [2,1,5]x[3,1]", pte_xnn_node_name(kinds[k]));
    if (!g_check(&g, PTE_XNN_CONSTANTS_NAMED, NULL, 1e-5, what)) return;
    g = g_new();
    a = IN(&g, 0, 1, 37), b = IN(&g, 1, 1, 37), o = OUT(&g, 2, 1, 37);
    n = nd(kinds[k], a, b, o);
    n.has_min_max = true;
    n.out_min = -0.5f;
    n.out_max = 0.75f;
    g_node(&g, &n);
    snprintf(what, sizeof what, "%s clamped", pte_xnn_node_name(kinds[k]));
    if (!g_check(&g, PTE_XNN_CONSTANTS_NAMED, NULL, 1e-5, what)) return;
  }
  /* a constant operand and a large contiguous add (threads split it) */
  g_t g = g_new();
  float *c = rnd(300, 1.0f);
  uint32_t a = IN(&g, 0, 2, 400, 300), b = CONST(&g, c, 2, 1, 300), o = OUT(&g, 1, 2, 400, 300);
  pte_xnn_node_desc n = nd(PTE_XNN_NODE_ADD, a, b, o);
  g_node(&g, &n);
  CHECK(g_check(&g, PTE_XNN_CONSTANTS_INLINE, NULL, 1e-5, "add const row"));
  free(c);
}

TEST(unary_ops) {
  static const unsigned kinds[] = {PTE_XNN_NODE_ABS,   PTE_XNN_NODE_NEGATE,    PTE_XNN_NODE_SQUARE,
                                   PTE_XNN_NODE_SQUARE_ROOT, PTE_XNN_NODE_FLOOR, PTE_XNN_NODE_CEILING,
                                   PTE_XNN_NODE_SIGMOID, PTE_XNN_NODE_TANH,   PTE_XNN_NODE_HARDSWISH,
                                   PTE_XNN_NODE_ELU,   PTE_XNN_NODE_LEAKY_RELU, PTE_XNN_NODE_EXP,
                                   PTE_XNN_NODE_LOG,   PTE_XNN_NODE_GELU,   PTE_XNN_NODE_SIN,
                                   PTE_XNN_NODE_RECIPROCAL_SQUARE_ROOT, PTE_XNN_NODE_CLAMP, PTE_XNN_NODE_SOFTMAX};
  for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
    g_t g = g_new();
    uint32_t a = IN(&g, 0, 2, 5, 13), o = OUT(&g, 1, 2, 5, 13);
    pte_xnn_node_desc n = nd(kinds[k], a, 0, o);
    n.alpha = kinds[k] == PTE_XNN_NODE_ELU ? 0.7f : 0.05f;
    if (kinds[k] == PTE_XNN_NODE_CLAMP) {
      n.has_min_max = true;
      n.out_min = -0.3f;
      n.out_max = 0.4f;
    }
    g_node(&g, &n);
    if (!g_check(&g, PTE_XNN_CONSTANTS_NAMED, NULL, 1e-5, pte_xnn_node_name(kinds[k]))) return;
  }
}

TEST(prelu) {
  g_t g = g_new();
  float *slope = rnd(3, 0.5f);
  uint32_t a = IN(&g, 0, 4, 1, 4, 4, 3), s = CONST(&g, slope, 1, 3), o = OUT(&g, 1, 4, 1, 4, 4, 3);
  pte_xnn_node_desc n = nd(PTE_XNN_NODE_PRELU, a, s, o);
  g_node(&g, &n);
  CHECK(g_check(&g, PTE_XNN_CONSTANTS_NAMED, NULL, 1e-5, "prelu"));
  free(slope);
}

/* ---- fully connected -------------------------------------------------------------------------- */

static bool fc_case(size_t m, size_t k, size_t n, bool bias, bool transposed, bool relu, int rank3) {
  g_t g = g_new();
  float *w = rnd(n * k, 0.5f), *bb = rnd(n, 0.5f);
  uint32_t a = rank3 ? IN(&g, 0, 3, 2, (uint32_t)m, (uint32_t)k) : IN(&g, 0, 2, (uint32_t)m, (uint32_t)k);
  uint32_t wv = transposed ? CONST(&g, w, 2, (uint32_t)k, (uint32_t)n) : CONST(&g, w, 2, (uint32_t)n, (uint32_t)k);
  uint32_t bv = bias ? CONST(&g, bb, 1, (uint32_t)n) : PTE_XNN_NO_VALUE;
  uint32_t o = rank3 ? OUT(&g, 1, 3, 2, (uint32_t)m, (uint32_t)n) : OUT(&g, 1, 2, (uint32_t)m, (uint32_t)n);
  pte_xnn_node_desc d = nd(PTE_XNN_NODE_FULLY_CONNECTED, a, wv, o);
  d.inputs[2] = bv;
  d.flags = transposed ? 1u : 0u;
  if (relu) {
    d.has_min_max = true;
    d.out_min = 0.0f;
    d.out_max = INFINITY;
  }
  g_node(&g, &d);
  char what[96];
  snprintf(what, sizeof what, "fc m=%zu k=%zu n=%zu bias=%d tr=%d relu=%d r3=%d", m, k, n, bias, transposed, relu, rank3);
  bool ok = g_check(&g, bias ? PTE_XNN_CONSTANTS_INLINE : PTE_XNN_CONSTANTS_NAMED, NULL, 1e-5, what);
  free(w);
  free(bb);
  return ok;
}

TEST(fully_connected_f32) {
  CHECK(fc_case(1, 8, 8, true, false, false, 0));
  CHECK(fc_case(13, 19, 37, true, false, true, 0));
  CHECK(fc_case(64, 300, 70, false, false, false, 0));
  CHECK(fc_case(9, 33, 65, true, true, false, 0));
  CHECK(fc_case(3, 17, 40, true, false, false, 1));
  CHECK(fc_case(1, 700, 129, true, false, false, 0));
  CHECK(fc_case(130, 520, 33, true, false, true, 0)); /* several K blocks and M blocks */
  CHECK(fc_case(1, 203, 10, true, false, true, 0)); /* one row on the 16-column panel: k tail */
  CHECK(fc_case(1, 3, 16, false, false, false, 0));
}

/* fp32 -> qint8 -> FC (int8 weights, int32 bias) -> qint8 -> fp32 */
static bool qs8_fc(bool per_channel, size_t m, size_t k, size_t n, bool relu) {
  g_t g = g_new();
  int8_t *w = (int8_t *)malloc(n * k);
  int32_t *bias = (int32_t *)malloc(n * 4);
  float *cs = (float *)malloc(n * 4);
  const float in_scale = 0.02f, out_scale = 0.05f;
  const int32_t in_zp = 5, out_zp = -3;
  for (size_t i = 0; i < n * k; i++) w[i] = (int8_t)(xt_rand() * 127);
  for (size_t i = 0; i < n; i++) cs[i] = 0.004f + 0.002f * (float)(i % 5);
  for (size_t i = 0; i < n; i++) bias[i] = (int32_t)(xt_rand() * 2000);
  uint32_t x = IN(&g, 0, 2, (uint32_t)m, (uint32_t)k);
  uint32_t xq = g_val(&g, PTE_XNN_DT_QINT8, PTE_XNN_QUANT_PER_TENSOR, 0, 0, 2, (const uint32_t[]){(uint32_t)m, (uint32_t)k},
                      NULL, in_scale, in_zp);
  uint32_t wv, bv;
  if (per_channel) {
    pte_xnn_tensor_desc t;
    memset(&t, 0, sizeof t);
    uint32_t wd[2] = {(uint32_t)n, (uint32_t)k}, bd[1] = {(uint32_t)n};
    float *bscale = (float *)malloc(n * 4);
    for (size_t i = 0; i < n; i++) bscale[i] = in_scale * cs[i];
    t.dtype = PTE_XNN_DT_QCINT8, t.rank = 2, t.dims = wd, t.data = w, t.nbytes = n * k;
    t.quant = PTE_XNN_QUANT_PER_CHANNEL, t.channel_scales = cs, t.n_channel_scales = (uint32_t)n, t.channel_dim = 0;
    if (pte_xnn_builder_add_tensor(g.b, &t, &wv) != PTE_OK) g.bad = true;
    t.dtype = PTE_XNN_DT_QCINT32, t.rank = 1, t.dims = bd, t.data = bias, t.nbytes = n * 4, t.channel_scales = bscale;
    if (pte_xnn_builder_add_tensor(g.b, &t, &bv) != PTE_OK) g.bad = true;
    free(bscale);
  } else {
    wv = g_val(&g, PTE_XNN_DT_QINT8, PTE_XNN_QUANT_PER_TENSOR, 0, 0, 2, (const uint32_t[]){(uint32_t)n, (uint32_t)k}, w,
               0.006f, 0);
    bv = g_val(&g, PTE_XNN_DT_QINT32, PTE_XNN_QUANT_PER_TENSOR, 0, 0, 1, (const uint32_t[]){(uint32_t)n}, bias,
               in_scale * 0.006f, 0);
  }
  uint32_t yq = g_val(&g, PTE_XNN_DT_QINT8, PTE_XNN_QUANT_PER_TENSOR, 0, 0, 2, (const uint32_t[]){(uint32_t)m, (uint32_t)n},
                      NULL, out_scale, out_zp);
  uint32_t y = OUT(&g, 1, 2, (uint32_t)m, (uint32_t)n);
  pte_xnn_node_desc d = nd(PTE_XNN_NODE_CONVERT, x, 0, xq);
  g_node(&g, &d);
  d = nd(PTE_XNN_NODE_FULLY_CONNECTED, xq, wv, yq);
  d.inputs[2] = bv;
  if (relu) {
    d.has_min_max = true;
    d.out_min = 0.0f;
    d.out_max = INFINITY;
  }
  g_node(&g, &d);
  d = nd(PTE_XNN_NODE_CONVERT, yq, 0, y);
  g_node(&g, &d);
  char what[80];
  snprintf(what, sizeof what, "qs8 fc %s m=%zu k=%zu n=%zu", per_channel ? "qc8" : "q8", m, k, n);
  bool ok = g_check(&g, PTE_XNN_CONSTANTS_NAMED, NULL, 1e-5, what);
  free(w);
  free(bias);
  free(cs);
  return ok;
}

TEST(fully_connected_qs8) {
  CHECK(qs8_fc(false, 2, 8, 8, false));
  CHECK(qs8_fc(false, 7, 33, 21, true));
  CHECK(qs8_fc(true, 5, 40, 19, false));
  /* AVX-512 VNNI tile: 8-k steps plus 2..7 k left over, rows past one 8-row tile */
  CHECK(qs8_fc(false, 11, 15, 9, false));
  CHECK(qs8_fc(true, 13, 62, 17, true));
  CHECK(qs8_fc(true, 9, 4, 16, false));
}

/* fp32 -> qdint8 (per row) -> FC (qcint8 weights, fp32 bias) -> fp32 */
static bool qd8_fc(size_t m, size_t k, size_t n, int rank3) {
  g_t g = g_new();
  int8_t *w = (int8_t *)malloc(n * k);
  float *cs = (float *)malloc(n * 4), *bias = rnd(n, 1.0f);
  for (size_t i = 0; i < n * k; i++) w[i] = (int8_t)(xt_rand() * 127);
  for (size_t i = 0; i < n; i++) cs[i] = 0.003f + 0.001f * (float)(i % 7);
  uint32_t dx3[3] = {2, (uint32_t)m, (uint32_t)k}, dx2[2] = {(uint32_t)m, (uint32_t)k};
  uint32_t x = g_val(&g, PTE_XNN_DT_FP32, PTE_XNN_QUANT_NONE, PTE_XNN_VALUE_EXTERNAL_INPUT, 0, rank3 ? 3 : 2,
                     rank3 ? dx3 : dx2, NULL, 1, 0);
  uint32_t xq = g_val(&g, PTE_XNN_DT_QDINT8, PTE_XNN_QUANT_PER_TOKEN, 0, 0, rank3 ? 3 : 2, rank3 ? dx3 : dx2, NULL, 1, 0);
  pte_xnn_tensor_desc t;
  memset(&t, 0, sizeof t);
  uint32_t wd[2] = {(uint32_t)n, (uint32_t)k}, wv;
  t.dtype = PTE_XNN_DT_QCINT8, t.rank = 2, t.dims = wd, t.data = w, t.nbytes = n * k;
  t.quant = PTE_XNN_QUANT_PER_CHANNEL, t.channel_scales = cs, t.n_channel_scales = (uint32_t)n, t.channel_dim = 0;
  if (pte_xnn_builder_add_tensor(g.b, &t, &wv) != PTE_OK) g.bad = true;
  uint32_t bv = CONST(&g, bias, 1, (uint32_t)n);
  uint32_t dy3[3] = {2, (uint32_t)m, (uint32_t)n}, dy2[2] = {(uint32_t)m, (uint32_t)n};
  uint32_t y = g_val(&g, PTE_XNN_DT_FP32, PTE_XNN_QUANT_NONE, PTE_XNN_VALUE_EXTERNAL_OUTPUT, 1, rank3 ? 3 : 2,
                     rank3 ? dy3 : dy2, NULL, 1, 0);
  pte_xnn_node_desc d = nd(PTE_XNN_NODE_CONVERT, x, 0, xq);
  g_node(&g, &d);
  d = nd(PTE_XNN_NODE_FULLY_CONNECTED, xq, wv, y);
  d.inputs[2] = bv;
  g_node(&g, &d);
  char what[80];
  snprintf(what, sizeof what, "qd8 fc m=%zu k=%zu n=%zu r3=%d", m, k, n, rank3);
  bool ok = g_check(&g, PTE_XNN_CONSTANTS_NAMED, NULL, 1e-5, what);
  free(w);
  free(cs);
  free(bias);
  return ok;
}

/* the legacy form: an fp32 input flagged dq_datatype = qint8 feeds the FC directly */
TEST(fully_connected_legacy_dq) {
  g_t g = g_new();
  const uint32_t m = 3, k = 24, n = 10;
  int8_t w[10 * 24];
  float cs[10];
  for (size_t i = 0; i < sizeof w; i++) w[i] = (int8_t)(xt_rand() * 127);
  for (int i = 0; i < 10; i++) cs[i] = 0.005f + 0.001f * (float)i;
  pte_xnn_tensor_desc t;
  memset(&t, 0, sizeof t);
  uint32_t xd[2] = {m, k}, wd[2] = {n, k}, x, wv;
  t.dtype = PTE_XNN_DT_FP32, t.rank = 2, t.dims = xd, t.flags = PTE_XNN_VALUE_EXTERNAL_INPUT, t.dq_datatype = PTE_XNN_DT_QINT8;
  CHECK_OK(pte_xnn_builder_add_tensor(g.b, &t, &x));
  memset(&t, 0, sizeof t);
  t.dtype = PTE_XNN_DT_QCINT8, t.rank = 2, t.dims = wd, t.data = w, t.nbytes = sizeof w;
  t.quant = PTE_XNN_QUANT_PER_CHANNEL, t.channel_scales = cs, t.n_channel_scales = n, t.channel_dim = 0;
  CHECK_OK(pte_xnn_builder_add_tensor(g.b, &t, &wv));
  uint32_t y = OUT(&g, 1, 2, m, n);
  pte_xnn_node_desc d = nd(PTE_XNN_NODE_FULLY_CONNECTED, x, wv, y);
  g_node(&g, &d);
  CHECK(g_check(&g, PTE_XNN_CONSTANTS_NAMED, NULL, 1e-5, "legacy dq_datatype fc"));
}

TEST(fully_connected_qd8) {
  CHECK(qd8_fc(1, 16, 8, 0));
  CHECK(qd8_fc(11, 45, 23, 0));
  CHECK(qd8_fc(3, 20, 9, 1));
}

/* ---- convolution ------------------------------------------------------------------------------ */

static bool conv_case(uint32_t n, uint32_t cin, uint32_t h, uint32_t w, uint32_t cout, uint32_t kh, uint32_t kw,
                      uint32_t sh, uint32_t sw, uint32_t ph, uint32_t pw, uint32_t dh, uint32_t dw, uint32_t groups,
                      bool relu, pte_xnn_constants_mode mode) {
  pte_xnn_conv2d_spec sp = {n, cin, h, w, cout, kh, kw, sh, sw, ph, pw, dh, dw, groups, relu};
  size_t wn = (size_t)cout * (cin / groups) * kh * kw;
  float *wt = rnd(wn, 0.5f), *b = rnd(cout, 0.5f);
  pte_xnn_blob blob;
  pte_error_info err;
  bool ok = false;
  if (pte_xnn_blob_build_conv2d(&sp, wt, b, mode, &blob, &err) != PTE_OK) {
    test_fail(__FILE__, __LINE__, "conv build: %s", err.msg);
  } else {
    pte_xnn_blob_data_map map;
    pte_xnn_blob_data_map_init(&map, &blob);
    char what[128];
    snprintf(what, sizeof what, "conv n%u c%u %ux%u -> %u k%ux%u s%u,%u p%u,%u d%u,%u g%u", n, cin, h, w, cout, kh, kw,
             sh, sw, ph, pw, dh, dw, groups);
    ok = xt_check_blob(blob.data, blob.size, &map.base, NULL, 2, 1e-5, what);
    pte_xnn_blob_free(&blob);
  }
  free(wt);
  free(b);
  return ok;
}

TEST(conv2d_f32) {
  CHECK(conv_case(1, 3, 16, 16, 8, 3, 3, 1, 1, 1, 1, 1, 1, 1, true, PTE_XNN_CONSTANTS_NAMED));
  CHECK(conv_case(2, 5, 13, 11, 7, 5, 3, 2, 1, 2, 0, 1, 2, 1, false, PTE_XNN_CONSTANTS_INLINE));
  CHECK(conv_case(1, 16, 9, 9, 40, 1, 1, 1, 1, 0, 0, 1, 1, 1, false, PTE_XNN_CONSTANTS_NAMED)); /* direct 1x1 */
  CHECK(conv_case(1, 8, 10, 12, 12, 3, 3, 2, 2, 1, 1, 1, 1, 2, false, PTE_XNN_CONSTANTS_NAMED)); /* groups */
  CHECK(conv_case(1, 12, 10, 10, 12, 3, 3, 1, 1, 1, 1, 1, 1, 12, true, PTE_XNN_CONSTANTS_NAMED)); /* depthwise */
  CHECK(conv_case(1, 3, 9, 8, 6, 3, 3, 2, 2, 1, 1, 2, 2, 3, false, PTE_XNN_CONSTANTS_NAMED)); /* depthwise x2 */
  CHECK(conv_case(1, 32, 40, 40, 48, 3, 3, 1, 1, 1, 1, 1, 1, 1, false, PTE_XNN_CONSTANTS_NAMED)); /* many tiles */
  CHECK(conv_case(1, 4, 9, 7, 5, 3, 2, 2, 3, 2, 1, 2, 1, 1, true, PTE_XNN_CONSTANTS_NAMED)); /* row path, dilated H */
  CHECK(conv_case(1, 2, 4, 4, 3, 1, 1, 1, 1, 2, 2, 1, 1, 1, false, PTE_XNN_CONSTANTS_NAMED)); /* rows with no tap */
  CHECK(conv_case(1, 3, 5, 2, 4, 3, 3, 1, 1, 1, 1, 1, 1, 1, false, PTE_XNN_CONSTANTS_NAMED)); /* borders only */
  CHECK(conv_case(2, 1, 12, 13, 8, 3, 3, 1, 1, 0, 0, 1, 1, 1, false, PTE_XNN_CONSTANTS_NAMED)); /* 1 input channel */
}

/* qs8 conv: fp32 NHWC input -> qint8 -> conv (qcint8 weights) -> qint8 -> fp32 */
static bool qconv_case(bool dynamic, uint32_t cin, uint32_t cout, uint32_t groups, uint32_t k, uint32_t pad) {
  g_t g = g_new();
  const uint32_t N = 2, H = 7, W = 6, gic = cin / groups, goc = cout / groups;
  const uint32_t OH = H + 2 * pad - k + 1, OW = W + 2 * pad - k + 1;
  size_t wn = (size_t)cout * k * k * gic;
  int8_t *w = (int8_t *)malloc(wn);
  float *cs = (float *)malloc(cout * 4), *bf = rnd(cout, 0.5f);
  int32_t *bq = (int32_t *)malloc(cout * 4);
  for (size_t i = 0; i < wn; i++) w[i] = (int8_t)(xt_rand() * 127);
  for (uint32_t i = 0; i < cout; i++) cs[i] = 0.004f + 0.001f * (float)(i % 3), bq[i] = (int32_t)(xt_rand() * 500);
  uint32_t din[4] = {N, H, W, cin}, dout[4] = {N, OH, OW, cout}, wd[4] = {cout, k, k, gic}, bd[1] = {cout};
  uint32_t x = g_val(&g, PTE_XNN_DT_FP32, PTE_XNN_QUANT_NONE, PTE_XNN_VALUE_EXTERNAL_INPUT, 0, 4, din, NULL, 1, 0);
  uint32_t xq = dynamic ? g_val(&g, PTE_XNN_DT_QDINT8, PTE_XNN_QUANT_PER_TOKEN, 0, 0, 4, din, NULL, 1, 0)
                        : g_val(&g, PTE_XNN_DT_QINT8, PTE_XNN_QUANT_PER_TENSOR, 0, 0, 4, din, NULL, 0.02f, 3);
  if (dynamic) {
    /* per-batch quantization: rebuild the value with 3 non-batch dims */
    pte_xnn_builder_free(g.b);
    g = g_new();
    x = g_val(&g, PTE_XNN_DT_FP32, PTE_XNN_QUANT_NONE, PTE_XNN_VALUE_EXTERNAL_INPUT, 0, 4, din, NULL, 1, 0);
    pte_xnn_tensor_desc t;
    memset(&t, 0, sizeof t);
    t.dtype = PTE_XNN_DT_QDINT8, t.rank = 4, t.dims = din, t.quant = PTE_XNN_QUANT_PER_TOKEN, t.num_nonbatch_dims = 3;
    if (pte_xnn_builder_add_tensor(g.b, &t, &xq) != PTE_OK) g.bad = true;
  }
  pte_xnn_tensor_desc t;
  memset(&t, 0, sizeof t);
  uint32_t wv, bv;
  t.dtype = PTE_XNN_DT_QCINT8, t.rank = 4, t.dims = wd, t.data = w, t.nbytes = wn;
  t.quant = PTE_XNN_QUANT_PER_CHANNEL, t.channel_scales = cs, t.n_channel_scales = cout, t.channel_dim = 0;
  if (pte_xnn_builder_add_tensor(g.b, &t, &wv) != PTE_OK) g.bad = true;
  if (dynamic) {
    bv = g_val(&g, PTE_XNN_DT_FP32, PTE_XNN_QUANT_NONE, 0, 0, 1, bd, bf, 1, 0);
  } else {
    float *bs = (float *)malloc(cout * 4);
    for (uint32_t i = 0; i < cout; i++) bs[i] = 0.02f * cs[i];
    memset(&t, 0, sizeof t);
    t.dtype = PTE_XNN_DT_QCINT32, t.rank = 1, t.dims = bd, t.data = bq, t.nbytes = cout * 4;
    t.quant = PTE_XNN_QUANT_PER_CHANNEL, t.channel_scales = bs, t.n_channel_scales = cout, t.channel_dim = 0;
    if (pte_xnn_builder_add_tensor(g.b, &t, &bv) != PTE_OK) g.bad = true;
    free(bs);
  }
  uint32_t y = dynamic ? g_val(&g, PTE_XNN_DT_FP32, PTE_XNN_QUANT_NONE, PTE_XNN_VALUE_EXTERNAL_OUTPUT, 1, 4, dout, NULL, 1, 0)
                       : g_val(&g, PTE_XNN_DT_QINT8, PTE_XNN_QUANT_PER_TENSOR, 0, 0, 4, dout, NULL, 0.1f, -2);
  uint32_t yf = dynamic ? y : g_val(&g, PTE_XNN_DT_FP32, PTE_XNN_QUANT_NONE, PTE_XNN_VALUE_EXTERNAL_OUTPUT, 1, 4, dout,
                                    NULL, 1, 0);
  pte_xnn_node_desc d = nd(PTE_XNN_NODE_CONVERT, x, 0, xq);
  g_node(&g, &d);
  d = nd(PTE_XNN_NODE_CONV2D, xq, wv, y);
  d.inputs[2] = bv;
  d.padding[0] = d.padding[1] = d.padding[2] = d.padding[3] = pad;
  d.kernel[0] = d.kernel[1] = k;
  d.stride[0] = d.stride[1] = 1;
  d.dilation[0] = d.dilation[1] = 1;
  d.groups = groups;
  d.group_input_channels = gic;
  d.group_output_channels = goc;
  g_node(&g, &d);
  if (!dynamic) {
    d = nd(PTE_XNN_NODE_CONVERT, y, 0, yf);
    g_node(&g, &d);
  }
  char what[80];
  snprintf(what, sizeof what, "%s conv cin%u cout%u g%u k%u p%u", dynamic ? "qd8" : "qs8", cin, cout, groups, k, pad);
  bool ok = g_check(&g, PTE_XNN_CONSTANTS_NAMED, NULL, 1e-5, what);
  free(w);
  free(cs);
  free(bf);
  free(bq);
  return ok;
}

TEST(conv2d_quantized) {
  CHECK(qconv_case(false, 3, 5, 1, 3, 1));
  CHECK(qconv_case(false, 4, 6, 2, 3, 0));
  CHECK(qconv_case(true, 3, 5, 1, 3, 1));
  CHECK(qconv_case(true, 6, 4, 2, 2, 1));
}

/* ---- pooling, shape ops ----------------------------------------------------------------------- */

TEST(pooling) {
  for (int avg = 0; avg < 2; avg++) {
    g_t g = g_new();
    uint32_t a = IN(&g, 0, 4, 2, 9, 10, 5), o = OUT(&g, 1, 4, 2, 5, 5, 5);
    pte_xnn_node_desc n = nd(avg ? PTE_XNN_NODE_AVG_POOLING_2D : PTE_XNN_NODE_MAX_POOLING_2D, a, 0, o);
    n.padding[0] = 1, n.padding[1] = 0, n.padding[2] = 1, n.padding[3] = 1;
    n.kernel[0] = 3, n.kernel[1] = 2, n.stride[0] = 2, n.stride[1] = 2, n.dilation[0] = n.dilation[1] = 1;
    g_node(&g, &n);
    if (!g_check(&g, PTE_XNN_CONSTANTS_NAMED, NULL, 1e-5, avg ? "avgpool" : "maxpool")) return;
  }
  g_t g = g_new();
  uint32_t a = IN(&g, 0, 4, 2, 6, 7, 9), o = OUT(&g, 1, 4, 2, 1, 1, 9);
  pte_xnn_node_desc n = nd(PTE_XNN_NODE_GLOBAL_AVG_POOLING_2D, a, 0, o);
  n.flags = 0x40;
  g_node(&g, &n);
  CHECK(g_check(&g, PTE_XNN_CONSTANTS_NAMED, NULL, 1e-5, "global avg pool keep dims"));
  g = g_new();
  a = IN(&g, 0, 4, 3, 5, 4, 6), o = OUT(&g, 1, 2, 3, 6);
  n = nd(PTE_XNN_NODE_GLOBAL_AVG_POOLING_2D, a, 0, o);
  g_node(&g, &n);
  CHECK(g_check(&g, PTE_XNN_CONSTANTS_NAMED, NULL, 1e-5, "global avg pool 2-D"));
}

TEST(shape_ops) {
  { /* transpose then reshape with an inferred dim */
    g_t g = g_new();
    uint32_t a = IN(&g, 0, 3, 2, 3, 4), t = F32(&g, 3, 4, 2, 3), o = OUT(&g, 1, 2, 8, 3);
    static const uint32_t perm[3] = {2, 0, 1}, ns[2] = {0, 3};
    pte_xnn_node_desc n = nd(PTE_XNN_NODE_STATIC_TRANSPOSE, a, 0, t);
    n.num_dims = 3, n.a = perm;
    g_node(&g, &n);
    n = nd(PTE_XNN_NODE_STATIC_RESHAPE, t, 0, o);
    n.num_dims = 2, n.a = ns;
    g_node(&g, &n);
    CHECK(g_check(&g, PTE_XNN_CONSTANTS_NAMED, NULL, 1e-5, "transpose+reshape"));
  }
  { /* slice then pad */
    g_t g = g_new();
    uint32_t a = IN(&g, 0, 3, 4, 6, 5), s = F32(&g, 3, 2, 3, 5), o = OUT(&g, 1, 3, 3, 6, 7);
    static const uint32_t off[3] = {1, 2, 0}, sz[3] = {2, 3, 0}, pre[3] = {0, 1, 2}, post[3] = {1, 2, 0};
    pte_xnn_node_desc n = nd(PTE_XNN_NODE_STATIC_SLICE, a, 0, s);
    n.num_dims = 3, n.a = off, n.b = sz;
    g_node(&g, &n);
    n = nd(PTE_XNN_NODE_STATIC_CONSTANT_PAD, s, 0, o);
    n.num_dims = 3, n.a = pre, n.b = post, n.alpha = 0.5f;
    g_node(&g, &n);
    CHECK(g_check(&g, PTE_XNN_CONSTANTS_NAMED, NULL, 1e-5, "slice+pad"));
  }
  for (unsigned k = 2; k <= 5; k++) { /* concatenate k inputs along axis k % 3 */
    g_t g = g_new();
    uint32_t ax = k % 3, ids[5], total = 0;
    for (unsigned i = 0; i < k; i++) {
      uint32_t dims[3] = {2, 3, 4};
      dims[ax] = i + 1;
      total += i + 1;
      ids[i] = g_val(&g, PTE_XNN_DT_FP32, PTE_XNN_QUANT_NONE, PTE_XNN_VALUE_EXTERNAL_INPUT, i, 3, dims, NULL, 1, 0);
    }
    uint32_t od[3] = {2, 3, 4};
    od[ax] = total;
    uint32_t o = g_val(&g, PTE_XNN_DT_FP32, PTE_XNN_QUANT_NONE, PTE_XNN_VALUE_EXTERNAL_OUTPUT, k, 3, od, NULL, 1, 0);
    pte_xnn_node_desc n = nd(PTE_XNN_NODE_CONCATENATE2 + (k - 2), ids[0], ids[1], o);
    if (k == 5) n.type = PTE_XNN_NODE_CONCATENATE5;
    for (unsigned i = 0; i < k; i++) n.inputs[i] = ids[i];
    n.axis = ax;
    g_node(&g, &n);
    char what[32];
    snprintf(what, sizeof what, "concatenate%u", k);
    CHECK(g_check(&g, PTE_XNN_CONSTANTS_NAMED, NULL, 1e-5, what));
  }
  for (int align = 0; align < 2; align++) { /* bilinear resize */
    g_t g = g_new();
    uint32_t a = IN(&g, 0, 4, 1, 5, 7, 3), o = OUT(&g, 1, 4, 1, 9, 4, 3);
    pte_xnn_node_desc n = nd(PTE_XNN_NODE_STATIC_RESIZE_BILINEAR_2D, a, 0, o);
    n.new_h = 9, n.new_w = 4, n.flags = align ? 0x8u : 0u;
    g_node(&g, &n);
    CHECK(g_check(&g, PTE_XNN_CONSTANTS_NAMED, NULL, 1e-5, align ? "resize align corners" : "resize half pixel"));
  }
}

TEST(batch_matmul) {
  { /* [2,3,4] x [2,4,5] */
    g_t g = g_new();
    uint32_t a = IN(&g, 0, 3, 2, 3, 4), b = IN(&g, 1, 3, 2, 4, 5), o = OUT(&g, 2, 3, 2, 3, 5);
    pte_xnn_node_desc n = nd(PTE_XNN_NODE_BATCH_MATRIX_MULTIPLY, a, b, o);
    g_node(&g, &n);
    CHECK(g_check(&g, PTE_XNN_CONSTANTS_NAMED, NULL, 1e-5, "bmm"));
  }
  { /* broadcast batch + transposed B: [3,7] x [2,6,7]^T */
    g_t g = g_new();
    uint32_t a = IN(&g, 0, 2, 3, 7), b = IN(&g, 1, 3, 2, 6, 7), o = OUT(&g, 2, 3, 2, 3, 6);
    pte_xnn_node_desc n = nd(PTE_XNN_NODE_BATCH_MATRIX_MULTIPLY, a, b, o);
    n.flags = 1;
    g_node(&g, &n);
    CHECK(g_check(&g, PTE_XNN_CONSTANTS_NAMED, NULL, 1e-5, "bmm broadcast transposed"));
  }
}

/* dynamic batch through FC + add: shapes change between calls and are re-planned */
TEST(dynamic_chain) {
  g_t g = g_new();
  float *w = rnd(24 * 16, 0.5f), *c = rnd(24, 1.0f);
  uint32_t a = IN(&g, 0, 2, 10, 16), wv = CONST(&g, w, 2, 24, 16), h = F32(&g, 2, 10, 24), cv = CONST(&g, c, 1, 24);
  uint32_t o = OUT(&g, 1, 2, 10, 24);
  pte_xnn_node_desc n = nd(PTE_XNN_NODE_FULLY_CONNECTED, a, wv, h);
  g_node(&g, &n);
  n = nd(PTE_XNN_NODE_ADD, h, cv, o);
  g_node(&g, &n);
  pte_xnn_blob blob;
  CHECK_OK(pte_xnn_builder_finish(g.b, PTE_XNN_CONSTANTS_NAMED, &blob, NULL));
  pte_xnn_builder_free(g.b);
  pte_xnn_blob_data_map map;
  pte_xnn_blob_data_map_init(&map, &blob);
  pte_xnn_delegate *d;
  CHECK_OK(pte_xnn_delegate_init(blob.data, blob.size, &map.base, NULL, &d, NULL));
  static const size_t b3[2][6] = {{3, 16}, {0}}, b10[2][6] = {{10, 16}, {0}}, b40[2][6] = {{40, 16}, {0}};
  CHECK(xt_run_once(d, blob.data, blob.size, &map.base, b3, 1e-5, "batch 3"));
  CHECK(xt_run_once(d, blob.data, blob.size, &map.base, b40, 1e-5, "batch 40 (grows the arena)"));
  CHECK(xt_run_once(d, blob.data, blob.size, &map.base, b10, 1e-5, "batch 10"));
  /* an input shape the graph cannot take */
  static const size_t bad[2][6] = {{3, 15}, {0}};
  float in[45] = {0}, out[240];
  xt_tensor ti, to;
  size_t di[2] = {3, 15}, dout[2] = {10, 24};
  (void)bad;
  xt_tensor_init(&ti, PTE_DTYPE_FLOAT, 2, di, in, sizeof in, PTE_SHAPE_DYNAMIC_BOUND);
  xt_tensor_init(&to, PTE_DTYPE_FLOAT, 2, dout, out, sizeof out, PTE_SHAPE_DYNAMIC_BOUND);
  pte_evalue *args[2] = {&ti.ev, &to.ev};
  pte_error_info err;
  CHECK_STATUS(pte_xnn_delegate_execute(d, args, 2, &err), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(err.msg, "filter K");
  /* wrong dtype, too few args */
  di[1] = 16;
  xt_tensor_init(&ti, PTE_DTYPE_INT, 2, di, in, sizeof in, PTE_SHAPE_DYNAMIC_BOUND);
  CHECK_STATUS(pte_xnn_delegate_execute(d, args, 2, &err), PTE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(pte_xnn_delegate_execute(d, args, 1, &err), PTE_ERR_INVALID_ARGUMENT);
  /* a static output cannot take another shape */
  xt_tensor_init(&ti, PTE_DTYPE_FLOAT, 2, di, in, sizeof in, PTE_SHAPE_DYNAMIC_BOUND);
  dout[0] = 7;
  xt_tensor_init(&to, PTE_DTYPE_FLOAT, 2, dout, out, sizeof out, PTE_SHAPE_STATIC);
  CHECK_STATUS(pte_xnn_delegate_execute(d, args, 2, &err), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(err.msg, "resize");
  pte_xnn_delegate_destroy(d);
  pte_xnn_blob_free(&blob);
  free(w);
  free(c);
}

/* ---- writer output ---------------------------------------------------------------------------- */

TEST(writer_layout) {
  float w[6] = {1, 2, 3, 4, 5, 6}, b[2] = {0.5f, -0.5f};
  pte_xnn_blob blob;
  CHECK_OK(pte_xnn_blob_build_linear(1, 3, 2, w, b, PTE_XNN_CONSTANTS_NAMED, &blob, NULL));
  pte_xnn_header h;
  CHECK_OK(pte_xnn_parse_header(blob.data, blob.size, &h, NULL));
  CHECK(h.present);
  CHECK_EQ_INT(h.header_length, 30);
  CHECK_EQ_INT(h.flatbuffer_offset, 32);
  CHECK_EQ_INT(h.constant_data_offset % 16, 0);
  CHECK_EQ_INT(h.constant_data_offset, 32 + ((h.flatbuffer_size + 15) & ~15u));
  CHECK_EQ_INT(h.constant_data_size, 0);
  CHECK(memcmp(blob.data + 32 + 4, "XN00", 4) == 0);
  CHECK_EQ_INT(blob.n_named, 2);
  char hex[65];
  pte_sha256_hex(w, sizeof w, hex);
  CHECK_STR(blob.named[0].key, hex);
  CHECK_EQ_INT(blob.named[0].size, sizeof w);
  pte_sha256_hex(b, sizeof b, hex);
  CHECK_STR(blob.named[1].key, hex);
  /* run it: y = W x + b with x = [1, 1, 1] -> [6.5, 14.5] */
  pte_xnn_blob_data_map map;
  pte_xnn_blob_data_map_init(&map, &blob);
  pte_xnn_delegate *d;
  CHECK_OK(pte_xnn_delegate_init(blob.data, blob.size, &map.base, NULL, &d, NULL));
  float x[3] = {1, 1, 1}, y[2] = {0, 0};
  xt_tensor ti, to;
  size_t di[2] = {1, 3}, dout[2] = {1, 2};
  xt_tensor_init(&ti, PTE_DTYPE_FLOAT, 2, di, x, sizeof x, PTE_SHAPE_STATIC);
  xt_tensor_init(&to, PTE_DTYPE_FLOAT, 2, dout, y, sizeof y, PTE_SHAPE_STATIC);
  pte_evalue *args[2] = {&ti.ev, &to.ev};
  CHECK_OK(pte_xnn_delegate_execute(d, args, 2, NULL));
  CHECK_NEAR(y[0], 6.5, 0);
  CHECK_NEAR(y[1], 14.5, 0);
  pte_xnn_delegate_destroy(d);
  pte_xnn_blob_free(&blob);
  /* inline mode: constants 16-aligned in the blob's constant region, no named data */
  CHECK_OK(pte_xnn_blob_build_linear(1, 3, 2, w, b, PTE_XNN_CONSTANTS_INLINE, &blob, NULL));
  CHECK_OK(pte_xnn_parse_header(blob.data, blob.size, &h, NULL));
  CHECK_EQ_INT(blob.n_named, 0);
  CHECK_EQ_INT(h.constant_data_size, 48); /* weights at 0 (24 bytes), bias at 32 (8), padded to 48 */
  CHECK(memcmp(blob.data + h.constant_data_offset, w, sizeof w) == 0);
  CHECK(memcmp(blob.data + h.constant_data_offset + 32, b, sizeof b) == 0);
  CHECK_OK(pte_xnn_delegate_init(blob.data, blob.size, NULL, NULL, &d, NULL));
  CHECK_OK(pte_xnn_delegate_execute(d, args, 2, NULL));
  CHECK_NEAR(y[0], 6.5, 0);
  CHECK_NEAR(y[1], 14.5, 0);
  pte_xnn_delegate_destroy(d);
  pte_xnn_blob_free(&blob);
  /* identical weights are stored once */
  const float *ws[2] = {w, w};
  const size_t widths[3] = {3, 2, 2};
  float w2[4] = {1, 2, 3, 4};
  const float *ws2[2] = {w, w2};
  CHECK_OK(pte_xnn_blob_build_mlp(1, 2, widths, ws2, NULL, true, false, PTE_XNN_CONSTANTS_NAMED, &blob, NULL));
  CHECK_EQ_INT(blob.n_named, 2);
  pte_xnn_blob_free(&blob);
  (void)ws;
  /* an MLP checked against the reference */
  const size_t wd[4] = {20, 64, 33, 5};
  float *l0 = rnd(64 * 20, 0.3f), *l1 = rnd(33 * 64, 0.3f), *l2 = rnd(5 * 33, 0.3f);
  float *b0 = rnd(64, 0.1f), *b1 = rnd(33, 0.1f), *b2 = rnd(5, 0.1f);
  const float *lw[3] = {l0, l1, l2}, *lb[3] = {b0, b1, b2};
  CHECK_OK(pte_xnn_blob_build_mlp(6, 3, wd, lw, lb, true, false, PTE_XNN_CONSTANTS_NAMED, &blob, NULL));
  pte_xnn_blob_data_map_init(&map, &blob);
  CHECK(xt_check_blob(blob.data, blob.size, &map.base, NULL, 2, 1e-5, "mlp"));
  pte_xnn_blob_free(&blob);
  free(l0), free(l1), free(l2), free(b0), free(b1), free(b2);
}

/* ---- packed weights ------------------------------------------------------------------------- */

TEST(packed_layout) {
  const pte_xnn_kernels *k = pte_xnn_kernels_scalar(); /* NR = 4 */
  float w[5 * 3], b[5];
  for (int i = 0; i < 15; i++) w[i] = (float)(i + 1); /* W[o][i] = 3 o + i + 1 */
  for (int i = 0; i < 5; i++) b[i] = -(float)i;
  pte_xnn_packed p;
  CHECK_OK(pte_xnn_pack_f32_gemm(k, 5, 3, w, false, b, &p));
  pte_xnn_packed_info info;
  CHECK(pte_xnn_packed_info_get(&p, &info));
  CHECK(memcmp(p.bytes, "XPW1", 4) == 0);
  CHECK_EQ_INT(p.bytes[4] | (p.bytes[5] << 8), 1);  /* version */
  CHECK_EQ_INT(p.bytes[6] | (p.bytes[7] << 8), 64); /* header size */
  CHECK_EQ_INT(info.kind, PTE_XNN_PACK_F32_GEMM);
  CHECK_EQ_INT(info.isa, PTE_XNN_KISA_SCALAR);
  CHECK_EQ_INT(info.nr, 4);
  CHECK_EQ_INT(info.n, 5);
  CHECK_EQ_INT(info.k, 3);
  CHECK_EQ_INT(info.n_panels, 2);
  CHECK_EQ_INT(info.panel_stride, 64); /* (4 + 12) floats = 64 bytes */
  CHECK_EQ_INT(info.total_size, 64 + 2 * 64);
  const float *p0 = (const float *)(p.bytes + 64), *p1 = (const float *)(p.bytes + 128);
  /* panel 0: bias[0..4), then for each k the 4 columns */
  CHECK_NEAR(p0[0], 0, 0);
  CHECK_NEAR(p0[3], -3, 0);
  CHECK_NEAR(p0[4], 1, 0);  /* k0: W[0][0] */
  CHECK_NEAR(p0[5], 4, 0);  /* k0: W[1][0] */
  CHECK_NEAR(p0[7], 10, 0); /* k0: W[3][0] */
  CHECK_NEAR(p0[8], 2, 0);  /* k1: W[0][1] */
  CHECK_NEAR(p0[15], 12, 0);/* k2: W[3][2] */
  /* panel 1: one real column (o = 4), zero padded */
  CHECK_NEAR(p1[0], -4, 0);
  CHECK_NEAR(p1[1], 0, 0);
  CHECK_NEAR(p1[4], 13, 0);
  CHECK_NEAR(p1[5], 0, 0);
  CHECK_NEAR(p1[12], 15, 0);
  /* the transposed source ([K, N]) packs to the same bytes */
  float wt[15];
  for (int o = 0; o < 5; o++)
    for (int i = 0; i < 3; i++) wt[i * 5 + o] = w[o * 3 + i];
  pte_xnn_packed q;
  CHECK_OK(pte_xnn_pack_f32_gemm(k, 5, 3, wt, true, b, &q));
  CHECK_EQ_INT(q.size, p.size);
  CHECK(memcmp(q.bytes, p.bytes, p.size) == 0);
  pte_xnn_packed_free(&q);
  pte_xnn_packed_free(&p);
  /* SIMD layouts use their own panel widths */
  if (pte_xnn_kernels_avx512() && pte_xnnpack_isa_supported(PTE_XNN_ISA_AVX512)) {
    /* narrow outputs (N <= 16) use the 16-wide panels, wider ones the 32-wide panels */
    CHECK_OK(pte_xnn_pack_f32_gemm(pte_xnn_kernels_avx512(), 5, 3, w, false, b, &p));
    CHECK(pte_xnn_packed_info_get(&p, &info));
    CHECK_EQ_INT(info.nr, 16);
    CHECK_EQ_INT(info.isa, PTE_XNN_KISA_AVX512);
    CHECK_EQ_INT(info.panel_stride, (16 + 3 * 16) * 4);
    pte_xnn_packed_free(&p);
    float *wide = (float *)calloc(40 * 3, sizeof(float));
    CHECK_OK(pte_xnn_pack_f32_gemm(pte_xnn_kernels_avx512(), 40, 3, wide, false, NULL, &p));
    CHECK(pte_xnn_packed_info_get(&p, &info));
    CHECK_EQ_INT(info.nr, 32);
    CHECK_EQ_INT(info.n_panels, 2);
    CHECK_EQ_INT(info.panel_stride, (32 + 3 * 32) * 4);
    pte_xnn_packed_free(&p);
    free(wide);
  }
}

/* ---- bad graphs ------------------------------------------------------------------------------- */

static uint8_t *g_blob(g_t *g, pte_xnn_blob *blob) {
  if (pte_xnn_builder_finish(g->b, PTE_XNN_CONSTANTS_INLINE, blob, NULL) != PTE_OK) return NULL;
  pte_xnn_builder_free(g->b);
  return blob->data;
}

/* position of field `slot` of node i's parameter table inside the blob */
static size_t node_field(const uint8_t *blob, uint32_t i, unsigned slot) {
  const uint8_t *fb = blob + 32;
  size_t fbs = xr_ld32(blob + 14);
  pte_fb_table root = pte_fb_root(fb, fbs);
  pte_fb_table node = pte_fb_vec_table(pte_xn_XNNGraph_xnodes(root), i);
  pte_fb_table t = pte_xn_XNode_xnode_union(node);
  uint32_t pos = pte_fb_field_pos(t, slot);
  return pos ? 32 + pos : 0;
}

static pte_status init_status(const pte_xnn_blob *blob, pte_error_info *err) {
  pte_xnn_delegate *d = NULL;
  pte_status s = pte_xnn_delegate_init(blob->data, blob->size, NULL, NULL, &d, err);
  pte_xnn_delegate_destroy(d);
  return s;
}

TEST(bad_graphs) {
  pte_error_info err;
  pte_xnn_blob blob;
  { /* node referencing a value that does not exist */
    g_t g = g_new();
    uint32_t a = IN(&g, 0, 1, 4), b = IN(&g, 1, 1, 4), o = OUT(&g, 2, 1, 4);
    pte_xnn_node_desc n = nd(PTE_XNN_NODE_ADD, a, b, o);
    g_node(&g, &n);
    CHECK(g_blob(&g, &blob));
    size_t pos = node_field(blob.data, 0, pte_xn__XNNNode2x1_input2_id_SLOT);
    CHECK(pos != 0);
    blob.data[pos] = 77;
    CHECK_STATUS(init_status(&blob, &err), PTE_ERR_INVALID_PROGRAM);
    CHECK_CONTAINS(err.msg, "input2_id 77 is not a defined value");
    /* output written twice / reading a value no node produced */
    blob.data[pos] = 2;
    CHECK_STATUS(init_status(&blob, &err), PTE_ERR_INVALID_PROGRAM);
    CHECK_CONTAINS(err.msg, "before any node produces it");
    pte_xnn_blob_free(&blob);
  }
  { /* FC whose filter K does not match the input */
    g_t g = g_new();
    float w[4 * 9] = {0};
    uint32_t a = IN(&g, 0, 2, 2, 8), wv = CONST(&g, w, 2, 4, 9), o = OUT(&g, 1, 2, 2, 4);
    pte_xnn_node_desc n = nd(PTE_XNN_NODE_FULLY_CONNECTED, a, wv, o);
    g_node(&g, &n);
    CHECK(g_blob(&g, &blob));
    CHECK_STATUS(init_status(&blob, &err), PTE_ERR_INVALID_PROGRAM);
    CHECK_CONTAINS(err.msg, "filter K");
    pte_xnn_blob_free(&blob);
  }
  { /* declared output shape differs from the computed one */
    g_t g = g_new();
    uint32_t a = IN(&g, 0, 2, 2, 3), o = OUT(&g, 1, 2, 3, 2);
    pte_xnn_node_desc n = nd(PTE_XNN_NODE_ABS, a, 0, o);
    g_node(&g, &n);
    CHECK(g_blob(&g, &blob));
    CHECK_STATUS(init_status(&blob, &err), PTE_ERR_INVALID_PROGRAM);
    CHECK_CONTAINS(err.msg, "differs from the declared");
    pte_xnn_blob_free(&blob);
  }
  { /* constant region too small for the tensor */
    g_t g = g_new();
    float c[8] = {0};
    uint32_t a = IN(&g, 0, 1, 8), cv = CONST(&g, c, 1, 8), o = OUT(&g, 1, 1, 8);
    pte_xnn_node_desc n = nd(PTE_XNN_NODE_ADD, a, cv, o);
    g_node(&g, &n);
    CHECK(g_blob(&g, &blob));
    pte_xnn_header h;
    CHECK_OK(pte_xnn_parse_header(blob.data, blob.size, &h, NULL));
    blob.data[22] = 16; /* constant_data_size 32 -> 16 */
    CHECK_STATUS(init_status(&blob, &err), PTE_ERR_INVALID_PROGRAM);
    CHECK_CONTAINS(err.msg, "constant");
    pte_xnn_blob_free(&blob);
  }
  { /* unsupported node kind (ArgMaxPooling2d tag 21) */
    g_t g = g_new();
    uint32_t a = IN(&g, 0, 1, 4), o = OUT(&g, 1, 1, 4);
    pte_xnn_node_desc n = nd(PTE_XNN_NODE_ABS, a, 0, o);
    g_node(&g, &n);
    CHECK(g_blob(&g, &blob));
    const uint8_t *fb = blob.data + 32;
    pte_fb_table root = pte_fb_root(fb, xr_ld32(blob.data + 14));
    pte_fb_table node = pte_fb_vec_table(pte_xn_XNNGraph_xnodes(root), 0);
    uint32_t tag_pos = pte_fb_field_pos(node, pte_xn_XNode_xnode_union_type_SLOT);
    CHECK(tag_pos != 0);
    blob.data[32 + tag_pos] = 99; /* unknown to this schema */
    CHECK_STATUS(init_status(&blob, &err), PTE_ERR_NOT_IMPLEMENTED);
    CHECK_CONTAINS(err.msg, "unknown kind 99");
    pte_xnn_blob_free(&blob);
  }
  { /* mismatched dtypes on a data movement node */
    g_t g = g_new();
    uint32_t a = IN(&g, 0, 1, 4);
    uint32_t o = g_val(&g, PTE_XNN_DT_QINT8, PTE_XNN_QUANT_PER_TENSOR, PTE_XNN_VALUE_EXTERNAL_OUTPUT, 1, 1,
                       (const uint32_t[]){4}, NULL, 0.1f, 0);
    static const uint32_t ns[1] = {4};
    pte_xnn_node_desc n = nd(PTE_XNN_NODE_STATIC_RESHAPE, a, 0, o);
    n.num_dims = 1, n.a = ns;
    g_node(&g, &n);
    CHECK(g_blob(&g, &blob));
    CHECK_STATUS(init_status(&blob, &err), PTE_ERR_INVALID_PROGRAM);
    CHECK_CONTAINS(err.msg, "differ");
    pte_xnn_blob_free(&blob);
  }
  { /* per-channel weight whose channel dimension claims 2^31-1 channels but whose scales vector
     * holds 37: refused by the count check (before the scale array for the claimed channels
     * would be allocated: 8 GiB, the fuzz_xnn_blob finding of CI run 21) */
    g_t g = g_new();
    static int8_t w[37 * 53];
    static float cs[37];
    for (size_t i = 0; i < 37; i++) cs[i] = 0.01f;
    uint32_t wd[2] = {37, 53}, x = IN(&g, 0, 2, 3, 53), wv;
    pte_xnn_tensor_desc t;
    memset(&t, 0, sizeof t);
    t.dtype = PTE_XNN_DT_QCINT8, t.rank = 2, t.dims = wd, t.data = w, t.nbytes = sizeof w;
    t.quant = PTE_XNN_QUANT_PER_CHANNEL, t.channel_scales = cs, t.n_channel_scales = 37, t.channel_dim = 0;
    CHECK_OK(pte_xnn_builder_add_tensor(g.b, &t, &wv));
    uint32_t xq = g_val(&g, PTE_XNN_DT_QDINT8, PTE_XNN_QUANT_PER_TOKEN, 0, 0, 2, (const uint32_t[]){3, 53}, NULL, 1, 0);
    uint32_t y = OUT(&g, 1, 2, 3, 37);
    pte_xnn_node_desc n = nd(PTE_XNN_NODE_CONVERT, x, 0, xq);
    g_node(&g, &n);
    n = nd(PTE_XNN_NODE_FULLY_CONNECTED, xq, wv, y);
    g_node(&g, &n);
    CHECK(g_blob(&g, &blob));
    CHECK_OK(init_status(&blob, &err)); /* the unpatched graph is valid */
    /* the weight's dims vector: length 2, then 37, 53 (little-endian uint32) */
    static const uint8_t pat[12] = {2, 0, 0, 0, 37, 0, 0, 0, 53, 0, 0, 0};
    size_t at = 0, hits = 0;
    for (size_t i = 0; i + 12 <= blob.size; i++)
      if (memcmp(blob.data + i, pat, 12) == 0) at = i, hits++;
    CHECK_EQ_INT((int)hits, 1);
    blob.data[at + 4] = 0xff, blob.data[at + 5] = 0xff, blob.data[at + 6] = 0xff, blob.data[at + 7] = 0x7f;
    CHECK_STATUS(init_status(&blob, &err), PTE_ERR_INVALID_PROGRAM);
    CHECK_CONTAINS(err.msg, "37 scales for 2147483647 channels");
    pte_xnn_blob_free(&blob);
  }
}

int main(void) {
  RUN(packed_layout);
  RUN(writer_layout);
  RUN(binary_broadcast);
  RUN(unary_ops);
  RUN(prelu);
  RUN(fully_connected_f32);
  RUN(fully_connected_qs8);
  RUN(fully_connected_qd8);
  RUN(fully_connected_legacy_dq);
  RUN(conv2d_f32);
  RUN(conv2d_quantized);
  RUN(pooling);
  RUN(shape_ops);
  RUN(batch_matmul);
  RUN(dynamic_chain);
  RUN(bad_graphs);
  return test_summary();
}
