/* kernels/cortex_m/cm_simd.h — SIMD paths of the cortex_m int8 kernels (internal).
 *
 * The op files (op_cm_*.c) keep their portable C loops as the reference; when a SIMD ISA is
 * active and the tensors have the layout a SIMD routine needs (channels-last dense, contiguous
 * weights, sizes within the limits below), they hand the inner work to one of the
 * routines declared here, which compute exactly the same int8 outputs (every accumulation is
 * done modulo 2^32 as the target does, and the requantization is the double-rounding
 * arm_nn_requantize of cm_internal.h, evaluated lane-wise).
 *
 * ISAs: x86-64 selects at run time (cpuid through __builtin_cpu_supports): AVX-512 VNNI
 * (vpdpbusd on x + 128 as unsigned bytes with the -128 * sum(w) correction), then AVX2
 * (vpmaddwd on sign-extended int16, exact), else portable. Arm selects at build time: the DSP
 * extension (__ARM_FEATURE_DSP: SXTB16 / SMLAD through <arm_acle.h>) when the target has it, or
 * Helium (__ARM_FEATURE_MVE: VMLADAVA through <arm_mve.h>) for the GEMM and depthwise when present
 * (pooling and add / mul use the DSP routines there too; softmax stays portable on Arm).
 * pte_cm_simd_force() lets tests and benchmarks pin one ISA (the only mutable state of the
 * library; not thread-safe, meant for single-threaded test/bench drivers).
 */
#ifndef PTE_KERNELS_CORTEX_M_CM_SIMD_H
#define PTE_KERNELS_CORTEX_M_CM_SIMD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The kernel taps [*k0, *k1) of a window that start inside the input along one axis: window
 * origin i0 (may be negative: padding), dilation dil, k taps, input extent size. Shared by every
 * ISA's depthwise loop (ptrdiff_t: 32-bit arithmetic on the Cortex-M, 64-bit on the host). */
static inline void pte_cm_valid_taps(ptrdiff_t i0, ptrdiff_t dil, ptrdiff_t k, ptrdiff_t size, ptrdiff_t *k0,
                                     ptrdiff_t *k1) {
  ptrdiff_t a = 0, b = k;
  while (a < b && i0 + a * dil < 0) a++;
  while (b > a && i0 + (b - 1) * dil >= size) b--;
  *k0 = a, *k1 = b;
}

typedef enum pte_cm_isa {
  PTE_CM_ISA_AUTO = -1,     /* pte_cm_simd_force(): back to the best available */
  PTE_CM_ISA_PORTABLE = 0,  /* the portable C loops of the op files */
  PTE_CM_ISA_AVX2 = 1,      /* x86-64 AVX2 */
  PTE_CM_ISA_AVX512VNNI = 2, /* x86-64 AVX-512 F/BW/VL + VNNI */
  PTE_CM_ISA_ARM_DSP = 3,   /* Armv7E-M / Armv8-M DSP extension (build-time) */
  PTE_CM_ISA_ARM_MVE = 4,   /* Armv8.1-M Helium, integer MVE (build-time) */
  PTE_CM_ISA_COUNT = 5
} pte_cm_isa;

/* True when `isa` can run here (PORTABLE always can). */
bool pte_cm_simd_available(pte_cm_isa isa);
/* The ISA the kernels use now: the forced one, else the best available. */
pte_cm_isa pte_cm_simd_active(void);
/* Pins an ISA (false, nothing changed, when it is not available); PTE_CM_ISA_AUTO unpins. */
bool pte_cm_simd_force(pte_cm_isa isa);
const char *pte_cm_simd_name(pte_cm_isa isa);
/* How many SIMD routine calls ran while an ISA was pinned (for tests). */
uint32_t pte_cm_simd_forced_runs(void);

/* Largest reduction depth K of the SIMD GEMM. */
#define PTE_CM_SIMD_KMAX 2048
/* Scratch of the x86 GEMMs (weight packing + activation rows, 48 KiB; pte_cm_gemm.scratch): the
 * op files take it from the kernel context's temp memory when there is enough, else the GEMM
 * keeps these buffers on its stack. The Arm GEMMs pack nothing and ignore it. */
#define PTE_CM_GEMM_SCRATCH_BYTES (12288 * 4)
#define PTE_CM_GEMM_SCRATCH_ALIGN 64
/* Most output channels handed to one GEMM / depthwise call (per-channel parameter arrays). */
#define PTE_CM_SIMD_NMAX 256

/* y[p][o] = clamp(requantize(acc, mult[o], shift[o]) + out_off, act_min, act_max) with
 *   acc = sum_k x[p][k] * w[o][k] + bias[o] + in_off * sum_k w[o][k] + (row_add ? row_add[p] : 0)
 * (all int32 modulo 2^32). x rows are x + p * xs (K int8 each), w is OC contiguous rows of K,
 * y rows are y + p * ys with the OC outputs contiguous. K <= PTE_CM_SIMD_KMAX,
 * OC <= PTE_CM_SIMD_NMAX. */
