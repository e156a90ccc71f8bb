/* bench/bench_time.h — the clock and the median every C benchmark uses (header-only; benchmarks
 * may use the C library freely). Include after the file's feature-test macros. */
#ifndef PTE_BENCH_TIME_H
#define PTE_BENCH_TIME_H

#include <stdlib.h>
#include <time.h>

/* CLOCK_MONOTONIC in seconds / milliseconds / microseconds. */
static inline double pte_bench_now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}
static inline double pte_bench_now_ms(void) { return pte_bench_now_s() * 1e3; }
static inline double pte_bench_now_us(void) { return pte_bench_now_s() * 1e6; }

static inline int pte_bench_cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Median of v[0..n) (n > 0); sorts v in place. */
static inline double pte_bench_median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, pte_bench_cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

#endif
