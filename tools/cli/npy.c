/* numpy .npy reading and writing for the CLI (see npy.h). */
#define _POSIX_C_SOURCE 200809L
#include "npy.h"
#include "module/host.h"
#include "pte/data_writer.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int npy_err(char *err, size_t cap, const char *fmt, ...) {
  if (err && cap) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, cap, fmt, ap);
    va_end(ap);
  }
  return -1;
}

/* ------------------------------------------------------------------ dtypes */
typedef struct npy_type {
  char kind; /* numpy kind letter */
  unsigned size;
  int dtype;
} npy_type;

static const npy_type k_types[] = {
    {'f', 2, PTE_DTYPE_HALF},          {'f', 4, PTE_DTYPE_FLOAT},          {'f', 8, PTE_DTYPE_DOUBLE},
    {'i', 1, PTE_DTYPE_CHAR},          {'i', 2, PTE_DTYPE_SHORT},          {'i', 4, PTE_DTYPE_INT},
    {'i', 8, PTE_DTYPE_LONG},          {'u', 1, PTE_DTYPE_BYTE},           {'u', 2, PTE_DTYPE_UINT16},
    {'u', 4, PTE_DTYPE_UINT32},        {'u', 8, PTE_DTYPE_UINT64},         {'b', 1, PTE_DTYPE_BOOL},
    {'c', 8, PTE_DTYPE_COMPLEX_FLOAT}, {'c', 16, PTE_DTYPE_COMPLEX_DOUBLE}, {'V', 2, PTE_DTYPE_BFLOAT16},
};

const char *pte_npy_descr(int dtype) {
  switch (dtype) {
    case PTE_DTYPE_HALF: return "<f2";
    case PTE_DTYPE_FLOAT: return "<f4";
    case PTE_DTYPE_BFLOAT16: return "<f4"; /* widened on write */
    case PTE_DTYPE_DOUBLE: return "<f8";
    case PTE_DTYPE_CHAR: return "|i1";
    case PTE_DTYPE_SHORT: return "<i2";
    case PTE_DTYPE_INT: return "<i4";
    case PTE_DTYPE_LONG: return "<i8";
    case PTE_DTYPE_BYTE: return "|u1";
    case PTE_DTYPE_UINT16: return "<u2";
    case PTE_DTYPE_UINT32: return "<u4";
    case PTE_DTYPE_UINT64: return "<u8";
    case PTE_DTYPE_BOOL: return "|b1";
    case PTE_DTYPE_COMPLEX_FLOAT: return "<c8";
    case PTE_DTYPE_COMPLEX_DOUBLE: return "<c16";
    default: return NULL;
  }
}

bool pte_npy_is_npy(const void *buf, size_t len) {
  return buf && len >= 6 && memcmp(buf, "\x93NUMPY", 6) == 0;
}

/* ------------------------------------------------------------------ conversions */
float pte_npy_bf16_to_f32(uint16_t v) {
  uint32_t u = (uint32_t)v << 16;
  float f;
  memcpy(&f, &u, 4);
  return f;
}

uint16_t pte_npy_f32_to_bf16(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  if ((u & 0x7f800000u) == 0x7f800000u && (u & 0x007fffffu)) return (uint16_t)((u >> 16) | 0x40); /* quiet NaN */
  u += 0x7fffu + ((u >> 16) & 1u);
  return (uint16_t)(u >> 16);
}

float pte_npy_f16_to_f32(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000u) << 16, exp = (h >> 10) & 0x1fu, man = h & 0x3ffu, u;
  if (exp == 0) {
    if (man == 0) {
      u = sign;
    } else { /* subnormal: normalise */
      exp = 127 - 15 + 1;
      while (!(man & 0x400u)) {
        man <<= 1;
        exp--;
      }
      man &= 0x3ffu;
      u = sign | (exp << 23) | (man << 13);
    }
  } else if (exp == 31) {
    u = sign | 0x7f800000u | (man << 13);
  } else {
    u = sign | ((exp + 127 - 15) << 23) | (man << 13);
  }
  float f;
  memcpy(&f, &u, 4);
  return f;
}

