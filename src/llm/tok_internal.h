/* src/llm/tok_internal.h — shared pieces of the tokenizers (pte/tokenizer.h): the vocabulary
 * (token bytes + a bytes -> id hash), the merge-pair hash, added/special tokens and the BPE core. */
#ifndef PTE_LLM_TOK_INTERNAL_H
#define PTE_LLM_TOK_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "pte/tokenizer.h"
#include "tok_regex/pretokenize.h"

/* ---- vocabulary: id -> bytes, bytes -> id ---- */
typedef struct tok_vocab {
  uint8_t *pool; /* all token bytes */
  size_t pool_len, pool_cap;
  uint32_t *off, *len; /* per id */
  uint8_t *defined;    /* per id: 1 when the id has bytes */
  float *score;        /* per id (SentencePiece scores), NULL elsewhere */
  size_t n, cap;       /* ids 0..n-1 */
  int32_t *slots;      /* open addressing: id or -1 */
  size_t nslots;
  size_t count; /* ids in the hash */
} tok_vocab;

void tok_vocab_free(tok_vocab *v);
/* Sets the bytes of `id` (grows the table). Returns 0, or -1 when out of memory. */
int tok_vocab_set(tok_vocab *v, int32_t id, const void *bytes, size_t len);
/* Adds id to the bytes -> id hash: returns 1 when added, 0 when the bytes already map to an id
 * (*existing = that id), -1 when out of memory. */
int tok_vocab_index(tok_vocab *v, int32_t id, int32_t *existing);
int32_t tok_vocab_find(const tok_vocab *v, const void *bytes, size_t len);
static inline const uint8_t *tok_vocab_bytes(const tok_vocab *v, int32_t id, size_t *len) {
  *len = v->len[id];
  return v->pool + v->off[id];
}

/* ---- merge pairs (a, b) -> (rank, merged id) ---- */
typedef struct tok_pairs {
  uint64_t *keys; /* (a << 32 | b) + 1, 0 = empty */
  uint32_t *rank;
  int32_t *merged;
  size_t nslots, count;
} tok_pairs;
void tok_pairs_free(tok_pairs *p);
/* Returns 1 added, 0 duplicate pair (kept the first), -1 out of memory. */
int tok_pairs_add(tok_pairs *p, int32_t a, int32_t b, uint32_t rank, int32_t merged);
int tok_pairs_find(const tok_pairs *p, int32_t a, int32_t b, uint32_t *rank, int32_t *merged);

/* ---- added / special tokens, matched in the raw text before anything else ---- */
typedef struct tok_added {
  int32_t id;
  uint8_t special, lstrip, rstrip;
  uint32_t off, len; /* content bytes in tok_specials.pool */
} tok_added;
typedef struct tok_specials {
  tok_added *items;
  size_t n, cap;
  uint8_t *pool;
  size_t pool_len, pool_cap;
  /* items sorted by (first byte, length descending); first[b]..first[b+1] are those starting with b */
  uint32_t first[257];
} tok_specials;
void tok_specials_free(tok_specials *s);
int tok_specials_add(tok_specials *s, const void *text, size_t len, int32_t id, int special, int lstrip, int rstrip);
int tok_specials_finish(tok_specials *s); /* builds the index; 0 or -1 (out of memory) */
/* Leftmost-longest match in text[from..len): returns 1 with *at, *end (the match) and the item. */
int tok_specials_next(const tok_specials *s, const char *text, size_t len, size_t from, size_t *at, size_t *end,
                      const tok_added **item);

/* ---- BPE core ---- */
/* Priority of merging the adjacent tokens (a, b): returns 1 with *prio (lower merges first; equal
 * priorities merge leftmost first) and the merged id, 0 when the pair does not merge. */
typedef int (*tok_pair_fn)(const void *ctx, int32_t a, int32_t b, double *prio, int32_t *merged);

typedef struct tok_out {
  int32_t *ids;
  size_t n, cap;
} tok_out;
int tok_out_push(tok_out *o, int32_t id); /* 0 or -1 (out of memory) */

/* Merges ids[0..n) (the initial symbols of one pre-token) until no pair merges and appends the
 * result to out. O(n log n): a heap of candidate pairs with lazy invalidation. 0 or -1 (memory). */
int tok_bpe_merge(const int32_t *ids, size_t n, tok_pair_fn fn, const void *ctx, tok_out *out);

/* ---- the tokenizer object ---- */
struct pte_tokenizer {
  pte_tokenizer_kind kind;
  char name[96];
  tok_vocab vocab;
  size_t vocab_size; /* reported: max id + 1 over vocab and added tokens */
  int32_t bos, eos;
  tok_specials specials;
  /* HF */
  tok_pairs pairs;
  pte_pretok_kind pretok;
  uint8_t add_prefix_space, ignore_merges, byte_fallback;
  int32_t unk;
  int32_t byte_id[256]; /* token of each single byte, -1 when none */
  /* scratch for concatenation lookups (SentencePiece) */
  size_t max_token_len;
};

pte_status tok_load_hf_json(pte_tokenizer *t, const char *data, size_t size, pte_error_info *err);
pte_status tok_load_spm(pte_tokenizer *t, const uint8_t *data, size_t size, pte_error_info *err);
pte_status tok_load_tiktoken(pte_tokenizer *t, const char *data, size_t size, const pte_tiktoken_options *opt,
                             pte_error_info *err);

pte_status tok_encode_hf(const pte_tokenizer *t, const char *text, size_t len, tok_out *out, pte_error_info *err);
pte_status tok_encode_spm(const pte_tokenizer *t, const char *text, size_t len, tok_out *out, pte_error_info *err);
pte_status tok_encode_tiktoken(const pte_tokenizer *t, const char *text, size_t len, tok_out *out,
                               pte_error_info *err);

pte_status tok_oom(const pte_tokenizer *t, pte_error_info *err);

#endif
