/* The CLI's progress reporter (progress.h). */
#define _POSIX_C_SOURCE 200809L
#include "progress.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

static double secs_between(const struct timespec *a, const struct timespec *b) {
  return (double)(b->tv_sec - a->tv_sec) + (double)(b->tv_nsec - a->tv_nsec) / 1e9;
}

void pte_cli_progress_init(pte_cli_progress *p, bool quiet) {
  memset(p, 0, sizeof *p);
  p->on = !quiet && isatty(2);
  p->phase = "working";
  p->last_pct = -1;
}

void pte_cli_progress_end(pte_cli_progress *p) {
  if (p->open) fputc('\n', stderr);
  p->open = false;
}

void pte_cli_progress_phase(pte_cli_progress *p, const char *name) {
  pte_cli_progress_end(p);
  p->phase = name;
  p->started = false;
  p->last_pct = -1;
}

void pte_cli_progress_note(pte_cli_progress *p, const char *text) {
  if (!p->on) return;
  pte_cli_progress_end(p);
  fprintf(stderr, "%s\n", text);
}

void pte_cli_progress_update(void *ctx, uint64_t done, uint64_t total) {
  pte_cli_progress *p = (pte_cli_progress *)ctx;
  if (!p->on || total == 0) return;
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  if (!p->started) { /* the rate counts from here, not from the start of the command */
    p->started = true;
    p->start = p->last = now;
  }
  const int pct = done >= total ? 100 : (int)(done * 100 / total);
  if (pct == p->last_pct && done < total && secs_between(&p->last, &now) < 0.25) return;
  p->last_pct = pct;
  p->last = now;
  const double el = secs_between(&p->start, &now);
  const double rate = el > 0.05 ? (double)done / el : 0; /* bytes/s */
  char bar[21];
  for (int i = 0; i < 20; i++) bar[i] = i < pct / 5 ? '#' : '.';
  bar[20] = 0;
  const double gib = 1024.0 * 1024.0 * 1024.0;
  const bool big = total >= (uint64_t)1 << 30;
  char tail[64] = ""; /* rate and ETA once there is something to measure */
  if (rate > 0 && done < total)
    snprintf(tail, sizeof tail, "  %.0f MiB/s  ETA %.0fs", rate / 1048576.0, (double)(total - done) / rate);
  else if (rate > 0)
    snprintf(tail, sizeof tail, "  %.0f MiB/s", rate / 1048576.0);
  fprintf(stderr, "\r%-9s [%s] %3d%%  %.2f / %.2f %s%s   ", p->phase, bar, pct,
          big ? (double)done / gib : (double)done / 1048576.0, big ? (double)total / gib : (double)total / 1048576.0,
          big ? "GiB" : "MiB", tail);
  fflush(stderr);
  p->open = true;
  if (done >= total) pte_cli_progress_end(p);
}
