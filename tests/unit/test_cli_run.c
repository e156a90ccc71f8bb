/* `pte run` and `pte test` (the built CLI, $PTE_CLI) on corpus files ($PTE_CORPUS). Expected values
 * come from the io/ goldens, from the models' definitions in MANIFEST.md computed here by hand, or
 * from bytes read straight out of the files. */
#define _POSIX_C_SOURCE 200809L
#include "test_cli_run_util.h"

/* ------------------------------------------------------------------ usage */
TEST(help_and_usage_errors) {
  if (!env_ok()) return;
  run_result r = pte(true, "run --help");
  CHECK_EQ_INT(r.rc, 0);
  CHECK_CONTAINS(r.out, "usage: pte run FILE");
  CHECK_CONTAINS(r.out, "--input-fill");
  free(r.out);
  r = pte(true, "test --help");
  CHECK_EQ_INT(r.rc, 0);
  CHECK_CONTAINS(r.out, "rtol 1e-5, atol 1e-8");
  free(r.out);
  char p[1024];
  cp("arduino_AddModel.pte", p, sizeof p);
  const char *bad[] = {"run", "run --bogus x.pte", "run '%s' --repeat 0", "run '%s' --repeat abc", "run '%s' --loader nfs",
                       "run '%s' --input-fill twos", "run '%s' --method", "run '%s' '%s'", "test", "test '%s' --rtol -1",
                       "test '%s' --atol", "test '%s' --frobnicate"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    run_result b = pte(true, bad[i], p, p);
    CHECK_MSG(b.rc == 2, "'%s' exited %d, expected 2", bad[i], b.rc);
    free(b.out);
  }
  r = pte(true, "run");
  CHECK_CONTAINS(r.out, "no FILE given");
  free(r.out);
}

/* ------------------------------------------------------------------ pte run */
TEST(arduino_add_raw_input_writes_golden_npy) {
  if (!env_ok()) return;
  char p[1024], in[1024], exp[1024];
  cp("arduino_AddModel.pte", p, sizeof p);
  cp("io/arduino_AddModel.input0.float32.bin", in, sizeof in);
  cp("io/arduino_AddModel.expected_output0.float32.bin", exp, sizeof exp);
  const char *dir = tmpdir("run_arduino");
  run_result r = pte(true, "run '%s' --input '%s' --output-dir '%s'", p, in, dir);
  CHECK_MSG(r.rc == 0, "rc %d: %s", r.rc, r.out);
  CHECK_CONTAINS(r.out, "method     forward");
  CHECK_CONTAINS(r.out, "(raw)");
  CHECK_CONTAINS(r.out, "float32[3] = [2, 3, 4]");
  free(r.out);
  char outp[2048];
  snprintf(outp, sizeof outp, "%s/forward.output0.npy", dir);
  pte_npy_array a;
  char err[256];
  CHECK_MSG(pte_npy_load(outp, &a, err, sizeof err) == 0, "%s: %s", outp, err);
  size_t n = 0;
  uint8_t *want = test_read_file(exp, &n);
  bool ok = want && n == 12 && a.dtype == PTE_DTYPE_FLOAT && a.dim == 1 && a.sizes[0] == 3 && a.nbytes == 12 &&
            memcmp(a.data, want, 12) == 0;
  free(want);
  pte_npy_free(&a);
  CHECK(ok);
}

TEST(module_linear_npy_inputs_c_and_fortran) {
  if (!env_ok()) return;
  char p[1024];
  cp("deprecated_ModuleLinear-no-constant-segment.pte", p, sizeof p);
  const char *dir = tmpdir("run_linear");
  char in_c[2048], in_f[2048];
  snprintf(in_c, sizeof in_c, "%s/x_c.npy", dir);
  snprintf(in_f, sizeof in_f, "%s/x_f.npy", dir);
  /* x = [[1, -2], [0.5, 10]]: C order, and the same array stored Fortran order */
  float xc[4] = {1, -2, 0.5f, 10};
  int32_t sizes[2] = {2, 2};
  CHECK(write_npy(in_c, PTE_DTYPE_FLOAT, sizes, 2, xc));
  size_t len;
  uint8_t *img = pte_npy_encode(PTE_DTYPE_FLOAT, sizes, 2, xc, &len, NULL, 0);
  CHECK(img != NULL);
  char *fo = strstr((char *)img + 10, "'fortran_order': False");
  CHECK(fo != NULL);
  memcpy(fo, "'fortran_order': True, ", 23); /* one byte shorter: the dict keeps a valid extra space */
  float xf[4] = {1, 0.5f, -2, 10};
  memcpy(img + len - 16, xf, 16);
  CHECK(test_write_file(in_f, img, len) == 0);
  free(img);
  const char *ins[2] = {in_c, in_f};
  for (int k = 0; k < 2; k++) {
    run_result r = pte(false, "run '%s' --input '%s' --json", p, ins[k]);
    CHECK_MSG(r.rc == 0, "rc %d", r.rc);
    test_json *j = parse_json(r.out);
    free(r.out);
    CHECK(j != NULL);
    double v[8];
    size_t n = json_values(j, 0, v, 8);
    CHECK_EQ_INT(n, 4);
    for (int i = 0; i < 4; i++) CHECK_NEAR(v[i], 3.0 * xc[i] + 2.0, 0); /* 3x + 2 */
    CHECK_STR(test_json_str(J(j, "inputs[0].source")), ins[k]);
    test_json_free(j);
  }
}

