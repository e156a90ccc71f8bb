/* `pte inspect --json` on every corpus file, checked field by field against Google flatc's
 * decode of the same file with our schema (the reference decoder). */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>

#include "json.h"
#include "test.h"

static char *slurp(const char *path, size_t *len) {
  size_t n;
  uint8_t *d = test_read_file(path, &n);
  if (len) *len = n;
  return (char *)d;
}

static test_json *run_json(const char *cmd) {
  int rc = -1;
  char *out = test_run_capture(cmd, &rc);
  if (!out || rc != 0) {
    free(out);
    return NULL;
  }
  char err[128];
  test_json *j = test_json_parse(out, strlen(out), err, sizeof err);
  free(out);
  return j;
}

/* flatc --json decode of `bin` with `schema` (a file in $PTE_SCHEMA_DIR). */
static test_json *flatc_decode(const char *schema, const char *bin, const char *tag) {
  const char *flatc = getenv("PTE_FLATC"), *sdir = getenv("PTE_SCHEMA_DIR");
  const char *outdir = test_tmp_path(tag);
  char cmd[4096];
  snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s' && '%s' --json --raw-binary --strict-json --defaults-json -o '%s' '%s/%s' -- '%s' 2>&1",
           outdir, outdir, flatc, outdir, sdir, schema, bin);
  int rc = -1;
  char *o = test_run_capture(cmd, &rc);
  free(o);
  if (rc != 0) return NULL;
  /* output file: basename without extension + .json */
  const char *base = strrchr(bin, '/');
  base = base ? base + 1 : bin;
  char name[512];
  snprintf(name, sizeof name, "%s", base);
  char *dot = strrchr(name, '.');
  if (dot) *dot = 0;
  char path[2048];
  snprintf(path, sizeof path, "%s/%s.json", outdir, name);
  size_t len;
  char *text = slurp(path, &len);
  if (!text) return NULL;
  test_json *j = test_json_parse(text, len, NULL, 0);
  free(text);
  return j;
}

static int g_files_checked;

#define J(v, p) test_json_path((v), (p))

