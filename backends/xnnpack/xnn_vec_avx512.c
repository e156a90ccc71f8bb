/* Elementwise kernels, AVX-512F (16 lanes, masked tails): xnn_vmath.h over AVX-512 intrinsics. */
#include <math.h>

#include "xnn_internal.h"

#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
#include <immintrin.h>

#define VFN __attribute__((target("avx512f")))
#define VFNI __attribute__((target("avx512f"), always_inline)) inline

#define VT __m512
#define VI __m512i
#define VN 16
#define VNAME(x) x##_avx512
#define V5_MASK(n) ((__mmask16)((1u << (n)) - 1u))
#define V5_SIGN _mm512_set1_epi32((int)0x80000000u)
#define VLOAD(p) _mm512_loadu_ps(p)
#define VSTORE(p, v) _mm512_storeu_ps(p, v)
#define VLOADN(p, n) _mm512_maskz_loadu_ps(V5_MASK(n), p)
#define VSTOREN(p, n, v) _mm512_mask_storeu_ps(p, V5_MASK(n), v)
#define VSET(f) _mm512_set1_ps(f)
#define VADD(a, b) _mm512_add_ps(a, b)
#define VSUB(a, b) _mm512_sub_ps(a, b)
#define VMUL(a, b) _mm512_mul_ps(a, b)
#define VDIV(a, b) _mm512_div_ps(a, b)
/* 14-bit estimate + one Newton step: r' = r + r (1 - d r), relative error ~2^-27 */
VFNI static __m512 v5_rcp(__m512 d) {
  const __m512 r = _mm512_rcp14_ps(d);
  return _mm512_fmadd_ps(_mm512_fnmadd_ps(d, r, _mm512_set1_ps(1.0f)), r, r);
}
#define VRCP(d) v5_rcp(d)
#define VFMA(a, b, c) _mm512_fmadd_ps(a, b, c)
#define VSQRT(a) _mm512_sqrt_ps(a)
#define VFLOOR(a) _mm512_roundscale_ps(a, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC)
#define VCEIL(a) _mm512_roundscale_ps(a, _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC)
#define VABS(a) _mm512_castsi512_ps(_mm512_andnot_si512(V5_SIGN, _mm512_castps_si512(a)))
#define VNEG(a) _mm512_castsi512_ps(_mm512_xor_si512(V5_SIGN, _mm512_castps_si512(a)))
#define VMAXX(a, b) _mm512_max_ps(a, b)
#define VMINX(a, b) _mm512_min_ps(a, b)
#define VLT(a, b) _mm512_cmp_ps_mask(a, b, _CMP_LT_OQ)
#define VISNAN(a) _mm512_cmp_ps_mask(a, a, _CMP_UNORD_Q)
#define VSEL(m, a, b) _mm512_mask_blend_ps(m, b, a)
#define VCOPYSIGN(m, s)                                                               \
  _mm512_castsi512_ps(_mm512_or_si512(_mm512_andnot_si512(V5_SIGN, _mm512_castps_si512(m)), \
                                      _mm512_and_si512(V5_SIGN, _mm512_castps_si512(s))))
#define VASI(v) _mm512_castps_si512(v)
#define VASF(i) _mm512_castsi512_ps(i)
#define VSETI(i) _mm512_set1_epi32(i)
#define VADDI(a, b) _mm512_add_epi32(a, b)
#define VSUBI(a, b) _mm512_sub_epi32(a, b)
#define VSLLI(i, k) _mm512_slli_epi32(i, k)
#define VSRAI(i, k) _mm512_srai_epi32(i, k)

#define VANDI(a, b) _mm512_and_si512(a, b)
#define VORI(a, b) _mm512_or_si512(a, b)
#define VCVTIF(i) _mm512_cvtepi32_ps(i)
#define VM __mmask16

#include "xnn_vmath.h"

const pte_xnn_vec_kernels *pte_xnn_vec_kernels_avx512(void) { return &k_vec_avx512; }
#else
const pte_xnn_vec_kernels *pte_xnn_vec_kernels_avx512(void) { return NULL; }
#endif
