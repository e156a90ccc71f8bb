/* xnnpack_lib_zoo.c — graphs with many node kinds (fp32 and static int8) for the libXNNPACK
 * comparison (see xnnpack_lib_models.h). */
#include <math.h>
#include <string.h>

#include "xnnpack_lib_build.h"
#include "xnnpack_lib_models.h"

/* ---- node zoo ---------------------------------------------------------------------------- */

uint32_t pxm_un(pxm *m, unsigned type, uint32_t x, uint32_t rank, const uint32_t *dims, int ext) {
  uint32_t y = pxm_f32(m, rank, dims, ext, false);
  pte_xnn_node_desc n;
  memset(&n, 0, sizeof n);
  n.type = type;
  n.inputs[0] = x;
  n.output = y;
  n.alpha = type == PTE_XNN_NODE_ELU ? 1.0f : 0.1f;
  if (type == PTE_XNN_NODE_CLAMP) {
    n.has_min_max = true;
    n.out_min = -0.3f;
    n.out_max = 0.7f;
  }
  pxm_node(m, &n);
  return y;
}

uint32_t pxm_bin(pxm *m, unsigned type, uint32_t a, uint32_t b, uint32_t rank, const uint32_t *dims, int ext,
                        bool ranged) {
  uint32_t y = pxm_f32(m, rank, dims, ext, false);
  pte_xnn_node_desc n;
  memset(&n, 0, sizeof n);
  n.type = type;
  n.inputs[0] = a;
  n.inputs[1] = b;
  n.output = y;
  if (ranged) {
    n.has_min_max = true;
    n.out_min = -1.5f;
    n.out_max = 1.5f;
  }
  pxm_node(m, &n);
  return y;
}

