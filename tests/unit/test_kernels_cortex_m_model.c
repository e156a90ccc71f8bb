/* A small int8 model built with the program builder (pte/writer.h) and run through the method
 * API with the cortex_m kernels:
 *
 *   x (float32 [1,1,6,6])
 *     -> cortex_m::quantize_per_tensor        q0 int8 [1,1,6,6]
 *     -> cortex_m::quantized_conv2d           q1 int8 [1,4,6,6]  3x3, pad 1, per-channel, "relu"
 *     -> cortex_m::quantized_depthwise_conv2d q2 int8 [1,4,3,3]  3x3, stride 2, pad 1
 *     -> cortex_m::quantized_avg_pool2d       q3 int8 [1,4,1,1]
 *     -> aten::view_copy                      q4 int8 [1,4]
 *     -> cortex_m::quantized_linear           q5 int8 [1,3]
 *     -> cortex_m::dequantize_per_tensor      y  float32 [1,3]
 *
 * Activations are channels-last, weights random. The outputs (q5 and y) must equal an integer
 * reference written here from the CMSIS-NN definitions over plain NCHW arrays (no kernel code is
 * shared with it); the depthwise activation q2 is a method output too and is compared as well: requantize = round-half-up doubling high multiply, then a rounding shift with
 * ties away from zero. Several inputs are run through the same loaded method. */
#include "test.h"

#include "support/ktest.h"

#include "pte/cortex_m_kernels.h"
#include "pte/data_loader.h"
#include "pte/data_writer.h"
#include "pte/io.h"
#include "pte/method.h"
#include "pte/portable_kernels.h"
#include "pte/program.h"
#include "pte/writer.h"

/* ---------------------------------------------------------------------------------------- */
/* model parameters                                                                          */

#define H 6
#define W 6
#define C1 4
#define NOUT 3
#define Q30 1073741824

static const float k_in_scale = 0.03125f;
static const int k_in_zp = -3;
static const int k_zp1 = -10, k_zp2 = 5, k_zp5 = 2;
static const float k_out_scale = 0.05f;

static int8_t g_w1[C1 * 3 * 3 * 1];   /* OHWI */
static int32_t g_b1[C1], g_m1[C1], g_s1[C1];
static int8_t g_w2[1 * 3 * 3 * C1];   /* IHWO */
static int32_t g_b2[C1], g_m2[C1], g_s2[C1];
static int8_t g_w3[NOUT * C1];
static int32_t g_b3[NOUT];
static const int32_t k_m3 = 1518500250, k_s3 = -6;

static uint32_t g_seed = 12345u;
static int rnd_int(int lo, int hi) {
  g_seed = g_seed * 1664525u + 1013904223u;
  return lo + (int)((g_seed >> 8) % (uint32_t)(hi - lo + 1));
}

static void make_params(void) {
  for (int i = 0; i < C1 * 9; i++) g_w1[i] = (int8_t)rnd_int(-60, 60);
  for (int i = 0; i < C1 * 9; i++) g_w2[i] = (int8_t)rnd_int(-70, 70);
  for (int i = 0; i < NOUT * C1; i++) g_w3[i] = (int8_t)rnd_int(-100, 100);
  for (int c = 0; c < C1; c++) {
    g_b1[c] = rnd_int(-2000, 2000);
    g_m1[c] = rnd_int(Q30, 2147483000);
    g_s1[c] = rnd_int(-10, -8);
    g_b2[c] = rnd_int(-500, 500);
    g_m2[c] = rnd_int(Q30, 2147483000);
    g_s2[c] = rnd_int(-9, -7);
  }
  for (int o = 0; o < NOUT; o++) g_b3[o] = rnd_int(-3000, 3000);
}

/* ---------------------------------------------------------------------------------------- */
/* independent integer reference                                                             */

static int64_t floor_div(int64_t a, int64_t b) { /* b > 0 */
  int64_t q = a / b;
  if ((a % b != 0) && (a < 0)) q--;
  return q;
}

static int32_t ref_requant(int32_t v, int32_t m, int32_t s) {
  int64_t x = v;
  if (s > 0) x = (int64_t)(int32_t)(uint32_t)((uint64_t)(uint32_t)v << s);
  int64_t hi = floor_div(x * (int64_t)m + (1LL << 30), 1LL << 31);
  if (s < 0) {
    const int r = -s;
    int64_t mag = hi < 0 ? -hi : hi;
    mag = (mag + (1LL << (r - 1))) >> r; /* ties away from zero */
    hi = hi < 0 ? -mag : mag;
  }
  return (int32_t)hi;
}

static int clampi(int v, int lo, int hi) { return v < lo ? lo : (v > hi ? hi : v); }

