/* Rearrangement kernels: roll, pixel_shuffle, pixel_unshuffle, repeat_interleave, tril, topk.
 *
 * roll / pixel_(un)shuffle / tril move whole elements (every dtype, any dim order) with strided
 * N-d copies; topk keeps a bounded heap of the k best (value, index) pairs directly in the two
 * outputs (no scratch memory), then heap-sorts them in place.
 */
#include <string.h>

#include "portable/portable_rearrange.h"
#include "portable/util/kutil.h"
#include "portable/util/kutil_shape.h"


/* out dtype == self dtype, one this file can handle, and self has data. */
static bool ra_check_dtype(pte_kernel_context *ctx, const char *op, const pte_tensor *self,
                           const pte_tensor *out) {
  return pte_k_check_out_dtype(ctx, op, "self", self, out, false) &&
         pte_k_check_data(ctx, self, "self");
}

static bool ra_rank(pte_kernel_context *ctx, const char *op, const pte_tensor *out, int32_t dim) {
  if (out->dim != dim) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "%s: out has rank %d, expected %d", op, (int)out->dim,
                    (int)dim);
    return false;
  }
  return true;
}

/* ---- roll ----------------------------------------------------------------------------------- */

/* aten::roll.out(Tensor self, SymInt[1] shifts, int[1] dims=[], *, Tensor(a!) out) */
static void op_roll(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  if (!pte_k_check_nargs(ctx, nargs, 4, 5)) return;
  pte_tensor *self = pte_k_arg_tensor(ctx, args, nargs, 0);
  size_t ns, nd;
  const int64_t *shifts = self ? pte_k_arg_int_list(ctx, args, nargs, 1, &ns) : NULL;
  const int64_t *dims = shifts ? pte_k_arg_int_list(ctx, args, nargs, 2, &nd) : NULL;
  if (!dims) return;
  pte_tensor *out = pte_k_arg_tensor(ctx, args, nargs, 3);
  if (!out || !ra_check_dtype(ctx, "roll", self, out) || !ra_rank(ctx, "roll", out, self->dim)) return;
  if (ns == 0) PTE_K_BAD("roll: shifts must not be empty");
  if (nd == 0 && ns != 1) PTE_K_BAD("roll: shifts must have one entry when dims is empty, got %zu", ns);
  if (nd != 0 && nd != ns) PTE_K_BAD("roll: shifts (%zu) and dims (%zu) must have the same length", ns, nd);
  int64_t shift[PTE_MAX_RANK] = {0};
  for (size_t i = 0; i < nd; i++) {
    int32_t d;
    if (!pte_ks_wrap_dim(dims[i], self->dim, &d) || self->dim == 0)
      PTE_K_BAD("roll: dims[%zu] = %lld out of range for rank %d", i, (long long)dims[i], (int)self->dim);
    int64_t n = self->sizes[d];
    if (n > 0) shift[d] = ((shift[d] + shifts[i] % n) % n + n) % n;
  }
  if (!pte_k_resize_like(ctx, out, self)) return;
  if (out->numel == 0) goto done;
  size_t es = pte_dtype_size(out->dtype);
  if (nd == 0) {
    /* roll of the flattened tensor (logical row-major order) */
    size_t N = self->numel;
    int64_t s = shifts[0] % (int64_t)N;
    size_t sh = (size_t)(s < 0 ? s + (int64_t)N : s);
    for (size_t li = 0; li < N; li++) {
      int64_t so = pte_k_offset_of_linear(self, li);
      int64_t oo = pte_k_offset_of_linear(out, (li + sh) % N);
      memcpy((uint8_t *)out->data + oo * (int64_t)es, (const uint8_t *)self->data + so * (int64_t)es, es);
    }
    goto done;
  }
  {
    /* each rolled dim splits into two pieces: out[s, n) <- self[0, n-s), out[0, s) <- self[n-s, n) */
    int32_t rolled[PTE_MAX_RANK], nr = 0;
    for (int32_t d = 0; d < self->dim; d++)
      if (shift[d] != 0) rolled[nr++] = d;
    int64_t ds[PTE_MAX_RANK], ss[PTE_MAX_RANK], sz[PTE_MAX_RANK];
    pte_ks_strides64(out, ds);
    pte_ks_strides64(self, ss);
    for (uint32_t combo = 0; combo < (1u << nr); combo++) {
      int64_t doff = 0, soff = 0;
      for (int32_t d = 0; d < self->dim; d++) sz[d] = self->sizes[d];
      for (int32_t r = 0; r < nr; r++) {
        int32_t d = rolled[r];
        int64_t n = self->sizes[d], s = shift[d];
        if (combo & (1u << r)) { /* tail of self to the front of out */
          sz[d] = s;
          soff += (n - s) * ss[d];
        } else {
          sz[d] = n - s;
          doff += s * ds[d];
        }
      }
      pte_ks_copy_nd((uint8_t *)out->data + doff * (int64_t)es, ds,
                     (const uint8_t *)self->data + soff * (int64_t)es, ss, sz, self->dim, es);
    }
  }
done:
  pte_k_set_return(args, nargs, 3);
}

