#define _POSIX_C_SOURCE 200809L
/* .ptd external data (pte_ptd_load) and the named-data-map wrappers / merged map. */
#include "format/flatbuf.h"
#include "pte/headers.h"
#include "pte/io.h"
#include "pte/program.h"
#include "pte/ptd.h"
#include "pte_gen/flat_tensor_gen.h"
#include "test.h"

static void check_floats(const void *p, float v, int n) {
  float f[32];
  memcpy(f, p, sizeof(float) * (size_t)n);
  for (int i = 0; i < n; i++) CHECK_NEAR(f[i], v, 0);
}

/* Loads a corpus .ptd through a buffer loader over a heap copy (*data, free it). */
static pte_status load_corpus_ptd(const char *name, uint8_t **data, pte_buffer_loader *bl, pte_ptd *ptd,
                                  pte_error_info *err) {
  size_t n = 0;
  *data = test_read_corpus(name, &n);
  if (!*data) return PTE_ERR_NOT_FOUND;
  pte_buffer_loader_init(bl, *data, n);
  return pte_ptd_load(&bl->base, ptd, err);
}

TEST(etrs_ptd_keys_layouts_and_data) {
  uint8_t *d;
  pte_buffer_loader bl;
  pte_ptd ptd;
  pte_error_info err = {0};
  CHECK_OK(load_corpus_ptd("etrs_data_map__default_external_constant.ptd", &d, &bl, &ptd, &err));
  const pte_flat_tensor_header *h = pte_ptd_header(&ptd);
  CHECK_EQ_INT(h->header_length, 40);
  CHECK_EQ_INT(h->flatbuffer_offset, 48);
  CHECK_EQ_INT(h->flatbuffer_size, 256);
  CHECK_EQ_INT(h->segment_base_offset, 304);
  CHECK_EQ_INT(h->segment_data_size, 32);
  CHECK_EQ_INT(pte_ptd_version(&ptd), 0);
  CHECK_EQ_INT(pte_ptd_num_segments(&ptd), 2);
  uint64_t off, size;
  CHECK_OK(pte_ptd_segment(&ptd, 1, &off, &size));
  CHECK_EQ_INT(off, 16);
  CHECK_EQ_INT(size, 16);
  CHECK_STATUS(pte_ptd_segment(&ptd, 2, &off, &size), PTE_ERR_NOT_FOUND);

  const pte_named_data_map *m = pte_ptd_map(&ptd);
  CHECK(m == &ptd.base);
  uint32_t nk = 0;
  CHECK_OK(pte_named_data_map_num_keys(m, &nk));
  CHECK_EQ_INT(nk, 2);
  const char *k;
  CHECK_OK(pte_named_data_map_get_key(m, 0, &k));
  CHECK_STR(k, "a");
  CHECK_OK(pte_named_data_map_get_key(m, 1, &k));
  CHECK_STR(k, "b");
  CHECK_STATUS(pte_named_data_map_get_key(m, 2, &k), PTE_ERR_INVALID_ARGUMENT);

  static const char *const keys[2] = {"a", "b"};
  static const float vals[2] = {3.0f, 2.0f};
  for (int i = 0; i < 2; i++) {
    pte_tensor_layout l;
    CHECK_OK(pte_named_data_map_get_tensor_layout(m, keys[i], &l));
    CHECK_EQ_INT(l.dtype, PTE_DTYPE_FLOAT);
    CHECK_EQ_INT(l.dim, 2);
    CHECK_EQ_INT(l.sizes[0], 2);
    CHECK_EQ_INT(l.sizes[1], 2);
    CHECK_EQ_INT(l.dim_order[0], 0);
    CHECK_EQ_INT(l.dim_order[1], 1);
    CHECK_EQ_INT(l.nbytes, 16);
    pte_freeable_buffer b;
    CHECK_OK(pte_named_data_map_get_data(m, keys[i], &b));
    CHECK_EQ_INT(b.size, 16);
    CHECK(b.data == d + 304 + 16 * i);
    check_floats(b.data, vals[i], 4);
    pte_freeable_buffer_free(&b);
    float into[5] = {0, 0, 0, 0, -1};
    CHECK_OK(pte_named_data_map_load_data_into(m, keys[i], into, 16));
    check_floats(into, vals[i], 4);
    CHECK_NEAR(into[4], -1.0f, 0);
    CHECK_STATUS(pte_named_data_map_load_data_into(m, keys[i], into, 15), PTE_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(pte_named_data_map_load_data_into(m, keys[i], into, 17), PTE_ERR_INVALID_ARGUMENT);
    uint32_t seg = 9;
    CHECK_OK(pte_ptd_entry_segment(&ptd, keys[i], &seg));
    CHECK_EQ_INT(seg, i);
  }
  pte_tensor_layout l;
  pte_freeable_buffer b;
  CHECK_STATUS(pte_named_data_map_get_tensor_layout(m, "c", &l), PTE_ERR_NOT_FOUND);
  CHECK_STATUS(pte_named_data_map_get_data(m, "", &b), PTE_ERR_NOT_FOUND);
  CHECK_STATUS(pte_named_data_map_get_data(m, "ab", &b), PTE_ERR_NOT_FOUND);
  CHECK_STATUS(pte_named_data_map_load_data_into(m, "A", &l, 4), PTE_ERR_NOT_FOUND);
  CHECK_STATUS(pte_ptd_entry_segment(&ptd, "c", NULL), PTE_ERR_NOT_FOUND);
  pte_ptd_destroy(&ptd);
  CHECK(pte_ptd_map(&ptd) == NULL);
  pte_ptd_destroy(&ptd); /* twice is harmless */
  free(d);
}

TEST(xor_ptd_four_tensors) {
  static const struct {
    const char *key;
    int32_t dim, s0, s1;
    size_t nbytes;
    uint64_t seg_off;
  } want[4] = {
    {"net.linear.weight", 2, 10, 2, 80, 0},
    {"net.linear.bias", 1, 10, 0, 40, 80},
    {"net.linear2.weight", 2, 2, 10, 80, 128},
    {"net.linear2.bias", 1, 2, 0, 8, 208},
  };
  const char *loaders[3] = {"buffer", "file", "mmap"};
  for (int li = 0; li < 3; li++) {
    pte_error_info err = {0};
    pte_buffer_loader bl;
    pte_file_loader fl;
    pte_mmap_loader ml;
    uint8_t *d = NULL;
    size_t n = 0;
    const pte_data_loader *loader;
    const char *path = test_corpus_path("upstream_android_xor.ptd");
    if (li == 0) {
      d = test_read_corpus("upstream_android_xor.ptd", &n);
      CHECK(d);
      pte_buffer_loader_init(&bl, d, n);
      loader = &bl.base;
    } else if (li == 1) {
      CHECK_OK(pte_file_loader_open(&fl, path, 0, &err));
      loader = &fl.base;
    } else {
      CHECK_OK(pte_mmap_loader_open(&ml, path, PTE_MLOCK_NONE, &err));
      loader = &ml.base;
    }
    pte_ptd ptd;
    pte_status s = pte_ptd_load(loader, &ptd, &err);
    CHECK_MSG(s == PTE_OK, "%s loader: %s", loaders[li], err.msg);
    const pte_named_data_map *m = pte_ptd_map(&ptd);
    uint32_t nk;
    CHECK_OK(pte_named_data_map_num_keys(m, &nk));
    CHECK_EQ_INT(nk, 4);
    CHECK_EQ_INT(pte_ptd_header(&ptd)->segment_base_offset, 544);
    for (int i = 0; i < 4; i++) {
      const char *k;
      CHECK_OK(pte_named_data_map_get_key(m, (uint32_t)i, &k));
      CHECK_STR(k, want[i].key);
      pte_tensor_layout l;
      CHECK_OK(pte_named_data_map_get_tensor_layout(m, want[i].key, &l));
      CHECK_EQ_INT(l.dtype, PTE_DTYPE_FLOAT);
      CHECK_EQ_INT(l.dim, want[i].dim);
      CHECK_EQ_INT(l.sizes[0], want[i].s0);
      if (want[i].dim == 2) CHECK_EQ_INT(l.sizes[1], want[i].s1);
      CHECK_EQ_INT(l.nbytes, want[i].nbytes);
      uint64_t off, size;
      CHECK_OK(pte_ptd_segment(&ptd, (size_t)i, &off, &size));
      CHECK_EQ_INT(off, want[i].seg_off);
      CHECK_EQ_INT(size, want[i].nbytes);
      pte_freeable_buffer b;
      CHECK_OK(pte_named_data_map_get_data(m, want[i].key, &b));
      CHECK_EQ_INT(b.size, want[i].nbytes);
      float buf[20];
      CHECK_OK(pte_named_data_map_load_data_into(m, want[i].key, buf, want[i].nbytes));
      CHECK(memcmp(buf, b.data, want[i].nbytes) == 0);
      /* The weights are a trained/initialised MLP: finite, not all zero. */
      float sum = 0;
      for (size_t q = 0; q < want[i].nbytes / 4; q++) {
        CHECK(isfinite(buf[q]));
        sum += fabsf(buf[q]);
      }
      CHECK(sum > 0);
      pte_freeable_buffer_free(&b);
    }
    pte_ptd_destroy(&ptd);
    if (li == 0) free(d);
    if (li == 1) pte_file_loader_close(&fl);
    if (li == 2) pte_mmap_loader_close(&ml);
  }
}

/* ---- hand-built .ptd files ------------------------------------------------------------------ */
typedef struct ptd_entry_spec {
  const char *key;
  uint32_t segment;
  int layout;        /* 0: opaque blob (no tensor_layout) */
  int8_t dtype;
  int32_t sizes[4];
  uint8_t dim_order[4];
  uint32_t dim;
} ptd_entry_spec;

/* Builds a .ptd image (malloc'd, 64-aligned) with the given entries and segments; segment data
 * are the bytes 0,1,2,... */
static uint8_t *build_ptd(const ptd_entry_spec *e, size_t ne, const uint64_t (*segs)[2], size_t ns,
                          size_t *out_size) {
  pte_fb_builder b;
  pte_fb_builder_init(&b, pte_heap_realloc, NULL);
  pte_fb_ref seg_refs[8], nd_refs[8];
  for (size_t i = 0; i < ns; i++) {
    pte_ft_DataSegment_start(&b);
    pte_ft_DataSegment_add_offset(&b, segs[i][0]);
    pte_ft_DataSegment_add_size(&b, segs[i][1]);
    seg_refs[i] = pte_ft_DataSegment_end(&b);
  }
  for (size_t i = 0; i < ne; i++) {
    pte_fb_ref key = pte_fb_create_string(&b, e[i].key, strlen(e[i].key));
    pte_fb_ref lay = 0;
    if (e[i].layout) {
      pte_fb_ref sz = pte_ft_TensorLayout_create_sizes(&b, e[i].sizes, e[i].dim);
      pte_fb_ref dord = pte_ft_TensorLayout_create_dim_order(&b, e[i].dim_order, e[i].dim);
      pte_ft_TensorLayout_start(&b);
      pte_ft_TensorLayout_add_scalar_type(&b, e[i].dtype);
      pte_ft_TensorLayout_add_sizes(&b, sz);
      pte_ft_TensorLayout_add_dim_order(&b, dord);
      lay = pte_ft_TensorLayout_end(&b);
    }
    pte_ft_NamedData_start(&b);
    pte_ft_NamedData_add_key(&b, key);
    pte_ft_NamedData_add_segment_index(&b, e[i].segment);
    if (lay) pte_ft_NamedData_add_tensor_layout(&b, lay);
    nd_refs[i] = pte_ft_NamedData_end(&b);
  }
  pte_fb_ref sv = pte_ft_FlatTensor_create_segments(&b, seg_refs, ns);
  pte_fb_ref nv = pte_ft_FlatTensor_create_named_data(&b, nd_refs, ne);
  pte_ft_FlatTensor_start(&b);
  pte_ft_FlatTensor_add_segments(&b, sv);
  pte_ft_FlatTensor_add_named_data(&b, nv);
  pte_fb_ref root = pte_ft_FlatTensor_end(&b);
  const uint8_t *fb;
  size_t fbs;
  if (pte_ft_finish(&b, root, &fb, &fbs) != PTE_OK) {
    pte_fb_builder_free(&b);
    return NULL;
  }
  uint64_t data_size = 0;
  for (size_t i = 0; i < ns; i++)
    if (segs[i][0] + segs[i][1] > data_size) data_size = segs[i][0] + segs[i][1];
  size_t base = (48 + fbs + 127) / 128 * 128;
  size_t total = base + (size_t)data_size;
  if (total < 64) total = 64;
  uint8_t *out = NULL;
  if (posix_memalign((void **)&out, 64, total + 64) != 0) {
    pte_fb_builder_free(&b);
    return NULL;
  }
  memset(out, 0, total + 64);
  uint32_t r = (uint32_t)(fb[0] | fb[1] << 8 | fb[2] << 16 | (uint32_t)fb[3] << 24) + 48;
  for (int i = 0; i < 4; i++) out[i] = (uint8_t)(r >> (8 * i));
  memcpy(out + 4, fb + 4, 4);
  pte_flat_tensor_header h = {40, 48, fbs, base, data_size};
  pte_flat_tensor_header_write(&h, 48, out + 8, 48, NULL);
  memcpy(out + 56, fb + 8, fbs - 8);
  for (size_t i = 0; i < (size_t)data_size; i++) out[base + i] = (uint8_t)i;
  pte_fb_builder_free(&b);
  *out_size = total;
  return out;
}

TEST(built_ptd_with_blob_and_tensor) {
  ptd_entry_spec e[2] = {
    {"blob", 0, 0, 0, {0}, {0}, 0},
    {"t", 1, 1, PTE_DTYPE_SHORT, {3, 2}, {1, 0}, 2}, /* int16[3,2] transposed: 12 bytes */
  };
  const uint64_t segs[2][2] = {{0, 5}, {128, 12}};
  size_t n;
  uint8_t *d = build_ptd(e, 2, segs, 2, &n);
  CHECK(d);
  pte_buffer_loader bl;
  pte_buffer_loader_init(&bl, d, n);
  pte_ptd ptd;
  pte_error_info err = {0};
  CHECK_MSG(pte_ptd_load(&bl.base, &ptd, &err) == PTE_OK, "%s", err.msg);
  const pte_named_data_map *m = pte_ptd_map(&ptd);
  pte_tensor_layout l;
  /* Opaque blob: no layout (upstream would crash here). */
  CHECK_STATUS(pte_named_data_map_get_tensor_layout(m, "blob", &l), PTE_ERR_INVALID_EXTERNAL_DATA);
  pte_freeable_buffer b;
  CHECK_OK(pte_named_data_map_get_data(m, "blob", &b));
  CHECK_EQ_INT(b.size, 5);
  CHECK_EQ_INT(((const uint8_t *)b.data)[4], 4);
  pte_freeable_buffer_free(&b);
  uint8_t buf[16];
  CHECK_OK(pte_named_data_map_load_data_into(m, "blob", buf, 5));
  CHECK_EQ_INT(buf[3], 3);
  CHECK_STATUS(pte_named_data_map_load_data_into(m, "blob", buf, 4), PTE_ERR_INVALID_ARGUMENT);
  CHECK_OK(pte_named_data_map_get_tensor_layout(m, "t", &l));
  CHECK_EQ_INT(l.dtype, PTE_DTYPE_SHORT);
  CHECK_EQ_INT(l.dim, 2);
  CHECK_EQ_INT(l.dim_order[0], 1);
  CHECK_EQ_INT(l.nbytes, 12);
  CHECK_OK(pte_named_data_map_load_data_into(m, "t", buf, 12));
  CHECK_EQ_INT(buf[0], 128 % 256);
  CHECK_EQ_INT(buf[11], 139);
  pte_ptd_destroy(&ptd);
  free(d);
}

TEST(named_data_map_wrappers_are_null_safe) {
  pte_tensor_layout l;
  pte_freeable_buffer b;
  uint32_t n;
  const char *k;
  CHECK_STATUS(pte_named_data_map_get_tensor_layout(NULL, "a", &l), PTE_ERR_NOT_FOUND);
  CHECK_STATUS(pte_named_data_map_get_data(NULL, "a", &b), PTE_ERR_NOT_FOUND);
  CHECK_STATUS(pte_named_data_map_load_data_into(NULL, "a", &l, 1), PTE_ERR_NOT_FOUND);
  CHECK_STATUS(pte_named_data_map_num_keys(NULL, &n), PTE_ERR_NOT_FOUND);
  CHECK_STATUS(pte_named_data_map_get_key(NULL, 0, &k), PTE_ERR_NOT_FOUND);
  /* A map with empty slots. */
  static const pte_named_data_map_vtable empty_vt = {NULL, NULL, NULL, NULL, NULL};
  pte_named_data_map m = {&empty_vt};
  CHECK_STATUS(pte_named_data_map_get_tensor_layout(&m, "a", &l), PTE_ERR_NOT_IMPLEMENTED);
  CHECK_STATUS(pte_named_data_map_get_data(&m, "a", &b), PTE_ERR_NOT_IMPLEMENTED);
  CHECK_STATUS(pte_named_data_map_load_data_into(&m, "a", &l, 1), PTE_ERR_NOT_IMPLEMENTED);
  CHECK_STATUS(pte_named_data_map_num_keys(&m, &n), PTE_ERR_NOT_IMPLEMENTED);
  CHECK_STATUS(pte_named_data_map_get_key(&m, 0, &k), PTE_ERR_NOT_IMPLEMENTED);
  CHECK_STATUS(pte_named_data_map_get_data(&m, NULL, &b), PTE_ERR_INVALID_ARGUMENT);
}

TEST(merged_map_ptd_then_program) {
  uint8_t *dp;
  pte_buffer_loader blp;
  pte_ptd ptd;
  CHECK_OK(load_corpus_ptd("etrs_data_map__default_external_constant.ptd", &dp, &blp, &ptd, NULL));
  size_t n;
  uint8_t *dq = test_read_corpus("numpyrt_quantized.pte", &n);
  CHECK(dq);
  pte_buffer_loader blq;
  pte_buffer_loader_init(&blq, dq, n);
  pte_program prog;
  CHECK_OK(pte_program_load(&blq.base, PTE_VERIFY_INTERNAL_CONSISTENCY, &prog, NULL));

  pte_merged_data_map mm;
  pte_merged_data_map_init(&mm, pte_ptd_map(&ptd), pte_program_named_data_map(&prog));
  const pte_named_data_map *m = &mm.base;
  uint32_t nk;
  CHECK_OK(pte_named_data_map_num_keys(m, &nk));
  CHECK_EQ_INT(nk, 4);
  const char *k;
  CHECK_OK(pte_named_data_map_get_key(m, 1, &k));
  CHECK_STR(k, "b");
  CHECK_OK(pte_named_data_map_get_key(m, 2, &k));
  CHECK(strncmp(k, "f12ea8fa6bc2", 12) == 0);
  CHECK_STATUS(pte_named_data_map_get_key(m, 4, &k), PTE_ERR_INVALID_ARGUMENT);
  pte_freeable_buffer b;
  CHECK_OK(pte_named_data_map_get_data(m, "a", &b)); /* from the .ptd */
  check_floats(b.data, 3.0f, 4);
  pte_freeable_buffer_free(&b);
  CHECK_OK(pte_named_data_map_get_data(m, k, &b)); /* falls through to the program */
  CHECK_EQ_INT(b.size, 64);
  pte_freeable_buffer_free(&b);
  pte_tensor_layout l;
  CHECK_OK(pte_named_data_map_get_tensor_layout(m, "b", &l));
  CHECK_EQ_INT(l.nbytes, 16);
  CHECK_STATUS(pte_named_data_map_get_tensor_layout(m, k, &l), PTE_ERR_NOT_IMPLEMENTED);
  CHECK_STATUS(pte_named_data_map_get_data(m, "zz", &b), PTE_ERR_NOT_FOUND);
  float into[4];
  CHECK_OK(pte_named_data_map_load_data_into(m, "b", into, 16));
  check_floats(into, 2.0f, 4);
  /* One side missing: behaves as the other. */
  pte_merged_data_map_init(&mm, NULL, pte_ptd_map(&ptd));
  CHECK_OK(pte_named_data_map_num_keys(m, &nk));
  CHECK_EQ_INT(nk, 2);
  CHECK_OK(pte_named_data_map_get_key(m, 0, &k));
  CHECK_STR(k, "a");
  CHECK_OK(pte_named_data_map_get_data(m, "b", &b));
  pte_freeable_buffer_free(&b);
  pte_merged_data_map_init(&mm, pte_ptd_map(&ptd), NULL);
  CHECK_STATUS(pte_named_data_map_get_data(m, "zz", &b), PTE_ERR_NOT_FOUND);
  CHECK_STATUS(pte_named_data_map_get_key(m, 2, &k), PTE_ERR_INVALID_ARGUMENT);
  pte_program_destroy(&prog);
  pte_ptd_destroy(&ptd);
  free(dq);
  free(dp);
}

int main(void) {
  RUN(etrs_ptd_keys_layouts_and_data);
  RUN(xor_ptd_four_tensors);
  RUN(built_ptd_with_blob_and_tensor);
  RUN(named_data_map_wrappers_are_null_safe);
  RUN(merged_map_ptd_then_program);
  return test_summary();
}
