/* Helpers for the linear-algebra / NN kernel families: blocked GEMM and multi-output returns. */
#include "portable/util/kutil_nn.h"

#include <string.h>

/* GCC at -O2 vectorises the micro-kernel's j loop but keeps the accumulator tile in memory; -O3's
 * complete unrolling after vectorisation keeps it in registers (about 2x faster: 24 -> 46 GFLOP/s
 * for 512x512 float32 with SSE2). The pragma is standard C (ignored by other compilers). */
#if defined(__GNUC__) && !defined(__clang__) && defined(__OPTIMIZE__) && !defined(__OPTIMIZE_SIZE__)
#pragma GCC optimize("O3")
#endif

#include "portable/util/kutil.h"

/* The multiply walks K in blocks of PTE_NN_KC and N in panels of NR columns. Each panel of B
 * (KC x NR) is packed into a small aligned stack block that stays in L1; the micro-kernel then
 * keeps a MR x NR tile of C in local accumulators (fixed trip counts, so the compiler turns the
 * j loop into vector multiply-adds) while it streams MR rows of A. */
#define PTE_NN_MR 4

#define PTE_NN_DEFINE_GEMM(NAME, T, NR, PACKFN)                                                   \
  static void NAME##_pack_default(const T *B, int64_t rsb, int64_t csb, int64_t k0, int64_t kc,    \
                                  int64_t j0, int64_t nr, T *bp) {                                 \
    for (int64_t k = 0; k < kc; k++) {                                                             \
      const T *src = B + (k0 + k) * rsb + j0 * csb;                                                \
      T *dst = bp + k * NR;                                                                        \
      int64_t j = 0;                                                                               \
      if (csb == 1) {                                                                              \
        for (; j < nr; j++) dst[j] = src[j];                                                       \
      } else {                                                                                     \
        for (; j < nr; j++) dst[j] = src[j * csb];                                                 \
      }                                                                                            \
      for (; j < NR; j++) dst[j] = (T)0;                                                           \
    }                                                                                              \
  }                                                                                                \
                                                                                                   \
  static void NAME##_micro4(int64_t kc, const T *a, int64_t rsa, int64_t csa, const T *bp,        \
                            T acc[PTE_NN_MR][NR]) {                                                \
    T c0[NR], c1[NR], c2[NR], c3[NR];                                                              \
    for (int j = 0; j < NR; j++) c0[j] = c1[j] = c2[j] = c3[j] = (T)0;                             \
    const T *a0 = a, *a1 = a + rsa, *a2 = a + 2 * rsa, *a3 = a + 3 * rsa;                          \
    for (int64_t k = 0; k < kc; k++) {                                                             \
      const T *b = bp + k * NR;                                                                    \
      const T x0 = a0[k * csa], x1 = a1[k * csa], x2 = a2[k * csa], x3 = a3[k * csa];              \
      for (int j = 0; j < NR; j++) {                                                               \
        c0[j] += x0 * b[j];                                                                        \
        c1[j] += x1 * b[j];                                                                        \
        c2[j] += x2 * b[j];                                                                        \
        c3[j] += x3 * b[j];                                                                        \
      }                                                                                            \
    }                                                                                              \
    memcpy(acc[0], c0, sizeof c0);                                                                 \
    memcpy(acc[1], c1, sizeof c1);                                                                 \
    memcpy(acc[2], c2, sizeof c2);                                                                 \
    memcpy(acc[3], c3, sizeof c3);                                                                 \
  }                                                                                                \
                                                                                                   \
  static void NAME##_micro1(int64_t kc, const T *a, int64_t csa, const T *bp, T *acc) {            \
    T c0[NR];                                                                                      \
    for (int j = 0; j < NR; j++) c0[j] = (T)0;                                                     \
    for (int64_t k = 0; k < kc; k++) {                                                             \
      const T *b = bp + k * NR;                                                                    \
      const T x0 = a[k * csa];                                                                     \
      for (int j = 0; j < NR; j++) c0[j] += x0 * b[j];                                             \
    }                                                                                              \
    memcpy(acc, c0, sizeof c0);                                                                    \
  }                                                                                                \
                                                                                                   \
  /* One row of A (M == 1): packing B would cost as much as the multiply, so B is streamed      \
   * directly: row-wise (axpy into a local block of C) when B's rows are contiguous, as dot       \
   * products with 8 independent partial sums when B's columns are (e.g. a linear weight). */    \
  static bool NAME##_gemv(int64_t N, int64_t K, T alpha, const T *A, int64_t csa, const T *B,      \
                          int64_t rsb, int64_t csb, T *C, int64_t csc, bool accumulate) {          \
    if (csb == 1) {                                                                                \
      T acc[256];                                                                                  \
      for (int64_t j0 = 0; j0 < N; j0 += 256) {                                                    \
        const int64_t jn = N - j0 < 256 ? N - j0 : 256;                                            \
        for (int64_t j = 0; j < jn; j++) acc[j] = (T)0;                                            \
        for (int64_t k = 0; k < K; k++) {                                                          \
          const T a = A[k * csa];                                                                  \
          const T *b = B + k * rsb + j0;                                                           \
          for (int64_t j = 0; j < jn; j++) acc[j] += a * b[j];                                     \
        }                                                                                          \
        for (int64_t j = 0; j < jn; j++) {                                                         \
          T *c = C + (j0 + j) * csc;                                                               \
          *c = accumulate ? *c + alpha * acc[j] : alpha * acc[j];                                  \
        }                                                                                          \
      }                                                                                            \
      return true;                                                                                 \
    }                                                                                              \
    if (rsb == 1 && csa == 1) {                                                                    \
      for (int64_t j = 0; j < N; j++) {                                                            \
        const T *b = B + j * csb;                                                                  \
        T part[8] = {0, 0, 0, 0, 0, 0, 0, 0};                                                      \
        int64_t k = 0;                                                                             \
        for (; k + 8 <= K; k += 8)                                                                 \
          for (int u = 0; u < 8; u++) part[u] += A[k + u] * b[k + u];                              \
        T s = ((part[0] + part[4]) + (part[1] + part[5])) + ((part[2] + part[6]) + (part[3] + part[7])); \
        for (; k < K; k++) s += A[k] * b[k];                                                       \
        T *c = C + j * csc;                                                                        \
        *c = accumulate ? *c + alpha * s : alpha * s;                                              \
      }                                                                                            \
      return true;                                                                                 \
    }                                                                                              \
    return false;                                                                                  \
  }                                                                                                \
                                                                                                   \
  void NAME(int64_t M, int64_t N, int64_t K, T alpha, const T *A, int64_t rsa, int64_t csa,        \
            const T *B, int64_t rsb, int64_t csb, PACKFN pack, void *pack_ctx, T *C, int64_t rsc,  \
            int64_t csc, bool accumulate) {                                                        \
    if (M <= 0 || N <= 0) return;                                                                  \
    if (K <= 0) {                                                                                  \
      if (!accumulate)                                                                             \
        for (int64_t i = 0; i < M; i++)                                                            \
          for (int64_t j = 0; j < N; j++) C[i * rsc + j * csc] = (T)0;                             \
      return;                                                                                      \
    }                                                                                              \
    if (M == 1 && !pack && NAME##_gemv(N, K, alpha, A, csa, B, rsb, csb, C, csc, accumulate))      \
      return;                                                                                      \
    _Alignas(64) T bp[PTE_NN_KC * NR];                                                             \
    T acc[PTE_NN_MR][NR];                                                                          \
    for (int64_t k0 = 0; k0 < K; k0 += PTE_NN_KC) {                                                \
      const int64_t kc = K - k0 < PTE_NN_KC ? K - k0 : PTE_NN_KC;                                  \
      const bool first = k0 == 0 && !accumulate;                                                   \
      for (int64_t j0 = 0; j0 < N; j0 += NR) {                                                     \
        const int64_t nr = N - j0 < NR ? N - j0 : NR;                                              \
        if (pack)                                                                                  \
          pack(pack_ctx, k0, kc, j0, nr, bp);                                                      \
        else                                                                                       \
          NAME##_pack_default(B, rsb, csb, k0, kc, j0, nr, bp);                                    \
        for (int64_t i0 = 0; i0 < M; i0 += PTE_NN_MR) {                                            \
          const int64_t mr = M - i0 < PTE_NN_MR ? M - i0 : PTE_NN_MR;                              \
          const T *a = A + i0 * rsa + k0 * csa;                                                    \
          if (mr == PTE_NN_MR) {                                                                   \
            NAME##_micro4(kc, a, rsa, csa, bp, acc);                                               \
          } else {                                                                                 \
            for (int64_t r = 0; r < mr; r++) NAME##_micro1(kc, a + r * rsa, csa, bp, acc[r]);      \
          }                                                                                        \
          T *c = C + i0 * rsc + j0 * csc;                                                          \
          for (int64_t r = 0; r < mr; r++) {                                                       \
            T *crow = c + r * rsc;                                                                 \
            if (first) {                                                                           \
              for (int64_t j = 0; j < nr; j++) crow[j * csc] = alpha * acc[r][j];                  \
            } else {                                                                               \
              for (int64_t j = 0; j < nr; j++) crow[j * csc] += alpha * acc[r][j];                 \
            }                                                                                      \
          }                                                                                        \
        }                                                                                          \
      }                                                                                            \
    }                                                                                              \
  }

PTE_NN_DEFINE_GEMM(pte_nn_gemm_f32, float, PTE_NN_NR_F32, pte_nn_pack_f32_fn)
PTE_NN_DEFINE_GEMM(pte_nn_gemm_f64, double, PTE_NN_NR_F64, pte_nn_pack_f64_fn)

void pte_nn_set_returns(pte_evalue **args, size_t nargs, size_t first_out, size_t nouts) {
  const size_t end = first_out + nouts;
  if (nargs <= end) return;
  if (nargs == end + 1) {
    pte_evalue *r = args[end];
    if (!r) return;
    if (r->tag == PTE_TAG_LIST_TENSOR) {
      size_t n = r->u.tensor_list.len < nouts ? r->u.tensor_list.len : nouts;
      for (size_t i = 0; i < n; i++) {
        pte_evalue *item = r->u.tensor_list.items ? r->u.tensor_list.items[i] : NULL;
        pte_evalue *src = args[first_out + i];
        if (item && src && item != src && item->tag != PTE_TAG_LIST_TENSOR) *item = *src;
      }
      return;
    }
    if (args[first_out] && r != args[first_out] && (r->tag == PTE_TAG_TENSOR || r->tag == PTE_TAG_NONE))
      *r = *args[first_out];
    return;
  }
  if (nargs == end + nouts) {
    for (size_t i = 0; i < nouts; i++) {
      pte_evalue *r = args[end + i], *src = args[first_out + i];
      if (r && src && r != src && r->tag != PTE_TAG_LIST_TENSOR) *r = *src;
    }
  }
}

bool pte_nn_check_nargs(pte_kernel_context *ctx, size_t nargs, size_t n_schema, size_t nouts) {
  if (nargs == n_schema || nargs == n_schema + 1 || nargs == n_schema + nouts) return true;
  pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "expected %zu args (+ return), got %zu", n_schema,
                  nargs);
  return false;
}

