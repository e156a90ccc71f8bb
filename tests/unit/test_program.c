#define _POSIX_C_SOURCE 200809L
/* pte_program: every corpus .pte loads (buffer, file and mmap loaders; both verification levels)
 * and what it reports matches MANIFEST.md; constants, segments, named data, mutable data. */
#include <time.h>

#include "pte/io.h"
#include "pte/program.h"
#include "test.h"

/* Hand-copied from MANIFEST.md. hdr: extended header length (0 = none); for files without a
 * header program_size is the file size and base/data are 0. */
typedef struct corpus_pte {
  const char *name;
  uint64_t size;
  uint32_t hdr;
  uint64_t program_size, base, data_size;
  pte_constant_storage storage;
  size_t n_segments;
  uint32_t n_named;
  int has_mutable;
  size_t n_methods;
  const char *method0;
} corpus_pte;

static const corpus_pte kCorpus[] = {
  {"arduino_AddModel.pte", 1156, 32, 1040, 1152, 4, PTE_CONSTANTS_SEGMENT, 1, 0, 0, 1, "forward"},
  {"arduino_HelloExecuTorch.pte", 1156, 32, 1040, 1152, 4, PTE_CONSTANTS_SEGMENT, 1, 0, 0, 1, "forward"},
  {"apple_tests_add.pte", 728, 0, 728, 0, 0, PTE_CONSTANTS_NONE, 1, 0, 0, 1, "forward"},
  {"deprecated_ModuleLinear-no-constant-segment.pte", 1040, 0, 1040, 0, 0, PTE_CONSTANTS_INLINE, 0, 0, 0, 1, "forward"},
  {"upstream_android_xor.pte", 13832, 24, 13704, 13824, 0, PTE_CONSTANTS_SEGMENT, 1, 0, 0, 4, "forward"},
  {"upstream_module_test_model_2024-03.pte", 1600, 0, 1600, 0, 0, PTE_CONSTANTS_INLINE, 0, 0, 0, 1, "forward"},
  {"pr17248_add.pte", 1072, 0, 1072, 0, 0, PTE_CONSTANTS_NONE, 1, 0, 0, 1, "forward"},
  {"pr17248_maxpool2d.pte", 1504, 0, 1504, 0, 0, PTE_CONSTANTS_NONE, 1, 0, 0, 1, "forward"},
  {"pr17248_softmax.pte", 976, 0, 976, 0, 0, PTE_CONSTANTS_NONE, 1, 0, 0, 1, "forward"},
  {"pr17248_conv2d_quantized.pte", 12096, 32, 2416, 2432, 9664, PTE_CONSTANTS_SEGMENT, 1, 0, 0, 1, "forward"},
  {"numpyrt_add.pte", 1584, 32, 1088, 1152, 432, PTE_CONSTANTS_NONE, 2, 0, 0, 1, "forward"},
  {"numpyrt_const_methods.pte", 2344, 32, 2272, 2304, 40, PTE_CONSTANTS_SEGMENT, 1, 0, 0, 5, "forward"},
  {"numpyrt_dtypes.pte", 1320, 0, 1320, 0, 0, PTE_CONSTANTS_NONE, 1, 0, 0, 1, "forward"},
  {"numpyrt_dynamic.pte", 1712, 32, 1072, 1152, 560, PTE_CONSTANTS_SEGMENT, 2, 0, 0, 1, "forward"},
  {"numpyrt_multi.pte", 2312, 32, 2240, 2304, 8, PTE_CONSTANTS_SEGMENT, 1, 0, 0, 2, "double"},
  {"numpyrt_quantized.pte", 2592, 32, 1216, 1280, 1312, PTE_CONSTANTS_NONE, 4, 2, 0, 1, "forward"},
  {"numpyrt_lstm.pte", 2352, 32, 1856, 1920, 432, PTE_CONSTANTS_SEGMENT, 1, 0, 0, 1, "forward"},
  {"etrs_data_map_model.pte", 1328, 0, 1328, 0, 0, PTE_CONSTANTS_NONE, 1, 0, 0, 1, "forward"},
  {"etrs_models_add.pte", 1072, 0, 1072, 0, 0, PTE_CONSTANTS_NONE, 1, 0, 0, 1, "forward"},
  {"etrs_hello_world_add_old.pte", 1064, 0, 1064, 0, 0, PTE_CONSTANTS_INLINE, 0, 0, 0, 1, "forward"},
  {"simple-torch-model.pte", 10536, 24, 1968, 2048, 0, PTE_CONSTANTS_NONE, 9, 6, 0, 1, "forward"},
  {"djl_spike_add.pte", 1584, 32, 1088, 1152, 432, PTE_CONSTANTS_NONE, 2, 0, 0, 1, "forward"},
  {"djl_spike_add_unplanned.pte", 1584, 32, 1048, 1152, 432, PTE_CONSTANTS_NONE, 2, 0, 0, 1, "forward"},
  {"djl_spike_clamp5.pte", 1408, 32, 936, 1024, 384, PTE_CONSTANTS_NONE, 2, 0, 0, 1, "forward"},
  {"djl_spike_conv.pte", 3360, 32, 1232, 1280, 2080, PTE_CONSTANTS_NONE, 4, 2, 0, 1, "forward"},
  {"djl_spike_lin129.pte", 35328, 32, 1184, 1280, 34048, PTE_CONSTANTS_NONE, 4, 2, 0, 1, "forward"},
  {"djl_spike_lin129_planned.pte", 35328, 32, 1208, 1280, 34048, PTE_CONSTANTS_NONE, 4, 2, 0, 1, "forward"},
  {"djl_spike_med_output.pte", 1000, 0, 1000, 0, 0, PTE_CONSTANTS_NONE, 1, 0, 0, 1, "forward"},
  {"djl_spike_prim_input.pte", 1156, 32, 1104, 1152, 4, PTE_CONSTANTS_SEGMENT, 1, 0, 0, 1, "forward"},
  {"djl_named_priced.pte", 1272, 0, 1272, 0, 0, PTE_CONSTANTS_NONE, 1, 0, 0, 1, "forward"},
  {"djl_openvino_tiny.pte", 4793, 32, 1000, 1024, 3769, PTE_CONSTANTS_NONE, 2, 0, 0, 1, "forward"},
  {"djl_stress_mlp.pte", 2709120, 32, 6024, 6144, 2702976, PTE_CONSTANTS_SEGMENT, 23, 20, 0, 1, "forward"},
  {"dnf_test_dnf_executorch1.pte", 7116, 32, 6776, 6784, 332, PTE_CONSTANTS_SEGMENT, 2, 0, 1, 4, "forward"},
  {"dnf_test_dnf_executorch5.pte", 26044, 32, 19736, 19840, 6204, PTE_CONSTANTS_SEGMENT, 2, 0, 1, 4, "forward"},
  {"berry_identity.pte", 728, 0, 728, 0, 0, PTE_CONSTANTS_NONE, 1, 0, 0, 1, "forward"},
  {"berry_two.pte", 944, 0, 944, 0, 0, PTE_CONSTANTS_NONE, 1, 0, 0, 1, "forward"},
  {"node-executorch_mul.pte", 1032, 0, 1032, 0, 0, PTE_CONSTANTS_INLINE, 0, 0, 0, 1, "forward"},
};
#define N_CORPUS (sizeof kCorpus / sizeof kCorpus[0])

