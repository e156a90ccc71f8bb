/* The XNNPACK backend against the real XNNPACK library (Debian libxnnpack-dev, 2022 snapshot) —
 * an oracle that shares no arithmetic with pte (built only when CMake finds the library; CI
 * installs it).
 *
 * Every XnnpackBackend delegate of the corpus (a test checks that no corpus file with one is left
 * out), `pte synth mlp|cnn|large|denoise --delegate xnnpack` and the generated YOLO-like, int8
 * KWS, fp32 node-zoo and qs8 node-zoo models run through pte (every kernel ISA this CPU has:
 * scalar, AVX2, AVX-512; 1 and 2 threads) and, translated from pte's parsed graph
 * (tests/support/xnnpack_lib.c), through libXNNPACK with the same inputs. The generated models
 * also run as .pte files through the method runtime. Outputs agree: fp32 within 1e-5 relative
 * (to |ref| + rms(ref)); outputs converted from int8 exactly or within one quantization step
 * (one-step differences are counted in the output).
 * Also: the translator against hand-computed values, a negative control (other weights must be
 * detected), init-time rewrites (SiLU, clamp folding) undone for the library, and what the
 * library lacks (a node kind, qdint8) reported by name.
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <math.h>

#include "../../backends/xnnpack/xnn_internal.h"
#include "pte/memory.h"
#include "pte/method.h"
#include "pte_gen/xnnpack_gen.h"
#include "test.h"
#include "test_xnnpack_util.h"
#include "xnnpack_lib.h"
#include "xnnpack_lib_models.h"

#define MAXE 16

/* Step of the int8 value an fp32 output is converted from (0: not a converted int8 value). */
static double q_step_of_output(const pte_xnn_delegate *d, uint32_t ext_id) {
  for (size_t vi = 0; vi < d->n_values; vi++) {
    const pte_xnn_value *v = &d->values[vi];
    if (!v->is_output || v->external_id != ext_id) continue;
    for (size_t ni = 0; ni < d->n_nodes; ni++) {
      const pte_xnn_node *n = &d->nodes[ni];
      if (n->out[0] != vi || n->type != pte_xn_XNodeUnion_XNNConvert) continue;
      const pte_xnn_value *iv = &d->values[n->in[0]];
      if (iv->dtype == PTE_XD_QINT8 || iv->dtype == PTE_XD_QUINT8) return iv->scale;
    }
  }
  return 0;
}

/* Compares fp32 output ext_id (cnt elements) of pte (got) with the library's (ref): within 1e-5
 * relative, or one int8 step when it is converted from int8; each output must hold min_distinct
 * distinct values. *worst: largest error / tolerance. Returns 0 (agree), 1 (mismatch, reported
 * when `report`), -1 (degenerate output or no memory, reported). */
static int cmp_f32_output(const pte_xnn_delegate *d, size_t ext_id, const float *got, const float *ref, size_t cnt,
                          size_t min_distinct, bool report, double *worst_out, const char *what) {
  const double step = q_step_of_output(d, (uint32_t)ext_id);
  double *refd = (double *)malloc((cnt ? cnt : 1) * sizeof(double));
  if (!refd) {
    test_fail(__FILE__, __LINE__, "%s: out of memory", what);
    return -1;
  }
  for (size_t k = 0; k < cnt; k++) refd[k] = ref[k];
  int rc = 0;
  size_t distinct = 0;
  for (size_t k = 0; k < cnt && distinct < min_distinct; k++) {
    bool seen = false;
    for (size_t j = 0; j < k && !seen; j++) seen = ref[j] == ref[k];
    distinct += !seen;
  }
  if (distinct < min_distinct) {
    test_fail(__FILE__, __LINE__, "%s: output %zu is degenerate (%zu distinct values)", what, ext_id, distinct);
    rc = -1;
  }
  size_t worst = 0;
  double w;
  if (step > 0) { /* dequantized int8: equal or one step apart */
    w = 0;
    size_t off = 0;
    for (size_t k = 0; k < cnt; k++) {
      double e = fabs((double)got[k] - refd[k]) / (step * 1.001);
      if (isnan(got[k]) != isnan(refd[k])) e = 1e30;
      off += e > 0.5;
      if (e > w) w = e, worst = k;
    }
    if (off) printf("  %s: output %zu: %zu of %zu elements one int8 step apart\n", what, ext_id, off, cnt);
  } else {
    w = xt_compare(got, refd, cnt, 1e-5, &worst);
  }
  *worst_out = w;
  if (w > 1.0) {
    if (rc == 0) rc = 1;
    if (report)
      test_fail(__FILE__, __LINE__, "%s: output %zu element %zu of %zu: pte %.9g vs libXNNPACK %.9g (%.3g x tolerance%s)",
                what, ext_id, worst, cnt, (double)got[worst], refd[worst], w, step > 0 ? ", 1 step" : ", 1e-5 rel");
  }
  free(refd);
  return rc;
}

typedef struct cmp_opts {
  const size_t (*shapes)[6]; /* input shapes by external id ({0}: declared), or NULL */
  int threads;
  pte_xnn_isa isa; /* pte's kernels (the library picks its own) */
  const pte_named_data_map *lib_ndm; /* named data for the library side (NULL: same) */
  const uint8_t *lib_blob;           /* blob for the library side (NULL: same) */
  size_t lib_size;
  bool expect_mismatch; /* negative control */
  size_t min_distinct;  /* each fp32 output must hold at least this many distinct values */
} cmp_opts;

/* Runs blob in pte and in libXNNPACK with the same random inputs and compares every output.
 * Returns true when they agree (or, with expect_mismatch, when a mismatch was found). */
