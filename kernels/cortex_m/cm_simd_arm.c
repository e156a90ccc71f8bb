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
#include <stddef.h>
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
/* SXTB16 of the word rotated right by 8 (bytes 1 and 3) in one instruction: GCC 12 does not
 * fold the rotation into the instruction's ROR operand by itself. */
static inline int16x2_t cm_sxtb16_odd(int8x4_t v) {
  int16x2_t r;
  __asm__("sxtb16 %0, %1, ror #8" : "=r"(r) : "r"(v));
  return r;
}
static inline int32_t cm_wadd(int32_t a, int32_t b) {
  return (int32_t)((uint32_t)a + (uint32_t)b);
}

/* pte_cm_requantize for the 32-bit target with the shift split into left = max(s, 0) and
 * right = max(-s, 0): SMULL-based doubling high multiply, then the rounding divide by 2^right
 * (ties away from zero). `>>` on a negative int32 is an arithmetic shift with GCC and Clang
 * (implementation-defined in C, defined by both compilers), which this Arm-only file relies on. */
static inline int32_t cm_rq(int32_t v, int32_t m, int left, int right) {
  const int32_t a = pte_cm_wrap32((int64_t)((uint32_t)v << left));
  const int64_t p = (int64_t)a * m + (1LL << 30);
  const int32_t h = pte_cm_wrap32((int64_t)(uint32_t)((uint64_t)p >> 31));
  const int32_t mask = (int32_t)((1u << right) - 1u);
  const int32_t rem = h & mask;
  const int32_t res = h >> right;
  const int32_t thr = (mask >> 1) + (h < 0 ? 1 : 0);
  return res + (rem > thr ? 1 : 0);
}

/* requantize / offset / clamp of one accumulator of channel o (the shift split on the fly:
 * per-channel tables would cost 1.5 KiB of stack for 256 channels) */
static inline int8_t cm_out(int32_t acc, const int32_t *mult, const int32_t *shift, int o,
                            int32_t ooff, int32_t lo, int32_t hi) {
  const int32_t sh = shift[o];
  const int32_t v = cm_wadd(cm_rq(acc, mult[o], sh > 0 ? sh : 0, sh > 0 ? 0 : -sh), ooff);
  return (int8_t)(v < lo ? lo : (v > hi ? hi : v));
}

/* acc += x . w over K int8 (SMLAD on the SXTB16 halves, scalar tail) */
static inline int32_t cm_dot1(const int8_t *x, const int8_t *w, int K, int32_t acc) {
  int k = 0;
  for (; k + 4 <= K; k += 4) {
    const int8x4_t xv = cm_ld4(x + k), wv = cm_ld4(w + k);
    acc = __smlad(__sxtb16(xv), __sxtb16(wv), acc);
    acc = __smlad(cm_sxtb16_odd(xv), cm_sxtb16_odd(wv), acc);
  }
  for (; k < K; k++) acc = cm_wadd(acc, (int32_t)x[k] * w[k]);
  return acc;
}

