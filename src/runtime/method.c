/* Method load: parse values and tensors, place tensor data, initialise delegates, resolve
 * kernels and precompute every instruction's argument array. Values and tensor data are in
 * method_values.c, delegates in method_delegates.c (method_load.h). */
#include <stdarg.h>
#include <string.h>

#include "method_load.h"
#include "pte/program.h"

/* ------------------------------------------------------------------------------ chains */

static pte_status build_args(load_ctx *c, pte_fb_vec idx, size_t instr, pte_evalue ***out) {
  pte_method *m = c->m;
  if (idx.len && !pte_fb_vec_elem(idx, idx.len - 1, 4))
    return LERR(c, PTE_ERR_INVALID_PROGRAM, "instruction %zu: argument list out of bounds", instr);
  pte_evalue **args = PTE_ALLOC_ARRAY(m->method_allocator, pte_evalue *, idx.len);
  if (!args) return LERR(c, PTE_ERR_MEMORY_ALLOCATION_FAILED, "method allocator exhausted (instruction %zu args)", instr);
  for (uint32_t k = 0; k < idx.len; k++) {
    int32_t vi = pte_fb_vec_i32(idx, k);
    if (vi < 0 || (size_t)vi >= m->n_values)
      return LERR(c, PTE_ERR_INVALID_PROGRAM, "instruction %zu: argument %u is value %d (method has %zu values)", instr,
                  (unsigned)k, (int)vi, m->n_values);
    args[k] = &m->values[vi];
  }
  *out = args;
  return PTE_OK;
}

static pte_status check_value_index(load_ctx *c, int32_t vi, size_t instr, const char *what) {
  if (vi < 0 || (size_t)vi >= c->m->n_values)
    return LERR(c, PTE_ERR_INVALID_PROGRAM, "instruction %zu: %s value index %d out of range (method has %zu values)",
                instr, what, (int)vi, c->m->n_values);
  return PTE_OK;
}

/* "name.overload" (or "name" for an empty overload) of operator i, built once. */
static pte_status op_name(load_ctx *c, pte_fb_vec ops, uint32_t i, const char **out) {
  pte_method *m = c->m;
  if (m->ops[i].name) {
    *out = m->ops[i].name;
    return PTE_OK;
  }
  pte_fb_table op = pte_fb_vec_table(ops, i);
  pte_fb_str name = pte_et_Operator_name(op);
  pte_fb_str ovl = pte_et_Operator_overload(op);
  if (!name.ptr) return LERR(c, PTE_ERR_INVALID_PROGRAM, "operator %u has no name", (unsigned)i);
  size_t len = (size_t)name.len + (ovl.ptr && ovl.len ? 1 + (size_t)ovl.len : 0);
  char *s = PTE_ALLOC_ARRAY(m->method_allocator, char, len + 1);
  if (!s) return LERR(c, PTE_ERR_MEMORY_ALLOCATION_FAILED, "method allocator exhausted (operator names)");
  memcpy(s, name.ptr, name.len);
  if (ovl.ptr && ovl.len) {
    s[name.len] = '.';
    memcpy(s + name.len + 1, ovl.ptr, ovl.len);
  }
  s[len] = '\0';
  m->ops[i].name = s;
  *out = s;
  return PTE_OK;
}

static void append(char *buf, size_t cap, size_t *len, const char *s) {
  while (*s && *len + 1 < cap) buf[(*len)++] = *s++;
  buf[*len] = '\0';
}

static pte_status missing_ops_error(load_ctx *c, size_t n_missing_instr) {
  pte_method *m = c->m;
  char list[PTE_ERROR_MSG_MAX];
  size_t len = 0;
  list[0] = '\0';
  bool first = true;
  for (size_t i = 0; i < m->n_ops; i++) {
    if (!m->ops[i].missing) continue;
    bool dup = false;
    for (size_t k = 0; k < i && !dup; k++) dup = m->ops[k].missing && strcmp(m->ops[k].name, m->ops[i].name) == 0;
    if (dup) continue;
    if (!first) append(list, sizeof list, &len, ", ");
    append(list, sizeof list, &len, m->ops[i].name);
    first = false;
  }
  return LERR(c, PTE_ERR_OPERATOR_MISSING, "missing operators: %s (method '%s', %zu instructions without a kernel)", list,
              m->name, n_missing_instr);
}

