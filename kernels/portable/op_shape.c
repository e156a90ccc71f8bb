/* Shape / copy kernels: view, permute, expand, squeeze, unsqueeze, select, slice, cat, split,
 * constant_pad_nd, arange, repeat, transpose, t, flip.
 *
 * Except for cat, constant_pad_nd and arange these are pure data movement: out has self's dtype
 * and every element is copied as raw bytes, so every dtype works. Each copy is expressed as an
 * N-d strided copy (pte_ks_copy_nd) from a "view" of self (sizes + element strides + base offset)
 * to out, which honours every dim order on both sides. constant_pad_nd and arange live in
 * op_shape_fill.c (portable/shape_fill.h); this table lists them.
 */
#include <string.h>

#include "portable/portable_shape.h"
#include "portable/shape_fill.h"
#include "portable/util/kutil.h"
#include "portable/util/kutil_shape.h"


/* A view of a tensor: out-shaped sizes, element strides into base, and a base element offset. */
typedef struct view {
  int32_t dim;
  int64_t sizes[PTE_MAX_RANK];
  int64_t st[PTE_MAX_RANK];
  int64_t off;
} view;

/* Copies view v of src (same dtype) into out (v's sizes equal out's sizes). */
static void copy_view_to(pte_tensor *out, const pte_tensor *src, const view *v) {
  if (out->numel == 0) return;
  size_t es = pte_dtype_size(out->dtype);
  int64_t ds[PTE_MAX_RANK];
  pte_ks_strides64(out, ds);
  const uint8_t *s = (const uint8_t *)src->data + v->off * (int64_t)es;
  pte_ks_copy_nd(out->data, ds, s, v->st, v->sizes, out->dim, es);
}

/* Resolves a view size list (at most one -1) against numel. */
static bool view_sizes(pte_kernel_context *ctx, size_t numel, const int64_t *size, size_t n,
                       int32_t *out) {
  if (n > PTE_MAX_RANK) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "too many dims (%zu)", n);
    return false;
  }
  int infer = -1;
  uint64_t prod = 1;
  for (size_t i = 0; i < n; i++) {
    if (size[i] == -1) {
      if (infer >= 0) {
        pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "only one dimension can be inferred");
        return false;
      }
      infer = (int)i;
      continue;
    }
    if (size[i] < 0 || size[i] > INT32_MAX) {
      pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "invalid size %lld", (long long)size[i]);
      return false;
    }
    out[i] = (int32_t)size[i];
    if (prod && size[i] && prod > UINT64_MAX / (uint64_t)size[i]) prod = UINT64_MAX;
    else prod *= (uint64_t)size[i];
  }
  if (infer >= 0) {
    if (prod == 0 || numel % prod != 0 || numel / prod > INT32_MAX) {
      pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "shape is invalid for input of size %zu",
                      numel);
      return false;
    }
    out[infer] = (int32_t)(numel / prod);
    prod = numel;
  }
  if (prod != numel) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "shape is invalid for input of size %zu", numel);
    return false;
  }
  return true;
}

/* ---- view_copy / et_view ------------------------------------------------------------------ */

/* aten::view_copy.out(Tensor self, SymInt[] size, *, Tensor(a!) out) */
static void op_view_copy(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  if (!pte_k_check_nargs(ctx, nargs, 3, 4)) return;
  pte_tensor *self = pte_k_arg_tensor(ctx, args, nargs, 0);
  size_t n;
  const int64_t *size = pte_k_arg_int_list(ctx, args, nargs, 1, &n);
  pte_tensor *out = pte_k_arg_tensor(ctx, args, nargs, 2);
  if (!self || !size || !out || !pte_k_check_out_dtype(ctx, NULL, "self", self, out, true)) return;
  int32_t sizes[PTE_MAX_RANK];
  if (!view_sizes(ctx, self->numel, size, n, sizes)) return;
  if ((int32_t)n != out->dim) PTE_K_BAD("out has rank %d, view has %d", (int)out->dim, (int)n);
  if (!pte_k_check_data(ctx, self, "self") || !pte_k_resize_out(ctx, out, sizes, (int32_t)n)) return;
  pte_ks_copy_logical(out, self);
  pte_k_set_return(args, nargs, 2);
}

/* executorch_prim::et_view.default(Tensor self, int[] size) -> Tensor: out (args[2]) becomes a
 * view: its data pointer is set to self's data, nothing is copied. */
static void op_et_view(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  if (!pte_k_check_nargs(ctx, nargs, 3, 4)) return;
  pte_tensor *self = pte_k_arg_tensor(ctx, args, nargs, 0);
  size_t n;
  const int64_t *size = pte_k_arg_int_list(ctx, args, nargs, 1, &n);
  pte_tensor *out = pte_k_arg_tensor(ctx, args, nargs, 2);
  if (!self || !size || !out || !pte_k_check_out_dtype(ctx, NULL, "self", self, out, true)) return;
  int32_t sizes[PTE_MAX_RANK];
  if (!view_sizes(ctx, self->numel, size, n, sizes)) return;
  if ((int32_t)n != out->dim) PTE_K_BAD("out has rank %d, view has %d", (int)out->dim, (int)n);
  if (!pte_k_check_data(ctx, self, "self")) return;
  out->data = self->data;
  size_t nbytes = self->numel * pte_dtype_size(self->dtype);
  out->capacity_bytes = self->capacity_bytes > nbytes ? self->capacity_bytes : nbytes;
  out->flags = (uint8_t)((out->flags & ~PTE_TENSOR_CONST) | (self->flags & PTE_TENSOR_CONST));
  if (!pte_k_resize_out(ctx, out, sizes, (int32_t)n)) return;
  pte_k_set_return(args, nargs, 2);
}

