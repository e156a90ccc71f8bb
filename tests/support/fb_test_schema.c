/* tests/support/fb_test_schema.c — see fb_test_schema.h. */
#define _POSIX_C_SOURCE 200809L
#include "fb_test_schema.h"

#include <stdlib.h>
#include <string.h>

#include "test.h"

/* ================================================================== test schema */

const char fbt_schema[] =
    "namespace pte_test;\n"
    "enum Color : ubyte { Red = 0, Green = 1, Blue = 2 }\n"
    "struct Vec3 { x: float; y: float; z: float; }\n"
    "struct Pair { a: int; b: long; }\n"
    "table Leaf { name: string; value: int = 7; }\n"
    "table Other { flag: bool; }\n"
    "union Payload { Leaf, Other }\n"
    "table Root {\n"
    "  b: bool;\n"                              /* 0 */
    "  i8v: byte = -1;\n"                       /* 1 */
    "  u8v: ubyte = 200;\n"                     /* 2 */
    "  i16v: short = -300;\n"                   /* 3 */
    "  u16v: ushort = 60000;\n"                 /* 4 */
    "  i32v: int = -70000;\n"                   /* 5 */
    "  u32v: uint = 4000000000;\n"              /* 6 */
    "  i64v: long = -5000000000;\n"             /* 7 */
    "  u64v: ulong = 10000000000000000000;\n"   /* 8 */
    "  f32v: float = 1.5;\n"                    /* 9 */
    "  f64v: double = -2.25;\n"                 /* 10 */
    "  color: Color = Green;\n"                 /* 11 */
    "  pos: Vec3;\n"                            /* 12 */
    "  pair: Pair;\n"                           /* 13 */
    "  name: string;\n"                         /* 14 */
    "  leaf: Leaf;\n"                           /* 15 */
    "  bytes: [ubyte] (force_align: 16);\n"     /* 16 */
    "  ints: [int];\n"                          /* 17 */
    "  longs: [ulong];\n"                       /* 18 */
    "  doubles: [double];\n"                    /* 19 */
    "  names: [string];\n"                      /* 20 */
    "  leaves: [Leaf];\n"                       /* 21 */
    "  vecs: [Vec3];\n"                         /* 22 */
    "  payload: Payload;\n"                     /* 23 type, 24 value */
    "  aligned32: [ubyte] (force_align: 32);\n" /* 25 */
    "  child: Root;\n"                          /* 26 */
    "  flags: [bool];\n"                        /* 27 */
    "  shorts: [short];\n"                      /* 28 */
    "  floats: [float];\n"                      /* 29 */
    "}\n"
    "root_type Root;\n"
    "file_identifier \"PTET\";\n";



/* ---- hand-written verifier for the schema (the generator emits the same shape) */
bool fbt_leaf_name_required;

pte_status fbt_verify_leaf(pte_fb_verifier *v, uint32_t pos) {
  pte_fb_table t;
  pte_status s;
  if ((s = pte_fb_verify_table_begin(v, pos, "Leaf", &t)) != PTE_OK) return s;
  if ((s = pte_fb_verify_str(v, t, L_NAME, fbt_leaf_name_required)) != PTE_OK) return s;
  if ((s = pte_fb_verify_field(v, t, L_VALUE, 4, 4)) != PTE_OK) return s;
  pte_fb_verify_table_end(v);
  return PTE_OK;
}

static pte_status verify_other(pte_fb_verifier *v, uint32_t pos) {
  pte_fb_table t;
  pte_status s;
  if ((s = pte_fb_verify_table_begin(v, pos, "Other", &t)) != PTE_OK) return s;
  if ((s = pte_fb_verify_field(v, t, 0, 1, 1)) != PTE_OK) return s;
  pte_fb_verify_table_end(v);
  return PTE_OK;
}