/* Checks everything MANIFEST.md says about a loaded program; returns 0 or fails the test. */
static int check_against_manifest(const corpus_pte *e, const pte_program *p) {
  const pte_program_header *h = pte_program_get_header(p);
  if (!h) {
    test_fail(__FILE__, __LINE__, "%s: no header", e->name);
    return 1;
  }
  if (e->hdr) {
    if (!h->present || h->header_length != e->hdr || h->program_size != e->program_size ||
        h->segment_base_offset != e->base || h->segment_data_size != e->data_size) {
      test_fail(__FILE__, __LINE__, "%s: header {%d,%u,%llu,%llu,%llu}", e->name, (int)h->present,
                h->header_length, (unsigned long long)h->program_size,
                (unsigned long long)h->segment_base_offset, (unsigned long long)h->segment_data_size);
      return 1;
    }
  } else if (h->present || h->program_size != e->size || h->segment_base_offset != 0) {
    test_fail(__FILE__, __LINE__, "%s: unexpected header", e->name);
    return 1;
  }
  size_t fbs = 0;
  const uint8_t *fb = pte_program_flatbuffer(p, &fbs);
  if (!fb || fbs != e->program_size || memcmp(fb + 4, "ET12", 4) != 0) {
    test_fail(__FILE__, __LINE__, "%s: flatbuffer %zu bytes", e->name, fbs);
    return 1;
  }
  if (pte_program_constant_storage(p) != e->storage) {
    test_fail(__FILE__, __LINE__, "%s: storage %d != %d", e->name, (int)pte_program_constant_storage(p),
              (int)e->storage);
    return 1;
  }
  if (pte_program_num_segments(p) != e->n_segments || pte_program_num_methods(p) != e->n_methods) {
    test_fail(__FILE__, __LINE__, "%s: %zu segments, %zu methods", e->name, pte_program_num_segments(p),
              pte_program_num_methods(p));
    return 1;
  }
  const char *m0 = pte_program_method_name(p, 0);
  if (!m0 || strcmp(m0, e->method0) != 0 || pte_program_method_name(p, e->n_methods) != NULL) {
    test_fail(__FILE__, __LINE__, "%s: method 0 is %s", e->name, m0 ? m0 : "(null)");
    return 1;
  }
  size_t idx = 99;
  if (pte_program_find_method(p, e->method0, &idx) != PTE_OK || idx != 0 ||
      pte_program_find_method(p, "no_such_method", &idx) != PTE_ERR_INVALID_ARGUMENT) {
    test_fail(__FILE__, __LINE__, "%s: find_method", e->name);
    return 1;
  }
  const pte_named_data_map *nd = pte_program_named_data_map(p);
  uint32_t nk = 0;
  if ((e->n_named == 0) != (nd == NULL) || (nd && (pte_named_data_map_num_keys(nd, &nk) != PTE_OK || nk != e->n_named))) {
    test_fail(__FILE__, __LINE__, "%s: named data map %p keys %u", e->name, (const void *)nd, nk);
    return 1;
  }
  /* The last segment ends where the file ends (MANIFEST: base + end of last segment == size). */
  if (e->hdr && e->n_segments) {
    uint64_t off = 0, size = 0, end = 0;
    for (size_t i = 0; i < e->n_segments; i++) {
      if (pte_program_segment(p, i, &off, &size) != PTE_OK) {
        test_fail(__FILE__, __LINE__, "%s: segment %zu", e->name, i);
        return 1;
      }
      if (off + size > end) end = off + size;
    }
    if (e->base + end != e->size) {
      test_fail(__FILE__, __LINE__, "%s: segments end at %llu", e->name, (unsigned long long)(e->base + end));
      return 1;
    }
  }
  if (pte_program_segment(p, e->n_segments, NULL, NULL) != PTE_ERR_NOT_FOUND) {
    test_fail(__FILE__, __LINE__, "%s: segment past the end", e->name);
    return 1;
  }
  return 0;
}

