/* kernels/portable/util/kutil.c — see kutil.h. */
#include "portable/util/kutil.h"

#include <string.h>

/* ------------------------------------------------------------------------------------------ */
/* dtypes */

bool pte_k_dtype_supported(int dtype) {
  switch (dtype) {
    case PTE_DTYPE_BYTE:
    case PTE_DTYPE_CHAR:
    case PTE_DTYPE_SHORT:
    case PTE_DTYPE_INT:
    case PTE_DTYPE_LONG:
    case PTE_DTYPE_HALF:
    case PTE_DTYPE_FLOAT:
    case PTE_DTYPE_DOUBLE:
    case PTE_DTYPE_BOOL:
    case PTE_DTYPE_BFLOAT16:
      return true;
    default:
      return false;
  }
}

bool pte_k_is_floating(int dtype) {
  return dtype == PTE_DTYPE_HALF || dtype == PTE_DTYPE_FLOAT || dtype == PTE_DTYPE_DOUBLE ||
         dtype == PTE_DTYPE_BFLOAT16;
}

bool pte_k_is_integral(int dtype) {
  return dtype == PTE_DTYPE_BYTE || dtype == PTE_DTYPE_CHAR || dtype == PTE_DTYPE_SHORT ||
         dtype == PTE_DTYPE_INT || dtype == PTE_DTYPE_LONG;
}

/* Rank of a floating type for promotion: half and bf16 share rank 1 (their mix gives float). */
static int float_rank(int d) {
  switch (d) {
    case PTE_DTYPE_HALF:
    case PTE_DTYPE_BFLOAT16:
      return 1;
    case PTE_DTYPE_FLOAT:
      return 2;
    default:
      return 3; /* DOUBLE */
  }
}

static int int_rank(int d) {
  switch (d) {
    case PTE_DTYPE_BYTE:
    case PTE_DTYPE_CHAR:
      return 1;
    case PTE_DTYPE_SHORT:
      return 2;
    case PTE_DTYPE_INT:
      return 3;
    default:
      return 4; /* LONG */
  }
}

int pte_k_promote(int a, int b) {
  if (!pte_k_dtype_supported(a) || !pte_k_dtype_supported(b)) return PTE_K_DTYPE_INVALID;
  if (a == b) return a;
  if (a == PTE_DTYPE_BOOL) return b;
  if (b == PTE_DTYPE_BOOL) return a;
  bool fa = pte_k_is_floating(a), fb = pte_k_is_floating(b);
  if (fa && fb) {
    int ra = float_rank(a), rb = float_rank(b);
    if (ra == 1 && rb == 1) return PTE_DTYPE_FLOAT; /* half + bfloat16 */
    return ra > rb ? a : b;
  }
  if (fa) return a;
  if (fb) return b;
  /* both integral, different */
  if ((a == PTE_DTYPE_BYTE && b == PTE_DTYPE_CHAR) || (a == PTE_DTYPE_CHAR && b == PTE_DTYPE_BYTE))
    return PTE_DTYPE_SHORT;
  return int_rank(a) > int_rank(b) ? a : b;
}

int pte_k_scalar_dtype(const pte_evalue *s) {
  if (!s) return PTE_K_DTYPE_INVALID;
  switch (s->tag) {
    case PTE_TAG_BOOL:
      return PTE_DTYPE_BOOL;
    case PTE_TAG_INT:
      return PTE_DTYPE_LONG;
    case PTE_TAG_DOUBLE:
      return PTE_DTYPE_DOUBLE;
    default:
      return PTE_K_DTYPE_INVALID;
  }
}

int pte_k_promote_scalar_dtype(int t, int sd) {
  if (!pte_k_dtype_supported(t) || !pte_k_dtype_supported(sd)) return PTE_K_DTYPE_INVALID;
  if (pte_k_is_floating(sd)) return pte_k_is_floating(t) ? t : PTE_DTYPE_FLOAT;
  if (pte_k_is_integral(sd)) return t == PTE_DTYPE_BOOL ? PTE_DTYPE_LONG : t;
  return t;
}

