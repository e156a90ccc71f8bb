/* Window loader: a sub-range of another loader (core: no OS calls, no allocation). */
#include "pte/data_loader.h"

static pte_status win_check(const pte_window_loader *w, uint64_t offset, size_t size) {
  if (offset > w->size || (uint64_t)size > w->size - offset) return PTE_ERR_INVALID_ARGUMENT;
  return PTE_OK;
}

static pte_status win_load(const pte_data_loader *self, uint64_t offset, size_t size,
                           const pte_segment_info *info, pte_freeable_buffer *out) {
  const pte_window_loader *w = (const pte_window_loader *)self;
  pte_status s = win_check(w, offset, size);
  if (s != PTE_OK) return s;
  if (size == 0) {
    *out = pte_freeable_buffer_view(NULL, 0);
    return PTE_OK;
  }
  return pte_data_loader_load(w->inner, w->offset + offset, size, info, out);
}

static pte_status win_load_into(const pte_data_loader *self, uint64_t offset, size_t size,
                                const pte_segment_info *info, void *dst) {
  const pte_window_loader *w = (const pte_window_loader *)self;
  pte_status s = win_check(w, offset, size);
  if (s != PTE_OK) return s;
  if (size == 0) return PTE_OK;
  return pte_data_loader_load_into(w->inner, w->offset + offset, size, info, dst);
}

static pte_status win_size(const pte_data_loader *self, uint64_t *out) {
  *out = ((const pte_window_loader *)self)->size;
  return PTE_OK;
}

static const pte_data_loader_vtable window_vt = {win_load, win_load_into, win_size};

pte_status pte_window_loader_init(pte_window_loader *w, const pte_data_loader *inner,
                                  uint64_t offset, uint64_t size) {
  if (!w || !inner) return PTE_ERR_INVALID_ARGUMENT;
  w->base.vt = &window_vt;
  w->inner = inner;
  w->offset = 0;
  w->size = 0;
  uint64_t inner_size = 0;
  pte_status s = pte_data_loader_size(inner, &inner_size);
  if (s != PTE_OK) return s;
  if (offset > inner_size || size > inner_size - offset) return PTE_ERR_INVALID_ARGUMENT;
  w->offset = offset;
  w->size = size;
  return PTE_OK;
}