static pte_status verify_root_table(pte_fb_verifier *v, uint32_t pos) {
  static const pte_fb_verify_fn payload_fns[3] = {NULL, fbt_verify_leaf, verify_other};
  static const struct { unsigned slot; size_t size; } scalars[] = {
      {R_B, 1}, {R_I8, 1}, {R_U8, 1}, {R_I16, 2}, {R_U16, 2}, {R_I32, 4},
      {R_U32, 4}, {R_I64, 8}, {R_U64, 8}, {R_F32, 4}, {R_F64, 8}};
  pte_fb_table t;
  pte_status s;
  if ((s = pte_fb_verify_table_begin(v, pos, "Root", &t)) != PTE_OK) return s;
  for (size_t i = 0; i < sizeof scalars / sizeof scalars[0]; i++)
    if ((s = pte_fb_verify_field(v, t, scalars[i].slot, scalars[i].size, scalars[i].size)) != PTE_OK) return s;
  if ((s = pte_fb_verify_enum_u8(v, t, R_COLOR, 3)) != PTE_OK) return s;
  if ((s = pte_fb_verify_field(v, t, R_POS, 12, 4)) != PTE_OK) return s;
  if ((s = pte_fb_verify_field(v, t, R_PAIR, 16, 8)) != PTE_OK) return s;
  if ((s = pte_fb_verify_str(v, t, R_NAME, false)) != PTE_OK) return s;
  if ((s = pte_fb_verify_table_field(v, t, R_LEAF, fbt_verify_leaf, false)) != PTE_OK) return s;
  if ((s = pte_fb_verify_vec(v, t, R_BYTES, 1, 16, false, NULL)) != PTE_OK) return s;
  if ((s = pte_fb_verify_vec(v, t, R_INTS, 4, 4, false, NULL)) != PTE_OK) return s;
  if ((s = pte_fb_verify_vec(v, t, R_LONGS, 8, 8, false, NULL)) != PTE_OK) return s;
  if ((s = pte_fb_verify_vec(v, t, R_DOUBLES, 8, 8, false, NULL)) != PTE_OK) return s;
  if ((s = pte_fb_verify_vec_str(v, t, R_NAMES, false)) != PTE_OK) return s;
  if ((s = pte_fb_verify_vec_table(v, t, R_LEAVES, fbt_verify_leaf, false)) != PTE_OK) return s;
  if ((s = pte_fb_verify_vec(v, t, R_VECS, 12, 4, false, NULL)) != PTE_OK) return s;
  if ((s = pte_fb_verify_union(v, t, R_PAYLOAD_TYPE, R_PAYLOAD, payload_fns, 3)) != PTE_OK) return s;
  if ((s = pte_fb_verify_vec(v, t, R_ALIGNED32, 1, 32, false, NULL)) != PTE_OK) return s;
  if ((s = pte_fb_verify_table_field(v, t, R_CHILD, verify_root_table, false)) != PTE_OK) return s;
  if ((s = pte_fb_verify_vec(v, t, R_FLAGS, 1, 1, false, NULL)) != PTE_OK) return s;
  if ((s = pte_fb_verify_vec(v, t, R_SHORTS, 2, 2, false, NULL)) != PTE_OK) return s;
  if ((s = pte_fb_verify_vec(v, t, R_FLOATS, 4, 4, false, NULL)) != PTE_OK) return s;
  pte_fb_verify_table_end(v);
  return PTE_OK;
}

unsigned fbt_max_depth, fbt_max_tables; /* 0 = defaults */

pte_status fbt_verify_buffer(const uint8_t *buf, size_t size, pte_error_info *err) {
  pte_fb_verifier v;
  uint32_t root;
  pte_fb_verifier_init(&v, buf, size, err);
  if (fbt_max_depth) v.max_depth = fbt_max_depth;
  if (fbt_max_tables) v.max_tables = fbt_max_tables;
  pte_status s = pte_fb_verify_root(&v, "PTET", &root);
  if (s != PTE_OK) return s;
  s = verify_root_table(&v, root);
  if (s == PTE_OK && v.depth != 0) return PTE_ERR_INTERNAL; /* begin/end must balance */
  return s;
}

/* ================================================================== helpers */

size_t fbt_live_allocs;
void *fbt_heap_realloc(void *ctx, void *ptr, size_t old_size, size_t new_size) {
  (void)ctx;
  (void)old_size;
  if (new_size == 0) {
    if (ptr) fbt_live_allocs--;
    free(ptr);
    return NULL;
  }
  void *p = realloc(ptr, new_size);
  if (p && !ptr) fbt_live_allocs++;
  return p;
}

