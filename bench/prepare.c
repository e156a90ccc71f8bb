#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE 1 /* wait4 */
/* bench/prepare.c — `pte prepare` in one run:
 *   1. throughput of `pte prepare --passthrough` on a SIZE file (default 2 GiB: 16 delegate blobs
 *      of SIZE/16, every one replaced, i.e. the full replace path) as a ratio to `cp` of the same
 *      file, both durable (prepare: fsync + rename; cp: followed by `sync FILE`) and not
 *      (--no-fsync vs plain cp); also the pure copy path (no hook: byte-for-byte copy);
 *   2. peak RSS of that prepare process (wait4 ru_maxrss) against the goal 64 MiB + the largest
 *      replaced value;
 *   3. method load time of a packing model (TestPacking, 4 layers of 2048x2048 fp32 weights in
 *      named data) before and after prepare.
 *   4. the real XNNPACK hook: `pte prepare` of a `pte synth large --delegate xnnpack` model of
 *      SIZE (4 fp32 layers: every weight packed, one at a time), durable and --no-fsync, as a
 *      ratio to cp (+ sync) of the same file, and its peak RSS against 64 MiB + the largest
 *      packed value (read from the prepared file).
 * Also prints RESULT lines (bench/bench_result.h) for all four parts.
 * Usage: bench_prepare [SIZE_MIB]   (env DIR: where the big files go, default <build>/bench-tmp;
 * env ONLY=xnn: part 4 alone)
 * Needs 3 x SIZE free disk space; skips part 1-2 with a message otherwise (also when the env
 * PTE_BENCH_SKIP_BIG is set: bench/run.sh sets it when the disk has too little room). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../tests/support/packing_backend.c"
#include "bench_result.h"
#include "bench_time.h"
#include "pte/io.h"
#include "pte/prepare.h"
#include "pte/program.h"
#include "pte/writer.h"

/* Runs argv (stdout/stderr to /dev/null unless verbose); returns exit status, fills seconds and
 * peak RSS (KiB). */
static int spawn(char *const *argv, double *secs, long *maxrss_kib) {
  double t0 = pte_bench_now_s();
  pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    int dn = open("/dev/null", O_WRONLY);
    if (dn >= 0) {
      dup2(dn, 1);
      dup2(dn, 2);
    }
    execvp(argv[0], argv);
    _exit(127);
  }
  int st = 0;
  struct rusage ru;
  memset(&ru, 0, sizeof ru);
  if (wait4(pid, &st, 0, &ru) < 0) return -1;
  if (secs) *secs = pte_bench_now_s() - t0;
  if (maxrss_kib) *maxrss_kib = ru.ru_maxrss;
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static pte_status blob_read(void *ctx, uint64_t offset, void *dst, size_t size, pte_error_info *err) {
  (void)err;
  uint64_t seed = (uint64_t)(uintptr_t)ctx * 0x9e3779b97f4a7c15ull;
  uint64_t *d = (uint64_t *)dst;
  size_t n = size / 8;
  for (size_t i = 0; i < n; i++) d[i] = seed ^ ((offset / 8 + i) * 0xbf58476d1ce4e5b9ull);
  memset((uint8_t *)dst + n * 8, 0x5a, size - n * 8);
  return PTE_OK;
}

