/* method_delegates.c — method load: delegates (processed data, compile specs, scratch memory,
 * backend init) (method_load.h). */
#include <stdarg.h>
#include <string.h>

#include "method_load.h"
#include "pte/program.h"
#include "base/vformat.h"

/* DelegateCall instructions naming each delegate. Only in-range indices are counted here:
 * load_chains reports malformed instructions and out-of-range delegate indices. */
static void count_delegate_calls(load_ctx *c) {
  pte_method *m = c->m;
  pte_fb_vec chains = pte_et_ExecutionPlan_chains(c->plan);
  for (uint32_t ci = 0; ci < chains.len; ci++) {
    pte_fb_vec ins = pte_et_Chain_instructions(pte_fb_vec_table(chains, ci));
    for (uint32_t ii = 0; ii < ins.len; ii++) {
      pte_fb_table it = pte_fb_vec_table(ins, ii);
      if (pte_et_Instruction_instr_args_type(it) != pte_et_InstructionArguments_DelegateCall) continue;
      int32_t di = pte_et_DelegateCall_delegate_index(pte_et_Instruction_instr_args(it));
      if (di >= 0 && (size_t)di < m->n_delegates && m->delegates[di].n_calls < UINT32_MAX) m->delegates[di].n_calls++;
    }
  }
}

/* "delegate 0 (TestScratch) has scratch memory but is called by instructions 2 and 5 (chain 0)". */
static pte_status scratch_call_sites_error(load_ctx *c, uint32_t di, const char *id) {
  enum { MAX_SITES = 4 };
  uint32_t site_chain[MAX_SITES], site_instr[MAX_SITES];
  size_t n = 0;
  bool one_chain = true;
  pte_fb_vec chains = pte_et_ExecutionPlan_chains(c->plan);
  for (uint32_t ci = 0; ci < chains.len; ci++) {
    pte_fb_vec ins = pte_et_Chain_instructions(pte_fb_vec_table(chains, ci));
    for (uint32_t ii = 0; ii < ins.len; ii++) {
      pte_fb_table it = pte_fb_vec_table(ins, ii);
      if (pte_et_Instruction_instr_args_type(it) != pte_et_InstructionArguments_DelegateCall) continue;
      if (pte_et_DelegateCall_delegate_index(pte_et_Instruction_instr_args(it)) != (int32_t)di) continue;
      if (n && ci != site_chain[0]) one_chain = false;
      if (n < MAX_SITES) {
        site_chain[n] = ci;
        site_instr[n] = ii;
        n++;
      }
    }
  }
  size_t total = c->m->delegates[di].n_calls, shown = n;
  char list[160];
  size_t len = 0;
  list[0] = '\0';
  for (size_t k = 0; k < shown; k++) {
    const char *sep = k == 0 ? "" : (k + 1 == shown && total == shown) ? " and " : ", ";
    pte_rt_appendf(list, sizeof list, &len, "%s%u", sep, (unsigned)site_instr[k]);
    if (!one_chain) pte_rt_appendf(list, sizeof list, &len, " (chain %u)", (unsigned)site_chain[k]);
  }
  if (total > shown) pte_rt_appendf(list, sizeof list, &len, " and %zu more", total - shown);
  if (one_chain && shown) pte_rt_appendf(list, sizeof list, &len, " (chain %u)", (unsigned)site_chain[0]);
  return LERR(c, PTE_ERR_INVALID_PROGRAM, "delegate %u (%s) has scratch memory but is called by instructions %s", (unsigned)di,
              id, list);
}

/* share_handle and the scratch regions of delegate i (pte extensions), checked and resolved
 * against the planned buffers like memory-planned tensors. */
