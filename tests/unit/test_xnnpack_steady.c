/* XNNPACK backend, steady state: after a warm-up, executing a CNN graph (transpose, conv, SiLU,
 * depthwise conv, residual add, max pooling, concatenate, resize, global average pooling, fully
 * connected, clamp) makes no heap allocation and takes no page fault — the activation arena and
 * the scratch are planned and obtained at init. Allocations are counted by interposing malloc &
 * co. in this executable (skipped under sanitizers, which own the allocator); page faults with
 * getrusage (minor + major; the best of 3 runs, see steady_case). 1 and 2 threads, every ISA this CPU runs. The outputs of the timed
 * executes must equal the warm-up's (bit for bit) and be finite. */
#define _GNU_SOURCE
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "../../backends/xnnpack/xnn_internal.h"
#include "pte/backend_xnnpack.h"
#include "test.h"
#include "test_xnnpack_util.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define ST_COUNT_ALLOCS 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define ST_COUNT_ALLOCS 0
#endif
#endif
#ifndef ST_COUNT_ALLOCS
#if defined(__GLIBC__)
#define ST_COUNT_ALLOCS 1
#else
#define ST_COUNT_ALLOCS 0
#endif
#endif

static volatile long st_allocs; /* malloc/calloc/realloc/memalign calls while counting */
static volatile int st_counting;

#if ST_COUNT_ALLOCS
extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void __libc_free(void *);
void *malloc(size_t n) {
  if (st_counting) __atomic_add_fetch(&st_allocs, 1, __ATOMIC_RELAXED);
  return __libc_malloc(n);
}
void *calloc(size_t a, size_t b) {
  if (st_counting) __atomic_add_fetch(&st_allocs, 1, __ATOMIC_RELAXED);
  return __libc_calloc(a, b);
}
void *realloc(void *p, size_t n) {
  if (st_counting) __atomic_add_fetch(&st_allocs, 1, __ATOMIC_RELAXED);
  return __libc_realloc(p, n);
}
void free(void *p) { __libc_free(p); }
int posix_memalign(void **out, size_t align, size_t n) {
  if (st_counting) __atomic_add_fetch(&st_allocs, 1, __ATOMIC_RELAXED);
  void *p = __libc_memalign(align, n);
  if (!p) return 12; /* ENOMEM */
  *out = p;
  return 0;
}
void *aligned_alloc(size_t align, size_t n) {
  if (st_counting) __atomic_add_fetch(&st_allocs, 1, __ATOMIC_RELAXED);
  return __libc_memalign(align, n);
}
void *memalign(size_t align, size_t n) {
  if (st_counting) __atomic_add_fetch(&st_allocs, 1, __ATOMIC_RELAXED);
  return __libc_memalign(align, n);
}
#endif

static long st_faults(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_minflt + ru.ru_majflt;
}

/* ---- the graph ------------------------------------------------------------------------------ */
typedef struct st_t {
  uint32_t id, h, w, c;
} st_t;

static uint32_t st_val(pte_xnn_builder *b, uint32_t rank, const uint32_t *dims, uint32_t flags, uint32_t ext,
                       const float *data) {
  size_t n = 1;
  for (uint32_t i = 0; i < rank; i++) n *= dims[i];
  pte_xnn_tensor_desc t;
  memset(&t, 0, sizeof t);
  t.dtype = PTE_XNN_DT_FP32;
  t.rank = rank;
  t.dims = dims;
  t.flags = flags;
  t.external_id = ext;
  t.data = data;
  t.nbytes = data ? n * sizeof(float) : 0;
  uint32_t id = 0;
  if (pte_xnn_builder_add_tensor(b, &t, &id) != PTE_OK) return PTE_XNN_NO_VALUE;
  return id;
}

static uint32_t st_act(pte_xnn_builder *b, uint32_t h, uint32_t w, uint32_t c) {
  uint32_t dims[4] = {1, h, w, c};
  return st_val(b, 4, dims, 0, 0, NULL);
}

