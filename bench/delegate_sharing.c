/* bench/delegate_sharing — one lowered module called 10 times by a method: one shared
 * BackendDelegate (share_handle set by the backend) against ten delegates referencing the one
 * stored blob, both written by the pte writer (pte_writer_add_lowered_module + call_module). The backend ("TestCounting", tests/support/test_backends.c) packs its whole 16 MiB
 * blob at init (a copy + checksum into memory from the method allocator), so method load time
 * and delegate memory grow with the number of inits.
 *
 * Prints one line per variant:
 *   shared: init=1 load_ms=... delegate_kib=... rss_kib=...
 *   unshared: init=10 load_ms=... delegate_kib=... rss_kib=...
 * load_ms: fastest of REPS method loads (pte_method_load_ex only: the program is loaded before);
 * delegate_kib: bytes the backend allocated for its handles (peak, counted by the backend);
 * rss_kib: growth of the process resident set across the load (/proc/self/statm), largest of
 * the repetitions. Then a verdict line; exit status 1 if shared is not init=1 with load time and
 * delegate memory at most 1/5 of unshared, or if the two variants' outputs differ.
 *
 * Also prints RESULT lines (bench/bench_result.h), baseline = the unshared variant.
 *
 * Usage: bench_delegate_sharing [blob_mib (16)] [calls (10)]
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The shared test backends and program builder (the bench links only the pte libraries). */
#include "../tests/support/test_backends.c"
#include "bench_result.h"
#include "bench_time.h"

#define REPS 3

static long rss_kib(void) {
  FILE *f = fopen("/proc/self/statm", "r");
  if (!f) return -1;
  long size = 0, resident = -1;
  if (fscanf(f, "%ld %ld", &size, &resident) != 2) resident = -1;
  fclose(f);
  return resident < 0 ? -1 : resident * (sysconf(_SC_PAGESIZE) / 1024);
}

typedef struct result {
  int inits;
  double load_ms;
  uint64_t delegate_bytes;
  long rss_kib;
  float out[4];
} result;

static int run_variant(bool shared, size_t calls, const uint8_t *blob, size_t blob_size, result *r) {
  /* The method as the pte writer emits it for `calls` calls of one lowered module: with the
   * backend's share_handle set, one BackendDelegate; without, one per call, all referencing the
   * one stored blob (a segment). */
  uint32_t call_module[64];
  for (size_t k = 0; k < calls; k++) call_module[k] = 0;
  test_wmodule mod;
  memset(&mod, 0, sizeof mod);
  mod.id = TEST_BACKEND_COUNTING;
  mod.share_handle = shared;
  const void *blobs[1] = {blob};
  size_t sizes[1] = {blob_size};
  test_wprog p;
  memset(&p, 0, sizeof p);
  p.numel = 4;
  p.n_calls = calls;
  p.call_module = call_module;
  p.modules = &mod;
  p.n_modules = 1;
  p.blobs = blobs;
  p.blob_sizes = sizes;
  p.n_blobs = 1;
  test_dprog geom;
  memset(&geom, 0, sizeof geom);
  geom.numel = p.numel;
  geom.n_calls = calls;
  size_t size;
  pte_error_info werr;
  uint8_t *bytes = test_wprog_build(&p, &size, &werr);
  if (!bytes) {
    fprintf(stderr, "cannot write the program: %s\n", werr.msg);
    return 1;
  }
  pte_buffer_loader bl;
  pte_buffer_loader_init(&bl, bytes, size);
  pte_program prog;
  pte_error_info err;
  if (pte_program_load(&bl.base, PTE_VERIFY_INTERNAL_CONSISTENCY, &prog, &err) != PTE_OK) {
    fprintf(stderr, "program load: %s\n", err.msg);
    free(bytes);
    return 1;
  }
  memset(r, 0, sizeof *r);
  r->load_ms = 1e30;
  size_t pool_size = calls * (blob_size + 4096) + (1u << 20);
  for (int rep = 0; rep < REPS; rep++) {
    uint8_t *planned = calloc(1, (size_t)test_dprog_tensor_bytes(&geom) + 64);
    uint8_t *pool = calloc(1, pool_size); /* untouched pages are not resident */
    uint8_t temp_mem[4096];
    if (!planned || !pool) {
      fprintf(stderr, "out of memory\n");
      return 1;
    }
    pte_allocator ma, temp;
    pte_allocator_init(&ma, pool, pool_size);
    pte_allocator_init(&temp, temp_mem, sizeof temp_mem);
    pte_planned_buffer pb = {planned, (size_t)test_dprog_tensor_bytes(&geom)};
    pte_memory_manager mm;
    pte_memory_manager_init(&mm, &ma, &pb, 1, &temp);
    test_backends_reset_stats();
    pte_method *m = NULL;
    long rss0 = rss_kib();
    double t0 = pte_bench_now_ms();
    pte_status s = pte_method_load_ex(&prog, "forward", &mm, NULL, &m, &err);
    double t1 = pte_bench_now_ms();
    long rss1 = rss_kib();
    if (s != PTE_OK) {
      fprintf(stderr, "method load: %s: %s\n", pte_status_name(s), err.msg);
      return 1;
    }
    if (t1 - t0 < r->load_ms) r->load_ms = t1 - t0;
    if (rss1 - rss0 > r->rss_kib) r->rss_kib = rss1 - rss0;
    r->inits = test_counting_stats.inits;
    if (test_counting_stats.handle_bytes_peak > r->delegate_bytes) r->delegate_bytes = test_counting_stats.handle_bytes_peak;
    float x[4] = {1.0f, -1.0f, 0.5f, 3.0f};
    int32_t dims[1] = {4};
    if (pte_method_set_input_tensor(m, 0, PTE_DTYPE_FLOAT, dims, 1, x, sizeof x, &err) != PTE_OK ||
        pte_method_execute(m, &err) != PTE_OK) {
      fprintf(stderr, "execute: %s\n", err.msg);
      return 1;
    }
    memcpy(r->out, pte_method_get_output(m, 0)->u.tensor->data, sizeof r->out);
    if (test_counting_stats.executes != (int)calls) {
      fprintf(stderr, "expected %zu executes, got %d\n", calls, test_counting_stats.executes);
      return 1;
    }
    pte_method_destroy(m);
    if (test_counting_stats.destroys != test_counting_stats.inits) {
      fprintf(stderr, "destroys %d != inits %d\n", test_counting_stats.destroys, test_counting_stats.inits);
      return 1;
    }
    free(pool);
    free(planned);
  }
  pte_program_destroy(&prog);
  free(bytes);
  return 0;
}

