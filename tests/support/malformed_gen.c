#define _POSIX_C_SOURCE 200809L
/* tests/support/malformed_gen.c — the generated base inputs of the malformed catalogue
 * (malformed_catalogue.h). */
#include <dirent.h>
#include <errno.h>

#include "format/flatbuf.h"
#include "format/fb_json.h"
#include "fuzz/fuzz_util.h"
#include "pte/backend_xnnpack.h"
#include "pte/bundled.h"
#include "pte/headers.h"
#include "pte/io.h"
#include "pte/method.h"
#include "pte/portable_kernels.h"
#include "pte/program.h"
#include "pte/ptd.h"
#include "pte/data_writer.h"
#include "pte/writer.h"
#include "pte_gen/bundled_program_gen.h"
#include "pte_gen/flat_tensor_gen.h"
#include "pte_gen/program_gen.h"
#include "pte_gen/xnnpack_gen.h"
#include "test.h"

#include "malformed_catalogue.h"

/* ================================================================== generated programs
 *
 * gen:control — every field written explicitly (force_defaults), so any scalar can be patched:
 *   forward(x: FLOAT[2] planned @0) -> y: FLOAT[2] planned @16, non_const_buffer_sizes [0, 32]
 *   values: v0 x, v1 y, v2 Bool false, v3 Int 1, v4 Int 0, v5 TensorList [0, 1], v6 IntList [3, 4],
 *           v7 Null, v8 constant FLOAT[2] = [1, 2] (data_buffer_idx 1), v9 Double 0.5
 *   operators: [aten::add.out]; delegates: [FuzzBackend, INLINE data 0 (4 bytes)]
 *   chain 0: 0 KernelCall add(v0, v8, v3, v1, v1)   y = x + [1, 2]
 *            1 DelegateCall 0 (v0, v1)
 *            2 MoveCall v3 -> v4
 *            3 JumpFalseCall cond v2 -> 5 (always taken: skips 4)
 *            4 FreeCall v0
 *   segments: [(0, 16)], constant_segment {0, [0, 0]}, eh00 header (32 bytes).
 * gen:unplanned-output — the same with y unplanned (no allocation_info: the caller binds it). */

static pte_fb_ref gen_tensor(pte_fb_builder *b, int32_t n, uint32_t dbi, int planned, uint32_t off) {
  int32_t sizes[1] = {n};
  uint8_t order[1] = {0};
  pte_fb_ref sv = pte_et_Tensor_create_sizes(b, sizes, 1);
  pte_fb_ref dv = pte_et_Tensor_create_dim_order(b, order, 1);
  pte_fb_ref alloc = 0;
  if (planned) {
    pte_et_AllocationDetails_start(b);
    pte_et_AllocationDetails_add_memory_id(b, 1);
    pte_et_AllocationDetails_add_memory_offset_low(b, off);
    pte_et_AllocationDetails_add_memory_offset_high(b, 0);
    alloc = pte_et_AllocationDetails_end(b);
  }
  pte_et_Tensor_start(b);
  pte_et_Tensor_add_scalar_type(b, PTE_DTYPE_FLOAT);
  pte_et_Tensor_add_storage_offset(b, 0);
  pte_et_Tensor_add_sizes(b, sv);
  pte_et_Tensor_add_dim_order(b, dv);
  pte_et_Tensor_add_requires_grad(b, false);
  pte_et_Tensor_add_data_buffer_idx(b, dbi);
  if (alloc) pte_et_Tensor_add_allocation_info(b, alloc);
  pte_et_Tensor_add_layout(b, 0);
  pte_et_Tensor_add_shape_dynamism(b, 0);
  return pte_et_Tensor_end(b);
}

static pte_fb_ref gen_evalue(pte_fb_builder *b, uint8_t tag, pte_fb_ref val) {
  pte_et_EValue_start(b);
  pte_et_EValue_add_val_type(b, tag);
  if (val) pte_et_EValue_add_val(b, val);
  return pte_et_EValue_end(b);
}

static pte_fb_ref gen_instr(pte_fb_builder *b, uint8_t tag, pte_fb_ref args) {
  pte_et_Instruction_start(b);
  pte_et_Instruction_add_instr_args_type(b, tag);
  pte_et_Instruction_add_instr_args(b, args);
  return pte_et_Instruction_end(b);
}

