/* kernels/portable/util/kutil_nn.h — helpers for the linear-algebra and neural-network kernel
 * families (op_linalg.c, op_conv.c, op_pool.c, op_norm.c, op_softmax.c).
 *
 * Internal (not installed) header. A small cache-blocked matrix multiply for float32/float64
 * written in plain C (the inner loops are fixed-width so the compiler vectorises them), plus
 * argument helpers shared by the multi-output ops. Nothing here allocates or uses stdio: the
 * multiply packs its right-hand panels into a fixed block on the stack (16 KiB for float32,
 * 8 KiB for float64).
 */
#ifndef PTE_KERNELS_PORTABLE_UTIL_KUTIL_NN_H
#define PTE_KERNELS_PORTABLE_UTIL_KUTIL_NN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pte/evalue.h"
#include "pte/kernel.h"
#include "pte/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Panel widths of the multiply: the right-hand matrix is consumed in panels of KC rows by NR
 * columns. A pack callback fills such a panel. */
#define PTE_NN_NR_F32 16
#define PTE_NN_NR_F64 4
#define PTE_NN_KC 256

/* Fills bp[k * NR + j] (k < kc, j < NR) with B[k0 + k][j0 + j] for j < nr and 0 for nr <= j < NR,
 * where NR is PTE_NN_NR_F32 / PTE_NN_NR_F64. Lets a caller multiply by a matrix that only exists
 * implicitly (e.g. the im2col matrix of a convolution). */
typedef void (*pte_nn_pack_f32_fn)(void *ctx, int64_t k0, int64_t kc, int64_t j0, int64_t nr,
                                   float *bp);
typedef void (*pte_nn_pack_f64_fn)(void *ctx, int64_t k0, int64_t kc, int64_t j0, int64_t nr,
                                   double *bp);

/* C[M,N] = (accumulate ? C : 0) + alpha * A[M,K] * B[K,N].
 *
 * Element (i,j) of X lives at X[i*rsX + j*csX] (strides in elements, any sign; A and B may be
 * transposed views). B is read through `pack` when it is non-NULL (then B/rsb/csb are ignored).
 * When accumulate is false C is never read (NaN in the old C does not propagate). Products are
 * summed in the element type, K in blocks of PTE_NN_KC. C must not overlap A or B. */
void pte_nn_gemm_f32(int64_t M, int64_t N, int64_t K, float alpha, const float *A, int64_t rsa,
                     int64_t csa, const float *B, int64_t rsb, int64_t csb, pte_nn_pack_f32_fn pack,
                     void *pack_ctx, float *C, int64_t rsc, int64_t csc, bool accumulate);
void pte_nn_gemm_f64(int64_t M, int64_t N, int64_t K, double alpha, const double *A, int64_t rsa,
                     int64_t csa, const double *B, int64_t rsb, int64_t csb,
                     pte_nn_pack_f64_fn pack, void *pack_ctx, double *C, int64_t rsc, int64_t csc,
                     bool accumulate);

/* Geometry of a 1-D ([N, C, L]) or 2-D ([N, C, H, W]) convolution (a 1-D one is a 2-D one with
 * H = kH = 1), shared by aten::convolution.out and aten::convolution_backward.out. */
typedef struct pte_nn_conv_geom {
  int64_t N, Cin, H, W;      /* input (H = 1 for 1-D) */
  int64_t Cout, OH, OW;      /* output */
  int64_t kH, kW;            /* kernel */
  int64_t sH, sW, pH, pW, dH, dW, opH, opW;
  int64_t groups, Cin_g, Cout_g;
  int64_t si[4], sw[4], so[4]; /* (n|o, c|i, h, w) strides of input, weight, out (caller fills) */
  bool one_d, transposed;
} pte_nn_conv_geom;

/* Reads the convolution parameters args[first .. first+6) = (stride, padding, dilation,
 * transposed, output_padding, groups) — each int list may hold 1 value or one per spatial dim —
 * checks them against input/weight (ranks, channel/group counts, output padding) and computes
 * the output size into *g (strides left zero). Failures name `op`; a 5-D input is
 * PTE_ERR_NOT_SUPPORTED. */
bool pte_nn_conv_geom_read(pte_kernel_context *ctx, const char *op, pte_evalue **args, size_t nargs,
                           size_t first, const pte_tensor *in, const pte_tensor *w, pte_nn_conv_geom *g);

/* Strides of a 3-D/4-D tensor viewed as 4-D (a 1-D conv tensor gets a size-1 H of stride 0). */
void pte_nn_view4(const pte_tensor *t, int64_t st[4]);

/* Multi-output ops (native_layer_norm, max_pool2d_with_indices, ...): after outs
 * args[first_out .. first_out+nouts) are written, makes the trailing return value(s) alias them.
 * Handles no return slot, one TensorList return slot (its items are refreshed when they are other
 * EValues), and nouts individual return slots. */
void pte_nn_set_returns(pte_evalue **args, size_t nargs, size_t first_out, size_t nouts);

/* Checks nargs is n_schema (ATen schema args incl. outs) or n_schema + 1 (return alias) or
 * n_schema + nouts (one return slot per out). Fails InvalidArgument otherwise. */
bool pte_nn_check_nargs(pte_kernel_context *ctx, size_t nargs, size_t n_schema, size_t nouts);

#ifdef __cplusplus
}
#endif
#endif
