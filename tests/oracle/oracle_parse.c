/* tests/oracle/oracle_parse.c — reading pte_oracle case tables (oracle.h), and the element
 * conversions to and from memory the driver uses (its own code, no kernel utility). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oracle.h"
#include "pte/tensor.h"

/* ---- element conversion (independent of the kernels) ----------------------------------------- */

bool or_is_float(int dt) {
  return dt == PTE_DTYPE_HALF || dt == PTE_DTYPE_FLOAT || dt == PTE_DTYPE_DOUBLE || dt == PTE_DTYPE_BFLOAT16 ||
         dt == PTE_DTYPE_COMPLEX_FLOAT;
}
/* complex64 values are written as (re, im) pairs: two doubles per element */
static size_t or_vals_per_elem(int dt) { return dt == PTE_DTYPE_COMPLEX_FLOAT ? 2 : 1; }

size_t or_esize(int dt) {
  switch (dt) {
    case PTE_DTYPE_BYTE: case PTE_DTYPE_CHAR: case PTE_DTYPE_BOOL: return 1;
    case PTE_DTYPE_SHORT: case PTE_DTYPE_HALF: case PTE_DTYPE_BFLOAT16: case PTE_DTYPE_UINT16: return 2;
    case PTE_DTYPE_INT: case PTE_DTYPE_FLOAT: case PTE_DTYPE_UINT32: return 4;
    case PTE_DTYPE_LONG: case PTE_DTYPE_DOUBLE: case PTE_DTYPE_UINT64: case PTE_DTYPE_COMPLEX_FLOAT: return 8;
    default: return 0;
  }
}

static double or_half_to_double(uint16_t h) {
  const int s = h >> 15, e = (h >> 10) & 31, m = h & 1023;
  double v;
  if (e == 0) v = ldexp((double)m, -24);
  else if (e == 31) v = m ? NAN : INFINITY;
  else v = ldexp((double)(m | 1024), e - 25);
  return s ? -v : v;
}

/* Values in the tables are exactly representable in half, so this conversion only has to be exact
 * for those (and produce inf / NaN). */
static uint16_t or_double_to_half(double x) {
  uint16_t sign = signbit(x) ? 0x8000u : 0;
  double a = fabs(x);
  if (isnan(x)) return 0x7e00u;
  if (isinf(a) || a >= 65520.0) return (uint16_t)(sign | 0x7c00u);
  if (a < ldexp(1.0, -14)) return (uint16_t)(sign | (uint16_t)lrint(a * ldexp(1.0, 24)));
  int e;
  double f = frexp(a, &e); /* a = f * 2^e, f in [0.5, 1) */
  long mant = lrint(f * 2048.0); /* 11 bits incl. the implicit one */
  if (mant == 2048) { mant = 1024; e++; }
  const int be = e - 1 + 15;
  if (be >= 31) return (uint16_t)(sign | 0x7c00u);
  return (uint16_t)(sign | (uint16_t)(be << 10) | (uint16_t)(mant & 1023));
}

void or_store(void *base, size_t off, int dt, double d, int64_t i) {
  uint8_t *p = (uint8_t *)base + off * or_esize(dt);
  switch (dt) {
    case PTE_DTYPE_BYTE: { uint8_t x = (uint8_t)i; memcpy(p, &x, 1); break; }
    case PTE_DTYPE_CHAR: { int8_t x = (int8_t)i; memcpy(p, &x, 1); break; }
    case PTE_DTYPE_BOOL: { uint8_t x = i ? 1 : 0; memcpy(p, &x, 1); break; }
    case PTE_DTYPE_SHORT: { int16_t x = (int16_t)i; memcpy(p, &x, 2); break; }
    case PTE_DTYPE_UINT16: { uint16_t x = (uint16_t)i; memcpy(p, &x, 2); break; }
    case PTE_DTYPE_INT: { int32_t x = (int32_t)i; memcpy(p, &x, 4); break; }
    case PTE_DTYPE_UINT32: { uint32_t x = (uint32_t)i; memcpy(p, &x, 4); break; }
    case PTE_DTYPE_LONG: case PTE_DTYPE_UINT64: memcpy(p, &i, 8); break;
    case PTE_DTYPE_FLOAT: { float x = (float)d; memcpy(p, &x, 4); break; }
    case PTE_DTYPE_DOUBLE: memcpy(p, &d, 8); break;
    case PTE_DTYPE_HALF: { uint16_t x = or_double_to_half(d); memcpy(p, &x, 2); break; }
    case PTE_DTYPE_BFLOAT16: {
      float f = (float)d; /* table values are exact bfloat16 values */
      uint32_t u;
      memcpy(&u, &f, 4);
      uint16_t x = (uint16_t)(u >> 16);
      if (isnan(f)) x = 0x7fc0u;
      memcpy(p, &x, 2);
      break;
    }
    default: break;
  }
}

