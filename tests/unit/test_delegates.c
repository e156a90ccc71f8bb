/* Backend delegates: one BackendDelegate = one init shared by all its DelegateCalls, the
 * share_handle / scratch pte extensions, load-time validation (delegate indices, scratch call
 * sites, scratch placement), missing/unavailable backends (hand-made and corpus files), the
 * backend registry's errors, and that upstream readers (flatc with a schema without the
 * extensions) still decode files that use them. Programs are built with the flatbuffer builder
 * (tests/support/test_backends.c) so each case states exactly what the file contains. What the
 * program writer emits for delegates: test_delegates_writer.c. */
#define _POSIX_C_SOURCE 200809L
#include "test.h"

#include "format/flatbuf.h"
#include "json.h"
#include "pte/backend.h"
#include "pte/data_writer.h"
#include "pte/io.h"
#include "pte/writer.h"
#include "pte/method.h"
#include "pte/program.h"
#include "pte_gen/program_gen.h"
#include "test_backends.h"

#include <stdarg.h>

#define POOL (1u << 20)

/* snprintf that reports truncation (false) instead of warning about it. */
static bool fmt(char *buf, size_t cap, const char *f, ...) {
  va_list ap;
  va_start(ap, f);
  int n = vsnprintf(buf, cap, f, ap);
  va_end(ap);
  return n >= 0 && (size_t)n < cap;
}
#define MAXC 16

/* A program of n calls; delegates/blobs/calls described by the caller. */
typedef struct prog {
  test_dprog p;
  int32_t calls[MAXC];
  uint32_t chains[MAXC];
  test_ddelegate dels[MAXC];
  const void *blobs[4];
  size_t blob_sizes[4];
  uint8_t *blob_mem[4];
  uint8_t *bytes;
  size_t size;
} prog;

static void prog_init(prog *g, int32_t numel, size_t n_calls) {
  memset(g, 0, sizeof *g);
  g->p.numel = numel;
  g->p.n_calls = n_calls;
  g->p.call_delegate = g->calls;
  g->p.delegates = g->dels;
  g->p.blobs = g->blobs;
  g->p.blob_sizes = g->blob_sizes;
}

static void prog_blob(prog *g, float scale, float bias, size_t payload) {
  size_t i = g->p.n_blobs++;
  g->blob_mem[i] = test_blob_new(scale, bias, payload, &g->blob_sizes[i]);
  g->blobs[i] = g->blob_mem[i];
}

/* One delegate per call ("unshared"), or one delegate called by every call ("shared"). */
static void prog_delegates(prog *g, const char *id, bool shared, bool share_flag) {
  g->p.n_delegates = shared ? 1 : g->p.n_calls;
  for (size_t k = 0; k < g->p.n_delegates; k++) {
    g->dels[k].id = id;
    g->dels[k].blob = 0;
    g->dels[k].share_handle = share_flag;
  }
  for (size_t k = 0; k < g->p.n_calls; k++) g->calls[k] = shared ? 0 : (int32_t)k;
}

static bool prog_build(prog *g) {
  free(g->bytes);
  g->bytes = test_dprog_build(&g->p, &g->size);
  return g->bytes != NULL;
}

static void prog_free(prog *g) {
  free(g->bytes);
  for (int i = 0; i < 4; i++) free(g->blob_mem[i]);
  memset(g, 0, sizeof *g);
}

static pte_status load(test_dmethod *t, prog *g) {
  if (!prog_build(g)) return PTE_ERR_INTERNAL;
  return test_dmethod_load(t, g->bytes, g->size, POOL, NULL);
}

static float out_of(const test_dmethod *t, size_t value, size_t i) {
  const pte_evalue *v = pte_method_get_value(t->m, value);
  return ((const float *)v->u.tensor->data)[i];
}

static void setup(void) { test_backends_setup(); }

/* ================================================================== sharing */

/* 6 calls of one lowered module (scale 2, bias 1): shared = 1 delegate, 1 init, 6 executes,
 * 1 destroy; unshared = 6 delegates on one blob, 6 inits; identical outputs, hand-checked:
 * y = 64 x + 63. Each execute gets its own call's arguments (intermediate values checked). */
