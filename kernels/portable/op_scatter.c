/* Scatter-style kernels: index_put (.out and in place), select_scatter, slice_scatter,
 * masked_scatter, masked_select, nonzero.
 *
 * Shapes broadcast the numpy way; every operand is addressed through its own strides, so any
 * dim order works. Index lists reuse the advanced-indexing plan of kutil_index.
 */
#include <string.h>

#include "portable/portable_scatter.h"
#include "portable/util/kutil.h"
#include "portable/util/kutil_index.h"
#include "portable/util/kutil_shape.h"


static bool sc_dtype(pte_kernel_context *ctx, const char *op, const char *what, const pte_tensor *t, int want) {
  if (t->dtype != want) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "%s: %s dtype %s must equal self dtype %s", op, what,
                    pte_dtype_name(t->dtype), pte_dtype_name(want));
    return false;
  }
  return true;
}

/* Resizes out to a data-dependent shape, explaining a static out that does not have it. */
static bool sc_resize_data_dependent(pte_kernel_context *ctx, const char *op, pte_tensor *out,
                                     const int32_t *sizes, int32_t dim) {
  bool same = out->dim == dim;
  for (int32_t d = 0; same && d < dim; d++) same = out->sizes[d] == sizes[d];
  if (!same && out->dynamism == PTE_SHAPE_STATIC) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT,
                    "%s: the result has shape [%d%s%d] (data-dependent) but out is static with %zu elements", op,
                    (int)sizes[0], dim > 1 ? ", " : "", dim > 1 ? (int)sizes[1] : 0, out->numel);
    return false;
  }
  return pte_k_resize_out(ctx, out, sizes, dim);
}

/* Adds element b into element a (same dtype; see scatter_add). */
static void sc_add_elem(void *a, int64_t ao, const void *b, int64_t bo, int dtype) {
  if (pte_k_is_floating(dtype))
    pte_k_store_double(a, dtype, ao, pte_k_load_double(a, dtype, ao) + pte_k_load_double(b, dtype, bo));
  else
    pte_k_store_int64(a, dtype, ao, (int64_t)((uint64_t)pte_k_load_int64(a, dtype, ao) + (uint64_t)pte_k_load_int64(b, dtype, bo)));
}

/* ---- index_put ------------------------------------------------------------------------------ */

typedef struct put_ctx {
  pte_tensor *dst;
  const pte_tensor *values;
  bool accumulate;
  int32_t nrest;
  int32_t rsz[PTE_MAX_RANK];
  int64_t r_dst[PTE_MAX_RANK], r_src[PTE_MAX_RANK];
} put_ctx;

static void put_block(void *user, int64_t res_off, int64_t self_off) {
  put_ctx *c = (put_ctx *)user;
  size_t es = pte_dtype_size(c->dst->dtype);
  if (!c->accumulate) {
    int64_t sz[PTE_MAX_RANK];
    for (int32_t k = 0; k < c->nrest; k++) sz[k] = c->rsz[k];
    pte_ks_copy_nd((uint8_t *)c->dst->data + self_off * (int64_t)es, c->r_dst,
                   (const uint8_t *)c->values->data + res_off * (int64_t)es, c->r_src, sz, c->nrest, es);
    return;
  }
  const int64_t *st[2] = {c->r_dst, c->r_src};
  pte_ks_walk w;
  if (!pte_ks_walk_init(&w, c->rsz, c->nrest, 0, st, 2)) return;
  do {
    sc_add_elem(c->dst->data, self_off + w.off[0], c->values->data, res_off + w.off[1], c->dst->dtype);
  } while (pte_ks_walk_next(&w));
}

