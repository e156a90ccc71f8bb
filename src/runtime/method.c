/* Method load: parse values and tensors, place tensor data, initialise delegates, resolve
 * kernels and precompute every instruction's argument array. */
#include <stdarg.h>
#include <string.h>

#include "method_internal.h"
#include "pte/program.h"

typedef struct load_ctx {
  pte_method *m;
  const pte_memory_manager *mm;
  const pte_method_options *opts;
  const pte_named_data_map *external;
  pte_fb_table plan;
  pte_fb_vec values;
  size_t n_planned_declared;
  pte_error_info *err;
} load_ctx;

#define LERR(c, st, ...) pte_error_set((c)->err, (st), __VA_ARGS__)

/* ------------------------------------------------------------------------------ tensor data */

/* Internal formatter of status.c (no stdio in core). */
size_t pte_vformat(char *buf, size_t cap, const char *fmt, va_list ap);

static void appendf(char *buf, size_t cap, size_t *len, const char *fmt, ...) {
  if (*len >= cap) return;
  va_list ap;
  va_start(ap, fmt);
  size_t n = pte_vformat(buf + *len, cap - *len, fmt, ap);
  va_end(ap);
  *len = *len + n < cap ? *len + n : cap - 1;
}

/* Who owns a planned region, rendered only for error messages: "value 3" or
 * "delegate 0 ('TestScratch') scratch 1". */
typedef struct region_owner {
  const char *delegate_id; /* NULL: a tensor value */
  size_t index;            /* value index, or delegate index */
  size_t scratch;          /* scratch entry (delegates) */
} region_owner;

static const char *owner_text(const region_owner *o, char *buf, size_t cap) {
  size_t len = 0;
  buf[0] = '\0';
  if (o->delegate_id) appendf(buf, cap, &len, "delegate %zu ('%s') scratch %zu", o->index, o->delegate_id, o->scratch);
  else appendf(buf, cap, &len, "value %zu", o->index);
  return buf;
}

/* Address of bytes [off, off + nbytes) of planned buffer memory_id (1-based), with the checks
 * every planned region gets (memory-planned tensors and delegate scratch alike). */
