#define _POSIX_C_SOURCE 200809L
/* bench/xnnpack_fc — fully-connected fp32 through the XnnpackBackend vs OpenBLAS and XNNPACK.
 *
 * Cases: K = N = 1024 and 4096, batch M = 1 and 64, one thread. Our side runs a real delegate
 * blob (pte_xnn_blob_build_linear, the exporter's layout) through pte_xnn_delegate_execute.
 * Peers are loaded at run time with dlopen when present (Debian: libopenblas-dev,
 * libxnnpack-dev; bench/xnnpack_fc.sh installs them): OpenBLAS cblas_sgemv for M = 1 and
 * cblas_sgemm for M = 64 (weights [N, K] used transposed, bias not applied), XNNPACK's
 * fully_connected_nc_f32 operator (set up once, then run). Every variant is checked against
 * the others before timing. Output: one line per case with times, GFLOP/s and
 * ratio = best peer time / our time (>= 0.9 is the goal).
 *
 * Also prints RESULT lines (bench/bench_result.h): per case and peer, the time per call and
 * ratio = peer time / our time, goal >= 0.9.
 *
 * Peers name their version and the kernels they ran: OpenBLAS's openblas_get_corename() (the
 * process clears OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE, which this machine's environment sets to
 * pin AVX2, unless --blas-coretype sets one), XNNPACK's Debian version and the ISA it picks.
 * bench/xnnpack_fc.sh runs it twice: best vs best, then matched AVX2 rows (--isa avx2
 * --blas-coretype Haswell --no-xnnpack: XNNPACK's kernel choice cannot be limited).
 *
 * Usage: bench_xnnpack_fc [--quick] [--isa scalar|avx2|avx512] [--threads N] [--m M --kn K]
 *                         [--blas-coretype NAME] [--no-xnnpack]
 */
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_result.h"
#include "pte/backend_xnnpack.h"
#include "pte/evalue.h"
#include "pte/tensor.h"

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

typedef void (*bench_fn)(void *ctx);

/* Calls per timed batch so that one batch takes about `secs`. */
static int calibrate(bench_fn fn, void *ctx, double secs) {
  fn(ctx); /* warm up */
  double t0 = now_s();
  int n = 0;
  do {
    fn(ctx);
    n++;
  } while (now_s() - t0 < secs);
  return n;
}

static double batch_avg(bench_fn fn, void *ctx, int reps) {
  double s = now_s();
  for (int i = 0; i < reps; i++) fn(ctx);
  return (now_s() - s) / reps;
}

/* Interleaved rounds: every contender runs one batch per round (rotating order), and each keeps
 * its best batch. On a shared machine this compares the contenders under the same conditions. */
static void time_all(bench_fn *fns, void **ctxs, int n, int rounds, double batch_secs, double *best) {
  int reps[4];
  for (int i = 0; i < n; i++) {
    best[i] = 1e30;
    reps[i] = fns[i] ? calibrate(fns[i], ctxs[i], batch_secs) : 0;
  }
  for (int r = 0; r < rounds; r++)
    for (int j = 0; j < n; j++) {
      int i = (j + r) % n;
      if (!fns[i]) continue;
      double t = batch_avg(fns[i], ctxs[i], reps[i]);
      if (t < best[i]) best[i] = t;
    }
  for (int i = 0; i < n; i++)
    if (!fns[i]) best[i] = 0;
}

/* ---- peers (dlopen) ----------------------------------------------------------------------- */
enum { CblasRowMajor = 101, CblasNoTrans = 111, CblasTrans = 112 };
typedef void (*sgemm_t)(int, int, int, int, int, int, float, const float *, int, const float *, int, float, float *,
                        int);
typedef void (*sgemv_t)(int, int, int, int, float, const float *, int, const float *, int, float, float *, int);
typedef void (*set_threads_t)(int);

typedef int (*xnn_init_t)(const void *);
typedef int (*xnn_create_fc_t)(size_t, size_t, size_t, size_t, const float *, const float *, float, float, uint32_t,
                               void **);
