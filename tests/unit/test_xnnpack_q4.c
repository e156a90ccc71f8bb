/* XNNPACK backend: FullyConnected with 4-bit weights (qcint4 per channel, qbint4 blockwise with
 * bf16 scales) behind a dynamic int8 (qdint8) Convert, and fp16 / bf16 weights behind fp32
 * activations. Expected values come from a plain double loop in this file that dequantizes the
 * serialized nibbles by the documented rule (weight = nibble - 8, element (n, k) at nibble n*K + k,
 * even nibble low; bf16 scale = upper half of an fp32), never from pte's kernels. Activations are
 * chosen on the 1/128 grid with each row spanning 255/128 (containing 0 or starting there), where
 * XNNPACK's dynamic quantization (scale (max - min) / 255, zero point -128 - min / scale) is
 * exact (scale 2^-7, zero point 0, -64 or -128), so the reference needs no rounding rule. Every ISA x 1 and 2 threads; malformed
 * graphs get specific errors. */
#include <math.h>

#include "../../backends/xnnpack/xnn_internal.h"
#include "test_xnnpack_util.h"

static uint32_t q4_rng = 777u;
static uint32_t q4_next(void) {
  q4_rng = q4_rng * 1103515245u + 12345u;
  return q4_rng >> 8;
}
static float bf16f(uint16_t h) {
  uint32_t u = (uint32_t)h << 16;
  float f;
  memcpy(&f, &u, 4);
  return f;
}
/* IEEE half -> double by the format's definition */
static double f16d(uint16_t h) {
  int s = h >> 15, e = (h >> 10) & 31, m = h & 1023;
  double v = e == 0 ? ldexp((double)m, -24) : ldexp((double)(m + 1024), e - 25);
  return s ? -v : v;
}

static bool q4_zero_scale; /* q4_build: block scale 5 is 0 */
static pte_xnn_constants_mode q4_mode = PTE_XNN_CONSTANTS_NAMED; /* q4_build */
/* q4_build: how the block scales are serialized: 0 bf16 constant (scale_buffer_idx, current
 * exporters), 1 fp32 `scale` list (older exporters; readers round to bf16 the way upstream's
 * runtime does: the fp32 product x * 1.00389105f, upper 16 bits), 2 bf16 in the graph (scale_bf16) */
static int q4_scale_form;
/* q4_build: num_nonbatch_dims of the qdint8 value (rank-3 inputs: 2 = one set of parameters per
 * batch of rows; q4_input doubles the second batch so that the two sets differ) */
static int q4_nonbatch = 1;

typedef struct q4_case {
  int wdt;           /* PTE_XNN_DT_QCINT4 / QBINT4 / FP16 / BF16 */
  uint32_t m, k, n;  /* rows (product of batch dims), K, N */
  uint32_t block;    /* qbint4 */
  bool bias, clamp, rank3;
} q4_case;

typedef struct q4_graph {
  pte_xnn_blob blob;
  uint8_t *w;      /* serialized weight bytes */
  uint16_t *bsc;   /* qbint4 scales (bf16) */
  float *csc;      /* qcint4 scales */
  float *bias;
  uint16_t *hbias; /* fp16 / bf16 bias */
  float lo, hi;
} q4_graph;

static double q4_weight(const q4_case *c, const q4_graph *g, size_t o, size_t i) {
  if (c->wdt == PTE_XNN_DT_FP16 || c->wdt == PTE_XNN_DT_BF16) {
    const uint16_t h = (uint16_t)(g->w[2 * (o * c->k + i)] | (g->w[2 * (o * c->k + i) + 1] << 8));
    return c->wdt == PTE_XNN_DT_FP16 ? f16d(h) : (double)bf16f(h);
  }
  const size_t idx = o * c->k + i;
  const int nib = (idx & 1) ? (g->w[idx >> 1] >> 4) : (g->w[idx >> 1] & 15);
  const double s = c->wdt == PTE_XNN_DT_QCINT4 ? (double)g->csc[o] : (double)bf16f(g->bsc[o * (c->k / c->block) + i / c->block]);
  return (double)(nib - 8) * s;
}

