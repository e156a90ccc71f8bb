/* fb_json.h — support for the code that tools/fbsgen generates from the schema files (internal).
 *
 * 1. A JSON writer (pte_fb_json_*) used by the generated <P>_<Table>_to_json() functions. Output
 *    goes through a caller-supplied write callback: no stdio, no allocation. Numbers: integers are
 *    exact; doubles and floats are printed with the fewest digits that read back to the same
 *    value (so 0.1 prints as 0.1, 1e300 as 1e+300); NaN / infinities print as nan, inf, -inf
 *    (as flatc does — not strict JSON).
 * 2. Field descriptors (pte_fbgen_field / pte_fbgen_type): every generated table and struct has a
 *    <P>_<T>_fields[] array {name, type, slot, offset, kind, elem_kind, flags} ending in a
 *    {NULL} entry, and every schema a <P>_types[] list, for tools and tests.
 * 3. Little-endian store and vector-building helpers used by the generated builder functions.
 */
#ifndef PTE_FORMAT_FB_JSON_H
#define PTE_FORMAT_FB_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "format/flatbuf.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ JSON writer */

/* Receives output text (not NUL-terminated). */
typedef void (*pte_fb_json_write_fn)(void *ctx, const char *data, size_t len);

/* Flags for the generated <P>_<T>_to_json(t, sink, flags). */
/* Print only fields stored in the buffer (like flatc without --defaults-json). Default (0): every
 * scalar field, with its schema default when absent (like flatc --defaults-json). Absent strings,
 * vectors, tables and union values are never printed. */
#define PTE_FB_JSON_OMIT_DEFAULTS 1u

#define PTE_FB_JSON_MAX_DEPTH 160

typedef struct pte_fb_json_sink {
  pte_fb_json_write_fn write;
  void *ctx;
  bool pretty;      /* newlines + 2-space indentation */
  bool after_key;   /* a key was just written: the next value needs no separator */
  unsigned depth;   /* open containers */
  uint8_t state[PTE_FB_JSON_MAX_DEPTH]; /* per level: bit0 array, bit1 has items, bit2 has containers */
} pte_fb_json_sink;

/* Initialises a sink writing through fn(ctx, ...). pretty: indented multi-line output. */
void pte_fb_json_sink_init(pte_fb_json_sink *s, pte_fb_json_write_fn fn, void *ctx, bool pretty);

/* Structure. A value written inside an array gets its separator automatically; inside an
 * object, write pte_fb_json_key() first. Nesting deeper than PTE_FB_JSON_MAX_DEPTH still produces
 * valid JSON (only the pretty layout degrades). */
void pte_fb_json_begin_object(pte_fb_json_sink *s);
void pte_fb_json_end_object(pte_fb_json_sink *s);
void pte_fb_json_begin_array(pte_fb_json_sink *s);
void pte_fb_json_end_array(pte_fb_json_sink *s);
void pte_fb_json_key(pte_fb_json_sink *s, const char *name);

/* Values. */
void pte_fb_json_null(pte_fb_json_sink *s);
void pte_fb_json_bool(pte_fb_json_sink *s, bool v);
void pte_fb_json_int(pte_fb_json_sink *s, int64_t v);
void pte_fb_json_uint(pte_fb_json_sink *s, uint64_t v);
void pte_fb_json_f64(pte_fb_json_sink *s, double v);
void pte_fb_json_f32(pte_fb_json_sink *s, float v);
/* A JSON string of len bytes: ", \ and control characters are escaped, valid UTF-8 passes
 * through, bytes that are not valid UTF-8 are written as \u00XX (their Latin-1 reading). */
void pte_fb_json_string(pte_fb_json_sink *s, const char *str, size_t len);
/* An enum value: "name" when name != NULL, else the number (v as unsigned if is_unsigned). */
void pte_fb_json_enum(pte_fb_json_sink *s, const char *name, int64_t v, int is_unsigned);
/* A bit_flags enum value as flatc prints it: the name of a value equal to v, else the names of
 * all values whose bits make up v exactly (in declaration order, separated by spaces), else the
 * number. names/values: the enum's n values. */
void pte_fb_json_bit_flags(pte_fb_json_sink *s, uint64_t v, const char *const *names, const uint64_t *values, unsigned n);

/* Number formatting into out (NUL-terminated); returns the length. out needs 32 bytes. */
size_t pte_fb_json_format_i64(int64_t v, char out[32]);
size_t pte_fb_json_format_u64(uint64_t v, char out[32]);
/* Shortest decimal that reads back (round-to-nearest) as exactly v; "nan", "inf", "-inf". */
size_t pte_fb_json_format_f64(double v, char out[32]);
size_t pte_fb_json_format_f32(float v, char out[32]);

