/* XNNPACK backend end to end: every corpus file with XnnpackBackend delegates is loaded with
 * pte_method_load and executed twice on the same inputs — once with the real backend registered,
 * once with a stand-in "XnnpackBackend" that evaluates each blob with the naive reference
 * evaluator — and the method outputs must agree within 1e-5 relative. Also runtime options
 * (num_threads / isa runtime specs) and init failures surfacing through pte_method_load. */
#include "pte/method.h"
#include "pte/portable_kernels.h"
#include "test_xnnpack_util.h"

/* ---- the reference stand-in backend --------------------------------------------------------- */
typedef struct ref_handle {
  uint8_t *blob;
  size_t size;
  const pte_named_data_map *ndm;
} ref_handle;

static pte_status ref_init(pte_backend_init_context *ctx, pte_freeable_buffer *processed, const pte_compile_spec *cs,
                           size_t ncs, pte_delegate_handle **out) {
  (void)cs;
  (void)ncs;
  ref_handle *h = (ref_handle *)calloc(1, sizeof *h);
  h->blob = (uint8_t *)malloc(processed->size);
  memcpy(h->blob, processed->data, processed->size);
  h->size = processed->size;
  h->ndm = ctx->named_data_map;
  *out = h;
  return PTE_OK;
}

static pte_status ref_execute(pte_backend_execution_context *ctx, pte_delegate_handle *handle, pte_evalue **args,
                              size_t nargs) {
  ref_handle *h = (ref_handle *)handle;
  xr_arg ra[16];
  memset(ra, 0, sizeof ra);
  if (nargs > 16) return PTE_ERR_NOT_SUPPORTED;
  for (size_t i = 0; i < nargs; i++) {
    pte_tensor *t = args[i]->u.tensor;
    ra[i].rank = t->dim;
    for (int k = 0; k < t->dim; k++) ra[i].dims[k] = (size_t)t->sizes[k];
    ra[i].in = (const float *)t->data;
  }
  char err[256];
  if (xr_run(h->blob, h->size, h->ndm, ra, nargs, err, sizeof err) != 0)
    return pte_error_set(ctx->err, PTE_ERR_INTERNAL, "reference: %s", err);
  pte_status s = PTE_OK;
  for (size_t i = 0; i < nargs; i++) {
    if (!ra[i].out) continue;
    pte_tensor *t = args[i]->u.tensor;
    int32_t sizes[6];
    for (int k = 0; k < ra[i].out_rank; k++) sizes[k] = (int32_t)ra[i].out_dims[k];
    if (pte_tensor_resize(t, sizes, ra[i].out_rank) != PTE_OK) s = PTE_ERR_INVALID_ARGUMENT;
    else
      for (size_t k = 0; k < ra[i].out_numel; k++) ((float *)t->data)[k] = (float)ra[i].out[k];
    free(ra[i].out);
  }
  return s;
}

static void ref_destroy(pte_delegate_handle *handle) {
  ref_handle *h = (ref_handle *)handle;
  free(h->blob);
  free(h);
}

static const pte_backend k_ref_backend = {NULL, ref_init, ref_execute, ref_destroy, NULL};

static void use_backend(bool real) {
  pte_backend_registry_reset();
  if (real) pte_register_xnnpack_backend();
  else pte_register_backend(PTE_XNNPACK_BACKEND_ID, &k_ref_backend);
}

/* ---- method plumbing ---------------------------------------------------------------------- */
typedef struct xm_run {
  uint8_t *pool, *temp_mem;
  pte_allocator ma, temp;
  pte_planned_buffer planned[4];
  size_t n_planned;
  pte_memory_manager mm;
  pte_method *m;
  pte_error_info err;
} xm_run;

static pte_status xm_load(xt_prog *p, xm_run *r, const pte_backend_load_options *bo, size_t nbo) {
  memset(r, 0, sizeof *r);
  pte_method_meta meta;
  pte_status s = pte_method_meta_get(&p->prog, "forward", &meta, &r->err);
  if (s != PTE_OK) return s;
  r->n_planned = pte_method_meta_num_planned_buffers(&meta);
  for (size_t i = 0; i < r->n_planned && i < 4; i++) {
    uint64_t sz = 0;
    pte_method_meta_planned_buffer_size(&meta, i, &sz);
    r->planned[i].data = calloc(1, (size_t)sz + 64);
    r->planned[i].size = (size_t)sz;
  }
  r->pool = (uint8_t *)malloc(4 << 20);
  r->temp_mem = (uint8_t *)malloc(1 << 20);
  pte_allocator_init(&r->ma, r->pool, 4 << 20);
  pte_allocator_init(&r->temp, r->temp_mem, 1 << 20);
  pte_memory_manager_init(&r->mm, &r->ma, r->planned, r->n_planned, &r->temp);
  pte_method_options o;
  memset(&o, 0, sizeof o);
  o.backend_options = bo;
  o.n_backend_options = nbo;
  return pte_method_load_ex(&p->prog, "forward", &r->mm, &o, &r->m, &r->err);
}

