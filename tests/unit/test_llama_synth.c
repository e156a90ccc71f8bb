#define _POSIX_C_SOURCE 200809L
/* `pte synth llama` (through the CLI binary $PTE_CLI) against the independent reference forward
 * pass of tests/support/llama_ref.c:
 *   - the metadata methods carry the shape the model was written with;
 *   - dynamic sequence: a 5-token prefill in one call then 7 single-token decode steps (8 steps):
 *     the logits of every step match the reference within 1e-3 relative (max |diff| / max |ref|),
 *     which also checks that the KV cache (mutable buffers) persists across executes;
 *   - --static (T = 1): the same 8 steps token by token; --cache-init (zero initial values in the
 *     mutable segment instead of a separate arena): a 3-token prefill + 7 decode steps;
 *     --attention sdpa_with_kv_cache (the fused op): dynamic and static;
 *   - --quant 8da4w (group 32): the same 8 steps against the reference with the 4-bit grouped
 *     weights dequantized as documented and per-token int8 activations (dynamic and --static);
 *   - a ~100M-parameter model: fp32 and 8da4w (dynamic and --static) within 1e-3, the reference's
 *     int8 roundings of activations within 2^-12 of a tie allowed to go the other way (see
 *     run_steps_tol and model_100m_parameters);
 *   - a position past the cache is a specific error, not a crash. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "llama_ref.h"
#include "pte/module.h"
#include "test.h"

static int run_cli(const char *args, char **out) {
  const char *cli = getenv("PTE_CLI");
  if (!cli) return -1;
  char cmd[2048];
  snprintf(cmd, sizeof cmd, "'%s' %s 2>&1", cli, args);
  int code = -1;
  char *o = test_run_capture(cmd, &code);
  if (out) *out = o;
  else free(o);
  return code;
}

static const llama_ref_cfg k_cfg = {64, 2, 4, 2, 512, 64, 0, 7, 0, 0};
static const llama_ref_cfg k_q4 = {64, 2, 4, 2, 512, 64, 0, 7, 1, 32};

static char *synth_cfg(const char *name, const llama_ref_cfg *c, const char *extra) {
  static char path[4][512];
  static int slot;
  char *p = path[slot++ & 3];
  snprintf(p, 512, "%s", test_tmp_path(name));
  char args[1024];
  snprintf(args, sizeof args, "synth llama -q -o '%s' --dim %d --layers %d --heads %d --kv-heads %d --vocab %d "
           "--seq %d --seed %llu %s", p, c->dim, c->layers, c->heads, c->kv_heads, c->vocab,
           c->seq, (unsigned long long)c->seed, extra);
  char *o = NULL;
  int code = run_cli(args, &o);
  if (code != 0) test_fail(__FILE__, __LINE__, "pte synth llama failed (%d): %s", code, o ? o : "");
  free(o);
  return code == 0 ? p : NULL;
}

static char *synth(const char *name, const char *extra) { return synth_cfg(name, &k_cfg, extra); }

static pte_module *open_model(const char *path) {
  pte_error_info err;
  pte_module *m = NULL;
  pte_status s = pte_module_open(path, NULL, &m, &err);
  if (s != PTE_OK) {
    test_fail(__FILE__, __LINE__, "open %s: %s", path, err.msg);
    return NULL;
  }
  if (llama_ref_register_missing_kernels() != PTE_OK) test_fail(__FILE__, __LINE__, "kernel registration failed");
  return m;
}

static int64_t meta_int(pte_module *m, const char *name, size_t i) {
  pte_error_info err;
  pte_status s = pte_module_execute(m, name, &err);
  if (s != PTE_OK) test_fail(__FILE__, __LINE__, "%s: %s", name, err.msg);
  const pte_evalue *v = pte_module_output(m, name, i);
  if (!v) return -999;
  if (v->tag == PTE_TAG_BOOL) return v->u.b;
  if (v->tag == PTE_TAG_INT) return v->u.i;
  return -998;
}

TEST(metadata_methods) {
  char *p = synth("llama_meta.pte", "");
  if (!p) return;
  pte_module *m = open_model(p);
  if (!m) return;
  CHECK_EQ_INT(meta_int(m, "get_max_seq_len", 0), 64);
  CHECK_EQ_INT(meta_int(m, "get_max_context_len", 0), 64);
  CHECK_EQ_INT(meta_int(m, "get_vocab_size", 0), 512);
  CHECK_EQ_INT(meta_int(m, "get_n_layers", 0), 2);
  CHECK_EQ_INT(meta_int(m, "get_bos_id", 0), 1);
  CHECK_EQ_INT(meta_int(m, "get_eos_ids", 0), 2);
  CHECK_EQ_INT(meta_int(m, "use_kv_cache", 0), 1);
  CHECK_EQ_INT(meta_int(m, "use_sdpa_with_kv_cache", 0), 1);
  CHECK_EQ_INT(meta_int(m, "enable_dynamic_shape", 0), 1);
  pte_module_destroy(m);
}

/* max |a - b| / max |b| over the vocab */
static double rel_err(const float *a, const double *b, int n) {
  double md = 0, mb = 0;
  for (int i = 0; i < n; i++) {
    double d = fabs((double)a[i] - b[i]);
    if (!(d <= md)) md = d; /* NaN propagates */
    if (fabs(b[i]) > mb) mb = fabs(b[i]);
  }
  return mb > 0 ? md / mb : INFINITY;
}