/* Builds the graph: [fp32 x] -> (Convert to qdint8) -> FC -> [fp32 y]. */
static bool q4_build(const q4_case *c, q4_graph *g, uint32_t flags, uint32_t block_override, long scale_count_delta,
                     bool plain_fp32_input) {
  memset(g, 0, sizeof *g);
  const bool half = c->wdt == PTE_XNN_DT_FP16 || c->wdt == PTE_XNN_DT_BF16;
  const size_t wbytes = half ? (size_t)c->n * c->k * 2 : ((size_t)c->n * c->k + 1) / 2;
  g->w = (uint8_t *)malloc(wbytes);
  for (size_t i = 0; i < wbytes; i++) g->w[i] = (uint8_t)q4_next();
  if (half)
    for (size_t i = 0; i < (size_t)c->n * c->k; i++) {
      /* random values of either format in about [-1, 1] */
      uint16_t h = c->wdt == PTE_XNN_DT_FP16 ? (uint16_t)(0x3000 + q4_next() % 0x0C00) : (uint16_t)(0x3C00 + q4_next() % 0x0300);
      h = (uint16_t)(c->wdt == PTE_XNN_DT_FP16 ? h : (0x3E00 + q4_next() % 0x0180));
      if (q4_next() & 1) h |= 0x8000;
      g->w[2 * i] = (uint8_t)h, g->w[2 * i + 1] = (uint8_t)(h >> 8);
    }
  const size_t nbs = c->block ? (size_t)c->n * (c->k / c->block) : 0;
  g->bsc = (uint16_t *)malloc(nbs * 2 + 2);
  for (size_t i = 0; i < nbs; i++) g->bsc[i] = (uint16_t)(0x3B80 + q4_next() % 0x100); /* ~0.004 .. 0.008 */
  if (q4_zero_scale && nbs > 5) g->bsc[5] = 0;
  float *f32s = (float *)malloc(nbs * 4 + 4);
  for (size_t i = 0; i < nbs && q4_scale_form == 1; i++) {
    f32s[i] = 0.004f + 0.004f * (float)(q4_next() % 10007) / 10007.0f; /* not bf16 values */
    const float adj = f32s[i] * 1.00389105f;
    uint32_t bits;
    memcpy(&bits, &adj, 4);
    g->bsc[i] = (uint16_t)(bits >> 16); /* what the reference uses */
  }
  g->csc = (float *)malloc((size_t)c->n * 4);
  for (size_t i = 0; i < c->n; i++) g->csc[i] = 0.002f + 0.0005f * (float)(q4_next() % 16);
  g->bias = (float *)malloc((size_t)c->n * 4);
  g->hbias = (uint16_t *)malloc((size_t)c->n * 2);
  for (size_t i = 0; i < c->n; i++) {
    g->hbias[i] = (uint16_t)((c->wdt == PTE_XNN_DT_FP16 ? 0x3400 : 0x3E80) + q4_next() % 0x80);
    g->bias[i] = c->wdt == PTE_XNN_DT_FP16 ? (float)f16d(g->hbias[i]) : (c->wdt == PTE_XNN_DT_BF16 ? bf16f(g->hbias[i]) : xt_rand());
  }
  g->lo = c->clamp ? -0.05f : -INFINITY;
  g->hi = c->clamp ? 0.05f : INFINITY;

  pte_xnn_builder *b = pte_xnn_builder_new();
  bool ok = b != NULL;
  uint32_t xd3[3] = {2, c->m / 2, c->k}, xd2[2] = {c->m, c->k}, yd3[3] = {2, c->m / 2, c->n}, yd2[2] = {c->m, c->n};
  uint32_t wd[2] = {c->n, c->k}, bd[1] = {c->n};
  pte_xnn_tensor_desc t;
  uint32_t x = 0, xq = 0, w = 0, bv = PTE_XNN_NO_VALUE, y = 0;
  memset(&t, 0, sizeof t);
  t.dtype = PTE_XNN_DT_FP32, t.rank = c->rank3 ? 3 : 2, t.dims = c->rank3 ? xd3 : xd2;
  t.flags = PTE_XNN_VALUE_EXTERNAL_INPUT, t.external_id = 0;
  ok = ok && pte_xnn_builder_add_tensor(b, &t, &x) == PTE_OK;
  if (!half && !plain_fp32_input) {
    memset(&t, 0, sizeof t);
    t.dtype = PTE_XNN_DT_QDINT8, t.rank = c->rank3 ? 3 : 2, t.dims = c->rank3 ? xd3 : xd2;
    t.quant = PTE_XNN_QUANT_PER_TOKEN, t.num_nonbatch_dims = q4_nonbatch;
    ok = ok && pte_xnn_builder_add_tensor(b, &t, &xq) == PTE_OK;
  } else {
    xq = x;
  }
  memset(&t, 0, sizeof t);
  t.dtype = c->wdt, t.rank = 2, t.dims = wd, t.data = g->w, t.nbytes = wbytes;
  if (c->wdt == PTE_XNN_DT_QCINT4)
    t.quant = PTE_XNN_QUANT_PER_CHANNEL, t.channel_scales = g->csc, t.n_channel_scales = c->n, t.channel_dim = 0;
  if (c->wdt == PTE_XNN_DT_QBINT4) {
    t.quant = PTE_XNN_QUANT_PER_CHANNEL_GROUP, t.block_size = block_override ? block_override : c->block;
    t.block_scales_bf16 = q4_scale_form == 1 ? NULL : g->bsc, t.n_block_scales = (size_t)((long)nbs + scale_count_delta);
    t.block_scales_f32 = q4_scale_form == 1 ? f32s : NULL;
    t.block_scales_inline = q4_scale_form == 2;
  }
  ok = ok && pte_xnn_builder_add_tensor(b, &t, &w) == PTE_OK;
  if (c->bias) {
    memset(&t, 0, sizeof t);
    t.dtype = half ? c->wdt : PTE_XNN_DT_FP32, t.rank = 1, t.dims = bd;
    t.data = half ? (const void *)g->hbias : (const void *)g->bias, t.nbytes = (size_t)c->n * (half ? 2 : 4);
    ok = ok && pte_xnn_builder_add_tensor(b, &t, &bv) == PTE_OK;
  }
  memset(&t, 0, sizeof t);
  t.dtype = PTE_XNN_DT_FP32, t.rank = c->rank3 ? 3 : 2, t.dims = c->rank3 ? yd3 : yd2;
  t.flags = PTE_XNN_VALUE_EXTERNAL_OUTPUT, t.external_id = 1;
  ok = ok && pte_xnn_builder_add_tensor(b, &t, &y) == PTE_OK;
  pte_xnn_node_desc nd;
  if (xq != x) {
    memset(&nd, 0, sizeof nd);
    nd.type = PTE_XNN_NODE_CONVERT, nd.inputs[0] = x, nd.output = xq;
    ok = ok && pte_xnn_builder_add_node(b, &nd) == PTE_OK;
  }
  memset(&nd, 0, sizeof nd);
  nd.type = PTE_XNN_NODE_FULLY_CONNECTED, nd.inputs[0] = xq, nd.inputs[1] = w, nd.inputs[2] = bv, nd.output = y;
  nd.flags = flags;
  if (c->clamp) nd.has_min_max = true, nd.out_min = g->lo, nd.out_max = g->hi;
  ok = ok && pte_xnn_builder_add_node(b, &nd) == PTE_OK;
  pte_error_info err;
  ok = ok && pte_xnn_builder_finish(b, q4_mode, &g->blob, &err) == PTE_OK;
  pte_xnn_builder_free(b);
  free(f32s);
  if (!ok) test_fail(__FILE__, __LINE__, "building the 4-bit graph failed");
  return ok;
}