/* Fails every call after `budget` successful ones. */
void *fbt_budget_realloc(void *ctx, void *ptr, size_t old_size, size_t new_size) {
  fbt_budget_ctx *c = ctx;
  if (new_size != 0) {
    if (c->calls >= c->budget) return NULL;
    c->calls++;
  }
  return fbt_heap_realloc(NULL, ptr, old_size, new_size);
}

void fbt_st_u16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }
void fbt_st_u32(uint8_t *p, uint32_t v) { for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i)); }
void fbt_st_u64(uint8_t *p, uint64_t v) { for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i)); }
static void st_f32(uint8_t *p, float f) { uint32_t u; memcpy(&u, &f, 4); fbt_st_u32(p, u); }
static void st_f64(uint8_t *p, double d) { uint64_t u; memcpy(&u, &d, 8); fbt_st_u64(p, u); }

uint8_t *fbt_dup_aligned(const uint8_t *p, size_t n) {
  void *q = NULL;
  if (posix_memalign(&q, 64, n ? n : 1) != 0) return NULL;
  if (n) memcpy(q, p, n);
  return q;
}

/* Exact-size heap copy: ASan flags any read past the end. */
uint8_t *fbt_dup_exact(const uint8_t *p, size_t n) {
  uint8_t *q = malloc(n ? n : 1);
  if (q && n) memcpy(q, p, n);
  return q;
}

pte_fb_ref fbt_mk_leaf(pte_fb_builder *b, const char *name, int32_t value) {
  pte_fb_ref n = name ? pte_fb_create_string(b, name, strlen(name)) : 0;
  pte_fb_table_start(b);
  pte_fb_add_ref(b, L_NAME, n);
  pte_fb_add_i32(b, L_VALUE, value, 7);
  return pte_fb_table_end(b);
}

static void vec3(uint8_t *p, float x, float y, float z) { st_f32(p, x); st_f32(p + 4, y); st_f32(p + 8, z); }

