/* XNNPACK backend: StaticConstantPad (every output row written once) against index arithmetic,
 * and StaticTranspose over every permutation of a rank-4 tensor (the batched 2-D
 * fast path, its 3-channel case and the generic strided walk), with batch > 1 and size-1 dims,
 * against output[i] = input[source index] computed here from the permutation. */
#include <stdlib.h>
#include <string.h>

#include "pte/backend_xnnpack.h"
#include "test.h"
#include "test_xnnpack_util.h"

static void tr_case(const uint32_t *dims, const uint32_t *perm) {
  uint32_t od[4];
  for (int i = 0; i < 4; i++) od[i] = dims[perm[i]];
  pte_xnn_builder *b = pte_xnn_builder_new();
  pte_xnn_tensor_desc t;
  memset(&t, 0, sizeof t);
  t.dtype = PTE_XNN_DT_FP32;
  t.rank = 4;
  t.dims = dims;
  t.flags = PTE_XNN_VALUE_EXTERNAL_INPUT;
  uint32_t in, out;
  pte_xnn_builder_add_tensor(b, &t, &in);
  t.dims = od;
  t.flags = PTE_XNN_VALUE_EXTERNAL_OUTPUT;
  t.external_id = 1;
  pte_xnn_builder_add_tensor(b, &t, &out);
  pte_xnn_node_desc nd;
  memset(&nd, 0, sizeof nd);
  nd.type = PTE_XNN_NODE_STATIC_TRANSPOSE, nd.inputs[0] = in, nd.output = out, nd.num_dims = 4, nd.a = perm;
  pte_xnn_builder_add_node(b, &nd);
  pte_xnn_blob blob;
  pte_error_info err;
  pte_status s = pte_xnn_builder_finish(b, PTE_XNN_CONSTANTS_INLINE, &blob, &err);
  pte_xnn_builder_free(b);
  CHECK_OK(s);
  const size_t n = (size_t)dims[0] * dims[1] * dims[2] * dims[3];
  float *x = (float *)malloc(n * 4), *y = (float *)malloc(n * 4);
  for (size_t i = 0; i < n; i++) x[i] = (float)i;
  pte_xnn_delegate *d = NULL;
  CHECK_OK(pte_xnn_delegate_init(blob.data, blob.size, NULL, NULL, &d, &err));
  size_t si[4] = {dims[0], dims[1], dims[2], dims[3]}, so[4] = {od[0], od[1], od[2], od[3]};
  xt_tensor ti, to;
  xt_tensor_init(&ti, PTE_DTYPE_FLOAT, 4, si, x, n * 4, 0);
  xt_tensor_init(&to, PTE_DTYPE_FLOAT, 4, so, y, n * 4, 0);
  pte_evalue *args[2] = {&ti.ev, &to.ev};
  CHECK_OK(pte_xnn_delegate_execute(d, args, 2, &err));
  size_t ist[4];
  ist[3] = 1;
  for (int i = 2; i >= 0; i--) ist[i] = ist[i + 1] * dims[i + 1];
  size_t q = 0;
  for (uint32_t a = 0; a < od[0]; a++)
    for (uint32_t bb = 0; bb < od[1]; bb++)
      for (uint32_t c = 0; c < od[2]; c++)
        for (uint32_t e = 0; e < od[3]; e++, q++) {
          const size_t src = a * ist[perm[0]] + bb * ist[perm[1]] + c * ist[perm[2]] + e * ist[perm[3]];
          CHECK_MSG(y[q] == (float)src, "dims %u,%u,%u,%u perm %u%u%u%u: out[%zu] = %g, want %zu", dims[0], dims[1],
                    dims[2], dims[3], perm[0], perm[1], perm[2], perm[3], q, (double)y[q], src);
        }
  pte_xnn_delegate_destroy(d);
  pte_xnn_blob_free(&blob);
  free(x);
  free(y);
}

TEST(transpose_every_permutation) {
  static const uint32_t shapes[][4] = {{2, 3, 4, 5}, {2, 3, 17, 19}, {1, 3, 33, 20}, {3, 1, 5, 1}, {2, 5, 1, 7}};
  size_t cases = 0;
  for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++)
    for (uint32_t p0 = 0; p0 < 4; p0++)
      for (uint32_t p1 = 0; p1 < 4; p1++)
        for (uint32_t p2 = 0; p2 < 4; p2++) {
          const uint32_t p3 = 6 - p0 - p1 - p2;
          if (p0 == p1 || p0 == p2 || p1 == p2 || p3 > 3 || p3 == p0 || p3 == p1 || p3 == p2) continue;
          const uint32_t perm[4] = {p0, p1, p2, p3};
          tr_case(shapes[si], perm);
          if (test_current_failed) return;
          cases++;
        }
  CHECK_EQ_INT(cases, 5 * 24);
}

