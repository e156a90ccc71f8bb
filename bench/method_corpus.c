/* bench/method_corpus — pte_method_load and pte_method_execute on every corpus program that runs
 * with the portable kernels (others are skipped, saying why).
 *
 * Per file (method 'forward', else the first method), the median over N runs (default 200) of:
 *   prog      baseline 1: mmap open + pte_program_load + destroy + close of the same file
 *   load      pte_method_load (method allocator reset before each load; destroy not timed)
 *   copy      baseline 2: memcpy of the method's planned-buffer bytes (what touching its
 *             activations once costs)
 *   exec      pte_method_execute with every tensor input set to ones (not timed)
 * and the ratios load/prog and exec/copy. Upstream ExecuTorch reference on these files:
 * load_method 1-130 us.
 * Also prints RESULT lines (bench/bench_result.h): geometric means over the files of load (vs
 * prog) and exec (vs copy), and the slowest load_method against the upstream figure (<= 130 us).
 * Usage: bench_method_corpus [CORPUS_DIR] [RUNS]
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_result.h"
#include "bench_time.h"
#include "pte/io.h"
#include "pte/method.h"
#include "pte/portable_kernels.h"
#include "pte/program.h"
#include "pte/ptd.h"

#define MAX_PLANNED_BYTES (64u << 20)
#define POOL_SIZE (8u << 20)
#define TEMP_SIZE (16u << 20)

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* The .ptd a program needs, if the corpus has one: same stem, or the etrs pair. */
static bool find_ptd(const char *dir, const char *name, char *out, size_t cap) {
  static const char *const pairs[][2] = {{"etrs_data_map_model.pte", "etrs_data_map__default_external_constant.ptd"}};
  for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++)
    if (!strcmp(name, pairs[i][0])) {
      snprintf(out, cap, "%s/%s", dir, pairs[i][1]);
      return true;
    }
  snprintf(out, cap, "%s/%.*s.ptd", dir, (int)(strlen(name) - 4), name);
  FILE *f = fopen(out, "rb");
  if (!f) return false;
  fclose(f);
  return true;
}

typedef struct bench_mem {
  void *planned_mem[8];
  pte_planned_buffer planned[8];
  size_t n_planned, planned_bytes;
  uint8_t *pool, *temp_mem;
  pte_allocator ma, temp;
  pte_memory_manager mm;
  void *inputs[64];
  void *outputs[64];
} bench_mem;

static void mem_free(bench_mem *b) {
  for (size_t i = 0; i < b->n_planned; i++) free(b->planned_mem[i]);
  for (size_t i = 0; i < 64; i++) {
    free(b->inputs[i]);
    free(b->outputs[i]);
  }
  free(b->pool);
  free(b->temp_mem);
  memset(b, 0, sizeof *b);
}

/* Sets up memory for `meta`; returns a reason string when the method cannot be benchmarked. */
static const char *mem_init(bench_mem *b, const pte_method_meta *meta) {
  memset(b, 0, sizeof *b);
  b->n_planned = pte_method_meta_num_planned_buffers(meta);
  if (b->n_planned > 8) return "more than 8 planned buffers";
  uint64_t total = 0;
  for (size_t i = 0; i < b->n_planned; i++) {
    uint64_t sz = 0;
    pte_method_meta_planned_buffer_size(meta, i, &sz);
    total += sz;
  }
  if (total > MAX_PLANNED_BYTES) return "planned memory above 64 MiB (too large for a timing loop)";
  for (size_t i = 0; i < b->n_planned; i++) {
    uint64_t sz = 0;
    pte_method_meta_planned_buffer_size(meta, i, &sz);
    b->planned_mem[i] = calloc(1, (size_t)sz + 1);
    b->planned[i].data = b->planned_mem[i];
    b->planned[i].size = (size_t)sz;
  }
  b->planned_bytes = (size_t)total;
  b->pool = malloc(POOL_SIZE);
  b->temp_mem = malloc(TEMP_SIZE);
  pte_allocator_init(&b->ma, b->pool, POOL_SIZE);
  pte_allocator_init(&b->temp, b->temp_mem, TEMP_SIZE);
  pte_memory_manager_init(&b->mm, &b->ma, b->planned, b->n_planned, &b->temp);
  return NULL;
}

