/* bench/bench_result.h — the one machine-readable line every benchmark prints besides its human
 * output; bench/run.sh collects these lines into the table of bench/RESULTS.md.
 *
 * Format (one line, fields separated by one TAB, no TAB or '|' inside a field):
 *
 *   RESULT  bench  case  metric  pte  baseline_name  baseline  ratio  goal  status
 *
 *   bench          benchmark name (program_load, writer_synth, ...)
 *   case           what was measured (a file, a size, "14 files, geomean", ...)
 *   metric         the quantity (e.g. "load_method", "peak RSS", "throughput")
 *   pte            pte's value with its unit ("3.21 µs", "812 MiB/s")
 *   baseline_name  the peer measured in the same run ("cp + sync", "OpenBLAS sgemv"), or "-"
 *   baseline       the peer's value with its unit, or "-"
 *   ratio          oriented so that > 1 means pte is better (baseline time / pte time,
 *                  pte throughput / baseline throughput, baseline memory / pte memory), or "-"
 *   goal           the target as text (">= 0.8", "<= 64 MiB"), or "-"
 *   status         PASS, FAIL (goal checked, met or not) or "-" (no goal)
 *
 * The shell benchmarks print the same line with bench/lib/bench_result.sh. Header-only, included
 * by the C benchmarks in bench/ (which may use stdio: benchmarks are not core code).
 */
#ifndef PTE_BENCH_RESULT_H
#define PTE_BENCH_RESULT_H

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Goal outcome of one result line. */
typedef enum pte_bench_status { PTE_BENCH_NO_GOAL = 0, PTE_BENCH_PASS = 1, PTE_BENCH_FAIL = 2 } pte_bench_status;

/* PASS when `ok`, FAIL otherwise. */
static inline pte_bench_status pte_bench_check(int ok) { return ok ? PTE_BENCH_PASS : PTE_BENCH_FAIL; }

/* Formats `v` (an integral value without decimals, else 3 significant digits or more), followed
 * by " unit" unless unit is NULL or empty; a NaN or negative value prints "-". */
static inline const char *pte_bench_fmt(char *buf, size_t cap, double v, const char *unit) {
  if (isnan(v) || v < 0) {
    snprintf(buf, cap, "-");
    return buf;
  }
  int prec = v >= 100 ? 0 : v >= 10 ? 1 : v >= 1 ? 2 : v >= 0.1 ? 3 : 4;
  if (v == floor(v) && v < 1e15) prec = 0;
  if (v > 0 && v < 0.001) snprintf(buf, cap, "%.3g", v);
  else snprintf(buf, cap, "%.*f", prec, v);
  if (unit && *unit) {
    size_t l = strlen(buf);
    snprintf(buf + l, cap - l, " %s", unit);
  }
  return buf;
}

/* Prints one field, replacing TAB, newline and '|' (which would break the line or the markdown
 * table) by a space / '/'; NULL or "" prints "-". */
static inline void pte_bench_field(const char *s) {
  putchar('\t');
  if (!s || !*s) s = "-";
  for (; *s; s++) putchar(*s == '\t' || *s == '\n' || *s == '\r' ? ' ' : *s == '|' ? '/' : *s);
}

/* Prints one RESULT line. `pte` and `baseline` are values in `unit`; a negative or NaN baseline
 * (or NULL baseline_name) means "no baseline"; a NaN or non-positive ratio prints "-". */
static inline void pte_bench_result(const char *bench, const char *case_name, const char *metric, const char *unit,
                                    double pte, const char *baseline_name, double baseline, double ratio,
                                    const char *goal, pte_bench_status status) {
  char a[64], b[64], r[64];
  pte_bench_fmt(a, sizeof a, pte, unit);
  if (baseline_name) pte_bench_fmt(b, sizeof b, baseline, unit);
  else snprintf(b, sizeof b, "-");
  if (isnan(ratio) || ratio <= 0 || isinf(ratio)) snprintf(r, sizeof r, "-");
  else snprintf(r, sizeof r, ratio >= 100 ? "%.0f" : ratio >= 10 ? "%.1f" : "%.2f", ratio);
  fputs("RESULT", stdout);
  pte_bench_field(bench);
  pte_bench_field(case_name);
  pte_bench_field(metric);
  pte_bench_field(a);
  pte_bench_field(baseline_name);
  pte_bench_field(b);
  pte_bench_field(r);
  pte_bench_field(goal);
  pte_bench_field(status == PTE_BENCH_PASS ? "PASS" : status == PTE_BENCH_FAIL ? "FAIL" : "-");
  putchar('\n');
  fflush(stdout);
}

/* Prints one RESULT line for a measurement that did not run: `why` (e.g. "skipped: needs 7 GiB
 * free disk") in the pte column, every other value "-". */
static inline void pte_bench_skipped(const char *bench, const char *case_name, const char *metric, const char *why) {
  fputs("RESULT", stdout);
  pte_bench_field(bench);
  pte_bench_field(case_name);
  pte_bench_field(metric);
  pte_bench_field(why);
  for (int i = 0; i < 5; i++) pte_bench_field("-");
  putchar('\n');
  fflush(stdout);
}

#endif
