/* src/llm/tok_core.c — pte/tokenizer.h: loading (format detected from the bytes), encode/decode
 * dispatch, added/special-token matching. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tok_internal.h"

/* ---- added / special tokens ---- */
void tok_specials_free(tok_specials *s) {
  free(s->items);
  free(s->pool);
  memset(s, 0, sizeof *s);
}

int tok_specials_add(tok_specials *s, const void *text, size_t len, int32_t id, int special, int lstrip, int rstrip) {
  if (len == 0 || len > UINT32_MAX) return -1;
  if (s->n == s->cap) {
    size_t nc = s->cap ? s->cap * 2 : 16;
    tok_added *p = realloc(s->items, nc * sizeof *p);
    if (!p) return -1;
    s->items = p;
    s->cap = nc;
  }
  if (s->pool_len + len > s->pool_cap) {
    size_t nc = s->pool_cap ? s->pool_cap : 1024;
    while (nc < s->pool_len + len) nc *= 2;
    uint8_t *p = realloc(s->pool, nc);
    if (!p) return -1;
    s->pool = p;
    s->pool_cap = nc;
  }
  memcpy(s->pool + s->pool_len, text, len);
  tok_added *a = &s->items[s->n++];
  a->id = id;
  a->special = (uint8_t)!!special;
  a->lstrip = (uint8_t)!!lstrip;
  a->rstrip = (uint8_t)!!rstrip;
  a->off = (uint32_t)s->pool_len;
  a->len = (uint32_t)len;
  s->pool_len += len;
  return 0;
}

static int tc_added_cmp(const uint8_t *pool, const tok_added *a, const tok_added *b) {
  uint8_t fa = pool[a->off], fb = pool[b->off];
  if (fa != fb) return fa < fb ? -1 : 1;
  if (a->len != b->len) return a->len > b->len ? -1 : 1;
  return a->id < b->id ? -1 : a->id > b->id;
}

int tok_specials_finish(tok_specials *s) {
  if (s->n) {
    /* insertion sort (qsort has no context argument); the lists are short (hundreds) */
    for (size_t i = 1; i < s->n; i++) {
      tok_added x = s->items[i];
      size_t j = i;
      while (j > 0 && tc_added_cmp(s->pool, &s->items[j - 1], &x) > 0) {
        s->items[j] = s->items[j - 1];
        j--;
      }
      s->items[j] = x;
    }
  }
  size_t k = 0;
  for (unsigned b = 0; b < 256; b++) {
    s->first[b] = (uint32_t)k;
    while (k < s->n && s->pool[s->items[k].off] == b) k++;
  }
  s->first[256] = (uint32_t)k;
  return 0;
}

int tok_specials_next(const tok_specials *s, const char *text, size_t len, size_t from, size_t *at, size_t *end,
                      const tok_added **item) {
  if (!s->n) return 0;
  for (size_t p = from; p < len; p++) {
    unsigned b = (unsigned char)text[p];
    for (uint32_t k = s->first[b]; k < s->first[b + 1]; k++) {
      const tok_added *a = &s->items[k];
      if (a->len <= len - p && memcmp(s->pool + a->off, text + p, a->len) == 0) {
        *at = p;
        *end = p + a->len;
        *item = a;
        return 1;
      }
    }
  }
  return 0;
}

/* ---- helpers ---- */
pte_status tok_oom(const pte_tokenizer *t, pte_error_info *err) {
  return pte_error_set(err, PTE_ERR_MEMORY_ALLOCATION_FAILED, "%s: out of memory", t->name);
}

static void tc_set_name(pte_tokenizer *t, const char *name) {
  const char *base = name ? name : "tokenizer";
  size_t n = strlen(base);
  if (n >= sizeof t->name) base += n - (sizeof t->name - 1);
  snprintf(t->name, sizeof t->name, "%s", base);
}

static int tc_is_b64(unsigned char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' || c == '/' || c == '=';
}

/* A tiktoken file starts with a line "base64 rank". */
static int tc_looks_tiktoken(const char *d, size_t n) {
  size_t i = 0;
  while (i < n && tc_is_b64((unsigned char)d[i])) i++;
  if (i == 0 || i >= n || d[i] != ' ') return 0;
  size_t j = ++i;
  while (i < n && d[i] >= '0' && d[i] <= '9') i++;
  return i > j && (i == n || d[i] == '\n' || d[i] == '\r');
}

