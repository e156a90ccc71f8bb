/* Method metadata: inputs, outputs and planned buffer sizes read straight from the plan. */
#include <string.h>

#include "method_internal.h"
#include "pte/program.h"

pte_status pte_method_read_tensor_info(pte_fb_table t, pte_tensor_info *info, pte_tensor_fb *fb, pte_error_info *err,
                                       size_t vi) {
  memset(info, 0, sizeof *info);
  int st = pte_et_Tensor_scalar_type(t);
  if (!pte_dtype_valid(st))
    return pte_error_set(err, PTE_ERR_INVALID_PROGRAM, "value %zu: invalid scalar type %d", vi, st);
  info->dtype = (uint8_t)st;
  int dyn = pte_et_Tensor_shape_dynamism(t);
  if (dyn < 0 || dyn > PTE_SHAPE_DYNAMIC_UNBOUND)
    return pte_error_set(err, PTE_ERR_INVALID_PROGRAM, "value %zu: invalid shape dynamism %d", vi, dyn);
  info->dynamism = (uint8_t)dyn;
  pte_fb_vec sizes = pte_et_Tensor_sizes(t);
  pte_fb_vec order = pte_et_Tensor_dim_order(t);
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
  fb->alloc = pte_et_Tensor_allocation_info(t);
  fb->extra = pte_et_Tensor_extra_tensor_info(t);
  fb->dim_order = order;
  fb->data_buffer_idx = pte_et_Tensor_data_buffer_idx(t);
  fb->has_alloc = pte_fb_table_present(fb->alloc);
  fb->external = pte_fb_table_present(fb->extra) && pte_et_ExtraTensorInfo_location(fb->extra) == 1;
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
  pte_fb_vec plans = pte_et_Program_execution_plan(root);
  if (!plans.present) return pte_error_set(err, PTE_ERR_INVALID_PROGRAM, "program has no execution_plan");
  size_t nlen = strlen(name);
  for (uint32_t i = 0; i < plans.len; i++) {
    pte_fb_table p = pte_fb_vec_table(plans, i);
    pte_fb_str pn = pte_et_ExecutionPlan_name(p);
    if (!pn.ptr) {
      if (!pte_fb_table_present(p))
        return pte_error_set(err, PTE_ERR_INVALID_PROGRAM, "execution plan %u is missing", (unsigned)i);
      continue;
    }
    if (pn.len != nlen || memcmp(pn.ptr, name, nlen) != 0) continue;
    if (!pte_et_ExecutionPlan_inputs(p).present || !pte_et_ExecutionPlan_outputs(p).present ||
        !pte_et_ExecutionPlan_non_const_buffer_sizes(p).present)
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
  return meta ? pte_et_ExecutionPlan_inputs(plan_of(meta)).len : 0;
}

size_t pte_method_meta_num_outputs(const pte_method_meta *meta) {
  return meta ? pte_et_ExecutionPlan_outputs(plan_of(meta)).len : 0;
}

/* Value table entry behind input/output i. */
static pte_status io_value(const pte_method_meta *meta, bool inputs, size_t i, pte_fb_table *val,
                           uint8_t *type, pte_error_info *err) {
  if (!meta) return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "NULL meta");
  pte_fb_table plan = plan_of(meta);
  pte_fb_vec io = inputs ? pte_et_ExecutionPlan_inputs(plan) : pte_et_ExecutionPlan_outputs(plan);
  const char *what = inputs ? "input" : "output";
  if (i >= io.len)
    return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "%s index %zu out of range (method has %u)", what, i,
                         (unsigned)io.len);
  int32_t vi = pte_fb_vec_i32(io, (uint32_t)i);
  pte_fb_vec values = pte_et_ExecutionPlan_values(plan);
  if (vi < 0 || (uint32_t)vi >= values.len)
    return pte_error_set(err, PTE_ERR_INVALID_PROGRAM, "%s %zu refers to value %d out of range", what, i, vi);
  pte_fb_table ev = pte_fb_vec_table(values, (uint32_t)vi);
  *type = pte_et_EValue_val_type(ev);
  *val = pte_et_EValue_val(ev);
  return PTE_OK;
}