TEST(shared_delegate_inits_once) {
  setup();
  static const float x[3] = {1.0f, -0.5f, 0.0f};
  static const float expect[3] = {127.0f, 31.0f, 63.0f};
  float out[2][3];
  for (int shared = 1; shared >= 0; shared--) {
    prog g;
    prog_init(&g, 3, 6);
    prog_blob(&g, 2.0f, 1.0f, 100);
    prog_delegates(&g, TEST_BACKEND_COUNTING, shared, shared);
    test_backends_reset_stats();
    test_dmethod t;
    pte_status s = load(&t, &g);
    CHECK_MSG(s == PTE_OK, "load: %s %s", pte_status_name(s), t.err.msg);
    const test_backend_stats *st = &test_counting_stats;
    CHECK_EQ_INT(st->inits, shared ? 1 : 6);
    CHECK_EQ_INT(st->early_frees, st->inits);
    CHECK_EQ_INT(st->last_n_calls, shared ? 6 : 1);
    CHECK_EQ_INT(st->last_share_handle, shared);
    CHECK_EQ_INT(st->last_delegate_index, shared ? 0 : 5);
    CHECK_EQ_INT(st->handle_bytes, (uint64_t)st->inits * (16 + 100 + 32));
    CHECK_OK(test_dmethod_run(&t, x, 3, out[shared]));
    CHECK_EQ_INT(st->executes, 6);
    for (int i = 0; i < 3; i++) CHECK(out[shared][i] == expect[i]);
    /* value 2 = after two calls: 4x + 3 */
    CHECK(out_of(&t, 2, 0) == 7.0f && out_of(&t, 2, 1) == 1.0f && out_of(&t, 2, 2) == 3.0f);
    /* stateless: a second run with other inputs */
    float x2[3] = {2.0f, 0.25f, -1.0f}, o2[3];
    CHECK_OK(test_dmethod_run(&t, x2, 3, o2));
    CHECK(o2[0] == 191.0f && o2[1] == 79.0f && o2[2] == -1.0f);
    CHECK_EQ_INT(st->executes, 12);
    CHECK_EQ_INT(st->destroys, 0);
    test_dmethod_free(&t);
    CHECK_EQ_INT(st->destroys, st->inits);
    CHECK_EQ_INT(st->live_handles, 0);
    prog_free(&g);
  }
  CHECK(memcmp(out[0], out[1], sizeof out[0]) == 0);
}

/* Upstream files may call one delegate several times without the share flag: accepted, one
 * init (one BackendDelegate = one handle); init sees share_handle false and n_calls. */
TEST(unflagged_multi_call_delegate_is_accepted) {
  setup();
  prog g;
  prog_init(&g, 2, 3);
  prog_blob(&g, 3.0f, 0.0f, 0);
  prog_delegates(&g, TEST_BACKEND_COUNTING, true, false);
  test_dmethod t;
  pte_status s = load(&t, &g);
  CHECK_MSG(s == PTE_OK, "load: %s %s", pte_status_name(s), t.err.msg);
  CHECK_EQ_INT(test_counting_stats.inits, 1);
  CHECK_EQ_INT(test_counting_stats.last_n_calls, 3);
  CHECK_EQ_INT(test_counting_stats.last_share_handle, 0);
  float x[2] = {1.0f, -2.0f}, o[2];
  CHECK_OK(test_dmethod_run(&t, x, 2, o));
  CHECK(o[0] == 27.0f && o[1] == -54.0f);
  test_dmethod_free(&t);
  CHECK_EQ_INT(test_counting_stats.destroys, 1);
  prog_free(&g);
}

/* Not opted in (the writer gives every call its own delegate): N inits, and a backend that keeps
 * argument pointers on its handle computes the right thing. The same backend refuses a shared
 * delegate at init (n_calls > 1); without that guard, sharing visibly breaks it. */
TEST(cached_args_backend_must_not_share) {
  setup();
  prog g;
  prog_init(&g, 2, 3);
  prog_blob(&g, 2.0f, 1.0f, 8);
  prog_delegates(&g, TEST_BACKEND_CACHED_ARGS, false, false);
  test_dmethod t;
  pte_status s = load(&t, &g);
  CHECK_MSG(s == PTE_OK, "load: %s %s", pte_status_name(s), t.err.msg);
  CHECK_EQ_INT(test_cached_args_stats.inits, 3);
  float x[2] = {1.0f, 0.0f}, o[2];
  CHECK_OK(test_dmethod_run(&t, x, 2, o));
  CHECK(o[0] == 15.0f && o[1] == 7.0f);
  float x2[2] = {-1.0f, 2.0f};
  CHECK_OK(test_dmethod_run(&t, x2, 2, o));
  CHECK(o[0] == -1.0f && o[1] == 23.0f);
  test_dmethod_free(&t);
  CHECK_EQ_INT(test_cached_args_stats.destroys, 3);
  prog_free(&g);

  /* One delegate called 3 times: the backend refuses, nothing stays initialised. */
  test_backends_reset_stats();
  prog_init(&g, 2, 3);
  prog_blob(&g, 2.0f, 1.0f, 8);
  prog_delegates(&g, TEST_BACKEND_CACHED_ARGS, true, false);
  CHECK_STATUS(load(&t, &g), PTE_ERR_NOT_SUPPORTED);
  CHECK_STR(t.err.msg, "backend 'TestCachedArgs' init failed for delegate 0 of method 'forward': "
                       "TestCachedArgs keeps argument pointers on its handle: delegate 0 has 3 call sites");
  CHECK_EQ_INT(test_cached_args_stats.inits, 0);
  test_dmethod_free(&t);

  /* Without the guard: calls 2 and 3 reuse call 1's pointers, the output is never written. */
  test_cached_args_guard = false;
  s = load(&t, &g);
  CHECK_MSG(s == PTE_OK, "load: %s %s", pte_status_name(s), t.err.msg);
  CHECK_OK(test_dmethod_run(&t, x, 2, o));
  CHECK(out_of(&t, 1, 0) == 3.0f);      /* call 1 wrote value 1 three times */
  CHECK(o[0] == 0.0f && o[1] == 0.0f);  /* value 3 (the output) untouched: wrong */
  test_dmethod_free(&t);
  prog_free(&g);
}

