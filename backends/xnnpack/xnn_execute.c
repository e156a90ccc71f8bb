/* Execute: bind arguments, replan on new shapes, run the nodes. */
#define _POSIX_C_SOURCE 200809L
#include <time.h>
#include <string.h>

#include "pte_gen/xnnpack_gen.h"
#include "xnn_internal.h"

/* ============================================================================ execute */

static bool dtype_matches(unsigned xd, int pd) {
  switch (xd) {
    case PTE_XD_FP32: return pd == PTE_DTYPE_FLOAT;
    case PTE_XD_FP16: return pd == PTE_DTYPE_HALF;
    case PTE_XD_BF16: return pd == PTE_DTYPE_BFLOAT16;
    case PTE_XD_QINT8:
    case PTE_XD_QCINT8: return pd == PTE_DTYPE_CHAR || pd == PTE_DTYPE_QINT8;
    case PTE_XD_QUINT8: return pd == PTE_DTYPE_BYTE || pd == PTE_DTYPE_QUINT8;
    case PTE_XD_QINT32:
    case PTE_XD_QCINT32:
    case PTE_XD_INT32: return pd == PTE_DTYPE_INT || pd == PTE_DTYPE_QINT32;
    default: return false;
  }
}

static pte_status bind_tensor(pte_xnn_delegate *d, pte_xnn_value *v, pte_evalue **args, size_t nargs, bool input,
                              bool *changed, pte_error_info *err) {
  (void)d;
  if (v->external_id >= nargs)
    return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "xnnpack: %s value %u needs argument %u but only %zu were passed",
                         input ? "input" : "output", v->id, v->external_id, nargs);
  pte_evalue *ev = args[v->external_id];
  if (!ev || ev->tag != PTE_TAG_TENSOR || !ev->u.tensor)
    return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "xnnpack: argument %u is not a tensor", v->external_id);
  pte_tensor *t = ev->u.tensor;
  if (!dtype_matches(v->dtype, t->dtype))
    return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "xnnpack: argument %u is %s, the graph expects %s",
                         v->external_id, pte_dtype_name(t->dtype), pte_xnn_dtype_name(v->dtype));
  /* an input may come with another rank than declared (e.g. a 0-d constant for a [1] value):
   * like XNNPACK's reshape of an external value, it takes the tensor's shape */
  if (t->dim < 0 || t->dim > PTE_XNN_MAX_DIMS)
    return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "xnnpack: argument %u has rank %d, the graph expects %u",
                         v->external_id, (int)t->dim, (unsigned)v->rank);
  if (t->dim > 0 && t->dim_order && !pte_dim_order_is_contiguous(t->dim_order, t->dim)) {
    /* a non-default dim order is acceptable only when it does not change the memory layout */
    int32_t last = -1;
    for (int32_t i = 0; i < t->dim; i++) {
      int32_t dd = t->dim_order[i];
      if (t->sizes[dd] == 1) continue;
      if (dd < last)
        return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "xnnpack: argument %u is not contiguous", v->external_id);
      last = dd;
    }
  }
  if (input) {
    if (t->dim != (int32_t)v->rank) {
      *changed = true;
      v->rank = (uint8_t)t->dim;
    }
    for (uint32_t i = 0; i < v->rank; i++) {
      if (t->sizes[i] < 0)
        return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "xnnpack: argument %u has a negative size", v->external_id);
      if ((size_t)t->sizes[i] != v->shape[i]) *changed = true;
    }
    if (*changed) {
      size_t numel = 1;
      for (uint32_t i = 0; i < v->rank; i++) {
        v->shape[i] = (size_t)t->sizes[i];
        numel *= v->shape[i];
      }
      v->numel = numel;
    }
  }
  return PTE_OK;
}

static pte_status run_nodes(pte_xnn_delegate *d, pte_xnn_exec *x, pte_error_info *err);

