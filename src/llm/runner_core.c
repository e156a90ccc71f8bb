/* The LLM runner (include/pte/llm.h): metadata, prompt feeding, generation loop. Host layer. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pte/llm.h"
#include "pte/module.h"

struct pte_llm {
  pte_module *mod;
  char method[64];
  pte_llm_info info;
  int64_t pos;
  double load_seconds;
};

static double llm_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static bool llm_has_method(const pte_module *m, const char *name) {
  for (size_t i = 0; i < pte_module_num_methods(m); i++) {
    const char *n = pte_module_method_name(m, i);
    if (n && !strcmp(n, name)) return true;
  }
  return false;
}

/* Runs metadata method `name` (when present): *n receives its outputs (Int or Bool) into vals. */
static pte_status llm_meta(pte_llm *lm, const char *name, int64_t *vals, size_t cap, size_t *n, pte_error_info *err) {
  *n = 0;
  if (!llm_has_method(lm->mod, name)) return PTE_OK;
  pte_status s = pte_module_execute(lm->mod, name, err);
  if (s != PTE_OK) return s;
  size_t k = pte_module_num_outputs(lm->mod, name);
  if (k == 0 || k > cap)
    return pte_error_set(err, PTE_ERR_INVALID_PROGRAM, "llm: metadata method %s has %zu outputs (expected 1..%zu)",
                         name, k, cap);
  for (size_t i = 0; i < k; i++) {
    const pte_evalue *v = pte_module_output(lm->mod, name, i);
    if (v && v->tag == PTE_TAG_INT) vals[i] = v->u.i;
    else if (v && v->tag == PTE_TAG_BOOL) vals[i] = v->u.b;
    else
      return pte_error_set(err, PTE_ERR_INVALID_PROGRAM, "llm: metadata method %s output %zu is %s, expected Int or Bool",
                           name, i, v ? pte_tag_name((pte_tag)v->tag) : "missing");
  }
  *n = k;
  return PTE_OK;
}

static pte_status llm_read_info(pte_llm *lm, pte_error_info *err) {
  pte_llm_info *I = &lm->info;
  memset(I, 0, sizeof *I);
  I->max_seq_len = 128; /* upstream runner defaults */
  I->n_layers = -1;
  I->bos_id = -1;
  I->use_kv_cache = true;
  int64_t v[PTE_LLM_MAX_EOS];
  size_t n;
  struct {
    const char *name;
    unsigned bit;
  } one[] = {{"get_max_seq_len", PTE_LLM_HAVE_MAX_SEQ_LEN}, {"get_max_context_len", PTE_LLM_HAVE_MAX_CONTEXT_LEN},
             {"get_vocab_size", PTE_LLM_HAVE_VOCAB_SIZE},   {"get_n_layers", PTE_LLM_HAVE_N_LAYERS},
             {"get_bos_id", PTE_LLM_HAVE_BOS},               {"use_kv_cache", PTE_LLM_HAVE_KV_CACHE},
             {"enable_dynamic_shape", PTE_LLM_HAVE_DYNAMIC}};
  for (size_t i = 0; i < sizeof one / sizeof one[0]; i++) {
    pte_status s = llm_meta(lm, one[i].name, v, 1, &n, err);
    if (s != PTE_OK) return s;
    if (!n) continue;
    I->have |= one[i].bit;
    switch (one[i].bit) {
      case PTE_LLM_HAVE_MAX_SEQ_LEN: I->max_seq_len = v[0]; break;
      case PTE_LLM_HAVE_MAX_CONTEXT_LEN: I->max_context_len = v[0]; break;
      case PTE_LLM_HAVE_VOCAB_SIZE: I->vocab_size = v[0]; break;
      case PTE_LLM_HAVE_N_LAYERS: I->n_layers = v[0]; break;
      case PTE_LLM_HAVE_BOS: I->bos_id = v[0]; break;
      case PTE_LLM_HAVE_KV_CACHE: I->use_kv_cache = v[0] != 0; break;
      default: I->dynamic_shape = v[0] != 0; break;
    }
  }
  pte_status s = llm_meta(lm, "get_eos_ids", I->eos_ids, PTE_LLM_MAX_EOS, &I->n_eos, err);
  if (s != PTE_OK) return s;
  if (I->n_eos) I->have |= PTE_LLM_HAVE_EOS;
  if (!(I->have & PTE_LLM_HAVE_MAX_CONTEXT_LEN)) I->max_context_len = I->max_seq_len;
  if (I->max_seq_len < 1 || I->max_context_len < 1)
    return pte_error_set(err, PTE_ERR_INVALID_PROGRAM, "llm: max_seq_len %lld / max_context_len %lld must be positive",
                         (long long)I->max_seq_len, (long long)I->max_context_len);
  if (!I->use_kv_cache)
    return pte_error_set(err, PTE_ERR_NOT_SUPPORTED, "llm: the model has no KV cache (use_kv_cache is false)");
  return PTE_OK;
}

