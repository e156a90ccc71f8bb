/* View-like copy kernels: as_strided_copy, diagonal_copy, unfold_copy, narrow_copy,
 * unbind_copy, view_as_real_copy, detach_copy, lift_fresh_copy, copy_.
 *
 * Each output is a strided view of self (sizes + element strides + base offset) copied into out
 * with pte_ks_copy_nd, so every dtype and dim order works on both sides.
 */
#include <string.h>

#include "portable/portable_view.h"
#include "portable/util/elementwise.h"
#include "portable/util/kutil.h"
#include "portable/util/kutil_shape.h"

/* out dtype == self dtype, one this file can handle, and self has data. */
static bool vw_check_dtype(pte_kernel_context *ctx, const char *op, const pte_tensor *self,
                           const pte_tensor *out) {
  return pte_k_check_out_dtype(ctx, op, "self", self, out, true) &&
         pte_k_check_data(ctx, self, "self");
}

/* Resizes out to sizes (rank must already match) and copies the view (base element offset
 * `off`, element strides st) of self into it. */
static bool vw_emit(pte_kernel_context *ctx, const char *op, pte_tensor *out, const pte_tensor *self,
                    const int32_t *sizes, int32_t dim, const int64_t *st, int64_t off) {
  if (out->dim != dim) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "%s: out has rank %d, expected %d", op, (int)out->dim,
                    (int)dim);
    return false;
  }
  if (!pte_k_resize_out(ctx, out, sizes, dim)) return false;
  if (out->numel == 0) return true;
  size_t es = pte_dtype_size(out->dtype);
  int64_t ds[PTE_MAX_RANK], sz[PTE_MAX_RANK];
  pte_ks_strides64(out, ds);
  for (int32_t k = 0; k < dim; k++) sz[k] = sizes[k];
  pte_ks_copy_nd(out->data, ds, (const uint8_t *)self->data + off * (int64_t)es, st, sz, dim, es);
  return true;
}

/* ---- as_strided_copy ------------------------------------------------------------------------ */

/* aten::as_strided_copy.out(Tensor self, SymInt[] size, SymInt[] stride,
 *                           SymInt? storage_offset=None, *, Tensor(a!) out) */
static void op_as_strided_copy(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  if (!pte_k_check_nargs(ctx, nargs, 5, 6)) return;
  pte_tensor *self = pte_k_arg_tensor(ctx, args, nargs, 0);
  size_t ns, nst;
  const int64_t *size = pte_k_arg_int_list(ctx, args, nargs, 1, &ns);
  const int64_t *stride = size ? pte_k_arg_int_list(ctx, args, nargs, 2, &nst) : NULL;
  if (!self || !size || !stride) return;
  int64_t off = 0;
  if (!pte_k_arg_is_none(args, nargs, 3) && !pte_k_arg_int(ctx, args, nargs, 3, &off)) return;
  pte_tensor *out = pte_k_arg_tensor(ctx, args, nargs, 4);
  if (!out || !vw_check_dtype(ctx, "as_strided_copy", self, out)) return;
  if (ns != nst)
    PTE_K_BAD("as_strided_copy: size has %zu entries but stride has %zu", ns, nst);
  if (ns > PTE_MAX_RANK) PTE_K_BAD("as_strided_copy: size has too many dims (%zu)", ns);
  if (off < 0) PTE_K_BAD("as_strided_copy: storage_offset must be non-negative, got %lld", (long long)off);
  int32_t sizes[PTE_MAX_RANK];
  int64_t st[PTE_MAX_RANK];
  int64_t last = off; /* largest element offset read (terms < 2^62, checked as it grows) */
  bool empty = false, beyond = off >= (int64_t)self->numel;
  for (size_t i = 0; i < ns; i++) {
    if (size[i] < 0 || size[i] > INT32_MAX) PTE_K_BAD("as_strided_copy: size[%zu] = %lld is invalid", i, (long long)size[i]);
    if (stride[i] < 0) PTE_K_BAD("as_strided_copy: stride[%zu] = %lld; negative strides are not supported", i, (long long)stride[i]);
    if (stride[i] > INT32_MAX) PTE_K_BAD("as_strided_copy: stride[%zu] = %lld too large", i, (long long)stride[i]);
    sizes[i] = (int32_t)size[i];
    st[i] = stride[i];
    if (size[i] == 0) empty = true;
    else if (!beyond) {
      last += (size[i] - 1) * stride[i];
      beyond = last >= (int64_t)self->numel;
    }
  }
  if (!empty && beyond)
    PTE_K_BAD("as_strided_copy: view reaches element %lld but self has only %zu elements", (long long)last,
        self->numel);
  if (!empty && !pte_k_is_dense(self))
    PTE_K_FAIL(PTE_ERR_NOT_SUPPORTED, "as_strided_copy: self must be densely packed");
  if (!vw_emit(ctx, "as_strided_copy", out, self, sizes, (int32_t)ns, st, empty ? 0 : off)) return;
  pte_k_set_return(args, nargs, 4);
}

