/* flatbuf.h — pte's own FlatBuffers core (internal): bounds-checked reader, verifier, builder.
 *
 * Wire format facts: little-endian; a buffer starts with a u32 root uoffset (optionally followed
 * by a 4-byte file identifier); a table starts with an i32 soffset to its vtable
 * (vtable = table_pos - soffset); a vtable is u16 [vtable bytes, table inline bytes, field
 * offsets...]; field slot k is at vtable byte 4 + 2k; 0 or past the end = absent (default).
 * Reference fields hold a u32 uoffset relative to the field's own address. Strings: u32 len,
 * bytes, NUL. Vectors: u32 count, elements. A union is two slots: u8 type tag, then uoffset.
 *
 * Reader: every accessor is bounds-checked against the buffer and returns the default / an empty
 * value for anything out of range, so even an unverified buffer cannot make it read outside.
 * The verifier proves structure up front so the typed accessors (generated from the schema/ .fbs files by
 * tools/fbsgen) can be trusted to return real data.
 *
 * Builder: back-to-front, growing through a caller-supplied realloc callback (the core never
 * calls malloc itself).
 */
#ifndef PTE_FORMAT_FLATBUF_H
#define PTE_FORMAT_FLATBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "pte/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ little-endian loads */
static inline uint16_t pte_fb_ld_u16(const uint8_t *p) { return (uint16_t)(p[0] | (p[1] << 8)); }
static inline uint32_t pte_fb_ld_u32(const uint8_t *p) {
  return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}
static inline uint64_t pte_fb_ld_u64(const uint8_t *p) {
  return (uint64_t)pte_fb_ld_u32(p) | ((uint64_t)pte_fb_ld_u32(p + 4) << 32);
}
static inline int32_t pte_fb_ld_i32(const uint8_t *p) { return (int32_t)pte_fb_ld_u32(p); }
static inline float pte_fb_ld_f32(const uint8_t *p) { uint32_t u = pte_fb_ld_u32(p); float f; memcpy(&f, &u, 4); return f; }
static inline double pte_fb_ld_f64(const uint8_t *p) { uint64_t u = pte_fb_ld_u64(p); double d; memcpy(&d, &u, 8); return d; }

/* ------------------------------------------------------------------ reader handles */
/* A table inside a buffer. `pos == 0` means "absent" (no table ever sits at offset 0). */
typedef struct pte_fb_table {
  const uint8_t *buf;
  size_t size;     /* buffer size */
  uint32_t pos;    /* table start */
  uint32_t vt;     /* vtable start */
  uint16_t vt_len; /* vtable byte length */
  uint16_t tbl_len;/* table inline byte length (from vtable) */
} pte_fb_table;

/* A vector: `data` is the position of element 0 (right after the u32 count). */
typedef struct pte_fb_vec {
  const uint8_t *buf;
  size_t size;
  uint32_t data;
  uint32_t len;
  bool present;
} pte_fb_vec;

typedef struct pte_fb_str {
  const char *ptr; /* NUL-terminated in a verified buffer; NULL when absent */
  uint32_t len;
} pte_fb_str;
/* Reader guarantees on any buffer, verified or not: a present table's vtable and inline bytes lie
 * inside the buffer; a scalar/struct field is returned only if all its bytes lie inside the
 * buffer (see the verifier notes on why not the table's declared inline size); a uoffset of 0 or pointing past the end reads as absent; a vector is
 * present only if its count fits with at least one byte per element (element accessors re-check
 * with the real element size); a string is returned only if its length, bytes and NUL
 * terminator lie inside the buffer and the terminator is 0 (so ptr[len] == 0 always holds).
 * Positions are 32-bit: bytes past 4 GiB are unreachable. */

/* ------------------------------------------------------------------ unchecked reads (verified buffers)
 * For passes that run only after a verifier accepted the buffer, on the same paths: positions are
 * absolute uint32 offsets into b, 0 = absent; nothing is bounds-checked. The generated
 * `<P>_<Table>_<field>_at(b, t)` accessors are written on these. */