double or_load_d(const void *base, size_t off, int dt) {
  const uint8_t *p = (const uint8_t *)base + off * or_esize(dt);
  switch (dt) {
    case PTE_DTYPE_FLOAT: { float x; memcpy(&x, p, 4); return x; }
    case PTE_DTYPE_DOUBLE: { double x; memcpy(&x, p, 8); return x; }
    case PTE_DTYPE_HALF: { uint16_t x; memcpy(&x, p, 2); return or_half_to_double(x); }
    case PTE_DTYPE_BFLOAT16: {
      uint16_t x;
      memcpy(&x, p, 2);
      uint32_t u = (uint32_t)x << 16;
      float f;
      memcpy(&f, &u, 4);
      return f;
    }
    default: return 0;
  }
}

int64_t or_load_i(const void *base, size_t off, int dt) {
  const uint8_t *p = (const uint8_t *)base + off * or_esize(dt);
  switch (dt) {
    case PTE_DTYPE_BYTE: return *p;
    case PTE_DTYPE_CHAR: return (int8_t)*p;
    case PTE_DTYPE_BOOL: return *p; /* anything but 0/1 is reported as such */
    case PTE_DTYPE_SHORT: { int16_t x; memcpy(&x, p, 2); return x; }
    case PTE_DTYPE_UINT16: { uint16_t x; memcpy(&x, p, 2); return x; }
    case PTE_DTYPE_INT: { int32_t x; memcpy(&x, p, 4); return x; }
    case PTE_DTYPE_UINT32: { uint32_t x; memcpy(&x, p, 4); return x; }
    case PTE_DTYPE_LONG: case PTE_DTYPE_UINT64: { int64_t x; memcpy(&x, p, 8); return x; }
    default: return 0;
  }
}

/* Memory offset (elements) of logical row-major index li for sizes + strides. */
size_t or_offset(const int32_t *sizes, const int32_t *strides, int32_t dim, size_t li) {
  size_t off = 0;
  for (int32_t d = dim - 1; d >= 0; d--) {
    const size_t s = (size_t)sizes[d];
    off += (li % s) * (size_t)strides[d];
    li /= s;
  }
  return off;
}

void or_strides(const int32_t *sizes, const uint8_t *order, int32_t dim, int32_t *strides) {
  int64_t s = 1;
  for (int32_t k = dim - 1; k >= 0; k--) {
    strides[order[k]] = (int32_t)s;
    s *= sizes[order[k]] > 0 ? sizes[order[k]] : 1;
  }
}

/* ---- parsing ------------------------------------------------------------------------------- */


bool g_parse_ok;

void or_perr(or_parser *p, const char *what) {
  fprintf(stderr, "%s:%d: parse error: %s\n", p->path, p->line, what);
  g_parse_ok = false;
}

const char *or_next(or_parser *p) {
  if (p->pos >= p->ntok) {
    or_perr(p, "missing token");
    return "0";
  }
  return p->tok[p->pos++];
}

static int64_t or_next_i(or_parser *p) {
  const char *t = or_next(p);
  char *end;
  errno = 0;
  long long v = strtoll(t, &end, 10);
  if (*end || errno) {
    /* uint64 values above INT64_MAX */
    unsigned long long u = strtoull(t, &end, 10);
    if (*end || t[0] == '-') or_perr(p, "bad integer");
    return (int64_t)u;
  }
  return (int64_t)v;
}