TEST(etrs_data_map_with_and_without_ptd) {
  if (!env_ok()) return;
  char p[1024], d[1024];
  cp("etrs_data_map_model.pte", p, sizeof p);
  cp("etrs_data_map__default_external_constant.ptd", d, sizeof d);
  run_result r = pte(false, "run '%s' --data '%s' --json", p, d);
  CHECK_EQ_INT(r.rc, 0);
  test_json *j = parse_json(r.out);
  free(r.out);
  CHECK(j != NULL);
  CHECK(J(j, "default_fill") && J(j, "default_fill")->b);
  CHECK_STR(test_json_str(J(j, "inputs[0].source")), "ones");
  double v[8];
  CHECK_EQ_INT(json_values(j, 0, v, 8), 4);
  for (int i = 0; i < 4; i++) CHECK_NEAR(v[i], 5.0, 0); /* 3 * 1 + 2 */
  CHECK_STR(test_json_str(J(j, "data")), d);
  test_json_free(j);
  r = pte(true, "run '%s'", p);
  CHECK_EQ_INT(r.rc, 1);
  CHECK_CONTAINS(r.out, "pte run: ");
  CHECK_CONTAINS(r.out, "InvalidState (0x02): method 'forward' needs external data (a, b) from a .ptd file: pass --data FILE.ptd");
  CHECK(strchr(r.out, '\n') == r.out + strlen(r.out) - 1); /* one line */
  free(r.out);
}

TEST(const_methods_each_method) {
  if (!env_ok()) return;
  char p[1024];
  cp("numpyrt_const_methods.pte", p, sizeof p);
  size_t fsize = 0;
  uint8_t *bytes = test_read_file(p, &fsize);
  CHECK(bytes && fsize == 2344);
  /* get_tensor returns the LONG[3] constant stored in the last 24 bytes of the constant segment */
  int64_t want[3];
  memcpy(want, bytes + 2320, 24);
  free(bytes);
  const char *dir = tmpdir("run_const");
  struct { const char *method, *kind; double value; } cases[] = {
      {"get_scalar", "Int", 128}, {"get_double", "Double", 2.5}, {"get_bool", "Bool", 1}};
  for (size_t i = 0; i < 3; i++) {
    run_result r = pte(false, "run '%s' --method %s --json --output-dir '%s'", p, cases[i].method, dir);
    CHECK_EQ_INT(r.rc, 0);
    test_json *j = parse_json(r.out);
    free(r.out);
    CHECK(j != NULL);
    CHECK_STR(test_json_str(J(j, "method")), cases[i].method);
    CHECK_STR(test_json_str(J(j, "outputs[0].kind")), cases[i].kind);
    const test_json *val = J(j, "outputs[0].value");
    double got = val && val->type == TEST_JSON_BOOL ? (val->b ? 1 : 0) : test_json_num(val, NAN);
    CHECK_NEAR(got, cases[i].value, 0);
    test_json_free(j);
  }
  /* the Int output saved as a 0-d int64 array */
  char np[2048];
  snprintf(np, sizeof np, "%s/get_scalar.output0.npy", dir);
  pte_npy_array a;
  CHECK(pte_npy_load(np, &a, NULL, 0) == 0);
  CHECK(a.dtype == PTE_DTYPE_LONG && a.dim == 0 && a.nbytes == 8 && *(int64_t *)a.data == 128);
  pte_npy_free(&a);
  run_result r = pte(false, "run '%s' --method get_tensor --json", p);
  CHECK_EQ_INT(r.rc, 0);
  test_json *j = parse_json(r.out);
  free(r.out);
  CHECK(j != NULL);
  CHECK_STR(test_json_str(J(j, "outputs[0].dtype")), "int64");
  double v[4];
  CHECK_EQ_INT(json_values(j, 0, v, 4), 3);
  for (int i = 0; i < 3; i++) CHECK_NEAR(v[i], (double)want[i], 0);
  test_json_free(j);
  r = pte(true, "run '%s' --method forward", p);
  CHECK_EQ_INT(r.rc, 0);
  CHECK_CONTAINS(r.out, "float32[3] = [2, 2, 2]"); /* x + 1 on ones */
  free(r.out);
  r = pte(true, "run '%s' --method nope", p);
  CHECK_EQ_INT(r.rc, 1);
  CHECK_CONTAINS(r.out, "InvalidArgument (0x12): no method 'nope' (methods: forward, get_scalar, get_double, get_bool, get_tensor)");
  free(r.out);
}

