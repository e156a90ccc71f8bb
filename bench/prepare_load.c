#define _DEFAULT_SOURCE 1 /* posix_memalign, pread */
/* bench/prepare_load.c — loading an XNNPACK model before and after `pte prepare`.
 *
 * Synthesises a 4096x4096 fp32 linear layer (y = x W^T + b, fully XNNPACK-delegated, weights and
 * bias in the program's named data as current exports store them), writes it to a file, warms the
 * page cache, and measures:
 *   1. pte_method_load before prepare (the backend packs 64 MiB of weights into GEMM panels at
 *      every load) and after prepare (the panels are used as stored), median of N loads on one
 *      open program, default mmap loader;
 *   2. time to first inference — open the file + pte_program_load + pte_method_load + the first
 *      execute, everything in the timed region, a fresh session each time, median of N — before and
 *      after prepare, for each loader a user can pick: mmap (the default: whole-file mapping, pages
 *      mapped on first touch), mmap with PTE_MMAP_POPULATE (the pre-faulting is part of the open,
 *      so it is timed), the file loader (pread into loader buffers, default alignment) and the
 *      buffer loader (the whole file read into memory first, the read timed too); with the node
 *      counters (packs, prepared weights used in place, prepared weights copied);
 *   3. the first execute against the steady-state execute with the default loader;
 * and checks the outputs of every variant bit-identical to the portable model's.
 * Goals: load_method after prepare >= 100x faster than before (same run); <= 0.25 ms (a fixed
 * budget); first execute after prepare <= 1.5x steady state with the default loader (no
 * pre-faulting outside the timed region). Prints PASS/FAIL per goal (and RESULT lines,
 * bench/bench_result.h); never asserts timing.
 *
 * Usage: bench_prepare_load [N_RUNS] [BATCH]   (defaults 9 runs, batch 1)
 *        env DIR: where the model files go (default: the bench directory of the build). */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>
#include <unistd.h>

#include "bench_result.h"
#include "bench_time.h"
#include "pte/backend_xnnpack.h"
#include "pte/io.h"
#include "pte/method.h"
#include "pte/prepare.h"
#include "pte/writer.h"

#define DIM 4096u

/* The model: one XnnpackBackend delegate, input [batch, 4096] -> output [batch, 4096]. */
static int write_model(const char *path, size_t batch) {
  const size_t nw = (size_t)DIM * DIM;
  float *w = (float *)malloc(nw * sizeof(float)), *b = (float *)malloc(DIM * sizeof(float));
  if (!w || !b) return -1;
  uint32_t x = 12345;
  for (size_t i = 0; i < nw; i++) {
    x = x * 1664525u + 1013904223u;
    w[i] = ((float)(x >> 8) / 16777216.0f - 0.5f) * 0.03f;
  }
  for (size_t i = 0; i < DIM; i++) b[i] = (float)(i % 17) / 64.0f;
  pte_error_info err;
  pte_xnn_blob blob;
  pte_status s = pte_xnn_blob_build_linear(batch, DIM, DIM, w, b, PTE_XNN_CONSTANTS_NAMED, &blob, &err);
  pte_writer *wr = NULL;
  if (s == PTE_OK) s = pte_writer_create(NULL, &wr, &err);
  uint32_t m = 0, chain = 0, bi = 0, d = 0;
  int32_t v[2];
  if (s == PTE_OK) s = pte_writer_add_method(wr, "forward", &m, &err);
  for (int k = 0; k < 2 && s == PTE_OK; k++) {
    pte_wr_tensor t;
    memset(&t, 0, sizeof t);
    int32_t sizes[2] = {(int32_t)batch, (int32_t)DIM};
    t.dtype = PTE_DTYPE_FLOAT;
    t.dim = 2;
    t.sizes = sizes;
    t.plan = PTE_WR_PLAN_EXPLICIT;
    t.mem_id = 1;
    t.mem_offset = (uint64_t)k * batch * DIM * sizeof(float);
    s = pte_writer_add_tensor(wr, m, &t, &v[k], &err);
  }
  if (s == PTE_OK) s = pte_writer_set_inputs(wr, m, &v[0], 1, &err);
  if (s == PTE_OK) s = pte_writer_set_outputs(wr, m, &v[1], 1, &err);
  if (s == PTE_OK) s = pte_writer_add_chain(wr, m, NULL, 0, NULL, 0, &chain, &err);
  for (size_t j = 0; s == PTE_OK && j < blob.n_named; j++) {
    pte_source src = pte_source_memory(blob.named[j].data, blob.named[j].size);
    s = pte_writer_add_blob(wr, &src, &bi, &err);
    if (s == PTE_OK) s = pte_writer_add_named_data(wr, blob.named[j].key, bi, 16, &err);
  }
  pte_source bs = pte_source_memory(blob.data, blob.size);
  if (s == PTE_OK) s = pte_writer_add_blob(wr, &bs, &bi, &err);
  pte_wr_delegate wd;
  memset(&wd, 0, sizeof wd);
  wd.id = PTE_XNNPACK_BACKEND_ID;
  wd.blob = bi;
  if (s == PTE_OK) s = pte_writer_add_delegate(wr, m, &wd, &d, &err);
  if (s == PTE_OK) s = pte_writer_add_delegate_call(wr, m, chain, d, v, 2, NULL, &err);
  pte_file_writer_options fo;
  pte_file_writer_options_init(&fo);
  fo.no_fsync = true;
  if (s == PTE_OK) s = pte_writer_write_file(wr, path, &fo, &err);
  if (s != PTE_OK) fprintf(stderr, "bench_prepare_load: cannot write %s: %s\n", path, err.msg);
  pte_writer_destroy(wr);
  pte_xnn_blob_free(&blob);
  free(w);
  free(b);
  return s == PTE_OK ? 0 : -1;
}

