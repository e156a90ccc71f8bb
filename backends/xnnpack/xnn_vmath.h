/* xnn_vmath.h — fp32 elementwise kernels written once over a small set of vector primitives and
 * instantiated per ISA (xnn_vec_scalar.c, xnn_vec_avx2.c, xnn_vec_avx512.c include this file
 * after defining the primitives). Not a public header; include only from those files.
 *
 * Primitives the includer defines (VT: float vector, VI: int32 vector, VM: lane mask):
 *   VN lanes; VFN attribute of every kernel (target), VFNI of helpers (target, always inline);
 *   VNAME(x) adds the ISA suffix
 *   VLOAD(p) VSTORE(p, v) VLOADN(p, n) VSTOREN(p, n, v) (n < VN lanes, others 0 / untouched)
 *   VSET(f) VADD VSUB VMUL VDIV VFMA(a, b, c) = a * b + c  VSQRT VFLOOR VCEIL VABS VNEG
 *   VRCP(d) 1 / d for d in [1, 2] (an estimate refined by Newton steps where that is faster)
 *   VMAXX(a, b) / VMINX(a, b): x86 semantics (b when either is NaN)
 *   VLT(a, b) mask a < b; VISNAN(a) mask; VSEL(m, a, b) = m ? a : b; VCOPYSIGN(mag, sgn)
 *   VASI(v) VASF(i) bit casts; VSETI(i) VADDI VSUBI VANDI VORI VSLLI(i, k) VSRAI(i, k)
 *   VCVTIF(i) int32 -> float
 *
 * Accuracy (tests/unit/test_xnnpack_vmath.c, against double-precision libm over ~1.5M inputs per
 * function plus edge values; normal-range results, float ulps; measured max / asserted bound):
 *   exp 1.03 / 2, log 0.86 / 2, sigmoid 2.52 / 3, tanh 2.49 / 3, ELU 1.43 / 3 (alpha 0.3; 0.84 for alpha 1),
 *   SiLU 3.20 / 4 for x >= -87.3, GELU 6.89 / 8 (denormal results within 4 x 2^-149), sin 2.29 / 3
 *   for |x| <= 6000 (beyond: libm's sinf for the whole call); denormal results of exp: within 2^-149. Sigmoid and SiLU
 *   flush e^-|x| below FLT_MIN to 0: sigmoid results below FLT_MIN (x < -87.34) are 0
 *   (absolute error < 2^-126), SiLU there is x * 0 (absolute error < |x| 2^-126).
 *   abs, neg, square, sqrt, rsqrt (1 / sqrt), floor, ceil, clamp, hardswish, leaky ReLU and the
 *   binary operators are bit-identical to their scalar C definitions. NaN in, NaN out; exp
 *   overflows to +inf above ~88.72.
 */

/* exp(x) for any x: n = round(x / ln2), r = x - n ln2 (|r| <= ln2 / 2), e^r = 1 + p(r) with the
 * degree-7 Taylor polynomial (truncation < 2e-9 relative), scaled by 2^n as 2^n1 * 2^n2 so that
 * results down to the denormals are right. */
VFNI static VT VNAME(vm_exp)(VT x) {
  x = VMINX(VSET(88.8f), VMAXX(VSET(-104.0f), x));
  const VT magic = VSET(12582912.0f); /* 0x1.8p23: adding it rounds to an integer in the low bits */
  const VT t = VFMA(x, VSET(1.44269504088896341f), magic);
  const VT n = VSUB(t, magic);
  VT r = VFMA(n, VSET(-0.693145751953125f), x);
  r = VFMA(n, VSET(-1.42860682030941723e-6f), r);
  VT p = VFMA(r, VSET(1.0f / 5040.0f), VSET(1.0f / 720.0f));
  p = VFMA(p, r, VSET(1.0f / 120.0f));
  p = VFMA(p, r, VSET(1.0f / 24.0f));
  p = VFMA(p, r, VSET(1.0f / 6.0f));
  p = VFMA(p, r, VSET(0.5f));
  p = VFMA(VMUL(p, r), r, r); /* expm1(r) */
  const VI ni = VSRAI(VSLLI(VASI(t), 23), 23);
  const VI n1 = VSRAI(ni, 1), n2 = VSUBI(ni, n1);
  const VT s1 = VASF(VSLLI(VADDI(n1, VSETI(127)), 23)), s2 = VASF(VSLLI(VADDI(n2, VSETI(127)), 23));
  return VMUL(VFMA(p, s1, s1), s2);
}

