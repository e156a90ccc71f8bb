/* Tests for the cortex_m convolution and pooling kernels: quantized_conv2d,
 * quantized_depthwise_conv2d, quantized_transpose_conv2d, quantized_avg_pool2d,
 * quantized_max_pool2d. Expected values are worked out by hand in the comments; every case that
 * can is run with NCHW and with channels-last tensors.
 *
 * Requantization facts used (CMSIS-NN double rounding):
 *   requantize(v, 2^30, 1) = v; requantize(v, 2^30, 0) = floor((v + 1) / 2);
 *   requantize(v, 2^30, -1) = rdiv2(floor((v + 1) / 2), 1) (ties away from zero).
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
static pte_tensor *i32v(int32_t n, const double *v) {
  int32_t sz[] = {n};
  return ktest_tensor(PTE_DTYPE_INT, 1, sz, NULL, v);
}
static pte_tensor *scratch(void) {
  int32_t sz[] = {1};
  return i8(1, sz, NULL, NULL);
}

/* quantized_conv2d.out (newest form with scratch + return alias) */
static pte_status run_conv(pte_tensor *x, pte_tensor *w, pte_tensor *b, pte_evalue *stride,
                           pte_evalue *pad, pte_evalue *dil, int64_t in_off, int64_t out_off,
                           pte_tensor *m, pte_tensor *s, int64_t amin, int64_t amax,
                           pte_tensor *o) {
  pte_evalue *out = T(o);
  pte_evalue *args[] = {T(x),       T(w),    b ? T(b) : ktest_ev_none(), stride, pad, dil,
                        I(in_off),  I(out_off), T(m),   T(s), I(amin), I(amax), T(scratch()),
                        out,        out};
  return ktest_run(cmfn("cortex_m::quantized_conv2d.out"), args, 15);
}

TEST(conv2d_per_channel_bias_offsets_clamp) {
  /* input 1..9 (3x3, C=1), zero point 1 (input_offset -1) -> 0..8
   * oc0 weight all ones: window sums 8, 12, 20, 24 (+bias 2 = 10, 14, 22, 26), scale 0.5
   *   (2^30, 0) -> 5, 7, 11, 13, +3 -> 8, 10, 14, 16 -> clamp 15
   * oc1 weight (1, 0, 0, -1): a - d = -4 everywhere, +bias -1 = -5, scale 0.25 (2^30, -1)
   *   -> floor(-4/2) = -2 -> -1, +3 -> 2 */
  for (int cl = 0; cl < 2; cl++) {
    const uint8_t *ord = cl ? ktest_cl4 : NULL;
    int32_t si[] = {1, 1, 3, 3}, sw[] = {2, 2, 2, 1}, so[] = {1, 2, 2, 2};
    pte_tensor *x = i8(4, si, ord, (double[]){1, 2, 3, 4, 5, 6, 7, 8, 9});
    pte_tensor *w = i8(4, sw, NULL, (double[]){1, 1, 1, 1, 1, 0, 0, -1});
    pte_tensor *o = i8(4, so, ord, NULL);
    CHECK_OK(run_conv(x, w, i32v(2, (double[]){2, -1}), IL(1, 1), IL(0, 0), IL(1, 1), -1, 3,
                      i32v(2, (double[]){Q30, Q30}), i32v(2, (double[]){0, -1}), -128, 15, o));
    CHECK(ktest_expect_i64(o, (int64_t[]){8, 10, 14, 15, 2, 2, 2, 2}, 8));
    CHECK(ktest_expect_shape(o, 4, so));
  }
}

/* quantized_conv2d.out run without a temp allocator (ktest_run_no_temp) */
static pte_status run_conv_no_temp(pte_tensor *x, pte_tensor *w, pte_tensor *b, pte_tensor *m,
                                   pte_tensor *s, pte_tensor *o) {
  pte_evalue *out = T(o);
  pte_evalue *args[] = {T(x), T(w), b ? T(b) : ktest_ev_none(), IL(1, 1), IL(0, 0), IL(1, 1),
                        I(-1), I(0), T(m), T(s), I(-128), I(127), T(scratch()), out, out};
  return ktest_run_no_temp(cmfn("cortex_m::quantized_conv2d.out"), args, 15);
}

