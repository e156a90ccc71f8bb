/* Tests for the NN kernels: convolution (op_conv.c), pooling (op_pool.c), normalisation
 * (op_norm.c) and softmax (op_softmax.c). Small cases are checked against values worked out by
 * hand (in the comments); larger ones against straightforward reference loops written here in
 * double over logical NCHW arrays, independent of the kernels' strided/GEMM code paths. */
#include "test.h"

#include "portable/portable_nn.h"
#include "support/ktest.h"

static pte_op_fn conv_fn(void) {
  return ktest_find(pte_portable_conv_kernels, pte_portable_conv_kernels_count, "aten::convolution.out");
}
static pte_op_fn pool_fn(const char *name) {
  return ktest_find(pte_portable_pool_kernels, pte_portable_pool_kernels_count, name);
}
static pte_op_fn norm_fn(const char *name) {
  return ktest_find(pte_portable_norm_kernels, pte_portable_norm_kernels_count, name);
}
static pte_op_fn softmax_fn(const char *name) {
  return ktest_find(pte_portable_softmax_kernels, pte_portable_softmax_kernels_count, name);
}

static pte_evalue *ilist(const int64_t *v, size_t n) { return ktest_ev_int_list(v, n); }
#define IL(...) ilist((const int64_t[]){__VA_ARGS__}, sizeof((const int64_t[]){__VA_ARGS__}) / sizeof(int64_t))
#define IL0() ilist(NULL, 0)

static uint32_t g_seed = 777u;
static double rnd(void) { return ktest_rnd_grid(&g_seed, 12, 256, 64.0); }

/* ======================================================================================== */
/* convolution                                                                               */

/* Reference 2-D convolution over logical arrays (1-D: H = kH = 1). */
static void ref_conv(const double *x, const double *w, const double *b, double *y, int N, int Cin,
                     int H, int W, int Cout, int kH, int kW, int sH, int sW, int pH, int pW, int dH,
                     int dW, int groups, int OH, int OW) {
  int cin_g = Cin / groups, cout_g = Cout / groups;
  for (int n = 0; n < N; n++)
    for (int co = 0; co < Cout; co++)
      for (int oh = 0; oh < OH; oh++)
        for (int ow = 0; ow < OW; ow++) {
          double s = b ? b[co] : 0.0;
          int g = co / cout_g;
          for (int ci = 0; ci < cin_g; ci++)
            for (int kh = 0; kh < kH; kh++)
              for (int kw = 0; kw < kW; kw++) {
                int ih = oh * sH - pH + kh * dH, iw = ow * sW - pW + kw * dW;
                if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
                s += x[((n * Cin + g * cin_g + ci) * H + ih) * W + iw] *
                     w[((co * cin_g + ci) * kH + kh) * kW + kw];
              }
          y[((n * Cout + co) * OH + oh) * OW + ow] = s;
        }
}

TEST(conv2d_hand_values) {
  int32_t si[] = {1, 1, 3, 3}, sw[] = {1, 1, 2, 2}, sb[] = {1}, so[] = {1, 1, 2, 2};
  pte_tensor *in = ktest_tensor(PTE_DTYPE_FLOAT, 4, si, NULL, (double[]){1, 2, 3, 4, 5, 6, 7, 8, 9});
  pte_tensor *w = ktest_tensor(PTE_DTYPE_FLOAT, 4, sw, NULL, (double[]){1, 2, 3, 4});
  pte_tensor *b = ktest_tensor(PTE_DTYPE_FLOAT, 1, sb, NULL, (double[]){1});
  pte_tensor *o = ktest_tensor(PTE_DTYPE_FLOAT, 4, so, NULL, NULL);
  pte_evalue *out = ktest_ev_tensor(o);
  pte_evalue *args[] = {ktest_ev_tensor(in), ktest_ev_tensor(w), ktest_ev_tensor(b), IL(1, 1),
                        IL(0, 0), IL(1, 1), ktest_ev_bool(false), IL(0, 0), ktest_ev_int(1), out,
                        out};
  CHECK_OK(ktest_run(conv_fn(), args, 11));
  /* 1*1+2*2+4*3+5*4 = 37 (+1 bias); 2+6+15+24 = 47; 4+10+21+32 = 67; 5+12+24+36 = 77 */
  CHECK(ktest_expect(o, (double[]){38, 48, 68, 78}, 4, 0));
}

typedef struct conv_case {
  int N, Cin, H, W, Cout, kH, kW, sH, sW, pH, pW, dH, dW, groups;
  bool one_d, bias;
} conv_case;

/* Runs one random case in the given dtype/layouts and compares with ref_conv. */
static bool run_conv_case(const conv_case *c, int dtype, const uint8_t *in_order,
                          const uint8_t *w_order, const uint8_t *out_order, double tol, bool no_temp) {
  int OH = (c->H + 2 * c->pH - c->dH * (c->kH - 1) - 1) / c->sH + 1;
  int OW = (c->W + 2 * c->pW - c->dW * (c->kW - 1) - 1) / c->sW + 1;
  int cin_g = c->Cin / c->groups;
  size_t nx = (size_t)c->N * c->Cin * c->H * c->W, nw = (size_t)c->Cout * cin_g * c->kH * c->kW;
  size_t ny = (size_t)c->N * c->Cout * OH * OW;
  double *x = ktest_rnd_array(nx, rnd), *w = ktest_rnd_array(nw, rnd), *b = ktest_rnd_array((size_t)c->Cout, rnd);
  double *y = (double *)malloc(ny * sizeof(double));
  ref_conv(x, w, c->bias ? b : NULL, y, c->N, c->Cin, c->H, c->W, c->Cout, c->kH, c->kW, c->sH,
           c->sW, c->pH, c->pW, c->dH, c->dW, c->groups, OH, OW);
  pte_tensor *ti, *tw, *to;
  if (c->one_d) {
    int32_t si[] = {c->N, c->Cin, c->W}, sw[] = {c->Cout, cin_g, c->kW}, so[] = {c->N, c->Cout, OW};
    ti = ktest_tensor(dtype, 3, si, in_order, x);
    tw = ktest_tensor(dtype, 3, sw, w_order, w);
    to = ktest_tensor(dtype, 3, so, out_order, NULL);
  } else {
    int32_t si[] = {c->N, c->Cin, c->H, c->W}, sw[] = {c->Cout, cin_g, c->kH, c->kW},
            so[] = {c->N, c->Cout, OH, OW};
    ti = ktest_tensor(dtype, 4, si, in_order, x);
    tw = ktest_tensor(dtype, 4, sw, w_order, w);
    to = ktest_tensor(dtype, 4, so, out_order, NULL);
  }
  int32_t sb[] = {c->Cout};
  pte_tensor *tb = ktest_tensor(dtype, 1, sb, NULL, b);
  pte_evalue *out = ktest_ev_tensor(to);
  pte_evalue *stride = c->one_d ? IL(c->sW) : IL(c->sH, c->sW);
  pte_evalue *pad = c->one_d ? IL(c->pW) : IL(c->pH, c->pW);
  pte_evalue *dil = c->one_d ? IL(c->dW) : IL(c->dH, c->dW);
  pte_evalue *args[] = {ktest_ev_tensor(ti), ktest_ev_tensor(tw),
                        c->bias ? ktest_ev_tensor(tb) : ktest_ev_none(), stride, pad, dil,
                        ktest_ev_bool(false), c->one_d ? IL(0) : IL(0, 0), ktest_ev_int(c->groups),
                        out, out};
  pte_status s = no_temp ? ktest_run_no_temp(conv_fn(), args, 11) : ktest_run(conv_fn(), args, 11);
  bool ok = s == PTE_OK && ktest_expect(to, y, ny, tol);
  if (s != PTE_OK) fprintf(stderr, "    status %d: %s\n", (int)s, ktest_last_msg());
  free(x);
  free(w);
  free(b);
  free(y);
  return ok;
}

static const conv_case k_conv_cases[] = {
    /* N Cin H  W Cout kH kW sH sW pH pW dH dW g  1d    bias */
    {1, 3, 7, 9, 8, 3, 3, 1, 1, 1, 1, 1, 1, 1, false, true},    /* GEMM path, same padding */
    {2, 4, 9, 8, 12, 3, 2, 2, 1, 1, 0, 1, 2, 2, false, true},   /* groups=2, stride, dilation */
    {1, 6, 8, 8, 6, 3, 3, 2, 2, 1, 1, 1, 1, 6, false, true},    /* depthwise (direct path) */
    {1, 4, 6, 6, 8, 3, 3, 1, 1, 1, 1, 1, 1, 4, false, false},   /* depthwise multiplier 2 */
    {2, 5, 5, 7, 3, 2, 3, 1, 2, 1, 1, 2, 1, 1, false, false},   /* Cout < 4 (direct) */
    {1, 16, 12, 11, 20, 1, 1, 1, 1, 0, 0, 1, 1, 1, false, true}, /* pointwise */
    {1, 20, 6, 6, 33, 3, 3, 1, 1, 0, 0, 1, 1, 1, false, true},  /* K = 180, N panel edges */
    {2, 4, 1, 20, 8, 1, 5, 1, 2, 0, 2, 1, 1, 1, true, true},    /* 1-D, stride/padding */
    {1, 6, 1, 17, 6, 1, 3, 1, 1, 0, 2, 1, 2, 3, true, false},   /* 1-D groups + dilation */
};

TEST(conv_random_cases_nchw) {
  for (size_t i = 0; i < sizeof k_conv_cases / sizeof k_conv_cases[0]; i++) {
    CHECK_MSG(run_conv_case(&k_conv_cases[i], PTE_DTYPE_FLOAT, NULL, NULL, NULL, 1e-4, false),
              "float case %zu", i);
    CHECK_MSG(run_conv_case(&k_conv_cases[i], PTE_DTYPE_DOUBLE, NULL, NULL, NULL, 1e-10, false),
              "double case %zu", i);
  }
}