/* SIZE file: one method with n_blobs "TestPassthrough" delegates of blob bytes each. */
static int make_big(const char *path, uint32_t n_blobs, uint64_t blob) {
  pte_writer *w = NULL;
  pte_error_info err;
  pte_writer_options o;
  memset(&o, 0, sizeof o);
  o.no_dedup = true;
  if (pte_writer_create(&o, &w, &err) != PTE_OK) return -1;
  uint32_t m = 0, chain = 0;
  int32_t v[2];
  pte_status s = pte_writer_add_method(w, "forward", &m, &err);
  for (int k = 0; k < 2 && s == PTE_OK; k++) {
    pte_wr_tensor t;
    memset(&t, 0, sizeof t);
    int32_t sizes[1] = {4};
    t.dtype = PTE_DTYPE_FLOAT;
    t.dim = 1;
    t.sizes = sizes;
    t.plan = PTE_WR_PLAN_EXPLICIT;
    t.mem_id = 1;
    t.mem_offset = (uint64_t)k * 16;
    s = pte_writer_add_tensor(w, m, &t, &v[k], &err);
  }
  if (s == PTE_OK) s = pte_writer_set_inputs(w, m, &v[0], 1, &err);
  if (s == PTE_OK) s = pte_writer_set_outputs(w, m, &v[1], 1, &err);
  if (s == PTE_OK) s = pte_writer_add_chain(w, m, NULL, 0, NULL, 0, &chain, &err);
  for (uint32_t j = 0; j < n_blobs && s == PTE_OK; j++) {
    pte_source src = pte_source_callback(blob_read, (void *)(uintptr_t)(j + 1), blob);
    uint32_t b = 0, d = 0;
    s = pte_writer_add_blob(w, &src, &b, &err);
    pte_wr_delegate wd;
    memset(&wd, 0, sizeof wd);
    wd.id = "TestPassthrough";
    wd.blob = b;
    if (s == PTE_OK) s = pte_writer_add_delegate(w, m, &wd, &d, &err);
    if (s == PTE_OK) s = pte_writer_add_delegate_call(w, m, chain, d, v, 2, NULL, &err);
  }
  pte_file_writer_options fo;
  pte_file_writer_options_init(&fo);
  fo.no_fsync = true;
  if (s == PTE_OK) s = pte_writer_write_file(w, path, &fo, &err);
  pte_writer_destroy(w);
  if (s != PTE_OK) fprintf(stderr, "bench_prepare: cannot write %s: %s\n", path, err.msg);
  return s == PTE_OK ? 0 : -1;
}

static void exe_dir(char *buf, size_t n) {
  ssize_t r = readlink("/proc/self/exe", buf, n - 1);
  if (r <= 0) {
    snprintf(buf, n, ".");
    return;
  }
  buf[r] = 0;
  char *slash = strrchr(buf, '/');
  if (slash) *slash = 0;
}

