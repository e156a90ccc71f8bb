#define _POSIX_C_SOURCE 200809L
/* `pte synth` and `pte migrate` through the CLI binary ($PTE_CLI): the synthesized MLP computes
 * exactly what its documented weight generator implies (reference computed here independently),
 * the CNN and large models load and run, migrate rewrites an old file, bad arguments fail with
 * the usage exit code and leave no output. */
#include <math.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test_writer_util.h"
#include "llama_ref.h"

static const char *cli(void) { return getenv("PTE_CLI"); }

static int run_cli(const char *args, char **out) {
  char cmd[2048];
  snprintf(cmd, sizeof cmd, "'%s' %s 2>&1", cli(), args);
  int code = -1;
  char *o = test_run_capture(cmd, &code);
  if (out) *out = o;
  else free(o);
  return code;
}

/* The generator of docs/writer.md (tests/support/llama_ref.c re-implements it from its
 * description) with the scale `pte synth` uses, 1/sqrt(fan_in). */
static float gen(uint64_t seed, uint32_t tensor_id, uint32_t fan_in, uint32_t i) {
  return llama_ref_weight(seed, tensor_id, 1.0f / sqrtf((float)fan_in), 0.0f, i);
}

static bool all_zero_range(const uint8_t *p, size_t from, size_t to) {
  for (size_t i = from; i < to; i++)
    if (p[i]) return false;
  return true;
}

static tw_prog load_path(const char *path, pte_status *s) {
  tw_prog p;
  memset(&p, 0, sizeof p);
  size_t n = 0;
  uint8_t *b = test_read_file(path, &n);
  *s = b ? tw_load_bytes(&p, b, n) : PTE_ERR_ACCESS_FAILED;
  free(b);
  return p;
}

TEST(synth_mlp_matches_reference) {
  if (!cli()) return;
  const char *out = test_tmp_path("synth_mlp.pte");
  char args[1024];
  snprintf(args, sizeof args, "synth mlp -o '%s' --widths 5,7,3 --seed 42 --no-fsync", out);
  char *o = NULL;
  int code = run_cli(args, &o);
  CHECK_MSG(code == 0, "exit %d: %s", code, o ? o : "");
  CHECK_CONTAINS(o, "4 generated tensors");
  free(o);
  pte_status s;
  tw_prog p = load_path(out, &s);
  CHECK_OK(s);
  tw_run r;
  tw_run_method(&p.prog, "forward", NULL, &r);
  CHECK_OK(r.load_status);
  CHECK_OK(r.exec_status);
  CHECK_EQ_INT(r.nbytes[0], 12);
  /* reference: tensors in order W0 [5,7] (id 0), b0 [7] (id 1), W1 [7,3] (id 2), b1 [3] (id 3) */
  float x[5], h[7], y[3];
  for (int k = 0; k < 5; k++) x[k] = (float)((long)((k * 7) % 11) - 5) * 0.25f;
  for (int j = 0; j < 7; j++) {
    float acc = 0;
    for (int k = 0; k < 5; k++) acc += x[k] * gen(42, 0, 5, (uint32_t)(k * 7 + j));
    acc += gen(42, 1, 5, (uint32_t)j);
    h[j] = acc > 0 ? acc : 0;
  }
  for (int j = 0; j < 3; j++) {
    float acc = 0;
    for (int k = 0; k < 7; k++) acc += h[k] * gen(42, 2, 7, (uint32_t)(k * 3 + j));
    y[j] = acc + gen(42, 3, 7, (uint32_t)j);
  }
  const float *got = (const float *)r.data[0];
  for (int j = 0; j < 3; j++) CHECK_NEAR(got[j], y[j], 1e-5);
  /* and the weights are not trivial */
  CHECK(fabsf(y[0]) + fabsf(y[1]) + fabsf(y[2]) > 1e-3f);
  tw_run_free(&r);
  /* same seed, same file; other seed, other weights */
  const char *out2 = test_tmp_path("synth_mlp2.pte");
  snprintf(args, sizeof args, "synth mlp -o '%s' --widths 5,7,3 --seed 42 --no-fsync --quiet", out2);
  CHECK_EQ_INT(run_cli(args, NULL), 0);
  size_t n1 = 0, n2 = 0;
  uint8_t *a = test_read_file(out, &n1), *b = test_read_file(out2, &n2);
  CHECK(a && b && n1 == n2 && memcmp(a, b, n1) == 0);
  free(b);
  snprintf(args, sizeof args, "synth mlp -o '%s' --widths 5,7,3 --seed 43 --no-fsync", out2);
  CHECK_EQ_INT(run_cli(args, NULL), 0);
  b = test_read_file(out2, &n2);
  CHECK(b && n1 == n2 && memcmp(a, b, n1) != 0);
  free(a);
  free(b);
  tw_free(&p);
  unlink(out);
  unlink(out2);
}