pte_status pxm_build_zoo(pte_xnn_blob *out, pte_error_info *err) {
  memset(out, 0, sizeof *out);
  pxm m = {pte_xnn_builder_new(), 99u, PTE_OK};
  if (!m.b) return pte_error_set(err, PTE_ERR_MEMORY_ALLOCATION_FAILED, "zoo: out of memory");
  const uint32_t D[4] = {1, 6, 10, 16}, cd[4] = {1, 1, 1, 16}, one[1] = {1}, c16[1] = {16};
  uint32_t x = pxm_f32(&m, 4, D, 0, true), y = pxm_f32(&m, 4, D, 1, true);
  uint32_t cb = pxm_f32_const(&m, 4, cd, 1.0f), slope = pxm_f32_const(&m, 1, c16, 0.5f);
  const float onef = 1.0f, fourf = 4.0f;
  pte_xnn_tensor_desc t;
  memset(&t, 0, sizeof t);
  t.dtype = PTE_XNN_DT_FP32;
  t.rank = 1;
  t.dims = one;
  t.data = &onef;
  t.nbytes = 4;
  uint32_t c1 = pxm_add(&m, &t);
  t.data = &fourf;
  uint32_t c4 = pxm_add(&m, &t);
  pxm_bin(&m, PTE_XNN_NODE_ADD, x, y, 4, D, 2, true);
  pxm_bin(&m, PTE_XNN_NODE_SUBTRACT, x, cb, 4, D, 3, false);
  pxm_bin(&m, PTE_XNN_NODE_MULTIPLY, x, y, 4, D, 4, true);
  uint32_t ay = pxm_un(&m, PTE_XNN_NODE_ABS, y, 4, D, -1);
  uint32_t den = pxm_bin(&m, PTE_XNN_NODE_ADD, ay, c1, 4, D, -1, false);
  pxm_bin(&m, PTE_XNN_NODE_DIV, x, den, 4, D, 5, false);
  uint32_t mx = pxm_bin(&m, PTE_XNN_NODE_MAXIMUM, x, y, 4, D, -1, false);
  uint32_t mn = pxm_bin(&m, PTE_XNN_NODE_MINIMUM, x, cb, 4, D, -1, false);
  pxm_bin(&m, PTE_XNN_NODE_ADD, mx, mn, 4, D, 6, false);
  /* global average pooling -> [1, 16] -> FullyConnected, weights [K=16, N=8] (transposed) */
  uint32_t gd[4] = {1, 1, 1, 16}, fd[2] = {1, 16}, wd[2] = {16, 8}, od[2] = {1, 8};
  uint32_t g = pxm_un(&m, PTE_XNN_NODE_GLOBAL_AVG_POOLING_2D, x, 4, gd, -1);
  uint32_t f = pxm_f32(&m, 2, fd, -1, false);
  pte_xnn_node_desc n;
  memset(&n, 0, sizeof n);
  n.type = PTE_XNN_NODE_STATIC_RESHAPE;
  n.inputs[0] = g;
  n.output = f;
  n.num_dims = 2;
  n.a = fd;
  pxm_node(&m, &n);
  uint32_t W = pxm_f32_const(&m, 2, wd, 0.25f), fo = pxm_f32(&m, 2, od, 7, false);
  memset(&n, 0, sizeof n);
  n.type = PTE_XNN_NODE_FULLY_CONNECTED;
  n.inputs[0] = f;
  n.inputs[1] = W;
  n.inputs[2] = PTE_XNN_NO_VALUE;
  n.output = fo;
  n.flags = 1; /* XNN_FLAG_TRANSPOSE_WEIGHTS */
  pxm_node(&m, &n);
  /* sqrt(x^2 + 1) */
  uint32_t sq = pxm_un(&m, PTE_XNN_NODE_SQUARE, x, 4, D, -1);
  uint32_t sp = pxm_bin(&m, PTE_XNN_NODE_ADD, sq, c1, 4, D, -1, false);
  pxm_un(&m, PTE_XNN_NODE_SQUARE_ROOT, sp, 4, D, 8);
  uint32_t hs = pxm_un(&m, PTE_XNN_NODE_HARDSWISH, x, 4, D, -1), el = pxm_un(&m, PTE_XNN_NODE_ELU, y, 4, D, -1);
  pxm_bin(&m, PTE_XNN_NODE_ADD, hs, el, 4, D, 9, false);
  uint32_t lk = pxm_un(&m, PTE_XNN_NODE_LEAKY_RELU, x, 4, D, -1);
  uint32_t ng = pxm_un(&m, PTE_XNN_NODE_NEGATE, ay, 4, D, -1);
  pxm_bin(&m, PTE_XNN_NODE_ADD, lk, ng, 4, D, 10, false);
  uint32_t x4 = pxm_bin(&m, PTE_XNN_NODE_MULTIPLY, x, c4, 4, D, -1, false);
  uint32_t y4 = pxm_bin(&m, PTE_XNN_NODE_MULTIPLY, y, c4, 4, D, -1, false);
  uint32_t fl = pxm_un(&m, PTE_XNN_NODE_FLOOR, x4, 4, D, -1), ce = pxm_un(&m, PTE_XNN_NODE_CEILING, y4, 4, D, -1);
  pxm_bin(&m, PTE_XNN_NODE_SUBTRACT, fl, ce, 4, D, 11, false);
  uint32_t sg = pxm_un(&m, PTE_XNN_NODE_SIGMOID, y, 4, D, -1);
  uint32_t sm = pxm_un(&m, PTE_XNN_NODE_SOFTMAX, x, 4, D, -1);
  pxm_bin(&m, PTE_XNN_NODE_ADD, sm, sg, 4, D, 12, false);
  uint32_t pr = pxm_bin(&m, PTE_XNN_NODE_PRELU, x, slope, 4, D, -1, false);
  uint32_t cl = pxm_un(&m, PTE_XNN_NODE_CLAMP, y, 4, D, -1);
  pxm_bin(&m, PTE_XNN_NODE_ADD, pr, cl, 4, D, 13, false);
  /* pad -> max pool 3x3/1 pad 1 -> avg pool 2x2/2 -> slice */
  const uint32_t pre[4] = {0, 1, 1, 0}, post[4] = {0, 1, 1, 0}, P[4] = {1, 8, 12, 16}, A[4] = {1, 4, 6, 16};
  const uint32_t soff[4] = {0, 1, 1, 0}, ssz[4] = {1, 3, 4, 16};
  uint32_t pd = pxm_f32(&m, 4, P, -1, false), mp = pxm_f32(&m, 4, P, -1, false), ap = pxm_f32(&m, 4, A, -1, false);
  uint32_t sl = pxm_f32(&m, 4, ssz, 14, false);
  memset(&n, 0, sizeof n);
  n.type = PTE_XNN_NODE_STATIC_CONSTANT_PAD;
  n.inputs[0] = x;
  n.output = pd;
  n.num_dims = 4;
  n.a = pre;
  n.b = post;
  n.alpha = 0.5f;
  pxm_node(&m, &n);
  memset(&n, 0, sizeof n);
  n.type = PTE_XNN_NODE_MAX_POOLING_2D;
  n.inputs[0] = pd;
  n.output = mp;
  n.padding[0] = n.padding[1] = n.padding[2] = n.padding[3] = 1;
  n.kernel[0] = n.kernel[1] = 3;
  n.stride[0] = n.stride[1] = 1;
  n.dilation[0] = n.dilation[1] = 1;
  pxm_node(&m, &n);
  memset(&n, 0, sizeof n);
  n.type = PTE_XNN_NODE_AVG_POOLING_2D;
  n.inputs[0] = mp;
  n.output = ap;
  n.kernel[0] = n.kernel[1] = 2;
  n.stride[0] = n.stride[1] = 2;
  n.dilation[0] = n.dilation[1] = 1;
  pxm_node(&m, &n);
  memset(&n, 0, sizeof n);
  n.type = PTE_XNN_NODE_STATIC_SLICE;
  n.inputs[0] = ap;
  n.output = sl;
  n.num_dims = 4;
  n.a = soff;
  n.b = ssz;
  pxm_node(&m, &n);
  /* depthwise 5x5/2 on x + grouped 3x3/2 conv (2 groups) on y -> bilinear (align corners) ->
   * transpose to NCHW */
  const uint32_t C3[4] = {1, 3, 5, 16}, R[4] = {1, 5, 7, 16}, T[4] = {1, 16, 5, 7}, perm[4] = {0, 3, 1, 2};
  const uint32_t pad2[4] = {2, 2, 2, 2}, pad1[4] = {1, 1, 1, 1};
  uint32_t dwd[4] = {1, 5, 5, 16}, gwd[4] = {16, 3, 3, 8};
  uint32_t DW = pxm_f32_const(&m, 4, dwd, 0.2f), DB = pxm_f32_const(&m, 1, c16, 0.1f);
  uint32_t GW = pxm_f32_const(&m, 4, gwd, 0.2f), GB = pxm_f32_const(&m, 1, c16, 0.1f);
  uint32_t dv = pxm_f32(&m, 4, C3, -1, false), gv = pxm_f32(&m, 4, C3, -1, false);
  pxm_conv_desc(&n, PTE_XNN_NODE_DEPTHWISE_CONV2D, x, DW, DB, dv, 5, 5, 2, pad2, 16, 1, 1);
  pxm_node(&m, &n);
  pxm_conv_desc(&n, PTE_XNN_NODE_CONV2D, y, GW, GB, gv, 3, 3, 2, pad1, 2, 8, 8);
  pxm_node(&m, &n);
  uint32_t sum = pxm_bin(&m, PTE_XNN_NODE_ADD, dv, gv, 4, C3, -1, false);
  uint32_t rs = pxm_f32(&m, 4, R, -1, false), tr = pxm_f32(&m, 4, T, 15, false);
  memset(&n, 0, sizeof n);
  n.type = PTE_XNN_NODE_STATIC_RESIZE_BILINEAR_2D;
  n.inputs[0] = sum;
  n.output = rs;
  n.new_h = 5;
  n.new_w = 7;
  n.flags = 0x8; /* XNN_FLAG_ALIGN_CORNERS */
  pxm_node(&m, &n);
  memset(&n, 0, sizeof n);
  n.type = PTE_XNN_NODE_STATIC_TRANSPOSE;
  n.inputs[0] = rs;
  n.output = tr;
  n.num_dims = 4;
  n.a = perm;
  pxm_node(&m, &n);
  return pxm_finish(&m, out, err, "zoo");
}

