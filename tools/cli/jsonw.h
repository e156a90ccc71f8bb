/* A small streaming JSON writer for the CLI (pretty-printed, strict JSON). */
#ifndef PTE_TOOLS_JSONW_H
#define PTE_TOOLS_JSONW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef struct jsonw {
  FILE *f;
  int depth;
  bool need_comma[64];
  bool after_key;
} jsonw;

void jw_init(jsonw *w, FILE *f);
void jw_obj(jsonw *w);
void jw_obj_end(jsonw *w);
void jw_arr(jsonw *w);
void jw_arr_end(jsonw *w);
void jw_key(jsonw *w, const char *k);
void jw_str(jsonw *w, const char *s);
void jw_strn(jsonw *w, const char *s, size_t n);
void jw_int(jsonw *w, int64_t v);
void jw_uint(jsonw *w, uint64_t v);
void jw_double(jsonw *w, double v);
void jw_bool(jsonw *w, bool v);
void jw_null(jsonw *w);
void jw_end(jsonw *w); /* final newline */
/* Length of the valid UTF-8 sequence at p (shortest form, no surrogates, <= U+10FFFF), 0 if the
 * bytes there are not one. */
size_t jw_utf8_len(const unsigned char *p, size_t n);

/* key + value shorthands */
static inline void jw_kstr(jsonw *w, const char *k, const char *v) { jw_key(w, k); jw_str(w, v); }
static inline void jw_kint(jsonw *w, const char *k, int64_t v) { jw_key(w, k); jw_int(w, v); }
static inline void jw_kuint(jsonw *w, const char *k, uint64_t v) { jw_key(w, k); jw_uint(w, v); }
static inline void jw_kbool(jsonw *w, const char *k, bool v) { jw_key(w, k); jw_bool(w, v); }

#endif
