/* kernels/portable/op_copy.c — full, full_like, scalar_tensor, fill, _to_copy, clone,
 * alias_copy, copy, _to_dim_order_copy, _clone_dim_order. */
#include "portable/portable_copy.h"
#include "portable/util/elementwise.h"
#include "portable/util/kutil.h"

/* Fills t with the Scalar EValue v converted to t's dtype (Int/Bool exactly, Double rounded). */
static void fill_scalar(pte_tensor *t, const pte_evalue *v) {
  if (v->tag == PTE_TAG_DOUBLE) pte_k_fill_double(t, v->u.d);
  else if (v->tag == PTE_TAG_BOOL) pte_k_fill_int64(t, v->u.b ? 1 : 0);
  else pte_k_fill_int64(t, v->u.i);
}

static bool check_scalar_arg(pte_kernel_context *c, pte_evalue **a, size_t n, size_t i,
                             const char *what) {
  if (!pte_k_arg_is_scalar(a, n, i)) {
    pte_kernel_fail(c, PTE_ERR_INVALID_ARGUMENT, "%s must be a scalar", what);
    return false;
  }
  return true;
}

/* Optional MemoryFormat argument: None or an Int. */
static bool check_memory_format(pte_kernel_context *c, pte_evalue **a, size_t n, size_t i) {
  if (pte_k_arg_is_none(a, n, i)) return true;
  int64_t mf;
  return pte_k_arg_int(c, a, n, i, &mf);
}

static bool check_non_blocking(pte_kernel_context *c, pte_evalue **a, size_t n, size_t i) {
  bool nb;
  if (!pte_k_arg_bool(c, a, n, i, &nb)) return false;
  if (nb) {
    pte_kernel_fail(c, PTE_ERR_INVALID_ARGUMENT, "non_blocking copies are not supported");
    return false;
  }
  return true;
}

/* full.out(SymInt[] size, Scalar fill_value, *, Tensor(a!) out) */
static void full_out(pte_kernel_context *c, pte_evalue **a, size_t n) {
  if (!pte_k_check_nargs(c, n, 3, 4)) return;
  size_t len;
  const int64_t *size = pte_k_arg_int_list(c, a, n, 0, &len);
  if (!size) return;
  if (!check_scalar_arg(c, a, n, 1, "fill_value")) return;
  pte_tensor *out = pte_k_arg_tensor(c, a, n, 2);
  if (!out || !pte_k_check_dtype(c, out->dtype, "out")) return;
  if (len > PTE_MAX_RANK) {
    pte_kernel_fail(c, PTE_ERR_INVALID_ARGUMENT, "full: too many dimensions");
    return;
  }
  int32_t sizes[PTE_MAX_RANK];
  for (size_t i = 0; i < len; i++) {
    if (size[i] < 0 || size[i] > INT32_MAX) {
      pte_kernel_fail(c, PTE_ERR_INVALID_ARGUMENT, "full: bad size %lld", (long long)size[i]);
      return;
    }
    sizes[i] = (int32_t)size[i];
  }
  if (!pte_k_resize_out(c, out, sizes, (int32_t)len)) return;
  fill_scalar(out, a[1]);
  pte_k_set_return(a, n, 2);
}

/* full_like.out(Tensor self, Scalar fill_value, *, MemoryFormat? memory_format=None,
 *               Tensor(a!) out) */
static void full_like_out(pte_kernel_context *c, pte_evalue **a, size_t n) {
  if (!pte_k_check_nargs(c, n, 4, 5)) return;
  pte_tensor *in = pte_k_arg_tensor(c, a, n, 0);
  if (!in) return;
  if (!check_scalar_arg(c, a, n, 1, "fill_value") || !check_memory_format(c, a, n, 2)) return;
  pte_tensor *out = pte_k_arg_tensor(c, a, n, 3);
  if (!out || !pte_k_check_dtype(c, out->dtype, "out")) return;
  if (!pte_k_resize_like(c, out, in)) return;
  fill_scalar(out, a[1]);
  pte_k_set_return(a, n, 3);
}

/* scalar_tensor.out(Scalar s, *, Tensor(a!) out) */
static void scalar_tensor_out(pte_kernel_context *c, pte_evalue **a, size_t n) {
  if (!pte_k_check_nargs(c, n, 2, 3)) return;
  if (!check_scalar_arg(c, a, n, 0, "s")) return;
  pte_tensor *out = pte_k_arg_tensor(c, a, n, 1);
  if (!out || !pte_k_check_dtype(c, out->dtype, "out")) return;
  if (!pte_k_resize_out(c, out, NULL, 0)) return;
  fill_scalar(out, a[0]);
  pte_k_set_return(a, n, 1);
}

