/* The CLI's .npy reader/writer (tools/cli/npy.c, compiled into this test). Byte layouts follow
 * numpy's format specification (NEP 1): magic "\x93NUMPY", version, little-endian header length,
 * a Python dict literal padded with spaces and ending in '\n' so the data is 64-byte aligned. */
#define _POSIX_C_SOURCE 200809L
#include "test.h"

#include "../../tools/cli/npy.c"

/* Builds a .npy image with a given version and dict text (padded to 64 like numpy). */
static size_t make_npy(uint8_t *out, int major, const char *dict, const void *data, size_t nbytes) {
  size_t pre = major == 1 ? 10 : 12, dl = strlen(dict);
  size_t total = (pre + dl + 1 + 63) / 64 * 64, hlen = total - pre;
  memcpy(out, "\x93NUMPY", 6);
  out[6] = (uint8_t)major;
  out[7] = 0;
  if (major == 1) {
    out[8] = (uint8_t)hlen;
    out[9] = (uint8_t)(hlen >> 8);
  } else {
    for (int i = 0; i < 4; i++) out[8 + i] = (uint8_t)(hlen >> (8 * i));
  }
  memcpy(out + pre, dict, dl);
  memset(out + pre + dl, ' ', hlen - dl - 1);
  out[total - 1] = '\n';
  if (nbytes) memcpy(out + total, data, nbytes);
  return total + nbytes;
}

TEST(encode_float32_exact_bytes) {
  float v[3] = {2, 3, 4};
  int32_t sizes[1] = {3};
  size_t len = 0;
  char err[256];
  uint8_t *img = pte_npy_encode(PTE_DTYPE_FLOAT, sizes, 1, v, &len, err, sizeof err);
  CHECK(img != NULL);
  /* 10-byte preamble + 118-byte header = 128, then 12 data bytes */
  CHECK_EQ_INT(len, 140);
  CHECK(memcmp(img, "\x93NUMPY\x01\x00", 8) == 0);
  CHECK_EQ_INT(img[8] | (img[9] << 8), 118);
  const char *dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }";
  CHECK(memcmp(img + 10, dict, strlen(dict)) == 0);
  for (size_t i = 10 + strlen(dict); i < 127; i++) CHECK_EQ_INT(img[i], ' ');
  CHECK_EQ_INT(img[127], '\n');
  CHECK(memcmp(img + 128, v, 12) == 0);
  free(img);
}

TEST(encode_shapes_text) {
  size_t len;
  int32_t s0[1] = {0}, s3[3] = {2, 1, 4};
  uint8_t *a = pte_npy_encode(PTE_DTYPE_LONG, s0, 0, "\x80\0\0\0\0\0\0\0", &len, NULL, 0);
  CHECK(a != NULL);
  CHECK(strstr((char *)a + 10, "'descr': '<i8', 'fortran_order': False, 'shape': (), }") != NULL);
  CHECK_EQ_INT(len, 128 + 8); /* 10 + 56-char dict + newline rounds up to 128 */
  CHECK_EQ_INT(a[128], 0x80);
  free(a);
  uint8_t z[8] = {0};
  a = pte_npy_encode(PTE_DTYPE_BOOL, s3, 3, z, &len, NULL, 0);
  CHECK(a != NULL);
  CHECK(strstr((char *)a + 10, "'descr': '|b1', 'fortran_order': False, 'shape': (2, 1, 4), }") != NULL);
  CHECK_EQ_INT(len, 128 + 8);
  free(a);
}