uint16_t pte_npy_f32_to_f16(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  uint32_t sign = (u >> 16) & 0x8000u;
  uint32_t exp = (u >> 23) & 0xffu, man = u & 0x7fffffu;
  if (exp == 0xff) return (uint16_t)(sign | 0x7c00u | (man ? 0x200u : 0)); /* inf / NaN */
  int32_t e = (int32_t)exp - 127 + 15;
  if (e >= 31) return (uint16_t)(sign | 0x7c00u); /* overflow -> inf */
  if (e <= 0) {                                  /* subnormal or zero */
    if (e < -10) return (uint16_t)sign;
    man |= 0x800000u;
    uint32_t shift = (uint32_t)(14 - e);
    uint32_t h = man >> shift, rem = man & ((1u << shift) - 1), half = 1u << (shift - 1);
    if (rem > half || (rem == half && (h & 1u))) h++;
    return (uint16_t)(sign | h);
  }
  uint32_t h = ((uint32_t)e << 10) | (man >> 13), rem = man & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) h++; /* may carry into the exponent: still correct */
  return (uint16_t)(sign | h);
}

void pte_npy_copy_strided(void *dst, const int64_t *dst_strides, const void *src, const int64_t *src_strides,
                          const int32_t *sizes, int32_t dim, size_t es) {
  pte_host_copy_strided(dst, dst_strides, src, src_strides, sizes, dim, es);
}

static void *alloc64(size_t n) {
  void *p = NULL;
  if (posix_memalign(&p, 64, n ? n : 1) != 0) return NULL;
  return p;
}

/* ------------------------------------------------------------------ header parsing */
typedef struct hp {
  const char *s, *end;
} hp;

static void hp_ws(hp *p) {
  while (p->s < p->end && (*p->s == ' ' || *p->s == '\t' || *p->s == '\n' || *p->s == '\r')) p->s++;
}

static bool hp_char(hp *p, char c) {
  hp_ws(p);
  if (p->s < p->end && *p->s == c) {
    p->s++;
    return true;
  }
  return false;
}

/* A Python string literal ('...' or "...", no escapes needed for npy headers) into buf. */
static bool hp_string(hp *p, char *buf, size_t cap) {
  hp_ws(p);
  if (p->s >= p->end || (*p->s != '\'' && *p->s != '"')) return false;
  char q = *p->s++;
  size_t n = 0;
  while (p->s < p->end && *p->s != q) {
    if (n + 1 < cap) buf[n++] = *p->s;
    p->s++;
  }
  if (p->s >= p->end) return false;
  p->s++;
  buf[n] = 0;
  return true;
}

static bool hp_word(hp *p, const char *w) {
  hp_ws(p);
  size_t n = strlen(w);
  if ((size_t)(p->end - p->s) >= n && memcmp(p->s, w, n) == 0) {
    p->s += n;
    return true;
  }
  return false;
}

