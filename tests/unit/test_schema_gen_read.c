/* test_schema_gen_read.c — the code tools/fbsgen generates, read side (test_schema_gen_util.h):
 *  - buffers made by flatc (env PTE_FLATC) from hand-written JSON read back through the generated
 *    accessors;
 *  - every generated slot index / field name / kind matches flatc's own view of the schema
 *    (flatc --jsonschema lists fields in slot order);
 *  - the verifier rejects broken buffers; number formatting is shortest round-trip; the JSON sink
 *    and parser.
 * Corpus and builder output against flatc: test_schema_gen.c.
 */
#define _POSIX_C_SOURCE 200809L
#include "test_schema_gen_util.h"

/* ------------------------------------------------------------------ (c) flatc -b -> accessors */

/* Every program.fbs table, every field at a non-default value distinct from its neighbours. */
static const char k_hand_program_json[] =
    "{\"version\": 3,\n"
    " \"execution_plan\": [{\n"
    "  \"name\": \"m\",\n"
    "  \"container_meta_type\": {\"encoded_inp_str\": \"I\", \"encoded_out_str\": \"O\"},\n"
    "  \"values\": [\n"
    "   {\"val_type\": \"Tensor\", \"val\": {\"scalar_type\": \"QINT32\", \"storage_offset\": -7, \"sizes\": [5, 6, 7],\n"
    "     \"dim_order\": [2, 0, 1], \"requires_grad\": true, \"data_buffer_idx\": 9,\n"
    "     \"allocation_info\": {\"memory_id\": 11, \"memory_offset_low\": 4294967295, \"memory_offset_high\": 13},\n"
    "     \"layout\": -14, \"shape_dynamism\": \"DYNAMIC_UNBOUND\",\n"
    "     \"extra_tensor_info\": {\"mutable_data_segments_idx\": 18446744073709551615, \"fully_qualified_name\": \"a.b\",\n"
    "       \"location\": \"EXTERNAL\", \"device_type\": \"CUDA\", \"device_index\": -3}}},\n"
    "   {\"val_type\": \"Int\", \"val\": {\"int_val\": -9223372036854775808}},\n"
    "   {\"val_type\": \"Bool\", \"val\": {\"bool_val\": true}},\n"
    "   {\"val_type\": \"Double\", \"val\": {\"double_val\": -2.5e-3}},\n"
    "   {\"val_type\": \"String\", \"val\": {\"string_val\": \"s\\u00e9\"}},\n"
    "   {\"val_type\": \"IntList\", \"val\": {\"items\": [9223372036854775807, -1]}},\n"
    "   {\"val_type\": \"DoubleList\", \"val\": {\"items\": [0.5, 1e300]}},\n"
    "   {\"val_type\": \"BoolList\", \"val\": {\"items\": [false, true]}},\n"
    "   {\"val_type\": \"TensorList\", \"val\": {\"items\": [0, 0]}},\n"
    "   {\"val_type\": \"OptionalTensorList\", \"val\": {\"items\": [-1, 0]}},\n"
    "   {\"val_type\": \"Null\", \"val\": {}}],\n"
    "  \"inputs\": [0], \"outputs\": [1, 2],\n"
    "  \"chains\": [{\"inputs\": [3], \"outputs\": [4], \"instructions\": [\n"
    "    {\"instr_args_type\": \"KernelCall\", \"instr_args\": {\"op_index\": 21, \"args\": [1, 2]}},\n"
    "    {\"instr_args_type\": \"DelegateCall\", \"instr_args\": {\"delegate_index\": 22, \"args\": [3]}},\n"
    "    {\"instr_args_type\": \"MoveCall\", \"instr_args\": {\"move_from\": 23, \"move_to\": 24}},\n"
    "    {\"instr_args_type\": \"JumpFalseCall\", \"instr_args\": {\"cond_value_index\": 25, \"destination_instruction\": 26}},\n"
    "    {\"instr_args_type\": \"FreeCall\", \"instr_args\": {\"value_index\": 27}}],\n"
    "   \"stacktrace\": [{\"items\": [{\"filename\": \"f.py\", \"lineno\": 28, \"name\": \"g\", \"context\": \"c\"}]}]}],\n"
    "  \"operators\": [{\"name\": \"aten::mul\", \"overload\": \"Scalar_out\"}],\n"
    "  \"delegates\": [{\"id\": \"B\", \"processed\": {\"location\": \"SEGMENT\", \"index\": 29},\n"
    "    \"compile_specs\": [{\"key\": \"k\", \"value\": [30, 31]}]}],\n"
    "  \"non_const_buffer_sizes\": [0, 1099511627776],\n"
    "  \"non_const_buffer_device\": [{\"buffer_idx\": 32, \"device_type\": \"CUDA\", \"device_index\": 33}]}],\n"
    " \"constant_buffer\": [{\"storage\": [34]}],\n"
    " \"backend_delegate_data\": [{\"data\": [35, 36]}],\n"
    " \"segments\": [{\"offset\": 37, \"size\": 38}],\n"
    " \"constant_segment\": {\"segment_index\": 39, \"offsets\": [40, 41]},\n"
    " \"mutable_data_segments\": [{\"segment_index\": 42, \"offsets\": [43]}],\n"
    " \"named_data\": [{\"key\": \"nd\", \"segment_index\": 44}]}\n";