/* fill.Scalar_out(Tensor self, Scalar value, *, Tensor(a!) out) */
static void fill_scalar_out(pte_kernel_context *c, pte_evalue **a, size_t n) {
  if (!pte_k_check_nargs(c, n, 3, 4)) return;
  pte_tensor *in = pte_k_arg_tensor(c, a, n, 0);
  if (!in) return;
  if (!check_scalar_arg(c, a, n, 1, "value")) return;
  pte_tensor *out = pte_k_arg_tensor(c, a, n, 2);
  if (!out || !pte_k_check_dtype(c, out->dtype, "out")) return;
  if (out->dtype != in->dtype) {
    pte_kernel_fail(c, PTE_ERR_INVALID_ARGUMENT, "fill: out dtype %s != self dtype %s",
                    pte_dtype_name(out->dtype), pte_dtype_name(in->dtype));
    return;
  }
  if (!pte_k_resize_like(c, out, in)) return;
  fill_scalar(out, a[1]);
  pte_k_set_return(a, n, 2);
}

/* Shared tail: resize out like self, copy with conversion, set the return slot. */
static void copy_like(pte_kernel_context *c, pte_evalue **a, size_t n, const pte_tensor *in,
                      pte_tensor *out, size_t out_idx, bool same_dtype, const char *name) {
  if (!pte_k_check_dtype(c, in->dtype, "self") || !pte_k_check_dtype(c, out->dtype, "out")) return;
  if (same_dtype && in->dtype != out->dtype) {
    pte_kernel_fail(c, PTE_ERR_INVALID_ARGUMENT, "%s: out dtype %s != self dtype %s", name,
                    pte_dtype_name(out->dtype), pte_dtype_name(in->dtype));
    return;
  }
  if (!pte_k_resize_like(c, out, in) || !pte_k_check_data(c, in, "self")) return;
  pte_k_copy_convert(in, out);
  pte_k_set_return(a, n, out_idx);
}

/* _to_copy.out(Tensor self, *, bool non_blocking=False, MemoryFormat? memory_format=None,
 *              Tensor(a!) out) */
static void to_copy_out(pte_kernel_context *c, pte_evalue **a, size_t n) {
  if (!pte_k_check_nargs(c, n, 4, 5)) return;
  pte_tensor *in = pte_k_arg_tensor(c, a, n, 0);
  if (!in || !check_non_blocking(c, a, n, 1) || !check_memory_format(c, a, n, 2)) return;
  pte_tensor *out = pte_k_arg_tensor(c, a, n, 3);
  if (!out) return;
  copy_like(c, a, n, in, out, 3, false, "_to_copy");
}

/* clone.out(Tensor self, *, MemoryFormat? memory_format=None, Tensor(a!) out) */
static void clone_out(pte_kernel_context *c, pte_evalue **a, size_t n) {
  if (!pte_k_check_nargs(c, n, 3, 4)) return;
  pte_tensor *in = pte_k_arg_tensor(c, a, n, 0);
  if (!in || !check_memory_format(c, a, n, 1)) return;
  pte_tensor *out = pte_k_arg_tensor(c, a, n, 2);
  if (!out) return;
  copy_like(c, a, n, in, out, 2, true, "clone");
}

/* alias_copy.out(Tensor self, *, Tensor(a!) out) */
static void alias_copy_out(pte_kernel_context *c, pte_evalue **a, size_t n) {
  if (!pte_k_check_nargs(c, n, 2, 3)) return;
  pte_tensor *in = pte_k_arg_tensor(c, a, n, 0);
  if (!in) return;
  pte_tensor *out = pte_k_arg_tensor(c, a, n, 1);
  if (!out) return;
  copy_like(c, a, n, in, out, 1, true, "alias_copy");
}

/* copy.out(Tensor self, Tensor src, bool non_blocking=False, *, Tensor(a!) out):
 * out has self's shape and dtype and holds src broadcast to that shape. */
static void copy_out(pte_kernel_context *c, pte_evalue **a, size_t n) {
  if (!pte_k_check_nargs(c, n, 4, 5)) return;
  pte_tensor *in = pte_k_arg_tensor(c, a, n, 0);
  pte_tensor *src = in ? pte_k_arg_tensor(c, a, n, 1) : NULL;
  if (!src || !check_non_blocking(c, a, n, 2)) return;
  pte_tensor *out = pte_k_arg_tensor(c, a, n, 3);
  if (!out) return;
  if (!pte_k_check_dtype(c, in->dtype, "self") || !pte_k_check_dtype(c, src->dtype, "src") ||
      !pte_k_check_dtype(c, out->dtype, "out"))
    return;
  if (out->dtype != in->dtype) {
    pte_kernel_fail(c, PTE_ERR_INVALID_ARGUMENT, "copy: out dtype %s != self dtype %s",
                    pte_dtype_name(out->dtype), pte_dtype_name(in->dtype));
    return;
  }
  if (!pte_k_broadcastable_to(src, in->sizes, in->dim)) {
    pte_kernel_fail(c, PTE_ERR_INVALID_ARGUMENT, "copy: src cannot be broadcast to self");
    return;
  }
  if (!pte_k_resize_like(c, out, in) || !pte_k_check_data(c, src, "src")) return;
  pte_k_copy_convert(src, out);
  pte_k_set_return(a, n, 3);
}

