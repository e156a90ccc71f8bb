/* kernels/portable/util/kutil.h — shared helpers for the portable kernels.
 *
 * Internal (not installed) header used by every kernels/portable/op_*.c file:
 *   - element load/store of any supported dtype as double or int64 (half/bfloat16 conversion with
 *     round-to-nearest-even, bool as 0/1),
 *   - ATen type promotion (promoteTypes, scalar-with-tensor result type, canCast),
 *   - broadcasting shape computation,
 *   - a strided N-d iterator over up to PTE_K_ITER_MAX_OPS tensors that honours every tensor's
 *     strides (so any dim_order works) and broadcasting,
 *   - argument helpers that check EValue tags and report failures through pte_kernel_fail().
 *
 * Nothing here allocates or uses stdio.
 */
#ifndef PTE_KERNELS_PORTABLE_UTIL_KUTIL_H
#define PTE_KERNELS_PORTABLE_UTIL_KUTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pte/evalue.h"
#include "pte/kernel.h"
#include "pte/status.h"
#include "pte/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------------------------ */
/* dtypes                                                                                       */

/* Marker returned by the promotion helpers for an unsupported combination. */
#define PTE_K_DTYPE_INVALID (-1)

/* True for the ten dtypes the portable kernels compute with: BYTE, CHAR, SHORT, INT, LONG, HALF,
 * FLOAT, DOUBLE, BOOL, BFLOAT16. */
bool pte_k_dtype_supported(int dtype);
/* True for HALF, FLOAT, DOUBLE, BFLOAT16. */
bool pte_k_is_floating(int dtype);
/* True for BYTE, CHAR, SHORT, INT, LONG (bool is not integral here). */
bool pte_k_is_integral(int dtype);

/* ATen promoteTypes(a, b) over the supported dtypes: bool < integral < floating; within a
 * category the wider type wins; uint8 with int8 gives int16; half with bfloat16 gives float32.
 * Returns PTE_K_DTYPE_INVALID if either dtype is unsupported. */
int pte_k_promote(int a, int b);

/* dtype ATen gives a Scalar EValue on its own: Bool->BOOL, Int->LONG, Double->DOUBLE;
 * PTE_K_DTYPE_INVALID for other tags. */
int pte_k_scalar_dtype(const pte_evalue *scalar);

/* Result type of (tensor of dtype t) op (Scalar s): the scalar only raises the category.
 * Bool tensor + Int scalar -> LONG; bool/integral tensor + Double scalar -> FLOAT (default
 * dtype); otherwise t. Returns PTE_K_DTYPE_INVALID for an unsupported t or a non-scalar s. */
int pte_k_promote_scalar(int t, const pte_evalue *s);
/* Same, with the scalar's category given by a dtype (BOOL / LONG / DOUBLE-like). */
int pte_k_promote_scalar_dtype(int t, int scalar_dtype);

/* ATen canCast(from, to): false for floating -> integral/bool and integral -> bool. */
bool pte_k_can_cast(int from, int to);

/* ------------------------------------------------------------------------------------------ */
/* half / bfloat16                                                                              */

/* IEEE binary16 bits -> float (exact). */
float pte_k_half_to_float(uint16_t h);
/* float -> binary16 bits, round-to-nearest-even; overflow gives +-inf, NaN stays NaN. */
uint16_t pte_k_float_to_half(float f);
/* bfloat16 bits -> float (exact). */
float pte_k_bf16_to_float(uint16_t b);
/* float -> bfloat16 bits, round-to-nearest-even; NaN stays (quiet) NaN. */
uint16_t pte_k_float_to_bf16(float f);

/* ------------------------------------------------------------------------------------------ */
/* element access: `data` is the tensor base pointer, `i` an element offset (may be computed from
 * strides). dtype must satisfy pte_k_dtype_supported (others read as 0 / are not written).   */

/* Loads element i as double. Bool reads as 0/1, half/bf16 are widened exactly. */
double pte_k_load_double(const void *data, int dtype, int64_t i);
/* Loads element i as int64. Floating values are truncated toward zero (NaN -> 0, values out of
 * int64 range saturate). */
int64_t pte_k_load_int64(const void *data, int dtype, int64_t i);
/* Stores v into element i converted to dtype: floating targets round (half/bf16 via float with
 * round-to-nearest-even, as ATen's float->half); integral targets truncate toward zero, then wrap
 * to the width (NaN -> 0, out of int64 range -> INT64_MIN, as x86); bool stores v != 0. */
void pte_k_store_double(void *data, int dtype, int64_t i, double v);
/* Stores v into element i converted to dtype: integral targets wrap to the width (two's
 * complement), floating targets round, bool stores v != 0. */
void pte_k_store_int64(void *data, int dtype, int64_t i, int64_t v);

