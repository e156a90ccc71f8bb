/* kernels/portable/op_compare.c — eq/ne/lt/le/gt/ge (Scalar and Tensor), logical_not, where,
 * masked_fill. */
#include <string.h>

#include "portable/portable_compare.h"
#include "portable/util/elementwise.h"
#include "portable/util/kutil.h"

typedef enum { CMP_EQ, CMP_NE, CMP_LT, CMP_LE, CMP_GT, CMP_GE } cmp_kind;

static double eq_d(double a, double b, void *p) { (void)p; return a == b; }
static double ne_d(double a, double b, void *p) { (void)p; return a != b; }
static double lt_d(double a, double b, void *p) { (void)p; return a < b; }
static double le_d(double a, double b, void *p) { (void)p; return a <= b; }
static double gt_d(double a, double b, void *p) { (void)p; return a > b; }
static double ge_d(double a, double b, void *p) { (void)p; return a >= b; }
static int64_t eq_i(int64_t a, int64_t b, void *p) { (void)p; return a == b; }
static int64_t ne_i(int64_t a, int64_t b, void *p) { (void)p; return a != b; }
static int64_t lt_i(int64_t a, int64_t b, void *p) { (void)p; return a < b; }
static int64_t le_i(int64_t a, int64_t b, void *p) { (void)p; return a <= b; }
static int64_t gt_i(int64_t a, int64_t b, void *p) { (void)p; return a > b; }
static int64_t ge_i(int64_t a, int64_t b, void *p) { (void)p; return a >= b; }

static const pte_k_binop k_cmp[6] = {
    {eq_d, eq_i, NULL}, {ne_d, ne_i, NULL}, {lt_d, lt_i, NULL},
    {le_d, le_i, NULL}, {gt_d, gt_i, NULL}, {ge_d, ge_i, NULL},
};
static const char *const k_cmp_names[6] = {"eq", "ne", "lt", "le", "gt", "ge"};

/* Writes a 0/1 result into any out dtype; the loops would otherwise round the 0/1 "result" to
 * the compute dtype first, which is harmless (0 and 1 are exact everywhere). */
static void run_cmp(pte_kernel_context *ctx, pte_evalue **args, size_t nargs, cmp_kind k,
                    bool scalar) {
  pte_tensor *a, *out;
  if (!pte_k_self_out_args(ctx, args, nargs, 1, &a, &out)) return;
  pte_k_scalar sb;
  const pte_tensor *b;
  int common;
  if (scalar) {
    if (!pte_k_arg_is_scalar(args, nargs, 1)) {
      pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "%s: arg 1: expected a scalar",
                      k_cmp_names[k]);
      return;
    }
    common = pte_k_promote_scalar(a->dtype, args[1]);
    int compute = pte_k_opmath(common);
    b = pte_k_scalar_init(&sb, compute, args[1]);
  } else {
    pte_tensor *bt = pte_k_arg_tensor(ctx, args, nargs, 1);
    if (!bt) return;
    if (!pte_k_check_dtype(ctx, bt->dtype, "other")) return;
    common = pte_k_promote(a->dtype, bt->dtype);
    b = bt;
  }
  int32_t shape[PTE_MAX_RANK], dim;
  if (pte_k_broadcast_shape(a, b, shape, &dim) != PTE_OK) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "%s: shapes cannot be broadcast",
                    k_cmp_names[k]);
    return;
  }
  if (!pte_k_resize_out(ctx, out, shape, dim)) return;
  if (!pte_k_check_data(ctx, a, "self") || !pte_k_check_data(ctx, b, "other")) return;
  /* compute in the promoted type; out receives 0/1. If out's dtype differs from the compute
   * dtype the loop rounds 0/1 through it, which is exact. */
  pte_k_ew_binary(a, b, out, pte_k_opmath(common), &k_cmp[k], NULL);
  pte_k_set_return(args, nargs, 2);
}

#define CMP_KERNELS(lower, K)                                                          \
  static void lower##_scalar_out(pte_kernel_context *c, pte_evalue **a, size_t n) {   \
    run_cmp(c, a, n, K, true);                                                         \
  }                                                                                    \
  static void lower##_tensor_out(pte_kernel_context *c, pte_evalue **a, size_t n) {   \
    run_cmp(c, a, n, K, false);                                                        \
  }
