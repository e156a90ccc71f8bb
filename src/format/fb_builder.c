/* fb_builder.c — back-to-front FlatBuffers builder.
 *
 * Bytes are written downward from the end of `buf`; a pte_fb_ref is the distance of an object
 * from the end, so it stays valid when the buffer is reallocated (live bytes are moved to the
 * end of the new block). Alignment is computed relative to the end; pte_fb_finish pads the
 * front so the total size is a multiple of the largest alignment used, which makes every
 * alignment hold relative to the start too. Memory comes only from the realloc callback.
 */
#include "format/flatbuf.h"

/* uoffsets are u32 and verifiers treat them as signed: keep the whole buffer below 2 GiB. */
#define FB_MAX_SIZE ((size_t)0x7FFFFFFF)
/* Largest slot whose vtable (4 + 2*(slot+1) bytes) still fits a u16 length. */
#define FB_MAX_SLOT 32762u

static inline void fb_st_u16(uint8_t *p, uint16_t v) {
  p[0] = (uint8_t)v;
  p[1] = (uint8_t)(v >> 8);
}
static inline void fb_st_u32(uint8_t *p, uint32_t v) {
  p[0] = (uint8_t)v;
  p[1] = (uint8_t)(v >> 8);
  p[2] = (uint8_t)(v >> 16);
  p[3] = (uint8_t)(v >> 24);
}
static inline void fb_st_u64(uint8_t *p, uint64_t v) {
  fb_st_u32(p, (uint32_t)v);
  fb_st_u32(p + 4, (uint32_t)(v >> 32));
}

static inline bool fbb_fail(pte_fb_builder *b, pte_status s) {
  if (b->status == PTE_OK) b->status = s;
  return false;
}

static inline bool fb_pow2(size_t a) { return a != 0 && (a & (a - 1)) == 0; }

void pte_fb_builder_init(pte_fb_builder *b, pte_fb_realloc_fn fn, void *ctx) {
  memset(b, 0, sizeof *b);
  b->realloc_fn = fn;
  b->realloc_ctx = ctx;
  b->max_align = 1;
  b->status = PTE_OK;
}

void pte_fb_builder_free(pte_fb_builder *b) {
  if (b->realloc_fn) {
    if (b->buf) b->realloc_fn(b->realloc_ctx, b->buf, b->cap, 0);
    if (b->field_pos) b->realloc_fn(b->realloc_ctx, b->field_pos, (size_t)b->field_cap * sizeof(uint32_t), 0);
    if (b->vtables) b->realloc_fn(b->realloc_ctx, b->vtables, (size_t)b->vtables_cap * sizeof(uint32_t), 0);
  }
  pte_fb_builder_init(b, b->realloc_fn, b->realloc_ctx);
}

/* Makes room for n more bytes below the live data. */
static bool fb_reserve(pte_fb_builder *b, size_t n) {
  if (b->status != PTE_OK) return false;
  if (n > FB_MAX_SIZE - b->used) return fbb_fail(b, PTE_ERR_OUT_OF_RESOURCES);
  if (b->cap - b->used >= n) return true;
  if (!b->realloc_fn) return fbb_fail(b, PTE_ERR_MEMORY_ALLOCATION_FAILED);
  size_t need = b->used + n;
  size_t ncap = b->cap < 256 ? 256 : b->cap;
  while (ncap < need) ncap = ncap > FB_MAX_SIZE ? need : ncap * 2;
  uint8_t *nb = (uint8_t *)b->realloc_fn(b->realloc_ctx, b->buf, b->cap, ncap);
  if (!nb) return fbb_fail(b, PTE_ERR_MEMORY_ALLOCATION_FAILED);
  if (b->used) memmove(nb + ncap - b->used, nb + b->cap - b->used, b->used);
  b->buf = nb;
  b->cap = ncap;
  return true;
}

/* Current front of the live data (valid after a successful reserve). */
static inline uint8_t *fb_front(pte_fb_builder *b) { return b->buf + b->cap - b->used; }

