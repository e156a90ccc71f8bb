/* bench/q8_conv — per-op throughput of the cortex_m int8 kernels on a keyword-spotting style
 * stack: a 49x10x1 input, a 10x4 stride-2 convolution to 64 channels (25x5x64), four
 * depthwise-separable blocks (3x3 depthwise + 1x1 pointwise, 64 channels), a 25x5 average pool,
 * a 64->12 fully connected layer and an int8 softmax, with quantize / dequantize at the ends.
 * All activations are channels-last int8, weights random, requantization per channel.
 *
 * For every op: median time per call, MACs, GMAC/s (or Melem/s for the MAC-free ops), and the
 * ratio against a baseline measured in the same run: a plain dense int8 dot-product loop
 * (contiguous int8 x int8 -> int32 with an input offset, the inner loop of any int8
 * convolution) over the same number of MACs.
 * Also prints RESULT lines (bench/bench_result.h): the first convolution, the four depthwise and
 * the four pointwise convolutions (summed), the fully connected layer and the whole stack, each
 * against the dot-product loop over the same MACs.
 * The cortex_m kernels pick their SIMD ISA at run time (kernels/cortex_m/cm_simd.h); the
 * benchmark prints which one ran, and checks that the whole stack's outputs are bit-identical
 * to the portable path's before timing (exit 1 otherwise).
 * Usage: bench_q8_conv [ITERATIONS [ISA]]   (default 200; ISA: portable, avx2, avx512vnni)
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_result.h"
#include "bench_time.h"
#include "cortex_m/cm_simd.h"
#include "pte/cortex_m_kernels.h"
#include "pte/evalue.h"
#include "pte/kernel.h"
#include "pte/tensor.h"

static uint32_t g_seed = 99u;
static int rnd(int lo, int hi) {
  g_seed = g_seed * 1664525u + 1013904223u;
  return lo + (int)((g_seed >> 8) % (uint32_t)(hi - lo + 1));
}

/* ---- tensors and values built by hand (no test support in benchmarks) ---- */

static const uint8_t k_cl4[4] = {0, 2, 3, 1};
static const uint8_t k_id[4] = {0, 1, 2, 3};

static pte_tensor *mk_tensor(int dtype, int32_t dim, const int32_t *sizes, bool channels_last) {
  pte_tensor *t = (pte_tensor *)calloc(1, sizeof *t);
  t->dim = dim;
  t->dtype = (uint8_t)dtype;
  t->sizes = (int32_t *)malloc(sizeof(int32_t) * (size_t)dim);
  memcpy(t->sizes, sizes, sizeof(int32_t) * (size_t)dim);
  t->dim_order = channels_last ? k_cl4 : k_id;
  t->strides = (int32_t *)malloc(sizeof(int32_t) * (size_t)dim);
  pte_strides_from_dim_order(t->sizes, t->dim_order, dim, t->strides);
  pte_numel(t->sizes, dim, &t->numel);
  t->capacity_bytes = t->numel * pte_dtype_size(dtype);
  t->data = calloc(1, t->capacity_bytes + 64);
  t->dynamism = PTE_SHAPE_STATIC;
  return t;
}

static pte_tensor *rnd_i8(int32_t dim, const int32_t *sizes, int lo, int hi) {
  pte_tensor *t = mk_tensor(PTE_DTYPE_CHAR, dim, sizes, false);
  for (size_t i = 0; i < t->numel; i++) ((int8_t *)t->data)[i] = (int8_t)rnd(lo, hi);
  return t;
}

static pte_tensor *i32_vec(int32_t n, int lo, int hi) {
  int32_t sz[1] = {n};
  pte_tensor *t = mk_tensor(PTE_DTYPE_INT, 1, sz, false);
  for (int32_t i = 0; i < n; i++) ((int32_t *)t->data)[i] = rnd(lo, hi);
  return t;
}