/* expm1(x) for x <= 0 (callers pass min(x, 0)): 2^n (1 + p) - 1 = 2^n p + (2^n - 1), where
 * 2^n - 1 is exact for n >= -24; below -17.5 the result is -1 in float. */
VFNI static VT VNAME(vm_expm1_neg)(VT x) {
  x = VMAXX(VSET(-17.5f), x);
  const VT magic = VSET(12582912.0f);
  const VT t = VFMA(x, VSET(1.44269504088896341f), magic);
  const VT n = VSUB(t, magic);
  VT r = VFMA(n, VSET(-0.693145751953125f), x);
  r = VFMA(n, VSET(-1.42860682030941723e-6f), r);
  VT p = VFMA(r, VSET(1.0f / 5040.0f), VSET(1.0f / 720.0f));
  p = VFMA(p, r, VSET(1.0f / 120.0f));
  p = VFMA(p, r, VSET(1.0f / 24.0f));
  p = VFMA(p, r, VSET(1.0f / 6.0f));
  p = VFMA(p, r, VSET(0.5f));
  p = VFMA(VMUL(p, r), r, r);
  const VI ni = VSRAI(VSLLI(VASI(t), 23), 23);
  const VT s = VASF(VSLLI(VADDI(ni, VSETI(127)), 23));
  return VFMA(s, p, VSUB(s, VSET(1.0f)));
}

/* log(x): x = m 2^e with m in [sqrt(1/2), sqrt(2)) (denormals scaled by 2^23 first), f = m - 1,
 * s = f / (2 + f), log(1 + f) = f - f^2/2 + s (f^2/2 + R(s^2)) with R(z) = 2z/3 + 2z^2/5 + 2z^3/7
 * + 2z^4/9 (the atanh series; truncation < 0.05 ulp), plus e ln2 in two parts. x < 0 or NaN:
 * NaN; +-0: -inf; +inf: +inf. */
VFNI static VT VNAME(vm_log)(VT x) {
  const VM dn = VLT(x, VSET(1.17549435e-38f));
  const VT one = VSET(1.0f);
  const VT xs = VSEL(dn, VMUL(x, VSET(8388608.0f)), x);
  const VI bits = VASI(xs);
  VT m = VASF(VORI(VANDI(bits, VSETI(0x007FFFFF)), VSETI(0x3F800000)));
  VT e = VCVTIF(VSUBI(VSRAI(bits, 23), VSETI(127)));
  e = VSEL(dn, VSUB(e, VSET(23.0f)), e);
  const VM big = VLT(VSET(1.41421356f), m);
  m = VSEL(big, VMUL(m, VSET(0.5f)), m);
  e = VSEL(big, VADD(e, one), e);
  const VT f = VSUB(m, one);
  const VT sv = VDIV(f, VADD(VSET(2.0f), f));
  const VT z = VMUL(sv, sv);
  VT r = VFMA(z, VSET(2.0f / 9.0f), VSET(2.0f / 7.0f));
  r = VFMA(r, z, VSET(2.0f / 5.0f));
  r = VFMA(r, z, VSET(2.0f / 3.0f));
  r = VMUL(r, z);
  const VT hfsq = VMUL(VMUL(VSET(0.5f), f), f);
  const VT logm = VSUB(f, VSUB(hfsq, VMUL(sv, VADD(hfsq, r))));
  VT y = VFMA(e, VSET(0.693145751953125f), VFMA(e, VSET(1.42860682030941723e-6f), logm));
  y = VSEL(VLT(VSET(0.0f), x), y, VSET(NAN));                 /* x <= 0 or NaN */
  y = VSEL(VLT(VABS(x), VSET(1e-45f)), VSET(-INFINITY), y);    /* +-0 */
  return VSEL(VLT(VSET(3.40282347e38f), x), x, y);             /* +inf */
}

