/* Tests for the cortex_m kernels that are not convolutions / pooling: quantize / dequantize,
 * quantized add / mul / div / activation, minimum / maximum, linear, batch matmul, softmax,
 * transpose and pad. Expected values are worked out by hand in the comments.
 *
 * Requantization facts used throughout (CMSIS-NN default double rounding):
 *   requantize(v, 2^30, s) for s <= 0 = rdiv2(floor((v + 1) / 2), -s)
 *     (the doubling high multiply rounds the 0.5 step toward +inf, rdiv2 rounds ties away
 *      from zero), so with s = -1 (scale 0.25): 5 -> 2, -5 -> -1, 6 -> 2, -6 -> -2, 1 -> 1
 *   requantize(v, 2^30, 1) = v (identity)
 *   requantize(10, 1518500250, 1) = floor((20 * 1518500250 + 2^30) / 2^31) = 14
 */
#include "test.h"

#include "pte/cortex_m_kernels.h"
#include "support/ktest.h"

static pte_op_fn cmfn(const char *name) {
  for (size_t i = 0; i < pte_cortex_m_kernel_count(); i++) {
    const pte_kernel *k = pte_cortex_m_kernel(i);
    if (strcmp(k->name, name) == 0) return k->fn;
  }
  return NULL;
}

#define Q30 1073741824LL

static pte_evalue *ilist(const int64_t *v, size_t n) { return ktest_ev_int_list(v, n); }
#define IL(...) ilist((const int64_t[]){__VA_ARGS__}, sizeof((const int64_t[]){__VA_ARGS__}) / sizeof(int64_t))
#define I(v) ktest_ev_int(v)
#define T(t) ktest_ev_tensor(t)

static pte_tensor *i8(int32_t dim, const int32_t *sizes, const uint8_t *order, const double *v) {
  return ktest_tensor(PTE_DTYPE_CHAR, dim, sizes, order, v);
}

TEST(registration_lists_every_op) {
  const char *names[] = {
      "cortex_m::quantize_per_tensor.out",          "cortex_m::dequantize_per_tensor.out",
      "cortex_m::quantized_add.out",                "cortex_m::quantized_mul.out",
      "cortex_m::quantized_div.out",                "cortex_m::quantized_activation.out",
      "cortex_m::minimum.out",                      "cortex_m::maximum.out",
      "cortex_m::quantized_linear.out",             "cortex_m::softmax.out",
      "cortex_m::transpose.out",                    "cortex_m::pad.out",
      "cortex_m::quantized_conv2d.out",             "cortex_m::quantized_depthwise_conv2d.out",
      "cortex_m::quantized_transpose_conv2d.out",   "cortex_m::quantized_avg_pool2d.out",
      "cortex_m::quantized_max_pool2d.out",         "cortex_m::quantized_batch_matmul.out"};
  CHECK_EQ_INT(pte_cortex_m_kernel_count(), 18);
  for (size_t i = 0; i < 18; i++) CHECK_MSG(cmfn(names[i]) != NULL, "missing %s", names[i]);
  CHECK(pte_cortex_m_kernel(18) == NULL);
  CHECK_OK(pte_register_cortex_m_kernels());
  CHECK_OK(pte_register_cortex_m_kernels());
  CHECK(pte_kernel_lookup("cortex_m::softmax.out", NULL, NULL, 0) == cmfn("cortex_m::softmax.out"));
}

/* ---------------------------------------------------------------------------------------- */

