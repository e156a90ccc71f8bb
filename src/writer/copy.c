/* copy.c — feeding a loaded program into the builder ("copy program"), and pte migrate. */
#include <string.h>

#include "format/flatbuf.h"
#include "pte/io.h"
#include "pte/program.h"
#include "pte/tensor.h"
#include "pte_gen/program_gen.h"
#include "writer/writer_pte.h"


typedef struct cp_state {
  pte_writer *w;
  const pte_program *p;
  const uint8_t *fb;
  size_t fb_size;
  pte_fb_table root;
  uint64_t base;            /* segment base offset */
  int32_t *seg_blob;        /* segment index -> blob id (-1) */
  int32_t *inline_blob;     /* backend_delegate_data index -> blob id (-1) */
  size_t n_segs, n_inline;
} cp_state;

/* Largest nbytes over tensors that use data_buffer_idx `idx` as a constant (planned == false) or
 * as a mutable initial value (planned == true); 0 if none. */
static uint64_t max_tensor_bytes(cp_state *c, uint32_t idx, bool planned, bool *found) {
  uint64_t best = 0;
  *found = false;
  pte_fb_vec plans = pte_et_Program_execution_plan(c->root);
  for (uint32_t pi = 0; pi < plans.len; pi++) {
    pte_fb_vec vals = pte_et_ExecutionPlan_values(pte_fb_vec_table(plans, pi));
    for (uint32_t vi = 0; vi < vals.len; vi++) {
      pte_fb_table ev = pte_fb_vec_table(vals, vi);
      if (pte_et_EValue_val_type(ev) != pte_et_KernelTypes_Tensor) continue;
      pte_fb_table t = pte_et_EValue_val(ev);
      if (pte_et_Tensor_data_buffer_idx(t) != idx) continue;
      pte_fb_table extra = pte_et_Tensor_extra_tensor_info(t);
      if (pte_fb_table_present(extra) && pte_et_ExtraTensorInfo_location(extra) == pte_et_TensorDataLocation_EXTERNAL) continue;
      if (pte_et_Tensor_allocation_info_present(t) != planned) continue;
      pte_fb_vec sz = pte_et_Tensor_sizes(t);
      uint64_t n = pte_dtype_size(pte_et_Tensor_scalar_type(t));
      for (uint32_t k = 0; k < sz.len; k++) {
        int32_t d = pte_fb_vec_i32(sz, k);
        n *= d > 0 ? (uint64_t)d : 0;
      }
      if (n > best) best = n;
      *found = true;
    }
  }
  return best;
}

/* Entry sizes for a SubsegmentOffsets over a segment of seg_size bytes: the tensors' byte size when
 * known, else the gap to the next larger offset. */
static pte_status cp_entry_size(cp_state *c, pte_fb_vec offs, uint32_t i, uint64_t seg_size, bool planned, uint64_t *out,
                             pte_error_info *err) {
  uint64_t off = pte_fb_vec_u64(offs, i);
  if (off > seg_size)
    return pte_error_set(err, PTE_ERR_INVALID_PROGRAM, "copy: offset %u (%llu) is past its segment (%llu bytes)", i,
                         (unsigned long long)off, (unsigned long long)seg_size);
  bool found = false;
  uint64_t n = max_tensor_bytes(c, i, planned, &found);
  if (!found) {
    uint64_t next = seg_size;
    for (uint32_t k = 0; k < offs.len; k++) {
      uint64_t o = pte_fb_vec_u64(offs, k);
      if (o > off && o < next) next = o;
    }
    n = next - off;
  }
  if (n > seg_size - off)
    return pte_error_set(err, PTE_ERR_INVALID_PROGRAM, "copy: entry %u (%llu bytes at %llu) overruns its segment (%llu bytes)", i,
                         (unsigned long long)n, (unsigned long long)off, (unsigned long long)seg_size);
  *out = n;
  return PTE_OK;
}