/* ---- diagonal_copy -------------------------------------------------------------------------- */

/* aten::diagonal_copy.out(Tensor self, int offset=0, int dim1=0, int dim2=1, *, Tensor(a!) out) */
static void op_diagonal_copy(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  if (!pte_k_check_nargs(ctx, nargs, 5, 6)) return;
  pte_tensor *self = pte_k_arg_tensor(ctx, args, nargs, 0);
  int64_t offset, d1, d2;
  if (!self || !pte_k_arg_int(ctx, args, nargs, 1, &offset) || !pte_k_arg_int(ctx, args, nargs, 2, &d1) ||
      !pte_k_arg_int(ctx, args, nargs, 3, &d2))
    return;
  pte_tensor *out = pte_k_arg_tensor(ctx, args, nargs, 4);
  if (!out || !vw_check_dtype(ctx, "diagonal_copy", self, out)) return;
  if (self->dim < 2) PTE_K_BAD("diagonal_copy: self must have at least 2 dims, got %d", (int)self->dim);
  int32_t a, b;
  if (!pte_ks_wrap_dim(d1, self->dim, &a)) PTE_K_BAD("diagonal_copy: dim1 %lld out of range", (long long)d1);
  if (!pte_ks_wrap_dim(d2, self->dim, &b)) PTE_K_BAD("diagonal_copy: dim2 %lld out of range", (long long)d2);
  if (a == b) PTE_K_BAD("diagonal_copy: dim1 and dim2 cannot be identical (%d)", (int)a);
  int64_t sa = self->sizes[a], sb = self->sizes[b], len, base = 0;
  if (offset >= 0) {
    len = offset >= sb ? 0 : (sa < sb - offset ? sa : sb - offset);
    if (len > 0) base = offset * self->strides[b];
  } else {
    len = offset <= -sa ? 0 : (sa + offset < sb ? sa + offset : sb);
    if (len > 0) base = -offset * (int64_t)self->strides[a];
  }
  int32_t sizes[PTE_MAX_RANK];
  int64_t st[PTE_MAX_RANK];
  int32_t n = 0;
  for (int32_t k = 0; k < self->dim; k++) {
    if (k == a || k == b) continue;
    sizes[n] = self->sizes[k];
    st[n++] = self->strides[k];
  }
  sizes[n] = (int32_t)len;
  st[n++] = (int64_t)self->strides[a] + self->strides[b];
  if (!vw_emit(ctx, "diagonal_copy", out, self, sizes, n, st, base)) return;
  pte_k_set_return(args, nargs, 4);
}

/* ---- unfold_copy ---------------------------------------------------------------------------- */

