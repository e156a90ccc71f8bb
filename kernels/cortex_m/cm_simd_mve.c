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
#include <stddef.h>

#include "cortex_m/cm_internal.h"
#include "cortex_m/cm_simd.h"

#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)
#include <arm_mve.h>

bool pte_cm_simd_mve_compiled(void) { return true; }

static inline int32_t mve_wadd(int32_t a, int32_t b) { return (int32_t)((uint32_t)a + (uint32_t)b); }

/* Lane-wise pte_cm_requantize + output offset + clamp for channels o..o+3. VQRDMULH computes
 * (2 a m + 2^31) >> 32 = (a m + 2^30) >> 31, the non-saturating doubling high multiply, since
 * the multiplier is never INT32_MIN (validated); VSHL by a negative count is the truncating
 * arithmetic right shift, corrected to round half away from zero like
 * arm_nn_divide_by_power_of_two. */
static inline int32x4_t mve_rq(int32x4_t acc, const int32_t *mult, const int32_t *shift, int o,
                               int n, int32x4_t ooff, int32x4_t lo, int32x4_t hi) {
  /* the per-channel vectors are formed here from the caller's arrays (channels past n read as
   * 0 by the predicated loads): tables of them would cost 4 KiB of stack for 256 channels */
  const mve_pred16_t pn = vctp32q((uint32_t)(n - o));
  const int32x4_t s = vldrwq_z_s32(shift + o, pn), zero = vdupq_n_s32(0);
  const int32x4_t left = vmaxq_s32(s, zero), nright = vminq_s32(s, zero);
  const int32x4_t a = vshlq_s32(acc, left);
  const int32x4_t h = vqrdmulhq_s32(a, vldrwq_z_s32(mult + o, pn));
  const int32x4_t mask = vsubq_s32(vshlq_s32(vdupq_n_s32(1), vnegq_s32(nright)), vdupq_n_s32(1));
  const int32x4_t rem = vandq_s32(h, mask);
  const int32x4_t thr = vaddq_s32(vshrq_n_s32(mask, 1),
                                  vreinterpretq_s32_u32(vshrq_n_u32(vreinterpretq_u32_s32(h), 31)));
  int32x4_t res = vshlq_s32(h, nright);
  res = vaddq_m_n_s32(res, res, 1, vcmpgtq_s32(rem, thr));
  return vminq_s32(vmaxq_s32(vaddq_s32(res, ooff), lo), hi);
}

/* The GEMM over output channels [0, OC) of g; OC <= MVE_OCB. */
#define MVE_OCB 32
static void mve_gemm_block(const pte_cm_gemm *g) {
  const int K = (int)g->K, OC = (int)g->OC, P = (int)g->P;
  const int32x4_t ooff = vdupq_n_s32(g->out_off), lo = vdupq_n_s32(g->act_min),
                  hi = vdupq_n_s32(g->act_max);
  int32_t init[MVE_OCB + 4];
  for (int o = 0; o < OC; o++) {
    const int8_t *wr = g->w + (ptrdiff_t)o * K;
    int32_t s = 0;
    for (int k = 0; k < K; k += 16) {
      const mve_pred16_t p = vctp8q((uint32_t)(K - k));
      s = vaddvaq_p_s8(s, vldrbq_z_s8(wr + k, p), p);
    }
    init[o] = mve_wadd(g->bias[o], (int32_t)((uint32_t)s * (uint32_t)g->in_off));
  }
  for (int o = OC; o < OC + 4; o++) init[o] = 0;
  for (int p = 0; p < P; p++) {
    const int8_t *xr = g->x + (ptrdiff_t)p * g->xs;
    int8_t *yr = g->y + (ptrdiff_t)p * g->ys;
    const int32_t radd = g->row_add ? g->row_add[p] : 0;
    for (int o = 0; o < OC; o += 4) {
      /* four output channels (rows past OC repeat the last one; their lanes are not stored) */
      const int8_t *w0 = g->w + (ptrdiff_t)o * K;
      const int8_t *w1 = o + 1 < OC ? w0 + K : w0, *w2 = o + 2 < OC ? w0 + 2 * K : w0,
                   *w3 = o + 3 < OC ? w0 + 3 * K : w0;
      int32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
      for (int k = 0; k < K; k += 16) {
        const mve_pred16_t pr = vctp8q((uint32_t)(K - k));
        const int8x16_t xv = vldrbq_z_s8(xr + k, pr);
        a0 = vmladavaq_p_s8(a0, xv, vldrbq_z_s8(w0 + k, pr), pr);
        a1 = vmladavaq_p_s8(a1, xv, vldrbq_z_s8(w1 + k, pr), pr);
        a2 = vmladavaq_p_s8(a2, xv, vldrbq_z_s8(w2 + k, pr), pr);
        a3 = vmladavaq_p_s8(a3, xv, vldrbq_z_s8(w3 + k, pr), pr);
      }
      int32x4_t acc = vdupq_n_s32(a0);
      acc = vsetq_lane_s32(a1, acc, 1);
      acc = vsetq_lane_s32(a2, acc, 2);
      acc = vsetq_lane_s32(a3, acc, 3);
      acc = vaddq_s32(vaddq_s32(acc, vldrwq_s32(init + o)), vdupq_n_s32(radd));
      vstrbq_p_s32(yr + o, mve_rq(acc, g->mult, g->shift, o, OC, ooff, lo, hi),
                   vctp32q((uint32_t)(OC - o)));
    }
  }
}

