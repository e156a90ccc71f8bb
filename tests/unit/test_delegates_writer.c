/* Backend delegates, the writer's side: one BackendDelegate per lowered module that opts in to
 * sharing, separate modules never merged, a scratch module never shared, and the share flag kept
 * through a write / load round trip; each program then runs on the test backends
 * (tests/support/test_backends.c). Load and run side: test_delegates.c. */
#define _POSIX_C_SOURCE 200809L
#include "test.h"

#include "format/flatbuf.h"
#include "pte/backend.h"
#include "pte/data_writer.h"
#include "pte/io.h"
#include "pte/method.h"
#include "pte/program.h"
#include "pte/writer.h"
#include "pte_gen/program_gen.h"
#include "test_backends.h"

#define POOL (1u << 20)
#define MAXC 16

/* ================================================================== the writer's side */

typedef struct wfix {
  test_wprog p;
  uint32_t calls[MAXC];
  test_wmodule mods[4];
  const void *blobs[4];
  size_t bsz[4];
  uint8_t *bm[4];
  uint8_t *bytes;
  size_t size;
  pte_buffer_loader bl;
  pte_program prog;
  bool loaded;
  pte_error_info err;
} wfix;

static void wfix_init(wfix *f, int32_t numel, size_t n_calls) {
  memset(f, 0, sizeof *f);
  f->p.numel = numel;
  f->p.n_calls = n_calls;
  f->p.call_module = f->calls;
  f->p.modules = f->mods;
  f->p.blobs = f->blobs;
  f->p.blob_sizes = f->bsz;
}

static void wfix_blob(wfix *f, float scale, float bias, size_t payload) {
  size_t i = f->p.n_blobs++;
  f->bm[i] = test_blob_new(scale, bias, payload, &f->bsz[i]);
  f->blobs[i] = f->bm[i];
}

/* Writes with the pte writer and loads the program (not the method). */
static bool wfix_write(wfix *f) {
  if (f->loaded) pte_program_destroy(&f->prog);
  f->loaded = false;
  free(f->bytes);
  f->bytes = test_wprog_build(&f->p, &f->size, &f->err);
  if (!f->bytes) {
    fprintf(stderr, "  writer: %s\n", f->err.msg);
    return false;
  }
  pte_buffer_loader_init(&f->bl, f->bytes, f->size);
  if (pte_program_load(&f->bl.base, PTE_VERIFY_INTERNAL_CONSISTENCY, &f->prog, &f->err) != PTE_OK) {
    fprintf(stderr, "  program load: %s\n", f->err.msg);
    return false;
  }
  f->loaded = true;
  return true;
}

static void wfix_free(wfix *f) {
  if (f->loaded) pte_program_destroy(&f->prog);
  free(f->bytes);
  for (int i = 0; i < 4; i++) free(f->bm[i]);
  memset(f, 0, sizeof *f);
}

static pte_fb_table w_plan(const pte_program *p) {
  size_t n;
  const uint8_t *fb = pte_program_flatbuffer(p, &n);
  return pte_fb_vec_table(pte_et_Program_execution_plan(pte_fb_root(fb, n)), 0);
}
static size_t w_num_delegates(const pte_program *p) { return pte_et_ExecutionPlan_delegates(w_plan(p)).len; }
static pte_fb_table w_delegate(const pte_program *p, size_t i) {
  return pte_fb_vec_table(pte_et_ExecutionPlan_delegates(w_plan(p)), (uint32_t)i);
}
/* delegate_index of DelegateCall k of chain 0 (-100 if instruction k is not a DelegateCall). */
static int32_t w_call_delegate(const pte_program *p, size_t k) {
  pte_fb_table ch = pte_fb_vec_table(pte_et_ExecutionPlan_chains(w_plan(p)), 0);
  pte_fb_table in = pte_fb_vec_table(pte_et_Chain_instructions(ch), (uint32_t)k);
  if (pte_fb_get_u8(in, 0, 0) != 2) return -100;
  return pte_fb_get_i32(pte_fb_get_table(in, 1), 0, 0);
}

/* N calls of one lowered module: opted in -> 1 BackendDelegate + N DelegateCalls, 1 init;
 * not opted in -> N delegates all referencing the one stored blob, N inits; same outputs. */
