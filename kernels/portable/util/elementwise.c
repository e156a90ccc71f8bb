/* kernels/portable/util/elementwise.c — see elementwise.h. */
#include "portable/util/elementwise.h"

#include <math.h>
#include <string.h>

/* double -> float with overflow going to +-inf (a plain cast out of range is UB). */
static inline float to_f32(double v) {
  if (v > 3.4028235677973366e38) return (float)INFINITY;
  if (v < -3.4028235677973366e38) return -(float)INFINITY;
  return (float)v;
}

/* Rounds a double to a floating compute dtype (no-op for DOUBLE). */
static inline double round_fp(double x, int dtype) {
  switch (dtype) {
    case PTE_DTYPE_DOUBLE:
      return x;
    case PTE_DTYPE_FLOAT:
      return (double)to_f32(x);
    default:
      return pte_k_round_to_dtype(x, dtype);
  }
}

/* Wraps an int64 to an integral/bool compute dtype. */
static inline int64_t wrap_int(int64_t v, int dtype) {
  switch (dtype) {
    case PTE_DTYPE_LONG:
      return v;
    case PTE_DTYPE_BOOL:
      return v != 0;
    default: {
      int64_t tmp = 0;
      pte_k_store_int64(&tmp, dtype, 0, v);
      return pte_k_load_int64(&tmp, dtype, 0);
    }
  }
}

static inline double in_fp(const pte_tensor *t, int64_t off, int compute) {
  double x = pte_k_load_double(t->data, t->dtype, off);
  if (t->dtype != compute && compute != PTE_DTYPE_DOUBLE)
    x = round_fp(x, compute); /* e.g. int32 -> float32 compute rounds */
  return x;
}

static inline double out_fp(double r, const pte_tensor *out, int compute) {
  return out->dtype == compute ? r : round_fp(r, compute);
}

static inline int64_t out_int(int64_t r, const pte_tensor *out, int compute) {
  return out->dtype == compute ? r : wrap_int(r, compute);
}

/* Same-dtype loops without per-element dtype dispatch (double/float/int64/int32). */
#define SAME_LOOP1(T, EXPR)                                                           \
  do {                                                                               \
    T *o = (T *)out->data;                                                           \
    const T *x = (const T *)a->data;                                                 \
    do {                                                                             \
      int64_t oo = it->off[0], oa = it->off[1];                                      \
      for (int64_t j = 0; j < it->inner; j++, oo += it->istride[0], oa += it->istride[1]) \
        o[oo] = EXPR;                                                                \
    } while (pte_k_iter_next(it));                                                   \
  } while (0)

static int32_t wrap32(int64_t v) {
  uint32_t b = (uint32_t)(uint64_t)v;
  return b < 0x80000000u ? (int32_t)b : (int32_t)((int64_t)b - 4294967296LL);
}

static void unary_same(const pte_tensor *a, pte_tensor *out, int dt, const pte_k_unop *op, void *p,
                       pte_k_iter *it) {
  switch (dt) {
    case PTE_DTYPE_DOUBLE:
      SAME_LOOP1(double, op->fd(x[oa], p));
      break;
    case PTE_DTYPE_FLOAT:
      SAME_LOOP1(float, to_f32(op->fd((double)x[oa], p)));
      break;
    case PTE_DTYPE_LONG:
      SAME_LOOP1(int64_t, op->fi(x[oa], p));
      break;
    default:
      SAME_LOOP1(int32_t, wrap32(op->fi(x[oa], p)));
      break;
  }
}

#define SAME_LOOP2(T, EXPR)                                                           \
  do {                                                                               \
    T *o = (T *)out->data;                                                           \
    const T *x = (const T *)a->data;                                                 \
    const T *y = (const T *)b->data;                                                 \
    do {                                                                             \
      int64_t oo = it->off[0], oa = it->off[1], ob = it->off[2];                     \
      for (int64_t j = 0; j < it->inner;                                             \
           j++, oo += it->istride[0], oa += it->istride[1], ob += it->istride[2])    \
        o[oo] = EXPR;                                                                \
    } while (pte_k_iter_next(it));                                                   \
  } while (0)

