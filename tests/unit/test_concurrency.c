#define _POSIX_C_SOURCE 200809L
/* Concurrency: one loaded Program (and one .ptd map) shared by 8 threads, each loading its own
 * Method into its own memory and executing it many times with inputs that differ per thread and
 * per iteration. Every output of every run must be bit-identical to the same sequence run on one
 * thread beforehand. Also: concurrent program / .ptd / .bpte loads from one shared buffer and
 * concurrent read-only accessors. Run under ThreadSanitizer by `make test-tsan` (docs/robustness.md
 * lists which objects are thread-safe). PTE_CONCURRENCY_ITERS overrides the run count. */
#include <pthread.h>

#include "pte/backend_xnnpack.h"
#include "pte/bundled.h"
#include "pte/io.h"
#include "pte/method.h"
#include "pte/portable_kernels.h"
#include "pte/program.h"
#include "pte/ptd.h"
#include "test.h"

#define N_THREADS 8

typedef struct model {
  const char *file, *ptd_file, *method;
  uint8_t *bytes, *ptd_bytes;
  size_t n, ptd_n;
  pte_buffer_loader bl, pbl;
  pte_program prog;
  pte_ptd ptd;
  const pte_named_data_map *ext;
  int xnn_threads; /* > 0: XNNPACK delegates get a pool of this many threads (runtime spec) */
  bool loaded;
} model;

typedef struct job {
  model *m;
  int thread;
  int iters;
  uint64_t *digest; /* [iters]: hash of every output of run i */
  float first_out[4];
  pte_status st;
  char msg[PTE_ERROR_MSG_MAX + 64];
} job;

static int iters_default(void) {
  const char *e = getenv("PTE_CONCURRENCY_ITERS");
  int n = e ? atoi(e) : 0;
  return n > 0 ? n : 100;
}

static uint64_t fnv(uint64_t h, const void *p, size_t n) {
  const uint8_t *b = (const uint8_t *)p;
  for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 1099511628211ull;
  return h;
}

/* Input element k of input i for (thread, iteration): different for every thread and run. */
static float input_value(int thread, int it, size_t i, size_t k) {
  unsigned v = (unsigned)(thread * 7919 + it * 104729 + (int)i * 31 + (int)k * 17);
  return (float)(v % 2001) / 250.0f - 4.0f;
}

static void fill_input(void *dst, const pte_tensor_info *info, int thread, int it, size_t i) {
  size_t es = pte_dtype_size(info->dtype), n = es ? info->nbytes / es : 0;
  for (size_t k = 0; k < n; k++) {
    float f = input_value(thread, it, i, k);
    switch (info->dtype) {
      case PTE_DTYPE_FLOAT: ((float *)dst)[k] = f; break;
      case PTE_DTYPE_DOUBLE: ((double *)dst)[k] = f; break;
      case PTE_DTYPE_LONG: ((int64_t *)dst)[k] = (int64_t)(f * 10); break;
      case PTE_DTYPE_INT: ((int32_t *)dst)[k] = (int32_t)(f * 10); break;
      default: memset((uint8_t *)dst + k * es, (int)k & 1, es); break;
    }
  }
}

/* Loads m->method into private memory and runs it j->iters times. Used on the main thread for
 * the reference and on the workers. */
