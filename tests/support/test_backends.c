/* Test backends and hand-built delegate programs (see test_backends.h). */
#define _POSIX_C_SOURCE 200809L
#include "test_backends.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/flatbuf.h"
#include "pte/data_writer.h"
#include "pte/writer.h"
#include "pte/io.h"

test_backend_stats test_counting_stats, test_scratch_stats, test_cached_args_stats;
bool test_cached_args_guard = true;

#define BLOB_HEADER 16

void test_backends_reset_stats(void) {
  memset(&test_counting_stats, 0, sizeof test_counting_stats);
  memset(&test_scratch_stats, 0, sizeof test_scratch_stats);
  memset(&test_cached_args_stats, 0, sizeof test_cached_args_stats);
  test_cached_args_guard = true;
}

void test_backends_setup(void) {
  pte_backend_registry_reset();
  test_backends_reset_stats();
  if (test_backends_register() != PTE_OK) fprintf(stderr, "  cannot register the test backends\n");
}

uint8_t *test_blob_new(float scale, float bias, size_t payload, size_t *size) {
  uint8_t *b = malloc(BLOB_HEADER + payload);
  if (!b) return NULL;
  memcpy(b, "TBLB", 4);
  memcpy(b + 4, &scale, 4);
  memcpy(b + 8, &bias, 4);
  uint32_t n = (uint32_t)payload;
  memcpy(b + 12, &n, 4);
  for (size_t i = 0; i < payload; i++) b[BLOB_HEADER + i] = (uint8_t)(i * 131u + (i >> 12));
  *size = BLOB_HEADER + payload;
  return b;
}

static pte_status parse_blob(pte_backend_init_context *ctx, const pte_freeable_buffer *p, const char *who, float *scale,
                             float *bias) {
  const uint8_t *d = (const uint8_t *)p->data;
  uint32_t n;
  if (!d || p->size < BLOB_HEADER || memcmp(d, "TBLB", 4) != 0)
    return pte_error_set(ctx->err, PTE_ERR_DELEGATE_INVALID_COMPATIBILITY, "%s: not a TBLB blob", who);
  memcpy(&n, d + 12, 4);
  if ((size_t)n != p->size - BLOB_HEADER)
    return pte_error_set(ctx->err, PTE_ERR_DELEGATE_INVALID_COMPATIBILITY, "%s: blob payload %u bytes, buffer has %zu", who,
                         (unsigned)n, p->size - BLOB_HEADER);
  memcpy(scale, d + 4, 4);
  memcpy(bias, d + 8, 4);
  return PTE_OK;
}

static void note_alloc(test_backend_stats *st, uint64_t bytes) {
  st->live_handles++;
  st->handle_bytes += bytes;
  st->handle_bytes_total += bytes;
  if (st->handle_bytes > st->handle_bytes_peak) st->handle_bytes_peak = st->handle_bytes;
}

static void note_init(test_backend_stats *st, const pte_backend_init_context *ctx) {
  st->inits++;
  st->last_n_calls = ctx->n_calls;
  st->last_share_handle = ctx->share_handle;
  st->last_delegate_index = ctx->delegate_index;
  st->init_n_scratch = ctx->n_scratch;
  for (size_t i = 0; i < ctx->n_scratch && i < 4; i++) st->init_scratch[i] = ctx->scratch[i];
}

/* Checks the (float in, float out) argument pair of every test backend. */
static pte_status float_args(pte_backend_execution_context *ctx, pte_evalue **args, size_t n, const char *who,
                             pte_tensor **in, pte_tensor **out) {
  if (n != 2 || !args[0] || !args[1] || args[0]->tag != PTE_TAG_TENSOR || args[1]->tag != PTE_TAG_TENSOR)
    return pte_error_set(ctx->err, PTE_ERR_INVALID_ARGUMENT, "%s: expected (tensor, tensor), got %zu args", who, n);
  *in = args[0]->u.tensor;
  *out = args[1]->u.tensor;
  if ((*in)->dtype != PTE_DTYPE_FLOAT || (*out)->dtype != PTE_DTYPE_FLOAT || (*in)->numel != (*out)->numel ||
      !(*in)->data || !(*out)->data)
    return pte_error_set(ctx->err, PTE_ERR_INVALID_ARGUMENT, "%s: float tensors of equal size with data expected", who);
  return PTE_OK;
}

