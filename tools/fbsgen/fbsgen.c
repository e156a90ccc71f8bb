/* fbsgen — pte's FlatBuffers schema compiler (host tool).
 *
 * Reads a .fbs schema (and the schemas it includes) and writes a C header + source with, for
 * every table / struct / enum / union of the main schema:
 *   - slot constants, enum constants and name functions, union tags;
 *   - typed static inline accessors over src/format/flatbuf.h;
 *   - a verifier per table and a root verifier;
 *   - builder helpers (start / add_<field> / create_<vector field> / end / finish);
 *   - a JSON emitter per table matching `flatc --strict-json --defaults-json` (field set, names);
 *   - field descriptor arrays (name, slot, kind) for tests and tools.
 * Types from included schemas are referenced through the included file's generated header
 * (pte_gen/<name>_gen.h) and prefix, which each schema declares in a comment line
 * `// fbsgen: prefix <prefix>` (the --prefix option overrides it for the main file).
 *
 * Usage: pte_fbsgen --prefix P [--include-dir DIR]... --out-h FILE --out-c FILE [--out-json FILE] schema.fbs
 * (--out-json: the JSON printers and field/type tables go to their own file, so the core runtime
 * links only verifiers and accessors; docs/footprint.md).
 *
 * Supported .fbs subset: include, namespace, attribute, file_identifier, file_extension,
 * root_type, enum (any integer base type, bit_flags), union (members and `Alias: Type`),
 * table, struct, scalar / string / vector / table / struct / enum / union fields, defaults
 * (numbers, true/false, nan/inf, enum names), attributes id, deprecated, required,
 * force_align (others are accepted and ignored), // and block comments.
 * Not supported (rejected): fixed-size arrays in structs, vectors of unions, unions of
 * structs/strings, optional scalars (`= null`), rpc_service.
 */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ utilities */

static void die(const char *fmt, ...) {
  va_list ap;
  fprintf(stderr, "fbsgen: error: ");
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  exit(1);
}

static void *xmalloc(size_t n) {
  void *p = calloc(1, n ? n : 1);
  if (!p) die("out of memory");
  return p;
}

static void *xrealloc(void *p, size_t n) {
  p = realloc(p, n ? n : 1);
  if (!p) die("out of memory");
  return p;
}

static char *xstrdup(const char *s) {
  size_t n = strlen(s);
  char *p = xmalloc(n + 1);
  memcpy(p, s, n + 1);
  return p;
}

static char *xstrndup(const char *s, size_t n) {
  char *p = xmalloc(n + 1);
  memcpy(p, s, n);
  p[n] = 0;
  return p;
}

#define GROW(arr, n, cap)                                   \
  do {                                                      \
    if ((n) >= (cap)) {                                     \
      (cap) = (cap) ? (cap) * 2 : 8;                        \
      (arr) = xrealloc((arr), (size_t)(cap) * sizeof *(arr)); \
    }                                                       \
  } while (0)

/* Growable text buffer. */
typedef struct Buf {
  char *p;
  size_t len, cap;
} Buf;

static void bputs(Buf *b, const char *s) {
  size_t n = strlen(s);
  if (b->len + n + 1 > b->cap) {
    while (b->len + n + 1 > b->cap) b->cap = b->cap ? b->cap * 2 : 4096;
    b->p = xrealloc(b->p, b->cap);
  }
  memcpy(b->p + b->len, s, n + 1);
  b->len += n;
}

static void bprintf(Buf *b, const char *fmt, ...) {
  char tmp[1024];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
  va_end(ap);
  if (n < 0) die("format error");
  if ((size_t)n < sizeof tmp) {
    bputs(b, tmp);
    return;
  }
  char *big = xmalloc((size_t)n + 1);
  va_start(ap, fmt);
  vsnprintf(big, (size_t)n + 1, fmt, ap);
  va_end(ap);
  bputs(b, big);
  free(big);
}

static char *read_text(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  Buf b = {0};
  char chunk[4096];
  size_t n;
  while ((n = fread(chunk, 1, sizeof chunk - 1, f)) > 0) {
    chunk[n] = 0;
    if (memchr(chunk, 0, n)) die("%s: NUL byte in schema", path);
    bputs(&b, chunk);
  }
  fclose(f);
  if (!b.p) bputs(&b, "");
  return b.p;
}

static void write_text(const char *path, const Buf *b) {
  /* Always rewritten (so the build system sees fresh outputs). */
  FILE *f = fopen(path, "wb");
  if (!f) die("cannot write %s: %s", path, strerror(errno));
  if (b->len && fwrite(b->p, 1, b->len, f) != b->len) die("cannot write %s", path);
  if (fclose(f) != 0) die("cannot write %s", path);
}

static const char *path_base(const char *path) {
  const char *s = strrchr(path, '/');
  return s ? s + 1 : path;
}

static char *path_dir(const char *path) {
  const char *s = strrchr(path, '/');
  if (!s) return xstrdup(".");
  return xstrndup(path, (size_t)(s - path));
}

static char *strip_ext(const char *name) {
  const char *dot = strrchr(name, '.');
  return dot ? xstrndup(name, (size_t)(dot - name)) : xstrdup(name);
}

/* ------------------------------------------------------------------ schema model */

enum Base {
  B_NONE = 0,
  B_BOOL,
  B_I8,
  B_U8,
  B_I16,
  B_U16,
  B_I32,
  B_U32,
  B_I64,
  B_U64,
  B_F32,
  B_F64,
  B_STRING,
  B_VECTOR,
  B_NAMED, /* enum, union, table or struct (see Type.def) */
  B_UTYPE  /* the u8 tag slot of a union field (synthesised) */
};

static bool base_is_scalar(int b) { return b >= B_BOOL && b <= B_F64; }
static bool base_is_int(int b) { return b >= B_I8 && b <= B_U64; }
static bool base_is_signed(int b) { return b == B_I8 || b == B_I16 || b == B_I32 || b == B_I64; }
static bool base_is_float(int b) { return b == B_F32 || b == B_F64; }

static unsigned base_size(int b) {
  switch (b) {
    case B_BOOL: case B_I8: case B_U8: case B_UTYPE: return 1;
    case B_I16: case B_U16: return 2;
    case B_I32: case B_U32: case B_F32: return 4;
    case B_I64: case B_U64: case B_F64: return 8;
    default: return 4; /* offsets */
  }
}

static const char *base_ctype(int b) {
  switch (b) {
    case B_BOOL: return "bool";
    case B_I8: return "int8_t";
    case B_U8: case B_UTYPE: return "uint8_t";
    case B_I16: return "int16_t";
    case B_U16: return "uint16_t";
    case B_I32: return "int32_t";
    case B_U32: return "uint32_t";
    case B_I64: return "int64_t";
    case B_U64: return "uint64_t";
    case B_F32: return "float";
    case B_F64: return "double";
    default: return "?";
  }
}

/* Suffix of the pte_fb_get_* / pte_fb_add_* functions. */
static const char *base_fn(int b) {
  switch (b) {
    case B_BOOL: return "bool";
    case B_I8: return "i8";
    case B_U8: case B_UTYPE: return "u8";
    case B_I16: return "i16";
    case B_U16: return "u16";
    case B_I32: return "i32";
    case B_U32: return "u32";
    case B_I64: return "i64";
    case B_U64: return "u64";
    case B_F32: return "f32";
    case B_F64: return "f64";
    default: return "?";
  }
}

/* pte_fbgen_kind constant name (src/format/fb_json.h). */
static const char *base_kind(int b) {
  switch (b) {
    case B_BOOL: return "PTE_FBGEN_BOOL";
    case B_I8: return "PTE_FBGEN_I8";
    case B_U8: return "PTE_FBGEN_U8";
    case B_I16: return "PTE_FBGEN_I16";
    case B_U16: return "PTE_FBGEN_U16";
    case B_I32: return "PTE_FBGEN_I32";
    case B_U32: return "PTE_FBGEN_U32";
    case B_I64: return "PTE_FBGEN_I64";
    case B_U64: return "PTE_FBGEN_U64";
    case B_F32: return "PTE_FBGEN_F32";
    case B_F64: return "PTE_FBGEN_F64";
    case B_STRING: return "PTE_FBGEN_STRING";
    case B_UTYPE: return "PTE_FBGEN_UNION_TYPE";
    default: return "PTE_FBGEN_NONE";
  }
}

enum DefKind { K_ENUM = 1, K_UNION, K_TABLE, K_STRUCT };

typedef struct Def Def;
typedef struct FileInfo FileInfo;

typedef struct Type {
  int base;      /* enum Base */
  int elem;      /* for B_VECTOR: base of the element (B_NAMED for defs) */
  Def *def;      /* for B_NAMED (or a vector of B_NAMED) */
  char *ref;     /* unresolved name */
  const char *ns;/* namespace the reference was written in */
} Type;

typedef struct EnumVal {
  char *name;
  int64_t sv;      /* value (as signed) */
  uint64_t uv;     /* value (as unsigned) */
  char *type_ref;  /* union member type name (NULL: same as name) */
  Def *member;     /* union member table */
} EnumVal;

typedef struct Field {
  char *name;
  Type type;
  char *def_text; /* default as written (NULL: none) */
  bool deprecated, required;
  unsigned force_align;
  long id;       /* -1: none */
  int slot;      /* tables: vtable slot (for unions: the value slot) */
  unsigned offset; /* structs: byte offset */
  int line;
} Field;

struct Def {
  int kind;
  char *name;
  char *ns;   /* "" for the global namespace */
  char *full; /* ns.name */
  int base;   /* enums: underlying type */
  bool bit_flags;
  EnumVal *vals;
  int nvals, capvals;
  Field *fields;
  int nfields, capfields;
  unsigned size, align; /* structs */
  unsigned force_align; /* structs: force_align attribute */
  FileInfo *file;
  int line;
  bool laid_out, laying_out;
  char *cname; /* "<prefix>_<name>" (set on first use) */
};

struct FileInfo {
  char *path;
  char *stem;   /* file name without .fbs */
  char *prefix; /* from `// fbsgen: prefix X` */
  bool is_main;
  char *ident, *ext, *root;
  char *root_ns;
  int order;
};

static Def **g_defs;
static int g_ndefs, g_capdefs;
static FileInfo **g_files;
static int g_nfiles, g_capfiles;
static char **g_incdirs;
static int g_nincdirs, g_capincdirs;

/* ------------------------------------------------------------------ lexer */

enum Tok { T_EOF = 0, T_IDENT, T_NUM, T_STR, T_PUNCT };

typedef struct Lexer {
  const char *src, *p;
  const char *path;
  int line;
  FileInfo *file;
  int tok;
  char *text; /* current token text */
  int tline;
} Lexer;

static void lex_error(Lexer *L, const char *fmt, ...) {
  va_list ap;
  fprintf(stderr, "%s:%d: error: ", L->path, L->tline ? L->tline : L->line);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  exit(1);
}

static void directive(Lexer *L, const char *s, size_t n) {
  /* `fbsgen: prefix NAME` inside a comment */
  const char *key = "fbsgen:";
  const char *hit = NULL;
  for (size_t i = 0; i + strlen(key) <= n; i++) {
    if (memcmp(s + i, key, strlen(key)) == 0) { hit = s + i + strlen(key); break; }
  }
  if (!hit) return;
  const char *end = s + n;
  while (hit < end && isspace((unsigned char)*hit)) hit++;
  if ((size_t)(end - hit) > 6 && memcmp(hit, "prefix", 6) == 0) {
    hit += 6;
    while (hit < end && isspace((unsigned char)*hit)) hit++;
    const char *st = hit;
    while (hit < end && (isalnum((unsigned char)*hit) || *hit == '_')) hit++;
    if (hit > st && !L->file->prefix) L->file->prefix = xstrndup(st, (size_t)(hit - st));
  }
}

