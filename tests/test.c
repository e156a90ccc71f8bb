#define _POSIX_C_SOURCE 200809L
#include "test.h"

#include <stdarg.h>
#include <sys/wait.h>

int test_current_failed;
static int test_current_skipped;
static int n_passed, n_failed, n_skipped;
static const char *current_name;

void test_fail(const char *file, int line, const char *fmt, ...) {
  va_list ap;
  fprintf(stderr, "  FAIL %s (%s:%d): ", current_name ? current_name : "?", file, line);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  test_current_failed = 1;
}

void test_skip(const char *fmt, ...) {
  va_list ap;
  printf("  SKIP %s: ", current_name ? current_name : "?");
  va_start(ap, fmt);
  vprintf(fmt, ap);
  va_end(ap);
  putchar('\n');
  test_current_skipped = 1;
}

void test_run(const char *name, void (*fn)(void)) {
  current_name = name;
  test_current_failed = 0;
  test_current_skipped = 0;
  fn();
  if (test_current_failed) {
    n_failed++;
    fprintf(stderr, "[FAIL] %s\n", name);
  } else if (test_current_skipped) {
    n_skipped++;
    printf("[skip] %s\n", name);
  } else {
    n_passed++;
    printf("[ ok ] %s\n", name);
  }
  fflush(stdout);
}

int test_summary(void) {
  if (n_skipped) printf("%d passed, %d failed, %d skipped\n", n_passed, n_failed, n_skipped);
  else printf("%d passed, %d failed\n", n_passed, n_failed);
  return n_failed ? 1 : n_skipped ? TEST_SKIP_EXIT_CODE : 0;
}

const char *test_corpus_path(const char *name) {
  static char buf[4][1024];
  static int k;
  const char *dir = getenv("PTE_CORPUS");
  if (!dir) return NULL;
  k = (k + 1) % 4;
  snprintf(buf[k], sizeof buf[k], "%s/%s", dir, name);
  return buf[k];
}

uint8_t *test_read_file(const char *path, size_t *size) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  if (n < 0) { fclose(f); return NULL; }
  void *p = NULL;
  if (posix_memalign(&p, 64, (size_t)n + 64) != 0) { fclose(f); return NULL; }
  memset(p, 0, (size_t)n + 64);
  if (n > 0 && fread(p, 1, (size_t)n, f) != (size_t)n) { fclose(f); free(p); return NULL; }
  fclose(f);
  *size = (size_t)n;
  return p;
}

uint8_t *test_read_corpus(const char *name, size_t *size) {
  const char *p = test_corpus_path(name);
  uint8_t *d = p ? test_read_file(p, size) : NULL;
  if (!d) test_fail(__FILE__, __LINE__, "cannot read corpus file %s (PTE_CORPUS=%s)", name, getenv("PTE_CORPUS") ? getenv("PTE_CORPUS") : "unset");
  return d;
}

int test_write_file(const char *path, const void *data, size_t size) {
  FILE *f = fopen(path, "wb");
  if (!f) return -1;
  int rc = (size && fwrite(data, 1, size, f) != size) ? -1 : 0;
  if (fclose(f) != 0) rc = -1;
  return rc;
}

const char *test_tmp_path(const char *name) {
  static char buf[8][1024];
  static int k;
  const char *dir = getenv("PTE_TMP");
  if (!dir) dir = "/tmp";
  k = (k + 1) % 8;
  snprintf(buf[k], sizeof buf[k], "%s/%s", dir, name);
  return buf[k];
}

char *test_run_capture(const char *cmd, int *exit_code) {
  FILE *p = popen(cmd, "r");
  if (!p) return NULL;
  size_t cap = 4096, len = 0;
  char *out = malloc(cap);
  if (!out) { pclose(p); return NULL; }
  size_t n;
  while ((n = fread(out + len, 1, cap - len - 1, p)) > 0) {
    len += n;
    if (cap - len < 2) {
      char *o2 = realloc(out, cap * 2);
      if (!o2) { free(out); pclose(p); return NULL; }
      out = o2;
      cap *= 2;
    }
  }
  out[len] = 0;
  int st = pclose(p);
  if (exit_code) *exit_code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return out;
}
