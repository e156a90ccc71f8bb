/* Bare-metal on-target cost proxy for the cortex_m SIMD paths (tests/mcu_simd/icount.sh): the
 * keyword-spotting int8 stack of bench/q8_conv (10x4 stride-2 conv 1 -> 64 on 49x10, four
 * depthwise-separable blocks of 64 channels, 25x5 average pool, 64 -> 12 fully connected,
 * softmax) run through the real cortex_m kernels once with the portable loops and once with the
 * Arm SIMD path the build has (DSP or Helium). QEMU does not model timing; run under
 * `-icount shift=0` the SysTick (CPU clock) advances with the instruction count, so the tick
 * counts are instruction counts up to a constant factor, calibrated here against a loop of a
 * known number of instructions. Also checks the two runs' outputs are bit-identical (a 64-bit
 * hash of every op's output).
 * Prints: "kws: <isa> ticks <t> insns <n>" per path, "calibration: ..." and "identical: yes|no". */
#include <stdint.h>
#include <string.h>

#include "cortex_m/cm_simd.h"
#include "pte/cortex_m_kernels.h"
#include "pte/evalue.h"
#include "pte/kernel.h"
#include "pte/tensor.h"

#include "semihost.h" /* targets/qemu: the runner's startup, linker scripts and semihosting */

static void put_int(const char *pre, long long v) {
  char b[32];
  int i = 30;
  b[31] = 0;
  const int neg = v < 0;
  unsigned long long u = neg ? (unsigned long long)(-(v + 1)) + 1u : (unsigned long long)v;
  do {
    b[i--] = (char)('0' + u % 10);
    u /= 10;
  } while (u);
  if (neg) b[i--] = '-';
  pte_mcu_puts(pre);
  pte_mcu_puts(&b[i + 1]);
}

/* ---- a bump allocator over a static pool (no heap) ---- */
static unsigned char g_pool[160 * 1024] __attribute__((aligned(8)));
static size_t g_used;
static void *palloc(size_t n) {
  n = (n + 7u) & ~(size_t)7u;
  if (g_used + n > sizeof g_pool) {
    pte_mcu_puts("kws: pool exhausted\n");
    return NULL;
  }
  void *p = g_pool + g_used;
  memset(p, 0, n);
  g_used += n;
  return p;
}

static uint32_t g_seed = 99u;
static int rnd(int lo, int hi) {
  g_seed = g_seed * 1664525u + 1013904223u;
  return lo + (int)((g_seed >> 8) % (uint32_t)(hi - lo + 1));
}

static const uint8_t k_cl4[4] = {0, 2, 3, 1};
static const uint8_t k_id[4] = {0, 1, 2, 3};

static pte_tensor *mk(int dtype, int32_t dim, const int32_t *sizes, int cl) {
  pte_tensor *t = (pte_tensor *)palloc(sizeof *t);
  t->dim = dim;
  t->dtype = (uint8_t)dtype;
  t->sizes = (int32_t *)palloc(sizeof(int32_t) * (size_t)dim);
  memcpy(t->sizes, sizes, sizeof(int32_t) * (size_t)dim);
  t->dim_order = cl ? k_cl4 : k_id;
  t->strides = (int32_t *)palloc(sizeof(int32_t) * (size_t)dim);
  pte_strides_from_dim_order(t->sizes, t->dim_order, dim, t->strides);
  pte_numel(t->sizes, dim, &t->numel);
  t->capacity_bytes = t->numel * pte_dtype_size(dtype);
  t->data = palloc(t->capacity_bytes);
  t->dynamism = PTE_SHAPE_STATIC;
  return t;
}
static pte_tensor *rnd_i8(int32_t dim, const int32_t *sizes, int lo, int hi) {
  pte_tensor *t = mk(PTE_DTYPE_CHAR, dim, sizes, 0);
  for (size_t i = 0; i < t->numel; i++) ((int8_t *)t->data)[i] = (int8_t)rnd(lo, hi);
  return t;
}
static pte_tensor *i32v(int32_t n, int lo, int hi) {
  int32_t sz[1] = {n};
  pte_tensor *t = mk(PTE_DTYPE_INT, 1, sz, 0);
  for (int32_t i = 0; i < n; i++) ((int32_t *)t->data)[i] = rnd(lo, hi);
  return t;
}
static pte_evalue *ev(uint32_t tag) {
  pte_evalue *v = (pte_evalue *)palloc(sizeof *v);
  v->tag = tag;
  return v;
}
static pte_evalue *ev_t(pte_tensor *t) {
  pte_evalue *v = ev(PTE_TAG_TENSOR);
  v->u.tensor = t;
  return v;
}
static pte_evalue *ev_i(int64_t x) {
  pte_evalue *v = ev(PTE_TAG_INT);
  v->u.i = x;
  return v;
}
static pte_evalue *ev_b(bool x) {
  pte_evalue *v = ev(PTE_TAG_BOOL);
  v->u.b = x;
  return v;
}
static pte_evalue *ev_list(const int64_t *xs, size_t n) {
  pte_evalue *v = ev(PTE_TAG_LIST_INT);
  v->u.int_list.items = (pte_evalue **)palloc(n * sizeof(pte_evalue *));
  v->u.int_list.unboxed = (int64_t *)palloc(n * sizeof(int64_t));
  v->u.int_list.len = n;
  for (size_t i = 0; i < n; i++) v->u.int_list.items[i] = ev_i(xs[i]);
  return v;
}
static pte_evalue *ev_pair(int64_t a, int64_t b) {
  const int64_t xs[2] = {a, b};
  return ev_list(xs, 2);
}
static pte_op_fn find(const char *name) {
  for (size_t i = 0; i < pte_cortex_m_kernel_count(); i++)
    if (strcmp(pte_cortex_m_kernel(i)->name, name) == 0) return pte_cortex_m_kernel(i)->fn;
  return NULL;
}