static pte_evalue *ev_t(pte_tensor *t) {
  pte_evalue *v = (pte_evalue *)calloc(1, sizeof *v);
  v->tag = PTE_TAG_TENSOR;
  v->u.tensor = t;
  return v;
}
static pte_evalue *ev_i(int64_t x) {
  pte_evalue *v = (pte_evalue *)calloc(1, sizeof *v);
  v->tag = PTE_TAG_INT;
  v->u.i = x;
  return v;
}
static pte_evalue *ev_d(double x) {
  pte_evalue *v = (pte_evalue *)calloc(1, sizeof *v);
  v->tag = PTE_TAG_DOUBLE;
  v->u.d = x;
  return v;
}
static pte_evalue *ev_b(bool x) {
  pte_evalue *v = (pte_evalue *)calloc(1, sizeof *v);
  v->tag = PTE_TAG_BOOL;
  v->u.b = x;
  return v;
}
static pte_evalue *ev_none(void) { return (pte_evalue *)calloc(1, sizeof(pte_evalue)); }
static pte_evalue *ev_list(const int64_t *xs, size_t n) {
  pte_evalue *v = (pte_evalue *)calloc(1, sizeof *v);
  v->tag = PTE_TAG_LIST_INT;
  v->u.int_list.items = (pte_evalue **)calloc(n, sizeof(pte_evalue *));
  v->u.int_list.unboxed = (int64_t *)calloc(n, sizeof(int64_t));
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
  fprintf(stderr, "bench_q8_conv: kernel %s missing\n", name);
  exit(1);
}

/* ---- one op of the stack ---- */

typedef struct op {
  const char *label;
  pte_op_fn fn;
  pte_evalue *args[20];
  size_t nargs;
  double macs;  /* multiply-accumulates per call (0: elementwise op) */
  double elems; /* output elements per call */
} op;

static int g_n_ops = 0;
static op g_ops[16];

static op *add_op(const char *label, const char *kernel, double macs, double elems) {
  op *o = &g_ops[g_n_ops++];
  memset(o, 0, sizeof *o);
  o->label = label;
  o->fn = find(kernel);
  o->macs = macs;
  o->elems = elems;
  return o;
}

static void run_op(op *o) {
  pte_kernel_context ctx;
  memset(&ctx, 0, sizeof ctx);
  ctx.op_name = o->label;
  o->fn(&ctx, o->args, o->nargs);
  if (ctx.failure != PTE_OK) {
    fprintf(stderr, "bench_q8_conv: %s failed (%s): %s\n", o->label, pte_status_name(ctx.failure),
            ctx.msg);
    exit(1);
  }
}

/* Runs the whole stack once and returns a copy of every op's output bytes. */
static unsigned char *run_stack_snapshot(size_t *len) {
  size_t n = 0;
  for (int i = 0; i < g_n_ops; i++) {
    run_op(&g_ops[i]);
    n += g_ops[i].args[g_ops[i].nargs - 1]->u.tensor->capacity_bytes;
  }
  unsigned char *buf = (unsigned char *)malloc(n), *p = buf;
  for (int i = 0; i < g_n_ops; i++) {
    const pte_tensor *t = g_ops[i].args[g_ops[i].nargs - 1]->u.tensor;
    memcpy(p, t->data, t->capacity_bytes);
    p += t->capacity_bytes;
  }
  *len = n;
  return buf;
}

/* Per-channel requantization parameters that keep a conv with `fan_in` taps in range. */
static void requant_params(int32_t n, int shift_lo, int shift_hi, pte_tensor **m, pte_tensor **s) {
  *m = i32_vec(n, 1073741824, 2147483000);
  *s = i32_vec(n, shift_lo, shift_hi);
}

static pte_tensor *scratch(void) {
  int32_t sz[1] = {1};
  return mk_tensor(PTE_DTYPE_CHAR, 1, sz, false);
}

static op *conv_op(const char *label, pte_tensor *in, pte_tensor *out, int32_t oc, int32_t kh,
                   int32_t kw, int32_t sh, int32_t sw, int32_t ph, int32_t pw, double macs) {
  const int32_t wsz[4] = {oc, kh, kw, in->sizes[1]};
  pte_tensor *m, *s;
  requant_params(oc, -10, -8, &m, &s);
  op *o = add_op(label, "cortex_m::quantized_conv2d.out", macs, (double)out->numel);
  pte_evalue *outv = ev_t(out);
  pte_evalue *a[] = {ev_t(in), ev_t(rnd_i8(4, wsz, -60, 60)), ev_t(i32_vec(oc, -500, 500)),
                     ev_pair(sh, sw), ev_pair(ph, pw), ev_pair(1, 1), ev_i(7), ev_i(-20),
                     ev_t(m), ev_t(s), ev_i(-20), ev_i(127), ev_t(scratch()), outv, outv};
  memcpy(o->args, a, sizeof a);
  o->nargs = sizeof a / sizeof a[0];
  return o;
}

