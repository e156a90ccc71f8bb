#define _POSIX_C_SOURCE 200809L
/* Bad input: hand-made mutations of corpus files. Every case asserts the exact status and a
 * message substring (test_malformed_util.h); sweeps (every truncation, every byte flipped) assert
 * that nothing crashes or reads out of bounds (run under ASan+UBSan) and only documented statuses
 * come back. Also the .ptd and .bpte readers. Builder-made programs: test_malformed_program.c. */
#include "test_malformed_util.h"

/* ================================================================== corpus byte patches */

TEST(truncations_at_structural_boundaries) {
  size_t n;
  uint8_t *d = corpus_copy("arduino_AddModel.pte", &n); /* eh00/32, program 1040, base 1152, 4 data bytes */
  CHECK(d);
  static const size_t too_small[] = {0, 4, 8, 40, 63};
  for (size_t i = 0; i < sizeof too_small / sizeof too_small[0]; i++)
    EXPECT_BOTH(d, too_small[i], PTE_ERR_INVALID_PROGRAM, "too small (at least 64 needed)");
  static const size_t inside_program[] = {64, 500, 1039};
  for (size_t i = 0; i < sizeof inside_program / sizeof inside_program[0]; i++)
    EXPECT_BOTH(d, inside_program[i], PTE_ERR_INVALID_PROGRAM, "program_size 1040 > file size");
  static const size_t inside_segments[] = {1040, 1100, 1152, 1155};
  for (size_t i = 0; i < sizeof inside_segments / sizeof inside_segments[0]; i++)
    EXPECT_BOTH(d, inside_segments[i], PTE_ERR_INVALID_PROGRAM, "< 1156 expected from the extended header");
  EXPECT_BOTH(d, 1156, PTE_OK, "");
  free(d);
  /* A header-less file cut short: the flatbuffer itself is truncated. */
  d = corpus_copy("apple_tests_add.pte", &n);
  CHECK(d);
  EXPECT_AT(d, 700, PTE_VERIFY_INTERNAL_CONSISTENCY, PTE_ERR_INVALID_PROGRAM, "past end of buffer");
  free(d);
}

TEST(every_truncation_is_safe) {
  static const char *const files[] = {"arduino_AddModel.pte", "apple_tests_add.pte", "numpyrt_quantized.pte"};
  for (size_t f = 0; f < 3; f++) {
    size_t n;
    uint8_t *d = corpus_copy(files[f], &n);
    CHECK(d);
    for (size_t len = 0; len < n; len++) {
      /* Exact-size heap copy so ASan sees any read past the end. */
      uint8_t *t = NULL;
      CHECK(posix_memalign((void **)&t, 64, len ? len : 1) == 0);
      memcpy(t, d, len);
      for (int lv = 0; lv < 2; lv++) {
        pte_error_info e;
        pte_status s = try_load(t, len, (pte_verification)lv, &e);
        CHECK_MSG(s == PTE_ERR_INVALID_PROGRAM || (s == PTE_OK && lv == 0),
                  "%s cut at %zu, level %d: %s (%s)", files[f], len, lv, pte_status_name(s), e.msg);
      }
      free(t);
    }
    free(d);
  }
}

TEST(every_byte_flip_is_safe) {
  static const char *const files[] = {"arduino_AddModel.pte", "numpyrt_quantized.pte", "deprecated_ModuleLinear-no-constant-segment.pte"};
  for (size_t f = 0; f < 3; f++) {
    size_t n;
    uint8_t *d = corpus_copy(files[f], &n);
    CHECK(d);
    size_t limit = n < 2600 ? n : 2600;
    static const uint8_t patterns[3] = {0xFF, 0x00, 0x80};
    for (size_t i = 0; i < limit; i++) {
      for (int q = 0; q < 3; q++) {
        uint8_t saved = d[i];
        d[i] = (uint8_t)(patterns[q] == saved ? saved ^ 0x01 : patterns[q]);
        for (int lv = 0; lv < 2; lv++) {
          pte_error_info e;
          pte_status s = try_load(d, n, (pte_verification)lv, &e);
          CHECK_MSG(s == PTE_OK || s == PTE_ERR_INVALID_PROGRAM || s == PTE_ERR_INVALID_ARGUMENT ||
                        s == PTE_ERR_NOT_FOUND,
                    "%s byte %zu = 0x%02x, level %d: %s (%s)", files[f], i, d[i], lv, pte_status_name(s), e.msg);
        }
        d[i] = saved;
      }
    }
    free(d);
  }
}