/* ---- convolution geometry --------------------------------------------------------------- */

/* Strides of a 3-D/4-D tensor viewed as 4-D (a 1-D conv tensor gets a size-1 H of stride 0). */
void pte_nn_view4(const pte_tensor *t, int64_t st[4]) {
  if (t->dim == 3) {
    st[0] = t->strides[0];
    st[1] = t->strides[1];
    st[2] = 0;
    st[3] = t->strides[2];
  } else {
    for (int i = 0; i < 4; i++) st[i] = t->strides[i];
  }
}

/* Reads a SymInt[] parameter with 1 or nsp values into (h, w); for 1-D h gets `h_default`. */
static bool conv_read_param(pte_kernel_context *ctx, const char *op, pte_evalue **args, size_t nargs, size_t i,
                            const char *what, bool one_d, int64_t h_default, int64_t *h, int64_t *w) {
  size_t n = 0;
  const int64_t *v = pte_k_arg_int_list(ctx, args, nargs, i, &n);
  if (!v) return false;
  size_t nsp = one_d ? 1 : 2;
  if (n != 1 && n != nsp) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "%s: %s must have 1 or %zu values, got %zu",
                    op, what, nsp, n);
    return false;
  }
  if (one_d) {
    *h = h_default;
    *w = v[0];
  } else {
    *h = v[0];
    *w = n == 2 ? v[1] : v[0];
  }
  return true;
}

