/* Tests for the backward kernels: convolution_backward.out (op_conv_backward.c) and
 * max_pool2d_with_indices_backward.grad_input (op_pool.c).
 *
 * Convolution oracle: numpy at test time (knn_numpy.h; a missing numpy fails the test) computes
 * the FORWARD convolution with plain slicing/einsum, and gets the gradients from linearity alone:
 * grad_input[i] = sum(grad_output * conv(e_i, w)), grad_weight[j] = sum(grad_output * conv(x, e_j)),
 * grad_bias = grad_output summed over batch and space. No backward formula is shared with the C
 * kernel. Max-pool backward values are derived by hand. */
#include "test.h"

#include "knn_numpy.h"
#include "portable/portable_nn.h"
#include "support/ktest.h"
#include "support/ktest_sugar.h"

static pte_op_fn cb_fn(void) {
  return ktest_find(pte_portable_conv_backward_kernels, pte_portable_conv_backward_kernels_count,
                    "aten::convolution_backward.out");
}
static pte_op_fn mpb_fn(void) {
  return ktest_find(pte_portable_pool_kernels, pte_portable_pool_kernels_count,
                    "aten::max_pool2d_with_indices_backward.grad_input");
}

static uint32_t g_seed = 4242u;
static double rnd(void) { return ktest_rnd_grid(&g_seed, 12, 64, 16.0); }

static const char k_np_conv[] =
    "def conv(x, w, s, p, d, g, tr, op):\n"
    "    N, C, H, W = x.shape; kh, kw = w.shape[2], w.shape[3]\n"
    "    if not tr:\n"
    "        Co, Cig = w.shape[0], w.shape[1]; Cog = Co // g\n"
    "        OH = (H + 2 * p[0] - d[0] * (kh - 1) - 1) // s[0] + 1; OW = (W + 2 * p[1] - d[1] * (kw - 1) - 1) // s[1] + 1\n"
    "        xp = np.pad(x, ((0, 0), (0, 0), (p[0], p[0]), (p[1], p[1])))\n"
    "        y = np.zeros((N, Co, OH, OW))\n"
    "        for gi in range(g):\n"
    "            for i in range(kh):\n"
    "                for j in range(kw):\n"
    "                    patch = xp[:, gi * Cig:(gi + 1) * Cig, i * d[0]:i * d[0] + s[0] * (OH - 1) + 1:s[0],\n"
    "                               j * d[1]:j * d[1] + s[1] * (OW - 1) + 1:s[1]]\n"
    "                    y[:, gi * Cog:(gi + 1) * Cog] += np.einsum('ncij,oc->noij', patch, w[gi * Cog:(gi + 1) * Cog, :, i, j])\n"
    "        return y\n"
    "    Cig = C // g; Cog = w.shape[1]; Co = Cog * g\n"
    "    OH = (H - 1) * s[0] - 2 * p[0] + d[0] * (kh - 1) + op[0] + 1; OW = (W - 1) * s[1] - 2 * p[1] + d[1] * (kw - 1) + op[1] + 1\n"
    "    yf = np.zeros((N, Co, (H - 1) * s[0] + d[0] * (kh - 1) + 1 + op[0], (W - 1) * s[1] + d[1] * (kw - 1) + 1 + op[1]))\n"
    "    for gi in range(g):\n"
    "        for i in range(kh):\n"
    "            for j in range(kw):\n"
    "                yf[:, gi * Cog:(gi + 1) * Cog, i * d[0]:i * d[0] + s[0] * (H - 1) + 1:s[0], j * d[1]:j * d[1] + s[1] * (W - 1) + 1:s[1]] += \\\n"
    "                    np.einsum('ncij,co->noij', x[:, gi * Cig:(gi + 1) * Cig], w[gi * Cig:(gi + 1) * Cig, :, i, j])\n"
    "    return yf[:, :, p[0]:p[0] + OH, p[1]:p[1] + OW]\n"
    "def grads(x, w, gy, *a):\n"
    "    gx = np.zeros(x.size); gw = np.zeros(w.size)\n"
    "    for i in range(x.size):\n"
    "        e = np.zeros(x.size); e[i] = 1; gx[i] = (gy * conv(e.reshape(x.shape), w, *a)).sum()\n"
    "    for i in range(w.size):\n"
    "        e = np.zeros(w.size); e[i] = 1; gw[i] = (gy * conv(x, e.reshape(w.shape), *a)).sum()\n"
    "    return np.concatenate([gx, gw, gy.sum(axis=(0, 2, 3))])\n";

