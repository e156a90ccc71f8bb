#define _POSIX_C_SOURCE 200809L
/* test_prepare.c — pte prepare: envelope, backend hook contract, coordinator (patch and rebuild
 * paths), compaction, staleness, corpus pass-through, event tracer. Fault injection and crash
 * tests live in test_prepare_faults.c. */
#include <stdlib.h>
#include <string.h>

#include "format/flatbuf.h"
#include "packing_backend.h"
#include "pte/backend_xnnpack.h"
#include "pte/io.h"
#include "pte/prepare.h"
#include "pte/program.h"
#include "pte_gen/program_gen.h"
#include "test.h"

static uint8_t g_temp_mem[8 << 20];

/* read_back over a memory writer */
static pte_status mem_read_back(void *ctx, uint64_t off, void *dst, size_t n, pte_error_info *err) {
  size_t size = 0;
  const uint8_t *d = pte_memory_writer_data((const pte_memory_writer *)ctx, &size);
  if (off > size || n > size - off) return pte_error_set(err, PTE_ERR_ACCESS_FAILED, "read back out of range");
  memcpy(dst, d + off, n);
  return PTE_OK;
}

/* 0: as given; 1: force speculative placement on (read_back over the memory writer) */
static int g_speculate;

/* Prepares bytes into a heap copy (*out, 64-aligned, free()). */
static pte_status prep_mem(const uint8_t *in, size_t in_size, const pte_prepare_options *opt_in,
                           pte_prepare_report *rep, pte_error_info *err, uint8_t **out, size_t *out_size,
                           pte_event_tracer *tracer) {
  pte_buffer_loader bl;
  pte_buffer_loader_init(&bl, in, in_size);
  pte_memory_writer mw;
  pte_memory_writer_init(&mw, pte_heap_realloc, NULL, 0);
  pte_allocator temp;
  pte_allocator_init(&temp, g_temp_mem, sizeof g_temp_mem);
  pte_prepare_options opt;
  if (opt_in) opt = *opt_in;
  else memset(&opt, 0, sizeof opt);
  if (g_speculate) {
    opt.read_back = mem_read_back;
    opt.read_back_ctx = &mw;
  }
  pte_status s = pte_initialize_and_save_backend_data_ex(&bl.base, &mw.base, &temp, tracer, &opt, rep, err);
  *out = NULL;
  *out_size = 0;
  if (s == PTE_OK) {
    if (!pte_memory_writer_published(&mw)) s = PTE_ERR_INTERNAL;
    size_t n = 0;
    const uint8_t *d = pte_memory_writer_data(&mw, &n);
    *out = (uint8_t *)aligned_alloc(64, (n + 127) / 64 * 64);
    memcpy(*out, d, n);
    *out_size = n;
  } else if (pte_memory_writer_published(&mw)) {
    s = PTE_ERR_INTERNAL; /* never published on failure */
  }
  pte_data_writer_destroy(&mw.base);
  return s;
}

static void input_vec(float *x, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) x[i] = (float)((int)(i % 7) - 3) / 4.0f;
}

static const packing_layer k_named2[2] = {{true, -1}, {true, -1}};
static const packing_layer k_inline2[2] = {{false, -1}, {false, -1}};

/* ---- envelope -------------------------------------------------------------------------------- */

