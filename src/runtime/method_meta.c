/* Method metadata: inputs, outputs and planned buffer sizes read straight from the plan. */
#include <string.h>

#include "method_internal.h"
#include "pte/program.h"

pte_status pte_method_read_tensor_info(pte_fb_table t, pte_tensor_info *info, pte_tensor_fb *fb, pte_error_info *err,
                                       size_t vi) {
  memset(info, 0, sizeof *info);
  int st = pte_fb_get_i8(t, PTE_S_TENSOR_SCALAR_TYPE, 0);
  if (!pte_dtype_valid(st))
    return pte_error_set(err, PTE_ERR_INVALID_PROGRAM, "value %zu: invalid scalar type %d", vi, st);
  info->dtype = (uint8_t)st;
  int dyn = pte_fb_get_i8(t, PTE_S_TENSOR_SHAPE_DYNAMISM, 0);
  if (dyn < 0 || dyn > PTE_SHAPE_DYNAMIC_UNBOUND)
    return pte_error_set(err, PTE_ERR_INVALID_PROGRAM, "value %zu: invalid shape dynamism %d", vi, dyn);
  info->dynamism = (uint8_t)dyn;
  pte_fb_vec sizes = pte_fb_get_vec(t, PTE_S_TENSOR_SIZES);
  pte_fb_vec order = pte_fb_get_vec(t, PTE_S_TENSOR_DIM_ORDER);
  if (!sizes.present || !order.present)
    return pte_error_set(err, PTE_ERR_INVALID_PROGRAM, "value %zu: tensor without %s", vi,
                         sizes.present ? "dim_order" : "sizes");
  if (sizes.len > PTE_MAX_RANK)
    return pte_error_set(err, PTE_ERR_INVALID_PROGRAM, "value %zu: tensor rank %u exceeds %d", vi,
                         (unsigned)sizes.len, PTE_MAX_RANK);
  if (order.len != sizes.len)
    return pte_error_set(err, PTE_ERR_INVALID_PROGRAM, "value %zu: dim_order has %u entries for rank %u", vi,
                         (unsigned)order.len, (unsigned)sizes.len);
  const uint8_t *sp = sizes.len ? pte_fb_vec_elem(sizes, 0, 4) : NULL;
  if (sizes.len && (!sp || !pte_fb_vec_elem(sizes, sizes.len - 1, 4)))
    return pte_error_set(err, PTE_ERR_INVALID_PROGRAM, "value %zu: sizes out of bounds", vi);
  const uint8_t *op = pte_fb_vec_data(order);
  info->dim = (int32_t)sizes.len;
  for (uint32_t d = 0; d < sizes.len; d++) {
    int32_t s = pte_fb_ld_i32(sp + 4 * d);
    if (s < 0) return pte_error_set(err, PTE_ERR_INVALID_PROGRAM, "value %zu: negative size %d in dim %u", vi, s, d);
    info->sizes[d] = s;
    info->dim_order[d] = op[d];
  }
  if (!pte_dim_order_valid(info->dim_order, info->dim))
    return pte_error_set(err, PTE_ERR_INVALID_PROGRAM, "value %zu: dim_order is not a permutation", vi);
  size_t numel;
  size_t es = pte_dtype_size(info->dtype);
  if (pte_numel(info->sizes, info->dim, &numel) != PTE_OK || (es && numel > SIZE_MAX / es))
    return pte_error_set(err, PTE_ERR_INVALID_PROGRAM, "value %zu: tensor size overflows", vi);
  info->nbytes = numel * es;
  pte_tensor_fb local;
  if (!fb) fb = &local;
  fb->alloc = pte_fb_get_table(t, PTE_S_TENSOR_ALLOCATION_INFO);
  fb->extra = pte_fb_get_table(t, PTE_S_TENSOR_EXTRA);
  fb->dim_order = order;
  fb->data_buffer_idx = pte_fb_get_u32(t, PTE_S_TENSOR_DATA_BUFFER_IDX, 0);
  fb->has_alloc = pte_fb_table_present(fb->alloc);
  fb->external = pte_fb_table_present(fb->extra) && pte_fb_get_i8(fb->extra, PTE_S_EXTRA_LOCATION, 0) == 1;
  info->is_memory_planned = fb->has_alloc || (fb->data_buffer_idx != 0 && !fb->external);
  return PTE_OK;
}

static pte_fb_table plan_of(const pte_method_meta *meta) { return pte_method_plan_table(meta); }

