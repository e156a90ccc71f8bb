/* Shape kernels that write values not taken from self: constant_pad_nd (fills the border with a
 * scalar) and arange (writes a range). Listed in op_shape.c's table (portable/shape_fill.h).
 */
#include <math.h>

#include "portable/shape_fill.h"
#include "portable/util/kutil.h"
#include "portable/util/kutil_shape.h"

/* ---- constant_pad_nd ------------------------------------------------------------------------- */

/* aten::constant_pad_nd.out(Tensor self, SymInt[] pad, Scalar value=0, *, Tensor(a!) out) */
void pte_portable_shape_constant_pad_nd(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  if (!pte_k_check_nargs(ctx, nargs, 4, 5)) return;
  pte_tensor *self = pte_k_arg_tensor(ctx, args, nargs, 0);
  size_t n;
  const int64_t *pad = pte_k_arg_int_list(ctx, args, nargs, 1, &n);
  if (!self || !pad) return;
  if (!pte_k_arg_is_scalar(args, nargs, 2)) PTE_K_BAD("arg 2: expected a Scalar");
  pte_tensor *out = pte_k_arg_tensor(ctx, args, nargs, 3);
  if (!out || !pte_k_check_out_dtype(ctx, NULL, "self", self, out, true)) return;
  if (!pte_k_dtype_supported(out->dtype)) PTE_K_BAD("constant_pad_nd: unsupported dtype %s", pte_dtype_name(out->dtype));
  if (n % 2 != 0) PTE_K_BAD("padding length must be divisible by 2");
  if ((int32_t)(n / 2) > self->dim) PTE_K_BAD("padding length too large for rank %d", (int)self->dim);
  if (!pte_ks_scalar_fits(args[2], out->dtype))
    PTE_K_BAD("pad value cannot be converted to %s without overflow", pte_dtype_name(out->dtype));
  int32_t sizes[PTE_MAX_RANK];
  int64_t lo[PTE_MAX_RANK];
  for (int32_t i = 0; i < self->dim; i++) {
    lo[i] = 0;
    sizes[i] = self->sizes[i];
  }
  for (size_t k = 0; k < n / 2; k++) {
    int32_t i = self->dim - 1 - (int32_t)k;
    int64_t ns = (int64_t)self->sizes[i] + pad[2 * k] + pad[2 * k + 1];
    if (pad[2 * k] < -INT32_MAX || pad[2 * k] > INT32_MAX || ns < 0 || ns > INT32_MAX)
      PTE_K_BAD("padding of dim %d gives an invalid size", (int)i);
    lo[i] = pad[2 * k];
    sizes[i] = (int32_t)ns;
  }
  if (out->dim != self->dim) PTE_K_BAD("out has rank %d, expected %d", (int)out->dim, (int)self->dim);
  if (!pte_k_check_data(ctx, self, "self") || !pte_k_resize_out(ctx, out, sizes, self->dim)) return;
  if (out->numel > 0) {
    size_t es = pte_dtype_size(out->dtype);
    uint8_t elem[8];
    pte_ks_scalar_to_elem(args[2], out->dtype, elem);
    pte_ks_fill(out->data, elem, es, out->numel);
    /* the part of self that survives (negative pads crop) */
    int64_t sz[PTE_MAX_RANK], ds[PTE_MAX_RANK], ss[PTE_MAX_RANK];
    int64_t doff = 0, soff = 0;
    bool any = true;
    for (int32_t i = 0; i < self->dim; i++) {
      int64_t s0 = lo[i] < 0 ? -lo[i] : 0, d0 = lo[i] > 0 ? lo[i] : 0;
      int64_t len = self->sizes[i] - s0;
      if (sizes[i] - d0 < len) len = sizes[i] - d0;
      if (len <= 0) any = false;
      sz[i] = len;
      ds[i] = out->strides[i];
      ss[i] = self->strides[i];
      doff += d0 * ds[i];
      soff += s0 * ss[i];
    }
    if (any && self->numel > 0)
      pte_ks_copy_nd((uint8_t *)out->data + doff * (int64_t)es, ds,
                     (const uint8_t *)self->data + soff * (int64_t)es, ss, sz, self->dim, es);
  }
  pte_k_set_return(args, nargs, 3);
}

/* ---- arange --------------------------------------------------------------------------------- */