/* Two delegates of the same backend, called alternately: each keeps its own handle. */
TEST(separate_modules_keep_separate_handles) {
  setup();
  prog g;
  prog_init(&g, 1, 4);
  prog_blob(&g, 2.0f, 0.0f, 0);
  prog_blob(&g, 1.0f, 5.0f, 0);
  g.p.n_delegates = 2;
  g.dels[0].id = g.dels[1].id = TEST_BACKEND_COUNTING;
  g.dels[0].share_handle = g.dels[1].share_handle = true;
  g.dels[1].blob = 1;
  int32_t calls[4] = {0, 1, 0, 1};
  memcpy(g.calls, calls, sizeof calls);
  test_dmethod t;
  pte_status s = load(&t, &g);
  CHECK_MSG(s == PTE_OK, "load: %s %s", pte_status_name(s), t.err.msg);
  CHECK_EQ_INT(test_counting_stats.inits, 2);
  CHECK_EQ_INT(test_counting_stats.last_n_calls, 2);
  float x = 1.0f, o;
  CHECK_OK(test_dmethod_run(&t, &x, 1, &o));
  CHECK(o == 19.0f); /* ((1*2)+5)*2+5 */
  test_dmethod_free(&t);
  CHECK_EQ_INT(test_counting_stats.destroys, 2);
  prog_free(&g);
}

/* A method loaded twice initialises its delegates twice (no sharing across loads). */
TEST(two_loads_two_inits) {
  setup();
  prog g;
  prog_init(&g, 1, 2);
  prog_blob(&g, 1.0f, 1.0f, 0);
  prog_delegates(&g, TEST_BACKEND_COUNTING, true, true);
  CHECK(prog_build(&g));
  test_dmethod a, b;
  CHECK_OK(test_dmethod_load(&a, g.bytes, g.size, POOL, NULL));
  CHECK_OK(test_dmethod_load(&b, g.bytes, g.size, POOL, NULL));
  CHECK_EQ_INT(test_counting_stats.inits, 2);
  test_dmethod_free(&a);
  test_dmethod_free(&b);
  CHECK_EQ_INT(test_counting_stats.destroys, 2);
  prog_free(&g);
}

/* ================================================================== scratch */

TEST(scratch_is_resolved_and_passed) {
  setup();
  prog g;
  prog_init(&g, 4, 2);
  prog_blob(&g, 2.0f, 0.0f, 0); /* counting, call 0 */
  prog_blob(&g, 3.0f, 0.5f, 0); /* scratch, call 1 */
  g.p.n_delegates = 2;
  g.dels[0].id = TEST_BACKEND_COUNTING;
  g.dels[1].id = TEST_BACKEND_SCRATCH;
  g.dels[1].blob = 1;
  uint64_t sc_off = test_dprog_tensor_bytes(&g.p) + 16;
  test_dscratch sc[2] = {{1, sc_off, 16}, {1, sc_off + 16, 8}};
  g.dels[1].scratch = sc;
  g.dels[1].n_scratch = 2;
  g.p.extra_planned = 48;
  g.calls[0] = 0;
  g.calls[1] = 1;
  test_dmethod t;
  pte_status s = load(&t, &g);
  CHECK_MSG(s == PTE_OK, "load: %s %s", pte_status_name(s), t.err.msg);
  const test_backend_stats *st = &test_scratch_stats;
  CHECK_EQ_INT(st->inits, 1);
  CHECK_EQ_INT(st->init_n_scratch, 2);
  uint8_t *base = t.planned_mem[0];
  CHECK(st->init_scratch[0].data == base + sc_off);
  CHECK_EQ_INT(st->init_scratch[0].size, 16);
  CHECK_EQ_INT(st->init_scratch[0].memory_id, 1);
  CHECK_EQ_INT(st->init_scratch[0].offset, sc_off);
  CHECK(st->init_scratch[1].data == base + sc_off + 16);
  CHECK_EQ_INT(st->init_scratch[1].size, 8);
  CHECK_EQ_INT(test_counting_stats.init_n_scratch, 0); /* no scratch, no regions */
  float x[4] = {1, 2, 3, 4}, o[4];
  CHECK_OK(test_dmethod_run(&t, x, 4, o));
  CHECK_EQ_INT(st->exec_n_scratch, 2);
  CHECK(st->exec_scratch[0].data == base + sc_off);
  /* counting: 2x; scratch: tmp = 3 * 2x (left in the planned scratch), out = tmp + 0.5 */
  const float *tmp = (const float *)(const void *)(base + sc_off);
  CHECK(tmp[0] == 6.0f && tmp[3] == 24.0f);
  CHECK(o[0] == 6.5f && o[1] == 12.5f && o[2] == 18.5f && o[3] == 24.5f);
  test_dmethod_free(&t);
  CHECK_EQ_INT(st->destroys, 1);
  prog_free(&g);
}

