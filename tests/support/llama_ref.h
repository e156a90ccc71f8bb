/* llama_ref — an independent reference forward pass of the model `pte synth llama` writes
 * (tools/cli/cmd_synth_llama.c documents the architecture and the weight generator): plain C,
 * double accumulation, no pte kernels; it regenerates the deterministic weights itself. */
#ifndef PTE_TESTS_LLAMA_REF_H
#define PTE_TESTS_LLAMA_REF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pte/status.h"

typedef struct llama_ref_cfg {
  int dim, layers, heads, kv_heads, vocab, seq, hidden; /* hidden 0: the synth default */
  uint64_t seed;
  int quant; /* 0: fp32 linears; 1: 8da4w (4-bit grouped weights, per-token int8 activations) */
  int group; /* 8da4w group size */
} llama_ref_cfg;

typedef struct llama_ref llama_ref;

/* 8da4w: a per-token int8 rounding the reference made within 2^-12 of a tie (x * inv + zp within
 * 2^-12 of k + 1/2; see ref_qd8 in llama_ref.c): the call-th qd8 conversion since the reset, its
 * element elem, the distance to the tie in units of that bound (0 = an exact tie, 1 = the bound). */
typedef struct llama_ref_tie {
  uint32_t call, elem;
  float margin;
} llama_ref_tie;
#define LLAMA_REF_MAX_TIES 1024
#define LLAMA_REF_MAX_FLIPS 8

/* NULL when out of memory or the shape is invalid. */
llama_ref *llama_ref_new(const llama_ref_cfg *cfg);
void llama_ref_free(llama_ref *r);
/* Runs n tokens at positions pos .. pos + n - 1 (appending to its KV cache) and writes the last
 * position's logits (vocab values). Returns false on bad arguments. */
bool llama_ref_forward(llama_ref *r, const int64_t *tokens, int n, int pos, double *logits);
/* Forgets the KV cache, the conversion count and the recorded ties (weights and flips stay). */
void llama_ref_reset(llama_ref *r);
/* qd8 conversions since the last reset (the call index of the next one). */
uint32_t llama_ref_calls(const llama_ref *r);
/* The near-tie roundings met since the last reset (the first LLAMA_REF_MAX_TIES), in order. */
size_t llama_ref_ties(const llama_ref *r, const llama_ref_tie **ties);
/* From now on the listed near-tie roundings (call, elem) go the other way; false if n > MAX_FLIPS. */
bool llama_ref_set_flips(llama_ref *r, const llama_ref_tie *flips, size_t n);
/* The element the generator gives tensor `tid` at index i (scale, bias as documented). */
float llama_ref_weight(uint64_t seed, uint32_t tid, float scale, float bias, uint32_t i);

/* Plain reference kernels for llama::update_cache.out and llama::custom_sdpa.out, registered
 * only for names no registered library provides (so a build without the LLM kernel library can
 * still run the model; with it, its kernels are the ones exercised). */
pte_status llama_ref_register_missing_kernels(void);

#endif
