/* tools/cli/synth_gen.h — the weight generator of `pte synth` and `pte synth llama`
 * (docs/writer.md, "pte synth"): element i of tensor t with seed s is bias + scale * g(i, seed32),
 * seed32 = pte_cli_gen_seed32(s, t), g = two xorshift32 rounds mapped to [-1, 1). A pte_source
 * callback (pte_cli_gen_read), so a model of any size streams to disk without being in memory. */
#ifndef PTE_TOOLS_SYNTH_GEN_H
#define PTE_TOOLS_SYNTH_GEN_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "pte/status.h"

typedef struct pte_cli_gen {
  uint32_t seed32;
  float scale, bias;
} pte_cli_gen;

uint32_t pte_cli_gen_seed32(uint64_t seed, uint32_t tensor_id);

/* Element i of g. */
static inline float pte_cli_gen_value(const pte_cli_gen *g, uint32_t i) {
  uint32_t r = i ^ g->seed32;
  r ^= r << 13;
  r ^= r >> 17;
  r ^= r << 5;
  r += 0x9E3779B9u;
  r ^= r << 13;
  r ^= r >> 17;
  r ^= r << 5;
  uint32_t bits = 0x3F800000u | (r >> 9);
  float f;
  memcpy(&f, &bits, 4);
  return g->bias + (f - 1.5f) * 2.0f * g->scale;
}

/* n consecutive elements from `first` into out (a plain loop the compiler vectorizes). */
void pte_cli_gen_block(const pte_cli_gen *g, uint32_t first, float *out, size_t n);
/* pte_source_read_fn over the fp32 bytes of ctx (a const pte_cli_gen *). */
pte_status pte_cli_gen_read(void *ctx, uint64_t offset, void *dst, size_t size, pte_error_info *err);

#endif
