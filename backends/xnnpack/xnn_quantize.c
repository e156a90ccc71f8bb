/* Convert: fp32 <-> qint8 / quint8, fp32 -> qdint8 (per-row dynamic quantization), q8 -> q8. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "xnn_ops.h"

/* fp32 -> qdint8, one row (pte_xnn_qd8_row_fn): min/max over the row (starting from 0, NaN
 * ignored), XNNPACK's parameter rule (pte_xnn_qd8_params), then q = rint(clamp(x * inv + zp))
 * with a float multiply and a separate float add, NaN -> -128, round half to even. The vector
 * versions make the same float operations (no FMA; min/max are exact in any order) and round with
 * the same mode, so they give the scalar bytes and parameters bit for bit. */
static pte_xnn_qrow qd8_row_scalar(size_t n, const float *x, int8_t *y) {
  float mn = 0.0f, mx = 0.0f;
  for (size_t i = 0; i < n; i++) {
    mn = x[i] < mn ? x[i] : mn;
    mx = x[i] > mx ? x[i] : mx;
  }
  float inv;
  const pte_xnn_qrow q = pte_xnn_qd8_params(mn, mx, &inv);
  for (size_t i = 0; i < n; i++) y[i] = (int8_t)pte_xnn_quantize(x[i], inv, q.zero_point, -128, 127);
  return q;
}

#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
#include <immintrin.h>

__attribute__((target("avx2"))) static pte_xnn_qrow qd8_row_avx2(size_t n, const float *x, int8_t *y) {
  /* min(x, acc) / max(x, acc) return acc when x is NaN: NaN is ignored as in the scalar loop */
  __m256 vmn = _mm256_setzero_ps(), vmx = _mm256_setzero_ps();
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 v = _mm256_loadu_ps(x + i);
    vmn = _mm256_min_ps(v, vmn);
    vmx = _mm256_max_ps(v, vmx);
  }
  float lmn[8], lmx[8];
  _mm256_storeu_ps(lmn, vmn);
  _mm256_storeu_ps(lmx, vmx);
  float mn = 0.0f, mx = 0.0f;
  for (int l = 0; l < 8; l++) {
    mn = lmn[l] < mn ? lmn[l] : mn;
    mx = lmx[l] > mx ? lmx[l] : mx;
  }
  for (size_t t = i; t < n; t++) {
    mn = x[t] < mn ? x[t] : mn;
    mx = x[t] > mx ? x[t] : mx;
  }
  float inv;
  const pte_xnn_qrow q = pte_xnn_qd8_params(mn, mx, &inv);
  const __m256 vinv = _mm256_set1_ps(inv), vzp = _mm256_set1_ps((float)q.zero_point);
  const __m256 lo = _mm256_set1_ps(-128.0f), hi = _mm256_set1_ps(127.0f);
  for (i = 0; i + 8 <= n; i += 8) {
    __m256 v = _mm256_add_ps(_mm256_mul_ps(_mm256_loadu_ps(x + i), vinv), vzp);
    v = _mm256_min_ps(_mm256_max_ps(v, lo), hi); /* max(NaN, lo) = lo */
    const __m256i w = _mm256_cvtps_epi32(v);       /* current rounding mode, as lrintf */
    const __m128i h = _mm_packs_epi32(_mm256_castsi256_si128(w), _mm256_extracti128_si256(w, 1));
    _mm_storel_epi64((__m128i *)(void *)(y + i), _mm_packs_epi16(h, h));
  }
  for (; i < n; i++) y[i] = (int8_t)pte_xnn_quantize(x[i], inv, q.zero_point, -128, 127);
  return q;
}

__attribute__((target("avx512f"))) static pte_xnn_qrow qd8_row_avx512(size_t n, const float *x, int8_t *y) {
  __m512 vmn = _mm512_setzero_ps(), vmx = _mm512_setzero_ps();
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m512 v = _mm512_loadu_ps(x + i);
    vmn = _mm512_min_ps(v, vmn);
    vmx = _mm512_max_ps(v, vmx);
  }
  if (i < n) { /* masked-off lanes load 0.0, which the range already holds */
    const __mmask16 m = (__mmask16)((1u << (n - i)) - 1u);
    const __m512 v = _mm512_maskz_loadu_ps(m, x + i);
    vmn = _mm512_min_ps(v, vmn);
    vmx = _mm512_max_ps(v, vmx);
  }
  const float mn = _mm512_reduce_min_ps(vmn), mx = _mm512_reduce_max_ps(vmx);
  float inv;
  const pte_xnn_qrow q = pte_xnn_qd8_params(mn, mx, &inv);
  const __m512 vinv = _mm512_set1_ps(inv), vzp = _mm512_set1_ps((float)q.zero_point);
  const __m512 lo = _mm512_set1_ps(-128.0f), hi = _mm512_set1_ps(127.0f);
  for (i = 0; i < n; i += 16) {
    const __mmask16 m = n - i >= 16 ? (__mmask16)0xFFFFu : (__mmask16)((1u << (n - i)) - 1u);
    __m512 v = _mm512_add_ps(_mm512_mul_ps(_mm512_maskz_loadu_ps(m, x + i), vinv), vzp);
    v = _mm512_min_ps(_mm512_max_ps(v, lo), hi);
    _mm512_mask_cvtepi32_storeu_epi8(y + i, m, _mm512_cvtps_epi32(v));
  }
  return q;
}
#endif

pte_xnn_qd8_row_fn pte_xnn_qd8_row_for(const pte_xnn_vec_kernels *vec) {
#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
  if (vec && vec == pte_xnn_vec_kernels_avx512()) return qd8_row_avx512;
  if (vec && vec == pte_xnn_vec_kernels_avx2()) return qd8_row_avx2;
#endif
  (void)vec;
  return qd8_row_scalar;
}

pte_status pte_xnn_run_convert(pte_xnn_exec *x, const pte_xnn_node *n) {
  pte_xnn_delegate *d = x->d;
  const pte_xnn_value *a = V(n->in[0]), *o = V(n->out[0]);
  if (xo_f32(a) && xo_f32(o)) {
    if (a->data != o->data) memmove(o->data, a->data, a->numel * 4);
    return PTE_OK;
  }
  if (xo_f32(a) && o->dtype == PTE_XD_QDINT8) {
    const int nb = o->num_nonbatch_dims > 0 ? o->num_nonbatch_dims : 1;
    size_t inner = 1;
    for (int i = (int)o->rank - nb; i < (int)o->rank; i++)
      if (i >= 0) inner *= o->shape[i];
    const size_t rows = inner ? o->numel / inner : 0;
    pte_xnn_qrow *qp = (pte_xnn_qrow *)(o->data + ((o->numel + 63) & ~(size_t)63));
    const float *pa = (const float *)a->data;
    int8_t *po = (int8_t *)o->data;
    const pte_xnn_qd8_row_fn fn = pte_xnn_qd8_row_for(x->vec);
    for (size_t r = 0; r < rows; r++) qp[r] = fn(inner, pa + r * inner, po + r * inner);
    return PTE_OK;
  }
  if (xo_f32(a)) {
    const float *pa = (const float *)a->data;
    for (size_t i = 0; i < a->numel; i++) xo_store_q(o, o->data, i, pa[i]);
    return PTE_OK;
  }
  if (xo_f32(o)) {
    float *po = (float *)o->data;
    for (size_t i = 0; i < a->numel; i++) po[i] = xo_load_q(a, a->data, i);
    return PTE_OK;
  }
  for (size_t i = 0; i < a->numel; i++) xo_store_q(o, o->data, i, xo_load_q(a, a->data, i));
  return PTE_OK;
}

