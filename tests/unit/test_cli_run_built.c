/* `pte run` on programs written here with the program writer (missing kernels, dynamic-bound
 * inputs, limits, channels-last relayout, XNNPACK delegates, repeats, profile, threads, etdump) and
 * `pte test` on the corpus bundled program ($PTE_CLI, $PTE_CORPUS; test_cli_run_util.h). Expected
 * values are computed here by hand from the programs' definitions. Corpus runs: test_cli_run.c. */
#define _POSIX_C_SOURCE 200809L
#include "test_cli_run_util.h"

/* ------------------------------------------------------------------ writer-built programs */
/* forward(x) = op(x, x, 1, out=y) on one float32 tensor (planned input and output of the same
 * sizes, dim order and dynamism), written with pte's own writer; op_name is "aten::add" for x + x. */
static bool build_op_program(const char *path, const char *op_name, const int32_t *sizes, size_t dim,
                             const uint8_t *dim_order, int dynamism) {
  pte_writer *w = NULL;
  pte_error_info e;
  memset(&e, 0, sizeof e);
  uint32_t m, op, chain;
  int32_t x = -1, y = -1, one = -1;
  pte_wr_tensor t;
  memset(&t, 0, sizeof t);
  t.dtype = PTE_DTYPE_FLOAT;
  t.dim = dim;
  t.sizes = sizes;
  t.dim_order = dim_order;
  t.dynamism = dynamism;
  t.plan = PTE_WR_PLAN_AUTO;
  t.mem_id = 1;
  bool ok = pte_writer_create(NULL, &w, &e) == PTE_OK && pte_writer_add_method(w, "forward", &m, &e) == PTE_OK &&
            pte_writer_add_tensor(w, m, &t, &x, &e) == PTE_OK && pte_writer_add_tensor(w, m, &t, &y, &e) == PTE_OK &&
            pte_writer_add_int(w, m, 1, &one, &e) == PTE_OK && pte_writer_set_inputs(w, m, &x, 1, &e) == PTE_OK &&
            pte_writer_set_outputs(w, m, &y, 1, &e) == PTE_OK &&
            pte_writer_add_operator(w, m, op_name, "out", &op, &e) == PTE_OK &&
            pte_writer_add_chain(w, m, NULL, 0, NULL, 0, &chain, &e) == PTE_OK;
  int32_t args[5] = {x, x, one, y, y};
  ok = ok && pte_writer_add_kernel_call(w, m, chain, op, args, 5, NULL, &e) == PTE_OK &&
       pte_writer_write_file(w, path, NULL, &e) == PTE_OK;
  if (!ok) fprintf(stderr, "  writer: %s\n", e.msg);
  pte_writer_destroy(w);
  return ok;
}

static bool build_double_program(const char *path, const int32_t *sizes, size_t dim, const uint8_t *dim_order,
                                 int dynamism) {
  return build_op_program(path, "aten::add", sizes, dim, dim_order, dynamism);
}

/* inspect names the operators this build has no kernel for (text and JSON), before any run. */
TEST(inspect_reports_missing_kernels) {
  if (!env_ok()) return;
  const char *dir = tmpdir("inspect_missing");
  char prog[2048], ok[2048];
  snprintf(prog, sizeof prog, "%s/missing.pte", dir);
  snprintf(ok, sizeof ok, "%s/add.pte", dir);
  int32_t four[1] = {4};
  CHECK(build_op_program(prog, "aten::no_such_operator", four, 1, NULL, PTE_SHAPE_STATIC));
  CHECK(build_op_program(ok, "aten::add", four, 1, NULL, PTE_SHAPE_STATIC));
  run_result r = pte(true, "inspect '%s'", prog);
  CHECK_EQ_INT(r.rc, 0);
  CHECK_CONTAINS(r.out, "op       aten::no_such_operator.out   (no kernel in this build)");
  free(r.out);
  r = pte(false, "inspect '%s' --json", prog);
  CHECK_EQ_INT(r.rc, 0);
  test_json *j = parse_json(r.out);
  free(r.out);
  CHECK(j != NULL);
  CHECK_EQ_INT(test_json_len(J(j, "methods[0].missing_kernels")), 1);
  CHECK_STR(test_json_str(J(j, "methods[0].missing_kernels[0]")), "aten::no_such_operator.out");
  test_json_free(j);
  r = pte(false, "inspect '%s' --json", ok);
  j = parse_json(r.out);
  free(r.out);
  CHECK(j != NULL);
  CHECK_EQ_INT(test_json_len(J(j, "methods[0].missing_kernels")), 0);
  test_json_free(j);
  r = pte(true, "run '%s'", prog); /* and run agrees: OperatorMissing naming it */
  CHECK_EQ_INT(r.rc, 1);
  CHECK_CONTAINS(r.out, "OperatorMissing (0x14)");
  CHECK_CONTAINS(r.out, "aten::no_such_operator.out");
  free(r.out);
}