TEST(writer_one_delegate_per_opted_in_module) {
  test_backends_setup();
  float outs[2][3];
  for (int share = 1; share >= 0; share--) {
    wfix f;
    wfix_init(&f, 3, 5);
    wfix_blob(&f, 2.0f, 1.0f, 1000);
    f.p.n_modules = 1;
    f.mods[0].id = TEST_BACKEND_COUNTING;
    f.mods[0].share_handle = share;
    CHECK(wfix_write(&f));
    CHECK_EQ_INT(w_num_delegates(&f.prog), share ? 1 : 5);
    CHECK_EQ_INT(pte_program_num_segments(&f.prog), 2); /* constants + the blob, stored once */
    for (size_t k = 0; k < 5; k++) {
      CHECK_EQ_INT(w_call_delegate(&f.prog, k), share ? 0 : (int32_t)k);
      if (k >= w_num_delegates(&f.prog)) continue;
      pte_fb_table d = w_delegate(&f.prog, k);
      pte_fb_table ref = pte_et_BackendDelegate_processed(d);
      CHECK_EQ_INT(pte_et_BackendDelegateDataReference_location(ref), 1); /* SEGMENT */
      CHECK_EQ_INT(pte_et_BackendDelegateDataReference_index(ref), 1);
      CHECK_EQ_INT(pte_et_BackendDelegate_share_handle(d), share);
      CHECK_EQ_INT(pte_et_BackendDelegate_scratch(d).len, 0);
    }
    test_backends_reset_stats();
    test_dmethod t;
    pte_status s = test_dmethod_load(&t, f.bytes, f.size, POOL, NULL);
    CHECK_MSG(s == PTE_OK, "load: %s %s", pte_status_name(s), t.err.msg);
    CHECK_EQ_INT(test_counting_stats.inits, share ? 1 : 5);
    float x[3] = {1.0f, -0.5f, 0.0f};
    CHECK_OK(test_dmethod_run(&t, x, 3, outs[share]));
    CHECK(outs[share][0] == 63.0f && outs[share][1] == 15.0f && outs[share][2] == 31.0f); /* 32x + 31 */
    CHECK_EQ_INT(test_counting_stats.executes, 5);
    test_dmethod_free(&t);
    CHECK_EQ_INT(test_counting_stats.destroys, share ? 1 : 5);
    wfix_free(&f);
  }
  CHECK(memcmp(outs[0], outs[1], sizeof outs[0]) == 0);
}

/* Two lowered modules with identical bytes: never merged (two delegates, two inits), while the
 * identical blob is still stored once. */
TEST(writer_never_merges_separate_modules) {
  test_backends_setup();
  wfix f;
  wfix_init(&f, 1, 4);
  wfix_blob(&f, 3.0f, 0.0f, 64);
  wfix_blob(&f, 3.0f, 0.0f, 64); /* same bytes, another buffer */
  f.p.n_modules = 2;
  f.mods[0].id = f.mods[1].id = TEST_BACKEND_COUNTING;
  f.mods[0].share_handle = f.mods[1].share_handle = true;
  f.mods[1].blob = 1;
  uint32_t calls[4] = {0, 1, 0, 1};
  memcpy(f.calls, calls, sizeof calls);
  CHECK(wfix_write(&f));
  CHECK_EQ_INT(w_num_delegates(&f.prog), 2);
  CHECK_EQ_INT(pte_program_num_segments(&f.prog), 2);
  for (size_t k = 0; k < 4; k++) CHECK_EQ_INT(w_call_delegate(&f.prog, k), (int32_t)(k % 2));
  test_dmethod t;
  pte_status s = test_dmethod_load(&t, f.bytes, f.size, POOL, NULL);
  CHECK_MSG(s == PTE_OK, "load: %s %s", pte_status_name(s), t.err.msg);
  CHECK_EQ_INT(test_counting_stats.inits, 2);
  CHECK_EQ_INT(test_counting_stats.last_n_calls, 2);
  float x = 1.0f, o;
  CHECK_OK(test_dmethod_run(&t, &x, 1, &o));
  CHECK(o == 81.0f);
  test_dmethod_free(&t);
  wfix_free(&f);
}

/* A module with scratch is never shared, even when its backend opted in: one delegate per call,
 * each loadable (no share flag on a delegate with scratch). */
TEST(writer_never_shares_a_scratch_module) {
  test_backends_setup();
  for (int flag = 1; flag >= 0; flag--) {
    wfix f;
    wfix_init(&f, 2, 3);
    wfix_blob(&f, 2.0f, 0.0f, 0);
    test_dprog geom;
    memset(&geom, 0, sizeof geom);
    geom.numel = 2;
    geom.n_calls = 3;
    test_dscratch sc = {1, test_dprog_tensor_bytes(&geom), 16};
    f.p.n_modules = 1;
    f.mods[0].id = TEST_BACKEND_SCRATCH;
    f.mods[0].share_handle = flag;
    f.mods[0].scratch = &sc;
    f.mods[0].n_scratch = 1;
    CHECK(wfix_write(&f));
    CHECK_EQ_INT(w_num_delegates(&f.prog), 3);
    for (size_t k = 0; k < 3; k++) {
      CHECK_EQ_INT(w_call_delegate(&f.prog, k), (int32_t)k);
      pte_fb_table d = w_delegate(&f.prog, k);
      CHECK_EQ_INT(pte_et_BackendDelegate_scratch(d).len, 1);
      CHECK_MSG(!pte_et_BackendDelegate_share_handle(d), "delegate %zu: share_handle set next to scratch", k);
    }
    test_backends_reset_stats();
    test_dmethod t;
    pte_status s = test_dmethod_load(&t, f.bytes, f.size, POOL, NULL);
    CHECK_MSG(s == PTE_OK, "load: %s %s", pte_status_name(s), t.err.msg);
    CHECK_EQ_INT(test_scratch_stats.inits, 3);
    CHECK(test_scratch_stats.init_scratch[0].data == t.planned_mem[0] + sc.offset);
    float x[2] = {1.0f, 2.0f}, o[2];
    CHECK_OK(test_dmethod_run(&t, x, 2, o));
    CHECK(o[0] == 8.0f && o[1] == 16.0f);
    test_dmethod_free(&t);
    wfix_free(&f);
  }
}

