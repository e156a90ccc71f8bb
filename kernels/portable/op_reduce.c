/* Reduction kernels: sum.IntList, mean, amax, amin, argmax, argmin, any (dim / all / dims),
 * max.dim, min.dim, cumsum.
 *
 * A reduction walks the kept dimensions of self (one output element each) and, for each, the
 * reduced dimensions in logical order (so "first index" semantics hold), through self's strides;
 * outputs are written through their own strides, so any dim order works on either side.
 * Floating sums accumulate in double, integral sums in (wrapping) 64-bit; comparisons of integral
 * values are exact in int64.
 */
#include <math.h>
#include <string.h>

#include "portable/portable_reduce.h"
#include "portable/util/kutil.h"
#include "portable/util/kutil_shape.h"

#define FAIL(status, ...)                          \
  do {                                             \
    pte_kernel_fail(ctx, (status), __VA_ARGS__);   \
    return;                                        \
  } while (0)
#define BAD(...) FAIL(PTE_ERR_INVALID_ARGUMENT, __VA_ARGS__)

/* ---- plan --------------------------------------------------------------------------------- */

typedef struct rplan {
  int32_t nk;                 /* kept dims (size > 1), logical order */
  int64_t ksz[PTE_MAX_RANK];
  int64_t kin[PTE_MAX_RANK];  /* self stride */
  int64_t kout[2][PTE_MAX_RANK];
  int64_t kcount;             /* number of output elements */
  int32_t nr;                 /* reduced dims (size > 1, merged), logical order */
  int64_t rsz[PTE_MAX_RANK];
  int64_t rin[PTE_MAX_RANK];
  int64_t rcount;             /* elements per reduction */
} rplan;

/* Reads the reduced-dims set. dims == NULL means every dim. Fails on out-of-range or repeated
 * dims. For a 0-dim self the only valid dims are 0 and -1 and the mask stays empty. */
static bool red_mask(pte_kernel_context *ctx, const pte_tensor *self, const int64_t *dims, size_t n,
                     uint32_t *mask) {
  *mask = 0;
  if (!dims) {
    for (int32_t d = 0; d < self->dim; d++) *mask |= 1u << d;
    return true;
  }
  uint32_t seen = 0;
  for (size_t i = 0; i < n; i++) {
    int32_t d;
    if (!pte_ks_wrap_dim(dims[i], self->dim, &d)) {
      pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "dim %lld out of range for rank %d",
                      (long long)dims[i], (int)self->dim);
      return false;
    }
    if (seen & (1u << d)) {
      pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "dim %d appears multiple times in the list of dims", (int)d);
      return false;
    }
    seen |= 1u << d;
  }
  if (self->dim > 0) *mask = seen;
  return true;
}

/* Output shape of a reduction over mask. */
static int32_t red_out_sizes(const pte_tensor *self, uint32_t mask, bool keepdim, int32_t *sizes) {
  int32_t n = 0;
  for (int32_t d = 0; d < self->dim; d++) {
    if ((mask >> d) & 1u) {
      if (keepdim) sizes[n++] = 1;
    } else {
      sizes[n++] = self->sizes[d];
    }
  }
  return n;
}

/* Checks rank, resizes out to the reduction shape. */
static bool red_resize(pte_kernel_context *ctx, const pte_tensor *self, uint32_t mask, bool keepdim,
                       pte_tensor *out) {
  int32_t sizes[PTE_MAX_RANK];
  int32_t n = red_out_sizes(self, mask, keepdim, sizes);
  if (out->dim != n) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "out has rank %d, expected %d", (int)out->dim, (int)n);
    return false;
  }
  return pte_k_resize_out(ctx, out, sizes, n);
}

static void rplan_init(rplan *p, const pte_tensor *self, uint32_t mask, bool keepdim,
                       const pte_tensor *out0, const pte_tensor *out1) {
  p->nk = p->nr = 0;
  p->kcount = p->rcount = 1;
  int32_t od = 0;
  for (int32_t d = 0; d < self->dim; d++) {
    int64_t sz = self->sizes[d];
    if ((mask >> d) & 1u) {
      if (keepdim) od++;
      p->rcount *= sz;
      if (sz == 1) continue;
      if (p->nr > 0 && p->rin[p->nr - 1] == self->strides[d] * sz) {
        p->rsz[p->nr - 1] *= sz;
        p->rin[p->nr - 1] = self->strides[d];
      } else {
        p->rsz[p->nr] = sz;
        p->rin[p->nr] = self->strides[d];
        p->nr++;
      }
    } else {
      p->kcount *= sz;
      if (sz != 1) {
        p->ksz[p->nk] = sz;
        p->kin[p->nk] = self->strides[d];
        p->kout[0][p->nk] = out0->strides[od];
        p->kout[1][p->nk] = out1 ? out1->strides[od] : 0;
        p->nk++;
      }
      od++;
    }
  }
}

