/* Attention inner loops, AVX-512F (16 lanes, masked tails): sdpa_simd.h over AVX-512 intrinsics. */
#include <math.h>
#include <stdbool.h>

#include "llm/llm_ops.h"

#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
#include <immintrin.h>

#define VFN __attribute__((target("avx512f")))
#define VFNI __attribute__((target("avx512f"), always_inline)) inline

VFNI static float llm_x5_hsum(__m512 v) {
  __m256 h = _mm256_add_ps(_mm512_castps512_ps256(v),
                           _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1)));
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(h), _mm256_extractf128_ps(h, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}
VFNI static float llm_x5_hmax(__m512 v) {
  __m256 h = _mm256_max_ps(_mm512_castps512_ps256(v),
                           _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1)));
  __m128 s = _mm_max_ps(_mm256_castps256_ps128(h), _mm256_extractf128_ps(h, 1));
  s = _mm_max_ps(s, _mm_movehl_ps(s, s));
  s = _mm_max_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}

VFNI static __m256 llm_x5_half(__m512 v) {
  return _mm256_add_ps(_mm512_castps512_ps256(v), _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1)));
}
VFNI static __m128 llm_x5_hsum4(__m512 a, __m512 b, __m512 c, __m512 d) {
  const __m256 h = _mm256_hadd_ps(_mm256_hadd_ps(llm_x5_half(a), llm_x5_half(b)),
                                  _mm256_hadd_ps(llm_x5_half(c), llm_x5_half(d)));
  return _mm_add_ps(_mm256_castps256_ps128(h), _mm256_extractf128_ps(h, 1));
}

#define VT __m512
#define VM __mmask16
#define VN 16
#define VISA PTE_LLM_ISA_AVX512
#define VNAME(x) x##_avx512
#define VZERO _mm512_setzero_ps()
#define VSET(f) _mm512_set1_ps(f)
#define VLOAD(p) _mm512_loadu_ps(p)
#define VSTORE(p, v) _mm512_storeu_ps(p, v)
#define VMASKN(n) ((__mmask16)((1u << (n)) - 1u))
#define VLOADM(p, m) _mm512_maskz_loadu_ps(m, p)
#define VSTOREM(p, m, v) _mm512_mask_storeu_ps(p, m, v)
#define VSEL(m, a, b) _mm512_mask_blend_ps(m, b, a)
#define VADD(a, b) _mm512_add_ps(a, b)
#define VMUL(a, b) _mm512_mul_ps(a, b)
#define VMAX(a, b) _mm512_max_ps(a, b)
#define VFMA(a, b, c) _mm512_fmadd_ps(a, b, c)
#define VGE(a, b) _mm512_cmp_ps_mask(a, b, _CMP_GE_OQ)
#define VROUND(a) _mm512_roundscale_ps(a, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)
#define VPOW2I(n) \
  _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_add_epi32(_mm512_cvtps_epi32(n), _mm512_set1_epi32(127)), 23))
#define VHSUM(v) llm_x5_hsum(v)
#define VHMAX(v) llm_x5_hmax(v)
#define VHSUM4(a, b, c, d) llm_x5_hsum4(a, b, c, d)

#include "llm/sdpa_simd.h"

const llm_attn_isa *pte_llm_attn_avx512(void) { return &k_llm_attn_avx512; }
#else
const llm_attn_isa *pte_llm_attn_avx512(void) { return NULL; }
#endif
