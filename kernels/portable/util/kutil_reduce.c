/* The reduction plan/walk shared by op_reduce.c and op_var.c (see kutil_reduce.h). */
#include "portable/util/kutil_reduce.h"

#include <string.h>

#include "portable/util/kutil.h"
#include "portable/util/kutil_shape.h"

bool pte_kr_mask(pte_kernel_context *ctx, const char *op, const pte_tensor *self, const int64_t *dims,
                 size_t n, uint32_t *mask) {
  *mask = 0;
  if (!dims) {
    for (int32_t d = 0; d < self->dim; d++) *mask |= 1u << d;
    return true;
  }
  uint32_t seen = 0;
  for (size_t i = 0; i < n; i++) {
    int32_t d;
    if (!pte_ks_wrap_dim(dims[i], self->dim, &d)) {
      pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "%s: dim %lld out of range for rank %d", op,
                      (long long)dims[i], (int)self->dim);
      return false;
    }
    if (seen & (1u << d)) {
      pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "%s: dim %d appears multiple times in the list of dims",
                      op, (int)d);
      return false;
    }
    seen |= 1u << d;
  }
  if (self->dim > 0) *mask = seen;
  return true;
}

int32_t pte_kr_out_sizes(const pte_tensor *self, uint32_t mask, bool keepdim, int32_t *sizes) {
  int32_t n = 0;
  for (int32_t d = 0; d < self->dim; d++) {
    if ((mask >> d) & 1u) {
      if (keepdim) sizes[n++] = 1;
    } else {
      sizes[n++] = self->sizes[d];
    }
  }
  return n;
}

bool pte_kr_resize(pte_kernel_context *ctx, const char *op, const char *what, const pte_tensor *self,
                   uint32_t mask, bool keepdim, pte_tensor *out) {
  int32_t sizes[PTE_MAX_RANK];
  int32_t n = pte_kr_out_sizes(self, mask, keepdim, sizes);
  if (out->dim != n) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "%s: %s has rank %d, expected %d", op, what, (int)out->dim,
                    (int)n);
    return false;
  }
  return pte_k_resize_out(ctx, out, sizes, n);
}

bool pte_kr_check_nonempty(pte_kernel_context *ctx, const pte_tensor *self, uint32_t mask, const char *op) {
  for (int32_t d = 0; d < self->dim; d++)
    if (((mask >> d) & 1u) && self->sizes[d] == 0) {
      pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "%s(): expected reduction dim %d to have non-zero size",
                      op, (int)d);
      return false;
    }
  return true;
}

void pte_kr_plan_init(pte_kr_plan *p, const pte_tensor *self, uint32_t mask, bool keepdim,
                      const pte_tensor *out0, const pte_tensor *out1) {
  p->nk = p->nr = 0;
  p->kcount = p->rcount = 1;
  int32_t od = 0;
  for (int32_t d = 0; d < self->dim; d++) {
    int64_t sz = self->sizes[d];
    if ((mask >> d) & 1u) {
      if (keepdim) od++;
      p->rcount *= sz;
      if (sz == 1) continue;
      if (p->nr > 0 && p->rin[p->nr - 1] == self->strides[d] * sz) {
        p->rsz[p->nr - 1] *= sz;
        p->rin[p->nr - 1] = self->strides[d];
      } else {
        p->rsz[p->nr] = sz;
        p->rin[p->nr] = self->strides[d];
        p->nr++;
      }
    } else {
      p->kcount *= sz;
      if (sz != 1) {
        p->ksz[p->nk] = sz;
        p->kin[p->nk] = self->strides[d];
        p->kout[0][p->nk] = out0->strides[od];
        p->kout[1][p->nk] = out1 ? out1->strides[od] : 0;
        p->nk++;
      }
      od++;
    }
  }
}

void pte_kr_kwalk_start(pte_kr_kwalk *w) {
  memset(w->cnt, 0, sizeof w->cnt);
  w->in = w->out0 = w->out1 = 0;
}

void pte_kr_kwalk_next(const pte_kr_plan *p, pte_kr_kwalk *w) {
  for (int32_t i = p->nk - 1; i >= 0; i--) {
    if (++w->cnt[i] < p->ksz[i]) {
      w->in += p->kin[i];
      w->out0 += p->kout[0][i];
      w->out1 += p->kout[1][i];
      return;
    }
    w->in -= p->kin[i] * (p->ksz[i] - 1);
    w->out0 -= p->kout[0][i] * (p->ksz[i] - 1);
    w->out1 -= p->kout[1][i] * (p->ksz[i] - 1);
    w->cnt[i] = 0;
  }
}

void pte_kr_rwalk_start(const pte_kr_plan *p, pte_kr_rwalk *r, int64_t base) {
  memset(r->cnt, 0, sizeof r->cnt);
  r->off = base;
  r->len = p->nr ? p->rsz[p->nr - 1] : 1;
  r->st = p->nr ? p->rin[p->nr - 1] : 0;
}

bool pte_kr_rwalk_next(const pte_kr_plan *p, pte_kr_rwalk *r) {
  for (int32_t i = p->nr - 2; i >= 0; i--) {
    if (++r->cnt[i] < p->rsz[i]) {
      r->off += p->rin[i];
      return true;
    }
    r->off -= p->rin[i] * (p->rsz[i] - 1);
    r->cnt[i] = 0;
  }
  return false;
}

bool pte_kr_arg_opt_dtype(pte_kernel_context *ctx, pte_evalue **args, size_t nargs, size_t i, int *dt) {
  *dt = -1;
  if (pte_k_arg_is_none(args, nargs, i)) return true;
  int64_t v;
  if (!pte_k_arg_int(ctx, args, nargs, i, &v)) return false;
  if (v < 0 || v >= PTE_DTYPE_NUM) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "invalid dtype %lld (argument %zu)", (long long)v, i);
    return false;
  }
  *dt = (int)v;
  return true;
}

bool pte_kr_arg_opt_dims(pte_kernel_context *ctx, pte_evalue **args, size_t nargs, size_t i,
                         const int64_t **dims, size_t *n) {
  *dims = NULL;
  *n = 0;
  if (pte_k_arg_is_none(args, nargs, i)) return true;
  *dims = pte_k_arg_int_list(ctx, args, nargs, i, n);
  return *dims != NULL;
}

bool pte_kr_start(pte_kernel_context *ctx, const char *op, const pte_tensor *self, uint32_t mask,
                  bool keepdim, pte_tensor *out, pte_kr_plan *p) {
  if (!pte_k_check_data(ctx, self, "self") || !pte_kr_resize(ctx, op, "out", self, mask, keepdim, out))
    return false;
  pte_kr_plan_init(p, self, mask, keepdim, out, NULL);
  return true;
}
