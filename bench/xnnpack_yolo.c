#define _POSIX_C_SOURCE 200809L
/* bench/xnnpack_yolo — a YOLO-like fp32 CNN run through the XnnpackBackend, whole graph.
 *
 * The graph is built with the blob builder the way the exporter lays out a YOLOX-nano subgraph:
 * NCHW input transposed to NHWC, a 3x3/2 stem convolution, depthwise-separable stages (3x3
 * depthwise stride 2 and 1, 1x1 pointwise) with SiLU written as Sigmoid + Multiply, residual
 * Adds, an SPP-style 5x5 max pooling, an upsampling (bilinear resize) + Concatenate neck, a 1x1
 * head with a Sigmoid, and the result transposed back to NCHW. Default input 1x3x416x416.
 *
 * Our side (`auto` ISA) is timed against the same blob on the portable scalar kernels of this
 * backend, interleaved in one run (ratio = scalar time / our time). Then a per-node-kind time
 * split (pte_xnn_delegate_profile_kinds) and the share of time in GEMM/IGEMM/depthwise nodes.
 *
 * Usage: bench_xnnpack_yolo [--size S] [--threads N] [--isa auto|avx2|avx512|scalar] [--rounds R]
 *                           [--no-peer] [--nodes] (per-node times too)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_result.h"
#include "pte/backend_xnnpack.h"
#include "pte/evalue.h"
#include "pte/named_data_map.h"
#include "pte/tensor.h"

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint32_t by_rng = 1234567;
static float by_rand(void) {
  by_rng = by_rng * 1664525u + 1013904223u;
  return (float)((by_rng >> 8) & 0xFFFFFF) / 8388608.0f - 1.0f;
}

/* ---- graph construction ------------------------------------------------------------------- */
typedef struct yb {
  pte_xnn_builder *b;
  int fail;
} yb;

static uint32_t y_val(yb *g, uint32_t n, uint32_t h, uint32_t w, uint32_t c) {
  uint32_t dims[4] = {n, h, w, c}, id = 0;
  pte_xnn_tensor_desc t;
  memset(&t, 0, sizeof t);
  t.dtype = PTE_XNN_DT_FP32;
  t.rank = 4;
  t.dims = dims;
  if (pte_xnn_builder_add_tensor(g->b, &t, &id) != PTE_OK) g->fail = 1;
  return id;
}

static uint32_t y_const(yb *g, uint32_t rank, const uint32_t *dims, float scale) {
  size_t n = 1;
  for (uint32_t i = 0; i < rank; i++) n *= dims[i];
  float *data = (float *)malloc(n * sizeof(float));
  for (size_t i = 0; i < n; i++) data[i] = by_rand() * scale;
  pte_xnn_tensor_desc t;
  memset(&t, 0, sizeof t);
  t.dtype = PTE_XNN_DT_FP32;
  t.rank = rank;
  t.dims = dims;
  t.data = data;
  t.nbytes = n * sizeof(float);
  uint32_t id = 0;
  if (pte_xnn_builder_add_tensor(g->b, &t, &id) != PTE_OK) g->fail = 1;
  free(data);
  return id;
}

static void y_node(yb *g, pte_xnn_node_desc *nd) {
  if (pte_xnn_builder_add_node(g->b, nd) != PTE_OK) g->fail = 1;
}

typedef struct ytensor {
  uint32_t id, h, w, c;
} ytensor;