int pte_npy_parse(const void *buf, size_t len, pte_npy_array *out, char *err, size_t errsz) {
  memset(out, 0, sizeof *out);
  const uint8_t *b = buf;
  if (!pte_npy_is_npy(buf, len)) return npy_err(err, errsz, "not a .npy file (no \\x93NUMPY magic)");
  if (len < 10) return npy_err(err, errsz, "truncated .npy header");
  int major = b[6], minor = b[7];
  size_t hlen, hoff;
  if (major == 1) {
    hlen = (size_t)b[8] | ((size_t)b[9] << 8);
    hoff = 10;
  } else if (major == 2 || major == 3) {
    if (len < 12) return npy_err(err, errsz, "truncated .npy header");
    hlen = (size_t)b[8] | ((size_t)b[9] << 8) | ((size_t)b[10] << 16) | ((size_t)b[11] << 24);
    hoff = 12;
  } else {
    return npy_err(err, errsz, "unsupported .npy format version %d.%d", major, minor);
  }
  if (hlen > len - hoff) return npy_err(err, errsz, "truncated .npy header (%zu header bytes declared)", hlen);
  out->major = major;
  out->minor = minor;
  hp p = {(const char *)b + hoff, (const char *)b + hoff + hlen};
  char descr[64] = "";
  bool have_descr = false, have_fortran = false, have_shape = false, fortran = false;
  int64_t shape[PTE_MAX_RANK + 1];
  int32_t dim = 0;
  if (!hp_char(&p, '{')) return npy_err(err, errsz, ".npy header is not a dict literal");
  for (;;) {
    if (hp_char(&p, '}')) break;
    char key[64];
    if (!hp_string(&p, key, sizeof key) || !hp_char(&p, ':')) return npy_err(err, errsz, "malformed .npy header");
    if (!strcmp(key, "descr")) {
      hp_ws(&p);
      if (p.s < p.end && *p.s == '[') return npy_err(err, errsz, "structured dtypes are not supported");
      if (!hp_string(&p, descr, sizeof descr)) return npy_err(err, errsz, "malformed .npy descr");
      have_descr = true;
    } else if (!strcmp(key, "fortran_order")) {
      if (hp_word(&p, "True")) fortran = true;
      else if (hp_word(&p, "False")) fortran = false;
      else return npy_err(err, errsz, "malformed .npy fortran_order");
      have_fortran = true;
    } else if (!strcmp(key, "shape")) {
      if (!hp_char(&p, '(')) return npy_err(err, errsz, "malformed .npy shape");
      for (;;) {
        if (hp_char(&p, ')')) break;
        hp_ws(&p);
        if (dim >= PTE_MAX_RANK) return npy_err(err, errsz, "rank above %d is not supported", PTE_MAX_RANK);
        const char *start = p.s;
        int64_t v = 0;
        while (p.s < p.end && *p.s >= '0' && *p.s <= '9') {
          if (v > INT32_MAX) return npy_err(err, errsz, "shape entry out of range (above %d)", INT32_MAX);
          v = v * 10 + (*p.s++ - '0');
        }
        if (p.s == start) return npy_err(err, errsz, "malformed .npy shape");
        if (p.s < p.end && *p.s == 'L') p.s++; /* Python 2 long */
        if (v > INT32_MAX) return npy_err(err, errsz, "shape entry out of range (above %d)", INT32_MAX);
        shape[dim++] = v;
        if (hp_char(&p, ',')) continue;
        if (hp_char(&p, ')')) break;
        return npy_err(err, errsz, "malformed .npy shape");
      }
      have_shape = true;
    } else {
      return npy_err(err, errsz, "unexpected key '%s' in .npy header", key);
    }
    if (hp_char(&p, ',')) continue;
    if (hp_char(&p, '}')) break;
    return npy_err(err, errsz, "malformed .npy header");
  }
  if (!have_descr || !have_fortran || !have_shape)
    return npy_err(err, errsz, ".npy header lacks %s", !have_descr ? "descr" : !have_fortran ? "fortran_order" : "shape");

  /* descr: byte order + kind + size */
  const char *d = descr;
  char order = '|';
  if (*d == '<' || *d == '>' || *d == '|' || *d == '=') order = *d++;
  char kind = *d ? *d++ : 0;
  char *e;
  long sz = strtol(d, &e, 10);
  if (e == d || *e) return npy_err(err, errsz, "unsupported .npy dtype '%s'", descr);
  if (kind == 'O') return npy_err(err, errsz, "object arrays (pickles) are not supported");
  const npy_type *t = NULL;
  for (size_t i = 0; i < sizeof k_types / sizeof k_types[0]; i++)
    if (k_types[i].kind == kind && (long)k_types[i].size == sz) t = &k_types[i];
  if (!t) return npy_err(err, errsz, "unsupported .npy dtype '%s'", descr);
  if (order == '>' && t->size > 1)
    return npy_err(err, errsz, "big-endian .npy data ('%s') is not supported: save it little-endian (e.g. arr.astype('<%c%ld'))",
                   descr, kind == 'V' ? 'f' : kind, sz);

  size_t numel = 1;
  for (int32_t i = 0; i < dim; i++) {
    if (shape[i] && numel > SIZE_MAX / (size_t)shape[i]) return npy_err(err, errsz, "shape too large");
    numel *= (size_t)shape[i];
  }
  if (numel > SIZE_MAX / t->size) return npy_err(err, errsz, "shape too large");
  size_t nbytes = numel * t->size, doff = hoff + hlen;
  if (len - doff != nbytes)
    return npy_err(err, errsz, "%zu data bytes in the file, shape and dtype '%s' need %zu", len - doff, descr, nbytes);

  out->dtype = t->dtype;
  out->dim = dim;
  for (int32_t i = 0; i < dim; i++) out->sizes[i] = (int32_t)shape[i];
  out->fortran_order = fortran;
  out->nbytes = nbytes;
  if (nbytes) {
    out->data = alloc64(nbytes);
    if (!out->data) return npy_err(err, errsz, "out of memory (%zu bytes)", nbytes);
    const uint8_t *src = b + doff;
    if (fortran && dim > 1) {
      int64_t fs[PTE_MAX_RANK], cs[PTE_MAX_RANK];
      int64_t acc = 1;
      for (int32_t i = 0; i < dim; i++) {
        fs[i] = acc;
        acc *= out->sizes[i];
      }
      acc = 1;
      for (int32_t i = dim - 1; i >= 0; i--) {
        cs[i] = acc;
        acc *= out->sizes[i];
      }
      pte_npy_copy_strided(out->data, cs, src, fs, out->sizes, dim, t->size);
    } else {
      memcpy(out->data, src, nbytes);
    }
  }
  return 0;
}