int pte_k_promote_scalar(int t, const pte_evalue *s) {
  int sd = pte_k_scalar_dtype(s);
  if (sd == PTE_K_DTYPE_INVALID) return PTE_K_DTYPE_INVALID;
  return pte_k_promote_scalar_dtype(t, sd);
}

bool pte_k_can_cast(int from, int to) {
  if (pte_k_is_floating(from) && !pte_k_is_floating(to)) return false;
  if (from != PTE_DTYPE_BOOL && to == PTE_DTYPE_BOOL) return false;
  return true;
}

/* ------------------------------------------------------------------------------------------ */
/* half / bfloat16 */

static uint32_t f32_bits(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return u;
}

static float f32_from_bits(uint32_t u) {
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}

float pte_k_half_to_float(uint16_t h) {
  uint32_t sign = ((uint32_t)h & 0x8000u) << 16;
  uint32_t e = ((uint32_t)h >> 10) & 0x1fu;
  uint32_t m = (uint32_t)h & 0x3ffu;
  if (e == 0) {
    float v = (float)m * 5.9604644775390625e-8f; /* m * 2^-24, exact */
    return sign ? -v : v;
  }
  if (e == 31) return f32_from_bits(sign | 0x7f800000u | (m << 13));
  return f32_from_bits(sign | ((e + 112u) << 23) | (m << 13));
}

uint16_t pte_k_float_to_half(float f) {
  uint32_t x = f32_bits(f);
  uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);
  x &= 0x7fffffffu;
  if (x >= 0x7f800000u) { /* inf / NaN */
    if (x == 0x7f800000u) return (uint16_t)(sign | 0x7c00u);
    return (uint16_t)(sign | 0x7e00u | ((x >> 13) & 0x3ffu));
  }
  if (x >= 0x477ff000u) return (uint16_t)(sign | 0x7c00u); /* >= 65520 rounds to inf */
  if (x < 0x38800000u) {                                   /* below 2^-14: subnormal or zero */
    if (x <= 0x33000000u) return sign;                     /* <= 2^-25 rounds to zero */
    uint32_t e = x >> 23;
    uint32_t m = (x & 0x7fffffu) | 0x800000u;
    uint32_t shift = 126u - e; /* 14..24 */
    uint32_t mh = m >> shift;
    uint32_t rem = m & ((1u << shift) - 1u);
    uint32_t halfway = 1u << (shift - 1u);
    if (rem > halfway || (rem == halfway && (mh & 1u))) mh++;
    return (uint16_t)(sign | mh);
  }
  uint32_t e = (x >> 23) - 112u;
  uint32_t m = x & 0x7fffffu;
  uint32_t h = (e << 10) | (m >> 13);
  uint32_t rem = m & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) h++; /* carry may bump the exponent */
  return (uint16_t)(sign | h);
}

float pte_k_bf16_to_float(uint16_t b) { return f32_from_bits((uint32_t)b << 16); }