/* ---- pixel_shuffle / pixel_unshuffle -------------------------------------------------------- */

static void pixel_common(pte_kernel_context *ctx, pte_evalue **args, size_t nargs, bool shuffle) {
  const char *op = shuffle ? "pixel_shuffle" : "pixel_unshuffle";
  if (!pte_k_check_nargs(ctx, nargs, 3, 4)) return;
  pte_tensor *self = pte_k_arg_tensor(ctx, args, nargs, 0);
  int64_t r;
  if (!self || !pte_k_arg_int(ctx, args, nargs, 1, &r)) return;
  pte_tensor *out = pte_k_arg_tensor(ctx, args, nargs, 2);
  if (!out || !ra_check_dtype(ctx, op, self, out)) return;
  int32_t n = self->dim;
  if (n < 3) PTE_K_BAD("%s: self must have at least 3 dims, got %d", op, (int)n);
  if (!ra_rank(ctx, op, out, n)) return;
  if (r <= 0 || r > 65535) PTE_K_BAD("%s: %s factor must be positive, got %lld", op, shuffle ? "upscale" : "downscale", (long long)r);
  int64_t C = self->sizes[n - 3], H = self->sizes[n - 2], W = self->sizes[n - 1];
  int32_t osz[PTE_MAX_RANK];
  for (int32_t k = 0; k < n - 3; k++) osz[k] = self->sizes[k];
  if (shuffle) {
    if (C % (r * r) != 0)
      PTE_K_BAD("%s: channels (%lld) must be divisible by upscale_factor^2 (%lld)", op, (long long)C, (long long)(r * r));
    if (H * r > INT32_MAX || W * r > INT32_MAX) PTE_K_BAD("%s: result too large", op);
    osz[n - 3] = (int32_t)(C / (r * r));
    osz[n - 2] = (int32_t)(H * r);
    osz[n - 1] = (int32_t)(W * r);
  } else {
    if (H % r != 0 || W % r != 0)
      PTE_K_BAD("%s: height (%lld) and width (%lld) must be divisible by downscale_factor (%lld)", op,
          (long long)H, (long long)W, (long long)r);
    if (C * r * r > INT32_MAX) PTE_K_BAD("%s: result too large", op);
    osz[n - 3] = (int32_t)(C * r * r);
    osz[n - 2] = (int32_t)(H / r);
    osz[n - 1] = (int32_t)(W / r);
  }
  if (!pte_k_resize_out(ctx, out, osz, n)) return;
  if (out->numel > 0) {
    /* walk (batch..., c, i, j, h, w) with c/h/w the small-side coordinates */
    const pte_tensor *big = shuffle ? out : self;   /* spatial H*r x W*r side */
    const pte_tensor *small = shuffle ? self : out; /* channel C*r*r side */
    int64_t sz[PTE_KS_MAX_NDIM], bst[PTE_KS_MAX_NDIM], sst[PTE_KS_MAX_NDIM];
    int32_t m = 0;
    for (int32_t k = 0; k < n - 3; k++, m++) {
      sz[m] = self->sizes[k];
      bst[m] = big->strides[k];
      sst[m] = small->strides[k];
    }
    int64_t c = big->sizes[n - 3], h = small->sizes[n - 2], w = small->sizes[n - 1];
    const int64_t bc = big->strides[n - 3], bh = big->strides[n - 2], bw = big->strides[n - 1];
    const int64_t sc = small->strides[n - 3], sh = small->strides[n - 2], sw = small->strides[n - 1];
    /* c */ sz[m] = c; bst[m] = bc; sst[m] = r * r * sc; m++;
    /* i */ sz[m] = r; bst[m] = bh; sst[m] = r * sc; m++;
    /* j */ sz[m] = r; bst[m] = bw; sst[m] = sc; m++;
    /* h */ sz[m] = h; bst[m] = r * bh; sst[m] = sh; m++;
    /* w */ sz[m] = w; bst[m] = r * bw; sst[m] = sw; m++;
    size_t es = pte_dtype_size(out->dtype);
    if (shuffle) pte_ks_copy_nd(out->data, bst, self->data, sst, sz, m, es);
    else pte_ks_copy_nd(out->data, sst, self->data, bst, sz, m, es);
  }
  pte_k_set_return(args, nargs, 2);
}