static void binary_same(const pte_tensor *a, const pte_tensor *b, pte_tensor *out, int dt,
                        const pte_k_binop *op, void *p, pte_k_iter *it) {
  switch (dt) {
    case PTE_DTYPE_DOUBLE:
      SAME_LOOP2(double, op->fd(x[oa], y[ob], p));
      break;
    case PTE_DTYPE_FLOAT:
      SAME_LOOP2(float, to_f32(op->fd((double)x[oa], (double)y[ob], p)));
      break;
    case PTE_DTYPE_LONG:
      SAME_LOOP2(int64_t, op->fi(x[oa], y[ob], p));
      break;
    default:
      SAME_LOOP2(int32_t, wrap32(op->fi(x[oa], y[ob], p)));
      break;
  }
}

bool pte_k_ew_unary(const pte_tensor *a, pte_tensor *out, int compute, const pte_k_unop *op,
                    void *p) {
  bool fl = pte_k_is_floating(compute);
  if (fl ? !op->fd : !op->fi) return false;
  const pte_tensor *ops[2] = {out, a};
  pte_k_iter it;
  if (!pte_k_iter_init(&it, out->sizes, out->dim, ops, 2)) return true;
  if (op->f32 && compute == PTE_DTYPE_FLOAT && a->dtype == PTE_DTYPE_FLOAT &&
      out->dtype == PTE_DTYPE_FLOAT) {
    do {
      op->f32((float *)out->data + it.off[0], (const float *)a->data + it.off[1], it.inner,
              it.istride[0], it.istride[1], p);
    } while (pte_k_iter_next(&it));
    return true;
  }
  if (a->dtype == compute && out->dtype == compute) {
    switch (compute) {
      case PTE_DTYPE_DOUBLE:
      case PTE_DTYPE_FLOAT:
      case PTE_DTYPE_LONG:
      case PTE_DTYPE_INT:
        unary_same(a, out, compute, op, p, &it);
        return true;
      default:
        break;
    }
  }
  do {
    int64_t oo = it.off[0], oa = it.off[1];
    for (int64_t j = 0; j < it.inner; j++, oo += it.istride[0], oa += it.istride[1]) {
      if (fl) {
        double r = op->fd(in_fp(a, oa, compute), p);
        pte_k_store_double(out->data, out->dtype, oo, out_fp(r, out, compute));
      } else {
        int64_t r = op->fi(pte_k_load_int64(a->data, a->dtype, oa), p);
        pte_k_store_int64(out->data, out->dtype, oo, out_int(r, out, compute));
      }
    }
  } while (pte_k_iter_next(&it));
  return true;
}

bool pte_k_ew_binary(const pte_tensor *a, const pte_tensor *b, pte_tensor *out, int compute,
                     const pte_k_binop *op, void *p) {
  bool fl = pte_k_is_floating(compute);
  if (fl ? !op->fd : !op->fi) return false;
  const pte_tensor *ops[3] = {out, a, b};
  pte_k_iter it;
  if (!pte_k_iter_init(&it, out->sizes, out->dim, ops, 3)) return true;
  if (op->f32 && compute == PTE_DTYPE_FLOAT && a->dtype == PTE_DTYPE_FLOAT &&
      b->dtype == PTE_DTYPE_FLOAT && out->dtype == PTE_DTYPE_FLOAT) {
    do {
      op->f32((float *)out->data + it.off[0], (const float *)a->data + it.off[1],
              (const float *)b->data + it.off[2], it.inner, it.istride[0], it.istride[1],
              it.istride[2], p);
    } while (pte_k_iter_next(&it));
    return true;
  }
  if (a->dtype == compute && b->dtype == compute && out->dtype == compute) {
    switch (compute) {
      case PTE_DTYPE_DOUBLE:
      case PTE_DTYPE_FLOAT:
      case PTE_DTYPE_LONG:
      case PTE_DTYPE_INT:
        binary_same(a, b, out, compute, op, p, &it);
        return true;
      default:
        break;
    }
  }
  do {
    int64_t oo = it.off[0], oa = it.off[1], ob = it.off[2];
    for (int64_t j = 0; j < it.inner;
         j++, oo += it.istride[0], oa += it.istride[1], ob += it.istride[2]) {
      if (fl) {
        double r = op->fd(in_fp(a, oa, compute), in_fp(b, ob, compute), p);
        pte_k_store_double(out->data, out->dtype, oo, out_fp(r, out, compute));
      } else {
        int64_t r = op->fi(pte_k_load_int64(a->data, a->dtype, oa),
                           pte_k_load_int64(b->data, b->dtype, ob), p);
        pte_k_store_int64(out->data, out->dtype, oo, out_int(r, out, compute));
      }
    }
  } while (pte_k_iter_next(&it));
  return true;
}

