/* named_data_map.c — null-safe NamedDataMap wrappers and the merged (two-level) map. Core code. */
#include <stddef.h>

#include "pte/named_data_map.h"

pte_status pte_named_data_map_get_tensor_layout(const pte_named_data_map *m, const char *key, pte_tensor_layout *out) {
  if (!m || !m->vt) return PTE_ERR_NOT_FOUND;
  if (!key || !out) return PTE_ERR_INVALID_ARGUMENT;
  if (!m->vt->get_tensor_layout) return PTE_ERR_NOT_IMPLEMENTED;
  return m->vt->get_tensor_layout(m, key, out);
}

pte_status pte_named_data_map_get_data(const pte_named_data_map *m, const char *key, pte_freeable_buffer *out) {
  if (!m || !m->vt) return PTE_ERR_NOT_FOUND;
  if (!key || !out) return PTE_ERR_INVALID_ARGUMENT;
  *out = pte_freeable_buffer_view(NULL, 0);
  if (!m->vt->get_data) return PTE_ERR_NOT_IMPLEMENTED;
  return m->vt->get_data(m, key, out);
}

pte_status pte_named_data_map_load_data_into(const pte_named_data_map *m, const char *key, void *buf, size_t size) {
  if (!m || !m->vt) return PTE_ERR_NOT_FOUND;
  if (!key || (!buf && size)) return PTE_ERR_INVALID_ARGUMENT;
  if (!m->vt->load_data_into) return PTE_ERR_NOT_IMPLEMENTED;
  return m->vt->load_data_into(m, key, buf, size);
}

pte_status pte_named_data_map_num_keys(const pte_named_data_map *m, uint32_t *out) {
  if (!m || !m->vt) return PTE_ERR_NOT_FOUND;
  if (!out) return PTE_ERR_INVALID_ARGUMENT;
  if (!m->vt->num_keys) return PTE_ERR_NOT_IMPLEMENTED;
  return m->vt->num_keys(m, out);
}

pte_status pte_named_data_map_get_key(const pte_named_data_map *m, uint32_t index, const char **out) {
  if (!m || !m->vt) return PTE_ERR_NOT_FOUND;
  if (!out) return PTE_ERR_INVALID_ARGUMENT;
  if (!m->vt->get_key) return PTE_ERR_NOT_IMPLEMENTED;
  return m->vt->get_key(m, index, out);
}

/* ------------------------------------------------------------------ merged map */

static const pte_merged_data_map *as_merged(const pte_named_data_map *m) {
  return (const pte_merged_data_map *)m;
}

static pte_status mdm_get_tensor_layout(const pte_named_data_map *m, const char *key, pte_tensor_layout *out) {
  const pte_merged_data_map *mm = as_merged(m);
  pte_status s = pte_named_data_map_get_tensor_layout(mm->first, key, out);
  if (s != PTE_ERR_NOT_FOUND) return s;
  return pte_named_data_map_get_tensor_layout(mm->second, key, out);
}

static pte_status mdm_get_data(const pte_named_data_map *m, const char *key, pte_freeable_buffer *out) {
  const pte_merged_data_map *mm = as_merged(m);
  pte_status s = pte_named_data_map_get_data(mm->first, key, out);
  if (s != PTE_ERR_NOT_FOUND) return s;
  return pte_named_data_map_get_data(mm->second, key, out);
}

static pte_status mdm_load_data_into(const pte_named_data_map *m, const char *key, void *buf, size_t size) {
  const pte_merged_data_map *mm = as_merged(m);
  pte_status s = pte_named_data_map_load_data_into(mm->first, key, buf, size);
  if (s != PTE_ERR_NOT_FOUND) return s;
  return pte_named_data_map_load_data_into(mm->second, key, buf, size);
}

/* Keys of a map that is absent count as zero. */
static pte_status count_keys(const pte_named_data_map *m, uint32_t *n) {
  *n = 0;
  if (!m) return PTE_OK;
  return pte_named_data_map_num_keys(m, n);
}

static pte_status mdm_num_keys(const pte_named_data_map *m, uint32_t *out) {
  const pte_merged_data_map *mm = as_merged(m);
  uint32_t a, b;
  pte_status s = count_keys(mm->first, &a);
  if (s != PTE_OK) return s;
  s = count_keys(mm->second, &b);
  if (s != PTE_OK) return s;
  if (a > UINT32_MAX - b) return PTE_ERR_OUT_OF_RESOURCES;
  *out = a + b;
  return PTE_OK;
}

static pte_status mdm_get_key(const pte_named_data_map *m, uint32_t index, const char **out) {
  const pte_merged_data_map *mm = as_merged(m);
  uint32_t a;
  pte_status s = count_keys(mm->first, &a);
  if (s != PTE_OK) return s;
  if (index < a) return pte_named_data_map_get_key(mm->first, index, out);
  if (!mm->second) return PTE_ERR_INVALID_ARGUMENT;
  return pte_named_data_map_get_key(mm->second, index - a, out);
}

static const pte_named_data_map_vtable merged_vt = {mdm_get_tensor_layout, mdm_get_data, mdm_load_data_into,
                                                    mdm_num_keys, mdm_get_key};

void pte_merged_data_map_init(pte_merged_data_map *m, const pte_named_data_map *first,
                              const pte_named_data_map *second) {
  if (!m) return;
  m->base.vt = &merged_vt;
  m->first = first;
  m->second = second;
}
