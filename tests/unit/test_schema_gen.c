/* test_schema_gen.c — the schema files and the code tools/fbsgen generates from them.
 *
 * Proves, against flatc (env PTE_FLATC) decoding with our own schema files (env PTE_SCHEMA_DIR):
 *  - every corpus .pte / .ptd / .bpte (and the program inside the .bpte) passes our verifier and
 *    our JSON emitter prints exactly what flatc prints (--defaults-json and sparse);
 *  - buffers made with the generated builders decode in flatc to the intended JSON (every table
 *    of program.fbs with non-default values, force_align honoured).
 * flatc -> accessors, slots vs flatc --jsonschema, verifier rejects, number formatting:
 * test_schema_gen_read.c.
 */
#define _POSIX_C_SOURCE 200809L
#include "test_schema_gen_util.h"

/* ------------------------------------------------------------------ (a) corpus vs flatc */

typedef struct schema_kind {
  const char *ext, *schema;
  pte_status (*verify)(const uint8_t *, size_t, pte_error_info *);
  to_json_fn to_json;
} schema_kind;

static const schema_kind k_kinds[] = {
    {".pte", "program.fbs", pte_et_verify_root, pte_et_Program_to_json},
    {".ptd", "flat_tensor.fbs", pte_ft_verify_root, pte_ft_FlatTensor_to_json},
    {".bpte", "bundled_program.fbs", pte_bp_verify_root, pte_bp_BundledProgram_to_json},
};

/* Verifies buf and compares our JSON with flatc's in both modes; returns false (after reporting)
 * on any difference. */
static bool check_against_flatc(const schema_kind *k, const char *name, const uint8_t *buf, size_t size) {
  pte_error_info err = {0};
  pte_status s = k->verify(buf, size, &err);
  if (s != PTE_OK) {
    test_fail(__FILE__, __LINE__, "%s: verifier says %s: %s", name, pte_status_name(s), err.msg);
    return false;
  }
  for (int mode = 0; mode < 2; mode++) {
    bool defaults = mode == 0;
    char tag[512];
    snprintf(tag, sizeof tag, "corpus_%s_%s", name, defaults ? "full" : "sparse");
    char *theirs = flatc_decode(k->schema, buf, size, tag, defaults);
    if (!theirs) {
      test_fail(__FILE__, __LINE__, "%s: flatc could not decode it", name);
      return false;
    }
    char *ours = our_json(k->to_json, buf, size, defaults ? 0 : PTE_FB_JSON_OMIT_DEFAULTS, mode == 1);
    char diff[1024];
    bool eq = json_texts_equal(ours, theirs, diff, sizeof diff);
    if (!eq) test_fail(__FILE__, __LINE__, "%s (%s): ours vs flatc differ at %s", name, defaults ? "defaults" : "sparse", diff);
    free(theirs);
    free(ours);
    if (!eq) return false;
  }
  return true;
}

TEST(corpus_matches_flatc) {
  CHECK_MSG(flatc() != NULL, "PTE_FLATC not set (flatc is needed)");
  const char *dir = getenv("PTE_CORPUS");
  CHECK_MSG(dir != NULL, "PTE_CORPUS not set");
  DIR *d = opendir(dir);
  CHECK_MSG(d != NULL, "cannot open %s", dir);
  int counts[3] = {0, 0, 0}, inner = 0, failures = 0;
  struct dirent *e;
  char *names[256];
  int nn = 0;
  while ((e = readdir(d)) != NULL && nn < 256) names[nn++] = strdup(e->d_name);
  closedir(d);
  for (int i = 0; i < nn; i++) {
    for (int k = 0; k < 3; k++) {
      if (!ends_with(names[i], k_kinds[k].ext)) continue;
      size_t size;
      uint8_t *buf = test_read_corpus(names[i], &size);
      if (!buf) { failures++; continue; }
      counts[k]++;
      if (!check_against_flatc(&k_kinds[k], names[i], buf, size)) failures++;
      if (k == 2) {
        /* the wrapped program */
        pte_fb_vec pv = pte_bp_BundledProgram_program(pte_bp_root(buf, size));
        if (!pv.present || pv.len < 8) {
          test_fail(__FILE__, __LINE__, "%s: no inner program", names[i]);
          failures++;
        } else {
          CHECK_MSG(pv.data % 32 == 0, "%s: program vector at %u not 32-aligned", names[i], pv.data);
          uint8_t *copy = NULL;
          if (posix_memalign((void **)&copy, 64, pv.len) != 0) abort();
          memcpy(copy, pte_fb_vec_data(pv), pv.len);
          char nm[300];
          snprintf(nm, sizeof nm, "%s.inner.pte", names[i]);
          if (!check_against_flatc(&k_kinds[0], nm, copy, pv.len)) failures++;
          inner++;
          free(copy);
        }
      }
      free(buf);
    }
  }
  for (int i = 0; i < nn; i++) free(names[i]);
  printf("  corpus: %d .pte, %d .ptd, %d .bpte (+%d inner programs) compared with flatc\n", counts[0], counts[1], counts[2], inner);
  CHECK_EQ_INT(failures, 0);
  CHECK(counts[0] >= 37);
  CHECK(counts[1] >= 2);
  CHECK(counts[2] >= 1);
  CHECK_EQ_INT(inner, counts[2]);
}