CMP_KERNELS(eq, CMP_EQ)
CMP_KERNELS(ne, CMP_NE)
CMP_KERNELS(lt, CMP_LT)
CMP_KERNELS(le, CMP_LE)
CMP_KERNELS(gt, CMP_GT)
CMP_KERNELS(ge, CMP_GE)

/* logical_not.out(Tensor self, *, Tensor(a!) out): out = (self == 0) in out's dtype. */
static double cmp_lnot_d(double x, void *p) {
  (void)p;
  return x == 0.0;
}
static int64_t cmp_lnot_i(int64_t x, void *p) {
  (void)p;
  return x == 0;
}
static const pte_k_unop k_cmp_lnot = {cmp_lnot_d, cmp_lnot_i, NULL};

static void logical_not_out(pte_kernel_context *c, pte_evalue **a, size_t n) {
  pte_tensor *in, *out;
  if (!pte_k_self_out_args(c, a, n, 0, &in, &out)) return;
  if (!pte_k_resize_like(c, out, in) || !pte_k_check_data(c, in, "self")) return;
  pte_k_ew_unary(in, out, pte_k_opmath(in->dtype), &k_cmp_lnot, NULL);
  pte_k_set_return(a, n, 1);
}

/* where.self_out(Tensor condition, Tensor self, Tensor other, *, Tensor(a!) out) */
static double where_d(double c, double x, double y, void *p) {
  (void)p;
  return c != 0.0 ? x : y;
}
static int64_t where_i(int64_t c, int64_t x, int64_t y, void *p) {
  (void)p;
  return c != 0 ? x : y;
}

static void where_self_out(pte_kernel_context *c, pte_evalue **a, size_t n) {
  if (!pte_k_check_nargs(c, n, 4, 5)) return;
  pte_tensor *cond = pte_k_arg_tensor(c, a, n, 0);
  pte_tensor *x = cond ? pte_k_arg_tensor(c, a, n, 1) : NULL;
  pte_tensor *y = x ? pte_k_arg_tensor(c, a, n, 2) : NULL;
  pte_tensor *out = y ? pte_k_arg_tensor(c, a, n, 3) : NULL;
  if (!out) return;
  if (cond->dtype != PTE_DTYPE_BOOL && cond->dtype != PTE_DTYPE_BYTE) {
    pte_kernel_fail(c, PTE_ERR_INVALID_ARGUMENT, "where: condition must be bool, got %s",
                    pte_dtype_name(cond->dtype));
    return;
  }
  if (!pte_k_check_dtype(c, x->dtype, "self") || !pte_k_check_dtype(c, y->dtype, "other") ||
      !pte_k_check_dtype(c, out->dtype, "out"))
    return;
  int common = pte_k_promote(x->dtype, y->dtype);
  if (!pte_k_can_cast(common, out->dtype)) {
    pte_kernel_fail(c, PTE_ERR_INVALID_ARGUMENT, "where: result dtype %s cannot be cast to out %s",
                    pte_dtype_name(common), pte_dtype_name(out->dtype));
    return;
  }
  int32_t s1[PTE_MAX_RANK], s2[PTE_MAX_RANK], d1, d2;
  if (pte_k_broadcast_shape(cond, x, s1, &d1) != PTE_OK ||
      pte_k_broadcast_sizes(s1, d1, y->sizes, y->dim, s2, &d2) != PTE_OK) {
    pte_kernel_fail(c, PTE_ERR_INVALID_ARGUMENT, "where: shapes cannot be broadcast");
    return;
  }
  if (!pte_k_resize_out(c, out, s2, d2)) return;
  if (!pte_k_check_data(c, cond, "condition") || !pte_k_check_data(c, x, "self") ||
      !pte_k_check_data(c, y, "other"))
    return;
  static const pte_k_ternop op = {where_d, where_i};
  /* condition is read as a number (0/1); x and y convert to the compute dtype. Integral values
   * are exact in int64 and floating ones in double, so computing in the common dtype suffices. */
  pte_k_ew_ternary(cond, x, y, out, pte_k_opmath(common), &op, NULL);
  pte_k_set_return(a, n, 3);
}

