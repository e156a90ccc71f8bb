#define _POSIX_C_SOURCE 200809L
/* Bad input: builder-made programs with one field wrong each. Every case asserts the exact status
 * and a message substring (test_malformed_util.h). Mutations of corpus files, the sweeps and the
 * .ptd / .bpte readers: test_malformed_corpus.c. */
#include "test_malformed_util.h"

/* ================================================================== a small program builder */

typedef struct t_tensor {
  int8_t dtype;
  uint32_t rank;
  int32_t sizes[20];
  int dim_order_len; /* -1: same as rank, -2: absent */
  uint8_t dim_order[20];
  uint32_t dbi;
  int planned;
  uint32_t mem_id, mem_off;
  int8_t dyn;
  int external;
  const char *fqn;
} t_tensor;

typedef struct t_value {
  uint8_t tag;
  t_tensor t;
  int64_t i;
  int32_t items[8];
  int64_t litems[8];
  uint32_t n_items;
} t_value;

typedef struct t_instr {
  uint8_t tag;
  int32_t a, b;
  int32_t args[8];
  uint32_t n_args;
} t_instr;

typedef struct t_prog {
  t_value values[16];
  uint32_t n_values;
  int32_t inputs[4], outputs[4];
  uint32_t n_inputs, n_outputs;
  t_instr instrs[8];
  uint32_t n_instrs;
  uint32_t n_ops;
  struct { int8_t loc; uint32_t index; } delegates[4];
  int n_delegates; /* -1: field absent */
  int64_t nbs[3];
  uint32_t n_nbs;
  uint32_t cb_sizes[4];
  int n_cb; /* -1: absent */
  int has_cs;
  uint32_t cs_index;
  uint64_t cs_offsets[6];
  uint32_t n_cs_offsets;
  uint64_t segs[6][2];
  int n_segs; /* -1: absent */
  struct { const char *key; uint32_t seg; } named[3];
  int n_named; /* -1: absent */
  int has_ms;
  uint32_t ms_index;
  uint64_t ms_offsets[4];
  uint32_t n_ms_offsets;
  uint32_t n_inline_data;
} t_prog;

static t_tensor tensor2x2(uint32_t dbi, int planned, uint32_t off) {
  t_tensor t;
  memset(&t, 0, sizeof t);
  t.dtype = 6; /* FLOAT */
  t.rank = 2;
  t.sizes[0] = 2;
  t.sizes[1] = 2;
  t.dim_order_len = -1;
  t.dim_order[0] = 0;
  t.dim_order[1] = 1;
  t.dbi = dbi;
  t.planned = planned;
  t.mem_id = 1;
  t.mem_off = off;
  return t;
}

/* A valid program: forward(v0) -> v2 = add(v0, v1 (constant), alpha v3), plus a TensorList,
 * an IntList, an OptionalTensorList and a Null; constants in segment 0 (16 bytes, offsets [0, 0]). */
static t_prog base_prog(void) {
  t_prog p;
  memset(&p, 0, sizeof p);
  p.values[0].tag = 5;
  p.values[0].t = tensor2x2(0, 1, 0);
  p.values[1].tag = 5;
  p.values[1].t = tensor2x2(1, 0, 0);
  p.values[2].tag = 5;
  p.values[2].t = tensor2x2(0, 1, 16);
  p.values[3].tag = 2;
  p.values[3].i = 1;
  p.values[4].tag = 10;
  p.values[4].items[0] = 0;
  p.values[4].items[1] = 1;
  p.values[4].n_items = 2;
  p.values[5].tag = 7;
  p.values[5].litems[0] = 3;
  p.values[5].n_items = 1;
  p.values[6].tag = 11;
  p.values[6].items[0] = 0;
  p.values[6].items[1] = -1;
  p.values[6].n_items = 2;
  p.values[7].tag = 1;
  p.n_values = 8;
  p.inputs[0] = 0;
  p.n_inputs = 1;
  p.outputs[0] = 2;
  p.n_outputs = 1;
  p.instrs[0].tag = 1;
  p.instrs[0].a = 0;
  int32_t args[5] = {0, 1, 3, 2, 2};
  memcpy(p.instrs[0].args, args, sizeof args);
  p.instrs[0].n_args = 5;
  p.n_instrs = 1;
  p.n_ops = 1;
  p.n_delegates = 0;
  p.nbs[0] = 0;
  p.nbs[1] = 32;
  p.n_nbs = 2;
  p.n_cb = -1;
  p.has_cs = 1;
  p.cs_index = 0;
  p.cs_offsets[0] = 0;
  p.cs_offsets[1] = 0;
  p.n_cs_offsets = 2;
  p.segs[0][0] = 0;
  p.segs[0][1] = 16;
  p.n_segs = 1;
  p.n_named = -1;
  return p;
}

