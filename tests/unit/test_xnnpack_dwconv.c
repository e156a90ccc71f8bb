/* XNNPACK backend: fp32, qs8 and qd8 depthwise convolution, qs8 pointwise convolution.
 * fp32 depthwise convolution (multiplier 1: the multi-pixel per-ISA kernels,
 * 3x3 and 5x5 specialisations, border pixels over their valid taps) against a naive double-
 * precision convolution written here, over kernel 3x3 / 5x5 / 1x3 / 3x1, stride 1 and 2,
 * padding 0..2 (asymmetric too), dilation 1 and 2, channel counts around the vector widths,
 * a fused clamp, every ISA this CPU runs, 1 and 2 threads.
 * The same grid for static int8 (qs8: qint8 input/output, per-channel or per-tensor int8
 * weights, int32 bias), compared EXACTLY with an integer reference written here from the
 * requantization rule of XNNPACK's fp32 requantization: acc = bias + sum (x - zx) * w over the
 * taps inside the input (int64), y = lrint(clamp((float)acc * (float)(sx * sw / sy),
 * qmin - zy, qmax - zy)) + zy. The scales are powers of two times small odd integers, so the
 * requantization scale is exact whichever precision computes it. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pte/backend_xnnpack.h"
#include "test.h"
#include "test_xnnpack_util.h"

typedef struct dw_case {
  uint32_t h, w, c, kh, kw, sh, sw, dh, dw, pt, pr, pb, pl;
  float lo, hi;
} dw_case;

/* ---- shared set-up of the four families ---- */

static void dw_out_hw(const dw_case *k, uint32_t *oh, uint32_t *ow) {
  *oh = (k->h + k->pt + k->pb - (k->dh * (k->kh - 1) + 1)) / k->sh + 1;
  *ow = (k->w + k->pl + k->pr - (k->dw * (k->kw - 1) + 1)) / k->sw + 1;
}

static void dw_describe(const dw_case *k, char *buf, size_t cap) {
  snprintf(buf, cap, "%ux%u c%u k%ux%u s%u,%u d%u,%u pad %u,%u,%u,%u", k->h, k->w, k->c, k->kh, k->kw, k->sh, k->sw,
           k->dh, k->dw, k->pt, k->pr, k->pb, k->pl);
}

/* The DEPTHWISE_CONV2D node of case k (multiplier 1): x, w, b -> y, output clamp [lo, hi] when
 * has_clamp (else +-infinity). */
static void dw_add_node(pte_xnn_builder *b, const dw_case *k, uint32_t x, uint32_t w, uint32_t bias, uint32_t y,
                        bool has_clamp, float lo, float hi) {
  pte_xnn_node_desc nd;
  memset(&nd, 0, sizeof nd);
  nd.type = PTE_XNN_NODE_DEPTHWISE_CONV2D;
  nd.inputs[0] = x, nd.inputs[1] = w, nd.inputs[2] = bias, nd.output = y;
  nd.padding[0] = k->pt, nd.padding[1] = k->pr, nd.padding[2] = k->pb, nd.padding[3] = k->pl;
  nd.kernel[0] = k->kh, nd.kernel[1] = k->kw, nd.stride[0] = k->sh, nd.stride[1] = k->sw;
  nd.dilation[0] = k->dh, nd.dilation[1] = k->dw;
  nd.groups = k->c, nd.group_input_channels = 1, nd.group_output_channels = 1;
  nd.has_min_max = has_clamp, nd.out_min = has_clamp ? lo : -INFINITY, nd.out_max = has_clamp ? hi : INFINITY;
  pte_xnn_builder_add_node(b, &nd);
}

/* One output to judge: `what` names the case; y / ref hold n elements. */
typedef struct dw_out {
  char what[192];
  const void *y, *ref;
  size_t n;
} dw_out;
typedef void (*dw_check_fn)(const dw_out *o, pte_xnn_isa isa, int threads);

/* fp32 output against a double reference, relative tolerance 1e-5. */
static void dw_check_near(const dw_out *o, pte_xnn_isa isa, int threads) {
  const float *y = (const float *)o->y;
  const double *ref = (const double *)o->ref;
  for (size_t q = 0; q < o->n; q++)
    CHECK_MSG(fabs((double)y[q] - ref[q]) <= 1e-5 * (1.0 + fabs(ref[q])), "%s isa %s threads %d: out[%zu] %.7g vs %.7g",
              o->what, pte_xnnpack_isa_name(isa), threads, q, (double)y[q], ref[q]);
}

