#define _POSIX_C_SOURCE 200809L
/* The program builder / writer: exact upstream layout (segment order and offsets, constant
 * packing, header fields), every value and instruction kind, delegates (inline, segments,
 * shared handles, scratch), dedup, the memory planner. Sources, streaming, errors and the .ptd
 * writer: test_writer_stream.c. */

#include "pte/backend.h"
#include "pte/headers.h"
#include "test_writer_util.h"

static pte_fb_table root_of(const uint8_t *b, size_t n) { return pte_fb_root(b, n); }

static bool all_zero(const uint8_t *p, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (p[i]) return false;
  return true;
}

/* ------------------------------------------------------------------ layout */

/* The layout upstream's serializer produced for: constants of 0 (placeholder), 24 and 8 bytes;
 * one 12-byte mutable buffer; one 40-byte delegate blob; one 10-byte named blob aligned to 64:
 * constant offsets [0,0,32], segment 40 B @0, mutable @128, delegate @256, named @384,
 * segment_data_size 394 (format reference §1.1 / §1.3, verified by running the serializer). */
TEST(upstream_layout_example) {
  pte_writer *w = tw_new_writer(NULL);
  CHECK(w);
  pte_error_info err;
  uint8_t c24[24], c8[8], mut[12], blob[40], named[10];
  for (int i = 0; i < 24; i++) c24[i] = (uint8_t)(0x10 + i);
  for (int i = 0; i < 8; i++) c8[i] = (uint8_t)(0x80 + i);
  for (int i = 0; i < 12; i++) mut[i] = (uint8_t)(0x40 + i);
  for (int i = 0; i < 40; i++) blob[i] = (uint8_t)(0xA0 + i);
  for (int i = 0; i < 10; i++) named[i] = (uint8_t)(0xC0 + i);
  uint32_t i1, i2, mi, b1, b2, m;
  pte_source s;
  s = pte_source_memory(c24, 24);
  CHECK_OK(pte_writer_add_constant(w, &s, &i1, &err));
  s = pte_source_memory(c8, 8);
  CHECK_OK(pte_writer_add_constant(w, &s, &i2, &err));
  CHECK_EQ_INT(i1, 1);
  CHECK_EQ_INT(i2, 2);
  s = pte_source_memory(mut, 12);
  CHECK_OK(pte_writer_add_mutable(w, &s, &mi, &err));
  CHECK_EQ_INT(mi, 1);
  s = pte_source_memory(blob, 40);
  CHECK_OK(pte_writer_add_blob(w, &s, &b1, &err));
  s = pte_source_memory(named, 10);
  CHECK_OK(pte_writer_add_blob(w, &s, &b2, &err));
  CHECK_OK(pte_writer_add_named_data(w, "weights", b2, 64, &err));
  CHECK_OK(pte_writer_add_method(w, "forward", &m, &err));
  pte_wr_delegate d;
  memset(&d, 0, sizeof d);
  d.id = "TestBackend";
  d.blob = b1;
  CHECK_OK(pte_writer_add_delegate(w, m, &d, NULL, &err));
  /* tensors using the data (shape matches the source size) */
  int32_t s6[1] = {6}, s2[1] = {2}, s3[1] = {3};
  pte_wr_tensor t;
  memset(&t, 0, sizeof t);
  t.dtype = PTE_DTYPE_FLOAT;
  t.dim = 1;
  t.sizes = s6;
  t.constant = i1;
  CHECK_OK(pte_writer_add_tensor(w, m, &t, NULL, &err));
  t.sizes = s2;
  t.constant = i2;
  CHECK_OK(pte_writer_add_tensor(w, m, &t, NULL, &err));
  t.sizes = s3;
  t.constant = 0;
  t.plan = PTE_WR_PLAN_EXPLICIT;
  t.mem_id = 1;
  t.mutable_init = mi;
  CHECK_OK(pte_writer_add_tensor(w, m, &t, NULL, &err));

  pte_writer_layout L;
  CHECK_OK(pte_writer_compute_layout(w, &L, &err));
  size_t n = 0;
  uint8_t *b = tw_write_mem(w, &n, &err);
  CHECK(b);
  CHECK_EQ_INT(L.n_segments, 4);
  CHECK_EQ_INT(L.constant_segment_size, 40);
  CHECK_EQ_INT(L.segment_data_size, 394);
  CHECK_EQ_INT(L.header_length, 32);
  CHECK_EQ_INT(L.padded_header_length, 32);
  CHECK_EQ_INT(L.segment_base_offset, (L.program_size + 127) / 128 * 128);
  CHECK_EQ_INT(n, L.file_size);
  CHECK_EQ_INT(n, L.segment_base_offset + 394);
  /* header bytes */
  CHECK(memcmp(b + 4, "ET12", 4) == 0);
  CHECK(memcmp(b + 8, "eh00", 4) == 0);
  CHECK_EQ_INT(pte_fb_ld_u32(b + 12), 32);
  CHECK_EQ_INT(pte_fb_ld_u64(b + 16), L.program_size);
  CHECK_EQ_INT(pte_fb_ld_u64(b + 24), L.segment_base_offset);
  CHECK_EQ_INT(pte_fb_ld_u64(b + 32), 394);
  CHECK(all_zero(b + L.program_size, L.segment_base_offset - L.program_size));
  /* segments table */
  pte_fb_table rt = root_of(b, n);
  pte_fb_vec segs = pte_et_Program_segments(rt);
  CHECK_EQ_INT(segs.len, 4);
  const uint64_t exp_off[4] = {0, 128, 256, 384}, exp_size[4] = {40, 12, 40, 10};
  for (uint32_t i = 0; i < 4; i++) {
    pte_fb_table sg = pte_fb_vec_table(segs, i);
    CHECK_EQ_INT(pte_et_DataSegment_offset(sg), exp_off[i]);
    CHECK_EQ_INT(pte_et_DataSegment_size(sg), exp_size[i]);
  }
  pte_fb_table cs = pte_et_Program_constant_segment(rt);
  CHECK_EQ_INT(pte_et_SubsegmentOffsets_segment_index(cs), 0);
  pte_fb_vec offs = pte_et_SubsegmentOffsets_offsets(cs);
  CHECK_EQ_INT(offs.len, 3);
  CHECK_EQ_INT(pte_fb_vec_u64(offs, 0), 0);
  CHECK_EQ_INT(pte_fb_vec_u64(offs, 1), 0);
  CHECK_EQ_INT(pte_fb_vec_u64(offs, 2), 32);
  pte_fb_vec ms = pte_et_Program_mutable_data_segments(rt);
  CHECK_EQ_INT(ms.len, 1);
  CHECK_EQ_INT(pte_et_SubsegmentOffsets_segment_index(pte_fb_vec_table(ms, 0)), 1);
  pte_fb_vec moffs = pte_et_SubsegmentOffsets_offsets(pte_fb_vec_table(ms, 0));
  CHECK_EQ_INT(moffs.len, 2);
  CHECK_EQ_INT(pte_fb_vec_u64(moffs, 1), 0);
  CHECK_EQ_INT(pte_et_Program_constant_buffer(rt).len, 0);
  CHECK_EQ_INT(pte_et_Program_backend_delegate_data(rt).len, 0);
  pte_fb_table del = pte_fb_vec_table(pte_et_ExecutionPlan_delegates(pte_fb_vec_table(pte_et_Program_execution_plan(rt), 0)), 0);
  pte_fb_table ref = pte_et_BackendDelegate_processed(del);
  CHECK_EQ_INT(pte_et_BackendDelegateDataReference_location(ref), pte_et_DataLocation_SEGMENT);
  CHECK_EQ_INT(pte_et_BackendDelegateDataReference_index(ref), 2);
  CHECK(!pte_et_BackendDelegate_share_handle_present(del)); /* pte extensions absent unless used */
  CHECK(!pte_et_BackendDelegate_scratch_present(del));
  pte_fb_vec nd = pte_et_Program_named_data(rt);
  CHECK_EQ_INT(nd.len, 1);
  CHECK_EQ_INT(pte_et_NamedData_segment_index(pte_fb_vec_table(nd, 0)), 3);
  /* segment bytes, including the padding between entries */
  const uint8_t *base = b + L.segment_base_offset;
  CHECK(memcmp(base, c24, 24) == 0);
  CHECK(all_zero(base + 24, 8));
  CHECK(memcmp(base + 32, c8, 8) == 0);
  CHECK(all_zero(base + 40, 88));
  CHECK(memcmp(base + 128, mut, 12) == 0);
  CHECK(memcmp(base + 256, blob, 40) == 0);
  CHECK(memcmp(base + 384, named, 10) == 0);
  /* and it loads */
  tw_prog p;
  CHECK_OK(tw_load_bytes(&p, b, n));
  const void *cd = NULL;
  CHECK_OK(pte_program_constant_data(&p.prog, 2, 8, &cd));
  CHECK(memcmp(cd, c8, 8) == 0);
  uint8_t mbuf[12];
  CHECK_OK(pte_program_load_mutable_into(&p.prog, 0, 1, 12, mbuf));
  CHECK(memcmp(mbuf, mut, 12) == 0);
  pte_freeable_buffer fb;
  CHECK_OK(pte_named_data_map_get_data(pte_program_named_data_map(&p.prog), "weights", &fb));
  CHECK(fb.size == 10 && memcmp(fb.data, named, 10) == 0);
  pte_freeable_buffer_free(&fb);
  tw_free(&p);
  free(b);
  pte_writer_destroy(w);
}

