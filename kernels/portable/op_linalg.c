/* Linear-algebra kernels: aten::mm.out, aten::addmm.out, aten::bmm.out, aten::linear.out.
 *
 * Every operand is addressed through (offset, row stride, column stride), so transposed or
 * otherwise non-contiguous 2-D operands need no copy. float32/float64 run the blocked GEMM of
 * util/kutil_nn.c; float16/bfloat16 are widened to float32 (temp memory; a direct loop when no temp
 * allocator is available) and rounded once on store; integer dtypes accumulate with two's
 * complement wrap-around as ATen does. As in ATen, all tensors must share one dtype and bool is
 * rejected.
 */
#include <string.h>

#include "portable/portable_nn.h"
#include "portable/util/kutil.h"
#include "portable/util/kutil_nn.h"

typedef struct nn_mat {
  void *data;
  int64_t off; /* element offset of (0,0) */
  int64_t rs;  /* row stride (elements) */
  int64_t cs;  /* column stride (elements) */
} nn_mat;

/* ---- dtype checks ------------------------------------------------------------------------- */

/* All tensors share out's dtype and it is one ATen's matmul accepts. */
static bool check_dtypes(pte_kernel_context *ctx, const pte_tensor *const *ts, size_t n) {
  int dt = ts[0]->dtype;
  for (size_t i = 1; i < n; i++) {
    if (ts[i] && ts[i]->dtype != dt) {
      pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "dtype mismatch: %s vs %s", pte_dtype_name(dt),
                      pte_dtype_name(ts[i]->dtype));
      return false;
    }
  }
  if (dt == PTE_DTYPE_BOOL) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "matrix multiply is not defined for bool");
    return false;
  }
  if (!pte_k_is_floating(dt) && !pte_k_is_integral(dt)) {
    pte_kernel_fail(ctx, PTE_ERR_NOT_SUPPORTED, "dtype %s not supported", pte_dtype_name(dt));
    return false;
  }
  return true;
}

/* ts[0] is out (already checked by the resize); the others are inputs. */
static bool check_all_data(pte_kernel_context *ctx, const pte_tensor *const *ts, size_t n) {
  for (size_t i = 1; i < n; i++)
    if (ts[i] && !pte_k_check_data(ctx, ts[i], "input")) return false;
  return true;
}

/* ---- multiply engine ---------------------------------------------------------------------- */

typedef struct cvt_pack_ctx {
  const void *data;
  int dtype;
  int64_t off, rs, cs;
} cvt_pack_ctx;

/* Packs a KC x NR panel of a half/bfloat16 matrix widened to float. */
static void pack_cvt_f32(void *vctx, int64_t k0, int64_t kc, int64_t j0, int64_t nr, float *bp) {
  const cvt_pack_ctx *c = (const cvt_pack_ctx *)vctx;
  for (int64_t k = 0; k < kc; k++) {
    float *dst = bp + k * PTE_NN_NR_F32;
    int64_t base = c->off + (k0 + k) * c->rs + j0 * c->cs;
    int64_t j = 0;
    for (; j < nr; j++) dst[j] = (float)pte_k_load_double(c->data, c->dtype, base + j * c->cs);
    for (; j < PTE_NN_NR_F32; j++) dst[j] = 0.0f;
  }
}

static void matmul_naive_float(int dt, int64_t M, int64_t N, int64_t K, nn_mat A, nn_mat B,
                               nn_mat C, double alpha, bool acc) {
  for (int64_t i = 0; i < M; i++) {
    for (int64_t j = 0; j < N; j++) {
      double s = 0.0;
      for (int64_t k = 0; k < K; k++)
        s += pte_k_load_double(A.data, dt, A.off + i * A.rs + k * A.cs) *
             pte_k_load_double(B.data, dt, B.off + k * B.rs + j * B.cs);
      int64_t co = C.off + i * C.rs + j * C.cs;
      double c = acc ? pte_k_load_double(C.data, dt, co) : 0.0;
      pte_k_store_double(C.data, dt, co, c + alpha * s);
    }
  }
}