/* int8 output, exact. */
static void dw_check_i8(const dw_out *o, pte_xnn_isa isa, int threads) {
  const int8_t *y = (const int8_t *)o->y, *ref = (const int8_t *)o->ref;
  size_t bad = 0, first = 0;
  for (size_t q = 0; q < o->n; q++)
    if (y[q] != ref[q] && bad++ == 0) first = q;
  CHECK_MSG(bad == 0, "%s isa %s threads %d: %zu of %zu differ, out[%zu] %d vs %d", o->what,
            pte_xnnpack_isa_name(isa), threads, bad, o->n, first, y[first], ref[first]);
}

/* fp32 output, exact (bit-equal values; NaN never matches). */
static void dw_check_f32_exact(const dw_out *o, pte_xnn_isa isa, int threads) {
  const float *y = (const float *)o->y, *ref = (const float *)o->ref;
  size_t bad = 0, first = 0;
  for (size_t q = 0; q < o->n; q++)
    if (!(y[q] == ref[q]) && bad++ == 0) first = q;
  CHECK_MSG(bad == 0, "%s isa %s threads %d: %zu of %zu differ, out[%zu] %.9g vs %.9g", o->what,
            pte_xnnpack_isa_name(isa), threads, bad, o->n, first, (double)y[first], (double)ref[first]);
}

/* Finishes builder b (freed here) and runs the blob (input 0: x, output 1: y, both 4-d of dtype)
 * once per supported ISA x {1, 2} threads, the output poisoned with 0xff bytes first (a NaN for
 * floats, -1 for int8) so unwritten elements show, then check() judges it. */
static void dw_build_and_run(pte_xnn_builder *b, int dtype, const size_t sin[4], void *x, size_t xbytes,
                             const size_t sout[4], void *y, size_t ybytes, dw_check_fn check, const dw_out *o) {
  pte_xnn_blob blob;
  pte_error_info err;
  pte_status s = pte_xnn_builder_finish(b, PTE_XNN_CONSTANTS_INLINE, &blob, &err);
  pte_xnn_builder_free(b);
  CHECK_OK(s);
  for (size_t i = 0; i < sizeof k_isas / sizeof k_isas[0] && !test_current_failed; i++) {
    if (!pte_xnnpack_isa_supported(k_isas[i])) continue;
    for (int threads = 1; threads <= 2 && !test_current_failed; threads++) {
      pte_xnnpack_options opt = {threads, k_isas[i]};
      pte_xnn_delegate *d = NULL;
      s = pte_xnn_delegate_init(blob.data, blob.size, NULL, &opt, &d, &err);
      CHECK_MSG(s == PTE_OK && d, "%s: init failed: %s", o->what, err.msg);
      xt_tensor ti, to;
      xt_tensor_init(&ti, dtype, 4, sin, x, xbytes, 0);
      xt_tensor_init(&to, dtype, 4, sout, y, ybytes, 0);
      pte_evalue *args[2] = {&ti.ev, &to.ev};
      memset(y, 0xff, ybytes);
      s = pte_xnn_delegate_execute(d, args, 2, &err);
      pte_xnn_delegate_destroy(d);
      CHECK_MSG(s == PTE_OK, "%s: execute failed: %s", o->what, err.msg);
      check(o, k_isas[i], threads);
    }
  }
  pte_xnn_blob_free(&blob);
}