static uint32_t st_rand_const(pte_xnn_builder *b, uint32_t rank, const uint32_t *dims, float scale) {
  size_t n = 1;
  for (uint32_t i = 0; i < rank; i++) n *= dims[i];
  float *w = (float *)malloc(n * sizeof(float));
  xt_fill(w, n, scale);
  uint32_t id = st_val(b, rank, dims, 0, 0, w);
  free(w);
  return id;
}

static st_t st_conv(pte_xnn_builder *b, st_t x, uint32_t cout, uint32_t k, uint32_t stride, bool dw, bool silu) {
  const uint32_t pad = k / 2, oc = dw ? x.c : cout;
  const uint32_t oh = (x.h + 2 * pad - k) / stride + 1, ow = (x.w + 2 * pad - k) / stride + 1;
  uint32_t wd[4] = {dw ? 1 : oc, k, k, dw ? oc : x.c}, bd[1] = {oc};
  const uint32_t w = st_rand_const(b, 4, wd, 1.0f / sqrtf((float)(k * k * (dw ? 1 : x.c))));
  const uint32_t bias = st_rand_const(b, 1, bd, 0.1f);
  st_t y = {st_act(b, oh, ow, oc), oh, ow, oc};
  pte_xnn_node_desc nd;
  memset(&nd, 0, sizeof nd);
  nd.type = dw ? PTE_XNN_NODE_DEPTHWISE_CONV2D : PTE_XNN_NODE_CONV2D;
  nd.inputs[0] = x.id, nd.inputs[1] = w, nd.inputs[2] = bias, nd.output = y.id;
  for (int i = 0; i < 4; i++) nd.padding[i] = pad;
  nd.kernel[0] = nd.kernel[1] = k;
  nd.stride[0] = nd.stride[1] = stride;
  nd.dilation[0] = nd.dilation[1] = 1;
  nd.groups = dw ? x.c : 1;
  nd.group_input_channels = dw ? 1 : x.c;
  nd.group_output_channels = dw ? 1 : oc;
  nd.out_min = -INFINITY, nd.out_max = INFINITY;
  pte_xnn_builder_add_node(b, &nd);
  if (!silu) return y;
  const uint32_t s = st_act(b, oh, ow, oc), m = st_act(b, oh, ow, oc);
  memset(&nd, 0, sizeof nd);
  nd.type = PTE_XNN_NODE_SIGMOID, nd.inputs[0] = y.id, nd.output = s;
  pte_xnn_builder_add_node(b, &nd);
  memset(&nd, 0, sizeof nd);
  nd.type = PTE_XNN_NODE_MULTIPLY, nd.inputs[0] = y.id, nd.inputs[1] = s, nd.output = m;
  nd.out_min = -INFINITY, nd.out_max = INFINITY;
  pte_xnn_builder_add_node(b, &nd);
  y.id = m;
  return y;
}

