/* Tests for the quantized_decomposed kernels (kernels/quantized): quantize / dequantize per
 * tensor (scalar and .Tensor_out overloads), per channel, per token, and choose_qparams. Expected
 * values are worked out by hand in the comments (power-of-two scales keep the float arithmetic
 * exact, so ties are real ties). */
#include "test.h"

#include "pte/quantized_kernels.h"
#include "support/ktest.h"

static pte_op_fn qfn(const char *name) {
  for (size_t i = 0; i < pte_quantized_kernel_count(); i++) {
    const pte_kernel *k = pte_quantized_kernel(i);
    if (strcmp(k->name, name) == 0) return k->fn;
  }
  return NULL;
}

#define QPT "quantized_decomposed::quantize_per_tensor.out"
#define QPTT "quantized_decomposed::quantize_per_tensor.Tensor_out"
#define DQPT "quantized_decomposed::dequantize_per_tensor.out"
#define DQPTT "quantized_decomposed::dequantize_per_tensor.Tensor_out"
#define QPC "quantized_decomposed::quantize_per_channel.out"
#define DQPC "quantized_decomposed::dequantize_per_channel.out"
#define QTOK "quantized_decomposed::quantize_per_token.out"
#define DQTOK "quantized_decomposed::dequantize_per_token.out"
#define CQP "quantized_decomposed::choose_qparams.Tensor_out"

/* Runs quantize_per_tensor.out on a 1-D input. */
static pte_status run_qpt(int in_dtype, const double *x, int32_t n, double scale, int64_t zp,
                          int64_t qmin, int64_t qmax, int dtype, pte_tensor **out_t) {
  int32_t sz[] = {n};
  pte_tensor *in = ktest_tensor(in_dtype, 1, sz, NULL, x);
  pte_tensor *o = ktest_tensor(dtype, 1, sz, NULL, NULL);
  pte_evalue *out = ktest_ev_tensor(o);
  pte_evalue *args[] = {ktest_ev_tensor(in), ktest_ev_double(scale), ktest_ev_int(zp),
                        ktest_ev_int(qmin), ktest_ev_int(qmax), ktest_ev_int(dtype), out, out};
  *out_t = o;
  return ktest_run(qfn(QPT), args, 8);
}

TEST(registration_lists_every_op) {
  const char *names[] = {QPT, QPTT, DQPT, DQPTT, QPC, DQPC, QTOK, DQTOK, CQP,
                         "quantized_decomposed::choose_qparams_per_token_asymmetric.out",
                         "quantized_decomposed::embedding_byte.out",
                         "quantized_decomposed::embedding_byte.dtype_out",
                         "quantized_decomposed::embedding_4bit.out",
                         "quantized_decomposed::embedding_4bit.dtype_out",
                         "quantized_decomposed::embedding_2bit.out",
                         "quantized_decomposed::embedding_2bit.dtype_out",
                         "quantized_decomposed::mixed_mm.out",
                         "quantized_decomposed::mixed_linear.out",
                         "quantized_decomposed::add.out"};
  CHECK_EQ_INT(pte_quantized_kernel_count(), 19);
  for (size_t i = 0; i < 19; i++) CHECK_MSG(qfn(names[i]) != NULL, "missing %s", names[i]);
  CHECK(pte_quantized_kernel(19) == NULL);
  CHECK_OK(pte_register_quantized_kernels());
  CHECK_OK(pte_register_quantized_kernels()); /* idempotent */
  CHECK(pte_kernel_lookup(QPT, NULL, NULL, 0) == qfn(QPT));
}

TEST(quantize_int8_ties_to_even_and_clamps) {
  /* scale 0.5 (inv 2), zp 3: 1.25 -> 2.5 -> 2 (even) -> 5; 1.75 -> 3.5 -> 4 -> 7;
   * -0.25 -> -0.5 -> -0 -> 3; -0.75 -> -1.5 -> -2 -> 1; 100 -> 203 -> 127; -100 -> -128;
   * 0 -> 3 */
  pte_tensor *o;
  CHECK_OK(run_qpt(PTE_DTYPE_FLOAT, (double[]){1.25, 1.75, -0.25, -0.75, 100, -100, 0}, 7, 0.5, 3,
                   -128, 127, PTE_DTYPE_CHAR, &o));
  CHECK(ktest_expect_i64(o, (int64_t[]){5, 7, 3, 1, 127, -128, 3}, 7));
  /* a narrower quant range clamps there: [-10, 10] */
  CHECK_OK(run_qpt(PTE_DTYPE_FLOAT, (double[]){1.25, 100, -100}, 3, 0.5, 3, -10, 10,
                   PTE_DTYPE_CHAR, &o));
  CHECK(ktest_expect_i64(o, (int64_t[]){5, 10, -10}, 3));
}