TEST(quantize_dequantize_per_tensor) {
  int32_t sz[] = {6};
  /* scale 0.5 (inv 2.0f), zp 3: 1.25 -> 2.5 -> 2 (ties to even) -> 5; -0.75 -> -1.5 -> -2 -> 1;
   * 0.75 -> 1.5 -> 2 -> 5; 100 -> 127; -100 -> -128; NaN -> quant_min */
  pte_tensor *x = ktest_tensor(PTE_DTYPE_FLOAT, 1, sz, NULL,
                               (double[]){1.25, -0.75, 0.75, 100, -100, NAN});
  pte_tensor *q = i8(1, sz, NULL, NULL);
  pte_evalue *qo = T(q);
  pte_evalue *qa[] = {T(x), ktest_ev_double(0.5), I(3), I(-128), I(127), I(PTE_DTYPE_CHAR), qo, qo};
  CHECK_OK(ktest_run(cmfn("cortex_m::quantize_per_tensor.out"), qa, 8));
  CHECK(ktest_expect_i64(q, (int64_t[]){5, 1, 5, 127, -128, -128}, 6));
  /* quant range [-5, 6] clamps */
  qa[3] = I(-5);
  qa[4] = I(6);
  CHECK_OK(ktest_run(cmfn("cortex_m::quantize_per_tensor.out"), qa, 8));
  CHECK(ktest_expect_i64(q, (int64_t[]){5, 1, 5, 6, -5, -5}, 6));
  /* dequantize: (q - 3) * 0.5 */
  pte_tensor *d = ktest_tensor(PTE_DTYPE_FLOAT, 1, sz, NULL, NULL);
  pte_evalue *da[] = {qo, ktest_ev_double(0.5), I(3), I(-128), I(127), I(PTE_DTYPE_CHAR), T(d)};
  CHECK_OK(ktest_run(cmfn("cortex_m::dequantize_per_tensor.out"), da, 7));
  CHECK(ktest_expect(d, (double[]){1.0, -1.0, 1.0, 1.5, -4.0, -4.0}, 6, 0));
  /* errors: uint8 dtype, zero point outside the range, float64 input */
  qa[5] = I(PTE_DTYPE_BYTE);
  CHECK_STATUS(ktest_run(cmfn("cortex_m::quantize_per_tensor.out"), qa, 8), PTE_ERR_INVALID_ARGUMENT);
  da[2] = I(127);
  da[4] = I(100);
  CHECK_STATUS(ktest_run(cmfn("cortex_m::dequantize_per_tensor.out"), da, 7), PTE_ERR_INVALID_ARGUMENT);
  qa[5] = I(PTE_DTYPE_CHAR);
  qa[0] = T(ktest_tensor(PTE_DTYPE_DOUBLE, 1, sz, NULL, NULL));
  CHECK_STATUS(ktest_run(cmfn("cortex_m::quantize_per_tensor.out"), qa, 8), PTE_ERR_INVALID_ARGUMENT);
}

/* ---------------------------------------------------------------------------------------- */

static pte_status run_mul(pte_tensor *a, int64_t zp1, pte_tensor *b, int64_t zp2, int64_t zpo,
                          int64_t m, int64_t s, pte_tensor *o) {
  pte_evalue *out = T(o);
  pte_evalue *args[] = {T(a), I(zp1), T(b), I(zp2), I(zpo), I(m), I(s), out, out};
  return ktest_run(cmfn("cortex_m::quantized_mul.out"), args, 9);
}

TEST(quantized_mul_rounding_and_saturation) {
  int32_t sz[] = {8};
  pte_tensor *a = i8(1, sz, NULL, (double[]){5, -5, 6, -6, 127, -128, 1, 3});
  pte_tensor *b = i8(1, sz, NULL, (double[]){1, 1, 1, 1, 127, 127, 1, 1});
  pte_tensor *o = i8(1, sz, NULL, NULL);
  /* products 5, -5, 6, -6, 16129, -16256, 1, 3 at scale 0.25 (2^30, shift -1):
   * 1.25 -> 2 (double rounding), -1.25 -> -1, 1.5 -> 2, -1.5 -> -2, saturate 127 / -128,
   * 0.25 -> 1, 0.75 -> 1 */
  CHECK_OK(run_mul(a, 0, b, 0, 0, Q30, -1, o));
  CHECK(ktest_expect_i64(o, (int64_t[]){2, -1, 2, -2, 127, -128, 1, 1}, 8));
}