static bool cmp_blob(const uint8_t *blob, size_t size, const pte_named_data_map *ndm, const cmp_opts *co,
                     const char *what) {
  xt_ext ext[MAXE];
  size_t n = xt_graph_io(blob, size, ext, MAXE);
  if (n == 0) {
    test_fail(__FILE__, __LINE__, "%s: no external values", what);
    return false;
  }
  pte_xnnpack_options o = {co->threads, co->isa};
  pte_xnn_delegate *d = NULL;
  pte_error_info err;
  memset(&err, 0, sizeof err);
  if (pte_xnn_delegate_init(blob, size, ndm, &o, &d, &err) != PTE_OK) {
    test_fail(__FILE__, __LINE__, "%s: pte init failed: %s", what, err.msg);
    return false;
  }
  xt_tensor ts[MAXE];
  pte_evalue *args[MAXE];
  void *pbuf[MAXE] = {0}, *lbuf[MAXE] = {0}, *ptrs[MAXE] = {0};
  size_t esz[MAXE] = {0};
  bool ok = true, mismatch = false;
  size_t compared = 0;
  double worst_all = 0;
  for (size_t i = 0; i < n && ok; i++) {
    if (!ext[i].used) continue;
    size_t dims[6];
    memcpy(dims, ext[i].dims, sizeof dims);
    if (ext[i].in && co->shapes && co->shapes[i][0] != 0) memcpy(dims, co->shapes[i], sizeof dims);
    const int dt = ext[i].dtype == PTE_XD_FP32    ? PTE_DTYPE_FLOAT
                   : ext[i].dtype == PTE_XD_QINT8 ? PTE_DTYPE_CHAR
                   : ext[i].dtype == PTE_XD_QUINT8 ? PTE_DTYPE_BYTE
                                                  : -1;
    if (dt < 0) {
      test_fail(__FILE__, __LINE__, "%s: external %zu has datatype %d (test handles fp32/int8)", what, i, ext[i].dtype);
      ok = false;
      break;
    }
    esz[i] = dt == PTE_DTYPE_FLOAT ? 4 : 1;
    size_t cnt = xt_numel_of(dims, ext[i].rank), cap = xt_numel_of(ext[i].dims, ext[i].rank);
    if (cnt > cap) cap = cnt;
    cap = cap * esz[i] + 64;
    pbuf[i] = calloc(1, cap);
    lbuf[i] = calloc(1, cap);
    if (!pbuf[i] || !lbuf[i]) {
      test_fail(__FILE__, __LINE__, "%s: out of memory", what);
      ok = false;
      break;
    }
    if (ext[i].in) {
      if (dt == PTE_DTYPE_FLOAT) xt_fill((float *)pbuf[i], cnt, 2.0f);
      else
        for (size_t k = 0; k < cnt; k++) ((uint8_t *)pbuf[i])[k] = (uint8_t)(xt_rand() * 127.0f + 128.0f);
    }
    xt_tensor_init(&ts[i], dt, ext[i].rank, dims, pbuf[i], cap, ext[i].out ? PTE_SHAPE_DYNAMIC_BOUND : PTE_SHAPE_STATIC);
    args[i] = &ts[i].ev;
    ptrs[i] = ext[i].in ? pbuf[i] : lbuf[i];
  }
  if (ok && pte_xnn_delegate_execute(d, args, n, &err) != PTE_OK) {
    test_fail(__FILE__, __LINE__, "%s: pte execute failed: %s", what, err.msg);
    ok = false;
  }
  pxl_runner *r = NULL;
  char lerr[1024] = "";
  if (ok) {
    const uint8_t *lb = co->lib_blob ? co->lib_blob : blob;
    size_t ls = co->lib_blob ? co->lib_size : size;
    pte_xnn_delegate *ld = d, *other = NULL;
    if (co->lib_blob) { /* negative control: the library runs another blob of the same shapes */
      if (pte_xnn_delegate_init(lb, ls, co->lib_ndm, &o, &other, &err) != PTE_OK) {
        test_fail(__FILE__, __LINE__, "%s: pte init of the control blob failed: %s", what, err.msg);
        ok = false;
      }
      ld = other;
    }
    if (ok && pxl_create(ld, lb, ls, co->lib_ndm ? co->lib_ndm : ndm, co->threads, &r, lerr, sizeof lerr)) {
      test_fail(__FILE__, __LINE__, "%s: libXNNPACK: %s", what, lerr);
      ok = false;
    }
    for (size_t i = 0; ok && i < n; i++) {
      if (!ext[i].used || !ext[i].out) continue;
      if (pxl_ext_bytes(r, i) != ts[i].t.numel * esz[i]) {
        test_fail(__FILE__, __LINE__, "%s: output %zu: pte %zu elements, library %zu bytes", what, i, ts[i].t.numel,
                  pxl_ext_bytes(r, i));
        ok = false;
      }
    }
    if (ok && (pxl_bind(r, ptrs, n, lerr, sizeof lerr) || pxl_invoke(r, lerr, sizeof lerr))) {
      test_fail(__FILE__, __LINE__, "%s: libXNNPACK run: %s", what, lerr);
      ok = false;
    }
    pxl_destroy(r);
    pte_xnn_delegate_destroy(other);
  }
  for (size_t i = 0; ok && i < n; i++) {
    if (!ext[i].used || !ext[i].out) continue;
    const size_t cnt = ts[i].t.numel;
    if (esz[i] == 4) {
      double w = 0;
      int rc = cmp_f32_output(d, i, (const float *)pbuf[i], (const float *)lbuf[i], cnt, co->min_distinct,
                              !co->expect_mismatch, &w, what);
      if (rc < 0) ok = false;
      if (rc > 0) mismatch = true;
      if (w > worst_all) worst_all = w;
    } else {
      const int8_t *got = (const int8_t *)pbuf[i], *ref = (const int8_t *)lbuf[i];
      for (size_t k = 0; k < cnt; k++)
        if (abs((int)got[k] - (int)ref[k]) > 1) {
          mismatch = true;
          if (!co->expect_mismatch)
            test_fail(__FILE__, __LINE__, "%s: output %zu element %zu: pte %d vs libXNNPACK %d", what, i, k, got[k], ref[k]);
          break;
        }
    }
    compared += cnt;
  }
  if (ok) printf("  %s: %zu output elements compared, worst %.3g x tolerance\n", what, compared, worst_all);
  if (ok && compared == 0) {
    test_fail(__FILE__, __LINE__, "%s: nothing compared", what);
    ok = false;
  }
  for (size_t i = 0; i < n; i++) free(pbuf[i]), free(lbuf[i]);
  pte_xnn_delegate_destroy(d);
  if (co->expect_mismatch) {
    if (ok && !mismatch) test_fail(__FILE__, __LINE__, "%s: the control went undetected", what);
    return ok && mismatch;
  }
  return ok && !mismatch;
}