TEST(conv2d_params_without_bias_or_temp) {
  /* The per-channel parameters are read in place (dense int32) or, without a bias, copied to
   * temp memory; with no temp memory either they are read through the tensors. Every way gives
   * the hand result: C=2, c0 = 1..4, c1 = 5..8 (2x2), one 2x2 filter, weight 1 on c0 and 2 on
   * c1, input_offset -1: (0+1+2+3) + 2 * (4+5+6+7) = 50 (+ bias 7 = 57), identity requantize. */
  int32_t si[] = {1, 2, 2, 2}, sw[] = {1, 2, 2, 2}, so[] = {1, 1, 1, 1};
  for (int with_bias = 0; with_bias < 2; with_bias++) {
    pte_tensor *x = i8(4, si, ktest_cl4, (double[]){1, 2, 3, 4, 5, 6, 7, 8});
    pte_tensor *w = i8(4, sw, NULL, (double[]){1, 2, 1, 2, 1, 2, 1, 2});
    pte_tensor *o = i8(4, so, ktest_cl4, NULL);
    CHECK_OK(run_conv_no_temp(x, w, with_bias ? i32v(1, (double[]){7}) : NULL,
                              i32v(1, (double[]){Q30}), i32v(1, (double[]){1}), o));
    CHECK(ktest_expect_i64(o, (int64_t[]){with_bias ? 57 : 50}, 1));
  }
}

TEST(conv2d_padding_stride) {
  /* same weights, padding 1, stride 2 -> 2x2 output; padded taps contribute nothing:
   * oc0: (0,0) only x=0 -> 0+2 = 2 -> 1 -> 4; (0,1) 1+2 = 3 -> 5 -> 3 -> 6;
   *      (1,0) 3+6 = 9 -> 11 -> 6 -> 9; (1,1) 4+5+7+8 = 24 -> 26 -> 13 -> 16 -> 15
   * oc1 (tap (1,1) minus, tap (0,0) plus): (0,0) -0 -1 = -1 -> 0 -> 3; (0,1) -2 -1 = -3 -> -1
   *      -> 2; (1,0) -6 -1 = -7 -> -3 -> -2 -> 1; (1,1) 4 - 8 - 1 = -5 -> -1 -> 2 */
  int32_t si[] = {1, 1, 3, 3}, sw[] = {2, 2, 2, 1}, so[] = {1, 2, 2, 2};
  pte_tensor *x = i8(4, si, ktest_cl4, (double[]){1, 2, 3, 4, 5, 6, 7, 8, 9});
  pte_tensor *w = i8(4, sw, NULL, (double[]){1, 1, 1, 1, 1, 0, 0, -1});
  pte_tensor *o = i8(4, so, ktest_cl4, NULL);
  CHECK_OK(run_conv(x, w, i32v(2, (double[]){2, -1}), IL(2, 2), IL(1, 1), IL(1, 1), -1, 3,
                    i32v(2, (double[]){Q30, Q30}), i32v(2, (double[]){0, -1}), -128, 15, o));
  CHECK(ktest_expect_i64(o, (int64_t[]){4, 6, 9, 15, 3, 2, 1, 2}, 8));
}