/* ---- permute / transpose / t ---------------------------------------------------------------- */

static void finish_permute(pte_kernel_context *ctx, pte_evalue **args, size_t nargs, size_t out_idx,
                           pte_tensor *self, pte_tensor *out, const int32_t *perm) {
  int32_t sizes[PTE_MAX_RANK];
  view v;
  v.dim = self->dim;
  v.off = 0;
  for (int32_t i = 0; i < self->dim; i++) {
    sizes[i] = self->sizes[perm[i]];
    v.sizes[i] = sizes[i];
    v.st[i] = self->strides[perm[i]];
  }
  if (out->dim != self->dim) PTE_K_BAD("out has rank %d, expected %d", (int)out->dim, (int)self->dim);
  if (!pte_k_check_data(ctx, self, "self") || !pte_k_resize_out(ctx, out, sizes, self->dim)) return;
  copy_view_to(out, self, &v);
  pte_k_set_return(args, nargs, out_idx);
}

/* aten::permute_copy.out(Tensor self, int[] dims, *, Tensor(a!) out) */
static void op_permute_copy(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  if (!pte_k_check_nargs(ctx, nargs, 3, 4)) return;
  pte_tensor *self = pte_k_arg_tensor(ctx, args, nargs, 0);
  size_t n;
  const int64_t *dims = pte_k_arg_int_list(ctx, args, nargs, 1, &n);
  pte_tensor *out = pte_k_arg_tensor(ctx, args, nargs, 2);
  if (!self || !dims || !out || !pte_k_check_out_dtype(ctx, NULL, "self", self, out, true)) return;
  if ((int32_t)n != self->dim) PTE_K_BAD("dims has %zu entries, self has rank %d", n, (int)self->dim);
  int32_t perm[PTE_MAX_RANK];
  uint32_t seen = 0;
  for (size_t i = 0; i < n; i++) {
    if (!pte_ks_wrap_dim(dims[i], self->dim, &perm[i])) PTE_K_BAD("dim %lld out of range", (long long)dims[i]);
    if (seen & (1u << perm[i])) PTE_K_BAD("repeated dim %d in permute", (int)perm[i]);
    seen |= 1u << perm[i];
  }
  finish_permute(ctx, args, nargs, 2, self, out, perm);
}

/* aten::transpose_copy.int_out(Tensor self, int dim0, int dim1, *, Tensor(a!) out) */
static void op_transpose_copy(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  if (!pte_k_check_nargs(ctx, nargs, 4, 5)) return;
  pte_tensor *self = pte_k_arg_tensor(ctx, args, nargs, 0);
  int64_t d0, d1;
  if (!self || !pte_k_arg_int(ctx, args, nargs, 1, &d0) || !pte_k_arg_int(ctx, args, nargs, 2, &d1))
    return;
  pte_tensor *out = pte_k_arg_tensor(ctx, args, nargs, 3);
  if (!out || !pte_k_check_out_dtype(ctx, NULL, "self", self, out, true)) return;
  int32_t a, b;
  if (!pte_ks_wrap_dim(d0, self->dim, &a) || !pte_ks_wrap_dim(d1, self->dim, &b))
    PTE_K_BAD("transpose dims (%lld, %lld) out of range for rank %d", (long long)d0, (long long)d1,
        (int)self->dim);
  int32_t perm[PTE_MAX_RANK];
  for (int32_t i = 0; i < self->dim; i++) perm[i] = i;
  if (self->dim > 0) {
    perm[a] = b;
    perm[b] = a;
  }
  finish_permute(ctx, args, nargs, 3, self, out, perm);
}

/* aten::t_copy.out(Tensor self, *, Tensor(a!) out) */
static void op_t_copy(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  if (!pte_k_check_nargs(ctx, nargs, 2, 3)) return;
  pte_tensor *self = pte_k_arg_tensor(ctx, args, nargs, 0);
  pte_tensor *out = pte_k_arg_tensor(ctx, args, nargs, 1);
  if (!self || !out || !pte_k_check_out_dtype(ctx, NULL, "self", self, out, true)) return;
  if (self->dim > 2) PTE_K_BAD("t() expects a tensor with <= 2 dimensions, got %d", (int)self->dim);
  int32_t perm[2] = {0, 1};
  if (self->dim == 2) {
    perm[0] = 1;
    perm[1] = 0;
  }
  finish_permute(ctx, args, nargs, 1, self, out, perm);
}

/* ---- expand ---------------------------------------------------------------------------------- */

typedef struct expand_plan {
  int32_t n;
  size_t blk[PTE_MAX_RANK + 1]; /* bytes of one out block from dim d inward */
  int64_t osz[PTE_MAX_RANK];
  int64_t ssz[PTE_MAX_RANK];
  int64_t sst[PTE_MAX_RANK]; /* contiguous source strides, in bytes */
  bool tail_same[PTE_MAX_RANK + 1];
} expand_plan;

