#define _POSIX_C_SOURCE 200809L
/* Writer round trips on the real corpus: every .pte is copied through the builder ("copy
 * program"), written, reloaded and compared structurally (values, constants, mutable data,
 * instructions, delegates + blobs, plans, named data), every method is run on both with the same
 * deterministic inputs and must give bit-identical outputs; the 4 pre-segment files are migrated;
 * outputs decode with flatc and our schema; the .ptd files are rewritten by the .ptd writer. */
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pte/headers.h"
#include "pte/ptd.h"
#include "test_writer_util.h"

static const char *external_for(const char *pte) {
  if (!strcmp(pte, "etrs_data_map_model.pte")) return "etrs_data_map__default_external_constant.ptd";
  if (!strcmp(pte, "upstream_android_xor.pte")) return "upstream_android_xor.ptd";
  return NULL;
}

/* Names of every corpus .pte, sorted; returns the count. */
static size_t corpus_ptes(char names[][96], size_t cap) {
  const char *dir = getenv("PTE_CORPUS");
  size_t n = 0;
  DIR *d = dir ? opendir(dir) : NULL;
  if (!d) return 0;
  struct dirent *e;
  while ((e = readdir(d)) && n < cap) {
    size_t l = strlen(e->d_name);
    if (l > 4 && l < 95 && !strcmp(e->d_name + l - 4, ".pte")) strcpy(names[n++], e->d_name);
  }
  closedir(d);
  for (size_t i = 0; i < n; i++) /* insertion sort */
    for (size_t j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
      char t[96];
      strcpy(t, names[j]);
      strcpy(names[j], names[j - 1]);
      strcpy(names[j - 1], t);
    }
  return n;
}

/* Loads the .ptd a corpus program needs (if any). */
typedef struct ext_data {
  uint8_t *bytes;
  size_t size;
  pte_buffer_loader bl;
  pte_ptd ptd;
  bool loaded;
} ext_data;

static const pte_named_data_map *ext_open(ext_data *x, const char *pte) {
  memset(x, 0, sizeof *x);
  const char *name = external_for(pte);
  if (!name) return NULL;
  x->bytes = test_read_file(test_corpus_path(name), &x->size);
  if (!x->bytes) return NULL;
  pte_buffer_loader_init(&x->bl, x->bytes, x->size);
  if (pte_ptd_load(&x->bl.base, &x->ptd, NULL) != PTE_OK) return NULL;
  x->loaded = true;
  return pte_ptd_map(&x->ptd);
}

static void ext_close(ext_data *x) {
  if (x->loaded) pte_ptd_destroy(&x->ptd);
  free(x->bytes);
}

/* Runs every method of a and b and compares outcomes; returns the number of methods that ran OK. */
static int compare_runs(const char *name, const pte_program *a, const pte_program *b, const pte_named_data_map *ext,
                        int *failures) {
  int ran = 0;
  for (size_t mi = 0; mi < pte_program_num_methods(a); mi++) {
    const char *mname = pte_program_method_name(a, mi);
    tw_run ra, rb;
    tw_run_method(a, mname, ext, &ra);
    tw_run_method(b, mname, ext, &rb);
    char why[160];
    if (tw_run_diff(&ra, &rb, why, sizeof why)) {
      test_fail(__FILE__, __LINE__, "%s::%s: runs differ: %s", name, mname, why);
      (*failures)++;
    } else if (ra.load_status == PTE_OK && ra.exec_status == PTE_OK) {
      ran++;
    }
    tw_run_free(&ra);
    tw_run_free(&rb);
  }
  return ran;
}

