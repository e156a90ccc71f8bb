#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE 1 /* MAP_ANONYMOUS */
/* XnnpackBackend prepare support: initialize_backend_data stores packed weights (named-data
 * values, or the processed blob of inline-constant exports) in the prepared-data envelope; init
 * then uses them in place (no packing, no copy), refuses data prepared for another ISA with
 * DelegateInvalidCompatibility, or re-lays it out with the repack_prepared runtime spec.
 * Programs are built with the XNNPACK blob builder and the program writer, prepared through
 * pte_prepare_file / pte_initialize_and_save_backend_data, and run through pte_method_load from
 * an mmap'd file; outputs must be bitwise identical before and after. */
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "../../backends/xnnpack/xnn_internal.h"
#include "pte/io.h"
#include "pte/method.h"
#include "pte/portable_kernels.h"
#include "pte/prepare.h"
#include "pte/writer.h"
#include "test_xnnpack_util.h"

/* ---- building programs ------------------------------------------------------------------------ */

/* One XNNPACK delegate call reading value `src` (0: the program input; k: the output of layer
 * k - 1) of shape `in`, producing value k + 1 for layer k (shape `out`). */
typedef struct xp_layer {
  const pte_xnn_blob *blob;
  int src;
  size_t rank_in, in[4], rank_out, out[4];
} xp_layer;

static size_t dims_numel(const size_t *d, size_t r) {
  size_t n = 1;
  for (size_t i = 0; i < r; i++) n *= d[i];
  return n;
}

/* Writes a program "forward" calling the layers in order; its outputs are the layer outputs no
 * later layer reads. Weights go to named data (each distinct key once); inline_delegates keeps
 * the processed blobs in Program.backend_delegate_data. Returns 64-aligned heap bytes (free()). */
static uint8_t *xp_build(const xp_layer *L, size_t n, bool inline_delegates, size_t *size, pte_error_info *err) {
  pte_writer *w = NULL;
  pte_writer_options o;
  memset(&o, 0, sizeof o);
  if (pte_writer_create(&o, &w, err) != PTE_OK) return NULL;
  const char *keys[64];
  size_t n_keys = 0;
  uint32_t method = 0, chain = 0;
  int32_t vals[9], outs[8];
  size_t n_outs = 0;
  pte_status s = n <= 8 ? pte_writer_add_method(w, "forward", &method, err) : PTE_ERR_INVALID_ARGUMENT;
  uint64_t off = 0;
  for (size_t k = 0; k <= n && s == PTE_OK; k++) {
    const size_t rank = k == 0 ? L[0].rank_in : L[k - 1].rank_out;
    const size_t *d = k == 0 ? L[0].in : L[k - 1].out;
    int32_t sizes[4];
    for (size_t i = 0; i < rank; i++) sizes[i] = (int32_t)d[i];
    pte_wr_tensor t;
    memset(&t, 0, sizeof t);
    t.dtype = PTE_DTYPE_FLOAT;
    t.dim = rank;
    t.sizes = sizes;
    t.plan = PTE_WR_PLAN_EXPLICIT;
    t.mem_id = 1;
    t.mem_offset = off;
    off += (dims_numel(d, rank) * 4 + 63) / 64 * 64;
    s = pte_writer_add_tensor(w, method, &t, &vals[k], err);
    bool read = false;
    for (size_t j = 0; j < n; j++) read = read || L[j].src == (int)k;
    if (k > 0 && !read) outs[n_outs++] = vals[k];
  }
  if (s == PTE_OK) s = pte_writer_set_inputs(w, method, &vals[0], 1, err);
  if (s == PTE_OK) s = pte_writer_set_outputs(w, method, outs, n_outs, err);
  if (s == PTE_OK) s = pte_writer_add_chain(w, method, NULL, 0, NULL, 0, &chain, err);
  for (size_t k = 0; k < n && s == PTE_OK; k++) {
    const pte_xnn_blob *b = L[k].blob;
    for (size_t j = 0; j < b->n_named && s == PTE_OK; j++) {
      bool have = false;
      for (size_t q = 0; q < n_keys; q++) have = have || strcmp(keys[q], b->named[j].key) == 0;
      if (have) continue;
      keys[n_keys++] = b->named[j].key;
      pte_source src = pte_source_memory(b->named[j].data, b->named[j].size);
      uint32_t bi = 0;
      s = pte_writer_add_blob(w, &src, &bi, err);
      if (s == PTE_OK) s = pte_writer_add_named_data(w, b->named[j].key, bi, 16, err);
    }
    pte_source bs = pte_source_memory(b->data, b->size);
    uint32_t bi = 0, d = 0;
    if (s == PTE_OK) s = pte_writer_add_blob(w, &bs, &bi, err);
    pte_wr_delegate wd;
    memset(&wd, 0, sizeof wd);
    wd.id = PTE_XNNPACK_BACKEND_ID;
    wd.blob = bi;
    wd.location = inline_delegates ? PTE_WR_BLOB_INLINE : PTE_WR_BLOB_AUTO;
    if (s == PTE_OK) s = pte_writer_add_delegate(w, method, &wd, &d, err);
    int32_t args[2] = {vals[L[k].src], vals[k + 1]};
    if (s == PTE_OK) s = pte_writer_add_delegate_call(w, method, chain, d, args, 2, NULL, err);
  }
  uint8_t *copy = NULL;
  if (s == PTE_OK) {
    pte_memory_writer mw;
    pte_memory_writer_init(&mw, pte_heap_realloc, NULL, 0);
    if (pte_writer_write(w, &mw.base, err) == PTE_OK) {
      size_t nb = 0;
      const uint8_t *d = pte_memory_writer_data(&mw, &nb);
      copy = (uint8_t *)aligned_alloc(64, (nb + 64) / 64 * 64 + 64);
      if (copy) {
        memcpy(copy, d, nb);
        *size = nb;
      }
    }
    pte_data_writer_destroy(&mw.base);
  }
  pte_writer_destroy(w);
  return copy;
}

/* Builds the program and writes it to $PTE_TMP/xprep_<name>.pte (path in a static rotating
 * buffer, see test_tmp_path); NULL on failure (test failed). */
static const char *xp_write(const xp_layer *L, size_t n, bool inline_delegates, const char *name) {
  pte_error_info err;
  size_t size = 0;
  uint8_t *bytes = xp_build(L, n, inline_delegates, &size, &err);
  if (!bytes) {
    test_fail(__FILE__, __LINE__, "program build: %s", err.msg);
    return NULL;
  }
  char file[96];
  snprintf(file, sizeof file, "xprep_%s.pte", name);
  const char *path = test_tmp_path(file);
  int rc = test_write_file(path, bytes, size);
  free(bytes);
  if (rc != 0) {
    test_fail(__FILE__, __LINE__, "cannot write %s", path);
    return NULL;
  }
  return path;
}

static float *xp_weights(size_t n, uint32_t seed, float scale) {
  float *w = (float *)malloc(n * sizeof(float) + 4);
  xt_rng = seed;
  xt_fill(w, n, scale);
  return w;
}

/* ---- running -------------------------------------------------------------------------------- */

typedef struct xp_result {
  float *out[8];
  size_t n[8];
  size_t count;
  pte_xnnpack_stats load_stats; /* what the method load did with weights */
  double load_ms;
} xp_result;

static void xp_result_free(xp_result *r) {
  for (size_t i = 0; i < 8; i++) free(r->out[i]);
  memset(r, 0, sizeof *r);
}

static bool xp_same(const xp_result *a, const xp_result *b) {
  if (a->count != b->count || a->count == 0) return false;
  for (size_t i = 0; i < a->count; i++)
    if (a->n[i] != b->n[i] || memcmp(a->out[i], b->out[i], a->n[i] * sizeof(float)) != 0) return false;
  return true;
}

static void xp_register(void) {
  if (!pte_get_backend(PTE_XNNPACK_BACKEND_ID)) pte_register_xnnpack_backend();
  pte_register_portable_kernels();
}

/* Loads `path` with the mmap loader (whole file), runs "forward" on inputs from `seed`
 * (input 0 takes shape0 when given) with backend options `bo`, copies the float outputs. */