/* Builds the "full" Root buffer used by most tests (every field set to a non-default value). */
pte_status fbt_build_full(pte_fb_builder *b, const uint8_t **out, size_t *out_size) {
  pte_fb_ref name = pte_fb_create_string(b, "hello", 5);
  pte_fb_ref leaf = fbt_mk_leaf(b, "leaf_one", 42);
  static const uint8_t bytes[3] = {1, 2, 3};
  pte_fb_ref vbytes = pte_fb_create_vec(b, bytes, 3, 1, 16);
  uint8_t ints[16];
  fbt_st_u32(ints, (uint32_t)-1); fbt_st_u32(ints + 4, 0); fbt_st_u32(ints + 8, 2147483647u); fbt_st_u32(ints + 12, 5);
  pte_fb_ref vints = pte_fb_create_vec(b, ints, 4, 4, 4);
  uint8_t longs[16];
  fbt_st_u64(longs, 1); fbt_st_u64(longs + 8, UINT64_MAX);
  pte_fb_ref vlongs = pte_fb_create_vec(b, longs, 2, 8, 8);
  uint8_t doubles[16];
  st_f64(doubles, 0.5); st_f64(doubles + 8, -1.25);
  pte_fb_ref vdoubles = pte_fb_create_vec(b, doubles, 2, 8, 8);
  pte_fb_ref strs[3] = {pte_fb_create_string(b, "x", 1), pte_fb_create_string(b, "yz", 2),
                        pte_fb_create_string(b, "", 0)};
  pte_fb_ref vnames = pte_fb_create_vec_refs(b, strs, 3);
  pte_fb_ref lv[2] = {fbt_mk_leaf(b, "a", 7), fbt_mk_leaf(b, NULL, 3)};
  pte_fb_ref vleaves = pte_fb_create_vec_refs(b, lv, 2);
  uint8_t vecs[24];
  vec3(vecs, 1, 2, 3); vec3(vecs + 12, 4, 5, 6);
  pte_fb_ref vvecs = pte_fb_create_vec(b, vecs, 2, 12, 4);
  pte_fb_table_start(b);
  pte_fb_add_bool(b, 0, true, false);
  pte_fb_ref other = pte_fb_table_end(b);
  pte_fb_ref va32 = 0;
  uint8_t *raw = pte_fb_start_vec_raw(b, 3, 1, 32, &va32);
  if (raw) { raw[0] = 9; raw[1] = 8; raw[2] = 7; }
  pte_fb_ref kid_name = pte_fb_create_string(b, "kid", 3);
  pte_fb_table_start(b);
  pte_fb_add_i32(b, R_I32, 11, -70000);
  pte_fb_add_ref(b, R_NAME, kid_name);
  pte_fb_ref child = pte_fb_table_end(b);
  static const uint8_t flags[3] = {1, 0, 1};
  pte_fb_ref vflags = pte_fb_create_vec(b, flags, 3, 1, 1);
  uint8_t shorts[4];
  fbt_st_u16(shorts, (uint16_t)-2); fbt_st_u16(shorts + 2, 300);
  pte_fb_ref vshorts = pte_fb_create_vec(b, shorts, 2, 2, 2);
  uint8_t floats[8];
  st_f32(floats, 0.5f); st_f32(floats + 4, 2.0f);
  pte_fb_ref vfloats = pte_fb_create_vec(b, floats, 2, 4, 4);

  uint8_t pos[12], pair[16];
  vec3(pos, 1.5f, -2.0f, 4.0f);
  memset(pair, 0, sizeof pair);
  fbt_st_u32(pair, (uint32_t)-7);
  fbt_st_u64(pair + 8, 1ull << 40);

  pte_fb_table_start(b);
  pte_fb_add_bool(b, R_B, true, false);
  pte_fb_add_i8(b, R_I8, INT8_MIN, -1);
  pte_fb_add_u8(b, R_U8, 255, 200);
  pte_fb_add_i16(b, R_I16, INT16_MIN, -300);
  pte_fb_add_u16(b, R_U16, 65535, 60000);
  pte_fb_add_i32(b, R_I32, INT32_MIN, -70000);
  pte_fb_add_u32(b, R_U32, UINT32_MAX, 4000000000u);
  pte_fb_add_i64(b, R_I64, INT64_MIN, -5000000000ll);
  pte_fb_add_u64(b, R_U64, UINT64_MAX, 10000000000000000000ull);
  pte_fb_add_f32(b, R_F32, 0.25f, 1.5f);
  pte_fb_add_f64(b, R_F64, 3.125, -2.25);
  pte_fb_add_u8(b, R_COLOR, 2, 1);
  pte_fb_add_struct(b, R_POS, pos, 12, 4);
  pte_fb_add_struct(b, R_PAIR, pair, 16, 8);
  pte_fb_add_ref(b, R_NAME, name);
  pte_fb_add_ref(b, R_LEAF, leaf);
  pte_fb_add_ref(b, R_BYTES, vbytes);
  pte_fb_add_ref(b, R_INTS, vints);
  pte_fb_add_ref(b, R_LONGS, vlongs);
  pte_fb_add_ref(b, R_DOUBLES, vdoubles);
  pte_fb_add_ref(b, R_NAMES, vnames);
  pte_fb_add_ref(b, R_LEAVES, vleaves);
  pte_fb_add_ref(b, R_VECS, vvecs);
  pte_fb_add_u8(b, R_PAYLOAD_TYPE, 2, 0);
  pte_fb_add_ref(b, R_PAYLOAD, other);
  pte_fb_add_ref(b, R_ALIGNED32, va32);
  pte_fb_add_ref(b, R_CHILD, child);
  pte_fb_add_ref(b, R_FLAGS, vflags);
  pte_fb_add_ref(b, R_SHORTS, vshorts);
  pte_fb_add_ref(b, R_FLOATS, vfloats);
  pte_fb_ref root = pte_fb_table_end(b);
  return pte_fb_finish(b, root, "PTET", 0, out, out_size);
}

