#define _POSIX_C_SOURCE 200809L
/* fbsgen_gen.c — the generators: header (constants, accessors, builders), verifiers, JSON printers,
 * field descriptors. */
#include "fbsgen.h"

/* ------------------------------------------------------------------ code generation */

const char *g_prefix;

static const char *def_prefix(const Def *d) {
  if (d->file->is_main) return g_prefix;
  if (!d->file->prefix)
    die("%s: no `// fbsgen: prefix NAME` comment; needed because %s is used from another schema", d->file->path, d->name);
  return d->file->prefix;
}

/* "P_Name" */
const char *cname(const Def *cd) {
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

char *upper_ident(const char *s) {
  char *r = xstrdup(s);
  for (char *p = r; *p; p++) *p = isalnum((unsigned char)*p) ? (char)toupper((unsigned char)*p) : '_';
  return r;
}


static void claim(NameSet *ns, const char *name, const char *what) {
  for (int i = 0; i < ns->len; i++)
    if (strcmp(ns->n[i], name) == 0) die("generated name %s (%s) collides with another generated name", name, what);
  GROW(ns->n, ns->len, ns->cap);
  ns->n[ns->len++] = xstrdup(name);
}

void gen_enum_h(Buf *h, Def *d, NameSet *names) {
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

void gen_enum_c(Buf *c, Buf *j, Def *d) {
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

void gen_struct_h(Buf *h, Def *d, NameSet *names) {
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

void gen_struct_c(Buf *c, Def *d) {
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
int n_desc(const Def *d) {
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

void gen_table_h(Buf *h, Def *d, NameSet *names) {
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

void gen_table_c(Buf *c, Buf *j, Def *d) {
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
