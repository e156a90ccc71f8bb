#define _POSIX_C_SOURCE 200809L
/* test_flatbuf.c — FlatBuffers core: reader and builder on the test schema
 * (tests/support/fb_test_schema.h). Verifier, robustness, flatc round trips: test_flatbuf_verify.c. */
#include "format/flatbuf.h"
#include "test.h"

#include "fb_test_schema.h"

/* ================================================================== reader */

TEST(reader_defaults_on_empty_table) {
  pte_fb_builder b;
  const uint8_t *out;
  size_t n;
  pte_fb_builder_init(&b, fbt_heap_realloc, NULL);
  pte_fb_table_start(&b);
  pte_fb_ref root = pte_fb_table_end(&b);
  CHECK_OK(pte_fb_finish(&b, root, "PTET", 0, &out, &n));
  uint8_t *buf = fbt_dup_exact(out, n);
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
  CHECK_OK(fbt_verify_buffer(buf, n, NULL));
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
  fbt_st_u32(sb, 12);            /* root -> 12 */
  fbt_st_u16(sb + 4, 6);         /* vtable at 4: len 6 */
  fbt_st_u16(sb + 6, 8);         /* table inline 8 */
  fbt_st_u16(sb + 8, 4);         /* slot 0 at table+4 */
  fbt_st_u32(sb + 12, 8);        /* soffset: vtable = 12 - 8 = 4 */
  fbt_st_u32(sb + 16, 4);        /* uoffset -> 20 */
  fbt_st_u32(sb + 20, 3);        /* string length 3 */
  memcpy(sb + 24, "abc", 4); /* "abc" + NUL */
  pte_fb_table st = pte_fb_root(sb, 28);
  CHECK(fbt_str_is(pte_fb_get_str(st, 0), "abc"));
  sb[27] = 'd';               /* NUL overwritten */
  CHECK(pte_fb_get_str(st, 0).ptr == NULL);
  fbt_st_u32(sb + 20, 4);         /* NUL would be at 28 == size */
  CHECK(pte_fb_get_str(st, 0).ptr == NULL);
  CHECK(pte_fb_get_vec(st, 0).present); /* as a vector: 4 one-byte elements fit */
  CHECK_EQ_INT(pte_fb_vec_u8(pte_fb_get_vec(st, 0), 3), 'd');
  CHECK(pte_fb_vec_elem(pte_fb_get_vec(st, 0), 1, 4) == NULL); /* 4-byte element 1 would pass the end */
  fbt_st_u32(sb + 20, 5);         /* vector count past the end */
  CHECK(!pte_fb_get_vec(st, 0).present);
}

/* Golden byte layout of a tiny table, computed by hand from the FlatBuffers builder algorithm. */
TEST(builder_golden_bytes) {
  pte_fb_builder b;
  const uint8_t *out;
  size_t n;
  pte_fb_builder_init(&b, fbt_heap_realloc, NULL);
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
  CHECK_EQ_INT(fbt_live_allocs, 0);
}

TEST(builder_full_roundtrip_and_alignment) {
  size_t n = 0;
  uint8_t *buf = fbt_full_copy(&n);
  CHECK(buf != NULL);
  CHECK_EQ_INT(n % 32, 0); /* padded to the largest alignment used (force_align 32) */
  fbt_check_full_values(buf, n);
  pte_error_info err = {0};
  CHECK_OK(fbt_verify_buffer(buf, n, &err));
  free(buf);
  CHECK_EQ_INT(fbt_live_allocs, 0);
}

/* The reader exists twice (format/flatbuf.h): the pte_fb_i_* bodies the macros inline, and the
 * out-of-line functions of flatbuf.c that size-optimised builds call (a parenthesised name calls
 * them here). Both must return the same thing for every table position, slot, element and
 * default, on the full test buffer intact and after every single-byte corruption. */