pte_status pte_method_meta_get(const pte_program *program, const char *name, pte_method_meta *meta,
                               pte_error_info *err) {
  if (!program || !name || !meta) return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "NULL argument");
  size_t fb_size = 0;
  const uint8_t *fb = pte_program_flatbuffer(program, &fb_size);
  if (!fb) return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "program is not loaded");
  pte_fb_table root = pte_fb_root(fb, fb_size);
  pte_fb_vec plans = pte_fb_get_vec(root, PTE_S_PROGRAM_EXECUTION_PLAN);
  if (!plans.present) return pte_error_set(err, PTE_ERR_INVALID_PROGRAM, "program has no execution_plan");
  size_t nlen = strlen(name);
  for (uint32_t i = 0; i < plans.len; i++) {
    pte_fb_table p = pte_fb_vec_table(plans, i);
    pte_fb_str pn = pte_fb_get_str(p, PTE_S_PLAN_NAME);
    if (!pn.ptr) {
      if (!pte_fb_table_present(p))
        return pte_error_set(err, PTE_ERR_INVALID_PROGRAM, "execution plan %u is missing", (unsigned)i);
      continue;
    }
    if (pn.len != nlen || memcmp(pn.ptr, name, nlen) != 0) continue;
    if (!pte_fb_get_vec(p, PTE_S_PLAN_INPUTS).present || !pte_fb_get_vec(p, PTE_S_PLAN_OUTPUTS).present ||
        !pte_fb_get_vec(p, PTE_S_PLAN_NON_CONST_BUFFER_SIZES).present)
      return pte_error_set(err, PTE_ERR_INVALID_PROGRAM,
                           "method '%s' lacks inputs, outputs or non_const_buffer_sizes", name);
    meta->program = program;
    meta->fb = fb;
    meta->fb_size = fb_size;
    meta->plan = p.pos;
    meta->name = pn.ptr;
    return PTE_OK;
  }
  return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "no method named '%s' in the program", name);
}

const char *pte_method_meta_name(const pte_method_meta *meta) { return meta ? meta->name : NULL; }

size_t pte_method_meta_num_inputs(const pte_method_meta *meta) {
  return meta ? pte_fb_get_vec(plan_of(meta), PTE_S_PLAN_INPUTS).len : 0;
}

size_t pte_method_meta_num_outputs(const pte_method_meta *meta) {
  return meta ? pte_fb_get_vec(plan_of(meta), PTE_S_PLAN_OUTPUTS).len : 0;
}

/* Value table entry behind input/output i. */
static pte_status io_value(const pte_method_meta *meta, unsigned slot, size_t i, pte_fb_table *val,
                           uint8_t *type, pte_error_info *err) {
  if (!meta) return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "NULL meta");
  pte_fb_table plan = plan_of(meta);
  pte_fb_vec io = pte_fb_get_vec(plan, slot);
  const char *what = slot == PTE_S_PLAN_INPUTS ? "input" : "output";
  if (i >= io.len)
    return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "%s index %zu out of range (method has %u)", what, i,
                         (unsigned)io.len);
  int32_t vi = pte_fb_vec_i32(io, (uint32_t)i);
  pte_fb_vec values = pte_fb_get_vec(plan, PTE_S_PLAN_VALUES);
  if (vi < 0 || (uint32_t)vi >= values.len)
    return pte_error_set(err, PTE_ERR_INVALID_PROGRAM, "%s %zu refers to value %d out of range", what, i, vi);
  pte_fb_table ev = pte_fb_vec_table(values, (uint32_t)vi);
  *type = pte_fb_get_u8(ev, PTE_S_EVALUE_TYPE, 0);
  *val = pte_fb_get_table(ev, PTE_S_EVALUE_VAL);
  return PTE_OK;
}

static pte_status io_tag(const pte_method_meta *meta, unsigned slot, size_t i, pte_tag *out) {
  pte_fb_table val;
  uint8_t type = 0;
  pte_status s = io_value(meta, slot, i, &val, &type, NULL);
  if (s != PTE_OK) return s;
  switch (type) {
    case PTE_KT_NULL: *out = PTE_TAG_NONE; return PTE_OK;
    case PTE_KT_INT: *out = PTE_TAG_INT; return PTE_OK;
    case PTE_KT_BOOL: *out = PTE_TAG_BOOL; return PTE_OK;
    case PTE_KT_DOUBLE: *out = PTE_TAG_DOUBLE; return PTE_OK;
    case PTE_KT_STRING: *out = PTE_TAG_STRING; return PTE_OK;
    case PTE_KT_TENSOR: *out = PTE_TAG_TENSOR; return PTE_OK;
    default: return PTE_ERR_INTERNAL;
  }
}

