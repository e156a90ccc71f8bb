/* test_schema_gen.c — the schema files and the code tools/fbsgen generates from them.
 *
 * Proves, against flatc (env PTE_FLATC) decoding with our own schema files (env PTE_SCHEMA_DIR):
 *  - every corpus .pte / .ptd / .bpte (and the program inside the .bpte) passes our verifier and
 *    our JSON emitter prints exactly what flatc prints (--defaults-json and sparse);
 *  - buffers made with the generated builders decode in flatc to the intended JSON (every table
 *    of program.fbs with non-default values, force_align honoured);
 *  - buffers made by flatc from hand-written JSON read back through the generated accessors;
 *  - every generated slot index / field name / kind matches flatc's own view of the schema
 *    (flatc --jsonschema lists fields in slot order);
 *  - the verifier rejects broken buffers; number formatting is shortest round-trip.
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <sys/stat.h>

#include "support/json.h"
#include "pte/io.h"
#include "pte_gen/bundled_program_gen.h"
#include "pte_gen/flat_tensor_gen.h"
#include "pte_gen/program_gen.h"
#include "test.h"

/* ------------------------------------------------------------------ helpers */

typedef struct sbuf {
  char *p;
  size_t n, cap;
} sbuf;

static void sbuf_write(void *ctx, const char *d, size_t n) {
  sbuf *s = ctx;
  if (s->n + n + 1 > s->cap) {
    size_t nc = s->cap ? s->cap : 4096;
    while (s->n + n + 1 > nc) nc *= 2;
    char *np = realloc(s->p, nc);
    if (!np) abort();
    s->p = np;
    s->cap = nc;
  }
  memcpy(s->p + s->n, d, n);
  s->n += n;
  s->p[s->n] = 0;
}

typedef void (*to_json_fn)(pte_fb_table t, pte_fb_json_sink *sink, unsigned flags);

/* Our JSON for the root table of buf (malloc'd). */
static char *our_json(to_json_fn fn, const uint8_t *buf, size_t size, unsigned flags, bool pretty) {
  sbuf s = {0};
  pte_fb_json_sink sink;
  pte_fb_json_sink_init(&sink, sbuf_write, &s, pretty);
  fn(pte_fb_root(buf, size), &sink, flags);
  if (!s.p) sbuf_write(&s, "", 0);
  return s.p;
}

static const char *flatc(void) {
  const char *f = getenv("PTE_FLATC");
  return (f && *f) ? f : NULL;
}

static const char *schema_path(const char *name) {
  static char buf[4][1024];
  static int k;
  const char *dir = getenv("PTE_SCHEMA_DIR");
  k = (k + 1) % 4;
  snprintf(buf[k], sizeof buf[k], "%s/%s", dir ? dir : "schema", name);
  return buf[k];
}

static const char *tmp_dir(void) {
  static char dir[1024];
  if (!dir[0]) {
    snprintf(dir, sizeof dir, "%s", test_tmp_path("schema_gen"));
    mkdir(dir, 0777);
  }
  return dir;
}

static char *read_text_file(const char *path) {
  size_t n;
  uint8_t *d = test_read_file(path, &n);
  if (!d) return NULL;
  char *s = malloc(n + 1);
  memcpy(s, d, n);
  s[n] = 0;
  free(d);
  return s;
}

/* flatc's JSON for a binary (NULL on failure, with flatc's output on stderr). */
static char *flatc_decode(const char *schema, const void *data, size_t size, const char *tag, bool defaults) {
  char bin[1200], json[1200], cmd[4096];
  snprintf(bin, sizeof bin, "%s/%s.bin", tmp_dir(), tag);
  snprintf(json, sizeof json, "%s/%s.json", tmp_dir(), tag);
  remove(json);
  if (test_write_file(bin, data, size) != 0) return NULL;
  snprintf(cmd, sizeof cmd, "'%s' --json --raw-binary --strict-json %s -o '%s' '%s' -- '%s' 2>&1", flatc(),
           defaults ? "--defaults-json" : "", tmp_dir(), schema_path(schema), bin);
  int rc = -1;
  char *outp = test_run_capture(cmd, &rc);
  if (rc != 0) fprintf(stderr, "  flatc failed (%d): %s\n  %s\n", rc, cmd, outp ? outp : "");
  free(outp);
  return rc == 0 ? read_text_file(json) : NULL;
}

/* flatc -b of a JSON text (the binary in 64-aligned heap memory; NULL on failure). */
static uint8_t *flatc_encode(const char *schema, const char *json_text, const char *tag, size_t *size) {
  char json[1200], bin[1200], cmd[4096];
  snprintf(json, sizeof json, "%s/%s.json", tmp_dir(), tag);
  /* flatc names the output after the schema's file_extension */
  const char *ext = strcmp(schema, "program.fbs") == 0 ? "pte" : strcmp(schema, "flat_tensor.fbs") == 0 ? "ptd" : "bpte";
  snprintf(bin, sizeof bin, "%s/%s.%s", tmp_dir(), tag, ext);
  remove(bin);
  if (test_write_file(json, json_text, strlen(json_text)) != 0) return NULL;
  snprintf(cmd, sizeof cmd, "'%s' -b -o '%s' '%s' '%s' 2>&1", flatc(), tmp_dir(), schema_path(schema), json);
  int rc = -1;
  char *outp = test_run_capture(cmd, &rc);
  if (rc != 0) fprintf(stderr, "  flatc failed (%d): %s\n  %s\n", rc, cmd, outp ? outp : "");
  free(outp);
  return rc == 0 ? test_read_file(bin, size) : NULL;
}

/* Doubles: flatc prints 12 decimals (fixed), so allow that much. */
static const test_json_cmp k_flatc_tol = {1e-12, 1e-15};

/* Parses both texts and compares by value; on mismatch fills diff. */
static bool json_texts_equal(const char *a, const char *b, char *diff, size_t n) {
  char err[256];
  test_json *ja = test_json_parse(a, strlen(a), err, sizeof err);
  if (!ja) {
    snprintf(diff, n, "first JSON does not parse: %s", err);
    return false;
  }
  test_json *jb = test_json_parse(b, strlen(b), err, sizeof err);
  if (!jb) {
    snprintf(diff, n, "second JSON does not parse: %s", err);
    test_json_free(ja);
    return false;
  }
  bool eq = test_json_equal(ja, jb, &k_flatc_tol, diff, n);
  test_json_free(ja);
  test_json_free(jb);
  return eq;
}

static bool ends_with(const char *s, const char *suf) {
  size_t a = strlen(s), b = strlen(suf);
  return a >= b && strcmp(s + a - b, suf) == 0;
}

static pte_fb_ref mkstr(pte_fb_builder *b, const char *s) { return pte_fb_create_string(b, s, strlen(s)); }

static bool str_is(pte_fb_str s, const char *want) {
  return s.ptr && s.len == strlen(want) && memcmp(s.ptr, want, s.len) == 0;
}

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
  RUN(corpus_matches_flatc);
  RUN(corpus_accessors);
  RUN(builder_program_matches_flatc);
  RUN(builder_bundled_and_flat_tensor_match_flatc);
  RUN(flatc_binary_reads_back_program);
  RUN(flatc_binary_reads_back_defaults);
  RUN(flatc_binary_reads_back_flat_tensor_and_bundled);
  RUN(slots_match_flatc_jsonschema);
  RUN(verifier_rejects_broken_buffers);
  RUN(number_formatting);
  RUN(json_sink_and_parser);
  return test_summary();
}