static void dw_run(const dw_case *k) {
  uint32_t oh, ow;
  dw_out_hw(k, &oh, &ow);
  const size_t nin = (size_t)k->h * k->w * k->c, nw = (size_t)k->kh * k->kw * k->c, nout = (size_t)oh * ow * k->c;
  float *x = (float *)malloc(nin * 4), *wt = (float *)malloc(nw * 4), *bias = (float *)malloc(k->c * 4);
  float *y = (float *)malloc(nout * 4);
  double *ref = (double *)malloc(nout * sizeof(double));
  xt_fill(x, nin, 1.0f);
  xt_fill(wt, nw, 0.5f);
  xt_fill(bias, k->c, 0.2f);
  /* reference: NHWC input, filter [1, KH, KW, C] */
  for (uint32_t oy = 0; oy < oh; oy++)
    for (uint32_t ox = 0; ox < ow; ox++)
      for (uint32_t ch = 0; ch < k->c; ch++) {
        double acc = bias[ch];
        for (uint32_t ky = 0; ky < k->kh; ky++)
          for (uint32_t kx = 0; kx < k->kw; kx++) {
            const long iy = (long)(oy * k->sh + ky * k->dh) - (long)k->pt;
            const long ix = (long)(ox * k->sw + kx * k->dw) - (long)k->pl;
            if (iy < 0 || ix < 0 || iy >= (long)k->h || ix >= (long)k->w) continue;
            acc += (double)x[((size_t)iy * k->w + (size_t)ix) * k->c + ch] * (double)wt[(ky * k->kw + kx) * k->c + ch];
          }
        ref[((size_t)oy * ow + ox) * k->c + ch] = acc < k->lo ? k->lo : (acc > k->hi ? k->hi : acc);
      }
  pte_xnn_builder *b = pte_xnn_builder_new();
  uint32_t din[4] = {1, k->h, k->w, k->c}, dwd[4] = {1, k->kh, k->kw, k->c}, db[1] = {k->c}, dout[4] = {1, oh, ow, k->c};
  pte_xnn_tensor_desc t;
  uint32_t id_x, id_w, id_b, id_y;
  memset(&t, 0, sizeof t);
  t.dtype = PTE_XNN_DT_FP32;
  t.rank = 4, t.dims = din, t.flags = PTE_XNN_VALUE_EXTERNAL_INPUT, t.external_id = 0;
  pte_xnn_builder_add_tensor(b, &t, &id_x);
  t.flags = 0, t.dims = dwd, t.data = wt, t.nbytes = nw * 4;
  pte_xnn_builder_add_tensor(b, &t, &id_w);
  t.rank = 1, t.dims = db, t.data = bias, t.nbytes = k->c * 4;
  pte_xnn_builder_add_tensor(b, &t, &id_b);
  t.rank = 4, t.dims = dout, t.data = NULL, t.nbytes = 0, t.flags = PTE_XNN_VALUE_EXTERNAL_OUTPUT, t.external_id = 1;
  pte_xnn_builder_add_tensor(b, &t, &id_y);
  dw_add_node(b, k, id_x, id_w, id_b, id_y, true, k->lo, k->hi);
  dw_out o = {"", y, ref, nout};
  dw_describe(k, o.what, sizeof o.what);
  size_t sin[4] = {1, k->h, k->w, k->c}, sout[4] = {1, oh, ow, k->c};
  dw_build_and_run(b, PTE_DTYPE_FLOAT, sin, x, nin * 4, sout, y, nout * 4, dw_check_near, &o);
  free(x);
  free(wt);
  free(bias);
  free(y);
  free(ref);
}

TEST(depthwise_f32_vs_naive) {
  static const uint32_t chans[] = {1, 5, 8, 16, 17, 37};
  static const uint32_t ks[][2] = {{3, 3}, {5, 5}, {1, 3}, {3, 1}};
  size_t cases = 0;
  for (size_t ci = 0; ci < sizeof chans / sizeof chans[0]; ci++)
    for (size_t ki = 0; ki < 4; ki++)
      for (uint32_t st = 1; st <= 2; st++)
        for (uint32_t pad = 0; pad <= 2; pad++)
          for (uint32_t dil = 1; dil <= 2; dil++) {
            dw_case k = {11, 13, chans[ci], ks[ki][0], ks[ki][1], st, st, dil, dil, pad, pad, pad, pad,
                         -INFINITY, INFINITY};
            if (dil == 2 && pad == 1) k.pr = 0, k.pt = 2; /* asymmetric */
            if (ci % 2) k.lo = -0.3f, k.hi = 0.4f;
            dw_run(&k);
            if (test_current_failed) return;
            cases++;
          }
  CHECK(cases == 6 * 4 * 2 * 3 * 2);
  /* rows and widths smaller than the kernel span: every pixel a border pixel */
  dw_case tiny = {2, 3, 16, 5, 5, 1, 1, 1, 1, 2, 2, 2, 2, -INFINITY, INFINITY};
  dw_run(&tiny);
}