static bool st_build(uint32_t S, pte_xnn_blob *blob) {
  pte_xnn_builder *b = pte_xnn_builder_new();
  uint32_t din[4] = {1, 3, S, S};
  const uint32_t in = st_val(b, 4, din, PTE_XNN_VALUE_EXTERNAL_INPUT, 0, NULL);
  st_t x = {st_act(b, S, S, 3), S, S, 3};
  static const uint32_t to_nhwc[4] = {0, 2, 3, 1};
  pte_xnn_node_desc nd;
  memset(&nd, 0, sizeof nd);
  nd.type = PTE_XNN_NODE_STATIC_TRANSPOSE, nd.inputs[0] = in, nd.output = x.id, nd.num_dims = 4, nd.a = to_nhwc;
  pte_xnn_builder_add_node(b, &nd);
  st_t s0 = st_conv(b, x, 16, 3, 2, false, true);
  st_t t = st_conv(b, s0, 0, 3, 2, true, true);
  t = st_conv(b, t, 32, 1, 1, false, true);
  st_t u = st_conv(b, t, 0, 3, 1, true, true);
  u = st_conv(b, u, 32, 1, 1, false, false);
  st_t r = {st_act(b, u.h, u.w, u.c), u.h, u.w, u.c};
  memset(&nd, 0, sizeof nd);
  nd.type = PTE_XNN_NODE_ADD, nd.inputs[0] = t.id, nd.inputs[1] = u.id, nd.output = r.id;
  nd.out_min = -INFINITY, nd.out_max = INFINITY;
  pte_xnn_builder_add_node(b, &nd);
  st_t p = {st_act(b, r.h, r.w, r.c), r.h, r.w, r.c};
  memset(&nd, 0, sizeof nd);
  nd.type = PTE_XNN_NODE_MAX_POOLING_2D, nd.inputs[0] = r.id, nd.output = p.id;
  for (int i = 0; i < 4; i++) nd.padding[i] = 1;
  nd.kernel[0] = nd.kernel[1] = 3, nd.stride[0] = nd.stride[1] = 1, nd.dilation[0] = nd.dilation[1] = 1;
  nd.out_min = -INFINITY, nd.out_max = INFINITY;
  pte_xnn_builder_add_node(b, &nd);
  st_t cat = {st_act(b, r.h, r.w, 2 * r.c), r.h, r.w, 2 * r.c};
  memset(&nd, 0, sizeof nd);
  nd.type = PTE_XNN_NODE_CONCATENATE2, nd.inputs[0] = r.id, nd.inputs[1] = p.id, nd.output = cat.id, nd.axis = 3;
  pte_xnn_builder_add_node(b, &nd);
  st_t up = {st_act(b, 2 * cat.h, 2 * cat.w, cat.c), 2 * cat.h, 2 * cat.w, cat.c};
  memset(&nd, 0, sizeof nd);
  nd.type = PTE_XNN_NODE_STATIC_RESIZE_BILINEAR_2D, nd.inputs[0] = cat.id, nd.output = up.id;
  nd.new_h = up.h, nd.new_w = up.w;
  pte_xnn_builder_add_node(b, &nd);
  uint32_t gd[2] = {1, up.c};
  const uint32_t g = st_val(b, 2, gd, 0, 0, NULL);
  memset(&nd, 0, sizeof nd);
  nd.type = PTE_XNN_NODE_GLOBAL_AVG_POOLING_2D, nd.inputs[0] = up.id, nd.output = g;
  nd.out_min = -INFINITY, nd.out_max = INFINITY;
  pte_xnn_builder_add_node(b, &nd);
  uint32_t wd[2] = {10, up.c}, bd[1] = {10}, od[2] = {1, 10};
  const uint32_t fw = st_rand_const(b, 2, wd, 0.2f), fb = st_rand_const(b, 1, bd, 0.1f);
  const uint32_t f = st_val(b, 2, od, 0, 0, NULL);
  memset(&nd, 0, sizeof nd);
  nd.type = PTE_XNN_NODE_FULLY_CONNECTED, nd.inputs[0] = g, nd.inputs[1] = fw, nd.inputs[2] = fb, nd.output = f;
  nd.out_min = -INFINITY, nd.out_max = INFINITY;
  pte_xnn_builder_add_node(b, &nd);
  const uint32_t out = st_val(b, 2, od, PTE_XNN_VALUE_EXTERNAL_OUTPUT, 1, NULL);
  memset(&nd, 0, sizeof nd);
  nd.type = PTE_XNN_NODE_CLAMP, nd.inputs[0] = f, nd.output = out, nd.out_min = -0.5f, nd.out_max = 0.5f;
  nd.has_min_max = true;
  pte_xnn_builder_add_node(b, &nd);
  pte_error_info err;
  pte_status s = pte_xnn_builder_finish(b, PTE_XNN_CONSTANTS_INLINE, blob, &err);
  pte_xnn_builder_free(b);
  return s == PTE_OK;
}