static pte_fb_ref build_tensor(pte_fb_builder *b, const t_tensor *t) {
  pte_fb_ref sizes = pte_et_Tensor_create_sizes(b, t->sizes, t->rank);
  pte_fb_ref dord = 0;
  if (t->dim_order_len != -2)
    dord = pte_et_Tensor_create_dim_order(b, t->dim_order, t->dim_order_len == -1 ? t->rank : (size_t)t->dim_order_len);
  pte_fb_ref alloc = 0, extra = 0;
  if (t->planned) {
    pte_et_AllocationDetails_start(b);
    pte_et_AllocationDetails_add_memory_id(b, t->mem_id);
    pte_et_AllocationDetails_add_memory_offset_low(b, t->mem_off);
    alloc = pte_et_AllocationDetails_end(b);
  }
  if (t->external) {
    pte_fb_ref fqn = t->fqn ? pte_fb_create_string(b, t->fqn, strlen(t->fqn)) : 0;
    pte_et_ExtraTensorInfo_start(b);
    if (fqn) pte_et_ExtraTensorInfo_add_fully_qualified_name(b, fqn);
    pte_et_ExtraTensorInfo_add_location(b, 1);
    extra = pte_et_ExtraTensorInfo_end(b);
  }
  pte_et_Tensor_start(b);
  pte_et_Tensor_add_scalar_type(b, t->dtype);
  pte_et_Tensor_add_sizes(b, sizes);
  if (dord) pte_et_Tensor_add_dim_order(b, dord);
  pte_et_Tensor_add_data_buffer_idx(b, t->dbi);
  if (alloc) pte_et_Tensor_add_allocation_info(b, alloc);
  pte_et_Tensor_add_shape_dynamism(b, t->dyn);
  if (extra) pte_et_Tensor_add_extra_tensor_info(b, extra);
  return pte_et_Tensor_end(b);
}

static pte_fb_ref build_value(pte_fb_builder *b, const t_value *v) {
  pte_fb_ref val = 0, items;
  switch (v->tag) {
    case 1: pte_et_Null_start(b); val = pte_et_Null_end(b); break;
    case 2: pte_et_Int_start(b); pte_et_Int_add_int_val(b, v->i); val = pte_et_Int_end(b); break;
    case 5: val = build_tensor(b, &v->t); break;
    case 7:
      items = pte_et_IntList_create_items(b, v->litems, v->n_items);
      pte_et_IntList_start(b);
      pte_et_IntList_add_items(b, items);
      val = pte_et_IntList_end(b);
      break;
    case 10:
      items = pte_et_TensorList_create_items(b, v->items, v->n_items);
      pte_et_TensorList_start(b);
      pte_et_TensorList_add_items(b, items);
      val = pte_et_TensorList_end(b);
      break;
    case 11:
      items = pte_et_OptionalTensorList_create_items(b, v->items, v->n_items);
      pte_et_OptionalTensorList_start(b);
      pte_et_OptionalTensorList_add_items(b, items);
      val = pte_et_OptionalTensorList_end(b);
      break;
    default: break;
  }
  pte_et_EValue_start(b);
  pte_et_EValue_add_val_type(b, v->tag);
  if (val) pte_et_EValue_add_val(b, val);
  return pte_et_EValue_end(b);
}