static uint32_t q_state = 12345u;
static int32_t q_bias_abs = 3000; /* bias values in [-q_bias_abs, q_bias_abs] */
static int32_t q_rand(int32_t lo, int32_t hi) { /* uniform integer in [lo, hi] */
  q_state = q_state * 1664525u + 1013904223u;
  const uint64_t range = (uint64_t)((int64_t)hi - (int64_t)lo + 1);
  const uint64_t r = (((uint64_t)q_state << 24) ^ (q_state >> 8)) % range;
  return (int32_t)((int64_t)lo + (int64_t)r);
}

/* qs8 depthwise case; per_tensor: QINT8 weights with one scale (else QCINT8 per channel);
 * clamp: fused output clamp [-1, 6] (quantized bounds exact with sy = 1/8). */
static void dwq_run(const dw_case *k, bool per_tensor, bool clamp) {
  uint32_t oh, ow;
  dw_out_hw(k, &oh, &ow);
  const size_t nin = (size_t)k->h * k->w * k->c, nw = (size_t)k->kh * k->kw * k->c, nout = (size_t)oh * ow * k->c;
  int8_t *x = (int8_t *)malloc(nin), *wt = (int8_t *)malloc(nw), *y = (int8_t *)malloc(nout), *ref = (int8_t *)malloc(nout);
  int32_t *bias = (int32_t *)malloc(k->c * 4);
  float *ws = (float *)malloc(k->c * 4), *bs = (float *)malloc(k->c * 4);
  const float sx = 0.5f, sy = 0.125f;
  const int32_t zx = 3, zy = -2;
  for (size_t i = 0; i < nin; i++) x[i] = (int8_t)q_rand(-128, 127);
  for (size_t i = 0; i < nw; i++) wt[i] = (int8_t)q_rand(-127, 127);
  for (uint32_t ch = 0; ch < k->c; ch++) {
    bias[ch] = q_rand(-q_bias_abs, q_bias_abs);
    ws[ch] = per_tensor ? 3.0f / 4096.0f : (float)(1 + 2 * (ch % 3)) / 4096.0f;
    bs[ch] = sx * ws[ch];
  }
  const int32_t qmin = clamp ? zy - 8 : -128, qmax = clamp ? zy + 48 : 127; /* -1 / sy, 6 / sy */
  for (uint32_t oy = 0; oy < oh; oy++)
    for (uint32_t ox = 0; ox < ow; ox++)
      for (uint32_t ch = 0; ch < k->c; ch++) {
        int64_t acc = bias[ch];
        for (uint32_t ky = 0; ky < k->kh; ky++)
          for (uint32_t kx = 0; kx < k->kw; kx++) {
            const long iy = (long)(oy * k->sh + ky * k->dh) - (long)k->pt;
            const long ix = (long)(ox * k->sw + kx * k->dw) - (long)k->pl;
            if (iy < 0 || ix < 0 || iy >= (long)k->h || ix >= (long)k->w) continue;
            acc += ((int64_t)x[((size_t)iy * k->w + (size_t)ix) * k->c + ch] - zx) *
                   (int64_t)wt[(ky * k->kw + kx) * k->c + ch];
          }
        float v = (float)acc * (float)((double)sx * (double)ws[ch] / (double)sy);
        const float lo = (float)(qmin - zy), hi = (float)(qmax - zy);
        v = v < lo ? lo : (v > hi ? hi : v);
        ref[((size_t)oy * ow + ox) * k->c + ch] = (int8_t)(lrintf(v) + zy);
      }
  pte_xnn_builder *b = pte_xnn_builder_new();
  uint32_t din[4] = {1, k->h, k->w, k->c}, dwd[4] = {1, k->kh, k->kw, k->c}, db[1] = {k->c}, dout[4] = {1, oh, ow, k->c};
  pte_xnn_tensor_desc t;
  uint32_t id_x, id_w, id_b, id_y;
  memset(&t, 0, sizeof t);
  t.dtype = PTE_XNN_DT_QINT8, t.quant = PTE_XNN_QUANT_PER_TENSOR, t.scale = sx, t.zero_point = zx;
  t.rank = 4, t.dims = din, t.flags = PTE_XNN_VALUE_EXTERNAL_INPUT, t.external_id = 0;
  pte_xnn_builder_add_tensor(b, &t, &id_x);
  memset(&t, 0, sizeof t);
  t.rank = 4, t.dims = dwd, t.data = wt, t.nbytes = nw;
  if (per_tensor) {
    t.dtype = PTE_XNN_DT_QINT8, t.quant = PTE_XNN_QUANT_PER_TENSOR, t.scale = ws[0];
  } else {
    t.dtype = PTE_XNN_DT_QCINT8, t.quant = PTE_XNN_QUANT_PER_CHANNEL, t.channel_scales = ws;
    t.n_channel_scales = k->c, t.channel_dim = 3;
  }
  pte_xnn_builder_add_tensor(b, &t, &id_w);
  memset(&t, 0, sizeof t);
  t.rank = 1, t.dims = db, t.data = bias, t.nbytes = k->c * 4;
  if (per_tensor) {
    t.dtype = PTE_XNN_DT_QINT32, t.quant = PTE_XNN_QUANT_PER_TENSOR, t.scale = bs[0];
  } else {
    t.dtype = PTE_XNN_DT_QCINT32, t.quant = PTE_XNN_QUANT_PER_CHANNEL, t.channel_scales = bs;
    t.n_channel_scales = k->c, t.channel_dim = 0;
  }
  pte_xnn_builder_add_tensor(b, &t, &id_b);
  memset(&t, 0, sizeof t);
  t.dtype = PTE_XNN_DT_QINT8, t.quant = PTE_XNN_QUANT_PER_TENSOR, t.scale = sy, t.zero_point = zy;
  t.rank = 4, t.dims = dout, t.flags = PTE_XNN_VALUE_EXTERNAL_OUTPUT, t.external_id = 1;
  pte_xnn_builder_add_tensor(b, &t, &id_y);
  dw_add_node(b, k, id_x, id_w, id_b, id_y, clamp, -1.0f, 6.0f);
  dw_out o = {"", y, ref, nout};
  char desc[128];
  dw_describe(k, desc, sizeof desc);
  snprintf(o.what, sizeof o.what, "qs8 %s %s%s", desc, per_tensor ? "per-tensor" : "per-channel", clamp ? " clamp" : "");
  size_t sin[4] = {1, k->h, k->w, k->c}, sout[4] = {1, oh, ow, k->c};
  dw_build_and_run(b, PTE_DTYPE_CHAR, sin, x, nin, sout, y, nout, dw_check_i8, &o);
  free(x);
  free(wt);
  free(y);
  free(ref);
  free(bias);
  free(ws);
  free(bs);
}