/* A 64-byte aligned copy of the full buffer (free with free()). */
uint8_t *fbt_full_copy(size_t *n) {
  pte_fb_builder b;
  const uint8_t *out;
  pte_fb_builder_init(&b, fbt_heap_realloc, NULL);
  uint8_t *copy = NULL;
  if (fbt_build_full(&b, &out, n) == PTE_OK) copy = fbt_dup_aligned(out, *n);
  pte_fb_builder_free(&b);
  return copy;
}

bool fbt_str_is(pte_fb_str s, const char *want) {
  return s.ptr && s.len == strlen(want) && memcmp(s.ptr, want, s.len) == 0 && s.ptr[s.len] == 0;
}

/* Checks every value fbt_build_full wrote, through the generic reader. */
void fbt_check_full_values(const uint8_t *buf, size_t n) {
  pte_fb_table r = pte_fb_root(buf, n);
  CHECK(pte_fb_table_present(r));
  CHECK(pte_fb_has_identifier(buf, n, "PTET"));
  CHECK(pte_fb_get_bool(r, R_B, false) == true);
  CHECK_EQ_INT(pte_fb_get_i8(r, R_I8, -1), INT8_MIN);
  CHECK_EQ_INT(pte_fb_get_u8(r, R_U8, 200), 255);
  CHECK_EQ_INT(pte_fb_get_i16(r, R_I16, -300), INT16_MIN);
  CHECK_EQ_INT(pte_fb_get_u16(r, R_U16, 60000), 65535);
  CHECK_EQ_INT(pte_fb_get_i32(r, R_I32, -70000), INT32_MIN);
  CHECK_EQ_INT(pte_fb_get_u32(r, R_U32, 4000000000u), UINT32_MAX);
  CHECK(pte_fb_get_i64(r, R_I64, 0) == INT64_MIN);
  CHECK(pte_fb_get_u64(r, R_U64, 0) == UINT64_MAX);
  CHECK(pte_fb_get_f32(r, R_F32, 1.5f) == 0.25f);
  CHECK(pte_fb_get_f64(r, R_F64, -2.25) == 3.125);
  CHECK_EQ_INT(pte_fb_get_u8(r, R_COLOR, 1), 2);
  const uint8_t *pos = pte_fb_get_struct(r, R_POS, 12);
  CHECK(pos != NULL);
  CHECK(pte_fb_ld_f32(pos) == 1.5f && pte_fb_ld_f32(pos + 4) == -2.0f && pte_fb_ld_f32(pos + 8) == 4.0f);
  CHECK_EQ_INT((pos - buf) % 4, 0);
  const uint8_t *pair = pte_fb_get_struct(r, R_PAIR, 16);
  CHECK(pair != NULL);
  CHECK_EQ_INT(pte_fb_ld_i32(pair), -7);
  CHECK(pte_fb_ld_u64(pair + 8) == (1ull << 40));
  CHECK_EQ_INT((pair - buf) % 8, 0);
  CHECK(fbt_str_is(pte_fb_get_str(r, R_NAME), "hello"));
  pte_fb_table leaf = pte_fb_get_table(r, R_LEAF);
  CHECK(pte_fb_table_present(leaf));
  CHECK(fbt_str_is(pte_fb_get_str(leaf, L_NAME), "leaf_one"));
  CHECK_EQ_INT(pte_fb_get_i32(leaf, L_VALUE, 7), 42);

  pte_fb_vec v = pte_fb_get_vec(r, R_BYTES);
  CHECK(v.present && v.len == 3);
  CHECK_EQ_INT(v.data % 16, 0);
  CHECK(pte_fb_vec_u8(v, 0) == 1 && pte_fb_vec_u8(v, 1) == 2 && pte_fb_vec_u8(v, 2) == 3);
  CHECK(pte_fb_vec_data(v) == buf + v.data);
  v = pte_fb_get_vec(r, R_INTS);
  CHECK(v.present && v.len == 4);
  CHECK(pte_fb_vec_i32(v, 0) == -1 && pte_fb_vec_i32(v, 1) == 0 && pte_fb_vec_i32(v, 2) == 2147483647 &&
        pte_fb_vec_i32(v, 3) == 5);
  CHECK(pte_fb_vec_u32(v, 0) == UINT32_MAX);
  v = pte_fb_get_vec(r, R_LONGS);
  CHECK(v.present && v.len == 2);
  CHECK_EQ_INT(v.data % 8, 0);
  CHECK(pte_fb_vec_u64(v, 0) == 1 && pte_fb_vec_u64(v, 1) == UINT64_MAX && pte_fb_vec_i64(v, 1) == -1);
  v = pte_fb_get_vec(r, R_DOUBLES);
  CHECK(v.present && v.len == 2 && v.data % 8 == 0);
  CHECK(pte_fb_vec_f64(v, 0) == 0.5 && pte_fb_vec_f64(v, 1) == -1.25);
  v = pte_fb_get_vec(r, R_NAMES);
  CHECK(v.present && v.len == 3);
  CHECK(fbt_str_is(pte_fb_vec_str(v, 0), "x") && fbt_str_is(pte_fb_vec_str(v, 1), "yz") && fbt_str_is(pte_fb_vec_str(v, 2), ""));
  v = pte_fb_get_vec(r, R_LEAVES);
  CHECK(v.present && v.len == 2);
  pte_fb_table l0 = pte_fb_vec_table(v, 0), l1 = pte_fb_vec_table(v, 1);
  CHECK(pte_fb_table_present(l0) && pte_fb_table_present(l1));
  CHECK(fbt_str_is(pte_fb_get_str(l0, L_NAME), "a"));
  CHECK_EQ_INT(pte_fb_get_i32(l0, L_VALUE, 7), 7);
  CHECK_EQ_INT(pte_fb_field_pos(l0, L_VALUE), 0); /* default elided */
  CHECK(pte_fb_get_str(l1, L_NAME).ptr == NULL);
  CHECK_EQ_INT(pte_fb_get_i32(l1, L_VALUE, 7), 3);
  v = pte_fb_get_vec(r, R_VECS);
  CHECK(v.present && v.len == 2);
  const uint8_t *e1 = pte_fb_vec_elem(v, 1, 12);
  CHECK(e1 && pte_fb_ld_f32(e1) == 4.0f && pte_fb_ld_f32(e1 + 8) == 6.0f);
  CHECK(pte_fb_vec_elem(v, 2, 12) == NULL);
  CHECK_EQ_INT(pte_fb_get_u8(r, R_PAYLOAD_TYPE, 0), 2);
  pte_fb_table other = pte_fb_get_table(r, R_PAYLOAD);
  CHECK(pte_fb_table_present(other) && pte_fb_get_bool(other, 0, false));
  v = pte_fb_get_vec(r, R_ALIGNED32);
  CHECK(v.present && v.len == 3 && v.data % 32 == 0);
  CHECK(pte_fb_vec_u8(v, 0) == 9 && pte_fb_vec_u8(v, 1) == 8 && pte_fb_vec_u8(v, 2) == 7);
  pte_fb_table child = pte_fb_get_table(r, R_CHILD);
  CHECK(pte_fb_table_present(child));
  CHECK_EQ_INT(pte_fb_get_i32(child, R_I32, -70000), 11);
  CHECK_EQ_INT(pte_fb_get_i64(child, R_I64, -5000000000ll), -5000000000ll);
  CHECK(fbt_str_is(pte_fb_get_str(child, R_NAME), "kid"));
  CHECK(!pte_fb_table_present(pte_fb_get_table(child, R_CHILD)));
  v = pte_fb_get_vec(r, R_FLAGS);
  CHECK(v.present && v.len == 3 && pte_fb_vec_u8(v, 0) == 1 && pte_fb_vec_u8(v, 1) == 0 && pte_fb_vec_u8(v, 2) == 1);
  v = pte_fb_get_vec(r, R_SHORTS);
  CHECK(v.present && v.len == 2 && v.data % 2 == 0);
  CHECK_EQ_INT((int16_t)pte_fb_ld_u16(pte_fb_vec_elem(v, 0, 2)), -2);
  CHECK_EQ_INT(pte_fb_ld_u16(pte_fb_vec_elem(v, 1, 2)), 300);
  v = pte_fb_get_vec(r, R_FLOATS);
  CHECK(v.present && v.len == 2 && pte_fb_ld_f32(pte_fb_vec_elem(v, 1, 4)) == 2.0f);
}
