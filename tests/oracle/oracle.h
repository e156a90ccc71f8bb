/* tests/oracle/oracle.h — the case tables of pte_oracle: the values, wants and cases a table
 * line describes, the parser (oracle_parse.c) and the element conversions it shares with the
 * driver (oracle_driver.c). */
#ifndef PTE_TESTS_ORACLE_H
#define PTE_TESTS_ORACLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pte/writer.h"

#define OR_MAX_VALUES 96
#define OR_MAX_LIST 64
#define OR_MAX_WANT 8

typedef enum { OV_TENSOR, OV_INT, OV_DOUBLE, OV_BOOL, OV_NONE, OV_STRING, OV_IL, OV_DL, OV_BL, OV_TL, OV_OTL } or_kind;
typedef enum { OR_IN, OR_OUT, OR_CONST } or_role;

typedef struct or_value {
  char name[32];
  or_kind kind;
  /* tensor */
  int dtype;
  int32_t dim;
  int32_t sizes[16];
  uint8_t order[16];
  or_role role;
  size_t numel;
  double *dv;  /* numel doubles (float dtypes) */
  int64_t *iv; /* numel int64 (integer / bool dtypes) */
  void *bytes; /* memory-order bytes of an input / constant */
  /* scalars and lists */
  int64_t i;
  double d;
  char str[64];
  size_t n;
  int64_t ilist[OR_MAX_LIST];
  double dlist[OR_MAX_LIST];
  int refs[OR_MAX_LIST]; /* TL / OTL: value indices (-1 = None) */
  int32_t wv;            /* writer value index */
} or_value;

typedef struct or_want {
  or_kind kind;
  char check; /* 'V' values, 'X' shape and dtype only, 'R' every value in [lo, hi) */
  double lo, hi;
  int dtype;
  int32_t dim;
  int32_t sizes[16];
  size_t numel;
  double *dv;
  int64_t *iv;
  int64_t i;
  double d;
} or_want;

typedef struct or_case {
  char op[128];
  char id[128];
  int line;
  double rtol, atol;
  bool has_tol;
  or_value v[OR_MAX_VALUES];
  size_t nv;
  int args[OR_MAX_VALUES];
  size_t nargs;
  int rets[OR_MAX_WANT];
  size_t nrets;
  or_want want[OR_MAX_WANT];
  size_t nwant;
  bool expect_error;
  char err_status[48];
  char err_sub[160];
} or_case;

typedef struct or_parser {
  const char *path;
  int line;
  char *tok[20000];
  size_t ntok, pos;
  char *rest; /* text after the first two tokens (error substring) */
} or_parser;

/* oracle_parse.c: false after a parse error */
extern bool g_parse_ok;
bool or_is_float(int dt);
size_t or_esize(int dt);
void or_store(void *base, size_t off, int dt, double d, int64_t i);
double or_load_d(const void *base, size_t off, int dt);
int64_t or_load_i(const void *base, size_t off, int dt);
size_t or_offset(const int32_t *sizes, const int32_t *strides, int32_t dim, size_t li);
void or_strides(const int32_t *sizes, const uint8_t *order, int32_t dim, int32_t *strides);
void or_perr(or_parser *p, const char *what);
const char *or_next(or_parser *p);
double or_next_d(or_parser *p);
int or_find(or_case *c, const char *name);
void or_parse_value(or_parser *p, or_case *c);
void or_parse_want(or_parser *p, or_case *c);
void or_free_case(or_case *c);

#endif
