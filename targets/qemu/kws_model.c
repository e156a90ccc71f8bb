/* kws_model.c — the int8 keyword-spotting network of the QEMU runs, written with the program
 * builder (pte/writer.h), cortex_m operators only (docs/mcu.md):
 *
 *   x float32 [1,1,49,10] (MFCC-like features)
 *     -> cortex_m::quantize_per_tensor                      int8 [1,1,49,10]   scale 1/16, zp -7
 *     -> cortex_m::quantized_conv2d 10x4 stride 2 pad 5,1   int8 [1,64,25,5]   zp -20, ReLU
 *     -> 4 x (cortex_m::quantized_depthwise_conv2d 3x3      int8 [1,64,25,5]   zp -5, ReLU
 *             cortex_m::quantized_conv2d 1x1 64->64)        int8 [1,64,25,5]   zp -20, ReLU
 *     -> cortex_m::quantized_avg_pool2d 25x5                int8 [1,64,1,1]
 *     -> aten::view_copy                                    int8 [1,64]
 *     -> cortex_m::quantized_linear 64->12                  int8 [1,12]        zp 3
 *     -> cortex_m::softmax                                  int8 [1,12]        scale 1/256, zp -128
 *     -> cortex_m::dequantize_per_tensor                    float32 [1,12]
 *
 * Outputs: the int8 probabilities, their float32 dequantization, the int8 logits and the pooled
 * int8 features. Activations channels-last.
 * Weights, biases and per-channel requantization come from a fixed LCG (seed 2026), so the
 * program is the same bytes on every machine. The input is a fixed LCG pattern too. */
#include "kws_model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pte/tensor.h"
#include "pte/writer.h"

#define KWS_C 64
#define KWS_H 25
#define KWS_W 5
#define KWS_BLOCKS 4
#define Q30 1073741824

static const uint8_t k_cl4[4] = {0, 2, 3, 1};

typedef struct kws_b {
  pte_writer *w;
  uint32_t m;
  uint32_t chain;
  bool ok;
  pte_error_info err;
  uint32_t seed;
  void *owned[64]; /* constant data kept alive until the write */
  int n_owned;
} kws_b;

static int kws_rnd(kws_b *b, int lo, int hi) {
  b->seed = b->seed * 1664525u + 1013904223u;
  return lo + (int)((b->seed >> 8) % (uint32_t)(hi - lo + 1));
}

static void *kws_keep(kws_b *b, size_t n) {
  void *p = calloc(1, n ? n : 1);
  if (!p || b->n_owned >= (int)(sizeof b->owned / sizeof b->owned[0])) {
    free(p);
    b->ok = false;
    return NULL;
  }
  b->owned[b->n_owned++] = p;
  return p;
}

static int32_t kws_tensor(kws_b *b, int dtype, size_t dim, const int32_t *sizes, bool cl, const void *data, size_t nbytes) {
  int32_t v = -1;
  if (!b->ok) return v;
  pte_wr_tensor t;
  memset(&t, 0, sizeof t);
  t.dtype = dtype;
  t.dim = dim;
  t.sizes = sizes;
  t.dim_order = cl ? k_cl4 : NULL;
  if (data) {
    pte_source src = pte_source_memory(data, nbytes);
    b->ok = pte_writer_add_constant_tensor(b->w, b->m, &t, &src, &v, &b->err) == PTE_OK;
  } else {
    t.plan = PTE_WR_PLAN_AUTO;
    t.mem_id = 1;
    b->ok = pte_writer_add_tensor(b->w, b->m, &t, &v, &b->err) == PTE_OK;
  }
  return v;
}

static int32_t kws_int(kws_b *b, int64_t x) {
  int32_t v = -1;
  if (b->ok) b->ok = pte_writer_add_int(b->w, b->m, x, &v, &b->err) == PTE_OK;
  return v;
}

static int32_t kws_double(kws_b *b, double x) {
  int32_t v = -1;
  if (b->ok) b->ok = pte_writer_add_double(b->w, b->m, x, &v, &b->err) == PTE_OK;
  return v;
}

static int32_t kws_pair(kws_b *b, int64_t x, int64_t y) {
  const int64_t items[2] = {x, y};
  int32_t v = -1;
  if (b->ok) b->ok = pte_writer_add_int_list_literal(b->w, b->m, items, 2, &v, &b->err) == PTE_OK;
  return v;
}

static void kws_call(kws_b *b, const char *name, const int32_t *args, size_t n) {
  uint32_t op;
  if (b->ok) b->ok = pte_writer_add_operator(b->w, b->m, name, "out", &op, &b->err) == PTE_OK;
  if (b->ok) b->ok = pte_writer_add_kernel_call(b->w, b->m, b->chain, op, args, n, NULL, &b->err) == PTE_OK;
}