/* Scratch delegate with two call sites: refused at load, naming the delegate and call sites,
 * before any backend init. */
TEST(scratch_delegate_with_two_call_sites_is_rejected) {
  setup();
  prog g;
  prog_init(&g, 2, 6);
  prog_blob(&g, 1.0f, 0.0f, 0);
  g.p.n_delegates = 2;
  g.dels[0].id = TEST_BACKEND_SCRATCH;
  test_dscratch sc = {1, test_dprog_tensor_bytes(&g.p), 8};
  g.dels[0].scratch = &sc;
  g.dels[0].n_scratch = 1;
  g.dels[1].id = TEST_BACKEND_COUNTING;
  g.p.extra_planned = 16;
  int32_t calls[6] = {1, 1, 0, 1, 1, 0};
  memcpy(g.calls, calls, sizeof calls);
  test_dmethod t;
  CHECK_STATUS(load(&t, &g), PTE_ERR_INVALID_PROGRAM);
  CHECK_STR(t.err.msg, "delegate 0 (TestScratch) has scratch memory but is called by instructions 2 and 5 (chain 0)");
  CHECK_EQ_INT(test_scratch_stats.inits + test_counting_stats.inits, 0);
  test_dmethod_free(&t);

  /* Call sites in two chains. */
  uint32_t chains[6] = {0, 0, 0, 1, 1, 1};
  g.p.call_chain = chains;
  CHECK_STATUS(load(&t, &g), PTE_ERR_INVALID_PROGRAM);
  CHECK_STR(t.err.msg,
            "delegate 0 (TestScratch) has scratch memory but is called by instructions 2 (chain 0) and 2 (chain 1)");
  test_dmethod_free(&t);
  g.p.call_chain = NULL;

  /* Many call sites: the first four, then a count. */
  for (int k = 0; k < 6; k++) g.calls[k] = 0;
  CHECK_STATUS(load(&t, &g), PTE_ERR_INVALID_PROGRAM);
  CHECK_STR(t.err.msg,
            "delegate 0 (TestScratch) has scratch memory but is called by instructions 0, 1, 2, 3 and 2 more (chain 0)");
  test_dmethod_free(&t);

  /* An empty scratch vector is no scratch: shared use is fine. */
  g.dels[0].id = TEST_BACKEND_COUNTING;
  g.dels[0].n_scratch = 0;
  g.dels[0].write_scratch = true;
  pte_status s = load(&t, &g);
  CHECK_MSG(s == PTE_OK, "load: %s %s", pte_status_name(s), t.err.msg);
  CHECK_EQ_INT(test_counting_stats.inits, 2);
  test_dmethod_free(&t);
  CHECK_EQ_INT(test_counting_stats.destroys, 2);
  prog_free(&g);
}

TEST(scratch_with_share_handle_is_rejected) {
  setup();
  prog g;
  prog_init(&g, 2, 1);
  prog_blob(&g, 1.0f, 0.0f, 0);
  g.p.n_delegates = 1;
  g.dels[0].id = TEST_BACKEND_SCRATCH;
  test_dscratch sc = {1, test_dprog_tensor_bytes(&g.p), 8};
  g.dels[0].scratch = &sc;
  g.dels[0].n_scratch = 1;
  g.dels[0].share_handle = true;
  g.p.extra_planned = 16;
  test_dmethod t;
  CHECK_STATUS(load(&t, &g), PTE_ERR_INVALID_PROGRAM);
  CHECK_STR(t.err.msg,
            "delegate 0 (TestScratch) has scratch memory and share_handle set: a delegate with scratch cannot share its handle");
  CHECK_EQ_INT(test_scratch_stats.inits, 0);
  test_dmethod_free(&t);
  /* The same delegate without the flag loads. */
  g.dels[0].share_handle = false;
  pte_status s = load(&t, &g);
  CHECK_MSG(s == PTE_OK, "load: %s %s", pte_status_name(s), t.err.msg);
  CHECK_EQ_INT(test_scratch_stats.inits, 1);
  test_dmethod_free(&t);
  prog_free(&g);
}

