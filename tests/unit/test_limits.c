#define _POSIX_C_SOURCE 200809L
/* Resource limits a caller sets on untrusted files (docs/robustness.md): the largest file a program
 * load accepts (pte_program_limits.max_file_size), the planned memory a method may ask for
 * (pte_method_options.max_planned_memory, pte_method_meta_planned_memory) and the instructions one
 * execute may run (pte_method_options.max_instructions). Each: exact boundary, exact status and
 * message. */
#include "format/flatbuf.h"
#include "pte/bundled.h"
#include "pte/io.h"
#include "pte/method.h"
#include "pte/portable_kernels.h"
#include "pte/program.h"
#include "pte_gen/program_gen.h"
#include "test.h"

static uint8_t *g_pool;
#define POOL_SIZE (4u << 20)

/* ------------------------------------------------------------------ max_file_size */

TEST(max_file_size) {
  size_t n;
  uint8_t *d = test_read_corpus("arduino_AddModel.pte", &n); /* 1156 bytes */
  CHECK(d);
  CHECK_EQ_INT(n, 1156);
  pte_buffer_loader bl;
  pte_buffer_loader_init(&bl, d, n);
  pte_program p;
  pte_error_info err;
  pte_program_limits lim = {1155};
  CHECK_STATUS(pte_program_load_with_limits(&bl.base, PTE_VERIFY_INTERNAL_CONSISTENCY, &lim, &p, &err),
               PTE_ERR_OUT_OF_RESOURCES);
  CHECK_STR(err.msg, "program file is 1156 bytes, over the limit of 1155");
  /* Refused before anything is loaded: the struct is zeroed, nothing to destroy. */
  CHECK(pte_program_num_methods(&p) == 0);
  lim.max_file_size = 1156; /* the limit is inclusive */
  CHECK_OK(pte_program_load_with_limits(&bl.base, PTE_VERIFY_INTERNAL_CONSISTENCY, &lim, &p, &err));
  CHECK_EQ_INT(pte_program_num_methods(&p), 1);
  pte_program_destroy(&p);
  lim.max_file_size = 0; /* 0 = no limit */
  CHECK_OK(pte_program_load_with_limits(&bl.base, PTE_VERIFY_MINIMAL, &lim, &p, &err));
  pte_program_destroy(&p);
  CHECK_OK(pte_program_load_with_limits(&bl.base, PTE_VERIFY_MINIMAL, NULL, &p, &err)); /* NULL = no limits */
  pte_program_destroy(&p);
  free(d);
  /* The embedded program of a .bpte is limited through its window loader (1696 bytes). */
  d = test_read_corpus("module_test_bundled_program.bpte", &n);
  CHECK(d);
  pte_buffer_loader_init(&bl, d, n);
  pte_bundled_program bp;
  CHECK_OK(pte_bundled_program_load(&bl.base, &bp, &err));
  lim.max_file_size = 1695;
  CHECK_STATUS(pte_program_load_with_limits(pte_bundled_program_loader(&bp), PTE_VERIFY_INTERNAL_CONSISTENCY, &lim, &p,
                                            &err),
               PTE_ERR_OUT_OF_RESOURCES);
  CHECK_STR(err.msg, "program file is 1696 bytes, over the limit of 1695");
  pte_bundled_program_destroy(&bp);
  free(d);
}

/* ------------------------------------------------------------------ planned memory */