TEST(flatc_binary_reads_back_program) {
  CHECK_MSG(flatc() != NULL, "PTE_FLATC not set (flatc is needed)");
  size_t size;
  uint8_t *buf = flatc_encode("program.fbs", k_hand_program_json, "hand_program", &size);
  CHECK(buf);
  pte_error_info err = {0};
  pte_status s = pte_et_verify_root(buf, size, &err);
  if (s != PTE_OK) free(buf);
  CHECK_MSG(s == PTE_OK, "verify: %s", err.msg);
  pte_fb_table p = pte_et_root(buf, size);
  CHECK_EQ_INT(pte_et_Program_version(p), 3);
  pte_fb_table plan = pte_fb_vec_table(pte_et_Program_execution_plan(p), 0);
  CHECK(str_is(pte_et_ExecutionPlan_name(plan), "m"));
  pte_fb_table meta = pte_et_ExecutionPlan_container_meta_type(plan);
  CHECK(str_is(pte_et_ContainerMetadata_encoded_inp_str(meta), "I"));
  CHECK(str_is(pte_et_ContainerMetadata_encoded_out_str(meta), "O"));
  pte_fb_vec vals = pte_et_ExecutionPlan_values(plan);
  CHECK_EQ_INT(vals.len, 11);
  pte_fb_table t = pte_et_EValue_val(pte_fb_vec_table(vals, 0));
  CHECK_EQ_INT(pte_et_Tensor_scalar_type(t), pte_st_ScalarType_QINT32);
  CHECK_EQ_INT(pte_et_Tensor_storage_offset(t), -7);
  CHECK_EQ_INT(pte_et_Tensor_sizes(t).len, 3);
  CHECK_EQ_INT(pte_fb_vec_i32(pte_et_Tensor_sizes(t), 2), 7);
  CHECK_EQ_INT(pte_fb_vec_u8(pte_et_Tensor_dim_order(t), 0), 2);
  CHECK(pte_et_Tensor_requires_grad(t));
  CHECK_EQ_INT(pte_et_Tensor_data_buffer_idx(t), 9);
  pte_fb_table al = pte_et_Tensor_allocation_info(t);
  CHECK_EQ_INT(pte_et_AllocationDetails_memory_id(al), 11);
  CHECK_EQ_INT(pte_et_AllocationDetails_memory_offset_low(al), 4294967295u);
  CHECK_EQ_INT(pte_et_AllocationDetails_memory_offset_high(al), 13);
  CHECK_EQ_INT(pte_et_Tensor_layout(t), -14);
  CHECK_EQ_INT(pte_et_Tensor_shape_dynamism(t), pte_et_TensorShapeDynamism_DYNAMIC_UNBOUND);
  pte_fb_table ex = pte_et_Tensor_extra_tensor_info(t);
  CHECK(pte_et_ExtraTensorInfo_mutable_data_segments_idx(ex) == UINT64_MAX);
  CHECK(str_is(pte_et_ExtraTensorInfo_fully_qualified_name(ex), "a.b"));
  CHECK_EQ_INT(pte_et_ExtraTensorInfo_location(ex), pte_et_TensorDataLocation_EXTERNAL);
  CHECK_EQ_INT(pte_et_ExtraTensorInfo_device_type(ex), pte_et_DeviceType_CUDA);
  CHECK_EQ_INT(pte_et_ExtraTensorInfo_device_index(ex), -3);
  CHECK(pte_et_Int_int_val(pte_et_EValue_val(pte_fb_vec_table(vals, 1))) == INT64_MIN);
  CHECK(pte_et_Bool_bool_val(pte_et_EValue_val(pte_fb_vec_table(vals, 2))));
  CHECK(pte_et_Double_double_val(pte_et_EValue_val(pte_fb_vec_table(vals, 3))) == -2.5e-3);
  CHECK(str_is(pte_et_String_string_val(pte_et_EValue_val(pte_fb_vec_table(vals, 4))), "s\xc3\xa9"));
  pte_fb_vec il = pte_et_IntList_items(pte_et_EValue_val(pte_fb_vec_table(vals, 5)));
  CHECK(pte_fb_vec_i64(il, 0) == INT64_MAX && pte_fb_vec_i64(il, 1) == -1);
  pte_fb_vec dl = pte_et_DoubleList_items(pte_et_EValue_val(pte_fb_vec_table(vals, 6)));
  CHECK(pte_fb_vec_f64(dl, 0) == 0.5 && pte_fb_vec_f64(dl, 1) == 1e300);
  pte_fb_vec bl = pte_et_BoolList_items(pte_et_EValue_val(pte_fb_vec_table(vals, 7)));
  CHECK(bl.len == 2 && pte_fb_vec_u8(bl, 0) == 0 && pte_fb_vec_u8(bl, 1) == 1);
  CHECK_EQ_INT(pte_et_TensorList_items(pte_et_EValue_val(pte_fb_vec_table(vals, 8))).len, 2);
  CHECK_EQ_INT(pte_fb_vec_i32(pte_et_OptionalTensorList_items(pte_et_EValue_val(pte_fb_vec_table(vals, 9))), 0), -1);
  CHECK_EQ_INT(pte_et_EValue_val_type(pte_fb_vec_table(vals, 10)), pte_et_KernelTypes_Null);
  CHECK(pte_fb_table_present(pte_et_EValue_val(pte_fb_vec_table(vals, 10))));
  static const uint8_t tags[11] = {pte_et_KernelTypes_Tensor,     pte_et_KernelTypes_Int,        pte_et_KernelTypes_Bool,
                                   pte_et_KernelTypes_Double,     pte_et_KernelTypes_String,     pte_et_KernelTypes_IntList,
                                   pte_et_KernelTypes_DoubleList, pte_et_KernelTypes_BoolList,   pte_et_KernelTypes_TensorList,
                                   pte_et_KernelTypes_OptionalTensorList, pte_et_KernelTypes_Null};
  for (uint32_t i = 0; i < vals.len; i++) CHECK_EQ_INT(pte_et_EValue_val_type(pte_fb_vec_table(vals, i)), tags[i]);
  CHECK_EQ_INT(pte_fb_vec_i32(pte_et_ExecutionPlan_inputs(plan), 0), 0);
  CHECK_EQ_INT(pte_fb_vec_i32(pte_et_ExecutionPlan_outputs(plan), 1), 2);
  pte_fb_table ch = pte_fb_vec_table(pte_et_ExecutionPlan_chains(plan), 0);
  CHECK_EQ_INT(pte_fb_vec_i32(pte_et_Chain_inputs(ch), 0), 3);
  CHECK_EQ_INT(pte_fb_vec_i32(pte_et_Chain_outputs(ch), 0), 4);
  pte_fb_vec ins = pte_et_Chain_instructions(ch);
  CHECK_EQ_INT(ins.len, 5);
  pte_fb_table kc = pte_et_Instruction_instr_args(pte_fb_vec_table(ins, 0));
  CHECK_EQ_INT(pte_et_KernelCall_op_index(kc), 21);
  CHECK_EQ_INT(pte_fb_vec_i32(pte_et_KernelCall_args(kc), 1), 2);
  pte_fb_table dc = pte_et_Instruction_instr_args(pte_fb_vec_table(ins, 1));
  CHECK_EQ_INT(pte_et_Instruction_instr_args_type(pte_fb_vec_table(ins, 1)), pte_et_InstructionArguments_DelegateCall);
  CHECK_EQ_INT(pte_et_DelegateCall_delegate_index(dc), 22);
  CHECK_EQ_INT(pte_fb_vec_i32(pte_et_DelegateCall_args(dc), 0), 3);
  pte_fb_table mc = pte_et_Instruction_instr_args(pte_fb_vec_table(ins, 2));
  CHECK_EQ_INT(pte_et_MoveCall_move_from(mc), 23);
  CHECK_EQ_INT(pte_et_MoveCall_move_to(mc), 24);
  pte_fb_table jf = pte_et_Instruction_instr_args(pte_fb_vec_table(ins, 3));
  CHECK_EQ_INT(pte_et_JumpFalseCall_cond_value_index(jf), 25);
  CHECK_EQ_INT(pte_et_JumpFalseCall_destination_instruction(jf), 26);
  pte_fb_table fc = pte_et_Instruction_instr_args(pte_fb_vec_table(ins, 4));
  CHECK_EQ_INT(pte_et_Instruction_instr_args_type(pte_fb_vec_table(ins, 4)), pte_et_InstructionArguments_FreeCall);
  CHECK_EQ_INT(pte_et_FreeCall_value_index(fc), 27);
  pte_fb_table fl = pte_fb_vec_table(pte_et_Chain_stacktrace(ch), 0);
  pte_fb_table fr = pte_fb_vec_table(pte_et_FrameList_items(fl), 0);
  CHECK(str_is(pte_et_Frame_filename(fr), "f.py"));
  CHECK_EQ_INT(pte_et_Frame_lineno(fr), 28);
  CHECK(str_is(pte_et_Frame_name(fr), "g"));
  CHECK(str_is(pte_et_Frame_context(fr), "c"));
  pte_fb_table op = pte_fb_vec_table(pte_et_ExecutionPlan_operators(plan), 0);
  CHECK(str_is(pte_et_Operator_name(op), "aten::mul"));
  CHECK(str_is(pte_et_Operator_overload(op), "Scalar_out"));
  pte_fb_table del = pte_fb_vec_table(pte_et_ExecutionPlan_delegates(plan), 0);
  CHECK(str_is(pte_et_BackendDelegate_id(del), "B"));
  pte_fb_table pr = pte_et_BackendDelegate_processed(del);
  CHECK_EQ_INT(pte_et_BackendDelegateDataReference_location(pr), pte_et_DataLocation_SEGMENT);
  CHECK_EQ_INT(pte_et_BackendDelegateDataReference_index(pr), 29);
  pte_fb_table cs = pte_fb_vec_table(pte_et_BackendDelegate_compile_specs(del), 0);
  CHECK(str_is(pte_et_CompileSpec_key(cs), "k"));
  CHECK_EQ_INT(pte_fb_vec_u8(pte_et_CompileSpec_value(cs), 1), 31);
  CHECK(pte_fb_vec_i64(pte_et_ExecutionPlan_non_const_buffer_sizes(plan), 1) == 1099511627776LL);
  pte_fb_table ncd = pte_fb_vec_table(pte_et_ExecutionPlan_non_const_buffer_device(plan), 0);
  CHECK_EQ_INT(pte_et_NonConstBufferDevice_buffer_idx(ncd), 32);
  CHECK_EQ_INT(pte_et_NonConstBufferDevice_device_type(ncd), pte_et_DeviceType_CUDA);
  CHECK_EQ_INT(pte_et_NonConstBufferDevice_device_index(ncd), 33);
  pte_fb_vec stor = pte_et_Buffer_storage(pte_fb_vec_table(pte_et_Program_constant_buffer(p), 0));
  CHECK_EQ_INT(pte_fb_vec_u8(stor, 0), 34);
  CHECK_EQ_INT(stor.data % 16, 0); /* flatc honours force_align too */
  pte_fb_vec bdd = pte_et_BackendDelegateInlineData_data(pte_fb_vec_table(pte_et_Program_backend_delegate_data(p), 0));
  CHECK_EQ_INT(pte_fb_vec_u8(bdd, 1), 36);
  CHECK_EQ_INT(bdd.data % 16, 0);
  pte_fb_table seg = pte_fb_vec_table(pte_et_Program_segments(p), 0);
  CHECK_EQ_INT(pte_et_DataSegment_offset(seg), 37);
  CHECK_EQ_INT(pte_et_DataSegment_size(seg), 38);
  pte_fb_table cseg = pte_et_Program_constant_segment(p);
  CHECK_EQ_INT(pte_et_SubsegmentOffsets_segment_index(cseg), 39);
  CHECK_EQ_INT(pte_fb_vec_u64(pte_et_SubsegmentOffsets_offsets(cseg), 1), 41);
  pte_fb_table mseg = pte_fb_vec_table(pte_et_Program_mutable_data_segments(p), 0);
  CHECK_EQ_INT(pte_et_SubsegmentOffsets_segment_index(mseg), 42);
  CHECK_EQ_INT(pte_fb_vec_u64(pte_et_SubsegmentOffsets_offsets(mseg), 0), 43);
  pte_fb_table nd = pte_fb_vec_table(pte_et_Program_named_data(p), 0);
  CHECK(str_is(pte_et_NamedData_key(nd), "nd"));
  CHECK_EQ_INT(pte_et_NamedData_segment_index(nd), 44);

  /* and the whole tree through our emitter equals the JSON we wrote */
  char *ours = our_json(pte_et_Program_to_json, buf, size, PTE_FB_JSON_OMIT_DEFAULTS, false);
  char diff[1024];
  bool ok = json_texts_equal(k_hand_program_json, ours, diff, sizeof diff);
  free(ours);
  free(buf);
  CHECK_MSG(ok, "hand JSON vs ours: %s", diff);
}

