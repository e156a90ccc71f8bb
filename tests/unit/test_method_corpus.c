/* Method load + execute on real upstream files from the corpus ($PTE_CORPUS).
 * Expected outputs are computed here independently (from the model's definition in MANIFEST.md
 * and from constants read straight out of the file bytes), or come from the io/ goldens. Errors
 * on real files and a stand-in delegate backend: test_method_corpus_errors.c. */
#define _POSIX_C_SOURCE 200809L
#include "test_method_corpus_util.h"

/* ------------------------------------------------------------------ tests */

TEST(arduino_add_model_golden) {
  register_portable();
  prog_file f;
  if (!open_prog(&f, "arduino_AddModel.pte")) return;
  size_t in_sz = 0, out_sz = 0;
  uint8_t *in = test_read_file(test_corpus_path("io/arduino_AddModel.input0.float32.bin"), &in_sz);
  uint8_t *exp = test_read_file(test_corpus_path("io/arduino_AddModel.expected_output0.float32.bin"), &out_sz);
  runner r;
  pte_status ls = runner_load(&r, &f.prog, "forward", NULL);
  bool ok = in && exp && in_sz == 12 && out_sz == 12 && ls == PTE_OK;
  int32_t sizes[] = {3};
  if (ok) ok = pte_method_set_input_tensor(r.m, 0, PTE_DTYPE_FLOAT, sizes, 1, in, in_sz, &r.err) == PTE_OK;
  if (ok) ok = pte_method_execute(r.m, &r.err) == PTE_OK;
  const pte_tensor *o = ok ? out_tensor(&r, 0) : NULL;
  bool match = o && o->dtype == PTE_DTYPE_FLOAT && o->numel == 3 && memcmp(o->data, exp, 12) == 0;
  /* Hand check too: [1,2,3] + 1. */
  bool hand = o && ((float *)o->data)[0] == 2.0f && ((float *)o->data)[2] == 4.0f;
  if (!ok) fprintf(stderr, "  %s\n", r.err.msg);
  free(in);
  free(exp);
  runner_free(&r);
  close_prog(&f);
  CHECK(ok);
  CHECK(match);
  CHECK(hand);
}

TEST(module_linear_3x_plus_2_constant_buffer) {
  register_portable();
  prog_file f;
  if (!open_prog(&f, "deprecated_ModuleLinear-no-constant-segment.pte")) return;
  /* Constants straight from the inline constant_buffer: [3,3,3,3] and [2,2,2,2]. */
  const void *c1, *c2;
  CHECK_OK(pte_program_constant_data(&f.prog, 1, 16, &c1));
  CHECK_OK(pte_program_constant_data(&f.prog, 2, 16, &c2));
  float a = ((const float *)c1)[0], b = ((const float *)c2)[0];
  CHECK(a == 3.0f && b == 2.0f);
  runner r;
  LOAD_OK(&r, &f.prog, "forward", NULL);
  CHECK_EQ_INT(pte_method_num_inputs(r.m), 1);
  float x[4] = {1, -2, 0.5f, 10};
  int32_t sizes[] = {2, 2};
  CHECK_OK(pte_method_set_input_tensor(r.m, 0, PTE_DTYPE_FLOAT, sizes, 2, x, sizeof x, &r.err));
  EXEC_OK(&r);
  const pte_tensor *o = out_tensor(&r, 0);
  CHECK(o && o->numel == 4);
  for (int i = 0; i < 4; i++) CHECK_NEAR(((float *)o->data)[i], a * x[i] + b, 0);
  /* The planner put the output on the input's slot (offset 0): executing again without setting
   * the input would read the previous output, as upstream. Set it again: same result. */
  CHECK(o->data == pte_method_get_input(r.m, 0)->u.tensor->data);
  CHECK_OK(pte_method_set_input_tensor(r.m, 0, PTE_DTYPE_FLOAT, sizes, 2, x, sizeof x, &r.err));
  EXEC_OK(&r);
  CHECK_NEAR(((float *)o->data)[3], 32.0f, 0);
  runner_free(&r);
  close_prog(&f);
}