/* Outer walk over output elements. */
typedef struct kwalk {
  int64_t cnt[PTE_MAX_RANK];
  int64_t in, out0, out1;
} kwalk;

static void kwalk_start(kwalk *w) {
  memset(w->cnt, 0, sizeof w->cnt);
  w->in = w->out0 = w->out1 = 0;
}

static void kwalk_next(const rplan *p, kwalk *w) {
  for (int32_t i = p->nk - 1; i >= 0; i--) {
    if (++w->cnt[i] < p->ksz[i]) {
      w->in += p->kin[i];
      w->out0 += p->kout[0][i];
      w->out1 += p->kout[1][i];
      return;
    }
    w->in -= p->kin[i] * (p->ksz[i] - 1);
    w->out0 -= p->kout[0][i] * (p->ksz[i] - 1);
    w->out1 -= p->kout[1][i] * (p->ksz[i] - 1);
    w->cnt[i] = 0;
  }
}

/* Inner walk over the reduced elements, in runs of the innermost reduced dim. */
typedef struct rwalk {
  int64_t cnt[PTE_MAX_RANK];
  int64_t off;
  int64_t len, st; /* run */
} rwalk;

static void rwalk_start(const rplan *p, rwalk *r, int64_t base) {
  memset(r->cnt, 0, sizeof r->cnt);
  r->off = base;
  r->len = p->nr ? p->rsz[p->nr - 1] : 1;
  r->st = p->nr ? p->rin[p->nr - 1] : 0;
}

static bool rwalk_next(const rplan *p, rwalk *r) {
  for (int32_t i = p->nr - 2; i >= 0; i--) {
    if (++r->cnt[i] < p->rsz[i]) {
      r->off += p->rin[i];
      return true;
    }
    r->off -= p->rin[i] * (p->rsz[i] - 1);
    r->cnt[i] = 0;
  }
  return false;
}

static bool int_like(int dtype) { return pte_k_is_integral(dtype) || dtype == PTE_DTYPE_BOOL; }

/* Reads an optional ScalarType argument (Int EValue or None); -1 for None. */
static bool arg_opt_dtype(pte_kernel_context *ctx, pte_evalue **args, size_t nargs, size_t i, int *dt) {
  *dt = -1;
  if (pte_k_arg_is_none(args, nargs, i)) return true;
  int64_t v;
  if (!pte_k_arg_int(ctx, args, nargs, i, &v)) return false;
  if (v < 0 || v >= PTE_DTYPE_NUM) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "invalid dtype %lld", (long long)v);
    return false;
  }
  *dt = (int)v;
  return true;
}

/* Reads an optional int[] dim argument: *dims NULL for None. */
static bool arg_opt_dims(pte_kernel_context *ctx, pte_evalue **args, size_t nargs, size_t i,
                         const int64_t **dims, size_t *n) {
  *dims = NULL;
  *n = 0;
  if (pte_k_arg_is_none(args, nargs, i)) return true;
  *dims = pte_k_arg_int_list(ctx, args, nargs, i, n);
  return *dims != NULL;
}

/* ---- sum / mean ------------------------------------------------------------------------------ */

