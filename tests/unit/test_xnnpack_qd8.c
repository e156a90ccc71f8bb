/* XNNPACK backend: fp32 -> qdint8 dynamic quantization of one row (pte_xnn_qd8_row_for,
 * xnn_quantize.c) on every ISA this CPU runs. Rows whose range makes the quantization a plain
 * rounding (scale 1 or 1/2, zero point 0) are checked against hand-derived integers, ties to even
 * included (an integer rule written here, not pte's code); random rows of every length around the
 * 8- and 16-lane blocks, with NaN, infinities and signed zeros mixed in, must give the scalar
 * version's bytes and parameters bit for bit. Buffers are sized exactly (over-reads show under
 * ASan). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../backends/xnnpack/xnn_internal.h"
#include "test.h"
#include "test_xnnpack_util.h"

typedef struct qd_isa {
  const char *name;
  pte_xnn_qd8_row_fn fn;
} qd_isa;

static size_t qd_isas(qd_isa *out) {
  size_t n = 0;
  out[n].name = "scalar", out[n].fn = pte_xnn_qd8_row_for(pte_xnn_vec_kernels_scalar()), n++;
  if (pte_xnnpack_isa_supported(PTE_XNN_ISA_AVX2) && pte_xnn_vec_kernels_avx2())
    out[n].name = "avx2", out[n].fn = pte_xnn_qd8_row_for(pte_xnn_vec_kernels_avx2()), n++;
  if (pte_xnnpack_isa_supported(PTE_XNN_ISA_AVX512) && pte_xnn_vec_kernels_avx512())
    out[n].name = "avx512", out[n].fn = pte_xnn_qd8_row_for(pte_xnn_vec_kernels_avx512()), n++;
  return n;
}

/* round half to even of h2 / 2 for an integer h2 (h2 odd: a tie) */
static int qd_half_even(int h2) {
  if (h2 % 2 == 0) return h2 / 2;
  const int lo = (h2 - 1) / 2; /* floor(h2 / 2): h2 - 1 is even */
  return lo % 2 == 0 ? lo : lo + 1;
}

/* Rows over [-128, 127] (scale 1, zero point 0: q = rint(x)) and over [-64, 63.5] (scale 1/2:
 * q = rint(2 x)), values on the half-integer grid, NaN -> -128. */
TEST(qd8_row_exact_rounding) {
  qd_isa isas[3];
  const size_t ni = qd_isas(isas);
  for (int pass = 0; pass < 2; pass++) {
    const float mult = pass ? 2.0f : 1.0f; /* q = rint(mult * x) */
    for (size_t n = 2; n <= 77 && !test_current_failed; n += 3) {
      float *x = (float *)malloc(n * sizeof(float));
      int8_t *y = (int8_t *)malloc(n), *want = (int8_t *)malloc(n);
      for (size_t i = 0; i < n; i++) {
        /* h2 = 2 * mult * x in [-255, 253], odd values are ties */
        const int h2 = (int)((i * 37u) % 255u) - 127 - (int)(i % 3);
        x[i] = (float)h2 / (2.0f * mult);
        want[i] = (int8_t)qd_half_even(h2);
      }
      x[0] = -128.0f / mult, want[0] = -128; /* the range ends */
      x[1] = 127.0f / mult, want[1] = 127;
      if (n > 5) x[5] = NAN, want[5] = -128;
      for (size_t k = 0; k < ni; k++) {
        memset(y, 0x55, n);
        const pte_xnn_qrow q = isas[k].fn(n, x, y);
        CHECK_MSG(q.zero_point == 0 && q.scale == 1.0f / mult, "%s n=%zu: params %g / %d, expected %g / 0",
                  isas[k].name, n, (double)q.scale, (int)q.zero_point, (double)(1.0f / mult));
        for (size_t i = 0; i < n; i++)
          if (y[i] != want[i]) {
            CHECK_MSG(false, "%s n=%zu mult=%g: x[%zu]=%g -> %d, expected %d", isas[k].name, n, (double)mult, i,
                      (double)x[i], y[i], want[i]);
            break;
          }
      }
      free(x), free(y), free(want);
    }
  }
}

static uint32_t qd_rng = 987654321u;
static float qd_rand(void) {
  qd_rng = qd_rng * 1664525u + 1013904223u;
  return (float)(qd_rng >> 8) / 16777216.0f;
}

/* every vector version against the scalar one, bit for bit */
TEST(qd8_row_vector_equals_scalar) {
  qd_isa isas[3];
  const size_t ni = qd_isas(isas);
  if (ni < 2) SKIP("no vector ISA on this CPU");
  size_t cases = 0;
  for (size_t n = 0; n <= 140 && !test_current_failed; n++) {
    for (int kind = 0; kind < 6 && !test_current_failed; kind++) {
      float *x = (float *)malloc((n ? n : 1) * sizeof(float));
      int8_t *y0 = (int8_t *)malloc(n ? n : 1), *y = (int8_t *)malloc(n ? n : 1);
      const float span = kind == 0 ? 1.0f : kind == 1 ? 1e-3f : kind == 2 ? 37.5f : 3e5f;
      for (size_t i = 0; i < n; i++) {
        float v = (qd_rand() * 2.0f - 1.0f) * span;
        if (kind == 3) v = fabsf(v);  /* all positive: the range's min is 0 */
        if (kind == 4) v = -fabsf(v); /* all negative */
        x[i] = v;
      }
      if (kind == 5 && n > 0) { /* specials */
        x[n / 2] = NAN;
        if (n > 3) x[1] = -0.0f;
        if (n > 9) x[9] = n % 2 ? INFINITY : -INFINITY;
      }
      const pte_xnn_qrow q0 = isas[0].fn(n, x, y0);
      for (size_t k = 1; k < ni; k++) {
        memset(y, 0x55, n ? n : 1);
        const pte_xnn_qrow q = isas[k].fn(n, x, y);
        const bool same_q = memcmp(&q.scale, &q0.scale, sizeof(float)) == 0 && q.zero_point == q0.zero_point;
        CHECK_MSG(same_q, "%s n=%zu kind %d: params %.9g / %d, scalar %.9g / %d", isas[k].name, n, kind,
                  (double)q.scale, (int)q.zero_point, (double)q0.scale, (int)q0.zero_point);
        if (n && memcmp(y, y0, n) != 0) {
          size_t i = 0;
          while (y[i] == y0[i]) i++;
          CHECK_MSG(false, "%s n=%zu kind %d: x[%zu]=%.9g -> %d, scalar %d", isas[k].name, n, kind, i, (double)x[i],
                    y[i], y0[i]);
        }
        cases++;
      }
      free(x), free(y0), free(y);
    }
  }
  CHECK(cases > 0);
}

int main(void) {
  RUN(qd8_row_exact_rounding);
  RUN(qd8_row_vector_equals_scalar);
  return test_summary();
}