static bool cmp_threads(const uint8_t *blob, size_t size, const pte_named_data_map *ndm, const size_t (*shapes)[6],
                        size_t min_distinct, const char *what) {
  bool ok = true;
  for (size_t ii = 0; ii < sizeof k_isas / sizeof k_isas[0] && ok; ii++) {
    if (!pte_xnnpack_isa_supported(k_isas[ii])) continue;
    for (int t = 1; t <= 2 && ok; t++) {
      cmp_opts co;
      memset(&co, 0, sizeof co);
      co.shapes = shapes;
      co.threads = t;
      co.isa = k_isas[ii];
      co.min_distinct = min_distinct;
      char label[200];
      snprintf(label, sizeof label, "%s [pte %s, %d thread%s]", what, pte_xnnpack_isa_name(k_isas[ii]), t,
               t > 1 ? "s" : "");
      ok = cmp_blob(blob, size, ndm, &co, label);
    }
  }
  return ok;
}

/* Every delegate of a program file. */
static void cmp_program_bytes(uint8_t *file, size_t fsize, const char *name, const size_t (*const *shapes)[6]) {
  xt_prog p;
  memset(&p, 0, sizeof p);
  p.file = file;
  p.size = fsize;
  pte_buffer_loader_init(&p.loader, p.file, p.size);
  pte_error_info err;
  if (pte_program_load(&p.loader.base, PTE_VERIFY_INTERNAL_CONSISTENCY, &p.prog, &err) != PTE_OK) {
    test_fail(__FILE__, __LINE__, "%s: cannot load: %s", name, err.msg);
    free(file);
    return;
  }
  p.ok = true;
  const pte_named_data_map *ndm = pte_program_named_data_map(&p.prog);
  size_t nd = xt_num_delegates(&p, 0);
  CHECK(nd > 0);
  for (size_t i = 0; i < nd; i++) {
    pte_freeable_buffer b;
    CHECK(xt_blob(&p, 0, i, &b));
    char what[160];
    snprintf(what, sizeof what, "%s delegate %zu", name, i);
    bool ok = cmp_threads((const uint8_t *)b.data, b.size, ndm, shapes ? shapes[i] : NULL, 0, what);
    pte_freeable_buffer_free(&b);
    if (!ok) break;
  }
  xt_close(&p);
}

static void cmp_corpus(const char *name, const size_t (*const *shapes)[6]) {
  size_t size;
  uint8_t *file = test_read_corpus(name, &size);
  if (!file) {
    test_fail(__FILE__, __LINE__, "corpus file %s missing", name);
    return;
  }
  cmp_program_bytes(file, size, name, shapes);
}

/* ---- corpus --------------------------------------------------------------------------------- */

TEST(corpus_numpyrt_add) { cmp_corpus("numpyrt_add.pte", NULL); }
TEST(corpus_djl_spike_add) { cmp_corpus("djl_spike_add.pte", NULL); }
TEST(corpus_djl_spike_add_unplanned) { cmp_corpus("djl_spike_add_unplanned.pte", NULL); }
TEST(corpus_djl_spike_clamp5) { cmp_corpus("djl_spike_clamp5.pte", NULL); }
TEST(corpus_djl_spike_conv) { cmp_corpus("djl_spike_conv.pte", NULL); }
TEST(corpus_djl_spike_lin129) { cmp_corpus("djl_spike_lin129.pte", NULL); }
TEST(corpus_djl_spike_lin129_planned) { cmp_corpus("djl_spike_lin129_planned.pte", NULL); }
TEST(corpus_djl_stress_mlp) { cmp_corpus("djl_stress_mlp.pte", NULL); }
TEST(corpus_numpyrt_quantized) { cmp_corpus("numpyrt_quantized.pte", NULL); }
TEST(corpus_numpyrt_dynamic) {
  static const size_t s5[3][6] = {{5}, {1}, {0}};
  const size_t(*const sh[1])[6] = {s5};
  cmp_corpus("numpyrt_dynamic.pte", NULL);
  cmp_corpus("numpyrt_dynamic.pte", sh);
}
TEST(corpus_simple_torch_model) {
  static const size_t img[2][6] = {{1, 1, 64, 48}, {0}};
  const size_t(*const sh[2])[6] = {img, NULL};
  cmp_corpus("simple-torch-model.pte", sh);
}

/* Every corpus file holding an XnnpackBackend delegate is one of the files compared above. */
static const char *const k_listed[] = {"numpyrt_add.pte", "djl_spike_add.pte", "djl_spike_add_unplanned.pte",
                                       "djl_spike_clamp5.pte", "djl_spike_conv.pte", "djl_spike_lin129.pte",
                                       "djl_spike_lin129_planned.pte", "djl_stress_mlp.pte", "numpyrt_quantized.pte",
                                       "numpyrt_dynamic.pte", "simple-torch-model.pte"};

TEST(corpus_every_xnnpack_file_is_compared) {
  const char *dir = getenv("PTE_CORPUS");
  DIR *dh = dir ? opendir(dir) : NULL;
  if (!dh) {
    test_fail(__FILE__, __LINE__, "cannot list the corpus (PTE_CORPUS=%s)", dir ? dir : "(unset)");
    return;
  }
  static const char needle[] = "XnnpackBackend";
  size_t found = 0;
  struct dirent *e;
  while ((e = readdir(dh)) != NULL) {
    size_t l = strlen(e->d_name);
    if (l < 5 || (strcmp(e->d_name + l - 4, ".pte") && strcmp(e->d_name + l - 5, ".bpte"))) continue;
    size_t size;
    uint8_t *f = test_read_corpus(e->d_name, &size);
    if (!f) continue;
    bool xnn = false;
    for (size_t i = 0; !xnn && i + sizeof needle - 1 <= size; i++) xnn = memcmp(f + i, needle, sizeof needle - 1) == 0;
    free(f);
    if (!xnn) continue;
    found++;
    bool listed = false;
    for (size_t k = 0; k < sizeof k_listed / sizeof k_listed[0]; k++) listed |= strcmp(k_listed[k], e->d_name) == 0;
    if (!listed) test_fail(__FILE__, __LINE__, "corpus file %s has an XNNPACK delegate but is not compared", e->d_name);
  }
  closedir(dh);
  CHECK_EQ_INT(found, sizeof k_listed / sizeof k_listed[0]);
}