/* ---- TestCounting ---------------------------------------------------------------------------- */

typedef struct counting_handle {
  float scale, bias;
  uint64_t checksum;
  uint64_t bytes;
  uint8_t *packed;
} counting_handle;

static pte_status counting_init(pte_backend_init_context *ctx, pte_freeable_buffer *processed,
                                const pte_compile_spec *specs, size_t n_specs, pte_delegate_handle **handle) {
  (void)specs;
  (void)n_specs;
  float scale, bias;
  pte_status s = parse_blob(ctx, processed, TEST_BACKEND_COUNTING, &scale, &bias);
  if (s != PTE_OK) return s;
  size_t n = processed->size;
  uint64_t bytes = sizeof(counting_handle) + n;
  counting_handle *h = PTE_ALLOC(ctx->runtime_allocator, counting_handle);
  uint8_t *packed = (uint8_t *)pte_allocator_alloc(ctx->runtime_allocator, n ? n : 1, 64);
  if (!h || !packed)
    return pte_error_set(ctx->err, PTE_ERR_MEMORY_ALLOCATION_FAILED, "TestCounting: no room for a %zu-byte handle", n);
  /* "Packing": copy the whole blob, checksumming it on the way. */
  const uint8_t *src = (const uint8_t *)processed->data;
  uint64_t sum = 1469598103934665603ull;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t w;
    memcpy(&w, src + i, 8);
    memcpy(packed + i, &w, 8);
    sum = (sum ^ w) * 1099511628211ull;
  }
  for (; i < n; i++) {
    packed[i] = src[i];
    sum = (sum ^ src[i]) * 1099511628211ull;
  }
  h->scale = scale;
  h->bias = bias;
  h->checksum = sum;
  h->bytes = bytes;
  h->packed = packed;
  pte_freeable_buffer_free(processed); /* everything needed is packed: release the blob early */
  if (!processed->data) test_counting_stats.early_frees++;
  note_init(&test_counting_stats, ctx);
  note_alloc(&test_counting_stats, bytes);
  *handle = h;
  return PTE_OK;
}

static pte_status counting_execute(pte_backend_execution_context *ctx, pte_delegate_handle *handle, pte_evalue **args,
                                   size_t n) {
  const counting_handle *h = (const counting_handle *)handle;
  test_counting_stats.executes++;
  test_counting_stats.last_handle = h;
  pte_tensor *in = NULL, *out = NULL;
  pte_status s = float_args(ctx, args, n, TEST_BACKEND_COUNTING, &in, &out);
  if (s != PTE_OK) return s;
  const float *x = (const float *)in->data;
  float *y = (float *)out->data;
  for (size_t i = 0; i < in->numel; i++) y[i] = x[i] * h->scale + h->bias;
  return PTE_OK;
}

static void counting_destroy(pte_delegate_handle *handle) {
  const counting_handle *h = (const counting_handle *)handle;
  test_counting_stats.destroys++;
  test_counting_stats.live_handles--;
  test_counting_stats.handle_bytes -= h->bytes;
}

const pte_backend test_counting_backend = {NULL, counting_init, counting_execute, counting_destroy, NULL};

/* ---- TestScratch ----------------------------------------------------------------------------- */

typedef struct scratch_handle {
  float scale, bias;
  const pte_delegate_scratch *scratch; /* the runtime's resolved regions */
} scratch_handle;

static pte_status scratch_init(pte_backend_init_context *ctx, pte_freeable_buffer *processed,
                               const pte_compile_spec *specs, size_t n_specs, pte_delegate_handle **handle) {
  (void)specs;
  (void)n_specs;
  float scale, bias;
  pte_status s = parse_blob(ctx, processed, TEST_BACKEND_SCRATCH, &scale, &bias);
  if (s != PTE_OK) return s;
  if (ctx->n_scratch < 1 || !ctx->scratch)
    return pte_error_set(ctx->err, PTE_ERR_INVALID_PROGRAM, "TestScratch: delegate %u has no scratch region",
                         (unsigned)ctx->delegate_index);
  scratch_handle *h = PTE_ALLOC(ctx->runtime_allocator, scratch_handle);
  if (!h) return PTE_ERR_MEMORY_ALLOCATION_FAILED;
  h->scale = scale;
  h->bias = bias;
  h->scratch = ctx->scratch;
  note_init(&test_scratch_stats, ctx);
  note_alloc(&test_scratch_stats, sizeof *h);
  *handle = h;
  return PTE_OK;
}