static bool same_table(pte_fb_table a, pte_fb_table b) {
  return a.buf == b.buf && a.size == b.size && a.pos == b.pos && a.vt == b.vt && a.vt_len == b.vt_len &&
         a.tbl_len == b.tbl_len;
}
static bool same_vec(pte_fb_vec a, pte_fb_vec b) {
  return a.present == b.present && a.len == b.len && (!a.present || (a.buf == b.buf && a.size == b.size && a.data == b.data));
}
static bool same_str(pte_fb_str a, pte_fb_str b) { return a.ptr == b.ptr && a.len == b.len; }

static size_t readers_disagree(const uint8_t *buf, size_t n) {
  size_t bad = 0;
  bad += !same_table(pte_fb_root(buf, n), (pte_fb_root)(buf, n));
  bad += pte_fb_has_identifier(buf, n, "PTET") != (pte_fb_has_identifier)(buf, n, "PTET");
  for (uint32_t pos = 0; pos <= n; pos++) {
    pte_fb_table t = pte_fb_table_at(buf, n, pos);
    bad += !same_table(t, (pte_fb_table_at)(buf, n, pos));
    if (!pte_fb_table_present(t)) continue;
    for (unsigned k = 0; k < 24; k++) {
      bad += pte_fb_field_pos(t, k) != (pte_fb_field_pos)(t, k);
      bad += pte_fb_get_u8(t, k, 7) != (pte_fb_get_u8)(t, k, 7);
      bad += pte_fb_get_i8(t, k, -7) != (pte_fb_get_i8)(t, k, -7);
      bad += pte_fb_get_u16(t, k, 7) != (pte_fb_get_u16)(t, k, 7);
      bad += pte_fb_get_i16(t, k, -7) != (pte_fb_get_i16)(t, k, -7);
      bad += pte_fb_get_u32(t, k, 7) != (pte_fb_get_u32)(t, k, 7);
      bad += pte_fb_get_i32(t, k, -7) != (pte_fb_get_i32)(t, k, -7);
      bad += pte_fb_get_u64(t, k, 7) != (pte_fb_get_u64)(t, k, 7);
      bad += pte_fb_get_i64(t, k, -7) != (pte_fb_get_i64)(t, k, -7);
      float f0 = pte_fb_get_f32(t, k, 1.5f), f1 = (pte_fb_get_f32)(t, k, 1.5f);
      double d0 = pte_fb_get_f64(t, k, 2.5), d1 = (pte_fb_get_f64)(t, k, 2.5);
      bad += memcmp(&f0, &f1, sizeof f0) != 0;
      bad += memcmp(&d0, &d1, sizeof d0) != 0;
      bad += pte_fb_get_bool(t, k, true) != (pte_fb_get_bool)(t, k, true);
      bad += !same_table(pte_fb_get_table(t, k), (pte_fb_get_table)(t, k));
      bad += !same_str(pte_fb_get_str(t, k), (pte_fb_get_str)(t, k));
      bad += pte_fb_get_struct(t, k, 12) != (pte_fb_get_struct)(t, k, 12);
      pte_fb_vec v = pte_fb_get_vec(t, k);
      bad += !same_vec(v, (pte_fb_get_vec)(t, k));
      for (uint32_t i = 0; v.present && i <= v.len && i < 64; i++) {
        bad += pte_fb_vec_elem(v, i, 4) != (pte_fb_vec_elem)(v, i, 4);
        bad += pte_fb_vec_u8(v, i) != (pte_fb_vec_u8)(v, i);
        bad += pte_fb_vec_i32(v, i) != (pte_fb_vec_i32)(v, i);
        bad += pte_fb_vec_u32(v, i) != (pte_fb_vec_u32)(v, i);
        bad += pte_fb_vec_i64(v, i) != (pte_fb_vec_i64)(v, i);
        bad += pte_fb_vec_u64(v, i) != (pte_fb_vec_u64)(v, i);
        double e0 = pte_fb_vec_f64(v, i), e1 = (pte_fb_vec_f64)(v, i);
        bad += memcmp(&e0, &e1, sizeof e0) != 0;
        bad += !same_table(pte_fb_vec_table(v, i), (pte_fb_vec_table)(v, i));
        bad += !same_str(pte_fb_vec_str(v, i), (pte_fb_vec_str)(v, i));
      }
    }
  }
  return bad;
}

