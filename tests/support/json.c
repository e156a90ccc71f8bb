/* tests/support/json.c — see json.h. */
#include "json.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define JSON_MAX_DEPTH 512

typedef struct jp {
  const char *s;
  size_t len, pos;
  char *err;
  size_t err_size;
  bool failed;
} jp;

static void jp_fail(jp *p, const char *what) {
  if (p->failed) return;
  p->failed = true;
  if (p->err && p->err_size) snprintf(p->err, p->err_size, "offset %zu: %s", p->pos, what);
}

static void skip_ws(jp *p) {
  while (p->pos < p->len && (p->s[p->pos] == ' ' || p->s[p->pos] == '\t' || p->s[p->pos] == '\n' || p->s[p->pos] == '\r'))
    p->pos++;
}

static bool starts(jp *p, const char *w) {
  size_t n = strlen(w);
  return p->len - p->pos >= n && memcmp(p->s + p->pos, w, n) == 0;
}

static test_json *new_value(test_json_type t) {
  test_json *v = calloc(1, sizeof *v);
  if (v) v->type = t;
  return v;
}

void test_json_free(test_json *v) {
  if (!v) return;
  for (size_t i = 0; i < v->n; i++) {
    test_json_free(v->items[i]);
    if (v->keys) free(v->keys[i]);
  }
  free(v->items);
  free(v->keys);
  free(v->str);
  free(v);
}