uint16_t pte_k_float_to_bf16(float f) {
  uint32_t x = f32_bits(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((x >> 16) | 0x0040u); /* quiet NaN */
  uint32_t lsb = (x >> 16) & 1u;
  x += 0x7fffu + lsb;
  return (uint16_t)(x >> 16);
}

/* ------------------------------------------------------------------------------------------ */
/* element access */

int64_t pte_k_double_to_int64(double v) {
  if (v != v) return 0;
  if (v >= 9223372036854775808.0) return INT64_MAX;
  if (v < -9223372036854775808.0) return INT64_MIN;
  return (int64_t)v;
}

double pte_k_load_double(const void *data, int dtype, int64_t i) {
  switch (dtype) {
    case PTE_DTYPE_BYTE:
      return (double)((const uint8_t *)data)[i];
    case PTE_DTYPE_CHAR:
      return (double)((const int8_t *)data)[i];
    case PTE_DTYPE_SHORT:
      return (double)((const int16_t *)data)[i];
    case PTE_DTYPE_INT:
      return (double)((const int32_t *)data)[i];
    case PTE_DTYPE_LONG:
      return (double)((const int64_t *)data)[i];
    case PTE_DTYPE_HALF:
      return (double)pte_k_half_to_float(((const uint16_t *)data)[i]);
    case PTE_DTYPE_FLOAT:
      return (double)((const float *)data)[i];
    case PTE_DTYPE_DOUBLE:
      return ((const double *)data)[i];
    case PTE_DTYPE_BOOL:
      return ((const uint8_t *)data)[i] ? 1.0 : 0.0;
    case PTE_DTYPE_BFLOAT16:
      return (double)pte_k_bf16_to_float(((const uint16_t *)data)[i]);
    default:
      return 0.0;
  }
}

int64_t pte_k_load_int64(const void *data, int dtype, int64_t i) {
  switch (dtype) {
    case PTE_DTYPE_BYTE:
      return ((const uint8_t *)data)[i];
    case PTE_DTYPE_CHAR:
      return ((const int8_t *)data)[i];
    case PTE_DTYPE_SHORT:
      return ((const int16_t *)data)[i];
    case PTE_DTYPE_INT:
      return ((const int32_t *)data)[i];
    case PTE_DTYPE_LONG:
      return ((const int64_t *)data)[i];
    case PTE_DTYPE_BOOL:
      return ((const uint8_t *)data)[i] ? 1 : 0;
    case PTE_DTYPE_HALF:
    case PTE_DTYPE_FLOAT:
    case PTE_DTYPE_DOUBLE:
    case PTE_DTYPE_BFLOAT16:
      return pte_k_double_to_int64(pte_k_load_double(data, dtype, i));
    default:
      return 0;
  }
}

/* Two's-complement narrowing without implementation-defined conversions. */
static int8_t wrap_i8(uint64_t u) {
  uint8_t b = (uint8_t)u;
  return b < 0x80u ? (int8_t)b : (int8_t)((int)b - 256);
}
static int16_t wrap_i16(uint64_t u) {
  uint16_t b = (uint16_t)u;
  return b < 0x8000u ? (int16_t)b : (int16_t)((int32_t)b - 65536);
}
static int32_t wrap_i32(uint64_t u) {
  uint32_t b = (uint32_t)u;
  return b < 0x80000000u ? (int32_t)b : (int32_t)((int64_t)b - 4294967296LL);
}

void pte_k_store_int64(void *data, int dtype, int64_t i, int64_t v) {
  uint64_t u = (uint64_t)v;
  switch (dtype) {
    case PTE_DTYPE_BYTE:
      ((uint8_t *)data)[i] = (uint8_t)u;
      break;
    case PTE_DTYPE_CHAR:
      ((int8_t *)data)[i] = wrap_i8(u);
      break;
    case PTE_DTYPE_SHORT:
      ((int16_t *)data)[i] = wrap_i16(u);
      break;
    case PTE_DTYPE_INT:
      ((int32_t *)data)[i] = wrap_i32(u);
      break;
    case PTE_DTYPE_LONG:
      ((int64_t *)data)[i] = v;
      break;
    case PTE_DTYPE_BOOL:
      ((uint8_t *)data)[i] = v != 0;
      break;
    case PTE_DTYPE_HALF:
      ((uint16_t *)data)[i] = pte_k_float_to_half((float)v);
      break;
    case PTE_DTYPE_FLOAT:
      ((float *)data)[i] = (float)v;
      break;
    case PTE_DTYPE_DOUBLE:
      ((double *)data)[i] = (double)v;
      break;
    case PTE_DTYPE_BFLOAT16:
      ((uint16_t *)data)[i] = pte_k_float_to_bf16((float)v);
      break;
    default:
      break;
  }
}

/* double -> float without UB for values beyond float range (they become +-inf). */
static float d2f(double v) {
  if (v > 3.4028235677973366e38) return f32_from_bits(0x7f800000u);
  if (v < -3.4028235677973366e38) return f32_from_bits(0xff800000u);
  return (float)v;
}

void pte_k_store_double(void *data, int dtype, int64_t i, double v) {
  switch (dtype) {
    case PTE_DTYPE_HALF:
      ((uint16_t *)data)[i] = pte_k_float_to_half(d2f(v));
      break;
    case PTE_DTYPE_FLOAT:
      ((float *)data)[i] = d2f(v);
      break;
    case PTE_DTYPE_DOUBLE:
      ((double *)data)[i] = v;
      break;
    case PTE_DTYPE_BFLOAT16:
      ((uint16_t *)data)[i] = pte_k_float_to_bf16(d2f(v));
      break;
    case PTE_DTYPE_BOOL:
      ((uint8_t *)data)[i] = v != 0.0;
      break;
    default: {
      int64_t iv;
      if (v != v) iv = 0;
      else if (v >= 9223372036854775808.0 || v < -9223372036854775808.0) iv = INT64_MIN;
      else iv = (int64_t)v;
      pte_k_store_int64(data, dtype, i, iv);
      break;
    }
  }
}

double pte_k_round_to_dtype(double v, int dtype) {
  union {
    double d;
    float f;
    int64_t l;
    uint16_t h;
    uint8_t b[8];
  } tmp;
  memset(&tmp, 0, sizeof tmp);
  pte_k_store_double(&tmp, dtype, 0, v);
  return pte_k_load_double(&tmp, dtype, 0);
}

/* ------------------------------------------------------------------------------------------ */
/* shapes */

pte_status pte_k_broadcast_sizes(const int32_t *a, int32_t adim, const int32_t *b, int32_t bdim,
                                 int32_t *out, int32_t *out_dim) {
  int32_t n = adim > bdim ? adim : bdim;
  if (adim < 0 || bdim < 0 || n > PTE_MAX_RANK) return PTE_ERR_INVALID_ARGUMENT;
  for (int32_t d = 0; d < n; d++) {
    int32_t ai = d - (n - adim), bi = d - (n - bdim);
    int32_t sa = ai >= 0 ? a[ai] : 1;
    int32_t sb = bi >= 0 ? b[bi] : 1;
    if (sa == sb || sb == 1) out[d] = sa;
    else if (sa == 1) out[d] = sb;
    else return PTE_ERR_INVALID_ARGUMENT;
  }
  *out_dim = n;
  return PTE_OK;
}

pte_status pte_k_broadcast_shape(const pte_tensor *a, const pte_tensor *b, int32_t *out,
                                 int32_t *out_dim) {
  return pte_k_broadcast_sizes(a->sizes, a->dim, b->sizes, b->dim, out, out_dim);
}

bool pte_k_broadcastable_to(const pte_tensor *t, const int32_t *sizes, int32_t dim) {
  if (t->dim > dim) return false;
  for (int32_t d = 0; d < t->dim; d++) {
    int32_t s = t->sizes[d], o = sizes[d + (dim - t->dim)];
    if (s != o && s != 1) return false;
  }
  return true;
}

bool pte_k_same_shape(const pte_tensor *a, const pte_tensor *b) {
  if (a->dim != b->dim) return false;
  for (int32_t d = 0; d < a->dim; d++)
    if (a->sizes[d] != b->sizes[d]) return false;
  return true;
}

bool pte_k_same_dim_order(const pte_tensor *a, const pte_tensor *b) {
  if (a->dim != b->dim) return false;
  for (int32_t d = 0; d < a->dim; d++) {
    uint8_t x = a->dim_order ? a->dim_order[d] : (uint8_t)d;
    uint8_t y = b->dim_order ? b->dim_order[d] : (uint8_t)d;
    if (x != y) return false;
  }
  return true;
}

bool pte_k_is_dense(const pte_tensor *t) {
  int64_t expect = 1;
  for (int32_t k = t->dim - 1; k >= 0; k--) {
    int d = t->dim_order ? t->dim_order[k] : k;
    if (d < 0 || d >= t->dim) return false;
    if (t->sizes[d] != 1 && t->strides[d] != expect) return false;
    expect *= t->sizes[d];
  }
  return true;
}

bool pte_k_is_contiguous(const pte_tensor *t) {
  int64_t expect = 1;
  for (int32_t d = t->dim - 1; d >= 0; d--) {
    if (t->sizes[d] != 1 && t->strides[d] != expect) return false;
    expect *= t->sizes[d];
  }
  return true;
}

int64_t pte_k_offset_of_linear(const pte_tensor *t, size_t li) {
  int64_t off = 0;
  for (int32_t d = t->dim - 1; d >= 0; d--) {
    size_t s = (size_t)t->sizes[d];
    if (s == 0) return 0;
    off += (int64_t)(li % s) * t->strides[d];
    li /= s;
  }
  return off;
}

int64_t pte_k_offset_of_index(const pte_tensor *t, const int64_t *idx) {
  int64_t off = 0;
  for (int32_t d = 0; d < t->dim; d++) off += idx[d] * t->strides[d];
  return off;
}

/* ------------------------------------------------------------------------------------------ */
/* iterator */

bool pte_k_iter_init(pte_k_iter *it, const int32_t *sizes, int32_t dim, const pte_tensor *const *ops,
                     int nops) {
  memset(it, 0, sizeof *it);
  if (nops < 1 || nops > PTE_K_ITER_MAX_OPS || dim < 0 || dim > PTE_MAX_RANK) return false;
  it->nops = nops;
  int64_t shp[PTE_MAX_RANK];
  int64_t str[PTE_K_ITER_MAX_OPS][PTE_MAX_RANK];
  int32_t n = 0;
  for (int32_t d = 0; d < dim; d++) {
    if (sizes[d] <= 0) return false;
    if (sizes[d] == 1) continue; /* contributes nothing */
    shp[n] = sizes[d];
    for (int k = 0; k < nops; k++) {
      const pte_tensor *t = ops[k];
      int32_t td = d - (dim - t->dim);
      int64_t s = 0;
      if (td >= 0 && t->sizes[td] != 1) s = t->strides[td];
      str[k][n] = s;
    }
    n++;
  }
  /* order dims by operand 0's stride, largest first (stable insertion sort) */
  int32_t perm[PTE_MAX_RANK];
  for (int32_t i = 0; i < n; i++) perm[i] = i;
  for (int32_t i = 1; i < n; i++) {
    int32_t p = perm[i];
    int32_t j = i;
    while (j > 0 && str[0][perm[j - 1]] < str[0][p]) {
      perm[j] = perm[j - 1];
      j--;
    }
    perm[j] = p;
  }
  /* coalesce */
  int32_t m = 0;
  for (int32_t i = 0; i < n; i++) {
    int32_t d = perm[i];
    if (m > 0) {
      bool ok = true;
      for (int k = 0; k < nops; k++)
        if (it->stride[k][m - 1] != str[k][d] * shp[d]) ok = false;
      if (ok) {
        it->shape[m - 1] *= shp[d];
        for (int k = 0; k < nops; k++) it->stride[k][m - 1] = str[k][d];
        continue;
      }
    }
    it->shape[m] = shp[d];
    for (int k = 0; k < nops; k++) it->stride[k][m] = str[k][d];
    m++;
  }
  if (m == 0) {
    it->inner = 1;
    it->ndim = 0;
  } else {
    it->inner = it->shape[m - 1];
    for (int k = 0; k < nops; k++) it->istride[k] = it->stride[k][m - 1];
    it->ndim = m - 1;
  }
  return true;
}

bool pte_k_iter_next(pte_k_iter *it) {
  for (int32_t d = it->ndim - 1; d >= 0; d--) {
    it->counter[d]++;
    for (int k = 0; k < it->nops; k++) it->off[k] += it->stride[k][d];
    if (it->counter[d] < it->shape[d]) return true;
    for (int k = 0; k < it->nops; k++) it->off[k] -= it->stride[k][d] * it->shape[d];
    it->counter[d] = 0;
  }
  return false;
}

/* ------------------------------------------------------------------------------------------ */
/* arguments */

bool pte_k_check_nargs(pte_kernel_context *ctx, size_t nargs, size_t min_n, size_t max_n) {
  if (nargs < min_n || nargs > max_n) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "expected %zu..%zu args, got %zu", min_n, max_n,
                    nargs);
    return false;
  }
  return true;
}