static void matmul_int(int dt, int64_t M, int64_t N, int64_t K, nn_mat A, nn_mat B, nn_mat C,
                       int64_t alpha, bool acc) {
  for (int64_t i = 0; i < M; i++) {
    for (int64_t j = 0; j < N; j++) {
      uint64_t s = 0;
      for (int64_t k = 0; k < K; k++)
        s += (uint64_t)pte_k_load_int64(A.data, dt, A.off + i * A.rs + k * A.cs) *
             (uint64_t)pte_k_load_int64(B.data, dt, B.off + k * B.rs + j * B.cs);
      int64_t co = C.off + i * C.rs + j * C.cs;
      uint64_t c = acc ? (uint64_t)pte_k_load_int64(C.data, dt, co) : 0u;
      pte_k_store_int64(C.data, dt, co, pte_k_wrap_u64(c + (uint64_t)alpha * s));
    }
  }
}

/* half/bfloat16 through float32 temp buffers; false if temp memory is unavailable. */
static bool matmul_half_via_f32(pte_kernel_context *ctx, int dt, int64_t M, int64_t N, int64_t K,
                                nn_mat A, nn_mat B, nn_mat C, float alpha, bool acc) {
  if ((uint64_t)M * (uint64_t)K > SIZE_MAX / 8 || (uint64_t)M * (uint64_t)N > SIZE_MAX / 8)
    return false;
  float *af = (float *)pte_kernel_alloc_temp(ctx, (size_t)(M * K) * sizeof(float), 64);
  float *cf = (float *)pte_kernel_alloc_temp(ctx, (size_t)(M * N) * sizeof(float), 64);
  if (!af || !cf) return false;
  for (int64_t i = 0; i < M; i++)
    for (int64_t k = 0; k < K; k++)
      af[i * K + k] = (float)pte_k_load_double(A.data, dt, A.off + i * A.rs + k * A.cs);
  if (acc)
    for (int64_t i = 0; i < M; i++)
      for (int64_t j = 0; j < N; j++)
        cf[i * N + j] = (float)pte_k_load_double(C.data, dt, C.off + i * C.rs + j * C.cs);
  cvt_pack_ctx pc = {B.data, dt, B.off, B.rs, B.cs};
  pte_nn_gemm_f32(M, N, K, alpha, af, K, 1, NULL, 0, 0, pack_cvt_f32, &pc, cf, N, 1, acc);
  for (int64_t i = 0; i < M; i++)
    for (int64_t j = 0; j < N; j++)
      pte_k_store_double(C.data, dt, C.off + i * C.rs + j * C.cs, (double)cf[i * N + j]);
  return true;
}

/* C = (acc ? C : 0) + alpha * A @ B, every operand of dtype dt. */
static void matmul(pte_kernel_context *ctx, int dt, int64_t M, int64_t N, int64_t K, nn_mat A,
                   nn_mat B, nn_mat C, double alpha, int64_t ialpha, bool acc) {
  if (M <= 0 || N <= 0) return;
  switch (dt) {
    case PTE_DTYPE_FLOAT:
      pte_nn_gemm_f32(M, N, K, (float)alpha, (const float *)A.data + A.off, A.rs, A.cs,
                      (const float *)B.data + B.off, B.rs, B.cs, NULL, NULL,
                      (float *)C.data + C.off, C.rs, C.cs, acc);
      return;
    case PTE_DTYPE_DOUBLE:
      pte_nn_gemm_f64(M, N, K, alpha, (const double *)A.data + A.off, A.rs, A.cs,
                      (const double *)B.data + B.off, B.rs, B.cs, NULL, NULL,
                      (double *)C.data + C.off, C.rs, C.cs, acc);
      return;
    case PTE_DTYPE_HALF:
    case PTE_DTYPE_BFLOAT16: {
      size_t mark = ctx->temp ? ctx->temp->used : 0;
      bool ok = matmul_half_via_f32(ctx, dt, M, N, K, A, B, C, (float)alpha, acc);
      if (ctx->temp) ctx->temp->used = mark; /* give the scratch back for the next batch */
      if (!ok) matmul_naive_float(dt, M, N, K, A, B, C, alpha, acc);
      return;
    }
    default:
      matmul_int(dt, M, N, K, A, B, C, ialpha, acc);
      return;
  }
}

