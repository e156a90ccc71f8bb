/* test_xnnpack_util.h — helpers shared by the XNNPACK backend tests: corpus programs, delegate
 * blobs, hand-built tensors, random data and the comparison against the reference evaluator. */
#ifndef PTE_TEST_XNNPACK_UTIL_H
#define PTE_TEST_XNNPACK_UTIL_H

#include "pte/backend_xnnpack.h"
#include "pte/data_loader.h"
#include "pte/method.h"
#include "pte/program.h"
#include "pte_gen/program_gen.h"
#include "test.h"
#include "test_xnnpack_ref.h"

typedef struct xt_prog {
  uint8_t *file;
  size_t size;
  pte_buffer_loader loader;
  pte_program prog;
  bool ok;
} xt_prog;

/* Loads a program from memory (takes ownership of file, freed by xt_close). */
static inline bool xt_open_memory(xt_prog *p, uint8_t *file, size_t size, const char *name) {
  memset(p, 0, sizeof *p);
  p->file = file;
  p->size = size;
  if (!p->file) return false; /* the reader recorded the failure (test_read_corpus) or the caller does */
  pte_buffer_loader_init(&p->loader, p->file, p->size);
  pte_error_info err;
  if (pte_program_load(&p->loader.base, PTE_VERIFY_INTERNAL_CONSISTENCY, &p->prog, &err) != PTE_OK) {
    test_fail(__FILE__, __LINE__, "cannot load %s: %s", name, err.msg); /* a broken file fails the test */
    free(p->file);
    p->file = NULL;
    return false;
  }
  p->ok = true;
  return true;
}

static inline bool xt_open(xt_prog *p, const char *name) {
  size_t size = 0;
  uint8_t *file = test_read_corpus(name, &size);
  return xt_open_memory(p, file, size, name);
}

static inline size_t xt_num_plans(xt_prog *p) {
  size_t fbs;
  const uint8_t *fb = pte_program_flatbuffer(&p->prog, &fbs);
  pte_fb_vec plans = pte_et_Program_execution_plan(pte_fb_root(fb, fbs));
  return plans.present ? plans.len : 0;
}

static inline void xt_close(xt_prog *p) {
  if (p->ok) pte_program_destroy(&p->prog);
  free(p->file);
  memset(p, 0, sizeof *p);
}

static inline size_t xt_num_delegates(xt_prog *p, size_t plan) {
  size_t fbs;
  const uint8_t *fb = pte_program_flatbuffer(&p->prog, &fbs);
  pte_fb_table root = pte_fb_root(fb, fbs);
  pte_fb_table ep = pte_fb_vec_table(pte_et_Program_execution_plan(root), (uint32_t)plan);
  pte_fb_vec dels = pte_et_ExecutionPlan_delegates(ep);
  return dels.present ? dels.len : 0;
}

/* Processed bytes of delegate `del` of plan `plan`. */
static inline bool xt_blob(xt_prog *p, size_t plan, size_t del, pte_freeable_buffer *out) {
  size_t fbs;
  const uint8_t *fb = pte_program_flatbuffer(&p->prog, &fbs);
  pte_fb_table root = pte_fb_root(fb, fbs);
  pte_fb_table ep = pte_fb_vec_table(pte_et_Program_execution_plan(root), (uint32_t)plan);
  pte_fb_table d = pte_fb_vec_table(pte_et_ExecutionPlan_delegates(ep), (uint32_t)del);
  pte_fb_table ref = pte_et_BackendDelegate_processed(d);
  uint32_t idx = pte_et_BackendDelegateDataReference_index(ref);
  if (pte_et_BackendDelegateDataReference_location(ref) == 0) {
    pte_fb_table inl = pte_fb_vec_table(pte_et_Program_backend_delegate_data(root), idx);
    pte_fb_vec data = pte_et_BackendDelegateInlineData_data(inl);
    *out = pte_freeable_buffer_view(pte_fb_vec_data(data), data.len);
    return true;
  }
  pte_segment_info si = {PTE_SEGMENT_BACKEND, idx, PTE_XNNPACK_BACKEND_ID};
  return pte_program_load_segment(&p->prog, idx, &si, out) == PTE_OK;
}