TEST(inline_and_out_of_line_readers_agree) {
  size_t n = 0;
  uint8_t *buf = fbt_full_copy(&n);
  CHECK(buf != NULL);
  if (!buf) return;
  /* the intact buffer: the reader finds real tables and values (so the comparison compares
   * something), and both forms agree */
  CHECK(pte_fb_table_present(pte_fb_root(buf, n)));
  CHECK_EQ_INT(readers_disagree(buf, n), 0);
  size_t bad = 0;
  for (size_t i = 0; i < n; i++) {
    uint8_t keep = buf[i];
    buf[i] = (uint8_t)(keep ^ 0xA5);
    bad += readers_disagree(buf, n);
    buf[i] = keep;
  }
  CHECK_EQ_INT(bad, 0);
  free(buf);
  CHECK_EQ_INT(fbt_live_allocs, 0);
}

TEST(builder_min_align_and_force_align) {
  pte_fb_builder b;
  const uint8_t *out;
  size_t n;
  pte_fb_builder_init(&b, fbt_heap_realloc, NULL);
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
  uint8_t *buf = fbt_dup_aligned(out, n);
  pte_fb_builder_free(&b);
  pte_fb_table r = pte_fb_root(buf, n);
  pte_fb_vec a = pte_fb_get_vec(r, R_BYTES), c = pte_fb_get_vec(r, R_ALIGNED32), z = pte_fb_get_vec(r, R_LONGS);
  CHECK(a.present && a.len == 5 && a.data % 16 == 0 && pte_fb_vec_u8(a, 4) == 5);
  CHECK(c.present && c.len == 3 && c.data % 32 == 0 && pte_fb_vec_u8(c, 2) == 3);
  CHECK(z.present && z.len == 0 && z.data % 8 == 0);
  CHECK_EQ_INT(pte_fb_vec_u64(z, 0), 0);
  CHECK(fbt_str_is(pte_fb_get_str(r, R_NAME), "abc"));
  CHECK_OK(fbt_verify_buffer(buf, n, NULL));
  free(buf);
}

TEST(builder_default_elision_and_forced) {
  pte_fb_builder b;
  const uint8_t *out;
  size_t n;
  pte_fb_builder_init(&b, fbt_heap_realloc, NULL);
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
  pte_fb_builder_init(&b, fbt_heap_realloc, NULL);
  pte_fb_ref l[3] = {fbt_mk_leaf(&b, "p", 1), fbt_mk_leaf(&b, "q", 2), fbt_mk_leaf(&b, "r", 3)};
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
  CHECK(fbt_str_is(pte_fb_get_str(t0, L_NAME), "p") && fbt_str_is(pte_fb_get_str(t2, L_NAME), "r"));
  CHECK_EQ_INT(pte_fb_get_i32(t1, L_VALUE, 7), 2);
  uint8_t *buf = fbt_dup_aligned(out, n);
  pte_fb_builder_free(&b);
  CHECK_OK(fbt_verify_buffer(buf, n, NULL));
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
  pte_fb_builder_init(&b, fbt_heap_realloc, NULL);
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
  uint8_t *buf = fbt_dup_aligned(out, n);
  pte_fb_builder_free(&b);
  CHECK_OK(fbt_verify_buffer(buf, n, NULL));
  pte_fb_vec v = pte_fb_get_vec(pte_fb_root(buf, n), R_NAMES);
  CHECK_EQ_INT(v.len, N);
  for (int i = 0; i < N; i++) {
    snprintf(tmp, sizeof tmp, "string-%d", i);
    CHECK_MSG(fbt_str_is(pte_fb_vec_str(v, (uint32_t)i), tmp), "element %d", i);
  }
  free(buf);
}