/* Replicates the first `blk` bytes at p so that `count` copies are present. */
static void replicate(uint8_t *p, size_t blk, int64_t count) {
  size_t done = 1, n = (size_t)count;
  while (done < n) {
    size_t c = done <= n - done ? done : n - done;
    memcpy(p + done * blk, p, c * blk);
    done += c;
  }
}

static void expand_rec(const expand_plan *pl, int32_t d, uint8_t *dst, const uint8_t *src) {
  if (pl->tail_same[d]) {
    memcpy(dst, src, pl->blk[d]);
    return;
  }
  if (pl->ssz[d] == pl->osz[d]) {
    for (int64_t i = 0; i < pl->osz[d]; i++)
      expand_rec(pl, d + 1, dst + (size_t)i * pl->blk[d + 1], src + i * pl->sst[d]);
  } else {
    expand_rec(pl, d + 1, dst, src);
    replicate(dst, pl->blk[d + 1], pl->osz[d]);
  }
}

/* aten::expand_copy.out(Tensor self, SymInt[] size, *, bool implicit=False, Tensor(a!) out) */
static void op_expand_copy(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  if (!pte_k_check_nargs(ctx, nargs, 4, 5)) return;
  pte_tensor *self = pte_k_arg_tensor(ctx, args, nargs, 0);
  size_t n;
  const int64_t *size = pte_k_arg_int_list(ctx, args, nargs, 1, &n);
  bool implicit;
  if (!self || !size || !pte_k_arg_bool(ctx, args, nargs, 2, &implicit)) return;
  pte_tensor *out = pte_k_arg_tensor(ctx, args, nargs, 3);
  if (!out || !pte_k_check_out_dtype(ctx, NULL, "self", self, out, true)) return;
  if (n > PTE_MAX_RANK || (int32_t)n < self->dim)
    PTE_K_BAD("expand: %zu sizes for a tensor of rank %d", n, (int)self->dim);
  int32_t lead = (int32_t)n - self->dim;
  int32_t sizes[PTE_MAX_RANK];
  view v;
  v.dim = (int32_t)n;
  v.off = 0;
  for (int32_t i = 0; i < (int32_t)n; i++) {
    int32_t j = i - lead;
    if (j < 0) {
      if (size[i] < 0 || size[i] > INT32_MAX)
        PTE_K_BAD("expand: invalid size %lld for new leading dim %d", (long long)size[i], (int)i);
      sizes[i] = (int32_t)size[i];
      v.st[i] = 0;
    } else if (size[i] == -1 || size[i] == self->sizes[j]) {
      sizes[i] = self->sizes[j];
      v.st[i] = self->strides[j];
    } else if (self->sizes[j] == 1 && size[i] >= 0 && size[i] <= INT32_MAX) {
      sizes[i] = (int32_t)size[i];
      v.st[i] = 0;
    } else {
      PTE_K_BAD("expand: size %lld must match existing size %d at dim %d", (long long)size[i],
          (int)self->sizes[j], (int)i);
    }
    v.sizes[i] = sizes[i];
  }
  if (out->dim != (int32_t)n) PTE_K_BAD("out has rank %d, expected %zu", (int)out->dim, n);
  if (!pte_k_check_data(ctx, self, "self") || !pte_k_resize_out(ctx, out, sizes, (int32_t)n)) return;
  if (out->numel > 0) {
    if (pte_k_is_contiguous(out) && pte_k_is_contiguous(self)) {
      /* memcpy-based block replication */
      expand_plan pl;
      size_t es = pte_dtype_size(out->dtype);
      pl.n = (int32_t)n;
      pl.blk[n] = es;
      pl.tail_same[n] = true;
      int64_t sstride = (int64_t)es;
      for (int32_t i = (int32_t)n - 1; i >= 0; i--) {
        int32_t j = i - lead;
        pl.osz[i] = sizes[i];
        pl.ssz[i] = j >= 0 ? self->sizes[j] : 1;
        pl.sst[i] = sstride;
        sstride *= pl.ssz[i];
        pl.blk[i] = pl.blk[i + 1] * (size_t)sizes[i];
        pl.tail_same[i] = pl.tail_same[i + 1] && pl.ssz[i] == pl.osz[i];
      }
      expand_rec(&pl, 0, (uint8_t *)out->data, (const uint8_t *)self->data);
    } else {
      copy_view_to(out, self, &v);
    }
  }
  pte_k_set_return(args, nargs, 3);
}

/* ---- squeeze / unsqueeze ------------------------------------------------------------------- */

/* Copies self into out where out's dims are self's dims listed in keep[] (size-1 dims of self
 * dropped) or, for keep[i] < 0, inserted size-1 dims. */
static void finish_mapped(pte_kernel_context *ctx, pte_evalue **args, size_t nargs, size_t out_idx,
                          pte_tensor *self, pte_tensor *out, const int32_t *keep, int32_t odim) {
  int32_t sizes[PTE_MAX_RANK];
  view v;
  v.dim = odim;
  v.off = 0;
  for (int32_t i = 0; i < odim; i++) {
    sizes[i] = keep[i] >= 0 ? self->sizes[keep[i]] : 1;
    v.sizes[i] = sizes[i];
    v.st[i] = keep[i] >= 0 ? self->strides[keep[i]] : 0;
  }
  if (out->dim != odim) PTE_K_BAD("out has rank %d, expected %d", (int)out->dim, (int)odim);
  if (!pte_k_check_data(ctx, self, "self") || !pte_k_resize_out(ctx, out, sizes, odim)) return;
  copy_view_to(out, self, &v);
  pte_k_set_return(args, nargs, out_idx);
}