double or_next_d(or_parser *p) {
  const char *t = or_next(p);
  char *end;
  double v = strtod(t, &end);
  if (*end) or_perr(p, "bad number");
  return v;
}

int or_find(or_case *c, const char *name) {
  for (size_t i = 0; i < c->nv; i++)
    if (strcmp(c->v[i].name, name) == 0) return (int)i;
  return -1;
}

static void or_parse_shape(or_parser *p, int32_t *dim, int32_t *sizes, size_t *numel) {
  int64_t d = or_next_i(p);
  if (d < 0 || d > 16) {
    or_perr(p, "bad rank");
    d = 0;
  }
  *dim = (int32_t)d;
  *numel = 1;
  for (int32_t k = 0; k < *dim; k++) {
    int64_t s = or_next_i(p);
    if (s < 0 || s > (1 << 24)) or_perr(p, "bad size");
    sizes[k] = (int32_t)(s < 0 ? 0 : s);
    *numel *= (size_t)sizes[k];
  }
  if (*numel > (1u << 24)) or_perr(p, "tensor too large");
}

static void or_parse_data(or_parser *p, int dtype, size_t numel, double **dv, int64_t **iv) {
  numel *= or_vals_per_elem(dtype);
  if (or_is_float(dtype)) {
    *dv = (double *)calloc(numel ? numel : 1, sizeof(double));
    for (size_t k = 0; k < numel; k++) (*dv)[k] = or_next_d(p);
  } else {
    *iv = (int64_t *)calloc(numel ? numel : 1, sizeof(int64_t));
    for (size_t k = 0; k < numel; k++) (*iv)[k] = or_next_i(p);
  }
}

void or_parse_value(or_parser *p, or_case *c) {
  if (c->nv >= OR_MAX_VALUES) {
    or_perr(p, "too many values");
    return;
  }
  or_value *v = &c->v[c->nv];
  memset(v, 0, sizeof *v);
  snprintf(v->name, sizeof v->name, "%s", or_next(p));
  const char *k = or_next(p);
  if (strcmp(k, "T") == 0) {
    v->kind = OV_TENSOR;
    v->dtype = (int)or_next_i(p);
    if (or_esize(v->dtype) == 0) or_perr(p, "bad dtype");
    or_parse_shape(p, &v->dim, v->sizes, &v->numel);
    for (int32_t d = 0; d < v->dim; d++) v->order[d] = (uint8_t)or_next_i(p);
    const char *role = or_next(p);
    if (strcmp(role, "in") == 0) v->role = OR_IN;
    else if (strcmp(role, "out") == 0) v->role = OR_OUT;
    else if (strcmp(role, "const") == 0) v->role = OR_CONST;
    else or_perr(p, "bad tensor role");
    if (v->role != OR_OUT) {
      or_parse_data(p, v->dtype, v->numel, &v->dv, &v->iv);
      int32_t strides[16];
      or_strides(v->sizes, v->order, v->dim, strides);
      size_t esz = or_esize(v->dtype);
      v->bytes = calloc(v->numel ? v->numel : 1, esz ? esz : 1);
      for (size_t li = 0; li < v->numel; li++) {
        const size_t off = or_offset(v->sizes, strides, v->dim, li);
        if (v->dtype == PTE_DTYPE_COMPLEX_FLOAT) {
          const float re = (float)v->dv[2 * li], im = (float)v->dv[2 * li + 1];
          memcpy((uint8_t *)v->bytes + off * 8, &re, 4);
          memcpy((uint8_t *)v->bytes + off * 8 + 4, &im, 4);
        } else {
          or_store(v->bytes, off, v->dtype, v->dv ? v->dv[li] : 0, v->iv ? v->iv[li] : 0);
        }
      }
    }
  } else if (strcmp(k, "I") == 0) {
    v->kind = OV_INT;
    v->i = or_next_i(p);
  } else if (strcmp(k, "D") == 0) {
    v->kind = OV_DOUBLE;
    v->d = or_next_d(p);
  } else if (strcmp(k, "B") == 0) {
    v->kind = OV_BOOL;
    v->i = or_next_i(p) != 0;
  } else if (strcmp(k, "N") == 0) {
    v->kind = OV_NONE;
  } else if (strcmp(k, "S") == 0) {
    v->kind = OV_STRING;
    snprintf(v->str, sizeof v->str, "%s", or_next(p));
  } else if (!strcmp(k, "IL") || !strcmp(k, "DL") || !strcmp(k, "BL") || !strcmp(k, "TL") ||
             !strcmp(k, "OTL")) {
    v->kind = !strcmp(k, "IL") ? OV_IL : !strcmp(k, "DL") ? OV_DL : !strcmp(k, "BL") ? OV_BL
              : !strcmp(k, "TL") ? OV_TL : OV_OTL;
    int64_t n = or_next_i(p);
    if (n < 0 || n > OR_MAX_LIST) {
      or_perr(p, "bad list length");
      n = 0;
    }
    v->n = (size_t)n;
    for (size_t j = 0; j < v->n; j++) {
      if (v->kind == OV_IL || v->kind == OV_BL) v->ilist[j] = or_next_i(p);
      else if (v->kind == OV_DL) v->dlist[j] = or_next_d(p);
      else {
        const char *r = or_next(p);
        v->refs[j] = strcmp(r, "-") == 0 ? -1 : or_find(c, r);
        if (v->refs[j] < 0 && strcmp(r, "-") != 0) or_perr(p, "unknown list item");
        if (v->refs[j] >= 0 && c->v[v->refs[j]].kind != OV_TENSOR) or_perr(p, "list item is not a tensor");
      }
    }
  } else {
    or_perr(p, "unknown value kind");
  }
  if (or_find(c, v->name) >= 0) or_perr(p, "duplicate value name");
  c->nv++;
}