/* conv (or depthwise when dw) + optional SiLU */
static ytensor y_conv(yb *g, ytensor x, uint32_t cout, uint32_t k, uint32_t stride, int dw, int silu) {
  const uint32_t pad = k / 2;
  const uint32_t oh = (x.h + 2 * pad - k) / stride + 1, ow = (x.w + 2 * pad - k) / stride + 1;
  const uint32_t oc = dw ? x.c : cout;
  uint32_t wd[4] = {dw ? 1 : oc, k, k, dw ? oc : x.c}, bd[1] = {oc};
  const float ws = 1.7f / sqrtf((float)(k * k * (dw ? 1 : x.c)));
  uint32_t w = y_const(g, 4, wd, ws), b = y_const(g, 1, bd, 0.1f);
  uint32_t y = y_val(g, 1, oh, ow, oc);
  pte_xnn_node_desc nd;
  memset(&nd, 0, sizeof nd);
  nd.type = dw ? PTE_XNN_NODE_DEPTHWISE_CONV2D : PTE_XNN_NODE_CONV2D;
  nd.inputs[0] = x.id, nd.inputs[1] = w, nd.inputs[2] = b;
  nd.output = y;
  for (int i = 0; i < 4; i++) nd.padding[i] = pad;
  nd.kernel[0] = nd.kernel[1] = k;
  nd.stride[0] = nd.stride[1] = stride;
  nd.dilation[0] = nd.dilation[1] = 1;
  nd.groups = dw ? x.c : 1;
  nd.group_input_channels = dw ? 1 : x.c;
  nd.group_output_channels = dw ? 1 : oc;
  nd.out_min = -INFINITY, nd.out_max = INFINITY;
  y_node(g, &nd);
  ytensor r = {y, oh, ow, oc};
  if (silu) {
    uint32_t s = y_val(g, 1, oh, ow, oc), m = y_val(g, 1, oh, ow, oc);
    memset(&nd, 0, sizeof nd);
    nd.type = PTE_XNN_NODE_SIGMOID;
    nd.inputs[0] = y, nd.output = s;
    y_node(g, &nd);
    memset(&nd, 0, sizeof nd);
    nd.type = PTE_XNN_NODE_MULTIPLY;
    nd.inputs[0] = y, nd.inputs[1] = s, nd.output = m;
    nd.out_min = -INFINITY, nd.out_max = INFINITY;
    y_node(g, &nd);
    r.id = m;
  }
  return r;
}

static ytensor y_binary(yb *g, unsigned type, ytensor a, ytensor b) {
  uint32_t y = y_val(g, 1, a.h, a.w, a.c);
  pte_xnn_node_desc nd;
  memset(&nd, 0, sizeof nd);
  nd.type = type;
  nd.inputs[0] = a.id, nd.inputs[1] = b.id, nd.output = y;
  nd.out_min = -INFINITY, nd.out_max = INFINITY;
  y_node(g, &nd);
  ytensor r = {y, a.h, a.w, a.c};
  return r;
}

/* depthwise-separable stage: dw3x3/2 + pw (SiLU), then a residual block dw3x3/1 + pw */
static ytensor y_stage(yb *g, ytensor x, uint32_t cout) {
  ytensor t = y_conv(g, x, 0, 3, 2, 1, 1);
  t = y_conv(g, t, cout, 1, 1, 0, 1);
  ytensor u = y_conv(g, t, 0, 3, 1, 1, 1);
  u = y_conv(g, u, cout, 1, 1, 0, 1);
  return y_binary(g, PTE_XNN_NODE_ADD, t, u);
}