TEST(identifier_and_root) {
  size_t n;
  uint8_t *d = corpus_copy("arduino_AddModel.pte", &n);
  CHECK(d);
  memcpy(d + 4, "ET13", 4);
  EXPECT_BOTH(d, n, PTE_ERR_INVALID_PROGRAM, "program identifier 'ET13' is an incompatible version (expected 'ET12')");
  memcpy(d + 4, "XY12", 4);
  EXPECT_BOTH(d, n, PTE_ERR_INVALID_PROGRAM, "not a program: identifier 'XY12' != expected 'ET12'");
  memcpy(d + 4, "ET12", 4);
  uint32_t root = pte_fb_ld_u32(d);
  st32(d, 0xFFFF);
  EXPECT_BOTH(d, n, PTE_ERR_INVALID_PROGRAM, "root table offset 65535 out of range [8, 1036]");
  st32(d, 4);
  EXPECT_BOTH(d, n, PTE_ERR_INVALID_PROGRAM, "root table offset 4 out of range");
  st32(d, root + 2); /* misaligned root table */
  EXPECT_AT(d, n, PTE_VERIFY_INTERNAL_CONSISTENCY, PTE_ERR_INVALID_PROGRAM, "not 4-byte aligned");
  st32(d, root);
  EXPECT_BOTH(d, n, PTE_OK, "");
  /* Root table's vtable far outside the buffer. */
  uint32_t so = pte_fb_ld_u32(d + root);
  st32(d + root, 0x80000000u);
  EXPECT_AT(d, n, PTE_VERIFY_INTERNAL_CONSISTENCY, PTE_ERR_INVALID_PROGRAM, "table at 0x3c: vtable at 0x8000003c");
  EXPECT_AT(d, n, PTE_VERIFY_MINIMAL, PTE_ERR_INVALID_PROGRAM, "root table at 60 is malformed");
  st32(d + root, so);
  /* A vtable entry pointing a field far past the table (and the buffer). */
  pte_fb_table rt = pte_fb_root(d, n);
  st16(d + rt.vt + 4 + 2 * 1, 0xFFF0);
  EXPECT_AT(d, n, PTE_VERIFY_INTERNAL_CONSISTENCY, PTE_ERR_INVALID_PROGRAM, "past end of buffer");
  free(d);
}

TEST(extended_header_fields) {
  size_t n;
  uint8_t *d = corpus_copy("arduino_AddModel.pte", &n);
  CHECK(d);
  st32(d + 12, 16);
  EXPECT_BOTH(d, n, PTE_ERR_INVALID_PROGRAM, "extended header length 16 < 24");
  st32(d + 12, 32);
  st64(d + 32, 5); /* segment_data_size: base 1152 + 5 > 1156 */
  EXPECT_BOTH(d, n, PTE_ERR_INVALID_PROGRAM, "file size 1156 < 1157 expected from the extended header");
  st64(d + 32, 4);
  st64(d + 24, 1024); /* segment base inside the flatbuffer */
  EXPECT_BOTH(d, n, PTE_ERR_INVALID_PROGRAM, "segment_base_offset 1024 < program_size 1040");
  st64(d + 24, 1152);
  st64(d + 16, 4000);
  EXPECT_BOTH(d, n, PTE_ERR_INVALID_PROGRAM, "program_size 4000 > file size 1156");
  st64(d + 16, 4);
  EXPECT_BOTH(d, n, PTE_ERR_INVALID_PROGRAM, "program_size 4 is too small");
  st64(d + 16, 1040);
  /* A 24-byte header (segment_data_size absent) still loads. */
  st32(d + 12, 24);
  EXPECT_BOTH(d, n, PTE_OK, "");
  /* Magic other than eh00: the whole file is taken as the flatbuffer (no segments); the segment
   * table then describes bytes the file does not have. */
  memcpy(d + 8, "eh01", 4);
  EXPECT_AT(d, n, PTE_VERIFY_MINIMAL, PTE_ERR_INVALID_PROGRAM, "constant segment 0 has 4 bytes but the file has no segment data");
  free(d);
}