/* ---- static int8 zoo ----------------------------------------------------------------------- */

uint32_t pxm_cvt(pxm *m, uint32_t x, uint32_t to) {
  pte_xnn_node_desc n;
  memset(&n, 0, sizeof n);
  n.type = PTE_XNN_NODE_CONVERT;
  n.inputs[0] = x;
  n.output = to;
  pxm_node(m, &n);
  return to;
}

/* q (qint8 with scale s, zero point zp, dims) -> Convert -> fp32 output ext */
void pxm_qout(pxm *m, uint32_t q, uint32_t rank, const uint32_t *dims, int ext) {
  pxm_cvt(m, q, pxm_f32(m, rank, dims, ext, false));
}

pte_status pxm_build_qzoo(pte_xnn_blob *out, pte_error_info *err) {
  memset(out, 0, sizeof *out);
  pxm m = {pte_xnn_builder_new(), 4242u, PTE_OK};
  if (!m.b) return pte_error_set(err, PTE_ERR_MEMORY_ALLOCATION_FAILED, "qzoo: out of memory");
  const uint32_t D[4] = {1, 6, 10, 16};
  const float sx = 1.0f / 40.0f, sy = 1.0f / 52.0f;
  const int32_t zx = 3, zy = -5;
  uint32_t xf = pxm_f32(&m, 4, D, 0, true), yf = pxm_f32(&m, 4, D, 1, true);
  uint32_t x = pxm_cvt(&m, xf, pxm_q8(&m, 4, D, sx, zx)), y = pxm_cvt(&m, yf, pxm_q8(&m, 4, D, sy, zy));
  int ext = 2;
  pte_xnn_node_desc n;
  /* binary, requantizing */
  static const unsigned bin[3] = {PTE_XNN_NODE_ADD, PTE_XNN_NODE_SUBTRACT, PTE_XNN_NODE_MULTIPLY};
  static const float bscale[3] = {1.0f / 24.0f, 1.0f / 30.0f, 1.0f / 70.0f};
  for (int k = 0; k < 3; k++) {
    uint32_t q = pxm_q8(&m, 4, D, bscale[k], k - 1);
    memset(&n, 0, sizeof n);
    n.type = bin[k];
    n.inputs[0] = x;
    n.inputs[1] = y;
    n.output = q;
    if (k == 0) {
      n.has_min_max = true;
      n.out_min = -1.0f;
      n.out_max = 2.5f;
    }
    pxm_node(&m, &n);
    pxm_qout(&m, q, 4, D, ext++);
  }
  /* unary: clamp (same parameters), sigmoid, ELU (requantizing); the library snapshot has no
   * qs8 LeakyReLU */
  static const unsigned un[3] = {PTE_XNN_NODE_CLAMP, PTE_XNN_NODE_SIGMOID, PTE_XNN_NODE_ELU};
  static const float uscale[3] = {1.0f / 40.0f, 1.0f / 256.0f, 1.0f / 50.0f};
  static const int32_t uzp[3] = {3, -128, 40};
  for (int k = 0; k < 3; k++) {
    uint32_t q = pxm_q8(&m, 4, D, uscale[k], uzp[k]);
    memset(&n, 0, sizeof n);
    n.type = un[k];
    n.inputs[0] = x;
    n.output = q;
    n.alpha = un[k] == PTE_XNN_NODE_ELU ? 1.0f : 0.2f;
    if (un[k] == PTE_XNN_NODE_CLAMP) {
      n.has_min_max = true;
      n.out_min = -0.5f;
      n.out_max = 1.25f;
    }
    pxm_node(&m, &n);
    pxm_qout(&m, q, 4, D, ext++);
  }
  /* pooling */
  /* (no qs8 average pooling: the library snapshot's is fp32 only) */
  const uint32_t G[4] = {1, 1, 1, 16}, R[4] = {1, 9, 14, 16}, P[4] = {1, 8, 11, 16};
  uint32_t mp = pxm_q8(&m, 4, D, sx, zx);
  memset(&n, 0, sizeof n);
  n.type = PTE_XNN_NODE_MAX_POOLING_2D;
  n.inputs[0] = x;
  n.output = mp;
  n.padding[0] = n.padding[1] = n.padding[2] = n.padding[3] = 1;
  n.kernel[0] = n.kernel[1] = 3;
  n.stride[0] = n.stride[1] = 1;
  n.dilation[0] = n.dilation[1] = 1;
  pxm_node(&m, &n);
  pxm_qout(&m, mp, 4, D, ext++);
  uint32_t gp = pxm_q8(&m, 4, G, 1.0f / 200.0f, 0);
  memset(&n, 0, sizeof n);
  n.type = PTE_XNN_NODE_GLOBAL_AVG_POOLING_2D;
  n.inputs[0] = x;
  n.output = gp;
  pxm_node(&m, &n);
  pxm_qout(&m, gp, 4, G, ext++);
  /* bilinear resize, constant pad (same parameters) */
  uint32_t rs = pxm_q8(&m, 4, R, sy, zy);
  memset(&n, 0, sizeof n);
  n.type = PTE_XNN_NODE_STATIC_RESIZE_BILINEAR_2D;
  n.inputs[0] = y;
  n.output = rs;
  n.new_h = 9;
  n.new_w = 14;
  pxm_node(&m, &n);
  pxm_qout(&m, rs, 4, R, ext++);
  const uint32_t pre[4] = {0, 1, 0, 0}, post[4] = {0, 1, 1, 0};
  uint32_t pd = pxm_q8(&m, 4, P, sx, zx);
  memset(&n, 0, sizeof n);
  n.type = PTE_XNN_NODE_STATIC_CONSTANT_PAD;
  n.inputs[0] = x;
  n.output = pd;
  n.num_dims = 4;
  n.a = pre;
  n.b = post;
  n.alpha = 0.25f;
  pxm_node(&m, &n);
  pxm_qout(&m, pd, 4, P, ext++);
  return pxm_finish(&m, out, err, "qzoo");
}