/* Spot checks of corpus values through the accessors (numbers from MANIFEST.md / flatc). */
TEST(corpus_accessors) {
  size_t size;
  uint8_t *buf = test_read_corpus("arduino_AddModel.pte", &size);
  CHECK(buf);
  CHECK_OK(pte_et_verify_root(buf, size, NULL));
  pte_fb_table prog = pte_et_root(buf, size);
  CHECK_EQ_INT(pte_et_Program_version(prog), 0);
  pte_fb_vec plans = pte_et_Program_execution_plan(prog);
  CHECK_EQ_INT(plans.len, 1);
  pte_fb_table plan = pte_fb_vec_table(plans, 0);
  CHECK(str_is(pte_et_ExecutionPlan_name(plan), "forward"));
  pte_fb_vec values = pte_et_ExecutionPlan_values(plan);
  CHECK_EQ_INT(values.len, 4);
  pte_fb_table v0 = pte_fb_vec_table(values, 0);
  CHECK_EQ_INT(pte_et_EValue_val_type(v0), pte_et_KernelTypes_Tensor);
  pte_fb_table t0 = pte_et_EValue_val(v0);
  CHECK_EQ_INT(pte_et_Tensor_scalar_type(t0), pte_st_ScalarType_FLOAT);
  CHECK_EQ_INT(pte_et_Tensor_data_buffer_idx(t0), 1);
  CHECK_EQ_INT(pte_et_Tensor_sizes(t0).len, 0);
  CHECK(!pte_fb_table_present(pte_et_Tensor_allocation_info(t0)));
  pte_fb_table t1 = pte_et_EValue_val(pte_fb_vec_table(values, 1));
  pte_fb_table a1 = pte_et_Tensor_allocation_info(t1);
  CHECK_EQ_INT(pte_et_AllocationDetails_memory_id(a1), 1);
  CHECK_EQ_INT(pte_et_AllocationDetails_memory_offset_low(a1), 16);
  CHECK_EQ_INT(pte_fb_vec_i32(pte_et_Tensor_sizes(t1), 0), 3);
  pte_fb_table v3 = pte_fb_vec_table(values, 3);
  CHECK_EQ_INT(pte_et_EValue_val_type(v3), pte_et_KernelTypes_Int);
  CHECK_EQ_INT(pte_et_Int_int_val(pte_et_EValue_val(v3)), 1);
  pte_fb_vec ncb = pte_et_ExecutionPlan_non_const_buffer_sizes(plan);
  CHECK_EQ_INT(ncb.len, 2);
  CHECK_EQ_INT(pte_fb_vec_i64(ncb, 1), 32);
  pte_fb_table op = pte_fb_vec_table(pte_et_ExecutionPlan_operators(plan), 0);
  CHECK(str_is(pte_et_Operator_name(op), "aten::add"));
  CHECK(str_is(pte_et_Operator_overload(op), "out"));
  pte_fb_table chain = pte_fb_vec_table(pte_et_ExecutionPlan_chains(plan), 0);
  pte_fb_table ins = pte_fb_vec_table(pte_et_Chain_instructions(chain), 0);
  CHECK_EQ_INT(pte_et_Instruction_instr_args_type(ins), pte_et_InstructionArguments_KernelCall);
  pte_fb_vec args = pte_et_KernelCall_args(pte_et_Instruction_instr_args(ins));
  CHECK_EQ_INT(args.len, 5);
  CHECK_EQ_INT(pte_fb_vec_i32(args, 2), 3);
  pte_fb_table cs = pte_et_Program_constant_segment(prog);
  CHECK_EQ_INT(pte_et_SubsegmentOffsets_segment_index(cs), 0);
  CHECK_EQ_INT(pte_et_SubsegmentOffsets_offsets(cs).len, 2);
  pte_fb_table seg0 = pte_fb_vec_table(pte_et_Program_segments(prog), 0);
  CHECK_EQ_INT(pte_et_DataSegment_size(seg0), 4);
  free(buf);

  buf = test_read_corpus("etrs_data_map__default_external_constant.ptd", &size);
  CHECK(buf);
  CHECK_OK(pte_ft_verify_root(buf, size, NULL));
  pte_fb_table ft = pte_ft_root(buf, size);
  pte_fb_vec nd = pte_ft_FlatTensor_named_data(ft);
  CHECK_EQ_INT(nd.len, 2);
  pte_fb_table nd1 = pte_fb_vec_table(nd, 1);
  CHECK(str_is(pte_ft_NamedData_key(nd1), "b"));
  CHECK_EQ_INT(pte_ft_NamedData_segment_index(nd1), 1);
  pte_fb_table lay = pte_ft_NamedData_tensor_layout(nd1);
  CHECK_EQ_INT(pte_ft_TensorLayout_scalar_type(lay), pte_st_ScalarType_FLOAT);
  CHECK_EQ_INT(pte_ft_TensorLayout_sizes(lay).len, 2);
  CHECK_EQ_INT(pte_fb_vec_u8(pte_ft_TensorLayout_dim_order(lay), 1), 1);
  CHECK_EQ_INT(pte_ft_DataSegment_offset(pte_fb_vec_table(pte_ft_FlatTensor_segments(ft), 1)), 16);
  free(buf);

  buf = test_read_corpus("module_test_bundled_program.bpte", &size);
  CHECK(buf);
  CHECK_OK(pte_bp_verify_root(buf, size, NULL));
  pte_fb_table bp = pte_bp_root(buf, size);
  CHECK_EQ_INT(pte_bp_BundledProgram_version(bp), 2);
  pte_fb_table suite = pte_fb_vec_table(pte_bp_BundledProgram_method_test_suites(bp), 0);
  CHECK(str_is(pte_bp_BundledMethodTestSuite_method_name(suite), "forward"));
  pte_fb_vec cases = pte_bp_BundledMethodTestSuite_test_cases(suite);
  CHECK_EQ_INT(cases.len, 10);
  pte_fb_table in0 = pte_fb_vec_table(pte_bp_BundledMethodTestCase_inputs(pte_fb_vec_table(cases, 0)), 0);
  CHECK_EQ_INT(pte_bp_Value_val_type(in0), pte_bp_ValueUnion_Tensor);
  pte_fb_table bt = pte_bp_Value_val(in0);
  CHECK_EQ_INT(pte_bp_Tensor_scalar_type(bt), pte_st_ScalarType_INT);
  CHECK_EQ_INT(pte_bp_Tensor_data(bt).len, 16);
  CHECK_EQ_INT(pte_bp_Tensor_data(bt).data % 16, 0);
  pte_fb_table out0 = pte_fb_vec_table(pte_bp_BundledMethodTestCase_expected_outputs(pte_fb_vec_table(cases, 0)), 0);
  CHECK_EQ_INT(pte_fb_vec_i32(pte_bp_Tensor_data(pte_bp_Value_val(out0)), 3), 2); /* i32 view of bytes 12..15 */
  CHECK_EQ_INT(pte_fb_vec_u8(pte_bp_Tensor_data(pte_bp_Value_val(out0)), 0), 2);
  free(buf);
}