/* Compares the program part of our JSON (`ours`) with flatc's Program decode (`ref`). */
static void compare_program(const char *file, const test_json *ours, const test_json *ref) {
  const test_json *plans = J(ref, "execution_plan"), *methods = J(ours, "methods");
  CHECK_MSG(plans && methods, "%s: missing execution_plan/methods", file);
  CHECK_EQ_INT(test_json_len(methods), test_json_len(plans));
  for (size_t m = 0; m < test_json_len(plans); m++) {
    const test_json *pl = test_json_at(plans, m), *me = test_json_at(methods, m);
    CHECK_STR(test_json_str(J(me, "name")), test_json_str(J(pl, "name")));
    const test_json *values = J(pl, "values");
    CHECK_EQ_INT(test_json_int(J(me, "num_values"), -1), (long long)test_json_len(values));
    const char *io[2] = {"inputs", "outputs"};
    for (int k = 0; k < 2; k++) {
      const test_json *ri = J(pl, io[k]), *oi = J(me, io[k]);
      CHECK_EQ_INT(test_json_len(oi), test_json_len(ri));
      for (size_t i = 0; i < test_json_len(ri); i++) {
        int64_t vi = test_json_int(test_json_at(ri, i), -1);
        const test_json *ov = test_json_at(oi, i);
        CHECK_EQ_INT(test_json_int(J(ov, "value"), -2), vi);
        const test_json *ev = test_json_at(values, (size_t)vi);
        CHECK_STR(test_json_str(J(ov, "kind")), test_json_str(J(ev, "val_type")));
        if (!strcmp(test_json_str(J(ev, "val_type")), "Tensor")) {
          CHECK_STR(test_json_str(J(ov, "scalar_type")), test_json_str(J(ev, "val.scalar_type")));
          char diff[256];
          CHECK_MSG(test_json_equal(J(ov, "sizes"), J(ev, "val.sizes"), NULL, diff, sizeof diff), "%s %s: sizes %s", file, io[k], diff);
          CHECK_MSG(test_json_equal(J(ov, "dim_order"), J(ev, "val.dim_order"), NULL, diff, sizeof diff), "%s: dim_order %s", file, diff);
          CHECK_STR(test_json_str(J(ov, "dynamism")), test_json_str(J(ev, "val.shape_dynamism")));
        }
      }
    }
    const test_json *rops = J(pl, "operators"), *oops = J(me, "operators");
    CHECK_EQ_INT(test_json_len(oops), test_json_len(rops));
    for (size_t i = 0; i < test_json_len(rops); i++) {
      char want[512];
      const char *n = test_json_str(J(test_json_at(rops, i), "name"));
      const char *ov = test_json_str(J(test_json_at(rops, i), "overload"));
      snprintf(want, sizeof want, "%s%s%s", n, ov && *ov ? "." : "", ov ? ov : "");
      CHECK_STR(test_json_str(test_json_at(oops, i)), want);
    }
    /* instruction counts by kind */
    long long counts[6] = {0};
    const char *kinds[6] = {"NONE", "KernelCall", "DelegateCall", "MoveCall", "JumpFalseCall", "FreeCall"};
    const test_json *chains = J(pl, "chains");
    for (size_t c = 0; c < test_json_len(chains); c++) {
      const test_json *ins = J(test_json_at(chains, c), "instructions");
      for (size_t i = 0; i < test_json_len(ins); i++) {
        const char *t = test_json_str(J(test_json_at(ins, i), "instr_args_type"));
        for (int k = 1; k < 6; k++)
          if (t && !strcmp(t, kinds[k])) counts[k]++;
      }
    }
    for (int k = 1; k < 6; k++) {
      char path[64];
      snprintf(path, sizeof path, "instructions.%s", kinds[k]);
      CHECK_EQ_INT(test_json_int(J(me, path), -1), counts[k]);
    }
    const test_json *rd = J(pl, "delegates"), *od = J(me, "delegates");
    CHECK_EQ_INT(test_json_len(od), test_json_len(rd));
    for (size_t i = 0; i < test_json_len(rd); i++) {
      const test_json *r = test_json_at(rd, i), *o = test_json_at(od, i);
      CHECK_STR(test_json_str(J(o, "id")), test_json_str(J(r, "id")));
      const char *loc = test_json_str(J(r, "processed.location"));
      CHECK_STR(test_json_str(J(o, "location")), !strcmp(loc, "SEGMENT") ? "segment" : "inline");
      int64_t idx = test_json_int(J(r, "processed.index"), -1);
      CHECK_EQ_INT(test_json_int(J(o, "index"), -2), idx);
      int64_t size;
      if (!strcmp(loc, "SEGMENT")) {
        char p[64];
        snprintf(p, sizeof p, "segments[%lld].size", (long long)idx);
        size = test_json_int(J(ref, p), -1);
      } else {
        char p[64];
        snprintf(p, sizeof p, "backend_delegate_data[%lld].data", (long long)idx);
        size = (int64_t)test_json_len(J(ref, p));
      }
      CHECK_EQ_INT(test_json_int(J(o, "size"), -2), size);
      CHECK_EQ_INT(test_json_len(J(o, "compile_specs")), test_json_len(J(r, "compile_specs")));
    }
    char diff[256];
    CHECK_MSG(test_json_equal(J(me, "non_const_buffer_sizes"), J(pl, "non_const_buffer_sizes"), NULL, diff, sizeof diff),
              "%s: non_const_buffer_sizes %s", file, diff);
  }
  const test_json *rs = J(ref, "segments"), *os = J(ours, "segments");
  CHECK_EQ_INT(test_json_len(os), test_json_len(rs));
  for (size_t i = 0; i < test_json_len(rs); i++) {
    CHECK_EQ_INT(test_json_int(J(test_json_at(os, i), "offset"), -1), test_json_int(J(test_json_at(rs, i), "offset"), -2));
    CHECK_EQ_INT(test_json_int(J(test_json_at(os, i), "size"), -1), test_json_int(J(test_json_at(rs, i), "size"), -2));
  }
  /* constant storage: the segment form counts when it lists more than the placeholder offset,
   * the legacy form whenever constant_buffer has entries */
  size_t n_off = test_json_len(J(ref, "constant_segment.offsets"));
  size_t n_buf = test_json_len(J(ref, "constant_buffer"));
  const char *want = n_off > 1 ? "segment" : n_buf > 0 ? "inline" : "none";
  CHECK_STR(test_json_str(J(ours, "constants")), want);
  const test_json *rn = J(ref, "named_data"), *on = J(ours, "named_data");
  CHECK_EQ_INT(test_json_len(on), test_json_len(rn));
  for (size_t i = 0; i < test_json_len(rn); i++) {
    CHECK_STR(test_json_str(J(test_json_at(on, i), "key")), test_json_str(J(test_json_at(rn, i), "key")));
    CHECK_EQ_INT(test_json_int(J(test_json_at(on, i), "segment_index"), -1),
                 test_json_int(J(test_json_at(rn, i), "segment_index"), -2));
  }
  CHECK_EQ_INT(test_json_len(J(ours, "mutable_data_segments")), test_json_len(J(ref, "mutable_data_segments")));
  g_files_checked++;
}

