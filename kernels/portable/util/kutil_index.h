/* kernels/portable/util/kutil_index.h — advanced-indexing plan shared by aten::index.Tensor_out
 * (op_index.c) and aten::index_put / index_put_ (op_scatter.c).
 *
 * Internal (not installed) header. An index list (Tensor?[]: int64/int32 index tensors broadcast
 * together, bool/uint8 masks standing for their nonzero coordinates, None gaps) applied to a
 * tensor of shape S selects a "result" of shape R (ATen rules: the broadcast index dims replace
 * the indexed dims in place when those are adjacent, else they go first). The plan walks R's
 * outer part (leading plain dims + broadcast index dims); the trailing plain dims form a block
 * the caller moves. Nothing here allocates or uses stdio.
 */
#ifndef PTE_KERNELS_PORTABLE_UTIL_KUTIL_INDEX_H
#define PTE_KERNELS_PORTABLE_UTIL_KUTIL_INDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pte/evalue.h"
#include "pte/kernel.h"
#include "pte/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pte_ks_index_plan {
  const pte_tensor *self; /* tensor whose shape is indexed (offsets are in its strides) */
  int32_t nv;             /* indexed self dims */
  struct {
    const pte_tensor *t; /* int index tensor, or the mask */
    int32_t self_dim;
    int32_t mask_q; /* -1 for an int tensor; else the mask coordinate it supplies */
    int32_t mask_id;
  } vs[PTE_MAX_RANK];
  int32_t nmask;
  struct {
    const pte_tensor *m;
    int64_t p;  /* true-element ordinal found last (-1: none yet) */
    size_t li;  /* its logical linear index */
    int64_t ntrue;
  } masks[PTE_MAX_RANK];
  int32_t npre, bd, nrest;       /* result = [npre plain][bd broadcast][nrest plain] */
  int32_t rest_self[PTE_MAX_RANK];
  int32_t odim;                  /* result rank */
  int32_t osz[PTE_MAX_RANK];     /* result sizes */
  size_t onumel;
} pte_ks_index_plan;

/* Builds the plan for `items[0..nidx)` (EValues: Tensor or None) over self. On bad input records
 * PTE_ERR_INVALID_ARGUMENT (or NOT_SUPPORTED for a 0-dim mask) naming `op` and returns false. */
bool pte_ks_index_plan_init(pte_kernel_context *ctx, pte_ks_index_plan *p, const pte_tensor *self,
                            pte_evalue *const *items, size_t nidx, const char *op);

/* Block visitor: res_off is the element offset of the block start in a result-shaped tensor
 * (strides res_st given to the walk), self_off the offset of the matching element of self. */
typedef void (*pte_ks_index_fn)(void *user, int64_t res_off, int64_t self_off);

/* Walks every outer result position (nothing if the result is empty). res_st: result-shaped
 * strides (rank p->odim; 0 for broadcast dims). An out-of-range index records
 * PTE_ERR_INVALID_ARGUMENT naming `op` and stops (false). fn may be NULL (validation only). */
bool pte_ks_index_walk(pte_kernel_context *ctx, pte_ks_index_plan *p, const int64_t *res_st,
                       pte_ks_index_fn fn, void *user, const char *op);

/* Block geometry of the trailing plain dims: sizes and self strides (nrest entries). */
void pte_ks_index_block(const pte_ks_index_plan *p, int64_t *sizes, int64_t *self_st);

#ifdef __cplusplus
}
#endif
#endif