/* aten::pixel_shuffle.out(Tensor self, int upscale_factor, *, Tensor(a!) out) */
static void op_pixel_shuffle(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  pixel_common(ctx, args, nargs, true);
}

/* aten::pixel_unshuffle.out(Tensor self, int downscale_factor, *, Tensor(a!) out) */
static void op_pixel_unshuffle(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  pixel_common(ctx, args, nargs, false);
}

/* ---- repeat_interleave ---------------------------------------------------------------------- */

/* aten::repeat_interleave.Tensor_out(Tensor repeats, *, SymInt? output_size=None,
 *                                    Tensor(a!) out) */
static void op_repeat_interleave(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  if (!pte_k_check_nargs(ctx, nargs, 3, 4)) return;
  pte_tensor *rep = pte_k_arg_tensor(ctx, args, nargs, 0);
  if (!rep) return;
  int64_t osize = -1;
  if (!pte_k_arg_is_none(args, nargs, 1) && !pte_k_arg_int(ctx, args, nargs, 1, &osize)) return;
  pte_tensor *out = pte_k_arg_tensor(ctx, args, nargs, 2);
  if (!out) return;
  if (rep->dtype != PTE_DTYPE_LONG && rep->dtype != PTE_DTYPE_INT)
    PTE_K_BAD("repeat_interleave: repeats must be int32 or int64, got %s", pte_dtype_name(rep->dtype));
  if (rep->dim != 1) PTE_K_BAD("repeat_interleave: repeats must be 1-D, got rank %d", (int)rep->dim);
  if (out->dtype != rep->dtype)
    PTE_K_BAD("repeat_interleave: out dtype %s must equal repeats dtype %s", pte_dtype_name(out->dtype),
        pte_dtype_name(rep->dtype));
  if (!ra_rank(ctx, "repeat_interleave", out, 1) || !pte_k_check_data(ctx, rep, "repeats")) return;
  int64_t total = 0, n = rep->sizes[0], st = rep->strides[0];
  for (int64_t i = 0; i < n; i++) {
    int64_t v = pte_ks_load_index(rep, i * st);
    if (v < 0) PTE_K_BAD("repeat_interleave: repeats[%lld] = %lld is negative", (long long)i, (long long)v);
    total += v;
    if (total > INT32_MAX) PTE_K_BAD("repeat_interleave: result too large");
  }
  if (osize >= 0 && osize != total)
    PTE_K_BAD("repeat_interleave: output_size %lld differs from the sum of repeats %lld", (long long)osize, (long long)total);
  int32_t osz = (int32_t)total;
  if (!pte_k_resize_out(ctx, out, &osz, 1)) return;
  int64_t pos = 0, ost = out->strides[0];
  for (int64_t i = 0; i < n; i++) {
    int64_t v = pte_ks_load_index(rep, i * st);
    for (int64_t j = 0; j < v; j++, pos++) pte_k_store_int64(out->data, out->dtype, pos * ost, i);
  }
  pte_k_set_return(args, nargs, 2);
}