static void part_file(const char *dir, const char *cli, uint64_t size_mib) {
  char in[PATH_MAX + 64], out[PATH_MAX + 64], cpf[PATH_MAX + 64];
  snprintf(in, sizeof in, "%s/prepare_in.pte", dir);
  snprintf(out, sizeof out, "%s/prepare_out.pte", dir);
  snprintf(cpf, sizeof cpf, "%s/prepare_cp.pte", dir);
  struct statvfs sv;
  uint64_t need = size_mib * 3 * (1u << 20) + (512u << 20);
  if (statvfs(dir, &sv) == 0 && (uint64_t)sv.f_bavail * sv.f_frsize < need) {
    printf("prepare throughput: needs %llu MiB free in %s: skipped\n", (unsigned long long)(need >> 20), dir);
    char why[128], c[128];
    snprintf(why, sizeof why, "skipped: needs %llu MiB free disk", (unsigned long long)(need >> 20));
    snprintf(c, sizeof c, "%llu MiB file", (unsigned long long)size_mib);
    pte_bench_skipped("prepare", c, "throughput / peak RSS", why);
    return;
  }
  uint32_t n_blobs = 16;
  uint64_t blob = size_mib * (1u << 20) / n_blobs - 4096;
  double t0 = pte_bench_now_s();
  if (make_big(in, n_blobs, blob) != 0) return;
  struct stat st;
  stat(in, &st);
  printf("input: %s, %.0f MiB (%u TestPassthrough blobs of %.1f MiB), written in %.1f s\n", in,
         (double)st.st_size / (1 << 20), n_blobs, (double)blob / (1 << 20), pte_bench_now_s() - t0);

  char *cp_argv[] = {"cp", in, cpf, NULL};
  char *sync_argv[] = {"sync", cpf, NULL};
  char *prep_argv[] = {(char *)cli, "prepare", in, "-o", out, "--passthrough", "TestPassthrough", "-q", NULL};
  char *prep_nf_argv[] = {(char *)cli, "prepare", in, "-o", out, "--passthrough", "TestPassthrough", "-q",
                          "--no-fsync", NULL};
  char *copy_argv[] = {(char *)cli, "prepare", in, "-o", out, "-q", NULL};
  /* best of 3 for every measurement; the page cache is warmed by one cp first, and every measured
   * run starts with no dirty pages (sync) so one run's writeback does not slow the next */
  double t_cp = 1e30, t_cps = 1e30, t_prep = 1e30, t_prep_nf = 1e30, t_copy = 1e30;
  long rss = 0, rss_nf = 0, rss_copy = 0, rss_cp = 0;
  unlink(cpf);
  spawn(cp_argv, NULL, NULL);
  for (int rep = 0; rep < 3; rep++) {
    double t = 0, ts = 0;
    long r = 0;
    unlink(cpf);
    sync();
    if (spawn(cp_argv, &t, &r) != 0) {
      printf("cp failed\n");
      return;
    }
    spawn(sync_argv, &ts, NULL);
    if (t < t_cp) t_cp = t;
    if (t + ts < t_cps) t_cps = t + ts;
    if (r > rss_cp) rss_cp = r;
    unlink(cpf);
    unlink(out);
    sync();
    if (spawn(prep_nf_argv, &t, &r) != 0) printf("prepare --no-fsync failed\n");
    if (t < t_prep_nf) t_prep_nf = t;
    if (r > rss_nf) rss_nf = r;
    unlink(out);
    sync();
    if (spawn(prep_argv, &t, &r) != 0) printf("prepare failed\n");
    if (t < t_prep) t_prep = t;
    if (r > rss) rss = r;
    unlink(out);
    sync();
    if (spawn(copy_argv, &t, &r) != 0) printf("prepare (copy path) failed\n");
    if (t < t_copy) t_copy = t;
    if (r > rss_copy) rss_copy = r;
    unlink(out);
  }
  double mib = (double)st.st_size / (1 << 20);
  printf("(best of 3 runs each)\n");
  printf("cp:                          %7.2f s  %7.0f MiB/s (cp + sync FILE: %.2f s)\n", t_cp, mib / t_cp, t_cps);
  printf("prepare --passthrough:       %7.2f s  %7.0f MiB/s  durable ratio to cp+sync: %.2f (goal >= 0.8)\n", t_prep,
         mib / t_prep, t_cps / t_prep);
  printf("prepare --passthrough -nofs: %7.2f s  %7.0f MiB/s  ratio to cp:          %.2f\n", t_prep_nf,
         mib / t_prep_nf, t_cp / t_prep_nf);
  printf("prepare, no hook (copy):     %7.2f s  %7.0f MiB/s  durable ratio to cp+sync: %.2f\n", t_copy, mib / t_copy,
         t_cps / t_copy);
  double goal = 64.0 + (double)(blob + PTE_PREPARED_HEADER_SIZE) / (1 << 20);
  printf("peak RSS prepare --passthrough: %.1f MiB (goal <= 64 MiB + largest replaced value %.1f MiB = %.1f MiB): %s\n",
         rss / 1024.0, (double)(blob + PTE_PREPARED_HEADER_SIZE) / (1 << 20), goal,
         rss / 1024.0 <= goal ? "met" : "MISSED");
  printf("peak RSS --no-fsync: %.1f MiB, copy path: %.1f MiB, cp: %.1f MiB\n", rss_nf / 1024.0, rss_copy / 1024.0,
         rss_cp / 1024.0);
  char c[160], c2[160], g[96];
  snprintf(c, sizeof c, "%.0f MiB, %u blobs replaced (--passthrough)", mib, n_blobs);
  snprintf(c2, sizeof c2, "%.0f MiB, no hook (copy path)", mib);
  pte_bench_result("prepare", c, "throughput, durable", "MiB/s", mib / t_prep, "cp + sync FILE", mib / t_cps,
                   t_cps / t_prep, ">= 0.8", pte_bench_check(t_cps / t_prep >= 0.8));
  pte_bench_result("prepare", c, "throughput, page cache (--no-fsync)", "MiB/s", mib / t_prep_nf, "cp", mib / t_cp,
                   t_cp / t_prep_nf, NULL, PTE_BENCH_NO_GOAL);
  pte_bench_result("prepare", c2, "throughput, durable", "MiB/s", mib / t_copy, "cp + sync FILE", mib / t_cps,
                   t_cps / t_copy, NULL, PTE_BENCH_NO_GOAL);
  snprintf(g, sizeof g, "<= %.0f MiB (64 + largest value)", goal);
  pte_bench_result("prepare", c, "peak RSS", "MiB", rss / 1024.0, "cp", rss_cp / 1024.0,
                   rss > 0 ? (double)rss_cp / (double)rss : 0.0, g, pte_bench_check(rss / 1024.0 <= goal));
  if (!getenv("KEEP")) unlink(in); /* KEEP=1 leaves the input for manual runs */
  unlink(out);
  unlink(cpf);
}