/* Reads the whole file once so that its pages are in the page cache. */
static void warm(const char *path) {
  int fd = open(path, O_RDONLY);
  if (fd < 0) return;
  static char buf[1 << 20];
  while (read(fd, buf, sizeof buf) > 0) {
  }
  close(fd);
}

typedef enum { L_MMAP, L_MMAP_POPULATE, L_FILE, L_BUFFER, L_COUNT } loader_kind;
static const char *const k_loader_names[L_COUNT] = {"mmap (default)", "mmap + PTE_MMAP_POPULATE", "file (pread)",
                                                    "buffer (file read first)"};

/* A loaded program behind one of the loaders, and the memory for one method. */
typedef struct session {
  loader_kind kind;
  pte_mmap_loader ml;
  pte_file_loader fl;
  pte_buffer_loader bl;
  uint8_t *bytes; /* buffer loader */
  pte_program prog;
  uint8_t *planned, *pool;
  size_t planned_size, pool_size;
  pte_planned_buffer pb;
  pte_allocator ma;
  pte_memory_manager mm;
} session;

/* Reads a whole file into 64-byte aligned memory. */
static uint8_t *read_all(const char *path, size_t *n) {
  int fd = open(path, O_RDONLY);
  if (fd < 0) return NULL;
  off_t size = lseek(fd, 0, SEEK_END);
  void *p = NULL;
  if (size <= 0 || posix_memalign(&p, 64, (size_t)size) != 0) {
    close(fd);
    return NULL;
  }
  size_t got = 0;
  while (got < (size_t)size) {
    ssize_t r = pread(fd, (uint8_t *)p + got, (size_t)size - got, (off_t)got);
    if (r <= 0) break;
    got += (size_t)r;
  }
  close(fd);
  if (got != (size_t)size) {
    free(p);
    return NULL;
  }
  *n = got;
  return (uint8_t *)p;
}