/* ---- tril ----------------------------------------------------------------------------------- */

/* aten::tril.out(Tensor self, int diagonal=0, *, Tensor(a!) out) */
static void op_tril(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  if (!pte_k_check_nargs(ctx, nargs, 3, 4)) return;
  pte_tensor *self = pte_k_arg_tensor(ctx, args, nargs, 0);
  int64_t diag;
  if (!self || !pte_k_arg_int(ctx, args, nargs, 1, &diag)) return;
  pte_tensor *out = pte_k_arg_tensor(ctx, args, nargs, 2);
  if (!out || !ra_check_dtype(ctx, "tril", self, out)) return;
  if (self->dim < 2) PTE_K_BAD("tril: self must have at least 2 dims, got %d", (int)self->dim);
  if (!ra_rank(ctx, "tril", out, self->dim) || !pte_k_resize_like(ctx, out, self)) return;
  int32_t n = self->dim;
  int64_t R = self->sizes[n - 2], C = self->sizes[n - 1];
  if (diag > C) diag = C; /* clamp: keeps i + diag + 1 in range */
  if (diag < -R - 1) diag = -R - 1;
  int64_t ss[PTE_MAX_RANK], os[PTE_MAX_RANK];
  pte_ks_strides64(self, ss);
  pte_ks_strides64(out, os);
  const int64_t *st[2] = {ss, os};
  pte_ks_walk w;
  size_t es = pte_dtype_size(out->dtype);
  if (out->numel > 0 && pte_ks_walk_init(&w, self->sizes, n - 2, 0, st, 2)) {
    do {
      for (int64_t i = 0; i < R; i++) {
        int64_t keep = i + diag + 1; /* columns [0, keep) survive */
        if (keep < 0) keep = 0;
        if (keep > C) keep = C;
        int64_t so = w.off[0] + i * ss[n - 2], oo = w.off[1] + i * os[n - 2];
        if (keep > 0)
          pte_ks_copy_nd((uint8_t *)out->data + oo * (int64_t)es, &os[n - 1],
                         (const uint8_t *)self->data + so * (int64_t)es, &ss[n - 1], &keep, 1, es);
        for (int64_t j = keep; j < C; j++) memset((uint8_t *)out->data + (oo + j * os[n - 1]) * (int64_t)es, 0, es);
      }
    } while (pte_ks_walk_next(&w));
  }
  pte_k_set_return(args, nargs, 2);
}

/* ---- topk ----------------------------------------------------------------------------------- */

typedef struct tk_key {
  double d;
  int64_t i;
  int64_t idx;
  bool nan;
} tk_key;

typedef struct tk_heap {
  pte_tensor *vals, *idxs;
  int64_t voff, vst, ioff, ist;
  bool is_float, largest;
  size_t es;
} tk_heap;

/* True if a is ranked before b: better value first (NaN counts as the largest), ties by index. */
static bool tk_before(const tk_heap *h, const tk_key *a, const tk_key *b) {
  if (h->is_float) {
    if (a->nan != b->nan) return h->largest ? a->nan : b->nan;
    if (!a->nan && a->d != b->d) return h->largest ? a->d > b->d : a->d < b->d;
  } else if (a->i != b->i) {
    return h->largest ? a->i > b->i : a->i < b->i;
  }
  return a->idx < b->idx;
}

static void tk_load(const tk_heap *h, const void *data, int dtype, int64_t off, int64_t idx, tk_key *k) {
  k->idx = idx;
  if (h->is_float) {
    k->d = pte_k_load_double(data, dtype, off);
    k->nan = k->d != k->d;
    k->i = 0;
  } else {
    k->i = pte_k_load_int64(data, dtype, off);
    k->d = 0;
    k->nan = false;
  }
}