static void q4_free(q4_graph *g) {
  pte_xnn_blob_free(&g->blob);
  free(g->w), free(g->bsc), free(g->csc), free(g->bias), free(g->hbias);
}

/* inputs on the 1/128 grid, each row spanning exactly [-1, 127/128] */
static void q4_input(const q4_case *c, float *x) {
  for (size_t r = 0; r < c->m; r++) {
    /* row r spans [(o - 128) / 128, (o + 127) / 128], o = 0, 64 or 128: the dynamic quantization
     * is exact with scale 2^-7 and zero point -o (so the zero-point terms are exercised) */
    const int o = q4_nonbatch == 1 ? (int)(r % 3) * 64 : 0;
    for (size_t k = 0; k < c->k; k++) x[r * c->k + k] = (float)((int)(q4_next() % 256) - 128 + o) / 128.0f;
    x[r * c->k + (r % c->k)] = (float)(o - 128) / 128.0f;
    x[r * c->k + ((r + 1) % c->k)] = (float)(o + 127) / 128.0f;
    if (q4_nonbatch == 2 && r >= c->m / 2) /* second batch: [-2, 127/64], quantization scale 2^-6, exact */
      for (size_t k = 0; k < c->k; k++) x[r * c->k + k] *= 2.0f;
  }
}