TEST(etrs_data_map_with_ptd) {
  register_portable();
  prog_file f;
  ptd_file d;
  if (!open_prog(&f, "etrs_data_map_model.pte")) return;
  if (!open_ptd(&d, "etrs_data_map__default_external_constant.ptd")) { close_prog(&f); return; }
  const pte_named_data_map *map = pte_ptd_map(&d.ptd);
  pte_freeable_buffer ba, bb;
  CHECK_OK(pte_named_data_map_get_data(map, "a", &ba));
  CHECK_OK(pte_named_data_map_get_data(map, "b", &bb));
  float a[4], b[4];
  memcpy(a, ba.data, 16);
  memcpy(b, bb.data, 16);
  pte_freeable_buffer_free(&ba);
  pte_freeable_buffer_free(&bb);
  runner r;
  LOAD_OK(&r, &f.prog, "forward", map);
  float ones[4] = {1, 1, 1, 1};
  int32_t sizes[] = {2, 2};
  CHECK_OK(pte_method_set_input_tensor(r.m, 0, PTE_DTYPE_FLOAT, sizes, 2, ones, sizeof ones, &r.err));
  EXEC_OK(&r);
  const pte_tensor *o = out_tensor(&r, 0);
  CHECK(o && o->numel == 4);
  for (int i = 0; i < 4; i++) CHECK(((float *)o->data)[i] == 5.0f);
  float x[4] = {0, 1, 2, -3};
  CHECK_OK(pte_method_set_input_tensor(r.m, 0, PTE_DTYPE_FLOAT, sizes, 2, x, sizeof x, &r.err));
  EXEC_OK(&r);
  for (int i = 0; i < 4; i++) CHECK_NEAR(((float *)o->data)[i], x[i] * a[i] + b[i], 0);
  runner_free(&r);
  close_ptd(&d);
  close_prog(&f);
}

TEST(etrs_data_map_missing_ptd_is_invalid_state) {
  prog_file f;
  if (!open_prog(&f, "etrs_data_map_model.pte")) return;
  runner r;
  pte_status s = runner_load(&r, &f.prog, "forward", NULL);
  char msg[256];
  snprintf(msg, sizeof msg, "%s", r.err.msg);
  bool null_method = r.m == NULL;
  runner_free(&r);
  close_prog(&f);
  CHECK_STATUS(s, PTE_ERR_INVALID_STATE);
  CHECK_CONTAINS(msg, "external data map is null");
  CHECK(null_method);
}