static void index_put_common(pte_kernel_context *ctx, pte_evalue **args, size_t nargs, bool inplace) {
  const char *op = inplace ? "index_put_" : "index_put";
  if (!pte_k_check_nargs(ctx, nargs, inplace ? 4 : 5, inplace ? 5 : 6)) return;
  pte_tensor *self = pte_k_arg_tensor(ctx, args, nargs, 0);
  pte_evalue *lv = args[1];
  pte_tensor *values = self ? pte_k_arg_tensor(ctx, args, nargs, 2) : NULL;
  bool acc;
  if (!values || !pte_k_arg_bool(ctx, args, nargs, 3, &acc)) return;
  pte_tensor *out = inplace ? self : pte_k_arg_tensor(ctx, args, nargs, 4);
  if (!out) return;
  if (!lv || (lv->tag != PTE_TAG_LIST_OPTIONAL_TENSOR && lv->tag != PTE_TAG_LIST_TENSOR))
    PTE_K_BAD("%s: arg 1 (indices) must be a list of optional tensors", op);
  if (!pte_k_dtype_supported(self->dtype)) PTE_K_BAD("%s: unsupported self dtype %s", op, pte_dtype_name(self->dtype));
  if (!sc_dtype(ctx, op, "values", values, self->dtype) || !sc_dtype(ctx, op, "out", out, self->dtype)) return;
  if (out->dim != self->dim) PTE_K_BAD("%s: out has rank %d, expected %d", op, (int)out->dim, (int)self->dim);
  if (!pte_k_check_data(ctx, self, "self") || !pte_k_check_data(ctx, values, "values")) return;
  if (!pte_k_resize_like(ctx, out, self)) return;
  size_t nidx = lv->tag == PTE_TAG_LIST_OPTIONAL_TENSOR ? lv->u.opt_tensor_list.len : lv->u.tensor_list.len;
  pte_evalue **items = lv->tag == PTE_TAG_LIST_OPTIONAL_TENSOR ? lv->u.opt_tensor_list.items : lv->u.tensor_list.items;
  pte_ks_index_plan plan;
  if (!pte_ks_index_plan_init(ctx, &plan, out, items, nidx, op)) return;
  if (!pte_k_broadcastable_to(values, plan.osz, plan.odim))
    PTE_K_BAD("%s: values of rank %d cannot be broadcast to the indexed shape (rank %d)", op, (int)values->dim, (int)plan.odim);
  int64_t vst[PTE_MAX_RANK];
  pte_ks_bcast_strides(values, plan.odim, vst);
  if (!pte_ks_index_walk(ctx, &plan, vst, NULL, NULL, op)) return; /* validate before writing */
  if (!inplace && out->data != self->data) pte_ks_copy_same_shape(out, self);
  put_ctx c;
  c.dst = out;
  c.values = values;
  c.accumulate = acc;
  c.nrest = plan.nrest;
  int64_t bsz[PTE_MAX_RANK];
  pte_ks_index_block(&plan, bsz, c.r_dst);
  for (int32_t k = 0; k < plan.nrest; k++) {
    c.rsz[k] = (int32_t)bsz[k];
    c.r_src[k] = vst[plan.npre + plan.bd + k];
  }
  if (!pte_ks_index_walk(ctx, &plan, vst, put_block, &c, op)) return;
  if (inplace) {
    if (nargs == 5) pte_k_set_return(args, nargs, 0);
  } else {
    pte_k_set_return(args, nargs, 4);
  }
}

/* aten::index_put.out(Tensor self, Tensor?[] indices, Tensor values, bool accumulate=False, *,
 *                     Tensor(a!) out) */
static void op_index_put(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  index_put_common(ctx, args, nargs, false);
}

/* aten::index_put_(Tensor(a!) self, Tensor?[] indices, Tensor values, bool accumulate=False)
 *                  -> Tensor(a!) */
static void op_index_put_(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  index_put_common(ctx, args, nargs, true);
}

/* ---- select_scatter / slice_scatter --------------------------------------------------------- */

/* out = self; then the part of out at positions start, start + step, ... (len of them) along dim
 * receives src converted to out's dtype. keep_dim: a slice (dim stays, size len); else a
 * selection (dim dropped, len 1). src must have exactly that part's shape. */
static void scatter_view(pte_kernel_context *ctx, pte_evalue **args, size_t nargs, size_t out_idx, const char *op,
                         const pte_tensor *self, const pte_tensor *src, pte_tensor *out, int32_t dim,
                         int64_t start, int64_t len, int64_t step, bool keep_dim) {
  int32_t vsz[PTE_MAX_RANK];
  int32_t vn = 0;
  for (int32_t k = 0; k < self->dim; k++) {
    if (k == dim && !keep_dim) continue;
    vsz[vn++] = k == dim ? (int32_t)len : self->sizes[k];
  }
  bool match = src->dim == vn;
  for (int32_t k = 0; match && k < vn; k++) match = src->sizes[k] == vsz[k];
  if (!match) PTE_K_BAD("%s: src shape does not match the %s of self (rank %d vs %d)", op, keep_dim ? "slice" : "selection",
                  (int)src->dim, (int)vn);
  if (!pte_k_dtype_supported(src->dtype)) PTE_K_BAD("%s: unsupported src dtype %s", op, pte_dtype_name(src->dtype));
  if (out->dim != self->dim) PTE_K_BAD("%s: out has rank %d, expected %d", op, (int)out->dim, (int)self->dim);
  if (!pte_k_check_data(ctx, self, "self") || !pte_k_check_data(ctx, src, "src") || !pte_k_resize_like(ctx, out, self))
    return;
  if (out->data != self->data) pte_ks_copy_same_shape(out, self);
  if (len > 0 && out->numel > 0) {
    int64_t ds[PTE_MAX_RANK], ss[PTE_MAX_RANK], sz[PTE_MAX_RANK];
    int32_t n = 0;
    for (int32_t k = 0; k < self->dim; k++) {
      if (k == dim && !keep_dim) continue;
      sz[n] = vsz[n];
      ds[n] = k == dim ? (int64_t)out->strides[k] * step : out->strides[k];
      n++;
    }
    pte_ks_strides64(src, ss);
    size_t es = pte_dtype_size(out->dtype);
    uint8_t *base = (uint8_t *)out->data + start * (int64_t)out->strides[dim] * (int64_t)es;
    pte_ks_convert_nd(base, out->dtype, ds, src->data, src->dtype, ss, sz, n);
  }
  pte_k_set_return(args, nargs, out_idx);
}