/* No segment bytes: no header, the file is the bare flatbuffer, constant segment 0 still listed
 * with the placeholder (as upstream writes it). */
TEST(no_segment_data_no_header) {
  pte_writer *w = tw_new_writer(NULL);
  pte_error_info err;
  uint32_t m;
  CHECK_OK(pte_writer_add_method(w, "forward", &m, &err));
  CHECK_OK(pte_writer_add_int(w, m, 7, NULL, &err));
  pte_writer_layout L;
  CHECK_OK(pte_writer_compute_layout(w, &L, &err));
  CHECK_EQ_INT(L.header_length, 0);
  CHECK_EQ_INT(L.segment_base_offset, 0);
  size_t n = 0;
  uint8_t *b = tw_write_mem(w, &n, &err);
  CHECK(b);
  CHECK_EQ_INT(n, L.file_size);
  CHECK(memcmp(b + 8, "eh00", 4) != 0);
  pte_fb_table rt = root_of(b, n);
  pte_fb_vec segs = pte_et_Program_segments(rt);
  CHECK_EQ_INT(segs.len, 1);
  CHECK_EQ_INT(pte_et_DataSegment_size(pte_fb_vec_table(segs, 0)), 0);
  pte_fb_vec offs = pte_et_SubsegmentOffsets_offsets(pte_et_Program_constant_segment(rt));
  CHECK_EQ_INT(offs.len, 1);
  CHECK(!pte_et_Program_mutable_data_segments_present(rt));
  CHECK(!pte_et_Program_named_data_present(rt));
  tw_prog p;
  CHECK_OK(tw_load_bytes(&p, b, n));
  CHECK_EQ_INT(pte_program_constant_storage(&p.prog), PTE_CONSTANTS_NONE);
  /* one empty chain was added: the runtime needs one */
  pte_fb_table plan = pte_fb_vec_table(pte_et_Program_execution_plan(rt), 0);
  CHECK_EQ_INT(pte_et_ExecutionPlan_chains(plan).len, 1);
  CHECK_EQ_INT(pte_et_ExecutionPlan_non_const_buffer_sizes(plan).len, 1);
  tw_free(&p);
  free(b);
  pte_writer_destroy(w);
}

TEST(alignment_options) {
  pte_writer_options o;
  memset(&o, 0, sizeof o);
  o.segment_alignment = 16384;
  o.tensor_alignment = 64;
  pte_writer *w = tw_new_writer(&o);
  pte_error_info err;
  uint8_t a[10] = {1}, b2[100] = {2}, c[5] = {3};
  pte_source s;
  s = pte_source_memory(a, 10);
  CHECK_OK(pte_writer_add_constant(w, &s, NULL, &err));
  s = pte_source_memory(b2, 100);
  CHECK_OK(pte_writer_add_constant(w, &s, NULL, &err));
  s = pte_source_memory(c, 5);
  uint32_t bl;
  CHECK_OK(pte_writer_add_blob(w, &s, &bl, &err));
  uint32_t m;
  CHECK_OK(pte_writer_add_method(w, "forward", &m, &err));
  pte_wr_delegate d;
  memset(&d, 0, sizeof d);
  d.id = "X";
  d.blob = bl;
  CHECK_OK(pte_writer_add_delegate(w, m, &d, NULL, &err));
  pte_writer_layout L;
  CHECK_OK(pte_writer_compute_layout(w, &L, &err));
  CHECK_EQ_INT(L.padded_header_length, 64); /* 32 rounded up to max(tensor, delegate) alignment */
  CHECK_EQ_INT(L.segment_base_offset % 16384, 0);
  CHECK_EQ_INT(L.constant_segment_size, 64 + 100);
  size_t n = 0;
  uint8_t *bytes = tw_write_mem(w, &n, &err);
  CHECK(bytes);
  pte_fb_table rt = root_of(bytes, n);
  pte_fb_vec offs = pte_et_SubsegmentOffsets_offsets(pte_et_Program_constant_segment(rt));
  CHECK_EQ_INT(pte_fb_vec_u64(offs, 2), 64);
  CHECK_EQ_INT(pte_et_DataSegment_offset(pte_fb_vec_table(pte_et_Program_segments(rt), 1)), 16384);
  CHECK_EQ_INT(n, L.segment_base_offset + 16384 + 5);
  CHECK(all_zero(bytes + 40, 32)); /* header padding 40..72 */
  tw_prog p;
  CHECK_OK(tw_load_bytes(&p, bytes, n));
  tw_free(&p);
  free(bytes);
  pte_writer_destroy(w);
}