/* Largest named-data value of a .pte (0 on error). */
static uint64_t largest_value(const char *path) {
  pte_mmap_loader l;
  pte_program prog;
  uint64_t best = 0;
  if (pte_mmap_loader_open(&l, path, PTE_MLOCK_NONE, NULL) != PTE_OK) return 0;
  if (pte_program_load(&l.base, PTE_VERIFY_INTERNAL_CONSISTENCY, &prog, NULL) == PTE_OK) {
    const pte_named_data_map *m = pte_program_named_data_map(&prog);
    uint32_t n = 0;
    if (m && pte_named_data_map_num_keys(m, &n) == PTE_OK) {
      for (uint32_t i = 0; i < n; i++) {
        const char *key = NULL;
        pte_freeable_buffer b;
        memset(&b, 0, sizeof b);
        if (pte_named_data_map_get_key(m, i, &key) != PTE_OK || pte_named_data_map_get_data(m, key, &b) != PTE_OK) continue;
        if (b.size > best) best = b.size;
        pte_freeable_buffer_free(&b);
      }
    }
    pte_program_destroy(&prog);
  }
  pte_mmap_loader_close(&l);
  return best;
}

/* Part 4: the XNNPACK hook on a generated model of size_mib. */
static void part_xnn(const char *dir, const char *cli, uint64_t size_mib) {
  char in[PATH_MAX + 64], out[PATH_MAX + 64], cpf[PATH_MAX + 64], sz[32];
  snprintf(in, sizeof in, "%s/prepare_xnn_in.pte", dir);
  snprintf(out, sizeof out, "%s/prepare_xnn_out.pte", dir);
  snprintf(cpf, sizeof cpf, "%s/prepare_xnn_cp.pte", dir);
  snprintf(sz, sizeof sz, "%lluM", (unsigned long long)size_mib);
  char c[128];
  snprintf(c, sizeof c, "%llu MiB XNNPACK model (synth large, 4 layers)", (unsigned long long)size_mib);
  struct statvfs sv;
  const uint64_t need = size_mib * 3 * (1u << 20) + (512u << 20);
  if (statvfs(dir, &sv) == 0 && (uint64_t)sv.f_bavail * sv.f_frsize < need) {
    printf("xnnpack prepare: needs %llu MiB free in %s: skipped\n", (unsigned long long)(need >> 20), dir);
    pte_bench_skipped("prepare", c, "xnnpack throughput / peak RSS", "skipped: not enough free disk");
    return;
  }
  char *gen_argv[] = {(char *)cli, "synth", "large", "-o", in, "--size", sz, "--delegate", "xnnpack", NULL};
  if (spawn(gen_argv, NULL, NULL) != 0) {
    printf("xnnpack prepare: pte synth failed\n");
    pte_bench_skipped("prepare", c, "xnnpack throughput / peak RSS", "skipped: pte synth failed");
    return;
  }
  struct stat st;
  stat(in, &st);
  char *cp_argv[] = {"cp", in, cpf, NULL};
  char *sync_argv[] = {"sync", cpf, NULL};
  char *prep_argv[] = {(char *)cli, "prepare", in, "-o", out, "-q", NULL};
  char *prep_nf_argv[] = {(char *)cli, "prepare", in, "-o", out, "-q", "--no-fsync", NULL};
  double t_cp = 1e30, t_cps = 1e30, t_prep = 1e30, t_prep_nf = 1e30;
  long rss = 0, rss_nf = 0, rss_cp = 0;
  int failed = 0;
  spawn(cp_argv, NULL, NULL); /* warm the page cache */
  for (int rep = 0; rep < 2; rep++) {
    double t = 0, ts = 0;
    long r = 0;
    unlink(cpf);
    sync();
    if (spawn(cp_argv, &t, &r) != 0) failed = 1;
    spawn(sync_argv, &ts, NULL);
    if (t < t_cp) t_cp = t;
    if (t + ts < t_cps) t_cps = t + ts;
    if (r > rss_cp) rss_cp = r;
    unlink(cpf);
    unlink(out);
    sync();
    if (spawn(prep_nf_argv, &t, &r) != 0) failed = 1;
    if (t < t_prep_nf) t_prep_nf = t;
    if (r > rss_nf) rss_nf = r;
    unlink(out);
    sync();
    if (spawn(prep_argv, &t, &r) != 0) failed = 1;
    if (t < t_prep) t_prep = t;
    if (r > rss) rss = r;
  }
  const uint64_t big = failed ? 0 : largest_value(out);
  if (failed || !big) {
    printf("xnnpack prepare: a run failed\n");
    pte_bench_skipped("prepare", c, "xnnpack throughput / peak RSS", "failed: cp or pte prepare failed");
  } else {
    const double mib = (double)st.st_size / (1 << 20), goal = 64.0 + (double)big / (1 << 20);
    const long peak = rss > rss_nf ? rss : rss_nf;
    printf("xnnpack prepare (%.0f MiB, best of 2): %.2f s durable (cp + sync %.2f s, ratio %.2f), %.2f s --no-fsync "
           "(cp %.2f s, ratio %.2f)\n",
           mib, t_prep, t_cps, t_cps / t_prep, t_prep_nf, t_cp, t_cp / t_prep_nf);
    printf("xnnpack prepare peak RSS: %.1f MiB (--no-fsync %.1f MiB; goal <= 64 MiB + largest packed value %.1f MiB = "
           "%.1f MiB): %s\n",
           rss / 1024.0, rss_nf / 1024.0, (double)big / (1 << 20), goal, peak / 1024.0 <= goal ? "met" : "MISSED");
    char g[96];
    pte_bench_result("prepare", c, "xnnpack throughput, durable", "MiB/s", mib / t_prep, "cp + sync FILE", mib / t_cps,
                     t_cps / t_prep, NULL, PTE_BENCH_NO_GOAL);
    pte_bench_result("prepare", c, "xnnpack throughput, page cache (--no-fsync)", "MiB/s", mib / t_prep_nf, "cp",
                     mib / t_cp, t_cp / t_prep_nf, NULL, PTE_BENCH_NO_GOAL);
    snprintf(g, sizeof g, "<= %.0f MiB (64 + largest packed value)", goal);
    pte_bench_result("prepare", c, "xnnpack peak RSS", "MiB", peak / 1024.0, "cp", rss_cp / 1024.0,
                     peak > 0 ? (double)rss_cp / (double)peak : 0.0, g, pte_bench_check(peak / 1024.0 <= goal));
  }
  if (!getenv("KEEP")) unlink(in);
  unlink(out);
  unlink(cpf);
}