typedef struct cb_case {
  int N, Cin, H, W, Cout, kH, kW, sH, sW, pH, pW, dH, dW, opH, opW, groups;
  bool transposed, one_d;
} cb_case;

static bool cb_run_case(const cb_case *c, int dtype, const uint8_t *order, double tol) {
  const int cin_g = c->Cin / c->groups, cout_g = c->Cout / c->groups;
  int OH, OW;
  int32_t ws[4];
  if (!c->transposed) {
    OH = (c->H + 2 * c->pH - c->dH * (c->kH - 1) - 1) / c->sH + 1;
    OW = (c->W + 2 * c->pW - c->dW * (c->kW - 1) - 1) / c->sW + 1;
    ws[0] = c->Cout;
    ws[1] = cin_g;
  } else {
    OH = (c->H - 1) * c->sH - 2 * c->pH + c->dH * (c->kH - 1) + c->opH + 1;
    OW = (c->W - 1) * c->sW - 2 * c->pW + c->dW * (c->kW - 1) + c->opW + 1;
    ws[0] = c->Cin;
    ws[1] = cout_g;
  }
  ws[2] = c->kH;
  ws[3] = c->kW;
  const int32_t xs[4] = {c->N, c->Cin, c->H, c->W}, ys[4] = {c->N, c->Cout, OH, OW};
  size_t nx = (size_t)c->N * c->Cin * c->H * c->W, nw = (size_t)ws[0] * ws[1] * c->kH * c->kW;
  size_t ny = (size_t)c->N * c->Cout * OH * OW;
  double *x = ktest_rnd_array(nx, rnd), *w = ktest_rnd_array(nw, rnd), *gy = ktest_rnd_array(ny, rnd);
  np_script s = {0};
  nps_array(&s, "x", x, nx, xs, 4);
  nps_array(&s, "w", w, nw, ws, 4);
  nps_array(&s, "gy", gy, ny, ys, 4);
  nps_printf(&s, "%s", k_np_conv);
  nps_printf(&s, "res = grads(x, w, gy, (%d, %d), (%d, %d), (%d, %d), %d, %s, (%d, %d))\n", c->sH, c->sW, c->pH, c->pW,
             c->dH, c->dW, c->groups, c->transposed ? "True" : "False", c->opH, c->opW);
  double *want = nps_run(&s, nx + nw + (size_t)c->Cout);
  /* tensors: 1-D cases drop the H dim (H = kH = 1) */
  int r = c->one_d ? 3 : 4;
  int32_t xs3[3] = {c->N, c->Cin, c->W}, ys3[3] = {c->N, c->Cout, OW}, ws3[3] = {ws[0], ws[1], c->kW};
  const uint8_t *ord = order ? (c->one_d ? ktest_cl3 : order) : NULL;
  pte_tensor *tx = ktest_tensor(dtype, r, c->one_d ? xs3 : xs, ord, x);
  pte_tensor *tw = ktest_tensor(dtype, r, c->one_d ? ws3 : ws, NULL, w);
  pte_tensor *ty = ktest_tensor(dtype, r, c->one_d ? ys3 : ys, ord, gy);
  pte_tensor *g0 = ktest_tensor(dtype, r, c->one_d ? xs3 : xs, ord, NULL);
  pte_tensor *g1 = ktest_tensor(dtype, r, c->one_d ? ws3 : ws, NULL, NULL);
  pte_tensor *g2 = ktest_tensor_dyn(dtype, 1, SZ(1), NULL, (size_t)c->Cout);
  bool mask[3] = {true, true, true};
  pte_evalue *stride = c->one_d ? IL(c->sW) : IL(c->sH, c->sW), *pad = c->one_d ? IL(c->pW) : IL(c->pH, c->pW);
  pte_evalue *dil = c->one_d ? IL(c->dW) : IL(c->dH, c->dW), *opad = c->one_d ? IL(c->opW) : IL(c->opH, c->opW);
  pte_tensor *items[3] = {g0, g1, g2};
  pte_evalue *args[] = {EV(ty), EV(tx), EV(tw), IL(c->Cout), stride, pad, dil, ktest_ev_bool(c->transposed), opad,
                        ktest_ev_int(c->groups), ktest_ev_bool_list(mask, 3), EV(g0), EV(g1), EV(g2),
                        ktest_ev_tensor_list(items, 3)};
  pte_status st = ktest_run(cb_fn(), args, 15);
  bool ok = want && st == PTE_OK && ktest_expect(g0, want, nx, tol) && ktest_expect(g1, want + nx, nw, tol) &&
            ktest_expect(g2, want + nx + nw, (size_t)c->Cout, tol);
  if (!ok)
    fprintf(stderr, "    conv backward case (tr=%d 1d=%d groups=%d) failed: %s\n", (int)c->transposed, (int)c->one_d,
            c->groups, st == PTE_OK ? "values" : ktest_last_msg());
  free(x);
  free(w);
  free(gy);
  free(want);
  return ok;
}

