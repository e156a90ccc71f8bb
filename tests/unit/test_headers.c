/* File headers: eh00 (.pte), FH01 (.ptd), kind sniffing, BP08 unwrap — on corpus files and on
 * hand-made bad headers. */
#include "format/flatbuf.h"
#include "pte/data_loader.h"
#include "pte/headers.h"
#include "test.h"

static void put32(uint8_t *p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = (uint8_t)(v >> (8 * i));
}
static void put64(uint8_t *p, uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = (uint8_t)(v >> (8 * i));
}
static uint32_t get32(const uint8_t *p) {
  return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

/* 64 head bytes: root offset, "ET12", "eh00", len, program_size, base, data size, 0x55 filler. */
static void make_eh(uint8_t head[64], uint32_t len, uint64_t ps, uint64_t base, uint64_t data) {
  memset(head, 0x55, 64);
  put32(head, 60);
  memcpy(head + 4, "ET12", 4);
  memcpy(head + 8, "eh00", 4);
  put32(head + 12, len);
  put64(head + 16, ps);
  put64(head + 24, base);
  put64(head + 32, data);
}

/* ------------------------------------------------------------------ eh00 on the corpus */
typedef struct {
  const char *file;
  uint64_t file_size;
  uint32_t len; /* 0: no header */
  uint64_t program_size, base, data;
} eh_case;

/* Values from MANIFEST.md. */
static const eh_case kEh[] = {
    {"arduino_AddModel.pte", 1156, 32, 1040, 1152, 4},
    {"upstream_android_xor.pte", 13832, 24, 13704, 13824, 0},
    {"simple-torch-model.pte", 10536, 24, 1968, 2048, 0},
    {"djl_stress_mlp.pte", 2709120, 32, 6024, 6144, 2702976},
    {"pr17248_conv2d_quantized.pte", 12096, 32, 2416, 2432, 9664},
    {"numpyrt_multi.pte", 2312, 32, 2240, 2304, 8},
    {"dnf_test_dnf_executorch1.pte", 7116, 32, 6776, 6784, 332},
    {"djl_openvino_tiny.pte", 4793, 32, 1000, 1024, 3769},
    {"apple_tests_add.pte", 728, 0, 0, 0, 0},
    {"deprecated_ModuleLinear-no-constant-segment.pte", 1040, 0, 0, 0, 0},
    {"upstream_module_test_model_2024-03.pte", 1600, 0, 0, 0, 0},
    {"etrs_data_map_model.pte", 1328, 0, 0, 0, 0},
};

TEST(eh00_corpus_values) {
  for (size_t i = 0; i < sizeof kEh / sizeof kEh[0]; ++i) {
    const eh_case *c = &kEh[i];
    size_t n = 0;
    uint8_t *buf = test_read_corpus(c->file, &n);
    CHECK(buf);
    CHECK_EQ_INT(n, c->file_size);
    pte_extended_header h;
    pte_error_info err = {0};
    pte_status s = pte_extended_header_parse(buf, n, &h, &err);
    if (c->len == 0) {
      CHECK_MSG(s == PTE_ERR_NOT_FOUND, "%s: status 0x%x", c->file, (unsigned)s);
      CHECK_CONTAINS(err.msg, "eh00");
    } else {
      CHECK_MSG(s == PTE_OK, "%s: %s", c->file, err.msg);
      CHECK_EQ_INT(h.header_length, c->len);
      CHECK_EQ_INT(h.program_size, c->program_size);
      CHECK_EQ_INT(h.segment_base_offset, c->base);
      CHECK_EQ_INT(h.segment_data_size, c->data);
      CHECK_EQ_INT(h.has_segment_data_size, c->len >= 32);
      CHECK_OK(pte_extended_header_validate(&h, n, &err));
      /* Manifest invariant: base = program_size rounded up to 128; base + data = file size. */
      CHECK_EQ_INT(h.segment_base_offset, (h.program_size + 127) / 128 * 128);
      if (h.has_segment_data_size) CHECK_EQ_INT(h.segment_base_offset + h.segment_data_size, n);
      /* Only 64 head bytes are needed. */
      pte_extended_header h2;
      CHECK_OK(pte_extended_header_parse(buf, 64, &h2, NULL));
      CHECK_EQ_INT(h2.program_size, h.program_size);
      /* The writer reproduces the file's header block byte for byte (padded length 32). */
      uint8_t block[32];
      CHECK_OK(pte_extended_header_write(&h, sizeof block, block, sizeof block, &err));
      CHECK_MSG(memcmp(block, buf + 8, 32) == 0, "%s: written header differs", c->file);
    }
    free(buf);
  }
}

TEST(eh00_24_byte_header_ignores_trailing_bytes) {
  uint8_t head[64];
  make_eh(head, 24, 1000, 1024, 0x1111111111111111ull);
  pte_extended_header h;
  CHECK_OK(pte_extended_header_parse(head, 64, &h, NULL));
  CHECK_EQ_INT(h.header_length, 24);
  CHECK_EQ_INT(h.program_size, 1000);
  CHECK_EQ_INT(h.segment_base_offset, 1024);
  CHECK_EQ_INT(h.segment_data_size, 0); /* field absent: not read */
  CHECK(!h.has_segment_data_size);
  /* 24-byte header with a base but no data size: the size check is skipped (old files) */
  CHECK_OK(pte_extended_header_validate(&h, 1000, NULL));
}

TEST(eh00_long_header_accepted) {
  uint8_t head[64];
  make_eh(head, 48, 984, 1024, 394);
  pte_extended_header h;
  CHECK_OK(pte_extended_header_parse(head, 64, &h, NULL));
  CHECK_EQ_INT(h.header_length, 48);
  CHECK_EQ_INT(h.segment_data_size, 394);
  CHECK(h.has_segment_data_size);
  make_eh(head, 0xFFFFFFFFu, 984, 1024, 394);
  CHECK_OK(pte_extended_header_parse(head, 64, &h, NULL));
  CHECK_EQ_INT(h.header_length, 0xFFFFFFFFu);
}

TEST(eh00_reference_example_bytes) {
  /* The example from the format reference §1.1, bytes as the upstream serializer wrote them. */
  static const uint8_t ex[40] = {0x3c, 0, 0, 0, 'E', 'T', '1', '2', 'e', 'h', '0', '0', 0x20, 0,
                                 0, 0, 0xd8, 0x03, 0, 0, 0, 0, 0, 0, 0, 0x04, 0, 0, 0, 0, 0, 0,
                                 0x8a, 0x01, 0, 0, 0, 0, 0, 0};
  uint8_t head[64] = {0};
  memcpy(head, ex, sizeof ex);
  pte_extended_header h;
  CHECK_OK(pte_extended_header_parse(head, 64, &h, NULL));
  CHECK_EQ_INT(h.header_length, 32);
  CHECK_EQ_INT(h.program_size, 984);
  CHECK_EQ_INT(h.segment_base_offset, 1024);
  CHECK_EQ_INT(h.segment_data_size, 394);
  CHECK_OK(pte_extended_header_validate(&h, 1024 + 394, NULL));
  pte_error_info err = {0};
  CHECK_STATUS(pte_extended_header_validate(&h, 1024 + 393, &err), PTE_ERR_INVALID_PROGRAM);
  CHECK_CONTAINS(err.msg, "1418");
}

TEST(eh00_bad_headers) {
  uint8_t head[64];
  pte_extended_header h;
  pte_error_info err = {0};
  /* length below the minimum */
  make_eh(head, 23, 1000, 1024, 4);
  CHECK_STATUS(pte_extended_header_parse(head, 64, &h, &err), PTE_ERR_INVALID_PROGRAM);
  CHECK_EQ_INT(err.status, PTE_ERR_INVALID_PROGRAM);
  CHECK_CONTAINS(err.msg, "23");
  make_eh(head, 0, 1000, 1024, 4);
  CHECK_STATUS(pte_extended_header_parse(head, 64, &h, &err), PTE_ERR_INVALID_PROGRAM);
  /* truncated head: fewer than 64 bytes available (upstream: InvalidArgument) */
  make_eh(head, 32, 1000, 1024, 4);
  CHECK_STATUS(pte_extended_header_parse(head, 63, &h, &err), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(err.msg, "63");
  CHECK_STATUS(pte_extended_header_parse(head, 0, &h, &err), PTE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(pte_extended_header_parse(NULL, 64, &h, &err), PTE_ERR_INVALID_ARGUMENT);
  /* magic: anything but exactly "eh00" is "no header" */
  head[11] = '1'; /* eh01 */
  CHECK_STATUS(pte_extended_header_parse(head, 64, &h, &err), PTE_ERR_NOT_FOUND);
  memcpy(head + 8, "EH00", 4);
  CHECK_STATUS(pte_extended_header_parse(head, 64, &h, &err), PTE_ERR_NOT_FOUND);
  memcpy(head + 8, "eh00", 4);
  CHECK_OK(pte_extended_header_parse(head, 64, &h, &err));
}

TEST(eh00_validate_size_checks) {
  pte_extended_header h = {32, 1040, 1152, 4, true};
  pte_error_info err = {0};
  CHECK_OK(pte_extended_header_validate(&h, 1156, &err));
  CHECK_OK(pte_extended_header_validate(&h, 5000, &err)); /* trailing bytes are fine */
  /* base + data past the file end (truncated file) */
  CHECK_STATUS(pte_extended_header_validate(&h, 1155, &err), PTE_ERR_INVALID_PROGRAM);
  CHECK_EQ_INT(err.status, PTE_ERR_INVALID_PROGRAM);
  CHECK_CONTAINS(err.msg, "1155");
  CHECK_CONTAINS(err.msg, "1156");
  /* program_size past the file end */
  h = (pte_extended_header){32, 2000, 0, 0, true};
  CHECK_STATUS(pte_extended_header_validate(&h, 1999, &err), PTE_ERR_INVALID_PROGRAM);
  CHECK_CONTAINS(err.msg, "program_size 2000");
  CHECK_OK(pte_extended_header_validate(&h, 2000, &err)); /* base 0: expected = program_size */
  /* old file: base set, no data size -> size check skipped, but program_size still checked */
  h = (pte_extended_header){24, 1000, 1024, 0, false};
  CHECK_OK(pte_extended_header_validate(&h, 1000, &err));
  CHECK_STATUS(pte_extended_header_validate(&h, 999, &err), PTE_ERR_INVALID_PROGRAM);
  /* base inside the flatbuffer */
  h = (pte_extended_header){32, 1040, 1024, 4, true};
  CHECK_STATUS(pte_extended_header_validate(&h, 1156, &err), PTE_ERR_INVALID_PROGRAM);
  CHECK_CONTAINS(err.msg, "segment_base_offset 1024 < program_size 1040");
  /* overflow of base + data */
  h = (pte_extended_header){32, 1040, UINT64_MAX - 10, 100, true};
  CHECK_STATUS(pte_extended_header_validate(&h, UINT64_MAX, &err), PTE_ERR_INVALID_PROGRAM);
  CHECK_CONTAINS(err.msg, "overflow");
  h = (pte_extended_header){32, 1040, 1152, UINT64_MAX, true};
  CHECK_STATUS(pte_extended_header_validate(&h, UINT64_MAX, &err), PTE_ERR_INVALID_PROGRAM);
  h = (pte_extended_header){32, UINT64_MAX, 0, 0, true};
  CHECK_STATUS(pte_extended_header_validate(&h, 1 << 20, &err), PTE_ERR_INVALID_PROGRAM);
  /* exactly at the limit */
  h = (pte_extended_header){32, 1040, UINT64_MAX - 100, 100, true};
  CHECK_OK(pte_extended_header_validate(&h, UINT64_MAX, &err));
  CHECK_STATUS(pte_extended_header_validate(NULL, 1, &err), PTE_ERR_INVALID_ARGUMENT);
}

TEST(eh00_writer) {
  uint8_t out[80];
  pte_error_info err = {0};
  pte_extended_header h = {0, 0x0102030405060708ull, 0x1112131415161718ull, 0x2122232425262728ull,
                           true};
  memset(out, 0xEE, sizeof out);
  CHECK_OK(pte_extended_header_write(&h, 64, out, sizeof out, &err)); /* header_length 0 -> 32 */
  static const uint8_t want[40] = {'e', 'h', '0', '0', 32, 0, 0, 0,
                                   0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01,
                                   0x18, 0x17, 0x16, 0x15, 0x14, 0x13, 0x12, 0x11,
                                   0x28, 0x27, 0x26, 0x25, 0x24, 0x23, 0x22, 0x21};
  CHECK(memcmp(out, want, 32) == 0);
  for (int i = 32; i < 64; ++i) CHECK_EQ_INT(out[i], 0); /* zero padding */
  CHECK_EQ_INT(out[64], 0xEE);                            /* nothing past padded length */
  /* round trip through the parser */
  uint8_t head[80] = {0};
  memcpy(head + 8, out, 64);
  pte_extended_header back;
  CHECK_OK(pte_extended_header_parse(head, sizeof head, &back, NULL));
  CHECK_EQ_INT(back.header_length, 32);
  CHECK_EQ_INT(back.program_size, h.program_size);
  CHECK_EQ_INT(back.segment_base_offset, h.segment_base_offset);
  CHECK_EQ_INT(back.segment_data_size, h.segment_data_size);
  /* legacy 24-byte header: no data size written */
  h.header_length = 24;
  memset(out, 0xEE, sizeof out);
  CHECK_OK(pte_extended_header_write(&h, 32, out, sizeof out, &err));
  CHECK_EQ_INT(out[4], 24);
  for (int i = 24; i < 32; ++i) CHECK_EQ_INT(out[i], 0);
  /* errors */
  h.header_length = 28;
  CHECK_STATUS(pte_extended_header_write(&h, 32, out, sizeof out, &err), PTE_ERR_INVALID_ARGUMENT);
  h.header_length = 32;
  CHECK_STATUS(pte_extended_header_write(&h, 31, out, sizeof out, &err), PTE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(pte_extended_header_write(&h, 64, out, 63, &err), PTE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(pte_extended_header_write(&h, 32, NULL, 32, &err), PTE_ERR_INVALID_ARGUMENT);
}

/* ------------------------------------------------------------------ FH01 */
typedef struct {
  const char *file;
  uint64_t file_size, fb_offset, fb_size, base, data;
  uint32_t named;
} fh_case;
static const fh_case kFh[] = {
    {"upstream_android_xor.ptd", 760, 48, 496, 544, 216, 4},
    {"etrs_data_map__default_external_constant.ptd", 336, 48, 256, 304, 32, 2},
};

TEST(fh01_corpus_values_cross_checked) {
  for (size_t i = 0; i < sizeof kFh / sizeof kFh[0]; ++i) {
    const fh_case *c = &kFh[i];
    size_t n = 0;
    uint8_t *buf = test_read_corpus(c->file, &n);
    CHECK(buf);
    CHECK_EQ_INT(n, c->file_size);
    CHECK_EQ_INT(pte_sniff_file_kind(buf, n), PTE_FILE_PTD);
    pte_flat_tensor_header h;
    pte_error_info err = {0};
    CHECK_OK(pte_flat_tensor_header_parse(buf, n, &h, &err));
    CHECK_EQ_INT(h.header_length, 40);
    CHECK_EQ_INT(h.flatbuffer_offset, c->fb_offset);
    CHECK_EQ_INT(h.flatbuffer_size, c->fb_size);
    CHECK_EQ_INT(h.segment_base_offset, c->base);
    CHECK_EQ_INT(h.segment_data_size, c->data);
    CHECK_OK(pte_flat_tensor_header_validate(&h, n, &err));
    /* Cross-checks computed from the file itself:
     * - data ends exactly at the end of the file; segments follow the flatbuffer region;
     * - header padding bytes 48..55 are zero (flatbuffer_offset = padded header length 48);
     * - the root offset lands inside the flatbuffer region after the header;
     * - the last FlatTensor segment ends at segment_data_size. */
    CHECK_EQ_INT(h.segment_base_offset + h.segment_data_size, n);
    CHECK_EQ_INT(h.flatbuffer_offset + h.flatbuffer_size, h.segment_base_offset);
    for (size_t k = 8 + 40; k < 8 + h.flatbuffer_offset; ++k) CHECK_EQ_INT(buf[k], 0);
    uint32_t root = get32(buf);
    CHECK(root >= 8 + h.flatbuffer_offset && root < h.flatbuffer_offset + h.flatbuffer_size);
    size_t region = (size_t)(h.flatbuffer_offset + h.flatbuffer_size);
    pte_fb_table t = pte_fb_root(buf, region);
    CHECK(pte_fb_table_present(t));
    pte_fb_vec segs = pte_fb_get_vec(t, 1);
    pte_fb_vec named = pte_fb_get_vec(t, 2);
    CHECK(segs.present && segs.len >= 1);
    CHECK_EQ_INT(named.len, c->named);
    uint64_t end = 0;
    for (uint32_t k = 0; k < segs.len; ++k) {
      pte_fb_table seg = pte_fb_vec_table(segs, k);
      uint64_t e = pte_fb_get_u64(seg, 0, 0) + pte_fb_get_u64(seg, 1, 0);
      if (e > end) end = e;
    }
    CHECK_EQ_INT(end, h.segment_data_size);
    /* writer reproduces the 48-byte header block */
    uint8_t block[48];
    CHECK_OK(pte_flat_tensor_header_write(&h, sizeof block, block, sizeof block, &err));
    CHECK(memcmp(block, buf + 8, 48) == 0);
    free(buf);
  }
}

static void make_fh(uint8_t head[64], uint32_t len, uint64_t fo, uint64_t fs, uint64_t base,
                    uint64_t data) {
  memset(head, 0x55, 64);
  put32(head, 68);
  memcpy(head + 4, "FT01", 4);
  memcpy(head + 8, "FH01", 4);
  put32(head + 12, len);
  put64(head + 16, fo);
  put64(head + 24, fs);
  put64(head + 32, base);
  put64(head + 40, data);
}

TEST(fh01_bad_headers) {
  uint8_t head[64];
  pte_flat_tensor_header h;
  pte_error_info err = {0};
  make_fh(head, 39, 48, 496, 544, 216);
  CHECK_STATUS(pte_flat_tensor_header_parse(head, 64, &h, &err), PTE_ERR_INVALID_EXTERNAL_DATA);
  CHECK_CONTAINS(err.msg, "39");
  make_fh(head, 40, 48, 496, 544, 216);
  CHECK_STATUS(pte_flat_tensor_header_parse(head, 63, &h, &err), PTE_ERR_INVALID_ARGUMENT);
  CHECK_OK(pte_flat_tensor_header_parse(head, 64, &h, &err));
  make_fh(head, 56, 64, 496, 560, 216); /* longer header accepted */
  CHECK_OK(pte_flat_tensor_header_parse(head, 64, &h, &err));
  CHECK_EQ_INT(h.header_length, 56);
  memcpy(head + 8, "FH02", 4);
  CHECK_STATUS(pte_flat_tensor_header_parse(head, 64, &h, &err), PTE_ERR_NOT_FOUND);
  memcpy(head + 8, "eh00", 4); /* a .pte header is not a .ptd header */
  CHECK_STATUS(pte_flat_tensor_header_parse(head, 64, &h, &err), PTE_ERR_NOT_FOUND);

  /* validation */
  pte_flat_tensor_header v = {40, 48, 496, 544, 216};
  CHECK_OK(pte_flat_tensor_header_validate(&v, 760, &err));
  CHECK_STATUS(pte_flat_tensor_header_validate(&v, 759, &err), PTE_ERR_INVALID_EXTERNAL_DATA);
  CHECK_EQ_INT(err.status, PTE_ERR_INVALID_EXTERNAL_DATA);
  CHECK_CONTAINS(err.msg, "759");
  v = (pte_flat_tensor_header){40, 48, 496, UINT64_MAX - 8, 216};
  CHECK_STATUS(pte_flat_tensor_header_validate(&v, UINT64_MAX, &err),
               PTE_ERR_INVALID_EXTERNAL_DATA);
  v = (pte_flat_tensor_header){40, 48, 2000, 544, 216}; /* flatbuffer region past the end */
  CHECK_STATUS(pte_flat_tensor_header_validate(&v, 760, &err), PTE_ERR_INVALID_EXTERNAL_DATA);
  CHECK_CONTAINS(err.msg, "flatbuffer");
  v = (pte_flat_tensor_header){40, UINT64_MAX, 2, 544, 216};
  CHECK_STATUS(pte_flat_tensor_header_validate(&v, 760, &err), PTE_ERR_INVALID_EXTERNAL_DATA);
  v = (pte_flat_tensor_header){40, 32, 496, 544, 216}; /* region starts inside the header */
  CHECK_STATUS(pte_flat_tensor_header_validate(&v, 760, &err), PTE_ERR_INVALID_EXTERNAL_DATA);
}

TEST(fh01_writer) {
  uint8_t out[64];
  pte_error_info err = {0};
  pte_flat_tensor_header h = {0, 48, 496, 544, 216};
  memset(out, 0xEE, sizeof out);
  CHECK_OK(pte_flat_tensor_header_write(&h, 48, out, sizeof out, &err));
  CHECK(memcmp(out, "FH01", 4) == 0);
  CHECK_EQ_INT(get32(out + 4), 40);
  CHECK_EQ_INT(get32(out + 8), 48);
  CHECK_EQ_INT(get32(out + 16), 496);
  CHECK_EQ_INT(get32(out + 24), 544);
  CHECK_EQ_INT(get32(out + 32), 216);
  for (int i = 40; i < 48; ++i) CHECK_EQ_INT(out[i], 0);
  CHECK_EQ_INT(out[48], 0xEE);
  h.header_length = 39;
  CHECK_STATUS(pte_flat_tensor_header_write(&h, 48, out, sizeof out, &err),
               PTE_ERR_INVALID_ARGUMENT);
  h.header_length = 40;
  CHECK_STATUS(pte_flat_tensor_header_write(&h, 39, out, sizeof out, &err),
               PTE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(pte_flat_tensor_header_write(&h, 48, out, 47, &err), PTE_ERR_INVALID_ARGUMENT);
}

/* ------------------------------------------------------------------ sniffing */
TEST(sniff_kinds) {
  size_t n = 0;
  uint8_t *b = test_read_corpus("arduino_AddModel.pte", &n);
  CHECK(b);
  CHECK_EQ_INT(pte_sniff_file_kind(b, n), PTE_FILE_PTE);
  CHECK_EQ_INT(pte_sniff_file_kind(b, 8), PTE_FILE_PTE);
  CHECK_EQ_INT(pte_sniff_file_kind(b, 7), PTE_FILE_UNKNOWN);
  CHECK_STR(pte_file_kind_name(PTE_FILE_PTE), "pte");
  uint8_t head[8];
  memcpy(head, b, 8);
  head[7] = '3'; /* ET13 */
  CHECK_EQ_INT(pte_sniff_file_kind(head, 8), PTE_FILE_PTE_WRONG_VERSION);
  memcpy(head + 4, "ETxx", 4);
  CHECK_EQ_INT(pte_sniff_file_kind(head, 8), PTE_FILE_PTE_WRONG_VERSION);
  memcpy(head + 4, "XN01", 4);
  CHECK_EQ_INT(pte_sniff_file_kind(head, 8), PTE_FILE_XNNPACK);
  memcpy(head + 4, "XN00", 4);
  CHECK_EQ_INT(pte_sniff_file_kind(head, 8), PTE_FILE_XNNPACK);
  memcpy(head + 4, "PK\3\4", 4);
  CHECK_EQ_INT(pte_sniff_file_kind(head, 8), PTE_FILE_UNKNOWN);
  CHECK_EQ_INT(pte_sniff_file_kind(NULL, 8), PTE_FILE_UNKNOWN);
  CHECK_STR(pte_file_kind_name(PTE_FILE_UNKNOWN), "unknown");
  CHECK_STR(pte_file_kind_name((pte_file_kind)99), "unknown");
  free(b);

  /* a real XNNPACK delegate blob: the segment of djl_spike_add.pte starts with "XH00" header */
  b = test_read_corpus("djl_spike_add.pte", &n);
  CHECK(b);
  pte_extended_header eh;
  CHECK_OK(pte_extended_header_parse(b, n, &eh, NULL));
  CHECK_EQ_INT(pte_sniff_file_kind(b + eh.segment_base_offset, n - eh.segment_base_offset),
               PTE_FILE_XNNPACK);
  CHECK_STR(pte_file_kind_name(PTE_FILE_XNNPACK), "xnnpack");
  free(b);

  b = test_read_corpus("upstream_android_xor.ptd", &n);
  CHECK(b);
  CHECK_EQ_INT(pte_sniff_file_kind(b, n), PTE_FILE_PTD);
  free(b);
  b = test_read_corpus("module_test_bundled_program.bpte", &n);
  CHECK(b);
  CHECK_EQ_INT(pte_sniff_file_kind(b, n), PTE_FILE_BPTE);
  CHECK_STR(pte_file_kind_name(PTE_FILE_BPTE), "bpte");
  free(b);
}

/* ------------------------------------------------------------------ BP08 */
TEST(bpte_find_program) {
  size_t n = 0;
  uint8_t *b = test_read_corpus("module_test_bundled_program.bpte", &n);
  CHECK(b);
  CHECK_EQ_INT(n, 4608);
  uint64_t off = 0, size = 0;
  pte_error_info err = {0};
  CHECK_OK(pte_bundled_program_find_program(b, n, n, &off, &size, &err));
  CHECK_EQ_INT(off, 64);
  CHECK_EQ_INT(size, 1696);
  /* the inner bytes are a .pte with a 24-byte eh00 header (MANIFEST) */
  CHECK_EQ_INT(pte_sniff_file_kind(b + off, size), PTE_FILE_PTE);
  pte_extended_header h;
  CHECK_OK(pte_extended_header_parse(b + off, size, &h, &err));
  CHECK_EQ_INT(h.header_length, 24);
  CHECK_EQ_INT(h.program_size, 1584);
  CHECK_EQ_INT(h.segment_base_offset, 1664);
  CHECK_OK(pte_extended_header_validate(&h, size, &err));

  /* only the head of the file is needed */
  off = size = 0;
  CHECK_OK(pte_bundled_program_find_program(b, 64, n, &off, &size, &err));
  CHECK_EQ_INT(off, 64);
  CHECK_EQ_INT(size, 1696);
  /* ... but the vector length must be inside what was given */
  CHECK_STATUS(pte_bundled_program_find_program(b, 60, n, &off, &size, &err),
               PTE_ERR_INVALID_PROGRAM);
  /* program bytes must fit in the file */
  CHECK_STATUS(pte_bundled_program_find_program(b, 64, 64 + 1695, &off, &size, &err),
               PTE_ERR_INVALID_PROGRAM);
  CHECK_CONTAINS(err.msg, "exceed");
  CHECK_STATUS(pte_bundled_program_find_program(b, n, n - 1, &off, &size, &err),
               PTE_ERR_INVALID_ARGUMENT);

  uint8_t *c = malloc(n);
  CHECK(c);
  /* program vector length corrupted */
  memcpy(c, b, n);
  put32(c + 0x3c, 0x7FFFFFFF);
  CHECK_STATUS(pte_bundled_program_find_program(c, n, n, &off, &size, &err),
               PTE_ERR_INVALID_PROGRAM);
  /* program field points 4 bytes further: the vector data is no longer 32-aligned */
  memcpy(c, b, n);
  CHECK_EQ_INT(get32(c + 0x38), 4);
  put32(c + 0x38, 8);
  CHECK_STATUS(pte_bundled_program_find_program(c, n, n, &off, &size, &err),
               PTE_ERR_INVALID_PROGRAM);
  CHECK_CONTAINS(err.msg, "aligned");
  /* program field removed from the vtable (slot 2 offset = 0) */
  memcpy(c, b, n);
  CHECK_EQ_INT(c[0x22 + 8], 0x0c);
  c[0x22 + 8] = 0;
  c[0x22 + 9] = 0;
  CHECK_STATUS(pte_bundled_program_find_program(c, n, n, &off, &size, &err),
               PTE_ERR_INVALID_PROGRAM);
  CHECK_CONTAINS(err.msg, "no program");
  /* root offset out of range */
  memcpy(c, b, n);
  put32(c, 0xFFFFFF00u);
  CHECK_STATUS(pte_bundled_program_find_program(c, n, n, &off, &size, &err),
               PTE_ERR_INVALID_PROGRAM);
  /* not a bundled program */
  memcpy(c, b, n);
  memcpy(c + 4, "ET12", 4);
  CHECK_STATUS(pte_bundled_program_find_program(c, n, n, &off, &size, &err),
               PTE_ERR_NOT_SUPPORTED);
  CHECK_STATUS(pte_bundled_program_find_program(c, 7, n, &off, &size, &err),
               PTE_ERR_INVALID_PROGRAM);
  CHECK_STATUS(pte_bundled_program_find_program(NULL, 7, n, &off, &size, &err),
               PTE_ERR_INVALID_ARGUMENT);
  free(c);

  /* window loader over the buffer exposes the program; its header parses from the window */
  pte_buffer_loader bl;
  pte_buffer_loader_init(&bl, b, n);
  pte_window_loader w;
  CHECK_OK(pte_window_loader_init(&w, &bl.base, 64, 1696));
  pte_freeable_buffer fb;
  CHECK_OK(pte_data_loader_load(&w.base, 0, PTE_HEAD_BYTES, NULL, &fb));
  CHECK_OK(pte_extended_header_parse(fb.data, fb.size, &h, &err));
  CHECK_EQ_INT(h.program_size, 1584);
  pte_freeable_buffer_free(&fb);
  free(b);
}

int main(void) {
  RUN(eh00_corpus_values);
  RUN(eh00_24_byte_header_ignores_trailing_bytes);
  RUN(eh00_long_header_accepted);
  RUN(eh00_reference_example_bytes);
  RUN(eh00_bad_headers);
  RUN(eh00_validate_size_checks);
  RUN(eh00_writer);
  RUN(fh01_corpus_values_cross_checked);
  RUN(fh01_bad_headers);
  RUN(fh01_writer);
  RUN(sniff_kinds);
  RUN(bpte_find_program);
  return test_summary();
}
