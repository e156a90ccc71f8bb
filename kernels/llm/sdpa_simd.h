/* kernels/llm/sdpa_simd.h — the attention inner loops (llm_attn_isa) written once over a small
 * vector vocabulary; sdpa_avx2.c and sdpa_avx512.c define the macros and include this file.
 *
 * Needed: VT (vector), VM (lane mask), VN (lanes), VNAME(x), VFN / VFNI (function attributes),
 * VZERO, VSET(f), VLOAD(p), VSTORE(p, v), VMASKN(n) (first n lanes), VLOADM(p, m) (masked lanes
 * read, others 0), VSTOREM(p, m, v), VSEL(m, a, b) (m ? a : b per lane), VADD, VMUL, VMAX,
 * VFMA(a, b, c) = a * b + c, VGE(a, b) -> VM, VROUND(a) (to nearest), VPOW2I(n) (2^n for an
 * integral-valued float vector n in [-126, 127]), VHSUM(v), VHMAX(v), VHSUM4(a, b, c, d) (the four
 * horizontal sums as one __m128).
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

/* Cache rows are read head by head (each kv head's D floats of a row, rows a whole cache row
 * apart), which hardware prefetchers follow poorly once the cache is in DRAM: the rows
 * LLM_PF_AHEAD ahead are prefetched explicitly. */
#ifndef LLM_PF_AHEAD
#define LLM_PF_AHEAD 16
#endif
VFNI static void VNAME(llm_prefetch_row)(const float *p, size_t D) {
  for (size_t i = 0; i < D; i += 16) _mm_prefetch((const char *)(p + i), _MM_HINT_T0);
}

/* Scores of R rows against keys t (k0) and t + 1 (k1): 4 rows at a time with 8 independent
 * accumulations (2 key loads and 4 query loads per 8 FMAs), reduced 4 at a time by VHSUM4. */
VFNI static void VNAME(llm_qk2)(size_t R, size_t D, const float *q, const float *k0, const float *k1, float *s,
                                size_t ss, size_t t) {
  const size_t Dv = D / VN * VN;
  const VM tm = VMASKN(D - Dv);
  float h[4];
  size_t r = 0;
  for (; r + 4 <= R; r += 4) {
    const float *q0 = q + r * D, *q1 = q0 + D, *q2 = q1 + D, *q3 = q2 + D;
    VT a00 = VZERO, a10 = VZERO, a20 = VZERO, a30 = VZERO, a01 = VZERO, a11 = VZERO, a21 = VZERO, a31 = VZERO;
    size_t d = 0;
    for (; d < Dv; d += VN) {
      const VT kv0 = VLOAD(k0 + d), kv1 = VLOAD(k1 + d);
      VT qv = VLOAD(q0 + d);
      a00 = VFMA(qv, kv0, a00), a01 = VFMA(qv, kv1, a01);
      qv = VLOAD(q1 + d);
      a10 = VFMA(qv, kv0, a10), a11 = VFMA(qv, kv1, a11);
      qv = VLOAD(q2 + d);
      a20 = VFMA(qv, kv0, a20), a21 = VFMA(qv, kv1, a21);
      qv = VLOAD(q3 + d);
      a30 = VFMA(qv, kv0, a30), a31 = VFMA(qv, kv1, a31);
    }
    if (d < D) {
      const VT kv0 = VLOADM(k0 + d, tm), kv1 = VLOADM(k1 + d, tm);
      VT qv = VLOADM(q0 + d, tm);
      a00 = VFMA(qv, kv0, a00), a01 = VFMA(qv, kv1, a01);
      qv = VLOADM(q1 + d, tm);
      a10 = VFMA(qv, kv0, a10), a11 = VFMA(qv, kv1, a11);
      qv = VLOADM(q2 + d, tm);
      a20 = VFMA(qv, kv0, a20), a21 = VFMA(qv, kv1, a21);
      qv = VLOADM(q3 + d, tm);
      a30 = VFMA(qv, kv0, a30), a31 = VFMA(qv, kv1, a31);
    }
    _mm_storeu_ps(h, VHSUM4(a00, a10, a20, a30));
    for (int i = 0; i < 4; i++) s[(r + (size_t)i) * ss + t] = h[i];
    _mm_storeu_ps(h, VHSUM4(a01, a11, a21, a31));
    for (int i = 0; i < 4; i++) s[(r + (size_t)i) * ss + t + 1] = h[i];
  }
  for (; r < R; r++) {
    const float *q0 = q + r * D;
    VT a0 = VZERO, a1 = VZERO, b0 = VZERO, b1 = VZERO;
    size_t d = 0;
    for (; d + 2 * VN <= Dv; d += 2 * VN) {
      const VT qa = VLOAD(q0 + d), qb = VLOAD(q0 + d + VN);
      a0 = VFMA(qa, VLOAD(k0 + d), a0), a1 = VFMA(qb, VLOAD(k0 + d + VN), a1);
      b0 = VFMA(qa, VLOAD(k1 + d), b0), b1 = VFMA(qb, VLOAD(k1 + d + VN), b1);
    }
    for (; d < Dv; d += VN) {
      const VT qa = VLOAD(q0 + d);
      a0 = VFMA(qa, VLOAD(k0 + d), a0), b0 = VFMA(qa, VLOAD(k1 + d), b0);
    }
    if (d < D) {
      const VT qa = VLOADM(q0 + d, tm);
      a1 = VFMA(qa, VLOADM(k0 + d, tm), a1), b1 = VFMA(qa, VLOADM(k1 + d, tm), b1);
    }
    s[r * ss + t] = VHSUM(VADD(a0, a1));
    s[r * ss + t + 1] = VHSUM(VADD(b0, b1));
  }
}