bool pte_k_ew_ternary(const pte_tensor *a, const pte_tensor *b, const pte_tensor *c,
                      pte_tensor *out, int compute, const pte_k_ternop *op, void *p) {
  bool fl = pte_k_is_floating(compute);
  if (fl ? !op->fd : !op->fi) return false;
  const pte_tensor *ops[4] = {out, a, b, c};
  pte_k_iter it;
  if (!pte_k_iter_init(&it, out->sizes, out->dim, ops, 4)) return true;
  do {
    int64_t oo = it.off[0], oa = it.off[1], ob = it.off[2], oc = it.off[3];
    for (int64_t j = 0; j < it.inner; j++, oo += it.istride[0], oa += it.istride[1],
                 ob += it.istride[2], oc += it.istride[3]) {
      if (fl) {
        double r = op->fd(in_fp(a, oa, compute), in_fp(b, ob, compute), in_fp(c, oc, compute), p);
        pte_k_store_double(out->data, out->dtype, oo, out_fp(r, out, compute));
      } else {
        int64_t r = op->fi(pte_k_load_int64(a->data, a->dtype, oa),
                           pte_k_load_int64(b->data, b->dtype, ob),
                           pte_k_load_int64(c->data, c->dtype, oc), p);
        pte_k_store_int64(out->data, out->dtype, oo, out_int(r, out, compute));
      }
    }
  } while (pte_k_iter_next(&it));
  return true;
}

void pte_k_copy_convert(const pte_tensor *src, pte_tensor *dst) {
  if (src->dtype == dst->dtype && pte_k_same_shape(src, dst) && pte_k_same_dim_order(src, dst) &&
      pte_k_is_dense(src) && pte_k_is_dense(dst)) {
    size_t n = dst->numel * pte_dtype_size(dst->dtype);
    if (n && src->data != dst->data) memmove(dst->data, src->data, n);
    return;
  }
  const pte_tensor *ops[2] = {dst, src};
  pte_k_iter it;
  if (!pte_k_iter_init(&it, dst->sizes, dst->dim, ops, 2)) return;
  size_t es = pte_dtype_size(src->dtype);
  bool same = src->dtype == dst->dtype;
  bool int_path = !pte_k_is_floating(src->dtype);
  do {
    int64_t od = it.off[0], os = it.off[1];
    for (int64_t j = 0; j < it.inner; j++, od += it.istride[0], os += it.istride[1]) {
      if (same)
        memcpy((uint8_t *)dst->data + (size_t)od * es, (const uint8_t *)src->data + (size_t)os * es,
               es);
      else if (int_path)
        pte_k_store_int64(dst->data, dst->dtype, od, pte_k_load_int64(src->data, src->dtype, os));
      else
        pte_k_store_double(dst->data, dst->dtype, od, pte_k_load_double(src->data, src->dtype, os));
    }
  } while (pte_k_iter_next(&it));
}

static void fill_bytes(pte_tensor *t, const uint8_t *elem) {
  size_t es = pte_dtype_size(t->dtype);
  uint8_t *d = (uint8_t *)t->data;
  /* Every element of a tensor lies within [0, extent) where extent covers all strides; filling
   * element by element through the iterator honours any layout. */
  const pte_tensor *ops[1] = {t};
  pte_k_iter it;
  if (!pte_k_iter_init(&it, t->sizes, t->dim, ops, 1)) return;
  do {
    int64_t o = it.off[0];
    for (int64_t j = 0; j < it.inner; j++, o += it.istride[0]) memcpy(d + (size_t)o * es, elem, es);
  } while (pte_k_iter_next(&it));
}

void pte_k_fill_double(pte_tensor *t, double v) {
  uint8_t elem[8] = {0};
  pte_k_store_double(elem, t->dtype, 0, v);
  fill_bytes(t, elem);
}

void pte_k_fill_int64(pte_tensor *t, int64_t v) {
  uint8_t elem[8] = {0};
  pte_k_store_int64(elem, t->dtype, 0, v);
  fill_bytes(t, elem);
}