/* ------------------------------------------------------------------ (b) builder -> flatc */

/* Builds a Program that uses every table of program.fbs with non-default values. */
static pte_status build_program(pte_fb_builder *b, const uint8_t **out, size_t *out_size) {
  /* Tensor with every field set */
  int32_t sizes[] = {2, 3};
  uint8_t dim_order[] = {1, 0};
  pte_fb_ref r_sizes = pte_et_Tensor_create_sizes(b, sizes, 2);
  pte_fb_ref r_dim = pte_et_Tensor_create_dim_order(b, dim_order, 2);
  pte_et_AllocationDetails_start(b);
  pte_et_AllocationDetails_add_memory_id(b, 1);
  pte_et_AllocationDetails_add_memory_offset_low(b, 16);
  pte_et_AllocationDetails_add_memory_offset_high(b, 2);
  pte_fb_ref r_alloc = pte_et_AllocationDetails_end(b);
  pte_fb_ref r_fqn = mkstr(b, "net.w");
  pte_et_ExtraTensorInfo_start(b);
  pte_et_ExtraTensorInfo_add_mutable_data_segments_idx(b, 5);
  pte_et_ExtraTensorInfo_add_fully_qualified_name(b, r_fqn);
  pte_et_ExtraTensorInfo_add_location(b, pte_et_TensorDataLocation_EXTERNAL);
  pte_et_ExtraTensorInfo_add_device_type(b, pte_et_DeviceType_CUDA);
  pte_et_ExtraTensorInfo_add_device_index(b, 2);
  pte_fb_ref r_extra = pte_et_ExtraTensorInfo_end(b);
  pte_et_Tensor_start(b);
  pte_et_Tensor_add_scalar_type(b, pte_st_ScalarType_FLOAT);
  pte_et_Tensor_add_storage_offset(b, 0); /* default: must be elided */
  pte_et_Tensor_add_sizes(b, r_sizes);
  pte_et_Tensor_add_dim_order(b, r_dim);
  pte_et_Tensor_add_requires_grad(b, true);
  pte_et_Tensor_add_data_buffer_idx(b, 1);
  pte_et_Tensor_add_allocation_info(b, r_alloc);
  pte_et_Tensor_add_layout(b, 3);
  pte_et_Tensor_add_shape_dynamism(b, pte_et_TensorShapeDynamism_DYNAMIC_BOUND);
  pte_et_Tensor_add_extra_tensor_info(b, r_extra);
  pte_fb_ref r_tensor = pte_et_Tensor_end(b);

  pte_et_Int_start(b);
  pte_et_Int_add_int_val(b, -1234567890123LL);
  pte_fb_ref r_int = pte_et_Int_end(b);
  int64_t il[] = {1, -2, (int64_t)1 << 40};
  pte_fb_ref r_il_items = pte_et_IntList_create_items(b, il, 3);
  pte_et_IntList_start(b);
  pte_et_IntList_add_items(b, r_il_items);
  pte_fb_ref r_intlist = pte_et_IntList_end(b);
  pte_et_Double_start(b);
  pte_et_Double_add_double_val(b, 0.1);
  pte_fb_ref r_double = pte_et_Double_end(b);
  pte_et_Bool_start(b);
  pte_et_Bool_add_bool_val(b, true);
  pte_fb_ref r_bool = pte_et_Bool_end(b);
  pte_fb_ref r_hello = mkstr(b, "hello \"q\"\n");
  pte_et_String_start(b);
  pte_et_String_add_string_val(b, r_hello);
  pte_fb_ref r_string = pte_et_String_end(b);
  double dl[] = {1.5, -2.25};
  pte_fb_ref r_dl_items = pte_et_DoubleList_create_items(b, dl, 2);
  pte_et_DoubleList_start(b);
  pte_et_DoubleList_add_items(b, r_dl_items);
  pte_fb_ref r_dlist = pte_et_DoubleList_end(b);
  bool bl[] = {true, false, true};
  pte_fb_ref r_bl_items = pte_et_BoolList_create_items(b, bl, 3);
  pte_et_BoolList_start(b);
  pte_et_BoolList_add_items(b, r_bl_items);
  pte_fb_ref r_blist = pte_et_BoolList_end(b);
  int32_t tl[] = {0};
  pte_fb_ref r_tl_items = pte_et_TensorList_create_items(b, tl, 1);
  pte_et_TensorList_start(b);
  pte_et_TensorList_add_items(b, r_tl_items);
  pte_fb_ref r_tlist = pte_et_TensorList_end(b);
  int32_t otl[] = {0, -1};
  pte_fb_ref r_otl_items = pte_et_OptionalTensorList_create_items(b, otl, 2);
  pte_et_OptionalTensorList_start(b);
  pte_et_OptionalTensorList_add_items(b, r_otl_items);
  pte_fb_ref r_otlist = pte_et_OptionalTensorList_end(b);
  pte_et_Null_start(b);
  pte_fb_ref r_null = pte_et_Null_end(b);

  struct { uint8_t tag; pte_fb_ref ref; } vals[] = {
      {pte_et_KernelTypes_Tensor, r_tensor},         {pte_et_KernelTypes_Int, r_int},
      {pte_et_KernelTypes_IntList, r_intlist},       {pte_et_KernelTypes_Double, r_double},
      {pte_et_KernelTypes_Bool, r_bool},             {pte_et_KernelTypes_String, r_string},
      {pte_et_KernelTypes_DoubleList, r_dlist},      {pte_et_KernelTypes_BoolList, r_blist},
      {pte_et_KernelTypes_TensorList, r_tlist},      {pte_et_KernelTypes_OptionalTensorList, r_otlist},
      {pte_et_KernelTypes_Null, r_null},
  };
  pte_fb_ref ev[11];
  for (int i = 0; i < 11; i++) {
    pte_et_EValue_start(b);
    pte_et_EValue_add_val_type(b, vals[i].tag);
    pte_et_EValue_add_val(b, vals[i].ref);
    ev[i] = pte_et_EValue_end(b);
  }
  pte_fb_ref r_values = pte_et_ExecutionPlan_create_values(b, ev, 11);

  /* instructions: one of each kind */
  int32_t kargs[] = {0, 1, 0};
  pte_fb_ref r_kargs = pte_et_KernelCall_create_args(b, kargs, 3);
  pte_et_KernelCall_start(b);
  pte_et_KernelCall_add_op_index(b, 0);
  pte_et_KernelCall_add_args(b, r_kargs);
  pte_fb_ref r_kc = pte_et_KernelCall_end(b);
  int32_t dargs[] = {0, 0};
  pte_fb_ref r_dargs = pte_et_DelegateCall_create_args(b, dargs, 2);
  pte_et_DelegateCall_start(b);
  pte_et_DelegateCall_add_delegate_index(b, 4);
  pte_et_DelegateCall_add_args(b, r_dargs);
  pte_fb_ref r_dc = pte_et_DelegateCall_end(b);
  pte_et_MoveCall_start(b);
  pte_et_MoveCall_add_move_from(b, 1);
  pte_et_MoveCall_add_move_to(b, 2);
  pte_fb_ref r_mc = pte_et_MoveCall_end(b);
  pte_et_JumpFalseCall_start(b);
  pte_et_JumpFalseCall_add_cond_value_index(b, 4);
  pte_et_JumpFalseCall_add_destination_instruction(b, 7);
  pte_fb_ref r_jf = pte_et_JumpFalseCall_end(b);
  pte_et_FreeCall_start(b);
  pte_et_FreeCall_add_value_index(b, 9);
  pte_fb_ref r_fc = pte_et_FreeCall_end(b);
  struct { uint8_t tag; pte_fb_ref ref; } ins[] = {
      {pte_et_InstructionArguments_KernelCall, r_kc},    {pte_et_InstructionArguments_DelegateCall, r_dc},
      {pte_et_InstructionArguments_MoveCall, r_mc},      {pte_et_InstructionArguments_JumpFalseCall, r_jf},
      {pte_et_InstructionArguments_FreeCall, r_fc},
  };
  pte_fb_ref ir[5];
  for (int i = 0; i < 5; i++) {
    pte_et_Instruction_start(b);
    pte_et_Instruction_add_instr_args_type(b, ins[i].tag);
    pte_et_Instruction_add_instr_args(b, ins[i].ref);
    ir[i] = pte_et_Instruction_end(b);
  }
  pte_fb_ref r_instrs = pte_et_Chain_create_instructions(b, ir, 5);
  pte_fb_ref r_fn = mkstr(b, "model.py"), r_fname = mkstr(b, "forward"), r_ctx = mkstr(b, "x + 1");
  pte_et_Frame_start(b);
  pte_et_Frame_add_filename(b, r_fn);
  pte_et_Frame_add_lineno(b, 12);
  pte_et_Frame_add_name(b, r_fname);
  pte_et_Frame_add_context(b, r_ctx);
  pte_fb_ref r_frame = pte_et_Frame_end(b);
  pte_fb_ref r_frames = pte_et_FrameList_create_items(b, &r_frame, 1);
  pte_et_FrameList_start(b);
  pte_et_FrameList_add_items(b, r_frames);
  pte_fb_ref r_fl = pte_et_FrameList_end(b);
  pte_fb_ref r_st = pte_et_Chain_create_stacktrace(b, &r_fl, 1);
  int32_t cin[] = {0}, cout[] = {1, 2};
  pte_fb_ref r_cin = pte_et_Chain_create_inputs(b, cin, 1);
  pte_fb_ref r_cout = pte_et_Chain_create_outputs(b, cout, 2);
  pte_et_Chain_start(b);
  pte_et_Chain_add_inputs(b, r_cin);
  pte_et_Chain_add_outputs(b, r_cout);
  pte_et_Chain_add_instructions(b, r_instrs);
  pte_et_Chain_add_stacktrace(b, r_st);
  pte_fb_ref r_chain = pte_et_Chain_end(b);
  pte_fb_ref r_chains = pte_et_ExecutionPlan_create_chains(b, &r_chain, 1);

  pte_fb_ref r_opn = mkstr(b, "aten::add"), r_opo = mkstr(b, "out");
  pte_et_Operator_start(b);
  pte_et_Operator_add_name(b, r_opn);
  pte_et_Operator_add_overload(b, r_opo);
  pte_fb_ref r_op = pte_et_Operator_end(b);
  pte_fb_ref r_ops = pte_et_ExecutionPlan_create_operators(b, &r_op, 1);

  pte_et_BackendDelegateDataReference_start(b);
  pte_et_BackendDelegateDataReference_add_location(b, pte_et_DataLocation_SEGMENT);
  pte_et_BackendDelegateDataReference_add_index(b, 1);
  pte_fb_ref r_ref = pte_et_BackendDelegateDataReference_end(b);
  uint8_t specv[] = {1, 2, 3};
  pte_fb_ref r_ck = mkstr(b, "key"), r_cv = pte_et_CompileSpec_create_value(b, specv, 3);
  pte_et_CompileSpec_start(b);
  pte_et_CompileSpec_add_key(b, r_ck);
  pte_et_CompileSpec_add_value(b, r_cv);
  pte_fb_ref r_spec = pte_et_CompileSpec_end(b);
  pte_fb_ref r_specs = pte_et_BackendDelegate_create_compile_specs(b, &r_spec, 1);
  pte_fb_ref r_did = mkstr(b, "XnnpackBackend");
  pte_et_BackendDelegate_start(b);
  pte_et_BackendDelegate_add_id(b, r_did);
  pte_et_BackendDelegate_add_processed(b, r_ref);
  pte_et_BackendDelegate_add_compile_specs(b, r_specs);
  pte_fb_ref r_del = pte_et_BackendDelegate_end(b);
  pte_fb_ref r_dels = pte_et_ExecutionPlan_create_delegates(b, &r_del, 1);

  pte_fb_ref r_inp = mkstr(b, "[in]"), r_outp = mkstr(b, "[out]");
  pte_et_ContainerMetadata_start(b);
  pte_et_ContainerMetadata_add_encoded_inp_str(b, r_inp);
  pte_et_ContainerMetadata_add_encoded_out_str(b, r_outp);
  pte_fb_ref r_meta = pte_et_ContainerMetadata_end(b);

  int32_t pin[] = {0}, pout[] = {0, 1};
  pte_fb_ref r_pin = pte_et_ExecutionPlan_create_inputs(b, pin, 1);
  pte_fb_ref r_pout = pte_et_ExecutionPlan_create_outputs(b, pout, 2);
  int64_t ncb[] = {0, 64};
  pte_fb_ref r_ncb = pte_et_ExecutionPlan_create_non_const_buffer_sizes(b, ncb, 2);
  pte_et_NonConstBufferDevice_start(b);
  pte_et_NonConstBufferDevice_add_buffer_idx(b, 1);
  pte_et_NonConstBufferDevice_add_device_type(b, pte_et_DeviceType_CUDA);
  pte_et_NonConstBufferDevice_add_device_index(b, 3);
  pte_fb_ref r_ncd = pte_et_NonConstBufferDevice_end(b);
  pte_fb_ref r_ncds = pte_et_ExecutionPlan_create_non_const_buffer_device(b, &r_ncd, 1);
  pte_fb_ref r_pname = mkstr(b, "forward");
  pte_et_ExecutionPlan_start(b);
  pte_et_ExecutionPlan_add_name(b, r_pname);
  pte_et_ExecutionPlan_add_container_meta_type(b, r_meta);
  pte_et_ExecutionPlan_add_values(b, r_values);
  pte_et_ExecutionPlan_add_inputs(b, r_pin);
  pte_et_ExecutionPlan_add_outputs(b, r_pout);
  pte_et_ExecutionPlan_add_chains(b, r_chains);
  pte_et_ExecutionPlan_add_operators(b, r_ops);
  pte_et_ExecutionPlan_add_delegates(b, r_dels);
  pte_et_ExecutionPlan_add_non_const_buffer_sizes(b, r_ncb);
  pte_et_ExecutionPlan_add_non_const_buffer_device(b, r_ncds);
  pte_fb_ref r_plan = pte_et_ExecutionPlan_end(b);
  pte_fb_ref r_plans = pte_et_Program_create_execution_plan(b, &r_plan, 1);

  /* constant_buffer: an empty placeholder and a 5-byte buffer (force_align 16) */
  uint8_t stor[] = {1, 2, 3, 4, 5};
  pte_fb_ref r_s0 = pte_et_Buffer_create_storage(b, NULL, 0);
  pte_et_Buffer_start(b);
  pte_et_Buffer_add_storage(b, r_s0);
  pte_fb_ref r_b0 = pte_et_Buffer_end(b);
  pte_fb_ref r_s1 = pte_et_Buffer_create_storage(b, stor, 5);
  pte_et_Buffer_start(b);
  pte_et_Buffer_add_storage(b, r_s1);
  pte_fb_ref r_b1 = pte_et_Buffer_end(b);
  pte_fb_ref bufs[] = {r_b0, r_b1};
  pte_fb_ref r_cbuf = pte_et_Program_create_constant_buffer(b, bufs, 2);
  uint8_t blob[] = {9, 8, 7};
  pte_fb_ref r_blob = pte_et_BackendDelegateInlineData_create_data(b, blob, 3);
  pte_et_BackendDelegateInlineData_start(b);
  pte_et_BackendDelegateInlineData_add_data(b, r_blob);
  pte_fb_ref r_inl = pte_et_BackendDelegateInlineData_end(b);
  pte_fb_ref r_inls = pte_et_Program_create_backend_delegate_data(b, &r_inl, 1);
  pte_fb_ref segs[2];
  uint64_t so[] = {0, 128}, ss[] = {40, 12};
  for (int i = 0; i < 2; i++) {
    pte_et_DataSegment_start(b);
    pte_et_DataSegment_add_offset(b, so[i]);
    pte_et_DataSegment_add_size(b, ss[i]);
    segs[i] = pte_et_DataSegment_end(b);
  }
  pte_fb_ref r_segs = pte_et_Program_create_segments(b, segs, 2);
  uint64_t coff[] = {0, 0, 32};
  pte_fb_ref r_coff = pte_et_SubsegmentOffsets_create_offsets(b, coff, 3);
  pte_et_SubsegmentOffsets_start(b);
  pte_et_SubsegmentOffsets_add_segment_index(b, 0);
  pte_et_SubsegmentOffsets_add_offsets(b, r_coff);
  pte_fb_ref r_cseg = pte_et_SubsegmentOffsets_end(b);
  uint64_t moff[] = {0, 8};
  pte_fb_ref r_moff = pte_et_SubsegmentOffsets_create_offsets(b, moff, 2);
  pte_et_SubsegmentOffsets_start(b);
  pte_et_SubsegmentOffsets_add_segment_index(b, 1);
  pte_et_SubsegmentOffsets_add_offsets(b, r_moff);
  pte_fb_ref r_mseg = pte_et_SubsegmentOffsets_end(b);
  pte_fb_ref r_msegs = pte_et_Program_create_mutable_data_segments(b, &r_mseg, 1);
  pte_fb_ref r_key = mkstr(b, "blob");
  pte_et_NamedData_start(b);
  pte_et_NamedData_add_key(b, r_key);
  pte_et_NamedData_add_segment_index(b, 1);
  pte_fb_ref r_nd = pte_et_NamedData_end(b);
  pte_fb_ref r_nds = pte_et_Program_create_named_data(b, &r_nd, 1);

  pte_et_Program_start(b);
  pte_et_Program_add_version(b, 7);
  pte_et_Program_add_execution_plan(b, r_plans);
  pte_et_Program_add_constant_buffer(b, r_cbuf);
  pte_et_Program_add_backend_delegate_data(b, r_inls);
  pte_et_Program_add_segments(b, r_segs);
  pte_et_Program_add_constant_segment(b, r_cseg);
  pte_et_Program_add_mutable_data_segments(b, r_msegs);
  pte_et_Program_add_named_data(b, r_nds);
  pte_fb_ref r_prog = pte_et_Program_end(b);
  return pte_et_finish(b, r_prog, out, out_size);
}