static const int64_t k_tokens[12] = {1, 300, 17, 411, 5, 260, 99, 500, 3, 42, 77, 280};

typedef struct steps_ctx {
  llama_ref *r;
  const llama_ref_cfg *cfg;
  const float *P;
  int prefill;
  double tol, *ref, errs[8];
  uint32_t calls_end[8];
  int trials;
} steps_ctx;

/* The reference's 8 steps (the same chunks as pte's), with the near-tie roundings flips[0..nflips)
 * taken the other way, against pte's logits P [8][V]: the index of the first step off by more than
 * tol (8: none); errs[st] its errors, calls_end[st] the reference's qd8 conversion count at the end
 * of step st. */
static int ref_check(steps_ctx *c, const llama_ref_tie *flips, size_t nflips) {
  llama_ref_set_flips(c->r, flips, nflips);
  llama_ref_reset(c->r);
  c->trials++;
  int pos = 0;
  for (int st = 0; st < 8; st++) {
    int n = st == 0 ? c->prefill : 1;
    if (!llama_ref_forward(c->r, k_tokens + pos, n, pos, c->ref)) return -1;
    c->calls_end[st] = llama_ref_calls(c->r);
    c->errs[st] = rel_err(c->P + (size_t)st * (size_t)c->cfg->vocab, c->ref, c->cfg->vocab);
    if (!(c->errs[st] <= c->tol)) return st;
    pos += n;
  }
  return 8;
}

static int tie_cmp(const void *a, const void *b) {
  float x = ((const llama_ref_tie *)a)->margin, y = ((const llama_ref_tie *)b)->margin;
  return x < y ? -1 : x > y;
}

/* The near ties of the last run before the end of step `bad`, not in chosen[0..n), closest first. */
static size_t tie_candidates(steps_ctx *c, int bad, const llama_ref_tie *chosen, size_t n, llama_ref_tie *cand) {
  const llama_ref_tie *t = NULL;
  size_t nt = llama_ref_ties(c->r, &t), nc = 0;
  for (size_t i = 0; i < nt; i++) {
    bool dup = t[i].call >= c->calls_end[bad];
    for (size_t j = 0; j < n; j++) dup |= t[i].call == chosen[j].call && t[i].elem == chosen[j].elem;
    if (!dup) cand[nc++] = t[i];
  }
  qsort(cand, nc, sizeof *cand, tie_cmp);
  return nc;
}

