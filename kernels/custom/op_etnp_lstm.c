/* etnp::lstm.out — single-layer, unidirectional, sequence-first float32 LSTM over a whole
 * sequence (the custom operator of executorch-numpy-runtime / executorch-runtime-dist v1.3.1):
 *
 *   etnp::lstm.out(Tensor input, Tensor h0, Tensor c0, Tensor w_ih, Tensor w_hh, Tensor? b_ih,
 *                  Tensor? b_hh, *, Tensor(a!) output, Tensor(b!) hn, Tensor(c!) cn)
 *       -> (Tensor(a!), Tensor(b!), Tensor(c!))
 *
 * Shapes: input [T,B,I], h0/c0 [B,H], w_ih [4H,I], w_hh [4H,H], b_ih/b_hh [4H];
 * output [T,B,H], hn/cn [B,H]. Gate rows are in PyTorch order i, f, g, o. The running state lives
 * in hn/cn (seeded from h0/c0), so hn may alias h0 and cn may alias c0. Every tensor is read and
 * written through its strides (any dim order).
 */
#include <math.h>

#include "custom/custom_ops.h"
#include "portable/util/kutil.h"

/* Scratch for the 4H gate pre-activations of one batch row kept on the stack up to this size. */
#define LSTM_STACK_GATES 256

static float lstm_sigmoid(float x) { return 1.0f / (1.0f + expf(-x)); }

static bool lstm_check_float(pte_kernel_context *ctx, const pte_tensor *t, const char *what) {
  if (t->dtype != PTE_DTYPE_FLOAT) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "etnp::lstm: %s must be float32, got %s", what,
                    pte_dtype_name(t->dtype));
    return false;
  }
  return pte_k_check_data(ctx, t, what);
}

static bool lstm_check_shape(pte_kernel_context *ctx, const pte_tensor *t, const char *what,
                             int32_t dim, int64_t s0, int64_t s1) {
  bool ok = t->dim == dim && t->sizes[0] == s0 && (dim < 2 || t->sizes[1] == s1);
  if (!ok) {
    if (dim == 1)
      pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "etnp::lstm: %s must be [%lld]", what,
                      (long long)s0);
    else
      pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "etnp::lstm: %s must be [%lld, %lld]", what,
                      (long long)s0, (long long)s1);
  }
  return ok;
}

/* Element (i, j) of a 2-D tensor / element i of a 1-D tensor, through strides. */
static inline float at2(const pte_tensor *t, int64_t i, int64_t j) {
  return ((const float *)t->data)[i * t->strides[0] + j * t->strides[1]];
}
static inline float *ptr2(pte_tensor *t, int64_t i, int64_t j) {
  return (float *)t->data + i * t->strides[0] + j * t->strides[1];
}

