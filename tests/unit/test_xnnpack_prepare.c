#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE 1 /* MAP_ANONYMOUS */
/* XnnpackBackend prepare support: initialize_backend_data stores packed weights (named-data
 * values, or the processed blob of inline-constant exports) in the prepared-data envelope; init
 * then uses them in place (no packing, no copy), refuses data prepared for another ISA with
 * DelegateInvalidCompatibility, or re-lays it out with the repack_prepared runtime spec.
 * Programs are built with the XNNPACK blob builder and the program writer, prepared through
 * pte_prepare_file / pte_initialize_and_save_backend_data, and run through pte_method_load from
 * an mmap'd file; outputs must be bitwise identical before and after. Conv, int8, 4-bit,
 * shared keys, lazy compile, file-backed ranges, streaming, corpus: test_xnnpack_prepare_ops.c. */
#include "test_xnnpack_prepare_util.h"

/* ---- tests ----------------------------------------------------------------------------------- */

TEST(fingerprints) {
  char fp[33];
  CHECK_EQ_INT(pte_xnnpack_fingerprint(PTE_XNN_ISA_SCALAR, fp), 17);
  CHECK_STR(fp, "scalar 4x4 i8 4x8");
  if (pte_xnnpack_isa_supported(PTE_XNN_ISA_AVX2)) {
    pte_xnnpack_fingerprint(PTE_XNN_ISA_AVX2, fp);
    CHECK_STR(fp, "avx2 6x16 i8 4x8");
  }
  if (pte_xnnpack_isa_supported(PTE_XNN_ISA_AVX512)) {
    pte_xnnpack_fingerprint(PTE_XNN_ISA_AVX512, fp);
    CHECK_STR(fp, "avx512 8x32+16x16 i8 4x8");
  }
  char a[33], b[33];
  pte_xnnpack_fingerprint(PTE_XNN_ISA_AUTO, a);
  pte_xnnpack_fingerprint(pte_xnnpack_detect_isa(), b);
  CHECK_STR(a, b);
}


/* The named key holding `data` in blob b (NULL if none). */
static const char *key_of(const pte_xnn_blob *b, const void *data, size_t size) {
  for (size_t j = 0; j < b->n_named; j++)
    if (b->named[j].size == size && memcmp(b->named[j].data, data, size) == 0) return b->named[j].key;
  return NULL;
}