static pte_evalue *arg_at(pte_evalue **args, size_t nargs, size_t i) {
  return (args && i < nargs) ? args[i] : NULL;
}

pte_tensor *pte_k_arg_tensor(pte_kernel_context *ctx, pte_evalue **args, size_t nargs, size_t i) {
  pte_evalue *v = arg_at(args, nargs, i);
  if (!v || v->tag != PTE_TAG_TENSOR || !v->u.tensor) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "arg %zu: expected a tensor, got %s", i,
                    v ? pte_tag_name((int)v->tag) : "missing");
    return NULL;
  }
  return v->u.tensor;
}

pte_tensor *pte_k_arg_opt_tensor(pte_kernel_context *ctx, pte_evalue **args, size_t nargs,
                                 size_t i, bool *ok) {
  pte_evalue *v = arg_at(args, nargs, i);
  *ok = true;
  if (i >= nargs) {
    *ok = false;
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "arg %zu: missing", i);
    return NULL;
  }
  if (pte_evalue_is_none(v)) return NULL;
  if (v->tag != PTE_TAG_TENSOR || !v->u.tensor) {
    *ok = false;
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "arg %zu: expected a tensor or None, got %s",
                    i, pte_tag_name((int)v->tag));
    return NULL;
  }
  return v->u.tensor;
}

