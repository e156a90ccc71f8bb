/* Registration of the custom operator library (include/pte/custom_kernels.h). */
#include "pte/custom_kernels.h"

#include "custom/custom_ops.h"

typedef struct custom_family {
  const pte_kernel *kernels;
  const size_t *count;
} custom_family;

static const custom_family k_custom_families[] = {
    {pte_custom_lstm_kernels, &pte_custom_lstm_kernels_count},
    {pte_custom_cadence_kernels, &pte_custom_cadence_kernels_count},
};
#define CUSTOM_N_FAMILIES (sizeof k_custom_families / sizeof k_custom_families[0])

pte_status pte_register_custom_kernels(void) {
  /* idempotent without global state: registered iff the first kernel is */
  const pte_kernel *first = &k_custom_families[0].kernels[0];
  for (size_t i = 0; i < pte_num_registered_kernels(); i++) {
    const pte_kernel *k = pte_registered_kernel(i);
    if (k->fn == first->fn && k->key == NULL) return PTE_OK;
  }
  for (size_t f = 0; f < CUSTOM_N_FAMILIES; f++) {
    pte_status s = pte_register_kernels(k_custom_families[f].kernels, *k_custom_families[f].count);
    if (s != PTE_OK) return s;
  }
  return PTE_OK;
}

size_t pte_custom_kernel_count(void) {
  size_t n = 0;
  for (size_t f = 0; f < CUSTOM_N_FAMILIES; f++) n += *k_custom_families[f].count;
  return n;
}

const pte_kernel *pte_custom_kernel(size_t i) {
  for (size_t f = 0; f < CUSTOM_N_FAMILIES; f++) {
    if (i < *k_custom_families[f].count) return &k_custom_families[f].kernels[i];
    i -= *k_custom_families[f].count;
  }
  return NULL;
}
