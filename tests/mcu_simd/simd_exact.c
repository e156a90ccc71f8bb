/* Bare-metal bit-exactness test of the cortex_m Arm DSP and Helium paths
 * (kernels/cortex_m/cm_simd_arm.c, cm_simd_mve.c)
 * run under QEMU (tests/mcu_simd/run.sh): random GEMM (convolution / linear) and depthwise
 * problems, including saturating and wrapping cases, plus pooling windows (max with clamp,
 * average over more than 256 taps) and elementwise add / mul (DSP only), computed by the
 * SMLAD / SXTB16 / SSUB8+SEL routines and by a plain scalar loop of the portable arithmetic (sum of (x + in_off) * w in 64 bits,
 * wrapped to int32, cm_internal.h's requantize); every output byte must match.
 * Prints "mcu_simd: <cases> cases, <mismatches> mismatches (<isas>)" over semihosting; the exit
 * code is 0 when everything matched, 1 on a mismatch, 2 when no Arm SIMD path is compiled in. */
#include "cortex_m/cm_internal.h"
#include "cortex_m/cm_simd.h"

#include "semihost.h" /* targets/qemu: the runner's startup, linker scripts and semihosting */

static uint32_t g_seed = 2024u;
static uint32_t rnd32(void) {
  g_seed = g_seed * 1664525u + 1013904223u;
  uint32_t a = g_seed >> 16;
  g_seed = g_seed * 1664525u + 1013904223u;
  return (a << 16) ^ (g_seed >> 16);
}
static int32_t rint_(int32_t lo, int32_t hi) {
  return lo + (int32_t)(rnd32() % (uint32_t)((int64_t)hi - lo + 1));
}

static void put_int(const char *pre, long v) {
  char b[32];
  int i = 30;
  b[31] = 0;
  const int neg = v < 0;
  unsigned long u = neg ? (unsigned long)(-(v + 1)) + 1u : (unsigned long)v;
  do {
    b[i--] = (char)('0' + u % 10);
    u /= 10;
  } while (u);
  if (neg) b[i--] = '-';
  pte_mcu_puts(pre);
  pte_mcu_puts(&b[i + 1]);
}

static int8_t finish(int64_t acc, int32_t m, int32_t s, int32_t ooff, int32_t lo, int32_t hi) {
  int32_t v = pte_cm_requantize(pte_cm_wrap32(acc), m, s);
  v = pte_cm_add32(v, ooff);
  return (int8_t)pte_cm_clamp32(v, lo, hi);
}

#define MAXP 12
#define MAXK 300
#define MAXO 40
static int8_t g_x[MAXP * MAXK], g_w[MAXO * MAXK], g_y[MAXP * MAXO], g_r[MAXP * MAXO];
static int32_t g_b[MAXO], g_m[MAXO], g_s[MAXO], g_ra[MAXP];

static void rnd_requant(int n, int sat) {
  for (int i = 0; i < n; i++) {
    g_b[i] = sat ? rint_(INT32_MAX - 100000, INT32_MAX) : rint_(-5000, 5000);
    g_m[i] = rint_(0, 7) == 0 ? rint_(-INT32_MAX, INT32_MAX) : rint_(1073741824, INT32_MAX);
    g_s[i] = sat ? rint_(10, 30) : (rint_(0, 7) == 0 ? -31 : rint_(-14, 2));
  }
}

static int g_mve; /* run the Helium routines instead of the DSP ones */

static long gemm_case(void) {
  const int sat = rint_(0, 5) == 0;
  pte_cm_gemm g;
  g.P = rint_(1, MAXP);
  g.OC = rint_(1, MAXO);
  g.K = rint_(1, MAXK);
  g.xs = g.K;
  g.ys = g.OC;
  g.scratch = 0;
  for (int i = 0; i < g.P * g.K; i++) g_x[i] = (int8_t)rint_(-128, 127);
  for (int i = 0; i < g.OC * g.K; i++) g_w[i] = (int8_t)(sat ? 127 : rint_(-128, 127));
  rnd_requant((int)g.OC, sat);
  for (int p = 0; p < g.P; p++) g_ra[p] = rint_(-100000, 100000);
  g.x = g_x;
  g.w = g_w;
  g.y = g_y;
  g.bias = g_b;
  g.mult = g_m;
  g.shift = g_s;
  g.in_off = rint_(-255, 255);
  g.row_add = rint_(0, 1) ? g_ra : 0;
  g.out_off = rint_(-128, 127);
  g.act_min = rint_(-128, 0);
  g.act_max = rint_(g.act_min, 127);
  for (int p = 0; p < g.P; p++)
    for (int o = 0; o < g.OC; o++) {
      int64_t acc = (int64_t)g_b[o] + (g.row_add ? g_ra[p] : 0);
      for (int k = 0; k < g.K; k++)
        acc += ((int64_t)g_x[p * g.K + k] + g.in_off) * g_w[o * g.K + k];
      g_r[p * g.OC + o] = finish(acc, g_m[o], g_s[o], g.out_off, g.act_min, g.act_max);
    }
  if (g_mve)
    pte_cm_gemm_mve(&g);
  else
    pte_cm_gemm_arm(&g);
  long bad = 0;
  for (int i = 0; i < g.P * g.OC; i++) bad += g_y[i] != g_r[i];
  return bad;
}

