#define _POSIX_C_SOURCE 200809L
/* test_flatbuf_verify.c — FlatBuffers core: the verifier (acceptance, every corruption, limits),
 * reader and verifier under random corruption, round trips through Google's flatc (PTE_FLATC) to
 * prove the bytes are real FlatBuffers, and the corpus roots. Reader and builder: test_flatbuf.c. */
#include "format/flatbuf.h"
#include "test.h"

#include <dirent.h>
#include <sys/stat.h>

#include "fb_test_schema.h"

/* ================================================================== verifier */

/* Runs the verifier on a modified copy and checks status and message. */
static void expect_reject(const uint8_t *buf, size_t n, const char *needle) {
  uint8_t *copy = fbt_dup_aligned(buf, n);
  pte_error_info err;
  memset(&err, 0, sizeof err);
  pte_status s = fbt_verify_buffer(copy, n, &err);
  free(copy);
  CHECK_MSG(s == PTE_ERR_INVALID_PROGRAM, "expected InvalidProgram for \"%s\", got 0x%x (%s)", needle, (unsigned)s,
            err.msg);
  if (getenv("PTE_TEST_VERBOSE")) printf("    rejected: %s\n", err.msg);
  CHECK_STATUS(err.status, PTE_ERR_INVALID_PROGRAM);
  CHECK_CONTAINS(err.msg, needle);
  /* the same failure without an error sink */
  copy = fbt_dup_aligned(buf, n);
  s = fbt_verify_buffer(copy, n, NULL);
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
  uint8_t *buf = fbt_full_copy(&n);
  CHECK(buf != NULL);
  pte_error_info err;
  memset(&err, 0, sizeof err);
  CHECK_OK(fbt_verify_buffer(buf, n, &err));
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
  CHECK_OK(pte_fb_verify_table_field(&v, t, R_LEAF, fbt_verify_leaf, true));
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
  uint8_t *good = fbt_full_copy(&n);
  CHECK(good != NULL);
  uint8_t *m = fbt_dup_aligned(good, n);
  /* 1. truncated buffer */
  expect_reject(good, 6, "buffer: too small for a FlatBuffer (6 bytes");
  /* 2. truncated so the root offset points past the end */
  uint32_t root = pte_fb_ld_u32(good);
  expect_reject(good, root, fmt_needle("root table offset 0x%x past end of buffer (size 0x%llx)", root, root));
  /* 3. root offset past the end */
  memcpy(m, good, n);
  fbt_st_u32(m, (uint32_t)n + 100);
  expect_reject(m, n, fmt_needle("root table offset 0x%x past end of buffer (size 0x%llx)", (unsigned)n + 100, n));
  /* 4. root overlapping the identifier */
  memcpy(m, good, n);
  fbt_st_u32(m, 4);
  expect_reject(m, n, "root table offset 0x4 overlaps the buffer header");
  /* 5. misaligned root table */
  memcpy(m, good, n);
  fbt_st_u32(m, root + 2);
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
  uint8_t *good = fbt_full_copy(&n);
  CHECK(good != NULL);
  uint8_t *m = fbt_dup_aligned(good, n);
  pte_fb_table r = pte_fb_root(good, n);
  uint32_t root = r.pos;
  /* 7. vtable out of range (soffset pointing past the end) */
  memcpy(m, good, n);
  fbt_st_u32(m + root, (uint32_t)-(int32_t)(n + 8));
  expect_reject(m, n, fmt_needle("Root: table at 0x%x: vtable at 0x%llx (soffset", root, (unsigned long long)(root + n + 8)));
  expect_reject(m, n, "past end of buffer (size 0x");
  /* 8. vtable before the start of the buffer */
  memcpy(m, good, n);
  fbt_st_u32(m + root, root + 2);
  expect_reject(m, n, fmt_needle("vtable at -0x2 (soffset %u) before start of buffer", root + 2, 0));
  /* 9. vtable not 2-byte aligned */
  memcpy(m, good, n);
  fbt_st_u32(m + root, (uint32_t)pte_fb_ld_i32(good + root) + 1);
  expect_reject(m, n, "not 2-byte aligned");
  /* 10. odd vtable length */
  memcpy(m, good, n);
  fbt_st_u16(m + r.vt, (uint16_t)(r.vt_len - 1));
  expect_reject(m, n, fmt_needle("Root: table at 0x%x: vtable length %llu is odd", root, (unsigned long long)r.vt_len - 1));
  /* 11. vtable length below 4 */
  memcpy(m, good, n);
  fbt_st_u16(m + r.vt, 2);
  expect_reject(m, n, "vtable length 2 is less than 4");
  /* 12. vtable running past the end of the buffer */
  memcpy(m, good, n);
  fbt_st_u16(m + r.vt, 0xFFFE);
  expect_reject(m, n, "vtable at 0x");
  expect_reject(m, n, "with length 65534 past end of buffer");
  /* 13. table inline size below 4 / past the end */
  memcpy(m, good, n);
  fbt_st_u16(m + r.vt + 2, 2);
  expect_reject(m, n, "inline size 2 less than 4");
  memcpy(m, good, n);
  fbt_st_u16(m + r.vt + 2, 0xFFFC);
  expect_reject(m, n, "inline size 65532 past end of buffer");
  /* 14. field past the end of the buffer */
  memcpy(m, good, n);
  fbt_st_u16(m + vt_entry(r, R_U64), 0xFFF8);
  expect_reject(m, n, fmt_needle("Root: field %u (inline) at table offset 65528 (8 bytes) past end of buffer (size 0x%llx)",
                                 R_U64, n));
  /* ... but a field past the vtable's inline size is accepted and read: the Python flatbuffers
   * builder (upstream's serializer) shares vtables between tables of different sizes, so real
   * .pte files carry e.g. an Int table whose i64 at offset 4 ends past a declared size of 8. */
  memcpy(m, good, n);
  fbt_st_u16(m + r.vt + 2, 4);
  CHECK_OK(fbt_verify_buffer(m, n, NULL));
  fbt_check_full_values(m, n);
  CHECK_EQ_INT(pte_fb_root(m, n).tbl_len, 4);
  /* 15. field overlapping the soffset */
  memcpy(m, good, n);
  fbt_st_u16(m + vt_entry(r, R_I32), 2);
  expect_reject(m, n, "Root: field 5 (inline) at table offset 2 overlaps the vtable offset");
  /* 16. misaligned scalar field */
  memcpy(m, good, n);
  {
    unsigned fo = pte_fb_ld_u16(good + vt_entry(r, R_U64));
    fbt_st_u16(m + vt_entry(r, R_U64), (uint16_t)(fo - 4));
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
  uint8_t *good = fbt_full_copy(&n);
  CHECK(good != NULL);
  uint8_t *m = fbt_dup_aligned(good, n);
  pte_fb_table r = pte_fb_root(good, n);
  /* 18. string not NUL-terminated */
  pte_fb_str name = pte_fb_get_str(r, R_NAME);
  size_t name_at = (size_t)((const uint8_t *)name.ptr - good);
  memcpy(m, good, n);
  m[name_at + name.len] = 'X';
  expect_reject(m, n, fmt_needle("Root: field %u (string) at 0x%llx (length 5) not NUL-terminated", R_NAME, name_at - 4));
  /* 19. string length past the end */
  memcpy(m, good, n);
  fbt_st_u32(m + name_at - 4, 0xFFFFFF00u);
  expect_reject(m, n, "Root: field 14 (string) at 0x");
  expect_reject(m, n, "length 4294967040 past end of buffer");
  /* 20. vector length overflow (count * 4 wraps 32 bits) */
  pte_fb_vec ints = pte_fb_get_vec(r, R_INTS);
  memcpy(m, good, n);
  fbt_st_u32(m + ints.data - 4, 0x40000001u);
  expect_reject(m, n, "Root: field 17 (vector) at 0x");
  expect_reject(m, n, "length 1073741825 x 4 bytes past end of buffer");
  /* 21. uoffset past the end (the message shape the brief asks for) */
  uint32_t fpos = pte_fb_field_pos(r, R_INTS);
  memcpy(m, good, n);
  fbt_st_u32(m + fpos, 0x10000000u);
  expect_reject(m, n, fmt_needle("Root: field %u (vector) offset 0x%llx past end of buffer", R_INTS, fpos + 0x10000000ull));
  /* 22. zero offset, too-large offset, misaligned offset */
  memcpy(m, good, n);
  fbt_st_u32(m + fpos, 0);
  expect_reject(m, n, fmt_needle("Root: field %u (vector) offset at 0x%llx is zero", R_INTS, fpos));
  memcpy(m, good, n);
  fbt_st_u32(m + fpos, 0x80000000u);
  expect_reject(m, n, "Root: field 17 (vector) offset 0x80000000 at 0x");
  expect_reject(m, n, "too large");
  memcpy(m, good, n);
  fbt_st_u32(m + fpos, pte_fb_ld_u32(good + fpos) + 2);
  expect_reject(m, n, "Root: field 17 (vector) offset 0x");
  expect_reject(m, n, "not 4-byte aligned");
  /* 23. u64 vector whose element data is only 4-byte aligned */
  uint32_t lpos = pte_fb_field_pos(r, R_LONGS);
  memcpy(m, good, n);
  fbt_st_u32(m + lpos, pte_fb_ld_u32(good + lpos) + 4); /* count now reads the low half of element 0 (= 1) */
  expect_reject(m, n, "Root: field 18 (vector) at 0x");
  expect_reject(m, n, "not 8-byte aligned");
  /* 24. force_align vector data misaligned */
  pte_fb_vec a32 = pte_fb_get_vec(r, R_ALIGNED32);
  uint32_t apos = pte_fb_field_pos(r, R_ALIGNED32);
  memcpy(m, good, n);
  fbt_st_u32(m + apos, pte_fb_ld_u32(good + apos) - 16);
  fbt_st_u32(m + a32.data - 4 - 16, 1);
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
  fbt_st_u16(m + leaf.vt, 5);
  expect_reject(m, n, fmt_needle("Leaf: table at 0x%x: vtable length %llu is odd", leaf.pos, 5));
  pte_fb_table l1 = pte_fb_vec_table(pte_fb_get_vec(r, R_LEAVES), 0);
  pte_fb_str l1name = pte_fb_get_str(l1, L_NAME);
  memcpy(m, good, n);
  fbt_st_u32(m + ((const uint8_t *)l1name.ptr - good) - 4, 1000000);
  expect_reject(m, n, "Leaf: field 0 (string) at 0x");
  /* 27. after a nested table, errors name the parent again */
  pte_fb_vec bytes = pte_fb_get_vec(r, R_BYTES);
  memcpy(m, good, n);
  fbt_st_u32(m + bytes.data - 4, 0x7FFFFFFF);
  expect_reject(m, n, "Root: field 16 (vector) at 0x");
  /* 28. vector of tables element pointing outside */
  pte_fb_vec leaves = pte_fb_get_vec(r, R_LEAVES);
  memcpy(m, good, n);
  fbt_st_u32(m + leaves.data + 4, 0x01000000);
  expect_reject(m, n, "Root: field 21 (vector of tables) element 1: offset 0x");
  /* 29. required field missing */
  fbt_leaf_name_required = true;
  expect_reject(good, n, "Leaf: field 0 (string) is required but missing");
  fbt_leaf_name_required = false;
  free(m);
  free(good);
}

TEST(verify_rejects_union_corruptions) {
  size_t n;
  uint8_t *good = fbt_full_copy(&n);
  CHECK(good != NULL);
  uint8_t *m = fbt_dup_aligned(good, n);
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
  fbt_st_u16(m + vt_entry(r, R_PAYLOAD), 0);
  expect_reject(m, n, "Root: field 24 (union) type 2 set but value missing");
  /* 33. wrong member type: Other read as Leaf still verifies structurally (both valid tables),
   * but a tag whose verifier is missing is rejected */
  pte_fb_verifier v;
  pte_fb_table t;
  uint32_t root;
  pte_error_info err;
  static const pte_fb_verify_fn partial[3] = {NULL, fbt_verify_leaf, NULL};
  pte_fb_verifier_init(&v, good, n, &err);
  CHECK_OK(pte_fb_verify_root(&v, "PTET", &root));
  CHECK_OK(pte_fb_verify_table_begin(&v, root, "Root", &t));
  CHECK_STATUS(pte_fb_verify_union(&v, t, R_PAYLOAD_TYPE, R_PAYLOAD, partial, 3), PTE_ERR_INVALID_PROGRAM);
  CHECK_CONTAINS(err.msg, "Root: field 24 (union) member type 2 has no verifier");
  /* 34. member table corrupt: message names the member */
  pte_fb_table other = pte_fb_get_table(r, R_PAYLOAD);
  memcpy(m, good, n);
  fbt_st_u16(m + other.vt + 2, 0x7FF0);
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
    pte_fb_builder_init(&b, fbt_heap_realloc, NULL);
    pte_fb_ref root = build_chain(&b, depth);
    CHECK_OK(pte_fb_finish(&b, root, "PTET", 0, &out, &n));
    uint8_t *buf = fbt_dup_aligned(out, n);
    pte_fb_builder_free(&b);
    pte_fb_table t = pte_fb_root(buf, n);
    for (int i = depth - 1; i > 0; i--) t = pte_fb_get_table(t, R_CHILD);
    CHECK_EQ_INT(pte_fb_get_i32(t, R_I32, -1), 0);
    if (depth <= 64) {
      CHECK_OK(fbt_verify_buffer(buf, n, NULL));
    } else {
      expect_reject(buf, n, "Root: table nesting depth exceeds the limit of 64");
    }
    fbt_max_depth = 10;
    expect_reject(buf, n, "table nesting depth exceeds the limit of 10");
    fbt_max_depth = 0;
    free(buf);
  }
  size_t n;
  uint8_t *good = fbt_full_copy(&n);
  CHECK(good != NULL);
  fbt_max_tables = 3;
  expect_reject(good, n, "more than 3 tables in the buffer");
  fbt_max_tables = 6; /* Root, Leaf, 2 leaves, Other, child: exactly 6 */
  CHECK_OK(fbt_verify_buffer(good, n, NULL));
  fbt_max_tables = 5;
  expect_reject(good, n, "more than 5 tables");
  fbt_max_tables = 0;
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
  uint8_t *good = fbt_full_copy(&n);
  CHECK(good != NULL);
  /* every truncation: the last bytes of the buffer are the first object written ("hello" and
   * its NUL), then padding; cutting only padding is still a valid buffer */
  pte_fb_str hello = pte_fb_get_str(pte_fb_root(good, n), R_NAME);
  size_t min_valid = (size_t)((const uint8_t *)hello.ptr - good) + hello.len + 1;
  CHECK(min_valid <= n && n - min_valid < 4);
  for (size_t len = 0; len < n; len++) {
    uint8_t *c = fbt_dup_exact(good, len);
    walk_root(pte_fb_root(c, len), 0);
    pte_status s = fbt_verify_buffer(c, len, NULL);
    free(c);
    CHECK_MSG(s == (len < min_valid ? PTE_ERR_INVALID_PROGRAM : PTE_OK), "truncated to %zu bytes: status 0x%x", len,
              (unsigned)s);
  }
  /* random byte mutations: must never read out of bounds (ASan), and a buffer the verifier
   * accepts must read back with NUL-terminated strings */
  int accepted = 0;
  for (int iter = 0; iter < 20000; iter++) {
    uint8_t *c = fbt_dup_exact(good, n);
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
    if (fbt_verify_buffer(c, n, NULL) == PTE_OK) accepted++;
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
  if (test_write_file(schema, fbt_schema, strlen(fbt_schema)) != 0) return NULL;
  return schema;
}

TEST(flatc_decodes_builder_output) {
  const char *flatc = flatc_path();
  if (!flatc) SKIP("flatc not installed (PTE_FLATC empty; .ci/run installs it)");
  const char *schema = write_schema();
  CHECK(schema != NULL);
  size_t n;
  uint8_t *buf = fbt_full_copy(&n);
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
  pte_status s = fbt_verify_buffer(buf, n, &err);
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
  CHECK(fbt_str_is(pte_fb_get_str(r, R_NAME), "from flatc"));
  pte_fb_vec v = pte_fb_get_vec(r, R_BYTES);
  CHECK(v.len == 5 && v.data % 16 == 0 && pte_fb_vec_u8(v, 4) == 5);
  v = pte_fb_get_vec(r, R_ALIGNED32);
  CHECK(v.len == 2 && v.data % 32 == 0 && pte_fb_vec_u8(v, 0) == 9);
  CHECK_EQ_INT(pte_fb_get_u8(r, R_PAYLOAD_TYPE, 0), 1);
  pte_fb_table u = pte_fb_get_table(r, R_PAYLOAD);
  CHECK(fbt_str_is(pte_fb_get_str(u, L_NAME), "in union"));
  CHECK_EQ_INT(pte_fb_get_i32(u, L_VALUE, 7), 42);
  const uint8_t *pos = pte_fb_get_struct(r, R_POS, 12);
  CHECK(pos && pte_fb_ld_f32(pos + 8) == 3.0f);
  const uint8_t *pair = pte_fb_get_struct(r, R_PAIR, 16);
  CHECK(pair && pte_fb_ld_i32(pair) == 5 && (int64_t)pte_fb_ld_u64(pair + 8) == -6);
  v = pte_fb_get_vec(r, R_LEAVES);
  CHECK(v.len == 2 && fbt_str_is(pte_fb_get_str(pte_fb_vec_table(v, 0), L_NAME), "a"));
  CHECK_EQ_INT(pte_fb_get_i32(pte_fb_vec_table(v, 0), L_VALUE, 7), 7);
  CHECK_EQ_INT(pte_fb_get_i32(pte_fb_vec_table(v, 1), L_VALUE, 7), 3);
  v = pte_fb_get_vec(r, R_NAMES);
  CHECK(v.len == 2 && fbt_str_is(pte_fb_vec_str(v, 1), "yz"));
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
    uint8_t *t = fbt_dup_exact(buf, len);
    CHECK_STATUS(fbt_verify_buffer(t, len, NULL), PTE_ERR_INVALID_PROGRAM);
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