typedef int (*xnn_setup_fc_t)(void *, size_t, const float *, float *, void *);
typedef int (*xnn_run_t)(void *, void *);
typedef int (*xnn_delete_t)(void *);

static sgemm_t p_sgemm;
static sgemv_t p_sgemv;
static xnn_create_fc_t p_xcreate;
static xnn_setup_fc_t p_xsetup;
static xnn_run_t p_xrun;
static xnn_delete_t p_xdelete;

/* The peers as they really ran: library version and the kernels (ISA) they chose. */
static char g_blas_name[160] = "OpenBLAS", g_xnn_name[160] = "XNNPACK";

/* Debian package version of `pkg` ("" when unknown). */
static void deb_version(const char *pkg, char *buf, size_t cap) {
  char cmd[160];
  buf[0] = 0;
  snprintf(cmd, sizeof cmd, "dpkg-query -W -f='${Version}' %s 2>/dev/null", pkg);
  FILE *f = popen(cmd, "r");
  if (!f) return;
  if (!fgets(buf, (int)cap, f)) buf[0] = 0;
  pclose(f);
  buf[strcspn(buf, "\n")] = 0;
}

static void load_peers(const char *blas_coretype) {
  /* OpenBLAS reads OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE when it is loaded: this machine's
   * environment pins its AVX2 ("Haswell") kernels. Best vs best clears both for this process only;
   * --blas-coretype sets the core for matched-ISA rows. */
  if (blas_coretype) {
    setenv("OPENBLAS_CORETYPE", blas_coretype, 1);
  } else {
    unsetenv("OPENBLAS_CORETYPE");
    unsetenv("OPENBLAS_L2_SIZE");
  }
  const char *blas[] = {"libopenblas.so.0", "libopenblas.so", "/usr/lib/x86_64-linux-gnu/openblas-pthread/libopenblas.so.0"};
  for (size_t i = 0; i < sizeof blas / sizeof blas[0] && !p_sgemm; i++) {
    void *h = dlopen(blas[i], RTLD_NOW | RTLD_LOCAL);
    if (!h) continue;
    p_sgemm = (sgemm_t)dlsym(h, "cblas_sgemm");
    p_sgemv = (sgemv_t)dlsym(h, "cblas_sgemv");
    set_threads_t st = (set_threads_t)dlsym(h, "openblas_set_num_threads");
    if (st) st(1);
    typedef char *(*str_fn)(void);
    str_fn core = (str_fn)dlsym(h, "openblas_get_corename"), cfg = (str_fn)dlsym(h, "openblas_get_config");
    char ver[64];
    deb_version("libopenblas0-pthread", ver, sizeof ver);
    if (!ver[0]) deb_version("libopenblas0", ver, sizeof ver);
    snprintf(g_blas_name, sizeof g_blas_name, "OpenBLAS %s (%s kernels)", ver[0] ? ver : (cfg ? cfg() : "?"),
             core ? core() : "unknown");
  }
  const char *xl[] = {"libXNNPACK.so.0", "libXNNPACK.so"};
  for (size_t i = 0; i < sizeof xl / sizeof xl[0] && !p_xcreate; i++) {
    void *h = dlopen(xl[i], RTLD_NOW | RTLD_LOCAL);
    if (!h) continue;
    xnn_init_t init = (xnn_init_t)dlsym(h, "xnn_initialize");
    p_xcreate = (xnn_create_fc_t)dlsym(h, "xnn_create_fully_connected_nc_f32");
    p_xsetup = (xnn_setup_fc_t)dlsym(h, "xnn_setup_fully_connected_nc_f32");
    p_xrun = (xnn_run_t)dlsym(h, "xnn_run_operator");
    p_xdelete = (xnn_delete_t)dlsym(h, "xnn_delete_operator");
    if (!init || init(NULL) != 0 || !p_xcreate || !p_xsetup || !p_xrun) p_xcreate = NULL;
    char ver[64];
    deb_version("libxnnpack0", ver, sizeof ver);
    /* XNNPACK picks its microkernels at init from the CPU (cpuinfo); it cannot be limited */
    const char *isa = __builtin_cpu_supports("avx512f") ? "avx512f" : __builtin_cpu_supports("avx2") ? "avx2" : "sse/scalar";
    snprintf(g_xnn_name, sizeof g_xnn_name, "XNNPACK %s (%s kernels, its choice on this CPU)", ver[0] ? ver : "?", isa);
  }
}

