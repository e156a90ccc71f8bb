/* Attention inner loops, AVX2 + FMA (8 lanes): sdpa_simd.h over AVX2 intrinsics. */
#include <math.h>
#include <stdbool.h>

#include "llm/llm_ops.h"

#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
#include <immintrin.h>

#define VFN __attribute__((target("avx2,fma")))
#define VFNI __attribute__((target("avx2,fma"), always_inline)) inline

VFNI static __m256i llm_x2_mask(size_t n) {
  return _mm256_cmpgt_epi32(_mm256_set1_epi32((int)n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}
VFNI static float llm_x2_hsum(__m256 v) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}
VFNI static float llm_x2_hmax(__m256 v) {
  __m128 s = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_max_ps(s, _mm_movehl_ps(s, s));
  s = _mm_max_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}

VFNI static __m128 llm_x2_hsum4(__m256 a, __m256 b, __m256 c, __m256 d) {
  const __m256 h = _mm256_hadd_ps(_mm256_hadd_ps(a, b), _mm256_hadd_ps(c, d));
  return _mm_add_ps(_mm256_castps256_ps128(h), _mm256_extractf128_ps(h, 1));
}

#define VT __m256
#define VM __m256i
#define VN 8
#define VISA PTE_LLM_ISA_AVX2
#define VNAME(x) x##_avx2
#define VZERO _mm256_setzero_ps()
#define VSET(f) _mm256_set1_ps(f)
#define VLOAD(p) _mm256_loadu_ps(p)
#define VSTORE(p, v) _mm256_storeu_ps(p, v)
#define VMASKN(n) llm_x2_mask(n)
#define VLOADM(p, m) _mm256_maskload_ps(p, m)
#define VSTOREM(p, m, v) _mm256_maskstore_ps(p, m, v)
#define VSEL(m, a, b) _mm256_blendv_ps(b, a, _mm256_castsi256_ps(m))
#define VADD(a, b) _mm256_add_ps(a, b)
#define VMUL(a, b) _mm256_mul_ps(a, b)
#define VMAX(a, b) _mm256_max_ps(a, b)
#define VFMA(a, b, c) _mm256_fmadd_ps(a, b, c)
#define VGE(a, b) _mm256_castps_si256(_mm256_cmp_ps(a, b, _CMP_GE_OQ))
#define VROUND(a) _mm256_round_ps(a, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)
#define VPOW2I(n) \
  _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23))
#define VHSUM(v) llm_x2_hsum(v)
#define VHMAX(v) llm_x2_hmax(v)
#define VHSUM4(a, b, c, d) llm_x2_hsum4(a, b, c, d)

#include "llm/sdpa_simd.h"

const llm_attn_isa *pte_llm_attn_avx2(void) { return &k_llm_attn_avx2; }
#else
const llm_attn_isa *pte_llm_attn_avx2(void) { return NULL; }
#endif
