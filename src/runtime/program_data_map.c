/* program_data_map.c — the named data a .pte carries itself (Program.named_data, each entry a
 * segment), as a pte_named_data_map (pte_program_named_data_map; core: no allocation, no stdio). */
#include <stdint.h>
#include <string.h>

#include "format/flatbuf.h"
#include "pte/headers.h"
#include "pte/program.h"
#include "pte/tensor.h"
#include "pte_gen/program_gen.h"
#include "runtime/prog_internal.h"

static pte_status pdm_find(const pte_program *p, const char *key, uint32_t *seg) {
  if (!key) return PTE_ERR_INVALID_ARGUMENT;
  pte_fb_vec named = pte_et_Program_named_data(pte_rt_program_root(p));
  uint32_t i = p->named_data_sorted ? pte_rt_find_key_sorted(named, pte_et_NamedData_key_SLOT, key)
                                     : pte_rt_find_key(named, pte_et_NamedData_key_SLOT, key);
  if (i == UINT32_MAX) return PTE_ERR_NOT_FOUND;
  *seg = pte_et_NamedData_segment_index(pte_fb_vec_table(named, i));
  return PTE_OK;
}

static pte_status pdm_get_tensor_layout(const pte_named_data_map *m, const char *key, pte_tensor_layout *out) {
  (void)m;
  (void)key;
  (void)out;
  return PTE_ERR_NOT_IMPLEMENTED; /* opaque blobs only, as upstream */
}

static pte_status pdm_get_data(const pte_named_data_map *m, const char *key, pte_freeable_buffer *out) {
  const pte_program *p = ((const pte_program_data_map *)m)->program;
  if (!out) return PTE_ERR_INVALID_ARGUMENT;
  uint32_t seg;
  pte_status s = pdm_find(p, key, &seg);
  if (s != PTE_OK) return s;
  pte_segment_info info = {PTE_SEGMENT_CONSTANT, seg, NULL};
  return pte_program_load_segment(p, seg, &info, out);
}

static pte_status pdm_load_data_into(const pte_named_data_map *m, const char *key, void *buf, size_t size) {
  const pte_program *p = ((const pte_program_data_map *)m)->program;
  uint32_t seg;
  pte_status s = pdm_find(p, key, &seg);
  if (s != PTE_OK) return s;
  uint64_t off, ssize;
  s = pte_program_segment(p, seg, &off, &ssize);
  if (s != PTE_OK) return s;
  if ((uint64_t)size != ssize || (!buf && size)) return PTE_ERR_INVALID_ARGUMENT;
  if (p->header.segment_base_offset == 0) return PTE_ERR_NOT_FOUND;
  if (off > UINT64_MAX - p->header.segment_base_offset) return PTE_ERR_INVALID_PROGRAM;
  pte_segment_info info = {PTE_SEGMENT_MUTABLE, seg, NULL};
  return pte_data_loader_load_into(p->loader, p->header.segment_base_offset + off, size, &info, buf);
}

static pte_status pdm_num_keys(const pte_named_data_map *m, uint32_t *out) {
  const pte_program *p = ((const pte_program_data_map *)m)->program;
  if (!out) return PTE_ERR_INVALID_ARGUMENT;
  pte_fb_vec named = pte_et_Program_named_data(pte_rt_program_root(p));
  *out = named.present ? named.len : 0;
  return PTE_OK;
}

static pte_status pdm_get_key(const pte_named_data_map *m, uint32_t index, const char **out) {
  const pte_program *p = ((const pte_program_data_map *)m)->program;
  if (!out) return PTE_ERR_INVALID_ARGUMENT;
  pte_fb_vec named = pte_et_Program_named_data(pte_rt_program_root(p));
  if (!named.present || index >= named.len) return PTE_ERR_INVALID_ARGUMENT;
  const char *k = pte_et_NamedData_key(pte_fb_vec_table(named, index)).ptr;
  if (!k) return PTE_ERR_INVALID_PROGRAM;
  *out = k;
  return PTE_OK;
}

const pte_named_data_map_vtable pte_rt_program_data_map_vt = {pdm_get_tensor_layout, pdm_get_data, pdm_load_data_into,
                                                              pdm_num_keys, pdm_get_key};