static void q4_reference(const q4_case *c, const q4_graph *g, const float *x, double *ref) {
  for (size_t r = 0; r < c->m; r++)
    for (size_t o = 0; o < c->n; o++) {
      double s = c->bias ? (double)g->bias[o] : 0.0;
      for (size_t i = 0; i < c->k; i++) s += (double)x[r * c->k + i] * q4_weight(c, g, o, i);
      if (c->clamp) s = s < g->lo ? g->lo : (s > g->hi ? g->hi : s);
      ref[r * c->n + o] = s;
    }
}

static bool q4_run(pte_xnn_delegate *d, const q4_case *c, const q4_graph *g, const char *what) {
  float *x = (float *)malloc((size_t)c->m * c->k * 4), *y = (float *)calloc((size_t)c->m * c->n, 4);
  double *ref = (double *)malloc((size_t)c->m * c->n * 8);
  q4_input(c, x);
  q4_reference(c, g, x, ref);
  size_t xd3[3] = {2, c->m / 2, c->k}, xd2[2] = {c->m, c->k}, yd3[3] = {2, c->m / 2, c->n}, yd2[2] = {c->m, c->n};
  xt_tensor tx, ty;
  xt_tensor_init(&tx, PTE_DTYPE_FLOAT, c->rank3 ? 3 : 2, c->rank3 ? xd3 : xd2, x, (size_t)c->m * c->k * 4, PTE_SHAPE_STATIC);
  xt_tensor_init(&ty, PTE_DTYPE_FLOAT, c->rank3 ? 3 : 2, c->rank3 ? yd3 : yd2, y, (size_t)c->m * c->n * 4, PTE_SHAPE_STATIC);
  pte_evalue *args[2] = {&tx.ev, &ty.ev};
  pte_error_info err;
  memset(&err, 0, sizeof err);
  bool ok = true;
  pte_status s = pte_xnn_delegate_execute(d, args, 2, &err);
  if (s != PTE_OK) {
    test_fail(__FILE__, __LINE__, "%s: execute: %s (%s)", what, err.msg, pte_status_name(s));
    ok = false;
  }
  size_t worst = 0;
  /* exact activations: only fp32 rounding of the accumulation and of the block scale products */
  const double w = ok ? xt_compare(y, ref, (size_t)c->m * c->n, 2e-5, &worst) : 0;
  if (ok && w > 1.0) {
    test_fail(__FILE__, __LINE__, "%s: element %zu: %.9g vs reference %.9g (%.3g x tolerance)", what, worst,
              (double)y[worst], ref[worst], w);
    ok = false;
  }
  free(x), free(y), free(ref);
  return ok;
}

