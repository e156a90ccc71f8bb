/* src/llm/tok_hf_json.c — Hugging Face tokenizer.json with a byte-level BPE model (GPT-2, Llama 3,
 * Qwen2 style): vocab + merges, ByteLevel pre-tokenizer (optionally after a Split by one of the
 * known patterns), added/special tokens matched before everything else.
 *
 * Token strings in the file are byte-level text: each byte is one printable code point (bytes
 * that are printable Latin-1 stand for themselves, the 68 others for U+0100 + k in byte order).
 * The loader converts every token to its raw bytes, so encoding works on the text's bytes. */
#include <stdlib.h>
#include <string.h>

#include "tok_internal.h"
#include "tok_json.h"

#define HF_MAX_ID (1 << 26)

typedef struct hf_ctx {
  pte_tokenizer *t;
  tj_doc doc;
  pte_error_info *err;
  int16_t cp_to_byte[324]; /* byte-level code point -> byte, -1 when none */
  uint8_t scratch[1024];
} hf_ctx;

static void hf_bytelevel_table(int16_t *cp_to_byte) {
  for (int i = 0; i < 324; i++) cp_to_byte[i] = -1;
  int extra = 0;
  for (int b = 0; b < 256; b++) {
    int printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
    int cp = printable ? b : 256 + extra++;
    cp_to_byte[cp] = (int16_t)b;
  }
}

static pte_status hf_bad(hf_ctx *c, uint32_t node, const char *what, const char *detail) {
  size_t line, col;
  tj_where(&c->doc, c->doc.nodes[node].src, &line, &col);
  return pte_error_set(c->err, PTE_ERR_INVALID_ARGUMENT, "%s: line %zu col %zu: %s%s", c->t->name, line, col, what,
                       detail ? detail : "");
}

static pte_status hf_unsupported(hf_ctx *c, uint32_t node, const char *what, const char *detail) {
  size_t line, col;
  tj_where(&c->doc, c->doc.nodes[node].src, &line, &col);
  return pte_error_set(c->err, PTE_ERR_NOT_SUPPORTED, "%s: line %zu col %zu: %s%s", c->t->name, line, col, what,
                       detail ? detail : "");
}

/* A short printable copy of a STR node for messages. */
static const char *hf_show(hf_ctx *c, uint32_t node) {
  size_t n = c->doc.nodes[node].len;
  if (n > 40) n = 40;
  char *o = (char *)c->scratch + 960;
  memcpy(o, c->doc.buf + c->doc.nodes[node].str, n);
  for (size_t i = 0; i < n; i++)
    if ((unsigned char)o[i] < 0x20) o[i] = '?';
  o[n] = 0;
  return o;
}

/* Byte-level text (s, n) -> raw bytes in out (n bytes at most). -1 when a code point is not one
 * of the 256 byte-level characters. */
static long hf_unbyte(const hf_ctx *c, const char *s, size_t n, uint8_t *out) {
  size_t i = 0, w = 0;
  while (i < n) {
    uint32_t cp;
    size_t l = pte_utf8_decode((const unsigned char *)s + i, n - i, &cp);
    if (cp >= 324 || c->cp_to_byte[cp] < 0) return -1;
    out[w++] = (uint8_t)c->cp_to_byte[cp];
    i += l;
  }
  return (long)w;
}