/* aten::select_scatter.out(Tensor self, Tensor src, int dim, SymInt index, *, Tensor(a!) out) */
static void op_select_scatter(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  if (!pte_k_check_nargs(ctx, nargs, 5, 6)) return;
  pte_tensor *self = pte_k_arg_tensor(ctx, args, nargs, 0);
  pte_tensor *src = self ? pte_k_arg_tensor(ctx, args, nargs, 1) : NULL;
  int64_t d, index;
  if (!src || !pte_k_arg_int(ctx, args, nargs, 2, &d) || !pte_k_arg_int(ctx, args, nargs, 3, &index)) return;
  pte_tensor *out = pte_k_arg_tensor(ctx, args, nargs, 4);
  if (!out) return;
  if (!pte_k_dtype_supported(self->dtype)) PTE_K_BAD("select_scatter: unsupported self dtype %s", pte_dtype_name(self->dtype));
  if (!sc_dtype(ctx, "select_scatter", "out", out, self->dtype)) return;
  if (self->dim == 0) PTE_K_BAD("select_scatter: self cannot be 0-dimensional");
  int32_t dim;
  if (!pte_ks_wrap_dim(d, self->dim, &dim)) PTE_K_BAD("select_scatter: dim %lld out of range", (long long)d);
  int64_t sz = self->sizes[dim];
  if (index < -sz || index >= sz)
    PTE_K_BAD("select_scatter: index %lld out of range for dimension %d of size %lld", (long long)index, (int)dim, (long long)sz);
  if (index < 0) index += sz;
  scatter_view(ctx, args, nargs, 4, "select_scatter", self, src, out, dim, index, 1, 1, false);
}

/* aten::slice_scatter.out(Tensor self, Tensor src, int dim=0, SymInt? start=None,
 *                         SymInt? end=None, SymInt step=1, *, Tensor(a!) out) */
static void op_slice_scatter(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  if (!pte_k_check_nargs(ctx, nargs, 7, 8)) return;
  pte_tensor *self = pte_k_arg_tensor(ctx, args, nargs, 0);
  pte_tensor *src = self ? pte_k_arg_tensor(ctx, args, nargs, 1) : NULL;
  int64_t d, start = 0, end = INT64_MAX, step;
  if (!src || !pte_k_arg_int(ctx, args, nargs, 2, &d)) return;
  if (!pte_k_arg_is_none(args, nargs, 3) && !pte_k_arg_int(ctx, args, nargs, 3, &start)) return;
  if (!pte_k_arg_is_none(args, nargs, 4) && !pte_k_arg_int(ctx, args, nargs, 4, &end)) return;
  if (!pte_k_arg_int(ctx, args, nargs, 5, &step)) return;
  pte_tensor *out = pte_k_arg_tensor(ctx, args, nargs, 6);
  if (!out) return;
  if (!pte_k_dtype_supported(self->dtype)) PTE_K_BAD("slice_scatter: unsupported self dtype %s", pte_dtype_name(self->dtype));
  if (!sc_dtype(ctx, "slice_scatter", "out", out, self->dtype)) return;
  if (self->dim == 0) PTE_K_BAD("slice_scatter: self cannot be 0-dimensional");
  if (step <= 0) PTE_K_BAD("slice_scatter: step must be positive, got %lld", (long long)step);
  int32_t dim;
  if (!pte_ks_wrap_dim(d, self->dim, &dim)) PTE_K_BAD("slice_scatter: dim %lld out of range", (long long)d);
  int64_t len = pte_ks_slice_len(&start, end, step, self->sizes[dim]);
  scatter_view(ctx, args, nargs, 6, "slice_scatter", self, src, out, dim, start, len, step, true);
}

