/* writer_emit.c — layout, flatbuffer construction and streaming of a built program. */
#include <stdlib.h>
#include <string.h>

#include "format/flatbuf.h"
#include "pte/headers.h"
#include "pte_gen/program_gen.h"
#include "writer/writer_pte.h"


typedef struct wr_emit {
  pte_writer *w;
  pte_wr_stream stream;
  pte_wr_vec segs;       /* wr_segment */
  int32_t *const_canon, *mut_canon, *blob_canon;
  uint64_t const_size, mut_size;
  bool has_mutable_segment;
  uint32_t *inline_blobs; /* backend_delegate_data order: canonical blob ids */
  size_t n_inline;
  pte_fb_builder fb;
  const uint8_t *fb_out;
  size_t fb_size;
  uint8_t header[64 + 32768];
  pte_writer_layout lay;
} wr_emit;

/* ------------------------------------------------------------------ layout */
static pte_status dedup_entries(wr_emit *e, pte_wr_vec *v, int32_t **canon, pte_error_info *err) {
  pte_writer *w = e->w;
  size_t n = v->n;
  *canon = (int32_t *)pte_wr_alloc(&w->out_arena, (n ? n : 1) * sizeof(int32_t));
  const pte_source **srcs = (const pte_source **)pte_wr_alloc(&w->out_arena, (n ? n : 1) * sizeof(*srcs));
  if (!*canon || !srcs) return PTE_WR_OOM(err);
  for (size_t i = 0; i < n; i++) srcs[i] = &PTE_WR_AT(*v, wr_entry, i).src;
  if (w->opt.no_dedup) {
    for (size_t i = 0; i < n; i++) (*canon)[i] = (int32_t)i;
    return PTE_OK;
  }
  return pte_wr_dedup(srcs, n, *canon, &w->out_arena, e->stream.buf, e->stream.cap, err);
}

/* Packs entries 0..n-1 (entry 0 is the empty placeholder); returns the segment size. Upstream:
 * every buffer except the last is followed by padding to `align`. */
static uint64_t pack_entries(pte_wr_vec *v, const int32_t *canon, uint64_t align) {
  uint64_t cur = 0;
  size_t n = v->n;
  size_t last_stored = 0;
  for (size_t i = 0; i < n; i++)
    if (canon[i] == (int32_t)i) last_stored = i;
  for (size_t i = 0; i < n; i++) {
    wr_entry *en = &PTE_WR_AT(*v, wr_entry, i);
    if (canon[i] != (int32_t)i) continue;
    en->offset = cur;
    cur += en->src.size;
    if (i != last_stored) cur = pte_wr_align(cur, align);
  }
  for (size_t i = 0; i < n; i++) {
    wr_entry *en = &PTE_WR_AT(*v, wr_entry, i);
    if (canon[i] != (int32_t)i) en->offset = PTE_WR_AT(*v, wr_entry, canon[i]).offset;
  }
  return cur;
}

static wr_segment *add_segment(wr_emit *e, uint8_t kind, uint32_t blob, uint64_t size, uint64_t align, pte_error_info *err) {
  wr_segment *s = (wr_segment *)pte_wr_vec_push(&e->w->out_arena, &e->segs, sizeof *s);
  if (!s) {
    PTE_WR_OOM(err);
    return NULL;
  }
  s->kind = kind;
  s->blob = blob;
  s->size = size;
  s->align = align;
  return s;
}

static pte_status layout_blobs(wr_emit *e, pte_error_info *err) {
  pte_writer *w = e->w;
  size_t nb = w->blobs.n;
  e->blob_canon = (int32_t *)pte_wr_alloc(&w->out_arena, (nb ? nb : 1) * sizeof(int32_t));
  e->inline_blobs = (uint32_t *)pte_wr_alloc(&w->out_arena, (nb ? nb : 1) * sizeof(uint32_t));
  const pte_source **srcs = (const pte_source **)pte_wr_alloc(&w->out_arena, (nb ? nb : 1) * sizeof(*srcs));
  if (!e->blob_canon || !e->inline_blobs || !srcs) return PTE_WR_OOM(err);
  for (size_t i = 0; i < nb; i++) {
    wr_blob *b = &PTE_WR_AT(w->blobs, wr_blob, i);
    srcs[i] = &b->src;
    b->segment = -1;
    b->inline_index = -1;
    b->align = 1;
  }
  pte_status s = PTE_OK;
  if (w->opt.no_dedup) {
    for (size_t i = 0; i < nb; i++) e->blob_canon[i] = (int32_t)i;
  } else {
    s = pte_wr_dedup(srcs, nb, e->blob_canon, &w->out_arena, e->stream.buf, e->stream.cap, err);
    if (s != PTE_OK) return s;
  }
  /* delegate blobs, walking methods then their delegates */
  for (size_t mi = 0; mi < w->methods.n; mi++) {
    wr_method *m = &PTE_WR_AT(w->methods, wr_method, mi);
    for (size_t di = 0; di < m->delegates.n; di++) {
      wr_delegate *d = &PTE_WR_AT(m->delegates, wr_delegate, di);
      uint32_t c = (uint32_t)e->blob_canon[d->blob];
      wr_blob *b = &PTE_WR_AT(w->blobs, wr_blob, c);
      bool seg;
      if (d->location == PTE_WR_BLOB_SEGMENT) seg = true;
      else if (d->location == PTE_WR_BLOB_INLINE) seg = false;
      else seg = !w->opt.keep_delegates_inline && b->src.size > 0;
      d->inline_data = !seg;
      if (seg) {
        if (b->segment < 0) {
          b->segment = (int32_t)e->segs.n;
          if (!add_segment(e, WR_SEG_BLOB, c, b->src.size, 1, err)) return err ? err->status : PTE_ERR_MEMORY_ALLOCATION_FAILED;
        }
        d->data_index = (uint32_t)b->segment;
      } else {
        if (b->inline_index < 0) {
          b->inline_index = (int32_t)e->n_inline;
          e->inline_blobs[e->n_inline++] = c;
        }
        d->data_index = (uint32_t)b->inline_index;
      }
    }
  }
  /* named data, in insertion order; one segment per unique blob */
  for (size_t i = 0; i < w->named.n; i++) {
    wr_named *nd = &PTE_WR_AT(w->named, wr_named, i);
    uint32_t c = (uint32_t)e->blob_canon[nd->blob];
    wr_blob *b = &PTE_WR_AT(w->blobs, wr_blob, c);
    if (b->segment < 0) {
      b->segment = (int32_t)e->segs.n;
      if (!add_segment(e, WR_SEG_BLOB, c, b->src.size, nd->align, err)) return err ? err->status : PTE_ERR_MEMORY_ALLOCATION_FAILED;
    } else {
      wr_segment *sg = &PTE_WR_AT(e->segs, wr_segment, b->segment);
      if (nd->align > sg->align) sg->align = nd->align;
    }
  }
  return PTE_OK;
}

