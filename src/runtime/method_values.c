/* method_values.c — method load: values, tensors and where their data lives (planned buffers,
 * constants, external data maps), the plan's inputs and outputs (method_load.h). */
#include <stdarg.h>
#include <string.h>

#include "method_load.h"
#include "pte/program.h"
#include "base/vformat.h"

void pte_rt_appendf(char *buf, size_t cap, size_t *len, const char *fmt, ...) {
  if (*len >= cap) return;
  va_list ap;
  va_start(ap, fmt);
  size_t n = pte_vformat(buf + *len, cap - *len, fmt, ap);
  va_end(ap);
  *len = *len + n < cap ? *len + n : cap - 1;
}

static const char *owner_text(const region_owner *o, char *buf, size_t cap) {
  size_t len = 0;
  buf[0] = '\0';
  if (o->delegate_id) pte_rt_appendf(buf, cap, &len, "delegate %zu ('%s') scratch %zu", o->index, o->delegate_id, o->scratch);
  else pte_rt_appendf(buf, cap, &len, "value %zu", o->index);
  return buf;
}

/* Address of bytes [off, off + nbytes) of planned buffer memory_id (1-based), with the checks
 * every planned region gets (memory-planned tensors and delegate scratch alike). */
pte_status pte_rt_planned_region(load_ctx *c, const region_owner *who, uint32_t mem_id, uint64_t off, uint64_t nbytes,
                                 void **out) {
  char w[96];
  if (mem_id == 0)
    return LERR(c, PTE_ERR_INVALID_PROGRAM, "%s: memory_id 0 is invalid (memory ids start at 1)", owner_text(who, w, sizeof w));
  if (mem_id > c->n_planned_declared)
    return LERR(c, PTE_ERR_INVALID_PROGRAM, "%s: memory_id %u but method '%s' declares %zu planned buffers",
                owner_text(who, w, sizeof w), mem_id, c->m->name, c->n_planned_declared);
  size_t idx = (size_t)mem_id - 1;
  if (idx >= c->mm->n_planned || !c->mm->planned)
    return LERR(c, PTE_ERR_INVALID_ARGUMENT,
                "%s lives in planned buffer %zu (memory_id %u) but the memory manager provides %zu planned buffers",
                owner_text(who, w, sizeof w), idx, mem_id, c->mm->planned ? c->mm->n_planned : (size_t)0);
  if (sizeof(size_t) < 8 && ((off >> 16) >> 16) != 0)
    return LERR(c, PTE_ERR_NOT_SUPPORTED, "%s: 64-bit memory offset on a 32-bit target", owner_text(who, w, sizeof w));
  const pte_planned_buffer *b = &c->mm->planned[idx];
  if (off > b->size || nbytes > b->size - off)
    return LERR(c, PTE_ERR_MEMORY_ALLOCATION_FAILED,
                "%s needs bytes [%llu, %llu) of planned buffer %zu, which has %zu bytes", owner_text(who, w, sizeof w),
                (unsigned long long)off, (unsigned long long)(off + nbytes), idx, b->size);
  if (!b->data) {
    if (b->size)
      return LERR(c, PTE_ERR_INVALID_ARGUMENT, "planned buffer %zu has size %zu but no data", idx, b->size);
    *out = NULL;
    return PTE_OK;
  }
  *out = (uint8_t *)b->data + off;
  return PTE_OK;
}

static pte_status planned_ptr(load_ctx *c, size_t vi, pte_fb_table alloc, size_t nbytes, void **out) {
  uint32_t mem_id = pte_et_AllocationDetails_memory_id(alloc);
  uint64_t off = pte_et_AllocationDetails_memory_offset_low(alloc);
  off |= (uint64_t)pte_et_AllocationDetails_memory_offset_high(alloc) << 32;
  region_owner who = {NULL, vi, 0};
  return pte_rt_planned_region(c, &who, mem_id, off, nbytes, out);
}

