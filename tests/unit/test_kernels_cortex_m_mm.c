/* The cortex_m int8 "quantize -> cortex_m::transpose -> aten::mm" path (issue 13), built with the
 * program builder exactly as the cortex_m lowering lays it out when a linear layer is decomposed
 * into permute + mm and the int8 permute becomes cortex_m::transpose:
 *
 *   x  float32 [M, K] (input)       -> cortex_m::quantize_per_tensor   qx int8 [M, K]
 *   qx                              -> cortex_m::dequantize_per_tensor dx float [M, K]
 *   w  int8 [N, K] (constant)       -> cortex_m::transpose perm [1, 0] wt int8 [K, N]
 *   wt                              -> cortex_m::dequantize_per_tensor dw float [K, N]
 *   dx, dw                          -> aten::mm                        y float [M, N]
 *   qx, wt                          -> aten::mm (int8, wraps)          y8 int8 [M, N]
 *
 * Outputs y, y8 and wt are compared with an integer reference written here from the definitions
 * (quantize = clamp(rint(x / s) + zp), y = sx * sw * sum_k (qx - zx) (w - zw), int8 mm = the int
 * sum wrapped to 8 bits), over plain row-major arrays. Run for contiguous and for a transposed
 * (dim order [1, 0]) weight constant and transpose output. */
#include "test.h"

#include "support/ktest.h"

#include "pte/cortex_m_kernels.h"
#include "pte/data_writer.h"
#include "pte/io.h"
#include "pte/method.h"
#include "pte/portable_kernels.h"
#include "pte/program.h"
#include "pte/writer.h"

#define M 3
#define K 5
#define N 4

static const float k_sx = 0.0625f;
static const int k_zx = -7;
static const float k_sw = 0.03125f;
static const int k_zw = 3;

static int8_t g_w[N * K];       /* logical [N][K] */
static uint32_t g_seed = 777u;
static int rnd(int lo, int hi) {
  g_seed = g_seed * 1664525u + 1013904223u;
  return lo + (int)((g_seed >> 8) % (uint32_t)(hi - lo + 1));
}

/* w_bytes: the constant in the memory order given by w_order. */
static uint8_t *build(const int8_t *w_bytes, const uint8_t *w_order, const uint8_t *wt_order, size_t *size,
                      pte_error_info *err) {
  ktest_pb b;
  ktest_pb_begin(&b);
  const int32_t s_x[] = {M, K}, s_w[] = {N, K}, s_wt[] = {K, N}, s_y[] = {M, N};
  const int32_t x = ktest_pb_tensor(&b, PTE_DTYPE_FLOAT, 2, s_x, NULL, NULL, 0);
  const int32_t qx = ktest_pb_tensor(&b, PTE_DTYPE_CHAR, 2, s_x, NULL, NULL, 0);
  const int32_t dx = ktest_pb_tensor(&b, PTE_DTYPE_FLOAT, 2, s_x, NULL, NULL, 0);
  const int32_t w = ktest_pb_tensor(&b, PTE_DTYPE_CHAR, 2, s_w, w_order, w_bytes, N * K);
  const int32_t wt = ktest_pb_tensor(&b, PTE_DTYPE_CHAR, 2, s_wt, wt_order, NULL, 0);
  const int32_t dw = ktest_pb_tensor(&b, PTE_DTYPE_FLOAT, 2, s_wt, NULL, NULL, 0);
  const int32_t y = ktest_pb_tensor(&b, PTE_DTYPE_FLOAT, 2, s_y, NULL, NULL, 0);
  const int32_t y8 = ktest_pb_tensor(&b, PTE_DTYPE_CHAR, 2, s_y, NULL, NULL, 0);
  int32_t perm = -1;
  const int64_t pv[2] = {1, 0};
  perm = ktest_pb_int_list(&b, pv, 2);
  const int32_t outs[3] = {y, y8, wt};
  ktest_pb_io(&b, &x, 1, outs, 3);
  const int32_t lo = ktest_pb_int(&b, -128), hi = ktest_pb_int(&b, 127), i8 = ktest_pb_int(&b, PTE_DTYPE_CHAR);
  const int32_t sx = ktest_pb_double(&b, k_sx), zx = ktest_pb_int(&b, k_zx), sw = ktest_pb_double(&b, k_sw), zw = ktest_pb_int(&b, k_zw);
  {
    const int32_t a[] = {x, sx, zx, lo, hi, i8, qx, qx};
    ktest_pb_call(&b, "cortex_m::quantize_per_tensor", "out", a, 8);
  }
  {
    const int32_t a[] = {qx, sx, zx, lo, hi, i8, dx, dx};
    ktest_pb_call(&b, "cortex_m::dequantize_per_tensor", "out", a, 8);
  }
  {
    const int32_t a[] = {w, perm, wt, wt};
    ktest_pb_call(&b, "cortex_m::transpose", "out", a, 4);
  }
  {
    const int32_t a[] = {wt, sw, zw, lo, hi, i8, dw, dw};
    ktest_pb_call(&b, "cortex_m::dequantize_per_tensor", "out", a, 8);
  }
  {
    const int32_t a[] = {dx, dw, y, y};
    ktest_pb_call(&b, "aten::mm", "out", a, 4);
  }
  {
    const int32_t a[] = {qx, wt, y8, y8};
    ktest_pb_call(&b, "aten::mm", "out", a, 4);
  }
  return ktest_pb_finish(&b, size, err);
}