TEST(flatc_binary_reads_back_defaults) {
  /* Absent fields read as the schema defaults; a union without a value reads as NONE. */
  CHECK_MSG(flatc() != NULL, "PTE_FLATC not set (flatc is needed)");
  size_t size;
  uint8_t *buf = flatc_encode("program.fbs",
                              "{\"execution_plan\":[{\"values\":[{\"val_type\":\"Tensor\",\"val\":{}},{}]}]}",
                              "hand_defaults", &size);
  CHECK(buf);
  CHECK_OK(pte_et_verify_root(buf, size, NULL));
  pte_fb_table p = pte_et_root(buf, size);
  CHECK(!pte_fb_table_present(pte_et_Program_constant_segment(p)));
  CHECK(!pte_et_Program_segments(p).present);
  pte_fb_vec vals = pte_et_ExecutionPlan_values(pte_fb_vec_table(pte_et_Program_execution_plan(p), 0));
  pte_fb_table t = pte_et_EValue_val(pte_fb_vec_table(vals, 0));
  CHECK(pte_fb_table_present(t));
  CHECK_EQ_INT(pte_et_Tensor_scalar_type(t), pte_st_ScalarType_BYTE);
  CHECK_EQ_INT(pte_et_Tensor_shape_dynamism(t), pte_et_TensorShapeDynamism_STATIC);
  CHECK(!pte_et_Tensor_sizes(t).present);
  CHECK(!pte_fb_table_present(pte_et_Tensor_extra_tensor_info(t)));
  CHECK(!pte_et_Tensor_requires_grad(t));
  CHECK_EQ_INT(pte_et_EValue_val_type(pte_fb_vec_table(vals, 1)), pte_et_KernelTypes_NONE);
  CHECK(!pte_fb_table_present(pte_et_EValue_val(pte_fb_vec_table(vals, 1))));
  char *ours = our_json(pte_et_Program_to_json, buf, size, 0, false);
  char *theirs = flatc_decode("program.fbs", buf, size, "hand_defaults_out", true);
  free(buf);
  char diff[1024];
  bool ok = theirs && json_texts_equal(ours, theirs, diff, sizeof diff);
  free(ours);
  free(theirs);
  CHECK_MSG(ok, "ours vs flatc: %s", diff);
}