static void part_load(void) {
  if (packing_backend_register() != PTE_OK) return;
  static const packing_layer layers[4] = {{true, -1}, {true, -1}, {true, -1}, {true, -1}};
  const uint32_t n = 2048;
  packing_model_spec spec = {n, 4, layers, 1, false, NULL, false, 0, 0};
  pte_error_info err;
  size_t size = 0;
  uint8_t *in = packing_model_build(&spec, &size, &err);
  if (!in) {
    printf("packing model: %s\n", err.msg);
    return;
  }
  float *x = (float *)malloc(n * sizeof(float)), *y0 = (float *)malloc(n * sizeof(float)),
        *y1 = (float *)malloc(n * sizeof(float));
  for (uint32_t i = 0; i < n; i++) x[i] = (float)(i % 13) / 8.0f;
  /* prepare in process, into memory */
  pte_buffer_loader bl;
  pte_buffer_loader_init(&bl, in, size);
  pte_memory_writer mw;
  pte_memory_writer_init(&mw, pte_heap_realloc, NULL, 0);
  size_t temp_size = (size_t)64 << 20;
  uint8_t *temp_mem = (uint8_t *)malloc(temp_size);
  pte_allocator temp;
  pte_allocator_init(&temp, temp_mem, temp_size);
  pte_prepare_report rep;
  double t0 = pte_bench_now_s();
  pte_status s = pte_initialize_and_save_backend_data_ex(&bl.base, &mw.base, &temp, NULL, NULL, &rep, &err);
  double t_prep = pte_bench_now_s() - t0;
  if (s != PTE_OK) {
    printf("prepare of the packing model failed: %s\n", err.msg);
    return;
  }
  size_t out_size = 0;
  const uint8_t *d = pte_memory_writer_data(&mw, &out_size);
  uint8_t *out = (uint8_t *)aligned_alloc(64, (out_size + 63) / 64 * 64);
  memcpy(out, d, out_size);
  pte_data_writer_destroy(&mw.base);
  const int reps = 5;
  uint64_t best_before = UINT64_MAX, best_after = UINT64_MAX;
  int packs_before = 0, packs_after = 0;
  for (int r = 0; r < reps; r++) {
    uint64_t ns = 0;
    packing_reset();
    if (packing_model_run(in, size, n, x, y0, &ns, &err) != PTE_OK) {
      printf("run (portable): %s\n", err.msg);
      return;
    }
    packs_before = packing_stats.packs;
    if (ns < best_before) best_before = ns;
    packing_reset();
    if (packing_model_run(out, out_size, n, x, y1, &ns, &err) != PTE_OK) {
      printf("run (prepared): %s\n", err.msg);
      return;
    }
    packs_after = packing_stats.packs;
    if (ns < best_after) best_after = ns;
  }
  printf("packing model: 4 x %ux%u fp32 weights (%.0f MiB) in named data; prepare took %.1f ms (%s), "
         "size %zu -> %zu bytes\n",
         n, n, (double)size / (1 << 20), t_prep * 1e3, rep.rebuilt ? "rebuilt" : "patched", size, out_size);
  printf("load_method: %.2f ms before prepare (%d packs), %.3f ms after (%d packs): %.0fx faster; outputs %s\n",
         (double)best_before / 1e6, packs_before, (double)best_after / 1e6, packs_after,
         (double)best_before / (double)(best_after ? best_after : 1),
         memcmp(y0, y1, n * sizeof(float)) == 0 ? "bit-identical" : "DIFFER");
  char c[128];
  snprintf(c, sizeof c, "TestPacking model, 4 x %ux%u fp32", n, n);
  pte_bench_result("prepare", c, "load_method", "ms", (double)best_after / 1e6, "same model before prepare",
                   (double)best_before / 1e6, (double)best_before / (double)(best_after ? best_after : 1), NULL,
                   PTE_BENCH_NO_GOAL);
  free(temp_mem);
  free(out);
  free(in);
  free(x);
  free(y0);
  free(y1);
}