/* Scratch placement gets the checks (and statuses) of planned tensors. */
TEST(scratch_placement_errors) {
  setup();
  prog g;
  prog_init(&g, 2, 1); /* tensors: 2 x 16 bytes */
  prog_blob(&g, 1.0f, 0.0f, 0);
  g.p.n_delegates = 1;
  g.dels[0].id = TEST_BACKEND_SCRATCH;
  test_dscratch sc = {0, 32, 8};
  g.dels[0].scratch = &sc;
  g.dels[0].n_scratch = 1;
  g.p.extra_planned = 16; /* buffer 1: 48 bytes */
  test_dmethod t;
  CHECK_STATUS(load(&t, &g), PTE_ERR_INVALID_PROGRAM);
  CHECK_STR(t.err.msg, "delegate 0 ('TestScratch') scratch 0: memory_id 0 is invalid (memory ids start at 1)");
  test_dmethod_free(&t);
  sc.mem_id = 2;
  CHECK_STATUS(load(&t, &g), PTE_ERR_INVALID_PROGRAM);
  CHECK_STR(t.err.msg, "delegate 0 ('TestScratch') scratch 0: memory_id 2 but method 'forward' declares 1 planned buffers");
  test_dmethod_free(&t);
  sc.mem_id = 1;
  sc.offset = 40; /* [40, 48) fits exactly */
  pte_status s = load(&t, &g);
  CHECK_MSG(s == PTE_OK, "load: %s %s", pte_status_name(s), t.err.msg);
  test_dmethod_free(&t);
  sc.offset = 41;
  CHECK_STATUS(load(&t, &g), PTE_ERR_MEMORY_ALLOCATION_FAILED);
  CHECK_STR(t.err.msg, "delegate 0 ('TestScratch') scratch 0 needs bytes [41, 49) of planned buffer 0, which has 48 bytes");
  test_dmethod_free(&t);
  sc.offset = 8;
  sc.size = UINT64_MAX; /* no wrap-around */
  CHECK_STATUS(load(&t, &g), PTE_ERR_MEMORY_ALLOCATION_FAILED);
  test_dmethod_free(&t);
  CHECK_EQ_INT(test_scratch_stats.inits, 1);

  /* Buffer 2 declared by the program but not provided by the memory manager. */
  sc.mem_id = 2;
  sc.offset = 0;
  sc.size = 8;
  int64_t ncbs[3] = {0, 48, 8};
  g.p.ncbs = ncbs;
  g.p.n_ncbs = 3;
  CHECK(prog_build(&g));
  pte_buffer_loader bl;
  pte_buffer_loader_init(&bl, g.bytes, g.size);
  pte_program prog_;
  CHECK_OK(pte_program_load(&bl.base, PTE_VERIFY_INTERNAL_CONSISTENCY, &prog_, &t.err));
  static uint8_t pool[64 * 1024];
  _Alignas(16) static uint8_t mem[64];
  pte_allocator ma;
  pte_allocator_init(&ma, pool, sizeof pool);
  pte_planned_buffer pb = {mem, sizeof mem};
  pte_memory_manager mm;
  pte_memory_manager_init(&mm, &ma, &pb, 1, NULL);
  pte_method *m = NULL;
  CHECK_STATUS(pte_method_load(&prog_, "forward", &mm, NULL, NULL, &m, &t.err), PTE_ERR_INVALID_ARGUMENT);
  CHECK_STR(t.err.msg, "delegate 0 ('TestScratch') scratch 0 lives in planned buffer 1 (memory_id 2) but the memory "
                       "manager provides 1 planned buffers");
  CHECK(m == NULL && ma.used == 0);
  pte_program_destroy(&prog_);
  prog_free(&g);
}

/* ================================================================== load-time checks */

TEST(delegate_index_checked_at_load) {
  setup();
  prog g;
  prog_init(&g, 1, 3);
  prog_blob(&g, 1.0f, 1.0f, 0);
  prog_delegates(&g, TEST_BACKEND_COUNTING, false, false); /* 3 delegates */
  g.calls[2] = 3;
  test_dmethod t;
  /* The program verifier already refuses it... */
  CHECK_STATUS(load(&t, &g), PTE_ERR_INVALID_PROGRAM);
  CHECK_STR(t.err.msg, "method 'forward' chain 0 instruction 2: DelegateCall delegate_index 3 out of range (3 delegates)");
  CHECK_EQ_INT(test_counting_stats.inits, 0);
  test_dmethod_free(&t);
  /* ...and so does method load when the program was loaded without that verification. */
  CHECK_STATUS(test_dmethod_load_v(&t, g.bytes, g.size, POOL, NULL, PTE_VERIFY_MINIMAL), PTE_ERR_INVALID_PROGRAM);
  CHECK_STR(t.err.msg, "instruction 2: delegate index 3 out of range (method has 3 delegates)");
  CHECK_EQ_INT(test_counting_stats.executes, 0);
  CHECK_EQ_INT(test_counting_stats.destroys, test_counting_stats.inits); /* nothing left behind */
  test_dmethod_free(&t);
  g.calls[2] = -1;
  CHECK(prog_build(&g));
  CHECK_STATUS(test_dmethod_load_v(&t, g.bytes, g.size, POOL, NULL, PTE_VERIFY_MINIMAL), PTE_ERR_INVALID_PROGRAM);
  CHECK_CONTAINS(t.err.msg, "delegate index -1 out of range");
  test_dmethod_free(&t);
  /* No delegates at all. */
  g.p.n_delegates = 0;
  g.calls[2] = 0;
  CHECK(prog_build(&g));
  CHECK_STATUS(test_dmethod_load_v(&t, g.bytes, g.size, POOL, NULL, PTE_VERIFY_MINIMAL), PTE_ERR_INVALID_PROGRAM);
  CHECK_STR(t.err.msg, "instruction 0: delegate index 0 out of range (method has 0 delegates)");
  test_dmethod_free(&t);
  CHECK_EQ_INT(test_counting_stats.live_handles, 0);
  prog_free(&g);
}

