/* Method execution, inputs and outputs. */
#include <math.h>
#include <string.h>

#include <stdarg.h>

#include "method_internal.h"
#include "base/vformat.h"

static const char *const k_scope_names[] = {"", "OPERATOR_CALL", "DELEGATE_CALL", "MOVE_CALL", "JF_CALL", "FREE_CALL"};

static bool in_progress(const pte_method *m) {
  return (m->chain_idx != 0 || m->instr_idx != 0) && m->chain_idx < m->n_chains;
}

/* "instruction 3", or "chain 1 instruction 3" for multi-chain methods. */
static void where(const pte_method *m, char *buf, size_t cap) {
  size_t len = 0;
  size_t nums[2] = {m->chain_idx, m->instr_idx};
  const char *words[2] = {"chain ", "instruction "};
  for (int p = m->n_chains > 1 ? 0 : 1; p < 2; p++) {
    if (p == 1 && m->n_chains > 1 && len + 1 < cap) buf[len++] = ' ';
    for (const char *w = words[p]; *w && len + 1 < cap; w++) buf[len++] = *w;
    char tmp[24];
    size_t v = nums[p], k = 0;
    do {
      tmp[k++] = (char)('0' + v % 10);
      v /= 10;
    } while (v);
    while (k && len + 1 < cap) buf[len++] = tmp[--k];
  }
  buf[len] = '\0';
}

static pte_status cond_value(const pte_method *m, const pte_evalue *v, bool *out, pte_error_info *err) {
  char at[64];
  if (v->tag == PTE_TAG_BOOL) {
    *out = v->u.b;
    return PTE_OK;
  }
  where(m, at, sizeof at);
  if (v->tag != PTE_TAG_TENSOR)
    return pte_error_set(err, PTE_ERR_INVALID_PROGRAM, "%s (JumpFalseCall): condition is a %s, expected Bool or a bool tensor",
                         at, pte_tag_name((int)v->tag));
  const pte_tensor *t = v->u.tensor;
  if (t->dtype != PTE_DTYPE_BOOL)
    return pte_error_set(err, PTE_ERR_INVALID_PROGRAM, "%s (JumpFalseCall): condition tensor has dtype %s, expected bool", at,
                         pte_dtype_name(t->dtype));
  if (!t->data) return pte_error_set(err, PTE_ERR_INVALID_STATE, "%s (JumpFalseCall): condition tensor has no data", at);
  const uint8_t *d = (const uint8_t *)t->data;
  *out = true;
  for (size_t i = 0; i < t->numel; i++)
    if (!d[i]) {
      *out = false;
      break;
    }
  return PTE_OK;
}

