/* Advanced-indexing plan (see kutil_index.h). */
#include "portable/util/kutil_index.h"

#include <string.h>

#include "portable/util/kutil.h"
#include "portable/util/kutil_shape.h"

static bool ki_is_int_index(int dtype) { return dtype == PTE_DTYPE_LONG || dtype == PTE_DTYPE_INT; }

static bool ki_mask_at(const pte_tensor *m, size_t li) {
  return ((const uint8_t *)m->data)[pte_k_offset_of_linear(m, li)] != 0;
}

/* Logical linear index of the p-th true element; the cursor makes increasing p cheap. */
static size_t ki_mask_find(pte_ks_index_plan *pl, int32_t id, int64_t p) {
  const pte_tensor *m = pl->masks[id].m;
  size_t li;
  int64_t k;
  if (pl->masks[id].p >= 0 && p >= pl->masks[id].p) {
    if (p == pl->masks[id].p) return pl->masks[id].li;
    li = pl->masks[id].li + 1;
    k = pl->masks[id].p + 1;
  } else {
    li = 0;
    k = 0;
  }
  for (; li < m->numel; li++) {
    if (!ki_mask_at(m, li)) continue;
    if (k == p) break;
    k++;
  }
  pl->masks[id].p = p;
  pl->masks[id].li = li;
  return li;
}

/* Coordinate q of logical linear index li in t. */
static int64_t ki_coord_of(const pte_tensor *t, size_t li, int32_t q) {
  for (int32_t d = t->dim - 1; d > q; d--) li /= (size_t)t->sizes[d];
  return (int64_t)(li % (size_t)t->sizes[q]);
}

#define KI_BAD(...)                                                 \
  do {                                                              \
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, __VA_ARGS__);    \
    return false;                                                   \
  } while (0)

bool pte_ks_index_plan_init(pte_kernel_context *ctx, pte_ks_index_plan *p, const pte_tensor *self,
                            pte_evalue *const *items, size_t nidx, const char *op) {
  memset(p, 0, sizeof *p);
  p->self = self;
  int32_t sd = 0;
  bool indexed[PTE_MAX_RANK] = {false};
  int32_t bd = 0;
  for (size_t i = 0; i < nidx; i++) {
    pte_evalue *e = items[i];
    if (!e || e->tag == PTE_TAG_NONE) {
      sd++;
      continue;
    }
    if (e->tag != PTE_TAG_TENSOR || !e->u.tensor) KI_BAD("%s: indices[%zu] is not a tensor or None", op, i);
    const pte_tensor *t = e->u.tensor;
    if (!pte_k_check_data(ctx, t, "index")) return false;
    int32_t tsz[PTE_MAX_RANK], tdim;
    if (ki_is_int_index(t->dtype)) {
      if (sd >= self->dim) KI_BAD("%s: too many indices for tensor of dimension %d", op, (int)self->dim);
      p->vs[p->nv].t = t;
      p->vs[p->nv].self_dim = sd;
      p->vs[p->nv].mask_q = -1;
      p->vs[p->nv].mask_id = -1;
      indexed[sd] = true;
      p->nv++;
      sd++;
      tdim = t->dim;
      for (int32_t k = 0; k < tdim; k++) tsz[k] = t->sizes[k];
    } else if (t->dtype == PTE_DTYPE_BOOL || t->dtype == PTE_DTYPE_BYTE) {
      if (t->dim == 0) {
        pte_kernel_fail(ctx, PTE_ERR_NOT_SUPPORTED, "%s: 0-dim boolean index is not supported", op);
        return false;
      }
      if (sd + t->dim > self->dim) KI_BAD("%s: too many indices for tensor of dimension %d", op, (int)self->dim);
      for (int32_t k = 0; k < t->dim; k++)
        if (t->sizes[k] != self->sizes[sd + k])
          KI_BAD("%s: mask indices[%zu] shape does not match self at dim %d (%d vs %d)", op, i,
                 (int)(sd + k), (int)t->sizes[k], (int)self->sizes[sd + k]);
      int64_t ntrue = 0;
      for (size_t li = 0; li < t->numel; li++) ntrue += ki_mask_at(t, li) ? 1 : 0;
      int32_t id = p->nmask++;
      p->masks[id].m = t;
      p->masks[id].p = -1;
      p->masks[id].li = 0;
      p->masks[id].ntrue = ntrue;
      for (int32_t k = 0; k < t->dim; k++) {
        p->vs[p->nv].t = t;
        p->vs[p->nv].self_dim = sd + k;
        p->vs[p->nv].mask_q = k;
        p->vs[p->nv].mask_id = id;
        indexed[sd + k] = true;
        p->nv++;
      }
      sd += t->dim;
      tdim = 1;
      tsz[0] = (int32_t)ntrue;
    } else {
      KI_BAD("%s: indices[%zu] must be a long, int, byte or bool tensor (got %s)", op, i,
             pte_dtype_name(t->dtype));
    }
    int32_t nb[PTE_MAX_RANK], nbd;
    if (pte_k_broadcast_sizes(p->osz, bd, tsz, tdim, nb, &nbd) != PTE_OK)
      KI_BAD("%s: shape mismatch: indexing tensors could not be broadcast together", op);
    bd = nbd;
    for (int32_t k = 0; k < nbd; k++) p->osz[k] = nb[k]; /* broadcast shape, moved below */
  }
  if (sd > self->dim) KI_BAD("%s: too many indices for tensor of dimension %d", op, (int)self->dim);
  int32_t bshape[PTE_MAX_RANK];
  for (int32_t k = 0; k < bd; k++) bshape[k] = p->osz[k];

  int32_t first = -1, last = -1;
  for (int32_t d = 0; d < self->dim; d++)
    if (indexed[d]) {
      if (first < 0) first = d;
      last = d;
    }
  bool adjacent = true;
  if (first >= 0)
    for (int32_t d = first; d <= last; d++)
      if (!indexed[d]) adjacent = false;
  p->npre = (first >= 0 && adjacent) ? first : 0;
  p->bd = bd;
  p->nrest = 0;
  for (int32_t d = p->npre; d < self->dim; d++)
    if (!indexed[d]) p->rest_self[p->nrest++] = d;
  p->odim = p->npre + bd + p->nrest;
  if (p->odim > PTE_MAX_RANK) KI_BAD("%s: index result rank %d too large", op, (int)p->odim);
  for (int32_t d = 0; d < p->npre; d++) p->osz[d] = self->sizes[d];
  for (int32_t k = 0; k < bd; k++) p->osz[p->npre + k] = bshape[k];
  for (int32_t k = 0; k < p->nrest; k++) p->osz[p->npre + bd + k] = self->sizes[p->rest_self[k]];
  p->onumel = 1;
  for (int32_t d = 0; d < p->odim; d++) p->onumel *= (size_t)p->osz[d];
  return true;
}

