/* tests/unit/test_schema_gen_util.h — helpers of the schema tests (test_schema_gen.c,
 * test_schema_gen_read.c): our JSON of a buffer, flatc decode/encode with our schema files
 * (PTE_FLATC, PTE_SCHEMA_DIR), JSON comparison with flatc's float tolerance. static inline so a
 * test that does not use one does not warn. */
#ifndef PTE_TEST_SCHEMA_GEN_UTIL_H
#define PTE_TEST_SCHEMA_GEN_UTIL_H

#include <dirent.h>
#include <sys/stat.h>

#include "support/json.h"
#include "pte/io.h"
#include "pte_gen/bundled_program_gen.h"
#include "pte_gen/flat_tensor_gen.h"
#include "pte_gen/program_gen.h"
#include "test.h"

typedef struct sbuf {
  char *p;
  size_t n, cap;
} sbuf;

static inline void sbuf_write(void *ctx, const char *d, size_t n) {
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
static inline char *our_json(to_json_fn fn, const uint8_t *buf, size_t size, unsigned flags, bool pretty) {
  sbuf s = {0};
  pte_fb_json_sink sink;
  pte_fb_json_sink_init(&sink, sbuf_write, &s, pretty);
  fn(pte_fb_root(buf, size), &sink, flags);
  if (!s.p) sbuf_write(&s, "", 0);
  return s.p;
}

static inline const char *flatc(void) {
  const char *f = getenv("PTE_FLATC");
  return (f && *f) ? f : NULL;
}

static inline const char *schema_path(const char *name) {
  static char buf[4][1024];
  static int k;
  const char *dir = getenv("PTE_SCHEMA_DIR");
  k = (k + 1) % 4;
  snprintf(buf[k], sizeof buf[k], "%s/%s", dir ? dir : "schema", name);
  return buf[k];
}

static inline const char *tmp_dir(void) {
  static char dir[1024];
  if (!dir[0]) {
    snprintf(dir, sizeof dir, "%s", test_tmp_path("schema_gen"));
    mkdir(dir, 0777);
  }
  return dir;
}

static inline char *read_text_file(const char *path) {
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
static inline char *flatc_decode(const char *schema, const void *data, size_t size, const char *tag, bool defaults) {
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
static inline uint8_t *flatc_encode(const char *schema, const char *json_text, const char *tag, size_t *size) {
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
static inline bool json_texts_equal(const char *a, const char *b, char *diff, size_t n) {
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

static inline bool ends_with(const char *s, const char *suf) {
  size_t a = strlen(s), b = strlen(suf);
  return a >= b && strcmp(s + a - b, suf) == 0;
}

static inline pte_fb_ref mkstr(pte_fb_builder *b, const char *s) { return pte_fb_create_string(b, s, strlen(s)); }

static inline bool str_is(pte_fb_str s, const char *want) {
  return s.ptr && s.len == strlen(want) && memcmp(s.ptr, want, s.len) == 0;
}

#endif