static int session_open(session *S, const char *path, loader_kind kind) {
  memset(S, 0, sizeof *S);
  S->kind = kind;
  S->fl.fd = -1;
  pte_error_info err;
  pte_status s;
  const pte_data_loader *ld = NULL;
  if (kind == L_MMAP || kind == L_MMAP_POPULATE) {
    s = pte_mmap_loader_open_ex(&S->ml, path, PTE_MLOCK_NONE,
                                PTE_MMAP_WHOLE_FILE | (kind == L_MMAP_POPULATE ? PTE_MMAP_POPULATE : 0), &err);
    ld = &S->ml.base;
  } else if (kind == L_FILE) {
    s = pte_file_loader_open(&S->fl, path, 0, &err);
    ld = &S->fl.base;
  } else {
    size_t n = 0;
    S->bytes = read_all(path, &n);
    s = S->bytes ? PTE_OK : PTE_ERR_ACCESS_FAILED;
    if (s == PTE_OK) pte_buffer_loader_init(&S->bl, S->bytes, n);
    else snprintf(err.msg, sizeof err.msg, "cannot read the file");
    ld = &S->bl.base;
  }
  if (s == PTE_OK) s = pte_program_load(ld, PTE_VERIFY_INTERNAL_CONSISTENCY, &S->prog, &err);
  if (s != PTE_OK) {
    fprintf(stderr, "bench_prepare_load: %s: %s\n", path, err.msg);
    return -1;
  }
  pte_method_meta meta;
  uint64_t sz = 0;
  if (pte_method_meta_get(&S->prog, "forward", &meta, &err) != PTE_OK ||
      pte_method_meta_planned_buffer_size(&meta, 0, &sz) != PTE_OK)
    return -1;
  S->planned_size = (size_t)sz;
  S->planned = (uint8_t *)calloc(1, S->planned_size + 64);
  S->pool_size = (size_t)1 << 20;
  S->pool = (uint8_t *)calloc(1, S->pool_size);
  return S->planned && S->pool ? 0 : -1;
}

static void session_close(session *S) {
  pte_program_destroy(&S->prog);
  if (S->kind == L_MMAP || S->kind == L_MMAP_POPULATE) pte_mmap_loader_close(&S->ml);
  else if (S->kind == L_FILE) pte_file_loader_close(&S->fl);
  free(S->bytes);
  free(S->planned);
  free(S->pool);
}

/* pte_method_load timed (ms); *m receives the method. */
static double load(session *S, pte_method **m) {
  pte_allocator_init(&S->ma, S->pool, S->pool_size);
  S->pb.data = S->planned;
  S->pb.size = S->planned_size;
  pte_memory_manager_init(&S->mm, &S->ma, &S->pb, 1, NULL);
  pte_error_info err;
  double t0 = pte_bench_now_ms();
  pte_status s = pte_method_load(&S->prog, "forward", &S->mm, NULL, NULL, m, &err);
  double t = pte_bench_now_ms() - t0;
  if (s != PTE_OK) {
    fprintf(stderr, "bench_prepare_load: method load: %s\n", err.msg);
    *m = NULL;
    return -1;
  }
  return t;
}

static double execute(pte_method *m, const float *x, size_t batch, float *y) {
  pte_error_info err;
  int32_t sizes[2] = {(int32_t)batch, (int32_t)DIM};
  double t0 = pte_bench_now_ms();
  pte_status s = pte_method_set_input_tensor(m, 0, PTE_DTYPE_FLOAT, sizes, 2, x, batch * DIM * sizeof(float), &err);
  if (s == PTE_OK) s = pte_method_execute(m, &err);
  double t = pte_bench_now_ms() - t0;
  if (s != PTE_OK) {
    fprintf(stderr, "bench_prepare_load: execute: %s\n", err.msg);
    return -1;
  }
  const pte_evalue *o = pte_method_get_output(m, 0);
  memcpy(y, o->u.tensor->data, batch * DIM * sizeof(float));
  return t;
}

/* Median load time of n loads (each followed by a destroy); stats of the last one. */
static double load_median(const char *path, int n, pte_xnnpack_stats *st) {
  session S;
  if (session_open(&S, path, L_MMAP) != 0) return -1;
  double *t = (double *)malloc((size_t)n * sizeof(double));
  pte_method *m = NULL;
  for (int i = 0; i < n; i++) {
    pte_xnnpack_stats_reset();
    t[i] = load(&S, &m);
    if (t[i] < 0) {
      free(t);
      session_close(&S);
      return -1;
    }
    pte_xnnpack_stats_get(st);
    pte_method_destroy(m);
  }
  double med = pte_bench_median(t, n);
  free(t);
  session_close(&S);
  return med;
}

