/* Convert: fp32 <-> qint8 / quint8, fp32 -> qdint8 (per-row dynamic quantization), q8 -> q8. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "xnn_ops.h"

pte_status pte_xnn_run_convert(pte_xnn_exec *x, const pte_xnn_node *n) {
  pte_xnn_delegate *d = x->d;
  const pte_xnn_value *a = V(n->in[0]), *o = V(n->out[0]);
  if (xo_f32(a) && xo_f32(o)) {
    if (a->data != o->data) memmove(o->data, a->data, a->numel * 4);
    return PTE_OK;
  }
  if (xo_f32(a) && o->dtype == PTE_XD_QDINT8) {
    const int nb = o->num_nonbatch_dims > 0 ? o->num_nonbatch_dims : 1;
    size_t inner = 1;
    for (int i = (int)o->rank - nb; i < (int)o->rank; i++)
      if (i >= 0) inner *= o->shape[i];
    const size_t rows = inner ? o->numel / inner : 0;
    pte_xnn_qrow *qp = (pte_xnn_qrow *)(o->data + ((o->numel + 63) & ~(size_t)63));
    const float *pa = (const float *)a->data;
    int8_t *po = (int8_t *)o->data;
    for (size_t r = 0; r < rows; r++) {
      const float *row = pa + r * inner;
      float mn = 0.0f, mx = 0.0f;
      for (size_t i = 0; i < inner; i++) {
        mn = row[i] < mn ? row[i] : mn;
        mx = row[i] > mx ? row[i] : mx;
      }
      float inv;
      qp[r] = pte_xnn_qd8_params(mn, mx, &inv);
      for (size_t i = 0; i < inner; i++)
        po[r * inner + i] = (int8_t)pte_xnn_quantize(row[i], inv, qp[r].zero_point, -128, 127);
    }
    return PTE_OK;
  }
  if (xo_f32(a)) {
    const float *pa = (const float *)a->data;
    for (size_t i = 0; i < a->numel; i++) xo_store_q(o, o->data, i, pa[i]);
    return PTE_OK;
  }
  if (xo_f32(o)) {
    float *po = (float *)o->data;
    for (size_t i = 0; i < a->numel; i++) po[i] = xo_load_q(a, a->data, i);
    return PTE_OK;
  }
  for (size_t i = 0; i < a->numel; i++) xo_store_q(o, o->data, i, xo_load_q(a, a->data, i));
  return PTE_OK;
}

