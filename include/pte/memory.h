/* pte/memory.h — the memory a method runs in (upstream MemoryManager).
 *
 * A method needs three kinds of memory, all provided by the caller:
 *
 *   method allocator  every object built at load time: the value table, tensors (sizes, strides),
 *                     argument arrays, delegate state... It must outlive the method. Its peak use
 *                     (pte_allocator.peak) after loading tells the caller how much to give next time.
 *   planned buffers   one buffer per entry of the program's non_const_buffer_sizes (skipping the
 *                     reserved entry 0): buffer i backs memory_id i+1. Memory-planned tensors
 *                     (activations, planned inputs/outputs, mutable state) live at fixed offsets in
 *                     them, so tensors that share an offset alias each other, exactly as the exporter
 *                     planned. pte_method_meta_planned_buffer_size() gives the sizes before loading.
 *   temp allocator    optional scratch for kernels and delegates, reset after every instruction. If
 *                     NULL, pte_method_load_ex() carves an arena of `temp_arena_size` bytes (see
 *                     pte_method_options) out of the method allocator, or gives kernels no temp
 *                     memory at all when that size is 0 (the default).
 *
 *   static uint8_t method_pool[16 * 1024], arena[4096];
 *   pte_allocator ma;
 *   pte_allocator_init(&ma, method_pool, sizeof method_pool);
 *   pte_planned_buffer planned[1] = {{arena, sizeof arena}};
 *   pte_memory_manager mm;
 *   pte_memory_manager_init(&mm, &ma, planned, 1, NULL);
 *
 * The structure only points at caller memory; it may be a temporary (the method copies it).
 */
#ifndef PTE_MEMORY_H
#define PTE_MEMORY_H

#include <stddef.h>
#include <stdint.h>

#include "pte/allocator.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One memory-planned buffer. `data` may be NULL only when `size` is 0. */
typedef struct pte_planned_buffer {
  void *data;
  size_t size;
} pte_planned_buffer;

typedef struct pte_memory_manager {
  pte_allocator *method_allocator;  /* required */
  const pte_planned_buffer *planned; /* [n_planned]; planned[i] backs memory_id i + 1 */
  size_t n_planned;
  pte_allocator *temp_allocator;    /* optional; must differ from method_allocator */
} pte_memory_manager;

static inline void pte_memory_manager_init(pte_memory_manager *mm, pte_allocator *method_allocator,
                                           const pte_planned_buffer *planned, size_t n_planned,
                                           pte_allocator *temp_allocator) {
  mm->method_allocator = method_allocator;
  mm->planned = planned;
  mm->n_planned = n_planned;
  mm->temp_allocator = temp_allocator;
}

#ifdef __cplusplus
}
#endif
#endif