/* A program whose only method declares non_const_buffer_sizes = sizes[0..n) and nothing else. */
static uint8_t *plan_only_program(const int64_t *sizes, size_t n, size_t *out_size) {
  pte_fb_builder b;
  pte_fb_builder_init(&b, pte_heap_realloc, NULL);
  pte_fb_ref nbs = pte_et_ExecutionPlan_create_non_const_buffer_sizes(&b, sizes, n);
  pte_fb_ref empty = pte_et_ExecutionPlan_create_values(&b, NULL, 0);
  pte_fb_ref io = pte_et_ExecutionPlan_create_inputs(&b, NULL, 0);
  pte_fb_ref oo = pte_et_ExecutionPlan_create_outputs(&b, NULL, 0);
  pte_fb_ref ins = pte_et_Chain_create_instructions(&b, NULL, 0);
  pte_et_Chain_start(&b);
  pte_et_Chain_add_instructions(&b, ins);
  pte_fb_ref chain = pte_et_Chain_end(&b);
  pte_fb_ref chains = pte_et_ExecutionPlan_create_chains(&b, &chain, 1);
  pte_fb_ref ops = pte_et_ExecutionPlan_create_operators(&b, NULL, 0);
  pte_fb_ref dels = pte_et_ExecutionPlan_create_delegates(&b, NULL, 0);
  pte_fb_ref name = pte_fb_create_string(&b, "forward", 7);
  pte_et_ExecutionPlan_start(&b);
  pte_et_ExecutionPlan_add_name(&b, name);
  pte_et_ExecutionPlan_add_values(&b, empty);
  pte_et_ExecutionPlan_add_inputs(&b, io);
  pte_et_ExecutionPlan_add_outputs(&b, oo);
  pte_et_ExecutionPlan_add_chains(&b, chains);
  pte_et_ExecutionPlan_add_operators(&b, ops);
  pte_et_ExecutionPlan_add_delegates(&b, dels);
  pte_et_ExecutionPlan_add_non_const_buffer_sizes(&b, nbs);
  pte_fb_ref plan = pte_et_ExecutionPlan_end(&b);
  pte_fb_ref plans = pte_et_Program_create_execution_plan(&b, &plan, 1);
  pte_et_Program_start(&b);
  pte_et_Program_add_execution_plan(&b, plans);
  pte_fb_ref root = pte_et_Program_end(&b);
  const uint8_t *fb;
  size_t fbs;
  uint8_t *out = NULL;
  if (pte_et_finish(&b, root, &fb, &fbs) == PTE_OK) {
    size_t total = fbs < 64 ? 64 : fbs;
    if (posix_memalign((void **)&out, 64, total) == 0) {
      memset(out, 0, total);
      memcpy(out, fb, fbs);
      *out_size = total;
    }
  }
  pte_fb_builder_free(&b);
  return out;
}

