/* pte/llm.h — text generation with an exported language model (host layer: malloc, files, clock).
 *
 *   pte_llm *lm;
 *   pte_error_info err;
 *   pte_llm_open("llama.pte", NULL, &lm, &err);             // loads "forward", reads the metadata
 *   const pte_llm_info *info = pte_llm_get_info(lm);        // max_seq_len, vocab, bos, eos ids...
 *   pte_llm_sampler smp;
 *   pte_llm_sampler_init(&smp, 0.8f, 0.9f, 42);             // temperature 0: argmax
 *   pte_llm_stats st;
 *   pte_llm_generate(lm, prompt_ids, n_prompt, 64, &smp, on_token, ctx, &st, &err);
 *   pte_llm_free(lm);
 *
 * The model is what upstream's LLM exporter writes (and `pte synth llama`): method "forward"
 * (tokens Long[1, T], input_pos Long[1]) -> logits Float [1, V] or [1, T, V] (the last position is
 * used), the KV cache in the method's mutable buffers, and metadata methods read as upstream's
 * runner reads them when present: get_max_seq_len, get_max_context_len, get_vocab_size,
 * get_bos_id, get_eos_ids (one Int output per id), get_n_layers, use_kv_cache,
 * enable_dynamic_shape. Missing metadata gets upstream's runner defaults (max_seq_len 128,
 * dynamic shape off, kv cache on) or, for vocab_size, the logits' last dimension.
 * A prompt is fed in one call per chunk of up to max_seq_len tokens when the model takes a
 * dynamic sequence length, else token by token. Models without a KV cache are refused. */
#ifndef PTE_LLM_H
#define PTE_LLM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pte/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pte_llm pte_llm;

typedef struct pte_llm_options {
  int num_threads;        /* [0 = backend default] threads of each XNNPACK delegate */
  const char *method;     /* [NULL = "forward"] */
} pte_llm_options;

#define PTE_LLM_MAX_EOS 8

typedef struct pte_llm_info {
  int64_t max_seq_len;     /* tokens one call may take (dynamic models) / cache length */
  int64_t max_context_len; /* positions the cache holds (max_seq_len when not given) */
  int64_t vocab_size;
  int64_t n_layers;        /* -1 when not given */
  int64_t bos_id;          /* -1 when not given */
  int64_t eos_ids[PTE_LLM_MAX_EOS];
  size_t n_eos;
  bool use_kv_cache;
  bool dynamic_shape;
  unsigned have;           /* PTE_LLM_HAVE_* bits: which values came from metadata methods */
} pte_llm_info;

#define PTE_LLM_HAVE_MAX_SEQ_LEN 0x01u
#define PTE_LLM_HAVE_MAX_CONTEXT_LEN 0x02u
#define PTE_LLM_HAVE_VOCAB_SIZE 0x04u
#define PTE_LLM_HAVE_N_LAYERS 0x08u
#define PTE_LLM_HAVE_BOS 0x10u
#define PTE_LLM_HAVE_EOS 0x20u
#define PTE_LLM_HAVE_KV_CACHE 0x40u
#define PTE_LLM_HAVE_DYNAMIC 0x80u

/* Opens the model, loads its forward method and reads the metadata. Errors: any pte_module
 * error; PTE_ERR_INVALID_PROGRAM (no forward method, a forward that does not take two inputs,
 * a metadata method with an output of the wrong type), PTE_ERR_NOT_SUPPORTED (use_kv_cache false). */
pte_status pte_llm_open(const char *path, const pte_llm_options *opts, pte_llm **out, pte_error_info *err);
void pte_llm_free(pte_llm *lm);
const pte_llm_info *pte_llm_get_info(const pte_llm *lm);
/* Seconds spent in pte_llm_open loading the forward method (for `pte prepare` comparisons). */
double pte_llm_load_seconds(const pte_llm *lm);

/* The next position to be written (0 after open / reset). */
int64_t pte_llm_position(const pte_llm *lm);
/* Starts a new sequence at position 0 (the cache is overwritten as positions advance). */
void pte_llm_reset(pte_llm *lm);

/* Feeds ids at the current position (chunked as the model allows) and points *logits at the last
 * position's vocab_size logits (valid until the next call). Errors: PTE_ERR_INVALID_ARGUMENT (no
 * ids, an id outside the vocabulary), PTE_ERR_OUT_OF_RESOURCES (the context is full), any
 * execution error. */
pte_status pte_llm_feed(pte_llm *lm, const int64_t *ids, size_t n, const float **logits, pte_error_info *err);

/* Sampling: temperature <= 0 picks the argmax (lowest id on ties); otherwise softmax(logits / T)
 * restricted to the smallest set of most probable tokens whose mass reaches top_p (0 < top_p < 1;
 * top_p >= 1 or <= 0: all tokens), drawn with a xorshift64* generator seeded by `seed`. */
typedef struct pte_llm_sampler {
  float temperature, top_p;
  uint64_t state;
  float *probs;   /* scratch (grown on demand; freed by pte_llm_sampler_free) */
  void *pairs;
  size_t cap;
} pte_llm_sampler;

void pte_llm_sampler_init(pte_llm_sampler *s, float temperature, float top_p, uint64_t seed);
void pte_llm_sampler_free(pte_llm_sampler *s);
/* -1 when out of memory or n == 0. */
int64_t pte_llm_sample(pte_llm_sampler *s, const float *logits, size_t n);

typedef struct pte_llm_stats {
  size_t prompt_tokens, generated_tokens;
  double prompt_seconds;      /* feeding the prompt */
  double first_token_seconds; /* from the start of the prompt to the first generated token */
  double decode_seconds;      /* the decode steps after the first token */
  bool stopped_at_eos;
  bool context_full;          /* stopped because the context (max_context_len) is full */
} pte_llm_stats;

/* Called with each generated id; return false to stop. */
typedef bool (*pte_llm_token_fn)(void *ctx, int64_t id);

/* Resets, feeds the prompt, then samples up to max_new tokens (stopping after an EOS id, which is
 * reported to on_token, or when the context is full). */
pte_status pte_llm_generate(pte_llm *lm, const int64_t *prompt, size_t n_prompt, size_t max_new,
                            pte_llm_sampler *sampler, pte_llm_token_fn on_token, void *ctx, pte_llm_stats *stats,
                            pte_error_info *err);

#ifdef __cplusplus
}
#endif

#endif /* PTE_LLM_H */