static void steady_case(pte_xnn_isa isa, int threads) {
  enum { S = 64, RUNS = 20 };
  pte_xnn_blob blob;
  CHECK(st_build(S, &blob));
  pte_xnnpack_options o = {threads, isa};
  pte_xnn_delegate *d = NULL;
  pte_error_info err;
  CHECK_OK(pte_xnn_delegate_init(blob.data, blob.size, NULL, &o, &d, &err));
  pte_xnn_blob_free(&blob);
  static float xin[3 * S * S];
  xt_fill(xin, 3 * S * S, 1.0f);
  float y0[10], y[10];
  size_t din[4] = {1, 3, S, S}, dout[2] = {1, 10};
  xt_tensor ti, to;
  xt_tensor_init(&ti, PTE_DTYPE_FLOAT, 4, din, xin, sizeof xin, 0);
  xt_tensor_init(&to, PTE_DTYPE_FLOAT, 2, dout, y0, sizeof y0, 0);
  pte_evalue *args[2] = {&ti.ev, &to.ev};
  /* warm-up: first touch of the arena and the scratch */
  CHECK_OK(pte_xnn_delegate_execute(d, args, 2, &err));
  CHECK_OK(pte_xnn_delegate_execute(d, args, 2, &err));
  int nonzero = 0;
  for (int i = 0; i < 10; i++) {
    CHECK(isfinite(y0[i]) && fabsf(y0[i]) <= 0.5f);
    nonzero += y0[i] != 0.0f;
  }
  CHECK(nonzero > 0);
  to.t.data = y;
  CHECK_OK(pte_xnn_delegate_execute(d, args, 2, &err)); /* the new output buffer, touched once */
  /* Allocations are counted exactly. Page faults: the kernel may fault a page in on its own now
   * and then (compaction or reclaim migrating it on a loaded machine), so a run of RUNS executes
   * is repeated up to 3 times and the minimum counts; memory the executes obtained themselves
   * would fault in every run. */
  long faults = -1;
  pte_status s = PTE_OK;
  st_allocs = 0;
  for (int attempt = 0; attempt < 3 && faults != 0 && s == PTE_OK; attempt++) {
    const long f0 = st_faults();
    st_counting = 1;
    for (int r = 0; r < RUNS && s == PTE_OK; r++) s = pte_xnn_delegate_execute(d, args, 2, &err);
    st_counting = 0;
    const long f = st_faults() - f0;
    if (faults < 0 || f < faults) faults = f;
  }
  CHECK_OK(s);
  CHECK_MSG(memcmp(y, y0, sizeof y) == 0, "isa %s threads %d: outputs changed across executes",
            pte_xnnpack_isa_name(isa), threads);
  fprintf(stderr, "  isa %-6s threads %d: %d executes, %ld allocations%s, %ld page faults\n", pte_xnnpack_isa_name(isa),
          threads, RUNS, (long)st_allocs, ST_COUNT_ALLOCS ? "" : " (not counted under a sanitizer)", faults);
  CHECK_MSG(st_allocs == 0, "%ld allocations in steady-state executes", (long)st_allocs);
  CHECK_MSG(faults == 0, "%ld page faults in each of 3 runs of %d steady-state executes", faults, RUNS);
  pte_xnn_delegate_destroy(d);
}

/* The counter itself works: an allocation while counting is seen (else the test above could not
 * fail). */
TEST(allocation_counter_counts) {
  if (!ST_COUNT_ALLOCS) {
    fprintf(stderr, "  (sanitizer build: allocation counting off; page faults still checked)\n");
    return;
  }
  st_allocs = 0;
  st_counting = 1;
  void *volatile p = malloc(100);
  void *volatile q = calloc(3, 7);
  st_counting = 0;
  free(p);
  free(q);
  CHECK_EQ_INT(st_allocs, 2);
}

TEST(steady_state_no_alloc_no_fault) {
  static const pte_xnn_isa isas[] = {PTE_XNN_ISA_SCALAR, PTE_XNN_ISA_AVX2, PTE_XNN_ISA_AVX512};
  for (size_t k = 0; k < 3; k++) {
    if (!pte_xnnpack_isa_supported(isas[k])) continue;
    steady_case(isas[k], 1);
    if (test_current_failed) return;
    steady_case(isas[k], 2);
    if (test_current_failed) return;
  }
}