static bool is_ident_start(int c) { return isalpha(c) || c == '_'; }
static bool is_ident_char(int c) { return isalnum(c) || c == '_'; }

static void next(Lexer *L) {
  free(L->text);
  L->text = NULL;
  for (;;) {
    while (*L->p && isspace((unsigned char)*L->p)) {
      if (*L->p == '\n') L->line++;
      L->p++;
    }
    if (L->p[0] == '/' && L->p[1] == '/') {
      const char *s = L->p;
      while (*L->p && *L->p != '\n') L->p++;
      directive(L, s, (size_t)(L->p - s));
      continue;
    }
    if (L->p[0] == '/' && L->p[1] == '*') {
      const char *s = L->p;
      L->p += 2;
      while (*L->p && !(L->p[0] == '*' && L->p[1] == '/')) {
        if (*L->p == '\n') L->line++;
        L->p++;
      }
      if (!*L->p) lex_error(L, "unterminated comment");
      L->p += 2;
      directive(L, s, (size_t)(L->p - s));
      continue;
    }
    break;
  }
  L->tline = L->line;
  const char *s = L->p;
  int c = (unsigned char)*s;
  if (!c) {
    L->tok = T_EOF;
    L->text = xstrdup("<eof>");
    return;
  }
  if (is_ident_start(c)) {
    /* identifiers may be qualified: a.b.C */
    for (;;) {
      while (is_ident_char((unsigned char)*L->p)) L->p++;
      if (L->p[0] == '.' && is_ident_start((unsigned char)L->p[1])) {
        L->p++;
        continue;
      }
      break;
    }
    L->tok = T_IDENT;
    L->text = xstrndup(s, (size_t)(L->p - s));
    return;
  }
  if (isdigit(c) || ((c == '-' || c == '+' || c == '.') &&
                     (isdigit((unsigned char)s[1]) || (s[1] == '.' && isdigit((unsigned char)s[2])) ||
                      ((c == '-' || c == '+') && (strncmp(s + 1, "inf", 3) == 0 || strncmp(s + 1, "nan", 3) == 0))))) {
    L->p++;
    while (isalnum((unsigned char)*L->p) || *L->p == '.' || *L->p == '_' ||
           ((*L->p == '-' || *L->p == '+') && (L->p[-1] == 'e' || L->p[-1] == 'E') &&
            !(s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))))
      L->p++;
    L->tok = T_NUM;
    L->text = xstrndup(s, (size_t)(L->p - s));
    return;
  }
  if (c == '"') {
    L->p++;
    Buf b = {0};
    bputs(&b, "");
    while (*L->p && *L->p != '"') {
      if (*L->p == '\n') lex_error(L, "newline in string");
      if (*L->p == '\\' && L->p[1]) {
        char e[2] = {0, 0};
        L->p++;
        switch (*L->p) {
          case 'n': e[0] = '\n'; break;
          case 't': e[0] = '\t'; break;
          default: e[0] = *L->p; break;
        }
        bputs(&b, e);
        L->p++;
        continue;
      }
      char ch[2] = {*L->p, 0};
      bputs(&b, ch);
      L->p++;
    }
    if (*L->p != '"') lex_error(L, "unterminated string");
    L->p++;
    L->tok = T_STR;
    L->text = b.p;
    return;
  }
  L->p++;
  L->tok = T_PUNCT;
  L->text = xstrndup(s, 1);
}

static bool is_punct(Lexer *L, char c) { return L->tok == T_PUNCT && L->text[0] == c; }
static bool is_kw(Lexer *L, const char *kw) { return L->tok == T_IDENT && strcmp(L->text, kw) == 0; }

static void expect_punct(Lexer *L, char c) {
  if (!is_punct(L, c)) lex_error(L, "expected '%c', found '%s'", c, L->text);
  next(L);
}

static char *expect_ident(Lexer *L) {
  if (L->tok != T_IDENT) lex_error(L, "expected identifier, found '%s'", L->text);
  char *s = xstrdup(L->text);
  next(L);
  return s;
}

static char *expect_str(Lexer *L) {
  if (L->tok != T_STR) lex_error(L, "expected string, found '%s'", L->text);
  char *s = xstrdup(L->text);
  next(L);
  return s;
}

/* ------------------------------------------------------------------ parser */

static int scalar_base_from_name(const char *n) {
  static const struct { const char *n; int b; } map[] = {
      {"bool", B_BOOL},    {"byte", B_I8},      {"int8", B_I8},       {"ubyte", B_U8},   {"uint8", B_U8},
      {"short", B_I16},    {"int16", B_I16},    {"ushort", B_U16},    {"uint16", B_U16}, {"int", B_I32},
      {"int32", B_I32},    {"uint", B_U32},     {"uint32", B_U32},    {"long", B_I64},   {"int64", B_I64},
      {"ulong", B_U64},    {"uint64", B_U64},   {"float", B_F32},     {"float32", B_F32}, {"double", B_F64},
      {"float64", B_F64},  {"string", B_STRING},
  };
  for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
    if (strcmp(map[i].n, n) == 0) return map[i].b;
  return B_NONE;
}

typedef struct Attr {
  char *name;
  char *value; /* NULL when absent */
} Attr;

typedef struct Attrs {
  Attr *a;
  int n, cap;
} Attrs;

static void parse_metadata(Lexer *L, Attrs *out) {
  out->n = 0;
  if (!is_punct(L, '(')) return;
  next(L);
  while (!is_punct(L, ')')) {
    Attr at = {0};
    at.name = expect_ident(L);
    if (is_punct(L, ':')) {
      next(L);
      if (L->tok != T_NUM && L->tok != T_STR && L->tok != T_IDENT) lex_error(L, "bad attribute value '%s'", L->text);
      at.value = xstrdup(L->text);
      next(L);
    }
    GROW(out->a, out->n, out->cap);
    out->a[out->n++] = at;
    if (is_punct(L, ',')) next(L);
    else if (!is_punct(L, ')')) lex_error(L, "expected ',' or ')' in attributes");
  }
  next(L);
}

static const Attr *find_attr(const Attrs *as, const char *name) {
  for (int i = 0; i < as->n; i++)
    if (strcmp(as->a[i].name, name) == 0) return &as->a[i];
  return NULL;
}

static unsigned long attr_ulong(Lexer *L, const Attr *a) {
  if (!a->value) lex_error(L, "attribute %s needs a value", a->name);
  char *end;
  errno = 0;
  unsigned long v = strtoul(a->value, &end, 0);
  if (errno || *end) lex_error(L, "attribute %s: bad number '%s'", a->name, a->value);
  return v;
}

static void parse_type(Lexer *L, Type *t, const char *ns) {
  memset(t, 0, sizeof *t);
  t->ns = ns;
  if (is_punct(L, '[')) {
    next(L);
    char *en = expect_ident(L);
    if (is_punct(L, ':')) lex_error(L, "fixed-size arrays are not supported");
    expect_punct(L, ']');
    t->base = B_VECTOR;
    int b = scalar_base_from_name(en);
    if (b != B_NONE) {
      t->elem = b;
      free(en);
    } else {
      t->elem = B_NAMED;
      t->ref = en;
    }
    return;
  }
  if (is_punct(L, '[')) lex_error(L, "nested vectors are not supported");
  char *n = expect_ident(L);
  int b = scalar_base_from_name(n);
  if (b != B_NONE) {
    t->base = b;
    free(n);
  } else {
    t->base = B_NAMED;
    t->ref = n;
  }
}

static Def *new_def(int kind, char *name, const char *ns, FileInfo *f, int line) {
  Def *d = xmalloc(sizeof *d);
  d->kind = kind;
  d->name = name;
  d->ns = xstrdup(ns);
  size_t n = strlen(ns) + strlen(name) + 2;
  d->full = xmalloc(n);
  if (*ns) snprintf(d->full, n, "%s.%s", ns, name);
  else snprintf(d->full, n, "%s", name);
  d->file = f;
  d->line = line;
  for (int i = 0; i < g_ndefs; i++)
    if (strcmp(g_defs[i]->full, d->full) == 0) die("%s:%d: %s is defined twice", f->path, line, d->full);
  GROW(g_defs, g_ndefs, g_capdefs);
  g_defs[g_ndefs++] = d;
  return d;
}

/* Parses an integer literal (decimal / hex, optional sign) into sign + magnitude. */
static bool parse_int_literal(const char *s, bool *neg, uint64_t *mag) {
  *neg = false;
  if (*s == '-' || *s == '+') { *neg = *s == '-'; s++; }
  if (!*s) return false;
  char *end;
  errno = 0;
  unsigned long long v = strtoull(s, &end, (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) ? 16 : 10);
  if (errno || *end || !isdigit((unsigned char)*s)) return false;
  *mag = v;
  return true;
}

static void parse_enum(Lexer *L, bool is_union, const char *ns) {
  int line = L->tline;
  next(L); /* enum / union */
  char *name = expect_ident(L);
  Def *d = new_def(is_union ? K_UNION : K_ENUM, name, ns, L->file, line);
  d->base = B_U8;
  if (!is_union) {
    expect_punct(L, ':');
    char *bn = expect_ident(L);
    d->base = scalar_base_from_name(bn);
    if (!base_is_int(d->base)) lex_error(L, "enum %s: base type must be an integer type, not %s", name, bn);
    free(bn);
  }
  Attrs attrs = {0};
  parse_metadata(L, &attrs);
  d->bit_flags = find_attr(&attrs, "bit_flags") != NULL;
  expect_punct(L, '{');
  bool have_prev = false;
  bool prev_neg = false;
  uint64_t prev_mag = 0;
  if (is_union) {
    EnumVal none = {0};
    none.name = xstrdup("NONE");
    GROW(d->vals, d->nvals, d->capvals);
    d->vals[d->nvals++] = none;
    have_prev = true;
  }
  while (!is_punct(L, '}')) {
    EnumVal ev = {0};
    ev.name = expect_ident(L);
    if (is_union && is_punct(L, ':')) {
      next(L);
      ev.type_ref = expect_ident(L);
    }
    bool neg = false;
    uint64_t mag = 0;
    if (is_punct(L, '=')) {
      next(L);
      if (L->tok != T_NUM || !parse_int_literal(L->text, &neg, &mag)) lex_error(L, "bad enum value '%s'", L->text);
      next(L);
    } else if (!have_prev) {
      neg = false;
      mag = 0;
    } else if (prev_neg) {
      neg = prev_mag > 1;
      mag = prev_mag - 1;
    } else {
      neg = false;
      mag = prev_mag + 1;
    }
    if (neg && mag == 0) neg = false;
    if (d->bit_flags) {
      if (neg || mag >= base_size(d->base) * 8) lex_error(L, "bit_flags value %s out of range", ev.name);
      ev.uv = (uint64_t)1 << mag;
      ev.sv = (int64_t)ev.uv;
    } else {
      ev.uv = neg ? (uint64_t)0 - mag : mag;
      ev.sv = (int64_t)ev.uv;
    }
    prev_neg = neg;
    prev_mag = mag;
    have_prev = true;
    /* range check against the base type */
    int b = d->base;
    if (base_is_signed(b)) {
      int bits = (int)base_size(b) * 8;
      int64_t lo = bits == 64 ? INT64_MIN : -((int64_t)1 << (bits - 1));
      int64_t hi = bits == 64 ? INT64_MAX : ((int64_t)1 << (bits - 1)) - 1;
      if ((!neg && mag > (uint64_t)hi) || (neg && mag > (uint64_t)0 - (uint64_t)lo))
        lex_error(L, "enum value %s out of range", ev.name);
      (void)lo;
    } else {
      int bits = (int)base_size(b) * 8;
      if (neg || (bits < 64 && mag >= ((uint64_t)1 << bits))) lex_error(L, "enum value %s out of range", ev.name);
    }
    for (int i = 0; i < d->nvals; i++)
      if (strcmp(d->vals[i].name, ev.name) == 0) lex_error(L, "duplicate enum value %s", ev.name);
    GROW(d->vals, d->nvals, d->capvals);
    d->vals[d->nvals++] = ev;
    if (is_punct(L, ',')) next(L);
    else if (!is_punct(L, '}')) lex_error(L, "expected ',' or '}' in %s", name);
  }
  next(L);
  if (is_union && d->nvals > 256) lex_error(L, "union %s has too many members", name);
}