int pte_npy_load(const char *path, pte_npy_array *out, char *err, size_t errsz) {
  memset(out, 0, sizeof *out);
  FILE *f = fopen(path, "rb");
  if (!f) return npy_err(err, errsz, "cannot open: %s", strerror(errno));
  size_t cap = 1 << 16, len = 0;
  uint8_t *buf = malloc(cap);
  if (!buf) {
    fclose(f);
    return npy_err(err, errsz, "out of memory");
  }
  size_t n;
  while ((n = fread(buf + len, 1, cap - len, f)) > 0) {
    len += n;
    if (len == cap) {
      uint8_t *nb = realloc(buf, cap * 2);
      if (!nb) {
        free(buf);
        fclose(f);
        return npy_err(err, errsz, "out of memory");
      }
      buf = nb;
      cap *= 2;
    }
  }
  bool rerr = ferror(f) != 0;
  fclose(f);
  if (rerr) {
    free(buf);
    return npy_err(err, errsz, "read error");
  }
  int r = pte_npy_parse(buf, len, out, err, errsz);
  free(buf);
  return r;
}

void pte_npy_free(pte_npy_array *a) {
  if (!a) return;
  free(a->data);
  a->data = NULL;
  a->nbytes = 0;
}

/* ------------------------------------------------------------------ writing */
void *pte_npy_encode(int dtype, const int32_t *sizes, int32_t dim, const void *data, size_t *out_len, char *err,
                     size_t errsz) {
  const char *descr = pte_npy_descr(dtype);
  if (!descr) {
    npy_err(err, errsz, "dtype %s has no numpy equivalent", pte_dtype_name(dtype));
    return NULL;
  }
  if (dim < 0 || dim > PTE_MAX_RANK) {
    npy_err(err, errsz, "invalid rank %d", (int)dim);
    return NULL;
  }
  size_t numel = 1;
  for (int32_t i = 0; i < dim; i++) {
    if (sizes[i] < 0) {
      npy_err(err, errsz, "negative size");
      return NULL;
    }
    numel *= (size_t)sizes[i];
  }
  bool widen = dtype == PTE_DTYPE_BFLOAT16;
  size_t es = widen ? 4 : pte_dtype_size(dtype);
  size_t nbytes = numel * es;
  char shape[PTE_MAX_RANK * 13 + 8];
  size_t sl = 0;
  shape[sl++] = '(';
  for (int32_t i = 0; i < dim; i++) sl += (size_t)snprintf(shape + sl, sizeof shape - sl, "%s%d", i ? ", " : "", sizes[i]);
  if (dim == 1) shape[sl++] = ',';
  shape[sl++] = ')';
  shape[sl] = 0;
  char dict[512];
  int dl = snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': %s, }", descr, shape);
  /* total = preamble + header (incl. trailing newline), padded to a multiple of 64 */
  size_t pre = 10, hlen = (size_t)dl + 1;
  size_t total_head = (pre + hlen + 63) / 64 * 64;
  int major = 1;
  if (total_head - pre > 65535) {
    major = 2;
    pre = 12;
    total_head = (pre + hlen + 63) / 64 * 64;
  }
  hlen = total_head - pre;
  uint8_t *buf = malloc(total_head + nbytes);
  if (!buf) {
    npy_err(err, errsz, "out of memory");
    return NULL;
  }
  memcpy(buf, "\x93NUMPY", 6);
  buf[6] = (uint8_t)major;
  buf[7] = 0;
  if (major == 1) {
    buf[8] = (uint8_t)(hlen & 0xff);
    buf[9] = (uint8_t)(hlen >> 8);
  } else {
    for (int i = 0; i < 4; i++) buf[8 + i] = (uint8_t)(hlen >> (8 * i));
  }
  memcpy(buf + pre, dict, (size_t)dl);
  memset(buf + pre + dl, ' ', hlen - (size_t)dl - 1);
  buf[total_head - 1] = '\n';
  if (widen) {
    const uint8_t *s = data;
    for (size_t i = 0; i < numel; i++) {
      uint16_t v;
      memcpy(&v, s + 2 * i, 2);
      float f = pte_npy_bf16_to_f32(v);
      memcpy(buf + total_head + 4 * i, &f, 4);
    }
  } else if (nbytes) {
    memcpy(buf + total_head, data, nbytes);
  }
  *out_len = total_head + nbytes;
  return buf;
}