static int build_yolo(uint32_t S, pte_xnn_blob *blob, uint32_t *out_c, uint32_t *out_hw) {
  yb g = {pte_xnn_builder_new(), 0};
  if (!g.b) return -1;
  uint32_t din[4] = {1, 3, S, S}, id_in = 0;
  pte_xnn_tensor_desc t;
  memset(&t, 0, sizeof t);
  t.dtype = PTE_XNN_DT_FP32;
  t.rank = 4;
  t.dims = din;
  t.flags = PTE_XNN_VALUE_EXTERNAL_INPUT;
  t.external_id = 0;
  pte_xnn_builder_add_tensor(g.b, &t, &id_in);
  ytensor x = {y_val(&g, 1, S, S, 3), S, S, 3};
  static const uint32_t to_nhwc[4] = {0, 2, 3, 1}, to_nchw[4] = {0, 3, 1, 2};
  pte_xnn_node_desc nd;
  memset(&nd, 0, sizeof nd);
  nd.type = PTE_XNN_NODE_STATIC_TRANSPOSE;
  nd.inputs[0] = id_in, nd.output = x.id, nd.num_dims = 4, nd.a = to_nhwc;
  y_node(&g, &nd);
  ytensor s0 = y_conv(&g, x, 16, 3, 2, 0, 1); /* S/2 */
  ytensor s1 = y_stage(&g, s0, 32);           /* S/4 */
  ytensor s2 = y_stage(&g, s1, 64);           /* S/8 */
  ytensor s3 = y_stage(&g, s2, 128);          /* S/16 */
  ytensor s4 = y_stage(&g, s3, 256);          /* S/32 */
  /* SPP-ish: 5x5/1 max pool, concatenated with its input, 1x1 back to 128 */
  ytensor p = {y_val(&g, 1, s4.h, s4.w, s4.c), s4.h, s4.w, s4.c};
  memset(&nd, 0, sizeof nd);
  nd.type = PTE_XNN_NODE_MAX_POOLING_2D;
  nd.inputs[0] = s4.id, nd.output = p.id;
  for (int i = 0; i < 4; i++) nd.padding[i] = 2;
  nd.kernel[0] = nd.kernel[1] = 5;
  nd.stride[0] = nd.stride[1] = 1;
  nd.dilation[0] = nd.dilation[1] = 1;
  nd.out_min = -INFINITY, nd.out_max = INFINITY;
  y_node(&g, &nd);
  ytensor cat1 = {y_val(&g, 1, s4.h, s4.w, 2 * s4.c), s4.h, s4.w, 2 * s4.c};
  memset(&nd, 0, sizeof nd);
  nd.type = PTE_XNN_NODE_CONCATENATE2;
  nd.inputs[0] = s4.id, nd.inputs[1] = p.id, nd.output = cat1.id, nd.axis = 3;
  y_node(&g, &nd);
  ytensor n4 = y_conv(&g, cat1, 128, 1, 1, 0, 1);
  /* upsample x2 and concatenate with the S/16 stage */
  ytensor up = {y_val(&g, 1, s3.h, s3.w, n4.c), s3.h, s3.w, n4.c};
  memset(&nd, 0, sizeof nd);
  nd.type = PTE_XNN_NODE_STATIC_RESIZE_BILINEAR_2D;
  nd.inputs[0] = n4.id, nd.output = up.id, nd.new_h = s3.h, nd.new_w = s3.w;
  y_node(&g, &nd);
  ytensor cat2 = {y_val(&g, 1, s3.h, s3.w, up.c + s3.c), s3.h, s3.w, up.c + s3.c};
  memset(&nd, 0, sizeof nd);
  nd.type = PTE_XNN_NODE_CONCATENATE2;
  nd.inputs[0] = up.id, nd.inputs[1] = s3.id, nd.output = cat2.id, nd.axis = 3;
  y_node(&g, &nd);
  ytensor n3 = y_conv(&g, cat2, 64, 1, 1, 0, 1);
  n3 = y_conv(&g, n3, 0, 3, 1, 1, 1);
  n3 = y_conv(&g, n3, 64, 1, 1, 0, 1);
  ytensor head = y_conv(&g, n3, 85, 1, 1, 0, 0);
  ytensor hs = {y_val(&g, 1, head.h, head.w, head.c), head.h, head.w, head.c};
  memset(&nd, 0, sizeof nd);
  nd.type = PTE_XNN_NODE_SIGMOID;
  nd.inputs[0] = head.id, nd.output = hs.id;
  y_node(&g, &nd);
  uint32_t dout[4] = {1, hs.c, hs.h, hs.w}, id_out = 0;
  t.dims = dout;
  t.flags = PTE_XNN_VALUE_EXTERNAL_OUTPUT;
  t.external_id = 1;
  pte_xnn_builder_add_tensor(g.b, &t, &id_out);
  memset(&nd, 0, sizeof nd);
  nd.type = PTE_XNN_NODE_STATIC_TRANSPOSE;
  nd.inputs[0] = hs.id, nd.output = id_out, nd.num_dims = 4, nd.a = to_nchw;
  y_node(&g, &nd);
  pte_error_info err;
  int rc = g.fail ? -1 : 0;
  if (!rc && pte_xnn_builder_finish(g.b, PTE_XNN_CONSTANTS_NAMED, blob, &err) != PTE_OK) {
    fprintf(stderr, "build: %s\n", err.msg);
    rc = -1;
  }
  pte_xnn_builder_free(g.b);
  *out_c = hs.c;
  *out_hw = hs.h;
  return rc;
}

/* ---- running ------------------------------------------------------------------------------ */
typedef struct yrun {
  pte_xnn_delegate *d;
  pte_tensor tin, tout;
  int32_t sin[4], sout[4], stin[4], stout[4];
  uint8_t order[4];
  pte_evalue ein, eout;
  pte_evalue *args[2];
  float *y;
} yrun;

static void tensor_init(pte_tensor *t, int32_t *sizes, int32_t *strides, uint8_t *order, const uint32_t *dims, void *data) {
  memset(t, 0, sizeof *t);
  size_t n = 1;
  for (int i = 0; i < 4; i++) {
    sizes[i] = (int32_t)dims[i];
    order[i] = (uint8_t)i;
    n *= dims[i];
  }
  strides[3] = 1;
  for (int i = 2; i >= 0; i--) strides[i] = strides[i + 1] * sizes[i + 1];
  t->data = data;
  t->sizes = sizes;
  t->strides = strides;
  t->dim_order = order;
  t->dim = 4;
  t->numel = n;
  t->capacity_bytes = n * 4;
  t->dtype = PTE_DTYPE_FLOAT;
}