static pte_status check_layout(load_ctx *c, size_t vi, const char *fqn, const pte_tensor_info *info,
                               const pte_tensor_layout *l) {
  if (l->dtype != info->dtype)
    return LERR(c, PTE_ERR_INVALID_EXTERNAL_DATA, "external tensor '%s' (value %zu): dtype %s in the data map, %s in the program",
                fqn, vi, pte_dtype_name(l->dtype), pte_dtype_name(info->dtype));
  if (l->dim != info->dim)
    return LERR(c, PTE_ERR_INVALID_EXTERNAL_DATA, "external tensor '%s' (value %zu): rank %d in the data map, %d in the program",
                fqn, vi, (int)l->dim, (int)info->dim);
  for (int32_t d = 0; d < info->dim; d++) {
    if (!l->sizes || !l->dim_order || l->sizes[d] != info->sizes[d] || l->dim_order[d] != info->dim_order[d])
      return LERR(c, PTE_ERR_INVALID_EXTERNAL_DATA,
                  "external tensor '%s' (value %zu): sizes/dim_order differ from the program in dim %d", fqn, vi, (int)d);
  }
  return PTE_OK;
}

/* Data of EXTERNAL constant `fqn` (no allocation_info): resolved through the external map the
 * first time a key is seen, then shared by every tensor naming it. */
static pte_status external_constant(load_ctx *c, size_t vi, const char *fqn, const pte_tensor_info *info,
                                    const void **out) {
  pte_method *m = c->m;
  if (!c->external)
    return LERR(c, PTE_ERR_INVALID_STATE,
                "external data map is null: method '%s' has external constant tensors (value %zu: '%s'); load the .ptd file and pass it",
                m->name, vi, fqn);
  for (pte_external_const *e = m->ext; e; e = e->next) {
    if (strcmp(e->key, fqn) != 0) continue;
    if (e->buf.size < info->nbytes)
      return LERR(c, PTE_ERR_INVALID_EXTERNAL_DATA, "external tensor '%s': data smaller than value %zu", fqn, vi);
    *out = e->buf.data;
    return PTE_OK;
  }
  pte_tensor_layout layout;
  pte_status s = pte_named_data_map_get_tensor_layout(c->external, fqn, &layout);
  if (s != PTE_OK)
    return LERR(c, s, "external tensor '%s' (value %zu): %s in the external data map", fqn, vi,
                s == PTE_ERR_NOT_FOUND ? "not found" : pte_status_name(s));
  if ((s = check_layout(c, vi, fqn, info, &layout)) != PTE_OK) return s;
  pte_external_const *e = PTE_ALLOC(m->method_allocator, pte_external_const);
  if (!e) return LERR(c, PTE_ERR_MEMORY_ALLOCATION_FAILED, "method allocator exhausted (external constants)");
  memset(e, 0, sizeof *e);
  s = pte_named_data_map_get_data(c->external, fqn, &e->buf);
  if (s != PTE_OK)
    return LERR(c, PTE_ERR_INVALID_EXTERNAL_DATA, "external tensor '%s': get_data failed (%s)", fqn, pte_status_name(s));
  e->key = fqn;
  e->next = m->ext;
  m->ext = e; /* owned from here on: released with the method */
  if (e->buf.size < info->nbytes || (!e->buf.data && info->nbytes))
    return LERR(c, PTE_ERR_INVALID_EXTERNAL_DATA, "external tensor '%s': %zu bytes of data, tensor needs %zu", fqn,
                e->buf.size, info->nbytes);
  *out = e->buf.data;
  return PTE_OK;
}

/* Parses a Tensor table into a tensor allocated (with its sizes and strides) from the method
 * allocator, and places its data (the rules of executorch-format.md section 2, Tensor). */