TEST(named_weights_packed_in_place) {
  mlp_fixture f;
  if (!mlp_make(&f, PTE_XNN_CONSTANTS_NAMED, false, "named")) return;
  pte_error_info err;
  xp_result before, after;
  CHECK_OK(xp_run(f.in_path, NULL, 0, 7, NULL, &before, &err));
  CHECK_EQ_INT(before.load_stats.packs, 4); /* 3 MLP layers + 1 linear */
  CHECK_EQ_INT(before.load_stats.prepared, 0);
  pte_prepare_report rep;
  CHECK_MSG(xp_prepare(f.in_path, f.out_path, &rep, &err) == PTE_OK, "prepare: %s", err.msg);
  CHECK(rep.changed);
  CHECK(!rep.rebuilt);
  CHECK_EQ_INT(rep.n_backends, 1);
  CHECK_STR(rep.backends[0].id, "XnnpackBackend");
  CHECK_EQ_INT(rep.backends[0].state, PTE_PREPARE_PREPARED);
  CHECK_EQ_INT(rep.backends[0].n_blobs, 2);
  CHECK_EQ_INT(rep.backends[0].named_replaced, 4); /* the 4 weights; biases stay portable */
  /* both blobs replaced by XPB1 containers: the graph and a NAMED entry per packed weight (3 in
   * the MLP's blob, 1 in the linear's), so that init uses them without reading them */
  CHECK_EQ_INT(rep.backends[0].blobs_replaced, 2);
  const pte_xnn_isa isa = pte_xnnpack_detect_isa();
  size_t packed_total = 0, orig_total = 0;
  for (int i = 0; i < 4; i++) {
    packed_total += PTE_PREPARED_HEADER_SIZE + f32_packed_size(isa, k_mlp_n[i], k_mlp_k[i]);
    orig_total += k_mlp_n[i] * k_mlp_k[i] * 4;
  }
  CHECK_EQ_INT(rep.backends[0].blobs_sealed, 0);
  size_t sealed = 0;
  check_sealed(f.in_path, f.out_path, &sealed); /* enveloped, payload an XPB1 container */
  CHECK_EQ_INT(sealed, 2);
  /* container = 64-byte header + 24-byte entries (to a multiple of 64) + the flatbuffer (same) */
  pte_xnn_header hm, hl;
  CHECK_OK(pte_xnn_parse_header(f.mlp.data, f.mlp.size, &hm, &err));
  CHECK_OK(pte_xnn_parse_header(f.lin.data, f.lin.size, &hl, &err));
  const uint64_t xpb_mlp = ((64 + 3 * 24 + 63) / 64) * 64 + ((hm.flatbuffer_size + 63) / 64) * 64;
  const uint64_t xpb_lin = ((64 + 1 * 24 + 63) / 64) * 64 + ((hl.flatbuffer_size + 63) / 64) * 64;
  const uint64_t blob_bytes = f.mlp.size + f.lin.size;
  CHECK_EQ_INT(rep.backends[0].bytes_before, orig_total + blob_bytes);
  CHECK_EQ_INT(rep.backends[0].bytes_after, packed_total + xpb_mlp + xpb_lin + 2 * PTE_PREPARED_HEADER_SIZE);
  /* the file holds the packed weights instead of (not next to) the portable ones: it grows by
   * the packing overhead (panel padding + envelopes) plus segment alignment at most */
  const off_t s0 = file_size(f.in_path), s1 = file_size(f.out_path);
  CHECK_EQ_INT(rep.size_before, s0);
  CHECK_EQ_INT(rep.size_after, s1);
  const off_t grown = (off_t)(xpb_mlp + xpb_lin + 2 * PTE_PREPARED_HEADER_SIZE) - (off_t)blob_bytes;
  CHECK_MSG(s1 <= s0 + (off_t)(packed_total - orig_total) + (grown > 0 ? grown : 0) + 4 * 128,
            "prepared %lld bytes, portable %lld, delta %zu", (long long)s1, (long long)s0, packed_total - orig_total);
  /* stored values: weights in the envelope with this machine's fingerprint, biases unchanged */
  char fp[33];
  this_fp(fp);
  for (int i = 0; i < 4; i++) {
    const pte_xnn_blob *b = i < 3 ? &f.mlp : &f.lin;
    const char *wkey = key_of(b, f.w[i], k_mlp_n[i] * k_mlp_k[i] * 4), *bkey = key_of(b, f.b[i], k_mlp_n[i] * 4);
    CHECK(wkey && bkey);
    size_t vs = 0;
    uint8_t *v = named_value(f.out_path, wkey, &vs);
    CHECK(v);
    pte_prepared_info pi;
    pte_status st = pte_prepared_envelope_check(v, vs, "XnnpackBackend", 1, fp, strlen(fp), &pi, &err);
    CHECK_MSG(st == PTE_OK, "layer %d: %s", i, err.msg);
    CHECK_EQ_INT(pi.payload_offset, 128);
    CHECK_EQ_INT(pi.payload_size, f32_packed_size(isa, k_mlp_n[i], k_mlp_k[i]));
    CHECK(memcmp(pi.payload, "XPW1", 4) == 0);
    CHECK_EQ_INT(xr_ld32(pi.payload + 8), PTE_XNN_PACK_F32_GEMM);
    CHECK_EQ_INT(xr_ld32(pi.payload + 24), k_mlp_n[i]);
    CHECK_EQ_INT(xr_ld32(pi.payload + 28), k_mlp_k[i]);
    /* panel 0: the fused bias, then k-major weights: element (o=1, i=0) at nr + 1 */
    const uint32_t nr = xr_ld32(pi.payload + 16);
    CHECK(memcmp(pi.payload + 64, f.b[i], 4) == 0);
    CHECK(memcmp(pi.payload + 64 + (nr + 1) * 4, &f.w[i][k_mlp_k[i]], 4) == 0);
    free(v);
    v = named_value(f.out_path, bkey, &vs);
    CHECK(v);
    CHECK_EQ_INT(vs, k_mlp_n[i] * 4);
    CHECK(memcmp(v, f.b[i], vs) == 0);
    free(v);
  }
  /* after prepare: same outputs bit for bit, nothing packed, nothing copied */
  CHECK_MSG(xp_run(f.out_path, NULL, 0, 7, NULL, &after, &err) == PTE_OK, "%s", err.msg);
  CHECK(xp_same(&before, &after));
  CHECK_EQ_INT(after.load_stats.packs, 0);
  CHECK_EQ_INT(after.load_stats.prepared, 4);
  CHECK_EQ_INT(after.load_stats.prepared_copies, 0);
  CHECK_EQ_INT(after.load_stats.repacks, 0);
  xp_result_free(&before);
  xp_result_free(&after);
  /* two threads on prepared weights: the same bits as on weights packed at load */
  pte_backend_option th;
  memset(&th, 0, sizeof th);
  strcpy(th.key, PTE_XNNPACK_OPTION_NUM_THREADS);
  th.type = PTE_BACKEND_OPTION_INT;
  th.value.i = 2;
  pte_backend_load_options bo = {PTE_XNNPACK_BACKEND_ID, &th, 1};
  CHECK_OK(xp_run(f.in_path, &bo, 1, 9, NULL, &before, &err));
  CHECK_OK(xp_run(f.out_path, &bo, 1, 9, NULL, &after, &err));
  CHECK(xp_same(&before, &after));
  xp_result_free(&before);
  xp_result_free(&after);
  mlp_free(&f);
}

