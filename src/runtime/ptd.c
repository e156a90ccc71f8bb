/* ptd.c — .ptd (FlatTensor) external data as a pte_named_data_map (core: no allocation, no stdio). */
#include <stdint.h>
#include <string.h>

#include "format/flatbuf.h"
#include "pte/ptd.h"
#include "pte/tensor.h"
#include "pte_gen/flat_tensor_gen.h"
#include "pte_gen/program_gen.h"
#include "runtime/prog_internal.h"

/* The segment checks shared with .pte files (pte_rt_check_segments) read program.fbs DataSegments. */
_Static_assert(pte_ft_DataSegment_offset_SLOT == pte_et_DataSegment_offset_SLOT &&
                   pte_ft_DataSegment_size_SLOT == pte_et_DataSegment_size_SLOT,
               "flat_tensor.fbs and program.fbs DataSegment layouts differ");

#define BADX PTE_ERR_INVALID_EXTERNAL_DATA


static pte_fb_table ptd_root(const pte_ptd *p) { return pte_fb_table_at(p->fb, p->fb_size, p->root); }

/* Entry lookup: the NamedData table, its segment's (offset, size). */
typedef struct ptd_entry {
  pte_fb_table nd;
  uint32_t segment_index;
  uint64_t offset, size;
} ptd_entry;

static pte_status ptd_find(const pte_ptd *p, const char *key, ptd_entry *e) {
  if (!p || !p->fb || !key) return PTE_ERR_INVALID_ARGUMENT;
  pte_fb_table rt = ptd_root(p);
  pte_fb_vec named = pte_ft_FlatTensor_named_data(rt);
  uint32_t i = p->named_sorted ? pte_rt_find_key_sorted(named, pte_ft_NamedData_key_SLOT, key)
                               : pte_rt_find_key(named, pte_ft_NamedData_key_SLOT, key);
  if (i == UINT32_MAX) return PTE_ERR_NOT_FOUND;
  e->nd = pte_fb_vec_table(named, i);
  e->segment_index = pte_ft_NamedData_segment_index(e->nd);
  pte_fb_table seg = pte_fb_vec_table(pte_ft_FlatTensor_segments(rt), e->segment_index);
  if (!pte_fb_table_present(seg)) return BADX; /* cannot happen after load-time validation */
  e->offset = pte_ft_DataSegment_offset(seg);
  e->size = pte_ft_DataSegment_size(seg);
  return PTE_OK;
}

static pte_status layout_of(pte_fb_table lt, pte_tensor_layout *out, pte_error_info *detail) {
  int dtype = pte_ft_TensorLayout_scalar_type(lt);
  pte_fb_vec sizes = pte_ft_TensorLayout_sizes(lt);
  pte_fb_vec dim_order = pte_ft_TensorLayout_dim_order(lt);
  uint64_t nbytes;
  if (pte_rt_check_shape(dtype, sizes, dim_order, true, &nbytes, detail) != PTE_RT_SHAPE_OK) return BADX;
  if (out) {
    out->dtype = (uint8_t)dtype;
    out->dim = (int32_t)sizes.len;
    out->sizes = (const int32_t *)(const void *)(sizes.buf + sizes.data);
    out->dim_order = dim_order.buf + dim_order.data;
    out->nbytes = (size_t)nbytes;
  }
  return PTE_OK;
}

static pte_status ptd_get_tensor_layout(const pte_named_data_map *m, const char *key, pte_tensor_layout *out) {
  const pte_ptd *p = (const pte_ptd *)m;
  ptd_entry e;
  pte_status s = ptd_find(p, key, &e);
  if (s != PTE_OK) return s;
  pte_fb_table lt = pte_ft_NamedData_tensor_layout(e.nd);
  if (!pte_fb_table_present(lt)) return BADX; /* opaque blob: no layout */
  return layout_of(lt, out, NULL);
}

