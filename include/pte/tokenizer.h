/* pte/tokenizer.h — text <-> token ids for language models (host layer: uses malloc and files).
 *
 *   pte_tokenizer *tok;
 *   pte_error_info err;
 *   pte_tokenizer_load("tokenizer.json", &tok, &err);          // format detected from the bytes
 *   int32_t ids[256]; size_t n;
 *   pte_tokenizer_encode(tok, "Hello world", 11, PTE_TOK_ADD_BOS, ids, 256, &n, &err);
 *   for (size_t i = 0; i < n; i++) {
 *     const char *piece; size_t len;
 *     pte_tokenizer_decode(tok, i ? ids[i - 1] : -1, ids[i], &piece, &len, &err);
 *     fwrite(piece, 1, len, stdout);                           // bytes, possibly partial UTF-8
 *   }
 *   pte_tokenizer_free(tok);
 *
 * Formats (detected from the file's content, not its name):
 *   - PTE_TOKENIZER_HF_BPE: a Hugging Face tokenizer.json with a byte-level BPE model
 *     (GPT-2 / Llama 3 / Qwen style: ByteLevel pre-tokenizer, Split regex pre-tokenizers,
 *     merges as "a b" strings or [a, b] pairs, added/special tokens);
 *   - PTE_TOKENIZER_SPM_BIN: llama2.c's tokenizer.bin (SentencePiece-style BPE by scores, byte
 *     fallback pieces <0xNN>);
 *   - PTE_TOKENIZER_TIKTOKEN: a tiktoken ranks file (lines "base64-token rank").
 * Bad files get a specific status (PTE_ERR_INVALID_ARGUMENT for malformed content,
 * PTE_ERR_ACCESS_FAILED for I/O, PTE_ERR_MEMORY_ALLOCATION_FAILED) with a message naming the file,
 * the line/offset and what was wrong; never a crash.
 */
#ifndef PTE_TOKENIZER_H
#define PTE_TOKENIZER_H

#include <stddef.h>
#include <stdint.h>

#include "pte/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pte_tokenizer pte_tokenizer;

typedef enum pte_tokenizer_kind {
  PTE_TOKENIZER_HF_BPE = 1,
  PTE_TOKENIZER_SPM_BIN = 2,
  PTE_TOKENIZER_TIKTOKEN = 3
} pte_tokenizer_kind;

/* Flags for pte_tokenizer_encode. */
#define PTE_TOK_ADD_BOS 1u
#define PTE_TOK_ADD_EOS 2u

pte_status pte_tokenizer_load(const char *path, pte_tokenizer **out, pte_error_info *err);
/* Same, from bytes in memory (copied as needed; `name` is used in messages only). */
pte_status pte_tokenizer_load_bytes(const void *data, size_t size, const char *name,
                                    pte_tokenizer **out, pte_error_info *err);
void pte_tokenizer_free(pte_tokenizer *tok);

/* A tiktoken ranks file names neither its special tokens nor its split pattern. pte_tokenizer_load
 * recognises cl100k_base, o200k_base, r50k_base (gpt2) and Llama 3's tokenizer.model by their rank
 * count; other files get the cl100k pattern and no special tokens unless the caller says: */
typedef struct pte_tiktoken_options {
  const char *pattern;                /* "gpt2", "cl100k" (= Llama 3), "qwen2", "o200k" or that regex's
                                         text; NULL: as pte_tokenizer_load decides */
  const char *const *special_tokens;  /* texts of the special tokens, ids first_special_id + i */
  size_t num_special_tokens;          /* 0: as pte_tokenizer_load decides */
  int32_t first_special_id;           /* -1: right after the largest rank */
  int32_t bos_index, eos_index;       /* indices into special_tokens; -1 = none */
} pte_tiktoken_options;
pte_status pte_tokenizer_load_tiktoken(const void *data, size_t size, const char *name,
                                       const pte_tiktoken_options *opt, pte_tokenizer **out,
                                       pte_error_info *err);

pte_tokenizer_kind pte_tokenizer_kind_of(const pte_tokenizer *tok);
size_t pte_tokenizer_vocab_size(const pte_tokenizer *tok);
/* -1 when the file does not name one; the caller may override with the model's metadata. */
int32_t pte_tokenizer_bos_id(const pte_tokenizer *tok);
int32_t pte_tokenizer_eos_id(const pte_tokenizer *tok);

/* Encodes `len` bytes of UTF-8 text. Writes at most `cap` ids; *n_out is the number of ids the
 * text needs (PTE_ERR_INVALID_ARGUMENT with a message when it exceeds cap). */
pte_status pte_tokenizer_encode(const pte_tokenizer *tok, const char *text, size_t len,
                                unsigned flags, int32_t *ids, size_t cap, size_t *n_out,
                                pte_error_info *err);

/* The bytes of token `id` as they appear in the text, given the previous token (`prev`, -1 at the
 * start; SentencePiece drops the leading space after BOS). The bytes stay valid until the
 * tokenizer is freed. An id outside the vocabulary is PTE_ERR_INVALID_ARGUMENT. */
pte_status pte_tokenizer_decode(const pte_tokenizer *tok, int32_t prev, int32_t id,
                                const char **piece, size_t *len, pte_error_info *err);

#ifdef __cplusplus
}
#endif

#endif /* PTE_TOKENIZER_H */