TEST(conv_random_cases_channels_last) {
  for (size_t i = 0; i < sizeof k_conv_cases / sizeof k_conv_cases[0]; i++) {
    const conv_case *c = &k_conv_cases[i];
    const uint8_t *cl = c->one_d ? ktest_cl3 : ktest_cl4;
    /* channels-last activations with NCHW weights, and everything channels-last */
    CHECK_MSG(run_conv_case(c, PTE_DTYPE_FLOAT, cl, NULL, cl, 1e-4, false), "cl act case %zu", i);
    CHECK_MSG(run_conv_case(c, PTE_DTYPE_FLOAT, cl, cl, cl, 1e-4, false), "cl all case %zu", i);
    /* mixed: channels-last input, NCHW out */
    CHECK_MSG(run_conv_case(c, PTE_DTYPE_DOUBLE, cl, cl, NULL, 1e-10, false), "cl in case %zu", i);
  }
}

TEST(conv_weird_weight_layout_uses_direct_path) {
  /* weight stored with (kh) innermost and (ci) outermost inside each filter: dims 1..3 are
   * dense in order (ci, kw, kh) — still dense, so GEMM; and an HW-transposed activation. */
  static const uint8_t worder[4] = {0, 1, 3, 2};
  static const uint8_t iorder[4] = {0, 1, 3, 2};
  CHECK(run_conv_case(&k_conv_cases[0], PTE_DTYPE_FLOAT, iorder, worder, NULL, 1e-4, false));
  CHECK(run_conv_case(&k_conv_cases[1], PTE_DTYPE_FLOAT, iorder, worder, iorder, 1e-4, false));
  /* batch-innermost weight: not dense in dims 1..3 -> direct loop */
  static const uint8_t wbad[4] = {1, 2, 3, 0};
  CHECK(run_conv_case(&k_conv_cases[0], PTE_DTYPE_FLOAT, NULL, wbad, NULL, 1e-4, false));
}

TEST(conv_half_bf16_and_int) {
  CHECK(run_conv_case(&k_conv_cases[0], PTE_DTYPE_HALF, NULL, NULL, NULL, 0.05, true));
  CHECK(run_conv_case(&k_conv_cases[2], PTE_DTYPE_BFLOAT16, ktest_cl4, NULL, ktest_cl4, 0.3, false));
  /* int32: 3x3 input of 1..9, 2x2 kernel of ones, padding 1 -> 4x4 sums */
  int32_t si[] = {1, 1, 3, 3}, sw[] = {1, 1, 2, 2}, so[] = {1, 1, 4, 4};
  pte_tensor *in = ktest_tensor(PTE_DTYPE_INT, 4, si, NULL, (double[]){1, 2, 3, 4, 5, 6, 7, 8, 9});
  pte_tensor *w = ktest_tensor(PTE_DTYPE_INT, 4, sw, NULL, (double[]){1, 1, 1, 1});
  pte_tensor *o = ktest_tensor(PTE_DTYPE_INT, 4, so, NULL, NULL);
  pte_evalue *out = ktest_ev_tensor(o);
  pte_evalue *args[] = {ktest_ev_tensor(in), ktest_ev_tensor(w), ktest_ev_none(), IL(1), IL(1),
                        IL(1), ktest_ev_bool(false), IL(0), ktest_ev_int(1), out, out};
  CHECK_OK(ktest_run(conv_fn(), args, 11));
  CHECK(ktest_expect(o, (double[]){1, 3, 5, 3, 5, 12, 16, 9, 11, 24, 28, 15, 7, 15, 17, 9}, 16, 0));
}

TEST(conv_transposed) {
  /* stride 2, 2x2 kernel of ones: each input pixel becomes a 2x2 block */
  int32_t si[] = {1, 1, 2, 2}, sw[] = {1, 1, 2, 2}, so[] = {1, 1, 4, 4};
  pte_tensor *in = ktest_tensor(PTE_DTYPE_FLOAT, 4, si, NULL, (double[]){1, 2, 3, 4});
  pte_tensor *w = ktest_tensor(PTE_DTYPE_FLOAT, 4, sw, NULL, (double[]){1, 1, 1, 1});
  pte_tensor *o = ktest_tensor(PTE_DTYPE_FLOAT, 4, so, NULL, NULL);
  pte_evalue *out = ktest_ev_tensor(o);
  pte_evalue *args[] = {ktest_ev_tensor(in), ktest_ev_tensor(w), ktest_ev_none(), IL(2, 2),
                        IL(0, 0), IL(1, 1), ktest_ev_bool(true), IL(0, 0), ktest_ev_int(1), out, out};
  CHECK_OK(ktest_run(conv_fn(), args, 11));
  CHECK(ktest_expect(o, (double[]){1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4}, 16, 0));
  /* stride 1, padding 1, weight [[1,2],[3,4]], bias 10, output_padding 0:
   * full transposed output (3x3) is x (*) w:
   *   [1*1, 1*2+2*1, 2*2; 1*3+3*1, 1*4+2*3+3*2+4*1, 2*4+4*2; 3*3, 3*4+4*3, 4*4] = [1 4 4; 6 20 16; 9 24 16]
   * padding 1 crops one row/col each side ((2-1)*1 - 2 + 1 + 1 = 1): the centre 20 (+10). */
  int32_t so1[] = {1, 1, 1, 1}, sb[] = {1};
  pte_tensor *w2 = ktest_tensor(PTE_DTYPE_FLOAT, 4, sw, NULL, (double[]){1, 2, 3, 4});
  pte_tensor *b = ktest_tensor(PTE_DTYPE_FLOAT, 1, sb, NULL, (double[]){10});
  pte_tensor *o1 = ktest_tensor(PTE_DTYPE_FLOAT, 4, so1, NULL, NULL);
  pte_evalue *out1 = ktest_ev_tensor(o1);
  pte_evalue *args1[] = {ktest_ev_tensor(in), ktest_ev_tensor(w2), ktest_ev_tensor(b), IL(1, 1),
                         IL(1, 1), IL(1, 1), ktest_ev_bool(true), IL(0, 0), ktest_ev_int(1), out1, out1};
  CHECK_OK(ktest_run(conv_fn(), args1, 11));
  CHECK(ktest_expect(o1, (double[]){30}, 1, 0));
  /* no padding, output_padding 1 with stride 2: [1,1,2,2] -> (2-1)*2 + 1 + 1 + 1 = 5x5, half */
  int32_t so5[] = {1, 1, 5, 5};
  pte_tensor *hin = ktest_tensor(PTE_DTYPE_HALF, 4, si, NULL, (double[]){1, 2, 3, 4});
  pte_tensor *hw = ktest_tensor(PTE_DTYPE_HALF, 4, sw, NULL, (double[]){1, 2, 3, 4});
  pte_tensor *ho = ktest_tensor(PTE_DTYPE_HALF, 4, so5, NULL, NULL);
  pte_evalue *hout = ktest_ev_tensor(ho);
  pte_evalue *args2[] = {ktest_ev_tensor(hin), ktest_ev_tensor(hw), ktest_ev_none(), IL(2, 2),
                         IL(0, 0), IL(1, 1), ktest_ev_bool(true), IL(1, 1), ktest_ev_int(1), hout, hout};
  CHECK_OK(ktest_run(conv_fn(), args2, 11));
  /* x[i][j] lands at (2i + kh, 2j + kw) * w[kh][kw]; row 4 / col 4 are output padding (zero) */
  CHECK(ktest_expect(ho, (double[]){1, 2, 2, 4, 0,  3, 4, 6, 8, 0,  3, 6, 4, 8, 0,
                                    9, 12, 12, 16, 0,  0, 0, 0, 0, 0}, 25, 0));
}

/* Random transposed convolutions against a scatter reference (weight [Cin, Cout/g, kH, kW]). */
static bool run_convt_case(int dtype, bool one_d, const uint8_t *order, int N, int Cin, int H, int W,
                           int cout_g, int kH, int kW, int sH, int sW, int pH, int pW, int dH, int dW,
                           int opH, int opW, int groups, bool use_bias, double tol) {
  int OH = (H - 1) * sH - 2 * pH + dH * (kH - 1) + opH + 1;
  int OW = (W - 1) * sW - 2 * pW + dW * (kW - 1) + opW + 1;
  int Cout = cout_g * groups, cin_g = Cin / groups;
  size_t nx = (size_t)N * Cin * H * W, nw = (size_t)Cin * cout_g * kH * kW, ny = (size_t)N * Cout * OH * OW;
  double *x = ktest_rnd_array(nx, rnd), *w = ktest_rnd_array(nw, rnd), *b = ktest_rnd_array((size_t)Cout, rnd);
  double *y = (double *)calloc(ny, sizeof(double));
  for (int n = 0; n < N; n++)
    for (int co = 0; co < Cout; co++)
      for (int i = 0; i < OH * OW; i++) y[(size_t)(n * Cout + co) * OH * OW + i] = use_bias ? b[co] : 0;
  for (int n = 0; n < N; n++)
    for (int ci = 0; ci < Cin; ci++)
      for (int ih = 0; ih < H; ih++)
        for (int iw = 0; iw < W; iw++)
          for (int col = 0; col < cout_g; col++)
            for (int kh = 0; kh < kH; kh++)
              for (int kw = 0; kw < kW; kw++) {
                int oh = ih * sH - pH + kh * dH, ow = iw * sW - pW + kw * dW;
                if (oh < 0 || oh >= OH || ow < 0 || ow >= OW) continue;
                int co = (ci / cin_g) * cout_g + col;
                y[((size_t)(n * Cout + co) * OH + oh) * OW + ow] +=
                    x[((size_t)(n * Cin + ci) * H + ih) * W + iw] * w[((ci * cout_g + col) * kH + kh) * kW + kw];
              }
  pte_tensor *ti, *tw, *to;
  if (one_d) {
    int32_t si[] = {N, Cin, W}, sw[] = {Cin, cout_g, kW}, so[] = {N, Cout, OW};
    ti = ktest_tensor(dtype, 3, si, order, x);
    tw = ktest_tensor(dtype, 3, sw, NULL, w);
    to = ktest_tensor(dtype, 3, so, order, NULL);
  } else {
    int32_t si[] = {N, Cin, H, W}, sw[] = {Cin, cout_g, kH, kW}, so[] = {N, Cout, OH, OW};
    ti = ktest_tensor(dtype, 4, si, order, x);
    tw = ktest_tensor(dtype, 4, sw, order, w);
    to = ktest_tensor(dtype, 4, so, order, NULL);
  }
  int32_t sb[] = {Cout};
  pte_tensor *tb = ktest_tensor(dtype, 1, sb, NULL, b);
  pte_evalue *out = ktest_ev_tensor(to);
  pte_evalue *args[] = {ktest_ev_tensor(ti), ktest_ev_tensor(tw),
                        use_bias ? ktest_ev_tensor(tb) : ktest_ev_none(),
                        one_d ? IL(sW) : IL(sH, sW), one_d ? IL(pW) : IL(pH, pW),
                        one_d ? IL(dW) : IL(dH, dW), ktest_ev_bool(true),
                        one_d ? IL(opW) : IL(opH, opW), ktest_ev_int(groups), out, out};
  pte_status s = ktest_run(conv_fn(), args, 11);
  bool ok = s == PTE_OK && ktest_expect(to, y, ny, tol);
  if (s != PTE_OK) fprintf(stderr, "    status %d: %s\n", (int)s, ktest_last_msg());
  free(x);
  free(w);
  free(b);
  free(y);
  return ok;
}

