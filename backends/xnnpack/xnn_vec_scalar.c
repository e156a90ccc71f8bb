/* Elementwise kernels, portable C (one lane): the reference instantiation of xnn_vmath.h. */
#include <math.h>
#include <string.h>

#include "xnn_internal.h"

static inline uint32_t vsc_asi(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}
static inline float vsc_asf(uint32_t u) {
  float f;
  memcpy(&f, &u, 4);
  return f;
}

#define VT float
#define VI uint32_t
#define VN 1
#define VFN
#define VFNI inline
#define VNAME(x) x##_scalar
#define VLOAD(p) (*(p))
#define VSTORE(p, v) (*(p) = (v))
#define VLOADN(p, n) ((void)(n), *(p))
#define VSTOREN(p, n, v) ((void)(n), *(p) = (v))
#define VSET(f) (f)
#define VADD(a, b) ((a) + (b))
#define VSUB(a, b) ((a) - (b))
#define VMUL(a, b) ((a) * (b))
#define VDIV(a, b) ((a) / (b))
#define VRCP(d) (1.0f / (d))
#define VFMA(a, b, c) ((a) * (b) + (c))
#define VSQRT(a) sqrtf(a)
#define VFLOOR(a) floorf(a)
#define VCEIL(a) ceilf(a)
#define VABS(a) fabsf(a)
#define VNEG(a) (-(a))
#define VMAXX(a, b) ((a) > (b) ? (a) : (b))
#define VMINX(a, b) ((a) < (b) ? (a) : (b))
#define VLT(a, b) ((a) < (b))
#define VISNAN(a) isnan(a)
#define VSEL(m, a, b) ((m) ? (a) : (b))
#define VCOPYSIGN(m, s) copysignf(m, s)
#define VASI(v) vsc_asi(v)
#define VASF(i) vsc_asf(i)
#define VSETI(i) ((uint32_t)(i))
#define VADDI(a, b) ((a) + (b))
#define VSUBI(a, b) ((a) - (b))
#define VSLLI(i, k) ((uint32_t)(i) << (k))
#define VSRAI(i, k) ((uint32_t)((int32_t)(i) >> (k)))

#define VANDI(a, b) ((a) & (b))
#define VORI(a, b) ((a) | (b))
#define VCVTIF(i) ((float)(int32_t)(i))
#define VM int

#include "xnn_vmath.h"

const pte_xnn_vec_kernels *pte_xnn_vec_kernels_scalar(void) { return &k_vec_scalar; }
