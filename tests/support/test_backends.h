/* tests/support/test_backends.h — delegate backends and hand-built delegate programs shared by
 * tests and benches (test-only code: uses malloc and stdio).
 *
 * Three backends, registered by test_backends_register():
 *   "TestCounting"   counts init/execute/destroy. init() "packs" its whole blob (copies it into
 *                    memory from the runtime allocator while checksumming it: work proportional
 *                    to the blob) and frees the processed buffer early. execute() is stateless:
 *                    it reads its arguments every call: out = in * scale + bias (float tensors).
 *                    Safe to share across call sites.
 *   "TestScratch"    needs planned scratch (ctx->scratch[0]): execute() writes in * scale into
 *                    the scratch region, then out = scratch + bias. Records the regions it saw.
 *   "TestCachedArgs" binds the argument data pointers of its FIRST execute to the handle and
 *                    reuses them afterwards (like a backend that pre-binds I/O): it must never be
 *                    shared. init() refuses n_calls > 1 (PTE_ERR_NOT_SUPPORTED) unless
 *                    test_cached_args_guard is false (to show what sharing would break).
 *
 * Blobs (test_blob_new): a 16-byte header {"TBLB", float scale, float bias, u32 payload bytes}
 * followed by `payload` pattern bytes.
 *
 * Programs (test_dprog_build): a method "forward" whose values are n_calls + 1 float[numel]
 * tensors, all planned in buffer 1 (value k at offset k * stride, stride = numel * 4 rounded up
 * to 16). Input: value 0; output: value n_calls. DelegateCall k reads value k and writes value
 * k + 1, using delegate call_delegate[k]; calls go to chain call_chain[k] (NULL: chain 0) in
 * order. Blobs are Program.backend_delegate_data entries (INLINE).
 */
#ifndef PTE_TESTS_SUPPORT_TEST_BACKENDS_H
#define PTE_TESTS_SUPPORT_TEST_BACKENDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pte/backend.h"
#include "pte/data_loader.h"
#include "pte/memory.h"
#include "pte/method.h"
#include "pte/program.h"

#define TEST_BACKEND_COUNTING "TestCounting"
#define TEST_BACKEND_SCRATCH "TestScratch"
#define TEST_BACKEND_CACHED_ARGS "TestCachedArgs"

typedef struct test_backend_stats {
  int inits, executes, destroys;
  int early_frees;                 /* inits that released the processed blob early */
  size_t live_handles;
  uint64_t handle_bytes;           /* bytes allocated for live handles */
  uint64_t handle_bytes_peak;
  uint64_t handle_bytes_total;     /* allocated by every init since the last reset */
  size_t last_n_calls;             /* ctx->n_calls of the last init */
  bool last_share_handle;
  uint32_t last_delegate_index;    /* of the last init */
  pte_delegate_scratch init_scratch[4]; /* ctx->scratch of the last init (copied) */
  size_t init_n_scratch;
  pte_delegate_scratch exec_scratch[4]; /* ctx->scratch of the last execute (copied) */
  size_t exec_n_scratch;
  const void *last_handle;         /* handle used by the last execute */
} test_backend_stats;

extern test_backend_stats test_counting_stats, test_scratch_stats, test_cached_args_stats;
extern const pte_backend test_counting_backend, test_scratch_backend, test_cached_args_backend;
extern bool test_cached_args_guard; /* default true */

/* Registers the three backends (already registered with these tables: OK). */
pte_status test_backends_register(void);
/* Zeroes the three stats and restores test_cached_args_guard. */
void test_backends_reset_stats(void);
/* A fresh registry: empties it, zeroes the stats, registers the three backends (a failure is
 * printed; the test then fails on the missing backend). */
void test_backends_setup(void);

/* A blob for the test backends (malloc; free()). */
uint8_t *test_blob_new(float scale, float bias, size_t payload, size_t *size);

/* ---- hand-built delegate programs ------------------------------------------------------------ */

typedef struct test_dscratch {
  uint32_t mem_id;
  uint64_t offset, size;
} test_dscratch;