/* Runs instruction (chain_idx, instr_idx); *next receives the following instruction index. */
static pte_status exec_instr(pte_method *m, size_t *next, pte_error_info *err) {
  const pte_instr *in = &m->chains[m->chain_idx].instrs[m->instr_idx];
  *next = m->instr_idx + 1;
  pte_status st = PTE_OK;
  uint64_t tok = 0;
  if (m->tracer) tok = pte_tracer_begin(m->tracer, k_scope_names[in->kind], (int32_t)m->chain_idx, (int64_t)m->instr_idx);
  switch (in->kind) {
    case pte_et_InstructionArguments_KernelCall: {
      pte_kernel_context ctx;
      ctx.failure = PTE_OK;
      ctx.temp = m->temp;
      ctx.event_tracer = m->tracer;
      ctx.op_name = m->ops[in->a].name;
      ctx.msg[0] = '\0';
      in->fn(&ctx, in->args, in->nargs);
      if (ctx.failure != PTE_OK) {
        char at[64];
        where(m, at, sizeof at);
        st = pte_error_set(err, ctx.failure, "%s (%s) failed: %s", at, ctx.op_name,
                           ctx.msg[0] ? ctx.msg : pte_status_name(ctx.failure));
      }
      break;
    }
    case pte_et_InstructionArguments_DelegateCall: {
      const pte_delegate_rt *d = &m->delegates[in->a];
      pte_error_info be;
      be.status = PTE_OK;
      be.msg[0] = '\0';
      pte_backend_execution_context ctx;
      memset(&ctx, 0, sizeof ctx);
      ctx.temp_allocator = m->temp;
      ctx.method_name = m->name;
      ctx.event_tracer = m->tracer;
      ctx.err = &be;
      ctx.delegate_index = in->a;
      ctx.scratch = d->n_scratch ? d->scratch : NULL;
      ctx.n_scratch = d->n_scratch;
      st = d->backend->execute(&ctx, d->handle, in->args, in->nargs);
      if (st != PTE_OK) {
        char at[64];
        where(m, at, sizeof at);
        pte_error_set(err, st, "%s (delegate %u, backend '%s') failed: %s", at, in->a, d->id,
                      be.msg[0] ? be.msg : pte_status_name(st));
      }
      if (m->tracer)
        for (size_t k = 0; k < in->nargs; k++) pte_tracer_log_evalue(m->tracer, in->args[k], PTE_EVALUE_LOG_INTERMEDIATE);
      break;
    }
    case pte_et_InstructionArguments_MoveCall:
      m->values[in->b] = m->values[in->a];
      break;
    case pte_et_InstructionArguments_JumpFalseCall: {
      bool c = true;
      st = cond_value(m, &m->values[in->a], &c, err);
      if (st == PTE_OK && !c) *next = in->b;
      break;
    }
    case pte_et_InstructionArguments_FreeCall: {
      pte_evalue *v = &m->values[in->a];
      if (v->tag == PTE_TAG_TENSOR) {
        v->u.tensor->data = NULL;
      } else {
        char at[64];
        where(m, at, sizeof at);
        st = pte_error_set(err, PTE_ERR_INVALID_PROGRAM, "%s (FreeCall): value %u is a %s, not a tensor", at, in->a,
                           pte_tag_name((int)v->tag));
      }
      break;
    }
    default:
      st = pte_error_set(err, PTE_ERR_INVALID_PROGRAM, "invalid instruction kind %u", (unsigned)in->kind);
      break;
  }
  if (m->tracer) pte_tracer_end(m->tracer, tok);
  if (m->temp) pte_allocator_reset(m->temp);
  return st;
}

static void log_outputs(pte_method *m) {
  if (!m->tracer) return;
  for (size_t i = 0; i < m->n_outputs; i++)
    pte_tracer_log_evalue(m->tracer, &m->values[m->outputs[i]], PTE_EVALUE_LOG_OUTPUT);
}

pte_status pte_method_execute(pte_method *m, pte_error_info *err) {
  if (!m || !m->initialized) return pte_error_set(err, PTE_ERR_NOT_SUPPORTED, "method is not loaded");
  if (in_progress(m)) return pte_error_set(err, PTE_ERR_INVALID_STATE, "method execution is in progress (step)");
  for (size_t i = 0; i < m->n_inputs; i++)
    if (!m->input_set[i]) return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "input %zu has not been set", i);
  for (size_t k = 0; k < m->n_unbacked; k++) {
    const pte_evalue *v = &m->values[m->unbacked[k]];
    if (v->tag == PTE_TAG_TENSOR && !v->u.tensor->data && pte_tensor_nbytes(v->u.tensor)) {
      for (size_t o = 0; o < m->n_outputs; o++)
        if (m->outputs[o] == m->unbacked[k])
          return pte_error_set(err, PTE_ERR_INVALID_STATE,
                               "output %zu (value %u) is not memory planned and has no data: call pte_method_set_output_data_ptr",
                               o, m->unbacked[k]);
      return pte_error_set(err, PTE_ERR_INVALID_STATE, "value %u (a tensor used by an instruction) has no data", m->unbacked[k]);
    }
  }
  pte_tracer_create_event_block(m->tracer, "Execute");
  uint64_t tok = pte_tracer_begin(m->tracer, "Method::execute", -1, -1);
  if (m->temp) pte_allocator_reset(m->temp);
  uint64_t count = 0;
  for (m->chain_idx = 0; m->chain_idx < m->n_chains; m->chain_idx++) {
    const pte_chain_rt *ch = &m->chains[m->chain_idx];
    m->instr_idx = 0;
    while (m->instr_idx < ch->n) {
      if (count >= m->max_instructions) {
        pte_error_set(err, PTE_ERR_INVALID_PROGRAM,
                      "instruction limit (%llu) exceeded at chain %zu instruction %zu: infinite loop?",
                      (unsigned long long)m->max_instructions, m->chain_idx, m->instr_idx);
        m->chain_idx = m->instr_idx = 0;
        pte_tracer_end(m->tracer, tok);
        return PTE_ERR_INVALID_PROGRAM;
      }
      count++;
      size_t next;
      pte_status st = exec_instr(m, &next, err);
      if (st != PTE_OK) {
        m->chain_idx = m->instr_idx = 0;
        pte_tracer_end(m->tracer, tok);
        return st;
      }
      m->instr_idx = next;
    }
  }
  log_outputs(m);
  m->chain_idx = m->instr_idx = 0;
  pte_tracer_end(m->tracer, tok);
  return PTE_OK;
}

