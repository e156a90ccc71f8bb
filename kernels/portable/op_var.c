/* Variance kernels: aten::var.out, aten::var.correction_out, aten::var_mean.correction_out.
 *
 * ATen semantics: floating self only, out dtype equal to self's; dim None or [] reduces every dim;
 * var = sum((x - mean)^2) / max(0, N - correction) (so N <= correction gives inf, or NaN when the
 * sum is 0; an empty reduction gives NaN). Statistics are two-pass in double, walked through the
 * shared reduction plan (kutil_reduce.h), so any dim order works for self and the outs.
 */
#include <math.h>

#include "portable/portable_reduce.h"
#include "portable/util/kutil.h"
#include "portable/util/kutil_nn.h"
#include "portable/util/kutil_reduce.h"

static bool var_check_out(pte_kernel_context *ctx, const char *op, const char *what, const pte_tensor *self,
                          const pte_tensor *out) {
  if (out->dtype != self->dtype) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "%s: expected %s dtype %s, got %s", op, what,
                    pte_dtype_name(self->dtype), pte_dtype_name(out->dtype));
    return false;
  }
  return true;
}

/* Computes var into vout and (when mout is non-NULL) the mean into mout. */
static bool var_core(pte_kernel_context *ctx, const char *op, const pte_tensor *self, const int64_t *dims,
                     size_t n, double correction, bool keepdim, pte_tensor *vout, pte_tensor *mout) {
  if (!pte_k_is_floating(self->dtype)) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT,
                    "%s: std and var only support floating point dtypes, self is %s", op,
                    pte_dtype_name(self->dtype));
    return false;
  }
  if (!var_check_out(ctx, op, mout ? "out0 (var)" : "out", self, vout) ||
      (mout && !var_check_out(ctx, op, "out1 (mean)", self, mout)))
    return false;
  if (!isfinite(correction)) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "%s: correction must be finite", op);
    return false;
  }
  if (dims && n == 0) dims = NULL;
  uint32_t mask;
  if (!pte_kr_mask(ctx, op, self, dims, n, &mask) || !pte_k_check_data(ctx, self, "self") ||
      !pte_kr_resize(ctx, op, mout ? "out0" : "out", self, mask, keepdim, vout) ||
      (mout && !pte_kr_resize(ctx, op, "out1", self, mask, keepdim, mout)))
    return false;
  pte_kr_plan p;
  pte_kr_plan_init(&p, self, mask, keepdim, vout, mout);
  const int dt = self->dtype;
  const double cnt = (double)p.rcount, div = cnt - correction > 0 ? cnt - correction : 0.0;
  pte_kr_kwalk w;
  pte_kr_kwalk_start(&w);
  for (int64_t e = 0; e < p.kcount; e++, pte_kr_kwalk_next(&p, &w)) {
    double mean = NAN, m2 = NAN;
    if (p.rcount > 0) {
      pte_kr_rwalk r;
      double s = 0.0;
      pte_kr_rwalk_start(&p, &r, w.in);
      do {
        for (int64_t j = 0; j < r.len; j++) s += pte_k_load_double(self->data, dt, r.off + j * r.st);
      } while (pte_kr_rwalk_next(&p, &r));
      mean = s / cnt;
      m2 = 0.0;
      pte_kr_rwalk_start(&p, &r, w.in);
      do {
        for (int64_t j = 0; j < r.len; j++) {
          double d = pte_k_load_double(self->data, dt, r.off + j * r.st) - mean;
          m2 += d * d;
        }
      } while (pte_kr_rwalk_next(&p, &r));
    }
    pte_k_store_double(vout->data, vout->dtype, w.out0, m2 / div);
    if (mout) pte_k_store_double(mout->data, mout->dtype, w.out1, mean);
  }
  return true;
}