static pte_status hf_vocab(hf_ctx *c, uint32_t vocab) {
  pte_tokenizer *t = c->t;
  tj_doc *d = &c->doc;
  if (!vocab || d->nodes[vocab].type != TJ_OBJ) return hf_bad(c, vocab, "model.vocab is not an object", NULL);
  uint8_t *buf = NULL;
  size_t cap = 0;
  pte_status s = PTE_OK;
  for (uint32_t k = d->nodes[vocab].first; k && s == PTE_OK; k = d->nodes[d->nodes[k].next].next) {
    uint32_t v = d->nodes[k].next;
    int64_t id;
    if (tj_int(d, v, &id) != 0 || id < 0 || id >= HF_MAX_ID) {
      s = hf_bad(c, v, "vocab id is not an integer in [0, 2^26) for token ", hf_show(c, k));
      break;
    }
    size_t n = d->nodes[k].len;
    if (n > cap) {
      uint8_t *p = realloc(buf, n);
      if (!p) {
        s = tok_oom(t, c->err);
        break;
      }
      buf = p;
      cap = n;
    }
    long m = hf_unbyte(c, d->buf + d->nodes[k].str, n, buf);
    if ((size_t)id < t->vocab.n && t->vocab.defined[id]) {
      s = hf_bad(c, v, "vocab id used twice, by token ", hf_show(c, k));
      break;
    }
    if (m < 0) {
      /* Not byte-level text (some files list their special tokens in the vocab as plain text):
       * kept as its UTF-8 bytes for decoding, never produced by merging. */
      if (tok_vocab_set(&t->vocab, (int32_t)id, d->buf + d->nodes[k].str, n) != 0) s = tok_oom(t, c->err);
      continue;
    }
    if (tok_vocab_set(&t->vocab, (int32_t)id, buf, (size_t)m) != 0) {
      s = tok_oom(t, c->err);
      break;
    }
    int32_t other;
    int r = tok_vocab_index(&t->vocab, (int32_t)id, &other);
    if (r < 0) s = tok_oom(t, c->err);
    else if (r == 0) s = hf_bad(c, k, "two vocab entries have the same bytes: ", hf_show(c, k));
  }
  free(buf);
  return s;
}

/* One side of a merge (byte-level text) -> its id. */
static int32_t hf_lookup(hf_ctx *c, const char *s, size_t n) {
  if (n > sizeof c->scratch / 2) return -1;
  long m = hf_unbyte(c, s, n, c->scratch);
  if (m < 0) return -1;
  return tok_vocab_find(&c->t->vocab, c->scratch, (size_t)m);
}

static pte_status hf_merges(hf_ctx *c, uint32_t merges) {
  pte_tokenizer *t = c->t;
  tj_doc *d = &c->doc;
  if (!merges) return PTE_OK;
  if (d->nodes[merges].type != TJ_ARR) return hf_bad(c, merges, "model.merges is not an array", NULL);
  uint32_t rank = 0;
  for (uint32_t m = d->nodes[merges].first; m; m = d->nodes[m].next, rank++) {
    const char *a, *b;
    size_t la, lb;
    if (d->nodes[m].type == TJ_STR) {
      const char *s = d->buf + d->nodes[m].str;
      size_t n = d->nodes[m].len;
      const char *sp = memchr(s, ' ', n);
      if (!sp || memchr(sp + 1, ' ', n - (size_t)(sp + 1 - s)))
        return hf_bad(c, m, "merge is not two tokens separated by one space: ", hf_show(c, m));
      a = s, la = (size_t)(sp - s), b = sp + 1, lb = n - la - 1;
    } else if (d->nodes[m].type == TJ_ARR && d->nodes[m].count == 2 &&
               d->nodes[d->nodes[m].first].type == TJ_STR &&
               d->nodes[d->nodes[d->nodes[m].first].next].type == TJ_STR) {
      uint32_t x = d->nodes[m].first, y = d->nodes[x].next;
      a = d->buf + d->nodes[x].str, la = d->nodes[x].len;
      b = d->buf + d->nodes[y].str, lb = d->nodes[y].len;
    } else {
      return hf_bad(c, m, "merge is neither \"a b\" nor [\"a\", \"b\"]", NULL);
    }
    int32_t ia = hf_lookup(c, a, la), ib = hf_lookup(c, b, lb);
    if (ia < 0 || ib < 0) {
      uint32_t show = d->nodes[m].type == TJ_STR ? m : d->nodes[m].first;
      return hf_bad(c, m, "merge names a token that is not in the vocab: ", hf_show(c, show));
    }
    size_t na, nb;
    const uint8_t *ba = tok_vocab_bytes(&t->vocab, ia, &na), *bb = tok_vocab_bytes(&t->vocab, ib, &nb);
    if (na + nb > sizeof c->scratch) return hf_bad(c, m, "merged token too long", NULL);
    memcpy(c->scratch, ba, na);
    memcpy(c->scratch + na, bb, nb);
    int32_t merged = tok_vocab_find(&t->vocab, c->scratch, na + nb);
    if (merged < 0) return hf_bad(c, m, "merge result is not in the vocab: ", hf_show(c, m));
    if (tok_pairs_add(&t->pairs, ia, ib, rank, merged) < 0) return tok_oom(t, c->err);
  }
  return PTE_OK;
}