static void check_header(const char *path, const test_json *ours) {
  /* The eh00 header as written in the file (little-endian at byte 8). */
  size_t n;
  uint8_t *d = test_read_file(path, &n);
  CHECK(d);
  const test_json *h = J(ours, "header");
  if (n >= 40 && !memcmp(d + 8, "eh00", 4)) {
    uint32_t len;
    uint64_t ps, base;
    memcpy(&len, d + 12, 4);
    memcpy(&ps, d + 16, 8);
    memcpy(&base, d + 24, 8);
    CHECK_MSG(h && h->type == TEST_JSON_OBJECT, "%s: header missing", path);
    CHECK_EQ_INT(test_json_int(J(h, "program_size"), -1), (long long)ps);
    CHECK_EQ_INT(test_json_int(J(h, "segment_base_offset"), -1), (long long)base);
    if (len >= 32) {
      uint64_t sds;
      memcpy(&sds, d + 32, 8);
      CHECK_EQ_INT(test_json_int(J(h, "segment_data_size"), -1), (long long)sds);
    }
  } else {
    CHECK_MSG(h && h->type == TEST_JSON_NULL, "%s: header should be null", path);
  }
  free(d);
}

TEST(every_pte_matches_flatc) {
  const char *dir = getenv("PTE_CORPUS"), *cli = getenv("PTE_CLI"), *flatc = getenv("PTE_FLATC");
  CHECK(dir && cli);
  if (!flatc || !*flatc) SKIP("flatc not installed (.ci/run installs it)");
  DIR *dd = opendir(dir);
  CHECK(dd);
  struct dirent *e;
  int n = 0;
  while ((e = readdir(dd))) {
    size_t l = strlen(e->d_name);
    if (l < 5 || strcmp(e->d_name + l - 4, ".pte")) continue;
    const char *path = test_corpus_path(e->d_name);
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "'%s' inspect --json '%s'", cli, path);
    test_json *ours = run_json(cmd);
    CHECK_MSG(ours, "pte inspect --json failed on %s", e->d_name);
    CHECK_STR(test_json_str(J(ours, "format")), "pte");
    test_json *ref = flatc_decode("program.fbs", path, "inspect-flatc");
    CHECK_MSG(ref, "flatc could not decode %s", e->d_name);
    int before = test_current_failed;
    compare_program(e->d_name, ours, ref);
    check_header(path, ours);
    test_json_free(ours);
    test_json_free(ref);
    if (test_current_failed && !before) {
      closedir(dd);
      return;
    }
    n++;
  }
  closedir(dd);
  CHECK_MSG(n >= 37, "only %d .pte files found", n);
  CHECK_EQ_INT(g_files_checked, n);
}