int main(int argc, char **argv) {
  const int runs = argc > 1 ? atoi(argv[1]) : 9;
  const size_t batch = argc > 2 ? (size_t)atoi(argv[2]) : 1;
  if (runs < 1 || batch < 1 || batch > 256) {
    fprintf(stderr, "usage: bench_prepare_load [N_RUNS] [BATCH (1..256)]\n");
    return 2;
  }
  char dir[PATH_MAX], in[PATH_MAX + 64], out[PATH_MAX + 64];
  const char *env = getenv("DIR");
  if (env && *env) {
    snprintf(dir, sizeof dir, "%s", env);
  } else {
    ssize_t r = readlink("/proc/self/exe", dir, sizeof dir - 1);
    dir[r > 0 ? r : 0] = 0;
    char *slash = strrchr(dir, '/');
    if (slash) *slash = 0;
    else snprintf(dir, sizeof dir, ".");
  }
  snprintf(in, sizeof in, "%s/prepare_load_in.pte", dir);
  snprintf(out, sizeof out, "%s/prepare_load_out.pte", dir);
  if (pte_register_xnnpack_backend() != PTE_OK) return 1;
  char fp[33];
  pte_xnnpack_fingerprint(PTE_XNN_ISA_AUTO, fp);
  printf("prepare_load: %ux%u fp32 linear (64 MiB of weights in named data), batch %zu, XnnpackBackend on '%s', "
         "warm page cache, median of %d\n",
         DIM, DIM, batch, fp, runs);
  if (write_model(in, batch) != 0) return 1;
  warm(in);

  /* 1. before prepare */
  pte_xnnpack_stats st_before, st_after;
  const double before_ms = load_median(in, runs, &st_before);
  if (before_ms < 0) return 1;

  /* 2. prepare */
  pte_prepare_file_options po;
  memset(&po, 0, sizeof po);
  pte_prepare_report rep;
  pte_error_info err;
  double t0 = pte_bench_now_ms();
  pte_status s = pte_prepare_file(in, out, &po, &rep, &err);
  const double prep_ms = pte_bench_now_ms() - t0;
  if (s != PTE_OK) {
    fprintf(stderr, "bench_prepare_load: prepare: %s\n", err.msg);
    return 1;
  }
  warm(out);

  /* 3. after prepare */
  const double after_ms = load_median(out, runs, &st_after);
  if (after_ms < 0) return 1;

  /* 2. time to first inference per loader, before and after prepare (fresh session each time);
   * 3. first vs steady-state execute with the default loader. Outputs compared with the portable
   * model's (first session of the input, default loader). */
  float *x = (float *)malloc(batch * DIM * sizeof(float)), *y0 = (float *)malloc(batch * DIM * sizeof(float)),
        *y1 = (float *)malloc(batch * DIM * sizeof(float));
  double *t = (double *)malloc((size_t)runs * sizeof(double)), *tf = (double *)malloc((size_t)runs * sizeof(double)),
         *te = (double *)malloc((size_t)runs * sizeof(double));
  if (!x || !y0 || !y1 || !t || !tf || !te) return 1;
  for (size_t i = 0; i < batch * DIM; i++) x[i] = (float)((int)(i % 29) - 14) / 7.0f;
  session S;
  pte_method *m = NULL;
  if (session_open(&S, in, L_MMAP) != 0 || load(&S, &m) < 0 || execute(m, x, batch, y0) < 0) return 1;
  pte_method_destroy(m);
  session_close(&S);
  int same = 1;
  double ttfi[2][L_COUNT], first_exec[2][L_COUNT];
  pte_xnnpack_stats st_l[2][L_COUNT];
  double steady_ms = 0;
  for (int prepared = 0; prepared < 2; prepared++) {
    const char *path = prepared ? out : in;
    for (int k = 0; k < L_COUNT; k++) {
      for (int r = 0; r < runs; r++) {
        pte_xnnpack_stats_reset();
        double a = pte_bench_now_ms();
        if (session_open(&S, path, (loader_kind)k) != 0 || load(&S, &m) < 0) return 1;
        memset(y1, 0, batch * DIM * sizeof(float));
        te[r] = execute(m, x, batch, y1);
        tf[r] = pte_bench_now_ms() - a;
        pte_xnnpack_stats_get(&st_l[prepared][k]);
        same = same && te[r] >= 0 && memcmp(y0, y1, batch * DIM * sizeof(float)) == 0;
        if (prepared && k == L_MMAP && r == runs - 1) {
          for (int i = 0; i < runs; i++) t[i] = execute(m, x, batch, y1);
          steady_ms = pte_bench_median(t, runs);
        }
        pte_method_destroy(m);
        session_close(&S);
      }
      ttfi[prepared][k] = pte_bench_median(tf, runs);
      first_exec[prepared][k] = pte_bench_median(te, runs);
    }
  }
  free(t);
  free(tf);
  free(te);

  const double first_ms = first_exec[1][L_MMAP];
  const double ratio = before_ms / after_ms, first_ratio = first_ms / steady_ms;
  const int ok_speedup = ratio >= 100, ok_after = after_ms <= 0.25, ok_first = first_ratio <= 1.5;
  printf("prepare: %.1f ms, %llu -> %llu bytes (%u named value(s) replaced)\n", prep_ms,
         (unsigned long long)rep.size_before, (unsigned long long)rep.size_after, rep.backends[0].named_replaced);
  printf("before_ms %.3f  (load_method, %llu pack(s) of %.0f MiB)\n", before_ms, (unsigned long long)st_before.packs,
         (double)st_before.packed_bytes / 1048576.0);
  printf("after_ms  %.4f  (load_method, %llu pack(s), %llu node(s) on prepared weights in place, %llu copied)\n",
         after_ms, (unsigned long long)st_after.packs, (unsigned long long)st_after.prepared,
         (unsigned long long)st_after.prepared_copies);
  printf("ratio     %.0fx faster  [goal >= 100x: %s]  after <= 0.25 ms (budget): %s\n", ratio,
         ok_speedup ? "PASS" : "FAIL", ok_after ? "PASS" : "FAIL");
  printf("time to first inference (open + program load + method load + first execute), median of %d:\n", runs);
  printf("  %-26s %12s %12s %8s   %s\n", "loader", "portable ms", "prepared ms", "ratio", "prepared: first execute, packs/in place/copied");
  for (int k = 0; k < L_COUNT; k++)
    printf("  %-26s %12.3f %12.3f %7.1fx   %.3f ms, %llu/%llu/%llu\n", k_loader_names[k], ttfi[0][k], ttfi[1][k],
           ttfi[0][k] / ttfi[1][k], first_exec[1][k], (unsigned long long)st_l[1][k].packs,
           (unsigned long long)st_l[1][k].prepared, (unsigned long long)st_l[1][k].prepared_copies);
  printf("execute   first after prepare %.3f ms (default mmap loader: weight pages mapped during it), steady state "
         "%.3f ms: %.2fx  [goal <= 1.5x: %s]; outputs %s\n",
         first_ms, steady_ms, first_ratio, ok_first ? "PASS" : "FAIL",
         same ? "bit-identical to the portable model (every loader)" : "DIFFER");
  char c[64];
  snprintf(c, sizeof c, "4096x4096 fp32 linear, batch %zu", batch);
  pte_bench_result("prepare_load", c, "load_method after prepare", "ms", after_ms, "before prepare", before_ms, ratio,
                   ">= 100x", pte_bench_check(ok_speedup));
  pte_bench_result("prepare_load", c, "load_method after prepare", "ms", after_ms, NULL, -1, NAN, "<= 0.25 ms (budget)",
                   pte_bench_check(ok_after));
  for (int k = 0; k < L_COUNT; k++) {
    char metric[96];
    snprintf(metric, sizeof metric, "time to first inference, %s loader", k_loader_names[k]);
    pte_bench_result("prepare_load", c, metric, "ms", ttfi[1][k], "portable model, same loader", ttfi[0][k],
                     ttfi[0][k] / ttfi[1][k], NULL, PTE_BENCH_NO_GOAL);
  }
  pte_bench_result("prepare_load", c, "first execute after prepare (default loader)", "ms", first_ms,
                   "steady-state execute", steady_ms, steady_ms / first_ms, "<= 1.5x steady", pte_bench_check(ok_first));
  unlink(in);
  unlink(out);
  free(x);
  free(y0);
  free(y1);
  return same ? 0 : 1;
}
