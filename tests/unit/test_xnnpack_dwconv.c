/* XNNPACK backend: fp32 depthwise convolution (multiplier 1: the multi-pixel per-ISA kernels,
 * 3x3 and 5x5 specialisations, border pixels over their valid taps) against a naive double-
 * precision convolution written here, over kernel 3x3 / 5x5 / 1x3 / 3x1, stride 1 and 2,
 * padding 0..2 (asymmetric too), dilation 1 and 2, channel counts around the vector widths,
 * a fused clamp, every ISA this CPU runs, 1 and 2 threads. */
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

static void dw_run(const dw_case *k) {
  const uint32_t oh = (k->h + k->pt + k->pb - (k->dh * (k->kh - 1) + 1)) / k->sh + 1;
  const uint32_t ow = (k->w + k->pl + k->pr - (k->dw * (k->kw - 1) + 1)) / k->sw + 1;
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
  pte_xnn_node_desc nd;
  memset(&nd, 0, sizeof nd);
  nd.type = PTE_XNN_NODE_DEPTHWISE_CONV2D;
  nd.inputs[0] = id_x, nd.inputs[1] = id_w, nd.inputs[2] = id_b, nd.output = id_y;
  nd.padding[0] = k->pt, nd.padding[1] = k->pr, nd.padding[2] = k->pb, nd.padding[3] = k->pl;
  nd.kernel[0] = k->kh, nd.kernel[1] = k->kw, nd.stride[0] = k->sh, nd.stride[1] = k->sw;
  nd.dilation[0] = k->dh, nd.dilation[1] = k->dw;
  nd.groups = k->c, nd.group_input_channels = 1, nd.group_output_channels = 1;
  nd.has_min_max = true, nd.out_min = k->lo, nd.out_max = k->hi;
  pte_xnn_builder_add_node(b, &nd);
  pte_xnn_blob blob;
  pte_error_info err;
  pte_status s = pte_xnn_builder_finish(b, PTE_XNN_CONSTANTS_INLINE, &blob, &err);
  pte_xnn_builder_free(b);
  CHECK_OK(s);
  static const pte_xnn_isa isas[] = {PTE_XNN_ISA_SCALAR, PTE_XNN_ISA_AVX2, PTE_XNN_ISA_AVX512};
  for (size_t i = 0; i < 3; i++) {
    if (!pte_xnnpack_isa_supported(isas[i])) continue;
    for (int threads = 1; threads <= 2; threads++) {
      pte_xnnpack_options o = {threads, isas[i]};
      pte_xnn_delegate *d = NULL;
      CHECK_OK(pte_xnn_delegate_init(blob.data, blob.size, NULL, &o, &d, &err));
      size_t sin[4] = {1, k->h, k->w, k->c}, sout[4] = {1, oh, ow, k->c};
      xt_tensor ti, to;
      xt_tensor_init(&ti, PTE_DTYPE_FLOAT, 4, sin, x, nin * 4, 0);
      xt_tensor_init(&to, PTE_DTYPE_FLOAT, 4, sout, y, nout * 4, 0);
      pte_evalue *args[2] = {&ti.ev, &to.ev};
      for (size_t q = 0; q < nout; q++) y[q] = NAN;
      CHECK_OK(pte_xnn_delegate_execute(d, args, 2, &err));
      pte_xnn_delegate_destroy(d);
      for (size_t q = 0; q < nout; q++)
        CHECK_MSG(fabs((double)y[q] - ref[q]) <= 1e-5 * (1.0 + fabs(ref[q])),
                  "%ux%u c%u k%ux%u s%u,%u d%u,%u pad %u,%u,%u,%u isa %s threads %d: out[%zu] %.7g vs %.7g", k->h,
                  k->w, k->c, k->kh, k->kw, k->sh, k->sw, k->dh, k->dw, k->pt, k->pr, k->pb, k->pl,
                  pte_xnnpack_isa_name(isas[i]), threads, q, (double)y[q], ref[q]);
    }
  }
  pte_xnn_blob_free(&blob);
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

int main(void) {
  RUN(depthwise_f32_vs_naive);
  return test_summary();
}
