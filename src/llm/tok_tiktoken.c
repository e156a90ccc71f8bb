/* src/llm/tok_tiktoken.c — tiktoken ranks files: one "base64(token bytes) rank" per line; the
 * rank is the token id and the merge priority. Special tokens are not in the file: the ones of
 * the encodings recognised by their rank count are added (cl100k_base, o200k_base, Llama 3's
 * tokenizer.model, r50k/gpt2), with the split pattern of that encoding; other files get the
 * cl100k/Llama 3 pattern and no special tokens. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tok_internal.h"

static int tk_b64(unsigned char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

/* Standard base64 with padding; returns the decoded length or -1. */
static long tk_b64_decode(const char *s, size_t n, uint8_t *out) {
  if (n == 0 || n % 4) return -1;
  size_t w = 0;
  for (size_t i = 0; i < n; i += 4) {
    int v[4];
    int pad = 0;
    for (int k = 0; k < 4; k++) {
      unsigned char c = (unsigned char)s[i + k];
      if (c == '=' && i + 4 == n && k >= 2) {
        v[k] = 0;
        pad++;
      } else {
        if (pad) return -1; /* data after padding */
        v[k] = tk_b64(c);
        if (v[k] < 0) return -1;
      }
    }
    uint32_t x = (uint32_t)v[0] << 18 | (uint32_t)v[1] << 12 | (uint32_t)v[2] << 6 | (uint32_t)v[3];
    out[w++] = (uint8_t)(x >> 16);
    if (pad < 2) out[w++] = (uint8_t)(x >> 8);
    if (pad < 1) out[w++] = (uint8_t)x;
  }
  return (long)w;
}

static pte_status tk_add_special(pte_tokenizer *t, const char *s, int32_t id, pte_error_info *err) {
  size_t n = strlen(s);
  if (tok_vocab_set(&t->vocab, id, s, n) != 0 || tok_specials_add(&t->specials, s, n, id, 1, 0, 0) != 0)
    return tok_oom(t, err);
  return PTE_OK;
}

static pte_status tk_known_specials(pte_tokenizer *t, size_t nranks, pte_error_info *err) {
  pte_status s = PTE_OK;
  t->pretok = PTE_PRETOK_CL100K;
  if (nranks == 100256) { /* cl100k_base */
    static const struct {
      const char *s;
      int32_t id;
    } sp[] = {{"<|endoftext|>", 100257}, {"<|fim_prefix|>", 100258}, {"<|fim_middle|>", 100259},
              {"<|fim_suffix|>", 100260}, {"<|endofprompt|>", 100276}};
    for (size_t i = 0; i < sizeof sp / sizeof *sp && s == PTE_OK; i++) s = tk_add_special(t, sp[i].s, sp[i].id, err);
    t->eos = 100257;
  } else if (nranks == 199998) { /* o200k_base */
    t->pretok = PTE_PRETOK_O200K;
    s = tk_add_special(t, "<|endoftext|>", 199999, err);
    if (s == PTE_OK) s = tk_add_special(t, "<|endofprompt|>", 200018, err);
    t->eos = 199999;
  } else if (nranks == 128000) { /* Llama 3 tokenizer.model: 256 special tokens after the ranks */
    static const char *const named[] = {"<|begin_of_text|>", "<|end_of_text|>", "<|reserved_special_token_0|>",
                                        "<|reserved_special_token_1|>", "<|reserved_special_token_2|>",
                                        "<|reserved_special_token_3|>", "<|start_header_id|>", "<|end_header_id|>",
                                        "<|reserved_special_token_4|>", "<|eot_id|>"};
    char buf[48];
    for (int i = 0; i < 256 && s == PTE_OK; i++) {
      const char *name = named[0];
      if (i < 10) name = named[i];
      else {
        snprintf(buf, sizeof buf, "<|reserved_special_token_%d|>", i - 5);
        name = buf;
      }
      s = tk_add_special(t, name, 128000 + i, err);
    }
    t->bos = 128000;
    t->eos = 128001;
  } else if (nranks == 50256) { /* r50k_base / gpt2 */
    t->pretok = PTE_PRETOK_GPT2;
    s = tk_add_special(t, "<|endoftext|>", 50256, err);
    t->eos = 50256;
  }
  return s;
}