/* A tensor EValue over caller data. */
typedef struct xt_tensor {
  pte_tensor t;
  int32_t sizes[PTE_MAX_RANK];
  int32_t strides[PTE_MAX_RANK];
  uint8_t dim_order[PTE_MAX_RANK];
  pte_evalue ev;
} xt_tensor;

static inline void xt_tensor_init(xt_tensor *x, int dtype, int rank, const size_t *dims, void *data, size_t capacity,
                           int dynamism) {
  memset(x, 0, sizeof *x);
  size_t numel = 1;
  for (int i = 0; i < rank; i++) {
    x->sizes[i] = (int32_t)dims[i];
    x->dim_order[i] = (uint8_t)i;
    numel *= dims[i];
  }
  pte_strides_from_dim_order(x->sizes, x->dim_order, rank, x->strides);
  x->t.data = data;
  x->t.sizes = x->sizes;
  x->t.dim_order = x->dim_order;
  x->t.strides = x->strides;
  x->t.numel = numel;
  x->t.capacity_bytes = capacity;
  x->t.dim = rank;
  x->t.dtype = (uint8_t)dtype;
  x->t.dynamism = (uint8_t)dynamism;
  x->ev.tag = PTE_TAG_TENSOR;
  x->ev.u.tensor = &x->t;
}

static uint32_t xt_rng = 12345;
static inline float xt_rand(void) { /* uniform in [-1, 1) */
  xt_rng = xt_rng * 1664525u + 1013904223u;
  return (float)((xt_rng >> 8) & 0xFFFFFF) / 8388608.0f - 1.0f;
}
static inline void xt_fill(float *x, size_t n, float scale) {
  for (size_t i = 0; i < n; i++) x[i] = xt_rand() * scale;
}

/* Sets the first 8 inputs of m (shape from the method meta; input 0's from shape0 when not NULL)
 * to xt_fill(2.0) values from seed, in inbuf[i] (malloc; the caller frees). Returns the first
 * failing set_input's status (its index in *failed). */
static inline pte_status xt_fill_inputs(pte_method *m, uint32_t seed, const int32_t *shape0, float *inbuf[8],
                                        size_t *failed, pte_error_info *err) {
  const pte_method_meta *meta = pte_method_get_meta(m);
  pte_status s = PTE_OK;
  xt_rng = seed;
  for (size_t i = 0; s == PTE_OK && i < pte_method_num_inputs(m) && i < 8; i++) {
    pte_tensor_info ti;
    if (pte_method_meta_input_tensor_info(meta, i, &ti) != PTE_OK) continue;
    int32_t sizes[PTE_MAX_RANK];
    memcpy(sizes, ti.sizes, sizeof sizes);
    if (i == 0 && shape0) memcpy(sizes, shape0, (size_t)ti.dim * sizeof(int32_t));
    size_t n = 1;
    for (int k = 0; k < ti.dim; k++) n *= (size_t)sizes[k];
    inbuf[i] = (float *)malloc(n * sizeof(float) + 4);
    xt_fill(inbuf[i], n, 2.0f);
    s = pte_method_set_input_tensor(m, i, (pte_dtype)ti.dtype, sizes, ti.dim, inbuf[i], n * sizeof(float), err);
    if (s != PTE_OK && failed) *failed = i;
  }
  return s;
}

/* max error of got vs ref relative to (|ref| + rms(ref)); returns the worst ratio err / tol */
static inline double xt_compare(const float *got, const double *ref, size_t n, double rel, size_t *worst) {
  double ss = 0;
  for (size_t i = 0; i < n; i++) ss += ref[i] * ref[i];
  const double rms = n ? sqrt(ss / (double)n) : 0.0;
  double w = 0;
  *worst = 0;
  for (size_t i = 0; i < n; i++) {
    double tol = rel * (fabs(ref[i]) + rms) + 1e-30;
    double e = fabs((double)got[i] - ref[i]) / tol;
    if (isnan(got[i]) != isnan(ref[i])) e = 1e30;
    if (e > w) {
      w = e;
      *worst = i;
    }
  }
  return w;
}