/* ---- unary operators: y[i] = f(x[i]) ------------------------------------------------------ */

#define VM_UNARY(name, EXPR)                                                                          \
  VFN static void VNAME(name)(size_t n, const float *xp, float *yp, const pte_xnn_uparams *prm) {    \
    (void)prm;                                                                                       \
    size_t i = 0;                                                                                    \
    for (; i + VN <= n; i += VN) {                                                                   \
      const VT x = VLOAD(xp + i);                                                                    \
      VSTORE(yp + i, EXPR);                                                                          \
    }                                                                                                \
    if (i < n) {                                                                                     \
      const VT x = VLOADN(xp + i, n - i);                                                            \
      VSTOREN(yp + i, n - i, EXPR);                                                                  \
    }                                                                                                \
  }

/* e^z for z <= 0 (sigmoid family): one-step 2^n scaling (n >= -126), degree-6 polynomial
 * (near-minimax on [-ln2/2, ln2/2], max relative error 0.07 x 2^-24); results below FLT_MIN
 * (z < -87.3365) are flushed to 0. */
VFNI static VT VNAME(vm_exp_neg)(VT z0) {
  const VT z = VMAXX(VSET(-87.3365f), z0); /* ln(FLT_MIN) = -87.33654 */
  const VT magic = VSET(12582912.0f);
  const VT t = VFMA(z, VSET(1.44269504088896341f), magic);
  const VT n = VSUB(t, magic);
  VT r = VFMA(n, VSET(-0.693145751953125f), z);
  r = VFMA(n, VSET(-1.42860682030941723e-6f), r);
  VT p = VFMA(r, VSET(0.00138144672f), VSET(0.00836878084f));
  p = VFMA(p, r, VSET(0.0416683927f));
  p = VFMA(p, r, VSET(0.166665196f));
  p = VFMA(p, r, VSET(0.49999994f));
  p = VFMA(VMUL(p, r), r, r); /* expm1(r) */
  const VT s = VASF(VSLLI(VADDI(VASI(t), VSETI(127)), 23));
  return VSEL(VLT(z0, VSET(-87.3365f)), VSET(0.0f), VFMA(p, s, s)); /* below FLT_MIN: 0 */
}

VFNI static VT VNAME(vm_sigmoid)(VT x) {
  const VT e = VNAME(vm_exp_neg)(VNEG(VABS(x))); /* e^-|x| in (0, 1]; >= 2^-126 */
  const VT d = VADD(VSET(1.0f), e); /* in [1, 2] */
  return VMUL(VSEL(VLT(x, VSET(0.0f)), e, VSET(1.0f)), VRCP(d));
}

VFNI static VT VNAME(vm_tanh)(VT x) {
  /* tanh|x| = -expm1(-2|x|) / (2 + expm1(-2|x|)); 1 in float beyond 9.01 */
  const VT a = VMINX(VSET(9.1f), VABS(x));
  const VT e = VNAME(vm_expm1_neg)(VMUL(VSET(-2.0f), a));
  return VCOPYSIGN(VDIV(VNEG(e), VADD(VSET(2.0f), e)), x);
}

VFNI static VT VNAME(vm_elu)(VT x, VT alpha) {
  const VT e = VNAME(vm_expm1_neg)(VMINX(VSET(0.0f), x));
  return VSEL(VLT(x, VSET(0.0f)), VMUL(alpha, e), x);
}

