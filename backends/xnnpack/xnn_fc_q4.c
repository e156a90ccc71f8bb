/* FullyConnected with 4-bit weights: init-time checks and packing, execute (xnn_q4.h). */
#include <stdlib.h>
#include <string.h>

#include "xnn_ops.h"
#include "xnn_q4.h"

#define NERR(st, ...) pte_error_set(err, (st), __VA_ARGS__)

pte_status pte_xnn_prepare_fc_q4(pte_xnn_delegate *d, pte_xnn_node *n, size_t nout, size_t kdim, pte_error_info *err) {
  const size_t ni = (size_t)(n - d->nodes);
  const pte_xnn_value *w = V(n->in[1]);
  const pte_xnn_value *b = n->in[2] != PTE_XNN_INVALID_ID ? V(n->in[2]) : NULL;
  const size_t block = w->dtype == PTE_XD_QBINT4 ? w->block_size : 0;
  if (nout > 0xFFFFFFFFu || kdim > 0xFFFFFFFFu || kdim == 0)
    return NERR(PTE_ERR_INVALID_PROGRAM, "xnnpack: node %zu (FullyConnected): %s filter of %zu x %zu is not supported", ni,
                pte_xnn_dtype_name(w->dtype), nout, kdim);
  if (w->dtype == PTE_XD_QBINT4 && (block == 0 || kdim % block != 0 || w->n_block_scales != nout * (kdim / block)))
    return NERR(PTE_ERR_INVALID_PROGRAM, "xnnpack: node %zu (FullyConnected): qbint4 filter blocks do not match K %zu", ni,
                kdim);
  if (w->dtype == PTE_XD_QCINT4 && (w->channel_dim != 0 || w->n_channel_scales != nout))
    return NERR(PTE_ERR_INVALID_PROGRAM, "xnnpack: node %zu (FullyConnected): filter scales are not per output channel", ni);
  if (b && b->prep)
    return NERR(PTE_ERR_INVALID_PROGRAM, "xnnpack: node %zu (FullyConnected): bias constant %u holds prepared (packed) data", ni,
                b->const_index);
  const pte_xnn_packed_info li = pte_xnn_q4_layout(nout, kdim, block);
  const size_t one = (size_t)((li.total_size + 63) & ~(uint64_t)63);
  if (w->prep) return pte_xnn_use_prepared(d, n, w, 1, &li, one, err);
  n->group_stride = one;
  n->n_groups = 1;
  if (d->lazy_pack && d->lazy_node != ni + 1) { /* lazy init: not this node */
    n->packed.size = one;
    return PTE_OK;
  }
  if (d->lazy_pack && one <= d->lazy_buf_size) {
    n->packed.bytes = d->lazy_buf;
    n->packed_borrowed = true;
  } else {
    n->packed.bytes = (uint8_t *)pte_xnn_packed_alloc(one);
  }
  if (!n->packed.bytes) return NERR(PTE_ERR_MEMORY_ALLOCATION_FAILED, "xnnpack: out of memory packing weights");
  n->packed.size = one;
  if (one > li.total_size) memset(n->packed.bytes + li.total_size, 0, one - (size_t)li.total_size);
  pte_xnn_pack_q4_panels(nout, kdim, block, w->cdata, w->channel_scales, w->block_scales,
                         b ? (const float *)(const void *)b->cdata : NULL, n->packed.bytes, 0, li.n_panels);
  if (d->lazy_pack && pte_xnn_file_backed(w->cdata, w->csize)) pte_xnn_release_pages(w->cdata, w->csize);
  pte_xnn_stat_add(PTE_XNN_STAT_PACKS, 1);
  pte_xnn_stat_add(PTE_XNN_STAT_PACKED_BYTES, n->packed.size);
  return PTE_OK;
}

pte_status pte_xnn_run_fc_q4(pte_xnn_exec *x, const pte_xnn_node *n) {
  pte_xnn_delegate *d = x->d;
  const pte_xnn_value *a = V(n->in[0]), *w = V(n->in[1]), *o = V(n->out[0]);
  const size_t nout = w->shape[0], kdim = w->shape[1];
  const size_t m = kdim ? a->numel / kdim : 0;
  /* one set of quantization parameters per product of the last num_nonbatch_dims dims */
  const int nb = a->num_nonbatch_dims > 0 ? a->num_nonbatch_dims : 1;
  size_t inner = 1;
  for (int i = (int)a->rank - nb; i < (int)a->rank; i++)
    if (i >= 0) inner *= a->shape[i];
  const size_t rows = inner ? a->numel / inner : 1;
  const pte_xnn_qrow *qp = (const pte_xnn_qrow *)(const void *)(a->data + ((a->numel + 63) & ~(size_t)63));
  pte_xnn_qd8_q4_gemm(x, n->packed.bytes, m, (const int8_t *)a->data, kdim, qp, rows ? m / rows : 1, (float *)o->data,
                      nout, n->out_min, n->out_max);
  return PTE_OK;
}