TEST(corpus_loads_with_buffer_loader_both_levels) {
  for (size_t i = 0; i < N_CORPUS; i++) {
    size_t n = 0;
    uint8_t *d = test_read_corpus(kCorpus[i].name, &n);
    CHECK(d);
    CHECK_EQ_INT(n, kCorpus[i].size);
    pte_buffer_loader bl;
    pte_buffer_loader_init(&bl, d, n);
    for (int lv = 0; lv < 2; lv++) {
      pte_program p;
      pte_error_info err = {0};
      pte_status s = pte_program_load(&bl.base, (pte_verification)lv, &p, &err);
      CHECK_MSG(s == PTE_OK, "%s level %d: %s: %s", kCorpus[i].name, lv, pte_status_name(s), err.msg);
      CHECK_EQ_INT(err.msg[0], 0);
      int bad = check_against_manifest(&kCorpus[i], &p);
      pte_program_destroy(&p);
      CHECK_EQ_INT(pte_program_num_methods(&p), 0);
      if (bad) { free(d); return; }
    }
    free(d);
  }
}

TEST(corpus_loads_with_file_and_mmap_loaders) {
  for (size_t i = 0; i < N_CORPUS; i++) {
    pte_error_info err = {0};
    pte_file_loader fl;
    CHECK_OK(pte_file_loader_open(&fl, test_corpus_path(kCorpus[i].name), 0, &err));
    pte_program p;
    pte_status s = pte_program_load(&fl.base, PTE_VERIFY_INTERNAL_CONSISTENCY, &p, &err);
    CHECK_MSG(s == PTE_OK, "%s (file): %s", kCorpus[i].name, err.msg);
    int bad = check_against_manifest(&kCorpus[i], &p);
    pte_program_destroy(&p);
    pte_file_loader_close(&fl);
    if (bad) return;
    for (unsigned mode = 0; mode < 2; mode++) {
      pte_mmap_loader ml;
      CHECK_OK(pte_mmap_loader_open_ex(&ml, test_corpus_path(kCorpus[i].name), PTE_MLOCK_NONE, mode, &err));
      s = pte_program_load(&ml.base, mode ? PTE_VERIFY_MINIMAL : PTE_VERIFY_INTERNAL_CONSISTENCY, &p, &err);
      CHECK_MSG(s == PTE_OK, "%s (mmap %u): %s", kCorpus[i].name, mode, err.msg);
      bad = check_against_manifest(&kCorpus[i], &p);
      pte_program_destroy(&p);
      pte_mmap_loader_close(&ml);
      if (bad) return;
    }
  }
}