TEST(roundtrip_every_corpus_file) {
  char names[128][96];
  size_t n = corpus_ptes(names, 128);
  CHECK_MSG(n >= 30, "corpus has only %zu .pte files (PTE_CORPUS=%s)", n, getenv("PTE_CORPUS") ? getenv("PTE_CORPUS") : "unset");
  int failures = 0, methods_ran = 0;
  for (size_t i = 0; i < n; i++) {
    size_t size = 0;
    uint8_t *bytes = test_read_corpus(names[i], &size);
    if (!bytes) {
      failures++;
      continue;
    }
    tw_prog orig, copy;
    memset(&copy, 0, sizeof copy);
    pte_status s = tw_load_bytes(&orig, bytes, size);
    free(bytes);
    if (s != PTE_OK) {
      test_fail(__FILE__, __LINE__, "%s: original does not load: %s", names[i], orig.err.msg);
      failures++;
      continue;
    }
    pte_writer *w = NULL;
    pte_error_info err;
    s = pte_writer_create(NULL, &w, &err);
    if (s == PTE_OK) s = pte_writer_copy_program(w, &orig.prog, &err);
    if (s == PTE_OK) s = tw_write_and_load(w, &copy, &err);
    if (s != PTE_OK) {
      test_fail(__FILE__, __LINE__, "%s: copy failed: %s: %s", names[i], pte_status_name(s), err.msg);
      failures++;
    } else {
      char why[256];
      if (tw_cmp_programs(&orig.prog, &copy.prog, why, sizeof why)) {
        test_fail(__FILE__, __LINE__, "%s: copy differs: %s", names[i], why);
        failures++;
      }
      /* the copy is in the current layout: constants in a segment, header when data exists */
      if (pte_program_constant_storage(&copy.prog) == PTE_CONSTANTS_INLINE) {
        test_fail(__FILE__, __LINE__, "%s: copy still uses inline constants", names[i]);
        failures++;
      }
      ext_data x;
      const pte_named_data_map *ext = ext_open(&x, names[i]);
      methods_ran += compare_runs(names[i], &orig.prog, &copy.prog, ext, &failures);
      ext_close(&x);
    }
    pte_writer_destroy(w);
    tw_free(&copy);
    tw_free(&orig);
  }
  printf("  %zu files copied, %d methods executed with identical outputs\n", n, methods_ran);
  CHECK_EQ_INT(failures, 0);
  /* most corpus methods run with the portable kernels: the comparison above is not vacuous */
  CHECK_MSG(methods_ran >= 25, "only %d methods executed", methods_ran);
}

/* A copy of a copy is byte-identical to the first copy (the writer is deterministic). */
TEST(copy_is_deterministic) {
  const char *files[] = {"djl_stress_mlp.pte", "dnf_test_dnf_executorch1.pte", "numpyrt_quantized.pte", "upstream_android_xor.pte"};
  for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
    size_t size = 0;
    uint8_t *bytes = test_read_corpus(files[f], &size);
    CHECK(bytes);
    tw_prog a, b;
    CHECK_OK(tw_load_bytes(&a, bytes, size));
    free(bytes);
    pte_writer *w1 = NULL, *w2 = NULL;
    pte_error_info err;
    CHECK_OK(pte_writer_create(NULL, &w1, &err));
    CHECK_OK(pte_writer_copy_program(w1, &a.prog, &err));
    CHECK_OK(tw_write_and_load(w1, &b, &err));
    CHECK_OK(pte_writer_create(NULL, &w2, &err));
    CHECK_OK(pte_writer_copy_program(w2, &b.prog, &err));
    pte_memory_writer mw;
    pte_memory_writer_init(&mw, pte_heap_realloc, NULL, 0);
    CHECK_OK(pte_writer_write(w2, &mw.base, &err));
    size_t n2 = 0;
    const uint8_t *d2 = pte_memory_writer_data(&mw, &n2);
    CHECK_MSG(n2 == b.size && memcmp(d2, b.bytes, n2) == 0, "%s: second copy differs (%zu vs %zu bytes)", files[f], n2, b.size);
    pte_data_writer_destroy(&mw.base);
    pte_writer_destroy(w1);
    pte_writer_destroy(w2);
    tw_free(&a);
    tw_free(&b);
  }
}

