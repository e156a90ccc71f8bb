/* kernels/portable/op_bitwise.c — bitwise_not/and/or/xor and logical_and/or/xor (see
 * portable_bitwise.h). */
#include "portable/portable_bitwise.h"
#include "portable/util/elementwise.h"
#include "portable/util/kutil.h"

typedef enum { BW_AND, BW_OR, BW_XOR } bw_kind;

static const char *const k_bw_names[3] = {"bitwise_and", "bitwise_or", "bitwise_xor"};
static const char *const k_lg_names[3] = {"logical_and", "logical_or", "logical_xor"};

/* Integral compute: inputs are already converted (wrapped) to the common dtype; bool values are
 * 0/1 so &, |, ^ act logically on them. */
static int64_t and_i(int64_t a, int64_t b, void *p) {
  (void)p;
  return a & b;
}
static int64_t or_i(int64_t a, int64_t b, void *p) {
  (void)p;
  return a | b;
}
static int64_t xor_i(int64_t a, int64_t b, void *p) {
  (void)p;
  return a ^ b;
}
static const pte_k_binop k_bw[3] = {{NULL, and_i, NULL}, {NULL, or_i, NULL}, {NULL, xor_i, NULL}};

static bool bw_dtype_ok(pte_kernel_context *ctx, int dtype, bw_kind k, const char *what) {
  if (!pte_k_check_dtype(ctx, dtype, what)) return false;
  if (pte_k_is_floating(dtype)) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "%s: %s dtype %s not supported (integral or bool only)",
                    k_bw_names[k], what, pte_dtype_name(dtype));
    return false;
  }
  return true;
}

/* bitwise_<k>.Tensor_out(Tensor self, Tensor other, *, Tensor(a!) out) and
 * bitwise_<k>.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out). */
static void run_bitwise(pte_kernel_context *ctx, pte_evalue **args, size_t nargs, bw_kind k,
                        bool scalar) {
  if (!pte_k_check_nargs(ctx, nargs, 3, 4)) return;
  pte_tensor *a = pte_k_arg_tensor(ctx, args, nargs, 0);
  if (!a) return;
  pte_tensor *out = pte_k_arg_tensor(ctx, args, nargs, 2);
  if (!out) return;
  if (!bw_dtype_ok(ctx, a->dtype, k, "self") || !pte_k_check_dtype(ctx, out->dtype, "out")) return;
  pte_k_scalar sb;
  const pte_tensor *b;
  int common;
  if (scalar) {
    if (!pte_k_arg_is_scalar(args, nargs, 1)) {
      pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "%s: other must be a scalar", k_bw_names[k]);
      return;
    }
    if (args[1]->tag == PTE_TAG_DOUBLE) {
      pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT,
                      "%s: other must be an integer or bool scalar, got a float", k_bw_names[k]);
      return;
    }
    common = pte_k_promote_scalar(a->dtype, args[1]);
    b = pte_k_scalar_init(&sb, common, args[1]); /* wraps to the common dtype, as ATen */
  } else {
    pte_tensor *bt = pte_k_arg_tensor(ctx, args, nargs, 1);
    if (!bt) return;
    if (!bw_dtype_ok(ctx, bt->dtype, k, "other")) return;
    common = pte_k_promote(a->dtype, bt->dtype);
    b = bt;
  }
  if (!pte_k_can_cast(common, out->dtype)) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "%s: result dtype %s cannot be cast to out %s",
                    k_bw_names[k], pte_dtype_name(common), pte_dtype_name(out->dtype));
    return;
  }
  int32_t shape[PTE_MAX_RANK], dim;
  if (pte_k_broadcast_shape(a, b, shape, &dim) != PTE_OK) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "%s: shapes of self and other cannot be broadcast",
                    k_bw_names[k]);
    return;
  }
  if (!pte_k_resize_out(ctx, out, shape, dim)) return;
  if (!pte_k_check_data(ctx, a, "self") || !pte_k_check_data(ctx, b, "other")) return;
  pte_k_ew_binary(a, b, out, common, &k_bw[k], NULL);
  pte_k_set_return(args, nargs, 2);
}

static void bitwise_and_tensor_out(pte_kernel_context *c, pte_evalue **a, size_t n) {
  run_bitwise(c, a, n, BW_AND, false);
}
static void bitwise_and_scalar_out(pte_kernel_context *c, pte_evalue **a, size_t n) {
  run_bitwise(c, a, n, BW_AND, true);
}
static void bitwise_or_tensor_out(pte_kernel_context *c, pte_evalue **a, size_t n) {
  run_bitwise(c, a, n, BW_OR, false);
}
static void bitwise_or_scalar_out(pte_kernel_context *c, pte_evalue **a, size_t n) {
  run_bitwise(c, a, n, BW_OR, true);
}
static void bitwise_xor_tensor_out(pte_kernel_context *c, pte_evalue **a, size_t n) {
  run_bitwise(c, a, n, BW_XOR, false);
}
static void bitwise_xor_scalar_out(pte_kernel_context *c, pte_evalue **a, size_t n) {
  run_bitwise(c, a, n, BW_XOR, true);
}

/* bitwise_not.out(Tensor self, *, Tensor(a!) out): ~x for integers, logical not for bool. */
static int64_t bw_not_i(int64_t x, void *p) {
  (void)p;
  return ~x;
}
static int64_t bw_lnot_i(int64_t x, void *p) {
  (void)p;
  return x == 0;
}
static const pte_k_unop k_bw_not = {NULL, bw_not_i, NULL};
static const pte_k_unop k_bw_lnot = {NULL, bw_lnot_i, NULL};

