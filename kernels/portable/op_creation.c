/* Creation kernels: empty, ones, zeros, fill.Tensor, rand, randn, native_dropout.
 *
 * The random kernels use a local splitmix64 generator seeded with a constant per call, so
 * results are reproducible and no global state is kept.
 */
#include <math.h>
#include <string.h>

#include "portable/portable_creation.h"
#include "portable/util/elementwise.h"
#include "portable/util/kutil.h"
#include "portable/util/kutil_shape.h"


#define CR_SEED_RAND 0x243f6a8885a308d3ull
#define CR_SEED_RANDN 0x13198a2e03707344ull
#define CR_SEED_DROPOUT 0xa4093822299f31d0ull

static uint64_t cr_next(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/* Uniform in [0, 1) with as many bits as dtype's significand holds, so rounding to dtype can
 * never reach 1. */
static double cr_uniform(uint64_t *s, int dtype) {
  int bits;
  switch (dtype) {
    case PTE_DTYPE_HALF: bits = 11; break;
    case PTE_DTYPE_BFLOAT16: bits = 8; break;
    case PTE_DTYPE_FLOAT: bits = 24; break;
    default: bits = 53; break;
  }
  return (double)(cr_next(s) >> (64 - bits)) * ldexp(1.0, -bits);
}

/* size list -> int32 sizes; out's rank must match. */
static bool cr_sizes(pte_kernel_context *ctx, const char *op, pte_evalue **args, size_t nargs, size_t i,
                     pte_tensor *out, int32_t *sizes) {
  size_t n;
  const int64_t *size = pte_k_arg_int_list(ctx, args, nargs, i, &n);
  if (!size) return false;
  if (n > PTE_MAX_RANK) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "%s: size has too many dims (%zu)", op, n);
    return false;
  }
  for (size_t k = 0; k < n; k++) {
    if (size[k] < 0 || size[k] > INT32_MAX) {
      pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "%s: size[%zu] = %lld is invalid", op, k, (long long)size[k]);
      return false;
    }
    sizes[k] = (int32_t)size[k];
  }
  if ((size_t)out->dim != n) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "%s: out has rank %d, size has %zu entries", op, (int)out->dim, n);
    return false;
  }
  return pte_k_resize_out(ctx, out, sizes, (int32_t)n);
}

/* aten::empty.out(SymInt[] size, *, MemoryFormat? memory_format=None, Tensor(a!) out) */
static void op_empty(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  if (!pte_k_check_nargs(ctx, nargs, 3, 4)) return;
  pte_tensor *out = pte_k_arg_tensor(ctx, args, nargs, 2);
  if (!out) return;
  if (!pte_k_arg_is_none(args, nargs, 1)) {
    int64_t mf;
    if (!pte_k_arg_int(ctx, args, nargs, 1, &mf)) return;
  }
  if (pte_dtype_size(out->dtype) == 0) PTE_K_BAD("empty: invalid out dtype %d", out->dtype);
  int32_t sizes[PTE_MAX_RANK];
  if (!cr_sizes(ctx, "empty", args, nargs, 0, out, sizes)) return;
  pte_k_set_return(args, nargs, 2);
}

static void ones_zeros(pte_kernel_context *ctx, pte_evalue **args, size_t nargs, int64_t v, const char *op) {
  if (!pte_k_check_nargs(ctx, nargs, 2, 3)) return;
  pte_tensor *out = pte_k_arg_tensor(ctx, args, nargs, 1);
  if (!out) return;
  if (!pte_k_dtype_supported(out->dtype)) PTE_K_BAD("%s: unsupported out dtype %s", op, pte_dtype_name(out->dtype));
  int32_t sizes[PTE_MAX_RANK];
  if (!cr_sizes(ctx, op, args, nargs, 0, out, sizes)) return;
  pte_k_fill_int64(out, v);
  pte_k_set_return(args, nargs, 1);
}

/* aten::ones.out(SymInt[] size, *, Tensor(a!) out) */
static void op_ones(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) { ones_zeros(ctx, args, nargs, 1, "ones"); }
/* aten::zeros.out(SymInt[] size, *, Tensor(a!) out) */
static void op_zeros(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) { ones_zeros(ctx, args, nargs, 0, "zeros"); }

/* aten::fill.Tensor_out(Tensor self, Tensor value, *, Tensor(a!) out) */
static void op_fill_tensor(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  if (!pte_k_check_nargs(ctx, nargs, 3, 4)) return;
  pte_tensor *self = pte_k_arg_tensor(ctx, args, nargs, 0);
  pte_tensor *value = self ? pte_k_arg_tensor(ctx, args, nargs, 1) : NULL;
  pte_tensor *out = value ? pte_k_arg_tensor(ctx, args, nargs, 2) : NULL;
  if (!out) return;
  if (!pte_k_dtype_supported(self->dtype) || !pte_k_dtype_supported(value->dtype))
    PTE_K_BAD("fill: unsupported dtype (self %s, value %s)", pte_dtype_name(self->dtype), pte_dtype_name(value->dtype));
  if (out->dtype != self->dtype)
    PTE_K_BAD("fill: out dtype %s differs from self dtype %s", pte_dtype_name(out->dtype), pte_dtype_name(self->dtype));
  if (value->dim != 0) PTE_K_BAD("fill: value must be a 0-dim tensor, got rank %d", (int)value->dim);
  if (out->dim != self->dim) PTE_K_BAD("fill: out has rank %d, expected %d", (int)out->dim, (int)self->dim);
  if (!pte_k_check_data(ctx, value, "value") || !pte_k_resize_like(ctx, out, self)) return;
  if (pte_k_is_floating(value->dtype)) pte_k_fill_double(out, pte_k_load_double(value->data, value->dtype, 0));
  else pte_k_fill_int64(out, pte_k_load_int64(value->data, value->dtype, 0));
  pte_k_set_return(args, nargs, 2);
}