TEST(conv_backward_hand_values) {
  /* 1-D, one channel: x = [1, 2, 3], w = [1, -1], y[i] = x[i] - x[i+1] (2 outputs). With
   * gy = [1, 10]: dL/dx = [1, -1 + 10, -10] = [1, 9, -10]; dL/dw = [1*1 + 10*2, 1*2 + 10*3] = [21, 32];
   * dL/db = 11 */
  pte_tensor *x = ktest_tensor(PTE_DTYPE_FLOAT, 3, SZ(1, 1, 3), NULL, DV(1, 2, 3));
  pte_tensor *w = ktest_tensor(PTE_DTYPE_FLOAT, 3, SZ(1, 1, 2), NULL, DV(1, -1));
  pte_tensor *gy = ktest_tensor(PTE_DTYPE_FLOAT, 3, SZ(1, 1, 2), NULL, DV(1, 10));
  pte_tensor *g0 = ktest_tensor(PTE_DTYPE_FLOAT, 3, SZ(1, 1, 3), NULL, NULL);
  pte_tensor *g1 = ktest_tensor(PTE_DTYPE_FLOAT, 3, SZ(1, 1, 2), NULL, NULL);
  pte_tensor *g2 = ktest_tensor(PTE_DTYPE_FLOAT, 1, SZ(1), NULL, DV(-7));
  bool mask[3] = {true, true, false};
  pte_evalue *args[] = {EV(gy), EV(x), EV(w), ktest_ev_none(), IL(1), IL(0), IL(1), ktest_ev_bool(false), IL(0),
                        ktest_ev_int(1), ktest_ev_bool_list(mask, 3), EV(g0), EV(g1), EV(g2)};
  CHECK_OK(ktest_run(cb_fn(), args, 14));
  CHECK(ktest_expect(g0, DV(1, 9, -10), 3, 0));
  CHECK(ktest_expect(g1, DV(21, 32), 2, 0));
  CHECK(ktest_expect(g2, DV(-7), 1, 0)); /* masked: untouched */
  mask[2] = true;
  pte_evalue *a2[] = {EV(gy), EV(x), EV(w), IL(1), IL(1), IL(0), IL(1), ktest_ev_bool(false), IL(0),
                      ktest_ev_int(1), ktest_ev_bool_list(mask, 3), EV(g0), EV(g1), EV(g2)};
  CHECK_OK(ktest_run(cb_fn(), a2, 14));
  CHECK(ktest_expect(g2, DV(11), 1, 0));
}