/* Output channels in blocks of MVE_OCB (their accumulator starts stay on a small stack). */
void pte_cm_gemm_mve(const pte_cm_gemm *g) {
  pte_cm_gemm b = *g;
  for (int64_t o0 = 0; o0 < g->OC; o0 += MVE_OCB) {
    b.OC = g->OC - o0 < MVE_OCB ? g->OC - o0 : MVE_OCB;
    b.w = g->w + o0 * g->K;
    b.bias = g->bias + o0;
    b.mult = g->mult + o0;
    b.shift = g->shift + o0;
    b.y = g->y + o0;
    mve_gemm_block(&b);
  }
}

/* Depthwise: four channels per int32 vector (widening VLDRB.S32 loads, VMUL + VADD), the input
 * offset added before the multiply; valid tap ranges found once per pixel. */
void pte_cm_dw_mve(const pte_cm_dw *d) {
  const int C = (int)d->C, H = (int)d->H, W = (int)d->W, KH = (int)d->KH, KW = (int)d->KW,
            OH = (int)d->OH, OW = (int)d->OW;
  const int sh = (int)d->sh, sw = (int)d->sw, ph = (int)d->ph, pw = (int)d->pw, dh = (int)d->dh,
            dw = (int)d->dw;
  const int32x4_t off = vdupq_n_s32(d->in_off), ooff = vdupq_n_s32(d->out_off),
                  lo = vdupq_n_s32(d->act_min), hi = vdupq_n_s32(d->act_max);
  for (int oy = 0; oy < OH; oy++) {
    const int iy0 = oy * sh - ph;
    ptrdiff_t ky0, ky1;
    pte_cm_valid_taps(iy0, dh, KH, H, &ky0, &ky1);
    for (int ox = 0; ox < OW; ox++) {
      const int ix0 = ox * sw - pw;
      ptrdiff_t kx0, kx1;
      pte_cm_valid_taps(ix0, dw, KW, W, &kx0, &kx1);
      int8_t *yp = d->y + ((ptrdiff_t)oy * OW + ox) * C;
      for (int c = 0; c < C; c += 4) {
        const mve_pred16_t pr = vctp32q((uint32_t)(C - c));
        int32x4_t acc = vldrwq_z_s32(d->bias + c, pr);
        for (int ky = ky0; ky < ky1; ky++) {
          const int8_t *xp = d->x + ((ptrdiff_t)(iy0 + ky * dh) * W + ix0 + kx0 * dw) * C + c;
          const int8_t *wp = d->w + ((ptrdiff_t)ky * KW + kx0) * C + c;
          for (int kx = kx0; kx < kx1; kx++, xp += dw * C, wp += C)
            acc = vaddq_s32(acc, vmulq_s32(vaddq_s32(vldrbq_z_s32(xp, pr), off),
                                           vldrbq_z_s32(wp, pr)));
        }
        vstrbq_p_s32(yp + c, mve_rq(acc, d->mult, d->shift, c, C, ooff, lo, hi), pr);
      }
    }
  }
}

#else
bool pte_cm_simd_mve_compiled(void) { return false; }
void pte_cm_gemm_mve(const pte_cm_gemm *g) { (void)g; }
void pte_cm_dw_mve(const pte_cm_dw *d) { (void)d; }
#endif
