/* `pte run --profile` (profile.h). The runtime opens a scope per instruction with the chain and
 * the instruction index (pte/event_tracer.h); this tracer adds up the time per instruction and
 * names each one from the program: its operator, its delegate's backend, or its kind. */
#define _POSIX_C_SOURCE 200809L
#include "profile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "format/flatbuf.h"
#include "pte/backend_xnnpack.h"
#include "pte/io.h"
#include "pte_gen/etdump_gen.h"
#include "pte_gen/program_gen.h"

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t pr_begin(pte_event_tracer *t, const char *name, int32_t chain, int64_t instr) {
  pte_cli_profile *p = (pte_cli_profile *)t;
  int64_t idx = -2; /* not an instruction */
  if (!strcmp(name, "Method::execute")) idx = -1;
  else if (chain >= 0 && (size_t)chain < p->n_chains && instr >= 0) {
    uint64_t k = (uint64_t)p->chain_first[chain] + (uint64_t)instr;
    uint64_t end = (size_t)chain + 1 < p->n_chains ? p->chain_first[chain + 1] : p->n_instr;
    if (k < end) idx = (int64_t)k;
  }
  if (p->depth >= 8) return 0;
  if (p->record) {
    if (p->n_events == p->cap_events) {
      size_t cap = p->cap_events ? 2 * p->cap_events : 1024;
      void *ne = realloc(p->events, cap * sizeof *p->events);
      if (!ne) p->oom = true;
      else p->events = ne, p->cap_events = cap;
    }
    if (p->n_events < p->cap_events) {
      struct pte_cli_profile_event *ev = &p->events[p->n_events];
      ev->name = name;
      ev->chain = chain;
      ev->instr = instr;
      ev->run = p->runs ? p->runs - 1 : 0;
      ev->start = ev->end = 0;
      p->open_event[p->depth] = p->n_events++;
    } else {
      p->open_event[p->depth] = (size_t)-1;
    }
  }
  p->open_instr[p->depth] = idx;
  p->open_start[p->depth] = now_ns();
  if (p->record && p->open_event[p->depth] != (size_t)-1) p->events[p->open_event[p->depth]].start = p->open_start[p->depth];
  return (uint64_t)++p->depth;
}

static void pr_end(pte_event_tracer *t, uint64_t token) {
  pte_cli_profile *p = (pte_cli_profile *)t;
  if (token == 0 || (int)token != p->depth) return;
  p->depth--;
  const uint64_t end = now_ns();
  uint64_t d = end - p->open_start[p->depth];
  if (p->record && p->open_event[p->depth] != (size_t)-1) p->events[p->open_event[p->depth]].end = end;
  int64_t idx = p->open_instr[p->depth];
  if (idx == -1) {
    p->execute_ns += d;
    p->executes++;
  } else if (idx >= 0) {
    pte_cli_profile_row *r = &p->rows[p->row_of[idx]];
    r->calls++;
    r->ns += d;
  }
}

static void pr_block(pte_event_tracer *t, const char *name) {
  (void)name; /* "Execute": a new run */
  ((pte_cli_profile *)t)->runs++;
}

static const pte_event_tracer_vtable k_vt = {pr_block, pr_begin, pr_end, NULL};

static size_t row_for(pte_cli_profile *p, const char *name) {
  for (size_t i = 0; i < p->n_rows; i++)
    if (!strcmp(p->rows[i].name, name)) return i;
  snprintf(p->rows[p->n_rows].name, sizeof p->rows[p->n_rows].name, "%s", name);
  return p->n_rows++;
}