static bool fb_pad(pte_fb_builder *b, size_t n) {
  if (n == 0) return b->status == PTE_OK;
  if (!fb_reserve(b, n)) return false;
  b->used += n;
  memset(fb_front(b), 0, n);
  return true;
}

static bool fb_push(pte_fb_builder *b, const void *data, size_t n) {
  if (!fb_reserve(b, n)) return false;
  b->used += n;
  if (n) memcpy(fb_front(b), data, n);
  return true;
}

static bool fb_push_u32(pte_fb_builder *b, uint32_t v) {
  if (!fb_reserve(b, 4)) return false;
  b->used += 4;
  fb_st_u32(fb_front(b), v);
  return true;
}

static bool fb_prep_ok(pte_fb_builder *b, size_t align, size_t len) {
  if (b->status != PTE_OK) return false;
  if (align == 0) align = 1;
  if (!fb_pow2(align) || align > 0x10000) return fbb_fail(b, PTE_ERR_INVALID_ARGUMENT);
  if (len > FB_MAX_SIZE) return fbb_fail(b, PTE_ERR_OUT_OF_RESOURCES);
  if (align > b->max_align) b->max_align = align;
  size_t pad = (size_t)(0u - (b->used + len)) & (align - 1);
  return fb_pad(b, pad);
}

static bool fb_not_nested(pte_fb_builder *b) {
  if (b->status != PTE_OK) return false;
  if (b->in_table) return fbb_fail(b, PTE_ERR_INVALID_STATE);
  return true;
}

pte_fb_ref pte_fb_create_string(pte_fb_builder *b, const char *s, size_t len) {
  if (!fb_not_nested(b)) return 0;
  if (len > FB_MAX_SIZE) { fbb_fail(b, PTE_ERR_OUT_OF_RESOURCES); return 0; }
  if (!s && len) { fbb_fail(b, PTE_ERR_INVALID_ARGUMENT); return 0; }
  if (!fb_prep_ok(b, 4, len + 1) || !fb_pad(b, 1) || !fb_push(b, s, len) || !fb_push_u32(b, (uint32_t)len)) return 0;
  return (pte_fb_ref)b->used;
}

/* Natural alignment of an element of this size: its lowest set bit, capped at 8. */
static inline size_t fb_elem_align(size_t elem_size) {
  size_t a = elem_size & (0u - elem_size);
  return a > 8 ? 8 : (a ? a : 1);
}

/* Aligns for a vector of n bytes with element data aligned to `align`, then checks room for
 * the data and the count. */
static bool fb_vec_prep(pte_fb_builder *b, size_t count, size_t elem_size, size_t align, size_t *nbytes) {
  if (!fb_not_nested(b)) return false;
  if (elem_size == 0 || (align != 0 && !fb_pow2(align))) return fbb_fail(b, PTE_ERR_INVALID_ARGUMENT);
#if SIZE_MAX > 0xFFFFFFFFu
  if ((uint64_t)count > 0xFFFFFFFFull) return fbb_fail(b, PTE_ERR_OUT_OF_RESOURCES);
#endif
  if (count > FB_MAX_SIZE / elem_size) return fbb_fail(b, PTE_ERR_OUT_OF_RESOURCES);
  size_t n = count * elem_size;
  size_t a = fb_elem_align(elem_size);
  if (align > a) a = align;
  if (!fb_prep_ok(b, 4, n) || !fb_prep_ok(b, a, n) || !fb_reserve(b, n + 4)) return false;
  *nbytes = n;
  return true;
}

pte_fb_ref pte_fb_create_vec(pte_fb_builder *b, const void *data, size_t count, size_t elem_size, size_t align) {
  size_t n;
  if (count && !data) { if (fb_not_nested(b)) fbb_fail(b, PTE_ERR_INVALID_ARGUMENT); return 0; }
  if (!fb_vec_prep(b, count, elem_size, align, &n)) return 0;
  if (!fb_push(b, data, n) || !fb_push_u32(b, (uint32_t)count)) return 0;
  return (pte_fb_ref)b->used;
}