/* ---- generated models ------------------------------------------------------------------------ */

static void cmp_synth(const char *kind, const char *opts) {
  const char *cli = getenv("PTE_CLI");
  if (!cli) {
    test_fail(__FILE__, __LINE__, "PTE_CLI not set");
    return;
  }
  char path[512], cmd[1400];
  snprintf(path, sizeof path, "%s", test_tmp_path(kind));
  snprintf(path + strlen(path), sizeof path - strlen(path), "-libxnn.pte");
  snprintf(cmd, sizeof cmd, "'%s' synth %s --delegate xnnpack %s -o '%s' 2>&1", cli, kind, opts, path);
  int code = -1;
  char *out = test_run_capture(cmd, &code);
  if (code != 0) test_fail(__FILE__, __LINE__, "%s: exit %d: %s", cmd, code, out ? out : "");
  free(out);
  if (code != 0) return;
  size_t size;
  uint8_t *file = test_read_file(path, &size);
  if (!file) {
    test_fail(__FILE__, __LINE__, "cannot read %s", path);
    return;
  }
  char name[64];
  snprintf(name, sizeof name, "synth %s", kind);
  cmp_program_bytes(file, size, name, NULL);
  remove(path);
}

TEST(synth_mlp) { cmp_synth("mlp", "--widths 784,256,128,10 --batch 4"); }
TEST(synth_cnn) { cmp_synth("cnn", "--channels 3,16,32 --image 32"); }
TEST(synth_cnn_batch2) { cmp_synth("cnn", "--channels 3,8,16,32 --image 40 --batch 2 --classes 7 --seed 3"); }
TEST(synth_large) { cmp_synth("large", "--size 2M --layers 3"); }
TEST(synth_denoise) { cmp_synth("denoise", "--steps 3 --width 64 --batch 4"); }

static void cmp_built(pte_status (*build)(pte_xnn_blob *, pte_error_info *), const char *what) {
  pte_xnn_blob blob;
  pte_error_info err;
  memset(&err, 0, sizeof err);
  CHECK_OK(build(&blob, &err));
  pte_xnn_blob_data_map map;
  pte_xnn_blob_data_map_init(&map, &blob);
  CHECK(cmp_threads(blob.data, blob.size, &map.base, NULL, 8, what));
  pte_xnn_blob_free(&blob);
}

static pte_status build_yolo_small(pte_xnn_blob *b, pte_error_info *e) { return pxm_build_yolo(64, b, e); }
static pte_status build_yolo_416(pte_xnn_blob *b, pte_error_info *e) { return pxm_build_yolo(416, b, e); }

TEST(yolo_like_64) { cmp_built(build_yolo_small, "YOLO-like 64x64"); }
TEST(yolo_like_416) { cmp_built(build_yolo_416, "YOLO-like 416x416"); }
TEST(kws_int8) { cmp_built(pxm_build_kws, "KWS int8"); }
TEST(node_zoo) { cmp_built(pxm_build_zoo, "node zoo"); }
TEST(qs8_zoo) { cmp_built(pxm_build_qzoo, "qs8 zoo"); }

/* ---- the generated models as .pte files, through the method runtime --------------------------- */

/* Writes the model with pte's writer, runs method "forward" with the XnnpackBackend registered,
 * and compares its outputs with the library running the same blob on the same inputs. */