/* The int64 with the bits of u (two's complement wrap) without implementation-defined
 * conversion: integer arithmetic done in uint64 wraps as ATen's int64 does. */
static inline int64_t pte_k_wrap_u64(uint64_t u) {
  return u <= (uint64_t)INT64_MAX ? (int64_t)u : -(int64_t)(~u) - 1;
}
/* Converts a double to int64 the way pte_k_load_int64 does (truncate, NaN -> 0, saturate). */
int64_t pte_k_double_to_int64(double v);
/* Rounds a double through dtype (e.g. to float32 or half precision) and back; integral/bool
 * dtypes convert as pte_k_store_double would. Handy for "compute then cast" semantics. */
double pte_k_round_to_dtype(double v, int dtype);

/* ------------------------------------------------------------------------------------------ */
/* shapes                                                                                       */

/* Broadcasts two shapes (numpy rules, right-aligned; a dimension of size 1 stretches).
 * Writes max(adim, bdim) sizes to out and the rank to *out_dim. Returns PTE_ERR_INVALID_ARGUMENT
 * if the shapes are incompatible or the rank exceeds PTE_MAX_RANK. */
pte_status pte_k_broadcast_sizes(const int32_t *a, int32_t adim, const int32_t *b, int32_t bdim,
                                 int32_t *out, int32_t *out_dim);
/* Broadcast shape of two tensors (see pte_k_broadcast_sizes). */
pte_status pte_k_broadcast_shape(const pte_tensor *a, const pte_tensor *b, int32_t *out,
                                 int32_t *out_dim);
/* True if t can be broadcast to sizes[0..dim) (each of t's dims, right-aligned, is 1 or equal). */
bool pte_k_broadcastable_to(const pte_tensor *t, const int32_t *sizes, int32_t dim);
/* True if a and b have the same rank and sizes. */
bool pte_k_same_shape(const pte_tensor *a, const pte_tensor *b);
/* True if a and b have the same rank and dim_order. */
bool pte_k_same_dim_order(const pte_tensor *a, const pte_tensor *b);
/* True if t's elements are densely packed in its dim_order (strides match sizes + dim_order).
 * Such a tensor can be walked linearly in memory order. */
bool pte_k_is_dense(const pte_tensor *t);
/* True if t is dense and its dim_order is 0..dim-1 (row-major). */
bool pte_k_is_contiguous(const pte_tensor *t);
/* Element offset of the element with logical (row-major) linear index `li` in t, honouring t's
 * strides. */
int64_t pte_k_offset_of_linear(const pte_tensor *t, size_t li);
/* Element offset of the element at coordinates idx[0..t->dim). */
int64_t pte_k_offset_of_index(const pte_tensor *t, const int64_t *idx);

/* ------------------------------------------------------------------------------------------ */
/* strided N-d iterator                                                                         */

#define PTE_K_ITER_MAX_OPS 4

/* Walks every element of an output shape, keeping for each operand the element offset of the
 * corresponding (broadcast) element. Dimensions are reordered to follow operand 0's memory order
 * and coalesced where every operand allows it, so the walk is a sequence of "runs": `inner`
 * elements long, operand k stepping by istride[k] elements within a run.
 *
 *   pte_k_iter it;
 *   if (pte_k_iter_init(&it, out->sizes, out->dim, ops, nops)) {
 *     do {
 *       for (int64_t j = 0; j < it.inner; j++) {
 *         ... element (it.off[k] + j * it.istride[k]) of operand k ...
 *       }
 *     } while (pte_k_iter_next(&it));
 *   }
 *
 * Each operand must be broadcastable to the shape (check first); a broadcast dimension gets
 * stride 0. The order of visiting is unspecified (fine for elementwise ops). */
typedef struct pte_k_iter {
  int32_t ndim;                                 /* outer dims after coalescing (run excluded) */
  int nops;
  int64_t inner;                                /* run length (>= 1) */
  int64_t istride[PTE_K_ITER_MAX_OPS];          /* per-operand stride within a run */
  int64_t off[PTE_K_ITER_MAX_OPS];              /* per-operand element offset of the run start */
  int64_t shape[PTE_MAX_RANK];                  /* outer dims, innermost last */
  int64_t stride[PTE_K_ITER_MAX_OPS][PTE_MAX_RANK];
  int64_t counter[PTE_MAX_RANK];
} pte_k_iter;

/* Prepares the walk. ops[k] may not be NULL. Returns false when there is nothing to visit
 * (some size is 0) or nops is out of range. A rank-0 shape visits one element. */
bool pte_k_iter_init(pte_k_iter *it, const int32_t *sizes, int32_t dim, const pte_tensor *const *ops,
                     int nops);
/* Moves to the next run; false when the walk is complete. */
bool pte_k_iter_next(pte_k_iter *it);