static inline uint32_t pte_fb_raw_field(const uint8_t *b, uint32_t t, unsigned slot) {
  uint32_t vt = t - (uint32_t)pte_fb_ld_i32(b + t);
  uint32_t vo = 4u + 2u * slot;
  if (vo + 2u > pte_fb_ld_u16(b + vt)) return 0;
  uint32_t fo = pte_fb_ld_u16(b + vt + vo);
  return fo ? t + fo : 0;
}
/* Target of the uoffset at p (0 when p is 0). */
static inline uint32_t pte_fb_raw_ref(const uint8_t *b, uint32_t p) { return p ? p + pte_fb_ld_u32(b + p) : 0; }
static inline uint32_t pte_fb_raw_obj(const uint8_t *b, uint32_t t, unsigned slot) {
  return pte_fb_raw_ref(b, pte_fb_raw_field(b, t, slot));
}
static inline uint8_t pte_fb_raw_u8(const uint8_t *b, uint32_t t, unsigned slot, uint8_t def) {
  uint32_t p = pte_fb_raw_field(b, t, slot);
  return p ? b[p] : def;
}
static inline uint16_t pte_fb_raw_u16(const uint8_t *b, uint32_t t, unsigned slot, uint16_t def) {
  uint32_t p = pte_fb_raw_field(b, t, slot);
  return p ? pte_fb_ld_u16(b + p) : def;
}
static inline uint32_t pte_fb_raw_u32(const uint8_t *b, uint32_t t, unsigned slot, uint32_t def) {
  uint32_t p = pte_fb_raw_field(b, t, slot);
  return p ? pte_fb_ld_u32(b + p) : def;
}
static inline uint64_t pte_fb_raw_u64(const uint8_t *b, uint32_t t, unsigned slot, uint64_t def) {
  uint32_t p = pte_fb_raw_field(b, t, slot);
  return p ? pte_fb_ld_u64(b + p) : def;
}
/* A vector: element data position (0 = absent) and length. */
typedef struct pte_fb_raw_vec {
  uint32_t data, len;
} pte_fb_raw_vec;
static inline pte_fb_raw_vec pte_fb_raw_vec_of(const uint8_t *b, uint32_t t, unsigned slot) {
  pte_fb_raw_vec v = {0, 0};
  uint32_t p = pte_fb_raw_obj(b, t, slot);
  if (p) {
    v.len = pte_fb_ld_u32(b + p);
    v.data = p + 4;
  }
  return v;
}
/* Element i of a vector of tables/strings (its position), of int32 / int64 / uint64. */
static inline uint32_t pte_fb_raw_vec_ref(const uint8_t *b, pte_fb_raw_vec v, uint32_t i) {
  return pte_fb_raw_ref(b, v.data + 4u * i);
}
static inline int32_t pte_fb_raw_vec_i32(const uint8_t *b, pte_fb_raw_vec v, uint32_t i) {
  return pte_fb_ld_i32(b + v.data + 4u * i);
}
static inline int64_t pte_fb_raw_vec_i64(const uint8_t *b, pte_fb_raw_vec v, uint32_t i) {
  return (int64_t)pte_fb_ld_u64(b + v.data + 8u * i);
}
static inline uint64_t pte_fb_raw_vec_u64(const uint8_t *b, pte_fb_raw_vec v, uint32_t i) {
  return pte_fb_ld_u64(b + v.data + 8u * i);
}

/* The reader's bodies (pte_fb_i_*: static inline). The API below is these, called through
 * out-of-line functions in flatbuf.c (size-optimised builds: one copy of each) or, in other
 * builds, inlined at every call site by the macros after the prototypes (the load paths read
 * thousands of fields per method). */
/* Positions are u32: anything past 4 GiB is unreachable, so clamp the size we check against. */
static inline uint64_t pte_fb_clamp_size(size_t size) {
#if SIZE_MAX > 0xFFFFFFFFu
  return (uint64_t)size > 0xFFFFFFFFull ? 0xFFFFFFFFull : (uint64_t)size;
#else
  return (uint64_t)size; /* 32-bit size_t: never past 4 GiB */
#endif
}

static inline pte_fb_table pte_fb_absent_table(const uint8_t *buf, size_t size) {
  pte_fb_table t;
  t.buf = buf;
  t.size = size;
  t.pos = 0;
  t.vt = 0;
  t.vt_len = 0;
  t.tbl_len = 0;
  return t;
}

static inline pte_fb_vec pte_fb_absent_vec(const uint8_t *buf, size_t size) {
  pte_fb_vec v;
  v.buf = buf;
  v.size = size;
  v.data = 0;
  v.len = 0;
  v.present = false;
  return v;
}

static inline pte_fb_str pte_fb_absent_str(void) {
  pte_fb_str s;
  s.ptr = NULL;
  s.len = 0;
  return s;
}