static pte_status scratch_execute(pte_backend_execution_context *ctx, pte_delegate_handle *handle, pte_evalue **args,
                                  size_t n) {
  const scratch_handle *h = (const scratch_handle *)handle;
  test_backend_stats *st = &test_scratch_stats;
  st->executes++;
  st->last_handle = h;
  st->exec_n_scratch = ctx->n_scratch;
  for (size_t i = 0; i < ctx->n_scratch && i < 4; i++) st->exec_scratch[i] = ctx->scratch[i];
  pte_tensor *in = NULL, *out = NULL;
  pte_status s = float_args(ctx, args, n, TEST_BACKEND_SCRATCH, &in, &out);
  if (s != PTE_OK) return s;
  if (ctx->n_scratch < 1 || ctx->scratch[0].size < in->numel * sizeof(float) || !ctx->scratch[0].data)
    return pte_error_set(ctx->err, PTE_ERR_MEMORY_ALLOCATION_FAILED, "TestScratch: scratch too small for %zu floats",
                         in->numel);
  float *tmp = (float *)ctx->scratch[0].data;
  const float *x = (const float *)in->data;
  float *y = (float *)out->data;
  for (size_t i = 0; i < in->numel; i++) tmp[i] = x[i] * h->scale;
  for (size_t i = 0; i < in->numel; i++) y[i] = tmp[i] + h->bias;
  return PTE_OK;
}

static void scratch_destroy(pte_delegate_handle *handle) {
  (void)handle;
  test_scratch_stats.destroys++;
  test_scratch_stats.live_handles--;
  test_scratch_stats.handle_bytes -= sizeof(scratch_handle);
}

const pte_backend test_scratch_backend = {NULL, scratch_init, scratch_execute, scratch_destroy, NULL};

/* ---- TestCachedArgs -------------------------------------------------------------------------- */

typedef struct cached_handle {
  float scale, bias;
  const float *in; /* bound at the first execute */
  float *out;
  size_t numel;
  bool bound;
} cached_handle;

static pte_status cached_init(pte_backend_init_context *ctx, pte_freeable_buffer *processed,
                              const pte_compile_spec *specs, size_t n_specs, pte_delegate_handle **handle) {
  (void)specs;
  (void)n_specs;
  float scale, bias;
  pte_status s = parse_blob(ctx, processed, TEST_BACKEND_CACHED_ARGS, &scale, &bias);
  if (s != PTE_OK) return s;
  if (ctx->n_calls > 1 && test_cached_args_guard)
    return pte_error_set(ctx->err, PTE_ERR_NOT_SUPPORTED,
                         "TestCachedArgs keeps argument pointers on its handle: delegate %u has %zu call sites",
                         (unsigned)ctx->delegate_index, ctx->n_calls);
  cached_handle *h = PTE_ALLOC(ctx->runtime_allocator, cached_handle);
  if (!h) return PTE_ERR_MEMORY_ALLOCATION_FAILED;
  memset(h, 0, sizeof *h);
  h->scale = scale;
  h->bias = bias;
  note_init(&test_cached_args_stats, ctx);
  note_alloc(&test_cached_args_stats, sizeof *h);
  *handle = h;
  return PTE_OK;
}

static pte_status cached_execute(pte_backend_execution_context *ctx, pte_delegate_handle *handle, pte_evalue **args,
                                 size_t n) {
  cached_handle *h = (cached_handle *)handle;
  test_cached_args_stats.executes++;
  test_cached_args_stats.last_handle = h;
  if (!h->bound) {
    pte_tensor *in, *out;
    pte_status s = float_args(ctx, args, n, TEST_BACKEND_CACHED_ARGS, &in, &out);
    if (s != PTE_OK) return s;
    h->in = (const float *)in->data;
    h->out = (float *)out->data;
    h->numel = in->numel;
    h->bound = true;
  }
  for (size_t i = 0; i < h->numel; i++) h->out[i] = h->in[i] * h->scale + h->bias;
  return PTE_OK;
}

static void cached_destroy(pte_delegate_handle *handle) {
  (void)handle;
  test_cached_args_stats.destroys++;
  test_cached_args_stats.live_handles--;
  test_cached_args_stats.handle_bytes -= sizeof(cached_handle);
}