static void sum_mean(pte_kernel_context *ctx, pte_evalue **args, size_t nargs, bool mean) {
  if (!pte_k_check_nargs(ctx, nargs, 5, 6)) return;
  pte_tensor *self = pte_k_arg_tensor(ctx, args, nargs, 0);
  const int64_t *dims;
  size_t n;
  bool keepdim;
  int dt;
  if (!self || !arg_opt_dims(ctx, args, nargs, 1, &dims, &n) ||
      !pte_k_arg_bool(ctx, args, nargs, 2, &keepdim) || !arg_opt_dtype(ctx, args, nargs, 3, &dt))
    return;
  pte_tensor *out = pte_k_arg_tensor(ctx, args, nargs, 4);
  if (!out) return;
  if (!pte_k_dtype_supported(self->dtype)) BAD("unsupported input dtype %s", pte_dtype_name(self->dtype));
  if (!pte_k_dtype_supported(out->dtype)) BAD("unsupported out dtype %s", pte_dtype_name(out->dtype));
  if (dt >= 0 && dt != out->dtype)
    BAD("dtype argument %s does not match out dtype %s", pte_dtype_name(dt), pte_dtype_name(out->dtype));
  if (mean) {
    if (!pte_k_is_floating(out->dtype)) BAD("mean(): out dtype must be floating, got %s", pte_dtype_name(out->dtype));
    if (dt < 0 && !pte_k_is_floating(self->dtype))
      BAD("mean(): could not infer output dtype. Input dtype must be floating point, got %s",
          pte_dtype_name(self->dtype));
  }
  /* an empty dim list means every dim */
  if (dims && n == 0) dims = NULL;
  uint32_t mask;
  if (!red_mask(ctx, self, dims, n, &mask)) return;
  if (!pte_k_check_data(ctx, self, "self") || !red_resize(ctx, self, mask, keepdim, out)) return;
  rplan p;
  rplan_init(&p, self, mask, keepdim, out, NULL);
  int idt = self->dtype, odt = out->dtype;
  const void *in = self->data;
  kwalk w;
  kwalk_start(&w);
  for (int64_t e = 0; e < p.kcount; e++, kwalk_next(&p, &w)) {
    rwalk r;
    rwalk_start(&p, &r, w.in);
    if (pte_k_is_floating(odt)) {
      double acc = 0;
      if (p.rcount > 0) {
        if (idt == PTE_DTYPE_FLOAT) {
          const float *f = (const float *)in;
          do {
            for (int64_t j = 0; j < r.len; j++) acc += f[r.off + j * r.st];
          } while (rwalk_next(&p, &r));
        } else {
          do {
            for (int64_t j = 0; j < r.len; j++) acc += pte_k_load_double(in, idt, r.off + j * r.st);
          } while (rwalk_next(&p, &r));
        }
      }
      if (mean) acc = p.rcount > 0 ? acc / (double)p.rcount : NAN;
      pte_k_store_double(out->data, odt, w.out0, acc);
    } else if (odt == PTE_DTYPE_BOOL) {
      bool any = false;
      if (p.rcount > 0) {
        do {
          for (int64_t j = 0; j < r.len && !any; j++) any = pte_k_load_double(in, idt, r.off + j * r.st) != 0;
        } while (!any && rwalk_next(&p, &r));
      }
      pte_k_store_int64(out->data, odt, w.out0, any ? 1 : 0);
    } else {
      uint64_t acc = 0;
      if (p.rcount > 0) {
        do {
          for (int64_t j = 0; j < r.len; j++) acc += (uint64_t)pte_k_load_int64(in, idt, r.off + j * r.st);
        } while (rwalk_next(&p, &r));
      }
      pte_k_store_int64(out->data, odt, w.out0, (int64_t)acc);
    }
  }
  pte_k_set_return(args, nargs, 4);
}

/* aten::sum.IntList_out(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None,
 *                       Tensor(a!) out) */
static void op_sum(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  sum_mean(ctx, args, nargs, false);
}

/* aten::mean.out(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None,
 *                Tensor(a!) out) */
static void op_mean(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  sum_mean(ctx, args, nargs, true);
}

/* ---- extrema --------------------------------------------------------------------------------- */

/* Finds the max (is_max) or min of one reduction: *best_off is the element offset of the winner
 * and *best_idx its position in the reduction (first occurrence; the first NaN wins for floating
 * dtypes). rcount must be > 0. */