/* ------------------------------------------------------------------ flatbuffer */
#define FB (&e->fb)

static pte_fb_ref str_ref(wr_emit *e, const char *s) { return s ? pte_fb_create_string(FB, s, strlen(s)) : 0; }

static pte_fb_ref build_tensor(wr_emit *e, const wr_tensor *t) {
  pte_fb_ref sizes = pte_et_Tensor_create_sizes(FB, t->sizes, t->dim);
  pte_fb_ref dord = pte_et_Tensor_create_dim_order(FB, t->dim_order, t->dim);
  pte_fb_ref alloc = 0, extra = 0;
  if (t->plan != PTE_WR_PLAN_NONE) {
    pte_et_AllocationDetails_start(FB);
    pte_et_AllocationDetails_add_memory_id(FB, t->mem_id);
    pte_et_AllocationDetails_add_memory_offset_low(FB, (uint32_t)(t->mem_offset & 0xffffffffu));
    pte_et_AllocationDetails_add_memory_offset_high(FB, (uint32_t)(t->mem_offset >> 32));
    alloc = pte_et_AllocationDetails_end(FB);
  }
  if (t->external || t->fqn || t->device_type || t->device_index || t->msi || t->extra_info) {
    pte_fb_ref fqn = str_ref(e, t->fqn);
    pte_et_ExtraTensorInfo_start(FB);
    pte_et_ExtraTensorInfo_add_mutable_data_segments_idx(FB, t->msi);
    pte_et_ExtraTensorInfo_add_fully_qualified_name(FB, fqn);
    pte_et_ExtraTensorInfo_add_location(FB, t->external ? pte_et_TensorDataLocation_EXTERNAL : pte_et_TensorDataLocation_SEGMENT);
    pte_et_ExtraTensorInfo_add_device_type(FB, t->device_type);
    pte_et_ExtraTensorInfo_add_device_index(FB, t->device_index);
    extra = pte_et_ExtraTensorInfo_end(FB);
  }
  uint32_t dbi = t->constant ? t->constant : t->mutable_init ? t->mutable_init : t->external ? t->external_buffer_idx : 0;
  pte_et_Tensor_start(FB);
  pte_et_Tensor_add_scalar_type(FB, t->dtype);
  pte_et_Tensor_add_sizes(FB, sizes);
  pte_et_Tensor_add_dim_order(FB, dord);
  pte_et_Tensor_add_requires_grad(FB, t->requires_grad);
  pte_et_Tensor_add_data_buffer_idx(FB, dbi);
  pte_et_Tensor_add_allocation_info(FB, alloc);
  pte_et_Tensor_add_layout(FB, t->layout);
  pte_et_Tensor_add_shape_dynamism(FB, t->dynamism);
  pte_et_Tensor_add_extra_tensor_info(FB, extra);
  return pte_et_Tensor_end(FB);
}