int main(int argc, char **argv) {
  uint64_t size_mib = argc > 1 ? strtoull(argv[1], NULL, 10) : 2048;
  if (size_mib < 64) size_mib = 64;
  char dir[PATH_MAX - 64], cli[PATH_MAX];
  exe_dir(dir, sizeof dir);
  snprintf(cli, sizeof cli, "%s/../pte", dir);
  const char *env_dir = getenv("DIR");
  char bdir[PATH_MAX];
  if (env_dir) snprintf(bdir, sizeof bdir, "%s", env_dir);
  else snprintf(bdir, sizeof bdir, "%s/../bench-tmp", dir);
  mkdir(bdir, 0755);
  const char *skip_big = getenv("PTE_BENCH_SKIP_BIG");
  if (skip_big && *skip_big) {
    printf("prepare throughput: skipped (%s)\n", skip_big);
    char c[64], why[192];
    snprintf(c, sizeof c, "%llu MiB file", (unsigned long long)size_mib);
    snprintf(why, sizeof why, "skipped: %s", skip_big);
    pte_bench_skipped("prepare", c, "throughput / peak RSS", why);
  } else if (access(cli, X_OK) != 0) {
    printf("pte CLI not found at %s: throughput part skipped\n", cli);
    pte_bench_skipped("prepare", "pte prepare", "throughput / peak RSS", "skipped: pte CLI not built");
  } else {
    const char *only = getenv("ONLY"); /* ONLY=xnn: part 4 alone */
    const bool xnn_only = only && strcmp(only, "xnn") == 0;
    if (!xnn_only) part_file(bdir, cli, size_mib);
    part_xnn(bdir, cli, size_mib);
    if (xnn_only) return 0;
  }
  part_load();
  return 0;
}