const pte_backend test_cached_args_backend = {NULL, cached_init, cached_execute, cached_destroy, NULL};

pte_status test_backends_register(void) {
  static const struct {
    const char *name;
    const pte_backend *be;
  } all[] = {{TEST_BACKEND_COUNTING, &test_counting_backend},
             {TEST_BACKEND_SCRATCH, &test_scratch_backend},
             {TEST_BACKEND_CACHED_ARGS, &test_cached_args_backend}};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
    const pte_backend *cur = pte_get_backend(all[i].name);
    if (cur == all[i].be) continue;
    if (cur) return PTE_ERR_INVALID_ARGUMENT;
    pte_status s = pte_register_backend(all[i].name, all[i].be);
    if (s != PTE_OK) return s;
  }
  return PTE_OK;
}

/* ---- program builder ------------------------------------------------------------------------- */

static uint64_t stride_of(const test_dprog *p) { return ((uint64_t)p->numel * 4 + 15) & ~(uint64_t)15; }

uint64_t test_dprog_tensor_bytes(const test_dprog *p) { return stride_of(p) * (p->n_calls + 1); }

static pte_fb_ref b_str(pte_fb_builder *b, const char *s) { return pte_fb_create_string(b, s, strlen(s)); }

/* ExecutionPlan table slots / union tags used below (schema/program.fbs). */
enum { KT_TENSOR = 5, I_DELEGATE = 2 };

static pte_fb_ref b_tensor_value(pte_fb_builder *b, const test_dprog *p, size_t k) {
  int32_t sizes[1] = {p->numel};
  uint8_t order[1] = {0};
  pte_fb_ref vs = pte_fb_create_vec(b, sizes, 1, 4, 4);
  pte_fb_ref vo = pte_fb_create_vec(b, order, 1, 1, 1);
  uint64_t off = stride_of(p) * k;
  pte_fb_table_start(b);
  pte_fb_add_u32(b, 0, 1, 0);                      /* memory_id */
  pte_fb_add_u32(b, 1, (uint32_t)off, 0);          /* memory_offset_low */
  pte_fb_add_u32(b, 2, (uint32_t)(off >> 32), 0);  /* memory_offset_high */
  pte_fb_ref alloc = pte_fb_table_end(b);
  pte_fb_table_start(b);
  pte_fb_add_i8(b, 0, (int8_t)PTE_DTYPE_FLOAT, 0); /* scalar_type */
  pte_fb_add_ref(b, 2, vs);
  pte_fb_add_ref(b, 3, vo);
  pte_fb_add_ref(b, 6, alloc);
  pte_fb_ref t = pte_fb_table_end(b);
  pte_fb_table_start(b);
  pte_fb_add_u8(b, 0, KT_TENSOR, 0);
  pte_fb_add_ref(b, 1, t);
  return pte_fb_table_end(b);
}

static pte_fb_ref b_delegate_call(pte_fb_builder *b, int32_t delegate, int32_t in, int32_t out) {
  int32_t args[2] = {in, out};
  pte_fb_ref va = pte_fb_create_vec(b, args, 2, 4, 4);
  pte_fb_table_start(b);
  pte_fb_add_i32(b, 0, delegate, 0);
  pte_fb_add_ref(b, 1, va);
  pte_fb_ref dc = pte_fb_table_end(b);
  pte_fb_table_start(b);
  pte_fb_add_u8(b, 0, I_DELEGATE, 0);
  pte_fb_add_ref(b, 1, dc);
  return pte_fb_table_end(b);
}

static pte_fb_ref b_delegate(pte_fb_builder *b, const test_ddelegate *d) {
  pte_fb_ref id = b_str(b, d->id);
  pte_fb_table_start(b);
  pte_fb_add_i8(b, 0, 0, 0); /* INLINE */
  pte_fb_add_u32(b, 1, d->blob, 0);
  pte_fb_ref ref = pte_fb_table_end(b);
  pte_fb_ref specs = pte_fb_create_vec_refs(b, NULL, 0);
  pte_fb_ref scratch = 0;
  if (d->n_scratch || d->write_scratch) {
    pte_fb_ref sr[8];
    size_t n = d->n_scratch < 8 ? d->n_scratch : 8;
    for (size_t k = 0; k < n; k++) {
      pte_fb_table_start(b);
      pte_fb_add_u32(b, 0, d->scratch[k].mem_id, 0);
      pte_fb_add_u64(b, 1, d->scratch[k].offset, 0);
      pte_fb_add_u64(b, 2, d->scratch[k].size, 0);
      sr[k] = pte_fb_table_end(b);
    }
    scratch = pte_fb_create_vec_refs(b, sr, n);
  }
  pte_fb_table_start(b);
  pte_fb_add_ref(b, 0, id);
  pte_fb_add_ref(b, 1, ref);
  pte_fb_add_ref(b, 2, specs);
  pte_fb_add_ref(b, 3, scratch);
  pte_fb_add_bool(b, 4, d->share_handle, false);
  return pte_fb_table_end(b);
}