static const pte_tensor *scalar_setup(pte_k_scalar *s, int dtype) {
  memset(s, 0, sizeof *s);
  s->t.data = &s->v;
  s->t.sizes = s->dummy_sizes;
  s->t.strides = s->dummy_strides;
  s->t.dim_order = s->dummy_order;
  s->t.dim = 0;
  s->t.numel = 1;
  s->t.dtype = (uint8_t)dtype;
  s->t.capacity_bytes = sizeof s->v;
  s->t.flags = PTE_TENSOR_CONST;
  return &s->t;
}

const pte_tensor *pte_k_scalar_init_double(pte_k_scalar *s, int dtype, double v) {
  scalar_setup(s, dtype);
  pte_k_store_double(&s->v, dtype, 0, v);
  return &s->t;
}

const pte_tensor *pte_k_scalar_init_int64(pte_k_scalar *s, int dtype, int64_t v) {
  scalar_setup(s, dtype);
  pte_k_store_int64(&s->v, dtype, 0, v);
  return &s->t;
}

const pte_tensor *pte_k_scalar_init(pte_k_scalar *s, int dtype, const pte_evalue *ev) {
  if (!ev) return NULL;
  switch (ev->tag) {
    case PTE_TAG_INT:
      return pte_k_scalar_init_int64(s, dtype, ev->u.i);
    case PTE_TAG_BOOL:
      return pte_k_scalar_init_int64(s, dtype, ev->u.b ? 1 : 0);
    case PTE_TAG_DOUBLE:
      return pte_k_scalar_init_double(s, dtype, ev->u.d);
    default:
      return NULL;
  }
}

int pte_k_unary_result(int in, pte_k_unary_rule rule, bool allow_bool) {
  if (!pte_k_dtype_supported(in)) return PTE_K_DTYPE_INVALID;
  switch (rule) {
    case PTE_K_UNARY_SAME:
      if (in == PTE_DTYPE_BOOL && !allow_bool) return PTE_K_DTYPE_INVALID;
      return in;
    case PTE_K_UNARY_TO_FLOAT:
      if (in == PTE_DTYPE_BOOL && !allow_bool) return PTE_K_DTYPE_INVALID;
      return pte_k_is_floating(in) ? in : PTE_DTYPE_FLOAT;
    default:
      return pte_k_is_floating(in) ? in : PTE_K_DTYPE_INVALID;
  }
}

bool pte_k_self_out_args(pte_kernel_context *ctx, pte_evalue **args, size_t nargs, size_t n_params,
                         pte_tensor **in, pte_tensor **out) {
  size_t out_idx = 1 + n_params;
  if (!pte_k_check_nargs(ctx, nargs, out_idx + 1, out_idx + 2)) return false;
  *in = pte_k_arg_tensor(ctx, args, nargs, 0);
  if (!*in) return false;
  *out = pte_k_arg_tensor(ctx, args, nargs, out_idx);
  if (!*out) return false;
  return pte_k_check_dtype(ctx, (*in)->dtype, "self") && pte_k_check_dtype(ctx, (*out)->dtype, "out");
}

bool pte_k_unary_kernel(pte_kernel_context *ctx, pte_evalue **args, size_t nargs, size_t n_params,
                        pte_k_unary_rule rule, bool allow_bool, const pte_k_unop *op, void *p,
                        const char *name) {
  size_t out_idx = 1 + n_params;
  if (!pte_k_check_nargs(ctx, nargs, out_idx + 1, out_idx + 2)) return false;
  pte_tensor *in = pte_k_arg_tensor(ctx, args, nargs, 0);
  if (!in) return false;
  pte_tensor *out = pte_k_arg_tensor(ctx, args, nargs, out_idx);
  if (!out) return false;
  if (!pte_k_check_dtype(ctx, out->dtype, "out")) return false;
  int res = pte_k_unary_result(in->dtype, rule, allow_bool);
  if (res == PTE_K_DTYPE_INVALID) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "%s: input dtype %s not supported", name,
                    pte_dtype_name(in->dtype));
    return false;
  }
  if (!pte_k_can_cast(res, out->dtype)) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "%s: result dtype %s cannot be cast to out %s",
                    name, pte_dtype_name(res), pte_dtype_name(out->dtype));
    return false;
  }
  if (!pte_k_resize_like(ctx, out, in)) return false;
  if (!pte_k_check_data(ctx, in, "self")) return false;
  if (!pte_k_ew_unary(in, out, pte_k_opmath(res), op, p)) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "%s: dtype %s not supported", name,
                    pte_dtype_name(res));
    return false;
  }
  pte_k_set_return(args, nargs, out_idx);
  return true;
}
