/* dtype tables, dim_order/stride math, resize. */
#include "pte/tensor.h"

static const uint8_t k_sizes[PTE_DTYPE_NUM] = {
    1, 1, 2, 4, 8, 2, 4, 8, /* 0..7 */
    4, 8, 16,               /* complex half/float/double */
    1, 1, 1, 4, 2,          /* bool qint8 quint8 qint32 bfloat16 */
    1, 1, 1, 1, 1, 1,       /* quint4x2 quint2x4 bits1x8 bits2x4 bits4x2 bits8 */
    2, 1, 1, 1, 1,          /* bits16 float8 x4 */
    2, 4, 8};               /* uint16 uint32 uint64 */

static const char *const k_names[PTE_DTYPE_NUM] = {
    "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64",
    "complex32", "complex64", "complex128", "bool", "qint8", "quint8", "qint32", "bfloat16",
    "quint4x2", "quint2x4", "bits1x8", "bits2x4", "bits4x2", "bits8", "bits16",
    "float8_e5m2", "float8_e4m3fn", "float8_e5m2fnuz", "float8_e4m3fnuz", "uint16", "uint32", "uint64"};

static const char *const k_upstream[PTE_DTYPE_NUM] = {
    "BYTE", "CHAR", "SHORT", "INT", "LONG", "HALF", "FLOAT", "DOUBLE",
    "COMPLEX32", "COMPLEX64", "COMPLEX128", "BOOL", "QINT8", "QUINT8", "QINT32", "BFLOAT16",
    "QUINT4X2", "QUINT2X4", "BITS1X8", "BITS2X4", "BITS4X2", "BITS8", "BITS16",
    "FLOAT8E5M2", "FLOAT8E4M3FN", "FLOAT8E5M2FNUZ", "FLOAT8E4M3FNUZ", "UINT16", "UINT32", "UINT64"};

bool pte_dtype_valid(int dtype) { return dtype >= 0 && dtype < PTE_DTYPE_NUM; }
size_t pte_dtype_size(int dtype) { return pte_dtype_valid(dtype) ? k_sizes[dtype] : 0; }
const char *pte_dtype_name(int dtype) { return pte_dtype_valid(dtype) ? k_names[dtype] : "invalid"; }
const char *pte_dtype_upstream_name(int dtype) {
  return pte_dtype_valid(dtype) ? k_upstream[dtype] : "INVALID";
}

bool pte_dim_order_valid(const uint8_t *dim_order, int32_t dim) {
  if (dim < 0 || dim > PTE_MAX_RANK) return false;
  if (dim > 0 && !dim_order) return false;
  uint32_t seen = 0;
  for (int32_t i = 0; i < dim; i++) {
    if (dim_order[i] >= dim || (seen & (1u << dim_order[i]))) return false;
    seen |= 1u << dim_order[i];
  }
  return true;
}

bool pte_dim_order_is_contiguous(const uint8_t *dim_order, int32_t dim) {
  for (int32_t i = 0; i < dim; i++)
    if (dim_order[i] != i) return false;
  return true;
}

bool pte_dim_order_is_channels_last(const uint8_t *dim_order, int32_t dim) {
  if (dim != 4 && dim != 5) return false;
  if (dim_order[0] != 0 || dim_order[dim - 1] != 1) return false;
  for (int32_t i = 1; i < dim - 1; i++)
    if (dim_order[i] != i + 1) return false;
  return true;
}

pte_status pte_strides_from_dim_order(const int32_t *sizes, const uint8_t *dim_order, int32_t dim,
                                      int32_t *strides) {
  if (!pte_dim_order_valid(dim_order, dim)) return PTE_ERR_INVALID_ARGUMENT;
  if (dim == 0) return PTE_OK;
  int64_t s = 1;
  strides[dim_order[dim - 1]] = 1;
  for (int32_t i = dim - 2; i >= 0; i--) {
    int32_t inner = dim_order[i + 1];
    int64_t sz = sizes[inner];
    if (sz < 0) return PTE_ERR_INVALID_ARGUMENT;
    if (sz != 0) s *= sz; /* a zero-size dim passes its stride through */
    if (s > INT32_MAX) return PTE_ERR_INVALID_ARGUMENT;
    strides[dim_order[i]] = (int32_t)s;
  }
  return PTE_OK;
}

pte_status pte_numel(const int32_t *sizes, int32_t dim, size_t *out) {
  size_t n = 1;
  for (int32_t i = 0; i < dim; i++) {
    if (sizes[i] < 0) return PTE_ERR_INVALID_ARGUMENT;
    size_t s = (size_t)sizes[i];
    if (s && n > SIZE_MAX / s) return PTE_ERR_INVALID_ARGUMENT;
    n *= s;
  }
  *out = n;
  return PTE_OK;
}

pte_status pte_tensor_resize(pte_tensor *t, const int32_t *new_sizes, int32_t new_dim) {
  if (!t || (new_dim && !new_sizes)) return PTE_ERR_INVALID_ARGUMENT;
  if (new_dim != t->dim) return PTE_ERR_INVALID_ARGUMENT;
  bool same = true;
  for (int32_t i = 0; i < new_dim; i++) {
    if (new_sizes[i] < 0) return PTE_ERR_INVALID_ARGUMENT;
    if (new_sizes[i] != t->sizes[i]) same = false;
  }
  if (same) return PTE_OK;
  if (t->dynamism == PTE_SHAPE_STATIC) return PTE_ERR_NOT_SUPPORTED;
  if (t->dynamism != PTE_SHAPE_DYNAMIC_BOUND) return PTE_ERR_NOT_SUPPORTED;
  size_t numel;
  if (pte_numel(new_sizes, new_dim, &numel) != PTE_OK) return PTE_ERR_INVALID_ARGUMENT;
  size_t es = pte_dtype_size(t->dtype);
  if (es && numel > SIZE_MAX / es) return PTE_ERR_INVALID_ARGUMENT;
  if (numel * es > t->capacity_bytes) return PTE_ERR_INVALID_ARGUMENT;
  int32_t strides[PTE_MAX_RANK];
  if (pte_strides_from_dim_order(new_sizes, t->dim_order, new_dim, strides) != PTE_OK)
    return PTE_ERR_INVALID_ARGUMENT;
  for (int32_t i = 0; i < new_dim; i++) {
    t->sizes[i] = new_sizes[i];
    t->strides[i] = strides[i];
  }
  t->numel = numel;
  return PTE_OK;
}
