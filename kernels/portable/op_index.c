/* Indexing kernels: index.Tensor, index_select, gather, scatter (value / src), scatter_add, embedding,
 * upsample_nearest2d.vec.
 *
 * All of them move whole elements of self into out (same dtype), so they are dtype-agnostic byte
 * copies; index tensors are int64 (and int32 where ATen allows it), read through their strides.
 */
#include <math.h>
#include <string.h>

#include "portable/portable_index.h"
#include "portable/util/kutil.h"
#include "portable/util/kutil_index.h"
#include "portable/util/kutil_shape.h"


static bool is_int_index(int dtype) { return dtype == PTE_DTYPE_LONG || dtype == PTE_DTYPE_INT; }

static inline void copy_elem(uint8_t *d, const uint8_t *s, size_t es) {
  switch (es) {
    case 1: *d = *s; break;
    case 2: memcpy(d, s, 2); break;
    case 4: memcpy(d, s, 4); break;
    case 8: memcpy(d, s, 8); break;
    default: memcpy(d, s, es); break;
  }
}

/* ---- index.Tensor ------------------------------------------------------------------------- */

typedef struct idx_copy {
  pte_tensor *out;
  const pte_tensor *self;
  size_t es;
  int32_t nrest;
  int64_t r_size[PTE_MAX_RANK], r_dst[PTE_MAX_RANK], r_src[PTE_MAX_RANK];
} idx_copy;

static void idx_copy_block(void *user, int64_t res_off, int64_t self_off) {
  idx_copy *c = (idx_copy *)user;
  int64_t es = (int64_t)c->es;
  pte_ks_copy_nd((uint8_t *)c->out->data + res_off * es, c->r_dst,
                 (const uint8_t *)c->self->data + self_off * es, c->r_src, c->r_size, c->nrest, c->es);
}

/* aten::index.Tensor_out(Tensor self, Tensor?[] indices, *, Tensor(a!) out) */
static void op_index_tensor(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  if (!pte_k_check_nargs(ctx, nargs, 3, 4)) return;
  pte_tensor *self = pte_k_arg_tensor(ctx, args, nargs, 0);
  pte_evalue *lv = args[1];
  pte_tensor *out = pte_k_arg_tensor(ctx, args, nargs, 2);
  if (!self || !out) return;
  if (!lv || (lv->tag != PTE_TAG_LIST_OPTIONAL_TENSOR && lv->tag != PTE_TAG_LIST_TENSOR))
    PTE_K_BAD("arg 1: expected a list of optional tensors");
  if (!pte_k_check_out_dtype(ctx, NULL, "input", self, out, false)) return;
  if (!pte_k_check_data(ctx, self, "self")) return;
  size_t nidx = lv->tag == PTE_TAG_LIST_OPTIONAL_TENSOR ? lv->u.opt_tensor_list.len : lv->u.tensor_list.len;
  pte_evalue **items = lv->tag == PTE_TAG_LIST_OPTIONAL_TENSOR ? lv->u.opt_tensor_list.items : lv->u.tensor_list.items;
  pte_ks_index_plan plan;
  if (!pte_ks_index_plan_init(ctx, &plan, self, items, nidx, "index")) return;
  if (out->dim != plan.odim) PTE_K_BAD("out has rank %d, expected %d", (int)out->dim, (int)plan.odim);
  if (!pte_k_resize_out(ctx, out, plan.osz, plan.odim)) return;
  idx_copy c;
  c.out = out;
  c.self = self;
  c.es = pte_dtype_size(out->dtype);
  c.nrest = plan.nrest;
  pte_ks_index_block(&plan, c.r_size, c.r_src);
  int64_t res_st[PTE_MAX_RANK];
  pte_ks_strides64(out, res_st);
  for (int32_t k = 0; k < plan.nrest; k++) c.r_dst[k] = res_st[plan.npre + plan.bd + k];
  if (!pte_ks_index_walk(ctx, &plan, res_st, idx_copy_block, &c, "index")) return;
  pte_k_set_return(args, nargs, 2);
}

/* ---- index_select ------------------------------------------------------------------------- */

