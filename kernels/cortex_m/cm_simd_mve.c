/* Arm Helium (M-profile Vector Extension, Cortex-M55 / M85) paths of the cortex_m kernels
 * (cm_simd.h), compiled in when the target has integer MVE (__ARM_FEATURE_MVE bit 0; with GCC
 * that needs -mfloat-abi=softfp or hard). Preferred over the DSP path when both are present.
 *
 * GEMM: VMLADAVA.S8 accumulates the 16 int8 x int8 products of a beat pair into a scalar int32
 * (exact, wrapping like the portable loop's int32 adds); tails use tail predication (VCTP.8 with
 * zeroing loads). The accumulator starts at bias + in_off * sum_k w[o][k] (+ row_add).
 * Depthwise: four channels per int32 vector (widening VLDRB.S32 loads, VMUL + VADD), the input offset
 * added before the multiply. Requantization: cm_internal.h's scalar one.
 */
#include "cortex_m/cm_internal.h"
#include "cortex_m/cm_simd.h"

#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)
#include <arm_mve.h>

bool pte_cm_simd_mve_compiled(void) { return true; }

static inline int32_t mve_wadd(int32_t a, int32_t b) { return (int32_t)((uint32_t)a + (uint32_t)b); }

void pte_cm_gemm_mve(const pte_cm_gemm *g) {
  const int64_t K = g->K, OC = g->OC;
  int32_t init[PTE_CM_SIMD_NMAX];
  for (int64_t o = 0; o < OC; o++) {
    const int8_t *wr = g->w + o * K;
    int32_t s = 0;
    for (int64_t k = 0; k < K; k += 16) {
      const mve_pred16_t p = vctp8q((uint32_t)(K - k));
      s = vaddvaq_p_s8(s, vldrbq_z_s8(wr + k, p), p);
    }
    init[o] = mve_wadd(g->bias[o], (int32_t)((uint32_t)s * (uint32_t)g->in_off));
  }
  for (int64_t p = 0; p < g->P; p++) {
    const int8_t *xr = g->x + p * g->xs;
    int8_t *yr = g->y + p * g->ys;
    const int32_t radd = g->row_add ? g->row_add[p] : 0;
    int64_t o = 0;
    for (; o + 2 <= OC; o += 2) {
      const int8_t *w0 = g->w + o * K, *w1 = w0 + K;
      int32_t a0 = mve_wadd(init[o], radd), a1 = mve_wadd(init[o + 1], radd);
      for (int64_t k = 0; k < K; k += 16) {
        const mve_pred16_t pr = vctp8q((uint32_t)(K - k));
        const int8x16_t xv = vldrbq_z_s8(xr + k, pr);
        a0 = vmladavaq_p_s8(a0, xv, vldrbq_z_s8(w0 + k, pr), pr);
        a1 = vmladavaq_p_s8(a1, xv, vldrbq_z_s8(w1 + k, pr), pr);
      }
      for (int j = 0; j < 2; j++) {
        const int32_t v = mve_wadd(pte_cm_requantize(j ? a1 : a0, g->mult[o + j], g->shift[o + j]),
                                   g->out_off);
        yr[o + j] = (int8_t)pte_cm_clamp32(v, g->act_min, g->act_max);
      }
    }
    for (; o < OC; o++) {
      const int8_t *w0 = g->w + o * K;
      int32_t a0 = mve_wadd(init[o], radd);
      for (int64_t k = 0; k < K; k += 16) {
        const mve_pred16_t pr = vctp8q((uint32_t)(K - k));
        a0 = vmladavaq_p_s8(a0, vldrbq_z_s8(xr + k, pr), vldrbq_z_s8(w0 + k, pr), pr);
      }
      const int32_t v = mve_wadd(pte_cm_requantize(a0, g->mult[o], g->shift[o]), g->out_off);
      yr[o] = (int8_t)pte_cm_clamp32(v, g->act_min, g->act_max);
    }
  }
}

void pte_cm_dw_mve(const pte_cm_dw *d) {
  const int64_t C = d->C;
  const int32x4_t off = vdupq_n_s32(d->in_off);
  for (int64_t oy = 0; oy < d->OH; oy++)
    for (int64_t ox = 0; ox < d->OW; ox++) {
      const int64_t iy0 = oy * d->sh - d->ph, ix0 = ox * d->sw - d->pw;
      int8_t *yp = d->y + (oy * d->OW + ox) * C;
      for (int64_t c = 0; c < C; c += 4) {
        const mve_pred16_t pr = vctp32q((uint32_t)(C - c));
        int32x4_t acc = vldrwq_z_s32(d->bias + c, pr);
        for (int64_t ky = 0; ky < d->KH; ky++) {
          const int64_t iy = iy0 + ky * d->dh;
          if (iy < 0 || iy >= d->H) continue;
          for (int64_t kx = 0; kx < d->KW; kx++) {
            const int64_t ix = ix0 + kx * d->dw;
            if (ix < 0 || ix >= d->W) continue;
            const int32x4_t xv = vaddq_s32(vldrbq_z_s32(d->x + (iy * d->W + ix) * C + c, pr), off);
            acc = vaddq_s32(acc, vmulq_s32(xv, vldrbq_z_s32(d->w + (ky * d->KW + kx) * C + c, pr)));
          }
        }
        const int32_t a[4] = {vgetq_lane_s32(acc, 0), vgetq_lane_s32(acc, 1),
                              vgetq_lane_s32(acc, 2), vgetq_lane_s32(acc, 3)};
        for (int64_t j = 0; j < 4 && c + j < C; j++) {
          const int32_t v =
              mve_wadd(pte_cm_requantize(a[j], d->mult[c + j], d->shift[c + j]), d->out_off);
          yp[c + j] = (int8_t)pte_cm_clamp32(v, d->act_min, d->act_max);
        }
      }
    }
}

#else
bool pte_cm_simd_mve_compiled(void) { return false; }
void pte_cm_gemm_mve(const pte_cm_gemm *g) { (void)g; }
void pte_cm_dw_mve(const pte_cm_dw *d) { (void)d; }
#endif