static pte_status ptd_get_data(const pte_named_data_map *m, const char *key, pte_freeable_buffer *out) {
  const pte_ptd *p = (const pte_ptd *)m;
  if (!out) return PTE_ERR_INVALID_ARGUMENT;
  *out = pte_freeable_buffer_view(NULL, 0);
  ptd_entry e;
  pte_status s = ptd_find(p, key, &e);
  if (s != PTE_OK) return s;
  pte_segment_info info = {PTE_SEGMENT_CONSTANT, e.segment_index, NULL};
  return pte_data_loader_load(p->loader, p->header.segment_base_offset + e.offset, (size_t)e.size, &info, out);
}

static pte_status ptd_load_data_into(const pte_named_data_map *m, const char *key, void *buf, size_t size) {
  const pte_ptd *p = (const pte_ptd *)m;
  ptd_entry e;
  pte_status s = ptd_find(p, key, &e);
  if (s != PTE_OK) return s;
  uint64_t want = e.size;
  pte_fb_table lt = pte_ft_NamedData_tensor_layout(e.nd);
  if (pte_fb_table_present(lt)) {
    pte_tensor_layout l;
    s = layout_of(lt, &l, NULL);
    if (s != PTE_OK) return s;
    want = l.nbytes;
  }
  if ((uint64_t)size != want || (!buf && size)) return PTE_ERR_INVALID_ARGUMENT;
  pte_segment_info info = {PTE_SEGMENT_MUTABLE, e.segment_index, NULL};
  return pte_data_loader_load_into(p->loader, p->header.segment_base_offset + e.offset, size, &info, buf);
}

static pte_status ptd_num_keys(const pte_named_data_map *m, uint32_t *out) {
  const pte_ptd *p = (const pte_ptd *)m;
  if (!out || !p->fb) return PTE_ERR_INVALID_ARGUMENT;
  pte_fb_vec named = pte_ft_FlatTensor_named_data(ptd_root(p));
  *out = named.present ? named.len : 0;
  return PTE_OK;
}

static pte_status ptd_get_key(const pte_named_data_map *m, uint32_t index, const char **out) {
  const pte_ptd *p = (const pte_ptd *)m;
  if (!out || !p->fb) return PTE_ERR_INVALID_ARGUMENT;
  pte_fb_vec named = pte_ft_FlatTensor_named_data(ptd_root(p));
  if (!named.present || index >= named.len) return PTE_ERR_INVALID_ARGUMENT;
  const char *k = pte_ft_NamedData_key(pte_fb_vec_table(named, index)).ptr;
  if (!k) return BADX;
  *out = k;
  return PTE_OK;
}

static const pte_named_data_map_vtable ptd_vt = {ptd_get_tensor_layout, ptd_get_data, ptd_load_data_into,
                                                 ptd_num_keys, ptd_get_key};

static pte_status ptd_fail(pte_ptd *p, pte_status s) {
  pte_freeable_buffer_free(&p->fb_data);
  memset(p, 0, sizeof *p);
  return s;
}