TEST(corpus_value_and_instruction_patches) {
  size_t n;
  uint8_t *d = corpus_copy("arduino_AddModel.pte", &n);
  CHECK(d);
  /* v1 is FLOAT[3] (the input): make its size negative. */
  uint32_t pos = vec_elem(value_of(d, n, 0, 1), 2, 0, 4);
  CHECK(pos);
  st32(d + pos, (uint32_t)-3);
  EXPECT_INTERNAL(d, n, PTE_ERR_INVALID_PROGRAM, "method 'forward' value 1: size -3 at dimension 0 is negative");
  st32(d + pos, 3);
  /* Rank 17: stretch the sizes vector (the bytes that follow are still inside the buffer). */
  st32(d + pos - 4, 17);
  EXPECT_INTERNAL(d, n, PTE_ERR_INVALID_PROGRAM, "value 1: tensor rank 17 exceeds the maximum of 16");
  st32(d + pos - 4, 1);
  /* Union tag out of range (12 > OptionalTensorList). */
  uint32_t tagpos = pte_fb_field_pos(evalue_of(d, n, 0, 3), 0);
  CHECK(tagpos);
  d[tagpos] = 12;
  EXPECT_INTERNAL(d, n, PTE_ERR_INVALID_PROGRAM, "tag 12 out of range");
  d[tagpos] = 0; /* NONE with a value present */
  EXPECT_INTERNAL(d, n, PTE_ERR_INVALID_PROGRAM, "value present but type is NONE");
  d[tagpos] = 2;
  /* KernelCall args [1, 0, 3, 2, 2]: point one past the 4 values. */
  uint32_t argpos = vec_elem(instr_args_of(d, n, 0, 0), 1, 2, 4);
  CHECK(argpos);
  st32(d + argpos, 4);
  EXPECT_INTERNAL(d, n, PTE_ERR_INVALID_PROGRAM, "chain 0 instruction 0: arg 2 is value index 4, out of range (4 values)");
  st32(d + argpos, 3);
  /* Output index past the values. */
  uint32_t outpos = vec_elem(plan_of(d, n, 0), 4, 0, 4);
  st32(d + outpos, 7);
  EXPECT_INTERNAL(d, n, PTE_ERR_INVALID_PROGRAM, "method 'forward': output 0 is value index 7, out of range (4 values)");
  st32(d + outpos, 2);
  EXPECT_BOTH(d, n, PTE_OK, "");
  free(d);

  /* op index past the operators: the last KernelCall of xor's forward (op_index stored). */
  d = corpus_copy("upstream_android_xor.pte", &n);
  CHECK(d);
  pte_fb_vec ops = pte_fb_get_vec(plan_of(d, n, 0), 6);
  uint32_t oppos = pte_fb_field_pos(instr_args_of(d, n, 0, 64), 0);
  CHECK(oppos);
  st32(d + oppos, ops.len);
  char needle[96];
  snprintf(needle, sizeof needle, "instruction 64: KernelCall op_index %u out of range (%u operators)", ops.len, ops.len);
  EXPECT_INTERNAL(d, n, PTE_ERR_INVALID_PROGRAM, needle);
  free(d);

  /* Dim order not a permutation: a rank-2 tensor of xor (v0 FLOAT[10, 2]). */
  d = corpus_copy("upstream_android_xor.pte", &n);
  CHECK(d);
  uint32_t dpos = vec_elem(value_of(d, n, 0, 0), 3, 0, 1);
  CHECK(dpos);
  d[dpos] = 1; /* [1, 1] */
  EXPECT_INTERNAL(d, n, PTE_ERR_INVALID_PROGRAM, "value 0: dim_order is not a permutation of 0..1 (entry 1 is 1)");
  free(d);
}

