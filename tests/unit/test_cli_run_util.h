/* tests/unit/test_cli_run_util.h — helpers of the `pte run` / `pte test` tests (test_cli_run.c,
 * test_cli_run_built.c): corpus paths, running the CLI ($PTE_CLI) and parsing its JSON, .npy
 * inputs (tools/cli/npy.c compiled in). static inline so a test that does not use one does not
 * warn. */
#ifndef PTE_TEST_CLI_RUN_UTIL_H
#define PTE_TEST_CLI_RUN_UTIL_H

#include <stdarg.h>

#include "json.h"
#include "test.h"

#include "../../tools/cli/npy.c"
#include "pte/bundled.h"
#include "pte/data_loader.h"
#include "pte/ptd.h"
#include "pte/writer.h"

static char g_corpus[1024];

static inline const char *cp(const char *name, char *buf, size_t cap) {
  size_t a = strlen(g_corpus), b = strlen(name);
  if (cap == 0) return buf;
  if (a + 1 + b + 1 > cap) {
    buf[0] = 0; /* does not fit: an empty path makes the calling test fail visibly */
    return buf;
  }
  memcpy(buf, g_corpus, a);
  buf[a] = '/';
  memcpy(buf + a + 1, name, b + 1);
  return buf;
}

typedef struct run_result {
  char *out;
  int rc;
} run_result;

/* Runs `$PTE_CLI <args>` through the shell. `merge` also captures stderr. */
static inline run_result pte(bool merge, const char *fmt, ...) {
  char args[8192], cmd[9000];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(args, sizeof args, fmt, ap);
  va_end(ap);
  snprintf(cmd, sizeof cmd, "'%s' %s %s", getenv("PTE_CLI"), args, merge ? "2>&1" : "2>/dev/null");
  run_result r = {NULL, -1};
  r.out = test_run_capture(cmd, &r.rc);
  if (!r.out) r.out = calloc(1, 1);
  return r;
}

static inline test_json *parse_json(const char *text) {
  char err[256];
  test_json *j = test_json_parse(text, strlen(text), err, sizeof err);
  if (!j) fprintf(stderr, "  JSON error: %s\n  text: %.400s\n", err, text);
  return j;
}

#define J(v, p) test_json_path((v), (p))

static inline bool env_ok(void) {
  const char *c = getenv("PTE_CORPUS");
  if (!c || !getenv("PTE_CLI")) {
    test_fail(__FILE__, __LINE__, "PTE_CORPUS and PTE_CLI must be set (run through ctest)");
    return false;
  }
  snprintf(g_corpus, sizeof g_corpus, "%s", c);
  return true;
}

static inline const char *tmpdir(const char *name) {
  const char *p = test_tmp_path(name);
  char cmd[2048];
  snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", p, p);
  int rc = system(cmd);
  (void)rc;
  return p;
}

static inline bool write_npy(const char *path, int dtype, const int32_t *sizes, int32_t dim, const void *data) {
  char err[256];
  if (pte_npy_save(path, dtype, sizes, dim, data, err, sizeof err) != 0) {
    fprintf(stderr, "  %s\n", err);
    return false;
  }
  return true;
}

/* Values of outputs[i] in a `pte run --json` document as doubles. */
static inline size_t json_values(const test_json *doc, size_t i, double *out, size_t cap) {
  char path[64];
  snprintf(path, sizeof path, "outputs[%zu].values", i);
  const test_json *v = J(doc, path);
  size_t n = test_json_len(v);
  for (size_t k = 0; k < n && k < cap; k++) out[k] = test_json_num(test_json_at(v, k), NAN);
  return n;
}

#endif
