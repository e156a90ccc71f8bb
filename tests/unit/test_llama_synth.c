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
 *   - a ~100M-parameter model: fp32 within 1e-3, 8da4w within the quantization-noise bound (see
 *     model_100m_parameters);
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

/* Runs tokens[0..n0) as one call (chunk = n0) or one by one, then decodes the rest one by one,
 * 8 steps in all; compares each step's logits with the reference. */
static void run_steps_tol(const char *path, int prefill, const llama_ref_cfg *cfg, double tol) {
  pte_module *m = open_model(path);
  if (!m) return;
  llama_ref *r = llama_ref_new(cfg);
  CHECK(r != NULL);
  double *ref = (double *)malloc((size_t)cfg->vocab * sizeof(double));
  pte_error_info err;
  int pos = 0, steps = 0;
  double worst = 0;
  while (steps < 8 && r && ref) {
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
    CHECK(y && y->numel == (size_t)cfg->vocab && y->dtype == PTE_DTYPE_FLOAT);
    CHECK(llama_ref_forward(r, k_tokens + pos, n, pos, ref));
    if (!y || y->numel != (size_t)cfg->vocab) break;
    double e = rel_err((const float *)y->data, ref, cfg->vocab);
    CHECK_MSG(e <= tol, "step %d (pos %d, %d tokens): relative error %g (bound %g)", steps, pos, n, e, tol);
    if (e > worst || isnan(e)) worst = e;
    pos += n;
    steps++;
  }
  CHECK_EQ_INT(steps, 8);
  printf("    %d steps, worst relative error %.3g\n", steps, worst);
  free(ref);
  llama_ref_free(r);
  pte_module_destroy(m);
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
 * 16000, hidden 2048).
 * fp32 linears: 8 steps within 1e-3 (measured ~7e-7).
 * 8da4w (group 128): the per-token int8 rounding of the activations is discontinuous, and in a
 * 12-layer network one rounding that goes the other way (the reference accumulates in double,
 * pte in float: the inputs of a rounding differ by ~1e-6 relative) changes the logits by ~1%:
 * perturbing the reference's own embeddings by 1e-6 relative moves its logits by 0.8-1.0% from the
 * first flipped step on (measured), and pte is within 1e-7 of the reference until such a step
 * (pos 9 with these tokens: 0.66%). So the bound here is the quantization-noise level, 2e-2;
 * the 1e-3 check of the 8da4w path is q4_dynamic / q4_static (2 layers, no flip: ~1e-7). */
TEST(model_100m_parameters) {
  static const llama_ref_cfg bf = {768, 12, 12, 4, 16000, 128, 0, 3, 0, 0};
  char *p = synth_cfg("llama_100m_fp.pte", &bf, "");
  if (p) run_steps_cfg(p, 5, &bf);
  if (p) remove(p);
  static const llama_ref_cfg bq = {768, 12, 12, 4, 16000, 128, 0, 3, 1, 128};
  p = synth_cfg("llama_100m_q4.pte", &bq, "--quant 8da4w --group-size 128");
  if (p) run_steps_tol(p, 5, &bq, 2e-2);
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