/* Upstream layout rules on a real file with several segment kinds. */
TEST(layout_rules_on_copies) {
  const char *files[] = {"djl_stress_mlp.pte", "dnf_test_dnf_executorch5.pte", "simple-torch-model.pte", "djl_spike_conv.pte"};
  for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
    size_t size = 0;
    uint8_t *bytes = test_read_corpus(files[f], &size);
    CHECK(bytes);
    tw_prog a, b;
    CHECK_OK(tw_load_bytes(&a, bytes, size));
    free(bytes);
    pte_writer *w = NULL;
    pte_error_info err;
    CHECK_OK(pte_writer_create(NULL, &w, &err));
    CHECK_OK(pte_writer_copy_program(w, &a.prog, &err));
    CHECK_OK(tw_write_and_load(w, &b, &err));
    pte_extended_header h;
    CHECK_OK(pte_extended_header_parse(b.bytes, b.size, &h, NULL));
    CHECK_EQ_INT(h.header_length, 32);
    CHECK_EQ_INT(pte_fb_ld_u32(b.bytes), pte_fb_ld_u32(b.bytes) / 4 * 4); /* root offset sane */
    CHECK_EQ_INT(h.segment_base_offset % 128, 0);
    CHECK_EQ_INT(h.segment_base_offset, (h.program_size + 127) / 128 * 128);
    CHECK_EQ_INT(h.segment_base_offset + h.segment_data_size, b.size); /* no trailing padding */
    size_t ns = pte_program_num_segments(&b.prog);
    uint64_t prev_end = 0;
    for (size_t i = 0; i < ns; i++) {
      uint64_t off = 0, sz = 0;
      CHECK_OK(pte_program_segment(&b.prog, i, &off, &sz));
      CHECK_EQ_INT(off % 128, 0);
      CHECK_EQ_INT(off, (prev_end + 127) / 128 * 128); /* ascending, tightly aligned */
      prev_end = off + sz;
    }
    CHECK_EQ_INT(prev_end, h.segment_data_size);
    /* constant segment first with the placeholder offsets[0] == 0 */
    pte_fb_table rt = tw_root(&b.prog);
    pte_fb_table cs = pte_et_Program_constant_segment(rt);
    CHECK_EQ_INT(pte_et_SubsegmentOffsets_segment_index(cs), 0);
    pte_fb_vec offs = pte_et_SubsegmentOffsets_offsets(cs);
    CHECK(offs.len >= 1);
    CHECK_EQ_INT(pte_fb_vec_u64(offs, 0), 0);
    for (uint32_t i = 1; i < offs.len; i++) CHECK_EQ_INT(pte_fb_vec_u64(offs, i) % 16, 0);
    pte_writer_destroy(w);
    tw_free(&a);
    tw_free(&b);
  }
}

static const char *k_old_files[] = {"deprecated_ModuleLinear-no-constant-segment.pte", "upstream_module_test_model_2024-03.pte",
                                    "etrs_hello_world_add_old.pte", "node-executorch_mul.pte"};

TEST(migrate_old_format_files) {
  for (size_t f = 0; f < 4; f++) {
    const char *out = test_tmp_path("migrated.pte");
    unlink(out);
    pte_error_info err;
    pte_file_writer_options fo;
    pte_file_writer_options_init(&fo);
    fo.no_fsync = true;
    pte_status s = pte_migrate_file(test_corpus_path(k_old_files[f]), out, NULL, &fo, &err);
    CHECK_MSG(s == PTE_OK, "%s: %s: %s", k_old_files[f], pte_status_name(s), err.msg);
    size_t osz = 0, nsz = 0;
    uint8_t *ob = test_read_corpus(k_old_files[f], &osz);
    uint8_t *nb = test_read_file(out, &nsz);
    CHECK(ob && nb);
    tw_prog a, b;
    CHECK_OK(tw_load_bytes(&a, ob, osz));
    CHECK_OK(tw_load_bytes(&b, nb, nsz));
    CHECK_EQ_INT(pte_program_constant_storage(&a.prog), PTE_CONSTANTS_INLINE);
    /* segment format: constant_segment (offsets[0] placeholder), constant_buffer empty; files whose
     * only constant buffer was the placeholder have nothing to store and no header */
    pte_fb_table rb = tw_root(&b.prog);
    pte_fb_vec cb = pte_et_Program_constant_buffer(rb);
    CHECK_EQ_INT(cb.len, 0);
    pte_fb_vec offs = pte_et_SubsegmentOffsets_offsets(pte_et_Program_constant_segment(rb));
    uint32_t n_old = pte_et_Program_constant_buffer(tw_root(&a.prog)).len;
    CHECK_EQ_INT(offs.len, n_old);
    CHECK_EQ_INT(pte_fb_vec_u64(offs, 0), 0);
    CHECK_EQ_INT(pte_program_constant_storage(&b.prog), n_old > 1 ? PTE_CONSTANTS_SEGMENT : PTE_CONSTANTS_NONE);
    CHECK_EQ_INT(pte_program_get_header(&b.prog)->present, n_old > 1);
    char why[256];
    CHECK_MSG(tw_cmp_programs(&a.prog, &b.prog, why, sizeof why) == 0, "%s: %s", k_old_files[f], why);
    int failures = 0;
    int ran = compare_runs(k_old_files[f], &a.prog, &b.prog, NULL, &failures);
    CHECK_EQ_INT(failures, 0);
    CHECK_EQ_INT(ran, 1);
    free(ob);
    free(nb);
    tw_free(&a);
    tw_free(&b);
    unlink(out);
  }
}