/* C[i,j] = beta * bias[i*bi + j*bj] (bias has C's dtype; strides 0 broadcast). */
static void fill_bias(int dt, int64_t M, int64_t N, nn_mat C, const void *bias, int64_t boff,
                      int64_t bi, int64_t bj, double beta, int64_t ibeta) {
  if (dt == PTE_DTYPE_FLOAT) {
    float *c = (float *)C.data + C.off;
    const float *b = (const float *)bias + boff;
    float fb = (float)beta;
    for (int64_t i = 0; i < M; i++)
      for (int64_t j = 0; j < N; j++) c[i * C.rs + j * C.cs] = fb * b[i * bi + j * bj];
    return;
  }
  for (int64_t i = 0; i < M; i++) {
    for (int64_t j = 0; j < N; j++) {
      int64_t co = C.off + i * C.rs + j * C.cs, bo = boff + i * bi + j * bj;
      if (pte_k_is_floating(dt)) {
        pte_k_store_double(C.data, dt, co, beta * pte_k_load_double(bias, dt, bo));
      } else {
        uint64_t v = (uint64_t)ibeta * (uint64_t)pte_k_load_int64(bias, dt, bo);
        pte_k_store_int64(C.data, dt, co, pte_k_wrap_u64(v));
      }
    }
  }
}

static nn_mat mat2d(pte_tensor *t) {
  nn_mat m = {t->data, 0, t->strides[0], t->strides[1]};
  return m;
}

/* Reads an alpha/beta Scalar for dtype dt (integral tensors reject floating-point scalars). */
static bool read_scalar(pte_kernel_context *ctx, pte_evalue **args, size_t nargs, size_t i, int dt,
                        const char *what, double *d, int64_t *iv) {
  if (!pte_k_arg_is_scalar(args, nargs, i)) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "%s: expected a scalar", what);
    return false;
  }
  if (pte_k_is_integral(dt)) {
    if (args[i]->tag == PTE_TAG_DOUBLE) {
      pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT,
                      "%s must not be a floating point number for integral tensors", what);
      return false;
    }
    if (!pte_k_arg_int(ctx, args, nargs, i, iv)) return false;
    *d = (double)*iv;
    return true;
  }
  if (!pte_k_arg_double(ctx, args, nargs, i, d)) return false;
  *iv = 0;
  return true;
}

/* ---- aten::mm.out(Tensor self, Tensor mat2, *, Tensor(a!) out) ---------------------------- */

static void op_mm(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  if (!pte_k_check_nargs(ctx, nargs, 3, 4)) return;
  pte_tensor *a = pte_k_arg_tensor(ctx, args, nargs, 0);
  pte_tensor *b = pte_k_arg_tensor(ctx, args, nargs, 1);
  pte_tensor *out = pte_k_arg_tensor(ctx, args, nargs, 2);
  if (!a || !b || !out) return;
  if (a->dim != 2 || b->dim != 2) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "mm: expected 2-D tensors, got %d-D and %d-D",
                    (int)a->dim, (int)b->dim);
    return;
  }
  if (a->sizes[1] != b->sizes[0]) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "mm: shapes [%d,%d] and [%d,%d] mismatch",
                    (int)a->sizes[0], (int)a->sizes[1], (int)b->sizes[0], (int)b->sizes[1]);
    return;
  }
  const pte_tensor *ts[] = {out, a, b};
  if (!check_dtypes(ctx, ts, 3)) return;
  int32_t osz[2] = {a->sizes[0], b->sizes[1]};
  if (!pte_k_resize_out(ctx, out, osz, 2)) return;
  if (!check_all_data(ctx, ts, 3)) return;
  matmul(ctx, out->dtype, a->sizes[0], b->sizes[1], a->sizes[1], mat2d(a), mat2d(b), mat2d(out),
         1.0, 1, false);
  pte_k_set_return(args, nargs, 2);
}

/* ---- aten::addmm.out(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1,
 *      Tensor(a!) out) ------------------------------------------------------------------------ */

/* Broadcast strides of a <=2-D tensor against [M, N]; false if not broadcastable. */
static bool bias_strides(const pte_tensor *t, int64_t M, int64_t N, int64_t *bi, int64_t *bj) {
  *bi = *bj = 0;
  if (t->dim > 2) return false;
  if (t->dim >= 1) {
    int32_t s = t->sizes[t->dim - 1];
    if (s != N && s != 1) return false;
    *bj = s == 1 ? 0 : t->strides[t->dim - 1];
  }
  if (t->dim == 2) {
    int32_t s = t->sizes[0];
    if (s != M && s != 1) return false;
    *bi = s == 1 ? 0 : t->strides[0];
  }
  return true;
}

