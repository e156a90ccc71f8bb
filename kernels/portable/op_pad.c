/* Reflection / replication padding of the last 1, 2 or 3 dims.
 *
 * Each output element of a padded dim reads input index i = o - before, mapped back into [0, n)
 * by mirroring around the edges (reflection, edge not repeated) or clamping (replication).
 * Rows of the last dim are copied element by element through that map; everything else is plain
 * strided addressing, so every dtype and dim order works.
 */
#include <string.h>

#include "portable/portable_pad.h"
#include "portable/util/kutil.h"
#include "portable/util/kutil_shape.h"


static inline int64_t pad_map(int64_t o, int64_t before, int64_t n, bool reflect) {
  int64_t i = o - before;
  if (reflect) {
    if (i < 0) i = -i;
    if (i >= n) i = 2 * (n - 1) - i;
  } else {
    if (i < 0) i = 0;
    if (i >= n) i = n - 1;
  }
  return i;
}

static void pad_common(pte_kernel_context *ctx, pte_evalue **args, size_t nargs, int32_t nd, bool reflect) {
  static const char *const names[2][3] = {
      {"replication_pad1d", "replication_pad2d", "replication_pad3d"},
      {"reflection_pad1d", "reflection_pad2d", "reflection_pad3d"}};
  const char *op = names[reflect ? 1 : 0][nd - 1];
  if (!pte_k_check_nargs(ctx, nargs, 3, 4)) return;
  pte_tensor *self = pte_k_arg_tensor(ctx, args, nargs, 0);
  size_t np;
  const int64_t *pad = self ? pte_k_arg_int_list(ctx, args, nargs, 1, &np) : NULL;
  if (!pad) return;
  pte_tensor *out = pte_k_arg_tensor(ctx, args, nargs, 2);
  if (!out) return;
  if (self->dtype != out->dtype)
    PTE_K_BAD("%s: out dtype %s differs from self dtype %s", op, pte_dtype_name(out->dtype), pte_dtype_name(self->dtype));
  if (!pte_k_dtype_supported(self->dtype)) PTE_K_BAD("%s: unsupported dtype %s", op, pte_dtype_name(self->dtype));
  if (np != (size_t)(2 * nd)) PTE_K_BAD("%s: padding must have %d entries, got %zu", op, (int)(2 * nd), np);
  int32_t n = self->dim;
  if (n != nd + 1 && n != nd + 2) PTE_K_BAD("%s: self must have rank %d or %d, got %d", op, (int)(nd + 1), (int)(nd + 2), (int)n);
  if (out->dim != n) PTE_K_BAD("%s: out has rank %d, expected %d", op, (int)out->dim, (int)n);
  if (!pte_k_check_data(ctx, self, "self")) return;
  int32_t osz[PTE_MAX_RANK];
  int64_t before[PTE_MAX_RANK] = {0};
  for (int32_t d = 0; d < n; d++) osz[d] = self->sizes[d];
  for (int32_t d = 0; d < n - nd; d++)
    if (self->sizes[d] == 0 && !(n == nd + 2 && d == 0))
      PTE_K_BAD("%s: self has an empty non-batch dimension %d", op, (int)d);
  for (int32_t q = 0; q < nd; q++) {
    int32_t d = n - 1 - q;
    int64_t lo = pad[2 * q], hi = pad[2 * q + 1], sz = self->sizes[d];
    if (sz == 0) PTE_K_BAD("%s: self dimension %d is empty", op, (int)d);
    if (lo < -INT32_MAX || lo > INT32_MAX || hi < -INT32_MAX || hi > INT32_MAX)
      PTE_K_BAD("%s: padding (%lld, %lld) out of range", op, (long long)lo, (long long)hi);
    if (reflect && (lo >= sz || hi >= sz || -lo >= sz || -hi >= sz))
      PTE_K_BAD("%s: padding (%lld, %lld) must be smaller than input dimension %d of size %lld", op, (long long)lo,
          (long long)hi, (int)d, (long long)sz);
    int64_t o = sz + lo + hi;
    if (o < 1 || o > INT32_MAX)
      PTE_K_BAD("%s: output size %lld of dimension %d is invalid (input %lld, padding %lld, %lld)", op, (long long)o,
          (int)d, (long long)sz, (long long)lo, (long long)hi);
    if (!reflect && (-lo >= sz || -hi >= sz))
      PTE_K_BAD("%s: padding (%lld, %lld) crops all of dimension %d", op, (long long)lo, (long long)hi, (int)d);
    osz[d] = (int32_t)o;
    before[d] = lo;
  }
  if (!pte_k_resize_out(ctx, out, osz, n)) return;
  if (out->numel > 0) {
    size_t es = pte_dtype_size(out->dtype);
    int64_t os[PTE_MAX_RANK];
    pte_ks_strides64(out, os);
    const int64_t *st[1] = {os};
    pte_ks_walk w;
    int32_t last = n - 1;
    int64_t ilast = self->sizes[last], olast = osz[last], sls = self->strides[last], ols = os[last];
    uint8_t *od = (uint8_t *)out->data;
    const uint8_t *sd = (const uint8_t *)self->data;
    if (pte_ks_walk_init(&w, osz, n, 1u << last, st, 1)) {
      do {
        int64_t soff = 0;
        for (int32_t d = 0; d < last; d++) {
          int64_t c = w.cnt[d];
          if (d >= n - nd) c = pad_map(c, before[d], self->sizes[d], reflect);
          soff += c * self->strides[d];
        }
        for (int64_t o = 0; o < olast; o++) {
          int64_t i = pad_map(o, before[last], ilast, reflect);
          memcpy(od + (w.off[0] + o * ols) * (int64_t)es, sd + (soff + i * sls) * (int64_t)es, es);
        }
      } while (pte_ks_walk_next(&w));
    }
  }
  pte_k_set_return(args, nargs, 2);
}

/* aten::reflection_pad{1,2,3}d.out(Tensor self, SymInt[2|4|6] padding, *, Tensor(a!) out) */
static void op_reflection_pad1d(pte_kernel_context *c, pte_evalue **a, size_t n) { pad_common(c, a, n, 1, true); }
static void op_reflection_pad2d(pte_kernel_context *c, pte_evalue **a, size_t n) { pad_common(c, a, n, 2, true); }
static void op_reflection_pad3d(pte_kernel_context *c, pte_evalue **a, size_t n) { pad_common(c, a, n, 3, true); }
/* aten::replication_pad{1,2,3}d.out(Tensor self, SymInt[2|4|6] padding, *, Tensor(a!) out) */
static void op_replication_pad1d(pte_kernel_context *c, pte_evalue **a, size_t n) { pad_common(c, a, n, 1, false); }
static void op_replication_pad2d(pte_kernel_context *c, pte_evalue **a, size_t n) { pad_common(c, a, n, 2, false); }
static void op_replication_pad3d(pte_kernel_context *c, pte_evalue **a, size_t n) { pad_common(c, a, n, 3, false); }

const pte_kernel pte_portable_pad_kernels[] = {
    {"aten::reflection_pad1d.out", NULL, op_reflection_pad1d},
    {"aten::reflection_pad2d.out", NULL, op_reflection_pad2d},
    {"aten::reflection_pad3d.out", NULL, op_reflection_pad3d},
    {"aten::replication_pad1d.out", NULL, op_replication_pad1d},
    {"aten::replication_pad2d.out", NULL, op_replication_pad2d},
    {"aten::replication_pad3d.out", NULL, op_replication_pad3d},
};
const size_t pte_portable_pad_kernels_count = sizeof pte_portable_pad_kernels / sizeof pte_portable_pad_kernels[0];