TEST(quantize_uint8_int16_int32) {
  pte_tensor *o;
  /* uint8, scale 0.25 zp 128: 0.125 -> 0.5 -> 0 -> 128; 0.375 -> 1.5 -> 2 -> 130;
   * -32.125 -> -128.5 -> -128 -> 0; 32 -> 128 -> 256 -> 255 */
  CHECK_OK(run_qpt(PTE_DTYPE_FLOAT, (double[]){0.125, 0.375, -32.125, 32}, 4, 0.25, 128, 0, 255,
                   PTE_DTYPE_BYTE, &o));
  CHECK(ktest_expect_i64(o, (int64_t[]){128, 130, 0, 255}, 4));
  /* int16, scale 2^-8 zp 0: 1 -> 256; 200 -> 51200 -> 32767; -0.001953125 (-0.5 q) -> 0 */
  CHECK_OK(run_qpt(PTE_DTYPE_FLOAT, (double[]){1, 200, -0.001953125}, 3, 1.0 / 256, 0, -32768,
                   32767, PTE_DTYPE_SHORT, &o));
  CHECK(ktest_expect_i64(o, (int64_t[]){256, 32767, 0}, 3));
  /* int32, scale 1 zp -5: 2.5 -> 2 -> -3; 3e9 -> clamps to INT32_MAX; -3e9 -> INT32_MIN */
  CHECK_OK(run_qpt(PTE_DTYPE_FLOAT, (double[]){2.5, 3e9, -3e9}, 3, 1.0, -5, INT32_MIN, INT32_MAX,
                   PTE_DTYPE_INT, &o));
  CHECK(ktest_expect_i64(o, (int64_t[]){-3, INT32_MAX, INT32_MIN}, 3));
}

TEST(quantize_double_and_half_inputs) {
  pte_tensor *o;
  /* scale 1: 2.5 -> 2, 3.5 -> 4, -2.5 -> -2 (ties to even) for float64 and float16 inputs */
  CHECK_OK(run_qpt(PTE_DTYPE_DOUBLE, (double[]){2.5, 3.5, -2.5}, 3, 1.0, 0, -128, 127,
                   PTE_DTYPE_CHAR, &o));
  CHECK(ktest_expect_i64(o, (int64_t[]){2, 4, -2}, 3));
  CHECK_OK(run_qpt(PTE_DTYPE_HALF, (double[]){2.5, 3.5, -2.5}, 3, 1.0, 0, -128, 127,
                   PTE_DTYPE_CHAR, &o));
  CHECK(ktest_expect_i64(o, (int64_t[]){2, 4, -2}, 3));
  /* a float64 input is multiplied in double but rounded to float32 before nearbyint:
   * (0.25 + 2^-54) * 10.0f = 2.5000000000000006 -> 2.5f -> 2 (rounding the double directly
   * would give 3) */
  CHECK_OK(run_qpt(PTE_DTYPE_DOUBLE, (double[]){0.25000000000000006}, 1, 0.1, 0, -128, 127,
                   PTE_DTYPE_CHAR, &o));
  CHECK(ktest_expect_i64(o, (int64_t[]){2}, 1));
}