typedef struct op {
  pte_op_fn fn;
  pte_evalue *args[16];
  size_t nargs;
} op;
static op g_ops[12];
static int g_n;

static pte_tensor *scratch(void) {
  int32_t sz[1] = {1};
  return mk(PTE_DTYPE_CHAR, 1, sz, 0);
}

static void conv_op(pte_tensor *in, pte_tensor *out, int32_t oc, int32_t kh, int32_t kw,
                    int32_t s, int32_t ph, int32_t pw) {
  const int32_t wsz[4] = {oc, kh, kw, in->sizes[1]};
  op *o = &g_ops[g_n++];
  o->fn = find("cortex_m::quantized_conv2d.out");
  pte_evalue *outv = ev_t(out);
  pte_evalue *a[] = {ev_t(in), ev_t(rnd_i8(4, wsz, -60, 60)), ev_t(i32v(oc, -500, 500)),
                     ev_pair(s, s), ev_pair(ph, pw), ev_pair(1, 1), ev_i(7), ev_i(-20),
                     ev_t(i32v(oc, 1073741824, 2147483000)), ev_t(i32v(oc, -10, -8)), ev_i(-20),
                     ev_i(127), ev_t(scratch()), outv, outv};
  memcpy(o->args, a, sizeof a);
  o->nargs = 15;
}
static void dw_op(pte_tensor *in, pte_tensor *out) {
  const int32_t c = in->sizes[1], wsz[4] = {1, 3, 3, c};
  op *o = &g_ops[g_n++];
  o->fn = find("cortex_m::quantized_depthwise_conv2d.out");
  pte_evalue *outv = ev_t(out);
  pte_evalue *a[] = {ev_t(in), ev_t(rnd_i8(4, wsz, -70, 70)), ev_t(i32v(c, -300, 300)),
                     ev_pair(1, 1), ev_pair(1, 1), ev_pair(1, 1), ev_i(1), ev_i(20), ev_i(-5),
                     ev_t(i32v(c, 1073741824, 2147483000)), ev_t(i32v(c, -8, -6)), ev_i(-5),
                     ev_i(127), ev_t(scratch()), outv, outv};
  memcpy(o->args, a, sizeof a);
  o->nargs = 16;
}

static uint32_t g_op_ticks[12];
static uint32_t ticks_since(uint32_t t0);
static uint32_t systick_now(void);

static bool run_stack(void) {
  for (int i = 0; i < g_n; i++) {
    const uint32_t t0 = systick_now();
    pte_kernel_context ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.op_name = "kws";
    g_ops[i].fn(&ctx, g_ops[i].args, g_ops[i].nargs);
    if (ctx.failure != PTE_OK) {
      put_int("kws: op failed: ", i);
      pte_mcu_puts(" ");
      pte_mcu_puts(ctx.msg);
      pte_mcu_puts("\n");
      return false;
    }
    g_op_ticks[i] = ticks_since(t0);
  }
  return true;
}

#define SYST_CSR (*(volatile uint32_t *)0xE000E010u)
#define SYST_RVR (*(volatile uint32_t *)0xE000E014u)
#define SYST_CVR (*(volatile uint32_t *)0xE000E018u)
static void systick_start(void) {
  SYST_RVR = 0xFFFFFFu;
  SYST_CVR = 0;
  SYST_CSR = 5u; /* enable, processor clock, no interrupt */
}
static uint32_t systick_now(void) { return SYST_CVR; }
static uint32_t ticks_since(uint32_t t0) { return (t0 - systick_now()) & 0xFFFFFFu; }

