/* pte generate MODEL.pte --tokenizer FILE --prompt TEXT — text generation (include/pte/llm.h). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "cli.h"
#include "jsonw.h"
#include "pte/llm.h"
#include "pte/llm_kernels.h"
#include "pte/tokenizer.h"

static void gen_help(FILE *f) {
  fprintf(f,
          "usage: pte generate MODEL.pte --tokenizer FILE --prompt TEXT [options]\n"
          "       pte generate MODEL.pte --tokens ID,ID,... [options]\n"
          "\n"
          "Generates text with a language model exported as upstream's LLM exporter writes one (or\n"
          "`pte synth llama`): reads its metadata methods (get_max_seq_len, get_vocab_size,\n"
          "get_bos_id, get_eos_ids, use_kv_cache, enable_dynamic_shape, ...), feeds the prompt in one\n"
          "call when the model takes a dynamic sequence length (else token by token), then decodes\n"
          "one token per call, streaming the text, until an EOS id or -n tokens.\n"
          "\n"
          "options:\n"
          "  --tokenizer FILE     tokenizer.json (Hugging Face BPE), tokenizer.bin (llama2.c) or a\n"
          "                       tiktoken ranks file\n"
          "  --prompt TEXT        the prompt (the model's BOS id is put first when it has one)\n"
          "  --tokens IDS         the prompt as token ids instead (no tokenizer needed; ids printed)\n"
          "  -n, --max-new N      tokens to generate at most (default 32)\n"
          "  --temperature T      0 = argmax (default 0.8)\n"
          "  --top-p P            nucleus sampling mass (default 0.9; 1 = all tokens)\n"
          "  --seed S             sampling seed (default 0)\n"
          "  --threads N          threads of each XNNPACK delegate (default 1)\n"
          "  --attention-threads N  threads of the llama:: attention kernels (default 1; pays off for\n"
          "                       long prompts / contexts)\n"
          "  --json               one JSON object: tokens, text, speeds, peak RSS (and its anonymous\n"
          "                       part: peak_rss_anon_bytes)\n"
          "  -h, --help           this help\n"
          "\n"
          "Prints prompt tokens/s, generated tokens/s (decode steps after the first token), time to\n"
          "first token, the forward method's load time and the peak RSS.\n");
}

typedef struct gen_state {
  bool json, print_ids;
  pte_tokenizer *tok;
  int64_t prev;
  int64_t *ids;
  size_t n_ids, cap_ids;
  char *text;
  size_t n_text, cap_text;
  bool oom;
  /* memory, sampled from /proc/self/status (Linux) after the first token, every 64th and at the
   * end: the largest anonymous (private: heap, arenas, KV cache) RSS and the file-backed RSS then
   * (the model's mapped pages: clean page cache the OS can drop and read back) */
  uint64_t peak_anon, file_at_peak;
  bool have_mem;
} gen_state;

/* RssAnon and RssFile of this process in bytes; false where /proc/self/status lacks them. */
static bool gen_rss_split(uint64_t *anon, uint64_t *file) {
  FILE *f = fopen("/proc/self/status", "r");
  if (!f) return false;
  char line[256];
  int have = 0;
  unsigned long long kb;
  while (fgets(line, sizeof line, f)) {
    if (sscanf(line, "RssAnon: %llu kB", &kb) == 1) *anon = (uint64_t)kb * 1024u, have |= 1;
    else if (sscanf(line, "RssFile: %llu kB", &kb) == 1) *file = (uint64_t)kb * 1024u, have |= 2;
  }
  fclose(f);
  return have == 3;
}

static void gen_sample_mem(gen_state *g) {
  uint64_t a = 0, f = 0;
  if (!gen_rss_split(&a, &f)) return;
  if (!g->have_mem || a > g->peak_anon) g->peak_anon = a, g->file_at_peak = f;
  g->have_mem = true;
}

static void gen_append(gen_state *g, const char *p, size_t n) {
  if (g->n_text + n + 1 > g->cap_text) {
    size_t c = (g->n_text + n + 1) * 2;
    char *t = (char *)realloc(g->text, c);
    if (!t) {
      g->oom = true;
      return;
    }
    g->text = t, g->cap_text = c;
  }
  memcpy(g->text + g->n_text, p, n);
  g->n_text += n;
  g->text[g->n_text] = 0;
}