/* The LLM decode step: fp32 x [1, 1024] -> Convert (qdint8) -> FullyConnected with blockwise
 * 4-bit weights [1024, 1024] (block 32, bf16 scales): no allocation, no page fault (the block sums
 * live in the planned shared scratch), 1 and 2 threads (the panels are split), every ISA. */
static bool st_build_q4(pte_xnn_blob *blob) {
  enum { K = 1024, N = 1024, B = 32 };
  static uint8_t w[N * K / 2];
  static uint16_t bs[N * (K / B)];
  for (size_t i = 0; i < sizeof w; i++) w[i] = (uint8_t)(i * 2654435761u >> 13);
  for (size_t i = 0; i < N * (K / B); i++) bs[i] = (uint16_t)(0x3B80 + (i % 97));
  pte_xnn_builder *b = pte_xnn_builder_new();
  uint32_t xd[2] = {1, K}, wd[2] = {N, K}, yd[2] = {1, N}, x = 0, xq = 0, wv = 0, y = 0;
  pte_xnn_tensor_desc t;
  memset(&t, 0, sizeof t);
  t.dtype = PTE_XNN_DT_FP32, t.rank = 2, t.dims = xd, t.flags = PTE_XNN_VALUE_EXTERNAL_INPUT;
  bool ok = pte_xnn_builder_add_tensor(b, &t, &x) == PTE_OK;
  memset(&t, 0, sizeof t);
  t.dtype = PTE_XNN_DT_QDINT8, t.rank = 2, t.dims = xd, t.quant = PTE_XNN_QUANT_PER_TOKEN, t.num_nonbatch_dims = 1;
  ok = ok && pte_xnn_builder_add_tensor(b, &t, &xq) == PTE_OK;
  memset(&t, 0, sizeof t);
  t.dtype = PTE_XNN_DT_QBINT4, t.rank = 2, t.dims = wd, t.data = w, t.nbytes = sizeof w;
  t.quant = PTE_XNN_QUANT_PER_CHANNEL_GROUP, t.block_size = B, t.block_scales_bf16 = bs, t.n_block_scales = N * (K / B);
  ok = ok && pte_xnn_builder_add_tensor(b, &t, &wv) == PTE_OK;
  memset(&t, 0, sizeof t);
  t.dtype = PTE_XNN_DT_FP32, t.rank = 2, t.dims = yd, t.flags = PTE_XNN_VALUE_EXTERNAL_OUTPUT, t.external_id = 1;
  ok = ok && pte_xnn_builder_add_tensor(b, &t, &y) == PTE_OK;
  pte_xnn_node_desc nd;
  memset(&nd, 0, sizeof nd);
  nd.type = PTE_XNN_NODE_CONVERT, nd.inputs[0] = x, nd.output = xq;
  ok = ok && pte_xnn_builder_add_node(b, &nd) == PTE_OK;
  memset(&nd, 0, sizeof nd);
  nd.type = PTE_XNN_NODE_FULLY_CONNECTED, nd.inputs[0] = xq, nd.inputs[1] = wv, nd.inputs[2] = PTE_XNN_NO_VALUE;
  nd.output = y;
  ok = ok && pte_xnn_builder_add_node(b, &nd) == PTE_OK;
  pte_error_info err;
  ok = ok && pte_xnn_builder_finish(b, PTE_XNN_CONSTANTS_INLINE, blob, &err) == PTE_OK;
  pte_xnn_builder_free(b);
  return ok;
}