static int hf_bool(const tj_doc *d, uint32_t node, int def) {
  if (!node) return def;
  if (d->nodes[node].type == TJ_TRUE) return 1;
  if (d->nodes[node].type == TJ_FALSE) return 0;
  return def;
}

static pte_status hf_added(hf_ctx *c, uint32_t arr) {
  pte_tokenizer *t = c->t;
  tj_doc *d = &c->doc;
  if (!arr || d->nodes[arr].type == TJ_NULL) return PTE_OK;
  if (d->nodes[arr].type != TJ_ARR) return hf_bad(c, arr, "added_tokens is not an array", NULL);
  for (uint32_t e = d->nodes[arr].first; e; e = d->nodes[e].next) {
    uint32_t idn = tj_get(d, e, "id"), cn = tj_get(d, e, "content");
    int64_t id;
    if (tj_int(d, idn, &id) != 0 || id < 0 || id >= HF_MAX_ID)
      return hf_bad(c, idn ? idn : e, "added token id is not an integer in [0, 2^26)", NULL);
    if (!cn || d->nodes[cn].type != TJ_STR || d->nodes[cn].len == 0)
      return hf_bad(c, cn ? cn : e, "added token content is not a non-empty string", NULL);
    const char *s = d->buf + d->nodes[cn].str;
    size_t n = d->nodes[cn].len;
    if ((size_t)id < t->vocab.n && t->vocab.defined[id]) {
      /* the same token may also be in the model's vocab: then it must agree */
      size_t vn;
      const uint8_t *vb = tok_vocab_bytes(&t->vocab, (int32_t)id, &vn);
      if (vn != n || memcmp(vb, s, n) != 0) return hf_bad(c, idn, "added token id is a different vocab token: ", hf_show(c, cn));
    } else if (tok_vocab_set(&t->vocab, (int32_t)id, s, n) != 0) {
      return tok_oom(t, c->err);
    }
    if (tok_specials_add(&t->specials, s, n, (int32_t)id, hf_bool(d, tj_get(d, e, "special"), 0),
                         hf_bool(d, tj_get(d, e, "lstrip"), 0), hf_bool(d, tj_get(d, e, "rstrip"), 0)) != 0)
      return tok_oom(t, c->err);
  }
  return PTE_OK;
}

/* One pre-tokenizer (not a Sequence). */
static pte_status hf_pretok_one(hf_ctx *c, uint32_t p, int *byte_level) {
  tj_doc *d = &c->doc;
  pte_tokenizer *t = c->t;
  uint32_t type = tj_get(d, p, "type");
  if (tj_str_is(d, type, "ByteLevel")) {
    *byte_level = 1;
    t->add_prefix_space = (uint8_t)hf_bool(d, tj_get(d, p, "add_prefix_space"), 0);
    if (hf_bool(d, tj_get(d, p, "use_regex"), 1)) {
      if (t->pretok != PTE_PRETOK_NONE)
        return hf_unsupported(c, p, "ByteLevel with use_regex after a Split (two split patterns)", NULL);
      t->pretok = PTE_PRETOK_GPT2;
    }
    return PTE_OK;
  }
  if (tj_str_is(d, type, "Split")) {
    uint32_t pat = tj_get(d, p, "pattern");
    uint32_t rx = tj_get(d, pat, "Regex");
    if (!rx || d->nodes[rx].type != TJ_STR) return hf_unsupported(c, p, "Split without a Regex pattern", NULL);
    /* The known patterns match every character, so keeping the matches and removing the (empty)
     * rest -- Removed with invert, as some files say -- splits the same as Isolated. */
    uint32_t beh = tj_get(d, p, "behavior");
    int inv = hf_bool(d, tj_get(d, p, "invert"), 0);
    if (!(tj_str_is(d, beh, "Isolated") && !inv) && !(tj_str_is(d, beh, "Removed") && inv))
      return hf_unsupported(c, p, "Split other than behavior Isolated (or Removed with invert)", NULL);
    pte_pretok_kind k = pte_pretok_from_pattern(d->buf + d->nodes[rx].str, d->nodes[rx].len);
    if (k == PTE_PRETOK_NONE) return hf_unsupported(c, rx, "Split pattern is not one of GPT-2/cl100k/Llama 3/Qwen2/o200k: ", hf_show(c, rx));
    if (t->pretok != PTE_PRETOK_NONE) return hf_unsupported(c, p, "more than one split pattern", NULL);
    t->pretok = k;
    return PTE_OK;
  }
  if (type && d->nodes[type].type == TJ_STR) return hf_unsupported(c, p, "pre_tokenizer type ", hf_show(c, type));
  return hf_bad(c, p, "pre_tokenizer without a type", NULL);
}