static bool never_available(void) { return false; }
static const pte_backend k_unavailable = {never_available, NULL, NULL, NULL, NULL};

/* Missing backends fail with NotFound naming backend, delegate and method, before any init. */
TEST(missing_or_unavailable_backend_is_not_found) {
  setup();
  prog g;
  prog_init(&g, 1, 2);
  prog_blob(&g, 1.0f, 1.0f, 0);
  prog_delegates(&g, TEST_BACKEND_COUNTING, false, false);
  g.dels[1].id = "QnnBackend";
  test_dmethod t;
  pte_status s = load(&t, &g);
  CHECK_EQ_INT(s, 0x20);
  CHECK_STR(t.err.msg, "backend 'QnnBackend' (delegate 1 of method 'forward') is not registered");
  CHECK_EQ_INT(test_counting_stats.inits, 0); /* delegate 0 was never initialised */
  test_dmethod_free(&t);

  pte_backend avail = test_counting_backend;
  avail.is_available = never_available;
  CHECK_OK(pte_register_backend("QnnBackend", &avail));
  CHECK_STATUS(load(&t, &g), PTE_ERR_NOT_FOUND);
  CHECK_STR(t.err.msg, "backend 'QnnBackend' (delegate 1 of method 'forward') is not available");
  CHECK_EQ_INT(test_counting_stats.inits, 0);
  test_dmethod_free(&t);
  (void)k_unavailable;
  prog_free(&g);
}

/* An init failure destroys the delegates initialised before it (once each), not the failed one. */
TEST(init_failure_destroys_earlier_delegates_once) {
  setup();
  prog g;
  prog_init(&g, 1, 3);
  prog_blob(&g, 1.0f, 1.0f, 0);
  g.blob_mem[1] = malloc(8);
  memcpy(g.blob_mem[1], "NOTABLOB", 8);
  g.blobs[1] = g.blob_mem[1];
  g.blob_sizes[1] = 8;
  g.p.n_blobs = 2;
  prog_delegates(&g, TEST_BACKEND_COUNTING, false, false);
  g.dels[2].blob = 1;
  test_dmethod t;
  CHECK_STATUS(load(&t, &g), PTE_ERR_DELEGATE_INVALID_COMPATIBILITY);
  CHECK_STR(t.err.msg, "backend 'TestCounting' init failed for delegate 2 of method 'forward': TestCounting: not a TBLB blob");
  CHECK_EQ_INT(test_counting_stats.inits, 2);
  CHECK_EQ_INT(test_counting_stats.destroys, 2);
  CHECK(t.m == NULL && t.ma.used == 0);
  test_dmethod_free(&t);
  prog_free(&g);
}

/* The OpenVINO corpus file: load fails with NotFound naming the backend and the method, while
 * `pte inspect` still reads it. */
TEST(corpus_openvino_backend_not_found) {
  setup();
  size_t n;
  uint8_t *d = test_read_corpus("djl_openvino_tiny.pte", &n);
  CHECK(d);
  test_dmethod t;
  pte_status s = test_dmethod_load(&t, d, n, POOL, NULL);
  CHECK_EQ_INT(s, PTE_ERR_NOT_FOUND);
  CHECK_STR(t.err.msg, "backend 'OpenvinoBackend' (delegate 0 of method 'forward') is not registered");
  test_dmethod_free(&t);
  free(d);
  const char *cli = getenv("PTE_CLI");
  CHECK(cli);
  char cmd[2048];
  CHECK(fmt(cmd, sizeof cmd, "'%s' inspect '%s'", cli, test_corpus_path("djl_openvino_tiny.pte")));
  int rc = -1;
  char *out = test_run_capture(cmd, &rc);
  CHECK(out);
  CHECK_MSG(rc == 0, "pte inspect exit %d", rc);
  CHECK_CONTAINS(out, "OpenvinoBackend");
  free(out);
}

TEST(registry_errors) {
  pte_backend_registry_reset();
  pte_error_info e;
  CHECK_OK(pte_register_backend_ex("A", &test_counting_backend, &e));
  CHECK_STATUS(pte_register_backend_ex("A", &test_scratch_backend, &e), PTE_ERR_INVALID_ARGUMENT);
  CHECK_STR(e.msg, "backend 'A' is already registered");
  CHECK(pte_get_backend("A") == &test_counting_backend);
  CHECK_STATUS(pte_register_backend_ex("B", &k_unavailable, &e), PTE_ERR_INVALID_ARGUMENT);
  CHECK_STR(e.msg, "backend 'B' lacks init()");
  CHECK_STATUS(pte_register_backend_ex(NULL, &test_counting_backend, &e), PTE_ERR_INVALID_ARGUMENT);
  CHECK_STR(e.msg, "pte_register_backend: NULL name");
  static char names[PTE_MAX_BACKENDS][8];
  for (int i = 1; i < PTE_MAX_BACKENDS; i++) {
    snprintf(names[i], sizeof names[i], "b%d", i);
    CHECK_OK(pte_register_backend_ex(names[i], &test_counting_backend, &e));
  }
  CHECK_STATUS(pte_register_backend_ex("Z", &test_counting_backend, &e), PTE_ERR_INTERNAL);
  CHECK_STR(e.msg, "backend registry is full (16 backends): cannot register 'Z'");
  CHECK_EQ_INT(pte_num_registered_backends(), PTE_MAX_BACKENDS);
  pte_backend_registry_reset();
  CHECK_EQ_INT(pte_num_registered_backends(), 0);
}