TEST(depthwise_qs8_vs_integer_reference) {
  static const uint32_t chans[] = {1, 5, 16, 17, 37, 64};
  static const uint32_t ks[][2] = {{3, 3}, {5, 5}, {1, 3}, {3, 1}};
  size_t cases = 0;
  for (size_t ci = 0; ci < sizeof chans / sizeof chans[0]; ci++)
    for (size_t ki = 0; ki < 4; ki++)
      for (uint32_t st = 1; st <= 2; st++)
        for (uint32_t pad = 0; pad <= 2; pad++)
          for (uint32_t dil = 1; dil <= 2; dil++) {
            dw_case k = {11, 13, chans[ci], ks[ki][0], ks[ki][1], st, st, dil, dil, pad, pad, pad, pad, 0, 0};
            if (dil == 2 && pad == 1) k.pr = 0, k.pt = 2; /* asymmetric */
            dwq_run(&k, ci == 3 && pad == 0, ci % 2 == 1);
            if (test_current_failed) return;
            cases++;
          }
  CHECK(cases == 6 * 4 * 2 * 3 * 2);
  dw_case tiny = {2, 3, 16, 5, 5, 1, 1, 1, 1, 2, 2, 2, 2, 0, 0};
  dwq_run(&tiny, false, false);
  /* a bias so large that the int32 accumulator could overflow: the generic (int64) path, same rule */
  dw_case big = {5, 6, 17, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0};
  q_bias_abs = 2147000000;
  dwq_run(&big, false, false);
  q_bias_abs = 3000;
}

/* qs8 pointwise (1x1) convolution, the GEMM path with the vector requantization epilogue: exact
 * against the same integer rule (acc = bias + sum_ic (x - zx) * w). */