TEST(conv_transposed_random) {
  /* groups 2, stride (2,1), padding (1,0), dilation (1,2), output_padding (1,0) */
  CHECK(run_convt_case(PTE_DTYPE_FLOAT, false, NULL, 2, 4, 5, 4, 3, 3, 2, 2, 1, 1, 0, 1, 2, 1, 0, 2, true, 1e-4));
  CHECK(run_convt_case(PTE_DTYPE_FLOAT, false, ktest_cl4, 2, 4, 5, 4, 3, 3, 2, 2, 1, 1, 0, 1, 2, 1, 0, 2, false, 1e-4));
  CHECK(run_convt_case(PTE_DTYPE_DOUBLE, false, ktest_cl4, 1, 3, 4, 4, 2, 2, 2, 2, 2, 0, 0, 1, 1, 1, 1, 1, true, 1e-10));
  CHECK(run_convt_case(PTE_DTYPE_BFLOAT16, false, NULL, 1, 2, 3, 3, 2, 3, 3, 1, 1, 1, 1, 1, 1, 0, 0, 1, true, 0.15));
  CHECK(run_convt_case(PTE_DTYPE_FLOAT, true, ktest_cl3, 2, 6, 1, 9, 1, 1, 4, 1, 3, 0, 2, 1, 1, 0, 2, 6, true, 1e-4));
}

TEST(conv_errors) {
  int32_t si[] = {1, 4, 5, 5}, sw[] = {6, 2, 3, 3}, so[] = {1, 6, 3, 3};
  pte_tensor *in = ktest_tensor(PTE_DTYPE_FLOAT, 4, si, NULL, NULL);
  pte_tensor *w = ktest_tensor(PTE_DTYPE_FLOAT, 4, sw, NULL, NULL);
  pte_tensor *o = ktest_tensor(PTE_DTYPE_FLOAT, 4, so, NULL, NULL);
  pte_evalue *out = ktest_ev_tensor(o);
#define CONV_ARGS(IN, W, B, STRIDE, PAD, DIL, GROUPS, OUT)                                         \
  {ktest_ev_tensor(IN), ktest_ev_tensor(W), B, STRIDE, PAD, DIL, ktest_ev_bool(false), IL(0, 0),   \
   ktest_ev_int(GROUPS), OUT, OUT}
  /* valid with groups=2 */
  pte_evalue *ok_args[] = CONV_ARGS(in, w, ktest_ev_none(), IL(1, 1), IL(0, 0), IL(1, 1), 2, out);
  CHECK_OK(ktest_run(conv_fn(), ok_args, 11));
  /* groups=1: weight has 2 input channels, input 4 */
  pte_evalue *a1[] = CONV_ARGS(in, w, ktest_ev_none(), IL(1, 1), IL(0, 0), IL(1, 1), 1, out);
  CHECK_STATUS(ktest_run(conv_fn(), a1, 11), PTE_ERR_INVALID_ARGUMENT);
  /* groups=4 does not divide Cout=6 */
  pte_evalue *a2[] = CONV_ARGS(in, w, ktest_ev_none(), IL(1, 1), IL(0, 0), IL(1, 1), 4, out);
  CHECK_STATUS(ktest_run(conv_fn(), a2, 11), PTE_ERR_INVALID_ARGUMENT);
  /* stride 0 */
  pte_evalue *a3[] = CONV_ARGS(in, w, ktest_ev_none(), IL(0, 1), IL(0, 0), IL(1, 1), 2, out);
  CHECK_STATUS(ktest_run(conv_fn(), a3, 11), PTE_ERR_INVALID_ARGUMENT);
  /* kernel larger than the (padded) input: dilation 3 -> effective 7 > 5 */
  pte_evalue *a4[] = CONV_ARGS(in, w, ktest_ev_none(), IL(1, 1), IL(0, 0), IL(3, 3), 2, out);
  CHECK_STATUS(ktest_run(conv_fn(), a4, 11), PTE_ERR_INVALID_ARGUMENT);
  /* bias of the wrong size */
  int32_t sb[] = {5};
  pte_tensor *b5 = ktest_tensor(PTE_DTYPE_FLOAT, 1, sb, NULL, NULL);
  pte_evalue *a5[] = CONV_ARGS(in, w, ktest_ev_tensor(b5), IL(1, 1), IL(0, 0), IL(1, 1), 2, out);
  CHECK_STATUS(ktest_run(conv_fn(), a5, 11), PTE_ERR_INVALID_ARGUMENT);
  /* dtype mismatch */
  pte_tensor *wd = ktest_tensor(PTE_DTYPE_DOUBLE, 4, sw, NULL, NULL);
  pte_evalue *a6[] = CONV_ARGS(in, wd, ktest_ev_none(), IL(1, 1), IL(0, 0), IL(1, 1), 2, out);
  CHECK_STATUS(ktest_run(conv_fn(), a6, 11), PTE_ERR_INVALID_ARGUMENT);
  /* a parameter list of 3 values for a 2-D conv */
  pte_evalue *a7[] = CONV_ARGS(in, w, ktest_ev_none(), IL(1, 1, 1), IL(0, 0), IL(1, 1), 2, out);
  CHECK_STATUS(ktest_run(conv_fn(), a7, 11), PTE_ERR_INVALID_ARGUMENT);
  /* static out with the wrong shape (padding 1 -> 5x5) */
  pte_evalue *a8[] = CONV_ARGS(in, w, ktest_ev_none(), IL(1, 1), IL(1, 1), IL(1, 1), 2, out);
  CHECK_STATUS(ktest_run(conv_fn(), a8, 11), PTE_ERR_INVALID_ARGUMENT);
  /* 3-D convolution (5-D input) is not implemented */
  int32_t s5[] = {1, 1, 2, 2, 2};
  pte_tensor *i5 = ktest_tensor(PTE_DTYPE_FLOAT, 5, s5, NULL, NULL);
  pte_tensor *w5 = ktest_tensor(PTE_DTYPE_FLOAT, 5, s5, NULL, NULL);
  pte_tensor *o5 = ktest_tensor(PTE_DTYPE_FLOAT, 5, s5, NULL, NULL);
  pte_evalue *ev5 = ktest_ev_tensor(o5);
  pte_evalue *a9[] = {ktest_ev_tensor(i5), ktest_ev_tensor(w5), ktest_ev_none(), IL(1, 1, 1),
                      IL(0, 0, 0), IL(1, 1, 1), ktest_ev_bool(false), IL(0, 0, 0), ktest_ev_int(1),
                      ev5, ev5};
  CHECK_STATUS(ktest_run(conv_fn(), a9, 11), PTE_ERR_NOT_SUPPORTED);
  /* transposed with output_padding >= stride and dilation */
  pte_evalue *a10[] = {ktest_ev_tensor(in), ktest_ev_tensor(w), ktest_ev_none(), IL(1, 1),
                       IL(0, 0), IL(1, 1), ktest_ev_bool(true), IL(1, 1), ktest_ev_int(1), out, out};
  CHECK_STATUS(ktest_run(conv_fn(), a10, 11), PTE_ERR_INVALID_ARGUMENT);
  /* wrong arg count */
  CHECK_STATUS(ktest_run(conv_fn(), ok_args, 9), PTE_ERR_INVALID_ARGUMENT);
#undef CONV_ARGS
}

/* ======================================================================================== */
/* pooling                                                                                   */

static void ref_max_pool(const double *x, double *y, int64_t *idx, int NC, int H, int W, int kH,
                         int kW, int sH, int sW, int pH, int pW, int dH, int dW, int OH, int OW) {
  for (int p = 0; p < NC; p++)
    for (int oh = 0; oh < OH; oh++)
      for (int ow = 0; ow < OW; ow++) {
        double m = -INFINITY;
        int64_t mi = -1;
        for (int kh = 0; kh < kH; kh++)
          for (int kw = 0; kw < kW; kw++) {
            int ih = oh * sH - pH + kh * dH, iw = ow * sW - pW + kw * dW;
            if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
            double v = x[(p * H + ih) * W + iw];
            if (mi < 0 || v > m) {
              m = v;
              mi = ih * W + iw;
            }
          }
        y[(p * OH + oh) * OW + ow] = m;
        idx[(p * OH + oh) * OW + ow] = mi;
      }
}

