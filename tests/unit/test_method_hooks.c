/* Method load/execute on hand-built programs (tests/support/method_fixture.h), the hooks around
 * the plan: delegates through a test backend and the backend registry's limits, external tensors
 * through a named data map, the event tracer's scopes, and method meta. Values, placement,
 * kernels, control flow, inputs/outputs and temp memory: test_method.c. */
#define _POSIX_C_SOURCE 200809L
#include "test.h"

#include "format/flatbuf.h"
#include "pte/backend.h"
#include "pte/data_loader.h"
#include "pte/method.h"
#include "pte/program.h"

#include "method_fixture.h"

/* ================================================================== tests: delegates */

static int g_inits, g_execs, g_destroys, g_init_fail, g_exec_fail;
static bool g_available = true;
static char g_last_spec[32];
static int g_spec_int;
static const pte_named_data_map *g_seen_map;
static const char *g_seen_method;

static bool tb_available(void) { return g_available; }

static pte_status tb_init(pte_backend_init_context *ctx, pte_freeable_buffer *processed, const pte_compile_spec *specs,
                          size_t n, pte_delegate_handle **handle) {
  g_seen_map = ctx->named_data_map;
  g_seen_method = ctx->method_name;
  if (g_init_fail) return pte_error_set(ctx->err, PTE_ERR_DELEGATE_INVALID_COMPATIBILITY, "blob version %d unsupported", 7);
  g_last_spec[0] = '\0';
  if (n == 1 && specs[0].nbytes < sizeof g_last_spec) {
    memcpy(g_last_spec, specs[0].value, specs[0].nbytes);
    g_last_spec[specs[0].nbytes] = '\0';
  }
  g_spec_int = -1;
  bool b;
  if (pte_backend_runtime_spec_int(ctx, "threads", &g_spec_int) == PTE_OK &&
      pte_backend_runtime_spec_bool(ctx, "threads", &b) != PTE_ERR_INVALID_ARGUMENT) /* type mismatch */
    return PTE_ERR_INTERNAL;
  if (pte_backend_runtime_spec_bool(ctx, "absent", &b) != PTE_ERR_NOT_FOUND) return PTE_ERR_INTERNAL;
  /* The handle: the processed blob's first float (a scale factor). */
  float *h = PTE_ALLOC(ctx->runtime_allocator, float);
  if (!h || processed->size < 4) return PTE_ERR_INVALID_ARGUMENT;
  memcpy(h, processed->data, 4);
  *handle = h;
  g_inits++;
  return PTE_OK;
}

static pte_status tb_execute(pte_backend_execution_context *ctx, pte_delegate_handle *h, pte_evalue **args, size_t n) {
  g_execs++;
  if (g_exec_fail) return pte_error_set(ctx->err, PTE_ERR_DELEGATE_MEMORY_ALLOCATION_FAILED, "device busy");
  if (n != 2) return PTE_ERR_INVALID_ARGUMENT;
  void *scratch = pte_backend_alloc_temp(ctx, 64, 16);
  if (!scratch) return PTE_ERR_MEMORY_ALLOCATION_FAILED;
  pte_tensor *x = args[0]->u.tensor, *o = args[1]->u.tensor;
  for (size_t i = 0; i < x->numel; i++) ((float *)o->data)[i] = ((float *)x->data)[i] * *(float *)h;
  return PTE_OK;
}

static void tb_destroy(pte_delegate_handle *h) {
  (void)h;
  g_destroys++;
}

static const pte_backend k_test_backend = {tb_available, tb_init, tb_execute, tb_destroy, NULL};

static tprog delegate_prog(tplan *p, tval *v, tinstr *in, tdel *d, const void **blobs, size_t *bsz) {
  static const float scale = 3.0f;
  static const char *const ops[] = {"test::fail", "out"};
  v[0] = T1(PTE_DTYPE_FLOAT, 2, 1, 0);
  v[1] = T1(PTE_DTYPE_FLOAT, 2, 1, 16);
  memset(in, 0, sizeof *in);
  in[0].kind = I_DELEGATE;
  in[0].a = 0;
  SETA(in[0].args, in[0].nargs, 0, 1);
  in[0].nargs = 2;
  memset(d, 0, sizeof *d);
  d[0].id = "TestBackend";
  d[0].loc = 0;
  d[0].index = 0;
  d[0].spec_key = "mode";
  d[0].spec_val = "fast";
  blobs[0] = &scale;
  bsz[0] = sizeof scale;
  memset(p, 0, sizeof *p);
  p->vals = v;
  p->nv = 2;
  SETA(p->inputs, p->ni, 0);
  SETA(p->outputs, p->no, 1);
  p->ins = in;
  p->nins = 1;
  p->dels = d;
  p->ndels = 1;
  p->ops = ops;
  p->nops = 1;
  SETL(p->ncbs, p->nncbs, 0, 32);
  tprog tp = {p, 1, NULL, NULL, 0, blobs, bsz, 1};
  return tp;
}

