/* quantized_decomposed embedding lookups with dequantization:
 *   quantized_decomposed::embedding_byte.out(Tensor weight, Tensor weight_scales,
 *       Tensor? weight_zero_points, int weight_quant_min, int weight_quant_max, Tensor indices, *,
 *       Tensor(a!) out)
 *   quantized_decomposed::embedding_byte.dtype_out(... Tensor indices, *, ScalarType? dtype=None,
 *       Tensor(a!) out)
 *   and the same two overloads of embedding_2bit and embedding_4bit.
 *
 * weight is [num_embeddings, packed_dim]: int8 or uint8 values for embedding_byte (embedding_dim =
 * packed_dim), uint8 bytes packing 2 (4-bit) or 4 (2-bit) values each (embedding_dim =
 * packed_dim * 8 / nbit). Unpacking, as upstream:
 *   4-bit: element 2k is the HIGH nibble of byte k, element 2k+1 the LOW nibble, each minus 8
 *          (values -8..7);
 *   2-bit: element 4k+s is bits [2s, 2s+1] of byte k (least significant pair first), minus 2
 *          (values -2..1).
 * weight_scales is [num_embeddings] (one scale per row) or [num_embeddings, groups] (group-wise:
 * groups must divide embedding_dim; element j of a row uses group j / (embedding_dim / groups)).
 * weight_zero_points (optional, same shape; float or integer) default to 0. Each output element is
 *   ((float)q - (float)zero_point) * (float)scale
 * in float32, stored as out's dtype (float32 or float16). out has shape indices.shape +
 * [embedding_dim] and is resized. indices are int64 or int32 and must be in [0, num_embeddings).
 * quant_min / quant_max are metadata (quant_min <= quant_max is checked); dtype, when given, must
 * equal out's dtype. Every tensor may have any dim order (read and written through strides).
 */
#include "portable/util/kutil.h"
#include "quantized/q_internal.h"
#include "quantized/q_ops.h"

#define QE_FAIL(ctx, ...) pte_kernel_fail((ctx), PTE_ERR_INVALID_ARGUMENT, __VA_ARGS__)

static bool qe_param_dtype_ok(int dt) {
  return dt == PTE_DTYPE_FLOAT || dt == PTE_DTYPE_HALF || dt == PTE_DTYPE_DOUBLE;
}

/* Zero point element k as float: floating or integer storage. */
static float qe_zp_at(const pte_tensor *t, int64_t k) {
  const int64_t off = pte_k_offset_of_linear(t, (size_t)k);
  if (qe_param_dtype_ok(t->dtype)) return (float)pte_q_load_float(t->data, t->dtype, off);
  return (float)pte_k_load_int64(t->data, t->dtype, off);
}

/* Quantized value j of row `row` (byte offsets through the weight's strides). */
static int32_t qe_value(const pte_tensor *w, int64_t row, int64_t j, int nbit) {
  const int64_t base = row * w->strides[0];
  if (nbit == 8) {
    const int64_t off = base + j * w->strides[1];
    return w->dtype == PTE_DTYPE_CHAR ? ((const int8_t *)w->data)[off] : ((const uint8_t *)w->data)[off];
  }
  const int per = 8 / nbit;
  const uint8_t byte = ((const uint8_t *)w->data)[base + (j / per) * w->strides[1]];
  if (nbit == 4) return (int32_t)((j % 2 == 0) ? (byte >> 4) & 0x0F : byte & 0x0F) - 8;
  return (int32_t)((byte >> (2 * (j % 4))) & 0x03) - 2;
}

