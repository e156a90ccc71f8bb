/* kernels/portable/util/kutil_reduce.h — the reduction walk shared by the reduction kernels
 * (op_reduce.c, op_var.c).
 *
 * Internal (not installed) header. A plan splits self's dims into kept dims (one output element
 * each) and reduced dims (walked in logical order, so "first index" semantics hold), both through
 * self's strides; outputs are written through their own strides, so any dim order works.
 *
 *   pte_kr_plan p; pte_kr_plan_init(&p, self, mask, keepdim, out, NULL);
 *   pte_kr_kwalk w; pte_kr_kwalk_start(&w);
 *   for (int64_t e = 0; e < p.kcount; e++, pte_kr_kwalk_next(&p, &w)) {
 *     pte_kr_rwalk r; pte_kr_rwalk_start(&p, &r, w.in);
 *     if (p.rcount > 0) do { for (j < r.len) ... self[r.off + j * r.st] ... } while (pte_kr_rwalk_next(&p, &r));
 *     ... out0[w.out0] = result ...
 *   }
 * Nothing here allocates or uses stdio.
 */
#ifndef PTE_KERNELS_PORTABLE_UTIL_KUTIL_REDUCE_H
#define PTE_KERNELS_PORTABLE_UTIL_KUTIL_REDUCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pte/evalue.h"
#include "pte/kernel.h"
#include "pte/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pte_kr_plan {
  int32_t nk;                 /* kept dims (size > 1), logical order */
  int64_t ksz[PTE_MAX_RANK];
  int64_t kin[PTE_MAX_RANK];  /* self stride */
  int64_t kout[2][PTE_MAX_RANK];
  int64_t kcount;             /* number of output elements */
  int32_t nr;                 /* reduced dims (size > 1, merged), logical order */
  int64_t rsz[PTE_MAX_RANK];
  int64_t rin[PTE_MAX_RANK];
  int64_t rcount;             /* elements per reduction */
} pte_kr_plan;

/* Outer walk over output elements: self offset of the reduction start and the outs' offsets. */
typedef struct pte_kr_kwalk {
  int64_t cnt[PTE_MAX_RANK];
  int64_t in, out0, out1;
} pte_kr_kwalk;

/* Inner walk over the reduced elements, in runs of the innermost reduced dim. */
typedef struct pte_kr_rwalk {
  int64_t cnt[PTE_MAX_RANK];
  int64_t off;
  int64_t len, st; /* run */
} pte_kr_rwalk;

/* Reads the reduced-dims set into *mask. dims == NULL means every dim. Fails (naming op) on
 * out-of-range or repeated dims. For a 0-dim self the only valid dims are 0 and -1 and the mask
 * stays empty. */
bool pte_kr_mask(pte_kernel_context *ctx, const char *op, const pte_tensor *self, const int64_t *dims,
                 size_t n, uint32_t *mask);
/* Output shape of a reduction over mask; returns its rank. */
int32_t pte_kr_out_sizes(const pte_tensor *self, uint32_t mask, bool keepdim, int32_t *sizes);
/* Checks out's rank and resizes it to the reduction shape (failure names op and `what`). */
bool pte_kr_resize(pte_kernel_context *ctx, const char *op, const char *what, const pte_tensor *self,
                   uint32_t mask, bool keepdim, pte_tensor *out);
/* Fails if a reduced dim has size 0. */
bool pte_kr_check_nonempty(pte_kernel_context *ctx, const pte_tensor *self, uint32_t mask, const char *op);

void pte_kr_plan_init(pte_kr_plan *p, const pte_tensor *self, uint32_t mask, bool keepdim,
                      const pte_tensor *out0, const pte_tensor *out1);
void pte_kr_kwalk_start(pte_kr_kwalk *w);
/* The usual start of a one-output reduction over mask: checks self has data, resizes out
 * (pte_kr_resize, argument "out") and fills the plan. */
bool pte_kr_start(pte_kernel_context *ctx, const char *op, const pte_tensor *self, uint32_t mask,
                  bool keepdim, pte_tensor *out, pte_kr_plan *p);
void pte_kr_kwalk_next(const pte_kr_plan *p, pte_kr_kwalk *w);
void pte_kr_rwalk_start(const pte_kr_plan *p, pte_kr_rwalk *r, int64_t base);
bool pte_kr_rwalk_next(const pte_kr_plan *p, pte_kr_rwalk *r);

/* Optional ScalarType argument (Int or None): *dt = -1 for None. */
bool pte_kr_arg_opt_dtype(pte_kernel_context *ctx, pte_evalue **args, size_t nargs, size_t i, int *dt);
/* Optional int[] argument: *dims NULL for None. */
bool pte_kr_arg_opt_dims(pte_kernel_context *ctx, pte_evalue **args, size_t nargs, size_t i,
                         const int64_t **dims, size_t *n);

#ifdef __cplusplus
}
#endif
#endif