uint8_t *mc_gen_control(size_t *out_size, int unplanned_output) {
  pte_fb_builder b;
  pte_fb_builder_init(&b, pte_heap_realloc, NULL);
  b.force_defaults = true;
  pte_fb_ref v[10], r;
  v[0] = gen_evalue(&b, 5, gen_tensor(&b, 2, 0, 1, 0));
  v[1] = gen_evalue(&b, 5, gen_tensor(&b, 2, 0, !unplanned_output, 16));
  pte_et_Bool_start(&b);
  pte_et_Bool_add_bool_val(&b, false);
  v[2] = gen_evalue(&b, 3, pte_et_Bool_end(&b));
  pte_et_Int_start(&b);
  pte_et_Int_add_int_val(&b, 1);
  v[3] = gen_evalue(&b, 2, pte_et_Int_end(&b));
  pte_et_Int_start(&b);
  pte_et_Int_add_int_val(&b, 0);
  v[4] = gen_evalue(&b, 2, pte_et_Int_end(&b));
  int32_t tl[2] = {0, 1};
  r = pte_et_TensorList_create_items(&b, tl, 2);
  pte_et_TensorList_start(&b);
  pte_et_TensorList_add_items(&b, r);
  v[5] = gen_evalue(&b, 10, pte_et_TensorList_end(&b));
  int64_t il[2] = {3, 4};
  r = pte_et_IntList_create_items(&b, il, 2);
  pte_et_IntList_start(&b);
  pte_et_IntList_add_items(&b, r);
  v[6] = gen_evalue(&b, 7, pte_et_IntList_end(&b));
  pte_et_Null_start(&b);
  v[7] = gen_evalue(&b, 1, pte_et_Null_end(&b));
  v[8] = gen_evalue(&b, 5, gen_tensor(&b, 2, 1, 0, 0));
  pte_et_Double_start(&b);
  pte_et_Double_add_double_val(&b, 0.5);
  v[9] = gen_evalue(&b, 4, pte_et_Double_end(&b));
  pte_fb_ref values = pte_et_ExecutionPlan_create_values(&b, v, 10);

  pte_fb_ref ins[5];
  int32_t kargs[5] = {0, 8, 3, 1, 1};
  r = pte_et_KernelCall_create_args(&b, kargs, 5);
  pte_et_KernelCall_start(&b);
  pte_et_KernelCall_add_op_index(&b, 0);
  pte_et_KernelCall_add_args(&b, r);
  ins[0] = gen_instr(&b, 1, pte_et_KernelCall_end(&b));
  int32_t dargs[2] = {0, 1};
  r = pte_et_DelegateCall_create_args(&b, dargs, 2);
  pte_et_DelegateCall_start(&b);
  pte_et_DelegateCall_add_delegate_index(&b, 0);
  pte_et_DelegateCall_add_args(&b, r);
  ins[1] = gen_instr(&b, 2, pte_et_DelegateCall_end(&b));
  pte_et_MoveCall_start(&b);
  pte_et_MoveCall_add_move_from(&b, 3);
  pte_et_MoveCall_add_move_to(&b, 4);
  ins[2] = gen_instr(&b, 3, pte_et_MoveCall_end(&b));
  pte_et_JumpFalseCall_start(&b);
  pte_et_JumpFalseCall_add_cond_value_index(&b, 2);
  pte_et_JumpFalseCall_add_destination_instruction(&b, 5);
  ins[3] = gen_instr(&b, 4, pte_et_JumpFalseCall_end(&b));
  pte_et_FreeCall_start(&b);
  pte_et_FreeCall_add_value_index(&b, 0);
  ins[4] = gen_instr(&b, 5, pte_et_FreeCall_end(&b));
  r = pte_et_Chain_create_instructions(&b, ins, 5);
  int32_t cin[1] = {0}, cout[1] = {1};
  pte_fb_ref ci = pte_et_Chain_create_inputs(&b, cin, 1), co = pte_et_Chain_create_outputs(&b, cout, 1);
  pte_et_Chain_start(&b);
  pte_et_Chain_add_inputs(&b, ci);
  pte_et_Chain_add_outputs(&b, co);
  pte_et_Chain_add_instructions(&b, r);
  pte_fb_ref chain = pte_et_Chain_end(&b);
  pte_fb_ref chains = pte_et_ExecutionPlan_create_chains(&b, &chain, 1);

  pte_fb_ref nm = pte_fb_create_string(&b, "aten::add", 9), ov = pte_fb_create_string(&b, "out", 3);
  pte_et_Operator_start(&b);
  pte_et_Operator_add_name(&b, nm);
  pte_et_Operator_add_overload(&b, ov);
  pte_fb_ref op = pte_et_Operator_end(&b);
  pte_fb_ref ops = pte_et_ExecutionPlan_create_operators(&b, &op, 1);

  pte_fb_ref did = pte_fb_create_string(&b, "FuzzBackend", 11);
  pte_et_BackendDelegateDataReference_start(&b);
  pte_et_BackendDelegateDataReference_add_location(&b, 0);
  pte_et_BackendDelegateDataReference_add_index(&b, 0);
  pte_fb_ref dref = pte_et_BackendDelegateDataReference_end(&b);
  pte_fb_ref csk = pte_fb_create_string(&b, "k", 1);
  static const uint8_t csv_bytes[2] = {7, 8};
  pte_fb_ref csv = pte_et_CompileSpec_create_value(&b, csv_bytes, 2);
  pte_et_CompileSpec_start(&b);
  pte_et_CompileSpec_add_key(&b, csk);
  pte_et_CompileSpec_add_value(&b, csv);
  pte_fb_ref spec = pte_et_CompileSpec_end(&b);
  pte_fb_ref specs = pte_et_BackendDelegate_create_compile_specs(&b, &spec, 1);
  pte_et_BackendDelegate_start(&b);
  pte_et_BackendDelegate_add_id(&b, did);
  pte_et_BackendDelegate_add_processed(&b, dref);
  pte_et_BackendDelegate_add_compile_specs(&b, specs);
  pte_fb_ref del = pte_et_BackendDelegate_end(&b);
  pte_fb_ref dels = pte_et_ExecutionPlan_create_delegates(&b, &del, 1);

  int32_t pin[1] = {0}, pout[1] = {1};
  pte_fb_ref inputs = pte_et_ExecutionPlan_create_inputs(&b, pin, 1);
  pte_fb_ref outputs = pte_et_ExecutionPlan_create_outputs(&b, pout, 1);
  int64_t nbs_v[2] = {0, 32};
  pte_fb_ref nbs = pte_et_ExecutionPlan_create_non_const_buffer_sizes(&b, nbs_v, 2);
  pte_fb_ref name = pte_fb_create_string(&b, "forward", 7);
  pte_et_ExecutionPlan_start(&b);
  pte_et_ExecutionPlan_add_name(&b, name);
  pte_et_ExecutionPlan_add_values(&b, values);
  pte_et_ExecutionPlan_add_inputs(&b, inputs);
  pte_et_ExecutionPlan_add_outputs(&b, outputs);
  pte_et_ExecutionPlan_add_chains(&b, chains);
  pte_et_ExecutionPlan_add_operators(&b, ops);
  pte_et_ExecutionPlan_add_delegates(&b, dels);
  pte_et_ExecutionPlan_add_non_const_buffer_sizes(&b, nbs);
  pte_fb_ref plan = pte_et_ExecutionPlan_end(&b);
  pte_fb_ref plans = pte_et_Program_create_execution_plan(&b, &plan, 1);

  static const uint8_t blob[4] = {1, 2, 3, 4};
  r = pte_et_BackendDelegateInlineData_create_data(&b, blob, 4);
  pte_et_BackendDelegateInlineData_start(&b);
  pte_et_BackendDelegateInlineData_add_data(&b, r);
  pte_fb_ref inl = pte_et_BackendDelegateInlineData_end(&b);
  pte_fb_ref bdd = pte_et_Program_create_backend_delegate_data(&b, &inl, 1);
  pte_et_DataSegment_start(&b);
  pte_et_DataSegment_add_offset(&b, 0);
  pte_et_DataSegment_add_size(&b, 16);
  pte_fb_ref seg = pte_et_DataSegment_end(&b);
  pte_fb_ref segs = pte_et_Program_create_segments(&b, &seg, 1);
  uint64_t cso[2] = {0, 0};
  r = pte_et_SubsegmentOffsets_create_offsets(&b, cso, 2);
  pte_et_SubsegmentOffsets_start(&b);
  pte_et_SubsegmentOffsets_add_segment_index(&b, 0);
  pte_et_SubsegmentOffsets_add_offsets(&b, r);
  pte_fb_ref cs = pte_et_SubsegmentOffsets_end(&b);
  pte_et_Program_start(&b);
  pte_et_Program_add_version(&b, 0);
  pte_et_Program_add_execution_plan(&b, plans);
  pte_et_Program_add_backend_delegate_data(&b, bdd);
  pte_et_Program_add_segments(&b, segs);
  pte_et_Program_add_constant_segment(&b, cs);
  pte_fb_ref root = pte_et_Program_end(&b);
  const uint8_t *fb;
  size_t fbs;
  if (pte_et_finish(&b, root, &fb, &fbs) != PTE_OK) {
    pte_fb_builder_free(&b);
    return NULL;
  }
  /* eh00 header inserted at byte 8 (32 bytes: alignment is kept), segment data at a 128 boundary. */
  size_t program_size = fbs + 32, base = (program_size + 127) / 128 * 128, total = base + 16;
  uint8_t *out = (uint8_t *)calloc(1, total);
  if (out) {
    mc_st_le(out, pte_fb_ld_u32(fb) + 32, 4);
    memcpy(out + 4, fb + 4, 4);
    pte_extended_header h = {32, program_size, base, 16, true};
    pte_extended_header_write(&h, 32, out + 8, 32, NULL);
    memcpy(out + 40, fb + 8, fbs - 8);
    float c[2] = {1.0f, 2.0f};
    memcpy(out + base, c, sizeof c);
    *out_size = total;
  }
  pte_fb_builder_free(&b);
  return out;
}