static pte_status parse_tensor(load_ctx *c, size_t vi, pte_fb_table t, pte_tensor **out_t) {
  pte_method *m = c->m;
  pte_tensor_info info;
  pte_tensor_fb fb;
  pte_status s = pte_method_read_tensor_info(t, &info, &fb, c->err, vi);
  if (s != PTE_OK) return s;
  if (pte_et_Tensor_storage_offset(t) != 0)
    return LERR(c, PTE_ERR_NOT_SUPPORTED, "value %zu: non-zero storage_offset is not supported", vi);
  if (info.dynamism == PTE_SHAPE_DYNAMIC_UNBOUND)
    return LERR(c, PTE_ERR_NOT_SUPPORTED, "value %zu: DYNAMIC_UNBOUND tensors are not supported", vi);

  /* One block: the tensor, then sizes[dim] and strides[dim]. */
  size_t bytes = sizeof(pte_tensor) + 2 * sizeof(int32_t) * (size_t)info.dim;
  pte_tensor *out = (pte_tensor *)pte_allocator_alloc(m->method_allocator, bytes, _Alignof(pte_tensor));
  if (!out) return LERR(c, PTE_ERR_MEMORY_ALLOCATION_FAILED, "method allocator exhausted (tensor %zu)", vi);
  memset(out, 0, sizeof *out);
  out->sizes = (int32_t *)(void *)(out + 1);
  out->strides = out->sizes + info.dim;
  memcpy(out->sizes, info.sizes, sizeof(int32_t) * (size_t)info.dim);
  out->dim_order = info.dim ? pte_fb_vec_data(fb.dim_order) : NULL;
  if (pte_strides_from_dim_order(out->sizes, out->dim_order, info.dim, out->strides) != PTE_OK)
    return LERR(c, PTE_ERR_INVALID_PROGRAM, "value %zu: cannot compute strides", vi);
  out->dim = info.dim;
  out->dtype = info.dtype;
  out->dynamism = info.dynamism;
  out->capacity_bytes = info.nbytes;
  size_t es = pte_dtype_size(info.dtype);
  out->numel = es ? info.nbytes / es : 0;
  *out_t = out;

  if (fb.external) {
    const char *fqn = pte_et_ExtraTensorInfo_fully_qualified_name(fb.extra).ptr;
    if (!fqn) return LERR(c, PTE_ERR_INVALID_EXTERNAL_DATA, "value %zu: external tensor without fully_qualified_name", vi);
    if (!fb.has_alloc) {
      const void *p = NULL;
      if ((s = external_constant(c, vi, fqn, &info, &p)) != PTE_OK) return s;
      out->data = (void *)p;
      out->flags = PTE_TENSOR_CONST;
      return PTE_OK;
    }
    if (!c->external)
      return LERR(c, PTE_ERR_INVALID_EXTERNAL_DATA,
                  "cannot load external tensor '%s' (value %zu): the external data map is null (no .ptd file given)", fqn, vi);
    pte_tensor_layout layout;
    s = pte_named_data_map_get_tensor_layout(c->external, fqn, &layout);
    if (s != PTE_OK)
      return LERR(c, s, "external tensor '%s' (value %zu): %s in the external data map", fqn, vi,
                  s == PTE_ERR_NOT_FOUND ? "not found" : pte_status_name(s));
    if ((s = check_layout(c, vi, fqn, &info, &layout)) != PTE_OK) return s;
    if ((s = planned_ptr(c, vi, fb.alloc, info.nbytes, &out->data)) != PTE_OK) return s;
    s = pte_named_data_map_load_data_into(c->external, fqn, out->data, info.nbytes);
    if (s != PTE_OK) return LERR(c, s, "external tensor '%s': load_data_into failed (%s)", fqn, pte_status_name(s));
    out->flags = PTE_TENSOR_PLANNED;
    return PTE_OK;
  }
  uint32_t dbi = fb.data_buffer_idx;
  if (dbi > 0 && !fb.has_alloc) {
    const void *p = NULL;
    s = pte_program_constant_data(m->program, dbi, info.nbytes, &p);
    if (s != PTE_OK)
      return LERR(c, s, "value %zu: constant buffer %u (%zu bytes) unavailable (%s)", vi, dbi, info.nbytes,
                  pte_status_name(s));
    out->data = (void *)p;
    out->flags = PTE_TENSOR_CONST;
    return PTE_OK;
  }
  if (fb.has_alloc) {
    if ((s = planned_ptr(c, vi, fb.alloc, info.nbytes, &out->data)) != PTE_OK) return s;
    out->flags = PTE_TENSOR_PLANNED;
    if (dbi > 0) {
      s = pte_program_load_mutable_into(m->program, 0, dbi, info.nbytes, out->data);
      if (s != PTE_OK)
        return LERR(c, s, "value %zu: initial state (mutable data offset %u, %zu bytes) unavailable (%s)", vi, dbi,
                    info.nbytes, pte_status_name(s));
    }
    return PTE_OK;
  }
  out->data = NULL; /* supplied at run time (unplanned input / output) */
  return PTE_OK;
}

/* ------------------------------------------------------------------------------ values */