TEST(roundtrip_every_dtype) {
  static const int dtypes[] = {PTE_DTYPE_HALF,  PTE_DTYPE_FLOAT,  PTE_DTYPE_DOUBLE, PTE_DTYPE_CHAR,
                               PTE_DTYPE_SHORT, PTE_DTYPE_INT,    PTE_DTYPE_LONG,   PTE_DTYPE_BYTE,
                               PTE_DTYPE_UINT16, PTE_DTYPE_UINT32, PTE_DTYPE_UINT64, PTE_DTYPE_BOOL,
                               PTE_DTYPE_COMPLEX_FLOAT, PTE_DTYPE_COMPLEX_DOUBLE};
  static const char *const descr[] = {"<f2", "<f4", "<f8", "|i1", "<i2", "<i4", "<i8",
                                      "|u1", "<u2", "<u4", "<u8", "|b1", "<c8", "<c16"};
  uint8_t data[2 * 3 * 16];
  for (size_t i = 0; i < sizeof data; i++) data[i] = (uint8_t)(i * 7 + 1);
  for (size_t k = 0; k < sizeof dtypes / sizeof dtypes[0]; k++) {
    int32_t sizes[2] = {2, 3};
    size_t es = pte_dtype_size(dtypes[k]);
    uint8_t d[sizeof data];
    memcpy(d, data, sizeof d);
    if (dtypes[k] == PTE_DTYPE_BOOL)
      for (int i = 0; i < 6; i++) d[i] &= 1;
    size_t len;
    char err[256];
    uint8_t *img = pte_npy_encode(dtypes[k], sizes, 2, d, &len, err, sizeof err);
    CHECK_MSG(img != NULL, "dtype %d: %s", dtypes[k], err);
    CHECK_STR(pte_npy_descr(dtypes[k]), descr[k]);
    CHECK_EQ_INT((10 + (img[8] | (img[9] << 8))) % 64, 0);
    pte_npy_array a;
    CHECK_MSG(pte_npy_parse(img, len, &a, err, sizeof err) == 0, "dtype %d: %s", dtypes[k], err);
    CHECK_EQ_INT(a.dtype, dtypes[k]);
    CHECK_EQ_INT(a.dim, 2);
    CHECK_EQ_INT(a.sizes[0], 2);
    CHECK_EQ_INT(a.sizes[1], 3);
    CHECK_EQ_INT(a.nbytes, 6 * es);
    CHECK(memcmp(a.data, d, 6 * es) == 0);
    CHECK(!a.fortran_order);
    CHECK_EQ_INT(a.major, 1);
    pte_npy_free(&a);
    free(img);
  }
  int32_t s[1] = {2};
  CHECK(pte_npy_encode(PTE_DTYPE_QINT8, s, 1, data, &(size_t){0}, NULL, 0) == NULL);
}

TEST(fortran_order_2d_converted) {
  float f[6] = {0, 1, 2, 3, 4, 5}; /* F order: element (i,j) at i + 2j */
  uint8_t img[256];
  size_t n = make_npy(img, 1, "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }", f, sizeof f);
  pte_npy_array a;
  char err[256];
  CHECK_MSG(pte_npy_parse(img, n, &a, err, sizeof err) == 0, "%s", err);
  CHECK(a.fortran_order);
  const float want[6] = {0, 2, 4, 1, 3, 5};
  CHECK(memcmp(a.data, want, sizeof want) == 0);
  pte_npy_free(&a);
}

TEST(fortran_order_3d_converted) {
  int16_t f[24];
  for (int i = 0; i < 24; i++) f[i] = (int16_t)i;
  uint8_t img[256];
  size_t n = make_npy(img, 1, "{'descr': '<i2', 'fortran_order': True, 'shape': (2, 3, 4), }", f, sizeof f);
  pte_npy_array a;
  CHECK(pte_npy_parse(img, n, &a, NULL, 0) == 0);
  const int16_t *c = a.data;
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 3; j++)
      for (int l = 0; l < 4; l++) CHECK_EQ_INT(c[i * 12 + j * 4 + l], i + 2 * j + 6 * l);
  pte_npy_free(&a);
}

TEST(versions_2_and_3_and_legacy_forms) {
  int32_t v[2] = {7, -9};
  uint8_t img[256];
  pte_npy_array a;
  char err[256];
  size_t n = make_npy(img, 2, "{'descr': '<i4', 'fortran_order': False, 'shape': (2,), }", v, sizeof v);
  CHECK_MSG(pte_npy_parse(img, n, &a, err, sizeof err) == 0, "%s", err);
  CHECK_EQ_INT(a.major, 2);
  CHECK_EQ_INT(((int32_t *)a.data)[1], -9);
  pte_npy_free(&a);
  n = make_npy(img, 3, "{\"descr\": \"<i4\", \"shape\": (2L,), \"fortran_order\": False}", v, sizeof v);
  CHECK_MSG(pte_npy_parse(img, n, &a, err, sizeof err) == 0, "%s", err);
  CHECK_EQ_INT(a.major, 3);
  CHECK_EQ_INT(a.sizes[0], 2);
  pte_npy_free(&a);
  /* native byte order '=' and 1-byte '>' (byte order irrelevant) are accepted */
  n = make_npy(img, 1, "{'descr': '=i4', 'fortran_order': False, 'shape': (2,), }", v, sizeof v);
  CHECK(pte_npy_parse(img, n, &a, NULL, 0) == 0);
  pte_npy_free(&a);
  n = make_npy(img, 1, "{'descr': '>u1', 'fortran_order': False, 'shape': (2,), }", v, 2);
  CHECK(pte_npy_parse(img, n, &a, NULL, 0) == 0);
  CHECK_EQ_INT(a.dtype, PTE_DTYPE_BYTE);
  pte_npy_free(&a);
}