/* What flatc must print (without --defaults-json) for build_program's buffer: fields at their
 * default (storage_offset 0, op_index 0, segment_index 0, offset 0, ...) are absent. */
static const char k_built_program_json[] =
    "{\"version\":7,\"execution_plan\":[{\"name\":\"forward\","
    "\"container_meta_type\":{\"encoded_inp_str\":\"[in]\",\"encoded_out_str\":\"[out]\"},"
    "\"values\":["
    "{\"val_type\":\"Tensor\",\"val\":{\"scalar_type\":\"FLOAT\",\"sizes\":[2,3],\"dim_order\":[1,0],"
    "\"requires_grad\":true,\"data_buffer_idx\":1,"
    "\"allocation_info\":{\"memory_id\":1,\"memory_offset_low\":16,\"memory_offset_high\":2},"
    "\"layout\":3,\"shape_dynamism\":\"DYNAMIC_BOUND\","
    "\"extra_tensor_info\":{\"mutable_data_segments_idx\":5,\"fully_qualified_name\":\"net.w\","
    "\"location\":\"EXTERNAL\",\"device_type\":\"CUDA\",\"device_index\":2}}},"
    "{\"val_type\":\"Int\",\"val\":{\"int_val\":-1234567890123}},"
    "{\"val_type\":\"IntList\",\"val\":{\"items\":[1,-2,1099511627776]}},"
    "{\"val_type\":\"Double\",\"val\":{\"double_val\":0.1}},"
    "{\"val_type\":\"Bool\",\"val\":{\"bool_val\":true}},"
    "{\"val_type\":\"String\",\"val\":{\"string_val\":\"hello \\\"q\\\"\\n\"}},"
    "{\"val_type\":\"DoubleList\",\"val\":{\"items\":[1.5,-2.25]}},"
    "{\"val_type\":\"BoolList\",\"val\":{\"items\":[true,false,true]}},"
    "{\"val_type\":\"TensorList\",\"val\":{\"items\":[0]}},"
    "{\"val_type\":\"OptionalTensorList\",\"val\":{\"items\":[0,-1]}},"
    "{\"val_type\":\"Null\",\"val\":{}}],"
    "\"inputs\":[0],\"outputs\":[0,1],"
    "\"chains\":[{\"inputs\":[0],\"outputs\":[1,2],\"instructions\":["
    "{\"instr_args_type\":\"KernelCall\",\"instr_args\":{\"args\":[0,1,0]}},"
    "{\"instr_args_type\":\"DelegateCall\",\"instr_args\":{\"delegate_index\":4,\"args\":[0,0]}},"
    "{\"instr_args_type\":\"MoveCall\",\"instr_args\":{\"move_from\":1,\"move_to\":2}},"
    "{\"instr_args_type\":\"JumpFalseCall\",\"instr_args\":{\"cond_value_index\":4,\"destination_instruction\":7}},"
    "{\"instr_args_type\":\"FreeCall\",\"instr_args\":{\"value_index\":9}}],"
    "\"stacktrace\":[{\"items\":[{\"filename\":\"model.py\",\"lineno\":12,\"name\":\"forward\",\"context\":\"x + 1\"}]}]}],"
    "\"operators\":[{\"name\":\"aten::add\",\"overload\":\"out\"}],"
    "\"delegates\":[{\"id\":\"XnnpackBackend\",\"processed\":{\"location\":\"SEGMENT\",\"index\":1},"
    "\"compile_specs\":[{\"key\":\"key\",\"value\":[1,2,3]}]}],"
    "\"non_const_buffer_sizes\":[0,64],"
    "\"non_const_buffer_device\":[{\"buffer_idx\":1,\"device_type\":\"CUDA\",\"device_index\":3}]}],"
    "\"constant_buffer\":[{\"storage\":[]},{\"storage\":[1,2,3,4,5]}],"
    "\"backend_delegate_data\":[{\"data\":[9,8,7]}],"
    "\"segments\":[{\"size\":40},{\"offset\":128,\"size\":12}],"
    "\"constant_segment\":{\"offsets\":[0,0,32]},"
    "\"mutable_data_segments\":[{\"segment_index\":1,\"offsets\":[0,8]}],"
    "\"named_data\":[{\"key\":\"blob\",\"segment_index\":1}]}";