static void parse_struct_or_table(Lexer *L, bool is_struct, const char *ns) {
  int line = L->tline;
  next(L);
  char *name = expect_ident(L);
  Def *d = new_def(is_struct ? K_STRUCT : K_TABLE, name, ns, L->file, line);
  Attrs attrs = {0};
  parse_metadata(L, &attrs);
  const Attr *fa = find_attr(&attrs, "force_align");
  if (fa) {
    if (!is_struct) lex_error(L, "force_align on a table is not supported");
    d->force_align = (unsigned)attr_ulong(L, fa);
  }
  expect_punct(L, '{');
  while (!is_punct(L, '}')) {
    Field f = {0};
    f.id = -1;
    f.line = L->tline;
    f.name = expect_ident(L);
    expect_punct(L, ':');
    parse_type(L, &f.type, d->ns);
    if (is_punct(L, '=')) {
      next(L);
      if (L->tok != T_NUM && L->tok != T_IDENT) lex_error(L, "bad default value '%s'", L->text);
      if (L->tok == T_IDENT && strcmp(L->text, "null") == 0) lex_error(L, "optional scalars (= null) are not supported");
      if (is_struct) lex_error(L, "struct fields cannot have defaults");
      f.def_text = xstrdup(L->text);
      next(L);
    }
    Attrs fat = {0};
    parse_metadata(L, &fat);
    f.deprecated = find_attr(&fat, "deprecated") != NULL;
    f.required = find_attr(&fat, "required") != NULL;
    const Attr *a = find_attr(&fat, "force_align");
    if (a) f.force_align = (unsigned)attr_ulong(L, a);
    a = find_attr(&fat, "id");
    if (a) f.id = (long)attr_ulong(L, a);
    for (int i = 0; i < d->nfields; i++)
      if (strcmp(d->fields[i].name, f.name) == 0) lex_error(L, "duplicate field %s.%s", name, f.name);
    GROW(d->fields, d->nfields, d->capfields);
    d->fields[d->nfields++] = f;
    expect_punct(L, ';');
  }
  next(L);
}

static FileInfo *parse_file(const char *path, bool is_main);

static char *resolve_include(const char *from_path, const char *name) {
  char buf[4096];
  if (name[0] == '/') return xstrdup(name);
  char *dir = path_dir(from_path);
  snprintf(buf, sizeof buf, "%s/%s", dir, name);
  free(dir);
  FILE *f = fopen(buf, "rb");
  if (f) {
    fclose(f);
    return xstrdup(buf);
  }
  for (int i = 0; i < g_nincdirs; i++) {
    snprintf(buf, sizeof buf, "%s/%s", g_incdirs[i], name);
    f = fopen(buf, "rb");
    if (f) {
      fclose(f);
      return xstrdup(buf);
    }
  }
  die("%s: cannot find include \"%s\"", from_path, name);
  return NULL;
}

static FileInfo *parse_file(const char *path, bool is_main) {
  /* identity by file name (schemas are a flat directory) */
  for (int i = 0; i < g_nfiles; i++)
    if (strcmp(path_base(g_files[i]->path), path_base(path)) == 0) return g_files[i];
  FileInfo *fi = xmalloc(sizeof *fi);
  fi->path = xstrdup(path);
  fi->stem = strip_ext(path_base(path));
  fi->is_main = is_main;
  GROW(g_files, g_nfiles, g_capfiles);
  g_files[g_nfiles++] = fi;
  char *src = read_text(path);
  if (!src) die("cannot read %s: %s", path, strerror(errno));
  Lexer L = {0};
  L.src = L.p = src;
  L.path = fi->path;
  L.line = 1;
  L.file = fi;
  next(&L);
  char *ns = xstrdup("");
  while (L.tok != T_EOF) {
    if (is_kw(&L, "include")) {
      next(&L);
      char *inc = expect_str(&L);
      expect_punct(&L, ';');
      char *ip = resolve_include(path, inc);
      parse_file(ip, false);
      free(ip);
      free(inc);
    } else if (is_kw(&L, "native_include")) {
      next(&L);
      free(expect_str(&L));
      expect_punct(&L, ';');
    } else if (is_kw(&L, "namespace")) {
      next(&L);
      free(ns);
      ns = expect_ident(&L);
      expect_punct(&L, ';');
    } else if (is_kw(&L, "attribute")) {
      next(&L);
      if (L.tok != T_STR && L.tok != T_IDENT) lex_error(&L, "bad attribute declaration");
      next(&L);
      expect_punct(&L, ';');
    } else if (is_kw(&L, "file_identifier")) {
      next(&L);
      fi->ident = expect_str(&L);
      if (strlen(fi->ident) != 4) lex_error(&L, "file_identifier must be 4 characters");
      expect_punct(&L, ';');
    } else if (is_kw(&L, "file_extension")) {
      next(&L);
      fi->ext = expect_str(&L);
      expect_punct(&L, ';');
    } else if (is_kw(&L, "root_type")) {
      next(&L);
      fi->root = expect_ident(&L);
      fi->root_ns = xstrdup(ns);
      expect_punct(&L, ';');
    } else if (is_kw(&L, "enum")) {
      parse_enum(&L, false, ns);
    } else if (is_kw(&L, "union")) {
      parse_enum(&L, true, ns);
    } else if (is_kw(&L, "table")) {
      parse_struct_or_table(&L, false, ns);
    } else if (is_kw(&L, "struct")) {
      parse_struct_or_table(&L, true, ns);
    } else if (is_kw(&L, "rpc_service")) {
      lex_error(&L, "rpc_service is not supported");
    } else {
      lex_error(&L, "unexpected '%s'", L.text);
    }
  }
  free(L.text);
  free(ns);
  free(src);
  fi->order = g_nfiles;
  return fi;
}

/* ------------------------------------------------------------------ resolution & layout */

static Def *lookup(const char *name, const char *ns) {
  /* ns.name, then each enclosing namespace, then the name as written */
  char *scope = xstrdup(ns);
  for (;;) {
    size_t n = strlen(scope) + strlen(name) + 2;
    char *full = xmalloc(n);
    if (*scope) snprintf(full, n, "%s.%s", scope, name);
    else snprintf(full, n, "%s", name);
    for (int i = 0; i < g_ndefs; i++)
      if (strcmp(g_defs[i]->full, full) == 0) {
        free(full);
        free(scope);
        return g_defs[i];
      }
    free(full);
    if (!*scope) break;
    char *dot = strrchr(scope, '.');
    if (dot) *dot = 0;
    else scope[0] = 0;
  }
  free(scope);
  return NULL;
}

static void resolve_type(Type *t, Def *owner, Field *f) {
  if (!t->ref) return;
  Def *d = lookup(t->ref, t->ns);
  if (!d) die("%s:%d: unknown type %s in %s.%s", owner->file->path, f->line, t->ref, owner->name, f->name);
  t->def = d;
  if (t->base == B_VECTOR && d->kind == K_UNION) die("%s:%d: vectors of unions are not supported", owner->file->path, f->line);
}

static void layout_struct(Def *d) {
  if (d->laid_out) return;
  if (d->laying_out) die("%s: struct %s contains itself", d->file->path, d->name);
  d->laying_out = true;
  unsigned off = 0, align = 1;
  for (int i = 0; i < d->nfields; i++) {
    Field *f = &d->fields[i];
    unsigned sz, al;
    if (f->type.base == B_NAMED) {
      Def *t = f->type.def;
      if (t->kind == K_ENUM) {
        sz = al = base_size(t->base);
      } else if (t->kind == K_STRUCT) {
        layout_struct(t);
        sz = t->size;
        al = t->align;
      } else {
        die("%s:%d: struct %s: field %s must be a scalar, enum or struct", d->file->path, f->line, d->name, f->name);
        return;
      }
    } else if (base_is_scalar(f->type.base)) {
      sz = al = base_size(f->type.base);
    } else {
      die("%s:%d: struct %s: field %s must be a scalar, enum or struct", d->file->path, f->line, d->name, f->name);
      return;
    }
    off = (off + al - 1) / al * al;
    f->offset = off;
    off += sz;
    if (al > align) align = al;
  }
  if (d->force_align) {
    if (d->force_align < align || (d->force_align & (d->force_align - 1)))
      die("%s: struct %s: bad force_align %u", d->file->path, d->name, d->force_align);
    align = d->force_align;
  }
  if (off == 0) die("%s: struct %s is empty", d->file->path, d->name);
  d->size = (off + align - 1) / align * align;
  d->align = align;
  d->laid_out = true;
  d->laying_out = false;
}

static void assign_slots(Def *d) {
  int with_id = 0;
  for (int i = 0; i < d->nfields; i++) with_id += d->fields[i].id >= 0;
  if (with_id && with_id != d->nfields) die("%s: table %s: either all fields or none have an id", d->file->path, d->name);
  int slot = 0;
  for (int i = 0; i < d->nfields; i++) {
    Field *f = &d->fields[i];
    bool is_union = f->type.base == B_NAMED && f->type.def->kind == K_UNION;
    if (with_id) {
      f->slot = (int)f->id;
      if (is_union && f->slot == 0) die("%s: %s.%s: a union needs id >= 1", d->file->path, d->name, f->name);
    } else {
      f->slot = is_union ? slot + 1 : slot;
      slot += is_union ? 2 : 1;
    }
  }
  /* no two fields share a slot */
  for (int i = 0; i < d->nfields; i++) {
    for (int j = 0; j < d->nfields; j++) {
      if (i == j) continue;
      Field *a = &d->fields[i], *b = &d->fields[j];
      bool bu = b->type.base == B_NAMED && b->type.def->kind == K_UNION;
      if (a->slot == b->slot || (bu && a->slot == b->slot - 1))
        die("%s: table %s: fields %s and %s share slot %d", d->file->path, d->name, a->name, b->name, a->slot);
    }
  }
}