TEST(corpus_segment_and_named_data_patches) {
  size_t n;
  uint8_t *d = corpus_copy("numpyrt_quantized.pte", &n); /* segs (0,0) (0,1088) (1152,64) (1280,32) */
  CHECK(d);
  pte_fb_vec segs = pte_fb_get_vec(pte_fb_root(d, n), 4);
  uint32_t s3_off = pte_fb_field_pos(pte_fb_vec_table(segs, 3), 0);
  uint32_t s3_size = pte_fb_field_pos(pte_fb_vec_table(segs, 3), 1);
  CHECK(s3_off && s3_size);
  st64(d + s3_off, 1200);
  EXPECT_INTERNAL(d, n, PTE_ERR_INVALID_PROGRAM, "program segments 2 (offset 1152, size 64) and 3 (offset 1200, size 32) overlap");
  st64(d + s3_off, 1280);
  st64(d + s3_size, 1000);
  EXPECT_INTERNAL(d, n, PTE_ERR_INVALID_PROGRAM, "program segment 3 (offset 1280, size 1000) lies outside the segment data (1312 bytes)");
  st64(d + s3_size, UINT64_MAX - 100);
  EXPECT_INTERNAL(d, n, PTE_ERR_INVALID_PROGRAM, "program segment 3: offset 1280 + size 18446744073709551515 overflows");
  st64(d + s3_size, 32);
  /* Named data pointing past the segments. */
  pte_fb_vec named = pte_fb_get_vec(pte_fb_root(d, n), 7);
  uint32_t nd0 = pte_fb_field_pos(pte_fb_vec_table(named, 0), 1);
  CHECK(nd0);
  st32(d + nd0, 9);
  EXPECT_INTERNAL(d, n, PTE_ERR_INVALID_PROGRAM, "named_data 0 ('f12ea8fa6bc2");
  EXPECT_INTERNAL(d, n, PTE_ERR_INVALID_PROGRAM, "segment_index 9 out of range (4 segments)");
  st32(d + nd0, 2);
  /* Delegate SEGMENT index past the segments. */
  pte_fb_table del = pte_fb_vec_table(pte_fb_get_vec(plan_of(d, n, 0), 7), 0);
  uint32_t ipos = pte_fb_field_pos(pte_fb_get_table(del, 1), 1);
  CHECK(ipos);
  st32(d + ipos, 4);
  EXPECT_INTERNAL(d, n, PTE_ERR_INVALID_PROGRAM, "delegate 0: segment index 4 out of range (4 segments)");
  st32(d + ipos, 1);
  uint32_t lpos = pte_fb_field_pos(pte_fb_get_table(del, 1), 0);
  CHECK(lpos);
  d[lpos] = 0; /* INLINE, but the program has no backend_delegate_data */
  EXPECT_INTERNAL(d, n, PTE_ERR_INVALID_PROGRAM, "delegate 0: INLINE data index 1 out of range (0 backend_delegate_data entries)");
  d[lpos] = 1;
  EXPECT_BOTH(d, n, PTE_OK, "");
  free(d);

  /* Constant offsets past the constant segment (offsets [0, 0, 16] in a 40-byte segment). */
  d = corpus_copy("numpyrt_const_methods.pte", &n);
  CHECK(d);
  pte_fb_table cs = pte_fb_get_table(pte_fb_root(d, n), 5);
  uint32_t o2 = vec_elem(cs, 1, 2, 8);
  CHECK(o2);
  st64(d + o2, 1000);
  EXPECT_INTERNAL(d, n, PTE_ERR_INVALID_PROGRAM, "constant_segment 0: offset 2 (1000) is past the end of segment 0 (40 bytes)");
  st64(d + o2, 16);
  /* Constant segment index past the segments: every level. */
  uint32_t ci = pte_fb_field_pos(cs, 0);
  if (!ci) { /* segment_index 0 is usually omitted: patch via a patched vtable is not possible; use the count */
    pte_fb_vec sg = pte_fb_get_vec(pte_fb_root(d, n), 4);
    st32(d + sg.data - 4, 0); /* zero segments */
    EXPECT_BOTH(d, n, PTE_ERR_INVALID_PROGRAM, "constant segment index 0 out of range (0 segments)");
  }
  free(d);

  /* Mutable data segment index past the segments (dnf: mutable_data_segments[0].segment_index 1). */
  d = corpus_copy("dnf_test_dnf_executorch1.pte", &n);
  CHECK(d);
  pte_fb_table ms0 = pte_fb_vec_table(pte_fb_get_vec(pte_fb_root(d, n), 6), 0);
  uint32_t mpos = pte_fb_field_pos(ms0, 0);
  CHECK(mpos);
  st32(d + mpos, 2);
  EXPECT_INTERNAL(d, n, PTE_ERR_INVALID_PROGRAM, "mutable_data_segments 0: segment_index 2 out of range (2 segments)");
  free(d);
}

