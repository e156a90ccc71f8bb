/* tests/support/json.h — a small JSON reader for tests (heap-allocated tree).
 *
 * Parses strict JSON plus the non-finite number tokens flatc prints (nan, -nan, inf, -inf,
 * Infinity). Numbers keep both their double value and, for integer literals, the exact 64-bit
 * magnitude and sign, so comparisons can be exact for integers and tolerant for reals.
 */
#ifndef PTE_TESTS_JSON_H
#define PTE_TESTS_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum test_json_type {
  TEST_JSON_NULL,
  TEST_JSON_BOOL,
  TEST_JSON_NUMBER,
  TEST_JSON_STRING,
  TEST_JSON_ARRAY,
  TEST_JSON_OBJECT
} test_json_type;

typedef struct test_json test_json;
struct test_json {
  test_json_type type;
  bool b;          /* BOOL */
  double num;      /* NUMBER: value as a double (nan/inf too) */
  bool is_int;     /* NUMBER: integer literal whose magnitude fits in 64 bits */
  bool neg;        /* NUMBER (is_int): negative */
  uint64_t mag;    /* NUMBER (is_int): magnitude */
  char *str;       /* STRING: decoded UTF-8, NUL-terminated (may contain NULs: see len) */
  size_t len;      /* STRING: byte length */
  size_t n;        /* ARRAY / OBJECT: number of items */
  test_json **items;
  char **keys;     /* OBJECT: keys (decoded, NUL-terminated), parallel to items */
};

/* Parses text[0..len). Returns NULL on a syntax error, with a message (offset + reason) in err
 * when err != NULL. Free the tree with test_json_free. */
test_json *test_json_parse(const char *text, size_t len, char *err, size_t err_size);
void test_json_free(test_json *v);

/* Member of an object (last one when duplicated) / element of an array; NULL when absent or the
 * value has another type. */
const test_json *test_json_get(const test_json *obj, const char *key);
const test_json *test_json_at(const test_json *arr, size_t i);
/* Follows a path like "execution_plan[0].values[3].val.int_val" (a leading "$" or "$." is
 * allowed); NULL when any step is missing. */
const test_json *test_json_path(const test_json *root, const char *path);

/* Convenience readers with a fallback for missing / mistyped values. */
int64_t test_json_int(const test_json *v, int64_t def);
double test_json_num(const test_json *v, double def);
const char *test_json_str(const test_json *v); /* NULL unless STRING */
size_t test_json_len(const test_json *v);      /* items of an array/object, else 0 */

/* Value comparison. Integers (both is_int) compare exactly; otherwise numbers compare as doubles
 * with |a-b| <= max(abs_tol, rel_tol * max(|a|,|b|)) (NaN equals NaN, infinities by sign).
 * Objects compare by key set (order ignored), arrays element-wise. */
typedef struct test_json_cmp {
  double abs_tol;
  double rel_tol;
} test_json_cmp;

/* True when equal. Otherwise writes "PATH: what differs" for the first difference found (in
 * document order of a) into diff. opts NULL = exact. */
bool test_json_equal(const test_json *a, const test_json *b, const test_json_cmp *opts, char *diff, size_t diff_size);

#endif