/* outputs up to 10 x 10 pixels (8 + 2 padding, kernel 1) */
static int8_t g_dx[8 * 8 * MAXO], g_dw[4 * 4 * MAXO], g_dy[10 * 10 * MAXO], g_dr[10 * 10 * MAXO];

static long dw_case(void) {
  const int sat = rint_(0, 5) == 0;
  pte_cm_dw d;
  d.H = rint_(1, 8);
  d.W = rint_(1, 8);
  d.C = rint_(1, MAXO);
  d.KH = rint_(1, 4);
  d.KW = rint_(1, 4);
  d.sh = rint_(1, 2);
  d.sw = rint_(1, 2);
  d.ph = rint_(0, 1);
  d.pw = rint_(0, 1);
  d.dh = rint_(1, 2);
  d.dw = rint_(1, 2);
  const int64_t nh = d.H + 2 * d.ph - d.dh * (d.KH - 1) - 1, nw = d.W + 2 * d.pw - d.dw * (d.KW - 1) - 1;
  if (nh < 0 || nw < 0) return -1;
  d.OH = nh / d.sh + 1;
  d.OW = nw / d.sw + 1;
  for (int i = 0; i < d.H * d.W * d.C; i++) g_dx[i] = (int8_t)rint_(-128, 127);
  for (int i = 0; i < d.KH * d.KW * d.C; i++) g_dw[i] = (int8_t)(sat ? -128 : rint_(-128, 127));
  rnd_requant((int)d.C, sat);
  d.x = g_dx;
  d.w = g_dw;
  d.y = g_dy;
  d.bias = g_b;
  d.mult = g_m;
  d.shift = g_s;
  d.in_off = rint_(-255, 255);
  d.out_off = rint_(-128, 127);
  d.act_min = rint_(-128, 0);
  d.act_max = rint_(d.act_min, 127);
  for (int64_t oy = 0; oy < d.OH; oy++)
    for (int64_t ox = 0; ox < d.OW; ox++)
      for (int64_t c = 0; c < d.C; c++) {
        int64_t acc = g_b[c];
        for (int64_t ky = 0; ky < d.KH; ky++)
          for (int64_t kx = 0; kx < d.KW; kx++) {
            const int64_t iy = oy * d.sh - d.ph + ky * d.dh, ix = ox * d.sw - d.pw + kx * d.dw;
            if (iy < 0 || iy >= d.H || ix < 0 || ix >= d.W) continue;
            acc += ((int64_t)g_dx[(iy * d.W + ix) * d.C + c] + d.in_off) *
                   g_dw[(ky * d.KW + kx) * d.C + c];
          }
        g_dr[(oy * d.OW + ox) * d.C + c] = finish(acc, g_m[c], g_s[c], d.out_off, d.act_min, d.act_max);
      }
  if (g_mve)
    pte_cm_dw_mve(&d);
  else
    pte_cm_dw_arm(&d);
  long bad = 0;
  for (int i = 0; i < d.OH * d.OW * d.C; i++) bad += g_dy[i] != g_dr[i];
  return bad;
}

/* pooling: one window of up to 20 x 20 pixels of MAXO channels (> 256 taps for the average) */
static int8_t g_px[20 * 20 * MAXO], g_py[MAXO], g_pr[MAXO];