/* 8da4w: compares with the reference's 8 steps; while a step is off, retries with near-tie
 * roundings of the steps so far taken the other way: one more (the 32 closest to their tie, in
 * that order), else two more (the 8 closest, each with the 12 closest later ties of the run where
 * it went the other way: two roundings in one step, the second one only near its tie once the first
 * went the other way); the first set that brings the step within tol is kept, else the search
 * stops (at most LLAMA_REF_MAX_FLIPS roundings). Returns the first step still off (8: none), with
 * c->errs as that run left them and the roundings taken the other way in chosen[0..*n_flips). */
static int resolve_ties(steps_ctx *c, llama_ref_tie *chosen, size_t *n_flips) {
  static llama_ref_tie cand[LLAMA_REF_MAX_TIES], cand2[LLAMA_REF_MAX_TIES];
  size_t nc = 0;
  int bad = ref_check(c, chosen, 0);
  while (bad >= 0 && bad < 8 && nc < LLAMA_REF_MAX_FLIPS) {
    const int step = bad;
    const double before = c->errs[bad];
    size_t ncand = tie_candidates(c, bad, chosen, nc, cand), added = 0;
    for (size_t k = 0; k < ncand && k < 32 && !added; k++) {
      chosen[nc] = cand[k];
      int b2 = ref_check(c, chosen, nc + 1);
      if (b2 > bad) bad = b2, added = 1;
    }
    for (size_t k = 0; k < ncand && k < 8 && !added && nc + 2 <= LLAMA_REF_MAX_FLIPS; k++) {
      chosen[nc] = cand[k];
      if (ref_check(c, chosen, nc + 1) != bad) continue;
      size_t n2 = tie_candidates(c, bad, chosen, nc + 1, cand2), tried = 0;
      for (size_t j = 0; j < n2 && tried < 12 && !added; j++) {
        if (cand2[j].call < cand[k].call) continue; /* that pair is tried from the other side */
        chosen[nc + 1] = cand2[j];
        tried++;
        int b2 = ref_check(c, chosen, nc + 2);
        if (b2 > bad) bad = b2, added = 2;
      }
    }
    if (!added) {
      bad = ref_check(c, chosen, nc);
      break;
    }
    for (size_t j = 0; j < added; j++)
      printf("    step %d: the reference's rounding %u/%u (%.2f of the tie bound) taken the other way\n", step,
             (unsigned)chosen[nc + j].call, (unsigned)chosen[nc + j].elem, (double)chosen[nc + j].margin);
    printf("    step %d: error %.3g -> %.3g\n", step, before, c->errs[step]);
    nc += added;
  }
  *n_flips = nc;
  return bad;
}

/* Runs tokens[0..n0) as one call (chunk = n0) or one by one, then decodes the rest one by one,
 * 8 steps in all; compares each step's logits with the reference.
 * 8da4w: where the reference's per-token int8 rounding of an activation lies within 2^-12 of a
 * tie (16 fp32 ulps of the row's extreme values), the documented rule does not fix the outcome (the fp32 activation itself is only
 * defined to a few ulps: its operators do not fix their summation order), and one rounding the
 * other way changes the logits of the 12-layer model by its int8 quantization noise (0.3-1%), so
 * such roundings may go the other way (resolve_ties). */
