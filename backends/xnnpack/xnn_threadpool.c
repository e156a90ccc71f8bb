#define _POSIX_C_SOURCE 200809L
/* A small fork-join pool: the caller and threads-1 workers pull item indices from a shared
 * counter until the range is exhausted. One job at a time (a delegate runs on one thread). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "xnn_internal.h"

struct pte_xnn_pool {
  int threads; /* including the caller */
  pthread_t *workers;
  pthread_mutex_t mu;
  pthread_cond_t cv_start, cv_done;
  uint64_t generation;
  int running; /* workers still inside the current job */
  bool stop;
  /* current job */
  pte_xnn_task_fn fn;
  void *ctx;
  size_t n;
  atomic_size_t next;
};

typedef struct worker_arg {
  pte_xnn_pool *p;
  int tid;
} worker_arg;

static void drain(pte_xnn_pool *p, int tid) {
  for (;;) {
    size_t i = atomic_fetch_add_explicit(&p->next, 1, memory_order_relaxed);
    if (i >= p->n) break;
    p->fn(p->ctx, i, tid);
  }
}

static void *worker_main(void *arg) {
  worker_arg *wa = (worker_arg *)arg;
  pte_xnn_pool *p = wa->p;
  int tid = wa->tid;
  free(wa);
  uint64_t seen = 0;
  pthread_mutex_lock(&p->mu);
  for (;;) {
    while (!p->stop && p->generation == seen) pthread_cond_wait(&p->cv_start, &p->mu);
    if (p->stop) break;
    seen = p->generation;
    pthread_mutex_unlock(&p->mu);
    drain(p, tid);
    pthread_mutex_lock(&p->mu);
    if (--p->running == 0) pthread_cond_signal(&p->cv_done);
  }
  pthread_mutex_unlock(&p->mu);
  return NULL;
}

pte_xnn_pool *pte_xnn_pool_create(int threads) {
  if (threads <= 1) return NULL;
  if (threads > PTE_XNN_MAX_THREADS) threads = PTE_XNN_MAX_THREADS;
  pte_xnn_pool *p = (pte_xnn_pool *)calloc(1, sizeof *p);
  if (!p) return NULL;
  p->workers = (pthread_t *)calloc((size_t)threads, sizeof(pthread_t));
  if (!p->workers) {
    free(p);
    return NULL;
  }
  pthread_mutex_init(&p->mu, NULL);
  pthread_cond_init(&p->cv_start, NULL);
  pthread_cond_init(&p->cv_done, NULL);
  atomic_init(&p->next, 0);
  p->threads = 1;
  for (int t = 1; t < threads; t++) {
    worker_arg *wa = (worker_arg *)malloc(sizeof *wa);
    if (!wa) break;
    wa->p = p;
    wa->tid = t;
    if (pthread_create(&p->workers[t], NULL, worker_main, wa) != 0) {
      free(wa);
      break;
    }
    p->threads++;
  }
  if (p->threads == 1) {
    pte_xnn_pool_destroy(p);
    return NULL;
  }
  return p;
}

void pte_xnn_pool_destroy(pte_xnn_pool *p) {
  if (!p) return;
  pthread_mutex_lock(&p->mu);
  p->stop = true;
  pthread_cond_broadcast(&p->cv_start);
  pthread_mutex_unlock(&p->mu);
  for (int t = 1; t < p->threads; t++) pthread_join(p->workers[t], NULL);
  pthread_cond_destroy(&p->cv_start);
  pthread_cond_destroy(&p->cv_done);
  pthread_mutex_destroy(&p->mu);
  free(p->workers);
  free(p);
}

int pte_xnn_pool_threads(const pte_xnn_pool *p) { return p ? p->threads : 1; }

void pte_xnn_parallel(pte_xnn_pool *p, pte_xnn_task_fn fn, void *ctx, size_t n) {
  if (n == 0) return;
  if (!p || n == 1) {
    for (size_t i = 0; i < n; i++) fn(ctx, i, 0);
    return;
  }
  pthread_mutex_lock(&p->mu);
  p->fn = fn;
  p->ctx = ctx;
  p->n = n;
  atomic_store_explicit(&p->next, 0, memory_order_relaxed);
  p->running = p->threads - 1;
  p->generation++;
  pthread_cond_broadcast(&p->cv_start);
  pthread_mutex_unlock(&p->mu);
  drain(p, 0);
  pthread_mutex_lock(&p->mu);
  while (p->running > 0) pthread_cond_wait(&p->cv_done, &p->mu);
  pthread_mutex_unlock(&p->mu);
}