/* Hand-checked: ModuleLinear computes 3*x + 2 with constants [3,3,3,3] and [2,2,2,2]; after
 * migration those 16-byte constants sit at offsets 0 and 16 of the constant segment. */
TEST(migrate_module_linear_constants) {
  const char *out = test_tmp_path("migrated_linear.pte");
  pte_file_writer_options fo;
  pte_file_writer_options_init(&fo);
  fo.no_fsync = true;
  pte_error_info err;
  CHECK_OK(pte_migrate_file(test_corpus_path(k_old_files[0]), out, NULL, &fo, &err));
  size_t n = 0;
  uint8_t *bytes = test_read_file(out, &n);
  CHECK(bytes);
  tw_prog p;
  CHECK_OK(tw_load_bytes(&p, bytes, n));
  pte_fb_vec offs = pte_et_SubsegmentOffsets_offsets(pte_et_Program_constant_segment(tw_root(&p.prog)));
  CHECK_EQ_INT(offs.len, 3);
  CHECK_EQ_INT(pte_fb_vec_u64(offs, 0), 0);
  CHECK_EQ_INT(pte_fb_vec_u64(offs, 1), 0);
  CHECK_EQ_INT(pte_fb_vec_u64(offs, 2), 16);
  uint64_t off = 0, sz = 0;
  CHECK_OK(pte_program_segment(&p.prog, 0, &off, &sz));
  CHECK_EQ_INT(sz, 32);
  const pte_program_header *h = pte_program_get_header(&p.prog);
  const float *c = (const float *)(p.bytes + h->segment_base_offset + off);
  float expect[8] = {3, 3, 3, 3, 2, 2, 2, 2};
  CHECK(memcmp(c, expect, 32) == 0);
  tw_free(&p);
  free(bytes);
  unlink(out);
}

/* Migrating in place (IN == OUT) replaces the file atomically with the migrated program. */
TEST(migrate_in_place) {
  size_t osz = 0;
  uint8_t *ob = test_read_corpus(k_old_files[1], &osz);
  CHECK(ob);
  const char *path = test_tmp_path("inplace.pte");
  CHECK_EQ_INT(test_write_file(path, ob, osz), 0);
  pte_file_writer_options fo;
  pte_file_writer_options_init(&fo);
  fo.no_fsync = true;
  pte_error_info err;
  CHECK_OK(pte_migrate_file(path, path, NULL, &fo, &err));
  size_t nsz = 0;
  uint8_t *nb = test_read_file(path, &nsz);
  CHECK(nb && nsz != osz);
  tw_prog a, b;
  CHECK_OK(tw_load_bytes(&a, ob, osz));
  CHECK_OK(tw_load_bytes(&b, nb, nsz));
  CHECK_EQ_INT(pte_program_constant_storage(&b.prog), PTE_CONSTANTS_SEGMENT);
  char why[256];
  CHECK_MSG(tw_cmp_programs(&a.prog, &b.prog, why, sizeof why) == 0, "%s", why);
  tw_free(&a);
  tw_free(&b);
  free(ob);
  free(nb);
  unlink(path);
}

/* Writer output decodes with flatc and our schema (skipped when flatc is not installed). */
TEST(flatc_decodes_copies) {
  const char *flatc = getenv("PTE_FLATC");
  const char *schema = getenv("PTE_SCHEMA_DIR");
  CHECK_MSG(schema, "PTE_SCHEMA_DIR unset");
  if (!flatc || !*flatc) SKIP("flatc not installed (.ci/run installs it)");
  const char *files[] = {"djl_stress_mlp.pte", "dnf_test_dnf_executorch1.pte", "upstream_android_xor.pte", "node-executorch_mul.pte"};
  for (size_t f = 0; f < 4; f++) {
    size_t size = 0;
    uint8_t *bytes = test_read_corpus(files[f], &size);
    tw_prog a;
    CHECK_OK(tw_load_bytes(&a, bytes, size));
    free(bytes);
    pte_writer *w = NULL;
    pte_error_info err;
    CHECK_OK(pte_writer_create(NULL, &w, &err));
    CHECK_OK(pte_writer_copy_program(w, &a.prog, &err));
    char path[512];
    snprintf(path, sizeof path, "%s", test_tmp_path("flatc_copy.pte"));
    pte_file_writer_options fo;
    pte_file_writer_options_init(&fo);
    fo.no_fsync = true;
    CHECK_OK(pte_writer_write_file(w, path, &fo, &err));
    char dir[512];
    snprintf(dir, sizeof dir, "%s", test_tmp_path("flatc_out"));
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s' && '%s' --json --strict-json -o '%s' '%s/program.fbs' -- '%s' 2>&1 && cat '%s/flatc_copy.json'",
             dir, flatc, dir, schema, path, dir);
    int code = -1;
    char *outp = test_run_capture(cmd, &code);
    CHECK_MSG(code == 0 && outp, "%s: flatc failed (%d): %s", files[f], code, outp ? outp : "");
    CHECK_CONTAINS(outp, "\"execution_plan\"");
    CHECK_CONTAINS(outp, "\"constant_segment\"");
    CHECK_CONTAINS(outp, "\"forward\"");
    free(outp);
    pte_writer_destroy(w);
    tw_free(&a);
    unlink(path);
  }
}