static void shape_arange_common(pte_kernel_context *ctx, pte_evalue **args, size_t nargs, size_t out_idx,
                                const pte_evalue *start_v, const pte_evalue *end_v, const pte_evalue *step_v) {
  pte_tensor *out = pte_k_arg_tensor(ctx, args, nargs, out_idx);
  if (!out) return;
  int dt = out->dtype;
  if (!pte_k_dtype_supported(dt) || dt == PTE_DTYPE_BOOL)
    PTE_K_FAIL(PTE_ERR_INVALID_ARGUMENT, "arange: unsupported out dtype %s", pte_dtype_name(dt));
  double ds, de, dp;
  if (!pte_evalue_to_double(start_v, &ds) || !pte_evalue_to_double(end_v, &de) ||
      !pte_evalue_to_double(step_v, &dp))
    PTE_K_BAD("arange: start/end/step must be scalars");
  if (!isfinite(ds) || !isfinite(de)) PTE_K_BAD("arange: unsupported range");
  double size_d;
  int64_t is = 0, ip = 0;
  if (pte_k_is_integral(dt)) {
    int64_t ie;
    if (!pte_evalue_to_int(start_v, &is) || !pte_evalue_to_int(end_v, &ie) || !pte_evalue_to_int(step_v, &ip))
      PTE_K_BAD("arange: bounds out of range for %s", pte_dtype_name(dt));
    if (ip == 0) PTE_K_BAD("arange: step must be nonzero");
    if (!((ip > 0 && ie >= is) || (ip < 0 && ie <= is)))
      PTE_K_BAD("arange: upper bound and lower bound inconsistent with step sign");
    if (dt == PTE_DTYPE_LONG) {
      int64_t sgn = ip > 0 ? 1 : -1;
      /* (end - start + step - sgn) / step without overflow: use double for huge spans */
      double span = (double)ie - (double)is;
      if (fabs(span) < 9.0e15)
        size_d = (double)((ie - is + ip - sgn) / ip);
      else
        size_d = ceil(span / (double)ip);
    } else {
      size_d = ceil((de - ds) / dp);
    }
  } else {
    if (dp == 0) PTE_K_BAD("arange: step must be nonzero");
    if (!((dp > 0 && de >= ds) || (dp < 0 && de <= ds)))
      PTE_K_BAD("arange: upper bound and lower bound inconsistent with step sign");
    size_d = ceil((de - ds) / dp);
  }
  if (!(size_d >= 0) || size_d > (double)INT32_MAX) PTE_K_BAD("arange: invalid size");
  int32_t len = (int32_t)size_d;
  if (out->dim != 1) PTE_K_BAD("arange: out must be 1-D, has rank %d", (int)out->dim);
  if (!pte_k_resize_out(ctx, out, &len, 1)) return;
  int64_t st = out->strides[0];
  if (pte_k_is_integral(dt)) {
    for (int32_t i = 0; i < len; i++)
      pte_k_store_int64(out->data, dt, i * st, (int64_t)((uint64_t)is + (uint64_t)ip * (uint64_t)i));
  } else if (dt == PTE_DTYPE_HALF || dt == PTE_DTYPE_BFLOAT16) {
    float fs = (float)ds, fp = (float)dp;
    for (int32_t i = 0; i < len; i++) pte_k_store_double(out->data, dt, i * st, (double)(fs + fp * (float)i));
  } else {
    for (int32_t i = 0; i < len; i++) pte_k_store_double(out->data, dt, i * st, ds + dp * (double)i);
  }
  pte_k_set_return(args, nargs, out_idx);
}

/* aten::arange.out(Scalar end, *, Tensor(a!) out) */
void pte_portable_shape_arange(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  if (!pte_k_check_nargs(ctx, nargs, 2, 3)) return;
  if (!pte_k_arg_is_scalar(args, nargs, 0)) PTE_K_BAD("arg 0: expected a Scalar");
  pte_evalue zero, one;
  zero.tag = PTE_TAG_INT;
  zero.u.i = 0;
  one.tag = PTE_TAG_INT;
  one.u.i = 1;
  shape_arange_common(ctx, args, nargs, 1, &zero, args[0], &one);
}

/* aten::arange.start_out(Scalar start, Scalar end, Scalar step=1, *, Tensor(a!) out) */
void pte_portable_shape_arange_start(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  if (!pte_k_check_nargs(ctx, nargs, 4, 5)) return;
  for (size_t i = 0; i < 3; i++)
    if (!pte_k_arg_is_scalar(args, nargs, i)) PTE_K_BAD("arg %zu: expected a Scalar", i);
  shape_arange_common(ctx, args, nargs, 3, args[0], args[1], args[2]);
}