static pte_status tc_load(const void *data, size_t size, const char *name, const pte_tiktoken_options *opt,
                          int force_tiktoken, pte_tokenizer **out, pte_error_info *err) {
  if (!out) return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "pte_tokenizer_load: out is NULL");
  *out = NULL;
  if (!data && size) return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "pte_tokenizer_load: data is NULL");
  pte_tokenizer *t = calloc(1, sizeof *t);
  if (!t) return pte_error_set(err, PTE_ERR_MEMORY_ALLOCATION_FAILED, "pte_tokenizer_load: out of memory");
  tc_set_name(t, name);
  t->bos = t->eos = t->unk = -1;
  for (int b = 0; b < 256; b++) t->byte_id[b] = -1;
  const char *d = data;
  size_t i = 0;
  if (size >= 3 && memcmp(d, "\xEF\xBB\xBF", 3) == 0) i = 3;
  while (i < size && (d[i] == ' ' || d[i] == '\t' || d[i] == '\n' || d[i] == '\r')) i++;
  pte_status s;
  if (size == 0) {
    s = pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "%s: empty file (not a tokenizer)", t->name);
  } else if (i < size && (d[i] == '{' || d[i] == '[')) {
    t->kind = PTE_TOKENIZER_HF_BPE;
    s = tok_load_hf_json(t, d, size, err);
  } else if (force_tiktoken || tc_looks_tiktoken(d, size)) {
    t->kind = PTE_TOKENIZER_TIKTOKEN;
    s = tok_load_tiktoken(t, d, size, opt, err);
  } else {
    t->kind = PTE_TOKENIZER_SPM_BIN;
    s = tok_load_spm(t, data, size, err);
  }
  if (s == PTE_OK && tok_specials_finish(&t->specials) != 0) s = tok_oom(t, err);
  if (s != PTE_OK) {
    pte_tokenizer_free(t);
    return s;
  }
  *out = t;
  return PTE_OK;
}

pte_status pte_tokenizer_load_bytes(const void *data, size_t size, const char *name, pte_tokenizer **out,
                                    pte_error_info *err) {
  return tc_load(data, size, name, NULL, 0, out, err);
}

pte_status pte_tokenizer_load_tiktoken(const void *data, size_t size, const char *name,
                                       const pte_tiktoken_options *opt, pte_tokenizer **out, pte_error_info *err) {
  return tc_load(data, size, name, opt, 1, out, err);
}

pte_status pte_tokenizer_load(const char *path, pte_tokenizer **out, pte_error_info *err) {
  if (!out) return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "pte_tokenizer_load: out is NULL");
  *out = NULL;
  if (!path) return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "pte_tokenizer_load: path is NULL");
  FILE *f = fopen(path, "rb");
  if (!f) return pte_error_set(err, PTE_ERR_ACCESS_FAILED, "%s: cannot open: %s", path, strerror(errno));
  char *buf = NULL;
  size_t len = 0, cap = 0;
  pte_status s = PTE_OK;
  for (;;) {
    if (len == cap) {
      size_t nc = cap ? cap * 2 : 1 << 16;
      char *p = realloc(buf, nc);
      if (!p) {
        s = pte_error_set(err, PTE_ERR_MEMORY_ALLOCATION_FAILED, "%s: out of memory reading the file", path);
        break;
      }
      buf = p;
      cap = nc;
    }
    size_t got = fread(buf + len, 1, cap - len, f);
    len += got;
    if (got == 0) {
      if (ferror(f)) s = pte_error_set(err, PTE_ERR_ACCESS_FAILED, "%s: read error at offset %zu", path, len);
      break;
    }
  }
  fclose(f);
  if (s == PTE_OK) s = pte_tokenizer_load_bytes(buf, len, path, out, err);
  free(buf);
  return s;
}

void pte_tokenizer_free(pte_tokenizer *tok) {
  if (!tok) return;
  tok_vocab_free(&tok->vocab);
  tok_pairs_free(&tok->pairs);
  tok_specials_free(&tok->specials);
  free(tok);
}

pte_tokenizer_kind pte_tokenizer_kind_of(const pte_tokenizer *tok) { return tok ? tok->kind : (pte_tokenizer_kind)0; }
size_t pte_tokenizer_vocab_size(const pte_tokenizer *tok) { return tok ? tok->vocab_size : 0; }
int32_t pte_tokenizer_bos_id(const pte_tokenizer *tok) { return tok ? tok->bos : -1; }
int32_t pte_tokenizer_eos_id(const pte_tokenizer *tok) { return tok ? tok->eos : -1; }