static pte_status copy_constants(cp_state *c, pte_error_info *err) {
  pte_constant_storage cs = pte_program_constant_storage(c->p);
  pte_status s;
  if (cs == PTE_CONSTANTS_INLINE) {
    pte_fb_vec cb = pte_et_Program_constant_buffer(c->root);
    for (uint32_t i = 1; i < cb.len; i++) {
      pte_fb_vec st = pte_et_Buffer_storage(pte_fb_vec_table(cb, i));
      pte_source src = pte_source_memory(st.present ? pte_fb_vec_data(st) : NULL, st.present ? st.len : 0);
      s = pte_writer_add_constant(c->w, &src, NULL, err);
      if (s != PTE_OK) return s;
    }
    return PTE_OK;
  }
  if (cs != PTE_CONSTANTS_SEGMENT) return PTE_OK;
  pte_fb_table seg = pte_et_Program_constant_segment(c->root);
  pte_fb_vec offs = pte_et_SubsegmentOffsets_offsets(seg);
  if (!pte_fb_table_present(seg) || offs.len <= 1) return PTE_OK;
  uint64_t seg_off = 0, seg_size = 0;
  s = pte_program_segment(c->p, pte_et_SubsegmentOffsets_segment_index(seg), &seg_off, &seg_size);
  if (s != PTE_OK) return pte_error_set(err, PTE_ERR_INVALID_PROGRAM, "copy: constant segment missing");
  for (uint32_t i = 1; i < offs.len; i++) {
    uint64_t n = 0;
    s = cp_entry_size(c, offs, i, seg_size, false, &n, err);
    if (s != PTE_OK) return s;
    const void *ptr = NULL;
    s = pte_program_constant_data(c->p, i, (size_t)n, &ptr);
    if (s != PTE_OK) return pte_error_set(err, PTE_ERR_INVALID_PROGRAM, "copy: constant %u unreadable", i);
    pte_source src = pte_source_memory(ptr, n);
    s = pte_writer_add_constant(c->w, &src, NULL, err);
    if (s != PTE_OK) return s;
  }
  return PTE_OK;
}

static pte_status copy_mutables(cp_state *c, pte_error_info *err) {
  pte_fb_vec ms = pte_et_Program_mutable_data_segments(c->root);
  if (!ms.present || ms.len == 0) return PTE_OK;
  if (ms.len > 1)
    return pte_error_set(err, PTE_ERR_NOT_SUPPORTED, "copy: %u mutable data segments (runtimes use only the first)", ms.len);
  pte_fb_table sub = pte_fb_vec_table(ms, 0);
  pte_fb_vec offs = pte_et_SubsegmentOffsets_offsets(sub);
  if (offs.len <= 1) return PTE_OK;
  uint64_t seg_off = 0, seg_size = 0;
  pte_status s = pte_program_segment(c->p, pte_et_SubsegmentOffsets_segment_index(sub), &seg_off, &seg_size);
  if (s != PTE_OK) return pte_error_set(err, PTE_ERR_INVALID_PROGRAM, "copy: mutable data segment missing");
  for (uint32_t i = 1; i < offs.len; i++) {
    uint64_t n = 0;
    s = cp_entry_size(c, offs, i, seg_size, true, &n, err);
    if (s != PTE_OK) return s;
    pte_source src = pte_source_loader(c->p->loader, c->base + seg_off + pte_fb_vec_u64(offs, i), n);
    s = pte_writer_add_mutable(c->w, &src, NULL, err);
    if (s != PTE_OK) return s;
  }
  return PTE_OK;
}

static pte_status segment_blob(cp_state *c, uint32_t seg, uint32_t *blob, pte_error_info *err) {
  if (seg >= c->n_segs) return pte_error_set(err, PTE_ERR_INVALID_PROGRAM, "copy: segment %u out of range", seg);
  if (c->seg_blob[seg] < 0) {
    uint64_t off = 0, size = 0;
    pte_status s = pte_program_segment(c->p, seg, &off, &size);
    if (s != PTE_OK) return pte_error_set(err, PTE_ERR_INVALID_PROGRAM, "copy: segment %u unreadable", seg);
    pte_source src = pte_source_loader(c->p->loader, c->base + off, size);
    uint32_t b = 0;
    s = pte_writer_add_blob(c->w, &src, &b, err);
    if (s != PTE_OK) return s;
    c->seg_blob[seg] = (int32_t)b;
  }
  *blob = (uint32_t)c->seg_blob[seg];
  return PTE_OK;
}