static pte_fb_ref build_value(wr_emit *e, const wr_value *v) {
  pte_fb_ref val = 0;
  switch (v->kind) {
    case WR_V_NULL:
      pte_et_Null_start(FB);
      val = pte_et_Null_end(FB);
      break;
    case WR_V_INT:
      pte_et_Int_start(FB);
      pte_et_Int_add_int_val(FB, v->u.i);
      val = pte_et_Int_end(FB);
      break;
    case WR_V_BOOL:
      pte_et_Bool_start(FB);
      pte_et_Bool_add_bool_val(FB, v->u.b);
      val = pte_et_Bool_end(FB);
      break;
    case WR_V_DOUBLE:
      pte_et_Double_start(FB);
      pte_et_Double_add_double_val(FB, v->u.d);
      val = pte_et_Double_end(FB);
      break;
    case WR_V_STRING: {
      pte_fb_ref s = pte_fb_create_string(FB, v->u.str.s, v->u.str.len);
      pte_et_String_start(FB);
      pte_et_String_add_string_val(FB, s);
      val = pte_et_String_end(FB);
      break;
    }
    case WR_V_TENSOR: val = build_tensor(e, v->u.t); break;
    case WR_V_INT_LIST: {
      pte_fb_ref it = pte_et_IntList_create_items(FB, (const int64_t *)v->u.list.items, v->u.list.n);
      pte_et_IntList_start(FB);
      pte_et_IntList_add_items(FB, it);
      val = pte_et_IntList_end(FB);
      break;
    }
    case WR_V_DOUBLE_LIST: {
      pte_fb_ref it = pte_et_DoubleList_create_items(FB, (const double *)v->u.list.items, v->u.list.n);
      pte_et_DoubleList_start(FB);
      pte_et_DoubleList_add_items(FB, it);
      val = pte_et_DoubleList_end(FB);
      break;
    }
    case WR_V_BOOL_LIST: {
      pte_fb_ref it = pte_et_BoolList_create_items(FB, (const bool *)v->u.list.items, v->u.list.n);
      pte_et_BoolList_start(FB);
      pte_et_BoolList_add_items(FB, it);
      val = pte_et_BoolList_end(FB);
      break;
    }
    case WR_V_TENSOR_LIST: {
      pte_fb_ref it = pte_et_TensorList_create_items(FB, (const int32_t *)v->u.list.items, v->u.list.n);
      pte_et_TensorList_start(FB);
      pte_et_TensorList_add_items(FB, it);
      val = pte_et_TensorList_end(FB);
      break;
    }
    case WR_V_OPT_TENSOR_LIST: {
      pte_fb_ref it = pte_et_OptionalTensorList_create_items(FB, (const int32_t *)v->u.list.items, v->u.list.n);
      pte_et_OptionalTensorList_start(FB);
      pte_et_OptionalTensorList_add_items(FB, it);
      val = pte_et_OptionalTensorList_end(FB);
      break;
    }
    default: break;
  }
  pte_et_EValue_start(FB);
  pte_et_EValue_add_val_type(FB, v->kind);
  pte_et_EValue_add_val(FB, val);
  return pte_et_EValue_end(FB);
}

static pte_fb_ref build_instr(wr_emit *e, const wr_instr *in) {
  pte_fb_ref args = 0, t = 0;
  switch (in->kind) {
    case WR_I_KERNEL:
      args = pte_et_KernelCall_create_args(FB, in->args, in->n_args);
      pte_et_KernelCall_start(FB);
      pte_et_KernelCall_add_op_index(FB, in->a);
      pte_et_KernelCall_add_args(FB, args);
      t = pte_et_KernelCall_end(FB);
      break;
    case WR_I_DELEGATE:
      args = pte_et_DelegateCall_create_args(FB, in->args, in->n_args);
      pte_et_DelegateCall_start(FB);
      pte_et_DelegateCall_add_delegate_index(FB, in->a);
      pte_et_DelegateCall_add_args(FB, args);
      t = pte_et_DelegateCall_end(FB);
      break;
    case WR_I_MOVE:
      pte_et_MoveCall_start(FB);
      pte_et_MoveCall_add_move_from(FB, in->a);
      pte_et_MoveCall_add_move_to(FB, in->b);
      t = pte_et_MoveCall_end(FB);
      break;
    case WR_I_JUMP_FALSE:
      pte_et_JumpFalseCall_start(FB);
      pte_et_JumpFalseCall_add_cond_value_index(FB, in->a);
      pte_et_JumpFalseCall_add_destination_instruction(FB, in->b);
      t = pte_et_JumpFalseCall_end(FB);
      break;
    case WR_I_FREE:
      pte_et_FreeCall_start(FB);
      pte_et_FreeCall_add_value_index(FB, in->a);
      t = pte_et_FreeCall_end(FB);
      break;
    default: break;
  }
  pte_et_Instruction_start(FB);
  pte_et_Instruction_add_instr_args_type(FB, in->kind);
  pte_et_Instruction_add_instr_args(FB, t);
  return pte_et_Instruction_end(FB);
}

static pte_fb_ref build_framelist(wr_emit *e, const wr_framelist *fl, pte_fb_ref *tmp) {
  pte_fb_ref items = 0;
  if (fl->set) {
    for (size_t i = 0; i < fl->n; i++) {
      const pte_wr_frame *f = &fl->frames[i];
      pte_fb_ref fn = str_ref(e, f->filename), nm = str_ref(e, f->name), cx = str_ref(e, f->context);
      pte_et_Frame_start(FB);
      pte_et_Frame_add_filename(FB, fn);
      pte_et_Frame_add_lineno(FB, f->lineno);
      pte_et_Frame_add_name(FB, nm);
      pte_et_Frame_add_context(FB, cx);
      tmp[i] = pte_et_Frame_end(FB);
    }
    items = pte_et_FrameList_create_items(FB, tmp, fl->n);
  }
  pte_et_FrameList_start(FB);
  pte_et_FrameList_add_items(FB, items);
  return pte_et_FrameList_end(FB);
}

