/* Data-movement helpers for the shape / indexing / reduction kernels (see kutil_shape.h). */
#include "portable/util/kutil_shape.h"

#include <float.h>
#include <math.h>
#include <string.h>

#include "portable/util/kutil.h"

bool pte_ks_wrap_dim(int64_t d, int32_t rank, int32_t *out) {
  int64_t r = rank > 0 ? rank : 1;
  if (d < -r || d >= r) return false;
  if (d < 0) d += r;
  *out = (int32_t)d;
  return true;
}

void pte_ks_strides64(const pte_tensor *t, int64_t *st) {
  for (int32_t i = 0; i < t->dim; i++) st[i] = t->strides[i];
}

int64_t pte_ks_load_index(const pte_tensor *t, int64_t off) {
  const uint8_t *p = (const uint8_t *)t->data;
  if (t->dtype == PTE_DTYPE_INT) {
    int32_t v;
    memcpy(&v, p + off * 4, 4);
    return v;
  }
  int64_t v;
  memcpy(&v, p + off * 8, 8);
  return v;
}

void pte_ks_fill(void *dst, const void *elem, size_t es, size_t n) {
  if (n == 0 || es == 0) return;
  uint8_t *d = (uint8_t *)dst;
  if (es == 1) {
    memset(d, *(const uint8_t *)elem, n);
    return;
  }
  memcpy(d, elem, es);
  size_t done = 1;
  while (done < n) {
    size_t c = done <= n - done ? done : n - done;
    memcpy(d + done * es, d, c * es);
    done += c;
  }
}

/* ---- N-d copy --------------------------------------------------------------------------- */

typedef struct ks_dims {
  int32_t n;
  int64_t sz[PTE_KS_MAX_NDIM];
  int64_t ds[PTE_KS_MAX_NDIM];
  int64_t ss[PTE_KS_MAX_NDIM];
} ks_dims;

static int64_t abs64(int64_t v) { return v < 0 ? -v : v; }

/* Drops size-1 dims, orders by decreasing |dst stride| (then |src stride|), merges dims that
 * are contiguous in both operands. Returns false if there is nothing to copy. */
static bool ks_prepare(ks_dims *k, const int64_t *dst_st, const int64_t *src_st,
                       const int64_t *sizes, int32_t ndim) {
  int32_t n = 0;
  for (int32_t i = 0; i < ndim; i++) {
    if (sizes[i] <= 0) return false;
    if (sizes[i] == 1) continue;
    /* insertion keeping order: outer (large |ds|) first; stable for equal keys */
    int32_t j = n;
    while (j > 0) {
      int64_t pd = abs64(k->ds[j - 1]), cd = abs64(dst_st[i]);
      if (pd > cd || (pd == cd && abs64(k->ss[j - 1]) >= abs64(src_st[i]))) break;
      k->sz[j] = k->sz[j - 1];
      k->ds[j] = k->ds[j - 1];
      k->ss[j] = k->ss[j - 1];
      j--;
    }
    k->sz[j] = sizes[i];
    k->ds[j] = dst_st[i];
    k->ss[j] = src_st[i];
    n++;
  }
  /* merge outer→inner */
  int32_t m = 0;
  for (int32_t i = 0; i < n; i++) {
    if (m > 0 && k->ds[m - 1] == k->ds[i] * k->sz[i] && k->ss[m - 1] == k->ss[i] * k->sz[i]) {
      k->sz[m - 1] *= k->sz[i];
      k->ds[m - 1] = k->ds[i];
      k->ss[m - 1] = k->ss[i];
    } else {
      k->sz[m] = k->sz[i];
      k->ds[m] = k->ds[i];
      k->ss[m] = k->ss[i];
      m++;
    }
  }
  k->n = m;
  return true;
}

#define KS_RUN(T)                                                   \
  do {                                                              \
    for (int64_t j = 0; j < len; j++) {                             \
      T v_;                                                         \
      memcpy(&v_, s + j * ss * (int64_t)sizeof(T), sizeof(T));      \
      memcpy(d + j * ds * (int64_t)sizeof(T), &v_, sizeof(T));      \
    }                                                               \
  } while (0)