static void run_steps_tol(const char *path, int prefill, const llama_ref_cfg *cfg, double tol) {
  pte_module *m = open_model(path);
  if (!m) return;
  const size_t V = (size_t)cfg->vocab;
  float *P = (float *)malloc(8 * V * sizeof(float));
  double *ref = (double *)malloc(V * sizeof(double));
  pte_error_info err;
  int pos = 0, steps = 0;
  while (steps < 8 && P && ref) {
    int n = steps == 0 ? prefill : 1;
    int32_t tsz[2] = {1, n}, psz[1] = {1};
    int64_t ip = pos;
    pte_status s = pte_module_set_input(m, "forward", 0, PTE_DTYPE_LONG, tsz, 2, k_tokens + pos, (size_t)n * 8, &err);
    CHECK_MSG(s == PTE_OK, "set tokens: %s", err.msg);
    if (s == PTE_OK) s = pte_module_set_input(m, "forward", 1, PTE_DTYPE_LONG, psz, 1, &ip, 8, &err);
    if (s == PTE_OK) s = pte_module_forward(m, &err);
    CHECK_MSG(s == PTE_OK, "step %d: %s", steps, err.msg);
    if (s != PTE_OK) break;
    const pte_tensor *y = pte_module_output_tensor(m, "forward", 0);
    CHECK(y && y->numel == V && y->dtype == PTE_DTYPE_FLOAT);
    if (!y || y->numel != V) break;
    memcpy(P + (size_t)steps * V, y->data, V * sizeof(float));
    pos += n;
    steps++;
  }
  pte_module_destroy(m);
  CHECK_EQ_INT(steps, 8);
  llama_ref *r = steps == 8 ? llama_ref_new(cfg) : NULL;
  CHECK(steps < 8 || r != NULL);
  if (r) {
    steps_ctx c = {r, cfg, P, prefill, tol, ref, {0}, {0}, 0};
    llama_ref_tie chosen[LLAMA_REF_MAX_FLIPS];
    size_t nc = 0;
    int bad = resolve_ties(&c, chosen, &nc);
    CHECK(bad >= 0);
    double worst = 0;
    for (int st = 0; st < 8 && st <= bad; st++) {
      CHECK_MSG(c.errs[st] <= tol, "step %d: relative error %g (bound %g; %d near-tie roundings taken the other way)",
                st, c.errs[st], tol, (int)nc);
      if (c.errs[st] > worst || isnan(c.errs[st])) worst = c.errs[st];
    }
    printf("    8 steps, worst relative error %.3g (%d near-tie roundings the other way, %d reference runs)\n", worst,
           (int)nc, c.trials);
  }
  free(P);
  free(ref);
  llama_ref_free(r);
}

static void run_steps_cfg(const char *path, int prefill, const llama_ref_cfg *cfg) {
  run_steps_tol(path, prefill, cfg, 1e-3);
}
static void run_steps(const char *path, int prefill) { run_steps_cfg(path, prefill, &k_cfg); }

TEST(dynamic_prefill_then_decode) {
  char *p = synth("llama_dyn.pte", "");
  if (p) run_steps(p, 5);
}

TEST(cache_init_variant) {
  char *p = synth("llama_cinit.pte", "--cache-init");
  if (p) run_steps(p, 3);
}

TEST(fused_sdpa_with_kv_cache) {
  char *p = synth("llama_fused.pte", "--attention sdpa_with_kv_cache");
  if (p) run_steps(p, 5);
  p = synth("llama_fused_s.pte", "--attention sdpa_with_kv_cache --static");
  if (p) run_steps(p, 1);
}

TEST(q4_dynamic) {
  char *p = synth("llama_q4.pte", "--quant 8da4w --group-size 32");
  if (p) run_steps_cfg(p, 5, &k_q4);
}

TEST(q4_static) {
  char *p = synth("llama_q4s.pte", "--quant 8da4w --group-size 32 --static");
  if (p) run_steps_cfg(p, 1, &k_q4);
}

/* The model size: ~100M parameters (dim 768, 12 layers, 12 heads / 4 KV heads, vocab
 * 16000, hidden 2048), 8 steps within 1e-3: fp32 linears (measured ~7e-7); 8da4w (group 128),
 * dynamic and --static (measured ~2.3e-7, with 4 / 2 of the reference's near-tie roundings taken
 * the other way). The per-token int8 rounding is discontinuous and the synthetic network carries
 * one rounding that goes the other way to ~0.3-1% of the logits (the int8 noise level itself:
 * measured for several weight scalings, docs/llm.md), so without the near-tie allowance of
 * run_steps_tol the bound would have to be that noise level. */