static bool q4_check(const q4_case *c) {
  q4_graph g;
  if (!q4_build(c, &g, 0, 0, 0, false)) {
    q4_free(&g);
    return false;
  }
  pte_xnn_blob_data_map map;
  pte_xnn_blob_data_map_init(&map, &g.blob);
  static const pte_xnn_isa isas[] = {PTE_XNN_ISA_SCALAR, PTE_XNN_ISA_AVX2, PTE_XNN_ISA_AVX512};
  bool ok = true;
  int ran = 0;
  for (size_t ii = 0; ok && ii < 3; ii++) {
    if (!pte_xnnpack_isa_supported(isas[ii])) continue;
    for (int th = 1; ok && th <= 2; th++) {
      pte_xnnpack_options o = {th, isas[ii]};
      pte_xnn_delegate *d = NULL;
      pte_error_info err;
      memset(&err, 0, sizeof err);
      char what[160];
      snprintf(what, sizeof what, "%s m=%u k=%u n=%u block=%u [%s, %d thread(s)]", pte_xnn_dtype_name((unsigned)c->wdt),
               c->m, c->k, c->n, c->block, pte_xnnpack_isa_name(isas[ii]), th);
      pte_status s = pte_xnn_delegate_init(g.blob.data, g.blob.size, &map.base, &o, &d, &err);
      if (s != PTE_OK) {
        test_fail(__FILE__, __LINE__, "%s: init: %s (%s)", what, err.msg, pte_status_name(s));
        ok = false;
        break;
      }
      ok = q4_run(d, c, &g, what) && q4_run(d, c, &g, what); /* twice: steady state */
      ran++;
      pte_xnn_delegate_destroy(d);
    }
  }
  if (ran == 0) {
    test_fail(__FILE__, __LINE__, "no ISA ran");
    ok = false;
  }
  q4_free(&g);
  return ok;
}

TEST(fc_qb4w) {
  const q4_case cases[] = {
      {PTE_XNN_DT_QBINT4, 1, 64, 20, 32, true, false, false},    /* decode, partial panel */
      {PTE_XNN_DT_QBINT4, 5, 256, 33, 128, true, false, false},  /* prefill, tail tile */
      {PTE_XNN_DT_QBINT4, 6, 96, 16, 32, false, true, true},     /* rank 3, clamp, no bias */
      {PTE_XNN_DT_QBINT4, 1, 1024, 640, 32, true, false, false}, /* threaded GEMV */
      {PTE_XNN_DT_QBINT4, 9, 512, 300, 64, true, false, false},  /* threaded prefill, panels split */
      {PTE_XNN_DT_QBINT4, 66, 256, 100, 32, true, false, true},  /* threaded prefill, rows split */
      {PTE_XNN_DT_QBINT4, 1, 256, 88, 128, true, false, false},  /* decode: 3 panel pairs, the last partial */
      {PTE_XNN_DT_QBINT4, 1, 96, 40, 32, false, false, false},   /* decode: a pair, then one panel */
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) CHECK(q4_check(&cases[i]));
}

TEST(fc_qb4w_scale_forms) {
  const q4_case c = {PTE_XNN_DT_QBINT4, 3, 128, 24, 32, true, false, false};
  for (int form = 1; form <= 2; form++) {
    q4_scale_form = form;
    CHECK(q4_check(&c));
    q4_scale_form = 0;
  }
  /* one set of activation parameters per batch (num_nonbatch_dims 2 on [2, 3, K]) */
  const q4_case c3 = {PTE_XNN_DT_QBINT4, 6, 128, 24, 32, true, false, true};
  q4_nonbatch = 2;
  CHECK(q4_check(&c3));
  q4_nonbatch = 1;
  /* inline constants (constant region of the blob) */
  q4_mode = PTE_XNN_CONSTANTS_INLINE;
  CHECK(q4_check(&c));
  q4_mode = PTE_XNN_CONSTANTS_NAMED;
}