/* The same through pte_initialize_and_save_backend_data with a buffer loader and a memory
 * writer (no files, every replaced value spooled): the output equals pte_prepare_file's. */
TEST(memory_prepare_matches_file_prepare) {
  mlp_fixture f;
  if (!mlp_make(&f, PTE_XNN_CONSTANTS_NAMED, false, "memory")) return;
  pte_error_info err;
  pte_prepare_report rep;
  CHECK_OK(xp_prepare(f.in_path, f.out_path, &rep, &err));
  size_t in_size = 0, file_out = 0;
  uint8_t *in = test_read_file(f.in_path, &in_size), *want = test_read_file(f.out_path, &file_out);
  CHECK(in && want);
  pte_buffer_loader bl;
  pte_buffer_loader_init(&bl, in, in_size);
  pte_memory_writer mw;
  CHECK_OK(pte_memory_writer_init(&mw, pte_heap_realloc, NULL, 0));
  uint8_t temp_mem[4096];
  pte_allocator temp;
  pte_allocator_init(&temp, temp_mem, sizeof temp_mem);
  CHECK_MSG(pte_initialize_and_save_backend_data(&bl.base, &mw.base, &temp, NULL, &err) == PTE_OK, "%s", err.msg);
  size_t n = 0;
  const uint8_t *got = pte_memory_writer_data(&mw, &n);
  CHECK_EQ_INT(n, file_out);
  CHECK(memcmp(got, want, n) == 0);
  pte_data_writer_destroy(&mw.base);
  free(in);
  free(want);
  mlp_free(&f);
}

/* Prepared weights are read straight from the mapped file: the delegate's panels point into the
 * mapping and the named-data buffer is kept (and never written). */
TEST(prepared_weights_point_into_mapping) {
  mlp_fixture f;
  if (!mlp_make(&f, PTE_XNN_CONSTANTS_NAMED, false, "mapping")) return;
  pte_error_info err;
  pte_prepare_report rep;
  CHECK_MSG(xp_prepare(f.in_path, f.out_path, &rep, &err) == PTE_OK, "prepare: %s", err.msg);
  pte_mmap_loader ml;
  CHECK_OK(pte_mmap_loader_open(&ml, f.out_path, PTE_MLOCK_NONE, &err));
  CHECK(ml.map);
  xt_prog p;
  memset(&p, 0, sizeof p);
  CHECK_OK(pte_program_load(&ml.base, PTE_VERIFY_INTERNAL_CONSISTENCY, &p.prog, &err));
  pte_freeable_buffer blob;
  CHECK(xt_blob(&p, 0, 0, &blob));
  pte_xnn_delegate *d = NULL;
  pte_xnnpack_stats_reset();
  CHECK_OK(pte_xnn_delegate_init(blob.data, blob.size, pte_program_named_data_map(&p.prog), NULL, &d, &err));
  pte_freeable_buffer_free(&blob);
  size_t fc = 0;
  for (size_t i = 0; i < d->n_nodes; i++) {
    const pte_xnn_node *n = &d->nodes[i];
    if (n->type != pte_xn_XNodeUnion_XNNFullyConnected) continue;
    fc++;
    CHECK(n->packed_borrowed);
    CHECK(n->packed.bytes >= ml.map && n->packed.bytes + n->packed.size <= ml.map + ml.map_size);
    CHECK_EQ_INT((uintptr_t)n->packed.bytes % 64, 0);
  }
  CHECK_EQ_INT(fc, 3);
  pte_xnnpack_stats st;
  pte_xnnpack_stats_get(&st);
  CHECK_EQ_INT(st.prepared, 3);
  CHECK_EQ_INT(st.packs, 0);
  CHECK_EQ_INT(st.prepared_copies, 0);
  pte_xnn_delegate_destroy(d);
  pte_program_destroy(&p.prog);
  pte_mmap_loader_close(&ml);
  mlp_free(&f);
}

