/* test_schema_at.c — the generated unchecked accessors (<P>_<Table>_<field>_at, _present_at, over
 * flatbuf.h pte_fb_raw_*) and the macro forms of the reader accessors.
 *
 * Reference: the bounds-checked accessors, which test_schema_gen proves against Google's flatc
 * field by field. Every corpus .pte is verified, then every table the runtime's semantic
 * validation reads (program, plans, values and their payloads, tensors, chains, instructions and
 * their arguments, operators, delegates, segments, named data) is read both ways and compared, and
 * the program loader's full verification (whose semantic pass reads through _at) accepts the file.
 * The function form of an accessor (its name in parentheses, which the macro does not expand) is
 * compared with the macro form on the same tables. A missing corpus fails the test.
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/flatbuf.h"
#include "pte/data_loader.h"
#include "pte/program.h"
#include "pte_gen/program_gen.h"
#include "test.h"

static int sat_fails;

#define SAT_EQ(name, a, b)                                                                                \
  do {                                                                                                   \
    unsigned long long a_ = (unsigned long long)(a), b_ = (unsigned long long)(b);                       \
    if (a_ != b_) {                                                                                      \
      if (sat_fails++ < 20) test_fail(__FILE__, __LINE__, "%s: %s: checked %llu, unchecked %llu", file, name, a_, b_); \
    }                                                                                                    \
    n_checked++;                                                                                         \
  } while (0)

/* A checked vector against an unchecked one: same presence, position and length. */
#define SAT_VEC(name, v, r)                                                                               \
  do {                                                                                                   \
    pte_fb_vec v_ = (v);                                                                                 \
    pte_fb_raw_vec r_ = (r);                                                                             \
    SAT_EQ(name " data", v_.present ? v_.data : 0, r_.data);                                             \
    SAT_EQ(name " len", v_.present ? v_.len : 0, r_.len);                                                \
  } while (0)

static size_t n_checked;

static void sat_tensor(const char *file, const uint8_t *b, pte_fb_table t) {
  uint32_t p = t.pos;
  SAT_EQ("Tensor.scalar_type", pte_et_Tensor_scalar_type(t), pte_et_Tensor_scalar_type_at(b, p));
  SAT_EQ("Tensor.storage_offset", pte_et_Tensor_storage_offset(t), pte_et_Tensor_storage_offset_at(b, p));
  SAT_VEC("Tensor.sizes", pte_et_Tensor_sizes(t), pte_et_Tensor_sizes_at(b, p));
  SAT_VEC("Tensor.dim_order", pte_et_Tensor_dim_order(t), pte_et_Tensor_dim_order_at(b, p));
  SAT_EQ("Tensor.requires_grad", pte_et_Tensor_requires_grad(t), pte_et_Tensor_requires_grad_at(b, p));
  SAT_EQ("Tensor.data_buffer_idx", pte_et_Tensor_data_buffer_idx(t), pte_et_Tensor_data_buffer_idx_at(b, p));
  SAT_EQ("Tensor.shape_dynamism", pte_et_Tensor_shape_dynamism(t), pte_et_Tensor_shape_dynamism_at(b, p));
  SAT_EQ("Tensor.sizes present", pte_et_Tensor_sizes_present(t), pte_et_Tensor_sizes_present_at(b, p));
  pte_fb_table al = pte_et_Tensor_allocation_info(t);
  SAT_EQ("Tensor.allocation_info", al.pos, pte_et_Tensor_allocation_info_at(b, p));
  if (al.pos) {
    SAT_EQ("AllocationDetails.memory_id", pte_et_AllocationDetails_memory_id(al), pte_et_AllocationDetails_memory_id_at(b, al.pos));
    SAT_EQ("AllocationDetails.memory_offset_low", pte_et_AllocationDetails_memory_offset_low(al),
           pte_et_AllocationDetails_memory_offset_low_at(b, al.pos));
    SAT_EQ("AllocationDetails.memory_offset_high", pte_et_AllocationDetails_memory_offset_high(al),
           pte_et_AllocationDetails_memory_offset_high_at(b, al.pos));
  }
  pte_fb_table ex = pte_et_Tensor_extra_tensor_info(t);
  SAT_EQ("Tensor.extra_tensor_info", ex.pos, pte_et_Tensor_extra_tensor_info_at(b, p));
  if (ex.pos) {
    SAT_EQ("ExtraTensorInfo.location", pte_et_ExtraTensorInfo_location(ex), pte_et_ExtraTensorInfo_location_at(b, ex.pos));
    SAT_EQ("ExtraTensorInfo.fully_qualified_name present", pte_et_ExtraTensorInfo_fully_qualified_name_present(ex),
           pte_et_ExtraTensorInfo_fully_qualified_name_present_at(b, ex.pos));
  }
  /* function form (parenthesized name) == macro form */
  SAT_EQ("(pte_et_Tensor_scalar_type)", (pte_et_Tensor_scalar_type)(t), pte_et_Tensor_scalar_type(t));
  SAT_EQ("(pte_et_Tensor_sizes_at)", (pte_et_Tensor_sizes_at)(b, p).data, pte_et_Tensor_sizes_at(b, p).data);
}