static inline pte_fb_table pte_fb_i_table_at(const uint8_t *buf, size_t size, uint32_t pos) {
  uint64_t sz = pte_fb_clamp_size(size);
  if (!buf || pos == 0 || sz < 4 || (uint64_t)pos > sz - 4) return pte_fb_absent_table(buf, size);
  int64_t vt = (int64_t)pos - (int64_t)pte_fb_ld_i32(buf + pos);
  if (vt < 0 || (uint64_t)vt > sz - 4) return pte_fb_absent_table(buf, size);
  uint16_t vt_len = pte_fb_ld_u16(buf + vt);
  uint16_t tbl_len = pte_fb_ld_u16(buf + vt + 2);
  if (vt_len < 4 || (uint64_t)vt_len > sz - (uint64_t)vt || tbl_len < 4 || (uint64_t)tbl_len > sz - pos)
    return pte_fb_absent_table(buf, size);
  pte_fb_table t;
  t.buf = buf;
  t.size = (size_t)sz;
  t.pos = pos;
  t.vt = (uint32_t)vt;
  t.vt_len = vt_len;
  t.tbl_len = tbl_len;
  return t;
}

static inline pte_fb_table pte_fb_i_root(const uint8_t *buf, size_t size) {
  if (!buf || size < 4) return pte_fb_absent_table(buf, size);
  return pte_fb_i_table_at(buf, size, pte_fb_ld_u32(buf));
}

/* File identifier at bytes 4..7 matches `ident` (4 chars). */
static inline bool pte_fb_i_has_identifier(const uint8_t *buf, size_t size, const char *ident) {
  if (!buf || !ident || size < 8) return false;
  return memcmp(buf + 4, ident, 4) == 0;
}

/* Position of `slot`'s inline bytes if the field is present and its n bytes lie inside the
 * table's inline region; 0 otherwise. An absent table has vt_len 0, so it never reads. */
static inline uint32_t pte_fb_fpos(const pte_fb_table *t, unsigned slot, uint32_t n) {
  uint64_t vo = 4u + 2u * (uint64_t)slot;
  if (vo + 2u > t->vt_len) return 0;
  uint32_t fo = pte_fb_ld_u16(t->buf + t->vt + (uint32_t)vo);
  /* Bound by the buffer, not by tbl_len: real upstream files (Python flatbuffers builder) declare
   * inline sizes that stop short of their last 8-byte field (e.g. Int / DataSegment tables with
   * inline size 8 and the u64 at table offset 4), and upstream's Verifier accepts that. */
  if (fo == 0 || (uint64_t)t->pos + fo + n > (uint64_t)t->size) return 0;
  return t->pos + fo;
}

/* Follows a uoffset stored at position p (p+4 <= size known). 0 when null / out of range. */
static inline uint32_t pte_fb_follow(const uint8_t *buf, uint64_t sz, uint32_t p) {
  uint32_t u = pte_fb_ld_u32(buf + p);
  uint64_t tgt = (uint64_t)p + u;
  if (u == 0 || tgt >= sz) return 0;
  return (uint32_t)tgt;
}

static inline uint32_t pte_fb_i_field_pos(pte_fb_table t, unsigned slot) { return pte_fb_fpos(&t, slot, 1); }

static inline uint8_t pte_fb_i_get_u8(pte_fb_table t, unsigned slot, uint8_t def) {
  uint32_t p = pte_fb_fpos(&t, slot, 1);
  return p ? t.buf[p] : def;
}
static inline int8_t pte_fb_i_get_i8(pte_fb_table t, unsigned slot, int8_t def) {
  uint32_t p = pte_fb_fpos(&t, slot, 1);
  return p ? (int8_t)t.buf[p] : def;
}
static inline uint16_t pte_fb_i_get_u16(pte_fb_table t, unsigned slot, uint16_t def) {
  uint32_t p = pte_fb_fpos(&t, slot, 2);
  return p ? pte_fb_ld_u16(t.buf + p) : def;
}
static inline int16_t pte_fb_i_get_i16(pte_fb_table t, unsigned slot, int16_t def) {
  uint32_t p = pte_fb_fpos(&t, slot, 2);
  return p ? (int16_t)pte_fb_ld_u16(t.buf + p) : def;
}
static inline uint32_t pte_fb_i_get_u32(pte_fb_table t, unsigned slot, uint32_t def) {
  uint32_t p = pte_fb_fpos(&t, slot, 4);
  return p ? pte_fb_ld_u32(t.buf + p) : def;
}
static inline int32_t pte_fb_i_get_i32(pte_fb_table t, unsigned slot, int32_t def) {
  uint32_t p = pte_fb_fpos(&t, slot, 4);
  return p ? pte_fb_ld_i32(t.buf + p) : def;
}
static inline uint64_t pte_fb_i_get_u64(pte_fb_table t, unsigned slot, uint64_t def) {
  uint32_t p = pte_fb_fpos(&t, slot, 8);
  return p ? pte_fb_ld_u64(t.buf + p) : def;
}
static inline int64_t pte_fb_i_get_i64(pte_fb_table t, unsigned slot, int64_t def) {
  uint32_t p = pte_fb_fpos(&t, slot, 8);
  return p ? (int64_t)pte_fb_ld_u64(t.buf + p) : def;
}
static inline float pte_fb_i_get_f32(pte_fb_table t, unsigned slot, float def) {
  uint32_t p = pte_fb_fpos(&t, slot, 4);
  return p ? pte_fb_ld_f32(t.buf + p) : def;
}
static inline double pte_fb_i_get_f64(pte_fb_table t, unsigned slot, double def) {
  uint32_t p = pte_fb_fpos(&t, slot, 8);
  return p ? pte_fb_ld_f64(t.buf + p) : def;
}
static inline bool pte_fb_i_get_bool(pte_fb_table t, unsigned slot, bool def) {
  uint32_t p = pte_fb_fpos(&t, slot, 1);
  return p ? t.buf[p] != 0 : def;
}