static pte_status load_chains(load_ctx *c) {
  pte_method *m = c->m;
  pte_fb_vec chains = pte_et_ExecutionPlan_chains(c->plan);
  if (!chains.present || chains.len == 0) return LERR(c, PTE_ERR_INVALID_PROGRAM, "method '%s' has no chains", m->name);
  m->n_chains = chains.len;
  m->chains = PTE_ALLOC_ARRAY(m->method_allocator, pte_chain_rt, chains.len);
  if (!m->chains) return LERR(c, PTE_ERR_MEMORY_ALLOCATION_FAILED, "method allocator exhausted (chains)");
  pte_fb_vec ops = pte_et_ExecutionPlan_operators(c->plan);
  m->n_ops = ops.len;
  m->ops = PTE_ALLOC_ARRAY(m->method_allocator, pte_operator_rt, ops.len);
  if (!m->ops) return LERR(c, PTE_ERR_MEMORY_ALLOCATION_FAILED, "method allocator exhausted (operators)");
  memset(m->ops, 0, sizeof(pte_operator_rt) * ops.len);

  size_t n_missing = 0;
  char key[660];
  /* Lookup cache: instructions of one operator usually share a key, and a registry lookup is a
   * linear scan. Direct-mapped by operator index; exact key comparison. */
  struct {
    int32_t op;
    char key[96];
    pte_op_fn fn;
  } cache[16];
  for (size_t k = 0; k < 16; k++) cache[k].op = -1;
  for (uint32_t ci = 0; ci < chains.len; ci++) {
    pte_fb_vec ins = pte_et_Chain_instructions(pte_fb_vec_table(chains, ci));
    if (!ins.present) return LERR(c, PTE_ERR_INVALID_PROGRAM, "missing instructions in chain %u", (unsigned)ci);
    pte_chain_rt *ch = &m->chains[ci];
    ch->n = ins.len;
    ch->instrs = PTE_ALLOC_ARRAY(m->method_allocator, pte_instr, ins.len);
    if (!ch->instrs) return LERR(c, PTE_ERR_MEMORY_ALLOCATION_FAILED, "method allocator exhausted (chain %u)", (unsigned)ci);
    memset(ch->instrs, 0, sizeof(pte_instr) * ins.len);
    for (uint32_t ii = 0; ii < ins.len; ii++) {
      pte_instr *in = &ch->instrs[ii];
      pte_fb_table it = pte_fb_vec_table(ins, ii);
      uint8_t type = pte_et_Instruction_instr_args_type(it);
      pte_fb_table a = pte_et_Instruction_instr_args(it);
      if (!pte_fb_table_present(it) || !pte_fb_table_present(a))
        return LERR(c, PTE_ERR_INVALID_PROGRAM, "null instruction %u in chain %u", (unsigned)ii, (unsigned)ci);
      in->kind = type;
      pte_status s;
      switch (type) {
        case pte_et_InstructionArguments_KernelCall: {
          int32_t op = pte_et_KernelCall_op_index(a);
          pte_fb_vec idx = pte_et_KernelCall_args(a);
          if (!idx.present) return LERR(c, PTE_ERR_INVALID_PROGRAM, "instruction %u: KernelCall args missing", (unsigned)ii);
          if (op < 0 || (uint32_t)op >= ops.len)
            return LERR(c, PTE_ERR_INVALID_PROGRAM, "instruction %u: operator index %d out of range (%u operators)",
                        (unsigned)ii, (int)op, (unsigned)ops.len);
          if ((s = build_args(c, idx, ii, &in->args)) != PTE_OK) return s;
          in->nargs = idx.len;
          in->a = (uint32_t)op;
          const char *name = NULL;
          if ((s = op_name(c, ops, (uint32_t)op, &name)) != PTE_OK) return s;
#if !defined(__OPTIMIZE_SIZE__) /* one lookup per operator when no kernel of its name is keyed */
          pte_operator_rt *o = &m->ops[op];
          const pte_kernel *mk = c->opts->kernels;
          const size_t n_mk = mk ? c->opts->n_kernels : 0;
          if (!o->keyed) {
            o->keyed = pte_kernel_name_keyed(name, mk, n_mk) ? 2 : 1;
            if (o->keyed == 1) o->fn = pte_kernel_lookup(name, NULL, mk, n_mk); /* the same for any key */
          }
          if (o->keyed == 1) {
            in->fn = o->fn;
            if (!in->fn) {
              o->missing = true;
              n_missing++;
            }
            break;
          }
#endif
          const char *k = pte_kernel_key(in->args, in->nargs, key, sizeof key) == PTE_OK ? key : NULL;
          size_t slot = (size_t)op % 16, klen = k ? strlen(k) : 0;
          if (k && klen < sizeof cache[0].key && cache[slot].op == op && strcmp(cache[slot].key, k) == 0) {
            in->fn = cache[slot].fn;
          } else {
            in->fn = pte_kernel_lookup(name, k, c->opts->kernels, c->opts->kernels ? c->opts->n_kernels : 0);
            if (k && klen < sizeof cache[0].key) {
              cache[slot].op = op;
              memcpy(cache[slot].key, k, klen + 1);
              cache[slot].fn = in->fn;
            }
          }
          if (!in->fn) {
            m->ops[op].missing = true;
            n_missing++;
          }
          break;
        }
        case pte_et_InstructionArguments_DelegateCall: {
          int32_t di = pte_et_DelegateCall_delegate_index(a);
          pte_fb_vec idx = pte_et_DelegateCall_args(a);
          if (!idx.present) return LERR(c, PTE_ERR_INVALID_PROGRAM, "instruction %u: DelegateCall args missing", (unsigned)ii);
          if (di < 0 || (size_t)di >= m->n_delegates)
            return LERR(c, PTE_ERR_INVALID_PROGRAM, "instruction %u: delegate index %d out of range (method has %zu delegates)",
                        (unsigned)ii, (int)di, m->n_delegates);
          if ((s = build_args(c, idx, ii, &in->args)) != PTE_OK) return s;
          in->nargs = idx.len;
          in->a = (uint32_t)di;
          break;
        }
        case pte_et_InstructionArguments_MoveCall: {
          int32_t from = pte_et_MoveCall_move_from(a), to = pte_et_MoveCall_move_to(a);
          if ((s = check_value_index(c, from, ii, "MoveCall source")) != PTE_OK) return s;
          if ((s = check_value_index(c, to, ii, "MoveCall destination")) != PTE_OK) return s;
          in->a = (uint32_t)from;
          in->b = (uint32_t)to;
          break;
        }
        case pte_et_InstructionArguments_JumpFalseCall: {
          int32_t cond = pte_et_JumpFalseCall_cond_value_index(a), dest = pte_et_JumpFalseCall_destination_instruction(a);
          if ((s = check_value_index(c, cond, ii, "JumpFalseCall condition")) != PTE_OK) return s;
          in->a = (uint32_t)cond;
          in->b = dest < 0 ? SIZE_MAX : (size_t)dest; /* out of range just ends the chain */
          break;
        }
        case pte_et_InstructionArguments_FreeCall: {
          int32_t vi = pte_et_FreeCall_value_index(a);
          if ((s = check_value_index(c, vi, ii, "FreeCall")) != PTE_OK) return s;
          in->a = (uint32_t)vi;
          break;
        }
        default:
          return LERR(c, PTE_ERR_INVALID_PROGRAM, "instruction %u in chain %u has invalid type %u", (unsigned)ii,
                      (unsigned)ci, (unsigned)type);
      }
    }
  }
  if (n_missing) return missing_ops_error(c, n_missing);
  return PTE_OK;
}