/* write -> read -> write: share_handle and scratch survive pte_writer_copy_program, and the
 * rewritten file is byte-identical. */
TEST(writer_round_trip_keeps_share_flag) {
  test_backends_setup();
  wfix f;
  wfix_init(&f, 2, 3);
  wfix_blob(&f, 2.0f, 1.0f, 32);
  wfix_blob(&f, 1.0f, 0.0f, 0);
  test_dprog geom;
  memset(&geom, 0, sizeof geom);
  geom.numel = 2;
  geom.n_calls = 3;
  test_dscratch sc = {1, test_dprog_tensor_bytes(&geom), 8};
  f.p.n_modules = 2;
  f.mods[0].id = TEST_BACKEND_COUNTING;
  f.mods[0].share_handle = true;
  f.mods[1].id = TEST_BACKEND_SCRATCH;
  f.mods[1].blob = 1;
  f.mods[1].scratch = &sc;
  f.mods[1].n_scratch = 1;
  uint32_t calls[3] = {0, 1, 0};
  memcpy(f.calls, calls, sizeof calls);
  CHECK(wfix_write(&f));
  CHECK_EQ_INT(w_num_delegates(&f.prog), 2);

  pte_writer *w = NULL;
  pte_error_info err;
  CHECK_OK(pte_writer_create(NULL, &w, &err));
  pte_status s = pte_writer_copy_program(w, &f.prog, &err);
  CHECK_MSG(s == PTE_OK, "copy: %s %s", pte_status_name(s), err.msg);
  pte_memory_writer mw;
  CHECK_OK(pte_memory_writer_init(&mw, pte_heap_realloc, NULL, 0));
  s = pte_writer_write(w, &mw.base, &err);
  size_t n = 0;
  const uint8_t *d = pte_memory_writer_data(&mw, &n);
  uint8_t *again = NULL;
  if (s == PTE_OK && posix_memalign((void **)&again, 64, n + 64) == 0) memcpy(again, d, n);
  pte_data_writer_destroy(&mw.base);
  pte_writer_destroy(w);
  CHECK_MSG(s == PTE_OK && again, "rewrite: %s %s", pte_status_name(s), err.msg);
  pte_buffer_loader bl;
  pte_buffer_loader_init(&bl, again, n);
  pte_program p2;
  CHECK_OK(pte_program_load(&bl.base, PTE_VERIFY_INTERNAL_CONSISTENCY, &p2, &err));
  CHECK_EQ_INT(w_num_delegates(&p2), 2);
  CHECK(pte_et_BackendDelegate_share_handle(w_delegate(&p2, 0)));
  CHECK(!pte_et_BackendDelegate_share_handle(w_delegate(&p2, 1)));
  pte_fb_vec sv = pte_et_BackendDelegate_scratch(w_delegate(&p2, 1));
  CHECK_EQ_INT(sv.len, 1);
  CHECK_EQ_INT(pte_et_DelegateScratch_offset(pte_fb_vec_table(sv, 0)), sc.offset);
  CHECK_EQ_INT(w_call_delegate(&p2, 2), 0);
  CHECK_EQ_INT(n, f.size);
  CHECK(memcmp(again, f.bytes, n) == 0);
  test_dmethod t;
  s = test_dmethod_load(&t, again, n, POOL, NULL);
  CHECK_MSG(s == PTE_OK, "load: %s %s", pte_status_name(s), t.err.msg);
  CHECK_EQ_INT(test_counting_stats.inits, 1);
  CHECK_EQ_INT(test_scratch_stats.inits, 1);
  test_dmethod_free(&t);
  pte_program_destroy(&p2);
  free(again);
  wfix_free(&f);
}

int main(void) {
  RUN(writer_one_delegate_per_opted_in_module);
  RUN(writer_never_merges_separate_modules);
  RUN(writer_never_shares_a_scratch_module);
  RUN(writer_round_trip_keeps_share_flag);
  return test_summary();
}
