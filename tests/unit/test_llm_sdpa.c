/* LLM operator library (kernels/llm, include/pte/llm_kernels.h): llama::custom_sdpa.out,
 * llama::sdpa_with_kv_cache.out, llama::update_cache.out, llama::update_cache_with_indices.out.
 *
 * Expected values come from a plain double-precision attention written here (ref_attn: scores,
 * max-shifted softmax, weighted sum; no tiling, nothing shared with the kernels), cross-checked
 * once against numpy at test time. Every attention case runs on each instruction set the CPU has
 * (scalar, AVX2, AVX-512). Cache rows the kernels must not read hold NaN, so reading one shows in
 * the output. A program built with the writer runs update_cache + custom_sdpa on mutable-buffer
 * caches through pte_module over several executes and checks the caches after each one.
 */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "knn_numpy.h"
#include "ktest.h"
#include "llm/llm_ops.h"
#include "pte/llm_kernels.h"
#include "pte/module.h"
#include "pte/writer.h"
#include "test.h"

/* ------------------------------------------------------------------ helpers */

static uint32_t g_seed = 12345u;
static double rnd(void) { /* uniform in [-1, 1) on a 2^-20 grid */
  g_seed = g_seed * 1664525u + 1013904223u;
  return (double)((int32_t)(g_seed >> 11) - (1 << 20)) / (double)(1 << 20);
}
static void fill_rnd(double *x, size_t n) {
  for (size_t i = 0; i < n; i++) x[i] = rnd();
}

/* Attention in double. q [B,S,Hq,D]; kc/vc [B,L,Hkv,D] (rows < start + S used); mask [S, start+S]
 * or NULL; out [B,S,Hq,D]. */
static void ref_attn(const double *q, const double *kc, const double *vc, int B, int S, int Hq, int Hkv,
                     int D, int L, int start, const double *mask, bool causal, double scale, double *out) {
  const int n = start + S, G = Hq / Hkv;
  double *w = malloc(sizeof(double) * (size_t)n);
  for (int b = 0; b < B; b++)
    for (int s = 0; s < S; s++)
      for (int h = 0; h < Hq; h++) {
        const int g = h / G;
        const double *qr = q + (((size_t)b * S + s) * Hq + h) * D;
        double mx = -INFINITY;
        for (int j = 0; j < n; j++) {
          const double *kr = kc + (((size_t)b * L + j) * Hkv + g) * D;
          double dot = 0;
          for (int d = 0; d < D; d++) dot += qr[d] * kr[d];
          double sc = dot * scale;
          if (mask) sc += mask[(size_t)s * n + j];
          if (causal && j > start + s) sc = -INFINITY;
          w[j] = sc;
          if (sc > mx) mx = sc;
        }
        double sum = 0;
        for (int j = 0; j < n; j++) sum += (w[j] = w[j] == -INFINITY ? 0.0 : exp(w[j] - mx));
        double *o = out + (((size_t)b * S + s) * Hq + h) * D;
        for (int d = 0; d < D; d++) {
          double a = 0;
          for (int j = 0; j < n; j++) a += w[j] * vc[(((size_t)b * L + j) * Hkv + g) * D + d];
          o[d] = a / sum;
        }
      }
  free(w);
}

static pte_op_fn llm_fn(const char *name) {
  for (size_t i = 0; i < pte_llm_kernel_count(); i++)
    if (!strcmp(pte_llm_kernel(i)->name, name)) return pte_llm_kernel(i)->fn;
  return NULL;
}

/* Worst |got - want| / (tol_abs + tol_rel |want|) over n values (> 1 fails); NaN -> inf. */
static double worst_err(const pte_tensor *t, const double *want, size_t n, double tol) {
  double worst = 0;
  for (size_t i = 0; i < n; i++) {
    const double g = ktest_get(t, i);
    const double e = fabs(g - want[i]) / (tol + tol * fabs(want[i]));
    if (!(e <= worst)) worst = isnan(e) ? INFINITY : e;
  }
  return worst;
}

static const pte_llm_isa k_isas[] = {PTE_LLM_ISA_SCALAR, PTE_LLM_ISA_AVX2, PTE_LLM_ISA_AVX512};

/* ------------------------------------------------------------------ attention cases */

typedef struct attn_case {
  int B, S, Hq, Hkv, D, L, start;
  bool causal, mask, scale, with_cache; /* with_cache: sdpa_with_kv_cache, else custom_sdpa */
} attn_case;

/* Runs one case on the current ISA; returns false (after test_fail) on a mismatch. `hk`/`hv`
 * hold the history [B, L, Hkv, D] (rows < start) and receive the new rows. */
