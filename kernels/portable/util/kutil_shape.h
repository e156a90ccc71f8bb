/* kernels/portable/util/kutil_shape.h — data-movement helpers for the shape, indexing and
 * reduction kernel families (op_shape.c, op_index.c, op_reduce.c).
 *
 * Internal (not installed) header. Everything here works on raw element bytes and element strides
 * (int64, may be zero or negative), never allocates and never uses stdio.
 */
#ifndef PTE_KERNELS_PORTABLE_UTIL_KUTIL_SHAPE_H
#define PTE_KERNELS_PORTABLE_UTIL_KUTIL_SHAPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pte/evalue.h"
#include "pte/kernel.h"
#include "pte/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Largest number of dimensions pte_ks_copy_nd / pte_ks_convert_nd accept (repeat views a rank-r
 * tensor as 2r dimensions). */
#define PTE_KS_MAX_NDIM (2 * PTE_MAX_RANK)

/* Wraps a possibly negative dimension index against `rank` the ATen way (a rank-0 tensor accepts
 * 0 and -1). Returns false if d is out of range. */
bool pte_ks_wrap_dim(int64_t d, int32_t rank, int32_t *out);

/* Copies an N-d block of elements of `es` bytes: for every coordinate c within sizes[0..ndim),
 * the element at dst + (sum c[i]*dst_st[i])*es receives the element at src + (sum c[i]*src_st[i])*es.
 * dst/src point at the element with coordinate 0. Strides are in elements; src strides may be 0
 * (broadcast) or negative (flip); dst strides must address distinct elements. Dimensions are
 * reordered and merged internally, and contiguous runs use memcpy. ndim <= PTE_KS_MAX_NDIM;
 * nothing happens if some size is 0. ndim 0 copies one element. */
void pte_ks_copy_nd(void *dst, const int64_t *dst_st, const void *src, const int64_t *src_st,
                    const int64_t *sizes, int32_t ndim, size_t es);

/* Like pte_ks_copy_nd, converting each element from src_dtype to dst_dtype (integral/bool pairs
 * go through int64, anything involving a floating dtype through double; see kutil.h stores). */
void pte_ks_convert_nd(void *dst, int dst_dtype, const int64_t *dst_st, const void *src,
                       int src_dtype, const int64_t *src_st, const int64_t *sizes, int32_t ndim);

/* Copies src into dst, which has the same shape and dtype (any dim orders). */
void pte_ks_copy_same_shape(pte_tensor *dst, const pte_tensor *src);

/* Copies src into dst (same dtype and numel, shapes may differ) in logical row-major element
 * order: the reshape semantics of view_copy / squeeze / unsqueeze. Any dim orders. */
void pte_ks_copy_logical(pte_tensor *dst, const pte_tensor *src);

/* Writes n copies of the es-byte element `elem` to dst (doubling memcpy). */
void pte_ks_fill(void *dst, const void *elem, size_t es, size_t n);

/* Encodes a scalar EValue (Int/Double/Bool) as one element of `dtype` into elem (at least 8
 * bytes). Int scalars keep full int64 precision for integral dtypes. Returns false if v is not a
 * scalar or dtype is unsupported. */
bool pte_ks_scalar_to_elem(const pte_evalue *v, int dtype, void *elem);

/* True if the scalar fits dtype without changing category the way ATen checks a Scalar value
 * against an out dtype: a Double (non-integral) value cannot go into integral/bool, an Int value
 * other than 0/1 cannot go into bool. */
bool pte_ks_scalar_fits(const pte_evalue *v, int dtype);

/* Element strides of t as int64 (t->strides widened). */
void pte_ks_strides64(const pte_tensor *t, int64_t *st);

/* Index tensor element i (logical row-major order) read as int64; t must be LONG or INT. */
int64_t pte_ks_load_index(const pte_tensor *t, int64_t off);

/* Clamps a slice bound the ATen way: negative counts from the end (below -size gives 0), then
 * at most size. */
int64_t pte_ks_slice_bound(int64_t x, int64_t size);
/* Number of elements of the slice [start, end) with step (> 0) over a dim of `size`, both bounds
 * clamped by pte_ks_slice_bound; *start becomes the clamped start. */
int64_t pte_ks_slice_len(int64_t *start, int64_t end, int64_t step, int64_t size);

/* Element strides of t broadcast (right-aligned) to a shape of rank dim: 0 for missing dims and
 * for size-1 dims. t must be broadcastable to that shape. */
void pte_ks_bcast_strides(const pte_tensor *t, int32_t dim, int64_t *st);

/* Walk over the dimensions of a shape except those in skip_mask (bit d skips dim d), keeping
 * per-tensor element offsets (up to PTE_KS_WALK_MAX tensors, each with its own strides):
 *
 *   pte_ks_walk w;
 *   if (pte_ks_walk_init(&w, sizes, dim, 1u << d, st, 2)) {
 *     do { ... w.off[0], w.off[1] ... } while (pte_ks_walk_next(&w));
 *   }
 *
 * st[k] points at tensor k's strides indexed like sizes. Returns false (nothing to visit) if a
 * walked size is 0. Visits one position when every dim is skipped. Row-major order. */
#define PTE_KS_WALK_MAX 4
typedef struct pte_ks_walk {
  int32_t n, nt;
  int64_t sz[PTE_MAX_RANK];
  int64_t st[PTE_KS_WALK_MAX][PTE_MAX_RANK];
  int64_t cnt[PTE_MAX_RANK];
  int64_t off[PTE_KS_WALK_MAX];
} pte_ks_walk;
bool pte_ks_walk_init(pte_ks_walk *w, const int32_t *sizes, int32_t dim, uint32_t skip_mask,
                      const int64_t *const *st, int nt);
bool pte_ks_walk_next(pte_ks_walk *w);

#ifdef __cplusplus
}
#endif
#endif