/* gen:op-<name> — single-operator programs built with the program builder (pte/writer.h), for bad
 * operator arguments at execute time (issue 13; the oracle, tests/oracle, has the same cases):
 *   op-intdiv        div.out_mode(x: INT[2] planned input, c: const INT[2] = [3, 0],
 *                    "trunc") -> y INT[2]; values: v0 x, v1 c, v2 String, v3 y
 *   op-index-select  index_select.out(x: FLOAT[3, 2] input, dim: Int -2, index: const LONG[1] =
 *                    [7]) -> y FLOAT[1, 2]; values: v0 x, v1 dim, v2 index, v3 y */
uint8_t *mc_gen_op(const char *which, size_t *out_size) {
  static const int32_t k_idiv[2] = {3, 0};
  static const int64_t k_index[1] = {7};
  pte_writer *w = NULL;
  uint32_t m = 0, chain = 0, op = 0;
  int32_t v[4] = {-1, -1, -1, -1};
  bool ok = pte_writer_create(NULL, &w, NULL) == PTE_OK && pte_writer_add_method(w, "forward", &m, NULL) == PTE_OK;
  pte_wr_tensor t;
  memset(&t, 0, sizeof t);
  t.plan = PTE_WR_PLAN_AUTO;
  t.mem_id = 1;
  if (strcmp(which, "op-intdiv") == 0) {
    const int32_t s2[1] = {2};
    t.dtype = PTE_DTYPE_INT;
    t.dim = 1;
    t.sizes = s2;
    ok = ok && pte_writer_add_tensor(w, m, &t, &v[0], NULL) == PTE_OK;
    pte_wr_tensor c = t;
    c.plan = PTE_WR_PLAN_NONE;
    c.mem_id = 0;
    pte_source src = pte_source_memory(k_idiv, sizeof k_idiv);
    ok = ok && pte_writer_add_constant_tensor(w, m, &c, &src, &v[1], NULL) == PTE_OK;
    ok = ok && pte_writer_add_string(w, m, "trunc", 5, &v[2], NULL) == PTE_OK;
    ok = ok && pte_writer_add_tensor(w, m, &t, &v[3], NULL) == PTE_OK;
    ok = ok && pte_writer_add_operator(w, m, "aten::div", "out_mode", &op, NULL) == PTE_OK;
  } else if (strcmp(which, "op-index-select") == 0) {
    const int32_t s32[2] = {3, 2}, s12[2] = {1, 2}, s1[1] = {1};
    t.dtype = PTE_DTYPE_FLOAT;
    t.dim = 2;
    t.sizes = s32;
    ok = ok && pte_writer_add_tensor(w, m, &t, &v[0], NULL) == PTE_OK;
    ok = ok && pte_writer_add_int(w, m, -2, &v[1], NULL) == PTE_OK; /* dim 0 (a stored value) */
    pte_wr_tensor c;
    memset(&c, 0, sizeof c);
    c.dtype = PTE_DTYPE_LONG;
    c.dim = 1;
    c.sizes = s1;
    pte_source src = pte_source_memory(k_index, sizeof k_index);
    ok = ok && pte_writer_add_constant_tensor(w, m, &c, &src, &v[2], NULL) == PTE_OK;
    t.sizes = s12;
    ok = ok && pte_writer_add_tensor(w, m, &t, &v[3], NULL) == PTE_OK;
    ok = ok && pte_writer_add_operator(w, m, "aten::index_select", "out", &op, NULL) == PTE_OK;
  } else {
    ok = false;
  }
  const int32_t args[5] = {v[0], v[1], v[2], v[3], v[3]};
  ok = ok && pte_writer_set_inputs(w, m, &v[0], 1, NULL) == PTE_OK &&
       pte_writer_set_outputs(w, m, &v[3], 1, NULL) == PTE_OK &&
       pte_writer_add_chain(w, m, &v[0], 1, &v[3], 1, &chain, NULL) == PTE_OK &&
       pte_writer_add_kernel_call(w, m, chain, op, args, 5, NULL, NULL) == PTE_OK;
  uint8_t *out = NULL;
  pte_memory_writer mw;
  if (ok && pte_memory_writer_init(&mw, pte_heap_realloc, NULL, 0) == PTE_OK) {
    if (pte_writer_write(w, &mw.base, NULL) == PTE_OK) {
      const uint8_t *d = pte_memory_writer_data(&mw, out_size);
      out = (uint8_t *)malloc(*out_size ? *out_size : 1);
      if (out) memcpy(out, d, *out_size);
    }
    pte_data_writer_destroy(&mw.base);
  }
  pte_writer_destroy(w);
  return out;
}