TEST(conv_backward_numpy) {
  static const cb_case cases[] = {
      /* N Cin H W Cout kH kW sH sW pH pW dH dW opH opW g  tr     1d */
      {2, 3, 5, 4, 4, 3, 2, 1, 1, 1, 0, 1, 1, 0, 0, 1, false, false},
      {1, 4, 6, 7, 6, 3, 3, 2, 2, 1, 1, 1, 1, 0, 0, 2, false, false}, /* groups, stride */
      {1, 2, 7, 6, 2, 2, 3, 1, 2, 0, 2, 2, 1, 0, 0, 2, false, false}, /* depthwise, dilation */
      {2, 2, 1, 9, 3, 1, 3, 1, 2, 0, 1, 1, 2, 0, 0, 1, false, true},  /* 1-D */
      {1, 2, 3, 4, 3, 2, 3, 1, 1, 0, 1, 1, 1, 0, 0, 1, true, false},  /* transposed */
      {2, 4, 3, 3, 4, 3, 2, 2, 2, 1, 0, 1, 2, 1, 1, 2, true, false},  /* transposed, groups, output_padding */
      {1, 3, 1, 5, 2, 1, 2, 1, 3, 0, 1, 1, 1, 0, 2, 1, true, true},   /* transposed 1-D */
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    CHECK(cb_run_case(&cases[i], PTE_DTYPE_DOUBLE, NULL, 1e-12));
    CHECK(cb_run_case(&cases[i], PTE_DTYPE_FLOAT, ktest_cl4, 1e-4));
  }
}