static bool run_case(const attn_case *c, double *hk, double *hv, const char *label) {
  const int B = c->B, S = c->S, Hq = c->Hq, Hkv = c->Hkv, D = c->D, L = c->L, st = c->start, n = st + S;
  const size_t nq = (size_t)B * S * Hq * D, nkv = (size_t)B * S * Hkv * D, nc = (size_t)B * L * Hkv * D;
  double *q = malloc(nq * sizeof(double)), *k = malloc(nkv * sizeof(double)), *v = malloc(nkv * sizeof(double));
  double *cinit_k = malloc(nc * sizeof(double)), *cinit_v = malloc(nc * sizeof(double));
  double *mask = c->mask ? malloc((size_t)S * n * sizeof(double)) : NULL;
  double *want = malloc(nq * sizeof(double));
  fill_rnd(q, nq);
  fill_rnd(k, nkv);
  fill_rnd(v, nkv);
  if (mask) {
    fill_rnd(mask, (size_t)S * n);
    for (int s = 0; s < S; s++)
      for (int j = 0; j < n; j++)
        if ((s * 7 + j * 3) % 5 == 0 && j != s) mask[(size_t)s * n + j] = -INFINITY;
  }
  /* history rows into the test's own copy; new rows appended by the test */
  for (int b = 0; b < B; b++)
    for (int s = 0; s < S; s++)
      for (int x = 0; x < Hkv * D; x++) {
        hk[((size_t)b * L + st + s) * Hkv * D + x] = k[((size_t)b * S + s) * Hkv * D + x];
        hv[((size_t)b * L + st + s) * Hkv * D + x] = v[((size_t)b * S + s) * Hkv * D + x];
      }
  /* the kernel's caches: history below start, NaN at and after it unless custom_sdpa (which
   * needs the new rows in place already); NaN past start + S always */
  for (size_t i = 0; i < nc; i++) {
    const size_t row = (i / ((size_t)Hkv * D)) % (size_t)L;
    const bool have = (int)row < st || (!c->with_cache && (int)row < n);
    cinit_k[i] = have ? hk[i] : NAN;
    cinit_v[i] = have ? hv[i] : NAN;
  }
  const double scale = c->scale ? 0.3 : 1.0 / sqrt((double)D);
  ref_attn(q, hk, hv, B, S, Hq, Hkv, D, L, st, mask, c->causal, scale, want);

  const int32_t sq[] = {B, S, Hq, D}, skv[] = {B, S, Hkv, D}, sc[] = {B, L, Hkv, D}, sm[] = {S, n};
  pte_tensor *tq = ktest_tensor(PTE_DTYPE_FLOAT, 4, sq, NULL, q);
  pte_tensor *tk = ktest_tensor(PTE_DTYPE_FLOAT, 4, skv, NULL, k);
  pte_tensor *tv = ktest_tensor(PTE_DTYPE_FLOAT, 4, skv, NULL, v);
  pte_tensor *kc = ktest_tensor(PTE_DTYPE_FLOAT, 4, sc, NULL, cinit_k);
  pte_tensor *vc = ktest_tensor(PTE_DTYPE_FLOAT, 4, sc, NULL, cinit_v);
  pte_tensor *tm = mask ? ktest_tensor(PTE_DTYPE_FLOAT, 2, sm, NULL, mask) : NULL;
  pte_tensor *out = ktest_tensor(PTE_DTYPE_FLOAT, 4, sq, NULL, NULL);
  pte_evalue *eo = ktest_ev_tensor(out);
  pte_evalue *em = tm ? ktest_ev_tensor(tm) : ktest_ev_none();
  pte_evalue *escale = c->scale ? ktest_ev_double(0.3) : ktest_ev_none();
  pte_status s;
  if (c->with_cache) {
    pte_evalue *args[] = {ktest_ev_tensor(tq), ktest_ev_tensor(tk), ktest_ev_tensor(tv), ktest_ev_tensor(kc),
                          ktest_ev_tensor(vc), ktest_ev_int(st), ktest_ev_int(S), em, ktest_ev_double(0.0),
                          ktest_ev_bool(c->causal), escale, eo, eo};
    s = ktest_run(llm_fn("llama::sdpa_with_kv_cache.out"), args, 13);
  } else {
    pte_evalue *args[] = {ktest_ev_tensor(tq), ktest_ev_tensor(kc), ktest_ev_tensor(vc), ktest_ev_int(st), em,
                          ktest_ev_double(0.0), ktest_ev_bool(c->causal), escale, eo, eo};
    s = ktest_run(llm_fn("llama::custom_sdpa.out"), args, 10);
  }
  bool ok = true;
  if (s != PTE_OK) {
    test_fail(__FILE__, __LINE__, "%s: %s: %s", label, pte_status_name(s), ktest_last_msg());
    ok = false;
  }
  /* caches: history + new rows exactly, NaN beyond */
  for (size_t i = 0; ok && i < nc; i++) {
    const size_t row = (i / ((size_t)Hkv * D)) % (size_t)L;
    const double gk = ktest_get(kc, i), gv = ktest_get(vc, i);
    const bool same = (int)row < n ? (gk == (double)(float)hk[i] && gv == (double)(float)hv[i])
                                   : (isnan(gk) && isnan(gv));
    if (!same) {
      test_fail(__FILE__, __LINE__, "%s: cache element %zu (row %zu) is %g/%g", label, i, row, gk, gv);
      ok = false;
    }
  }
  const double tol = 2e-5;
  const double werr = ok ? worst_err(out, want, nq, tol) : 0;
  if (ok && !(werr <= 1.0)) {
    test_fail(__FILE__, __LINE__, "%s [%s]: output off by %.3g x tolerance %g", label,
              pte_llm_isa_name(pte_llm_kernels_isa()), werr, tol);
    ok = false;
  }
  free(q), free(k), free(v), free(cinit_k), free(cinit_v), free(mask), free(want);
  ktest_free_all();
  return ok;
}

/* Runs `c` (a fresh history of random rows below start) on every ISA the CPU has. */
static bool run_all_isas(const attn_case *c, const char *label) {
  const size_t nc = (size_t)c->B * c->L * c->Hkv * c->D;
  double *hk = malloc(nc * sizeof(double)), *hv = malloc(nc * sizeof(double));
  bool ok = true;
  for (size_t i = 0; i < sizeof k_isas / sizeof k_isas[0] && ok; i++) {
    if (!pte_llm_isa_supported(k_isas[i])) continue;
    if (pte_llm_kernels_set_isa(k_isas[i]) != PTE_OK) ok = false;
    g_seed = 777u + (uint32_t)c->start * 31u + (uint32_t)c->S;
    fill_rnd(hk, nc);
    fill_rnd(hv, nc);
    if (ok) ok = run_case(c, hk, hv, label);
  }
  pte_llm_kernels_set_isa(PTE_LLM_ISA_AUTO);
  free(hk), free(hv);
  return ok;
}

TEST(isas_available) {
  /* the ISA this test machine is expected to exercise; scalar always */
  CHECK(pte_llm_isa_supported(PTE_LLM_ISA_SCALAR));
  CHECK_OK(pte_llm_kernels_set_isa(PTE_LLM_ISA_SCALAR));
  CHECK_EQ_INT(pte_llm_kernels_isa(), PTE_LLM_ISA_SCALAR);
  CHECK_OK(pte_llm_kernels_set_isa(PTE_LLM_ISA_AUTO));
  CHECK(pte_llm_kernels_isa() != PTE_LLM_ISA_AUTO);
  CHECK_STATUS(pte_llm_kernels_set_isa((pte_llm_isa)9), PTE_ERR_INVALID_ARGUMENT);
  CHECK_STR(pte_llm_isa_name(PTE_LLM_ISA_AVX512), "avx512");
  int n = 0;
  for (size_t i = 0; i < 3; i++) n += pte_llm_isa_supported(k_isas[i]);
  if (n < 3) SKIP("this CPU runs %d of the 3 instruction sets; the others are untested here", n);
}

TEST(prefill_causal) {
  const attn_case c = {2, 7, 4, 2, 20, 16, 0, true, false, false, true};
  CHECK(run_all_isas(&c, "prefill seq 7, GQA 4/2, D 20"));
}

TEST(prefill_mha_with_scale) {
  const attn_case c = {1, 5, 3, 3, 16, 8, 0, true, false, true, true};
  CHECK(run_all_isas(&c, "prefill MHA 3 heads, scale 0.3"));
}

TEST(noncausal_prefill_at_offset) {
  const attn_case c = {1, 4, 8, 1, 32, 12, 3, false, false, false, true};
  CHECK(run_all_isas(&c, "non-causal, start 3, MQA 8/1"));
}

TEST(explicit_mask) {
  const attn_case c = {2, 3, 4, 2, 24, 10, 5, false, true, false, false};
  CHECK(run_all_isas(&c, "custom_sdpa with attn_mask, start 5"));
}

TEST(long_tiles_and_blocks) {
  /* rows 80 x 4 heads per kv head (> one 64-row block), keys 380 (> one 256-key tile), D 128 */
  const attn_case c = {1, 80, 8, 2, 128, 400, 300, true, false, false, true};
  CHECK(run_all_isas(&c, "prefill 80 at 300, D 128"));
  /* decode over 700 keys, odd head dim */
  const attn_case d = {1, 1, 6, 2, 67, 800, 699, true, false, false, false};
  CHECK(run_all_isas(&d, "decode at 699, D 67"));
}