/* ---- masked_scatter / masked_select --------------------------------------------------------- */

/* Broadcast shape of self and mask (mask must be bool). */
static bool sc_mask_shape(pte_kernel_context *ctx, const char *op, const pte_tensor *self, const pte_tensor *mask,
                          int32_t *sizes, int32_t *dim) {
  if (mask->dtype != PTE_DTYPE_BOOL) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "%s: mask must be bool, got %s", op, pte_dtype_name(mask->dtype));
    return false;
  }
  if (!pte_k_dtype_supported(self->dtype)) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "%s: unsupported self dtype %s", op, pte_dtype_name(self->dtype));
    return false;
  }
  if (pte_k_broadcast_shape(self, mask, sizes, dim) != PTE_OK) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "%s: self and mask shapes cannot be broadcast together", op);
    return false;
  }
  return pte_k_check_data(ctx, self, "self") && pte_k_check_data(ctx, mask, "mask");
}

/* aten::masked_scatter.out(Tensor self, Tensor mask, Tensor source, *, Tensor(a!) out) */
static void op_masked_scatter(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  if (!pte_k_check_nargs(ctx, nargs, 4, 5)) return;
  pte_tensor *self = pte_k_arg_tensor(ctx, args, nargs, 0);
  pte_tensor *mask = self ? pte_k_arg_tensor(ctx, args, nargs, 1) : NULL;
  pte_tensor *source = mask ? pte_k_arg_tensor(ctx, args, nargs, 2) : NULL;
  pte_tensor *out = source ? pte_k_arg_tensor(ctx, args, nargs, 3) : NULL;
  if (!out) return;
  int32_t bs[PTE_MAX_RANK], bd;
  if (!sc_mask_shape(ctx, "masked_scatter", self, mask, bs, &bd)) return;
  if (!sc_dtype(ctx, "masked_scatter", "source", source, self->dtype) ||
      !sc_dtype(ctx, "masked_scatter", "out", out, self->dtype) || !pte_k_check_data(ctx, source, "source"))
    return;
  if (out->dim != bd) PTE_K_BAD("masked_scatter: out has rank %d, expected %d", (int)out->dim, (int)bd);
  int64_t sst[PTE_MAX_RANK], mst[PTE_MAX_RANK], ost[PTE_MAX_RANK];
  pte_ks_bcast_strides(self, bd, sst);
  pte_ks_bcast_strides(mask, bd, mst);
  const uint8_t *md = (const uint8_t *)mask->data;
  /* count first: source must hold enough elements */
  size_t ntrue = 0;
  const int64_t *st1[1] = {mst};
  pte_ks_walk w;
  if (pte_k_broadcastable_to(mask, bs, bd) && pte_ks_walk_init(&w, bs, bd, 0, st1, 1)) {
    do ntrue += md[w.off[0]] != 0;
    while (pte_ks_walk_next(&w));
  }
  if (ntrue > source->numel)
    PTE_K_BAD("masked_scatter: source has %zu elements but mask selects %zu", source->numel, ntrue);
  if (!pte_k_resize_out(ctx, out, bs, bd)) return;
  pte_ks_strides64(out, ost);
  size_t es = pte_dtype_size(out->dtype), k = 0;
  const int64_t *st[3] = {sst, mst, ost};
  if (out->numel > 0 && pte_ks_walk_init(&w, bs, bd, 0, st, 3)) {
    do {
      const uint8_t *from = md[w.off[1]] ? (const uint8_t *)source->data + pte_k_offset_of_linear(source, k++) * (int64_t)es
                                         : (const uint8_t *)self->data + w.off[0] * (int64_t)es;
      memmove((uint8_t *)out->data + w.off[2] * (int64_t)es, from, es);
    } while (pte_ks_walk_next(&w));
  }
  pte_k_set_return(args, nargs, 3);
}