int main(void) {
  const int32_t s_x[4] = {1, 1, 49, 10}, s_a[4] = {1, 64, 25, 5}, s_p[4] = {1, 64, 1, 1};
  const int32_t s_f[2] = {1, 64}, s_o[2] = {1, 12};
  pte_tensor *xq = mk(PTE_DTYPE_CHAR, 4, s_x, 1);
  for (size_t i = 0; i < xq->numel; i++) ((int8_t *)xq->data)[i] = (int8_t)rnd(-128, 127);
  pte_tensor *act[9];
  for (int i = 0; i < 9; i++) act[i] = mk(PTE_DTYPE_CHAR, 4, s_a, 1);
  pte_tensor *pooled = mk(PTE_DTYPE_CHAR, 4, s_p, 1);
  pte_tensor *flat = mk(PTE_DTYPE_CHAR, 2, s_f, 0);
  pte_tensor *logits = mk(PTE_DTYPE_CHAR, 2, s_o, 0), *probs = mk(PTE_DTYPE_CHAR, 2, s_o, 0);
  conv_op(xq, act[0], 64, 10, 4, 2, 5, 1);
  for (int b = 0; b < 4; b++) {
    dw_op(act[2 * b], act[2 * b + 1]);
    conv_op(act[2 * b + 1], act[2 * b + 2], 64, 1, 1, 1, 0, 0);
  }
  {
    op *o = &g_ops[g_n++];
    o->fn = find("cortex_m::quantized_avg_pool2d.out");
    pte_evalue *outv = ev_t(pooled);
    pte_evalue *a[] = {ev_t(act[8]), ev_pair(25, 5), ev_pair(25, 5), ev_pair(0, 0), ev_b(false),
                       ev_i(-20), ev_i(1073741824), ev_i(0), ev_t(scratch()), outv, outv};
    memcpy(o->args, a, sizeof a);
    o->nargs = 11;
  }
  pooled->data = flat->data; /* [1,64,1,1] channels-last == [1,64] */
  {
    const int32_t wsz[2] = {12, 64};
    const int64_t mm[1] = {1518500250}, ss[1] = {-7};
    op *o = &g_ops[g_n++];
    o->fn = find("cortex_m::quantized_linear.out");
    pte_evalue *outv = ev_t(logits);
    pte_evalue *a[] = {ev_t(flat), ev_t(rnd_i8(2, wsz, -100, 100)), ev_t(i32v(12, -900, 900)),
                       ev(PTE_TAG_NONE), ev_i(20), ev_i(0), ev_i(3), ev_list(mm, 1), ev_list(ss, 1),
                       ev_i(127), ev_i(-128), outv, outv};
    memcpy(o->args, a, sizeof a);
    o->nargs = 13;
  }
  {
    op *o = &g_ops[g_n++];
    o->fn = find("cortex_m::softmax.out");
    pte_evalue *outv = ev_t(probs);
    pte_evalue *a[] = {ev_t(logits), ev_i(-1), ev_i(3), ev_i(-128), ev_i(1077952640), ev_i(19),
                       ev_i(-3968), outv, outv};
    memcpy(o->args, a, sizeof a);
    o->nargs = 9;
  }

  /* calibration: 2 instructions per iteration (subs + bne), 1,000,000 iterations */
  systick_start();
  uint32_t t0 = systick_now();
  uint32_t n = 1000000u;
  __asm__ volatile("1: subs %0, %0, #1\n\tbne 1b" : "+r"(n) : : "cc");
  const uint32_t cal = ticks_since(t0);
  put_int("calibration: 2000000 instructions = ", cal);
  pte_mcu_puts(" ticks\n");

  /* every op's output, hashed (FNV-1a 64) per op: the two paths must agree on all of them */
  static uint64_t hash[2][12];
  const pte_cm_isa isas[2] = {PTE_CM_ISA_PORTABLE, pte_cm_simd_active()};
  uint32_t ticks[2];
  for (int r = 0; r < 2; r++) {
    if (!pte_cm_simd_force(isas[r])) return 3;
    systick_start();
    t0 = systick_now();
    if (!run_stack()) return 4;
    ticks[r] = ticks_since(t0);
    for (int i = 0; i < g_n; i++) {
      const pte_tensor *t = g_ops[i].args[g_ops[i].nargs - 1]->u.tensor;
      uint64_t h = 1469598103934665603ull;
      for (size_t k = 0; k < t->capacity_bytes; k++)
        h = (h ^ ((const uint8_t *)t->data)[k]) * 1099511628211ull;
      hash[r][i] = h;
    }
    pte_mcu_puts("kws: ");
    pte_mcu_puts(pte_cm_simd_name(isas[r]));
    put_int(" ticks ", ticks[r]);
    put_int(" insns ", (long long)ticks[r] * 2000000 / (cal ? cal : 1));
    pte_mcu_puts(" (per op:");
    for (int i = 0; i < g_n; i++) put_int(" ", (long long)g_op_ticks[i] * 2000000 / (cal ? cal : 1));
    pte_mcu_puts(")\n");
  }
  const bool same = memcmp(hash[0], hash[1], sizeof hash[0]) == 0;
  pte_mcu_puts(same ? "identical: yes\n" : "identical: no\n");
  /* stack painting (targets/qemu/startup.c): the deepest of both runs, kernels included */
  put_int("stack high-water: ", (long long)pte_mcu_stack_used());
  put_int(" of ", (long long)pte_mcu_stack_size());
  pte_mcu_puts(" bytes\n");
  return same ? 0 : 1;
}