TEST(builder_program_matches_flatc) {
  CHECK_MSG(flatc() != NULL, "PTE_FLATC not set (flatc is needed)");
  pte_fb_builder b;
  pte_fb_builder_init(&b, pte_heap_realloc, NULL);
  const uint8_t *out = NULL;
  size_t size = 0;
  pte_status s = build_program(&b, &out, &size);
  if (s != PTE_OK) pte_fb_builder_free(&b);
  CHECK_OK(s);
  CHECK(pte_fb_has_identifier(out, size, "ET12"));
  CHECK_EQ_INT(size % 16, 0);
  pte_error_info err = {0};
  s = pte_et_verify_root(out, size, &err);
  CHECK_MSG(s == PTE_OK, "verify: %s", err.msg);
  /* force_align: element data 16-aligned relative to the buffer start */
  pte_fb_table prog = pte_et_root(out, size);
  pte_fb_vec st = pte_et_Buffer_storage(pte_fb_vec_table(pte_et_Program_constant_buffer(prog), 1));
  CHECK_EQ_INT(st.len, 5);
  CHECK_EQ_INT(st.data % 16, 0);
  pte_fb_vec dd = pte_et_BackendDelegateInlineData_data(pte_fb_vec_table(pte_et_Program_backend_delegate_data(prog), 0));
  CHECK_EQ_INT(dd.len, 3);
  CHECK_EQ_INT(dd.data % 16, 0);
  /* default elision: storage_offset was added with its default value */
  pte_fb_table t0 = pte_et_EValue_val(pte_fb_vec_table(pte_et_ExecutionPlan_values(pte_fb_vec_table(pte_et_Program_execution_plan(prog), 0)), 0));
  CHECK(!pte_et_Tensor_storage_offset_present(t0));
  CHECK(pte_et_Tensor_layout_present(t0));

  char *sparse = flatc_decode("program.fbs", out, size, "built_program_sparse", false);
  char *full = flatc_decode("program.fbs", out, size, "built_program_full", true);
  char *ours_sparse = our_json(pte_et_Program_to_json, out, size, PTE_FB_JSON_OMIT_DEFAULTS, false);
  char *ours_full = our_json(pte_et_Program_to_json, out, size, 0, true);
  pte_fb_builder_free(&b);
  char diff[1024];
  bool ok1 = sparse && json_texts_equal(k_built_program_json, sparse, diff, sizeof diff);
  if (!ok1) test_fail(__FILE__, __LINE__, "intended vs flatc: %s", sparse ? diff : "flatc failed");
  bool ok2 = ok1 && json_texts_equal(k_built_program_json, ours_sparse, diff, sizeof diff);
  if (ok1 && !ok2) test_fail(__FILE__, __LINE__, "intended vs ours (sparse): %s", diff);
  bool ok3 = ok2 && full && json_texts_equal(ours_full, full, diff, sizeof diff);
  if (ok2 && !ok3) test_fail(__FILE__, __LINE__, "ours vs flatc (defaults): %s", full ? diff : "flatc failed");
  free(sparse);
  free(full);
  free(ours_sparse);
  free(ours_full);
  CHECK(ok1 && ok2 && ok3);
}

