/* xnn_ops.h — what the per-family operator files share (private to backends/xnnpack):
 *
 *   xnn_ops.c         the node-kind table, per-node preparation (dtype checks, packing), the run
 *                     dispatch                    xnn_infer.c     shape inference
 *   xnn_elementwise.c binary, unary, softmax        xnn_quantize.c  Convert
 *   xnn_shape.c       transpose, reshape, slice, pad, concatenate, resize
 *   xnn_pool.c        max / average / global average pooling
 *   xnn_conv.c        FullyConnected, BatchMatrixMultiply, Conv2d, DepthwiseConv2d at execute
 *
 * Include order: xnn_internal.h <- xnn_ops.h <- the operator files (no cycles).
 */
#ifndef PTE_BACKENDS_XNNPACK_OPS_H
#define PTE_BACKENDS_XNNPACK_OPS_H

#include "pte_gen/xnnpack_gen.h"
#include "xnn_internal.h"

/* value i of the delegate `d` in scope */
#define V(i) (&d->values[(i)])

static inline bool xo_f32(const pte_xnn_value *v) { return v->dtype == PTE_XD_FP32; }
static inline int32_t xo_q_lo(const pte_xnn_value *v) { return v->dtype == PTE_XD_QUINT8 ? 0 : -128; }
static inline int32_t xo_q_hi(const pte_xnn_value *v) { return v->dtype == PTE_XD_QUINT8 ? 255 : 127; }
/* element i of a qint8 / quint8 value, dequantized */
static inline float xo_load_q(const pte_xnn_value *v, const uint8_t *p, size_t i) {
  int32_t q = v->dtype == PTE_XD_QUINT8 ? (int32_t)p[i] : (int32_t)((const int8_t *)p)[i];
  return (float)(q - v->zero_point) * v->scale;
}
static inline void xo_store_q(const pte_xnn_value *v, uint8_t *p, size_t i, float x) {
  int32_t q = pte_xnn_quantize(x, 1.0f / v->scale, v->zero_point, xo_q_lo(v), xo_q_hi(v));
  if (v->dtype == PTE_XD_QUINT8) p[i] = (uint8_t)q;
  else ((int8_t *)p)[i] = (int8_t)q;
}

/* ---- the node-kind table (xnn_ops.c): the one place that lists the kinds this backend runs -- */
typedef enum pte_xnn_family {
  PTE_XNN_FAM_NONE = 0, /* not supported */
  PTE_XNN_FAM_BINARY,   /* 2 inputs, NumPy broadcasting, fused clamp */
  PTE_XNN_FAM_UNARY,    /* elementwise math, 1 input */
  PTE_XNN_FAM_MOVE,     /* data movement: same dtype in and out */
  PTE_XNN_FAM_OTHER     /* everything with its own rules (GEMM/conv, pooling, softmax, convert, resize) */
} pte_xnn_family;

typedef pte_status (*pte_xnn_run_fn)(pte_xnn_exec *x, const pte_xnn_node *n);

typedef struct pte_xnn_kind {
  uint8_t family; /* pte_xnn_family */
  int8_t vop;     /* binary: PTE_XNN_B_*; unary: PTE_XNN_U_* or -1 (libm per element) */
  pte_xnn_run_fn run;
} pte_xnn_kind;

/* Entry of a node kind (an XNodeUnion tag); family PTE_XNN_FAM_NONE for unknown ones. */
const pte_xnn_kind *pte_xnn_kind_of(unsigned type);
static inline bool xo_is_binary(unsigned t) { return pte_xnn_kind_of(t)->family == PTE_XNN_FAM_BINARY; }
static inline bool xo_is_unary_math(unsigned t) { return pte_xnn_kind_of(t)->family == PTE_XNN_FAM_UNARY; }

/* run functions, one family per file */
pte_status pte_xnn_run_binary(pte_xnn_exec *x, const pte_xnn_node *n);
pte_status pte_xnn_run_unary(pte_xnn_exec *x, const pte_xnn_node *n);
pte_status pte_xnn_run_softmax(pte_xnn_exec *x, const pte_xnn_node *n);
pte_status pte_xnn_run_convert(pte_xnn_exec *x, const pte_xnn_node *n);
pte_status pte_xnn_run_transpose(pte_xnn_exec *x, const pte_xnn_node *n);
pte_status pte_xnn_run_reshape(pte_xnn_exec *x, const pte_xnn_node *n);
pte_status pte_xnn_run_slice(pte_xnn_exec *x, const pte_xnn_node *n);
pte_status pte_xnn_run_pad(pte_xnn_exec *x, const pte_xnn_node *n);
pte_status pte_xnn_run_concat(pte_xnn_exec *x, const pte_xnn_node *n);
pte_status pte_xnn_run_resize(pte_xnn_exec *x, const pte_xnn_node *n);
pte_status pte_xnn_run_pool(pte_xnn_exec *x, const pte_xnn_node *n);
pte_status pte_xnn_run_global_avg(pte_xnn_exec *x, const pte_xnn_node *n);
pte_status pte_xnn_run_fc(pte_xnn_exec *x, const pte_xnn_node *n);
pte_status pte_xnn_run_bmm(pte_xnn_exec *x, const pte_xnn_node *n);
pte_status pte_xnn_run_conv(pte_xnn_exec *x, const pte_xnn_node *n);

/* Strides (elements) of value v broadcast to an output of rank r with dims odims (0: broadcast). */
void pte_xnn_bstrides(const pte_xnn_value *v, unsigned r, const size_t *odims, size_t *st);
/* im2col tile rows for a reduction of kdim elements of elem bytes (a multiple of the tiles' MR). */
size_t pte_xnn_conv_tile_rows(const pte_xnn_kernels *k, size_t kdim, size_t elem);
/* qs8 depthwise with multiplier 1 (xnn_dw_qs8.c): at init, from the grouped-GEMM packing of the
 * node, the kernel layout in n->dwq (left NULL when the node keeps the grouped path); per-thread
 * scratch for output width ow; execute. */
pte_status pte_xnn_dwq_prepare(pte_xnn_node *n, const pte_xnn_kernels *k, int32_t in_zp);
size_t pte_xnn_dwq_scratch(const pte_xnn_node *n, size_t ow);
void pte_xnn_dwq_run(pte_xnn_exec *x, const pte_xnn_node *n);

/* Prepared packed weights of a FC/conv filter (xnn_ops.c): used in place, copied or re-laid out. */
pte_status pte_xnn_use_prepared(pte_xnn_delegate *d, pte_xnn_node *n, const pte_xnn_value *w, size_t groups,
                                const pte_xnn_packed_info *want, size_t one, pte_error_info *err);
/* FullyConnected with qcint4 / qbint4 filter [nout, kdim] (xnn_fc_q4.c): checks and packs. */
pte_status pte_xnn_prepare_fc_q4(pte_xnn_delegate *d, pte_xnn_node *n, size_t nout, size_t kdim, pte_error_info *err);
pte_status pte_xnn_run_fc_q4(pte_xnn_exec *x, const pte_xnn_node *n);

#endif