void or_parse_want(or_parser *p, or_case *c) {
  if (c->nwant >= OR_MAX_WANT) {
    or_perr(p, "too many wants");
    return;
  }
  int64_t k = or_next_i(p);
  if (k != (int64_t)c->nwant) or_perr(p, "wants must be numbered 0, 1, ...");
  or_want *w = &c->want[c->nwant++];
  memset(w, 0, sizeof *w);
  const char *kind = or_next(p);
  w->check = 'V';
  if (strcmp(kind, "T") == 0 || strcmp(kind, "X") == 0 || strcmp(kind, "R") == 0) {
    w->kind = OV_TENSOR;
    w->check = kind[0] == 'T' ? 'V' : kind[0];
    w->dtype = (int)or_next_i(p);
    if (or_esize(w->dtype) == 0 || w->dtype == PTE_DTYPE_COMPLEX_FLOAT) or_perr(p, "bad dtype");
    or_parse_shape(p, &w->dim, w->sizes, &w->numel);
    if (w->check == 'V') or_parse_data(p, w->dtype, w->numel, &w->dv, &w->iv);
    if (w->check == 'R') {
      w->lo = or_next_d(p);
      w->hi = or_next_d(p);
    }
  } else if (strcmp(kind, "I") == 0) {
    w->kind = OV_INT;
    w->i = or_next_i(p);
  } else if (strcmp(kind, "D") == 0) {
    w->kind = OV_DOUBLE;
    w->d = or_next_d(p);
  } else if (strcmp(kind, "B") == 0) {
    w->kind = OV_BOOL;
    w->i = or_next_i(p) != 0;
  } else {
    or_perr(p, "unknown want kind");
  }
}

void or_free_case(or_case *c) {
  for (size_t i = 0; i < c->nv; i++) {
    free(c->v[i].dv);
    free(c->v[i].iv);
    free(c->v[i].bytes);
  }
  for (size_t i = 0; i < c->nwant; i++) {
    free(c->want[i].dv);
    free(c->want[i].iv);
  }
  c->nv = c->nwant = 0;
}
