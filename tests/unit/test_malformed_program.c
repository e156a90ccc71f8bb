#define _POSIX_C_SOURCE 200809L
/* Bad input: hand-made mutations of corpus files and builder-made programs. Every case asserts the
 * exact status and a message substring; sweeps (every truncation, every byte flipped) assert that
 * nothing crashes or reads out of bounds (run under ASan+UBSan) and only documented statuses come
 * back. Also the .ptd and .bpte readers. */
#include "format/flatbuf.h"
#include "pte/bundled.h"
#include "pte/headers.h"
#include "pte/io.h"
#include "pte/program.h"
#include "pte/ptd.h"
#include "pte_gen/program_gen.h"
#include "test.h"

/* ================================================================== helpers */

static void st16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }
static void st32(uint8_t *p, uint32_t v) {
  for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static void st64(uint8_t *p, uint64_t v) {
  for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}

/* Loads bytes as a program; returns the status and leaves the message in *err. */
static pte_status try_load(const uint8_t *d, size_t n, pte_verification lv, pte_error_info *err) {
  pte_buffer_loader bl;
  pte_buffer_loader_init(&bl, d, n);
  pte_program p;
  memset(err, 0, sizeof *err);
  pte_status s = pte_program_load(&bl.base, lv, &p, err);
  if (s == PTE_OK) {
    /* Exercise the accessors on whatever loaded (must stay in bounds). */
    size_t nm = pte_program_num_methods(&p);
    for (size_t i = 0; i <= nm; i++) (void)pte_program_method_name(&p, i);
    const void *c;
    for (size_t i = 0; i < 4; i++) (void)pte_program_constant_data(&p, i, 4, &c);
    for (size_t i = 0; i < pte_program_num_segments(&p) && i < 64; i++) {
      pte_freeable_buffer b;
      if (pte_program_load_segment(&p, i, NULL, &b) == PTE_OK) pte_freeable_buffer_free(&b);
    }
    uint8_t tmp[16];
    (void)pte_program_load_mutable_into(&p, 0, 1, 4, tmp);
    const pte_named_data_map *m = pte_program_named_data_map(&p);
    uint32_t nk = 0;
    if (m && pte_named_data_map_num_keys(m, &nk) == PTE_OK) {
      for (uint32_t k = 0; k < nk && k < 64; k++) {
        const char *key;
        pte_freeable_buffer b;
        if (pte_named_data_map_get_key(m, k, &key) == PTE_OK && pte_named_data_map_get_data(m, key, &b) == PTE_OK)
          pte_freeable_buffer_free(&b);
      }
    }
    pte_program_destroy(&p);
  }
  return s;
}

/* Asserts status + message substring at one level. */
#define EXPECT_AT(d, n, lv, status, needle)                                                       \
  do {                                                                                            \
    pte_error_info e_;                                                                            \
    pte_status s_ = try_load((d), (n), (lv), &e_);                                                \
    CHECK_MSG(s_ == (status), "level %d: got %s (%s), expected %s", (int)(lv), pte_status_name(s_), \
              e_.msg, pte_status_name(status));                                                   \
    if ((status) != PTE_OK) CHECK_CONTAINS(e_.msg, (needle));                                     \
  } while (0)
/* Fails only with full verification; loads with PTE_VERIFY_MINIMAL (accessors stay safe). */
#define EXPECT_INTERNAL(d, n, status, needle)                                                     \
  do {                                                                                            \
    EXPECT_AT(d, n, PTE_VERIFY_INTERNAL_CONSISTENCY, status, needle);                             \
    EXPECT_AT(d, n, PTE_VERIFY_MINIMAL, PTE_OK, "");                                              \
  } while (0)
/* Fails the same way at both levels. */
#define EXPECT_BOTH(d, n, status, needle)                                                         \
  do {                                                                                            \
    EXPECT_AT(d, n, PTE_VERIFY_INTERNAL_CONSISTENCY, status, needle);                             \
    EXPECT_AT(d, n, PTE_VERIFY_MINIMAL, status, needle);                                          \
  } while (0)

static uint8_t *corpus_copy(const char *name, size_t *n) { return test_read_corpus(name, n); }

/* Reader-based locators on a (mutable) corpus copy. */
static pte_fb_table plan_of(const uint8_t *d, size_t n, uint32_t i) {
  return pte_fb_vec_table(pte_fb_get_vec(pte_fb_root(d, n), 1), i);
}
static pte_fb_table evalue_of(const uint8_t *d, size_t n, uint32_t plan, uint32_t j) {
  return pte_fb_vec_table(pte_fb_get_vec(plan_of(d, n, plan), 2), j);
}
static pte_fb_table value_of(const uint8_t *d, size_t n, uint32_t plan, uint32_t j) {
  return pte_fb_get_table(evalue_of(d, n, plan, j), 1);
}
static pte_fb_table instr_args_of(const uint8_t *d, size_t n, uint32_t plan, uint32_t k) {
  pte_fb_table chain = pte_fb_vec_table(pte_fb_get_vec(plan_of(d, n, plan), 5), 0);
  return pte_fb_get_table(pte_fb_vec_table(pte_fb_get_vec(chain, 2), k), 1);
}
/* Absolute position of element i of vector field `slot` of table t. */
static uint32_t vec_elem(pte_fb_table t, unsigned slot, uint32_t i, uint32_t esize) {
  pte_fb_vec v = pte_fb_get_vec(t, slot);
  return v.present ? v.data + i * esize : 0;
}

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

/* ================================================================== corpus byte patches */

TEST(truncations_at_structural_boundaries) {
  size_t n;
  uint8_t *d = corpus_copy("arduino_AddModel.pte", &n); /* eh00/32, program 1040, base 1152, 4 data bytes */
  CHECK(d);
  static const size_t too_small[] = {0, 4, 8, 40, 63};
  for (size_t i = 0; i < sizeof too_small / sizeof too_small[0]; i++)
    EXPECT_BOTH(d, too_small[i], PTE_ERR_INVALID_PROGRAM, "too small (at least 64 needed)");
  static const size_t inside_program[] = {64, 500, 1039};
  for (size_t i = 0; i < sizeof inside_program / sizeof inside_program[0]; i++)
    EXPECT_BOTH(d, inside_program[i], PTE_ERR_INVALID_PROGRAM, "program_size 1040 > file size");
  static const size_t inside_segments[] = {1040, 1100, 1152, 1155};
  for (size_t i = 0; i < sizeof inside_segments / sizeof inside_segments[0]; i++)
    EXPECT_BOTH(d, inside_segments[i], PTE_ERR_INVALID_PROGRAM, "< 1156 expected from the extended header");
  EXPECT_BOTH(d, 1156, PTE_OK, "");
  free(d);
  /* A header-less file cut short: the flatbuffer itself is truncated. */
  d = corpus_copy("apple_tests_add.pte", &n);
  CHECK(d);
  EXPECT_AT(d, 700, PTE_VERIFY_INTERNAL_CONSISTENCY, PTE_ERR_INVALID_PROGRAM, "past end of buffer");
  free(d);
}

TEST(every_truncation_is_safe) {
  static const char *const files[] = {"arduino_AddModel.pte", "apple_tests_add.pte", "numpyrt_quantized.pte"};
  for (size_t f = 0; f < 3; f++) {
    size_t n;
    uint8_t *d = corpus_copy(files[f], &n);
    CHECK(d);
    for (size_t len = 0; len < n; len++) {
      /* Exact-size heap copy so ASan sees any read past the end. */
      uint8_t *t = NULL;
      CHECK(posix_memalign((void **)&t, 64, len ? len : 1) == 0);
      memcpy(t, d, len);
      for (int lv = 0; lv < 2; lv++) {
        pte_error_info e;
        pte_status s = try_load(t, len, (pte_verification)lv, &e);
        CHECK_MSG(s == PTE_ERR_INVALID_PROGRAM || (s == PTE_OK && lv == 0),
                  "%s cut at %zu, level %d: %s (%s)", files[f], len, lv, pte_status_name(s), e.msg);
      }
      free(t);
    }
    free(d);
  }
}

TEST(every_byte_flip_is_safe) {
  static const char *const files[] = {"arduino_AddModel.pte", "numpyrt_quantized.pte", "deprecated_ModuleLinear-no-constant-segment.pte"};
  for (size_t f = 0; f < 3; f++) {
    size_t n;
    uint8_t *d = corpus_copy(files[f], &n);
    CHECK(d);
    size_t limit = n < 2600 ? n : 2600;
    static const uint8_t patterns[3] = {0xFF, 0x00, 0x80};
    for (size_t i = 0; i < limit; i++) {
      for (int q = 0; q < 3; q++) {
        uint8_t saved = d[i];
        d[i] = (uint8_t)(patterns[q] == saved ? saved ^ 0x01 : patterns[q]);
        for (int lv = 0; lv < 2; lv++) {
          pte_error_info e;
          pte_status s = try_load(d, n, (pte_verification)lv, &e);
          CHECK_MSG(s == PTE_OK || s == PTE_ERR_INVALID_PROGRAM || s == PTE_ERR_INVALID_ARGUMENT ||
                        s == PTE_ERR_NOT_FOUND,
                    "%s byte %zu = 0x%02x, level %d: %s (%s)", files[f], i, d[i], lv, pte_status_name(s), e.msg);
        }
        d[i] = saved;
      }
    }
    free(d);
  }
}

TEST(identifier_and_root) {
  size_t n;
  uint8_t *d = corpus_copy("arduino_AddModel.pte", &n);
  CHECK(d);
  memcpy(d + 4, "ET13", 4);
  EXPECT_BOTH(d, n, PTE_ERR_INVALID_PROGRAM, "program identifier 'ET13' is an incompatible version (expected 'ET12')");
  memcpy(d + 4, "XY12", 4);
  EXPECT_BOTH(d, n, PTE_ERR_INVALID_PROGRAM, "not a program: identifier 'XY12' != expected 'ET12'");
  memcpy(d + 4, "ET12", 4);
  uint32_t root = pte_fb_ld_u32(d);
  st32(d, 0xFFFF);
  EXPECT_BOTH(d, n, PTE_ERR_INVALID_PROGRAM, "root table offset 65535 out of range [8, 1036]");
  st32(d, 4);
  EXPECT_BOTH(d, n, PTE_ERR_INVALID_PROGRAM, "root table offset 4 out of range");
  st32(d, root + 2); /* misaligned root table */
  EXPECT_AT(d, n, PTE_VERIFY_INTERNAL_CONSISTENCY, PTE_ERR_INVALID_PROGRAM, "not 4-byte aligned");
  st32(d, root);
  EXPECT_BOTH(d, n, PTE_OK, "");
  /* Root table's vtable far outside the buffer. */
  uint32_t so = pte_fb_ld_u32(d + root);
  st32(d + root, 0x80000000u);
  EXPECT_AT(d, n, PTE_VERIFY_INTERNAL_CONSISTENCY, PTE_ERR_INVALID_PROGRAM, "table at 0x3c: vtable at 0x8000003c");
  EXPECT_AT(d, n, PTE_VERIFY_MINIMAL, PTE_ERR_INVALID_PROGRAM, "root table at 60 is malformed");
  st32(d + root, so);
  /* A vtable entry pointing a field far past the table (and the buffer). */
  pte_fb_table rt = pte_fb_root(d, n);
  st16(d + rt.vt + 4 + 2 * 1, 0xFFF0);
  EXPECT_AT(d, n, PTE_VERIFY_INTERNAL_CONSISTENCY, PTE_ERR_INVALID_PROGRAM, "past end of buffer");
  free(d);
}

TEST(extended_header_fields) {
  size_t n;
  uint8_t *d = corpus_copy("arduino_AddModel.pte", &n);
  CHECK(d);
  st32(d + 12, 16);
  EXPECT_BOTH(d, n, PTE_ERR_INVALID_PROGRAM, "extended header length 16 < 24");
  st32(d + 12, 32);
  st64(d + 32, 5); /* segment_data_size: base 1152 + 5 > 1156 */
  EXPECT_BOTH(d, n, PTE_ERR_INVALID_PROGRAM, "file size 1156 < 1157 expected from the extended header");
  st64(d + 32, 4);
  st64(d + 24, 1024); /* segment base inside the flatbuffer */
  EXPECT_BOTH(d, n, PTE_ERR_INVALID_PROGRAM, "segment_base_offset 1024 < program_size 1040");
  st64(d + 24, 1152);
  st64(d + 16, 4000);
  EXPECT_BOTH(d, n, PTE_ERR_INVALID_PROGRAM, "program_size 4000 > file size 1156");
  st64(d + 16, 4);
  EXPECT_BOTH(d, n, PTE_ERR_INVALID_PROGRAM, "program_size 4 is too small");
  st64(d + 16, 1040);
  /* A 24-byte header (segment_data_size absent) still loads. */
  st32(d + 12, 24);
  EXPECT_BOTH(d, n, PTE_OK, "");
  /* Magic other than eh00: the whole file is taken as the flatbuffer (no segments); the segment
   * table then describes bytes the file does not have. */
  memcpy(d + 8, "eh01", 4);
  EXPECT_AT(d, n, PTE_VERIFY_MINIMAL, PTE_ERR_INVALID_PROGRAM, "constant segment 0 has 4 bytes but the file has no segment data");
  free(d);
}

TEST(corpus_value_and_instruction_patches) {
  size_t n;
  uint8_t *d = corpus_copy("arduino_AddModel.pte", &n);
  CHECK(d);
  /* v1 is FLOAT[3] (the input): make its size negative. */
  uint32_t pos = vec_elem(value_of(d, n, 0, 1), 2, 0, 4);
  CHECK(pos);
  st32(d + pos, (uint32_t)-3);
  EXPECT_INTERNAL(d, n, PTE_ERR_INVALID_PROGRAM, "method 'forward' value 1: size -3 at dimension 0 is negative");
  st32(d + pos, 3);
  /* Rank 17: stretch the sizes vector (the bytes that follow are still inside the buffer). */
  st32(d + pos - 4, 17);
  EXPECT_INTERNAL(d, n, PTE_ERR_INVALID_PROGRAM, "value 1: tensor rank 17 exceeds the maximum of 16");
  st32(d + pos - 4, 1);
  /* Union tag out of range (12 > OptionalTensorList). */
  uint32_t tagpos = pte_fb_field_pos(evalue_of(d, n, 0, 3), 0);
  CHECK(tagpos);
  d[tagpos] = 12;
  EXPECT_INTERNAL(d, n, PTE_ERR_INVALID_PROGRAM, "tag 12 out of range");
  d[tagpos] = 0; /* NONE with a value present */
  EXPECT_INTERNAL(d, n, PTE_ERR_INVALID_PROGRAM, "value present but type is NONE");
  d[tagpos] = 2;
  /* KernelCall args [1, 0, 3, 2, 2]: point one past the 4 values. */
  uint32_t argpos = vec_elem(instr_args_of(d, n, 0, 0), 1, 2, 4);
  CHECK(argpos);
  st32(d + argpos, 4);
  EXPECT_INTERNAL(d, n, PTE_ERR_INVALID_PROGRAM, "chain 0 instruction 0: arg 2 is value index 4, out of range (4 values)");
  st32(d + argpos, 3);
  /* Output index past the values. */
  uint32_t outpos = vec_elem(plan_of(d, n, 0), 4, 0, 4);
  st32(d + outpos, 7);
  EXPECT_INTERNAL(d, n, PTE_ERR_INVALID_PROGRAM, "method 'forward': output 0 is value index 7, out of range (4 values)");
  st32(d + outpos, 2);
  EXPECT_BOTH(d, n, PTE_OK, "");
  free(d);

  /* op index past the operators: the last KernelCall of xor's forward (op_index stored). */
  d = corpus_copy("upstream_android_xor.pte", &n);
  CHECK(d);
  pte_fb_vec ops = pte_fb_get_vec(plan_of(d, n, 0), 6);
  uint32_t oppos = pte_fb_field_pos(instr_args_of(d, n, 0, 64), 0);
  CHECK(oppos);
  st32(d + oppos, ops.len);
  char needle[96];
  snprintf(needle, sizeof needle, "instruction 64: KernelCall op_index %u out of range (%u operators)", ops.len, ops.len);
  EXPECT_INTERNAL(d, n, PTE_ERR_INVALID_PROGRAM, needle);
  free(d);

  /* Dim order not a permutation: a rank-2 tensor of xor (v0 FLOAT[10, 2]). */
  d = corpus_copy("upstream_android_xor.pte", &n);
  CHECK(d);
  uint32_t dpos = vec_elem(value_of(d, n, 0, 0), 3, 0, 1);
  CHECK(dpos);
  d[dpos] = 1; /* [1, 1] */
  EXPECT_INTERNAL(d, n, PTE_ERR_INVALID_PROGRAM, "value 0: dim_order is not a permutation of 0..1 (entry 1 is 1)");
  free(d);
}

TEST(corpus_segment_and_named_data_patches) {
  size_t n;
  uint8_t *d = corpus_copy("numpyrt_quantized.pte", &n); /* segs (0,0) (0,1088) (1152,64) (1280,32) */
  CHECK(d);
  pte_fb_vec segs = pte_fb_get_vec(pte_fb_root(d, n), 4);
  uint32_t s3_off = pte_fb_field_pos(pte_fb_vec_table(segs, 3), 0);
  uint32_t s3_size = pte_fb_field_pos(pte_fb_vec_table(segs, 3), 1);
  CHECK(s3_off && s3_size);
  st64(d + s3_off, 1200);
  EXPECT_INTERNAL(d, n, PTE_ERR_INVALID_PROGRAM, "program segments 2 (offset 1152, size 64) and 3 (offset 1200, size 32) overlap");
  st64(d + s3_off, 1280);
  st64(d + s3_size, 1000);
  EXPECT_INTERNAL(d, n, PTE_ERR_INVALID_PROGRAM, "program segment 3 (offset 1280, size 1000) lies outside the segment data (1312 bytes)");
  st64(d + s3_size, UINT64_MAX - 100);
  EXPECT_INTERNAL(d, n, PTE_ERR_INVALID_PROGRAM, "program segment 3: offset 1280 + size 18446744073709551515 overflows");
  st64(d + s3_size, 32);
  /* Named data pointing past the segments. */
  pte_fb_vec named = pte_fb_get_vec(pte_fb_root(d, n), 7);
  uint32_t nd0 = pte_fb_field_pos(pte_fb_vec_table(named, 0), 1);
  CHECK(nd0);
  st32(d + nd0, 9);
  EXPECT_INTERNAL(d, n, PTE_ERR_INVALID_PROGRAM, "named_data 0 ('f12ea8fa6bc2");
  EXPECT_INTERNAL(d, n, PTE_ERR_INVALID_PROGRAM, "segment_index 9 out of range (4 segments)");
  st32(d + nd0, 2);
  /* Delegate SEGMENT index past the segments. */
  pte_fb_table del = pte_fb_vec_table(pte_fb_get_vec(plan_of(d, n, 0), 7), 0);
  uint32_t ipos = pte_fb_field_pos(pte_fb_get_table(del, 1), 1);
  CHECK(ipos);
  st32(d + ipos, 4);
  EXPECT_INTERNAL(d, n, PTE_ERR_INVALID_PROGRAM, "delegate 0: segment index 4 out of range (4 segments)");
  st32(d + ipos, 1);
  uint32_t lpos = pte_fb_field_pos(pte_fb_get_table(del, 1), 0);
  CHECK(lpos);
  d[lpos] = 0; /* INLINE, but the program has no backend_delegate_data */
  EXPECT_INTERNAL(d, n, PTE_ERR_INVALID_PROGRAM, "delegate 0: INLINE data index 1 out of range (0 backend_delegate_data entries)");
  d[lpos] = 1;
  EXPECT_BOTH(d, n, PTE_OK, "");
  free(d);

  /* Constant offsets past the constant segment (offsets [0, 0, 16] in a 40-byte segment). */
  d = corpus_copy("numpyrt_const_methods.pte", &n);
  CHECK(d);
  pte_fb_table cs = pte_fb_get_table(pte_fb_root(d, n), 5);
  uint32_t o2 = vec_elem(cs, 1, 2, 8);
  CHECK(o2);
  st64(d + o2, 1000);
  EXPECT_INTERNAL(d, n, PTE_ERR_INVALID_PROGRAM, "constant_segment 0: offset 2 (1000) is past the end of segment 0 (40 bytes)");
  st64(d + o2, 16);
  /* Constant segment index past the segments: every level. */
  uint32_t ci = pte_fb_field_pos(cs, 0);
  if (!ci) { /* segment_index 0 is usually omitted: patch via a patched vtable is not possible; use the count */
    pte_fb_vec sg = pte_fb_get_vec(pte_fb_root(d, n), 4);
    st32(d + sg.data - 4, 0); /* zero segments */
    EXPECT_BOTH(d, n, PTE_ERR_INVALID_PROGRAM, "constant segment index 0 out of range (0 segments)");
  }
  free(d);

  /* Mutable data segment index past the segments (dnf: mutable_data_segments[0].segment_index 1). */
  d = corpus_copy("dnf_test_dnf_executorch1.pte", &n);
  CHECK(d);
  pte_fb_table ms0 = pte_fb_vec_table(pte_fb_get_vec(pte_fb_root(d, n), 6), 0);
  uint32_t mpos = pte_fb_field_pos(ms0, 0);
  CHECK(mpos);
  st32(d + mpos, 2);
  EXPECT_INTERNAL(d, n, PTE_ERR_INVALID_PROGRAM, "mutable_data_segments 0: segment_index 2 out of range (2 segments)");
  free(d);
}

/* ================================================================== .ptd and .bpte */

static pte_status try_ptd(const uint8_t *d, size_t n, pte_error_info *err) {
  pte_buffer_loader bl;
  pte_buffer_loader_init(&bl, d, n);
  pte_ptd ptd;
  memset(err, 0, sizeof *err);
  pte_status s = pte_ptd_load(&bl.base, &ptd, err);
  if (s == PTE_OK) {
    uint32_t nk = 0;
    const pte_named_data_map *m = pte_ptd_map(&ptd);
    if (pte_named_data_map_num_keys(m, &nk) == PTE_OK) {
      for (uint32_t k = 0; k < nk; k++) {
        const char *key;
        pte_tensor_layout l;
        pte_freeable_buffer b;
        if (pte_named_data_map_get_key(m, k, &key) != PTE_OK) continue;
        (void)pte_named_data_map_get_tensor_layout(m, key, &l);
        if (pte_named_data_map_get_data(m, key, &b) == PTE_OK) pte_freeable_buffer_free(&b);
      }
    }
    pte_ptd_destroy(&ptd);
  }
  return s;
}

#define EXPECT_PTD(d, n, status, needle)                                                           \
  do {                                                                                             \
    pte_error_info e_;                                                                             \
    pte_status s_ = try_ptd((d), (n), &e_);                                                        \
    CHECK_MSG(s_ == (status), "got %s (%s), expected %s", pte_status_name(s_), e_.msg, pte_status_name(status)); \
    if ((status) != PTE_OK) CHECK_CONTAINS(e_.msg, (needle));                                      \
  } while (0)

TEST(ptd_mutations) {
  size_t n;
  uint8_t *d = corpus_copy("etrs_data_map__default_external_constant.ptd", &n); /* 336 bytes */
  CHECK(d);
  EXPECT_PTD(d, n, PTE_OK, "");
  memcpy(d + 8, "FH02", 4);
  EXPECT_PTD(d, n, PTE_ERR_INVALID_EXTERNAL_DATA, "not a .ptd file: no 'FH01' header at byte 8");
  memcpy(d + 8, "FH01", 4);
  memcpy(d + 4, "FT02", 4);
  EXPECT_PTD(d, n, PTE_ERR_INVALID_EXTERNAL_DATA, "identifier 'FT02' != expected 'FT01'");
  memcpy(d + 4, "FT01", 4);
  st32(d + 12, 16);
  EXPECT_PTD(d, n, PTE_ERR_INVALID_EXTERNAL_DATA, "FlatTensor header length 16 < 40");
  st32(d + 12, 40);
  EXPECT_PTD(d, 320, PTE_ERR_INVALID_EXTERNAL_DATA, "exceeds file size 320");
  EXPECT_PTD(d, 40, PTE_ERR_INVALID_EXTERNAL_DATA, "too small");
  /* Entry 'b' (segment 1) pointing past the 2 segments. */
  pte_fb_vec named = pte_fb_get_vec(pte_fb_root(d, n), 2);
  uint32_t sp = pte_fb_field_pos(pte_fb_vec_table(named, 1), 1);
  CHECK(sp);
  st32(d + sp, 7);
  EXPECT_PTD(d, n, PTE_ERR_INVALID_EXTERNAL_DATA, ".ptd entry 'b': segment_index 7 out of range (2 segments)");
  st32(d + sp, 1);
  /* Segment 1 (16, 16) stretched past the 32 data bytes (strict bound). */
  pte_fb_vec segs = pte_fb_get_vec(pte_fb_root(d, n), 1);
  uint32_t sz1 = pte_fb_field_pos(pte_fb_vec_table(segs, 1), 1);
  CHECK(sz1);
  st64(d + sz1, 17);
  EXPECT_PTD(d, n, PTE_ERR_INVALID_EXTERNAL_DATA, ".ptd segment 1 (offset 16, size 17) lies outside the segment data (32 bytes)");
  st64(d + sz1, 8); /* smaller than the FLOAT[2, 2] tensor */
  EXPECT_PTD(d, n, PTE_ERR_INVALID_EXTERNAL_DATA, ".ptd entry 'b': tensor needs 16 bytes but segment 1 has 8");
  st64(d + sz1, 16);
  /* A negative size in a layout. */
  pte_fb_table lay = pte_fb_get_table(pte_fb_vec_table(named, 0), 2);
  uint32_t s0 = vec_elem(lay, 1, 0, 4);
  CHECK(s0);
  st32(d + s0, (uint32_t)-2);
  EXPECT_PTD(d, n, PTE_ERR_INVALID_EXTERNAL_DATA, ".ptd entry 'a': size -2 at dimension 0 is negative");
  st32(d + s0, 2);
  EXPECT_PTD(d, n, PTE_OK, "");
  /* Every truncation is safe. */
  for (size_t len = 0; len < n; len++) {
    uint8_t *t = NULL;
    CHECK(posix_memalign((void **)&t, 64, len ? len : 1) == 0);
    memcpy(t, d, len);
    pte_error_info e;
    pte_status s = try_ptd(t, len, &e);
    CHECK_MSG(s == PTE_ERR_INVALID_EXTERNAL_DATA, "cut at %zu: %s (%s)", len, pte_status_name(s), e.msg);
    free(t);
  }
  free(d);
  /* A .pte is not a .ptd. */
  d = corpus_copy("apple_tests_add.pte", &n);
  CHECK(d);
  EXPECT_PTD(d, n, PTE_ERR_INVALID_EXTERNAL_DATA, "no 'FH01' header");
  free(d);
}

static pte_status try_bpte(const uint8_t *d, size_t n, pte_error_info *err, pte_status *inner) {
  pte_buffer_loader bl;
  pte_buffer_loader_init(&bl, d, n);
  pte_bundled_program bp;
  memset(err, 0, sizeof *err);
  *inner = PTE_ERR_INTERNAL;
  pte_status s = pte_bundled_program_load(&bl.base, &bp, err);
  if (s == PTE_OK) {
    pte_program p;
    pte_error_info e2;
    *inner = pte_program_load(pte_bundled_program_loader(&bp), PTE_VERIFY_INTERNAL_CONSISTENCY, &p, &e2);
    if (*inner == PTE_OK) pte_program_destroy(&p);
    else memcpy(err->msg, e2.msg, sizeof e2.msg);
    pte_bundled_program_destroy(&bp);
  }
  return s;
}

TEST(bpte_mutations) {
  size_t n;
  uint8_t *d = corpus_copy("module_test_bundled_program.bpte", &n); /* program at 64, 1696 bytes */
  CHECK(d);
  pte_error_info e;
  pte_status inner;
  CHECK_OK(try_bpte(d, n, &e, &inner));
  CHECK_OK(inner);
  /* Truncated in the middle of the embedded program. */
  CHECK_STATUS(try_bpte(d, 1000, &e, &inner), PTE_ERR_INVALID_PROGRAM);
  CHECK_CONTAINS(e.msg, "past end of buffer");
  /* Program vector length past the end of the file. */
  st32(d + 60, 100000);
  CHECK_STATUS(try_bpte(d, n, &e, &inner), PTE_ERR_INVALID_PROGRAM);
  st32(d + 60, 1696);
  /* The embedded program's identifier corrupted: the bundle loads, the program does not. */
  memcpy(d + 64 + 4, "ET99", 4);
  CHECK_OK(try_bpte(d, n, &e, &inner));
  CHECK_STATUS(inner, PTE_ERR_INVALID_PROGRAM);
  CHECK_CONTAINS(e.msg, "'ET99' is an incompatible version");
  memcpy(d + 64 + 4, "ET12", 4);
  /* The embedded program's eh00 claims more bytes than the program vector holds. */
  st64(d + 64 + 16, 1700);
  CHECK_OK(try_bpte(d, n, &e, &inner));
  CHECK_STATUS(inner, PTE_ERR_INVALID_PROGRAM);
  CHECK_CONTAINS(e.msg, "program_size 1700 > file size 1696");
  st64(d + 64 + 16, 1584);
  /* Identifier of the bundle. */
  memcpy(d + 4, "BP07", 4);
  CHECK_STATUS(try_bpte(d, n, &e, &inner), PTE_ERR_INVALID_PROGRAM);
  CHECK_CONTAINS(e.msg, "not a bundled program: identifier 'BP07' != expected 'BP08'");
  memcpy(d + 4, "BP08", 4);
  /* A test input whose shape no longer matches its 16 data bytes. */
  pte_fb_table suite = pte_fb_vec_table(pte_fb_get_vec(pte_fb_root(d, n), 1), 0);
  pte_fb_table tc = pte_fb_vec_table(pte_fb_get_vec(suite, 1), 3);
  pte_fb_table val = pte_fb_get_table(pte_fb_vec_table(pte_fb_get_vec(tc, 0), 1), 1);
  uint32_t sp = vec_elem(val, 1, 0, 4);
  CHECK(sp);
  st32(d + sp, 3);
  CHECK_STATUS(try_bpte(d, n, &e, &inner), PTE_ERR_INVALID_PROGRAM);
  CHECK_CONTAINS(e.msg, "bundled test suite 0 ('forward') case 3 input 1: tensor data has 16 bytes, shape needs 24");
  st32(d + sp, 2);
  CHECK_OK(try_bpte(d, n, &e, &inner));
  /* Every truncation is safe. */
  for (size_t len = 0; len < n; len += 7) {
    uint8_t *t = NULL;
    CHECK(posix_memalign((void **)&t, 64, len ? len : 1) == 0);
    memcpy(t, d, len);
    pte_status s = try_bpte(t, len, &e, &inner);
    CHECK_MSG(s == PTE_ERR_INVALID_PROGRAM, "cut at %zu: %s (%s)", len, pte_status_name(s), e.msg);
    free(t);
  }
  free(d);
}

int main(void) {
  RUN(built_baseline_is_valid);
  RUN(built_tensor_shapes);
  RUN(built_lists);
  RUN(built_instructions);
  RUN(built_delegates_and_plan_fields);
  RUN(built_constants);
  RUN(built_segments_named_and_mutable_data);
  RUN(truncations_at_structural_boundaries);
  RUN(every_truncation_is_safe);
  RUN(every_byte_flip_is_safe);
  RUN(identifier_and_root);
  RUN(extended_header_fields);
  RUN(corpus_value_and_instruction_patches);
  RUN(corpus_segment_and_named_data_patches);
  RUN(ptd_mutations);
  RUN(bpte_mutations);
  return test_summary();
}
