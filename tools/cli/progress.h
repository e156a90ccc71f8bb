/* The CLI's one progress reporter (tools/cli/progress.c): a bar on stderr, only when stderr is a
 * terminal and the verb is not quiet, for every long phase (hashing, writing, copying, preparing):
 *
 *   writing   [##########..........]  52%  1.04 / 2.00 GiB  612 MiB/s  ETA 2s
 *
 * The rate and ETA count from the first progress of the phase (time spent before it, e.g. waiting
 * for a lock, is not in the rate). */
#ifndef PTE_TOOLS_PROGRESS_H
#define PTE_TOOLS_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

typedef struct pte_cli_progress {
  bool on;          /* a terminal and not quiet */
  bool open;        /* a bar is on the line */
  const char *phase;
  struct timespec start, last;
  bool started;
  int last_pct;
} pte_cli_progress;

/* quiet: --quiet/-q given. */
void pte_cli_progress_init(pte_cli_progress *p, bool quiet);
/* Starts a phase ("writing", "hashing", ...): ends the previous bar. */
void pte_cli_progress_phase(pte_cli_progress *p, const char *name);
/* done of total bytes; the signature of the writer's and prepare's progress callbacks. */
void pte_cli_progress_update(void *p, uint64_t done, uint64_t total);
/* Ends the bar (a newline when one is on the line). */
void pte_cli_progress_end(pte_cli_progress *p);
/* A line of text between bars (on a terminal only, not quiet). */
void pte_cli_progress_note(pte_cli_progress *p, const char *text);

#endif