static void squeeze_common(pte_kernel_context *ctx, pte_evalue **args, size_t nargs,
                           const int64_t *dims, size_t n) {
  pte_tensor *self = pte_k_arg_tensor(ctx, args, nargs, 0);
  pte_tensor *out = pte_k_arg_tensor(ctx, args, nargs, 2);
  if (!self || !out || !pte_k_check_out_dtype(ctx, NULL, "self", self, out, true)) return;
  uint32_t mask = 0;
  for (size_t i = 0; i < n; i++) {
    int32_t d;
    if (!pte_ks_wrap_dim(dims[i], self->dim, &d)) PTE_K_BAD("dim %lld out of range", (long long)dims[i]);
    if (mask & (1u << d)) PTE_K_BAD("dim %d appears multiple times in squeeze dims", (int)d);
    mask |= 1u << d;
  }
  int32_t keep[PTE_MAX_RANK], odim = 0;
  for (int32_t d = 0; d < self->dim; d++)
    if (!((mask >> d) & 1u) || self->sizes[d] != 1) keep[odim++] = d;
  finish_mapped(ctx, args, nargs, 2, self, out, keep, odim);
}

/* aten::squeeze_copy.dim_out(Tensor self, int dim, *, Tensor(a!) out) */
static void op_squeeze_copy_dim(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  if (!pte_k_check_nargs(ctx, nargs, 3, 4)) return;
  int64_t d;
  if (!pte_k_arg_int(ctx, args, nargs, 1, &d)) return;
  squeeze_common(ctx, args, nargs, &d, 1);
}

/* aten::squeeze_copy.dims_out(Tensor self, int[] dim, *, Tensor(a!) out) */
static void op_squeeze_copy_dims(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  if (!pte_k_check_nargs(ctx, nargs, 3, 4)) return;
  size_t n;
  const int64_t *dims = pte_k_arg_int_list(ctx, args, nargs, 1, &n);
  if (!dims) return;
  squeeze_common(ctx, args, nargs, dims, n);
}

/* aten::unsqueeze_copy.out(Tensor self, int dim, *, Tensor(a!) out) */
static void op_unsqueeze_copy(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  if (!pte_k_check_nargs(ctx, nargs, 3, 4)) return;
  pte_tensor *self = pte_k_arg_tensor(ctx, args, nargs, 0);
  int64_t d;
  if (!self || !pte_k_arg_int(ctx, args, nargs, 1, &d)) return;
  pte_tensor *out = pte_k_arg_tensor(ctx, args, nargs, 2);
  if (!out || !pte_k_check_out_dtype(ctx, NULL, "self", self, out, true)) return;
  if (self->dim >= PTE_MAX_RANK) PTE_K_BAD("unsqueeze: rank %d too large", (int)self->dim);
  int32_t pos;
  if (!pte_ks_wrap_dim(d, self->dim + 1, &pos)) PTE_K_BAD("dim %lld out of range", (long long)d);
  int32_t keep[PTE_MAX_RANK], odim = 0;
  for (int32_t i = 0; i <= self->dim; i++) {
    if (i == pos) keep[odim++] = -1;
    if (i < self->dim) keep[odim++] = i;
  }
  finish_mapped(ctx, args, nargs, 2, self, out, keep, odim);
}

/* ---- select / slice ------------------------------------------------------------------------- */

/* aten::select_copy.int_out(Tensor self, int dim, SymInt index, *, Tensor(a!) out) */
static void op_select_copy(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  if (!pte_k_check_nargs(ctx, nargs, 4, 5)) return;
  pte_tensor *self = pte_k_arg_tensor(ctx, args, nargs, 0);
  int64_t d, index;
  if (!self || !pte_k_arg_int(ctx, args, nargs, 1, &d) || !pte_k_arg_int(ctx, args, nargs, 2, &index))
    return;
  pte_tensor *out = pte_k_arg_tensor(ctx, args, nargs, 3);
  if (!out || !pte_k_check_out_dtype(ctx, NULL, "self", self, out, true)) return;
  if (self->dim == 0) PTE_K_BAD("select() cannot be applied to a 0-dim tensor");
  int32_t dim;
  if (!pte_ks_wrap_dim(d, self->dim, &dim)) PTE_K_BAD("dim %lld out of range", (long long)d);
  int64_t sz = self->sizes[dim];
  if (index < -sz || index >= sz)
    PTE_K_BAD("select(): index %lld out of range for tensor of size %lld at dimension %d",
        (long long)index, (long long)sz, (int)dim);
  if (index < 0) index += sz;
  int32_t sizes[PTE_MAX_RANK];
  view v;
  v.dim = self->dim - 1;
  v.off = index * self->strides[dim];
  for (int32_t i = 0, k = 0; i < self->dim; i++) {
    if (i == dim) continue;
    sizes[k] = self->sizes[i];
    v.sizes[k] = sizes[k];
    v.st[k] = self->strides[i];
    k++;
  }
  if (out->dim != v.dim) PTE_K_BAD("out has rank %d, expected %d", (int)out->dim, (int)v.dim);
  if (!pte_k_check_data(ctx, self, "self") || !pte_k_resize_out(ctx, out, sizes, v.dim)) return;
  copy_view_to(out, self, &v);
  pte_k_set_return(args, nargs, 3);
}