VM_UNARY(vu_abs, VABS(x))
VM_UNARY(vu_neg, VNEG(x))
VM_UNARY(vu_square, VMUL(x, x))
VM_UNARY(vu_sqrt, VSQRT(x))
VM_UNARY(vu_rsqrt, VDIV(VSET(1.0f), VSQRT(x)))
VM_UNARY(vu_floor, VFLOOR(x))
VM_UNARY(vu_ceil, VCEIL(x))
VM_UNARY(vu_clamp, VMINX(VSET(prm->vmax), VMAXX(VSET(prm->vmin), x)))
VM_UNARY(vu_sigmoid, VNAME(vm_sigmoid)(x))
VM_UNARY(vu_tanh, VNAME(vm_tanh)(x))
VM_UNARY(vu_exp, VNAME(vm_exp)(x))
VM_UNARY(vu_log, VNAME(vm_log)(x))
VM_UNARY(vu_elu, VNAME(vm_elu)(x, VSET(prm->alpha)))
VM_UNARY(vu_hardswish, VMUL(VMUL(x, VMINX(VSET(6.0f), VMAXX(VSET(0.0f), VADD(x, VSET(3.0f))))), VSET(1.0f / 6.0f)))
VM_UNARY(vu_leaky, VSEL(VLT(x, VSET(0.0f)), VMUL(x, VSET(prm->alpha)), x))
/* SiLU / swish, x * sigmoid(x): the Sigmoid + Multiply pair fused (xnn_elementwise.c) */
VM_UNARY(vu_silu, VMUL(x, VNAME(vm_sigmoid)(x)))
/* GELU, x Phi(x) with Phi(x) = erfc(-x / sqrt2) / 2. h = erfc(|x| / sqrt2) / 2 from the
 * Chebyshev-fitted erfc of Numerical Recipes (erfc(z) = t exp(-z^2 + Q(t)), t = 1 / (1 + z / 2),
 * fractional error < 1.2e-7 for every z >= 0); Phi = h for x < 0, 1 - h otherwise. z^2 = x^2 / 2
 * is kept exact by splitting |x| into 12 + 12 significant bits (xh^2 exact, the rest small), so
 * that exp(-x^2 / 2) = exp(-xh^2 / 2) exp(Q - (x^2 - xh^2) / 2) loses nothing for large |x|. */
VFNI static VT VNAME(vm_gelu)(VT x) {
  const VT ax = VMINX(VSET(16.0f), VABS(x)); /* NaN stays NaN; beyond 16 h is 0 in float */
  const VT t = VDIV(VSET(1.0f), VFMA(VSET(0.353553391f), ax, VSET(1.0f))); /* 1 / (1 + z / 2) */
  VT q = VFMA(t, VSET(0.17087277f), VSET(-0.82215223f));
  q = VFMA(q, t, VSET(1.48851587f));
  q = VFMA(q, t, VSET(-1.13520398f));
  q = VFMA(q, t, VSET(0.27886807f));
  q = VFMA(q, t, VSET(-0.18628806f));
  q = VFMA(q, t, VSET(0.09678418f));
  q = VFMA(q, t, VSET(0.37409196f));
  q = VFMA(q, t, VSET(1.00002368f));
  q = VFMA(q, t, VSET(-1.26551223f));
  const VT xh = VASF(VANDI(VASI(ax), VSETI((int)0xFFFFF000u)));
  const VT xl = VSUB(ax, xh);
  const VT lo = VMUL(VADD(VADD(xh, xh), xl), xl); /* x^2 - xh^2 */
  const VT e1 = VNAME(vm_exp)(VMUL(VSET(-0.5f), VMUL(xh, xh)));
  const VT e2 = VNAME(vm_exp)(VFMA(VSET(-0.5f), lo, q));
  const VT g = VMUL(VMUL(VSET(0.5f), t), e2); /* h = g e1; e1 last: it may be denormal */
  return VSEL(VLT(x, VSET(0.0f)), VMUL(VMUL(x, g), e1), VMUL(x, VSUB(VSET(1.0f), VMUL(g, e1))));
}
VM_UNARY(vu_gelu, VNAME(vm_gelu)(x))
/* sin(x) for |x| <= VM_SIN_MAX: j = round(2x / pi), r = x - j pi/2 with pi/2 in four parts (the
 * first three with 8, 12 and 12 significant bits: their products with j < 2^12 are exact), then
 * the sine or the cosine polynomial of Cephes' sinf / cosf on [-pi/4, pi/4] by the quadrant
 * j mod 4. */