pte_status pte_cli_profile_init(pte_cli_profile *p, const pte_program *prog, const char *method) {
  memset(p, 0, sizeof *p);
  p->base.vt = &k_vt;
  pte_xnnpack_set_profiling_default(true); /* for the delegates the profiled load creates */
  pte_xnnpack_profile_reset();
  size_t fbs = 0;
  const uint8_t *fb = pte_program_flatbuffer(prog, &fbs);
  pte_fb_vec plans = pte_et_Program_execution_plan(pte_fb_root(fb, fbs));
  pte_fb_table plan = {0};
  bool found = false;
  for (uint32_t i = 0; i < plans.len && !found; i++) {
    plan = pte_fb_vec_table(plans, i);
    pte_fb_str n = pte_et_ExecutionPlan_name(plan);
    found = n.ptr && strlen(method) == n.len && !memcmp(n.ptr, method, n.len);
  }
  if (!found) return PTE_ERR_INVALID_ARGUMENT;
  pte_fb_vec chains = pte_et_ExecutionPlan_chains(plan), ops = pte_et_ExecutionPlan_operators(plan),
             dels = pte_et_ExecutionPlan_delegates(plan);
  p->n_chains = chains.len;
  for (uint32_t c = 0; c < chains.len; c++) p->n_instr += pte_et_Chain_instructions(pte_fb_vec_table(chains, c)).len;
  p->chain_first = (uint32_t *)calloc(p->n_chains + 1, sizeof *p->chain_first);
  p->row_of = (uint32_t *)calloc(p->n_instr + 1, sizeof *p->row_of);
  p->rows = (pte_cli_profile_row *)calloc(p->n_instr + 1, sizeof *p->rows);
  if (!p->chain_first || !p->row_of || !p->rows) {
    pte_cli_profile_free(p);
    return PTE_ERR_MEMORY_ALLOCATION_FAILED;
  }
  static const char *kinds[] = {"?", "KernelCall", "DelegateCall", "MoveCall", "JumpFalseCall", "FreeCall"};
  size_t k = 0;
  for (uint32_t c = 0; c < chains.len; c++) {
    p->chain_first[c] = (uint32_t)k;
    pte_fb_vec ins = pte_et_Chain_instructions(pte_fb_vec_table(chains, c));
    for (uint32_t i = 0; i < ins.len; i++, k++) {
      pte_fb_table in = pte_fb_vec_table(ins, i);
      uint8_t tag = pte_et_Instruction_instr_args_type(in);
      pte_fb_table args = pte_et_Instruction_instr_args(in);
      char name[160];
      snprintf(name, sizeof name, "%s", tag < 6 ? kinds[tag] : "?");
      if (tag == pte_et_InstructionArguments_KernelCall) {
        int32_t oi = pte_et_KernelCall_op_index(args);
        if (oi >= 0 && (uint32_t)oi < ops.len) {
          pte_fb_table op = pte_fb_vec_table(ops, (uint32_t)oi);
          pte_fb_str on = pte_et_Operator_name(op), ov = pte_et_Operator_overload(op);
          snprintf(name, sizeof name, "%.*s%s%.*s", (int)on.len, on.ptr ? on.ptr : "", ov.len ? "." : "",
                   (int)ov.len, ov.ptr ? ov.ptr : "");
        }
      } else if (tag == pte_et_InstructionArguments_DelegateCall) {
        int32_t di = pte_et_DelegateCall_delegate_index(args);
        if (di >= 0 && (uint32_t)di < dels.len) {
          pte_fb_str id = pte_et_BackendDelegate_id(pte_fb_vec_table(dels, (uint32_t)di));
          snprintf(name, sizeof name, "%.*s (delegate %d)", (int)id.len, id.ptr ? id.ptr : "", di);
        }
      }
      p->row_of[k] = (uint32_t)row_for(p, name);
    }
  }
  return PTE_OK;
}

void pte_cli_profile_free(pte_cli_profile *p) {
  free(p->events);
  free(p->chain_first);
  free(p->row_of);
  free(p->rows);
  memset(p, 0, sizeof *p);
}

void pte_cli_profile_reset(pte_cli_profile *p) {
  pte_xnnpack_profile_reset();
  for (size_t i = 0; i < p->n_rows; i++) p->rows[i].calls = p->rows[i].ns = 0;
  p->execute_ns = p->executes = 0;
  p->depth = 0;
}

static int by_time(const void *a, const void *b) {
  const pte_cli_profile_row *x = *(const pte_cli_profile_row *const *)a, *y = *(const pte_cli_profile_row *const *)b;
  return x->ns < y->ns ? 1 : x->ns > y->ns ? -1 : strcmp(x->name, y->name);
}