static void resolve_all(void) {
  for (int i = 0; i < g_ndefs; i++) {
    Def *d = g_defs[i];
    if (d->kind == K_UNION) {
      for (int k = 1; k < d->nvals; k++) {
        EnumVal *ev = &d->vals[k];
        const char *tn = ev->type_ref ? ev->type_ref : ev->name;
        Def *m = lookup(tn, d->ns);
        if (!m) die("%s: union %s: unknown member type %s", d->file->path, d->name, tn);
        if (m->kind != K_TABLE) die("%s: union %s: member %s must be a table", d->file->path, d->name, tn);
        ev->member = m;
      }
    }
    if (d->kind == K_TABLE || d->kind == K_STRUCT)
      for (int k = 0; k < d->nfields; k++) resolve_type(&d->fields[k].type, d, &d->fields[k]);
  }
  for (int i = 0; i < g_ndefs; i++) {
    Def *d = g_defs[i];
    if (d->kind == K_STRUCT) layout_struct(d);
    if (d->kind == K_TABLE) assign_slots(d);
  }
  /* field checks */
  for (int i = 0; i < g_ndefs; i++) {
    Def *d = g_defs[i];
    if (d->kind != K_TABLE) continue;
    for (int k = 0; k < d->nfields; k++) {
      Field *f = &d->fields[k];
      bool scalar = base_is_scalar(f->type.base) || (f->type.base == B_NAMED && f->type.def->kind == K_ENUM);
      if (f->def_text && !scalar) die("%s:%d: %s.%s: only scalar fields can have a default", d->file->path, f->line, d->name, f->name);
      if (f->required && scalar) die("%s:%d: %s.%s: scalar fields cannot be required", d->file->path, f->line, d->name, f->name);
      if (f->force_align && !(f->type.base == B_VECTOR)) die("%s:%d: %s.%s: force_align only on vectors", d->file->path, f->line, d->name, f->name);
      if (f->force_align & (f->force_align - 1)) die("%s:%d: %s.%s: force_align must be a power of two", d->file->path, f->line, d->name, f->name);
    }
  }
}

/* ------------------------------------------------------------------ defaults */

/* Scalar base of a field type (enums -> underlying), or B_NONE. */
static int scalar_base(const Type *t) {
  if (base_is_scalar(t->base)) return t->base;
  if (t->base == B_NAMED && t->def->kind == K_ENUM) return t->def->base;
  return B_NONE;
}

/* C literal for an integer of base b with sign/magnitude. */
static void int_literal(char *out, size_t n, int b, bool neg, uint64_t mag) {
  if (neg && mag == 0) neg = false;
  if (b == B_I64) {
    if (neg && mag == (uint64_t)1 << 63) snprintf(out, n, "(-INT64_C(9223372036854775807) - 1)");
    else snprintf(out, n, "%sINT64_C(%" PRIu64 ")", neg ? "-" : "", mag);
  } else if (b == B_U64) {
    snprintf(out, n, "UINT64_C(%" PRIu64 ")", mag);
  } else if (b == B_U32) {
    snprintf(out, n, "%" PRIu64 "u", mag);
  } else if (b == B_I32 && neg && mag == (uint64_t)1 << 31) {
    snprintf(out, n, "(-2147483647 - 1)");
  } else {
    snprintf(out, n, "%s%" PRIu64, neg ? "-" : "", mag);
  }
}

/* The C expression for a field's default value. */
static void default_expr(const Def *owner, const Field *f, char *out, size_t n) {
  int b = scalar_base(&f->type);
  const char *t = f->def_text;
  const Def *en = (f->type.base == B_NAMED && f->type.def->kind == K_ENUM) ? f->type.def : NULL;
  if (!t) {
    snprintf(out, n, b == B_BOOL ? "false" : base_is_float(b) ? "0.0" : "0");
    return;
  }
  if (b == B_BOOL) {
    if (strcmp(t, "true") == 0 || strcmp(t, "1") == 0) snprintf(out, n, "true");
    else if (strcmp(t, "false") == 0 || strcmp(t, "0") == 0) snprintf(out, n, "false");
    else die("%s: %s.%s: bad bool default %s", owner->file->path, owner->name, f->name, t);
    return;
  }
  if (base_is_float(b)) {
    const char *s = t;
    bool neg = false;
    if (*s == '-' || *s == '+') { neg = *s == '-'; s++; }
    if (strcmp(s, "nan") == 0) { snprintf(out, n, "NAN"); return; }
    if (strcmp(s, "inf") == 0 || strcmp(s, "infinity") == 0) { snprintf(out, n, neg ? "(-INFINITY)" : "INFINITY"); return; }
    char *end;
    double v = strtod(t, &end);
    if (*end) die("%s: %s.%s: bad float default %s", owner->file->path, owner->name, f->name, t);
    if (b == B_F32) v = (double)(float)v;
    char tmp[64];
    snprintf(tmp, sizeof tmp, "%.17g", v);
    if (!strpbrk(tmp, ".eEn")) strcat(tmp, ".0");
    snprintf(out, n, "%s%s", tmp, b == B_F32 ? "f" : "");
    return;
  }
  bool neg;
  uint64_t mag;
  if (en && (isalpha((unsigned char)t[0]) || t[0] == '_')) {
    /* enum value name (possibly qualified: Enum.NAME) */
    const char *nm = strrchr(t, '.');
    nm = nm ? nm + 1 : t;
    const EnumVal *ev = NULL;
    for (int i = 0; i < en->nvals; i++)
      if (strcmp(en->vals[i].name, nm) == 0) ev = &en->vals[i];
    if (!ev) die("%s: %s.%s: %s is not a value of %s", owner->file->path, owner->name, f->name, t, en->name);
    neg = base_is_signed(b) && ev->sv < 0;
    mag = neg ? (uint64_t)0 - ev->uv : ev->uv;
  } else if (!parse_int_literal(t, &neg, &mag)) {
    die("%s: %s.%s: bad integer default %s", owner->file->path, owner->name, f->name, t);
  }
  if (neg && !base_is_signed(b)) die("%s: %s.%s: negative default for unsigned field", owner->file->path, owner->name, f->name);
  int_literal(out, n, b, neg, mag);
}

/* ------------------------------------------------------------------ code generation */

static const char *g_prefix;

static const char *def_prefix(const Def *d) {
  if (d->file->is_main) return g_prefix;
  if (!d->file->prefix)
    die("%s: no `// fbsgen: prefix NAME` comment; needed because %s is used from another schema", d->file->path, d->name);
  return d->file->prefix;
}

/* "P_Name" */
static const char *cname(const Def *cd) {
  Def *d = (Def *)cd;
  if (!d->cname) {
    const char *p = def_prefix(d);
    size_t n = strlen(p) + strlen(d->name) + 2;
    d->cname = xmalloc(n);
    snprintf(d->cname, n, "%s_%s", p, d->name);
  }
  return d->cname;
}

static bool is_union_field(const Field *f) { return f->type.base == B_NAMED && f->type.def->kind == K_UNION; }

/* kind + elem kind strings for the descriptor table */
static const char *field_kind(const Field *f) {
  const Type *t = &f->type;
  if (t->base == B_VECTOR) return "PTE_FBGEN_VECTOR";
  if (t->base == B_NAMED) {
    switch (t->def->kind) {
      case K_ENUM: return base_kind(t->def->base);
      case K_UNION: return "PTE_FBGEN_UNION";
      case K_TABLE: return "PTE_FBGEN_TABLE";
      case K_STRUCT: return "PTE_FBGEN_STRUCT";
    }
  }
  return base_kind(t->base);
}

static const char *elem_kind(const Field *f) {
  const Type *t = &f->type;
  if (t->base != B_VECTOR) return "PTE_FBGEN_NONE";
  if (t->elem == B_NAMED) {
    switch (t->def->kind) {
      case K_ENUM: return base_kind(t->def->base);
      case K_TABLE: return "PTE_FBGEN_TABLE";
      case K_STRUCT: return "PTE_FBGEN_STRUCT";
      default: return "PTE_FBGEN_NONE";
    }
  }
  return base_kind(t->elem);
}

static void type_name(const Type *t, char *out, size_t n) {
  static const char *names[] = {"", "bool", "byte", "ubyte", "short", "ushort", "int", "uint", "long", "ulong", "float", "double", "string"};
  if (t->base == B_VECTOR) {
    if (t->elem == B_NAMED) snprintf(out, n, "[%s]", t->def->full);
    else snprintf(out, n, "[%s]", names[t->elem]);
  } else if (t->base == B_NAMED) {
    snprintf(out, n, "%s", t->def->full);
  } else {
    snprintf(out, n, "%s", names[t->base]);
  }
}

/* element size / alignment of a vector field */
static void vec_elem(const Field *f, unsigned *size, unsigned *align) {
  const Type *t = &f->type;
  if (t->elem == B_NAMED) {
    Def *d = t->def;
    if (d->kind == K_ENUM) *size = *align = base_size(d->base);
    else if (d->kind == K_STRUCT) { *size = d->size; *align = d->align; }
    else *size = *align = 4;
  } else if (t->elem == B_STRING) {
    *size = *align = 4;
  } else {
    *size = *align = base_size(t->elem);
  }
}

static char *upper_ident(const char *s) {
  char *r = xstrdup(s);
  for (char *p = r; *p; p++) *p = isalnum((unsigned char)*p) ? (char)toupper((unsigned char)*p) : '_';
  return r;
}

typedef struct NameSet {
  char **n;
  int len, cap;
} NameSet;

static void claim(NameSet *ns, const char *name, const char *what) {
  for (int i = 0; i < ns->len; i++)
    if (strcmp(ns->n[i], name) == 0) die("generated name %s (%s) collides with another generated name", name, what);
  GROW(ns->n, ns->len, ns->cap);
  ns->n[ns->len++] = xstrdup(name);
}

static void gen_enum_h(Buf *h, Def *d, NameSet *names) {
  const char *cn = cname(d);
  bool un = d->kind == K_UNION;
  bprintf(h, "/* %s %s%s%s */\n", un ? "union" : "enum", d->full, un ? "" : " : ", un ? "" : base_ctype(d->base));
  {
    static const char *fns[] = {"name", "to_json", "COUNT", "verifiers"};
    char fnm[512];
    claim(names, cn, "type");
    for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++) {
      snprintf(fnm, sizeof fnm, "%s_%s", cn, fns[i]);
      claim(names, fnm, "enum function");
    }
  }
  for (int i = 0; i < d->nvals; i++) {
    EnumVal *ev = &d->vals[i];
    char lit[96];
    bool neg = base_is_signed(d->base) && ev->sv < 0;
    int_literal(lit, sizeof lit, d->base, neg, neg ? (uint64_t)0 - ev->uv : ev->uv);
    char nm[512];
    snprintf(nm, sizeof nm, "%s_%s", cn, ev->name);
    claim(names, nm, "enum value");
    if (un && i > 0) bprintf(h, "#define %s %s /* table %s */\n", nm, lit, ev->member->full);
    else bprintf(h, "#define %s %s\n", nm, lit);
  }
  if (un) bprintf(h, "#define %s_COUNT %d /* tags 0..COUNT-1 (0 = NONE) */\n", cn, d->nvals);
  const char *pt = un ? "uint8_t" : base_ctype(d->base);
  bprintf(h, "/* Name of a value (\"%s\"...), or NULL when the value has no name. */\n", d->vals[0].name);
  bprintf(h, "const char *%s_name(%s v);\n", cn, pt);
  if (!un) {
    bprintf(h, "/* Writes a value as flatc does: its name as a JSON string, %sor else the number. */\n",
            d->bit_flags ? "or the names of its bits separated by spaces, " : "");
    bprintf(h, "void %s_to_json(%s v, pte_fb_json_sink *sink);\n", cn, pt);
  }
  if (un) {
    bprintf(h, "/* Verifiers of the member tables, indexed by tag (entry 0 = NULL). */\n");
    bprintf(h, "extern const pte_fb_verify_fn %s_verifiers[%d];\n", cn, d->nvals);
    bprintf(h, "/* Writes member table t (of tag `tag`) as a JSON object; false if the tag is unknown. */\n");
    bprintf(h, "bool %s_to_json(uint8_t tag, pte_fb_table t, pte_fb_json_sink *sink, unsigned flags);\n", cn);
  }
  bputs(h, "\n");
}