/* ---- one case ----------------------------------------------------------------------------- */
typedef struct fc_case {
  size_t m, k, n;
  float *x, *w, *b, *y;
  /* ours */
  pte_xnn_delegate *d;
  pte_tensor tin, tout;
  int32_t sin[2], sout[2], stin[2], stout[2];
  uint8_t order[2];
  pte_evalue ein, eout;
  pte_evalue *args[2];
  /* xnnpack */
  void *xop;
} fc_case;

static void run_ours(void *c_) {
  fc_case *c = (fc_case *)c_;
  if (pte_xnn_delegate_execute(c->d, c->args, 2, NULL) != PTE_OK) abort();
}
static void run_sgemm(void *c_) {
  fc_case *c = (fc_case *)c_;
  p_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)c->m, (int)c->n, (int)c->k, 1.0f, c->x, (int)c->k, c->w,
          (int)c->k, 0.0f, c->y, (int)c->n);
}
static void run_sgemv(void *c_) {
  fc_case *c = (fc_case *)c_;
  p_sgemv(CblasRowMajor, CblasNoTrans, (int)c->n, (int)c->k, 1.0f, c->w, (int)c->k, c->x, 1, 0.0f, c->y, 1);
}
static void run_xnn(void *c_) {
  fc_case *c = (fc_case *)c_;
  if (p_xrun(c->xop, NULL) != 0) abort();
}

static void tensor2(pte_tensor *t, int32_t *sizes, int32_t *strides, uint8_t *order, size_t a, size_t b, float *data) {
  memset(t, 0, sizeof *t);
  sizes[0] = (int32_t)a;
  sizes[1] = (int32_t)b;
  strides[0] = (int32_t)b;
  strides[1] = 1;
  order[0] = 0;
  order[1] = 1;
  t->data = data;
  t->sizes = sizes;
  t->strides = strides;
  t->dim_order = order;
  t->numel = a * b;
  t->capacity_bytes = a * b * sizeof(float);
  t->dim = 2;
  t->dtype = PTE_DTYPE_FLOAT;
}

static double max_rel_diff(const float *a, const float *b, const float *bias, size_t m, size_t n) {
  double w = 0, norm = 0;
  for (size_t i = 0; i < m * n; i++) norm += (double)a[i] * a[i];
  norm = sqrt(norm / (double)(m * n)) + 1e-30;
  for (size_t i = 0; i < m; i++)
    for (size_t j = 0; j < n; j++) {
      double d = fabs((double)a[i * n + j] - ((double)b[i * n + j] + (bias ? bias[j] : 0.0))) / norm;
      if (d > w) w = d;
    }
  return w;
}

static const char *blas_label(size_t m) {
  static char buf[200];
  snprintf(buf, sizeof buf, "%s %s", g_blas_name, m == 1 ? "sgemv" : "sgemm");
  return buf;
}