static void ks_run(uint8_t *d, int64_t ds, const uint8_t *s, int64_t ss, int64_t len, size_t es) {
  if (ds == 1 && ss == 1) {
    memmove(d, s, (size_t)len * es); /* a malformed plan may overlap input and output */
    return;
  }
  if (ds == 1 && ss == 0) {
    pte_ks_fill(d, s, es, (size_t)len);
    return;
  }
  switch (es) {
    case 1: KS_RUN(uint8_t); break;
    case 2: KS_RUN(uint16_t); break;
    case 4: KS_RUN(uint32_t); break;
    case 8: KS_RUN(uint64_t); break;
    default:
      for (int64_t j = 0; j < len; j++)
        memcpy(d + j * ds * (int64_t)es, s + j * ss * (int64_t)es, es);
      break;
  }
}

void pte_ks_copy_nd(void *dst, const int64_t *dst_st, const void *src, const int64_t *src_st,
                    const int64_t *sizes, int32_t ndim, size_t es) {
  ks_dims k;
  if (ndim < 0 || ndim > PTE_KS_MAX_NDIM) return;
  if (!ks_prepare(&k, dst_st, src_st, sizes, ndim)) return;
  uint8_t *d = (uint8_t *)dst;
  const uint8_t *s = (const uint8_t *)src;
  if (k.n == 0) {
    memcpy(d, s, es);
    return;
  }
  int32_t outer = k.n - 1;
  int64_t len = k.sz[outer], ids = k.ds[outer], iss = k.ss[outer];
  int64_t cnt[PTE_KS_MAX_NDIM] = {0};
  int64_t doff = 0, soff = 0;
  for (;;) {
    ks_run(d + doff * (int64_t)es, ids, s + soff * (int64_t)es, iss, len, es);
    int32_t i = outer - 1;
    for (; i >= 0; i--) {
      if (++cnt[i] < k.sz[i]) {
        doff += k.ds[i];
        soff += k.ss[i];
        break;
      }
      doff -= k.ds[i] * (k.sz[i] - 1);
      soff -= k.ss[i] * (k.sz[i] - 1);
      cnt[i] = 0;
    }
    if (i < 0) break;
  }
}

static bool ks_int_like(int dtype) { return pte_k_is_integral(dtype) || dtype == PTE_DTYPE_BOOL; }

void pte_ks_convert_nd(void *dst, int dst_dtype, const int64_t *dst_st, const void *src,
                       int src_dtype, const int64_t *src_st, const int64_t *sizes, int32_t ndim) {
  if (dst_dtype == src_dtype) {
    pte_ks_copy_nd(dst, dst_st, src, src_st, sizes, ndim, pte_dtype_size(dst_dtype));
    return;
  }
  ks_dims k;
  if (ndim < 0 || ndim > PTE_KS_MAX_NDIM) return;
  if (!ks_prepare(&k, dst_st, src_st, sizes, ndim)) return;
  bool via_int = ks_int_like(dst_dtype) && ks_int_like(src_dtype);
  if (k.n == 0) {
    k.n = 1;
    k.sz[0] = 1;
    k.ds[0] = 0;
    k.ss[0] = 0;
  }
  int32_t outer = k.n - 1;
  int64_t len = k.sz[outer], ids = k.ds[outer], iss = k.ss[outer];
  int64_t cnt[PTE_KS_MAX_NDIM] = {0};
  int64_t doff = 0, soff = 0;
  for (;;) {
    if (via_int) {
      for (int64_t j = 0; j < len; j++)
        pte_k_store_int64(dst, dst_dtype, doff + j * ids, pte_k_load_int64(src, src_dtype, soff + j * iss));
    } else {
      for (int64_t j = 0; j < len; j++)
        pte_k_store_double(dst, dst_dtype, doff + j * ids,
                           pte_k_load_double(src, src_dtype, soff + j * iss));
    }
    int32_t i = outer - 1;
    for (; i >= 0; i--) {
      if (++cnt[i] < k.sz[i]) {
        doff += k.ds[i];
        soff += k.ss[i];
        break;
      }
      doff -= k.ds[i] * (k.sz[i] - 1);
      soff -= k.ss[i] * (k.sz[i] - 1);
      cnt[i] = 0;
    }
    if (i < 0) break;
  }
}