#define VM_SIN_MAX 6000.0f
VFNI static VT VNAME(vm_sin)(VT x) {
  const VT magic = VSET(12582912.0f);
  const VT tq = VFMA(x, VSET(0.636619772f), magic);
  const VT j = VSUB(tq, magic);
  VT r = VFMA(j, VSET(-1.5703125f), x);
  r = VFMA(j, VSET(-4.837512969970703125e-4f), r);
  r = VFMA(j, VSET(-7.549533620476723e-8f), r);
  r = VFMA(j, VSET(-2.5633440682570896e-12f), r);
  const VT z = VMUL(r, r);
  VT sp = VFMA(z, VSET(-1.9515295891e-4f), VSET(8.3321608736e-3f));
  sp = VFMA(sp, z, VSET(-1.6666654611e-1f));
  sp = VFMA(VMUL(sp, z), r, r);
  VT cp = VFMA(z, VSET(2.443315711809948e-5f), VSET(-1.388731625493765e-3f));
  cp = VFMA(cp, z, VSET(4.166664568298827e-2f));
  cp = VFMA(VMUL(cp, z), z, VFMA(VSET(-0.5f), z, VSET(1.0f)));
  const VI qi = VASI(tq); /* low bits: j mod 4 */
  const VT y = VSEL(VLT(VSET(0.5f), VCVTIF(VANDI(qi, VSETI(1)))), cp, sp);
  return VSEL(VLT(VSET(0.5f), VCVTIF(VANDI(qi, VSETI(2)))), VNEG(y), y);
}
/* Larger |x| (or infinities) anywhere in the input: libm for all of it (the check comes first,
 * so x and y may be the same array). */
VFN static void VNAME(vu_sin)(size_t n, const float *xp, float *yp, const pte_xnn_uparams *prm) {
  (void)prm;
  VT big = VSET(0.0f);
  size_t i = 0;
  for (; i + VN <= n; i += VN) big = VMAXX(VABS(VLOAD(xp + i)), big); /* NaN is ignored */
  if (i < n) big = VMAXX(VABS(VLOADN(xp + i, n - i)), big);
  float lanes[VN];
  VSTORE(lanes, big);
  float m = 0.0f;
  for (int l = 0; l < VN; l++) m = lanes[l] > m ? lanes[l] : m;
  if (m > VM_SIN_MAX) {
    for (i = 0; i < n; i++) yp[i] = sinf(xp[i]);
    return;
  }
  for (i = 0; i + VN <= n; i += VN) VSTORE(yp + i, VNAME(vm_sin)(VLOAD(xp + i)));
  if (i < n) VSTOREN(yp + i, n - i, VNAME(vm_sin)(VLOADN(xp + i, n - i)));
}

/* ---- binary operators: y = clamp(a op b, vmin, vmax) over n elements ------------------------
 * Three shapes: both operands n long (vv), b one value (vs), a one value (sv). */

VFNI static VT VNAME(vb_min)(VT a, VT b) { return VSEL(VISNAN(a), a, VMINX(a, b)); }
VFNI static VT VNAME(vb_max)(VT a, VT b) { return VSEL(VISNAN(a), a, VMAXX(a, b)); }
VFNI static VT VNAME(vb_prelu)(VT a, VT b) { return VSEL(VLT(a, VSET(0.0f)), VMUL(a, b), a); }