/* xor: 2-10-2 MLP, cross-entropy; forward returns loss, argmax, 4 gradients, 4 params. */
TEST(xor_training_forward_with_ptd) {
  register_portable();
  prog_file f;
  ptd_file d;
  if (!open_prog(&f, "upstream_android_xor.pte")) return;
  if (!open_ptd(&d, "upstream_android_xor.ptd")) { close_prog(&f); return; }
  const pte_named_data_map *map = pte_ptd_map(&d.ptd);
  float W1[20], b1[10], W2[20], b2[2];
  struct { const char *k; float *dst; size_t n; } ps[] = {
      {"net.linear.weight", W1, 20}, {"net.linear.bias", b1, 10}, {"net.linear2.weight", W2, 20}, {"net.linear2.bias", b2, 2}};
  for (int i = 0; i < 4; i++) {
    pte_freeable_buffer b;
    CHECK_OK(pte_named_data_map_get_data(map, ps[i].k, &b));
    CHECK(b.size == ps[i].n * 4);
    memcpy(ps[i].dst, b.data, b.size);
    pte_freeable_buffer_free(&b);
  }
  runner r;
  LOAD_OK(&r, &f.prog, "forward", map);
  CHECK_EQ_INT(pte_method_num_outputs(r.m), 10);
  float x[2] = {1.0f, 0.0f};
  int64_t y[1] = {1};
  int32_t s12[] = {1, 2}, s1[] = {1};
  CHECK_OK(pte_method_set_input_tensor(r.m, 0, PTE_DTYPE_FLOAT, s12, 2, x, sizeof x, &r.err));
  CHECK_OK(pte_method_set_input_tensor(r.m, 1, PTE_DTYPE_LONG, s1, 1, y, sizeof y, &r.err));
  EXEC_OK(&r);

  /* Reference in double precision. */
  double h[10], z[2], p[2];
  for (int j = 0; j < 10; j++) {
    double pre = b1[j] + W1[j * 2] * x[0] + W1[j * 2 + 1] * x[1];
    h[j] = 1.0 / (1.0 + exp(-pre));
  }
  for (int k = 0; k < 2; k++) {
    z[k] = b2[k];
    for (int j = 0; j < 10; j++) z[k] += W2[k * 10 + j] * h[j];
  }
  double mx = z[0] > z[1] ? z[0] : z[1];
  double se = exp(z[0] - mx) + exp(z[1] - mx);
  for (int k = 0; k < 2; k++) p[k] = exp(z[k] - mx) / se;
  double loss = -(z[y[0]] - mx - log(se));
  double dz[2] = {p[0] - (y[0] == 0), p[1] - (y[0] == 1)};
  double dW2[20], dh[10], dpre[10], dW1[20];
  for (int k = 0; k < 2; k++)
    for (int j = 0; j < 10; j++) dW2[k * 10 + j] = dz[k] * h[j];
  for (int j = 0; j < 10; j++) {
    dh[j] = dz[0] * W2[j] + dz[1] * W2[10 + j];
    dpre[j] = dh[j] * h[j] * (1 - h[j]);
    dW1[j * 2] = dpre[j] * x[0];
    dW1[j * 2 + 1] = dpre[j] * x[1];
  }
  const pte_tensor *t_loss = out_tensor(&r, 0), *t_pred = out_tensor(&r, 1);
  CHECK(t_loss && t_loss->dim == 0 && t_loss->dtype == PTE_DTYPE_FLOAT);
  CHECK_NEAR(((float *)t_loss->data)[0], loss, 1e-5);
  CHECK(t_pred && t_pred->dtype == PTE_DTYPE_LONG);
  CHECK_EQ_INT(((int64_t *)t_pred->data)[0], z[1] > z[0] ? 1 : 0);
  const pte_tensor *g[4] = {out_tensor(&r, 2), out_tensor(&r, 3), out_tensor(&r, 4), out_tensor(&r, 5)};
  const double *gx[4] = {dW1, dpre, dW2, dz};
  size_t gn[4] = {20, 10, 20, 2};
  for (int i = 0; i < 4; i++) {
    CHECK(g[i] && g[i]->numel == gn[i]);
    for (size_t j = 0; j < gn[i]; j++) CHECK_NEAR(((float *)g[i]->data)[j], gx[i][j], 1e-5);
  }
  /* Params: the .ptd values copied into planned memory. */
  const float *pv[4] = {W1, b1, W2, b2};
  for (int i = 0; i < 4; i++) {
    const pte_tensor *t = out_tensor(&r, 6 + (size_t)i);
    CHECK(t && t->numel == ps[i].n && memcmp(t->data, pv[i], ps[i].n * 4) == 0);
  }
  runner_free(&r);

  /* The three constant methods. */
  LOAD_OK(&r, &f.prog, "__et_training_gradients_index_forward", map);
  EXEC_OK(&r);
  CHECK(pte_method_get_output(r.m, 0)->tag == PTE_TAG_INT && pte_method_get_output(r.m, 0)->u.i == 2);
  runner_free(&r);
  LOAD_OK(&r, &f.prog, "__et_training_parameters_index_forward", map);
  EXEC_OK(&r);
  CHECK(pte_method_get_output(r.m, 0)->u.i == 6);
  runner_free(&r);
  LOAD_OK(&r, &f.prog, "__et_training_fqn_forward", map);
  EXEC_OK(&r);
  CHECK_EQ_INT(pte_method_num_outputs(r.m), 4);
  const pte_evalue *s3 = pte_method_get_output(r.m, 3);
  CHECK(s3->tag == PTE_TAG_STRING && s3->u.str.len == 16 && memcmp(s3->u.str.ptr, "net.linear2.bias", 16) == 0);
  runner_free(&r);
  close_ptd(&d);
  close_prog(&f);
}

TEST(xor_missing_ptd_is_invalid_external_data) {
  prog_file f;
  if (!open_prog(&f, "upstream_android_xor.pte")) return;
  runner r;
  pte_status s = runner_load(&r, &f.prog, "forward", NULL);
  char msg[256];
  snprintf(msg, sizeof msg, "%s", r.err.msg);
  runner_free(&r);
  close_prog(&f);
  CHECK_STATUS(s, PTE_ERR_INVALID_EXTERNAL_DATA);
  CHECK_CONTAINS(msg, "net.linear.weight");
}