static void fill_ones(void *data, int dtype, size_t numel) {
  for (size_t k = 0; k < numel; k++) {
    switch (dtype) {
      case PTE_DTYPE_FLOAT: ((float *)data)[k] = 1.0f; break;
      case PTE_DTYPE_DOUBLE: ((double *)data)[k] = 1.0; break;
      case PTE_DTYPE_HALF: ((uint16_t *)data)[k] = 0x3C00; break;
      case PTE_DTYPE_BFLOAT16: ((uint16_t *)data)[k] = 0x3F80; break;
      case PTE_DTYPE_LONG: ((int64_t *)data)[k] = 1; break;
      case PTE_DTYPE_INT: ((int32_t *)data)[k] = 1; break;
      case PTE_DTYPE_SHORT: ((int16_t *)data)[k] = 1; break;
      case PTE_DTYPE_CHAR: case PTE_DTYPE_BYTE: case PTE_DTYPE_BOOL: ((uint8_t *)data)[k] = 1; break;
      default: break;
    }
  }
}

/* Inputs (ones / traced scalars) and unplanned output buffers. */
static pte_status prepare_io(bench_mem *b, pte_method *m, pte_error_info *err) {
  const pte_method_meta *meta = pte_method_get_meta(m);
  size_t n_in = pte_method_num_inputs(m), n_out = pte_method_num_outputs(m);
  if (n_in > 64 || n_out > 64) return pte_error_set(err, PTE_ERR_NOT_SUPPORTED, "more than 64 inputs/outputs");
  for (size_t i = 0; i < n_in; i++) {
    const pte_evalue *cur = pte_method_get_input(m, i);
    pte_status s;
    if (cur->tag == PTE_TAG_TENSOR) {
      pte_tensor_info info;
      s = pte_method_meta_input_tensor_info(meta, i, &info);
      if (s != PTE_OK) return s;
      if (!b->inputs[i]) {
        b->inputs[i] = calloc(1, info.nbytes + 1);
        size_t es = pte_dtype_size(info.dtype);
        fill_ones(b->inputs[i], info.dtype, es ? info.nbytes / es : 0);
      }
      s = pte_method_set_input_tensor(m, i, (pte_dtype)info.dtype, info.sizes, info.dim, b->inputs[i], info.nbytes, err);
    } else {
      pte_evalue v = *cur;
      s = pte_method_set_input(m, i, &v, err);
    }
    if (s != PTE_OK) return s;
  }
  for (size_t i = 0; i < n_out; i++) {
    pte_tag tag;
    pte_tensor_info info;
    if (pte_method_meta_output_tag(meta, i, &tag) != PTE_OK || tag != PTE_TAG_TENSOR) continue;
    if (pte_method_meta_output_tensor_info(meta, i, &info) != PTE_OK || info.is_memory_planned) continue;
    if (!b->outputs[i]) b->outputs[i] = calloc(1, info.nbytes + 1);
    pte_status s = pte_method_set_output_data_ptr(m, i, b->outputs[i], info.nbytes, err);
    if (s != PTE_OK && s != PTE_ERR_INVALID_STATE) return s;
  }
  return PTE_OK;
}