/* aten::index_select.out(Tensor self, int dim, Tensor index, *, Tensor(a!) out) */
static void op_index_select(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  if (!pte_k_check_nargs(ctx, nargs, 4, 5)) return;
  pte_tensor *self = pte_k_arg_tensor(ctx, args, nargs, 0);
  int64_t d;
  if (!self || !pte_k_arg_int(ctx, args, nargs, 1, &d)) return;
  pte_tensor *index = pte_k_arg_tensor(ctx, args, nargs, 2);
  pte_tensor *out = pte_k_arg_tensor(ctx, args, nargs, 3);
  if (!index || !out || !pte_k_check_out_dtype(ctx, NULL, "input", self, out, false)) return;
  if (!is_int_index(index->dtype)) PTE_K_BAD("index_select(): index must be int64 or int32, got %s", pte_dtype_name(index->dtype));
  if (index->dim > 1) PTE_K_BAD("index_select(): index must be a vector or scalar");
  int32_t dim;
  if (!pte_ks_wrap_dim(d, self->dim, &dim)) PTE_K_BAD("dim %lld out of range", (long long)d);
  if (!pte_k_check_data(ctx, self, "self") || !pte_k_check_data(ctx, index, "index")) return;
  int64_t m = (int64_t)index->numel;
  int64_t ist = index->dim ? index->strides[0] : 0;
  if (self->dim == 0) {
    if (m != 1) PTE_K_BAD("index_select(): index to a scalar can have only one value");
    int64_t v = pte_ks_load_index(index, 0);
    if (v != 0) PTE_K_BAD("index_select(): index %lld out of range for a scalar", (long long)v);
    if (out->dim != 0) PTE_K_BAD("out must be 0-dim");
    if (!pte_k_resize_out(ctx, out, NULL, 0)) return;
    memcpy(out->data, self->data, pte_dtype_size(self->dtype));
    pte_k_set_return(args, nargs, 3);
    return;
  }
  int32_t osz[PTE_MAX_RANK];
  for (int32_t k = 0; k < self->dim; k++) osz[k] = k == dim ? (int32_t)m : self->sizes[k];
  if (out->dim != self->dim) PTE_K_BAD("out has rank %d, expected %d", (int)out->dim, (int)self->dim);
  if (!pte_k_resize_out(ctx, out, osz, self->dim)) return;
  int64_t sz = self->sizes[dim];
  for (int64_t i = 0; i < m; i++) {
    int64_t v = pte_ks_load_index(index, i * ist);
    if (v < 0 || v >= sz) PTE_K_BAD("index_select(): index %lld out of range for dimension of size %lld", (long long)v, (long long)sz);
  }
  if (out->numel == 0) {
    pte_k_set_return(args, nargs, 3);
    return;
  }
  size_t es = pte_dtype_size(out->dtype);
  if (pte_k_is_contiguous(self) && pte_k_is_contiguous(out)) {
    size_t outer = 1, inner = es;
    for (int32_t k = 0; k < dim; k++) outer *= (size_t)self->sizes[k];
    for (int32_t k = dim + 1; k < self->dim; k++) inner *= (size_t)self->sizes[k];
    const uint8_t *s = (const uint8_t *)self->data;
    uint8_t *o = (uint8_t *)out->data;
    for (size_t a = 0; a < outer; a++)
      for (int64_t i = 0; i < m; i++) {
        int64_t v = pte_ks_load_index(index, i * ist);
        memcpy(o + (a * (size_t)m + (size_t)i) * inner, s + (a * (size_t)sz + (size_t)v) * inner, inner);
      }
  } else {
    int64_t bsz[PTE_MAX_RANK], ds[PTE_MAX_RANK], ss[PTE_MAX_RANK];
    for (int32_t k = 0; k < self->dim; k++) {
      bsz[k] = k == dim ? 1 : self->sizes[k];
      ds[k] = out->strides[k];
      ss[k] = self->strides[k];
    }
    for (int64_t i = 0; i < m; i++) {
      int64_t v = pte_ks_load_index(index, i * ist);
      pte_ks_copy_nd((uint8_t *)out->data + i * ds[dim] * (int64_t)es, ds,
                     (const uint8_t *)self->data + v * ss[dim] * (int64_t)es, ss, bsz, self->dim, es);
    }
  }
  pte_k_set_return(args, nargs, 3);
}

