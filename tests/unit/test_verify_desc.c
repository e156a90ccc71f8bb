/* test_verify_desc.c — the table-driven verifier (src/format/fb_verify_desc.c) that the generated
 * <P>_<Table>_verify functions call (docs/footprint.md).
 *
 * The reference is the code tools/fbsgen emitted before: one pte_fb_verify_* call per field,
 * `if (s == PTE_OK) s = ...`, table_end at the end. A buffer with every kind of field is verified
 * both ways, intact and after every single-byte corruption, and the two must agree exactly on the
 * status, the message, the tables visited and the depth left behind. Then the paths the old code
 * did not have: a required union, a bad descriptor kind, an empty descriptor list.
 */
#include "test.h"

#include "format/fb_verify_desc.h"
#include "format/flatbuf.h"
#include "pte/io.h"
#include "pte_gen/program_gen.h"

/* ---- child table C { u32 x (slot 0) } ------------------------------------------------------ */
static pte_status child_direct(pte_fb_verifier *v, uint32_t pos) {
  pte_fb_table t;
  pte_status s = pte_fb_verify_table_begin(v, pos, "C", &t);
  if (s != PTE_OK) return s;
  if (s == PTE_OK) s = pte_fb_verify_field(v, t, 0, 4, 4);
  pte_fb_verify_table_end(v);
  return s;
}
static const pte_fb_vfield k_child[] = {{PTE_FB_VK_INLINE, 0, 0, 4, 4, {NULL}}};
static pte_status child_desc(pte_fb_verifier *v, uint32_t pos) {
  return pte_fb_verify_table_desc(v, pos, "C", k_child, 1);
}
static const pte_fb_verify_fn k_union_direct[2] = {NULL, child_direct};
static const pte_fb_verify_fn k_union_desc[2] = {NULL, child_desc};

/* ---- root table R: every field kind ------------------------------------------------------------
 *   0 u32 | 1 string | 2 [u16] | 3 [string] | 4 [C] | 5 C | 6/7 union {C} | 8 u64 | 9 struct(12, 4) */
static pte_status root_direct(pte_fb_verifier *v, uint32_t pos) {
  pte_fb_table t;
  pte_status s = pte_fb_verify_table_begin(v, pos, "R", &t);
  if (s != PTE_OK) return s;
  if (s == PTE_OK) s = pte_fb_verify_field(v, t, 0, 4, 4);
  if (s == PTE_OK) s = pte_fb_verify_str(v, t, 1, false);
  if (s == PTE_OK) s = pte_fb_verify_vec(v, t, 2, 2, 2, false, NULL);
  if (s == PTE_OK) s = pte_fb_verify_vec_str(v, t, 3, false);
  if (s == PTE_OK) s = pte_fb_verify_vec_table(v, t, 4, child_direct, false);
  if (s == PTE_OK) s = pte_fb_verify_table_field(v, t, 5, child_direct, false);
  if (s == PTE_OK) s = pte_fb_verify_union(v, t, 6, 7, k_union_direct, 2);
  if (s == PTE_OK) s = pte_fb_verify_field(v, t, 8, 8, 8);
  if (s == PTE_OK) s = pte_fb_verify_field(v, t, 9, 12, 4);
  pte_fb_verify_table_end(v);
  return s;
}
static const pte_fb_vfield k_root[] = {
    {PTE_FB_VK_INLINE, 0, 0, 4, 4, {NULL}},
    {PTE_FB_VK_STR, 0, 1, 0, 0, {NULL}},
    {PTE_FB_VK_VEC, 0, 2, 2, 2, {NULL}},
    {PTE_FB_VK_VEC_STR, 0, 3, 0, 0, {NULL}},
    {PTE_FB_VK_VEC_TABLE, 0, 4, 0, 0, {.fn = child_desc}},
    {PTE_FB_VK_TABLE, 0, 5, 0, 0, {.fn = child_desc}},
    {PTE_FB_VK_UNION, 0, 7, 0, 2, {.tags = k_union_desc}},
    {PTE_FB_VK_INLINE, 0, 8, 8, 8, {NULL}},
    {PTE_FB_VK_INLINE, 0, 9, 12, 4, {NULL}},
};
static pte_status root_desc(pte_fb_verifier *v, uint32_t pos) {
  return pte_fb_verify_table_desc(v, pos, "R", k_root, sizeof k_root / sizeof k_root[0]);
}

static pte_fb_ref child(pte_fb_builder *b, uint32_t x) {
  pte_fb_table_start(b);
  pte_fb_add_u32(b, 0, x, 0);
  return pte_fb_table_end(b);
}