/* Writes fn-generated values into every element of out (logical order). */
static void rand_common(pte_kernel_context *ctx, pte_evalue **args, size_t nargs, bool normal) {
  const char *op = normal ? "randn" : "rand";
  if (!pte_k_check_nargs(ctx, nargs, 2, 3)) return;
  pte_tensor *out = pte_k_arg_tensor(ctx, args, nargs, 1);
  if (!out) return;
  if (!pte_k_is_floating(out->dtype)) PTE_K_BAD("%s: out must be a floating dtype, got %s", op, pte_dtype_name(out->dtype));
  int32_t sizes[PTE_MAX_RANK];
  if (!cr_sizes(ctx, op, args, nargs, 0, out, sizes)) return;
  uint64_t s = normal ? CR_SEED_RANDN : CR_SEED_RAND;
  for (size_t li = 0; li < out->numel; li++) {
    double v;
    if (normal) {
      /* Box-Muller from u1 in (0, 1], u2 in [0, 1) */
      double u1 = 1.0 - cr_uniform(&s, PTE_DTYPE_DOUBLE), u2 = cr_uniform(&s, PTE_DTYPE_DOUBLE);
      v = sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
    } else {
      v = cr_uniform(&s, out->dtype);
    }
    pte_k_store_double(out->data, out->dtype, pte_k_offset_of_linear(out, li), v);
  }
  pte_k_set_return(args, nargs, 1);
}

/* aten::rand.out(SymInt[] size, *, Tensor(a!) out) */
static void op_rand(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) { rand_common(ctx, args, nargs, false); }
/* aten::randn.out(SymInt[] size, *, Tensor(a!) out) */
static void op_randn(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) { rand_common(ctx, args, nargs, true); }

/* aten::native_dropout.out(Tensor input, float p, bool? train, *, Tensor(a!) out0,
 *                          Tensor(b!) out1) -> (Tensor(a!), Tensor(b!)) */
static void op_native_dropout(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  if (!pte_k_check_nargs(ctx, nargs, 5, 6)) return;
  pte_tensor *in = pte_k_arg_tensor(ctx, args, nargs, 0);
  double p;
  if (!in || !pte_k_arg_double(ctx, args, nargs, 1, &p)) return;
  bool train = true;
  if (!pte_k_arg_is_none(args, nargs, 2) && !pte_k_arg_bool(ctx, args, nargs, 2, &train)) return;
  pte_tensor *out = pte_k_arg_tensor(ctx, args, nargs, 3);
  pte_tensor *mask = out ? pte_k_arg_tensor(ctx, args, nargs, 4) : NULL;
  if (!mask) return;
  if (!pte_k_is_floating(in->dtype)) PTE_K_BAD("native_dropout: input must be floating, got %s", pte_dtype_name(in->dtype));
  if (out->dtype != in->dtype)
    PTE_K_BAD("native_dropout: out0 dtype %s differs from input dtype %s", pte_dtype_name(out->dtype), pte_dtype_name(in->dtype));
  if (mask->dtype != PTE_DTYPE_BOOL) PTE_K_BAD("native_dropout: out1 (mask) must be bool, got %s", pte_dtype_name(mask->dtype));
  if (!(p >= 0.0 && p <= 1.0)) PTE_K_BAD("native_dropout: p must be in [0, 1], got %g", p);
  if (out->dim != in->dim || mask->dim != in->dim) PTE_K_BAD("native_dropout: out0/out1 must have rank %d", (int)in->dim);
  if (!pte_k_check_data(ctx, in, "input") || !pte_k_resize_like(ctx, out, in) || !pte_k_resize_like(ctx, mask, in)) return;
  if (!train) {
    pte_k_copy_convert(in, out);
    pte_k_fill_int64(mask, 1);
  } else {
    double keep = 1.0 - p;
    int cdt = pte_k_opmath(in->dtype);
    double scale = pte_k_round_to_dtype(keep == 0.0 ? 0.0 : 1.0 / keep, cdt); /* as ATen: (x * mask) * scale */
    uint64_t s = CR_SEED_DROPOUT;
    for (size_t li = 0; li < in->numel; li++) {
      bool k = cr_uniform(&s, PTE_DTYPE_DOUBLE) < keep;
      double x = pte_k_load_double(in->data, in->dtype, pte_k_offset_of_linear(in, li));
      double v = pte_k_round_to_dtype(x * (k ? 1.0 : 0.0) * scale, cdt);
      pte_k_store_double(out->data, out->dtype, pte_k_offset_of_linear(out, li), v);
      ((uint8_t *)mask->data)[pte_k_offset_of_linear(mask, li)] = k ? 1 : 0;
    }
  }
  if (nargs == 6) {
    pte_evalue *r = args[5];
    if (r && r->tag == PTE_TAG_LIST_TENSOR && r->u.tensor_list.len == 2)
      for (size_t i = 0; i < 2; i++) {
        pte_evalue *it = r->u.tensor_list.items[i];
        if (it && it != args[3 + i]) *it = *args[3 + i];
      }
  }
}

const pte_kernel pte_portable_creation_kernels[] = {
    {"aten::empty.out", NULL, op_empty},
    {"aten::ones.out", NULL, op_ones},
    {"aten::zeros.out", NULL, op_zeros},
    {"aten::fill.Tensor_out", NULL, op_fill_tensor},
    {"aten::rand.out", NULL, op_rand},
    {"aten::randn.out", NULL, op_randn},
    {"aten::native_dropout.out", NULL, op_native_dropout},
};
const size_t pte_portable_creation_kernels_count =
    sizeof pte_portable_creation_kernels / sizeof pte_portable_creation_kernels[0];