TEST(bfloat16_v2_read_and_written_as_float32) {
  uint16_t bf[3] = {0x3F80, 0xC040, 0x0000}; /* 1.0, -3.0, 0.0 */
  uint8_t img[256];
  size_t n = make_npy(img, 1, "{'descr': '<V2', 'fortran_order': False, 'shape': (3,), }", bf, sizeof bf);
  pte_npy_array a;
  CHECK(pte_npy_parse(img, n, &a, NULL, 0) == 0);
  CHECK_EQ_INT(a.dtype, PTE_DTYPE_BFLOAT16);
  CHECK(memcmp(a.data, bf, sizeof bf) == 0);
  pte_npy_free(&a);
  int32_t s[1] = {3};
  size_t len;
  uint8_t *enc = pte_npy_encode(PTE_DTYPE_BFLOAT16, s, 1, bf, &len, NULL, 0);
  CHECK(enc != NULL);
  CHECK(pte_npy_parse(enc, len, &a, NULL, 0) == 0);
  CHECK_EQ_INT(a.dtype, PTE_DTYPE_FLOAT);
  const float want[3] = {1.0f, -3.0f, 0.0f};
  CHECK(memcmp(a.data, want, sizeof want) == 0);
  pte_npy_free(&a);
  free(enc);
}