/* ---- gather / scatter ----------------------------------------------------------------------- */

/* Sizes/strides of t with a 0-dim tensor treated as 1-D of size 1 (ATen ensure_nonempty). */
static int32_t nonempty(const pte_tensor *t, int64_t *sz, int64_t *st) {
  if (t->dim == 0) {
    sz[0] = 1;
    st[0] = 0;
    return 1;
  }
  for (int32_t k = 0; k < t->dim; k++) {
    sz[k] = t->sizes[k];
    st[k] = t->strides[k];
  }
  return t->dim;
}

/* Walks index's shape, calling the element body with offsets of index, self-like tensor `a`
 * (coordinates with dim excluded), and `b` (all coordinates). */
typedef struct walk3 {
  int32_t n;
  int64_t sz[PTE_MAX_RANK];
  int64_t st[3][PTE_MAX_RANK];
} walk3;

static bool walk3_next(const walk3 *w, int64_t *cnt, int64_t *off) {
  for (int32_t i = w->n - 1; i >= 0; i--) {
    if (++cnt[i] < w->sz[i]) {
      for (int k = 0; k < 3; k++) off[k] += w->st[k][i];
      return true;
    }
    for (int k = 0; k < 3; k++) off[k] -= w->st[k][i] * (w->sz[i] - 1);
    cnt[i] = 0;
  }
  return false;
}

/* aten::gather.out(Tensor self, int dim, Tensor index, *, bool sparse_grad=False, Tensor(a!) out) */
static void op_gather(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  if (!pte_k_check_nargs(ctx, nargs, 5, 6)) return;
  pte_tensor *self = pte_k_arg_tensor(ctx, args, nargs, 0);
  int64_t d;
  bool sparse;
  if (!self || !pte_k_arg_int(ctx, args, nargs, 1, &d)) return;
  pte_tensor *index = pte_k_arg_tensor(ctx, args, nargs, 2);
  if (!index || !pte_k_arg_bool(ctx, args, nargs, 3, &sparse)) return;
  pte_tensor *out = pte_k_arg_tensor(ctx, args, nargs, 4);
  if (!out || !pte_k_check_out_dtype(ctx, NULL, "input", self, out, false)) return;
  if (sparse) PTE_K_FAIL(PTE_ERR_NOT_SUPPORTED, "gather: sparse_grad=True is not supported");
  if (index->dtype != PTE_DTYPE_LONG) PTE_K_BAD("gather(): Expected dtype int64 for index, got %s", pte_dtype_name(index->dtype));
  int32_t dim;
  if (!pte_ks_wrap_dim(d, self->dim, &dim)) PTE_K_BAD("dim %lld out of range", (long long)d);
  int64_t ssz[PTE_MAX_RANK], sst[PTE_MAX_RANK], isz[PTE_MAX_RANK], ist[PTE_MAX_RANK];
  int32_t sr = nonempty(self, ssz, sst), ir = nonempty(index, isz, ist);
  if (sr != ir) PTE_K_BAD("gather(): index tensor must have the same number of dimensions as input tensor");
  if (index->numel > 0)
    for (int32_t k = 0; k < sr; k++)
      if (k != dim && isz[k] > ssz[k])
        PTE_K_BAD("gather(): size does not match at dimension %d (index %lld > self %lld)", (int)k,
            (long long)isz[k], (long long)ssz[k]);
  if (out->dim != index->dim) PTE_K_BAD("out has rank %d, expected %d", (int)out->dim, (int)index->dim);
  if (!pte_k_check_data(ctx, self, "self") || !pte_k_check_data(ctx, index, "index")) return;
  if (!pte_k_resize_like(ctx, out, index)) return;
  if (index->numel > 0) {
    int64_t osz_[PTE_MAX_RANK], ost[PTE_MAX_RANK];
    nonempty(out, osz_, ost);
    walk3 w;
    w.n = sr;
    for (int32_t k = 0; k < sr; k++) {
      w.sz[k] = isz[k];
      w.st[0][k] = ist[k];
      w.st[1][k] = k == dim ? 0 : sst[k];
      w.st[2][k] = ost[k];
    }
    size_t es = pte_dtype_size(out->dtype);
    int64_t cnt[PTE_MAX_RANK] = {0}, off[3] = {0, 0, 0};
    int64_t lim = ssz[dim], dst = sst[dim];
    do {
      int64_t v = pte_ks_load_index(index, off[0]);
      if (v < 0 || v >= lim)
        PTE_K_BAD("gather(): index %lld is out of bounds for dimension %d with size %lld", (long long)v,
            (int)dim, (long long)lim);
      copy_elem((uint8_t *)out->data + off[2] * (int64_t)es,
                (const uint8_t *)self->data + (off[1] + v * dst) * (int64_t)es, es);
    } while (walk3_next(&w, cnt, off));
  }
  pte_k_set_return(args, nargs, 4);
}