bool pte_k_arg_is_none(pte_evalue **args, size_t nargs, size_t i) {
  return i < nargs && pte_evalue_is_none(args[i]);
}

bool pte_k_arg_is_scalar(pte_evalue **args, size_t nargs, size_t i) {
  pte_evalue *v = arg_at(args, nargs, i);
  return v && (v->tag == PTE_TAG_INT || v->tag == PTE_TAG_DOUBLE || v->tag == PTE_TAG_BOOL);
}

bool pte_k_arg_double(pte_kernel_context *ctx, pte_evalue **args, size_t nargs, size_t i,
                      double *out) {
  pte_evalue *v = arg_at(args, nargs, i);
  if (v) {
    switch (v->tag) {
      case PTE_TAG_INT:
        *out = (double)v->u.i;
        return true;
      case PTE_TAG_DOUBLE:
        *out = v->u.d;
        return true;
      case PTE_TAG_BOOL:
        *out = v->u.b ? 1.0 : 0.0;
        return true;
      default:
        break;
    }
  }
  pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "arg %zu: expected a scalar, got %s", i,
                  v ? pte_tag_name((int)v->tag) : "missing");
  return false;
}

bool pte_k_arg_int(pte_kernel_context *ctx, pte_evalue **args, size_t nargs, size_t i,
                   int64_t *out) {
  pte_evalue *v = arg_at(args, nargs, i);
  if (v) {
    switch (v->tag) {
      case PTE_TAG_INT:
        *out = v->u.i;
        return true;
      case PTE_TAG_BOOL:
        *out = v->u.b ? 1 : 0;
        return true;
      case PTE_TAG_DOUBLE: {
        double d = v->u.d;
        if (d == d && d >= -9223372036854775808.0 && d < 9223372036854775808.0 &&
            (double)(int64_t)d == d) {
          *out = (int64_t)d;
          return true;
        }
        break;
      }
      default:
        break;
    }
  }
  pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "arg %zu: expected an int, got %s", i,
                  v ? pte_tag_name((int)v->tag) : "missing");
  return false;
}

