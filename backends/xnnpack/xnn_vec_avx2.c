/* Elementwise kernels, AVX2 + FMA (8 lanes): xnn_vmath.h over AVX2 intrinsics. */
#include <math.h>

#include "xnn_internal.h"

#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
#include <immintrin.h>

#define VFN __attribute__((target("avx2,fma")))
#define VFNI __attribute__((target("avx2,fma"), always_inline)) inline

VFNI static __m256i vx2_mask(size_t n) {
  return _mm256_cmpgt_epi32(_mm256_set1_epi32((int)n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

#define VT __m256
#define VI __m256i
#define VN 8
#define VNAME(x) x##_avx2
#define VLOAD(p) _mm256_loadu_ps(p)
#define VSTORE(p, v) _mm256_storeu_ps(p, v)
#define VLOADN(p, n) _mm256_maskload_ps(p, vx2_mask(n))
#define VSTOREN(p, n, v) _mm256_maskstore_ps(p, vx2_mask(n), v)
#define VSET(f) _mm256_set1_ps(f)
#define VADD(a, b) _mm256_add_ps(a, b)
#define VSUB(a, b) _mm256_sub_ps(a, b)
#define VMUL(a, b) _mm256_mul_ps(a, b)
#define VDIV(a, b) _mm256_div_ps(a, b)
#define VRCP(d) _mm256_div_ps(_mm256_set1_ps(1.0f), d)
#define VFMA(a, b, c) _mm256_fmadd_ps(a, b, c)
#define VSQRT(a) _mm256_sqrt_ps(a)
#define VFLOOR(a) _mm256_floor_ps(a)
#define VCEIL(a) _mm256_ceil_ps(a)
#define VABS(a) _mm256_andnot_ps(_mm256_set1_ps(-0.0f), a)
#define VNEG(a) _mm256_xor_ps(a, _mm256_set1_ps(-0.0f))
#define VMAXX(a, b) _mm256_max_ps(a, b)
#define VMINX(a, b) _mm256_min_ps(a, b)
#define VLT(a, b) _mm256_cmp_ps(a, b, _CMP_LT_OQ)
#define VISNAN(a) _mm256_cmp_ps(a, a, _CMP_UNORD_Q)
#define VSEL(m, a, b) _mm256_blendv_ps(b, a, m)
#define VCOPYSIGN(m, s) \
  _mm256_or_ps(_mm256_andnot_ps(_mm256_set1_ps(-0.0f), m), _mm256_and_ps(_mm256_set1_ps(-0.0f), s))
#define VASI(v) _mm256_castps_si256(v)
#define VASF(i) _mm256_castsi256_ps(i)
#define VSETI(i) _mm256_set1_epi32(i)
#define VADDI(a, b) _mm256_add_epi32(a, b)
#define VSUBI(a, b) _mm256_sub_epi32(a, b)
#define VSLLI(i, k) _mm256_slli_epi32(i, k)
#define VSRAI(i, k) _mm256_srai_epi32(i, k)

#define VANDI(a, b) _mm256_and_si256(a, b)
#define VORI(a, b) _mm256_or_si256(a, b)
#define VCVTIF(i) _mm256_cvtepi32_ps(i)
#define VM __m256

#include "xnn_vmath.h"

const pte_xnn_vec_kernels *pte_xnn_vec_kernels_avx2(void) { return &k_vec_avx2; }
#else
const pte_xnn_vec_kernels *pte_xnn_vec_kernels_avx2(void) { return NULL; }
#endif