static int clampi(int v, int lo, int hi) { return v < lo ? lo : (v > hi ? hi : v); }

/* Element (r, c) of a [rows, cols] tensor as the method holds it (through its strides). */
static double at(const pte_tensor *t, int r, int c) {
  const int64_t off = (int64_t)r * t->strides[0] + (int64_t)c * t->strides[1];
  if (t->dtype == PTE_DTYPE_FLOAT) return ((const float *)t->data)[off];
  return ((const int8_t *)t->data)[off];
}

static void run_case(const uint8_t *w_order, const uint8_t *wt_order) {
  /* the weight constant in memory order */
  int8_t w_mem[N * K];
  bool w_t = w_order && w_order[0] == 1;
  for (int n = 0; n < N; n++)
    for (int k = 0; k < K; k++) w_mem[w_t ? k * N + n : n * K + k] = g_w[n * K + k];
  pte_error_info err;
  memset(&err, 0, sizeof err);
  size_t size = 0;
  uint8_t *bytes = build(w_mem, w_order, wt_order, &size, &err);
  CHECK_MSG(bytes != NULL, "build: %s", err.msg);
  ktest_method km;
  bool opened = ktest_method_open(&km, bytes, size, 64 * 1024, &err);
  if (!opened) ktest_method_close(&km);
  CHECK_MSG(opened, "%s: %s", km.stage, err.msg);
  pte_method *m = km.m;

  int nonzero = 0;
  for (int run = 0; run < 6; run++) {
    float x[M * K];
    for (int i = 0; i < M * K; i++) x[i] = (float)rnd(-300, 300) / 37.0f;
    const int32_t sizes[] = {M, K};
    CHECK_MSG(pte_method_set_input_tensor(m, 0, PTE_DTYPE_FLOAT, sizes, 2, x, sizeof x, &err) == PTE_OK, "input: %s",
              err.msg);
    CHECK_MSG(pte_method_execute(m, &err) == PTE_OK, "execute: %s", err.msg);
    int qx[M][K];
    for (int i = 0; i < M; i++)
      for (int k = 0; k < K; k++) qx[i][k] = clampi((int)rintf(x[i * K + k] / k_sx) + k_zx, -128, 127);
    const pte_tensor *ty = pte_method_get_output(m, 0)->u.tensor;
    const pte_tensor *ty8 = pte_method_get_output(m, 1)->u.tensor;
    const pte_tensor *twt = pte_method_get_output(m, 2)->u.tensor;
    CHECK(ty->sizes[0] == M && ty->sizes[1] == N && twt->sizes[0] == K && twt->sizes[1] == N);
    for (int k = 0; k < K; k++)
      for (int n = 0; n < N; n++)
        CHECK_MSG(at(twt, k, n) == g_w[n * K + k], "wt[%d][%d] = %g, expected %d", k, n, at(twt, k, n), g_w[n * K + k]);
    for (int i = 0; i < M; i++)
      for (int n = 0; n < N; n++) {
        int64_t acc = 0, acc8 = 0;
        for (int k = 0; k < K; k++) {
          acc += (int64_t)(qx[i][k] - k_zx) * (g_w[n * K + k] - k_zw);
          acc8 += (int64_t)qx[i][k] * g_w[n * K + k];
        }
        const double ref = (double)acc * (double)k_sx * (double)k_sw;
        const int8_t ref8 = (int8_t)(uint8_t)((uint64_t)acc8 & 0xffu);
        CHECK_MSG(fabs(at(ty, i, n) - ref) <= 1e-5 * fabs(ref) + 1e-6, "run %d y[%d][%d] = %.9g, reference %.9g", run, i,
                  n, at(ty, i, n), ref);
        CHECK_MSG(at(ty8, i, n) == ref8, "run %d y8[%d][%d] = %g, reference %d", run, i, n, at(ty8, i, n), ref8);
        if (acc != 0) nonzero++;
      }
  }
  CHECK(nonzero > 50);
  ktest_method_close(&km);
}

TEST(setup) {
  for (int i = 0; i < N * K; i++) g_w[i] = (int8_t)rnd(-120, 120);
  CHECK_OK(pte_register_cortex_m_kernels());
  CHECK_OK(pte_register_portable_kernels());
}

TEST(transpose_then_mm_contiguous) { run_case(NULL, NULL); }
TEST(transpose_then_mm_transposed_weight) { run_case(ktest_t2, NULL); }
TEST(transpose_then_mm_transposed_out) { run_case(NULL, ktest_t2); }

int main(void) {
  RUN(setup);
  RUN(transpose_then_mm_contiguous);
  RUN(transpose_then_mm_transposed_weight);
  RUN(transpose_then_mm_transposed_out);
  return test_summary();
}