static pte_status run_max_pool(pte_tensor *in, pte_tensor *o, pte_tensor *ix, pte_evalue *k,
                               pte_evalue *s, pte_evalue *p, pte_evalue *d, bool ceil) {
  pte_evalue *eo = ktest_ev_tensor(o), *ei = ktest_ev_tensor(ix);
  pte_tensor *both[] = {o, ix};
  pte_evalue *ret = ktest_ev_tensor_list(both, 2);
  pte_evalue *args[] = {ktest_ev_tensor(in), k, s, p, d, ktest_ev_bool(ceil), eo, ei, ret};
  return ktest_run(pool_fn("aten::max_pool2d_with_indices.out"), args, 9);
}

TEST(max_pool_hand_values) {
  int32_t si[] = {1, 1, 4, 4}, so[] = {1, 1, 2, 2};
  double v[16];
  for (int i = 0; i < 16; i++) v[i] = i + 1;
  pte_tensor *in = ktest_tensor(PTE_DTYPE_FLOAT, 4, si, NULL, v);
  pte_tensor *o = ktest_tensor(PTE_DTYPE_FLOAT, 4, so, NULL, NULL);
  pte_tensor *ix = ktest_tensor(PTE_DTYPE_LONG, 4, so, NULL, NULL);
  /* kernel 2, stride [] (= kernel) */
  CHECK_OK(run_max_pool(in, o, ix, IL(2, 2), IL0(), IL(0, 0), IL(1, 1), false));
  CHECK(ktest_expect(o, (double[]){6, 8, 14, 16}, 4, 0));
  CHECK(ktest_expect_i64(ix, (int64_t[]){5, 7, 13, 15}, 4));
  /* dilation 2, stride 1, single-value lists: windows {(0,0),(0,2),(2,0),(2,2)} etc. */
  CHECK_OK(run_max_pool(in, o, ix, IL(2), IL(1), IL(0), IL(2), false));
  CHECK(ktest_expect(o, (double[]){11, 12, 15, 16}, 4, 0));
  CHECK(ktest_expect_i64(ix, (int64_t[]){10, 11, 14, 15}, 4));
}

TEST(max_pool_ceil_mode_and_padding) {
  int32_t si[] = {1, 1, 5, 5}, s3[] = {1, 1, 3, 3}, s2[] = {1, 1, 2, 2};
  double v[25];
  for (int i = 0; i < 25; i++) v[i] = i;
  pte_tensor *in = ktest_tensor(PTE_DTYPE_FLOAT, 4, si, NULL, v);
  pte_tensor *o3 = ktest_tensor(PTE_DTYPE_FLOAT, 4, s3, NULL, NULL);
  pte_tensor *i3 = ktest_tensor(PTE_DTYPE_LONG, 4, s3, NULL, NULL);
  /* ceil: windows start at 0, 2, 4 (the last one holds only row/col 4) */
  CHECK_OK(run_max_pool(in, o3, i3, IL(2, 2), IL(2, 2), IL(0, 0), IL(1, 1), true));
  CHECK(ktest_expect(o3, (double[]){6, 8, 9, 16, 18, 19, 21, 23, 24}, 9, 0));
  CHECK(ktest_expect_i64(i3, (int64_t[]){6, 8, 9, 16, 18, 19, 21, 23, 24}, 9));
  /* floor: 2x2 */
  pte_tensor *o2 = ktest_tensor(PTE_DTYPE_FLOAT, 4, s2, NULL, NULL);
  pte_tensor *i2 = ktest_tensor(PTE_DTYPE_LONG, 4, s2, NULL, NULL);
  CHECK_OK(run_max_pool(in, o2, i2, IL(2, 2), IL(2, 2), IL(0, 0), IL(1, 1), false));
  CHECK(ktest_expect(o2, (double[]){6, 8, 16, 18}, 4, 0));
  /* ceil with padding 1, kernel 3, stride 2 on 5: out = ceil((5+2-3)/2)+1 = 3, and window 2
   * starts at 3 < 5+1 so it is kept */
  CHECK_OK(run_max_pool(in, o3, i3, IL(3, 3), IL(2, 2), IL(1, 1), IL(1, 1), true));
  CHECK(ktest_expect(o3, (double[]){6, 8, 9, 16, 18, 19, 21, 23, 24}, 9, 0));
  /* 4 wide, k2 s2 p1: ceil((4+2-2)/2)+1 = 3 windows starting at -1, 1, 3 (rows {0}, {1,2},
   * {3}); a 4th would start at 5 >= 4+1, in the right padding, so ceil mode drops it */
  int32_t s44[] = {1, 1, 4, 4};
  pte_tensor *in4 = ktest_tensor(PTE_DTYPE_FLOAT, 4, s44, NULL, v);
  CHECK_OK(run_max_pool(in4, o3, i3, IL(2, 2), IL(2, 2), IL(1, 1), IL(1, 1), true));
  CHECK(ktest_expect(o3, (double[]){0, 2, 3, 8, 10, 11, 12, 14, 15}, 9, 0));
  /* 5 wide, k2 s2 p1: ceil((5+2-2)/2)+1 = 4, but the 4th window would start at 6 >= 5+1 (in
   * the right padding) and is dropped -> 3 windows starting at -1, 1, 3: {0}, {1,2}, {3,4} */
  CHECK_OK(run_max_pool(in, o3, i3, IL(2, 2), IL(2, 2), IL(1, 1), IL(1, 1), true));
  CHECK(ktest_expect(o3, (double[]){0, 2, 4, 10, 12, 14, 20, 22, 24}, 9, 0));
  pte_tensor *a3 = ktest_tensor(PTE_DTYPE_FLOAT, 4, s3, NULL, NULL);
  pte_evalue *ea3 = ktest_ev_tensor(a3);
  pte_evalue *aargs[] = {ktest_ev_tensor(in), IL(2, 2), IL(2, 2), IL(1, 1), ktest_ev_bool(true),
                         ktest_ev_bool(true), ktest_ev_none(), ea3, ea3};
  CHECK_OK(ktest_run(pool_fn("aten::avg_pool2d.out"), aargs, 9));
  /* avg with count_include_pad: window (0,0) covers pad row/col + x[0][0] -> 0/4; window (2,2)
   * rows/cols 3..4 (end clipped at 5+1=6 -> 2 wide, no pad) -> (18+19+23+24)/4 = 21 */
  CHECK_NEAR(ktest_get(a3, 0), 0.0, 0);
  CHECK_NEAR(ktest_get(a3, 1), (1 + 2) / 4.0, 1e-6);
  CHECK_NEAR(ktest_get(a3, 8), 21.0, 1e-6);
  /* all-negative input with padding: padding acts as -inf, never as 0 */
  int32_t s22[] = {1, 1, 2, 2};
  pte_tensor *neg = ktest_tensor(PTE_DTYPE_FLOAT, 4, s22, NULL, (double[]){-4, -2, -3, -5});
  pte_tensor *on = ktest_tensor(PTE_DTYPE_FLOAT, 4, s22, NULL, NULL);
  pte_tensor *in_ = ktest_tensor(PTE_DTYPE_LONG, 4, s22, NULL, NULL);
  CHECK_OK(run_max_pool(neg, on, in_, IL(3, 3), IL(1, 1), IL(1, 1), IL(1, 1), false));
  CHECK(ktest_expect(on, (double[]){-2, -2, -2, -2}, 4, 0));
  CHECK(ktest_expect_i64(in_, (int64_t[]){1, 1, 1, 1}, 4));
}

TEST(max_pool_nan_int_and_3d) {
  int32_t si[] = {1, 2, 2}, so[] = {1, 1, 1};
  /* 3-D input [C, H, W]; a NaN wins */
  pte_tensor *in = ktest_tensor(PTE_DTYPE_DOUBLE, 3, si, NULL, (double[]){1, NAN, 3, 2});
  pte_tensor *o = ktest_tensor(PTE_DTYPE_DOUBLE, 3, so, NULL, NULL);
  pte_tensor *ix = ktest_tensor(PTE_DTYPE_LONG, 3, so, NULL, NULL);
  CHECK_OK(run_max_pool(in, o, ix, IL(2, 2), IL0(), IL(0), IL(1), false));
  CHECK(isnan(ktest_get(o, 0)));
  CHECK_EQ_INT(ktest_get_i64(ix, 0), 1);
  /* int64 values beyond 2^53 compare exactly */
  int64_t big[] = {((int64_t)1 << 60) + 1, ((int64_t)1 << 60) + 3, ((int64_t)1 << 60) + 2, 5};
  pte_tensor *li = ktest_tensor_i64(PTE_DTYPE_LONG, 3, si, NULL, big);
  pte_tensor *lo = ktest_tensor(PTE_DTYPE_LONG, 3, so, NULL, NULL);
  CHECK_OK(run_max_pool(li, lo, ix, IL(2, 2), IL0(), IL(0), IL(1), false));
  CHECK_EQ_INT(ktest_get_i64(lo, 0), ((int64_t)1 << 60) + 3);
  CHECK_EQ_INT(ktest_get_i64(ix, 0), 1);
  /* half */
  pte_tensor *hi = ktest_tensor(PTE_DTYPE_HALF, 3, si, NULL, (double[]){-1, -0.5, 0.25, -7});
  pte_tensor *ho = ktest_tensor(PTE_DTYPE_HALF, 3, so, NULL, NULL);
  CHECK_OK(run_max_pool(hi, ho, ix, IL(2, 2), IL0(), IL(0), IL(1), false));
  CHECK(ktest_expect(ho, (double[]){0.25}, 1, 0));
  CHECK_EQ_INT(ktest_get_i64(ix, 0), 2);
}