/* dnf_executorch1: y = tanh(w.x + b), e = t - y, loss = e^2, gradients w.r.t. w and b. */
TEST(dnf1_forward_backward_mutable_state) {
  register_portable();
  prog_file f;
  if (!open_prog(&f, "dnf_test_dnf_executorch1.pte")) return;
  /* Initial parameters straight from the file: mutable segment 1 at base 6784 + 128. */
  float w[50], b;
  for (int i = 0; i < 50; i++) w[i] = rd_f32(f.bytes + 6912 + 4 * i);
  b = rd_f32(f.bytes + 6912 + 200);
  runner r;
  LOAD_OK(&r, &f.prog, "forward", NULL);
  float x[50], t[1] = {0.25f};
  for (int i = 0; i < 50; i++) x[i] = (float)((i % 7) - 3) * 0.5f;
  int32_t s150[] = {1, 50}, s1[] = {1};
  for (int run = 0; run < 2; run++) {
    /* Inputs again on every run: the `error` output is planned on the target input's slot. */
    CHECK_OK(pte_method_set_input_tensor(r.m, 0, PTE_DTYPE_FLOAT, s150, 2, x, sizeof x, &r.err));
    CHECK_OK(pte_method_set_input_tensor(r.m, 1, PTE_DTYPE_FLOAT, s1, 1, t, sizeof t, &r.err));
    EXEC_OK(&r);
    double pre = b;
    for (int i = 0; i < 50; i++) pre += (double)w[i] * x[i];
    double y = tanh(pre), e = t[0] - y, dpre = -2 * e * (1 - y * y);
    CHECK_NEAR(((float *)out_tensor(&r, 0)->data)[0], e * e, 1e-6);
    CHECK_NEAR(((float *)out_tensor(&r, 1)->data)[0], y, 1e-6);
    CHECK_NEAR(((float *)out_tensor(&r, 2)->data)[0], e, 1e-6);
    const pte_tensor *gw = out_tensor(&r, 3);
    CHECK(gw && gw->numel == 50);
    for (int i = 0; i < 50; i++) CHECK_NEAR(((float *)gw->data)[i], dpre * x[i], 1e-6);
    CHECK_NEAR(((float *)out_tensor(&r, 4)->data)[0], dpre, 1e-6);
    CHECK(memcmp(out_tensor(&r, 5)->data, w, sizeof w) == 0);
    CHECK(((float *)out_tensor(&r, 6)->data)[0] == b);
  }
  runner_free(&r);
  LOAD_OK(&r, &f.prog, "__et_training_fqn_forward", NULL);
  EXEC_OK(&r);
  const pte_evalue *s0 = pte_method_get_output(r.m, 0);
  CHECK(s0->tag == PTE_TAG_STRING && s0->u.str.len == strlen("net.seq.Layer0.weight"));
  CHECK(memcmp(s0->u.str.ptr, "net.seq.Layer0.weight", s0->u.str.len) == 0);
  runner_free(&r);
  LOAD_OK(&r, &f.prog, "__et_training_gradients_index_forward", NULL);
  EXEC_OK(&r);
  CHECK(pte_method_get_output(r.m, 0)->u.i == 3);
  runner_free(&r);
  LOAD_OK(&r, &f.prog, "__et_training_parameters_index_forward", NULL);
  EXEC_OK(&r);
  CHECK(pte_method_get_output(r.m, 0)->u.i == 5);
  runner_free(&r);
  close_prog(&f);
}

/* dnf_executorch5: 50->23->11->5->3->1 tanh layers; check output, error and loss. */
TEST(dnf5_forward_and_training_methods) {
  register_portable();
  prog_file f;
  if (!open_prog(&f, "dnf_test_dnf_executorch5.pte")) return;
  static const int dims[6] = {50, 23, 11, 5, 3, 1};
  static const uint32_t offs[11] = {0, 0, 4600, 4692, 5704, 5748, 5968, 5988, 6048, 6060, 6072};
  const uint8_t *seg = f.bytes + 19840 + 128;
  float x[50], t[1] = {-0.5f};
  for (int i = 0; i < 50; i++) x[i] = (float)((i * 37) % 11 - 5) * 0.1f;
  double h[50], nh[50];
  for (int i = 0; i < 50; i++) h[i] = x[i];
  for (int l = 0; l < 5; l++) {
    const uint8_t *W = seg + offs[1 + 2 * l], *B = seg + offs[2 + 2 * l];
    for (int o = 0; o < dims[l + 1]; o++) {
      double acc = rd_f32(B + 4 * o);
      for (int i = 0; i < dims[l]; i++) acc += (double)rd_f32(W + 4 * (o * dims[l] + i)) * h[i];
      nh[o] = tanh(acc);
    }
    for (int o = 0; o < dims[l + 1]; o++) h[o] = nh[o];
  }
  double e = t[0] - h[0];
  runner r;
  LOAD_OK(&r, &f.prog, "forward", NULL);
  int32_t s150[] = {1, 50}, s1[] = {1};
  CHECK_OK(pte_method_set_input_tensor(r.m, 0, PTE_DTYPE_FLOAT, s150, 2, x, sizeof x, &r.err));
  CHECK_OK(pte_method_set_input_tensor(r.m, 1, PTE_DTYPE_FLOAT, s1, 1, t, sizeof t, &r.err));
  EXEC_OK(&r);
  CHECK_EQ_INT(pte_method_num_outputs(r.m), 23);
  CHECK_NEAR(((float *)out_tensor(&r, 1)->data)[0], h[0], 1e-5);
  CHECK_NEAR(((float *)out_tensor(&r, 2)->data)[0], e, 1e-5);
  CHECK_NEAR(((float *)out_tensor(&r, 0)->data)[0], e * e, 1e-5);
  /* Last parameter output (v9, layer-4 bias) equals its initial bytes. */
  CHECK(memcmp(out_tensor(&r, 22)->data, seg + offs[10], 4) == 0);
  runner_free(&r);
  LOAD_OK(&r, &f.prog, "__et_training_fqn_forward", NULL);
  EXEC_OK(&r);
  CHECK_EQ_INT(pte_method_num_outputs(r.m), 10);
  const pte_evalue *s9 = pte_method_get_output(r.m, 9);
  CHECK(s9->tag == PTE_TAG_STRING && s9->u.str.len == 19 && memcmp(s9->u.str.ptr, "net.seq.Layer4.bias", 19) == 0);
  runner_free(&r);
  LOAD_OK(&r, &f.prog, "__et_training_gradients_index_forward", NULL);
  EXEC_OK(&r);
  CHECK(pte_method_get_output(r.m, 0)->u.i == 3);
  runner_free(&r);
  LOAD_OK(&r, &f.prog, "__et_training_parameters_index_forward", NULL);
  EXEC_OK(&r);
  CHECK(pte_method_get_output(r.m, 0)->u.i == 13);
  runner_free(&r);
  close_prog(&f);
}