static int wr_named_cmp(const void *a, const void *b) {
  return strcmp((*(const wr_named *const *)a)->key, (*(const wr_named *const *)b)->key);
}

static pte_fb_ref *refs_alloc(wr_emit *e, size_t n) {
  return (pte_fb_ref *)pte_wr_alloc(&e->w->out_arena, (n ? n : 1) * sizeof(pte_fb_ref));
}

static pte_status build_delegate(wr_emit *e, const wr_delegate *d, pte_fb_ref *out, pte_error_info *err) {
  pte_fb_ref id = str_ref(e, d->id);
  pte_et_BackendDelegateDataReference_start(FB);
  pte_et_BackendDelegateDataReference_add_location(FB, d->inline_data ? pte_et_DataLocation_INLINE : pte_et_DataLocation_SEGMENT);
  pte_et_BackendDelegateDataReference_add_index(FB, d->data_index);
  pte_fb_ref proc = pte_et_BackendDelegateDataReference_end(FB);
  pte_fb_ref *specs = refs_alloc(e, d->n_specs);
  if (!specs) return PTE_WR_OOM(err);
  for (size_t i = 0; i < d->n_specs; i++) {
    pte_fb_ref k = str_ref(e, d->specs[i].key);
    pte_fb_ref v = pte_et_CompileSpec_create_value(FB, d->specs[i].value, d->specs[i].len);
    pte_et_CompileSpec_start(FB);
    pte_et_CompileSpec_add_key(FB, k);
    pte_et_CompileSpec_add_value(FB, v);
    specs[i] = pte_et_CompileSpec_end(FB);
  }
  pte_fb_ref specs_v = pte_et_BackendDelegate_create_compile_specs(FB, specs, d->n_specs);
  pte_fb_ref scratch_v = 0;
  if (d->n_scratch) {
    pte_fb_ref *sc = refs_alloc(e, d->n_scratch);
    if (!sc) return PTE_WR_OOM(err);
    for (size_t i = 0; i < d->n_scratch; i++) {
      pte_et_DelegateScratch_start(FB);
      pte_et_DelegateScratch_add_memory_id(FB, d->scratch[i].mem_id);
      pte_et_DelegateScratch_add_offset(FB, d->scratch[i].offset);
      pte_et_DelegateScratch_add_size(FB, d->scratch[i].size);
      sc[i] = pte_et_DelegateScratch_end(FB);
    }
    scratch_v = pte_et_BackendDelegate_create_scratch(FB, sc, d->n_scratch);
  }
  pte_et_BackendDelegate_start(FB);
  pte_et_BackendDelegate_add_id(FB, id);
  pte_et_BackendDelegate_add_processed(FB, proc);
  pte_et_BackendDelegate_add_compile_specs(FB, specs_v);
  pte_et_BackendDelegate_add_scratch(FB, scratch_v);
  pte_et_BackendDelegate_add_share_handle(FB, d->share_handle);
  *out = pte_et_BackendDelegate_end(FB);
  return PTE_OK;
}