pte_status pte_llm_open(const char *path, const pte_llm_options *opts, pte_llm **out, pte_error_info *err) {
  if (!path || !out) return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "llm: NULL path or out");
  *out = NULL;
  pte_llm *lm = (pte_llm *)calloc(1, sizeof *lm);
  if (!lm) return pte_error_set(err, PTE_ERR_MEMORY_ALLOCATION_FAILED, "llm: out of memory");
  const char *method = opts && opts->method ? opts->method : "forward";
  if (strlen(method) >= sizeof lm->method) {
    free(lm);
    return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "llm: method name too long");
  }
  strcpy(lm->method, method);
  pte_module_options mo;
  memset(&mo, 0, sizeof mo);
  mo.num_threads = opts ? opts->num_threads : 0;
  pte_status s = pte_module_open(path, &mo, &lm->mod, err);
  if (s == PTE_OK && !llm_has_method(lm->mod, lm->method))
    s = pte_error_set(err, PTE_ERR_INVALID_PROGRAM, "llm: %s has no method '%s'", path, lm->method);
  if (s == PTE_OK) {
    double t0 = llm_now();
    s = pte_module_load_method(lm->mod, lm->method, err);
    lm->load_seconds = llm_now() - t0;
  }
  if (s == PTE_OK) {
    pte_method *m = pte_module_method(lm->mod, lm->method, err);
    if (!m) s = err && err->status != PTE_OK ? err->status : PTE_ERR_INVALID_PROGRAM;
    else if (pte_method_num_inputs(m) != 2)
      s = pte_error_set(err, PTE_ERR_INVALID_PROGRAM, "llm: '%s' takes %zu inputs, expected (tokens, input_pos)",
                        lm->method, pte_method_num_inputs(m));
  }
  if (s == PTE_OK) s = llm_read_info(lm, err);
  if (s != PTE_OK) {
    pte_llm_free(lm);
    return s;
  }
  *out = lm;
  return PTE_OK;
}

void pte_llm_free(pte_llm *lm) {
  if (!lm) return;
  pte_module_destroy(lm->mod);
  free(lm);
}

const pte_llm_info *pte_llm_get_info(const pte_llm *lm) { return lm ? &lm->info : NULL; }
double pte_llm_load_seconds(const pte_llm *lm) { return lm ? lm->load_seconds : 0; }
int64_t pte_llm_position(const pte_llm *lm) { return lm ? lm->pos : 0; }
void pte_llm_reset(pte_llm *lm) {
  if (lm) lm->pos = 0;
}