static int yrun_init(yrun *r, const pte_xnn_blob *blob, const pte_named_data_map *ndm, pte_xnn_isa isa, int threads,
                     uint32_t S, uint32_t oc, uint32_t ohw, float *x) {
  memset(r, 0, sizeof *r);
  pte_xnnpack_options o = {threads, isa};
  pte_error_info err;
  if (pte_xnn_delegate_init(blob->data, blob->size, ndm, &o, &r->d, &err) != PTE_OK) {
    fprintf(stderr, "init (%s): %s\n", pte_xnnpack_isa_name(isa), err.msg);
    return -1;
  }
  uint32_t din[4] = {1, 3, S, S}, dout[4] = {1, oc, ohw, ohw};
  r->y = (float *)calloc((size_t)oc * ohw * ohw, sizeof(float));
  tensor_init(&r->tin, r->sin, r->stin, r->order, din, x);
  uint8_t *o2 = r->order; /* same dim order */
  tensor_init(&r->tout, r->sout, r->stout, o2, dout, r->y);
  r->ein.tag = PTE_TAG_TENSOR, r->ein.u.tensor = &r->tin;
  r->eout.tag = PTE_TAG_TENSOR, r->eout.u.tensor = &r->tout;
  r->args[0] = &r->ein, r->args[1] = &r->eout;
  return 0;
}

static double yrun_once(yrun *r) {
  double t0 = now_s();
  pte_error_info err;
  if (pte_xnn_delegate_execute(r->d, r->args, 2, &err) != PTE_OK) {
    fprintf(stderr, "execute: %s\n", err.msg);
    exit(1);
  }
  return now_s() - t0;
}