static void *run_job(void *arg) {
  job *j = (job *)arg;
  model *m = j->m;
  j->st = PTE_OK;
  pte_error_info err;
  memset(&err, 0, sizeof err);
  pte_method_meta meta;
  if ((j->st = pte_method_meta_get(&m->prog, m->method, &meta, &err)) != PTE_OK) goto fail;
  size_t np = pte_method_meta_num_planned_buffers(&meta);
  pte_planned_buffer pb[4];
  memset(pb, 0, sizeof pb);
  if (np > 4) {
    j->st = PTE_ERR_NOT_SUPPORTED;
    goto fail;
  }
  for (size_t i = 0; i < np; i++) {
    uint64_t sz = 0;
    pte_method_meta_planned_buffer_size(&meta, i, &sz);
    pb[i].size = (size_t)sz;
    pb[i].data = sz ? calloc(1, (size_t)sz) : NULL;
  }
  size_t pool_size = 1u << 20, temp_size = 1u << 20;
  uint8_t *pool = (uint8_t *)malloc(pool_size), *temp = (uint8_t *)malloc(temp_size);
  pte_allocator ma, ta;
  pte_allocator_init(&ma, pool, pool_size);
  pte_allocator_init(&ta, temp, temp_size);
  pte_memory_manager mm;
  pte_memory_manager_init(&mm, &ma, pb, np, &ta);
  pte_method *meth = NULL;
  pte_method_options mo;
  memset(&mo, 0, sizeof mo);
  mo.external_data = m->ext;
  pte_backend_option xo;
  pte_backend_load_options xlo;
  if (m->xnn_threads > 0) {
    memset(&xo, 0, sizeof xo);
    snprintf(xo.key, sizeof xo.key, "%s", PTE_XNNPACK_OPTION_NUM_THREADS);
    xo.type = PTE_BACKEND_OPTION_INT;
    xo.value.i = m->xnn_threads;
    xlo.backend_id = PTE_XNNPACK_BACKEND_ID;
    xlo.options = &xo;
    xlo.n_options = 1;
    mo.backend_options = &xlo;
    mo.n_backend_options = 1;
  }
  j->st = pte_method_load_ex(&m->prog, m->method, &mm, &mo, &meth, &err);
  if (j->st == PTE_OK) {
    size_t nin = pte_method_num_inputs(meth), nout = pte_method_num_outputs(meth);
    void *in[8] = {0};
    pte_tensor_info info[8];
    for (size_t i = 0; i < nin && i < 8; i++) {
      pte_method_meta_input_tensor_info(&meta, i, &info[i]);
      in[i] = malloc(info[i].nbytes ? info[i].nbytes : 1);
    }
    for (int it = 0; it < j->iters && j->st == PTE_OK; it++) {
      for (size_t i = 0; i < nin && i < 8 && j->st == PTE_OK; i++) {
        fill_input(in[i], &info[i], j->thread, it, i);
        j->st = pte_method_set_input_tensor(meth, i, (pte_dtype)info[i].dtype, info[i].sizes, info[i].dim, in[i],
                                            info[i].nbytes, &err);
      }
      if (j->st == PTE_OK) j->st = pte_method_execute(meth, &err);
      uint64_t h = 1469598103934665603ull;
      for (size_t o = 0; o < nout && j->st == PTE_OK; o++) {
        const pte_evalue *v = pte_method_get_output(meth, o);
        if (!v || v->tag != PTE_TAG_TENSOR) continue;
        h = fnv(h, v->u.tensor->data, pte_tensor_nbytes(v->u.tensor));
        if (o == 0 && it == 0 && v->u.tensor->dtype == PTE_DTYPE_FLOAT)
          memcpy(j->first_out, v->u.tensor->data, pte_tensor_nbytes(v->u.tensor) < 16 ? pte_tensor_nbytes(v->u.tensor) : 16);
      }
      j->digest[it] = h;
    }
    for (size_t i = 0; i < nin && i < 8; i++) free(in[i]);
    pte_method_destroy(meth);
  }
  for (size_t i = 0; i < np; i++) free(pb[i].data);
  free(pool);
  free(temp);
fail:
  if (j->st != PTE_OK) snprintf(j->msg, sizeof j->msg, "%s: %s", pte_status_name(j->st), err.msg);
  return NULL;
}

static model model_new(const char *file, const char *ptd_file, const char *method) {
  model m;
  memset(&m, 0, sizeof m);
  m.file = file;
  m.ptd_file = ptd_file;
  m.method = method;
  return m;
}

static bool model_open(model *m) {
  m->bytes = test_read_corpus(m->file, &m->n);
  if (!m->bytes) return false;
  pte_buffer_loader_init(&m->bl, m->bytes, m->n);
  if (pte_program_load(&m->bl.base, PTE_VERIFY_INTERNAL_CONSISTENCY, &m->prog, NULL) != PTE_OK) return false;
  m->ext = NULL;
  if (m->ptd_file) {
    m->ptd_bytes = test_read_corpus(m->ptd_file, &m->ptd_n);
    if (!m->ptd_bytes) return false;
    pte_buffer_loader_init(&m->pbl, m->ptd_bytes, m->ptd_n);
    if (pte_ptd_load(&m->pbl.base, &m->ptd, NULL) != PTE_OK) return false;
    m->ext = pte_ptd_map(&m->ptd);
  }
  m->loaded = true;
  return true;
}

