/* tests/support/fb_test_schema.h — a test FlatBuffers schema (every field kind: scalars, enum,
 * structs, strings, vectors of each, a union, nested tables) for the flatbuf tests
 * (test_flatbuf.c, test_flatbuf_verify.c): its text for flatc, its slot numbers, a hand-written
 * verifier of the shape the generator emits, a builder of a fully populated buffer and the check
 * of its values, and byte-level helpers for corrupting buffers. */
#ifndef PTE_TESTS_FB_TEST_SCHEMA_H
#define PTE_TESTS_FB_TEST_SCHEMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "format/flatbuf.h"

/* The schema (flatc input). */
extern const char fbt_schema[];

/* Slots of Root (R_*) and Leaf (L_*). */
enum {
  R_B, R_I8, R_U8, R_I16, R_U16, R_I32, R_U32, R_I64, R_U64, R_F32, R_F64, R_COLOR, R_POS, R_PAIR, R_NAME, R_LEAF,
  R_BYTES, R_INTS, R_LONGS, R_DOUBLES, R_NAMES, R_LEAVES, R_VECS, R_PAYLOAD_TYPE, R_PAYLOAD, R_ALIGNED32, R_CHILD,
  R_FLAGS, R_SHORTS, R_FLOATS
};
enum { L_NAME, L_VALUE };

/* The verifier: Leaf.name required when fbt_leaf_name_required; verifier limits when non-zero. */
extern bool fbt_leaf_name_required;
extern unsigned fbt_max_depth, fbt_max_tables; /* 0 = defaults */

/* Live blocks of fbt_heap_realloc (a realloc-style callback counting allocations). */
extern size_t fbt_live_allocs;
/* Fails every call after `budget` successful ones. */
typedef struct { int budget; int calls; } fbt_budget_ctx;
pte_status fbt_verify_leaf(pte_fb_verifier *v, uint32_t pos);
pte_status fbt_verify_buffer(const uint8_t *buf, size_t size, pte_error_info *err);
void *fbt_heap_realloc(void *ctx, void *ptr, size_t old_size, size_t new_size);
void *fbt_budget_realloc(void *ctx, void *ptr, size_t old_size, size_t new_size);
void fbt_st_u16(uint8_t *p, uint16_t v);
void fbt_st_u32(uint8_t *p, uint32_t v);
void fbt_st_u64(uint8_t *p, uint64_t v);
uint8_t *fbt_dup_aligned(const uint8_t *p, size_t n);
uint8_t *fbt_dup_exact(const uint8_t *p, size_t n);
pte_fb_ref fbt_mk_leaf(pte_fb_builder *b, const char *name, int32_t value);
pte_status fbt_build_full(pte_fb_builder *b, const uint8_t **out, size_t *out_size);
uint8_t *fbt_full_copy(size_t *n);
bool fbt_str_is(pte_fb_str s, const char *want);
void fbt_check_full_values(const uint8_t *buf, size_t n);

#endif