TEST(steady_state_q4_decode) {
  static const pte_xnn_isa isas[] = {PTE_XNN_ISA_SCALAR, PTE_XNN_ISA_AVX2, PTE_XNN_ISA_AVX512};
  pte_xnn_blob blob;
  CHECK(st_build_q4(&blob));
  static float xin[1024], y0[1024], y[1024];
  xt_fill(xin, 1024, 1.0f);
  for (size_t k = 0; k < 3; k++) {
    if (!pte_xnnpack_isa_supported(isas[k])) continue;
    for (int threads = 1; threads <= 2; threads++) {
      pte_xnnpack_options o = {threads, isas[k]};
      pte_xnn_delegate *d = NULL;
      pte_error_info err;
      CHECK_OK(pte_xnn_delegate_init(blob.data, blob.size, NULL, &o, &d, &err));
      size_t din[2] = {1, 1024}, dout[2] = {1, 1024};
      xt_tensor ti, to;
      xt_tensor_init(&ti, PTE_DTYPE_FLOAT, 2, din, xin, sizeof xin, 0);
      xt_tensor_init(&to, PTE_DTYPE_FLOAT, 2, dout, y0, sizeof y0, 0);
      pte_evalue *args[2] = {&ti.ev, &to.ev};
      CHECK_OK(pte_xnn_delegate_execute(d, args, 2, &err));
      to.t.data = y;
      CHECK_OK(pte_xnn_delegate_execute(d, args, 2, &err));
      long faults = -1;
      pte_status s = PTE_OK;
      st_allocs = 0;
      for (int attempt = 0; attempt < 3 && faults != 0 && s == PTE_OK; attempt++) {
        const long f0 = st_faults();
        st_counting = 1;
        for (int r = 0; r < 20 && s == PTE_OK; r++) s = pte_xnn_delegate_execute(d, args, 2, &err);
        st_counting = 0;
        const long f = st_faults() - f0;
        if (faults < 0 || f < faults) faults = f;
      }
      CHECK_OK(s);
      CHECK(memcmp(y, y0, sizeof y) == 0);
      fprintf(stderr, "  q4 decode, isa %-6s threads %d: %ld allocations, %ld page faults\n", pte_xnnpack_isa_name(isas[k]),
              threads, (long)st_allocs, faults);
      CHECK_MSG(st_allocs == 0, "%ld allocations in steady-state executes", (long)st_allocs);
      CHECK_MSG(faults == 0, "%ld page faults in each of 3 runs of 20 steady-state executes", faults);
      pte_xnn_delegate_destroy(d);
    }
  }
  pte_xnn_blob_free(&blob);
}

/* Reshapes share storage instead of copying: x [2,6] -> r1 [3,4] (aliases the graph input),
 * y = r1 + r1, -> r2 [12] -> r3 [4,3] (both alias y), m = r3 * c, -> out [2,6] (m is computed
 * straight into the output buffer). Expected values by hand: out = 2 x * c (flat order). */