static void cmp_method(pte_status (*build)(pte_xnn_blob *, pte_error_info *), const char *name, size_t min_distinct) {
  pte_xnn_blob blob;
  pte_error_info err;
  memset(&err, 0, sizeof err);
  CHECK_OK(build(&blob, &err));
  char path[512];
  snprintf(path, sizeof path, "%s.pte", test_tmp_path(name));
  pte_status ws = pxm_write_pte(&blob, path, &err);
  if (ws != PTE_OK) {
    test_fail(__FILE__, __LINE__, "%s: writing %s: %s", name, path, err.msg);
    pte_xnn_blob_free(&blob);
    return;
  }
  size_t fsize = 0;
  uint8_t *file = test_read_file(path, &fsize);
  remove(path);
  CHECK(file != NULL);
  pte_buffer_loader loader;
  pte_program prog;
  pte_method *m = NULL;
  pte_planned_buffer planned[4];
  size_t n_planned = 0;
  uint8_t *pool = (uint8_t *)malloc(8 << 20), *temp_mem = (uint8_t *)malloc(1 << 20);
  float *inbuf[MAXE] = {0}, *lout[MAXE] = {0};
  pte_xnn_delegate *d = NULL;
  pxl_runner *r = NULL;
  bool prog_ok = false;
  memset(planned, 0, sizeof planned);
  if (!file || !pool || !temp_mem) goto done;
  pte_buffer_loader_init(&loader, file, fsize);
  if (pte_program_load(&loader.base, PTE_VERIFY_INTERNAL_CONSISTENCY, &prog, &err) != PTE_OK) {
    test_fail(__FILE__, __LINE__, "%s: program load: %s", name, err.msg);
    goto done;
  }
  prog_ok = true;
  pte_method_meta meta;
  CHECK_OK(pte_method_meta_get(&prog, "forward", &meta, &err));
  n_planned = pte_method_meta_num_planned_buffers(&meta);
  CHECK(n_planned <= 4);
  for (size_t i = 0; i < n_planned && i < 4; i++) {
    uint64_t sz = 0;
    pte_method_meta_planned_buffer_size(&meta, i, &sz);
    planned[i].data = calloc(1, (size_t)sz + 64);
    planned[i].size = (size_t)sz;
  }
  pte_allocator ma, temp;
  pte_memory_manager mm;
  pte_allocator_init(&ma, pool, 8 << 20);
  pte_allocator_init(&temp, temp_mem, 1 << 20);
  pte_memory_manager_init(&mm, &ma, planned, n_planned < 4 ? n_planned : 4, &temp);
  if (pte_method_load(&prog, "forward", &mm, NULL, NULL, &m, &err) != PTE_OK) {
    test_fail(__FILE__, __LINE__, "%s: method load: %s", name, err.msg);
    goto done;
  }
  /* the library: the same blob compiled directly, translated */
  pte_xnn_blob_data_map map;
  pte_xnn_blob_data_map_init(&map, &blob);
  CHECK_OK(pte_xnn_delegate_init(blob.data, blob.size, &map.base, NULL, &d, &err));
  char lerr[512] = "";
  if (!d || pxl_create(d, blob.data, blob.size, &map.base, 1, &r, lerr, sizeof lerr)) {
    test_fail(__FILE__, __LINE__, "%s: libXNNPACK: %s", name, lerr);
    goto done;
  }
  xt_ext ext[MAXE];
  const size_t n = xt_graph_io(blob.data, blob.size, ext, MAXE);
  void *ptrs[MAXE] = {0};
  size_t in_i = 0, out_i = 0, compared = 0;
  for (size_t e = 0; e < n; e++) {
    const size_t cnt = xt_numel_of(ext[e].dims, ext[e].rank);
    if (ext[e].in) {
      inbuf[e] = (float *)malloc(cnt * sizeof(float) + 64);
      if (!inbuf[e]) goto done;
      xt_fill(inbuf[e], cnt, 2.0f);
      int32_t sz[6];
      for (int k = 0; k < ext[e].rank; k++) sz[k] = (int32_t)ext[e].dims[k];
      CHECK_OK(pte_method_set_input_tensor(m, in_i++, PTE_DTYPE_FLOAT, sz, ext[e].rank, inbuf[e],
                                           cnt * sizeof(float), &err));
      ptrs[e] = inbuf[e];
    } else {
      lout[e] = (float *)calloc(cnt + 16, sizeof(float));
      if (!lout[e]) goto done;
      ptrs[e] = lout[e];
    }
  }
  if (pte_method_execute(m, &err) != PTE_OK) {
    test_fail(__FILE__, __LINE__, "%s: method execute: %s", name, err.msg);
    goto done;
  }
  if (pxl_bind(r, ptrs, n, lerr, sizeof lerr) || pxl_invoke(r, lerr, sizeof lerr)) {
    test_fail(__FILE__, __LINE__, "%s: libXNNPACK run: %s", name, lerr);
    goto done;
  }
  CHECK_EQ_INT(pte_method_num_outputs(m), (size_t)n - in_i);
  for (size_t e = 0; e < n; e++) {
    if (!ext[e].out) continue;
    const pte_evalue *ev = pte_method_get_output(m, out_i++);
    const size_t cnt = xt_numel_of(ext[e].dims, ext[e].rank);
    if (!ev || ev->tag != PTE_TAG_TENSOR || ev->u.tensor->numel != cnt) {
      test_fail(__FILE__, __LINE__, "%s: method output %zu is not a %zu-element tensor", name, out_i - 1, cnt);
      continue;
    }
    double w = 0;
    cmp_f32_output(d, e, (const float *)ev->u.tensor->data, lout[e], cnt, min_distinct, true, &w, name);
    compared += cnt;
  }
  printf("  %s (.pte, method runtime): %zu output elements compared\n", name, compared);
  CHECK(compared > 0);
done:
  pxl_destroy(r);
  pte_xnn_delegate_destroy(d);
  for (size_t e = 0; e < MAXE; e++) free(inbuf[e]), free(lout[e]);
  if (m) pte_method_destroy(m);
  for (size_t i = 0; i < 4; i++) free(planned[i].data);
  if (prog_ok) pte_program_destroy(&prog);
  free(pool);
  free(temp_mem);
  free(file);
  pte_xnn_blob_free(&blob);
}

TEST(method_yolo_like) { cmp_method(build_yolo_small, "yolo-like-64", 8); }
TEST(method_kws_int8) { cmp_method(pxm_build_kws, "kws-qs8", 8); }
TEST(method_node_zoo) { cmp_method(pxm_build_zoo, "node-zoo", 8); }
TEST(method_qs8_zoo) { cmp_method(pxm_build_qzoo, "qs8-zoo", 8); }

/* ---- the translator itself ------------------------------------------------------------------- */

/* Linear 3 -> 2 with hand-set weights on libXNNPACK alone: y = W x + b computed by hand. */
TEST(translator_linear_by_hand) {
  static const float w[6] = {1, 2, 3, -1, 0.5f, 4}, bias[2] = {0.25f, -2};
  pte_xnn_blob blob;
  CHECK_OK(pte_xnn_blob_build_linear(1, 3, 2, w, bias, PTE_XNN_CONSTANTS_INLINE, &blob, NULL));
  pte_xnn_delegate *d = NULL;
  CHECK_OK(pte_xnn_delegate_init(blob.data, blob.size, NULL, NULL, &d, NULL));
  pxl_runner *r = NULL;
  char err[512] = "";
  CHECK(pxl_create(d, blob.data, blob.size, NULL, 1, &r, err, sizeof err) == 0);
  if (r) {
    float x[3] = {2, -1, 0.5f}, y[2] = {0, 0};
    void *ext[2] = {x, y};
    CHECK_EQ_INT(pxl_num_ext(r), 2);
    CHECK(pxl_bind(r, ext, 2, err, sizeof err) == 0 && pxl_invoke(r, err, sizeof err) == 0);
    /* 1*2 + 2*-1 + 3*0.5 + 0.25 = 1.75; -1*2 + 0.5*-1 + 4*0.5 - 2 = -2.5 */
    CHECK(y[0] == 1.75f);
    CHECK(y[1] == -2.5f);
    CHECK_EQ_INT(pxl_num_runtimes(r), 1);
    CHECK(strcmp(pxl_host_nodes(r), "") == 0);
    pxl_destroy(r);
  }
  pte_xnn_delegate_destroy(d);
  pte_xnn_blob_free(&blob);
}

/* The comparison detects a difference: pte runs weights W, the library W with one entry changed. */
TEST(negative_control_detects_other_weights) {
  float w[64], w2[64], bias[8];
  for (int i = 0; i < 64; i++) w[i] = w2[i] = xt_rand();
  for (int i = 0; i < 8; i++) bias[i] = xt_rand();
  w2[17] += 0.01f;
  pte_xnn_blob a, b;
  CHECK_OK(pte_xnn_blob_build_linear(2, 8, 8, w, bias, PTE_XNN_CONSTANTS_INLINE, &a, NULL));
  CHECK_OK(pte_xnn_blob_build_linear(2, 8, 8, w2, bias, PTE_XNN_CONSTANTS_INLINE, &b, NULL));
  cmp_opts co;
  memset(&co, 0, sizeof co);
  co.threads = 1;
  co.lib_blob = b.data;
  co.lib_size = b.size;
  co.expect_mismatch = true;
  CHECK(cmp_blob(a.data, a.size, NULL, &co, "control"));
  pte_xnn_blob_free(&a);
  pte_xnn_blob_free(&b);
}