static double sigm(double x) { return 1.0 / (1.0 + exp(-x)); }

TEST(xor_all_methods_with_ptd_hand_checked) {
  if (!env_ok()) return;
  char p[1024], d[1024];
  cp("upstream_android_xor.pte", p, sizeof p);
  cp("upstream_android_xor.ptd", d, sizeof d);
  /* parameters straight from the .ptd */
  size_t dsz = 0;
  uint8_t *db = test_read_file(d, &dsz);
  CHECK(db != NULL);
  pte_buffer_loader bl;
  pte_buffer_loader_init(&bl, db, dsz);
  pte_ptd ptd;
  CHECK_OK(pte_ptd_load(&bl.base, &ptd, NULL));
  float W1[20], b1[10], W2[20], b2[2];
  CHECK_OK(pte_named_data_map_load_data_into(pte_ptd_map(&ptd), "net.linear.weight", W1, sizeof W1));
  CHECK_OK(pte_named_data_map_load_data_into(pte_ptd_map(&ptd), "net.linear.bias", b1, sizeof b1));
  CHECK_OK(pte_named_data_map_load_data_into(pte_ptd_map(&ptd), "net.linear2.weight", W2, sizeof W2));
  CHECK_OK(pte_named_data_map_load_data_into(pte_ptd_map(&ptd), "net.linear2.bias", b2, sizeof b2));
  pte_ptd_destroy(&ptd);
  free(db);
  /* forward on x = [1, 1], label 1 (ones fill): 2-10-2 MLP, sigmoid, cross-entropy */
  double h[10], z[2];
  for (int i = 0; i < 10; i++) h[i] = sigm(W1[2 * i] + W1[2 * i + 1] + b1[i]);
  for (int o = 0; o < 2; o++) {
    z[o] = b2[o];
    for (int i = 0; i < 10; i++) z[o] += W2[10 * o + i] * h[i];
  }
  double mz = z[0] > z[1] ? z[0] : z[1];
  double lse = mz + log(exp(z[0] - mz) + exp(z[1] - mz));
  double loss = lse - z[1];
  double dz[2] = {exp(z[0] - lse), exp(z[1] - lse) - 1.0};
  /* (this method needs more than 16 KiB of method allocator; the host's grow-and-retry path is
   * test_module's host_method_allocator_guess_then_retry) */
  run_result r = pte(false, "run '%s' --data '%s' --json", p, d);
  CHECK_EQ_INT(r.rc, 0);
  test_json *j = parse_json(r.out);
  free(r.out);
  CHECK(j != NULL);
  CHECK_EQ_INT(test_json_len(J(j, "outputs")), 10);
  double v[20];
  CHECK_EQ_INT(json_values(j, 0, v, 20), 1);
  CHECK_NEAR(v[0], loss, 1e-5);
  CHECK_EQ_INT(json_values(j, 1, v, 20), 1);
  CHECK_NEAR(v[0], z[1] > z[0] ? 1 : 0, 0);
  CHECK_EQ_INT(json_values(j, 5, v, 20), 2); /* grad b2 */
  for (int o = 0; o < 2; o++) CHECK_NEAR(v[o], dz[o], 1e-5);
  CHECK_EQ_INT(json_values(j, 4, v, 20), 20); /* grad W2 */
  for (int o = 0; o < 2; o++)
    for (int i = 0; i < 10; i++) CHECK_NEAR(v[10 * o + i], dz[o] * h[i], 1e-5);
  double dh[10];
  for (int i = 0; i < 10; i++) dh[i] = (W2[i] * dz[0] + W2[10 + i] * dz[1]) * h[i] * (1 - h[i]);
  CHECK_EQ_INT(json_values(j, 3, v, 20), 10); /* grad b1 */
  for (int i = 0; i < 10; i++) CHECK_NEAR(v[i], dh[i], 1e-5);
  CHECK_EQ_INT(json_values(j, 2, v, 20), 20); /* grad W1 (x = ones) */
  for (int i = 0; i < 20; i++) CHECK_NEAR(v[i], dh[i / 2], 1e-5);
  const float *params[4] = {W1, b1, W2, b2};
  const size_t counts[4] = {20, 10, 20, 2};
  for (int k = 0; k < 4; k++) { /* the parameters come back unchanged */
    CHECK_EQ_INT(json_values(j, 6 + (size_t)k, v, 20), counts[k]);
    for (size_t i = 0; i < counts[k]; i++) CHECK(v[i] == (double)params[k][i]);
  }
  test_json_free(j);

  r = pte(true, "run '%s' --data '%s' --method __et_training_gradients_index_forward", p, d);
  CHECK_EQ_INT(r.rc, 0);
  CHECK_CONTAINS(r.out, "output 0   Int 2");
  free(r.out);
  r = pte(true, "run '%s' --data '%s' --method __et_training_parameters_index_forward", p, d);
  CHECK_EQ_INT(r.rc, 0);
  CHECK_CONTAINS(r.out, "output 0   Int 6");
  free(r.out);
  r = pte(false, "run '%s' --data '%s' --method __et_training_fqn_forward --json", p, d);
  CHECK_EQ_INT(r.rc, 0);
  j = parse_json(r.out);
  free(r.out);
  CHECK(j != NULL);
  const char *names[4] = {"net.linear.weight", "net.linear.bias", "net.linear2.weight", "net.linear2.bias"};
  for (size_t i = 0; i < 4; i++) {
    char path[64];
    snprintf(path, sizeof path, "outputs[%zu].value", i);
    CHECK_STR(test_json_str(J(j, path)), names[i]);
  }
  test_json_free(j);
  r = pte(true, "run '%s'", p); /* no .ptd: the message names the missing tensors */
  CHECK_EQ_INT(r.rc, 1);
  CHECK_CONTAINS(r.out, "InvalidExternalData (0x24)");
  CHECK_CONTAINS(r.out, "needs external data (net.linear.weight, net.linear.bias, net.linear2.weight, net.linear2.bias)");
  free(r.out);
}