TEST(max_pool_channels_last_big) {
  /* the pr17248 maxpool shape: [1,64,112,112] -> [1,64,56,56], kernel 3, stride 2, padding 1 */
  const int C = 64, H = 112, W = 112, OH = 56, OW = 56;
  size_t n = (size_t)C * H * W, no = (size_t)C * OH * OW;
  double *x = ktest_rnd_array(n, rnd), *y = (double *)malloc(no * sizeof(double));
  int64_t *iy = (int64_t *)malloc(no * sizeof(int64_t));
  ref_max_pool(x, y, iy, C, H, W, 3, 3, 2, 2, 1, 1, 1, 1, OH, OW);
  int32_t si[] = {1, C, H, W}, so[] = {1, C, OH, OW};
  bool ok = true;
  for (int layout = 0; layout < 2 && ok; layout++) {
    const uint8_t *ord = layout ? ktest_cl4 : NULL;
    pte_tensor *in = ktest_tensor(PTE_DTYPE_FLOAT, 4, si, ord, x);
    pte_tensor *o = ktest_tensor(PTE_DTYPE_FLOAT, 4, so, ord, NULL);
    pte_tensor *ix = ktest_tensor(PTE_DTYPE_LONG, 4, so, ord, NULL);
    ok = run_max_pool(in, o, ix, IL(3, 3), IL(2, 2), IL(1, 1), IL(1, 1), false) == PTE_OK &&
         ktest_expect(o, y, no, 0) && ktest_expect_i64(ix, iy, no);
  }
  free(x);
  free(y);
  free(iy);
  CHECK(ok);
}