TEST(quantized_mul_zero_points_and_positive_shift) {
  int32_t sz[] = {2}, s1[] = {1};
  pte_tensor *a = i8(1, sz, NULL, (double[]){4, 0});
  pte_tensor *b = i8(1, sz, NULL, (double[]){-2, -3});
  pte_tensor *o = i8(1, sz, NULL, NULL);
  /* zp1 2, zp2 -3, zpo 10, scale 0.5 (2^30, 0): (2)(1) = 2 -> 1 -> 11; (-2)(0) = 0 -> 10 */
  CHECK_OK(run_mul(a, 2, b, -3, 10, Q30, 0, o));
  CHECK(ktest_expect_i64(o, (int64_t[]){11, 10}, 2));
  /* swapping the input zero points changes the result: (4+3)(-2-2) = -28 -> -14 -> -4;
   * (0+3)(-3-2) = -15 -> floor(-14/2) = -7 -> 3 */
  CHECK_OK(run_mul(a, -3, b, 2, 10, Q30, 0, o));
  CHECK(ktest_expect_i64(o, (int64_t[]){-4, 3}, 2));
  /* multiplier 1518500250 (~0.7071), shift +1: 10 * 1 -> 14 */
  pte_tensor *a1 = i8(1, s1, NULL, (double[]){10}), *b1 = i8(1, s1, NULL, (double[]){1});
  pte_tensor *o1 = i8(1, s1, NULL, NULL);
  CHECK_OK(run_mul(a1, 0, b1, 0, 0, 1518500250, 1, o1));
  CHECK(ktest_expect_i64(o1, (int64_t[]){14}, 1));
  /* out-of-range shift / zero point */
  CHECK_STATUS(run_mul(a1, 0, b1, 0, 0, Q30, 32, o1), PTE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(run_mul(a1, 200, b1, 0, 0, Q30, 0, o1), PTE_ERR_INVALID_ARGUMENT);
}

TEST(quantized_mul_channel_broadcast_channels_last) {
  /* a [1, 2, 1, 2] channels-last, b [1, 2, 1, 1] per channel (2, -1), identity requantize */
  int32_t sa[] = {1, 2, 1, 2}, sb[] = {1, 2, 1, 1};
  pte_tensor *a = i8(4, sa, ktest_cl4, (double[]){3, 4, 5, 6});
  pte_tensor *b = i8(4, sb, ktest_cl4, (double[]){2, -1});
  pte_tensor *o = i8(4, sa, ktest_cl4, NULL);
  CHECK_OK(run_mul(a, 0, b, 0, 0, Q30, 1, o));
  CHECK(ktest_expect_i64(o, (int64_t[]){6, 8, -5, -6}, 4));
  /* operands swapped (smaller first) give the same result */
  CHECK_OK(run_mul(b, 0, a, 0, 0, Q30, 1, o));
  CHECK(ktest_expect_i64(o, (int64_t[]){6, 8, -5, -6}, 4));
}

static pte_status run_add(pte_tensor *a, const int64_t *pa, pte_tensor *b, const int64_t *pb,
                          const int64_t *po, int64_t amin, int64_t amax, pte_tensor *o) {
  pte_evalue *out = T(o);
  pte_evalue *args[] = {T(a),     I(pa[0]), I(pa[1]), I(pa[2]), T(b),     I(pb[0]), I(pb[1]),
                        I(pb[2]), I(po[0]), I(po[1]), I(po[2]), I(amin), I(amax), out, out};
  return ktest_run(cmfn("cortex_m::quantized_add.out"), args, 15);
}

TEST(quantized_add_sum_clamp_and_rounding) {
  /* inputs scaled by 0.5 after the << 20, output 2^30 / -18: y = (x1 - zp1) + (x2 - zp2) + zpo */
  int32_t sz[] = {4};
  pte_tensor *a = i8(1, sz, NULL, (double[]){10, -128, 127, 5});
  pte_tensor *b = i8(1, sz, NULL, (double[]){0, -128, 127, -2});
  pte_tensor *o = i8(1, sz, NULL, NULL);
  /* zp1 3, zp2 -2, zpo 1: (7 + 2) + 1 = 10; (-131 - 126) + 1 -> -128; (124 + 129) + 1 -> 127;
   * (2 + 0) + 1 = 3 */
  CHECK_OK(run_add(a, (int64_t[]){3, Q30, 0}, b, (int64_t[]){-2, Q30, 0}, (int64_t[]){1, Q30, -18},
                   -128, 127, o));
  CHECK(ktest_expect_i64(o, (int64_t[]){10, -128, 127, 3}, 4));
  /* activation clamp [-100, 100] */
  CHECK_OK(run_add(a, (int64_t[]){3, Q30, 0}, b, (int64_t[]){-2, Q30, 0}, (int64_t[]){1, Q30, -18},
                   -100, 100, o));
  CHECK(ktest_expect_i64(o, (int64_t[]){10, -100, 100, 3}, 4));
  /* output shift -19 halves: ties away from zero: 1 -> 1, -1 -> -1, 3 -> 2, -3 -> -2 */
  int32_t s6[] = {6};
  pte_tensor *a6 = i8(1, s6, NULL, (double[]){1, -1, 2, -2, 3, -3});
  pte_tensor *b6 = i8(1, s6, NULL, (double[]){0, 0, 1, -1, 0, 0});
  pte_tensor *o6 = i8(1, s6, NULL, NULL);
  CHECK_OK(run_add(a6, (int64_t[]){0, Q30, 0}, b6, (int64_t[]){0, Q30, 0}, (int64_t[]){0, Q30, -19},
                   -128, 127, o6));
  CHECK(ktest_expect_i64(o6, (int64_t[]){1, -1, 2, -2, 2, -2}, 6));
}

TEST(quantized_add_asymmetric_scales_catch_swaps) {
  /* m1 = 0.5, m2 = 0.25: y = round((2 x1 + x2) / 2): x1 = 5, x2 = 2 -> 6 (swapped would be
   * (4 + 5) / 2 -> 5) */
  int32_t s1[] = {1};
  pte_tensor *a = i8(1, s1, NULL, (double[]){5}), *b = i8(1, s1, NULL, (double[]){2});
  pte_tensor *o = i8(1, s1, NULL, NULL);
  CHECK_OK(run_add(a, (int64_t[]){0, Q30, 0}, b, (int64_t[]){0, Q30 / 2, 0},
                   (int64_t[]){0, Q30, -18}, -128, 127, o));
  CHECK(ktest_expect_i64(o, (int64_t[]){6}, 1));
  /* the same scale ratio expressed with shifts: m2 = 0.5 with shift -1 */
  CHECK_OK(run_add(a, (int64_t[]){0, Q30, 0}, b, (int64_t[]){0, Q30, -1},
                   (int64_t[]){0, Q30, -18}, -128, 127, o));
  CHECK(ktest_expect_i64(o, (int64_t[]){6}, 1));
}

TEST(quantized_add_legacy_form_and_errors) {
  int32_t sz[] = {2};
  pte_tensor *a = i8(1, sz, NULL, (double[]){100, -100});
  pte_tensor *b = i8(1, sz, NULL, (double[]){100, -100});
  pte_tensor *o = i8(1, sz, NULL, NULL);
  /* 11-scalar form: no activation args, clamps to int8 */
  pte_evalue *args[] = {T(a), I(0), I(Q30), I(0), T(b), I(0), I(Q30), I(0),
                        I(0), I(Q30), I(-18), T(o)};
  CHECK_OK(ktest_run(cmfn("cortex_m::quantized_add.out"), args, 12));
  CHECK(ktest_expect_i64(o, (int64_t[]){127, -128}, 2));
  /* invalid activation range, invalid multiplier */
  CHECK_STATUS(run_add(a, (int64_t[]){0, Q30, 0}, b, (int64_t[]){0, Q30, 0},
                       (int64_t[]){0, Q30, -18}, 5, 4, o),
               PTE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(run_add(a, (int64_t[]){0, INT32_MIN, 0}, b, (int64_t[]){0, Q30, 0},
                       (int64_t[]){0, Q30, -18}, -128, 127, o),
               PTE_ERR_INVALID_ARGUMENT);
  /* non-int8 input */
  pte_tensor *f = ktest_tensor(PTE_DTYPE_FLOAT, 1, sz, NULL, NULL);
  CHECK_STATUS(run_add(f, (int64_t[]){0, Q30, 0}, b, (int64_t[]){0, Q30, 0},
                       (int64_t[]){0, Q30, -18}, -128, 127, o),
               PTE_ERR_INVALID_ARGUMENT);
}

TEST(quantized_div_int8_int16) {
  int32_t sz[] = {5};
  /* zp1 1, zp2 -1, scale 1: 7/2 = 3.5 -> 4 (away from zero); -7/2 -> -4; 5/3 -> 2; 4/0 -> 0;
   * 1/4 -> 0 */
  pte_tensor *a = i8(1, sz, NULL, (double[]){8, -6, 6, 5, 2});
  pte_tensor *b = i8(1, sz, NULL, (double[]){1, 1, 2, -1, 3});
  pte_tensor *o = i8(1, sz, NULL, NULL);
  pte_evalue *out = T(o);
  pte_evalue *args[] = {T(a), I(1), T(b), I(-1), I(0), ktest_ev_double(1.0), out, out};
  CHECK_OK(ktest_run(cmfn("cortex_m::quantized_div.out"), args, 8));
  CHECK(ktest_expect_i64(o, (int64_t[]){4, -4, 2, 0, 0}, 5));
  /* multiplier / shift form: 2^30 / 2^31 * 2^1 = 1.0; output zero point 3; then scale 100
   * saturates */
  pte_evalue *args2[] = {T(a), I(1), T(b), I(-1), I(3), I(Q30), I(1), out, out};
  CHECK_OK(ktest_run(cmfn("cortex_m::quantized_div.out"), args2, 9));
  CHECK(ktest_expect_i64(o, (int64_t[]){7, -1, 5, 3, 3}, 5));
  args[5] = ktest_ev_double(100.0);
  CHECK_OK(ktest_run(cmfn("cortex_m::quantized_div.out"), args, 7));
  CHECK(ktest_expect_i64(o, (int64_t[]){127, -128, 127, 0, 25}, 5));
  /* int16: 7/2 * 1000 = 3500 */
  pte_tensor *a16 = ktest_tensor(PTE_DTYPE_SHORT, 1, sz, NULL, (double[]){8, -6, 6, 5, 2});
  pte_tensor *b16 = ktest_tensor(PTE_DTYPE_SHORT, 1, sz, NULL, (double[]){1, 1, 2, -1, 3});
  pte_tensor *o16 = ktest_tensor(PTE_DTYPE_SHORT, 1, sz, NULL, NULL);
  pte_evalue *a3[] = {T(a16), I(1), T(b16), I(-1), I(0), ktest_ev_double(1000.0), T(o16)};
  CHECK_OK(ktest_run(cmfn("cortex_m::quantized_div.out"), a3, 7));
  CHECK(ktest_expect_i64(o16, (int64_t[]){3500, -3500, 1667, 0, 250}, 5));
  /* shapes must match, dtypes must agree */
  int32_t s2[] = {1};
  args[2] = T(i8(1, s2, NULL, (double[]){1}));
  CHECK_STATUS(ktest_run(cmfn("cortex_m::quantized_div.out"), args, 7), PTE_ERR_INVALID_ARGUMENT);
  a3[2] = T(b);
  CHECK_STATUS(ktest_run(cmfn("cortex_m::quantized_div.out"), a3, 7), PTE_ERR_INVALID_ARGUMENT);
}

TEST(quantized_activation_lut) {
  double lut[256];
  for (int i = 0; i < 256; i++) lut[i] = 127 - i; /* out = lut[x + 128] = -1 - x */
  int32_t sl[] = {256}, sz[] = {2, 2};
  pte_tensor *l = i8(1, sl, NULL, lut);
  pte_tensor *x = i8(2, sz, NULL, (double[]){-128, -1, 0, 127});
  pte_tensor *o = i8(2, sz, NULL, NULL);
  pte_evalue *out = T(o);
  pte_evalue *args[] = {T(x), T(l), out, out};
  CHECK_OK(ktest_run(cmfn("cortex_m::quantized_activation.out"), args, 4));
  CHECK(ktest_expect_i64(o, (int64_t[]){127, 0, -1, -128}, 4));
  int32_t s255[] = {255};
  args[1] = T(i8(1, s255, NULL, lut));
  CHECK_STATUS(ktest_run(cmfn("cortex_m::quantized_activation.out"), args, 4), PTE_ERR_INVALID_ARGUMENT);
}

TEST(minimum_maximum_broadcast) {
  int32_t sa[] = {2, 2}, sb[] = {2};
  pte_tensor *a = i8(2, sa, NULL, (double[]){1, -5, 7, -128});
  pte_tensor *b = i8(1, sb, NULL, (double[]){0, 3});
  pte_tensor *o = i8(2, sa, NULL, NULL);
  pte_evalue *args[] = {T(a), T(b), T(o)};
  CHECK_OK(ktest_run(cmfn("cortex_m::maximum.out"), args, 3));
  CHECK(ktest_expect_i64(o, (int64_t[]){1, 3, 7, 3}, 4));
  CHECK_OK(ktest_run(cmfn("cortex_m::minimum.out"), args, 3));
  CHECK(ktest_expect_i64(o, (int64_t[]){0, -5, 0, -128}, 4));
  /* channels-last 4-D with a single-element operand */
  int32_t s4[] = {1, 2, 1, 2}, s1[] = {1};
  pte_tensor *c = i8(4, s4, ktest_cl4, (double[]){-3, 9, 4, -7});
  pte_tensor *d = i8(1, s1, NULL, (double[]){2});
  pte_tensor *o4 = i8(4, s4, ktest_cl4, NULL);
  pte_evalue *a4[] = {T(d), T(c), T(o4)};
  CHECK_OK(ktest_run(cmfn("cortex_m::maximum.out"), a4, 3));
  CHECK(ktest_expect_i64(o4, (int64_t[]){2, 9, 4, 2}, 4));
  /* non-int8 */
  a4[0] = T(ktest_tensor(PTE_DTYPE_SHORT, 1, s1, NULL, NULL));
  CHECK_STATUS(ktest_run(cmfn("cortex_m::minimum.out"), a4, 3), PTE_ERR_INVALID_ARGUMENT);
}

/* ---------------------------------------------------------------------------------------- */

static pte_status run_linear(pte_tensor *x, pte_tensor *w, pte_tensor *bias, pte_tensor *ks,
                             int64_t in_off, int64_t f_off, int64_t out_off, pte_evalue *mults,
                             pte_evalue *shifts, int64_t amax, int64_t amin, pte_tensor *o) {
  pte_evalue *out = T(o);
  pte_evalue *args[] = {T(x),     T(w),   bias ? T(bias) : ktest_ev_none(),
                        ks ? T(ks) : ktest_ev_none(),   I(in_off), I(f_off), I(out_off), mults,
                        shifts,   I(amax), I(amin), out, out};
  return ktest_run(cmfn("cortex_m::quantized_linear.out"), args, 13);
}

TEST(quantized_linear_offsets_bias_per_channel) {
  int32_t sx[] = {2, 3}, sw[] = {2, 3}, sb[] = {2}, so[] = {2, 2};
  pte_tensor *x = i8(2, sx, NULL, (double[]){1, 2, 3, -1, 0, 4});
  pte_tensor *w = i8(2, sw, NULL, (double[]){1, 0, -1, 2, 2, 2});
  pte_tensor *bias = ktest_tensor(PTE_DTYPE_INT, 1, sb, NULL, (double[]){10, -10});
  pte_tensor *o = i8(2, so, NULL, NULL);
  /* input_offset 1: rows (2,3,4), (0,1,5); acc0 = 2-4+10 = 8, acc1 = 18-10 = 8; row1: 5, 2;
   * identity requantize, output_offset -3 */
  CHECK_OK(run_linear(x, w, bias, NULL, 1, 0, -3, IL(Q30), IL(1), 100, -100, o));
  CHECK(ktest_expect_i64(o, (int64_t[]){5, 5, 2, -1}, 4));
  /* filter_offset 1: w0 = (2,1,0), w1 = (3,3,3): row0 4+3+10 = 17, 27-10 = 17; row1 11, 8 */
  CHECK_OK(run_linear(x, w, bias, NULL, 1, 1, -3, IL(Q30), IL(1), 100, -100, o));
  CHECK(ktest_expect_i64(o, (int64_t[]){14, 14, 8, 5}, 4));
  /* per-channel lists: feature 1 uses shift 0 (x0.5): 8 -> floor(9/2) = 4 -> 1; 2 -> 1 -> -2 */
  CHECK_OK(run_linear(x, w, bias, NULL, 1, 0, -3, IL(Q30, Q30), IL(1, 0), 100, -100, o));
  CHECK(ktest_expect_i64(o, (int64_t[]){5, 1, 2, -2}, 4));
  /* activation clamp [-1, 3] (note: max comes first) */
  CHECK_OK(run_linear(x, w, bias, NULL, 1, 0, -3, IL(Q30), IL(1), 3, -1, o));
  CHECK(ktest_expect_i64(o, (int64_t[]){3, 3, 2, -1}, 4));
  /* swapped activation arguments are rejected */
  CHECK_STATUS(run_linear(x, w, bias, NULL, 1, 0, -3, IL(Q30), IL(1), -1, 3, o),
               PTE_ERR_INVALID_ARGUMENT);
  /* wrong list length, wrong weight shape */
  CHECK_STATUS(run_linear(x, w, bias, NULL, 1, 0, -3, IL(Q30, Q30, Q30), IL(1, 1, 1), 100, -100, o),
               PTE_ERR_INVALID_ARGUMENT);
  int32_t sw2[] = {2, 2};
  CHECK_STATUS(run_linear(x, i8(2, sw2, NULL, NULL), NULL, NULL, 0, 0, 0, IL(Q30), IL(1), 127,
                          -128, o),
               PTE_ERR_INVALID_ARGUMENT);
}

TEST(quantized_linear_kernel_sum_and_batched_input) {
  int32_t sx[] = {2, 1, 3}, sw[] = {2, 3}, sb[] = {2}, so[] = {2, 1, 2};
  pte_tensor *x = i8(3, sx, NULL, (double[]){1, 2, 3, -1, 0, 4});
  pte_tensor *w = i8(2, sw, NULL, (double[]){1, 0, -1, 2, 2, 2});
  pte_tensor *ks = ktest_tensor(PTE_DTYPE_INT, 1, sb, NULL, (double[]){100, -100});
  pte_tensor *bias = ktest_tensor(PTE_DTYPE_INT, 1, sb, NULL, (double[]){5000, 5000});
  pte_tensor *o = i8(3, so, NULL, NULL);
  /* kernel_sum path (bias ignored): acc = x.w + ks: row0 -2+100 = 98, 12-100 = -88;
   * row1 -5+100 = 95, 6-100 = -94; output_offset -3 */
  CHECK_OK(run_linear(x, w, bias, ks, 7, 0, -3, IL(Q30), IL(1), 127, -128, o));
  CHECK(ktest_expect_i64(o, (int64_t[]){95, -91, 92, -97}, 4));
  CHECK(ktest_expect_shape(o, 3, so));
  /* with filter_offset 2 the row sums enter: + 2 * (6, 3) */
  CHECK_OK(run_linear(x, w, NULL, ks, 0, 2, -3, IL(Q30), IL(1), 127, -128, o));
  CHECK(ktest_expect_i64(o, (int64_t[]){107, -79, 98, -91}, 4));
}

TEST(quantized_batch_matmul_offsets) {
  int32_t s[] = {1, 2, 2};
  pte_tensor *l = i8(3, s, NULL, (double[]){1, 2, 3, 4});
  pte_tensor *r = i8(3, s, NULL, (double[]){1, 0, 0, -1}); /* rows are output columns */
  pte_tensor *scratch = i8(1, (int32_t[]){1}, NULL, NULL);
  pte_tensor *o = i8(3, s, NULL, NULL);
  pte_evalue *out = T(o);
  /* lhs offset 1: (2,3),(4,5) x columns (1,0),(0,-1): 2, -3, 4, -5; + output 5 */
  pte_evalue *args[] = {T(l), I(1), T(r), I(0), I(5), I(Q30), I(1), T(scratch), out, out};
  CHECK_OK(ktest_run(cmfn("cortex_m::quantized_batch_matmul.out"), args, 10));
  CHECK(ktest_expect_i64(o, (int64_t[]){7, 2, 9, 0}, 4));
  /* rhs offset 2: columns (3,2),(2,1): 6+6 = 12, 4+3 = 7, 12+10 = 22, 8+5 = 13 (+5) */
  args[3] = I(2);
  CHECK_OK(ktest_run(cmfn("cortex_m::quantized_batch_matmul.out"), args, 10));
  CHECK(ktest_expect_i64(o, (int64_t[]){17, 12, 27, 18}, 4));
  /* rounding: rhs offset 0, no output offset, scale 0.25 (2^30, -1): 2 -> 1 (0.5 up),
   * -3 -> -1, 4 -> 1, -5 -> -1 */
  args[3] = I(0);
  args[4] = I(0);
  args[6] = I(-1);
  CHECK_OK(ktest_run(cmfn("cortex_m::quantized_batch_matmul.out"), args, 10));
  CHECK(ktest_expect_i64(o, (int64_t[]){1, -1, 1, -1}, 4));
  args[3] = I(2);
  args[4] = I(5);
  args[6] = I(1);
  /* older form without scratch, with and without a return alias */
  pte_evalue *old[] = {T(l), I(1), T(r), I(2), I(5), I(Q30), I(1), out, out};
  CHECK_OK(ktest_run(cmfn("cortex_m::quantized_batch_matmul.out"), old, 9));
  CHECK(ktest_expect_i64(o, (int64_t[]){17, 12, 27, 18}, 4));
  CHECK_OK(ktest_run(cmfn("cortex_m::quantized_batch_matmul.out"), old, 8));
  /* inner dimensions must agree */
  int32_t s3[] = {1, 2, 3};
  args[2] = T(i8(3, s3, NULL, NULL));
  CHECK_STATUS(ktest_run(cmfn("cortex_m::quantized_batch_matmul.out"), args, 10),
               PTE_ERR_INVALID_ARGUMENT);
}

/* ---------------------------------------------------------------------------------------- */

TEST(softmax_cmsis_reference_vectors) {
  /* CMSIS-NN unit-test data (arm_softmax_s8): 2 rows of 5, mult 1077952640, shift 19,
   * diff_min -3968 */
  int32_t sz[] = {2, 5};
  pte_tensor *x = i8(2, sz, NULL, (double[]){101, 49, 6, -34, -75, -79, -38, 120, -55, 115});
  pte_tensor *o = i8(2, sz, NULL, NULL);
  pte_evalue *out = T(o);
  pte_evalue *args[] = {T(x), I(-1), I(0), I(-128), I(1077952640), I(19), I(-3968), out, out};
  CHECK_OK(ktest_run(cmfn("cortex_m::softmax.out"), args, 9));
  CHECK(ktest_expect_i64(o, (int64_t[]){-57, -70, -79, -86, -92, -94, -88, -54, -91, -56}, 10));
  /* 1 row, mult 1077952576, shift 23, diff_min -248: two entries fall below diff_min */
  int32_t s1[] = {5};
  pte_tensor *x1 = i8(1, s1, NULL, (double[]){-80, -48, 16, 0, -96});
  pte_tensor *o1 = i8(1, s1, NULL, NULL);
  pte_evalue *a1[] = {T(x1), I(0), I(0), I(-128), I(1077952576), I(23), I(-248), T(o1)};
  CHECK_OK(ktest_run(cmfn("cortex_m::softmax.out"), a1, 8));
  CHECK(ktest_expect_i64(o1, (int64_t[]){-128, -125, 56, -60, -128}, 5));
}

TEST(softmax_uniform_rows_and_errors) {
  /* equal inputs: probability 1/n, output 256/n - 128: n = 2 -> 0, n = 4 -> -64 */
  int32_t s2[] = {1, 2}, s4[] = {4};
  pte_tensor *x2 = i8(2, s2, NULL, (double[]){7, 7}), *o2 = i8(2, s2, NULL, NULL);
  pte_evalue *a2[] = {T(x2), I(1), I(0), I(-128), I(1077952640), I(19), I(-3968), T(o2)};
  CHECK_OK(ktest_run(cmfn("cortex_m::softmax.out"), a2, 8));
  CHECK(ktest_expect_i64(o2, (int64_t[]){0, 0}, 2));
  pte_tensor *x4 = i8(1, s4, NULL, (double[]){-3, -3, -3, -3}), *o4 = i8(1, s4, NULL, NULL);
  pte_evalue *a4[] = {T(x4), I(0), I(0), I(-128), I(1077952640), I(19), I(-3968), T(o4)};
  CHECK_OK(ktest_run(cmfn("cortex_m::softmax.out"), a4, 8));
  CHECK(ktest_expect_i64(o4, (int64_t[]){-64, -64, -64, -64}, 4));
  /* only the last dimension; output zero point must be -128 */
  a2[1] = I(0);
  CHECK_STATUS(ktest_run(cmfn("cortex_m::softmax.out"), a2, 8), PTE_ERR_INVALID_ARGUMENT);
  a2[1] = I(-1);
  a2[3] = I(0);
  CHECK_STATUS(ktest_run(cmfn("cortex_m::softmax.out"), a2, 8), PTE_ERR_INVALID_ARGUMENT);
}

/* ---------------------------------------------------------------------------------------- */

TEST(transpose_permutes) {
  int32_t s[] = {2, 3}, st[] = {3, 2};
  pte_tensor *x = i8(2, s, NULL, (double[]){1, 2, 3, 4, 5, 6});
  pte_tensor *o = i8(2, st, NULL, NULL);
  pte_evalue *out = T(o);
  pte_evalue *args[] = {T(x), IL(1, 0), out, out};
  CHECK_OK(ktest_run(cmfn("cortex_m::transpose.out"), args, 4));
  CHECK(ktest_expect_i64(o, (int64_t[]){1, 4, 2, 5, 3, 6}, 6));
  CHECK(ktest_expect_shape(o, 2, st));
  /* NCHW [1, 2, 1, 3] -> NHWC [1, 1, 3, 2] */
  int32_t s4[] = {1, 2, 1, 3}, so4[] = {1, 1, 3, 2};
  pte_tensor *x4 = i8(4, s4, NULL, (double[]){1, 2, 3, 4, 5, 6});
  pte_tensor *o4 = i8(4, so4, NULL, NULL);
  pte_evalue *a4[] = {T(x4), IL(0, 2, 3, 1), T(o4)};
  CHECK_OK(ktest_run(cmfn("cortex_m::transpose.out"), a4, 3));
  CHECK(ktest_expect_i64(o4, (int64_t[]){1, 4, 2, 5, 3, 6}, 6));
  /* not a permutation; wrong length */
  a4[1] = IL(0, 2, 2, 1);
  CHECK_STATUS(ktest_run(cmfn("cortex_m::transpose.out"), a4, 3), PTE_ERR_INVALID_ARGUMENT);
  a4[1] = IL(0, 1);
  CHECK_STATUS(ktest_run(cmfn("cortex_m::transpose.out"), a4, 3), PTE_ERR_INVALID_ARGUMENT);
}

TEST(pad_contiguous_and_channels_last) {
  /* rank 2 [1, 2]: slots (h, w) -> dim0 pre 1, dim1 post 2, value -7 */
  int32_t s[] = {1, 2}, so[] = {2, 4};
  pte_tensor *x = i8(2, s, NULL, (double[]){1, 2});
  pte_tensor *o = i8(2, so, NULL, NULL);
  pte_evalue *out = T(o);
  pte_evalue *args[] = {T(x), IL(0, 0, 1, 0), IL(0, 0, 0, 2), I(-7), out, out};
  CHECK_OK(ktest_run(cmfn("cortex_m::pad.out"), args, 6));
  CHECK(ktest_expect_i64(o, (int64_t[]){-7, -7, -7, -7, 1, 2, -7, -7}, 8));
  /* channels-last [1, 2, 1, 1]: pads are in memory order (N, H, W, C): H pre 1, C post 1 */
  int32_t s4[] = {1, 2, 1, 1}, so4[] = {1, 3, 2, 1};
  pte_tensor *x4 = i8(4, s4, ktest_cl4, (double[]){5, 6});
  pte_tensor *o4 = i8(4, so4, ktest_cl4, NULL);
  pte_evalue *a4[] = {T(x4), IL(0, 1, 0, 0), IL(0, 0, 0, 1), I(0), T(o4)};
  CHECK_OK(ktest_run(cmfn("cortex_m::pad.out"), a4, 5));
  /* logical (c, h): (0,0) pad, (0,1) 5, (1,0) pad, (1,1) 6, (2,*) pad */
  CHECK(ktest_expect_i64(o4, (int64_t[]){0, 5, 0, 6, 0, 0}, 6));
  /* padding a dimension a rank-2 tensor does not have */
  args[1] = IL(1, 0, 0, 0);
  CHECK_STATUS(ktest_run(cmfn("cortex_m::pad.out"), args, 6), PTE_ERR_INVALID_ARGUMENT);
}

int main(void) {
  RUN(registration_lists_every_op);
  RUN(quantize_dequantize_per_tensor);
  RUN(quantized_mul_rounding_and_saturation);
  RUN(quantized_mul_zero_points_and_positive_shift);
  RUN(quantized_mul_channel_broadcast_channels_last);
  RUN(quantized_add_sum_clamp_and_rounding);
  RUN(quantized_add_asymmetric_scales_catch_swaps);
  RUN(quantized_add_legacy_form_and_errors);
  RUN(quantized_div_int8_int16);
  RUN(quantized_activation_lut);
  RUN(minimum_maximum_broadcast);
  RUN(quantized_linear_offsets_bias_per_channel);
  RUN(quantized_linear_kernel_sum_and_batched_input);
  RUN(quantized_batch_matmul_offsets);
  RUN(softmax_cmsis_reference_vectors);
  RUN(softmax_uniform_rows_and_errors);
  RUN(transpose_permutes);
  RUN(pad_contiguous_and_channels_last);
  ktest_free_all();
  return test_summary();
}