static void gen_enum_c(Buf *c, Buf *j, Def *d) {
  const char *cn = cname(d);
  bool un = d->kind == K_UNION;
  const char *pt = un ? "uint8_t" : base_ctype(d->base);
  bprintf(c, "const char *%s_name(%s v) {\n", cn, pt);
  /* if/else chain: works for every base type (and duplicate values keep the first name) */
  for (int i = 0; i < d->nvals; i++) {
    bool dup = false;
    for (int j = 0; j < i; j++) dup |= d->vals[j].uv == d->vals[i].uv;
    if (dup) continue;
    char lit[96];
    bool neg = base_is_signed(d->base) && d->vals[i].sv < 0;
    int_literal(lit, sizeof lit, d->base, neg, neg ? (uint64_t)0 - d->vals[i].uv : d->vals[i].uv);
    bprintf(c, "  if (v == (%s)%s) return \"%s\";\n", pt, lit, d->vals[i].name);
  }
  bprintf(c, "  return NULL;\n}\n\n");
  if (!un && d->bit_flags) {
    bprintf(j, "static const char *const %s_flag_names[%d] = {", cn, d->nvals);
    for (int i = 0; i < d->nvals; i++) bprintf(j, "%s\"%s\"", i ? ", " : "", d->vals[i].name);
    bprintf(j, "};\nstatic const uint64_t %s_flag_values[%d] = {", cn, d->nvals);
    for (int i = 0; i < d->nvals; i++) bprintf(j, "%sUINT64_C(%" PRIu64 ")", i ? ", " : "", d->vals[i].uv);
    bprintf(j, "};\n");
    bprintf(j, "void %s_to_json(%s v, pte_fb_json_sink *sink) {\n", cn, pt);
    bprintf(j, "  pte_fb_json_bit_flags(sink, (uint64_t)v, %s_flag_names, %s_flag_values, %d);\n}\n\n", cn, cn, d->nvals);
  } else if (!un) {
    bprintf(j, "void %s_to_json(%s v, pte_fb_json_sink *sink) {\n", cn, pt);
    bprintf(j, "  pte_fb_json_enum(sink, %s_name(v), (int64_t)v, %d);\n}\n\n", cn, !base_is_signed(d->base));
  }
  if (un) {
    bprintf(c, "const pte_fb_verify_fn %s_verifiers[%d] = {\n  NULL,\n", cn, d->nvals);
    for (int i = 1; i < d->nvals; i++) bprintf(c, "  %s_verify,\n", cname(d->vals[i].member));
    bprintf(c, "};\n\n");
    bprintf(j, "bool %s_to_json(uint8_t tag, pte_fb_table t, pte_fb_json_sink *sink, unsigned flags) {\n", cn);
    bprintf(j, "  switch (tag) {\n");
    for (int i = 1; i < d->nvals; i++)
      bprintf(j, "    case %d: %s_to_json(t, sink, flags); return true;\n", (int)d->vals[i].uv, cname(d->vals[i].member));
    bprintf(j, "    default: (void)t; (void)sink; (void)flags; return false;\n  }\n}\n\n");
  }
}

static void gen_struct_h(Buf *h, Def *d, NameSet *names) {
  const char *cn = cname(d);
  bprintf(h, "/* struct %s (%u bytes, align %u): read from a pointer to its bytes (little-endian) */\n", d->full, d->size, d->align);
  bprintf(h, "#define %s_SIZE %u\n#define %s_ALIGN %u\n", cn, d->size, cn, d->align);
  char nm[512];
  claim(names, cn, "type");
  static const char *sfns[] = {"SIZE", "ALIGN", "to_json", "fields", "N_FIELDS"};
  for (size_t i = 0; i < sizeof sfns / sizeof sfns[0]; i++) {
    snprintf(nm, sizeof nm, "%s_%s", cn, sfns[i]);
    claim(names, nm, "struct constant");
  }
  for (int i = 0; i < d->nfields; i++) {
    Field *f = &d->fields[i];
    bprintf(h, "#define %s_%s_OFFSET %u\n", cn, f->name, f->offset);
  }
  for (int i = 0; i < d->nfields; i++) {
    Field *f = &d->fields[i];
    snprintf(nm, sizeof nm, "%s_%s", cn, f->name);
    claim(names, nm, "struct field");
    if (f->type.base == B_NAMED && f->type.def->kind == K_STRUCT) {
      bprintf(h, "static inline const uint8_t *%s_%s(const uint8_t *p) { return p + %u; }\n", cn, f->name, f->offset);
      bprintf(h, "static inline uint8_t *%s_%s_mut(uint8_t *p) { return p + %u; }\n", cn, f->name, f->offset);
      continue;
    }
    int b = scalar_base(&f->type);
    const char *ct = base_ctype(b);
    const char *rd, *wr;
    switch (b) {
      case B_BOOL: rd = "p[%u] != 0"; wr = "p[%u] = v ? 1 : 0"; break;
      case B_I8: rd = "(int8_t)p[%u]"; wr = "p[%u] = (uint8_t)v"; break;
      case B_U8: rd = "p[%u]"; wr = "p[%u] = v"; break;
      case B_I16: rd = "(int16_t)pte_fb_ld_u16(p + %u)"; wr = "pte_fbgen_st_u16(p + %u, (uint16_t)v)"; break;
      case B_U16: rd = "pte_fb_ld_u16(p + %u)"; wr = "pte_fbgen_st_u16(p + %u, v)"; break;
      case B_I32: rd = "pte_fb_ld_i32(p + %u)"; wr = "pte_fbgen_st_u32(p + %u, (uint32_t)v)"; break;
      case B_U32: rd = "pte_fb_ld_u32(p + %u)"; wr = "pte_fbgen_st_u32(p + %u, v)"; break;
      case B_I64: rd = "(int64_t)pte_fb_ld_u64(p + %u)"; wr = "pte_fbgen_st_u64(p + %u, (uint64_t)v)"; break;
      case B_U64: rd = "pte_fb_ld_u64(p + %u)"; wr = "pte_fbgen_st_u64(p + %u, v)"; break;
      case B_F32: rd = "pte_fb_ld_f32(p + %u)"; wr = "pte_fbgen_st_f32(p + %u, v)"; break;
      case B_F64: rd = "pte_fb_ld_f64(p + %u)"; wr = "pte_fbgen_st_f64(p + %u, v)"; break;
      default: die("internal: struct field kind"); return;
    }
    bprintf(h, "static inline %s %s_%s(const uint8_t *p) { return ", ct, cn, f->name);
    bprintf(h, rd, f->offset);
    bprintf(h, "; }\n");
    bprintf(h, "static inline void %s_set_%s(uint8_t *p, %s v) { ", cn, f->name, ct);
    bprintf(h, wr, f->offset);
    bprintf(h, "; }\n");
  }
  bprintf(h, "void %s_to_json(const uint8_t *p, pte_fb_json_sink *sink, unsigned flags);\n", cn);
  bprintf(h, "#define %s_N_FIELDS %d\nextern const pte_fbgen_field %s_fields[%d];\n\n", cn, d->nfields, cn, d->nfields + 1);
}

static void gen_struct_c(Buf *c, Def *d) {
  const char *cn = cname(d);
  bprintf(c, "void %s_to_json(const uint8_t *p, pte_fb_json_sink *sink, unsigned flags) {\n", cn);
  bprintf(c, "  (void)flags;\n  pte_fb_json_begin_object(sink);\n");
  for (int i = 0; i < d->nfields; i++) {
    Field *f = &d->fields[i];
    bprintf(c, "  pte_fb_json_key(sink, \"%s\");\n", f->name);
    if (f->type.base == B_NAMED && f->type.def->kind == K_STRUCT) {
      bprintf(c, "  %s_to_json(%s_%s(p), sink, flags);\n", cname(f->type.def), cn, f->name);
    } else if (f->type.base == B_NAMED && f->type.def->kind == K_ENUM) {
      Def *e = f->type.def;
      bprintf(c, "  %s_to_json(%s_%s(p), sink);\n", cname(e), cn, f->name);
    } else {
      int b = f->type.base;
      if (b == B_BOOL) bprintf(c, "  pte_fb_json_bool(sink, %s_%s(p));\n", cn, f->name);
      else if (b == B_F32) bprintf(c, "  pte_fb_json_f32(sink, %s_%s(p));\n", cn, f->name);
      else if (b == B_F64) bprintf(c, "  pte_fb_json_f64(sink, %s_%s(p));\n", cn, f->name);
      else if (b == B_U64) bprintf(c, "  pte_fb_json_uint(sink, %s_%s(p));\n", cn, f->name);
      else bprintf(c, "  pte_fb_json_int(sink, (int64_t)%s_%s(p));\n", cn, f->name);
    }
  }
  bprintf(c, "  pte_fb_json_end_object(sink);\n}\n\n");
  bprintf(c, "const pte_fbgen_field %s_fields[%d] = {\n", cn, d->nfields + 1);
  for (int i = 0; i < d->nfields; i++) {
    Field *f = &d->fields[i];
    char tn[512];
    type_name(&f->type, tn, sizeof tn);
    bool en = f->type.base == B_NAMED && f->type.def->kind == K_ENUM;
    bprintf(c, "  {\"%s\", \"%s\", %d, %u, %s, PTE_FBGEN_NONE, %s},\n", f->name, tn, i, f->offset, field_kind(f),
            en ? "PTE_FBGEN_F_ENUM" : "0");
  }
  bprintf(c, "  {NULL, NULL, 0, 0, PTE_FBGEN_NONE, PTE_FBGEN_NONE, 0},\n};\n\n");
}

/* number of descriptor entries of a table (unions count twice) */
static int n_desc(const Def *d) {
  int n = 0;
  for (int i = 0; i < d->nfields; i++) n += is_union_field(&d->fields[i]) ? 2 : 1;
  return n;
}

/* Emits one reader accessor, `static inline RET NAME(PARAMS) { return EXPR; }` (one line, as
 * formatted), followed by `#define NAME(P...) (EXPR)` so calls expand to the generic reader call
 * itself: at -Os compilers keep an extra copy of the pte_fb_table argument for each inlined wrapper
 * call, so code reading through the accessors would be larger than code calling the reader with the
 * slot number. The function stays for anyone taking its address. */
