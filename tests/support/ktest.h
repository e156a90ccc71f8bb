/* tests/support/ktest.h — building tensors and EValues for kernel tests.
 *
 * Test-only code (uses malloc). Everything allocated here is recorded in a global list and
 * released by ktest_free_all() (call it at the end of a test, or never: the memory stays
 * reachable, so LeakSanitizer does not complain).
 *
 * Typical use:
 *   int32_t sz[] = {2, 3};
 *   pte_tensor *a = ktest_tensor(PTE_DTYPE_FLOAT, 2, sz, NULL, (double[]){1, 2, 3, 4, 5, 6});
 *   pte_tensor *o = ktest_tensor(PTE_DTYPE_FLOAT, 2, sz, NULL, NULL);
 *   pte_evalue *out = ktest_ev_tensor(o);
 *   pte_evalue *args[] = {ktest_ev_tensor(a), ktest_ev_tensor(a), ktest_ev_int(1), out, out};
 *   CHECK_OK(ktest_run(ktest_find(pte_portable_binary_kernels, n, "aten::add.out"), args, 5));
 *   CHECK(ktest_expect(o, (double[]){2, 4, 6, 8, 10, 12}, 6, 0));
 */
#ifndef PTE_TESTS_SUPPORT_KTEST_H
#define PTE_TESTS_SUPPORT_KTEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pte/allocator.h"
#include "pte/data_loader.h"
#include "pte/evalue.h"
#include "pte/kernel.h"
#include "pte/memory.h"
#include "pte/method.h"
#include "pte/program.h"
#include "pte/status.h"
#include "pte/tensor.h"
#include "pte/writer.h"

/* A tensor with heap data. `dim_order` NULL means contiguous (0..dim-1); strides are computed
 * from sizes + dim_order. `values` (NULL: zeros) are numel doubles in LOGICAL row-major order and
 * are stored converted to dtype at their strided positions. Capacity is exactly numel elements;
 * dynamism STATIC. Returns NULL only on allocation failure. */
pte_tensor *ktest_tensor(int dtype, int32_t dim, const int32_t *sizes, const uint8_t *dim_order,
                         const double *values);
/* Same, with int64 values (exact for large integers). */
pte_tensor *ktest_tensor_i64(int dtype, int32_t dim, const int32_t *sizes,
                             const uint8_t *dim_order, const int64_t *values);
/* A DYNAMIC_BOUND tensor whose data has room for `capacity_elems` elements (sizes are the
 * current sizes; contents zero). */
pte_tensor *ktest_tensor_dyn(int dtype, int32_t dim, const int32_t *sizes, const uint8_t *dim_order,
                             size_t capacity_elems);
/* A tensor whose data is `nbytes` raw bytes copied as-is (memory order). */
pte_tensor *ktest_tensor_raw(int dtype, int32_t dim, const int32_t *sizes,
                             const uint8_t *dim_order, const void *bytes, size_t nbytes);

/* EValues (heap, recorded). */
pte_evalue *ktest_ev_tensor(pte_tensor *t);
pte_evalue *ktest_ev_int(int64_t v);
pte_evalue *ktest_ev_double(double v);
pte_evalue *ktest_ev_bool(bool v);
pte_evalue *ktest_ev_none(void);
/* NUL-terminated string (not copied: pass a literal). */
pte_evalue *ktest_ev_string(const char *s);
/* IntList with boxed Int items and an unboxed scratch array, as the runtime builds it. */
pte_evalue *ktest_ev_int_list(const int64_t *values, size_t n);
pte_evalue *ktest_ev_tensor_list(pte_tensor *const *ts, size_t n);
/* Optional tensor list: NULL entries are None. */
pte_evalue *ktest_ev_opt_tensor_list(pte_tensor *const *ts, size_t n);
pte_evalue *ktest_ev_double_list(const double *values, size_t n);
pte_evalue *ktest_ev_bool_list(const bool *values, size_t n);

/* The fallback (key NULL) kernel named `name` in a table, or NULL. */
pte_op_fn ktest_find(const pte_kernel *table, size_t n, const char *name);
/* True if the table holds exactly the nnames kernels named (a count and a lookup per name);
 * prints what differs otherwise. */
bool ktest_table_is(const pte_kernel *table, size_t n, const char *const *names, size_t nnames);
/* Runs fn with a fresh context (1 MiB temp allocator) and returns ctx.failure. The failure
 * message is kept for ktest_last_msg(). A NULL fn returns PTE_ERR_OPERATOR_MISSING. */
pte_status ktest_run(pte_op_fn fn, pte_evalue **args, size_t nargs);
/* Runs with no temp allocator (ctx.temp == NULL). */
pte_status ktest_run_no_temp(pte_op_fn fn, pte_evalue **args, size_t nargs);
const char *ktest_last_msg(void);

/* Element at logical row-major index li, converted to double / int64. */
double ktest_get(const pte_tensor *t, size_t li);
int64_t ktest_get_i64(const pte_tensor *t, size_t li);
/* True if t has n elements and each equals expected[i] within tol (NaN matches NaN); prints the
 * mismatches to stderr otherwise. */
