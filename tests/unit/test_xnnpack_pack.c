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

/* int8 panels (docs/xnnpack.md section 6): qs8 [NR i32 bias - zp * colsum][NR f32 scale]
 * [K/2 x NR x 2 i8], qd8 [NR f32 bias][NR f32 scale][NR i32 colsum][K/2 x NR x 2 i8]; odd K and a
 * partial last panel, every byte checked (zero padding included). */
TEST(i8_gemm_pack_layout) {
  const pte_xnn_kernels *k = pte_xnn_kernels_scalar();
  enum { N = 11, K = 7 };
  int8_t w[N * K];
  int32_t bq[N];
  float bf[N], sc[N];
  for (int o = 0; o < N; o++) {
    bq[o] = 1000 * o - 3;
    bf[o] = 0.5f * (float)o;
    sc[o] = 0.25f + (float)o;
    for (int i = 0; i < K; i++) w[o * K + i] = (int8_t)((o * 37 + i * 11) % 251 - 125);
  }
  for (int qd8 = 0; qd8 < 2; qd8++) {
    const size_t size = pte_xnn_pack_i8_size(k, N, K, qd8 != 0);
    uint8_t *buf = (uint8_t *)malloc(size);
    memset(buf, 0xAB, size); /* the packer must overwrite every byte */
    if (qd8) pte_xnn_pack_qd8_gemm(k, N, K, w, K, 1, sc, bf, buf);
    else pte_xnn_pack_qs8_gemm(k, N, K, w, K, 1, bq, 5, sc, buf);
    pte_xnn_packed p = {buf, size};
    pte_xnn_packed_info info;
    CHECK(pte_xnn_packed_info_get(&p, &info));
    const size_t nr = info.nr, fields = qd8 ? 12 : 8, stride = (size_t)info.panel_stride;
    CHECK_EQ_INT(info.kr, 2);
    for (size_t pi = 0; pi < info.n_panels; pi++) {
      const uint8_t *panel = buf + 64 + pi * stride;
      for (size_t j = 0; j < nr; j++) {
        const size_t o = pi * nr + j;
        int32_t colsum = 0;
        for (int i = 0; i < K && o < N; i++) colsum += w[o * K + i];
        float f0, f1;
        int32_t i0, i2;
        memcpy(&i0, panel + 4 * j, 4);
        memcpy(&f0, panel + 4 * j, 4);
        memcpy(&f1, panel + nr * 4 + 4 * j, 4);
        memcpy(&i2, panel + nr * 8 + 4 * j, 4);
        if (!qd8) CHECK_EQ_INT(i0, o < N ? bq[o] - 5 * colsum : 0);
        else CHECK(f0 == (o < N ? bf[o] : 0.0f));
        CHECK(f1 == (o < N ? sc[o] : 0.0f));
        if (qd8) CHECK_EQ_INT(i2, colsum);
        for (int i = 0; i < K + 1; i++) {
          const int8_t got = (int8_t)panel[fields * nr + (size_t)(i / 2) * nr * 2 + j * 2 + (size_t)(i & 1)];
          CHECK_EQ_INT(got, o < N && i < K ? w[o * K + i] : 0);
        }
      }
      for (size_t b = fields * nr + (size_t)(K + 1) * nr; b < stride; b++) CHECK_EQ_INT(panel[b], 0);
    }
    free(buf);
  }
}

int main(void) {
  RUN(i8_gemm_pack_layout);
  RUN(f32_gemm_pack_layout_every_isa);
  RUN(parallel_packing_same_bytes);
  return test_summary();
}