TEST(rejections_with_messages) {
  uint8_t img[512];
  float v[2] = {1, 2};
  pte_npy_array a;
  char err[256];
  size_t n = make_npy(img, 1, "{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }", v, sizeof v);
  CHECK(pte_npy_parse(img, n, &a, err, sizeof err) == -1);
  CHECK_CONTAINS(err, "big-endian");
  /* truncated data */
  n = make_npy(img, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }", v, sizeof v);
  CHECK(pte_npy_parse(img, n, &a, err, sizeof err) == -1);
  CHECK_CONTAINS(err, "8 data bytes");
  CHECK_CONTAINS(err, "need 12");
  n = make_npy(img, 1, "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2,), }", v, sizeof v);
  CHECK(pte_npy_parse(img, n, &a, err, sizeof err) == -1);
  CHECK_CONTAINS(err, "structured");
  n = make_npy(img, 1, "{'descr': '|O', 'fortran_order': False, 'shape': (2,), }", v, sizeof v);
  CHECK(pte_npy_parse(img, n, &a, err, sizeof err) == -1);
  CHECK_CONTAINS(err, "dtype");
  n = make_npy(img, 1, "{'descr': '<f4', 'shape': (2,), }", v, sizeof v);
  CHECK(pte_npy_parse(img, n, &a, err, sizeof err) == -1);
  CHECK_CONTAINS(err, "fortran_order");
  n = make_npy(img, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'x': 1}", v, sizeof v);
  CHECK(pte_npy_parse(img, n, &a, err, sizeof err) == -1);
  CHECK_CONTAINS(err, "'x'");
  n = make_npy(img, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2147483648,), }", v, sizeof v);
  CHECK(pte_npy_parse(img, n, &a, err, sizeof err) == -1);
  CHECK_CONTAINS(err, "out of range");
  n = make_npy(img, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1), }", v, 4);
  CHECK(pte_npy_parse(img, n, &a, err, sizeof err) == -1);
  CHECK_CONTAINS(err, "rank");
  n = make_npy(img, 4, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", v, sizeof v);
  CHECK(pte_npy_parse(img, n, &a, err, sizeof err) == -1);
  CHECK_CONTAINS(err, "version 4.0");
  CHECK(pte_npy_parse("PK\3\4abcdefgh", 12, &a, err, sizeof err) == -1);
  CHECK_CONTAINS(err, "magic");
  /* header length past the end of the file */
  n = make_npy(img, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", v, sizeof v);
  CHECK(pte_npy_parse(img, 40, &a, err, sizeof err) == -1);
  CHECK_CONTAINS(err, "truncated");
  /* a header that ends in digits must not be read past its end */
  uint8_t *t = malloc(22); /* exact size, so ASan sees any over-read */
  memcpy(t, "\x93NUMPY\x01\x00\x0c\x00{'shape':(12", 22);
  CHECK(pte_npy_parse(t, 22, &a, err, sizeof err) == -1);
  free(t);
  CHECK_CONTAINS(err, "malformed");
}

TEST(half_and_bfloat16_conversions) {
  CHECK(pte_npy_f16_to_f32(0x3C00) == 1.0f);
  CHECK(pte_npy_f16_to_f32(0xC000) == -2.0f);
  CHECK(pte_npy_f16_to_f32(0x7BFF) == 65504.0f);
  CHECK(pte_npy_f16_to_f32(0x0001) == ldexpf(1.0f, -24));
  CHECK(pte_npy_f16_to_f32(0x0400) == ldexpf(1.0f, -14));
  CHECK(isinf(pte_npy_f16_to_f32(0x7C00)));
  CHECK(isnan(pte_npy_f16_to_f32(0x7E00)));
  CHECK_EQ_INT(pte_npy_f32_to_f16(1.0f), 0x3C00);
  CHECK_EQ_INT(pte_npy_f32_to_f16(-2.0f), 0xC000);
  CHECK_EQ_INT(pte_npy_f32_to_f16(1.0f + ldexpf(1, -10)), 0x3C01);
  CHECK_EQ_INT(pte_npy_f32_to_f16(1.0f + ldexpf(1, -11)), 0x3C00);     /* tie -> even */
  CHECK_EQ_INT(pte_npy_f32_to_f16(1.0f + 3 * ldexpf(1, -11)), 0x3C02); /* tie -> even (up) */
  CHECK_EQ_INT(pte_npy_f32_to_f16(65520.0f), 0x7C00);                  /* rounds to inf */
  CHECK_EQ_INT(pte_npy_f32_to_f16(ldexpf(1, -24)), 0x0001);
  CHECK_EQ_INT(pte_npy_f32_to_f16(ldexpf(1, -26)), 0x0000);
  CHECK_EQ_INT(pte_npy_f32_to_bf16(1.0f), 0x3F80);
  float f;
  uint32_t u = 0x3F808000u; /* exactly between 0x3F80 and 0x3F81 -> even */
  memcpy(&f, &u, 4);
  CHECK_EQ_INT(pte_npy_f32_to_bf16(f), 0x3F80);
  u = 0x3F818000u;
  memcpy(&f, &u, 4);
  CHECK_EQ_INT(pte_npy_f32_to_bf16(f), 0x3F82);
  CHECK(isnan(pte_npy_bf16_to_f32(pte_npy_f32_to_bf16(NAN))));
  CHECK(pte_npy_bf16_to_f32(0xC040) == -3.0f);
}

TEST(copy_strided_transpose) {
  const int32_t src[6] = {1, 2, 3, 4, 5, 6}; /* 2x3 C order */
  int32_t dst[6] = {0};
  int32_t sizes[2] = {2, 3};
  int64_t ss[2] = {3, 1}, ds[2] = {1, 2}; /* write column-major */
  pte_npy_copy_strided(dst, ds, src, ss, sizes, 2, 4);
  const int32_t want[6] = {1, 4, 2, 5, 3, 6};
  CHECK(memcmp(dst, want, sizeof want) == 0);
}

TEST(save_and_load_file) {
  const char *path = test_tmp_path("npy_roundtrip.npy");
  double v[4] = {1.5, -2.25, 1e300, 0};
  int32_t sizes[2] = {2, 2};
  char err[256];
  CHECK_MSG(pte_npy_save(path, PTE_DTYPE_DOUBLE, sizes, 2, v, err, sizeof err) == 0, "%s", err);
  pte_npy_array a;
  CHECK_MSG(pte_npy_load(path, &a, err, sizeof err) == 0, "%s", err);
  CHECK_EQ_INT(a.dtype, PTE_DTYPE_DOUBLE);
  CHECK(memcmp(a.data, v, sizeof v) == 0);
  pte_npy_free(&a);
  CHECK(pte_npy_load(test_tmp_path("does_not_exist.npy"), &a, err, sizeof err) == -1);
  CHECK_CONTAINS(err, "cannot open");
  CHECK(pte_npy_save("/nonexistent-dir/x.npy", PTE_DTYPE_DOUBLE, sizes, 2, v, err, sizeof err) == -1);
  CHECK_CONTAINS(err, "cannot write into directory '/nonexistent-dir': no such file");
}

int main(void) {
  RUN(encode_float32_exact_bytes);
  RUN(encode_shapes_text);
  RUN(roundtrip_every_dtype);
  RUN(fortran_order_2d_converted);
  RUN(fortran_order_3d_converted);
  RUN(versions_2_and_3_and_legacy_forms);
  RUN(bfloat16_v2_read_and_written_as_float32);
  RUN(rejections_with_messages);
  RUN(half_and_bfloat16_conversions);
  RUN(copy_strided_transpose);
  RUN(save_and_load_file);
  return test_summary();
}