static void pwq_run(uint32_t h, uint32_t w, uint32_t cin, uint32_t cout, int32_t bias_abs) {
  const size_t nin = (size_t)h * w * cin, nw = (size_t)cout * cin, nout = (size_t)h * w * cout;
  int8_t *x = (int8_t *)malloc(nin), *wt = (int8_t *)malloc(nw), *y = (int8_t *)malloc(nout), *ref = (int8_t *)malloc(nout);
  int32_t *bias = (int32_t *)malloc(cout * 4);
  float *ws = (float *)malloc(cout * 4), *bs = (float *)malloc(cout * 4);
  const float sx = 0.25f, sy = 0.5f;
  const int32_t zx = -5, zy = 7;
  for (size_t i = 0; i < nin; i++) x[i] = (int8_t)q_rand(-128, 127);
  for (size_t i = 0; i < nw; i++) wt[i] = (int8_t)q_rand(-127, 127);
  for (uint32_t o = 0; o < cout; o++) {
    bias[o] = q_rand(-bias_abs, bias_abs);
    ws[o] = (float)(1 + 2 * (o % 5)) / 8192.0f;
    bs[o] = sx * ws[o];
  }
  for (size_t px = 0; px < (size_t)h * w; px++)
    for (uint32_t o = 0; o < cout; o++) {
      int64_t acc = bias[o];
      for (uint32_t i = 0; i < cin; i++) acc += ((int64_t)x[px * cin + i] - zx) * (int64_t)wt[(size_t)o * cin + i];
      float v = (float)acc * (float)((double)sx * (double)ws[o] / (double)sy);
      const float lo = (float)(-128 - zy), hi = (float)(127 - zy);
      v = v < lo ? lo : (v > hi ? hi : v);
      ref[px * cout + o] = (int8_t)(lrintf(v) + zy);
    }
  pte_xnn_builder *b = pte_xnn_builder_new();
  uint32_t din[4] = {1, h, w, cin}, dwd[4] = {cout, 1, 1, cin}, db[1] = {cout}, dout[4] = {1, h, w, cout};
  pte_xnn_tensor_desc t;
  uint32_t id_x, id_w, id_b, id_y;
  memset(&t, 0, sizeof t);
  t.dtype = PTE_XNN_DT_QINT8, t.quant = PTE_XNN_QUANT_PER_TENSOR, t.scale = sx, t.zero_point = zx;
  t.rank = 4, t.dims = din, t.flags = PTE_XNN_VALUE_EXTERNAL_INPUT, t.external_id = 0;
  pte_xnn_builder_add_tensor(b, &t, &id_x);
  memset(&t, 0, sizeof t);
  t.rank = 4, t.dims = dwd, t.data = wt, t.nbytes = nw;
  t.dtype = PTE_XNN_DT_QCINT8, t.quant = PTE_XNN_QUANT_PER_CHANNEL, t.channel_scales = ws;
  t.n_channel_scales = cout, t.channel_dim = 0;
  pte_xnn_builder_add_tensor(b, &t, &id_w);
  memset(&t, 0, sizeof t);
  t.rank = 1, t.dims = db, t.data = bias, t.nbytes = cout * 4;
  t.dtype = PTE_XNN_DT_QCINT32, t.quant = PTE_XNN_QUANT_PER_CHANNEL, t.channel_scales = bs;
  t.n_channel_scales = cout, t.channel_dim = 0;
  pte_xnn_builder_add_tensor(b, &t, &id_b);
  memset(&t, 0, sizeof t);
  t.dtype = PTE_XNN_DT_QINT8, t.quant = PTE_XNN_QUANT_PER_TENSOR, t.scale = sy, t.zero_point = zy;
  t.rank = 4, t.dims = dout, t.flags = PTE_XNN_VALUE_EXTERNAL_OUTPUT, t.external_id = 1;
  pte_xnn_builder_add_tensor(b, &t, &id_y);
  pte_xnn_node_desc nd;
  memset(&nd, 0, sizeof nd);
  nd.type = PTE_XNN_NODE_CONV2D;
  nd.inputs[0] = id_x, nd.inputs[1] = id_w, nd.inputs[2] = id_b, nd.output = id_y;
  nd.kernel[0] = nd.kernel[1] = 1, nd.stride[0] = nd.stride[1] = 1, nd.dilation[0] = nd.dilation[1] = 1;
  nd.groups = 1, nd.group_input_channels = cin, nd.group_output_channels = cout;
  nd.out_min = -INFINITY, nd.out_max = INFINITY;
  pte_xnn_builder_add_node(b, &nd);
  dw_out o = {"", y, ref, nout};
  snprintf(o.what, sizeof o.what, "qs8 1x1 %ux%u cin%u cout%u bias %d", h, w, cin, cout, bias_abs);
  size_t sin[4] = {1, h, w, cin}, sout[4] = {1, h, w, cout};
  dw_build_and_run(b, PTE_DTYPE_CHAR, sin, x, nin, sout, y, nout, dw_check_i8, &o);
  free(x);
  free(wt);
  free(y);
  free(ref);
  free(bias);
  free(ws);
  free(bs);
}