static pte_fb_ref build_instr(pte_fb_builder *b, const t_instr *in) {
  pte_fb_ref a = 0, args;
  switch (in->tag) {
    case 1:
      args = pte_et_KernelCall_create_args(b, in->args, in->n_args);
      pte_et_KernelCall_start(b);
      pte_et_KernelCall_add_op_index(b, in->a);
      pte_et_KernelCall_add_args(b, args);
      a = pte_et_KernelCall_end(b);
      break;
    case 2:
      args = pte_et_DelegateCall_create_args(b, in->args, in->n_args);
      pte_et_DelegateCall_start(b);
      pte_et_DelegateCall_add_delegate_index(b, in->a);
      pte_et_DelegateCall_add_args(b, args);
      a = pte_et_DelegateCall_end(b);
      break;
    case 3:
      pte_et_MoveCall_start(b);
      pte_et_MoveCall_add_move_from(b, in->a);
      pte_et_MoveCall_add_move_to(b, in->b);
      a = pte_et_MoveCall_end(b);
      break;
    case 4:
      pte_et_JumpFalseCall_start(b);
      pte_et_JumpFalseCall_add_cond_value_index(b, in->a);
      pte_et_JumpFalseCall_add_destination_instruction(b, in->b);
      a = pte_et_JumpFalseCall_end(b);
      break;
    case 5:
      pte_et_FreeCall_start(b);
      pte_et_FreeCall_add_value_index(b, in->a);
      a = pte_et_FreeCall_end(b);
      break;
    default: break;
  }
  pte_et_Instruction_start(b);
  pte_et_Instruction_add_instr_args_type(b, in->tag);
  if (a) pte_et_Instruction_add_instr_args(b, a);
  return pte_et_Instruction_end(b);
}

/* Serializes *p into a .pte image (64-aligned heap memory, free it): a plain flatbuffer, or with
 * a 32-byte eh00 header and segment data (bytes i & 0xff) when any segment has bytes. */