/* Adds element b into element a (same dtype): integers wrap, floats round to the dtype after
 * each add, bool ORs (ATen's `self += src` per element). */
static void add_elem(void *a, const void *b, int dtype) {
  if (pte_k_is_floating(dtype))
    pte_k_store_double(a, dtype, 0, pte_k_load_double(a, dtype, 0) + pte_k_load_double(b, dtype, 0));
  else
    pte_k_store_int64(a, dtype, 0, (int64_t)((uint64_t)pte_k_load_int64(a, dtype, 0) + (uint64_t)pte_k_load_int64(b, dtype, 0)));
}

/* is_src: src tensor (else a Scalar value); add: scatter_add (accumulate instead of assign). */
static void scatter_common(pte_kernel_context *ctx, pte_evalue **args, size_t nargs, bool is_src, bool add) {
  const char *op = add ? "scatter_add" : "scatter";
  if (!pte_k_check_nargs(ctx, nargs, 5, 6)) return;
  pte_tensor *self = pte_k_arg_tensor(ctx, args, nargs, 0);
  int64_t d;
  if (!self || !pte_k_arg_int(ctx, args, nargs, 1, &d)) return;
  pte_tensor *index = pte_k_arg_tensor(ctx, args, nargs, 2);
  if (!index) return;
  pte_tensor *src = NULL;
  if (is_src) {
    src = pte_k_arg_tensor(ctx, args, nargs, 3);
    if (!src) return;
  } else if (!pte_k_arg_is_scalar(args, nargs, 3)) {
    PTE_K_BAD("arg 3: expected a Scalar");
  }
  pte_tensor *out = pte_k_arg_tensor(ctx, args, nargs, 4);
  if (!out || !pte_k_check_out_dtype(ctx, NULL, "input", self, out, false)) return;
  if (src && src->dtype != self->dtype)
    PTE_K_BAD("%s(): expected self and src to have the same dtype (%s vs %s)", op, pte_dtype_name(self->dtype),
        pte_dtype_name(src->dtype));
  if (index->dtype != PTE_DTYPE_LONG) PTE_K_BAD("%s(): Expected dtype int64 for index, got %s", op, pte_dtype_name(index->dtype));
  int32_t dim;
  if (!pte_ks_wrap_dim(d, self->dim, &dim)) PTE_K_BAD("%s(): dim %lld out of range", op, (long long)d);
  int64_t ssz[PTE_MAX_RANK], sst[PTE_MAX_RANK], isz[PTE_MAX_RANK], ist[PTE_MAX_RANK];
  int64_t rsz[PTE_MAX_RANK], rst[PTE_MAX_RANK];
  int32_t sr = nonempty(self, ssz, sst), ir = nonempty(index, isz, ist);
  if (sr != ir) PTE_K_BAD("%s(): index tensor must have the same number of dimensions as self", op);
  if (src) {
    int32_t rr = nonempty(src, rsz, rst);
    if (rr != sr) PTE_K_BAD("%s(): src tensor must have the same number of dimensions as self", op);
  }
  if (index->numel > 0)
    for (int32_t k = 0; k < sr; k++) {
      if (k != dim && isz[k] > ssz[k]) PTE_K_BAD("%s(): index size %d exceeds self at dimension %d", op, (int)isz[k], (int)k);
      if (src && isz[k] > rsz[k]) PTE_K_BAD("%s(): index size %d exceeds src at dimension %d", op, (int)isz[k], (int)k);
    }
  if (out->dim != self->dim) PTE_K_BAD("out has rank %d, expected %d", (int)out->dim, (int)self->dim);
  if (!pte_k_check_data(ctx, self, "self") || !pte_k_check_data(ctx, index, "index")) return;
  if (src && !pte_k_check_data(ctx, src, "src")) return;
  if (!pte_k_resize_like(ctx, out, self)) return;
  /* validate every index before writing anything */
  int64_t lim = ssz[dim];
  walk3 w;
  w.n = sr;
  int64_t osz_[PTE_MAX_RANK], ost[PTE_MAX_RANK];
  nonempty(out, osz_, ost);
  for (int32_t k = 0; k < sr; k++) {
    w.sz[k] = isz[k];
    w.st[0][k] = ist[k];
    w.st[1][k] = k == dim ? 0 : ost[k];
    w.st[2][k] = src ? rst[k] : 0;
  }
  int64_t cnt[PTE_MAX_RANK] = {0}, off[3] = {0, 0, 0};
  if (index->numel > 0) {
    do {
      int64_t v = pte_ks_load_index(index, off[0]);
      if (v < 0 || v >= lim)
        PTE_K_BAD("%s(): index %lld is out of bounds for dimension %d with size %lld", op, (long long)v,
            (int)dim, (long long)lim);
    } while (walk3_next(&w, cnt, off));
  }
  if (out->data != self->data) pte_ks_copy_same_shape(out, self);
  if (index->numel > 0) {
    size_t es = pte_dtype_size(out->dtype);
    uint8_t elem[8];
    if (!src) pte_ks_scalar_to_elem(args[3], out->dtype, elem);
    memset(cnt, 0, sizeof cnt);
    off[0] = off[1] = off[2] = 0;
    int64_t dst = ost[dim];
    do {
      int64_t v = pte_ks_load_index(index, off[0]);
      uint8_t *o = (uint8_t *)out->data + (off[1] + v * dst) * (int64_t)es;
      const uint8_t *from = src ? (const uint8_t *)src->data + off[2] * (int64_t)es : elem;
      if (add) add_elem(o, from, out->dtype);
      else copy_elem(o, from, es);
    } while (walk3_next(&w, cnt, off));
  }
  pte_k_set_return(args, nargs, 4);
}

