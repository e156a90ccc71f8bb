/* tools/cli/synth_gen.c — see synth_gen.h. */
#include "synth_gen.h"

uint32_t pte_cli_gen_seed32(uint64_t seed, uint32_t tensor_id) {
  return (uint32_t)((seed * 0x9E3779B97F4A7C15ull) >> 32) ^ (tensor_id * 0x85EBCA6Bu);
}

void pte_cli_gen_block(const pte_cli_gen *g, uint32_t first, float *out, size_t n) {
  const uint32_t seed32 = g->seed32;
  const float scale = g->scale, bias = g->bias;
  for (size_t k = 0; k < n; k++) {
    uint32_t r = (first + (uint32_t)k) ^ seed32; /* two xorshift32 rounds: vectorizes with SSE2 */
    r ^= r << 13;
    r ^= r >> 17;
    r ^= r << 5;
    r += 0x9E3779B9u;
    r ^= r << 13;
    r ^= r >> 17;
    r ^= r << 5;
    union {
      uint32_t u;
      float f;
    } v;
    v.u = 0x3F800000u | (r >> 9);
    out[k] = bias + (v.f - 1.5f) * 2.0f * scale;
  }
}

pte_status pte_cli_gen_read(void *ctx, uint64_t offset, void *dst, size_t size, pte_error_info *err) {
  const pte_cli_gen *g = (const pte_cli_gen *)ctx;
  (void)err;
  uint8_t *out = (uint8_t *)dst;
  uint64_t first = offset / 4;
  size_t skip = (size_t)(offset % 4);
  if (skip) { /* partial leading element */
    float f = pte_cli_gen_value(g, (uint32_t)first);
    size_t k = 4 - skip < size ? 4 - skip : size;
    memcpy(out, (const uint8_t *)&f + skip, k);
    out += k;
    size -= k;
    first++;
  }
  size_t n = size / 4;
  uint32_t base = (uint32_t)first;
  if (((uintptr_t)out & 3) == 0) {
    pte_cli_gen_block(g, base, (float *)(void *)out, n);
  } else {
    float tmp[1024];
    for (size_t done = 0; done < n;) {
      size_t k = n - done < 1024 ? n - done : 1024;
      pte_cli_gen_block(g, base + (uint32_t)done, tmp, k);
      memcpy(out + 4 * done, tmp, 4 * k);
      done += k;
    }
  }
  size_t tail = size - n * 4;
  if (tail) {
    float f = pte_cli_gen_value(g, base + (uint32_t)n);
    memcpy(out + 4 * n, &f, tail);
  }
  return PTE_OK;
}
