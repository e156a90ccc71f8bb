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

size_t jw_utf8_len(const unsigned char *p, size_t n) {
  if (n == 0) return 0;
  unsigned c = p[0], k, min, cp;
  if (c < 0x80) return 1;
  if ((c & 0xE0) == 0xC0) k = 1, min = 0x80, cp = c & 0x1F;
  else if ((c & 0xF0) == 0xE0) k = 2, min = 0x800, cp = c & 0x0F;
  else if ((c & 0xF8) == 0xF0) k = 3, min = 0x10000, cp = c & 0x07;
  else return 0;
  if (n <= k) return 0;
  for (unsigned i = 1; i <= k; i++) {
    if ((p[i] & 0xC0) != 0x80) return 0;
    cp = cp << 6 | (p[i] & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return k + 1;
}

/* Strings from files are bytes: valid UTF-8 is copied, every byte that is not part of a valid
 * sequence becomes U+FFFD, control characters are escaped. The output is always valid UTF-8. */
static void raw_str(FILE *f, const char *s, size_t n) {
  const unsigned char *u = (const unsigned char *)s;
  fputc('"', f);
  for (size_t i = 0; i < n;) {
    unsigned char c = u[i];
    switch (c) {
      case '"': fputs("\\\"", f); break;
      case '\\': fputs("\\\\", f); break;
      case '\n': fputs("\\n", f); break;
      case '\r': fputs("\\r", f); break;
      case '\t': fputs("\\t", f); break;
      default:
        if (c < 0x20 || c == 0x7f) {
          fprintf(f, "\\u%04x", c);
        } else if (c >= 0x80) {
          size_t k = jw_utf8_len(u + i, n - i);
          if (k == 0) {
            fputs("\\ufffd", f);
          } else {
            fwrite(u + i, 1, k, f);
            i += k;
            continue;
          }
        } else {
          fputc(c, f);
        }
    }
    i++;
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