/* aten::slice_copy.Tensor_out(Tensor self, int dim=0, SymInt? start=None, SymInt? end=None,
 *                             SymInt step=1, *, Tensor(a!) out) */
static void op_slice_copy(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  if (!pte_k_check_nargs(ctx, nargs, 6, 7)) return;
  pte_tensor *self = pte_k_arg_tensor(ctx, args, nargs, 0);
  int64_t d, start = 0, end = INT64_MAX, step;
  if (!self || !pte_k_arg_int(ctx, args, nargs, 1, &d)) return;
  if (!pte_k_arg_is_none(args, nargs, 2) && !pte_k_arg_int(ctx, args, nargs, 2, &start)) return;
  if (!pte_k_arg_is_none(args, nargs, 3) && !pte_k_arg_int(ctx, args, nargs, 3, &end)) return;
  if (!pte_k_arg_int(ctx, args, nargs, 4, &step)) return;
  pte_tensor *out = pte_k_arg_tensor(ctx, args, nargs, 5);
  if (!out || !pte_k_check_out_dtype(ctx, NULL, "self", self, out, true)) return;
  if (self->dim == 0) PTE_K_BAD("slice() cannot be applied to a 0-dim tensor");
  if (step <= 0) PTE_K_BAD("slice step must be positive, got %lld", (long long)step);
  int32_t dim;
  if (!pte_ks_wrap_dim(d, self->dim, &dim)) PTE_K_BAD("dim %lld out of range", (long long)d);
  int64_t len = pte_ks_slice_len(&start, end, step, self->sizes[dim]);
  int32_t sizes[PTE_MAX_RANK];
  view v;
  v.dim = self->dim;
  v.off = start * self->strides[dim];
  for (int32_t i = 0; i < self->dim; i++) {
    sizes[i] = i == dim ? (int32_t)len : self->sizes[i];
    v.sizes[i] = sizes[i];
    v.st[i] = (i == dim && len > 1) ? self->strides[i] * step : self->strides[i];
  }
  if (out->dim != self->dim) PTE_K_BAD("out has rank %d, expected %d", (int)out->dim, (int)self->dim);
  if (!pte_k_check_data(ctx, self, "self") || !pte_k_resize_out(ctx, out, sizes, self->dim)) return;
  copy_view_to(out, self, &v);
  pte_k_set_return(args, nargs, 5);
}

/* ---- cat / split ------------------------------------------------------------------------------ */

static bool cat_skip(const pte_tensor *t) { return t->dim == 1 && t->numel == 0; }

/* aten::cat.out(Tensor[] tensors, int dim=0, *, Tensor(a!) out) */
static void op_cat(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  if (!pte_k_check_nargs(ctx, nargs, 3, 4)) return;
  pte_evalue *lv = args[0];
  if (!lv || lv->tag != PTE_TAG_LIST_TENSOR) PTE_K_BAD("arg 0: expected a TensorList");
  int64_t d;
  if (!pte_k_arg_int(ctx, args, nargs, 1, &d)) return;
  pte_tensor *out = pte_k_arg_tensor(ctx, args, nargs, 2);
  if (!out) return;
  size_t nt = lv->u.tensor_list.len;
  if (nt == 0) PTE_K_BAD("cat expects a non-empty list of tensors");
  if (!pte_k_dtype_supported(out->dtype)) PTE_K_BAD("cat: unsupported out dtype %s", pte_dtype_name(out->dtype));
  const pte_tensor *ref = NULL;
  for (size_t i = 0; i < nt; i++) {
    pte_evalue *e = lv->u.tensor_list.items[i];
    if (!e || e->tag != PTE_TAG_TENSOR || !e->u.tensor) PTE_K_BAD("cat: list item %zu is not a tensor", i);
    const pte_tensor *t = e->u.tensor;
    if (!pte_k_dtype_supported(t->dtype) || !pte_k_can_cast(t->dtype, out->dtype))
      PTE_K_BAD("cat: tensor %zu of dtype %s cannot be cast to out dtype %s", i, pte_dtype_name(t->dtype),
          pte_dtype_name(out->dtype));
    if (!pte_k_check_data(ctx, t, "cat input")) return;
    if (!ref && !cat_skip(t)) ref = t;
  }
  int32_t sizes[PTE_MAX_RANK];
  int32_t rank;
  int32_t dim = 0;
  if (!ref) {
    /* every input is an empty 1-D tensor */
    if (!pte_ks_wrap_dim(d, 1, &dim)) PTE_K_BAD("dim %lld out of range", (long long)d);
    rank = 1;
    sizes[0] = 0;
  } else {
    rank = ref->dim;
    if (rank == 0) PTE_K_BAD("zero-dimensional tensor cannot be concatenated");
    if (!pte_ks_wrap_dim(d, rank, &dim)) PTE_K_BAD("dim %lld out of range", (long long)d);
    int64_t total = 0;
    for (size_t i = 0; i < nt; i++) {
      const pte_tensor *t = lv->u.tensor_list.items[i]->u.tensor;
      if (cat_skip(t)) continue;
      if (t->dim != rank) PTE_K_BAD("cat: tensor %zu has rank %d, expected %d", i, (int)t->dim, (int)rank);
      for (int32_t k = 0; k < rank; k++)
        if (k != dim && t->sizes[k] != ref->sizes[k])
          PTE_K_BAD("cat: sizes of tensors must match except in dimension %d (tensor %zu dim %d)",
              (int)dim, i, (int)k);
      total += t->sizes[dim];
    }
    if (total > INT32_MAX) PTE_K_BAD("cat: result too large");
    for (int32_t k = 0; k < rank; k++) sizes[k] = k == dim ? (int32_t)total : ref->sizes[k];
  }
  if (out->dim != rank) PTE_K_BAD("out has rank %d, expected %d", (int)out->dim, (int)rank);
  if (!pte_k_resize_out(ctx, out, sizes, rank)) return;
  if (ref && out->numel > 0) {
    size_t es = pte_dtype_size(out->dtype);
    int64_t ds[PTE_MAX_RANK];
    pte_ks_strides64(out, ds);
    int64_t pos = 0;
    for (size_t i = 0; i < nt; i++) {
      const pte_tensor *t = lv->u.tensor_list.items[i]->u.tensor;
      if (cat_skip(t)) continue;
      int64_t sz[PTE_MAX_RANK], ss[PTE_MAX_RANK];
      for (int32_t k = 0; k < rank; k++) {
        sz[k] = t->sizes[k];
        ss[k] = t->strides[k];
      }
      uint8_t *dst = (uint8_t *)out->data + pos * ds[dim] * (int64_t)es;
      if (t->numel > 0)
        pte_ks_convert_nd(dst, out->dtype, ds, t->data, t->dtype, ss, sz, rank);
      pos += t->sizes[dim];
    }
  }
  pte_k_set_return(args, nargs, 2);
}