static pte_status resolve_scratch(load_ctx *c, uint32_t i, pte_fb_table dt) {
  pte_method *m = c->m;
  pte_delegate_rt *d = &m->delegates[i];
  d->share_handle = pte_et_BackendDelegate_share_handle(dt);
  pte_fb_vec sv = pte_et_BackendDelegate_scratch(dt);
  if (!sv.present || sv.len == 0) return PTE_OK;
  if (d->share_handle)
    return LERR(c, PTE_ERR_INVALID_PROGRAM,
                "delegate %u (%s) has scratch memory and share_handle set: a delegate with scratch cannot share its handle",
                (unsigned)i, d->id);
  if (d->n_calls > 1) return scratch_call_sites_error(c, i, d->id);
  d->scratch = PTE_ALLOC_ARRAY(m->method_allocator, pte_delegate_scratch, sv.len);
  if (!d->scratch) return LERR(c, PTE_ERR_MEMORY_ALLOCATION_FAILED, "method allocator exhausted (delegate %u scratch)", (unsigned)i);
  for (uint32_t k = 0; k < sv.len; k++) {
    pte_fb_table st = pte_fb_vec_table(sv, k);
    if (!pte_fb_table_present(st))
      return LERR(c, PTE_ERR_INVALID_PROGRAM, "delegate %u (%s): scratch entry %u is null", (unsigned)i, d->id, (unsigned)k);
    pte_delegate_scratch *r = &d->scratch[k];
    r->memory_id = pte_et_DelegateScratch_memory_id(st);
    r->offset = pte_et_DelegateScratch_offset(st);
    uint64_t size = pte_et_DelegateScratch_size(st);
    region_owner who = {d->id, i, k};
    pte_status s = pte_rt_planned_region(c, &who, r->memory_id, r->offset, size, &r->data);
    if (s != PTE_OK) return s;
    r->size = (size_t)size; /* fits: planned_region checked it against a buffer size */
  }
  d->n_scratch = sv.len;
  return PTE_OK;
}

/* The processed blob of delegate i, fetched from inline data or a segment. */
static pte_status load_processed(load_ctx *c, uint32_t i, pte_fb_table dt, pte_fb_table root, pte_freeable_buffer *out) {
  pte_method *m = c->m;
  const char *id = m->delegates[i].id;
  pte_fb_table ref = pte_et_BackendDelegate_processed(dt);
  if (!pte_fb_table_present(ref))
    return LERR(c, PTE_ERR_INVALID_PROGRAM, "delegate %u ('%s') has no processed data reference", (unsigned)i, id);
  int loc = pte_et_BackendDelegateDataReference_location(ref);
  uint32_t index = pte_et_BackendDelegateDataReference_index(ref);
  if (loc == 0) { /* INLINE */
    pte_fb_vec inl = pte_et_Program_backend_delegate_data(root);
    if (index >= inl.len)
      return LERR(c, PTE_ERR_NOT_FOUND, "delegate %u ('%s'): inline data index %u out of range (%u entries)", (unsigned)i,
                  id, index, (unsigned)inl.len);
    pte_fb_vec data = pte_et_BackendDelegateInlineData_data(pte_fb_vec_table(inl, index));
    if (!data.present)
      return LERR(c, PTE_ERR_INVALID_PROGRAM, "delegate %u ('%s'): inline data %u has no bytes", (unsigned)i, id, index);
    *out = pte_freeable_buffer_view(pte_fb_vec_data(data), data.len);
    return PTE_OK;
  }
  if (loc == 1) { /* SEGMENT */
    pte_segment_info si = {PTE_SEGMENT_BACKEND, index, id};
    pte_status s = pte_program_load_segment(m->program, index, &si, out);
    if (s != PTE_OK)
      return LERR(c, s, "delegate %u ('%s'): cannot load segment %u (%s)", (unsigned)i, id, index, pte_status_name(s));
    return PTE_OK;
  }
  return LERR(c, PTE_ERR_INTERNAL, "delegate %u ('%s'): unknown data location %d", (unsigned)i, id, loc);
}

/* Delegates, in three passes so that nothing is initialised for a method that cannot load:
 * (1) ids, call counts, share_handle and scratch (structure and placement), (2) backend lookup
 * (PTE_ERR_NOT_FOUND), (3) blob + compile specs + init(), exactly once per BackendDelegate. */
