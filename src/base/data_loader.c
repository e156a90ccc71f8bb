/* Loader wrappers, FreeableBuffer, and the buffer loader (core: no OS calls). */
#include <string.h>

#include "pte/data_loader.h"

void pte_freeable_buffer_free(pte_freeable_buffer *b) {
  if (!b) return;
  if (b->data && b->free_fn) b->free_fn(b->free_ctx, b->data, b->size);
  b->data = NULL;
  b->size = 0;
  b->free_fn = NULL;
  b->free_ctx = NULL;
}

pte_status pte_data_loader_load(const pte_data_loader *l, uint64_t offset, size_t size,
                                const pte_segment_info *info, pte_freeable_buffer *out) {
  if (!l || !l->vt || !l->vt->load || !out) return PTE_ERR_INVALID_ARGUMENT;
  *out = pte_freeable_buffer_view(NULL, 0);
  pte_segment_info def = {PTE_SEGMENT_PROGRAM, 0, NULL};
  return l->vt->load(l, offset, size, info ? info : &def, out);
}

pte_status pte_data_loader_load_into(const pte_data_loader *l, uint64_t offset, size_t size,
                                     const pte_segment_info *info, void *dst) {
  if (!l || !l->vt || (!dst && size)) return PTE_ERR_INVALID_ARGUMENT;
  pte_segment_info def = {PTE_SEGMENT_PROGRAM, 0, NULL};
  if (!info) info = &def;
  if (l->vt->load_into) return l->vt->load_into(l, offset, size, info, dst);
  pte_freeable_buffer b;
  pte_status s = pte_data_loader_load(l, offset, size, info, &b);
  if (s != PTE_OK) return s;
  if (b.size < size) {
    pte_freeable_buffer_free(&b);
    return PTE_ERR_ACCESS_FAILED;
  }
  if (size) memcpy(dst, b.data, size);
  pte_freeable_buffer_free(&b);
  return PTE_OK;
}

pte_status pte_data_loader_size(const pte_data_loader *l, uint64_t *out_size) {
  if (!l || !l->vt || !l->vt->size || !out_size) return PTE_ERR_INVALID_ARGUMENT;
  return l->vt->size(l, out_size);
}

static pte_status buf_check(const pte_buffer_loader *b, uint64_t offset, size_t size) {
  if (offset > b->size || size > b->size - offset) return PTE_ERR_INVALID_ARGUMENT;
  return PTE_OK;
}

static pte_status buf_load(const pte_data_loader *self, uint64_t offset, size_t size,
                           const pte_segment_info *info, pte_freeable_buffer *out) {
  (void)info;
  const pte_buffer_loader *b = (const pte_buffer_loader *)self;
  pte_status s = buf_check(b, offset, size);
  if (s != PTE_OK) return s;
  *out = pte_freeable_buffer_view(size ? b->data + offset : NULL, size);
  return PTE_OK;
}

static pte_status buf_load_into(const pte_data_loader *self, uint64_t offset, size_t size,
                                const pte_segment_info *info, void *dst) {
  (void)info;
  const pte_buffer_loader *b = (const pte_buffer_loader *)self;
  pte_status s = buf_check(b, offset, size);
  if (s != PTE_OK) return s;
  if (size) memcpy(dst, b->data + offset, size);
  return PTE_OK;
}

static pte_status buf_size(const pte_data_loader *self, uint64_t *out) {
  *out = ((const pte_buffer_loader *)self)->size;
  return PTE_OK;
}

static const pte_data_loader_vtable buffer_vt = {buf_load, buf_load_into, buf_size};

void pte_buffer_loader_init(pte_buffer_loader *l, const void *data, size_t size) {
  l->base.vt = &buffer_vt;
  l->data = (const uint8_t *)data;
  l->size = data ? size : 0;
}