TEST(const_methods) {
  register_portable();
  prog_file f;
  if (!open_prog(&f, "numpyrt_const_methods.pte")) return;
  runner r;
  LOAD_OK(&r, &f.prog, "get_scalar", NULL);
  CHECK_EQ_INT(pte_method_num_inputs(r.m), 0);
  EXEC_OK(&r);
  CHECK(pte_method_get_output(r.m, 0)->tag == PTE_TAG_INT && pte_method_get_output(r.m, 0)->u.i == 128);
  runner_free(&r);
  LOAD_OK(&r, &f.prog, "get_double", NULL);
  EXEC_OK(&r);
  CHECK(pte_method_get_output(r.m, 0)->tag == PTE_TAG_DOUBLE && pte_method_get_output(r.m, 0)->u.d == 2.5);
  runner_free(&r);
  LOAD_OK(&r, &f.prog, "get_bool", NULL);
  EXEC_OK(&r);
  CHECK(pte_method_get_output(r.m, 0)->tag == PTE_TAG_BOOL && pte_method_get_output(r.m, 0)->u.b);
  runner_free(&r);
  LOAD_OK(&r, &f.prog, "get_tensor", NULL);
  EXEC_OK(&r);
  const pte_tensor *t = out_tensor(&r, 0);
  /* Constant segment (file offset 2304) offset 16: int64 [1, 2, 3]. */
  int64_t want[3];
  memcpy(want, f.bytes + 2304 + 16, sizeof want);
  CHECK(want[0] == 1 && want[1] == 2 && want[2] == 3);
  CHECK(t && t->dtype == PTE_DTYPE_LONG && t->numel == 3 && memcmp(t->data, want, sizeof want) == 0);
  CHECK(t->flags & PTE_TENSOR_CONST);
  /* A constant output cannot be redirected. */
  int64_t buf[3];
  CHECK_STATUS(pte_method_set_output_data_ptr(r.m, 0, buf, sizeof buf, &r.err), PTE_ERR_INVALID_STATE);
  runner_free(&r);
  LOAD_OK(&r, &f.prog, "forward", NULL);
  float x[3] = {-1, 0, 41};
  int32_t s3[] = {3};
  CHECK_OK(pte_method_set_input_tensor(r.m, 0, PTE_DTYPE_FLOAT, s3, 1, x, sizeof x, &r.err));
  EXEC_OK(&r);
  for (int i = 0; i < 3; i++) CHECK(((float *)out_tensor(&r, 0)->data)[i] == x[i] + 1);
  runner_free(&r);
  close_prog(&f);
}