/* ------------------------------------------------------------------ values and instructions */
TEST(every_value_and_instruction_kind) {
  pte_writer *w = tw_new_writer(NULL);
  pte_error_info err;
  uint32_t m, ch, op, op2;
  CHECK_OK(pte_writer_add_method(w, "all", &m, &err));
  int32_t v_null, v_int, v_bool, v_dbl, v_str, v_il, v_dl, v_bl, v_t0, v_t1, v_tl, v_otl, v_big;
  CHECK_OK(pte_writer_add_null(w, m, &v_null, &err));
  CHECK_OK(pte_writer_add_int(w, m, -1234567890123LL, &v_int, &err));
  CHECK_OK(pte_writer_add_bool(w, m, true, &v_bool, &err));
  CHECK_OK(pte_writer_add_double(w, m, -2.5, &v_dbl, &err));
  CHECK_OK(pte_writer_add_string(w, m, "hi\0there", 8, &v_str, &err));
  int64_t il[3] = {1, 1, 0};
  CHECK_OK(pte_writer_add_int_list(w, m, il, 3, &v_il, &err));
  double dl[2] = {0.5, 1e300};
  CHECK_OK(pte_writer_add_double_list(w, m, dl, 2, &v_dl, &err));
  bool bl[3] = {true, false, true};
  CHECK_OK(pte_writer_add_bool_list(w, m, bl, 3, &v_bl, &err));
  int32_t sz[3] = {2, 3, 4};
  uint8_t order[3] = {0, 2, 1};
  pte_wr_tensor t;
  memset(&t, 0, sizeof t);
  t.dtype = PTE_DTYPE_HALF;
  t.dim = 3;
  t.sizes = sz;
  t.dim_order = order;
  t.dynamism = PTE_SHAPE_DYNAMIC_BOUND;
  t.requires_grad = true;
  t.layout = 0;
  t.plan = PTE_WR_PLAN_EXPLICIT;
  t.mem_id = 2;
  t.mem_offset = 4096;
  t.device_type = 1;
  t.device_index = 3;
  CHECK_OK(pte_writer_add_tensor(w, m, &t, &v_t0, &err));
  memset(&t, 0, sizeof t);
  t.dtype = PTE_DTYPE_FLOAT;
  t.dim = 0; /* 0-dim */
  t.external = true;
  t.fqn = "model.weight";
  t.external_buffer_idx = 5;
  CHECK_OK(pte_writer_add_tensor(w, m, &t, &v_t1, &err));
  int32_t tl[2] = {v_t0, v_t1};
  CHECK_OK(pte_writer_add_tensor_list(w, m, tl, 2, &v_tl, &err));
  int32_t otl[3] = {v_t1, -1, v_null};
  CHECK_OK(pte_writer_add_optional_tensor_list(w, m, otl, 3, &v_otl, &err));
  memset(&t, 0, sizeof t);
  t.dtype = PTE_DTYPE_BYTE;
  t.dim = 1;
  int32_t one[1] = {16};
  t.sizes = one;
  t.plan = PTE_WR_PLAN_EXPLICIT;
  t.mem_id = 1;
  t.mem_offset = (5ULL << 32) + 16; /* past 4 GiB: offset_high */
  CHECK_OK(pte_writer_add_tensor(w, m, &t, &v_big, &err));
  int32_t ins[1] = {v_t0}, outs[1] = {v_tl};
  CHECK_OK(pte_writer_set_inputs(w, m, ins, 1, &err));
  CHECK_OK(pte_writer_set_outputs(w, m, outs, 1, &err));
  CHECK_OK(pte_writer_add_operator(w, m, "aten::add", "out", &op, &err));
  CHECK_OK(pte_writer_add_operator(w, m, "aten::mul", NULL, &op2, &err));
  uint32_t again;
  CHECK_OK(pte_writer_add_operator(w, m, "aten::add", "out", &again, &err));
  CHECK_EQ_INT(again, op);
  int32_t cin[1] = {v_t0};
  CHECK_OK(pte_writer_add_chain(w, m, cin, 1, NULL, 0, &ch, &err));
  uint8_t blob[3] = {9, 8, 7};
  pte_source s = pte_source_memory(blob, 3);
  uint32_t b, dg;
  CHECK_OK(pte_writer_add_blob(w, &s, &b, &err));
  pte_wr_compile_spec spec = {"level", "\x02\x00", 2};
  pte_wr_delegate d;
  memset(&d, 0, sizeof d);
  d.id = "B";
  d.blob = b;
  d.compile_specs = &spec;
  d.n_compile_specs = 1;
  CHECK_OK(pte_writer_add_delegate(w, m, &d, &dg, &err));
  int32_t args[3] = {v_t0, v_t1, v_int};
  uint32_t idx;
  CHECK_OK(pte_writer_add_kernel_call(w, m, ch, op, args, 3, &idx, &err));
  CHECK_EQ_INT(idx, 0);
  CHECK_OK(pte_writer_add_delegate_call(w, m, ch, dg, args, 2, &idx, &err));
  CHECK_OK(pte_writer_add_move_call(w, m, ch, v_t0, v_t1, &idx, &err));
  CHECK_OK(pte_writer_add_jump_false_call(w, m, ch, v_bool, 0, &idx, &err));
  CHECK_OK(pte_writer_add_free_call(w, m, ch, v_t0, &idx, &err));
  CHECK_EQ_INT(idx, 4);
  pte_wr_frame fr[2] = {{"model.py", 12, "forward", "x + y"}, {"torch.py", 99, NULL, NULL}};
  CHECK_OK(pte_writer_set_stacktrace(w, m, ch, 0, fr, 2, &err));
  CHECK_OK(pte_writer_set_container_meta(w, m, "in-spec", "out-spec", &err));
  CHECK_OK(pte_writer_set_buffer_device(w, m, 2, 1, 0, &err));
  pte_writer_set_version(w, 0);
  size_t n = 0;
  uint8_t *bytes = tw_write_mem(w, &n, &err);
  CHECK_MSG(bytes, "write: %s", err.msg);
  pte_fb_table rt = root_of(bytes, n);
  pte_fb_table plan = pte_fb_vec_table(pte_et_Program_execution_plan(rt), 0);
  pte_fb_vec vals = pte_et_ExecutionPlan_values(plan);
  CHECK_EQ_INT(vals.len, 13);
#define VAL(i) pte_et_EValue_val(pte_fb_vec_table(vals, (uint32_t)(i)))
#define TAG(i) pte_et_EValue_val_type(pte_fb_vec_table(vals, (uint32_t)(i)))
  CHECK_EQ_INT(TAG(v_null), pte_et_KernelTypes_Null);
  CHECK_EQ_INT(pte_et_Int_int_val(VAL(v_int)), -1234567890123LL);
  CHECK_EQ_INT(pte_et_Bool_bool_val(VAL(v_bool)), 1);
  CHECK_NEAR(pte_et_Double_double_val(VAL(v_dbl)), -2.5, 0);
  pte_fb_str str = pte_et_String_string_val(VAL(v_str));
  CHECK(str.len == 8 && memcmp(str.ptr, "hi\0there", 8) == 0);
  pte_fb_vec x = pte_et_IntList_items(VAL(v_il));
  CHECK(x.len == 3 && pte_fb_vec_i64(x, 0) == 1 && pte_fb_vec_i64(x, 2) == 0);
  x = pte_et_DoubleList_items(VAL(v_dl));
  CHECK(x.len == 2 && pte_fb_vec_f64(x, 1) == 1e300);
  x = pte_et_BoolList_items(VAL(v_bl));
  CHECK(x.len == 3 && pte_fb_vec_u8(x, 0) == 1 && pte_fb_vec_u8(x, 1) == 0);
  pte_fb_table t0 = VAL(v_t0);
  CHECK_EQ_INT(pte_et_Tensor_scalar_type(t0), PTE_DTYPE_HALF);
  CHECK_EQ_INT(pte_fb_vec_u8(pte_et_Tensor_dim_order(t0), 1), 2);
  CHECK_EQ_INT(pte_et_Tensor_shape_dynamism(t0), 1);
  CHECK(pte_et_Tensor_requires_grad(t0));
  pte_fb_table al = pte_et_Tensor_allocation_info(t0);
  CHECK_EQ_INT(pte_et_AllocationDetails_memory_id(al), 2);
  CHECK_EQ_INT(pte_et_AllocationDetails_memory_offset_low(al), 4096);
  pte_fb_table ex = pte_et_Tensor_extra_tensor_info(t0);
  CHECK_EQ_INT(pte_et_ExtraTensorInfo_device_type(ex), 1);
  CHECK_EQ_INT(pte_et_ExtraTensorInfo_device_index(ex), 3);
  pte_fb_table t1 = VAL(v_t1);
  CHECK_EQ_INT(pte_et_Tensor_sizes(t1).len, 0);
  CHECK(pte_et_Tensor_sizes_present(t1) && pte_et_Tensor_dim_order_present(t1));
  CHECK_EQ_INT(pte_et_Tensor_data_buffer_idx(t1), 5);
  ex = pte_et_Tensor_extra_tensor_info(t1);
  CHECK_EQ_INT(pte_et_ExtraTensorInfo_location(ex), pte_et_TensorDataLocation_EXTERNAL);
  CHECK(tw_str_eq(pte_et_ExtraTensorInfo_fully_qualified_name(ex), (pte_fb_str){"model.weight", 12}));
  CHECK(!pte_et_Tensor_allocation_info_present(t1));
  al = pte_et_Tensor_allocation_info(VAL(v_big));
  CHECK_EQ_INT(pte_et_AllocationDetails_memory_offset_high(al), 5);
  CHECK_EQ_INT(pte_et_AllocationDetails_memory_offset_low(al), 16);
  x = pte_et_OptionalTensorList_items(VAL(v_otl));
  CHECK(x.len == 3 && pte_fb_vec_i32(x, 1) == -1);
  /* memory plan computed from the explicit placements: arena 1 ends past 5 GiB, arena 2 at
   * 4096 + 2*3*4*2 */
  pte_fb_vec sizes = pte_et_ExecutionPlan_non_const_buffer_sizes(plan);
  CHECK_EQ_INT(sizes.len, 3);
  CHECK_EQ_INT(pte_fb_vec_i64(sizes, 0), 0);
  CHECK_EQ_INT(pte_fb_vec_i64(sizes, 1), (5LL << 32) + 32);
  CHECK_EQ_INT(pte_fb_vec_i64(sizes, 2), 4096 + 48);
  pte_fb_vec dev = pte_et_ExecutionPlan_non_const_buffer_device(plan);
  CHECK_EQ_INT(dev.len, 1);
  CHECK_EQ_INT(pte_et_NonConstBufferDevice_buffer_idx(pte_fb_vec_table(dev, 0)), 2);
  pte_fb_table meta = pte_et_ExecutionPlan_container_meta_type(plan);
  CHECK(tw_str_eq(pte_et_ContainerMetadata_encoded_out_str(meta), (pte_fb_str){"out-spec", 8}));
  pte_fb_vec ops = pte_et_ExecutionPlan_operators(plan);
  CHECK_EQ_INT(ops.len, 2);
  CHECK(tw_str_eq(pte_et_Operator_overload(pte_fb_vec_table(ops, 1)), (pte_fb_str){"", 0}));
  pte_fb_table chain = pte_fb_vec_table(pte_et_ExecutionPlan_chains(plan), 0);
  pte_fb_vec inss = pte_et_Chain_instructions(chain);
  CHECK_EQ_INT(inss.len, 5);
  const uint8_t kinds[5] = {1, 2, 3, 4, 5};
  for (uint32_t i = 0; i < 5; i++) CHECK_EQ_INT(pte_et_Instruction_instr_args_type(pte_fb_vec_table(inss, i)), kinds[i]);
  pte_fb_table mv = pte_et_Instruction_instr_args(pte_fb_vec_table(inss, 2));
  CHECK(pte_et_MoveCall_move_from(mv) == v_t0 && pte_et_MoveCall_move_to(mv) == v_t1);
  pte_fb_table jf = pte_et_Instruction_instr_args(pte_fb_vec_table(inss, 3));
  CHECK_EQ_INT(pte_et_JumpFalseCall_cond_value_index(jf), v_bool);
  pte_fb_vec stack = pte_et_Chain_stacktrace(chain);
  CHECK_EQ_INT(stack.len, 5);
  pte_fb_vec frames = pte_et_FrameList_items(pte_fb_vec_table(stack, 0));
  CHECK_EQ_INT(frames.len, 2);
  CHECK_EQ_INT(pte_et_Frame_lineno(pte_fb_vec_table(frames, 1)), 99);
  CHECK_EQ_INT(pte_et_Chain_inputs(chain).len, 1);
  /* small blob with extraction on: segment */
  pte_fb_table del = pte_fb_vec_table(pte_et_ExecutionPlan_delegates(plan), 0);
  pte_fb_vec specs = pte_et_BackendDelegate_compile_specs(del);
  CHECK_EQ_INT(specs.len, 1);
  CHECK_EQ_INT(pte_et_CompileSpec_value(pte_fb_vec_table(specs, 0)).len, 2);
  /* the whole buffer verifies with the generated verifier */
  pte_fb_verifier v;
  pte_fb_verifier_init(&v, bytes, n, &err);
  uint32_t root = 0;
  CHECK_OK(pte_fb_verify_root(&v, "ET12", &root));
  CHECK_OK(pte_et_Program_verify(&v, root));
  free(bytes);
  pte_writer_destroy(w);
#undef VAL
#undef TAG
}