/* Reads an optional Scalar correction (None -> 1). */
static bool var_arg_correction(pte_kernel_context *ctx, pte_evalue **args, size_t nargs, size_t i, double *c) {
  *c = 1.0;
  if (pte_k_arg_is_none(args, nargs, i)) return true;
  return pte_k_arg_double(ctx, args, nargs, i, c);
}

/* aten::var.out(Tensor self, int[1]? dim, bool unbiased=True, bool keepdim=False, *,
 *               Tensor(a!) out) */
static void op_var(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  if (!pte_k_check_nargs(ctx, nargs, 5, 6)) return;
  pte_tensor *self = pte_k_arg_tensor(ctx, args, nargs, 0);
  const int64_t *dims;
  size_t n;
  bool unbiased, keepdim;
  if (!self || !pte_kr_arg_opt_dims(ctx, args, nargs, 1, &dims, &n) ||
      !pte_k_arg_bool(ctx, args, nargs, 2, &unbiased) || !pte_k_arg_bool(ctx, args, nargs, 3, &keepdim))
    return;
  pte_tensor *out = pte_k_arg_tensor(ctx, args, nargs, 4);
  if (!out || !var_core(ctx, "var", self, dims, n, unbiased ? 1.0 : 0.0, keepdim, out, NULL)) return;
  pte_k_set_return(args, nargs, 4);
}

/* Arguments 0..3 of the correction overloads: self, int[1]? dim, Scalar? correction, keepdim. */
static bool var_correction_args(pte_kernel_context *ctx, pte_evalue **args, size_t nargs,
                                pte_tensor **self, const int64_t **dims, size_t *n, double *corr,
                                bool *keepdim) {
  *self = pte_k_arg_tensor(ctx, args, nargs, 0);
  return *self && pte_kr_arg_opt_dims(ctx, args, nargs, 1, dims, n) &&
         var_arg_correction(ctx, args, nargs, 2, corr) && pte_k_arg_bool(ctx, args, nargs, 3, keepdim);
}

/* aten::var.correction_out(Tensor self, int[1]? dim=None, *, Scalar? correction=None,
 *                          bool keepdim=False, Tensor(a!) out) */
static void op_var_correction(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  if (!pte_k_check_nargs(ctx, nargs, 5, 6)) return;
  pte_tensor *self;
  const int64_t *dims;
  size_t n;
  double corr;
  bool keepdim;
  if (!var_correction_args(ctx, args, nargs, &self, &dims, &n, &corr, &keepdim)) return;
  pte_tensor *out = pte_k_arg_tensor(ctx, args, nargs, 4);
  if (!out || !var_core(ctx, "var", self, dims, n, corr, keepdim, out, NULL)) return;
  pte_k_set_return(args, nargs, 4);
}

/* aten::var_mean.correction_out(Tensor self, int[1]? dim=None, *, Scalar? correction=None,
 *     bool keepdim=False, Tensor(a!) out0, Tensor(b!) out1) -> (Tensor(a!), Tensor(b!)) */
static void op_var_mean(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  if (!pte_nn_check_nargs(ctx, nargs, 6, 2)) return;
  pte_tensor *self;
  const int64_t *dims;
  size_t n;
  double corr;
  bool keepdim;
  if (!var_correction_args(ctx, args, nargs, &self, &dims, &n, &corr, &keepdim)) return;
  pte_tensor *o0 = pte_k_arg_tensor(ctx, args, nargs, 4);
  pte_tensor *o1 = pte_k_arg_tensor(ctx, args, nargs, 5);
  if (!o0 || !o1 || !var_core(ctx, "var_mean", self, dims, n, corr, keepdim, o0, o1)) return;
  pte_nn_set_returns(args, nargs, 4, 2);
}

const pte_kernel pte_portable_var_kernels[] = {
    {"aten::var.out", NULL, op_var},
    {"aten::var.correction_out", NULL, op_var_correction},
    {"aten::var_mean.correction_out", NULL, op_var_mean},
};
const size_t pte_portable_var_kernels_count = sizeof pte_portable_var_kernels / sizeof pte_portable_var_kernels[0];
