/* The Module API (pte/module.h) on corpus models. Expected values come from the corpus's golden
 * I/O files (io/, MANIFEST.md "Other known inputs/outputs") or are derived by hand from what each
 * model computes per MANIFEST.md (etrs_data_map_model 3x+2, numpyrt_dynamic 2x, numpyrt_multi
 * x+1, djl_spike_prim_input x*2.0, djl_spike_add_unplanned a+b), never from pte's own output. */
#include "test.h"

#include "module/host.h"
#include "pte/module.h"
#include "pte/writer.h"

static void *read_all(const char *path, size_t *size) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  void *p = malloc(n > 0 ? (size_t)n : 1);
  if (p && fread(p, 1, (size_t)n, f) != (size_t)n) {
    free(p);
    p = NULL;
  }
  fclose(f);
  *size = (size_t)n;
  return p;
}

static const char *io_path(const char *name) {
  static char buf[1024];
  const char *c = getenv("PTE_CORPUS");
  if (!c) return NULL;
  snprintf(buf, sizeof buf, "%s/io/%s", c, name);
  return buf;
}

/* arduino_AddModel: x + 1 on float[3]; golden in/out from io/ (AddModel.ino: [1,2,3] -> [2,3,4]). */
static void add_model_golden(pte_module_loader loader) {
  size_t in_n = 0, out_n = 0;
  float *in = read_all(io_path("arduino_AddModel.input0.float32.bin"), &in_n);
  float *want = read_all(io_path("arduino_AddModel.expected_output0.float32.bin"), &out_n);
  CHECK_MSG(in && want && in_n == 12 && out_n == 12, "golden files io/arduino_AddModel.* missing");
  pte_error_info err;
  pte_module_options o = {0};
  o.loader = loader;
  pte_module *mod;
  CHECK_OK(pte_module_open(test_corpus_path("arduino_AddModel.pte"), &o, &mod, &err));
  CHECK(!pte_module_is_method_loaded(mod, "forward"));
  int32_t shape[1] = {3};
  CHECK_OK(pte_module_set_input(mod, "forward", 0, PTE_DTYPE_FLOAT, shape, 1, in, in_n, &err));
  CHECK(pte_module_is_method_loaded(mod, "forward"));
  CHECK_OK(pte_module_forward(mod, &err));
  CHECK_EQ_INT(pte_module_num_outputs(mod, "forward"), 1);
  const pte_tensor *y = pte_module_output_tensor(mod, "forward", 0);
  CHECK(y && y->dtype == PTE_DTYPE_FLOAT && y->numel == 3);
  for (int k = 0; k < 3; k++) CHECK_NEAR(((const float *)y->data)[k], want[k], 0);
  float copy[3];
  CHECK_OK(pte_module_output_copy(mod, "forward", 0, copy, sizeof copy, &err));
  CHECK(memcmp(copy, want, 12) == 0);
  /* a second run with other inputs (hand: x + 1) */
  float x2[3] = {-1.5f, 0, 10};
  CHECK_OK(pte_module_set_input(mod, "forward", 0, PTE_DTYPE_FLOAT, shape, 1, x2, sizeof x2, &err));
  CHECK_OK(pte_module_execute(mod, "forward", &err));
  y = pte_module_output_tensor(mod, "forward", 0);
  CHECK_NEAR(((const float *)y->data)[0], -0.5, 0);
  CHECK_NEAR(((const float *)y->data)[2], 11, 0);
  pte_module_destroy(mod);
  free(in);
  free(want);
}

TEST(add_model_mmap) { add_model_golden(PTE_MODULE_LOADER_MMAP); }
TEST(add_model_file) { add_model_golden(PTE_MODULE_LOADER_FILE); }
TEST(add_model_buffer) { add_model_golden(PTE_MODULE_LOADER_BUFFER); }

