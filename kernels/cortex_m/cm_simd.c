/* ISA selection of the cortex_m SIMD paths (see cm_simd.h). */
#include "cortex_m/cm_simd.h"

#include "pte/kernel.h"

/* The ISA pinned by pte_cm_simd_force() (PTE_CM_ISA_AUTO: none). */
static pte_cm_isa g_cm_forced = PTE_CM_ISA_AUTO;
/* SIMD routine calls made while an ISA is pinned (tests check their cases took the SIMD path;
 * never written in the default, unpinned mode). */
static uint32_t g_cm_forced_runs;

uint32_t pte_cm_simd_forced_runs(void) { return g_cm_forced_runs; }

/* The ISA for a routine that has an implementation for `has` ISAs (bit per pte_cm_isa). */
static pte_cm_isa pick(unsigned has) {
  const pte_cm_isa isa = pte_cm_simd_active();
  if (!(has & (1u << isa))) return PTE_CM_ISA_PORTABLE;
  if (g_cm_forced != PTE_CM_ISA_AUTO) g_cm_forced_runs++;
  return isa;
}
#define CM_ALL                                                                                \
  ((1u << PTE_CM_ISA_AVX2) | (1u << PTE_CM_ISA_AVX512VNNI) | (1u << PTE_CM_ISA_ARM_DSP) | \
   (1u << PTE_CM_ISA_ARM_MVE))
#define CM_X86 ((1u << PTE_CM_ISA_AVX2) | (1u << PTE_CM_ISA_AVX512VNNI))
/* Helium builds have the DSP extension too: pool and add/mul use its DSP routines there */
#define CM_X86_DSP (CM_X86 | (1u << PTE_CM_ISA_ARM_DSP) | (1u << PTE_CM_ISA_ARM_MVE))

bool pte_cm_simd_available(pte_cm_isa isa) {
  switch (isa) {
    case PTE_CM_ISA_PORTABLE: return true;
#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
    case PTE_CM_ISA_AVX2:
      __builtin_cpu_init(); /* idempotent; needed when called before constructors ran */
      return pte_cm_simd_x86_compiled() && __builtin_cpu_supports("avx2");
    case PTE_CM_ISA_AVX512VNNI:
      __builtin_cpu_init();
      return pte_cm_simd_x86_compiled() && __builtin_cpu_supports("avx512f") &&
             __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl") &&
             __builtin_cpu_supports("avx512vnni");
#endif
    case PTE_CM_ISA_ARM_DSP: return pte_cm_simd_arm_compiled();
    case PTE_CM_ISA_ARM_MVE: return pte_cm_simd_mve_compiled();
    default: return false;
  }
}

static pte_cm_isa best_isa(void) {
  if (pte_cm_simd_available(PTE_CM_ISA_ARM_MVE)) return PTE_CM_ISA_ARM_MVE;
  if (pte_cm_simd_available(PTE_CM_ISA_ARM_DSP)) return PTE_CM_ISA_ARM_DSP;
  if (pte_cm_simd_available(PTE_CM_ISA_AVX512VNNI)) return PTE_CM_ISA_AVX512VNNI;
  if (pte_cm_simd_available(PTE_CM_ISA_AVX2)) return PTE_CM_ISA_AVX2;
  return PTE_CM_ISA_PORTABLE;
}

pte_cm_isa pte_cm_simd_active(void) {
  return g_cm_forced != PTE_CM_ISA_AUTO ? g_cm_forced : best_isa();
}

bool pte_cm_simd_force(pte_cm_isa isa) {
  if (isa != PTE_CM_ISA_AUTO && !pte_cm_simd_available(isa)) return false;
  g_cm_forced = isa;
  return true;
}

const char *pte_cm_simd_name(pte_cm_isa isa) {
  switch (isa) {
    case PTE_CM_ISA_AUTO: return "auto";
    case PTE_CM_ISA_PORTABLE: return "portable";
    case PTE_CM_ISA_AVX2: return "avx2";
    case PTE_CM_ISA_AVX512VNNI: return "avx512vnni";
    case PTE_CM_ISA_ARM_DSP: return "arm-dsp";
    case PTE_CM_ISA_ARM_MVE: return "arm-mve";
    default: return "?";
  }
}

bool pte_cm_simd_gemm(const pte_cm_gemm *g) {
  if (g->K > PTE_CM_SIMD_KMAX || g->OC > PTE_CM_SIMD_NMAX || g->K <= 0 || g->OC <= 0) return false;
  switch (pick(CM_ALL)) {
    case PTE_CM_ISA_AVX512VNNI: pte_cm_gemm_avx512(g); return true;
    case PTE_CM_ISA_AVX2: pte_cm_gemm_avx2(g); return true;
    case PTE_CM_ISA_ARM_DSP: pte_cm_gemm_arm(g); return true;
    case PTE_CM_ISA_ARM_MVE: pte_cm_gemm_mve(g); return true;
    default: return false;
  }
}

bool pte_cm_simd_dw(const pte_cm_dw *d) {
  if (d->C > PTE_CM_SIMD_NMAX || d->C <= 0) return false;
  switch (pick(CM_ALL)) {
    case PTE_CM_ISA_AVX512VNNI: pte_cm_dw_avx512(d); return true;
    case PTE_CM_ISA_AVX2: pte_cm_dw_avx2(d); return true;
    case PTE_CM_ISA_ARM_DSP: pte_cm_dw_arm(d); return true;
    case PTE_CM_ISA_ARM_MVE: pte_cm_dw_mve(d); return true;
    default: return false;
  }
}

bool pte_cm_simd_pool(const pte_cm_pool *p) {
  switch (pick(CM_X86_DSP)) {
    case PTE_CM_ISA_ARM_DSP:
    case PTE_CM_ISA_ARM_MVE:
      if (!pte_cm_simd_arm_compiled()) return false;
      pte_cm_pool_arm(p);
      return true;
    case PTE_CM_ISA_AVX512VNNI: pte_cm_pool_avx512(p); return true;
    case PTE_CM_ISA_AVX2: pte_cm_pool_avx2(p); return true;
    default: return false;
  }
}

bool pte_cm_simd_addmul(const pte_cm_addmul *e) {
  switch (pick(CM_X86_DSP)) {
    case PTE_CM_ISA_ARM_DSP:
    case PTE_CM_ISA_ARM_MVE:
      if (!pte_cm_simd_arm_compiled()) return false;
      pte_cm_addmul_arm(e);
      return true;
    case PTE_CM_ISA_AVX512VNNI: pte_cm_addmul_avx512(e); return true;
    case PTE_CM_ISA_AVX2: pte_cm_addmul_avx2(e); return true;
    default: return false;
  }
}

bool pte_cm_simd_softmax(const pte_cm_softmax *s) {
  switch (pick(CM_X86)) {
    case PTE_CM_ISA_AVX512VNNI: pte_cm_softmax_avx512(s); return true;
    case PTE_CM_ISA_AVX2: pte_cm_softmax_avx2(s); return true;
    default: return false;
  }
}

int32_t *pte_cm_gemm_scratch(struct pte_kernel_context *ctx) {
  const pte_cm_isa isa = pte_cm_simd_active();
  if (isa != PTE_CM_ISA_AVX2 && isa != PTE_CM_ISA_AVX512VNNI) return NULL;
  return (int32_t *)pte_kernel_alloc_temp(ctx, PTE_CM_GEMM_SCRATCH_BYTES, PTE_CM_GEMM_SCRATCH_ALIGN);
}
