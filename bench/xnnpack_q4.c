#define _POSIX_C_SOURCE 200809L
/* bench/xnnpack_q4 — FullyConnected with 4-bit weights (qdint8 activations x qbint4 / qcint4)
 * through the XnnpackBackend: the layer an 8da4w LLM runs per linear.
 *
 * Cases: N = K = 4096, qbint4 block 32 and 128 and qcint4, M = 1 (decode GEMV, memory bound) and
 * M = 128 (prefill), the graph fp32 x -> Convert (qdint8) -> FC -> fp32 y as the exporter lowers it.
 * Decode runs round-robin over enough delegate copies (each with its own packed weights) that
 * the weights streamed exceed 4x the last-level cache, so each call reads its weights from
 * memory as a model's decode step does. Reported: time per call, GB/s of packed weight bytes
 * streamed (nibbles + block scales + per-channel header), and that against this machine's read
 * bandwidth measured in the same run (an AVX2 load-and-add loop over 256 MiB, best of 5; memcpy shown too).
 * Prefill: GOPS (2 M N K / time). One thread is timed in process CPU time (this machine is shared by
 * other jobs; preempted time is not the kernel's), --threads N > 1 in wall time.
 * Peer: libXNNPACK (Debian 2022) has no qdint8 / qcint4 / qbint4 datatypes: reported as skipped
 * by name.
 *
 * --nk N K: decode (M = 1) of one N x K qb4w/128 layer only, e.g. an LLM's 768 x 768 projection.
 * Usage: bench_xnnpack_q4 [--quick] [--threads N] [--isa scalar|avx2|avx512] [--nk N K]
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_result.h"
#include "pte/backend_xnnpack.h"
#include "pte/evalue.h"
#include "pte/tensor.h"

/* One thread: process CPU time (the machine is shared; time spent preempted is not the kernel's),
 * the same clock for the bandwidth loop. More threads: wall time. */