/* The pte extensions (BackendDelegate.scratch / share_handle) decode with flatc and our schema. */
TEST(flatc_decodes_extensions) {
  const char *flatc = getenv("PTE_FLATC");
  const char *schema = getenv("PTE_SCHEMA_DIR");
  CHECK_MSG(schema, "PTE_SCHEMA_DIR unset");
  if (!flatc || !*flatc) SKIP("flatc not installed (.ci/run installs it)");
  pte_writer *w = NULL;
  pte_error_info err;
  CHECK_OK(pte_writer_create(NULL, &w, &err));
  uint8_t blob[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  pte_source s = pte_source_memory(blob, 8);
  uint32_t b, shared, scr, m, ch;
  CHECK_OK(pte_writer_add_blob(w, &s, &b, &err));
  pte_wr_delegate d;
  memset(&d, 0, sizeof d);
  d.id = "Npu";
  d.blob = b;
  d.share_handle = true;
  CHECK_OK(pte_writer_add_lowered_module(w, &d, &shared, &err));
  pte_wr_scratch sc = {1, 64, 4096};
  d.share_handle = false;
  d.scratch = &sc;
  d.n_scratch = 1;
  CHECK_OK(pte_writer_add_lowered_module(w, &d, &scr, &err));
  CHECK_OK(pte_writer_add_method(w, "forward", &m, &err));
  CHECK_OK(pte_writer_add_chain(w, m, NULL, 0, NULL, 0, &ch, &err));
  int32_t x;
  CHECK_OK(pte_writer_add_int(w, m, 0, &x, &err));
  CHECK_OK(pte_writer_call_module(w, m, ch, shared, &x, 1, NULL, &err));
  CHECK_OK(pte_writer_call_module(w, m, ch, shared, &x, 1, NULL, &err));
  CHECK_OK(pte_writer_call_module(w, m, ch, scr, &x, 1, NULL, &err));
  char path[512];
  snprintf(path, sizeof path, "%s", test_tmp_path("flatc_ext.pte"));
  pte_file_writer_options fo;
  pte_file_writer_options_init(&fo);
  fo.no_fsync = true;
  CHECK_OK(pte_writer_write_file(w, path, &fo, &err));
  char dir[512];
  snprintf(dir, sizeof dir, "%s", test_tmp_path("flatc_out"));
  char cmd[4096];
  snprintf(cmd, sizeof cmd, "mkdir -p '%s' && '%s' --json --strict-json -o '%s' '%s/program.fbs' -- '%s' 2>&1 && cat '%s/flatc_ext.json'",
           dir, flatc, dir, schema, path, dir);
  int code = -1;
  char *outp = test_run_capture(cmd, &code);
  CHECK_MSG(code == 0 && outp, "flatc failed (%d): %s", code, outp ? outp : "");
  CHECK_CONTAINS(outp, "\"share_handle\": true");
  CHECK_CONTAINS(outp, "\"scratch\": [");
  CHECK_CONTAINS(outp, "\"size\": 4096");
  free(outp);
  pte_writer_destroy(w);
  unlink(path);
}

/* The .ptd writer reproduces the corpus .ptd files' content; with segment_alignment 16 (the
 * exporter that wrote them) the header places the data exactly where upstream did. */
TEST(ptd_rewrite_corpus) {
  const char *files[] = {"etrs_data_map__default_external_constant.ptd", "upstream_android_xor.ptd"};
  for (size_t f = 0; f < 2; f++) {
    size_t size = 0;
    uint8_t *bytes = test_read_corpus(files[f], &size);
    CHECK(bytes);
    pte_buffer_loader bl;
    pte_buffer_loader_init(&bl, bytes, size);
    pte_ptd in;
    CHECK_OK(pte_ptd_load(&bl.base, &in, NULL));
    const pte_named_data_map *m = pte_ptd_map(&in);
    uint32_t nk = 0;
    CHECK_OK(pte_named_data_map_num_keys(m, &nk));
    pte_ptd_writer_options po;
    memset(&po, 0, sizeof po);
    po.segment_alignment = 16;
    po.no_dedup = true;
    pte_ptd_writer *pw = NULL;
    pte_error_info err;
    CHECK_OK(pte_ptd_writer_create(&po, &pw, &err));
    pte_freeable_buffer bufs[16];
    CHECK(nk <= 16);
    for (uint32_t i = 0; i < nk; i++) {
      const char *key = NULL;
      CHECK_OK(pte_named_data_map_get_key(m, i, &key));
      pte_tensor_layout lay;
      CHECK_OK(pte_named_data_map_get_tensor_layout(m, key, &lay));
      CHECK_OK(pte_named_data_map_get_data(m, key, &bufs[i]));
      pte_source src = pte_source_memory(bufs[i].data, bufs[i].size);
      CHECK_OK(pte_ptd_writer_add_tensor(pw, key, lay.dtype, lay.sizes, (size_t)lay.dim, lay.dim_order, &src, &err));
    }
    pte_memory_writer mw;
    pte_memory_writer_init(&mw, pte_heap_realloc, NULL, 0);
    CHECK_OK(pte_ptd_writer_write(pw, &mw.base, &err));
    size_t n = 0;
    const uint8_t *d = pte_memory_writer_data(&mw, &n);
    uint8_t *copy = (uint8_t *)aligned_alloc(64, (n + 63) / 64 * 64);
    memcpy(copy, d, n);
    pte_flat_tensor_header h0, h1;
    CHECK_OK(pte_flat_tensor_header_parse(bytes, size, &h0, NULL));
    CHECK_OK(pte_flat_tensor_header_parse(copy, n, &h1, NULL));
    CHECK_EQ_INT(h1.header_length, 40);
    CHECK_EQ_INT(h1.flatbuffer_offset, h0.flatbuffer_offset); /* 48 */
    CHECK_EQ_INT(h1.segment_base_offset, h1.flatbuffer_offset + (h1.flatbuffer_size + 15) / 16 * 16);
    CHECK_EQ_INT(h1.segment_data_size, h0.segment_data_size); /* same packing of the same tensors */
    CHECK_EQ_INT(h1.segment_base_offset + h1.segment_data_size, n);
    CHECK_EQ_INT(memcmp(copy + h1.segment_base_offset, bytes + h0.segment_base_offset, h0.segment_data_size), 0);
    pte_buffer_loader bl2;
    pte_buffer_loader_init(&bl2, copy, n);
    pte_ptd out;
    CHECK_OK(pte_ptd_load(&bl2.base, &out, &err));
    const pte_named_data_map *m2 = pte_ptd_map(&out);
    for (uint32_t i = 0; i < nk; i++) {
      const char *key = NULL;
      pte_named_data_map_get_key(m, i, &key);
      pte_tensor_layout a, b;
      CHECK_OK(pte_named_data_map_get_tensor_layout(m, key, &a));
      CHECK_OK(pte_named_data_map_get_tensor_layout(m2, key, &b));
      CHECK(a.dtype == b.dtype && a.dim == b.dim && a.nbytes == b.nbytes);
      CHECK(memcmp(a.sizes, b.sizes, sizeof(int32_t) * (size_t)a.dim) == 0);
      CHECK(memcmp(a.dim_order, b.dim_order, (size_t)a.dim) == 0);
      pte_freeable_buffer x;
      CHECK_OK(pte_named_data_map_get_data(m2, key, &x));
      CHECK(x.size == bufs[i].size && memcmp(x.data, bufs[i].data, x.size) == 0);
      pte_freeable_buffer_free(&x);
      pte_freeable_buffer_free(&bufs[i]);
    }
    pte_ptd_destroy(&out);
    pte_ptd_destroy(&in);
    pte_data_writer_destroy(&mw.base);
    pte_ptd_writer_destroy(pw);
    free(copy);
    free(bytes);
  }
}

int main(void) {
  RUN(roundtrip_every_corpus_file);
  RUN(copy_is_deterministic);
  RUN(layout_rules_on_copies);
  RUN(migrate_old_format_files);
  RUN(migrate_module_linear_constants);
  RUN(migrate_in_place);
  RUN(flatc_decodes_copies);
  RUN(flatc_decodes_extensions);
  RUN(ptd_rewrite_corpus);
  return test_summary();
}
