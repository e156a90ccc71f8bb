#define _POSIX_C_SOURCE 200809L
/* fbsgen_layout.c — name resolution, vtable slots, struct layout, default values. */
#include "fbsgen.h"

/* ------------------------------------------------------------------ resolution & layout */

Def *lookup(const char *name, const char *ns) {
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

void resolve_all(void) {
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
int scalar_base(const Type *t) {
  if (base_is_scalar(t->base)) return t->base;
  if (t->base == B_NAMED && t->def->kind == K_ENUM) return t->def->base;
  return B_NONE;
}

/* C literal for an integer of base b with sign/magnitude. */
void int_literal(char *out, size_t n, int b, bool neg, uint64_t mag) {
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
void default_expr(const Def *owner, const Field *f, char *out, size_t n) {
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