static pte_status xp_run(const char *path, const pte_backend_load_options *bo, size_t nbo, uint32_t seed,
                         const int32_t *shape0, xp_result *res, pte_error_info *err) {
  memset(res, 0, sizeof *res);
  memset(err, 0, sizeof *err);
  xp_register();
  pte_mmap_loader ml;
  pte_status s = pte_mmap_loader_open(&ml, path, PTE_MLOCK_NONE, err);
  if (s != PTE_OK) return s;
  pte_program prog;
  s = pte_program_load(&ml.base, PTE_VERIFY_INTERNAL_CONSISTENCY, &prog, err);
  if (s != PTE_OK) {
    pte_mmap_loader_close(&ml);
    return s;
  }
  pte_method_meta meta;
  pte_planned_buffer planned[4];
  memset(planned, 0, sizeof planned);
  size_t n_planned = 0;
  s = pte_method_meta_get(&prog, "forward", &meta, err);
  if (s == PTE_OK) n_planned = pte_method_meta_num_planned_buffers(&meta);
  for (size_t i = 0; i < n_planned && i < 4; i++) {
    uint64_t sz = 0;
    pte_method_meta_planned_buffer_size(&meta, i, &sz);
    planned[i].data = calloc(1, (size_t)sz + 64);
    planned[i].size = (size_t)sz;
  }
  const size_t pool_size = (size_t)8 << 20;
  uint8_t *pool = (uint8_t *)malloc(pool_size), *temp_mem = (uint8_t *)malloc((size_t)1 << 20);
  pte_allocator ma, temp;
  pte_allocator_init(&ma, pool, pool_size);
  pte_allocator_init(&temp, temp_mem, (size_t)1 << 20);
  pte_memory_manager mm;
  pte_memory_manager_init(&mm, &ma, planned, n_planned < 4 ? n_planned : 4, &temp);
  pte_method_options mo;
  memset(&mo, 0, sizeof mo);
  mo.backend_options = bo;
  mo.n_backend_options = nbo;
  pte_method *m = NULL;
  float *inbuf[8] = {0};
  if (s == PTE_OK) {
    pte_xnnpack_stats_reset();
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    s = pte_method_load_ex(&prog, "forward", &mm, &mo, &m, err);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    res->load_ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-6;
    pte_xnnpack_stats_get(&res->load_stats);
  }
  if (s == PTE_OK) {
    const pte_method_meta *me = pte_method_get_meta(m);
    xt_rng = seed;
    for (size_t i = 0; s == PTE_OK && i < pte_method_num_inputs(m) && i < 8; i++) {
      pte_tensor_info ti;
      if (pte_method_meta_input_tensor_info(me, i, &ti) != PTE_OK) continue;
      int32_t sizes[PTE_MAX_RANK];
      memcpy(sizes, ti.sizes, sizeof sizes);
      if (i == 0 && shape0) memcpy(sizes, shape0, (size_t)ti.dim * sizeof(int32_t));
      size_t n = 1;
      for (int k = 0; k < ti.dim; k++) n *= (size_t)sizes[k];
      inbuf[i] = (float *)malloc(n * sizeof(float) + 4);
      xt_fill(inbuf[i], n, 2.0f);
      s = pte_method_set_input_tensor(m, i, (pte_dtype)ti.dtype, sizes, ti.dim, inbuf[i], n * sizeof(float), err);
    }
  }
  if (s == PTE_OK) s = pte_method_execute(m, err);
  if (s == PTE_OK) {
    res->count = pte_method_num_outputs(m);
    if (res->count > 8) s = pte_error_set(err, PTE_ERR_INTERNAL, "too many outputs");
    for (size_t i = 0; s == PTE_OK && i < res->count; i++) {
      const pte_evalue *ev = pte_method_get_output(m, i);
      if (!ev || ev->tag != PTE_TAG_TENSOR || ev->u.tensor->dtype != PTE_DTYPE_FLOAT) {
        s = pte_error_set(err, PTE_ERR_INTERNAL, "output %zu is not a float tensor", i);
        break;
      }
      res->n[i] = ev->u.tensor->numel;
      res->out[i] = (float *)malloc(res->n[i] * sizeof(float) + 4);
      memcpy(res->out[i], ev->u.tensor->data, res->n[i] * sizeof(float));
    }
  }
  pte_method_destroy(m);
  for (size_t i = 0; i < 8; i++) free(inbuf[i]);
  for (size_t i = 0; i < 4; i++) free(planned[i].data);
  free(pool);
  free(temp_mem);
  pte_program_destroy(&prog);
  pte_mmap_loader_close(&ml);
  return s;
}

static pte_status xp_prepare(const char *in, const char *out, pte_prepare_report *rep, pte_error_info *err) {
  pte_prepare_file_options o;
  memset(&o, 0, sizeof o);
  pte_file_writer_options_init(&o.file);
  o.file.no_fsync = true;
  xp_register();
  return pte_prepare_file(in, out, &o, rep, err);
}

static off_t file_size(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return -1;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fclose(f);
  return (off_t)n;
}

/* The stored value of named-data key `key` in file `path` (copied: free()). */
static uint8_t *named_value(const char *path, const char *key, size_t *size) {
  pte_mmap_loader ml;
  pte_error_info err;
  if (pte_mmap_loader_open(&ml, path, PTE_MLOCK_NONE, &err) != PTE_OK) return NULL;
  pte_program prog;
  uint8_t *copy = NULL;
  if (pte_program_load(&ml.base, PTE_VERIFY_INTERNAL_CONSISTENCY, &prog, &err) == PTE_OK) {
    pte_freeable_buffer b;
    if (pte_named_data_map_get_data(pte_program_named_data_map(&prog), key, &b) == PTE_OK) {
      copy = (uint8_t *)malloc(b.size + 1);
      memcpy(copy, b.data, b.size);
      *size = b.size;
      pte_freeable_buffer_free(&b);
    }
    pte_program_destroy(&prog);
  }
  pte_mmap_loader_close(&ml);
  return copy;
}

/* Every delegate blob of the prepared file `out` is sealed (docs/prepare.md, "Prepared files and
 * other runtimes"): it no longer parses as a portable XNNPACK blob — neither an XH00 header at bytes
 * 4..8 nor an XN00/XN01 flatbuffer identifier there, which is what a runtime that knows only the
 * portable format looks for — and the envelope's payload is the input's blob byte for byte, or an
 * XPB1 container. *n: blobs checked. */
static void check_sealed(const char *in, const char *out, size_t *n) {
  *n = 0;
  size_t si = 0, so = 0;
  xt_prog a, b;
  uint8_t *fa = test_read_file(in, &si), *fo = test_read_file(out, &so);
  if (!xt_open_memory(&a, fa, si, in)) {
    free(fo);
    CHECK_MSG(false, "cannot load %s", in);
  }
  if (!xt_open_memory(&b, fo, so, out)) {
    xt_close(&a);
    CHECK_MSG(false, "cannot load %s", out);
  }
  for (size_t plan = 0; plan < xt_num_plans(&a); plan++) {
    for (size_t d = 0; d < xt_num_delegates(&a, plan); d++) {
      pte_freeable_buffer x, y;
      CHECK(xt_blob(&a, plan, d, &x));
      CHECK(xt_blob(&b, plan, d, &y));
      const uint8_t *p = (const uint8_t *)y.data;
      pte_error_info err;
      memset(&err, 0, sizeof err);
      bool ok = y.size >= 8 && memcmp(p + 4, "XH00", 4) != 0 && memcmp(p + 4, "XN00", 4) != 0 &&
                memcmp(p + 4, "XN01", 4) != 0;
      pte_status ps = pte_xnn_parse_portable(y.data, y.size, NULL, NULL, NULL, &err);
      pte_status pin = pte_xnn_parse_portable(x.data, x.size, NULL, NULL, NULL, NULL);
      bool env = pte_prepared_is_envelope(y.data, y.size);
      uint64_t po = 0, pz = 0;
      for (int i = 7; env && i >= 0; i--) po = po << 8 | p[80 + i], pz = pz << 8 | p[88 + i];
      bool same = env && po + pz <= y.size &&
                  ((pz == x.size && memcmp(p + po, x.data, x.size) == 0) || (pz >= 4 && memcmp(p + po, "XPB1", 4) == 0));
      pte_freeable_buffer_free(&x);
      pte_freeable_buffer_free(&y);
      CHECK_MSG(ok && env, "plan %zu delegate %zu: not sealed", plan, d);
      CHECK_STATUS(ps, PTE_ERR_DELEGATE_INVALID_COMPATIBILITY);
      CHECK_CONTAINS(err.msg, "is not XN00 or XN01 (and the blob has no XH00 header)");
      CHECK_OK(pin);
      CHECK_MSG(same, "plan %zu delegate %zu: payload is not the portable blob", plan, d);
      (*n)++;
    }
  }
  xt_close(&a);
  xt_close(&b);
}

/* Best ISA and its fingerprint. */
static const char *this_fp(char buf[33]) {
  pte_xnnpack_fingerprint(PTE_XNN_ISA_AUTO, buf);
  return buf;
}

static void set_default_isa(pte_xnn_isa isa) {
  pte_xnnpack_options o = {1, isa};
  pte_xnnpack_set_default_options(&o);
}

static pte_backend_option opt_string(const char *key, const char *v) {
  pte_backend_option o;
  memset(&o, 0, sizeof o);
  strcpy(o.key, key);
  o.type = PTE_BACKEND_OPTION_STRING;
  strcpy(o.value.s, v);
  return o;
}