TEST(delegate_lifecycle_inline_blob) {
  register_test_kernels();
  pte_backend_registry_reset();
  tplan p;
  tval v[2];
  tinstr in[2];
  tdel d[1];
  const void *blobs[1];
  size_t bsz[1];
  tprog tp = delegate_prog(&p, v, in, d, blobs, bsz);
  CHECK_STATUS(fx_load(&tp), PTE_ERR_NOT_FOUND);
  CHECK_CONTAINS(g_fx.err.msg, "backend 'TestBackend' (delegate 0 of method 'forward') is not registered");
  CHECK_OK(pte_register_backend("TestBackend", &k_test_backend));
  CHECK_STATUS(pte_register_backend("TestBackend", &k_test_backend), PTE_ERR_INVALID_ARGUMENT);
  CHECK(pte_get_backend("TestBackend") == &k_test_backend);
  CHECK(pte_get_backend("Other") == NULL);
  g_inits = g_execs = g_destroys = g_init_fail = g_exec_fail = 0;

  g_available = false;
  CHECK_STATUS(fx_load(&tp), PTE_ERR_NOT_FOUND);
  CHECK_CONTAINS(g_fx.err.msg, "not available");
  g_available = true;

  pte_backend_option opt;
  memset(&opt, 0, sizeof opt);
  strcpy(opt.key, "threads");
  opt.type = PTE_BACKEND_OPTION_INT;
  opt.value.i = 4;
  pte_backend_load_options bo = {"TestBackend", &opt, 1};
  pte_method_options o;
  memset(&o, 0, sizeof o);
  o.backend_options = &bo;
  o.n_backend_options = 1;
  pte_status s = fx_load_ex(&tp, PTE_VERIFY_INTERNAL_CONSISTENCY, &o);
  CHECK_MSG(s == PTE_OK, "load: %s %s", pte_status_name(s), g_fx.err.msg);
  CHECK_EQ_INT(g_inits, 1);
  CHECK_STR(g_last_spec, "fast");
  CHECK_EQ_INT(g_spec_int, 4);
  CHECK(g_seen_map == NULL); /* no external map, no named_data */
  CHECK_STR(g_seen_method, "forward");
  float x[2] = {1.5f, -2};
  int32_t s2[] = {2};
  CHECK_OK(pte_method_set_input_tensor(g_fx.m, 0, PTE_DTYPE_FLOAT, s2, 1, x, sizeof x, &g_fx.err));
  CHECK_OK(pte_method_execute(g_fx.m, &g_fx.err));
  CHECK(fdata(pte_method_get_output(g_fx.m, 0))[0] == 4.5f && fdata(pte_method_get_output(g_fx.m, 0))[1] == -6.0f);
  CHECK_EQ_INT(g_execs, 1);
  g_exec_fail = 1;
  CHECK_STATUS(pte_method_execute(g_fx.m, &g_fx.err), PTE_ERR_DELEGATE_MEMORY_ALLOCATION_FAILED);
  CHECK_STR(g_fx.err.msg, "instruction 0 (delegate 0, backend 'TestBackend') failed: device busy");
  g_exec_fail = 0;
  CHECK_EQ_INT(g_destroys, 0);
  pte_method_destroy(g_fx.m);
  g_fx.m = NULL;
  CHECK_EQ_INT(g_destroys, 1);
  fx_done();

  /* Init failure: the backend's message is kept, destroy is not called. */
  g_init_fail = 1;
  CHECK_STATUS(fx_load(&tp), PTE_ERR_DELEGATE_INVALID_COMPATIBILITY);
  CHECK_CONTAINS(g_fx.err.msg, "blob version 7 unsupported");
  CHECK_EQ_INT(g_destroys, 1);
  g_init_fail = 0;

  /* A load failing after delegate init (missing operator) destroys the delegate. */
  tinstr in2[2] = {in[0], in[0]};
  in2[1].kind = I_KERNEL;
  in2[1].a = 0;
  p.ins = in2;
  p.nins = 2;
  p.ops = (const char *const[]){"custom::missing", "out"};
  int before_inits = g_inits;
  CHECK_STATUS(fx_load(&tp), PTE_ERR_OPERATOR_MISSING);
  CHECK_EQ_INT(g_inits, before_inits + 1);
  CHECK_EQ_INT(g_destroys, 2);
  p.ins = in;
  p.nins = 1;

  /* delegate_index out of range is caught at load. */
  in[0].a = 1;
  CHECK_STATUS(fx_load_ex(&tp, PTE_VERIFY_MINIMAL, NULL), PTE_ERR_INVALID_PROGRAM);
  CHECK_CONTAINS(g_fx.err.msg, "delegate index 1");
  CHECK_EQ_INT(g_destroys, 3);
  in[0].a = 0;
  /* Inline data index out of range. */
  d[0].index = 5;
  CHECK_STATUS(fx_load_ex(&tp, PTE_VERIFY_MINIMAL, NULL), PTE_ERR_NOT_FOUND);
  d[0].index = 0;

  /* An external data map is handed to the backend. */
  pte_merged_data_map dummy;
  pte_merged_data_map_init(&dummy, NULL, NULL);
  memset(&o, 0, sizeof o);
  o.external_data = &dummy.base;
  CHECK_OK(fx_load_ex(&tp, PTE_VERIFY_INTERNAL_CONSISTENCY, &o));
  CHECK(g_seen_map == &dummy.base);
  fx_done();
  CHECK_EQ_INT(g_destroys, 4);
  pte_backend_registry_reset();
}