/* aten::stack.out(Tensor[] tensors, int dim=0, *, Tensor(a!) out) */
static void op_stack(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  if (!pte_k_check_nargs(ctx, nargs, 3, 4)) return;
  pte_evalue *lv = args[0];
  if (!lv || lv->tag != PTE_TAG_LIST_TENSOR) PTE_K_BAD("arg 0: expected a TensorList");
  int64_t d;
  if (!pte_k_arg_int(ctx, args, nargs, 1, &d)) return;
  pte_tensor *out = pte_k_arg_tensor(ctx, args, nargs, 2);
  if (!out) return;
  size_t nt = lv->u.tensor_list.len;
  if (nt == 0) PTE_K_BAD("stack expects a non-empty TensorList");
  if (nt > INT32_MAX) PTE_K_BAD("stack: too many tensors");
  if (!pte_k_dtype_supported(out->dtype)) PTE_K_BAD("stack: unsupported out dtype %s", pte_dtype_name(out->dtype));
  const pte_tensor *ref = NULL;
  for (size_t i = 0; i < nt; i++) {
    pte_evalue *e = lv->u.tensor_list.items[i];
    if (!e || e->tag != PTE_TAG_TENSOR || !e->u.tensor) PTE_K_BAD("stack: list item %zu is not a tensor", i);
    const pte_tensor *t = e->u.tensor;
    if (!pte_k_dtype_supported(t->dtype) || !pte_k_can_cast(t->dtype, out->dtype))
      PTE_K_BAD("stack: tensor %zu of dtype %s cannot be cast to out dtype %s", i, pte_dtype_name(t->dtype),
          pte_dtype_name(out->dtype));
    if (!pte_k_check_data(ctx, t, "stack input")) return;
    if (!ref) ref = t;
    if (!pte_k_same_shape(t, ref)) PTE_K_BAD("stack expects each tensor to be equal size (tensor %zu differs)", i);
  }
  int32_t rank = ref->dim + 1;
  if (rank > PTE_MAX_RANK) PTE_K_BAD("stack: result rank too large");
  int32_t dim;
  if (!pte_ks_wrap_dim(d, rank, &dim)) PTE_K_BAD("dim %lld out of range", (long long)d);
  int32_t sizes[PTE_MAX_RANK];
  for (int32_t k = 0, j = 0; k < rank; k++) sizes[k] = k == dim ? (int32_t)nt : ref->sizes[j++];
  if (out->dim != rank) PTE_K_BAD("out has rank %d, expected %d", (int)out->dim, (int)rank);
  if (!pte_k_resize_out(ctx, out, sizes, rank)) return;
  if (out->numel > 0) {
    size_t es = pte_dtype_size(out->dtype);
    int64_t ds[PTE_MAX_RANK], sz[PTE_MAX_RANK], ss[PTE_MAX_RANK];
    for (int32_t k = 0, j = 0; k < rank; k++) {
      if (k == dim) continue;
      sz[j] = out->sizes[k];
      ds[j] = out->strides[k];
      j++;
    }
    for (size_t i = 0; i < nt; i++) {
      const pte_tensor *t = lv->u.tensor_list.items[i]->u.tensor;
      pte_ks_strides64(t, ss);
      uint8_t *dst = (uint8_t *)out->data + (int64_t)i * out->strides[dim] * (int64_t)es;
      pte_ks_convert_nd(dst, out->dtype, ds, t->data, t->dtype, ss, sz, ref->dim);
    }
  }
  pte_k_set_return(args, nargs, 2);
}