static uint8_t *build_pte(const t_prog *p, size_t *out_size) {
  pte_fb_builder b;
  pte_fb_builder_init(&b, pte_heap_realloc, NULL);
  pte_fb_ref refs[16];
  for (uint32_t j = 0; j < p->n_values; j++) refs[j] = build_value(&b, &p->values[j]);
  pte_fb_ref values = pte_et_ExecutionPlan_create_values(&b, refs, p->n_values);
  for (uint32_t k = 0; k < p->n_instrs; k++) refs[k] = build_instr(&b, &p->instrs[k]);
  pte_fb_ref instrs = pte_et_Chain_create_instructions(&b, refs, p->n_instrs);
  pte_et_Chain_start(&b);
  pte_et_Chain_add_instructions(&b, instrs);
  pte_fb_ref chain = pte_et_Chain_end(&b);
  pte_fb_ref chains = pte_et_ExecutionPlan_create_chains(&b, &chain, 1);
  for (uint32_t k = 0; k < p->n_ops; k++) {
    pte_fb_ref nm = pte_fb_create_string(&b, "aten::add", 9);
    pte_fb_ref ov = pte_fb_create_string(&b, "out", 3);
    pte_et_Operator_start(&b);
    pte_et_Operator_add_name(&b, nm);
    pte_et_Operator_add_overload(&b, ov);
    refs[k] = pte_et_Operator_end(&b);
  }
  pte_fb_ref ops = pte_et_ExecutionPlan_create_operators(&b, refs, p->n_ops);
  pte_fb_ref dels = 0;
  if (p->n_delegates >= 0) {
    for (int k = 0; k < p->n_delegates; k++) {
      pte_fb_ref id = pte_fb_create_string(&b, "XnnpackBackend", 14);
      pte_et_BackendDelegateDataReference_start(&b);
      pte_et_BackendDelegateDataReference_add_location(&b, p->delegates[k].loc);
      pte_et_BackendDelegateDataReference_add_index(&b, p->delegates[k].index);
      pte_fb_ref ref = pte_et_BackendDelegateDataReference_end(&b);
      pte_et_BackendDelegate_start(&b);
      pte_et_BackendDelegate_add_id(&b, id);
      pte_et_BackendDelegate_add_processed(&b, ref);
      refs[k] = pte_et_BackendDelegate_end(&b);
    }
    dels = pte_et_ExecutionPlan_create_delegates(&b, refs, (size_t)p->n_delegates);
  }
  pte_fb_ref inputs = pte_et_ExecutionPlan_create_inputs(&b, p->inputs, p->n_inputs);
  pte_fb_ref outputs = pte_et_ExecutionPlan_create_outputs(&b, p->outputs, p->n_outputs);
  pte_fb_ref nbs = pte_et_ExecutionPlan_create_non_const_buffer_sizes(&b, p->nbs, p->n_nbs);
  pte_fb_ref name = pte_fb_create_string(&b, "forward", 7);
  pte_et_ExecutionPlan_start(&b);
  pte_et_ExecutionPlan_add_name(&b, name);
  pte_et_ExecutionPlan_add_values(&b, values);
  pte_et_ExecutionPlan_add_inputs(&b, inputs);
  pte_et_ExecutionPlan_add_outputs(&b, outputs);
  pte_et_ExecutionPlan_add_chains(&b, chains);
  pte_et_ExecutionPlan_add_operators(&b, ops);
  if (dels) pte_et_ExecutionPlan_add_delegates(&b, dels);
  pte_et_ExecutionPlan_add_non_const_buffer_sizes(&b, nbs);
  pte_fb_ref plan = pte_et_ExecutionPlan_end(&b);
  pte_fb_ref plans = pte_et_Program_create_execution_plan(&b, &plan, 1);

  pte_fb_ref cb = 0, segs = 0, cs = 0, named = 0, ms = 0, bdd = 0;
  if (p->n_cb >= 0) {
    static const uint8_t zeros[64] = {0};
    for (int k = 0; k < p->n_cb; k++) {
      pte_fb_ref st = pte_et_Buffer_create_storage(&b, zeros, p->cb_sizes[k]);
      pte_et_Buffer_start(&b);
      pte_et_Buffer_add_storage(&b, st);
      refs[k] = pte_et_Buffer_end(&b);
    }
    cb = pte_et_Program_create_constant_buffer(&b, refs, (size_t)p->n_cb);
  }
  if (p->n_inline_data) {
    static const uint8_t blob[4] = {1, 2, 3, 4};
    for (uint32_t k = 0; k < p->n_inline_data; k++) {
      pte_fb_ref dv = pte_et_BackendDelegateInlineData_create_data(&b, blob, 4);
      pte_et_BackendDelegateInlineData_start(&b);
      pte_et_BackendDelegateInlineData_add_data(&b, dv);
      refs[k] = pte_et_BackendDelegateInlineData_end(&b);
    }
    bdd = pte_et_Program_create_backend_delegate_data(&b, refs, p->n_inline_data);
  }
  uint64_t data_size = 0;
  if (p->n_segs >= 0) {
    for (int k = 0; k < p->n_segs; k++) {
      pte_et_DataSegment_start(&b);
      pte_et_DataSegment_add_offset(&b, p->segs[k][0]);
      pte_et_DataSegment_add_size(&b, p->segs[k][1]);
      refs[k] = pte_et_DataSegment_end(&b);
      if (p->segs[k][0] + p->segs[k][1] > data_size) data_size = p->segs[k][0] + p->segs[k][1];
    }
    segs = pte_et_Program_create_segments(&b, refs, (size_t)p->n_segs);
  }
  if (p->has_cs) {
    pte_fb_ref offs = pte_et_SubsegmentOffsets_create_offsets(&b, p->cs_offsets, p->n_cs_offsets);
    pte_et_SubsegmentOffsets_start(&b);
    pte_et_SubsegmentOffsets_add_segment_index(&b, p->cs_index);
    pte_et_SubsegmentOffsets_add_offsets(&b, offs);
    cs = pte_et_SubsegmentOffsets_end(&b);
  }
  if (p->has_ms) {
    pte_fb_ref offs = pte_et_SubsegmentOffsets_create_offsets(&b, p->ms_offsets, p->n_ms_offsets);
    pte_et_SubsegmentOffsets_start(&b);
    pte_et_SubsegmentOffsets_add_segment_index(&b, p->ms_index);
    pte_et_SubsegmentOffsets_add_offsets(&b, offs);
    pte_fb_ref m0 = pte_et_SubsegmentOffsets_end(&b);
    ms = pte_et_Program_create_mutable_data_segments(&b, &m0, 1);
  }
  if (p->n_named >= 0) {
    for (int k = 0; k < p->n_named; k++) {
      pte_fb_ref key = pte_fb_create_string(&b, p->named[k].key, strlen(p->named[k].key));
      pte_et_NamedData_start(&b);
      pte_et_NamedData_add_key(&b, key);
      pte_et_NamedData_add_segment_index(&b, p->named[k].seg);
      refs[k] = pte_et_NamedData_end(&b);
    }
    named = pte_et_Program_create_named_data(&b, refs, (size_t)p->n_named);
  }
  pte_et_Program_start(&b);
  pte_et_Program_add_execution_plan(&b, plans);
  if (cb) pte_et_Program_add_constant_buffer(&b, cb);
  if (bdd) pte_et_Program_add_backend_delegate_data(&b, bdd);
  if (segs) pte_et_Program_add_segments(&b, segs);
  if (cs) pte_et_Program_add_constant_segment(&b, cs);
  if (ms) pte_et_Program_add_mutable_data_segments(&b, ms);
  if (named) pte_et_Program_add_named_data(&b, named);
  pte_fb_ref root = pte_et_Program_end(&b);
  const uint8_t *fb;
  size_t fbs;
  if (pte_et_finish(&b, root, &fb, &fbs) != PTE_OK) {
    pte_fb_builder_free(&b);
    return NULL;
  }
  size_t hdr = data_size ? 32 : 0;
  size_t program_size = fbs + hdr;
  size_t base = data_size ? (program_size + 127) / 128 * 128 : 0;
  size_t total = data_size ? base + (size_t)data_size : program_size;
  if (total < 64) total = 64;
  uint8_t *out = NULL;
  if (posix_memalign((void **)&out, 64, total + 64) != 0) {
    pte_fb_builder_free(&b);
    return NULL;
  }
  memset(out, 0, total + 64);
  uint32_t r = (uint32_t)(fb[0] | fb[1] << 8 | fb[2] << 16 | (uint32_t)fb[3] << 24) + (uint32_t)hdr;
  st32(out, r);
  memcpy(out + 4, fb + 4, 4);
  if (hdr) {
    pte_extended_header h = {32, program_size, base, data_size, true};
    pte_extended_header_write(&h, 32, out + 8, 32, NULL);
  }
  memcpy(out + 8 + hdr, fb + 8, fbs - 8);
  for (size_t i = 0; i < (size_t)data_size; i++) out[base + i] = (uint8_t)i;
  pte_fb_builder_free(&b);
  *out_size = total;
  return out;
}