static pte_status planned_region(load_ctx *c, const region_owner *who, uint32_t mem_id, uint64_t off, uint64_t nbytes,
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
  return planned_region(c, &who, mem_id, off, nbytes, out);
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

static pte_status parse_values(load_ctx *c) {
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

static pte_status parse_io(load_ctx *c, bool inputs, const uint32_t **out, size_t *n_out) {
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

/* ------------------------------------------------------------------------------ delegates */

/* DelegateCall instructions naming each delegate. Only in-range indices are counted here:
 * load_chains reports malformed instructions and out-of-range delegate indices. */
static void count_delegate_calls(load_ctx *c) {
  pte_method *m = c->m;
  pte_fb_vec chains = pte_et_ExecutionPlan_chains(c->plan);
  for (uint32_t ci = 0; ci < chains.len; ci++) {
    pte_fb_vec ins = pte_et_Chain_instructions(pte_fb_vec_table(chains, ci));
    for (uint32_t ii = 0; ii < ins.len; ii++) {
      pte_fb_table it = pte_fb_vec_table(ins, ii);
      if (pte_et_Instruction_instr_args_type(it) != pte_et_InstructionArguments_DelegateCall) continue;
      int32_t di = pte_et_DelegateCall_delegate_index(pte_et_Instruction_instr_args(it));
      if (di >= 0 && (size_t)di < m->n_delegates && m->delegates[di].n_calls < UINT32_MAX) m->delegates[di].n_calls++;
    }
  }
}

/* "delegate 0 (TestScratch) has scratch memory but is called by instructions 2 and 5 (chain 0)". */
static pte_status scratch_call_sites_error(load_ctx *c, uint32_t di, const char *id) {
  enum { MAX_SITES = 4 };
  uint32_t site_chain[MAX_SITES], site_instr[MAX_SITES];
  size_t n = 0;
  bool one_chain = true;
  pte_fb_vec chains = pte_et_ExecutionPlan_chains(c->plan);
  for (uint32_t ci = 0; ci < chains.len; ci++) {
    pte_fb_vec ins = pte_et_Chain_instructions(pte_fb_vec_table(chains, ci));
    for (uint32_t ii = 0; ii < ins.len; ii++) {
      pte_fb_table it = pte_fb_vec_table(ins, ii);
      if (pte_et_Instruction_instr_args_type(it) != pte_et_InstructionArguments_DelegateCall) continue;
      if (pte_et_DelegateCall_delegate_index(pte_et_Instruction_instr_args(it)) != (int32_t)di) continue;
      if (n && ci != site_chain[0]) one_chain = false;
      if (n < MAX_SITES) {
        site_chain[n] = ci;
        site_instr[n] = ii;
        n++;
      }
    }
  }
  size_t total = c->m->delegates[di].n_calls, shown = n;
  char list[160];
  size_t len = 0;
  list[0] = '\0';
  for (size_t k = 0; k < shown; k++) {
    const char *sep = k == 0 ? "" : (k + 1 == shown && total == shown) ? " and " : ", ";
    appendf(list, sizeof list, &len, "%s%u", sep, (unsigned)site_instr[k]);
    if (!one_chain) appendf(list, sizeof list, &len, " (chain %u)", (unsigned)site_chain[k]);
  }
  if (total > shown) appendf(list, sizeof list, &len, " and %zu more", total - shown);
  if (one_chain && shown) appendf(list, sizeof list, &len, " (chain %u)", (unsigned)site_chain[0]);
  return LERR(c, PTE_ERR_INVALID_PROGRAM, "delegate %u (%s) has scratch memory but is called by instructions %s", (unsigned)di,
              id, list);
}

/* share_handle and the scratch regions of delegate i (pte extensions), checked and resolved
 * against the planned buffers like memory-planned tensors. */
static pte_status resolve_scratch(load_ctx *c, uint32_t i, pte_fb_table dt) {
  pte_method *m = c->m;
  pte_delegate_rt *d = &m->delegates[i];
  d->share_handle = pte_et_BackendDelegate_share_handle(dt);
  pte_fb_vec sv = pte_et_BackendDelegate_scratch(dt);
  if (!sv.present || sv.len == 0) return PTE_OK;
  if (d->share_handle)
    return LERR(c, PTE_ERR_INVALID_PROGRAM,
                "delegate %u (%s) has scratch memory and share_handle set: a delegate with scratch cannot share its handle",
                (unsigned)i, d->id);
  if (d->n_calls > 1) return scratch_call_sites_error(c, i, d->id);
  d->scratch = PTE_ALLOC_ARRAY(m->method_allocator, pte_delegate_scratch, sv.len);
  if (!d->scratch) return LERR(c, PTE_ERR_MEMORY_ALLOCATION_FAILED, "method allocator exhausted (delegate %u scratch)", (unsigned)i);
  for (uint32_t k = 0; k < sv.len; k++) {
    pte_fb_table st = pte_fb_vec_table(sv, k);
    if (!pte_fb_table_present(st))
      return LERR(c, PTE_ERR_INVALID_PROGRAM, "delegate %u (%s): scratch entry %u is null", (unsigned)i, d->id, (unsigned)k);
    pte_delegate_scratch *r = &d->scratch[k];
    r->memory_id = pte_et_DelegateScratch_memory_id(st);
    r->offset = pte_et_DelegateScratch_offset(st);
    uint64_t size = pte_et_DelegateScratch_size(st);
    region_owner who = {d->id, i, k};
    pte_status s = planned_region(c, &who, r->memory_id, r->offset, size, &r->data);
    if (s != PTE_OK) return s;
    r->size = (size_t)size; /* fits: planned_region checked it against a buffer size */
  }
  d->n_scratch = sv.len;
  return PTE_OK;
}

/* The processed blob of delegate i, fetched from inline data or a segment. */
static pte_status load_processed(load_ctx *c, uint32_t i, pte_fb_table dt, pte_fb_table root, pte_freeable_buffer *out) {
  pte_method *m = c->m;
  const char *id = m->delegates[i].id;
  pte_fb_table ref = pte_et_BackendDelegate_processed(dt);
  if (!pte_fb_table_present(ref))
    return LERR(c, PTE_ERR_INVALID_PROGRAM, "delegate %u ('%s') has no processed data reference", (unsigned)i, id);
  int loc = pte_et_BackendDelegateDataReference_location(ref);
  uint32_t index = pte_et_BackendDelegateDataReference_index(ref);
  if (loc == 0) { /* INLINE */
    pte_fb_vec inl = pte_et_Program_backend_delegate_data(root);
    if (index >= inl.len)
      return LERR(c, PTE_ERR_NOT_FOUND, "delegate %u ('%s'): inline data index %u out of range (%u entries)", (unsigned)i,
                  id, index, (unsigned)inl.len);
    pte_fb_vec data = pte_et_BackendDelegateInlineData_data(pte_fb_vec_table(inl, index));
    if (!data.present)
      return LERR(c, PTE_ERR_INVALID_PROGRAM, "delegate %u ('%s'): inline data %u has no bytes", (unsigned)i, id, index);
    *out = pte_freeable_buffer_view(pte_fb_vec_data(data), data.len);
    return PTE_OK;
  }
  if (loc == 1) { /* SEGMENT */
    pte_segment_info si = {PTE_SEGMENT_BACKEND, index, id};
    pte_status s = pte_program_load_segment(m->program, index, &si, out);
    if (s != PTE_OK)
      return LERR(c, s, "delegate %u ('%s'): cannot load segment %u (%s)", (unsigned)i, id, index, pte_status_name(s));
    return PTE_OK;
  }
  return LERR(c, PTE_ERR_INTERNAL, "delegate %u ('%s'): unknown data location %d", (unsigned)i, id, loc);
}

/* Delegates, in three passes so that nothing is initialised for a method that cannot load:
 * (1) ids, call counts, share_handle and scratch (structure and placement), (2) backend lookup
 * (PTE_ERR_NOT_FOUND), (3) blob + compile specs + init(), exactly once per BackendDelegate. */
static pte_status init_delegates(load_ctx *c) {
  pte_method *m = c->m;
  pte_fb_vec dels = pte_et_ExecutionPlan_delegates(c->plan);
  if (!dels.present) return LERR(c, PTE_ERR_INVALID_PROGRAM, "method '%s': missing delegates field", m->name);
  m->n_delegates = dels.len;
  m->delegates = PTE_ALLOC_ARRAY(m->method_allocator, pte_delegate_rt, dels.len);
  if (!m->delegates) return LERR(c, PTE_ERR_MEMORY_ALLOCATION_FAILED, "method allocator exhausted (delegates)");
  memset(m->delegates, 0, sizeof(pte_delegate_rt) * dels.len);
  if (dels.len == 0) return PTE_OK;
  count_delegate_calls(c);

  pte_status s;
  for (uint32_t i = 0; i < dels.len; i++) {
    pte_delegate_rt *d = &m->delegates[i];
    pte_fb_table dt = pte_fb_vec_table(dels, i);
    d->id = pte_et_BackendDelegate_id(dt).ptr;
    if (!d->id) return LERR(c, PTE_ERR_INVALID_PROGRAM, "method '%s': delegate %u has no backend id", m->name, (unsigned)i);
    if ((s = resolve_scratch(c, i, dt)) != PTE_OK) return s;
  }
  for (uint32_t i = 0; i < dels.len; i++) {
    pte_delegate_rt *d = &m->delegates[i];
    const pte_backend *be = pte_get_backend(d->id);
    if (!be)
      return LERR(c, PTE_ERR_NOT_FOUND, "backend '%s' (delegate %u of method '%s') is not registered", d->id, (unsigned)i,
                  m->name);
    if (be->is_available && !be->is_available())
      return LERR(c, PTE_ERR_NOT_FOUND, "backend '%s' (delegate %u of method '%s') is not available", d->id, (unsigned)i,
                  m->name);
    d->backend = be;
  }

  const pte_named_data_map *pmap = pte_program_named_data_map(m->program);
  if (c->external && pmap) {
    pte_merged_data_map_init(&m->merged, c->external, pmap);
    m->delegate_map = &m->merged.base;
  } else {
    m->delegate_map = c->external ? c->external : pmap;
  }
  size_t fb_size;
  const uint8_t *fb = pte_program_flatbuffer(m->program, &fb_size);
  pte_fb_table root = pte_fb_root(fb, fb_size);

  for (uint32_t i = 0; i < dels.len; i++) {
    pte_delegate_rt *d = &m->delegates[i];
    const char *id = d->id;
    pte_fb_table dt = pte_fb_vec_table(dels, i);
    if ((s = load_processed(c, i, dt, root, &d->processed)) != PTE_OK) return s;

    pte_fb_vec specs = pte_et_BackendDelegate_compile_specs(dt);
    pte_compile_spec *cs = PTE_ALLOC_ARRAY(m->method_allocator, pte_compile_spec, specs.len);
    if (!cs) return LERR(c, PTE_ERR_MEMORY_ALLOCATION_FAILED, "method allocator exhausted (compile specs)");
    for (uint32_t k = 0; k < specs.len; k++) {
      pte_fb_table st = pte_fb_vec_table(specs, k);
      pte_fb_str key = pte_et_CompileSpec_key(st);
      pte_fb_vec val = pte_et_CompileSpec_value(st);
      if (!key.ptr || !val.present)
        return LERR(c, PTE_ERR_INVALID_PROGRAM, "delegate %u ('%s'): compile spec %u lacks key or value", (unsigned)i, id,
                    (unsigned)k);
      cs[k].key = key.ptr;
      cs[k].value = pte_fb_vec_data(val);
      cs[k].nbytes = val.len;
    }

    pte_backend_init_context ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.runtime_allocator = m->method_allocator;
    ctx.method_name = m->name;
    ctx.named_data_map = m->delegate_map;
    ctx.event_tracer = m->tracer;
    ctx.delegate_index = i;
    ctx.n_calls = d->n_calls;
    ctx.share_handle = d->share_handle;
    ctx.scratch = d->n_scratch ? d->scratch : NULL;
    ctx.n_scratch = d->n_scratch;
    for (size_t k = 0; c->opts->backend_options && k < c->opts->n_backend_options; k++) {
      const pte_backend_load_options *bo = &c->opts->backend_options[k];
      if (bo->backend_id && strcmp(bo->backend_id, id) == 0) {
        ctx.runtime_specs = bo->options;
        ctx.n_runtime_specs = bo->options ? bo->n_options : 0;
        break;
      }
    }
    pte_error_info be_err;
    be_err.status = PTE_OK;
    be_err.msg[0] = '\0';
    ctx.err = &be_err;
    pte_delegate_handle *handle = NULL;
    s = d->backend->init(&ctx, &d->processed, cs, specs.len, &handle);
    if (s != PTE_OK) {
      pte_freeable_buffer_free(&d->processed);
      return LERR(c, s, "backend '%s' init failed for delegate %u of method '%s': %s", id, (unsigned)i, m->name,
                  be_err.msg[0] ? be_err.msg : pte_status_name(s));
    }
    d->handle = handle;
    d->initialized = true;
  }
  return PTE_OK;
}

/* ------------------------------------------------------------------------------ chains */

static pte_status build_args(load_ctx *c, pte_fb_vec idx, size_t instr, pte_evalue ***out) {
  pte_method *m = c->m;
  if (idx.len && !pte_fb_vec_elem(idx, idx.len - 1, 4))
    return LERR(c, PTE_ERR_INVALID_PROGRAM, "instruction %zu: argument list out of bounds", instr);
  pte_evalue **args = PTE_ALLOC_ARRAY(m->method_allocator, pte_evalue *, idx.len);
  if (!args) return LERR(c, PTE_ERR_MEMORY_ALLOCATION_FAILED, "method allocator exhausted (instruction %zu args)", instr);
  for (uint32_t k = 0; k < idx.len; k++) {
    int32_t vi = pte_fb_vec_i32(idx, k);
    if (vi < 0 || (size_t)vi >= m->n_values)
      return LERR(c, PTE_ERR_INVALID_PROGRAM, "instruction %zu: argument %u is value %d (method has %zu values)", instr,
                  (unsigned)k, (int)vi, m->n_values);
    args[k] = &m->values[vi];
  }
  *out = args;
  return PTE_OK;
}

static pte_status check_value_index(load_ctx *c, int32_t vi, size_t instr, const char *what) {
  if (vi < 0 || (size_t)vi >= c->m->n_values)
    return LERR(c, PTE_ERR_INVALID_PROGRAM, "instruction %zu: %s value index %d out of range (method has %zu values)",
                instr, what, (int)vi, c->m->n_values);
  return PTE_OK;
}

/* "name.overload" (or "name" for an empty overload) of operator i, built once. */
static pte_status op_name(load_ctx *c, pte_fb_vec ops, uint32_t i, const char **out) {
  pte_method *m = c->m;
  if (m->ops[i].name) {
    *out = m->ops[i].name;
    return PTE_OK;
  }
  pte_fb_table op = pte_fb_vec_table(ops, i);
  pte_fb_str name = pte_et_Operator_name(op);
  pte_fb_str ovl = pte_et_Operator_overload(op);
  if (!name.ptr) return LERR(c, PTE_ERR_INVALID_PROGRAM, "operator %u has no name", (unsigned)i);
  size_t len = (size_t)name.len + (ovl.ptr && ovl.len ? 1 + (size_t)ovl.len : 0);
  char *s = PTE_ALLOC_ARRAY(m->method_allocator, char, len + 1);
  if (!s) return LERR(c, PTE_ERR_MEMORY_ALLOCATION_FAILED, "method allocator exhausted (operator names)");
  memcpy(s, name.ptr, name.len);
  if (ovl.ptr && ovl.len) {
    s[name.len] = '.';
    memcpy(s + name.len + 1, ovl.ptr, ovl.len);
  }
  s[len] = '\0';
  m->ops[i].name = s;
  *out = s;
  return PTE_OK;
}

static void append(char *buf, size_t cap, size_t *len, const char *s) {
  while (*s && *len + 1 < cap) buf[(*len)++] = *s++;
  buf[*len] = '\0';
}

static pte_status missing_ops_error(load_ctx *c, size_t n_missing_instr) {
  pte_method *m = c->m;
  char list[PTE_ERROR_MSG_MAX];
  size_t len = 0;
  list[0] = '\0';
  bool first = true;
  for (size_t i = 0; i < m->n_ops; i++) {
    if (!m->ops[i].missing) continue;
    bool dup = false;
    for (size_t k = 0; k < i && !dup; k++) dup = m->ops[k].missing && strcmp(m->ops[k].name, m->ops[i].name) == 0;
    if (dup) continue;
    if (!first) append(list, sizeof list, &len, ", ");
    append(list, sizeof list, &len, m->ops[i].name);
    first = false;
  }
  return LERR(c, PTE_ERR_OPERATOR_MISSING, "missing operators: %s (method '%s', %zu instructions without a kernel)", list,
              m->name, n_missing_instr);
}

static pte_status load_chains(load_ctx *c) {
  pte_method *m = c->m;
  pte_fb_vec chains = pte_et_ExecutionPlan_chains(c->plan);
  if (!chains.present || chains.len == 0) return LERR(c, PTE_ERR_INVALID_PROGRAM, "method '%s' has no chains", m->name);
  m->n_chains = chains.len;
  m->chains = PTE_ALLOC_ARRAY(m->method_allocator, pte_chain_rt, chains.len);
  if (!m->chains) return LERR(c, PTE_ERR_MEMORY_ALLOCATION_FAILED, "method allocator exhausted (chains)");
  pte_fb_vec ops = pte_et_ExecutionPlan_operators(c->plan);
  m->n_ops = ops.len;
  m->ops = PTE_ALLOC_ARRAY(m->method_allocator, pte_operator_rt, ops.len);
  if (!m->ops) return LERR(c, PTE_ERR_MEMORY_ALLOCATION_FAILED, "method allocator exhausted (operators)");
  memset(m->ops, 0, sizeof(pte_operator_rt) * ops.len);

  size_t n_missing = 0;
  char key[660];
  /* Lookup cache: instructions of one operator usually share a key, and a registry lookup is a
   * linear scan. Direct-mapped by operator index; exact key comparison. */
  struct {
    int32_t op;
    char key[96];
    pte_op_fn fn;
  } cache[16];
  for (size_t k = 0; k < 16; k++) cache[k].op = -1;
  for (uint32_t ci = 0; ci < chains.len; ci++) {
    pte_fb_vec ins = pte_et_Chain_instructions(pte_fb_vec_table(chains, ci));
    if (!ins.present) return LERR(c, PTE_ERR_INVALID_PROGRAM, "missing instructions in chain %u", (unsigned)ci);
    pte_chain_rt *ch = &m->chains[ci];
    ch->n = ins.len;
    ch->instrs = PTE_ALLOC_ARRAY(m->method_allocator, pte_instr, ins.len);
    if (!ch->instrs) return LERR(c, PTE_ERR_MEMORY_ALLOCATION_FAILED, "method allocator exhausted (chain %u)", (unsigned)ci);
    memset(ch->instrs, 0, sizeof(pte_instr) * ins.len);
    for (uint32_t ii = 0; ii < ins.len; ii++) {
      pte_instr *in = &ch->instrs[ii];
      pte_fb_table it = pte_fb_vec_table(ins, ii);
      uint8_t type = pte_et_Instruction_instr_args_type(it);
      pte_fb_table a = pte_et_Instruction_instr_args(it);
      if (!pte_fb_table_present(it) || !pte_fb_table_present(a))
        return LERR(c, PTE_ERR_INVALID_PROGRAM, "null instruction %u in chain %u", (unsigned)ii, (unsigned)ci);
      in->kind = type;
      pte_status s;
      switch (type) {
        case pte_et_InstructionArguments_KernelCall: {
          int32_t op = pte_et_KernelCall_op_index(a);
          pte_fb_vec idx = pte_et_KernelCall_args(a);
          if (!idx.present) return LERR(c, PTE_ERR_INVALID_PROGRAM, "instruction %u: KernelCall args missing", (unsigned)ii);
          if (op < 0 || (uint32_t)op >= ops.len)
            return LERR(c, PTE_ERR_INVALID_PROGRAM, "instruction %u: operator index %d out of range (%u operators)",
                        (unsigned)ii, (int)op, (unsigned)ops.len);
          if ((s = build_args(c, idx, ii, &in->args)) != PTE_OK) return s;
          in->nargs = idx.len;
          in->a = (uint32_t)op;
          const char *name = NULL;
          if ((s = op_name(c, ops, (uint32_t)op, &name)) != PTE_OK) return s;
          const char *k = pte_kernel_key(in->args, in->nargs, key, sizeof key) == PTE_OK ? key : NULL;
          size_t slot = (size_t)op % 16, klen = k ? strlen(k) : 0;
          if (k && klen < sizeof cache[0].key && cache[slot].op == op && strcmp(cache[slot].key, k) == 0) {
            in->fn = cache[slot].fn;
          } else {
            in->fn = pte_kernel_lookup(name, k, c->opts->kernels, c->opts->kernels ? c->opts->n_kernels : 0);
            if (k && klen < sizeof cache[0].key) {
              cache[slot].op = op;
              memcpy(cache[slot].key, k, klen + 1);
              cache[slot].fn = in->fn;
            }
          }
          if (!in->fn) {
            m->ops[op].missing = true;
            n_missing++;
          }
          break;
        }
        case pte_et_InstructionArguments_DelegateCall: {
          int32_t di = pte_et_DelegateCall_delegate_index(a);
          pte_fb_vec idx = pte_et_DelegateCall_args(a);
          if (!idx.present) return LERR(c, PTE_ERR_INVALID_PROGRAM, "instruction %u: DelegateCall args missing", (unsigned)ii);
          if (di < 0 || (size_t)di >= m->n_delegates)
            return LERR(c, PTE_ERR_INVALID_PROGRAM, "instruction %u: delegate index %d out of range (method has %zu delegates)",
                        (unsigned)ii, (int)di, m->n_delegates);
          if ((s = build_args(c, idx, ii, &in->args)) != PTE_OK) return s;
          in->nargs = idx.len;
          in->a = (uint32_t)di;
          break;
        }
        case pte_et_InstructionArguments_MoveCall: {
          int32_t from = pte_et_MoveCall_move_from(a), to = pte_et_MoveCall_move_to(a);
          if ((s = check_value_index(c, from, ii, "MoveCall source")) != PTE_OK) return s;
          if ((s = check_value_index(c, to, ii, "MoveCall destination")) != PTE_OK) return s;
          in->a = (uint32_t)from;
          in->b = (uint32_t)to;
          break;
        }
        case pte_et_InstructionArguments_JumpFalseCall: {
          int32_t cond = pte_et_JumpFalseCall_cond_value_index(a), dest = pte_et_JumpFalseCall_destination_instruction(a);
          if ((s = check_value_index(c, cond, ii, "JumpFalseCall condition")) != PTE_OK) return s;
          in->a = (uint32_t)cond;
          in->b = dest < 0 ? SIZE_MAX : (size_t)dest; /* out of range just ends the chain */
          break;
        }
        case pte_et_InstructionArguments_FreeCall: {
          int32_t vi = pte_et_FreeCall_value_index(a);
          if ((s = check_value_index(c, vi, ii, "FreeCall")) != PTE_OK) return s;
          in->a = (uint32_t)vi;
          break;
        }
        default:
          return LERR(c, PTE_ERR_INVALID_PROGRAM, "instruction %u in chain %u has invalid type %u", (unsigned)ii,
                      (unsigned)ci, (unsigned)type);
      }
    }
  }
  if (n_missing) return missing_ops_error(c, n_missing);
  return PTE_OK;
}

/* Tensors used by instructions whose data must be supplied by the caller before execute. */
static pte_status collect_unbacked(load_ctx *c) {
  pte_method *m = c->m;
  size_t count = 0;
  uint8_t *mark = PTE_ALLOC_ARRAY(m->method_allocator, uint8_t, m->n_values);
  if (!mark) return LERR(c, PTE_ERR_MEMORY_ALLOCATION_FAILED, "method allocator exhausted (value marks)");
  memset(mark, 0, m->n_values);
  for (size_t ci = 0; ci < m->n_chains; ci++) {
    for (size_t ii = 0; ii < m->chains[ci].n; ii++) {
      const pte_instr *in = &m->chains[ci].instrs[ii];
      for (size_t k = 0; k < in->nargs; k++) {
        const pte_evalue *v = in->args[k];
        if (v->tag != PTE_TAG_TENSOR || v->u.tensor->data || v->u.tensor->capacity_bytes == 0) continue;
        size_t vi = (size_t)(v - m->values);
        if (!mark[vi]) {
          mark[vi] = 1;
          count++;
        }
      }
    }
  }
  m->unbacked = PTE_ALLOC_ARRAY(m->method_allocator, uint32_t, count);
  if (!m->unbacked) return LERR(c, PTE_ERR_MEMORY_ALLOCATION_FAILED, "method allocator exhausted (unbacked list)");
  m->n_unbacked = 0;
  for (size_t vi = 0; vi < m->n_values; vi++)
    if (mark[vi]) m->unbacked[m->n_unbacked++] = (uint32_t)vi;
  return PTE_OK;
}

static void release(pte_method *m) {
  for (size_t i = 0; m->delegates && i < m->n_delegates; i++) {
    pte_delegate_rt *d = &m->delegates[i];
    if (d->initialized) {
      if (d->backend->destroy) d->backend->destroy(d->handle);
      d->initialized = false;
    }
    pte_freeable_buffer_free(&d->processed);
  }
  for (pte_external_const *e = m->ext; e; e = e->next) pte_freeable_buffer_free(&e->buf);
  m->ext = NULL;
  m->initialized = false;
}

static pte_status load_body(load_ctx *c) {
  pte_method *m = c->m;
  pte_status s;
  c->values = pte_et_ExecutionPlan_values(c->plan);
  if (!c->values.present) return LERR(c, PTE_ERR_INVALID_PROGRAM, "method '%s' has no values", m->name);
  if ((s = parse_io(c, true, &m->inputs, &m->n_inputs)) != PTE_OK) return s;
  if ((s = parse_io(c, false, &m->outputs, &m->n_outputs)) != PTE_OK) return s;
  m->input_set = PTE_ALLOC_ARRAY(m->method_allocator, bool, m->n_inputs);
  if (!m->input_set) return LERR(c, PTE_ERR_MEMORY_ALLOCATION_FAILED, "method allocator exhausted (input flags)");
  for (size_t i = 0; i < m->n_inputs; i++) m->input_set[i] = false;
  if ((s = parse_values(c)) != PTE_OK) return s;
  if ((s = init_delegates(c)) != PTE_OK) return s;
  if ((s = load_chains(c)) != PTE_OK) return s;
  return collect_unbacked(c);
}

pte_status pte_method_load_ex(const pte_program *program, const char *name, const pte_memory_manager *mm,
                              const pte_method_options *opts, pte_method **out, pte_error_info *err) {
  if (out) *out = NULL;
  if (!program || !name || !mm || !out || !mm->method_allocator)
    return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "NULL program, name, memory manager, method allocator or out");
  if (mm->temp_allocator == mm->method_allocator)
    return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "the temp allocator must differ from the method allocator");
  pte_method_options defaults;
  memset(&defaults, 0, sizeof defaults);
  if (!opts) opts = &defaults;

  pte_method_meta meta;
  pte_status s = pte_method_meta_get(program, name, &meta, err);
  if (s != PTE_OK) return s;
  if (opts->max_planned_memory) { /* resource cap (docs/robustness.md) */
    uint64_t planned = 0;
    if ((s = pte_method_meta_planned_memory(&meta, &planned)) != PTE_OK)
      return pte_error_set(err, s, "method '%s': malformed non_const_buffer_sizes", meta.name);
    if (planned > opts->max_planned_memory)
      return pte_error_set(err, PTE_ERR_OUT_OF_RESOURCES,
                           "method '%s' plans %llu bytes of memory, over the limit of %llu", meta.name,
                           (unsigned long long)planned, (unsigned long long)opts->max_planned_memory);
  }

  pte_allocator *ma = mm->method_allocator;
  size_t saved = ma->used;
  uint64_t tok = pte_tracer_begin(opts->tracer, "Method::init", -1, -1);
  pte_method *m = PTE_ALLOC(ma, pte_method);
  if (!m) {
    pte_tracer_end(opts->tracer, tok);
    return pte_error_set(err, PTE_ERR_MEMORY_ALLOCATION_FAILED, "method allocator exhausted (method object)");
  }
  memset(m, 0, sizeof *m);
  m->program = program;
  m->meta = meta;
  m->name = meta.name;
  m->method_allocator = ma;
  m->tracer = opts->tracer;
  m->max_instructions = opts->max_instructions ? opts->max_instructions : PTE_METHOD_DEFAULT_MAX_INSTRUCTIONS;
  if (mm->temp_allocator) {
    m->temp = mm->temp_allocator;
  } else if (opts->temp_arena_size) {
    void *arena = pte_allocator_alloc(ma, opts->temp_arena_size, 0);
    if (!arena) {
      ma->used = saved;
      pte_tracer_end(opts->tracer, tok);
      return pte_error_set(err, PTE_ERR_MEMORY_ALLOCATION_FAILED, "method allocator cannot hold a %zu-byte temp arena",
                           opts->temp_arena_size);
    }
    pte_allocator_init(&m->temp_arena, arena, opts->temp_arena_size);
    m->temp = &m->temp_arena;
  }

  load_ctx c;
  c.m = m;
  c.mm = mm;
  c.opts = opts;
  c.external = opts->external_data;
  c.plan = pte_method_plan_table(&meta);
  c.n_planned_declared = pte_method_meta_num_planned_buffers(&meta);
  c.err = err;
  memset(&c.values, 0, sizeof c.values);

  s = load_body(&c);
  if (s != PTE_OK) {
    release(m);
    ma->used = saved;
    pte_tracer_end(opts->tracer, tok);
    return s;
  }
  m->chain_idx = m->instr_idx = 0;
  m->initialized = true;
  pte_tracer_end(opts->tracer, tok);
  *out = m;
  return PTE_OK;
}

pte_status pte_method_load(const pte_program *program, const char *name, const pte_memory_manager *mm,
                           pte_event_tracer *tracer, const pte_named_data_map *external_data, pte_method **out,
                           pte_error_info *err) {
  pte_method_options o;
  memset(&o, 0, sizeof o);
  o.tracer = tracer;
  o.external_data = external_data;
  return pte_method_load_ex(program, name, mm, &o, out, err);
}

void pte_method_destroy(pte_method *m) {
  if (!m) return;
  release(m);
}