/* Scores of R rows against key t. */
VFNI static void VNAME(llm_qk1)(size_t R, size_t D, const float *q, const float *kt, float *s, size_t ss, size_t t) {
  const size_t Dv = D / VN * VN;
  const VM tm = VMASKN(D - Dv);
  for (size_t r = 0; r < R; r++) {
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

/* Key rows in pairs, each pair for every kv head before the next: the cache is read in memory
 * order, whole rows at a time. */
VFN static void VNAME(llm_qk)(size_t H, size_t R, size_t T, size_t D, const float *q, const float *k, size_t kstride,
                               size_t khs, float *s, size_t ss) {
  size_t t = 0;
  for (; t + 2 <= T; t += 2) {
    if (t + LLM_PF_AHEAD + 1 < T)
      for (size_t g = 0; g < H; g++) {
        VNAME(llm_prefetch_row)(k + (t + LLM_PF_AHEAD) * kstride + g * khs, D);
        VNAME(llm_prefetch_row)(k + (t + LLM_PF_AHEAD + 1) * kstride + g * khs, D);
      }
    for (size_t g = 0; g < H; g++) {
      const float *k0 = k + t * kstride + g * khs;
      VNAME(llm_qk2)(R, D, q + g * R * D, k0, k0 + kstride, s + g * R * ss, ss, t);
    }
  }
  for (; t < T; t++)
    for (size_t g = 0; g < H; g++) VNAME(llm_qk1)(R, D, q + g * R * D, k + t * kstride + g * khs, s + g * R * ss, ss, t);
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

/* acc = acc * alpha + p V over value rows [t0, t1) for 4 rows: 2 vectors of head_dim at a time
 * (8 independent FMA chains). `first`: the rows' first block (applies alpha). The block is a few
 * rows, so its lines stay in L1 across the passes over head_dim even though value rows a cache
 * row apart map to the same L1 sets. */
VFNI static void VNAME(llm_pv4)(size_t t0, size_t t1, size_t D, const float *p0, size_t ps, const float *v,
                                size_t vstride, const float *alpha, bool first, float *c0) {
  const size_t Dv = D / VN * VN;
  const VM tm = VMASKN(D - Dv);
  const float *p1 = p0 + ps, *p2 = p1 + ps, *p3 = p2 + ps;
  float *c1 = c0 + D, *c2 = c1 + D, *c3 = c2 + D;
  const VT al0 = VSET(first ? alpha[0] : 1.0f), al1 = VSET(first ? alpha[1] : 1.0f);
  const VT al2 = VSET(first ? alpha[2] : 1.0f), al3 = VSET(first ? alpha[3] : 1.0f);
  size_t d = 0;
  for (; d + 2 * VN <= Dv; d += 2 * VN) {
    VT a0 = VMUL(VLOAD(c0 + d), al0), a1 = VMUL(VLOAD(c1 + d), al1);
    VT a2 = VMUL(VLOAD(c2 + d), al2), a3 = VMUL(VLOAD(c3 + d), al3);
    VT b0 = VMUL(VLOAD(c0 + d + VN), al0), b1 = VMUL(VLOAD(c1 + d + VN), al1);
    VT b2 = VMUL(VLOAD(c2 + d + VN), al2), b3 = VMUL(VLOAD(c3 + d + VN), al3);
    for (size_t t = t0; t < t1; t++) {
      const VT va = VLOAD(v + t * vstride + d), vb = VLOAD(v + t * vstride + d + VN);
      VT w = VSET(p0[t]);
      a0 = VFMA(w, va, a0), b0 = VFMA(w, vb, b0);
      w = VSET(p1[t]);
      a1 = VFMA(w, va, a1), b1 = VFMA(w, vb, b1);
      w = VSET(p2[t]);
      a2 = VFMA(w, va, a2), b2 = VFMA(w, vb, b2);
      w = VSET(p3[t]);
      a3 = VFMA(w, va, a3), b3 = VFMA(w, vb, b3);
    }
    VSTORE(c0 + d, a0), VSTORE(c1 + d, a1), VSTORE(c2 + d, a2), VSTORE(c3 + d, a3);
    VSTORE(c0 + d + VN, b0), VSTORE(c1 + d + VN, b1), VSTORE(c2 + d + VN, b2), VSTORE(c3 + d + VN, b3);
  }
  for (; d < D; d += VN) {
    const bool full = d < Dv;
    VT a0 = VMUL(full ? VLOAD(c0 + d) : VLOADM(c0 + d, tm), al0);
    VT a1 = VMUL(full ? VLOAD(c1 + d) : VLOADM(c1 + d, tm), al1);
    VT a2 = VMUL(full ? VLOAD(c2 + d) : VLOADM(c2 + d, tm), al2);
    VT a3 = VMUL(full ? VLOAD(c3 + d) : VLOADM(c3 + d, tm), al3);
    for (size_t t = t0; t < t1; t++) {
      const VT vv = full ? VLOAD(v + t * vstride + d) : VLOADM(v + t * vstride + d, tm);
      a0 = VFMA(VSET(p0[t]), vv, a0);
      a1 = VFMA(VSET(p1[t]), vv, a1);
      a2 = VFMA(VSET(p2[t]), vv, a2);
      a3 = VFMA(VSET(p3[t]), vv, a3);
    }
    if (full) {
      VSTORE(c0 + d, a0), VSTORE(c1 + d, a1), VSTORE(c2 + d, a2), VSTORE(c3 + d, a3);
    } else {
      VSTOREM(c0 + d, tm, a0), VSTOREM(c1 + d, tm, a1), VSTOREM(c2 + d, tm, a2), VSTOREM(c3 + d, tm, a3);
    }
  }
}

/* The same for one row, 4 vectors of head_dim at a time. */
VFNI static void VNAME(llm_pv1)(size_t t0, size_t t1, size_t D, const float *p0, const float *v, size_t vstride,
                                float alpha, bool first, float *c0) {
  const size_t Dv = D / VN * VN;
  const VM tm = VMASKN(D - Dv);
  const VT al0 = VSET(first ? alpha : 1.0f);
  size_t d = 0;
  for (; d + 4 * VN <= Dv; d += 4 * VN) {
    VT a0 = VMUL(VLOAD(c0 + d), al0), a1 = VMUL(VLOAD(c0 + d + VN), al0);
    VT a2 = VMUL(VLOAD(c0 + d + 2 * VN), al0), a3 = VMUL(VLOAD(c0 + d + 3 * VN), al0);
    for (size_t t = t0; t < t1; t++) {
      const VT w = VSET(p0[t]);
      const float *vt = v + t * vstride + d;
      a0 = VFMA(w, VLOAD(vt), a0), a1 = VFMA(w, VLOAD(vt + VN), a1);
      a2 = VFMA(w, VLOAD(vt + 2 * VN), a2), a3 = VFMA(w, VLOAD(vt + 3 * VN), a3);
    }
    VSTORE(c0 + d, a0), VSTORE(c0 + d + VN, a1), VSTORE(c0 + d + 2 * VN, a2), VSTORE(c0 + d + 3 * VN, a3);
  }
  for (; d < Dv; d += VN) {
    VT a0 = VMUL(VLOAD(c0 + d), al0);
    for (size_t t = t0; t < t1; t++) a0 = VFMA(VSET(p0[t]), VLOAD(v + t * vstride + d), a0);
    VSTORE(c0 + d, a0);
  }
  if (d < D) {
    VT a0 = VMUL(VLOADM(c0 + d, tm), al0);
    for (size_t t = t0; t < t1; t++) a0 = VFMA(VSET(p0[t]), VLOADM(v + t * vstride + d, tm), a0);
    VSTOREM(c0 + d, tm, a0);
  }
}

/* Value rows in blocks of LLM_PV_BLOCK, each block for every kv head before the next (memory
 * order); the next block's rows are prefetched. */
#ifndef LLM_PV_BLOCK
#define LLM_PV_BLOCK 8
#endif
VFN static void VNAME(llm_pv)(size_t H, size_t R, size_t T, size_t D, const float *p, size_t ps, const float *v,
                               size_t vstride, size_t vhs, const float *alpha, float *acc) {
  for (size_t t0 = 0; t0 < T; t0 += LLM_PV_BLOCK) {
    const size_t t1 = T - t0 < LLM_PV_BLOCK ? T : t0 + LLM_PV_BLOCK;
    for (size_t t = t1; t < T && t < t1 + LLM_PV_BLOCK; t++)
      for (size_t g = 0; g < H; g++) VNAME(llm_prefetch_row)(v + t * vstride + g * vhs, D);
    for (size_t g = 0; g < H; g++) {
      const float *vg = v + g * vhs;
      size_t r = g * R;
      const size_t re = r + R;
      for (; r + 4 <= re; r += 4)
        VNAME(llm_pv4)(t0, t1, D, p + r * ps, ps, vg, vstride, alpha + r, t0 == 0, acc + r * D);
      for (; r < re; r++) VNAME(llm_pv1)(t0, t1, D, p + r * ps, vg, vstride, alpha[r], t0 == 0, acc + r * D);
    }
  }
}

static const llm_attn_isa VNAME(k_llm_attn) = {VISA, VNAME(llm_qk), VNAME(llm_rowmax), VNAME(llm_expsum),
                                               VNAME(llm_pv)};