/* Builds *p and asserts the load result at both levels (`internal_only`: MINIMAL loads OK). */
static void expect_built(const t_prog *p, int internal_only, pte_status status, const char *needle) {
  size_t n;
  uint8_t *d = build_pte(p, &n);
  CHECK(d);
  if (internal_only) EXPECT_INTERNAL(d, n, status, needle);
  else EXPECT_BOTH(d, n, status, needle);
  free(d);
}

/* ================================================================== builder-made programs */

TEST(built_baseline_is_valid) {
  t_prog p = base_prog();
  size_t n;
  uint8_t *d = build_pte(&p, &n);
  CHECK(d);
  EXPECT_BOTH(d, n, PTE_OK, "");
  pte_buffer_loader bl;
  pte_buffer_loader_init(&bl, d, n);
  pte_program prog;
  CHECK_OK(pte_program_load(&bl.base, PTE_VERIFY_INTERNAL_CONSISTENCY, &prog, NULL));
  CHECK_EQ_INT(pte_program_constant_storage(&prog), PTE_CONSTANTS_SEGMENT);
  const void *c;
  CHECK_OK(pte_program_constant_data(&prog, 1, 16, &c));
  CHECK_EQ_INT(((const uint8_t *)c)[15], 15);
  pte_program_destroy(&prog);
  free(d);
  /* Unsorted but disjoint segments are fine too. */
  p.segs[1][0] = 0;
  p.segs[1][1] = 8;
  p.segs[0][0] = 128;
  p.n_segs = 2;
  expect_built(&p, 0, PTE_OK, "");
}