uint8_t *pte_fb_start_vec_raw(pte_fb_builder *b, size_t count, size_t elem_size, size_t align, pte_fb_ref *ref) {
  size_t n;
  if (ref) *ref = 0;
  if (!fb_vec_prep(b, count, elem_size, align, &n)) return NULL;
  b->used += n; /* room for n + 4 is reserved: no reallocation below */
  size_t data_at = b->cap - b->used;
  fb_push_u32(b, (uint32_t)count);
  if (ref) *ref = (pte_fb_ref)b->used;
  return b->buf + data_at;
}

pte_fb_ref pte_fb_create_vec_refs(pte_fb_builder *b, const pte_fb_ref *refs, size_t count) {
  size_t n;
  if (count && !refs) { if (fb_not_nested(b)) fbb_fail(b, PTE_ERR_INVALID_ARGUMENT); return 0; }
  if (!fb_vec_prep(b, count, 4, 4, &n)) return 0;
  size_t written = b->used; /* every ref must name something already written */
  for (size_t i = count; i-- > 0;) {
    if (refs[i] == 0 || refs[i] > written) { fbb_fail(b, PTE_ERR_INVALID_ARGUMENT); return 0; }
    b->used += 4;
    fb_st_u32(fb_front(b), (uint32_t)(b->used - refs[i]));
  }
  if (!fb_push_u32(b, (uint32_t)count)) return 0;
  return (pte_fb_ref)b->used;
}

/* ------------------------------------------------------------------ tables */

void pte_fb_table_start(pte_fb_builder *b) {
  if (!fb_not_nested(b)) return;
  b->in_table = true;
  b->field_max = 0;
  b->table_start = b->used;
}

static bool fb_in_table(pte_fb_builder *b, unsigned slot) {
  if (b->status != PTE_OK) return false;
  if (!b->in_table) return fbb_fail(b, PTE_ERR_INVALID_STATE);
  if (slot > FB_MAX_SLOT) return fbb_fail(b, PTE_ERR_INVALID_ARGUMENT);
  if (slot >= b->field_cap) {
    unsigned ncap = b->field_cap ? b->field_cap : 16;
    while (ncap <= slot) ncap *= 2;
    if (!b->realloc_fn) return fbb_fail(b, PTE_ERR_MEMORY_ALLOCATION_FAILED);
    uint32_t *nf = (uint32_t *)b->realloc_fn(b->realloc_ctx, b->field_pos, (size_t)b->field_cap * sizeof(uint32_t),
                                             (size_t)ncap * sizeof(uint32_t));
    if (!nf) return fbb_fail(b, PTE_ERR_MEMORY_ALLOCATION_FAILED);
    memset(nf + b->field_cap, 0, (size_t)(ncap - b->field_cap) * sizeof(uint32_t));
    b->field_pos = nf;
    b->field_cap = ncap;
  }
  return true;
}

static inline void fb_track(pte_fb_builder *b, unsigned slot) {
  b->field_pos[slot] = (uint32_t)b->used;
  if (slot + 1 > b->field_max) b->field_max = slot + 1;
}

/* Pushes n scalar bytes aligned to n (n = 1, 2, 4, 8) and records the field. */
static void fb_add_scalar(pte_fb_builder *b, unsigned slot, const uint8_t *le, size_t n) {
  if (!fb_in_table(b, slot) || !fb_prep_ok(b, n, n) || !fb_push(b, le, n)) return;
  fb_track(b, slot);
}

#define FB_ELIDE(v, def) (!b->force_defaults && (v) == (def))