pte_status pte_tokenizer_encode(const pte_tokenizer *tok, const char *text, size_t len, unsigned flags, int32_t *ids,
                                size_t cap, size_t *n_out, pte_error_info *err) {
  if (n_out) *n_out = 0;
  if (!tok || !n_out || (!text && len) || (!ids && cap))
    return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "pte_tokenizer_encode: NULL %s",
                         !tok ? "tokenizer" : !n_out ? "n_out" : (!text && len) ? "text" : "ids");
  if (flags & ~(PTE_TOK_ADD_BOS | PTE_TOK_ADD_EOS))
    return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "pte_tokenizer_encode: unknown flags 0x%x", flags);
  if ((flags & PTE_TOK_ADD_BOS) && tok->bos < 0)
    return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "%s: PTE_TOK_ADD_BOS but the tokenizer names no BOS token",
                         tok->name);
  if ((flags & PTE_TOK_ADD_EOS) && tok->eos < 0)
    return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "%s: PTE_TOK_ADD_EOS but the tokenizer names no EOS token",
                         tok->name);
  tok_out o = {0};
  pte_status s = PTE_OK;
  if ((flags & PTE_TOK_ADD_BOS) && tok_out_push(&o, tok->bos) != 0) s = tok_oom(tok, err);
  if (s == PTE_OK) {
    switch (tok->kind) {
      case PTE_TOKENIZER_HF_BPE: s = tok_encode_hf(tok, text, len, &o, err); break;
      case PTE_TOKENIZER_SPM_BIN: s = tok_encode_spm(tok, text, len, &o, err); break;
      case PTE_TOKENIZER_TIKTOKEN: s = tok_encode_tiktoken(tok, text, len, &o, err); break;
      default: s = pte_error_set(err, PTE_ERR_INVALID_STATE, "pte_tokenizer_encode: tokenizer of unknown kind");
    }
  }
  if (s == PTE_OK && (flags & PTE_TOK_ADD_EOS) && tok_out_push(&o, tok->eos) != 0) s = tok_oom(tok, err);
  if (s == PTE_OK) {
    *n_out = o.n;
    if (o.n) memcpy(ids, o.ids, (o.n < cap ? o.n : cap) * sizeof *ids);
    if (o.n > cap)
      s = pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "%s: the text needs %zu ids, the buffer holds %zu", tok->name,
                        o.n, cap);
  }
  free(o.ids);
  return s;
}

static const uint8_t tc_all_bytes[256] = {
#define B4(x) x, x + 1, x + 2, x + 3
#define B16(x) B4(x), B4(x + 4), B4(x + 8), B4(x + 12)
    B16(0), B16(16), B16(32), B16(48), B16(64), B16(80), B16(96), B16(112),
    B16(128), B16(144), B16(160), B16(176), B16(192), B16(208), B16(224), B16(240)
#undef B16
#undef B4
};

static int tc_hexval(uint8_t c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

pte_status pte_tokenizer_decode(const pte_tokenizer *tok, int32_t prev, int32_t id, const char **piece, size_t *len,
                                pte_error_info *err) {
  if (!tok || !piece || !len)
    return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "pte_tokenizer_decode: NULL %s",
                         !tok ? "tokenizer" : !piece ? "piece" : "len");
  *piece = "";
  *len = 0;
  if (id < 0 || (size_t)id >= tok->vocab.n || !tok->vocab.defined[id])
    return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "%s: token id %d is not in the vocabulary (size %zu)", tok->name,
                         (int)id, tok->vocab_size);
  size_t n;
  const uint8_t *b = tok_vocab_bytes(&tok->vocab, id, &n);
  if (tok->kind == PTE_TOKENIZER_SPM_BIN) {
    if (prev == tok->bos && tok->bos >= 0 && n > 0 && b[0] == ' ') {
      b++;
      n--;
    }
    /* byte pieces <0xNN> stand for that byte */
    if (n == 6 && b[0] == '<' && b[1] == '0' && b[2] == 'x' && b[5] == '>') {
      int hi = tc_hexval(b[3]), lo = tc_hexval(b[4]);
      if (hi >= 0 && lo >= 0) {
        b = &tc_all_bytes[hi * 16 + lo];
        n = 1;
      }
    }
  }
  *piece = (const char *)b;
  *len = n;
  return PTE_OK;
}