/* x + c with c = [1, 2, 3]: built, planned, written, loaded and executed. */
static pte_writer *build_add_model(pte_error_info *err, const float *c, bool mutable_c) {
  pte_writer *w = tw_new_writer(NULL);
  uint32_t m, ch, op;
  int32_t x, cv, one, out;
  int32_t sz[1] = {3};
  pte_wr_tensor t;
  memset(&t, 0, sizeof t);
  t.dtype = PTE_DTYPE_FLOAT;
  t.dim = 1;
  t.sizes = sz;
  t.plan = PTE_WR_PLAN_AUTO;
  pte_source src = pte_source_memory(c, 12);
  if (pte_writer_add_method(w, "forward", &m, err) != PTE_OK || pte_writer_add_tensor(w, m, &t, &x, err) != PTE_OK) return NULL;
  if (mutable_c) {
    uint32_t mi;
    if (pte_writer_add_mutable(w, &src, &mi, err) != PTE_OK) return NULL;
    pte_wr_tensor tc = t;
    tc.mutable_init = mi;
    if (pte_writer_add_tensor(w, m, &tc, &cv, err) != PTE_OK) return NULL;
  } else {
    pte_wr_tensor tc = t;
    tc.plan = PTE_WR_PLAN_NONE;
    if (pte_writer_add_constant_tensor(w, m, &tc, &src, &cv, err) != PTE_OK) return NULL;
  }
  if (pte_writer_add_int(w, m, 1, &one, err) != PTE_OK || pte_writer_add_tensor(w, m, &t, &out, err) != PTE_OK) return NULL;
  if (pte_writer_add_operator(w, m, "aten::add", "out", &op, err) != PTE_OK) return NULL;
  if (pte_writer_add_chain(w, m, NULL, 0, NULL, 0, &ch, err) != PTE_OK) return NULL;
  int32_t args[5] = {x, cv, one, out, out};
  if (pte_writer_add_kernel_call(w, m, ch, op, args, 5, NULL, err) != PTE_OK) return NULL;
  if (pte_writer_set_inputs(w, m, &x, 1, err) != PTE_OK || pte_writer_set_outputs(w, m, &out, 1, err) != PTE_OK) return NULL;
  return w;
}