TEST(flatc_binary_reads_back_flat_tensor_and_bundled) {
  CHECK_MSG(flatc() != NULL, "PTE_FLATC not set (flatc is needed)");
  static const char ft_json[] =
      "{\"version\": 5, \"segments\": [{\"offset\": 6, \"size\": 7}, {\"offset\": 8, \"size\": 9}],"
      " \"named_data\": [{\"key\": \"x\", \"segment_index\": 10, \"tensor_layout\":"
      "   {\"scalar_type\": \"UINT64\", \"sizes\": [11, 12], \"dim_order\": [1, 0]}}]}";
  size_t size;
  uint8_t *buf = flatc_encode("flat_tensor.fbs", ft_json, "hand_ft", &size);
  CHECK(buf);
  CHECK_OK(pte_ft_verify_root(buf, size, NULL));
  pte_fb_table ft = pte_ft_root(buf, size);
  CHECK_EQ_INT(pte_ft_FlatTensor_version(ft), 5);
  pte_fb_table s1 = pte_fb_vec_table(pte_ft_FlatTensor_segments(ft), 1);
  CHECK_EQ_INT(pte_ft_DataSegment_offset(s1), 8);
  CHECK_EQ_INT(pte_ft_DataSegment_size(s1), 9);
  pte_fb_table nd = pte_fb_vec_table(pte_ft_FlatTensor_named_data(ft), 0);
  CHECK(str_is(pte_ft_NamedData_key(nd), "x"));
  CHECK_EQ_INT(pte_ft_NamedData_segment_index(nd), 10);
  pte_fb_table lay = pte_ft_NamedData_tensor_layout(nd);
  CHECK_EQ_INT(pte_ft_TensorLayout_scalar_type(lay), pte_st_ScalarType_UINT64);
  CHECK_EQ_INT(pte_fb_vec_i32(pte_ft_TensorLayout_sizes(lay), 1), 12);
  CHECK_EQ_INT(pte_fb_vec_u8(pte_ft_TensorLayout_dim_order(lay), 0), 1);
  char *ours = our_json(pte_ft_FlatTensor_to_json, buf, size, PTE_FB_JSON_OMIT_DEFAULTS, false);
  char diff[1024];
  bool ok = json_texts_equal(ft_json, ours, diff, sizeof diff);
  free(ours);
  free(buf);
  CHECK_MSG(ok, "flat tensor: %s", diff);

  static const char bp_json[] =
      "{\"version\": 13, \"method_test_suites\": [{\"method_name\": \"fwd\", \"test_cases\": [{"
      "  \"inputs\": [{\"val_type\": \"Int\", \"val\": {\"int_val\": -14}},"
      "             {\"val_type\": \"Bool\", \"val\": {\"bool_val\": true}},"
      "             {\"val_type\": \"Tensor\", \"val\": {\"scalar_type\": \"LONG\", \"sizes\": [1], \"data\": [15, 0, 0, 0, 0, 0, 0, 0], \"dim_order\": [0]}}],"
      "  \"expected_outputs\": [{\"val_type\": \"Double\", \"val\": {\"double_val\": 16.25}}]}]}],"
      " \"program\": [17, 18, 19]}";
  buf = flatc_encode("bundled_program.fbs", bp_json, "hand_bp", &size);
  CHECK(buf);
  CHECK_OK(pte_bp_verify_root(buf, size, NULL));
  pte_fb_table bp = pte_bp_root(buf, size);
  CHECK_EQ_INT(pte_bp_BundledProgram_version(bp), 13);
  pte_fb_vec prog = pte_bp_BundledProgram_program(bp);
  CHECK_EQ_INT(prog.len, 3);
  CHECK_EQ_INT(pte_fb_vec_u8(prog, 2), 19);
  CHECK_EQ_INT(prog.data % 32, 0);
  pte_fb_table suite = pte_fb_vec_table(pte_bp_BundledProgram_method_test_suites(bp), 0);
  CHECK(str_is(pte_bp_BundledMethodTestSuite_method_name(suite), "fwd"));
  pte_fb_table tc = pte_fb_vec_table(pte_bp_BundledMethodTestSuite_test_cases(suite), 0);
  pte_fb_vec ins = pte_bp_BundledMethodTestCase_inputs(tc);
  CHECK_EQ_INT(pte_bp_Value_val_type(pte_fb_vec_table(ins, 0)), pte_bp_ValueUnion_Int);
  CHECK_EQ_INT(pte_bp_Int_int_val(pte_bp_Value_val(pte_fb_vec_table(ins, 0))), -14);
  CHECK_EQ_INT(pte_bp_Value_val_type(pte_fb_vec_table(ins, 1)), pte_bp_ValueUnion_Bool);
  CHECK(pte_bp_Bool_bool_val(pte_bp_Value_val(pte_fb_vec_table(ins, 1))));
  pte_fb_table t = pte_bp_Value_val(pte_fb_vec_table(ins, 2));
  CHECK_EQ_INT(pte_bp_Tensor_scalar_type(t), pte_st_ScalarType_LONG);
  CHECK_EQ_INT(pte_fb_vec_i64(pte_bp_Tensor_data(t), 0), 15); /* 8 bytes read as one i64 */
  CHECK_EQ_INT(pte_bp_Tensor_data(t).data % 16, 0);
  CHECK_EQ_INT(pte_fb_vec_u8(pte_bp_Tensor_dim_order(t), 0), 0);
  pte_fb_table o = pte_fb_vec_table(pte_bp_BundledMethodTestCase_expected_outputs(tc), 0);
  CHECK_EQ_INT(pte_bp_Value_val_type(o), pte_bp_ValueUnion_Double);
  CHECK(pte_bp_Double_double_val(pte_bp_Value_val(o)) == 16.25);
  ours = our_json(pte_bp_BundledProgram_to_json, buf, size, PTE_FB_JSON_OMIT_DEFAULTS, false);
  ok = json_texts_equal(bp_json, ours, diff, sizeof diff);
  free(ours);
  free(buf);
  CHECK_MSG(ok, "bundled: %s", diff);
}