/* aten::unfold_copy.out(Tensor self, int dimension, int size, int step, *, Tensor(a!) out) */
static void op_unfold_copy(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  if (!pte_k_check_nargs(ctx, nargs, 5, 6)) return;
  pte_tensor *self = pte_k_arg_tensor(ctx, args, nargs, 0);
  int64_t d, size, step;
  if (!self || !pte_k_arg_int(ctx, args, nargs, 1, &d) || !pte_k_arg_int(ctx, args, nargs, 2, &size) ||
      !pte_k_arg_int(ctx, args, nargs, 3, &step))
    return;
  pte_tensor *out = pte_k_arg_tensor(ctx, args, nargs, 4);
  if (!out || !vw_check_dtype(ctx, "unfold_copy", self, out)) return;
  int32_t dim;
  if (!pte_ks_wrap_dim(d, self->dim, &dim)) PTE_K_BAD("unfold_copy: dimension %lld out of range", (long long)d);
  int64_t len = self->dim ? self->sizes[dim] : 1;
  int64_t dst = self->dim ? self->strides[dim] : 1;
  if (size < 0 || size > len)
    PTE_K_BAD("unfold_copy: size %lld must be in [0, %lld] (size of dimension %d)", (long long)size, (long long)len, (int)dim);
  if (step <= 0) PTE_K_BAD("unfold_copy: step must be positive, got %lld", (long long)step);
  if (self->dim + 1 > PTE_MAX_RANK) PTE_K_BAD("unfold_copy: result rank too large");
  int32_t sizes[PTE_MAX_RANK];
  int64_t st[PTE_MAX_RANK];
  for (int32_t k = 0; k < self->dim; k++) {
    sizes[k] = self->sizes[k];
    st[k] = self->strides[k];
  }
  if (self->dim) {
    sizes[dim] = (int32_t)((len - size) / step + 1);
    st[dim] = step * dst;
  }
  sizes[self->dim] = (int32_t)size;
  st[self->dim] = dst;
  if (!vw_emit(ctx, "unfold_copy", out, self, sizes, self->dim + 1, st, 0)) return;
  pte_k_set_return(args, nargs, 4);
}

/* ---- narrow_copy ---------------------------------------------------------------------------- */

/* aten::narrow_copy.out(Tensor self, int dim, SymInt start, SymInt length, *, Tensor(a!) out) */
static void op_narrow_copy(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  if (!pte_k_check_nargs(ctx, nargs, 5, 6)) return;
  pte_tensor *self = pte_k_arg_tensor(ctx, args, nargs, 0);
  int64_t d, start, length;
  if (!self || !pte_k_arg_int(ctx, args, nargs, 1, &d) || !pte_k_arg_int(ctx, args, nargs, 2, &start) ||
      !pte_k_arg_int(ctx, args, nargs, 3, &length))
    return;
  pte_tensor *out = pte_k_arg_tensor(ctx, args, nargs, 4);
  if (!out || !vw_check_dtype(ctx, "narrow_copy", self, out)) return;
  if (self->dim == 0) PTE_K_BAD("narrow_copy: self cannot be 0-dimensional");
  int32_t dim;
  if (!pte_ks_wrap_dim(d, self->dim, &dim)) PTE_K_BAD("narrow_copy: dim %lld out of range", (long long)d);
  int64_t sz = self->sizes[dim];
  if (length < 0) PTE_K_BAD("narrow_copy: length must be non-negative, got %lld", (long long)length);
  if (start < -sz || start > sz) PTE_K_BAD("narrow_copy: start %lld out of range for dimension of size %lld", (long long)start, (long long)sz);
  if (start < 0) start += sz;
  if (length > sz - start)
    PTE_K_BAD("narrow_copy: start (%lld) + length (%lld) exceeds dimension size (%lld)", (long long)start,
        (long long)length, (long long)sz);
  int32_t sizes[PTE_MAX_RANK];
  int64_t st[PTE_MAX_RANK];
  for (int32_t k = 0; k < self->dim; k++) {
    sizes[k] = k == dim ? (int32_t)length : self->sizes[k];
    st[k] = self->strides[k];
  }
  if (!vw_emit(ctx, "narrow_copy", out, self, sizes, self->dim, st, start * self->strides[dim])) return;
  pte_k_set_return(args, nargs, 4);
}