TEST(berry_identity_zero_instructions) {
  prog_file f;
  if (!open_prog(&f, "berry_identity.pte")) return;
  runner r;
  LOAD_OK(&r, &f.prog, "forward", NULL);
  float x = 7.25f;
  int32_t s1[] = {1};
  CHECK_OK(pte_method_set_input_tensor(r.m, 0, PTE_DTYPE_FLOAT, s1, 1, &x, 4, &r.err));
  x = 0; /* planned input: the method holds a copy */
  EXEC_OK(&r);
  const pte_tensor *o = out_tensor(&r, 0);
  CHECK(o && o->data == r.planned[0].data);
  CHECK(((float *)o->data)[0] == 7.25f);
  /* step(): the empty chain advances, then EndOfMethod, then reset. */
  CHECK_OK(pte_method_step(r.m, &r.err));
  CHECK_STATUS(pte_method_step(r.m, &r.err), PTE_END_OF_METHOD);
  CHECK_STATUS(pte_method_set_input_tensor(r.m, 0, PTE_DTYPE_FLOAT, s1, 1, &x, 4, &r.err), PTE_ERR_INVALID_STATE);
  CHECK_OK(pte_method_reset_execution(r.m));
  CHECK_OK(pte_method_set_input_tensor(r.m, 0, PTE_DTYPE_FLOAT, s1, 1, &x, 4, &r.err));
  runner_free(&r);
  close_prog(&f);
}

