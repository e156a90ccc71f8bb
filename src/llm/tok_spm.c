/* src/llm/tok_spm.c — llama2.c's tokenizer.bin: SentencePiece-style BPE by piece scores.
 *
 * File: int32 max_token_length, then until the end of the file, per token: float32 score,
 * int32 length, that many bytes (little endian; the token count is not stored). Pieces carry
 * real spaces (not U+2581). Encoding: a dummy-prefix space token, one token per UTF-8 character
 * (bytes without a token fall back to ids byte + 3, the <0xNN> pieces), then repeatedly merge the
 * adjacent pair whose concatenated text is a token with the highest score (leftmost on ties).
 * BOS = 1, EOS = 2 by the llama2.c convention. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tok_internal.h"

#define SPM_MAX_TOKEN_LEN (1 << 16)

static int32_t spm_i32(const uint8_t *p) {
  uint32_t v = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
  return (int32_t)v;
}

pte_status tok_load_spm(pte_tokenizer *t, const uint8_t *d, size_t size, pte_error_info *err) {
  if (size < 4)
    return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT,
                         "%s: offset 0: %zu bytes: too short for a tokenizer.bin header (and not JSON or tiktoken)",
                         t->name, size);
  int32_t maxlen = spm_i32(d);
  if (maxlen <= 0 || maxlen > SPM_MAX_TOKEN_LEN)
    return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT,
                         "%s: offset 0: max_token_length %d out of range [1, 65536] (not a tokenizer.bin, JSON or tiktoken file)",
                         t->name, (int)maxlen);
  t->max_token_len = (size_t)maxlen;
  size_t pos = 4;
  int32_t id = 0;
  while (pos < size) {
    if (size - pos < 8)
      return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "%s: offset %zu: token %d: truncated score/length (%zu bytes left)",
                           t->name, pos, (int)id, size - pos);
    float score;
    uint32_t bits = (uint32_t)spm_i32(d + pos);
    memcpy(&score, &bits, sizeof score);
    int32_t len = spm_i32(d + pos + 4);
    if (isnan(score)) return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "%s: offset %zu: token %d: score is NaN", t->name, pos, (int)id);
    if (len < 0 || len > maxlen)
      return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "%s: offset %zu: token %d: length %d outside [0, max_token_length %d]",
                           t->name, pos + 4, (int)id, (int)len, (int)maxlen);
    pos += 8;
    if ((size_t)len > size - pos)
      return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "%s: offset %zu: token %d: length %d runs past the end of the file",
                           t->name, pos - 4, (int)id, (int)len);
    if (id >= (1 << 26)) return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "%s: offset %zu: more than 2^26 tokens", t->name, pos);
    if (tok_vocab_set(&t->vocab, id, d + pos, (size_t)len) != 0) return tok_oom(t, err);
    t->vocab.score[id] = score;
    int32_t other;
    if (tok_vocab_index(&t->vocab, id, &other) < 0) return tok_oom(t, err); /* a repeated piece keeps its first id */
    pos += (size_t)len;
    id++;
  }
  if (id == 0) return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "%s: offset 4: no tokens after the header", t->name);
  t->vocab_size = (size_t)id;
  if (id > 1) t->bos = 1;
  if (id > 2) t->eos = 2;
  return PTE_OK;
}

typedef struct spm_ctx {
  const pte_tokenizer *t;
  uint8_t *buf; /* 2 * max_token_len */
} spm_ctx;

/* Pair (a, b) merges when the concatenation of their pieces is a token; higher score first. */
static int spm_pair(const void *ctx, int32_t a, int32_t b, double *prio, int32_t *merged) {
  const spm_ctx *c = ctx;
  const tok_vocab *v = &c->t->vocab;
  size_t la, lb;
  const uint8_t *pa = tok_vocab_bytes(v, a, &la), *pb = tok_vocab_bytes(v, b, &lb);
  if (la + lb > c->t->max_token_len) return 0;
  memcpy(c->buf, pa, la);
  memcpy(c->buf + la, pb, lb);
  int32_t id = tok_vocab_find(v, c->buf, la + lb);
  if (id < 0) return 0;
  *prio = -(double)v->score[id];
  *merged = id;
  return 1;
}

pte_status tok_encode_spm(const pte_tokenizer *t, const char *text, size_t len, tok_out *out, pte_error_info *err) {
  if (len == 0) return PTE_OK;
  const uint8_t *s = (const uint8_t *)text;
  int32_t *ids = malloc((len + 1) * sizeof *ids);
  spm_ctx c = {t, malloc(2 * t->max_token_len)};
  pte_status st = PTE_OK;
  if (!ids || !c.buf) {
    st = tok_oom(t, err);
    goto done;
  }
  size_t n = 0;
  int32_t space = tok_vocab_find(&t->vocab, " ", 1);
  if (space >= 0) ids[n++] = space; /* the dummy prefix */
  for (size_t i = 0; i < len;) {
    size_t l = 1; /* one UTF-8 character: a lead byte and up to three continuation bytes */
    while (i + l < len && l < 4 && (s[i + l] & 0xC0) == 0x80) l++;
    int32_t id = tok_vocab_find(&t->vocab, s + i, l);
    if (id >= 0) {
      ids[n++] = id;
    } else {
      for (size_t k = 0; k < l; k++) {
        int32_t b = (int32_t)s[i + k] + 3;
        if ((size_t)b >= t->vocab_size) {
          st = pte_error_set(err, PTE_ERR_INVALID_ARGUMENT,
                             "%s: byte 0x%x at text offset %zu has no token and the vocab (%zu) has no byte pieces",
                             t->name, (unsigned)s[i + k], i + k, t->vocab_size);
          goto done;
        }
        ids[n++] = b;
      }
    }
    i += l;
  }
  if (tok_bpe_merge(ids, n, spm_pair, &c, out) != 0) st = tok_oom(t, err);
done:
  free(ids);
  free(c.buf);
  return st;
}