TEST(json_keys_and_repeat_medians) {
  if (!env_ok()) return;
  char p[1024];
  cp("arduino_AddModel.pte", p, sizeof p);
  run_result r = pte(false, "run '%s' --json --repeat 5", p);
  CHECK_EQ_INT(r.rc, 0);
  test_json *j = parse_json(r.out);
  free(r.out);
  CHECK(j != NULL);
  const char *keys[] = {"file", "method", "loader", "data", "repeat", "load_ms", "program_load_ms", "method_load_ms",
                        "execute_ms", "median", "inputs", "outputs"};
  for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) CHECK_MSG(test_json_get(j, keys[i]) != NULL, "missing key %s", keys[i]);
  CHECK_EQ_INT(test_json_int(J(j, "repeat"), 0), 5);
  CHECK(J(j, "median")->b);
  CHECK_STR(test_json_str(J(j, "loader")), "mmap");
  CHECK_STR(test_json_str(J(j, "method")), "forward");
  double load = test_json_num(J(j, "load_ms"), -1), pl = test_json_num(J(j, "program_load_ms"), -1),
         ml = test_json_num(J(j, "method_load_ms"), -1), ex = test_json_num(J(j, "execute_ms"), -1);
  CHECK(pl > 0 && ml > 0 && ex > 0);
  CHECK_NEAR(load, pl + ml, 1e-9);
  CHECK(J(j, "data")->type == TEST_JSON_NULL);
  CHECK_STR(test_json_str(J(j, "outputs[0].dtype")), "float32");
  CHECK_EQ_INT(test_json_int(J(j, "outputs[0].sizes[0]"), 0), 3);
  CHECK_NEAR(test_json_num(J(j, "outputs[0].min"), 0), 2, 0);
  CHECK_NEAR(test_json_num(J(j, "outputs[0].max"), 0), 2, 0);
  CHECK_NEAR(test_json_num(J(j, "outputs[0].mean"), 0), 2, 0);
  CHECK(J(j, "outputs[0].file")->type == TEST_JSON_NULL);
  test_json_free(j);
  r = pte(true, "run '%s' --repeat 5", p);
  CHECK_EQ_INT(r.rc, 0);
  CHECK_CONTAINS(r.out, "(median of 5 runs)");
  free(r.out);
}