/* Splits self along dim into the tensors of the out list with the given chunk sizes. */
/* chunks == NULL: every chunk has `uniform` entries except a smaller last one. */
static void split_common(pte_kernel_context *ctx, pte_evalue **args, size_t nargs, pte_tensor *self,
                         int32_t dim, const int64_t *chunks, int64_t uniform, size_t nchunks) {
  pte_evalue *lv = args[3];
  if (!lv || lv->tag != PTE_TAG_LIST_TENSOR) PTE_K_BAD("arg 3: expected a TensorList");
  if (lv->u.tensor_list.len != nchunks)
    PTE_K_BAD("split: out list has %zu tensors, expected %zu", lv->u.tensor_list.len, nchunks);
  if (!pte_k_check_data(ctx, self, "self")) return;
  int64_t pos = 0;
  for (size_t i = 0; i < nchunks; i++) {
    pte_evalue *e = lv->u.tensor_list.items[i];
    if (!e || e->tag != PTE_TAG_TENSOR || !e->u.tensor) PTE_K_BAD("split: out item %zu is not a tensor", i);
    pte_tensor *o = e->u.tensor;
    int64_t csz = chunks ? chunks[i] : uniform;
    if (!chunks && self->sizes[dim] - pos < csz) csz = self->sizes[dim] - pos;
    if (!pte_k_check_out_dtype(ctx, NULL, "self", self, o, true)) return;
    if (o->dim != self->dim) PTE_K_BAD("split: out %zu has rank %d, expected %d", i, (int)o->dim, (int)self->dim);
    int32_t sizes[PTE_MAX_RANK];
    view v;
    v.dim = self->dim;
    v.off = pos * self->strides[dim];
    for (int32_t k = 0; k < self->dim; k++) {
      sizes[k] = k == dim ? (int32_t)csz : self->sizes[k];
      v.sizes[k] = sizes[k];
      v.st[k] = self->strides[k];
    }
    if (!pte_k_resize_out(ctx, o, sizes, self->dim)) return;
    copy_view_to(o, self, &v);
    pos += csz;
  }
  pte_k_set_return(args, nargs, 3);
}

/* aten::split_with_sizes_copy.out(Tensor self, SymInt[] split_sizes, int dim=0, *,
 *                                 Tensor(a!)[] out) -> () */
static void op_split_with_sizes_copy(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  if (!pte_k_check_nargs(ctx, nargs, 4, 5)) return;
  pte_tensor *self = pte_k_arg_tensor(ctx, args, nargs, 0);
  size_t n;
  const int64_t *split = pte_k_arg_int_list(ctx, args, nargs, 1, &n);
  int64_t d;
  if (!self || !split || !pte_k_arg_int(ctx, args, nargs, 2, &d)) return;
  if (self->dim == 0) PTE_K_BAD("split expects at least a 1-dimensional tensor");
  int32_t dim;
  if (!pte_ks_wrap_dim(d, self->dim, &dim)) PTE_K_BAD("dim %lld out of range", (long long)d);
  int64_t total = 0;
  for (size_t i = 0; i < n; i++) {
    if (split[i] < 0) PTE_K_BAD("split_with_sizes expects non-negative sizes, got %lld", (long long)split[i]);
    total += split[i];
    if (total > INT32_MAX) break;
  }
  if (total != self->sizes[dim])
    PTE_K_BAD("split_with_sizes expects split_sizes to sum exactly to %d, got %lld", (int)self->sizes[dim],
        (long long)total);
  split_common(ctx, args, nargs, self, dim, split, 0, n);
}

/* aten::split_copy.Tensor_out(Tensor self, SymInt split_size, int dim=0, *, Tensor(a!)[] out) -> () */
static void op_split_copy(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  if (!pte_k_check_nargs(ctx, nargs, 4, 5)) return;
  pte_tensor *self = pte_k_arg_tensor(ctx, args, nargs, 0);
  int64_t split, d;
  if (!self || !pte_k_arg_int(ctx, args, nargs, 1, &split) || !pte_k_arg_int(ctx, args, nargs, 2, &d))
    return;
  if (self->dim == 0) PTE_K_BAD("split expects at least a 1-dimensional tensor");
  int32_t dim;
  if (!pte_ks_wrap_dim(d, self->dim, &dim)) PTE_K_BAD("dim %lld out of range", (long long)d);
  int64_t sz = self->sizes[dim];
  if (split < 0) PTE_K_BAD("split expects split_size be non-negative, got %lld", (long long)split);
  if (split == 0 && sz != 0) PTE_K_BAD("split_size can only be 0 if dimension size is 0");
  int64_t nchunks = split == 0 ? 1 : (sz + split - 1) / split;
  if (nchunks < 1) nchunks = 1;
  split_common(ctx, args, nargs, self, dim, NULL, split, (size_t)nchunks);
}

/* ---- repeat --------------------------------------------------------------------------------- */