static void sat_value(const char *file, const uint8_t *b, pte_fb_table ev) {
  uint8_t tag = pte_et_EValue_val_type(ev);
  SAT_EQ("EValue.val_type", tag, pte_et_EValue_val_type_at(b, ev.pos));
  pte_fb_table v = pte_et_EValue_val(ev);
  SAT_EQ("EValue.val", v.pos, pte_et_EValue_val_at(b, ev.pos));
  if (!v.pos) return;
  switch (tag) {
    case pte_et_KernelTypes_Tensor: sat_tensor(file, b, v); break;
    case pte_et_KernelTypes_Int: SAT_EQ("Int.int_val", pte_et_Int_int_val(v), pte_et_Int_int_val_at(b, v.pos)); break;
    case pte_et_KernelTypes_Bool: SAT_EQ("Bool.bool_val", pte_et_Bool_bool_val(v), pte_et_Bool_bool_val_at(b, v.pos)); break;
    case pte_et_KernelTypes_String:
      SAT_EQ("String.string_val", pte_et_String_string_val_present(v), pte_et_String_string_val_present_at(b, v.pos));
      break;
    case pte_et_KernelTypes_IntList: SAT_VEC("IntList.items", pte_et_IntList_items(v), pte_et_IntList_items_at(b, v.pos)); break;
    case pte_et_KernelTypes_DoubleList:
      SAT_VEC("DoubleList.items", pte_et_DoubleList_items(v), pte_et_DoubleList_items_at(b, v.pos));
      break;
    case pte_et_KernelTypes_BoolList: SAT_VEC("BoolList.items", pte_et_BoolList_items(v), pte_et_BoolList_items_at(b, v.pos)); break;
    case pte_et_KernelTypes_TensorList:
      SAT_VEC("TensorList.items", pte_et_TensorList_items(v), pte_et_TensorList_items_at(b, v.pos));
      break;
    case pte_et_KernelTypes_OptionalTensorList:
      SAT_VEC("OptionalTensorList.items", pte_et_OptionalTensorList_items(v), pte_et_OptionalTensorList_items_at(b, v.pos));
      break;
    default: break;
  }
}

