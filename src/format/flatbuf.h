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

/* Root table of a buffer (absent if the root offset or vtable is out of range). */
pte_fb_table pte_fb_root(const uint8_t *buf, size_t size);
/* Table at absolute position pos (absent if out of range). */
pte_fb_table pte_fb_table_at(const uint8_t *buf, size_t size, uint32_t pos);
static inline bool pte_fb_table_present(pte_fb_table t) { return t.pos != 0; }

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

/* Absolute position of field `slot`'s inline data, or 0 when absent. */
uint32_t pte_fb_field_pos(pte_fb_table t, unsigned slot);

/* Scalars with defaults (absent or out of range -> def). */
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

/* Reference fields. */
pte_fb_table pte_fb_get_table(pte_fb_table t, unsigned slot);
pte_fb_vec pte_fb_get_vec(pte_fb_table t, unsigned slot);
pte_fb_str pte_fb_get_str(pte_fb_table t, unsigned slot);
/* Inline struct field: pointer to its bytes, or NULL when absent / out of range. */
const uint8_t *pte_fb_get_struct(pte_fb_table t, unsigned slot, size_t struct_size);

/* Vector elements (index out of range -> default / absent). */
const uint8_t *pte_fb_vec_elem(pte_fb_vec v, uint32_t i, size_t elem_size); /* NULL if out of range */
uint8_t pte_fb_vec_u8(pte_fb_vec v, uint32_t i);
int32_t pte_fb_vec_i32(pte_fb_vec v, uint32_t i);
uint32_t pte_fb_vec_u32(pte_fb_vec v, uint32_t i);
int64_t pte_fb_vec_i64(pte_fb_vec v, uint32_t i);
uint64_t pte_fb_vec_u64(pte_fb_vec v, uint32_t i);
double pte_fb_vec_f64(pte_fb_vec v, uint32_t i);
pte_fb_table pte_fb_vec_table(pte_fb_vec v, uint32_t i);
pte_fb_str pte_fb_vec_str(pte_fb_vec v, uint32_t i);
/* Pointer to element 0 (NULL when absent); elements are little-endian. */
static inline const uint8_t *pte_fb_vec_data(pte_fb_vec v) { return v.present ? v.buf + v.data : NULL; }

/* File identifier at bytes 4..7 matches `ident` (4 chars). */
bool pte_fb_has_identifier(const uint8_t *buf, size_t size, const char *ident);

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