static void etnp_lstm_out(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  if (!pte_k_check_nargs(ctx, nargs, 10, 11)) return;
  pte_tensor *in = pte_k_arg_tensor(ctx, args, nargs, 0);
  pte_tensor *h0 = pte_k_arg_tensor(ctx, args, nargs, 1);
  pte_tensor *c0 = pte_k_arg_tensor(ctx, args, nargs, 2);
  pte_tensor *wih = pte_k_arg_tensor(ctx, args, nargs, 3);
  pte_tensor *whh = pte_k_arg_tensor(ctx, args, nargs, 4);
  if (!in || !h0 || !c0 || !wih || !whh) return;
  bool ok = true;
  pte_tensor *bih = pte_k_arg_opt_tensor(ctx, args, nargs, 5, &ok);
  if (!ok) return;
  pte_tensor *bhh = pte_k_arg_opt_tensor(ctx, args, nargs, 6, &ok);
  if (!ok) return;
  pte_tensor *out = pte_k_arg_tensor(ctx, args, nargs, 7);
  pte_tensor *hn = pte_k_arg_tensor(ctx, args, nargs, 8);
  pte_tensor *cn = pte_k_arg_tensor(ctx, args, nargs, 9);
  if (!out || !hn || !cn) return;
  if (nargs == 11) {
    const pte_evalue *ret = args[10];
    if (!ret || ret->tag != PTE_TAG_LIST_TENSOR || ret->u.tensor_list.len != 3) {
      pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT,
                      "etnp::lstm: argument 10 (return value) must be a list of 3 tensors");
      return;
    }
  }

  if (in->dim != 3) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "etnp::lstm: input must be [T, B, I], got rank %d",
                    (int)in->dim);
    return;
  }
  const int64_t T = in->sizes[0], B = in->sizes[1], I = in->sizes[2];
  if (h0->dim != 2) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "etnp::lstm: h0 must be [B, H], got rank %d",
                    (int)h0->dim);
    return;
  }
  const int64_t H = h0->sizes[1];
  const int64_t G = 4 * H;
  if (!lstm_check_shape(ctx, h0, "h0", 2, B, H) || !lstm_check_shape(ctx, c0, "c0", 2, B, H) ||
      !lstm_check_shape(ctx, wih, "w_ih", 2, G, I) || !lstm_check_shape(ctx, whh, "w_hh", 2, G, H) ||
      (bih && !lstm_check_shape(ctx, bih, "b_ih", 1, G, 0)) ||
      (bhh && !lstm_check_shape(ctx, bhh, "b_hh", 1, G, 0)))
    return;
  if (!lstm_check_float(ctx, in, "input") || !lstm_check_float(ctx, h0, "h0") ||
      !lstm_check_float(ctx, c0, "c0") || !lstm_check_float(ctx, wih, "w_ih") ||
      !lstm_check_float(ctx, whh, "w_hh") || (bih && !lstm_check_float(ctx, bih, "b_ih")) ||
      (bhh && !lstm_check_float(ctx, bhh, "b_hh")))
    return;
  if (out->dtype != PTE_DTYPE_FLOAT || hn->dtype != PTE_DTYPE_FLOAT || cn->dtype != PTE_DTYPE_FLOAT) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "etnp::lstm: output, hn and cn must be float32");
    return;
  }
  const int32_t osz[3] = {(int32_t)T, (int32_t)B, (int32_t)H};
  const int32_t ssz[2] = {(int32_t)B, (int32_t)H};
  if (!pte_k_resize_out(ctx, out, osz, 3) || !pte_k_resize_out(ctx, hn, ssz, 2) ||
      !pte_k_resize_out(ctx, cn, ssz, 2))
    return;
  if (!pte_k_check_data(ctx, out, "output") || !pte_k_check_data(ctx, hn, "hn") ||
      !pte_k_check_data(ctx, cn, "cn"))
    return;

  float stack_gates[LSTM_STACK_GATES];
  float *gates = stack_gates;
  if (G > LSTM_STACK_GATES) {
    gates = pte_kernel_alloc_temp(ctx, (size_t)G * sizeof(float), _Alignof(float));
    if (!gates) {
      pte_kernel_fail(ctx, PTE_ERR_MEMORY_ALLOCATION_FAILED,
                      "etnp::lstm: no temp memory for %lld gate values", (long long)G);
      return;
    }
  }

  /* Seed the running state. */
  for (int64_t b = 0; b < B; b++) {
    for (int64_t j = 0; j < H; j++) {
      *ptr2(hn, b, j) = at2(h0, b, j);
      *ptr2(cn, b, j) = at2(c0, b, j);
    }
  }

  const float *x = (const float *)in->data;
  float *o = (float *)out->data;
  const float *pbih = bih ? (const float *)bih->data : NULL;
  const float *pbhh = bhh ? (const float *)bhh->data : NULL;
  for (int64_t t = 0; t < T; t++) {
    for (int64_t b = 0; b < B; b++) {
      const float *xt = x + t * in->strides[0] + b * in->strides[1];
      /* Pre-activations of the 4H gate rows from x_t and this row's previous h (read fully
       * before the row is updated below). */
      for (int64_t r = 0; r < G; r++) {
        float a = pbih ? pbih[r * bih->strides[0]] : 0.0f;
        for (int64_t k = 0; k < I; k++) a += at2(wih, r, k) * xt[k * in->strides[2]];
        float h = pbhh ? pbhh[r * bhh->strides[0]] : 0.0f;
        for (int64_t k = 0; k < H; k++) h += at2(whh, r, k) * *ptr2(hn, b, k);
        gates[r] = a + h;
      }
      for (int64_t j = 0; j < H; j++) {
        const float ig = lstm_sigmoid(gates[j]);
        const float fg = lstm_sigmoid(gates[H + j]);
        const float gg = tanhf(gates[2 * H + j]);
        const float og = lstm_sigmoid(gates[3 * H + j]);
        float *cp = ptr2(cn, b, j);
        const float c = fg * *cp + ig * gg;
        const float h = og * tanhf(c);
        *cp = c;
        *ptr2(hn, b, j) = h;
        o[t * out->strides[0] + b * out->strides[1] + j * out->strides[2]] = h;
      }
    }
  }

  /* The return value: a list aliasing (output, hn, cn). */
  if (nargs == 11) {
    pte_evalue *ret = args[10];
    for (size_t k = 0; k < 3; k++) {
      pte_evalue *item = ret->u.tensor_list.items[k];
      if (item && item != args[7 + k]) *item = *args[7 + k];
    }
  }
}

const pte_kernel pte_custom_lstm_kernels[] = {
    {"etnp::lstm.out", NULL, etnp_lstm_out},
};
const size_t pte_custom_lstm_kernels_count = sizeof pte_custom_lstm_kernels / sizeof pte_custom_lstm_kernels[0];