/* Checks an optional dim_order IntList against out: given, it must equal out's dim_order;
 * None means out must be contiguous. */
static bool check_dim_order_arg(pte_kernel_context *c, pte_evalue **a, size_t n, size_t i,
                                const pte_tensor *in, const pte_tensor *out) {
  if (in->dim != out->dim) {
    pte_kernel_fail(c, PTE_ERR_INVALID_ARGUMENT, "out rank %d != self rank %d", (int)out->dim,
                    (int)in->dim);
    return false;
  }
  if (pte_k_arg_is_none(a, n, i)) {
    if (out->dim_order && !pte_dim_order_is_contiguous(out->dim_order, out->dim)) {
      pte_kernel_fail(c, PTE_ERR_INVALID_ARGUMENT, "dim_order None needs a contiguous out");
      return false;
    }
    return true;
  }
  size_t len;
  const int64_t *order = pte_k_arg_int_list(c, a, n, i, &len);
  if (!order) return false;
  if (len != (size_t)out->dim) {
    pte_kernel_fail(c, PTE_ERR_INVALID_ARGUMENT, "dim_order has %zu entries, out has rank %d", len,
                    (int)out->dim);
    return false;
  }
  for (size_t k = 0; k < len; k++) {
    int64_t have = out->dim_order ? (int64_t)out->dim_order[k] : (int64_t)k;
    if (order[k] != have) {
      pte_kernel_fail(c, PTE_ERR_INVALID_ARGUMENT, "dim_order does not match out's dim_order");
      return false;
    }
  }
  return true;
}

/* dim_order_ops::_to_dim_order_copy.out(Tensor self, *, bool non_blocking=False,
 *                                       int[]? dim_order=None, Tensor(a!) out) */
static void to_dim_order_copy_out(pte_kernel_context *c, pte_evalue **a, size_t n) {
  if (!pte_k_check_nargs(c, n, 4, 5)) return;
  pte_tensor *in = pte_k_arg_tensor(c, a, n, 0);
  if (!in || !check_non_blocking(c, a, n, 1)) return;
  pte_tensor *out = pte_k_arg_tensor(c, a, n, 3);
  if (!out || !check_dim_order_arg(c, a, n, 2, in, out)) return;
  copy_like(c, a, n, in, out, 3, false, "_to_dim_order_copy");
}

/* dim_order_ops::_clone_dim_order.out(Tensor self, *, bool non_blocking=False,
 *                                     int[]? dim_order=None, Tensor(a!) out) */
static void clone_dim_order_out(pte_kernel_context *c, pte_evalue **a, size_t n) {
  if (!pte_k_check_nargs(c, n, 4, 5)) return;
  pte_tensor *in = pte_k_arg_tensor(c, a, n, 0);
  if (!in || !check_non_blocking(c, a, n, 1)) return;
  pte_tensor *out = pte_k_arg_tensor(c, a, n, 3);
  if (!out || !check_dim_order_arg(c, a, n, 2, in, out)) return;
  copy_like(c, a, n, in, out, 3, true, "_clone_dim_order");
}

const pte_kernel pte_portable_copy_kernels[] = {
    {"aten::full.out", NULL, full_out},
    {"aten::full_like.out", NULL, full_like_out},
    {"aten::scalar_tensor.out", NULL, scalar_tensor_out},
    {"aten::fill.Scalar_out", NULL, fill_scalar_out},
    {"aten::_to_copy.out", NULL, to_copy_out},
    {"aten::clone.out", NULL, clone_out},
    {"aten::alias_copy.out", NULL, alias_copy_out},
    {"aten::copy.out", NULL, copy_out},
    {"dim_order_ops::_to_dim_order_copy.out", NULL, to_dim_order_copy_out},
    {"dim_order_ops::_clone_dim_order.out", NULL, clone_dim_order_out},
};
const size_t pte_portable_copy_kernels_count =
    sizeof pte_portable_copy_kernels / sizeof pte_portable_copy_kernels[0];