/* ---- unbind_copy ---------------------------------------------------------------------------- */

/* aten::unbind_copy.int_out(Tensor self, int dim=0, *, Tensor(a!)[] out) -> () */
static void op_unbind_copy(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  if (!pte_k_check_nargs(ctx, nargs, 3, 4)) return;
  pte_tensor *self = pte_k_arg_tensor(ctx, args, nargs, 0);
  int64_t d;
  if (!self || !pte_k_arg_int(ctx, args, nargs, 1, &d)) return;
  pte_evalue *lv = args[2];
  if (!lv || lv->tag != PTE_TAG_LIST_TENSOR) PTE_K_BAD("unbind_copy: arg 2 (out) must be a TensorList");
  if (self->dim == 0) PTE_K_BAD("unbind_copy: self cannot be 0-dimensional");
  int32_t dim;
  if (!pte_ks_wrap_dim(d, self->dim, &dim)) PTE_K_BAD("unbind_copy: dim %lld out of range", (long long)d);
  if ((int64_t)lv->u.tensor_list.len != self->sizes[dim])
    PTE_K_BAD("unbind_copy: out has %zu tensors, expected %d (size of dim %d)", lv->u.tensor_list.len,
        (int)self->sizes[dim], (int)dim);
  int32_t sizes[PTE_MAX_RANK];
  int64_t st[PTE_MAX_RANK];
  for (int32_t k = 0, j = 0; k < self->dim; k++) {
    if (k == dim) continue;
    sizes[j] = self->sizes[k];
    st[j++] = self->strides[k];
  }
  for (size_t i = 0; i < lv->u.tensor_list.len; i++) {
    pte_evalue *e = lv->u.tensor_list.items[i];
    if (!e || e->tag != PTE_TAG_TENSOR || !e->u.tensor) PTE_K_BAD("unbind_copy: out[%zu] is not a tensor", i);
    pte_tensor *o = e->u.tensor;
    if (!vw_check_dtype(ctx, "unbind_copy", self, o)) return;
    if (!vw_emit(ctx, "unbind_copy", o, self, sizes, self->dim - 1, st, (int64_t)i * self->strides[dim])) return;
  }
}

/* ---- view_as_real_copy ---------------------------------------------------------------------- */

/* aten::view_as_real_copy.out(Tensor self, *, Tensor(a!) out) */
static void op_view_as_real_copy(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  if (!pte_k_check_nargs(ctx, nargs, 2, 3)) return;
  pte_tensor *self = pte_k_arg_tensor(ctx, args, nargs, 0);
  pte_tensor *out = self ? pte_k_arg_tensor(ctx, args, nargs, 1) : NULL;
  if (!out) return;
  int real;
  switch (self->dtype) {
    case PTE_DTYPE_COMPLEX_HALF: real = PTE_DTYPE_HALF; break;
    case PTE_DTYPE_COMPLEX_FLOAT: real = PTE_DTYPE_FLOAT; break;
    case PTE_DTYPE_COMPLEX_DOUBLE: real = PTE_DTYPE_DOUBLE; break;
    default: PTE_K_BAD("view_as_real_copy: self must be complex, got %s", pte_dtype_name(self->dtype));
  }
  if (out->dtype != real)
    PTE_K_BAD("view_as_real_copy: out dtype must be %s, got %s", pte_dtype_name(real), pte_dtype_name(out->dtype));
  if (self->dim + 1 > PTE_MAX_RANK) PTE_K_BAD("view_as_real_copy: result rank too large");
  if (!pte_k_check_data(ctx, self, "self")) return;
  int32_t sizes[PTE_MAX_RANK];
  int64_t st[PTE_MAX_RANK];
  for (int32_t k = 0; k < self->dim; k++) {
    sizes[k] = self->sizes[k];
    st[k] = 2 * (int64_t)self->strides[k];
  }
  sizes[self->dim] = 2;
  st[self->dim] = 1;
  if (!vw_emit(ctx, "view_as_real_copy", out, self, sizes, self->dim + 1, st, 0)) return;
  pte_k_set_return(args, nargs, 1);
}