TEST(fc_qc4w) {
  const q4_case cases[] = {
      {PTE_XNN_DT_QCINT4, 1, 64, 16, 0, true, false, false},
      {PTE_XNN_DT_QCINT4, 3, 38, 17, 0, true, false, false},  /* K % 8 != 0 */
      {PTE_XNN_DT_QCINT4, 1, 38, 40, 0, true, false, false},  /* decode, K % 8 != 0, a pair then one panel */
      {PTE_XNN_DT_QCINT4, 1, 100, 64, 0, false, true, false}, /* decode, K % 32 != 0: block sum tail */
      {PTE_XNN_DT_QCINT4, 8, 200, 40, 0, false, true, true},
      {PTE_XNN_DT_QCINT4, 4, 512, 520, 0, true, false, false}, /* threaded */
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) CHECK(q4_check(&cases[i]));
}

TEST(fc_half_weights) {
  const q4_case cases[] = {
      {PTE_XNN_DT_FP16, 3, 40, 21, 0, true, false, false},
      {PTE_XNN_DT_BF16, 2, 64, 9, 0, true, false, false},
      {PTE_XNN_DT_FP16, 4, 33, 7, 0, false, true, true},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) CHECK(q4_check(&cases[i]));
}

/* ---- malformed graphs ------------------------------------------------------------------------- */
static pte_status q4_init_status(q4_graph *g, size_t trim_named_bytes, pte_error_info *err) {
  if (trim_named_bytes)
    for (size_t i = 0; i < g->blob.n_named; i++)
      if (g->blob.named[i].size > 256) g->blob.named[i].size -= trim_named_bytes; /* the weight bytes */
  pte_xnn_blob_data_map map;
  pte_xnn_blob_data_map_init(&map, &g->blob);
  pte_xnnpack_options o = {1, PTE_XNN_ISA_AUTO};
  pte_xnn_delegate *d = NULL;
  memset(err, 0, sizeof *err);
  pte_status s = pte_xnn_delegate_init(g->blob.data, g->blob.size, &map.base, &o, &d, err);
  if (d) pte_xnn_delegate_destroy(d);
  return s;
}

