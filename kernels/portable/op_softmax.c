/* Softmax kernels: aten::_softmax.out and aten::_log_softmax.out
 *   (Tensor self, int dim, bool half_to_float, *, Tensor(a!) out).
 *
 * Numerically stable: every row along `dim` is shifted by its maximum before exponentiation, and
 * the sum is accumulated in double. Any dim and any dim order (rows are walked with strides);
 * a float32 row with unit stride takes a direct pointer loop. Floating dtypes only (ATen rejects
 * integers). half_to_float=true reads a float16/bfloat16 input and writes a float32 out.
 */
#include <math.h>

#include "portable/portable_nn.h"
#include "portable/util/kutil.h"
#include "portable/util/kutil_nn.h"

/* Offsets of row r (all dims but `dim`, logical row-major order) in a and b. */
static void row_offsets(const pte_tensor *a, const pte_tensor *b, int32_t dim, int64_t r,
                        int64_t *oa, int64_t *ob) {
  int64_t offa = 0, offb = 0;
  for (int32_t d = a->dim - 1; d >= 0; d--) {
    if (d == dim) continue;
    int64_t s = a->sizes[d];
    int64_t c = r % s;
    r /= s;
    offa += c * a->strides[d];
    offb += c * b->strides[d];
  }
  *oa = offa;
  *ob = offb;
}

static void softmax_row_f32(const float *x, int64_t sx, float *y, int64_t sy, int64_t n, bool is_log) {
  float mx = -INFINITY;
  for (int64_t t = 0; t < n; t++) {
    float v = x[t * sx];
    if (v > mx || isnan(v)) mx = v;
  }
  double sum = 0.0;
  if (is_log) {
    for (int64_t t = 0; t < n; t++) sum += (double)expf(x[t * sx] - mx);
    float lse = (float)log(sum);
    for (int64_t t = 0; t < n; t++) y[t * sy] = (x[t * sx] - mx) - lse;
  } else {
    for (int64_t t = 0; t < n; t++) {
      float e = expf(x[t * sx] - mx);
      y[t * sy] = e; /* y may alias x: x[t] is not read again */
      sum += (double)e;
    }
    float inv = (float)(1.0 / sum);
    for (int64_t t = 0; t < n; t++) y[t * sy] *= inv;
  }
}

static void softmax_row_any(const void *x, int xdt, int64_t ox, int64_t sx, void *y, int ydt,
                            int64_t oy, int64_t sy, int64_t n, bool is_log) {
  double mx = -INFINITY;
  for (int64_t t = 0; t < n; t++) {
    double v = pte_k_load_double(x, xdt, ox + t * sx);
    if (v > mx || isnan(v)) mx = v;
  }
  double sum = 0.0;
  for (int64_t t = 0; t < n; t++) sum += exp(pte_k_load_double(x, xdt, ox + t * sx) - mx);
  if (is_log) {
    double lse = log(sum);
    for (int64_t t = 0; t < n; t++)
      pte_k_store_double(y, ydt, oy + t * sy, (pte_k_load_double(x, xdt, ox + t * sx) - mx) - lse);
  } else {
    for (int64_t t = 0; t < n; t++)
      pte_k_store_double(y, ydt, oy + t * sy, exp(pte_k_load_double(x, xdt, ox + t * sx) - mx) / sum);
  }
}

static void softmax_common(pte_kernel_context *ctx, pte_evalue **args, size_t nargs, bool is_log) {
  if (!pte_k_check_nargs(ctx, nargs, 4, 5)) return;
  pte_tensor *in = pte_k_arg_tensor(ctx, args, nargs, 0);
  int64_t dim;
  bool h2f;
  if (!in || !pte_k_arg_int(ctx, args, nargs, 1, &dim) || !pte_k_arg_bool(ctx, args, nargs, 2, &h2f))
    return;
  pte_tensor *out = pte_k_arg_tensor(ctx, args, nargs, 3);
  if (!out) return;
  if (!pte_k_is_floating(in->dtype)) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "softmax: expected a floating input, got %s",
                    pte_dtype_name(in->dtype));
    return;
  }
  if (h2f) {
    if ((in->dtype != PTE_DTYPE_HALF && in->dtype != PTE_DTYPE_BFLOAT16) ||
        out->dtype != PTE_DTYPE_FLOAT) {
      pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT,
                      "softmax: half_to_float needs a half/bfloat16 input and a float32 out");
      return;
    }
  } else if (out->dtype != in->dtype) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "softmax: out dtype %s != input dtype %s",
                    pte_dtype_name(out->dtype), pte_dtype_name(in->dtype));
    return;
  }
  int32_t rank = in->dim;
  int64_t lim = rank > 0 ? rank : 1;
  if (dim < -lim || dim >= lim) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "softmax: dim %lld out of range for rank %d",
                    (long long)dim, (int)rank);
    return;
  }
  if (dim < 0) dim += lim;
  if (!pte_k_resize_like(ctx, out, in)) return;
  if (!pte_k_check_data(ctx, in, "self")) return;
  if (in->numel == 0) {
    pte_k_set_return(args, nargs, 3);
    return;
  }
  int64_t n = rank > 0 ? in->sizes[dim] : 1;
  int64_t sx = rank > 0 ? in->strides[dim] : 1, sy = rank > 0 ? out->strides[dim] : 1;
  int64_t rows = (int64_t)in->numel / n;
  for (int64_t r = 0; r < rows; r++) {
    int64_t ox = 0, oy = 0;
    if (rank > 0) row_offsets(in, out, (int32_t)dim, r, &ox, &oy);
    if (in->dtype == PTE_DTYPE_FLOAT && out->dtype == PTE_DTYPE_FLOAT)
      softmax_row_f32((const float *)in->data + ox, sx, (float *)out->data + oy, sy, n, is_log);
    else
      softmax_row_any(in->data, in->dtype, ox, sx, out->data, out->dtype, oy, sy, n, is_log);
  }
  pte_k_set_return(args, nargs, 3);
}

static void op_softmax(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  softmax_common(ctx, args, nargs, false);
}

static void op_log_softmax(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  softmax_common(ctx, args, nargs, true);
}

const pte_kernel pte_portable_softmax_kernels[] = {
    {"aten::_softmax.out", NULL, op_softmax},
    {"aten::_log_softmax.out", NULL, op_log_softmax},
};
const size_t pte_portable_softmax_kernels_count =
    sizeof pte_portable_softmax_kernels / sizeof pte_portable_softmax_kernels[0];