/* Rows that ran, slowest first (caller frees). */
static const pte_cli_profile_row **sorted(const pte_cli_profile *p, size_t *n) {
  const pte_cli_profile_row **s = (const pte_cli_profile_row **)calloc(p->n_rows + 1, sizeof *s);
  *n = 0;
  for (size_t i = 0; s && i < p->n_rows; i++)
    if (p->rows[i].calls) s[(*n)++] = &p->rows[i];
  if (s) qsort(s, *n, sizeof *s, by_time);
  return s;
}

/* XNNPACK node kinds inside the delegates (profiling turned on for delegates this load created). */
#define XNN_KINDS_MAX 64
static size_t xnn_kinds(pte_xnn_node_time *t, uint64_t *total) {
  size_t n = pte_xnnpack_profile_kinds(t, XNN_KINDS_MAX);
  if (n > XNN_KINDS_MAX) n = XNN_KINDS_MAX;
  *total = 0;
  for (size_t i = 0; i < n; i++) *total += t[i].ns;
  return n;
}

void pte_cli_profile_print(const pte_cli_profile *p, FILE *f) {
  size_t n;
  const pte_cli_profile_row **s = sorted(p, &n);
  if (!s) return;
  double per = p->executes ? (double)p->execute_ns / 1e6 / (double)p->executes : 0;
  fprintf(f, "profile    %llu execute%s, %.3f ms each (instruction times include the tracer's clock reads)\n",
          (unsigned long long)p->executes, p->executes == 1 ? "" : "s", per);
  fprintf(f, "  %-44s %8s %12s %12s %7s\n", "operator / delegate", "calls", "total ms", "mean us", "%");
  for (size_t i = 0; i < n; i++) {
    const pte_cli_profile_row *r = s[i];
    fprintf(f, "  %-44s %8llu %12.3f %12.2f %6.1f%%\n", r->name, (unsigned long long)r->calls, (double)r->ns / 1e6,
            (double)r->ns / 1e3 / (double)r->calls, p->execute_ns ? 100.0 * (double)r->ns / (double)p->execute_ns : 0);
  }
  free(s);
  pte_xnn_node_time t[XNN_KINDS_MAX];
  uint64_t total = 0;
  size_t n_kinds = xnn_kinds(t, &total);
  if (n_kinds && total) {
    fprintf(f, "  inside the XNNPACK delegates, per node kind (%% of node time):\n");
    for (size_t i = 0; i < n_kinds; i++)
      fprintf(f, "    %-42s %8llu %12.3f %12.2f %6.1f%%\n", t[i].name, (unsigned long long)t[i].calls,
              (double)t[i].ns / 1e6, t[i].calls ? (double)t[i].ns / 1e3 / (double)t[i].calls : 0,
              100.0 * (double)t[i].ns / (double)total);
  }
}

void pte_cli_profile_json(const pte_cli_profile *p, jsonw *w) {
  size_t n;
  const pte_cli_profile_row **s = sorted(p, &n);
  jw_obj(w);
  jw_kuint(w, "executes", p->executes);
  jw_key(w, "execute_ms");
  jw_double(w, p->executes ? (double)p->execute_ns / 1e6 / (double)p->executes : 0);
  jw_key(w, "rows");
  jw_arr(w);
  for (size_t i = 0; s && i < n; i++) {
    const pte_cli_profile_row *r = s[i];
    jw_obj(w);
    jw_kstr(w, "name", r->name);
    jw_kuint(w, "calls", r->calls);
    jw_key(w, "total_ms");
    jw_double(w, (double)r->ns / 1e6);
    jw_key(w, "mean_us");
    jw_double(w, (double)r->ns / 1e3 / (double)r->calls);
    jw_key(w, "percent");
    jw_double(w, p->execute_ns ? 100.0 * (double)r->ns / (double)p->execute_ns : 0);
    jw_obj_end(w);
  }
  jw_arr_end(w);
  pte_xnn_node_time t[XNN_KINDS_MAX];
  uint64_t total = 0;
  size_t n_kinds = xnn_kinds(t, &total);
  jw_key(w, "xnnpack_node_kinds");
  jw_arr(w);
  for (size_t i = 0; i < n_kinds; i++) {
    jw_obj(w);
    jw_kstr(w, "kind", t[i].name);
    jw_kuint(w, "calls", t[i].calls);
    jw_key(w, "total_ms");
    jw_double(w, (double)t[i].ns / 1e6);
    jw_key(w, "percent");
    jw_double(w, total ? 100.0 * (double)t[i].ns / (double)total : 0);
    jw_obj_end(w);
  }
  jw_arr_end(w);
  jw_obj_end(w);
  free(s);
}

