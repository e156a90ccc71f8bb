/* pte/tensor.h — dtypes and the runtime tensor.
 *
 * A pte_tensor describes memory it does not own: sizes/dim_order/strides point either into the
 * program's flatbuffer (static tensors) or into the method allocator, and data points into a
 * planned buffer, a constant segment, or caller memory. Dimension order (dim_order) is the
 * ExecuTorch one: dim_order[0] is the outermost dimension in memory, so [0,1,2,3] is contiguous
 * NCHW and [0,2,3,1] is channels-last.
 */
#ifndef PTE_TENSOR_H
#define PTE_TENSOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pte/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ScalarType, numbered as upstream (schema/scalar_type.fbs + the runtime's own enum). */
typedef enum pte_dtype {
  PTE_DTYPE_BYTE = 0,   /* uint8 */
  PTE_DTYPE_CHAR = 1,   /* int8 */
  PTE_DTYPE_SHORT = 2,  /* int16 */
  PTE_DTYPE_INT = 3,    /* int32 */
  PTE_DTYPE_LONG = 4,   /* int64 */
  PTE_DTYPE_HALF = 5,   /* float16 */
  PTE_DTYPE_FLOAT = 6,  /* float32 */
  PTE_DTYPE_DOUBLE = 7, /* float64 */
  PTE_DTYPE_COMPLEX_HALF = 8,
  PTE_DTYPE_COMPLEX_FLOAT = 9,
  PTE_DTYPE_COMPLEX_DOUBLE = 10,
  PTE_DTYPE_BOOL = 11,
  PTE_DTYPE_QINT8 = 12,
  PTE_DTYPE_QUINT8 = 13,
  PTE_DTYPE_QINT32 = 14,
  PTE_DTYPE_BFLOAT16 = 15,
  PTE_DTYPE_QUINT4X2 = 16,
  PTE_DTYPE_QUINT2X4 = 17,
  PTE_DTYPE_BITS1X8 = 18,
  PTE_DTYPE_BITS2X4 = 19,
  PTE_DTYPE_BITS4X2 = 20,
  PTE_DTYPE_BITS8 = 21,
  PTE_DTYPE_BITS16 = 22,
  PTE_DTYPE_FLOAT8E5M2 = 23,
  PTE_DTYPE_FLOAT8E4M3FN = 24,
  PTE_DTYPE_FLOAT8E5M2FNUZ = 25,
  PTE_DTYPE_FLOAT8E4M3FNUZ = 26,
  PTE_DTYPE_UINT16 = 27,
  PTE_DTYPE_UINT32 = 28,
  PTE_DTYPE_UINT64 = 29,
  PTE_DTYPE_NUM = 30
} pte_dtype;

/* Element size in bytes (0 for values outside 0..29). */
size_t pte_dtype_size(int dtype);
/* Lower-case name ("float32", "int64", "bool", ...) or "invalid". */
const char *pte_dtype_name(int dtype);
/* Upstream ScalarType name ("FLOAT", "LONG", ...) or "INVALID". */
const char *pte_dtype_upstream_name(int dtype);
bool pte_dtype_valid(int dtype);

typedef enum pte_shape_dynamism {
  PTE_SHAPE_STATIC = 0,
  PTE_SHAPE_DYNAMIC_BOUND = 1,
  PTE_SHAPE_DYNAMIC_UNBOUND = 2
} pte_shape_dynamism;

#define PTE_MAX_RANK 16

typedef struct pte_tensor {
  void *data;               /* NULL until planned/constant/set by the caller */
  int32_t *sizes;           /* [dim]; writable for dynamic tensors, may point into the program */
  const uint8_t *dim_order; /* [dim], a permutation of 0..dim-1 */
  int32_t *strides;         /* [dim], in elements, derived from sizes + dim_order */
  size_t numel;             /* current element count */
  size_t capacity_bytes;    /* bytes available at data (upper bound for DYNAMIC_BOUND) */
  int32_t dim;
  uint8_t dtype;     /* pte_dtype */
  uint8_t dynamism;  /* pte_shape_dynamism */
  uint8_t flags;     /* PTE_TENSOR_* */
  uint8_t reserved;
} pte_tensor;

#define PTE_TENSOR_CONST 0x01   /* data is read-only program data */
#define PTE_TENSOR_PLANNED 0x02 /* data lives in a memory-planned buffer */

/* Current size in bytes: numel * element size. */
static inline size_t pte_tensor_nbytes(const pte_tensor *t) {
  return t->numel * pte_dtype_size(t->dtype);
}

/* Computes strides from sizes and dim_order (innermost stride 1; a zero-size dimension passes
 * its stride through). Returns PTE_ERR_INVALID_ARGUMENT if dim_order is not a permutation. */
pte_status pte_strides_from_dim_order(const int32_t *sizes, const uint8_t *dim_order, int32_t dim,
                                      int32_t *strides_out);
/* True when dim_order is a permutation of 0..dim-1. */
bool pte_dim_order_valid(const uint8_t *dim_order, int32_t dim);
/* True when dim_order is 0,1,...,dim-1. */
bool pte_dim_order_is_contiguous(const uint8_t *dim_order, int32_t dim);
/* True when dim_order is channels-last (dim 4: 0,2,3,1; dim 5: 0,2,3,4,1). */
bool pte_dim_order_is_channels_last(const uint8_t *dim_order, int32_t dim);

/* numel of sizes[0..dim) into *out; PTE_ERR_INVALID_ARGUMENT on a negative size or overflow. */
pte_status pte_numel(const int32_t *sizes, int32_t dim, size_t *out);

/* Resizes t to new_sizes (same rank). STATIC tensors only accept their current sizes;
 * DYNAMIC_BOUND tensors accept any sizes whose byte size fits capacity_bytes. Recomputes strides
 * and numel. Errors: PTE_ERR_NOT_SUPPORTED (static mismatch / unbound), PTE_ERR_INVALID_ARGUMENT
 * (rank mismatch, negative size, too large). */
pte_status pte_tensor_resize(pte_tensor *t, const int32_t *new_sizes, int32_t new_dim);

#ifdef __cplusplus
}
#endif
#endif