static inline pte_fb_table pte_fb_i_get_table(pte_fb_table t, unsigned slot) {
  uint32_t p = pte_fb_fpos(&t, slot, 4);
  uint32_t tgt = p ? pte_fb_follow(t.buf, t.size, p) : 0;
  return tgt ? pte_fb_i_table_at(t.buf, t.size, tgt) : pte_fb_absent_table(t.buf, t.size);
}

/* Vector header at tgt: count fits and at least one byte per element lies inside the buffer
 * (element accessors re-check with the real element size). */
static inline pte_fb_vec pte_fb_vec_at(const uint8_t *buf, uint64_t sz, uint32_t tgt) {
  if ((uint64_t)tgt + 4 > sz) return pte_fb_absent_vec(buf, (size_t)sz);
  uint32_t len = pte_fb_ld_u32(buf + tgt);
  if ((uint64_t)len > sz - ((uint64_t)tgt + 4)) return pte_fb_absent_vec(buf, (size_t)sz);
  pte_fb_vec v;
  v.buf = buf;
  v.size = (size_t)sz;
  v.data = tgt + 4;
  v.len = len;
  v.present = true;
  return v;
}

/* String at tgt: length, bytes and the NUL terminator inside the buffer, and the NUL present. */
static inline pte_fb_str pte_fb_str_at(const uint8_t *buf, uint64_t sz, uint32_t tgt) {
  if ((uint64_t)tgt + 4 > sz) return pte_fb_absent_str();
  uint32_t len = pte_fb_ld_u32(buf + tgt);
  uint64_t end = (uint64_t)tgt + 4 + len; /* position of the NUL */
  if (end >= sz || buf[end] != 0) return pte_fb_absent_str();
  pte_fb_str s;
  s.ptr = (const char *)(buf + tgt + 4);
  s.len = len;
  return s;
}

static inline pte_fb_vec pte_fb_i_get_vec(pte_fb_table t, unsigned slot) {
  uint32_t p = pte_fb_fpos(&t, slot, 4);
  uint32_t tgt = p ? pte_fb_follow(t.buf, t.size, p) : 0;
  return tgt ? pte_fb_vec_at(t.buf, t.size, tgt) : pte_fb_absent_vec(t.buf, t.size);
}

static inline pte_fb_str pte_fb_i_get_str(pte_fb_table t, unsigned slot) {
  uint32_t p = pte_fb_fpos(&t, slot, 4);
  uint32_t tgt = p ? pte_fb_follow(t.buf, t.size, p) : 0;
  return tgt ? pte_fb_str_at(t.buf, t.size, tgt) : pte_fb_absent_str();
}

static inline const uint8_t *pte_fb_i_get_struct(pte_fb_table t, unsigned slot, size_t struct_size) {
  if (struct_size > 0xFFFF) return NULL;
  uint32_t p = pte_fb_fpos(&t, slot, (uint32_t)(struct_size ? struct_size : 1));
  return p ? t.buf + p : NULL;
}

static inline const uint8_t *pte_fb_i_vec_elem(pte_fb_vec v, uint32_t i, size_t elem_size) {
  if (!v.present || i >= v.len || elem_size > v.size) return NULL;
  uint64_t off = (uint64_t)v.data + (uint64_t)i * elem_size;
  if (off + elem_size > v.size) return NULL;
  return v.buf + off;
}