/* Writes bytes to path through the file writer: a temp file renamed into place, so an interrupted
 * run leaves either the old file or the new one, never half of it (and no temp file: signal
 * cleanup). */
int pte_cli_write_atomic(const char *path, const void *data, size_t len, char *err, size_t errsz) {
  pte_file_writer w;
  pte_file_writer_options o;
  pte_file_writer_options_init(&o);
  o.no_fsync = true;
  o.lock = PTE_FILE_LOCK_NONE;
  pte_error_info e;
  memset(&e, 0, sizeof e);
  pte_status s = pte_file_writer_open(&w, path, &o, &e);
  if (s == PTE_OK && len) s = pte_data_writer_write(&w.base, data, len, 0, &e);
  if (s == PTE_OK) s = pte_data_writer_publish(&w.base, &e);
  pte_data_writer_destroy(&w.base);
  if (s != PTE_OK) return npy_err(err, errsz, "%s", e.msg);
  return 0;
}

int pte_npy_save(const char *path, int dtype, const int32_t *sizes, int32_t dim, const void *data, char *err,
                 size_t errsz) {
  size_t len;
  void *img = pte_npy_encode(dtype, sizes, dim, data, &len, err, errsz);
  if (!img) return -1;
  int r = pte_cli_write_atomic(path, img, len, err, errsz);
  free(img);
  return r;
}