/* aten::repeat.out(Tensor self, SymInt[] repeats, *, Tensor(a!) out) */
static void op_repeat(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  if (!pte_k_check_nargs(ctx, nargs, 3, 4)) return;
  pte_tensor *self = pte_k_arg_tensor(ctx, args, nargs, 0);
  size_t n;
  const int64_t *rep = pte_k_arg_int_list(ctx, args, nargs, 1, &n);
  pte_tensor *out = pte_k_arg_tensor(ctx, args, nargs, 2);
  if (!self || !rep || !out || !pte_k_check_out_dtype(ctx, NULL, "self", self, out, true)) return;
  if ((int32_t)n < self->dim)
    PTE_K_BAD("number of repeat dims (%zu) can not be smaller than the tensor rank (%d)", n, (int)self->dim);
  if (n > PTE_MAX_RANK) PTE_K_BAD("repeat: too many dims (%zu)", n);
  int32_t lead = (int32_t)n - self->dim;
  int32_t sizes[PTE_MAX_RANK];
  for (int32_t i = 0; i < (int32_t)n; i++) {
    int64_t s = i >= lead ? self->sizes[i - lead] : 1;
    if (rep[i] < 0) PTE_K_BAD("repeat: negative repeat count %lld", (long long)rep[i]);
    int64_t o = s * rep[i];
    if (rep[i] > INT32_MAX || o > INT32_MAX) PTE_K_BAD("repeat: result too large");
    sizes[i] = (int32_t)o;
  }
  if (out->dim != (int32_t)n) PTE_K_BAD("out has rank %d, expected %zu", (int)out->dim, n);
  if (!pte_k_check_data(ctx, self, "self") || !pte_k_resize_out(ctx, out, sizes, (int32_t)n)) return;
  if (out->numel > 0) {
    /* out viewed as [r0, s0, r1, s1, ...]: tile dims have source stride 0 */
    int64_t sz[PTE_KS_MAX_NDIM], ds[PTE_KS_MAX_NDIM], ss[PTE_KS_MAX_NDIM];
    for (int32_t i = 0; i < (int32_t)n; i++) {
      int64_t s = i >= lead ? self->sizes[i - lead] : 1;
      sz[2 * i] = rep[i];
      sz[2 * i + 1] = s;
      ds[2 * i] = s * out->strides[i];
      ds[2 * i + 1] = out->strides[i];
      ss[2 * i] = 0;
      ss[2 * i + 1] = i >= lead ? self->strides[i - lead] : 0;
    }
    pte_ks_copy_nd(out->data, ds, self->data, ss, sz, 2 * (int32_t)n, pte_dtype_size(out->dtype));
  }
  pte_k_set_return(args, nargs, 2);
}

/* ---- flip ---------------------------------------------------------------------------------- */

/* aten::flip.out(Tensor self, int[] dims, *, Tensor(a!) out) */
static void op_flip(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  if (!pte_k_check_nargs(ctx, nargs, 3, 4)) return;
  pte_tensor *self = pte_k_arg_tensor(ctx, args, nargs, 0);
  size_t n;
  const int64_t *dims = pte_k_arg_int_list(ctx, args, nargs, 1, &n);
  pte_tensor *out = pte_k_arg_tensor(ctx, args, nargs, 2);
  if (!self || !dims || !out || !pte_k_check_out_dtype(ctx, NULL, "self", self, out, true)) return;
  uint32_t mask = 0;
  for (size_t i = 0; i < n; i++) {
    int32_t d;
    if (!pte_ks_wrap_dim(dims[i], self->dim, &d)) PTE_K_BAD("dim %lld out of range", (long long)dims[i]);
    if (mask & (1u << d)) PTE_K_BAD("dims has duplicates (dim %d)", (int)d);
    mask |= 1u << d;
  }
  view v;
  v.dim = self->dim;
  v.off = 0;
  for (int32_t i = 0; i < self->dim; i++) {
    v.sizes[i] = self->sizes[i];
    v.st[i] = self->strides[i];
    if ((mask >> i) & 1u) {
      if (self->sizes[i] > 0) v.off += (int64_t)(self->sizes[i] - 1) * self->strides[i];
      v.st[i] = -v.st[i];
    }
  }
  if (out->dim != self->dim) PTE_K_BAD("out has rank %d, expected %d", (int)out->dim, (int)self->dim);
  if (!pte_k_check_data(ctx, self, "self") || !pte_k_resize_like(ctx, out, self)) return;
  copy_view_to(out, self, &v);
  pte_k_set_return(args, nargs, 2);
}

/* ---- table ---------------------------------------------------------------------------------- */

const pte_kernel pte_portable_shape_kernels[] = {
    {"aten::view_copy.out", NULL, op_view_copy},
    {"executorch_prim::et_view.default", NULL, op_et_view},
    {"aten::permute_copy.out", NULL, op_permute_copy},
    {"aten::expand_copy.out", NULL, op_expand_copy},
    {"aten::squeeze_copy.dim_out", NULL, op_squeeze_copy_dim},
    {"aten::squeeze_copy.dims_out", NULL, op_squeeze_copy_dims},
    {"aten::unsqueeze_copy.out", NULL, op_unsqueeze_copy},
    {"aten::select_copy.int_out", NULL, op_select_copy},
    {"aten::slice_copy.Tensor_out", NULL, op_slice_copy},
    {"aten::cat.out", NULL, op_cat},
    {"aten::stack.out", NULL, op_stack},
    {"aten::split_with_sizes_copy.out", NULL, op_split_with_sizes_copy},
    {"aten::split_copy.Tensor_out", NULL, op_split_copy},
    {"aten::constant_pad_nd.out", NULL, pte_portable_shape_constant_pad_nd},
    {"aten::arange.out", NULL, pte_portable_shape_arange},
    {"aten::arange.start_out", NULL, pte_portable_shape_arange_start},
    {"aten::repeat.out", NULL, op_repeat},
    {"aten::transpose_copy.int_out", NULL, op_transpose_copy},
    {"aten::t_copy.out", NULL, op_t_copy},
    {"aten::flip.out", NULL, op_flip},
};
const size_t pte_portable_shape_kernels_count =
    sizeof pte_portable_shape_kernels / sizeof pte_portable_shape_kernels[0];