/* StaticConstantPad, rank 4: out[i] = in[i - pre] inside, the pad value elsewhere. */
static void pad_case(const uint32_t *dims, const uint32_t *pre, const uint32_t *post, float value) {
  uint32_t od[4];
  for (int i = 0; i < 4; i++) od[i] = dims[i] + pre[i] + post[i];
  pte_xnn_builder *b = pte_xnn_builder_new();
  pte_xnn_tensor_desc t;
  memset(&t, 0, sizeof t);
  t.dtype = PTE_XNN_DT_FP32;
  t.rank = 4;
  t.dims = dims;
  t.flags = PTE_XNN_VALUE_EXTERNAL_INPUT;
  uint32_t in, out;
  pte_xnn_builder_add_tensor(b, &t, &in);
  t.dims = od;
  t.flags = PTE_XNN_VALUE_EXTERNAL_OUTPUT;
  t.external_id = 1;
  pte_xnn_builder_add_tensor(b, &t, &out);
  pte_xnn_node_desc nd;
  memset(&nd, 0, sizeof nd);
  nd.type = PTE_XNN_NODE_STATIC_CONSTANT_PAD, nd.inputs[0] = in, nd.output = out, nd.num_dims = 4;
  nd.a = pre, nd.b = post, nd.alpha = value;
  pte_xnn_builder_add_node(b, &nd);
  pte_xnn_blob blob;
  pte_error_info err;
  pte_status s = pte_xnn_builder_finish(b, PTE_XNN_CONSTANTS_INLINE, &blob, &err);
  pte_xnn_builder_free(b);
  CHECK_OK(s);
  const size_t n = (size_t)dims[0] * dims[1] * dims[2] * dims[3], no = (size_t)od[0] * od[1] * od[2] * od[3];
  float *x = (float *)malloc((n ? n : 1) * 4), *y = (float *)malloc(no * 4);
  for (size_t i = 0; i < n; i++) x[i] = (float)i + 1.0f;
  for (size_t i = 0; i < no; i++) y[i] = -12345.0f;
  pte_xnn_delegate *d = NULL;
  CHECK_OK(pte_xnn_delegate_init(blob.data, blob.size, NULL, NULL, &d, &err));
  size_t si[4] = {dims[0], dims[1], dims[2], dims[3]}, so[4] = {od[0], od[1], od[2], od[3]};
  xt_tensor ti, to;
  xt_tensor_init(&ti, PTE_DTYPE_FLOAT, 4, si, x, n * 4, 0);
  xt_tensor_init(&to, PTE_DTYPE_FLOAT, 4, so, y, no * 4, 0);
  pte_evalue *args[2] = {&ti.ev, &to.ev};
  CHECK_OK(pte_xnn_delegate_execute(d, args, 2, &err));
  size_t q = 0;
  for (uint32_t i0 = 0; i0 < od[0]; i0++)
    for (uint32_t i1 = 0; i1 < od[1]; i1++)
      for (uint32_t i2 = 0; i2 < od[2]; i2++)
        for (uint32_t i3 = 0; i3 < od[3]; i3++, q++) {
          const uint32_t ix[4] = {i0, i1, i2, i3};
          bool inside = true;
          size_t src = 0;
          for (int k = 0; k < 4; k++) {
            inside = inside && ix[k] >= pre[k] && ix[k] - pre[k] < dims[k];
            src = src * dims[k] + (ix[k] - pre[k]);
          }
          const float want = inside ? (float)src + 1.0f : value;
          CHECK_MSG(y[q] == want, "pad dims %u,%u,%u,%u: out[%zu] = %g, want %g", dims[0], dims[1], dims[2], dims[3], q,
                    (double)y[q], (double)want);
        }
  pte_xnn_delegate_destroy(d);
  pte_xnn_blob_free(&blob);
  free(x);
  free(y);
}

TEST(constant_pad) {
  static const uint32_t d1[4] = {2, 3, 4, 5}, pre1[4] = {0, 1, 2, 3}, post1[4] = {1, 0, 2, 1};
  pad_case(d1, pre1, post1, 0.5f);
  if (test_current_failed) return;
  static const uint32_t pre2[4] = {0, 0, 0, 0}, post2[4] = {0, 0, 0, 4};
  pad_case(d1, pre2, post2, -1.0f); /* only the last dim */
  if (test_current_failed) return;
  static const uint32_t d3[4] = {1, 1, 1, 1}, pre3[4] = {1, 2, 0, 0}, post3[4] = {0, 1, 3, 0};
  pad_case(d3, pre3, post3, 7.0f); /* no padding in the last dim */
}

int main(void) {
  RUN(transpose_every_permutation);
  RUN(constant_pad);
  return test_summary();
}
