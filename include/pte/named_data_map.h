/* pte/named_data_map.h — data looked up by name: a .ptd file, a program's named_data, or both.
 *
 * Delegates fetch their weights by key (e.g. the sha256 hex digest XNNPACK exports use) and
 * EXTERNAL tensors are resolved by fully-qualified name through this interface.
 */
#ifndef PTE_NAMED_DATA_MAP_H
#define PTE_NAMED_DATA_MAP_H

#include <stddef.h>
#include <stdint.h>

#include "pte/freeable_buffer.h"
#include "pte/status.h"
#include "pte/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pte_tensor_layout {
  uint8_t dtype;            /* pte_dtype */
  int32_t dim;
  const int32_t *sizes;     /* [dim] */
  const uint8_t *dim_order; /* [dim] */
  size_t nbytes;
} pte_tensor_layout;

typedef struct pte_named_data_map pte_named_data_map;

typedef struct pte_named_data_map_vtable {
  /* Layout of a tensor entry. PTE_ERR_NOT_FOUND: no such key; PTE_ERR_NOT_IMPLEMENTED: this map
   * holds opaque blobs only (a .pte's named_data); PTE_ERR_INVALID_EXTERNAL_DATA: entry has no
   * or a malformed layout. */
  pte_status (*get_tensor_layout)(const pte_named_data_map *m, const char *key, pte_tensor_layout *out);
  /* Bytes of an entry (NotFound if absent). The caller frees *out. */
  pte_status (*get_data)(const pte_named_data_map *m, const char *key, pte_freeable_buffer *out);
  /* Copies an entry into buf (size must equal the entry's size). */
  pte_status (*load_data_into)(const pte_named_data_map *m, const char *key, void *buf, size_t size);
  pte_status (*num_keys)(const pte_named_data_map *m, uint32_t *out);
  pte_status (*get_key)(const pte_named_data_map *m, uint32_t index, const char **out);
} pte_named_data_map_vtable;

struct pte_named_data_map {
  const pte_named_data_map_vtable *vt;
};

/* Null-safe wrappers: a NULL map (or one without a vtable) gives PTE_ERR_NOT_FOUND, a NULL vtable
 * slot PTE_ERR_NOT_IMPLEMENTED, a NULL key / output (or NULL buf with size > 0)
 * PTE_ERR_INVALID_ARGUMENT; otherwise the map's own answer. pte_named_data_map_get_data clears *out
 * first. */
pte_status pte_named_data_map_get_tensor_layout(const pte_named_data_map *m, const char *key, pte_tensor_layout *out);
pte_status pte_named_data_map_get_data(const pte_named_data_map *m, const char *key, pte_freeable_buffer *out);
pte_status pte_named_data_map_load_data_into(const pte_named_data_map *m, const char *key, void *buf, size_t size);
pte_status pte_named_data_map_num_keys(const pte_named_data_map *m, uint32_t *out);
pte_status pte_named_data_map_get_key(const pte_named_data_map *m, uint32_t index, const char **out);
/* Deprecated names, kept so existing code compiles: */
#define pte_ndm_get_tensor_layout pte_named_data_map_get_tensor_layout
#define pte_ndm_get_data pte_named_data_map_get_data
#define pte_ndm_load_data_into pte_named_data_map_load_data_into
#define pte_ndm_num_keys pte_named_data_map_num_keys
#define pte_ndm_get_key pte_named_data_map_get_key

/* Two maps searched in order (upstream MergedDataMap; the runtime gives delegates a merged map of
 * the external .ptd map first and the program's own named data second). get_tensor_layout,
 * get_data and load_data_into ask `first` and go to `second` only when `first` says
 * PTE_ERR_NOT_FOUND (any other answer, success or error, is final). num_keys is the sum; get_key
 * numbers first's keys, then second's (PTE_ERR_INVALID_ARGUMENT past the end). Either map may be
 * NULL (it then has no keys). Differences from upstream: load_data_into falls through like the
 * other lookups instead of returning NotImplemented, and keys present in both maps are not
 * rejected (the first map wins). The merged map only points at the two maps: they must outlive
 * it. */
typedef struct pte_merged_data_map {
  pte_named_data_map base;
  const pte_named_data_map *first;
  const pte_named_data_map *second;
} pte_merged_data_map;

/* Initialises *m over `first` and `second` (no allocation; nothing to destroy). Use &m->base. */
void pte_merged_data_map_init(pte_merged_data_map *m, const pte_named_data_map *first,
                              const pte_named_data_map *second);

#ifdef __cplusplus
}
#endif
#endif