TEST(method_names_of_multi_method_programs) {
  static const char *const xor_names[] = {"forward", "__et_training_gradients_index_forward",
                                          "__et_training_fqn_forward", "__et_training_parameters_index_forward"};
  static const char *const cm_names[] = {"forward", "get_scalar", "get_double", "get_bool", "get_tensor"};
  static const char *const multi_names[] = {"double", "forward"};
  struct { const char *file; const char *const *names; size_t n; } cases[] = {
    {"upstream_android_xor.pte", xor_names, 4},
    {"dnf_test_dnf_executorch1.pte", xor_names, 4},
    {"numpyrt_const_methods.pte", cm_names, 5},
    {"numpyrt_multi.pte", multi_names, 2},
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    size_t n;
    uint8_t *d = test_read_corpus(cases[c].file, &n);
    CHECK(d);
    pte_buffer_loader bl;
    pte_buffer_loader_init(&bl, d, n);
    pte_program p;
    CHECK_OK(pte_program_load(&bl.base, PTE_VERIFY_INTERNAL_CONSISTENCY, &p, NULL));
    CHECK_EQ_INT(pte_program_num_methods(&p), cases[c].n);
    for (size_t i = 0; i < cases[c].n; i++) {
      CHECK_STR(pte_program_method_name(&p, i), cases[c].names[i]);
      size_t idx = 99;
      CHECK_OK(pte_program_find_method(&p, cases[c].names[i], &idx));
      CHECK_EQ_INT(idx, i);
    }
    CHECK_STATUS(pte_program_find_method(&p, "forwar", NULL), PTE_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(pte_program_find_method(&p, NULL, NULL), PTE_ERR_INVALID_ARGUMENT);
    pte_program_destroy(&p);
    free(d);
  }
}

static void check_floats(const void *p, float v, int n) {
  float f[16];
  memcpy(f, p, sizeof(float) * (size_t)n);
  for (int i = 0; i < n; i++) CHECK_NEAR(f[i], v, 0);
}

TEST(inline_constant_buffer_values) {
  size_t n;
  uint8_t *d = test_read_corpus("deprecated_ModuleLinear-no-constant-segment.pte", &n);
  CHECK(d);
  pte_buffer_loader bl;
  pte_buffer_loader_init(&bl, d, n);
  pte_program p;
  CHECK_OK(pte_program_load(&bl.base, PTE_VERIFY_INTERNAL_CONSISTENCY, &p, NULL));
  CHECK_EQ_INT(pte_program_constant_storage(&p), PTE_CONSTANTS_INLINE);
  const void *c1 = NULL, *c2 = NULL, *c0 = NULL;
  CHECK_OK(pte_program_constant_data(&p, 1, 16, &c1));
  CHECK_OK(pte_program_constant_data(&p, 2, 16, &c2));
  check_floats(c1, 3.0f, 4);
  check_floats(c2, 2.0f, 4);
  CHECK((uintptr_t)c1 % 16 == 0); /* Buffer.storage is force_align 16 */
  CHECK_OK(pte_program_constant_data(&p, 0, 0, &c0)); /* the empty placeholder */
  CHECK(c0 != NULL);
  CHECK_STATUS(pte_program_constant_data(&p, 1, 17, &c1), PTE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(pte_program_constant_data(&p, 3, 4, &c1), PTE_ERR_INVALID_ARGUMENT);
  CHECK(c1 == NULL);
  /* No segments at all: nothing to load. */
  pte_freeable_buffer b;
  CHECK_STATUS(pte_program_load_segment(&p, 0, NULL, &b), PTE_ERR_NOT_FOUND);
  CHECK_STATUS(pte_program_load_mutable_into(&p, 0, 0, 0, NULL), PTE_ERR_NOT_FOUND);
  pte_program_destroy(&p);
  free(d);
}

TEST(segment_constants) {
  struct { const char *file; size_t idx; size_t nbytes; float first; } cases[] = {
    {"arduino_AddModel.pte", 1, 4, 1.0f},        /* x + 1.0 */
    {"numpyrt_lstm.pte", 2, 4, -0.256052f},      /* offsets 0,0,192,... */
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    pte_error_info err;
    pte_mmap_loader ml;
    CHECK_OK(pte_mmap_loader_open(&ml, test_corpus_path(cases[c].file), PTE_MLOCK_NONE, &err));
    pte_program p;
    CHECK_OK(pte_program_load(&ml.base, PTE_VERIFY_INTERNAL_CONSISTENCY, &p, &err));
    const void *q;
    CHECK_OK(pte_program_constant_data(&p, cases[c].idx, cases[c].nbytes, &q));
    float f;
    memcpy(&f, q, 4);
    CHECK_NEAR(f, cases[c].first, 1e-6);
    pte_program_destroy(&p);
    pte_mmap_loader_close(&ml);
  }
  /* Offsets index and bounds: AddModel's constant segment is 4 bytes with offsets [0, 0]. */
  size_t n;
  uint8_t *d = test_read_corpus("arduino_AddModel.pte", &n);
  CHECK(d);
  pte_buffer_loader bl;
  pte_buffer_loader_init(&bl, d, n);
  pte_program p;
  CHECK_OK(pte_program_load(&bl.base, PTE_VERIFY_MINIMAL, &p, NULL));
  const void *q;
  CHECK_OK(pte_program_constant_data(&p, 1, 4, &q));
  CHECK(q == d + 1152); /* buffer loader: a view of the segment at base 1152 */
  CHECK_STATUS(pte_program_constant_data(&p, 1, 5, &q), PTE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(pte_program_constant_data(&p, 2, 0, &q), PTE_ERR_INVALID_ARGUMENT);
  pte_program_destroy(&p);
  /* A program without constants answers InvalidArgument for any index. */
  free(d);
  d = test_read_corpus("apple_tests_add.pte", &n);
  CHECK(d);
  pte_buffer_loader_init(&bl, d, n);
  CHECK_OK(pte_program_load(&bl.base, PTE_VERIFY_INTERNAL_CONSISTENCY, &p, NULL));
  CHECK_STATUS(pte_program_constant_data(&p, 1, 0, &q), PTE_ERR_INVALID_ARGUMENT);
  pte_program_destroy(&p);
  free(d);
}

TEST(segment_table_and_load_segment) {
  size_t n;
  uint8_t *d = test_read_corpus("numpyrt_quantized.pte", &n);
  CHECK(d);
  pte_buffer_loader bl;
  pte_buffer_loader_init(&bl, d, n);
  pte_program p;
  CHECK_OK(pte_program_load(&bl.base, PTE_VERIFY_INTERNAL_CONSISTENCY, &p, NULL));
  /* MANIFEST: (off 0, size 0), (off 0, size 1088), (off 1152, size 64), (off 1280, size 32) */
  static const uint64_t want[4][2] = {{0, 0}, {0, 1088}, {1152, 64}, {1280, 32}};
  for (size_t i = 0; i < 4; i++) {
    uint64_t off, size;
    CHECK_OK(pte_program_segment(&p, i, &off, &size));
    CHECK_EQ_INT(off, want[i][0]);
    CHECK_EQ_INT(size, want[i][1]);
  }
  /* Segment 1 is the XNNPACK delegate blob: 4 zero bytes then "XH00". */
  pte_freeable_buffer b;
  CHECK_OK(pte_program_load_segment(&p, 1, NULL, &b));
  CHECK_EQ_INT(b.size, 1088);
  CHECK(b.data == d + 1280);
  CHECK(memcmp((const uint8_t *)b.data + 4, "XH00", 4) == 0);
  pte_freeable_buffer_free(&b);
  CHECK_STATUS(pte_program_load_segment(&p, 4, NULL, &b), PTE_ERR_NOT_FOUND);
  CHECK_STATUS(pte_program_load_segment(&p, 1, NULL, NULL), PTE_ERR_INVALID_ARGUMENT);
  pte_program_destroy(&p);
  free(d);

  /* djl_stress_mlp: 23 segments, the first two (0, 65544) and (65664, 640); the constant
   * segment (segment 0) was loaded: offsets [0, 0, 65536]. */
  pte_error_info err;
  pte_file_loader fl;
  CHECK_OK(pte_file_loader_open(&fl, test_corpus_path("djl_stress_mlp.pte"), 0, &err));
  CHECK_OK(pte_program_load(&fl.base, PTE_VERIFY_INTERNAL_CONSISTENCY, &p, &err));
  uint64_t off, size;
  CHECK_OK(pte_program_segment(&p, 0, &off, &size));
  CHECK_EQ_INT(off, 0);
  CHECK_EQ_INT(size, 65544);
  CHECK_OK(pte_program_segment(&p, 1, &off, &size));
  CHECK_EQ_INT(off, 65664);
  CHECK_EQ_INT(size, 640);
  const void *q;
  CHECK_OK(pte_program_constant_data(&p, 2, 8, &q));
  CHECK_STATUS(pte_program_constant_data(&p, 2, 9, &q), PTE_ERR_INVALID_ARGUMENT);
  pte_program_destroy(&p);
  pte_file_loader_close(&fl);
}

TEST(program_named_data_map) {
  size_t n;
  uint8_t *d = test_read_corpus("numpyrt_quantized.pte", &n);
  CHECK(d);
  pte_buffer_loader bl;
  pte_buffer_loader_init(&bl, d, n);
  pte_program p;
  CHECK_OK(pte_program_load(&bl.base, PTE_VERIFY_INTERNAL_CONSISTENCY, &p, NULL));
  const pte_named_data_map *m = pte_program_named_data_map(&p);
  CHECK(m != NULL);
  uint32_t nk = 0;
  CHECK_OK(pte_named_data_map_num_keys(m, &nk));
  CHECK_EQ_INT(nk, 2);
  const char *k0 = NULL, *k1 = NULL;
  CHECK_OK(pte_named_data_map_get_key(m, 0, &k0));
  CHECK_OK(pte_named_data_map_get_key(m, 1, &k1));
  CHECK_STATUS(pte_named_data_map_get_key(m, 2, &k1), PTE_ERR_INVALID_ARGUMENT);
  CHECK(strncmp(k0, "f12ea8fa6bc2", 12) == 0); /* -> seg 2 (64 B) */
  CHECK(strncmp(k1, "c789246d4ce1", 12) == 0); /* -> seg 3 (32 B) */
  CHECK_EQ_INT(strlen(k0), 64);                 /* sha256 hex */
  pte_freeable_buffer b;
  CHECK_OK(pte_named_data_map_get_data(m, k0, &b));
  CHECK_EQ_INT(b.size, 64);
  CHECK(b.data == d + 1280 + 1152);
  pte_freeable_buffer_free(&b);
  CHECK_OK(pte_named_data_map_get_data(m, k1, &b));
  CHECK_EQ_INT(b.size, 32);
  CHECK(b.data == d + 1280 + 1280);
  pte_freeable_buffer_free(&b);
  uint8_t buf[64];
  CHECK_OK(pte_named_data_map_load_data_into(m, k1, buf, 32));
  CHECK(memcmp(buf, d + 2560, 32) == 0);
  CHECK_STATUS(pte_named_data_map_load_data_into(m, k1, buf, 31), PTE_ERR_INVALID_ARGUMENT);
  pte_tensor_layout lay;
  CHECK_STATUS(pte_named_data_map_get_tensor_layout(m, k0, &lay), PTE_ERR_NOT_IMPLEMENTED);
  CHECK_STATUS(pte_named_data_map_get_data(m, "missing", &b), PTE_ERR_NOT_FOUND);
  CHECK_STATUS(pte_named_data_map_load_data_into(m, "missing", buf, 1), PTE_ERR_NOT_FOUND);
  pte_program_destroy(&p);
  free(d);
}

TEST(mutable_data_subsegments) {
  size_t n;
  uint8_t *d = test_read_corpus("dnf_test_dnf_executorch1.pte", &n);
  CHECK(d);
  pte_buffer_loader bl;
  pte_buffer_loader_init(&bl, d, n);
  pte_program p;
  CHECK_OK(pte_program_load(&bl.base, PTE_VERIFY_INTERNAL_CONSISTENCY, &p, NULL));
  /* MANIFEST: segment 1 (off 128, size 204), offsets [0, 0, 200]. */
  uint8_t buf[256];
  memset(buf, 0xAA, sizeof buf);
  CHECK_OK(pte_program_load_mutable_into(&p, 0, 2, 4, buf));
  CHECK(memcmp(buf, d + 6784 + 128 + 200, 4) == 0);
  CHECK_EQ_INT(buf[4], 0xAA);
  CHECK_OK(pte_program_load_mutable_into(&p, 0, 1, 204, buf));
  CHECK(memcmp(buf, d + 6784 + 128, 204) == 0);
  CHECK_STATUS(pte_program_load_mutable_into(&p, 0, 2, 5, buf), PTE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(pte_program_load_mutable_into(&p, 0, 3, 1, buf), PTE_ERR_NOT_FOUND);
  CHECK_STATUS(pte_program_load_mutable_into(&p, 1, 0, 1, buf), PTE_ERR_NOT_FOUND);
  pte_program_destroy(&p);
  free(d);
  /* A program without mutable data. */
  d = test_read_corpus("arduino_AddModel.pte", &n);
  CHECK(d);
  pte_buffer_loader_init(&bl, d, n);
  CHECK_OK(pte_program_load(&bl.base, PTE_VERIFY_INTERNAL_CONSISTENCY, &p, NULL));
  CHECK_STATUS(pte_program_load_mutable_into(&p, 0, 0, 0, buf), PTE_ERR_NOT_FOUND);
  pte_program_destroy(&p);
  free(d);
}

TEST(limits_alignment_and_arguments) {
  size_t n;
  uint8_t *d = test_read_corpus("arduino_AddModel.pte", &n);
  CHECK(d);
  pte_buffer_loader bl;
  pte_buffer_loader_init(&bl, d, n);
  pte_program p;
  pte_error_info err;
  pte_program_limits lim = {1155};
  CHECK_STATUS(pte_program_load_with_limits(&bl.base, PTE_VERIFY_MINIMAL, &lim, &p, &err), PTE_ERR_OUT_OF_RESOURCES);
  CHECK_CONTAINS(err.msg, "1156 bytes, over the limit of 1155");
  lim.max_file_size = 1156;
  CHECK_OK(pte_program_load_with_limits(&bl.base, PTE_VERIFY_INTERNAL_CONSISTENCY, &lim, &p, &err));
  pte_program_destroy(&p);
  /* Program bytes at an address that is not 16-aligned. */
  uint8_t *m = malloc(n + 16);
  CHECK(m);
  memcpy(m + 8, d, n);
  pte_buffer_loader_init(&bl, m + 8, n);
  CHECK_STATUS(pte_program_load(&bl.base, PTE_VERIFY_MINIMAL, &p, &err), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(err.msg, "must be aligned to 16 bytes");
  free(m);
  CHECK_STATUS(pte_program_load(NULL, PTE_VERIFY_MINIMAL, &p, &err), PTE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(pte_program_load(&bl.base, PTE_VERIFY_MINIMAL, NULL, &err), PTE_ERR_INVALID_ARGUMENT);
  pte_buffer_loader_init(&bl, d, n);
  CHECK_STATUS(pte_program_load(&bl.base, (pte_verification)7, &p, &err), PTE_ERR_INVALID_ARGUMENT);
  /* Destroy and queries are safe on a zeroed program. */
  memset(&p, 0, sizeof p);
  pte_program_destroy(&p);
  CHECK_EQ_INT(pte_program_num_methods(&p), 0);
  CHECK(pte_program_method_name(&p, 0) == NULL);
  CHECK(pte_program_named_data_map(&p) == NULL);
  free(d);
}

static double now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

/* Load time with full verification (informational; asserts every repeated load succeeds and stays
 * well under a millisecond-scale bound even in debug/sanitizer builds). */
TEST(load_time) {
  static const char *const files[] = {"arduino_AddModel.pte", "upstream_android_xor.pte", "simple-torch-model.pte",
                                      "dnf_test_dnf_executorch5.pte", "djl_stress_mlp.pte"};
  for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
    size_t n;
    uint8_t *d = test_read_corpus(files[f], &n);
    CHECK(d);
    pte_buffer_loader bl;
    pte_buffer_loader_init(&bl, d, n);
    for (int lv = 0; lv < 2; lv++) {
      const int iters = 200;
      double best = 1e30;
      for (int r = 0; r < 5; r++) {
        double t0 = now_us();
        for (int i = 0; i < iters; i++) {
          pte_program p;
          pte_status s = pte_program_load(&bl.base, (pte_verification)lv, &p, NULL);
          if (s != PTE_OK) {
            free(d);
            CHECK_OK(s);
          }
          pte_program_destroy(&p);
        }
        double t = (now_us() - t0) / iters;
        if (t < best) best = t;
      }
      printf("  load %-32s %-9s %8.2f us\n", files[f], lv ? "internal" : "minimal", best);
      CHECK_MSG(best < 20000.0, "%s: %.1f us per load", files[f], best);
    }
    free(d);
  }
}

int main(void) {
  RUN(corpus_loads_with_buffer_loader_both_levels);
  RUN(corpus_loads_with_file_and_mmap_loaders);
  RUN(method_names_of_multi_method_programs);
  RUN(inline_constant_buffer_values);
  RUN(segment_constants);
  RUN(segment_table_and_load_segment);
  RUN(program_named_data_map);
  RUN(mutable_data_subsegments);
  RUN(limits_alignment_and_arguments);
  RUN(load_time);
  return test_summary();
}