/* Runs the whole model on x[H*W]; q5[NOUT], y[NOUT] and the depthwise output q2 (NCHW) out. */
static void ref_model(const float *x, int8_t *q5, float *y, int *q2out) {
  int q0[H][W], q1[C1][H][W], q2[C1][3][3], q3[C1];
  for (int i = 0; i < H; i++)
    for (int j = 0; j < W; j++) {
      const float p = x[i * W + j] * (1.0f / k_in_scale);
      q0[i][j] = clampi((int)rintf(p) + k_in_zp, -128, 127);
    }
  /* conv 3x3 pad 1, input offset -zp, per channel, activation [zp1, 127] */
  for (int c = 0; c < C1; c++)
    for (int i = 0; i < H; i++)
      for (int j = 0; j < W; j++) {
        int32_t acc = g_b1[c];
        for (int ky = 0; ky < 3; ky++)
          for (int kx = 0; kx < 3; kx++) {
            const int ii = i - 1 + ky, jj = j - 1 + kx;
            if (ii < 0 || ii >= H || jj < 0 || jj >= W) continue;
            acc += (q0[ii][jj] - k_in_zp) * g_w1[(c * 3 + ky) * 3 + kx];
          }
        q1[c][i][j] = clampi(ref_requant(acc, g_m1[c], g_s1[c]) + k_zp1, k_zp1, 127);
      }
  /* depthwise 3x3 stride 2 pad 1 */
  for (int c = 0; c < C1; c++)
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++) {
        int32_t acc = g_b2[c];
        for (int ky = 0; ky < 3; ky++)
          for (int kx = 0; kx < 3; kx++) {
            const int ii = 2 * i - 1 + ky, jj = 2 * j - 1 + kx;
            if (ii < 0 || ii >= H || jj < 0 || jj >= W) continue;
            acc += (q1[c][ii][jj] - k_zp1) * g_w2[(ky * 3 + kx) * C1 + c];
          }
        q2[c][i][j] = clampi(ref_requant(acc, g_m2[c], g_s2[c]) + k_zp2, -128, 127);
      }
  /* global 3x3 average, rounded half away from zero */
  for (int c = 0; c < C1; c++) {
    int s = 0;
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++) s += q2[c][i][j];
    const int mag = ((s < 0 ? -s : s) * 2 + 9) / 18; /* |s| / 9 rounded half up */
    q3[c] = s < 0 ? -mag : mag;
  }
  /* linear, input offset -zp2, per tensor requantize, output zp5 */
  for (int o = 0; o < NOUT; o++) {
    int32_t acc = g_b3[o];
    for (int c = 0; c < C1; c++) acc += (q3[c] - k_zp2) * g_w3[o * C1 + c];
    q5[o] = (int8_t)clampi(ref_requant(acc, k_m3, k_s3) + k_zp5, -128, 127);
    y[o] = (float)(q5[o] - k_zp5) * k_out_scale;
  }
  for (int c = 0; c < C1; c++)
    for (int i = 0; i < 9; i++) q2out[c * 9 + i] = q2[c][i / 3][i % 3];
}

/* ---------------------------------------------------------------------------------------- */
/* program construction                                                                      */

static int32_t ilist2(ktest_pb *b, int64_t a, int64_t c) {
  const int64_t items[2] = {a, c};
  return ktest_pb_int_list(b, items, 2);
}