TEST(envelope_layout_and_parse) {
  uint8_t blob[128 + 16];
  pte_error_info err;
  CHECK_OK(pte_prepared_envelope_header(blob, "XnnpackBackend", 2, "avx512/tile 8x16", 16, 16, &err));
  memset(blob + 128, 0xab, 16);
  CHECK(memcmp(blob, "PTEP", 4) == 0);
  CHECK_EQ_INT(blob[4], 1);
  CHECK(memcmp(blob + 8, "XnnpackBackend\0\0", 16) == 0);
  CHECK_EQ_INT(blob[40], 2);
  CHECK_EQ_INT(blob[44], 16);
  CHECK(memcmp(blob + 48, "avx512/tile 8x16", 16) == 0);
  CHECK_EQ_INT(blob[80], 128);
  CHECK_EQ_INT(blob[88], 16);
  for (int i = 96; i < 128; i++) CHECK_EQ_INT(blob[i], 0);
  pte_prepared_info pi;
  CHECK_OK(pte_prepared_envelope_parse(blob, sizeof blob, &pi, &err));
  CHECK_STR(pi.backend_id, "XnnpackBackend");
  CHECK_EQ_INT(pi.format_version, 2);
  CHECK_EQ_INT(pi.fingerprint_size, 16);
  CHECK_EQ_INT(pi.payload_offset, 128);
  CHECK_EQ_INT(pi.payload_size, 16);
  CHECK(pi.payload == blob + 128);
  /* exact match */
  CHECK_OK(pte_prepared_envelope_check(blob, sizeof blob, "XnnpackBackend", 2, "avx512/tile 8x16", 16, &pi, &err));
  /* another device */
  CHECK_STATUS(pte_prepared_envelope_check(blob, sizeof blob, "XnnpackBackend", 2, "avx2/tile 6x16", 14, NULL, &err),
               PTE_ERR_DELEGATE_INVALID_COMPATIBILITY);
  CHECK_CONTAINS(err.msg, "prepared for XnnpackBackend format 2 on 'avx512/tile 8x16', this machine is 'avx2/tile 6x16'");
  CHECK_CONTAINS(err.msg, "another device");
  /* another format version */
  CHECK_STATUS(pte_prepared_envelope_check(blob, sizeof blob, "XnnpackBackend", 3, "avx512/tile 8x16", 16, NULL, &err),
               PTE_ERR_DELEGATE_INVALID_COMPATIBILITY);
  CHECK_CONTAINS(err.msg, "(XnnpackBackend format 3)");
  CHECK_CONTAINS(err.msg, "another data format");
  /* another backend */
  CHECK_STATUS(pte_prepared_envelope_check(blob, sizeof blob, "VulkanBackend", 2, "avx512/tile 8x16", 16, NULL, &err),
               PTE_ERR_DELEGATE_INVALID_COMPATIBILITY);
  CHECK_CONTAINS(err.msg, "another backend");
  /* portable data */
  static const uint8_t portable[200] = {1, 2, 3};
  CHECK_STATUS(pte_prepared_envelope_check(portable, sizeof portable, "XnnpackBackend", 2, "x", 1, NULL, &err),
               PTE_ERR_NOT_FOUND);
  /* truncated / malformed */
  CHECK_STATUS(pte_prepared_envelope_parse(blob, 100, &pi, &err), PTE_ERR_INVALID_PROGRAM);
  CHECK_STATUS(pte_prepared_envelope_parse(blob, 128 + 15, &pi, &err), PTE_ERR_INVALID_PROGRAM);
  CHECK_CONTAINS(err.msg, "does not fit");
  uint8_t bad[sizeof blob];
  memcpy(bad, blob, sizeof blob);
  bad[44] = 33;
  CHECK_STATUS(pte_prepared_envelope_parse(bad, sizeof bad, &pi, &err), PTE_ERR_INVALID_PROGRAM);
  memcpy(bad, blob, sizeof blob);
  bad[80] = 96; /* payload inside the header */
  CHECK_STATUS(pte_prepared_envelope_parse(bad, sizeof bad, &pi, &err), PTE_ERR_INVALID_PROGRAM);
  memcpy(bad, blob, sizeof blob);
  bad[4] = 2; /* a newer envelope version */
  CHECK_STATUS(pte_prepared_envelope_parse(bad, sizeof bad, &pi, &err), PTE_ERR_DELEGATE_INVALID_COMPATIBILITY);
  CHECK_CONTAINS(err.msg, "envelope version 2");
  /* header argument checks */
  CHECK_STATUS(pte_prepared_envelope_header(bad, "ABackendIdThatIsWayTooLongForIt32", 1, NULL, 0, 0, &err),
               PTE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(pte_prepared_envelope_header(bad, "B", 1, blob, 33, 0, &err), PTE_ERR_INVALID_ARGUMENT);
}

TEST(envelope_binary_fingerprint_and_describe) {
  uint8_t blob[256];
  memset(blob, 0, sizeof blob);
  const uint8_t fp[3] = {0x01, 0xff, 0x10};
  CHECK_OK(pte_prepared_envelope_header(blob, "Npu", 7, fp, 3, 100, NULL));
  pte_error_info err;
  CHECK_STATUS(pte_prepared_envelope_check(blob, sizeof blob, "Npu", 7, "\x01\xff\x11", 3, NULL, &err),
               PTE_ERR_DELEGATE_INVALID_COMPATIBILITY);
  CHECK_CONTAINS(err.msg, "on 0x01ff10, this machine is 0x01ff11");
  char buf[200];
  /* header only: payload not available, size checked against the total */
  CHECK_STR(pte_prepared_describe_text(blob, 128, 228, buf, sizeof buf),
            "prepared for Npu format 7 on 0x01ff10 (payload 100 bytes)");
  pte_prepared_info pi;
  CHECK_OK(pte_prepared_describe(blob, 128, 228, &pi));
  CHECK(pi.payload == NULL);
  CHECK_STATUS(pte_prepared_describe(blob, 128, 200, &pi), PTE_ERR_INVALID_PROGRAM);
  CHECK_CONTAINS(pte_prepared_describe_text(blob, 128, 200, buf, sizeof buf), "malformed prepared envelope");
  CHECK_STR(pte_prepared_describe_text("PKW1....", 8, 8, buf, sizeof buf), "portable");
  CHECK_STATUS(pte_prepared_describe("abc", 3, 3, &pi), PTE_ERR_NOT_FOUND);
}

/* ---- the packing backend end to end ------------------------------------------------------------ */

/* Offsets of every DataSegment offset/size field and the header's segment_data_size: the only bytes
 * the in-place patch may change. */
static bool patchable_byte(const uint8_t *fb, size_t fb_size, size_t pos) {
  if (pos >= 32 && pos < 40) return true;
  pte_fb_table root = pte_fb_root(fb, fb_size);
  pte_fb_vec segs = pte_et_Program_segments(root);
  for (uint32_t i = 0; i < segs.len; i++) {
    pte_fb_table t = pte_fb_vec_table(segs, i);
    for (unsigned slot = 0; slot < 2; slot++) {
      uint32_t fp = pte_fb_field_pos(t, slot);
      if (fp && pos >= fp && pos < fp + 8) return true;
    }
  }
  return false;
}

static bool contains(const uint8_t *hay, size_t n, const void *needle, size_t m) {
  for (size_t i = 0; i + m <= n; i++)
    if (memcmp(hay + i, needle, m) == 0) return true;
  return false;
}

TEST(packing_named_weights_prepare) {
  packing_reset();
  CHECK_OK(packing_backend_register());
  packing_model_spec spec = {64, 2, k_named2, 7, false, NULL, false, 0, 0};
  pte_error_info err;
  size_t size = 0;
  uint8_t *in = packing_model_build(&spec, &size, &err);
  CHECK_MSG(in, "build: %s", err.msg);
  uint8_t *orig = (uint8_t *)malloc(size);
  memcpy(orig, in, size);
  float x[64], y0[64], y1[64];
  input_vec(x, 64);
  CHECK_OK(packing_model_run(in, size, 64, x, y0, NULL, &err));
  CHECK_EQ_INT(packing_stats.packs, 2);
  CHECK_EQ_INT(packing_stats.direct, 0);

  pte_prepare_report rep;
  uint8_t *out = NULL;
  size_t out_size = 0;
  CHECK_OK(prep_mem(in, size, NULL, &rep, &err, &out, &out_size, NULL));
  CHECK(memcmp(in, orig, size) == 0); /* input untouched */
  CHECK_EQ_INT(rep.n_backends, 1);
  CHECK_STR(rep.backends[0].id, PACKING_BACKEND_ID);
  CHECK_EQ_INT(rep.backends[0].state, PTE_PREPARE_PREPARED);
  CHECK_EQ_INT(rep.backends[0].n_blobs, 2);
  CHECK_EQ_INT(rep.backends[0].named_replaced, 2);
  CHECK_EQ_INT(rep.backends[0].blobs_replaced, 0);
  /* both 64-byte PKW1 blobs are sealed: stored again in the envelope, so that a runtime reading
   * only PKW1 rejects them instead of reading the packed weights as portable ones */
  CHECK_EQ_INT(rep.backends[0].blobs_sealed, 2);
  CHECK_EQ_INT(rep.backends[0].bytes_before, 2 * 64 * 64 * 4 + 2 * 64);
  CHECK_EQ_INT(rep.backends[0].bytes_after, 2 * (128 + 64 + 64 * 64 * 4) + 2 * (128 + 64));
  CHECK(rep.changed);
  CHECK(!rep.rebuilt);
  CHECK_EQ_INT(rep.size_before, size);
  CHECK_EQ_INT(rep.size_after, out_size);
  CHECK_EQ_INT(rep.bytes_replaced, rep.backends[0].bytes_after);
  CHECK_EQ_INT(rep.bytes_copied + rep.bytes_replaced, out_size);
  /* compaction: the new file is at most the old one plus the replaced values' growth (+ each
   * replaced segment's alignment slack), and no portable copy of the weights remains */
  uint64_t delta = rep.backends[0].bytes_after - rep.backends[0].bytes_before;
  CHECK_MSG(out_size <= size + delta + 2 * 128, "size %zu > %zu + %llu", out_size, size, (unsigned long long)delta);
  float *w0 = packing_weights(&spec, 0), *w1 = packing_weights(&spec, 1);
  CHECK(contains(in, size, w0, 256) && contains(in, size, w1, 256));
  CHECK(!contains(out, out_size, w0, 256));
  CHECK(!contains(out, out_size, w1, 256));
  free(w0);
  free(w1);
  /* only segment offsets/sizes and segment_data_size changed in the flatbuffer region */
  pte_buffer_loader bl;
  pte_buffer_loader_init(&bl, out, out_size);
  pte_program p;
  CHECK_OK(pte_program_load(&bl.base, PTE_VERIFY_INTERNAL_CONSISTENCY, &p, &err));
  size_t fb_size = 0;
  const uint8_t *fb = pte_program_flatbuffer(&p, &fb_size);
  pte_buffer_loader bli;
  pte_buffer_loader_init(&bli, in, size);
  pte_program pin;
  CHECK_OK(pte_program_load(&bli.base, PTE_VERIFY_INTERNAL_CONSISTENCY, &pin, &err));
  size_t fb_in = 0;
  pte_program_flatbuffer(&pin, &fb_in);
  CHECK_EQ_INT(fb_size, fb_in);
  CHECK_EQ_INT(pte_program_get_header(&p)->segment_base_offset, pte_program_get_header(&pin)->segment_base_offset);
  size_t changed = 0;
  for (size_t i = 0; i < fb_size; i++) {
    if (fb[i] == in[i]) continue;
    changed++;
    CHECK_MSG(patchable_byte(fb, fb_size, i), "flatbuffer byte %zu changed outside the segment fields", i);
  }
  CHECK(changed > 0);
  /* segments: keep file order, 128-aligned */
  size_t ns = pte_program_num_segments(&p);
  uint64_t prev = 0;
  for (size_t i = 0; i < ns; i++) {
    uint64_t off = 0, sz = 0;
    CHECK_OK(pte_program_segment(&p, i, &off, &sz));
    CHECK_EQ_INT(off % 128, 0);
    CHECK(off >= prev);
    prev = off + sz;
  }
  /* the named data are envelopes; describe says so */
  const pte_named_data_map *ndm = pte_program_named_data_map(&p);
  pte_freeable_buffer fbuf;
  CHECK_OK(pte_named_data_map_get_data(ndm, "w0", &fbuf));
  char text[200];
  pte_prepared_describe_text(fbuf.data, fbuf.size, fbuf.size, text, sizeof text);
  CHECK_STR(text, "prepared for TestPacking format 3 on 'x86-test/panel 8' (payload 16448 bytes)");
  CHECK_EQ_INT(((uintptr_t)fbuf.data + 128) % 64, 0);
  pte_freeable_buffer_free(&fbuf);
  pte_program_destroy(&p);
  pte_program_destroy(&pin);

  /* load after prepare: no packing, identical outputs */
  packing_reset();
  CHECK_OK(packing_model_run(out, out_size, 64, x, y1, NULL, &err));
  CHECK_EQ_INT(packing_stats.packs, 0);
  CHECK_EQ_INT(packing_stats.direct, 2);
  CHECK(memcmp(y0, y1, sizeof y0) == 0);

  /* preparing a prepared file again changes nothing (byte-identical copy) */
  uint8_t *out2 = NULL;
  size_t out2_size = 0;
  CHECK_OK(prep_mem(out, out_size, NULL, &rep, &err, &out2, &out2_size, NULL));
  CHECK(!rep.changed);
  CHECK_EQ_INT(out2_size, out_size);
  CHECK(memcmp(out, out2, out_size) == 0);

  /* another device: loading the prepared file fails loudly, naming both fingerprints */
  snprintf(packing_fingerprint, sizeof packing_fingerprint, "%s", "arm-test/panel 8");
  CHECK_STATUS(packing_model_run(out, out_size, 64, x, y1, NULL, &err), PTE_ERR_DELEGATE_INVALID_COMPATIBILITY);
  CHECK_CONTAINS(err.msg, "prepared for TestPacking format 3 on 'x86-test/panel 8', this machine is 'arm-test/panel 8'");
  /* and preparing it again for this device refuses (it needs the portable model) */
  free(out2);
  out2 = NULL;
  CHECK_STATUS(prep_mem(out, out_size, NULL, &rep, &err, &out2 /*unused*/, &out2_size, NULL),
               PTE_ERR_DELEGATE_INVALID_COMPATIBILITY);
  CHECK_CONTAINS(err.msg, "backend 'TestPacking' failed to prepare its data");
  /* the portable model still works on the other device */
  CHECK_OK(packing_model_run(in, size, 64, x, y1, NULL, &err));
  CHECK(memcmp(y0, y1, sizeof y0) == 0);
  packing_reset();
  free(out2);
  free(out);
  free(orig);
  free(in);
}

TEST(packing_inline_weights_replace_blob) {
  packing_reset();
  CHECK_OK(packing_backend_register());
  packing_model_spec spec = {40, 2, k_inline2, 3, false, NULL, false, 0, 0};
  pte_error_info err;
  size_t size = 0;
  uint8_t *in = packing_model_build(&spec, &size, &err);
  CHECK_MSG(in, "build: %s", err.msg);
  float x[40], y0[40], y1[40];
  input_vec(x, 40);
  CHECK_OK(packing_model_run(in, size, 40, x, y0, NULL, &err));
  CHECK_EQ_INT(packing_stats.packs, 2);
  pte_prepare_report rep;
  uint8_t *out = NULL;
  size_t out_size = 0;
  CHECK_OK(prep_mem(in, size, NULL, &rep, &err, &out, &out_size, NULL));
  CHECK_EQ_INT(rep.backends[0].blobs_replaced, 2);
  CHECK_EQ_INT(rep.backends[0].named_replaced, 0);
  CHECK(!rep.rebuilt);
  /* 40 rows -> 5 panels: packed = 64 + 40*40*4, envelope + 128; portable blob = 64 + 40*40*4 */
  CHECK_EQ_INT(rep.backends[0].bytes_before, 2 * (64 + 6400));
  CHECK_EQ_INT(rep.backends[0].bytes_after, 2 * (128 + 64 + 6400));
  CHECK(out_size <= size + 2 * 128 + 2 * 128);
  packing_reset();
  CHECK_OK(packing_model_run(out, out_size, 40, x, y1, NULL, &err));
  CHECK_EQ_INT(packing_stats.packs, 0);
  CHECK_EQ_INT(packing_stats.direct, 2);
  CHECK(memcmp(y0, y1, sizeof y0) == 0);
  free(out);
  free(in);
}

TEST(shared_blob_visited_once) {
  packing_reset();
  CHECK_OK(packing_backend_register());
  const packing_layer layers[3] = {{true, -1}, {true, 0}, {false, -1}};
  packing_model_spec spec = {16, 3, layers, 5, false, NULL, false, 0, 0};
  pte_error_info err;
  size_t size = 0;
  uint8_t *in = packing_model_build(&spec, &size, &err);
  CHECK_MSG(in, "build: %s", err.msg);
  float x[16], y0[16], y1[16];
  input_vec(x, 16);
  CHECK_OK(packing_model_run(in, size, 16, x, y0, NULL, &err));
  pte_prepare_report rep;
  uint8_t *out = NULL;
  size_t out_size = 0;
  packing_reset();
  CHECK_OK(prep_mem(in, size, NULL, &rep, &err, &out, &out_size, NULL));
  CHECK_EQ_INT(packing_stats.prepares, 1);      /* the hook runs once per program */
  CHECK_EQ_INT(packing_stats.prepare_blobs, 2); /* 3 delegates, 2 stored blobs */
  CHECK_EQ_INT(packing_stats.temp_used_at_next_max, 0); /* temp allocator reset between blobs */
  CHECK_EQ_INT(rep.backends[0].n_delegates, 3);
  CHECK_EQ_INT(rep.backends[0].n_blobs, 2);
  CHECK_EQ_INT(rep.backends[0].named_replaced, 1);
  CHECK_EQ_INT(rep.backends[0].blobs_replaced, 1);
  packing_reset();
  CHECK_OK(packing_model_run(out, out_size, 16, x, y1, NULL, &err));
  CHECK_EQ_INT(packing_stats.packs, 0);
  CHECK_EQ_INT(packing_stats.direct, 3);
  CHECK(memcmp(y0, y1, sizeof y0) == 0);
  free(out);
  free(in);
}

/* ---- the full-rebuild fallback ------------------------------------------------------------------ */

TEST(rebuild_when_key_shares_segment) {
  packing_reset();
  CHECK_OK(packing_backend_register());
  packing_model_spec spec = {24, 2, k_named2, 11, true, NULL, false, 0, 0};
  pte_error_info err;
  size_t size = 0;
  uint8_t *in = packing_model_build(&spec, &size, &err);
  CHECK_MSG(in, "build: %s", err.msg);
  float x[24], y0[24], y1[24];
  input_vec(x, 24);
  CHECK_OK(packing_model_run(in, size, 24, x, y0, NULL, &err));
  pte_prepare_report rep;
  uint8_t *out = NULL;
  size_t out_size = 0;
  CHECK_OK(prep_mem(in, size, NULL, &rep, &err, &out, &out_size, NULL));
  CHECK(rep.rebuilt);
  CHECK_CONTAINS(rep.rebuild_reason, "replaced named data 'w0' shares segment");
  CHECK_EQ_INT(rep.size_after, out_size);
  packing_reset();
  CHECK_OK(packing_model_run(out, out_size, 24, x, y1, NULL, &err));
  CHECK_EQ_INT(packing_stats.packs, 0);
  CHECK(memcmp(y0, y1, sizeof y0) == 0);
  /* "alias" kept its portable value, "w0" got the prepared one; keys are unchanged */
  pte_buffer_loader bl;
  pte_buffer_loader_init(&bl, out, out_size);
  pte_program p;
  CHECK_OK(pte_program_load(&bl.base, PTE_VERIFY_INTERNAL_CONSISTENCY, &p, &err));
  const pte_named_data_map *ndm = pte_program_named_data_map(&p);
  uint32_t nk = 0;
  CHECK_OK(pte_named_data_map_num_keys(ndm, &nk));
  CHECK_EQ_INT(nk, 3);
  pte_freeable_buffer a, w;
  CHECK_OK(pte_named_data_map_get_data(ndm, "alias", &a));
  CHECK_OK(pte_named_data_map_get_data(ndm, "w0", &w));
  float *w0 = packing_weights(&spec, 0);
  CHECK_EQ_INT(a.size, 24 * 24 * 4);
  CHECK(memcmp(a.data, w0, a.size) == 0);
  CHECK(pte_prepared_is_envelope(w.data, w.size));
  free(w0);
  pte_freeable_buffer_free(&a);
  pte_freeable_buffer_free(&w);
  pte_program_destroy(&p);
  free(out);
  free(in);
}

TEST(forced_rebuild_matches_patch) {
  packing_reset();
  CHECK_OK(packing_backend_register());
  const packing_layer layers[3] = {{true, -1}, {false, -1}, {true, 0}};
  packing_model_spec spec = {32, 3, layers, 13, false, NULL, false, 0, 0};
  pte_error_info err;
  size_t size = 0;
  uint8_t *in = packing_model_build(&spec, &size, &err);
  CHECK_MSG(in, "build: %s", err.msg);
  float x[32], y0[32], y1[32], y2[32];
  input_vec(x, 32);
  CHECK_OK(packing_model_run(in, size, 32, x, y0, NULL, &err));
  pte_prepare_options opt;
  memset(&opt, 0, sizeof opt);
  opt.force_rebuild = true;
  pte_prepare_report rep;
  uint8_t *a = NULL, *b = NULL;
  size_t an = 0, bn = 0;
  CHECK_OK(prep_mem(in, size, &opt, &rep, &err, &a, &an, NULL));
  CHECK(rep.rebuilt);
  CHECK_CONTAINS(rep.rebuild_reason, "forced");
  CHECK_OK(prep_mem(in, size, NULL, &rep, &err, &b, &bn, NULL));
  CHECK(!rep.rebuilt);
  packing_reset();
  CHECK_OK(packing_model_run(a, an, 32, x, y1, NULL, &err));
  CHECK_OK(packing_model_run(b, bn, 32, x, y2, NULL, &err));
  CHECK_EQ_INT(packing_stats.packs, 0);
  CHECK_EQ_INT(packing_stats.direct, 6);
  CHECK(memcmp(y0, y1, sizeof y0) == 0);
  CHECK(memcmp(y0, y2, sizeof y0) == 0);
  free(a);
  free(b);
  free(in);
}

/* A DataSegment whose size field is absent (default 0), as upstream's Python builder writes for
 * empty segments: growing it cannot be patched in place, so prepare rebuilds. The file is made by
 * shortening the (shared) DataSegment vtable of a writer-made file so that every size reads 0. */
TEST(rebuild_when_size_field_absent) {
  packing_reset();
  if (!pte_get_backend("TestPassthrough"))
    CHECK_OK(pte_register_backend("TestPassthrough", pte_prepare_passthrough_backend()));
  CHECK_OK(packing_backend_register());
  const packing_layer layers[1] = {{true, -1}};
  packing_model_spec spec = {8, 1, layers, 1, false, NULL, true, 0, 0};
  pte_error_info err;
  size_t size = 0;
  uint8_t *in = packing_model_build(&spec, &size, &err);
  CHECK_MSG(in, "build: %s", err.msg);
  pte_fb_table root = pte_fb_root(in, size);
  pte_fb_vec segs = pte_et_Program_segments(root);
  CHECK(segs.len >= 2);
  pte_fb_table t0 = pte_fb_vec_table(segs, 0);
  for (uint32_t i = 1; i < segs.len; i++) CHECK_EQ_INT(pte_fb_vec_table(segs, i).vt, t0.vt);
  CHECK_EQ_INT(in[t0.vt], 8);
  in[t0.vt] = 6; /* slot 1 (size) now absent in every DataSegment */
  pte_prepare_options opt;
  memset(&opt, 0, sizeof opt);
  const char *only[1] = {"TestPassthrough"};
  opt.backends = only;
  opt.n_backends = 1;
  pte_prepare_report rep;
  uint8_t *out = NULL;
  size_t out_size = 0;
  CHECK_OK(prep_mem(in, size, &opt, &rep, &err, &out, &out_size, NULL));
  CHECK(rep.rebuilt);
  CHECK_CONTAINS(rep.rebuild_reason, "size field is absent");
  CHECK_EQ_INT(rep.backends[0].state, PTE_PREPARE_SKIPPED);
  CHECK_STR(rep.backends[1].id, "TestPassthrough");
  CHECK_EQ_INT(rep.backends[1].state, PTE_PREPARE_PREPARED);
  pte_buffer_loader bl;
  pte_buffer_loader_init(&bl, out, out_size);
  pte_program p;
  CHECK_OK(pte_program_load(&bl.base, PTE_VERIFY_INTERNAL_CONSISTENCY, &p, &err));
  /* the pass-through delegate's (empty-looking) blob is now an envelope of 0 payload bytes */
  bool found = false;
  for (size_t i = 0; i < pte_program_num_segments(&p); i++) {
    pte_freeable_buffer sb;
    CHECK_OK(pte_program_load_segment(&p, i, NULL, &sb));
    pte_prepared_info pi;
    if (pte_prepared_envelope_check(sb.data, sb.size, "TestPassthrough", 1, "passthrough", 11, &pi, NULL) == PTE_OK) {
      found = true;
      CHECK_EQ_INT(pi.payload_size, 0);
    }
    pte_freeable_buffer_free(&sb);
  }
  CHECK(found);
  pte_program_destroy(&p);
  free(out);
  free(in);
}

/* ---- files the hook never touches: byte-identical -------------------------------------------- */

static void check_identity(const char *name, const uint8_t *in, size_t size) {
  pte_prepare_report rep;
  pte_error_info err;
  uint8_t *out = NULL;
  size_t out_size = 0;
  pte_status s = prep_mem(in, size, NULL, &rep, &err, &out, &out_size, NULL);
  CHECK_MSG(s == PTE_OK, "%s: %s: %s", name, pte_status_name(s), err.msg);
  CHECK_MSG(!rep.changed, "%s changed", name);
  CHECK_EQ_INT(out_size, size);
  CHECK_MSG(memcmp(in, out, size) == 0, "%s: not byte-identical", name);
  CHECK_EQ_INT(rep.bytes_copied, size);
  pte_buffer_loader bl;
  pte_buffer_loader_init(&bl, out, out_size);
  pte_program p;
  CHECK_MSG(pte_program_load(&bl.base, PTE_VERIFY_INTERNAL_CONSISTENCY, &p, &err) == PTE_OK, "%s: %s", name, err.msg);
  pte_program_destroy(&p);
  free(out);
}

TEST(openvino_and_qnn_files_unchanged) {
  CHECK_OK(packing_backend_register());
  size_t size = 0;
  uint8_t *ov = test_read_corpus("djl_openvino_tiny.pte", &size);
  CHECK(ov);
  pte_prepare_report rep;
  pte_error_info err;
  uint8_t *out = NULL;
  size_t out_size = 0;
  CHECK_OK(prep_mem(ov, size, NULL, &rep, &err, &out, &out_size, NULL));
  CHECK_EQ_INT(rep.n_backends, 1);
  CHECK_STR(rep.backends[0].id, "OpenvinoBackend");
  CHECK_EQ_INT(rep.backends[0].state, PTE_PREPARE_NOT_REGISTERED);
  free(out);
  check_identity("djl_openvino_tiny.pte", ov, size);
  /* a QnnBackend file: rename the delegate id in place ("OpenvinoBackend" -> "QnnBackend": the
   * string's length prefix shrinks, a NUL follows the new text) */
  uint8_t *qnn = (uint8_t *)aligned_alloc(64, (size + 63) / 64 * 64);
  memcpy(qnn, ov, size);
  size_t at = 0;
  for (size_t i = 4; i + 15 <= size; i++)
    if (memcmp(qnn + i, "OpenvinoBackend", 15) == 0) at = i;
  CHECK(at);
  CHECK_EQ_INT(qnn[at - 4], 15);
  qnn[at - 4] = 10;
  memcpy(qnn + at, "QnnBackend", 10);
  memset(qnn + at + 10, 0, 5);
  CHECK_OK(prep_mem(qnn, size, NULL, &rep, &err, &out, &out_size, NULL));
  CHECK_STR(rep.backends[0].id, "QnnBackend");
  CHECK_EQ_INT(rep.backends[0].state, PTE_PREPARE_NOT_REGISTERED);
  free(out);
  check_identity("qnn (renamed)", qnn, size);
  free(qnn);
  free(ov);
}

TEST(corpus_files_unchanged) {
  CHECK_OK(packing_backend_register());
  /* XnnpackBackend is not registered here: it has a prepare hook (it packs weights), so its files
   * change; tests/unit/test_xnnpack_prepare.c covers them */
  const char *dir = getenv("PTE_CORPUS");
  CHECK(dir);
  char *list = test_run_capture("ls \"$PTE_CORPUS\" | grep '\\.pte$'", NULL);
  CHECK(list);
  int n = 0;
  for (char *line = strtok(list, "\n"); line; line = strtok(NULL, "\n")) {
    size_t size = 0;
    uint8_t *in = test_read_corpus(line, &size);
    CHECK(in);
    pte_buffer_loader bl;
    pte_buffer_loader_init(&bl, in, size);
    pte_program p;
    pte_error_info err;
    if (pte_program_load(&bl.base, PTE_VERIFY_INTERNAL_CONSISTENCY, &p, &err) != PTE_OK) {
      /* prepare refuses what the loader refuses, with the loader's status */
      uint8_t *out = NULL;
      size_t out_size = 0;
      pte_prepare_report rep;
      pte_status s = prep_mem(in, size, NULL, &rep, &err, &out, &out_size, NULL);
      CHECK_MSG(s != PTE_OK, "%s: prepared a file the loader refuses", line);
      free(in);
      continue;
    }
    pte_program_destroy(&p);
    check_identity(line, in, size);
    if (test_current_failed) {
      free(in);
      free(list);
      return;
    }
    n++;
    free(in);
  }
  free(list);
  CHECK(n >= 30);
}

TEST(backend_filter_skips) {
  packing_reset();
  CHECK_OK(packing_backend_register());
  packing_model_spec spec = {16, 2, k_named2, 2, false, "OpenvinoBackend", false, 0, 0};
  pte_error_info err;
  size_t size = 0;
  uint8_t *in = packing_model_build(&spec, &size, &err);
  CHECK_MSG(in, "build: %s", err.msg);
  pte_prepare_options opt;
  memset(&opt, 0, sizeof opt);
  const char *only[1] = {"SomethingElse"};
  opt.backends = only;
  opt.n_backends = 1;
  pte_prepare_report rep;
  uint8_t *out = NULL;
  size_t out_size = 0;
  CHECK_OK(prep_mem(in, size, &opt, &rep, &err, &out, &out_size, NULL));
  CHECK_EQ_INT(rep.n_backends, 2);
  CHECK_EQ_INT(rep.backends[0].state, PTE_PREPARE_SKIPPED);
  CHECK_STR(rep.backends[1].id, "OpenvinoBackend");
  CHECK_EQ_INT(rep.backends[1].state, PTE_PREPARE_SKIPPED);
  CHECK_EQ_INT(packing_stats.prepares, 0);
  CHECK(!rep.changed);
  CHECK(out_size == size && memcmp(in, out, size) == 0);
  free(out);
  /* the foreign backend's delegate is copied, and prepared files still hold it */
  CHECK_OK(prep_mem(in, size, NULL, &rep, &err, &out, &out_size, NULL));
  CHECK_EQ_INT(rep.backends[0].state, PTE_PREPARE_PREPARED);
  CHECK_EQ_INT(rep.backends[1].state, PTE_PREPARE_NOT_REGISTERED);
  pte_buffer_loader bl;
  pte_buffer_loader_init(&bl, out, out_size);
  pte_program p;
  CHECK_OK(pte_program_load(&bl.base, PTE_VERIFY_INTERNAL_CONSISTENCY, &p, &err));
  CHECK_EQ_INT(pte_program_num_methods(&p), 2);
  pte_program_destroy(&p);
  free(out);
  free(in);
}

/* ---- the hook's contract ------------------------------------------------------------------------ */

TEST(hook_contract_violations) {
  CHECK_OK(packing_backend_register());
  packing_model_spec spec = {16, 2, k_named2, 2, false, NULL, false, 0, 0};
  pte_error_info err;
  size_t size = 0;
  uint8_t *in = packing_model_build(&spec, &size, &err);
  CHECK_MSG(in, "build: %s", err.msg);
  pte_prepare_report rep;
  uint8_t *out = NULL;
  size_t out_size = 0;

  packing_reset();
  packing_mode = PACKING_PREPARE_UNKNOWN_KEY;
  CHECK_STATUS(prep_mem(in, size, NULL, &rep, &err, &out, &out_size, NULL), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(err.msg, "backend 'TestPacking' failed to prepare its data");
  CHECK_CONTAINS(err.msg, "named data 'no-such-key', which the program does not have");

  packing_reset();
  packing_mode = PACKING_PREPARE_NO_ENVELOPE;
  CHECK_STATUS(prep_mem(in, size, NULL, &rep, &err, &out, &out_size, NULL), PTE_ERR_INVALID_STATE);
  CHECK_CONTAINS(err.msg, "before pte_backend_data_set_envelope");

  packing_reset();
  packing_mode = PACKING_PREPARE_BAD_INDEX;
  CHECK_STATUS(prep_mem(in, size, NULL, &rep, &err, &out, &out_size, NULL), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(err.msg, "replaced blob 99, which it was not given");

  packing_reset();
  packing_mode = PACKING_PREPARE_FAIL;
  CHECK_STATUS(prep_mem(in, size, NULL, &rep, &err, &out, &out_size, NULL), PTE_ERR_INVALID_PROGRAM);
  CHECK_CONTAINS(err.msg, "backend 'TestPacking' failed to prepare its data: TestPacking refuses to prepare (test)");

  /* NotSupported after writing: its writes are dropped, the file is copied unchanged */
  packing_reset();
  packing_mode = PACKING_PREPARE_NOT_SUPPORTED_AFTER_WRITE;
  CHECK_OK(prep_mem(in, size, NULL, &rep, &err, &out, &out_size, NULL));
  CHECK_EQ_INT(rep.backends[0].state, PTE_PREPARE_NOT_SUPPORTED);
  CHECK_EQ_INT(rep.backends[0].named_replaced, 0);
  CHECK(!rep.changed);
  CHECK(out_size == size && memcmp(in, out, size) == 0);
  free(out);
  packing_reset();
  free(in);
}

/* A second backend may not replace a key the first one replaced. */
static pte_status greedy_prepare(pte_backend_data_context *ctx, pte_backend_data_output *out) {
  (void)ctx;
  pte_status s = pte_backend_data_set_envelope(out, 1, "g", 1);
  const char *k = "w0";
  pte_prepared_value v = {"zz", 2};
  if (s == PTE_OK) s = pte_write_named_data(out, &k, &v, 1);
  return s;
}
static pte_status no_init(pte_backend_init_context *c, pte_freeable_buffer *p, const pte_compile_spec *s, size_t n,
                          pte_delegate_handle **h) {
  (void)c, (void)p, (void)s, (void)n, (void)h;
  return PTE_ERR_NOT_SUPPORTED;
}
static pte_status no_exec(pte_backend_execution_context *c, pte_delegate_handle *h, pte_evalue **a, size_t n) {
  (void)c, (void)h, (void)a, (void)n;
  return PTE_ERR_NOT_SUPPORTED;
}
static const pte_backend k_greedy = {NULL, no_init, no_exec, NULL, greedy_prepare};

TEST(two_backends_one_key) {
  packing_reset();
  CHECK_OK(packing_backend_register());
  if (!pte_get_backend("Greedy")) CHECK_OK(pte_register_backend("Greedy", &k_greedy));
  packing_model_spec spec = {16, 2, k_named2, 2, false, "Greedy", false, 0, 0};
  pte_error_info err;
  size_t size = 0;
  uint8_t *in = packing_model_build(&spec, &size, &err);
  CHECK_MSG(in, "build: %s", err.msg);
  pte_prepare_report rep;
  uint8_t *out = NULL;
  size_t out_size = 0;
  CHECK_STATUS(prep_mem(in, size, NULL, &rep, &err, &out, &out_size, NULL), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(err.msg, "named data 'w0' was already replaced by backend 'TestPacking'");
  free(in);
}

/* Writes named values in reverse file order with sizes that differ from the originals, so that
 * speculative placement guesses wrong and must move values. */
static pte_status reverse_prepare(pte_backend_data_context *ctx, pte_backend_data_output *out) {
  (void)ctx;
  static uint8_t big[5000], small[300];
  for (size_t i = 0; i < sizeof big; i++) big[i] = (uint8_t)(i * 3 + 1);
  for (size_t i = 0; i < sizeof small; i++) small[i] = (uint8_t)(i * 5 + 2);
  pte_status s = pte_backend_data_set_envelope(out, 9, "rev", 3);
  const char *k2 = "w2", *k1 = "w1", *k0 = "w0";
  pte_prepared_value vb = {big, sizeof big}, vs = {small, sizeof small};
  if (s == PTE_OK) s = pte_write_named_data(out, &k0, &vs, 1);
  if (s == PTE_OK) s = pte_write_named_data(out, &k2, &vb, 1);
  if (s == PTE_OK) s = pte_write_named_data(out, &k0, &vb, 1); /* again: replaces its earlier value */
  if (s == PTE_OK) s = pte_write_named_data(out, &k1, &vs, 1);
  return s;
}
static const pte_backend k_reverse = {NULL, no_init, no_exec, NULL, reverse_prepare};

TEST(speculative_placement_in_and_out_of_order) {
  packing_reset();
  CHECK_OK(packing_backend_register());
  if (!pte_get_backend("Reverse")) CHECK_OK(pte_register_backend("Reverse", &k_reverse));
  const packing_layer layers[3] = {{true, -1}, {true, -1}, {true, -1}};
  packing_model_spec spec = {32, 3, layers, 4, false, NULL, false, 0, 0};
  pte_error_info err;
  size_t size = 0;
  uint8_t *in = packing_model_build(&spec, &size, &err);
  CHECK_MSG(in, "build: %s", err.msg);
  /* in file order (TestPacking): every value written once, at its final offset */
  pte_prepare_report rep;
  uint8_t *a = NULL, *b = NULL;
  size_t an = 0, bn = 0;
  g_speculate = 0;
  CHECK_OK(prep_mem(in, size, NULL, &rep, &err, &a, &an, NULL));
  CHECK_EQ_INT(rep.values_in_place, 0);
  g_speculate = 1;
  CHECK_OK(prep_mem(in, size, NULL, &rep, &err, &b, &bn, NULL));
  /* 3 weights + the 3 blobs sealed at the first write (before any weight is placed): 6 values,
   * none moved */
  CHECK_EQ_INT(rep.values_in_place, 6);
  CHECK_EQ_INT(rep.values_moved, 0);
  CHECK(an == bn && memcmp(a, b, an) == 0);
  free(a);
  free(b);
  /* out of order, with a key written twice: moved values, same bytes as without speculation */
  pte_prepare_options opt;
  memset(&opt, 0, sizeof opt);
  const char *only[1] = {"Reverse"};
  opt.backends = only;
  opt.n_backends = 1;
  packing_model_spec spec2 = {32, 3, layers, 4, false, "Reverse", false, 0, 0};
  free(in);
  in = packing_model_build(&spec2, &size, &err);
  CHECK_MSG(in, "build: %s", err.msg);
  g_speculate = 0;
  CHECK_OK(prep_mem(in, size, &opt, &rep, &err, &a, &an, NULL));
  g_speculate = 1;
  CHECK_OK(prep_mem(in, size, &opt, &rep, &err, &b, &bn, NULL));
  CHECK(rep.values_moved >= 1); /* w2 was placed before w0 and w1 changed size */
  CHECK(an == bn && memcmp(a, b, an) == 0);
  /* and with the rebuild */
  free(b);
  opt.force_rebuild = true;
  CHECK_OK(prep_mem(in, size, &opt, &rep, &err, &b, &bn, NULL));
  CHECK(rep.rebuilt);
  g_speculate = 0;
  pte_buffer_loader bl;
  pte_buffer_loader_init(&bl, b, bn);
  pte_program p;
  CHECK_OK(pte_program_load(&bl.base, PTE_VERIFY_INTERNAL_CONSISTENCY, &p, &err));
  const char *keys[3] = {"w0", "w1", "w2"};
  for (int k = 0; k < 3; k++) {
    pte_freeable_buffer fbuf;
    CHECK_OK(pte_named_data_map_get_data(pte_program_named_data_map(&p), keys[k], &fbuf));
    pte_prepared_info pi;
    CHECK_OK(pte_prepared_envelope_check(fbuf.data, fbuf.size, "Reverse", 9, "rev", 3, &pi, &err));
    CHECK_EQ_INT(pi.payload_size, k == 1 ? 300 : 5000);
    CHECK_EQ_INT(pi.payload[1], k == 1 ? 7 : 4);
    pte_freeable_buffer_free(&fbuf);
  }
  pte_program_destroy(&p);
  g_speculate = 0;
  free(a);
  free(b);
  free(in);
}

/* ---- event tracer, spool file ------------------------------------------------------------------- */

typedef struct rec_tracer {
  pte_event_tracer base;
  char names[16][40];
  int n_begin, n_end;
} rec_tracer;

static uint64_t rt_begin(pte_event_tracer *t, const char *name, int32_t chain, int64_t dh) {
  rec_tracer *r = (rec_tracer *)t;
  (void)chain;
  (void)dh;
  if (r->n_begin < 16) snprintf(r->names[r->n_begin], 40, "%s", name);
  return (uint64_t)++r->n_begin;
}
static void rt_end(pte_event_tracer *t, uint64_t tok) {
  (void)tok;
  ((rec_tracer *)t)->n_end++;
}
static const pte_event_tracer_vtable k_rt_vt = {NULL, rt_begin, rt_end, NULL};

TEST(event_tracer_scopes) {
  packing_reset();
  CHECK_OK(packing_backend_register());
  packing_model_spec spec = {16, 1, k_named2, 2, false, "OpenvinoBackend", false, 0, 0};
  pte_error_info err;
  size_t size = 0;
  uint8_t *in = packing_model_build(&spec, &size, &err);
  CHECK_MSG(in, "build: %s", err.msg);
  rec_tracer rt;
  memset(&rt, 0, sizeof rt);
  rt.base.vt = &k_rt_vt;
  pte_prepare_report rep;
  uint8_t *out = NULL;
  size_t out_size = 0;
  CHECK_OK(prep_mem(in, size, NULL, &rep, &err, &out, &out_size, &rt.base));
  CHECK_EQ_INT(rt.n_begin, 3); /* the one backend with a hook, the write, the publish */
  CHECK_EQ_INT(rt.n_end, 3);
  CHECK_STR(rt.names[0], PACKING_BACKEND_ID);
  CHECK_STR(rt.names[1], "Prepare::write");
  CHECK_STR(rt.names[2], "Prepare::publish");
  free(out);
  free(in);
}

TEST(spool_file_same_output) {
  packing_reset();
  CHECK_OK(packing_backend_register());
  const packing_layer layers[3] = {{true, -1}, {false, -1}, {true, -1}};
  packing_model_spec spec = {48, 3, layers, 21, false, NULL, false, 0, 0};
  pte_error_info err;
  size_t size = 0;
  uint8_t *in = packing_model_build(&spec, &size, &err);
  CHECK_MSG(in, "build: %s", err.msg);
  pte_prepare_report rep;
  uint8_t *a = NULL, *b = NULL;
  size_t an = 0, bn = 0;
  CHECK_OK(prep_mem(in, size, NULL, &rep, &err, &a, &an, NULL));
  pte_prepare_options opt;
  memset(&opt, 0, sizeof opt);
  char dir[1024];
  snprintf(dir, sizeof dir, "%s", test_tmp_path("."));
  opt.spool_dir = dir;
  opt.spool_memory_limit = 1; /* everything goes to the (anonymous) spool file */
  opt.buffer_size = 4096;     /* and through a small stream buffer */
  CHECK_OK(prep_mem(in, size, &opt, &rep, &err, &b, &bn, NULL));
  CHECK_EQ_INT(an, bn);
  CHECK(memcmp(a, b, an) == 0);
  opt.force_rebuild = true;
  free(b);
  CHECK_OK(prep_mem(in, size, &opt, &rep, &err, &b, &bn, NULL));
  CHECK(rep.rebuilt);
  float x[48], y0[48], y1[48];
  input_vec(x, 48);
  CHECK_OK(packing_model_run(a, an, 48, x, y0, NULL, &err));
  CHECK_OK(packing_model_run(b, bn, 48, x, y1, NULL, &err));
  CHECK(memcmp(y0, y1, sizeof y0) == 0);
  char *left = test_run_capture("ls -a \"$PTE_TMP\" | grep -c pte-spool", NULL);
  CHECK(left && atoi(left) == 0);
  free(left);
  free(a);
  free(b);
  free(in);
}

TEST(bad_arguments) {
  pte_error_info err;
  pte_memory_writer mw;
  pte_memory_writer_init(&mw, pte_heap_realloc, NULL, 0);
  CHECK_STATUS(pte_initialize_and_save_backend_data(NULL, &mw.base, NULL, NULL, &err), PTE_ERR_INVALID_ARGUMENT);
  static const uint8_t junk[80] = {0};
  pte_buffer_loader bl;
  pte_buffer_loader_init(&bl, junk, sizeof junk);
  CHECK_STATUS(pte_initialize_and_save_backend_data(&bl.base, NULL, NULL, NULL, &err), PTE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(pte_initialize_and_save_backend_data(&bl.base, &mw.base, NULL, NULL, &err), PTE_ERR_INVALID_PROGRAM);
  CHECK(!pte_memory_writer_published(&mw));
  pte_prepare_options opt;
  memset(&opt, 0, sizeof opt);
  opt.buffer_size = 100;
  CHECK_STATUS(pte_initialize_and_save_backend_data_ex(&bl.base, &mw.base, NULL, NULL, &opt, NULL, &err),
               PTE_ERR_INVALID_ARGUMENT);
  pte_data_writer_destroy(&mw.base);
  CHECK_STR(pte_prepare_backend_state_name(PTE_PREPARE_PREPARED), "prepared");
  CHECK_STR(pte_prepare_backend_state_name(PTE_PREPARE_NOT_REGISTERED), "not registered");
}

int main(void) {
  RUN(envelope_layout_and_parse);
  RUN(envelope_binary_fingerprint_and_describe);
  RUN(packing_named_weights_prepare);
  RUN(packing_inline_weights_replace_blob);
  RUN(shared_blob_visited_once);
  RUN(rebuild_when_key_shares_segment);
  RUN(forced_rebuild_matches_patch);
  RUN(rebuild_when_size_field_absent);
  RUN(openvino_and_qnn_files_unchanged);
  RUN(corpus_files_unchanged);
  RUN(backend_filter_skips);
  RUN(hook_contract_violations);
  RUN(two_backends_one_key);
  RUN(speculative_placement_in_and_out_of_order);
  RUN(event_tracer_scopes);
  RUN(spool_file_same_output);
  RUN(bad_arguments);
  /* every end-to-end test again with speculative placement (read_back available) */
  g_speculate = 1;
  RUN(packing_named_weights_prepare);
  RUN(packing_inline_weights_replace_blob);
  RUN(shared_blob_visited_once);
  RUN(rebuild_when_key_shares_segment);
  RUN(forced_rebuild_matches_patch);
  RUN(rebuild_when_size_field_absent);
  RUN(hook_contract_violations);
  RUN(spool_file_same_output);
  g_speculate = 0;
  return test_summary();
}