static clockid_t bench_clock = CLOCK_PROCESS_CPUTIME_ID;
static double now_s(void) {
  struct timespec ts;
  clock_gettime(bench_clock, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint32_t rng = 99;
static uint32_t nextu(void) {
  rng = rng * 1664525u + 1013904223u;
  return rng >> 8;
}

/* read bandwidth: 32-byte loads summed into 4 independent accumulators (AVX2 when the CPU has
 * it, else 64-bit words), best of 5 passes over `bytes` */
static volatile uint64_t sink;
#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
#include <immintrin.h>
__attribute__((target("avx2"))) static uint64_t read_pass_avx2(const uint64_t *p, size_t bytes) {
  __m256i a = _mm256_setzero_si256(), b = a, c = a, d = a;
  const __m256i *v = (const __m256i *)(const void *)p;
  for (size_t i = 0; i + 4 <= bytes / 32; i += 4) {
    a = _mm256_add_epi64(a, _mm256_load_si256(v + i));
    b = _mm256_add_epi64(b, _mm256_load_si256(v + i + 1));
    c = _mm256_add_epi64(c, _mm256_load_si256(v + i + 2));
    d = _mm256_add_epi64(d, _mm256_load_si256(v + i + 3));
  }
  uint64_t o[4];
  _mm256_storeu_si256((__m256i *)(void *)o, _mm256_add_epi64(_mm256_add_epi64(a, b), _mm256_add_epi64(c, d)));
  return o[0] + o[1] + o[2] + o[3];
}
#endif
static uint64_t read_pass(const uint64_t *p, size_t bytes) {
#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
  if (__builtin_cpu_supports("avx2")) return read_pass_avx2(p, bytes);
#endif
  uint64_t a = 0, b = 0, c = 0, d = 0;
  for (size_t i = 0; i + 4 <= bytes / 8; i += 4) a += p[i], b += p[i + 1], c += p[i + 2], d += p[i + 3];
  return a + b + c + d;
}
static double read_bw(const uint64_t *p, size_t bytes) {
  double best = 0;
  for (int rep = 0; rep < 5; rep++) {
    double t = now_s();
    sink = read_pass(p, bytes);
    t = now_s() - t;
    if (bytes / t > best) best = bytes / t;
  }
  return best;
}
static double memcpy_bw(uint8_t *dst, const uint8_t *src, size_t bytes) {
  double best = 0;
  for (int rep = 0; rep < 3; rep++) {
    double t = now_s();
    memcpy(dst, src, bytes);
    t = now_s() - t;
    sink = dst[bytes / 2];
    if (bytes / t > best) best = bytes / t;
  }
  return best;
}

typedef struct tens {
  pte_tensor t;
  int32_t sizes[2], strides[2];
  uint8_t order[2];
  pte_evalue ev;
} tens;
static void tens_init(tens *x, float *data, size_t r, size_t c) {
  memset(x, 0, sizeof *x);
  x->sizes[0] = (int32_t)r, x->sizes[1] = (int32_t)c, x->strides[0] = (int32_t)c, x->strides[1] = 1;
  x->order[0] = 0, x->order[1] = 1;
  x->t.data = data, x->t.sizes = x->sizes, x->t.strides = x->strides, x->t.dim_order = x->order;
  x->t.numel = r * c, x->t.capacity_bytes = r * c * 4, x->t.dim = 2, x->t.dtype = PTE_DTYPE_FLOAT;
  x->ev.tag = PTE_TAG_TENSOR, x->ev.u.tensor = &x->t;
}

static int build(size_t m, size_t k, size_t n, size_t block, pte_xnn_blob *out) {
  const size_t wb = n * k / 2, nbs = block ? n * (k / block) : 0;
  uint8_t *w = malloc(wb);
  uint16_t *bs = malloc(nbs * 2 + 2);
  float *cs = malloc(n * 4), *bias = malloc(n * 4);
  for (size_t i = 0; i < wb; i++) w[i] = (uint8_t)nextu();
  for (size_t i = 0; i < nbs; i++) bs[i] = (uint16_t)(0x3B80 + nextu() % 0x100);
  for (size_t i = 0; i < n; i++) cs[i] = 0.01f, bias[i] = 0.5f;
  pte_xnn_builder *b = pte_xnn_builder_new();
  uint32_t xd[2] = {(uint32_t)m, (uint32_t)k}, wd[2] = {(uint32_t)n, (uint32_t)k}, yd[2] = {(uint32_t)m, (uint32_t)n};
  uint32_t bd[1] = {(uint32_t)n}, x = 0, xq = 0, wv = 0, bv = 0, y = 0;
  pte_xnn_tensor_desc t;
  int ok = 1;
  memset(&t, 0, sizeof t);
  t.dtype = PTE_XNN_DT_FP32, t.rank = 2, t.dims = xd, t.flags = PTE_XNN_VALUE_EXTERNAL_INPUT, t.external_id = 0;
  ok &= pte_xnn_builder_add_tensor(b, &t, &x) == PTE_OK;
  memset(&t, 0, sizeof t);
  t.dtype = PTE_XNN_DT_QDINT8, t.rank = 2, t.dims = xd, t.quant = PTE_XNN_QUANT_PER_TOKEN, t.num_nonbatch_dims = 1;
  ok &= pte_xnn_builder_add_tensor(b, &t, &xq) == PTE_OK;
  memset(&t, 0, sizeof t);
  t.dtype = block ? PTE_XNN_DT_QBINT4 : PTE_XNN_DT_QCINT4, t.rank = 2, t.dims = wd, t.data = w, t.nbytes = wb;
  if (block) t.quant = PTE_XNN_QUANT_PER_CHANNEL_GROUP, t.block_size = (uint32_t)block, t.block_scales_bf16 = bs, t.n_block_scales = nbs;
  else t.quant = PTE_XNN_QUANT_PER_CHANNEL, t.channel_scales = cs, t.n_channel_scales = (uint32_t)n;
  ok &= pte_xnn_builder_add_tensor(b, &t, &wv) == PTE_OK;
  memset(&t, 0, sizeof t);
  t.dtype = PTE_XNN_DT_FP32, t.rank = 1, t.dims = bd, t.data = bias, t.nbytes = n * 4;
  ok &= pte_xnn_builder_add_tensor(b, &t, &bv) == PTE_OK;
  memset(&t, 0, sizeof t);
  t.dtype = PTE_XNN_DT_FP32, t.rank = 2, t.dims = yd, t.flags = PTE_XNN_VALUE_EXTERNAL_OUTPUT, t.external_id = 1;
  ok &= pte_xnn_builder_add_tensor(b, &t, &y) == PTE_OK;
  pte_xnn_node_desc nd;
  memset(&nd, 0, sizeof nd);
  nd.type = PTE_XNN_NODE_CONVERT, nd.inputs[0] = x, nd.output = xq;
  ok &= pte_xnn_builder_add_node(b, &nd) == PTE_OK;
  memset(&nd, 0, sizeof nd);
  nd.type = PTE_XNN_NODE_FULLY_CONNECTED, nd.inputs[0] = xq, nd.inputs[1] = wv, nd.inputs[2] = bv, nd.output = y;
  ok &= pte_xnn_builder_add_node(b, &nd) == PTE_OK;
  pte_error_info err;
  ok &= pte_xnn_builder_finish(b, PTE_XNN_CONSTANTS_NAMED, out, &err) == PTE_OK;
  pte_xnn_builder_free(b);
  free(w), free(bs), free(cs), free(bias);
  return ok;
}

int main(int argc, char **argv) {
  int quick = 0, threads = 1;
  size_t K = 4096, N = 4096, only_block = 1; /* --nk: one shape (an LLM layer), qb4w/128 decode only */
  pte_xnn_isa isa = PTE_XNN_ISA_AUTO;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--quick")) quick = 1;
    else if (!strcmp(argv[i], "--threads") && i + 1 < argc) threads = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--nk") && i + 2 < argc) {
      N = (size_t)atol(argv[i + 1]), K = (size_t)atol(argv[i + 2]), only_block = 128, i += 2;
      if (N == 0 || K == 0 || K % 128) {
        fprintf(stderr, "--nk N K: N > 0, K a multiple of 128\n");
        return 2;
      }
    }
    else if (!strcmp(argv[i], "--isa") && i + 1 < argc) {
      const char *s = argv[++i];
      isa = !strcmp(s, "scalar") ? PTE_XNN_ISA_SCALAR : !strcmp(s, "avx2") ? PTE_XNN_ISA_AVX2 : PTE_XNN_ISA_AVX512;
    } else {
      fprintf(stderr, "usage: %s [--quick] [--threads N] [--isa scalar|avx2|avx512] [--nk N K]\n", argv[0]);
      return 2;
    }
  }
  if (threads > 1) bench_clock = CLOCK_MONOTONIC;
  printf("clock: %s\n", threads > 1 ? "wall" : "process CPU time");
  const size_t bw_bytes = (size_t)256 << 20;
  uint64_t *buf = aligned_alloc(64, bw_bytes);
  uint8_t *dst = malloc(bw_bytes);
  memset(buf, 1, bw_bytes);
  memset(dst, 2, bw_bytes);
  const double rbw = read_bw(buf, bw_bytes), cbw = memcpy_bw(dst, (const uint8_t *)buf, bw_bytes);
  free(dst);
  free(buf);
  printf("machine: read loop %.2f GB/s, memcpy %.2f GB/s (256 MiB, one thread)\n", rbw / 1e9, cbw / 1e9);
  pte_bench_result("xnnpack_q4", "256 MiB read loop", "read bandwidth", "GB/s", rbw / 1e9, NULL, -1, NAN, "-",
                   PTE_BENCH_NO_GOAL);
  pte_xnnpack_options o = {threads, isa};
  const size_t blocks[3] = {32, 128, 0};
  for (int bi = 0; bi < 3; bi++) {
    const size_t block = blocks[bi];
    if (only_block != 1 && block != only_block) continue;
    char cname[96];
    /* ---- decode: M = 1, round robin over copies ---- */
    pte_xnn_blob blob;
    if (!build(1, K, N, block, &blob)) return 1;
    pte_xnn_blob_data_map map;
    pte_xnn_blob_data_map_init(&map, &blob);
    const size_t packed = N * K / 2 + (block ? N * (K / block) * 2 : 0) + N / 16 * 192;
    size_t copies = (size_t)(128u << 20) / packed + 1;
    if (quick) copies = 2;
    pte_xnn_delegate **ds = calloc(copies, sizeof *ds);
    pte_error_info err;
    double tinit = 0;
    for (size_t c = 0; c < copies; c++) {
      double t0 = now_s();
      if (pte_xnn_delegate_init(blob.data, blob.size, &map.base, &o, &ds[c], &err) != PTE_OK) {
        fprintf(stderr, "init: %s\n", err.msg);
        return 1;
      }
      tinit += now_s() - t0;
    }
    printf("%-36s init (packing) %.1f ms per copy, %.0f MB/s of packed weights\n",
           block ? (block == 32 ? "qb4w/32" : "qb4w/128") : "qc4w", tinit / (double)copies * 1e3,
           packed / (tinit / (double)copies) / 1e6);
    float *x = malloc(K * 128 * 4), *y = malloc(N * 128 * 4);
    for (size_t i = 0; i < K * 128; i++) x[i] = (float)((int)(nextu() % 2001) - 1000) / 1000.0f;
    tens tx, ty;
    tens_init(&tx, x, 1, K);
    tens_init(&ty, y, 1, N);
    pte_evalue *args[2] = {&tx.ev, &ty.ev};
    for (size_t c = 0; c < copies; c++) pte_xnn_delegate_execute(ds[c], args, 2, &err); /* warm */
    const int rounds = quick ? 20 : 40;
    double best = 1e9;
    for (int rep = 0; rep < 5; rep++) {
      double t = now_s();
      for (int r = 0; r < rounds; r++)
        for (size_t c = 0; c < copies; c++) pte_xnn_delegate_execute(ds[c], args, 2, &err);
      t = (now_s() - t) / (double)(rounds * copies);
      if (t < best) best = t;
    }
    const double gbs = packed / best / 1e9;
    snprintf(cname, sizeof cname, "%s %zux%zu M=1, %d thread%s", block ? (block == 32 ? "qb4w/32" : "qb4w/128") : "qc4w",
             N, K, threads, threads > 1 ? "s" : "");
    printf("%-36s %8.1f us  %6.2f GB/s weights (%.1f MiB packed x %zu copies)  %.0f%% of read bandwidth\n", cname,
           best * 1e6, gbs, packed / 1048576.0, copies, 100.0 * gbs * 1e9 / rbw);
    pte_bench_result("xnnpack_q4", cname, "weights streamed", "GB/s", gbs, "read loop", rbw / 1e9, gbs * 1e9 / rbw,
                     threads == 1 ? ">= 0.7" : "-", threads == 1 ? pte_bench_check(gbs * 1e9 / rbw >= 0.7) : PTE_BENCH_NO_GOAL);
    for (size_t c = 0; c < copies; c++) pte_xnn_delegate_destroy(ds[c]);
    free(ds);
    pte_xnn_blob_free(&blob);
    if (only_block != 1) { /* --nk: decode only */
      free(x), free(y);
      continue;
    }
    /* ---- prefill: M = 128 ---- */
    if (!build(128, K, N, block, &blob)) return 1;
    pte_xnn_blob_data_map_init(&map, &blob);
    pte_xnn_delegate *d = NULL;
    if (pte_xnn_delegate_init(blob.data, blob.size, &map.base, &o, &d, &err) != PTE_OK) {
      fprintf(stderr, "init: %s\n", err.msg);
      return 1;
    }
    tens_init(&tx, x, 128, K);
    tens_init(&ty, y, 128, N);
    pte_xnn_delegate_execute(d, args, 2, &err);
    best = 1e9;
    for (int rep = 0; rep < (quick ? 2 : 5); rep++) {
      double t = now_s();
      pte_xnn_delegate_execute(d, args, 2, &err);
      t = now_s() - t;
      if (t < best) best = t;
    }
    snprintf(cname, sizeof cname, "%s %zux%zu M=128, %d thread%s", block ? (block == 32 ? "qb4w/32" : "qb4w/128") : "qc4w",
             N, K, threads, threads > 1 ? "s" : "");
    const double gops = 2.0 * 128 * N * K / best / 1e9;
    printf("%-36s %8.1f us  %6.1f GOPS\n", cname, best * 1e6, gops);
    pte_bench_result("xnnpack_q4", cname, "throughput", "GOPS", gops, NULL, -1, NAN, "-", PTE_BENCH_NO_GOAL);
    pte_bench_skipped("xnnpack_q4", cname, "vs libXNNPACK", "skipped: libXNNPACK 2022 lacks qdint8/qcint4/qbint4");
    pte_xnn_delegate_destroy(d);
    pte_xnn_blob_free(&blob);
    free(x), free(y);
  }
  return 0;
}
