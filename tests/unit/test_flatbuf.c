#define _POSIX_C_SOURCE 200809L
/* test_flatbuf.c — FlatBuffers core: reader, verifier, builder, and round trips through Google's
 * flatc (PTE_FLATC) to prove the bytes are real FlatBuffers. */
#include "format/flatbuf.h"
#include "test.h"

#include <dirent.h>
#include <sys/stat.h>

/* ================================================================== test schema */

static const char k_schema[] =
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

enum {
  R_B, R_I8, R_U8, R_I16, R_U16, R_I32, R_U32, R_I64, R_U64, R_F32, R_F64, R_COLOR, R_POS, R_PAIR, R_NAME, R_LEAF,
  R_BYTES, R_INTS, R_LONGS, R_DOUBLES, R_NAMES, R_LEAVES, R_VECS, R_PAYLOAD_TYPE, R_PAYLOAD, R_ALIGNED32, R_CHILD,
  R_FLAGS, R_SHORTS, R_FLOATS
};
enum { L_NAME, L_VALUE };

/* ---- hand-written verifier for the schema (the generator emits the same shape) */
static bool g_leaf_name_required;

static pte_status verify_leaf(pte_fb_verifier *v, uint32_t pos) {
  pte_fb_table t;
  pte_status s;
  if ((s = pte_fb_verify_table_begin(v, pos, "Leaf", &t)) != PTE_OK) return s;
  if ((s = pte_fb_verify_str(v, t, L_NAME, g_leaf_name_required)) != PTE_OK) return s;
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
  static const pte_fb_verify_fn payload_fns[3] = {NULL, verify_leaf, verify_other};
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
  if ((s = pte_fb_verify_table_field(v, t, R_LEAF, verify_leaf, false)) != PTE_OK) return s;
  if ((s = pte_fb_verify_vec(v, t, R_BYTES, 1, 16, false, NULL)) != PTE_OK) return s;
  if ((s = pte_fb_verify_vec(v, t, R_INTS, 4, 4, false, NULL)) != PTE_OK) return s;
  if ((s = pte_fb_verify_vec(v, t, R_LONGS, 8, 8, false, NULL)) != PTE_OK) return s;
  if ((s = pte_fb_verify_vec(v, t, R_DOUBLES, 8, 8, false, NULL)) != PTE_OK) return s;
  if ((s = pte_fb_verify_vec_str(v, t, R_NAMES, false)) != PTE_OK) return s;
  if ((s = pte_fb_verify_vec_table(v, t, R_LEAVES, verify_leaf, false)) != PTE_OK) return s;
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

static unsigned g_max_depth, g_max_tables; /* 0 = defaults */

static pte_status verify_buffer(const uint8_t *buf, size_t size, pte_error_info *err) {
  pte_fb_verifier v;
  uint32_t root;
  pte_fb_verifier_init(&v, buf, size, err);
  if (g_max_depth) v.max_depth = g_max_depth;
  if (g_max_tables) v.max_tables = g_max_tables;
  pte_status s = pte_fb_verify_root(&v, "PTET", &root);
  if (s != PTE_OK) return s;
  s = verify_root_table(&v, root);
  if (s == PTE_OK && v.depth != 0) return PTE_ERR_INTERNAL; /* begin/end must balance */
  return s;
}

/* ================================================================== helpers */

static size_t g_live_allocs;
static void *heap_realloc(void *ctx, void *ptr, size_t old_size, size_t new_size) {
  (void)ctx;
  (void)old_size;
  if (new_size == 0) {
    if (ptr) g_live_allocs--;
    free(ptr);
    return NULL;
  }
  void *p = realloc(ptr, new_size);
  if (p && !ptr) g_live_allocs++;
  return p;
}

/* Fails every call after `budget` successful ones. */
typedef struct { int budget; int calls; } budget_ctx;
static void *budget_realloc(void *ctx, void *ptr, size_t old_size, size_t new_size) {
  budget_ctx *c = ctx;
  if (new_size != 0) {
    if (c->calls >= c->budget) return NULL;
    c->calls++;
  }
  return heap_realloc(NULL, ptr, old_size, new_size);
}

static void st_u16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }
static void st_u32(uint8_t *p, uint32_t v) { for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i)); }
static void st_u64(uint8_t *p, uint64_t v) { for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i)); }
static void st_f32(uint8_t *p, float f) { uint32_t u; memcpy(&u, &f, 4); st_u32(p, u); }
static void st_f64(uint8_t *p, double d) { uint64_t u; memcpy(&u, &d, 8); st_u64(p, u); }

static uint8_t *dup_aligned(const uint8_t *p, size_t n) {
  void *q = NULL;
  if (posix_memalign(&q, 64, n ? n : 1) != 0) return NULL;
  if (n) memcpy(q, p, n);
  return q;
}

/* Exact-size heap copy: ASan flags any read past the end. */
static uint8_t *dup_exact(const uint8_t *p, size_t n) {
  uint8_t *q = malloc(n ? n : 1);
  if (q && n) memcpy(q, p, n);
  return q;
}

static pte_fb_ref mk_leaf(pte_fb_builder *b, const char *name, int32_t value) {
  pte_fb_ref n = name ? pte_fb_create_string(b, name, strlen(name)) : 0;
  pte_fb_table_start(b);
  pte_fb_add_ref(b, L_NAME, n);
  pte_fb_add_i32(b, L_VALUE, value, 7);
  return pte_fb_table_end(b);
}

static void vec3(uint8_t *p, float x, float y, float z) { st_f32(p, x); st_f32(p + 4, y); st_f32(p + 8, z); }

