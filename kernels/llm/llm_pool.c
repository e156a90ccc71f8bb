/* Worker threads of the LLM kernels (pte_llm_kernels_set_threads): a small pool of parked
 * threads, started on first use and kept. One job runs at a time; a call that finds the pool busy
 * (another thread's kernel) runs its job alone on the calling thread. Parts are disjoint, so the
 * result does not depend on how many threads ran. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "llm/llm_ops.h"

static pthread_mutex_t llm_pool_mu = PTHREAD_MUTEX_INITIALIZER;   /* the fields below */
static pthread_mutex_t llm_pool_busy = PTHREAD_MUTEX_INITIALIZER; /* held by the job's caller */
static pthread_cond_t llm_pool_work = PTHREAD_COND_INITIALIZER;
static pthread_cond_t llm_pool_done = PTHREAD_COND_INITIALIZER;
static size_t llm_pool_started;  /* workers running (indices 1..started) */
static uint64_t llm_pool_gen;    /* job generation */
static llm_task_fn llm_pool_fn;
static void *llm_pool_ctx;
static size_t llm_pool_nparts;
static size_t llm_pool_pending;  /* worker parts not finished */
static atomic_int llm_pool_want = 1;

static void *llm_pool_worker(void *arg) {
  const size_t idx = (size_t)(uintptr_t)arg;
  /* A worker is started by the job it first takes part in (its index is below that job's part
   * count), which may already be posted when it gets here: it starts as having seen no job. */
  uint64_t seen = 0;
  pthread_mutex_lock(&llm_pool_mu);
  for (;;) {
    while (llm_pool_gen == seen) pthread_cond_wait(&llm_pool_work, &llm_pool_mu);
    seen = llm_pool_gen;
    if (idx < llm_pool_nparts) {
      const llm_task_fn fn = llm_pool_fn;
      void *ctx = llm_pool_ctx;
      const size_t n = llm_pool_nparts;
      pthread_mutex_unlock(&llm_pool_mu);
      fn(ctx, idx, n);
      pthread_mutex_lock(&llm_pool_mu);
      if (--llm_pool_pending == 0) pthread_cond_signal(&llm_pool_done);
    }
  }
  return NULL;
}

pte_status pte_llm_kernels_set_threads(int n) {
  if (n < 1 || n > PTE_LLM_MAX_THREADS) return PTE_ERR_INVALID_ARGUMENT;
  atomic_store(&llm_pool_want, n);
  return PTE_OK;
}

int pte_llm_kernels_threads(void) { return atomic_load(&llm_pool_want); }

/* attention calls below this many multiply-adds stay on the calling thread */
static atomic_ullong llm_min_parallel = 1ull << 20;

void pte_llm_kernels_set_min_parallel_work(uint64_t macs) { atomic_store(&llm_min_parallel, (unsigned long long)macs); }

uint64_t pte_llm_kernels_min_parallel_work(void) { return (uint64_t)atomic_load(&llm_min_parallel); }

size_t pte_llm_parallel(llm_task_fn fn, void *ctx, size_t max_parts) {
  size_t n = (size_t)atomic_load(&llm_pool_want);
  if (max_parts < n) n = max_parts;
  if (n <= 1 || pthread_mutex_trylock(&llm_pool_busy) != 0) {
    fn(ctx, 0, 1);
    return 1;
  }
  pthread_mutex_lock(&llm_pool_mu);
  while (llm_pool_started + 1 < n) {
    pthread_t th;
    if (pthread_create(&th, NULL, llm_pool_worker, (void *)(uintptr_t)(llm_pool_started + 1)) != 0) break;
    pthread_detach(th);
    llm_pool_started++;
  }
  if (llm_pool_started + 1 < n) n = llm_pool_started + 1; /* fewer threads could be started */
  if (n > 1) {
    llm_pool_fn = fn;
    llm_pool_ctx = ctx;
    llm_pool_nparts = n;
    llm_pool_pending = n - 1;
    llm_pool_gen++;
    pthread_cond_broadcast(&llm_pool_work);
  }
  pthread_mutex_unlock(&llm_pool_mu);
  fn(ctx, 0, n);
  if (n > 1) {
    pthread_mutex_lock(&llm_pool_mu);
    while (llm_pool_pending > 0) pthread_cond_wait(&llm_pool_done, &llm_pool_mu);
    pthread_mutex_unlock(&llm_pool_mu);
  }
  pthread_mutex_unlock(&llm_pool_busy);
  return n;
}