TEST(built_tensor_shapes) {
  t_prog p = base_prog();
  p.values[1].t.sizes[0] = -1;
  expect_built(&p, 1, PTE_ERR_INVALID_PROGRAM, "method 'forward' value 1: size -1 at dimension 0 is negative");
  p = base_prog();
  p.values[2].t.rank = 17;
  for (int i = 0; i < 17; i++) {
    p.values[2].t.sizes[i] = 1;
    p.values[2].t.dim_order[i] = (uint8_t)i;
  }
  expect_built(&p, 1, PTE_ERR_INVALID_PROGRAM, "value 2: tensor rank 17 exceeds the maximum of 16");
  p = base_prog();
  p.values[0].t.dim_order[1] = 0;
  expect_built(&p, 1, PTE_ERR_INVALID_PROGRAM, "value 0: dim_order is not a permutation of 0..1 (entry 1 is 0)");
  p = base_prog();
  p.values[0].t.dim_order_len = 1;
  expect_built(&p, 1, PTE_ERR_INVALID_PROGRAM, "value 0: dim_order has 1 entries for rank 2");
  p = base_prog();
  p.values[0].t.dim_order_len = -2;
  expect_built(&p, 1, PTE_ERR_INVALID_PROGRAM, "value 0: tensor has no dim_order");
  p = base_prog();
  p.values[0].t.dtype = 30;
  expect_built(&p, 1, PTE_ERR_INVALID_PROGRAM, "value 0: invalid scalar type 30");
  /* numel * element size overflows: an error for a static tensor... */
  p = base_prog();
  p.values[0].t.rank = 4;
  for (int i = 0; i < 4; i++) {
    p.values[0].t.sizes[i] = 0x7fffffff;
    p.values[0].t.dim_order[i] = (uint8_t)i;
  }
  p.values[0].t.planned = 0;
  expect_built(&p, 1, PTE_ERR_INVALID_PROGRAM, "value 0: tensor byte size overflows");
  /* ...forgiven for a dynamic-shape method input (v0 is the input)... */
  p.values[0].t.dyn = 1;
  expect_built(&p, 0, PTE_OK, "");
  /* ...but not for a dynamic tensor that is not an input. */
  p.inputs[0] = 2;
  expect_built(&p, 1, PTE_ERR_INVALID_PROGRAM, "value 0: tensor byte size overflows");
}

TEST(built_lists) {
  t_prog p = base_prog();
  p.values[4].items[1] = 5; /* TensorList refers to a later value */
  expect_built(&p, 1, PTE_ERR_INVALID_PROGRAM, "value 4: TensorList item 1 refers to value 5, which does not come before");
  p = base_prog();
  p.values[4].items[1] = 3; /* an Int */
  expect_built(&p, 1, PTE_ERR_INVALID_PROGRAM, "value 4: TensorList item 1 refers to value 3, which is not a Tensor");
  p = base_prog();
  p.values[4].items[0] = -1;
  expect_built(&p, 1, PTE_ERR_INVALID_PROGRAM, "value 4: TensorList item 0 is value index -1, out of range (8 values)");
  p = base_prog();
  p.values[6].items[1] = 3;
  expect_built(&p, 1, PTE_ERR_INVALID_PROGRAM, "value 6: OptionalTensorList item 1 refers to value 3, which is not a Tensor");
  p = base_prog();
  p.values[5].litems[0] = 2; /* a Tensor, not an Int */
  expect_built(&p, 1, PTE_ERR_INVALID_PROGRAM, "value 5: IntList item 0 refers to value 2, which is not an Int");
  p = base_prog();
  p.values[5].litems[0] = 8;
  expect_built(&p, 1, PTE_ERR_INVALID_PROGRAM, "value 5: IntList item 0 is value index 8, out of range (8 values)");
}