/* Builds the "full" Root buffer used by most tests (every field set to a non-default value). */
static pte_status build_full(pte_fb_builder *b, const uint8_t **out, size_t *out_size) {
  pte_fb_ref name = pte_fb_create_string(b, "hello", 5);
  pte_fb_ref leaf = mk_leaf(b, "leaf_one", 42);
  static const uint8_t bytes[3] = {1, 2, 3};
  pte_fb_ref vbytes = pte_fb_create_vec(b, bytes, 3, 1, 16);
  uint8_t ints[16];
  st_u32(ints, (uint32_t)-1); st_u32(ints + 4, 0); st_u32(ints + 8, 2147483647u); st_u32(ints + 12, 5);
  pte_fb_ref vints = pte_fb_create_vec(b, ints, 4, 4, 4);
  uint8_t longs[16];
  st_u64(longs, 1); st_u64(longs + 8, UINT64_MAX);
  pte_fb_ref vlongs = pte_fb_create_vec(b, longs, 2, 8, 8);
  uint8_t doubles[16];
  st_f64(doubles, 0.5); st_f64(doubles + 8, -1.25);
  pte_fb_ref vdoubles = pte_fb_create_vec(b, doubles, 2, 8, 8);
  pte_fb_ref strs[3] = {pte_fb_create_string(b, "x", 1), pte_fb_create_string(b, "yz", 2),
                        pte_fb_create_string(b, "", 0)};
  pte_fb_ref vnames = pte_fb_create_vec_refs(b, strs, 3);
  pte_fb_ref lv[2] = {mk_leaf(b, "a", 7), mk_leaf(b, NULL, 3)};
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
  st_u16(shorts, (uint16_t)-2); st_u16(shorts + 2, 300);
  pte_fb_ref vshorts = pte_fb_create_vec(b, shorts, 2, 2, 2);
  uint8_t floats[8];
  st_f32(floats, 0.5f); st_f32(floats + 4, 2.0f);
  pte_fb_ref vfloats = pte_fb_create_vec(b, floats, 2, 4, 4);

  uint8_t pos[12], pair[16];
  vec3(pos, 1.5f, -2.0f, 4.0f);
  memset(pair, 0, sizeof pair);
  st_u32(pair, (uint32_t)-7);
  st_u64(pair + 8, 1ull << 40);

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
static uint8_t *full_copy(size_t *n) {
  pte_fb_builder b;
  const uint8_t *out;
  pte_fb_builder_init(&b, heap_realloc, NULL);
  uint8_t *copy = NULL;
  if (build_full(&b, &out, n) == PTE_OK) copy = dup_aligned(out, *n);
  pte_fb_builder_free(&b);
  return copy;
}

static bool str_is(pte_fb_str s, const char *want) {
  return s.ptr && s.len == strlen(want) && memcmp(s.ptr, want, s.len) == 0 && s.ptr[s.len] == 0;
}

/* Checks every value build_full wrote, through the generic reader. */
static void check_full_values(const uint8_t *buf, size_t n) {
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
  CHECK(str_is(pte_fb_get_str(r, R_NAME), "hello"));
  pte_fb_table leaf = pte_fb_get_table(r, R_LEAF);
  CHECK(pte_fb_table_present(leaf));
  CHECK(str_is(pte_fb_get_str(leaf, L_NAME), "leaf_one"));
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
  CHECK(str_is(pte_fb_vec_str(v, 0), "x") && str_is(pte_fb_vec_str(v, 1), "yz") && str_is(pte_fb_vec_str(v, 2), ""));
  v = pte_fb_get_vec(r, R_LEAVES);
  CHECK(v.present && v.len == 2);
  pte_fb_table l0 = pte_fb_vec_table(v, 0), l1 = pte_fb_vec_table(v, 1);
  CHECK(pte_fb_table_present(l0) && pte_fb_table_present(l1));
  CHECK(str_is(pte_fb_get_str(l0, L_NAME), "a"));
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
  CHECK(str_is(pte_fb_get_str(child, R_NAME), "kid"));
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

/* ================================================================== reader */

TEST(reader_defaults_on_empty_table) {
  pte_fb_builder b;
  const uint8_t *out;
  size_t n;
  pte_fb_builder_init(&b, heap_realloc, NULL);
  pte_fb_table_start(&b);
  pte_fb_ref root = pte_fb_table_end(&b);
  CHECK_OK(pte_fb_finish(&b, root, "PTET", 0, &out, &n));
  uint8_t *buf = dup_exact(out, n);
  pte_fb_builder_free(&b);
  pte_fb_table r = pte_fb_root(buf, n);
  CHECK(pte_fb_table_present(r));
  CHECK_EQ_INT(r.vt_len, 4);
  CHECK_EQ_INT(r.tbl_len, 4);
  CHECK(pte_fb_get_bool(r, R_B, true) == true);
  CHECK_EQ_INT(pte_fb_get_i8(r, R_I8, -1), -1);
  CHECK_EQ_INT(pte_fb_get_u8(r, R_U8, 200), 200);
  CHECK_EQ_INT(pte_fb_get_i16(r, R_I16, -300), -300);
  CHECK_EQ_INT(pte_fb_get_u16(r, R_U16, 60000), 60000);
  CHECK_EQ_INT(pte_fb_get_i32(r, R_I32, -70000), -70000);
  CHECK_EQ_INT(pte_fb_get_u32(r, R_U32, 4000000000u), 4000000000u);
  CHECK_EQ_INT(pte_fb_get_i64(r, R_I64, -5000000000ll), -5000000000ll);
  CHECK(pte_fb_get_u64(r, R_U64, 10000000000000000000ull) == 10000000000000000000ull);
  CHECK(pte_fb_get_f32(r, R_F32, 1.5f) == 1.5f);
  CHECK(pte_fb_get_f64(r, R_F64, -2.25) == -2.25);
  CHECK(pte_fb_get_struct(r, R_POS, 12) == NULL);
  CHECK(pte_fb_get_str(r, R_NAME).ptr == NULL && pte_fb_get_str(r, R_NAME).len == 0);
  CHECK(!pte_fb_table_present(pte_fb_get_table(r, R_LEAF)));
  pte_fb_vec v = pte_fb_get_vec(r, R_INTS);
  CHECK(!v.present && v.len == 0 && pte_fb_vec_data(v) == NULL);
  CHECK_EQ_INT(pte_fb_vec_i32(v, 0), 0);
  CHECK(pte_fb_vec_elem(v, 0, 4) == NULL);
  CHECK(!pte_fb_table_present(pte_fb_vec_table(v, 0)));
  CHECK(pte_fb_vec_str(v, 0).ptr == NULL);
  CHECK_EQ_INT(pte_fb_field_pos(r, 0), 0);
  CHECK_EQ_INT(pte_fb_field_pos(r, 1000000), 0);
  CHECK_EQ_INT(pte_fb_get_u32(r, 0xFFFFFFFFu, 77), 77); /* slot far past the vtable */
  CHECK_OK(verify_buffer(buf, n, NULL));
  free(buf);
}

TEST(reader_absent_and_tiny_buffers) {
  pte_fb_table a = pte_fb_root(NULL, 0);
  CHECK(!pte_fb_table_present(a));
  CHECK_EQ_INT(pte_fb_get_i32(a, 0, 5), 5);
  CHECK(pte_fb_get_str(a, 0).ptr == NULL);
  CHECK(!pte_fb_get_vec(a, 0).present);
  pte_fb_table zero;
  memset(&zero, 0, sizeof zero);
  CHECK_EQ_INT(pte_fb_get_u64(zero, 3, 9), 9);
  uint8_t tiny[3] = {4, 0, 0};
  CHECK(!pte_fb_table_present(pte_fb_root(tiny, 3)));
  uint8_t self[8] = {0, 0, 0, 0, 0, 0, 0, 0}; /* root offset 0: never a table */
  CHECK(!pte_fb_table_present(pte_fb_root(self, 8)));
  CHECK(!pte_fb_table_present(pte_fb_table_at(self, 8, 0)));
  CHECK(!pte_fb_table_present(pte_fb_table_at(self, 8, 5))); /* pos + 4 > size */
  CHECK(!pte_fb_has_identifier(tiny, 3, "PTET"));
  CHECK(!pte_fb_has_identifier(self, 8, NULL));
  /* soffset pointing before the buffer */
  uint8_t neg[12] = {4, 0, 0, 0, 0x10, 0, 0, 0, 0, 0, 0, 0};
  CHECK(!pte_fb_table_present(pte_fb_root(neg, 12)));
  /* vtable with table length running past the end */
  uint8_t longtbl[16] = {8, 0, 0, 0, 4, 0, 0x40, 0, 4, 0, 0, 0, 0, 0, 0, 0};
  CHECK(!pte_fb_table_present(pte_fb_root(longtbl, 16)));
  longtbl[6] = 8; /* inline length 8 fits: table present, no fields */
  pte_fb_table t = pte_fb_root(longtbl, 16);
  CHECK(pte_fb_table_present(t));
  CHECK_EQ_INT(t.pos, 8);
  CHECK_EQ_INT(t.vt, 4);
  CHECK_EQ_INT(pte_fb_get_u32(t, 0, 3), 3);
  /* a string field whose NUL terminator is missing or past the end reads as absent */
  uint8_t sb[28];
  memset(sb, 0, sizeof sb);
  st_u32(sb, 12);            /* root -> 12 */
  st_u16(sb + 4, 6);         /* vtable at 4: len 6 */
  st_u16(sb + 6, 8);         /* table inline 8 */
  st_u16(sb + 8, 4);         /* slot 0 at table+4 */
  st_u32(sb + 12, 8);        /* soffset: vtable = 12 - 8 = 4 */
  st_u32(sb + 16, 4);        /* uoffset -> 20 */
  st_u32(sb + 20, 3);        /* string length 3 */
  memcpy(sb + 24, "abc", 4); /* "abc" + NUL */
  pte_fb_table st = pte_fb_root(sb, 28);
  CHECK(str_is(pte_fb_get_str(st, 0), "abc"));
  sb[27] = 'd';               /* NUL overwritten */
  CHECK(pte_fb_get_str(st, 0).ptr == NULL);
  st_u32(sb + 20, 4);         /* NUL would be at 28 == size */
  CHECK(pte_fb_get_str(st, 0).ptr == NULL);
  CHECK(pte_fb_get_vec(st, 0).present); /* as a vector: 4 one-byte elements fit */
  CHECK_EQ_INT(pte_fb_vec_u8(pte_fb_get_vec(st, 0), 3), 'd');
  CHECK(pte_fb_vec_elem(pte_fb_get_vec(st, 0), 1, 4) == NULL); /* 4-byte element 1 would pass the end */
  st_u32(sb + 20, 5);         /* vector count past the end */
  CHECK(!pte_fb_get_vec(st, 0).present);
}

/* Golden byte layout of a tiny table, computed by hand from the FlatBuffers builder algorithm. */
TEST(builder_golden_bytes) {
  pte_fb_builder b;
  const uint8_t *out;
  size_t n;
  pte_fb_builder_init(&b, heap_realloc, NULL);
  pte_fb_table_start(&b);
  pte_fb_add_u32(&b, 0, 0x11223344u, 0);
  pte_fb_add_u8(&b, 2, 0xAB, 0);
  pte_fb_ref root = pte_fb_table_end(&b);
  CHECK_EQ_INT(root, 12);
  CHECK_OK(pte_fb_finish(&b, root, NULL, 0, &out, &n));
  static const uint8_t want[28] = {
      0x10, 0, 0, 0,                            /* root uoffset -> 16 */
      0, 0,                                     /* padding */
      0x0a, 0, 0x0c, 0, 0x08, 0, 0, 0, 0x07, 0, /* vtable: len 10, table 12, slots 8, 0, 7 */
      0x0a, 0, 0, 0,                            /* soffset 10 -> vtable at 6 */
      0, 0, 0,                                  /* padding */
      0xab,                                     /* slot 2 */
      0x44, 0x33, 0x22, 0x11};                  /* slot 0 */
  CHECK_EQ_INT(n, sizeof want);
  CHECK(memcmp(out, want, n) == 0);
  pte_fb_table t = pte_fb_root(out, n);
  CHECK_EQ_INT(pte_fb_get_u32(t, 0, 0), 0x11223344u);
  CHECK_EQ_INT(pte_fb_get_u8(t, 1, 5), 5);
  CHECK_EQ_INT(pte_fb_get_u8(t, 2, 0), 0xAB);
  CHECK_EQ_INT(pte_fb_field_pos(t, 2), 23);
  pte_fb_builder_free(&b);
  CHECK_EQ_INT(g_live_allocs, 0);
}

TEST(builder_full_roundtrip_and_alignment) {
  size_t n = 0;
  uint8_t *buf = full_copy(&n);
  CHECK(buf != NULL);
  CHECK_EQ_INT(n % 32, 0); /* padded to the largest alignment used (force_align 32) */
  check_full_values(buf, n);
  pte_error_info err = {0};
  CHECK_OK(verify_buffer(buf, n, &err));
  free(buf);
  CHECK_EQ_INT(g_live_allocs, 0);
}

TEST(builder_min_align_and_force_align) {
  pte_fb_builder b;
  const uint8_t *out;
  size_t n;
  pte_fb_builder_init(&b, heap_realloc, NULL);
  uint8_t data[5] = {1, 2, 3, 4, 5};
  pte_fb_ref s = pte_fb_create_string(&b, "abc", 3); /* unaligned tail before the vector */
  pte_fb_ref v16 = pte_fb_create_vec(&b, data, 5, 1, 16);
  pte_fb_ref v32 = pte_fb_create_vec(&b, data, 3, 1, 32);
  pte_fb_ref v0 = pte_fb_create_vec(&b, data, 0, 8, 8); /* empty u64 vector */
  pte_fb_table_start(&b);
  pte_fb_add_ref(&b, R_NAME, s);
  pte_fb_add_ref(&b, R_BYTES, v16);
  pte_fb_add_ref(&b, R_ALIGNED32, v32);
  pte_fb_add_ref(&b, R_LONGS, v0);
  pte_fb_add_u8(&b, R_U8, 1, 200);
  pte_fb_ref root = pte_fb_table_end(&b);
  CHECK_OK(pte_fb_finish(&b, root, "PTET", 64, &out, &n));
  CHECK_EQ_INT(n % 64, 0);
  uint8_t *buf = dup_aligned(out, n);
  pte_fb_builder_free(&b);
  pte_fb_table r = pte_fb_root(buf, n);
  pte_fb_vec a = pte_fb_get_vec(r, R_BYTES), c = pte_fb_get_vec(r, R_ALIGNED32), z = pte_fb_get_vec(r, R_LONGS);
  CHECK(a.present && a.len == 5 && a.data % 16 == 0 && pte_fb_vec_u8(a, 4) == 5);
  CHECK(c.present && c.len == 3 && c.data % 32 == 0 && pte_fb_vec_u8(c, 2) == 3);
  CHECK(z.present && z.len == 0 && z.data % 8 == 0);
  CHECK_EQ_INT(pte_fb_vec_u64(z, 0), 0);
  CHECK(str_is(pte_fb_get_str(r, R_NAME), "abc"));
  CHECK_OK(verify_buffer(buf, n, NULL));
  free(buf);
}

TEST(builder_default_elision_and_forced) {
  pte_fb_builder b;
  const uint8_t *out;
  size_t n;
  pte_fb_builder_init(&b, heap_realloc, NULL);
  pte_fb_table_start(&b);
  pte_fb_add_i32(&b, R_I32, -70000, -70000); /* equal to default: elided */
  pte_fb_add_f64(&b, R_F64, -2.25, -2.25);
  pte_fb_add_bool(&b, R_B, false, false);
  pte_fb_add_u64_forced(&b, R_U64, 0);     /* always written */
  pte_fb_add_u32_forced(&b, R_U32, 0);
  pte_fb_ref t1 = pte_fb_table_end(&b);
  b.force_defaults = true;
  pte_fb_table_start(&b);
  pte_fb_add_i32(&b, R_I32, -70000, -70000);
  pte_fb_add_u16(&b, R_U16, 60000, 60000);
  pte_fb_ref t2 = pte_fb_table_end(&b);
  b.force_defaults = false;
  pte_fb_ref refs[2] = {t1, t2};
  pte_fb_ref leaves = pte_fb_create_vec_refs(&b, refs, 2);
  pte_fb_table_start(&b);
  pte_fb_add_ref(&b, R_LEAVES, leaves);
  pte_fb_ref root = pte_fb_table_end(&b);
  CHECK_OK(pte_fb_finish(&b, root, NULL, 0, &out, &n));
  pte_fb_vec v = pte_fb_get_vec(pte_fb_root(out, n), R_LEAVES);
  pte_fb_table a = pte_fb_vec_table(v, 0), c = pte_fb_vec_table(v, 1);
  CHECK_EQ_INT(pte_fb_field_pos(a, R_I32), 0);
  CHECK_EQ_INT(pte_fb_field_pos(a, R_F64), 0);
  CHECK_EQ_INT(pte_fb_field_pos(a, R_B), 0);
  CHECK(pte_fb_field_pos(a, R_U64) != 0);
  CHECK(pte_fb_field_pos(a, R_U32) != 0);
  CHECK(pte_fb_get_u64(a, R_U64, 99) == 0);
  CHECK_EQ_INT(pte_fb_get_u32(a, R_U32, 99), 0);
  CHECK_EQ_INT(a.vt_len, 4 + 2 * (R_U64 + 1)); /* vtable ends at the last set slot */
  CHECK_EQ_INT(pte_fb_get_u64(a, R_U64, 99) , 0);
  CHECK_EQ_INT((pte_fb_field_pos(a, R_U64)) % 8, 0);
  CHECK(pte_fb_field_pos(c, R_I32) != 0);
  CHECK(pte_fb_field_pos(c, R_U16) != 0);
  CHECK_EQ_INT(pte_fb_get_i32(c, R_I32, 0), -70000);
  CHECK_EQ_INT(pte_fb_get_u16(c, R_U16, 0), 60000);
  pte_fb_builder_free(&b);
}

TEST(builder_vtable_dedup) {
  pte_fb_builder b;
  const uint8_t *out;
  size_t n;
  pte_fb_builder_init(&b, heap_realloc, NULL);
  pte_fb_ref l[3] = {mk_leaf(&b, "p", 1), mk_leaf(&b, "q", 2), mk_leaf(&b, "r", 3)};
  pte_fb_ref vec = pte_fb_create_vec_refs(&b, l, 3);
  pte_fb_table_start(&b);
  pte_fb_add_ref(&b, R_LEAVES, vec);
  pte_fb_ref root = pte_fb_table_end(&b);
  CHECK_OK(pte_fb_finish(&b, root, "PTET", 0, &out, &n));
  CHECK_EQ_INT(n, 148); /* hand-computed: 16 bytes less than with two duplicate vtables */
  pte_fb_vec v = pte_fb_get_vec(pte_fb_root(out, n), R_LEAVES);
  pte_fb_table t0 = pte_fb_vec_table(v, 0), t1 = pte_fb_vec_table(v, 1), t2 = pte_fb_vec_table(v, 2);
  CHECK(pte_fb_table_present(t0) && pte_fb_table_present(t1) && pte_fb_table_present(t2));
  CHECK_EQ_INT(t0.vt, t1.vt); /* shared vtable (negative soffset for the later tables) */
  CHECK_EQ_INT(t1.vt, t2.vt);
  CHECK(pte_fb_ld_i32(out + t1.pos) < 0);
  CHECK(str_is(pte_fb_get_str(t0, L_NAME), "p") && str_is(pte_fb_get_str(t2, L_NAME), "r"));
  CHECK_EQ_INT(pte_fb_get_i32(t1, L_VALUE, 7), 2);
  uint8_t *buf = dup_aligned(out, n);
  pte_fb_builder_free(&b);
  CHECK_OK(verify_buffer(buf, n, NULL));
  free(buf);
}

TEST(builder_growth_many_objects) {
  /* Enough data to force many reallocations; every string must survive the moves. */
  enum { N = 3000 };
  pte_fb_builder b;
  const uint8_t *out;
  size_t n;
  static pte_fb_ref refs[N];
  char tmp[32];
  pte_fb_builder_init(&b, heap_realloc, NULL);
  for (int i = 0; i < N; i++) {
    int len = snprintf(tmp, sizeof tmp, "string-%d", i);
    refs[i] = pte_fb_create_string(&b, tmp, (size_t)len);
  }
  pte_fb_ref vec = pte_fb_create_vec_refs(&b, refs, N);
  pte_fb_table_start(&b);
  pte_fb_add_ref(&b, R_NAMES, vec);
  pte_fb_ref root = pte_fb_table_end(&b);
  CHECK_OK(pte_fb_finish(&b, root, "PTET", 0, &out, &n));
  CHECK(b.cap >= n);
  uint8_t *buf = dup_aligned(out, n);
  pte_fb_builder_free(&b);
  CHECK_OK(verify_buffer(buf, n, NULL));
  pte_fb_vec v = pte_fb_get_vec(pte_fb_root(buf, n), R_NAMES);
  CHECK_EQ_INT(v.len, N);
  for (int i = 0; i < N; i++) {
    snprintf(tmp, sizeof tmp, "string-%d", i);
    CHECK_MSG(str_is(pte_fb_vec_str(v, (uint32_t)i), tmp), "element %d", i);
  }
  free(buf);
}

TEST(builder_start_vec_raw) {
  pte_fb_builder b;
  const uint8_t *out;
  size_t n;
  pte_fb_ref ref = 123;
  pte_fb_builder_init(&b, heap_realloc, NULL);
  uint8_t *p = pte_fb_start_vec_raw(&b, 1000, 8, 16, &ref); /* first call: forces allocation */
  CHECK(p != NULL && ref != 0);
  CHECK_EQ_INT((uintptr_t)(b.buf + b.cap - p) % 16, 0); /* aligned relative to the end */
  for (int i = 0; i < 1000; i++) st_u64(p + 8 * i, (uint64_t)i * 3);
  pte_fb_table_start(&b);
  pte_fb_add_ref(&b, R_LONGS, ref);
  pte_fb_ref root = pte_fb_table_end(&b);
  CHECK_OK(pte_fb_finish(&b, root, "PTET", 0, &out, &n));
  CHECK_EQ_INT(n % 16, 0);
  pte_fb_vec v = pte_fb_get_vec(pte_fb_root(out, n), R_LONGS);
  CHECK(v.present && v.len == 1000 && v.data % 16 == 0);
  CHECK(pte_fb_vec_u64(v, 999) == 2997);
  CHECK(pte_fb_vec_u64(v, 1000) == 0); /* out of range */
  pte_fb_builder_free(&b);
}

TEST(builder_allocation_failure) {
  /* Fail at every possible allocation: the status must stick, later calls must be no-ops and
   * finish must report it; with enough budget the build succeeds. */
  bool succeeded = false;
  for (int budget = 0; budget < 64 && !succeeded; budget++) {
    budget_ctx c = {budget, 0};
    pte_fb_builder b;
    const uint8_t *out = (const uint8_t *)1;
    size_t n = 7;
    pte_fb_builder_init(&b, budget_realloc, &c);
    pte_status s = build_full(&b, &out, &n);
    if (s == PTE_OK) {
      succeeded = true;
      check_full_values(out, n);
    } else {
      CHECK_STATUS(s, PTE_ERR_MEMORY_ALLOCATION_FAILED);
      CHECK_STATUS(b.status, PTE_ERR_MEMORY_ALLOCATION_FAILED);
      CHECK(out == NULL && n == 0);
      CHECK_EQ_INT(pte_fb_create_string(&b, "x", 1), 0);
      CHECK(pte_fb_start_vec_raw(&b, 1, 1, 1, NULL) == NULL);
    }
    pte_fb_builder_free(&b);
    CHECK_EQ_INT(g_live_allocs, 0);
  }
  CHECK(succeeded);
  /* no callback at all */
  pte_fb_builder b;
  pte_fb_builder_init(&b, NULL, NULL);
  CHECK_EQ_INT(pte_fb_create_string(&b, "x", 1), 0);
  CHECK_STATUS(b.status, PTE_ERR_MEMORY_ALLOCATION_FAILED);
  pte_fb_builder_free(&b);
}

TEST(builder_size_limits) {
  pte_fb_builder b;
  pte_fb_ref ref = 1;
  /* 2 GiB of vector data can never be addressed by 32-bit uoffsets: refused before allocating */
  pte_fb_builder_init(&b, heap_realloc, NULL);
  CHECK(pte_fb_start_vec_raw(&b, 0x20000000u, 4, 4, &ref) == NULL);
  CHECK_EQ_INT(ref, 0);
  CHECK_STATUS(b.status, PTE_ERR_OUT_OF_RESOURCES);
  CHECK(b.cap == 0);
  pte_fb_builder_free(&b);
  /* just under the limit by itself, but not together with what is already written */
  pte_fb_builder_init(&b, heap_realloc, NULL);
  pte_fb_create_string(&b, "abcdefgh", 8);
  CHECK_OK(b.status);
  CHECK(pte_fb_start_vec_raw(&b, 0x7FFFFFF0u, 1, 1, &ref) == NULL);
  CHECK_STATUS(b.status, PTE_ERR_OUT_OF_RESOURCES);
  const uint8_t *out;
  size_t n;
  CHECK_STATUS(pte_fb_finish(&b, 4, NULL, 0, &out, &n), PTE_ERR_OUT_OF_RESOURCES);
  pte_fb_builder_free(&b);
  /* string length overflow */
  pte_fb_builder_init(&b, heap_realloc, NULL);
  CHECK_EQ_INT(pte_fb_create_string(&b, "x", (size_t)0x80000000u), 0);
  CHECK_STATUS(b.status, PTE_ERR_OUT_OF_RESOURCES);
  pte_fb_builder_free(&b);
  /* count * elem_size overflow */
  pte_fb_builder_init(&b, heap_realloc, NULL);
  CHECK(pte_fb_start_vec_raw(&b, SIZE_MAX / 2, 4, 4, &ref) == NULL);
  CHECK_STATUS(b.status, PTE_ERR_OUT_OF_RESOURCES);
  pte_fb_builder_free(&b);
  CHECK_EQ_INT(g_live_allocs, 0);
}

TEST(builder_misuse) {
  pte_fb_builder b;
  const uint8_t *out;
  size_t n;
  pte_fb_builder_init(&b, heap_realloc, NULL);
  pte_fb_add_u32(&b, 0, 1, 0); /* outside a table */
  CHECK_STATUS(b.status, PTE_ERR_INVALID_STATE);
  pte_fb_builder_free(&b);
  pte_fb_builder_init(&b, heap_realloc, NULL);
  pte_fb_table_start(&b);
  CHECK_EQ_INT(pte_fb_create_string(&b, "x", 1), 0); /* objects cannot nest inside a table */
  CHECK_STATUS(b.status, PTE_ERR_INVALID_STATE);
  pte_fb_builder_free(&b);
  pte_fb_builder_init(&b, heap_realloc, NULL);
  CHECK_EQ_INT(pte_fb_table_end(&b), 0);
  CHECK_STATUS(b.status, PTE_ERR_INVALID_STATE);
  pte_fb_builder_free(&b);
  pte_fb_builder_init(&b, heap_realloc, NULL);
  pte_fb_table_start(&b);
  pte_fb_table_start(&b);
  CHECK_STATUS(b.status, PTE_ERR_INVALID_STATE);
  pte_fb_builder_free(&b);
  pte_fb_builder_init(&b, heap_realloc, NULL);
  pte_fb_table_start(&b);
  CHECK_STATUS(pte_fb_finish(&b, 4, NULL, 0, &out, &n), PTE_ERR_INVALID_STATE);
  pte_fb_builder_free(&b);
  pte_fb_builder_init(&b, heap_realloc, NULL);
  pte_fb_table_start(&b);
  pte_fb_add_ref(&b, 0, 1000); /* reference to something never written */
  CHECK_STATUS(b.status, PTE_ERR_INVALID_ARGUMENT);
  pte_fb_builder_free(&b);
  pte_fb_builder_init(&b, heap_realloc, NULL);
  pte_fb_create_vec(&b, "abc", 3, 1, 3); /* alignment not a power of two */
  CHECK_STATUS(b.status, PTE_ERR_INVALID_ARGUMENT);
  pte_fb_builder_free(&b);
  pte_fb_builder_init(&b, heap_realloc, NULL);
  {
    pte_fb_ref s = pte_fb_create_string(&b, "ok", 2);
    pte_fb_ref bad[2] = {s, 0}; /* null reference inside a vector of refs */
    CHECK_EQ_INT(pte_fb_create_vec_refs(&b, bad, 2), 0);
    CHECK_STATUS(b.status, PTE_ERR_INVALID_ARGUMENT);
  }
  pte_fb_builder_free(&b);
  pte_fb_builder_init(&b, heap_realloc, NULL);
  CHECK_STATUS(pte_fb_finish(&b, 0, NULL, 0, &out, &n), PTE_ERR_INVALID_ARGUMENT);
  pte_fb_builder_free(&b);
  CHECK_EQ_INT(g_live_allocs, 0);
}

TEST(builder_high_slot_and_wide_table) {
  pte_fb_builder b;
  const uint8_t *out;
  size_t n;
  pte_fb_builder_init(&b, heap_realloc, NULL);
  pte_fb_table_start(&b);
  for (unsigned s = 0; s < 300; s += 3) pte_fb_add_u16(&b, s, (uint16_t)(s * 7), 0xFFFF);
  pte_fb_add_u64(&b, 1000, 0x0102030405060708ull, 0);
  pte_fb_ref root = pte_fb_table_end(&b);
  CHECK_OK(pte_fb_finish(&b, root, NULL, 0, &out, &n));
  pte_fb_table t = pte_fb_root(out, n);
  CHECK_EQ_INT(t.vt_len, 4 + 2 * 1001);
  for (unsigned s = 0; s < 300; s++)
    CHECK_EQ_INT(pte_fb_get_u16(t, s, 0xFFFF), s % 3 == 0 ? s * 7 : 0xFFFF);
  CHECK(pte_fb_get_u64(t, 1000, 0) == 0x0102030405060708ull);
  CHECK_EQ_INT(pte_fb_field_pos(t, 1000) % 8, 0);
  pte_fb_builder_free(&b);
  /* a slot whose vtable would not fit 16 bits */
  pte_fb_builder_init(&b, heap_realloc, NULL);
  pte_fb_table_start(&b);
  pte_fb_add_u8(&b, 40000, 1, 0);
  CHECK_STATUS(b.status, PTE_ERR_INVALID_ARGUMENT);
  pte_fb_builder_free(&b);
  /* table inline data > 64 KiB */
  pte_fb_builder_init(&b, heap_realloc, NULL);
  pte_fb_table_start(&b);
  static uint8_t big[40000];
  pte_fb_add_struct(&b, 0, big, sizeof big, 4);
  pte_fb_add_struct(&b, 1, big, sizeof big, 4);
  CHECK_OK(b.status);
  CHECK_EQ_INT(pte_fb_table_end(&b), 0);
  CHECK_STATUS(b.status, PTE_ERR_OUT_OF_RESOURCES);
  pte_fb_builder_free(&b);
}

/* ================================================================== verifier */

/* Runs the verifier on a modified copy and checks status and message. */
static void expect_reject(const uint8_t *buf, size_t n, const char *needle) {
  uint8_t *copy = dup_aligned(buf, n);
  pte_error_info err;
  memset(&err, 0, sizeof err);
  pte_status s = verify_buffer(copy, n, &err);
  free(copy);
  CHECK_MSG(s == PTE_ERR_INVALID_PROGRAM, "expected InvalidProgram for \"%s\", got 0x%x (%s)", needle, (unsigned)s,
            err.msg);
  if (getenv("PTE_TEST_VERBOSE")) printf("    rejected: %s\n", err.msg);
  CHECK_STATUS(err.status, PTE_ERR_INVALID_PROGRAM);
  CHECK_CONTAINS(err.msg, needle);
  /* the same failure without an error sink */
  copy = dup_aligned(buf, n);
  s = verify_buffer(copy, n, NULL);
  free(copy);
  CHECK_STATUS(s, PTE_ERR_INVALID_PROGRAM);
}

static char g_needle[256];
static const char *fmt_needle(const char *fmt, unsigned a, unsigned long long b) {
  snprintf(g_needle, sizeof g_needle, fmt, a, b);
  return g_needle;
}

/* Position of the vtable entry for `slot` of table t. */
static size_t vt_entry(pte_fb_table t, unsigned slot) { return t.vt + 4 + 2 * slot; }

TEST(verify_accepts_good_buffers) {
  size_t n;
  uint8_t *buf = full_copy(&n);
  CHECK(buf != NULL);
  pte_error_info err;
  memset(&err, 0, sizeof err);
  CHECK_OK(verify_buffer(buf, n, &err));
  /* a verified field view */
  pte_fb_verifier v;
  uint32_t root;
  pte_fb_table t;
  pte_fb_vec vec;
  pte_fb_verifier_init(&v, buf, n, &err);
  CHECK_EQ_INT(v.max_depth, 64);
  CHECK_EQ_INT(v.max_tables, 1000000);
  CHECK_OK(pte_fb_verify_root(&v, "PTET", &root));
  CHECK_OK(pte_fb_verify_table_begin(&v, root, "Root", &t));
  CHECK_EQ_INT(v.depth, 1);
  CHECK_OK(pte_fb_verify_vec(&v, t, R_LONGS, 8, 8, true, &vec));
  CHECK(vec.present && vec.len == 2 && pte_fb_vec_u64(vec, 1) == UINT64_MAX);
  CHECK_OK(pte_fb_verify_vec(&v, t, R_INTS + 100, 4, 4, false, &vec)); /* absent, optional */
  CHECK(!vec.present);
  CHECK_OK(pte_fb_verify_table_field(&v, t, R_LEAF, verify_leaf, true));
  CHECK_STR(v.ctx, "Root"); /* restored after the nested table */
  CHECK_EQ_INT(v.depth, 1);
  pte_fb_verify_table_end(&v);
  CHECK_EQ_INT(v.depth, 0);
  /* verify without identifier check */
  pte_fb_verifier_init(&v, buf, n, &err);
  CHECK_OK(pte_fb_verify_root(&v, NULL, &root));
  free(buf);
}

TEST(verify_rejects_header_corruptions) {
  size_t n;
  uint8_t *good = full_copy(&n);
  CHECK(good != NULL);
  uint8_t *m = dup_aligned(good, n);
  /* 1. truncated buffer */
  expect_reject(good, 6, "buffer: too small for a FlatBuffer (6 bytes");
  /* 2. truncated so the root offset points past the end */
  uint32_t root = pte_fb_ld_u32(good);
  expect_reject(good, root, fmt_needle("root table offset 0x%x past end of buffer (size 0x%llx)", root, root));
  /* 3. root offset past the end */
  memcpy(m, good, n);
  st_u32(m, (uint32_t)n + 100);
  expect_reject(m, n, fmt_needle("root table offset 0x%x past end of buffer (size 0x%llx)", (unsigned)n + 100, n));
  /* 4. root overlapping the identifier */
  memcpy(m, good, n);
  st_u32(m, 4);
  expect_reject(m, n, "root table offset 0x4 overlaps the buffer header");
  /* 5. misaligned root table */
  memcpy(m, good, n);
  st_u32(m, root + 2);
  expect_reject(m, n, "not 4-byte aligned");
  /* 6. wrong file identifier */
  memcpy(m, good, n);
  memcpy(m + 4, "XY\001Z", 4);
  expect_reject(m, n, "file identifier \"XY?Z\" does not match expected \"PTET\"");
  free(m);
  free(good);
}

TEST(verify_rejects_table_corruptions) {
  size_t n;
  uint8_t *good = full_copy(&n);
  CHECK(good != NULL);
  uint8_t *m = dup_aligned(good, n);
  pte_fb_table r = pte_fb_root(good, n);
  uint32_t root = r.pos;
  /* 7. vtable out of range (soffset pointing past the end) */
  memcpy(m, good, n);
  st_u32(m + root, (uint32_t)-(int32_t)(n + 8));
  expect_reject(m, n, fmt_needle("Root: table at 0x%x: vtable at 0x%llx (soffset", root, (unsigned long long)(root + n + 8)));
  expect_reject(m, n, "past end of buffer (size 0x");
  /* 8. vtable before the start of the buffer */
  memcpy(m, good, n);
  st_u32(m + root, root + 2);
  expect_reject(m, n, fmt_needle("vtable at -0x2 (soffset %u) before start of buffer", root + 2, 0));
  /* 9. vtable not 2-byte aligned */
  memcpy(m, good, n);
  st_u32(m + root, (uint32_t)pte_fb_ld_i32(good + root) + 1);
  expect_reject(m, n, "not 2-byte aligned");
  /* 10. odd vtable length */
  memcpy(m, good, n);
  st_u16(m + r.vt, (uint16_t)(r.vt_len - 1));
  expect_reject(m, n, fmt_needle("Root: table at 0x%x: vtable length %llu is odd", root, (unsigned long long)r.vt_len - 1));
  /* 11. vtable length below 4 */
  memcpy(m, good, n);
  st_u16(m + r.vt, 2);
  expect_reject(m, n, "vtable length 2 is less than 4");
  /* 12. vtable running past the end of the buffer */
  memcpy(m, good, n);
  st_u16(m + r.vt, 0xFFFE);
  expect_reject(m, n, "vtable at 0x");
  expect_reject(m, n, "with length 65534 past end of buffer");
  /* 13. table inline size below 4 / past the end */
  memcpy(m, good, n);
  st_u16(m + r.vt + 2, 2);
  expect_reject(m, n, "inline size 2 less than 4");
  memcpy(m, good, n);
  st_u16(m + r.vt + 2, 0xFFFC);
  expect_reject(m, n, "inline size 65532 past end of buffer");
  /* 14. field past the end of the buffer */
  memcpy(m, good, n);
  st_u16(m + vt_entry(r, R_U64), 0xFFF8);
  expect_reject(m, n, fmt_needle("Root: field %u (inline) at table offset 65528 (8 bytes) past end of buffer (size 0x%llx)",
                                 R_U64, n));
  /* ... but a field past the vtable's inline size is accepted and read: the Python flatbuffers
   * builder (upstream's serializer) shares vtables between tables of different sizes, so real
   * .pte files carry e.g. an Int table whose i64 at offset 4 ends past a declared size of 8. */
  memcpy(m, good, n);
  st_u16(m + r.vt + 2, 4);
  CHECK_OK(verify_buffer(m, n, NULL));
  check_full_values(m, n);
  CHECK_EQ_INT(pte_fb_root(m, n).tbl_len, 4);
  /* 15. field overlapping the soffset */
  memcpy(m, good, n);
  st_u16(m + vt_entry(r, R_I32), 2);
  expect_reject(m, n, "Root: field 5 (inline) at table offset 2 overlaps the vtable offset");
  /* 16. misaligned scalar field */
  memcpy(m, good, n);
  {
    unsigned fo = pte_fb_ld_u16(good + vt_entry(r, R_U64));
    st_u16(m + vt_entry(r, R_U64), (uint16_t)(fo - 4));
    expect_reject(m, n, fmt_needle("Root: field %u (inline) at 0x%llx not 8-byte aligned", R_U64, root + fo - 4));
  }
  /* 17. enum value out of range */
  memcpy(m, good, n);
  m[pte_fb_field_pos(r, R_COLOR)] = 7;
  expect_reject(m, n, "Root: field 11 (enum) value 7 out of range (3 values)");
  free(m);
  free(good);
}

TEST(verify_rejects_reference_corruptions) {
  size_t n;
  uint8_t *good = full_copy(&n);
  CHECK(good != NULL);
  uint8_t *m = dup_aligned(good, n);
  pte_fb_table r = pte_fb_root(good, n);
  /* 18. string not NUL-terminated */
  pte_fb_str name = pte_fb_get_str(r, R_NAME);
  size_t name_at = (size_t)((const uint8_t *)name.ptr - good);
  memcpy(m, good, n);
  m[name_at + name.len] = 'X';
  expect_reject(m, n, fmt_needle("Root: field %u (string) at 0x%llx (length 5) not NUL-terminated", R_NAME, name_at - 4));
  /* 19. string length past the end */
  memcpy(m, good, n);
  st_u32(m + name_at - 4, 0xFFFFFF00u);
  expect_reject(m, n, "Root: field 14 (string) at 0x");
  expect_reject(m, n, "length 4294967040 past end of buffer");
  /* 20. vector length overflow (count * 4 wraps 32 bits) */
  pte_fb_vec ints = pte_fb_get_vec(r, R_INTS);
  memcpy(m, good, n);
  st_u32(m + ints.data - 4, 0x40000001u);
  expect_reject(m, n, "Root: field 17 (vector) at 0x");
  expect_reject(m, n, "length 1073741825 x 4 bytes past end of buffer");
  /* 21. uoffset past the end (the message shape the brief asks for) */
  uint32_t fpos = pte_fb_field_pos(r, R_INTS);
  memcpy(m, good, n);
  st_u32(m + fpos, 0x10000000u);
  expect_reject(m, n, fmt_needle("Root: field %u (vector) offset 0x%llx past end of buffer", R_INTS, fpos + 0x10000000ull));
  /* 22. zero offset, too-large offset, misaligned offset */
  memcpy(m, good, n);
  st_u32(m + fpos, 0);
  expect_reject(m, n, fmt_needle("Root: field %u (vector) offset at 0x%llx is zero", R_INTS, fpos));
  memcpy(m, good, n);
  st_u32(m + fpos, 0x80000000u);
  expect_reject(m, n, "Root: field 17 (vector) offset 0x80000000 at 0x");
  expect_reject(m, n, "too large");
  memcpy(m, good, n);
  st_u32(m + fpos, pte_fb_ld_u32(good + fpos) + 2);
  expect_reject(m, n, "Root: field 17 (vector) offset 0x");
  expect_reject(m, n, "not 4-byte aligned");
  /* 23. u64 vector whose element data is only 4-byte aligned */
  uint32_t lpos = pte_fb_field_pos(r, R_LONGS);
  memcpy(m, good, n);
  st_u32(m + lpos, pte_fb_ld_u32(good + lpos) + 4); /* count now reads the low half of element 0 (= 1) */
  expect_reject(m, n, "Root: field 18 (vector) at 0x");
  expect_reject(m, n, "not 8-byte aligned");
  /* 24. force_align vector data misaligned */
  pte_fb_vec a32 = pte_fb_get_vec(r, R_ALIGNED32);
  uint32_t apos = pte_fb_field_pos(r, R_ALIGNED32);
  memcpy(m, good, n);
  st_u32(m + apos, pte_fb_ld_u32(good + apos) - 16);
  st_u32(m + a32.data - 4 - 16, 1);
  expect_reject(m, n, "Root: field 25 (vector) at 0x");
  expect_reject(m, n, "not 32-byte aligned");
  /* 25. element of a vector of strings not NUL-terminated; error names the element */
  pte_fb_str s1 = pte_fb_vec_str(pte_fb_get_vec(r, R_NAMES), 1);
  memcpy(m, good, n);
  m[(const uint8_t *)s1.ptr - good + s1.len] = '!';
  expect_reject(m, n, "Root: field 20 (vector of strings) element 1: at 0x");
  expect_reject(m, n, "(length 2) not NUL-terminated");
  /* 26. nested table corrupt: message names the nested table */
  pte_fb_table leaf = pte_fb_get_table(r, R_LEAF);
  memcpy(m, good, n);
  st_u16(m + leaf.vt, 5);
  expect_reject(m, n, fmt_needle("Leaf: table at 0x%x: vtable length %llu is odd", leaf.pos, 5));
  pte_fb_table l1 = pte_fb_vec_table(pte_fb_get_vec(r, R_LEAVES), 0);
  pte_fb_str l1name = pte_fb_get_str(l1, L_NAME);
  memcpy(m, good, n);
  st_u32(m + ((const uint8_t *)l1name.ptr - good) - 4, 1000000);
  expect_reject(m, n, "Leaf: field 0 (string) at 0x");
  /* 27. after a nested table, errors name the parent again */
  pte_fb_vec bytes = pte_fb_get_vec(r, R_BYTES);
  memcpy(m, good, n);
  st_u32(m + bytes.data - 4, 0x7FFFFFFF);
  expect_reject(m, n, "Root: field 16 (vector) at 0x");
  /* 28. vector of tables element pointing outside */
  pte_fb_vec leaves = pte_fb_get_vec(r, R_LEAVES);
  memcpy(m, good, n);
  st_u32(m + leaves.data + 4, 0x01000000);
  expect_reject(m, n, "Root: field 21 (vector of tables) element 1: offset 0x");
  /* 29. required field missing */
  g_leaf_name_required = true;
  expect_reject(good, n, "Leaf: field 0 (string) is required but missing");
  g_leaf_name_required = false;
  free(m);
  free(good);
}

TEST(verify_rejects_union_corruptions) {
  size_t n;
  uint8_t *good = full_copy(&n);
  CHECK(good != NULL);
  uint8_t *m = dup_aligned(good, n);
  pte_fb_table r = pte_fb_root(good, n);
  uint32_t tag_at = pte_fb_field_pos(r, R_PAYLOAD_TYPE);
  CHECK(tag_at != 0);
  /* 30. union tag out of range */
  memcpy(m, good, n);
  m[tag_at] = 3; /* first value past the last member */
  expect_reject(m, n, "Root: field 23 (union type) tag 3 out of range (3 tags including NONE)");
  /* 31. value present with tag NONE */
  memcpy(m, good, n);
  m[tag_at] = 0;
  expect_reject(m, n, "Root: field 24 (union) value present but type is NONE");
  /* 32. tag set, value missing */
  memcpy(m, good, n);
  st_u16(m + vt_entry(r, R_PAYLOAD), 0);
  expect_reject(m, n, "Root: field 24 (union) type 2 set but value missing");
  /* 33. wrong member type: Other read as Leaf still verifies structurally (both valid tables),
   * but a tag whose verifier is missing is rejected */
  pte_fb_verifier v;
  pte_fb_table t;
  uint32_t root;
  pte_error_info err;
  static const pte_fb_verify_fn partial[3] = {NULL, verify_leaf, NULL};
  pte_fb_verifier_init(&v, good, n, &err);
  CHECK_OK(pte_fb_verify_root(&v, "PTET", &root));
  CHECK_OK(pte_fb_verify_table_begin(&v, root, "Root", &t));
  CHECK_STATUS(pte_fb_verify_union(&v, t, R_PAYLOAD_TYPE, R_PAYLOAD, partial, 3), PTE_ERR_INVALID_PROGRAM);
  CHECK_CONTAINS(err.msg, "Root: field 24 (union) member type 2 has no verifier");
  /* 34. member table corrupt: message names the member */
  pte_fb_table other = pte_fb_get_table(r, R_PAYLOAD);
  memcpy(m, good, n);
  st_u16(m + other.vt + 2, 0x7FF0);
  expect_reject(m, n, "Other: table at 0x");
  free(m);
  free(good);
}

static pte_fb_ref build_chain(pte_fb_builder *b, int depth) {
  pte_fb_ref child = 0;
  for (int i = 0; i < depth; i++) {
    pte_fb_table_start(b);
    pte_fb_add_i32(b, R_I32, i, -70000);
    pte_fb_add_ref(b, R_CHILD, child);
    child = pte_fb_table_end(b);
  }
  return child;
}

TEST(verify_depth_and_table_limits) {
  for (int depth = 63; depth <= 66; depth++) {
    pte_fb_builder b;
    const uint8_t *out;
    size_t n;
    pte_fb_builder_init(&b, heap_realloc, NULL);
    pte_fb_ref root = build_chain(&b, depth);
    CHECK_OK(pte_fb_finish(&b, root, "PTET", 0, &out, &n));
    uint8_t *buf = dup_aligned(out, n);
    pte_fb_builder_free(&b);
    pte_fb_table t = pte_fb_root(buf, n);
    for (int i = depth - 1; i > 0; i--) t = pte_fb_get_table(t, R_CHILD);
    CHECK_EQ_INT(pte_fb_get_i32(t, R_I32, -1), 0);
    if (depth <= 64) {
      CHECK_OK(verify_buffer(buf, n, NULL));
    } else {
      expect_reject(buf, n, "Root: table nesting depth exceeds the limit of 64");
    }
    g_max_depth = 10;
    expect_reject(buf, n, "table nesting depth exceeds the limit of 10");
    g_max_depth = 0;
    free(buf);
  }
  size_t n;
  uint8_t *good = full_copy(&n);
  CHECK(good != NULL);
  g_max_tables = 3;
  expect_reject(good, n, "more than 3 tables in the buffer");
  g_max_tables = 6; /* Root, Leaf, 2 leaves, Other, child: exactly 6 */
  CHECK_OK(verify_buffer(good, n, NULL));
  g_max_tables = 5;
  expect_reject(good, n, "more than 5 tables");
  g_max_tables = 0;
  free(good);
}

/* ================================================================== robustness */

static uint32_t g_rng = 12345;
static uint32_t rnd(void) {
  g_rng ^= g_rng << 13;
  g_rng ^= g_rng >> 17;
  g_rng ^= g_rng << 5;
  return g_rng;
}

static volatile uint64_t g_sink;
static unsigned g_unterminated; /* strings the reader returned without a NUL at ptr[len] */

static void touch_str(pte_fb_str s) {
  if (!s.ptr) return;
  if (s.ptr[s.len] != 0) g_unterminated++;
  g_sink += s.len ? (unsigned char)s.ptr[0] : 0;
}
static void touch_vec(pte_fb_vec v, size_t es) {
  if (!v.present) return;
  uint32_t lim = v.len < 64 ? v.len : 64;
  for (uint32_t i = 0; i < lim; i++) {
    const uint8_t *p = pte_fb_vec_elem(v, i, es);
    if (p) g_sink += p[es - 1];
  }
  const uint8_t *last = v.len ? pte_fb_vec_elem(v, v.len - 1, es) : NULL;
  if (last) g_sink += last[es - 1];
}

static void walk_leaf(pte_fb_table t) {
  touch_str(pte_fb_get_str(t, L_NAME));
  g_sink += (uint64_t)pte_fb_get_i32(t, L_VALUE, 7);
}

/* Reads every field of a (possibly corrupt, unverified) Root. */
static void walk_root(pte_fb_table t, int depth) {
  if (!pte_fb_table_present(t) || depth > 8) return;
  g_sink += pte_fb_get_bool(t, R_B, false) + (uint64_t)pte_fb_get_i8(t, R_I8, 0) + pte_fb_get_u8(t, R_U8, 0);
  g_sink += (uint64_t)pte_fb_get_i16(t, R_I16, 0) + pte_fb_get_u16(t, R_U16, 0);
  g_sink += (uint64_t)pte_fb_get_i32(t, R_I32, 0) + pte_fb_get_u32(t, R_U32, 0);
  g_sink += (uint64_t)pte_fb_get_i64(t, R_I64, 0) + pte_fb_get_u64(t, R_U64, 0);
  g_sink += (uint64_t)(pte_fb_get_f32(t, R_F32, 0) != 0) + (uint64_t)(pte_fb_get_f64(t, R_F64, 0) != 0);
  const uint8_t *p = pte_fb_get_struct(t, R_POS, 12);
  if (p) g_sink += p[11];
  p = pte_fb_get_struct(t, R_PAIR, 16);
  if (p) g_sink += p[15];
  touch_str(pte_fb_get_str(t, R_NAME));
  walk_leaf(pte_fb_get_table(t, R_LEAF));
  touch_vec(pte_fb_get_vec(t, R_BYTES), 1);
  touch_vec(pte_fb_get_vec(t, R_INTS), 4);
  touch_vec(pte_fb_get_vec(t, R_LONGS), 8);
  touch_vec(pte_fb_get_vec(t, R_DOUBLES), 8);
  touch_vec(pte_fb_get_vec(t, R_VECS), 12);
  touch_vec(pte_fb_get_vec(t, R_ALIGNED32), 1);
  touch_vec(pte_fb_get_vec(t, R_SHORTS), 2);
  touch_vec(pte_fb_get_vec(t, R_FLOATS), 4);
  pte_fb_vec v = pte_fb_get_vec(t, R_NAMES);
  for (uint32_t i = 0; i < v.len && i < 64; i++) touch_str(pte_fb_vec_str(v, i));
  v = pte_fb_get_vec(t, R_LEAVES);
  for (uint32_t i = 0; i < v.len && i < 64; i++) walk_leaf(pte_fb_vec_table(v, i));
  if (v.len) {
    pte_fb_vec_i32(v, v.len - 1);
    pte_fb_vec_u64(v, v.len - 1);
    pte_fb_vec_f64(v, v.len - 1);
    pte_fb_vec_i64(v, v.len - 1);
  }
  walk_leaf(pte_fb_get_table(t, R_PAYLOAD));
  walk_root(pte_fb_get_table(t, R_CHILD), depth + 1);
}

TEST(reader_and_verifier_survive_corruption) {
  size_t n;
  uint8_t *good = full_copy(&n);
  CHECK(good != NULL);
  /* every truncation: the last bytes of the buffer are the first object written ("hello" and
   * its NUL), then padding; cutting only padding is still a valid buffer */
  pte_fb_str hello = pte_fb_get_str(pte_fb_root(good, n), R_NAME);
  size_t min_valid = (size_t)((const uint8_t *)hello.ptr - good) + hello.len + 1;
  CHECK(min_valid <= n && n - min_valid < 4);
  for (size_t len = 0; len < n; len++) {
    uint8_t *c = dup_exact(good, len);
    walk_root(pte_fb_root(c, len), 0);
    pte_status s = verify_buffer(c, len, NULL);
    free(c);
    CHECK_MSG(s == (len < min_valid ? PTE_ERR_INVALID_PROGRAM : PTE_OK), "truncated to %zu bytes: status 0x%x", len,
              (unsigned)s);
  }
  /* random byte mutations: must never read out of bounds (ASan), and a buffer the verifier
   * accepts must read back with NUL-terminated strings */
  int accepted = 0;
  for (int iter = 0; iter < 20000; iter++) {
    uint8_t *c = dup_exact(good, n);
    int k = 1 + (int)(rnd() % 4);
    for (int j = 0; j < k; j++) {
      size_t at = rnd() % n;
      switch (rnd() % 4) {
        case 0: c[at] = (uint8_t)rnd(); break;
        case 1: c[at] ^= (uint8_t)(1u << (rnd() % 8)); break;
        case 2: c[at] = 0xFF; break;
        default: c[at] = 0; break;
      }
    }
    walk_root(pte_fb_root(c, n), 0);
    if (verify_buffer(c, n, NULL) == PTE_OK) accepted++;
    free(c);
  }
  CHECK_EQ_INT(g_unterminated, 0); /* the reader never hands out an unterminated string */
  CHECK(accepted > 0); /* mutations of padding / scalar values are harmless */
  CHECK(accepted < 20000);
  free(good);
}

/* ================================================================== flatc round trips */

static const char *flatc_path(void) {
  const char *f = getenv("PTE_FLATC");
  return (f && *f) ? f : NULL;
}

static void strip_ws(char *s) {
  char *w = s;
  for (char *r = s; *r; r++)
    if (*r != ' ' && *r != '\n' && *r != '\t' && *r != '\r') *w++ = *r;
  *w = 0;
}

static char *slurp_text(const char *path) {
  size_t n;
  uint8_t *d = test_read_file(path, &n);
  if (!d) return NULL;
  char *s = malloc(n + 1);
  if (s) { memcpy(s, d, n); s[n] = 0; }
  free(d);
  return s;
}

static const char *write_schema(void) {
  const char *schema = test_tmp_path("test_flatbuf_schema.fbs");
  if (test_write_file(schema, k_schema, strlen(k_schema)) != 0) return NULL;
  return schema;
}

TEST(flatc_decodes_builder_output) {
  const char *flatc = flatc_path();
  if (!flatc) SKIP("flatc not installed (PTE_FLATC empty; .ci/run installs it)");
  const char *schema = write_schema();
  CHECK(schema != NULL);
  size_t n;
  uint8_t *buf = full_copy(&n);
  CHECK(buf != NULL);
  char bin[1024], dir[1024], cmd[4096];
  snprintf(bin, sizeof bin, "%s", test_tmp_path("test_flatbuf_full.bin"));
  snprintf(dir, sizeof dir, "%s", test_tmp_path("test_flatbuf_json"));
  mkdir(dir, 0755);
  CHECK(test_write_file(bin, buf, n) == 0);
  free(buf);
  snprintf(cmd, sizeof cmd, "'%s' --json --raw-binary --strict-json --defaults-json -o '%s' '%s' -- '%s' 2>&1", flatc,
           dir, schema, bin);
  int rc = -1;
  char *log = test_run_capture(cmd, &rc);
  CHECK_MSG(rc == 0, "flatc failed (%d): %s", rc, log ? log : "");
  free(log);
  char jpath[1100];
  snprintf(jpath, sizeof jpath, "%s/test_flatbuf_full.json", dir);
  char *json = slurp_text(jpath);
  CHECK(json != NULL);
  strip_ws(json);
  static const char *want[] = {
      "\"b\":true", "\"i8v\":-128", "\"u8v\":255", "\"i16v\":-32768", "\"u16v\":65535", "\"i32v\":-2147483648",
      "\"u32v\":4294967295", "\"i64v\":-9223372036854775808", "\"u64v\":18446744073709551615", "\"f32v\":0.25",
      "\"f64v\":3.125", "\"color\":\"Blue\"", "\"pos\":{\"x\":1.5,\"y\":-2.0,\"z\":4.0}",
      "\"pair\":{\"a\":-7,\"b\":1099511627776}", "\"name\":\"hello\"",
      "\"leaf\":{\"name\":\"leaf_one\",\"value\":42}", "\"bytes\":[1,2,3]", "\"ints\":[-1,0,2147483647,5]",
      "\"longs\":[1,18446744073709551615]", "\"doubles\":[0.5,-1.25]", "\"names\":[\"x\",\"yz\",\"\"]",
      "\"leaves\":[{\"name\":\"a\",\"value\":7},{\"value\":3}]",
      "\"vecs\":[{\"x\":1.0,\"y\":2.0,\"z\":3.0},{\"x\":4.0,\"y\":5.0,\"z\":6.0}]",
      "\"payload_type\":\"Other\",\"payload\":{\"flag\":true}", "\"aligned32\":[9,8,7]", "\"i32v\":11",
      "\"name\":\"kid\"", "\"flags\":[true,false,true]", "\"shorts\":[-2,300]", "\"floats\":[0.5,2.0]"};
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) CHECK_CONTAINS(json, want[i]);
  free(json);
}

TEST(flatc_binary_reads_and_verifies) {
  const char *flatc = flatc_path();
  if (!flatc) SKIP("flatc not installed (PTE_FLATC empty; .ci/run installs it)");
  const char *schema = write_schema();
  CHECK(schema != NULL);
  static const char json[] =
      "{ \"b\": true, \"i8v\": -5, \"u16v\": 7, \"i64v\": 1234567890123, \"u64v\": 18446744073709551615,\n"
      "  \"f32v\": -0.5, \"f64v\": 6.25, \"color\": \"Red\", \"name\": \"from flatc\", \"bytes\": [1,2,3,4,5],\n"
      "  \"aligned32\": [9,8], \"payload_type\": \"Leaf\", \"payload\": {\"name\": \"in union\", \"value\": 42},\n"
      "  \"pos\": {\"x\": 1, \"y\": 2, \"z\": 3}, \"pair\": {\"a\": 5, \"b\": -6},\n"
      "  \"leaves\": [{\"name\":\"a\"},{\"value\": 3}], \"names\": [\"x\",\"yz\"], \"ints\": [10, -20],\n"
      "  \"longs\": [1, 18446744073709551615], \"doubles\": [0.5], \"child\": {\"i32v\": 11, \"child\": {}},\n"
      "  \"flags\": [true,false], \"shorts\": [-7], \"floats\": [3.5], \"vecs\": [{\"x\":7,\"y\":8,\"z\":9}] }\n";
  char jpath[1024], dir[1024], cmd[4096];
  snprintf(jpath, sizeof jpath, "%s", test_tmp_path("test_flatbuf_in.json"));
  snprintf(dir, sizeof dir, "%s", test_tmp_path("test_flatbuf_bin"));
  mkdir(dir, 0755);
  CHECK(test_write_file(jpath, json, strlen(json)) == 0);
  snprintf(cmd, sizeof cmd, "'%s' -b -o '%s' '%s' '%s' 2>&1", flatc, dir, schema, jpath);
  int rc = -1;
  char *log = test_run_capture(cmd, &rc);
  CHECK_MSG(rc == 0, "flatc failed (%d): %s", rc, log ? log : "");
  free(log);
  char bpath[1100];
  snprintf(bpath, sizeof bpath, "%s/test_flatbuf_in.bin", dir);
  size_t n;
  uint8_t *buf = test_read_file(bpath, &n);
  CHECK(buf != NULL);
  pte_error_info err;
  memset(&err, 0, sizeof err);
  pte_status s = verify_buffer(buf, n, &err);
  CHECK_MSG(s == PTE_OK, "verify: %s", err.msg);
  pte_fb_table r = pte_fb_root(buf, n);
  CHECK(pte_fb_has_identifier(buf, n, "PTET"));
  CHECK(pte_fb_get_bool(r, R_B, false));
  CHECK_EQ_INT(pte_fb_get_i8(r, R_I8, -1), -5);
  CHECK_EQ_INT(pte_fb_get_u8(r, R_U8, 200), 200); /* default, not stored */
  CHECK_EQ_INT(pte_fb_get_u16(r, R_U16, 60000), 7);
  CHECK_EQ_INT(pte_fb_get_i64(r, R_I64, 0), 1234567890123ll);
  CHECK(pte_fb_get_u64(r, R_U64, 0) == UINT64_MAX);
  CHECK(pte_fb_get_f32(r, R_F32, 1.5f) == -0.5f);
  CHECK(pte_fb_get_f64(r, R_F64, 0) == 6.25);
  CHECK_EQ_INT(pte_fb_get_u8(r, R_COLOR, 1), 0);
  CHECK(str_is(pte_fb_get_str(r, R_NAME), "from flatc"));
  pte_fb_vec v = pte_fb_get_vec(r, R_BYTES);
  CHECK(v.len == 5 && v.data % 16 == 0 && pte_fb_vec_u8(v, 4) == 5);
  v = pte_fb_get_vec(r, R_ALIGNED32);
  CHECK(v.len == 2 && v.data % 32 == 0 && pte_fb_vec_u8(v, 0) == 9);
  CHECK_EQ_INT(pte_fb_get_u8(r, R_PAYLOAD_TYPE, 0), 1);
  pte_fb_table u = pte_fb_get_table(r, R_PAYLOAD);
  CHECK(str_is(pte_fb_get_str(u, L_NAME), "in union"));
  CHECK_EQ_INT(pte_fb_get_i32(u, L_VALUE, 7), 42);
  const uint8_t *pos = pte_fb_get_struct(r, R_POS, 12);
  CHECK(pos && pte_fb_ld_f32(pos + 8) == 3.0f);
  const uint8_t *pair = pte_fb_get_struct(r, R_PAIR, 16);
  CHECK(pair && pte_fb_ld_i32(pair) == 5 && (int64_t)pte_fb_ld_u64(pair + 8) == -6);
  v = pte_fb_get_vec(r, R_LEAVES);
  CHECK(v.len == 2 && str_is(pte_fb_get_str(pte_fb_vec_table(v, 0), L_NAME), "a"));
  CHECK_EQ_INT(pte_fb_get_i32(pte_fb_vec_table(v, 0), L_VALUE, 7), 7);
  CHECK_EQ_INT(pte_fb_get_i32(pte_fb_vec_table(v, 1), L_VALUE, 7), 3);
  v = pte_fb_get_vec(r, R_NAMES);
  CHECK(v.len == 2 && str_is(pte_fb_vec_str(v, 1), "yz"));
  v = pte_fb_get_vec(r, R_INTS);
  CHECK(v.len == 2 && pte_fb_vec_i32(v, 1) == -20);
  v = pte_fb_get_vec(r, R_LONGS);
  CHECK(v.len == 2 && v.data % 8 == 0 && pte_fb_vec_u64(v, 1) == UINT64_MAX);
  v = pte_fb_get_vec(r, R_DOUBLES);
  CHECK(v.len == 1 && pte_fb_vec_f64(v, 0) == 0.5);
  pte_fb_table c = pte_fb_get_table(r, R_CHILD);
  CHECK_EQ_INT(pte_fb_get_i32(c, R_I32, 0), 11);
  CHECK(pte_fb_table_present(pte_fb_get_table(c, R_CHILD)));
  v = pte_fb_get_vec(r, R_FLAGS);
  CHECK(v.len == 2 && pte_fb_vec_u8(v, 0) == 1 && pte_fb_vec_u8(v, 1) == 0);
  v = pte_fb_get_vec(r, R_SHORTS);
  CHECK(v.len == 1 && (int16_t)pte_fb_ld_u16(pte_fb_vec_elem(v, 0, 2)) == -7);
  v = pte_fb_get_vec(r, R_FLOATS);
  CHECK(v.len == 1 && pte_fb_ld_f32(pte_fb_vec_elem(v, 0, 4)) == 3.5f);
  v = pte_fb_get_vec(r, R_VECS);
  CHECK(v.len == 1 && pte_fb_ld_f32(pte_fb_vec_elem(v, 0, 12) + 4) == 8.0f);
  /* and flatc's own bytes survive the corruption gauntlet: truncations are rejected */
  for (size_t len = 0; len < n; len += 7) {
    uint8_t *t = dup_exact(buf, len);
    CHECK_STATUS(verify_buffer(t, len, NULL), PTE_ERR_INVALID_PROGRAM);
    walk_root(pte_fb_root(t, len), 0);
    free(t);
  }
  free(buf);
}

/* ================================================================== real files */

TEST(corpus_programs_have_readable_roots) {
  const char *dirpath = getenv("PTE_CORPUS");
  CHECK_MSG(dirpath, "PTE_CORPUS unset");
  DIR *d = opendir(dirpath);
  CHECK(d != NULL);
  int files = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    size_t l = strlen(e->d_name);
    if (l < 5 || strcmp(e->d_name + l - 4, ".pte") != 0) continue;
    size_t n;
    uint8_t *buf = test_read_corpus(e->d_name, &n);
    if (!buf) break;
    pte_fb_table r = pte_fb_root(buf, n);
    bool ok = pte_fb_table_present(r) && pte_fb_has_identifier(buf, n, "ET12") &&
              pte_fb_get_u32(r, 0, 0) == 0; /* Program.version (absent in some files) */
    pte_fb_vec plans = pte_fb_get_vec(r, 1); /* Program.execution_plan */
    ok = ok && plans.present && plans.len >= 1;
    for (uint32_t i = 0; ok && i < plans.len; i++) {
      pte_fb_str name = pte_fb_get_str(pte_fb_vec_table(plans, i), 0); /* ExecutionPlan.name */
      ok = name.ptr && name.len > 0 && strlen(name.ptr) == name.len;
    }
    free(buf);
    CHECK_MSG(ok, "%s: root/identifier/version/execution_plan names not readable", e->d_name);
    files++;
  }
  closedir(d);
  CHECK(files >= 10);
}

int main(void) {
  RUN(reader_defaults_on_empty_table);
  RUN(reader_absent_and_tiny_buffers);
  RUN(builder_golden_bytes);
  RUN(builder_full_roundtrip_and_alignment);
  RUN(builder_min_align_and_force_align);
  RUN(builder_default_elision_and_forced);
  RUN(builder_vtable_dedup);
  RUN(builder_growth_many_objects);
  RUN(builder_start_vec_raw);
  RUN(builder_allocation_failure);
  RUN(builder_size_limits);
  RUN(builder_misuse);
  RUN(builder_high_slot_and_wide_table);
  RUN(verify_accepts_good_buffers);
  RUN(verify_rejects_header_corruptions);
  RUN(verify_rejects_table_corruptions);
  RUN(verify_rejects_reference_corruptions);
  RUN(verify_rejects_union_corruptions);
  RUN(verify_depth_and_table_limits);
  RUN(reader_and_verifier_survive_corruption);
  RUN(flatc_decodes_builder_output);
  RUN(flatc_binary_reads_and_verifies);
  RUN(corpus_programs_have_readable_roots);
  return test_summary();
}