/* ---- graph I/O description -------------------------------------------------------------------- */
typedef struct xt_ext {
  bool used, in, out;
  int dtype, rank;
  size_t dims[6];
} xt_ext;

static inline size_t xt_graph_io(const uint8_t *blob, size_t size, xt_ext *ext, size_t cap) {
  const uint8_t *fb = blob;
  size_t fbs = size;
  if (size >= 30 && memcmp(blob + 4, "XH00", 4) == 0) {
    fb = blob + xr_ld32(blob + 10);
    fbs = xr_ld32(blob + 14);
  }
  pte_fb_table root = pte_fb_root(fb, fbs);
  pte_fb_vec vals = pte_xn_XNNGraph_xvalues(root);
  size_t n = 0;
  memset(ext, 0, cap * sizeof *ext);
  for (uint32_t i = 0; i < vals.len; i++) {
    pte_fb_table xv = pte_fb_vec_table(vals, i), tv = pte_xn_XValue_xvalue_union(xv);
    if (pte_xn_XValue_xvalue_union_type(xv) == pte_xn_XValueUnion_XNNQuantizedTensorValue)
      tv = pte_xn_XNNQuantizedTensorValue_tensor_value(tv);
    uint32_t fl = pte_xn_XNNTensorValue_flags(tv);
    if (!(fl & 3)) continue;
    uint32_t e = pte_xn_XNNTensorValue_external_id(tv);
    if (e >= cap) continue;
    ext[e].used = true;
    ext[e].in = (fl & 1) != 0;
    ext[e].out = (fl & 2) != 0;
    ext[e].dtype = pte_xn_XNNTensorValue_datatype(tv);
    pte_fb_vec d = pte_xn_XNNTensorValue_dims(tv);
    ext[e].rank = (int)d.len;
    for (uint32_t k = 0; k < d.len; k++) ext[e].dims[k] = pte_fb_vec_u32(d, k);
    if (e + 1 > n) n = e + 1;
  }
  return n;
}

static inline size_t xt_numel_of(const size_t *d, int r) {
  size_t n = 1;
  for (int i = 0; i < r; i++) n *= d[i];
  return n;
}

/* Runs `blob` with inputs of the given shapes (NULL entry: declared) on delegate d and checks every
 * output against the reference. Returns false (after recording a failure) on mismatch. */