static pte_status hf_pretok(hf_ctx *c, uint32_t p) {
  tj_doc *d = &c->doc;
  int byte_level = 0;
  pte_status s = PTE_OK;
  if (!p || d->nodes[p].type == TJ_NULL)
    return hf_unsupported(c, 0, "no pre_tokenizer (only byte-level BPE with a ByteLevel pre-tokenizer is supported)", NULL);
  if (d->nodes[p].type != TJ_OBJ) return hf_bad(c, p, "pre_tokenizer is not an object", NULL);
  if (tj_str_is(d, tj_get(d, p, "type"), "Sequence")) {
    uint32_t arr = tj_get(d, p, "pretokenizers");
    if (!arr || d->nodes[arr].type != TJ_ARR) return hf_bad(c, p, "Sequence without a pretokenizers array", NULL);
    for (uint32_t e = d->nodes[arr].first; e && s == PTE_OK; e = d->nodes[e].next) {
      if (d->nodes[e].type != TJ_OBJ) return hf_bad(c, e, "pre_tokenizer is not an object", NULL);
      s = hf_pretok_one(c, e, &byte_level);
    }
  } else {
    s = hf_pretok_one(c, p, &byte_level);
  }
  if (s == PTE_OK && !byte_level) return hf_unsupported(c, p, "pre_tokenizer without ByteLevel (not a byte-level BPE)", NULL);
  return s;
}

static int32_t hf_special_id(const pte_tokenizer *t, const char *s, size_t n) {
  for (size_t i = 0; i < t->specials.n; i++) {
    const tok_added *a = &t->specials.items[i];
    if (a->len == n && memcmp(t->specials.pool + a->off, s, n) == 0) return a->id;
  }
  return -1;
}

/* TemplateProcessing "single": [SpecialToken..., Sequence A, SpecialToken...] names BOS / EOS. */
static void hf_template(hf_ctx *c, uint32_t pp) {
  tj_doc *d = &c->doc;
  if (!pp || d->nodes[pp].type != TJ_OBJ) return;
  uint32_t type = tj_get(d, pp, "type");
  if (tj_str_is(d, type, "Sequence")) {
    uint32_t arr = tj_get(d, pp, "processors");
    if (arr && d->nodes[arr].type == TJ_ARR)
      for (uint32_t e = d->nodes[arr].first; e; e = d->nodes[e].next) hf_template(c, e);
    return;
  }
  if (!tj_str_is(d, type, "TemplateProcessing")) return;
  uint32_t single = tj_get(d, pp, "single");
  if (!single || d->nodes[single].type != TJ_ARR) return;
  int seen_seq = 0;
  for (uint32_t e = d->nodes[single].first; e; e = d->nodes[e].next) {
    if (tj_get(d, e, "Sequence")) {
      seen_seq = 1;
      continue;
    }
    uint32_t st = tj_get(d, e, "SpecialToken"), idn = tj_get(d, st, "id");
    if (!idn || d->nodes[idn].type != TJ_STR) continue;
    int32_t id = hf_special_id(c->t, d->buf + d->nodes[idn].str, d->nodes[idn].len);
    if (id < 0) id = tok_vocab_find(&c->t->vocab, d->buf + d->nodes[idn].str, d->nodes[idn].len);
    if (id < 0) continue;
    if (!seen_seq && c->t->bos < 0) c->t->bos = id;
    if (seen_seq && c->t->eos < 0) c->t->eos = id;
  }
}

