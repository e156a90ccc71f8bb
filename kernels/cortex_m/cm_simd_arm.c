/* Arm DSP-extension paths of the cortex_m kernels (cm_simd.h), compiled in when the target has
 * the DSP extension (__ARM_FEATURE_DSP: Cortex-M4/M7/M33/M55...).
 *
 * GEMM: four int8 of a row are loaded as one word; SXTB16 splits them into the sign-extended
 * int16 pairs (b0, b2) and (b1, b3) (the second after a rotation by 8), for the activations and
 * the weights alike, and two SMLAD add x0 w0 + x2 w2 and x1 w1 + x3 w3 to the int32
 * accumulator (SMLAD wraps modulo 2^32 like the portable loop's int32 adds). Two output
 * channels share each activation word. The accumulator starts at bias + in_off * sum_k w[o][k]
 * (+ row_add); the requantization is cm_internal.h's scalar one.
 */
#include <string.h>

#include "cortex_m/cm_internal.h"
#include "cortex_m/cm_simd.h"

#if defined(__ARM_FEATURE_DSP) && __ARM_FEATURE_DSP
#include <arm_acle.h>

bool pte_cm_simd_arm_compiled(void) { return true; }

static inline int8x4_t cm_ld4(const int8_t *p) {
  int8x4_t v;
  memcpy(&v, p, 4);
  return v;
}
/* rotate right by 8 (GCC 12's arm_acle.h has no __ror; this folds into SXTB16 ..., ROR #8) */
static inline int8x4_t cm_rot8(int8x4_t v) {
  const uint32_t u = (uint32_t)v;
  return (int8x4_t)((u >> 8) | (u << 24));
}
static inline int32_t cm_wadd(int32_t a, int32_t b) {
  return (int32_t)((uint32_t)a + (uint32_t)b);
}

static inline int8_t cm_finish(int32_t acc, int32_t m, int32_t s, const pte_cm_gemm *g) {
  int32_t v = cm_wadd(pte_cm_requantize(acc, m, s), g->out_off);
  return (int8_t)pte_cm_clamp32(v, g->act_min, g->act_max);
}

void pte_cm_gemm_arm(const pte_cm_gemm *g) {
  const int64_t K = g->K, OC = g->OC, K4 = K & ~(int64_t)3;
  int32_t init[PTE_CM_SIMD_NMAX];
  for (int64_t o = 0; o < OC; o++) {
    const int8_t *wr = g->w + o * K;
    int32_t s = 0;
    for (int64_t k = 0; k < K; k++) s = cm_wadd(s, wr[k]);
    init[o] = cm_wadd(g->bias[o], (int32_t)((uint32_t)s * (uint32_t)g->in_off));
  }
  for (int64_t p = 0; p < g->P; p++) {
    const int8_t *xr = g->x + p * g->xs;
    int8_t *yr = g->y + p * g->ys;
    const int32_t radd = g->row_add ? g->row_add[p] : 0;
    int64_t o = 0;
    for (; o + 2 <= OC; o += 2) {
      const int8_t *w0 = g->w + o * K, *w1 = w0 + K;
      int32_t a0 = cm_wadd(init[o], radd), a1 = cm_wadd(init[o + 1], radd);
      for (int64_t k = 0; k < K4; k += 4) {
        const int8x4_t xv = cm_ld4(xr + k), v0 = cm_ld4(w0 + k), v1 = cm_ld4(w1 + k);
        const int16x2_t xe = __sxtb16(xv), xo = __sxtb16(cm_rot8(xv));
        a0 = __smlad(xe, __sxtb16(v0), a0);
        a0 = __smlad(xo, __sxtb16(cm_rot8(v0)), a0);
        a1 = __smlad(xe, __sxtb16(v1), a1);
        a1 = __smlad(xo, __sxtb16(cm_rot8(v1)), a1);
      }
      for (int64_t k = K4; k < K; k++) {
        a0 = cm_wadd(a0, (int32_t)xr[k] * w0[k]);
        a1 = cm_wadd(a1, (int32_t)xr[k] * w1[k]);
      }
      yr[o] = cm_finish(a0, g->mult[o], g->shift[o], g);
      yr[o + 1] = cm_finish(a1, g->mult[o + 1], g->shift[o + 1], g);
    }
    for (; o < OC; o++) {
      const int8_t *w0 = g->w + o * K;
      int32_t a0 = cm_wadd(init[o], radd);
      for (int64_t k = 0; k < K4; k += 4) {
        const int8x4_t xv = cm_ld4(xr + k), v0 = cm_ld4(w0 + k);
        a0 = __smlad(__sxtb16(xv), __sxtb16(v0), a0);
        a0 = __smlad(__sxtb16(cm_rot8(xv)), __sxtb16(cm_rot8(v0)), a0);
      }
      for (int64_t k = K4; k < K; k++) a0 = cm_wadd(a0, (int32_t)xr[k] * w0[k]);
      yr[o] = cm_finish(a0, g->mult[o], g->shift[o], g);
    }
  }
}