pte_status pte_method_meta_input_tag(const pte_method_meta *meta, size_t i, pte_tag *out) {
  if (!out) return PTE_ERR_INVALID_ARGUMENT;
  return io_tag(meta, PTE_S_PLAN_INPUTS, i, out);
}

pte_status pte_method_meta_output_tag(const pte_method_meta *meta, size_t i, pte_tag *out) {
  if (!out) return PTE_ERR_INVALID_ARGUMENT;
  return io_tag(meta, PTE_S_PLAN_OUTPUTS, i, out);
}

static pte_status io_tensor_info(const pte_method_meta *meta, unsigned slot, size_t i, pte_tensor_info *out) {
  if (!out) return PTE_ERR_INVALID_ARGUMENT;
  pte_fb_table val;
  uint8_t type = 0;
  pte_status s = io_value(meta, slot, i, &val, &type, NULL);
  if (s != PTE_OK) return s;
  if (type != PTE_KT_TENSOR) return PTE_ERR_INVALID_ARGUMENT;
  if (!pte_fb_table_present(val)) return PTE_ERR_INVALID_PROGRAM;
  return pte_method_read_tensor_info(val, out, NULL, NULL, i);
}

pte_status pte_method_meta_input_tensor_info(const pte_method_meta *meta, size_t i, pte_tensor_info *out) {
  return io_tensor_info(meta, PTE_S_PLAN_INPUTS, i, out);
}

pte_status pte_method_meta_output_tensor_info(const pte_method_meta *meta, size_t i, pte_tensor_info *out) {
  return io_tensor_info(meta, PTE_S_PLAN_OUTPUTS, i, out);
}

size_t pte_method_meta_num_planned_buffers(const pte_method_meta *meta) {
  if (!meta) return 0;
  pte_fb_vec v = pte_fb_get_vec(plan_of(meta), PTE_S_PLAN_NON_CONST_BUFFER_SIZES);
  return v.len ? v.len - 1 : 0;
}

pte_status pte_method_meta_planned_buffer_size(const pte_method_meta *meta, size_t i, uint64_t *out) {
  if (!meta || !out) return PTE_ERR_INVALID_ARGUMENT;
  pte_fb_vec v = pte_fb_get_vec(plan_of(meta), PTE_S_PLAN_NON_CONST_BUFFER_SIZES);
  if (v.len == 0 || i >= (size_t)v.len - 1) return PTE_ERR_INVALID_ARGUMENT;
  if (!pte_fb_vec_elem(v, (uint32_t)i + 1, 8)) return PTE_ERR_INVALID_PROGRAM;
  int64_t s = pte_fb_vec_i64(v, (uint32_t)i + 1);
  if (s < 0) return PTE_ERR_INVALID_PROGRAM;
  *out = (uint64_t)s;
  return PTE_OK;
}

pte_status pte_method_meta_planned_memory(const pte_method_meta *meta, uint64_t *total) {
  if (!meta || !total) return PTE_ERR_INVALID_ARGUMENT;
  uint64_t sum = 0;
  size_t n = pte_method_meta_num_planned_buffers(meta);
  for (size_t i = 0; i < n; i++) {
    uint64_t sz;
    pte_status s = pte_method_meta_planned_buffer_size(meta, i, &sz);
    if (s != PTE_OK) return s;
    if (sz > UINT64_MAX - sum) return PTE_ERR_INVALID_PROGRAM;
    sum += sz;
  }
  *total = sum;
  return PTE_OK;
}

size_t pte_method_meta_num_instructions(const pte_method_meta *meta) {
  if (!meta) return 0;
  pte_fb_vec chains = pte_fb_get_vec(plan_of(meta), PTE_S_PLAN_CHAINS);
  size_t n = 0;
  for (uint32_t c = 0; c < chains.len; c++)
    n += pte_fb_get_vec(pte_fb_vec_table(chains, c), PTE_S_CHAIN_INSTRUCTIONS).len;
  return n;
}

size_t pte_method_meta_num_delegates(const pte_method_meta *meta) {
  return meta ? pte_fb_get_vec(plan_of(meta), PTE_S_PLAN_DELEGATES).len : 0;
}

const char *pte_method_meta_delegate_id(const pte_method_meta *meta, size_t i) {
  if (!meta) return NULL;
  pte_fb_vec d = pte_fb_get_vec(plan_of(meta), PTE_S_PLAN_DELEGATES);
  if (i >= d.len) return NULL;
  return pte_fb_get_str(pte_fb_vec_table(d, (uint32_t)i), PTE_S_DELEGATE_ID).ptr;
}