TEST(built_instructions) {
  t_prog p = base_prog();
  p.instrs[0].a = 1; /* op index past the operators */
  expect_built(&p, 1, PTE_ERR_INVALID_PROGRAM, "method 'forward' chain 0 instruction 0: KernelCall op_index 1 out of range (1 operators)");
  p = base_prog();
  p.instrs[0].args[2] = 8; /* value index past the values table */
  expect_built(&p, 1, PTE_ERR_INVALID_PROGRAM, "instruction 0: arg 2 is value index 8, out of range (8 values)");
  p = base_prog();
  p.instrs[0].tag = 2; /* DelegateCall with no delegates */
  expect_built(&p, 1, PTE_ERR_INVALID_PROGRAM, "instruction 0: DelegateCall delegate_index 0 out of range (0 delegates)");
  p = base_prog();
  p.instrs[1].tag = 3;
  p.instrs[1].a = 0;
  p.instrs[1].b = 9;
  p.n_instrs = 2;
  expect_built(&p, 1, PTE_ERR_INVALID_PROGRAM, "instruction 1: MoveCall move_to value index 9 out of range");
  p.instrs[1].tag = 5;
  p.instrs[1].a = -2;
  expect_built(&p, 1, PTE_ERR_INVALID_PROGRAM, "instruction 1: FreeCall value_index value index -2 out of range");
  p.instrs[1].tag = 4;
  p.instrs[1].a = 3;
  p.instrs[1].b = 3;
  expect_built(&p, 1, PTE_ERR_INVALID_PROGRAM, "instruction 1: JumpFalseCall destination 3 out of range (2 instructions)");
  p.instrs[1].b = 2; /* jumping to the end of the chain is allowed */
  expect_built(&p, 0, PTE_OK, "");
}

TEST(built_delegates_and_plan_fields) {
  t_prog p = base_prog();
  p.n_delegates = 1;
  p.delegates[0].loc = 1; /* SEGMENT */
  p.delegates[0].index = 5;
  expect_built(&p, 1, PTE_ERR_INVALID_PROGRAM, "delegate 0: segment index 5 out of range (1 segments)");
  p.delegates[0].loc = 0; /* INLINE */
  p.delegates[0].index = 1;
  p.n_inline_data = 1;
  expect_built(&p, 1, PTE_ERR_INVALID_PROGRAM, "delegate 0: INLINE data index 1 out of range (1 backend_delegate_data entries)");
  p.delegates[0].index = 0;
  expect_built(&p, 0, PTE_OK, "");
  p = base_prog();
  p.n_delegates = -1;
  expect_built(&p, 1, PTE_ERR_INVALID_PROGRAM, "method 'forward': missing delegates");
  p = base_prog();
  p.inputs[0] = 99;
  expect_built(&p, 1, PTE_ERR_INVALID_PROGRAM, "method 'forward': input 0 is value index 99, out of range (8 values)");
  p = base_prog();
  p.nbs[1] = -32;
  expect_built(&p, 1, PTE_ERR_INVALID_PROGRAM, "non_const_buffer_sizes[1] is negative (-32)");
  p = base_prog();
  p.values[2].t.mem_id = 2;
  expect_built(&p, 1, PTE_ERR_INVALID_PROGRAM, "value 2: memory_id 2 out of range (method has 1 planned buffers)");
  p = base_prog();
  p.values[2].t.mem_off = 17; /* 16 bytes at 17 in a 32-byte buffer */
  expect_built(&p, 1, PTE_ERR_INVALID_PROGRAM, "value 2: planned at offset 17 with 16 bytes, past the end of buffer 1 (32 bytes)");
  p = base_prog();
  p.values[1].t.external = 1; /* EXTERNAL without a name */
  expect_built(&p, 1, PTE_ERR_INVALID_PROGRAM, "value 1: external tensor has no fully_qualified_name");
  p.values[1].t.fqn = "w";
  p.values[1].t.dbi = 77; /* ignored for EXTERNAL tensors */
  expect_built(&p, 0, PTE_OK, "");
}