/* Depthwise: four channels per word; SXTAB16 adds the input offset while sign-extending. */
void pte_cm_dw_arm(const pte_cm_dw *d) {
  const int64_t C = d->C, C4 = C & ~(int64_t)3;
  const int16x2_t off2 =
      (int16x2_t)(((uint32_t)(uint16_t)d->in_off) | ((uint32_t)(uint16_t)d->in_off << 16));
  for (int64_t oy = 0; oy < d->OH; oy++)
    for (int64_t ox = 0; ox < d->OW; ox++) {
      const int64_t iy0 = oy * d->sh - d->ph, ix0 = ox * d->sw - d->pw;
      int8_t *yp = d->y + (oy * d->OW + ox) * C;
      for (int64_t c = 0; c < C; c += 4) {
        const bool full = c < C4;
        int32_t a[4] = {0, 0, 0, 0};
        for (int64_t j = 0; j < 4 && c + j < C; j++) a[j] = d->bias[c + j];
        for (int64_t ky = 0; ky < d->KH; ky++) {
          const int64_t iy = iy0 + ky * d->dh;
          if (iy < 0 || iy >= d->H) continue;
          for (int64_t kx = 0; kx < d->KW; kx++) {
            const int64_t ix = ix0 + kx * d->dw;
            if (ix < 0 || ix >= d->W) continue;
            const int8_t *xp = d->x + (iy * d->W + ix) * C + c;
            const int8_t *wp = d->w + (ky * d->KW + kx) * C + c;
            if (full) {
              /* (x + off) * w per channel: SMLABB / SMLATT on the SXTB16 halves */
              const int8x4_t xv = cm_ld4(xp), wv = cm_ld4(wp);
              const int16x2_t xe = __sxtab16(off2, xv), xo = __sxtab16(off2, cm_rot8(xv));
              const int16x2_t we = __sxtb16(wv), wo = __sxtb16(cm_rot8(wv));
              a[0] = __smlabb(xe, we, a[0]);
              a[2] = __smlatt(xe, we, a[2]);
              a[1] = __smlabb(xo, wo, a[1]);
              a[3] = __smlatt(xo, wo, a[3]);
            } else {
              for (int64_t j = 0; c + j < C; j++)
                a[j] = cm_wadd(a[j], ((int32_t)xp[j] + d->in_off) * (int32_t)wp[j]);
            }
          }
        }
        for (int64_t j = 0; j < 4 && c + j < C; j++) {
          int32_t v = cm_wadd(pte_cm_requantize(a[j], d->mult[c + j], d->shift[c + j]), d->out_off);
          yp[c + j] = (int8_t)pte_cm_clamp32(v, d->act_min, d->act_max);
        }
      }
    }
}

#else
bool pte_cm_simd_arm_compiled(void) { return false; }
void pte_cm_gemm_arm(const pte_cm_gemm *g) { (void)g; }
void pte_cm_dw_arm(const pte_cm_dw *d) { (void)d; }
#endif