static inline uint8_t pte_fb_i_vec_u8(pte_fb_vec v, uint32_t i) {
  const uint8_t *p = pte_fb_i_vec_elem(v, i, 1);
  return p ? *p : 0;
}
static inline int32_t pte_fb_i_vec_i32(pte_fb_vec v, uint32_t i) {
  const uint8_t *p = pte_fb_i_vec_elem(v, i, 4);
  return p ? pte_fb_ld_i32(p) : 0;
}
static inline uint32_t pte_fb_i_vec_u32(pte_fb_vec v, uint32_t i) {
  const uint8_t *p = pte_fb_i_vec_elem(v, i, 4);
  return p ? pte_fb_ld_u32(p) : 0;
}
static inline int64_t pte_fb_i_vec_i64(pte_fb_vec v, uint32_t i) {
  const uint8_t *p = pte_fb_i_vec_elem(v, i, 8);
  return p ? (int64_t)pte_fb_ld_u64(p) : 0;
}
static inline uint64_t pte_fb_i_vec_u64(pte_fb_vec v, uint32_t i) {
  const uint8_t *p = pte_fb_i_vec_elem(v, i, 8);
  return p ? pte_fb_ld_u64(p) : 0;
}
static inline double pte_fb_i_vec_f64(pte_fb_vec v, uint32_t i) {
  const uint8_t *p = pte_fb_i_vec_elem(v, i, 8);
  return p ? pte_fb_ld_f64(p) : 0.0;
}

static inline pte_fb_table pte_fb_i_vec_table(pte_fb_vec v, uint32_t i) {
  const uint8_t *p = pte_fb_i_vec_elem(v, i, 4);
  uint32_t tgt = p ? pte_fb_follow(v.buf, v.size, (uint32_t)(p - v.buf)) : 0;
  return tgt ? pte_fb_i_table_at(v.buf, v.size, tgt) : pte_fb_absent_table(v.buf, v.size);
}

static inline pte_fb_str pte_fb_i_vec_str(pte_fb_vec v, uint32_t i) {
  const uint8_t *p = pte_fb_i_vec_elem(v, i, 4);
  uint32_t tgt = p ? pte_fb_follow(v.buf, v.size, (uint32_t)(p - v.buf)) : 0;
  return tgt ? pte_fb_str_at(v.buf, v.size, tgt) : pte_fb_absent_str();
}

/* ---- the reader API (both forms: see above) ----
 * Root table of a buffer (absent if the root offset or vtable is out of range); table at absolute
 * position pos (absent if out of range); field position (0 when absent); scalars with defaults
 * (absent or out of range -> def); reference fields; inline struct fields (NULL when absent / out
 * of range); vector elements (index out of range -> default / absent; pte_fb_vec_elem: NULL);
 * pte_fb_has_identifier: the file identifier at bytes 4..7 matches `ident` (4 chars). */
pte_fb_table pte_fb_table_at(const uint8_t *buf, size_t size, uint32_t pos);
pte_fb_table pte_fb_root(const uint8_t *buf, size_t size);
bool pte_fb_has_identifier(const uint8_t *buf, size_t size, const char *ident);
uint32_t pte_fb_field_pos(pte_fb_table t, unsigned slot);
uint8_t pte_fb_get_u8(pte_fb_table t, unsigned slot, uint8_t def);
int8_t pte_fb_get_i8(pte_fb_table t, unsigned slot, int8_t def);
uint16_t pte_fb_get_u16(pte_fb_table t, unsigned slot, uint16_t def);
int16_t pte_fb_get_i16(pte_fb_table t, unsigned slot, int16_t def);
uint32_t pte_fb_get_u32(pte_fb_table t, unsigned slot, uint32_t def);
int32_t pte_fb_get_i32(pte_fb_table t, unsigned slot, int32_t def);
uint64_t pte_fb_get_u64(pte_fb_table t, unsigned slot, uint64_t def);
int64_t pte_fb_get_i64(pte_fb_table t, unsigned slot, int64_t def);
float pte_fb_get_f32(pte_fb_table t, unsigned slot, float def);
double pte_fb_get_f64(pte_fb_table t, unsigned slot, double def);
bool pte_fb_get_bool(pte_fb_table t, unsigned slot, bool def);
pte_fb_table pte_fb_get_table(pte_fb_table t, unsigned slot);
pte_fb_vec pte_fb_get_vec(pte_fb_table t, unsigned slot);
pte_fb_str pte_fb_get_str(pte_fb_table t, unsigned slot);
const uint8_t *pte_fb_get_struct(pte_fb_table t, unsigned slot, size_t struct_size);
const uint8_t *pte_fb_vec_elem(pte_fb_vec v, uint32_t i, size_t elem_size);
uint8_t pte_fb_vec_u8(pte_fb_vec v, uint32_t i);
int32_t pte_fb_vec_i32(pte_fb_vec v, uint32_t i);
uint32_t pte_fb_vec_u32(pte_fb_vec v, uint32_t i);
int64_t pte_fb_vec_i64(pte_fb_vec v, uint32_t i);
uint64_t pte_fb_vec_u64(pte_fb_vec v, uint32_t i);
double pte_fb_vec_f64(pte_fb_vec v, uint32_t i);
pte_fb_table pte_fb_vec_table(pte_fb_vec v, uint32_t i);
pte_fb_str pte_fb_vec_str(pte_fb_vec v, uint32_t i);

