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
#include "portable/util/kutil_reduce.h"
#include "portable/util/kutil_shape.h"

typedef pte_kr_plan rplan;
typedef pte_kr_kwalk kwalk;
typedef pte_kr_rwalk rwalk;
#define rplan_init pte_kr_plan_init
#define kwalk_start pte_kr_kwalk_start
#define kwalk_next pte_kr_kwalk_next
#define rwalk_start pte_kr_rwalk_start
#define rwalk_next pte_kr_rwalk_next
#define arg_opt_dtype pte_kr_arg_opt_dtype
#define arg_opt_dims pte_kr_arg_opt_dims

static bool int_like(int dtype) { return pte_k_is_integral(dtype) || dtype == PTE_DTYPE_BOOL; }

/* ---- sum / mean ------------------------------------------------------------------------------ */

/* sum / mean over dims (NULL or empty: every dim) into out; false after a recorded failure. */
static bool sum_mean_core(pte_kernel_context *ctx, const pte_tensor *self, const int64_t *dims, size_t n,
                          bool keepdim, int dt, pte_tensor *out, bool mean) {
  if (!pte_k_dtype_supported(self->dtype)) PTE_K_BAD_FALSE("unsupported input dtype %s", pte_dtype_name(self->dtype));
  if (!pte_k_dtype_supported(out->dtype)) PTE_K_BAD_FALSE("unsupported out dtype %s", pte_dtype_name(out->dtype));
  if (dt >= 0 && dt != out->dtype)
    PTE_K_BAD_FALSE("dtype argument %s does not match out dtype %s", pte_dtype_name(dt), pte_dtype_name(out->dtype));
  if (mean) {
    if (!pte_k_is_floating(out->dtype)) PTE_K_BAD_FALSE("mean(): out dtype must be floating, got %s", pte_dtype_name(out->dtype));
    if (dt < 0 && !pte_k_is_floating(self->dtype))
      PTE_K_BAD_FALSE("mean(): could not infer output dtype. Input dtype must be floating point, got %s",
          pte_dtype_name(self->dtype));
  }
  /* an empty dim list means every dim */
  if (dims && n == 0) dims = NULL;
  uint32_t mask;
  if (!pte_kr_mask(ctx, mean ? "mean" : "sum", self, dims, n, &mask)) return false;
  rplan p;
  if (!pte_kr_start(ctx, mean ? "mean" : "sum", self, mask, keepdim, out, &p)) return false;
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
  return true;
}

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
  if (!out || !sum_mean_core(ctx, self, dims, n, keepdim, dt, out, mean)) return;
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

/* aten::mean.dtype_out(Tensor self, *, ScalarType? dtype=None, Tensor(a!) out): mean of every
 * element (0-dim out). */
static void op_mean_dtype(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  if (!pte_k_check_nargs(ctx, nargs, 3, 4)) return;
  pte_tensor *self = pte_k_arg_tensor(ctx, args, nargs, 0);
  int dt;
  if (!self || !arg_opt_dtype(ctx, args, nargs, 1, &dt)) return;
  pte_tensor *out = pte_k_arg_tensor(ctx, args, nargs, 2);
  if (!out || !sum_mean_core(ctx, self, NULL, 0, false, dt, out, true)) return;
  pte_k_set_return(args, nargs, 2);
}

/* ---- prod ------------------------------------------------------------------------------------ */

/* Product over mask into out. Out dtype: dtype if given, else int64 for integral/bool self, else
 * self's dtype. Floating products are computed in double, integral ones in wrapping 64-bit. */
static void prod_common(pte_kernel_context *ctx, pte_evalue **args, size_t nargs, size_t out_idx,
                        const pte_tensor *self, const int64_t *dim, bool keepdim, int dt, pte_tensor *out) {
  if (!pte_k_dtype_supported(self->dtype)) PTE_K_BAD("prod: unsupported input dtype %s", pte_dtype_name(self->dtype));
  int want = dt >= 0 ? dt : int_like(self->dtype) ? PTE_DTYPE_LONG : self->dtype;
  if (!pte_k_dtype_supported(want)) PTE_K_BAD("prod: unsupported dtype argument %s", pte_dtype_name(want));
  if (out->dtype != want)
    PTE_K_BAD("prod: expected out dtype %s, got %s", pte_dtype_name(want), pte_dtype_name(out->dtype));
  uint32_t mask;
  if (!pte_kr_mask(ctx, "prod", self, dim, 1, &mask)) return;
  rplan p;
  if (!pte_kr_start(ctx, "prod", self, mask, keepdim, out, &p)) return;
  int idt = self->dtype, odt = out->dtype;
  kwalk w;
  kwalk_start(&w);
  for (int64_t e = 0; e < p.kcount; e++, kwalk_next(&p, &w)) {
    rwalk r;
    rwalk_start(&p, &r, w.in);
    if (pte_k_is_floating(odt)) {
      double acc = 1;
      if (p.rcount > 0) do {
          for (int64_t j = 0; j < r.len; j++) acc *= pte_k_load_double(self->data, idt, r.off + j * r.st);
        } while (rwalk_next(&p, &r));
      pte_k_store_double(out->data, odt, w.out0, acc);
    } else {
      uint64_t acc = 1;
      if (p.rcount > 0) do {
          for (int64_t j = 0; j < r.len; j++) acc *= (uint64_t)pte_k_load_int64(self->data, idt, r.off + j * r.st);
        } while (rwalk_next(&p, &r));
      pte_k_store_int64(out->data, odt, w.out0, (int64_t)acc);
    }
  }
  pte_k_set_return(args, nargs, out_idx);
}