static pte_status build_plan(wr_emit *e, const wr_method *m, pte_fb_ref *out, pte_error_info *err) {
  pte_fb_ref name = str_ref(e, m->name);
  pte_fb_ref meta = 0;
  if (m->has_meta) {
    pte_fb_ref a = str_ref(e, m->meta_in), b = str_ref(e, m->meta_out);
    pte_et_ContainerMetadata_start(FB);
    pte_et_ContainerMetadata_add_encoded_inp_str(FB, a);
    pte_et_ContainerMetadata_add_encoded_out_str(FB, b);
    meta = pte_et_ContainerMetadata_end(FB);
  }
  pte_fb_ref *vals = refs_alloc(e, m->values.n);
  if (!vals) return PTE_WR_OOM(err);
  for (size_t i = 0; i < m->values.n; i++) vals[i] = build_value(e, &PTE_WR_AT(m->values, wr_value, i));
  pte_fb_ref values = pte_et_ExecutionPlan_create_values(FB, vals, m->values.n);
  pte_fb_ref inputs = pte_et_ExecutionPlan_create_inputs(FB, m->inputs, m->n_inputs);
  pte_fb_ref outputs = pte_et_ExecutionPlan_create_outputs(FB, m->outputs, m->n_outputs);
  pte_fb_ref *chains = refs_alloc(e, m->chains.n);
  if (!chains) return PTE_WR_OOM(err);
  for (size_t c = 0; c < m->chains.n; c++) {
    const wr_chain *ch = &PTE_WR_AT(m->chains, wr_chain, c);
    pte_fb_ref *ins = refs_alloc(e, ch->instrs.n);
    if (!ins) return PTE_WR_OOM(err);
    for (size_t k = 0; k < ch->instrs.n; k++) ins[k] = build_instr(e, &PTE_WR_AT(ch->instrs, wr_instr, k));
    pte_fb_ref instrs = pte_et_Chain_create_instructions(FB, ins, ch->instrs.n);
    pte_fb_ref cin = pte_et_Chain_create_inputs(FB, ch->inputs, ch->n_inputs);
    pte_fb_ref cout = pte_et_Chain_create_outputs(FB, ch->outputs, ch->n_outputs);
    pte_fb_ref stack = 0;
    if (ch->has_stack) {
      pte_fb_ref *fls = refs_alloc(e, ch->instrs.n);
      size_t maxf = 1;
      for (size_t k = 0; k < ch->instrs.n; k++)
        if (PTE_WR_AT(ch->instrs, wr_instr, k).stack.n > maxf) maxf = PTE_WR_AT(ch->instrs, wr_instr, k).stack.n;
      pte_fb_ref *tmp = refs_alloc(e, maxf);
      if (!fls || !tmp) return PTE_WR_OOM(err);
      for (size_t k = 0; k < ch->instrs.n; k++) fls[k] = build_framelist(e, &PTE_WR_AT(ch->instrs, wr_instr, k).stack, tmp);
      stack = pte_et_Chain_create_stacktrace(FB, fls, ch->instrs.n);
    }
    pte_et_Chain_start(FB);
    pte_et_Chain_add_inputs(FB, cin);
    pte_et_Chain_add_outputs(FB, cout);
    pte_et_Chain_add_instructions(FB, instrs);
    pte_et_Chain_add_stacktrace(FB, stack);
    chains[c] = pte_et_Chain_end(FB);
  }
  pte_fb_ref chains_v = pte_et_ExecutionPlan_create_chains(FB, chains, m->chains.n);
  pte_fb_ref *ops = refs_alloc(e, m->ops.n);
  if (!ops) return PTE_WR_OOM(err);
  for (size_t i = 0; i < m->ops.n; i++) {
    const wr_operator *o = &PTE_WR_AT(m->ops, wr_operator, i);
    pte_fb_ref n = str_ref(e, o->name), ov = str_ref(e, o->overload);
    pte_et_Operator_start(FB);
    pte_et_Operator_add_name(FB, n);
    pte_et_Operator_add_overload(FB, ov);
    ops[i] = pte_et_Operator_end(FB);
  }
  pte_fb_ref ops_v = pte_et_ExecutionPlan_create_operators(FB, ops, m->ops.n);
  pte_fb_ref *dels = refs_alloc(e, m->delegates.n);
  if (!dels) return PTE_WR_OOM(err);
  for (size_t i = 0; i < m->delegates.n; i++) {
    pte_status s = build_delegate(e, &PTE_WR_AT(m->delegates, wr_delegate, i), &dels[i], err);
    if (s != PTE_OK) return s;
  }
  pte_fb_ref dels_v = pte_et_ExecutionPlan_create_delegates(FB, dels, m->delegates.n);
  int64_t zero = 0;
  pte_fb_ref sizes_v = m->n_buffer_sizes ? pte_et_ExecutionPlan_create_non_const_buffer_sizes(FB, m->buffer_sizes, m->n_buffer_sizes)
                                         : pte_et_ExecutionPlan_create_non_const_buffer_sizes(FB, &zero, 1);
  pte_fb_ref dev_v = 0;
  if (m->devices.n) {
    pte_fb_ref *dv = refs_alloc(e, m->devices.n);
    if (!dv) return PTE_WR_OOM(err);
    for (size_t i = 0; i < m->devices.n; i++) {
      const wr_device *d = &PTE_WR_AT(m->devices, wr_device, i);
      pte_et_NonConstBufferDevice_start(FB);
      pte_et_NonConstBufferDevice_add_buffer_idx(FB, d->buffer_idx);
      pte_et_NonConstBufferDevice_add_device_type(FB, d->type);
      pte_et_NonConstBufferDevice_add_device_index(FB, d->index);
      dv[i] = pte_et_NonConstBufferDevice_end(FB);
    }
    dev_v = pte_et_ExecutionPlan_create_non_const_buffer_device(FB, dv, m->devices.n);
  }
  pte_et_ExecutionPlan_start(FB);
  pte_et_ExecutionPlan_add_name(FB, name);
  pte_et_ExecutionPlan_add_container_meta_type(FB, meta);
  pte_et_ExecutionPlan_add_values(FB, values);
  pte_et_ExecutionPlan_add_inputs(FB, inputs);
  pte_et_ExecutionPlan_add_outputs(FB, outputs);
  pte_et_ExecutionPlan_add_chains(FB, chains_v);
  pte_et_ExecutionPlan_add_operators(FB, ops_v);
  pte_et_ExecutionPlan_add_delegates(FB, dels_v);
  pte_et_ExecutionPlan_add_non_const_buffer_sizes(FB, sizes_v);
  pte_et_ExecutionPlan_add_non_const_buffer_device(FB, dev_v);
  *out = pte_et_ExecutionPlan_end(FB);
  return PTE_OK;
}

static pte_fb_ref build_subsegment(wr_emit *e, uint32_t seg_index, const pte_wr_vec *entries, pte_error_info *err) {
  size_t n = entries->n;
  uint64_t *offs = (uint64_t *)pte_wr_alloc(&e->w->out_arena, (n ? n : 1) * sizeof(uint64_t));
  if (!offs) {
    PTE_WR_OOM(err);
    return 0;
  }
  for (size_t i = 0; i < n; i++) offs[i] = PTE_WR_AT(*entries, wr_entry, i).offset;
  pte_fb_ref ov = pte_et_SubsegmentOffsets_create_offsets(FB, offs, n);
  pte_et_SubsegmentOffsets_start(FB);
  pte_et_SubsegmentOffsets_add_segment_index(FB, seg_index);
  pte_et_SubsegmentOffsets_add_offsets(FB, ov);
  return pte_et_SubsegmentOffsets_end(FB);
}