static pte_backend_option opt_bool(const char *key, bool v) {
  pte_backend_option o;
  memset(&o, 0, sizeof o);
  strcpy(o.key, key);
  o.type = PTE_BACKEND_OPTION_BOOL;
  o.value.b = v;
  return o;
}

/* Packed XPW1 bytes of an fp32 GEMM of n outputs, k inputs for `isa` (docs/xnnpack.md section 6). */
static size_t f32_packed_size(pte_xnn_isa isa, size_t n, size_t k) {
  size_t nr = 4;
  if (isa == PTE_XNN_ISA_AVX2) nr = 16;
  if (isa == PTE_XNN_ISA_AVX512) nr = n <= 16 ? 16 : 32;
  const size_t panels = (n + nr - 1) / nr, stride = ((nr + k * nr) * 4 + 63) / 64 * 64;
  return 64 + panels * stride;
}

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


/* A 3-layer MLP (odd sizes: partial panels) then a linear layer: 4 FullyConnected weights. */
typedef struct mlp_fixture {
  float *w[4], *b[4];
  pte_xnn_blob mlp, lin;
  char in_path[256], out_path[256];
} mlp_fixture;

static const size_t k_mlp_n[4] = {70, 17, 5, 9}, k_mlp_k[4] = {33, 70, 17, 5};

static bool mlp_make(mlp_fixture *f, pte_xnn_constants_mode mode, bool inline_delegates, const char *name) {
  memset(f, 0, sizeof *f);
  static const size_t widths[4] = {33, 70, 17, 5};
  for (int i = 0; i < 4; i++) {
    f->w[i] = xp_weights(k_mlp_n[i] * k_mlp_k[i], 100u + (uint32_t)i, 0.5f);
    f->b[i] = xp_weights(k_mlp_n[i], 200u + (uint32_t)i, 0.25f);
  }
  pte_error_info err;
  const float *ws[3] = {f->w[0], f->w[1], f->w[2]}, *bs[3] = {f->b[0], f->b[1], f->b[2]};
  if (pte_xnn_blob_build_mlp(2, 3, widths, ws, bs, true, false, mode, &f->mlp, &err) != PTE_OK ||
      pte_xnn_blob_build_linear(2, 5, 9, f->w[3], f->b[3], mode, &f->lin, &err) != PTE_OK) {
    test_fail(__FILE__, __LINE__, "blob build: %s", err.msg);
    return false;
  }
  xp_layer L[2] = {{&f->mlp, 0, 2, {2, 33}, 2, {2, 5}}, {&f->lin, 1, 2, {2, 5}, 2, {2, 9}}};
  const char *path = xp_write(L, 2, inline_delegates, name);
  if (!path) return false;
  snprintf(f->in_path, sizeof f->in_path, "%s", path);
  snprintf(f->out_path, sizeof f->out_path, "%s.prepared", path);
  return true;
}