static void sat_instruction(const char *file, const uint8_t *b, pte_fb_table in) {
  uint8_t tag = pte_et_Instruction_instr_args_type(in);
  SAT_EQ("Instruction.instr_args_type", tag, pte_et_Instruction_instr_args_type_at(b, in.pos));
  pte_fb_table a = pte_et_Instruction_instr_args(in);
  SAT_EQ("Instruction.instr_args", a.pos, pte_et_Instruction_instr_args_at(b, in.pos));
  if (!a.pos) return;
  uint32_t p = a.pos;
  switch (tag) {
    case pte_et_InstructionArguments_KernelCall:
      SAT_EQ("KernelCall.op_index", pte_et_KernelCall_op_index(a), pte_et_KernelCall_op_index_at(b, p));
      SAT_VEC("KernelCall.args", pte_et_KernelCall_args(a), pte_et_KernelCall_args_at(b, p));
      break;
    case pte_et_InstructionArguments_DelegateCall:
      SAT_EQ("DelegateCall.delegate_index", pte_et_DelegateCall_delegate_index(a), pte_et_DelegateCall_delegate_index_at(b, p));
      SAT_VEC("DelegateCall.args", pte_et_DelegateCall_args(a), pte_et_DelegateCall_args_at(b, p));
      break;
    case pte_et_InstructionArguments_MoveCall:
      SAT_EQ("MoveCall.move_from", pte_et_MoveCall_move_from(a), pte_et_MoveCall_move_from_at(b, p));
      SAT_EQ("MoveCall.move_to", pte_et_MoveCall_move_to(a), pte_et_MoveCall_move_to_at(b, p));
      break;
    case pte_et_InstructionArguments_JumpFalseCall:
      SAT_EQ("JumpFalseCall.cond_value_index", pte_et_JumpFalseCall_cond_value_index(a),
             pte_et_JumpFalseCall_cond_value_index_at(b, p));
      SAT_EQ("JumpFalseCall.destination_instruction", pte_et_JumpFalseCall_destination_instruction(a),
             pte_et_JumpFalseCall_destination_instruction_at(b, p));
      break;
    case pte_et_InstructionArguments_FreeCall:
      SAT_EQ("FreeCall.value_index", pte_et_FreeCall_value_index(a), pte_et_FreeCall_value_index_at(b, p));
      break;
    default: break;
  }
}

static void sat_plan(const char *file, const uint8_t *b, pte_fb_table pl) {
  uint32_t p = pl.pos;
  SAT_EQ("ExecutionPlan.name present", pte_et_ExecutionPlan_name_present(pl), pte_et_ExecutionPlan_name_present_at(b, p));
  SAT_VEC("ExecutionPlan.inputs", pte_et_ExecutionPlan_inputs(pl), pte_et_ExecutionPlan_inputs_at(b, p));
  SAT_VEC("ExecutionPlan.outputs", pte_et_ExecutionPlan_outputs(pl), pte_et_ExecutionPlan_outputs_at(b, p));
  SAT_VEC("ExecutionPlan.non_const_buffer_sizes", pte_et_ExecutionPlan_non_const_buffer_sizes(pl),
          pte_et_ExecutionPlan_non_const_buffer_sizes_at(b, p));
  pte_fb_vec values = pte_et_ExecutionPlan_values(pl);
  SAT_VEC("ExecutionPlan.values", values, pte_et_ExecutionPlan_values_at(b, p));
  for (uint32_t i = 0; i < values.len; i++) {
    pte_fb_table ev = pte_fb_vec_table(values, i);
    SAT_EQ("values[i]", ev.pos, pte_fb_raw_vec_ref(b, pte_et_ExecutionPlan_values_at(b, p), i));
    sat_value(file, b, ev);
  }
  pte_fb_vec chains = pte_et_ExecutionPlan_chains(pl);
  SAT_VEC("ExecutionPlan.chains", chains, pte_et_ExecutionPlan_chains_at(b, p));
  for (uint32_t c = 0; c < chains.len; c++) {
    pte_fb_table ch = pte_fb_vec_table(chains, c);
    pte_fb_vec ins = pte_et_Chain_instructions(ch);
    SAT_VEC("Chain.instructions", ins, pte_et_Chain_instructions_at(b, ch.pos));
    for (uint32_t k = 0; k < ins.len; k++) sat_instruction(file, b, pte_fb_vec_table(ins, k));
  }
  pte_fb_vec ops = pte_et_ExecutionPlan_operators(pl);
  SAT_VEC("ExecutionPlan.operators", ops, pte_et_ExecutionPlan_operators_at(b, p));
  for (uint32_t k = 0; k < ops.len; k++) {
    pte_fb_table op = pte_fb_vec_table(ops, k);
    SAT_EQ("Operator.name", pte_et_Operator_name_present(op), pte_et_Operator_name_present_at(b, op.pos));
    SAT_EQ("Operator.overload", pte_et_Operator_overload_present(op), pte_et_Operator_overload_present_at(b, op.pos));
  }
  pte_fb_vec dels = pte_et_ExecutionPlan_delegates(pl);
  SAT_VEC("ExecutionPlan.delegates", dels, pte_et_ExecutionPlan_delegates_at(b, p));
  for (uint32_t k = 0; k < dels.len; k++) {
    pte_fb_table d = pte_fb_vec_table(dels, k);
    SAT_EQ("BackendDelegate.id", pte_et_BackendDelegate_id_present(d), pte_et_BackendDelegate_id_present_at(b, d.pos));
    SAT_VEC("BackendDelegate.compile_specs", pte_et_BackendDelegate_compile_specs(d),
            pte_et_BackendDelegate_compile_specs_at(b, d.pos));
    pte_fb_table r = pte_et_BackendDelegate_processed(d);
    SAT_EQ("BackendDelegate.processed", r.pos, pte_et_BackendDelegate_processed_at(b, d.pos));
    if (r.pos) {
      SAT_EQ("BackendDelegateDataReference.location", pte_et_BackendDelegateDataReference_location(r),
             pte_et_BackendDelegateDataReference_location_at(b, r.pos));
      SAT_EQ("BackendDelegateDataReference.index", pte_et_BackendDelegateDataReference_index(r),
             pte_et_BackendDelegateDataReference_index_at(b, r.pos));
    }
  }
}