static int32_t kws_i8_const(kws_b *b, size_t dim, const int32_t *sizes, int lo, int hi) {
  size_t n = 1;
  for (size_t i = 0; i < dim; i++) n *= (size_t)sizes[i];
  int8_t *d = (int8_t *)kws_keep(b, n);
  if (!d) return -1;
  for (size_t i = 0; i < n; i++) d[i] = (int8_t)kws_rnd(b, lo, hi);
  return kws_tensor(b, PTE_DTYPE_CHAR, dim, sizes, false, d, n);
}

static int32_t kws_i32_const(kws_b *b, int32_t n, int lo, int hi) {
  int32_t *d = (int32_t *)kws_keep(b, sizeof(int32_t) * (size_t)n);
  if (!d) return -1;
  for (int32_t i = 0; i < n; i++) d[i] = kws_rnd(b, lo, hi);
  const int32_t sz[1] = {n};
  return kws_tensor(b, PTE_DTYPE_INT, 1, sz, false, d, sizeof(int32_t) * (size_t)n);
}

/* conv (depthwise when dw) with per-channel requantization into `out` */
static void kws_conv(kws_b *b, bool dw, int32_t in, int32_t out, int32_t cin, int32_t cout, int kh, int kw, int sh, int sw, int ph,
                     int pw, int in_zp, int out_zp, int wmax, int shift_lo, int shift_hi, int32_t scratch) {
  const int32_t wsz_conv[4] = {cout, kh, kw, cin}, wsz_dw[4] = {1, kh, kw, cout};
  const int32_t w = kws_i8_const(b, 4, dw ? wsz_dw : wsz_conv, -wmax, wmax);
  const int32_t bias = kws_i32_const(b, cout, -400, 400);
  const int32_t mult = kws_i32_const(b, cout, Q30, 2147483000);
  const int32_t shift = kws_i32_const(b, cout, shift_lo, shift_hi);
  if (dw) {
    const int32_t a[] = {in, w, bias, kws_pair(b, sh, sw), kws_pair(b, ph, pw), kws_pair(b, 1, 1), kws_int(b, 1),
                         kws_int(b, -in_zp), kws_int(b, out_zp), mult, shift, kws_int(b, out_zp), kws_int(b, 127),
                         scratch, out, out};
    kws_call(b, "cortex_m::quantized_depthwise_conv2d", a, sizeof a / sizeof a[0]);
  } else {
    const int32_t a[] = {in, w, bias, kws_pair(b, sh, sw), kws_pair(b, ph, pw), kws_pair(b, 1, 1), kws_int(b, -in_zp),
                         kws_int(b, out_zp), mult, shift, kws_int(b, out_zp), kws_int(b, 127), scratch, out, out};
    kws_call(b, "cortex_m::quantized_conv2d", a, sizeof a / sizeof a[0]);
  }
}

