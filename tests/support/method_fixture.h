/* tests/support/method_fixture.h — hand-built programs for the method tests (test_method.c,
 * test_method_hooks.c): a description of values, instructions, plans and delegates, built with
 * the project's flatbuffer builder so each case states exactly what the file contains; a loaded
 * fixture (g_fx) with memory for its first method; test kernels (test::add1, fail, inc, temp, nop). */
#ifndef PTE_TESTS_METHOD_FIXTURE_H
#define PTE_TESTS_METHOD_FIXTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pte/data_loader.h"
#include "pte/kernel.h"
#include "pte/method.h"
#include "pte/program.h"

enum { KT_NULL = 1, KT_INT, KT_BOOL, KT_DOUBLE, KT_TENSOR, KT_STRING, KT_INT_LIST, KT_DOUBLE_LIST, KT_BOOL_LIST,
       KT_TENSOR_LIST, KT_OPT_TENSOR_LIST };
enum { I_KERNEL = 1, I_DELEGATE, I_MOVE, I_JF, I_FREE };

typedef struct tval {
  int kind;
  int64_t i;
  double d;
  const char *s;
  /* tensor */
  int dtype, dim;
  int32_t sizes[4];
  uint8_t order[4];
  int dyn;
  uint32_t dbi;
  int mem_id; /* -1: no allocation_info */
  uint32_t off_lo, off_hi;
  int32_t storage_offset;
  const char *fqn; /* EXTERNAL */
  /* lists */
  const void *items;
  size_t n;
} tval;

typedef struct tinstr {
  int kind;
  int a, b; /* kernel: op; delegate: index; move: from,to; jf: cond,dest; free: value */
  const int32_t *args;
  size_t nargs;
} tinstr;

typedef struct tdel {
  const char *id;
  int loc; /* 0 INLINE, 1 SEGMENT */
  uint32_t index;
  const char *spec_key;
  const char *spec_val;
} tdel;

typedef struct tplan {
  const char *name;
  const tval *vals;
  size_t nv;
  const int32_t *inputs;
  size_t ni;
  const int32_t *outputs;
  size_t no;
  const tinstr *ins;
  size_t nins;
  const char *const *ops; /* name, overload pairs */
  size_t nops;
  const int64_t *ncbs;
  size_t nncbs;
  const tdel *dels;
  size_t ndels;
  bool no_chains, no_delegates_field;
  int n_chains; /* 0 = 1; >1 duplicates the instruction list into each chain */
} tplan;

typedef struct tprog {
  const tplan *plans;
  size_t nplans;
  const void *const *consts; /* constant_buffer[i] (index 0 should be empty) */
  const size_t *const_sizes;
  size_t nconsts;
  const void *const *inline_blobs; /* backend_delegate_data */
  const size_t *blob_sizes;
  size_t nblobs;
} tprog;

/* A built + loaded program with memory for its first method. */
typedef struct fx {
  uint8_t *bytes;
  size_t size;
  pte_buffer_loader bl;
  pte_program prog;
  bool prog_ok;
  uint8_t pool[256 * 1024];
  _Alignas(64) uint8_t planned_mem[2][4096];
  uint8_t temp_mem[16 * 1024];
  pte_allocator ma, temp;
  pte_planned_buffer planned[2];
  pte_memory_manager mm;
  pte_method *m;
  pte_error_info err;
} fx;

extern fx g_fx;
/* Builds and loads the program (verification `v`), sets up memory; no method yet. */
bool fx_prog(const tprog *tp, pte_verification v);
/* fx_prog, then loads the first plan's method (options o, may be NULL). */
pte_status fx_load_ex(const tprog *tp, pte_verification v, const pte_method_options *o);
pte_status fx_load(const tprog *tp);
void fx_done(void);

/* Point (ptr, cnt) at a static array (static: the plan outlives the statement's block). */
#define SETA(ptr, cnt, ...)                                      \
  do {                                                           \
    static const int32_t a_[] = {__VA_ARGS__};                   \
    (ptr) = a_;                                                  \
    (cnt) = sizeof a_ / sizeof a_[0];                            \
  } while (0)
#define SETL(ptr, cnt, ...)                                      \
  do {                                                           \
    static const int64_t l_[] = {__VA_ARGS__};                   \
    (ptr) = l_;                                                  \
    (cnt) = sizeof l_ / sizeof l_[0];                            \
  } while (0)

/* Tensor value helpers. */
static inline tval T1(int dtype, int32_t n, int mem_id, uint32_t off) {
  tval v = {0};
  v.kind = KT_TENSOR;
  v.dtype = dtype;
  v.dim = 1;
  v.sizes[0] = n;
  v.mem_id = mem_id;
  v.off_lo = off;
  return v;
}
static inline tval VI(int64_t i) { tval v = {0}; v.kind = KT_INT; v.i = i; v.mem_id = -1; return v; }
static inline tval VB(bool b) { tval v = {0}; v.kind = KT_BOOL; v.i = b; v.mem_id = -1; return v; }
static inline tval VD(double d) { tval v = {0}; v.kind = KT_DOUBLE; v.d = d; v.mem_id = -1; return v; }
static inline tval VS(const char *s) { tval v = {0}; v.kind = KT_STRING; v.s = s; v.mem_id = -1; return v; }
static inline tval VN(void) { tval v = {0}; v.kind = KT_NULL; v.mem_id = -1; return v; }
static inline tval VL(int kind, const void *items, size_t n) { tval v = {0}; v.kind = kind; v.items = items; v.n = n; v.mem_id = -1; return v; }

static inline float *fdata(const pte_evalue *v) { return (float *)v->u.tensor->data; }

/* Test kernels: test::add1.out (x + 1; a keyed variant for float[1-D] adds 100), test::fail.out,
 * test::inc, test::temp, test::nop. register_test_kernels registers the fallbacks globally once. */
extern int g_kcalls;
extern size_t g_temp_seen_used;
extern bool g_temp_seen;
extern const pte_kernel k_test_kernels[];
extern const size_t k_n_test_kernels;
#define N_TEST_KERNELS k_n_test_kernels
void register_test_kernels(void);

/* counter INT[1] @0, cond BOOL[1] @16, limit Int, false Bool.
 * 0: test::inc(counter, cond, limit)   1: JF(cond -> 3)   2: JF(false -> 0)   (3 = end) */
tprog loop_prog(tplan *p, tval *v, tinstr *in, int64_t limit);

#endif
