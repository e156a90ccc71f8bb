/* Registration of every portable kernel family. */
#include "pte/portable_kernels.h"

#include "portable/portable_activation.h"
#include "portable/portable_binary.h"
#include "portable/portable_bitwise.h"
#include "portable/portable_compare.h"
#include "portable/portable_copy.h"
#include "portable/portable_index.h"
#include "portable/portable_math.h"
#include "portable/portable_nn.h"
#include "portable/portable_reduce.h"
#include "portable/portable_shape.h"
#include "portable/portable_unary.h"
#include "portable/portable_view.h"
#include "portable/portable_rearrange.h"
#include "portable/portable_scatter.h"
#include "portable/portable_pad.h"
#include "portable/portable_creation.h"

typedef struct family {
  const pte_kernel *kernels;
  const size_t *count;
} family;

#define FAMILY(name) {pte_portable_##name##_kernels, &pte_portable_##name##_kernels_count}

static const family k_families[] = {
    FAMILY(binary), FAMILY(unary),  FAMILY(activation), FAMILY(compare), FAMILY(copy),
    FAMILY(shape),  FAMILY(index),  FAMILY(reduce),     FAMILY(linalg),  FAMILY(conv),
    FAMILY(pool),   FAMILY(norm),   FAMILY(softmax),
    FAMILY(umath),   FAMILY(bitwise),
    FAMILY(view),   FAMILY(rearrange), FAMILY(scatter), FAMILY(pad), FAMILY(creation),
    FAMILY(var),    FAMILY(distance), FAMILY(upsample), FAMILY(grid_sample),
    FAMILY(conv_backward),
};

#define N_FAMILIES (sizeof k_families / sizeof k_families[0])

pte_status pte_register_portable_kernels(void) {
  /* Idempotence without global state: the library is registered iff its first kernel is. */
  const pte_kernel *first = &k_families[0].kernels[0];
  for (size_t i = 0; i < pte_num_registered_kernels(); i++) {
    const pte_kernel *k = pte_registered_kernel(i);
    if (k->fn == first->fn && k->key == NULL) return PTE_OK;
  }
  for (size_t f = 0; f < N_FAMILIES; f++) {
    pte_status s = pte_register_kernels(k_families[f].kernels, *k_families[f].count);
    if (s != PTE_OK) return s;
  }
  return PTE_OK;
}

size_t pte_portable_kernel_count(void) {
  size_t n = 0;
  for (size_t f = 0; f < N_FAMILIES; f++) n += *k_families[f].count;
  return n;
}

const pte_kernel *pte_portable_kernel(size_t i) {
  for (size_t f = 0; f < N_FAMILIES; f++) {
    if (i < *k_families[f].count) return &k_families[f].kernels[i];
    i -= *k_families[f].count;
  }
  return NULL;
}