pte_status pte_xnn_delegate_execute(pte_xnn_delegate *d, pte_evalue **args, size_t nargs, pte_error_info *err) {
  if (!d || (!args && nargs)) return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "xnnpack: NULL delegate or args");
  if (nargs < d->num_externs)
    return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "xnnpack: %zu arguments passed, the graph needs %u", nargs,
                         d->num_externs);
  bool changed = false;
  pte_status s;
  if (d->prep_checks_pending && (s = pte_xnn_check_deferred(d, err)) != PTE_OK) return s;
  for (size_t i = 0; i < d->n_inputs; i++) {
    s = bind_tensor(d, &d->values[d->inputs[i]], args, nargs, true, &changed, err);
    if (s != PTE_OK) return s;
  }
  for (size_t i = 0; i < d->n_outputs; i++) {
    bool dummy = false;
    s = bind_tensor(d, &d->values[d->outputs[i]], args, nargs, false, &dummy, err);
    if (s != PTE_OK) return s;
  }
  if (changed || !d->planned) {
    d->planned = false;
    s = pte_xnn_plan(d, false, err);
    if (s != PTE_OK) {
      if (s == PTE_ERR_INVALID_PROGRAM) s = PTE_ERR_INVALID_ARGUMENT;
      if (err) err->status = s;
      return s;
    }
  }
  /* resize outputs and bind data */
  for (size_t i = 0; i < d->n_outputs; i++) {
    pte_xnn_value *v = &d->values[d->outputs[i]];
    pte_tensor *t = args[v->external_id]->u.tensor;
    int32_t sizes[PTE_XNN_MAX_DIMS];
    for (uint32_t k = 0; k < v->rank; k++) sizes[k] = (int32_t)v->shape[k];
    if (t->dim == (int32_t)v->rank) s = pte_tensor_resize(t, sizes, (int32_t)v->rank);
    else s = t->numel == v->numel ? PTE_OK : PTE_ERR_INVALID_ARGUMENT; /* e.g. [1] computed for a 0-d tensor */
    if (s != PTE_OK)
      return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "xnnpack: cannot resize output argument %u to the computed shape (%s)",
                           v->external_id, pte_status_name(s));
    if (!t->data && v->numel)
      return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "xnnpack: output argument %u has no data", v->external_id);
    v->data = (uint8_t *)t->data;
  }
  for (size_t i = 0; i < d->n_inputs; i++) {
    pte_xnn_value *v = &d->values[d->inputs[i]];
    pte_tensor *t = args[v->external_id]->u.tensor;
    if (!t->data && v->numel)
      return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "xnnpack: input argument %u has no data", v->external_id);
    v->data = (uint8_t *)t->data;
  }
  for (size_t i = 0; i < d->n_values; i++) {
    pte_xnn_value *v = &d->values[i];
    if (v->is_input || v->is_output) continue;
    if (v->is_const) v->data = (uint8_t *)(uintptr_t)v->cdata;
    else if (v->def_node >= 0) v->data = d->arena + v->offset;
  }
  for (size_t i = 0; i < d->n_values; i++) /* reshapes in place (xnn_fuse.c) */
    if (d->values[i].aliased) d->values[i].data = d->values[d->values[i].alias].data;
  pte_xnn_exec x;
  x.d = d;
  x.k = d->k;
  x.vec = pte_xnn_vec_kernels_for(d->k);
  x.pool = d->pool;
  x.threads = d->threads;
  x.shared = d->arena + d->arena_size;
  x.scratch = x.shared + d->shared_scratch;
  x.scratch_stride = d->scratch_per_thread;
  pte_xnn_pool_begin(d->pool);
  s = run_nodes(d, &x, err);
  pte_xnn_pool_end(d->pool);
  return s;
}

static pte_status run_nodes(pte_xnn_delegate *d, pte_xnn_exec *x, pte_error_info *err) {
  pte_status s;
  if (d->profiling) {
    for (size_t i = 0; i < d->n_nodes; i++) {
      struct timespec t0, t1;
      clock_gettime(CLOCK_MONOTONIC, &t0);
      s = pte_xnn_run_node(x, i, err);
      clock_gettime(CLOCK_MONOTONIC, &t1);
      const uint64_t ns = (uint64_t)((int64_t)(t1.tv_sec - t0.tv_sec) * 1000000000 + (t1.tv_nsec - t0.tv_nsec));
      d->prof_ns[i] += ns;
      d->prof_calls[i]++;
      if (d->nodes[i].fuse != PTE_XNN_FUSE_SKIP) pte_xnn_profile_global_add(d->nodes[i].type, ns);
      if (s != PTE_OK) return s;
    }
    return PTE_OK;
  }
  for (size_t i = 0; i < d->n_nodes; i++) {
    s = pte_xnn_run_node(x, i, err);
    if (s != PTE_OK) return s;
  }
  return PTE_OK;
}


void pte_xnn_delegate_sleep_workers(pte_xnn_delegate *d) {
  if (d) pte_xnn_pool_sleep(d->pool);
}