static void run_add(const pte_program *p, float *out3, pte_status *st) {
  tw_run r;
  tw_run_method(p, "forward", NULL, &r);
  *st = r.load_status != PTE_OK ? r.load_status : r.exec_status;
  if (*st == PTE_OK && r.nbytes[0] == 12) memcpy(out3, r.data[0], 12);
  tw_run_free(&r);
}

TEST(built_model_runs) {
  pte_error_info err;
  float c[3] = {1, 2, 3};
  for (int mut = 0; mut < 2; mut++) {
    pte_writer *w = build_add_model(&err, c, mut == 1);
    CHECK_MSG(w, "build: %s", err.msg);
    tw_prog p;
    CHECK_OK(tw_write_and_load(w, &p, &err));
    float out[3] = {0};
    pte_status st;
    run_add(&p.prog, out, &st);
    CHECK_OK(st);
    /* tw_fill for input 0: ((k*7) % 11 - 5) * 0.25 -> -1.25, 0.5, -0.5 (k = 0, 1, 2) */
    CHECK_NEAR(out[0], -1.25 + 1, 0);
    CHECK_NEAR(out[1], 0.5 + 2, 0);
    CHECK_NEAR(out[2], -0.5 + 3, 0);
    /* planner: input, constant/mutable buffer and output; output reuses nothing live */
    pte_fb_table plan = pte_fb_vec_table(pte_et_Program_execution_plan(tw_root(&p.prog)), 0);
    pte_fb_vec sizes = pte_et_ExecutionPlan_non_const_buffer_sizes(plan);
    CHECK_EQ_INT(sizes.len, 2);
    CHECK_EQ_INT(pte_fb_vec_i64(sizes, 1), mut ? 48 : 32);
    tw_free(&p);
    pte_writer_destroy(w);
  }
}

/* ------------------------------------------------------------------ dedup, delegates */
TEST(dedup_identical_data) {
  uint8_t a[32], b[32], c[32];
  for (int i = 0; i < 32; i++) a[i] = b[i] = (uint8_t)i, c[i] = (uint8_t)(i + 1);
  for (int dedup = 0; dedup < 2; dedup++) {
    pte_writer_options o;
    memset(&o, 0, sizeof o);
    o.no_dedup = !dedup;
    pte_writer *w = tw_new_writer(&o);
    pte_error_info err;
    pte_source s;
    uint32_t i1, i2, i3, b1, b2, b3;
    s = pte_source_memory(a, 32);
    CHECK_OK(pte_writer_add_constant(w, &s, &i1, &err));
    s = pte_source_memory(b, 32);
    CHECK_OK(pte_writer_add_constant(w, &s, &i2, &err));
    s = pte_source_memory(c, 32);
    CHECK_OK(pte_writer_add_constant(w, &s, &i3, &err));
    s = pte_source_memory(a, 32);
    CHECK_OK(pte_writer_add_blob(w, &s, &b1, &err));
    s = pte_source_memory(b, 32);
    CHECK_OK(pte_writer_add_blob(w, &s, &b2, &err));
    s = pte_source_memory(c, 32);
    CHECK_OK(pte_writer_add_blob(w, &s, &b3, &err));
    uint32_t m1, m2;
    CHECK_OK(pte_writer_add_method(w, "one", &m1, &err));
    CHECK_OK(pte_writer_add_method(w, "two", &m2, &err));
    pte_wr_delegate d;
    memset(&d, 0, sizeof d);
    d.id = "X";
    d.blob = b1;
    CHECK_OK(pte_writer_add_delegate(w, m1, &d, NULL, &err));
    d.blob = b2; /* identical bytes, other method */
    CHECK_OK(pte_writer_add_delegate(w, m2, &d, NULL, &err));
    CHECK_OK(pte_writer_add_named_data(w, "n1", b3, 0, &err));
    CHECK_OK(pte_writer_add_named_data(w, "n2", b2, 0, &err)); /* same bytes as a delegate blob */
    size_t n = 0;
    uint8_t *bytes = tw_write_mem(w, &n, &err);
    CHECK(bytes);
    pte_fb_table rt = root_of(bytes, n);
    pte_fb_vec offs = pte_et_SubsegmentOffsets_offsets(pte_et_Program_constant_segment(rt));
    CHECK_EQ_INT(offs.len, 4);
    if (dedup) {
      CHECK_EQ_INT(pte_fb_vec_u64(offs, 2), pte_fb_vec_u64(offs, 1));
      CHECK_EQ_INT(pte_fb_vec_u64(offs, 3), 32);
      CHECK_EQ_INT(pte_et_Program_segments(rt).len, 3); /* constants, one blob, named c */
    } else {
      CHECK_EQ_INT(pte_fb_vec_u64(offs, 2), 32);
      CHECK_EQ_INT(pte_fb_vec_u64(offs, 3), 64);
      CHECK_EQ_INT(pte_et_Program_segments(rt).len, 4); /* n2 shares b2's delegate segment */
    }
    tw_prog p;
    CHECK_OK(tw_load_bytes(&p, bytes, n));
    const void *x = NULL;
    CHECK_OK(pte_program_constant_data(&p.prog, 3, 32, &x));
    CHECK(memcmp(x, c, 32) == 0);
    pte_freeable_buffer fb;
    CHECK_OK(pte_named_data_map_get_data(pte_program_named_data_map(&p.prog), "n2", &fb));
    CHECK(fb.size == 32 && memcmp(fb.data, b, 32) == 0);
    pte_freeable_buffer_free(&fb);
    tw_free(&p);
    free(bytes);
    pte_writer_destroy(w);
  }
}

