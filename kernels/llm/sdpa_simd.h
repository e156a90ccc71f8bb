/* kernels/llm/sdpa_simd.h — the attention inner loops (llm_attn_isa) written once over a small
 * vector vocabulary; sdpa_avx2.c and sdpa_avx512.c define the macros and include this file.
 *
 * Needed: VT (vector), VM (lane mask), VN (lanes), VNAME(x), VFN / VFNI (function attributes),
 * VZERO, VSET(f), VLOAD(p), VSTORE(p, v), VMASKN(n) (first n lanes), VLOADM(p, m) (masked lanes
 * read, others 0), VSTOREM(p, m, v), VSEL(m, a, b) (m ? a : b per lane), VADD, VMUL, VMAX,
 * VFMA(a, b, c) = a * b + c, VGE(a, b) -> VM, VROUND(a) (to nearest), VPOW2I(n) (2^n for an
 * integral-valued float vector n in [-126, 127]), VHSUM(v), VHMAX(v).
 */

/* exp(x) in float: x = n ln2 + r, |r| <= ln2/2, exp(r) by its degree-7 Taylor polynomial
 * (truncation error < 6e-9 relative), times 2^n. Inputs below -87.3365 (including -inf) give
 * exactly 0 (the smallest normal result is exp(-87.3365)); inputs are capped at 88.376. */
VFNI static VT VNAME(llm_vexp)(VT x) {
  const VM ok = VGE(x, VSET(-87.33654f));
  x = VMAX(x, VSET(-87.33654f));
  x = VSEL(VGE(x, VSET(88.37626f)), VSET(88.37626f), x);
  const VT n = VROUND(VMUL(x, VSET(1.44269504088896341f)));
  VT r = VFMA(n, VSET(-0.693145751953125f), x); /* ln2 split: hi has 12 significant bits */
  r = VFMA(n, VSET(-1.428606765330187e-06f), r);
  VT p = VSET(1.0f / 5040.0f);
  p = VFMA(p, r, VSET(1.0f / 720.0f));
  p = VFMA(p, r, VSET(1.0f / 120.0f));
  p = VFMA(p, r, VSET(1.0f / 24.0f));
  p = VFMA(p, r, VSET(1.0f / 6.0f));
  p = VFMA(p, r, VSET(0.5f));
  p = VFMA(p, r, VSET(1.0f));
  p = VFMA(p, r, VSET(1.0f));
  return VSEL(ok, VMUL(p, VPOW2I(n)), VZERO);
}

VFN static void VNAME(llm_qk)(size_t R, size_t T, size_t D, const float *q, const float *k, size_t kstride,
                               float *s, size_t ss) {
  const size_t Dv = D / VN * VN;
  const VM tm = VMASKN(D - Dv);
  for (size_t t = 0; t < T; t++) {
    const float *kt = k + t * kstride;
    size_t r = 0;
    for (; r + 4 <= R; r += 4) {
      const float *q0 = q + r * D, *q1 = q0 + D, *q2 = q1 + D, *q3 = q2 + D;
      VT a0 = VZERO, a1 = VZERO, a2 = VZERO, a3 = VZERO;
      size_t d = 0;
      for (; d < Dv; d += VN) {
        const VT kv = VLOAD(kt + d);
        a0 = VFMA(VLOAD(q0 + d), kv, a0);
        a1 = VFMA(VLOAD(q1 + d), kv, a1);
        a2 = VFMA(VLOAD(q2 + d), kv, a2);
        a3 = VFMA(VLOAD(q3 + d), kv, a3);
      }
      if (d < D) {
        const VT kv = VLOADM(kt + d, tm);
        a0 = VFMA(VLOADM(q0 + d, tm), kv, a0);
        a1 = VFMA(VLOADM(q1 + d, tm), kv, a1);
        a2 = VFMA(VLOADM(q2 + d, tm), kv, a2);
        a3 = VFMA(VLOADM(q3 + d, tm), kv, a3);
      }
      s[r * ss + t] = VHSUM(a0);
      s[(r + 1) * ss + t] = VHSUM(a1);
      s[(r + 2) * ss + t] = VHSUM(a2);
      s[(r + 3) * ss + t] = VHSUM(a3);
    }
    for (; r < R; r++) {
      const float *q0 = q + r * D;
      VT a0 = VZERO, a1 = VZERO;
      size_t d = 0;
      for (; d + 2 * VN <= Dv; d += 2 * VN) {
        a0 = VFMA(VLOAD(q0 + d), VLOAD(kt + d), a0);
        a1 = VFMA(VLOAD(q0 + d + VN), VLOAD(kt + d + VN), a1);
      }
      for (; d < Dv; d += VN) a0 = VFMA(VLOAD(q0 + d), VLOAD(kt + d), a0);
      if (d < D) a1 = VFMA(VLOADM(q0 + d, tm), VLOADM(kt + d, tm), a1);
      s[r * ss + t] = VHSUM(VADD(a0, a1));
    }
  }
}

VFN static float VNAME(llm_rowmax)(size_t n, const float *x) {
  VT m = VSET(-INFINITY);
  size_t i = 0;
  for (; i + VN <= n; i += VN) m = VMAX(m, VLOAD(x + i));
  if (i < n) {
    const VM tm = VMASKN(n - i);
    m = VMAX(m, VSEL(tm, VLOADM(x + i, tm), VSET(-INFINITY)));
  }
  return VHMAX(m);
}

