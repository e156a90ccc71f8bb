/* `pte run --profile`: an event tracer that times every instruction of a method and a table of
 * the time per operator / delegate (tools/cli/profile.c). */
#ifndef PTE_TOOLS_PROFILE_H
#define PTE_TOOLS_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "jsonw.h"
#include "pte/event_tracer.h"
#include "pte/program.h"

typedef struct pte_cli_profile_row {
  char name[160]; /* "aten::add.out", "XnnpackBackend (delegate 0)", "MoveCall" */
  uint64_t calls, ns;
} pte_cli_profile_row;

typedef struct pte_cli_profile {
  pte_event_tracer base; /* pass &p->base as the method's tracer */
  size_t n_instr;        /* instructions of the method, over all chains */
  uint32_t *chain_first; /* index of chain c's first instruction */
  size_t n_chains;
  uint32_t *row_of;      /* instruction -> row */
  pte_cli_profile_row *rows;
  size_t n_rows;
  uint64_t open_start[8]; /* nested scopes (instruction scopes do not nest; margin) */
  int64_t open_instr[8];
  int depth;
  uint64_t execute_ns, executes;
  /* --etdump: every scope as it happened (record = true) */
  bool record;
  struct pte_cli_profile_event {
    const char *name; /* the runtime's scope name ("OPERATOR_CALL", "Method::execute", ...) */
    int32_t chain;
    int64_t instr;
    uint64_t start, end; /* CLOCK_MONOTONIC ns */
    uint32_t run;        /* execute number (event block) */
  } *events;
  size_t n_events, cap_events;
  uint32_t runs;        /* event blocks seen */
  size_t open_event[8]; /* events index of each open scope (record) */
  bool oom;             /* an event could not be recorded */
} pte_cli_profile;

/* Maps every instruction of method `method` to its operator or delegate name. Errors:
 * PTE_ERR_INVALID_ARGUMENT (no such method), PTE_ERR_MEMORY_ALLOCATION_FAILED. */
pte_status pte_cli_profile_init(pte_cli_profile *p, const pte_program *prog, const char *method);
void pte_cli_profile_free(pte_cli_profile *p);
/* Forgets the times recorded so far (e.g. after a warm-up execute). */
void pte_cli_profile_reset(pte_cli_profile *p);
/* The table, slowest first: name, calls, total ms, mean us, % of the executes' time. */
void pte_cli_profile_print(const pte_cli_profile *p, FILE *f);
void pte_cli_profile_json(const pte_cli_profile *p, jsonw *w);
/* Writes the recorded events as an ETDump flatbuffer (schema/etdump.fbs, identifier "ED00"): one
 * RunData per execute named after the method, one ProfileEvent per scope. */
pte_status pte_cli_profile_write_etdump(const pte_cli_profile *p, const char *method, const char *path,
                                        pte_error_info *err);

#endif