uint8_t *test_dprog_build(const test_dprog *p, size_t *size) {
  if (p->numel < 1) return NULL;
  size_t nv = p->n_calls + 1, nrefs = nv + p->n_calls + p->n_delegates + p->n_blobs + 8;
  pte_fb_ref *refs = calloc(nrefs, sizeof *refs);
  if (!refs) return NULL;
  pte_fb_builder b;
  pte_fb_builder_init(&b, pte_heap_realloc, NULL);

  /* Blobs first (largest): Program.backend_delegate_data. */
  for (size_t i = 0; i < p->n_blobs; i++) {
    pte_fb_ref st = pte_fb_create_vec(&b, p->blobs[i], p->blob_sizes[i], 1, 16);
    pte_fb_table_start(&b);
    pte_fb_add_ref(&b, 0, st);
    refs[i] = pte_fb_table_end(&b);
  }
  pte_fb_ref blobs = pte_fb_create_vec_refs(&b, refs, p->n_blobs);

  pte_fb_ref name = b_str(&b, "forward");
  for (size_t k = 0; k < nv; k++) refs[k] = b_tensor_value(&b, p, k);
  pte_fb_ref values = pte_fb_create_vec_refs(&b, refs, nv);
  int32_t in0 = 0, outn = (int32_t)p->n_calls;
  pte_fb_ref inputs = pte_fb_create_vec(&b, &in0, 1, 4, 4);
  pte_fb_ref outputs = pte_fb_create_vec(&b, &outn, 1, 4, 4);

  uint32_t n_chains = 1;
  for (size_t k = 0; p->call_chain && k < p->n_calls; k++)
    if (p->call_chain[k] + 1 > n_chains) n_chains = p->call_chain[k] + 1;
  pte_fb_ref *chain_refs = calloc(n_chains, sizeof *chain_refs);
  if (!chain_refs) {
    free(refs);
    pte_fb_builder_free(&b);
    return NULL;
  }
  for (uint32_t c = 0; c < n_chains; c++) {
    size_t n = 0;
    for (size_t k = 0; k < p->n_calls; k++)
      if ((p->call_chain ? p->call_chain[k] : 0) == c)
        refs[n++] = b_delegate_call(&b, p->call_delegate[k], (int32_t)k, (int32_t)k + 1);
    pte_fb_ref ins = pte_fb_create_vec_refs(&b, refs, n);
    pte_fb_table_start(&b);
    pte_fb_add_ref(&b, 2, ins);
    chain_refs[c] = pte_fb_table_end(&b);
  }
  pte_fb_ref chains = pte_fb_create_vec_refs(&b, chain_refs, n_chains);
  free(chain_refs);
  pte_fb_ref ops = pte_fb_create_vec_refs(&b, NULL, 0);
  for (size_t i = 0; i < p->n_delegates; i++) refs[i] = b_delegate(&b, &p->delegates[i]);
  pte_fb_ref dels = pte_fb_create_vec_refs(&b, refs, p->n_delegates);
  int64_t def_ncbs[2] = {0, (int64_t)(test_dprog_tensor_bytes(p) + p->extra_planned)};
  pte_fb_ref ncbs = p->ncbs ? pte_fb_create_vec(&b, p->ncbs, p->n_ncbs, 8, 8) : pte_fb_create_vec(&b, def_ncbs, 2, 8, 8);
  pte_fb_table_start(&b);
  pte_fb_add_ref(&b, 0, name);
  pte_fb_add_ref(&b, 2, values);
  pte_fb_add_ref(&b, 3, inputs);
  pte_fb_add_ref(&b, 4, outputs);
  pte_fb_add_ref(&b, 5, chains);
  pte_fb_add_ref(&b, 6, ops);
  pte_fb_add_ref(&b, 7, dels);
  pte_fb_add_ref(&b, 8, ncbs);
  pte_fb_ref plan = pte_fb_table_end(&b);
  pte_fb_ref plans = pte_fb_create_vec_refs(&b, &plan, 1);
  pte_fb_table_start(&b);
  pte_fb_add_ref(&b, 1, plans);
  pte_fb_add_ref(&b, 3, blobs);
  pte_fb_ref root = pte_fb_table_end(&b);
  free(refs);

  const uint8_t *out;
  size_t n;
  uint8_t *copy = NULL;
  pte_status fs = pte_fb_finish(&b, root, "ET12", 16, &out, &n);
  if (fs != PTE_OK) fprintf(stderr, "  test_dprog_build: %s\n", pte_status_name(fs));
  if (fs == PTE_OK && posix_memalign((void **)&copy, 64, n + 64) == 0) {
    memcpy(copy, out, n);
    memset(copy + n, 0, 64);
    *size = n;
  }
  pte_fb_builder_free(&b);
  return copy;
}