static void extreme(const rplan *p, const pte_tensor *self, int64_t base, bool is_max, int64_t *best_off,
                    int64_t *best_idx) {
  rwalk r;
  rwalk_start(p, &r, base);
  int dt = self->dtype;
  const void *in = self->data;
  int64_t k = 0, bo = base, bi = 0;
  if (int_like(dt)) {
    int64_t best = 0;
    bool first = true;
    do {
      for (int64_t j = 0; j < r.len; j++, k++) {
        int64_t off = r.off + j * r.st;
        int64_t v = pte_k_load_int64(in, dt, off);
        if (first || (is_max ? v > best : v < best)) {
          best = v;
          bo = off;
          bi = k;
          first = false;
        }
      }
    } while (rwalk_next(p, &r));
  } else {
    double best = 0;
    bool first = true, nan = false;
    do {
      for (int64_t j = 0; j < r.len; j++, k++) {
        int64_t off = r.off + j * r.st;
        double v = dt == PTE_DTYPE_FLOAT ? (double)((const float *)in)[off] : pte_k_load_double(in, dt, off);
        if (isnan(v)) {
          bo = off;
          bi = k;
          nan = true;
          break;
        }
        if (first || (is_max ? v > best : v < best)) {
          best = v;
          bo = off;
          bi = k;
          first = false;
        }
      }
    } while (!nan && rwalk_next(p, &r));
  }
  *best_off = bo;
  *best_idx = bi;
}

/* Fails if a reduced dim has size 0 (nothing to take the max of). */
static bool check_nonempty_red(pte_kernel_context *ctx, const pte_tensor *self, uint32_t mask, const char *op) {
  for (int32_t d = 0; d < self->dim; d++)
    if (((mask >> d) & 1u) && self->sizes[d] == 0) {
      pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "%s(): expected reduction dim %d to have non-zero size", op, (int)d);
      return false;
    }
  return true;
}

static void amax_amin(pte_kernel_context *ctx, pte_evalue **args, size_t nargs, bool is_max) {
  if (!pte_k_check_nargs(ctx, nargs, 4, 5)) return;
  pte_tensor *self = pte_k_arg_tensor(ctx, args, nargs, 0);
  size_t n;
  const int64_t *dims = pte_k_arg_int_list(ctx, args, nargs, 1, &n);
  bool keepdim;
  if (!self || !dims || !pte_k_arg_bool(ctx, args, nargs, 2, &keepdim)) return;
  pte_tensor *out = pte_k_arg_tensor(ctx, args, nargs, 3);
  if (!out) return;
  if (!pte_k_dtype_supported(self->dtype)) BAD("unsupported dtype %s", pte_dtype_name(self->dtype));
  if (out->dtype != self->dtype)
    BAD("expected out dtype %s, got %s", pte_dtype_name(self->dtype), pte_dtype_name(out->dtype));
  uint32_t mask;
  if (!red_mask(ctx, self, n ? dims : NULL, n, &mask)) return;
  if (!check_nonempty_red(ctx, self, mask, is_max ? "amax" : "amin")) return;
  if (!pte_k_check_data(ctx, self, "self") || !red_resize(ctx, self, mask, keepdim, out)) return;
  rplan p;
  rplan_init(&p, self, mask, keepdim, out, NULL);
  size_t es = pte_dtype_size(out->dtype);
  kwalk w;
  kwalk_start(&w);
  for (int64_t e = 0; e < p.kcount; e++, kwalk_next(&p, &w)) {
    int64_t bo, bi;
    extreme(&p, self, w.in, is_max, &bo, &bi);
    memcpy((uint8_t *)out->data + w.out0 * (int64_t)es, (const uint8_t *)self->data + bo * (int64_t)es, es);
  }
  pte_k_set_return(args, nargs, 3);
}

/* aten::amax.out(Tensor self, int[1] dim=[], bool keepdim=False, *, Tensor(a!) out) */
static void op_amax(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) { amax_amin(ctx, args, nargs, true); }
/* aten::amin.out(Tensor self, int[1] dim=[], bool keepdim=False, *, Tensor(a!) out) */
static void op_amin(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) { amax_amin(ctx, args, nargs, false); }

