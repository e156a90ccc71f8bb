#define _POSIX_C_SOURCE 200809L
/* fbsgen_parse.c — lexer and parser of the supported .fbs subset (see fbsgen.c). */
#include "fbsgen.h"

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
bool parse_int_literal(const char *s, bool *neg, uint64_t *mag) {
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

FileInfo *parse_file(const char *path, bool is_main) {
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
