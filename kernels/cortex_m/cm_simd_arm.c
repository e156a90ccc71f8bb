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

/* requantize / offset / clamp of one accumulator with the shift split into left / right */
static inline int8_t cm_fin(int32_t acc, int32_t m, int left, int right, int32_t ooff, int32_t lo,
                            int32_t hi) {
  const int32_t v = cm_wadd(cm_rq(acc, m, left, right), ooff);
  return (int8_t)(v < lo ? lo : (v > hi ? hi : v));
}
/* the same for channel o, the shift split on the fly (per-channel tables for 256 channels
 * would cost 1.5 KiB of stack; measured no faster on M4 for the depthwise loop) */
static inline int8_t cm_out(int32_t acc, const int32_t *mult, const int32_t *shift, int o,
                            int32_t ooff, int32_t lo, int32_t hi) {
  const int32_t sh = shift[o];
  return cm_fin(acc, mult[o], sh > 0 ? sh : 0, sh > 0 ? 0 : -sh, ooff, lo, hi);
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
  uint8_t left[CM_ARM_OCB], right[CM_ARM_OCB];
  for (int o = 0; o < OC; o++) {
    left[o] = (uint8_t)(g->shift[o] > 0 ? g->shift[o] : 0);
    right[o] = (uint8_t)(g->shift[o] > 0 ? 0 : -g->shift[o]);
  }
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
      y0[o] = cm_fin(a00, g->mult[o], left[o], right[o], ooff, lo, hi);
      y0[o + 1] = cm_fin(a01, g->mult[o + 1], left[o + 1], right[o + 1], ooff, lo, hi);
      y1[o] = cm_fin(a10, g->mult[o], left[o], right[o], ooff, lo, hi);
      y1[o + 1] = cm_fin(a11, g->mult[o + 1], left[o + 1], right[o + 1], ooff, lo, hi);
    }
    for (; o < OC; o++) {
      const int8_t *w0 = g->w + (ptrdiff_t)o * K;
      const int32_t a0 = cm_dot1(x0, w0, K, cm_wadd(init[o], r0));
      const int32_t a1 = cm_dot1(x1, w0, K, cm_wadd(init[o], r1));
      y0[o] = cm_fin(a0, g->mult[o], left[o], right[o], ooff, lo, hi);
      y1[o] = cm_fin(a1, g->mult[o], left[o], right[o], ooff, lo, hi);
    }
  }
  for (; p < P; p++) {
    const int8_t *x0 = g->x + (ptrdiff_t)p * g->xs;
    int8_t *y0 = g->y + (ptrdiff_t)p * g->ys;
    const int32_t r0 = g->row_add ? g->row_add[p] : 0;
    for (int o = 0; o < OC; o++) {
      const int32_t a0 = cm_dot1(x0, g->w + (ptrdiff_t)o * K, K, cm_wadd(init[o], r0));
      y0[o] = cm_fin(a0, g->mult[o], left[o], right[o], ooff, lo, hi);
    }
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
    ptrdiff_t ky0, ky1;
    pte_cm_valid_taps(iy0, dh, KH, H, &ky0, &ky1);
    for (int ox = 0; ox < OW; ox++) {
      const int ix0 = ox * sw - pw;
      ptrdiff_t kx0, kx1;
      pte_cm_valid_taps(ix0, dw, KW, W, &kx0, &kx1);
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

/* Pooling over four channels per word. Max: SSUB8 sets a GE flag per byte lane where the new
 * value is >= the running maximum and SEL takes those lanes from it (one asm block, so nothing
 * can clobber the GE flags in between); the clamp is scalar. Average: SXTAB16 adds the even and
 * odd bytes to int16 pairs, flushed to int32 every 256 taps (|256 * -128| fits int16), then the
 * portable rounding division (ties away from zero). */
static inline uint32_t cm_max4(uint32_t v, uint32_t m) {
  uint32_t r;
  __asm__("ssub8 %0, %1, %2\n\tsel %0, %1, %2" : "=&r"(r) : "r"(v), "r"(m) : "cc");
  return r;
}

void pte_cm_pool_arm(const pte_cm_pool *p) {
  const int64_t C = p->C, C4 = C & ~(int64_t)3, cnt = (p->ye - p->ys) * (p->xe - p->xs);
  const int64_t half = cnt / 2;
  for (int64_t c = 0; c < C4; c += 4) {
    int32_t v[4];
    if (p->is_max) {
      uint32_t m = 0x80808080u;
      for (int64_t iy = p->ys; iy < p->ye; iy++)
        for (int64_t ix = p->xs; ix < p->xe; ix++) {
          uint32_t w;
          memcpy(&w, p->x + iy * p->row + ix * C + c, 4);
          m = cm_max4(w, m);
        }
      for (int j = 0; j < 4; j++) {
        const int32_t t = (int8_t)(uint8_t)(m >> (8 * j));
        v[j] = t < p->lo ? p->lo : (t > p->hi ? p->hi : t);
      }
    } else {
      int64_t sum[4] = {0, 0, 0, 0};
      int16x2_t se = 0, so = 0;
      int taps = 0;
      for (int64_t iy = p->ys; iy < p->ye; iy++)
        for (int64_t ix = p->xs; ix < p->xe; ix++) {
          const int8x4_t w = cm_ld4(p->x + iy * p->row + ix * C + c);
          se = __sxtab16(se, w);
          so = __sxtab16(so, cm_rot8(w));
          if (++taps == 256) {
            sum[0] += (int16_t)(uint16_t)((uint32_t)se & 0xffffu);
            sum[2] += (int16_t)(uint16_t)((uint32_t)se >> 16);
            sum[1] += (int16_t)(uint16_t)((uint32_t)so & 0xffffu);
            sum[3] += (int16_t)(uint16_t)((uint32_t)so >> 16);
            se = so = 0;
            taps = 0;
          }
        }
      sum[0] += (int16_t)(uint16_t)((uint32_t)se & 0xffffu);
      sum[2] += (int16_t)(uint16_t)((uint32_t)se >> 16);
      sum[1] += (int16_t)(uint16_t)((uint32_t)so & 0xffffu);
      sum[3] += (int16_t)(uint16_t)((uint32_t)so >> 16);
      for (int j = 0; j < 4; j++) {
        int64_t t = sum[j] > 0 ? (sum[j] + half) / cnt : (sum[j] - half) / cnt;
        v[j] = (int32_t)(t < -128 ? -128 : (t > 127 ? 127 : t));
      }
    }
    for (int j = 0; j < 4; j++) p->y[c + j] = (int8_t)v[j];
  }
  for (int64_t c = C4; c < C; c++) {
    int64_t acc = p->is_max ? -128 : 0;
    for (int64_t iy = p->ys; iy < p->ye; iy++)
      for (int64_t ix = p->xs; ix < p->xe; ix++) {
        const int8_t t = p->x[iy * p->row + ix * C + c];
        if (p->is_max)
          acc = t > acc ? t : acc;
        else
          acc += t;
      }
    if (p->is_max) {
      acc = acc < p->lo ? p->lo : (acc > p->hi ? p->hi : acc);
    } else {
      acc = acc > 0 ? (acc + half) / cnt : (acc - half) / cnt;
      acc = acc < -128 ? -128 : (acc > 127 ? 127 : acc);
    }
    p->y[c] = (int8_t)acc;
  }
}

/* Elementwise add / mul, four elements per word: SXTAB16 adds the (negated) zero points while
 * sign-extending the even and odd bytes (|x + off| <= 255 fits the int16 lanes for the zero
 * points the op accepts; others take the scalar loop), SMULBB / SMULTT form the products of mul;
 * the requantizations are the scalar ones, per element. */
static inline int8_t cm_addmul1(const pte_cm_addmul *e, int32_t x1, int32_t x2, int l1, int r1,
                                int l2, int r2, int lo_, int ro) {
  int32_t acc;
  if (e->is_mul) {
    acc = (int32_t)((uint32_t)x1 * (uint32_t)x2);
  } else {
    acc = cm_wadd(cm_rq((int32_t)((uint32_t)x1 << 20), e->m1, l1, r1),
                  cm_rq((int32_t)((uint32_t)x2 << 20), e->m2, l2, r2));
  }
  const int32_t v = cm_wadd(cm_rq(acc, e->mo, lo_, ro), e->zpo);
  return (int8_t)(v < e->lo ? e->lo : (v > e->hi ? e->hi : v));
}

void pte_cm_addmul_arm(const pte_cm_addmul *e) {
  const int l1 = e->s1 > 0 ? e->s1 : 0, r1 = e->s1 > 0 ? 0 : -e->s1;
  const int l2 = e->s2 > 0 ? e->s2 : 0, r2 = e->s2 > 0 ? 0 : -e->s2;
  const int lo_ = e->so > 0 ? e->so : 0, ro = e->so > 0 ? 0 : -e->so;
  int64_t i = 0;
  if (e->off1 >= -256 && e->off1 <= 256 && e->off2 >= -256 && e->off2 <= 256) {
    const int16x2_t o1 = (int16x2_t)(((uint32_t)(uint16_t)e->off1) | ((uint32_t)(uint16_t)e->off1 << 16));
    const int16x2_t o2 = (int16x2_t)(((uint32_t)(uint16_t)e->off2) | ((uint32_t)(uint16_t)e->off2 << 16));
    for (; i + 4 <= e->n; i += 4) {
      const int8x4_t av = cm_ld4(e->a + i), bv = cm_ld4(e->b + i);
      const int16x2_t ae = __sxtab16(o1, av), ao = __sxtab16(o1, cm_rot8(av));
      const int16x2_t be = __sxtab16(o2, bv), bo = __sxtab16(o2, cm_rot8(bv));
      int8_t *y = e->y + i;
      if (e->is_mul) {
        /* products of the int16 lanes; x1 * x2 is then taken as is (no wrap possible) */
        const int32_t p0 = __smlabb(ae, be, 0), p2 = __smlatt(ae, be, 0);
        const int32_t p1 = __smlabb(ao, bo, 0), p3 = __smlatt(ao, bo, 0);
        const int32_t pr[4] = {p0, p1, p2, p3};
        for (int j = 0; j < 4; j++) {
          const int32_t v = cm_wadd(cm_rq(pr[j], e->mo, lo_, ro), e->zpo);
          y[j] = (int8_t)(v < e->lo ? e->lo : (v > e->hi ? e->hi : v));
        }
      } else {
        const int32_t xa[4] = {(int16_t)(uint16_t)((uint32_t)ae & 0xffffu),
                               (int16_t)(uint16_t)((uint32_t)ao & 0xffffu),
                               (int16_t)(uint16_t)((uint32_t)ae >> 16),
                               (int16_t)(uint16_t)((uint32_t)ao >> 16)};
        const int32_t xb[4] = {(int16_t)(uint16_t)((uint32_t)be & 0xffffu),
                               (int16_t)(uint16_t)((uint32_t)bo & 0xffffu),
                               (int16_t)(uint16_t)((uint32_t)be >> 16),
                               (int16_t)(uint16_t)((uint32_t)bo >> 16)};
        for (int j = 0; j < 4; j++) y[j] = cm_addmul1(e, xa[j], xb[j], l1, r1, l2, r2, lo_, ro);
      }
    }
  }
  for (; i < e->n; i++)
    e->y[i] = cm_addmul1(e, (int32_t)e->a[i] + e->off1, (int32_t)e->b[i] + e->off2, l1, r1, l2,
                         r2, lo_, ro);
}

#else
bool pte_cm_simd_arm_compiled(void) { return false; }
void pte_cm_gemm_arm(const pte_cm_gemm *g) { (void)g; }
void pte_cm_dw_arm(const pte_cm_dw *d) { (void)d; }
void pte_cm_pool_arm(const pte_cm_pool *p) { (void)p; }
void pte_cm_addmul_arm(const pte_cm_addmul *e) { (void)e; }
#endif