static pte_status tk_options(pte_tokenizer *t, const pte_tiktoken_options *opt, int32_t max_rank, pte_error_info *err) {
  if (opt->pattern) {
    static const struct {
      const char *name;
      pte_pretok_kind k;
    } names[] = {{"gpt2", PTE_PRETOK_GPT2}, {"r50k", PTE_PRETOK_GPT2}, {"cl100k", PTE_PRETOK_CL100K},
                 {"llama3", PTE_PRETOK_CL100K}, {"qwen2", PTE_PRETOK_QWEN2}, {"o200k", PTE_PRETOK_O200K}};
    pte_pretok_kind k = pte_pretok_from_pattern(opt->pattern, strlen(opt->pattern));
    for (size_t i = 0; i < sizeof names / sizeof *names && k == PTE_PRETOK_NONE; i++)
      if (strcmp(opt->pattern, names[i].name) == 0) k = names[i].k;
    if (k == PTE_PRETOK_NONE)
      return pte_error_set(err, PTE_ERR_NOT_SUPPORTED, "%s: split pattern '%s' is not gpt2/cl100k/qwen2/o200k", t->name,
                           opt->pattern);
    t->pretok = k;
  }
  if (opt->num_special_tokens) {
    if (!opt->special_tokens)
      return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "%s: num_special_tokens %zu but special_tokens is NULL", t->name,
                           opt->num_special_tokens);
    if (opt->num_special_tokens > (1 << 20))
      return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "%s: %zu special tokens (at most 2^20)", t->name,
                           opt->num_special_tokens);
    int64_t first = opt->first_special_id < 0 ? (int64_t)max_rank + 1 : opt->first_special_id;
    if (first + (int64_t)opt->num_special_tokens > (1 << 26))
      return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "%s: special token ids past 2^26", t->name);
    tok_specials_free(&t->specials);
    for (size_t i = 0; i < opt->num_special_tokens; i++) {
      int32_t id = (int32_t)(first + (int64_t)i);
      const char *sp = opt->special_tokens[i];
      if (!sp || !*sp) return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "%s: special token %zu is empty", t->name, i);
      if ((size_t)id < t->vocab.n && t->vocab.defined[id])
        return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "%s: special token %s would take id %d, a rank of the file",
                             t->name, sp, (int)id);
      pte_status s = tk_add_special(t, sp, id, err);
      if (s != PTE_OK) return s;
    }
    t->bos = t->eos = -1;
    if (opt->bos_index >= 0) {
      if ((size_t)opt->bos_index >= opt->num_special_tokens)
        return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "%s: bos_index %d outside the %zu special tokens", t->name,
                             (int)opt->bos_index, opt->num_special_tokens);
      t->bos = (int32_t)(first + opt->bos_index);
    }
    if (opt->eos_index >= 0) {
      if ((size_t)opt->eos_index >= opt->num_special_tokens)
        return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "%s: eos_index %d outside the %zu special tokens", t->name,
                             (int)opt->eos_index, opt->num_special_tokens);
      t->eos = (int32_t)(first + opt->eos_index);
    }
  }
  return PTE_OK;
}

pte_status tok_load_tiktoken(pte_tokenizer *t, const char *d, size_t size, const pte_tiktoken_options *opt,
                             pte_error_info *err) {
  size_t line = 0, pos = 0, nranks = 0;
  int32_t max_rank = -1;
  uint8_t buf[768];
  while (pos < size) {
    line++;
    const char *nl = memchr(d + pos, '\n', size - pos);
    size_t end = nl ? (size_t)(nl - d) : size, e = end;
    if (e > pos && d[e - 1] == '\r') e--;
    size_t n = e - pos;
    const char *s = d + pos;
    pos = nl ? end + 1 : size;
    if (n == 0) continue;
    const char *sp = memchr(s, ' ', n);
    if (!sp) return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "%s: line %zu: no space between token and rank", t->name, line);
    size_t bl = (size_t)(sp - s);
    if (bl > 4 * sizeof buf / 3)
      return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "%s: line %zu: token longer than %zu bytes", t->name, line,
                           sizeof buf);
    long m = tk_b64_decode(s, bl, buf);
    if (m <= 0) return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "%s: line %zu: bad base64 token", t->name, line);
    const char *r = sp + 1, *re = s + n;
    if (r == re) return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "%s: line %zu: missing rank", t->name, line);
    int64_t rank = 0;
    for (const char *q = r; q < re; q++) {
      if (*q < '0' || *q > '9' || rank > (1 << 26))
        return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "%s: line %zu: rank is not an integer in [0, 2^26]", t->name, line);
      rank = rank * 10 + (*q - '0');
    }
    if (rank > (1 << 26))
      return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "%s: line %zu: rank is not an integer in [0, 2^26]", t->name, line);
    if ((size_t)rank < t->vocab.n && t->vocab.defined[rank])
      return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "%s: line %zu: duplicate rank %d", t->name, line, (int)rank);
    if (tok_vocab_set(&t->vocab, (int32_t)rank, buf, (size_t)m) != 0) return tok_oom(t, err);
    int32_t other;
    int rc = tok_vocab_index(&t->vocab, (int32_t)rank, &other);
    if (rc < 0) return tok_oom(t, err);
    if (rc == 0)
      return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "%s: line %zu: token bytes repeat those of rank %d", t->name,
                           line, (int)other);
    if ((size_t)m > t->max_token_len) t->max_token_len = (size_t)m;
    if (rank > max_rank) max_rank = (int32_t)rank;
    nranks++;
  }
  if (nranks == 0) return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "%s: no ranks", t->name);
  pte_status s = PTE_OK;
  if (!opt || !opt->num_special_tokens) s = tk_known_specials(t, (size_t)max_rank + 1 == nranks ? nranks : 0, err);
  else t->pretok = PTE_PRETOK_CL100K;
  if (s == PTE_OK && opt) s = tk_options(t, opt, max_rank, err);
  if (s != PTE_OK) return s;
  for (int b = 0; b < 256; b++) {
    uint8_t byte = (uint8_t)b;
    t->byte_id[b] = tok_vocab_find(&t->vocab, &byte, 1);
  }
  t->vocab_size = t->vocab.n;
  return PTE_OK;
}