int main(int argc, char **argv) {
  const char *dir = argc > 1 ? argv[1] : (getenv("PTE_CORPUS") ? getenv("PTE_CORPUS") : "../shared/corpus");
  int runs = argc > 2 ? atoi(argv[2]) : 200;
  if (runs < 1) runs = 1;
  if (pte_register_portable_kernels() != PTE_OK) {
    fprintf(stderr, "bench_method_corpus: cannot register the portable kernels\n");
    return 1;
  }
  DIR *d = opendir(dir);
  if (!d) {
    fprintf(stderr, "bench_method_corpus: cannot open %s\n", dir);
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
  double *t = malloc(sizeof(double) * (size_t)runs);
  size_t copy_cap = 0;
  uint8_t *copy_dst = NULL;
  printf("Method load/execute, median of %d runs (us). prog = mmap open+program load+close; copy = memcpy of the\n"
         "method's planned bytes. Upstream ExecuTorch reference: load_method 1-130 us on these files.\n",
         runs);
  printf("%-48s %-8s %9s %8s %8s %8s %8s %9s %9s\n", "file", "method", "planned", "prog", "load", "load/prg", "copy",
         "exec", "exec/copy");
  double sum_lr = 0, max_load = 0, min_load = 1e30;
  int counted = 0;
  /* for the RESULT lines: sums of logs (prog, load, copy, exec) and the slowest load */
  double lg_p = 0, lg_l = 0, lg_c = 0, lg_e = 0, worst_prog = 0;
  int worst_file = -1;
  for (int fi = 0; fi < n; fi++) {
    char path[2048], ptd_path[2048];
    snprintf(path, sizeof path, "%s/%s", dir, names[fi]);
    pte_error_info err;
    memset(&err, 0, sizeof err);
    pte_mmap_loader ml, pl;
    pte_program prog;
    pte_ptd ptd;
    bool have_ptd = false;
    if (pte_mmap_loader_open(&ml, path, PTE_MLOCK_NONE, &err) != PTE_OK) continue;
    if (pte_program_load(&ml.base, PTE_VERIFY_INTERNAL_CONSISTENCY, &prog, &err) != PTE_OK) {
      printf("%-48s skipped: program load failed: %s\n", names[fi], err.msg);
      pte_mmap_loader_close(&ml);
      continue;
    }
    if (find_ptd(dir, names[fi], ptd_path, sizeof ptd_path) && pte_mmap_loader_open(&pl, ptd_path, PTE_MLOCK_NONE, &err) == PTE_OK) {
      if (pte_ptd_load(&pl.base, &ptd, &err) == PTE_OK) have_ptd = true;
      else pte_mmap_loader_close(&pl);
    }
    const pte_named_data_map *ext = have_ptd ? pte_ptd_map(&ptd) : NULL;
    size_t idx = 0;
    const char *mname = pte_program_find_method(&prog, "forward", &idx) == PTE_OK ? pte_program_method_name(&prog, idx)
                                                                                   : pte_program_method_name(&prog, 0);
    /* every method must load with the portable kernels */
    const char *skip = NULL;
    char why[512];
    bench_mem b;
    memset(&b, 0, sizeof b);
    for (size_t mi = 0; mi < pte_program_num_methods(&prog) && !skip; mi++) {
      pte_method_meta meta;
      const char *nm = pte_program_method_name(&prog, mi);
      if (pte_method_meta_get(&prog, nm, &meta, &err) != PTE_OK) {
        snprintf(why, sizeof why, "method %s: %s", nm, err.msg);
        skip = why;
        break;
      }
      const char *r = mem_init(&b, &meta);
      pte_method *m = NULL;
      pte_status s = PTE_OK;
      if (!r) s = pte_method_load(&prog, nm, &b.mm, NULL, ext, &m, &err);
      if (r) {
        snprintf(why, sizeof why, "method %s: %s", nm, r);
        skip = why;
      } else if (s != PTE_OK) {
        snprintf(why, sizeof why, "method %s: %s: %s", nm, pte_status_name(s), err.msg);
        skip = why;
      } else if ((s = prepare_io(&b, m, &err)) != PTE_OK || (s = pte_method_execute(m, &err)) != PTE_OK) {
        snprintf(why, sizeof why, "method %s does not execute: %s: %s", nm, pte_status_name(s), err.msg);
        skip = why;
      }
      pte_method_destroy(m);
      mem_free(&b);
    }
    if (skip) {
      printf("%-48s skipped: %s\n", names[fi], skip);
    } else {
      pte_method_meta meta;
      pte_method_meta_get(&prog, mname, &meta, &err);
      mem_init(&b, &meta);
      /* baseline 1: program load */
      for (int k = 0; k < runs; k++) {
        double t0 = pte_bench_now_us();
        pte_mmap_loader l2;
        pte_program p2;
        pte_mmap_loader_open(&l2, path, PTE_MLOCK_NONE, NULL);
        if (pte_program_load(&l2.base, PTE_VERIFY_INTERNAL_CONSISTENCY, &p2, NULL) == PTE_OK) pte_program_destroy(&p2);
        pte_mmap_loader_close(&l2);
        t[k] = pte_bench_now_us() - t0;
      }
      double tp = pte_bench_median(t, runs);
      /* method load */
      pte_method *m = NULL;
      for (int k = 0; k < runs; k++) {
        pte_allocator_reset(&b.ma);
        double t0 = pte_bench_now_us();
        pte_method_load(&prog, mname, &b.mm, NULL, ext, &m, NULL);
        t[k] = pte_bench_now_us() - t0;
        pte_method_destroy(m);
        m = NULL;
      }
      double tl = pte_bench_median(t, runs);
      /* baseline 2: copy of the planned bytes */
      size_t bytes = b.planned_bytes ? b.planned_bytes : 1;
      if (bytes > copy_cap) {
        free(copy_dst);
        copy_dst = malloc(bytes);
        copy_cap = bytes;
      }
      uint8_t one = 0;
      for (int k = 0; k < runs; k++) {
        double t0 = pte_bench_now_us();
        if (b.n_planned) {
          size_t off = 0;
          for (size_t i = 0; i < b.n_planned; i++) {
            memcpy(copy_dst + off, b.planned_mem[i], b.planned[i].size);
            off += b.planned[i].size;
          }
        } else {
          memcpy(copy_dst, &one, 1);
        }
        t[k] = pte_bench_now_us() - t0;
      }
      double tc = pte_bench_median(t, runs);
      /* execute */
      pte_allocator_reset(&b.ma);
      pte_method_load(&prog, mname, &b.mm, NULL, ext, &m, NULL);
      for (int k = 0; k < runs; k++) {
        prepare_io(&b, m, NULL);
        double t0 = pte_bench_now_us();
        pte_method_execute(m, NULL);
        t[k] = pte_bench_now_us() - t0;
      }
      pte_method_destroy(m);
      double te = pte_bench_median(t, runs);
      printf("%-48s %-8.8s %9zu %8.2f %8.2f %8.2f %8.3f %9.2f %9.1f\n", names[fi], mname, b.planned_bytes, tp, tl, tl / tp,
             tc, te, tc > 0 ? te / tc : 0.0);
      sum_lr += tl / tp;
      if (tl > max_load) {
        max_load = tl;
        worst_file = fi;
        worst_prog = tp;
      }
      lg_p += log(tp);
      lg_l += log(tl);
      lg_c += log(tc > 0 ? tc : 1e-3);
      lg_e += log(te > 0 ? te : 1e-3);
      if (tl < min_load) min_load = tl;
      counted++;
      mem_free(&b);
    }
    if (have_ptd) {
      pte_ptd_destroy(&ptd);
      pte_mmap_loader_close(&pl);
    }
    pte_program_destroy(&prog);
    pte_mmap_loader_close(&ml);
  }
  if (counted)
    printf("%d files: load_method %.2f-%.2f us (upstream reference 1-130 us), mean load/prog ratio %.2f\n", counted,
           min_load, max_load, sum_lr / counted);
  if (counted) {
    char c[320];
    snprintf(c, sizeof c, "%d corpus programs, geomean", counted);
    pte_bench_result("method_corpus", c, "load_method", "µs", exp(lg_l / counted), "program load, mmap",
                     exp(lg_p / counted), exp((lg_p - lg_l) / counted), NULL, PTE_BENCH_NO_GOAL);
    snprintf(c, sizeof c, "slowest: %s", names[worst_file]);
    pte_bench_result("method_corpus", c, "load_method", "µs", max_load, "program load, mmap", worst_prog,
                     worst_prog / max_load, "<= 130 µs (fixed budget: upstream's published 1-130, not measured here)", pte_bench_check(max_load <= 130.0));
    snprintf(c, sizeof c, "%d corpus programs, geomean", counted);
    pte_bench_result("method_corpus", c, "execute (inputs of ones)", "µs", exp(lg_e / counted),
                     "memcpy of planned bytes", exp(lg_c / counted), exp((lg_c - lg_e) / counted), NULL,
                     PTE_BENCH_NO_GOAL);
  }
  free(copy_dst);
  free(t);
  for (int i = 0; i < n; i++) free(names[i]);
  return 0;
}
