/* pte_heap_realloc: a realloc callback over the C heap for builders and writers. */
#include <stdlib.h>

#include "pte/io.h"

void *pte_heap_realloc(void *ctx, void *ptr, size_t old_size, size_t new_size) {
  (void)ctx;
  (void)old_size;
  if (new_size == 0) {
    free(ptr);
    return NULL;
  }
  return realloc(ptr, new_size);
}