/* The GEMM over output channels [0, OC) of g; OC <= CM_ARM_OCB. */
#define CM_ARM_OCB 32
static void cm_gemm_block(const pte_cm_gemm *g) {
  const int K = (int)g->K, OC = (int)g->OC, P = (int)g->P, K4 = K & ~3;
  const int32_t ooff = g->out_off, lo = g->act_min, hi = g->act_max;
  int32_t init[CM_ARM_OCB];
  for (int o = 0; o < OC; o++) {
    const int8_t *wr = g->w + (ptrdiff_t)o * K;
    int32_t s = 0;
    for (int k = 0; k < K; k++) s = cm_wadd(s, wr[k]);
    init[o] = cm_wadd(g->bias[o], (int32_t)((uint32_t)s * (uint32_t)g->in_off));
  }
  int p = 0;
  /* two rows x two output channels: each loaded word feeds two SMLAD pairs */
  for (; p + 2 <= P; p += 2) {
    const int8_t *x0 = g->x + (ptrdiff_t)p * g->xs, *x1 = x0 + g->xs;
    int8_t *y0 = g->y + (ptrdiff_t)p * g->ys, *y1 = y0 + g->ys;
    const int32_t r0 = g->row_add ? g->row_add[p] : 0, r1 = g->row_add ? g->row_add[p + 1] : 0;
    int o = 0;
    for (; o + 2 <= OC; o += 2) {
      const int8_t *w0 = g->w + (ptrdiff_t)o * K, *w1 = w0 + K;
      int32_t a00 = cm_wadd(init[o], r0), a01 = cm_wadd(init[o + 1], r0);
      int32_t a10 = cm_wadd(init[o], r1), a11 = cm_wadd(init[o + 1], r1);
      const int8_t *pa = x0, *pb = x1, *qa = w0, *qb = w1;
      for (int k = 0; k < K4; k += 4, pa += 4, pb += 4, qa += 4, qb += 4) {
        const int8x4_t xa = cm_ld4(pa), xb = cm_ld4(pb);
        const int8x4_t wa = cm_ld4(qa), wb = cm_ld4(qb);
        const int16x2_t xae = __sxtb16(xa), xao = cm_sxtb16_odd(xa);
        const int16x2_t xbe = __sxtb16(xb), xbo = cm_sxtb16_odd(xb);
        const int16x2_t wae = __sxtb16(wa), wao = cm_sxtb16_odd(wa);
        const int16x2_t wbe = __sxtb16(wb), wbo = cm_sxtb16_odd(wb);
        a00 = __smlad(xao, wao, __smlad(xae, wae, a00));
        a01 = __smlad(xao, wbo, __smlad(xae, wbe, a01));
        a10 = __smlad(xbo, wao, __smlad(xbe, wae, a10));
        a11 = __smlad(xbo, wbo, __smlad(xbe, wbe, a11));
      }
      for (int k = K4; k < K; k++) {
        a00 = cm_wadd(a00, (int32_t)x0[k] * w0[k]);
        a01 = cm_wadd(a01, (int32_t)x0[k] * w1[k]);
        a10 = cm_wadd(a10, (int32_t)x1[k] * w0[k]);
        a11 = cm_wadd(a11, (int32_t)x1[k] * w1[k]);
      }
      y0[o] = cm_out(a00, g->mult, g->shift, o, ooff, lo, hi);
      y0[o + 1] = cm_out(a01, g->mult, g->shift, o + 1, ooff, lo, hi);
      y1[o] = cm_out(a10, g->mult, g->shift, o, ooff, lo, hi);
      y1[o + 1] = cm_out(a11, g->mult, g->shift, o + 1, ooff, lo, hi);
    }
    for (; o < OC; o++) {
      const int8_t *w0 = g->w + (ptrdiff_t)o * K;
      y0[o] = cm_out(cm_dot1(x0, w0, K, cm_wadd(init[o], r0)), g->mult, g->shift, o, ooff, lo, hi);
      y1[o] = cm_out(cm_dot1(x1, w0, K, cm_wadd(init[o], r1)), g->mult, g->shift, o, ooff, lo, hi);
    }
  }
  for (; p < P; p++) {
    const int8_t *x0 = g->x + (ptrdiff_t)p * g->xs;
    int8_t *y0 = g->y + (ptrdiff_t)p * g->ys;
    const int32_t r0 = g->row_add ? g->row_add[p] : 0;
    for (int o = 0; o < OC; o++)
      y0[o] = cm_out(cm_dot1(x0, g->w + (ptrdiff_t)o * K, K, cm_wadd(init[o], r0)), g->mult, g->shift, o, ooff,
                     lo, hi);
  }
}

/* Output channels in blocks of CM_ARM_OCB (their accumulator starts stay on a small stack). */
void pte_cm_gemm_arm(const pte_cm_gemm *g) {
  pte_cm_gemm b = *g;
  for (int64_t o0 = 0; o0 < g->OC; o0 += CM_ARM_OCB) {
    b.OC = g->OC - o0 < CM_ARM_OCB ? g->OC - o0 : CM_ARM_OCB;
    b.w = g->w + o0 * g->K;
    b.bias = g->bias + o0;
    b.mult = g->mult + o0;
    b.shift = g->shift + o0;
    b.y = g->y + o0;
    cm_gemm_block(&b);
  }
}

