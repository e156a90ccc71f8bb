/* cortex_m int8 data-movement kernels (CMSIS-NN arm_transpose_s8 / arm_pad_s8):
 *
 *   cortex_m::transpose.out(Tensor input, int[] perm, *, Tensor(a!) out)
 *     out = input.permute(perm): out.sizes[k] = input.sizes[perm[k]] (rank 1..4).
 *   cortex_m::pad.out(Tensor input, int[] pre_pad, int[] post_pad, int pad_value, *,
 *       Tensor(a!) out)
 *     Constant padding of a rank 1..4 tensor. pre_pad / post_pad have 4 entries in CMSIS
 *     (n, h, w, c) slots, right-aligned to the tensor rank and given in MEMORY order: for a
 *     contiguous tensor that is the logical order, for a channels-last 4-D tensor it is
 *     (N, H, W, C) — as the cortex_m lowering produces them. pad_value is stored as int8 (low 8
 *     bits, like the reference's static_cast).
 *
 * Both read and write through strides, so any dim order works.
 */
#include "cortex_m/cm_internal.h"
#include "cortex_m/cm_ops.h"
#include "portable/util/kutil.h"

static void cm_transpose(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  if (!pte_cm_check_nargs(ctx, nargs, 3)) return;
  pte_tensor *in = pte_cm_tensor_of(ctx, args, nargs, 0, PTE_DTYPE_CHAR, "input");
  pte_tensor *out = pte_cm_tensor_of(ctx, args, nargs, 2, PTE_DTYPE_CHAR, "out");
  if (!in || !out) return;
  const int32_t r = in->dim;
  if (r < 1 || r > 4) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "transpose supports rank 1..4, got %d", (int)r);
    return;
  }
  int64_t perm[4];
  if (!pte_cm_int_list_n(ctx, args, nargs, 1, (size_t)r, 0, r - 1, perm, "perm")) return;
  bool seen[4] = {false, false, false, false};
  for (int32_t k = 0; k < r; k++) {
    if (seen[perm[k]]) {
      pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "perm is not a permutation");
      return;
    }
    seen[perm[k]] = true;
  }
  int32_t osz[4];
  for (int32_t k = 0; k < r; k++) osz[k] = in->sizes[perm[k]];
  if (!pte_cm_resize(ctx, out, osz, r)) return;
  /* view of the input with the output's index space: stride of out dim k = in stride of perm[k] */
  int64_t istr[4] = {0, 0, 0, 0}, ostr[4] = {0, 0, 0, 0}, sz[4] = {1, 1, 1, 1};
  for (int32_t k = 0; k < r; k++) {
    sz[4 - r + k] = osz[k];
    istr[4 - r + k] = in->strides[perm[k]];
    ostr[4 - r + k] = out->strides[k];
  }
  const int8_t *src = (const int8_t *)in->data;
  int8_t *dst = (int8_t *)out->data;
  for (int64_t a = 0; a < sz[0]; a++)
    for (int64_t b = 0; b < sz[1]; b++)
      for (int64_t c = 0; c < sz[2]; c++) {
        const int8_t *s = src + a * istr[0] + b * istr[1] + c * istr[2];
        int8_t *d = dst + a * ostr[0] + b * ostr[1] + c * ostr[2];
        for (int64_t e = 0; e < sz[3]; e++) d[e * ostr[3]] = s[e * istr[3]];
      }
  pte_cm_set_return(args, nargs, 2);
}

static void cm_pad(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  if (!pte_cm_check_nargs(ctx, nargs, 5)) return;
  pte_tensor *in = pte_cm_tensor_of(ctx, args, nargs, 0, PTE_DTYPE_CHAR, "input");
  pte_tensor *out = pte_cm_tensor_of(ctx, args, nargs, 4, PTE_DTYPE_CHAR, "out");
  if (!in || !out) return;
  const int32_t r = in->dim;
  if (r < 1 || r > 4) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "pad supports rank 1..4, got %d", (int)r);
    return;
  }
  int64_t pre[4], post[4], value;
  if (!pte_cm_int_list_n(ctx, args, nargs, 1, 4, 0, INT32_MAX, pre, "pre_pad") ||
      !pte_cm_int_list_n(ctx, args, nargs, 2, 4, 0, INT32_MAX, post, "post_pad") ||
      !pte_k_arg_int(ctx, args, nargs, 3, &value))
    return;
  const int8_t pv = (int8_t)(uint8_t)((uint64_t)value & 0xFFu);
  /* memory position p of the tensor holds logical dim dim_order[p]; its pads are slot 4-r+p */
  for (int32_t k = 0; k < 4 - r; k++) {
    if (pre[k] != 0 || post[k] != 0) {
      pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT,
                      "padding given for dimensions the rank-%d input does not have", (int)r);
      return;
    }
  }
  int64_t lpre[4] = {0, 0, 0, 0}, lpost[4] = {0, 0, 0, 0};
  for (int32_t p = 0; p < r; p++) {
    const int d = in->dim_order ? in->dim_order[p] : p;
    if (d < 0 || d >= r) {
      pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "input has an invalid dim_order");
      return;
    }
    lpre[d] = pre[4 - r + p];
    lpost[d] = post[4 - r + p];
  }
  int32_t osz[4];
  for (int32_t d = 0; d < r; d++) {
    const int64_t s = (int64_t)in->sizes[d] + lpre[d] + lpost[d];
    if (s > INT32_MAX) {
      pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "padded size too large");
      return;
    }
    osz[d] = (int32_t)s;
  }
  if (!pte_cm_resize(ctx, out, osz, r)) return;
  int64_t sz[4] = {1, 1, 1, 1}, ostr[4] = {0, 0, 0, 0}, istr[4] = {0, 0, 0, 0};
  int64_t isz[4] = {1, 1, 1, 1}, ipre[4] = {0, 0, 0, 0};
  for (int32_t d = 0; d < r; d++) {
    sz[4 - r + d] = osz[d];
    ostr[4 - r + d] = out->strides[d];
    istr[4 - r + d] = in->strides[d];
    isz[4 - r + d] = in->sizes[d];
    ipre[4 - r + d] = lpre[d];
  }
  const int8_t *src = (const int8_t *)in->data;
  int8_t *dst = (int8_t *)out->data;
  int64_t idx[4];
  for (idx[0] = 0; idx[0] < sz[0]; idx[0]++)
    for (idx[1] = 0; idx[1] < sz[1]; idx[1]++)
      for (idx[2] = 0; idx[2] < sz[2]; idx[2]++)
        for (idx[3] = 0; idx[3] < sz[3]; idx[3]++) {
          int64_t so = 0, si = 0;
          bool inside = true;
          for (int k = 0; k < 4; k++) {
            const int64_t ii = idx[k] - ipre[k];
            if (ii < 0 || ii >= isz[k]) inside = false;
            so += idx[k] * ostr[k];
            si += ii * istr[k];
          }
          dst[so] = inside ? src[si] : pv;
        }
  pte_cm_set_return(args, nargs, 4);
}

const pte_kernel pte_cm_shape_kernels[] = {
    {"cortex_m::transpose.out", NULL, cm_transpose},
    {"cortex_m::pad.out", NULL, cm_pad},
};
const size_t pte_cm_shape_kernels_count =
    sizeof pte_cm_shape_kernels / sizeof pte_cm_shape_kernels[0];
