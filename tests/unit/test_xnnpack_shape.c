/* XNNPACK backend: StaticResizeBilinear2D (vector kernel, every ISA) against the formula in
 * double, StaticConstantPad (every output row written once) against index arithmetic,
 * and StaticTranspose over every permutation of a rank-4 tensor (the batched 2-D
 * fast path, its 3-channel case and the generic strided walk), with batch > 1 and size-1 dims,
 * against output[i] = input[source index] computed here from the permutation. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pte/backend_xnnpack.h"
#include "test.h"
#include "test_xnnpack_util.h"

static void tr_case(const uint32_t *dims, const uint32_t *perm) {
  uint32_t od[4];
  for (int i = 0; i < 4; i++) od[i] = dims[perm[i]];
  pte_xnn_builder *b = pte_xnn_builder_new();
  pte_xnn_tensor_desc t;
  memset(&t, 0, sizeof t);
  t.dtype = PTE_XNN_DT_FP32;
  t.rank = 4;
  t.dims = dims;
  t.flags = PTE_XNN_VALUE_EXTERNAL_INPUT;
  uint32_t in, out;
  pte_xnn_builder_add_tensor(b, &t, &in);
  t.dims = od;
  t.flags = PTE_XNN_VALUE_EXTERNAL_OUTPUT;
  t.external_id = 1;
  pte_xnn_builder_add_tensor(b, &t, &out);
  pte_xnn_node_desc nd;
  memset(&nd, 0, sizeof nd);
  nd.type = PTE_XNN_NODE_STATIC_TRANSPOSE, nd.inputs[0] = in, nd.output = out, nd.num_dims = 4, nd.a = perm;
  pte_xnn_builder_add_node(b, &nd);
  pte_xnn_blob blob;
  pte_error_info err;
  pte_status s = pte_xnn_builder_finish(b, PTE_XNN_CONSTANTS_INLINE, &blob, &err);
  pte_xnn_builder_free(b);
  CHECK_OK(s);
  const size_t n = (size_t)dims[0] * dims[1] * dims[2] * dims[3];
  float *x = (float *)malloc(n * 4), *y = (float *)malloc(n * 4);
  for (size_t i = 0; i < n; i++) x[i] = (float)i;
  for (int threads = 1; threads <= 2; threads++) {
  pte_xnnpack_options opt = {threads, PTE_XNN_ISA_AUTO};
  pte_xnn_delegate *d = NULL;
  CHECK_OK(pte_xnn_delegate_init(blob.data, blob.size, NULL, &opt, &d, &err));
  size_t si[4] = {dims[0], dims[1], dims[2], dims[3]}, so[4] = {od[0], od[1], od[2], od[3]};
  xt_tensor ti, to;
  xt_tensor_init(&ti, PTE_DTYPE_FLOAT, 4, si, x, n * 4, 0);
  xt_tensor_init(&to, PTE_DTYPE_FLOAT, 4, so, y, n * 4, 0);
  pte_evalue *args[2] = {&ti.ev, &to.ev};
  for (size_t i = 0; i < n; i++) y[i] = -1.0f;
  CHECK_OK(pte_xnn_delegate_execute(d, args, 2, &err));
  size_t ist[4];
  ist[3] = 1;
  for (int i = 2; i >= 0; i--) ist[i] = ist[i + 1] * dims[i + 1];
  size_t q = 0;
  for (uint32_t a = 0; a < od[0]; a++)
    for (uint32_t bb = 0; bb < od[1]; bb++)
      for (uint32_t c = 0; c < od[2]; c++)
        for (uint32_t e = 0; e < od[3]; e++, q++) {
          const size_t src = a * ist[perm[0]] + bb * ist[perm[1]] + c * ist[perm[2]] + e * ist[perm[3]];
          CHECK_MSG(y[q] == (float)src, "dims %u,%u,%u,%u perm %u%u%u%u threads %d: out[%zu] = %g, want %zu", dims[0],
                    dims[1], dims[2], dims[3], perm[0], perm[1], perm[2], perm[3], threads, q, (double)y[q], src);
        }
  pte_xnn_delegate_destroy(d);
  }
  pte_xnn_blob_free(&blob);
  free(x);
  free(y);
}

TEST(transpose_every_permutation) {
  /* the last two are large enough (>= 64K elements) to be split over 2 threads */
  static const uint32_t shapes[][4] = {{2, 3, 4, 5}, {2, 3, 17, 19}, {1, 3, 33, 20}, {3, 1, 5, 1}, {2, 5, 1, 7},
                                       {1, 3, 160, 150}, {2, 40, 30, 31}};
  size_t cases = 0;
  for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++)
    for (uint32_t p0 = 0; p0 < 4; p0++)
      for (uint32_t p1 = 0; p1 < 4; p1++)
        for (uint32_t p2 = 0; p2 < 4; p2++) {
          const uint32_t p3 = 6 - p0 - p1 - p2;
          if (p0 == p1 || p0 == p2 || p1 == p2 || p3 > 3 || p3 == p0 || p3 == p1 || p3 == p2) continue;
          const uint32_t perm[4] = {p0, p1, p2, p3};
          tr_case(shapes[si], perm);
          if (test_current_failed) return;
          cases++;
        }
  CHECK_EQ_INT(cases, 7 * 24);
}