int main(int argc, char **argv) {
  size_t mib = argc > 1 ? (size_t)strtoul(argv[1], NULL, 10) : 16;
  size_t calls = argc > 2 ? (size_t)strtoul(argv[2], NULL, 10) : 10;
  if (mib < 1 || calls < 2 || calls > 64) {
    fprintf(stderr, "usage: %s [blob_mib >= 1] [calls 2..64]\n", argv[0]);
    return 2;
  }
  if (test_backends_register() != PTE_OK) {
    fprintf(stderr, "cannot register the test backends\n");
    return 1;
  }
  size_t blob_size;
  uint8_t *blob = test_blob_new(1.0f, 0.5f, mib * 1024 * 1024 - 16, &blob_size);
  if (!blob) return 1;
  result sh, un;
  /* Unshared first: any warm-up favours the variant measured second, i.e. not the one that must
   * win by 5x. */
  if (run_variant(false, calls, blob, blob_size, &un) || run_variant(true, calls, blob, blob_size, &sh)) return 1;
  free(blob);
  printf("shared: init=%d load_ms=%.3f delegate_kib=%llu rss_kib=%ld\n", sh.inits, sh.load_ms,
         (unsigned long long)(sh.delegate_bytes / 1024), sh.rss_kib);
  printf("unshared: init=%d load_ms=%.3f delegate_kib=%llu rss_kib=%ld\n", un.inits, un.load_ms,
         (unsigned long long)(un.delegate_bytes / 1024), un.rss_kib);
  bool same = memcmp(sh.out, un.out, sizeof sh.out) == 0;
  double tr = sh.load_ms / un.load_ms, mr = (double)sh.delegate_bytes / (double)un.delegate_bytes;
  double rr = un.rss_kib > 0 ? (double)sh.rss_kib / (double)un.rss_kib : 0.0;
  bool ok = sh.inits == 1 && un.inits == (int)calls && tr <= 0.2 && mr <= 0.2 && same;
  printf("ratio shared/unshared: load=%.3f delegate_mem=%.3f rss=%.3f outputs=%s -> %s\n", tr, mr, rr,
         same ? "identical" : "DIFFERENT", ok ? "PASS" : "FAIL");
  char c[128], g[128];
  const char *bn = "unshared: one delegate per call";
  snprintf(c, sizeof c, "%zu calls of one %zu MiB lowered module", calls, mib);
  snprintf(g, sizeof g, "shared 1, unshared %zu, same outputs", calls);
  pte_bench_result("delegate_sharing", c, "backend inits", NULL, sh.inits, bn, un.inits,
                   sh.inits > 0 ? (double)un.inits / sh.inits : 0.0, g,
                   pte_bench_check(sh.inits == 1 && un.inits == (int)calls && same));
  pte_bench_result("delegate_sharing", c, "method load", "ms", sh.load_ms, bn, un.load_ms, un.load_ms / sh.load_ms,
                   ">= 5", pte_bench_check(tr <= 0.2));
  pte_bench_result("delegate_sharing", c, "delegate memory", "MiB", (double)sh.delegate_bytes / (1 << 20), bn,
                   (double)un.delegate_bytes / (1 << 20),
                   sh.delegate_bytes ? (double)un.delegate_bytes / (double)sh.delegate_bytes : 0.0, ">= 5",
                   pte_bench_check(mr <= 0.2));
  pte_bench_result("delegate_sharing", c, "RSS growth at load", "MiB", sh.rss_kib / 1024.0, bn, un.rss_kib / 1024.0,
                   sh.rss_kib > 0 ? (double)un.rss_kib / (double)sh.rss_kib : 0.0, NULL, PTE_BENCH_NO_GOAL);
  return ok ? 0 : 1;
}