static inline bool xt_run_once(pte_xnn_delegate *d, const uint8_t *blob, size_t size, const pte_named_data_map *ndm,
                        const size_t (*shapes)[6], double rel, const char *what) {
  xt_ext ext[16];
  size_t n = xt_graph_io(blob, size, ext, 16);
  xt_tensor ts[16];
  pte_evalue *args[16];
  float *bufs[16] = {0};
  xr_arg ra[16];
  memset(ra, 0, sizeof ra);
  bool ok = true;
  for (size_t i = 0; i < n; i++) {
    size_t dims[6];
    memcpy(dims, ext[i].dims, sizeof dims);
    if (ext[i].in && shapes && shapes[i][0] != 0) memcpy(dims, shapes[i], sizeof dims);
    size_t cnt = xt_numel_of(dims, ext[i].rank);
    size_t cap = xt_numel_of(ext[i].dims, ext[i].rank);
    if (cnt > cap) cap = cnt;
    if (ext[i].out) cap = cap * 8 + 1024; /* outputs may grow with dynamic inputs */
    bufs[i] = (float *)calloc(cap + 16, sizeof(float));
    if (ext[i].in) {
      xt_fill(bufs[i], cnt, 2.0f);
      ra[i].rank = ext[i].rank;
      memcpy(ra[i].dims, dims, sizeof dims);
      ra[i].in = bufs[i];
    }
    xt_tensor_init(&ts[i], PTE_DTYPE_FLOAT, ext[i].rank, dims, bufs[i], cap * sizeof(float),
                   ext[i].out ? PTE_SHAPE_DYNAMIC_BOUND : PTE_SHAPE_STATIC);
    args[i] = &ts[i].ev;
  }
  pte_error_info err;
  memset(&err, 0, sizeof err);
  pte_status s = pte_xnn_delegate_execute(d, args, n, &err);
  if (s != PTE_OK) {
    test_fail(__FILE__, __LINE__, "%s: execute failed: %s (%s)", what, err.msg, pte_status_name(s));
    ok = false;
  }
  char rerr[256] = "";
  if (ok && xr_run(blob, size, ndm, ra, n, rerr, sizeof rerr) != 0) {
    test_fail(__FILE__, __LINE__, "%s: reference failed: %s", what, rerr);
    ok = false;
  }
  for (size_t i = 0; ok && i < n; i++) {
    if (!ext[i].out) continue;
    if ((size_t)ts[i].t.dim != (size_t)ra[i].out_rank || ts[i].t.numel != ra[i].out_numel) {
      test_fail(__FILE__, __LINE__, "%s: output %zu shape mismatch (numel %zu vs %zu)", what, i, ts[i].t.numel,
                ra[i].out_numel);
      ok = false;
      break;
    }
    for (int k = 0; k < ra[i].out_rank; k++)
      if ((size_t)ts[i].t.sizes[k] != ra[i].out_dims[k]) ok = false;
    if (!ok) {
      test_fail(__FILE__, __LINE__, "%s: output %zu dims differ", what, i);
      break;
    }
    size_t worst;
    double w = xt_compare(bufs[i], ra[i].out, ra[i].out_numel, rel, &worst);
    if (w > 1.0) {
      test_fail(__FILE__, __LINE__, "%s: output %zu element %zu: %.9g vs reference %.9g (%.3g x tolerance)", what, i,
                worst, (double)bufs[i][worst], ra[i].out[worst], w);
      ok = false;
    }
  }
  for (size_t i = 0; i < n; i++) {
    free(bufs[i]);
    free(ra[i].out);
  }
  return ok;
}

static const pte_xnn_isa k_isas[] = {PTE_XNN_ISA_SCALAR, PTE_XNN_ISA_AVX2, PTE_XNN_ISA_AVX512};

/* Every supported ISA x {1, 2} threads x `runs` random inputs. */
static inline bool xt_check_blob(const uint8_t *blob, size_t size, const pte_named_data_map *ndm, const size_t (*shapes)[6],
                          int runs, double rel, const char *what) {
  for (size_t ii = 0; ii < sizeof k_isas / sizeof k_isas[0]; ii++) {
    if (!pte_xnnpack_isa_supported(k_isas[ii])) continue;
    for (int threads = 1; threads <= 2; threads++) {
      pte_xnnpack_options o = {threads, k_isas[ii]};
      pte_xnn_delegate *d = NULL;
      pte_error_info err;
      memset(&err, 0, sizeof err);
      pte_status s = pte_xnn_delegate_init(blob, size, ndm, &o, &d, &err);
      if (s != PTE_OK) {
        test_fail(__FILE__, __LINE__, "%s: init failed: %s (%s)", what, err.msg, pte_status_name(s));
        return false;
      }
      char label[160];
      snprintf(label, sizeof label, "%s [%s, %d thread%s]", what, pte_xnnpack_isa_name(k_isas[ii]), threads,
               threads > 1 ? "s" : "");
      for (int r = 0; r < runs; r++) {
        if (!xt_run_once(d, blob, size, ndm, shapes, rel, label)) {
          pte_xnn_delegate_destroy(d);
          return false;
        }
      }
      pte_xnn_delegate_destroy(d);
    }
  }
  return true;
}

#endif