void pte_ks_index_block(const pte_ks_index_plan *p, int64_t *sizes, int64_t *self_st) {
  for (int32_t k = 0; k < p->nrest; k++) {
    sizes[k] = p->self->sizes[p->rest_self[k]];
    self_st[k] = p->self->strides[p->rest_self[k]];
  }
}

bool pte_ks_index_walk(pte_kernel_context *ctx, pte_ks_index_plan *p, const int64_t *res_st,
                       pte_ks_index_fn fn, void *user, const char *op) {
  if (p->onumel == 0) return true;
  const pte_tensor *self = p->self;
  int32_t npre = p->npre, bd = p->bd, nv = p->nv;
  int32_t nouter = npre + bd;
  int64_t o_size[PTE_MAX_RANK], o_dst[PTE_MAX_RANK], o_src[PTE_MAX_RANK];
  int64_t o_vst[PTE_MAX_RANK][PTE_MAX_RANK];
  for (int32_t d = 0; d < nouter; d++) {
    o_size[d] = p->osz[d];
    o_dst[d] = res_st[d];
    o_src[d] = d < npre ? self->strides[d] : 0;
    for (int32_t v = 0; v < nv; v++) {
      int64_t st = 0;
      if (d >= npre) {
        int32_t b = d - npre;
        const pte_tensor *t = p->vs[v].t;
        if (p->vs[v].mask_q < 0) {
          int32_t j = b - (bd - t->dim);
          if (j >= 0 && t->sizes[j] != 1) st = t->strides[j];
        } else if (b == bd - 1 && p->masks[p->vs[v].mask_id].ntrue != 1) {
          st = 1; /* ordinal among the true elements */
        }
      }
      o_vst[v][d] = st;
    }
  }
  for (int32_t m = 0; m < p->nmask; m++) p->masks[m].p = -1;
  int64_t cnt[PTE_MAX_RANK] = {0};
  int64_t doff = 0, soff = 0, voff[PTE_MAX_RANK] = {0};
  for (;;) {
    int64_t src = soff;
    for (int32_t v = 0; v < nv; v++) {
      int32_t d = p->vs[v].self_dim;
      int64_t idx;
      if (p->vs[v].mask_q < 0) {
        idx = pte_ks_load_index(p->vs[v].t, voff[v]);
        int64_t sz = self->sizes[d];
        if (idx < -sz || idx >= sz)
          KI_BAD("%s: index %lld is out of bounds for dimension %d with size %lld", op, (long long)idx,
                 (int)d, (long long)sz);
        if (idx < 0) idx += sz;
      } else {
        int32_t id = p->vs[v].mask_id;
        idx = ki_coord_of(p->masks[id].m, ki_mask_find(p, id, voff[v]), p->vs[v].mask_q);
      }
      src += idx * self->strides[d];
    }
    if (fn) fn(user, doff, src);
    int32_t i = nouter - 1;
    for (; i >= 0; i--) {
      if (++cnt[i] < o_size[i]) {
        doff += o_dst[i];
        soff += o_src[i];
        for (int32_t v = 0; v < nv; v++) voff[v] += o_vst[v][i];
        break;
      }
      doff -= o_dst[i] * (o_size[i] - 1);
      soff -= o_src[i] * (o_size[i] - 1);
      for (int32_t v = 0; v < nv; v++) voff[v] -= o_vst[v][i] * (o_size[i] - 1);
      cnt[i] = 0;
    }
    if (i < 0) break;
  }
  return true;
}