static pte_status build_program(wr_emit *e, pte_error_info *err) {
  pte_writer *w = e->w;
  pte_fb_builder_init(FB, w->opt.realloc_fn, w->opt.realloc_ctx);
  pte_fb_ref *plans = refs_alloc(e, w->methods.n);
  pte_fb_ref *inl = refs_alloc(e, e->n_inline);
  pte_fb_ref *segs = refs_alloc(e, e->segs.n);
  pte_fb_ref *named = refs_alloc(e, w->named.n);
  if (!plans || !inl || !segs || !named) return PTE_WR_OOM(err);
  for (size_t i = 0; i < w->methods.n; i++) {
    pte_status s = build_plan(e, &PTE_WR_AT(w->methods, wr_method, i), &plans[i], err);
    if (s != PTE_OK) return s;
  }
  pte_fb_ref plans_v = pte_et_Program_create_execution_plan(FB, plans, w->methods.n);
  pte_fb_ref const_buf_v = pte_et_Program_create_constant_buffer(FB, NULL, 0);
  /* inline delegate data: read each source straight into the builder */
  for (size_t i = 0; i < e->n_inline; i++) {
    wr_blob *b = &PTE_WR_AT(w->blobs, wr_blob, e->inline_blobs[i]);
    if (b->src.size > (uint64_t)INT32_MAX)
      return pte_error_set(err, PTE_ERR_OUT_OF_RESOURCES, "writer: inline delegate blob of %llu bytes is too large for the flatbuffer (use segments)",
                           (unsigned long long)b->src.size);
    pte_fb_ref data = 0;
    uint8_t *dst = pte_fb_start_vec_raw(FB, (size_t)b->src.size, 1, (size_t)w->opt.delegate_alignment, &data);
    if (!dst) break; /* builder error reported below */
    pte_status s = pte_wr_source_read(&b->src, 0, dst, (size_t)b->src.size, &e->stream.cache, "inline delegate blob", err);
    if (s != PTE_OK) return s;
    pte_et_BackendDelegateInlineData_start(FB);
    pte_et_BackendDelegateInlineData_add_data(FB, data);
    inl[i] = pte_et_BackendDelegateInlineData_end(FB);
  }
  pte_fb_ref inl_v = pte_et_Program_create_backend_delegate_data(FB, inl, e->n_inline);
  for (size_t i = 0; i < e->segs.n; i++) {
    wr_segment *sg = &PTE_WR_AT(e->segs, wr_segment, i);
    pte_et_DataSegment_start(FB);
    pte_fb_add_u64_forced(FB, pte_et_DataSegment_offset_SLOT, sg->offset);
    pte_fb_add_u64_forced(FB, pte_et_DataSegment_size_SLOT, sg->size);
    segs[i] = pte_et_DataSegment_end(FB);
  }
  pte_fb_ref segs_v = pte_et_Program_create_segments(FB, segs, e->segs.n);
  pte_fb_ref cseg = build_subsegment(e, 0, &w->constants, err);
  if (!cseg && FB->status == PTE_OK) return err ? err->status : PTE_ERR_MEMORY_ALLOCATION_FAILED;
  pte_fb_ref mseg_v = 0;
  if (e->has_mutable_segment) {
    pte_fb_ref mseg = build_subsegment(e, 1, &w->mutables, err);
    if (!mseg && FB->status == PTE_OK) return err ? err->status : PTE_ERR_MEMORY_ALLOCATION_FAILED;
    mseg_v = pte_et_Program_create_mutable_data_segments(FB, &mseg, 1);
  }
  pte_fb_ref named_v = 0;
  if (w->named.n || w->named_data_present) {
    /* keys in byte order unless copying (the runtime then finds them by binary search); the
     * segments keep insertion order */
    const wr_named **order = (const wr_named **)pte_wr_alloc(&w->out_arena, (w->named.n ? w->named.n : 1) * sizeof *order);
    if (!order) return PTE_WR_OOM(err);
    for (size_t i = 0; i < w->named.n; i++) order[i] = &PTE_WR_AT(w->named, wr_named, i);
    if (w->named.n > 1 && !w->named_data_in_order) qsort(order, w->named.n, sizeof *order, wr_named_cmp);
    for (size_t i = 0; i < w->named.n; i++) {
      const wr_named *nd = order[i];
      pte_fb_ref k = str_ref(e, nd->key);
      wr_blob *b = &PTE_WR_AT(w->blobs, wr_blob, e->blob_canon[nd->blob]);
      pte_et_NamedData_start(FB);
      pte_et_NamedData_add_key(FB, k);
      pte_fb_add_u32_forced(FB, pte_et_NamedData_segment_index_SLOT, (uint32_t)b->segment);
      named[i] = pte_et_NamedData_end(FB);
    }
    named_v = pte_et_Program_create_named_data(FB, named, w->named.n);
  }
  pte_et_Program_start(FB);
  pte_et_Program_add_version(FB, w->version);
  pte_et_Program_add_execution_plan(FB, plans_v);
  pte_et_Program_add_constant_buffer(FB, const_buf_v);
  pte_et_Program_add_backend_delegate_data(FB, inl_v);
  pte_et_Program_add_segments(FB, segs_v);
  pte_et_Program_add_constant_segment(FB, cseg);
  pte_et_Program_add_mutable_data_segments(FB, mseg_v);
  pte_et_Program_add_named_data(FB, named_v);
  pte_fb_ref root = pte_et_Program_end(FB);
  pte_status s = pte_fb_finish(FB, root, pte_et_FILE_IDENTIFIER, 16, &e->fb_out, &e->fb_size);
  if (s != PTE_OK)
    return pte_error_set(err, s, "writer: building the flatbuffer failed (%s)%s", pte_status_name(s),
                         s == PTE_ERR_OUT_OF_RESOURCES ? ": the program metadata exceeds 2 GiB" : "");
  return PTE_OK;
}