static void emit_acc(Buf *h, const char *fmt, ...) {
  char line[1024];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  if (n < 0 || (size_t)n >= sizeof line) die("accessor line too long");
  bputs(h, line);
  const char *lp = strchr(line, '(');
  const char *rp = lp ? strchr(lp, ')') : NULL;
  const char *body = strstr(line, "{ return ");
  const char *end = body ? strstr(body, "; }") : NULL;
  if (!lp || !rp || !body || !end) die("internal: malformed accessor %s", line);
  const char *ns = lp;
  while (ns > line && is_ident_char((unsigned char)ns[-1])) ns--;
  char params[8][64];
  int np = 0;
  for (const char *q = lp + 1; q < rp;) {
    const char *pe = q;
    while (pe < rp && *pe != ',') pe++;
    const char *ie = pe;
    while (ie > q && !is_ident_char((unsigned char)ie[-1])) ie--;
    const char *is = ie;
    while (is > q && is_ident_char((unsigned char)is[-1])) is--;
    if (np == 8 || ie - is >= 64 || ie == is) die("internal: accessor parameters %s", line);
    snprintf(params[np++], 64, "%.*s", (int)(ie - is), is);
    q = pe < rp ? pe + 1 : rp;
  }
  bprintf(h, "#define %.*s(", (int)(lp - ns), ns);
  for (int i = 0; i < np; i++) bprintf(h, "%s%s", i ? ", " : "", params[i]);
  bputs(h, ") (");
  for (const char *q = body + strlen("{ return "); q < end;) {
    if (is_ident_char((unsigned char)*q) && (q == body || !is_ident_char((unsigned char)q[-1]))) {
      const char *ie = q;
      while (ie < end && is_ident_char((unsigned char)*ie)) ie++;
      bool param = false;
      for (int i = 0; i < np; i++)
        if ((size_t)(ie - q) == strlen(params[i]) && memcmp(q, params[i], (size_t)(ie - q)) == 0) param = true;
      if (param) bprintf(h, "(%.*s)", (int)(ie - q), q);
      else bprintf(h, "%.*s", (int)(ie - q), q);
      q = ie;
    } else {
      bprintf(h, "%c", *q);
      q++;
    }
  }
  bputs(h, ")\n");
}

/* Unchecked accessors for a verified buffer (flatbuf.h pte_fb_raw_*): <P>_<T>_<f>_at(b, t) with t the
 * table's absolute position; scalars (not floats) read with their default, tables/strings as
 * positions (0 = absent), vectors as pte_fb_raw_vec; <P>_<T>_<f>_present_at tests presence. */
static void gen_field_at_h(Buf *h, Def *d, Field *f, NameSet *names) {
  const char *cn = cname(d);
  const Type *t = &f->type;
  char nm[512];
  int sb = scalar_base(t);
  const char *args = "(const uint8_t *b, uint32_t t)";
  if (sb != B_NONE && sb != B_F32 && sb != B_F64) {
    char def[128];
    default_expr(d, f, def, sizeof def);
    const char *ct = base_ctype(sb);
    const char *rf = "u8", *rt = "uint8_t";
    if (sb == B_I16 || sb == B_U16) rf = "u16", rt = "uint16_t";
    else if (sb == B_I32 || sb == B_U32) rf = "u32", rt = "uint32_t";
    else if (sb == B_I64 || sb == B_U64) rf = "u64", rt = "uint64_t";
    snprintf(nm, sizeof nm, "%s_%s_at", cn, f->name);
    claim(names, nm, "unchecked accessor");
    if (sb == B_BOOL)
      emit_acc(h, "static inline bool %s%s { return pte_fb_raw_u8(b, t, %d, (uint8_t)(%s)) != 0; }\n", nm, args, f->slot, def);
    else
      emit_acc(h, "static inline %s %s%s { return (%s)pte_fb_raw_%s(b, t, %d, (%s)(%s)); }\n", ct, nm, args, ct, rf, f->slot, rt,
              def);
  } else if (t->base == B_VECTOR) {
    snprintf(nm, sizeof nm, "%s_%s_at", cn, f->name);
    claim(names, nm, "unchecked accessor");
    emit_acc(h, "static inline pte_fb_raw_vec %s%s { return pte_fb_raw_vec_of(b, t, %d); }\n", nm, args, f->slot);
  } else if (t->base == B_STRING || (t->base == B_NAMED && (t->def->kind == K_TABLE || t->def->kind == K_UNION))) {
    if (t->base == B_NAMED && t->def->kind == K_UNION) {
      snprintf(nm, sizeof nm, "%s_%s_type_at", cn, f->name);
      claim(names, nm, "unchecked accessor");
      emit_acc(h, "static inline uint8_t %s%s { return pte_fb_raw_u8(b, t, %d, 0); }\n", nm, args, f->slot - 1);
    }
    snprintf(nm, sizeof nm, "%s_%s_at", cn, f->name);
    claim(names, nm, "unchecked accessor");
    emit_acc(h, "static inline uint32_t %s%s { return pte_fb_raw_obj(b, t, %d); }\n", nm, args, f->slot);
  } else {
    return; /* structs and floats: no unchecked accessor */
  }
  snprintf(nm, sizeof nm, "%s_%s_present_at", cn, f->name);
  claim(names, nm, "unchecked presence test");
  emit_acc(h, "static inline bool %s%s { return pte_fb_raw_field(b, t, %d) != 0; }\n", nm, args, f->slot);
}

static void gen_table_h(Buf *h, Def *d, NameSet *names) {
  const char *cn = cname(d);
  char nm[512];
  bprintf(h, "/* ---- table %s */\n", d->full);
  claim(names, cn, "type");
  static const char *reserved[] = {"verify", "start", "end", "to_json", "fields", "N_FIELDS"};
  for (size_t r = 0; r < sizeof reserved / sizeof reserved[0]; r++) {
    snprintf(nm, sizeof nm, "%s_%s", cn, reserved[r]);
    claim(names, nm, "table function");
  }
  /* slots */
  for (int i = 0; i < d->nfields; i++) {
    Field *f = &d->fields[i];
    if (is_union_field(f)) bprintf(h, "#define %s_%s_type_SLOT %d\n", cn, f->name, f->slot - 1);
    bprintf(h, "#define %s_%s_SLOT %d%s\n", cn, f->name, f->slot, f->deprecated ? " /* deprecated */" : "");
  }
  /* accessors */
  for (int i = 0; i < d->nfields; i++) {
    Field *f = &d->fields[i];
    if (f->deprecated) continue;
    const Type *t = &f->type;
    snprintf(nm, sizeof nm, "%s_%s", cn, f->name);
    claim(names, nm, "accessor");
    int sb = scalar_base(t);
    if (sb != B_NONE) {
      char def[128];
      default_expr(d, f, def, sizeof def);
      emit_acc(h, "static inline %s %s_%s(pte_fb_table t) { return pte_fb_get_%s(t, %d, %s); }\n", base_ctype(sb), cn,
              f->name, base_fn(sb), f->slot, def);
    } else if (t->base == B_STRING) {
      emit_acc(h, "static inline pte_fb_str %s_%s(pte_fb_table t) { return pte_fb_get_str(t, %d); }\n", cn, f->name, f->slot);
    } else if (t->base == B_VECTOR) {
      emit_acc(h, "static inline pte_fb_vec %s_%s(pte_fb_table t) { return pte_fb_get_vec(t, %d); }\n", cn, f->name, f->slot);
    } else if (t->def->kind == K_TABLE) {
      emit_acc(h, "static inline pte_fb_table %s_%s(pte_fb_table t) { return pte_fb_get_table(t, %d); }\n", cn, f->name, f->slot);
    } else if (t->def->kind == K_STRUCT) {
      emit_acc(h, "static inline const uint8_t *%s_%s(pte_fb_table t) { return pte_fb_get_struct(t, %d, %u); }\n", cn, f->name,
              f->slot, t->def->size);
    } else if (t->def->kind == K_UNION) {
      snprintf(nm, sizeof nm, "%s_%s_type", cn, f->name);
      claim(names, nm, "union type accessor");
      emit_acc(h, "static inline uint8_t %s_%s_type(pte_fb_table t) { return pte_fb_get_u8(t, %d, 0); }\n", cn, f->name,
              f->slot - 1);
      emit_acc(h, "static inline pte_fb_table %s_%s(pte_fb_table t) { return pte_fb_get_table(t, %d); }\n", cn, f->name, f->slot);
    }
    snprintf(nm, sizeof nm, "%s_%s_present", cn, f->name);
    claim(names, nm, "presence test");
    emit_acc(h, "static inline bool %s_%s_present(pte_fb_table t) { return pte_fb_field_pos(t, %d) != 0; }\n", cn, f->name,
            f->slot);
    gen_field_at_h(h, d, f, names);
  }
  /* verifier, json */
  bprintf(h, "pte_status %s_verify(pte_fb_verifier *v, uint32_t pos);\n", cn);
  bprintf(h, "void %s_to_json(pte_fb_table t, pte_fb_json_sink *sink, unsigned flags);\n", cn);
  /* builder */
  bprintf(h, "static inline void %s_start(pte_fb_builder *b) { pte_fb_table_start(b); }\n", cn);
  for (int i = 0; i < d->nfields; i++) {
    Field *f = &d->fields[i];
    if (f->deprecated) continue;
    const Type *t = &f->type;
    snprintf(nm, sizeof nm, "%s_add_%s", cn, f->name);
    claim(names, nm, "builder");
    int sb = scalar_base(t);
    if (sb != B_NONE) {
      char def[128];
      default_expr(d, f, def, sizeof def);
      bprintf(h, "static inline void %s_add_%s(pte_fb_builder *b, %s v) { pte_fb_add_%s(b, %d, v, %s); }\n", cn, f->name,
              base_ctype(sb), base_fn(sb), f->slot, def);
    } else if (t->base == B_NAMED && t->def->kind == K_STRUCT) {
      bprintf(h, "static inline void %s_add_%s(pte_fb_builder *b, const void *bytes) { pte_fb_add_struct(b, %d, bytes, %u, %u); }\n",
              cn, f->name, f->slot, t->def->size, t->def->align);
    } else if (t->base == B_NAMED && t->def->kind == K_UNION) {
      snprintf(nm, sizeof nm, "%s_add_%s_type", cn, f->name);
      claim(names, nm, "union builder");
      bprintf(h, "static inline void %s_add_%s_type(pte_fb_builder *b, uint8_t tag) { pte_fb_add_u8(b, %d, tag, 0); }\n", cn,
              f->name, f->slot - 1);
      bprintf(h, "static inline void %s_add_%s(pte_fb_builder *b, pte_fb_ref r) { pte_fb_add_ref(b, %d, r); }\n", cn, f->name, f->slot);
    } else {
      bprintf(h, "static inline void %s_add_%s(pte_fb_builder *b, pte_fb_ref r) { pte_fb_add_ref(b, %d, r); }\n", cn, f->name, f->slot);
    }
    if (t->base == B_VECTOR) {
      unsigned es, ea;
      vec_elem(f, &es, &ea);
      unsigned align = f->force_align > ea ? f->force_align : ea;
      snprintf(nm, sizeof nm, "%s_create_%s", cn, f->name);
      claim(names, nm, "vector builder");
      if (t->elem == B_STRING || (t->elem == B_NAMED && t->def->kind == K_TABLE)) {
        bprintf(h, "static inline pte_fb_ref %s_create_%s(pte_fb_builder *b, const pte_fb_ref *refs, size_t n) { return pte_fb_create_vec_refs(b, refs, n); }\n",
                cn, f->name);
      } else if (t->elem == B_NAMED && t->def->kind == K_STRUCT) {
        bprintf(h, "static inline pte_fb_ref %s_create_%s(pte_fb_builder *b, const void *structs, size_t n) { return pte_fb_create_vec(b, structs, n, %u, %u); }\n",
                cn, f->name, es, align);
      } else {
        int eb = t->elem == B_NAMED ? t->def->base : t->elem;
        const char *ct = base_ctype(eb);
        if (es == 1) {
          if (eb == B_BOOL)
            bprintf(h, "static inline pte_fb_ref %s_create_%s(pte_fb_builder *b, const bool *v, size_t n) { return pte_fbgen_create_vec_bool(b, v, n, %u); }\n",
                    cn, f->name, align);
          else
            bprintf(h, "static inline pte_fb_ref %s_create_%s(pte_fb_builder *b, const %s *v, size_t n) { return pte_fb_create_vec(b, v, n, 1, %u); }\n",
                    cn, f->name, ct, align);
        } else {
          const char *w = es == 2 ? "16" : es == 4 ? "32" : "64";
          bprintf(h, "static inline pte_fb_ref %s_create_%s(pte_fb_builder *b, const %s *v, size_t n) { return pte_fbgen_create_vec_%s(b, (const void *)v, n, %u); }\n",
                  cn, f->name, ct, w, align);
        }
      }
    }
  }
  bprintf(h, "static inline pte_fb_ref %s_end(pte_fb_builder *b) { return pte_fb_table_end(b); }\n", cn);
  bprintf(h, "#define %s_N_FIELDS %d\nextern const pte_fbgen_field %s_fields[%d];\n\n", cn, n_desc(d), cn, n_desc(d) + 1);
}

