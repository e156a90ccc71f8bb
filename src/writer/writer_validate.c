/* writer_validate.c — checks of a built method before it is emitted (writer_pte.h): value
 * indices of every instruction in range, at least one chain. */
#include <string.h>

#include "writer/writer_pte.h"

static pte_status check_index(const wr_method *m, int32_t v, const char *what, size_t c, size_t k, pte_error_info *err) {
  if (v < 0 || (size_t)v >= m->values.n)
    return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "method '%s' chain %zu instruction %zu: %s value %d out of range (%zu values)",
                         m->name, c, k, what, v, m->values.n);
  return PTE_OK;
}

pte_status pte_wr_validate_method(pte_writer *w, wr_method *m, pte_error_info *err) {
  if (m->chains.n == 0) { /* the runtime requires at least one chain */
    if (!pte_wr_vec_push(&w->arena, &m->chains, sizeof(wr_chain))) return PTE_WR_OOM(err);
    m->planned = false;
  }
  for (size_t i = 0; i < m->n_inputs; i++)
    if (m->inputs[i] < 0 || (size_t)m->inputs[i] >= m->values.n)
      return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "method '%s': input %zu is value %d, out of range", m->name, i, m->inputs[i]);
  for (size_t i = 0; i < m->n_outputs; i++)
    if (m->outputs[i] < 0 || (size_t)m->outputs[i] >= m->values.n)
      return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "method '%s': output %zu is value %d, out of range", m->name, i, m->outputs[i]);
  for (size_t i = 0; i < m->values.n; i++) {
    wr_value *v = &PTE_WR_AT(m->values, wr_value, i);
    if (v->kind != WR_V_INT_LIST) continue;
    const int64_t *items = (const int64_t *)v->u.list.items;
    for (size_t k = 0; k < v->u.list.n; k++)
      if (items[k] < 0 || (uint64_t)items[k] >= m->values.n)
        return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "method '%s' value %zu: IntList item %zu names value %lld, out of range",
                             m->name, i, k, (long long)items[k]);
  }
  for (size_t c = 0; c < m->chains.n; c++) {
    wr_chain *ch = &PTE_WR_AT(m->chains, wr_chain, c);
    for (size_t k = 0; k < ch->instrs.n; k++) {
      wr_instr *in = &PTE_WR_AT(ch->instrs, wr_instr, k);
      pte_status s = PTE_OK;
      switch (in->kind) {
        case WR_I_KERNEL:
          if (in->a < 0 || (size_t)in->a >= m->ops.n)
            return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "method '%s' chain %zu instruction %zu: operator %d out of range (%zu operators)",
                                 m->name, c, k, in->a, m->ops.n);
          /* fallthrough */
        case WR_I_DELEGATE:
          if (in->kind == WR_I_DELEGATE && (in->a < 0 || (size_t)in->a >= m->delegates.n))
            return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "method '%s' chain %zu instruction %zu: delegate %d out of range (%zu delegates)",
                                 m->name, c, k, in->a, m->delegates.n);
          for (size_t j = 0; j < in->n_args && s == PTE_OK; j++) s = check_index(m, in->args[j], "argument", c, k, err);
          break;
        case WR_I_MOVE:
          s = check_index(m, in->a, "move source", c, k, err);
          if (s == PTE_OK) s = check_index(m, in->b, "move destination", c, k, err);
          break;
        case WR_I_JUMP_FALSE: s = check_index(m, in->a, "condition", c, k, err); break;
        case WR_I_FREE: s = check_index(m, in->a, "freed", c, k, err); break;
        default: return pte_error_set(err, PTE_ERR_INTERNAL, "writer: bad instruction kind");
      }
      if (s != PTE_OK) return s;
    }
  }
  /* a delegate with scratch belongs to one call site (docs/format.md, pte extensions) */
  for (size_t di = 0; di < m->delegates.n; di++) {
    if (PTE_WR_AT(m->delegates, wr_delegate, di).n_scratch == 0) continue;
    size_t calls = 0;
    for (size_t c = 0; c < m->chains.n; c++) {
      wr_chain *ch = &PTE_WR_AT(m->chains, wr_chain, c);
      for (size_t k = 0; k < ch->instrs.n; k++) {
        wr_instr *in = &PTE_WR_AT(ch->instrs, wr_instr, k);
        if (in->kind == WR_I_DELEGATE && (size_t)in->a == di) calls++;
      }
    }
    if (calls > 1)
      return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "method '%s': delegate %zu has scratch memory but is called %zu times",
                           m->name, di, calls);
  }
  pte_status s = pte_wr_plan_method(w, m, m->name, err);
  if (s != PTE_OK) return s;
  /* arena needs */
  uint32_t max_id = 0;
  for (size_t i = 0; i < m->values.n; i++) {
    wr_value *v = &PTE_WR_AT(m->values, wr_value, i);
    if (v->kind == WR_V_TENSOR && v->u.t->plan != PTE_WR_PLAN_NONE && v->u.t->mem_id > max_id) max_id = v->u.t->mem_id;
  }
  for (size_t i = 0; i < m->delegates.n; i++) {
    wr_delegate *d = &PTE_WR_AT(m->delegates, wr_delegate, i);
    for (size_t k = 0; k < d->n_scratch; k++)
      if (d->scratch[k].mem_id > max_id) max_id = d->scratch[k].mem_id;
  }
  if (max_id > 1u << 20) return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "method '%s': memory id %u too large", m->name, max_id);
  uint64_t *need = (uint64_t *)pte_wr_alloc(&w->out_arena, ((size_t)max_id + 1) * sizeof(uint64_t));
  if (!need) return PTE_WR_OOM(err);
  for (size_t i = 0; i < m->values.n; i++) {
    wr_value *v = &PTE_WR_AT(m->values, wr_value, i);
    if (v->kind != WR_V_TENSOR || v->u.t->plan == PTE_WR_PLAN_NONE) continue;
    uint64_t end = v->u.t->mem_offset + v->u.t->nbytes;
    if (end < v->u.t->mem_offset)
      return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "method '%s' value %zu: planned offset overflows", m->name, i);
    if (end > need[v->u.t->mem_id]) need[v->u.t->mem_id] = end;
  }
  for (size_t i = 0; i < m->delegates.n; i++) {
    wr_delegate *d = &PTE_WR_AT(m->delegates, wr_delegate, i);
    for (size_t k = 0; k < d->n_scratch; k++) {
      uint64_t end = d->scratch[k].offset + d->scratch[k].size;
      if (end > need[d->scratch[k].mem_id]) need[d->scratch[k].mem_id] = end;
    }
  }
  if (m->buffer_sizes_set) {
    for (uint32_t id = 1; id <= max_id; id++) {
      if (need[id] == 0) continue;
      if (id >= m->n_buffer_sizes || (uint64_t)m->buffer_sizes[id] < need[id])
        return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT,
                             "method '%s': buffer sizes too small: arena %u needs %llu bytes, the plan gives %lld", m->name, id,
                             (unsigned long long)need[id], id < m->n_buffer_sizes ? (long long)m->buffer_sizes[id] : -1LL);
    }
  } else {
    m->n_buffer_sizes = (size_t)max_id + 1;
    m->buffer_sizes = (int64_t *)pte_wr_alloc(&w->arena, m->n_buffer_sizes * sizeof(int64_t));
    if (!m->buffer_sizes) return PTE_WR_OOM(err);
    for (uint32_t id = 1; id <= max_id; id++) m->buffer_sizes[id] = (int64_t)pte_wr_align(need[id], w->opt.plan_alignment);
  }
  return PTE_OK;
}
