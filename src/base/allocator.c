#include "pte/allocator.h"

#include <stddef.h>

void pte_allocator_init(pte_allocator *a, void *base, size_t size) {
  a->base = (uint8_t *)base;
  a->size = base ? size : 0;
  a->used = 0;
  a->peak = 0;
}

void *pte_allocator_alloc(pte_allocator *a, size_t size, size_t align) {
  if (!a) return NULL;
  if (align == 0) align = _Alignof(max_align_t);
  if (align & (align - 1)) return NULL;
  uintptr_t cur = (uintptr_t)a->base + a->used;
  uintptr_t pad = (align - (cur & (align - 1))) & (align - 1);
  if (!a->base || pad > a->size - a->used) return NULL;
  size_t start = a->used + pad;
  if (size > a->size - start) return NULL;
  a->used = start + size;
  if (a->used > a->peak) a->peak = a->used;
  return a->base + start;
}

void *pte_allocator_alloc_array(pte_allocator *a, size_t count, size_t elem_size, size_t align) {
  if (elem_size && count > SIZE_MAX / elem_size) return NULL;
  return pte_allocator_alloc(a, count * elem_size, align);
}

void pte_allocator_reset(pte_allocator *a) {
  if (a) a->used = 0;
}