/* ------------------------------------------------------------------------------------------ */
/* argument helpers: on a problem they call pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, ...)
 * naming the argument index, and return NULL / false.                                         */

/* Checks min_n <= nargs <= max_n. */
bool pte_k_check_nargs(pte_kernel_context *ctx, size_t nargs, size_t min_n, size_t max_n);
/* args[i] as a tensor (tag TENSOR, non-NULL tensor). */
pte_tensor *pte_k_arg_tensor(pte_kernel_context *ctx, pte_evalue **args, size_t nargs, size_t i);
/* args[i] as a tensor or NULL for None; *ok false (and failure recorded) for any other tag. */
pte_tensor *pte_k_arg_opt_tensor(pte_kernel_context *ctx, pte_evalue **args, size_t nargs,
                                 size_t i, bool *ok);
/* True if args[i] is None (or a NULL pointer). */
bool pte_k_arg_is_none(pte_evalue **args, size_t nargs, size_t i);
/* args[i] (Int/Double/Bool) as double. */
bool pte_k_arg_double(pte_kernel_context *ctx, pte_evalue **args, size_t nargs, size_t i,
                      double *out);
/* args[i] (Int/Bool; a Double only if it is integral) as int64. */
bool pte_k_arg_int(pte_kernel_context *ctx, pte_evalue **args, size_t nargs, size_t i,
                   int64_t *out);
/* args[i] (Bool, or Int 0/1) as bool. */
bool pte_k_arg_bool(pte_kernel_context *ctx, pte_evalue **args, size_t nargs, size_t i, bool *out);
/* args[i] as an IntList (current values; length in *len). */
const int64_t *pte_k_arg_int_list(pte_kernel_context *ctx, pte_evalue **args, size_t nargs,
                                  size_t i, size_t *len);
/* args[i] as a string (pointer + length); NULL for None when allow_none (then *len = 0). */
const char *pte_k_arg_string(pte_kernel_context *ctx, pte_evalue **args, size_t nargs, size_t i,
                             size_t *len, bool allow_none, bool *ok);
/* True if a string argument equals the NUL-terminated s. */
bool pte_k_str_eq(const char *p, size_t len, const char *s);
/* True if args[i] is an Int/Double/Bool scalar. */
bool pte_k_arg_is_scalar(pte_evalue **args, size_t nargs, size_t i);

/* Resizes out to sizes[0..dim); on failure records PTE_ERR_INVALID_ARGUMENT ("cannot resize
 * out") and returns false. Also fails if out has data == NULL while holding elements. */
bool pte_k_resize_out(pte_kernel_context *ctx, pte_tensor *out, const int32_t *sizes, int32_t dim);
/* Resizes out to t's shape (see pte_k_resize_out). */
bool pte_k_resize_like(pte_kernel_context *ctx, pte_tensor *out, const pte_tensor *t);
/* Fails (InvalidArgument) if a tensor with elements has no data. */
bool pte_k_check_data(pte_kernel_context *ctx, const pte_tensor *t, const char *what);
/* Fails (InvalidArgument) unless dtype is supported. */
bool pte_k_check_dtype(pte_kernel_context *ctx, int dtype, const char *what);

/* Fails (InvalidArgument) unless out has in's dtype ("out dtype X differs from <what> dtype Y"),
 * then unless that dtype is one the caller can handle: any dtype with a known element size when
 * any_sized (pure element moves), else a pte_k_dtype_supported one. `op` (may be NULL) prefixes
 * the message as "op: ". */
bool pte_k_check_out_dtype(pte_kernel_context *ctx, const char *op, const char *what,
                           const pte_tensor *in, const pte_tensor *out, bool any_sized);

/* Failure shorthands for kernel code with a `pte_kernel_context *ctx` in scope: record the
 * failure and return from a void op function (PTE_K_FAIL / PTE_K_BAD) or return false from a bool
 * helper (PTE_K_BAD_FALSE). PTE_K_BAD and PTE_K_BAD_FALSE use PTE_ERR_INVALID_ARGUMENT. */
#define PTE_K_FAIL(status, ...)                    \
  do {                                             \
    pte_kernel_fail(ctx, (status), __VA_ARGS__);   \
    return;                                        \
  } while (0)
#define PTE_K_BAD(...) PTE_K_FAIL(PTE_ERR_INVALID_ARGUMENT, __VA_ARGS__)
#define PTE_K_BAD_FALSE(...)                                     \
  do {                                                           \
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, __VA_ARGS__); \
    return false;                                                \
  } while (0)

/* Copies the out EValue args[out_idx] into the trailing return slot args[nargs-1] when that
 * slot exists (nargs > out_idx + 1) and is a different EValue. */
void pte_k_set_return(pte_evalue **args, size_t nargs, size_t out_idx);

#ifdef __cplusplus
}
#endif
#endif