void pte_ks_copy_same_shape(pte_tensor *dst, const pte_tensor *src) {
  int64_t sz[PTE_MAX_RANK], ds[PTE_MAX_RANK], ss[PTE_MAX_RANK];
  for (int32_t i = 0; i < dst->dim; i++) {
    sz[i] = dst->sizes[i];
    ds[i] = dst->strides[i];
    ss[i] = src->strides[i];
  }
  if (dst->numel == 0) return;
  pte_ks_copy_nd(dst->data, ds, src->data, ss, sz, dst->dim, pte_dtype_size(dst->dtype));
}

/* Row-major strides (in elements) of sizes. */
static void ks_rowmajor(const int32_t *sizes, int32_t dim, int64_t *st) {
  int64_t s = 1;
  for (int32_t i = dim - 1; i >= 0; i--) {
    st[i] = s;
    s *= sizes[i] > 0 ? sizes[i] : 1;
  }
}

void pte_ks_copy_logical(pte_tensor *dst, const pte_tensor *src) {
  size_t es = pte_dtype_size(dst->dtype);
  if (dst->numel == 0) return;
  bool dc = pte_k_is_contiguous(dst), sc = pte_k_is_contiguous(src);
  if (dc && sc) {
    if (dst->data != src->data) memcpy(dst->data, src->data, dst->numel * es);
    return;
  }
  int64_t sz[PTE_MAX_RANK], ds[PTE_MAX_RANK], ss[PTE_MAX_RANK];
  if (sc) {
    for (int32_t i = 0; i < dst->dim; i++) {
      sz[i] = dst->sizes[i];
      ds[i] = dst->strides[i];
    }
    ks_rowmajor(dst->sizes, dst->dim, ss);
    pte_ks_copy_nd(dst->data, ds, src->data, ss, sz, dst->dim, es);
    return;
  }
  if (dc) {
    for (int32_t i = 0; i < src->dim; i++) {
      sz[i] = src->sizes[i];
      ss[i] = src->strides[i];
    }
    ks_rowmajor(src->sizes, src->dim, ds);
    pte_ks_copy_nd(dst->data, ds, src->data, ss, sz, src->dim, es);
    return;
  }
  /* neither is row-major: walk both in logical order */
  int64_t dc_[PTE_MAX_RANK] = {0}, sc_[PTE_MAX_RANK] = {0};
  int64_t doff = 0, soff = 0;
  uint8_t *d = (uint8_t *)dst->data;
  const uint8_t *s = (const uint8_t *)src->data;
  for (size_t n = 0; n < dst->numel; n++) {
    memcpy(d + doff * (int64_t)es, s + soff * (int64_t)es, es);
    for (int32_t i = dst->dim - 1; i >= 0; i--) {
      if (++dc_[i] < dst->sizes[i]) {
        doff += dst->strides[i];
        break;
      }
      doff -= (int64_t)dst->strides[i] * (dst->sizes[i] - 1);
      dc_[i] = 0;
    }
    for (int32_t i = src->dim - 1; i >= 0; i--) {
      if (++sc_[i] < src->sizes[i]) {
        soff += src->strides[i];
        break;
      }
      soff -= (int64_t)src->strides[i] * (src->sizes[i] - 1);
      sc_[i] = 0;
    }
  }
}

/* ---- scalars ------------------------------------------------------------------------------ */

bool pte_ks_scalar_to_elem(const pte_evalue *v, int dtype, void *elem) {
  if (!v || !pte_k_dtype_supported(dtype)) return false;
  memset(elem, 0, 8);
  switch (v->tag) {
    case PTE_TAG_INT:
      if (pte_k_is_floating(dtype))
        pte_k_store_double(elem, dtype, 0, (double)v->u.i);
      else
        pte_k_store_int64(elem, dtype, 0, v->u.i);
      return true;
    case PTE_TAG_BOOL: pte_k_store_int64(elem, dtype, 0, v->u.b ? 1 : 0); return true;
    case PTE_TAG_DOUBLE: pte_k_store_double(elem, dtype, 0, v->u.d); return true;
    default: return false;
  }
}

