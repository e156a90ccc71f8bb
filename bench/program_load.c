/* bench/program_load — pte_program_load on every corpus file, 1000× per loader.
 *
 * Prints, per file, the median time of: a raw baseline measured in the same run (open + fstat +
 * pread of the program bytes + close — the least any file-based loader can do), pte with the file
 * loader and with the mmap loader, each at minimal and at full verification; every pte figure
 * includes opening and closing the loader; then ratios against the baseline. Upstream ExecuTorch,
 * measured on a machine of this kind: Program::load 2–4 µs (file loader), 8–16 µs (mmap), at its
 * default verification (Verification::Minimal).
 * Also prints RESULT lines (bench/bench_result.h): per loader and level the geometric mean over the
 * files and the slowest file, against the baseline; goals are fixed budgets taken from upstream's
 * published figures (not measured here) at the same level, minimal: file loader <= 4 µs, mmap
 * loader <= 16 µs for the slowest file. Full verification (pte's default) has no goal.
 * Usage: bench_program_load [CORPUS_DIR] [ITERATIONS]
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <math.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bench_result.h"
#include "bench_time.h"
#include "pte/io.h"
#include "pte/program.h"

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

int main(int argc, char **argv) {
  const char *dir = argc > 1 ? argv[1] : (getenv("PTE_CORPUS") ? getenv("PTE_CORPUS") : "../shared/corpus");
  int iters = argc > 2 ? atoi(argv[2]) : 1000;
  if (iters < 1) iters = 1;
  DIR *d = opendir(dir);
  if (!d) {
    fprintf(stderr, "bench_program_load: cannot open %s\n", dir);
    return 1;
  }
  char *names[256];
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)) && n < 256) {
    size_t l = strlen(e->d_name);
    if (l > 4 && !strcmp(e->d_name + l - 4, ".pte")) names[n++] = strdup(e->d_name);
  }
  closedir(d);
  qsort(names, (size_t)n, sizeof *names, cmp_str);
  double *t = malloc(sizeof(double) * (size_t)iters);
  char *buf = NULL;
  if (posix_memalign((void **)&buf, 64, 4 << 20) != 0) return 1;
  printf("Program load, median of %d runs per file (µs). baseline = open+fstat+pread(program bytes)+close\n", iters);
  printf("pte-file/pte-mmap: full verification (default); file-min/mmap-min: PTE_VERIFY_MINIMAL (upstream's default level)\n");
  printf("%-48s %9s %9s %9s %9s %9s %7s %7s\n", "file", "baseline", "file-min", "pte-file", "mmap-min", "pte-mmap", "file/bl",
         "mmap/bl");
  double sum_ratio_f = 0, sum_ratio_m = 0;
  int counted = 0;
  /* per file: [0] baseline, [1] file-min, [2] pte-file, [3] pte-mmap, [4] mmap-min; index of the file name */
  double res[256][5];
  int res_file[256];
  for (int i = 0; i < n; i++) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, names[i]);
    /* program bytes = what the loader must read: everything before the segments */
    pte_error_info err;
    pte_file_loader fl;
    if (pte_file_loader_open(&fl, path, 16, &err) != PTE_OK) continue;
    pte_program p;
    if (pte_program_load(&fl.base, PTE_VERIFY_INTERNAL_CONSISTENCY, &p, &err) != PTE_OK) {
      printf("%-48s load failed: %s\n", names[i], err.msg);
      pte_file_loader_close(&fl);
      continue;
    }
    size_t prog_bytes = p.fb_size;
    pte_program_destroy(&p);
    pte_file_loader_close(&fl);
    if (prog_bytes > (4u << 20)) prog_bytes = 4u << 20;

    for (int k = 0; k < iters; k++) {
      double t0 = pte_bench_now_us();
      int fd = open(path, O_RDONLY);
      struct stat st;
      fstat(fd, &st);
      ssize_t r = pread(fd, buf, prog_bytes, 0);
      close(fd);
      t[k] = pte_bench_now_us() - t0;
      if (r < 0) return 1;
    }
    double bl = pte_bench_median(t, iters);
    for (int k = 0; k < iters; k++) {
      double t0 = pte_bench_now_us();
      pte_file_loader_open(&fl, path, 16, &err);
      pte_status s = pte_program_load(&fl.base, PTE_VERIFY_INTERNAL_CONSISTENCY, &p, &err);
      if (s == PTE_OK) pte_program_destroy(&p);
      pte_file_loader_close(&fl);
      t[k] = pte_bench_now_us() - t0;
    }
    double tf = pte_bench_median(t, iters);
    for (int k = 0; k < iters; k++) {
      double t0 = pte_bench_now_us();
      pte_file_loader_open(&fl, path, 16, &err);
      pte_status s = pte_program_load(&fl.base, PTE_VERIFY_MINIMAL, &p, &err);
      if (s == PTE_OK) pte_program_destroy(&p);
      pte_file_loader_close(&fl);
      t[k] = pte_bench_now_us() - t0;
    }
    double tmin = pte_bench_median(t, iters);
    for (int k = 0; k < iters; k++) {
      double t0 = pte_bench_now_us();
      pte_mmap_loader ml;
      pte_mmap_loader_open(&ml, path, PTE_MLOCK_NONE, &err);
      pte_status s = pte_program_load(&ml.base, PTE_VERIFY_INTERNAL_CONSISTENCY, &p, &err);
      if (s == PTE_OK) pte_program_destroy(&p);
      pte_mmap_loader_close(&ml);
      t[k] = pte_bench_now_us() - t0;
    }
    double tm = pte_bench_median(t, iters);
    for (int k = 0; k < iters; k++) {
      double t0 = pte_bench_now_us();
      pte_mmap_loader ml;
      pte_mmap_loader_open(&ml, path, PTE_MLOCK_NONE, &err);
      pte_status s = pte_program_load(&ml.base, PTE_VERIFY_MINIMAL, &p, &err);
      if (s == PTE_OK) pte_program_destroy(&p);
      pte_mmap_loader_close(&ml);
      t[k] = pte_bench_now_us() - t0;
    }
    double tmm = pte_bench_median(t, iters);
    printf("%-48s %9.2f %9.2f %9.2f %9.2f %9.2f %7.2f %7.2f\n", names[i], bl, tmin, tf, tmm, tm, tf / bl, tm / bl);
    sum_ratio_f += tf / bl;
    sum_ratio_m += tm / bl;
    res[counted][0] = bl;
    res[counted][1] = tmin;
    res[counted][2] = tf;
    res[counted][3] = tm;
    res[counted][4] = tmm;
    res_file[counted] = i;
    counted++;
  }
  if (counted)
    printf("mean ratio vs baseline: file %.2f, mmap %.2f (upstream ExecuTorch: 2-4 µs file, 8-16 µs mmap)\n",
           sum_ratio_f / counted, sum_ratio_m / counted);
  /* the budgets are upstream's published Program::load times, measured at its default
   * verification (Verification::Minimal): the goals sit on pte's minimal rows; full verification
   * (pte's default) is printed without a goal */
  static const char *const metric[5] = {NULL, "load, file loader, minimal verification",
                                        "load, file loader, full verification", "load, mmap loader, full verification",
                                        "load, mmap loader, minimal verification"};
  static const char *const goal[5] = {NULL, "slowest <= 4 µs (fixed budget: upstream's published 2-4)", NULL, NULL,
                                      "slowest <= 16 µs (fixed budget: upstream's published 8-16)"};
  static const double goal_us[5] = {0, 4.0, 0, 0, 16.0};
  for (int v = 1; v < 5 && counted; v++) {
    double lt = 0, lb = 0, lr = 0;
    int worst = 0;
    for (int k = 0; k < counted; k++) {
      lt += log(res[k][v]);
      lb += log(res[k][0]);
      lr += log(res[k][0] / res[k][v]);
      if (res[k][v] > res[worst][v]) worst = k;
    }
    char c[320];
    snprintf(c, sizeof c, "%d corpus files, geomean", counted);
    pte_bench_result("program_load", c, metric[v], "µs", exp(lt / counted), "open+fstat+pread+close",
                     exp(lb / counted), exp(lr / counted), NULL, PTE_BENCH_NO_GOAL);
    snprintf(c, sizeof c, "slowest: %s", names[res_file[worst]]);
    pte_bench_result("program_load", c, metric[v], "µs", res[worst][v], "open+fstat+pread+close", res[worst][0],
                     res[worst][0] / res[worst][v], goal[v],
                     goal[v] ? pte_bench_check(res[worst][v] <= goal_us[v]) : PTE_BENCH_NO_GOAL);
  }
  free(t);
  free(buf);
  for (int i = 0; i < n; i++) free(names[i]);
  return 0;
}