TEST(reshape_in_place) {
  pte_xnn_builder *b = pte_xnn_builder_new();
  uint32_t d26[2] = {2, 6}, d34[2] = {3, 4}, d12[1] = {12}, d43[2] = {4, 3};
  float c[12];
  for (int i = 0; i < 12; i++) c[i] = (float)(i + 1) * 0.5f;
  const uint32_t x = st_val(b, 2, d26, PTE_XNN_VALUE_EXTERNAL_INPUT, 0, NULL);
  const uint32_t r1 = st_val(b, 2, d34, 0, 0, NULL), y = st_val(b, 2, d34, 0, 0, NULL);
  const uint32_t r2 = st_val(b, 1, d12, 0, 0, NULL), r3 = st_val(b, 2, d43, 0, 0, NULL);
  const uint32_t cc = st_val(b, 2, d43, 0, 0, c), m = st_val(b, 2, d43, 0, 0, NULL);
  const uint32_t out = st_val(b, 2, d26, PTE_XNN_VALUE_EXTERNAL_OUTPUT, 1, NULL);
  pte_xnn_node_desc nd;
  const uint32_t *shapes[4] = {d34, d12, d43, d26};
  const uint32_t ranks[4] = {2, 1, 2, 2};
  const uint32_t ins[4] = {x, y, r2, m}, outs[4] = {r1, r2, r3, out};
  for (int k = 0; k < 4; k++) {
    if (k == 1) {
      memset(&nd, 0, sizeof nd);
      nd.type = PTE_XNN_NODE_ADD, nd.inputs[0] = r1, nd.inputs[1] = r1, nd.output = y;
      nd.out_min = -INFINITY, nd.out_max = INFINITY;
      pte_xnn_builder_add_node(b, &nd);
    }
    if (k == 3) {
      memset(&nd, 0, sizeof nd);
      nd.type = PTE_XNN_NODE_MULTIPLY, nd.inputs[0] = r3, nd.inputs[1] = cc, nd.output = m;
      nd.out_min = -INFINITY, nd.out_max = INFINITY;
      pte_xnn_builder_add_node(b, &nd);
    }
    memset(&nd, 0, sizeof nd);
    nd.type = PTE_XNN_NODE_STATIC_RESHAPE, nd.inputs[0] = ins[k], nd.output = outs[k];
    nd.num_dims = ranks[k], nd.a = shapes[k];
    pte_xnn_builder_add_node(b, &nd);
  }
  pte_xnn_blob blob;
  pte_error_info err;
  CHECK_OK(pte_xnn_builder_finish(b, PTE_XNN_CONSTANTS_INLINE, &blob, &err));
  pte_xnn_builder_free(b);
  pte_xnn_delegate *d = NULL;
  CHECK_OK(pte_xnn_delegate_init(blob.data, blob.size, NULL, NULL, &d, &err));
  pte_xnn_blob_free(&blob);
  size_t reshapes = 0;
  for (size_t i = 0; i < d->n_nodes; i++)
    if (d->nodes[i].type == PTE_XNN_NODE_STATIC_RESHAPE) {
      CHECK_EQ_INT(d->nodes[i].fuse, PTE_XNN_FUSE_ALIAS);
      reshapes++;
    }
  CHECK_EQ_INT(reshapes, 4);
  float xv[12], ov[12];
  for (int i = 0; i < 12; i++) xv[i] = (float)i - 5.0f, ov[i] = NAN;
  size_t dims[2] = {2, 6};
  xt_tensor ti, to;
  xt_tensor_init(&ti, PTE_DTYPE_FLOAT, 2, dims, xv, sizeof xv, 0);
  xt_tensor_init(&to, PTE_DTYPE_FLOAT, 2, dims, ov, sizeof ov, 0);
  pte_evalue *args[2] = {&ti.ev, &to.ev};
  CHECK_OK(pte_xnn_delegate_execute(d, args, 2, &err));
  for (int i = 0; i < 12; i++) CHECK_NEAR(ov[i], 2.0 * (double)xv[i] * (double)c[i], 0);
  /* storage: r1 is the input buffer, r2/r3 share y's arena slot, m is the output buffer */
  size_t ir1 = SIZE_MAX, ir3 = SIZE_MAX, iy = SIZE_MAX, im = SIZE_MAX;
  for (size_t i = 0; i < d->n_values; i++) {
    if (d->values[i].id == r1) ir1 = i;
    if (d->values[i].id == r3) ir3 = i;
    if (d->values[i].id == y) iy = i;
    if (d->values[i].id == m) im = i;
  }
  CHECK(ir1 != SIZE_MAX && ir3 != SIZE_MAX && iy != SIZE_MAX && im != SIZE_MAX);
  CHECK(!d->values[ir1].is_input && !d->values[im].is_output);
  CHECK(d->values[ir1].data == (uint8_t *)xv);
  CHECK(d->values[ir3].data == d->values[iy].data);
  CHECK(d->values[im].data == (uint8_t *)ov);
  pte_xnn_delegate_destroy(d);
}

int main(void) {
  RUN(reshape_in_place);
  RUN(allocation_counter_counts);
  RUN(steady_state_no_alloc_no_fault);
  RUN(steady_state_q4_decode);
  return test_summary();
}