pte_status pte_method_step(pte_method *m, pte_error_info *err) {
  if (!m || !m->initialized) return pte_error_set(err, PTE_ERR_INVALID_STATE, "method is not loaded");
  if (m->chain_idx >= m->n_chains) return PTE_END_OF_METHOD;
  const pte_chain_rt *ch = &m->chains[m->chain_idx];
  if (ch->n == 0) {
    m->instr_idx = 0;
    m->chain_idx++;
    if (m->chain_idx == m->n_chains) log_outputs(m);
    return PTE_OK;
  }
  uint64_t tok = pte_tracer_begin(m->tracer, "Method::step", -1, -1);
  size_t next;
  pte_status st = exec_instr(m, &next, err);
  pte_tracer_end(m->tracer, tok);
  if (st != PTE_OK) return st;
  m->instr_idx = next;
  if (m->instr_idx >= ch->n) {
    m->instr_idx = 0;
    m->chain_idx++;
    if (m->chain_idx == m->n_chains) log_outputs(m);
  }
  return PTE_OK;
}

pte_status pte_method_reset_execution(pte_method *m) {
  if (!m || !m->initialized) return PTE_ERR_INVALID_STATE;
  if (m->chain_idx != m->n_chains) return PTE_ERR_INVALID_STATE;
  m->chain_idx = m->instr_idx = 0;
  return PTE_OK;
}

/* ------------------------------------------------------------------------------ inputs */

static double dabs(double x) { return x < 0 ? -x : x; }

/* Upstream's Double input check: atol 1e-4 + rtol 1e-5, NaN == NaN, same-sign infinities equal. */
static bool doubles_match(double got, double traced) {
  if (isnan(got) && isnan(traced)) return true;
  if (isinf(got) && isinf(traced)) return (got > 0) == (traced > 0);
  double diff = dabs(got - traced);
  if (!isfinite(diff)) return false;
  return diff <= 1e-4 + dabs(1e-5 * traced);
}

/* Same memory layout: equal strides in every dimension of size > 1. */
static bool same_layout(const pte_tensor *dst, const int32_t *sizes, const uint8_t *src_order, int32_t dim) {
  if (!src_order) return true;
  int32_t a[PTE_MAX_RANK], b[PTE_MAX_RANK];
  if (pte_strides_from_dim_order(sizes, src_order, dim, a) != PTE_OK) return false;
  if (pte_strides_from_dim_order(sizes, dst->dim_order, dim, b) != PTE_OK) return false;
  for (int32_t d = 0; d < dim; d++)
    if (sizes[d] > 1 && a[d] != b[d]) return false;
  return true;
}

static size_t fmt_at(char *buf, size_t cap, const char *f, ...) {
  va_list ap;
  va_start(ap, f);
  size_t n = pte_vformat(buf, cap, f, ap);
  va_end(ap);
  return n < cap ? n : (cap ? cap - 1 : 0);
}

/* "float32[2, 3]" for messages. */
static const char *shape_text(int dtype, const int32_t *sizes, int32_t dim, char *buf, size_t cap) {
  size_t len = fmt_at(buf, cap, "%s[", pte_dtype_name(dtype));
  for (int32_t d = 0; d < dim && sizes && len + 1 < cap; d++)
    len += fmt_at(buf + len, cap - len, "%s%d", d ? ", " : "", (int)sizes[d]);
  if (len + 1 < cap) fmt_at(buf + len, cap - len, "]");
  return buf;
}