#define VM_BINARY(name, EXPR)                                                                           \
  VFN static void VNAME(name##_vv)(size_t n, const float *ap, const float *bp, float *yp, float vmin, float vmax) { \
    const VT lo = VSET(vmin), hi = VSET(vmax);                                                         \
    size_t i = 0;                                                                                      \
    for (; i + VN <= n; i += VN) {                                                                     \
      const VT a = VLOAD(ap + i), b = VLOAD(bp + i);                                                   \
      VSTORE(yp + i, VMINX(hi, VMAXX(lo, EXPR)));                                                      \
    }                                                                                                  \
    if (i < n) {                                                                                       \
      const VT a = VLOADN(ap + i, n - i), b = VLOADN(bp + i, n - i);                                   \
      VSTOREN(yp + i, n - i, VMINX(hi, VMAXX(lo, EXPR)));                                              \
    }                                                                                                  \
  }                                                                                                    \
  VFN static void VNAME(name##_vs)(size_t n, const float *ap, const float *bp, float *yp, float vmin, float vmax) { \
    const VT lo = VSET(vmin), hi = VSET(vmax), b = VSET(bp[0]);                                        \
    size_t i = 0;                                                                                      \
    for (; i + VN <= n; i += VN) {                                                                     \
      const VT a = VLOAD(ap + i);                                                                      \
      VSTORE(yp + i, VMINX(hi, VMAXX(lo, EXPR)));                                                      \
    }                                                                                                  \
    if (i < n) {                                                                                       \
      const VT a = VLOADN(ap + i, n - i);                                                              \
      VSTOREN(yp + i, n - i, VMINX(hi, VMAXX(lo, EXPR)));                                              \
    }                                                                                                  \
  }                                                                                                    \
  VFN static void VNAME(name##_sv)(size_t n, const float *ap, const float *bp, float *yp, float vmin, float vmax) { \
    const VT lo = VSET(vmin), hi = VSET(vmax), a = VSET(ap[0]);                                        \
    size_t i = 0;                                                                                      \
    for (; i + VN <= n; i += VN) {                                                                     \
      const VT b = VLOAD(bp + i);                                                                      \
      VSTORE(yp + i, VMINX(hi, VMAXX(lo, EXPR)));                                                      \
    }                                                                                                  \
    if (i < n) {                                                                                       \
      const VT b = VLOADN(bp + i, n - i);                                                              \
      VSTOREN(yp + i, n - i, VMINX(hi, VMAXX(lo, EXPR)));                                              \
    }                                                                                                  \
  }

VM_BINARY(vb_add, VADD(a, b))
VM_BINARY(vb_sub, VSUB(a, b))
VM_BINARY(vb_mul, VMUL(a, b))
VM_BINARY(vb_div, VDIV(a, b))
VM_BINARY(vb_minimum, VNAME(vb_min)(a, b))
VM_BINARY(vb_maximum, VNAME(vb_max)(a, b))
VM_BINARY(vb_prelu_op, VNAME(vb_prelu)(a, b))

/* ---- depthwise convolution: npix output pixels of one row --------------------------------
 * out[p * out_step + ch] = clamp(bias[ch] + sum_t in[t][p * in_step + ch] * wt[t][ch]) for the
 * `taps` valid taps (TAPS > 0: a compile-time tap count, 9 for 3x3 and 25 for 5x5). Four pixels
 * at a time keep four independent FMA chains in flight. */
#define VM_DW_BLOCK(LD, ST)                                                               \
  {                                                                                       \
    VT a0 = LD(bias + ch), a1 = a0, a2 = a0, a3 = a0;                                     \
    for (size_t t = 0; t < taps; t++) {                                                   \
      const VT wv = LD(wt[t] + ch);                                                       \
      const float *ip = in[t] + p * in_step + ch;                                         \
      a0 = VFMA(LD(ip), wv, a0);                                                          \
      a1 = VFMA(LD(ip + in_step), wv, a1);                                                \
      a2 = VFMA(LD(ip + 2 * in_step), wv, a2);                                            \
      a3 = VFMA(LD(ip + 3 * in_step), wv, a3);                                            \
    }                                                                                     \
    float *op = out + p * out_step + ch;                                                  \
    ST(op, VMINX(hi, VMAXX(lo, a0)));                                                     \
    ST(op + out_step, VMINX(hi, VMAXX(lo, a1)));                                          \
    ST(op + 2 * out_step, VMINX(hi, VMAXX(lo, a2)));                                      \
    ST(op + 3 * out_step, VMINX(hi, VMAXX(lo, a3)));                                      \
  }
#define VM_DW_ONE(LD, ST)                                                                 \
  {                                                                                       \
    VT a0 = LD(bias + ch);                                                                \
    for (size_t t = 0; t < taps; t++) a0 = VFMA(LD(in[t] + p * in_step + ch), LD(wt[t] + ch), a0); \
    ST(out + p * out_step + ch, VMINX(hi, VMAXX(lo, a0)));                                \
  }