/* Tensors used by instructions whose data must be supplied by the caller before execute. */
static pte_status collect_unbacked(load_ctx *c) {
  pte_method *m = c->m;
  size_t count = 0;
  uint8_t *mark = PTE_ALLOC_ARRAY(m->method_allocator, uint8_t, m->n_values);
  if (!mark) return LERR(c, PTE_ERR_MEMORY_ALLOCATION_FAILED, "method allocator exhausted (value marks)");
  memset(mark, 0, m->n_values);
  for (size_t ci = 0; ci < m->n_chains; ci++) {
    for (size_t ii = 0; ii < m->chains[ci].n; ii++) {
      const pte_instr *in = &m->chains[ci].instrs[ii];
      for (size_t k = 0; k < in->nargs; k++) {
        const pte_evalue *v = in->args[k];
        if (v->tag != PTE_TAG_TENSOR || v->u.tensor->data || v->u.tensor->capacity_bytes == 0) continue;
        size_t vi = (size_t)(v - m->values);
        if (!mark[vi]) {
          mark[vi] = 1;
          count++;
        }
      }
    }
  }
  m->unbacked = PTE_ALLOC_ARRAY(m->method_allocator, uint32_t, count);
  if (!m->unbacked) return LERR(c, PTE_ERR_MEMORY_ALLOCATION_FAILED, "method allocator exhausted (unbacked list)");
  m->n_unbacked = 0;
  for (size_t vi = 0; vi < m->n_values; vi++)
    if (mark[vi]) m->unbacked[m->n_unbacked++] = (uint32_t)vi;
  return PTE_OK;
}

static void release(pte_method *m) {
  for (size_t i = 0; m->delegates && i < m->n_delegates; i++) {
    pte_delegate_rt *d = &m->delegates[i];
    if (d->initialized) {
      if (d->backend->destroy) d->backend->destroy(d->handle);
      d->initialized = false;
    }
    pte_freeable_buffer_free(&d->processed);
  }
  for (pte_external_const *e = m->ext; e; e = e->next) pte_freeable_buffer_free(&e->buf);
  m->ext = NULL;
  m->initialized = false;
}

