/* Registration of the cortex_m kernel library (include/pte/cortex_m_kernels.h). */
#include "pte/cortex_m_kernels.h"

#include "cortex_m/cm_ops.h"

typedef struct cm_family {
  const pte_kernel *kernels;
  const size_t *count;
} cm_family;

static const cm_family k_cm_families[] = {
    {pte_cm_quant_kernels, &pte_cm_quant_kernels_count},
    {pte_cm_elementwise_kernels, &pte_cm_elementwise_kernels_count},
    {pte_cm_linear_kernels, &pte_cm_linear_kernels_count},
    {pte_cm_softmax_kernels, &pte_cm_softmax_kernels_count},
    {pte_cm_shape_kernels, &pte_cm_shape_kernels_count},
    {pte_cm_conv_kernels, &pte_cm_conv_kernels_count},
    {pte_cm_pool_kernels, &pte_cm_pool_kernels_count},
};
#define CM_N_FAMILIES (sizeof k_cm_families / sizeof k_cm_families[0])

pte_status pte_register_cortex_m_kernels(void) {
  /* idempotent without global state: registered iff the first kernel is */
  const pte_kernel *first = &k_cm_families[0].kernels[0];
  for (size_t i = 0; i < pte_num_registered_kernels(); i++) {
    const pte_kernel *k = pte_registered_kernel(i);
    if (k->fn == first->fn && k->key == NULL) return PTE_OK;
  }
  for (size_t f = 0; f < CM_N_FAMILIES; f++) {
    pte_status s = pte_register_kernels(k_cm_families[f].kernels, *k_cm_families[f].count);
    if (s != PTE_OK) return s;
  }
  return PTE_OK;
}

size_t pte_cortex_m_kernel_count(void) {
  size_t n = 0;
  for (size_t f = 0; f < CM_N_FAMILIES; f++) n += *k_cm_families[f].count;
  return n;
}

const pte_kernel *pte_cortex_m_kernel(size_t i) {
  for (size_t f = 0; f < CM_N_FAMILIES; f++) {
    if (i < *k_cm_families[f].count) return &k_cm_families[f].kernels[i];
    i -= *k_cm_families[f].count;
  }
  return NULL;
}