pte_status pte_rt_init_delegates(load_ctx *c) {
  pte_method *m = c->m;
  pte_fb_vec dels = pte_et_ExecutionPlan_delegates(c->plan);
  if (!dels.present) return LERR(c, PTE_ERR_INVALID_PROGRAM, "method '%s': missing delegates field", m->name);
  m->n_delegates = dels.len;
  m->delegates = PTE_ALLOC_ARRAY(m->method_allocator, pte_delegate_rt, dels.len);
  if (!m->delegates) return LERR(c, PTE_ERR_MEMORY_ALLOCATION_FAILED, "method allocator exhausted (delegates)");
  memset(m->delegates, 0, sizeof(pte_delegate_rt) * dels.len);
  if (dels.len == 0) return PTE_OK;
  count_delegate_calls(c);

  pte_status s;
  for (uint32_t i = 0; i < dels.len; i++) {
    pte_delegate_rt *d = &m->delegates[i];
    pte_fb_table dt = pte_fb_vec_table(dels, i);
    d->id = pte_et_BackendDelegate_id(dt).ptr;
    if (!d->id) return LERR(c, PTE_ERR_INVALID_PROGRAM, "method '%s': delegate %u has no backend id", m->name, (unsigned)i);
    if ((s = resolve_scratch(c, i, dt)) != PTE_OK) return s;
  }
  for (uint32_t i = 0; i < dels.len; i++) {
    pte_delegate_rt *d = &m->delegates[i];
    const pte_backend *be = pte_get_backend(d->id);
    if (!be)
      return LERR(c, PTE_ERR_NOT_FOUND, "backend '%s' (delegate %u of method '%s') is not registered", d->id, (unsigned)i,
                  m->name);
    if (be->is_available && !be->is_available())
      return LERR(c, PTE_ERR_NOT_FOUND, "backend '%s' (delegate %u of method '%s') is not available", d->id, (unsigned)i,
                  m->name);
    d->backend = be;
  }

  const pte_named_data_map *pmap = pte_program_named_data_map(m->program);
  if (c->external && pmap) {
    pte_merged_data_map_init(&m->merged, c->external, pmap);
    m->delegate_map = &m->merged.base;
  } else {
    m->delegate_map = c->external ? c->external : pmap;
  }
  size_t fb_size;
  const uint8_t *fb = pte_program_flatbuffer(m->program, &fb_size);
  pte_fb_table root = pte_fb_root(fb, fb_size);

  for (uint32_t i = 0; i < dels.len; i++) {
    pte_delegate_rt *d = &m->delegates[i];
    const char *id = d->id;
    pte_fb_table dt = pte_fb_vec_table(dels, i);
    if ((s = load_processed(c, i, dt, root, &d->processed)) != PTE_OK) return s;

    pte_fb_vec specs = pte_et_BackendDelegate_compile_specs(dt);
    pte_compile_spec *cs = PTE_ALLOC_ARRAY(m->method_allocator, pte_compile_spec, specs.len);
    if (!cs) return LERR(c, PTE_ERR_MEMORY_ALLOCATION_FAILED, "method allocator exhausted (compile specs)");
    for (uint32_t k = 0; k < specs.len; k++) {
      pte_fb_table st = pte_fb_vec_table(specs, k);
      pte_fb_str key = pte_et_CompileSpec_key(st);
      pte_fb_vec val = pte_et_CompileSpec_value(st);
      if (!key.ptr || !val.present)
        return LERR(c, PTE_ERR_INVALID_PROGRAM, "delegate %u ('%s'): compile spec %u lacks key or value", (unsigned)i, id,
                    (unsigned)k);
      cs[k].key = key.ptr;
      cs[k].value = pte_fb_vec_data(val);
      cs[k].nbytes = val.len;
    }

    pte_backend_init_context ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.runtime_allocator = m->method_allocator;
    ctx.method_name = m->name;
    ctx.named_data_map = m->delegate_map;
    ctx.event_tracer = m->tracer;
    ctx.delegate_index = i;
    ctx.n_calls = d->n_calls;
    ctx.share_handle = d->share_handle;
    ctx.scratch = d->n_scratch ? d->scratch : NULL;
    ctx.n_scratch = d->n_scratch;
    for (size_t k = 0; c->opts->backend_options && k < c->opts->n_backend_options; k++) {
      const pte_backend_load_options *bo = &c->opts->backend_options[k];
      if (bo->backend_id && strcmp(bo->backend_id, id) == 0) {
        ctx.runtime_specs = bo->options;
        ctx.n_runtime_specs = bo->options ? bo->n_options : 0;
        break;
      }
    }
    pte_error_info be_err;
    be_err.status = PTE_OK;
    be_err.msg[0] = '\0';
    ctx.err = &be_err;
    pte_delegate_handle *handle = NULL;
    s = d->backend->init(&ctx, &d->processed, cs, specs.len, &handle);
    if (s != PTE_OK) {
      pte_freeable_buffer_free(&d->processed);
      return LERR(c, s, "backend '%s' init failed for delegate %u of method '%s': %s", id, (unsigned)i, m->name,
                  be_err.msg[0] ? be_err.msg : pte_status_name(s));
    }
    d->handle = handle;
    d->initialized = true;
  }
  return PTE_OK;
}