TEST(dynamic_bound_input_accepts_smaller_npy) {
  if (!env_ok()) return;
  const char *dir = tmpdir("run_dynamic");
  char prog[2048], in5[2048], in9[2048];
  snprintf(prog, sizeof prog, "%s/dyn.pte", dir);
  snprintf(in5, sizeof in5, "%s/x5.npy", dir);
  snprintf(in9, sizeof in9, "%s/x9.npy", dir);
  int32_t bound[1] = {8};
  CHECK(build_double_program(prog, bound, 1, NULL, PTE_SHAPE_DYNAMIC_BOUND));
  float x[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  int32_t s5[1] = {5}, s9[1] = {9};
  CHECK(write_npy(in5, PTE_DTYPE_FLOAT, s5, 1, x));
  CHECK(write_npy(in9, PTE_DTYPE_FLOAT, s9, 1, x));
  run_result r = pte(false, "run '%s' --input '%s' --json --output-dir '%s'", prog, in5, dir);
  CHECK_MSG(r.rc == 0, "rc %d", r.rc);
  test_json *j = parse_json(r.out);
  free(r.out);
  CHECK(j != NULL);
  CHECK_EQ_INT(test_json_len(J(j, "outputs[0].sizes")), 1);
  CHECK_EQ_INT(test_json_int(J(j, "outputs[0].sizes[0]"), 0), 5);
  double v[8];
  CHECK_EQ_INT(json_values(j, 0, v, 8), 5);
  for (int i = 0; i < 5; i++) CHECK_NEAR(v[i], 2.0 * x[i], 0);
  test_json_free(j);
  char outp[2048];
  snprintf(outp, sizeof outp, "%s/forward.output0.npy", dir);
  pte_npy_array a;
  CHECK(pte_npy_load(outp, &a, NULL, 0) == 0);
  bool ok = a.dim == 1 && a.sizes[0] == 5 && a.nbytes == 20 && ((float *)a.data)[4] == 10.0f;
  pte_npy_free(&a);
  CHECK(ok);
  /* without --input the bound shape is filled */
  r = pte(true, "run '%s'", prog);
  CHECK_EQ_INT(r.rc, 0);
  CHECK_CONTAINS(r.out, "float32[8] = [2, 2, 2, 2, 2, 2, 2, 2]");
  free(r.out);
  /* above the bound: the runtime's NotSupported */
  r = pte(true, "run '%s' --input '%s'", prog, in9);
  CHECK_EQ_INT(r.rc, 1);
  CHECK_CONTAINS(r.out, "NotSupported (0x10): input 0: float32[9] has 9 elements, more than the 8 its dynamic bound holds (32 bytes)");
  free(r.out);
}

/* Limits on the command line: a program planning 20 GiB (x + x on two float32[65536, 40960]
 * tensors, 10 GiB each) is refused before anything is allocated, naming both numbers. */
TEST(limits_max_memory_verify_instructions) {
  if (!env_ok()) return;
  const char *dir = tmpdir("run_limits");
  char prog[2048], small[2048];
  snprintf(prog, sizeof prog, "%s/plan20g.pte", dir);
  snprintf(small, sizeof small, "%s/small.pte", dir);
  int32_t big[2] = {65536, 40960};
  CHECK(build_double_program(prog, big, 2, NULL, PTE_SHAPE_STATIC));
  run_result r = pte(true, "run '%s' --max-memory 1G", prog);
  CHECK_EQ_INT(r.rc, 1);
  CHECK_CONTAINS(r.out, "OutOfResources (0x25)"); /* upstream Error::OutOfResources */
  CHECK_CONTAINS(r.out, "plans 20.0 GiB (21474836480 bytes) of memory, more than the limit of 1.0 GiB (1073741824 bytes)");
  CHECK_CONTAINS(r.out, "--max-memory");
  free(r.out);
  r = pte(false, "run '%s' --max-memory 1G --json", prog);
  CHECK_EQ_INT(r.rc, 1);
  test_json *j = parse_json(r.out);
  free(r.out);
  CHECK(j != NULL);
  CHECK_STR(test_json_str(J(j, "status")), "OutOfResources");
  CHECK_EQ_INT(test_json_int(J(j, "code"), 0), 0x25);
  test_json_free(j);
  /* a plan within the limit runs: 2 x 8 floats = 64 bytes, limit 64 */
  int32_t eight[1] = {8};
  CHECK(build_double_program(small, eight, 1, NULL, PTE_SHAPE_STATIC));
  r = pte(true, "run '%s' --max-memory 64", small);
  CHECK_MSG(r.rc == 0, "rc %d: %s", r.rc, r.out);
  free(r.out);
  r = pte(true, "run '%s' --max-memory 63", small);
  CHECK_EQ_INT(r.rc, 1);
  CHECK_CONTAINS(r.out, "plans 64 bytes of memory, more than the limit of 63 bytes");
  free(r.out);
  /* verification level and instruction cap */
  r = pte(true, "run '%s' --verify minimal", small);
  CHECK_EQ_INT(r.rc, 0);
  free(r.out);
  r = pte(true, "run '%s' --verify none", small);
  CHECK_EQ_INT(r.rc, 2);
  CHECK_CONTAINS(r.out, "--verify must be full or minimal, not 'none'");
  free(r.out);
  r = pte(true, "run '%s' --max-memory 12X", small);
  CHECK_EQ_INT(r.rc, 2);
  CHECK_CONTAINS(r.out, "--max-memory needs a size in bytes");
  free(r.out);
  r = pte(true, "run '%s' --max-instructions 0", small);
  CHECK_EQ_INT(r.rc, 2);
  free(r.out);
  r = pte(true, "run '%s' --max-instructions 1", small); /* one KernelCall: within the cap */
  CHECK_EQ_INT(r.rc, 0);
  free(r.out);
}

TEST(channels_last_input_and_output_relayout) {
  if (!env_ok()) return;
  const char *dir = tmpdir("run_channels_last");
  char prog[2048], in[2048], raw[2048];
  snprintf(prog, sizeof prog, "%s/cl.pte", dir);
  snprintf(in, sizeof in, "%s/x.npy", dir);
  snprintf(raw, sizeof raw, "%s/x.bin", dir);
  int32_t sizes[4] = {1, 2, 2, 3}; /* N C H W, stored N H W C */
  const uint8_t order[4] = {0, 2, 3, 1};
  CHECK(build_double_program(prog, sizes, 4, order, PTE_SHAPE_STATIC));
  float x[12];
  for (int i = 0; i < 12; i++) x[i] = (float)i; /* C order: x[c][h][w] = 6c + 3h + w */
  CHECK(write_npy(in, PTE_DTYPE_FLOAT, sizes, 4, x));
  run_result r = pte(false, "run '%s' --input '%s' --json --output-dir '%s'", prog, in, dir);
  CHECK_MSG(r.rc == 0, "rc %d", r.rc);
  test_json *j = parse_json(r.out);
  free(r.out);
  CHECK(j != NULL);
  double v[12];
  CHECK_EQ_INT(json_values(j, 0, v, 12), 12);
  for (int i = 0; i < 12; i++) CHECK_NEAR(v[i], 2.0 * i, 0); /* back in logical (C) order */
  test_json_free(j);
  char outp[2048];
  snprintf(outp, sizeof outp, "%s/forward.output0.npy", dir);
  pte_npy_array a;
  CHECK(pte_npy_load(outp, &a, NULL, 0) == 0);
  bool ok = a.dim == 4 && a.sizes[1] == 2 && a.sizes[3] == 3 && ((float *)a.data)[7] == 14.0f;
  pte_npy_free(&a);
  CHECK(ok);
  /* a raw .bin is taken as-is in the method's layout (NHWC): element (c,h,w) at 6h + 3w + c */
  float nhwc[12];
  for (int c = 0; c < 2; c++)
    for (int h = 0; h < 2; h++)
      for (int w = 0; w < 3; w++) nhwc[6 * h + 2 * w + c] = (float)(6 * c + 3 * h + w);
  CHECK(test_write_file(raw, nhwc, sizeof nhwc) == 0);
  r = pte(false, "run '%s' --input '%s' --json", prog, raw);
  CHECK_EQ_INT(r.rc, 0);
  j = parse_json(r.out);
  free(r.out);
  CHECK(j != NULL);
  CHECK_EQ_INT(json_values(j, 0, v, 12), 12);
  for (int i = 0; i < 12; i++) CHECK_NEAR(v[i], 2.0 * i, 0);
  test_json_free(j);
}

TEST(xnnpack_delegated_programs) {
  if (!env_ok()) return;
  char p[1024];
  const char *dir = tmpdir("run_xnn");
  char a3[2048], b3[2048], a1[2048], b1[2048], c5[2048];
  snprintf(a3, sizeof a3, "%s/a3.npy", dir);
  snprintf(b3, sizeof b3, "%s/b3.npy", dir);
  snprintf(a1, sizeof a1, "%s/a1.npy", dir);
  snprintf(b1, sizeof b1, "%s/b1.npy", dir);
  snprintf(c5, sizeof c5, "%s/c5.npy", dir);
  float va[3] = {1, 2, 3}, vb[3] = {10, 20, 30}, vc[5] = {-2, -0.5f, 0, 0.5f, 2};
  float x1 = 1.5f, y1 = 2.25f;
  int32_t s3[1] = {3}, s1[1] = {1}, s5[1] = {5};
  CHECK(write_npy(a3, PTE_DTYPE_FLOAT, s3, 1, va) && write_npy(b3, PTE_DTYPE_FLOAT, s3, 1, vb));
  CHECK(write_npy(a1, PTE_DTYPE_FLOAT, s1, 1, &x1) && write_npy(b1, PTE_DTYPE_FLOAT, s1, 1, &y1));
  CHECK(write_npy(c5, PTE_DTYPE_FLOAT, s5, 1, vc));
  run_result r = pte(true, "run '%s' --input '%s' --input '%s'", cp("numpyrt_add.pte", p, sizeof p), a3, b3);
  CHECK_MSG(r.rc == 0, "%s", r.out);
  CHECK_CONTAINS(r.out, "float32[3] = [11, 22, 33]");
  free(r.out);
  /* unplanned inputs: the CLI's buffers are handed to the method */
  r = pte(true, "run '%s' --input '%s' --input '%s'", cp("djl_spike_add_unplanned.pte", p, sizeof p), a1, b1);
  CHECK_MSG(r.rc == 0, "%s", r.out);
  CHECK_CONTAINS(r.out, "float32[1] = [3.75]");
  free(r.out);
  r = pte(true, "run '%s' --input '%s'", cp("djl_spike_clamp5.pte", p, sizeof p), c5);
  CHECK_MSG(r.rc == 0, "%s", r.out);
  CHECK_CONTAINS(r.out, "float32[5] = [-1, -0.5, 0, 0.5, 1]");
  free(r.out);
}

/* One load, N executes: first vs steady state; the per-operator profile; how much of the outputs
 * is printed; thread counts give the same numbers. */
TEST(num_executions_profile_print_threads) {
  if (!env_ok()) return;
  const char *dir = tmpdir("run_profile");
  char p[1024], dbl[2048];
  /* x + x over 16 ones: every value is 2 (hand-derived) */
  snprintf(dbl, sizeof dbl, "%s/dbl16.pte", dir);
  int32_t sixteen[1] = {16};
  CHECK(build_double_program(dbl, sixteen, 1, NULL, PTE_SHAPE_STATIC));
  run_result r = pte(true, "run '%s' --num-executions 5 --profile --print-output all", dbl);
  CHECK_MSG(r.rc == 0, "%s", r.out);
  CHECK_CONTAINS(r.out, "float32[16] = [2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2]  min 2");
  CHECK_CONTAINS(r.out, "execute    first ");
  CHECK_CONTAINS(r.out, "(median of 4 executes)");
  CHECK_CONTAINS(r.out, "profile    4 executes"); /* the first execute is left out */
  CHECK_CONTAINS(r.out, "  aten::add.out ");
  free(r.out);
  r = pte(true, "run '%s' --print-output none", dbl);
  CHECK_EQ_INT(r.rc, 0);
  CHECK(strstr(r.out, "output 0") == NULL);
  free(r.out);
  /* raw outputs: 16 float32 values of 2 (64 bytes, C order, no header) */
  r = pte(true, "run '%s' --output-dir '%s/raw' --output-format bin", dbl, dir);
  CHECK_MSG(r.rc == 0, "%s", r.out);
  free(r.out);
  char rawp[2048];
  snprintf(rawp, sizeof rawp, "%s/raw/forward.output0.bin", dir);
  size_t rn = 0;
  uint8_t *raw = test_read_file(rawp, &rn);
  CHECK(raw != NULL);
  bool twos = rn == 64;
  for (size_t k = 0; twos && k < 16; k++) {
    float f;
    memcpy(&f, raw + 4 * k, 4);
    twos = f == 2.0f;
  }
  free(raw);
  CHECK_MSG(twos, "raw output: %zu bytes", rn);
  r = pte(true, "run '%s' --output-dir '%s/raw' --output-format csv", dbl, dir);
  CHECK_EQ_INT(r.rc, 2);
  free(r.out);
  r = pte(true, "run '%s' --print-output some", dbl);
  CHECK_EQ_INT(r.rc, 2);
  free(r.out);
  /* JSON: one KernelCall per execute -> 4 calls of aten::add.out in the steady-state profile */
  r = pte(false, "run '%s' --num-executions 5 --profile --json", dbl);
  CHECK_EQ_INT(r.rc, 0);
  test_json *j = parse_json(r.out);
  free(r.out);
  CHECK(j != NULL);
  CHECK_EQ_INT(test_json_int(J(j, "num_executions"), 0), 5);
  CHECK(test_json_num(J(j, "steady_execute_ms"), -1) >= 0);
  CHECK_EQ_INT(test_json_int(J(j, "profile.executes"), 0), 4);
  CHECK_STR(test_json_str(J(j, "profile.rows[0].name")), "aten::add.out");
  CHECK_EQ_INT(test_json_int(J(j, "profile.rows[0].calls"), 0), 4);
  test_json_free(j);
  /* the corpus XOR model: one gather per execute -> 4 calls over 4 steady-state executes */
  char ptd[1024];
  snprintf(ptd, sizeof ptd, "%s", cp("upstream_android_xor.ptd", p, sizeof p));
  r = pte(false, "run '%s' --data '%s' --num-executions 5 --profile --json", cp("upstream_android_xor.pte", p, sizeof p),
          ptd);
  CHECK_MSG(r.rc == 0, "%s", r.out);
  j = parse_json(r.out);
  free(r.out);
  CHECK(j != NULL);
  bool gather = false;
  double pct = 0;
  for (size_t i = 0; i < test_json_len(J(j, "profile.rows")); i++) {
    char key[64];
    snprintf(key, sizeof key, "profile.rows[%zu].name", i);
    const char *name = test_json_str(J(j, key));
    snprintf(key, sizeof key, "profile.rows[%zu].percent", i);
    pct += test_json_num(J(j, key), 0);
    snprintf(key, sizeof key, "profile.rows[%zu].calls", i);
    if (name && !strcmp(name, "aten::gather.out")) gather = test_json_int(J(j, key), 0) == 4;
  }
  CHECK(gather);
  CHECK_MSG(pct > 0 && pct <= 100.0 + 1e-6, "percent sum %g", pct);
  test_json_free(j);
  /* an XNNPACK MLP from pte synth: the same outputs on 1 and 2 threads; the delegate in the table */
  char mlp[2048];
  snprintf(mlp, sizeof mlp, "%s/mlp.pte", dir);
  r = pte(true, "synth mlp -o '%s' --widths 64,96,32 --delegate xnnpack", mlp);
  CHECK_EQ_INT(r.rc, 0);
  free(r.out);
  run_result a = pte(false, "run '%s' --input-fill random --threads 1 --print-output all --json", mlp);
  run_result b = pte(false, "run '%s' --input-fill random --threads 2 --print-output all --json", mlp);
  CHECK(a.rc == 0 && b.rc == 0);
  test_json *ja = parse_json(a.out), *jb = parse_json(b.out);
  free(a.out);
  free(b.out);
  CHECK(ja && jb);
  CHECK_EQ_INT(test_json_len(J(ja, "outputs[0].values")), 32);
  for (size_t i = 0; i < 32; i++) {
    char key[64];
    snprintf(key, sizeof key, "outputs[0].values[%zu]", i);
    CHECK_NEAR(test_json_num(J(ja, key), 0), test_json_num(J(jb, key), 1), 1e-5);
  }
  test_json_free(ja);
  test_json_free(jb);
  r = pte(true, "run '%s' --num-executions 20 --profile", mlp);
  CHECK_EQ_INT(r.rc, 0);
  CHECK_CONTAINS(r.out, "XnnpackBackend (delegate 0)");
  CHECK_CONTAINS(r.out, "(median of 19 executes)");
  CHECK_CONTAINS(r.out, "inside the XNNPACK delegates, per node kind");
  free(r.out);
  /* widths 64,96,32: two FullyConnected nodes, run 19 times in the steady state */
  r = pte(false, "run '%s' --num-executions 20 --profile --json", mlp);
  CHECK_EQ_INT(r.rc, 0);
  test_json *jp = parse_json(r.out);
  free(r.out);
  CHECK(jp != NULL);
  bool fc = false;
  for (size_t i = 0; i < test_json_len(J(jp, "profile.xnnpack_node_kinds")); i++) {
    char kk[96], kc[96];
    snprintf(kk, sizeof kk, "profile.xnnpack_node_kinds[%zu].kind", i);
    snprintf(kc, sizeof kc, "profile.xnnpack_node_kinds[%zu].calls", i);
    const char *kind = test_json_str(J(jp, kk));
    if (kind && !strcmp(kind, "XNNFullyConnected")) fc = test_json_int(J(jp, kc), 0) == 38;
  }
  test_json_free(jp);
  CHECK_MSG(fc, "XNNFullyConnected: 38 calls expected");
  r = pte(true, "run '%s' --threads 0", mlp);
  CHECK_EQ_INT(r.rc, 2);
  CHECK_CONTAINS(r.out, "--threads needs a count from 1 to 64");
  free(r.out);
}

/* --etdump: an ETDump flatbuffer that flatc decodes with schema/etdump.fbs (upstream's slots): one
 * RunData per execute, each with its Method::execute scope and one DELEGATE_CALL. */
TEST(etdump_decodes_with_flatc) {
  if (!env_ok()) return;
  const char *flatc = getenv("PTE_FLATC"), *schema = getenv("PTE_SCHEMA_DIR");
  CHECK_MSG(schema, "PTE_SCHEMA_DIR unset");
  const char *dir = tmpdir("run_etdump");
  char mlp[2048], dump[2048];
  snprintf(mlp, sizeof mlp, "%s/mlp.pte", dir);
  snprintf(dump, sizeof dump, "%s/run.etdp", dir);
  run_result r = pte(true, "synth mlp -o '%s' --widths 16,16 --delegate xnnpack", mlp);
  CHECK_EQ_INT(r.rc, 0);
  free(r.out);
  r = pte(true, "run '%s' --num-executions 3 --etdump '%s' --print-output none", mlp, dump);
  CHECK_MSG(r.rc == 0, "%s", r.out);
  free(r.out);
  size_t n = 0;
  uint8_t *bytes = test_read_file(dump, &n);
  CHECK(bytes && n > 8 && memcmp(bytes + 4, "ED00", 4) == 0);
  free(bytes);
  if (!flatc || !*flatc) SKIP("flatc not installed (.ci/run installs it)");
  r = pte(true, "run '%s' --etdump /nonexistent-dir/x.etdp", mlp);
  CHECK_EQ_INT(r.rc, 1);
  CHECK_CONTAINS(r.out, "AccessFailed");
  free(r.out);
  char cmd[8192];
  snprintf(cmd, sizeof cmd, "cd '%s' && '%s' --json --strict-json --raw-binary '%s/etdump.fbs' -- '%s' 2>&1 && cat run.json", dir,
           flatc, schema, dump);
  int code = -1;
  char *json = test_run_capture(cmd, &code);
  CHECK_MSG(code == 0 && json, "flatc: %s", json ? json : "");
  test_json *j = parse_json(json);
  free(json);
  CHECK(j != NULL);
  CHECK_EQ_INT(test_json_len(J(j, "run_data")), 3);
  for (int k = 0; k < 3; k++) {
    char key[96];
    snprintf(key, sizeof key, "run_data[%d].name", k);
    CHECK_STR(test_json_str(J(j, key)), "forward");
    snprintf(key, sizeof key, "run_data[%d].events", k);
    size_t ne = test_json_len(J(j, key)), execs = 0, calls = 0;
    for (size_t e = 0; e < ne; e++) {
      char kn[128], ks[128], ke[128];
      snprintf(kn, sizeof kn, "run_data[%d].events[%zu].profile_event.name", k, e);
      snprintf(ks, sizeof ks, "run_data[%d].events[%zu].profile_event.start_time", k, e);
      snprintf(ke, sizeof ke, "run_data[%d].events[%zu].profile_event.end_time", k, e);
      const char *name = test_json_str(J(j, kn));
      CHECK(name != NULL);
      CHECK(test_json_num(J(j, ke), 0) >= test_json_num(J(j, ks), 1));
      if (!strcmp(name, "Method::execute")) execs++;
      if (!strcmp(name, "DELEGATE_CALL")) calls++;
    }
    CHECK_EQ_INT(execs, 1);
    CHECK_EQ_INT(calls, 1);
  }
  test_json_free(j);
}

/* ------------------------------------------------------------------ pte test */
TEST(bundled_all_cases_pass) {
  if (!env_ok()) return;
  char b[1024];
  cp("module_test_bundled_program.bpte", b, sizeof b);
  run_result r = pte(true, "test '%s'", b);
  CHECK_EQ_INT(r.rc, 0);
  CHECK_STR(r.out, "10 passed, 0 failed\n");
  free(r.out);
  const char *loaders[3] = {"mmap", "file", "buffer"};
  for (int k = 0; k < 3; k++) {
    r = pte(false, "test '%s' --loader %s --json", b, loaders[k]);
    CHECK_EQ_INT(r.rc, 0);
    test_json *j = parse_json(r.out);
    free(r.out);
    CHECK(j != NULL);
    CHECK_EQ_INT(test_json_int(J(j, "passed"), -1), 10);
    CHECK_EQ_INT(test_json_int(J(j, "failed"), -1), 0);
    CHECK_STR(test_json_str(J(j, "suites[0].method")), "forward");
    CHECK_EQ_INT(test_json_len(J(j, "suites[0].cases")), 10);
    CHECK_NEAR(test_json_num(J(j, "rtol"), 0), 1e-5, 0);
    CHECK_NEAR(test_json_num(J(j, "atol"), 0), 1e-8, 0);
    test_json_free(j);
  }
  r = pte(true, "test '%s' --method forward -v", b);
  CHECK_EQ_INT(r.rc, 0);
  CHECK_CONTAINS(r.out, "ok   forward case 9\n");
  free(r.out);
  r = pte(true, "test '%s' --method other", b);
  CHECK_EQ_INT(r.rc, 1);
  CHECK_CONTAINS(r.out, "NotFound (0x20): no test suite for method 'other'");
  free(r.out);
  char p[1024];
  cp("arduino_AddModel.pte", p, sizeof p);
  r = pte(true, "test '%s'", p);
  CHECK_EQ_INT(r.rc, 1);
  CHECK_CONTAINS(r.out, "not a bundled program");
  free(r.out);
}

TEST(bundled_corrupted_expected_outputs_fail) {
  if (!env_ok()) return;
  char b[1024];
  cp("module_test_bundled_program.bpte", b, sizeof b);
  size_t n = 0;
  uint8_t *bytes = test_read_file(b, &n);
  CHECK(bytes != NULL);
  pte_buffer_loader bl;
  pte_buffer_loader_init(&bl, bytes, n);
  pte_bundled_program bp;
  CHECK_OK(pte_bundled_program_load(&bl.base, &bp, NULL));
  pte_bundled_suite s;
  CHECK_OK(pte_bundled_find_suite(&bp, "forward", &s));
  /* flip the expected data of cases 2 and 7: int32 2 -> 3 (element 1) and -> 0x02000002 (element 3) */
  size_t offs[2];
  const size_t which[2] = {2, 7};
  for (int k = 0; k < 2; k++) {
    pte_bundled_case tc;
    pte_bundled_value ev;
    CHECK_OK(pte_bundled_get_case(&s, which[k], &tc));
    CHECK_OK(pte_bundled_case_expected_output(&tc, 0, &ev));
    CHECK(ev.kind == PTE_BUNDLED_TENSOR && ev.tensor.nbytes == 16);
    offs[k] = (size_t)((const uint8_t *)ev.tensor.data - bytes);
  }
  pte_bundled_program_destroy(&bp);
  CHECK(offs[0] != offs[1]);
  CHECK(bytes[offs[0] + 4] == 2 && bytes[offs[1] + 15] == 0);
  bytes[offs[0] + 4] ^= 1;
  bytes[offs[1] + 15] ^= 2;
  const char *bad = test_tmp_path("corrupted.bpte");
  CHECK(test_write_file(bad, bytes, n) == 0);
  free(bytes);
  run_result r = pte(true, "test '%s'", bad);
  CHECK_EQ_INT(r.rc, 1);
  CHECK_CONTAINS(r.out, "FAIL forward case 2: output 0: 1 of 4 elements differ (first at [0, 1]: got 2, expected 3)");
  CHECK_CONTAINS(r.out, "FAIL forward case 7: output 0: 1 of 4 elements differ (first at [1, 1]: got 2, expected 33554434)");
  CHECK_CONTAINS(r.out, "8 passed, 2 failed\n");
  free(r.out);
  r = pte(false, "test '%s' --json", bad);
  CHECK_EQ_INT(r.rc, 1);
  test_json *j = parse_json(r.out);
  free(r.out);
  CHECK(j != NULL);
  CHECK_EQ_INT(test_json_int(J(j, "failed"), -1), 2);
  CHECK(!J(j, "suites[0].cases[2].passed")->b);
  CHECK_CONTAINS(test_json_str(J(j, "suites[0].cases[2].message")), "got 2, expected 3");
  test_json_free(j);
}

int main(void) {
  RUN(inspect_reports_missing_kernels);
  RUN(dynamic_bound_input_accepts_smaller_npy);
  RUN(limits_max_memory_verify_instructions);
  RUN(channels_last_input_and_output_relayout);
  RUN(xnnpack_delegated_programs);
  RUN(num_executions_profile_print_threads);
  RUN(etdump_decodes_with_flatc);
  RUN(bundled_all_cases_pass);
  RUN(bundled_corrupted_expected_outputs_fail);
  return test_summary();
}