#if !defined(__OPTIMIZE_SIZE__)
#define pte_fb_table_at(buf, size, pos) pte_fb_i_table_at(buf, size, pos)
#define pte_fb_root(buf, size) pte_fb_i_root(buf, size)
#define pte_fb_has_identifier(buf, size, ident) pte_fb_i_has_identifier(buf, size, ident)
#define pte_fb_field_pos(t, slot) pte_fb_i_field_pos(t, slot)
#define pte_fb_get_u8(t, slot, def) pte_fb_i_get_u8(t, slot, def)
#define pte_fb_get_i8(t, slot, def) pte_fb_i_get_i8(t, slot, def)
#define pte_fb_get_u16(t, slot, def) pte_fb_i_get_u16(t, slot, def)
#define pte_fb_get_i16(t, slot, def) pte_fb_i_get_i16(t, slot, def)
#define pte_fb_get_u32(t, slot, def) pte_fb_i_get_u32(t, slot, def)
#define pte_fb_get_i32(t, slot, def) pte_fb_i_get_i32(t, slot, def)
#define pte_fb_get_u64(t, slot, def) pte_fb_i_get_u64(t, slot, def)
#define pte_fb_get_i64(t, slot, def) pte_fb_i_get_i64(t, slot, def)
#define pte_fb_get_f32(t, slot, def) pte_fb_i_get_f32(t, slot, def)
#define pte_fb_get_f64(t, slot, def) pte_fb_i_get_f64(t, slot, def)
#define pte_fb_get_bool(t, slot, def) pte_fb_i_get_bool(t, slot, def)
#define pte_fb_get_table(t, slot) pte_fb_i_get_table(t, slot)
#define pte_fb_get_vec(t, slot) pte_fb_i_get_vec(t, slot)
#define pte_fb_get_str(t, slot) pte_fb_i_get_str(t, slot)
#define pte_fb_get_struct(t, slot, struct_size) pte_fb_i_get_struct(t, slot, struct_size)
#define pte_fb_vec_elem(v, i, elem_size) pte_fb_i_vec_elem(v, i, elem_size)
#define pte_fb_vec_u8(v, i) pte_fb_i_vec_u8(v, i)
#define pte_fb_vec_i32(v, i) pte_fb_i_vec_i32(v, i)
#define pte_fb_vec_u32(v, i) pte_fb_i_vec_u32(v, i)
#define pte_fb_vec_i64(v, i) pte_fb_i_vec_i64(v, i)
#define pte_fb_vec_u64(v, i) pte_fb_i_vec_u64(v, i)
#define pte_fb_vec_f64(v, i) pte_fb_i_vec_f64(v, i)
#define pte_fb_vec_table(v, i) pte_fb_i_vec_table(v, i)
#define pte_fb_vec_str(v, i) pte_fb_i_vec_str(v, i)
#endif

static inline bool pte_fb_table_present(pte_fb_table t) { return t.pos != 0; }

/* Pointer to element 0 (NULL when absent); elements are little-endian. */
static inline const uint8_t *pte_fb_vec_data(pte_fb_vec v) { return v.present ? v.buf + v.data : NULL; }


/* ------------------------------------------------------------------ verifier */
typedef struct pte_fb_verifier {
  const uint8_t *buf;
  size_t size;
  unsigned depth, max_depth;   /* nesting of tables (default max 64) */
  unsigned tables, max_tables; /* tables visited (default max 1,000,000) */
  pte_error_info *err;         /* may be NULL */
  const char *ctx;             /* name of the table being verified, for messages */
} pte_fb_verifier;

/* buf must be at least 4-byte aligned in memory for the typed accessors' pointer views; the
 * verifier itself checks alignment of offsets relative to buf. */
void pte_fb_verifier_init(pte_fb_verifier *v, const uint8_t *buf, size_t size, pte_error_info *err);

/* Every verify call returns PTE_OK or PTE_ERR_INVALID_PROGRAM (with a message naming table,
 * field slot and what is wrong, e.g. "Tensor: field 2 (vector) offset 0x1234 past end of buffer
 * (size 0x400)"). Callers map the status when a different one is wanted.
 * Rules beyond the per-function notes: a present field's table offset must be >= 4 (not inside
 * the soffset) and field bytes must end inside the buffer (deliberately not inside the vtable's
 * table-size entry: the Python flatbuffers builder used upstream shares vtables between tables
 * of different sizes, so real files declare sizes too small); every uoffset must be
 * non-zero and < 2^31 and its target 4-aligned with 4 bytes in range; vector element alignment
 * is only checked for non-empty vectors. Offsets only point forward, so verification always
 * terminates; max_depth / max_tables (set them after pte_fb_verifier_init) bound the work. */

