/* run_model.c — load a .pte, run "forward" on all-ones float inputs, print the float outputs.
 *   run_model model.pte        (x + 1 on a float[3] input prints "output 0: 2 2 2") */
#include <stdio.h>
#include <stdlib.h>
#include "pte/backend_xnnpack.h"
#include "pte/io.h"
#include "pte/method.h"
#include "pte/portable_kernels.h"
#include "pte/program.h"

#define MAX 16 /* planned buffers / inputs handled */
int main(int argc, char **argv) {
  pte_error_info err;
  pte_file_loader fl;
  pte_program prog;
  pte_method_meta meta;  /* (error handling shortened: the process exits on failure) */
  if (argc != 2) return fprintf(stderr, "usage: %s model.pte\n", argv[0]), 2;
  if (pte_file_loader_open(&fl, argv[1], 0, &err) != PTE_OK ||
      pte_program_load(&fl.base, PTE_VERIFY_INTERNAL_CONSISTENCY, &prog, &err) != PTE_OK ||
      pte_method_meta_get(&prog, "forward", &meta, &err) != PTE_OK)
    return fprintf(stderr, "%s: %s\n", argv[1], err.msg), 1;
  pte_register_portable_kernels(), pte_register_xnnpack_backend(); /* what the models need */
  /* All memory is the caller's: one buffer per planned arena + an arena for the method itself. */
  size_t nb = pte_method_meta_num_planned_buffers(&meta), nin = pte_method_meta_num_inputs(&meta);
  pte_planned_buffer bufs[MAX];
  for (size_t i = 0; i < nb && i < MAX; i++) {
    uint64_t size = 0;
    pte_method_meta_planned_buffer_size(&meta, i, &size);
    bufs[i] = (pte_planned_buffer){calloc(1, (size_t)size + 1), (size_t)size};
  }
  static unsigned char pool_mem[4 << 20];
  pte_allocator pool;
  pte_allocator_init(&pool, pool_mem, sizeof pool_mem);
  pte_memory_manager mm;
  pte_memory_manager_init(&mm, &pool, bufs, nb < MAX ? nb : MAX, NULL);
  pte_method *m;
  if (pte_method_load(&prog, "forward", &mm, NULL, NULL, &m, &err) != PTE_OK)
    return fprintf(stderr, "forward: %s\n", err.msg), 1;
  float *ones[MAX] = {0};
  for (size_t i = 0; i < nin && i < MAX; i++) {
    pte_tensor_info ti;
    if (pte_method_meta_input_tensor_info(&meta, i, &ti) != PTE_OK || ti.dtype != PTE_DTYPE_FLOAT) continue;
    ones[i] = malloc(ti.nbytes + 1);
    for (size_t k = 0; k < ti.nbytes / sizeof(float); k++) ones[i][k] = 1.0f;
    if (pte_method_set_input_tensor(m, i, PTE_DTYPE_FLOAT, ti.sizes, ti.dim, ones[i], ti.nbytes, &err) != PTE_OK)
      return fprintf(stderr, "input %zu: %s\n", i, err.msg), 1;
  }
  if (pte_method_execute(m, &err) != PTE_OK) return fprintf(stderr, "execute: %s\n", err.msg), 1;
  for (size_t i = 0; i < pte_method_num_outputs(m); i++) {
    const pte_evalue *v = pte_method_get_output(m, i);
    printf("output %zu:", i);
    for (size_t k = 0; v->tag == PTE_TAG_TENSOR && v->u.tensor->dtype == PTE_DTYPE_FLOAT && k < v->u.tensor->numel; k++)
      printf(" %g", ((const float *)v->u.tensor->data)[k]);
    printf("\n");
  }
  pte_method_destroy(m), pte_program_destroy(&prog), pte_file_loader_close(&fl);
  for (size_t i = 0; i < MAX; i++) free(ones[i]), free(i < nb ? bufs[i].data : NULL);
  return 0;
}
