/* src/llm/tok_json.c — strict JSON reader (tok_json.h). */
#include "tok_json.h"

#include <stdlib.h>
#include <string.h>

#define TJ_MAX_DEPTH 128

typedef struct tj_parser {
  tj_doc *d;
  size_t pos;
  pte_error_info *err;
  pte_status status;
} tj_parser;

void tj_where(const tj_doc *d, size_t off, size_t *line, size_t *col) {
  size_t l = 1, c = 1;
  for (size_t i = 0; i < off && i < d->size; i++) {
    if (d->text[i] == '\n') l++, c = 1;
    else c++;
  }
  *line = l;
  *col = c;
}

static int tj_fail(tj_parser *p, size_t off, const char *what) {
  size_t line, col;
  tj_where(p->d, off, &line, &col);
  p->status = pte_error_set(p->err, PTE_ERR_INVALID_ARGUMENT, "%s: line %zu col %zu: bad JSON: %s", p->d->name, line,
                            col, what);
  return -1;
}

static int tj_oom(tj_parser *p) {
  p->status = pte_error_set(p->err, PTE_ERR_MEMORY_ALLOCATION_FAILED, "%s: out of memory parsing JSON", p->d->name);
  return -1;
}

static void tj_ws(tj_parser *p) {
  const char *b = p->d->buf;
  while (p->pos < p->d->size && (b[p->pos] == ' ' || b[p->pos] == '\t' || b[p->pos] == '\n' || b[p->pos] == '\r'))
    p->pos++;
}

static int64_t tj_new(tj_parser *p, tj_type type) {
  tj_doc *d = p->d;
  if (d->n == d->cap) {
    size_t nc = d->cap ? d->cap * 2 : 1024;
    if (nc > UINT32_MAX) return tj_oom(p);
    tj_node *n = realloc(d->nodes, nc * sizeof *n);
    if (!n) return tj_oom(p);
    d->nodes = n;
    d->cap = nc;
  }
  tj_node *n = &d->nodes[d->n];
  memset(n, 0, sizeof *n);
  n->type = (uint8_t)type;
  n->src = (uint32_t)p->pos;
  return (int64_t)d->n++;
}

static int tj_hex4(const char *s, uint32_t *v) {
  uint32_t x = 0;
  for (int i = 0; i < 4; i++) {
    char c = s[i];
    x <<= 4;
    if (c >= '0' && c <= '9') x |= (uint32_t)(c - '0');
    else if (c >= 'a' && c <= 'f') x |= (uint32_t)(c - 'a' + 10);
    else if (c >= 'A' && c <= 'F') x |= (uint32_t)(c - 'A' + 10);
    else return -1;
  }
  *v = x;
  return 0;
}