/* Many small random shapes (head_dim 1..40 for every vector tail, row counts that are not
 * multiples of 4, odd key counts, masks, both entry points) on every ISA. */
TEST(random_shapes_sweep) {
  uint32_t st = 31337u;
  for (int it = 0; it < 60; it++) {
#define PICK(n) ((int)((st = st * 1664525u + 1013904223u) >> 16) % (n))
    attn_case c;
    c.B = 1 + PICK(2);
    c.Hkv = 1 + PICK(3);
    c.Hq = c.Hkv * (1 + PICK(5));
    c.D = 1 + PICK(40);
    c.S = 1 + PICK(9);
    c.start = PICK(3) == 0 ? 0 : PICK(30);
    c.L = c.start + c.S + PICK(4);
    c.mask = PICK(4) == 0;
    c.causal = !c.mask && PICK(3) != 0;
    c.scale = PICK(4) == 0;
    c.with_cache = PICK(2) == 0;
#undef PICK
    char label[160];
    snprintf(label, sizeof label, "sweep %d: B %d S %d Hq %d Hkv %d D %d L %d start %d%s%s%s%s", it, c.B, c.S, c.Hq,
             c.Hkv, c.D, c.L, c.start, c.causal ? " causal" : "", c.mask ? " mask" : "", c.scale ? " scale" : "",
             c.with_cache ? " with_kv_cache" : " custom_sdpa");
    CHECK(run_all_isas(&c, label));
  }
}

/* The inner loops' exp / max directly: exp(x - m) within 3 ulp of libm's double exp while the
 * result is a normal float, at most 2^-126 below that (flushed or not), exactly 0 for -inf; any
 * length (vector tails). */
TEST(inner_exp_and_max) {
  const llm_attn_isa *sets[] = {pte_llm_attn_scalar(), pte_llm_attn_avx2(), pte_llm_attn_avx512()};
  const pte_llm_isa ids[] = {PTE_LLM_ISA_SCALAR, PTE_LLM_ISA_AVX2, PTE_LLM_ISA_AVX512};
  enum { N = 1000 };
  float x[N];
  double want[N];
  for (size_t k = 0; k < 3; k++) {
    if (!sets[k] || !pte_llm_isa_supported(ids[k])) continue;
    for (size_t n = 1; n <= N; n = n < 40 ? n + 1 : n * 3) {
      double wsum = 0;
      float mx = -INFINITY;
      for (size_t i = 0; i < n; i++) {
        x[i] = i % 97 == 5 ? -INFINITY : (float)(2.0 - 95.0 * (double)((i * 7919) % n) / (double)n);
        if (x[i] > mx) mx = x[i];
      }
      CHECK_MSG(sets[k]->rowmax(n, x) == mx, "[%s] rowmax of %zu", pte_llm_isa_name(ids[k]), n);
      for (size_t i = 0; i < n; i++) {
        const double d = (double)(x[i] - mx);
        want[i] = exp(d);
        wsum += want[i];
      }
      const float sum = sets[k]->expsum(n, x, mx);
      for (size_t i = 0; i < n; i++) {
        const double tol = want[i] == 0 ? 0 : want[i] < 0x1p-126 ? 0x1p-126 : 3 * 0x1p-23 * want[i];
        CHECK_MSG(fabs((double)x[i] - want[i]) <= tol, "[%s] n %zu: exp at %zu = %.9g, want %.9g",
                  pte_llm_isa_name(ids[k]), n, i, (double)x[i], want[i]);
      }
      CHECK_MSG(fabs((double)sum - wsum) <= 1e-6 * wsum, "[%s] n %zu: sum %.9g, want %.9g", pte_llm_isa_name(ids[k]),
                n, (double)sum, wsum);
    }
  }
}

/* ------------------------------------------------------------------ threads */

typedef struct thr_call {
  pte_tensor *q, *kc, *vc, *out;
  int64_t start;
  uint8_t temp_mem[1 << 18];
  pte_status status;
  int reps;
} thr_call;

/* custom_sdpa(q, kc, vc, start, causal) into c->out with a private temp allocator (thread-safe:
 * no ktest state). */
static void thr_run(thr_call *c) {
  pte_allocator ta;
  pte_allocator_init(&ta, c->temp_mem, sizeof c->temp_mem);
  pte_kernel_context ctx;
  memset(&ctx, 0, sizeof ctx);
  ctx.temp = &ta;
  pte_evalue eq = {.tag = PTE_TAG_TENSOR, .u.tensor = c->q}, ek = {.tag = PTE_TAG_TENSOR, .u.tensor = c->kc};
  pte_evalue ev = {.tag = PTE_TAG_TENSOR, .u.tensor = c->vc}, eo = {.tag = PTE_TAG_TENSOR, .u.tensor = c->out};
  pte_evalue es = {.tag = PTE_TAG_INT, .u.i = c->start}, en = {.tag = PTE_TAG_NONE};
  pte_evalue ed = {.tag = PTE_TAG_DOUBLE, .u.d = 0.0}, eb = {.tag = PTE_TAG_BOOL, .u.b = true};
  pte_evalue *args[] = {&eq, &ek, &ev, &es, &en, &ed, &eb, &en, &eo, &eo};
  llm_fn("llama::custom_sdpa.out")(&ctx, args, 10);
  c->status = ctx.failure;
}

static void *thr_main(void *arg) {
  thr_call *c = (thr_call *)arg;
  for (int i = 0; i < c->reps && c->status == PTE_OK; i++) thr_run(c);
  return NULL;
}

/* Heads split over 1..8 threads give bit-identical outputs (and match the reference through the
 * shape cases); two callers at once (one gets the pool, the other runs alone) both stay exact. */