int main(int argc, char **argv) {
  uint32_t S = 416;
  int threads = 1, rounds = 7, peer = 1, per_node = 0;
  pte_xnn_isa isa = PTE_XNN_ISA_AUTO;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--size") && i + 1 < argc) S = (uint32_t)atoi(argv[++i]);
    else if (!strcmp(argv[i], "--threads") && i + 1 < argc) threads = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--rounds") && i + 1 < argc) rounds = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--no-peer")) peer = 0;
    else if (!strcmp(argv[i], "--nodes")) per_node = 1;
    else if (!strcmp(argv[i], "--isa") && i + 1 < argc) {
      const char *s = argv[++i];
      isa = !strcmp(s, "scalar") ? PTE_XNN_ISA_SCALAR
            : !strcmp(s, "avx2") ? PTE_XNN_ISA_AVX2
            : !strcmp(s, "avx512") ? PTE_XNN_ISA_AVX512 : PTE_XNN_ISA_AUTO;
    } else {
      fprintf(stderr, "usage: %s [--size S] [--threads N] [--isa auto|scalar|avx2|avx512] [--rounds R] [--no-peer]\n", argv[0]);
      return 2;
    }
  }
  if (S < 64 || S % 32) {
    fprintf(stderr, "--size must be a multiple of 32, >= 64\n");
    return 2;
  }
  pte_xnn_blob blob;
  uint32_t oc = 0, ohw = 0;
  if (build_yolo(S, &blob, &oc, &ohw) != 0) return 1;
  pte_xnn_blob_data_map dm;
  pte_xnn_blob_data_map_init(&dm, &blob);
  const pte_named_data_map *ndm = &dm.base;
  float *x = (float *)malloc((size_t)3 * S * S * sizeof(float));
  for (size_t i = 0; i < (size_t)3 * S * S; i++) x[i] = by_rand();
  yrun ours, ref;
  /* init (parse, verify, pack every weight, plan): best of 5 */
  double best_init = 1e30, packed_mib = 0;
  for (int r = 0; r < 5; r++) {
    pte_xnnpack_options o = {threads, isa};
    pte_xnn_delegate *d = NULL;
    pte_error_info e2;
    const double t0 = now_s();
    if (pte_xnn_delegate_init(blob.data, blob.size, ndm, &o, &d, &e2) != PTE_OK) return 1;
    const double t = now_s() - t0;
    if (t < best_init) best_init = t;
    packed_mib = (double)pte_xnn_delegate_packed_bytes(d) / 1048576.0;
    pte_xnn_delegate_destroy(d);
  }
  printf("# init (packs %.2f MiB of weights): %.3f ms\n", packed_mib, best_init * 1e3);
  if (yrun_init(&ours, &blob, ndm, isa, threads, S, oc, ohw, x)) return 1;
  if (peer && yrun_init(&ref, &blob, ndm, PTE_XNN_ISA_SCALAR, threads, S, oc, ohw, x)) return 1;
  const double first = yrun_once(&ours);
  printf("# first execute (touches the %.2f MiB arena): %.3f ms\n",
         (double)pte_xnn_delegate_arena_bytes(ours.d) / 1048576.0, first * 1e3);
  pte_xnn_delegate_set_profiling(ours.d, true);
  yrun_once(&ours);
  if (peer) yrun_once(&ref);
  /* outputs agree (different kernels: tolerance) */
  if (peer) {
    double worst = 0;
    for (size_t i = 0; i < (size_t)oc * ohw * ohw; i++) {
      double e = fabs((double)ours.y[i] - (double)ref.y[i]);
      if (e > worst) worst = e;
    }
    printf("# max |ours - scalar| = %.3g\n", worst);
    if (!(worst < 1e-3)) {
      fprintf(stderr, "outputs disagree\n");
      return 1;
    }
  }
  pte_xnn_delegate_profile_reset(ours.d);
  double best = 1e30, best_ref = 1e30;
  for (int r = 0; r < rounds; r++) {
    double t = yrun_once(&ours);
    if (t < best) best = t;
    if (peer && (r < 2 || r == rounds - 1)) {
      t = yrun_once(&ref);
      if (t < best_ref) best_ref = t;
    }
  }
  printf("yolo-like CNN %ux%u, %d thread(s), isa %s: %.3f ms per execute (best of %d)", S, S, threads,
         pte_xnnpack_isa_name(pte_xnn_delegate_isa(ours.d)), best * 1e3, rounds);
  if (peer) printf("; scalar kernels %.3f ms, ratio %.2f", best_ref * 1e3, best_ref / best);
  printf("\n");
  pte_xnn_node_time kinds[64];
  size_t nk = pte_xnn_delegate_profile_kinds(ours.d, kinds, 64);
  uint64_t total = 0, gemm = 0;
  for (size_t i = 0; i < nk; i++) total += kinds[i].ns;
  printf("%-28s %8s %10s %7s\n", "node kind", "calls", "ms/exec", "share");
  for (size_t i = 0; i < nk; i++) {
    const unsigned t = kinds[i].type;
    if (t == PTE_XNN_NODE_CONV2D || t == PTE_XNN_NODE_DEPTHWISE_CONV2D || t == PTE_XNN_NODE_FULLY_CONNECTED ||
        t == PTE_XNN_NODE_BATCH_MATRIX_MULTIPLY)
      gemm += kinds[i].ns;
    printf("%-28s %8llu %10.3f %6.1f%%\n", kinds[i].name, (unsigned long long)(kinds[i].calls / (uint64_t)rounds),
           (double)kinds[i].ns * 1e-6 / rounds, total ? 100.0 * (double)kinds[i].ns / (double)total : 0.0);
  }
  if (per_node) {
    pte_xnn_node_time nodes[512];
    size_t nn = pte_xnn_delegate_profile_nodes(ours.d, nodes, 512);
    for (size_t i = 0; i < nn && i < 512; i++)
      if (nodes[i].calls)
        printf("  node %3u %-26s %8.3f ms\n", nodes[i].node, nodes[i].name, (double)nodes[i].ns * 1e-6 / rounds);
  }
  printf("# GEMM/IGEMM/depthwise nodes: %.1f%% of node time (goal >= 60%%)\n", total ? 100.0 * (double)gemm / (double)total : 0.0);
  char c1[32], c2[32], c3[32], cs[64];
  snprintf(cs, sizeof cs, "yolo-like %u, %d thread(s)", S, threads);
  pte_bench_fmt(c1, sizeof c1, best * 1e3, "ms");
  if (peer) {
    pte_bench_fmt(c2, sizeof c2, best_ref * 1e3, "ms");
    pte_bench_fmt(c3, sizeof c3, best_ref / best, NULL);
  }
  printf("RESULT\txnnpack_yolo\t%s\texecute\t%s\t%s\t%s\t%s\t-\t-\n", cs, c1, peer ? "pte scalar kernels" : "-",
         peer ? c2 : "-", peer ? c3 : "-");
  pte_xnn_delegate_destroy(ours.d);
  free(ours.y);
  if (peer) {
    pte_xnn_delegate_destroy(ref.d);
    free(ref.y);
  }
  free(x);
  pte_xnn_blob_free(&blob);
  return 0;
}
