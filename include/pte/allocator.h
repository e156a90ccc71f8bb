/* pte/allocator.h — caller-provided memory.
 *
 * pte's core never calls malloc. Every object the runtime builds comes from a pte_allocator, a
 * bump allocator over a buffer the caller owns (static array, stack, arena, heap — the caller
 * decides). Allocation is O(1); memory is released all at once with pte_allocator_reset().
 */
#ifndef PTE_ALLOCATOR_H
#define PTE_ALLOCATOR_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pte_allocator {
  uint8_t *base;
  size_t size;
  size_t used;
  size_t peak; /* high-water mark of `used`, for sizing reports */
} pte_allocator;

/* Initialise over [base, base+size). */
void pte_allocator_init(pte_allocator *a, void *base, size_t size);

/* Returns `size` bytes aligned to `align` (a power of two; 0 means alignof(max_align_t)), or NULL
 * when the allocator is exhausted or `align` is not a power of two. size 0 returns a valid
 * non-NULL pointer. */
void *pte_allocator_alloc(pte_allocator *a, size_t size, size_t align);

/* Like pte_allocator_alloc, for `count` elements of `elem_size` (NULL on overflow). */
void *pte_allocator_alloc_array(pte_allocator *a, size_t count, size_t elem_size, size_t align);

/* Releases everything allocated so far. */
void pte_allocator_reset(pte_allocator *a);

#define PTE_ALLOC_ARRAY(a, type, count) \
  ((type *)pte_allocator_alloc_array((a), (count), sizeof(type), _Alignof(type)))
#define PTE_ALLOC(a, type) ((type *)pte_allocator_alloc((a), sizeof(type), _Alignof(type)))

#ifdef __cplusplus
}
#endif
#endif