/* aten::masked_select.out(Tensor self, Tensor mask, *, Tensor(a!) out) */
static void op_masked_select(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  if (!pte_k_check_nargs(ctx, nargs, 3, 4)) return;
  pte_tensor *self = pte_k_arg_tensor(ctx, args, nargs, 0);
  pte_tensor *mask = self ? pte_k_arg_tensor(ctx, args, nargs, 1) : NULL;
  pte_tensor *out = mask ? pte_k_arg_tensor(ctx, args, nargs, 2) : NULL;
  if (!out) return;
  int32_t bs[PTE_MAX_RANK], bd;
  if (!sc_mask_shape(ctx, "masked_select", self, mask, bs, &bd)) return;
  if (!sc_dtype(ctx, "masked_select", "out", out, self->dtype)) return;
  if (out->dim != 1) PTE_K_BAD("masked_select: out must be 1-D, got rank %d", (int)out->dim);
  int64_t sst[PTE_MAX_RANK], mst[PTE_MAX_RANK];
  pte_ks_bcast_strides(self, bd, sst);
  pte_ks_bcast_strides(mask, bd, mst);
  const uint8_t *md = (const uint8_t *)mask->data;
  const int64_t *st[2] = {sst, mst};
  pte_ks_walk w;
  size_t ntrue = 0;
  bool any = pte_ks_walk_init(&w, bs, bd, 0, st, 2);
  if (any) {
    do ntrue += md[w.off[1]] != 0;
    while (pte_ks_walk_next(&w));
  }
  if (ntrue > INT32_MAX) PTE_K_BAD("masked_select: result too large");
  int32_t n = (int32_t)ntrue;
  if (!sc_resize_data_dependent(ctx, "masked_select", out, &n, 1)) return;
  size_t es = pte_dtype_size(out->dtype);
  int64_t ost = out->strides[0], k = 0;
  if (ntrue > 0 && pte_ks_walk_init(&w, bs, bd, 0, st, 2)) {
    do {
      if (md[w.off[1]])
        memmove((uint8_t *)out->data + k++ * ost * (int64_t)es, (const uint8_t *)self->data + w.off[0] * (int64_t)es, es);
    } while (pte_ks_walk_next(&w));
  }
  pte_k_set_return(args, nargs, 2);
}

/* ---- nonzero -------------------------------------------------------------------------------- */

static bool nz_at(const pte_tensor *t, int64_t off) {
  if (pte_k_is_floating(t->dtype)) return pte_k_load_double(t->data, t->dtype, off) != 0.0; /* NaN counts */
  return pte_k_load_int64(t->data, t->dtype, off) != 0;
}

/* aten::nonzero.out(Tensor self, *, Tensor(a!) out) */
static void op_nonzero(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  if (!pte_k_check_nargs(ctx, nargs, 2, 3)) return;
  pte_tensor *self = pte_k_arg_tensor(ctx, args, nargs, 0);
  pte_tensor *out = self ? pte_k_arg_tensor(ctx, args, nargs, 1) : NULL;
  if (!out) return;
  if (!pte_k_dtype_supported(self->dtype)) PTE_K_BAD("nonzero: unsupported self dtype %s", pte_dtype_name(self->dtype));
  if (out->dtype != PTE_DTYPE_LONG) PTE_K_BAD("nonzero: out must be int64, got %s", pte_dtype_name(out->dtype));
  if (out->dim != 2) PTE_K_BAD("nonzero: out must be 2-D, got rank %d", (int)out->dim);
  if (!pte_k_check_data(ctx, self, "self")) return;
  int64_t ss[PTE_MAX_RANK];
  pte_ks_strides64(self, ss);
  const int64_t *st[1] = {ss};
  pte_ks_walk w;
  size_t cnt = 0;
  bool any = pte_ks_walk_init(&w, self->sizes, self->dim, 0, st, 1);
  if (any) {
    do cnt += nz_at(self, w.off[0]);
    while (pte_ks_walk_next(&w));
  }
  if (cnt > INT32_MAX) PTE_K_BAD("nonzero: result too large");
  int32_t osz[2] = {(int32_t)cnt, self->dim};
  if (!sc_resize_data_dependent(ctx, "nonzero", out, osz, 2)) return;
  int64_t *od = (int64_t *)out->data;
  int64_t r0 = out->strides[0], r1 = out->strides[1], row = 0;
  if (cnt > 0 && pte_ks_walk_init(&w, self->sizes, self->dim, 0, st, 1)) {
    do {
      if (!nz_at(self, w.off[0])) continue;
      for (int32_t d = 0; d < self->dim; d++) od[row * r0 + d * r1] = w.cnt[d];
      row++;
    } while (pte_ks_walk_next(&w));
  }
  pte_k_set_return(args, nargs, 1);
}

const pte_kernel pte_portable_scatter_kernels[] = {
    {"aten::index_put.out", NULL, op_index_put},
    {"aten::index_put_", NULL, op_index_put_},
    {"aten::select_scatter.out", NULL, op_select_scatter},
    {"aten::slice_scatter.out", NULL, op_slice_scatter},
    {"aten::masked_scatter.out", NULL, op_masked_scatter},
    {"aten::masked_select.out", NULL, op_masked_select},
    {"aten::nonzero.out", NULL, op_nonzero},
};
const size_t pte_portable_scatter_kernels_count =
    sizeof pte_portable_scatter_kernels / sizeof pte_portable_scatter_kernels[0];