TEST(fc_q4_malformed) {
  const q4_case qb = {PTE_XNN_DT_QBINT4, 2, 192, 24, 64, true, false, false};
  q4_graph g;
  pte_error_info err;
  /* block size not a multiple of 32 */
  CHECK(q4_build(&qb, &g, 0, 48, 0, false));
  CHECK_STATUS(q4_init_status(&g, 0, &err), PTE_ERR_INVALID_PROGRAM);
  CHECK_CONTAINS(err.msg, "block size 48 is not a positive multiple of 32");
  q4_free(&g);
  /* block size that does not divide K */
  CHECK(q4_build(&qb, &g, 0, 128, 0, false));
  CHECK_STATUS(q4_init_status(&g, 0, &err), PTE_ERR_INVALID_PROGRAM);
  CHECK_CONTAINS(err.msg, "block size 128 does not divide K = 192");
  q4_free(&g);
  /* scale count */
  CHECK(q4_build(&qb, &g, 0, 0, -1, false));
  CHECK_STATUS(q4_init_status(&g, 0, &err), PTE_ERR_INVALID_PROGRAM);
  CHECK_CONTAINS(err.msg, "num_scales 71, 72 blocks");
  q4_free(&g);
  /* the same count error in the older serialized forms */
  q4_scale_form = 1;
  CHECK(q4_build(&qb, &g, 0, 0, 1, false));
  CHECK_STATUS(q4_init_status(&g, 0, &err), PTE_ERR_INVALID_PROGRAM);
  CHECK_CONTAINS(err.msg, "73 scales, 72 blocks (N 24 x K 192 / 64)");
  q4_free(&g);
  q4_scale_form = 2;
  CHECK(q4_build(&qb, &g, 0, 0, -2, false));
  CHECK_STATUS(q4_init_status(&g, 0, &err), PTE_ERR_INVALID_PROGRAM);
  CHECK_CONTAINS(err.msg, "70 bf16 scales, 72 blocks");
  q4_free(&g);
  q4_scale_form = 0;
  /* nibble bytes: one byte short of N * K / 2 */
  CHECK(q4_build(&qb, &g, 0, 0, 0, false));
  CHECK_STATUS(q4_init_status(&g, 1, &err), PTE_ERR_INVALID_PROGRAM);
  CHECK_CONTAINS(err.msg, "2303 bytes, 2304 needed");
  q4_free(&g);
  /* a zero block scale */
  q4_zero_scale = true;
  CHECK(q4_build(&qb, &g, 0, 0, 0, false));
  q4_zero_scale = false;
  CHECK_STATUS(q4_init_status(&g, 0, &err), PTE_ERR_INVALID_PROGRAM);
  CHECK_CONTAINS(err.msg, "block scale 5 (bf16 bits 0x0) is not finite, normal and positive");
  q4_free(&g);
  /* transposed 4-bit filter */
  CHECK(q4_build(&qb, &g, PTE_XNN_FLAG_TRANSPOSE_WEIGHTS, 0, 0, false));
  CHECK_STATUS(q4_init_status(&g, 0, &err), PTE_ERR_NOT_IMPLEMENTED);
  CHECK_CONTAINS(err.msg, "transposed qbint4 filter");
  q4_free(&g);
  /* fp32 activations straight into a 4-bit filter */
  CHECK(q4_build(&qb, &g, 0, 0, 0, true));
  CHECK_STATUS(q4_init_status(&g, 0, &err), PTE_ERR_NOT_IMPLEMENTED);
  CHECK_CONTAINS(err.msg, "input fp32, filter qbint4");
  q4_free(&g);
  /* qcint4 with an odd K is refused by the writer (it cannot hold whole rows) */
  {
    pte_xnn_builder *b = pte_xnn_builder_new();
    uint32_t wd[2] = {4, 7}, id;
    uint8_t bytes[14] = {0};
    float cs[4] = {1, 1, 1, 1};
    pte_xnn_tensor_desc t;
    memset(&t, 0, sizeof t);
    t.dtype = PTE_XNN_DT_QCINT4, t.rank = 2, t.dims = wd, t.data = bytes, t.nbytes = 14;
    t.quant = PTE_XNN_QUANT_PER_CHANNEL, t.channel_scales = cs, t.n_channel_scales = 4;
    CHECK_STATUS(pte_xnn_builder_add_tensor(b, &t, &id), PTE_ERR_INVALID_ARGUMENT);
    pte_xnn_builder_free(b);
  }
}

/* Fuzz seeds (tests/fuzz/run.sh): raw inline-constant blobs with a qbint4 and a qcint4 FC (the
 * fuzz target compiles raw blobs without named data). */
static int write_seeds(const char *dir) {
  const q4_case cs[2] = {{PTE_XNN_DT_QBINT4, 2, 64, 16, 32, true, false, false},
                         {PTE_XNN_DT_QCINT4, 1, 8, 8, 0, true, true, false}}; /* [1, 8]: what the target feeds */
  q4_mode = PTE_XNN_CONSTANTS_INLINE;
  int rc = 0;
  for (int i = 0; i < 2 && rc == 0; i++) {
    q4_graph g;
    if (!q4_build(&cs[i], &g, 0, 0, 0, false)) rc = 1;
    char path[512];
    snprintf(path, sizeof path, "%s/xnn_q4_%d.bin", dir, i);
    if (rc == 0 && test_write_file(path, g.blob.data, g.blob.size) != 0) rc = 1;
    pte_xnnpack_options o = {1, PTE_XNN_ISA_AUTO};
    pte_xnn_delegate *d = NULL;
    pte_error_info err;
    if (rc == 0 && pte_xnn_delegate_init(g.blob.data, g.blob.size, NULL, &o, &d, &err) != PTE_OK) {
      fprintf(stderr, "seed %d does not compile: %s\n", i, err.msg);
      rc = 1;
    }
    if (d) pte_xnn_delegate_destroy(d);
    q4_free(&g);
  }
  return rc;
}