static pte_status set_tensor_input(pte_method *m, size_t i, pte_tensor *dst, const pte_tensor *src, pte_error_info *err) {
  (void)m;
  if (!src) return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "input %zu: NULL tensor", i);
  char want[96], got[96];
  if (src->dtype != dst->dtype || src->dim != dst->dim)
    return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "input %zu: expected %s, got %s", i,
                         shape_text(dst->dtype, dst->sizes, dst->dim, want, sizeof want),
                         shape_text(src->dtype, src->sizes, src->dim, got, sizeof got));
  if (src->dim && !src->sizes) return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "input %zu: tensor without sizes", i);
  size_t numel, es = pte_dtype_size(src->dtype);
  if (pte_numel(src->sizes, src->dim, &numel) != PTE_OK || (es && numel > SIZE_MAX / es))
    return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "input %zu: invalid or overflowing sizes", i);
  size_t nbytes = numel * es;
  if (!same_layout(dst, src->sizes, src->dim_order, src->dim))
    return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "input %zu: memory layout (dim order) differs from the method's", i);
  if (dst->flags & PTE_TENSOR_CONST)
    return pte_error_set(err, PTE_ERR_INVALID_STATE, "input %zu is a program constant and cannot be set", i);
  bool same = true;
  for (int32_t d = 0; d < dst->dim; d++) same = same && src->sizes[d] == dst->sizes[d];
  if (!same) {
    if (dst->dynamism == PTE_SHAPE_STATIC)
      return pte_error_set(err, PTE_ERR_NOT_SUPPORTED, "input %zu: expected %s (a static shape), got %s", i,
                           shape_text(dst->dtype, dst->sizes, dst->dim, want, sizeof want),
                           shape_text(src->dtype, src->sizes, src->dim, got, sizeof got));
    if (nbytes > dst->capacity_bytes)
      return pte_error_set(err, PTE_ERR_NOT_SUPPORTED,
                           "input %zu: %s has %zu elements, more than the %zu its dynamic bound holds (%zu bytes)", i,
                           shape_text(src->dtype, src->sizes, src->dim, got, sizeof got), numel,
                           es ? dst->capacity_bytes / es : 0, dst->capacity_bytes);
    pte_status s = pte_tensor_resize(dst, src->sizes, src->dim);
    if (s != PTE_OK) return pte_error_set(err, s, "input %zu: cannot resize (%s)", i, pte_status_name(s));
  }
  if (nbytes && !src->data) return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "input %zu: tensor has no data", i);
  if (dst->flags & PTE_TENSOR_PLANNED) {
    if (nbytes && !dst->data) return pte_error_set(err, PTE_ERR_INTERNAL, "input %zu: planned tensor without data", i);
    if (nbytes && dst->data != src->data) memmove(dst->data, src->data, nbytes);
  } else {
    dst->data = src->data;
  }
  return PTE_OK;
}

pte_status pte_method_set_input(pte_method *m, size_t i, const pte_evalue *v, pte_error_info *err) {
  if (!m || !m->initialized) return pte_error_set(err, PTE_ERR_INVALID_STATE, "method is not loaded");
  if (m->chain_idx != 0 || m->instr_idx != 0)
    return pte_error_set(err, PTE_ERR_INVALID_STATE, "inputs cannot be set mid execution");
  if (i >= m->n_inputs)
    return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "input index %zu out of range (method '%s' has %zu inputs)", i, m->name,
                         m->n_inputs);
  if (!v) return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "input %zu: NULL value", i);
  pte_evalue *e = &m->values[m->inputs[i]];
  switch (e->tag) {
    case PTE_TAG_NONE: case PTE_TAG_TENSOR: case PTE_TAG_INT: case PTE_TAG_DOUBLE: case PTE_TAG_BOOL: case PTE_TAG_STRING:
      break;
    default:
      return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "input %zu is a %s: only tensors and scalars can be inputs", i,
                           pte_tag_name((int)e->tag));
  }
  if (e->tag != v->tag)
    return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "input %zu expects a %s, got a %s", i, pte_tag_name((int)e->tag),
                         pte_tag_name((int)v->tag));
  pte_status s = PTE_OK;
  switch (e->tag) {
    case PTE_TAG_TENSOR: s = set_tensor_input(m, i, e->u.tensor, v->u.tensor, err); break;
    case PTE_TAG_INT:
      if (e->u.i != v->u.i)
        s = pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "input %zu must equal the traced value %lld, got %lld", i,
                          (long long)e->u.i, (long long)v->u.i);
      break;
    case PTE_TAG_BOOL:
      if (e->u.b != v->u.b)
        s = pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "input %zu must equal the traced value %s", i, e->u.b ? "true" : "false");
      break;
    case PTE_TAG_DOUBLE:
      if (!doubles_match(v->u.d, e->u.d))
        s = pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "input %zu must equal the traced Double value", i);
      break;
    case PTE_TAG_STRING:
      if (e->u.str.len != v->u.str.len || (e->u.str.len && (!v->u.str.ptr || memcmp(e->u.str.ptr, v->u.str.ptr, e->u.str.len))))
        s = pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "input %zu must equal the traced string", i);
      break;
    default: break;
  }
  if (s != PTE_OK) return s;
  m->input_set[i] = true;
  return PTE_OK;
}