/* ================================================================== .ptd and .bpte */

static pte_status try_ptd(const uint8_t *d, size_t n, pte_error_info *err) {
  pte_buffer_loader bl;
  pte_buffer_loader_init(&bl, d, n);
  pte_ptd ptd;
  memset(err, 0, sizeof *err);
  pte_status s = pte_ptd_load(&bl.base, &ptd, err);
  if (s == PTE_OK) {
    uint32_t nk = 0;
    const pte_named_data_map *m = pte_ptd_map(&ptd);
    if (pte_named_data_map_num_keys(m, &nk) == PTE_OK) {
      for (uint32_t k = 0; k < nk; k++) {
        const char *key;
        pte_tensor_layout l;
        pte_freeable_buffer b;
        if (pte_named_data_map_get_key(m, k, &key) != PTE_OK) continue;
        (void)pte_named_data_map_get_tensor_layout(m, key, &l);
        if (pte_named_data_map_get_data(m, key, &b) == PTE_OK) pte_freeable_buffer_free(&b);
      }
    }
    pte_ptd_destroy(&ptd);
  }
  return s;
}

#define EXPECT_PTD(d, n, status, needle)                                                           \
  do {                                                                                             \
    pte_error_info e_;                                                                             \
    pte_status s_ = try_ptd((d), (n), &e_);                                                        \
    CHECK_MSG(s_ == (status), "got %s (%s), expected %s", pte_status_name(s_), e_.msg, pte_status_name(status)); \
    if ((status) != PTE_OK) CHECK_CONTAINS(e_.msg, (needle));                                      \
  } while (0)