static bool gen_on_token(void *ctx, int64_t id) {
  gen_state *g = (gen_state *)ctx;
  if (g->n_ids == g->cap_ids) {
    size_t c = g->cap_ids ? 2 * g->cap_ids : 64;
    int64_t *t = (int64_t *)realloc(g->ids, c * sizeof *t);
    if (!t) {
      g->oom = true;
      return false;
    }
    g->ids = t, g->cap_ids = c;
  }
  g->ids[g->n_ids++] = id;
  if (g->n_ids == 1 || g->n_ids % 64 == 0) gen_sample_mem(g);
  const char *piece = NULL;
  size_t len = 0;
  char buf[32];
  if (g->tok) {
    pte_error_info err;
    if (pte_tokenizer_decode(g->tok, (int32_t)g->prev, (int32_t)id, &piece, &len, &err) != PTE_OK) piece = NULL;
  }
  if (!piece) {
    snprintf(buf, sizeof buf, " %lld", (long long)id);
    piece = buf, len = strlen(buf);
  }
  g->prev = id;
  gen_append(g, piece, len);
  if (!g->json) {
    fwrite(piece, 1, len, stdout);
    fflush(stdout);
  }
  return !g->oom;
}

static bool gen_parse_ids(const char *s, int64_t **out, size_t *n) {
  size_t cap = 16, k = 0;
  int64_t *v = (int64_t *)malloc(cap * sizeof *v);
  if (!v) return false;
  while (*s) {
    char *end = NULL;
    errno = 0;
    long long x = strtoll(s, &end, 10);
    if (end == s || errno || x < 0 || (*end && *end != ',')) {
      free(v);
      return false;
    }
    if (k == cap) {
      int64_t *t = (int64_t *)realloc(v, 2 * cap * sizeof *v);
      if (!t) {
        free(v);
        return false;
      }
      v = t, cap *= 2;
    }
    v[k++] = x;
    s = *end ? end + 1 : end;
  }
  *out = v, *n = k;
  return k > 0;
}

static uint64_t gen_peak_rss(void) {
  struct rusage ru;
  if (getrusage(RUSAGE_SELF, &ru) != 0) return 0;
  return (uint64_t)ru.ru_maxrss * 1024u;
}