/* Prepared for one ISA, loaded for another: 0x30 naming both fingerprints; repack_prepared
 * re-lays the panels out and gives exactly what packing the portable weights gives. */
TEST(fingerprint_mismatch_and_repack) {
  const pte_xnn_isa best = pte_xnnpack_detect_isa();
  if (best == PTE_XNN_ISA_SCALAR) SKIP("this CPU has only the scalar kernels");
  mlp_fixture f;
  if (!mlp_make(&f, PTE_XNN_CONSTANTS_NAMED, false, "mismatch")) return;
  pte_error_info err;
  pte_prepare_report rep;
  char fp_best[33], fp_scalar[33], want[160];
  pte_xnnpack_fingerprint(best, fp_best);
  pte_xnnpack_fingerprint(PTE_XNN_ISA_SCALAR, fp_scalar);
  /* prepared on a "scalar machine" (process default ISA forced to scalar) */
  set_default_isa(PTE_XNN_ISA_SCALAR);
  pte_status ps = xp_prepare(f.in_path, f.out_path, &rep, &err);
  set_default_isa(PTE_XNN_ISA_AUTO);
  CHECK_MSG(ps == PTE_OK, "prepare: %s", err.msg);
  CHECK_EQ_INT(rep.backends[0].named_replaced, 4);
  xp_result r, portable, prepared;
  CHECK_STATUS(xp_run(f.out_path, NULL, 0, 3, NULL, &r, &err), PTE_ERR_DELEGATE_INVALID_COMPATIBILITY);
  CHECK_EQ_INT(PTE_ERR_DELEGATE_INVALID_COMPATIBILITY, 0x30);
  snprintf(want, sizeof want, "prepared for XnnpackBackend format 1 on '%s', this machine is '%s'", fp_scalar, fp_best);
  CHECK_CONTAINS(err.msg, want);
  CHECK_CONTAINS(err.msg, "run pte prepare again on the portable model");
  /* the same file on the ISA it was prepared for: used in place */
  pte_backend_option o[2] = {opt_string(PTE_XNNPACK_OPTION_ISA, "scalar"),
                             opt_bool(PTE_XNNPACK_OPTION_REPACK_PREPARED, true)};
  pte_backend_load_options bo = {PTE_XNNPACK_BACKEND_ID, o, 1};
  CHECK_OK(xp_run(f.in_path, &bo, 1, 3, NULL, &portable, &err));
  CHECK_MSG(xp_run(f.out_path, &bo, 1, 3, NULL, &prepared, &err) == PTE_OK, "%s", err.msg);
  CHECK(xp_same(&portable, &prepared));
  CHECK_EQ_INT(prepared.load_stats.packs, 0);
  CHECK_EQ_INT(prepared.load_stats.prepared, 4);
  xp_result_free(&portable);
  xp_result_free(&prepared);
  /* repack_prepared on the best ISA: the same bits as the portable model on the best ISA */
  bo.options = &o[1];
  CHECK_OK(xp_run(f.in_path, NULL, 0, 3, NULL, &portable, &err));
  CHECK_MSG(xp_run(f.out_path, &bo, 1, 3, NULL, &prepared, &err) == PTE_OK, "%s", err.msg);
  CHECK(xp_same(&portable, &prepared));
  CHECK_EQ_INT(prepared.load_stats.packs, 0);
  CHECK_EQ_INT(prepared.load_stats.repacks, 4);
  CHECK_EQ_INT(prepared.load_stats.prepared, 0);
  xp_result_free(&portable);
  xp_result_free(&prepared);
  /* repack_prepared=false is the default; a non-bool value is refused */
  o[1] = opt_bool(PTE_XNNPACK_OPTION_REPACK_PREPARED, false);
  CHECK_STATUS(xp_run(f.out_path, &bo, 1, 3, NULL, &r, &err), PTE_ERR_DELEGATE_INVALID_COMPATIBILITY);
  o[1] = opt_string(PTE_XNNPACK_OPTION_REPACK_PREPARED, "yes");
  CHECK_STATUS(xp_run(f.out_path, &bo, 1, 3, NULL, &r, &err), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(err.msg, "repack_prepared");
  /* the other way round: prepared for this machine, loaded with isa=scalar */
  CHECK_OK(xp_prepare(f.in_path, f.out_path, &rep, &err));
  bo.options = o;
  CHECK_STATUS(xp_run(f.out_path, &bo, 1, 3, NULL, &r, &err), PTE_ERR_DELEGATE_INVALID_COMPATIBILITY);
  snprintf(want, sizeof want, "prepared for XnnpackBackend format 1 on '%s', this machine is '%s'", fp_best, fp_scalar);
  CHECK_CONTAINS(err.msg, want);
  /* preparing a file prepared for another machine needs the portable model */
  set_default_isa(PTE_XNN_ISA_SCALAR);
  char again[300];
  snprintf(again, sizeof again, "%s.again", f.out_path);
  ps = xp_prepare(f.out_path, again, &rep, &err);
  set_default_isa(PTE_XNN_ISA_AUTO);
  CHECK_STATUS(ps, PTE_ERR_DELEGATE_INVALID_COMPATIBILITY);
  CHECK_CONTAINS(err.msg, "run pte prepare again on the portable model");
  CHECK(access(again, F_OK) != 0);
  mlp_free(&f);
}

/* Preparing a prepared file changes nothing (byte-for-byte copy). */
TEST(prepare_is_idempotent) {
  mlp_fixture f;
  if (!mlp_make(&f, PTE_XNN_CONSTANTS_NAMED, false, "idem")) return;
  pte_error_info err;
  pte_prepare_report rep;
  CHECK_OK(xp_prepare(f.in_path, f.out_path, &rep, &err));
  char again[300];
  snprintf(again, sizeof again, "%s.again", f.out_path);
  CHECK_MSG(xp_prepare(f.out_path, again, &rep, &err) == PTE_OK, "%s", err.msg);
  CHECK(!rep.changed);
  size_t a = 0, b = 0;
  uint8_t *x = test_read_file(f.out_path, &a), *y = test_read_file(again, &b);
  CHECK(x && y && a == b && memcmp(x, y, a) == 0);
  free(x);
  free(y);
  unlink(again);
  mlp_free(&f);
}

/* A corrupted prepared value is refused with a specific status, never misread. */
TEST(corrupted_prepared_values) {
  mlp_fixture f;
  if (!mlp_make(&f, PTE_XNN_CONSTANTS_NAMED, false, "corrupt")) return;
  pte_error_info err;
  pte_prepare_report rep;
  CHECK_OK(xp_prepare(f.in_path, f.out_path, &rep, &err));
  size_t size = 0;
  uint8_t *bytes = test_read_file(f.out_path, &size);
  CHECK(bytes);
  size_t env = 0;
  for (size_t i = 0; i + 132 <= size && !env; i += 8)
    if (memcmp(bytes + i, "PTEP", 4) == 0 && memcmp(bytes + i + 128, "XPW1", 4) == 0) env = i;
  CHECK(env);
  char bad[300];
  snprintf(bad, sizeof bad, "%s.bad", f.out_path);
  xp_result r;
  /* The weights' blobs list them in their XPB1 containers, so the load does not read them: the
   * checks below run at the first execute, before any kernel reads the bytes (r.loaded). */
  /* the packed header disagrees with the node (NR + 1) */
  bytes[env + 128 + 16]++;
  CHECK_OK(test_write_file(bad, bytes, size) == 0 ? PTE_OK : PTE_ERR_ACCESS_FAILED);
  CHECK_STATUS(xp_run(bad, NULL, 0, 1, NULL, &r, &err), PTE_ERR_INVALID_PROGRAM);
  CHECK_CONTAINS(err.msg, "prepared weights of constant");
  CHECK(r.loaded);
  bytes[env + 128 + 16]--;
  /* the envelope's fingerprint length is out of range */
  bytes[env + 44] = 40;
  CHECK_OK(test_write_file(bad, bytes, size) == 0 ? PTE_OK : PTE_ERR_ACCESS_FAILED);
  CHECK_STATUS(xp_run(bad, NULL, 0, 1, NULL, &r, &err), PTE_ERR_INVALID_PROGRAM);
  CHECK_CONTAINS(err.msg, "fingerprint length");
  CHECK(r.loaded);
  bytes[env + 44] = (uint8_t)strlen(this_fp((char[33]){0}));
  /* the envelope's payload is 64 bytes shorter than the container records (a valid envelope) */
  bytes[env + 88] = (uint8_t)(bytes[env + 88] - 64);
  CHECK_OK(test_write_file(bad, bytes, size) == 0 ? PTE_OK : PTE_ERR_ACCESS_FAILED);
  CHECK_STATUS(xp_run(bad, NULL, 0, 1, NULL, &r, &err), PTE_ERR_INVALID_PROGRAM);
  CHECK_CONTAINS(err.msg, "is not what its prepared blob records");
  CHECK(r.loaded);
  bytes[env + 88] = (uint8_t)(bytes[env + 88] + 64);
  /* prepared for another data-format version: 0x30 even with repack_prepared */
  bytes[env + 44] = (uint8_t)strlen(this_fp((char[33]){0}));
  bytes[env + 40] = 7;
  CHECK_OK(test_write_file(bad, bytes, size) == 0 ? PTE_OK : PTE_ERR_ACCESS_FAILED);
  pte_backend_option o = opt_bool(PTE_XNNPACK_OPTION_REPACK_PREPARED, true);
  pte_backend_load_options bo = {PTE_XNNPACK_BACKEND_ID, &o, 1};
  CHECK_STATUS(xp_run(bad, &bo, 1, 1, NULL, &r, &err), PTE_ERR_DELEGATE_INVALID_COMPATIBILITY);
  CHECK_CONTAINS(err.msg, "format 7");
  CHECK(!r.loaded); /* repack_prepared reads every prepared value at init */
  /* without the option the first execute finds it */
  CHECK_STATUS(xp_run(bad, NULL, 0, 1, NULL, &r, &err), PTE_ERR_DELEGATE_INVALID_COMPATIBILITY);
  CHECK_CONTAINS(err.msg, "format 7");
  CHECK(r.loaded);
  bytes[env + 40] = 1;
  CHECK_OK(test_write_file(bad, bytes, size) == 0 ? PTE_OK : PTE_ERR_ACCESS_FAILED);
  CHECK_OK(xp_run(bad, NULL, 0, 1, NULL, &r, &err));
  xp_result_free(&r);
  free(bytes);
  unlink(bad);
  mlp_free(&f);
}

/* Older exports: weights inside the blob. The processed blob is replaced by an XPB1 container
 * holding the graph and the packed weights (no portable copy), through the in-place patch
 * (segment blobs) and the full rebuild (inline Program.backend_delegate_data). */
static void inline_case(bool inline_delegates, const char *name) {
  mlp_fixture f;
  if (!mlp_make(&f, PTE_XNN_CONSTANTS_INLINE, inline_delegates, name)) return;
  pte_error_info err;
  xp_result before, after;
  CHECK_OK(xp_run(f.in_path, NULL, 0, 11, NULL, &before, &err));
  CHECK_EQ_INT(before.load_stats.packs, 4);
  pte_prepare_report rep;
  CHECK_MSG(xp_prepare(f.in_path, f.out_path, &rep, &err) == PTE_OK, "prepare: %s", err.msg);
  CHECK(rep.changed);
  CHECK_EQ_INT(rep.rebuilt, inline_delegates);
  CHECK_EQ_INT(rep.backends[0].blobs_replaced, 2);
  CHECK_EQ_INT(rep.backends[0].named_replaced, 0);
  const pte_xnn_isa isa = pte_xnnpack_detect_isa();
  size_t growth = 0;
  for (int i = 0; i < 4; i++) growth += f32_packed_size(isa, k_mlp_n[i], k_mlp_k[i]) + 64 - k_mlp_n[i] * k_mlp_k[i] * 4;
  const off_t s0 = file_size(f.in_path), s1 = file_size(f.out_path);
  CHECK_MSG(s1 <= s0 + (off_t)growth + 1024, "prepared %lld bytes, portable %lld, growth bound %zu", (long long)s1,
            (long long)s0, growth);
  CHECK_MSG(xp_run(f.out_path, NULL, 0, 11, NULL, &after, &err) == PTE_OK, "%s", err.msg);
  CHECK(xp_same(&before, &after));
  CHECK_EQ_INT(after.load_stats.packs, 0);
  CHECK_EQ_INT(after.load_stats.prepared, 4);
  CHECK_EQ_INT(after.load_stats.prepared_copies, 0);
  xp_result_free(&before);
  xp_result_free(&after);
  /* the replaced blob: envelope + XPB1 container; the direct API copies its packed weights */
  pte_mmap_loader ml;
  CHECK_OK(pte_mmap_loader_open(&ml, f.out_path, PTE_MLOCK_NONE, &err));
  xt_prog p;
  memset(&p, 0, sizeof p);
  CHECK_OK(pte_program_load(&ml.base, PTE_VERIFY_INTERNAL_CONSISTENCY, &p.prog, &err));
  pte_freeable_buffer blob;
  CHECK(xt_blob(&p, 0, 0, &blob));
  pte_prepared_info pi;
  char fp[33];
  this_fp(fp);
  CHECK_OK(pte_prepared_envelope_check(blob.data, blob.size, "XnnpackBackend", 1, fp, strlen(fp), &pi, &err));
  CHECK(memcmp(pi.payload, "XPB1", 4) == 0);
  CHECK_EQ_INT(xr_ld32(pi.payload + 12), 6); /* 3 weights (packed) + 3 biases (raw) */
  for (uint32_t e = 0; e < 6; e++) {
    const uint8_t *ent = pi.payload + xr_ld32(pi.payload + 32) + e * 24;
    const uint32_t kind = xr_ld32(ent + 4);
    const uint8_t *data = pi.payload + xr_ld32(ent + 8);
    CHECK(kind == 0 || kind == 1);
    if (kind == 1) CHECK(memcmp(data, "XPW1", 4) == 0);
  }
  const size_t bsize = blob.size;
  uint8_t *copy = (uint8_t *)aligned_alloc(64, (bsize + 63) / 64 * 64);
  memcpy(copy, blob.data, bsize);
  pte_freeable_buffer_free(&blob);
  pte_xnn_delegate *d = NULL;
  pte_xnnpack_stats_reset();
  CHECK_OK(pte_xnn_delegate_init(copy, bsize, NULL, NULL, &d, &err));
  memset(copy, 0xEE, bsize); /* the blob need not outlive init */
  free(copy);
  pte_xnnpack_stats st;
  pte_xnnpack_stats_get(&st);
  CHECK_EQ_INT(st.prepared_copies, 3);
  CHECK_EQ_INT(st.packs, 0);
  float x[66], y[10], y0[10];
  xt_rng = 5;
  xt_fill(x, 66, 1.0f);
  size_t di[2] = {2, 33}, dout[2] = {2, 5};
  xt_tensor ti, to;
  xt_tensor_init(&ti, PTE_DTYPE_FLOAT, 2, di, x, sizeof x, 0);
  xt_tensor_init(&to, PTE_DTYPE_FLOAT, 2, dout, y, sizeof y, 0);
  pte_evalue *args[2] = {&ti.ev, &to.ev};
  CHECK_OK(pte_xnn_delegate_execute(d, args, 2, &err));
  pte_xnn_delegate_destroy(d);
  /* the same inputs through the portable blob */
  pte_xnn_delegate *d0 = NULL;
  xt_tensor_init(&to, PTE_DTYPE_FLOAT, 2, dout, y0, sizeof y0, 0);
  CHECK_OK(pte_xnn_delegate_init(f.mlp.data, f.mlp.size, NULL, NULL, &d0, &err));
  CHECK_OK(pte_xnn_delegate_execute(d0, args, 2, &err));
  pte_xnn_delegate_destroy(d0);
  CHECK(memcmp(y, y0, sizeof y) == 0);
  pte_program_destroy(&p.prog);
  pte_mmap_loader_close(&ml);
  mlp_free(&f);
}

TEST(inline_constants_segment_blob) { inline_case(false, "inline_seg"); }
TEST(inline_constants_inline_blob) { inline_case(true, "inline_inl"); }

int main(void) {
  RUN(fingerprints);
  RUN(named_weights_packed_in_place);
  RUN(memory_prepare_matches_file_prepare);
  RUN(prepared_weights_point_into_mapping);
  RUN(fingerprint_mismatch_and_repack);
  RUN(prepare_is_idempotent);
  RUN(corrupted_prepared_values);
  RUN(inline_constants_segment_blob);
  RUN(inline_constants_inline_blob);
  return test_summary();
}