pte_status pte_rt_parse_values(load_ctx *c) {
  pte_method *m = c->m;
  pte_fb_vec values = c->values;
  size_t n = values.len;
  m->n_values = n;
  m->values = PTE_ALLOC_ARRAY(m->method_allocator, pte_evalue, n);
  if (!m->values) return LERR(c, PTE_ERR_MEMORY_ALLOCATION_FAILED, "method allocator exhausted (%zu values)", n);
  memset(m->values, 0, sizeof(pte_evalue) * n);

  size_t ti = 0;
  for (uint32_t i = 0; i < n; i++) {
    pte_fb_table ev = pte_fb_vec_table(values, i);
    uint8_t type = pte_et_EValue_val_type(ev);
    pte_fb_table val = pte_et_EValue_val(ev);
    if (!pte_fb_table_present(ev) || (type != pte_et_KernelTypes_Null && !pte_fb_table_present(val)))
      return LERR(c, PTE_ERR_INVALID_PROGRAM, "null value at index %u", (unsigned)i);
    pte_evalue *v = &m->values[i];
    switch (type) {
      case pte_et_KernelTypes_Null: v->tag = PTE_TAG_NONE; break;
      case pte_et_KernelTypes_Int:
        v->tag = PTE_TAG_INT;
        v->u.i = pte_et_Int_int_val(val);
        break;
      case pte_et_KernelTypes_Bool:
        v->tag = PTE_TAG_BOOL;
        v->u.b = pte_et_Bool_bool_val(val);
        break;
      case pte_et_KernelTypes_Double:
        v->tag = PTE_TAG_DOUBLE;
        v->u.d = pte_et_Double_double_val(val);
        break;
      case pte_et_KernelTypes_String: {
        pte_fb_str s = pte_et_String_string_val(val);
        if (!s.ptr) return LERR(c, PTE_ERR_INVALID_PROGRAM, "missing string at index %u", (unsigned)i);
        v->tag = PTE_TAG_STRING;
        v->u.str.ptr = s.ptr;
        v->u.str.len = s.len;
        break;
      }
      case pte_et_KernelTypes_Tensor: {
        pte_tensor *t = NULL;
        pte_status s = parse_tensor(c, i, val, &t);
        if (s != PTE_OK) return s;
        {
          /* Kernels access elements through typed pointers: data at an address that is not a
           * multiple of the element size (a misaligned planned offset, constant offset or segment
           * base in a malformed file) would be undefined behaviour, so refuse it here. */
          size_t es = pte_dtype_size(t->dtype), al = es > 8 ? 8 : es;
          if (t->data && al > 1 && ((uintptr_t)t->data % al) != 0)
            return LERR(c, PTE_ERR_INVALID_PROGRAM,
                        "value %u: tensor data is not aligned to its %zu-byte elements (misaligned planned offset, "
                        "constant offset or segment)", (unsigned)i, al);
        }
        ti++;
        v->tag = PTE_TAG_TENSOR;
        v->u.tensor = t;
        break;
      }
      case pte_et_KernelTypes_IntList: {
        pte_fb_vec items = pte_et_IntList_items(val);
        if (!items.present || (items.len && !pte_fb_vec_elem(items, items.len - 1, 8)))
          return LERR(c, PTE_ERR_INVALID_PROGRAM, "missing list at index %u", (unsigned)i);
        pte_evalue **boxed = PTE_ALLOC_ARRAY(m->method_allocator, pte_evalue *, items.len);
        int64_t *unboxed = PTE_ALLOC_ARRAY(m->method_allocator, int64_t, items.len);
        if (!boxed || !unboxed) return LERR(c, PTE_ERR_MEMORY_ALLOCATION_FAILED, "method allocator exhausted (IntList %u)", (unsigned)i);
        for (uint32_t j = 0; j < items.len; j++) {
          int64_t idx = pte_fb_vec_i64(items, j);
          if (idx < 0 || (uint64_t)idx >= n)
            return LERR(c, PTE_ERR_INVALID_PROGRAM, "invalid value index %lld in IntList %u item %u", (long long)idx,
                        (unsigned)i, (unsigned)j);
          boxed[j] = &m->values[idx];
          unboxed[j] = 0;
        }
        v->tag = PTE_TAG_LIST_INT;
        v->u.int_list.items = boxed;
        v->u.int_list.unboxed = unboxed;
        v->u.int_list.len = items.len;
        break;
      }
      case pte_et_KernelTypes_DoubleList: {
        pte_fb_vec items = pte_et_DoubleList_items(val);
        if (!items.present || (items.len && !pte_fb_vec_elem(items, items.len - 1, 8)))
          return LERR(c, PTE_ERR_INVALID_PROGRAM, "missing list at index %u", (unsigned)i);
        const uint8_t *p = pte_fb_vec_data(items);
        if (((uintptr_t)p & 7u) != 0)
          return LERR(c, PTE_ERR_INVALID_PROGRAM, "misaligned DoubleList at index %u", (unsigned)i);
        v->tag = PTE_TAG_LIST_DOUBLE;
        v->u.double_list.items = (const double *)(const void *)p;
        v->u.double_list.len = items.len;
        break;
      }
      case pte_et_KernelTypes_BoolList: {
        pte_fb_vec items = pte_et_BoolList_items(val);
        if (!items.present) return LERR(c, PTE_ERR_INVALID_PROGRAM, "missing list at index %u", (unsigned)i);
        v->tag = PTE_TAG_LIST_BOOL;
        v->u.bool_list.items = pte_fb_vec_data(items);
        v->u.bool_list.len = items.len;
        break;
      }
      case pte_et_KernelTypes_TensorList:
      case pte_et_KernelTypes_OptionalTensorList: {
        bool optional = type == pte_et_KernelTypes_OptionalTensorList;
        pte_fb_vec items = optional ? pte_et_OptionalTensorList_items(val) : pte_et_TensorList_items(val);
        if (!items.present || (items.len && !pte_fb_vec_elem(items, items.len - 1, 4)))
          return LERR(c, PTE_ERR_INVALID_PROGRAM, "missing list at index %u", (unsigned)i);
        pte_evalue **list = PTE_ALLOC_ARRAY(m->method_allocator, pte_evalue *, items.len);
        if (!list) return LERR(c, PTE_ERR_MEMORY_ALLOCATION_FAILED, "method allocator exhausted (TensorList %u)", (unsigned)i);
        for (uint32_t j = 0; j < items.len; j++) {
          int32_t idx = pte_fb_vec_i32(items, j);
          if (optional && idx == -1) {
            list[j] = NULL;
            continue;
          }
          if (idx < 0 || (uint32_t)idx >= i)
            return LERR(c, PTE_ERR_INVALID_PROGRAM, "invalid value index %d in %sTensorList %u item %u (must name an earlier value)",
                        (int)idx, optional ? "Optional" : "", (unsigned)i, (unsigned)j);
          pte_evalue *ref = &m->values[idx];
          if (ref->tag == PTE_TAG_TENSOR) list[j] = ref;
          else if (optional && ref->tag == PTE_TAG_NONE) list[j] = NULL;
          else
            return LERR(c, PTE_ERR_INVALID_PROGRAM, "%sTensorList %u item %u names value %d, a %s", optional ? "Optional" : "",
                        (unsigned)i, (unsigned)j, (int)idx, pte_tag_name((int)ref->tag));
        }
        if (optional) {
          v->tag = PTE_TAG_LIST_OPTIONAL_TENSOR;
          v->u.opt_tensor_list.items = list;
          v->u.opt_tensor_list.len = items.len;
        } else {
          v->tag = PTE_TAG_LIST_TENSOR;
          v->u.tensor_list.items = list;
          v->u.tensor_list.len = items.len;
        }
        break;
      }
      default:
        return LERR(c, PTE_ERR_INVALID_PROGRAM, "unknown value type %u at index %u", (unsigned)type, (unsigned)i);
    }
  }
  m->n_tensors = ti;
  return PTE_OK;
}

pte_status pte_rt_parse_io(load_ctx *c, bool inputs, const uint32_t **out, size_t *n_out) {
  pte_method *m = c->m;
  pte_fb_vec io = inputs ? pte_et_ExecutionPlan_inputs(c->plan) : pte_et_ExecutionPlan_outputs(c->plan);
  const char *what = inputs ? "input" : "output";
  uint32_t *arr = PTE_ALLOC_ARRAY(m->method_allocator, uint32_t, io.len);
  if (!arr) return LERR(c, PTE_ERR_MEMORY_ALLOCATION_FAILED, "method allocator exhausted (%ss)", what);
  for (uint32_t i = 0; i < io.len; i++) {
    int32_t vi = pte_fb_vec_i32(io, i);
    if (vi < 0 || (uint32_t)vi >= c->values.len || !pte_fb_vec_elem(io, i, 4))
      return LERR(c, PTE_ERR_INVALID_PROGRAM, "%s %u refers to value %d (method has %u values)", what, (unsigned)i,
                  (int)vi, (unsigned)c->values.len);
    arr[i] = (uint32_t)vi;
  }
  *out = arr;
  *n_out = io.len;
  return PTE_OK;
}