typedef struct tk_ctx {
  const pte_tokenizer *t;
  uint8_t *buf;
} tk_ctx;

static int tk_pair(const void *ctx, int32_t a, int32_t b, double *prio, int32_t *merged) {
  const tk_ctx *c = ctx;
  const tok_vocab *v = &c->t->vocab;
  size_t la, lb;
  const uint8_t *pa = tok_vocab_bytes(v, a, &la), *pb = tok_vocab_bytes(v, b, &lb);
  if (la + lb > c->t->max_token_len) return 0;
  memcpy(c->buf, pa, la);
  memcpy(c->buf + la, pb, lb);
  int32_t id = tok_vocab_find(v, c->buf, la + lb);
  if (id < 0) return 0;
  *prio = (double)id;
  *merged = id;
  return 1;
}

static pte_status tk_segment(const pte_tokenizer *t, const char *text, size_t len, tk_ctx *c, int32_t **ids,
                             size_t *cap, tok_out *out, pte_error_info *err) {
  for (size_t pos = 0; pos < len;) {
    size_t end = pte_pretok_next(t->pretok, text, len, pos);
    const uint8_t *s = (const uint8_t *)text + pos;
    size_t n = end - pos;
    int32_t whole = tok_vocab_find(&t->vocab, s, n);
    if (whole >= 0) {
      if (tok_out_push(out, whole) != 0) return tok_oom(t, err);
    } else {
      if (n > *cap) {
        int32_t *p = realloc(*ids, n * sizeof *p);
        if (!p) return tok_oom(t, err);
        *ids = p;
        *cap = n;
      }
      for (size_t i = 0; i < n; i++) {
        int32_t id = t->byte_id[s[i]];
        if (id < 0)
          return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "%s: byte 0x%x at text offset %zu has no rank", t->name,
                               (unsigned)s[i], pos + i);
        (*ids)[i] = id;
      }
      if (tok_bpe_merge(*ids, n, tk_pair, c, out) != 0) return tok_oom(t, err);
    }
    pos = end;
  }
  return PTE_OK;
}

pte_status tok_encode_tiktoken(const pte_tokenizer *t, const char *text, size_t len, tok_out *out, pte_error_info *err) {
  tk_ctx c = {t, malloc(2 * t->max_token_len + 1)};
  if (!c.buf) return tok_oom(t, err);
  int32_t *ids = NULL;
  size_t cap = 0, pos = 0;
  pte_status s = PTE_OK;
  while (pos < len && s == PTE_OK) {
    size_t at, end;
    const tok_added *a;
    if (!tok_specials_next(&t->specials, text, len, pos, &at, &end, &a)) {
      s = tk_segment(t, text + pos, len - pos, &c, &ids, &cap, out, err);
      break;
    }
    s = tk_segment(t, text + pos, at - pos, &c, &ids, &cap, out, err);
    if (s == PTE_OK && tok_out_push(out, a->id) != 0) s = tok_oom(t, err);
    pos = end;
  }
  free(ids);
  free(c.buf);
  return s;
}