/* A node the library lacks is reported by name; data-movement nodes run on the host are listed. */
TEST(missing_node_reported_by_name) {
  pte_xnn_blob blob;
  CHECK_OK(pxm_build_tanh(&blob, NULL));
  pte_xnn_blob_data_map map;
  pte_xnn_blob_data_map_init(&map, &blob);
  pte_xnn_delegate *d = NULL;
  CHECK_OK(pte_xnn_delegate_init(blob.data, blob.size, &map.base, NULL, &d, NULL));
  pxl_runner *r = NULL;
  char err[512] = "";
  CHECK(pxl_create(d, blob.data, blob.size, &map.base, 1, &r, err, sizeof err) != 0);
  CHECK(r == NULL);
  CHECK(strcmp(err, "library lacks: XNNTanh (node 1)") == 0);
  if (!strstr(err, "XNNTanh")) fprintf(stderr, "  message: %s\n", err);
  pte_xnn_delegate_destroy(d);
  pte_xnn_blob_free(&blob);

  /* dynamically quantized activations: pte runs them, the library names the datatype */
  CHECK_OK(pxm_build_kws_qd8(&blob, NULL));
  pte_xnn_blob_data_map_init(&map, &blob);
  CHECK_OK(pte_xnn_delegate_init(blob.data, blob.size, &map.base, NULL, &d, NULL));
  if (d) {
    float in[490], outv[12];
    for (int i = 0; i < 490; i++) in[i] = xt_rand();
    const size_t din[4] = {1, 49, 10, 1}, dout[2] = {1, 12};
    xt_tensor ti, to;
    xt_tensor_init(&ti, PTE_DTYPE_FLOAT, 4, din, in, sizeof in, PTE_SHAPE_STATIC);
    xt_tensor_init(&to, PTE_DTYPE_FLOAT, 2, dout, outv, sizeof outv, PTE_SHAPE_STATIC);
    pte_evalue *args[2] = {&ti.ev, &to.ev};
    CHECK_OK(pte_xnn_delegate_execute(d, args, 2, NULL));
  }
  CHECK(pxl_create(d, blob.data, blob.size, &map.base, 1, &r, err, sizeof err) != 0);
  CHECK(strstr(err, "library lacks: datatype qdint8 (value ids ") == err && strstr(err, "10 in all)") != NULL);
  if (!strstr(err, "10 in all")) fprintf(stderr, "  message: %s\n", err);
  pte_xnn_delegate_destroy(d);
  pte_xnn_blob_free(&blob);

  CHECK_OK(pxm_build_yolo(32, &blob, NULL));
  pte_xnn_blob_data_map_init(&map, &blob);
  CHECK_OK(pte_xnn_delegate_init(blob.data, blob.size, &map.base, NULL, &d, NULL));
  CHECK(pxl_create(d, blob.data, blob.size, &map.base, 1, &r, err, sizeof err) == 0);
  if (r) {
    CHECK(strcmp(pxl_host_nodes(r), "XNNConcatenate2 x1") == 0);
    CHECK_EQ_INT(pxl_num_runtimes(r), 2);
    pxl_destroy(r);
  }
  pte_xnn_delegate_destroy(d);
  pte_xnn_blob_free(&blob);
}

/* 4-bit and half-precision FullyConnected filters: pte runs them (test_xnnpack_q4); Debian's 2022
 * library has neither qcint4 / qbint4 nor qdint8, nor FC over fp16 weights: named, not skipped. */
static pte_status q4_lib_blob(int wdt, pte_xnn_blob *out) {
  pte_xnn_builder *b = pte_xnn_builder_new();
  if (!b) return PTE_ERR_MEMORY_ALLOCATION_FAILED;
  const bool half = wdt == PTE_XNN_DT_FP16;
  uint32_t xd[2] = {2, 64}, wd[2] = {16, 64}, yd[2] = {2, 16}, x, xq = 0, wv = 0, y = 0;
  static uint8_t w[16 * 64 * 2];
  static uint16_t bs[16 * 2];
  static float cs[16];
  for (size_t i = 0; i < sizeof w; i++) w[i] = (uint8_t)(i * 37u);
  for (size_t i = 0; i < 32; i++) bs[i] = 0x3C00;
  for (size_t i = 0; i < 16; i++) cs[i] = 0.01f;
  pte_xnn_tensor_desc t;
  memset(&t, 0, sizeof t);
  t.dtype = PTE_XNN_DT_FP32, t.rank = 2, t.dims = xd, t.flags = PTE_XNN_VALUE_EXTERNAL_INPUT;
  pte_status s = pte_xnn_builder_add_tensor(b, &t, &x);
  xq = x;
  if (!half) {
    memset(&t, 0, sizeof t);
    t.dtype = PTE_XNN_DT_QDINT8, t.rank = 2, t.dims = xd, t.quant = PTE_XNN_QUANT_PER_TOKEN, t.num_nonbatch_dims = 1;
    if (s == PTE_OK) s = pte_xnn_builder_add_tensor(b, &t, &xq);
  }
  memset(&t, 0, sizeof t);
  t.dtype = wdt, t.rank = 2, t.dims = wd, t.data = w, t.nbytes = half ? 16 * 64 * 2 : 16 * 64 / 2;
  if (wdt == PTE_XNN_DT_QBINT4)
    t.quant = PTE_XNN_QUANT_PER_CHANNEL_GROUP, t.block_size = 32, t.block_scales_bf16 = bs, t.n_block_scales = 32;
  if (wdt == PTE_XNN_DT_QCINT4) t.quant = PTE_XNN_QUANT_PER_CHANNEL, t.channel_scales = cs, t.n_channel_scales = 16;
  if (s == PTE_OK) s = pte_xnn_builder_add_tensor(b, &t, &wv);
  memset(&t, 0, sizeof t);
  t.dtype = PTE_XNN_DT_FP32, t.rank = 2, t.dims = yd, t.flags = PTE_XNN_VALUE_EXTERNAL_OUTPUT, t.external_id = 1;
  if (s == PTE_OK) s = pte_xnn_builder_add_tensor(b, &t, &y);
  pte_xnn_node_desc nd;
  if (!half) {
    memset(&nd, 0, sizeof nd);
    nd.type = PTE_XNN_NODE_CONVERT, nd.inputs[0] = x, nd.output = xq;
    if (s == PTE_OK) s = pte_xnn_builder_add_node(b, &nd);
  }
  memset(&nd, 0, sizeof nd);
  nd.type = PTE_XNN_NODE_FULLY_CONNECTED, nd.inputs[0] = xq, nd.inputs[1] = wv, nd.inputs[2] = PTE_XNN_NO_VALUE;
  nd.output = y;
  if (s == PTE_OK) s = pte_xnn_builder_add_node(b, &nd);
  if (s == PTE_OK) s = pte_xnn_builder_finish(b, PTE_XNN_CONSTANTS_NAMED, out, NULL);
  pte_xnn_builder_free(b);
  return s;
}