static long pool_case(void) {
  const int sat = rint_(0, 4) == 0;
  pte_cm_pool p;
  const int64_t H = rint_(1, 20), W = rint_(1, 20);
  p.C = rint_(1, MAXO);
  p.row = W * p.C;
  p.ys = rint_(0, (int32_t)H - 1);
  p.ye = rint_((int32_t)p.ys + 1, (int32_t)H);
  p.xs = rint_(0, (int32_t)W - 1);
  p.xe = rint_((int32_t)p.xs + 1, (int32_t)W);
  p.is_max = rint_(0, 1);
  p.lo = rint_(-128, 0);
  p.hi = rint_(p.lo, 127);
  const int8_t fill = rint_(0, 1) ? -128 : 127;
  for (int i = 0; i < H * W * p.C; i++) g_px[i] = (int8_t)(sat ? fill : rint_(-128, 127));
  p.x = g_px;
  p.y = g_py;
  const int64_t cnt = (p.ye - p.ys) * (p.xe - p.xs);
  for (int64_t c = 0; c < p.C; c++) {
    int64_t m = -128, sum = 0;
    for (int64_t iy = p.ys; iy < p.ye; iy++)
      for (int64_t ix = p.xs; ix < p.xe; ix++) {
        const int8_t t = g_px[iy * p.row + ix * p.C + c];
        if (t > m) m = t;
        sum += t;
      }
    int64_t v;
    if (p.is_max) {
      v = m < p.lo ? p.lo : (m > p.hi ? p.hi : m);
    } else {
      /* rounded mean, ties away from zero */
      const int64_t a = sum < 0 ? -sum : sum, q = (2 * a + cnt) / (2 * cnt);
      v = sum < 0 ? -q : q;
      v = v < -128 ? -128 : (v > 127 ? 127 : v);
    }
    g_pr[c] = (int8_t)v;
  }
  pte_cm_pool_arm(&p);
  long bad = 0;
  for (int i = 0; i < p.C; i++) bad += g_py[i] != g_pr[i];
  return bad;
}

/* elementwise add / mul over up to 100 elements */
static int8_t g_ea[100], g_eb[100], g_ey[100], g_er[100];

static long addmul_case(void) {
  pte_cm_addmul e;
  e.n = rint_(1, 100);
  e.is_mul = rint_(0, 1);
  const int32_t zp1 = rint_(-128, 127), zp2 = rint_(-128, 127);
  e.off1 = -zp1;
  e.off2 = -zp2;
  e.m1 = rint_(1073741824, INT32_MAX);
  e.s1 = rint_(-20, 0);
  e.m2 = rint_(1073741824, INT32_MAX);
  e.s2 = rint_(-20, 0);
  e.mo = rint_(1073741824, INT32_MAX);
  e.so = e.is_mul ? rint_(-14, 2) : rint_(-31, 0);
  e.zpo = rint_(-128, 127);
  e.lo = e.is_mul ? -128 : rint_(-128, 0);
  e.hi = e.is_mul ? 127 : rint_(e.lo, 127);
  for (int i = 0; i < e.n; i++) {
    g_ea[i] = (int8_t)rint_(-128, 127);
    g_eb[i] = (int8_t)rint_(-128, 127);
  }
  e.a = g_ea;
  e.b = g_eb;
  e.y = g_ey;
  for (int i = 0; i < e.n; i++) {
    const int32_t x1 = (int32_t)g_ea[i] - zp1, x2 = (int32_t)g_eb[i] - zp2;
    int32_t acc;
    if (e.is_mul) {
      acc = x1 * x2;
    } else {
      acc = pte_cm_add32(pte_cm_requantize(pte_cm_shl32(x1, 20), e.m1, e.s1),
                         pte_cm_requantize(pte_cm_shl32(x2, 20), e.m2, e.s2));
    }
    const int32_t v = pte_cm_add32(pte_cm_requantize(acc, e.mo, e.so), e.zpo);
    g_er[i] = (int8_t)pte_cm_clamp32(v, e.lo, e.hi);
  }
  pte_cm_addmul_arm(&e);
  long bad = 0;
  for (int i = 0; i < e.n; i++) bad += g_ey[i] != g_er[i];
  return bad;
}

int main(void) {
  long cases = 0, bad = 0;
  int isas = 0;
  for (g_mve = 0; g_mve < 2; g_mve++) {
    if (!(g_mve ? pte_cm_simd_mve_compiled() : pte_cm_simd_arm_compiled())) continue;
    isas++;
    for (int i = 0; i < 300; i++) {
      bad += gemm_case();
      cases++;
    }
    for (int i = 0; i < 300; i++) {
      const long b = dw_case();
      if (b < 0) continue;
      bad += b;
      cases++;
    }
    if (g_mve) continue;
    for (int i = 0; i < 300; i++) {
      bad += pool_case();
      bad += addmul_case();
      cases += 2;
    }
  }
  if (!isas) {
    pte_mcu_puts("mcu_simd: no Arm SIMD path is compiled in\n");
    return 2;
  }
  put_int("mcu_simd: ", cases);
  put_int(" cases, ", bad);
  pte_mcu_puts(pte_cm_simd_mve_compiled() ? " mismatches (arm-dsp, arm-mve)\n" : " mismatches (arm-dsp)\n");
  return bad ? 1 : 0;
}