TEST(backend_registry_limits) {
  pte_backend_registry_reset();
  static char names[PTE_MAX_BACKENDS + 1][8];
  for (int i = 0; i < PTE_MAX_BACKENDS; i++) {
    snprintf(names[i], sizeof names[i], "b%d", i);
    CHECK_OK(pte_register_backend(names[i], &k_test_backend));
  }
  snprintf(names[PTE_MAX_BACKENDS], 8, "extra");
  CHECK_STATUS(pte_register_backend(names[PTE_MAX_BACKENDS], &k_test_backend), PTE_ERR_INTERNAL);
  CHECK_EQ_INT(pte_num_registered_backends(), PTE_MAX_BACKENDS);
  CHECK_STR(pte_registered_backend_name(3), "b3");
  CHECK(pte_registered_backend_name(PTE_MAX_BACKENDS) == NULL);
  pte_backend incomplete = {NULL, NULL, tb_execute, NULL, NULL};
  pte_backend_registry_reset();
  CHECK_STATUS(pte_register_backend("x", &incomplete), PTE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(pte_register_backend(NULL, &k_test_backend), PTE_ERR_INVALID_ARGUMENT);
  CHECK_EQ_INT(pte_num_registered_backends(), 0);
}

/* ================================================================== tests: external data */

typedef struct fake_map {
  pte_named_data_map base;
  int dtype;
  int32_t sizes[1];
  uint8_t order[1];
  float data[4];
  int loads_into;
} fake_map;

static pte_status fm_layout(const pte_named_data_map *m, const char *key, pte_tensor_layout *out) {
  const fake_map *f = (const fake_map *)m;
  if (strcmp(key, "w") != 0) return PTE_ERR_NOT_FOUND;
  out->dtype = (uint8_t)f->dtype;
  out->dim = 1;
  out->sizes = f->sizes;
  out->dim_order = f->order;
  out->nbytes = (size_t)f->sizes[0] * 4;
  return PTE_OK;
}
static pte_status fm_get(const pte_named_data_map *m, const char *key, pte_freeable_buffer *out) {
  const fake_map *f = (const fake_map *)m;
  if (strcmp(key, "w") != 0) return PTE_ERR_NOT_FOUND;
  *out = pte_freeable_buffer_view(f->data, sizeof f->data);
  return PTE_OK;
}
static pte_status fm_into(const pte_named_data_map *m, const char *key, void *buf, size_t size) {
  fake_map *f = (fake_map *)(uintptr_t)m;
  if (strcmp(key, "w") != 0) return PTE_ERR_NOT_FOUND;
  if (size != sizeof f->data) return PTE_ERR_INVALID_ARGUMENT;
  memcpy(buf, f->data, size);
  f->loads_into++;
  return PTE_OK;
}
static const pte_named_data_map_vtable k_fm_vt = {fm_layout, fm_get, fm_into, NULL, NULL};

TEST(external_tensors_constant_and_mutable) {
  fake_map fm = {{&k_fm_vt}, PTE_DTYPE_FLOAT, {4}, {0}, {1, 2, 3, 4}, 0};
  tval v[3];
  v[0] = T1(PTE_DTYPE_FLOAT, 4, -1, 0);
  v[0].fqn = "w";
  v[0].dbi = 7; /* meaningless for EXTERNAL */
  v[1] = v[0]; /* same key: shares the buffer */
  v[2] = T1(PTE_DTYPE_FLOAT, 4, 1, 32); /* mutable external: copied into planned memory */
  v[2].fqn = "w";
  tplan p = {0};
  p.vals = v;
  p.nv = 3;
  SETL(p.ncbs, p.nncbs, 0, 64);
  tprog tp = {&p, 1, NULL, NULL, 0, NULL, NULL, 0};
  pte_method_options o;
  memset(&o, 0, sizeof o);
  o.external_data = &fm.base;
  CHECK_OK(fx_load_ex(&tp, PTE_VERIFY_INTERNAL_CONSISTENCY, &o));
  const pte_tensor *t0 = pte_method_get_value(g_fx.m, 0)->u.tensor, *t1 = pte_method_get_value(g_fx.m, 1)->u.tensor;
  CHECK(t0->data == (void *)fm.data && t1->data == t0->data && (t0->flags & PTE_TENSOR_CONST));
  const pte_tensor *t2 = pte_method_get_value(g_fx.m, 2)->u.tensor;
  CHECK(t2->data == g_fx.planned_mem[0] + 32 && memcmp(t2->data, fm.data, 16) == 0);
  CHECK_EQ_INT(fm.loads_into, 1);
  fx_done();
  /* Missing map: constants -> InvalidState. */
  CHECK_STATUS(fx_load(&tp), PTE_ERR_INVALID_STATE);
  CHECK_CONTAINS(g_fx.err.msg, "external data map is null");
  /* Layout mismatch. */
  fm.dtype = PTE_DTYPE_INT;
  CHECK_STATUS(fx_load_ex(&tp, PTE_VERIFY_INTERNAL_CONSISTENCY, &o), PTE_ERR_INVALID_EXTERNAL_DATA);
  CHECK_CONTAINS(g_fx.err.msg, "'w'");
  fm.dtype = PTE_DTYPE_FLOAT;
  fm.sizes[0] = 3;
  CHECK_STATUS(fx_load_ex(&tp, PTE_VERIFY_INTERNAL_CONSISTENCY, &o), PTE_ERR_INVALID_EXTERNAL_DATA);
  fm.sizes[0] = 4;
  /* Unknown key. */
  v[0].fqn = v[1].fqn = "nope";
  CHECK_STATUS(fx_load_ex(&tp, PTE_VERIFY_INTERNAL_CONSISTENCY, &o), PTE_ERR_NOT_FOUND);
  CHECK_CONTAINS(g_fx.err.msg, "'nope'");
  /* Only a mutable external tensor and no map: InvalidExternalData. */
  p.vals = &v[2];
  p.nv = 1;
  CHECK_STATUS(fx_load(&tp), PTE_ERR_INVALID_EXTERNAL_DATA);
  fx_done();
}

/* ================================================================== tests: tracer, meta */

typedef struct count_tracer {
  pte_event_tracer base;
  int blocks, begins, ends, ops, outputs, intermediates;
  int last_chain;
  int64_t last_handle;
} count_tracer;

static void ct_block(pte_event_tracer *t, const char *name) {
  if (strcmp(name, "Execute") == 0) ((count_tracer *)t)->blocks++;
}
static uint64_t ct_begin(pte_event_tracer *t, const char *name, int32_t chain, int64_t h) {
  count_tracer *c = (count_tracer *)t;
  c->begins++;
  if (strcmp(name, "OPERATOR_CALL") == 0 || strcmp(name, "JF_CALL") == 0) {
    c->ops++;
    c->last_chain = chain;
    c->last_handle = h;
  }
  return (uint64_t)c->begins;
}
static void ct_end(pte_event_tracer *t, uint64_t tok) {
  (void)tok;
  ((count_tracer *)t)->ends++;
}
static void ct_log(pte_event_tracer *t, const pte_evalue *v, pte_evalue_log_kind k) {
  (void)v;
  if (k == PTE_EVALUE_LOG_OUTPUT) ((count_tracer *)t)->outputs++;
  else ((count_tracer *)t)->intermediates++;
}
static const pte_event_tracer_vtable k_ct_vt = {ct_block, ct_begin, ct_end, ct_log};

TEST(event_tracer_scopes) {
  register_test_kernels();
  tplan p;
  tval v[4];
  tinstr in[3];
  tprog tp = loop_prog(&p, v, in, 2);
  count_tracer ct;
  memset(&ct, 0, sizeof ct);
  ct.base.vt = &k_ct_vt;
  pte_method_options o;
  memset(&o, 0, sizeof o);
  o.tracer = &ct.base;
  CHECK_OK(fx_load_ex(&tp, PTE_VERIFY_INTERNAL_CONSISTENCY, &o));
  CHECK_EQ_INT(ct.begins, 1); /* Method::init */
  CHECK_EQ_INT(ct.ends, 1);
  CHECK_OK(pte_method_execute(g_fx.m, &g_fx.err));
  CHECK_EQ_INT(ct.blocks, 1);
  CHECK_EQ_INT(ct.ops, 5);
  CHECK_EQ_INT(ct.last_chain, 0);
  CHECK_EQ_INT(ct.last_handle, 1); /* last instruction run: the JF at index 1 */
  CHECK_EQ_INT(ct.begins, ct.ends);
  CHECK_EQ_INT(ct.outputs, 1);
  fx_done();
  /* A vtable with NULL slots is fine. */
  static const pte_event_tracer_vtable empty = {NULL, NULL, NULL, NULL};
  ct.base.vt = &empty;
  CHECK_OK(fx_load_ex(&tp, PTE_VERIFY_INTERNAL_CONSISTENCY, &o));
  CHECK_OK(pte_method_execute(g_fx.m, &g_fx.err));
  fx_done();
}

TEST(method_meta_synthetic) {
  tval v[4];
  v[0] = T1(PTE_DTYPE_LONG, 3, 1, 0);
  v[1] = VD(1.5);
  static const int64_t il[1] = {3};
  v[2] = VL(KT_INT_LIST, il, 1);
  v[3] = VI(5);
  tplan p[2];
  memset(p, 0, sizeof p);
  p[0].name = "first";
  p[0].vals = v;
  p[0].nv = 4;
  SETA(p[0].inputs, p[0].ni, 0, 1);
  SETA(p[0].outputs, p[0].no, 2, 0);
  SETL(p[0].ncbs, p[0].nncbs, 0, 24, 1ll << 33);
  p[1].name = "second";
  p[1].vals = &v[3];
  p[1].nv = 1;
  SETA(p[1].outputs, p[1].no, 0);
  tprog tp = {p, 2, NULL, NULL, 0, NULL, NULL, 0};
  CHECK(fx_prog(&tp, PTE_VERIFY_INTERNAL_CONSISTENCY));
  pte_method_meta meta;
  CHECK_OK(pte_method_meta_get(&g_fx.prog, "first", &meta, &g_fx.err));
  CHECK_STR(pte_method_meta_name(&meta), "first");
  CHECK_EQ_INT(pte_method_meta_num_planned_buffers(&meta), 2);
  uint64_t sz;
  CHECK_OK(pte_method_meta_planned_buffer_size(&meta, 1, &sz));
  CHECK(sz == (1ull << 33));
  pte_tag tag;
  CHECK_OK(pte_method_meta_input_tag(&meta, 1, &tag));
  CHECK_EQ_INT(tag, PTE_TAG_DOUBLE);
  CHECK_STATUS(pte_method_meta_output_tag(&meta, 0, &tag), PTE_ERR_INTERNAL); /* a list */
  CHECK_STATUS(pte_method_meta_input_tensor_info(&meta, 1, NULL), PTE_ERR_INVALID_ARGUMENT);
  pte_tensor_info ti;
  CHECK_STATUS(pte_method_meta_input_tensor_info(&meta, 1, &ti), PTE_ERR_INVALID_ARGUMENT);
  CHECK_OK(pte_method_meta_output_tensor_info(&meta, 1, &ti));
  CHECK(ti.dtype == PTE_DTYPE_LONG && ti.nbytes == 24 && ti.is_memory_planned);
  CHECK_OK(pte_method_meta_get(&g_fx.prog, "second", &meta, &g_fx.err));
  CHECK_EQ_INT(pte_method_meta_num_planned_buffers(&meta), 0);
  CHECK_STATUS(pte_method_meta_get(&g_fx.prog, "third", &meta, &g_fx.err), PTE_ERR_INVALID_ARGUMENT);
  fx_done();
}

int main(void) {
  RUN(delegate_lifecycle_inline_blob);
  RUN(backend_registry_limits);
  RUN(external_tensors_constant_and_mutable);
  RUN(event_tracer_scopes);
  RUN(method_meta_synthetic);
  fx_done();
  return test_summary();
}