static void model_close(model *m) {
  if (m->loaded) {
    if (m->ext) pte_ptd_destroy(&m->ptd);
    pte_program_destroy(&m->prog);
  }
  free(m->bytes);
  free(m->ptd_bytes);
  m->bytes = m->ptd_bytes = NULL;
  m->loaded = false;
}

/* Runs the 8-thread comparison on one model; returns the first worker's first outputs. */
static void shared_program_eight_threads(model *m, float first_out[4]) {
  int iters = iters_default();
  job ref[N_THREADS], par[N_THREADS];
  for (int t = 0; t < N_THREADS; t++) {
    ref[t].m = par[t].m = m;
    ref[t].thread = par[t].thread = t;
    ref[t].iters = par[t].iters = iters;
    ref[t].digest = (uint64_t *)calloc((size_t)iters, sizeof(uint64_t));
    par[t].digest = (uint64_t *)calloc((size_t)iters, sizeof(uint64_t));
    ref[t].msg[0] = par[t].msg[0] = '\0';
  }
  /* Reference: every thread's sequence, one after the other, on this thread. */
  for (int t = 0; t < N_THREADS; t++) run_job(&ref[t]);
  pthread_t th[N_THREADS];
  for (int t = 0; t < N_THREADS; t++) CHECK(pthread_create(&th[t], NULL, run_job, &par[t]) == 0);
  for (int t = 0; t < N_THREADS; t++) pthread_join(th[t], NULL);
  int bad = 0;
  for (int t = 0; t < N_THREADS; t++) {
    if (ref[t].st != PTE_OK || par[t].st != PTE_OK) {
      test_fail(__FILE__, __LINE__, "%s thread %d: reference %s / parallel %s", m->file, t, ref[t].msg, par[t].msg);
      bad++;
      continue;
    }
    for (int i = 0; i < iters; i++)
      if (ref[t].digest[i] != par[t].digest[i]) {
        test_fail(__FILE__, __LINE__, "%s thread %d run %d: outputs differ from the single-threaded run", m->file, t, i);
        bad++;
        break;
      }
  }
  /* Different threads saw different inputs: their outputs differ too (the test is not vacuous). */
  if (!bad && iters > 0) CHECK_MSG(ref[0].digest[0] != ref[1].digest[0], "%s: threads 0 and 1 produced the same output", m->file);
  memcpy(first_out, ref[0].first_out, sizeof ref[0].first_out);
  for (int t = 0; t < N_THREADS; t++) {
    free(ref[t].digest);
    free(par[t].digest);
  }
}

TEST(external_data_model_shared_by_8_threads) {
  /* x * a + b with a = 3, b = 2 from the shared .ptd. */
  model m = model_new("etrs_data_map_model.pte", "etrs_data_map__default_external_constant.ptd", "forward");
  CHECK(model_open(&m));
  float out[4];
  shared_program_eight_threads(&m, out);
  for (int k = 0; k < 4; k++) CHECK_NEAR(out[k], input_value(0, 0, 0, (size_t)k) * 3.0f + 2.0f, 1e-5);
  model_close(&m);
}

TEST(softmax_shared_by_8_threads) {
  model m = model_new("pr17248_softmax.pte", NULL, "forward");
  CHECK(model_open(&m));
  float out[4];
  shared_program_eight_threads(&m, out);
  for (int k = 0; k < 4; k++) CHECK(out[k] > 0.0f && out[k] < 1.0f);
  model_close(&m);
}

TEST(stateful_training_step_shared_by_8_threads) {
  /* 24 kernels; parameters start from mutable_data_segments in each thread's own planned memory. */
  model m = model_new("dnf_test_dnf_executorch1.pte", NULL, "forward");
  CHECK(model_open(&m));
  float out[4];
  shared_program_eight_threads(&m, out);
  model_close(&m);
}

TEST(xnnpack_delegated_model_shared_by_8_threads) {
  /* qint8 FullyConnected in an XNNPACK delegate; its weights are named data of the shared program,
   * so 8 delegates are initialised concurrently from one named-data map. */
  model m = model_new("numpyrt_quantized.pte", NULL, "forward");
  CHECK(model_open(&m));
  float out[4];
  shared_program_eight_threads(&m, out);
  /* Again with a 2-thread XNNPACK pool in every delegate (8 methods x 2 threads). */
  m.xnn_threads = 2;
  float out2[4];
  shared_program_eight_threads(&m, out2);
  for (int k = 0; k < 4; k++) CHECK(out[k] == out2[k]);
  model_close(&m);
}