static void tk_at(const tk_heap *h, int64_t j, tk_key *k) {
  int64_t idx = ((const int64_t *)h->idxs->data)[h->ioff + j * h->ist];
  tk_load(h, h->vals->data, h->vals->dtype, h->voff + j * h->vst, idx, k);
}

static void tk_put(tk_heap *h, int64_t j, const uint8_t *elem, int64_t idx) {
  memcpy((uint8_t *)h->vals->data + (h->voff + j * h->vst) * (int64_t)h->es, elem, h->es);
  ((int64_t *)h->idxs->data)[h->ioff + j * h->ist] = idx;
}

static void tk_swap(tk_heap *h, int64_t a, int64_t b) {
  uint8_t ea[16], eb[16];
  uint8_t *pa = (uint8_t *)h->vals->data + (h->voff + a * h->vst) * (int64_t)h->es;
  uint8_t *pb = (uint8_t *)h->vals->data + (h->voff + b * h->vst) * (int64_t)h->es;
  memcpy(ea, pa, h->es);
  memcpy(eb, pb, h->es);
  memcpy(pa, eb, h->es);
  memcpy(pb, ea, h->es);
  int64_t *ia = (int64_t *)h->idxs->data + h->ioff + a * h->ist;
  int64_t *ib = (int64_t *)h->idxs->data + h->ioff + b * h->ist;
  int64_t t = *ia;
  *ia = *ib;
  *ib = t;
}

/* Heap of n entries whose root is the one ranked last; restores the property below j. */
static void tk_sift_down(tk_heap *h, int64_t j, int64_t n) {
  for (;;) {
    int64_t l = 2 * j + 1, r = l + 1, worst = j;
    tk_key kw, kc;
    tk_at(h, worst, &kw);
    if (l < n) {
      tk_at(h, l, &kc);
      if (tk_before(h, &kw, &kc)) {
        worst = l;
        kw = kc;
      }
    }
    if (r < n) {
      tk_at(h, r, &kc);
      if (tk_before(h, &kw, &kc)) worst = r;
    }
    if (worst == j) return;
    tk_swap(h, j, worst);
    j = worst;
  }
}

static void tk_sift_up(tk_heap *h, int64_t j) {
  while (j > 0) {
    int64_t p = (j - 1) / 2;
    tk_key kj, kp;
    tk_at(h, j, &kj);
    tk_at(h, p, &kp);
    if (!tk_before(h, &kp, &kj)) return;
    tk_swap(h, j, p);
    j = p;
  }
}

/* aten::topk.values(Tensor self, SymInt k, int dim=-1, bool largest=True, bool sorted=True, *,
 *                   Tensor(a!) values, Tensor(b!) indices) -> (Tensor(a!) values, Tensor(b!) indices) */