TEST(threads_identical_results) {
  CHECK_EQ_INT((int64_t)pte_llm_kernels_min_parallel_work(), (int64_t)1 << 20);
  pte_llm_kernels_set_min_parallel_work(0); /* these small cases use the threads too */
  CHECK_STATUS(pte_llm_kernels_set_threads(0), PTE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(pte_llm_kernels_set_threads(PTE_LLM_MAX_THREADS + 1), PTE_ERR_INVALID_ARGUMENT);
  CHECK_OK(pte_llm_kernels_set_threads(3));
  CHECK_EQ_INT(pte_llm_kernels_threads(), 3);
  const attn_case c = {2, 9, 12, 6, 24, 40, 17, true, false, false, true};
  const bool ref_ok = run_all_isas(&c, "3 threads, 6 kv heads");
  CHECK_OK(pte_llm_kernels_set_threads(1));
  CHECK(ref_ok);

  enum { S = 3, HQ = 8, HKV = 4, D = 40, L = 300, START = 290 };
  const int32_t sq[] = {1, S, HQ, D}, sc[] = {1, L, HKV, D};
  g_seed = 5u;
  double *qv = malloc(sizeof(double) * S * HQ * D), *kv = malloc(sizeof(double) * L * HKV * D),
         *vv = malloc(sizeof(double) * L * HKV * D);
  fill_rnd(qv, (size_t)S * HQ * D), fill_rnd(kv, (size_t)L * HKV * D), fill_rnd(vv, (size_t)L * HKV * D);
  static thr_call calls[3];
  memset(calls, 0, sizeof calls);
  for (int i = 0; i < 3; i++) {
    calls[i].q = ktest_tensor(PTE_DTYPE_FLOAT, 4, sq, NULL, qv);
    calls[i].kc = ktest_tensor(PTE_DTYPE_FLOAT, 4, sc, NULL, kv);
    calls[i].vc = ktest_tensor(PTE_DTYPE_FLOAT, 4, sc, NULL, vv);
    calls[i].out = ktest_tensor(PTE_DTYPE_FLOAT, 4, sq, NULL, NULL);
    calls[i].start = START;
    calls[i].reps = 40;
  }
  free(qv), free(kv), free(vv);
  const size_t nbytes = sizeof(float) * S * HQ * D;
  thr_run(&calls[0]); /* 1 thread: the reference bits */
  CHECK_OK(calls[0].status);
  const int counts[] = {2, 3, 4, 8};
  for (size_t i = 0; i < 4; i++) {
    CHECK_OK(pte_llm_kernels_set_threads(counts[i]));
    memset(calls[1].out->data, 0, nbytes);
    thr_run(&calls[1]);
    CHECK_OK(calls[1].status);
    CHECK_MSG(memcmp(calls[0].out->data, calls[1].out->data, nbytes) == 0, "%d threads: output differs",
              counts[i]);
  }
  CHECK_OK(pte_llm_kernels_set_threads(2));
  pthread_t th[2];
  for (int i = 0; i < 2; i++) memset(calls[1 + i].out->data, 0, nbytes);
  for (int i = 0; i < 2; i++) CHECK(pthread_create(&th[i], NULL, thr_main, &calls[1 + i]) == 0);
  for (int i = 0; i < 2; i++) pthread_join(th[i], NULL);
  CHECK_OK(pte_llm_kernels_set_threads(1));
  for (int i = 0; i < 2; i++) {
    CHECK_OK(calls[1 + i].status);
    CHECK_MSG(memcmp(calls[0].out->data, calls[1 + i].out->data, nbytes) == 0, "concurrent caller %d differs", i);
  }
  pte_llm_kernels_set_min_parallel_work(1u << 20); /* the default again */
  ktest_free_all();
}

/* Prefill 5 then decode steps of one token at 5..9 through sdpa_with_kv_cache on the SAME caches;
 * each output checked against the reference over the whole history. */
TEST(prefill_then_decode_steps) {
  enum { B = 1, Hq = 4, Hkv = 2, D = 40, L = 12 };
  for (size_t ii = 0; ii < 3; ii++) {
    if (!pte_llm_isa_supported(k_isas[ii])) continue;
    CHECK_OK(pte_llm_kernels_set_isa(k_isas[ii]));
    g_seed = 99u;
    const size_t nc = (size_t)B * L * Hkv * D;
    double hk[nc], hv[nc];
    for (size_t i = 0; i < nc; i++) hk[i] = hv[i] = NAN;
    const int32_t sc[] = {B, L, Hkv, D};
    pte_tensor *kc = ktest_tensor(PTE_DTYPE_FLOAT, 4, sc, NULL, hk);
    pte_tensor *vc = ktest_tensor(PTE_DTYPE_FLOAT, 4, sc, NULL, hv);
    int pos = 0;
    for (int step = 0; step < 6; step++) {
      const int S = step == 0 ? 5 : 1;
      const size_t nq = (size_t)B * S * Hq * D, nkv = (size_t)B * S * Hkv * D;
      double q[nq], k[nkv], v[nkv], want[nq];
      fill_rnd(q, nq), fill_rnd(k, nkv), fill_rnd(v, nkv);
      for (size_t x = 0; x < nkv; x++) hk[(size_t)pos * Hkv * D + x] = k[x], hv[(size_t)pos * Hkv * D + x] = v[x];
      ref_attn(q, hk, hv, B, S, Hq, Hkv, D, L, pos, NULL, true, 1.0 / sqrt((double)D), want);
      const int32_t sq[] = {B, S, Hq, D}, skv[] = {B, S, Hkv, D};
      pte_tensor *out = ktest_tensor(PTE_DTYPE_FLOAT, 4, sq, NULL, NULL);
      pte_evalue *eo = ktest_ev_tensor(out);
      pte_evalue *args[] = {ktest_ev_tensor(ktest_tensor(PTE_DTYPE_FLOAT, 4, sq, NULL, q)),
                            ktest_ev_tensor(ktest_tensor(PTE_DTYPE_FLOAT, 4, skv, NULL, k)),
                            ktest_ev_tensor(ktest_tensor(PTE_DTYPE_FLOAT, 4, skv, NULL, v)),
                            ktest_ev_tensor(kc), ktest_ev_tensor(vc), ktest_ev_int(pos), ktest_ev_int(S),
                            ktest_ev_none(), ktest_ev_double(0), ktest_ev_bool(true), ktest_ev_none(), eo, eo};
      CHECK_OK(ktest_run(llm_fn("llama::sdpa_with_kv_cache.out"), args, 13));
      pos += S;
      for (size_t i = 0; i < nc; i++) {
        const bool filled = i < (size_t)pos * Hkv * D;
        const double g = ktest_get(kc, i);
        CHECK_MSG(filled ? g == (double)(float)hk[i] : isnan(g), "step %d: key cache element %zu = %g", step, i, g);
        CHECK_MSG(filled ? ktest_get(vc, i) == (double)(float)hv[i] : isnan(ktest_get(vc, i)),
                  "step %d: value cache element %zu", step, i);
      }
      const double werr = worst_err(out, want, nq, 2e-5);
      CHECK_MSG(werr <= 1.0, "[%s] step %d (start %d): off by %.3g x tolerance",
                pte_llm_isa_name(k_isas[ii]), step, pos - S, werr);
    }
    ktest_free_all();
  }
  CHECK_OK(pte_llm_kernels_set_isa(PTE_LLM_ISA_AUTO));
}

/* The double reference against numpy (so the reference itself is checked independently):
 * GQA, causal, start 2, and a masked non-causal case. */
TEST(reference_matches_numpy) {
  enum { B = 1, S = 3, Hq = 4, Hkv = 2, D = 5, L = 6, ST = 2, N = ST + S };
  g_seed = 4242u;
  const size_t nq = (size_t)B * S * Hq * D, nc = (size_t)B * L * Hkv * D;
  double q[nq], kc[nc], vc[nc], mine[nq], mask[S * N];
  fill_rnd(q, nq), fill_rnd(kc, nc), fill_rnd(vc, nc), fill_rnd(mask, S * N);
  mask[1] = -INFINITY;
  for (int causal = 1; causal >= 0; causal--) {
    ref_attn(q, kc, vc, B, S, Hq, Hkv, D, L, ST, causal ? NULL : mask, causal, 1.0 / sqrt(5.0), mine);
    np_script s = {0};
    const int32_t sq[] = {B, S, Hq, D}, sc[] = {B, L, Hkv, D}, sm[] = {S, N};
    nps_array(&s, "q", q, nq, sq, 4);
    nps_array(&s, "kc", kc, nc, sc, 4);
    nps_array(&s, "vc", vc, nc, sc, 4);
    nps_array(&s, "m", mask, S * N, sm, 2);
    nps_printf(&s,
               "k = np.repeat(kc[:, :%d], %d, axis=2); v = np.repeat(vc[:, :%d], %d, axis=2)\n"
               "sc = np.einsum('bshd,bjhd->bhsj', q, k) / np.sqrt(%d)\n"
               "if %d:\n"
               "    sc = sc + np.where(np.arange(%d)[None, :] > (np.arange(%d)[:, None] + %d), -np.inf, 0.0)\n"
               "else:\n"
               "    sc = sc + m\n"
               "w = np.exp(sc - sc.max(axis=-1, keepdims=True)); w = w / w.sum(axis=-1, keepdims=True)\n"
               "res = np.einsum('bhsj,bjhd->bshd', w, v)\n",
               N, Hq / Hkv, N, Hq / Hkv, D, causal, N, S, ST);
    double *np_res = nps_run(&s, nq);
    CHECK_MSG(np_res != NULL, "numpy oracle unavailable");
    double worst = 0;
    for (size_t i = 0; i < nq; i++) worst = fmax(worst, fabs(np_res[i] - mine[i]));
    free(np_res);
    CHECK_MSG(worst < 1e-12, "causal %d: reference differs from numpy by %g", causal, worst);
  }
}

/* ------------------------------------------------------------------ update_cache */

TEST(update_cache_rows_and_dtypes) {
  pte_op_fn fn = llm_fn("llama::update_cache.out");
  CHECK(fn != NULL);
  /* float: value [2, 2, 1, 3] into cache [2, 5, 1, 3] at start 2 */
  const int32_t sv[] = {2, 2, 1, 3}, sc[] = {2, 5, 1, 3}, so[] = {1};
  double val[12];
  for (int i = 0; i < 12; i++) val[i] = 100 + i;
  pte_tensor *cache = ktest_tensor(PTE_DTYPE_FLOAT, 4, sc, NULL, NULL);
  pte_tensor *out = ktest_tensor(PTE_DTYPE_FLOAT, 1, so, NULL, (double[]){-7});
  pte_evalue *eo = ktest_ev_tensor(out);
  pte_evalue *args[] = {ktest_ev_tensor(ktest_tensor(PTE_DTYPE_FLOAT, 4, sv, NULL, val)), ktest_ev_tensor(cache),
                        ktest_ev_int(2), eo, eo};
  CHECK_OK(ktest_run(fn, args, 5));
  double want[30] = {0};
  /* batch 0 rows 2,3 <- value rows (0,0),(0,1); batch 1 rows 2,3 <- (1,0),(1,1) */
  for (int b = 0; b < 2; b++)
    for (int s = 0; s < 2; s++)
      for (int d = 0; d < 3; d++) want[(b * 5 + 2 + s) * 3 + d] = val[(b * 2 + s) * 3 + d];
  CHECK(ktest_expect(cache, want, 30, 0));
  CHECK(ktest_expect(out, (double[]){-7}, 1, 0)); /* placeholder untouched */
  /* int8 cache (a quantized KV cache): bytes copied */
  const int32_t sv8[] = {1, 1, 2, 2}, sc8[] = {1, 3, 2, 2};
  pte_tensor *c8 = ktest_tensor(PTE_DTYPE_CHAR, 4, sc8, NULL, NULL);
  pte_evalue *a8[] = {ktest_ev_tensor(ktest_tensor(PTE_DTYPE_CHAR, 4, sv8, NULL, (double[]){-1, 2, -3, 4})),
                      ktest_ev_tensor(c8), ktest_ev_int(2), eo};
  CHECK_OK(ktest_run(fn, a8, 4));
  CHECK(ktest_expect(c8, (double[]){0, 0, 0, 0, 0, 0, 0, 0, -1, 2, -3, 4}, 12, 0));
  /* out aliasing the cache (an exporter may reuse the mutated buffer as the out): still written */
  pte_evalue *ec = ktest_ev_tensor(c8);
  pte_evalue *aa[] = {ktest_ev_tensor(ktest_tensor(PTE_DTYPE_CHAR, 4, sv8, NULL, (double[]){7, 8, 9, 10})), ec,
                      ktest_ev_int(0), ec, ec};
  CHECK_OK(ktest_run(fn, aa, 5));
  CHECK(ktest_expect(c8, (double[]){7, 8, 9, 10, 0, 0, 0, 0, -1, 2, -3, 4}, 12, 0));
  ktest_free_all();
}

TEST(update_cache_with_indices) {
  pte_op_fn fn = llm_fn("llama::update_cache_with_indices.out");
  CHECK(fn != NULL);
  const int32_t sv[] = {1, 3, 1, 2}, sc[] = {1, 4, 1, 2}, si[] = {1, 3}, so[] = {1};
  pte_tensor *cache = ktest_tensor(PTE_DTYPE_FLOAT, 4, sc, NULL, NULL);
  pte_tensor *idx = ktest_tensor_i64(PTE_DTYPE_LONG, 2, si, NULL, (int64_t[]){3, 0, 2});
  pte_evalue *eo = ktest_ev_tensor(ktest_tensor(PTE_DTYPE_FLOAT, 1, so, NULL, NULL));
  pte_evalue *args[] = {ktest_ev_tensor(ktest_tensor(PTE_DTYPE_FLOAT, 4, sv, NULL, (double[]){1, 2, 3, 4, 5, 6})),
                        ktest_ev_tensor(cache), ktest_ev_int(0), ktest_ev_tensor(idx), eo, eo};
  CHECK_OK(ktest_run(fn, args, 6));
  CHECK(ktest_expect(cache, (double[]){3, 4, 0, 0, 5, 6, 1, 2}, 8, 0));
  /* an index out of range: specific error, cache untouched */
  pte_tensor *bad = ktest_tensor_i64(PTE_DTYPE_LONG, 2, si, NULL, (int64_t[]){1, 4, 0});
  pte_evalue *argb[] = {args[0], ktest_ev_tensor(cache), ktest_ev_int(0), ktest_ev_tensor(bad), eo};
  CHECK_STATUS(ktest_run(fn, argb, 5), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(ktest_last_msg(), "indices[0, 1] = 4 is outside the cache length 4");
  CHECK(ktest_expect(cache, (double[]){3, 4, 0, 0, 5, 6, 1, 2}, 8, 0));
  pte_tensor *i32 = ktest_tensor(PTE_DTYPE_INT, 2, si, NULL, (double[]){0, 1, 2});
  pte_evalue *argt[] = {args[0], ktest_ev_tensor(cache), ktest_ev_int(0), ktest_ev_tensor(i32), eo};
  CHECK_STATUS(ktest_run(fn, argt, 5), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(ktest_last_msg(), "indices must be int64");
  ktest_free_all();
}

/* ------------------------------------------------------------------ bad arguments */

/* custom_sdpa with the given tensors; returns the status (message in ktest_last_msg). */
static pte_status bad_sdpa(pte_tensor *q, pte_tensor *k, pte_tensor *v, int64_t start, pte_tensor *mask,
                           bool causal, bool temp) {
  const int32_t so[] = {1, 1, 1, 1};
  pte_evalue *eo = ktest_ev_tensor(ktest_tensor_dyn(PTE_DTYPE_FLOAT, 4, so, NULL, 4096));
  pte_evalue *args[] = {ktest_ev_tensor(q), ktest_ev_tensor(k), ktest_ev_tensor(v), ktest_ev_int(start),
                        mask ? ktest_ev_tensor(mask) : ktest_ev_none(), ktest_ev_double(0),
                        ktest_ev_bool(causal), ktest_ev_none(), eo, eo};
  pte_op_fn fn = llm_fn("llama::custom_sdpa.out");
  return temp ? ktest_run(fn, args, 10) : ktest_run_no_temp(fn, args, 10);
}

TEST(bad_arguments) {
  const int32_t sq[] = {1, 2, 4, 8}, sc[] = {1, 6, 2, 8}, s3[] = {2, 4, 8}, sc3h[] = {1, 6, 3, 8},
                sd[] = {1, 6, 2, 4}, sb[] = {2, 6, 2, 8}, sm[] = {2, 5}, sm2[] = {2, 6};
  pte_tensor *q = ktest_tensor(PTE_DTYPE_FLOAT, 4, sq, NULL, NULL);
  pte_tensor *kc = ktest_tensor(PTE_DTYPE_FLOAT, 4, sc, NULL, NULL);
  pte_tensor *vc = ktest_tensor(PTE_DTYPE_FLOAT, 4, sc, NULL, NULL);
  CHECK_OK(bad_sdpa(q, kc, vc, 4, NULL, true, true));
  CHECK_STATUS(bad_sdpa(ktest_tensor(PTE_DTYPE_FLOAT, 3, s3, NULL, NULL), kc, vc, 0, NULL, true, true),
               PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(ktest_last_msg(), "llama::custom_sdpa: query must be a 4-D tensor");
  CHECK_STATUS(bad_sdpa(ktest_tensor(PTE_DTYPE_HALF, 4, sq, NULL, NULL), kc, vc, 0, NULL, true, true),
               PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(ktest_last_msg(), "query must be float32, got");
  CHECK_STATUS(bad_sdpa(q, kc, vc, 5, NULL, true, true), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(ktest_last_msg(), "start_pos 5 + seq_len 2 exceeds the cache length");
  CHECK_STATUS(bad_sdpa(q, kc, vc, -1, NULL, true, true), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(ktest_last_msg(), "start_pos -1 is negative");
  pte_tensor *k3 = ktest_tensor(PTE_DTYPE_FLOAT, 4, sc3h, NULL, NULL);
  CHECK_STATUS(bad_sdpa(q, k3, k3, 0, NULL, true, true), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(ktest_last_msg(), "query heads (4) must be a multiple of the kv heads (3)");
  CHECK_STATUS(bad_sdpa(q, kc, k3, 0, NULL, true, true), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(ktest_last_msg(), "key cache has 2 heads but value cache 3");
  pte_tensor *kd = ktest_tensor(PTE_DTYPE_FLOAT, 4, sd, NULL, NULL);
  CHECK_STATUS(bad_sdpa(q, kd, kd, 0, NULL, true, true), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(ktest_last_msg(), "head_dim differs");
  pte_tensor *kb = ktest_tensor(PTE_DTYPE_FLOAT, 4, sb, NULL, NULL);
  CHECK_STATUS(bad_sdpa(q, kb, kb, 0, NULL, true, true), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(ktest_last_msg(), "batch differs");
  pte_tensor *kcl = ktest_tensor(PTE_DTYPE_FLOAT, 4, sc, ktest_cl4, NULL);
  CHECK_STATUS(bad_sdpa(q, kcl, vc, 0, NULL, true, true), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(ktest_last_msg(), "key cache must be in contiguous dim order");
  pte_tensor *m = ktest_tensor(PTE_DTYPE_FLOAT, 2, sm, NULL, NULL);
  CHECK_STATUS(bad_sdpa(q, kc, vc, 3, m, true, true), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(ktest_last_msg(), "attn_mask and is_causal cannot both be set");
  CHECK_OK(bad_sdpa(q, kc, vc, 3, m, false, true));
  CHECK_STATUS(bad_sdpa(q, kc, vc, 3, ktest_tensor(PTE_DTYPE_FLOAT, 2, sm2, NULL, NULL), false, true),
               PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(ktest_last_msg(), "attn_mask must be [seq_len 2, start_pos + seq_len 5]");
  CHECK_STATUS(bad_sdpa(q, kc, vc, 3, ktest_tensor(PTE_DTYPE_BOOL, 2, sm, NULL, NULL), false, true),
               PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(ktest_last_msg(), "attn_mask must be float32");
  CHECK_STATUS(bad_sdpa(q, kc, vc, 0, NULL, true, false), PTE_ERR_MEMORY_ALLOCATION_FAILED);
  CHECK_CONTAINS(ktest_last_msg(), "bytes of temp memory for its tiles (no temp allocator)");
  {
    /* a temp allocator smaller than the tiles: R = 8 rows, 2 keys, D 8 -> (2*8*8 + 8*2 + 3*8)
     * floats = 672 bytes */
    static uint8_t small[512];
    pte_allocator ta;
    pte_allocator_init(&ta, small, sizeof small);
    pte_kernel_context ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.temp = &ta;
    const int32_t so[] = {1, 2, 4, 8};
    pte_evalue *eo2 = ktest_ev_tensor(ktest_tensor(PTE_DTYPE_FLOAT, 4, so, NULL, NULL));
    pte_evalue *a2[] = {ktest_ev_tensor(q), ktest_ev_tensor(kc), ktest_ev_tensor(vc), ktest_ev_int(0),
                        ktest_ev_none(), ktest_ev_double(0), ktest_ev_bool(true), ktest_ev_none(), eo2, eo2};
    llm_fn("llama::custom_sdpa.out")(&ctx, a2, 10);
    CHECK_STATUS(ctx.failure, PTE_ERR_MEMORY_ALLOCATION_FAILED);
    CHECK_CONTAINS(ctx.msg, "llama::custom_sdpa: needs 672 bytes of temp memory for its tiles (the temp allocator is too small)");
  }
  /* wrong tags / counts */
  pte_evalue *few[] = {ktest_ev_tensor(q), ktest_ev_tensor(kc)};
  CHECK_STATUS(ktest_run(llm_fn("llama::custom_sdpa.out"), few, 2), PTE_ERR_INVALID_ARGUMENT);
  pte_evalue *eo = ktest_ev_tensor(ktest_tensor(PTE_DTYPE_FLOAT, 4, sq, NULL, NULL));
  pte_evalue *tag[] = {ktest_ev_tensor(q), ktest_ev_tensor(kc), ktest_ev_tensor(vc), ktest_ev_double(0.5),
                       ktest_ev_none(), ktest_ev_double(0), ktest_ev_bool(true), ktest_ev_none(), eo};
  CHECK_STATUS(ktest_run(llm_fn("llama::custom_sdpa.out"), tag, 9), PTE_ERR_INVALID_ARGUMENT);

  /* sdpa_with_kv_cache: nothing written when an argument is bad */
  const int32_t skv[] = {1, 2, 2, 8};
  double fives[32];
  for (int i = 0; i < 32; i++) fives[i] = 5;
  pte_tensor *key = ktest_tensor(PTE_DTYPE_FLOAT, 4, skv, NULL, fives); /* a write would show */
  pte_evalue *a[] = {ktest_ev_tensor(q), ktest_ev_tensor(key), ktest_ev_tensor(key), ktest_ev_tensor(kc),
                     ktest_ev_tensor(vc), ktest_ev_int(5), ktest_ev_int(2), ktest_ev_none(), ktest_ev_double(0),
                     ktest_ev_bool(true), ktest_ev_none(), eo, eo};
  CHECK_STATUS(ktest_run(llm_fn("llama::sdpa_with_kv_cache.out"), a, 13), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(ktest_last_msg(), "llama::sdpa_with_kv_cache: start_pos 5 + seq_len 2 exceeds the cache length");
  a[5] = ktest_ev_int(0);
  a[0] = ktest_ev_tensor(k3); /* 3 query heads vs 2 kv heads */
  CHECK_STATUS(ktest_run(llm_fn("llama::sdpa_with_kv_cache.out"), a, 13), PTE_ERR_INVALID_ARGUMENT);
  for (size_t i = 0; i < kc->numel; i++) CHECK_MSG(ktest_get(kc, i) == 0, "key cache written on error");

  /* update_cache */
  pte_evalue *u[] = {ktest_ev_tensor(key), ktest_ev_tensor(kc), ktest_ev_int(5), eo, eo};
  CHECK_STATUS(ktest_run(llm_fn("llama::update_cache.out"), u, 5), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(ktest_last_msg(), "llama::update_cache: start_pos 5 + seq_len 2 exceeds the cache length 6");
  u[1] = ktest_ev_tensor(k3);
  u[2] = ktest_ev_int(0);
  CHECK_STATUS(ktest_run(llm_fn("llama::update_cache.out"), u, 5), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(ktest_last_msg(), "value heads (dim 2) is 2 but cache has 3");
  u[1] = ktest_ev_tensor(ktest_tensor(PTE_DTYPE_LONG, 4, sc, NULL, NULL));
  CHECK_STATUS(ktest_run(llm_fn("llama::update_cache.out"), u, 5), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(ktest_last_msg(), "differ in element size");
  ktest_free_all();
}

TEST(registration) {
  CHECK_EQ_INT(pte_llm_kernel_count(), 4);
  CHECK(pte_llm_kernel(4) == NULL);
  CHECK_OK(pte_register_llm_kernels());
  const size_t n = pte_num_registered_kernels();
  CHECK_OK(pte_register_llm_kernels());
  CHECK_EQ_INT(pte_num_registered_kernels(), n);
  const char *names[] = {"llama::custom_sdpa.out", "llama::sdpa_with_kv_cache.out", "llama::update_cache.out",
                         "llama::update_cache_with_indices.out"};
  for (size_t i = 0; i < 4; i++) {
    CHECK_STR(pte_llm_kernel(i)->name, names[i]);
    CHECK(pte_kernel_lookup(names[i], "v1/6;0,1,2,3", NULL, 0) == pte_llm_kernel(i)->fn);
  }
}

/* ------------------------------------------------------------------ program with mutable caches */

/* forward(q [1,<=4,4,8], k [1,<=4,2,8], v, input_pos int64 [1]) ->
 *   (out [1,<=4,4,8], k_cache [1,8,2,8], v_cache [1,8,2,8]):
 *   start_pos = input_pos.item(); update_cache(k, k_cache, start_pos); update_cache(v, v_cache,
 *   start_pos); out = custom_sdpa(q, k_cache, v_cache, start_pos, None, 0.0, True, None)
 * Caches are planned (one at an explicit offset, one by the writer's planner) with a zero initial
 * value (mutable data). */
enum { PG_HQ = 4, PG_HKV = 2, PG_D = 8, PG_L = 8, PG_SMAX = 4 };

static uint8_t *build_kv_program(size_t *size, pte_error_info *err) {
  ktest_pb b;
  if (!ktest_pb_begin(&b)) {
    *err = b.err;
    return NULL;
  }
  const int32_t sq[] = {1, PG_SMAX, PG_HQ, PG_D}, skv[] = {1, PG_SMAX, PG_HKV, PG_D}, sc[] = {1, PG_L, PG_HKV, PG_D},
                s1[] = {1};
  const size_t cache_bytes = sizeof(float) * PG_L * PG_HKV * PG_D;
  static float zeros[PG_L * PG_HKV * PG_D];
  int32_t vals[16];
  pte_wr_tensor t;
  /* q, k, v: dynamic-bound planned inputs */
  const int32_t *shapes[3] = {sq, skv, skv};
  for (int i = 0; i < 3 && b.ok; i++) {
    memset(&t, 0, sizeof t);
    t.dtype = PTE_DTYPE_FLOAT, t.dim = 4, t.sizes = shapes[i], t.dynamism = PTE_SHAPE_DYNAMIC_BOUND;
    t.plan = PTE_WR_PLAN_AUTO, t.mem_id = 1;
    if (pte_writer_add_tensor(b.w, b.m, &t, &vals[i], &b.err) != PTE_OK) b.ok = false;
  }
  vals[3] = ktest_pb_tensor(&b, PTE_DTYPE_LONG, 1, s1, NULL, NULL, 0);
  vals[4] = ktest_pb_int(&b, 0); /* start_pos, written by _local_scalar_dense */
  for (int i = 0; i < 2 && b.ok; i++) {
    uint32_t init = 0;
    pte_source src = pte_source_memory(zeros, cache_bytes);
    if (pte_writer_add_mutable(b.w, &src, &init, &b.err) != PTE_OK) {
      b.ok = false;
      break;
    }
    memset(&t, 0, sizeof t);
    /* the key cache at an explicit offset, the value cache placed by the writer's planner (which
     * keeps a mutable-initialised tensor alive for the whole method) */
    t.dtype = PTE_DTYPE_FLOAT, t.dim = 4, t.sizes = sc, t.plan = i == 0 ? PTE_WR_PLAN_EXPLICIT : PTE_WR_PLAN_AUTO;
    t.mem_id = 1, t.mem_offset = 0, t.mutable_init = init;
    if (pte_writer_add_tensor(b.w, b.m, &t, &vals[5 + i], &b.err) != PTE_OK) b.ok = false;
  }
  vals[7] = ktest_pb_tensor(&b, PTE_DTYPE_FLOAT, 1, s1, NULL, NULL, 0); /* update_cache placeholders */
  vals[8] = ktest_pb_tensor(&b, PTE_DTYPE_FLOAT, 1, s1, NULL, NULL, 0);
  vals[9] = ktest_pb_none(&b);
  vals[10] = ktest_pb_double(&b, 0.0);
  vals[11] = ktest_pb_bool(&b, true);
  if (b.ok) {
    memset(&t, 0, sizeof t);
    t.dtype = PTE_DTYPE_FLOAT, t.dim = 4, t.sizes = sq, t.dynamism = PTE_SHAPE_DYNAMIC_BOUND;
    t.plan = PTE_WR_PLAN_AUTO, t.mem_id = 1;
    if (pte_writer_add_tensor(b.w, b.m, &t, &vals[12], &b.err) != PTE_OK) b.ok = false;
  }
  const int32_t in[] = {vals[0], vals[1], vals[2], vals[3]}, outs[] = {vals[12], vals[5], vals[6]};
  ktest_pb_io(&b, in, 4, outs, 3);
  ktest_pb_call(&b, "aten::_local_scalar_dense", "", (int32_t[]){vals[3], vals[4]}, 2);
  ktest_pb_call(&b, "llama::update_cache", "out", (int32_t[]){vals[1], vals[5], vals[4], vals[7], vals[7]}, 5);
  ktest_pb_call(&b, "llama::update_cache", "out", (int32_t[]){vals[2], vals[6], vals[4], vals[8], vals[8]}, 5);
  ktest_pb_call(&b, "llama::custom_sdpa", "out",
                (int32_t[]){vals[0], vals[5], vals[6], vals[4], vals[9], vals[10], vals[11], vals[9], vals[12],
                            vals[12]},
                10);
  return ktest_pb_finish(&b, size, err);
}

TEST(program_kv_cache_persists_across_executes) {
  pte_error_info err = {0};
  size_t size = 0;
  uint8_t *bytes = build_kv_program(&size, &err);
  CHECK_MSG(bytes != NULL, "build: %s", err.msg);
  const char *path = test_tmp_path("llm_kv_program.pte");
  const int wrote = test_write_file(path, bytes, size);
  free(bytes);
  CHECK_EQ_INT(wrote, 0);
  pte_module *mod = NULL;
  CHECK_OK(pte_module_open(path, NULL, &mod, &err));
  g_seed = 2026u;
  double hk[PG_L * PG_HKV * PG_D] = {0}, hv[PG_L * PG_HKV * PG_D] = {0};
  const int steps[][2] = {{0, 3}, {3, 1}, {4, 1}, {5, 2}, {7, 1}}; /* (start_pos, seq_len) */
  bool ok = true;
  for (size_t st = 0; st < sizeof steps / sizeof steps[0] && ok; st++) {
    const int pos = steps[st][0], S = steps[st][1];
    float q[PG_SMAX * PG_HQ * PG_D], k[PG_SMAX * PG_HKV * PG_D], v[PG_SMAX * PG_HKV * PG_D];
    double qd[PG_SMAX * PG_HQ * PG_D], want[PG_SMAX * PG_HQ * PG_D];
    for (int i = 0; i < S * PG_HQ * PG_D; i++) q[i] = (float)(qd[i] = rnd());
    for (int i = 0; i < S * PG_HKV * PG_D; i++) {
      k[i] = (float)rnd(), v[i] = (float)rnd();
      hk[pos * PG_HKV * PG_D + i] = k[i], hv[pos * PG_HKV * PG_D + i] = v[i];
    }
    ref_attn(qd, hk, hv, 1, S, PG_HQ, PG_HKV, PG_D, PG_L, pos, NULL, true, 1.0 / sqrt((double)PG_D), want);
    const int32_t sq[] = {1, S, PG_HQ, PG_D}, skv[] = {1, S, PG_HKV, PG_D}, s1[] = {1};
    const int64_t ip = pos;
    pte_status s = pte_module_set_input(mod, "forward", 0, PTE_DTYPE_FLOAT, sq, 4, q, sizeof(float) * (size_t)S * PG_HQ * PG_D, &err);
    if (s == PTE_OK) s = pte_module_set_input(mod, "forward", 1, PTE_DTYPE_FLOAT, skv, 4, k, sizeof(float) * (size_t)S * PG_HKV * PG_D, &err);
    if (s == PTE_OK) s = pte_module_set_input(mod, "forward", 2, PTE_DTYPE_FLOAT, skv, 4, v, sizeof(float) * (size_t)S * PG_HKV * PG_D, &err);
    if (s == PTE_OK) s = pte_module_set_input(mod, "forward", 3, PTE_DTYPE_LONG, s1, 1, &ip, sizeof ip, &err);
    if (s == PTE_OK) s = pte_module_execute(mod, "forward", &err);
    if (s != PTE_OK) {
      test_fail(__FILE__, __LINE__, "step %zu: %s: %s", st, pte_status_name(s), err.msg);
      ok = false;
      break;
    }
    const pte_tensor *o = pte_module_output_tensor(mod, "forward", 0);
    const pte_tensor *kc = pte_module_output_tensor(mod, "forward", 1);
    const pte_tensor *vc = pte_module_output_tensor(mod, "forward", 2);
    if (!o || !kc || !vc || o->numel != (size_t)S * PG_HQ * PG_D || kc->numel != PG_L * PG_HKV * PG_D) {
      test_fail(__FILE__, __LINE__, "step %zu: outputs missing or misshapen", st);
      ok = false;
      break;
    }
    /* caches: every row written so far, zeros (the initial value) after */
    for (int i = 0; i < PG_L * PG_HKV * PG_D && ok; i++) {
      const float ek = (float)hk[i], ev = (float)hv[i];
      if (((const float *)kc->data)[i] != ek || ((const float *)vc->data)[i] != ev) {
        test_fail(__FILE__, __LINE__, "step %zu: cache element %d is %g/%g, expected %g/%g", st, i,
                  ((const float *)kc->data)[i], ((const float *)vc->data)[i], ek, ev);
        ok = false;
      }
    }
    const double werr = ok ? worst_err(o, want, (size_t)S * PG_HQ * PG_D, 2e-5) : 0;
    if (ok && !(werr <= 1.0)) {
      test_fail(__FILE__, __LINE__, "step %zu: output off by %.3g x tolerance", st, werr);
      ok = false;
    }
  }
  pte_module_destroy(mod);
  remove(path);
}

int main(void) {
  RUN(registration);
  RUN(reference_matches_numpy);
  RUN(prefill_causal);
  RUN(prefill_mha_with_scale);
  RUN(noncausal_prefill_at_offset);
  RUN(explicit_mask);
  RUN(long_tiles_and_blocks);
  RUN(random_shapes_sweep);
  RUN(inner_exp_and_max);
  RUN(threads_identical_results);
  RUN(prefill_then_decode_steps);
  RUN(update_cache_rows_and_dtypes);
  RUN(update_cache_with_indices);
  RUN(bad_arguments);
  RUN(program_kv_cache_persists_across_executes);
  RUN(isas_available);
  return test_summary();
}