TEST(max_pool_errors) {
  int32_t si[] = {1, 1, 4, 4}, so[] = {1, 1, 2, 2};
  pte_tensor *in = ktest_tensor(PTE_DTYPE_FLOAT, 4, si, NULL, NULL);
  pte_tensor *o = ktest_tensor(PTE_DTYPE_FLOAT, 4, so, NULL, NULL);
  pte_tensor *ix = ktest_tensor(PTE_DTYPE_LONG, 4, so, NULL, NULL);
  pte_tensor *ix32 = ktest_tensor(PTE_DTYPE_INT, 4, so, NULL, NULL);
  CHECK_STATUS(run_max_pool(in, o, ix32, IL(2, 2), IL0(), IL(0), IL(1), false), PTE_ERR_INVALID_ARGUMENT);
  /* padding more than half the kernel */
  CHECK_STATUS(run_max_pool(in, o, ix, IL(2, 2), IL0(), IL(2), IL(1), false), PTE_ERR_INVALID_ARGUMENT);
  /* kernel larger than the input */
  CHECK_STATUS(run_max_pool(in, o, ix, IL(5, 5), IL0(), IL(0), IL(1), false), PTE_ERR_INVALID_ARGUMENT);
  /* zero stride, three-value kernel list */
  CHECK_STATUS(run_max_pool(in, o, ix, IL(2, 2), IL(0), IL(0), IL(1), false), PTE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(run_max_pool(in, o, ix, IL(2, 2, 2), IL0(), IL(0), IL(1), false), PTE_ERR_INVALID_ARGUMENT);
  /* 2-D input */
  int32_t s2[] = {4, 4};
  pte_tensor *in2 = ktest_tensor(PTE_DTYPE_FLOAT, 2, s2, NULL, NULL);
  CHECK_STATUS(run_max_pool(in2, o, ix, IL(2, 2), IL0(), IL(0), IL(1), false), PTE_ERR_INVALID_ARGUMENT);
  /* bool input */
  pte_tensor *bi = ktest_tensor(PTE_DTYPE_BOOL, 4, si, NULL, NULL);
  pte_tensor *bo = ktest_tensor(PTE_DTYPE_BOOL, 4, so, NULL, NULL);
  CHECK_STATUS(run_max_pool(bi, bo, ix, IL(2, 2), IL0(), IL(0), IL(1), false), PTE_ERR_INVALID_ARGUMENT);
}

static pte_status run_avg_pool(pte_tensor *in, pte_tensor *o, pte_evalue *k, pte_evalue *s,
                               pte_evalue *p, bool ceil, bool cip, pte_evalue *div) {
  pte_evalue *eo = ktest_ev_tensor(o);
  pte_evalue *args[] = {ktest_ev_tensor(in), k, s, p, ktest_ev_bool(ceil), ktest_ev_bool(cip),
                        div, eo, eo};
  return ktest_run(pool_fn("aten::avg_pool2d.out"), args, 9);
}

TEST(avg_pool_hand_values) {
  int32_t s4[] = {1, 1, 4, 4}, s2[] = {1, 1, 2, 2};
  double v[25];
  for (int i = 0; i < 25; i++) v[i] = i;
  pte_tensor *in = ktest_tensor(PTE_DTYPE_FLOAT, 4, s4, NULL, v);
  pte_tensor *o = ktest_tensor(PTE_DTYPE_FLOAT, 4, s2, NULL, NULL);
  CHECK_OK(run_avg_pool(in, o, IL(2, 2), IL0(), IL(0), false, true, ktest_ev_none()));
  /* (0+1+4+5)/4 = 2.5, (2+3+6+7)/4 = 4.5, 10.5, 12.5 */
  CHECK(ktest_expect(o, (double[]){2.5, 4.5, 10.5, 12.5}, 4, 0));
  /* 3x3 of ones, kernel 3, stride 2, padding 1: each window holds 4 real cells of 9 */
  int32_t s3[] = {1, 1, 3, 3};
  pte_tensor *ones = ktest_tensor(PTE_DTYPE_FLOAT, 4, s3, NULL, (double[]){1, 1, 1, 1, 1, 1, 1, 1, 1});
  CHECK_OK(run_avg_pool(ones, o, IL(3), IL(2), IL(1), false, true, ktest_ev_none()));
  CHECK(ktest_expect(o, (double[]){4.0 / 9, 4.0 / 9, 4.0 / 9, 4.0 / 9}, 4, 1e-7));
  CHECK_OK(run_avg_pool(ones, o, IL(3), IL(2), IL(1), false, false, ktest_ev_none()));
  CHECK(ktest_expect(o, (double[]){1, 1, 1, 1}, 4, 0));
  CHECK_OK(run_avg_pool(ones, o, IL(3), IL(2), IL(1), false, true, ktest_ev_int(2)));
  CHECK(ktest_expect(o, (double[]){2, 2, 2, 2}, 4, 0));
  /* ceil mode on 5x5 (values 0..24), kernel 2 stride 2: edge windows are clipped; with
   * count_include_pad the divisor is the clipped size too (no padding to include) */
  int32_t s5[] = {1, 1, 5, 5}, s33[] = {1, 1, 3, 3};
  pte_tensor *in5 = ktest_tensor(PTE_DTYPE_DOUBLE, 4, s5, NULL, v);
  pte_tensor *o3 = ktest_tensor(PTE_DTYPE_DOUBLE, 4, s33, NULL, NULL);
  CHECK_OK(run_avg_pool(in5, o3, IL(2, 2), IL(2, 2), IL(0, 0), true, true, ktest_ev_none()));
  /* row 0: (0+1+5+6)/4=3, (2+3+7+8)/4=5, (4+9)/2=6.5; row 2: (20+21)/2=20.5, 22.5, 24 */
  CHECK(ktest_expect(o3, (double[]){3, 5, 6.5, 13, 15, 16.5, 20.5, 22.5, 24}, 9, 0));
}

TEST(avg_pool_int_channels_last_and_errors) {
  int32_t s4[] = {1, 1, 2, 2}, s1[] = {1, 1, 1, 1};
  pte_tensor *in = ktest_tensor(PTE_DTYPE_LONG, 4, s4, NULL, (double[]){1, 2, 3, 5});
  pte_tensor *o = ktest_tensor(PTE_DTYPE_LONG, 4, s1, NULL, NULL);
  CHECK_OK(run_avg_pool(in, o, IL(2, 2), IL0(), IL(0), false, true, ktest_ev_none()));
  CHECK_EQ_INT(ktest_get_i64(o, 0), 2); /* 11 / 4 truncates */
  pte_tensor *neg = ktest_tensor(PTE_DTYPE_LONG, 4, s4, NULL, (double[]){-1, -2, -3, -5});
  CHECK_OK(run_avg_pool(neg, o, IL(2, 2), IL0(), IL(0), false, true, ktest_ev_none()));
  CHECK_EQ_INT(ktest_get_i64(o, 0), -2); /* -11 / 4 truncates toward zero */
  /* channels-last, 2 channels: each channel averaged separately */
  int32_t sc[] = {1, 2, 2, 2}, sco[] = {1, 2, 1, 1};
  pte_tensor *cl = ktest_tensor(PTE_DTYPE_FLOAT, 4, sc, ktest_cl4, (double[]){1, 2, 3, 4, 10, 20, 30, 40});
  pte_tensor *clo = ktest_tensor(PTE_DTYPE_FLOAT, 4, sco, ktest_cl4, NULL);
  CHECK_OK(run_avg_pool(cl, clo, IL(2, 2), IL0(), IL(0), false, true, ktest_ev_none()));
  CHECK(ktest_expect(clo, (double[]){2.5, 25}, 2, 0));
  /* divisor 0, padding > kernel/2 */
  pte_tensor *f = ktest_tensor(PTE_DTYPE_FLOAT, 4, s4, NULL, NULL);
  pte_tensor *fo = ktest_tensor(PTE_DTYPE_FLOAT, 4, s1, NULL, NULL);
  CHECK_STATUS(run_avg_pool(f, fo, IL(2, 2), IL0(), IL(0), false, true, ktest_ev_int(0)),
               PTE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(run_avg_pool(f, fo, IL(2, 2), IL0(), IL(2), false, true, ktest_ev_none()),
               PTE_ERR_INVALID_ARGUMENT);
  /* out dtype differs */
  CHECK_STATUS(run_avg_pool(in, fo, IL(2, 2), IL0(), IL(0), false, true, ktest_ev_none()),
               PTE_ERR_INVALID_ARGUMENT);
}

TEST(adaptive_avg_pool) {
  pte_op_fn fn = pool_fn("aten::_adaptive_avg_pool2d.out");
  CHECK(pool_fn("aten::adaptive_avg_pool2d.out") != NULL);
  double v[25];
  for (int i = 0; i < 25; i++) v[i] = i;
  int32_t s4[] = {1, 1, 4, 4}, s1[] = {1, 1, 1, 1};
  pte_tensor *in = ktest_tensor(PTE_DTYPE_FLOAT, 4, s4, NULL, v);
  pte_tensor *o = ktest_tensor(PTE_DTYPE_FLOAT, 4, s1, NULL, NULL);
  pte_evalue *eo = ktest_ev_tensor(o);
  pte_evalue *args[] = {ktest_ev_tensor(in), IL(1, 1), eo, eo};
  CHECK_OK(ktest_run(fn, args, 4));
  CHECK(ktest_expect(o, (double[]){7.5}, 1, 0)); /* mean of 0..15 */
  /* 5x5 -> 2x2: rows/cols {0,1,2} and {2,3,4} overlap at 2 */
  int32_t s5[] = {1, 5, 5}, s2[] = {1, 2, 2};
  pte_tensor *in5 = ktest_tensor(PTE_DTYPE_DOUBLE, 3, s5, NULL, v);
  pte_tensor *o2 = ktest_tensor(PTE_DTYPE_DOUBLE, 3, s2, NULL, NULL);
  pte_evalue *eo2 = ktest_ev_tensor(o2);
  pte_evalue *args2[] = {ktest_ev_tensor(in5), IL(2, 2), eo2, eo2};
  CHECK_OK(ktest_run(fn, args2, 4));
  CHECK(ktest_expect(o2, (double[]){6, 8, 16, 18}, 4, 0));
  /* channels-last global pooling, 3 channels */
  int32_t sc[] = {2, 3, 2, 2}, sco[] = {2, 3, 1, 1};
  double cv[24], ref[6];
  for (int i = 0; i < 24; i++) cv[i] = (i * 5) % 7;
  for (int p = 0; p < 6; p++) ref[p] = (cv[p * 4] + cv[p * 4 + 1] + cv[p * 4 + 2] + cv[p * 4 + 3]) / 4;
  pte_tensor *cl = ktest_tensor(PTE_DTYPE_FLOAT, 4, sc, ktest_cl4, cv);
  pte_tensor *clo = ktest_tensor(PTE_DTYPE_FLOAT, 4, sco, ktest_cl4, NULL);
  pte_evalue *eo3 = ktest_ev_tensor(clo);
  pte_evalue *args3[] = {ktest_ev_tensor(cl), IL(1, 1), eo3, eo3};
  CHECK_OK(ktest_run(fn, args3, 4));
  CHECK(ktest_expect(clo, ref, 6, 1e-6));
  /* output_size with 1 value is rejected */
  pte_evalue *args4[] = {ktest_ev_tensor(in), IL(1), eo, eo};
  CHECK_STATUS(ktest_run(fn, args4, 4), PTE_ERR_INVALID_ARGUMENT);
}

/* ======================================================================================== */
/* normalisation                                                                             */

TEST(layer_norm_hand_values) {
  pte_op_fn fn = norm_fn("aten::native_layer_norm.out");
  int32_t si[] = {2, 3}, sm[] = {2, 1}, s3[] = {3};
  pte_tensor *in = ktest_tensor(PTE_DTYPE_FLOAT, 2, si, NULL, (double[]){1, 2, 3, 4, 6, 8});
  pte_tensor *o = ktest_tensor(PTE_DTYPE_FLOAT, 2, si, NULL, NULL);
  pte_tensor *mean = ktest_tensor(PTE_DTYPE_FLOAT, 2, sm, NULL, NULL);
  pte_tensor *rstd = ktest_tensor(PTE_DTYPE_FLOAT, 2, sm, NULL, NULL);
  pte_tensor *list[] = {o, mean, rstd};
  pte_evalue *ret = ktest_ev_tensor_list(list, 3);
  pte_evalue *args[] = {ktest_ev_tensor(in), IL(3), ktest_ev_none(), ktest_ev_none(),
                        ktest_ev_double(0.0), ktest_ev_tensor(o), ktest_ev_tensor(mean),
                        ktest_ev_tensor(rstd), ret};
  CHECK_OK(ktest_run(fn, args, 9));
  /* row 0: mean 2, var 2/3, rstd sqrt(1.5); row 1: mean 6, var 8/3, rstd sqrt(3/8) */
  const double r0 = sqrt(1.5), r1 = sqrt(3.0 / 8.0);
  CHECK(ktest_expect(o, (double[]){-r0, 0, r0, -2 * r1, 0, 2 * r1}, 6, 1e-6));
  CHECK(ktest_expect(mean, (double[]){2, 6}, 2, 1e-6));
  CHECK(ktest_expect(rstd, (double[]){r0, r1}, 2, 1e-6));
  /* weight and bias, eps 1 (var 2/3 + 1 = 5/3) */
  pte_tensor *w = ktest_tensor(PTE_DTYPE_FLOAT, 1, s3, NULL, (double[]){1, 2, 3});
  pte_tensor *b = ktest_tensor(PTE_DTYPE_FLOAT, 1, s3, NULL, (double[]){0.5, 0, -0.5});
  pte_evalue *args2[] = {ktest_ev_tensor(in), IL(3), ktest_ev_tensor(w), ktest_ev_tensor(b),
                         ktest_ev_double(1.0), ktest_ev_tensor(o), ktest_ev_tensor(mean),
                         ktest_ev_tensor(rstd), ret};
  CHECK_OK(ktest_run(fn, args2, 9));
  const double q0 = 1 / sqrt(5.0 / 3.0), q1 = 1 / sqrt(8.0 / 3.0 + 1);
  CHECK(ktest_expect(o, (double[]){-q0 + 0.5, 0, 3 * q0 - 0.5, -2 * q1 + 0.5, 0, 6 * q1 - 0.5}, 6, 1e-6));
  CHECK(ktest_expect(rstd, (double[]){q0, q1}, 2, 1e-6));
  /* large offset: values 1e4 + {1,2,3} normalise like {1,2,3} (two-pass variance) */
  pte_tensor *big = ktest_tensor(PTE_DTYPE_FLOAT, 2, si, NULL,
                                 (double[]){10001, 10002, 10003, 10004, 10006, 10008});
  pte_evalue *args3[] = {ktest_ev_tensor(big), IL(3), ktest_ev_none(), ktest_ev_none(),
                         ktest_ev_double(0.0), ktest_ev_tensor(o), ktest_ev_tensor(mean),
                         ktest_ev_tensor(rstd), ret};
  CHECK_OK(ktest_run(fn, args3, 9));
  CHECK(ktest_expect(o, (double[]){-r0, 0, r0, -2 * r1, 0, 2 * r1}, 6, 1e-5));
}

TEST(layer_norm_multi_dim_channels_last_and_errors) {
  pte_op_fn fn = norm_fn("aten::native_layer_norm.out");
  /* normalise over the last two dims of [2,2,1,3] stored channels-last; weight [1,3] */
  int32_t si[] = {2, 2, 1, 3}, sm[] = {2, 2, 1, 1}, sw[] = {1, 3};
  double x[12];
  for (int i = 0; i < 12; i++) x[i] = (i * 7) % 5 + 0.5 * i;
  double ref[12], rm[4], rr[4];
  const double wv[3] = {2, -1, 0.5};
  for (int r = 0; r < 4; r++) {
    double m = (x[r * 3] + x[r * 3 + 1] + x[r * 3 + 2]) / 3, var = 0;
    for (int j = 0; j < 3; j++) var += (x[r * 3 + j] - m) * (x[r * 3 + j] - m);
    var /= 3;
    rm[r] = m;
    rr[r] = 1 / sqrt(var + 1e-5);
    for (int j = 0; j < 3; j++) ref[r * 3 + j] = (x[r * 3 + j] - m) * rr[r] * wv[j];
  }
  pte_tensor *in = ktest_tensor(PTE_DTYPE_FLOAT, 4, si, ktest_cl4, x);
  pte_tensor *o = ktest_tensor(PTE_DTYPE_FLOAT, 4, si, ktest_cl4, NULL);
  pte_tensor *mean = ktest_tensor(PTE_DTYPE_FLOAT, 4, sm, NULL, NULL);
  pte_tensor *rstd = ktest_tensor(PTE_DTYPE_FLOAT, 4, sm, NULL, NULL);
  pte_tensor *w = ktest_tensor(PTE_DTYPE_FLOAT, 2, sw, NULL, wv);
  pte_evalue *eo = ktest_ev_tensor(o);
  pte_evalue *args[] = {ktest_ev_tensor(in), IL(1, 3), ktest_ev_tensor(w), ktest_ev_none(),
                        ktest_ev_double(1e-5), eo, ktest_ev_tensor(mean), ktest_ev_tensor(rstd)};
  CHECK_OK(ktest_run(fn, args, 8));
  CHECK(ktest_expect(o, ref, 12, 1e-5));
  CHECK(ktest_expect(mean, rm, 4, 1e-6));
  CHECK(ktest_expect(rstd, rr, 4, 1e-4));
  /* double and half */
  pte_tensor *ind = ktest_tensor(PTE_DTYPE_DOUBLE, 4, si, NULL, x);
  pte_tensor *od = ktest_tensor(PTE_DTYPE_DOUBLE, 4, si, NULL, NULL);
  pte_tensor *wd = ktest_tensor(PTE_DTYPE_DOUBLE, 2, sw, NULL, wv);
  pte_tensor *md = ktest_tensor(PTE_DTYPE_DOUBLE, 4, sm, NULL, NULL);
  pte_tensor *rd = ktest_tensor(PTE_DTYPE_DOUBLE, 4, sm, NULL, NULL);
  pte_evalue *argsd[] = {ktest_ev_tensor(ind), IL(1, 3), ktest_ev_tensor(wd), ktest_ev_none(),
                         ktest_ev_double(1e-5), ktest_ev_tensor(od), ktest_ev_tensor(md),
                         ktest_ev_tensor(rd)};
  CHECK_OK(ktest_run(fn, argsd, 8));
  CHECK(ktest_expect(od, ref, 12, 1e-12));
  /* normalized_shape not matching the trailing dims */
  pte_evalue *bad[] = {ktest_ev_tensor(in), IL(2, 3), ktest_ev_none(), ktest_ev_none(),
                       ktest_ev_double(1e-5), eo, ktest_ev_tensor(mean), ktest_ev_tensor(rstd)};
  CHECK_STATUS(ktest_run(fn, bad, 8), PTE_ERR_INVALID_ARGUMENT);
  /* weight of the wrong shape */
  int32_t s3[] = {3};
  pte_tensor *w3 = ktest_tensor(PTE_DTYPE_FLOAT, 1, s3, NULL, NULL);
  pte_evalue *bad2[] = {ktest_ev_tensor(in), IL(1, 3), ktest_ev_tensor(w3), ktest_ev_none(),
                        ktest_ev_double(1e-5), eo, ktest_ev_tensor(mean), ktest_ev_tensor(rstd)};
  CHECK_STATUS(ktest_run(fn, bad2, 8), PTE_ERR_INVALID_ARGUMENT);
  /* integer input */
  pte_tensor *ii = ktest_tensor(PTE_DTYPE_INT, 4, si, NULL, NULL);
  pte_evalue *bad3[] = {ktest_ev_tensor(ii), IL(3), ktest_ev_none(), ktest_ev_none(),
                        ktest_ev_double(1e-5), eo, ktest_ev_tensor(mean), ktest_ev_tensor(rstd)};
  CHECK_STATUS(ktest_run(fn, bad3, 8), PTE_ERR_INVALID_ARGUMENT);
  /* too few args */
  CHECK_STATUS(ktest_run(fn, args, 7), PTE_ERR_INVALID_ARGUMENT);
}

TEST(batch_norm_no_training) {
  pte_op_fn fn = norm_fn("aten::_native_batch_norm_legit_no_training.out");
  /* [N=2, C=2, H=1, W=2]; channel 0: mean 1, var 4, weight 2, bias 0.5 -> (x-1)/2*2+0.5 = x-0.5;
   * channel 1: mean 0, var 0.25, no weight -> x/0.5 = 2x, bias 0 */
  int32_t si[] = {2, 2, 1, 2}, sc[] = {2}, s0[] = {0};
  double x[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  pte_tensor *w = ktest_tensor(PTE_DTYPE_FLOAT, 1, sc, NULL, (double[]){2, 1});
  pte_tensor *b = ktest_tensor(PTE_DTYPE_FLOAT, 1, sc, NULL, (double[]){0.5, 0});
  pte_tensor *rm = ktest_tensor(PTE_DTYPE_FLOAT, 1, sc, NULL, (double[]){1, 0});
  pte_tensor *rv = ktest_tensor(PTE_DTYPE_FLOAT, 1, sc, NULL, (double[]){4, 0.25});
  for (int layout = 0; layout < 2; layout++) {
    const uint8_t *ord = layout ? ktest_cl4 : NULL;
    pte_tensor *in = ktest_tensor(PTE_DTYPE_FLOAT, 4, si, ord, x);
    pte_tensor *o = ktest_tensor(PTE_DTYPE_FLOAT, 4, si, ord, NULL);
    pte_tensor *o1 = ktest_tensor(PTE_DTYPE_FLOAT, 1, s0, NULL, NULL);
    pte_tensor *o2 = ktest_tensor(PTE_DTYPE_FLOAT, 1, s0, NULL, NULL);
    pte_evalue *args[] = {ktest_ev_tensor(in), ktest_ev_tensor(w), ktest_ev_tensor(b),
                          ktest_ev_tensor(rm), ktest_ev_tensor(rv), ktest_ev_double(0.1),
                          ktest_ev_double(0.0), ktest_ev_tensor(o), ktest_ev_tensor(o1),
                          ktest_ev_tensor(o2)};
    CHECK_OK(ktest_run(fn, args, 10));
    /* x[n][c][0][w]: n0c0 {1,2}, n0c1 {3,4}, n1c0 {5,6}, n1c1 {7,8} */
    CHECK(ktest_expect(o, (double[]){0.5, 1.5, 6, 8, 4.5, 5.5, 14, 16}, 8, 1e-6));
    CHECK_EQ_INT(o1->numel, 0);
  }
  /* weight/bias None, double, eps 1: (x - mean)/sqrt(var + 1) */
  pte_tensor *ind = ktest_tensor(PTE_DTYPE_DOUBLE, 4, si, NULL, x);
  pte_tensor *od = ktest_tensor(PTE_DTYPE_DOUBLE, 4, si, NULL, NULL);
  pte_tensor *rmd = ktest_tensor(PTE_DTYPE_DOUBLE, 1, sc, NULL, (double[]){1, 0});
  pte_tensor *rvd = ktest_tensor(PTE_DTYPE_DOUBLE, 1, sc, NULL, (double[]){3, 0});
  pte_tensor *e1 = ktest_tensor_dyn(PTE_DTYPE_DOUBLE, 1, sc, NULL, 2);
  pte_tensor *e2 = ktest_tensor_dyn(PTE_DTYPE_DOUBLE, 1, sc, NULL, 2);
  pte_evalue *argsd[] = {ktest_ev_tensor(ind), ktest_ev_none(), ktest_ev_none(),
                         ktest_ev_tensor(rmd), ktest_ev_tensor(rvd), ktest_ev_double(0.1),
                         ktest_ev_double(1.0), ktest_ev_tensor(od), ktest_ev_tensor(e1),
                         ktest_ev_tensor(e2)};
  CHECK_OK(ktest_run(fn, argsd, 10));
  CHECK(ktest_expect(od, (double[]){0, 0.5, 3, 4, 2, 2.5, 7, 8}, 8, 1e-12));
  CHECK_EQ_INT(e1->sizes[0], 0); /* resized to [0] */
  /* running_mean of the wrong size */
  int32_t s3[] = {3};
  pte_tensor *rm3 = ktest_tensor(PTE_DTYPE_DOUBLE, 1, s3, NULL, NULL);
  pte_evalue *bad[] = {ktest_ev_tensor(ind), ktest_ev_none(), ktest_ev_none(), ktest_ev_tensor(rm3),
                       ktest_ev_tensor(rvd), ktest_ev_double(0.1), ktest_ev_double(1.0),
                       ktest_ev_tensor(od), ktest_ev_tensor(e1), ktest_ev_tensor(e2)};
  CHECK_STATUS(ktest_run(fn, bad, 10), PTE_ERR_INVALID_ARGUMENT);
}

TEST(group_norm) {
  pte_op_fn fn = norm_fn("aten::native_group_norm.out");
  /* [1, 4, 1, 2], 2 groups: group 0 = {1,2,3,4} (mean 2.5, var 1.25), group 1 = {10,10,10,14}
   * (mean 11, var 3); weight [1,1,2,2], bias [0,0,1,1] */
  int32_t si[] = {1, 4, 1, 2}, sc[] = {4}, sm[] = {1, 2};
  pte_tensor *in = ktest_tensor(PTE_DTYPE_FLOAT, 4, si, NULL, (double[]){1, 2, 3, 4, 10, 10, 10, 14});
  pte_tensor *w = ktest_tensor(PTE_DTYPE_FLOAT, 1, sc, NULL, (double[]){1, 1, 2, 2});
  pte_tensor *b = ktest_tensor(PTE_DTYPE_FLOAT, 1, sc, NULL, (double[]){0, 0, 1, 1});
  pte_tensor *o = ktest_tensor(PTE_DTYPE_FLOAT, 4, si, ktest_cl4, NULL);
  pte_tensor *mean = ktest_tensor(PTE_DTYPE_FLOAT, 2, sm, NULL, NULL);
  pte_tensor *rstd = ktest_tensor(PTE_DTYPE_FLOAT, 2, sm, NULL, NULL);
  pte_evalue *args[] = {ktest_ev_tensor(in), ktest_ev_tensor(w), ktest_ev_tensor(b),
                        ktest_ev_int(1), ktest_ev_int(4), ktest_ev_int(2), ktest_ev_int(2),
                        ktest_ev_double(0.0), ktest_ev_tensor(o), ktest_ev_tensor(mean),
                        ktest_ev_tensor(rstd)};
  CHECK_OK(ktest_run(fn, args, 11));
  const double r0 = 1 / sqrt(1.25), r1 = 1 / sqrt(3.0);
  CHECK(ktest_expect(o, (double[]){-1.5 * r0, -0.5 * r0, 0.5 * r0, 1.5 * r0, 1 - 2 * r1, 1 - 2 * r1,
                                   1 - 2 * r1, 1 + 6 * r1}, 8, 1e-6));
  CHECK(ktest_expect(mean, (double[]){2.5, 11}, 2, 1e-6));
  CHECK(ktest_expect(rstd, (double[]){r0, r1}, 2, 1e-6));
  /* 3 groups do not divide 4 channels */
  pte_evalue *bad[] = {ktest_ev_tensor(in), ktest_ev_none(), ktest_ev_none(), ktest_ev_int(1),
                       ktest_ev_int(4), ktest_ev_int(2), ktest_ev_int(3), ktest_ev_double(0.0),
                       ktest_ev_tensor(o), ktest_ev_tensor(mean), ktest_ev_tensor(rstd)};
  CHECK_STATUS(ktest_run(fn, bad, 11), PTE_ERR_INVALID_ARGUMENT);
  /* HxW inconsistent with the input */
  pte_evalue *bad2[] = {ktest_ev_tensor(in), ktest_ev_none(), ktest_ev_none(), ktest_ev_int(1),
                        ktest_ev_int(4), ktest_ev_int(3), ktest_ev_int(2), ktest_ev_double(0.0),
                        ktest_ev_tensor(o), ktest_ev_tensor(mean), ktest_ev_tensor(rstd)};
  CHECK_STATUS(ktest_run(fn, bad2, 11), PTE_ERR_INVALID_ARGUMENT);
}

/* ======================================================================================== */
/* softmax                                                                                   */

static pte_status run_softmax(const char *name, pte_tensor *in, int64_t dim, bool h2f, pte_tensor *o) {
  pte_evalue *eo = ktest_ev_tensor(o);
  pte_evalue *args[] = {ktest_ev_tensor(in), ktest_ev_int(dim), ktest_ev_bool(h2f), eo, eo};
  return ktest_run(softmax_fn(name), args, 5);
}

TEST(softmax_stable_hand_values) {
  /* softmax([1,2,3]) = [e^-2, e^-1, 1] / (1 + e^-1 + e^-2); huge values shift to the same */
  int32_t s[] = {3, 3};
  pte_tensor *in = ktest_tensor(PTE_DTYPE_FLOAT, 2, s, NULL,
                                (double[]){1, 2, 3, 1000, 1001, 1002, -1e30, -1e30, -1e30});
  pte_tensor *o = ktest_tensor(PTE_DTYPE_FLOAT, 2, s, NULL, NULL);
  CHECK_OK(run_softmax("aten::_softmax.out", in, 1, false, o));
  const double p0 = 0.09003057317038046, p1 = 0.24472847105479767, p2 = 0.6652409557748219;
  CHECK(ktest_expect(o, (double[]){p0, p1, p2, p0, p1, p2, 1.0 / 3, 1.0 / 3, 1.0 / 3}, 9, 1e-6));
  CHECK_OK(run_softmax("aten::_log_softmax.out", in, -1, false, o));
  CHECK(ktest_expect(o, (double[]){log(p0), log(p1), log(p2), log(p0), log(p1), log(p2),
                                   -log(3.0), -log(3.0), -log(3.0)}, 9, 1e-5));
  /* -inf entries get probability 0 / log-probability -inf */
  int32_t s2[] = {2};
  pte_tensor *inf = ktest_tensor(PTE_DTYPE_DOUBLE, 1, s2, NULL, (double[]){-INFINITY, 0});
  pte_tensor *oi = ktest_tensor(PTE_DTYPE_DOUBLE, 1, s2, NULL, NULL);
  CHECK_OK(run_softmax("aten::_softmax.out", inf, 0, false, oi));
  CHECK(ktest_expect(oi, (double[]){0, 1}, 2, 0));
  CHECK_OK(run_softmax("aten::_log_softmax.out", inf, 0, false, oi));
  CHECK(isinf(ktest_get(oi, 0)) && ktest_get(oi, 0) < 0 && ktest_get(oi, 1) == 0);
}

TEST(softmax_dims_layouts_dtypes) {
  /* [2,3,2] over dim 1 (middle), with a permuted layout for in and a different one for out */
  static const uint8_t p1[3] = {2, 0, 1}, p2[3] = {1, 2, 0};
  int32_t s[] = {2, 3, 2};
  double x[12], ref[12], lref[12];
  for (int i = 0; i < 12; i++) x[i] = (i * 5) % 7 - 3;
  for (int a = 0; a < 2; a++)
    for (int c = 0; c < 2; c++) {
      double m = -INFINITY, sum = 0;
      for (int b = 0; b < 3; b++) m = fmax(m, x[a * 6 + b * 2 + c]);
      for (int b = 0; b < 3; b++) sum += exp(x[a * 6 + b * 2 + c] - m);
      for (int b = 0; b < 3; b++) {
        ref[a * 6 + b * 2 + c] = exp(x[a * 6 + b * 2 + c] - m) / sum;
        lref[a * 6 + b * 2 + c] = x[a * 6 + b * 2 + c] - m - log(sum);
      }
    }
  pte_tensor *in = ktest_tensor(PTE_DTYPE_FLOAT, 3, s, p1, x);
  pte_tensor *o = ktest_tensor(PTE_DTYPE_FLOAT, 3, s, p2, NULL);
  CHECK_OK(run_softmax("aten::_softmax.out", in, 1, false, o));
  CHECK(ktest_expect(o, ref, 12, 1e-6));
  CHECK_OK(run_softmax("aten::_log_softmax.out", in, -2, false, o));
  CHECK(ktest_expect(o, lref, 12, 1e-5));
  /* double, bf16 (computed in float, rounded once) */
  pte_tensor *ind = ktest_tensor(PTE_DTYPE_DOUBLE, 3, s, NULL, x);
  pte_tensor *od = ktest_tensor(PTE_DTYPE_DOUBLE, 3, s, NULL, NULL);
  CHECK_OK(run_softmax("aten::_softmax.out", ind, 1, false, od));
  CHECK(ktest_expect(od, ref, 12, 1e-12));
  pte_tensor *inb = ktest_tensor(PTE_DTYPE_BFLOAT16, 3, s, NULL, x);
  pte_tensor *ob = ktest_tensor(PTE_DTYPE_BFLOAT16, 3, s, NULL, NULL);
  CHECK_OK(run_softmax("aten::_softmax.out", inb, 1, false, ob));
  CHECK(ktest_expect(ob, ref, 12, 4e-3));
  /* half_to_float: half in, float out */
  pte_tensor *inh = ktest_tensor(PTE_DTYPE_HALF, 3, s, NULL, x);
  CHECK_OK(run_softmax("aten::_log_softmax.out", inh, 1, true, o));
  CHECK(ktest_expect(o, lref, 12, 1e-5));
  /* 0-dim input: softmax of a scalar is 1, log_softmax 0 */
  pte_tensor *sc = ktest_tensor(PTE_DTYPE_FLOAT, 0, NULL, NULL, (double[]){42});
  pte_tensor *so = ktest_tensor(PTE_DTYPE_FLOAT, 0, NULL, NULL, NULL);
  CHECK_OK(run_softmax("aten::_softmax.out", sc, -1, false, so));
  CHECK(ktest_expect(so, (double[]){1}, 1, 0));
}

TEST(softmax_corpus_shape) {
  /* pr17248_softmax: float[2,4096] over the last dim */
  int32_t s[] = {2, 4096};
  double *x = (double *)malloc(8192 * sizeof(double)), *ref = (double *)malloc(8192 * sizeof(double));
  for (int i = 0; i < 8192; i++) x[i] = ((i * 37) % 101) / 10.0 - 5.0;
  for (int r = 0; r < 2; r++) {
    double m = -INFINITY, sum = 0;
    for (int j = 0; j < 4096; j++) m = fmax(m, x[r * 4096 + j]);
    for (int j = 0; j < 4096; j++) sum += exp(x[r * 4096 + j] - m);
    for (int j = 0; j < 4096; j++) ref[r * 4096 + j] = exp(x[r * 4096 + j] - m) / sum;
  }
  pte_tensor *in = ktest_tensor(PTE_DTYPE_FLOAT, 2, s, NULL, x);
  pte_tensor *o = ktest_tensor(PTE_DTYPE_FLOAT, 2, s, NULL, NULL);
  pte_status st = run_softmax("aten::_softmax.out", in, 1, false, o);
  bool ok = st == PTE_OK && ktest_expect(o, ref, 8192, 1e-8);
  double total = 0;
  for (int j = 0; j < 4096; j++) total += ktest_get(o, (size_t)j);
  free(x);
  free(ref);
  CHECK(ok);
  CHECK_NEAR(total, 1.0, 1e-5);
}

TEST(softmax_errors) {
  int32_t s[] = {2, 3};
  pte_tensor *f = ktest_tensor(PTE_DTYPE_FLOAT, 2, s, NULL, NULL);
  pte_tensor *fo = ktest_tensor(PTE_DTYPE_FLOAT, 2, s, NULL, NULL);
  pte_tensor *i = ktest_tensor(PTE_DTYPE_LONG, 2, s, NULL, NULL);
  pte_tensor *d = ktest_tensor(PTE_DTYPE_DOUBLE, 2, s, NULL, NULL);
  CHECK_STATUS(run_softmax("aten::_softmax.out", i, 1, false, i), PTE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(run_softmax("aten::_softmax.out", f, 2, false, fo), PTE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(run_softmax("aten::_softmax.out", f, -3, false, fo), PTE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(run_softmax("aten::_softmax.out", f, 1, false, d), PTE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(run_softmax("aten::_log_softmax.out", f, 1, true, fo), PTE_ERR_INVALID_ARGUMENT);
  int32_t s2[] = {3, 2};
  pte_tensor *wrong = ktest_tensor(PTE_DTYPE_FLOAT, 2, s2, NULL, NULL);
  CHECK_STATUS(run_softmax("aten::_softmax.out", f, 1, false, wrong), PTE_ERR_INVALID_ARGUMENT);
}

int main(void) {
  RUN(conv2d_hand_values);
  RUN(conv_random_cases_nchw);
  RUN(conv_random_cases_channels_last);
  RUN(conv_weird_weight_layout_uses_direct_path);
  RUN(conv_half_bf16_and_int);
  RUN(conv_transposed);
  RUN(conv_transposed_random);
  RUN(conv_errors);
  RUN(max_pool_hand_values);
  RUN(max_pool_ceil_mode_and_padding);
  RUN(max_pool_nan_int_and_3d);
  RUN(max_pool_channels_last_big);
  RUN(max_pool_errors);
  RUN(avg_pool_hand_values);
  RUN(avg_pool_int_channels_last_and_errors);
  RUN(adaptive_avg_pool);
  RUN(layer_norm_hand_values);
  RUN(layer_norm_multi_dim_channels_last_and_errors);
  RUN(batch_norm_no_training);
  RUN(group_norm);
  RUN(softmax_stable_hand_values);
  RUN(softmax_dims_layouts_dtypes);
  RUN(softmax_corpus_shape);
  RUN(softmax_errors);
  ktest_free_all();
  return test_summary();
}