/* ------------------------------------------------------------------ (d) slots vs flatc --jsonschema */

static int kind_of_jsonschema(const test_json *prop, const test_json *defs, bool *is_enum_ref) {
  /* returns a pte_fbgen_kind for scalars / strings / arrays, PTE_FBGEN_TABLE for object refs */
  *is_enum_ref = false;
  const char *ref = test_json_str(test_json_get(prop, "$ref"));
  if (ref) {
    const char *nm = strrchr(ref, '/');
    const test_json *def = test_json_get(defs, nm ? nm + 1 : ref);
    const char *ty = test_json_str(test_json_get(def, "type"));
    if (ty && strcmp(ty, "string") == 0) {
      *is_enum_ref = true;
      return PTE_FBGEN_NONE;
    }
    return PTE_FBGEN_TABLE;
  }
  if (test_json_get(prop, "anyOf")) return PTE_FBGEN_UNION;
  const char *ty = test_json_str(test_json_get(prop, "type"));
  if (!ty) return -1;
  if (strcmp(ty, "array") == 0) return PTE_FBGEN_VECTOR;
  if (strcmp(ty, "string") == 0) return PTE_FBGEN_STRING;
  if (strcmp(ty, "boolean") == 0) return PTE_FBGEN_BOOL;
  if (strcmp(ty, "number") == 0) return PTE_FBGEN_F64; /* float or double */
  if (strcmp(ty, "integer") == 0) {
    double mn = test_json_num(test_json_get(prop, "minimum"), 0), mx = test_json_num(test_json_get(prop, "maximum"), 0);
    if (mn == -128) return PTE_FBGEN_I8;
    if (mn == -32768) return PTE_FBGEN_I16;
    if (mn == -2147483648.0) return PTE_FBGEN_I32;
    if (mn < -2147483648.0) return PTE_FBGEN_I64;
    if (mx == 255) return PTE_FBGEN_U8;
    if (mx == 65535) return PTE_FBGEN_U16;
    if (mx == 4294967295.0) return PTE_FBGEN_U32;
    return PTE_FBGEN_U64;
  }
  return -1;
}