TEST(builder_start_vec_raw) {
  pte_fb_builder b;
  const uint8_t *out;
  size_t n;
  pte_fb_ref ref = 123;
  pte_fb_builder_init(&b, fbt_heap_realloc, NULL);
  uint8_t *p = pte_fb_start_vec_raw(&b, 1000, 8, 16, &ref); /* first call: forces allocation */
  CHECK(p != NULL && ref != 0);
  CHECK_EQ_INT((uintptr_t)(b.buf + b.cap - p) % 16, 0); /* aligned relative to the end */
  for (int i = 0; i < 1000; i++) fbt_st_u64(p + 8 * i, (uint64_t)i * 3);
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
    fbt_budget_ctx c = {budget, 0};
    pte_fb_builder b;
    const uint8_t *out = (const uint8_t *)1;
    size_t n = 7;
    pte_fb_builder_init(&b, fbt_budget_realloc, &c);
    pte_status s = fbt_build_full(&b, &out, &n);
    if (s == PTE_OK) {
      succeeded = true;
      fbt_check_full_values(out, n);
    } else {
      CHECK_STATUS(s, PTE_ERR_MEMORY_ALLOCATION_FAILED);
      CHECK_STATUS(b.status, PTE_ERR_MEMORY_ALLOCATION_FAILED);
      CHECK(out == NULL && n == 0);
      CHECK_EQ_INT(pte_fb_create_string(&b, "x", 1), 0);
      CHECK(pte_fb_start_vec_raw(&b, 1, 1, 1, NULL) == NULL);
    }
    pte_fb_builder_free(&b);
    CHECK_EQ_INT(fbt_live_allocs, 0);
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
  pte_fb_builder_init(&b, fbt_heap_realloc, NULL);
  CHECK(pte_fb_start_vec_raw(&b, 0x20000000u, 4, 4, &ref) == NULL);
  CHECK_EQ_INT(ref, 0);
  CHECK_STATUS(b.status, PTE_ERR_OUT_OF_RESOURCES);
  CHECK(b.cap == 0);
  pte_fb_builder_free(&b);
  /* just under the limit by itself, but not together with what is already written */
  pte_fb_builder_init(&b, fbt_heap_realloc, NULL);
  pte_fb_create_string(&b, "abcdefgh", 8);
  CHECK_OK(b.status);
  CHECK(pte_fb_start_vec_raw(&b, 0x7FFFFFF0u, 1, 1, &ref) == NULL);
  CHECK_STATUS(b.status, PTE_ERR_OUT_OF_RESOURCES);
  const uint8_t *out;
  size_t n;
  CHECK_STATUS(pte_fb_finish(&b, 4, NULL, 0, &out, &n), PTE_ERR_OUT_OF_RESOURCES);
  pte_fb_builder_free(&b);
  /* string length overflow */
  pte_fb_builder_init(&b, fbt_heap_realloc, NULL);
  CHECK_EQ_INT(pte_fb_create_string(&b, "x", (size_t)0x80000000u), 0);
  CHECK_STATUS(b.status, PTE_ERR_OUT_OF_RESOURCES);
  pte_fb_builder_free(&b);
  /* count * elem_size overflow */
  pte_fb_builder_init(&b, fbt_heap_realloc, NULL);
  CHECK(pte_fb_start_vec_raw(&b, SIZE_MAX / 2, 4, 4, &ref) == NULL);
  CHECK_STATUS(b.status, PTE_ERR_OUT_OF_RESOURCES);
  pte_fb_builder_free(&b);
  CHECK_EQ_INT(fbt_live_allocs, 0);
}