TEST(q4_and_half_weights_reported_by_name) {
  static const struct { int dt; const char *msg; } cases[] = {
      {PTE_XNN_DT_QBINT4, "library lacks: datatype qdint8 (value id 1), datatype qbint4 (value id 2)"},
      {PTE_XNN_DT_QCINT4, "library lacks: datatype qcint4 (value id 2), datatype qdint8 (value id 1)"},
      {PTE_XNN_DT_FP16, "library lacks: datatype fp16 (value id 1)"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    pte_xnn_blob blob;
    CHECK_OK(q4_lib_blob(cases[i].dt, &blob));
    pte_xnn_blob_data_map map;
    pte_xnn_blob_data_map_init(&map, &blob);
    pte_xnn_delegate *d = NULL;
    CHECK_OK(pte_xnn_delegate_init(blob.data, blob.size, &map.base, NULL, &d, NULL)); /* pte runs it */
    pxl_runner *r = NULL;
    char err[512] = "";
    CHECK(pxl_create(d, blob.data, blob.size, &map.base, 1, &r, err, sizeof err) != 0);
    CHECK(r == NULL);
    CHECK_MSG(strcmp(err, cases[i].msg) == 0, "got \"%s\"", err);
    pte_xnn_delegate_destroy(d);
    pte_xnn_blob_free(&blob);
  }
}

/* ---- init-time rewrites (SiLU, output-clamp folding) are undone for the library -------------- */

static size_t uses_of(const pte_xnn_delegate *d, uint32_t vi) {
  size_t n = 0;
  for (size_t i = 0; i < d->n_nodes; i++)
    for (unsigned k = 0; k < d->nodes[i].n_in; k++) n += d->nodes[i].in[k] == vi;
  return n;
}

static size_t count_absorbed(const pte_xnn_delegate *d) {
  size_t n = 0;
  for (size_t i = 0; i < d->n_nodes; i++)
    n += d->nodes[i].out[0] != PTE_XNN_INVALID_ID && d->values[d->nodes[i].out[0]].def_node != (int)i;
  return n;
}

/* Applies, on the compiled structures, the rewrites pte's init may do (Multiply(x, Sigmoid(x)) ->
 * Multiply(x, x) with the Sigmoid absorbed; Clamp folded into its producer with the intersected
 * range), where pte has not done them itself; returns how many. */
static size_t emulate_fusions(pte_xnn_delegate *d) {
  size_t k = 0;
  for (size_t mi = 0; mi < d->n_nodes; mi++) {
    pte_xnn_node *m = &d->nodes[mi];
    if (m->type != pte_xn_XNodeUnion_XNNMultiply || m->in[0] == m->in[1]) continue;
    for (int side = 0; side < 2; side++) {
      const uint32_t x = m->in[side], sv = m->in[1 - side];
      pte_xnn_value *v = &d->values[sv];
      if (v->def_node < 0 || v->is_output || uses_of(d, sv) != 1) continue;
      const pte_xnn_node *g = &d->nodes[v->def_node];
      if (g->type != pte_xn_XNodeUnion_XNNSigmoid || g->in[0] != x) continue;
      v->def_node = -1;
      m->in[0] = m->in[1] = x;
      k++;
      break;
    }
  }
  for (size_t ci = 0; ci < d->n_nodes; ci++) {
    pte_xnn_node *c = &d->nodes[ci];
    if (c->type != pte_xn_XNodeUnion_XNNClamp || d->values[c->out[0]].def_node != (int)ci) continue;
    pte_xnn_value *y = &d->values[c->in[0]];
    if (y->def_node < 0 || y->is_output || uses_of(d, c->in[0]) != 1) continue;
    pte_xnn_node *p = &d->nodes[y->def_node];
    if (p->type != pte_xn_XNodeUnion_XNNFullyConnected && p->type != pte_xn_XNodeUnion_XNNConv2d) continue;
    p->out_min = fmaxf(p->out_min, c->out_min);
    p->out_max = fminf(p->out_max, c->out_max);
    p->out[0] = c->out[0];
    d->values[c->out[0]].def_node = y->def_node;
    y->def_node = -1;
    k++;
  }
  return k;
}

/* pte runs the blob; then its structures are rewritten as a fusing init would, and the library
 * (which rebuilds the serialized graph from them) must still agree. */
static void check_unfuse(const uint8_t *blob, size_t size, const pte_named_data_map *ndm, size_t want_rewrites,
                         const char *what) {
  pte_xnn_delegate *d = NULL;
  CHECK_OK(pte_xnn_delegate_init(blob, size, ndm, NULL, &d, NULL));
  if (!d) return;
  xt_ext ext[MAXE];
  size_t n = xt_graph_io(blob, size, ext, MAXE);
  xt_tensor ts[MAXE];
  pte_evalue *args[MAXE];
  float *pb[MAXE] = {0}, *lb[MAXE] = {0};
  void *ptrs[MAXE] = {0};
  for (size_t i = 0; i < n; i++) {
    size_t cnt = xt_numel_of(ext[i].dims, ext[i].rank);
    pb[i] = (float *)calloc(cnt + 16, sizeof(float));
    lb[i] = (float *)calloc(cnt + 16, sizeof(float));
    if (ext[i].in) xt_fill(pb[i], cnt, 2.0f);
    xt_tensor_init(&ts[i], PTE_DTYPE_FLOAT, ext[i].rank, ext[i].dims, pb[i], (cnt + 16) * sizeof(float), PTE_SHAPE_STATIC);
    args[i] = &ts[i].ev;
    ptrs[i] = ext[i].in ? (void *)pb[i] : (void *)lb[i];
  }
  CHECK_OK(pte_xnn_delegate_execute(d, args, n, NULL));
  const size_t before = count_absorbed(d), emulated = emulate_fusions(d);
  CHECK(before + emulated >= want_rewrites);
  CHECK_EQ_INT(count_absorbed(d), before + emulated);
  pxl_runner *r = NULL;
  char err[512] = "";
  CHECK(pxl_create(d, blob, size, ndm, 1, &r, err, sizeof err) == 0);
  if (r && pxl_bind(r, ptrs, n, err, sizeof err) == 0 && pxl_invoke(r, err, sizeof err) == 0) {
    for (size_t i = 0; i < n; i++) {
      if (!ext[i].out) continue;
      size_t cnt = xt_numel_of(ext[i].dims, ext[i].rank), worst;
      double *ref = (double *)malloc(cnt * sizeof(double));
      for (size_t k = 0; ref && k < cnt; k++) ref[k] = lb[i][k];
      double w = ref ? xt_compare(pb[i], ref, cnt, 1e-5, &worst) : 1e30;
      if (w > 1.0) test_fail(__FILE__, __LINE__, "%s: output %zu differs after the rewrites (%.3g x tolerance)", what, i, w);
      free(ref);
    }
  } else {
    test_fail(__FILE__, __LINE__, "%s: %s", what, err);
  }
  pxl_destroy(r);
  for (size_t i = 0; i < n; i++) free(pb[i]), free(lb[i]);
  pte_xnn_delegate_destroy(d);
}

TEST(unfuse_silu) {
  pte_xnn_blob blob;
  CHECK_OK(pxm_build_yolo(32, &blob, NULL));
  pte_xnn_blob_data_map map;
  pte_xnn_blob_data_map_init(&map, &blob);
  check_unfuse(blob.data, blob.size, &map.base, 10, "YOLO-like 32, SiLU rewrites");
  pte_xnn_blob_free(&blob);
}

TEST(unfuse_clamp) {
  /* [2, 8] -> FullyConnected (range [-1, 3]) -> Clamp [-0.5, 0.5] -> output */
  pte_xnn_builder *b = pte_xnn_builder_new();
  CHECK(b != NULL);
  if (!b) return;
  float w[64];
  for (int i = 0; i < 64; i++) w[i] = xt_rand();
  uint32_t d2[2] = {2, 8}, wd[2] = {8, 8}, x, W, y, o;
  pte_xnn_tensor_desc t;
  memset(&t, 0, sizeof t);
  t.dtype = PTE_XNN_DT_FP32;
  t.rank = 2;
  t.dims = d2;
  t.flags = PTE_XNN_VALUE_EXTERNAL_INPUT;
  CHECK_OK(pte_xnn_builder_add_tensor(b, &t, &x));
  t.flags = 0;
  CHECK_OK(pte_xnn_builder_add_tensor(b, &t, &y));
  t.flags = PTE_XNN_VALUE_EXTERNAL_OUTPUT;
  t.external_id = 1;
  CHECK_OK(pte_xnn_builder_add_tensor(b, &t, &o));
  memset(&t, 0, sizeof t);
  t.dtype = PTE_XNN_DT_FP32;
  t.rank = 2;
  t.dims = wd;
  t.data = w;
  t.nbytes = sizeof w;
  CHECK_OK(pte_xnn_builder_add_tensor(b, &t, &W));
  pte_xnn_node_desc n;
  memset(&n, 0, sizeof n);
  n.type = PTE_XNN_NODE_FULLY_CONNECTED;
  n.inputs[0] = x;
  n.inputs[1] = W;
  n.inputs[2] = PTE_XNN_NO_VALUE;
  n.output = y;
  n.has_min_max = true;
  n.out_min = -1.0f;
  n.out_max = 3.0f;
  CHECK_OK(pte_xnn_builder_add_node(b, &n));
  memset(&n, 0, sizeof n);
  n.type = PTE_XNN_NODE_CLAMP;
  n.inputs[0] = y;
  n.output = o;
  n.has_min_max = true;
  n.out_min = -0.5f;
  n.out_max = 0.5f;
  CHECK_OK(pte_xnn_builder_add_node(b, &n));
  pte_xnn_blob blob;
  CHECK_OK(pte_xnn_builder_finish(b, PTE_XNN_CONSTANTS_INLINE, &blob, NULL));
  pte_xnn_builder_free(b);
  check_unfuse(blob.data, blob.size, NULL, 1, "FC + Clamp, clamp folding");
  pte_xnn_blob_free(&blob);
}

int main(void) {
  if (pxl_init() != 0) {
    fprintf(stderr, "xnn_initialize failed\n");
    return 1;
  }
  if (pte_register_xnnpack_backend() != PTE_OK) {
    fprintf(stderr, "cannot register the XnnpackBackend\n");
    return 1;
  }
  RUN(translator_linear_by_hand);
  RUN(negative_control_detects_other_weights);
  RUN(missing_node_reported_by_name);
  RUN(q4_and_half_weights_reported_by_name);
  RUN(unfuse_silu);
  RUN(unfuse_clamp);
  RUN(corpus_every_xnnpack_file_is_compared);
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
  RUN(synth_mlp);
  RUN(synth_cnn);
  RUN(synth_cnn_batch2);
  RUN(synth_large);
  RUN(synth_denoise);
  RUN(yolo_like_64);
  RUN(yolo_like_416);
  RUN(kws_int8);
  RUN(node_zoo);
  RUN(qs8_zoo);
  RUN(method_yolo_like);
  RUN(method_kws_int8);
  RUN(method_node_zoo);
  RUN(method_qs8_zoo);
  return test_summary();
}
