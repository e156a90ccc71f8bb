/* Registration of the LLM operator library (include/pte/llm_kernels.h). */
#include "pte/llm_kernels.h"

#include "llm/llm_ops.h"

typedef struct llm_family {
  const pte_kernel *kernels;
  const size_t *count;
} llm_family;

static const llm_family k_llm_families[] = {
    {pte_llm_sdpa_kernels, &pte_llm_sdpa_kernels_count},
    {pte_llm_cache_kernels, &pte_llm_cache_kernels_count},
};
#define LLM_N_FAMILIES (sizeof k_llm_families / sizeof k_llm_families[0])

pte_status pte_register_llm_kernels(void) {
  /* idempotent without global state: registered iff the first kernel is */
  const pte_kernel *first = &k_llm_families[0].kernels[0];
  for (size_t i = 0; i < pte_num_registered_kernels(); i++) {
    const pte_kernel *k = pte_registered_kernel(i);
    if (k->fn == first->fn && k->key == NULL) return PTE_OK;
  }
  for (size_t f = 0; f < LLM_N_FAMILIES; f++) {
    pte_status s = pte_register_kernels(k_llm_families[f].kernels, *k_llm_families[f].count);
    if (s != PTE_OK) return s;
  }
  return PTE_OK;
}

size_t pte_llm_kernel_count(void) {
  size_t n = 0;
  for (size_t f = 0; f < LLM_N_FAMILIES; f++) n += *k_llm_families[f].count;
  return n;
}

const pte_kernel *pte_llm_kernel(size_t i) {
  for (size_t f = 0; f < LLM_N_FAMILIES; f++) {
    if (i < *k_llm_families[f].count) return &k_llm_families[f].kernels[i];
    i -= *k_llm_families[f].count;
  }
  return NULL;
}