typedef struct test_ddelegate {
  const char *id;
  uint32_t blob;               /* backend_delegate_data index */
  const test_dscratch *scratch;
  size_t n_scratch;
  bool write_scratch;          /* write the scratch field even when n_scratch == 0 (empty vector) */
  bool share_handle;           /* written only when true (false is the default) */
} test_ddelegate;

typedef struct test_dprog {
  int32_t numel;                  /* elements of every float tensor (>= 1) */
  size_t n_calls;
  const int32_t *call_delegate;   /* [n_calls] */
  const uint32_t *call_chain;     /* [n_calls] or NULL */
  const test_ddelegate *delegates;
  size_t n_delegates;
  const void *const *blobs;       /* backend_delegate_data */
  const size_t *blob_sizes;
  size_t n_blobs;
  uint64_t extra_planned;         /* bytes after the tensors in buffer 1 (room for scratch) */
  const int64_t *ncbs;            /* non_const_buffer_sizes override (NULL: [0, tensors + extra]) */
  size_t n_ncbs;
} test_dprog;

/* Bytes of buffer 1 used by the tensors (= offset where extra_planned starts). */
uint64_t test_dprog_tensor_bytes(const test_dprog *p);
/* Builds the program into 64-aligned heap memory (free()); NULL on failure. */
uint8_t *test_dprog_build(const test_dprog *p, size_t *size);

/* The same method written by the pte writer (pte/writer.h) from lowered modules: call k calls
 * module call_module[k] through pte_writer_call_module (the writer decides how many
 * BackendDelegates to emit). Tensors are placed explicitly exactly as in test_dprog, so
 * test_dprog_tensor_bytes() applies; blobs are added with pte_writer_add_blob (stored once) and
 * written to segments unless keep_inline. */
typedef struct test_wmodule {
  const char *id;
  uint32_t blob;                /* index into test_wprog.blobs */
  bool share_handle;
  const test_dscratch *scratch;
  size_t n_scratch;
} test_wmodule;

typedef struct test_wprog {
  int32_t numel;
  size_t n_calls;
  const uint32_t *call_module;  /* [n_calls] */
  const test_wmodule *modules;
  size_t n_modules;
  const void *const *blobs;
  const size_t *blob_sizes;
  size_t n_blobs;
  bool keep_inline;
} test_wprog;

/* Builds and writes the program into 64-aligned heap memory (free()); NULL on failure (message in
 * *err). */
uint8_t *test_wprog_build(const test_wprog *p, size_t *size, pte_error_info *err);

/* A loaded program + method with heap memory (method allocator pool of pool_size bytes,
 * calloc'd so untouched pages cost nothing; planned buffers sized from the method meta). */
typedef struct test_dmethod {
  pte_buffer_loader bl;
  pte_program prog;
  bool prog_ok;
  uint8_t *pool;
  pte_allocator ma;
  uint8_t *temp_mem;
  pte_allocator temp;
  uint8_t *planned_mem[4];
  pte_planned_buffer planned[4];
  size_t n_planned;
  pte_memory_manager mm;
  pte_method *m;
  pte_error_info err;
} test_dmethod;

/* Loads program bytes (must outlive t) and method "forward". On failure the status is returned,
 * the message is in t->err and t->m is NULL (call test_dmethod_free anyway). */
pte_status test_dmethod_load(test_dmethod *t, const uint8_t *bytes, size_t size, size_t pool_size,
                             const pte_method_options *opts);
/* Same with the program verification level (test_dmethod_load: PTE_VERIFY_INTERNAL_CONSISTENCY). */
pte_status test_dmethod_load_v(test_dmethod *t, const uint8_t *bytes, size_t size, size_t pool_size,
                               const pte_method_options *opts, pte_verification verification);
/* Sets input 0 to x[numel], executes, copies output 0 into out[numel]. */
pte_status test_dmethod_run(test_dmethod *t, const float *x, int32_t numel, float *out);
void test_dmethod_free(test_dmethod *t);

#endif