/* the 8da4w weight quantizer, values derived by hand */
TEST(quantize_qb4w) {
  float w[2 * 64];
  for (int i = 0; i < 32; i++) w[i] = (float)(i - 16) * 0.5f; /* -8 .. 7.5: scale 8 / 7.5 */
  for (int i = 32; i < 64; i++) w[i] = 0.0f;                 /* all zero: scale FLT_EPSILON */
  static const float ties[6] = {7.5f, 2.5f, 1.5f, 0.5f, -0.5f, -2.5f}; /* scale exactly 1 */
  for (int i = 64; i < 96; i++) w[i] = i - 64 < 6 ? ties[i - 64] : 0.0f;
  for (int i = 96; i < 128; i++) w[i] = (i % 2) ? 3.0f : -1.5f; /* scale 0.4 */
  uint8_t nib[64];
  uint16_t sc[4];
  CHECK_OK(pte_xnn_quantize_qb4w(w, 2, 64, 32, nib, sc));
  /* 8 / 7.5 = 1.06666672 in fp32 (0x3F888889) -> bf16 0x3F89 (rounded up); FLT_EPSILON 0x34000000
   * -> 0x3400; 1 -> 0x3F80; 3 / 7.5 = 0.4 (0x3ECCCCCD) -> 0x3ECD */
  CHECK_EQ_INT(sc[0], 0x3F89);
  CHECK_EQ_INT(sc[1], 0x3400);
  CHECK_EQ_INT(sc[2], 0x3F80);
  CHECK_EQ_INT(sc[3], 0x3ECD);
  /* block 0: w / 1.06666672 = (i - 16) * 0.46874998: -7.4999996 -> -7, -6.5624997 -> -7,
   * -5.6249997 -> -6, ..., 6.5625 -> 7, 7.03 -> 7 (no ties); stored q + 8, element i at nibble i */
  static const int want[32] = {1, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8,
                               8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13, 14, 14, 15, 15};
  for (int i = 0; i < 32; i++) {
    const int got = (i & 1) ? nib[i / 2] >> 4 : nib[i / 2] & 15;
    CHECK_MSG(got == want[i], "element %d: nibble %d, expected %d", i, got, want[i]);
  }
  for (int i = 16; i < 32; i++) CHECK_EQ_INT(nib[i], 0x88);
  /* ties to even: 7.5 -> 8 -> clamped 7, 2.5 -> 2, 1.5 -> 2, 0.5 -> 0, -0.5 -> 0, -2.5 -> -2 */
  CHECK_EQ_INT(nib[32], 0xAF);
  CHECK_EQ_INT(nib[33], 0x8A);
  CHECK_EQ_INT(nib[34], 0x68);
  /* -1.5 / 0.4 = -3.75 -> -4, 3 / 0.4 = 7.5 -> 8 -> clamped 7 */
  for (int i = 48; i < 64; i++) CHECK_EQ_INT(nib[i], 0xF4);
  CHECK_STATUS(pte_xnn_quantize_qb4w(w, 2, 64, 48, nib, sc), PTE_ERR_INVALID_ARGUMENT);
}

int main(int argc, char **argv) {
  if (argc == 3 && strcmp(argv[1], "--write-seeds") == 0) return write_seeds(argv[2]);
  RUN(fc_qb4w);
  RUN(fc_qb4w_scale_forms);
  RUN(fc_qc4w);
  RUN(fc_half_weights);
  RUN(fc_q4_malformed);
  RUN(quantize_qb4w);
  return test_summary();
}