/* ---- the same through the pte writer ----------------------------------------------------------- */

uint8_t *test_wprog_build(const test_wprog *p, size_t *size, pte_error_info *err) {
  pte_writer *w = NULL;
  pte_writer_options o;
  memset(&o, 0, sizeof o);
  o.keep_delegates_inline = p->keep_inline;
  if (p->numel < 1 || p->n_blobs > 8 || p->n_modules > 16 || pte_writer_create(&o, &w, err) != PTE_OK) return NULL;
  uint8_t *copy = NULL;
  uint32_t blob[8], mod[16], method, chain;
  int32_t vals[65];
  test_dprog geom;
  memset(&geom, 0, sizeof geom);
  geom.numel = p->numel;
  pte_source srcs[8];
  for (size_t i = 0; i < p->n_blobs; i++) {
    srcs[i] = pte_source_memory(p->blobs[i], p->blob_sizes[i]);
    if (pte_writer_add_blob(w, &srcs[i], &blob[i], err) != PTE_OK) goto done;
  }
  for (size_t i = 0; i < p->n_modules; i++) {
    const test_wmodule *tm = &p->modules[i];
    pte_wr_scratch sc[8];
    size_t ns = tm->n_scratch < 8 ? tm->n_scratch : 8;
    for (size_t k = 0; k < ns; k++) {
      sc[k].mem_id = tm->scratch[k].mem_id;
      sc[k].offset = tm->scratch[k].offset;
      sc[k].size = tm->scratch[k].size;
    }
    pte_wr_delegate d;
    memset(&d, 0, sizeof d);
    d.id = tm->id;
    d.blob = blob[tm->blob];
    d.location = PTE_WR_BLOB_AUTO;
    d.scratch = ns ? sc : NULL;
    d.n_scratch = ns;
    d.share_handle = tm->share_handle;
    if (pte_writer_add_lowered_module(w, &d, &mod[i], err) != PTE_OK) goto done;
  }
  if (pte_writer_add_method(w, "forward", &method, err) != PTE_OK) goto done;
  if (p->n_calls > 64) goto done;
  for (size_t k = 0; k <= p->n_calls; k++) {
    pte_wr_tensor t;
    memset(&t, 0, sizeof t);
    int32_t sizes[1] = {p->numel};
    t.dtype = PTE_DTYPE_FLOAT;
    t.dim = 1;
    t.sizes = sizes;
    t.plan = PTE_WR_PLAN_EXPLICIT;
    t.mem_id = 1;
    t.mem_offset = stride_of(&geom) * k;
    if (pte_writer_add_tensor(w, method, &t, &vals[k], err) != PTE_OK) goto done;
  }
  if (pte_writer_set_inputs(w, method, &vals[0], 1, err) != PTE_OK ||
      pte_writer_set_outputs(w, method, &vals[p->n_calls], 1, err) != PTE_OK ||
      pte_writer_add_chain(w, method, NULL, 0, NULL, 0, &chain, err) != PTE_OK)
    goto done;
  for (size_t k = 0; k < p->n_calls; k++) {
    int32_t args[2] = {vals[k], vals[k + 1]};
    if (pte_writer_call_module(w, method, chain, mod[p->call_module[k]], args, 2, NULL, err) != PTE_OK) goto done;
  }
  pte_memory_writer mw;
  pte_memory_writer_init(&mw, pte_heap_realloc, NULL, 0);
  if (pte_writer_write(w, &mw.base, err) == PTE_OK) {
    size_t n = 0;
    const uint8_t *d = pte_memory_writer_data(&mw, &n);
    if (posix_memalign((void **)&copy, 64, n + 64) == 0) {
      memcpy(copy, d, n);
      memset(copy + n, 0, 64);
      *size = n;
    }
  }
  pte_data_writer_destroy(&mw.base);
done:
  pte_writer_destroy(w);
  return copy;
}