static void xm_free(xm_run *r) {
  pte_method_destroy(r->m);
  for (size_t i = 0; i < r->n_planned && i < 4; i++) free(r->planned[i].data);
  free(r->pool);
  free(r->temp_mem);
  memset(r, 0, sizeof *r);
}

/* Runs forward on inputs generated from `seed` (inputs take `shape0` for input 0 if given);
 * copies every float output into outs[i] (malloc). */
static bool xm_forward(xt_prog *p, bool real, uint32_t seed, const int32_t *shape0, float **outs, size_t *out_n,
                       size_t *n_outputs, const pte_backend_load_options *bo, size_t nbo) {
  use_backend(real);
  xm_run r;
  pte_status s = xm_load(p, &r, bo, nbo);
  if (s != PTE_OK) {
    test_fail(__FILE__, __LINE__, "method load (%s backend): %s: %s", real ? "real" : "reference", pte_status_name(s),
              r.err.msg);
    xm_free(&r);
    return false;
  }
  float *inbuf[8] = {0};
  size_t failed = 0;
  s = xt_fill_inputs(r.m, seed, shape0, inbuf, &failed, &r.err);
  if (s != PTE_OK) test_fail(__FILE__, __LINE__, "set_input %zu: %s: %s", failed, pte_status_name(s), r.err.msg);
  if (s == PTE_OK) {
    s = pte_method_execute(r.m, &r.err);
    if (s != PTE_OK)
      test_fail(__FILE__, __LINE__, "execute (%s backend): %s: %s", real ? "real" : "reference", pte_status_name(s),
                r.err.msg);
  }
  *n_outputs = pte_method_num_outputs(r.m);
  for (size_t i = 0; s == PTE_OK && i < *n_outputs && i < 8; i++) {
    const pte_evalue *ev = pte_method_get_output(r.m, i);
    const pte_tensor *t = ev->u.tensor;
    out_n[i] = t->numel;
    outs[i] = (float *)malloc(t->numel * sizeof(float) + 4);
    memcpy(outs[i], t->data, t->numel * sizeof(float));
  }
  for (size_t i = 0; i < 8; i++) free(inbuf[i]);
  xm_free(&r);
  return s == PTE_OK;
}

static void e2e(const char *file, const int32_t *shape0, int runs) {
  xt_prog p;
  if (!xt_open(&p, file)) return;
  CHECK_OK(pte_register_portable_kernels());
  for (int run = 0; run < runs; run++) {
    float *got[8] = {0}, *want[8] = {0};
    size_t ng[8], nw[8], no_g = 0, no_w = 0;
    uint32_t seed = 1000u + (uint32_t)run * 77u;
    bool ok = xm_forward(&p, true, seed, shape0, got, ng, &no_g, NULL, 0) &&
              xm_forward(&p, false, seed, shape0, want, nw, &no_w, NULL, 0);
    if (ok) {
      CHECK_EQ_INT(no_g, no_w);
      for (size_t i = 0; i < no_g; i++) {
        CHECK_EQ_INT(ng[i], nw[i]);
        double *ref = (double *)malloc(nw[i] * sizeof(double) + 8);
        for (size_t k = 0; k < nw[i]; k++) ref[k] = want[i][k];
        size_t worst;
        double w = xt_compare(got[i], ref, nw[i], 1e-5, &worst);
        free(ref);
        CHECK_MSG(w <= 1.0, "%s run %d output %zu element %zu: %.9g vs %.9g", file, run, i, worst, (double)got[i][worst],
                  (double)want[i][worst]);
      }
    }
    for (int i = 0; i < 8; i++) {
      free(got[i]);
      free(want[i]);
    }
    if (!ok) break;
  }
  xt_close(&p);
}

TEST(e2e_numpyrt_add) { e2e("numpyrt_add.pte", NULL, 3); }
TEST(e2e_numpyrt_dynamic) {
  static const int32_t n3[1] = {3}, n8[1] = {8};
  e2e("numpyrt_dynamic.pte", n3, 2);
  e2e("numpyrt_dynamic.pte", n8, 2);
}
TEST(e2e_numpyrt_quantized) { e2e("numpyrt_quantized.pte", NULL, 3); }
TEST(e2e_simple_torch_model) {
  static const int32_t small[4] = {1, 1, 24, 31};
  e2e("simple-torch-model.pte", small, 3);
}
TEST(e2e_djl_spike_add) { e2e("djl_spike_add.pte", NULL, 3); }
TEST(e2e_djl_spike_add_unplanned) { e2e("djl_spike_add_unplanned.pte", NULL, 3); }
TEST(e2e_djl_spike_clamp5) { e2e("djl_spike_clamp5.pte", NULL, 3); }
TEST(e2e_djl_spike_conv) { e2e("djl_spike_conv.pte", NULL, 3); }
TEST(e2e_djl_spike_lin129) { e2e("djl_spike_lin129.pte", NULL, 3); }
TEST(e2e_djl_spike_lin129_planned) { e2e("djl_spike_lin129_planned.pte", NULL, 3); }
TEST(e2e_djl_stress_mlp) { e2e("djl_stress_mlp.pte", NULL, 3); }