bool pte_nn_conv_geom_read(pte_kernel_context *ctx, const char *op, pte_evalue **args, size_t nargs,
                           size_t first, const pte_tensor *in, const pte_tensor *w, pte_nn_conv_geom *g) {
  if (in->dim == 5) {
    pte_kernel_fail(ctx, PTE_ERR_NOT_SUPPORTED, "%s: 3-D convolution is not supported", op);
    return false;
  }
  if (in->dim != 3 && in->dim != 4) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "%s: expected 3-D or 4-D input, got %d-D", op,
                    (int)in->dim);
    return false;
  }
  if (w->dim != in->dim) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "%s: weight must be %d-D, got %d-D", op,
                    (int)in->dim, (int)w->dim);
    return false;
  }
  memset(g, 0, sizeof *g);
  g->one_d = in->dim == 3;
  if (!conv_read_param(ctx, op, args, nargs, first, "stride", g->one_d, 1, &g->sH, &g->sW) ||
      !conv_read_param(ctx, op, args, nargs, first + 1, "padding", g->one_d, 0, &g->pH, &g->pW) ||
      !conv_read_param(ctx, op, args, nargs, first + 2, "dilation", g->one_d, 1, &g->dH, &g->dW) ||
      !pte_k_arg_bool(ctx, args, nargs, first + 3, &g->transposed) ||
      !conv_read_param(ctx, op, args, nargs, first + 4, "output_padding", g->one_d, 0, &g->opH, &g->opW) ||
      !pte_k_arg_int(ctx, args, nargs, first + 5, &g->groups))
    return false;
  if (g->sH <= 0 || g->sW <= 0 || g->dH <= 0 || g->dW <= 0 || g->pH < 0 || g->pW < 0 || g->opH < 0 ||
      g->opW < 0 || g->sH > INT32_MAX || g->sW > INT32_MAX || g->dH > INT32_MAX || g->dW > INT32_MAX ||
      g->pH > INT32_MAX || g->pW > INT32_MAX) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT,
                    "%s: stride and dilation must be > 0, padding >= 0", op);
    return false;
  }
  if (g->groups <= 0 || g->groups > INT32_MAX) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "%s: groups must be > 0", op);
    return false;
  }
  g->N = in->sizes[0];
  g->Cin = in->sizes[1];
  g->H = g->one_d ? 1 : in->sizes[2];
  g->W = in->sizes[in->dim - 1];
  g->kH = g->one_d ? 1 : w->sizes[2];
  g->kW = w->sizes[w->dim - 1];
  if (!g->transposed) {
    g->Cout = w->sizes[0];
    g->Cin_g = w->sizes[1];
    if (g->Cin_g * g->groups != g->Cin || g->Cout % g->groups != 0) {
      pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT,
                      "%s: weight [%d,%d,...] does not match %d input channels in %d groups", op,
                      (int)w->sizes[0], (int)w->sizes[1], (int)g->Cin, (int)g->groups);
      return false;
    }
    g->Cout_g = g->Cout / g->groups;
    g->OH = (g->H + 2 * g->pH - g->dH * (g->kH - 1) - 1) / g->sH + 1;
    g->OW = (g->W + 2 * g->pW - g->dW * (g->kW - 1) - 1) / g->sW + 1;
    if (g->H + 2 * g->pH < g->dH * (g->kH - 1) + 1 || g->W + 2 * g->pW < g->dW * (g->kW - 1) + 1) g->OH = 0;
  } else {
    if (w->sizes[0] != g->Cin || g->Cin % g->groups != 0) {
      pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT,
                      "%s: transposed weight [%d,...] does not match %d input channels", op,
                      (int)w->sizes[0], (int)g->Cin);
      return false;
    }
    if ((g->opH >= g->sH && g->opH >= g->dH) || (g->opW >= g->sW && g->opW >= g->dW)) {
      pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT,
                      "%s: output padding must be smaller than either stride or dilation", op);
      return false;
    }
    g->Cin_g = g->Cin / g->groups;
    g->Cout_g = w->sizes[1];
    g->Cout = g->Cout_g * g->groups;
    g->OH = (g->H - 1) * g->sH - 2 * g->pH + g->dH * (g->kH - 1) + g->opH + 1;
    g->OW = (g->W - 1) * g->sW - 2 * g->pW + g->dW * (g->kW - 1) + g->opW + 1;
  }
  if (g->kH <= 0 || g->kW <= 0 || g->Cin == 0 || g->H <= 0 || g->W <= 0) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "%s: empty kernel or input", op);
    return false;
  }
  if (g->OH < 1 || g->OW < 1 || g->OH > INT32_MAX || g->OW > INT32_MAX) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "%s: output size is too small", op);
    return false;
  }
  return true;
}