/* Depthwise: four channels per word; SXTAB16 adds the input offset while sign-extending, and
 * SMLABB / SMLATT multiply-accumulate the halves. Valid tap ranges are found once per pixel. */
void pte_cm_dw_arm(const pte_cm_dw *d) {
  const int C = (int)d->C, C4 = C & ~3, H = (int)d->H, W = (int)d->W, KH = (int)d->KH,
            KW = (int)d->KW, OH = (int)d->OH, OW = (int)d->OW;
  const int sh = (int)d->sh, sw = (int)d->sw, ph = (int)d->ph, pw = (int)d->pw, dh = (int)d->dh,
            dw = (int)d->dw;
  const int32_t ooff = d->out_off, lo = d->act_min, hi = d->act_max, ioff = d->in_off;
  const int16x2_t off2 = (int16x2_t)(((uint32_t)(uint16_t)ioff) | ((uint32_t)(uint16_t)ioff << 16));
  for (int oy = 0; oy < OH; oy++) {
    const int iy0 = oy * sh - ph;
    int ky0 = 0, ky1 = KH;
    while (ky0 < ky1 && iy0 + ky0 * dh < 0) ky0++;
    while (ky1 > ky0 && iy0 + (ky1 - 1) * dh >= H) ky1--;
    for (int ox = 0; ox < OW; ox++) {
      const int ix0 = ox * sw - pw;
      int kx0 = 0, kx1 = KW;
      while (kx0 < kx1 && ix0 + kx0 * dw < 0) kx0++;
      while (kx1 > kx0 && ix0 + (kx1 - 1) * dw >= W) kx1--;
      int8_t *yp = d->y + ((ptrdiff_t)oy * OW + ox) * C;
      for (int c = 0; c < C4; c += 4) {
        int32_t a0 = d->bias[c], a1 = d->bias[c + 1], a2 = d->bias[c + 2], a3 = d->bias[c + 3];
        for (int ky = ky0; ky < ky1; ky++) {
          const int8_t *xp = d->x + ((ptrdiff_t)(iy0 + ky * dh) * W + ix0 + kx0 * dw) * C + c;
          const int8_t *wp = d->w + ((ptrdiff_t)ky * KW + kx0) * C + c;
          for (int kx = kx0; kx < kx1; kx++, xp += dw * C, wp += C) {
            const int8x4_t xv = cm_ld4(xp), wv = cm_ld4(wp);
            const int16x2_t xe = __sxtab16(off2, xv), xo = __sxtab16(off2, cm_rot8(xv));
            const int16x2_t we = __sxtb16(wv), wo = cm_sxtb16_odd(wv);
            a0 = __smlabb(xe, we, a0);
            a2 = __smlatt(xe, we, a2);
            a1 = __smlabb(xo, wo, a1);
            a3 = __smlatt(xo, wo, a3);
          }
        }
        yp[c] = cm_out(a0, d->mult, d->shift, c, ooff, lo, hi);
        yp[c + 1] = cm_out(a1, d->mult, d->shift, c + 1, ooff, lo, hi);
        yp[c + 2] = cm_out(a2, d->mult, d->shift, c + 2, ooff, lo, hi);
        yp[c + 3] = cm_out(a3, d->mult, d->shift, c + 3, ooff, lo, hi);
      }
      for (int c = C4; c < C; c++) {
        int32_t a = d->bias[c];
        for (int ky = ky0; ky < ky1; ky++)
          for (int kx = kx0; kx < kx1; kx++)
            a = cm_wadd(a, ((int32_t)d->x[((ptrdiff_t)(iy0 + ky * dh) * W + ix0 + kx * dw) * C + c] +
                            ioff) * (int32_t)d->w[((ptrdiff_t)ky * KW + kx) * C + c]);
        yp[c] = cm_out(a, d->mult, d->shift, c, ooff, lo, hi);
      }
    }
  }
}

#else
bool pte_cm_simd_arm_compiled(void) { return false; }
void pte_cm_gemm_arm(const pte_cm_gemm *g) { (void)g; }
void pte_cm_dw_arm(const pte_cm_dw *d) { (void)d; }
#endif