int pte_mcu_kws_write(const char *pte_path, const char *input_path, pte_error_info *err) {
  kws_b b;
  memset(&b, 0, sizeof b);
  b.seed = 2026u;
  b.ok = pte_writer_create(NULL, &b.w, &b.err) == PTE_OK;
  if (b.ok) b.ok = pte_writer_add_method(b.w, "forward", &b.m, &b.err) == PTE_OK;

  const int32_t s_x[4] = {1, 1, 49, 10}, s_a[4] = {1, KWS_C, KWS_H, KWS_W}, s_p[4] = {1, KWS_C, 1, 1};
  const int32_t s_f[2] = {1, KWS_C}, s_o[2] = {1, 12}, s_one[1] = {1};
  const int32_t x = kws_tensor(&b, PTE_DTYPE_FLOAT, 4, s_x, false, NULL, 0);
  const int32_t xq = kws_tensor(&b, PTE_DTYPE_CHAR, 4, s_x, true, NULL, 0);
  int32_t act[1 + 2 * KWS_BLOCKS];
  for (int i = 0; i < 1 + 2 * KWS_BLOCKS; i++) act[i] = kws_tensor(&b, PTE_DTYPE_CHAR, 4, s_a, true, NULL, 0);
  const int32_t pooled = kws_tensor(&b, PTE_DTYPE_CHAR, 4, s_p, true, NULL, 0);
  const int32_t flat = kws_tensor(&b, PTE_DTYPE_CHAR, 2, s_f, false, NULL, 0);
  const int32_t logits = kws_tensor(&b, PTE_DTYPE_CHAR, 2, s_o, false, NULL, 0);
  const int32_t probs = kws_tensor(&b, PTE_DTYPE_CHAR, 2, s_o, false, NULL, 0);
  const int32_t y = kws_tensor(&b, PTE_DTYPE_FLOAT, 2, s_o, false, NULL, 0);
  const int32_t scratch = kws_tensor(&b, PTE_DTYPE_CHAR, 1, s_one, false, NULL, 0);
  const int32_t outs[4] = {probs, y, logits, pooled};
  if (b.ok) b.ok = pte_writer_set_inputs(b.w, b.m, &x, 1, &b.err) == PTE_OK;
  if (b.ok) b.ok = pte_writer_set_outputs(b.w, b.m, outs, 4, &b.err) == PTE_OK;
  if (b.ok) b.ok = pte_writer_add_chain(b.w, b.m, &x, 1, outs, 4, &b.chain, &b.err) == PTE_OK;

  {
    const int32_t a[] = {x, kws_double(&b, 0.0625), kws_int(&b, -7), kws_int(&b, -128), kws_int(&b, 127),
                         kws_int(&b, PTE_DTYPE_CHAR), xq, xq};
    kws_call(&b, "cortex_m::quantize_per_tensor", a, sizeof a / sizeof a[0]);
  }
  kws_conv(&b, false, xq, act[0], 1, KWS_C, 10, 4, 2, 2, 5, 1, -7, -20, 40, -7, -6, scratch);
  for (int blk = 0; blk < KWS_BLOCKS; blk++) {
    kws_conv(&b, true, act[2 * blk], act[2 * blk + 1], KWS_C, KWS_C, 3, 3, 1, 1, 1, 1, -20, -5, 60, -6, -5, scratch);
    kws_conv(&b, false, act[2 * blk + 1], act[2 * blk + 2], KWS_C, KWS_C, 1, 1, 1, 1, 0, 0, -5, -20, 50, -6, -5, scratch);
  }
  {
    const int32_t a[] = {act[2 * KWS_BLOCKS], kws_pair(&b, KWS_H, KWS_W), kws_pair(&b, KWS_H, KWS_W), kws_pair(&b, 0, 0),
                         -1, kws_int(&b, -20), kws_int(&b, Q30), kws_int(&b, 0), scratch, pooled, pooled};
    int32_t a2[sizeof a / sizeof a[0]];
    memcpy(a2, a, sizeof a);
    if (b.ok) b.ok = pte_writer_add_bool(b.w, b.m, false, &a2[4], &b.err) == PTE_OK;
    kws_call(&b, "cortex_m::quantized_avg_pool2d", a2, sizeof a2 / sizeof a2[0]);
  }
  {
    const int32_t a[] = {pooled, kws_pair(&b, 1, KWS_C), flat, flat};
    kws_call(&b, "aten::view_copy", a, sizeof a / sizeof a[0]);
  }
  {
    const int32_t wsz[2] = {12, KWS_C};
    const int32_t w = kws_i8_const(&b, 2, wsz, -100, 100);
    const int32_t bias = kws_i32_const(&b, 12, -900, 900);
    const int64_t mm[1] = {1518500250}, ss[1] = {-8};
    int32_t ml = -1, sl = -1, none = -1;
    if (b.ok) b.ok = pte_writer_add_int_list_literal(b.w, b.m, mm, 1, &ml, &b.err) == PTE_OK;
    if (b.ok) b.ok = pte_writer_add_int_list_literal(b.w, b.m, ss, 1, &sl, &b.err) == PTE_OK;
    if (b.ok) b.ok = pte_writer_add_null(b.w, b.m, &none, &b.err) == PTE_OK;
    const int32_t a[] = {flat, w, bias, none, kws_int(&b, 20), kws_int(&b, 0), kws_int(&b, 3), ml, sl,
                         kws_int(&b, 127), kws_int(&b, -128), logits, logits};
    kws_call(&b, "cortex_m::quantized_linear", a, sizeof a / sizeof a[0]);
  }
  {
    const int32_t a[] = {logits, kws_int(&b, -1), kws_int(&b, 3), kws_int(&b, -128), kws_int(&b, 1077952640),
                         kws_int(&b, 19), kws_int(&b, -3968), probs, probs};
    kws_call(&b, "cortex_m::softmax", a, sizeof a / sizeof a[0]);
  }
  {
    const int32_t a[] = {probs, kws_double(&b, 1.0 / 256), kws_int(&b, -128), kws_int(&b, -128), kws_int(&b, 127),
                         kws_int(&b, PTE_DTYPE_CHAR), y, y};
    kws_call(&b, "cortex_m::dequantize_per_tensor", a, sizeof a / sizeof a[0]);
  }
  if (b.ok) b.ok = pte_writer_write_file(b.w, pte_path, NULL, &b.err) == PTE_OK;
  if (b.w) pte_writer_destroy(b.w);
  for (int i = 0; i < b.n_owned; i++) free(b.owned[i]);
  if (!b.ok) {
    if (err) *err = b.err;
    return 1;
  }

  /* the input: 49x10 features from the same kind of LCG, in [-4, 4) */
  float feat[49 * 10];
  uint32_t s = 7u;
  for (int i = 0; i < 49 * 10; i++) {
    s = s * 1664525u + 1013904223u;
    feat[i] = (float)((int)((s >> 8) % 2000u) - 1000) / 250.0f;
  }
  FILE *f = fopen(input_path, "wb");
  if (!f || fwrite(feat, sizeof feat, 1, f) != 1) {
    if (f) fclose(f);
    if (err) {
      err->status = PTE_ERR_ACCESS_FAILED;
      snprintf(err->msg, sizeof err->msg, "kws: cannot write %s", input_path);
    }
    return 1;
  }
  if (fclose(f) != 0) return 1;
  return 0;
}