pte_status tok_load_hf_json(pte_tokenizer *t, const char *data, size_t size, pte_error_info *err) {
  hf_ctx *c = calloc(1, sizeof *c);
  if (!c) return tok_oom(t, err);
  c->t = t;
  c->err = err;
  hf_bytelevel_table(c->cp_to_byte);
  pte_status s = tj_parse(&c->doc, data, size, t->name, err);
  if (s != PTE_OK) {
    free(c);
    return s;
  }
  tj_doc *d = &c->doc;
  uint32_t model = tj_get(d, 0, "model");
  uint32_t mtype = tj_get(d, model, "type");
  if (d->nodes[0].type != TJ_OBJ) s = hf_bad(c, 0, "tokenizer.json is not a JSON object", NULL);
  else if (!model || d->nodes[model].type != TJ_OBJ) s = hf_bad(c, 0, "no \"model\" object", NULL);
  else if (mtype && !tj_str_is(d, mtype, "BPE"))
    s = hf_unsupported(c, mtype, "model type (only BPE): ", d->nodes[mtype].type == TJ_STR ? hf_show(c, mtype) : "?");
  else if (!mtype && !tj_get(d, model, "merges"))
    s = hf_unsupported(c, model, "model without a type or merges (only BPE)", NULL);
  if (s == PTE_OK) {
    uint32_t p = tj_get(d, model, "continuing_subword_prefix"), q = tj_get(d, model, "end_of_word_suffix");
    if ((p && d->nodes[p].type == TJ_STR && d->nodes[p].len) || (q && d->nodes[q].type == TJ_STR && d->nodes[q].len))
      s = hf_unsupported(c, p ? p : q, "BPE with continuing_subword_prefix / end_of_word_suffix", NULL);
  }
  if (s == PTE_OK) {
    uint32_t norm = tj_get(d, 0, "normalizer");
    /* NFC leaves text that is already NFC unchanged (all ASCII, precomposed text): accepted, and
     * the text is expected in NFC. */
    if (norm && d->nodes[norm].type != TJ_NULL && !tj_str_is(d, tj_get(d, norm, "type"), "NFC"))
      s = hf_unsupported(c, norm, "normalizer (only null or NFC)", NULL);
  }
  if (s == PTE_OK) s = hf_vocab(c, tj_get(d, model, "vocab"));
  if (s == PTE_OK) s = hf_merges(c, tj_get(d, model, "merges"));
  if (s == PTE_OK) s = hf_added(c, tj_get(d, 0, "added_tokens"));
  if (s == PTE_OK) s = hf_pretok(c, tj_get(d, 0, "pre_tokenizer"));
  if (s == PTE_OK) {
    t->ignore_merges = (uint8_t)hf_bool(d, tj_get(d, model, "ignore_merges"), 0);
    t->byte_fallback = (uint8_t)hf_bool(d, tj_get(d, model, "byte_fallback"), 0);
    uint32_t unk = tj_get(d, model, "unk_token");
    if (unk && d->nodes[unk].type == TJ_STR) {
      t->unk = hf_special_id(t, d->buf + d->nodes[unk].str, d->nodes[unk].len);
      if (t->unk < 0) {
        size_t n = d->nodes[unk].len;
        if (n <= sizeof c->scratch) {
          long m = hf_unbyte(c, d->buf + d->nodes[unk].str, n, c->scratch);
          if (m >= 0) t->unk = tok_vocab_find(&t->vocab, c->scratch, (size_t)m);
        }
      }
      if (t->unk < 0) s = hf_bad(c, unk, "unk_token is not in the vocab: ", hf_show(c, unk));
    }
  }
  if (s == PTE_OK) {
    for (int b = 0; b < 256; b++) {
      uint8_t byte = (uint8_t)b;
      t->byte_id[b] = tok_vocab_find(&t->vocab, &byte, 1);
    }
    hf_template(c, tj_get(d, 0, "post_processor"));
    static const char *const bos_names[] = {"<|begin_of_text|>", "<s>", "<bos>", "<|startoftext|>"};
    static const char *const eos_names[] = {"<|end_of_text|>", "</s>", "<|endoftext|>", "<eos>", "<|im_end|>"};
    for (size_t i = 0; i < sizeof bos_names / sizeof *bos_names && t->bos < 0; i++)
      t->bos = hf_special_id(t, bos_names[i], strlen(bos_names[i]));
    for (size_t i = 0; i < sizeof eos_names / sizeof *eos_names && t->eos < 0; i++)
      t->eos = hf_special_id(t, eos_names[i], strlen(eos_names[i]));
    t->vocab_size = t->vocab.n;
    if (t->vocab.n == 0) s = hf_bad(c, model, "empty vocab", NULL);
  }
  tj_free(&c->doc);
  free(c);
  return s;
}