static bool check_schema_slots(const char *schema, const char *stem, const pte_fbgen_type *types) {
  char cmd[4096], path[1200];
  snprintf(cmd, sizeof cmd, "'%s' --jsonschema -o '%s' '%s' 2>&1", flatc(), tmp_dir(), schema_path(schema));
  int rc = -1;
  char *outp = test_run_capture(cmd, &rc);
  free(outp);
  if (rc != 0) {
    test_fail(__FILE__, __LINE__, "%s failed", cmd);
    return false;
  }
  snprintf(path, sizeof path, "%s/%s.schema.json", tmp_dir(), stem);
  char *text = read_text_file(path);
  if (!text) {
    test_fail(__FILE__, __LINE__, "no %s", path);
    return false;
  }
  char err[256];
  test_json *js = test_json_parse(text, strlen(text), err, sizeof err);
  free(text);
  if (!js) {
    test_fail(__FILE__, __LINE__, "%s: %s", path, err);
    return false;
  }
  const test_json *defs = test_json_get(js, "definitions");
  bool ok = true;
  int ntables = 0;
  for (const pte_fbgen_type *t = types; t->name && ok; t++) {
    char key[256];
    snprintf(key, sizeof key, "%s", t->name);
    for (char *c = key; *c; c++)
      if (*c == '.') *c = '_';
    const test_json *props = test_json_get(test_json_get(defs, key), "properties");
    if (!props) {
      test_fail(__FILE__, __LINE__, "%s: flatc has no definition %s", schema, key);
      ok = false;
      break;
    }
    ntables++;
    if (props->n != t->n_fields) {
      test_fail(__FILE__, __LINE__, "%s: %u fields, flatc has %zu", t->name, (unsigned)t->n_fields, props->n);
      ok = false;
      break;
    }
    for (size_t i = 0; i < props->n; i++) {
      const pte_fbgen_field *f = &t->fields[i];
      /* flatc lists fields in slot order (tables here use no id attributes) */
      if (strcmp(props->keys[i], f->name) != 0 || (!t->is_struct && f->slot != i)) {
        test_fail(__FILE__, __LINE__, "%s: slot %zu is \"%s\" for flatc, ours: \"%s\" slot %u", t->name, i, props->keys[i],
                  f->name, (unsigned)f->slot);
        ok = false;
        break;
      }
      bool is_enum_ref;
      int k = kind_of_jsonschema(props->items[i], defs, &is_enum_ref);
      int ours = f->kind;
      bool ours_enum = (f->flags & PTE_FBGEN_F_ENUM) && f->kind != PTE_FBGEN_VECTOR;
      bool match;
      if (f->kind == PTE_FBGEN_UNION_TYPE) match = is_enum_ref;
      else if (ours_enum) match = is_enum_ref;
      else if (ours == PTE_FBGEN_STRUCT) match = k == PTE_FBGEN_TABLE;
      else if (ours == PTE_FBGEN_F32) match = k == PTE_FBGEN_F64;
      else match = k == ours;
      bool dep_flatc = test_json_get(props->items[i], "deprecated") != NULL;
      if (!match || dep_flatc != ((f->flags & PTE_FBGEN_F_DEPRECATED) != 0)) {
        test_fail(__FILE__, __LINE__, "%s.%s: kind %d (enum %d) vs flatc kind %d (enum ref %d)", t->name, f->name, ours,
                  ours_enum, k, is_enum_ref);
        ok = false;
        break;
      }
    }
  }
  /* and every flatc object definition of this schema's namespace(s) is one of ours */
  int nobj = 0;
  for (size_t i = 0; defs && i < defs->n; i++) {
    const char *ty = test_json_str(test_json_get(defs->items[i], "type"));
    if (ty && strcmp(ty, "object") == 0) nobj++;
  }
  if (ok && nobj != ntables) {
    test_fail(__FILE__, __LINE__, "%s: flatc has %d object definitions, we have %d tables/structs", schema, nobj, ntables);
    ok = false;
  }
  test_json_free(js);
  return ok;
}