static void op_addmm(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  if (!pte_k_check_nargs(ctx, nargs, 6, 7)) return;
  pte_tensor *self = pte_k_arg_tensor(ctx, args, nargs, 0);
  pte_tensor *a = pte_k_arg_tensor(ctx, args, nargs, 1);
  pte_tensor *b = pte_k_arg_tensor(ctx, args, nargs, 2);
  pte_tensor *out = pte_k_arg_tensor(ctx, args, nargs, 5);
  if (!self || !a || !b || !out) return;
  if (a->dim != 2 || b->dim != 2) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "addmm: expected 2-D mat1/mat2, got %d-D and %d-D",
                    (int)a->dim, (int)b->dim);
    return;
  }
  if (a->sizes[1] != b->sizes[0]) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "addmm: shapes [%d,%d] and [%d,%d] mismatch",
                    (int)a->sizes[0], (int)a->sizes[1], (int)b->sizes[0], (int)b->sizes[1]);
    return;
  }
  const int64_t M = a->sizes[0], N = b->sizes[1], K = a->sizes[1];
  int64_t bi, bj;
  if (!bias_strides(self, M, N, &bi, &bj)) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "addmm: self is not broadcastable to [%d,%d]",
                    (int)M, (int)N);
    return;
  }
  const pte_tensor *ts[] = {out, self, a, b};
  if (!check_dtypes(ctx, ts, 4)) return;
  double beta, alpha;
  int64_t ibeta, ialpha;
  if (!read_scalar(ctx, args, nargs, 3, out->dtype, "beta", &beta, &ibeta)) return;
  if (!read_scalar(ctx, args, nargs, 4, out->dtype, "alpha", &alpha, &ialpha)) return;
  int32_t osz[2] = {(int32_t)M, (int32_t)N};
  if (!pte_k_resize_out(ctx, out, osz, 2)) return;
  if (!check_all_data(ctx, ts, 4)) return;
  nn_mat C = mat2d(out);
  /* beta == 0: self is ignored entirely (NaN/inf in it do not propagate), as ATen does. */
  bool use_self = pte_k_is_integral(out->dtype) ? ibeta != 0 : beta != 0.0;
  if (use_self && M > 0 && N > 0) fill_bias(out->dtype, M, N, C, self->data, 0, bi, bj, beta, ibeta);
  matmul(ctx, out->dtype, M, N, K, mat2d(a), mat2d(b), C, alpha, ialpha, use_self);
  pte_k_set_return(args, nargs, 5);
}

/* ---- aten::bmm.out(Tensor self, Tensor mat2, *, Tensor(a!) out) --------------------------- */

static void op_bmm(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  if (!pte_k_check_nargs(ctx, nargs, 3, 4)) return;
  pte_tensor *a = pte_k_arg_tensor(ctx, args, nargs, 0);
  pte_tensor *b = pte_k_arg_tensor(ctx, args, nargs, 1);
  pte_tensor *out = pte_k_arg_tensor(ctx, args, nargs, 2);
  if (!a || !b || !out) return;
  if (a->dim != 3 || b->dim != 3) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "bmm: expected 3-D tensors, got %d-D and %d-D",
                    (int)a->dim, (int)b->dim);
    return;
  }
  if (a->sizes[0] != b->sizes[0] || a->sizes[2] != b->sizes[1]) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "bmm: shapes [%d,%d,%d] and [%d,%d,%d] mismatch",
                    (int)a->sizes[0], (int)a->sizes[1], (int)a->sizes[2], (int)b->sizes[0],
                    (int)b->sizes[1], (int)b->sizes[2]);
    return;
  }
  const pte_tensor *ts[] = {out, a, b};
  if (!check_dtypes(ctx, ts, 3)) return;
  int32_t osz[3] = {a->sizes[0], a->sizes[1], b->sizes[2]};
  if (!pte_k_resize_out(ctx, out, osz, 3)) return;
  if (!check_all_data(ctx, ts, 3)) return;
  for (int64_t i = 0; i < a->sizes[0]; i++) {
    nn_mat A = {a->data, i * a->strides[0], a->strides[1], a->strides[2]};
    nn_mat B = {b->data, i * b->strides[0], b->strides[1], b->strides[2]};
    nn_mat C = {out->data, i * out->strides[0], out->strides[1], out->strides[2]};
    matmul(ctx, out->dtype, a->sizes[1], b->sizes[2], a->sizes[2], A, B, C, 1.0, 1, false);
  }
  pte_k_set_return(args, nargs, 2);
}

/* ---- aten::linear.out(Tensor input, Tensor weight, Tensor? bias=None, *, Tensor(a!) out) --- */