static void bitwise_not_out(pte_kernel_context *c, pte_evalue **a, size_t n) {
  pte_tensor *in, *out;
  if (!pte_k_self_out_args(c, a, n, 0, &in, &out)) return;
  if (pte_k_is_floating(in->dtype)) {
    pte_kernel_fail(c, PTE_ERR_INVALID_ARGUMENT,
                    "bitwise_not: self dtype %s not supported (integral or bool only)",
                    pte_dtype_name(in->dtype));
    return;
  }
  if (!pte_k_can_cast(in->dtype, out->dtype)) {
    pte_kernel_fail(c, PTE_ERR_INVALID_ARGUMENT, "bitwise_not: result dtype %s cannot be cast to out %s",
                    pte_dtype_name(in->dtype), pte_dtype_name(out->dtype));
    return;
  }
  if (!pte_k_resize_like(c, out, in) || !pte_k_check_data(c, in, "self")) return;
  pte_k_ew_unary(in, out, in->dtype, in->dtype == PTE_DTYPE_BOOL ? &k_bw_lnot : &k_bw_not, NULL);
  pte_k_set_return(a, n, 1);
}

/* ---- logical_and / or / xor ---- */

static double land_d(double a, double b, void *p) {
  (void)p;
  return (a != 0.0) && (b != 0.0);
}
static double lor_d(double a, double b, void *p) {
  (void)p;
  return (a != 0.0) || (b != 0.0);
}
static double lxor_d(double a, double b, void *p) {
  (void)p;
  return (a != 0.0) != (b != 0.0);
}
static int64_t land_i(int64_t a, int64_t b, void *p) {
  (void)p;
  return (a != 0) && (b != 0);
}
static int64_t lor_i(int64_t a, int64_t b, void *p) {
  (void)p;
  return (a != 0) || (b != 0);
}
static int64_t lxor_i(int64_t a, int64_t b, void *p) {
  (void)p;
  return (a != 0) != (b != 0);
}
static const pte_k_binop k_lg[3] = {{land_d, land_i, NULL}, {lor_d, lor_i, NULL}, {lxor_d, lxor_i, NULL}};

/* logical_<k>.out(Tensor self, Tensor other, *, Tensor(a!) out) */
static void run_logical(pte_kernel_context *ctx, pte_evalue **args, size_t nargs, bw_kind k) {
  if (!pte_k_check_nargs(ctx, nargs, 3, 4)) return;
  pte_tensor *a = pte_k_arg_tensor(ctx, args, nargs, 0);
  pte_tensor *b = a ? pte_k_arg_tensor(ctx, args, nargs, 1) : NULL;
  pte_tensor *out = b ? pte_k_arg_tensor(ctx, args, nargs, 2) : NULL;
  if (!out) return;
  if (!pte_k_check_dtype(ctx, a->dtype, "self") || !pte_k_check_dtype(ctx, b->dtype, "other") ||
      !pte_k_check_dtype(ctx, out->dtype, "out"))
    return;
  int32_t shape[PTE_MAX_RANK], dim;
  if (pte_k_broadcast_shape(a, b, shape, &dim) != PTE_OK) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "%s: shapes of self and other cannot be broadcast",
                    k_lg_names[k]);
    return;
  }
  if (!pte_k_resize_out(ctx, out, shape, dim)) return;
  if (!pte_k_check_data(ctx, a, "self") || !pte_k_check_data(ctx, b, "other")) return;
  /* Converting to the promoted dtype keeps every nonzero value nonzero (integers widen or become
   * floating, floating values widen), so truth is decided in the promoted op-math dtype. */
  pte_k_ew_binary(a, b, out, pte_k_opmath(pte_k_promote(a->dtype, b->dtype)), &k_lg[k], NULL);
  pte_k_set_return(args, nargs, 2);
}

static void logical_and_out(pte_kernel_context *c, pte_evalue **a, size_t n) {
  run_logical(c, a, n, BW_AND);
}
static void logical_or_out(pte_kernel_context *c, pte_evalue **a, size_t n) {
  run_logical(c, a, n, BW_OR);
}
static void logical_xor_out(pte_kernel_context *c, pte_evalue **a, size_t n) {
  run_logical(c, a, n, BW_XOR);
}

const pte_kernel pte_portable_bitwise_kernels[] = {
    {"aten::bitwise_not.out", NULL, bitwise_not_out},
    {"aten::bitwise_and.Tensor_out", NULL, bitwise_and_tensor_out},
    {"aten::bitwise_and.Scalar_out", NULL, bitwise_and_scalar_out},
    {"aten::bitwise_or.Tensor_out", NULL, bitwise_or_tensor_out},
    {"aten::bitwise_or.Scalar_out", NULL, bitwise_or_scalar_out},
    {"aten::bitwise_xor.Tensor_out", NULL, bitwise_xor_tensor_out},
    {"aten::bitwise_xor.Scalar_out", NULL, bitwise_xor_scalar_out},
    {"aten::logical_and.out", NULL, logical_and_out},
    {"aten::logical_or.out", NULL, logical_or_out},
    {"aten::logical_xor.out", NULL, logical_xor_out},
};
const size_t pte_portable_bitwise_kernels_count =
    sizeof pte_portable_bitwise_kernels / sizeof pte_portable_bitwise_kernels[0];