TEST(pointwise_qs8_vs_integer_reference) {
  static const uint32_t cs[][2] = {{1, 1}, {2, 8}, {3, 5}, {18, 9}, {19, 13}, {64, 64}, {8, 17}, {33, 8}}; /* K % 4: every tail */
  for (size_t i = 0; i < sizeof cs / sizeof cs[0] && !test_current_failed; i++) pwq_run(5, 7, cs[i][0], cs[i][1], 4000);
  pwq_run(3, 3, 16, 12, 2147000000); /* int32 sum could overflow: the scalar int64 epilogue */
}

/* qd8 depthwise: fp32 input -> Convert to qdint8 (per batch) -> depthwise (qcint8 weights, fp32
 * bias) -> fp32. The input holds multiples of 1/64 spanning exactly [-50/64, 205/64], so by
 * XNNPACK's qd8 rule (range over 255 steps, zero point nudged to an integer) the scale is 1/64
 * and the zero point -78 exactly: x = k / 64 quantizes to k - 78. Expected, from XNNPACK's qd8
 * epilogue: y = clamp((float)(sum over taps inside the input of k * w) * (1/64 * wscale) + bias). */
static void dwd_run(const dw_case *k, bool clamp) {
  uint32_t oh, ow;
  dw_out_hw(k, &oh, &ow);
  const size_t nin = (size_t)2 * k->h * k->w * k->c, nw = (size_t)k->kh * k->kw * k->c, nout = (size_t)2 * oh * ow * k->c;
  float *x = (float *)malloc(nin * 4), *y = (float *)malloc(nout * 4), *ref = (float *)malloc(nout * 4);
  int32_t *kq = (int32_t *)malloc(nin * 4);
  int8_t *wt = (int8_t *)malloc(nw);
  float *ws = (float *)malloc(k->c * 4), *bias = (float *)malloc(k->c * 4);
  const size_t per = nin / 2;
  for (size_t i = 0; i < nin; i++) kq[i] = q_rand(-50, 205);
  for (size_t bt = 0; bt < 2; bt++) kq[bt * per] = -50, kq[bt * per + per - 1] = 205; /* the range, per batch */
  for (size_t i = 0; i < nin; i++) x[i] = (float)kq[i] / 64.0f;
  for (size_t i = 0; i < nw; i++) wt[i] = (int8_t)q_rand(-127, 127);
  for (uint32_t ch = 0; ch < k->c; ch++) {
    ws[ch] = (float)(1 + 2 * (ch % 3)) / 1024.0f + 0.0001f * (float)ch;
    bias[ch] = (float)q_rand(-1000, 1000) / 997.0f;
  }
  const float lo = clamp ? -0.25f : -INFINITY, hi = clamp ? 0.5f : INFINITY;
  for (uint32_t bt = 0; bt < 2; bt++)
    for (uint32_t oy = 0; oy < oh; oy++)
      for (uint32_t ox = 0; ox < ow; ox++)
        for (uint32_t ch = 0; ch < k->c; ch++) {
          int64_t acc = 0;
          for (uint32_t ky = 0; ky < k->kh; ky++)
            for (uint32_t kx = 0; kx < k->kw; kx++) {
              const long iy = (long)(oy * k->sh + ky * k->dh) - (long)k->pt;
              const long ix = (long)(ox * k->sw + kx * k->dw) - (long)k->pl;
              if (iy < 0 || ix < 0 || iy >= (long)k->h || ix >= (long)k->w) continue;
              acc += (int64_t)kq[bt * per + ((size_t)iy * k->w + (size_t)ix) * k->c + ch] *
                     (int64_t)wt[(ky * k->kw + kx) * k->c + ch];
            }
          float v = (float)acc * ((1.0f / 64.0f) * ws[ch]) + bias[ch];
          v = v < lo ? lo : (v > hi ? hi : v);
          ref[(((size_t)bt * oh + oy) * ow + ox) * k->c + ch] = v;
        }
  pte_xnn_builder *b = pte_xnn_builder_new();
  uint32_t din[4] = {2, k->h, k->w, k->c}, dwd[4] = {1, k->kh, k->kw, k->c}, db[1] = {k->c}, dout[4] = {2, oh, ow, k->c};
  pte_xnn_tensor_desc t;
  uint32_t id_x, id_q, id_w, id_b, id_y;
  memset(&t, 0, sizeof t);
  t.dtype = PTE_XNN_DT_FP32, t.rank = 4, t.dims = din, t.flags = PTE_XNN_VALUE_EXTERNAL_INPUT, t.external_id = 0;
  pte_xnn_builder_add_tensor(b, &t, &id_x);
  memset(&t, 0, sizeof t);
  t.dtype = PTE_XNN_DT_QDINT8, t.rank = 4, t.dims = din, t.quant = PTE_XNN_QUANT_PER_TOKEN, t.num_nonbatch_dims = 3;
  pte_xnn_builder_add_tensor(b, &t, &id_q);
  memset(&t, 0, sizeof t);
  t.rank = 4, t.dims = dwd, t.data = wt, t.nbytes = nw;
  t.dtype = PTE_XNN_DT_QCINT8, t.quant = PTE_XNN_QUANT_PER_CHANNEL, t.channel_scales = ws;
  t.n_channel_scales = k->c, t.channel_dim = 3;
  pte_xnn_builder_add_tensor(b, &t, &id_w);
  memset(&t, 0, sizeof t);
  t.dtype = PTE_XNN_DT_FP32, t.rank = 1, t.dims = db, t.data = bias, t.nbytes = k->c * 4;
  pte_xnn_builder_add_tensor(b, &t, &id_b);
  memset(&t, 0, sizeof t);
  t.dtype = PTE_XNN_DT_FP32, t.rank = 4, t.dims = dout, t.flags = PTE_XNN_VALUE_EXTERNAL_OUTPUT, t.external_id = 1;
  pte_xnn_builder_add_tensor(b, &t, &id_y);
  pte_xnn_node_desc nd;
  memset(&nd, 0, sizeof nd);
  nd.type = PTE_XNN_NODE_CONVERT;
  nd.inputs[0] = id_x, nd.output = id_q;
  nd.out_min = -INFINITY, nd.out_max = INFINITY;
  pte_xnn_builder_add_node(b, &nd);
  dw_add_node(b, k, id_q, id_w, id_b, id_y, clamp, lo, hi);
  dw_out o = {"", y, ref, nout};
  char desc[128];
  dw_describe(k, desc, sizeof desc);
  snprintf(o.what, sizeof o.what, "qd8 %s%s", desc, clamp ? " clamp" : "");
  size_t sin[4] = {2, k->h, k->w, k->c}, sout[4] = {2, oh, ow, k->c};
  dw_build_and_run(b, PTE_DTYPE_FLOAT, sin, x, nin * 4, sout, y, nout * 4, dw_check_f32_exact, &o);
  free(x);
  free(y);
  free(ref);
  free(kq);
  free(wt);
  free(ws);
  free(bias);
}

TEST(depthwise_qd8_vs_reference) {
  static const uint32_t chans[] = {1, 5, 16, 17, 37, 64};
  static const uint32_t ks[][2] = {{3, 3}, {5, 5}, {1, 3}};
  size_t cases = 0;
  for (size_t ci = 0; ci < sizeof chans / sizeof chans[0]; ci++)
    for (size_t ki = 0; ki < 3; ki++)
      for (uint32_t st = 1; st <= 2; st++)
        for (uint32_t pad = 0; pad <= 2; pad += 2) {
          dw_case k = {9, 11, chans[ci], ks[ki][0], ks[ki][1], st, st, 1, 1, pad, pad, pad, pad, 0, 0};
          if (ki == 0 && pad == 2) k.dh = k.dw = 2, k.pr = 1; /* dilation, asymmetric */
          dwd_run(&k, ci % 2 == 1);
          if (test_current_failed) return;
          cases++;
        }
  CHECK(cases == 6 * 3 * 2 * 2);
}

int main(void) {
  RUN(depthwise_f32_vs_naive);
  RUN(depthwise_qs8_vs_integer_reference);
  RUN(pointwise_qs8_vs_integer_reference);
  RUN(depthwise_qd8_vs_reference);
  return test_summary();
}