TEST(numpyrt_dtypes_two_outputs) {
  register_portable();
  prog_file f;
  if (!open_prog(&f, "numpyrt_dtypes.pte")) return;
  runner r;
  LOAD_OK(&r, &f.prog, "forward", NULL);
  int64_t a = 21000000000ll;
  float b = -1.25f;
  int32_t s1[] = {1};
  CHECK_OK(pte_method_set_input_tensor(r.m, 0, PTE_DTYPE_LONG, s1, 1, &a, 8, &r.err));
  CHECK_OK(pte_method_set_input_tensor(r.m, 1, PTE_DTYPE_FLOAT, s1, 1, &b, 4, &r.err));
  EXEC_OK(&r);
  CHECK(out_tensor(&r, 0)->dtype == PTE_DTYPE_LONG && ((int64_t *)out_tensor(&r, 0)->data)[0] == 42000000000ll);
  CHECK(out_tensor(&r, 1)->dtype == PTE_DTYPE_FLOAT && ((float *)out_tensor(&r, 1)->data)[0] == -2.5f);
  /* Wrong dtype for input 0. */
  float bad = 1;
  CHECK_STATUS(pte_method_set_input_tensor(r.m, 0, PTE_DTYPE_FLOAT, s1, 1, &bad, 4, &r.err), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(r.err.msg, "input 0: expected int64[1], got float32[1]");
  runner_free(&r);
  close_prog(&f);
}

TEST(prim_input_double) {
  register_portable();
  prog_file f;
  if (!open_prog(&f, "djl_spike_prim_input.pte")) return;
  runner r;
  LOAD_OK(&r, &f.prog, "forward", NULL);
  pte_method_meta const *meta = pte_method_get_meta(r.m);
  pte_tag tag;
  CHECK_OK(pte_method_meta_input_tag(meta, 1, &tag));
  CHECK_EQ_INT(tag, PTE_TAG_DOUBLE);
  float x[4] = {1, 2, -3, 0.5f};
  int32_t s4[] = {4};
  CHECK_OK(pte_method_set_input_tensor(r.m, 0, PTE_DTYPE_FLOAT, s4, 1, x, sizeof x, &r.err));
  pte_evalue d;
  memset(&d, 0, sizeof d);
  d.tag = PTE_TAG_DOUBLE;
  d.u.d = 3.0;
  CHECK_STATUS(pte_method_set_input(r.m, 1, &d, &r.err), PTE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(pte_method_execute(r.m, &r.err), PTE_ERR_INVALID_ARGUMENT); /* input 1 not set */
  CHECK_CONTAINS(r.err.msg, "input 1");
  d.u.d = 2.00001; /* within atol 1e-4 */
  CHECK_OK(pte_method_set_input(r.m, 1, &d, &r.err));
  pte_evalue i64;
  memset(&i64, 0, sizeof i64);
  i64.tag = PTE_TAG_INT;
  i64.u.i = 2;
  CHECK_STATUS(pte_method_set_input(r.m, 1, &i64, &r.err), PTE_ERR_INVALID_ARGUMENT);
  EXEC_OK(&r);
  for (int i = 0; i < 4; i++) CHECK(((float *)out_tensor(&r, 0)->data)[i] == x[i] * 2.0f);
  runner_free(&r);
  close_prog(&f);
}

TEST(numpyrt_multi_two_methods) {
  register_portable();
  prog_file f;
  if (!open_prog(&f, "numpyrt_multi.pte")) return;
  const char *names[2] = {"double", "forward"};
  for (int k = 0; k < 2; k++) {
    runner r;
    LOAD_OK(&r, &f.prog, names[k], NULL);
    float x[2] = {3.5f, -8};
    int32_t s2[] = {2};
    CHECK_OK(pte_method_set_input_tensor(r.m, 0, PTE_DTYPE_FLOAT, s2, 1, x, sizeof x, &r.err));
    EXEC_OK(&r);
    CHECK(((float *)out_tensor(&r, 0)->data)[0] == 4.5f && ((float *)out_tensor(&r, 0)->data)[1] == -7.0f);
    runner_free(&r);
  }
  close_prog(&f);
}

TEST(bundled_program_inner_forward) {
  register_portable();
  size_t size = 0;
  uint8_t *bytes = test_read_corpus("module_test_bundled_program.bpte", &size);
  if (!bytes) return;
  pte_buffer_loader bl;
  pte_buffer_loader_init(&bl, bytes, size);
  pte_bundled_program bp;
  pte_error_info e;
  if (pte_bundled_program_load(&bl.base, &bp, &e) != PTE_OK) {
    free(bytes);
    CHECK_MSG(0, "bundled load: %s", e.msg);
  }
  pte_program prog;
  if (pte_program_load(pte_bundled_program_loader(&bp), PTE_VERIFY_INTERNAL_CONSISTENCY, &prog, &e) != PTE_OK) {
    pte_bundled_program_destroy(&bp);
    free(bytes);
    CHECK_MSG(0, "inner program: %s", e.msg);
  }
  size_t en = 0;
  uint8_t *expect = test_read_file(test_corpus_path("io/bundled_program.forward.case0.expected_output0.int32.bin"), &en);
  runner r;
  pte_status ls = runner_load(&r, &prog, "forward", NULL);
  bool ok = ls == PTE_OK && expect && en == 16;
  int32_t s22[] = {2, 2};
  int32_t zero[4] = {0, 0, 0, 0};
  int32_t x[4] = {1, 2, -3, 40}, q[4] = {10, 20, 30, 40};
  bool golden = false, custom = false;
  if (ok) {
    pte_method_set_input_tensor(r.m, 0, PTE_DTYPE_INT, s22, 2, zero, 16, &r.err);
    pte_method_set_input_tensor(r.m, 1, PTE_DTYPE_INT, s22, 2, zero, 16, &r.err);
    golden = pte_method_execute(r.m, &r.err) == PTE_OK && memcmp(out_tensor(&r, 0)->data, expect, 16) == 0;
    pte_method_set_input_tensor(r.m, 0, PTE_DTYPE_INT, s22, 2, x, 16, &r.err);
    pte_method_set_input_tensor(r.m, 1, PTE_DTYPE_INT, s22, 2, q, 16, &r.err);
    custom = pte_method_execute(r.m, &r.err) == PTE_OK;
    for (int i = 0; custom && i < 4; i++) custom = ((int32_t *)out_tensor(&r, 0)->data)[i] == 3 * x[i] + 2 + q[i];
  }
  if (!golden || !custom) fprintf(stderr, "  %s\n", r.err.msg);
  runner_free(&r);
  free(expect);
  pte_program_destroy(&prog);
  pte_bundled_program_destroy(&bp);
  free(bytes);
  CHECK(ok);
  CHECK(golden);
  CHECK(custom);
}

TEST(pr17248_add_softmax_maxpool) {
  register_portable();
  prog_file f;
  runner r;
  if (!open_prog(&f, "pr17248_add.pte")) return;
  LOAD_OK(&r, &f.prog, "forward", NULL);
  float a = 1.5f, b = 2.25f;
  int32_t s1[] = {1};
  CHECK_OK(pte_method_set_input_tensor(r.m, 0, PTE_DTYPE_FLOAT, s1, 1, &a, 4, &r.err));
  CHECK_OK(pte_method_set_input_tensor(r.m, 1, PTE_DTYPE_FLOAT, s1, 1, &b, 4, &r.err));
  EXEC_OK(&r);
  CHECK(((float *)out_tensor(&r, 0)->data)[0] == 3.75f);
  runner_free(&r);
  close_prog(&f);

  if (!open_prog(&f, "pr17248_softmax.pte")) return;
  LOAD_OK(&r, &f.prog, "forward", NULL);
  static float sx[2 * 4096];
  for (int i = 0; i < 2 * 4096; i++) sx[i] = (float)sin(i * 0.37) * 4.0f;
  int32_t s24[] = {2, 4096};
  CHECK_OK(pte_method_set_input_tensor(r.m, 0, PTE_DTYPE_FLOAT, s24, 2, sx, sizeof sx, &r.err));
  EXEC_OK(&r);
  const float *so = (const float *)out_tensor(&r, 0)->data;
  for (int row = 0; row < 2; row++) {
    double mx = -1e30, sum = 0;
    for (int j = 0; j < 4096; j++) mx = sx[row * 4096 + j] > mx ? sx[row * 4096 + j] : mx;
    for (int j = 0; j < 4096; j++) sum += exp(sx[row * 4096 + j] - mx);
    for (int j = 0; j < 4096; j += 97) CHECK_NEAR(so[row * 4096 + j], exp(sx[row * 4096 + j] - mx) / sum, 1e-8);
  }
  runner_free(&r);
  close_prog(&f);

  if (!open_prog(&f, "pr17248_maxpool2d.pte")) return;
  LOAD_OK(&r, &f.prog, "forward", NULL);
  size_t n_in = 64 * 112 * 112;
  float *px = malloc(n_in * sizeof(float));
  for (size_t i = 0; i < n_in; i++) px[i] = (float)((i * 2654435761u) % 1000) * 0.01f - 5.0f;
  int32_t sin4[] = {1, 64, 112, 112};
  CHECK_OK(pte_method_set_input_tensor(r.m, 0, PTE_DTYPE_FLOAT, sin4, 4, px, n_in * 4, &r.err));
  EXEC_OK(&r);
  const pte_tensor *po = out_tensor(&r, 0);
  CHECK(po && po->numel == 64 * 56 * 56);
  /* kernel 3x3, stride 2, padding 1, dilation 1 (values read from the plan's IntLists). */
  int bad = 0;
  for (int c = 0; c < 64 && !bad; c++)
    for (int oy = 0; oy < 56; oy++)
      for (int ox = 0; ox < 56; ox++) {
        float m = -1e30f;
        for (int ky = 0; ky < 3; ky++)
          for (int kx = 0; kx < 3; kx++) {
            int iy = oy * 2 - 1 + ky, ix = ox * 2 - 1 + kx;
            if (iy < 0 || ix < 0 || iy >= 112 || ix >= 112) continue;
            float v = px[(size_t)c * 112 * 112 + (size_t)iy * 112 + (size_t)ix];
            if (v > m) m = v;
          }
        if (((const float *)po->data)[(size_t)c * 56 * 56 + (size_t)oy * 56 + (size_t)ox] != m) bad++;
      }
  free(px);
  runner_free(&r);
  close_prog(&f);
  CHECK_EQ_INT(bad, 0);
}

TEST(med_output_512mib_expand) {
  register_portable();
  prog_file f;
  if (!open_prog(&f, "djl_spike_med_output.pte")) return;
  runner r;
  pte_status s = runner_load(&r, &f.prog, "forward", NULL);
  if (s == PTE_ERR_MEMORY_ALLOCATION_FAILED && !r.m) {
    runner_free(&r);
    close_prog(&f);
    SKIP("cannot allocate 512 MiB");
  }
  if (s != PTE_OK) {
    runner_free(&r);
    close_prog(&f);
    CHECK_MSG(0, "load: %s", r.err.msg);
  }
  float x = 0.75f;
  int32_t s1[] = {1};
  CHECK_OK(pte_method_set_input_tensor(r.m, 0, PTE_DTYPE_FLOAT, s1, 1, &x, 4, &r.err));
  EXEC_OK(&r);
  const pte_tensor *o = out_tensor(&r, 0);
  CHECK(o && o->numel == 134217728u);
  size_t bad = 0;
  for (size_t i = 0; i < o->numel; i += 4099) bad += ((float *)o->data)[i] != 0.75f;
  bad += ((float *)o->data)[o->numel - 1] != 0.75f;
  CHECK_EQ_INT(bad, 0);
  runner_free(&r);
  close_prog(&f);
}

int main(void) {
  RUN(arduino_add_model_golden);
  RUN(module_linear_3x_plus_2_constant_buffer);
  RUN(etrs_data_map_with_ptd);
  RUN(etrs_data_map_missing_ptd_is_invalid_state);
  RUN(xor_training_forward_with_ptd);
  RUN(xor_missing_ptd_is_invalid_external_data);
  RUN(dnf1_forward_backward_mutable_state);
  RUN(dnf5_forward_and_training_methods);
  RUN(const_methods);
  RUN(berry_identity_zero_instructions);
  RUN(numpyrt_dtypes_two_outputs);
  RUN(prim_input_double);
  RUN(numpyrt_multi_two_methods);
  RUN(bundled_program_inner_forward);
  RUN(pr17248_add_softmax_maxpool);
  RUN(med_output_512mib_expand);
  return test_summary();
}
