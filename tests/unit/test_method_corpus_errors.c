/* Method load + execute on real upstream files from the corpus ($PTE_CORPUS), the error side:
 * wrong inputs, planned buffers too small or missing, a missing operator named, method meta before
 * load; and a corpus XNNPACK delegate segment run through a stand-in backend. Fixtures:
 * test_method_corpus_util.h; the models' outputs: test_method_corpus.c. */
#define _POSIX_C_SOURCE 200809L
#include "test_method_corpus_util.h"

/* ------------------------------------------------------------------ errors on real files */

TEST(wrong_inputs_shape_count) {
  register_portable();
  prog_file f;
  if (!open_prog(&f, "arduino_AddModel.pte")) return;
  runner r;
  LOAD_OK(&r, &f.prog, "forward", NULL);
  float x4[4] = {0};
  int32_t s4[] = {4}, s13[] = {1, 3};
  CHECK_STATUS(pte_method_set_input_tensor(r.m, 0, PTE_DTYPE_FLOAT, s4, 1, x4, 16, &r.err), PTE_ERR_NOT_SUPPORTED);
  CHECK_CONTAINS(r.err.msg, "input 0: expected float32[3] (a static shape), got float32[4]");
  CHECK_STATUS(pte_method_set_input_tensor(r.m, 0, PTE_DTYPE_FLOAT, s13, 2, x4, 12, &r.err), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(r.err.msg, "input 0: expected float32[3], got float32[1, 3]");
  CHECK_STATUS(pte_method_set_input_tensor(r.m, 1, PTE_DTYPE_FLOAT, s4, 1, x4, 12, &r.err), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(r.err.msg, "out of range");
  CHECK_STATUS(pte_method_set_input_tensor(r.m, 0, PTE_DTYPE_FLOAT, s4, 1, x4, 12, &r.err), PTE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(pte_method_execute(r.m, &r.err), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(r.err.msg, "input 0 has not been set");
  /* A planned output cannot be redirected. */
  CHECK_STATUS(pte_method_set_output_data_ptr(r.m, 0, x4, 16, &r.err), PTE_ERR_INVALID_STATE);
  runner_free(&r);
  close_prog(&f);
}

TEST(planned_buffer_too_small_or_missing) {
  prog_file f;
  if (!open_prog(&f, "arduino_AddModel.pte")) return;
  static uint8_t pool[64 * 1024];
  static _Alignas(16) uint8_t small[16];
  pte_allocator ma;
  pte_allocator_init(&ma, pool, sizeof pool);
  pte_planned_buffer pb = {small, sizeof small};
  pte_memory_manager mm;
  pte_memory_manager_init(&mm, &ma, &pb, 1, NULL);
  pte_method *m = NULL;
  pte_error_info e;
  CHECK_STATUS(pte_method_load(&f.prog, "forward", &mm, NULL, NULL, &m, &e), PTE_ERR_MEMORY_ALLOCATION_FAILED);
  CHECK_CONTAINS(e.msg, "planned buffer 0");
  CHECK(m == NULL);
  CHECK_EQ_INT(ma.used, 0); /* rewound */
  pte_memory_manager_init(&mm, &ma, NULL, 0, NULL);
  CHECK_STATUS(pte_method_load(&f.prog, "forward", &mm, NULL, NULL, &m, &e), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(e.msg, "provides 0 planned buffers");
  /* Method allocator too small. */
  pte_allocator tiny;
  pte_allocator_init(&tiny, pool, 64);
  static _Alignas(16) uint8_t arena[32];
  pb.data = arena;
  pb.size = sizeof arena;
  pte_memory_manager_init(&mm, &tiny, &pb, 1, NULL);
  CHECK_STATUS(pte_method_load(&f.prog, "forward", &mm, NULL, NULL, &m, &e), PTE_ERR_MEMORY_ALLOCATION_FAILED);
  /* Exact sizes work: and the allocator's peak tells how much is needed. */
  pte_memory_manager_init(&mm, &ma, &pb, 1, NULL);
  CHECK_OK(pte_method_load(&f.prog, "forward", &mm, NULL, NULL, &m, &e));
  CHECK(ma.used > 0 && ma.used < 4096);
  pte_method_destroy(m);
  /* Unknown method name. */
  CHECK_STATUS(pte_method_load(&f.prog, "backward", &mm, NULL, NULL, &m, &e), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(e.msg, "backward");
  close_prog(&f);
}

TEST(missing_operator_named) {
  prog_file f;
  if (!open_prog(&f, "numpyrt_lstm.pte")) return;
  runner r;
  pte_status s = runner_load(&r, &f.prog, "forward", NULL);
  char msg[256];
  snprintf(msg, sizeof msg, "%s", r.err.msg);
  runner_free(&r);
  close_prog(&f);
  CHECK_STATUS(s, PTE_ERR_OPERATOR_MISSING);
  CHECK_CONTAINS(msg, "missing operators: etnp::lstm.out");

  if (!open_prog(&f, "pr17248_conv2d_quantized.pte")) return;
  s = runner_load(&r, &f.prog, "forward", NULL);
  snprintf(msg, sizeof msg, "%s", r.err.msg);
  runner_free(&r);
  close_prog(&f);
  CHECK_STATUS(s, PTE_ERR_OPERATOR_MISSING);
  CHECK_CONTAINS(msg, "cadence::quantize_per_tensor.out, cadence::quantized_conv2d_nchw.per_tensor_out, "
                      "cadence::dequantize_per_tensor.out");
}

TEST(method_meta_before_load) {
  prog_file f;
  if (!open_prog(&f, "numpyrt_lstm.pte")) return;
  pte_method_meta meta;
  pte_error_info e;
  CHECK_OK(pte_method_meta_get(&f.prog, "forward", &meta, &e));
  CHECK_EQ_INT(pte_method_meta_num_inputs(&meta), 3);
  CHECK_EQ_INT(pte_method_meta_num_outputs(&meta), 3);
  CHECK_EQ_INT(pte_method_meta_num_planned_buffers(&meta), 1);
  uint64_t sz;
  CHECK_OK(pte_method_meta_planned_buffer_size(&meta, 0, &sz));
  CHECK_EQ_INT(sz, 416);
  CHECK_STATUS(pte_method_meta_planned_buffer_size(&meta, 1, &sz), PTE_ERR_INVALID_ARGUMENT);
  pte_tensor_info ti;
  CHECK_OK(pte_method_meta_input_tensor_info(&meta, 0, &ti));
  CHECK(ti.dtype == PTE_DTYPE_FLOAT && ti.dim == 3 && ti.sizes[0] == 5 && ti.sizes[1] == 2 && ti.sizes[2] == 4);
  CHECK_EQ_INT(ti.nbytes, 160);
  CHECK(ti.is_memory_planned);
  CHECK_OK(pte_method_meta_output_tensor_info(&meta, 2, &ti));
  CHECK(ti.dim == 2 && ti.nbytes == 24);
  CHECK_STATUS(pte_method_meta_input_tensor_info(&meta, 3, &ti), PTE_ERR_INVALID_ARGUMENT);
  CHECK_EQ_INT(pte_method_meta_num_instructions(&meta), 1);
  CHECK_EQ_INT(pte_method_meta_num_delegates(&meta), 0);
  close_prog(&f);

  if (!open_prog(&f, "djl_spike_add_unplanned.pte")) return;
  CHECK_OK(pte_method_meta_get(&f.prog, "forward", &meta, &e));
  CHECK_OK(pte_method_meta_input_tensor_info(&meta, 0, &ti));
  CHECK(!ti.is_memory_planned);
  CHECK_EQ_INT(pte_method_meta_num_delegates(&meta), 1);
  CHECK_STR(pte_method_meta_delegate_id(&meta, 0), "XnnpackBackend");
  close_prog(&f);
}

/* ------------------------------------------------------------------ a stand-in delegate */

static int g_fake_mode; /* 0 add, 1 mul by scalar */
static int g_fake_inits, g_fake_destroys, g_fake_execs;
static size_t g_fake_blob_size;
static bool g_fake_blob_ok;

static pte_status fake_init(pte_backend_init_context *ctx, pte_freeable_buffer *processed, const pte_compile_spec *specs,
                            size_t n, pte_delegate_handle **handle) {
  (void)specs;
  (void)n;
  g_fake_inits++;
  g_fake_blob_size = processed->size;
  const uint8_t *p = (const uint8_t *)processed->data;
  g_fake_blob_ok = p && processed->size > 8 && p[0] == 0 && memcmp(p + 4, "XH00", 4) == 0;
  int *h = PTE_ALLOC(ctx->runtime_allocator, int);
  if (!h) return PTE_ERR_MEMORY_ALLOCATION_FAILED;
  *h = 0x5eed;
  *handle = h;
  pte_freeable_buffer_free(processed); /* done with the blob */
  return PTE_OK;
}

static pte_status fake_execute(pte_backend_execution_context *ctx, pte_delegate_handle *h, pte_evalue **args, size_t n) {
  (void)ctx;
  g_fake_execs++;
  if (*(int *)h != 0x5eed || n != 3) return PTE_ERR_DELEGATE_INVALID_HANDLE;
  pte_tensor *a = args[0]->u.tensor, *b = args[1]->u.tensor, *o = args[2]->u.tensor;
  if (pte_tensor_resize(o, a->sizes, a->dim) != PTE_OK) return PTE_ERR_INVALID_ARGUMENT;
  for (size_t i = 0; i < a->numel; i++) {
    float x = ((float *)a->data)[i];
    ((float *)o->data)[i] = g_fake_mode == 0 ? x + ((float *)b->data)[i] : x * ((float *)b->data)[0];
  }
  return PTE_OK;
}

static void fake_destroy(pte_delegate_handle *h) {
  if (*(int *)h == 0x5eed) g_fake_destroys++;
}

static const pte_backend k_fake_xnn = {NULL, fake_init, fake_execute, fake_destroy, NULL};

TEST(delegate_segment_with_stand_in_backend) {
  pte_backend_registry_reset();
  prog_file f;
  if (!open_prog(&f, "numpyrt_add.pte")) return;
  runner r;
  pte_status s = runner_load(&r, &f.prog, "forward", NULL);
  CHECK_STATUS(s, PTE_ERR_NOT_FOUND);
  CHECK_CONTAINS(r.err.msg, "XnnpackBackend");
  CHECK_CONTAINS(r.err.msg, "'forward'");
  runner_free(&r);

  CHECK_OK(pte_register_backend("XnnpackBackend", &k_fake_xnn));
  g_fake_inits = g_fake_destroys = g_fake_execs = 0;
  g_fake_mode = 0;
  LOAD_OK(&r, &f.prog, "forward", NULL);
  CHECK_EQ_INT(g_fake_inits, 1);
  CHECK_EQ_INT(g_fake_blob_size, 432);
  CHECK(g_fake_blob_ok);
  float a[3] = {1, 2, 3}, b[3] = {0.5f, -2, 10};
  int32_t s3[] = {3};
  CHECK_OK(pte_method_set_input_tensor(r.m, 0, PTE_DTYPE_FLOAT, s3, 1, a, 12, &r.err));
  CHECK_OK(pte_method_set_input_tensor(r.m, 1, PTE_DTYPE_FLOAT, s3, 1, b, 12, &r.err));
  EXEC_OK(&r);
  EXEC_OK(&r);
  CHECK_EQ_INT(g_fake_execs, 2);
  for (int i = 0; i < 3; i++) CHECK(((float *)out_tensor(&r, 0)->data)[i] == a[i] + b[i]);
  runner_free(&r);
  CHECK_EQ_INT(g_fake_destroys, 1);
  close_prog(&f);

  /* DYNAMIC_BOUND input through a delegate: x * 2.0 on float[<=8]. */
  if (!open_prog(&f, "numpyrt_dynamic.pte")) return;
  g_fake_mode = 1;
  LOAD_OK(&r, &f.prog, "forward", NULL);
  float x[5] = {1, 2, 3, 4, 5};
  int32_t s5[] = {5}, s9[] = {9};
  CHECK_OK(pte_method_set_input_tensor(r.m, 0, PTE_DTYPE_FLOAT, s5, 1, x, sizeof x, &r.err));
  EXEC_OK(&r);
  const pte_tensor *o = out_tensor(&r, 0);
  CHECK(o->dim == 1 && o->sizes[0] == 5 && o->numel == 5);
  for (int i = 0; i < 5; i++) CHECK(((float *)o->data)[i] == 2 * x[i]);
  float x9[9] = {0};
  CHECK_STATUS(pte_method_set_input_tensor(r.m, 0, PTE_DTYPE_FLOAT, s9, 1, x9, sizeof x9, &r.err), PTE_ERR_NOT_SUPPORTED);
  CHECK_CONTAINS(r.err.msg, "dynamic bound");
  runner_free(&r);
  close_prog(&f);
  pte_backend_registry_reset();
}

int main(void) {
  RUN(wrong_inputs_shape_count);
  RUN(planned_buffer_too_small_or_missing);
  RUN(missing_operator_named);
  RUN(method_meta_before_load);
  RUN(delegate_segment_with_stand_in_backend);
  return test_summary();
}