/* ------------------------------------------------------------------ descriptors */

typedef enum pte_fbgen_kind {
  PTE_FBGEN_NONE = 0,
  PTE_FBGEN_BOOL,
  PTE_FBGEN_I8,
  PTE_FBGEN_U8,
  PTE_FBGEN_I16,
  PTE_FBGEN_U16,
  PTE_FBGEN_I32,
  PTE_FBGEN_U32,
  PTE_FBGEN_I64,
  PTE_FBGEN_U64,
  PTE_FBGEN_F32,
  PTE_FBGEN_F64,
  PTE_FBGEN_STRING,
  PTE_FBGEN_TABLE,
  PTE_FBGEN_STRUCT,
  PTE_FBGEN_UNION_TYPE, /* the u8 tag slot of a union field (named "<field>_type") */
  PTE_FBGEN_UNION,      /* the value slot of a union field */
  PTE_FBGEN_VECTOR
} pte_fbgen_kind;

#define PTE_FBGEN_F_DEPRECATED 1u
#define PTE_FBGEN_F_REQUIRED 2u
#define PTE_FBGEN_F_ENUM 4u /* the scalar (or vector element) is an enum of that integer kind */

typedef struct pte_fbgen_field {
  const char *name;  /* as in the schema; union tag slots are "<field>_type" */
  const char *type;  /* schema type: "int", "[ubyte]", "executorch_flatbuffer.ScalarType", ... */
  uint16_t slot;     /* tables: vtable slot (voffset = 4 + 2*slot); structs: field index */
  uint16_t offset;   /* structs: byte offset; tables: 0 */
  uint8_t kind;      /* pte_fbgen_kind (enums: their integer kind + PTE_FBGEN_F_ENUM) */
  uint8_t elem_kind; /* vectors: element kind; else PTE_FBGEN_NONE */
  uint8_t flags;     /* PTE_FBGEN_F_* */
} pte_fbgen_field;

typedef struct pte_fbgen_type {
  const char *name;               /* fully qualified, e.g. "executorch_flatbuffer.Tensor" */
  const pte_fbgen_field *fields;  /* n_fields entries + a {NULL} terminator */
  uint16_t n_fields;
  uint8_t is_struct;
  uint16_t size, align;           /* structs only */
} pte_fbgen_type;

/* Size in bytes of a scalar kind (0 for non-scalars). */
size_t pte_fbgen_kind_size(pte_fbgen_kind k);
/* Element i of a scalar vector of kind k, widened to 64 bits (floats: their bit pattern). */
int64_t pte_fbgen_vec_scalar(pte_fb_vec v, uint32_t i, pte_fbgen_kind k);
/* Writes a scalar vector of kind k as a JSON array. */
void pte_fb_json_vec(pte_fb_json_sink *s, pte_fb_vec v, pte_fbgen_kind k);
/* Writes a vector of strings as a JSON array. */
void pte_fb_json_vec_str(pte_fb_json_sink *s, pte_fb_vec v);

/* ------------------------------------------------------------------ builder helpers */

static inline void pte_fbgen_st_u16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }
static inline void pte_fbgen_st_u32(uint8_t *p, uint32_t v) {
  p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); p[2] = (uint8_t)(v >> 16); p[3] = (uint8_t)(v >> 24);
}
static inline void pte_fbgen_st_u64(uint8_t *p, uint64_t v) {
  pte_fbgen_st_u32(p, (uint32_t)v);
  pte_fbgen_st_u32(p + 4, (uint32_t)(v >> 32));
}
static inline void pte_fbgen_st_f32(uint8_t *p, float v) { uint32_t u; memcpy(&u, &v, 4); pte_fbgen_st_u32(p, u); }
static inline void pte_fbgen_st_f64(uint8_t *p, double v) { uint64_t u; memcpy(&u, &v, 8); pte_fbgen_st_u64(p, u); }

/* Vectors of n host-order 2/4/8-byte scalars (the bytes are stored little-endian), element data
 * aligned to `align` (>= the element size). Return 0 on failure (b->status says why). */
pte_fb_ref pte_fbgen_create_vec_16(pte_fb_builder *b, const void *v, size_t n, size_t align);
pte_fb_ref pte_fbgen_create_vec_32(pte_fb_builder *b, const void *v, size_t n, size_t align);
pte_fb_ref pte_fbgen_create_vec_64(pte_fb_builder *b, const void *v, size_t n, size_t align);
/* Vector of bools (stored as bytes 0/1). */
pte_fb_ref pte_fbgen_create_vec_bool(pte_fb_builder *b, const bool *v, size_t n, size_t align);

#ifdef __cplusplus
}
#endif
#endif