/* ================================================================== format compatibility */

/* The generated accessors read the extension fields of a built file. */
TEST(extension_fields_in_the_flatbuffer) {
  prog g;
  prog_init(&g, 1, 1);
  prog_blob(&g, 1.0f, 0.0f, 0);
  g.p.n_delegates = 1;
  g.dels[0].id = TEST_BACKEND_SCRATCH;
  test_dscratch sc = {1, 0x100000000ull, 8};
  g.dels[0].scratch = &sc;
  g.dels[0].n_scratch = 1;
  g.dels[0].share_handle = true;
  CHECK(prog_build(&g));
  pte_fb_table root = pte_fb_root(g.bytes, g.size);
  pte_fb_table plan = pte_fb_vec_table(pte_et_Program_execution_plan(root), 0);
  pte_fb_table d = pte_fb_vec_table(pte_et_ExecutionPlan_delegates(plan), 0);
  CHECK(pte_et_BackendDelegate_share_handle(d));
  pte_fb_vec sv = pte_et_BackendDelegate_scratch(d);
  CHECK_EQ_INT(sv.len, 1);
  pte_fb_table s0 = pte_fb_vec_table(sv, 0);
  CHECK_EQ_INT(pte_et_DelegateScratch_memory_id(s0), 1);
  CHECK(pte_et_DelegateScratch_offset(s0) == 0x100000000ull);
  CHECK_EQ_INT(pte_et_DelegateScratch_size(s0), 8);
  prog_free(&g);
}

