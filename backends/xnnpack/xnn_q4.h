/* xnn_q4.h — 4-bit weights for FullyConnected (private to backends/xnnpack).
 *
 * Serialized forms (facts from upstream's XNNPACK delegate and XNNPACK's tensor definitions):
 *   qcint4 (PerChannelQuant): filter [N, K], per output channel fp32 scales, zero point 8.
 *   qbint4 (PerChannelGroupQuant): filter [N, K], block size B (group_size; a multiple of 32 that
 *     divides K), N * K / B bf16 scales in row-major [N, K / B] order, zero point 8. The scales
 *     come from scale_buffer_idx (bf16 constant, num_scales entries), else scale_bf16, else the fp32
 *     `scale` list converted to bf16 the way upstream's runtime does (x * 1.00389105f, upper 16 bits).
 *   Bytes: two weights per byte, element (n, k) is nibble n * K + k of the constant counted from
 *   byte 0, the even nibble in the low 4 bits; w = nibble - 8. (K must be even for qcint4.)
 *
 * Packed kind PTE_XNN_PACK_Q4_GEMM ("XPW1" header; ISA independent; nr 16; kr = B for blockwise,
 * 0 for per-channel). Panel of 16 output channels:
 *   [16 f32 bias][16 f32 wscale][16 f32 ksum]                       192 bytes
 *   blockwise: [nb x 16 bf16 block scales] padded to 64 bytes
 *   kp / 8 chunks of 64 bytes (kp = K rounded up to 8): byte 4 * c + j of chunk q holds in its low
 *   nibble the weight (column c, k = 8q + j) and in its high nibble (column c, k = 8q + 4 + j), both
 *   unsigned (0..15, zero point 8); padding nibbles are 8.
 *   wscale: the channel scale (qcint4) or 1 (qbint4); ksum[c] = sum over blocks of
 *   bscale * sum over the block of (nibble - 8) (qcint4: one block, bscale 1).
 * Output: y[m][c] = clamp(ascale[m] * wscale[c] * (sum_b bscale_b[c] * (acc_b[m][c] - 8 * asum_b[m])
 *                        - zp[m] * ksum[c]) + bias[c]), acc_b = sum over block b of a[m][k] * nibble.
 */
#ifndef PTE_BACKENDS_XNNPACK_Q4_H
#define PTE_BACKENDS_XNNPACK_Q4_H

#include <string.h>

#include "xnn_internal.h"

#define PTE_XNN_Q4_NR 16u
#define PTE_XNN_Q4_MIN_BLOCK 32u

/* bf16 <-> fp32 */
static inline float pte_xnn_bf16_to_f32(uint16_t h) {
  uint32_t u = (uint32_t)h << 16;
  float f;
  memcpy(&f, &u, 4);
  return f;
}
/* upstream runtime's fp32 -> bf16 conversion of serialized fp32 block scales */
static inline uint16_t pte_xnn_f32_to_bf16_upstream(float x) {
  float y = x * 1.00389105f;
  uint32_t u;
  memcpy(&u, &y, 4);
  return (uint16_t)(u >> 16);
}
float pte_xnn_f16_to_f32(uint16_t h);

/* Layout of a Q4 packed blob: block (0: per-channel) */
pte_xnn_packed_info pte_xnn_q4_layout(size_t n, size_t kdim, size_t block);
/* Blocks per row and block length in the packed layout. */
static inline size_t pte_xnn_q4_kp(size_t kdim) { return (kdim + 7) & ~(size_t)7; }
/* Packs panels [p0, p1) (and the header when p0 == 0). w: the serialized nibbles; cscale[n]
 * (per-channel) or bscale[n * K / block] bf16 (blockwise, block > 0); bias[n] or NULL. */
void pte_xnn_pack_q4_panels(size_t n, size_t kdim, size_t block, const uint8_t *w, const float *cscale,
                            const uint16_t *bscale, const float *bias, uint8_t *dst, size_t p0, size_t p1);

/* One tile: rows r < mr (<= 4) of int8 activations a[r] (kp bytes each, zero padded) times one
 * panel, output c[r * ldc + col] for col < nc. asum[r * nb + b]: the row's block sums.
 * Row parameters: ascale[r], azp[r]. */
typedef void (*pte_xnn_q4_tile_fn)(size_t mr, size_t nc, size_t kp, size_t nb, size_t bl, bool blockwise,
                                   const int8_t *const *a, const int32_t *asum, const float *ascale, const int32_t *azp,
                                   const uint8_t *panel, float *c, size_t ldc, float vmin, float vmax);
void pte_xnn_q4_tile_scalar(size_t mr, size_t nc, size_t kp, size_t nb, size_t bl, bool blockwise,
                            const int8_t *const *a, const int32_t *asum, const float *ascale, const int32_t *azp,
                            const uint8_t *panel, float *c, size_t ldc, float vmin, float vmax);
pte_xnn_q4_tile_fn pte_xnn_q4_tile_avx2(void);        /* NULL if not compiled */
pte_xnn_q4_tile_fn pte_xnn_q4_tile_avx512vnni(void);  /* NULL if not compiled or not on this CPU */
pte_xnn_q4_tile_fn pte_xnn_q4_tile_for(const pte_xnn_kernels *k);
/* One row over two adjacent panels (nc0 columns of the first, nc1 of the second, output c[0..32)).
 * [pf, pf + pfn): the panels of the next pass, prefetched into L2 (NULL, 0: none). */
typedef void (*pte_xnn_q4_gemv2_fn)(size_t nc0, size_t nc1, size_t nb, size_t bl, bool blockwise, const int8_t *a,
                                    const int32_t *asum, float ascale, int32_t azp, const uint8_t *pa, const uint8_t *pb,
                                    float *c, float vmin, float vmax, const uint8_t *pf, size_t pfn);
pte_xnn_q4_gemv2_fn pte_xnn_q4_gemv2_avx512vnni(void); /* NULL if not compiled or not on this CPU */

/* Shared scratch bytes for m rows of K (block sums, padded rows when K % 8 != 0). */
size_t pte_xnn_q4_scratch(size_t m, size_t kdim, size_t block);
/* y = a * W: a qdint8 rows (row m uses rows[m / row_div]), packed Q4 weights. */
void pte_xnn_qd8_q4_gemm(pte_xnn_exec *x, const uint8_t *packed, size_t m, const int8_t *a, size_t lda,
                         const pte_xnn_qrow *rows, size_t row_div, float *c, size_t ldc, float vmin, float vmax);

#endif