static void argmax_argmin(pte_kernel_context *ctx, pte_evalue **args, size_t nargs, bool is_max) {
  if (!pte_k_check_nargs(ctx, nargs, 4, 5)) return;
  pte_tensor *self = pte_k_arg_tensor(ctx, args, nargs, 0);
  bool keepdim, has_dim = !pte_k_arg_is_none(args, nargs, 1);
  int64_t d = 0;
  if (!self || (has_dim && !pte_k_arg_int(ctx, args, nargs, 1, &d)) ||
      !pte_k_arg_bool(ctx, args, nargs, 2, &keepdim))
    return;
  pte_tensor *out = pte_k_arg_tensor(ctx, args, nargs, 3);
  if (!out) return;
  if (!pte_k_dtype_supported(self->dtype)) BAD("unsupported dtype %s", pte_dtype_name(self->dtype));
  if (out->dtype != PTE_DTYPE_LONG) BAD("expected out dtype int64, got %s", pte_dtype_name(out->dtype));
  uint32_t mask;
  if (!red_mask(ctx, self, has_dim ? &d : NULL, 1, &mask)) return;
  const char *name = is_max ? "argmax" : "argmin";
  if (self->numel == 0 && !has_dim) BAD("%s(): expected a non-empty tensor when dim is None", name);
  if (!check_nonempty_red(ctx, self, mask, name)) return;
  if (!pte_k_check_data(ctx, self, "self") || !red_resize(ctx, self, mask, keepdim, out)) return;
  rplan p;
  rplan_init(&p, self, mask, keepdim, out, NULL);
  kwalk w;
  kwalk_start(&w);
  for (int64_t e = 0; e < p.kcount; e++, kwalk_next(&p, &w)) {
    int64_t bo, bi;
    extreme(&p, self, w.in, is_max, &bo, &bi);
    ((int64_t *)out->data)[w.out0] = bi;
  }
  pte_k_set_return(args, nargs, 3);
}

/* aten::argmax.out(Tensor self, int? dim=None, bool keepdim=False, *, Tensor(a!) out) */
static void op_argmax(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) { argmax_argmin(ctx, args, nargs, true); }
/* aten::argmin.out(Tensor self, int? dim=None, bool keepdim=False, *, Tensor(a!) out) */
static void op_argmin(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) { argmax_argmin(ctx, args, nargs, false); }

/* Copies the two outs into the trailing (values, indices) return list when it holds different
 * EValues. */
static void set_return2(pte_evalue **args, size_t nargs, size_t out_idx) {
  if (nargs <= out_idx + 2) return;
  pte_evalue *r = args[nargs - 1];
  if (!r || r->tag != PTE_TAG_LIST_TENSOR || r->u.tensor_list.len != 2) return;
  for (size_t i = 0; i < 2; i++) {
    pte_evalue *it = r->u.tensor_list.items[i];
    if (it && args[out_idx + i] && it != args[out_idx + i]) *it = *args[out_idx + i];
  }
}

static void max_min_dim(pte_kernel_context *ctx, pte_evalue **args, size_t nargs, bool is_max) {
  if (!pte_k_check_nargs(ctx, nargs, 5, 6)) return;
  pte_tensor *self = pte_k_arg_tensor(ctx, args, nargs, 0);
  int64_t d;
  bool keepdim;
  if (!self || !pte_k_arg_int(ctx, args, nargs, 1, &d) || !pte_k_arg_bool(ctx, args, nargs, 2, &keepdim))
    return;
  pte_tensor *vals = pte_k_arg_tensor(ctx, args, nargs, 3);
  pte_tensor *idxs = pte_k_arg_tensor(ctx, args, nargs, 4);
  if (!vals || !idxs) return;
  if (!pte_k_dtype_supported(self->dtype)) BAD("unsupported dtype %s", pte_dtype_name(self->dtype));
  if (vals->dtype != self->dtype)
    BAD("expected values dtype %s, got %s", pte_dtype_name(self->dtype), pte_dtype_name(vals->dtype));
  if (idxs->dtype != PTE_DTYPE_LONG) BAD("expected indices dtype int64, got %s", pte_dtype_name(idxs->dtype));
  uint32_t mask;
  if (!red_mask(ctx, self, &d, 1, &mask)) return;
  if (!check_nonempty_red(ctx, self, mask, is_max ? "max" : "min")) return;
  if (!pte_k_check_data(ctx, self, "self") || !red_resize(ctx, self, mask, keepdim, vals) ||
      !red_resize(ctx, self, mask, keepdim, idxs))
    return;
  rplan p;
  rplan_init(&p, self, mask, keepdim, vals, idxs);
  size_t es = pte_dtype_size(self->dtype);
  kwalk w;
  kwalk_start(&w);
  for (int64_t e = 0; e < p.kcount; e++, kwalk_next(&p, &w)) {
    int64_t bo, bi;
    extreme(&p, self, w.in, is_max, &bo, &bi);
    memcpy((uint8_t *)vals->data + w.out0 * (int64_t)es, (const uint8_t *)self->data + bo * (int64_t)es, es);
    ((int64_t *)idxs->data)[w.out1] = bi;
  }
  set_return2(args, nargs, 3);
}