/* Builds R with every field set; returns a heap copy (free()) of the finished buffer. */
static uint8_t *build_root(size_t *size) {
  pte_fb_builder b;
  pte_fb_builder_init(&b, pte_heap_realloc, NULL);
  pte_fb_ref c1 = child(&b, 11), c2 = child(&b, 12), c3 = child(&b, 13), c4 = child(&b, 14);
  pte_fb_ref s = pte_fb_create_string(&b, "hello", 5);
  const uint16_t u16s[3] = {1, 2, 3}; /* little-endian host (x86-64 / arm64) */
  pte_fb_ref v16 = pte_fb_create_vec(&b, u16s, 3, 2, 2);
  pte_fb_ref sa = pte_fb_create_string(&b, "a", 1), sb = pte_fb_create_string(&b, "bc", 2);
  pte_fb_ref strs_refs[2] = {sa, sb}, tabs_refs[2] = {c1, c2};
  pte_fb_ref strs = pte_fb_create_vec_refs(&b, strs_refs, 2);
  pte_fb_ref tabs = pte_fb_create_vec_refs(&b, tabs_refs, 2);
  const uint8_t st[12] = {1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0};
  pte_fb_table_start(&b);
  pte_fb_add_u32(&b, 0, 7, 0);
  pte_fb_add_ref(&b, 1, s);
  pte_fb_add_ref(&b, 2, v16);
  pte_fb_add_ref(&b, 3, strs);
  pte_fb_add_ref(&b, 4, tabs);
  pte_fb_add_ref(&b, 5, c3);
  pte_fb_add_u8(&b, 6, 1, 0);
  pte_fb_add_ref(&b, 7, c4);
  pte_fb_add_u64(&b, 8, 9, 0);
  pte_fb_add_struct(&b, 9, st, 12, 4);
  pte_fb_ref root = pte_fb_table_end(&b);
  const uint8_t *out = NULL;
  uint8_t *copy = NULL;
  if (pte_fb_finish(&b, root, "TEST", 8, &out, size) == PTE_OK) {
    copy = aligned_alloc(64, (*size + 63) / 64 * 64);
    if (copy) memcpy(copy, out, *size);
  }
  pte_fb_builder_free(&b);
  return copy;
}

typedef struct outcome {
  pte_status s;
  char msg[PTE_ERROR_MSG_MAX];
  unsigned tables, depth;
} outcome;

static outcome verify_with(pte_fb_verify_fn fn, const uint8_t *buf, size_t size) {
  outcome o;
  pte_error_info err;
  pte_fb_verifier v;
  uint32_t root = 0;
  memset(&o, 0, sizeof o);
  memset(&err, 0, sizeof err);
  pte_fb_verifier_init(&v, buf, size, &err);
  o.s = pte_fb_verify_root(&v, "TEST", &root);
  if (o.s == PTE_OK) o.s = fn(&v, root);
  memcpy(o.msg, err.msg, sizeof o.msg);
  o.tables = v.tables;
  o.depth = v.depth;
  return o;
}

TEST(intact_buffer_verifies_the_same_both_ways) {
  size_t size = 0;
  uint8_t *buf = build_root(&size);
  CHECK(buf);
  outcome a = verify_with(root_direct, buf, size), b = verify_with(root_desc, buf, size);
  CHECK_OK(a.s);
  CHECK_OK(b.s);
  /* R + 2 vector children + 1 table field + 1 union member */
  CHECK_EQ_INT(a.tables, 5);
  CHECK_EQ_INT(b.tables, 5);
  CHECK_EQ_INT(b.depth, 0);
  free(buf);
}

TEST(every_single_byte_corruption_gives_identical_results) {
  size_t size = 0;
  uint8_t *buf = build_root(&size);
  CHECK(buf);
  static const uint8_t vals[] = {0x00, 0x01, 0x03, 0x7f, 0x80, 0xff};
  unsigned failures = 0, cases = 0;
  for (size_t i = 0; i < size; i++) {
    uint8_t keep = buf[i];
    for (size_t k = 0; k < sizeof vals; k++) {
      if (vals[k] == keep) continue;
      buf[i] = vals[k];
      outcome a = verify_with(root_direct, buf, size), b = verify_with(root_desc, buf, size);
      cases++;
      if (a.s != PTE_OK) failures++;
      CHECK_MSG(a.s == b.s && strcmp(a.msg, b.msg) == 0 && a.tables == b.tables && a.depth == b.depth,
                "byte %zu = 0x%02x: direct %d '%s' (%u tables, depth %u) vs desc %d '%s' (%u, %u)", i,
                (unsigned)vals[k], (int)a.s, a.msg, a.tables, a.depth, (int)b.s, b.msg, b.tables, b.depth);
    }
    buf[i] = keep;
  }
  /* the corruptions really exercise the error paths (not just harmless bytes) */
  CHECK_MSG(failures > cases / 4, "only %u of %u corruptions were rejected", failures, cases);
  free(buf);
}

