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

/* A FullyConnected with > 1 MiB of weights is packed in parallel when the delegate has a pool:
 * the same bytes as one thread. */
TEST(parallel_packing_same_bytes) {
  enum { K = 700, N = 650 };
  float *w = (float *)malloc((size_t)K * N * sizeof(float)), b[N];
  for (size_t i = 0; i < (size_t)K * N; i++) w[i] = (float)(i % 1013) * 0.25f - 100.0f;
  for (int i = 0; i < N; i++) b[i] = (float)i;
  pte_xnn_blob blob;
  pte_error_info err;
  CHECK_OK(pte_xnn_blob_build_linear(1, K, N, w, b, PTE_XNN_CONSTANTS_INLINE, &blob, &err));
  free(w);
  pte_xnn_delegate *d1 = NULL, *d2 = NULL;
  pte_xnnpack_options o1 = {1, PTE_XNN_ISA_AUTO}, o2 = {2, PTE_XNN_ISA_AUTO};
  CHECK_OK(pte_xnn_delegate_init(blob.data, blob.size, NULL, &o1, &d1, &err));
  CHECK_OK(pte_xnn_delegate_init(blob.data, blob.size, NULL, &o2, &d2, &err));
  pte_xnn_blob_free(&blob);
  CHECK_EQ_INT(pte_xnn_delegate_threads(d2), 2);
  const pte_xnn_node *n1 = NULL, *n2 = NULL;
  for (size_t i = 0; i < d1->n_nodes; i++)
    if (d1->nodes[i].packed.bytes) n1 = &d1->nodes[i], n2 = &d2->nodes[i];
  CHECK(n1 && n2);
  CHECK(n1->packed.size >= ((size_t)1 << 20));
  CHECK_EQ_INT(n1->packed.size, n2->packed.size);
  CHECK(memcmp(n1->packed.bytes, n2->packed.bytes, n1->packed.size) == 0);
  pte_xnn_delegate_destroy(d1);
  pte_xnn_delegate_destroy(d2);
}

int main(void) {
  RUN(f32_gemm_pack_layout_every_isa);
  RUN(parallel_packing_same_bytes);
  return test_summary();
}