/* Appends a code point as UTF-8. */
static size_t put_utf8(char *o, uint32_t cp) {
  if (cp < 0x80) { o[0] = (char)cp; return 1; }
  if (cp < 0x800) { o[0] = (char)(0xc0 | (cp >> 6)); o[1] = (char)(0x80 | (cp & 0x3f)); return 2; }
  if (cp < 0x10000) {
    o[0] = (char)(0xe0 | (cp >> 12)); o[1] = (char)(0x80 | ((cp >> 6) & 0x3f)); o[2] = (char)(0x80 | (cp & 0x3f));
    return 3;
  }
  o[0] = (char)(0xf0 | (cp >> 18)); o[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
  o[2] = (char)(0x80 | ((cp >> 6) & 0x3f)); o[3] = (char)(0x80 | (cp & 0x3f));
  return 4;
}

static int hexval(int c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

static bool read_hex4(jp *p, uint32_t *out) {
  if (p->len - p->pos < 4) return false;
  uint32_t v = 0;
  for (int i = 0; i < 4; i++) {
    int h = hexval((unsigned char)p->s[p->pos + (size_t)i]);
    if (h < 0) return false;
    v = v * 16 + (uint32_t)h;
  }
  p->pos += 4;
  *out = v;
  return true;
}

/* Parses a string at p->pos (which is at '"'); returns malloc'd bytes + length. */
static char *parse_string(jp *p, size_t *out_len) {
  p->pos++; /* opening quote */
  size_t cap = 16, n = 0;
  char *o = malloc(cap);
  if (!o) { jp_fail(p, "out of memory"); return NULL; }
  for (;;) {
    if (p->pos >= p->len) { jp_fail(p, "unterminated string"); free(o); return NULL; }
    if (cap - n < 8) {
      cap *= 2;
      char *o2 = realloc(o, cap);
      if (!o2) { free(o); jp_fail(p, "out of memory"); return NULL; }
      o = o2;
    }
    unsigned char c = (unsigned char)p->s[p->pos];
    if (c == '"') { p->pos++; break; }
    if (c < 0x20) { jp_fail(p, "control character in string"); free(o); return NULL; }
    if (c != '\\') { o[n++] = (char)c; p->pos++; continue; }
    p->pos++;
    if (p->pos >= p->len) { jp_fail(p, "bad escape"); free(o); return NULL; }
    char e = p->s[p->pos++];
    switch (e) {
      case '"': o[n++] = '"'; break;
      case '\\': o[n++] = '\\'; break;
      case '/': o[n++] = '/'; break;
      case 'b': o[n++] = '\b'; break;
      case 'f': o[n++] = '\f'; break;
      case 'n': o[n++] = '\n'; break;
      case 'r': o[n++] = '\r'; break;
      case 't': o[n++] = '\t'; break;
      case 'u': {
        uint32_t cp;
        if (!read_hex4(p, &cp)) { jp_fail(p, "bad \\u escape"); free(o); return NULL; }
        if (cp >= 0xd800 && cp <= 0xdbff && starts(p, "\\u")) {
          size_t save = p->pos;
          uint32_t lo;
          p->pos += 2;
          if (read_hex4(p, &lo) && lo >= 0xdc00 && lo <= 0xdfff) cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
          else p->pos = save;
        }
        n += put_utf8(o + n, cp);
        break;
      }
      default: jp_fail(p, "bad escape"); free(o); return NULL;
    }
  }
  o[n] = 0;
  *out_len = n;
  return o;
}

static test_json *parse_number(jp *p) {
  size_t st = p->pos;
  bool neg = false;
  if (p->s[p->pos] == '-' || p->s[p->pos] == '+') { neg = p->s[p->pos] == '-'; p->pos++; }
  static const struct { const char *w; int kind; } special[] = {{"nan", 0}, {"inf", 1}, {"Infinity", 1}, {"NaN", 0}};
  for (size_t i = 0; i < sizeof special / sizeof special[0]; i++) {
    if (starts(p, special[i].w)) {
      p->pos += strlen(special[i].w);
      test_json *v = new_value(TEST_JSON_NUMBER);
      if (!v) { jp_fail(p, "out of memory"); return NULL; }
      v->num = special[i].kind ? (neg ? -INFINITY : INFINITY) : NAN;
      return v;
    }
  }
  size_t ds = p->pos;
  bool frac = false;
  while (p->pos < p->len && isdigit((unsigned char)p->s[p->pos])) p->pos++;
  if (p->pos == ds) { jp_fail(p, "bad number"); return NULL; }
  if (p->pos < p->len && p->s[p->pos] == '.') {
    frac = true;
    p->pos++;
    size_t fs = p->pos;
    while (p->pos < p->len && isdigit((unsigned char)p->s[p->pos])) p->pos++;
    if (p->pos == fs) { jp_fail(p, "bad fraction"); return NULL; }
  }
  if (p->pos < p->len && (p->s[p->pos] == 'e' || p->s[p->pos] == 'E')) {
    frac = true;
    p->pos++;
    if (p->pos < p->len && (p->s[p->pos] == '+' || p->s[p->pos] == '-')) p->pos++;
    size_t es = p->pos;
    while (p->pos < p->len && isdigit((unsigned char)p->s[p->pos])) p->pos++;
    if (p->pos == es) { jp_fail(p, "bad exponent"); return NULL; }
  }
  char buf[512];
  size_t n = p->pos - st;
  if (n >= sizeof buf) { jp_fail(p, "number too long"); return NULL; }
  memcpy(buf, p->s + st, n);
  buf[n] = 0;
  test_json *v = new_value(TEST_JSON_NUMBER);
  if (!v) { jp_fail(p, "out of memory"); return NULL; }
  v->num = strtod(buf, NULL);
  if (!frac) {
    errno = 0;
    unsigned long long m = strtoull(buf + (ds - st), NULL, 10);
    if (errno == 0) {
      v->is_int = true;
      v->neg = neg && m != 0;
      v->mag = m;
    }
  }
  return v;
}

static test_json *parse_value(jp *p, int depth);

static bool push_item(test_json *v, test_json *item, char *key) {
  test_json **it = realloc(v->items, (v->n + 1) * sizeof *it);
  if (!it) return false;
  v->items = it;
  if (v->type == TEST_JSON_OBJECT) {
    char **ks = realloc(v->keys, (v->n + 1) * sizeof *ks);
    if (!ks) return false;
    v->keys = ks;
    v->keys[v->n] = key;
  }
  v->items[v->n++] = item;
  return true;
}

static test_json *parse_container(jp *p, int depth, bool obj) {
  test_json *v = new_value(obj ? TEST_JSON_OBJECT : TEST_JSON_ARRAY);
  if (!v) { jp_fail(p, "out of memory"); return NULL; }
  p->pos++;
  skip_ws(p);
  if (p->pos < p->len && p->s[p->pos] == (obj ? '}' : ']')) { p->pos++; return v; }
  for (;;) {
    char *key = NULL;
    skip_ws(p);
    if (obj) {
      size_t kl;
      if (p->pos >= p->len || p->s[p->pos] != '"') { jp_fail(p, "expected key"); test_json_free(v); return NULL; }
      key = parse_string(p, &kl);
      if (!key) { test_json_free(v); return NULL; }
      skip_ws(p);
      if (p->pos >= p->len || p->s[p->pos] != ':') { jp_fail(p, "expected ':'"); free(key); test_json_free(v); return NULL; }
      p->pos++;
    }
    test_json *item = parse_value(p, depth + 1);
    if (!item) { free(key); test_json_free(v); return NULL; }
    if (!push_item(v, item, key)) { jp_fail(p, "out of memory"); test_json_free(item); free(key); test_json_free(v); return NULL; }
    skip_ws(p);
    if (p->pos < p->len && p->s[p->pos] == ',') { p->pos++; continue; }
    if (p->pos < p->len && p->s[p->pos] == (obj ? '}' : ']')) { p->pos++; return v; }
    jp_fail(p, obj ? "expected ',' or '}'" : "expected ',' or ']'");
    test_json_free(v);
    return NULL;
  }
}

static test_json *parse_value(jp *p, int depth) {
  if (depth > JSON_MAX_DEPTH) { jp_fail(p, "nesting too deep"); return NULL; }
  skip_ws(p);
  if (p->pos >= p->len) { jp_fail(p, "unexpected end"); return NULL; }
  char c = p->s[p->pos];
  if (c == '{') return parse_container(p, depth, true);
  if (c == '[') return parse_container(p, depth, false);
  if (c == '"') {
    test_json *v = new_value(TEST_JSON_STRING);
    if (!v) { jp_fail(p, "out of memory"); return NULL; }
    v->str = parse_string(p, &v->len);
    if (!v->str) { free(v); return NULL; }
    return v;
  }
  if (starts(p, "true") || starts(p, "false")) {
    test_json *v = new_value(TEST_JSON_BOOL);
    if (!v) { jp_fail(p, "out of memory"); return NULL; }
    v->b = c == 't';
    p->pos += v->b ? 4 : 5;
    return v;
  }
  if (starts(p, "null")) {
    p->pos += 4;
    test_json *v = new_value(TEST_JSON_NULL);
    if (!v) jp_fail(p, "out of memory");
    return v;
  }
  return parse_number(p);
}

test_json *test_json_parse(const char *text, size_t len, char *err, size_t err_size) {
  jp p = {text, len, 0, err, err_size, false};
  if (err && err_size) err[0] = 0;
  if (!text) { jp_fail(&p, "no input"); return NULL; }
  test_json *v = parse_value(&p, 0);
  if (!v) return NULL;
  skip_ws(&p);
  if (p.pos != p.len) {
    jp_fail(&p, "trailing characters");
    test_json_free(v);
    return NULL;
  }
  return v;
}

/* ------------------------------------------------------------------ lookup */

const test_json *test_json_get(const test_json *obj, const char *key) {
  if (!obj || obj->type != TEST_JSON_OBJECT || !key) return NULL;
  for (size_t i = obj->n; i-- > 0;)
    if (strcmp(obj->keys[i], key) == 0) return obj->items[i];
  return NULL;
}

const test_json *test_json_at(const test_json *arr, size_t i) {
  if (!arr || arr->type != TEST_JSON_ARRAY || i >= arr->n) return NULL;
  return arr->items[i];
}

const test_json *test_json_path(const test_json *root, const char *path) {
  const test_json *v = root;
  const char *p = path;
  if (*p == '$') p++;
  if (*p == '.') p++;
  while (v && *p) {
    if (*p == '[') {
      char *end;
      unsigned long idx = strtoul(p + 1, &end, 10);
      if (end == p + 1 || *end != ']') return NULL;
      v = test_json_at(v, idx);
      p = end + 1;
      if (*p == '.') p++;
      continue;
    }
    size_t n = strcspn(p, ".[");
    char key[256];
    if (n == 0 || n >= sizeof key) return NULL;
    memcpy(key, p, n);
    key[n] = 0;
    v = test_json_get(v, key);
    p += n;
    if (*p == '.') p++;
  }
  return v;
}

int64_t test_json_int(const test_json *v, int64_t def) {
  if (!v || v->type != TEST_JSON_NUMBER) return def;
  if (v->is_int) return v->neg ? (int64_t)((uint64_t)0 - v->mag) : (int64_t)v->mag;
  return (int64_t)v->num;
}

double test_json_num(const test_json *v, double def) {
  if (!v || v->type != TEST_JSON_NUMBER) return def;
  return v->num;
}

const char *test_json_str(const test_json *v) { return v && v->type == TEST_JSON_STRING ? v->str : NULL; }

size_t test_json_len(const test_json *v) {
  return v && (v->type == TEST_JSON_ARRAY || v->type == TEST_JSON_OBJECT) ? v->n : 0;
}

/* ------------------------------------------------------------------ comparison */

static const char *type_name(test_json_type t) {
  static const char *names[] = {"null", "bool", "number", "string", "array", "object"};
  return names[t];
}

static void num_text(const test_json *v, char *buf, size_t n) {
  if (v->is_int) snprintf(buf, n, "%s%llu", v->neg ? "-" : "", (unsigned long long)v->mag);
  else snprintf(buf, n, "%.17g", v->num);
}

static bool num_equal(const test_json *a, const test_json *b, const test_json_cmp *o) {
  if (a->is_int && b->is_int) return a->neg == b->neg && a->mag == b->mag;
  double x = a->num, y = b->num;
  if (isnan(x) || isnan(y)) return isnan(x) && isnan(y);
  if (isinf(x) || isinf(y)) return x == y;
  if (x == y) return true;
  if (!o) return false;
  double d = fabs(x - y), m = fabs(x) > fabs(y) ? fabs(x) : fabs(y);
  double tol = o->abs_tol > o->rel_tol * m ? o->abs_tol : o->rel_tol * m;
  return d <= tol;
}

/* path is a growable text buffer */
typedef struct pbuf {
  char b[2048];
  size_t n;
} pbuf;

static void pb_push(pbuf *p, const char *s, size_t *save) {
  *save = p->n;
  size_t l = strlen(s);
  if (p->n + l >= sizeof p->b) l = sizeof p->b - 1 - p->n;
  memcpy(p->b + p->n, s, l);
  p->n += l;
  p->b[p->n] = 0;
}

static bool cmp(const test_json *a, const test_json *b, const test_json_cmp *o, pbuf *path, char *diff, size_t ds) {
  if (a->type != b->type) {
    if (diff) snprintf(diff, ds, "%s: %s vs %s", path->b, type_name(a->type), type_name(b->type));
    return false;
  }
  switch (a->type) {
    case TEST_JSON_NULL: return true;
    case TEST_JSON_BOOL:
      if (a->b != b->b) {
        if (diff) snprintf(diff, ds, "%s: %s vs %s", path->b, a->b ? "true" : "false", b->b ? "true" : "false");
        return false;
      }
      return true;
    case TEST_JSON_NUMBER:
      if (!num_equal(a, b, o)) {
        char x[64], y[64];
        num_text(a, x, sizeof x);
        num_text(b, y, sizeof y);
        if (diff) snprintf(diff, ds, "%s: %s vs %s", path->b, x, y);
        return false;
      }
      return true;
    case TEST_JSON_STRING:
      if (a->len != b->len || memcmp(a->str, b->str, a->len) != 0) {
        if (diff) snprintf(diff, ds, "%s: \"%.200s\" vs \"%.200s\"", path->b, a->str, b->str);
        return false;
      }
      return true;
    case TEST_JSON_ARRAY:
      for (size_t i = 0; i < a->n && i < b->n; i++) {
        char seg[32];
        size_t save;
        snprintf(seg, sizeof seg, "[%zu]", i);
        pb_push(path, seg, &save);
        bool ok = cmp(a->items[i], b->items[i], o, path, diff, ds);
        path->n = save;
        path->b[save] = 0;
        if (!ok) return false;
      }
      if (a->n != b->n) {
        if (diff) snprintf(diff, ds, "%s: array length %zu vs %zu", path->b, a->n, b->n);
        return false;
      }
      return true;
    case TEST_JSON_OBJECT:
      for (size_t i = 0; i < a->n; i++) {
        size_t save;
        pb_push(path, ".", &save);
        size_t save2;
        pb_push(path, a->keys[i], &save2);
        const test_json *bv = test_json_get(b, a->keys[i]);
        bool ok;
        if (!bv) {
          if (diff) snprintf(diff, ds, "%s: present in first, missing in second", path->b);
          ok = false;
        } else {
          ok = cmp(a->items[i], bv, o, path, diff, ds);
        }
        path->n = save;
        path->b[save] = 0;
        if (!ok) return false;
      }
      for (size_t i = 0; i < b->n; i++) {
        if (!test_json_get(a, b->keys[i])) {
          if (diff) snprintf(diff, ds, "%s.%s: missing in first, present in second", path->b, b->keys[i]);
          return false;
        }
      }
      return true;
  }
  return false;
}

bool test_json_equal(const test_json *a, const test_json *b, const test_json_cmp *opts, char *diff, size_t diff_size) {
  pbuf path;
  strcpy(path.b, "$");
  path.n = 1;
  if (diff && diff_size) diff[0] = 0;
  if (!a || !b) {
    if (diff && diff_size) snprintf(diff, diff_size, "$: %s is NULL", a ? "second" : "first");
    return a == b;
  }
  return cmp(a, b, opts, &path, diff_size ? diff : NULL, diff_size);
}