TEST(bundled_program_matches_flatc) {
  const char *cli = getenv("PTE_CLI"), *flatc = getenv("PTE_FLATC");
  if (!flatc || !*flatc) return;
  const char *path = test_corpus_path("module_test_bundled_program.bpte");
  char cmd[2048];
  snprintf(cmd, sizeof cmd, "'%s' inspect --json '%s'", cli, path);
  test_json *ours = run_json(cmd);
  CHECK(ours);
  CHECK_STR(test_json_str(J(ours, "format")), "bpte");
  test_json *ref = flatc_decode("bundled_program.fbs", path, "inspect-bp");
  CHECK(ref);
  CHECK_EQ_INT(test_json_int(J(ours, "bundled.version"), -1), test_json_int(J(ref, "version"), -2));
  CHECK_EQ_INT(test_json_int(J(ours, "bundled.program_size"), -1), (long long)test_json_len(J(ref, "program")));
  CHECK_EQ_INT(test_json_int(J(ours, "bundled.program_offset"), -1), 64);
  const test_json *suites = J(ref, "method_test_suites");
  CHECK_EQ_INT(test_json_len(J(ours, "bundled.test_suites")), test_json_len(suites));
  CHECK_STR(test_json_str(J(ours, "bundled.test_suites[0].method")), test_json_str(J(suites, "[0].method_name")));
  CHECK_EQ_INT(test_json_int(J(ours, "bundled.test_suites[0].test_cases"), -1), (long long)test_json_len(J(suites, "[0].test_cases")));
  /* the embedded program: extract its bytes and decode them with flatc too */
  size_t n;
  uint8_t *d = test_read_file(path, &n);
  CHECK(d);
  const char *inner = test_tmp_path("bundled_inner.pte");
  CHECK(test_write_file(inner, d + 64, (size_t)test_json_int(J(ours, "bundled.program_size"), 0)) == 0);
  free(d);
  test_json *iref = flatc_decode("program.fbs", inner, "inspect-bp-inner");
  CHECK(iref);
  compare_program("bundled inner program", ours, iref);
  test_json_free(iref);
  test_json_free(ref);
  test_json_free(ours);
}

TEST(ptd_files_match_flatc) {
  const char *cli = getenv("PTE_CLI"), *flatc = getenv("PTE_FLATC");
  if (!flatc || !*flatc) return;
  const char *files[] = {"upstream_android_xor.ptd", "etrs_data_map__default_external_constant.ptd"};
  for (int f = 0; f < 2; f++) {
    const char *path = test_corpus_path(files[f]);
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "'%s' inspect --json '%s'", cli, path);
    test_json *ours = run_json(cmd);
    CHECK(ours);
    CHECK_STR(test_json_str(J(ours, "format")), "ptd");
    test_json *ref = flatc_decode("flat_tensor.fbs", path, "inspect-ptd");
    CHECK(ref);
    const test_json *rn = J(ref, "named_data"), *on = J(ours, "named_data");
    CHECK(test_json_len(rn) > 0);
    CHECK_EQ_INT(test_json_len(on), test_json_len(rn));
    for (size_t i = 0; i < test_json_len(rn); i++) {
      const test_json *r = test_json_at(rn, i), *o = test_json_at(on, i);
      CHECK_STR(test_json_str(J(o, "key")), test_json_str(J(r, "key")));
      CHECK_EQ_INT(test_json_int(J(o, "segment_index"), -1), test_json_int(J(r, "segment_index"), -2));
      CHECK_STR(test_json_str(J(o, "scalar_type")), test_json_str(J(r, "tensor_layout.scalar_type")));
      char diff[256];
      CHECK_MSG(test_json_equal(J(o, "sizes"), J(r, "tensor_layout.sizes"), NULL, diff, sizeof diff), "%s", diff);
      char p[64];
      snprintf(p, sizeof p, "segments[%lld].size", (long long)test_json_int(J(r, "segment_index"), 0));
      CHECK_EQ_INT(test_json_int(J(o, "size"), -1), test_json_int(J(ref, p), -2));
    }
    test_json_free(ref);
    test_json_free(ours);
  }
}