static op *dw_op(const char *label, pte_tensor *in, pte_tensor *out, double macs) {
  const int32_t c = in->sizes[1];
  const int32_t wsz[4] = {1, 3, 3, c};
  pte_tensor *m, *s;
  requant_params(c, -8, -6, &m, &s);
  op *o = add_op(label, "cortex_m::quantized_depthwise_conv2d.out", macs, (double)out->numel);
  pte_evalue *outv = ev_t(out);
  pte_evalue *a[] = {ev_t(in), ev_t(rnd_i8(4, wsz, -70, 70)), ev_t(i32_vec(c, -300, 300)),
                     ev_pair(1, 1), ev_pair(1, 1), ev_pair(1, 1), ev_i(1), ev_i(20), ev_i(-5),
                     ev_t(m), ev_t(s), ev_i(-5), ev_i(127), ev_t(scratch()), outv, outv};
  memcpy(o->args, a, sizeof a);
  o->nargs = sizeof a / sizeof a[0];
  return o;
}

/* The baseline: dense int8 dot products with an input offset over `macs` MACs. */
static volatile int32_t g_sink;
static double baseline_us(double macs, int iters) {
  const int K = 640;
  const int rows = (int)(macs / K) > 0 ? (int)(macs / K) : 1;
  int8_t *a = (int8_t *)malloc((size_t)K), *b = (int8_t *)malloc((size_t)K * (size_t)rows);
  for (int i = 0; i < K; i++) a[i] = (int8_t)rnd(-128, 127);
  for (int i = 0; i < K * rows; i++) b[i] = (int8_t)rnd(-128, 127);
  double *t = (double *)malloc(sizeof(double) * (size_t)iters);
  for (int it = 0; it < iters; it++) {
    const double t0 = pte_bench_now_us();
    int32_t total = 0;
    for (int r = 0; r < rows; r++) {
      const int8_t *br = b + (size_t)r * (size_t)K;
      int32_t acc = 0;
      for (int k = 0; k < K; k++) acc += ((int32_t)a[k] + 7) * (int32_t)br[k];
      total ^= acc;
    }
    g_sink = total;
    t[it] = pte_bench_now_us() - t0;
  }
  const double med = pte_bench_median(t, iters) * (macs / ((double)rows * K));
  free(a);
  free(b);
  free(t);
  return med;
}