typedef struct pte_cm_gemm {
  const int8_t *x;
  int64_t xs;
  const int8_t *w;
  int64_t P, OC, K;
  const int32_t *bias; /* OC entries */
  int32_t in_off;
  const int32_t *row_add; /* P entries or NULL */
  const int32_t *mult, *shift; /* OC entries each */
  int32_t out_off, act_min, act_max;
  int8_t *y;
  int64_t ys;
  int32_t *scratch; /* NULL or PTE_CM_GEMM_SCRATCH_BYTES aligned to PTE_CM_GEMM_SCRATCH_ALIGN */
} pte_cm_gemm;

/* Depthwise convolution of one image, depth multiplier 1, channels-last dense:
 *   x [H][W][C], w [KH][KW][C], y [OH][OW][C]; padded taps contribute nothing;
 *   acc = bias[c] + sum_taps (x + in_off) * w, then requantize / offset / clamp as above.
 * C <= PTE_CM_SIMD_NMAX. */
typedef struct pte_cm_dw {
  const int8_t *x;
  int64_t H, W, C;
  const int8_t *w;
  int64_t KH, KW;
  int64_t sh, sw, ph, pw, dh, dw;
  const int32_t *bias, *mult, *shift;
  int32_t in_off, out_off, act_min, act_max;
  int8_t *y;
  int64_t OH, OW;
} pte_cm_dw;

/* One pooling window over C contiguous channels: rows ys..ye, columns xs..xe of an image whose
 * pixel (iy, ix) starts at x + iy * row + ix * C. Max: clamp(max, lo, hi); average: the rounded
 * mean of cm pooling (ties away from zero), clamped to int8. */
typedef struct pte_cm_pool {
  const int8_t *x;
  int64_t row, C;
  int64_t ys, ye, xs, xe;
  bool is_max;
  int32_t lo, hi;
  int8_t *y;
} pte_cm_pool;

/* Elementwise quantized add / mul over n contiguous elements of equal-shape operands. */
typedef struct pte_cm_addmul {
  const int8_t *a, *b;
  int8_t *y;
  int64_t n;
  bool is_mul;
  /* add: off1/off2 = -zero points, m1/s1, m2/s2, mo/so, zpo, lo/hi;
   * mul: off1/off2 = -zero points, mo/so, zpo (lo/hi = -128/127) */
  int32_t off1, m1, s1, off2, m2, s2, mo, so, zpo, lo, hi;
} pte_cm_addmul;

/* One softmax row of n contiguous int8 (cortex_m::softmax arithmetic, op_cm_softmax.c):
 * mask = 2^input_shift (wrapped), mult = input_multiplier. */
typedef struct pte_cm_softmax {
  const int8_t *x;
  int8_t *y;
  int64_t n;
  int32_t mult, mask, diff_min;
} pte_cm_softmax;

/* The scratch for pte_cm_gemm.scratch from the kernel context's temp memory when the active ISA
 * uses it and there is room, else NULL (the GEMM then packs on its stack). */
struct pte_kernel_context;
int32_t *pte_cm_gemm_scratch(struct pte_kernel_context *ctx);

/* Each returns true when it ran (a SIMD ISA is active), false to use the portable loop. */
bool pte_cm_simd_gemm(const pte_cm_gemm *g);
bool pte_cm_simd_dw(const pte_cm_dw *d);
bool pte_cm_simd_pool(const pte_cm_pool *p);
bool pte_cm_simd_addmul(const pte_cm_addmul *e);
bool pte_cm_simd_softmax(const pte_cm_softmax *s); /* x86 only */

/* per-ISA entry points (cm_simd_avx2.c, cm_simd_avx512.c, cm_simd_arm.c) */
void pte_cm_gemm_avx2(const pte_cm_gemm *g);
void pte_cm_dw_avx2(const pte_cm_dw *d);
void pte_cm_pool_avx2(const pte_cm_pool *p);
void pte_cm_addmul_avx2(const pte_cm_addmul *e);
void pte_cm_softmax_avx2(const pte_cm_softmax *s);
void pte_cm_gemm_avx512(const pte_cm_gemm *g);
void pte_cm_dw_avx512(const pte_cm_dw *d);
void pte_cm_pool_avx512(const pte_cm_pool *p);
void pte_cm_addmul_avx512(const pte_cm_addmul *e);
void pte_cm_softmax_avx512(const pte_cm_softmax *s);
/* Test hooks: lane-wise requantize / dhm_sat / exp_on_negative_values of the AVX-512 and AVX2
 * paths over n values (false when the ISA is not available here). */
bool pte_cm_avx512_check_math(const int32_t *a, const int32_t *b, const int32_t *shift, int64_t n,
                              int32_t *rq, int32_t *dhm, int32_t *ex);
bool pte_cm_avx2_check_math(const int32_t *a, const int32_t *b, const int32_t *shift, int64_t n,
                            int32_t *rq, int32_t *dhm, int32_t *ex);
void pte_cm_gemm_arm(const pte_cm_gemm *g);
void pte_cm_dw_arm(const pte_cm_dw *d);
void pte_cm_pool_arm(const pte_cm_pool *p);
void pte_cm_addmul_arm(const pte_cm_addmul *e);
void pte_cm_gemm_mve(const pte_cm_gemm *g);
void pte_cm_dw_mve(const pte_cm_dw *d);
bool pte_cm_simd_mve_compiled(void);
bool pte_cm_simd_x86_compiled(void);
bool pte_cm_simd_arm_compiled(void);

#endif
