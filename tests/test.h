/* tests/test.h — pte's tiny test harness.
 *
 * Each tests/unit/test_*.c defines test functions with TEST(name) and lists them in main() with
 * RUN(name), ending with `return test_summary();`, which prints "N passed, N failed" and returns
 * the exit code. CHECK* record a failure with file:line and continue with the next test.
 */
#ifndef PTE_TESTS_TEST_H
#define PTE_TESTS_TEST_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pte/status.h"

extern int test_current_failed;
void test_run(const char *name, void (*fn)(void));
/* Prints "N passed, N failed[, N skipped]" and returns the exit code: 1 if a test failed, else
 * TEST_SKIP_EXIT_CODE if a test was skipped (ctest reports the executable as skipped:
 * SKIP_RETURN_CODE), else 0. */
int test_summary(void);
void test_fail(const char *file, int line, const char *fmt, ...);
/* Marks the current test skipped, with the reason printed by name. Only for a dependency that is
 * truly optional (a tool CI installs anyway, disk space, the CPU's ISA): a missing corpus file or
 * unset environment is a failure, never a skip. */
void test_skip(const char *fmt, ...);
#define TEST_SKIP_EXIT_CODE 77
#define SKIP(...)            \
  do {                       \
    test_skip(__VA_ARGS__);  \
    return;                  \
  } while (0)

#define TEST(name) static void name(void)
#define RUN(name) test_run(#name, name)

#define CHECK(cond)                                                   \
  do {                                                                \
    if (!(cond)) { test_fail(__FILE__, __LINE__, "CHECK(%s)", #cond); return; } \
  } while (0)
#define CHECK_MSG(cond, ...)                                          \
  do {                                                                \
    if (!(cond)) { test_fail(__FILE__, __LINE__, __VA_ARGS__); return; } \
  } while (0)
#define CHECK_EQ_INT(a, b)                                                             \
  do {                                                                                 \
    long long _a = (long long)(a), _b = (long long)(b);                                \
    if (_a != _b) { test_fail(__FILE__, __LINE__, "%s == %s: %lld != %lld", #a, #b, _a, _b); return; } \
  } while (0)
#define CHECK_STATUS(expr, expected)                                                    \
  do {                                                                                  \
    pte_status _s = (expr), _e = (expected);                                            \
    if (_s != _e) { test_fail(__FILE__, __LINE__, "%s: status %s (0x%02x), expected %s (0x%02x)", #expr, \
                              pte_status_name(_s), (unsigned)_s, pte_status_name(_e), (unsigned)_e); return; } \
  } while (0)
#define CHECK_OK(expr) CHECK_STATUS(expr, PTE_OK)
#define CHECK_STR(a, b)                                                                 \
  do {                                                                                  \
    const char *_a = (a), *_b = (b);                                                    \
    if (!_a || !_b || strcmp(_a, _b) != 0) { test_fail(__FILE__, __LINE__, "%s == %s: \"%s\" != \"%s\"", #a, #b, _a ? _a : "(null)", _b ? _b : "(null)"); return; } \
  } while (0)
#define CHECK_NEAR(a, b, tol)                                                           \
  do {                                                                                  \
    double _a = (double)(a), _b = (double)(b);                                          \
    if (!(fabs(_a - _b) <= (tol))) { test_fail(__FILE__, __LINE__, "%s ~= %s: %.9g vs %.9g", #a, #b, _a, _b); return; } \
  } while (0)
/* Substring check, e.g. on an error message. */
#define CHECK_CONTAINS(hay, needle)                                                     \
  do {                                                                                  \
    const char *_h = (hay), *_n = (needle);                                             \
    if (!_h || !strstr(_h, _n)) { test_fail(__FILE__, __LINE__, "\"%s\" does not contain \"%s\"", _h ? _h : "(null)", _n); return; } \
  } while (0)

/* ---- support (tests/test.c) ---- */
/* Path of a corpus file ($PTE_CORPUS/name) in a static buffer; NULL if PTE_CORPUS unset. */
const char *test_corpus_path(const char *name);
/* Reads a whole file into 64-byte aligned heap memory (free with free()); NULL on failure. */
uint8_t *test_read_file(const char *path, size_t *size);
/* Reads a corpus file; fails the current test if missing. */
uint8_t *test_read_corpus(const char *name, size_t *size);
/* Writes bytes to a file; returns 0 on success. */
int test_write_file(const char *path, const void *data, size_t size);
/* Path under $PTE_TMP (or /tmp) in a static rotating buffer. */
const char *test_tmp_path(const char *name);
/* Runs a shell command, capturing stdout into a malloc'd string (NULL on failure); *exit_code. */
char *test_run_capture(const char *cmd, int *exit_code);

#endif