/* ---- detach_copy / lift_fresh_copy ---------------------------------------------------------- */

static void same_copy(pte_kernel_context *ctx, pte_evalue **args, size_t nargs, const char *op) {
  if (!pte_k_check_nargs(ctx, nargs, 2, 3)) return;
  pte_tensor *self = pte_k_arg_tensor(ctx, args, nargs, 0);
  pte_tensor *out = self ? pte_k_arg_tensor(ctx, args, nargs, 1) : NULL;
  if (!out || !vw_check_dtype(ctx, op, self, out)) return;
  int64_t st[PTE_MAX_RANK];
  pte_ks_strides64(self, st);
  if (!vw_emit(ctx, op, out, self, self->sizes, self->dim, st, 0)) return;
  pte_k_set_return(args, nargs, 1);
}

/* aten::detach_copy.out(Tensor self, *, Tensor(a!) out) */
static void op_detach_copy(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  same_copy(ctx, args, nargs, "detach_copy");
}

/* aten::lift_fresh_copy.out(Tensor self, *, Tensor(a!) out) */
static void op_lift_fresh_copy(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  same_copy(ctx, args, nargs, "lift_fresh_copy");
}

/* ---- copy_ ---------------------------------------------------------------------------------- */

/* aten::copy_(Tensor(a!) self, Tensor src, bool non_blocking=False) -> Tensor(a!) */
static void op_copy_inplace(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  if (!pte_k_check_nargs(ctx, nargs, 3, 4)) return;
  pte_tensor *self = pte_k_arg_tensor(ctx, args, nargs, 0);
  pte_tensor *src = self ? pte_k_arg_tensor(ctx, args, nargs, 1) : NULL;
  bool nb;
  if (!src || !pte_k_arg_bool(ctx, args, nargs, 2, &nb)) return;
  if (!pte_k_check_dtype(ctx, self->dtype, "copy_: self") || !pte_k_check_dtype(ctx, src->dtype, "copy_: src"))
    return;
  if (!pte_k_broadcastable_to(src, self->sizes, self->dim))
    PTE_K_BAD("copy_: src of rank %d cannot be broadcast to self's shape", (int)src->dim);
  if (!pte_k_check_data(ctx, self, "self") || !pte_k_check_data(ctx, src, "src")) return;
  if (self->numel > 0) pte_k_copy_convert(src, self);
  if (nargs == 4) pte_k_set_return(args, nargs, 0);
}

/* ---- table ---------------------------------------------------------------------------------- */

const pte_kernel pte_portable_view_kernels[] = {
    {"aten::as_strided_copy.out", NULL, op_as_strided_copy},
    {"aten::diagonal_copy.out", NULL, op_diagonal_copy},
    {"aten::unfold_copy.out", NULL, op_unfold_copy},
    {"aten::narrow_copy.out", NULL, op_narrow_copy},
    {"aten::unbind_copy.int_out", NULL, op_unbind_copy},
    {"aten::view_as_real_copy.out", NULL, op_view_as_real_copy},
    {"aten::detach_copy.out", NULL, op_detach_copy},
    {"aten::lift_fresh_copy.out", NULL, op_lift_fresh_copy},
    {"aten::copy_", NULL, op_copy_inplace},
};
const size_t pte_portable_view_kernels_count =
    sizeof pte_portable_view_kernels / sizeof pte_portable_view_kernels[0];