static void sat_program(const char *file, const uint8_t *b, size_t size) {
  pte_fb_table rt = pte_et_root(b, size);
  uint32_t r = rt.pos;
  SAT_EQ("Program.version", pte_et_Program_version(rt), pte_et_Program_version_at(b, r));
  SAT_VEC("Program.constant_buffer", pte_et_Program_constant_buffer(rt), pte_et_Program_constant_buffer_at(b, r));
  SAT_VEC("Program.backend_delegate_data", pte_et_Program_backend_delegate_data(rt),
          pte_et_Program_backend_delegate_data_at(b, r));
  pte_fb_vec segs = pte_et_Program_segments(rt);
  SAT_VEC("Program.segments", segs, pte_et_Program_segments_at(b, r));
  for (uint32_t i = 0; i < segs.len; i++) {
    pte_fb_table s = pte_fb_vec_table(segs, i);
    SAT_EQ("DataSegment.offset", pte_et_DataSegment_offset(s), pte_et_DataSegment_offset_at(b, s.pos));
    SAT_EQ("DataSegment.size", pte_et_DataSegment_size(s), pte_et_DataSegment_size_at(b, s.pos));
  }
  pte_fb_table cs = pte_et_Program_constant_segment(rt);
  SAT_EQ("Program.constant_segment", cs.pos, pte_et_Program_constant_segment_at(b, r));
  if (cs.pos) {
    SAT_EQ("SubsegmentOffsets.segment_index", pte_et_SubsegmentOffsets_segment_index(cs),
           pte_et_SubsegmentOffsets_segment_index_at(b, cs.pos));
    SAT_VEC("SubsegmentOffsets.offsets", pte_et_SubsegmentOffsets_offsets(cs), pte_et_SubsegmentOffsets_offsets_at(b, cs.pos));
  }
  SAT_VEC("Program.mutable_data_segments", pte_et_Program_mutable_data_segments(rt),
          pte_et_Program_mutable_data_segments_at(b, r));
  pte_fb_vec named = pte_et_Program_named_data(rt);
  SAT_VEC("Program.named_data", named, pte_et_Program_named_data_at(b, r));
  for (uint32_t i = 0; i < named.len; i++) {
    pte_fb_table nd = pte_fb_vec_table(named, i);
    SAT_EQ("NamedData.key", pte_et_NamedData_key_present(nd), pte_et_NamedData_key_present_at(b, nd.pos));
    SAT_EQ("NamedData.segment_index", pte_et_NamedData_segment_index(nd), pte_et_NamedData_segment_index_at(b, nd.pos));
  }
  pte_fb_vec plans = pte_et_Program_execution_plan(rt);
  SAT_VEC("Program.execution_plan", plans, pte_et_Program_execution_plan_at(b, r));
  for (uint32_t i = 0; i < plans.len; i++) sat_plan(file, b, pte_fb_vec_table(plans, i));
}