TEST(synth_cnn_and_large_run) {
  if (!cli()) return;
  const char *out = test_tmp_path("synth_cnn.pte");
  char args[1024];
  snprintf(args, sizeof args, "synth cnn -o '%s' --channels 3,8,16 --image 16 --classes 5 --no-fsync", out);
  char *o = NULL;
  int code = run_cli(args, &o);
  CHECK_MSG(code == 0, "exit %d: %s", code, o ? o : "");
  free(o);
  pte_status s;
  tw_prog p = load_path(out, &s);
  CHECK_OK(s);
  tw_run r;
  tw_run_method(&p.prog, "forward", NULL, &r);
  CHECK_OK(r.load_status);
  CHECK_OK(r.exec_status);
  CHECK_EQ_INT(r.dims[0], 2);
  CHECK_EQ_INT(r.sizes[0][1], 5);
  tw_run_free(&r);
  tw_free(&p);
  /* large: ~8 MiB of weights, 16 KiB segment alignment */
  snprintf(args, sizeof args, "synth large -o '%s' --size 8M --layers 2 --segment-alignment 16384 --no-fsync", out);
  CHECK_EQ_INT(run_cli(args, NULL), 0);
  p = load_path(out, &s);
  CHECK_OK(s);
  const pte_program_header *h = pte_program_get_header(&p.prog);
  CHECK(h->present && h->segment_base_offset % 16384 == 0);
  CHECK(h->segment_data_size > (7u << 20) && h->segment_data_size <= (8u << 20) + 65536);
  tw_run_method(&p.prog, "forward", NULL, &r);
  CHECK_OK(r.exec_status);
  tw_run_free(&r);
  tw_free(&p);
  unlink(out);
}

TEST(migrate_cli) {
  if (!cli()) return;
  const char *out = test_tmp_path("migrated_cli.pte");
  char args[2048];
  snprintf(args, sizeof args, "migrate '%s' -o '%s' --tensor-alignment 64 --no-fsync",
           test_corpus_path("upstream_module_test_model_2024-03.pte"), out);
  char *o = NULL;
  int code = run_cli(args, &o);
  CHECK_MSG(code == 0, "exit %d: %s", code, o ? o : "");
  CHECK_CONTAINS(o, "constants in segment");
  free(o);
  pte_status s;
  tw_prog p = load_path(out, &s);
  CHECK_OK(s);
  CHECK_EQ_INT(pte_program_constant_storage(&p.prog), PTE_CONSTANTS_SEGMENT);
  CHECK_EQ_INT(pte_program_get_header(&p.prog)->header_length, 32);
  /* tensor alignment 64 pads the inserted header to 64 bytes: the flatbuffer resumes at 72 */
  CHECK(all_zero_range(p.bytes, 40, 72));
  tw_free(&p);
  unlink(out);
}

TEST(cli_errors) {
  if (!cli()) return;
  const char *out = test_tmp_path("never.pte");
  unlink(out);
  char args[2048];
  snprintf(args, sizeof args, "migrate '%s' -o '%s' --segment-alignment 100", test_corpus_path("node-executorch_mul.pte"), out);
  CHECK_EQ_INT(run_cli(args, NULL), 2);
  snprintf(args, sizeof args, "migrate /no/such/file.pte -o '%s'", out);
  char *o = NULL;
  CHECK_EQ_INT(run_cli(args, &o), 1);
  CHECK_CONTAINS(o, "AccessFailed");
  free(o);
  snprintf(args, sizeof args, "synth mlp -o '%s' --widths 5", out);
  CHECK_EQ_INT(run_cli(args, NULL), 2);
  snprintf(args, sizeof args, "synth large -o '%s'", out);
  CHECK_EQ_INT(run_cli(args, NULL), 2);
  snprintf(args, sizeof args, "synth banana -o '%s'", out);
  CHECK_EQ_INT(run_cli(args, NULL), 2);
  snprintf(args, sizeof args, "synth mlp -o '%s' --tensor-alignment 3", out);
  CHECK_EQ_INT(run_cli(args, NULL), 2);
  struct stat st;
  CHECK(stat(out, &st) != 0);
}

int main(void) {
  if (!cli()) {
    fprintf(stderr, "PTE_CLI not set: the CLI tests cannot run\n");
    return 1;
  }
  RUN(synth_mlp_matches_reference);
  RUN(synth_cnn_and_large_run);
  RUN(migrate_cli);
  RUN(cli_errors);
  return test_summary();
}