TEST(slots_match_flatc_jsonschema) {
  CHECK_MSG(flatc() != NULL, "PTE_FLATC not set (flatc is needed)");
  /* 35 upstream tables + DelegateScratch (pte extension, docs/format.md) + the scalar enum */
  CHECK_EQ_INT(pte_et_N_TYPES, 37);
  CHECK(check_schema_slots("program.fbs", "program", pte_et_types));
  CHECK(check_schema_slots("flat_tensor.fbs", "flat_tensor", pte_ft_types));
  CHECK(check_schema_slots("bundled_program.fbs", "bundled_program", pte_bp_types));
  /* a few constants by hand (wire facts from the format reference) */
  CHECK_EQ_INT(pte_et_Tensor_extra_tensor_info_SLOT, 9);
  CHECK_EQ_INT(pte_et_EValue_val_type_SLOT, 0);
  CHECK_EQ_INT(pte_et_EValue_val_SLOT, 1);
  CHECK_EQ_INT(pte_et_ExecutionPlan_non_const_buffer_device_SLOT, 9);
  CHECK_EQ_INT(pte_et_Program_named_data_SLOT, 7);
  CHECK_EQ_INT(pte_ft_NamedData_tensor_layout_SLOT, 2);
  CHECK_EQ_INT(pte_bp_BundledProgram_program_SLOT, 2);
  CHECK_EQ_INT(pte_et_KernelTypes_OptionalTensorList, 11);
  CHECK_EQ_INT(pte_st_ScalarType_UINT64, 29);
  CHECK_EQ_INT(pte_st_ScalarType_BITS16, 22);
  CHECK_STR(pte_st_ScalarType_name(24), "FLOAT8E4M3FN");
  CHECK(pte_st_ScalarType_name(9) == NULL);
  CHECK_STR(pte_et_KernelTypes_name(0), "NONE");
  CHECK_STR(pte_et_InstructionArguments_name(5), "FreeCall");
  CHECK(pte_et_InstructionArguments_name(6) == NULL);
  CHECK_EQ_INT(pte_et_MAX_ALIGN, 16);
  CHECK_EQ_INT(pte_bp_MAX_ALIGN, 32);
}

/* ------------------------------------------------------------------ (e) verifier rejects */

TEST(verifier_rejects_broken_buffers) {
  size_t size;
  uint8_t *buf = test_read_corpus("pr17248_add.pte", &size);
  CHECK(buf);
  CHECK_OK(pte_et_verify_root(buf, size, NULL));
  pte_error_info err = {0};
  /* truncated: vectors / tables run past the end */
  CHECK_STATUS(pte_et_verify_root(buf, size / 2, &err), PTE_ERR_INVALID_PROGRAM);
  CHECK(err.msg[0] != 0);
  /* wrong identifier */
  buf[5] ^= 0x20;
  CHECK_STATUS(pte_et_verify_root(buf, size, NULL), PTE_ERR_INVALID_PROGRAM);
  buf[5] ^= 0x20;
  /* the other schemas' roots refuse a program */
  CHECK_STATUS(pte_ft_verify_root(buf, size, NULL), PTE_ERR_INVALID_PROGRAM);
  CHECK_STATUS(pte_bp_verify_root(buf, size, NULL), PTE_ERR_INVALID_PROGRAM);
  free(buf);

  /* a union tag outside KernelTypes, and a tag without a value */
  for (int variant = 0; variant < 2; variant++) {
    pte_fb_builder b;
    pte_fb_builder_init(&b, pte_heap_realloc, NULL);
    pte_et_Int_start(&b);
    pte_et_Int_add_int_val(&b, 5);
    pte_fb_ref r_int = pte_et_Int_end(&b);
    pte_et_EValue_start(&b);
    pte_et_EValue_add_val_type(&b, variant == 0 ? pte_et_KernelTypes_COUNT : pte_et_KernelTypes_Int);
    if (variant == 0) pte_et_EValue_add_val(&b, r_int);
    pte_fb_ref r_ev = pte_et_EValue_end(&b);
    pte_fb_ref r_vals = pte_et_ExecutionPlan_create_values(&b, &r_ev, 1);
    pte_et_ExecutionPlan_start(&b);
    pte_et_ExecutionPlan_add_values(&b, r_vals);
    pte_fb_ref r_plan = pte_et_ExecutionPlan_end(&b);
    pte_fb_ref r_plans = pte_et_Program_create_execution_plan(&b, &r_plan, 1);
    pte_et_Program_start(&b);
    pte_et_Program_add_execution_plan(&b, r_plans);
    pte_fb_ref r_p = pte_et_Program_end(&b);
    const uint8_t *out;
    size_t n;
    pte_status s = pte_et_finish(&b, r_p, &out, &n);
    if (s != PTE_OK) pte_fb_builder_free(&b);
    CHECK_OK(s);
    s = pte_et_verify_root(out, n, &err);
    pte_fb_builder_free(&b);
    CHECK_STATUS(s, PTE_ERR_INVALID_PROGRAM);
    CHECK_CONTAINS(err.msg, variant == 0 ? "tag" : "missing");
  }
}

/* ------------------------------------------------------------------ number formatting, JSON */

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint64_t rng(void) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return rng_state;
}