static pte_status inline_blob(cp_state *c, uint32_t idx, uint32_t *blob, pte_error_info *err) {
  if (idx >= c->n_inline) return pte_error_set(err, PTE_ERR_INVALID_PROGRAM, "copy: inline delegate data %u out of range", idx);
  if (c->inline_blob[idx] < 0) {
    pte_fb_vec dd = pte_et_Program_backend_delegate_data(c->root);
    pte_fb_vec data = pte_et_BackendDelegateInlineData_data(pte_fb_vec_table(dd, idx));
    pte_source src = pte_source_memory(data.present ? pte_fb_vec_data(data) : NULL, data.present ? data.len : 0);
    uint32_t b = 0;
    pte_status s = pte_writer_add_blob(c->w, &src, &b, err);
    if (s != PTE_OK) return s;
    c->inline_blob[idx] = (int32_t)b;
  }
  *blob = (uint32_t)c->inline_blob[idx];
  return PTE_OK;
}

static const char *fbstr(pte_fb_str s) { return s.ptr; }

/* Vector of i32 as a host array in the arena (NULL when empty). */
static int32_t *i32_array(pte_writer *w, pte_fb_vec v) {
  int32_t *a = (int32_t *)pte_wr_alloc(&w->out_arena, (v.len ? v.len : 1) * sizeof(int32_t));
  if (a)
    for (uint32_t i = 0; i < v.len; i++) a[i] = pte_fb_vec_i32(v, i);
  return a;
}