TEST(planned_memory_total) {
  static const int64_t sizes[] = {0, 1000, 24, 1u << 20};
  size_t n;
  uint8_t *d = plan_only_program(sizes, 4, &n);
  CHECK(d);
  pte_buffer_loader bl;
  pte_buffer_loader_init(&bl, d, n);
  pte_program p;
  pte_error_info err;
  CHECK_OK(pte_program_load(&bl.base, PTE_VERIFY_INTERNAL_CONSISTENCY, &p, &err));
  pte_method_meta meta;
  CHECK_OK(pte_method_meta_get(&p, "forward", &meta, &err));
  uint64_t total = 0;
  CHECK_OK(pte_method_meta_planned_memory(&meta, &total));
  CHECK_EQ_INT(total, 1000 + 24 + (1 << 20)); /* entry 0 (reserved) is not counted */
  CHECK_STATUS(pte_method_meta_planned_memory(NULL, &total), PTE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(pte_method_meta_planned_memory(&meta, NULL), PTE_ERR_INVALID_ARGUMENT);

  /* The cap is checked before the memory manager is even looked at: no buffers needed. */
  pte_allocator ma;
  pte_allocator_init(&ma, g_pool, POOL_SIZE);
  pte_memory_manager mm;
  pte_memory_manager_init(&mm, &ma, NULL, 0, NULL);
  pte_method_options o;
  memset(&o, 0, sizeof o);
  o.max_planned_memory = total - 1;
  pte_method *m = (pte_method *)&o; /* must be reset to NULL on failure */
  CHECK_STATUS(pte_method_load_ex(&p, "forward", &mm, &o, &m, &err), PTE_ERR_OUT_OF_RESOURCES);
  CHECK_STR(err.msg, "method 'forward' plans 1049600 bytes of memory, over the limit of 1049599");
  CHECK(m == NULL);
  CHECK_EQ_INT(ma.used, 0);

  /* At the cap: the load goes on (and then needs the buffers). */
  static uint8_t b1[1000], b2[24];
  uint8_t *b3 = (uint8_t *)malloc(1u << 20);
  pte_planned_buffer pb[3] = {{b1, sizeof b1}, {b2, sizeof b2}, {b3, 1u << 20}};
  pte_memory_manager_init(&mm, &ma, pb, 3, NULL);
  o.max_planned_memory = total;
  CHECK_OK(pte_method_load_ex(&p, "forward", &mm, &o, &m, &err));
  CHECK_OK(pte_method_execute(m, &err)); /* no instructions */
  pte_method_destroy(m);
  free(b3);
  pte_program_destroy(&p);
  free(d);
}

TEST(planned_memory_overflow_and_negative) {
  /* Four buffers of 2^62 bytes: the sum overflows 64 bits. */
  static const int64_t huge[] = {0, 1ll << 62, 1ll << 62, 1ll << 62, 1ll << 62};
  size_t n;
  uint8_t *d = plan_only_program(huge, 5, &n);
  CHECK(d);
  pte_buffer_loader bl;
  pte_buffer_loader_init(&bl, d, n);
  pte_program p;
  pte_error_info err;
  CHECK_OK(pte_program_load(&bl.base, PTE_VERIFY_INTERNAL_CONSISTENCY, &p, &err));
  pte_method_meta meta;
  CHECK_OK(pte_method_meta_get(&p, "forward", &meta, &err));
  uint64_t total = 7;
  CHECK_STATUS(pte_method_meta_planned_memory(&meta, &total), PTE_ERR_INVALID_PROGRAM);
  CHECK_EQ_INT(total, 7); /* untouched on error */
  pte_allocator ma;
  pte_allocator_init(&ma, g_pool, POOL_SIZE);
  pte_memory_manager mm;
  pte_memory_manager_init(&mm, &ma, NULL, 0, NULL);
  pte_method_options o;
  memset(&o, 0, sizeof o);
  o.max_planned_memory = UINT64_MAX;
  pte_method *m = NULL;
  CHECK_STATUS(pte_method_load_ex(&p, "forward", &mm, &o, &m, &err), PTE_ERR_INVALID_PROGRAM);
  CHECK_STR(err.msg, "method 'forward': malformed non_const_buffer_sizes");
  pte_program_destroy(&p);
  free(d);

  /* A negative size (only loadable at PTE_VERIFY_MINIMAL). */
  static const int64_t neg[] = {0, 64, -1};
  d = plan_only_program(neg, 3, &n);
  CHECK(d);
  pte_buffer_loader_init(&bl, d, n);
  CHECK_STATUS(pte_program_load(&bl.base, PTE_VERIFY_INTERNAL_CONSISTENCY, &p, &err), PTE_ERR_INVALID_PROGRAM);
  CHECK_OK(pte_program_load(&bl.base, PTE_VERIFY_MINIMAL, &p, &err));
  CHECK_OK(pte_method_meta_get(&p, "forward", &meta, &err));
  CHECK_STATUS(pte_method_meta_planned_memory(&meta, &total), PTE_ERR_INVALID_PROGRAM);
  o.max_planned_memory = 1u << 30;
  CHECK_STATUS(pte_method_load_ex(&p, "forward", &mm, &o, &m, &err), PTE_ERR_INVALID_PROGRAM);
  pte_program_destroy(&p);
  free(d);
}

TEST(planned_memory_cap_on_a_corpus_file) {
  size_t n;
  uint8_t *d = test_read_corpus("pr17248_maxpool2d.pte", &n); /* non_const_buffer_sizes [0, 5619712] */
  CHECK(d);
  pte_buffer_loader bl;
  pte_buffer_loader_init(&bl, d, n);
  pte_program p;
  pte_error_info err;
  CHECK_OK(pte_program_load(&bl.base, PTE_VERIFY_INTERNAL_CONSISTENCY, &p, &err));
  pte_method_meta meta;
  CHECK_OK(pte_method_meta_get(&p, "forward", &meta, &err));
  uint64_t total = 0;
  CHECK_OK(pte_method_meta_planned_memory(&meta, &total));
  CHECK_EQ_INT(total, 5619712);
  pte_allocator ma;
  pte_allocator_init(&ma, g_pool, POOL_SIZE);
  pte_memory_manager mm;
  pte_memory_manager_init(&mm, &ma, NULL, 0, NULL);
  pte_method_options o;
  memset(&o, 0, sizeof o);
  o.max_planned_memory = 4u << 20; /* a 4 MiB budget */
  pte_method *m = NULL;
  CHECK_STATUS(pte_method_load_ex(&p, "forward", &mm, &o, &m, &err), PTE_ERR_OUT_OF_RESOURCES);
  CHECK_STR(err.msg, "method 'forward' plans 5619712 bytes of memory, over the limit of 4194304");
  pte_program_destroy(&p);
  free(d);
}

/* ------------------------------------------------------------------ max_instructions */

static pte_status run_with_cap(const pte_program *p, uint64_t cap, pte_error_info *err) {
  pte_method_meta meta;
  pte_status s = pte_method_meta_get(p, "forward", &meta, err);
  if (s != PTE_OK) return s;
  uint64_t sz = 0;
  pte_method_meta_planned_buffer_size(&meta, 0, &sz);
  uint8_t *buf = (uint8_t *)calloc(1, (size_t)sz);
  pte_planned_buffer pb = {buf, (size_t)sz};
  pte_allocator ma;
  pte_allocator_init(&ma, g_pool, POOL_SIZE);
  pte_memory_manager mm;
  pte_memory_manager_init(&mm, &ma, &pb, 1, NULL);
  pte_method_options o;
  memset(&o, 0, sizeof o);
  o.max_instructions = cap;
  pte_method *m = NULL;
  s = pte_method_load_ex(p, "forward", &mm, &o, &m, err);
  if (s == PTE_OK) {
    float x[50], y[1] = {0.5f};
    for (int i = 0; i < 50; i++) x[i] = (float)i / 50.0f;
    int32_t xs[2] = {1, 50}, ys[1] = {1};
    s = pte_method_set_input_tensor(m, 0, PTE_DTYPE_FLOAT, xs, 2, x, sizeof x, err);
    if (s == PTE_OK) s = pte_method_set_input_tensor(m, 1, PTE_DTYPE_FLOAT, ys, 1, y, sizeof y, err);
    if (s == PTE_OK) s = pte_method_execute(m, err);
    /* After a refused run the method starts from instruction 0 again. */
    if (s == PTE_ERR_INVALID_PROGRAM && pte_method_step(m, NULL) != PTE_OK) s = PTE_ERR_INTERNAL;
    pte_method_destroy(m);
  }
  free(buf);
  return s;
}

TEST(max_instructions) {
  size_t n;
  uint8_t *d = test_read_corpus("dnf_test_dnf_executorch1.pte", &n); /* forward: 24 KernelCalls */
  CHECK(d);
  pte_buffer_loader bl;
  pte_buffer_loader_init(&bl, d, n);
  pte_program p;
  pte_error_info err;
  CHECK_OK(pte_program_load(&bl.base, PTE_VERIFY_INTERNAL_CONSISTENCY, &p, &err));
  pte_method_meta meta;
  CHECK_OK(pte_method_meta_get(&p, "forward", &meta, &err));
  CHECK_EQ_INT(pte_method_meta_num_instructions(&meta), 24);
  CHECK_OK(run_with_cap(&p, 24, &err)); /* exactly enough */
  CHECK_STATUS(run_with_cap(&p, 23, &err), PTE_ERR_INVALID_PROGRAM);
  CHECK_STR(err.msg, "instruction limit (23) exceeded at chain 0 instruction 23: infinite loop?");
  CHECK_STATUS(run_with_cap(&p, 1, &err), PTE_ERR_INVALID_PROGRAM);
  CHECK_STR(err.msg, "instruction limit (1) exceeded at chain 0 instruction 1: infinite loop?");
  CHECK_OK(run_with_cap(&p, 0, &err)); /* 0 = the default (10,000,000) */
  CHECK_EQ_INT(PTE_METHOD_DEFAULT_MAX_INSTRUCTIONS, 10000000);
  pte_program_destroy(&p);
  free(d);
}

int main(void) {
  if (pte_register_portable_kernels() != PTE_OK) return 1;
  g_pool = (uint8_t *)malloc(POOL_SIZE);
  RUN(max_file_size);
  RUN(planned_memory_total);
  RUN(planned_memory_overflow_and_negative);
  RUN(planned_memory_cap_on_a_corpus_file);
  RUN(max_instructions);
  free(g_pool);
  return test_summary();
}