TEST(loaders_give_identical_outputs) {
  if (!env_ok()) return;
  char p[1024], d[1024], b[1024];
  cp("upstream_android_xor.pte", p, sizeof p);
  cp("upstream_android_xor.ptd", d, sizeof d);
  cp("module_test_bundled_program.bpte", b, sizeof b);
  const char *loaders[3] = {"mmap", "file", "buffer"};
  char *first[2] = {NULL, NULL};
  for (int k = 0; k < 3; k++) {
    const char *dir = tmpdir(loaders[k]);
    run_result r = pte(false, "run '%s' --data '%s' --loader %s --json --output-dir '%s'", p, d, loaders[k], dir);
    CHECK_MSG(r.rc == 0, "%s: rc %d", loaders[k], r.rc);
    test_json *j = parse_json(r.out);
    free(r.out);
    CHECK(j != NULL);
    CHECK_STR(test_json_str(J(j, "loader")), loaders[k]);
    char outp[2048];
    snprintf(outp, sizeof outp, "%s/forward.output2.npy", dir);
    size_t n;
    char *bytes = (char *)test_read_file(outp, &n);
    CHECK(bytes != NULL && n == 128 + 80);
    /* outputs as printed, without the timing keys */
    char *vals = malloc(1 << 16);
    size_t len = 0;
    for (size_t o = 0; o < test_json_len(J(j, "outputs")); o++) {
      double v[20];
      size_t m = json_values(j, o, v, 20);
      for (size_t i = 0; i < m && i < 20; i++) len += (size_t)snprintf(vals + len, 64, "%.17g,", v[i]);
    }
    test_json_free(j);
    /* the bundled program's embedded .pte through each loader: 3*1 + 2 + 1 */
    r = pte(true, "run '%s' --loader %s", b, loaders[k]);
    CHECK_EQ_INT(r.rc, 0);
    CHECK_CONTAINS(r.out, "int32[2, 2] = [6, 6, 6, 6]");
    free(r.out);
    if (k == 0) {
      first[0] = bytes;
      first[1] = vals;
      continue;
    }
    bool same = !memcmp(bytes, first[0], n) && !strcmp(vals, first[1]);
    free(bytes);
    free(vals);
    CHECK_MSG(same, "loader %s gives different outputs", loaders[k]);
  }
  free(first[0]);
  free(first[1]);
}