/* Checks the root offset and (if ident != NULL) the file identifier; returns the root table
 * position in *root_pos (not yet verified as a table). */
pte_status pte_fb_verify_root(pte_fb_verifier *v, const char *ident, uint32_t *root_pos);

/* Checks a table header at pos: soffset, vtable in bounds and 2-aligned, vtable length even and
 * >= 4, table inline length >= 4 and in bounds, table 4-aligned. Increments depth/table counts
 * (caller must call pte_fb_verify_table_end). Fills *t. */
pte_status pte_fb_verify_table_begin(pte_fb_verifier *v, uint32_t pos, const char *name, pte_fb_table *t);
void pte_fb_verify_table_end(pte_fb_verifier *v);

/* Inline field (scalar or struct) of `size` bytes, aligned to `align`, inside the table. */
pte_status pte_fb_verify_field(pte_fb_verifier *v, pte_fb_table t, unsigned slot, size_t size, size_t align);
/* Enum/union-type byte: also checks the value is < n_values when present (n_values 0: no check). */
pte_status pte_fb_verify_enum_u8(pte_fb_verifier *v, pte_fb_table t, unsigned slot, unsigned n_values);
/* Offset fields. `required`: absent is an error. */
pte_status pte_fb_verify_str(pte_fb_verifier *v, pte_fb_table t, unsigned slot, bool required);
pte_status pte_fb_verify_vec(pte_fb_verifier *v, pte_fb_table t, unsigned slot, size_t elem_size,
                             size_t align, bool required, pte_fb_vec *out);
pte_status pte_fb_verify_vec_str(pte_fb_verifier *v, pte_fb_table t, unsigned slot, bool required);

typedef pte_status (*pte_fb_verify_fn)(pte_fb_verifier *v, uint32_t table_pos);
pte_status pte_fb_verify_table_field(pte_fb_verifier *v, pte_fb_table t, unsigned slot,
                                     pte_fb_verify_fn fn, bool required);
pte_status pte_fb_verify_vec_table(pte_fb_verifier *v, pte_fb_table t, unsigned slot,
                                   pte_fb_verify_fn fn, bool required);
/* Union: tag at type_slot must be < n_members+1 (0 = NONE); fn_for_tag[tag] verifies the member
 * (NULL entry: the member type is unknown -> error). A value present with tag 0, or a tag with
 * no value, is an error. n_tags is the number of entries in fn_for_tag INCLUDING entry 0 for
 * NONE (= n_members + 1); tags >= n_tags are rejected. */
pte_status pte_fb_verify_union(pte_fb_verifier *v, pte_fb_table t, unsigned type_slot, unsigned value_slot,
                               const pte_fb_verify_fn *fn_for_tag, unsigned n_tags);

/* ------------------------------------------------------------------ builder */
/* Realloc-style callback: ptr NULL allocates; otherwise returns a block of new_size bytes whose
 * first min(old_size, new_size) bytes equal the old block's (NULL on failure, old block kept).
 * new_size 0 frees ptr (return value ignored). */
typedef void *(*pte_fb_realloc_fn)(void *ctx, void *ptr, size_t old_size, size_t new_size);

/* A reference to something already written: distance from the END of the buffer (as FlatBuffers'
 * own builders do). 0 = null reference. */
typedef uint32_t pte_fb_ref;

typedef struct pte_fb_builder {
  pte_fb_realloc_fn realloc_fn;
  void *realloc_ctx;
  uint8_t *buf;   /* data grows downward: live bytes are buf[cap-used .. cap) */
  size_t cap;
  size_t used;
  size_t max_align;
  /* current table */
  uint32_t *field_pos;  /* per slot: ref of the field's bytes, 0 = not set */
  unsigned field_cap;
  unsigned field_max;   /* highest slot + 1 set in the current table */
  size_t table_start;   /* `used` when the table was started */
  bool in_table;
  bool force_defaults;  /* write fields equal to their default too */
  /* vtable dedup */
  uint32_t *vtables;    /* refs of vtables written so far */
  unsigned n_vtables, vtables_cap;
  pte_status status;    /* first failure (PTE_ERR_MEMORY_ALLOCATION_FAILED / OUT_OF_RESOURCES) */
} pte_fb_builder;