/* ---- encode ---- */
static int hf_pair(const void *ctx, int32_t a, int32_t b, double *prio, int32_t *merged) {
  const pte_tokenizer *t = ctx;
  uint32_t rank;
  if (!tok_pairs_find(&t->pairs, a, b, &rank, merged)) return 0;
  *prio = (double)rank;
  return 1;
}

static pte_status hf_piece(const pte_tokenizer *t, const uint8_t *s, size_t n, int32_t **ids, size_t *cap,
                           tok_out *out, pte_error_info *err) {
  if (t->ignore_merges) {
    int32_t id = tok_vocab_find(&t->vocab, s, n);
    if (id >= 0) return tok_out_push(out, id) == 0 ? PTE_OK : tok_oom(t, err);
  }
  if (n > *cap) {
    int32_t *p = realloc(*ids, n * sizeof *p);
    if (!p) return tok_oom(t, err);
    *ids = p;
    *cap = n;
  }
  size_t k = 0;
  for (size_t i = 0; i < n; i++) {
    int32_t id = t->byte_id[s[i]];
    if (id < 0) id = t->unk; /* without an unk token an unknown byte is dropped (as the reference does) */
    if (id >= 0) (*ids)[k++] = id;
  }
  return tok_bpe_merge(*ids, k, hf_pair, t, out) == 0 ? PTE_OK : tok_oom(t, err);
}

static pte_status hf_segment(const pte_tokenizer *t, const char *text, size_t len, tok_out *out, pte_error_info *err) {
  if (len == 0) return PTE_OK;
  char *buf = NULL;
  if (t->add_prefix_space && text[0] != ' ') {
    buf = malloc(len + 1);
    if (!buf) return tok_oom(t, err);
    buf[0] = ' ';
    memcpy(buf + 1, text, len);
    text = buf;
    len++;
  }
  int32_t *ids = NULL;
  size_t cap = 0;
  pte_status s = PTE_OK;
  for (size_t pos = 0; pos < len && s == PTE_OK;) {
    size_t end = pte_pretok_next(t->pretok, text, len, pos);
    s = hf_piece(t, (const uint8_t *)text + pos, end - pos, &ids, &cap, out, err);
    pos = end;
  }
  free(ids);
  free(buf);
  return s;
}

static int hf_is_ws(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

pte_status tok_encode_hf(const pte_tokenizer *t, const char *text, size_t len, tok_out *out, pte_error_info *err) {
  size_t pos = 0;
  while (pos < len) {
    size_t at, end;
    const tok_added *a;
    if (!tok_specials_next(&t->specials, text, len, pos, &at, &end, &a)) return hf_segment(t, text + pos, len - pos, out, err);
    size_t seg_end = at;
    if (a->lstrip)
      while (seg_end > pos && hf_is_ws(text[seg_end - 1])) seg_end--;
    pte_status s = hf_segment(t, text + pos, seg_end - pos, out, err);
    if (s != PTE_OK) return s;
    if (tok_out_push(out, a->id) != 0) return tok_oom(t, err);
    pos = end;
    if (a->rstrip)
      while (pos < len && hf_is_ws(text[pos])) pos++;
  }
  return PTE_OK;
}