/* StaticConstantPad, rank 4: out[i] = in[i - pre] inside, the pad value elsewhere. */
static void pad_case(const uint32_t *dims, const uint32_t *pre, const uint32_t *post, float value) {
  uint32_t od[4];
  for (int i = 0; i < 4; i++) od[i] = dims[i] + pre[i] + post[i];
  pte_xnn_builder *b = pte_xnn_builder_new();
  pte_xnn_tensor_desc t;
  memset(&t, 0, sizeof t);
  t.dtype = PTE_XNN_DT_FP32;
  t.rank = 4;
  t.dims = dims;
  t.flags = PTE_XNN_VALUE_EXTERNAL_INPUT;
  uint32_t in, out;
  pte_xnn_builder_add_tensor(b, &t, &in);
  t.dims = od;
  t.flags = PTE_XNN_VALUE_EXTERNAL_OUTPUT;
  t.external_id = 1;
  pte_xnn_builder_add_tensor(b, &t, &out);
  pte_xnn_node_desc nd;
  memset(&nd, 0, sizeof nd);
  nd.type = PTE_XNN_NODE_STATIC_CONSTANT_PAD, nd.inputs[0] = in, nd.output = out, nd.num_dims = 4;
  nd.a = pre, nd.b = post, nd.alpha = value;
  pte_xnn_builder_add_node(b, &nd);
  pte_xnn_blob blob;
  pte_error_info err;
  pte_status s = pte_xnn_builder_finish(b, PTE_XNN_CONSTANTS_INLINE, &blob, &err);
  pte_xnn_builder_free(b);
  CHECK_OK(s);
  const size_t n = (size_t)dims[0] * dims[1] * dims[2] * dims[3], no = (size_t)od[0] * od[1] * od[2] * od[3];
  float *x = (float *)malloc((n ? n : 1) * 4), *y = (float *)malloc(no * 4);
  for (size_t i = 0; i < n; i++) x[i] = (float)i + 1.0f;
  for (size_t i = 0; i < no; i++) y[i] = -12345.0f;
  pte_xnn_delegate *d = NULL;
  CHECK_OK(pte_xnn_delegate_init(blob.data, blob.size, NULL, NULL, &d, &err));
  size_t si[4] = {dims[0], dims[1], dims[2], dims[3]}, so[4] = {od[0], od[1], od[2], od[3]};
  xt_tensor ti, to;
  xt_tensor_init(&ti, PTE_DTYPE_FLOAT, 4, si, x, n * 4, 0);
  xt_tensor_init(&to, PTE_DTYPE_FLOAT, 4, so, y, no * 4, 0);
  pte_evalue *args[2] = {&ti.ev, &to.ev};
  CHECK_OK(pte_xnn_delegate_execute(d, args, 2, &err));
  size_t q = 0;
  for (uint32_t i0 = 0; i0 < od[0]; i0++)
    for (uint32_t i1 = 0; i1 < od[1]; i1++)
      for (uint32_t i2 = 0; i2 < od[2]; i2++)
        for (uint32_t i3 = 0; i3 < od[3]; i3++, q++) {
          const uint32_t ix[4] = {i0, i1, i2, i3};
          bool inside = true;
          size_t src = 0;
          for (int k = 0; k < 4; k++) {
            inside = inside && ix[k] >= pre[k] && ix[k] - pre[k] < dims[k];
            src = src * dims[k] + (ix[k] - pre[k]);
          }
          const float want = inside ? (float)src + 1.0f : value;
          CHECK_MSG(y[q] == want, "pad dims %u,%u,%u,%u: out[%zu] = %g, want %g", dims[0], dims[1], dims[2], dims[3], q,
                    (double)y[q], (double)want);
        }
  pte_xnn_delegate_destroy(d);
  pte_xnn_blob_free(&blob);
  free(x);
  free(y);
}

TEST(constant_pad) {
  static const uint32_t d1[4] = {2, 3, 4, 5}, pre1[4] = {0, 1, 2, 3}, post1[4] = {1, 0, 2, 1};
  pad_case(d1, pre1, post1, 0.5f);
  if (test_current_failed) return;
  static const uint32_t pre2[4] = {0, 0, 0, 0}, post2[4] = {0, 0, 0, 4};
  pad_case(d1, pre2, post2, -1.0f); /* only the last dim */
  if (test_current_failed) return;
  static const uint32_t d3[4] = {1, 1, 1, 1}, pre3[4] = {1, 2, 0, 0}, post3[4] = {0, 1, 3, 0};
  pad_case(d3, pre3, post3, 7.0f); /* no padding in the last dim */
}