TEST(quantize_errors) {
  pte_tensor *o;
  /* out dtype differs from dtype */
  int32_t sz[] = {2};
  pte_tensor *in = ktest_tensor(PTE_DTYPE_FLOAT, 1, sz, NULL, (double[]){1, 2});
  pte_tensor *ob = ktest_tensor(PTE_DTYPE_BYTE, 1, sz, NULL, NULL);
  pte_evalue *args[] = {ktest_ev_tensor(in), ktest_ev_double(1), ktest_ev_int(0),
                        ktest_ev_int(-128), ktest_ev_int(127), ktest_ev_int(PTE_DTYPE_CHAR),
                        ktest_ev_tensor(ob)};
  CHECK_STATUS(ktest_run(qfn(QPT), args, 7), PTE_ERR_INVALID_ARGUMENT);
  /* quant_min below the dtype range */
  CHECK_STATUS(run_qpt(PTE_DTYPE_FLOAT, (double[]){1}, 1, 1, 0, -1, 255, PTE_DTYPE_BYTE, &o),
               PTE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(run_qpt(PTE_DTYPE_FLOAT, (double[]){1}, 1, 1, 0, -128, 128, PTE_DTYPE_CHAR, &o),
               PTE_ERR_INVALID_ARGUMENT);
  /* integer input */
  CHECK_STATUS(run_qpt(PTE_DTYPE_INT, (double[]){1}, 1, 1, 0, -128, 127, PTE_DTYPE_CHAR, &o),
               PTE_ERR_INVALID_ARGUMENT);
  /* unsupported quantized dtype (int64) */
  CHECK_STATUS(run_qpt(PTE_DTYPE_FLOAT, (double[]){1}, 1, 1, 0, -128, 127, PTE_DTYPE_LONG, &o),
               PTE_ERR_INVALID_ARGUMENT);
  /* wrong argument count */
  CHECK_STATUS(ktest_run(qfn(QPT), args, 5), PTE_ERR_INVALID_ARGUMENT);
}

TEST(quantize_tensor_overload) {
  int32_t sz[] = {3}, one[] = {1};
  pte_tensor *in = ktest_tensor(PTE_DTYPE_FLOAT, 1, sz, NULL, (double[]){1.25, -0.75, 100});
  pte_tensor *s = ktest_tensor(PTE_DTYPE_DOUBLE, 1, one, NULL, (double[]){0.5});
  pte_tensor *z = ktest_tensor(PTE_DTYPE_LONG, 1, one, NULL, (double[]){3});
  pte_tensor *o = ktest_tensor(PTE_DTYPE_CHAR, 1, sz, NULL, NULL);
  pte_evalue *out = ktest_ev_tensor(o);
  pte_evalue *args[] = {ktest_ev_tensor(in), ktest_ev_tensor(s), ktest_ev_tensor(z),
                        ktest_ev_int(-128), ktest_ev_int(127), ktest_ev_int(PTE_DTYPE_CHAR), out,
                        out};
  CHECK_OK(ktest_run(qfn(QPTT), args, 8));
  CHECK(ktest_expect_i64(o, (int64_t[]){5, 1, 127}, 3));
  /* a float32 scale tensor is rejected (upstream requires float64) */
  pte_tensor *sf = ktest_tensor(PTE_DTYPE_FLOAT, 1, one, NULL, (double[]){0.5});
  args[1] = ktest_ev_tensor(sf);
  CHECK_STATUS(ktest_run(qfn(QPTT), args, 8), PTE_ERR_INVALID_ARGUMENT);
}

TEST(quantize_channels_last_input) {
  /* [1, 2, 1, 2] channels-last input; values are logical, result compared logically */
  int32_t sz[] = {1, 2, 1, 2};
  pte_tensor *in = ktest_tensor(PTE_DTYPE_FLOAT, 4, sz, ktest_cl4, (double[]){0.5, 1.5, 2.5, -2.5});
  pte_tensor *o = ktest_tensor(PTE_DTYPE_CHAR, 4, sz, ktest_cl4, NULL);
  pte_evalue *out = ktest_ev_tensor(o);
  pte_evalue *args[] = {ktest_ev_tensor(in), ktest_ev_double(1), ktest_ev_int(1),
                        ktest_ev_int(-128), ktest_ev_int(127), ktest_ev_int(PTE_DTYPE_CHAR), out};
  CHECK_OK(ktest_run(qfn(QPT), args, 7));
  /* 0.5 -> 0 +1; 1.5 -> 2 +1; 2.5 -> 2 +1; -2.5 -> -2 +1 */
  CHECK(ktest_expect_i64(o, (int64_t[]){1, 3, 3, -1}, 4));
  /* memory order is (c0w0, c1w0, c0w1, c1w1) = logical (0, 2, 1, 3) */
  const int8_t *raw = (const int8_t *)o->data;
  CHECK(raw[0] == 1 && raw[1] == 3 && raw[2] == 3 && raw[3] == -1);
}

/* ---------------------------------------------------------------------------------------- */

static pte_status run_dqpt(int qdtype, const double *q, int32_t n, double scale, int64_t zp,
                           int64_t qmin, int64_t qmax, int out_dtype, pte_evalue *odt,
                           pte_tensor **out_t) {
  int32_t sz[] = {n};
  pte_tensor *in = ktest_tensor(qdtype, 1, sz, NULL, q);
  pte_tensor *o = ktest_tensor(out_dtype, 1, sz, NULL, NULL);
  pte_evalue *out = ktest_ev_tensor(o);
  pte_evalue *args[] = {ktest_ev_tensor(in), ktest_ev_double(scale), ktest_ev_int(zp),
                        ktest_ev_int(qmin), ktest_ev_int(qmax), ktest_ev_int(qdtype),
                        odt ? odt : ktest_ev_none(), out, out};
  *out_t = o;
  return ktest_run(qfn(DQPT), args, 9);
}

TEST(dequantize_per_tensor_dtypes) {
  pte_tensor *o;
  /* int8 scale 0.5 zp 3: 5 -> 1; -128 -> -65.5; 127 -> 62 */
  CHECK_OK(run_dqpt(PTE_DTYPE_CHAR, (double[]){5, -128, 127}, 3, 0.5, 3, -128, 127,
                    PTE_DTYPE_FLOAT, NULL, &o));
  CHECK(ktest_expect(o, (double[]){1.0, -65.5, 62.0}, 3, 0));
  /* uint8 zp 128 scale 0.25: 0 -> -32; 255 -> 31.75 */
  CHECK_OK(run_dqpt(PTE_DTYPE_BYTE, (double[]){0, 255}, 2, 0.25, 128, 0, 255, PTE_DTYPE_FLOAT,
                    NULL, &o));
  CHECK(ktest_expect(o, (double[]){-32, 31.75}, 2, 0));
  /* int16 / int32 with scale 2^-8 */
  CHECK_OK(run_dqpt(PTE_DTYPE_SHORT, (double[]){256, -32768}, 2, 1.0 / 256, 0, -32768, 32767,
                    PTE_DTYPE_FLOAT, NULL, &o));
  CHECK(ktest_expect(o, (double[]){1.0, -128.0}, 2, 0));
  CHECK_OK(run_dqpt(PTE_DTYPE_INT, (double[]){1 << 20, -7}, 2, 1.0 / 256, -1, INT32_MIN,
                    INT32_MAX, PTE_DTYPE_FLOAT, NULL, &o));
  CHECK(ktest_expect(o, (double[]){4096.00390625, -0.0234375}, 2, 0));
  /* float64 and float16 out, with a matching out_dtype */
  CHECK_OK(run_dqpt(PTE_DTYPE_CHAR, (double[]){5, -128}, 2, 0.5, 3, -128, 127, PTE_DTYPE_DOUBLE,
                    ktest_ev_int(PTE_DTYPE_DOUBLE), &o));
  CHECK(ktest_expect(o, (double[]){1.0, -65.5}, 2, 0));
  CHECK_OK(run_dqpt(PTE_DTYPE_CHAR, (double[]){5, -128}, 2, 0.5, 3, -128, 127, PTE_DTYPE_HALF,
                    NULL, &o));
  CHECK(ktest_expect(o, (double[]){1.0, -65.5}, 2, 0));
  /* the product is formed in float32 even for a float64 out: 3 * 0.1f = 0.3000000119f */
  CHECK_OK(run_dqpt(PTE_DTYPE_CHAR, (double[]){3}, 1, 0.1, 0, -128, 127, PTE_DTYPE_DOUBLE, NULL,
                    &o));
  CHECK(ktest_expect(o, (double[]){(double)(3.0f * 0.1f)}, 1, 0));
}

TEST(dequantize_errors) {
  pte_tensor *o;
  /* out_dtype disagrees with out */
  CHECK_STATUS(run_dqpt(PTE_DTYPE_CHAR, (double[]){1}, 1, 1, 0, -128, 127, PTE_DTYPE_FLOAT,
                        ktest_ev_int(PTE_DTYPE_DOUBLE), &o),
               PTE_ERR_INVALID_ARGUMENT);
  /* quant_min > quant_max */
  CHECK_STATUS(run_dqpt(PTE_DTYPE_CHAR, (double[]){1}, 1, 1, 0, 5, 4, PTE_DTYPE_FLOAT, NULL, &o),
               PTE_ERR_INVALID_ARGUMENT);
  /* integer out */
  CHECK_STATUS(run_dqpt(PTE_DTYPE_CHAR, (double[]){1}, 1, 1, 0, -128, 127, PTE_DTYPE_INT, NULL, &o),
               PTE_ERR_INVALID_ARGUMENT);
  /* dtype argument disagrees with the input */
  int32_t sz[] = {1};
  pte_tensor *in = ktest_tensor(PTE_DTYPE_CHAR, 1, sz, NULL, (double[]){1});
  pte_tensor *of = ktest_tensor(PTE_DTYPE_FLOAT, 1, sz, NULL, NULL);
  pte_evalue *args[] = {ktest_ev_tensor(in), ktest_ev_double(1), ktest_ev_int(0),
                        ktest_ev_int(0), ktest_ev_int(255), ktest_ev_int(PTE_DTYPE_BYTE),
                        ktest_ev_none(), ktest_ev_tensor(of)};
  CHECK_STATUS(ktest_run(qfn(DQPT), args, 8), PTE_ERR_INVALID_ARGUMENT);
}

TEST(dequantize_tensor_overload) {
  int32_t sz[] = {2}, one[] = {1};
  pte_tensor *in = ktest_tensor(PTE_DTYPE_CHAR, 1, sz, NULL, (double[]){5, -1});
  pte_tensor *s = ktest_tensor(PTE_DTYPE_DOUBLE, 1, one, NULL, (double[]){0.25});
  pte_tensor *z = ktest_tensor(PTE_DTYPE_LONG, 1, one, NULL, (double[]){-3});
  pte_tensor *o = ktest_tensor(PTE_DTYPE_FLOAT, 1, sz, NULL, NULL);
  pte_evalue *out = ktest_ev_tensor(o);
  pte_evalue *args[] = {ktest_ev_tensor(in), ktest_ev_tensor(s), ktest_ev_tensor(z),
                        ktest_ev_int(-128), ktest_ev_int(127), ktest_ev_int(PTE_DTYPE_CHAR),
                        ktest_ev_none(), out, out};
  CHECK_OK(ktest_run(qfn(DQPTT), args, 9));
  /* (5 + 3) * 0.25 = 2; (-1 + 3) * 0.25 = 0.5 */
  CHECK(ktest_expect(o, (double[]){2.0, 0.5}, 2, 0));
  pte_tensor *zi = ktest_tensor(PTE_DTYPE_INT, 1, one, NULL, (double[]){-3});
  args[2] = ktest_ev_tensor(zi);
  CHECK_STATUS(ktest_run(qfn(DQPTT), args, 9), PTE_ERR_INVALID_ARGUMENT);
}

/* ---------------------------------------------------------------------------------------- */

TEST(quantize_per_channel_axis_and_zero_points) {
  /* x = [[1, 1, 1], [2.5, -2, 0.5]], axis 1: scales (1, 0.5, 0.25), zps (0, 1, -1)
   * ch0: 1 -> 1, 2.5 -> 2 (tie to even); ch1: 1 -> 2+1 = 3, -2 -> -4+1 = -3;
   * ch2: 1 -> 4-1 = 3, 0.5 -> 2-1 = 1 */
  int32_t sz[] = {2, 3}, sc[] = {3};
  pte_tensor *in = ktest_tensor(PTE_DTYPE_FLOAT, 2, sz, NULL, (double[]){1, 1, 1, 2.5, -2, 0.5});
  pte_tensor *s = ktest_tensor(PTE_DTYPE_DOUBLE, 1, sc, NULL, (double[]){1, 0.5, 0.25});
  pte_tensor *z = ktest_tensor(PTE_DTYPE_LONG, 1, sc, NULL, (double[]){0, 1, -1});
  pte_tensor *o = ktest_tensor(PTE_DTYPE_CHAR, 2, sz, NULL, NULL);
  pte_evalue *out = ktest_ev_tensor(o);
  pte_evalue *args[] = {ktest_ev_tensor(in), ktest_ev_tensor(s), ktest_ev_tensor(z),
                        ktest_ev_int(1), ktest_ev_int(-128), ktest_ev_int(127),
                        ktest_ev_int(PTE_DTYPE_CHAR), out, out};
  CHECK_OK(ktest_run(qfn(QPC), args, 9));
  CHECK(ktest_expect_i64(o, (int64_t[]){1, 3, 3, 2, -3, 1}, 6));
  /* axis -2 (= 0) with two channels: scales (1, 0.5), zps (0, 1):
   * row0: 1,1,1 -> 1,1,1; row1: 2.5 -> 5+1 = 6, -2 -> -4+1 = -3, 0.5 -> 1+1 = 2 */
  int32_t s2[] = {2};
  args[1] = ktest_ev_tensor(ktest_tensor(PTE_DTYPE_DOUBLE, 1, s2, NULL, (double[]){1, 0.5}));
  args[2] = ktest_ev_tensor(ktest_tensor(PTE_DTYPE_LONG, 1, s2, NULL, (double[]){0, 1}));
  args[3] = ktest_ev_int(-2);
  CHECK_OK(ktest_run(qfn(QPC), args, 9));
  CHECK(ktest_expect_i64(o, (int64_t[]){1, 1, 1, 6, -3, 2}, 6));
  /* wrong number of scales for the axis */
  args[3] = ktest_ev_int(1);
  CHECK_STATUS(ktest_run(qfn(QPC), args, 9), PTE_ERR_INVALID_ARGUMENT);
  /* axis out of range */
  args[3] = ktest_ev_int(2);
  CHECK_STATUS(ktest_run(qfn(QPC), args, 9), PTE_ERR_INVALID_ARGUMENT);
}

TEST(quantize_per_channel_channels_last) {
  /* [1, 2, 2, 1] NCHW logical values, stored channels-last; axis 1:
   * c0 (scale 1, zp 0): 1.5 -> 2, -1.5 -> -2; c1 (scale 2, zp 10): 3 -> 1.5 -> 2+10, 5 -> 2.5 -> 2+10 */
  int32_t sz[] = {1, 2, 2, 1}, sc[] = {2};
  pte_tensor *in = ktest_tensor(PTE_DTYPE_FLOAT, 4, sz, ktest_cl4, (double[]){1.5, -1.5, 3, 5});
  pte_tensor *o = ktest_tensor(PTE_DTYPE_CHAR, 4, sz, ktest_cl4, NULL);
  pte_evalue *args[] = {
      ktest_ev_tensor(in),
      ktest_ev_tensor(ktest_tensor(PTE_DTYPE_FLOAT, 1, sc, NULL, (double[]){1, 2})),
      ktest_ev_tensor(ktest_tensor(PTE_DTYPE_INT, 1, sc, NULL, (double[]){0, 10})),
      ktest_ev_int(1), ktest_ev_int(-128), ktest_ev_int(127), ktest_ev_int(PTE_DTYPE_CHAR),
      ktest_ev_tensor(o)};
  CHECK_OK(ktest_run(qfn(QPC), args, 8));
  CHECK(ktest_expect_i64(o, (int64_t[]){2, -2, 12, 12}, 4));
}

TEST(dequantize_per_channel) {
  /* [2, 2] int8, axis 0, scales (0.5, 0.25) float, zps (1, -2):
   * row0: (3-1)*0.5 = 1, (-1-1)*0.5 = -1; row1: (2+2)*0.25 = 1, (-6+2)*0.25 = -1 */
  int32_t sz[] = {2, 2}, sc[] = {2};
  pte_tensor *in = ktest_tensor(PTE_DTYPE_CHAR, 2, sz, NULL, (double[]){3, -1, 2, -6});
  pte_tensor *s = ktest_tensor(PTE_DTYPE_FLOAT, 1, sc, NULL, (double[]){0.5, 0.25});
  pte_tensor *z = ktest_tensor(PTE_DTYPE_LONG, 1, sc, NULL, (double[]){1, -2});
  pte_tensor *o = ktest_tensor(PTE_DTYPE_FLOAT, 2, sz, NULL, NULL);
  pte_evalue *out = ktest_ev_tensor(o);
  pte_evalue *args[] = {ktest_ev_tensor(in), ktest_ev_tensor(s), ktest_ev_tensor(z),
                        ktest_ev_int(0), ktest_ev_int(-128), ktest_ev_int(127),
                        ktest_ev_int(PTE_DTYPE_CHAR), ktest_ev_none(), out, out};
  CHECK_OK(ktest_run(qfn(DQPC), args, 10));
  CHECK(ktest_expect(o, (double[]){1, -1, 1, -1}, 4, 0));
  /* zero_points None -> 0: 3*0.5, -1*0.5, 2*0.25, -6*0.25 */
  args[2] = ktest_ev_none();
  CHECK_OK(ktest_run(qfn(DQPC), args, 10));
  CHECK(ktest_expect(o, (double[]){1.5, -0.5, 0.5, -1.5}, 4, 0));
}

TEST(dequantize_per_channel_1d_double_product) {
  /* 1-D input: the reference converts (q - zp) to the out type first, so a float64 out gets
   * 3.0 * (double)0.1f = 0.30000000447034836 (not the float32 product 0.3000000119) */
  int32_t sz[] = {2};
  pte_tensor *in = ktest_tensor(PTE_DTYPE_CHAR, 1, sz, NULL, (double[]){3, 4});
  pte_tensor *s = ktest_tensor(PTE_DTYPE_FLOAT, 1, sz, NULL, (double[]){0.1, 0.5});
  pte_tensor *o = ktest_tensor(PTE_DTYPE_DOUBLE, 1, sz, NULL, NULL);
  pte_evalue *args[] = {ktest_ev_tensor(in), ktest_ev_tensor(s), ktest_ev_none(),
                        ktest_ev_int(0), ktest_ev_int(-128), ktest_ev_int(127),
                        ktest_ev_int(PTE_DTYPE_CHAR), ktest_ev_int(PTE_DTYPE_DOUBLE),
                        ktest_ev_tensor(o)};
  CHECK_OK(ktest_run(qfn(DQPC), args, 9));
  CHECK(ktest_expect(o, (double[]){3.0 * (double)0.1f, 2.0}, 2, 0));
  CHECK(ktest_get(o, 0) != (double)(3.0f * 0.1f));
}

TEST(per_token_quantize_dequantize) {
  /* [2, 1, 2] -> 2 tokens of 2: token0 scale 0.5 zp 0, token1 scale 0.25 zp -4
   * token0: 1.25 -> 2.5 -> 2; -1 -> -2; token1: 1 -> 4-4 = 0; 0.625 -> 2.5 -> 2-4 = -2 */
  int32_t sz[] = {2, 1, 2}, ts[] = {2, 1, 1};
  pte_tensor *in = ktest_tensor(PTE_DTYPE_FLOAT, 3, sz, NULL, (double[]){1.25, -1, 1, 0.625});
  pte_tensor *s = ktest_tensor(PTE_DTYPE_DOUBLE, 3, ts, NULL, (double[]){0.5, 0.25});
  pte_tensor *z = ktest_tensor(PTE_DTYPE_LONG, 3, ts, NULL, (double[]){0, -4});
  pte_tensor *q = ktest_tensor(PTE_DTYPE_CHAR, 3, sz, NULL, NULL);
  pte_evalue *qo = ktest_ev_tensor(q);
  pte_evalue *qargs[] = {ktest_ev_tensor(in), ktest_ev_tensor(s), ktest_ev_tensor(z),
                         ktest_ev_int(-128), ktest_ev_int(127), ktest_ev_int(PTE_DTYPE_CHAR), qo,
                         qo};
  CHECK_OK(ktest_run(qfn(QTOK), qargs, 8));
  CHECK(ktest_expect_i64(q, (int64_t[]){2, -2, 0, -2}, 4));
  /* back: token0 2*0.5 = 1, -2*0.5 = -1; token1 (0+4)*0.25 = 1, (-2+4)*0.25 = 0.5 */
  pte_tensor *d = ktest_tensor(PTE_DTYPE_FLOAT, 3, sz, NULL, NULL);
  pte_evalue *dargs[] = {qo, ktest_ev_tensor(s), ktest_ev_tensor(z), ktest_ev_int(-128),
                         ktest_ev_int(127), ktest_ev_int(PTE_DTYPE_CHAR),
                         ktest_ev_int(PTE_DTYPE_FLOAT), ktest_ev_tensor(d)};
  CHECK_OK(ktest_run(qfn(DQTOK), dargs, 8));
  CHECK(ktest_expect(d, (double[]){1, -1, 1, 0.5}, 4, 0));
  /* output_dtype must match the out tensor */
  dargs[6] = ktest_ev_int(PTE_DTYPE_HALF);
  CHECK_STATUS(ktest_run(qfn(DQTOK), dargs, 8), PTE_ERR_INVALID_ARGUMENT);
  /* one scale per token is required */
  int32_t one[] = {1};
  qargs[1] = ktest_ev_tensor(ktest_tensor(PTE_DTYPE_DOUBLE, 1, one, NULL, (double[]){1}));
  CHECK_STATUS(ktest_run(qfn(QTOK), qargs, 8), PTE_ERR_INVALID_ARGUMENT);
}

/* ---------------------------------------------------------------------------------------- */

static pte_status run_cqp(const double *x, int32_t n, int64_t qmin, int64_t qmax, double *scale,
                          int64_t *zp) {
  int32_t sz[] = {n}, one[] = {1};
  pte_tensor *in = ktest_tensor(PTE_DTYPE_FLOAT, 1, sz, NULL, x);
  pte_tensor *s = ktest_tensor(PTE_DTYPE_DOUBLE, 1, one, NULL, NULL);
  pte_tensor *z = ktest_tensor(PTE_DTYPE_LONG, 1, one, NULL, NULL);
  pte_evalue *so = ktest_ev_tensor(s), *zo = ktest_ev_tensor(z);
  pte_evalue *r0 = ktest_ev_none(), *r1 = ktest_ev_none();
  pte_evalue *args[] = {ktest_ev_tensor(in), ktest_ev_int(qmin), ktest_ev_int(qmax),
                        ktest_ev_double(1e-5), ktest_ev_int(PTE_DTYPE_CHAR), so, zo, r0, r1};
  pte_status st = ktest_run(qfn(CQP), args, 9);
  if (st == PTE_OK && (r0->tag != PTE_TAG_TENSOR || r0->u.tensor != s || r1->u.tensor != z))
    return PTE_ERR_INTERNAL; /* return slots must alias the outs */
  *scale = ((double *)s->data)[0];
  *zp = ((int64_t *)z->data)[0];
  return st;
}

TEST(choose_qparams_values) {
  double scale;
  int64_t zp;
  /* [-1, 0, 3] int8: scale = 4 / 255; zp from max: 127 - 3 / (4/255) = -64.25 -> -64 */
  CHECK_OK(run_cqp((double[]){-1, 0, 3}, 3, -128, 127, &scale, &zp));
  CHECK(scale == 4.0 / 255.0);
  CHECK_EQ_INT(zp, -64);
  /* positive-only input, uint8: min extends to 0, scale 2/255, zp 0 */
  CHECK_OK(run_cqp((double[]){0.5, 2}, 2, 0, 255, &scale, &zp));
  CHECK(scale == 2.0 / 255.0);
  CHECK_EQ_INT(zp, 0);
  /* negative-only input [-2, -1]: max extends to 0, zp from max = 127 - 0 = 127 */
  CHECK_OK(run_cqp((double[]){-2, -1}, 2, -128, 127, &scale, &zp));
  CHECK(scale == 2.0 / 255.0);
  CHECK_EQ_INT(zp, 127);
  /* all zeros: scale 0 -> 0.1; err terms 128 vs 127 pick the max side -> zp 127 */
  CHECK_OK(run_cqp((double[]){0, 0}, 2, -128, 127, &scale, &zp));
  CHECK(scale == 0.1);
  CHECK_EQ_INT(zp, 127);
  /* tiny range [0, 1e-6]: scale raised to 6.1e-5f, max stretched to 6.1e-5f * 255, zp from max
   * = 127 - 255.00000x < -128 -> clamps to -128 */
  CHECK_OK(run_cqp((double[]){0, 1e-6}, 2, -128, 127, &scale, &zp));
  CHECK(scale == (double)6.1e-5f);
  CHECK_EQ_INT(zp, -128);
  /* [-1.5, 1]: scale 2.5/255; zp from min = -128 + 1.5*102 = 25 exactly (error term
   * 128 - 153 = -25 < 127 - 102 = 25) */
  CHECK_OK(run_cqp((double[]){-1.5, 1}, 2, -128, 127, &scale, &zp));
  CHECK(scale == 2.5 / 255.0);
  CHECK_EQ_INT(zp, 25);
}

TEST(choose_qparams_errors) {
  double scale;
  int64_t zp;
  CHECK_STATUS(run_cqp((double[]){1}, 1, 5, 5, &scale, &zp), PTE_ERR_INVALID_ARGUMENT);
  int32_t sz[] = {1}, one[] = {1};
  pte_tensor *in = ktest_tensor(PTE_DTYPE_DOUBLE, 1, sz, NULL, (double[]){1});
  pte_tensor *s = ktest_tensor(PTE_DTYPE_DOUBLE, 1, one, NULL, NULL);
  pte_tensor *z = ktest_tensor(PTE_DTYPE_LONG, 1, one, NULL, NULL);
  pte_evalue *args[] = {ktest_ev_tensor(in), ktest_ev_int(-128), ktest_ev_int(127),
                        ktest_ev_double(1e-5), ktest_ev_int(PTE_DTYPE_CHAR), ktest_ev_tensor(s),
                        ktest_ev_tensor(z)};
  CHECK_STATUS(ktest_run(qfn(CQP), args, 7), PTE_ERR_INVALID_ARGUMENT); /* float64 input */
  args[0] = ktest_ev_tensor(ktest_tensor(PTE_DTYPE_FLOAT, 1, sz, NULL, (double[]){1}));
  args[5] = ktest_ev_tensor(ktest_tensor(PTE_DTYPE_FLOAT, 1, one, NULL, NULL));
  CHECK_STATUS(ktest_run(qfn(CQP), args, 7), PTE_ERR_INVALID_ARGUMENT); /* float32 scale_out */
  args[5] = ktest_ev_tensor(s);
  CHECK_OK(ktest_run(qfn(CQP), args, 7)); /* no return slots is fine */
}

int main(void) {
  RUN(registration_lists_every_op);
  RUN(quantize_int8_ties_to_even_and_clamps);
  RUN(quantize_uint8_int16_int32);
  RUN(quantize_double_and_half_inputs);
  RUN(quantize_errors);
  RUN(quantize_tensor_overload);
  RUN(quantize_channels_last_input);
  RUN(dequantize_per_tensor_dtypes);
  RUN(dequantize_errors);
  RUN(dequantize_tensor_overload);
  RUN(quantize_per_channel_axis_and_zero_points);
  RUN(quantize_per_channel_channels_last);
  RUN(dequantize_per_channel);
  RUN(dequantize_per_channel_1d_double_product);
  RUN(per_token_quantize_dequantize);
  RUN(choose_qparams_values);
  RUN(choose_qparams_errors);
  ktest_free_all();
  return test_summary();
}
