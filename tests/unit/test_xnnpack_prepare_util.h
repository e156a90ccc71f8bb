/* tests/unit/test_xnnpack_prepare_util.h — programs for the XNNPACK prepare tests
 * (test_xnnpack_prepare.c, test_xnnpack_prepare_ops.c): written with the XNNPACK blob builder and
 * the program writer, prepared, and run from an mmap'd file; a 3-layer MLP + linear fixture.
 * static inline so a test that does not use one does not warn. */
#ifndef PTE_TEST_XNNPACK_PREPARE_UTIL_H
#define PTE_TEST_XNNPACK_PREPARE_UTIL_H

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

static inline size_t dims_numel(const size_t *d, size_t r) {
  size_t n = 1;
  for (size_t i = 0; i < r; i++) n *= d[i];
  return n;
}

/* Writes a program "forward" calling the layers in order; its outputs are the layer outputs no
 * later layer reads. Weights go to named data (each distinct key once); inline_delegates keeps
 * the processed blobs in Program.backend_delegate_data. Returns 64-aligned heap bytes (free()). */
static inline uint8_t *xp_build(const xp_layer *L, size_t n, bool inline_delegates, size_t *size, pte_error_info *err) {
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
static inline const char *xp_write(const xp_layer *L, size_t n, bool inline_delegates, const char *name) {
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

static inline float *xp_weights(size_t n, uint32_t seed, float scale) {
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
  bool loaded; /* the method load succeeded (a failure after it came from execute) */
} xp_result;

static inline void xp_result_free(xp_result *r) {
  for (size_t i = 0; i < 8; i++) free(r->out[i]);
  memset(r, 0, sizeof *r);
}

static inline bool xp_same(const xp_result *a, const xp_result *b) {
  if (a->count != b->count || a->count == 0) return false;
  for (size_t i = 0; i < a->count; i++)
    if (a->n[i] != b->n[i] || memcmp(a->out[i], b->out[i], a->n[i] * sizeof(float)) != 0) return false;
  return true;
}

static inline void xp_register(void) {
  if (!pte_get_backend(PTE_XNNPACK_BACKEND_ID)) pte_register_xnnpack_backend();
  pte_register_portable_kernels();
}

/* Loads `path` with the mmap loader (whole file), runs "forward" on inputs from `seed`
 * (input 0 takes shape0 when given) with backend options `bo`, copies the float outputs. */
static inline pte_status xp_run(const char *path, const pte_backend_load_options *bo, size_t nbo, uint32_t seed,
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
    res->loaded = s == PTE_OK;
  }
  if (s == PTE_OK) s = xt_fill_inputs(m, seed, shape0, inbuf, NULL, err);
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

static inline pte_status xp_prepare(const char *in, const char *out, pte_prepare_report *rep, pte_error_info *err) {
  pte_prepare_file_options o;
  memset(&o, 0, sizeof o);
  pte_file_writer_options_init(&o.file);
  o.file.no_fsync = true;
  xp_register();
  return pte_prepare_file(in, out, &o, rep, err);
}

static inline off_t file_size(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return -1;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fclose(f);
  return (off_t)n;
}

/* The stored value of named-data key `key` in file `path` (copied: free()). */
static inline uint8_t *named_value(const char *path, const char *key, size_t *size) {
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
static inline void check_sealed(const char *in, const char *out, size_t *n) {
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
static inline const char *this_fp(char buf[33]) {
  pte_xnnpack_fingerprint(PTE_XNN_ISA_AUTO, buf);
  return buf;
}

static inline void set_default_isa(pte_xnn_isa isa) {
  pte_xnnpack_options o = {1, isa};
  pte_xnnpack_set_default_options(&o);
}

static inline pte_backend_option opt_string(const char *key, const char *v) {
  pte_backend_option o;
  memset(&o, 0, sizeof o);
  strcpy(o.key, key);
  o.type = PTE_BACKEND_OPTION_STRING;
  strcpy(o.value.s, v);
  return o;
}

static inline pte_backend_option opt_bool(const char *key, bool v) {
  pte_backend_option o;
  memset(&o, 0, sizeof o);
  strcpy(o.key, key);
  o.type = PTE_BACKEND_OPTION_BOOL;
  o.value.b = v;
  return o;
}

/* Packed XPW1 bytes of an fp32 GEMM of n outputs, k inputs for `isa` (docs/xnnpack.md section 6). */
static inline size_t f32_packed_size(pte_xnn_isa isa, size_t n, size_t k) {
  size_t nr = 4;
  if (isa == PTE_XNN_ISA_AVX2) nr = 16;
  if (isa == PTE_XNN_ISA_AVX512) nr = n <= 16 ? 16 : 32;
  const size_t panels = (n + nr - 1) / nr, stride = ((nr + k * nr) * 4 + 63) / 64 * 64;
  return 64 + panels * stride;
}

/* A 3-layer MLP (odd sizes: partial panels) then a linear layer: 4 FullyConnected weights. */
typedef struct mlp_fixture {
  float *w[4], *b[4];
  pte_xnn_blob mlp, lin;
  char in_path[256], out_path[256];
} mlp_fixture;

static const size_t k_mlp_n[4] = {70, 17, 5, 9}, k_mlp_k[4] = {33, 70, 17, 5};

static inline bool mlp_make(mlp_fixture *f, pte_xnn_constants_mode mode, bool inline_delegates, const char *name) {
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

static inline void mlp_free(mlp_fixture *f) {
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

#endif
