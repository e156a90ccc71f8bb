/* kernels/llm/llm_ops.h — kernel tables and attention inner loops of the LLM operator library
 * (internal). pte_register_llm_kernels() (include/pte/llm_kernels.h) registers the tables. */
#ifndef PTE_KERNELS_LLM_LLM_OPS_H
#define PTE_KERNELS_LLM_LLM_OPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "portable/util/kutil.h"
#include "pte/kernel.h"
#include "pte/llm_kernels.h"

/* op_update_cache.c: llama::update_cache.out, llama::update_cache_with_indices.out */
extern const pte_kernel pte_llm_cache_kernels[];
extern const size_t pte_llm_cache_kernels_count;
/* op_sdpa.c: llama::custom_sdpa.out, llama::sdpa_with_kv_cache.out */
extern const pte_kernel pte_llm_sdpa_kernels[];
extern const size_t pte_llm_sdpa_kernels_count;

/* Fails (naming op and what) unless t is a rank-4 tensor in contiguous dim order. */
bool pte_llm_check_4d(pte_kernel_context *ctx, const char *op, const pte_tensor *t, const char *what);
/* update_cache's checks and (when `copy`) copy (op_update_cache.c), shared with
 * sdpa_with_kv_cache: value [B, S, H, D] into cache rows [start_pos, start_pos + S); `what` names
 * the cache in messages. */
bool pte_llm_update_cache(pte_kernel_context *ctx, const char *op, const pte_tensor *value, pte_tensor *cache,
                          int64_t start_pos, const char *what, bool copy);

/* llm_pool.c: runs fn(ctx, part, n) for part < n on the caller and n - 1 pool threads, n =
 * min(max_parts, pte_llm_kernels_threads()), or fn(ctx, 0, 1) alone when the pool is busy;
 * returns n. */
typedef void (*llm_task_fn)(void *ctx, size_t part, size_t nparts);
size_t pte_llm_parallel(llm_task_fn fn, void *ctx, size_t max_parts);

/* The inner loops of the tiled attention, one set per instruction set. Query rows are grouped by
 * kv head: H heads of R rows, row g * R + r at q + (g * R + r) * D (contiguous); key/value row t
 * of head g starts at k + t * kstride + g * khs. Score / probability row g * R + r is
 * s + (g * R + r) * ss. */
typedef struct llm_attn_isa {
  pte_llm_isa isa;
  /* s[(g R + r) ss + t] = dot(q row g R + r, key row t of head g) for g < H, r < R, t < T */
  void (*qk)(size_t H, size_t R, size_t T, size_t D, const float *q, const float *k, size_t kstride, size_t khs,
             float *s, size_t ss);
  /* max of x[0..n) (n >= 1; -inf entries allowed) */
  float (*rowmax)(size_t n, const float *x);
  /* x[i] = exp(x[i] - m) for i < n (exactly 0 for x[i] = -inf); returns the sum */
  float (*expsum)(size_t n, float *x, float m);
  /* for row j = g R + r: acc[j D + d] = acc[j D + d] alpha[j] + sum_t p[j ps + t] v(row t, head g)[d] */
  void (*pv)(size_t H, size_t R, size_t T, size_t D, const float *p, size_t ps, const float *v, size_t vstride,
             size_t vhs, const float *alpha, float *acc);
} llm_attn_isa;

/* sdpa_scalar.c: the portable set, the AVX ones (NULL when not compiled in), and the set in use. */
const llm_attn_isa *pte_llm_attn_scalar(void);
const llm_attn_isa *pte_llm_attn_avx2(void);
const llm_attn_isa *pte_llm_attn_avx512(void);
const llm_attn_isa *pte_llm_attn_current(void);

#endif
