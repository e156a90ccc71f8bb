/* The README's first C example ("The C API in five minutes"), extracted from README.md at test
 * time so the README cannot drift: compiled as written against the build's libpte.a (and
 * include/), run in a directory where model.pte is the corpus's arduino_AddModel.pte, and its
 * printed outputs compared with the golden output io/arduino_AddModel.expected_output0.float32.bin
 * (AddModel.ino: [1,2,3] + 1 = [2,3,4]; the example's input must be that golden input). */
#define _POSIX_C_SOURCE 200809L
#include "test.h"

#include <unistd.h>

static char *slurp(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long len = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *p = malloc((size_t)len + 1);
  if (p && fread(p, 1, (size_t)len, f) != (size_t)len) {
    free(p);
    p = NULL;
  }
  fclose(f);
  if (p) p[len] = 0;
  if (n) *n = (size_t)len;
  return p;
}

/* Directory of `path` (in place). */
static void dir_of(char *path) {
  char *s = strrchr(path, '/');
  if (s) *s = 0;
}

/* "KEY:TYPE=value" of CMakeCache.txt, or "" */
static void cache_value(const char *cache, const char *key, char *out, size_t cap) {
  out[0] = 0;
  size_t kl = strlen(key);
  for (const char *p = cache; p && *p;) {
    const char *e = strchr(p, '\n');
    size_t len = e ? (size_t)(e - p) : strlen(p);
    if (len > kl && !strncmp(p, key, kl) && p[kl] == ':') {
      const char *eq = memchr(p, '=', len);
      if (eq) snprintf(out, cap, "%.*s", (int)(len - (size_t)(eq + 1 - p)), eq + 1);
      return;
    }
    p = e ? e + 1 : NULL;
  }
}

TEST(readme_first_c_example) {
  const char *cli = getenv("PTE_CLI"), *schema = getenv("PTE_SCHEMA_DIR"), *tmp = getenv("PTE_TMP");
  CHECK_MSG(cli && schema && tmp, "PTE_CLI / PTE_SCHEMA_DIR / PTE_TMP not set (run through ctest)");
  char build[1024], src[1024];
  snprintf(build, sizeof build, "%s", cli);
  dir_of(build);
  snprintf(src, sizeof src, "%s", schema);
  dir_of(src);

  /* the first ```c block after the "The C API in five minutes" heading */
  char path[1200];
  snprintf(path, sizeof path, "%s/README.md", src);
  char *readme = slurp(path, NULL);
  CHECK_MSG(readme, "cannot read %s", path);
  char *sec = strstr(readme, "## The C API in five minutes");
  char *start = sec ? strstr(sec, "```c\n") : NULL;
  char *end = start ? strstr(start + 5, "\n```") : NULL;
  char *next_sec = sec ? strstr(sec + 3, "\n## ") : NULL;
  CHECK_MSG(start && end && (!next_sec || end < next_sec), "README.md: no ```c block in 'The C API in five minutes'");
  start += 5;
  CHECK_MSG(strstr(start, "int main(") && strstr(start, "int main(") < end, "the README's first C example has no main()");
  CHECK_MSG(strstr(start, "pte/module.h") || strstr(start, "pte/pte.h"), "the README's first C example does not use the Module API");
  char *in_lit = strstr(start, "float x[3] = {1, 2, 3};");
  CHECK_MSG(in_lit && in_lit < end, "the README's example no longer feeds the golden input [1, 2, 3]");

  /* the golden input really is [1, 2, 3] */
  char io[1200];
  snprintf(io, sizeof io, "%s/io/arduino_AddModel.input0.float32.bin", getenv("PTE_CORPUS") ? getenv("PTE_CORPUS") : "");
  size_t n_in = 0, n_out = 0;
  char *gin = slurp(io, &n_in);
  snprintf(io, sizeof io, "%s/io/arduino_AddModel.expected_output0.float32.bin", getenv("PTE_CORPUS") ? getenv("PTE_CORPUS") : "");
  char *gout = slurp(io, &n_out);
  CHECK_MSG(gin && gout && n_in == 12 && n_out == 12, "golden files io/arduino_AddModel.* missing");
  float want_in[3] = {1, 2, 3}, want[3];
  CHECK(memcmp(gin, want_in, 12) == 0);
  memcpy(want, gout, 12);

  char dir[1200];
  snprintf(dir, sizeof dir, "%s/readme.XXXXXX", tmp);
  CHECK_MSG(mkdtemp(dir), "mkdtemp %s failed", dir);
  char file[1400];
  snprintf(file, sizeof file, "%s/readme.c", dir);
  FILE *f = fopen(file, "w");
  CHECK(f);
  fwrite(start, 1, (size_t)(end - start + 1), f);
  fclose(f);

  char *cache;
  snprintf(path, sizeof path, "%s/CMakeCache.txt", build);
  cache = slurp(path, NULL);
  CHECK_MSG(cache, "cannot read %s", path);
  char cc[512], san[256];
  cache_value(cache, "CMAKE_C_COMPILER", cc, sizeof cc);
  cache_value(cache, "PTE_SANITIZE", san, sizeof san);
  free(cache);
  char sanflags[400] = "";
  if (san[0]) snprintf(sanflags, sizeof sanflags, "-fsanitize=%s -fno-omit-frame-pointer", san);
  char cmd[6000];
  snprintf(cmd, sizeof cmd,
           "cd '%s' && ln -s '%s' model.pte && '%s' -std=c11 -Wall -Wextra -Werror -pedantic %s -I'%s/include' readme.c "
           "'%s/libpte.a' -lm -lpthread -o readme 2>build.log && ./readme >out.txt 2>err.txt",
           dir, test_corpus_path("arduino_AddModel.pte"), cc[0] ? cc : "cc", sanflags, src, build);
  int rc = system(cmd);
  char log[1400];
  snprintf(log, sizeof log, "%s/build.log", dir);
  char *blog = slurp(log, NULL);
  snprintf(log, sizeof log, "%s/err.txt", dir);
  char *elog = slurp(log, NULL);
  snprintf(log, sizeof log, "%s/out.txt", dir);
  char *out = slurp(log, NULL);
  if (rc != 0) test_fail(__FILE__, __LINE__, "README example failed (%d): build: %s run: %s", rc, blog ? blog : "", elog ? elog : "");
  float got[4];
  int n = 0;
  if (rc == 0 && out) {
    char *p = out;
    for (char *e; n < 4; p = e) {
      double v = strtod(p, &e);
      if (e == p) break;
      got[n++] = (float)v;
    }
  }
  if (rc == 0) {
    if (n != 3) test_fail(__FILE__, __LINE__, "README example printed %d numbers: %s", n, out ? out : "");
    for (int k = 0; rc == 0 && n == 3 && k < 3; k++)
      if (got[k] != want[k]) test_fail(__FILE__, __LINE__, "output %d: %g, golden %g", k, got[k], want[k]);
  }
  free(blog);
  free(elog);
  free(out);
  free(readme);
  free(gin);
  free(gout);
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
}

int main(void) {
  RUN(readme_first_c_example);
  return test_summary();
}