/* aten::max.dim_max(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) max,
 *                   Tensor(b!) max_values) -> (Tensor(a!) values, Tensor(b!) indices) */
static void op_max_dim(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) { max_min_dim(ctx, args, nargs, true); }
/* aten::min.dim_min(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) min,
 *                   Tensor(b!) min_indices) -> (Tensor(a!) values, Tensor(b!) indices) */
static void op_min_dim(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) { max_min_dim(ctx, args, nargs, false); }

/* ---- any ------------------------------------------------------------------------------------- */

/* any over mask (or, when elementwise, per element); out is BOOL or BYTE. */
static void any_common(pte_kernel_context *ctx, pte_evalue **args, size_t nargs, size_t out_idx,
                       pte_tensor *self, pte_tensor *out, const int64_t *dims, size_t n, bool keepdim,
                       bool elementwise) {
  if (!pte_k_dtype_supported(self->dtype)) BAD("unsupported dtype %s", pte_dtype_name(self->dtype));
  if (out->dtype != PTE_DTYPE_BOOL && out->dtype != PTE_DTYPE_BYTE)
    BAD("any(): out dtype must be bool or uint8, got %s", pte_dtype_name(out->dtype));
  uint32_t mask = 0;
  if (!elementwise && !red_mask(ctx, self, dims, n, &mask)) return;
  if (!pte_k_check_data(ctx, self, "self") || !red_resize(ctx, self, mask, keepdim || elementwise, out)) return;
  rplan p;
  rplan_init(&p, self, mask, keepdim || elementwise, out, NULL);
  int dt = self->dtype;
  kwalk w;
  kwalk_start(&w);
  for (int64_t e = 0; e < p.kcount; e++, kwalk_next(&p, &w)) {
    bool any = false;
    if (p.rcount > 0) {
      rwalk r;
      rwalk_start(&p, &r, w.in);
      do {
        for (int64_t j = 0; j < r.len && !any; j++) {
          int64_t off = r.off + j * r.st;
          any = int_like(dt) ? pte_k_load_int64(self->data, dt, off) != 0
                             : pte_k_load_double(self->data, dt, off) != 0; /* NaN is true */
        }
      } while (!any && rwalk_next(&p, &r));
    }
    ((uint8_t *)out->data)[w.out0] = any ? 1 : 0;
  }
  pte_k_set_return(args, nargs, out_idx);
}

/* aten::any.out(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) out) */
static void op_any_dim(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  if (!pte_k_check_nargs(ctx, nargs, 4, 5)) return;
  pte_tensor *self = pte_k_arg_tensor(ctx, args, nargs, 0);
  int64_t d;
  bool keepdim;
  if (!self || !pte_k_arg_int(ctx, args, nargs, 1, &d) || !pte_k_arg_bool(ctx, args, nargs, 2, &keepdim))
    return;
  pte_tensor *out = pte_k_arg_tensor(ctx, args, nargs, 3);
  if (!out) return;
  any_common(ctx, args, nargs, 3, self, out, &d, 1, keepdim, false);
}

/* aten::any.all_out(Tensor self, *, Tensor(a!) out) */
static void op_any_all(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  if (!pte_k_check_nargs(ctx, nargs, 2, 3)) return;
  pte_tensor *self = pte_k_arg_tensor(ctx, args, nargs, 0);
  pte_tensor *out = pte_k_arg_tensor(ctx, args, nargs, 1);
  if (!self || !out) return;
  any_common(ctx, args, nargs, 1, self, out, NULL, 0, false, false);
}

/* aten::any.dims_out(Tensor self, int[1]? dim=None, bool keepdim=False, *, Tensor(a!) out).
 * An empty dim list reduces nothing (each element becomes its truth value). */