void pte_fb_add_u8(pte_fb_builder *b, unsigned slot, uint8_t v, uint8_t def) {
  if (FB_ELIDE(v, def)) return;
  fb_add_scalar(b, slot, &v, 1);
}
void pte_fb_add_i8(pte_fb_builder *b, unsigned slot, int8_t v, int8_t def) {
  if (FB_ELIDE(v, def)) return;
  uint8_t u = (uint8_t)v;
  fb_add_scalar(b, slot, &u, 1);
}
void pte_fb_add_bool(pte_fb_builder *b, unsigned slot, bool v, bool def) {
  if (FB_ELIDE(v, def)) return;
  uint8_t u = v ? 1 : 0;
  fb_add_scalar(b, slot, &u, 1);
}
void pte_fb_add_u16(pte_fb_builder *b, unsigned slot, uint16_t v, uint16_t def) {
  if (FB_ELIDE(v, def)) return;
  uint8_t le[2];
  fb_st_u16(le, v);
  fb_add_scalar(b, slot, le, 2);
}
void pte_fb_add_i16(pte_fb_builder *b, unsigned slot, int16_t v, int16_t def) {
  if (FB_ELIDE(v, def)) return;
  uint8_t le[2];
  fb_st_u16(le, (uint16_t)v);
  fb_add_scalar(b, slot, le, 2);
}
static void fb_add_u32_raw(pte_fb_builder *b, unsigned slot, uint32_t v) {
  uint8_t le[4];
  fb_st_u32(le, v);
  fb_add_scalar(b, slot, le, 4);
}
static void fb_add_u64_raw(pte_fb_builder *b, unsigned slot, uint64_t v) {
  uint8_t le[8];
  fb_st_u64(le, v);
  fb_add_scalar(b, slot, le, 8);
}
void pte_fb_add_u32(pte_fb_builder *b, unsigned slot, uint32_t v, uint32_t def) {
  if (FB_ELIDE(v, def)) return;
  fb_add_u32_raw(b, slot, v);
}
void pte_fb_add_i32(pte_fb_builder *b, unsigned slot, int32_t v, int32_t def) {
  if (FB_ELIDE(v, def)) return;
  fb_add_u32_raw(b, slot, (uint32_t)v);
}
void pte_fb_add_u64(pte_fb_builder *b, unsigned slot, uint64_t v, uint64_t def) {
  if (FB_ELIDE(v, def)) return;
  fb_add_u64_raw(b, slot, v);
}
void pte_fb_add_i64(pte_fb_builder *b, unsigned slot, int64_t v, int64_t def) {
  if (FB_ELIDE(v, def)) return;
  fb_add_u64_raw(b, slot, (uint64_t)v);
}
void pte_fb_add_f32(pte_fb_builder *b, unsigned slot, float v, float def) {
  if (FB_ELIDE(v, def)) return;
  uint32_t u;
  memcpy(&u, &v, 4);
  fb_add_u32_raw(b, slot, u);
}
void pte_fb_add_f64(pte_fb_builder *b, unsigned slot, double v, double def) {
  if (FB_ELIDE(v, def)) return;
  uint64_t u;
  memcpy(&u, &v, 8);
  fb_add_u64_raw(b, slot, u);
}
void pte_fb_add_u64_forced(pte_fb_builder *b, unsigned slot, uint64_t v) { fb_add_u64_raw(b, slot, v); }
void pte_fb_add_u32_forced(pte_fb_builder *b, unsigned slot, uint32_t v) { fb_add_u32_raw(b, slot, v); }

void pte_fb_add_ref(pte_fb_builder *b, unsigned slot, pte_fb_ref ref) {
  if (ref == 0) return;
  if (!fb_in_table(b, slot) || !fb_prep_ok(b, 4, 4)) return;
  if (ref > b->used) { fbb_fail(b, PTE_ERR_INVALID_ARGUMENT); return; }
  if (!fb_push_u32(b, (uint32_t)(b->used + 4 - ref))) return;
  fb_track(b, slot);
}

void pte_fb_add_struct(pte_fb_builder *b, unsigned slot, const void *data, size_t size, size_t align) {
  if (!fb_in_table(b, slot)) return;
  if (!data || size == 0 || size > 0xFFFF) { fbb_fail(b, PTE_ERR_INVALID_ARGUMENT); return; }
  if (!fb_prep_ok(b, align, size) || !fb_push(b, data, size)) return;
  fb_track(b, slot);
}