static void mlp_free(mlp_fixture *f) {
  for (int i = 0; i < 4; i++) {
    free(f->w[i]);
    free(f->b[i]);
  }
  pte_xnn_blob_free(&f->mlp);
  pte_xnn_blob_free(&f->lin);
  unlink(f->in_path);
  unlink(f->out_path);
  memset(f, 0, sizeof *f);
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
  CHECK_EQ_INT(rep.backends[0].blobs_replaced, 0);
  const pte_xnn_isa isa = pte_xnnpack_detect_isa();
  size_t packed_total = 0, orig_total = 0;
  for (int i = 0; i < 4; i++) {
    packed_total += PTE_PREPARED_HEADER_SIZE + f32_packed_size(isa, k_mlp_n[i], k_mlp_k[i]);
    orig_total += k_mlp_n[i] * k_mlp_k[i] * 4;
  }
  /* both blobs sealed: their stored bytes again, each behind a 128-byte envelope header */
  CHECK_EQ_INT(rep.backends[0].blobs_sealed, 2);
  size_t sealed = 0;
  check_sealed(f.in_path, f.out_path, &sealed);
  CHECK_EQ_INT(sealed, 2);
  const uint64_t blob_bytes = f.mlp.size + f.lin.size;
  CHECK_EQ_INT(rep.backends[0].bytes_before, orig_total + blob_bytes);
  CHECK_EQ_INT(rep.backends[0].bytes_after, packed_total + blob_bytes + 2 * PTE_PREPARED_HEADER_SIZE);
  /* the file holds the packed weights instead of (not next to) the portable ones: it grows by
   * the packing overhead (panel padding + envelopes) plus segment alignment at most */
  const off_t s0 = file_size(f.in_path), s1 = file_size(f.out_path);
  CHECK_EQ_INT(rep.size_before, s0);
  CHECK_EQ_INT(rep.size_after, s1);
  CHECK_MSG(s1 <= s0 + (off_t)(packed_total - orig_total) + 4 * 128, "prepared %lld bytes, portable %lld, delta %zu",
            (long long)s1, (long long)s0, packed_total - orig_total);
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
  /* the packed header disagrees with the node (NR + 1) */
  bytes[env + 128 + 16]++;
  CHECK_OK(test_write_file(bad, bytes, size) == 0 ? PTE_OK : PTE_ERR_ACCESS_FAILED);
  CHECK_STATUS(xp_run(bad, NULL, 0, 1, NULL, &r, &err), PTE_ERR_INVALID_PROGRAM);
  CHECK_CONTAINS(err.msg, "prepared weights of constant");
  bytes[env + 128 + 16]--;
  /* the envelope's fingerprint length is out of range */
  bytes[env + 44] = 40;
  CHECK_OK(test_write_file(bad, bytes, size) == 0 ? PTE_OK : PTE_ERR_ACCESS_FAILED);
  CHECK_STATUS(xp_run(bad, NULL, 0, 1, NULL, &r, &err), PTE_ERR_INVALID_PROGRAM);
  CHECK_CONTAINS(err.msg, "fingerprint length");
  /* prepared for another data-format version: 0x30 even with repack_prepared */
  bytes[env + 44] = (uint8_t)strlen(this_fp((char[33]){0}));
  bytes[env + 40] = 7;
  CHECK_OK(test_write_file(bad, bytes, size) == 0 ? PTE_OK : PTE_ERR_ACCESS_FAILED);
  pte_backend_option o = opt_bool(PTE_XNNPACK_OPTION_REPACK_PREPARED, true);
  pte_backend_load_options bo = {PTE_XNNPACK_BACKEND_ID, &o, 1};
  CHECK_STATUS(xp_run(bad, &bo, 1, 1, NULL, &r, &err), PTE_ERR_DELEGATE_INVALID_COMPATIBILITY);
  CHECK_CONTAINS(err.msg, "format 7");
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

/* Convolutions: Conv2d, depthwise (multiplier 1: direct taps; multiplier 2: grouped GEMM) and a
 * grouped 1x1 conv, named and inline, prepared and repacked. */
static void conv_case(pte_xnn_constants_mode mode, const char *name) {
  const pte_xnn_conv2d_spec specs[4] = {
      {1, 3, 9, 11, 8, 3, 3, 1, 1, 1, 1, 1, 1, 1, true},  /* 3 -> 8, 3x3, pad 1 */
      {1, 8, 9, 11, 8, 3, 3, 1, 1, 1, 1, 1, 1, 8, false}, /* depthwise, multiplier 1 */
      {1, 8, 9, 11, 4, 1, 1, 1, 1, 0, 0, 1, 1, 2, false}, /* grouped 1x1: 2 groups 4 -> 2 */
      {1, 4, 9, 11, 8, 3, 3, 2, 2, 1, 1, 1, 1, 4, true},  /* depthwise, multiplier 2, stride 2 */
  };
  pte_xnn_blob blobs[4];
  float *w[4], *b[4];
  xp_layer L[4];
  pte_error_info err;
  bool ok = true;
  for (int i = 0; i < 4; i++) {
    const pte_xnn_conv2d_spec *c = &specs[i];
    const size_t wn = (size_t)c->c_out * (c->c_in / c->groups) * c->kh * c->kw;
    w[i] = xp_weights(wn, 500u + (uint32_t)i, 0.5f);
    b[i] = xp_weights(c->c_out, 600u + (uint32_t)i, 0.25f);
    if (pte_xnn_blob_build_conv2d(c, w[i], b[i], mode, &blobs[i], &err) != PTE_OK) {
      test_fail(__FILE__, __LINE__, "conv blob %d: %s", i, err.msg);
      ok = false;
    }
    const size_t oh = (c->h + 2 * c->pad_h - c->kh) / c->stride_h + 1, ow = (c->w + 2 * c->pad_w - c->kw) / c->stride_w + 1;
    L[i] = (xp_layer){&blobs[i], i, 4, {1, c->c_in, c->h, c->w}, 4, {1, c->c_out, oh, ow}};
  }
  const char *path = ok ? xp_write(L, 4, false, name) : NULL;
  char in_path[256], out_path[300];
  if (path) {
    snprintf(in_path, sizeof in_path, "%s", path);
    snprintf(out_path, sizeof out_path, "%s.prepared", path);
    xp_result before, after, rp;
    pte_prepare_report rep;
    if (xp_run(in_path, NULL, 0, 21, NULL, &before, &err) != PTE_OK) {
      test_fail(__FILE__, __LINE__, "portable run: %s", err.msg);
    } else if (xp_prepare(in_path, out_path, &rep, &err) != PTE_OK) {
      test_fail(__FILE__, __LINE__, "prepare: %s", err.msg);
    } else if (xp_run(out_path, NULL, 0, 21, NULL, &after, &err) != PTE_OK) {
      test_fail(__FILE__, __LINE__, "prepared run: %s", err.msg);
    } else {
      if (!xp_same(&before, &after)) test_fail(__FILE__, __LINE__, "%s: outputs differ after prepare", name);
      if (before.load_stats.packs != 4 || after.load_stats.packs != 0 || after.load_stats.prepared != 4)
        test_fail(__FILE__, __LINE__, "%s: packs %llu -> %llu, prepared %llu", name,
                  (unsigned long long)before.load_stats.packs, (unsigned long long)after.load_stats.packs,
                  (unsigned long long)after.load_stats.prepared);
      const unsigned want_named = mode == PTE_XNN_CONSTANTS_NAMED ? 4 : 0, want_blobs = mode == PTE_XNN_CONSTANTS_NAMED ? 0 : 4;
      if (rep.backends[0].named_replaced != want_named || rep.backends[0].blobs_replaced != want_blobs)
        test_fail(__FILE__, __LINE__, "%s: replaced %u named, %u blobs", name, rep.backends[0].named_replaced,
                  rep.backends[0].blobs_replaced);
      /* prepared on the scalar kernels, repacked for this machine */
      if (pte_xnnpack_detect_isa() != PTE_XNN_ISA_SCALAR) {
        set_default_isa(PTE_XNN_ISA_SCALAR);
        pte_status ps = xp_prepare(in_path, out_path, &rep, &err);
        set_default_isa(PTE_XNN_ISA_AUTO);
        pte_backend_option o = opt_bool(PTE_XNNPACK_OPTION_REPACK_PREPARED, true);
        pte_backend_load_options bo = {PTE_XNNPACK_BACKEND_ID, &o, 1};
        if (ps != PTE_OK || xp_run(out_path, &bo, 1, 21, NULL, &rp, &err) != PTE_OK) {
          test_fail(__FILE__, __LINE__, "%s repack: %s", name, err.msg);
        } else {
          if (!xp_same(&before, &rp)) test_fail(__FILE__, __LINE__, "%s: outputs differ after repack", name);
          /* depthwise taps do not depend on the ISA: used in place; the 3 GEMMs are re-laid out */
          if (rp.load_stats.packs != 0 || rp.load_stats.repacks != 3 || rp.load_stats.prepared != 1)
            test_fail(__FILE__, __LINE__, "%s: repack packs %llu, repacks %llu, prepared %llu", name,
                      (unsigned long long)rp.load_stats.packs, (unsigned long long)rp.load_stats.repacks,
                      (unsigned long long)rp.load_stats.prepared);
          xp_result_free(&rp);
        }
      }
      xp_result_free(&after);
    }
    xp_result_free(&before);
    unlink(in_path);
    unlink(out_path);
  }
  for (int i = 0; i < 4; i++) {
    free(w[i]);
    free(b[i]);
    pte_xnn_blob_free(&blobs[i]);
  }
}

TEST(conv_named) { conv_case(PTE_XNN_CONSTANTS_NAMED, "conv_named"); }
TEST(conv_inline) { conv_case(PTE_XNN_CONSTANTS_INLINE, "conv_inline"); }

/* qd8: fp32 input -> Convert (dynamic int8) -> FullyConnected with per-channel int8 weights. */
static pte_status qd8_blob(size_t m, size_t k, size_t n, const int8_t *w, const float *scales, const float *bias,
                           pte_xnn_blob *out, pte_error_info *err) {
  pte_xnn_builder *b = pte_xnn_builder_new();
  if (!b) return PTE_ERR_MEMORY_ALLOCATION_FAILED;
  uint32_t xd[2] = {(uint32_t)m, (uint32_t)k}, wd[2] = {(uint32_t)n, (uint32_t)k}, bd[1] = {(uint32_t)n},
           yd[2] = {(uint32_t)m, (uint32_t)n};
  uint32_t x, xq = 0, wv = 0, bv = 0, y = 0;
  pte_xnn_tensor_desc t;
  memset(&t, 0, sizeof t);
  t.dtype = PTE_XNN_DT_FP32, t.rank = 2, t.dims = xd, t.flags = PTE_XNN_VALUE_EXTERNAL_INPUT, t.external_id = 0;
  pte_status s = pte_xnn_builder_add_tensor(b, &t, &x);
  memset(&t, 0, sizeof t);
  t.dtype = PTE_XNN_DT_QDINT8, t.rank = 2, t.dims = xd, t.quant = PTE_XNN_QUANT_PER_TOKEN, t.num_nonbatch_dims = 1;
  if (s == PTE_OK) s = pte_xnn_builder_add_tensor(b, &t, &xq);
  memset(&t, 0, sizeof t);
  t.dtype = PTE_XNN_DT_QCINT8, t.rank = 2, t.dims = wd, t.data = w, t.nbytes = n * k;
  t.quant = PTE_XNN_QUANT_PER_CHANNEL, t.channel_scales = scales, t.n_channel_scales = (uint32_t)n, t.channel_dim = 0;
  if (s == PTE_OK) s = pte_xnn_builder_add_tensor(b, &t, &wv);
  memset(&t, 0, sizeof t);
  t.dtype = PTE_XNN_DT_FP32, t.rank = 1, t.dims = bd, t.data = bias, t.nbytes = n * 4;
  if (s == PTE_OK) s = pte_xnn_builder_add_tensor(b, &t, &bv);
  memset(&t, 0, sizeof t);
  t.dtype = PTE_XNN_DT_FP32, t.rank = 2, t.dims = yd, t.flags = PTE_XNN_VALUE_EXTERNAL_OUTPUT, t.external_id = 1;
  if (s == PTE_OK) s = pte_xnn_builder_add_tensor(b, &t, &y);
  pte_xnn_node_desc nd;
  memset(&nd, 0, sizeof nd);
  nd.type = PTE_XNN_NODE_CONVERT, nd.inputs[0] = x, nd.output = xq;
  if (s == PTE_OK) s = pte_xnn_builder_add_node(b, &nd);
  memset(&nd, 0, sizeof nd);
  nd.type = PTE_XNN_NODE_FULLY_CONNECTED, nd.inputs[0] = xq, nd.inputs[1] = wv, nd.inputs[2] = bv, nd.output = y;
  if (s == PTE_OK) s = pte_xnn_builder_add_node(b, &nd);
  if (s == PTE_OK) s = pte_xnn_builder_finish(b, PTE_XNN_CONSTANTS_NAMED, out, err);
  pte_xnn_builder_free(b);
  return s;
}

TEST(int8_weights) {
  const size_t m = 3, k = 37, n = 21;
  int8_t *w = (int8_t *)malloc(n * k);
  float scales[21], bias[21];
  xt_rng = 77;
  for (size_t i = 0; i < n * k; i++) w[i] = (int8_t)((int)(xt_rand() * 127.0f));
  for (size_t i = 0; i < n; i++) scales[i] = 0.01f + 0.001f * (float)i, bias[i] = xt_rand();
  pte_error_info err;
  pte_xnn_blob blob;
  CHECK_MSG(qd8_blob(m, k, n, w, scales, bias, &blob, &err) == PTE_OK, "%s", err.msg);
  xp_layer L[1] = {{&blob, 0, 2, {m, k}, 2, {m, n}}};
  const char *path = xp_write(L, 1, false, "qd8");
  CHECK(path);
  char in_path[256], out_path[300];
  snprintf(in_path, sizeof in_path, "%s", path);
  snprintf(out_path, sizeof out_path, "%s.prepared", path);
  xp_result before, after;
  pte_prepare_report rep;
  CHECK_OK(xp_run(in_path, NULL, 0, 31, NULL, &before, &err));
  CHECK_MSG(xp_prepare(in_path, out_path, &rep, &err) == PTE_OK, "%s", err.msg);
  CHECK_EQ_INT(rep.backends[0].named_replaced, 1); /* the int8 weights; bias stays */
  CHECK_OK(xp_run(out_path, NULL, 0, 31, NULL, &after, &err));
  CHECK(xp_same(&before, &after));
  CHECK_EQ_INT(after.load_stats.packs, 0);
  CHECK_EQ_INT(after.load_stats.prepared, 1);
  xp_result_free(&after);
  if (pte_xnnpack_detect_isa() != PTE_XNN_ISA_SCALAR) {
    set_default_isa(PTE_XNN_ISA_SCALAR);
    pte_status ps = xp_prepare(in_path, out_path, &rep, &err);
    set_default_isa(PTE_XNN_ISA_AUTO);
    CHECK_OK(ps);
    pte_backend_option o = opt_bool(PTE_XNNPACK_OPTION_REPACK_PREPARED, true);
    pte_backend_load_options bo = {PTE_XNNPACK_BACKEND_ID, &o, 1};
    CHECK_MSG(xp_run(out_path, &bo, 1, 31, NULL, &after, &err) == PTE_OK, "%s", err.msg);
    CHECK(xp_same(&before, &after));
    CHECK_EQ_INT(after.load_stats.repacks, 1);
    xp_result_free(&after);
  }
  xp_result_free(&before);
  unlink(in_path);
  unlink(out_path);
  pte_xnn_blob_free(&blob);
  free(w);
}

/* qd8 x qbint4 (blockwise 4-bit, bf16 block scales): the packed 4-bit panels are what prepare
 * stores; the layout does not depend on the ISA, so data prepared for another kernel table is
 * used as is once the repack option lets the envelope through. */
static pte_status q4_blob(size_t m, size_t k, size_t n, size_t block, const uint8_t *w, const uint16_t *bscales,
                          const float *bias, pte_xnn_blob *out, pte_error_info *err) {
  pte_xnn_builder *b = pte_xnn_builder_new();
  if (!b) return PTE_ERR_MEMORY_ALLOCATION_FAILED;
  uint32_t xd[2] = {(uint32_t)m, (uint32_t)k}, wd[2] = {(uint32_t)n, (uint32_t)k}, bd[1] = {(uint32_t)n},
           yd[2] = {(uint32_t)m, (uint32_t)n};
  uint32_t x, xq = 0, wv = 0, bv = 0, y = 0;
  pte_xnn_tensor_desc t;
  memset(&t, 0, sizeof t);
  t.dtype = PTE_XNN_DT_FP32, t.rank = 2, t.dims = xd, t.flags = PTE_XNN_VALUE_EXTERNAL_INPUT, t.external_id = 0;
  pte_status s = pte_xnn_builder_add_tensor(b, &t, &x);
  memset(&t, 0, sizeof t);
  t.dtype = PTE_XNN_DT_QDINT8, t.rank = 2, t.dims = xd, t.quant = PTE_XNN_QUANT_PER_TOKEN, t.num_nonbatch_dims = 1;
  if (s == PTE_OK) s = pte_xnn_builder_add_tensor(b, &t, &xq);
  memset(&t, 0, sizeof t);
  t.dtype = PTE_XNN_DT_QBINT4, t.rank = 2, t.dims = wd, t.data = w, t.nbytes = n * k / 2;
  t.quant = PTE_XNN_QUANT_PER_CHANNEL_GROUP, t.block_size = (uint32_t)block, t.block_scales_bf16 = bscales;
  t.n_block_scales = n * (k / block);
  if (s == PTE_OK) s = pte_xnn_builder_add_tensor(b, &t, &wv);
  memset(&t, 0, sizeof t);
  t.dtype = PTE_XNN_DT_FP32, t.rank = 1, t.dims = bd, t.data = bias, t.nbytes = n * 4;
  if (s == PTE_OK) s = pte_xnn_builder_add_tensor(b, &t, &bv);
  memset(&t, 0, sizeof t);
  t.dtype = PTE_XNN_DT_FP32, t.rank = 2, t.dims = yd, t.flags = PTE_XNN_VALUE_EXTERNAL_OUTPUT, t.external_id = 1;
  if (s == PTE_OK) s = pte_xnn_builder_add_tensor(b, &t, &y);
  pte_xnn_node_desc nd;
  memset(&nd, 0, sizeof nd);
  nd.type = PTE_XNN_NODE_CONVERT, nd.inputs[0] = x, nd.output = xq;
  if (s == PTE_OK) s = pte_xnn_builder_add_node(b, &nd);
  memset(&nd, 0, sizeof nd);
  nd.type = PTE_XNN_NODE_FULLY_CONNECTED, nd.inputs[0] = xq, nd.inputs[1] = wv, nd.inputs[2] = bv, nd.output = y;
  if (s == PTE_OK) s = pte_xnn_builder_add_node(b, &nd);
  if (s == PTE_OK) s = pte_xnn_builder_finish(b, PTE_XNN_CONSTANTS_NAMED, out, err);
  pte_xnn_builder_free(b);
  return s;
}

TEST(q4_weights) {
  const size_t m = 3, k = 128, n = 40, block = 32;
  uint8_t *w = (uint8_t *)malloc(n * k / 2);
  uint16_t bs[40 * 4];
  float bias[40];
  xt_rng = 91;
  for (size_t i = 0; i < n * k / 2; i++) w[i] = (uint8_t)(xt_rand() * 127.0f + 128.0f);
  for (size_t i = 0; i < n * (k / block); i++) bs[i] = (uint16_t)(0x3C00 + (i % 64));
  for (size_t i = 0; i < n; i++) bias[i] = xt_rand();
  pte_error_info err;
  pte_xnn_blob blob;
  CHECK_MSG(q4_blob(m, k, n, block, w, bs, bias, &blob, &err) == PTE_OK, "%s", err.msg);
  xp_layer L[1] = {{&blob, 0, 2, {m, k}, 2, {m, n}}};
  const char *path = xp_write(L, 1, false, "q4");
  CHECK(path);
  char in_path[256], out_path[300];
  snprintf(in_path, sizeof in_path, "%s", path);
  snprintf(out_path, sizeof out_path, "%s.prepared", path);
  xp_result before, after;
  pte_prepare_report rep;
  CHECK_OK(xp_run(in_path, NULL, 0, 31, NULL, &before, &err));
  CHECK_EQ_INT(before.load_stats.packs, 1);
  CHECK_MSG(xp_prepare(in_path, out_path, &rep, &err) == PTE_OK, "%s", err.msg);
  CHECK_EQ_INT(rep.backends[0].named_replaced, 1); /* the nibbles; bias and block scales stay */
  CHECK_OK(xp_run(out_path, NULL, 0, 31, NULL, &after, &err));
  CHECK(xp_same(&before, &after));
  CHECK_EQ_INT(after.load_stats.packs, 0);
  CHECK_EQ_INT(after.load_stats.prepared, 1);
  CHECK_EQ_INT(after.load_stats.prepared_copies, 0);
  xp_result_free(&after);
  if (pte_xnnpack_detect_isa() != PTE_XNN_ISA_SCALAR) {
    set_default_isa(PTE_XNN_ISA_SCALAR);
    pte_status ps = xp_prepare(in_path, out_path, &rep, &err);
    set_default_isa(PTE_XNN_ISA_AUTO);
    CHECK_OK(ps);
    CHECK_STATUS(xp_run(out_path, NULL, 0, 31, NULL, &after, &err), PTE_ERR_DELEGATE_INVALID_COMPATIBILITY);
    xp_result_free(&after);
    pte_backend_option o = opt_bool(PTE_XNNPACK_OPTION_REPACK_PREPARED, true);
    pte_backend_load_options bo = {PTE_XNNPACK_BACKEND_ID, &o, 1};
    CHECK_MSG(xp_run(out_path, &bo, 1, 31, NULL, &after, &err) == PTE_OK, "%s", err.msg);
    CHECK(xp_same(&before, &after)); /* this ISA's kernels on the same panels */
    CHECK_EQ_INT(after.load_stats.repacks, 0);
    CHECK_EQ_INT(after.load_stats.prepared, 1);
    xp_result_free(&after);
  }
  xp_result_free(&before);
  unlink(in_path);
  unlink(out_path);
  pte_xnn_blob_free(&blob);
  free(w);
}

/* Reads `path`, overwrites `len` bytes at the only occurrence of `pat` (plen bytes) plus `at`
 * with `rep`, writes `out`. Returns the number of occurrences found (the file is written only when
 * there is exactly one). */
static int q4_patch(const char *path, const void *pat, size_t plen, size_t at, const void *rep, size_t len,
                    const char *out) {
  size_t n = 0;
  uint8_t *b = (uint8_t *)test_read_file(path, &n);
  if (!b) return -1;
  int hits = 0;
  size_t pos = 0;
  for (size_t i = 0; i + plen <= n; i++)
    if (!memcmp(b + i, pat, plen)) hits++, pos = i;
  if (hits == 1 && pos + at + len <= n) {
    memcpy(b + pos + at, rep, len);
    if (test_write_file(out, b, n) != 0) hits = -1;
  }
  free(b);
  return hits;
}

/* With prepared 4-bit panels the block scales come from the panels (prepare checked them): the
 * serialized bf16 scales are neither copied nor re-checked at load, so corrupting them changes
 * nothing, while the same corruption in the unprepared file is refused. A prepared panel whose
 * header disagrees with the node (block size) is refused with the specific error. */
TEST(q4_prepared_skips_serialized_scales) {
  const size_t m = 2, k = 128, n = 24, block = 32;
  uint8_t *w = (uint8_t *)malloc(n * k / 2);
  uint16_t bs[24 * 4];
  float bias[24];
  xt_rng = 17;
  for (size_t i = 0; i < n * k / 2; i++) w[i] = (uint8_t)(xt_rand() * 127.0f + 128.0f);
  for (size_t i = 0; i < n * (k / block); i++) bs[i] = (uint16_t)(0x3E00 + 3 * i); /* distinct, positive, normal */
  for (size_t i = 0; i < n; i++) bias[i] = xt_rand();
  pte_error_info err;
  pte_xnn_blob blob;
  CHECK_MSG(q4_blob(m, k, n, block, w, bs, bias, &blob, &err) == PTE_OK, "%s", err.msg);
  xp_layer L[1] = {{&blob, 0, 2, {m, k}, 2, {m, n}}};
  const char *path = xp_write(L, 1, false, "q4s");
  CHECK(path);
  char in_path[256], out_path[300], bad_path[300];
  snprintf(in_path, sizeof in_path, "%s", path);
  snprintf(out_path, sizeof out_path, "%s.prepared", path);
  snprintf(bad_path, sizeof bad_path, "%s.bad", path);
  xp_result before, after;
  pte_prepare_report rep;
  CHECK_OK(xp_run(in_path, NULL, 0, 5, NULL, &before, &err));
  CHECK_MSG(xp_prepare(in_path, out_path, &rep, &err) == PTE_OK, "%s", err.msg);
  const uint16_t zero = 0;
  /* unprepared: block scale 0 set to 0 is refused */
  CHECK_EQ_INT(q4_patch(in_path, bs, sizeof bs, 0, &zero, 2, bad_path), 1);
  CHECK_STATUS(xp_run(bad_path, NULL, 0, 5, NULL, &after, &err), PTE_ERR_INVALID_PROGRAM);
  CHECK_CONTAINS(err.msg, "block scale 0 (bf16 bits 0x0) is not finite, normal and positive");
  xp_result_free(&after);
  /* prepared: the serialized scales (still in the file, unused) may be anything */
  CHECK_EQ_INT(q4_patch(out_path, bs, sizeof bs, 0, &zero, 2, bad_path), 1);
  CHECK_MSG(xp_run(bad_path, NULL, 0, 5, NULL, &after, &err) == PTE_OK, "%s", err.msg);
  CHECK(xp_same(&before, &after));
  CHECK_EQ_INT(after.load_stats.prepared, 1);
  CHECK_EQ_INT(after.load_stats.packs, 0);
  xp_result_free(&after);
  /* prepared panel header with another block size (kr, offset 20): refused */
  const uint8_t kr64[4] = {64, 0, 0, 0};
  CHECK_EQ_INT(q4_patch(out_path, "XPW1", 4, 20, kr64, 4, bad_path), 1);
  CHECK_STATUS(xp_run(bad_path, NULL, 0, 5, NULL, &after, &err), PTE_ERR_INVALID_PROGRAM);
  CHECK_CONTAINS(err.msg, "do not match this node");
  xp_result_free(&after);
  xp_result_free(&before);
  unlink(in_path);
  unlink(out_path);
  unlink(bad_path);
  pte_xnn_blob_free(&blob);
  free(w);
}

/* x[1, 40] + W[24, 40] (broadcast): W read as a tensor. */
static pte_status add_blob(const float *wdata, pte_xnn_blob *out, pte_error_info *err) {
  pte_xnn_builder *b = pte_xnn_builder_new();
  if (!b) return PTE_ERR_MEMORY_ALLOCATION_FAILED;
  uint32_t xd[2] = {1, 40}, wd[2] = {24, 40};
  uint32_t x, wv = 0, y = 0;
  pte_xnn_tensor_desc t;
  memset(&t, 0, sizeof t);
  t.dtype = PTE_XNN_DT_FP32, t.rank = 2, t.dims = xd, t.flags = PTE_XNN_VALUE_EXTERNAL_INPUT, t.external_id = 0;
  pte_status s = pte_xnn_builder_add_tensor(b, &t, &x);
  memset(&t, 0, sizeof t);
  t.dtype = PTE_XNN_DT_FP32, t.rank = 2, t.dims = wd, t.data = wdata, t.nbytes = 24 * 40 * 4;
  if (s == PTE_OK) s = pte_xnn_builder_add_tensor(b, &t, &wv);
  memset(&t, 0, sizeof t);
  t.dtype = PTE_XNN_DT_FP32, t.rank = 2, t.dims = wd, t.flags = PTE_XNN_VALUE_EXTERNAL_OUTPUT, t.external_id = 1;
  if (s == PTE_OK) s = pte_xnn_builder_add_tensor(b, &t, &y);
  pte_xnn_node_desc nd;
  memset(&nd, 0, sizeof nd);
  nd.type = PTE_XNN_NODE_ADD, nd.inputs[0] = x, nd.inputs[1] = wv, nd.output = y;
  nd.out_min = -INFINITY, nd.out_max = INFINITY;
  if (s == PTE_OK) s = pte_xnn_builder_add_node(b, &nd);
  if (s == PTE_OK) s = pte_xnn_builder_finish(b, PTE_XNN_CONSTANTS_NAMED, out, err);
  pte_xnn_builder_free(b);
  return s;
}

/* Shared keys: one packed value per key; a weight needed in two packed forms or read as a tensor
 * stays portable (and is packed at init as before). */
TEST(shared_keys) {
  pte_error_info err;
  float *w = xp_weights(24 * 40, 41, 0.5f), *b1 = xp_weights(24, 42, 0.25f), *b2 = xp_weights(24, 43, 0.25f);
  float *w2 = xp_weights(24 * 24, 44, 0.5f);
  pte_xnn_blob A, B, C, D, T;
  const size_t wid[2] = {40, 24};
  const float *wa[1] = {w}, *ba[1] = {b1};
  CHECK_OK(pte_xnn_blob_build_linear(1, 40, 24, w, b1, PTE_XNN_CONSTANTS_NAMED, &A, &err));
  /* B: same weights and bias, fused ReLU: another blob, the same packed bytes */
  CHECK_OK(pte_xnn_blob_build_mlp(1, 1, wid, wa, ba, true, true, PTE_XNN_CONSTANTS_NAMED, &B, &err));
  /* C: same weights, another bias: a second packed form */
  CHECK_OK(pte_xnn_blob_build_linear(1, 40, 24, w, b2, PTE_XNN_CONSTANTS_NAMED, &C, &err));
  /* D: the weights read as a tensor */
  CHECK_OK(add_blob(w, &D, &err));
  /* T: an unrelated layer after A */
  CHECK_OK(pte_xnn_blob_build_linear(1, 24, 24, w2, b1, PTE_XNN_CONSTANTS_NAMED, &T, &err));
  CHECK(A.size != B.size || memcmp(A.data, B.data, A.size) != 0);
  char wkey[65], w2key[65];
  pte_sha256_hex(w, 24 * 40 * 4, wkey);
  pte_sha256_hex(w2, 24 * 24 * 4, w2key);
  const xp_layer la = {&A, 0, 2, {1, 40}, 2, {1, 24}}, lt = {&T, 1, 2, {1, 24}, 2, {1, 24}};
  struct {
    const char *name;
    xp_layer third;
    bool w_packed;
    unsigned named_replaced, packs_after, prepared_after;
  } cases[3] = {
      {"share_same", {&B, 0, 2, {1, 40}, 2, {1, 24}}, true, 2, 0, 3},
      {"share_two_forms", {&C, 0, 2, {1, 40}, 2, {1, 24}}, false, 1, 2, 1},
      {"share_tensor_use", {&D, 0, 2, {1, 40}, 2, {24, 40}}, false, 1, 1, 1},
  };
  for (int c = 0; c < 3; c++) {
    xp_layer L[3] = {la, lt, cases[c].third};
    const char *path = xp_write(L, 3, false, cases[c].name);
    CHECK(path);
    char in_path[256], out_path[300];
    snprintf(in_path, sizeof in_path, "%s", path);
    snprintf(out_path, sizeof out_path, "%s.prepared", path);
    xp_result before, after;
    pte_prepare_report rep;
    CHECK_MSG(xp_run(in_path, NULL, 0, 51, NULL, &before, &err) == PTE_OK, "%s: %s", cases[c].name, err.msg);
    CHECK_EQ_INT(before.count, 2);
    CHECK_MSG(xp_prepare(in_path, out_path, &rep, &err) == PTE_OK, "%s: %s", cases[c].name, err.msg);
    CHECK_MSG(rep.backends[0].named_replaced == cases[c].named_replaced, "%s: %u named values replaced",
              cases[c].name, rep.backends[0].named_replaced);
    CHECK_MSG(xp_run(out_path, NULL, 0, 51, NULL, &after, &err) == PTE_OK, "%s: %s", cases[c].name, err.msg);
    CHECK_MSG(xp_same(&before, &after), "%s: outputs differ", cases[c].name);
    CHECK_MSG(after.load_stats.packs == cases[c].packs_after && after.load_stats.prepared == cases[c].prepared_after,
              "%s: packs %llu prepared %llu", cases[c].name, (unsigned long long)after.load_stats.packs,
              (unsigned long long)after.load_stats.prepared);
    size_t vs = 0;
    uint8_t *v = named_value(out_path, wkey, &vs);
    CHECK(v);
    CHECK_EQ_INT(pte_prepared_is_envelope(v, vs), cases[c].w_packed);
    if (!cases[c].w_packed) CHECK(vs == sizeof(float) * 24 * 40 && memcmp(v, w, vs) == 0);
    free(v);
    v = named_value(out_path, w2key, &vs);
    CHECK(v && pte_prepared_is_envelope(v, vs));
    free(v);
    xp_result_free(&before);
    xp_result_free(&after);
    unlink(in_path);
    unlink(out_path);
  }
  free(w);
  free(b1);
  free(b2);
  free(w2);
  pte_xnn_blob_free(&A);
  pte_xnn_blob_free(&B);
  pte_xnn_blob_free(&C);
  pte_xnn_blob_free(&D);
  pte_xnn_blob_free(&T);
}

/* ---- one weight at a time (the prepare hook's lazy compile) --------------------------------- */

static const pte_xnn_kernels *hook_kernels(void) { /* what the prepare hook packs for */
  pte_xnnpack_options o;
  pte_xnnpack_get_default_options(&o);
  return pte_xnnpack_kernels_for_isa(o.isa);
}

static pte_status compile_blob(const pte_xnn_blob *b, bool lazy, size_t pack_node, uint8_t *buf, size_t buf_size,
                               pte_xnn_delegate **d, pte_error_info *err) {
  static pte_xnn_blob_data_map m;
  pte_xnn_blob_data_map_init(&m, b);
  pte_xnn_init_cfg cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.threads = 1;
  cfg.k = hook_kernels();
  cfg.lazy_pack = lazy;
  cfg.pack_node = pack_node;
  cfg.pack_buf = buf;
  cfg.pack_buf_size = buf_size;
  return pte_xnn_delegate_init_internal(b->data, b->size, &m.base, &cfg, d, err);
}

/* Packing node i alone (lazy compile, into new memory or a caller buffer) gives the bytes the
 * full compile gives; a lazy compile with no node selected packs nothing but knows the sizes. */
static void lazy_matches_full(const pte_xnn_blob *b, const char *what, unsigned *compared) {
  pte_error_info err;
  *compared = 0;
  pte_xnn_delegate *full = NULL, *none = NULL;
  CHECK_MSG(compile_blob(b, false, 0, NULL, 0, &full, &err) == PTE_OK, "%s: %s", what, err.msg);
  if (!full) return;
  pte_xnnpack_stats st0, st1;
  pte_xnnpack_stats_get(&st0);
  CHECK_MSG(compile_blob(b, true, 0, NULL, 0, &none, &err) == PTE_OK, "%s: %s", what, err.msg);
  pte_xnnpack_stats_get(&st1);
  CHECK_MSG(st1.packs == st0.packs, "%s: a lazy compile packed %llu weights", what,
            (unsigned long long)(st1.packs - st0.packs));
  for (size_t i = 0; none && i < full->n_nodes; i++) {
    const pte_xnn_packed *want = &full->nodes[i].packed;
    CHECK_EQ_INT(none->nodes[i].packed.size, want->size);
    CHECK(none->nodes[i].packed.bytes == NULL);
    if (!want->bytes) continue;
    for (int mode = 0; mode < 3; mode++) { /* new memory, a big enough buffer, a too small one */
      const size_t cap = mode == 0 ? 0 : mode == 1 ? want->size + 64 : want->size - 1;
      uint8_t *buf = cap ? (uint8_t *)pte_xnn_aligned_alloc(cap) : NULL;
      if (buf) memset(buf, 0xA5, cap);
      pte_xnn_delegate *one = NULL;
      CHECK_MSG(compile_blob(b, true, i + 1, buf, cap, &one, &err) == PTE_OK, "%s: %s", what, err.msg);
      for (size_t j = 0; one && j < one->n_nodes; j++)
        if (j != i) CHECK_MSG(one->nodes[j].packed.bytes == NULL, "%s: node %zu packed too", what, j);
      if (one) {
        const pte_xnn_packed *got = &one->nodes[i].packed;
        CHECK_MSG(got->size == want->size && got->bytes && memcmp(got->bytes, want->bytes, want->size) == 0,
                  "%s: node %zu packed alone differs", what, i);
        if (!one->nodes[i].as_dwconv) CHECK_EQ_INT(got->bytes == buf, mode == 1); /* GEMMs use the buffer */
      }
      pte_xnn_delegate_destroy(one);
      pte_xnn_aligned_free(buf);
      (*compared)++;
    }
  }
  pte_xnn_delegate_destroy(none);
  pte_xnn_delegate_destroy(full);
}

TEST(lazy_pack_matches_full) {
  mlp_fixture f;
  if (!mlp_make(&f, PTE_XNN_CONSTANTS_NAMED, false, "lazy_mlp")) return;
  unsigned cmp = 0;
  lazy_matches_full(&f.mlp, "mlp", &cmp);
  CHECK_EQ_INT(cmp, 3 * 3); /* 3 layers, 3 ways each */
  lazy_matches_full(&f.lin, "linear", &cmp);
  CHECK_EQ_INT(cmp, 3);
  mlp_free(&f);
  const pte_xnn_conv2d_spec specs[3] = {
      {1, 3, 9, 11, 8, 3, 3, 1, 1, 1, 1, 1, 1, 1, true},  /* conv */
      {1, 8, 9, 11, 8, 3, 3, 1, 1, 1, 1, 1, 1, 8, false}, /* depthwise, multiplier 1 */
      {1, 4, 9, 11, 8, 3, 3, 2, 2, 1, 1, 1, 1, 4, true},  /* depthwise, multiplier 2: grouped GEMMs */
  };
  for (int i = 0; i < 3; i++) {
    const pte_xnn_conv2d_spec *c = &specs[i];
    float *w = xp_weights((size_t)c->c_out * (c->c_in / c->groups) * c->kh * c->kw, 700u + (uint32_t)i, 0.5f);
    float *b = xp_weights(c->c_out, 710u + (uint32_t)i, 0.25f);
    pte_xnn_blob blob;
    pte_error_info err;
    CHECK_OK(pte_xnn_blob_build_conv2d(c, w, b, PTE_XNN_CONSTANTS_NAMED, &blob, &err));
    lazy_matches_full(&blob, "conv", &cmp);
    CHECK_EQ_INT(cmp, 3);
    pte_xnn_blob_free(&blob);
    free(w);
    free(b);
  }
}

/* Shared or read-only file mappings may have their pages dropped; heap, anonymous and writable
 * private memory may not. Dropping pages never changes what the mapping reads. */
TEST(file_backed_ranges) {
  char path[] = "/tmp/pte_xnn_fb_XXXXXX";
  int fd = mkstemp(path);
  CHECK(fd >= 0);
  if (fd < 0) return;
  const size_t n = (size_t)4 << 20;
  uint8_t *data = (uint8_t *)malloc(n);
  for (size_t i = 0; i < n; i++) data[i] = (uint8_t)(i * 131u + (i >> 12));
  CHECK(write(fd, data, n) == (ssize_t)n);
  uint8_t *sh = (uint8_t *)mmap(NULL, n, PROT_READ, MAP_SHARED, fd, 0);
  uint8_t *pr = (uint8_t *)mmap(NULL, n, PROT_READ, MAP_PRIVATE, fd, 0);
  uint8_t *pw = (uint8_t *)mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
  uint8_t *an = (uint8_t *)mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  CHECK(sh != MAP_FAILED && pr != MAP_FAILED && pw != MAP_FAILED && an != MAP_FAILED);
  if (sh != MAP_FAILED && pr != MAP_FAILED && pw != MAP_FAILED && an != MAP_FAILED) {
    CHECK(pte_xnn_file_backed(sh + 100, n - 200));
    CHECK(pte_xnn_file_backed(pr, n));
    CHECK(!pte_xnn_file_backed(pw, n));
    CHECK(!pte_xnn_file_backed(an, n));
    CHECK(!pte_xnn_file_backed(data, n));
    CHECK(!pte_xnn_file_backed(sh, n + 4096)); /* past the mapping */
    CHECK(!pte_xnn_file_backed(NULL, 16));
    CHECK(memcmp(sh, data, n) == 0 && memcmp(pr, data, n) == 0);
    pte_xnn_release_pages(sh + 100, n - 200);
    pte_xnn_release_pages(pr, n);
    CHECK(memcmp(sh, data, n) == 0);
    CHECK(memcmp(pr, data, n) == 0);
  }
  if (sh != MAP_FAILED) munmap(sh, n);
  if (pr != MAP_FAILED) munmap(pr, n);
  if (pw != MAP_FAILED) munmap(pw, n);
  if (an != MAP_FAILED) munmap(an, n);
  free(data);
  close(fd);
  unlink(path);
}

/* A weight large enough to be packed in several slices (its rows dropped as they are packed):
 * the prepared value is the envelope around exactly the bytes a full compile packs, and the
 * prepared model gives the same outputs with no packing at load. The model is run only after
 * prepare: a packing freed just before could leave the right bytes in reused heap memory. */
static void streamed_case(const pte_xnn_blob *blob, size_t m, size_t k, size_t n, const void *w, size_t wbytes,
                          const char *name) {
  pte_error_info err;
  xp_layer L[1] = {{blob, 0, 2, {m, k}, 2, {m, n}}};
  const char *p = xp_write(L, 1, false, name);
  CHECK(p);
  if (!p) return;
  char in[256], out[300];
  snprintf(in, sizeof in, "%s", p);
  snprintf(out, sizeof out, "%s.prepared", p);
  pte_xnn_delegate *full = NULL;
  CHECK_OK(compile_blob(blob, false, 0, NULL, 0, &full, &err));
  const pte_xnn_packed *want = NULL;
  for (size_t i = 0; full && i < full->n_nodes; i++)
    if (full->nodes[i].packed.bytes) want = &full->nodes[i].packed;
  CHECK_MSG(want && want->size > ((size_t)8 << 20), "%s: packed %zu bytes", name, want ? want->size : 0);
  xp_result before, after;
  pte_prepare_report rep;
  CHECK_MSG(xp_prepare(in, out, &rep, &err) == PTE_OK, "prepare: %s", err.msg);
  CHECK_EQ_INT(rep.backends[0].named_replaced, 1);
  char wkey[65];
  pte_sha256_hex(w, wbytes, wkey);
  size_t vs = 0;
  uint8_t *v = named_value(out, wkey, &vs);
  CHECK(v);
  if (v && want) {
    pte_prepared_info pi;
    pte_error_info e2;
    char fp[33];
    const size_t fpn = pte_xnn_fingerprint(hook_kernels(), fp);
    CHECK_OK(pte_prepared_envelope_check(v, vs, PTE_XNNPACK_BACKEND_ID, PTE_XNN_PREPARED_FORMAT, fp, fpn, &pi, &e2));
    CHECK_MSG(pi.payload_size == want->size && memcmp(pi.payload, want->bytes, want->size) == 0,
              "%s: prepared bytes differ from the full compile's", name);
  }
  free(v);
  CHECK_OK(xp_run(in, NULL, 0, 77, NULL, &before, &err));
  CHECK_OK(xp_run(out, NULL, 0, 77, NULL, &after, &err));
  CHECK(xp_same(&before, &after));
  CHECK_EQ_INT(after.load_stats.packs, 0);
  CHECK_EQ_INT(after.load_stats.prepared, 1);
  xp_result_free(&before);
  xp_result_free(&after);
  pte_xnn_delegate_destroy(full);
  unlink(in);
  unlink(out);
}

TEST(streamed_prepare_large_weight) {
  const size_t k = 1100, n = 2048; /* 8.6 MiB of fp32 weights */
  float *w = xp_weights(n * k, 901, 0.05f), *b = xp_weights(n, 902, 0.25f);
  pte_xnn_blob blob;
  pte_error_info err;
  CHECK_OK(pte_xnn_blob_build_linear(2, k, n, w, b, PTE_XNN_CONSTANTS_NAMED, &blob, &err));
  streamed_case(&blob, 2, k, n, w, n * k * 4, "streamed_f32");
  pte_xnn_blob_free(&blob);
  free(w);
  free(b);
  /* int8 (qdint8 input, qcint8 weights): 2048 x 4400, 8.6 MiB */
  const size_t k8 = 4400;
  int8_t *w8 = (int8_t *)malloc(n * k8);
  float *sc = xp_weights(n, 903, 0.01f), *b8 = xp_weights(n, 904, 0.25f);
  for (size_t i = 0; i < n * k8; i++) w8[i] = (int8_t)((i * 2654435761u) >> 24);
  for (size_t i = 0; i < n; i++) sc[i] = 0.001f + (sc[i] < 0 ? -sc[i] : sc[i]);
  CHECK_OK(qd8_blob(2, k8, n, w8, sc, b8, &blob, &err));
  streamed_case(&blob, 2, k8, n, w8, n * k8, "streamed_qd8");
  pte_xnn_blob_free(&blob);
  free(w8);
  free(sc);
  free(b8);
}

/* Upstream exports: prepare, then the same outputs bit for bit and no packing at load. */
static void corpus_case(const char *name, const int32_t *shape0, unsigned want_prepared) {
  const char *in = test_corpus_path(name);
  CHECK(in);
  char in_path[512], out_path[300];
  snprintf(in_path, sizeof in_path, "%s", in);
  snprintf(out_path, sizeof out_path, "%s", test_tmp_path("xprep_corpus.pte"));
  pte_error_info err;
  xp_result before, after;
  pte_prepare_report rep;
  CHECK_MSG(xp_run(in_path, NULL, 0, 61, shape0, &before, &err) == PTE_OK, "%s: %s", name, err.msg);
  CHECK_MSG(xp_prepare(in_path, out_path, &rep, &err) == PTE_OK, "%s: prepare: %s", name, err.msg);
  CHECK_MSG(xp_run(out_path, NULL, 0, 61, shape0, &after, &err) == PTE_OK, "%s: %s", name, err.msg);
  CHECK_MSG(xp_same(&before, &after), "%s: outputs differ after prepare", name);
  CHECK_MSG(before.load_stats.packs == want_prepared && after.load_stats.packs == 0 &&
                after.load_stats.prepared == want_prepared,
            "%s: packs %llu -> %llu, prepared %llu (want %u)", name, (unsigned long long)before.load_stats.packs,
            (unsigned long long)after.load_stats.packs, (unsigned long long)after.load_stats.prepared, want_prepared);
  CHECK_EQ_INT(rep.changed, want_prepared > 0);
  if (want_prepared) {
    CHECK_EQ_INT(rep.backends[0].named_replaced, want_prepared);
    CHECK_EQ_INT(rep.backends[0].blobs_sealed + rep.backends[0].blobs_replaced, rep.backends[0].n_blobs);
    size_t sealed = 0;
    check_sealed(in_path, out_path, &sealed);
    CHECK(sealed > 0);
    CHECK_MSG(rep.size_after <= rep.size_before + rep.backends[0].bytes_after - rep.backends[0].bytes_before +
                                    128 * (uint64_t)(want_prepared + rep.backends[0].n_blobs),
              "%s: %llu -> %llu bytes", name, (unsigned long long)rep.size_before, (unsigned long long)rep.size_after);
  }
  xp_result_free(&before);
  xp_result_free(&after);
  unlink(out_path);
}

TEST(corpus_djl_spike_lin129) { corpus_case("djl_spike_lin129.pte", NULL, 1); }
TEST(corpus_djl_spike_lin129_planned) { corpus_case("djl_spike_lin129_planned.pte", NULL, 1); }
TEST(corpus_djl_spike_conv) { corpus_case("djl_spike_conv.pte", NULL, 1); }
TEST(corpus_djl_stress_mlp) { corpus_case("djl_stress_mlp.pte", NULL, 10); }
TEST(corpus_simple_torch_model) {
  static const int32_t small[4] = {1, 1, 24, 31};
  corpus_case("simple-torch-model.pte", small, 3);
}
TEST(corpus_numpyrt_quantized) { corpus_case("numpyrt_quantized.pte", NULL, 1); }
TEST(corpus_numpyrt_add_unchanged) { corpus_case("numpyrt_add.pte", NULL, 0); }

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
  RUN(conv_named);
  RUN(conv_inline);
  RUN(int8_weights);
  RUN(q4_weights);
  RUN(q4_prepared_skips_serialized_scales);
  RUN(shared_keys);
  RUN(lazy_pack_matches_full);
  RUN(file_backed_ranges);
  RUN(streamed_prepare_large_weight);
  RUN(corpus_djl_spike_lin129);
  RUN(corpus_djl_spike_lin129_planned);
  RUN(corpus_djl_spike_conv);
  RUN(corpus_djl_stress_mlp);
  RUN(corpus_simple_torch_model);
  RUN(corpus_numpyrt_quantized);
  RUN(corpus_numpyrt_add_unchanged);
  return test_summary();
}