/* Builds the program into memory; returns a malloc'd copy (64-aligned) or NULL. */
static uint8_t *build_program(size_t *size, pte_error_info *err) {
  ktest_pb b;
  ktest_pb_begin(&b);

  const int32_t s_x[] = {1, 1, H, W}, s_q1[] = {1, C1, H, W}, s_q2[] = {1, C1, 3, 3};
  const int32_t s_q3[] = {1, C1, 1, 1}, s_q4[] = {1, C1}, s_q5[] = {1, NOUT}, s_one[] = {1};
  const int32_t s_w1[] = {C1, 3, 3, 1}, s_w2[] = {1, 3, 3, C1}, s_w3[] = {NOUT, C1}, s_c[] = {C1};
  const int32_t s_b3[] = {NOUT};
  const int32_t x = ktest_pb_tensor(&b, PTE_DTYPE_FLOAT, 4, s_x, NULL, NULL, 0);
  const int32_t q0 = ktest_pb_tensor(&b, PTE_DTYPE_CHAR, 4, s_x, ktest_cl4, NULL, 0);
  const int32_t q1 = ktest_pb_tensor(&b, PTE_DTYPE_CHAR, 4, s_q1, ktest_cl4, NULL, 0);
  const int32_t q2 = ktest_pb_tensor(&b, PTE_DTYPE_CHAR, 4, s_q2, ktest_cl4, NULL, 0);
  const int32_t q3 = ktest_pb_tensor(&b, PTE_DTYPE_CHAR, 4, s_q3, ktest_cl4, NULL, 0);
  const int32_t q4 = ktest_pb_tensor(&b, PTE_DTYPE_CHAR, 2, s_q4, NULL, NULL, 0);
  const int32_t q5 = ktest_pb_tensor(&b, PTE_DTYPE_CHAR, 2, s_q5, NULL, NULL, 0);
  const int32_t y = ktest_pb_tensor(&b, PTE_DTYPE_FLOAT, 2, s_q5, NULL, NULL, 0);
  const int32_t scratch = ktest_pb_tensor(&b, PTE_DTYPE_CHAR, 1, s_one, NULL, NULL, 0);
  const int32_t w1 = ktest_pb_tensor(&b, PTE_DTYPE_CHAR, 4, s_w1, NULL, g_w1, sizeof g_w1);
  const int32_t b1 = ktest_pb_tensor(&b, PTE_DTYPE_INT, 1, s_c, NULL, g_b1, sizeof g_b1);
  const int32_t m1 = ktest_pb_tensor(&b, PTE_DTYPE_INT, 1, s_c, NULL, g_m1, sizeof g_m1);
  const int32_t sh1 = ktest_pb_tensor(&b, PTE_DTYPE_INT, 1, s_c, NULL, g_s1, sizeof g_s1);
  const int32_t w2 = ktest_pb_tensor(&b, PTE_DTYPE_CHAR, 4, s_w2, NULL, g_w2, sizeof g_w2);
  const int32_t b2 = ktest_pb_tensor(&b, PTE_DTYPE_INT, 1, s_c, NULL, g_b2, sizeof g_b2);
  const int32_t m2 = ktest_pb_tensor(&b, PTE_DTYPE_INT, 1, s_c, NULL, g_m2, sizeof g_m2);
  const int32_t sh2 = ktest_pb_tensor(&b, PTE_DTYPE_INT, 1, s_c, NULL, g_s2, sizeof g_s2);
  const int32_t w3 = ktest_pb_tensor(&b, PTE_DTYPE_CHAR, 2, s_w3, NULL, g_w3, sizeof g_w3);
  const int32_t b3 = ktest_pb_tensor(&b, PTE_DTYPE_INT, 1, s_b3, NULL, g_b3, sizeof g_b3);
  int32_t m3 = -1, s3 = -1;
  {
    const int64_t mm[1] = {k_m3}, ss[1] = {k_s3};
    m3 = ktest_pb_int_list(&b, mm, 1);
    s3 = ktest_pb_int_list(&b, ss, 1);
  }
  const int32_t outs[3] = {y, q5, q2};
  ktest_pb_io(&b, &x, 1, outs, 3);

  const int32_t one11 = ilist2(&b, 1, 1), zero = ilist2(&b, 0, 0);
  {
    const int32_t a[] = {x, ktest_pb_double(&b, k_in_scale), ktest_pb_int(&b, k_in_zp), ktest_pb_int(&b, -128), ktest_pb_int(&b, 127),
                         ktest_pb_int(&b, PTE_DTYPE_CHAR), q0, q0};
    ktest_pb_call(&b, "cortex_m::quantize_per_tensor", "out", a, 8);
  }
  {
    const int32_t a[] = {q0, w1, b1, one11, one11, one11, ktest_pb_int(&b, -k_in_zp), ktest_pb_int(&b, k_zp1),
                         m1, sh1, ktest_pb_int(&b, k_zp1), ktest_pb_int(&b, 127), scratch, q1, q1};
    ktest_pb_call(&b, "cortex_m::quantized_conv2d", "out", a, 15);
  }
  {
    const int32_t a[] = {q1, w2, b2, ilist2(&b, 2, 2), one11, one11, ktest_pb_int(&b, 1),
                         ktest_pb_int(&b, -k_zp1), ktest_pb_int(&b, k_zp2), m2, sh2, ktest_pb_int(&b, -128),
                         ktest_pb_int(&b, 127), scratch, q2, q2};
    ktest_pb_call(&b, "cortex_m::quantized_depthwise_conv2d", "out", a, 16);
  }
  {
    const int32_t a[] = {q2, ilist2(&b, 3, 3), ilist2(&b, 3, 3), zero, ktest_pb_bool(&b, false),
                         ktest_pb_int(&b, k_zp2), ktest_pb_int(&b, Q30), ktest_pb_int(&b, 0), scratch, q3, q3};
    ktest_pb_call(&b, "cortex_m::quantized_avg_pool2d", "out", a, 11);
  }
  {
    const int32_t a[] = {q3, ilist2(&b, 1, C1), q4, q4};
    ktest_pb_call(&b, "aten::view_copy", "out", a, 4);
  }
  {
    const int32_t a[] = {q4, w3, b3, ktest_pb_none(&b), ktest_pb_int(&b, -k_zp2), ktest_pb_int(&b, 0), ktest_pb_int(&b, k_zp5),
                         m3, s3, ktest_pb_int(&b, 127), ktest_pb_int(&b, -128), q5, q5};
    ktest_pb_call(&b, "cortex_m::quantized_linear", "out", a, 13);
  }
  {
    const int32_t a[] = {q5, ktest_pb_double(&b, k_out_scale), ktest_pb_int(&b, k_zp5), ktest_pb_int(&b, -128), ktest_pb_int(&b, 127),
                         ktest_pb_int(&b, PTE_DTYPE_CHAR), y, y};
    ktest_pb_call(&b, "cortex_m::dequantize_per_tensor", "out", a, 8);
  }

  return ktest_pb_finish(&b, size, err);
}