TEST(conv2d_multichannel_channels_last_groups_dilation) {
  /* C=2: c0 = 1..4, c1 = 5..8 (2x2), one 2x2 filter, weight 1 on c0 and 2 on c1,
   * input_offset -1: (0+1+2+3) + 2 * (4+5+6+7) = 50, identity requantize */
  int32_t si[] = {1, 2, 2, 2}, sw[] = {1, 2, 2, 2}, so[] = {1, 1, 1, 1};
  for (int cl = 0; cl < 2; cl++) {
    const uint8_t *ord = cl ? ktest_cl4 : NULL;
    pte_tensor *x = i8(4, si, ord, (double[]){1, 2, 3, 4, 5, 6, 7, 8});
    pte_tensor *w = i8(4, sw, NULL, (double[]){1, 2, 1, 2, 1, 2, 1, 2});
    pte_tensor *o = i8(4, so, ord, NULL);
    CHECK_OK(run_conv(x, w, NULL, IL(1, 1), IL(0, 0), IL(1, 1), -1, 0, i32v(1, (double[]){Q30}),
                      i32v(1, (double[]){1}), -128, 127, o));
    CHECK(ktest_expect_i64(o, (int64_t[]){50}, 1));
  }
  /* groups 2 (weight [2, 1, 1, 1]): oc0 = 2 * c0, oc1 = -1 * c1 */
  int32_t sg[] = {1, 2, 1, 2}, swg[] = {2, 1, 1, 1};
  pte_tensor *xg = i8(4, sg, ktest_cl4, (double[]){1, 2, 3, 4});
  pte_tensor *og = i8(4, sg, ktest_cl4, NULL);
  CHECK_OK(run_conv(xg, i8(4, swg, NULL, (double[]){2, -1}), NULL, IL(1, 1), IL(0, 0), IL(1, 1), 0,
                    0, i32v(2, (double[]){Q30, Q30}), i32v(2, (double[]){1, 1}), -128, 127, og));
  CHECK(ktest_expect_i64(og, (int64_t[]){2, 4, -3, -4}, 4));
  /* dilation 2 along W: x[i] + x[i + 2] over 1..5 -> 4, 6, 8 */
  int32_t sd[] = {1, 1, 1, 5}, swd[] = {1, 1, 2, 1}, sod[] = {1, 1, 1, 3};
  pte_tensor *od = i8(4, sod, NULL, NULL);
  CHECK_OK(run_conv(i8(4, sd, NULL, (double[]){1, 2, 3, 4, 5}), i8(4, swd, NULL, (double[]){1, 1}),
                    NULL, IL(1, 1), IL(0, 0), IL(1, 2), 0, 0, i32v(1, (double[]){Q30}),
                    i32v(1, (double[]){1}), -128, 127, od));
  CHECK(ktest_expect_i64(od, (int64_t[]){4, 6, 8}, 3));
}

