#define _POSIX_C_SOURCE 200809L
/* bench/llm_sdpa — llama::custom_sdpa.out per decode step (one new token) over a KV cache holding
 * 1 .. 2048 positions, and one 128-token prefill, with one layer of a Llama-3-8B-shaped attention:
 * 32 query heads, 8 kv heads, head_dim 128, float32, one thread.
 *
 * Peers measured in the same run:
 *   - the same kernel with the portable scalar inner loops (ratio = scalar time / ours), and with
 *     the AVX2 ones when the best is AVX-512 (time only);
 *   - a naive attention in plain C (one score buffer of start_pos + 1 floats per head, two-pass
 *     softmax, then the weighted sum: the textbook loop; ratio = naive time / ours);
 *   - the time to stream the same K/V bytes once with a vector sum (the memory-read roofline of
 *     a decode step; ratio = read time / ours, 1.0 would be bandwidth-bound);
 *   - ours on 2 threads (pte_llm_kernels_set_threads: kv heads split), in wall time against ours
 *     on 1 thread in wall time (ratio = 1-thread / 2-thread time).
 * Every variant's output is compared with the naive one before timing.
 *
 * Times are this thread's CPU time (best of 5 batches), so that time the thread spends
 * descheduled on a busy machine does not count; the 2-thread comparison is in wall time.
 *
 * Usage: bench_llm_sdpa [--quick] [--ctx N (only this context, no prefill)]
 *                       [--profile N: only our kernel at context N, for 2 s (for perf record)]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_result.h"
#include "pte/kernel.h"
#include "pte/llm_kernels.h"
#include "pte/tensor.h"

enum { HQ = 32, HKV = 8, D = 128, LMAX = 2048 };

static clockid_t g_clock = CLOCK_THREAD_CPUTIME_ID; /* CPU time: the machine may be shared */
static double now_s(void) {
  struct timespec ts;
  clock_gettime(g_clock, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

typedef struct btensor {
  pte_tensor t;
  int32_t sizes[4], strides[4];
  uint8_t order[4];
  pte_evalue ev;
} btensor;

static void bt_init(btensor *b, float *data, int dim, const int32_t *sizes) {
  memset(b, 0, sizeof *b);
  size_t n = 1;
  for (int i = 0; i < dim; i++) b->sizes[i] = sizes[i], b->order[i] = (uint8_t)i, n *= (size_t)sizes[i];
  pte_strides_from_dim_order(b->sizes, b->order, dim, b->strides);
  b->t.data = data, b->t.sizes = b->sizes, b->t.strides = b->strides, b->t.dim_order = b->order;
  b->t.numel = n, b->t.capacity_bytes = n * sizeof(float), b->t.dim = dim, b->t.dtype = PTE_DTYPE_FLOAT;
  b->ev.tag = PTE_TAG_TENSOR, b->ev.u.tensor = &b->t;
}

typedef struct sdpa_call {
  pte_op_fn fn;
  btensor q, k, v, out;
  pte_evalue pos, none, drop, causal;
  pte_evalue *args[10];
  pte_allocator temp;
  uint8_t *temp_mem;
} sdpa_call;

static float *g_q, *g_k, *g_v, *g_out, *g_ref, *g_scores;

static void call_setup(sdpa_call *c, int S, int start) {
  const int32_t sq[] = {1, S, HQ, D}, sc[] = {1, LMAX, HKV, D};
  bt_init(&c->q, g_q, 4, sq);
  bt_init(&c->k, g_k, 4, sc);
  bt_init(&c->v, g_v, 4, sc);
  bt_init(&c->out, g_out, 4, sq);
  c->pos.tag = PTE_TAG_INT, c->pos.u.i = start;
  c->none.tag = PTE_TAG_NONE;
  c->drop.tag = PTE_TAG_DOUBLE, c->drop.u.d = 0.0;
  c->causal.tag = PTE_TAG_BOOL, c->causal.u.b = true;
  pte_evalue *a[10] = {&c->q.ev, &c->k.ev, &c->v.ev, &c->pos, &c->none, &c->drop, &c->causal, &c->none,
                       &c->out.ev, &c->out.ev};
  memcpy(c->args, a, sizeof a);
}

static int call_run(sdpa_call *c) {
  pte_kernel_context ctx;
  memset(&ctx, 0, sizeof ctx);
  pte_allocator_reset(&c->temp);
  ctx.temp = &c->temp;
  c->fn(&ctx, c->args, 10);
  if (ctx.failure != PTE_OK) fprintf(stderr, "custom_sdpa failed: %s\n", ctx.msg);
  return ctx.failure == PTE_OK;
}

/* The textbook attention, decode/prefill with causal mask, into g_ref. */
static void naive(int S, int start) {
  const int G = HQ / HKV;
  const float scale = 1.0f / sqrtf((float)D);
  for (int s = 0; s < S; s++)
    for (int h = 0; h < HQ; h++) {
      const int g = h / G, n = start + s + 1;
      const float *qr = g_q + ((size_t)s * HQ + h) * D;
      float mx = -INFINITY;
      for (int j = 0; j < n; j++) {
        const float *kr = g_k + ((size_t)j * HKV + g) * D;
        float a = 0;
        for (int d = 0; d < D; d++) a += qr[d] * kr[d];
        g_scores[j] = a * scale;
        if (g_scores[j] > mx) mx = g_scores[j];
      }
      float sum = 0;
      for (int j = 0; j < n; j++) sum += (g_scores[j] = expf(g_scores[j] - mx));
      float *o = g_ref + ((size_t)s * HQ + h) * D;
      for (int d = 0; d < D; d++) o[d] = 0;
      for (int j = 0; j < n; j++) {
        const float w = g_scores[j] / sum;
        const float *vr = g_v + ((size_t)j * HKV + g) * D;
        for (int d = 0; d < D; d++) o[d] += w * vr[d];
      }
    }
}

static volatile float g_sink;
/* Reads the K and V rows [0, n) once (8 independent sums so the adds do not serialise). */
static void stream_kv(int n) {
  const size_t cnt = (size_t)n * HKV * D;
  float a[8] = {0};
  for (size_t i = 0; i + 8 <= cnt; i += 8)
    for (int l = 0; l < 8; l++) a[l] += g_k[i + l] + g_v[i + l];
  g_sink = a[0] + a[1] + a[2] + a[3] + a[4] + a[5] + a[6] + a[7];
}

/* Seconds per call: the best of 5 batches of about `secs` / 5 each. */
typedef void (*bench_fn)(void *);
static double time_it(bench_fn fn, void *ctx, double secs) {
  fn(ctx);
  double t0 = now_s();
  int n = 0;
  do fn(ctx), n++;
  while (now_s() - t0 < secs / 5);
  double best = INFINITY;
  for (int r = 0; r < 5; r++) {
    double s = now_s();
    for (int i = 0; i < n; i++) fn(ctx);
    double t = (now_s() - s) / n;
    if (t < best) best = t;
  }
  return best;
}

typedef struct bctx {
  sdpa_call *c;
  int S, start;
} bctx;
static void b_sdpa(void *p) { call_run(((bctx *)p)->c); }
static void b_naive(void *p) { naive(((bctx *)p)->S, ((bctx *)p)->start); }
static void b_stream(void *p) { stream_kv(((bctx *)p)->start + ((bctx *)p)->S); }

static double max_diff(int S) {
  double w = 0;
  for (size_t i = 0; i < (size_t)S * HQ * D; i++) w = fmax(w, fabs((double)g_out[i] - (double)g_ref[i]));
  return w;
}

int main(int argc, char **argv) {
  int quick = 0, only = 0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--quick")) quick = 1;
    else if (!strcmp(argv[i], "--ctx") && i + 1 < argc) only = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--profile") && i + 1 < argc) only = -atoi(argv[++i]);
    else {
      fprintf(stderr, "usage: bench_llm_sdpa [--quick] [--ctx N]\n");
      return 2;
    }
  }
  const int profile = only < 0;
  if (profile) only = -only;
  if (only < 0 || only > LMAX || (profile && only == 0)) {
    fprintf(stderr, "--ctx must be 1..%d\n", LMAX);
    return 2;
  }
  const double secs = quick ? 0.05 : 0.5;
  const size_t ncache = (size_t)LMAX * HKV * D, nq = (size_t)128 * HQ * D;
  g_q = malloc(nq * sizeof(float)), g_out = malloc(nq * sizeof(float)), g_ref = malloc(nq * sizeof(float));
  g_k = malloc(ncache * sizeof(float)), g_v = malloc(ncache * sizeof(float));
  g_scores = malloc(LMAX * sizeof(float));
  sdpa_call c;
  memset(&c, 0, sizeof c);
  c.temp_mem = malloc(4u << 20);
  if (!g_q || !g_out || !g_ref || !g_k || !g_v || !g_scores || !c.temp_mem) return 1;
  pte_allocator_init(&c.temp, c.temp_mem, 4u << 20);
  uint32_t seed = 1;
  for (size_t i = 0; i < ncache; i++) {
    seed = seed * 1664525u + 1013904223u;
    g_k[i] = (float)((int)(seed >> 9) % 2001 - 1000) / 1000.0f;
    seed = seed * 1664525u + 1013904223u;
    g_v[i] = (float)((int)(seed >> 9) % 2001 - 1000) / 1000.0f;
  }
  for (size_t i = 0; i < nq; i++) {
    seed = seed * 1664525u + 1013904223u;
    g_q[i] = (float)((int)(seed >> 9) % 2001 - 1000) / 1000.0f;
  }
  if (pte_register_llm_kernels() != PTE_OK) return 1;
  for (size_t i = 0; i < pte_llm_kernel_count(); i++)
    if (!strcmp(pte_llm_kernel(i)->name, "llama::custom_sdpa.out")) c.fn = pte_llm_kernel(i)->fn;
  if (!c.fn) return 1;
  pte_llm_kernels_set_isa(PTE_LLM_ISA_AUTO);
  const pte_llm_isa best = pte_llm_kernels_isa();
  if (profile) {
    bctx b = {&c, 1, only - 1};
    call_setup(&c, 1, only - 1);
    const double t = time_it(b_sdpa, &b, 2.0);
    printf("context %d: %.2f us per decode step (%s)\n", only, t * 1e6, pte_llm_isa_name(best));
    return 0;
  }
  printf("llm_sdpa: custom_sdpa decode step, 1 layer, %d q heads / %d kv heads, head_dim %d, fp32, 1 thread, "
         "ISA %s\n", HQ, HKV, D, pte_llm_isa_name(best));
  const int has_avx2 = best == PTE_LLM_ISA_AVX512 && pte_llm_isa_supported(PTE_LLM_ISA_AVX2);
  printf("%8s %12s %12s %12s %12s %12s %12s %9s %9s %9s %10s\n", "context", "ours", "2 thr wall", "avx2", "scalar",
         "naive", "kv read", "x scalar", "x naive", "of read", "GB/s");
  const int ctxs[] = {1, 16, 128, 512, 1024, 2048};
  int failed = 0;
  for (size_t ci = 0; ci < sizeof ctxs / sizeof ctxs[0]; ci++) {
    const int n = only ? only : ctxs[ci], start = n - 1;
    if (only && ci) break;
    bctx b = {&c, 1, start};
    call_setup(&c, 1, start);
    naive(1, start);
    double worst = 0;
    pte_llm_kernels_set_isa(PTE_LLM_ISA_SCALAR);
    if (!call_run(&c)) return 1;
    worst = fmax(worst, max_diff(1));
    pte_llm_kernels_set_isa(best);
    if (!call_run(&c)) return 1;
    worst = fmax(worst, max_diff(1));
    if (!(worst < 1e-4)) {
      fprintf(stderr, "context %d: outputs differ from the naive attention by %g\n", n, worst);
      failed = 1;
    }
    pte_llm_kernels_set_isa(PTE_LLM_ISA_SCALAR);
    const double t_scalar = time_it(b_sdpa, &b, secs);
    pte_llm_kernels_set_isa(best);
    double t_avx2 = NAN;
    if (has_avx2) {
      pte_llm_kernels_set_isa(PTE_LLM_ISA_AVX2);
      t_avx2 = time_it(b_sdpa, &b, secs);
    }
    pte_llm_kernels_set_isa(best);
    const double t_ours = time_it(b_sdpa, &b, secs);
    g_clock = CLOCK_MONOTONIC;
    const double t_one_wall = time_it(b_sdpa, &b, secs);
    pte_llm_kernels_set_threads(2);
    const double t_two = time_it(b_sdpa, &b, secs);
    pte_llm_kernels_set_threads(1);
    g_clock = CLOCK_THREAD_CPUTIME_ID;
    const double t_naive = time_it(b_naive, &b, secs);
    const double t_read = time_it(b_stream, &b, secs);
    const double bytes = 2.0 * n * HKV * D * sizeof(float);
    printf("%8d %9.2f us %9.2f us %9.2f us %9.2f us %9.2f us %9.2f us %9.2f %9.2f %9.2f %10.1f\n", n,
           t_ours * 1e6, t_two * 1e6, t_avx2 * 1e6, t_scalar * 1e6,
           t_naive * 1e6, t_read * 1e6, t_scalar / t_ours, t_naive / t_ours, t_read / t_ours, bytes / t_ours * 1e-9);
    char cname[64];
    snprintf(cname, sizeof cname, "decode, context %d (32/8 heads, D 128)", n);
    pte_bench_result("llm_sdpa", cname, "time per step", "µs", t_ours * 1e6, "naive C attention", t_naive * 1e6,
                     t_naive / t_ours, NULL, PTE_BENCH_NO_GOAL);
    if (n >= 512)
      pte_bench_result("llm_sdpa", cname, "2 threads (wall)", "µs", t_two * 1e6, "1 thread (wall)",
                       t_one_wall * 1e6, t_one_wall / t_two, NULL, PTE_BENCH_NO_GOAL);
    if (n >= 512)
      pte_bench_result("llm_sdpa", cname, "vs K/V read time", "µs", t_ours * 1e6, "streaming the K/V bytes",
                       t_read * 1e6, t_read / t_ours, NULL, PTE_BENCH_NO_GOAL);
  }
  /* prefill: 128 tokens at position 0 */
  if (!only) {
    const int S = 128;
    bctx b = {&c, S, 0};
    call_setup(&c, S, 0);
    naive(S, 0);
    if (!call_run(&c)) return 1;
    if (!(max_diff(S) < 1e-4)) {
      fprintf(stderr, "prefill: outputs differ from the naive attention by %g\n", max_diff(S));
      failed = 1;
    }
    const double t_ours = time_it(b_sdpa, &b, secs);
    const double t_naive = time_it(b_naive, &b, secs);
    printf("prefill 128 tokens: ours %.1f us (%.0f tokens/s), naive %.1f us, x naive %.2f\n", t_ours * 1e6,
           S / t_ours, t_naive * 1e6, t_naive / t_ours);
    pte_bench_result("llm_sdpa", "prefill 128 tokens at 0 (32/8 heads, D 128)", "time", "µs", t_ours * 1e6,
                     "naive C attention", t_naive * 1e6, t_naive / t_ours, NULL, PTE_BENCH_NO_GOAL);
  }
  free(g_q), free(g_out), free(g_ref), free(g_k), free(g_v), free(g_scores), free(c.temp_mem);
  return failed;
}
