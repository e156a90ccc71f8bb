#include "jsonw.h"

#include <math.h>
#include <string.h>

void jw_init(jsonw *w, FILE *f) {
  w->f = f;
  w->depth = 0;
  w->need_comma[0] = false;
  w->after_key = false;
}

static void indent(jsonw *w) {
  fputc('\n', w->f);
  for (int i = 0; i < w->depth; i++) fputs("  ", w->f);
}

static void pre_value(jsonw *w) {
  if (w->after_key) {
    w->after_key = false;
    return;
  }
  if (w->depth > 0) {
    if (w->need_comma[w->depth]) fputc(',', w->f);
    indent(w);
  }
  w->need_comma[w->depth] = true;
}

static void open_c(jsonw *w, char c) {
  pre_value(w);
  fputc(c, w->f);
  if (w->depth < 63) w->depth++;
  w->need_comma[w->depth] = false;
}

static void close_c(jsonw *w, char c) {
  bool had = w->need_comma[w->depth];
  if (w->depth > 0) w->depth--;
  if (had) indent(w);
  fputc(c, w->f);
}

void jw_obj(jsonw *w) { open_c(w, '{'); }
void jw_obj_end(jsonw *w) { close_c(w, '}'); }
void jw_arr(jsonw *w) { open_c(w, '['); }
void jw_arr_end(jsonw *w) { close_c(w, ']'); }

static void raw_str(FILE *f, const char *s, size_t n) {
  fputc('"', f);
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    switch (c) {
      case '"': fputs("\\\"", f); break;
      case '\\': fputs("\\\\", f); break;
      case '\n': fputs("\\n", f); break;
      case '\r': fputs("\\r", f); break;
      case '\t': fputs("\\t", f); break;
      default:
        if (c < 0x20) fprintf(f, "\\u%04x", c);
        else fputc(c, f);
    }
  }
  fputc('"', f);
}

void jw_key(jsonw *w, const char *k) {
  pre_value(w);
  raw_str(w->f, k, strlen(k));
  fputs(": ", w->f);
  w->after_key = true;
}

void jw_strn(jsonw *w, const char *s, size_t n) {
  pre_value(w);
  if (!s) fputs("null", w->f);
  else raw_str(w->f, s, n);
}
void jw_str(jsonw *w, const char *s) { jw_strn(w, s, s ? strlen(s) : 0); }
void jw_int(jsonw *w, int64_t v) { pre_value(w); fprintf(w->f, "%lld", (long long)v); }
void jw_uint(jsonw *w, uint64_t v) { pre_value(w); fprintf(w->f, "%llu", (unsigned long long)v); }
void jw_double(jsonw *w, double v) {
  pre_value(w);
  if (isnan(v) || isinf(v)) fputs("null", w->f);
  else fprintf(w->f, "%.17g", v);
}
void jw_bool(jsonw *w, bool v) { pre_value(w); fputs(v ? "true" : "false", w->f); }
void jw_null(jsonw *w) { pre_value(w); fputs("null", w->f); }
void jw_end(jsonw *w) { fputc('\n', w->f); }