/* Writes `path` = schema/program.fbs without the pte extension fields (what upstream has). */
static bool write_upstream_schema(const char *dir) {
  const char *sdir = getenv("PTE_SCHEMA_DIR");
  char path[1024];
  if (!sdir || !fmt(path, sizeof path, "%s/program.fbs", sdir)) return false;
  size_t n;
  char *src = (char *)test_read_file(path, &n);
  char *out = src ? malloc(n + 1) : NULL;
  if (!out) {
    free(src);
    return false;
  }
  size_t len = 0;
  bool in_scratch_table = false;
  int dropped = 0;
  for (char *line = src; line < src + n;) {
    char *end = memchr(line, '\n', (size_t)(src + n - line));
    size_t ll = end ? (size_t)(end - line) + 1 : (size_t)(src + n - line);
    bool drop = false;
    if (strncmp(line, "table DelegateScratch", 21) == 0) in_scratch_table = true;
    if (in_scratch_table) {
      drop = true;
      if (line[0] == '}') in_scratch_table = false, dropped++;
    }
    char tmp[256];
    size_t cl = ll < sizeof tmp - 1 ? ll : sizeof tmp - 1;
    memcpy(tmp, line, cl);
    tmp[cl] = '\0';
    if (strstr(tmp, "scratch: [DelegateScratch];") || strstr(tmp, "share_handle: bool;")) drop = true, dropped++;
    if (!drop) {
      memcpy(out + len, line, ll);
      len += ll;
    }
    line += ll;
  }
  char cmd[4096];
  int rc = -1;
  if (fmt(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s' && cp '%s/scalar_type.fbs' '%s/'", dir, dir, sdir, dir))
    free(test_run_capture(cmd, &rc));
  bool ok = rc == 0 && dropped == 3 && fmt(path, sizeof path, "%s/program.fbs", dir) &&
            test_write_file(path, out, len) == 0;
  free(src);
  free(out);
  return ok;
}

static test_json *flatc_json(const char *schema, const char *bin, const char *outdir) {
  const char *flatc = getenv("PTE_FLATC");
  char cmd[8192];
  if (!fmt(cmd, sizeof cmd,
           "rm -rf '%s' && mkdir -p '%s' && '%s' --json --raw-binary --strict-json --defaults-json -o '%s' '%s' -- '%s' 2>&1",
           outdir, outdir, flatc, outdir, schema, bin))
    return NULL;
  int rc = -1;
  char *o = test_run_capture(cmd, &rc);
  if (rc != 0) fprintf(stderr, "  flatc: %s\n", o ? o : "?");
  free(o);
  if (rc != 0) return NULL;
  char path[2048];
  if (!fmt(path, sizeof path, "%s/deleg_ext.json", outdir)) return NULL;
  size_t len;
  char *text = (char *)test_read_file(path, &len);
  if (!text) return NULL;
  test_json *j = test_json_parse(text, len, NULL, 0);
  free(text);
  return j;
}

/* A file using both extensions decodes with upstream's schema (the extra trailing fields are
 * ignored) and, with ours, shows them. */
TEST(upstream_schema_reader_ignores_extensions) {
  const char *flatc = getenv("PTE_FLATC");
  if (!flatc || !*flatc) SKIP("flatc not installed (.ci/run installs it)");
  prog g;
  prog_init(&g, 2, 2);
  prog_blob(&g, 1.0f, 0.0f, 4);
  g.p.n_delegates = 2;
  g.dels[0].id = TEST_BACKEND_SCRATCH;
  test_dscratch sc = {1, 48, 8};
  g.dels[0].scratch = &sc;
  g.dels[0].n_scratch = 1;
  g.dels[1].id = TEST_BACKEND_COUNTING;
  g.dels[1].share_handle = true;
  g.calls[0] = 0;
  g.calls[1] = 1;
  g.p.extra_planned = 16;
  CHECK(prog_build(&g));
  char bin[1024];
  CHECK(fmt(bin, sizeof bin, "%s", test_tmp_path("deleg_ext.pte")));
  CHECK(test_write_file(bin, g.bytes, g.size) == 0);
  char updir[1024];
  CHECK(fmt(updir, sizeof updir, "%s", test_tmp_path("deleg_upstream_schema")));
  CHECK(write_upstream_schema(updir));

  char schema[1100], outdir[1024];
  CHECK(fmt(schema, sizeof schema, "%s/program.fbs", updir));
  CHECK(fmt(outdir, sizeof outdir, "%s", test_tmp_path("deleg_flatc_up")));
  test_json *up = flatc_json(schema, bin, outdir);
  CHECK_MSG(up, "flatc with the upstream schema could not decode the file");
  const test_json *d0 = test_json_path(up, "execution_plan[0].delegates[0]");
  const test_json *d1 = test_json_path(up, "execution_plan[0].delegates[1]");
  int ok = d0 && d1 && test_json_str(test_json_get(d0, "id")) &&
           strcmp(test_json_str(test_json_get(d0, "id")), "TestScratch") == 0 && !test_json_get(d0, "scratch") &&
           !test_json_get(d1, "share_handle") && test_json_int(test_json_path(d1, "processed.index"), -1) == 0 &&
           test_json_len(test_json_path(up, "execution_plan[0].chains[0].instructions")) == 2;
  test_json_free(up);
  CHECK_MSG(ok, "upstream decode lacks the delegates or shows extension fields");

  CHECK(fmt(schema, sizeof schema, "%s/program.fbs", getenv("PTE_SCHEMA_DIR")));
  CHECK(fmt(outdir, sizeof outdir, "%s", test_tmp_path("deleg_flatc_ours")));
  test_json *ours = flatc_json(schema, bin, outdir);
  CHECK(ours);
  ok = test_json_int(test_json_path(ours, "execution_plan[0].delegates[0].scratch[0].offset"), -1) == 48 &&
       test_json_int(test_json_path(ours, "execution_plan[0].delegates[0].scratch[0].size"), -1) == 8 &&
       test_json_int(test_json_path(ours, "execution_plan[0].delegates[0].scratch[0].memory_id"), -1) == 1 &&
       test_json_path(ours, "execution_plan[0].delegates[1].share_handle") &&
       test_json_path(ours, "execution_plan[0].delegates[1].share_handle")->type == TEST_JSON_BOOL &&
       test_json_path(ours, "execution_plan[0].delegates[1].share_handle")->b;
  test_json_free(ours);
  CHECK_MSG(ok, "our schema does not show the extension fields");

  /* And our runtime runs it. */
  setup();
  test_dmethod t;
  pte_status s = test_dmethod_load(&t, g.bytes, g.size, POOL, NULL);
  CHECK_MSG(s == PTE_OK, "load: %s %s", pte_status_name(s), t.err.msg);
  test_dmethod_free(&t);
  prog_free(&g);
}

int main(void) {
  RUN(shared_delegate_inits_once);
  RUN(unflagged_multi_call_delegate_is_accepted);
  RUN(cached_args_backend_must_not_share);
  RUN(separate_modules_keep_separate_handles);
  RUN(two_loads_two_inits);
  RUN(scratch_is_resolved_and_passed);
  RUN(scratch_delegate_with_two_call_sites_is_rejected);
  RUN(scratch_with_share_handle_is_rejected);
  RUN(scratch_placement_errors);
  RUN(delegate_index_checked_at_load);
  RUN(missing_or_unavailable_backend_is_not_found);
  RUN(init_failure_destroys_earlier_delegates_once);
  RUN(corpus_openvino_backend_not_found);
  RUN(registry_errors);
  RUN(extension_fields_in_the_flatbuffer);
  RUN(upstream_schema_reader_ignores_extensions);
  return test_summary();
}