static void gen_table_c(Buf *c, Buf *j, Def *d) {
  const char *cn = cname(d);
  /* ---- verifier: one descriptor per field, interpreted by pte_fb_verify_table_desc
   * (src/format/fb_verify_desc.c) -- much smaller than a function body per table */
  int nchecks = 0;
  for (int i = 0; i < d->nfields; i++) {
    Field *f = &d->fields[i];
    if (f->deprecated) continue;
    const Type *t = &f->type;
    int sb = scalar_base(t);
    int req = f->required ? 1 : 0;
    char desc[1024];
    if (sb != B_NONE) {
      snprintf(desc, sizeof desc, "{PTE_FB_VK_INLINE, 0, %d, %u, %u, {NULL}}", f->slot, base_size(sb), base_size(sb));
    } else if (t->base == B_STRING) {
      snprintf(desc, sizeof desc, "{PTE_FB_VK_STR, %d, %d, 0, 0, {NULL}}", req, f->slot);
    } else if (t->base == B_VECTOR) {
      if (t->elem == B_STRING) {
        snprintf(desc, sizeof desc, "{PTE_FB_VK_VEC_STR, %d, %d, 0, 0, {NULL}}", req, f->slot);
      } else if (t->elem == B_NAMED && t->def->kind == K_TABLE) {
        snprintf(desc, sizeof desc, "{PTE_FB_VK_VEC_TABLE, %d, %d, 0, 0, {.fn = %s_verify}}", req, f->slot, cname(t->def));
      } else {
        unsigned es, ea;
        vec_elem(f, &es, &ea);
        if (es > 65535u || ea > 65535u) die("%s.%s: vector element too large", d->name, f->name);
        snprintf(desc, sizeof desc, "{PTE_FB_VK_VEC, %d, %d, %u, %u, {NULL}}", req, f->slot, es, ea);
      }
    } else if (t->def->kind == K_TABLE) {
      snprintf(desc, sizeof desc, "{PTE_FB_VK_TABLE, %d, %d, 0, 0, {.fn = %s_verify}}", req, f->slot, cname(t->def));
    } else if (t->def->kind == K_STRUCT) {
      if (t->def->size > 65535u || t->def->align > 65535u) die("%s.%s: struct too large", d->name, f->name);
      snprintf(desc, sizeof desc, "{PTE_FB_VK_INLINE, 0, %d, %u, %u, {NULL}}", f->slot, t->def->size, t->def->align);
    } else { /* union */
      snprintf(desc, sizeof desc, "{PTE_FB_VK_UNION, %d, %d, 0, %d, {.tags = %s_verifiers}}", req, f->slot,
               t->def->nvals, cname(t->def));
    }
    if (!nchecks) bprintf(c, "static const pte_fb_vfield %s_vfields[] = {\n", cn);
    bprintf(c, "  %s, /* %s */\n", desc, f->name);
    nchecks++;
  }
  if (nchecks) bprintf(c, "};\n\n");
  bprintf(c, "pte_status %s_verify(pte_fb_verifier *v, uint32_t pos) {\n", cn);
  if (nchecks)
    bprintf(c, "  return pte_fb_verify_table_desc(v, pos, \"%s\", %s_vfields, %d);\n}\n\n", d->name, cn, nchecks);
  else
    bprintf(c, "  return pte_fb_verify_table_desc(v, pos, \"%s\", NULL, 0);\n}\n\n", d->name);

  /* ---- JSON */
  bprintf(j, "void %s_to_json(pte_fb_table t, pte_fb_json_sink *sink, unsigned flags) {\n", cn);
  bprintf(j, "  bool all = (flags & PTE_FB_JSON_OMIT_DEFAULTS) == 0;\n  (void)all; (void)t;\n");
  bprintf(j, "  pte_fb_json_begin_object(sink);\n");
  for (int i = 0; i < d->nfields; i++) {
    Field *f = &d->fields[i];
    if (f->deprecated) continue;
    const Type *t = &f->type;
    int sb = scalar_base(t);
    if (sb != B_NONE) {
      bprintf(j, "  if (all || pte_fb_field_pos(t, %d)) {\n    pte_fb_json_key(sink, \"%s\");\n", f->slot, f->name);
      if (t->base == B_NAMED) {
        Def *e = t->def;
        bprintf(j, "    %s_to_json(%s_%s(t), sink);\n", cname(e), cn, f->name);
      } else if (sb == B_BOOL) {
        bprintf(j, "    pte_fb_json_bool(sink, %s_%s(t));\n", cn, f->name);
      } else if (sb == B_F32) {
        bprintf(j, "    pte_fb_json_f32(sink, %s_%s(t));\n", cn, f->name);
      } else if (sb == B_F64) {
        bprintf(j, "    pte_fb_json_f64(sink, %s_%s(t));\n", cn, f->name);
      } else if (sb == B_U64) {
        bprintf(j, "    pte_fb_json_uint(sink, %s_%s(t));\n", cn, f->name);
      } else {
        bprintf(j, "    pte_fb_json_int(sink, (int64_t)%s_%s(t));\n", cn, f->name);
      }
      bprintf(j, "  }\n");
    } else if (t->base == B_STRING) {
      bprintf(j, "  {\n    pte_fb_str x = %s_%s(t);\n    if (x.ptr) { pte_fb_json_key(sink, \"%s\"); pte_fb_json_string(sink, x.ptr, x.len); }\n  }\n",
              cn, f->name, f->name);
    } else if (t->base == B_VECTOR) {
      bprintf(j, "  {\n    pte_fb_vec x = %s_%s(t);\n    if (x.present) {\n      pte_fb_json_key(sink, \"%s\");\n", cn, f->name, f->name);
      if (t->elem == B_STRING) {
        bprintf(j, "      pte_fb_json_vec_str(sink, x);\n");
      } else if (t->elem == B_NAMED && t->def->kind == K_TABLE) {
        bprintf(j, "      pte_fb_json_begin_array(sink);\n");
        bprintf(j, "      for (uint32_t i = 0; i < x.len; i++) %s_to_json(pte_fb_vec_table(x, i), sink, flags);\n", cname(t->def));
        bprintf(j, "      pte_fb_json_end_array(sink);\n");
      } else if (t->elem == B_NAMED && t->def->kind == K_STRUCT) {
        bprintf(j, "      pte_fb_json_begin_array(sink);\n");
        bprintf(j, "      for (uint32_t i = 0; i < x.len; i++) {\n");
        bprintf(j, "        const uint8_t *e = pte_fb_vec_elem(x, i, %u);\n", t->def->size);
        bprintf(j, "        if (e) %s_to_json(e, sink, flags); else pte_fb_json_null(sink);\n      }\n", cname(t->def));
        bprintf(j, "      pte_fb_json_end_array(sink);\n");
      } else if (t->elem == B_NAMED && t->def->kind == K_ENUM) {
        Def *e = t->def;
        unsigned es = base_size(e->base);
        bprintf(j, "      pte_fb_json_begin_array(sink);\n");
        bprintf(j, "      for (uint32_t i = 0; i < x.len; i++) {\n");
        bprintf(j, "        %s e = (%s)pte_fbgen_vec_scalar(x, i, %s);\n", base_ctype(e->base), base_ctype(e->base), base_kind(e->base));
        bprintf(j, "        %s_to_json(e, sink);\n      }\n", cname(e));
        bprintf(j, "      pte_fb_json_end_array(sink);\n");
        (void)es;
      } else {
        bprintf(j, "      pte_fb_json_vec(sink, x, %s);\n", base_kind(t->elem));
      }
      bprintf(j, "    }\n  }\n");
    } else if (t->def->kind == K_TABLE) {
      bprintf(j, "  {\n    pte_fb_table x = %s_%s(t);\n", cn, f->name);
      bprintf(j, "    if (pte_fb_table_present(x)) { pte_fb_json_key(sink, \"%s\"); %s_to_json(x, sink, flags); }\n  }\n", f->name,
              cname(t->def));
    } else if (t->def->kind == K_STRUCT) {
      bprintf(j, "  {\n    const uint8_t *x = %s_%s(t);\n", cn, f->name);
      bprintf(j, "    if (x) { pte_fb_json_key(sink, \"%s\"); %s_to_json(x, sink, flags); }\n  }\n", f->name, cname(t->def));
    } else { /* union */
      Def *u = t->def;
      bprintf(j, "  {\n    uint8_t tag = %s_%s_type(t);\n", cn, f->name);
      bprintf(j, "    if (all || pte_fb_field_pos(t, %d)) {\n", f->slot - 1);
      bprintf(j, "      pte_fb_json_key(sink, \"%s_type\");\n", f->name);
      bprintf(j, "      pte_fb_json_enum(sink, %s_name(tag), tag, 1);\n    }\n", cname(u));
      bprintf(j, "    pte_fb_table x = %s_%s(t);\n", cn, f->name);
      bprintf(j, "    if (tag != 0 && tag < %d && pte_fb_table_present(x)) {\n", u->nvals);
      bprintf(j, "      pte_fb_json_key(sink, \"%s\");\n      %s_to_json(tag, x, sink, flags);\n    }\n  }\n", f->name, cname(u));
    }
  }
  bprintf(j, "  pte_fb_json_end_object(sink);\n}\n\n");

  /* ---- descriptors */
  bprintf(j, "const pte_fbgen_field %s_fields[%d] = {\n", cn, n_desc(d) + 1);
  for (int i = 0; i < d->nfields; i++) {
    Field *f = &d->fields[i];
    char tn[512];
    type_name(&f->type, tn, sizeof tn);
    Buf fl = {0};
    bputs(&fl, "0");
    if (f->deprecated) bputs(&fl, " | PTE_FBGEN_F_DEPRECATED");
    if (f->required) bputs(&fl, " | PTE_FBGEN_F_REQUIRED");
    bool en = (f->type.base == B_NAMED && f->type.def->kind == K_ENUM) ||
              (f->type.base == B_VECTOR && f->type.elem == B_NAMED && f->type.def->kind == K_ENUM);
    if (en) bputs(&fl, " | PTE_FBGEN_F_ENUM");
    if (is_union_field(f)) {
      bprintf(j, "  {\"%s_type\", \"%s\", %d, 0, PTE_FBGEN_UNION_TYPE, PTE_FBGEN_NONE, %s},\n", f->name, tn, f->slot - 1, fl.p);
    }
    bprintf(j, "  {\"%s\", \"%s\", %d, 0, %s, %s, %s},\n", f->name, tn, f->slot, field_kind(f), elem_kind(f), fl.p);
    free(fl.p);
  }
  bprintf(j, "  {NULL, NULL, 0, 0, PTE_FBGEN_NONE, PTE_FBGEN_NONE, 0},\n};\n\n");
}