TEST(shared_delegates) {
  pte_writer *w = tw_new_writer(NULL);
  pte_error_info err;
  uint8_t blob[64];
  memset(blob, 0x5a, sizeof blob);
  pte_source s = pte_source_memory(blob, sizeof blob);
  uint32_t b, b_copy;
  CHECK_OK(pte_writer_add_blob(w, &s, &b, &err));
  CHECK_OK(pte_writer_add_blob(w, &s, &b_copy, &err));
  pte_wr_delegate d;
  memset(&d, 0, sizeof d);
  d.id = "Npu";
  d.blob = b;
  d.share_handle = true;
  uint32_t shared, unshared, scratchy, other;
  CHECK_OK(pte_writer_add_lowered_module(w, &d, &shared, &err));
  d.share_handle = false;
  CHECK_OK(pte_writer_add_lowered_module(w, &d, &unshared, &err));
  pte_wr_scratch sc = {1, 256, 1024};
  d.share_handle = true;
  d.scratch = &sc;
  d.n_scratch = 1;
  CHECK_OK(pte_writer_add_lowered_module(w, &d, &scratchy, &err));
  memset(&d, 0, sizeof d);
  d.id = "Npu";
  d.blob = b_copy; /* a separate lowered module with identical bytes */
  d.share_handle = true;
  CHECK_OK(pte_writer_add_lowered_module(w, &d, &other, &err));
  uint32_t m, ch;
  CHECK_OK(pte_writer_add_method(w, "forward", &m, &err));
  CHECK_OK(pte_writer_add_chain(w, m, NULL, 0, NULL, 0, &ch, &err));
  int32_t x;
  CHECK_OK(pte_writer_add_int(w, m, 0, &x, &err));
  uint32_t got[12];
  int k = 0;
  for (int i = 0; i < 3; i++) CHECK_OK(pte_writer_call_module(w, m, ch, shared, &x, 1, &got[k++], &err));
  for (int i = 0; i < 3; i++) CHECK_OK(pte_writer_call_module(w, m, ch, unshared, &x, 1, &got[k++], &err));
  for (int i = 0; i < 2; i++) CHECK_OK(pte_writer_call_module(w, m, ch, scratchy, &x, 1, &got[k++], &err));
  for (int i = 0; i < 2; i++) CHECK_OK(pte_writer_call_module(w, m, ch, other, &x, 1, &got[k++], &err));
  /* shared: one delegate for 3 calls; unshared: 3 delegates; scratch: one per call; other
   * module: its own delegate */
  CHECK(got[0] == 0 && got[1] == 0 && got[2] == 0);
  CHECK(got[3] == 1 && got[4] == 2 && got[5] == 3);
  CHECK(got[6] == 4 && got[7] == 5);
  CHECK(got[8] == 6 && got[9] == 6);
  size_t n = 0;
  uint8_t *bytes = tw_write_mem(w, &n, &err);
  CHECK(bytes);
  pte_fb_table rt = root_of(bytes, n);
  pte_fb_table plan = pte_fb_vec_table(pte_et_Program_execution_plan(rt), 0);
  pte_fb_vec dels = pte_et_ExecutionPlan_delegates(plan);
  CHECK_EQ_INT(dels.len, 7);
  for (uint32_t i = 0; i < 7; i++) { /* all reference the one stored blob */
    pte_fb_table ref = pte_et_BackendDelegate_processed(pte_fb_vec_table(dels, i));
    CHECK_EQ_INT(pte_et_BackendDelegateDataReference_location(ref), pte_et_DataLocation_SEGMENT);
    CHECK_EQ_INT(pte_et_BackendDelegateDataReference_index(ref), 1);
  }
  CHECK_EQ_INT(pte_et_Program_segments(rt).len, 2);
  CHECK(pte_et_BackendDelegate_share_handle(pte_fb_vec_table(dels, 0)));
  CHECK(!pte_et_BackendDelegate_share_handle(pte_fb_vec_table(dels, 1)));
  /* scratch: one handle per call site, so the flag is not written */
  CHECK(!pte_et_BackendDelegate_share_handle(pte_fb_vec_table(dels, 4)));
  CHECK(!pte_et_BackendDelegate_share_handle(pte_fb_vec_table(dels, 5)));
  CHECK(pte_et_BackendDelegate_share_handle(pte_fb_vec_table(dels, 6)));
  pte_fb_vec scr = pte_et_BackendDelegate_scratch(pte_fb_vec_table(dels, 4));
  CHECK_EQ_INT(scr.len, 1);
  CHECK_EQ_INT(pte_et_DelegateScratch_offset(pte_fb_vec_table(scr, 0)), 256);
  CHECK_EQ_INT(pte_et_DelegateScratch_size(pte_fb_vec_table(scr, 0)), 1024);
  /* the scratch region counts in the arena size */
  CHECK_EQ_INT(pte_fb_vec_i64(pte_et_ExecutionPlan_non_const_buffer_sizes(plan), 1), 1280);
  pte_fb_vec ins = pte_et_Chain_instructions(pte_fb_vec_table(pte_et_ExecutionPlan_chains(plan), 0));
  CHECK_EQ_INT(ins.len, 10);
  for (uint32_t i = 0; i < 10; i++) {
    pte_fb_table dc = pte_et_Instruction_instr_args(pte_fb_vec_table(ins, i));
    CHECK_EQ_INT(pte_et_DelegateCall_delegate_index(dc), got[i]);
  }
  free(bytes);
  /* a plain delegate with scratch cannot claim a shared handle, nor be called twice */
  pte_wr_delegate bad;
  memset(&bad, 0, sizeof bad);
  bad.id = "Npu";
  bad.blob = b;
  bad.scratch = &sc;
  bad.n_scratch = 1;
  bad.share_handle = true;
  CHECK_STATUS(pte_writer_add_delegate(w, m, &bad, NULL, &err), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(err.msg, "cannot share its handle");
  bad.share_handle = false;
  uint32_t di;
  CHECK_OK(pte_writer_add_delegate(w, m, &bad, &di, &err));
  CHECK_OK(pte_writer_add_delegate_call(w, m, ch, di, &x, 1, NULL, &err));
  CHECK_OK(pte_writer_add_delegate_call(w, m, ch, di, &x, 1, NULL, &err));
  pte_memory_writer mw;
  pte_memory_writer_init(&mw, pte_heap_realloc, NULL, 0);
  CHECK_STATUS(pte_writer_write(w, &mw.base, &err), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(err.msg, "has scratch memory but is called 2 times");
  pte_data_writer_destroy(&mw.base);
  pte_writer_destroy(w);
}

/* End to end with a real backend: a shared-handle module called 3 times gets ONE init (n_calls
 * 3); a module with scratch called twice gets two delegates, each with its own planned scratch
 * region that the planner kept clear of the tensors (the backend scribbles over it). */
static int g_inits, g_execs;
static size_t g_last_calls, g_scratch_seen;

static pte_status tb_init(pte_backend_init_context *ctx, pte_freeable_buffer *processed, const pte_compile_spec *cs,
                          size_t n, pte_delegate_handle **handle) {
  (void)cs;
  (void)n;
  g_inits++;
  g_last_calls = ctx->n_calls;
  g_scratch_seen += ctx->n_scratch;
  float *add = (float *)pte_allocator_alloc(ctx->runtime_allocator, sizeof(float), 4);
  if (!add || processed->size != 4) return PTE_ERR_DELEGATE_INVALID_COMPATIBILITY;
  memcpy(add, processed->data, 4);
  *handle = (pte_delegate_handle *)add;
  return PTE_OK;
}

static pte_status tb_execute(pte_backend_execution_context *ctx, pte_delegate_handle *handle, pte_evalue **args,
                             size_t nargs) {
  g_execs++;
  for (size_t i = 0; i < ctx->n_scratch; i++) memset(ctx->scratch[i].data, 0xEE, ctx->scratch[i].size);
  if (nargs != 2) return PTE_ERR_INVALID_ARGUMENT;
  const pte_tensor *in = args[0]->u.tensor;
  pte_tensor *out = args[1]->u.tensor;
  float add = *(const float *)(const void *)handle;
  for (size_t i = 0; i < in->numel; i++) ((float *)out->data)[i] = ((const float *)in->data)[i] + add;
  return PTE_OK;
}

static const pte_backend k_test_backend = {NULL, tb_init, tb_execute, NULL, NULL};

TEST(delegates_end_to_end) {
  static bool reg;
  if (!reg) {
    CHECK_OK(pte_register_backend("WrTestBackend", &k_test_backend));
    reg = true;
  }
  for (int scratch = 0; scratch < 2; scratch++) {
    pte_writer *w = tw_new_writer(NULL);
    pte_error_info err;
    float one = 1.0f;
    pte_source s = pte_source_memory(&one, 4);
    uint32_t b, mod, m, ch;
    CHECK_OK(pte_writer_add_blob(w, &s, &b, &err));
    pte_wr_scratch sc = {1, 0, 256}; /* the planner must place tensors after it */
    pte_wr_delegate d;
    memset(&d, 0, sizeof d);
    d.id = "WrTestBackend";
    d.blob = b;
    d.share_handle = !scratch;
    if (scratch) {
      d.scratch = &sc;
      d.n_scratch = 1;
    }
    CHECK_OK(pte_writer_add_lowered_module(w, &d, &mod, &err));
    CHECK_OK(pte_writer_add_method(w, "forward", &m, &err));
    CHECK_OK(pte_writer_add_chain(w, m, NULL, 0, NULL, 0, &ch, &err));
    int32_t sz[1] = {4};
    pte_wr_tensor t;
    memset(&t, 0, sizeof t);
    t.dtype = PTE_DTYPE_FLOAT;
    t.dim = 1;
    t.sizes = sz;
    t.plan = PTE_WR_PLAN_AUTO;
    int n_calls = scratch ? 2 : 3;
    int32_t v[4];
    for (int i = 0; i <= n_calls; i++) CHECK_OK(pte_writer_add_tensor(w, m, &t, &v[i], &err));
    for (int i = 0; i < n_calls; i++) {
      int32_t args[2] = {v[i], v[i + 1]};
      CHECK_OK(pte_writer_call_module(w, m, ch, mod, args, 2, NULL, &err));
    }
    CHECK_OK(pte_writer_set_inputs(w, m, &v[0], 1, &err));
    CHECK_OK(pte_writer_set_outputs(w, m, &v[n_calls], 1, &err));
    tw_prog p;
    CHECK_OK(tw_write_and_load(w, &p, &err));
    if (scratch)
      for (int i = 0; i <= n_calls; i++) {
        uint64_t off = 0;
        CHECK_OK(pte_writer_planned_offset(w, m, v[i], NULL, &off));
        CHECK(off >= 256);
      }
    g_inits = g_execs = 0;
    g_last_calls = g_scratch_seen = 0;
    tw_run r;
    tw_run_method(&p.prog, "forward", NULL, &r);
    CHECK_OK(r.load_status);
    CHECK_OK(r.exec_status);
    CHECK_EQ_INT(g_inits, scratch ? 2 : 1);
    CHECK_EQ_INT(g_last_calls, scratch ? 1 : 3);
    CHECK_EQ_INT(g_scratch_seen, scratch ? 2 : 0);
    CHECK_EQ_INT(g_execs, n_calls);
    const float *o = (const float *)r.data[0];
    for (int k = 0; k < 4; k++) CHECK_NEAR(o[k], (float)((long)((k * 7) % 11) - 5) * 0.25f + (float)n_calls, 0);
    tw_run_free(&r);
    tw_free(&p);
    pte_writer_destroy(w);
  }
}

TEST(inline_delegates_and_alignment) {
  pte_writer_options o;
  memset(&o, 0, sizeof o);
  o.keep_delegates_inline = true;
  o.delegate_alignment = 64;
  pte_writer *w = tw_new_writer(&o);
  pte_error_info err;
  uint8_t blob[100];
  for (int i = 0; i < 100; i++) blob[i] = (uint8_t)(i * 3);
  uint8_t c4[4] = {1, 2, 3, 4};
  pte_source s = pte_source_memory(blob, 100);
  uint32_t b, e, m;
  CHECK_OK(pte_writer_add_blob(w, &s, &b, &err));
  s = pte_source_memory(NULL, 0);
  CHECK_OK(pte_writer_add_blob(w, &s, &e, &err));
  s = pte_source_memory(c4, 4);
  CHECK_OK(pte_writer_add_constant(w, &s, NULL, &err));
  CHECK_OK(pte_writer_add_method(w, "forward", &m, &err));
  pte_wr_delegate d;
  memset(&d, 0, sizeof d);
  d.id = "A";
  d.blob = b;
  CHECK_OK(pte_writer_add_delegate(w, m, &d, NULL, &err));
  d.blob = e;
  d.location = PTE_WR_BLOB_AUTO;
  CHECK_OK(pte_writer_add_delegate(w, m, &d, NULL, &err));
  d.blob = b;
  d.location = PTE_WR_BLOB_SEGMENT; /* forced to a segment despite keep_delegates_inline */
  CHECK_OK(pte_writer_add_delegate(w, m, &d, NULL, &err));
  pte_writer_layout L;
  CHECK_OK(pte_writer_compute_layout(w, &L, &err));
  CHECK_EQ_INT(L.padded_header_length, 64);
  size_t n = 0;
  uint8_t *bytes = tw_write_mem(w, &n, &err);
  CHECK(bytes);
  pte_fb_table rt = root_of(bytes, n);
  pte_fb_vec dd = pte_et_Program_backend_delegate_data(rt);
  CHECK_EQ_INT(dd.len, 2);
  pte_fb_vec data = pte_et_BackendDelegateInlineData_data(pte_fb_vec_table(dd, 0));
  CHECK_EQ_INT(data.len, 100);
  CHECK_EQ_INT(data.data % 64, 0); /* force_align relative to the file start, header included */
  CHECK(memcmp(bytes + data.data, blob, 100) == 0);
  pte_fb_vec dels = pte_et_ExecutionPlan_delegates(pte_fb_vec_table(pte_et_Program_execution_plan(rt), 0));
  pte_fb_table r0 = pte_et_BackendDelegate_processed(pte_fb_vec_table(dels, 0));
  pte_fb_table r1 = pte_et_BackendDelegate_processed(pte_fb_vec_table(dels, 1));
  pte_fb_table r2 = pte_et_BackendDelegate_processed(pte_fb_vec_table(dels, 2));
  CHECK(pte_et_BackendDelegateDataReference_location(r0) == pte_et_DataLocation_INLINE && pte_et_BackendDelegateDataReference_index(r0) == 0);
  CHECK(pte_et_BackendDelegateDataReference_location(r1) == pte_et_DataLocation_INLINE && pte_et_BackendDelegateDataReference_index(r1) == 1);
  CHECK(pte_et_BackendDelegateDataReference_location(r2) == pte_et_DataLocation_SEGMENT && pte_et_BackendDelegateDataReference_index(r2) == 1);
  tw_prog p;
  CHECK_OK(tw_load_bytes(&p, bytes, n));
  size_t bn = 0;
  uint8_t *got = tw_delegate_blob(&p.prog, pte_fb_vec_table(pte_et_ExecutionPlan_delegates(pte_fb_vec_table(pte_et_Program_execution_plan(tw_root(&p.prog)), 0)), 2), &bn);
  CHECK(got && bn == 100 && memcmp(got, blob, 100) == 0);
  free(got);
  tw_free(&p);
  free(bytes);
  pte_writer_destroy(w);
}

/* ------------------------------------------------------------------ memory planner */
TEST(memory_planner) {
  pte_writer *w = tw_new_writer(NULL);
  pte_error_info err;
  uint32_t m, ch, op;
  CHECK_OK(pte_writer_add_method(w, "f", &m, &err));
  CHECK_OK(pte_writer_add_operator(w, m, "aten::relu", "out", &op, &err));
  CHECK_OK(pte_writer_add_chain(w, m, NULL, 0, NULL, 0, &ch, &err));
  /* a chain v0 -> v1 -> v2 -> v3 -> v4 of 100-byte tensors (25 floats), plus a 1000-byte one
   * (v5) used by the first and last op */
  int32_t s25[1] = {25}, s250[1] = {250};
  pte_wr_tensor t;
  memset(&t, 0, sizeof t);
  t.dtype = PTE_DTYPE_FLOAT;
  t.dim = 1;
  t.sizes = s25;
  t.plan = PTE_WR_PLAN_AUTO;
  int32_t v[6];
  for (int i = 0; i < 5; i++) CHECK_OK(pte_writer_add_tensor(w, m, &t, &v[i], &err));
  t.sizes = s250;
  CHECK_OK(pte_writer_add_tensor(w, m, &t, &v[5], &err));
  for (int i = 0; i < 4; i++) {
    int32_t a[3] = {v[i], v[i + 1], i == 0 || i == 3 ? v[5] : v[i + 1]};
    CHECK_OK(pte_writer_add_kernel_call(w, m, ch, op, a, 3, NULL, &err));
  }
  CHECK_OK(pte_writer_set_inputs(w, m, &v[0], 1, &err));
  CHECK_OK(pte_writer_set_outputs(w, m, &v[4], 1, &err));
  uint64_t arena = 0;
  CHECK_OK(pte_writer_plan_memory(w, m, &arena, &err));
  uint64_t off[6];
  for (int i = 0; i < 6; i++) CHECK_OK(pte_writer_planned_offset(w, m, v[i], NULL, &off[i]));
  /* hand-checked greedy result: v5 (largest, live 0..3) at 0; v0 [0,0] at 1008; v1 [0,1] at
   * 1120; v2 [1,2] at 1008 (v0 is dead); v3 [2,3] at 1120; v4 [3,3] at 1008 */
  CHECK_EQ_INT(off[5], 0);
  CHECK_EQ_INT(off[0], 1008);
  CHECK_EQ_INT(off[1], 1120);
  CHECK_EQ_INT(off[2], 1008);
  CHECK_EQ_INT(off[3], 1120);
  CHECK_EQ_INT(off[4], 1008);
  CHECK_EQ_INT(arena, 1232);
  for (int i = 0; i < 6; i++) CHECK_EQ_INT(off[i] % 16, 0);
  /* a JumpFalseCall makes every lifetime span the method: no reuse */
  int32_t cond;
  CHECK_OK(pte_writer_add_bool(w, m, true, &cond, &err));
  CHECK_OK(pte_writer_add_jump_false_call(w, m, ch, cond, 0, NULL, &err));
  CHECK_OK(pte_writer_plan_memory(w, m, &arena, &err));
  CHECK_EQ_INT(arena, 1008 + 5 * 112);
  /* not an auto tensor */
  CHECK_STATUS(pte_writer_planned_offset(w, m, cond, NULL, NULL), PTE_ERR_NOT_FOUND);
  pte_writer_destroy(w);
}

int main(void) {
  RUN(upstream_layout_example);
  RUN(no_segment_data_no_header);
  RUN(alignment_options);
  RUN(every_value_and_instruction_kind);
  RUN(built_model_runs);
  RUN(dedup_identical_data);
  RUN(shared_delegates);
  RUN(delegates_end_to_end);
  RUN(inline_delegates_and_alignment);
  RUN(memory_planner);
  return test_summary();
}