int main(int argc, char **argv) {
  bool quick = false;
  size_t only_m = 0, only_k = 0;
  pte_xnnpack_options o = {1, PTE_XNN_ISA_AUTO};
  const char *blas_core = NULL;
  bool no_xnn = false;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--quick") == 0) quick = true;
    else if (strcmp(argv[i], "--blas-coretype") == 0 && i + 1 < argc) blas_core = argv[++i];
    else if (strcmp(argv[i], "--no-xnnpack") == 0) no_xnn = true;
    else if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc) o.num_threads = atoi(argv[++i]);
    else if (strcmp(argv[i], "--m") == 0 && i + 1 < argc) only_m = (size_t)atol(argv[++i]);
    else if (strcmp(argv[i], "--kn") == 0 && i + 1 < argc) only_k = (size_t)atol(argv[++i]);
    else if (strcmp(argv[i], "--isa") == 0 && i + 1 < argc) {
      const char *s = argv[++i];
      o.isa = strcmp(s, "scalar") == 0 ? PTE_XNN_ISA_SCALAR
              : strcmp(s, "avx2") == 0 ? PTE_XNN_ISA_AVX2
              : strcmp(s, "avx512") == 0 ? PTE_XNN_ISA_AVX512
                                         : PTE_XNN_ISA_AUTO;
    }
  }
  load_peers(blas_core);
  if (no_xnn) p_xcreate = NULL;
  const int rounds = quick ? 6 : 20;
  const double batch = quick ? 0.02 : 0.05;
  printf("# fully-connected fp32, %d thread(s), XnnpackBackend ISA %s; peers: %s, %s\n",
         o.num_threads ? o.num_threads : 1,
         pte_xnnpack_isa_name(o.isa == PTE_XNN_ISA_AUTO ? pte_xnnpack_detect_isa() : o.isa),
         p_sgemm ? g_blas_name : "OpenBLAS not found", p_xcreate ? g_xnn_name : "XNNPACK not used");
  printf("%-22s %12s %12s %12s %9s %9s %9s %8s\n", "case", "ours_us", "openblas_us", "xnnpack_us", "ours_GF",
         "blas_GF", "xnn_GF", "ratio");
  size_t sizes[2] = {1024, 4096}, batches[2] = {1, 64};
  size_t n_sizes = 2, n_batches = 2;
  if (only_k) sizes[0] = only_k, n_sizes = 1;
  if (only_m) batches[0] = only_m, n_batches = 1;
  double worst_ratio = 1e30;
  for (size_t si = 0; si < n_sizes; si++)
    for (size_t bi = 0; bi < n_batches; bi++) {
      fc_case c;
      memset(&c, 0, sizeof c);
      c.m = batches[bi];
      c.k = c.n = sizes[si];
      c.x = (float *)malloc(c.m * c.k * sizeof(float));
      c.w = (float *)malloc(c.n * c.k * sizeof(float));
      c.b = (float *)malloc(c.n * sizeof(float));
      c.y = (float *)malloc(c.m * c.n * sizeof(float));
      float *ref = (float *)malloc(c.m * c.n * sizeof(float));
      uint32_t r = 1;
      for (size_t i = 0; i < c.m * c.k; i++) c.x[i] = (float)((r = r * 1664525u + 1013904223u) >> 9) / 8388608.0f - 1.0f;
      for (size_t i = 0; i < c.n * c.k; i++) c.w[i] = (float)((r = r * 1664525u + 1013904223u) >> 9) / 8388608.0f - 1.0f;
      for (size_t i = 0; i < c.n; i++) c.b[i] = (float)((r = r * 1664525u + 1013904223u) >> 9) / 8388608.0f - 1.0f;
      pte_xnn_blob blob;
      pte_error_info err;
      if (pte_xnn_blob_build_linear(c.m, c.k, c.n, c.w, c.b, PTE_XNN_CONSTANTS_NAMED, &blob, &err) != PTE_OK) {
        fprintf(stderr, "blob: %s\n", err.msg);
        return 1;
      }
      pte_xnn_blob_data_map map;
      pte_xnn_blob_data_map_init(&map, &blob);
      if (pte_xnn_delegate_init(blob.data, blob.size, &map.base, &o, &c.d, &err) != PTE_OK) {
        fprintf(stderr, "init: %s\n", err.msg);
        return 1;
      }
      tensor2(&c.tin, c.sin, c.stin, c.order, c.m, c.k, c.x);
      tensor2(&c.tout, c.sout, c.stout, c.order, c.m, c.n, c.y);
      c.ein.tag = PTE_TAG_TENSOR;
      c.ein.u.tensor = &c.tin;
      c.eout.tag = PTE_TAG_TENSOR;
      c.eout.u.tensor = &c.tout;
      c.args[0] = &c.ein;
      c.args[1] = &c.eout;
      run_ours(&c);
      memcpy(ref, c.y, c.m * c.n * sizeof(float));
      bench_fn fns[3] = {run_ours, NULL, NULL};
      void *ctxs[3] = {&c, &c, &c};
      if (p_sgemm && p_sgemv) {
        fns[1] = c.m == 1 ? run_sgemv : run_sgemm;
        fns[1](&c);
        double dd = max_rel_diff(ref, c.y, c.b, c.m, c.n);
        if (dd > 1e-4) fprintf(stderr, "warning: OpenBLAS differs from ours by %.3g (relative to rms)\n", dd);
      }
      if (p_xcreate && p_xcreate(c.k, c.n, c.k, c.n, c.w, c.b, -INFINITY, INFINITY, 0, &c.xop) == 0 &&
          p_xsetup(c.xop, c.m, c.x, c.y, NULL) == 0) {
        run_xnn(&c);
        double dd = max_rel_diff(ref, c.y, NULL, c.m, c.n);
        if (dd > 1e-4) fprintf(stderr, "warning: XNNPACK differs from ours by %.3g (relative to rms)\n", dd);
        fns[2] = run_xnn;
      }
      double best[3];
      time_all(fns, ctxs, 3, rounds, batch, best);
      if (c.xop) p_xdelete(c.xop);
      const double t_ours = best[0], t_blas = best[1], t_xnn = best[2];
      const double flops = 2.0 * (double)c.m * (double)c.k * (double)c.n;
      double best_peer = 0;
      if (t_blas > 0) best_peer = t_blas;
      if (t_xnn > 0 && (best_peer == 0 || t_xnn < best_peer)) best_peer = t_xnn;
      double ratio = best_peer > 0 ? best_peer / t_ours : 0;
      if (best_peer > 0 && ratio < worst_ratio) worst_ratio = ratio;
      char name[64];
      snprintf(name, sizeof name, "M=%zu K=N=%zu", c.m, c.k);
      printf("%-22s %12.1f %12.1f %12.1f %9.1f %9.1f %9.1f %8.2f\n", name, t_ours * 1e6, t_blas * 1e6, t_xnn * 1e6,
             flops / t_ours * 1e-9, t_blas > 0 ? flops / t_blas * 1e-9 : 0.0, t_xnn > 0 ? flops / t_xnn * 1e-9 : 0.0,
             ratio);
      fflush(stdout);
      char rc[96];
      snprintf(rc, sizeof rc, "M=%zu K=N=%zu, %d thread(s), %s", c.m, c.k, o.num_threads ? o.num_threads : 1,
               pte_xnnpack_isa_name(o.isa == PTE_XNN_ISA_AUTO ? pte_xnnpack_detect_isa() : o.isa));
      if (t_blas > 0)
        pte_bench_result("xnnpack_fc", rc, "fully-connected fp32, time per call", "µs", t_ours * 1e6,
                         blas_label(c.m), t_blas * 1e6, t_blas / t_ours,
                         ">= 0.9", pte_bench_check(t_blas / t_ours >= 0.9));
      else
        pte_bench_skipped("xnnpack_fc", rc, "fully-connected fp32 vs OpenBLAS", "skipped: libopenblas not found");
      if (t_xnn > 0)
        pte_bench_result("xnnpack_fc", rc, "fully-connected fp32, time per call", "µs", t_ours * 1e6,
                         g_xnn_name, t_xnn * 1e6, t_xnn / t_ours, ">= 0.9",
                         pte_bench_check(t_xnn / t_ours >= 0.9));
      else
        pte_bench_skipped("xnnpack_fc", rc, "fully-connected fp32 vs XNNPACK", "skipped: libXNNPACK not found");
      pte_xnn_delegate_destroy(c.d);
      pte_xnn_blob_free(&blob);
      free(c.x);
      free(c.w);
      free(c.b);
      free(c.y);
      free(ref);
    }
  if (worst_ratio < 1e29) printf("# worst ratio (best peer time / ours): %.2f (goal >= 0.90)\n", worst_ratio);
  return 0;
}