/* ------------------------------------------------------------------ prepare / write */
static void emit_free(wr_emit *e) {
  pte_wr_stream_end(&e->stream, NULL); /* on error paths the writer thread may still run */
  pte_fb_builder_free(&e->fb);
  pte_wr_src_cache_close(&e->stream.cache);
}

static pte_status prepare(pte_writer *w, wr_emit *e, pte_error_info *err) {
  memset(e, 0, sizeof *e);
  e->w = w;
  pte_fb_builder_init(&e->fb, w->opt.realloc_fn, w->opt.realloc_ctx);
  pte_wr_arena_free(&w->out_arena);
  pte_wr_arena_init(&w->out_arena, w->opt.realloc_fn, w->opt.realloc_ctx);
  pte_status s = pte_wr_stream_init(&e->stream, &w->out_arena, w->opt.buffer_size, !w->opt.no_thread, err);
  if (s != PTE_OK) return s;
  for (size_t i = 0; i < w->methods.n; i++) {
    s = pte_wr_validate_method(w, &PTE_WR_AT(w->methods, wr_method, i), err);
    if (s != PTE_OK) return s;
  }
  /* constants: segment 0, always (upstream keeps it even when empty) */
  s = dedup_entries(e, &w->constants, &e->const_canon, err);
  if (s != PTE_OK) return s;
  e->const_size = pack_entries(&w->constants, e->const_canon, w->opt.tensor_alignment);
  if (!add_segment(e, WR_SEG_CONSTANT, 0, e->const_size, 1, err)) return err ? err->status : PTE_ERR_MEMORY_ALLOCATION_FAILED;
  if (w->mutables.n > 1) {
    s = dedup_entries(e, &w->mutables, &e->mut_canon, err);
    if (s != PTE_OK) return s;
    e->mut_size = pack_entries(&w->mutables, e->mut_canon, 1);
    e->has_mutable_segment = true;
    if (!add_segment(e, WR_SEG_MUTABLE, 0, e->mut_size, 1, err)) return err ? err->status : PTE_ERR_MEMORY_ALLOCATION_FAILED;
  }
  s = layout_blobs(e, err);
  if (s != PTE_OK) return s;
  uint64_t prev_end = 0;
  for (size_t i = 0; i < e->segs.n; i++) {
    wr_segment *sg = &PTE_WR_AT(e->segs, wr_segment, i);
    uint64_t a = pte_wr_lcm(w->opt.segment_alignment, sg->align);
    sg->offset = pte_wr_align(prev_end, a);
    prev_end = sg->offset + sg->size;
    if (prev_end < sg->offset) return pte_error_set(err, PTE_ERR_OUT_OF_RESOURCES, "writer: segment data exceeds 2^64 bytes");
  }
  s = build_program(e, err);
  if (s != PTE_OK) return s;
  pte_writer_layout *L = &e->lay;
  L->n_segments = e->segs.n;
  L->constant_segment_size = e->const_size;
  L->segment_data_size = prev_end;
  if (prev_end > 0) {
    uint64_t max_align = w->opt.tensor_alignment > w->opt.delegate_alignment ? w->opt.tensor_alignment : w->opt.delegate_alignment;
    uint64_t padded = pte_wr_align(PTE_EXTENDED_HEADER_LENGTH, max_align);
    if (padded > sizeof e->header)
      return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "writer: alignment %llu makes the header too large", (unsigned long long)max_align);
    L->header_length = PTE_EXTENDED_HEADER_LENGTH;
    L->padded_header_length = (uint32_t)padded;
    L->program_size = padded + e->fb_size;
    L->segment_base_offset = pte_wr_align(L->program_size, w->opt.segment_alignment);
    L->file_size = L->segment_base_offset + prev_end;
    pte_extended_header h = {PTE_EXTENDED_HEADER_LENGTH, L->program_size, L->segment_base_offset, prev_end, true};
    s = pte_extended_header_write(&h, (size_t)padded, e->header, sizeof e->header, err);
    if (s != PTE_OK) return s;
  } else {
    L->program_size = e->fb_size;
    L->file_size = e->fb_size;
  }
  return PTE_OK;
}

pte_status pte_writer_compute_layout(pte_writer *w, pte_writer_layout *out, pte_error_info *err) {
  if (!w) return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "writer: NULL writer");
  wr_emit *e = (wr_emit *)w->opt.realloc_fn(w->opt.realloc_ctx, NULL, 0, sizeof *e);
  if (!e) return PTE_WR_OOM(err);
  pte_status s = prepare(w, e, err);
  if (s == PTE_OK && out) *out = e->lay;
  emit_free(e);
  w->opt.realloc_fn(w->opt.realloc_ctx, e, sizeof *e, 0);
  return s;
}