TEST(ptd_mutations) {
  size_t n;
  uint8_t *d = corpus_copy("etrs_data_map__default_external_constant.ptd", &n); /* 336 bytes */
  CHECK(d);
  EXPECT_PTD(d, n, PTE_OK, "");
  memcpy(d + 8, "FH02", 4);
  EXPECT_PTD(d, n, PTE_ERR_INVALID_EXTERNAL_DATA, "not a .ptd file: no 'FH01' header at byte 8");
  memcpy(d + 8, "FH01", 4);
  memcpy(d + 4, "FT02", 4);
  EXPECT_PTD(d, n, PTE_ERR_INVALID_EXTERNAL_DATA, "identifier 'FT02' != expected 'FT01'");
  memcpy(d + 4, "FT01", 4);
  st32(d + 12, 16);
  EXPECT_PTD(d, n, PTE_ERR_INVALID_EXTERNAL_DATA, "FlatTensor header length 16 < 40");
  st32(d + 12, 40);
  EXPECT_PTD(d, 320, PTE_ERR_INVALID_EXTERNAL_DATA, "exceeds file size 320");
  EXPECT_PTD(d, 40, PTE_ERR_INVALID_EXTERNAL_DATA, "too small");
  /* Entry 'b' (segment 1) pointing past the 2 segments. */
  pte_fb_vec named = pte_fb_get_vec(pte_fb_root(d, n), 2);
  uint32_t sp = pte_fb_field_pos(pte_fb_vec_table(named, 1), 1);
  CHECK(sp);
  st32(d + sp, 7);
  EXPECT_PTD(d, n, PTE_ERR_INVALID_EXTERNAL_DATA, ".ptd entry 'b': segment_index 7 out of range (2 segments)");
  st32(d + sp, 1);
  /* Segment 1 (16, 16) stretched past the 32 data bytes (strict bound). */
  pte_fb_vec segs = pte_fb_get_vec(pte_fb_root(d, n), 1);
  uint32_t sz1 = pte_fb_field_pos(pte_fb_vec_table(segs, 1), 1);
  CHECK(sz1);
  st64(d + sz1, 17);
  EXPECT_PTD(d, n, PTE_ERR_INVALID_EXTERNAL_DATA, ".ptd segment 1 (offset 16, size 17) lies outside the segment data (32 bytes)");
  st64(d + sz1, 8); /* smaller than the FLOAT[2, 2] tensor */
  EXPECT_PTD(d, n, PTE_ERR_INVALID_EXTERNAL_DATA, ".ptd entry 'b': tensor needs 16 bytes but segment 1 has 8");
  st64(d + sz1, 16);
  /* A negative size in a layout. */
  pte_fb_table lay = pte_fb_get_table(pte_fb_vec_table(named, 0), 2);
  uint32_t s0 = vec_elem(lay, 1, 0, 4);
  CHECK(s0);
  st32(d + s0, (uint32_t)-2);
  EXPECT_PTD(d, n, PTE_ERR_INVALID_EXTERNAL_DATA, ".ptd entry 'a': size -2 at dimension 0 is negative");
  st32(d + s0, 2);
  EXPECT_PTD(d, n, PTE_OK, "");
  /* Every truncation is safe. */
  for (size_t len = 0; len < n; len++) {
    uint8_t *t = NULL;
    CHECK(posix_memalign((void **)&t, 64, len ? len : 1) == 0);
    memcpy(t, d, len);
    pte_error_info e;
    pte_status s = try_ptd(t, len, &e);
    CHECK_MSG(s == PTE_ERR_INVALID_EXTERNAL_DATA, "cut at %zu: %s (%s)", len, pte_status_name(s), e.msg);
    free(t);
  }
  free(d);
  /* A .pte is not a .ptd. */
  d = corpus_copy("apple_tests_add.pte", &n);
  CHECK(d);
  EXPECT_PTD(d, n, PTE_ERR_INVALID_EXTERNAL_DATA, "no 'FH01' header");
  free(d);
}

static pte_status try_bpte(const uint8_t *d, size_t n, pte_error_info *err, pte_status *inner) {
  pte_buffer_loader bl;
  pte_buffer_loader_init(&bl, d, n);
  pte_bundled_program bp;
  memset(err, 0, sizeof *err);
  *inner = PTE_ERR_INTERNAL;
  pte_status s = pte_bundled_program_load(&bl.base, &bp, err);
  if (s == PTE_OK) {
    pte_program p;
    pte_error_info e2;
    *inner = pte_program_load(pte_bundled_program_loader(&bp), PTE_VERIFY_INTERNAL_CONSISTENCY, &p, &e2);
    if (*inner == PTE_OK) pte_program_destroy(&p);
    else memcpy(err->msg, e2.msg, sizeof e2.msg);
    pte_bundled_program_destroy(&bp);
  }
  return s;
}