/* hand-checked: a + b through the real backend */
TEST(e2e_add_values) {
  xt_prog p;
  if (!xt_open(&p, "numpyrt_add.pte")) return;
  use_backend(true);
  xm_run r;
  CHECK_OK(xm_load(&p, &r, NULL, 0));
  float a[3] = {1.5f, -2.0f, 3.25f}, b[3] = {0.5f, 4.0f, -1.25f};
  int32_t sz[1] = {3};
  CHECK_OK(pte_method_set_input_tensor(r.m, 0, PTE_DTYPE_FLOAT, sz, 1, a, sizeof a, &r.err));
  CHECK_OK(pte_method_set_input_tensor(r.m, 1, PTE_DTYPE_FLOAT, sz, 1, b, sizeof b, &r.err));
  CHECK_OK(pte_method_execute(r.m, &r.err));
  const float *o = (const float *)pte_method_get_output(r.m, 0)->u.tensor->data;
  CHECK_NEAR(o[0], 2.0, 0);
  CHECK_NEAR(o[1], 2.0, 0);
  CHECK_NEAR(o[2], 2.0, 0);
  xm_free(&r);
  xt_close(&p);
}

TEST(runtime_specs) {
  xt_prog p;
  if (!xt_open(&p, "djl_spike_lin129_planned.pte")) return;
  use_backend(true);
  pte_backend_option opts[2];
  memset(opts, 0, sizeof opts);
  strcpy(opts[0].key, PTE_XNNPACK_OPTION_NUM_THREADS);
  opts[0].type = PTE_BACKEND_OPTION_INT;
  opts[0].value.i = 2;
  strcpy(opts[1].key, PTE_XNNPACK_OPTION_ISA);
  opts[1].type = PTE_BACKEND_OPTION_STRING;
  strcpy(opts[1].value.s, "scalar");
  pte_backend_load_options bo = {PTE_XNNPACK_BACKEND_ID, opts, 2};
  xm_run r;
  CHECK_OK(xm_load(&p, &r, &bo, 1));
  xm_free(&r);
  /* wrong type / value -> init fails, surfaced by the load */
  opts[0].type = PTE_BACKEND_OPTION_BOOL;
  CHECK_STATUS(xm_load(&p, &r, &bo, 1), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(r.err.msg, "num_threads");
  xm_free(&r);
  opts[0].type = PTE_BACKEND_OPTION_INT;
  strcpy(opts[1].value.s, "neon");
  CHECK_STATUS(xm_load(&p, &r, &bo, 1), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(r.err.msg, "neon");
  xm_free(&r);
  /* outputs with threads=2 + scalar match the reference */
  strcpy(opts[1].value.s, "scalar");
  CHECK_OK(pte_register_portable_kernels());
  float *got[8] = {0}, *want[8] = {0};
  size_t ng[8], nw[8], a = 0, b = 0;
  CHECK(xm_forward(&p, true, 7, NULL, got, ng, &a, &bo, 1));
  CHECK(xm_forward(&p, false, 7, NULL, want, nw, &b, NULL, 0));
  double ref[64];
  for (int i = 0; i < 64; i++) ref[i] = want[0][i];
  size_t worst;
  CHECK(xt_compare(got[0], ref, 64, 1e-5, &worst) <= 1.0);
  free(got[0]);
  free(want[0]);
  xt_close(&p);
}

TEST(registration) {
  pte_backend_registry_reset();
  CHECK_OK(pte_register_xnnpack_backend());
  CHECK_OK(pte_register_xnnpack_backend());
  CHECK(pte_get_backend(PTE_XNNPACK_BACKEND_ID) == pte_xnnpack_backend());
  pte_backend_registry_reset();
  CHECK_OK(pte_register_backend(PTE_XNNPACK_BACKEND_ID, &k_ref_backend));
  CHECK_STATUS(pte_register_xnnpack_backend(), PTE_ERR_INVALID_ARGUMENT);
  pte_backend_registry_reset();
}

int main(void) {
  RUN(registration);
  RUN(e2e_add_values);
  RUN(e2e_numpyrt_add);
  RUN(e2e_numpyrt_dynamic);
  RUN(e2e_numpyrt_quantized);
  RUN(e2e_simple_torch_model);
  RUN(e2e_djl_spike_add);
  RUN(e2e_djl_spike_add_unplanned);
  RUN(e2e_djl_spike_clamp5);
  RUN(e2e_djl_spike_conv);
  RUN(e2e_djl_spike_lin129);
  RUN(e2e_djl_spike_lin129_planned);
  RUN(e2e_djl_stress_mlp);
  RUN(runtime_specs);
  return test_summary();
}