pte_status pte_method_set_input_tensor(pte_method *m, size_t i, pte_dtype dtype, const int32_t *sizes, int32_t dim,
                                       const void *data, size_t nbytes, pte_error_info *err) {
  if (!m || !m->initialized) return pte_error_set(err, PTE_ERR_INVALID_STATE, "method is not loaded");
  if (i >= m->n_inputs)
    return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "input index %zu out of range (method '%s' has %zu inputs)", i, m->name,
                         m->n_inputs);
  if (dim < 0 || dim > PTE_MAX_RANK || (dim && !sizes))
    return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "input %zu: invalid rank %d", i, (int)dim);
  if (!pte_dtype_valid((int)dtype)) return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "input %zu: invalid dtype", i);
  size_t numel, es = pte_dtype_size((int)dtype);
  if (pte_numel(sizes, dim, &numel) != PTE_OK || (es && numel > SIZE_MAX / es))
    return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "input %zu: invalid sizes", i);
  if (numel * es != nbytes)
    return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "input %zu: %zu bytes given, shape needs %zu", i, nbytes, numel * es);
  pte_tensor t;
  memset(&t, 0, sizeof t);
  t.data = (void *)data;
  t.sizes = (int32_t *)sizes; /* read only */
  t.dim = dim;
  t.dtype = (uint8_t)dtype;
  t.numel = numel;
  t.capacity_bytes = nbytes;
  t.dim_order = NULL; /* data is in the method's layout */
  pte_evalue ev;
  memset(&ev, 0, sizeof ev);
  ev.tag = PTE_TAG_TENSOR;
  ev.u.tensor = &t;
  return pte_method_set_input(m, i, &ev, err);
}

const pte_evalue *pte_method_get_input(const pte_method *m, size_t i) {
  return (m && i < m->n_inputs) ? &m->values[m->inputs[i]] : NULL;
}

/* ------------------------------------------------------------------------------ outputs */

const pte_evalue *pte_method_get_output(const pte_method *m, size_t i) {
  return (m && i < m->n_outputs) ? &m->values[m->outputs[i]] : NULL;
}

pte_status pte_method_set_output_data_ptr(pte_method *m, size_t i, void *buf, size_t size, pte_error_info *err) {
  if (!m || !m->initialized) return pte_error_set(err, PTE_ERR_INVALID_STATE, "method is not loaded");
  if (i >= m->n_outputs)
    return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "output index %zu out of range (method has %zu outputs)", i, m->n_outputs);
  pte_evalue *v = &m->values[m->outputs[i]];
  if (v->tag != PTE_TAG_TENSOR)
    return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "output %zu is a %s, not a tensor", i, pte_tag_name((int)v->tag));
  pte_tensor *t = v->u.tensor;
  if (t->flags & (PTE_TENSOR_PLANNED | PTE_TENSOR_CONST))
    return pte_error_set(err, PTE_ERR_INVALID_STATE, "output %zu is memory planned or a constant: its data pointer is fixed", i);
  if (size < t->capacity_bytes)
    return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "output %zu: buffer of %zu bytes, tensor needs %zu", i, size,
                         t->capacity_bytes);
  if (!buf && size) return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "output %zu: NULL buffer", i);
  t->data = buf;
  return PTE_OK;
}

/* ------------------------------------------------------------------------------ misc */

size_t pte_method_num_inputs(const pte_method *m) { return m ? m->n_inputs : 0; }
size_t pte_method_num_outputs(const pte_method *m) { return m ? m->n_outputs : 0; }
const char *pte_method_name(const pte_method *m) { return m ? m->name : NULL; }
const pte_method_meta *pte_method_get_meta(const pte_method *m) { return m ? &m->meta : NULL; }
size_t pte_method_num_values(const pte_method *m) { return m ? m->n_values : 0; }
const pte_evalue *pte_method_get_value(const pte_method *m, size_t i) {
  return (m && i < m->n_values) ? &m->values[i] : NULL;
}