/* aten::prod.out(Tensor self, *, ScalarType? dtype=None, Tensor(a!) out) */
static void op_prod(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  if (!pte_k_check_nargs(ctx, nargs, 3, 4)) return;
  pte_tensor *self = pte_k_arg_tensor(ctx, args, nargs, 0);
  int dt;
  if (!self || !arg_opt_dtype(ctx, args, nargs, 1, &dt)) return;
  pte_tensor *out = pte_k_arg_tensor(ctx, args, nargs, 2);
  if (!out) return;
  prod_common(ctx, args, nargs, 2, self, NULL, false, dt, out);
}

/* aten::prod.int_out(Tensor self, int dim, bool keepdim=False, *, ScalarType? dtype=None,
 *                    Tensor(a!) out) */
static void op_prod_int(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  if (!pte_k_check_nargs(ctx, nargs, 5, 6)) return;
  pte_tensor *self = pte_k_arg_tensor(ctx, args, nargs, 0);
  int64_t d;
  bool keepdim;
  int dt;
  if (!self || !pte_k_arg_int(ctx, args, nargs, 1, &d) || !pte_k_arg_bool(ctx, args, nargs, 2, &keepdim) ||
      !arg_opt_dtype(ctx, args, nargs, 3, &dt))
    return;
  pte_tensor *out = pte_k_arg_tensor(ctx, args, nargs, 4);
  if (!out) return;
  prod_common(ctx, args, nargs, 4, self, &d, keepdim, dt, out);
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

static void amax_amin(pte_kernel_context *ctx, pte_evalue **args, size_t nargs, bool is_max) {
  if (!pte_k_check_nargs(ctx, nargs, 4, 5)) return;
  pte_tensor *self = pte_k_arg_tensor(ctx, args, nargs, 0);
  size_t n;
  const int64_t *dims = pte_k_arg_int_list(ctx, args, nargs, 1, &n);
  bool keepdim;
  if (!self || !dims || !pte_k_arg_bool(ctx, args, nargs, 2, &keepdim)) return;
  pte_tensor *out = pte_k_arg_tensor(ctx, args, nargs, 3);
  if (!out) return;
  if (!pte_k_dtype_supported(self->dtype)) PTE_K_BAD("unsupported dtype %s", pte_dtype_name(self->dtype));
  if (out->dtype != self->dtype)
    PTE_K_BAD("expected out dtype %s, got %s", pte_dtype_name(self->dtype), pte_dtype_name(out->dtype));
  uint32_t mask;
  if (!pte_kr_mask(ctx, is_max ? "amax" : "amin", self, n ? dims : NULL, n, &mask)) return;
  if (!pte_kr_check_nonempty(ctx, self, mask, is_max ? "amax" : "amin")) return;
  rplan p;
  if (!pte_kr_start(ctx, is_max ? "amax" : "amin", self, mask, keepdim, out, &p)) return;
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
  if (!pte_k_dtype_supported(self->dtype)) PTE_K_BAD("unsupported dtype %s", pte_dtype_name(self->dtype));
  if (out->dtype != PTE_DTYPE_LONG) PTE_K_BAD("expected out dtype int64, got %s", pte_dtype_name(out->dtype));
  uint32_t mask;
  if (!pte_kr_mask(ctx, is_max ? "argmax" : "argmin", self, has_dim ? &d : NULL, 1, &mask)) return;
  const char *name = is_max ? "argmax" : "argmin";
  if (self->numel == 0 && !has_dim) PTE_K_BAD("%s(): expected a non-empty tensor when dim is None", name);
  if (!pte_kr_check_nonempty(ctx, self, mask, name)) return;
  rplan p;
  if (!pte_kr_start(ctx, is_max ? "argmax" : "argmin", self, mask, keepdim, out, &p)) return;
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
  if (!pte_k_dtype_supported(self->dtype)) PTE_K_BAD("unsupported dtype %s", pte_dtype_name(self->dtype));
  if (vals->dtype != self->dtype)
    PTE_K_BAD("expected values dtype %s, got %s", pte_dtype_name(self->dtype), pte_dtype_name(vals->dtype));
  if (idxs->dtype != PTE_DTYPE_LONG) PTE_K_BAD("expected indices dtype int64, got %s", pte_dtype_name(idxs->dtype));
  uint32_t mask;
  if (!pte_kr_mask(ctx, is_max ? "max" : "min", self, &d, 1, &mask)) return;
  if (!pte_kr_check_nonempty(ctx, self, mask, is_max ? "max" : "min")) return;
  if (!pte_k_check_data(ctx, self, "self") || !pte_kr_resize(ctx, is_max ? "max" : "min", "values", self, mask, keepdim, vals) ||
      !pte_kr_resize(ctx, is_max ? "max" : "min", "indices", self, mask, keepdim, idxs))
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

/* max.unary_out / min.unary_out: the extreme of every element into a 0-dim out (first NaN wins),
 * converted to out's dtype (which self's dtype must be castable to). */
static void max_min_unary(pte_kernel_context *ctx, pte_evalue **args, size_t nargs, bool is_max) {
  const char *name = is_max ? "max" : "min";
  if (!pte_k_check_nargs(ctx, nargs, 2, 3)) return;
  pte_tensor *self = pte_k_arg_tensor(ctx, args, nargs, 0);
  pte_tensor *out = pte_k_arg_tensor(ctx, args, nargs, 1);
  if (!self || !out) return;
  if (!pte_k_dtype_supported(self->dtype)) PTE_K_BAD("%s: unsupported dtype %s", name, pte_dtype_name(self->dtype));
  if (!pte_k_dtype_supported(out->dtype) || !pte_k_can_cast(self->dtype, out->dtype))
    PTE_K_BAD("%s: cannot cast self dtype %s to out dtype %s", name, pte_dtype_name(self->dtype),
        pte_dtype_name(out->dtype));
  if (self->numel == 0)
    PTE_K_BAD("%s(): Expected reduction dim to be specified for input.numel() == 0 (self is empty)", name);
  if (!pte_k_check_data(ctx, self, "self") || !pte_k_resize_out(ctx, out, NULL, 0)) return;
  uint32_t mask;
  if (!pte_kr_mask(ctx, name, self, NULL, 0, &mask)) return;
  rplan p;
  rplan_init(&p, self, mask, false, out, NULL);
  int64_t bo, bi;
  extreme(&p, self, 0, is_max, &bo, &bi);
  if (int_like(self->dtype))
    pte_k_store_int64(out->data, out->dtype, 0, pte_k_load_int64(self->data, self->dtype, bo));
  else
    pte_k_store_double(out->data, out->dtype, 0, pte_k_load_double(self->data, self->dtype, bo));
  pte_k_set_return(args, nargs, 1);
}

/* aten::max.unary_out(Tensor self, *, Tensor(a!) out) */
static void op_max_unary(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) { max_min_unary(ctx, args, nargs, true); }
/* aten::min.unary_out(Tensor self, *, Tensor(a!) out) */
static void op_min_unary(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) { max_min_unary(ctx, args, nargs, false); }

/* ---- any ------------------------------------------------------------------------------------- */

/* any over mask (or, when elementwise, per element); out is BOOL or BYTE. */
static void any_common(pte_kernel_context *ctx, pte_evalue **args, size_t nargs, size_t out_idx,
                       pte_tensor *self, pte_tensor *out, const int64_t *dims, size_t n, bool keepdim,
                       bool elementwise) {
  if (!pte_k_dtype_supported(self->dtype)) PTE_K_BAD("unsupported dtype %s", pte_dtype_name(self->dtype));
  if (out->dtype != PTE_DTYPE_BOOL && out->dtype != PTE_DTYPE_BYTE)
    PTE_K_BAD("any(): out dtype must be bool or uint8, got %s", pte_dtype_name(out->dtype));
  uint32_t mask = 0;
  if (!elementwise && !pte_kr_mask(ctx, "any", self, dims, n, &mask)) return;
  rplan p;
  if (!pte_kr_start(ctx, "any", self, mask, keepdim || elementwise, out, &p)) return;
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
  if (!pte_k_dtype_supported(self->dtype)) PTE_K_BAD("unsupported input dtype %s", pte_dtype_name(self->dtype));
  if (!pte_k_dtype_supported(out->dtype) || out->dtype == PTE_DTYPE_BOOL)
    PTE_K_BAD("cumsum: unsupported out dtype %s", pte_dtype_name(out->dtype));
  if (dt >= 0 && dt != out->dtype)
    PTE_K_BAD("dtype argument %s does not match out dtype %s", pte_dtype_name(dt), pte_dtype_name(out->dtype));
  int32_t dim;
  if (!pte_ks_wrap_dim(d, self->dim, &dim)) PTE_K_BAD("dim %lld out of range", (long long)d);
  if (out->dim != self->dim) PTE_K_BAD("out has rank %d, expected %d", (int)out->dim, (int)self->dim);
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
    {"aten::mean.dtype_out", NULL, op_mean_dtype},
    {"aten::prod.out", NULL, op_prod},
    {"aten::prod.int_out", NULL, op_prod_int},
    {"aten::max.unary_out", NULL, op_max_unary},
    {"aten::min.unary_out", NULL, op_min_unary},
};
const size_t pte_portable_reduce_kernels_count =
    sizeof pte_portable_reduce_kernels / sizeof pte_portable_reduce_kernels[0];
