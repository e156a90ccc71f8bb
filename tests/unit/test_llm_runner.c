#define _POSIX_C_SOURCE 200809L
/* include/pte/llm.h on a `pte synth llama` model (written through $PTE_CLI):
 *   - pte_llm_open reads the metadata methods;
 *   - greedy generation (temperature 0) produces the ids the independent reference
 *     (tests/support/llama_ref.c) produces by argmax over its own logits, for a dynamic model
 *     (prompt in one call) and a --static one (token by token);
 *   - the context limit and ids outside the vocabulary are specific errors; a non-LLM program is
 *     refused; a `pte prepare`d 8da4w model gives bit-identical logits;
 *   - the sampler: argmax ties pick the lowest id; temperature 1 draws match hand-derived
 *     probabilities; top-p keeps exactly the smallest nucleus; the same seed repeats;
 *   - `pte generate --tokens ... --temperature 0 --json` prints the reference's greedy ids, and
 *     the same --seed gives the same sampled ids; bad command lines are usage errors. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "llama_ref.h"
#include "pte/llm.h"
#include "pte/module.h"
#include "test.h"

static const llama_ref_cfg k_cfg = {64, 2, 4, 2, 512, 32, 0, 11, 0, 0};

static bool synth(const char *path, const char *extra) {
  const char *cli = getenv("PTE_CLI");
  if (!cli) {
    test_fail(__FILE__, __LINE__, "PTE_CLI is not set");
    return false;
  }
  char cmd[2048];
  snprintf(cmd, sizeof cmd, "'%s' synth llama -q -o '%s' --dim %d --layers %d --heads %d --kv-heads %d --vocab %d "
           "--seq %d --seed %llu %s 2>&1", cli, path, k_cfg.dim, k_cfg.layers, k_cfg.heads, k_cfg.kv_heads,
           k_cfg.vocab, k_cfg.seq, (unsigned long long)k_cfg.seed, extra);
  int code = -1;
  char *o = test_run_capture(cmd, &code);
  if (code != 0) test_fail(__FILE__, __LINE__, "synth failed (%d): %s", code, o ? o : "");
  free(o);
  return code == 0;
}

static pte_llm *open_lm(const char *path) {
  pte_error_info err;
  if (pte_module_register_all(&err) != PTE_OK || llama_ref_register_missing_kernels() != PTE_OK) {
    test_fail(__FILE__, __LINE__, "registration failed");
    return NULL;
  }
  pte_llm *lm = NULL;
  pte_status s = pte_llm_open(path, NULL, &lm, &err);
  if (s != PTE_OK) test_fail(__FILE__, __LINE__, "open: %s", err.msg);
  return lm;
}

typedef struct collect {
  int64_t ids[64];
  size_t n;
} collect;

static bool on_tok(void *ctx, int64_t id) {
  collect *c = (collect *)ctx;
  if (c->n < 64) c->ids[c->n++] = id;
  return true;
}

static size_t ref_argmax(const double *v, int n) {
  size_t b = 0;
  for (int i = 1; i < n; i++)
    if (v[i] > v[b]) b = (size_t)i;
  return b;
}

static void greedy_matches_reference(const char *name, const char *extra, bool dynamic) {
  const char *p = test_tmp_path(name);
  if (!synth(p, extra)) return;
  pte_llm *lm = open_lm(p);
  if (!lm) return;
  const pte_llm_info *I = pte_llm_get_info(lm);
  CHECK_EQ_INT(I->max_seq_len, 32);
  CHECK_EQ_INT(I->max_context_len, 32);
  CHECK_EQ_INT(I->vocab_size, 512);
  CHECK_EQ_INT(I->n_layers, 2);
  CHECK_EQ_INT(I->bos_id, 1);
  CHECK_EQ_INT((int64_t)I->n_eos, 1);
  CHECK_EQ_INT(I->eos_ids[0], 2);
  CHECK(I->use_kv_cache);
  CHECK(I->dynamic_shape == dynamic);
  const int64_t prompt[5] = {1, 300, 17, 411, 5};
  pte_llm_sampler smp;
  pte_llm_sampler_init(&smp, 0.0f, 1.0f, 0);
  collect got;
  memset(&got, 0, sizeof got);
  pte_llm_stats st;
  pte_error_info err;
  pte_status s = pte_llm_generate(lm, prompt, 5, 10, &smp, on_tok, &got, &st, &err);
  CHECK_MSG(s == PTE_OK, "generate: %s", err.msg);
  /* the reference, greedy over its own logits (stopping at the EOS id 2 as the runner does) */
  llama_ref *r = llama_ref_new(&k_cfg);
  double *lg = (double *)malloc(512 * sizeof(double));
  CHECK(r && lg);
  collect want;
  memset(&want, 0, sizeof want);
  bool ok = r && lg && llama_ref_forward(r, prompt, 5, 0, lg);
  int pos = 5;
  while (ok && want.n < 10) {
    int64_t id = (int64_t)ref_argmax(lg, 512);
    want.ids[want.n++] = id;
    if (id == 2) break;
    ok = llama_ref_forward(r, &id, 1, pos++, lg);
  }
  CHECK(ok);
  CHECK_EQ_INT((int64_t)got.n, (int64_t)want.n);
  for (size_t i = 0; i < want.n && i < got.n; i++) CHECK_MSG(got.ids[i] == want.ids[i], "token %zu: %lld, reference %lld", i, (long long)got.ids[i], (long long)want.ids[i]);
  CHECK_EQ_INT((int64_t)st.prompt_tokens, 5);
  CHECK_EQ_INT((int64_t)st.generated_tokens, (int64_t)want.n);
  printf("    reference ids:");
  for (size_t i = 0; i < want.n; i++) printf(" %lld", (long long)want.ids[i]);
  printf("\n");
  /* the same with a fixed seed at temperature 0.8 twice: identical */
  collect a, b;
  memset(&a, 0, sizeof a);
  memset(&b, 0, sizeof b);
  pte_llm_sampler_init(&smp, 0.8f, 0.9f, 1234);
  CHECK_OK(pte_llm_generate(lm, prompt, 5, 12, &smp, on_tok, &a, NULL, &err));
  pte_llm_sampler_free(&smp);
  pte_llm_sampler_init(&smp, 0.8f, 0.9f, 1234);
  CHECK_OK(pte_llm_generate(lm, prompt, 5, 12, &smp, on_tok, &b, NULL, &err));
  pte_llm_sampler_free(&smp);
  CHECK_EQ_INT((int64_t)a.n, (int64_t)b.n);
  CHECK(a.n > 0 && memcmp(a.ids, b.ids, a.n * sizeof(int64_t)) == 0);
  free(lg);
  llama_ref_free(r);
  pte_llm_free(lm);
}

