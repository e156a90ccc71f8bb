/* Pairwise distance kernels:
 *   aten::_cdist_forward.out(Tensor x1, Tensor x2, float p, int? compute_mode, *, Tensor(a!) out)
 *   aten::_pdist_forward.out(Tensor self, float p=2, *, Tensor(a!) out)
 *
 * The p-norm of the row difference: p = 0 counts the non-zero differences, p = inf takes the
 * largest |difference|, otherwise (sum |d|^p)^(1/p) (p = 1 and p = 2 without pow). cdist takes
 * x1 [..., P, M] and x2 [..., R, M] with broadcast batch dims and writes [..., P, R]; pdist takes
 * [N, M] and writes the N*(N-1)/2 distances of the pairs i < j in row-major order. Floating
 * dtypes only (both inputs and out the same); sums in double; every tensor through its strides.
 */
#include <math.h>

#include "portable/portable_nn.h"
#include "portable/util/kutil.h"

/* Distance between row a (stride sa) and row b (stride sb) of m elements. */
static double dist_rows(const pte_tensor *ta, int64_t a, int64_t sa, const pte_tensor *tb, int64_t b, int64_t sb,
                        int64_t m, double p) {
  const int dt = ta->dtype;
  double acc = 0.0;
  if (p == 0.0) {
    for (int64_t k = 0; k < m; k++) {
      double d = pte_k_load_double(ta->data, dt, a + k * sa) - pte_k_load_double(tb->data, dt, b + k * sb);
      acc += isnan(d) ? d : (d != 0.0);
    }
    return acc;
  }
  if (isinf(p)) {
    for (int64_t k = 0; k < m; k++) {
      double d = fabs(pte_k_load_double(ta->data, dt, a + k * sa) - pte_k_load_double(tb->data, dt, b + k * sb));
      if (isnan(d)) return d;
      if (d > acc) acc = d;
    }
    return acc;
  }
  for (int64_t k = 0; k < m; k++) {
    double d = fabs(pte_k_load_double(ta->data, dt, a + k * sa) - pte_k_load_double(tb->data, dt, b + k * sb));
    acc += p == 1.0 ? d : p == 2.0 ? d * d : pow(d, p);
  }
  return p == 1.0 ? acc : p == 2.0 ? sqrt(acc) : pow(acc, 1.0 / p);
}

static bool dist_check_p(pte_kernel_context *ctx, const char *op, double p) {
  if (!(p >= 0.0)) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "%s: only supports non-negative p values, got %g", op, p);
    return false;
  }
  return true;
}

static bool dist_check_dtype(pte_kernel_context *ctx, const char *op, const char *what, const pte_tensor *t,
                             int want) {
  if (!pte_k_is_floating(t->dtype)) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "%s: only supports floating-point dtypes, %s is %s", op, what,
                    pte_dtype_name(t->dtype));
    return false;
  }
  if (want >= 0 && t->dtype != want) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "%s: %s dtype %s differs from x1 dtype %s", op, what,
                    pte_dtype_name(t->dtype), pte_dtype_name(want));
    return false;
  }
  return true;
}