/* Remembers a new vtable for deduplication (best effort: on allocation failure it is simply
 * not shared later). */
static void fb_remember_vtable(pte_fb_builder *b, uint32_t ref) {
  if (b->n_vtables == b->vtables_cap) {
    unsigned ncap = b->vtables_cap ? b->vtables_cap * 2 : 16;
    uint32_t *nv = (uint32_t *)b->realloc_fn(b->realloc_ctx, b->vtables, (size_t)b->vtables_cap * sizeof(uint32_t),
                                             (size_t)ncap * sizeof(uint32_t));
    if (!nv) return;
    b->vtables = nv;
    b->vtables_cap = ncap;
  }
  b->vtables[b->n_vtables++] = ref;
}

pte_fb_ref pte_fb_table_end(pte_fb_builder *b) {
  if (b->status != PTE_OK) return 0;
  if (!b->in_table) { fbb_fail(b, PTE_ERR_INVALID_STATE); return 0; }
  /* soffset placeholder: the table starts here */
  if (!fb_prep_ok(b, 4, 4) || !fb_push_u32(b, 0)) return 0;
  size_t obj = b->used;
  size_t tbl_size = obj - b->table_start;
  if (tbl_size > 0xFFFF) { fbb_fail(b, PTE_ERR_OUT_OF_RESOURCES); return 0; }
  size_t vt_len = 4 + 2 * (size_t)b->field_max;
  if (!fb_reserve(b, vt_len)) return 0;
  b->used += vt_len;
  uint8_t *vt = fb_front(b);
  fb_st_u16(vt, (uint16_t)vt_len);
  fb_st_u16(vt + 2, (uint16_t)tbl_size);
  for (unsigned k = 0; k < b->field_max; k++) {
    uint32_t f = b->field_pos[k];
    fb_st_u16(vt + 4 + 2 * k, f ? (uint16_t)(obj - f) : 0);
    b->field_pos[k] = 0;
  }
  b->field_max = 0;
  b->in_table = false;

  size_t vt_use = b->used;
  for (unsigned i = 0; i < b->n_vtables; i++) {
    const uint8_t *old = b->buf + b->cap - b->vtables[i];
    if (pte_fb_ld_u16(old) == vt_len && memcmp(old, vt, vt_len) == 0) {
      vt_use = b->vtables[i];
      b->used -= vt_len; /* drop the duplicate */
      break;
    }
  }
  if (vt_use == b->used) fb_remember_vtable(b, (uint32_t)vt_use);
  /* vtable = table - soffset; distances are from the end, so soffset = vt_use - obj */
  fb_st_u32(b->buf + b->cap - obj, (uint32_t)(int32_t)((int64_t)vt_use - (int64_t)obj));
  return (pte_fb_ref)obj;
}

pte_status pte_fb_finish(pte_fb_builder *b, pte_fb_ref root, const char *ident, size_t min_align,
                         const uint8_t **out, size_t *out_size) {
  if (out) *out = NULL;
  if (out_size) *out_size = 0;
  if (!fb_not_nested(b)) return b->status;
  if (root == 0 || root > b->used || (min_align != 0 && !fb_pow2(min_align))) {
    fbb_fail(b, PTE_ERR_INVALID_ARGUMENT);
    return b->status;
  }
  size_t a = b->max_align > min_align ? b->max_align : min_align;
  if (a < 4) a = 4;
  if (!fb_prep_ok(b, a, ident ? 8 : 4)) return b->status;
  if (ident && !fb_push(b, ident, 4)) return b->status;
  if (!fb_push_u32(b, (uint32_t)(b->used + 4 - root))) return b->status;
  b->n_vtables = 0; /* vtables of a finished buffer are not shared further */
  if (out) *out = fb_front(b);
  if (out_size) *out_size = b->used;
  return PTE_OK;
}