static void op_any_dims(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  if (!pte_k_check_nargs(ctx, nargs, 4, 5)) return;
  pte_tensor *self = pte_k_arg_tensor(ctx, args, nargs, 0);
  const int64_t *dims;
  size_t n;
  bool keepdim;
  if (!self || !arg_opt_dims(ctx, args, nargs, 1, &dims, &n) || !pte_k_arg_bool(ctx, args, nargs, 2, &keepdim))
    return;
  pte_tensor *out = pte_k_arg_tensor(ctx, args, nargs, 3);
  if (!out) return;
  any_common(ctx, args, nargs, 3, self, out, dims, n, keepdim, dims != NULL && n == 0);
}

/* ---- cumsum ---------------------------------------------------------------------------------- */

/* aten::cumsum.out(Tensor self, int dim, *, ScalarType? dtype=None, Tensor(a!) out) */
static void op_cumsum(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  if (!pte_k_check_nargs(ctx, nargs, 4, 5)) return;
  pte_tensor *self = pte_k_arg_tensor(ctx, args, nargs, 0);
  int64_t d;
  int dt;
  if (!self || !pte_k_arg_int(ctx, args, nargs, 1, &d) || !arg_opt_dtype(ctx, args, nargs, 2, &dt)) return;
  pte_tensor *out = pte_k_arg_tensor(ctx, args, nargs, 3);
  if (!out) return;
  if (!pte_k_dtype_supported(self->dtype)) BAD("unsupported input dtype %s", pte_dtype_name(self->dtype));
  if (!pte_k_dtype_supported(out->dtype) || out->dtype == PTE_DTYPE_BOOL)
    BAD("cumsum: unsupported out dtype %s", pte_dtype_name(out->dtype));
  if (dt >= 0 && dt != out->dtype)
    BAD("dtype argument %s does not match out dtype %s", pte_dtype_name(dt), pte_dtype_name(out->dtype));
  int32_t dim;
  if (!pte_ks_wrap_dim(d, self->dim, &dim)) BAD("dim %lld out of range", (long long)d);
  if (out->dim != self->dim) BAD("out has rank %d, expected %d", (int)out->dim, (int)self->dim);
  if (!pte_k_check_data(ctx, self, "self") || !pte_k_resize_like(ctx, out, self)) return;
  if (out->numel > 0) {
    uint32_t mask = self->dim > 0 ? 1u << dim : 0;
    rplan p;
    rplan_init(&p, self, mask, true, out, NULL);
    int64_t len = self->dim > 0 ? self->sizes[dim] : 1;
    int64_t ist = self->dim > 0 ? self->strides[dim] : 0, ost = self->dim > 0 ? out->strides[dim] : 0;
    int idt = self->dtype, odt = out->dtype;
    kwalk w;
    kwalk_start(&w);
    for (int64_t e = 0; e < p.kcount; e++, kwalk_next(&p, &w)) {
      if (pte_k_is_floating(odt)) {
        double acc = 0;
        for (int64_t j = 0; j < len; j++) {
          acc += pte_k_round_to_dtype(pte_k_load_double(self->data, idt, w.in + j * ist), odt);
          pte_k_store_double(out->data, odt, w.out0 + j * ost, acc);
        }
      } else {
        uint64_t acc = 0;
        for (int64_t j = 0; j < len; j++) {
          acc += (uint64_t)pte_k_load_int64(self->data, idt, w.in + j * ist);
          pte_k_store_int64(out->data, odt, w.out0 + j * ost, (int64_t)acc);
        }
      }
    }
  }
  pte_k_set_return(args, nargs, 3);
}

/* ---- table ---------------------------------------------------------------------------------- */

const pte_kernel pte_portable_reduce_kernels[] = {
    {"aten::sum.IntList_out", NULL, op_sum},
    {"aten::mean.out", NULL, op_mean},
    {"aten::amax.out", NULL, op_amax},
    {"aten::amin.out", NULL, op_amin},
    {"aten::argmax.out", NULL, op_argmax},
    {"aten::argmin.out", NULL, op_argmin},
    {"aten::any.out", NULL, op_any_dim},
    {"aten::any.all_out", NULL, op_any_all},
    {"aten::any.dims_out", NULL, op_any_dims},
    {"aten::max.dim_max", NULL, op_max_dim},
    {"aten::min.dim_min", NULL, op_min_dim},
    {"aten::cumsum.out", NULL, op_cumsum},
};
const size_t pte_portable_reduce_kernels_count =
    sizeof pte_portable_reduce_kernels / sizeof pte_portable_reduce_kernels[0];