TEST(bpte_mutations) {
  size_t n;
  uint8_t *d = corpus_copy("module_test_bundled_program.bpte", &n); /* program at 64, 1696 bytes */
  CHECK(d);
  pte_error_info e;
  pte_status inner;
  CHECK_OK(try_bpte(d, n, &e, &inner));
  CHECK_OK(inner);
  /* Truncated in the middle of the embedded program. */
  CHECK_STATUS(try_bpte(d, 1000, &e, &inner), PTE_ERR_INVALID_PROGRAM);
  CHECK_CONTAINS(e.msg, "past end of buffer");
  /* Program vector length past the end of the file. */
  st32(d + 60, 100000);
  CHECK_STATUS(try_bpte(d, n, &e, &inner), PTE_ERR_INVALID_PROGRAM);
  st32(d + 60, 1696);
  /* The embedded program's identifier corrupted: the bundle loads, the program does not. */
  memcpy(d + 64 + 4, "ET99", 4);
  CHECK_OK(try_bpte(d, n, &e, &inner));
  CHECK_STATUS(inner, PTE_ERR_INVALID_PROGRAM);
  CHECK_CONTAINS(e.msg, "'ET99' is an incompatible version");
  memcpy(d + 64 + 4, "ET12", 4);
  /* The embedded program's eh00 claims more bytes than the program vector holds. */
  st64(d + 64 + 16, 1700);
  CHECK_OK(try_bpte(d, n, &e, &inner));
  CHECK_STATUS(inner, PTE_ERR_INVALID_PROGRAM);
  CHECK_CONTAINS(e.msg, "program_size 1700 > file size 1696");
  st64(d + 64 + 16, 1584);
  /* Identifier of the bundle. */
  memcpy(d + 4, "BP07", 4);
  CHECK_STATUS(try_bpte(d, n, &e, &inner), PTE_ERR_INVALID_PROGRAM);
  CHECK_CONTAINS(e.msg, "not a bundled program: identifier 'BP07' != expected 'BP08'");
  memcpy(d + 4, "BP08", 4);
  /* A test input whose shape no longer matches its 16 data bytes. */
  pte_fb_table suite = pte_fb_vec_table(pte_fb_get_vec(pte_fb_root(d, n), 1), 0);
  pte_fb_table tc = pte_fb_vec_table(pte_fb_get_vec(suite, 1), 3);
  pte_fb_table val = pte_fb_get_table(pte_fb_vec_table(pte_fb_get_vec(tc, 0), 1), 1);
  uint32_t sp = vec_elem(val, 1, 0, 4);
  CHECK(sp);
  st32(d + sp, 3);
  CHECK_STATUS(try_bpte(d, n, &e, &inner), PTE_ERR_INVALID_PROGRAM);
  CHECK_CONTAINS(e.msg, "bundled test suite 0 ('forward') case 3 input 1: tensor data has 16 bytes, shape needs 24");
  st32(d + sp, 2);
  CHECK_OK(try_bpte(d, n, &e, &inner));
  /* Every truncation is safe. */
  for (size_t len = 0; len < n; len += 7) {
    uint8_t *t = NULL;
    CHECK(posix_memalign((void **)&t, 64, len ? len : 1) == 0);
    memcpy(t, d, len);
    pte_status s = try_bpte(t, len, &e, &inner);
    CHECK_MSG(s == PTE_ERR_INVALID_PROGRAM, "cut at %zu: %s (%s)", len, pte_status_name(s), e.msg);
    free(t);
  }
  free(d);
}

int main(void) {
  RUN(truncations_at_structural_boundaries);
  RUN(every_truncation_is_safe);
  RUN(every_byte_flip_is_safe);
  RUN(identifier_and_root);
  RUN(extended_header_fields);
  RUN(corpus_value_and_instruction_patches);
  RUN(corpus_segment_and_named_data_patches);
  RUN(ptd_mutations);
  RUN(bpte_mutations);
  return test_summary();
}