TEST(input_errors) {
  if (!env_ok()) return;
  char p[1024], pr[1024], in[1024];
  cp("arduino_AddModel.pte", p, sizeof p);
  cp("djl_spike_prim_input.pte", pr, sizeof pr);
  cp("io/bundled_program.forward.case0.input0.int32.bin", in, sizeof in); /* 16 bytes */
  const char *dir = tmpdir("run_inputs");
  char f64[2048], shp[2048], be[2048], x4[2048];
  snprintf(f64, sizeof f64, "%s/f64.npy", dir);
  snprintf(shp, sizeof shp, "%s/shape.npy", dir);
  snprintf(be, sizeof be, "%s/be.npy", dir);
  snprintf(x4, sizeof x4, "%s/x4.npy", dir);
  double d3[3] = {1, 2, 3};
  float f4[4] = {1, 2, 3, 4};
  int32_t s3[1] = {3}, s4[1] = {4}, s22[2] = {2, 2};
  CHECK(write_npy(f64, PTE_DTYPE_DOUBLE, s3, 1, d3));
  CHECK(write_npy(shp, PTE_DTYPE_FLOAT, s22, 2, f4));
  CHECK(write_npy(x4, PTE_DTYPE_FLOAT, s4, 1, f4));
  size_t len;
  uint8_t *img = pte_npy_encode(PTE_DTYPE_FLOAT, s3, 1, f4, &len, NULL, 0);
  CHECK(img != NULL);
  ((char *)strstr((char *)img + 10, "<f4"))[0] = '>';
  CHECK(test_write_file(be, img, len) == 0);
  free(img);
  struct { const char *args, *a1, *a2, *want; } cases[] = {
      {"run '%s' --input '%s'", p, "/nonexistent/x.npy", "AccessFailed (0x22)"},
      {"run '%s' --input '%s'", p, in, "raw file has 16 bytes, the method's float32[3] input needs 12"},
      {"run '%s' --input '%s'", p, f64, "InvalidArgument (0x12): input 0: expected float32[3], got float64[3]"},
      {"run '%s' --input '%s'", p, shp, "InvalidArgument (0x12): input 0: expected float32[3], got float32[2, 2]"},
      {"run '%s' --input '%s'", p, x4, "NotSupported (0x10): input 0: expected float32[3] (a static shape), got float32[4]"},
      {"run '%s' --input '%s'", p, "/tmp", "input 0: cannot read: is a directory"},
      {"run '%s' --input '%s'", p, be, "big-endian"},
      {"run '%s' --input '%s' --input '%s'", p, x4, "takes 1 input, 2 given"},
      {"run '%s' --input '%s' --input 3.0", pr, x4, "must equal the traced Double value"},
      {"run '%s' --input '%s' --input abc", pr, x4, "'abc' is not a valid literal"},
      {"run '%s' --input '%s'", pr, x4, "InvalidArgument (0x12): input 1 has not been set"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    run_result r = pte(true, cases[i].args, cases[i].a1, cases[i].a2, cases[i].a2);
    CHECK_MSG(r.rc == 1, "case %zu: rc %d: %s", i, r.rc, r.out);
    CHECK_MSG(strstr(r.out, cases[i].want) != NULL, "case %zu: \"%s\" lacks \"%s\"", i, r.out, cases[i].want);
    CHECK_MSG(strncmp(r.out, "pte run: ", 9) == 0, "case %zu: %s", i, r.out);
    free(r.out);
  }
  /* the prim input: x * alpha with the traced alpha, given explicitly or by default */
  run_result r = pte(true, "run '%s' --input '%s' --input 2.0", pr, x4);
  CHECK_EQ_INT(r.rc, 0);
  CHECK_CONTAINS(r.out, "float32[4] = [2, 4, 6, 8]");
  free(r.out);
  r = pte(true, "run '%s' --input '%s' --input-fill zeros", pr, x4);
  CHECK_EQ_INT(r.rc, 0);
  CHECK_CONTAINS(r.out, "Double 2 (traced value)");
  CHECK_CONTAINS(r.out, "float32[4] = [2, 4, 6, 8]");
  free(r.out);
  r = pte(true, "run '%s' --input-fill zeros", pr);
  CHECK_EQ_INT(r.rc, 0);
  CHECK_CONTAINS(r.out, "float32[4] = [0, 0, 0, 0]");
  free(r.out);
  /* random fill is deterministic per seed */
  run_result a = pte(false, "run '%s' --input-fill random --seed 7 --json", pr);
  run_result b = pte(false, "run '%s' --input-fill random --seed 7 --json", pr);
  test_json *ja = parse_json(a.out), *jb = parse_json(b.out);
  free(a.out);
  free(b.out);
  CHECK(ja && jb);
  double va[4], vb[4];
  CHECK_EQ_INT(json_values(ja, 0, va, 4), 4);
  CHECK_EQ_INT(json_values(jb, 0, vb, 4), 4);
  for (int i = 0; i < 4; i++) CHECK(va[i] == vb[i] && va[i] >= 0 && va[i] < 2.0);
  test_json_free(ja);
  test_json_free(jb);
  /* not a program */
  char d[1024];
  cp("etrs_data_map__default_external_constant.ptd", d, sizeof d);
  r = pte(true, "run '%s'", d);
  CHECK_EQ_INT(r.rc, 1);
  CHECK_CONTAINS(r.out, "pass it with --data");
  free(r.out);
}

int main(void) {
  RUN(help_and_usage_errors);
  RUN(arduino_add_raw_input_writes_golden_npy);
  RUN(module_linear_npy_inputs_c_and_fortran);
  RUN(etrs_data_map_with_and_without_ptd);
  RUN(const_methods_each_method);
  RUN(xor_all_methods_with_ptd_hand_checked);
  RUN(json_keys_and_repeat_medians);
  RUN(loaders_give_identical_outputs);
  RUN(input_errors);
  return test_summary();
}