int main(int argc, char **argv) {
  int iters = argc > 1 ? atoi(argv[1]) : 200;
  if (iters < 3) iters = 3;
  pte_cm_isa isa = pte_cm_simd_active();
  if (argc > 2) {
    int found = -1;
    for (int k = PTE_CM_ISA_PORTABLE; k < PTE_CM_ISA_COUNT; k++)
      if (strcmp(argv[2], pte_cm_simd_name((pte_cm_isa)k)) == 0) found = k;
    if (found < 0 || !pte_cm_simd_available((pte_cm_isa)found)) {
      fprintf(stderr, "bench_q8_conv: ISA %s not available here\n", argv[2]);
      return 1;
    }
    isa = (pte_cm_isa)found;
  }

  /* tensors of the stack */
  const int32_t s_x[4] = {1, 1, 49, 10}, s_a[4] = {1, 64, 25, 5}, s_p[4] = {1, 64, 1, 1};
  const int32_t s_f[2] = {1, 64}, s_o[2] = {1, 12};
  pte_tensor *xf = mk_tensor(PTE_DTYPE_FLOAT, 4, s_x, false);
  for (size_t i = 0; i < xf->numel; i++) ((float *)xf->data)[i] = (float)rnd(-1000, 1000) / 250.0f;
  pte_tensor *xq = mk_tensor(PTE_DTYPE_CHAR, 4, s_x, true);
  pte_tensor *act[9];
  for (int i = 0; i < 9; i++) act[i] = mk_tensor(PTE_DTYPE_CHAR, 4, s_a, true);
  pte_tensor *pooled = mk_tensor(PTE_DTYPE_CHAR, 4, s_p, true);
  pte_tensor *flat = mk_tensor(PTE_DTYPE_CHAR, 2, s_f, false);
  pte_tensor *logits = mk_tensor(PTE_DTYPE_CHAR, 2, s_o, false);
  pte_tensor *probs = mk_tensor(PTE_DTYPE_CHAR, 2, s_o, false);
  pte_tensor *yf = mk_tensor(PTE_DTYPE_FLOAT, 2, s_o, false);

  {
    op *o = add_op("quantize 49x10", "cortex_m::quantize_per_tensor.out", 0, (double)xq->numel);
    pte_evalue *outv = ev_t(xq);
    pte_evalue *a[] = {ev_t(xf), ev_d(0.0625), ev_i(-7), ev_i(-128), ev_i(127),
                       ev_i(PTE_DTYPE_CHAR), outv, outv};
    memcpy(o->args, a, sizeof a);
    o->nargs = 8;
  }
  conv_op("conv 10x4/2 1->64", xq, act[0], 64, 10, 4, 2, 2, 5, 1, 25.0 * 5 * 64 * 10 * 4);
  for (int blk = 0; blk < 4; blk++) {
    static char labels[8][40];
    snprintf(labels[2 * blk], sizeof labels[0], "dw 3x3 64 (block %d)", blk + 1);
    snprintf(labels[2 * blk + 1], sizeof labels[0], "pw 1x1 64->64 (block %d)", blk + 1);
    dw_op(labels[2 * blk], act[2 * blk], act[2 * blk + 1], 25.0 * 5 * 64 * 9);
    conv_op(labels[2 * blk + 1], act[2 * blk + 1], act[2 * blk + 2], 64, 1, 1, 1, 1, 0, 0,
            25.0 * 5 * 64 * 64);
  }
  {
    op *o = add_op("avgpool 25x5", "cortex_m::quantized_avg_pool2d.out", 0, 25.0 * 5 * 64);
    pte_evalue *outv = ev_t(pooled);
    pte_evalue *a[] = {ev_t(act[8]), ev_pair(25, 5), ev_pair(25, 5), ev_pair(0, 0), ev_b(false),
                       ev_i(-20), ev_i(1073741824), ev_i(0), ev_t(scratch()), outv, outv};
    memcpy(o->args, a, sizeof a);
    o->nargs = 11;
  }
  /* flatten: [1,64,1,1] channels-last and [1,64] share the byte order */
  free(pooled->data);
  pooled->data = flat->data;
  {
    const int32_t wsz[2] = {12, 64};
    const int64_t mm[1] = {1518500250}, ss[1] = {-7};
    op *o = add_op("fc 64->12", "cortex_m::quantized_linear.out", 64.0 * 12, 12);
    pte_evalue *outv = ev_t(logits);
    pte_evalue *a[] = {ev_t(flat), ev_t(rnd_i8(2, wsz, -100, 100)), ev_t(i32_vec(12, -900, 900)),
                       ev_none(), ev_i(20), ev_i(0), ev_i(3), ev_list(mm, 1), ev_list(ss, 1),
                       ev_i(127), ev_i(-128), outv, outv};
    memcpy(o->args, a, sizeof a);
    o->nargs = 13;
  }
  {
    op *o = add_op("softmax 12", "cortex_m::softmax.out", 0, 12);
    pte_evalue *outv = ev_t(probs);
    pte_evalue *a[] = {ev_t(logits), ev_i(-1), ev_i(3), ev_i(-128), ev_i(1077952640), ev_i(19),
                       ev_i(-3968), outv, outv};
    memcpy(o->args, a, sizeof a);
    o->nargs = 9;
  }
  {
    op *o = add_op("dequantize 12", "cortex_m::dequantize_per_tensor.out", 0, 12);
    pte_evalue *outv = ev_t(yf);
    pte_evalue *a[] = {ev_t(probs), ev_d(1.0 / 256), ev_i(-128), ev_i(-128), ev_i(127),
                       ev_i(PTE_DTYPE_CHAR), outv, outv};
    memcpy(o->args, a, sizeof a);
    o->nargs = 8;
  }

  /* warm up (also checks every op succeeds) and compare the outputs with the portable path's */
  size_t n_simd, n_port;
  pte_cm_simd_force(isa);
  unsigned char *o_simd = run_stack_snapshot(&n_simd);
  pte_cm_simd_force(PTE_CM_ISA_PORTABLE);
  unsigned char *o_port = run_stack_snapshot(&n_port);
  pte_cm_simd_force(isa);
  const bool same = n_simd == n_port && memcmp(o_simd, o_port, n_simd) == 0;
  printf("cortex_m kernels ISA: %s; outputs of all %d ops (%zu bytes) %s the portable path's\n",
         pte_cm_simd_name(isa), g_n_ops, n_simd, same ? "bit-identical to" : "DIFFER from");
  free(o_simd);
  free(o_port);
  if (!same) return 1;
  for (int i = 0; i < g_n_ops; i++) run_op(&g_ops[i]);

  double *t = (double *)malloc(sizeof(double) * (size_t)iters);
  double total_us = 0, total_macs = 0;
  double dw_us = 0, dw_macs = 0, pw_us = 0, pw_macs = 0;
  const char *const base_name = "int8 dot-product loop, same MACs";
  printf("%-26s %12s %12s %12s %10s\n", "op", "median us", "MMAC", "GMAC/s", "vs dot");
  for (int i = 0; i < g_n_ops; i++) {
    op *o = &g_ops[i];
    for (int it = 0; it < iters; it++) {
      const double t0 = pte_bench_now_us();
      run_op(o);
      t[it] = pte_bench_now_us() - t0;
    }
    const double med = pte_bench_median(t, iters);
    total_us += med;
    total_macs += o->macs;
    if (o->macs > 0) {
      const double base = baseline_us(o->macs, iters);
      char c[96];
      if (o->macs >= 1e5) snprintf(c, sizeof c, "%s (%.2f MMAC)", o->label, o->macs / 1e6);
      else snprintf(c, sizeof c, "%s (%.0f MAC)", o->label, o->macs);
      if (strncmp(o->label, "dw ", 3) == 0) {
        dw_us += med;
        dw_macs += o->macs;
      } else if (strncmp(o->label, "pw ", 3) == 0) {
        pw_us += med;
        pw_macs += o->macs;
      } else {
        pte_bench_result("q8_conv", c, "time per call", "µs", med, base_name, base, base / med, NULL,
                         PTE_BENCH_NO_GOAL);
      }
      printf("%-26s %12.2f %12.3f %12.3f %9.2fx\n", o->label, med, o->macs / 1e6,
             o->macs / med / 1e3, base / med);
    } else {
      printf("%-26s %12.2f %12s %9.1f Melem/s\n", o->label, med, "-", o->elems / med);
    }
  }
  if (dw_macs > 0) {
    const double base = baseline_us(dw_macs, iters);
    char c[96];
    snprintf(c, sizeof c, "dw 3x3 64, 4 blocks summed (%.2f MMAC)", dw_macs / 1e6);
    pte_bench_result("q8_conv", c, "time per call", "µs", dw_us, base_name, base, base / dw_us, NULL,
                     PTE_BENCH_NO_GOAL);
  }
  if (pw_macs > 0) {
    const double base = baseline_us(pw_macs, iters);
    char c[96];
    snprintf(c, sizeof c, "pw 1x1 64->64, 4 blocks summed (%.2f MMAC)", pw_macs / 1e6);
    pte_bench_result("q8_conv", c, "time per call", "µs", pw_us, base_name, base, base / pw_us, NULL,
                     PTE_BENCH_NO_GOAL);
  }
  const double base_all = baseline_us(total_macs, iters);
  {
    char c[96];
    snprintf(c, sizeof c, "whole KWS stack, %d ops (%.2f MMAC)", g_n_ops, total_macs / 1e6);
    pte_bench_result("q8_conv", c, "time per inference", "µs", total_us, base_name, base_all, base_all / total_us,
                     NULL, PTE_BENCH_NO_GOAL);
  }
  printf("%-26s %12.2f %12.3f %12.3f %9.2fx\n", "whole stack", total_us, total_macs / 1e6,
         total_macs / total_us / 1e3, base_all / total_us);
  printf("(vs dot: time of a dense int8 dot-product loop over the same MACs / time of the op;\n"
         " 1.0x = as fast as the bare inner loop)\n");
  free(t);
  return 0;
}