bool pte_k_arg_bool(pte_kernel_context *ctx, pte_evalue **args, size_t nargs, size_t i, bool *out) {
  pte_evalue *v = arg_at(args, nargs, i);
  if (v) {
    if (v->tag == PTE_TAG_BOOL) {
      *out = v->u.b;
      return true;
    }
    if (v->tag == PTE_TAG_INT && (v->u.i == 0 || v->u.i == 1)) {
      *out = v->u.i != 0;
      return true;
    }
  }
  pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "arg %zu: expected a bool, got %s", i,
                  v ? pte_tag_name((int)v->tag) : "missing");
  return false;
}

const int64_t *pte_k_arg_int_list(pte_kernel_context *ctx, pte_evalue **args, size_t nargs,
                                  size_t i, size_t *len) {
  pte_evalue *v = arg_at(args, nargs, i);
  const int64_t *r = NULL;
  if (v && v->tag == PTE_TAG_LIST_INT) r = pte_evalue_int_list(v, len);
  if (!r) {
    *len = 0;
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "arg %zu: expected an int list, got %s", i,
                    v ? pte_tag_name((int)v->tag) : "missing");
  }
  return r;
}

const char *pte_k_arg_string(pte_kernel_context *ctx, pte_evalue **args, size_t nargs, size_t i,
                             size_t *len, bool allow_none, bool *ok) {
  pte_evalue *v = arg_at(args, nargs, i);
  *len = 0;
  *ok = true;
  if (i < nargs && allow_none && pte_evalue_is_none(v)) return NULL;
  if (v && v->tag == PTE_TAG_STRING) {
    *len = v->u.str.len;
    return v->u.str.ptr ? v->u.str.ptr : "";
  }
  *ok = false;
  pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "arg %zu: expected a string, got %s", i,
                  v ? pte_tag_name((int)v->tag) : "missing");
  return NULL;
}

