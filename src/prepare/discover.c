#define _POSIX_C_SOURCE 200809L
/* discover.c — prepare, step 1: the delegates of every method, grouped by backend into distinct
 * stored blobs (items), and the named data keys (pte_pp_discover, prepare_internal.h). */
#include <stdlib.h>
#include <string.h>

#include "prepare/prepare_internal.h"
#include "pte/headers.h"
#include "pte/io.h"
#include "pte_gen/program_gen.h"

pte_status pte_pp_discover(pte_pp_state *st) {
  pte_fb_vec plans = pte_et_Program_execution_plan(st->root);
  size_t total = 0;
  for (uint32_t pi = 0; pi < plans.len; pi++)
    total += pte_et_ExecutionPlan_delegates(pte_fb_vec_table(plans, pi)).len;
  st->cap_dels = total ? total : 1;
  st->backends = (pte_pp_backend *)pte_pp_alloc(st, st->cap_dels * sizeof *st->backends);
  st->items = (pte_pp_item *)pte_pp_alloc(st, st->cap_dels * sizeof *st->items);
  if (!st->backends || !st->items) return pte_pp_oom(st, "delegate table");
  for (uint32_t pi = 0; pi < plans.len; pi++) {
    pte_fb_table plan = pte_fb_vec_table(plans, pi);
    const char *mname = pte_et_ExecutionPlan_name(plan).ptr;
    pte_fb_vec dels = pte_et_ExecutionPlan_delegates(plan);
    for (uint32_t di = 0; di < dels.len; di++) {
      pte_fb_table d = pte_fb_vec_table(dels, di);
      const char *id = pte_et_BackendDelegate_id(d).ptr;
      if (!id) id = "";
      pte_fb_table ref = pte_et_BackendDelegate_processed(d);
      bool inl = pte_et_BackendDelegateDataReference_location(ref) == pte_et_DataLocation_INLINE;
      uint32_t idx = pte_et_BackendDelegateDataReference_index(ref);
      size_t b = 0;
      while (b < st->n_backends && strcmp(st->backends[b].id, id) != 0) b++;
      if (b == st->n_backends) {
        st->backends[b].id = id;
        st->n_backends++;
      }
      st->backends[b].n_delegates++;
      size_t it = 0;
      while (it < st->n_items &&
             !(st->items[it].backend == b && st->items[it].inline_data == inl && st->items[it].index == idx))
        it++;
      if (it == st->n_items) {
        pte_pp_item *x = &st->items[st->n_items++];
        x->backend = (uint32_t)b;
        x->inline_data = inl;
        x->index = idx;
        x->method_name = mname ? mname : "";
        x->delegate_index = di;
        x->delegate = d;
        x->ordinal = st->backends[b].n_items++;
        x->repl = -1;
      }
      st->items[it].n_delegates++;
    }
  }
  pte_fb_vec named = pte_et_Program_named_data(st->root);
  st->n_keys = named.len;
  st->keys = (pte_pp_key *)pte_pp_alloc(st, (st->n_keys ? st->n_keys : 1) * sizeof *st->keys);
  if (!st->keys) return pte_pp_oom(st, "named data table");
  for (uint32_t i = 0; i < named.len; i++) {
    pte_fb_table nd = pte_fb_vec_table(named, i);
    const char *k = pte_et_NamedData_key(nd).ptr;
    st->keys[i].key = k ? k : "";
    st->keys[i].segment = pte_et_NamedData_segment_index(nd);
    st->keys[i].repl = -1;
    st->keys[i].repl_backend = -1;
  }
  return PTE_OK;
}

