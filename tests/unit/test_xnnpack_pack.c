/* XNNPACK backend: fp32 GEMM packing (full panels take the blocked transpose path, the last
 * partial panel the generic one) checked element by element against the documented layout
 * [NR bias][K x NR weights] (docs/xnnpack.md section 6), zero padding included, for every
 * kernel table of this CPU; the [K, N] source gives the same bytes; large buffers (huge-page
 * path) too. */
#include <stdlib.h>
#include <string.h>

#include "../../backends/xnnpack/xnn_internal.h"
#include "test.h"

static void pack_check(const pte_xnn_kernels *k, size_t n, size_t kd) {
  float *w = (float *)malloc(n * kd * sizeof(float)), *wt = (float *)malloc(n * kd * sizeof(float));
  float *b = (float *)malloc(n * sizeof(float));
  for (size_t o = 0; o < n; o++) {
    b[o] = -(float)o - 0.5f;
    for (size_t i = 0; i < kd; i++) {
      w[o * kd + i] = (float)(o * 1000 + i + 1);
      wt[i * n + o] = w[o * kd + i];
    }
  }
  pte_xnn_packed p, q;
  CHECK_OK(pte_xnn_pack_f32_gemm(k, n, kd, w, false, b, &p));
  CHECK_OK(pte_xnn_pack_f32_gemm(k, n, kd, wt, true, b, &q));
  pte_xnn_packed_info info;
  CHECK(pte_xnn_packed_info_get(&p, &info));
  const size_t nr = info.nr, stride = (size_t)info.panel_stride;
  CHECK_EQ_INT(info.n_panels, (n + nr - 1) / nr);
  CHECK_EQ_INT(p.size, q.size);
  CHECK_MSG(memcmp(p.bytes, q.bytes, p.size) == 0, "N=%zu K=%zu NR=%zu: [N,K] and [K,N] sources pack differently", n, kd, nr);
  for (size_t pi = 0; pi < info.n_panels; pi++) {
    const float *panel = (const float *)(p.bytes + 64 + pi * stride);
    for (size_t j = 0; j < nr; j++) {
      const size_t o = pi * nr + j;
      CHECK_MSG(panel[j] == (o < n ? b[o] : 0.0f), "bias panel %zu col %zu", pi, j);
      for (size_t i = 0; i < kd; i++) {
        const float want = o < n ? (float)(o * 1000 + i + 1) : 0.0f;
        CHECK_MSG(panel[nr + i * nr + j] == want, "N=%zu K=%zu NR=%zu: panel %zu k %zu col %zu: %g, want %g", n, kd, nr,
                  pi, i, j, (double)panel[nr + i * nr + j], (double)want);
      }
    }
    const uint8_t *pad = (const uint8_t *)(panel + nr + kd * nr);
    for (const uint8_t *e = p.bytes + 64 + (pi + 1) * stride; pad < e; pad++) CHECK_MSG(*pad == 0, "padding not zero");
  }
  pte_xnn_packed_free(&p);
  pte_xnn_packed_free(&q);
  free(w);
  free(wt);
  free(b);
}

TEST(f32_gemm_pack_layout_every_isa) {
  static const pte_xnn_kisa isas[] = {PTE_XNN_KISA_SCALAR, PTE_XNN_KISA_AVX2, PTE_XNN_KISA_AVX512};
  static const pte_xnn_isa pub[] = {PTE_XNN_ISA_SCALAR, PTE_XNN_ISA_AVX2, PTE_XNN_ISA_AVX512};
  static const size_t ns[] = {1, 7, 16, 33, 70}, ks[] = {1, 3, 8, 21, 64};
  for (size_t s = 0; s < 3; s++) {
    if (!pte_xnnpack_isa_supported(pub[s])) continue;
    const pte_xnn_kernels *k = pte_xnn_kernels_for(isas[s]);
    CHECK(k != NULL);
    for (size_t a = 0; a < sizeof ns / sizeof ns[0]; a++)
      for (size_t c = 0; c < sizeof ks / sizeof ks[0]; c++) {
        pack_check(k, ns[a], ks[c]);
        if (test_current_failed) return;
      }
    pack_check(k, 1024, 1030); /* > 4 MiB: the huge-page allocation */
    if (test_current_failed) return;
  }
}

int main(void) {
  RUN(f32_gemm_pack_layout_every_isa);
  return test_summary();
}