static void op_topk(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  if (!pte_k_check_nargs(ctx, nargs, 7, 8)) return;
  pte_tensor *self = pte_k_arg_tensor(ctx, args, nargs, 0);
  int64_t k, d;
  bool largest, sorted;
  if (!self || !pte_k_arg_int(ctx, args, nargs, 1, &k) || !pte_k_arg_int(ctx, args, nargs, 2, &d) ||
      !pte_k_arg_bool(ctx, args, nargs, 3, &largest) || !pte_k_arg_bool(ctx, args, nargs, 4, &sorted))
    return;
  pte_tensor *vals = pte_k_arg_tensor(ctx, args, nargs, 5);
  pte_tensor *idxs = vals ? pte_k_arg_tensor(ctx, args, nargs, 6) : NULL;
  if (!idxs || !ra_check_dtype(ctx, "topk", self, vals)) return;
  if (self->dtype == PTE_DTYPE_BOOL) PTE_K_BAD("topk: bool self is not supported");
  if (idxs->dtype != PTE_DTYPE_LONG) PTE_K_BAD("topk: indices must be int64, got %s", pte_dtype_name(idxs->dtype));
  int32_t dim;
  if (!pte_ks_wrap_dim(d, self->dim, &dim)) PTE_K_BAD("topk: dim %lld out of range for rank %d", (long long)d, (int)self->dim);
  int64_t n = self->dim ? self->sizes[dim] : 1;
  if (k < 0 || k > n) PTE_K_BAD("topk: k (%lld) out of range for dimension of size %lld", (long long)k, (long long)n);
  if (!ra_rank(ctx, "topk", vals, self->dim) || !ra_rank(ctx, "topk", idxs, self->dim)) return;
  int32_t osz[PTE_MAX_RANK];
  for (int32_t q = 0; q < self->dim; q++) osz[q] = q == dim ? (int32_t)k : self->sizes[q];
  if (!pte_k_resize_out(ctx, vals, osz, self->dim) || !pte_k_resize_out(ctx, idxs, osz, self->dim)) return;
  if (vals->numel > 0) {
    int64_t ss[PTE_MAX_RANK], vs[PTE_MAX_RANK], is[PTE_MAX_RANK];
    pte_ks_strides64(self, ss);
    pte_ks_strides64(vals, vs);
    pte_ks_strides64(idxs, is);
    int64_t sst = self->dim ? ss[dim] : 0;
    tk_heap h;
    h.vals = vals;
    h.idxs = idxs;
    h.vst = self->dim ? vs[dim] : 0;
    h.ist = self->dim ? is[dim] : 0;
    h.is_float = pte_k_is_floating(self->dtype);
    h.largest = largest;
    h.es = pte_dtype_size(self->dtype);
    const int64_t *st[3] = {ss, vs, is};
    pte_ks_walk w;
    if (pte_ks_walk_init(&w, self->sizes, self->dim, self->dim ? 1u << dim : 0, st, 3)) {
      do {
        h.voff = w.off[1];
        h.ioff = w.off[2];
        int64_t size = 0;
        for (int64_t e = 0; e < n; e++) {
          int64_t so = w.off[0] + e * sst;
          const uint8_t *elem = (const uint8_t *)self->data + so * (int64_t)h.es;
          if (size < k) {
            tk_put(&h, size, elem, e);
            tk_sift_up(&h, size);
            size++;
            continue;
          }
          tk_key ke, kr;
          tk_load(&h, self->data, self->dtype, so, e, &ke);
          tk_at(&h, 0, &kr);
          if (tk_before(&h, &ke, &kr)) {
            tk_put(&h, 0, elem, e);
            tk_sift_down(&h, 0, k);
          }
        }
        /* heap sort: the last-ranked goes to the end */
        for (int64_t m = k - 1; m > 0; m--) {
          tk_swap(&h, 0, m);
          tk_sift_down(&h, 0, m);
        }
      } while (pte_ks_walk_next(&w));
    }
  }
  (void)sorted;
  if (nargs == 8) {
    pte_evalue *r = args[7];
    if (r && r->tag == PTE_TAG_LIST_TENSOR && r->u.tensor_list.len == 2) {
      for (size_t i = 0; i < 2; i++) {
        pte_evalue *it = r->u.tensor_list.items[i];
        if (it && it != args[5 + i]) *it = *args[5 + i];
      }
    }
  }
}

/* ---- table ---------------------------------------------------------------------------------- */

const pte_kernel pte_portable_rearrange_kernels[] = {
    {"aten::roll.out", NULL, op_roll},
    {"aten::pixel_shuffle.out", NULL, op_pixel_shuffle},
    {"aten::pixel_unshuffle.out", NULL, op_pixel_unshuffle},
    {"aten::repeat_interleave.Tensor_out", NULL, op_repeat_interleave},
    {"aten::tril.out", NULL, op_tril},
    {"aten::topk.values", NULL, op_topk},
};
const size_t pte_portable_rearrange_kernels_count =
    sizeof pte_portable_rearrange_kernels / sizeof pte_portable_rearrange_kernels[0];