/* One forward call over ids[0..n) at lm->pos. */
static pte_status llm_call(pte_llm *lm, const int64_t *ids, size_t n, const float **logits, pte_error_info *err) {
  int32_t tsz[2] = {1, (int32_t)n}, psz[1] = {1};
  int64_t ip = lm->pos;
  pte_status s = pte_module_set_input(lm->mod, lm->method, 0, PTE_DTYPE_LONG, tsz, 2, ids, n * sizeof(int64_t), err);
  if (s == PTE_OK) s = pte_module_set_input(lm->mod, lm->method, 1, PTE_DTYPE_LONG, psz, 1, &ip, sizeof ip, err);
  if (s == PTE_OK) s = pte_module_execute(lm->mod, lm->method, err);
  if (s != PTE_OK) return s;
  const pte_tensor *y = pte_module_output_tensor(lm->mod, lm->method, 0);
  if (!y || y->dtype != PTE_DTYPE_FLOAT || y->dim < 1 || !y->data)
    return pte_error_set(err, PTE_ERR_INVALID_PROGRAM, "llm: output 0 of '%s' is not a float tensor of logits",
                         lm->method);
  int64_t V = y->sizes[y->dim - 1];
  if (lm->info.vocab_size == 0) lm->info.vocab_size = V;
  if (V != lm->info.vocab_size || V < 1)
    return pte_error_set(err, PTE_ERR_INVALID_PROGRAM, "llm: logits have %lld columns, the vocabulary is %lld",
                         (long long)V, (long long)lm->info.vocab_size);
  *logits = (const float *)y->data + (y->numel - (size_t)V);
  lm->pos += (int64_t)n;
  return PTE_OK;
}

pte_status pte_llm_feed(pte_llm *lm, const int64_t *ids, size_t n, const float **logits, pte_error_info *err) {
  if (!lm || !ids || !n || !logits) return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "llm: feed needs ids and logits");
  if (lm->pos + (int64_t)n > lm->info.max_context_len)
    return pte_error_set(err, PTE_ERR_OUT_OF_RESOURCES, "llm: %zu tokens at position %lld exceed the context of %lld",
                         n, (long long)lm->pos, (long long)lm->info.max_context_len);
  for (size_t i = 0; i < n; i++)
    if (ids[i] < 0 || (lm->info.vocab_size > 0 && ids[i] >= lm->info.vocab_size))
      return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "llm: token id %lld (position %zu) is outside the vocabulary of %lld",
                           (long long)ids[i], i, (long long)lm->info.vocab_size);
  size_t chunk = lm->info.dynamic_shape ? (size_t)lm->info.max_seq_len : 1;
  for (size_t i = 0; i < n;) {
    size_t k = n - i < chunk ? n - i : chunk;
    pte_status s = llm_call(lm, ids + i, k, logits, err);
    if (s != PTE_OK) return s;
    i += k;
  }
  return PTE_OK;
}

static bool llm_is_eos(const pte_llm_info *I, int64_t id) {
  for (size_t i = 0; i < I->n_eos; i++)
    if (I->eos_ids[i] == id) return true;
  return false;
}

pte_status pte_llm_generate(pte_llm *lm, const int64_t *prompt, size_t n_prompt, size_t max_new,
                            pte_llm_sampler *sampler, pte_llm_token_fn on_token, void *ctx, pte_llm_stats *stats,
                            pte_error_info *err) {
  pte_llm_stats st;
  memset(&st, 0, sizeof st);
  if (!lm || !sampler) return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "llm: NULL model or sampler");
  pte_llm_reset(lm);
  const float *logits = NULL;
  double t0 = llm_now();
  pte_status s = pte_llm_feed(lm, prompt, n_prompt, &logits, err);
  double t1 = llm_now();
  st.prompt_tokens = n_prompt;
  st.prompt_seconds = t1 - t0;
  double t_first = t1;
  while (s == PTE_OK && st.generated_tokens < max_new) {
    int64_t id = pte_llm_sample(sampler, logits, (size_t)lm->info.vocab_size);
    if (id < 0) {
      s = pte_error_set(err, PTE_ERR_MEMORY_ALLOCATION_FAILED, "llm: sampler out of memory");
      break;
    }
    st.generated_tokens++;
    if (st.generated_tokens == 1) {
      t_first = llm_now();
      st.first_token_seconds = t_first - t0;
    }
    bool go = on_token ? on_token(ctx, id) : true;
    if (llm_is_eos(&lm->info, id)) {
      st.stopped_at_eos = true;
      break;
    }
    if (!go || st.generated_tokens >= max_new) break;
    if (lm->pos >= lm->info.max_context_len) {
      st.context_full = true;
      break;
    }
    s = pte_llm_feed(lm, &id, 1, &logits, err);
  }
  if (st.generated_tokens > 1) st.decode_seconds = llm_now() - t_first;
  if (stats) *stats = st;
  return s;
}