/* ---- concurrent loads and read-only accessors -------------------------------------------- */

typedef struct load_job {
  const uint8_t *pte, *ptd, *bpte;
  size_t pte_n, ptd_n, bpte_n;
  int rounds;
  int failures;
  size_t methods, keys, cases;
} load_job;

static void *load_many(void *arg) {
  load_job *j = (load_job *)arg;
  for (int r = 0; r < j->rounds; r++) {
    pte_buffer_loader bl;
    pte_buffer_loader_init(&bl, j->pte, j->pte_n);
    pte_program p;
    if (pte_program_load(&bl.base, PTE_VERIFY_INTERNAL_CONSISTENCY, &p, NULL) != PTE_OK) {
      j->failures++;
      continue;
    }
    j->methods = pte_program_num_methods(&p);
    pte_method_meta meta;
    if (pte_method_meta_get(&p, "forward", &meta, NULL) != PTE_OK) j->failures++;
    pte_program_destroy(&p);

    pte_buffer_loader pl;
    pte_buffer_loader_init(&pl, j->ptd, j->ptd_n);
    pte_ptd d;
    if (pte_ptd_load(&pl.base, &d, NULL) != PTE_OK) {
      j->failures++;
      continue;
    }
    uint32_t nk = 0;
    pte_named_data_map_num_keys(pte_ptd_map(&d), &nk);
    j->keys = nk;
    pte_freeable_buffer b;
    if (pte_named_data_map_get_data(pte_ptd_map(&d), "b", &b) != PTE_OK || b.size != 16) j->failures++;
    pte_freeable_buffer_free(&b);
    pte_ptd_destroy(&d);

    pte_buffer_loader bbl;
    pte_buffer_loader_init(&bbl, j->bpte, j->bpte_n);
    pte_bundled_program bp;
    if (pte_bundled_program_load(&bbl.base, &bp, NULL) != PTE_OK) {
      j->failures++;
      continue;
    }
    pte_bundled_suite s;
    if (pte_bundled_find_suite(&bp, "forward", &s) == PTE_OK) j->cases = s.num_cases;
    pte_program ep;
    if (pte_program_load(pte_bundled_program_loader(&bp), PTE_VERIFY_INTERNAL_CONSISTENCY, &ep, NULL) == PTE_OK)
      pte_program_destroy(&ep);
    else
      j->failures++;
    pte_bundled_program_destroy(&bp);
  }
  return NULL;
}

TEST(concurrent_loads_from_one_buffer) {
  size_t n1, n2, n3;
  uint8_t *pte = test_read_corpus("upstream_android_xor.pte", &n1);
  uint8_t *ptd = test_read_corpus("etrs_data_map__default_external_constant.ptd", &n2);
  uint8_t *bpte = test_read_corpus("module_test_bundled_program.bpte", &n3);
  CHECK(pte && ptd && bpte);
  load_job jobs[N_THREADS];
  pthread_t th[N_THREADS];
  for (int t = 0; t < N_THREADS; t++) {
    jobs[t] = (load_job){pte, ptd, bpte, n1, n2, n3, iters_default() / 4 + 1, 0, 0, 0, 0};
    CHECK(pthread_create(&th[t], NULL, load_many, &jobs[t]) == 0);
  }
  for (int t = 0; t < N_THREADS; t++) pthread_join(th[t], NULL);
  for (int t = 0; t < N_THREADS; t++) {
    CHECK_EQ_INT(jobs[t].failures, 0);
    CHECK_EQ_INT(jobs[t].methods, 4); /* forward + 3 training metadata methods */
    CHECK_EQ_INT(jobs[t].keys, 2);
    CHECK_EQ_INT(jobs[t].cases, 10);
  }
  free(pte);
  free(ptd);
  free(bpte);
}

int main(void) {
  /* Registries are filled before any thread starts (documented: registration is not thread-safe). */
  if (pte_register_portable_kernels() != PTE_OK || pte_register_xnnpack_backend() != PTE_OK) {
    fprintf(stderr, "cannot register the portable kernels / the XNNPACK backend\n");
    return 1;
  }
  RUN(external_data_model_shared_by_8_threads);
  RUN(softmax_shared_by_8_threads);
  RUN(stateful_training_step_shared_by_8_threads);
  RUN(xnnpack_delegated_model_shared_by_8_threads);
  RUN(concurrent_loads_from_one_buffer);
  return test_summary();
}