TEST(conv2d_errors_and_older_form) {
  int32_t si[] = {1, 1, 3, 3}, sw[] = {1, 2, 2, 1}, so[] = {1, 1, 2, 2};
  pte_tensor *x = i8(4, si, NULL, (double[]){1, 2, 3, 4, 5, 6, 7, 8, 9});
  pte_tensor *w = i8(4, sw, NULL, (double[]){1, 1, 1, 1});
  pte_tensor *o = i8(4, so, NULL, NULL);
  /* older form (no scratch), no return alias: 13 arguments; sums 12, 16, 24, 28 */
  pte_evalue *old[] = {T(x), T(w), ktest_ev_none(), IL(1, 1), IL(0, 0), IL(1, 1), I(0), I(0),
                       T(i32v(1, (double[]){Q30})), T(i32v(1, (double[]){1})), I(-128), I(127),
                       T(o)};
  CHECK_OK(ktest_run(cmfn("cortex_m::quantized_conv2d.out"), old, 13));
  CHECK(ktest_expect_i64(o, (int64_t[]){12, 16, 24, 28}, 4));
  /* per-channel parameter count must equal out channels */
  CHECK_STATUS(run_conv(x, w, NULL, IL(1, 1), IL(0, 0), IL(1, 1), 0, 0,
                        i32v(2, (double[]){Q30, Q30}), i32v(2, (double[]){1, 1}), -128, 127, o),
               PTE_ERR_INVALID_ARGUMENT);
  /* shift 31 is outside the per-channel range [-31, 30] */
  CHECK_STATUS(run_conv(x, w, NULL, IL(1, 1), IL(0, 0), IL(1, 1), 0, 0, i32v(1, (double[]){Q30}),
                        i32v(1, (double[]){31}), -128, 127, o),
               PTE_ERR_INVALID_ARGUMENT);
  /* int8 bias rejected, stride 0 rejected, kernel larger than input rejected */
  int32_t sb[] = {1};
  pte_tensor *b8 = i8(1, sb, NULL, (double[]){1});
  CHECK_STATUS(run_conv(x, w, b8, IL(1, 1), IL(0, 0), IL(1, 1), 0, 0, i32v(1, (double[]){Q30}),
                        i32v(1, (double[]){1}), -128, 127, o),
               PTE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(run_conv(x, w, NULL, IL(0, 1), IL(0, 0), IL(1, 1), 0, 0, i32v(1, (double[]){Q30}),
                        i32v(1, (double[]){1}), -128, 127, o),
               PTE_ERR_INVALID_ARGUMENT);
  int32_t sbig[] = {1, 4, 4, 1};
  CHECK_STATUS(run_conv(x, i8(4, sbig, NULL, NULL), NULL, IL(1, 1), IL(0, 0), IL(1, 1), 0, 0,
                        i32v(1, (double[]){Q30}), i32v(1, (double[]){1}), -128, 127, o),
               PTE_ERR_INVALID_ARGUMENT);
  /* a static out of the wrong shape cannot be resized */
  int32_t sbad[] = {1, 1, 3, 3};
  CHECK_STATUS(run_conv(x, w, NULL, IL(1, 1), IL(0, 0), IL(1, 1), 0, 0, i32v(1, (double[]){Q30}),
                        i32v(1, (double[]){1}), -128, 127, i8(4, sbad, NULL, NULL)),
               PTE_ERR_INVALID_ARGUMENT);
}

/* ---------------------------------------------------------------------------------------- */

static pte_status run_dw(pte_tensor *x, pte_tensor *w, pte_tensor *b, pte_evalue *stride,
                         pte_evalue *pad, pte_evalue *dil, int64_t mult, int64_t in_off,
                         int64_t out_off, pte_tensor *m, pte_tensor *s, int64_t amin,
                         int64_t amax, pte_tensor *o) {
  pte_evalue *out = T(o);
  pte_evalue *args[] = {T(x),   T(w),      b ? T(b) : ktest_ev_none(), stride, pad, dil, I(mult),
                        I(in_off), I(out_off), T(m), T(s), I(amin), I(amax), T(scratch()), out,
                        out};
  return ktest_run(cmfn("cortex_m::quantized_depthwise_conv2d.out"), args, 16);
}

TEST(depthwise_conv2d_depth_multiplier) {
  /* c0 = 1..4, c1 = 5..8, depth multiplier 2 -> oc0, oc1 read c0; oc2, oc3 read c1
   * weight IHWO taps (y,x) = (0,0),(0,1),(1,0),(1,1):
   *   oc0 (1,0,0,0) -> 1; oc1 (1,1,1,1) -> 10; oc2 (0,0,0,1) -> 8 (+bias 100 = 108);
   *   oc3 (1,-1,1,-1) -> 5-6+7-8 = -2, scale 0.5 -> floor(-1/2) = -1 */
  int32_t si[] = {1, 2, 2, 2}, sw[] = {1, 2, 2, 4}, so[] = {1, 4, 1, 1};
  for (int cl = 0; cl < 2; cl++) {
    const uint8_t *ord = cl ? ktest_cl4 : NULL;
    pte_tensor *x = i8(4, si, ord, (double[]){1, 2, 3, 4, 5, 6, 7, 8});
    /* memory of the [1, 2, 2, 4] weight: per tap (y, x) the four output channels */
    pte_tensor *w = i8(4, sw, NULL,
                       (double[]){1, 1, 0, 1, 0, 1, 0, -1, 0, 1, 0, 1, 0, 1, 1, -1});
    pte_tensor *o = i8(4, so, ord, NULL);
    CHECK_OK(run_dw(x, w, i32v(4, (double[]){0, 0, 100, 0}), IL(1, 1), IL(0, 0), IL(1, 1), 2, 0,
                    0, i32v(4, (double[]){Q30, Q30, Q30, Q30}), i32v(4, (double[]){1, 1, 1, 0}),
                    -128, 127, o));
    CHECK(ktest_expect_i64(o, (int64_t[]){1, 10, 108, -1}, 4));
  }
}

TEST(depthwise_conv2d_padding_offsets_and_errors) {
  /* 3x3 input 1..9 (C=1), 3x3 all-ones kernel, padding 1, input zero point 5 (offset -5):
   * centred sums of (x - 5): corners (0,0): -4-3-1+0 = -8; (1,1): 0; (2,2): 0+1+3+4 = 8;
   * output offset 10, scale 0.25 (2^30, -1): -8 -> floor(-7/2) = -4 -> -2 -> 8;
   * 0 -> 0 -> 10; 8 -> 4 -> 2 -> 12; edge (0,1): -4-3-2-1+0+1 = -9 -> -4 -> -2 -> 8 */
  int32_t si[] = {1, 1, 3, 3}, sw[] = {1, 3, 3, 1}, so[] = {1, 1, 3, 3};
  pte_tensor *x = i8(4, si, NULL, (double[]){1, 2, 3, 4, 5, 6, 7, 8, 9});
  pte_tensor *w = i8(4, sw, NULL, (double[]){1, 1, 1, 1, 1, 1, 1, 1, 1});
  pte_tensor *o = i8(4, so, NULL, NULL);
  CHECK_OK(run_dw(x, w, NULL, IL(1, 1), IL(1, 1), IL(1, 1), 1, -5, 10, i32v(1, (double[]){Q30}),
                  i32v(1, (double[]){-1}), -128, 127, o));
  /* (0,2): -3-2+0+1 = -4 -> floor(-3/2) = -2 -> -1 -> 9; (1,0): -4-3-1+0+2+3 = -3 -> -1
   * -> rdiv2(-1,1) = -1 -> 9; (1,2): -3-2+0+1+3+4 = 3 -> 2 -> 1 -> 11; (2,0): -1+0+2+3 = 4
   * -> 2 -> 1 -> 11; (2,1): -1+0+1+2+3+4 = 9 -> 5 -> 3 -> 13 */
  CHECK(ktest_expect_i64(o, (int64_t[]){8, 8, 9, 9, 10, 11, 11, 13, 12}, 9));
  /* depth multiplier inconsistent with the weight */
  CHECK_STATUS(run_dw(x, w, NULL, IL(1, 1), IL(1, 1), IL(1, 1), 2, -5, 10,
                      i32v(1, (double[]){Q30}), i32v(1, (double[]){-1}), -128, 127, o),
               PTE_ERR_INVALID_ARGUMENT);
  /* weight dim 0 must be 1 */
  int32_t sw2[] = {2, 3, 3, 1};
  CHECK_STATUS(run_dw(x, i8(4, sw2, NULL, NULL), NULL, IL(1, 1), IL(1, 1), IL(1, 1), 1, 0, 0,
                      i32v(1, (double[]){Q30}), i32v(1, (double[]){-1}), -128, 127, o),
               PTE_ERR_INVALID_ARGUMENT);
}

/* ---------------------------------------------------------------------------------------- */

static pte_status run_tconv(pte_tensor *x, pte_tensor *w, pte_evalue *stride, pte_evalue *pad,
                            pte_evalue *opad, int64_t in_off, pte_tensor *o, int oc) {
  double mults[4] = {Q30, Q30, Q30, Q30}, shifts[4] = {1, 1, 1, 1};
  pte_evalue *out = T(o);
  pte_evalue *args[] = {T(x),      T(w),  ktest_ev_none(), stride, pad, opad, IL(1, 1), I(in_off),
                        I(0),      T(i32v(oc, mults)), T(i32v(oc, shifts)), I(-128), I(127),
                        T(scratch()), T(scratch()), out, out};
  return ktest_run(cmfn("cortex_m::quantized_transpose_conv2d.out"), args, 17);
}

TEST(transpose_conv2d_stride_padding_output_padding) {
  /* x = [[1,2],[3,4]], w = [[1,2],[3,4]], identity requantize */
  int32_t si[] = {1, 1, 2, 2}, sw[] = {1, 2, 2, 1};
  pte_tensor *x = i8(4, si, NULL, (double[]){1, 2, 3, 4});
  pte_tensor *w = i8(4, sw, NULL, (double[]){1, 2, 3, 4});
  /* stride 2: every input value scatters its own 2x2 block x * w */
  int32_t s4[] = {1, 1, 4, 4};
  pte_tensor *o4 = i8(4, s4, NULL, NULL);
  CHECK_OK(run_tconv(x, w, IL(2, 2), IL(0, 0), IL(0, 0), 0, o4, 1));
  CHECK(ktest_expect_i64(o4, (int64_t[]){1, 2, 2, 4, 3, 4, 6, 8, 3, 6, 4, 8, 9, 12, 12, 16}, 16));
  /* stride 1: overlapping sums: (0,1) = 1*2 + 2*1 = 4, (1,1) = 4 + 6 + 6 + 4 = 20, ... */
  int32_t s3[] = {1, 1, 3, 3};
  pte_tensor *o3 = i8(4, s3, NULL, NULL);
  CHECK_OK(run_tconv(x, w, IL(1, 1), IL(0, 0), IL(0, 0), 0, o3, 1));
  CHECK(ktest_expect_i64(o3, (int64_t[]){1, 4, 4, 6, 20, 16, 9, 24, 16}, 9));
  /* padding 1 crops one row / column on each side: only the centre 20 remains */
  int32_t s1[] = {1, 1, 1, 1};
  pte_tensor *o1 = i8(4, s1, NULL, NULL);
  CHECK_OK(run_tconv(x, w, IL(1, 1), IL(1, 1), IL(0, 0), 0, o1, 1));
  CHECK(ktest_expect_i64(o1, (int64_t[]){20}, 1));
  /* stride 2 + output_padding 1: 5x5, the extra row / column gets no contribution */
  int32_t s5[] = {1, 1, 5, 5};
  pte_tensor *o5 = i8(4, s5, NULL, NULL);
  CHECK_OK(run_tconv(x, w, IL(2, 2), IL(0, 0), IL(1, 1), 0, o5, 1));
  CHECK(ktest_expect_i64(o5, (int64_t[]){1, 2, 2, 4, 0, 3, 4, 6, 8, 0, 3, 6, 4, 8, 0, 9, 12, 12,
                                         16, 0, 0, 0, 0, 0, 0},
                         25));
  /* output_padding must stay below stride */
  CHECK_STATUS(run_tconv(x, w, IL(2, 2), IL(0, 0), IL(2, 2), 0, o5, 1), PTE_ERR_INVALID_ARGUMENT);
}

TEST(transpose_conv2d_channels_last_two_channels) {
  /* c0 = [[1,2],[3,4]] with w[..,0] = [[1,2],[3,4]]; c1 = ones with zero point 1 (offset -1
   * makes it 0) plus input_offset applies to c0 too: use offset 0 and c1 = 1, w[..,1] = 1:
   * result = stride-2 map above + 1 everywhere */
  int32_t si[] = {1, 2, 2, 2}, sw[] = {1, 2, 2, 2}, s4[] = {1, 1, 4, 4};
  pte_tensor *x = i8(4, si, ktest_cl4, (double[]){1, 2, 3, 4, 1, 1, 1, 1});
  pte_tensor *w = i8(4, sw, NULL, (double[]){1, 1, 2, 1, 3, 1, 4, 1});
  pte_tensor *o = i8(4, s4, ktest_cl4, NULL);
  CHECK_OK(run_tconv(x, w, IL(2, 2), IL(0, 0), IL(0, 0), 0, o, 1));
  CHECK(ktest_expect_i64(o, (int64_t[]){2, 3, 3, 5, 4, 5, 7, 9, 4, 7, 5, 9, 10, 13, 13, 17}, 16));
}

TEST(transpose_conv2d_offsets_bias_rounding) {
  /* x - 1 (input_offset -1) = [[0,1],[2,3]], 2x2 all-ones kernel, stride 1 -> full map
   * [[0,1,1],[2,6,4],[2,5,3]], bias -3 -> [[-3,-2,-2],[-1,3,1],[-1,2,0]], scale 0.25
   * (2^30, -1): -3 -> floor(-2/2) = -1 -> -1; -2 -> -1 -> -1; -1 -> 0; 3 -> 2 -> 1; 1 -> 1 -> 1;
   * 2 -> 1 -> 1; 0 -> 0; output offset 5 */
  int32_t si[] = {1, 1, 2, 2}, sw[] = {1, 2, 2, 1}, so[] = {1, 1, 3, 3};
  pte_tensor *x = i8(4, si, ktest_cl4, (double[]){1, 2, 3, 4});
  pte_tensor *w = i8(4, sw, NULL, (double[]){1, 1, 1, 1});
  pte_tensor *o = i8(4, so, ktest_cl4, NULL);
  pte_evalue *out = T(o);
  pte_evalue *args[] = {T(x), T(w), T(i32v(1, (double[]){-3})), IL(1, 1), IL(0, 0), IL(0, 0),
                        IL(1, 1), I(-1), I(5), T(i32v(1, (double[]){Q30})),
                        T(i32v(1, (double[]){-1})), I(-128), I(127), T(scratch()), T(scratch()),
                        out, out};
  CHECK_OK(ktest_run(cmfn("cortex_m::quantized_transpose_conv2d.out"), args, 17));
  CHECK(ktest_expect_i64(o, (int64_t[]){4, 4, 4, 5, 6, 6, 5, 6, 5}, 9));
  /* activation clamp [5, 5] */
  args[11] = I(5);
  args[12] = I(5);
  CHECK_OK(ktest_run(cmfn("cortex_m::quantized_transpose_conv2d.out"), args, 17));
  CHECK(ktest_expect_i64(o, (int64_t[]){5, 5, 5, 5, 5, 5, 5, 5, 5}, 9));
  /* older form without the two scratch tensors (14 arguments + return) */
  args[11] = I(-128);
  args[12] = I(127);
  pte_evalue *old[] = {args[0], args[1], args[2], args[3], args[4], args[5], args[6], args[7],
                       args[8], args[9], args[10], args[11], args[12], out, out};
  CHECK_OK(ktest_run(cmfn("cortex_m::quantized_transpose_conv2d.out"), old, 15));
  CHECK(ktest_expect_i64(o, (int64_t[]){4, 4, 4, 5, 6, 6, 5, 6, 5}, 9));
}

/* ---------------------------------------------------------------------------------------- */

static pte_status run_avg(pte_tensor *x, pte_evalue *k, pte_evalue *s, pte_evalue *p, bool ceil,
                          pte_tensor *o) {
  pte_evalue *out = T(o);
  pte_evalue *args[] = {T(x), k, s, p, ktest_ev_bool(ceil), I(-3), I(Q30), I(-2), T(scratch()),
                        out, out};
  return ktest_run(cmfn("cortex_m::quantized_avg_pool2d.out"), args, 11);
}

TEST(avg_pool2d_rounding_padding_ceil) {
  int32_t s33[] = {1, 1, 3, 3}, s22[] = {1, 1, 2, 2};
  /* k 2, s 1: (1+2+4+5)/4 = 3, 16/4 = 4, 24/4 = 6, 28/4 = 7 */
  pte_tensor *x = i8(4, s33, NULL, (double[]){1, 2, 3, 4, 5, 6, 7, 8, 9});
  pte_tensor *o = i8(4, s22, NULL, NULL);
  CHECK_OK(run_avg(x, IL(2, 2), IL(1, 1), IL(0, 0), false, o));
  CHECK(ktest_expect_i64(o, (int64_t[]){3, 4, 6, 7}, 4));
  /* ties away from zero, channels-last: sums 6, -6, 5, -5 over 4 -> 2, -2, 1, -1 */
  int32_t s4c[] = {1, 4, 2, 2}, s4o[] = {1, 4, 1, 1};
  pte_tensor *xc = i8(4, s4c, ktest_cl4,
                      (double[]){1, 2, 2, 1, -1, -2, -2, -1, 1, 1, 2, 1, -1, -1, -2, -1});
  pte_tensor *oc = i8(4, s4o, ktest_cl4, NULL);
  CHECK_OK(run_avg(xc, IL(2, 2), IL(1, 1), IL(0, 0), false, oc));
  CHECK(ktest_expect_i64(oc, (int64_t[]){2, -2, 1, -1}, 4));
  /* k 3, s 1, padding 1: padding not counted: corners /4, edges /6:
   * 12/4 = 3, 21/6 = 3.5 -> 4, 16/4 = 4, 27/6 -> 5, 45/9 = 5, 33/6 -> 6, 24/4 = 6, 39/6 -> 7, 28/4 = 7 */
  pte_tensor *op = i8(4, s33, NULL, NULL);
  CHECK_OK(run_avg(x, IL(3, 3), IL(1, 1), IL(1, 1), false, op));
  CHECK(ktest_expect_i64(op, (int64_t[]){3, 4, 4, 5, 5, 6, 6, 7, 7}, 9));
  /* ceil_mode: W 4, k 2, s 3: floor gives 1 window, ceil 2 (the second covers only x[3]) */
  int32_t s14[] = {1, 1, 1, 4}, s11[] = {1, 1, 1, 1}, s12[] = {1, 1, 1, 2};
  pte_tensor *xw = i8(4, s14, NULL, (double[]){4, 8, 12, 100});
  pte_tensor *o11 = i8(4, s11, NULL, NULL), *o12 = i8(4, s12, NULL, NULL);
  CHECK_OK(run_avg(xw, IL(1, 2), IL(1, 3), IL(0, 0), false, o11));
  CHECK(ktest_expect_i64(o11, (int64_t[]){6}, 1));
  CHECK_OK(run_avg(xw, IL(1, 2), IL(1, 3), IL(0, 0), true, o12));
  CHECK(ktest_expect_i64(o12, (int64_t[]){6, 100}, 2));
  /* older form: input, kernel, stride, padding, zero_point, multiplier, shift, out */
  pte_evalue *old[] = {T(x), IL(2, 2), IL(1, 1), IL(0, 0), I(0), I(Q30), I(0), T(o)};
  CHECK_OK(ktest_run(cmfn("cortex_m::quantized_avg_pool2d.out"), old, 8));
  CHECK(ktest_expect_i64(o, (int64_t[]){3, 4, 6, 7}, 4));
  /* padding larger than half the kernel */
  CHECK_STATUS(run_avg(x, IL(2, 2), IL(1, 1), IL(2, 2), false, op), PTE_ERR_INVALID_ARGUMENT);
}

static pte_status run_max(pte_tensor *x, pte_evalue *k, pte_evalue *s, pte_evalue *p,
                          pte_evalue *d, bool ceil, int64_t zi, int64_t zo, int64_t amin,
                          int64_t amax, pte_tensor *o) {
  pte_evalue *out = T(o);
  pte_evalue *args[] = {T(x), k, s, p, d, ktest_ev_bool(ceil), I(zi), I(zo), I(amin), I(amax),
                        out, out};
  return ktest_run(cmfn("cortex_m::quantized_max_pool2d.out"), args, 12);
}

TEST(max_pool2d_clamp_padding_errors) {
  int32_t s33[] = {1, 1, 3, 3}, s22[] = {1, 1, 2, 2};
  for (int cl = 0; cl < 2; cl++) {
    const uint8_t *ord = cl ? ktest_cl4 : NULL;
    pte_tensor *x = i8(4, s33, ord, (double[]){1, 2, 3, 4, 5, 6, 7, 8, 9});
    pte_tensor *o = i8(4, s22, ord, NULL);
    /* k 2 s 1: 5, 6, 8, 9; clamp to 7 */
    CHECK_OK(run_max(x, IL(2, 2), IL(1, 1), IL(0, 0), IL(1, 1), false, 4, 4, -128, 7, o));
    CHECK(ktest_expect_i64(o, (int64_t[]){5, 6, 7, 7}, 4));
  }
  /* padding is ignored (not zero): all-negative input, k 3 s 2 p 1 -> -1, -2, -4, -5 */
  pte_tensor *xn = i8(4, s33, NULL, (double[]){-1, -2, -3, -4, -5, -6, -7, -8, -9});
  pte_tensor *on = i8(4, s22, NULL, NULL);
  CHECK_OK(run_max(xn, IL(3, 3), IL(2, 2), IL(1, 1), IL(1, 1), false, 0, 0, -128, 127, on));
  CHECK(ktest_expect_i64(on, (int64_t[]){-1, -2, -4, -5}, 4));
  CHECK_STATUS(run_max(xn, IL(2, 2), IL(1, 1), IL(0, 0), IL(2, 2), false, 0, 0, -128, 127, on),
               PTE_ERR_NOT_SUPPORTED);
  CHECK_STATUS(run_max(xn, IL(2, 2), IL(1, 1), IL(0, 0), IL(1, 1), true, 0, 0, -128, 127, on),
               PTE_ERR_NOT_SUPPORTED);
  CHECK_STATUS(run_max(xn, IL(2, 2), IL(1, 1), IL(0, 0), IL(1, 1), false, 0, 1, -128, 127, on),
               PTE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(run_max(xn, IL(2, 2), IL(1, 1), IL(0, 0), IL(1, 1), false, 0, 0, 10, 0, on),
               PTE_ERR_INVALID_ARGUMENT);
}

int main(void) {
  RUN(conv2d_per_channel_bias_offsets_clamp);
  RUN(conv2d_params_without_bias_or_temp);
  RUN(conv2d_padding_stride);
  RUN(conv2d_multichannel_channels_last_groups_dilation);
  RUN(conv2d_errors_and_older_form);
  RUN(depthwise_conv2d_depth_multiplier);
  RUN(depthwise_conv2d_padding_offsets_and_errors);
  RUN(transpose_conv2d_stride_padding_output_padding);
  RUN(transpose_conv2d_channels_last_two_channels);
  RUN(transpose_conv2d_offsets_bias_rounding);
  RUN(avg_pool2d_rounding_padding_ceil);
  RUN(max_pool2d_clamp_padding_errors);
  ktest_free_all();
  return test_summary();
}