TEST(data_option_and_errors) {
  const char *cli = getenv("PTE_CLI");
  char cmd[4096];
  int rc;
  snprintf(cmd, sizeof cmd, "'%s' inspect --json '%s' --data '%s'", cli, test_corpus_path("upstream_android_xor.pte"),
           test_corpus_path("upstream_android_xor.ptd"));
  test_json *j = run_json(cmd);
  CHECK(j);
  CHECK_STR(test_json_str(J(j, "data.format")), "ptd");
  CHECK_EQ_INT(test_json_len(J(j, "data.named_data")), 4);
  CHECK_STR(test_json_str(J(j, "data.named_data[0].key")), "net.linear.weight");
  test_json_free(j);
  /* a non-program file: exit 1 and a message; a missing file: AccessFailed; bad flag: exit 2 */
  const char *tmp = test_tmp_path("not_a_program.bin");
  char junk[64];
  memset(junk, 'x', sizeof junk);
  memcpy(junk, "hello world", 11);
  CHECK(test_write_file(tmp, junk, sizeof junk) == 0);
  snprintf(cmd, sizeof cmd, "'%s' inspect '%s' 2>&1", cli, tmp);
  char *o = test_run_capture(cmd, &rc);
  CHECK(o);
  CHECK_EQ_INT(rc, 1);
  CHECK_CONTAINS(o, "not a .pte, .ptd or .bpte file");
  free(o);
  snprintf(cmd, sizeof cmd, "'%s' inspect /nonexistent/x.pte 2>&1", cli);
  o = test_run_capture(cmd, &rc);
  CHECK(o);
  CHECK_EQ_INT(rc, 1);
  CHECK_CONTAINS(o, "AccessFailed");
  free(o);
  snprintf(cmd, sizeof cmd, "'%s' inspect --bogus 2>&1", cli);
  o = test_run_capture(cmd, &rc);
  CHECK(o);
  CHECK_EQ_INT(rc, 2);
  free(o);
  /* a truncated program: InvalidProgram with the status named */
  size_t n;
  uint8_t *d = test_read_corpus("arduino_AddModel.pte", &n);
  CHECK(d);
  const char *trunc = test_tmp_path("truncated.pte");
  CHECK(test_write_file(trunc, d, 700) == 0);
  free(d);
  snprintf(cmd, sizeof cmd, "'%s' inspect '%s' 2>&1", cli, trunc);
  o = test_run_capture(cmd, &rc);
  CHECK(o);
  CHECK_EQ_INT(rc, 1);
  CHECK_CONTAINS(o, "InvalidProgram (0x23)");
  free(o);
}

/* After `pte prepare`, inspect says per delegate/named value whether data is portable or prepared. */
TEST(prepared_state_is_shown) {
  const char *cli = getenv("PTE_CLI");
  const char *out = test_tmp_path("inspect_prepared.pte");
  char cmd[4096];
  int rc;
  snprintf(cmd, sizeof cmd, "'%s' prepare '%s' -o '%s' --passthrough OpenvinoBackend -q 2>&1", cli,
           test_corpus_path("djl_openvino_tiny.pte"), out);
  char *o = test_run_capture(cmd, &rc);
  free(o);
  CHECK_EQ_INT(rc, 0);
  snprintf(cmd, sizeof cmd, "'%s' inspect --json '%s'", cli, test_corpus_path("djl_openvino_tiny.pte"));
  test_json *before = run_json(cmd);
  CHECK(before);
  CHECK_STR(test_json_str(J(before, "methods[0].delegates[0].data")), "portable");
  test_json_free(before);
  snprintf(cmd, sizeof cmd, "'%s' inspect --json '%s'", cli, out);
  test_json *after = run_json(cmd);
  CHECK(after);
  CHECK_STR(test_json_str(J(after, "methods[0].delegates[0].data.prepared.backend")), "OpenvinoBackend");
  CHECK_EQ_INT(test_json_int(J(after, "methods[0].delegates[0].data.prepared.format"), -1), 1);
  CHECK_EQ_INT(test_json_int(J(after, "methods[0].delegates[0].data.prepared.payload_size"), -1), 3769);
  test_json_free(after);
  snprintf(cmd, sizeof cmd, "'%s' inspect '%s'", cli, out);
  o = test_run_capture(cmd, &rc);
  CHECK(o);
  CHECK_CONTAINS(o, "prepared for OpenvinoBackend format 1");
  free(o);
  /* named data of an XNNPACK file reads as portable */
  snprintf(cmd, sizeof cmd, "'%s' inspect --json '%s'", cli, test_corpus_path("djl_spike_conv.pte"));
  test_json *x = run_json(cmd);
  CHECK(x);
  CHECK(test_json_len(J(x, "named_data")) == 2);
  CHECK_STR(test_json_str(J(x, "named_data[0].data")), "portable");
  test_json_free(x);
}

