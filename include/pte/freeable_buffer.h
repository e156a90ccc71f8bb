/* pte/freeable_buffer.h — a view of bytes that may own them.
 *
 * Data loaders return FreeableBuffers: a buffer loader returns a non-owning view (free_fn NULL),
 * a file loader returns heap bytes it frees, an mmap loader returns a mapping it unmaps.
 */
#ifndef PTE_FREEABLE_BUFFER_H
#define PTE_FREEABLE_BUFFER_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef void (*pte_free_fn)(void *ctx, const void *data, size_t size);

typedef struct pte_freeable_buffer {
  const void *data;
  size_t size;
  pte_free_fn free_fn; /* NULL: not owned */
  void *free_ctx;
} pte_freeable_buffer;

/* Calls free_fn once (if set and data non-NULL), then clears the buffer. Safe to call twice. */
void pte_freeable_buffer_free(pte_freeable_buffer *b);

static inline pte_freeable_buffer pte_freeable_buffer_view(const void *data, size_t size) {
  pte_freeable_buffer b = {data, size, (pte_free_fn)0, (void *)0};
  return b;
}

#ifdef __cplusplus
}
#endif
#endif