static pte_status copy_value(cp_state *c, uint32_t m, pte_fb_table ev, uint32_t vi, pte_error_info *err) {
  pte_writer *w = c->w;
  uint8_t tag = pte_et_EValue_val_type(ev);
  pte_fb_table val = pte_et_EValue_val(ev);
  switch (tag) {
    case pte_et_KernelTypes_Null: return pte_writer_add_null(w, m, NULL, err);
    case pte_et_KernelTypes_Int: return pte_writer_add_int(w, m, pte_et_Int_int_val(val), NULL, err);
    case pte_et_KernelTypes_Bool: return pte_writer_add_bool(w, m, pte_et_Bool_bool_val(val), NULL, err);
    case pte_et_KernelTypes_Double: return pte_writer_add_double(w, m, pte_et_Double_double_val(val), NULL, err);
    case pte_et_KernelTypes_String: {
      pte_fb_str s = pte_et_String_string_val(val);
      return pte_writer_add_string(w, m, s.ptr ? s.ptr : "", s.ptr ? s.len : 0, NULL, err);
    }
    case pte_et_KernelTypes_IntList: {
      pte_fb_vec it = pte_et_IntList_items(val);
      int64_t *a = (int64_t *)pte_wr_alloc(&w->out_arena, (it.len ? it.len : 1) * sizeof(int64_t));
      if (!a) return PTE_WR_OOM(err);
      for (uint32_t i = 0; i < it.len; i++) a[i] = pte_fb_vec_i64(it, i);
      return pte_writer_add_int_list(w, m, a, it.len, NULL, err);
    }
    case pte_et_KernelTypes_DoubleList: {
      pte_fb_vec it = pte_et_DoubleList_items(val);
      double *a = (double *)pte_wr_alloc(&w->out_arena, (it.len ? it.len : 1) * sizeof(double));
      if (!a) return PTE_WR_OOM(err);
      for (uint32_t i = 0; i < it.len; i++) a[i] = pte_fb_vec_f64(it, i);
      return pte_writer_add_double_list(w, m, a, it.len, NULL, err);
    }
    case pte_et_KernelTypes_BoolList: {
      pte_fb_vec it = pte_et_BoolList_items(val);
      bool *a = (bool *)pte_wr_alloc(&w->out_arena, it.len ? it.len : 1);
      if (!a) return PTE_WR_OOM(err);
      for (uint32_t i = 0; i < it.len; i++) a[i] = pte_fb_vec_u8(it, i) != 0;
      return pte_writer_add_bool_list(w, m, a, it.len, NULL, err);
    }
    case pte_et_KernelTypes_TensorList:
    case pte_et_KernelTypes_OptionalTensorList: {
      pte_fb_vec it = tag == pte_et_KernelTypes_TensorList ? pte_et_TensorList_items(val) : pte_et_OptionalTensorList_items(val);
      int32_t *a = i32_array(w, it);
      if (!a) return PTE_WR_OOM(err);
      return tag == pte_et_KernelTypes_TensorList ? pte_writer_add_tensor_list(w, m, a, it.len, NULL, err)
                                                  : pte_writer_add_optional_tensor_list(w, m, a, it.len, NULL, err);
    }
    case pte_et_KernelTypes_Tensor: {
      pte_wr_tensor t;
      memset(&t, 0, sizeof t);
      pte_fb_vec sz = pte_et_Tensor_sizes(val), dord = pte_et_Tensor_dim_order(val);
      int32_t sizes[PTE_MAX_RANK];
      uint8_t order[PTE_MAX_RANK];
      if (sz.len > PTE_MAX_RANK)
        return pte_error_set(err, PTE_ERR_INVALID_PROGRAM, "copy: value %u: rank %u exceeds %d", vi, sz.len, PTE_MAX_RANK);
      for (uint32_t i = 0; i < sz.len; i++) sizes[i] = pte_fb_vec_i32(sz, i);
      bool have_order = dord.present && dord.len == sz.len;
      for (uint32_t i = 0; i < sz.len; i++) order[i] = have_order ? pte_fb_vec_u8(dord, i) : (uint8_t)i;
      t.dtype = pte_et_Tensor_scalar_type(val);
      t.dim = sz.len;
      t.sizes = sizes;
      t.dim_order = order;
      t.dynamism = pte_et_Tensor_shape_dynamism(val);
      t.requires_grad = pte_et_Tensor_requires_grad(val);
      t.layout = pte_et_Tensor_layout(val);
      uint32_t dbi = pte_et_Tensor_data_buffer_idx(val);
      pte_fb_table alloc = pte_et_Tensor_allocation_info(val);
      pte_fb_table extra = pte_et_Tensor_extra_tensor_info(val);
      bool has_alloc = pte_fb_table_present(alloc);
      if (has_alloc) {
        t.plan = PTE_WR_PLAN_EXPLICIT;
        t.mem_id = pte_et_AllocationDetails_memory_id(alloc);
        t.mem_offset = (uint64_t)pte_et_AllocationDetails_memory_offset_low(alloc) |
                       ((uint64_t)pte_et_AllocationDetails_memory_offset_high(alloc) << 32);
      }
      if (pte_fb_table_present(extra)) {
        t.extra_info = true;
        t.fqn = fbstr(pte_et_ExtraTensorInfo_fully_qualified_name(extra));
        t.external = pte_et_ExtraTensorInfo_location(extra) == pte_et_TensorDataLocation_EXTERNAL;
        t.device_type = pte_et_ExtraTensorInfo_device_type(extra);
        t.device_index = pte_et_ExtraTensorInfo_device_index(extra);
        t.mutable_data_segments_idx = pte_et_ExtraTensorInfo_mutable_data_segments_idx(extra);
      }
      if (t.external) t.external_buffer_idx = dbi;
      else if (has_alloc) t.mutable_init = dbi;
      else t.constant = dbi;
      if (t.mutable_init && w->mutables.n <= 1) /* dangling in the original: keep it out */
        return pte_error_set(err, PTE_ERR_INVALID_PROGRAM, "copy: value %u has mutable data %u but the program has none", vi, dbi);
      return pte_writer_add_tensor(w, m, &t, NULL, err);
    }
    default:
      return pte_error_set(err, PTE_ERR_INVALID_PROGRAM, "copy: value %u has unknown kind %u", vi, tag);
  }
}