static int run_generate(int argc, char **argv) {
  const char *model = NULL, *tok_path = NULL, *prompt = NULL, *ids_arg = NULL;
  long max_new = 32, threads = 1, att_threads = 1;
  double temperature = 0.8, top_p = 0.9;
  unsigned long long seed = 0;
  bool json = false;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    bool ok = true;
    char *end = NULL;
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      gen_help(stdout);
      return PTE_EXIT_OK;
    } else if (!strcmp(a, "--tokenizer")) {
      tok_path = v, i++, ok = v != NULL;
    } else if (!strcmp(a, "--prompt")) {
      prompt = v, i++, ok = v != NULL;
    } else if (!strcmp(a, "--tokens")) {
      ids_arg = v, i++, ok = v != NULL;
    } else if (!strcmp(a, "-n") || !strcmp(a, "--max-new")) {
      ok = v && (max_new = strtol(v, &end, 10), *end == 0) && max_new >= 0 && max_new <= 1000000, i++;
    } else if (!strcmp(a, "--temperature")) {
      ok = v && (temperature = strtod(v, &end), *end == 0) && temperature >= 0 && temperature <= 100, i++;
    } else if (!strcmp(a, "--top-p")) {
      ok = v && (top_p = strtod(v, &end), *end == 0) && top_p > 0 && top_p <= 1, i++;
    } else if (!strcmp(a, "--seed")) {
      ok = v && *v && (seed = strtoull(v, &end, 10), *end == 0), i++;
    } else if (!strcmp(a, "--threads")) {
      ok = v && (threads = strtol(v, &end, 10), *end == 0) && threads >= 1 && threads <= 64, i++;
    } else if (!strcmp(a, "--attention-threads")) {
      ok = v && (att_threads = strtol(v, &end, 10), *end == 0) && att_threads >= 1 && att_threads <= PTE_LLM_MAX_THREADS,
      i++;
    } else if (!strcmp(a, "--json")) {
      json = true;
    } else if (a[0] == '-' && a[1]) {
      fprintf(stderr, "pte generate: unknown option '%s'\n", a);
      return PTE_EXIT_USAGE;
    } else if (!model) {
      model = a;
    } else {
      fprintf(stderr, "pte generate: unexpected argument '%s'\n", a);
      return PTE_EXIT_USAGE;
    }
    if (!ok) {
      fprintf(stderr, "pte generate: bad or missing value for %s\n", a);
      return PTE_EXIT_USAGE;
    }
  }
  if (!model) {
    fprintf(stderr, "pte generate: no model (pte generate MODEL.pte --tokenizer FILE --prompt TEXT)\n");
    return PTE_EXIT_USAGE;
  }
  if (!!prompt == !!ids_arg) {
    fprintf(stderr, "pte generate: give exactly one of --prompt TEXT and --tokens IDS\n");
    return PTE_EXIT_USAGE;
  }
  if (prompt && !tok_path) {
    fprintf(stderr, "pte generate: --prompt needs --tokenizer FILE\n");
    return PTE_EXIT_USAGE;
  }
  gen_state g;
  memset(&g, 0, sizeof g);
  g.json = json;
  g.prev = -1;
  pte_error_info err;
  memset(&err, 0, sizeof err);
  int64_t *ids = NULL;
  size_t n_ids = 0;
  pte_status s = PTE_OK;
  int rc = PTE_EXIT_OK;
  pte_llm *lm = NULL;
  pte_llm_options lo;
  memset(&lo, 0, sizeof lo);
  lo.num_threads = (int)threads;
  s = pte_llm_kernels_set_threads((int)att_threads);
  if (s != PTE_OK) s = pte_error_set(&err, s, "generate: cannot use %ld attention threads", att_threads);
  if (s == PTE_OK) s = pte_llm_open(model, &lo, &lm, &err);
  const pte_llm_info *info = lm ? pte_llm_get_info(lm) : NULL;
  if (s == PTE_OK && ids_arg && !gen_parse_ids(ids_arg, &ids, &n_ids)) {
    fprintf(stderr, "pte generate: --tokens wants comma-separated non-negative ids\n");
    rc = PTE_EXIT_USAGE;
  }
  if (s == PTE_OK && rc == PTE_EXIT_OK && tok_path) {
    s = pte_tokenizer_load(tok_path, &g.tok, &err);
    if (s == PTE_OK && prompt) {
      size_t len = strlen(prompt), cap = len + 2, n = 0;
      int32_t *t32 = (int32_t *)malloc(cap * sizeof *t32);
      ids = (int64_t *)malloc(cap * sizeof *ids);
      if (!t32 || !ids) s = pte_error_set(&err, PTE_ERR_MEMORY_ALLOCATION_FAILED, "generate: out of memory");
      if (s == PTE_OK) s = pte_tokenizer_encode(g.tok, prompt, len, 0, t32, cap, &n, &err);
      if (s == PTE_OK) {
        int64_t bos = info->bos_id >= 0 ? info->bos_id : pte_tokenizer_bos_id(g.tok);
        if (bos >= 0) ids[n_ids++] = bos;
        for (size_t i = 0; i < n; i++) ids[n_ids++] = t32[i];
        g.prev = n_ids ? ids[n_ids - 1] : -1;
      }
      free(t32);
    }
  }
  if (s == PTE_OK && rc == PTE_EXIT_OK && n_ids == 0) {
    fprintf(stderr, "pte generate: the prompt has no tokens\n");
    rc = PTE_EXIT_USAGE;
  }
  pte_llm_stats st;
  memset(&st, 0, sizeof st);
  bool started = false;
  if (s == PTE_OK && rc == PTE_EXIT_OK) {
    if (!json && !prompt) { /* echo the prompt ids */
      for (size_t i = 0; i < n_ids; i++) printf("%s%lld", i ? " " : "", (long long)ids[i]);
      printf(" |");
    } else if (!json && prompt) {
      fputs(prompt, stdout);
    }
    fflush(stdout);
    started = true;
    pte_llm_sampler smp;
    pte_llm_sampler_init(&smp, (float)temperature, (float)top_p, seed);
    s = pte_llm_generate(lm, ids, n_ids, (size_t)max_new, &smp, gen_on_token, &g, &st, &err);
    pte_llm_sampler_free(&smp);
    if (s == PTE_OK && g.oom) s = pte_error_set(&err, PTE_ERR_MEMORY_ALLOCATION_FAILED, "generate: out of memory");
  }
  double ptps = st.prompt_seconds > 0 ? (double)st.prompt_tokens / st.prompt_seconds : 0;
  double gtps = st.decode_seconds > 0 ? (double)(st.generated_tokens - 1) / st.decode_seconds : 0;
  uint64_t rss = gen_peak_rss();
  gen_sample_mem(&g);
  if (s != PTE_OK) {
    if (!json && started) printf("\n");
    fprintf(stderr, "pte generate: %s (0x%02x): %s\n", pte_status_name(s), (unsigned)s, err.msg);
    rc = PTE_EXIT_FAIL;
  } else if (rc == PTE_EXIT_OK && json) {
    jsonw jw;
    jw_init(&jw, stdout);
    jw_obj(&jw);
    jw_kbool(&jw, "ok", true);
    jw_kstr(&jw, "model", model);
    jw_key(&jw, "metadata");
    jw_obj(&jw);
    jw_kint(&jw, "max_seq_len", info->max_seq_len);
    jw_kint(&jw, "max_context_len", info->max_context_len);
    jw_kint(&jw, "vocab_size", info->vocab_size);
    jw_kint(&jw, "n_layers", info->n_layers);
    jw_kint(&jw, "bos_id", info->bos_id);
    jw_key(&jw, "eos_ids");
    jw_arr(&jw);
    for (size_t i = 0; i < info->n_eos; i++) jw_int(&jw, info->eos_ids[i]);
    jw_arr_end(&jw);
    jw_kbool(&jw, "use_kv_cache", info->use_kv_cache);
    jw_kbool(&jw, "enable_dynamic_shape", info->dynamic_shape);
    jw_obj_end(&jw);
    jw_key(&jw, "prompt_ids");
    jw_arr(&jw);
    for (size_t i = 0; i < n_ids; i++) jw_int(&jw, ids[i]);
    jw_arr_end(&jw);
    jw_key(&jw, "generated_ids");
    jw_arr(&jw);
    for (size_t i = 0; i < g.n_ids; i++) jw_int(&jw, g.ids[i]);
    jw_arr_end(&jw);
    jw_key(&jw, "text");
    jw_strn(&jw, g.text ? g.text : "", g.n_text);
    jw_kbool(&jw, "stopped_at_eos", st.stopped_at_eos);
    jw_kbool(&jw, "context_full", st.context_full);
    jw_kuint(&jw, "prompt_tokens", st.prompt_tokens);
    jw_kuint(&jw, "generated_tokens", st.generated_tokens);
    jw_key(&jw, "prompt_tokens_per_second");
    jw_double(&jw, ptps);
    jw_key(&jw, "generated_tokens_per_second");
    jw_double(&jw, gtps);
    jw_key(&jw, "time_to_first_token_ms");
    jw_double(&jw, st.first_token_seconds * 1e3);
    jw_key(&jw, "load_method_ms");
    jw_double(&jw, pte_llm_load_seconds(lm) * 1e3);
    jw_kuint(&jw, "threads", (uint64_t)threads);
    jw_kuint(&jw, "attention_threads", (uint64_t)att_threads);
    jw_kuint(&jw, "peak_rss_bytes", rss);
    if (g.have_mem) {
      jw_kuint(&jw, "peak_rss_anon_bytes", g.peak_anon);
      jw_kuint(&jw, "rss_file_bytes_at_peak_anon", g.file_at_peak);
    }
    jw_obj_end(&jw);
    jw_end(&jw);
  } else if (rc == PTE_EXIT_OK) {
    printf("\n\nprompt: %zu tokens in %.1f ms (%.1f tokens/s); generated: %zu tokens (%.1f tokens/s)%s\n"
           "time to first token %.1f ms, load_method %.1f ms, threads %ld, peak RSS %.1f MiB\n",
           st.prompt_tokens, st.prompt_seconds * 1e3, ptps, st.generated_tokens, gtps,
           st.stopped_at_eos ? ", stopped at EOS" : st.context_full ? ", stopped: the context is full" : "",
           st.first_token_seconds * 1e3, pte_llm_load_seconds(lm) * 1e3,
           threads, (double)rss / 1048576.0);
    if (g.have_mem)
      printf("memory: anonymous (heap, arenas, KV cache) at most %.1f MiB; file-backed %.1f MiB then (the model's "
             "mapped pages: page cache, not a copy)\n",
             (double)g.peak_anon / 1048576.0, (double)g.file_at_peak / 1048576.0);
  }
  pte_tokenizer_free(g.tok);
  pte_llm_free(lm);
  free(ids);
  free(g.ids);
  free(g.text);
  return rc;
}

const pte_cli_verb pte_cli_verb_generate = {"generate", "generate text with a language model (KV-cache LLM export)",
                                            run_generate};