/* Checks every entry once, so lookups never meet malformed data later. */
static pte_status validate_entries(const pte_ptd *p, pte_fb_table rt, pte_error_info *err) {
  pte_fb_vec segs = pte_ft_FlatTensor_segments(rt);
  pte_fb_vec named = pte_ft_FlatTensor_named_data(rt);
  if (!segs.present) return pte_error_set(err, BADX, ".ptd has no segments");
  if (!named.present) return pte_error_set(err, BADX, ".ptd has no named_data");
  pte_status s = pte_rt_check_segments(segs, p->header.segment_data_size, ".ptd", BADX, err);
  if (s != PTE_OK) return s;
  for (uint32_t i = 0; i < named.len; i++) {
    pte_fb_table nd = pte_fb_vec_table(named, i);
    pte_fb_str key = pte_ft_NamedData_key(nd);
    if (!pte_fb_table_present(nd) || !key.ptr) return pte_error_set(err, BADX, ".ptd entry %u has no key", i);
    uint32_t si = pte_ft_NamedData_segment_index(nd);
    if (si >= segs.len)
      return pte_error_set(err, BADX, ".ptd entry '%s': segment_index %u out of range (%u segments)", key.ptr, si,
                           segs.len);
    pte_fb_table lt = pte_ft_NamedData_tensor_layout(nd);
    if (!pte_fb_table_present(lt)) continue; /* opaque blob */
    pte_tensor_layout l;
    pte_error_info detail;
    detail.msg[0] = 0;
    if (layout_of(lt, &l, err ? &detail : NULL) != PTE_OK)
      return pte_error_set(err, BADX, ".ptd entry '%s': %s", key.ptr, detail.msg);
    uint64_t size = pte_ft_DataSegment_size(pte_fb_vec_table(segs, si));
    if ((uint64_t)l.nbytes > size)
      return pte_error_set(err, BADX, ".ptd entry '%s': tensor needs %llu bytes but segment %u has %llu", key.ptr,
                           pte_rt_ull(l.nbytes), si, pte_rt_ull(size));
  }
  return PTE_OK;
}

pte_status pte_ptd_load(const pte_data_loader *loader, pte_ptd *out, pte_error_info *err) {
  if (!out) return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, ".ptd load: NULL output");
  memset(out, 0, sizeof *out);
  if (!loader || !loader->vt) return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, ".ptd load: NULL loader");
  pte_ptd *p = out;
  p->loader = loader;
  uint64_t file_size = 0;
  pte_status s = pte_data_loader_size(loader, &file_size);
  if (s != PTE_OK) return ptd_fail(p, pte_error_set(err, s, ".ptd load: cannot get the data size"));
  p->file_size = file_size;
  if (file_size < PTE_HEAD_BYTES)
    return ptd_fail(p, pte_error_set(err, BADX, ".ptd file is %llu bytes, too small (at least %d needed)",
                                     pte_rt_ull(file_size), PTE_HEAD_BYTES));
  pte_segment_info prog_info = {PTE_SEGMENT_PROGRAM, 0, NULL};
  pte_freeable_buffer head;
  s = pte_data_loader_load(loader, 0, PTE_HEAD_BYTES, &prog_info, &head);
  if (s != PTE_OK) return ptd_fail(p, pte_error_set(err, s, ".ptd load: cannot load the first %d bytes", PTE_HEAD_BYTES));
  if (!head.data || head.size < PTE_HEAD_BYTES) {
    pte_freeable_buffer_free(&head);
    return ptd_fail(p, pte_error_set(err, PTE_ERR_ACCESS_FAILED, ".ptd load: loader returned a short head"));
  }
  s = pte_flat_tensor_header_parse(head.data, head.size, &p->header, err);
  if (s == PTE_OK) s = pte_flat_tensor_header_validate(&p->header, file_size, err);
  pte_freeable_buffer_free(&head);
  if (s == PTE_ERR_NOT_FOUND)
    return ptd_fail(p, pte_error_set(err, BADX, "not a .ptd file: no 'FH01' header at byte 8"));
  if (s != PTE_OK) return ptd_fail(p, s);

  uint64_t region = p->header.flatbuffer_offset + p->header.flatbuffer_size; /* validated: no overflow */
  if (p->header.segment_data_size > 0 && p->header.segment_base_offset < region)
    return ptd_fail(p, pte_error_set(err, BADX, ".ptd segment_base_offset %llu is inside the flatbuffer region (%llu bytes)",
                                     pte_rt_ull(p->header.segment_base_offset), pte_rt_ull(region)));
  if (region < 8 || region > 0x7FFFFFFFull || region > (uint64_t)SIZE_MAX)
    return ptd_fail(p, pte_error_set(err, BADX, ".ptd flatbuffer region of %llu bytes is invalid", pte_rt_ull(region)));
  s = pte_data_loader_load(loader, 0, (size_t)region, &prog_info, &p->fb_data);
  if (s != PTE_OK)
    return ptd_fail(p, pte_error_set(err, s, ".ptd load: cannot load the flatbuffer (%llu bytes)", pte_rt_ull(region)));
  if (!p->fb_data.data || p->fb_data.size < (size_t)region)
    return ptd_fail(p, pte_error_set(err, PTE_ERR_ACCESS_FAILED, ".ptd load: loader returned a short buffer"));
  p->fb = (const uint8_t *)p->fb_data.data;
  p->fb_size = (size_t)region;
  if ((uintptr_t)p->fb % PTE_RT_BUFFER_ALIGN != 0)
    return ptd_fail(p, pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, ".ptd data at 0x%llx must be aligned to %d bytes",
                                     pte_rt_ull((uint64_t)(uintptr_t)p->fb), PTE_RT_BUFFER_ALIGN));
  if (memcmp(p->fb + 4, "FT01", 4) != 0) {
    char id[5];
    pte_rt_ident(p->fb + 4, id);
    return ptd_fail(p, pte_error_set(err, BADX, "not a .ptd file: identifier '%s' != expected 'FT01'", id));
  }
  s = pte_ft_verify_root(p->fb, p->fb_size, err);
  if (s != PTE_OK) return ptd_fail(p, pte_rt_remap(s, BADX, err));
  p->root = pte_fb_ld_u32(p->fb);
  pte_fb_table rt = ptd_root(p);
  if (!pte_fb_table_present(rt)) return ptd_fail(p, pte_error_set(err, BADX, ".ptd root table is malformed"));
  s = validate_entries(p, rt, err);
  if (s != PTE_OK) return ptd_fail(p, s);
  p->named_sorted = pte_rt_keys_sorted(pte_ft_FlatTensor_named_data(rt), pte_ft_NamedData_key_SLOT);
  p->base.vt = &ptd_vt;
  if (err) {
    err->status = PTE_OK;
    err->msg[0] = 0;
  }
  return PTE_OK;
}