static pte_status load_body(load_ctx *c) {
  pte_method *m = c->m;
  pte_status s;
  c->values = pte_et_ExecutionPlan_values(c->plan);
  if (!c->values.present) return LERR(c, PTE_ERR_INVALID_PROGRAM, "method '%s' has no values", m->name);
  if ((s = pte_rt_parse_io(c, true, &m->inputs, &m->n_inputs)) != PTE_OK) return s;
  if ((s = pte_rt_parse_io(c, false, &m->outputs, &m->n_outputs)) != PTE_OK) return s;
  m->input_set = PTE_ALLOC_ARRAY(m->method_allocator, bool, m->n_inputs);
  if (!m->input_set) return LERR(c, PTE_ERR_MEMORY_ALLOCATION_FAILED, "method allocator exhausted (input flags)");
  for (size_t i = 0; i < m->n_inputs; i++) m->input_set[i] = false;
  if ((s = pte_rt_parse_values(c)) != PTE_OK) return s;
  if ((s = pte_rt_init_delegates(c)) != PTE_OK) return s;
  if ((s = load_chains(c)) != PTE_OK) return s;
  return collect_unbacked(c);
}

pte_status pte_method_load_ex(const pte_program *program, const char *name, const pte_memory_manager *mm,
                              const pte_method_options *opts, pte_method **out, pte_error_info *err) {
  if (out) *out = NULL;
  if (!program || !name || !mm || !out || !mm->method_allocator)
    return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "NULL program, name, memory manager, method allocator or out");
  if (mm->temp_allocator == mm->method_allocator)
    return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "the temp allocator must differ from the method allocator");
  pte_method_options defaults;
  memset(&defaults, 0, sizeof defaults);
  if (!opts) opts = &defaults;

  pte_method_meta meta;
  pte_status s = pte_method_meta_get(program, name, &meta, err);
  if (s != PTE_OK) return s;
  if (opts->max_planned_memory) { /* resource cap (docs/robustness.md) */
    uint64_t planned = 0;
    if ((s = pte_method_meta_planned_memory(&meta, &planned)) != PTE_OK)
      return pte_error_set(err, s, "method '%s': malformed non_const_buffer_sizes", meta.name);
    if (planned > opts->max_planned_memory)
      return pte_error_set(err, PTE_ERR_OUT_OF_RESOURCES,
                           "method '%s' plans %llu bytes of memory, over the limit of %llu", meta.name,
                           (unsigned long long)planned, (unsigned long long)opts->max_planned_memory);
  }

  pte_allocator *ma = mm->method_allocator;
  size_t saved = ma->used;
  uint64_t tok = pte_tracer_begin(opts->tracer, "Method::init", -1, -1);
  pte_method *m = PTE_ALLOC(ma, pte_method);
  if (!m) {
    pte_tracer_end(opts->tracer, tok);
    return pte_error_set(err, PTE_ERR_MEMORY_ALLOCATION_FAILED, "method allocator exhausted (method object)");
  }
  memset(m, 0, sizeof *m);
  m->program = program;
  m->meta = meta;
  m->name = meta.name;
  m->method_allocator = ma;
  m->tracer = opts->tracer;
  m->max_instructions = opts->max_instructions ? opts->max_instructions : PTE_METHOD_DEFAULT_MAX_INSTRUCTIONS;
  if (mm->temp_allocator) {
    m->temp = mm->temp_allocator;
  } else if (opts->temp_arena_size) {
    void *arena = pte_allocator_alloc(ma, opts->temp_arena_size, 0);
    if (!arena) {
      ma->used = saved;
      pte_tracer_end(opts->tracer, tok);
      return pte_error_set(err, PTE_ERR_MEMORY_ALLOCATION_FAILED, "method allocator cannot hold a %zu-byte temp arena",
                           opts->temp_arena_size);
    }
    pte_allocator_init(&m->temp_arena, arena, opts->temp_arena_size);
    m->temp = &m->temp_arena;
  }

  load_ctx c;
  c.m = m;
  c.mm = mm;
  c.opts = opts;
  c.external = opts->external_data;
  c.plan = pte_method_plan_table(&meta);
  c.n_planned_declared = pte_method_meta_num_planned_buffers(&meta);
  c.err = err;
  memset(&c.values, 0, sizeof c.values);

  s = load_body(&c);
  if (s != PTE_OK) {
    release(m);
    ma->used = saved;
    pte_tracer_end(opts->tracer, tok);
    return s;
  }
  m->chain_idx = m->instr_idx = 0;
  m->initialized = true;
  pte_tracer_end(opts->tracer, tok);
  *out = m;
  return PTE_OK;
}

pte_status pte_method_load(const pte_program *program, const char *name, const pte_memory_manager *mm,
                           pte_event_tracer *tracer, const pte_named_data_map *external_data, pte_method **out,
                           pte_error_info *err) {
  pte_method_options o;
  memset(&o, 0, sizeof o);
  o.tracer = tracer;
  o.external_data = external_data;
  return pte_method_load_ex(program, name, mm, &o, out, err);
}

void pte_method_destroy(pte_method *m) {
  if (!m) return;
  release(m);
}