TEST(conv_backward_errors) {
  pte_tensor *x = ktest_tensor(PTE_DTYPE_FLOAT, 4, SZ(1, 1, 3, 3), NULL, NULL);
  pte_tensor *w = ktest_tensor(PTE_DTYPE_FLOAT, 4, SZ(1, 1, 2, 2), NULL, NULL);
  pte_tensor *gy = ktest_tensor(PTE_DTYPE_FLOAT, 4, SZ(1, 1, 2, 2), NULL, NULL);
  pte_tensor *gyb = ktest_tensor(PTE_DTYPE_FLOAT, 4, SZ(1, 1, 3, 3), NULL, NULL);
  pte_tensor *xi = ktest_tensor(PTE_DTYPE_INT, 4, SZ(1, 1, 3, 3), NULL, NULL);
  pte_tensor *o0 = ktest_tensor(PTE_DTYPE_FLOAT, 4, SZ(1, 1, 3, 3), NULL, NULL);
  pte_tensor *o1 = ktest_tensor(PTE_DTYPE_FLOAT, 4, SZ(1, 1, 2, 2), NULL, NULL);
  pte_tensor *o2 = ktest_tensor(PTE_DTYPE_FLOAT, 1, SZ(1), NULL, NULL);
  bool mask[3] = {true, true, true};
  struct {
    pte_tensor *gy, *x;
    int64_t groups;
    const char *msg;
  } cases[] = {
      {gyb, x, 1, "grad_output must have the convolution's output shape"},
      {gy, xi, 1, "share one floating dtype"},
      {gy, x, 2, "does not match 1 input channels in 2 groups"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    pte_evalue *args[] = {EV(cases[i].gy), EV(cases[i].x), EV(w), ktest_ev_none(), IL(1), IL(0), IL(1),
                          ktest_ev_bool(false), IL(0), ktest_ev_int(cases[i].groups), ktest_ev_bool_list(mask, 3),
                          EV(o0), EV(o1), EV(o2)};
    CHECK_STATUS(ktest_run(cb_fn(), args, 14), PTE_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(ktest_last_msg(), "convolution_backward");
    CHECK_CONTAINS(ktest_last_msg(), cases[i].msg);
  }
}

/* ---- max_pool2d_with_indices_backward ---- */

TEST(max_pool_backward_hand_values) {
  /* 3x3 plane, kernel 2, stride 1 -> 2x2 windows; the centre (flat 4) wins three windows, the
   * corner (flat 8) the last: grad_input[1][1] = 1 + 2 + 3, grad_input[2][2] = 4 */
  for (int layout = 0; layout < 2; layout++) {
    pte_tensor *self = ktest_tensor(PTE_DTYPE_FLOAT, 4, SZ(1, 1, 3, 3), layout ? ktest_cl4 : NULL, NULL);
    pte_tensor *gy = ktest_tensor(PTE_DTYPE_FLOAT, 4, SZ(1, 1, 2, 2), layout ? ktest_cl4 : NULL, DV(1, 2, 3, 4));
    pte_tensor *idx = ktest_tensor_i64(PTE_DTYPE_LONG, 4, SZ(1, 1, 2, 2), NULL, (int64_t[]){4, 4, 4, 8});
    pte_tensor *gx = ktest_tensor(PTE_DTYPE_FLOAT, 4, SZ(1, 1, 3, 3), layout ? ktest_cl4 : NULL,
                                  DV(9, 9, 9, 9, 9, 9, 9, 9, 9)); /* stale contents must be cleared */
    pte_evalue *out = EV(gx);
    pte_evalue *args[] = {EV(gy), EV(self), IL(2, 2), IL(1, 1), IL(0, 0), IL(1, 1), ktest_ev_bool(false), EV(idx),
                          out, out};
    CHECK_OK(ktest_run(mpb_fn(), args, 10));
    CHECK(ktest_expect(gx, DV(0, 0, 0, 0, 6, 0, 0, 0, 4), 9, 0));
  }
  /* 3-D input [C=2, 2, 4], kernel 2 (stride = kernel via []), double: channel 0 picks flats 1, 6,
   * channel 1 picks 0, 7 */
  pte_tensor *self = ktest_tensor(PTE_DTYPE_DOUBLE, 3, SZ(2, 2, 4), NULL, NULL);
  pte_tensor *gy = ktest_tensor(PTE_DTYPE_DOUBLE, 3, SZ(2, 1, 2), NULL, DV(0.5, -1, 2, 3));
  pte_tensor *idx = ktest_tensor_i64(PTE_DTYPE_LONG, 3, SZ(2, 1, 2), NULL, (int64_t[]){1, 6, 0, 7});
  pte_tensor *gx = ktest_tensor_dyn(PTE_DTYPE_DOUBLE, 3, SZ(1, 1, 1), NULL, 16);
  pte_evalue *args[] = {EV(gy), EV(self), IL(2), ktest_ev_int_list(NULL, 0), IL(0), IL(1), ktest_ev_bool(false),
                        EV(idx), EV(gx)};
  CHECK_OK(ktest_run(mpb_fn(), args, 9));
  CHECK(ktest_expect_shape(gx, 3, SZ(2, 2, 4)));
  CHECK(ktest_expect(gx, DV(0, 0.5, 0, 0, 0, 0, -1, 0, 2, 0, 0, 0, 0, 0, 0, 3), 16, 0));
}

TEST(max_pool_backward_errors) {
  pte_tensor *self = ktest_tensor(PTE_DTYPE_FLOAT, 4, SZ(1, 1, 2, 2), NULL, NULL);
  pte_tensor *gy = ktest_tensor(PTE_DTYPE_FLOAT, 4, SZ(1, 1, 1, 1), NULL, DV(1));
  pte_tensor *gy2 = ktest_tensor(PTE_DTYPE_FLOAT, 4, SZ(1, 1, 2, 1), NULL, NULL);
  pte_tensor *bad = ktest_tensor_i64(PTE_DTYPE_LONG, 4, SZ(1, 1, 1, 1), NULL, (int64_t[]){4});
  pte_tensor *idx32 = ktest_tensor(PTE_DTYPE_INT, 4, SZ(1, 1, 1, 1), NULL, NULL);
  pte_tensor *gx = ktest_tensor(PTE_DTYPE_FLOAT, 4, SZ(1, 1, 2, 2), NULL, NULL);
  pte_tensor *gxi = ktest_tensor(PTE_DTYPE_INT, 4, SZ(1, 1, 2, 2), NULL, NULL);
  struct {
    pte_tensor *gy, *idx, *gx;
    const char *msg;
  } cases[] = {
      {gy, bad, gx, "index 4 out of range"},
      {gy, idx32, gx, "indices must be int64"},
      {gy2, bad, gx, "must have the pooled shape"},
      {gy, bad, gxi, "share one floating dtype"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    pte_evalue *args[] = {EV(cases[i].gy), EV(self), IL(2, 2), IL(2, 2), IL(0, 0), IL(1, 1), ktest_ev_bool(false),
                          EV(cases[i].idx), EV(cases[i].gx)};
    CHECK_STATUS(ktest_run(mpb_fn(), args, 9), PTE_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(ktest_last_msg(), cases[i].msg);
  }
}

int main(void) {
  RUN(conv_backward_hand_values);
  RUN(conv_backward_numpy);
  RUN(conv_backward_errors);
  RUN(max_pool_backward_hand_values);
  RUN(max_pool_backward_errors);
  ktest_free_all();
  return test_summary();
}