static size_t tj_put_utf8(char *o, uint32_t cp) {
  if (cp < 0x80) {
    o[0] = (char)cp;
    return 1;
  }
  if (cp < 0x800) {
    o[0] = (char)(0xC0 | (cp >> 6));
    o[1] = (char)(0x80 | (cp & 0x3F));
    return 2;
  }
  if (cp < 0x10000) {
    o[0] = (char)(0xE0 | (cp >> 12));
    o[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
    o[2] = (char)(0x80 | (cp & 0x3F));
    return 3;
  }
  o[0] = (char)(0xF0 | (cp >> 18));
  o[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
  o[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
  o[3] = (char)(0x80 | (cp & 0x3F));
  return 4;
}

/* The string at pos (on the opening quote): decoded in place. */
static int tj_string(tj_parser *p, uint32_t node) {
  char *b = p->d->buf;
  size_t n = p->d->size;
  size_t start = ++p->pos, w = start;
  for (;;) {
    if (p->pos >= n) return tj_fail(p, start - 1, "unterminated string");
    unsigned char c = (unsigned char)b[p->pos];
    if (c == '"') {
      p->pos++;
      break;
    }
    if (c < 0x20) return tj_fail(p, p->pos, "control character in a string");
    if (c != '\\') {
      b[w++] = (char)c;
      p->pos++;
      continue;
    }
    if (p->pos + 1 >= n) return tj_fail(p, p->pos, "unterminated escape");
    char e = b[p->pos + 1];
    p->pos += 2;
    switch (e) {
      case '"': b[w++] = '"'; break;
      case '\\': b[w++] = '\\'; break;
      case '/': b[w++] = '/'; break;
      case 'b': b[w++] = '\b'; break;
      case 'f': b[w++] = '\f'; break;
      case 'n': b[w++] = '\n'; break;
      case 'r': b[w++] = '\r'; break;
      case 't': b[w++] = '\t'; break;
      case 'u': {
        uint32_t cp, lo;
        if (p->pos + 4 > n || tj_hex4(b + p->pos, &cp) != 0) return tj_fail(p, p->pos - 2, "bad \\u escape");
        p->pos += 4;
        if (cp >= 0xD800 && cp <= 0xDBFF) {
          if (p->pos + 6 > n || b[p->pos] != '\\' || b[p->pos + 1] != 'u' || tj_hex4(b + p->pos + 2, &lo) != 0 ||
              lo < 0xDC00 || lo > 0xDFFF)
            return tj_fail(p, p->pos - 6, "lone UTF-16 surrogate in a \\u escape");
          p->pos += 6;
          cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
        } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
          return tj_fail(p, p->pos - 6, "lone UTF-16 surrogate in a \\u escape");
        }
        w += tj_put_utf8(b + w, cp);
        break;
      }
      default: return tj_fail(p, p->pos - 2, "unknown escape");
    }
  }
  p->d->nodes[node].str = (uint32_t)start;
  p->d->nodes[node].len = (uint32_t)(w - start);
  return 0;
}

static int tj_number(tj_parser *p, uint32_t node) {
  const char *b = p->d->buf;
  size_t n = p->d->size, s = p->pos;
  if (p->pos < n && b[p->pos] == '-') p->pos++;
  if (p->pos >= n || b[p->pos] < '0' || b[p->pos] > '9') return tj_fail(p, s, "bad number");
  if (b[p->pos] == '0') p->pos++;
  else
    while (p->pos < n && b[p->pos] >= '0' && b[p->pos] <= '9') p->pos++;
  if (p->pos < n && b[p->pos] == '.') {
    p->pos++;
    if (p->pos >= n || b[p->pos] < '0' || b[p->pos] > '9') return tj_fail(p, s, "bad number (fraction)");
    while (p->pos < n && b[p->pos] >= '0' && b[p->pos] <= '9') p->pos++;
  }
  if (p->pos < n && (b[p->pos] == 'e' || b[p->pos] == 'E')) {
    p->pos++;
    if (p->pos < n && (b[p->pos] == '+' || b[p->pos] == '-')) p->pos++;
    if (p->pos >= n || b[p->pos] < '0' || b[p->pos] > '9') return tj_fail(p, s, "bad number (exponent)");
    while (p->pos < n && b[p->pos] >= '0' && b[p->pos] <= '9') p->pos++;
  }
  p->d->nodes[node].str = (uint32_t)s;
  p->d->nodes[node].len = (uint32_t)(p->pos - s);
  return 0;
}

static int64_t tj_value(tj_parser *p, int depth);

static int tj_container(tj_parser *p, uint32_t node, int depth, int is_obj) {
  char close = is_obj ? '}' : ']';
  uint32_t last = 0, count = 0;
  p->pos++;
  tj_ws(p);
  if (p->pos < p->d->size && p->d->buf[p->pos] == close) {
    p->pos++;
    return 0;
  }
  for (;;) {
    tj_ws(p);
    if (is_obj) {
      if (p->pos >= p->d->size || p->d->buf[p->pos] != '"') return tj_fail(p, p->pos, "expected a member name");
      int64_t k = tj_new(p, TJ_STR);
      if (k < 0 || tj_string(p, (uint32_t)k) != 0) return -1;
      if (last) p->d->nodes[last].next = (uint32_t)k;
      else p->d->nodes[node].first = (uint32_t)k;
      last = (uint32_t)k;
      tj_ws(p);
      if (p->pos >= p->d->size || p->d->buf[p->pos] != ':') return tj_fail(p, p->pos, "expected ':'");
      p->pos++;
    }
    int64_t v = tj_value(p, depth + 1);
    if (v < 0) return -1;
    if (last) p->d->nodes[last].next = (uint32_t)v;
    else p->d->nodes[node].first = (uint32_t)v;
    last = (uint32_t)v;
    count++;
    tj_ws(p);
    if (p->pos >= p->d->size) return tj_fail(p, p->pos, is_obj ? "unterminated object" : "unterminated array");
    char c = p->d->buf[p->pos++];
    if (c == close) break;
    if (c != ',') return tj_fail(p, p->pos - 1, is_obj ? "expected ',' or '}'" : "expected ',' or ']'");
  }
  p->d->nodes[node].count = count;
  return 0;
}

static int64_t tj_value(tj_parser *p, int depth) {
  if (depth > TJ_MAX_DEPTH) return tj_fail(p, p->pos, "nested too deeply");
  tj_ws(p);
  if (p->pos >= p->d->size) return tj_fail(p, p->pos, "unexpected end of file");
  const char *b = p->d->buf + p->pos;
  size_t left = p->d->size - p->pos;
  int64_t node;
  switch (*b) {
    case '{':
    case '[':
      node = tj_new(p, *b == '{' ? TJ_OBJ : TJ_ARR);
      if (node < 0 || tj_container(p, (uint32_t)node, depth, *b == '{') != 0) return -1;
      return node;
    case '"':
      node = tj_new(p, TJ_STR);
      if (node < 0 || tj_string(p, (uint32_t)node) != 0) return -1;
      return node;
    case 't':
      if (left < 4 || memcmp(b, "true", 4) != 0) break;
      node = tj_new(p, TJ_TRUE);
      p->pos += 4;
      return node;
    case 'f':
      if (left < 5 || memcmp(b, "false", 5) != 0) break;
      node = tj_new(p, TJ_FALSE);
      p->pos += 5;
      return node;
    case 'n':
      if (left < 4 || memcmp(b, "null", 4) != 0) break;
      node = tj_new(p, TJ_NULL);
      p->pos += 4;
      return node;
    default:
      if (*b == '-' || (*b >= '0' && *b <= '9')) {
        node = tj_new(p, TJ_NUM);
        if (node < 0 || tj_number(p, (uint32_t)node) != 0) return -1;
        return node;
      }
  }
  return tj_fail(p, p->pos, "unexpected character");
}

pte_status tj_parse(tj_doc *d, const char *text, size_t size, const char *name, pte_error_info *err) {
  memset(d, 0, sizeof *d);
  d->name = name;
  d->text = text;
  if (size >= UINT32_MAX)
    return pte_error_set(err, PTE_ERR_NOT_SUPPORTED, "%s: JSON of %zu bytes (at most 4 GiB)", name, size);
  d->buf = malloc(size + 1);
  if (!d->buf) return pte_error_set(err, PTE_ERR_MEMORY_ALLOCATION_FAILED, "%s: out of memory", name);
  memcpy(d->buf, text, size);
  d->buf[size] = 0;
  d->size = size;
  tj_parser p = {d, 0, err, PTE_OK};
  if (size >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0) p.pos = 3;
  int64_t root = tj_value(&p, 0);
  if (root >= 0) {
    tj_ws(&p);
    if (p.pos != size) root = tj_fail(&p, p.pos, "text after the top-level value");
  }
  if (root < 0) {
    pte_status s = p.status;
    tj_free(d);
    return s;
  }
  return PTE_OK;
}

void tj_free(tj_doc *d) {
  free(d->buf);
  free(d->nodes);
  memset(d, 0, sizeof *d);
}

uint32_t tj_get(const tj_doc *d, uint32_t obj, const char *key) {
  if (d->nodes[obj].type != TJ_OBJ) return 0;
  size_t kl = strlen(key);
  uint32_t found = 0;
  for (uint32_t k = d->nodes[obj].first; k; k = d->nodes[d->nodes[k].next].next) {
    uint32_t v = d->nodes[k].next;
    if (d->nodes[k].len == kl && memcmp(d->buf + d->nodes[k].str, key, kl) == 0) found = v;
  }
  return found;
}

int tj_str_is(const tj_doc *d, uint32_t node, const char *s) {
  if (!node || d->nodes[node].type != TJ_STR) return 0;
  size_t l = strlen(s);
  return d->nodes[node].len == l && memcmp(d->buf + d->nodes[node].str, s, l) == 0;
}

int tj_int(const tj_doc *d, uint32_t node, int64_t *out) {
  if (!node || d->nodes[node].type != TJ_NUM) return -1;
  const char *s = d->buf + d->nodes[node].str;
  size_t n = d->nodes[node].len, i = 0;
  int neg = 0;
  if (s[0] == '-') neg = 1, i = 1;
  uint64_t v = 0;
  for (; i < n; i++) {
    if (s[i] < '0' || s[i] > '9') return -1;
    if (v > (UINT64_MAX - 9) / 10) return -1;
    v = v * 10 + (uint64_t)(s[i] - '0');
  }
  if (v > (uint64_t)INT64_MAX + (uint64_t)neg) return -1;
  *out = neg ? (int64_t)(0 - v) : (int64_t)v;
  return 0;
}