static void usage(void) {
  fprintf(stderr,
          "usage: pte_fbsgen --prefix P [--include-dir DIR]... --out-h FILE --out-c FILE [--out-json FILE] [--h-include NAME]\n"
          "                  schema.fbs\n"
          "  --out-json FILE  put the JSON printers and field/type descriptor tables in FILE instead of the\n"
          "                   --out-c file, so the verifier/accessor object does not carry them\n");
  exit(2);
}

int main(int argc, char **argv) {
  const char *prefix = NULL, *out_h = NULL, *out_c = NULL, *out_json = NULL, *input = NULL, *h_include = NULL;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "--prefix") == 0 && i + 1 < argc) prefix = argv[++i];
    else if ((strcmp(a, "--include-dir") == 0 || strcmp(a, "-I") == 0) && i + 1 < argc) {
      GROW(g_incdirs, g_nincdirs, g_capincdirs);
      g_incdirs[g_nincdirs++] = argv[++i];
    } else if (strcmp(a, "--out-h") == 0 && i + 1 < argc) out_h = argv[++i];
    else if (strcmp(a, "--out-c") == 0 && i + 1 < argc) out_c = argv[++i];
    else if (strcmp(a, "--out-json") == 0 && i + 1 < argc) out_json = argv[++i];
    else if (strcmp(a, "--h-include") == 0 && i + 1 < argc) h_include = argv[++i];
    else if (a[0] == '-') usage();
    else if (!input) input = a;
    else usage();
  }
  if (!prefix || !out_h || !out_c || !input) usage();
  for (const char *p = prefix; *p; p++)
    if (!is_ident_char((unsigned char)*p)) die("bad prefix %s", prefix);
  g_prefix = prefix;

  FileInfo *main_file = parse_file(input, true);
  resolve_all();

  /* the main file's root */
  Def *root = NULL;
  if (main_file->root) {
    root = lookup(main_file->root, main_file->root_ns);
    if (!root || root->kind != K_TABLE) die("%s: root_type %s is not a table", main_file->path, main_file->root);
  }

  char hinc[512];
  if (h_include) snprintf(hinc, sizeof hinc, "%s", h_include);
  else snprintf(hinc, sizeof hinc, "pte_gen/%s", path_base(out_h));
  char *stem = strip_ext(path_base(out_h));
  char *guard_id = upper_ident(stem);

  Buf h = {0}, c = {0}, jbuf = {0};
  Buf *j = out_json ? &jbuf : &c; /* JSON printers + descriptor tables */
  NameSet names = {0};
  bprintf(&h, "/* %s — generated by pte_fbsgen from %s. Do not edit; edit the schema and run `make regen-schema`.\n", path_base(out_h),
          path_base(input));
  bprintf(&h, " *\n * Naming (prefix %s): <P>_<Table>_<field>(t) reads a field (schema default when absent),\n", prefix);
  bprintf(&h, " * <P>_<Table>_<field>_SLOT is its vtable slot, <P>_<Table>_verify(v, pos) verifies a table,\n");
  bprintf(&h, " * <P>_<Table>_start/add_<field>/create_<field>/end build one, <P>_<Table>_to_json(t, sink, flags)\n");
  bprintf(&h, " * prints it like `flatc --strict-json --defaults-json`, <P>_<Enum>_<NAME> are enum values.\n");
  bprintf(&h, " * <P>_<Table>_<field>_at(b, pos) reads a field of the table at absolute position pos of a buffer\n");
  bprintf(&h, " * the verifier accepted, unchecked. Reader accessors are also macros of the same name.\n */\n");
  bprintf(&h, "#ifndef PTE_GEN_%s_H\n#define PTE_GEN_%s_H\n\n", guard_id, guard_id);
  bprintf(&h, "#include <math.h>\n#include <stdbool.h>\n#include <stddef.h>\n#include <stdint.h>\n\n");
  bprintf(&h, "#include \"format/fb_json.h\"\n#include \"format/flatbuf.h\"\n");
  for (int i = 0; i < g_nfiles; i++) {
    FileInfo *fi = g_files[i];
    if (fi->is_main) continue;
    bool used = false;
    for (int k = 0; k < g_ndefs; k++) used |= g_defs[k]->file == fi;
    if (used) bprintf(&h, "#include \"pte_gen/%s_gen.h\"\n", fi->stem);
  }
  bprintf(&h, "\n#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n");
  bprintf(&h, "typedef pte_fb_json_sink %s_json_sink;\n\n", prefix);
  if (main_file->ident) bprintf(&h, "#define %s_FILE_IDENTIFIER \"%s\"\n", prefix, main_file->ident);
  if (main_file->ext) bprintf(&h, "#define %s_FILE_EXTENSION \"%s\"\n", prefix, main_file->ext);
  unsigned max_align = 8;
  for (int i = 0; i < g_ndefs; i++) {
    Def *d = g_defs[i];
    if (d->kind == K_STRUCT && d->align > max_align) max_align = d->align;
    if (d->kind == K_TABLE)
      for (int k = 0; k < d->nfields; k++)
        if (d->fields[k].force_align > max_align) max_align = d->fields[k].force_align;
  }
  bprintf(&h, "/* Largest alignment the schema asks for (force_align, structs, 8-byte scalars). */\n");
  bprintf(&h, "#define %s_MAX_ALIGN %u\n\n", prefix, max_align);

  /* forward declarations of verifiers (unions reference them) */
  for (int i = 0; i < g_ndefs; i++) {
    Def *d = g_defs[i];
    if (!d->file->is_main || d->kind != K_TABLE) continue;
    bprintf(&h, "pte_status %s_verify(pte_fb_verifier *v, uint32_t pos);\n", cname(d));
  }
  bputs(&h, "\n");
  for (int i = 0; i < g_ndefs; i++) {
    Def *d = g_defs[i];
    if (!d->file->is_main) continue;
    if (d->kind == K_ENUM || d->kind == K_UNION) gen_enum_h(&h, d, &names);
  }
  for (int i = 0; i < g_ndefs; i++) {
    Def *d = g_defs[i];
    if (d->file->is_main && d->kind == K_STRUCT) gen_struct_h(&h, d, &names);
  }
  for (int i = 0; i < g_ndefs; i++) {
    Def *d = g_defs[i];
    if (d->file->is_main && d->kind == K_TABLE) gen_table_h(&h, d, &names);
  }
  /* schema-wide */
  int ntypes = 0;
  for (int i = 0; i < g_ndefs; i++)
    if (g_defs[i]->file->is_main && (g_defs[i]->kind == K_TABLE || g_defs[i]->kind == K_STRUCT)) ntypes++;
  bprintf(&h, "/* Every table and struct of the schema with its field descriptors. */\n");
  bprintf(&h, "#define %s_N_TYPES %d\nextern const pte_fbgen_type %s_types[%d];\n\n", prefix, ntypes, prefix, ntypes + 1);
  if (root) {
    bprintf(&h, "/* Root table of a buffer (%s). */\n", root->full);
    bprintf(&h, "static inline pte_fb_table %s_root(const uint8_t *buf, size_t size) { return pte_fb_root(buf, size); }\n", prefix);
    bprintf(&h, "/* Verifies a whole buffer: root offset%s and the %s table tree.\n", main_file->ident ? ", file identifier" : "",
            root->name);
    bprintf(&h, " * Returns PTE_OK or PTE_ERR_INVALID_PROGRAM (message in err). */\n");
    bprintf(&h, "pte_status %s_verify_root(const uint8_t *buf, size_t size, pte_error_info *err);\n", prefix);
    bprintf(&h, "/* Finishes a buffer whose root is a %s (with the file identifier, padded to %s_MAX_ALIGN). */\n", root->name, prefix);
    bprintf(&h, "static inline pte_status %s_finish(pte_fb_builder *b, pte_fb_ref root, const uint8_t **out, size_t *out_size) {\n", prefix);
    if (main_file->ident) bprintf(&h, "  return pte_fb_finish(b, root, %s_FILE_IDENTIFIER, %s_MAX_ALIGN, out, out_size);\n}\n\n", prefix, prefix);
    else bprintf(&h, "  return pte_fb_finish(b, root, NULL, %s_MAX_ALIGN, out, out_size);\n}\n\n", prefix);
  }
  bprintf(&h, "#ifdef __cplusplus\n}\n#endif\n#endif\n");

  /* ---- .c */
  bprintf(&c, "/* %s — generated by pte_fbsgen from %s. Do not edit (make regen-schema). */\n", path_base(out_c), path_base(input));
  bprintf(&c, "#include \"%s\"\n\n#include <string.h>\n\n#include \"format/fb_verify_desc.h\"\n\n", hinc);
  if (out_json) {
    bprintf(j, "/* %s — generated by pte_fbsgen from %s (JSON printers, descriptor tables). Do not edit (make regen-schema). */\n",
            path_base(out_json), path_base(input));
    bprintf(j, "#include \"%s\"\n\n#include <string.h>\n\n", hinc);
  }
  for (int i = 0; i < g_ndefs; i++) {
    Def *d = g_defs[i];
    if (d->file->is_main && (d->kind == K_ENUM || d->kind == K_UNION)) gen_enum_c(&c, j, d);
  }
  for (int i = 0; i < g_ndefs; i++) {
    Def *d = g_defs[i];
    if (d->file->is_main && d->kind == K_STRUCT) gen_struct_c(j, d);
  }
  for (int i = 0; i < g_ndefs; i++) {
    Def *d = g_defs[i];
    if (d->file->is_main && d->kind == K_TABLE) gen_table_c(&c, j, d);
  }
  bprintf(j, "const pte_fbgen_type %s_types[%d] = {\n", prefix, ntypes + 1);
  for (int i = 0; i < g_ndefs; i++) {
    Def *d = g_defs[i];
    if (!d->file->is_main) continue;
    if (d->kind == K_TABLE)
      bprintf(j, "  {\"%s\", %s_fields, %d, 0, 0, 0},\n", d->full, cname(d), n_desc(d));
    else if (d->kind == K_STRUCT)
      bprintf(j, "  {\"%s\", %s_fields, %d, 1, %u, %u},\n", d->full, cname(d), d->nfields, d->size, d->align);
  }
  bprintf(j, "  {NULL, NULL, 0, 0, 0, 0},\n};\n\n");
  if (root) {
    bprintf(&c, "pte_status %s_verify_root(const uint8_t *buf, size_t size, pte_error_info *err) {\n", prefix);
    bprintf(&c, "  pte_fb_verifier v;\n  uint32_t root = 0;\n  pte_fb_verifier_init(&v, buf, size, err);\n");
    if (main_file->ident)
      bprintf(&c, "  pte_status s = pte_fb_verify_root(&v, %s_FILE_IDENTIFIER, &root);\n", prefix);
    else
      bprintf(&c, "  pte_status s = pte_fb_verify_root(&v, NULL, &root);\n");
    bprintf(&c, "  if (s != PTE_OK) return s;\n  return %s_verify(&v, root);\n}\n", cname(root));
  }

  write_text(out_h, &h);
  write_text(out_c, &c);
  if (out_json) write_text(out_json, &jbuf);
  return 0;
}