/* masked_fill.Scalar_out(Tensor self, Tensor mask, Scalar value, *, Tensor(a!) out) */
static double mfill_d(double x, double m, double v, void *p) {
  (void)p;
  return m != 0.0 ? v : x;
}
static int64_t mfill_i(int64_t x, int64_t m, int64_t v, void *p) {
  (void)p;
  return m != 0 ? v : x;
}

static void masked_fill_scalar_out(pte_kernel_context *c, pte_evalue **a, size_t n) {
  if (!pte_k_check_nargs(c, n, 4, 5)) return;
  pte_tensor *in = pte_k_arg_tensor(c, a, n, 0);
  pte_tensor *mask = in ? pte_k_arg_tensor(c, a, n, 1) : NULL;
  pte_tensor *out = mask ? pte_k_arg_tensor(c, a, n, 3) : NULL;
  if (!out) return;
  if (!pte_k_arg_is_scalar(a, n, 2)) {
    pte_kernel_fail(c, PTE_ERR_INVALID_ARGUMENT, "masked_fill: value must be a scalar");
    return;
  }
  if (mask->dtype != PTE_DTYPE_BOOL) {
    pte_kernel_fail(c, PTE_ERR_INVALID_ARGUMENT, "masked_fill: mask must be bool, got %s",
                    pte_dtype_name(mask->dtype));
    return;
  }
  if (!pte_k_check_dtype(c, in->dtype, "self") || !pte_k_check_dtype(c, out->dtype, "out")) return;
  if (out->dtype != in->dtype) {
    pte_kernel_fail(c, PTE_ERR_INVALID_ARGUMENT, "masked_fill: out dtype %s != self dtype %s",
                    pte_dtype_name(out->dtype), pte_dtype_name(in->dtype));
    return;
  }
  if (!pte_k_broadcastable_to(mask, in->sizes, in->dim)) {
    pte_kernel_fail(c, PTE_ERR_INVALID_ARGUMENT, "masked_fill: mask cannot be broadcast to self");
    return;
  }
  if (!pte_k_resize_like(c, out, in)) return;
  if (!pte_k_check_data(c, in, "self") || !pte_k_check_data(c, mask, "mask")) return;
  int compute = pte_k_opmath(in->dtype);
  pte_k_scalar sv;
  const pte_tensor *v = pte_k_scalar_init(&sv, in->dtype, a[2]); /* value cast to self dtype */
  static const pte_k_ternop op = {mfill_d, mfill_i};
  pte_k_ew_ternary(in, mask, v, out, compute, &op, NULL);
  pte_k_set_return(a, n, 3);
}

const pte_kernel pte_portable_compare_kernels[] = {
    {"aten::eq.Scalar_out", NULL, eq_scalar_out},
    {"aten::eq.Tensor_out", NULL, eq_tensor_out},
    {"aten::ne.Scalar_out", NULL, ne_scalar_out},
    {"aten::ne.Tensor_out", NULL, ne_tensor_out},
    {"aten::lt.Scalar_out", NULL, lt_scalar_out},
    {"aten::lt.Tensor_out", NULL, lt_tensor_out},
    {"aten::le.Scalar_out", NULL, le_scalar_out},
    {"aten::le.Tensor_out", NULL, le_tensor_out},
    {"aten::gt.Scalar_out", NULL, gt_scalar_out},
    {"aten::gt.Tensor_out", NULL, gt_tensor_out},
    {"aten::ge.Scalar_out", NULL, ge_scalar_out},
    {"aten::ge.Tensor_out", NULL, ge_tensor_out},
    {"aten::logical_not.out", NULL, logical_not_out},
    {"aten::where.self_out", NULL, where_self_out},
    {"aten::masked_fill.Scalar_out", NULL, masked_fill_scalar_out},
};
const size_t pte_portable_compare_kernels_count =
    sizeof pte_portable_compare_kernels / sizeof pte_portable_compare_kernels[0];