static void op_cdist(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  static const char op[] = "_cdist_forward";
  if (!pte_k_check_nargs(ctx, nargs, 5, 6)) return;
  pte_tensor *x1 = pte_k_arg_tensor(ctx, args, nargs, 0);
  pte_tensor *x2 = pte_k_arg_tensor(ctx, args, nargs, 1);
  double p;
  if (!x1 || !x2 || !pte_k_arg_double(ctx, args, nargs, 2, &p)) return;
  if (!pte_k_arg_is_none(args, nargs, 3)) {
    int64_t mode;
    if (!pte_k_arg_int(ctx, args, nargs, 3, &mode)) return;
    if (mode < 0 || mode > 2) {
      pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "%s: compute_mode must be None, 0, 1 or 2, got %lld", op,
                      (long long)mode);
      return;
    }
  }
  pte_tensor *out = pte_k_arg_tensor(ctx, args, nargs, 4);
  if (!out || !dist_check_p(ctx, op, p)) return;
  if (x1->dim < 2 || x2->dim < 2) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "%s: x1 and x2 must be at least 2-D, got %dD and %dD", op,
                    (int)x1->dim, (int)x2->dim);
    return;
  }
  if (!dist_check_dtype(ctx, op, "x1", x1, -1) || !dist_check_dtype(ctx, op, "x2", x2, x1->dtype) ||
      !dist_check_dtype(ctx, op, "out", out, x1->dtype))
    return;
  const int64_t M = x1->sizes[x1->dim - 1];
  if (x2->sizes[x2->dim - 1] != M) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "%s: x1 and x2 must have the same number of columns (%lld vs %d)",
                    op, (long long)M, (int)x2->sizes[x2->dim - 1]);
    return;
  }
  int32_t bsz[PTE_MAX_RANK], bdim;
  if (pte_k_broadcast_sizes(x1->sizes, x1->dim - 2, x2->sizes, x2->dim - 2, bsz, &bdim) != PTE_OK ||
      bdim + 2 > PTE_MAX_RANK) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "%s: batch dims of x1 and x2 do not broadcast", op);
    return;
  }
  const int64_t P = x1->sizes[x1->dim - 2], R = x2->sizes[x2->dim - 2];
  bsz[bdim] = (int32_t)P;
  bsz[bdim + 1] = (int32_t)R;
  if (out->dim != bdim + 2) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "%s: out has rank %d, expected %d", op, (int)out->dim,
                    (int)(bdim + 2));
    return;
  }
  if (!pte_k_resize_out(ctx, out, bsz, bdim + 2) || !pte_k_check_data(ctx, x1, "x1") ||
      !pte_k_check_data(ctx, x2, "x2"))
    return;
  int64_t nb = 1;
  for (int32_t d = 0; d < bdim; d++) nb *= bsz[d];
  const int64_t s1p = x1->strides[x1->dim - 2], s1m = x1->strides[x1->dim - 1];
  const int64_t s2r = x2->strides[x2->dim - 2], s2m = x2->strides[x2->dim - 1];
  const int64_t sop = out->strides[bdim], sor = out->strides[bdim + 1];
  for (int64_t bi = 0; bi < nb && P > 0 && R > 0; bi++) {
    /* batch offsets: walk the batch index right to left, broadcasting size-1 dims */
    int64_t o1 = 0, o2 = 0, oo = 0, rem = bi;
    for (int32_t d = bdim - 1; d >= 0; d--) {
      int64_t c = rem % bsz[d];
      rem /= bsz[d];
      int32_t d1 = d - (bdim - (x1->dim - 2)), d2 = d - (bdim - (x2->dim - 2));
      if (d1 >= 0 && x1->sizes[d1] != 1) o1 += c * x1->strides[d1];
      if (d2 >= 0 && x2->sizes[d2] != 1) o2 += c * x2->strides[d2];
      oo += c * out->strides[d];
    }
    for (int64_t i = 0; i < P; i++)
      for (int64_t j = 0; j < R; j++)
        pte_k_store_double(out->data, out->dtype, oo + i * sop + j * sor,
                           dist_rows(x1, o1 + i * s1p, s1m, x2, o2 + j * s2r, s2m, M, p));
  }
  pte_k_set_return(args, nargs, 4);
}

static void op_pdist(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  static const char op[] = "_pdist_forward";
  if (!pte_k_check_nargs(ctx, nargs, 3, 4)) return;
  pte_tensor *self = pte_k_arg_tensor(ctx, args, nargs, 0);
  double p;
  if (!self || !pte_k_arg_double(ctx, args, nargs, 1, &p)) return;
  pte_tensor *out = pte_k_arg_tensor(ctx, args, nargs, 2);
  if (!out || !dist_check_p(ctx, op, p)) return;
  if (self->dim != 2) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "%s: self must be 2-D, got %dD", op, (int)self->dim);
    return;
  }
  if (!dist_check_dtype(ctx, op, "self", self, -1) || !dist_check_dtype(ctx, op, "out", out, self->dtype)) return;
  const int64_t N = self->sizes[0], M = self->sizes[1];
  const int64_t cnt = N > 1 ? N * (N - 1) / 2 : 0;
  if (out->dim != 1 || cnt > INT32_MAX) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "%s: out must be 1-D with N*(N-1)/2 = %lld elements", op,
                    (long long)cnt);
    return;
  }
  int32_t osz[1] = {(int32_t)cnt};
  if (!pte_k_resize_out(ctx, out, osz, 1) || !pte_k_check_data(ctx, self, "self")) return;
  int64_t k = 0;
  for (int64_t i = 0; i < N; i++)
    for (int64_t j = i + 1; j < N; j++, k++)
      pte_k_store_double(out->data, out->dtype, k * out->strides[0],
                         dist_rows(self, i * self->strides[0], self->strides[1], self, j * self->strides[0],
                                   self->strides[1], M, p));
  pte_k_set_return(args, nargs, 2);
}

const pte_kernel pte_portable_distance_kernels[] = {
    {"aten::_cdist_forward.out", NULL, op_cdist},
    {"aten::_pdist_forward.out", NULL, op_pdist},
};
const size_t pte_portable_distance_kernels_count =
    sizeof pte_portable_distance_kernels / sizeof pte_portable_distance_kernels[0];