static bool int_range(int dtype, int64_t *lo, int64_t *hi) {
  switch (dtype) {
    case PTE_DTYPE_BYTE: *lo = 0; *hi = 255; return true;
    case PTE_DTYPE_CHAR: *lo = -128; *hi = 127; return true;
    case PTE_DTYPE_SHORT: *lo = -32768; *hi = 32767; return true;
    case PTE_DTYPE_INT: *lo = INT32_MIN; *hi = INT32_MAX; return true;
    case PTE_DTYPE_LONG: *lo = INT64_MIN; *hi = INT64_MAX; return true;
    default: return false;
  }
}

bool pte_ks_scalar_fits(const pte_evalue *v, int dtype) {
  if (!v) return false;
  if (dtype == PTE_DTYPE_BOOL) return true;
  int64_t lo, hi;
  if (int_range(dtype, &lo, &hi)) {
    if (v->tag == PTE_TAG_INT) return v->u.i >= lo && v->u.i <= hi;
    if (v->tag == PTE_TAG_BOOL) return true;
    if (v->tag == PTE_TAG_DOUBLE) {
      double d = v->u.d;
      if (isnan(d) || isinf(d)) return false;
      return d >= (double)lo && d <= (double)hi;
    }
    return false;
  }
  double d;
  if (!pte_evalue_to_double(v, &d)) return false;
  if (isnan(d) || isinf(d)) return true;
  double mx;
  switch (dtype) {
    case PTE_DTYPE_HALF: mx = 65504.0; break;
    case PTE_DTYPE_BFLOAT16: mx = 3.3895313892515355e38; break;
    case PTE_DTYPE_FLOAT: mx = FLT_MAX; break;
    default: return true;
  }
  return d >= -mx && d <= mx;
}

/* ---- outer walk --------------------------------------------------------------------------- */

bool pte_ks_walk_init(pte_ks_walk *w, const int32_t *sizes, int32_t dim, uint32_t skip_mask,
                      const int64_t *const *st, int nt) {
  memset(w, 0, sizeof *w);
  if (nt < 0 || nt > PTE_KS_WALK_MAX) return false;
  w->nt = nt;
  for (int32_t d = 0; d < dim; d++) {
    if (skip_mask & (1u << d)) continue;
    if (sizes[d] <= 0) return false;
    w->sz[w->n] = sizes[d];
    for (int k = 0; k < nt; k++) w->st[k][w->n] = st[k][d];
    w->n++;
  }
  return true;
}

bool pte_ks_walk_next(pte_ks_walk *w) {
  for (int32_t i = w->n - 1; i >= 0; i--) {
    if (++w->cnt[i] < w->sz[i]) {
      for (int k = 0; k < w->nt; k++) w->off[k] += w->st[k][i];
      return true;
    }
    for (int k = 0; k < w->nt; k++) w->off[k] -= w->st[k][i] * (w->sz[i] - 1);
    w->cnt[i] = 0;
  }
  return false;
}

int64_t pte_ks_slice_bound(int64_t x, int64_t size) {
  if (x < 0) x = x < -size ? 0 : x + size;
  if (x > size) x = size;
  return x;
}

int64_t pte_ks_slice_len(int64_t *start, int64_t end, int64_t step, int64_t size) {
  *start = pte_ks_slice_bound(*start, size);
  end = pte_ks_slice_bound(end, size);
  if (end < *start) end = *start;
  return end == *start ? 0 : (end - *start - 1) / step + 1;
}

void pte_ks_bcast_strides(const pte_tensor *t, int32_t dim, int64_t *st) {
  for (int32_t d = 0; d < dim; d++) {
    int32_t td = d - (dim - t->dim);
    st[d] = (td >= 0 && t->sizes[td] != 1) ? t->strides[td] : 0;
  }
}