TEST(model_100m_parameters) {
  static const llama_ref_cfg bf = {768, 12, 12, 4, 16000, 128, 0, 3, 0, 0};
  char *p = synth_cfg("llama_100m_fp.pte", &bf, "");
  if (p) run_steps_cfg(p, 5, &bf);
  if (p) remove(p);
  static const llama_ref_cfg bq = {768, 12, 12, 4, 16000, 128, 0, 3, 1, 128};
  p = synth_cfg("llama_100m_q4.pte", &bq, "--quant 8da4w --group-size 128");
  if (p) run_steps_cfg(p, 5, &bq);
  if (p) remove(p);
  p = synth_cfg("llama_100m_q4s.pte", &bq, "--quant 8da4w --group-size 128 --static");
  if (p) run_steps_cfg(p, 1, &bq);
  if (p) remove(p);
}

TEST(static_token_by_token) {
  char *p = synth("llama_static.pte", "--static");
  if (p) run_steps(p, 1);
}

TEST(position_past_cache_is_an_error) {
  char *p = synth("llama_err.pte", "--static");
  if (!p) return;
  pte_module *m = open_model(p);
  if (!m) return;
  pte_error_info err;
  int32_t tsz[2] = {1, 1}, psz[1] = {1};
  int64_t tok = 5, ip = 64;
  CHECK_OK(pte_module_set_input(m, "forward", 0, PTE_DTYPE_LONG, tsz, 2, &tok, 8, &err));
  CHECK_OK(pte_module_set_input(m, "forward", 1, PTE_DTYPE_LONG, psz, 1, &ip, 8, &err));
  pte_status s = pte_module_forward(m, &err);
  CHECK(s != PTE_OK);
  pte_module_destroy(m);
}

TEST(bad_options_are_usage_errors) {
  CHECK_EQ_INT(run_cli("synth llama -o /dev/null --dim 64 --layers 1 --heads 3 --kv-heads 1 --vocab 300 --seq 8", NULL), 2);
  CHECK_EQ_INT(run_cli("synth llama -o /dev/null --dim 64 --layers 1 --heads 4 --kv-heads 3 --vocab 300 --seq 8", NULL), 2);
  CHECK_EQ_INT(run_cli("synth llama -o /dev/null --dim 64 --layers 1 --heads 4 --kv-heads 2 --seq 8", NULL), 2);
  CHECK_EQ_INT(run_cli("synth llama -o /dev/null --dim 64 --layers 1 --heads 4 --kv-heads 2 --vocab 300 --seq 8 "
                       "--attention flash", NULL), 2);
  CHECK_EQ_INT(run_cli("synth llama -o /dev/null --dim 64 --layers 1 --heads 4 --kv-heads 2 --vocab 300 --seq 8 "
                       "--quant 8da4w --group-size 48", NULL), 2);
  CHECK_EQ_INT(run_cli("synth llama -o /dev/null --dim 64 --layers 1 --heads 4 --kv-heads 2 --vocab 100 --seq 8 "
                       "--tokenizer-out /dev/null", NULL), 2);
}

int main(void) {
  if (!getenv("PTE_CLI")) test_fail(__FILE__, __LINE__, "PTE_CLI is not set");

  RUN(metadata_methods);
  RUN(dynamic_prefill_then_decode);
  RUN(static_token_by_token);
  RUN(cache_init_variant);
  RUN(fused_sdpa_with_kv_cache);
  RUN(q4_dynamic);
  RUN(q4_static);
  RUN(model_100m_parameters);
  RUN(position_past_cache_is_an_error);
  RUN(bad_options_are_usage_errors);
  return test_summary();
}