/* True if dims [0, n) of t collapse into one dimension; *stride receives its stride. */
static bool leading_collapsible(const pte_tensor *t, int32_t n, int64_t *stride) {
  int32_t prev = -1;
  *stride = 0;
  for (int32_t d = 0; d < n; d++) {
    if (t->sizes[d] == 1) continue;
    if (prev >= 0 && (int64_t)t->strides[prev] != (int64_t)t->strides[d] * t->sizes[d]) return false;
    prev = d;
    *stride = t->strides[d];
  }
  return true;
}

static void op_linear(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  if (!pte_k_check_nargs(ctx, nargs, 4, 5)) return;
  pte_tensor *in = pte_k_arg_tensor(ctx, args, nargs, 0);
  pte_tensor *w = pte_k_arg_tensor(ctx, args, nargs, 1);
  bool ok;
  pte_tensor *bias = pte_k_arg_opt_tensor(ctx, args, nargs, 2, &ok);
  pte_tensor *out = pte_k_arg_tensor(ctx, args, nargs, 3);
  if (!in || !w || !ok || !out) return;
  if (in->dim < 1 || w->dim != 2) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "linear: expected input >= 1-D and 2-D weight");
    return;
  }
  const int64_t K = in->sizes[in->dim - 1], N = w->sizes[0];
  if (w->sizes[1] != K) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "linear: input features %d != weight [%d,%d]",
                    (int)K, (int)w->sizes[0], (int)w->sizes[1]);
    return;
  }
  int64_t bj = 0;
  if (bias) {
    bool bok = bias->dim == 0 || (bias->dim == 1 && (bias->sizes[0] == N || bias->sizes[0] == 1));
    if (!bok) {
      pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "linear: bias must have %d elements", (int)N);
      return;
    }
    if (bias->dim == 1 && bias->sizes[0] != 1) bj = bias->strides[0];
  }
  const pte_tensor *ts[] = {out, in, w, bias};
  if (!check_dtypes(ctx, ts, 4)) return;
  int32_t osz[PTE_MAX_RANK];
  for (int32_t d = 0; d < in->dim; d++) osz[d] = in->sizes[d];
  osz[in->dim - 1] = (int32_t)N;
  if (!pte_k_resize_out(ctx, out, osz, in->dim)) return;
  if (!check_all_data(ctx, ts, 4)) return;
  /* B = weight^T */
  nn_mat B = {w->data, 0, w->strides[1], w->strides[0]};
  const int32_t lead = in->dim - 1; /* leading (row) dims */
  int64_t rows = 1;
  for (int32_t d = 0; d < lead; d++) rows *= in->sizes[d];
  if (rows == 0 || N == 0) {
    pte_k_set_return(args, nargs, 3);
    return;
  }
  /* Batches of rows: one call when the leading dims collapse in both input and out, else one
   * call per index of the dims before the last leading dim. */
  int32_t nb = 0; /* leading dims enumerated explicitly */
  int64_t M = 1, in_rs = 0, out_rs = 0;
  if (lead > 0) {
    if (leading_collapsible(in, lead, &in_rs) && leading_collapsible(out, lead, &out_rs)) {
      M = rows;
    } else {
      nb = lead - 1;
      M = in->sizes[lead - 1];
      in_rs = in->strides[lead - 1];
      out_rs = out->strides[lead - 1];
    }
  }
  int64_t nbatch = rows / M;
  for (int64_t bidx = 0; bidx < nbatch; bidx++) {
    int64_t rem = bidx, ioff = 0, ooff = 0;
    for (int32_t d = nb - 1; d >= 0; d--) {
      int64_t c = rem % in->sizes[d];
      rem /= in->sizes[d];
      ioff += c * in->strides[d];
      ooff += c * out->strides[d];
    }
    nn_mat A = {in->data, ioff, in_rs, in->strides[in->dim - 1]};
    nn_mat C = {out->data, ooff, out_rs, out->strides[out->dim - 1]};
    if (bias) fill_bias(out->dtype, M, N, C, bias->data, 0, 0, bj, 1.0, 1);
    matmul(ctx, out->dtype, M, N, K, A, B, C, 1.0, 1, bias != NULL);
  }
  pte_k_set_return(args, nargs, 3);
}

const pte_kernel pte_portable_linalg_kernels[] = {
    {"aten::mm.out", NULL, op_mm},
    {"aten::addmm.out", NULL, op_addmm},
    {"aten::bmm.out", NULL, op_bmm},
    {"aten::linear.out", NULL, op_linear},
};
const size_t pte_portable_linalg_kernels_count =
    sizeof pte_portable_linalg_kernels / sizeof pte_portable_linalg_kernels[0];