TEST(greedy_dynamic) { greedy_matches_reference("llm_dyn.pte", "", true); }
TEST(greedy_static) { greedy_matches_reference("llm_static.pte", "--static", false); }

TEST(errors) {
  const char *p = test_tmp_path("llm_err.pte");
  if (!synth(p, "")) return;
  pte_llm *lm = open_lm(p);
  if (!lm) return;
  pte_error_info err;
  const float *lg = NULL;
  int64_t bad = 512;
  CHECK_STATUS(pte_llm_feed(lm, &bad, 1, &lg, &err), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(err.msg, "vocabulary");
  int64_t ids[33];
  for (int i = 0; i < 33; i++) ids[i] = 3 + i;
  CHECK_STATUS(pte_llm_feed(lm, ids, 33, &lg, &err), PTE_ERR_OUT_OF_RESOURCES);
  CHECK_OK(pte_llm_feed(lm, ids, 32, &lg, &err));
  CHECK_EQ_INT(pte_llm_position(lm), 32);
  CHECK_STATUS(pte_llm_feed(lm, ids, 1, &lg, &err), PTE_ERR_OUT_OF_RESOURCES);
  /* generation stops when the context is full: 30 prompt ids leave 2 positions, so 3 ids are
   * sampled (the last one is not fed) */
  pte_llm_sampler smp;
  pte_llm_sampler_init(&smp, 0.0f, 1.0f, 0);
  pte_llm_stats st;
  CHECK_OK(pte_llm_generate(lm, ids, 30, 50, &smp, NULL, NULL, &st, &err));
  CHECK_EQ_INT((int64_t)st.generated_tokens, 3);
  CHECK(st.context_full || st.stopped_at_eos);
  pte_llm_free(lm);
  CHECK(pte_llm_open(test_tmp_path("no_such_model.pte"), NULL, &lm, &err) != PTE_OK);
}

TEST(sampler) {
  pte_llm_sampler s;
  const float tie[4] = {0.5f, 2.0f, 2.0f, -1.0f};
  pte_llm_sampler_init(&s, 0.0f, 1.0f, 0);
  CHECK_EQ_INT(pte_llm_sample(&s, tie, 4), 1);
  pte_llm_sampler_free(&s);
  /* probabilities 1/2, 1/4, 1/4 at temperature 1 */
  const float lg[3] = {logf(0.5f), logf(0.25f), logf(0.25f)};
  int cnt[3] = {0, 0, 0};
  const int N = 40000;
  pte_llm_sampler_init(&s, 1.0f, 1.0f, 7);
  for (int i = 0; i < N; i++) {
    int64_t id = pte_llm_sample(&s, lg, 3);
    CHECK(id >= 0 && id < 3);
    if (id >= 0 && id < 3) cnt[id]++;
  }
  pte_llm_sampler_free(&s);
  CHECK_NEAR((double)cnt[0] / N, 0.5, 0.015);
  CHECK_NEAR((double)cnt[1] / N, 0.25, 0.015);
  CHECK_NEAR((double)cnt[2] / N, 0.25, 0.015);
  /* top-p 0.6: the nucleus is {0, 1} (0.5 < 0.6 <= 0.75; the tie between 1 and 2 goes to the lower
   * id), renormalised to 2/3, 1/3 */
  memset(cnt, 0, sizeof cnt);
  pte_llm_sampler_init(&s, 1.0f, 0.6f, 9);
  for (int i = 0; i < N; i++) {
    int64_t id = pte_llm_sample(&s, lg, 3);
    if (id >= 0 && id < 3) cnt[id]++;
  }
  pte_llm_sampler_free(&s);
  CHECK_EQ_INT(cnt[2], 0);
  CHECK_NEAR((double)cnt[0] / N, 2.0 / 3.0, 0.015);
  CHECK_NEAR((double)cnt[1] / N, 1.0 / 3.0, 0.015);
  /* a tiny nucleus is the argmax */
  pte_llm_sampler_init(&s, 1.0f, 0.01f, 3);
  for (int i = 0; i < 100; i++) CHECK_EQ_INT(pte_llm_sample(&s, lg, 3), 0);
  pte_llm_sampler_free(&s);
  /* seeds: same seed same stream, another seed another stream */
  pte_llm_sampler a, b, c;
  pte_llm_sampler_init(&a, 1.0f, 1.0f, 5);
  pte_llm_sampler_init(&b, 1.0f, 1.0f, 5);
  pte_llm_sampler_init(&c, 1.0f, 1.0f, 6);
  int same = 0, diff = 0;
  for (int i = 0; i < 200; i++) {
    int64_t x = pte_llm_sample(&a, lg, 3), y = pte_llm_sample(&b, lg, 3), z = pte_llm_sample(&c, lg, 3);
    same += x == y;
    diff += x != z;
  }
  CHECK_EQ_INT(same, 200);
  CHECK(diff > 0);
  pte_llm_sampler_free(&a);
  pte_llm_sampler_free(&b);
  pte_llm_sampler_free(&c);
}

static char *cli_out(const char *args, int *code) {
  char cmd[2048];
  snprintf(cmd, sizeof cmd, "'%s' %s 2>/dev/null", getenv("PTE_CLI"), args);
  return test_run_capture(cmd, code);
}

static size_t json_ids(const char *out, const char *key, int64_t *ids, size_t cap) {
  char e[128];
  test_json *j = out ? test_json_parse(out, strlen(out), e, sizeof e) : NULL;
  if (!j) return 0;
  const test_json *a = test_json_get(j, key);
  size_t n = test_json_len(a);
  for (size_t i = 0; i < n && i < cap; i++) ids[i] = test_json_int(test_json_at(a, i), -1);
  test_json_free(j);
  return n;
}

TEST(cli_generate) {
  const char *p = test_tmp_path("llm_cli.pte");
  if (!synth(p, "")) return;
  char args[1024];
  snprintf(args, sizeof args, "generate '%s' --tokens 1,300,17,411,5 -n 10 --temperature 0 --json", p);
  int code = -1;
  char *out = cli_out(args, &code);
  CHECK_EQ_INT(code, 0);
  int64_t got[16];
  size_t n = json_ids(out, "generated_ids", got, 16);
  { /* the memory split: anonymous part > 0 and not above the peak (Linux: from /proc/self/status) */
    char e[128];
    test_json *j = out ? test_json_parse(out, strlen(out), e, sizeof e) : NULL;
    CHECK(j != NULL);
    int64_t peak = j ? test_json_int(test_json_get(j, "peak_rss_bytes"), -1) : -1;
    int64_t anon = j ? test_json_int(test_json_get(j, "peak_rss_anon_bytes"), -1) : -1;
    int64_t file = j ? test_json_int(test_json_get(j, "rss_file_bytes_at_peak_anon"), -1) : -1;
    CHECK_MSG(anon > 0 && file > 0 && anon <= peak && anon + file <= peak + 4096 * 16, "peak %lld anon %lld file %lld",
              (long long)peak, (long long)anon, (long long)file);
    test_json_free(j);
  }
  free(out);
  llama_ref *r = llama_ref_new(&k_cfg);
  double *lg = (double *)malloc(512 * sizeof(double));
  const int64_t prompt[5] = {1, 300, 17, 411, 5};
  bool ok = r && lg && llama_ref_forward(r, prompt, 5, 0, lg);
  size_t k = 0;
  for (int pos = 5; ok && k < 10; pos++) {
    int64_t id = (int64_t)ref_argmax(lg, 512);
    CHECK_MSG(k < n && got[k] == id, "id %zu: cli %lld, reference %lld", k, k < n ? (long long)got[k] : -1LL, (long long)id);
    k++;
    if (id == 2) break;
    ok = llama_ref_forward(r, &id, 1, pos, lg);
  }
  CHECK(ok);
  CHECK_EQ_INT((int64_t)n, (int64_t)k);
  free(lg);
  llama_ref_free(r);
  /* the attention kernels on 2 threads: the same ids */
  snprintf(args, sizeof args, "generate '%s' --tokens 1,300,17,411,5 -n 10 --temperature 0 --attention-threads 2 --json", p);
  out = cli_out(args, &code);
  CHECK_EQ_INT(code, 0);
  int64_t got2[16];
  size_t n2 = json_ids(out, "generated_ids", got2, 16);
  free(out);
  CHECK(n2 == n && memcmp(got, got2, n * sizeof(int64_t)) == 0);
  /* sampling with a seed repeats */
  snprintf(args, sizeof args, "generate '%s' --tokens 1,300 -n 12 --temperature 1 --top-p 0.95 --seed 99 --json", p);
  int64_t a[16], b[16];
  out = cli_out(args, &code);
  size_t na = json_ids(out, "generated_ids", a, 16);
  free(out);
  out = cli_out(args, &code);
  size_t nb = json_ids(out, "generated_ids", b, 16);
  free(out);
  CHECK(na > 0 && na == nb && memcmp(a, b, na * sizeof(int64_t)) == 0);
  /* --prompt through the tokenizer.bin `pte synth llama --tokenizer-out` writes: the prompt ids
   * are the model's BOS (1), then "a" with llama2.c's dummy space prefix, " a": the pieces ' '
   * (259) and 'a' (324) merge into the two-character piece " a" (the pairs start at id 354 with
   * "  ", " e", " t", " a" -> 357); the generated ids are the reference's greedy continuation */
  const char *tp = test_tmp_path("llm_cli_tok.bin");
  const char *p2 = test_tmp_path("llm_cli2.pte");
  char cmd[2048];
  snprintf(cmd, sizeof cmd, "'%s' synth llama -q -o '%s' --dim 64 --layers 2 --heads 4 --kv-heads 2 --vocab 512 "
           "--seq 32 --seed 11 --tokenizer-out '%s' 2>&1", getenv("PTE_CLI"), p2, tp);
  free(test_run_capture(cmd, &code));
  CHECK_EQ_INT(code, 0);
  snprintf(args, sizeof args, "generate '%s' --tokenizer '%s' --prompt a -n 4 --temperature 0 --json", p2, tp);
  out = cli_out(args, &code);
  CHECK_EQ_INT(code, 0);
  int64_t pids[8], gids[8];
  size_t np = json_ids(out, "prompt_ids", pids, 8), ng = json_ids(out, "generated_ids", gids, 8);
  free(out);
  CHECK_EQ_INT((int64_t)np, 2);
  CHECK_EQ_INT(pids[0], 1);
  CHECK_EQ_INT(pids[1], 357);
  r = llama_ref_new(&k_cfg);
  lg = (double *)malloc(512 * sizeof(double));
  ok = r && lg && np == 2 && llama_ref_forward(r, pids, 2, 0, lg);
  CHECK_EQ_INT((int64_t)ng, 4);
  for (size_t i = 0; ok && i < ng && i < 4; i++) {
    int64_t id = (int64_t)ref_argmax(lg, 512);
    CHECK_EQ_INT(gids[i], id);
    ok = llama_ref_forward(r, &id, 1, 2 + (int)i, lg);
  }
  free(lg);
  llama_ref_free(r);
  /* usage errors */
  snprintf(args, sizeof args, "generate '%s' -n 3", p);
  free(cli_out(args, &code));
  CHECK_EQ_INT(code, 2);
  snprintf(args, sizeof args, "generate '%s' --tokens 1,x", p);
  free(cli_out(args, &code));
  CHECK_EQ_INT(code, 2);
  snprintf(args, sizeof args, "generate '%s' --tokens 1,600", p);
  free(cli_out(args, &code));
  CHECK_EQ_INT(code, 1);
}

/* `pte prepare` of an 8da4w model (packed 4-bit panels persisted): the prepared file gives
 * bit-identical logits, step by step; a model that is not an LLM export is refused by name. */
TEST(prepared_model) {
  const char *p = test_tmp_path("llm_q4.pte"), *pp = test_tmp_path("llm_q4.prepared.pte");
  if (!synth(p, "--quant 8da4w --group-size 32")) return;
  char cmd[2048];
  int code = -1;
  snprintf(cmd, sizeof cmd, "'%s' prepare '%s' -o '%s' -q 2>&1", getenv("PTE_CLI"), p, pp);
  char *o = test_run_capture(cmd, &code);
  CHECK_MSG(code == 0, "prepare: %s", o ? o : "");
  free(o);
  pte_llm *a = open_lm(p), *b = code == 0 ? open_lm(pp) : NULL;
  if (!a || !b) {
    pte_llm_free(a);
    pte_llm_free(b);
    return;
  }
  const int64_t ids[6] = {1, 300, 17, 411, 5, 260};
  pte_error_info err;
  const float *la = NULL, *lb = NULL;
  CHECK_OK(pte_llm_feed(a, ids, 4, &la, &err));
  CHECK_OK(pte_llm_feed(b, ids, 4, &lb, &err));
  CHECK(la && lb && memcmp(la, lb, 512 * sizeof(float)) == 0);
  for (int i = 4; i < 6; i++) {
    CHECK_OK(pte_llm_feed(a, ids + i, 1, &la, &err));
    CHECK_OK(pte_llm_feed(b, ids + i, 1, &lb, &err));
    CHECK(la && lb && memcmp(la, lb, 512 * sizeof(float)) == 0);
  }
  pte_llm_free(a);
  pte_llm_free(b);
  /* an MLP is not an LLM export */
  const char *mlp = test_tmp_path("llm_not.pte");
  snprintf(cmd, sizeof cmd, "'%s' synth mlp -q -o '%s' 2>&1", getenv("PTE_CLI"), mlp);
  free(test_run_capture(cmd, &code));
  CHECK_EQ_INT(code, 0);
  pte_llm *lm = NULL;
  CHECK_STATUS(pte_llm_open(mlp, NULL, &lm, &err), PTE_ERR_INVALID_PROGRAM);
  CHECK_CONTAINS(err.msg, "expected (tokens, input_pos)");
  CHECK(lm == NULL);
}

int main(void) {
  RUN(sampler);
  RUN(greedy_dynamic);
  RUN(greedy_static);
  RUN(errors);
  RUN(cli_generate);
  RUN(prepared_model);
  return test_summary();
}
