/* XNNPACK backend: the quantized global average pooling step (pte_xnn_gavg_q8_for, xnn_pool.c) on
 * every ISA this CPU runs. With a power-of-two scale every term (q - zp) * scale is exact, so the
 * expected sums come from an integer reference (sum of q - zp, times the scale) and must match bit
 * for bit; with any other scale each vector version must equal the scalar one bit for bit and the
 * integer reference to within float rounding of the terms. Channel counts cover every tail length
 * around the 8- and 16-lane blocks; buffers are sized exactly so an over-read shows under ASan. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../backends/xnnpack/xnn_internal.h"
#include "test.h"
#include "test_xnnpack_util.h"

typedef struct gp_isa {
  const char *name;
  pte_xnn_gavg_q8_fn fn;
} gp_isa;

static size_t gp_isas(gp_isa *out) {
  size_t n = 0;
  out[n].name = "scalar", out[n].fn = pte_xnn_gavg_q8_for(pte_xnn_vec_kernels_scalar()), n++;
  if (pte_xnnpack_isa_supported(PTE_XNN_ISA_AVX2) && pte_xnn_vec_kernels_avx2())
    out[n].name = "avx2", out[n].fn = pte_xnn_gavg_q8_for(pte_xnn_vec_kernels_avx2()), n++;
  if (pte_xnnpack_isa_supported(PTE_XNN_ISA_AVX512) && pte_xnn_vec_kernels_avx512())
    out[n].name = "avx512", out[n].fn = pte_xnn_gavg_q8_for(pte_xnn_vec_kernels_avx512()), n++;
  return n;
}

static uint32_t gp_rng = 12345u;
static uint8_t gp_byte(void) {
  gp_rng = gp_rng * 1664525u + 1013904223u;
  return (uint8_t)(gp_rng >> 24);
}

/* one case: rows pixels, row stride C, channels [off, off + cn) */
static bool gp_case(const gp_isa *isas, size_t n_isa, bool u8, size_t rows, size_t C, size_t off, size_t cn,
                    int32_t zp, float scale, bool pow2) {
  uint8_t *x = (uint8_t *)malloc(rows * C);
  double *acc = (double *)malloc(cn * sizeof(double)), *ref = (double *)malloc(cn * sizeof(double));
  double *first = (double *)malloc(cn * sizeof(double));
  bool ok = true;
  for (size_t i = 0; i < rows * C; i++) x[i] = gp_byte();
  for (size_t c = 0; c < cn; c++) {
    int64_t s = 0;
    for (size_t i = 0; i < rows; i++) {
      const uint8_t b = x[i * C + off + c];
      s += (u8 ? (int64_t)b : (int64_t)(int8_t)b) - zp;
    }
    ref[c] = 0.25 * (double)c + (double)s * (double)scale; /* exact for a power-of-two scale */
  }
  for (size_t k = 0; k < n_isa && ok; k++) {
    for (size_t c = 0; c < cn; c++) acc[c] = 0.25 * (double)c;
    isas[k].fn(x + off, u8, C, rows, cn, zp, scale, acc);
    for (size_t c = 0; c < cn && ok; c++) {
      const double tol = pow2 ? 0.0 : 1e-6 * (fabs(ref[c]) + (double)rows * 255.0 * (double)scale);
      if (!(fabs(acc[c] - ref[c]) <= tol)) {
        fprintf(stderr, "  %s %s rows=%zu C=%zu off=%zu cn=%zu zp=%d: channel %zu %.17g, reference %.17g\n",
                isas[k].name, u8 ? "u8" : "s8", rows, C, off, cn, (int)zp, c, acc[c], ref[c]);
        ok = false;
      }
      if (k == 0) first[c] = acc[c];
      else if (ok && memcmp(&acc[c], &first[c], sizeof(double)) != 0) {
        fprintf(stderr, "  %s %s rows=%zu cn=%zu: channel %zu %.17g differs from scalar %.17g\n", isas[k].name,
                u8 ? "u8" : "s8", rows, cn, c, acc[c], first[c]);
        ok = false;
      }
    }
  }
  free(x);
  free(acc);
  free(ref);
  free(first);
  return ok;
}

TEST(gavg_q8_all_isas) {
  gp_isa isas[3];
  const size_t n_isa = gp_isas(isas);
  static const size_t cns[] = {1, 3, 7, 8, 9, 15, 16, 17, 23, 24, 31, 32, 33, 64, 70};
  static const size_t rowss[] = {1, 2, 7, 64, 125};
  for (int u8 = 0; u8 < 2; u8++)
    for (size_t a = 0; a < sizeof cns / sizeof cns[0]; a++)
      for (size_t r = 0; r < sizeof rowss / sizeof rowss[0]; r++) {
        const size_t cn = cns[a], off = a % 3, C = cn + off + (r % 2) * 5;
        const int32_t zp = u8 ? (int32_t)(a * 17 % 256) : (int32_t)(a * 17 % 256) - 128;
        CHECK(gp_case(isas, n_isa, u8, rowss[r], C, off, cn, zp, 0.0625f, true));
        CHECK(gp_case(isas, n_isa, u8, rowss[r], C, off, cn, zp, 0x1p-9f, true));
        CHECK(gp_case(isas, n_isa, u8, rowss[r], C, off, cn, zp, 0.0371f, false));
        CHECK(gp_case(isas, n_isa, u8, rowss[r], C, off, cn, zp, 3.3e-3f, false));
      }
}

int main(void) {
  RUN(gavg_q8_all_isas);
  return test_summary();
}
