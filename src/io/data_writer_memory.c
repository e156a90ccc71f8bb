/* data_writer_memory.c — the pte_data_writer wrappers and the memory writer (no OS calls, no
 * direct heap use: growth goes through the caller's realloc callback). */
#include <string.h>

#include "pte/data_writer.h"

/* ------------------------------------------------------------------ wrappers */
pte_status pte_data_writer_write(pte_data_writer *w, const void *data, size_t size, uint64_t offset,
                                 pte_error_info *err) {
  if (!w || !w->vt || !w->vt->write)
    return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "data writer: NULL writer");
  if (size == 0) return PTE_OK;
  if (!data) return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "data writer: NULL data for %zu bytes", size);
  if (offset > UINT64_MAX - (uint64_t)size)
    return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "data writer: offset %llu + size %zu overflows",
                         (unsigned long long)offset, size);
  return w->vt->write(w, data, size, offset, err);
}

pte_status pte_data_writer_set_size(pte_data_writer *w, uint64_t size, pte_error_info *err) {
  if (!w || !w->vt) return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "data writer: NULL writer");
  if (!w->vt->set_size) return pte_error_set(err, PTE_ERR_NOT_SUPPORTED, "data writer: set_size not supported");
  return w->vt->set_size(w, size, err);
}

pte_status pte_data_writer_reserve(pte_data_writer *w, uint64_t size, pte_error_info *err) {
  if (!w || !w->vt) return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "data writer: NULL writer");
  if (!w->vt->reserve) return PTE_OK;
  return w->vt->reserve(w, size, err);
}

pte_status pte_data_writer_publish(pte_data_writer *w, pte_error_info *err) {
  if (!w || !w->vt || !w->vt->publish)
    return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "data writer: NULL writer");
  return w->vt->publish(w, err);
}

void pte_data_writer_destroy(pte_data_writer *w) {
  if (w && w->vt && w->vt->destroy) w->vt->destroy(w);
}

/* ------------------------------------------------------------------ memory writer */
static pte_status mw_reserve(pte_memory_writer *m, uint64_t end, pte_error_info *err) {
  if (end > (uint64_t)SIZE_MAX || (m->max_size && end > m->max_size))
    return pte_error_set(err, PTE_ERR_OUT_OF_RESOURCES, "memory writer: output of %llu bytes exceeds the limit of %zu",
                         (unsigned long long)end, m->max_size ? m->max_size : (size_t)SIZE_MAX);
  if (end <= m->capacity) return PTE_OK;
  if (!m->realloc_fn)
    return pte_error_set(err, PTE_ERR_OUT_OF_RESOURCES, "memory writer: output of %llu bytes exceeds the buffer (%zu bytes)",
                         (unsigned long long)end, m->capacity);
  size_t want = (size_t)end;
  size_t cap = m->capacity ? m->capacity : 4096;
  while (cap < want) cap = (cap > SIZE_MAX / 2) ? want : cap * 2;
  if (m->max_size && cap > m->max_size) cap = m->max_size;
  if (cap < want) cap = want;
  uint8_t *p = (uint8_t *)m->realloc_fn(m->realloc_ctx, m->data, m->capacity, cap);
  if (!p) return pte_error_set(err, PTE_ERR_MEMORY_ALLOCATION_FAILED, "memory writer: cannot grow to %zu bytes", cap);
  memset(p + m->capacity, 0, cap - m->capacity);
  m->data = p;
  m->capacity = cap;
  return PTE_OK;
}

static pte_status mw_write(pte_data_writer *self, const void *data, size_t size, uint64_t offset,
                           pte_error_info *err) {
  pte_memory_writer *m = (pte_memory_writer *)self;
  if (m->published || m->destroyed) return pte_error_set(err, PTE_ERR_INVALID_STATE, "memory writer: already published");
  uint64_t end = offset + size;
  pte_status s = mw_reserve(m, end, err);
  if (s != PTE_OK) return s;
  memcpy(m->data + offset, data, size);
  if (end > m->size) m->size = (size_t)end;
  return PTE_OK;
}

static pte_status mw_set_size(pte_data_writer *self, uint64_t size, pte_error_info *err) {
  pte_memory_writer *m = (pte_memory_writer *)self;
  if (m->published || m->destroyed) return pte_error_set(err, PTE_ERR_INVALID_STATE, "memory writer: already published");
  pte_status s = mw_reserve(m, size, err);
  if (s != PTE_OK) return s;
  if (size < m->size) memset(m->data + size, 0, m->size - (size_t)size); /* truncated bytes read as 0 again */
  m->size = (size_t)size;
  return PTE_OK;
}

static pte_status mw_reserve_hook(pte_data_writer *self, uint64_t size, pte_error_info *err) {
  pte_memory_writer *m = (pte_memory_writer *)self;
  if (m->published || m->destroyed) return pte_error_set(err, PTE_ERR_INVALID_STATE, "memory writer: already published");
  return mw_reserve(m, size, err); /* one allocation instead of repeated doubling */
}

static pte_status mw_publish(pte_data_writer *self, pte_error_info *err) {
  pte_memory_writer *m = (pte_memory_writer *)self;
  if (m->destroyed) return pte_error_set(err, PTE_ERR_INVALID_STATE, "memory writer: destroyed");
  m->published = true;
  return PTE_OK;
}

static void mw_destroy(pte_data_writer *self) {
  pte_memory_writer *m = (pte_memory_writer *)self;
  if (m->destroyed) return;
  if (m->realloc_fn && m->data) m->realloc_fn(m->realloc_ctx, m->data, m->capacity, 0);
  if (m->realloc_fn) {
    m->data = NULL;
    m->capacity = 0;
  }
  m->size = 0;
  m->destroyed = true;
}

static const pte_data_writer_vtable k_mw_vt = {
    .write = mw_write, .set_size = mw_set_size, .publish = mw_publish, .destroy = mw_destroy, .reserve = mw_reserve_hook};

pte_status pte_memory_writer_init(pte_memory_writer *w, pte_writer_realloc_fn realloc_fn, void *ctx,
                                  size_t max_size) {
  if (!w || !realloc_fn) return PTE_ERR_INVALID_ARGUMENT;
  memset(w, 0, sizeof *w);
  w->base.vt = &k_mw_vt;
  w->realloc_fn = realloc_fn;
  w->realloc_ctx = ctx;
  w->max_size = max_size;
  return PTE_OK;
}

pte_status pte_memory_writer_init_fixed(pte_memory_writer *w, void *buf, size_t capacity) {
  if (!w || (!buf && capacity)) return PTE_ERR_INVALID_ARGUMENT;
  memset(w, 0, sizeof *w);
  w->base.vt = &k_mw_vt;
  w->data = (uint8_t *)buf;
  w->capacity = capacity;
  if (capacity) memset(buf, 0, capacity);
  return PTE_OK;
}

const uint8_t *pte_memory_writer_data(const pte_memory_writer *w, size_t *size) {
  if (size) *size = w ? w->size : 0;
  return w ? w->data : NULL;
}

bool pte_memory_writer_published(const pte_memory_writer *w) { return w && w->published; }