bool ktest_expect(const pte_tensor *t, const double *expected, size_t n, double tol);
bool ktest_expect_i64(const pte_tensor *t, const int64_t *expected, size_t n);
/* True if t has rank dim and the given sizes (prints otherwise). */
bool ktest_expect_shape(const pte_tensor *t, int32_t dim, const int32_t *sizes);
/* Raw 16-bit pattern of a HALF/BFLOAT16 element at logical index li. */
uint16_t ktest_get_u16(const pte_tensor *t, size_t li);

/* A DYNAMIC_BOUND tensor of rank dim, all sizes 1, contiguous, with room for cap elements: the
 * usual "out" for kernels that resize their output. */
pte_tensor *ktest_dyn(int dtype, int32_t dim, size_t cap);
/* A rank-0 tensor of dtype (value zero): the out of a full reduction. */
pte_tensor *ktest_scalar(int dtype);
/* A 1-D LONG index tensor of n elements. */
pte_tensor *ktest_index1(int32_t n, const double *values);
/* 0, 1, ..., n-1 as doubles in a static buffer (n <= 256; overwritten by the next call). */
double *ktest_iota(size_t n);

/* The dtypes an element-moving kernel must handle: BYTE, CHAR, SHORT, INT, LONG, HALF, FLOAT,
 * DOUBLE, BFLOAT16 (ktest_num_dtypes), and the same plus BOOL (ktest_all_dtypes). */
extern const int ktest_num_dtypes[9];
extern const int ktest_all_dtypes[10];
#define KTEST_N_NUM_DTYPES 9u
#define KTEST_N_ALL_DTYPES 10u

/* Deterministic test data: steps the LCG *seed = *seed * 1664525 + 1013904223 and returns
 * (((*seed >> shift) % levels) - levels / 2) / den, a value on an exact grid. */
double ktest_rnd_grid(uint32_t *seed, unsigned shift, unsigned levels, double den);
/* n values of gen() in a malloc'd array (free() it); never NULL-sized (n == 0 gives 1 slot). */
double *ktest_rnd_array(size_t n, double (*gen)(void));

/* Common dim orders: channels-last 4-D {0, 2, 3, 1}, channels-last 3-D {0, 2, 1} ([N, L, C] in
 * memory), transposed (column-major) 2-D {1, 0}. */
extern const uint8_t ktest_cl4[4];
extern const uint8_t ktest_cl3[3];
extern const uint8_t ktest_t2[2];

/* ---- programs built in memory with the writer (pte/writer.h) -------------------------------- */

/* A one-method ("forward") program under construction. Every call is a no-op once ok is false;
 * err then holds the first failure. */
typedef struct ktest_pb {
  pte_writer *w;
  uint32_t m, chain;
  pte_error_info err;
  bool ok;
} ktest_pb;

/* Creates the writer and the "forward" method. */
bool ktest_pb_begin(ktest_pb *b);
/* A tensor value: a constant holding `nbytes` bytes (memory order) when constant != NULL, else a
 * planned (mem_id 1, auto-placed) one. `order` NULL: contiguous. Returns the value index or -1. */
int32_t ktest_pb_tensor(ktest_pb *b, int dtype, int32_t dim, const int32_t *sizes,
                        const uint8_t *order, const void *constant, size_t nbytes);
int32_t ktest_pb_int(ktest_pb *b, int64_t x);
int32_t ktest_pb_double(ktest_pb *b, double x);
int32_t ktest_pb_bool(ktest_pb *b, bool x);
int32_t ktest_pb_none(ktest_pb *b);
/* An IntList literal of n items. */
int32_t ktest_pb_int_list(ktest_pb *b, const int64_t *items, size_t n);
/* Sets the method inputs and outputs and opens the one chain (inputs -> outputs). */
void ktest_pb_io(ktest_pb *b, const int32_t *inputs, size_t nin, const int32_t *outputs, size_t nout);
/* Appends a kernel call name.overload(args) to the chain. */
void ktest_pb_call(ktest_pb *b, const char *name, const char *overload, const int32_t *args, size_t n);
/* Serializes the program into a 64-byte-aligned malloc'd buffer (free() it; *size its length),
 * destroys the writer; NULL (and *err set) if any step failed. */
uint8_t *ktest_pb_finish(ktest_pb *b, size_t *size, pte_error_info *err);

/* A program held in memory with its "forward" method loaded on one planned buffer (zeroed,
 * sized from the method meta) and a method allocator of pool_bytes. */
typedef struct ktest_method {
  uint8_t *bytes; /* owned: freed by ktest_method_close */
  pte_buffer_loader bl;
  pte_program prog;
  bool prog_loaded;
  pte_method_meta meta;
  uint8_t *arena, *pool;
  pte_allocator ma;
  pte_planned_buffer pb;
  pte_memory_manager mm;
  pte_method *m;
  const char *stage; /* the step that failed: "load", "meta", "arena", "method" */
} ktest_method;

/* Takes ownership of bytes (malloc'd, e.g. from ktest_pb_finish) and loads the program
 * (PTE_VERIFY_INTERNAL_CONSISTENCY) and its "forward" method. On failure returns false with
 * km->stage and err set; call ktest_method_close either way. */
bool ktest_method_open(ktest_method *km, uint8_t *bytes, size_t size, size_t pool_bytes,
                       pte_error_info *err);
void ktest_method_close(ktest_method *km);

/* Releases everything allocated by ktest_*. */
void ktest_free_all(void);

#endif