static pte_status copy_plan(cp_state *c, pte_fb_table plan, pte_error_info *err) {
  pte_writer *w = c->w;
  uint32_t m = 0;
  pte_fb_str name = pte_et_ExecutionPlan_name(plan);
  pte_status s = pte_writer_add_method(w, name.ptr ? name.ptr : "", &m, err);
  if (s != PTE_OK) return s;
  pte_fb_vec vals = pte_et_ExecutionPlan_values(plan);
  for (uint32_t i = 0; i < vals.len && s == PTE_OK; i++) s = copy_value(c, m, pte_fb_vec_table(vals, i), i, err);
  if (s != PTE_OK) return s;
  pte_fb_vec in = pte_et_ExecutionPlan_inputs(plan), out = pte_et_ExecutionPlan_outputs(plan);
  int32_t *ia = i32_array(w, in), *oa = i32_array(w, out);
  if (!ia || !oa) return PTE_WR_OOM(err);
  s = pte_writer_set_inputs(w, m, ia, in.len, err);
  if (s == PTE_OK) s = pte_writer_set_outputs(w, m, oa, out.len, err);
  if (s != PTE_OK) return s;
  pte_fb_table meta = pte_et_ExecutionPlan_container_meta_type(plan);
  if (pte_fb_table_present(meta)) {
    s = pte_writer_set_container_meta(w, m, fbstr(pte_et_ContainerMetadata_encoded_inp_str(meta)),
                                      fbstr(pte_et_ContainerMetadata_encoded_out_str(meta)), err);
    if (s != PTE_OK) return s;
  }
  pte_fb_vec ops = pte_et_ExecutionPlan_operators(plan);
  for (uint32_t i = 0; i < ops.len; i++) {
    pte_fb_table o = pte_fb_vec_table(ops, i);
    s = pte_wr_add_operator_raw(w, m, fbstr(pte_et_Operator_name(o)) ? fbstr(pte_et_Operator_name(o)) : "",
                                fbstr(pte_et_Operator_overload(o)), NULL, err);
    if (s != PTE_OK) return s;
  }
  pte_fb_vec dels = pte_et_ExecutionPlan_delegates(plan);
  for (uint32_t i = 0; i < dels.len; i++) {
    pte_fb_table d = pte_fb_vec_table(dels, i);
    pte_fb_table ref = pte_et_BackendDelegate_processed(d);
    uint32_t blob = 0;
    uint32_t idx = pte_et_BackendDelegateDataReference_index(ref);
    if (pte_et_BackendDelegateDataReference_location(ref) == pte_et_DataLocation_SEGMENT) s = segment_blob(c, idx, &blob, err);
    else s = inline_blob(c, idx, &blob, err);
    if (s != PTE_OK) return s;
    pte_fb_vec specs = pte_et_BackendDelegate_compile_specs(d);
    pte_fb_vec scr = pte_et_BackendDelegate_scratch(d);
    pte_wr_compile_spec *cs = (pte_wr_compile_spec *)pte_wr_alloc(&w->out_arena, (specs.len ? specs.len : 1) * sizeof *cs);
    pte_wr_scratch *sc = (pte_wr_scratch *)pte_wr_alloc(&w->out_arena, (scr.len ? scr.len : 1) * sizeof *sc);
    if (!cs || !sc) return PTE_WR_OOM(err);
    for (uint32_t k = 0; k < specs.len; k++) {
      pte_fb_table t = pte_fb_vec_table(specs, k);
      pte_fb_vec v = pte_et_CompileSpec_value(t);
      cs[k].key = fbstr(pte_et_CompileSpec_key(t)) ? fbstr(pte_et_CompileSpec_key(t)) : "";
      cs[k].value = v.present ? pte_fb_vec_data(v) : NULL;
      cs[k].value_len = v.present ? v.len : 0;
    }
    for (uint32_t k = 0; k < scr.len; k++) {
      pte_fb_table t = pte_fb_vec_table(scr, k);
      sc[k].mem_id = pte_et_DelegateScratch_memory_id(t);
      sc[k].offset = pte_et_DelegateScratch_offset(t);
      sc[k].size = pte_et_DelegateScratch_size(t);
    }
    pte_fb_str id = pte_et_BackendDelegate_id(d);
    pte_wr_delegate wd;
    memset(&wd, 0, sizeof wd);
    wd.id = id.ptr ? id.ptr : "";
    wd.blob = blob;
    wd.compile_specs = cs;
    wd.n_compile_specs = specs.len;
    wd.scratch = sc;
    wd.n_scratch = scr.len;
    wd.share_handle = pte_et_BackendDelegate_share_handle(d);
    s = pte_writer_add_delegate(w, m, &wd, NULL, err);
    if (s != PTE_OK) return s;
  }
  pte_fb_vec chains = pte_et_ExecutionPlan_chains(plan);
  for (uint32_t ci = 0; ci < chains.len; ci++) {
    pte_fb_table ch = pte_fb_vec_table(chains, ci);
    pte_fb_vec cin = pte_et_Chain_inputs(ch), cout = pte_et_Chain_outputs(ch);
    int32_t *a = i32_array(w, cin), *b = i32_array(w, cout);
    if (!a || !b) return PTE_WR_OOM(err);
    uint32_t chain = 0;
    s = pte_writer_add_chain(w, m, a, cin.len, b, cout.len, &chain, err);
    if (s != PTE_OK) return s;
    pte_fb_vec ins = pte_et_Chain_instructions(ch);
    for (uint32_t k = 0; k < ins.len && s == PTE_OK; k++) {
      pte_fb_table in_t = pte_fb_vec_table(ins, k);
      uint8_t kind = pte_et_Instruction_instr_args_type(in_t);
      pte_fb_table args = pte_et_Instruction_instr_args(in_t);
      switch (kind) {
        case pte_et_InstructionArguments_KernelCall: {
          pte_fb_vec av = pte_et_KernelCall_args(args);
          int32_t *aa = i32_array(w, av);
          if (!aa) return PTE_WR_OOM(err);
          s = pte_writer_add_kernel_call(w, m, chain, (uint32_t)pte_et_KernelCall_op_index(args), aa, av.len, NULL, err);
          break;
        }
        case pte_et_InstructionArguments_DelegateCall: {
          pte_fb_vec av = pte_et_DelegateCall_args(args);
          int32_t *aa = i32_array(w, av);
          if (!aa) return PTE_WR_OOM(err);
          s = pte_writer_add_delegate_call(w, m, chain, (uint32_t)pte_et_DelegateCall_delegate_index(args), aa, av.len, NULL, err);
          break;
        }
        case pte_et_InstructionArguments_MoveCall:
          s = pte_writer_add_move_call(w, m, chain, pte_et_MoveCall_move_from(args), pte_et_MoveCall_move_to(args), NULL, err);
          break;
        case pte_et_InstructionArguments_JumpFalseCall:
          s = pte_writer_add_jump_false_call(w, m, chain, pte_et_JumpFalseCall_cond_value_index(args),
                                             pte_et_JumpFalseCall_destination_instruction(args), NULL, err);
          break;
        case pte_et_InstructionArguments_FreeCall:
          s = pte_writer_add_free_call(w, m, chain, pte_et_FreeCall_value_index(args), NULL, err);
          break;
        default: return pte_error_set(err, PTE_ERR_INVALID_PROGRAM, "copy: instruction %u has unknown kind %u", k, kind);
      }
    }
    if (s != PTE_OK) return s;
    pte_fb_vec st = pte_et_Chain_stacktrace(ch);
    for (uint32_t k = 0; st.present && k < st.len && k < ins.len; k++) {
      pte_fb_vec items = pte_et_FrameList_items(pte_fb_vec_table(st, k));
      pte_wr_frame *fr = (pte_wr_frame *)pte_wr_alloc(&w->out_arena, (items.len ? items.len : 1) * sizeof *fr);
      if (!fr) return PTE_WR_OOM(err);
      for (uint32_t j = 0; j < items.len; j++) {
        pte_fb_table f = pte_fb_vec_table(items, j);
        fr[j].filename = fbstr(pte_et_Frame_filename(f));
        fr[j].lineno = pte_et_Frame_lineno(f);
        fr[j].name = fbstr(pte_et_Frame_name(f));
        fr[j].context = fbstr(pte_et_Frame_context(f));
      }
      s = pte_writer_set_stacktrace(w, m, chain, k, fr, items.len, err);
      if (s != PTE_OK) return s;
    }
  }
  pte_fb_vec sizes = pte_et_ExecutionPlan_non_const_buffer_sizes(plan);
  int64_t *sz = (int64_t *)pte_wr_alloc(&w->out_arena, (sizes.len ? sizes.len : 1) * sizeof(int64_t));
  if (!sz) return PTE_WR_OOM(err);
  for (uint32_t i = 0; i < sizes.len; i++) sz[i] = pte_fb_vec_i64(sizes, i);
  s = pte_writer_set_buffer_sizes(w, m, sz, sizes.len, err);
  if (s != PTE_OK) return s;
  pte_fb_vec dev = pte_et_ExecutionPlan_non_const_buffer_device(plan);
  for (uint32_t i = 0; i < dev.len && s == PTE_OK; i++) {
    pte_fb_table d = pte_fb_vec_table(dev, i);
    s = pte_writer_set_buffer_device(w, m, pte_et_NonConstBufferDevice_buffer_idx(d), pte_et_NonConstBufferDevice_device_type(d),
                                     pte_et_NonConstBufferDevice_device_index(d), err);
  }
  return s;
}