static void q_embedding(pte_kernel_context *ctx, pte_evalue **args, size_t nargs, int nbit, bool has_dtype) {
  const size_t n_schema = has_dtype ? 8 : 7, out_idx = n_schema - 1;
  if (!pte_q_check_nargs(ctx, nargs, n_schema)) return;
  pte_tensor *w = pte_k_arg_tensor(ctx, args, nargs, 0);
  pte_tensor *sc = w ? pte_k_arg_tensor(ctx, args, nargs, 1) : NULL;
  bool ok = sc != NULL;
  pte_tensor *zp = ok ? pte_k_arg_opt_tensor(ctx, args, nargs, 2, &ok) : NULL;
  pte_tensor *idx = ok ? pte_k_arg_tensor(ctx, args, nargs, 5) : NULL;
  pte_tensor *out = idx ? pte_k_arg_tensor(ctx, args, nargs, out_idx) : NULL;
  int64_t qmin, qmax;
  if (!out || !pte_k_arg_int(ctx, args, nargs, 3, &qmin) || !pte_k_arg_int(ctx, args, nargs, 4, &qmax)) return;
  if (qmin > qmax) {
    QE_FAIL(ctx, "weight_quant_min %lld > weight_quant_max %lld", (long long)qmin, (long long)qmax);
    return;
  }
  if (has_dtype && !pte_k_arg_is_none(args, nargs, 6)) {
    int64_t dt;
    if (!pte_k_arg_int(ctx, args, nargs, 6, &dt)) return;
    if (dt != out->dtype) {
      QE_FAIL(ctx, "dtype is %s but out is %s", pte_dtype_name((int)dt), pte_dtype_name(out->dtype));
      return;
    }
  }
  if (w->dim != 2) {
    QE_FAIL(ctx, "weight must be 2-D, got %d-D", (int)w->dim);
    return;
  }
  if (nbit == 8 ? (w->dtype != PTE_DTYPE_BYTE && w->dtype != PTE_DTYPE_CHAR) : w->dtype != PTE_DTYPE_BYTE) {
    QE_FAIL(ctx, "weight must be %s, got %s", nbit == 8 ? "uint8 or int8" : "uint8 (packed)", pte_dtype_name(w->dtype));
    return;
  }
  const int64_t rows = w->sizes[0], dim = (int64_t)w->sizes[1] * (8 / nbit);
  if (sc->dim != 1 && sc->dim != 2) {
    QE_FAIL(ctx, "weight_scales must be 1-D or 2-D, got %d-D", (int)sc->dim);
    return;
  }
  if (sc->sizes[0] != rows) {
    QE_FAIL(ctx, "weight_scales has %d rows, weight has %lld", (int)sc->sizes[0], (long long)rows);
    return;
  }
  const int64_t groups = sc->dim == 2 ? sc->sizes[1] : 1;
  if (groups <= 0 || dim % groups != 0) {
    QE_FAIL(ctx, "weight_scales groups (%lld) must divide the embedding dim %lld", (long long)groups, (long long)dim);
    return;
  }
  if (!qe_param_dtype_ok(sc->dtype)) {
    QE_FAIL(ctx, "weight_scales must be float32 or float16, got %s", pte_dtype_name(sc->dtype));
    return;
  }
  if (zp) {
    bool same = zp->dim == sc->dim;
    for (int32_t d = 0; same && d < sc->dim; d++) same = zp->sizes[d] == sc->sizes[d];
    if (!same) {
      QE_FAIL(ctx, "weight_zero_points must have weight_scales' shape");
      return;
    }
    if (!qe_param_dtype_ok(zp->dtype) && !pte_k_is_integral(zp->dtype)) {
      QE_FAIL(ctx, "weight_zero_points has unsupported dtype %s", pte_dtype_name(zp->dtype));
      return;
    }
  }
  if (idx->dtype != PTE_DTYPE_LONG && idx->dtype != PTE_DTYPE_INT) {
    QE_FAIL(ctx, "indices must be int64 or int32, got %s", pte_dtype_name(idx->dtype));
    return;
  }
  if (out->dtype != PTE_DTYPE_FLOAT && out->dtype != PTE_DTYPE_HALF) {
    QE_FAIL(ctx, "out must be float32 or float16, got %s", pte_dtype_name(out->dtype));
    return;
  }
  if (idx->dim + 1 > PTE_MAX_RANK || dim > INT32_MAX) {
    QE_FAIL(ctx, "indices rank %d too large", (int)idx->dim);
    return;
  }
  int32_t osz[PTE_MAX_RANK];
  for (int32_t d = 0; d < idx->dim; d++) osz[d] = idx->sizes[d];
  osz[idx->dim] = (int32_t)dim;
  if (out->dim != idx->dim + 1) {
    QE_FAIL(ctx, "out has rank %d, expected indices' rank + 1 (%d)", (int)out->dim, (int)idx->dim + 1);
    return;
  }
  if (!pte_k_resize_out(ctx, out, osz, out->dim)) return;
  if (!pte_k_check_data(ctx, w, "weight") || !pte_k_check_data(ctx, sc, "weight_scales") ||
      !pte_k_check_data(ctx, idx, "indices") || (zp && !pte_k_check_data(ctx, zp, "weight_zero_points")))
    return;
  const int64_t group_size = dim / groups;
  for (size_t i = 0; i < idx->numel; i++) {
    const int64_t row = pte_k_load_int64(idx->data, idx->dtype, pte_k_offset_of_linear(idx, i));
    if (row < 0 || row >= rows) {
      QE_FAIL(ctx, "indices[%zu] = %lld out of range [0, %lld)", i, (long long)row, (long long)rows);
      return;
    }
    for (int64_t j = 0; j < dim; j++) {
      const int64_t g = row * groups + j / group_size;
      const float s = (float)pte_q_load_float(sc->data, sc->dtype, pte_k_offset_of_linear(sc, (size_t)g));
      const float z = zp ? qe_zp_at(zp, g) : 0.0f;
      const float v = ((float)qe_value(w, row, j, nbit) - z) * s;
      pte_q_store_float(out->data, out->dtype, pte_k_offset_of_linear(out, i * (size_t)dim + (size_t)j), v);
    }
  }
  pte_k_set_return(args, nargs, out_idx);
}

static void q_emb_byte(pte_kernel_context *c, pte_evalue **a, size_t n) { q_embedding(c, a, n, 8, false); }
static void q_emb_byte_dt(pte_kernel_context *c, pte_evalue **a, size_t n) { q_embedding(c, a, n, 8, true); }
static void q_emb_4bit(pte_kernel_context *c, pte_evalue **a, size_t n) { q_embedding(c, a, n, 4, false); }
static void q_emb_4bit_dt(pte_kernel_context *c, pte_evalue **a, size_t n) { q_embedding(c, a, n, 4, true); }
static void q_emb_2bit(pte_kernel_context *c, pte_evalue **a, size_t n) { q_embedding(c, a, n, 2, false); }
static void q_emb_2bit_dt(pte_kernel_context *c, pte_evalue **a, size_t n) { q_embedding(c, a, n, 2, true); }

const pte_kernel pte_q_embedding_kernels[] = {
    {"quantized_decomposed::embedding_byte.out", NULL, q_emb_byte},
    {"quantized_decomposed::embedding_byte.dtype_out", NULL, q_emb_byte_dt},
    {"quantized_decomposed::embedding_4bit.out", NULL, q_emb_4bit},
    {"quantized_decomposed::embedding_4bit.dtype_out", NULL, q_emb_4bit_dt},
    {"quantized_decomposed::embedding_2bit.out", NULL, q_emb_2bit},
    {"quantized_decomposed::embedding_2bit.dtype_out", NULL, q_emb_2bit_dt},
};
const size_t pte_q_embedding_kernels_count = sizeof pte_q_embedding_kernels / sizeof pte_q_embedding_kernels[0];