/* ------------------------------------------------------------------ ETDump */

pte_status pte_cli_profile_write_etdump(const pte_cli_profile *p, const char *method, const char *path,
                                        pte_error_info *err) {
  if (p->oom) return pte_error_set(err, PTE_ERR_MEMORY_ALLOCATION_FAILED, "out of memory while recording events");
  pte_fb_builder b;
  pte_fb_builder_init(&b, pte_heap_realloc, NULL);
  const uint32_t runs = p->runs ? p->runs : 1;
  pte_fb_ref *run_refs = (pte_fb_ref *)calloc(runs, sizeof *run_refs);
  pte_fb_ref *ev_refs = (pte_fb_ref *)calloc(p->n_events + 1, sizeof *ev_refs);
  pte_status s = run_refs && ev_refs ? PTE_OK : PTE_ERR_MEMORY_ALLOCATION_FAILED;
  const pte_fb_ref method_name = s == PTE_OK ? pte_fb_create_string(&b, method, strlen(method)) : 0;
  for (uint32_t r = 0; s == PTE_OK && r < runs; r++) {
    size_t n = 0;
    for (size_t i = 0; i < p->n_events; i++) {
      const struct pte_cli_profile_event *e = &p->events[i];
      if (e->run != r) continue;
      pte_fb_ref name = pte_fb_create_string(&b, e->name, strlen(e->name));
      pte_ed_ProfileEvent_start(&b);
      pte_ed_ProfileEvent_add_name(&b, name);
      pte_ed_ProfileEvent_add_chain_index(&b, e->chain >= 0 ? e->chain : 0);
      pte_ed_ProfileEvent_add_instruction_id(&b, e->instr >= 0 && e->instr <= INT32_MAX ? (int32_t)e->instr : -1);
      pte_ed_ProfileEvent_add_start_time(&b, e->start);
      pte_ed_ProfileEvent_add_end_time(&b, e->end);
      pte_fb_ref pe = pte_ed_ProfileEvent_end(&b);
      pte_ed_Event_start(&b);
      pte_ed_Event_add_profile_event(&b, pe);
      ev_refs[n++] = pte_ed_Event_end(&b);
    }
    pte_fb_ref evs = pte_fb_create_vec_refs(&b, ev_refs, n);
    pte_ed_RunData_start(&b);
    pte_ed_RunData_add_name(&b, method_name);
    pte_ed_RunData_add_events(&b, evs);
    run_refs[r] = pte_ed_RunData_end(&b);
  }
  const uint8_t *out = NULL;
  size_t out_size = 0;
  if (s == PTE_OK) {
    pte_fb_ref rv = pte_fb_create_vec_refs(&b, run_refs, runs);
    pte_ed_ETDump_start(&b);
    pte_ed_ETDump_add_version(&b, 0);
    pte_ed_ETDump_add_run_data(&b, rv);
    pte_fb_ref root = pte_ed_ETDump_end(&b);
    s = pte_fb_finish(&b, root, "ED00", 8, &out, &out_size);
  }
  if (s != PTE_OK) {
    pte_error_set(err, s, "cannot build the ETDump");
  } else {
    FILE *f = fopen(path, "wb");
    bool ok = f && fwrite(out, 1, out_size, f) == out_size;
    if (f && fclose(f) != 0) ok = false;
    if (!ok) s = pte_error_set(err, PTE_ERR_ACCESS_FAILED, "cannot write '%s'", path);
  }
  free(run_refs);
  free(ev_refs);
  pte_fb_builder_free(&b);
  return s;
}