/* ---------------------------------------------------------------------------------------- */

TEST(int8_model_matches_integer_reference) {
  make_params();
  CHECK_OK(pte_register_cortex_m_kernels());
  CHECK_OK(pte_register_portable_kernels());

  pte_error_info err;
  memset(&err, 0, sizeof err);
  size_t size = 0;
  uint8_t *bytes = build_program(&size, &err);
  CHECK_MSG(bytes != NULL, "build: %s", err.msg);

  ktest_method km;
  bool opened = ktest_method_open(&km, bytes, size, 256 * 1024, &err);
  if (!opened) ktest_method_close(&km);
  CHECK_MSG(opened, "%s: %s", km.stage, err.msg);
  pte_method *m = km.m;
  const size_t nbuf = pte_method_meta_num_planned_buffers(&km.meta);
  if (nbuf != 1) ktest_method_close(&km);
  CHECK_EQ_INT(nbuf, 1);

  int distinct_outputs = 0, clamped = 0;
  int8_t prev[NOUT] = {0};
  for (int run = 0; run < 24; run++) {
    float xin[H * W];
    for (int i = 0; i < H * W; i++) xin[i] = (float)rnd_int(-140, 140) / 32.0f + 0.015625f * (float)(run % 3);
    const int32_t sizes[] = {1, 1, H, W};
    CHECK_MSG(pte_method_set_input_tensor(m, 0, PTE_DTYPE_FLOAT, sizes, 4, xin, sizeof xin, &err) ==
                  PTE_OK,
              "input: %s", err.msg);
    CHECK_MSG(pte_method_execute(m, &err) == PTE_OK, "execute: %s", err.msg);
    int8_t q5[NOUT];
    float y[NOUT];
    int q2[C1 * 9];
    ref_model(xin, q5, y, q2);
    const pte_evalue *oy = pte_method_get_output(m, 0), *oq = pte_method_get_output(m, 1);
    const pte_evalue *o2 = pte_method_get_output(m, 2);
    CHECK(oy && oy->tag == PTE_TAG_TENSOR && oq && oq->tag == PTE_TAG_TENSOR && o2 &&
          o2->tag == PTE_TAG_TENSOR);
    /* the depthwise activation (channels-last in memory) */
    const pte_tensor *t2 = o2->u.tensor;
    for (int c = 0; c < C1; c++)
      for (int i = 0; i < 9; i++) {
        const int8_t v = ((const int8_t *)t2->data)[c * t2->strides[1] + (i / 3) * t2->strides[2] +
                                                    (i % 3) * t2->strides[3]];
        CHECK_MSG(v == q2[c * 9 + i], "run %d q2[%d][%d] %d != reference %d", run, c, i, v,
                  q2[c * 9 + i]);
      }
    const float *got_y = (const float *)oy->u.tensor->data;
    const int8_t *got_q = (const int8_t *)oq->u.tensor->data;
    for (int o = 0; o < NOUT; o++) {
      CHECK_MSG(got_q[o] == q5[o], "run %d out %d: q %d != reference %d", run, o, got_q[o], q5[o]);
      CHECK_MSG(got_y[o] == y[o], "run %d out %d: y %.9g != reference %.9g", run, o, got_y[o], y[o]);
      if (q5[o] == 127 || q5[o] == -128) clamped++;
      if (run > 0 && q5[o] != prev[o]) distinct_outputs++;
      prev[o] = q5[o];
    }
  }
  /* the check is meaningful: outputs vary between inputs and are mostly not saturated */
  CHECK(distinct_outputs >= 20);
  CHECK(clamped <= 20);

  ktest_method_close(&km);
}

int main(void) {
  RUN(int8_model_matches_integer_reference);
  return test_summary();
}