/* StaticResizeBilinear2D (half-pixel centers and align corners), 37 channels (full vectors and a
 * tail on every ISA), against the bilinear formula in double precision. */
TEST(resize_bilinear_channels) {
  enum { H = 5, W = 6, C = 37, OH = 11, OW = 9 };
  static float x[H * W * C], y[OH * OW * C];
  for (size_t i = 0; i < H * W * C; i++) x[i] = xt_rand() * 4.0f;
  static const pte_xnn_isa isas[] = {PTE_XNN_ISA_SCALAR, PTE_XNN_ISA_AVX2, PTE_XNN_ISA_AVX512};
  for (int align = 0; align < 2; align++) {
    uint32_t di[4] = {1, H, W, C}, dout[4] = {1, OH, OW, C}, in, out;
    pte_xnn_builder *b = pte_xnn_builder_new();
    pte_xnn_tensor_desc t;
    memset(&t, 0, sizeof t);
    t.dtype = PTE_XNN_DT_FP32, t.rank = 4, t.dims = di, t.flags = PTE_XNN_VALUE_EXTERNAL_INPUT;
    pte_xnn_builder_add_tensor(b, &t, &in);
    t.dims = dout, t.flags = PTE_XNN_VALUE_EXTERNAL_OUTPUT, t.external_id = 1;
    pte_xnn_builder_add_tensor(b, &t, &out);
    pte_xnn_node_desc nd;
    memset(&nd, 0, sizeof nd);
    nd.type = PTE_XNN_NODE_STATIC_RESIZE_BILINEAR_2D, nd.inputs[0] = in, nd.output = out;
    nd.new_h = OH, nd.new_w = OW, nd.flags = align ? 0x8u : 0u;
    pte_xnn_builder_add_node(b, &nd);
    pte_xnn_blob blob;
    pte_error_info err;
    pte_status s = pte_xnn_builder_finish(b, PTE_XNN_CONSTANTS_INLINE, &blob, &err);
    pte_xnn_builder_free(b);
    CHECK_OK(s);
    for (size_t k = 0; k < 3; k++) {
      if (!pte_xnnpack_isa_supported(isas[k])) continue;
      pte_xnnpack_options o = {1, isas[k]};
      pte_xnn_delegate *d = NULL;
      CHECK_OK(pte_xnn_delegate_init(blob.data, blob.size, NULL, &o, &d, &err));
      size_t si[4] = {1, H, W, C}, so[4] = {1, OH, OW, C};
      xt_tensor ti, to;
      xt_tensor_init(&ti, PTE_DTYPE_FLOAT, 4, si, x, sizeof x, 0);
      xt_tensor_init(&to, PTE_DTYPE_FLOAT, 4, so, y, sizeof y, 0);
      pte_evalue *args[2] = {&ti.ev, &to.ev};
      CHECK_OK(pte_xnn_delegate_execute(d, args, 2, &err));
      pte_xnn_delegate_destroy(d);
      for (int oy = 0; oy < OH; oy++)
        for (int ox = 0; ox < OW; ox++) {
          /* source coordinates: align corners (H-1)/(OH-1) scale; else half-pixel centers, clamped at 0 */
          double fy = align ? oy * (double)(H - 1) / (OH - 1) : (oy + 0.5) * (double)H / OH - 0.5;
          double fx = align ? ox * (double)(W - 1) / (OW - 1) : (ox + 0.5) * (double)W / OW - 0.5;
          if (fy < 0) fy = 0;
          if (fx < 0) fx = 0;
          int y0 = (int)fy, x0 = (int)fx;
          if (y0 > H - 1) y0 = H - 1;
          if (x0 > W - 1) x0 = W - 1;
          const int y1 = y0 + 1 < H ? y0 + 1 : H - 1, x1 = x0 + 1 < W ? x0 + 1 : W - 1;
          const double ly = fy - y0 > 1 ? 1 : fy - y0, lx = fx - x0 > 1 ? 1 : fx - x0;
          for (int c = 0; c < C; c++) {
            const double v00 = x[(y0 * W + x0) * C + c], v01 = x[(y0 * W + x1) * C + c];
            const double v10 = x[(y1 * W + x0) * C + c], v11 = x[(y1 * W + x1) * C + c];
            const double top = v00 + (v01 - v00) * lx, bot = v10 + (v11 - v10) * lx, want = top + (bot - top) * ly;
            const double got = y[(oy * OW + ox) * C + c];
            CHECK_MSG(fabs(got - want) <= 1e-5 * (1 + fabs(want)), "align %d isa %d (%d,%d,%d): %.7g vs %.7g", align,
                      (int)isas[k], oy, ox, c, got, want);
          }
        }
    }
    pte_xnn_blob_free(&blob);
  }
}

int main(void) {
  RUN(transpose_every_permutation);
  RUN(resize_bilinear_channels);
  RUN(constant_pad);
  return test_summary();
}