void pte_ptd_destroy(pte_ptd *ptd) {
  if (!ptd) return;
  pte_freeable_buffer_free(&ptd->fb_data);
  memset(ptd, 0, sizeof *ptd);
}

const pte_named_data_map *pte_ptd_map(const pte_ptd *ptd) { return (ptd && ptd->fb) ? &ptd->base : NULL; }

const pte_flat_tensor_header *pte_ptd_header(const pte_ptd *ptd) { return ptd ? &ptd->header : NULL; }

uint32_t pte_ptd_version(const pte_ptd *ptd) {
  if (!ptd || !ptd->fb) return 0;
  return pte_ft_FlatTensor_version(ptd_root(ptd));
}

size_t pte_ptd_num_segments(const pte_ptd *ptd) {
  if (!ptd || !ptd->fb) return 0;
  pte_fb_vec v = pte_ft_FlatTensor_segments(ptd_root(ptd));
  return v.present ? v.len : 0;
}

pte_status pte_ptd_segment(const pte_ptd *ptd, size_t i, uint64_t *offset, uint64_t *size) {
  if (!ptd || !ptd->fb) return PTE_ERR_INVALID_ARGUMENT;
  pte_fb_vec v = pte_ft_FlatTensor_segments(ptd_root(ptd));
  if (!v.present || i >= v.len) return PTE_ERR_NOT_FOUND;
  pte_fb_table t = pte_fb_vec_table(v, (uint32_t)i);
  if (offset) *offset = pte_ft_DataSegment_offset(t);
  if (size) *size = pte_ft_DataSegment_size(t);
  return PTE_OK;
}

pte_status pte_ptd_entry_segment(const pte_ptd *ptd, const char *key, uint32_t *segment_index) {
  ptd_entry e;
  pte_status s = ptd_find(ptd, key, &e);
  if (s != PTE_OK) return s;
  if (segment_index) *segment_index = e.segment_index;
  return PTE_OK;
}
