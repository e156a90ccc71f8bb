/* XNNPACK backend: header/sha256 facts, every corpus XnnpackBackend delegate run directly against
 * the naive reference evaluator (several inputs, every ISA this CPU has, 1 and 2 threads),
 * dynamic re-planning, and init-time rejection of bad blobs. */
#include "test_xnnpack_util.h"

/* ---- sha256 and header ------------------------------------------------------------------------ */

TEST(sha256_vectors) {
  char hex[65];
  pte_sha256_hex("", 0, hex);
  CHECK_STR(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  pte_sha256_hex("abc", 3, hex);
  CHECK_STR(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  const char *m = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
  pte_sha256_hex(m, strlen(m), hex);
  CHECK_STR(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  /* one million 'a' fed in uneven pieces */
  pte_sha256_ctx c;
  pte_sha256_init(&c);
  char chunk[977];
  memset(chunk, 'a', sizeof chunk);
  size_t left = 1000000;
  while (left) {
    size_t k = left < sizeof chunk ? left : sizeof chunk;
    pte_sha256_update(&c, chunk, k);
    left -= k;
  }
  uint8_t dg[32];
  pte_sha256_final(&c, dg);
  CHECK_EQ_INT(dg[0], 0xcd);
  CHECK_EQ_INT(dg[1], 0xc7);
  CHECK_EQ_INT(dg[31], 0xd0);
}

/* The exporter's named-data keys are the sha256 of the bytes: check on a real file. */
TEST(corpus_named_keys_are_sha256) {
  xt_prog p;
  if (!xt_open(&p, "djl_spike_conv.pte")) return;
  const pte_named_data_map *m = pte_program_named_data_map(&p.prog);
  CHECK(m != NULL);
  uint32_t n = 0;
  CHECK_OK(pte_named_data_map_num_keys(m, &n));
  CHECK_EQ_INT(n, 2);
  for (uint32_t i = 0; i < n; i++) {
    const char *key;
    CHECK_OK(pte_named_data_map_get_key(m, i, &key));
    pte_freeable_buffer b;
    CHECK_OK(pte_named_data_map_get_data(m, key, &b));
    char hex[65];
    pte_sha256_hex(b.data, b.size, hex);
    pte_freeable_buffer_free(&b);
    CHECK_STR(hex, key);
  }
  xt_close(&p);
}

TEST(header_parse) {
  xt_prog p;
  if (!xt_open(&p, "numpyrt_add.pte")) return;
  pte_freeable_buffer b;
  CHECK(xt_blob(&p, 0, 0, &b));
  pte_xnn_header h;
  CHECK_OK(pte_xnn_parse_header(b.data, b.size, &h, NULL));
  CHECK(h.present);
  CHECK_EQ_INT(h.header_length, 30);
  CHECK_EQ_INT(h.flatbuffer_offset, 32);
  CHECK_EQ_INT(h.flatbuffer_size, 392);
  CHECK_EQ_INT(h.constant_data_offset, 432);
  CHECK_EQ_INT(h.constant_data_size, 0);
  CHECK_EQ_INT(b.size, 432);
  uint8_t *copy = (uint8_t *)malloc(b.size);
  memcpy(copy, b.data, b.size);
  pte_error_info err;
  /* constant region past the end */
  copy[22] = 0x40;
  CHECK_STATUS(pte_xnn_parse_header(copy, b.size, &h, &err), PTE_ERR_INVALID_PROGRAM);
  CHECK_CONTAINS(err.msg, "constant data");
  copy[22] = 0;
  /* flatbuffer overlapping the constant region */
  copy[22] = 8;
  copy[18] = (uint8_t)(400 & 0xFF);
  copy[19] = (uint8_t)(400 >> 8);
  CHECK_STATUS(pte_xnn_parse_header(copy, b.size, &h, &err), PTE_ERR_INVALID_PROGRAM);
  CHECK_CONTAINS(err.msg, "overlaps");
  memcpy(copy, b.data, b.size);
  /* flatbuffer size beyond the blob */
  copy[14] = 0xFF;
  copy[15] = 0xFF;
  CHECK_STATUS(pte_xnn_parse_header(copy, b.size, &h, &err), PTE_ERR_INVALID_PROGRAM);
  memcpy(copy, b.data, b.size);
  /* no XH00: a bare flatbuffer */
  copy[5] = 'Q';
  CHECK_OK(pte_xnn_parse_header(copy, b.size, &h, NULL));
  CHECK(!h.present);
  CHECK_EQ_INT(h.flatbuffer_size, b.size);
  CHECK_STATUS(pte_xnn_parse_header(copy, 20, &h, &err), PTE_ERR_INVALID_ARGUMENT);
  free(copy);
  pte_freeable_buffer_free(&b);
  xt_close(&p);
}

/* ---- corpus files ----------------------------------------------------------------------------- */

static void check_corpus(const char *file, const size_t (*shapes)[6], double rel) {
  xt_prog p;
  if (!xt_open(&p, file)) return;
  const pte_named_data_map *ndm = pte_program_named_data_map(&p.prog);
  size_t nd = xt_num_delegates(&p, 0);
  CHECK(nd > 0);
  for (size_t i = 0; i < nd; i++) {
    pte_freeable_buffer b;
    CHECK(xt_blob(&p, 0, i, &b));
    char what[128];
    snprintf(what, sizeof what, "%s delegate %zu", file, i);
    bool ok = xt_check_blob((const uint8_t *)b.data, b.size, ndm, shapes, 3, rel, what);
    pte_freeable_buffer_free(&b);
    if (!ok) break;
  }
  xt_close(&p);
}

TEST(corpus_numpyrt_add) { check_corpus("numpyrt_add.pte", NULL, 1e-5); }
TEST(corpus_djl_spike_add) { check_corpus("djl_spike_add.pte", NULL, 1e-5); }
TEST(corpus_djl_spike_add_unplanned) { check_corpus("djl_spike_add_unplanned.pte", NULL, 1e-5); }
TEST(corpus_djl_spike_clamp5) { check_corpus("djl_spike_clamp5.pte", NULL, 1e-5); }
TEST(corpus_djl_spike_conv) { check_corpus("djl_spike_conv.pte", NULL, 1e-5); }
TEST(corpus_djl_spike_lin129) { check_corpus("djl_spike_lin129.pte", NULL, 1e-5); }
TEST(corpus_djl_spike_lin129_planned) { check_corpus("djl_spike_lin129_planned.pte", NULL, 1e-5); }
TEST(corpus_djl_stress_mlp) { check_corpus("djl_stress_mlp.pte", NULL, 1e-5); }
TEST(corpus_numpyrt_quantized) { check_corpus("numpyrt_quantized.pte", NULL, 1e-5); }

TEST(corpus_numpyrt_dynamic) {
  /* x * c with x of 8, then 3, then 1 elements: one delegate, re-planned each time */
  xt_prog p;
  if (!xt_open(&p, "numpyrt_dynamic.pte")) return;
  pte_freeable_buffer b;
  CHECK(xt_blob(&p, 0, 0, &b));
  static const size_t s8[3][6] = {{8}, {1}, {0}}, s3[3][6] = {{3}, {1}, {0}}, s1[3][6] = {{1}, {1}, {0}};
  bool ok = xt_check_blob((const uint8_t *)b.data, b.size, NULL, s8, 2, 1e-5, "dynamic n=8") &&
            xt_check_blob((const uint8_t *)b.data, b.size, NULL, s3, 2, 1e-5, "dynamic n=3") &&
            xt_check_blob((const uint8_t *)b.data, b.size, NULL, s1, 2, 1e-5, "dynamic n=1");
  CHECK(ok);
  /* one delegate, shapes changing between calls */
  pte_xnn_delegate *d;
  CHECK_OK(pte_xnn_delegate_init(b.data, b.size, NULL, NULL, &d, NULL));
  CHECK(xt_run_once(d, (const uint8_t *)b.data, b.size, NULL, s3, 1e-5, "n=3"));
  CHECK(xt_run_once(d, (const uint8_t *)b.data, b.size, NULL, s8, 1e-5, "n=8"));
  CHECK(xt_run_once(d, (const uint8_t *)b.data, b.size, NULL, s1, 1e-5, "n=1"));
  pte_xnn_delegate_destroy(d);
  pte_freeable_buffer_free(&b);
  xt_close(&p);
}

TEST(corpus_simple_torch_model) {
  xt_prog p;
  if (!xt_open(&p, "simple-torch-model.pte")) return;
  const pte_named_data_map *ndm = pte_program_named_data_map(&p.prog);
  pte_freeable_buffer b0, b1;
  CHECK(xt_blob(&p, 0, 0, &b0));
  CHECK(xt_blob(&p, 0, 1, &b1));
  /* delegate 0: dynamic [1, 1, H, W] image through transpose, depthwise, conv, global pool */
  static const size_t a[2][6] = {{1, 1, 16, 20}, {0}}, c[2][6] = {{1, 1, 33, 17}, {0}}, e[2][6] = {{1, 1, 5, 5}, {0}};
  CHECK(xt_check_blob((const uint8_t *)b0.data, b0.size, ndm, a, 2, 1e-5, "simple-torch-model d0 16x20"));
  CHECK(xt_check_blob((const uint8_t *)b0.data, b0.size, ndm, c, 1, 1e-5, "simple-torch-model d0 33x17"));
  CHECK(xt_check_blob((const uint8_t *)b0.data, b0.size, ndm, e, 1, 1e-5, "simple-torch-model d0 5x5"));
  /* delegate 1: the classifier */
  CHECK(xt_check_blob((const uint8_t *)b1.data, b1.size, ndm, NULL, 3, 1e-5, "simple-torch-model d1"));
  /* the full declared size once, on the best ISA */
  pte_xnn_delegate *d;
  CHECK_OK(pte_xnn_delegate_init(b0.data, b0.size, ndm, NULL, &d, NULL));
  static const size_t full[2][6] = {{1, 1, 256, 200}, {0}};
  CHECK(xt_run_once(d, (const uint8_t *)b0.data, b0.size, ndm, full, 1e-5, "simple-torch-model d0 256x200"));
  CHECK(xt_run_once(d, (const uint8_t *)b0.data, b0.size, ndm, NULL, 1e-5, "simple-torch-model d0 1024x1024"));
  pte_xnn_delegate_destroy(d);
  pte_freeable_buffer_free(&b0);
  pte_freeable_buffer_free(&b1);
  xt_close(&p);
}

/* ---- bad blobs -------------------------------------------------------------------------------- */

static pte_status try_init(const uint8_t *blob, size_t size, const pte_named_data_map *ndm, pte_error_info *err) {
  pte_xnn_delegate *d = NULL;
  memset(err, 0, sizeof *err);
  pte_status s = pte_xnn_delegate_init(blob, size, ndm, NULL, &d, err);
  if (s == PTE_OK) pte_xnn_delegate_destroy(d);
  else if (d) test_fail(__FILE__, __LINE__, "handle set on failure");
  return s;
}

TEST(bad_magic_and_truncation) {
  xt_prog p;
  if (!xt_open(&p, "djl_spike_lin129.pte")) return;
  const pte_named_data_map *ndm = pte_program_named_data_map(&p.prog);
  pte_freeable_buffer b;
  CHECK(xt_blob(&p, 0, 0, &b));
  uint8_t *c = (uint8_t *)malloc(b.size);
  pte_error_info err;
  memcpy(c, b.data, b.size);
  CHECK_OK(try_init(c, b.size, ndm, &err));
  /* wrong graph identifier */
  c[32 + 4] = 'Z';
  CHECK_STATUS(try_init(c, b.size, ndm, &err), PTE_ERR_DELEGATE_INVALID_COMPATIBILITY);
  CHECK_CONTAINS(err.msg, "ZN01");
  /* wrong header magic: the blob is read as a bare flatbuffer whose identifier is "XH0?" */
  memcpy(c, b.data, b.size);
  c[7] = '9';
  CHECK_STATUS(try_init(c, b.size, ndm, &err), PTE_ERR_DELEGATE_INVALID_COMPATIBILITY);
  CHECK_CONTAINS(err.msg, "XH09");
  /* truncated: the header claims more graph than the blob has */
  memcpy(c, b.data, b.size);
  CHECK_STATUS(try_init(c, 300, ndm, &err), PTE_ERR_INVALID_PROGRAM);
  /* truncated graph: a shorter flatbuffer region cuts tables off */
  for (uint32_t cut = 16; cut < 600; cut += 56) {
    memcpy(c, b.data, b.size);
    c[14] = (uint8_t)cut;
    c[15] = (uint8_t)(cut >> 8);
    CHECK_STATUS(try_init(c, b.size, ndm, &err), PTE_ERR_INVALID_PROGRAM);
  }
  /* every single-byte corruption of the graph must be rejected or run cleanly: never crash */
  for (size_t i = 32; i < 32 + 672; i++) {
    memcpy(c, b.data, b.size);
    c[i] ^= 0x5A;
    (void)try_init(c, b.size, ndm, &err);
  }
  /* tiny blobs */
  CHECK_STATUS(try_init(c, 10, ndm, &err), PTE_ERR_INVALID_ARGUMENT);
  /* named key absent */
  CHECK_STATUS(try_init(b.data, b.size, NULL, &err), PTE_ERR_NOT_FOUND);
  CHECK_CONTAINS(err.msg, "79ecd561afb8");
  free(c);
  pte_freeable_buffer_free(&b);
  xt_close(&p);
}

/* Random multi-byte corruption of real blobs: init must fail cleanly or produce a delegate that
 * executes (or refuses the inputs) without touching memory it does not own. */
static void fuzz_blob(const char *file, size_t del, int iters) {
  xt_prog p;
  if (!xt_open(&p, file)) return;
  const pte_named_data_map *ndm = pte_program_named_data_map(&p.prog);
  pte_freeable_buffer b;
  if (!xt_blob(&p, 0, del, &b)) {
    test_fail(__FILE__, __LINE__, "no blob");
    xt_close(&p);
    return;
  }
  uint8_t *c = (uint8_t *)malloc(b.size);
  uint32_t rng = 99;
  int inited = 0;
  for (int it = 0; it < iters; it++) {
    memcpy(c, b.data, b.size);
    int flips = 1 + it % 4;
    for (int f = 0; f < flips; f++) {
      rng = rng * 1103515245u + 12345u;
      size_t pos = 32 + (rng >> 8) % (b.size - 32);
      rng = rng * 1103515245u + 12345u;
      c[pos] = (uint8_t)(rng >> 16);
    }
    pte_xnn_delegate *d = NULL;
    pte_error_info err;
    if (pte_xnn_delegate_init(c, b.size, ndm, NULL, &d, &err) != PTE_OK) continue;
    inited++;
    xt_ext ext[16];
    size_t n = xt_graph_io(c, b.size, ext, 16);
    bool small = true;
    for (size_t i = 0; i < n; i++)
      if (ext[i].rank > 6 || xt_numel_of(ext[i].dims, ext[i].rank) > (1u << 22)) small = false;
    if (!small) { /* declared tensors too large to hand over: init alone was the test */
      pte_xnn_delegate_destroy(d);
      continue;
    }
    xt_tensor ts[16];
    pte_evalue *args[16];
    float *bufs[16] = {0};
    for (size_t i = 0; i < n; i++) {
      size_t cnt = xt_numel_of(ext[i].dims, ext[i].rank);
      bufs[i] = (float *)calloc(cnt + 16, sizeof(float));
      size_t dims[6];
      memcpy(dims, ext[i].dims, sizeof dims);
      xt_tensor_init(&ts[i], PTE_DTYPE_FLOAT, ext[i].rank, dims, bufs[i], cnt * sizeof(float),
                     PTE_SHAPE_DYNAMIC_BOUND);
      args[i] = &ts[i].ev;
    }
    (void)pte_xnn_delegate_execute(d, args, n, &err);
    for (size_t i = 0; i < n; i++) free(bufs[i]);
    pte_xnn_delegate_destroy(d);
  }
  (void)inited;
  free(c);
  pte_freeable_buffer_free(&b);
  xt_close(&p);
}

TEST(corrupted_blobs_never_crash) {
  fuzz_blob("djl_spike_conv.pte", 0, 400);
  fuzz_blob("numpyrt_quantized.pte", 0, 400);
  fuzz_blob("djl_stress_mlp.pte", 1, 200);
  fuzz_blob("simple-torch-model.pte", 0, 200);
}

int main(void) {
  RUN(sha256_vectors);
  RUN(corpus_named_keys_are_sha256);
  RUN(header_parse);
  RUN(corpus_numpyrt_add);
  RUN(corpus_djl_spike_add);
  RUN(corpus_djl_spike_add_unplanned);
  RUN(corpus_djl_spike_clamp5);
  RUN(corpus_djl_spike_conv);
  RUN(corpus_djl_spike_lin129);
  RUN(corpus_djl_spike_lin129_planned);
  RUN(corpus_djl_stress_mlp);
  RUN(corpus_numpyrt_quantized);
  RUN(corpus_numpyrt_dynamic);
  RUN(corpus_simple_torch_model);
  RUN(bad_magic_and_truncation);
  RUN(corrupted_blobs_never_crash);
  return test_summary();
}