TEST(number_formatting) {
  char b[32];
  struct { double v; const char *want; } cases[] = {
      {0.1, "0.1"},      {2.5, "2.5"},        {100, "100.0"},         {-0.0, "-0.0"},   {0, "0.0"},
      {1e300, "1e+300"}, {5e-324, "5e-324"},  {1e21, "1e+21"},        {1e20, "100000000000000000000.0"},
      {1e-6, "0.000001"}, {1e-7, "1e-7"},     {1.7976931348623157e308, "1.7976931348623157e+308"},
      {0.30000000000000004, "0.30000000000000004"}, {123.456, "123.456"}, {-1.5e-10, "-1.5e-10"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    pte_fb_json_format_f64(cases[i].v, b);
    CHECK_STR(b, cases[i].want);
  }
  pte_fb_json_format_f64(NAN, b);
  CHECK_STR(b, "nan");
  pte_fb_json_format_f64(-INFINITY, b);
  CHECK_STR(b, "-inf");
  pte_fb_json_format_f32(0.1f, b);
  CHECK_STR(b, "0.1");
  pte_fb_json_format_f32(3.4028235e38f, b);
  CHECK_STR(b, "3.4028235e+38");
  pte_fb_json_format_f32(1e-45f, b);
  CHECK_STR(b, "1e-45");
  pte_fb_json_format_i64(INT64_MIN, b);
  CHECK_STR(b, "-9223372036854775808");
  pte_fb_json_format_u64(UINT64_MAX, b);
  CHECK_STR(b, "18446744073709551615");
  /* random bit patterns: exact round trip, and no shorter %.*g form round-trips */
  for (int i = 0; i < 20000; i++) {
    uint64_t bits = rng();
    double d;
    memcpy(&d, &bits, 8);
    if (!isfinite(d)) continue;
    size_t n = pte_fb_json_format_f64(d, b);
    CHECK(n < 32);
    double back = strtod(b, NULL);
    CHECK_MSG(memcmp(&back, &d, 8) == 0, "%s does not read back as %.17g", b, d);
    int digits = 0;
    for (const char *c = b; *c && *c != 'e'; c++) digits += (*c >= '0' && *c <= '9');
    /* significant digits: strip leading zeros of "0.000ddd" forms */
    const char *c = b + (b[0] == '-');
    if (c[0] == '0') {
      digits = 0;
      for (c += 2; *c == '0'; c++) {}
      for (; *c >= '0' && *c <= '9'; c++) digits++;
    } else if (strchr(b, '.') && !strchr(b, 'e') && ends_with(b, ".0")) {
      digits--; /* the ".0" of an integer */
      while (digits > 1 && b[(b[0] == '-') + digits - 1] == '0') digits--;
    }
    if (digits > 1) {
      char shorter[400];
      snprintf(shorter, sizeof shorter, "%.*g", digits - 1, d);
      double s2 = strtod(shorter, NULL);
      CHECK_MSG(memcmp(&s2, &d, 8) != 0, "%s is not shortest: %s also reads back", b, shorter);
    }
    uint32_t fb = (uint32_t)bits;
    float f;
    memcpy(&f, &fb, 4);
    if (!isfinite(f)) continue;
    pte_fb_json_format_f32(f, b);
    float fback = strtof(b, NULL);
    CHECK_MSG(memcmp(&fback, &f, 4) == 0, "%s does not read back as float %.9g", b, (double)f);
  }
}

TEST(json_sink_and_parser) {
  sbuf s = {0};
  pte_fb_json_sink sink;
  pte_fb_json_sink_init(&sink, sbuf_write, &s, false);
  pte_fb_json_begin_object(&sink);
  pte_fb_json_key(&sink, "a");
  pte_fb_json_begin_array(&sink);
  pte_fb_json_int(&sink, -1);
  pte_fb_json_string(&sink, "x\"\\\x01\xc3\xa9\xff", 7);
  pte_fb_json_begin_object(&sink);
  pte_fb_json_end_object(&sink);
  pte_fb_json_end_array(&sink);
  pte_fb_json_key(&sink, "b");
  pte_fb_json_enum(&sink, NULL, -1, 1);
  pte_fb_json_end_object(&sink);
  CHECK_STR(s.p, "{\"a\":[-1,\"x\\\"\\\\\\u0001\xc3\xa9\\u00ff\",{}],\"b\":18446744073709551615}");
  char err[128];
  test_json *j = test_json_parse(s.p, s.n, err, sizeof err);
  free(s.p);
  CHECK_MSG(j != NULL, "%s", err);
  CHECK_EQ_INT(test_json_int(test_json_path(j, "a[0]"), 0), -1);
  const test_json *str = test_json_path(j, "$.a[1]");
  CHECK(str && str->len == 8 && memcmp(str->str, "x\"\\\x01\xc3\xa9\xc3\xbf", 8) == 0); /* \u00ff -> U+00FF */
  CHECK(test_json_path(j, "b")->is_int && test_json_path(j, "b")->mag == UINT64_MAX);
  CHECK(test_json_path(j, "a[3]") == NULL && test_json_path(j, "c") == NULL);
  static const char same[] = "{\"b\": 18446744073709551615, \"a\": [-1, \"x\\\"\\\\\\u0001\\u00e9\\u00ff\", {}]}";
  test_json *k = test_json_parse(same, strlen(same), err, sizeof err);
  CHECK_MSG(k != NULL, "%s", err);
  char diff[256];
  bool eq = test_json_equal(j, k, NULL, diff, sizeof diff); /* key order and escaping do not matter */
  test_json_free(k);
  CHECK_MSG(eq, "%s", diff);
  static const char other[] = "{\"b\": 18446744073709551614, \"a\": [-1, \"\", {}]}";
  k = test_json_parse(other, strlen(other), err, sizeof err);
  eq = test_json_equal(j, k, NULL, diff, sizeof diff);
  test_json_free(k);
  CHECK(!eq);
  CHECK_CONTAINS(diff, "$.a[1]"); /* first difference in document order of the first tree */
  test_json_free(j);
  test_json *x = test_json_parse("[1.0, nan, -inf, 2]", 19, err, sizeof err);
  test_json *y = test_json_parse("[1, nan, -inf, 2.0000000000001]", 31, err, sizeof err);
  CHECK(x && y);
  test_json_cmp tol = {1e-12, 0};
  CHECK(test_json_equal(x, y, &tol, diff, sizeof diff));
  CHECK(!test_json_equal(x, y, NULL, diff, sizeof diff));
  CHECK_CONTAINS(diff, "$[3]: 2 vs 2.0000000000000");
  test_json_free(x);
  test_json_free(y);
  CHECK(test_json_parse("{\"a\":1,}", 8, err, sizeof err) == NULL);
}

int main(void) {
  RUN(flatc_binary_reads_back_program);
  RUN(flatc_binary_reads_back_defaults);
  RUN(flatc_binary_reads_back_flat_tensor_and_bundled);
  RUN(slots_match_flatc_jsonschema);
  RUN(verifier_rejects_broken_buffers);
  RUN(number_formatting);
  RUN(json_sink_and_parser);
  return test_summary();
}