bool pte_k_str_eq(const char *p, size_t len, const char *s) {
  if (!p) return false;
  size_t n = strlen(s);
  return n == len && memcmp(p, s, n) == 0;
}

bool pte_k_check_data(pte_kernel_context *ctx, const pte_tensor *t, const char *what) {
  if (t->numel > 0 && !t->data) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "%s has no data", what);
    return false;
  }
  return true;
}

bool pte_k_check_out_dtype(pte_kernel_context *ctx, const char *op, const char *what,
                           const pte_tensor *in, const pte_tensor *out, bool any_sized) {
  const char *pre = op ? op : "", *sep = op ? ": " : "";
  if (in->dtype != out->dtype) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "%s%sout dtype %s differs from %s dtype %s", pre,
                    sep, pte_dtype_name(out->dtype), what, pte_dtype_name(in->dtype));
    return false;
  }
  if (any_sized && pte_dtype_size(in->dtype) == 0) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "%s%sinvalid %s dtype %d", pre, sep, what,
                    in->dtype);
    return false;
  }
  if (!any_sized && !pte_k_dtype_supported(in->dtype)) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "%s%sunsupported %s dtype %s", pre, sep, what,
                    pte_dtype_name(in->dtype));
    return false;
  }
  return true;
}

bool pte_k_check_dtype(pte_kernel_context *ctx, int dtype, const char *what) {
  if (!pte_k_dtype_supported(dtype)) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "%s: unsupported dtype %s", what,
                    pte_dtype_name(dtype));
    return false;
  }
  return true;
}

bool pte_k_resize_out(pte_kernel_context *ctx, pte_tensor *out, const int32_t *sizes, int32_t dim) {
  pte_status s = pte_tensor_resize(out, sizes, dim);
  if (s != PTE_OK) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "cannot resize out (%s)", pte_status_name(s));
    return false;
  }
  if (out->numel * pte_dtype_size(out->dtype) > out->capacity_bytes) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "out is larger than its capacity");
    return false;
  }
  return pte_k_check_data(ctx, out, "out");
}

bool pte_k_resize_like(pte_kernel_context *ctx, pte_tensor *out, const pte_tensor *t) {
  return pte_k_resize_out(ctx, out, t->sizes, t->dim);
}

void pte_k_set_return(pte_evalue **args, size_t nargs, size_t out_idx) {
  if (nargs > out_idx + 1 && args[nargs - 1] && args[out_idx] && args[nargs - 1] != args[out_idx])
    *args[nargs - 1] = *args[out_idx];
}