static pte_status stream_entries(wr_emit *e, const pte_wr_vec *v, const int32_t *canon, uint64_t base,
                                 const char *what, pte_error_info *err) {
  for (size_t i = 1; i < v->n; i++) {
    if (canon[i] != (int32_t)i) continue;
    const wr_entry *en = &PTE_WR_AT(*v, wr_entry, i);
    pte_status s = pte_wr_stream_pad_to(&e->stream, base + en->offset, err);
    if (s == PTE_OK) {
      char label[64];
      pte_error_info tmp;
      pte_error_set(&tmp, PTE_OK, "%s %zu", what, i);
      memcpy(label, tmp.msg, sizeof label - 1);
      label[sizeof label - 1] = 0;
      s = pte_wr_stream_source(&e->stream, &en->src, label, err);
    }
    if (s != PTE_OK) return s;
  }
  return PTE_OK;
}

static pte_status write_all(wr_emit *e, pte_data_writer *out, pte_error_info *err) {
  pte_writer *w = e->w;
  pte_writer_layout *L = &e->lay;
  pte_wr_stream *st = &e->stream;
  pte_status s = pte_wr_stream_begin(st, out, L->file_size, w->opt.sparse, w->opt.progress, w->opt.progress_ctx, err);
  if (s != PTE_OK) return s;
  if (L->header_length) {
    uint8_t head[8];
    memcpy(head, e->fb_out, 8);
    uint32_t root = pte_fb_ld_u32(head) + L->padded_header_length;
    head[0] = (uint8_t)root;
    head[1] = (uint8_t)(root >> 8);
    head[2] = (uint8_t)(root >> 16);
    head[3] = (uint8_t)(root >> 24);
    s = pte_wr_stream_bytes(st, head, 8, err);
    if (s == PTE_OK) s = pte_wr_stream_bytes(st, e->header, L->padded_header_length, err);
    if (s == PTE_OK) s = pte_wr_stream_bytes(st, e->fb_out + 8, e->fb_size - 8, err);
  } else {
    s = pte_wr_stream_bytes(st, e->fb_out, e->fb_size, err);
  }
  if (s != PTE_OK) return s;
  if (L->segment_data_size > 0) {
    uint64_t base = L->segment_base_offset;
    for (size_t i = 0; i < e->segs.n && s == PTE_OK; i++) {
      wr_segment *sg = &PTE_WR_AT(e->segs, wr_segment, i);
      s = pte_wr_stream_pad_to(st, base + sg->offset, err);
      if (s != PTE_OK) break;
      if (sg->kind == WR_SEG_CONSTANT) s = stream_entries(e, &w->constants, e->const_canon, base + sg->offset, "constant", err);
      else if (sg->kind == WR_SEG_MUTABLE) s = stream_entries(e, &w->mutables, e->mut_canon, base + sg->offset, "mutable data", err);
      else {
        char label[64];
        pte_error_info tmp;
        pte_error_set(&tmp, PTE_OK, "blob %u (segment %zu)", sg->blob, i);
        memcpy(label, tmp.msg, sizeof label - 1);
        label[sizeof label - 1] = 0;
        s = pte_wr_stream_source(st, &PTE_WR_AT(w->blobs, wr_blob, sg->blob).src, label, err);
      }
      /* pad entries whose own padding would run past the segment (never: the last one is unpadded) */
      if (s == PTE_OK) s = pte_wr_stream_pad_to(st, base + sg->offset + sg->size, err);
    }
    if (s != PTE_OK) return s;
  }
  if (pte_wr_stream_pos(st) != L->file_size)
    return pte_error_set(err, PTE_ERR_INTERNAL, "writer: wrote %llu bytes, layout says %llu",
                         (unsigned long long)pte_wr_stream_pos(st), (unsigned long long)L->file_size);
  return pte_wr_stream_finish(st, err);
}

pte_status pte_writer_write(pte_writer *w, pte_data_writer *out, pte_error_info *err) {
  if (!w || !out) return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "writer: NULL argument");
  wr_emit *e = (wr_emit *)w->opt.realloc_fn(w->opt.realloc_ctx, NULL, 0, sizeof *e);
  if (!e) return PTE_WR_OOM(err);
  pte_status s = prepare(w, e, err);
  if (s == PTE_OK) s = write_all(e, out, err);
  emit_free(e);
  w->opt.realloc_fn(w->opt.realloc_ctx, e, sizeof *e, 0);
  pte_wr_arena_free(&w->out_arena); /* the stream buffer and layout scratch */
  return s;
}

pte_status pte_writer_write_file(pte_writer *w, const char *path, const pte_file_writer_options *fopt,
                                 pte_error_info *err) {
  if (!w) return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "writer: NULL writer");
  /* validate before creating anything at the destination */
  pte_file_writer fw;
  pte_status s = pte_file_writer_open(&fw, path, fopt, err);
  if (s != PTE_OK) return s;
  s = pte_writer_write(w, &fw.base, err);
  pte_data_writer_destroy(&fw.base); /* discards the temp file unless published */
  return s;
}