TEST(builder_misuse) {
  pte_fb_builder b;
  const uint8_t *out;
  size_t n;
  pte_fb_builder_init(&b, fbt_heap_realloc, NULL);
  pte_fb_add_u32(&b, 0, 1, 0); /* outside a table */
  CHECK_STATUS(b.status, PTE_ERR_INVALID_STATE);
  pte_fb_builder_free(&b);
  pte_fb_builder_init(&b, fbt_heap_realloc, NULL);
  pte_fb_table_start(&b);
  CHECK_EQ_INT(pte_fb_create_string(&b, "x", 1), 0); /* objects cannot nest inside a table */
  CHECK_STATUS(b.status, PTE_ERR_INVALID_STATE);
  pte_fb_builder_free(&b);
  pte_fb_builder_init(&b, fbt_heap_realloc, NULL);
  CHECK_EQ_INT(pte_fb_table_end(&b), 0);
  CHECK_STATUS(b.status, PTE_ERR_INVALID_STATE);
  pte_fb_builder_free(&b);
  pte_fb_builder_init(&b, fbt_heap_realloc, NULL);
  pte_fb_table_start(&b);
  pte_fb_table_start(&b);
  CHECK_STATUS(b.status, PTE_ERR_INVALID_STATE);
  pte_fb_builder_free(&b);
  pte_fb_builder_init(&b, fbt_heap_realloc, NULL);
  pte_fb_table_start(&b);
  CHECK_STATUS(pte_fb_finish(&b, 4, NULL, 0, &out, &n), PTE_ERR_INVALID_STATE);
  pte_fb_builder_free(&b);
  pte_fb_builder_init(&b, fbt_heap_realloc, NULL);
  pte_fb_table_start(&b);
  pte_fb_add_ref(&b, 0, 1000); /* reference to something never written */
  CHECK_STATUS(b.status, PTE_ERR_INVALID_ARGUMENT);
  pte_fb_builder_free(&b);
  pte_fb_builder_init(&b, fbt_heap_realloc, NULL);
  pte_fb_create_vec(&b, "abc", 3, 1, 3); /* alignment not a power of two */
  CHECK_STATUS(b.status, PTE_ERR_INVALID_ARGUMENT);
  pte_fb_builder_free(&b);
  pte_fb_builder_init(&b, fbt_heap_realloc, NULL);
  {
    pte_fb_ref s = pte_fb_create_string(&b, "ok", 2);
    pte_fb_ref bad[2] = {s, 0}; /* null reference inside a vector of refs */
    CHECK_EQ_INT(pte_fb_create_vec_refs(&b, bad, 2), 0);
    CHECK_STATUS(b.status, PTE_ERR_INVALID_ARGUMENT);
  }
  pte_fb_builder_free(&b);
  pte_fb_builder_init(&b, fbt_heap_realloc, NULL);
  CHECK_STATUS(pte_fb_finish(&b, 0, NULL, 0, &out, &n), PTE_ERR_INVALID_ARGUMENT);
  pte_fb_builder_free(&b);
  CHECK_EQ_INT(fbt_live_allocs, 0);
}

TEST(builder_high_slot_and_wide_table) {
  pte_fb_builder b;
  const uint8_t *out;
  size_t n;
  pte_fb_builder_init(&b, fbt_heap_realloc, NULL);
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
  pte_fb_builder_init(&b, fbt_heap_realloc, NULL);
  pte_fb_table_start(&b);
  pte_fb_add_u8(&b, 40000, 1, 0);
  CHECK_STATUS(b.status, PTE_ERR_INVALID_ARGUMENT);
  pte_fb_builder_free(&b);
  /* table inline data > 64 KiB */
  pte_fb_builder_init(&b, fbt_heap_realloc, NULL);
  pte_fb_table_start(&b);
  static uint8_t big[40000];
  pte_fb_add_struct(&b, 0, big, sizeof big, 4);
  pte_fb_add_struct(&b, 1, big, sizeof big, 4);
  CHECK_OK(b.status);
  CHECK_EQ_INT(pte_fb_table_end(&b), 0);
  CHECK_STATUS(b.status, PTE_ERR_OUT_OF_RESOURCES);
  pte_fb_builder_free(&b);
}

int main(void) {
  RUN(inline_and_out_of_line_readers_agree);
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
  return test_summary();
}