TEST(builder_bundled_and_flat_tensor_match_flatc) {
  CHECK_MSG(flatc() != NULL, "PTE_FLATC not set (flatc is needed)");
  /* BundledProgram wrapping 40 bytes, with a Tensor input (data force_align 16) and a Double. */
  pte_fb_builder b;
  pte_fb_builder_init(&b, pte_heap_realloc, NULL);
  int32_t sz[] = {2};
  uint8_t data[8] = {1, 0, 0, 0, 2, 0, 0, 0}, dord[] = {0}, inner[40];
  for (int i = 0; i < 40; i++) inner[i] = (uint8_t)(i * 3);
  pte_fb_ref r_sz = pte_bp_Tensor_create_sizes(&b, sz, 1);
  pte_fb_ref r_data = pte_bp_Tensor_create_data(&b, data, 8);
  pte_fb_ref r_dord = pte_bp_Tensor_create_dim_order(&b, dord, 1);
  pte_bp_Tensor_start(&b);
  pte_bp_Tensor_add_scalar_type(&b, pte_st_ScalarType_INT);
  pte_bp_Tensor_add_sizes(&b, r_sz);
  pte_bp_Tensor_add_data(&b, r_data);
  pte_bp_Tensor_add_dim_order(&b, r_dord);
  pte_fb_ref r_t = pte_bp_Tensor_end(&b);
  pte_bp_Double_start(&b);
  pte_bp_Double_add_double_val(&b, -3.75e-5);
  pte_fb_ref r_d = pte_bp_Double_end(&b);
  pte_bp_Value_start(&b);
  pte_bp_Value_add_val_type(&b, pte_bp_ValueUnion_Tensor);
  pte_bp_Value_add_val(&b, r_t);
  pte_fb_ref r_v0 = pte_bp_Value_end(&b);
  pte_bp_Value_start(&b);
  pte_bp_Value_add_val_type(&b, pte_bp_ValueUnion_Double);
  pte_bp_Value_add_val(&b, r_d);
  pte_fb_ref r_v1 = pte_bp_Value_end(&b);
  pte_fb_ref r_ins = pte_bp_BundledMethodTestCase_create_inputs(&b, &r_v0, 1);
  pte_fb_ref r_outs = pte_bp_BundledMethodTestCase_create_expected_outputs(&b, &r_v1, 1);
  pte_bp_BundledMethodTestCase_start(&b);
  pte_bp_BundledMethodTestCase_add_inputs(&b, r_ins);
  pte_bp_BundledMethodTestCase_add_expected_outputs(&b, r_outs);
  pte_fb_ref r_case = pte_bp_BundledMethodTestCase_end(&b);
  pte_fb_ref r_cases = pte_bp_BundledMethodTestSuite_create_test_cases(&b, &r_case, 1);
  pte_fb_ref r_mn = mkstr(&b, "forward");
  pte_bp_BundledMethodTestSuite_start(&b);
  pte_bp_BundledMethodTestSuite_add_method_name(&b, r_mn);
  pte_bp_BundledMethodTestSuite_add_test_cases(&b, r_cases);
  pte_fb_ref r_suite = pte_bp_BundledMethodTestSuite_end(&b);
  pte_fb_ref r_suites = pte_bp_BundledProgram_create_method_test_suites(&b, &r_suite, 1);
  pte_fb_ref r_prog = pte_bp_BundledProgram_create_program(&b, inner, 40);
  pte_bp_BundledProgram_start(&b);
  pte_bp_BundledProgram_add_version(&b, 8);
  pte_bp_BundledProgram_add_method_test_suites(&b, r_suites);
  pte_bp_BundledProgram_add_program(&b, r_prog);
  pte_fb_ref r_root = pte_bp_BundledProgram_end(&b);
  const uint8_t *out;
  size_t size;
  pte_status s = pte_bp_finish(&b, r_root, &out, &size);
  if (s != PTE_OK) pte_fb_builder_free(&b);
  CHECK_OK(s);
  CHECK(pte_fb_has_identifier(out, size, "BP08"));
  CHECK_OK(pte_bp_verify_root(out, size, NULL));
  pte_fb_table root = pte_bp_root(out, size);
  pte_fb_vec pv = pte_bp_BundledProgram_program(root);
  CHECK_EQ_INT(pv.len, 40);
  CHECK_EQ_INT(pv.data % 32, 0);
  pte_fb_table tc = pte_fb_vec_table(pte_bp_BundledMethodTestSuite_test_cases(pte_fb_vec_table(pte_bp_BundledProgram_method_test_suites(root), 0)), 0);
  pte_fb_vec tdata = pte_bp_Tensor_data(pte_bp_Value_val(pte_fb_vec_table(pte_bp_BundledMethodTestCase_inputs(tc), 0)));
  CHECK_EQ_INT(tdata.data % 16, 0);
  char *theirs = flatc_decode("bundled_program.fbs", out, size, "built_bundled", false);
  pte_fb_builder_free(&b);
  CHECK(theirs);
  char expect[2048];
  size_t o = (size_t)snprintf(expect, sizeof expect,
                              "{\"version\":8,\"method_test_suites\":[{\"method_name\":\"forward\",\"test_cases\":[{"
                              "\"inputs\":[{\"val_type\":\"Tensor\",\"val\":{\"scalar_type\":\"INT\",\"sizes\":[2],"
                              "\"data\":[1,0,0,0,2,0,0,0],\"dim_order\":[0]}}],"
                              "\"expected_outputs\":[{\"val_type\":\"Double\",\"val\":{\"double_val\":-0.0000375}}]}]}],"
                              "\"program\":[");
  for (int i = 0; i < 40; i++) o += (size_t)snprintf(expect + o, sizeof expect - o, "%s%d", i ? "," : "", i * 3);
  snprintf(expect + o, sizeof expect - o, "]}");
  char diff[1024];
  bool ok = json_texts_equal(expect, theirs, diff, sizeof diff);
  free(theirs);
  CHECK_MSG(ok, "bundled: intended vs flatc: %s", diff);

  /* FlatTensor with one layout-carrying entry and one opaque blob */
  pte_fb_builder_init(&b, pte_heap_realloc, NULL);
  int32_t lsz[] = {4, 1};
  uint8_t ldo[] = {1, 0};
  pte_fb_ref r_lsz = pte_ft_TensorLayout_create_sizes(&b, lsz, 2);
  pte_fb_ref r_ldo = pte_ft_TensorLayout_create_dim_order(&b, ldo, 2);
  pte_ft_TensorLayout_start(&b);
  pte_ft_TensorLayout_add_scalar_type(&b, pte_st_ScalarType_BFLOAT16);
  pte_ft_TensorLayout_add_sizes(&b, r_lsz);
  pte_ft_TensorLayout_add_dim_order(&b, r_ldo);
  pte_fb_ref r_lay = pte_ft_TensorLayout_end(&b);
  pte_fb_ref r_k1 = mkstr(&b, "w"), r_k2 = mkstr(&b, "opaque");
  pte_ft_NamedData_start(&b);
  pte_ft_NamedData_add_key(&b, r_k1);
  pte_ft_NamedData_add_segment_index(&b, 1);
  pte_ft_NamedData_add_tensor_layout(&b, r_lay);
  pte_fb_ref r_n1 = pte_ft_NamedData_end(&b);
  pte_ft_NamedData_start(&b);
  pte_ft_NamedData_add_key(&b, r_k2);
  pte_fb_ref r_n2 = pte_ft_NamedData_end(&b);
  pte_fb_ref nds[] = {r_n1, r_n2};
  pte_fb_ref r_nds = pte_ft_FlatTensor_create_named_data(&b, nds, 2);
  pte_ft_DataSegment_start(&b);
  pte_ft_DataSegment_add_offset(&b, 256);
  pte_ft_DataSegment_add_size(&b, 8);
  pte_fb_ref r_seg = pte_ft_DataSegment_end(&b);
  pte_fb_ref r_segs = pte_ft_FlatTensor_create_segments(&b, &r_seg, 1);
  pte_ft_FlatTensor_start(&b);
  pte_ft_FlatTensor_add_version(&b, 3);
  pte_ft_FlatTensor_add_segments(&b, r_segs);
  pte_ft_FlatTensor_add_named_data(&b, r_nds);
  r_root = pte_ft_FlatTensor_end(&b);
  s = pte_ft_finish(&b, r_root, &out, &size);
  if (s != PTE_OK) pte_fb_builder_free(&b);
  CHECK_OK(s);
  CHECK(pte_fb_has_identifier(out, size, "FT01"));
  CHECK_OK(pte_ft_verify_root(out, size, NULL));
  theirs = flatc_decode("flat_tensor.fbs", out, size, "built_flat_tensor", true);
  char *ours = our_json(pte_ft_FlatTensor_to_json, out, size, 0, false);
  pte_fb_builder_free(&b);
  CHECK(theirs);
  static const char want[] =
      "{\"version\":3,\"segments\":[{\"offset\":256,\"size\":8}],\"named_data\":["
      "{\"key\":\"w\",\"segment_index\":1,\"tensor_layout\":{\"scalar_type\":\"BFLOAT16\",\"sizes\":[4,1],\"dim_order\":[1,0]}},"
      "{\"key\":\"opaque\",\"segment_index\":0}]}";
  ok = json_texts_equal(want, theirs, diff, sizeof diff);
  bool ok2 = ok && json_texts_equal(want, ours, diff, sizeof diff);
  free(theirs);
  free(ours);
  CHECK_MSG(ok, "flat_tensor: intended vs flatc: %s", diff);
  CHECK_MSG(ok2, "flat_tensor: intended vs ours: %s", diff);
}

int main(void) {
  RUN(corpus_matches_flatc);
  RUN(corpus_accessors);
  RUN(builder_program_matches_flatc);
  RUN(builder_bundled_and_flat_tensor_match_flatc);
  return test_summary();
}