/* Builder errors are sticky in b->status and make every later call a no-op returning 0/NULL:
 *   PTE_ERR_MEMORY_ALLOCATION_FAILED  the realloc callback failed (or is NULL);
 *   PTE_ERR_OUT_OF_RESOURCES          the buffer would exceed 2 GiB - 1 (uoffsets are 32-bit and
 *                                     treated as signed by verifiers), or a table's inline data
 *                                     would exceed 64 KiB;
 *   PTE_ERR_INVALID_STATE             misuse: table_start inside a table, add_* outside one,
 *                                     creating strings/vectors or finishing inside a table;
 *   PTE_ERR_INVALID_ARGUMENT          alignment not a power of two, slot > 32762, a ref that was
 *                                     never written, NULL data with count > 0, root 0.
 * Vtables with identical bytes are shared (deduplicated). */
void pte_fb_builder_init(pte_fb_builder *b, pte_fb_realloc_fn fn, void *ctx);
/* Frees everything through the callback and re-initialises *b (same callback) for reuse. */
void pte_fb_builder_free(pte_fb_builder *b);

pte_fb_ref pte_fb_create_string(pte_fb_builder *b, const char *s, size_t len);
/* Vector of scalars/structs: `data` holds count elements of elem_size bytes, already
 * little-endian. The element data is aligned to max(align, elem_size alignment) — use this for
 * force_align. (elem_size alignment = largest power of two dividing elem_size, at most 8; pass
 * the struct's alignment in `align` when it is larger.) */
pte_fb_ref pte_fb_create_vec(pte_fb_builder *b, const void *data, size_t count, size_t elem_size, size_t align);
/* Vector of references (tables or strings). */
pte_fb_ref pte_fb_create_vec_refs(pte_fb_builder *b, const pte_fb_ref *refs, size_t count);
/* Reserve a vector and return a pointer to its (uninitialised) element data, valid until the
 * next builder call; *ref receives the vector reference. */
uint8_t *pte_fb_start_vec_raw(pte_fb_builder *b, size_t count, size_t elem_size, size_t align, pte_fb_ref *ref);

void pte_fb_table_start(pte_fb_builder *b);
void pte_fb_add_u8(pte_fb_builder *b, unsigned slot, uint8_t v, uint8_t def);
void pte_fb_add_i8(pte_fb_builder *b, unsigned slot, int8_t v, int8_t def);
void pte_fb_add_u16(pte_fb_builder *b, unsigned slot, uint16_t v, uint16_t def);
void pte_fb_add_i16(pte_fb_builder *b, unsigned slot, int16_t v, int16_t def);
void pte_fb_add_u32(pte_fb_builder *b, unsigned slot, uint32_t v, uint32_t def);
void pte_fb_add_i32(pte_fb_builder *b, unsigned slot, int32_t v, int32_t def);
void pte_fb_add_u64(pte_fb_builder *b, unsigned slot, uint64_t v, uint64_t def);
void pte_fb_add_i64(pte_fb_builder *b, unsigned slot, int64_t v, int64_t def);
void pte_fb_add_f32(pte_fb_builder *b, unsigned slot, float v, float def);
void pte_fb_add_f64(pte_fb_builder *b, unsigned slot, double v, double def);
void pte_fb_add_bool(pte_fb_builder *b, unsigned slot, bool v, bool def);
/* Always written (no default elision) — used for fields that must be patchable in place. */
void pte_fb_add_u64_forced(pte_fb_builder *b, unsigned slot, uint64_t v);
void pte_fb_add_u32_forced(pte_fb_builder *b, unsigned slot, uint32_t v);
void pte_fb_add_ref(pte_fb_builder *b, unsigned slot, pte_fb_ref ref); /* ref 0: nothing added */
void pte_fb_add_struct(pte_fb_builder *b, unsigned slot, const void *data, size_t size, size_t align);
pte_fb_ref pte_fb_table_end(pte_fb_builder *b);

/* Finishes with root table `root` and optional identifier (exactly 4 bytes are copied; NULL: no
 * identifier); pads the front so the total
 * size is a multiple of the largest alignment used (and of min_align). On success *out points at
 * the finished bytes inside the builder (valid until pte_fb_builder_free) and *out_size is set. */
pte_status pte_fb_finish(pte_fb_builder *b, pte_fb_ref root, const char *ident, size_t min_align,
                         const uint8_t **out, size_t *out_size);
/* (Call pte_fb_finish once per builder; returns b->status on failure, with *out NULL.) */

/* A realloc callback over the C heap lives outside the core: pte_heap_realloc() in pte/io.h. */

#ifdef __cplusplus
}
#endif
#endif