/* aten::scatter.value_out(Tensor self, int dim, Tensor index, Scalar value, *, Tensor(a!) out) */
static void op_scatter_value(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  scatter_common(ctx, args, nargs, false, false);
}

/* aten::scatter.src_out(Tensor self, int dim, Tensor index, Tensor src, *, Tensor(a!) out) */
static void op_scatter_src(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  scatter_common(ctx, args, nargs, true, false);
}

/* aten::scatter_add.out(Tensor self, int dim, Tensor index, Tensor src, *, Tensor(a!) out) */
static void op_scatter_add(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  scatter_common(ctx, args, nargs, true, true);
}

/* ---- embedding ------------------------------------------------------------------------------ */

/* aten::embedding.out(Tensor weight, Tensor indices, SymInt padding_idx=-1,
 *                     bool scale_grad_by_freq=False, bool sparse=False, *, Tensor(a!) out) */
static void op_embedding(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  if (!pte_k_check_nargs(ctx, nargs, 6, 7)) return;
  pte_tensor *weight = pte_k_arg_tensor(ctx, args, nargs, 0);
  pte_tensor *indices = pte_k_arg_tensor(ctx, args, nargs, 1);
  int64_t padding_idx;
  bool sgf, sparse;
  if (!weight || !indices || !pte_k_arg_int(ctx, args, nargs, 2, &padding_idx) ||
      !pte_k_arg_bool(ctx, args, nargs, 3, &sgf) || !pte_k_arg_bool(ctx, args, nargs, 4, &sparse))
    return;
  pte_tensor *out = pte_k_arg_tensor(ctx, args, nargs, 5);
  if (!out || !pte_k_check_out_dtype(ctx, NULL, "input", weight, out, false)) return;
  if (weight->dim != 2) PTE_K_BAD("embedding(): weight must be 2-D, got rank %d", (int)weight->dim);
  if (!is_int_index(indices->dtype)) PTE_K_BAD("embedding(): indices must be int64 or int32, got %s", pte_dtype_name(indices->dtype));
  if (indices->dim + 1 > PTE_MAX_RANK) PTE_K_BAD("embedding(): indices rank too large");
  int32_t osz[PTE_MAX_RANK];
  for (int32_t k = 0; k < indices->dim; k++) osz[k] = indices->sizes[k];
  osz[indices->dim] = weight->sizes[1];
  if (out->dim != indices->dim + 1) PTE_K_BAD("out has rank %d, expected %d", (int)out->dim, (int)indices->dim + 1);
  if (!pte_k_check_data(ctx, weight, "weight") || !pte_k_check_data(ctx, indices, "indices")) return;
  if (!pte_k_resize_out(ctx, out, osz, indices->dim + 1)) return;
  int64_t V = weight->sizes[0], D = weight->sizes[1];
  size_t es = pte_dtype_size(out->dtype);
  for (size_t li = 0; li < indices->numel; li++) {
    int64_t v = pte_ks_load_index(indices, pte_k_offset_of_linear(indices, li));
    if (v < 0 || v >= V) PTE_K_BAD("embedding(): index %lld out of range for %lld rows", (long long)v, (long long)V);
  }
  if (out->numel > 0) {
    int64_t row_sz = D, row_ds = out->strides[indices->dim], row_ss = weight->strides[1];
    for (size_t li = 0; li < indices->numel; li++) {
      int64_t v = pte_ks_load_index(indices, pte_k_offset_of_linear(indices, li));
      int64_t ooff = 0;
      size_t r = li;
      for (int32_t k = indices->dim - 1; k >= 0; k--) {
        ooff += (int64_t)(r % (size_t)indices->sizes[k]) * out->strides[k];
        r /= (size_t)indices->sizes[k];
      }
      pte_ks_copy_nd((uint8_t *)out->data + ooff * (int64_t)es, &row_ds,
                     (const uint8_t *)weight->data + v * weight->strides[0] * (int64_t)es, &row_ss,
                     &row_sz, 1, es);
    }
  }
  pte_k_set_return(args, nargs, 5);
}