/* Every verb: --help exits 0, and --json output parses as one JSON object. */
TEST(every_verb_has_help_and_json) {
  const char *cli = getenv("PTE_CLI");
  const char *verbs[] = {"inspect", "run", "test", "prepare", "migrate", "synth"};
  char cmd[4096];
  int rc;
  for (size_t i = 0; i < sizeof verbs / sizeof verbs[0]; i++) {
    snprintf(cmd, sizeof cmd, "'%s' %s --help", cli, verbs[i]);
    char *o = test_run_capture(cmd, &rc);
    CHECK(o);
    CHECK_MSG(rc == 0 && strstr(o, "usage: pte") && strstr(o, "--json"), "pte %s --help (rc %d)", verbs[i], rc);
    free(o);
  }
  snprintf(cmd, sizeof cmd, "'%s' --help", cli);
  char *o = test_run_capture(cmd, &rc);
  CHECK(o);
  CHECK_EQ_INT(rc, 0);
  CHECK_CONTAINS(o, "exit codes:");
  free(o);
  const char *add = test_corpus_path("arduino_AddModel.pte");
  const char *mig = test_tmp_path("verbs_migrated.pte"), *syn = test_tmp_path("verbs_synth.pte");
  const char *prep = test_tmp_path("verbs_prepared.pte");
  struct {
    char cmd[2048];
    const char *key;
  } runs[5];
  snprintf(runs[0].cmd, sizeof runs[0].cmd, "'%s' run --json '%s'", cli, add);
  runs[0].key = "outputs";
  snprintf(runs[1].cmd, sizeof runs[1].cmd, "'%s' test --json '%s'", cli,
           test_corpus_path("module_test_bundled_program.bpte"));
  runs[1].key = "passed";
  snprintf(runs[2].cmd, sizeof runs[2].cmd, "'%s' migrate --json '%s' -o '%s'", cli,
           test_corpus_path("deprecated_ModuleLinear-no-constant-segment.pte"), mig);
  runs[2].key = "segments";
  snprintf(runs[3].cmd, sizeof runs[3].cmd, "'%s' synth mlp --json --quiet --widths 8,4 -o '%s'", cli, syn);
  runs[3].key = "bytes";
  snprintf(runs[4].cmd, sizeof runs[4].cmd, "'%s' prepare --json '%s' -o '%s'", cli, add, prep);
  runs[4].key = NULL;
  for (int i = 0; i < 5; i++) {
    test_json *j = run_json(runs[i].cmd);
    CHECK_MSG(j && j->type == TEST_JSON_OBJECT, "no JSON object from: %s", runs[i].cmd);
    if (runs[i].key) CHECK_MSG(test_json_get(j, runs[i].key) != NULL, "key %s missing: %s", runs[i].key, runs[i].cmd);
    test_json_free(j);
  }
  /* migrate's result holds the legacy constants in a segment now */
  snprintf(cmd, sizeof cmd, "'%s' inspect --json '%s'", cli, mig);
  test_json *j = run_json(cmd);
  CHECK(j);
  CHECK_STR(test_json_str(J(j, "constants")), "segment");
  test_json_free(j);
}

int main(void) {
  RUN(every_pte_matches_flatc);
  RUN(bundled_program_matches_flatc);
  RUN(ptd_files_match_flatc);
  RUN(data_option_and_errors);
  RUN(prepared_state_is_shown);
  RUN(every_verb_has_help_and_json);
  return test_summary();
}