static pte_status io_tag(const pte_method_meta *meta, bool inputs, size_t i, pte_tag *out) {
  pte_fb_table val;
  uint8_t type = 0;
  pte_status s = io_value(meta, inputs, i, &val, &type, NULL);
  if (s != PTE_OK) return s;
  switch (type) {
    case pte_et_KernelTypes_Null: *out = PTE_TAG_NONE; return PTE_OK;
    case pte_et_KernelTypes_Int: *out = PTE_TAG_INT; return PTE_OK;
    case pte_et_KernelTypes_Bool: *out = PTE_TAG_BOOL; return PTE_OK;
    case pte_et_KernelTypes_Double: *out = PTE_TAG_DOUBLE; return PTE_OK;
    case pte_et_KernelTypes_String: *out = PTE_TAG_STRING; return PTE_OK;
    case pte_et_KernelTypes_Tensor: *out = PTE_TAG_TENSOR; return PTE_OK;
    default: return PTE_ERR_INTERNAL;
  }
}

pte_status pte_method_meta_input_tag(const pte_method_meta *meta, size_t i, pte_tag *out) {
  if (!out) return PTE_ERR_INVALID_ARGUMENT;
  return io_tag(meta, true, i, out);
}

pte_status pte_method_meta_output_tag(const pte_method_meta *meta, size_t i, pte_tag *out) {
  if (!out) return PTE_ERR_INVALID_ARGUMENT;
  return io_tag(meta, false, i, out);
}

static pte_status io_tensor_info(const pte_method_meta *meta, bool inputs, size_t i, pte_tensor_info *out) {
  if (!out) return PTE_ERR_INVALID_ARGUMENT;
  pte_fb_table val;
  uint8_t type = 0;
  pte_status s = io_value(meta, inputs, i, &val, &type, NULL);
  if (s != PTE_OK) return s;
  if (type != pte_et_KernelTypes_Tensor) return PTE_ERR_INVALID_ARGUMENT;
  if (!pte_fb_table_present(val)) return PTE_ERR_INVALID_PROGRAM;
  return pte_method_read_tensor_info(val, out, NULL, NULL, i);
}

pte_status pte_method_meta_input_tensor_info(const pte_method_meta *meta, size_t i, pte_tensor_info *out) {
  return io_tensor_info(meta, true, i, out);
}

pte_status pte_method_meta_output_tensor_info(const pte_method_meta *meta, size_t i, pte_tensor_info *out) {
  return io_tensor_info(meta, false, i, out);
}

size_t pte_method_meta_num_planned_buffers(const pte_method_meta *meta) {
  if (!meta) return 0;
  pte_fb_vec v = pte_et_ExecutionPlan_non_const_buffer_sizes(plan_of(meta));
  return v.len ? v.len - 1 : 0;
}

pte_status pte_method_meta_planned_buffer_size(const pte_method_meta *meta, size_t i, uint64_t *out) {
  if (!meta || !out) return PTE_ERR_INVALID_ARGUMENT;
  pte_fb_vec v = pte_et_ExecutionPlan_non_const_buffer_sizes(plan_of(meta));
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
  pte_fb_vec chains = pte_et_ExecutionPlan_chains(plan_of(meta));
  size_t n = 0;
  for (uint32_t c = 0; c < chains.len; c++)
    n += pte_et_Chain_instructions(pte_fb_vec_table(chains, c)).len;
  return n;
}

size_t pte_method_meta_num_delegates(const pte_method_meta *meta) {
  return meta ? pte_et_ExecutionPlan_delegates(plan_of(meta)).len : 0;
}

const char *pte_method_meta_delegate_id(const pte_method_meta *meta, size_t i) {
  if (!meta) return NULL;
  pte_fb_vec d = pte_et_ExecutionPlan_delegates(plan_of(meta));
  if (i >= d.len) return NULL;
  return pte_et_BackendDelegate_id(pte_fb_vec_table(d, (uint32_t)i)).ptr;
}