/* ---- upsample_nearest2d --------------------------------------------------------------------- */

static int64_t nearest_idx(int64_t o, int64_t in, int64_t out, bool has_scale, double scale) {
  if (out == in) return o;
  if (out == 2 * in) return o >> 1;
  float s = (has_scale && scale > 0) ? (float)(1.0 / scale) : (float)in / (float)out;
  int64_t r = (int64_t)floorf((float)o * s);
  return r < in - 1 ? r : in - 1;
}

/* aten::upsample_nearest2d.vec_out(Tensor input, SymInt[]? output_size, float[]? scale_factors, *,
 *                                  Tensor(a!) out) */
static void op_upsample_nearest2d_vec(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  if (!pte_k_check_nargs(ctx, nargs, 4, 5)) return;
  pte_tensor *in = pte_k_arg_tensor(ctx, args, nargs, 0);
  pte_tensor *out = pte_k_arg_tensor(ctx, args, nargs, 3);
  if (!in || !out || !pte_k_check_out_dtype(ctx, NULL, "input", in, out, false)) return;
  if (in->dtype == PTE_DTYPE_BOOL) PTE_K_BAD("upsample_nearest2d: bool is not supported");
  if (in->dim != 4) PTE_K_BAD("upsample_nearest2d: expected a 4-D input, got rank %d", (int)in->dim);
  bool has_size = !pte_k_arg_is_none(args, nargs, 1), has_scale = !pte_k_arg_is_none(args, nargs, 2);
  if (has_size == has_scale) PTE_K_BAD("upsample_nearest2d: specify exactly one of output_size and scale_factors");
  int64_t ih = in->sizes[2], iw = in->sizes[3], oh, ow;
  double sh = 0, sw = 0;
  if (has_size) {
    size_t n;
    const int64_t *os = pte_k_arg_int_list(ctx, args, nargs, 1, &n);
    if (!os) return;
    if (n != 2) PTE_K_BAD("upsample_nearest2d: output_size must have 2 entries, got %zu", n);
    oh = os[0];
    ow = os[1];
  } else {
    pte_evalue *sv = args[2];
    if (sv->tag != PTE_TAG_LIST_DOUBLE) PTE_K_BAD("arg 2: expected a float list");
    if (sv->u.double_list.len != 2) PTE_K_BAD("upsample_nearest2d: scale_factors must have 2 entries");
    sh = sv->u.double_list.items[0];
    sw = sv->u.double_list.items[1];
    double fh = (double)ih * sh, fw = (double)iw * sw;
    if (!(fh >= 0 && fh < 2147483648.0 && fw >= 0 && fw < 2147483648.0))
      PTE_K_BAD("upsample_nearest2d: invalid scale factors");
    oh = (int64_t)fh;
    ow = (int64_t)fw;
  }
  if (ih <= 0 || iw <= 0 || oh <= 0 || ow <= 0 || oh > INT32_MAX || ow > INT32_MAX)
    PTE_K_BAD("upsample_nearest2d: input and output sizes should be greater than 0");
  int32_t osz[4] = {in->sizes[0], in->sizes[1], (int32_t)oh, (int32_t)ow};
  if (!pte_k_check_data(ctx, in, "input") || !pte_k_resize_out(ctx, out, osz, 4)) return;
  if (out->numel > 0) {
    size_t es = pte_dtype_size(out->dtype);
    const uint8_t *s = (const uint8_t *)in->data;
    uint8_t *o = (uint8_t *)out->data;
    int64_t N = osz[0], C = osz[1];
    const int32_t *is = in->strides, *os = out->strides;
    if (out->strides[1] == 1 && in->strides[1] == 1) {
      /* channels-last: each output pixel is one run of C elements */
      for (int64_t n = 0; n < N; n++)
        for (int64_t y = 0; y < oh; y++) {
          int64_t iy = nearest_idx(y, ih, oh, !has_size, sh);
          for (int64_t x = 0; x < ow; x++) {
            int64_t ix = nearest_idx(x, iw, ow, !has_size, sw);
            int64_t sb = n * is[0] + iy * is[2] + ix * is[3];
            int64_t db = n * os[0] + y * os[2] + x * os[3];
            memcpy(o + db * (int64_t)es, s + sb * (int64_t)es, (size_t)C * es);
          }
        }
    } else {
      for (int64_t n = 0; n < N; n++)
        for (int64_t c = 0; c < C; c++)
          for (int64_t y = 0; y < oh; y++) {
            int64_t iy = nearest_idx(y, ih, oh, !has_size, sh);
            int64_t sb = n * is[0] + c * is[1] + iy * is[2];
            int64_t db = n * os[0] + c * os[1] + y * os[2];
            for (int64_t x = 0; x < ow; x++) {
              int64_t ix = nearest_idx(x, iw, ow, !has_size, sw);
              copy_elem(o + (db + x * os[3]) * (int64_t)es, s + (sb + ix * is[3]) * (int64_t)es, es);
            }
          }
    }
  }
  pte_k_set_return(args, nargs, 3);
}

/* ---- table ---------------------------------------------------------------------------------- */

const pte_kernel pte_portable_index_kernels[] = {
    {"aten::index.Tensor_out", NULL, op_index_tensor},
    {"aten::index_select.out", NULL, op_index_select},
    {"aten::gather.out", NULL, op_gather},
    {"aten::scatter.value_out", NULL, op_scatter_value},
    {"aten::scatter.src_out", NULL, op_scatter_src},
    {"aten::scatter_add.out", NULL, op_scatter_add},
    {"aten::embedding.out", NULL, op_embedding},
    {"aten::upsample_nearest2d.vec_out", NULL, op_upsample_nearest2d_vec},
};
const size_t pte_portable_index_kernels_count =
    sizeof pte_portable_index_kernels / sizeof pte_portable_index_kernels[0];
