/* llama::update_cache.out and llama::update_cache_with_indices.out: in-place writes of new
 * key/value rows [B, S, H, D] into a KV cache [B, L, H, D] held in a mutable buffer (see
 * include/pte/llm_kernels.h). The `out` argument is a placeholder, as upstream: never written. */
#include <string.h>

#include "llm/llm_ops.h"

/* Checks the value/cache pair shared by both operators; *row_bytes = H * D * element size. */
static bool uc_check(pte_kernel_context *ctx, const char *op, const pte_tensor *value, const pte_tensor *cache,
                     size_t *row_bytes) {
  if (!pte_llm_check_4d(ctx, op, value, "value") || !pte_llm_check_4d(ctx, op, cache, "cache")) return false;
  const size_t es = pte_dtype_size(value->dtype);
  if (es == 0 || es != pte_dtype_size(cache->dtype)) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "%s: value dtype %s and cache dtype %s differ in element size",
                    op, pte_dtype_name(value->dtype), pte_dtype_name(cache->dtype));
    return false;
  }
  static const char *const dims[4] = {"batch", "", "heads", "head_dim"};
  for (int d = 0; d < 4; d++) {
    if (d == 1) continue;
    if (value->sizes[d] != cache->sizes[d]) {
      pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "%s: value %s (dim %d) is %d but cache has %d", op, dims[d], d,
                      (int)value->sizes[d], (int)cache->sizes[d]);
      return false;
    }
  }
  if (!pte_k_check_data(ctx, value, "value") || !pte_k_check_data(ctx, cache, "cache")) return false;
  if (cache->flags & PTE_TENSOR_CONST) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "%s: cache is read-only program data (not a mutable buffer)",
                    op);
    return false;
  }
  *row_bytes = (size_t)value->sizes[2] * (size_t)value->sizes[3] * es;
  return true;
}

/* Copies token s of batch b of value into cache row `pos` (memmove: value may alias the cache). */
static void uc_copy_row(const pte_tensor *value, pte_tensor *cache, int64_t b, int64_t s, int64_t pos,
                        size_t row_bytes) {
  const size_t es = pte_dtype_size(value->dtype);
  const uint8_t *src = (const uint8_t *)value->data + (size_t)(b * value->strides[0] + s * value->strides[1]) * es;
  uint8_t *dst = (uint8_t *)cache->data + (size_t)(b * cache->strides[0] + pos * cache->strides[1]) * es;
  if (src != dst) memmove(dst, src, row_bytes);
}

bool pte_llm_update_cache(pte_kernel_context *ctx, const char *op, const pte_tensor *value, pte_tensor *cache,
                          int64_t start_pos, const char *what, bool copy) {
  size_t row_bytes = 0;
  if (!uc_check(ctx, op, value, cache, &row_bytes)) return false;
  const int64_t S = value->sizes[1], L = cache->sizes[1];
  if (start_pos < 0 || start_pos >= L || S > L - start_pos) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT,
                    "%s: start_pos %lld + seq_len %lld exceeds the %s length %lld", op, (long long)start_pos,
                    (long long)S, what, (long long)L);
    return false;
  }
  if (!copy) return true;
  for (int64_t b = 0; b < value->sizes[0]; b++)
    for (int64_t s = 0; s < S; s++) uc_copy_row(value, cache, b, s, start_pos + s, row_bytes);
  return true;
}

static void llama_update_cache_out(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  static const char op[] = "llama::update_cache";
  if (!pte_k_check_nargs(ctx, nargs, 4, 5)) return;
  pte_tensor *value = pte_k_arg_tensor(ctx, args, nargs, 0);
  pte_tensor *cache = pte_k_arg_tensor(ctx, args, nargs, 1);
  int64_t start_pos = 0;
  if (!value || !cache || !pte_k_arg_int(ctx, args, nargs, 2, &start_pos)) return;
  if (!pte_k_arg_tensor(ctx, args, nargs, 3)) return;
  if (!pte_llm_update_cache(ctx, op, value, cache, start_pos, "cache", true)) return;
  pte_k_set_return(args, nargs, 3);
}

static void llama_update_cache_with_indices_out(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  static const char op[] = "llama::update_cache_with_indices";
  if (!pte_k_check_nargs(ctx, nargs, 5, 6)) return;
  pte_tensor *value = pte_k_arg_tensor(ctx, args, nargs, 0);
  pte_tensor *cache = pte_k_arg_tensor(ctx, args, nargs, 1);
  int64_t start_pos = 0;
  if (!value || !cache || !pte_k_arg_int(ctx, args, nargs, 2, &start_pos)) return;
  pte_tensor *idx = pte_k_arg_tensor(ctx, args, nargs, 3);
  if (!idx || !pte_k_arg_tensor(ctx, args, nargs, 4)) return;
  size_t row_bytes = 0;
  if (!uc_check(ctx, op, value, cache, &row_bytes)) return;
  if (idx->dtype != PTE_DTYPE_LONG)
    PTE_K_BAD("%s: indices must be int64, got %s", op, pte_dtype_name(idx->dtype));
  if (idx->dim != 2 || idx->sizes[0] != value->sizes[0] || idx->sizes[1] != value->sizes[1])
    PTE_K_BAD("%s: indices must be [batch %d, seq_len %d] (rank %d given)", op, (int)value->sizes[0],
              (int)value->sizes[1], (int)idx->dim);
  if (!pte_k_check_data(ctx, idx, "indices")) return;
  const int64_t *ix = (const int64_t *)idx->data;
  const int64_t L = cache->sizes[1];
  /* every index first: a bad one leaves the cache untouched */
  for (int64_t b = 0; b < value->sizes[0]; b++)
    for (int64_t s = 0; s < value->sizes[1]; s++) {
      const int64_t pos = ix[b * idx->strides[0] + s * idx->strides[1]];
      if (pos < 0 || pos >= L)
        PTE_K_BAD("%s: indices[%lld, %lld] = %lld is outside the cache length %lld", op, (long long)b,
                  (long long)s, (long long)pos, (long long)L);
    }
  for (int64_t b = 0; b < value->sizes[0]; b++)
    for (int64_t s = 0; s < value->sizes[1]; s++)
      uc_copy_row(value, cache, b, s, ix[b * idx->strides[0] + s * idx->strides[1]], row_bytes);
  pte_k_set_return(args, nargs, 4);
}

const pte_kernel pte_llm_cache_kernels[] = {
    {"llama::update_cache.out", NULL, llama_update_cache_out},
    {"llama::update_cache_with_indices.out", NULL, llama_update_cache_with_indices_out},
};
const size_t pte_llm_cache_kernels_count = sizeof pte_llm_cache_kernels / sizeof pte_llm_cache_kernels[0];