TEST(unchecked_accessors_match_checked_on_corpus) {
  const char *dir = getenv("PTE_CORPUS");
  CHECK_MSG(dir != NULL, "PTE_CORPUS not set");
  if (!dir) return;
  DIR *d = opendir(dir);
  CHECK_MSG(d != NULL, "cannot open corpus directory %s", dir);
  if (!d) return;
  char *names[256];
  int nn = 0, files = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL && nn < 256) {
    size_t l = strlen(e->d_name);
    if (l > 4 && strcmp(e->d_name + l - 4, ".pte") == 0) names[nn++] = strdup(e->d_name);
  }
  closedir(d);
  for (int i = 0; i < nn; i++) {
    size_t size = 0;
    uint8_t *buf = test_read_corpus(names[i], &size);
    if (buf) {
      pte_error_info err;
      pte_status s = pte_et_verify_root(buf, size, &err);
      CHECK_MSG(s == PTE_OK, "%s does not verify: %s", names[i], err.msg);
      if (s == PTE_OK) {
        sat_program(names[i], buf, size);
        files++;
        /* and program.c's semantic validation, which reads through the _at accessors, accepts it */
        pte_buffer_loader bl;
        pte_buffer_loader_init(&bl, buf, size);
        pte_program prog;
        s = pte_program_load(&bl.base, PTE_VERIFY_INTERNAL_CONSISTENCY, &prog, &err);
        CHECK_MSG(s == PTE_OK, "%s: full verification failed: %s", names[i], err.msg);
        if (s == PTE_OK) pte_program_destroy(&prog);
      }
      free(buf);
    }
    free(names[i]);
  }
  printf("  %d corpus programs, %zu field reads compared\n", files, n_checked);
  CHECK_MSG(files >= 30, "only %d corpus .pte files verified (the corpus has more than 30)", files);
  CHECK_EQ_INT(sat_fails, 0);
}

/* The default of an absent scalar: a table with an empty vtable reads every field as its schema
 * default through both forms (hand-assembled bytes: vtable {4, 4}, table soffset 4). */
TEST(absent_fields_read_defaults) {
  const char *file = "hand-made table";
  sat_fails = 0;
  _Alignas(8) uint8_t b[64] = {0}; /* room past the vtable: the compiler cannot see the vtable-size test */
  b[4] = 4; /* vtable at 4: vtable size 4 (no field slots), table inline size 4 */
  b[6] = 4;
  b[8] = 4; /* table at 8: soffset 4 -> vtable at 8 - 4 = 4 */
  uint32_t t = 8;
  pte_fb_table tt = pte_fb_table_at(b, sizeof b, t);
  CHECK(pte_fb_table_present(tt));
  SAT_EQ("Tensor.scalar_type", pte_et_Tensor_scalar_type(tt), pte_et_Tensor_scalar_type_at(b, t));
  CHECK_EQ_INT(pte_et_Tensor_scalar_type_at(b, t), 0);
  CHECK_EQ_INT(pte_et_Tensor_sizes_at(b, t).data, 0);
  CHECK_EQ_INT(pte_et_Tensor_allocation_info_at(b, t), 0);
  CHECK_EQ_INT(pte_et_Tensor_sizes_present_at(b, t), 0);
  CHECK_EQ_INT(pte_et_Bool_bool_val_at(b, t), 0);
  CHECK_EQ_INT(pte_et_Int_int_val_at(b, t), 0);
  CHECK_EQ_INT(sat_fails, 0);
}

int main(void) {
  RUN(unchecked_accessors_match_checked_on_corpus);
  RUN(absent_fields_read_defaults);
  return test_summary();
}