/* ---- loading and running ---------------------------------------------------------------------- */

pte_status test_dmethod_load(test_dmethod *t, const uint8_t *bytes, size_t size, size_t pool_size,
                             const pte_method_options *opts) {
  return test_dmethod_load_v(t, bytes, size, pool_size, opts, PTE_VERIFY_INTERNAL_CONSISTENCY);
}

pte_status test_dmethod_load_v(test_dmethod *t, const uint8_t *bytes, size_t size, size_t pool_size,
                               const pte_method_options *opts, pte_verification verification) {
  memset(t, 0, sizeof *t);
  pte_buffer_loader_init(&t->bl, bytes, size);
  pte_status s = pte_program_load(&t->bl.base, verification, &t->prog, &t->err);
  if (s != PTE_OK) return s;
  t->prog_ok = true;
  pte_method_meta meta;
  if ((s = pte_method_meta_get(&t->prog, "forward", &meta, &t->err)) != PTE_OK) return s;
  t->n_planned = pte_method_meta_num_planned_buffers(&meta);
  if (t->n_planned > 4) return pte_error_set(&t->err, PTE_ERR_NOT_SUPPORTED, "test_dmethod: > 4 planned buffers");
  for (size_t i = 0; i < t->n_planned; i++) {
    uint64_t sz = 0;
    pte_method_meta_planned_buffer_size(&meta, i, &sz);
    t->planned_mem[i] = calloc(1, (size_t)sz + 64);
    if (!t->planned_mem[i]) return pte_error_set(&t->err, PTE_ERR_MEMORY_ALLOCATION_FAILED, "planned buffer %zu", i);
    t->planned[i].data = t->planned_mem[i];
    t->planned[i].size = (size_t)sz;
  }
  t->pool = calloc(1, pool_size);
  t->temp_mem = calloc(1, 4096);
  if (!t->pool || !t->temp_mem) return pte_error_set(&t->err, PTE_ERR_MEMORY_ALLOCATION_FAILED, "test_dmethod pool");
  pte_allocator_init(&t->ma, t->pool, pool_size);
  pte_allocator_init(&t->temp, t->temp_mem, 4096);
  pte_memory_manager_init(&t->mm, &t->ma, t->planned, t->n_planned, &t->temp);
  return pte_method_load_ex(&t->prog, "forward", &t->mm, opts, &t->m, &t->err);
}

pte_status test_dmethod_run(test_dmethod *t, const float *x, int32_t numel, float *out) {
  if (!t->m) return PTE_ERR_INVALID_STATE;
  int32_t sizes[1] = {numel};
  pte_status s = pte_method_set_input_tensor(t->m, 0, PTE_DTYPE_FLOAT, sizes, 1, x, sizeof(float) * (size_t)numel, &t->err);
  if (s != PTE_OK) return s;
  if ((s = pte_method_execute(t->m, &t->err)) != PTE_OK) return s;
  const pte_evalue *o = pte_method_get_output(t->m, 0);
  if (!o || o->tag != PTE_TAG_TENSOR || !o->u.tensor->data) return PTE_ERR_INTERNAL;
  memcpy(out, o->u.tensor->data, sizeof(float) * (size_t)numel);
  return PTE_OK;
}

void test_dmethod_free(test_dmethod *t) {
  if (t->m) pte_method_destroy(t->m);
  t->m = NULL;
  if (t->prog_ok) pte_program_destroy(&t->prog);
  t->prog_ok = false;
  for (size_t i = 0; i < 4; i++) {
    free(t->planned_mem[i]);
    t->planned_mem[i] = NULL;
  }
  free(t->pool);
  free(t->temp_mem);
  t->pool = t->temp_mem = NULL;
}