TEST(required_fields) {
  size_t size = 0;
  uint8_t *buf = build_root(&size);
  CHECK(buf);
  pte_fb_verifier v;
  pte_error_info e1, e2;
  uint32_t root = 0;
  pte_fb_table t;
  /* required string in an absent slot: the same check and message as pte_fb_verify_str */
  pte_fb_verifier_init(&v, buf, size, &e1);
  CHECK_OK(pte_fb_verify_root(&v, "TEST", &root));
  CHECK_OK(pte_fb_verify_table_begin(&v, root, "R", &t));
  CHECK_STATUS(pte_fb_verify_str(&v, t, 12, true), PTE_ERR_INVALID_PROGRAM);
  static const pte_fb_vfield req_str[] = {{PTE_FB_VK_STR, 1, 12, 0, 0, {NULL}}};
  pte_fb_verifier_init(&v, buf, size, &e2);
  CHECK_STATUS(pte_fb_verify_table_desc(&v, root, "R", req_str, 1), PTE_ERR_INVALID_PROGRAM);
  CHECK_STR(e2.msg, e1.msg);
  CHECK_CONTAINS(e2.msg, "required");
  CHECK_EQ_INT(v.depth, 0);
  /* present required fields pass */
  static const pte_fb_vfield req_ok[] = {{PTE_FB_VK_STR, 1, 1, 0, 0, {NULL}},
                                         {PTE_FB_VK_VEC_TABLE, 1, 4, 0, 0, {.fn = child_desc}},
                                         {PTE_FB_VK_UNION, 1, 7, 0, 2, {.tags = k_union_desc}}};
  pte_fb_verifier_init(&v, buf, size, &e2);
  CHECK_OK(pte_fb_verify_table_desc(&v, root, "R", req_ok, 3));
  CHECK_EQ_INT(v.tables, 4);
  /* a required union whose value slot is absent */
  static const pte_fb_vfield req_union[] = {{PTE_FB_VK_UNION, 1, 11, 0, 2, {.tags = k_union_desc}}};
  pte_fb_verifier_init(&v, buf, size, &e2);
  CHECK_STATUS(pte_fb_verify_table_desc(&v, root, "R", req_union, 1), PTE_ERR_INVALID_PROGRAM);
  CHECK_STR(e2.msg, "R: required union (field 11) is missing");
  CHECK_EQ_INT(v.depth, 0);
  /* the same union not required: absent is fine */
  static const pte_fb_vfield opt_union[] = {{PTE_FB_VK_UNION, 0, 11, 0, 2, {.tags = k_union_desc}}};
  pte_fb_verifier_init(&v, buf, size, &e2);
  CHECK_OK(pte_fb_verify_table_desc(&v, root, "R", opt_union, 1));
  free(buf);
}

TEST(bad_descriptors_and_empty_tables) {
  size_t size = 0;
  uint8_t *buf = build_root(&size);
  CHECK(buf);
  pte_fb_verifier v;
  pte_error_info err;
  uint32_t root = 0;
  pte_fb_verifier_init(&v, buf, size, &err);
  CHECK_OK(pte_fb_verify_root(&v, "TEST", &root));
  static const pte_fb_vfield bad[] = {{PTE_FB_VK_INLINE, 0, 0, 4, 4, {NULL}}, {99, 0, 1, 0, 0, {NULL}}};
  CHECK_STATUS(pte_fb_verify_table_desc(&v, root, "R", bad, 2), PTE_ERR_INVALID_PROGRAM);
  CHECK_STR(err.msg, "R: bad field descriptor 1");
  CHECK_EQ_INT(v.depth, 0);
  /* no fields: only the table header is checked (a table with no fields, e.g. Null) */
  pte_fb_verifier_init(&v, buf, size, &err);
  CHECK_OK(pte_fb_verify_table_desc(&v, root, "R", NULL, 0));
  CHECK_EQ_INT(v.tables, 1);
  /* a header failure returns before anything is counted or nested */
  pte_fb_verifier_init(&v, buf, size, &err);
  CHECK_STATUS(pte_fb_verify_table_desc(&v, root + 2, "R", k_root, 1), PTE_ERR_INVALID_PROGRAM);
  CHECK_CONTAINS(err.msg, "not 4-byte aligned");
  CHECK_EQ_INT(v.depth, 0);
  CHECK_EQ_INT(v.tables, 0);
  free(buf);
}

/* The generated verifiers use the interpreter: a real program verifies, a corrupted one fails with
 * the table name in the message. */
TEST(generated_program_verifier_on_corpus) {
  size_t size = 0;
  const char *path = test_corpus_path("arduino_AddModel.pte");
  CHECK(path);
  uint8_t *buf = test_read_file(path, &size);
  CHECK(buf);
  pte_fb_verifier v;
  pte_error_info err;
  uint32_t root = 0;
  pte_fb_verifier_init(&v, buf, size, &err);
  CHECK_OK(pte_fb_verify_root(&v, "ET12", &root));
  CHECK_OK(pte_et_Program_verify(&v, root));
  CHECK(v.tables > 10);
  CHECK_EQ_INT(v.depth, 0);
  free(buf);
}

int main(void) {
  RUN(intact_buffer_verifies_the_same_both_ways);
  RUN(every_single_byte_corruption_gives_identical_results);
  RUN(required_fields);
  RUN(bad_descriptors_and_empty_tables);
  RUN(generated_program_verifier_on_corpus);
  return test_summary();
}
