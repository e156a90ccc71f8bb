/* flatbuf.c — FlatBuffers reader (bounds-checked accessors) and verifier.
 *
 * Reader invariant: a present pte_fb_table has pos+4 <= size, its vtable [vt, vt+vt_len) and its
 * inline region [pos, pos+tbl_len) inside the buffer, and size <= UINT32_MAX (positions are
 * 32-bit). Every accessor re-checks the field's bytes against the buffer size (not tbl_len, see
 * fb_fpos), so field reads stay in range whatever the buffer contains. The verifier adds the
 * structural guarantees (alignment, NUL terminators, element ranges) the typed accessors rely on.
 */
#include <stdarg.h>

#include "format/flatbuf.h"

#include <limits.h>
#include "base/vformat.h"

/* ================================================================== reader (out of line)
 * The API's functions (size-optimised builds call these; other builds inline the pte_fb_i_*
 * bodies of flatbuf.h through its macros, hence the parenthesised names). Same checks. */

pte_fb_table (pte_fb_table_at)(const uint8_t *buf, size_t size, uint32_t pos) {
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

pte_fb_table (pte_fb_root)(const uint8_t *buf, size_t size) {
  if (!buf || size < 4) return pte_fb_absent_table(buf, size);
  return pte_fb_table_at(buf, size, pte_fb_ld_u32(buf));
}

bool (pte_fb_has_identifier)(const uint8_t *buf, size_t size, const char *ident) {
  if (!buf || !ident || size < 8) return false;
  return memcmp(buf + 4, ident, 4) == 0;
}

uint32_t (pte_fb_field_pos)(pte_fb_table t, unsigned slot) { return pte_fb_fpos(&t, slot, 1); }

uint8_t (pte_fb_get_u8)(pte_fb_table t, unsigned slot, uint8_t def) {
  uint32_t p = pte_fb_fpos(&t, slot, 1);
  return p ? t.buf[p] : def;
}
int8_t (pte_fb_get_i8)(pte_fb_table t, unsigned slot, int8_t def) {
  uint32_t p = pte_fb_fpos(&t, slot, 1);
  return p ? (int8_t)t.buf[p] : def;
}
uint16_t (pte_fb_get_u16)(pte_fb_table t, unsigned slot, uint16_t def) {
  uint32_t p = pte_fb_fpos(&t, slot, 2);
  return p ? pte_fb_ld_u16(t.buf + p) : def;
}
int16_t (pte_fb_get_i16)(pte_fb_table t, unsigned slot, int16_t def) {
  uint32_t p = pte_fb_fpos(&t, slot, 2);
  return p ? (int16_t)pte_fb_ld_u16(t.buf + p) : def;
}
uint32_t (pte_fb_get_u32)(pte_fb_table t, unsigned slot, uint32_t def) {
  uint32_t p = pte_fb_fpos(&t, slot, 4);
  return p ? pte_fb_ld_u32(t.buf + p) : def;
}
int32_t (pte_fb_get_i32)(pte_fb_table t, unsigned slot, int32_t def) {
  uint32_t p = pte_fb_fpos(&t, slot, 4);
  return p ? pte_fb_ld_i32(t.buf + p) : def;
}
uint64_t (pte_fb_get_u64)(pte_fb_table t, unsigned slot, uint64_t def) {
  uint32_t p = pte_fb_fpos(&t, slot, 8);
  return p ? pte_fb_ld_u64(t.buf + p) : def;
}
int64_t (pte_fb_get_i64)(pte_fb_table t, unsigned slot, int64_t def) {
  uint32_t p = pte_fb_fpos(&t, slot, 8);
  return p ? (int64_t)pte_fb_ld_u64(t.buf + p) : def;
}
float (pte_fb_get_f32)(pte_fb_table t, unsigned slot, float def) {
  uint32_t p = pte_fb_fpos(&t, slot, 4);
  return p ? pte_fb_ld_f32(t.buf + p) : def;
}
double (pte_fb_get_f64)(pte_fb_table t, unsigned slot, double def) {
  uint32_t p = pte_fb_fpos(&t, slot, 8);
  return p ? pte_fb_ld_f64(t.buf + p) : def;
}
bool (pte_fb_get_bool)(pte_fb_table t, unsigned slot, bool def) {
  uint32_t p = pte_fb_fpos(&t, slot, 1);
  return p ? t.buf[p] != 0 : def;
}

pte_fb_table (pte_fb_get_table)(pte_fb_table t, unsigned slot) {
  uint32_t p = pte_fb_fpos(&t, slot, 4);
  uint32_t tgt = p ? pte_fb_follow(t.buf, t.size, p) : 0;
  return tgt ? pte_fb_table_at(t.buf, t.size, tgt) : pte_fb_absent_table(t.buf, t.size);
}

pte_fb_vec (pte_fb_get_vec)(pte_fb_table t, unsigned slot) {
  uint32_t p = pte_fb_fpos(&t, slot, 4);
  uint32_t tgt = p ? pte_fb_follow(t.buf, t.size, p) : 0;
  return tgt ? pte_fb_vec_at(t.buf, t.size, tgt) : pte_fb_absent_vec(t.buf, t.size);
}

pte_fb_str (pte_fb_get_str)(pte_fb_table t, unsigned slot) {
  uint32_t p = pte_fb_fpos(&t, slot, 4);
  uint32_t tgt = p ? pte_fb_follow(t.buf, t.size, p) : 0;
  return tgt ? pte_fb_str_at(t.buf, t.size, tgt) : pte_fb_absent_str();
}

const uint8_t *(pte_fb_get_struct)(pte_fb_table t, unsigned slot, size_t struct_size) {
  if (struct_size > 0xFFFF) return NULL;
  uint32_t p = pte_fb_fpos(&t, slot, (uint32_t)(struct_size ? struct_size : 1));
  return p ? t.buf + p : NULL;
}

const uint8_t *(pte_fb_vec_elem)(pte_fb_vec v, uint32_t i, size_t elem_size) {
  if (!v.present || i >= v.len || elem_size > v.size) return NULL;
  uint64_t off = (uint64_t)v.data + (uint64_t)i * elem_size;
  if (off + elem_size > v.size) return NULL;
  return v.buf + off;
}

uint8_t (pte_fb_vec_u8)(pte_fb_vec v, uint32_t i) {
  const uint8_t *p = pte_fb_vec_elem(v, i, 1);
  return p ? *p : 0;
}
int32_t (pte_fb_vec_i32)(pte_fb_vec v, uint32_t i) {
  const uint8_t *p = pte_fb_vec_elem(v, i, 4);
  return p ? pte_fb_ld_i32(p) : 0;
}
uint32_t (pte_fb_vec_u32)(pte_fb_vec v, uint32_t i) {
  const uint8_t *p = pte_fb_vec_elem(v, i, 4);
  return p ? pte_fb_ld_u32(p) : 0;
}
int64_t (pte_fb_vec_i64)(pte_fb_vec v, uint32_t i) {
  const uint8_t *p = pte_fb_vec_elem(v, i, 8);
  return p ? (int64_t)pte_fb_ld_u64(p) : 0;
}
uint64_t (pte_fb_vec_u64)(pte_fb_vec v, uint32_t i) {
  const uint8_t *p = pte_fb_vec_elem(v, i, 8);
  return p ? pte_fb_ld_u64(p) : 0;
}
double (pte_fb_vec_f64)(pte_fb_vec v, uint32_t i) {
  const uint8_t *p = pte_fb_vec_elem(v, i, 8);
  return p ? pte_fb_ld_f64(p) : 0.0;
}

pte_fb_table (pte_fb_vec_table)(pte_fb_vec v, uint32_t i) {
  const uint8_t *p = pte_fb_vec_elem(v, i, 4);
  uint32_t tgt = p ? pte_fb_follow(v.buf, v.size, (uint32_t)(p - v.buf)) : 0;
  return tgt ? pte_fb_table_at(v.buf, v.size, tgt) : pte_fb_absent_table(v.buf, v.size);
}

pte_fb_str (pte_fb_vec_str)(pte_fb_vec v, uint32_t i) {
  const uint8_t *p = pte_fb_vec_elem(v, i, 4);
  uint32_t tgt = p ? pte_fb_follow(v.buf, v.size, (uint32_t)(p - v.buf)) : 0;
  return tgt ? pte_fb_str_at(v.buf, v.size, tgt) : pte_fb_absent_str();
}

/* ================================================================== verifier */

#define FB_BAD PTE_ERR_INVALID_PROGRAM
/* the per-field checks: inlined into their callers except in size-optimised builds */
#if defined(__OPTIMIZE_SIZE__)
#define FB_HOT
#else
#define FB_HOT inline
#endif
#define FB_NO_SLOT UINT_MAX
#define FB_NO_ELEM UINT32_MAX

/* Where a failure happened, for the message prefix. */
typedef struct fb_where {
  const char *table;
  unsigned slot;     /* FB_NO_SLOT: table-level failure */
  const char *kind;  /* "vector", "string", ... */
  uint32_t elem;     /* FB_NO_ELEM: not inside a vector element */
} fb_where;

static inline const char *fb_name(const char *n) { return n ? n : "table"; }

static pte_status fb_report(pte_fb_verifier *v, const fb_where *w, const char *detail) {
  if (w->slot == FB_NO_SLOT)
    return pte_error_set(v->err, FB_BAD, "%s: %s", fb_name(w->table), detail);
  if (w->elem == FB_NO_ELEM)
    return pte_error_set(v->err, FB_BAD, "%s: field %u (%s) %s", fb_name(w->table), w->slot, w->kind, detail);
  return pte_error_set(v->err, FB_BAD, "%s: field %u (%s) element %u: %s", fb_name(w->table), w->slot, w->kind,
                       (unsigned)w->elem, detail);
}

/* The failure path lives out of line (cold) so the hot verification functions keep a small
 * stack frame and no formatting code; it formats the detail only when someone will read it.
 * Always returns PTE_ERR_INVALID_PROGRAM. */
#if defined(__GNUC__)
__attribute__((noinline, cold))
#endif
static pte_status fb_fail(pte_fb_verifier *v, const fb_where *w, const char *fmt, ...) {
  if (!v->err) return FB_BAD;
  char detail[PTE_ERROR_MSG_MAX];
  va_list ap;
  va_start(ap, fmt);
  pte_vformat(detail, sizeof detail, fmt, ap);
  va_end(ap);
  return fb_report(v, w, detail);
}

#define FB_FAIL(v, w, ...) return fb_fail((v), (w), __VA_ARGS__)

static inline unsigned long long fb_ull(uint64_t x) { return (unsigned long long)x; }

void pte_fb_verifier_init(pte_fb_verifier *v, const uint8_t *buf, size_t size, pte_error_info *err) {
  v->buf = buf;
  v->size = buf ? size : 0;
  v->depth = 0;
  v->max_depth = 64;
  v->tables = 0;
  v->max_tables = 1000000;
  v->err = err;
  v->ctx = NULL;
}

pte_status pte_fb_verify_root(pte_fb_verifier *v, const char *ident, uint32_t *root_pos) {
  fb_where w = {"buffer", FB_NO_SLOT, "", FB_NO_ELEM};
  uint64_t sz = pte_fb_clamp_size(v->size);
  uint64_t hdr = ident ? 8 : 4;
  if (root_pos) *root_pos = 0;
  if (!v->buf || sz < hdr + 4)
    FB_FAIL(v, &w, "too small for a FlatBuffer (%llu bytes, need at least %llu)", fb_ull(v->size), fb_ull(hdr + 4));
  if (ident && memcmp(v->buf + 4, ident, 4) != 0) {
    char got[5];
    for (int i = 0; i < 4; i++) {
      uint8_t c = v->buf[4 + i];
      got[i] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
    }
    got[4] = 0;
    FB_FAIL(v, &w, "file identifier \"%s\" does not match expected \"%c%c%c%c\"", got, ident[0], ident[1], ident[2],
            ident[3]);
  }
  uint32_t root = pte_fb_ld_u32(v->buf);
  if ((uint64_t)root + 4 > sz)
    FB_FAIL(v, &w, "root table offset 0x%x past end of buffer (size 0x%llx)", (unsigned)root, fb_ull(v->size));
  if (root < hdr)
    FB_FAIL(v, &w, "root table offset 0x%x overlaps the buffer header (%llu bytes)", (unsigned)root, fb_ull(hdr));
  if (root % 4 != 0) FB_FAIL(v, &w, "root table offset 0x%x not 4-byte aligned", (unsigned)root);
  if (root_pos) *root_pos = root;
  return PTE_OK;
}

pte_status pte_fb_verify_table_begin(pte_fb_verifier *v, uint32_t pos, const char *name, pte_fb_table *t) {
  fb_where w = {name, FB_NO_SLOT, "", FB_NO_ELEM};
  uint64_t sz = pte_fb_clamp_size(v->size);
  v->ctx = name;
  if (t) *t = pte_fb_absent_table(v->buf, v->size);
  if (v->depth >= v->max_depth) FB_FAIL(v, &w, "table nesting depth exceeds the limit of %u", v->max_depth);
  if (v->tables >= v->max_tables) FB_FAIL(v, &w, "more than %u tables in the buffer", v->max_tables);
  if (!v->buf || pos == 0 || sz < 4 || (uint64_t)pos > sz - 4)
    FB_FAIL(v, &w, "table at 0x%x past end of buffer (size 0x%llx)", (unsigned)pos, fb_ull(v->size));
  if (pos % 4 != 0) FB_FAIL(v, &w, "table at 0x%x not 4-byte aligned", (unsigned)pos);
  int32_t so = pte_fb_ld_i32(v->buf + pos);
  int64_t vt = (int64_t)pos - (int64_t)so;
  if (vt < 0)
    FB_FAIL(v, &w, "table at 0x%x: vtable at -0x%llx (soffset %d) before start of buffer", (unsigned)pos,
            fb_ull((uint64_t)-vt), (int)so);
  if ((uint64_t)vt > sz - 4)
    FB_FAIL(v, &w, "table at 0x%x: vtable at 0x%llx (soffset %d) past end of buffer (size 0x%llx)", (unsigned)pos,
            fb_ull((uint64_t)vt), (int)so, fb_ull(v->size));
  if (vt % 2 != 0)
    FB_FAIL(v, &w, "table at 0x%x: vtable at 0x%llx not 2-byte aligned", (unsigned)pos, fb_ull((uint64_t)vt));
  uint16_t vt_len = pte_fb_ld_u16(v->buf + vt);
  uint16_t tbl_len = pte_fb_ld_u16(v->buf + vt + 2);
  if (vt_len < 4 || vt_len % 2 != 0)
    FB_FAIL(v, &w, "table at 0x%x: vtable length %u is %s", (unsigned)pos, (unsigned)vt_len,
            vt_len < 4 ? "less than 4" : "odd");
  if ((uint64_t)vt_len > sz - (uint64_t)vt)
    FB_FAIL(v, &w, "table at 0x%x: vtable at 0x%llx with length %u past end of buffer (size 0x%llx)", (unsigned)pos,
            fb_ull((uint64_t)vt), (unsigned)vt_len, fb_ull(v->size));
  if (tbl_len < 4) FB_FAIL(v, &w, "table at 0x%x: inline size %u less than 4", (unsigned)pos, (unsigned)tbl_len);
  if ((uint64_t)tbl_len > sz - pos)
    FB_FAIL(v, &w, "table at 0x%x: inline size %u past end of buffer (size 0x%llx)", (unsigned)pos,
            (unsigned)tbl_len, fb_ull(v->size));
  v->depth++;
  v->tables++;
  if (t) {
    t->buf = v->buf;
    t->size = (size_t)sz;
    t->pos = pos;
    t->vt = (uint32_t)vt;
    t->vt_len = vt_len;
    t->tbl_len = tbl_len;
  }
  return PTE_OK;
}

void pte_fb_verify_table_end(pte_fb_verifier *v) {
  if (v->depth > 0) v->depth--;
}

/* Raw vtable entry for a slot (0 = absent). */
static inline uint32_t fb_field_off(const pte_fb_table *t, unsigned slot) {
  uint64_t vo = 4u + 2u * (uint64_t)slot;
  if (vo + 2u > t->vt_len) return 0;
  return pte_fb_ld_u16(t->buf + t->vt + (uint32_t)vo);
}

/* Checks an inline field; *pos = its absolute position or 0 when absent. */
static FB_HOT pte_status fb_check_inline(pte_fb_verifier *v, const pte_fb_table *t, const fb_where *w, size_t size,
                                  size_t align, uint32_t *pos) {
  *pos = 0;
  uint32_t fo = fb_field_off(t, w->slot);
  if (fo == 0) return PTE_OK;
  if (fo < 4) FB_FAIL(v, w, "at table offset %u overlaps the vtable offset", (unsigned)fo);
  /* Only the buffer bounds the field (as upstream's Verifier): see pte_fb_fpos for why tbl_len cannot. */
  if ((uint64_t)t->pos + fo + size > pte_fb_clamp_size(v->size))
    FB_FAIL(v, w, "at table offset %u (%llu bytes) past end of buffer (size 0x%llx)", (unsigned)fo, fb_ull(size),
            fb_ull(v->size));
  uint32_t p = t->pos + fo;
  if (align > 1 && p % align != 0)
    FB_FAIL(v, w, "at 0x%x not %llu-byte aligned", (unsigned)p, fb_ull(align));
  *pos = p;
  return PTE_OK;
}

pte_status pte_fb_verify_field(pte_fb_verifier *v, pte_fb_table t, unsigned slot, size_t size, size_t align) {
  fb_where w = {v->ctx, slot, "inline", FB_NO_ELEM};
  uint32_t p = 0;
  return fb_check_inline(v, &t, &w, size, align, &p);
}

pte_status pte_fb_verify_enum_u8(pte_fb_verifier *v, pte_fb_table t, unsigned slot, unsigned n_values) {
  fb_where w = {v->ctx, slot, "enum", FB_NO_ELEM};
  uint32_t p = 0;
  pte_status s = fb_check_inline(v, &t, &w, 1, 1, &p);
  if (s != PTE_OK) return s;
  if (p && n_values && v->buf[p] >= n_values)
    FB_FAIL(v, &w, "value %u out of range (%u values)", (unsigned)v->buf[p], n_values);
  return PTE_OK;
}

/* Follows the uoffset at ref_pos (already known to be 4 in-range bytes, 4-aligned for table
 * fields). Checks: non-zero, < 2^31, target 4-aligned with 4 bytes in the buffer. */
static FB_HOT pte_status fb_check_ref(pte_fb_verifier *v, const fb_where *w, uint32_t ref_pos, uint32_t *target) {
  uint64_t sz = pte_fb_clamp_size(v->size);
  uint32_t u = pte_fb_ld_u32(v->buf + ref_pos);
  if (u == 0) FB_FAIL(v, w, "offset at 0x%x is zero", (unsigned)ref_pos);
  if (u >= 0x80000000u) FB_FAIL(v, w, "offset 0x%x at 0x%x too large", (unsigned)u, (unsigned)ref_pos);
  uint64_t tgt = (uint64_t)ref_pos + u;
  if (tgt + 4 > sz) FB_FAIL(v, w, "offset 0x%llx past end of buffer (size 0x%llx)", fb_ull(tgt), fb_ull(v->size));
  if (tgt % 4 != 0) FB_FAIL(v, w, "offset 0x%llx not 4-byte aligned", fb_ull(tgt));
  *target = (uint32_t)tgt;
  return PTE_OK;
}

/* Reference field: *target = 0 when absent (error if required). */
static FB_HOT pte_status fb_check_ref_field(pte_fb_verifier *v, const pte_fb_table *t, const fb_where *w, bool required,
                                     uint32_t *target) {
  uint32_t p = 0;
  *target = 0;
  pte_status s = fb_check_inline(v, t, w, 4, 4, &p);
  if (s != PTE_OK) return s;
  if (!p) {
    if (required) FB_FAIL(v, w, "is required but missing");
    return PTE_OK;
  }
  return fb_check_ref(v, w, p, target);
}

static pte_status fb_check_string(pte_fb_verifier *v, const fb_where *w, uint32_t tgt) {
  uint64_t sz = pte_fb_clamp_size(v->size);
  uint32_t len = pte_fb_ld_u32(v->buf + tgt);
  uint64_t end = (uint64_t)tgt + 4 + len;
  if (end >= sz)
    FB_FAIL(v, w, "at 0x%x: length %u past end of buffer (size 0x%llx)", (unsigned)tgt, (unsigned)len,
            fb_ull(v->size));
  if (v->buf[end] != 0) FB_FAIL(v, w, "at 0x%x (length %u) not NUL-terminated", (unsigned)tgt, (unsigned)len);
  return PTE_OK;
}

static FB_HOT pte_status fb_check_vec_body(pte_fb_verifier *v, const fb_where *w, uint32_t tgt, size_t elem_size,
                                    size_t align, pte_fb_vec *out) {
  uint64_t sz = pte_fb_clamp_size(v->size);
  uint32_t len = pte_fb_ld_u32(v->buf + tgt);
  uint64_t data = (uint64_t)tgt + 4;
  uint64_t room = sz - data;
  if (elem_size == 0 && len != 0) FB_FAIL(v, w, "element size 0");
  if (elem_size != 0 && (uint64_t)len > room / elem_size)
    FB_FAIL(v, w, "at 0x%x: length %u x %llu bytes past end of buffer (size 0x%llx)", (unsigned)tgt, (unsigned)len,
            fb_ull(elem_size), fb_ull(v->size));
  if (len != 0 && align > 1 && data % align != 0)
    FB_FAIL(v, w, "at 0x%x: element data at 0x%llx not %llu-byte aligned", (unsigned)tgt, fb_ull(data),
            fb_ull(align));
  if (out) {
    out->buf = v->buf;
    out->size = (size_t)sz;
    out->data = (uint32_t)data;
    out->len = len;
    out->present = true;
  }
  return PTE_OK;
}

pte_status pte_fb_verify_str(pte_fb_verifier *v, pte_fb_table t, unsigned slot, bool required) {
  fb_where w = {v->ctx, slot, "string", FB_NO_ELEM};
  uint32_t tgt = 0;
  pte_status s = fb_check_ref_field(v, &t, &w, required, &tgt);
  if (s != PTE_OK || !tgt) return s;
  return fb_check_string(v, &w, tgt);
}

pte_status pte_fb_verify_vec(pte_fb_verifier *v, pte_fb_table t, unsigned slot, size_t elem_size, size_t align,
                             bool required, pte_fb_vec *out) {
  fb_where w = {v->ctx, slot, "vector", FB_NO_ELEM};
  uint32_t tgt = 0;
  if (out) *out = pte_fb_absent_vec(v->buf, v->size);
  pte_status s = fb_check_ref_field(v, &t, &w, required, &tgt);
  if (s != PTE_OK || !tgt) return s;
  return fb_check_vec_body(v, &w, tgt, elem_size, align, out);
}

pte_status pte_fb_verify_vec_str(pte_fb_verifier *v, pte_fb_table t, unsigned slot, bool required) {
  fb_where w = {v->ctx, slot, "vector of strings", FB_NO_ELEM};
  uint32_t tgt = 0;
  pte_fb_vec vec = pte_fb_absent_vec(v->buf, v->size);
  pte_status s = fb_check_ref_field(v, &t, &w, required, &tgt);
  if (s != PTE_OK || !tgt) return s;
  s = fb_check_vec_body(v, &w, tgt, 4, 4, &vec);
  if (s != PTE_OK) return s;
  for (uint32_t i = 0; i < vec.len; i++) {
    fb_where we = {v->ctx, slot, "vector of strings", i};
    uint32_t st = 0;
    s = fb_check_ref(v, &we, vec.data + 4 * i, &st);
    if (s != PTE_OK) return s;
    s = fb_check_string(v, &we, st);
    if (s != PTE_OK) return s;
  }
  return PTE_OK;
}

/* Runs a nested table verifier, restoring the parent's name for later messages. */
static inline pte_status fb_call(pte_fb_verifier *v, pte_fb_verify_fn fn, uint32_t pos) {
  const char *saved = v->ctx;
  pte_status s = fn(v, pos);
  v->ctx = saved;
  return s;
}

pte_status pte_fb_verify_table_field(pte_fb_verifier *v, pte_fb_table t, unsigned slot, pte_fb_verify_fn fn,
                                     bool required) {
  fb_where w = {v->ctx, slot, "table", FB_NO_ELEM};
  uint32_t tgt = 0;
  pte_status s = fb_check_ref_field(v, &t, &w, required, &tgt);
  if (s != PTE_OK || !tgt) return s;
  if (!fn) FB_FAIL(v, &w, "has no verifier");
  return fb_call(v, fn, tgt);
}

pte_status pte_fb_verify_vec_table(pte_fb_verifier *v, pte_fb_table t, unsigned slot, pte_fb_verify_fn fn,
                                   bool required) {
  fb_where w = {v->ctx, slot, "vector of tables", FB_NO_ELEM};
  uint32_t tgt = 0;
  pte_fb_vec vec = pte_fb_absent_vec(v->buf, v->size);
  pte_status s = fb_check_ref_field(v, &t, &w, required, &tgt);
  if (s != PTE_OK || !tgt) return s;
  s = fb_check_vec_body(v, &w, tgt, 4, 4, &vec);
  if (s != PTE_OK) return s;
  if (!fn && vec.len) FB_FAIL(v, &w, "has no verifier");
  for (uint32_t i = 0; i < vec.len; i++) {
    fb_where we = {v->ctx, slot, "vector of tables", i};
    uint32_t tp = 0;
    s = fb_check_ref(v, &we, vec.data + 4 * i, &tp);
    if (s != PTE_OK) return s;
    s = fb_call(v, fn, tp);
    if (s != PTE_OK) return s;
  }
  return PTE_OK;
}

pte_status pte_fb_verify_union(pte_fb_verifier *v, pte_fb_table t, unsigned type_slot, unsigned value_slot,
                               const pte_fb_verify_fn *fn_for_tag, unsigned n_tags) {
  fb_where wt = {v->ctx, type_slot, "union type", FB_NO_ELEM};
  fb_where wv = {v->ctx, value_slot, "union", FB_NO_ELEM};
  uint32_t tp = 0, tgt = 0;
  pte_status s = fb_check_inline(v, &t, &wt, 1, 1, &tp);
  if (s != PTE_OK) return s;
  unsigned tag = tp ? v->buf[tp] : 0;
  if (tag >= n_tags) FB_FAIL(v, &wt, "tag %u out of range (%u tags including NONE)", tag, n_tags);
  s = fb_check_ref_field(v, &t, &wv, false, &tgt);
  if (s != PTE_OK) return s;
  if (tag == 0) {
    if (tgt) FB_FAIL(v, &wv, "value present but type is NONE");
    return PTE_OK;
  }
  if (!tgt) FB_FAIL(v, &wv, "type %u set but value missing", tag);
  if (!fn_for_tag || !fn_for_tag[tag]) FB_FAIL(v, &wv, "member type %u has no verifier", tag);
  return fb_call(v, fn_for_tag[tag], tgt);
}