#define VM_LDF(q) VLOAD(q)
#define VM_STF(q, v) VSTORE(q, v)
#define VM_LDP(q) VLOADN(q, cn)
#define VM_STP(q, v) VSTOREN(q, cn, v)
#define VM_DW(name, TAPS)                                                                                        \
  VFN static void VNAME(name)(size_t npix, size_t c, size_t ntaps, const float *const *in, const float *const *wt, \
                              size_t in_step, const float *bias, float *out, size_t out_step, float vmin, float vmax) { \
    const size_t taps = (TAPS) ? (size_t)(TAPS) : ntaps;                                                        \
    const VT lo = VSET(vmin), hi = VSET(vmax);                                                                   \
    size_t p = 0;                                                                                                \
    for (; p + 4 <= npix; p += 4)                                                                                \
      for (size_t ch = 0; ch < c; ch += VN) {                                                                    \
        const size_t cn = c - ch < VN ? c - ch : VN;                                                             \
        if (cn == VN) VM_DW_BLOCK(VM_LDF, VM_STF)                                                                \
        else VM_DW_BLOCK(VM_LDP, VM_STP)                                                                         \
      }                                                                                                          \
    for (; p < npix; p++)                                                                                        \
      for (size_t ch = 0; ch < c; ch += VN) {                                                                    \
        const size_t cn = c - ch < VN ? c - ch : VN;                                                             \
        if (cn == VN) VM_DW_ONE(VM_LDF, VM_STF)                                                                  \
        else VM_DW_ONE(VM_LDP, VM_STP)                                                                           \
      }                                                                                                          \
  }

VM_DW(vd_any, 0)
VM_DW(vd_3x3, 9)
VM_DW(vd_5x5, 25)

/* ---- bilinear interpolation of four rows (resize) ------------------------------------------
 * y = t + (u - t) ly with t = p00 + (p01 - p00) lx, u = p10 + (p11 - p10) lx. */
#define VM_BILERP(LD, ST)                                                                 \
  {                                                                                       \
    const VT a = LD(p00 + i), t = VFMA(VSUB(LD(p01 + i), a), wx, a);                       \
    const VT c = LD(p10 + i), u = VFMA(VSUB(LD(p11 + i), c), wx, c);                       \
    ST(y + i, VFMA(VSUB(u, t), wy, t));                                                   \
  }
VFN static void VNAME(vk_bilerp)(size_t n, const float *p00, const float *p01, const float *p10, const float *p11,
                                 float lx, float ly, float *y) {
  const VT wx = VSET(lx), wy = VSET(ly);
  size_t i = 0;
  for (; i + VN <= n; i += VN) VM_BILERP(VM_LDF, VM_STF)
  if (i < n) {
    const size_t cn = n - i;
    VM_BILERP(VM_LDP, VM_STP)
  }
}

/* The table of one ISA. */
static const pte_xnn_vec_kernels VNAME(k_vec) = {
    {VNAME(vu_abs), VNAME(vu_neg), VNAME(vu_square), VNAME(vu_sqrt), VNAME(vu_rsqrt), VNAME(vu_floor), VNAME(vu_ceil),
     VNAME(vu_clamp), VNAME(vu_sigmoid), VNAME(vu_tanh), VNAME(vu_exp), VNAME(vu_elu), VNAME(vu_hardswish),
     VNAME(vu_leaky), VNAME(vu_silu), VNAME(vu_log), VNAME(vu_gelu), VNAME(vu_sin)},
    {{VNAME(vb_add_vv), VNAME(vb_add_vs), VNAME(vb_add_sv)},
     {VNAME(vb_sub_vv), VNAME(vb_sub_vs), VNAME(vb_sub_sv)},
     {VNAME(vb_mul_vv), VNAME(vb_mul_vs), VNAME(vb_mul_sv)},
     {VNAME(vb_div_vv), VNAME(vb_div_vs), VNAME(vb_div_sv)},
     {VNAME(vb_minimum_vv), VNAME(vb_minimum_vs), VNAME(vb_minimum_sv)},
     {VNAME(vb_maximum_vv), VNAME(vb_maximum_vs), VNAME(vb_maximum_sv)},
     {VNAME(vb_prelu_op_vv), VNAME(vb_prelu_op_vs), VNAME(vb_prelu_op_sv)}},
    {VNAME(vd_any), VNAME(vd_3x3), VNAME(vd_5x5)},
    VNAME(vk_bilerp)};