TEST(input_errors_name_expected_and_got) {
  pte_error_info err;
  pte_module *mod;
  CHECK_OK(pte_module_open(test_corpus_path("arduino_AddModel.pte"), NULL, &mod, &err));
  int64_t l[3] = {1, 2, 3};
  float f4[4] = {0};
  int32_t s3[1] = {3}, s4[1] = {4}, s13[2] = {1, 3};
  CHECK_STATUS(pte_module_set_input(mod, "forward", 0, PTE_DTYPE_LONG, s3, 1, l, sizeof l, &err), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(err.msg, "method 'forward' input 0: expected float32[3], got int64[3]");
  CHECK_STATUS(pte_module_set_input(mod, "forward", 0, PTE_DTYPE_FLOAT, s4, 1, f4, sizeof f4, &err), PTE_ERR_NOT_SUPPORTED);
  CHECK_CONTAINS(err.msg, "expected float32[3], got float32[4]");
  CHECK_STATUS(pte_module_set_input(mod, "forward", 0, PTE_DTYPE_FLOAT, s13, 2, f4, 12, &err), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(err.msg, "expected float32[3], got float32[1, 3] (rank differs)");
  CHECK_STATUS(pte_module_set_input(mod, "forward", 0, PTE_DTYPE_FLOAT, s3, 1, f4, 8, &err), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(err.msg, "float32[3] is 12 bytes, got 8 bytes");
  CHECK_STATUS(pte_module_set_input(mod, "forward", 1, PTE_DTYPE_FLOAT, s3, 1, f4, 12, &err), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(err.msg, "takes 1 input: there is no input 1");
  CHECK_STATUS(pte_module_set_input(mod, "forwrd", 0, PTE_DTYPE_FLOAT, s3, 1, f4, 12, &err), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(err.msg, "no method 'forwrd' in this program (methods: forward)");
  CHECK_STATUS(pte_module_execute(mod, "backward", &err), PTE_ERR_INVALID_ARGUMENT);
  /* executing without setting the tensor input is the runtime's error, with the method named */
  CHECK_STATUS(pte_module_forward(mod, &err), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(err.msg, "method 'forward': ");
  CHECK_OK(pte_module_set_input(mod, "forward", 0, PTE_DTYPE_FLOAT, s3, 1, f4, 12, &err));
  CHECK_OK(pte_module_forward(mod, &err));
  float small[2];
  CHECK_STATUS(pte_module_output_copy(mod, "forward", 0, small, sizeof small, &err), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(err.msg, "12 bytes needed, buffer has 8");
  CHECK_STATUS(pte_module_output_copy(mod, "forward", 1, small, sizeof small, &err), PTE_ERR_INVALID_ARGUMENT);
  CHECK(pte_module_output(mod, "forward", 1) == NULL);
  pte_module_destroy(mod);
}

TEST(open_errors) {
  pte_error_info err;
  pte_module *mod = (pte_module *)1;
  CHECK_STATUS(pte_module_open("/nonexistent/model.pte", NULL, &mod, &err), PTE_ERR_ACCESS_FAILED);
  CHECK(mod == NULL);
  CHECK_CONTAINS(err.msg, "/nonexistent/model.pte");
  pte_module_options o = {0};
  o.loader = PTE_MODULE_LOADER_BUFFER;
  CHECK_STATUS(pte_module_open("/nonexistent/model.pte", &o, &mod, &err), PTE_ERR_ACCESS_FAILED);
  CHECK_CONTAINS(err.msg, "/nonexistent/model.pte");
  /* a .ptd is not a program */
  CHECK_STATUS(pte_module_open(test_corpus_path("upstream_android_xor.ptd"), NULL, &mod, &err), PTE_ERR_INVALID_PROGRAM);
  o.loader = (pte_module_loader)7;
  CHECK_STATUS(pte_module_open(test_corpus_path("arduino_AddModel.pte"), &o, &mod, &err), PTE_ERR_INVALID_ARGUMENT);
  o.loader = PTE_MODULE_LOADER_MMAP;
  o.data_path = "/nonexistent/data.ptd";
  CHECK_STATUS(pte_module_open(test_corpus_path("etrs_data_map_model.pte"), &o, &mod, &err), PTE_ERR_ACCESS_FAILED);
  CHECK_CONTAINS(err.msg, "/nonexistent/data.ptd");
  CHECK_STATUS(pte_module_open(NULL, NULL, &mod, &err), PTE_ERR_INVALID_ARGUMENT);
  pte_module_destroy(NULL);
}

/* etrs_data_map_model: 3x + 2 with weights in a .ptd (MANIFEST: ones -> 5). */
TEST(external_data) {
  pte_error_info err;
  pte_module *mod;
  pte_module_options o = {0};
  CHECK_OK(pte_module_open(test_corpus_path("etrs_data_map_model.pte"), &o, &mod, &err));
  CHECK_STATUS(pte_module_load_method(mod, "forward", &err), PTE_ERR_INVALID_STATE);
  CHECK_CONTAINS(err.msg, "pte_module_options.data_path");
  CHECK(!pte_module_is_method_loaded(mod, "forward"));
  pte_module_destroy(mod);
  char ptd[1024];
  snprintf(ptd, sizeof ptd, "%s", test_corpus_path("etrs_data_map__default_external_constant.ptd"));
  o.data_path = ptd;
  for (int loader = 0; loader < 3; loader++) {
    o.loader = (pte_module_loader)loader;
    CHECK_OK(pte_module_open(test_corpus_path("etrs_data_map_model.pte"), &o, &mod, &err));
    float x[4] = {1, 1, 1, 1};
    int32_t s[2] = {2, 2};
    CHECK_OK(pte_module_set_input(mod, "forward", 0, PTE_DTYPE_FLOAT, s, 2, x, sizeof x, &err));
    CHECK_OK(pte_module_forward(mod, &err));
    float y[4];
    CHECK_OK(pte_module_output_copy(mod, "forward", 0, y, sizeof y, &err));
    for (int k = 0; k < 4; k++) CHECK_NEAR(y[k], 5, 0);
    pte_module_destroy(mod);
  }
}

/* numpyrt_lstm: etnp::lstm.out (custom kernel library); vendored golden I/O, rtol = atol = 1e-4. */
TEST(lstm_golden) {
  size_t in_n = 0, out_n = 0;
  float *in = read_all(io_path("numpyrt_lstm.inputs_concat.float32.bin"), &in_n);
  float *want = read_all(io_path("numpyrt_lstm.expected_output0.float32.bin"), &out_n);
  CHECK_MSG(in && want && in_n == 52 * 4 && out_n == 30 * 4, "golden files io/numpyrt_lstm.* missing");
  pte_error_info err;
  pte_module *mod;
  CHECK_OK(pte_module_open(test_corpus_path("numpyrt_lstm.pte"), NULL, &mod, &err));
  pte_method_meta meta;
  CHECK_OK(pte_module_method_meta(mod, "forward", &meta, &err));
  CHECK_EQ_INT(pte_method_meta_num_inputs(&meta), 3);
  int32_t sx[3] = {5, 2, 4}, sh[2] = {2, 3};
  CHECK_OK(pte_module_set_input(mod, "forward", 0, PTE_DTYPE_FLOAT, sx, 3, in, 40 * 4, &err));
  CHECK_OK(pte_module_set_input(mod, "forward", 1, PTE_DTYPE_FLOAT, sh, 2, in + 40, 6 * 4, &err));
  CHECK_OK(pte_module_set_input(mod, "forward", 2, PTE_DTYPE_FLOAT, sh, 2, in + 46, 6 * 4, &err));
  CHECK_OK(pte_module_forward(mod, &err));
  const pte_tensor *y = pte_module_output_tensor(mod, "forward", 0);
  CHECK(y && y->numel == 30);
  for (int k = 0; k < 30; k++) CHECK_NEAR(((const float *)y->data)[k], want[k], 1e-4 + 1e-4 * fabs(want[k]));
  pte_module_destroy(mod);
  free(in);
  free(want);
}

TEST(methods_and_meta) {
  pte_error_info err;
  pte_module *mod;
  CHECK_OK(pte_module_open(test_corpus_path("numpyrt_multi.pte"), NULL, &mod, &err));
  CHECK_EQ_INT(pte_module_num_methods(mod), 2);
  CHECK_STR(pte_module_method_name(mod, 0), "double");
  CHECK_STR(pte_module_method_name(mod, 1), "forward");
  CHECK(pte_module_method_name(mod, 2) == NULL);
  CHECK(pte_module_program(mod) != NULL);
  CHECK_EQ_INT(pte_program_num_methods(pte_module_program(mod)), 2);
  pte_method_meta meta;
  CHECK_OK(pte_module_method_meta(mod, "double", &meta, &err));
  pte_tensor_info ti;
  CHECK_OK(pte_method_meta_input_tensor_info(&meta, 0, &ti));
  CHECK_EQ_INT(ti.dtype, PTE_DTYPE_FLOAT);
  CHECK_EQ_INT(ti.dim, 1);
  CHECK_EQ_INT(ti.sizes[0], 2);
  CHECK_STATUS(pte_module_method_meta(mod, "triple", &meta, &err), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(err.msg, "(methods: double, forward)");
  /* both methods loaded side by side, each x + 1 (MANIFEST) */
  float a[2] = {1, 2}, b[2] = {10, 20};
  int32_t s[1] = {2};
  CHECK_OK(pte_module_set_input(mod, "double", 0, PTE_DTYPE_FLOAT, s, 1, a, sizeof a, &err));
  CHECK_OK(pte_module_set_input(mod, "forward", 0, PTE_DTYPE_FLOAT, s, 1, b, sizeof b, &err));
  CHECK_OK(pte_module_execute(mod, "double", &err));
  CHECK_OK(pte_module_execute(mod, "forward", &err));
  const pte_tensor *ya = pte_module_output_tensor(mod, "double", 0), *yb = pte_module_output_tensor(mod, "forward", 0);
  CHECK(ya && yb);
  CHECK_NEAR(((const float *)ya->data)[1], 3, 0);
  CHECK_NEAR(((const float *)yb->data)[1], 21, 0);
  CHECK(pte_module_method(mod, "forward", &err) != NULL);
  pte_module_destroy(mod);
}

/* numpyrt_dynamic: 2x on float32[<=8] through an XNNPACK delegate. */
TEST(dynamic_input) {
  pte_error_info err;
  pte_module *mod;
  CHECK_OK(pte_module_open(test_corpus_path("numpyrt_dynamic.pte"), NULL, &mod, &err));
  float x[5] = {1, -2, 3.5f, 0, 100};
  int32_t s5[1] = {5}, s9[1] = {9};
  CHECK_OK(pte_module_set_input(mod, "forward", 0, PTE_DTYPE_FLOAT, s5, 1, x, sizeof x, &err));
  CHECK_OK(pte_module_forward(mod, &err));
  const pte_tensor *y = pte_module_output_tensor(mod, "forward", 0);
  CHECK(y && y->numel == 5 && y->sizes[0] == 5);
  for (int k = 0; k < 5; k++) CHECK_NEAR(((const float *)y->data)[k], 2 * x[k], 0);
  float big[9] = {0};
  CHECK_STATUS(pte_module_set_input(mod, "forward", 0, PTE_DTYPE_FLOAT, s9, 1, big, sizeof big, &err), PTE_ERR_NOT_SUPPORTED);
  CHECK_CONTAINS(err.msg, "expected float32[<=8], got float32[9] (dimension 0 exceeds its bound)");
  pte_module_destroy(mod);
}

/* djl_spike_prim_input: x * 2.0 with the scalar a traced Double input. */
TEST(scalar_input) {
  pte_error_info err;
  pte_module *mod;
  CHECK_OK(pte_module_open(test_corpus_path("djl_spike_prim_input.pte"), NULL, &mod, &err));
  float x[4] = {1, 2, 3, -4};
  int32_t s[1] = {4};
  CHECK_OK(pte_module_set_input(mod, "forward", 0, PTE_DTYPE_FLOAT, s, 1, x, sizeof x, &err));
  CHECK_STATUS(pte_module_set_input(mod, "forward", 1, PTE_DTYPE_FLOAT, s, 1, x, sizeof x, &err), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(err.msg, "input 1 is a Double, not a tensor");
  /* untouched: keeps its traced value */
  CHECK_OK(pte_module_forward(mod, &err));
  const pte_tensor *y = pte_module_output_tensor(mod, "forward", 0);
  CHECK(y);
  CHECK_NEAR(((const float *)y->data)[3], -8, 0);
  pte_evalue v = {.tag = PTE_TAG_DOUBLE, .u.d = 2.0};
  CHECK_OK(pte_module_set_input_value(mod, "forward", 1, &v, &err));
  v.u.d = 3.0; /* not the traced value */
  CHECK(pte_module_set_input_value(mod, "forward", 1, &v, &err) != PTE_OK);
  CHECK_CONTAINS(err.msg, "method 'forward' input 1: ");
  pte_module_destroy(mod);
}

/* djl_spike_add_unplanned: a + b with unplanned inputs: the module keeps its own copies, so the
 * caller's buffers may change after set_input. */
TEST(unplanned_inputs_are_copied) {
  pte_error_info err;
  pte_module *mod;
  CHECK_OK(pte_module_open(test_corpus_path("djl_spike_add_unplanned.pte"), NULL, &mod, &err));
  float a = 1.25f, b = 2.5f;
  int32_t s[1] = {1};
  CHECK_OK(pte_module_set_input(mod, "forward", 0, PTE_DTYPE_FLOAT, s, 1, &a, sizeof a, &err));
  CHECK_OK(pte_module_set_input(mod, "forward", 1, PTE_DTYPE_FLOAT, s, 1, &b, sizeof b, &err));
  a = 100, b = 200;
  CHECK_OK(pte_module_forward(mod, &err));
  float y;
  CHECK_OK(pte_module_output_copy(mod, "forward", 0, &y, sizeof y, &err));
  CHECK_NEAR(y, 3.75, 0);
  pte_module_destroy(mod);
}

TEST(limits) {
  pte_error_info err;
  pte_module *mod;
  pte_module_options o = {0};
  o.max_planned_memory = 4; /* AddModel plans more than 4 bytes (two float[3]) */
  CHECK_OK(pte_module_open(test_corpus_path("arduino_AddModel.pte"), &o, &mod, &err));
  CHECK_STATUS(pte_module_load_method(mod, "forward", &err), PTE_ERR_OUT_OF_RESOURCES);
  CHECK_CONTAINS(err.msg, "more than the limit of 4 bytes");
  pte_module_destroy(mod);
  o.max_planned_memory = 0;
  o.num_threads = 65;
  CHECK_STATUS(pte_module_open(test_corpus_path("arduino_AddModel.pte"), &o, &mod, &err), PTE_ERR_INVALID_ARGUMENT);
  o.num_threads = 2;
  o.verify_minimal = true;
  CHECK_OK(pte_module_open(test_corpus_path("numpyrt_dynamic.pte"), &o, &mod, &err));
  float x[2] = {3, 4};
  int32_t s[1] = {2};
  CHECK_OK(pte_module_set_input(mod, "forward", 0, PTE_DTYPE_FLOAT, s, 1, x, sizeof x, &err));
  CHECK_OK(pte_module_forward(mod, &err));
  const pte_tensor *y = pte_module_output_tensor(mod, "forward", 0);
  CHECK(y && y->numel == 2);
  CHECK_NEAR(((const float *)y->data)[1], 8, 0);
  pte_module_destroy(mod);
}

TEST(missing_backend) {
  pte_error_info err;
  pte_module *mod;
  CHECK_OK(pte_module_open(test_corpus_path("djl_openvino_tiny.pte"), NULL, &mod, &err));
  CHECK_STATUS(pte_module_load_method(mod, "forward", &err), PTE_ERR_NOT_FOUND);
  CHECK_CONTAINS(err.msg, "backend 'OpenvinoBackend'");
  CHECK(pte_module_method(mod, "forward", &err) == NULL);
  CHECK_EQ_INT(err.status, PTE_ERR_NOT_FOUND);
  CHECK(pte_module_output(mod, "forward", 0) == NULL);
  CHECK_EQ_INT(pte_module_num_outputs(mod, "forward"), 0);
  float y[8];
  CHECK_STATUS(pte_module_output_copy(mod, "forward", 0, y, sizeof y, &err), PTE_ERR_INVALID_STATE);
  pte_module_destroy(mod);
}

TEST(register_all_idempotent) {
  pte_error_info err;
  CHECK_OK(pte_module_register_all(&err));
  CHECK_OK(pte_module_register_all(NULL));
}

/* Layout helpers: channels-last [0,2,3,1] of sizes [1,2,2,3] puts C-order element (c,h,w) at
 * (h*3 + w)*2 + c (derived by hand). */
TEST(layout_conversion) {
  int32_t sizes[4] = {1, 2, 2, 3};
  uint8_t cl[4] = {0, 2, 3, 1};
  float src[12], dst[12], back[12];
  for (int k = 0; k < 12; k++) src[k] = (float)k;
  pte_host_contiguous_to_layout(dst, src, sizes, cl, 4, sizeof(float));
  for (int c = 0; c < 2; c++)
    for (int h = 0; h < 2; h++)
      for (int w = 0; w < 3; w++) CHECK_NEAR(dst[(h * 3 + w) * 2 + c], c * 6 + h * 3 + w, 0);
  pte_host_layout_to_contiguous(back, dst, sizes, cl, 4, sizeof(float));
  CHECK(memcmp(back, src, sizeof src) == 0);
}

/* A program written here with the writer API: y = relu(x) on float32[1, 2, 2, 3] channels-last
 * (dim order 0,2,3,1) input and output; the input planned or not. The module takes and gives C
 * order: relu of the C-order input, element for element (hand: max(v, 0)); the method's own output
 * tensor holds element (c,h,w) at (h*3 + w)*2 + c. */
static void channels_last(bool planned) {
  const char *tmp = getenv("PTE_TMP");
  CHECK_MSG(tmp, "PTE_TMP not set");
  char path[1024];
  snprintf(path, sizeof path, "%s/module_cl_%d.pte", tmp, (int)planned);
  static const int32_t sizes[4] = {1, 2, 2, 3};
  static const uint8_t cl[4] = {0, 2, 3, 1};
  pte_error_info err;
  pte_writer *w;
  CHECK_OK(pte_writer_create(NULL, &w, &err));
  uint32_t m, chain, op;
  int32_t x = -1, y = -1;
  pte_wr_tensor t;
  memset(&t, 0, sizeof t);
  t.dtype = PTE_DTYPE_FLOAT;
  t.dim = 4;
  t.sizes = sizes;
  t.dim_order = cl;
  pte_status s = pte_writer_add_method(w, "forward", &m, &err);
  t.plan = planned ? PTE_WR_PLAN_AUTO : PTE_WR_PLAN_NONE;
  if (s == PTE_OK) s = pte_writer_add_tensor(w, m, &t, &x, &err);
  t.plan = PTE_WR_PLAN_AUTO;
  if (s == PTE_OK) s = pte_writer_add_tensor(w, m, &t, &y, &err);
  if (s == PTE_OK) s = pte_writer_add_operator(w, m, "aten::relu", "out", &op, &err);
  if (s == PTE_OK) s = pte_writer_add_chain(w, m, &x, 1, &y, 1, &chain, &err);
  const int32_t args[3] = {x, y, y};
  if (s == PTE_OK) s = pte_writer_add_kernel_call(w, m, chain, op, args, 3, NULL, &err);
  if (s == PTE_OK) s = pte_writer_set_inputs(w, m, &x, 1, &err);
  if (s == PTE_OK) s = pte_writer_set_outputs(w, m, &y, 1, &err);
  if (s == PTE_OK) s = pte_writer_write_file(w, path, NULL, &err);
  pte_writer_destroy(w);
  CHECK_MSG(s == PTE_OK, "writing %s: %s", path, err.msg);

  pte_module *mod;
  CHECK_OK(pte_module_open(path, NULL, &mod, &err));
  float in[12], out[12];
  for (int k = 0; k < 12; k++) in[k] = (float)(k % 2 ? k : -k) - 0.5f;
  CHECK_OK(pte_module_set_input(mod, "forward", 0, PTE_DTYPE_FLOAT, sizes, 4, in, sizeof in, &err));
  CHECK_OK(pte_module_forward(mod, &err));
  CHECK_OK(pte_module_output_copy(mod, "forward", 0, out, sizeof out, &err));
  for (int k = 0; k < 12; k++) CHECK_NEAR(out[k], in[k] > 0 ? in[k] : 0, 0);
  const pte_tensor *yt = pte_module_output_tensor(mod, "forward", 0);
  CHECK(yt && yt->dim == 4);
  const float *raw = yt->data;
  for (int c = 0; c < 2; c++)
    for (int h = 0; h < 2; h++)
      for (int w2 = 0; w2 < 3; w2++) {
        float v = in[c * 6 + h * 3 + w2];
        CHECK_NEAR(raw[(h * 3 + w2) * 2 + c], v > 0 ? v : 0, 0);
      }
  pte_module_destroy(mod);
  remove(path);
}

TEST(channels_last_planned_input) { channels_last(true); }
TEST(channels_last_unplanned_input) { channels_last(false); }

/* The host's method allocator (module/host.c): it starts from a guess taken from the program's
 * size, so a method loads in one attempt (every retry repeats the whole load, delegates
 * included); started too small, the load still succeeds by growing and retrying. The model's
 * method needs more than 16 KiB of method memory and its program is ~20 KB. */
TEST(host_method_allocator_guess_then_retry) {
  pte_error_info err;
  pte_module *mod = NULL;
  CHECK_OK(pte_module_open(test_corpus_path("dnf_test_dnf_executorch5.pte"), NULL, &mod, &err));
  if (!mod) return;
  const pte_program *p = pte_module_program(mod);
  const char *name = pte_module_method_name(mod, 0);
  pte_method_meta meta;
  CHECK_OK(pte_method_meta_get(p, name, &meta, &err));
  pte_method_options o;
  memset(&o, 0, sizeof o);
  for (int small = 0; small < 2; small++) {
    pte_host_memory mem;
    CHECK_OK(pte_host_memory_init(&mem, &meta, &err));
    if (small) { /* the old fixed start: 16 KiB */
      free(mem.pool);
      mem.pool_size = 16u << 10;
      mem.pool = (uint8_t *)malloc(mem.pool_size);
      CHECK(mem.pool != NULL);
      pte_allocator_init(&mem.ma, mem.pool, mem.pool_size);
    }
    const size_t start = mem.pool_size;
    pte_method *m = NULL;
    CHECK_MSG(pte_host_method_load(&mem, p, name, &o, &m, NULL, &err) == PTE_OK, "%s", err.msg);
    CHECK(m != NULL);
    CHECK(mem.ma.used > (16u << 10)); /* the method does need more than 16 KiB */
    if (small) CHECK(mem.pool_size > start); /* grown and retried */
    else CHECK_EQ_INT(mem.pool_size, start);  /* the guess held it: one attempt */
    if (m) pte_method_destroy(m);
    pte_host_memory_free(&mem);
  }
  pte_module_destroy(mod);
}

int main(void) {
  RUN(channels_last_planned_input);
  RUN(channels_last_unplanned_input);
  RUN(add_model_mmap);
  RUN(add_model_file);
  RUN(add_model_buffer);
  RUN(input_errors_name_expected_and_got);
  RUN(open_errors);
  RUN(external_data);
  RUN(lstm_golden);
  RUN(methods_and_meta);
  RUN(dynamic_input);
  RUN(scalar_input);
  RUN(unplanned_inputs_are_copied);
  RUN(limits);
  RUN(missing_backend);
  RUN(register_all_idempotent);
  RUN(layout_conversion);
  RUN(host_method_allocator_guess_then_retry);
  return test_summary();
}
