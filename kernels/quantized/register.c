/* Registration of the quantized_decomposed kernel library (include/pte/quantized_kernels.h). */
#include "pte/quantized_kernels.h"

#include "quantized/q_ops.h"

typedef struct q_family {
  const pte_kernel *kernels;
  const size_t *count;
} q_family;

static const q_family k_q_families[] = {
    {pte_q_quantize_kernels, &pte_q_quantize_kernels_count},
    {pte_q_dequantize_kernels, &pte_q_dequantize_kernels_count},
    {pte_q_choose_qparams_kernels, &pte_q_choose_qparams_kernels_count},
    {pte_q_embedding_kernels, &pte_q_embedding_kernels_count},
    {pte_q_mixed_kernels, &pte_q_mixed_kernels_count},
    {pte_q_add_kernels, &pte_q_add_kernels_count},
};
#define Q_N_FAMILIES (sizeof k_q_families / sizeof k_q_families[0])

pte_status pte_register_quantized_kernels(void) {
  const pte_kernel *first = &k_q_families[0].kernels[0];
  for (size_t i = 0; i < pte_num_registered_kernels(); i++) {
    const pte_kernel *k = pte_registered_kernel(i);
    if (k->fn == first->fn && k->key == NULL) return PTE_OK;
  }
  for (size_t f = 0; f < Q_N_FAMILIES; f++) {
    pte_status s = pte_register_kernels(k_q_families[f].kernels, *k_q_families[f].count);
    if (s != PTE_OK) return s;
  }
  return PTE_OK;
}

size_t pte_quantized_kernel_count(void) {
  size_t n = 0;
  for (size_t f = 0; f < Q_N_FAMILIES; f++) n += *k_q_families[f].count;
  return n;
}

const pte_kernel *pte_quantized_kernel(size_t i) {
  for (size_t f = 0; f < Q_N_FAMILIES; f++) {
    if (i < *k_q_families[f].count) return &k_q_families[f].kernels[i];
    i -= *k_q_families[f].count;
  }
  return NULL;
}