VFN static float VNAME(llm_expsum)(size_t n, float *x, float mx) {
  const VT vm = VSET(mx);
  VT sum = VZERO;
  size_t i = 0;
  for (; i + VN <= n; i += VN) {
    const VT e = VNAME(llm_vexp)(VADD(VLOAD(x + i), VMUL(vm, VSET(-1.0f))));
    VSTORE(x + i, e);
    sum = VADD(sum, e);
  }
  if (i < n) {
    const VM tm = VMASKN(n - i);
    const VT e = VSEL(tm, VNAME(llm_vexp)(VADD(VLOADM(x + i, tm), VMUL(vm, VSET(-1.0f)))), VZERO);
    VSTOREM(x + i, tm, e);
    sum = VADD(sum, e);
  }
  return VHSUM(sum);
}

VFN static void VNAME(llm_pv)(size_t R, size_t T, size_t D, const float *p, size_t ps, const float *v,
                               size_t vstride, const float *alpha, float *acc) {
  const size_t Dv = D / VN * VN;
  const VM tm = VMASKN(D - Dv);
  size_t r = 0;
  for (; r + 4 <= R; r += 4) {
    const float *p0 = p + r * ps, *p1 = p0 + ps, *p2 = p1 + ps, *p3 = p2 + ps;
    float *c0 = acc + r * D, *c1 = c0 + D, *c2 = c1 + D, *c3 = c2 + D;
    const VT al0 = VSET(alpha[r]), al1 = VSET(alpha[r + 1]), al2 = VSET(alpha[r + 2]), al3 = VSET(alpha[r + 3]);
    for (size_t d = 0; d < D; d += VN) {
      const bool full = d < Dv;
      VT a0, a1, a2, a3;
      if (full) {
        a0 = VMUL(VLOAD(c0 + d), al0), a1 = VMUL(VLOAD(c1 + d), al1);
        a2 = VMUL(VLOAD(c2 + d), al2), a3 = VMUL(VLOAD(c3 + d), al3);
        for (size_t t = 0; t < T; t++) {
          const VT vv = VLOAD(v + t * vstride + d);
          a0 = VFMA(VSET(p0[t]), vv, a0);
          a1 = VFMA(VSET(p1[t]), vv, a1);
          a2 = VFMA(VSET(p2[t]), vv, a2);
          a3 = VFMA(VSET(p3[t]), vv, a3);
        }
        VSTORE(c0 + d, a0), VSTORE(c1 + d, a1), VSTORE(c2 + d, a2), VSTORE(c3 + d, a3);
      } else {
        a0 = VMUL(VLOADM(c0 + d, tm), al0), a1 = VMUL(VLOADM(c1 + d, tm), al1);
        a2 = VMUL(VLOADM(c2 + d, tm), al2), a3 = VMUL(VLOADM(c3 + d, tm), al3);
        for (size_t t = 0; t < T; t++) {
          const VT vv = VLOADM(v + t * vstride + d, tm);
          a0 = VFMA(VSET(p0[t]), vv, a0);
          a1 = VFMA(VSET(p1[t]), vv, a1);
          a2 = VFMA(VSET(p2[t]), vv, a2);
          a3 = VFMA(VSET(p3[t]), vv, a3);
        }
        VSTOREM(c0 + d, tm, a0), VSTOREM(c1 + d, tm, a1), VSTOREM(c2 + d, tm, a2), VSTOREM(c3 + d, tm, a3);
      }
    }
  }
  for (; r < R; r++) {
    const float *p0 = p + r * ps;
    float *c0 = acc + r * D;
    const VT al0 = VSET(alpha[r]);
    size_t d = 0;
    for (; d + 2 * VN <= Dv; d += 2 * VN) {
      VT a0 = VMUL(VLOAD(c0 + d), al0), a1 = VMUL(VLOAD(c0 + d + VN), al0);
      for (size_t t = 0; t < T; t++) {
        const VT w = VSET(p0[t]);
        a0 = VFMA(w, VLOAD(v + t * vstride + d), a0);
        a1 = VFMA(w, VLOAD(v + t * vstride + d + VN), a1);
      }
      VSTORE(c0 + d, a0), VSTORE(c0 + d + VN, a1);
    }
    for (; d < Dv; d += VN) {
      VT a0 = VMUL(VLOAD(c0 + d), al0);
      for (size_t t = 0; t < T; t++) a0 = VFMA(VSET(p0[t]), VLOAD(v + t * vstride + d), a0);
      VSTORE(c0 + d, a0);
    }
    if (d < D) {
      VT a0 = VMUL(VLOADM(c0 + d, tm), al0);
      for (size_t t = 0; t < T; t++) a0 = VFMA(VSET(p0[t]), VLOADM(v + t * vstride + d, tm), a0);
      VSTOREM(c0 + d, tm, a0);
    }
  }
}

static const llm_attn_isa VNAME(k_llm_attn) = {VISA, VNAME(llm_qk), VNAME(llm_rowmax), VNAME(llm_expsum),
                                               VNAME(llm_pv)};
