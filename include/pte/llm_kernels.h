/* pte/llm_kernels.h — the LLM custom operator library (kernels/llm).
 *
 * The operators ExecuTorch's LLM export flow (extension/llm/custom_ops, namespace `llama`) puts
 * into programs, with upstream's names and schemas:
 *
 *   llama::update_cache.out(Tensor value, Tensor(a!) cache, SymInt start_pos, *, Tensor(b!) out)
 *       -> Tensor(b!)
 *     value [B, S, H, D], cache [B, L, H, D] (same batch, heads, head dim and element size):
 *     copies value into cache rows [start_pos, start_pos + S) of every batch, in place. The cache
 *     is a mutable buffer of the program, so the rows persist across executes. `out` is a
 *     placeholder (upstream never writes it): left untouched. Needs 0 <= start_pos < L and
 *     start_pos + S <= L. Any dtype (bytes are copied).
 *   llama::update_cache_with_indices.out(Tensor value, Tensor(a!) cache, SymInt start_pos,
 *       Tensor indices, *, Tensor(b!) out) -> Tensor(b!)
 *     The same, but token s of batch b goes to cache row indices[b, s] (indices int64 [B, S],
 *     each in [0, L)); start_pos is ignored.
 *   llama::custom_sdpa.out(Tensor query, Tensor key, Tensor value, SymInt start_pos,
 *       Tensor? attn_mask=None, float drpout_p=0.0, bool is_causal=False, float? scale=None, *,
 *       Tensor(a!) out) -> Tensor(a!)
 *     Scaled dot-product attention of query [B, S, Hq, D] over the first start_pos + S rows of
 *     the caches key/value [B, L, Hkv, D] (Hkv divides Hq: query head h reads kv head
 *     h / (Hq / Hkv), grouped-query attention). out [B, S, Hq, D]:
 *       out[b,s,h] = sum_j softmax_j(scale * q[b,s,h] . k[b,j,g] + mask[s,j]) v[b,j,g]
 *     over j < start_pos + S; scale defaults to 1/sqrt(D). is_causal: query s (absolute
 *     position start_pos + s) sees keys j <= start_pos + s. attn_mask (float32 [S, start_pos+S],
 *     added to the scaled scores; -inf excludes a key) cannot be combined with is_causal (an
 *     empty mask counts as none). drpout_p is ignored (inference), as upstream does. A row whose
 *     keys are all excluded gives zeros. float32 only (upstream's kernel accepts only Float).
 *   llama::sdpa_with_kv_cache.out(Tensor query, Tensor key, Tensor value, Tensor(a!) key_cache,
 *       Tensor(b!) value_cache, SymInt start_pos, SymInt seq_len, Tensor? attn_mask=None,
 *       float drpout_p=0.0, bool is_causal=False, float? scale=None, *, Tensor(c!) out)
 *       -> Tensor(c!)
 *     update_cache(key, key_cache, start_pos), update_cache(value, value_cache, start_pos), then
 *     custom_sdpa(query, key_cache, value_cache, start_pos, ...). Needs start_pos + seq_len <=
 *     L for both caches.
 *
 * Tensors must be in contiguous dim order (as upstream requires). The attention is computed
 * flash-style: keys in tiles of 256 with a running (online) softmax, so no [S x L] buffer is ever
 * built; query heads sharing a kv head are processed together so each K/V row is read once per
 * group and block of positions. Scratch comes from the kernel context's temp allocator, once per
 * call: 4 x (2 R D + R T + 3 R) bytes with R = Hq x min(S, max(1, 256 / Hq)) query rows and
 * T = min(256, start_pos + S) keys per tile (Llama-3-8B shapes, Hq 32 / D 128: 64 KiB per decode
 * step, 515 KiB for a prefill of 8 or more tokens); PTE_ERR_MEMORY_ALLOCATION_FAILED names the
 * byte count when there is none or too little. Inner loops are AVX-512F, AVX2+FMA or portable
 * scalar C, chosen once from the CPU (see pte_llm_kernels_set_isa). Failures go through
 * pte_kernel_fail() with PTE_ERR_INVALID_ARGUMENT and a message naming the operator and argument
 * (rank, dtype, dim order, shapes, heads not divisible, start_pos + seq_len beyond the cache,
 * mask shape, ...).
 */
#ifndef PTE_LLM_KERNELS_H
#define PTE_LLM_KERNELS_H

#include <stddef.h>

#include "pte/kernel.h"
#include "pte/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Registers the four llama:: kernels above with pte_register_kernels(). Idempotent: a second call
 * returns PTE_OK without registering anything. Errors: those of pte_register_kernels. */
pte_status pte_register_llm_kernels(void);

/* Number of kernels in the library, and kernel i (NULL when out of range), for listings. */
size_t pte_llm_kernel_count(void);
const pte_kernel *pte_llm_kernel(size_t i);

/* Threads for the attention (default 1: the calling thread only): the kv heads are split among
 * min(n, kv heads) threads, the caller plus n - 1 pool threads started on first use and kept
 * parked. One attention call uses the pool at a time; a call made while another one holds it
 * runs on its own thread. Outputs are identical whatever the count. Each thread gets its own
 * scratch (same formula as above with its share of the heads). Waking the pool costs tens of
 * microseconds on a loaded machine, so threads pay off for long contexts / prefill only.
 * PTE_ERR_INVALID_ARGUMENT unless 1 <= n <= PTE_LLM_MAX_THREADS. */
#define PTE_LLM_MAX_THREADS 64
pte_status pte_llm_kernels_set_threads(int n);
int pte_llm_kernels_threads(void);
/* Attention calls of fewer multiply-adds (2 x query positions x key positions x query heads x
 * head dim) than this run on the calling thread whatever the thread count: a decode step over a
 * short context takes less time than waking the pool (default 2^20, ~0.1 ms of work; 0 = every
 * call uses the threads). Process-wide, like the thread count. */
void pte_llm_kernels_set_min_parallel_work(uint64_t macs);
uint64_t pte_llm_kernels_min_parallel_work(void);

/* Instruction sets of the attention inner loops. */
typedef enum pte_llm_isa {
  PTE_LLM_ISA_AUTO = 0,   /* the best the CPU supports (resolved at the first call) */
  PTE_LLM_ISA_SCALAR = 1, /* portable C */
  PTE_LLM_ISA_AVX2 = 2,   /* AVX2 + FMA */
  PTE_LLM_ISA_AVX512 = 3  /* AVX-512F */
} pte_llm_isa;

/* Forces the instruction set used by every later call (tests and benchmarks compare them).
 * PTE_ERR_NOT_SUPPORTED if this CPU / build cannot run it (the setting is unchanged),
 * PTE_ERR_INVALID_ARGUMENT for an unknown value. Not meant to be changed while kernels run. */
pte_status pte_llm_kernels_set_isa(pte_llm_isa isa);
/* The instruction set in use (AUTO resolved). */
pte_llm_isa pte_llm_kernels_isa(void);
/* True if this CPU and build can run isa (AUTO and SCALAR always). */
int pte_llm_isa_supported(pte_llm_isa isa);
/* "scalar", "avx2", "avx512", "auto". */
const char *pte_llm_isa_name(pte_llm_isa isa);

#ifdef __cplusplus
}
#endif
#endif