TEST(built_constants) {
  t_prog p = base_prog();
  p.cs_offsets[2] = 64;
  p.n_cs_offsets = 3;
  expect_built(&p, 1, PTE_ERR_INVALID_PROGRAM, "constant_segment 0: offset 2 (64) is past the end of segment 0 (16 bytes)");
  p = base_prog();
  p.cs_offsets[1] = 8; /* 16 bytes from offset 8 in a 16-byte segment */
  expect_built(&p, 1, PTE_ERR_INVALID_PROGRAM, "value 1: constant at offset 8 with 16 bytes runs past the constant segment (16 bytes)");
  p = base_prog();
  p.values[1].t.dbi = 5;
  expect_built(&p, 1, PTE_ERR_INVALID_PROGRAM, "value 1: data_buffer_idx 5 out of range (constant segment has 2 offsets)");
  /* Constants stored both ways: rejected at every level (upstream "Only one should be used"). */
  p = base_prog();
  p.n_cb = 2;
  p.cb_sizes[0] = 0;
  p.cb_sizes[1] = 16;
  expect_built(&p, 0, PTE_ERR_INVALID_PROGRAM,
               "constants stored both inline (constant_buffer has 2 entries) and in a segment (constant_segment has 2 offsets)");
  /* Inline constants only: fine; too short a buffer is not. */
  p.has_cs = 0;
  p.n_segs = -1;
  expect_built(&p, 0, PTE_OK, "");
  p.cb_sizes[1] = 12;
  expect_built(&p, 1, PTE_ERR_INVALID_PROGRAM, "value 1: constant_buffer[1] has 12 bytes, tensor needs 16");
  /* No constants anywhere but a tensor wants one. */
  p = base_prog();
  p.has_cs = 0;
  expect_built(&p, 1, PTE_ERR_INVALID_PROGRAM, "value 1: data_buffer_idx 1 but the program stores no constants");
  /* Constant segment index past the segments: every level. */
  p = base_prog();
  p.cs_index = 3;
  expect_built(&p, 0, PTE_ERR_INVALID_PROGRAM, "constant segment index 3 out of range (1 segments)");
  p = base_prog();
  p.n_segs = -1;
  expect_built(&p, 0, PTE_ERR_INVALID_PROGRAM, "constant_segment is used but the program has no segments");
}

TEST(built_segments_named_and_mutable_data) {
  t_prog p = base_prog();
  p.segs[1][0] = 8; /* overlaps segment 0 [0, 16) */
  p.segs[1][1] = 16;
  p.n_segs = 2;
  expect_built(&p, 1, PTE_ERR_INVALID_PROGRAM, "program segments 0 (offset 0, size 16) and 1 (offset 8, size 16) overlap");
  p.segs[1][1] = 0; /* empty segments never overlap */
  expect_built(&p, 0, PTE_OK, "");
  /* Named data without a segment table: InvalidArgument at every level (upstream). */
  p = base_prog();
  p.has_cs = 0;
  p.values[1].t.dbi = 0;
  p.n_segs = -1;
  p.n_named = 1;
  p.named[0].key = "w";
  p.named[0].seg = 0;
  expect_built(&p, 0, PTE_ERR_INVALID_ARGUMENT, "program has named_data (1 entries) but no segments");
  p = base_prog();
  p.n_named = 1;
  p.named[0].key = "w";
  p.named[0].seg = 4;
  expect_built(&p, 1, PTE_ERR_INVALID_PROGRAM, "named_data 0 ('w'): segment_index 4 out of range (1 segments)");
  p.named[0].seg = 0;
  expect_built(&p, 0, PTE_OK, "");
  /* Mutable data. */
  p = base_prog();
  p.values[2].t.dbi = 1; /* planned with an initial value, but no mutable_data_segments */
  expect_built(&p, 1, PTE_ERR_INVALID_PROGRAM,
               "value 2: has initial data (data_buffer_idx 1) but the program has no mutable_data_segments");
  p.has_ms = 1;
  p.ms_index = 7;
  p.ms_offsets[0] = 0;
  p.ms_offsets[1] = 0;
  p.n_ms_offsets = 2;
  expect_built(&p, 1, PTE_ERR_INVALID_PROGRAM, "mutable_data_segments 0: segment_index 7 out of range (1 segments)");
  p.ms_index = 1;
  p.segs[1][0] = 128;
  p.segs[1][1] = 8; /* 8 bytes, tensor needs 16 */
  p.n_segs = 2;
  expect_built(&p, 1, PTE_ERR_INVALID_PROGRAM, "value 2: initial data at offset 0 with 16 bytes runs past the mutable segment (8 bytes)");
  p.segs[1][1] = 16;
  expect_built(&p, 0, PTE_OK, "");
}

int main(void) {
  RUN(built_baseline_is_valid);
  RUN(built_tensor_shapes);
  RUN(built_lists);
  RUN(built_instructions);
  RUN(built_delegates_and_plan_fields);
  RUN(built_constants);
  RUN(built_segments_named_and_mutable_data);
  return test_summary();
}