pte_status pte_writer_copy_program(pte_writer *w, const pte_program *p, pte_error_info *err) {
  if (!w || !p) return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "copy: NULL argument");
  if (w->methods.n || w->constants.n > 1 || w->mutables.n > 1 || w->blobs.n || w->named.n || w->modules.n)
    return pte_error_set(err, PTE_ERR_INVALID_STATE, "copy: the builder is not empty");
  cp_state c;
  memset(&c, 0, sizeof c);
  c.w = w;
  c.p = p;
  c.fb = pte_program_flatbuffer(p, &c.fb_size);
  if (!c.fb) return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "copy: program not loaded");
  c.root = pte_fb_root(c.fb, c.fb_size);
  const pte_program_header *h = pte_program_get_header(p);
  c.base = h && h->present ? h->segment_base_offset : 0;
  c.n_segs = pte_program_num_segments(p);
  c.n_inline = pte_et_Program_backend_delegate_data(c.root).len;
  c.seg_blob = (int32_t *)pte_wr_alloc(&w->arena, (c.n_segs ? c.n_segs : 1) * sizeof(int32_t));
  c.inline_blob = (int32_t *)pte_wr_alloc(&w->arena, (c.n_inline ? c.n_inline : 1) * sizeof(int32_t));
  if (!c.seg_blob || !c.inline_blob) return PTE_WR_OOM(err);
  for (size_t i = 0; i < c.n_segs; i++) c.seg_blob[i] = -1;
  for (size_t i = 0; i < c.n_inline; i++) c.inline_blob[i] = -1;
  pte_wr_arena_free(&w->out_arena);
  pte_wr_arena_init(&w->out_arena, w->opt.realloc_fn, w->opt.realloc_ctx);
  w->version = pte_et_Program_version(c.root);
  w->lenient_sizes = true;
  pte_status s = copy_constants(&c, err);
  if (s == PTE_OK) s = copy_mutables(&c, err);
  pte_fb_vec plans = pte_et_Program_execution_plan(c.root);
  for (uint32_t i = 0; i < plans.len && s == PTE_OK; i++) s = copy_plan(&c, pte_fb_vec_table(plans, i), err);
  pte_fb_vec named = pte_et_Program_named_data(c.root);
  if (s == PTE_OK && named.present) {
    w->named_data_present = true;
    w->named_data_in_order = true; /* a copy keeps the source's order (a sorted source stays sorted) */
    for (uint32_t i = 0; i < named.len && s == PTE_OK; i++) {
      pte_fb_table nd = pte_fb_vec_table(named, i);
      uint32_t blob = 0;
      s = segment_blob(&c, pte_et_NamedData_segment_index(nd), &blob, err);
      if (s == PTE_OK) {
        pte_fb_str key = pte_et_NamedData_key(nd);
        s = pte_writer_add_named_data(w, key.ptr ? key.ptr : "", blob, 1, err);
      }
    }
  }
  w->lenient_sizes = false;
  pte_wr_arena_free(&w->out_arena);
  pte_wr_arena_init(&w->out_arena, w->opt.realloc_fn, w->opt.realloc_ctx);
  return s;
}

pte_status pte_migrate_file(const char *in_path, const char *out_path, const pte_writer_options *opt,
                            const pte_file_writer_options *fopt, pte_error_info *err) {
  if (!in_path || !out_path) return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "migrate: NULL path");
  pte_mmap_loader ml;
  pte_status s = pte_mmap_loader_open(&ml, in_path, PTE_MLOCK_NONE, err);
  if (s != PTE_OK) return s;
  pte_program prog;
  s = pte_program_load(&ml.base, PTE_VERIFY_INTERNAL_CONSISTENCY, &prog, err);
  if (s != PTE_OK) {
    pte_mmap_loader_close(&ml);
    return s;
  }
  pte_writer *w = NULL;
  s = pte_writer_create(opt, &w, err);
  if (s == PTE_OK) s = pte_writer_copy_program(w, &prog, err);
  if (s == PTE_OK) s = pte_writer_write_file(w, out_path, fopt, err);
  pte_writer_destroy(w);
  pte_program_destroy(&prog);
  pte_mmap_loader_close(&ml);
  return s;
}
