/* Attention inner loops in portable C (the reference the vector versions are tested against) and
 * the choice of instruction set (made once, overridable with pte_llm_kernels_set_isa). */
#include <math.h>
#include <stdatomic.h>

#include "llm/llm_ops.h"

static void sc_qk(size_t H, size_t R, size_t T, size_t D, const float *q, const float *k, size_t kstride, size_t khs,
                  float *s, size_t ss) {
  for (size_t t = 0; t < T; t++)
    for (size_t g = 0; g < H; g++) {
      const float *kt = k + t * kstride + g * khs;
      for (size_t r = g * R; r < (g + 1) * R; r++) {
        const float *qr = q + r * D;
        float a = 0.0f;
        for (size_t d = 0; d < D; d++) a += qr[d] * kt[d];
        s[r * ss + t] = a;
      }
    }
}

static float sc_rowmax(size_t n, const float *x) {
  float m = -INFINITY;
  for (size_t i = 0; i < n; i++)
    if (x[i] > m) m = x[i];
  return m;
}

static float sc_expsum(size_t n, float *x, float m) {
  float sum = 0.0f;
  for (size_t i = 0; i < n; i++) {
    const float e = expf(x[i] - m);
    x[i] = e;
    sum += e;
  }
  return sum;
}

static void sc_pv(size_t H, size_t R, size_t T, size_t D, const float *p, size_t ps, const float *v, size_t vstride,
                  size_t vhs, const float *alpha, float *acc) {
  for (size_t j = 0; j < H * R; j++) {
    float *a = acc + j * D;
    for (size_t d = 0; d < D; d++) a[d] *= alpha[j];
  }
  for (size_t t = 0; t < T; t++)
    for (size_t g = 0; g < H; g++) {
      const float *vt = v + t * vstride + g * vhs;
      for (size_t j = g * R; j < (g + 1) * R; j++) {
        const float w = p[j * ps + t];
        if (w == 0.0f) continue;
        float *a = acc + j * D;
        for (size_t d = 0; d < D; d++) a[d] += w * vt[d];
      }
    }
}

static const llm_attn_isa k_llm_scalar = {PTE_LLM_ISA_SCALAR, sc_qk, sc_rowmax, sc_expsum, sc_pv};

const llm_attn_isa *pte_llm_attn_scalar(void) { return &k_llm_scalar; }

/* ---------------------------------------------------------------------------- selection */

static bool llm_cpu_has(pte_llm_isa isa) {
#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
  __builtin_cpu_init();
  if (isa == PTE_LLM_ISA_AVX512) return pte_llm_attn_avx512() && __builtin_cpu_supports("avx512f");
  if (isa == PTE_LLM_ISA_AVX2)
    return pte_llm_attn_avx2() && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#endif
  return isa == PTE_LLM_ISA_SCALAR || isa == PTE_LLM_ISA_AUTO;
}

int pte_llm_isa_supported(pte_llm_isa isa) {
  if (isa < PTE_LLM_ISA_AUTO || isa > PTE_LLM_ISA_AVX512) return 0;
  return llm_cpu_has(isa) ? 1 : 0;
}

static pte_llm_isa llm_best_isa(void) {
  if (llm_cpu_has(PTE_LLM_ISA_AVX512)) return PTE_LLM_ISA_AVX512;
  if (llm_cpu_has(PTE_LLM_ISA_AVX2)) return PTE_LLM_ISA_AVX2;
  return PTE_LLM_ISA_SCALAR;
}

/* The resolved choice (0 = not chosen yet): the one piece of state of the library, a pure
 * function of the CPU unless a caller forces a set. */
static atomic_int llm_isa_choice = 0;

pte_status pte_llm_kernels_set_isa(pte_llm_isa isa) {
  if (isa < PTE_LLM_ISA_AUTO || isa > PTE_LLM_ISA_AVX512) return PTE_ERR_INVALID_ARGUMENT;
  if (!llm_cpu_has(isa)) return PTE_ERR_NOT_SUPPORTED;
  atomic_store(&llm_isa_choice, (int)(isa == PTE_LLM_ISA_AUTO ? llm_best_isa() : isa));
  return PTE_OK;
}

pte_llm_isa pte_llm_kernels_isa(void) {
  int c = atomic_load(&llm_isa_choice);
  if (c == 0) {
    c = (int)llm_best_isa();
    atomic_store(&llm_isa_choice, c);
  }
  return (pte_llm_isa)c;
}

const char *pte_llm_isa_name(pte_llm_isa isa) {
  switch (isa) {
    case PTE_LLM_ISA_AUTO: return "auto";
    case PTE_LLM_ISA_SCALAR: return "scalar";
    case PTE_LLM_ISA_AVX2: return "avx2";
    case PTE_LLM_ISA_AVX512: return "avx512";
  }
  return "unknown";
}

const llm_attn_isa *pte_llm_attn_current(void) {
  const llm_attn_isa *k = NULL;
  switch (pte_llm_kernels_isa()) {
    case PTE_LLM_ISA_AVX512: k = pte_llm_attn_avx512(); break;
    case PTE_LLM_ISA_AVX2: k = pte_llm_attn_avx2(); break;
    default: break;
  }
  return k ? k : &k_llm_scalar;
}
