#define _POSIX_C_SOURCE 200809L
/* A small fork-join pool: the caller and threads-1 workers claim item indices of the current job
 * until the range is exhausted. One job at a time (a delegate runs on one thread).
 *
 * The job word packs (generation, n, next index) into one 64-bit atomic: a claim is a CAS of
 * next -> next + 1 on the word, so a worker that was descheduled across jobs can only claim an
 * item of the job the word describes when its CAS succeeds, and reads the job's function and
 * context only after that claim. Completion is a count of finished items, so the caller never
 * waits for a worker that did not take part.
 *
 * Waiting: between pte_xnn_pool_begin and pte_xnn_pool_end (one execute) workers that ran a job
 * spin for the next one (back-to-back nodes come microseconds apart; up to TP_IDLE_SPIN_NS,
 * yielding the core after TP_YIELD_AFTER_NS), and for TP_LINGER_NS after end, so back-to-back
 * executes skip the sleep / wake-up round trip (KWS qs8, 2 threads: 0.10 -> 0.05 ms per execute
 * on the test VM); then they sleep on a condition variable. The caller wakes sleepers only when
 * there are any; begin wakes them early when the previous execute used them.
 *
 * Sharing: delegates take their pool from pte_xnn_pool_acquire, one process-wide pool per thread
 * count (the 49 delegates of a llama decode step then hand work to one worker that is still
 * spinning from the previous delegate, instead of 49 pools whose workers sleep, wake and linger
 * against each other). A caller owns the pool for an execute (begin .. end) or for one parallel
 * call; a caller on another thread that finds it owned runs its items itself, serially (same
 * results: items never depend on which thread runs them). */
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

#include "xnn_internal.h"

#define TP_IDX_BITS 24
#define TP_IDX_MASK ((UINT64_C(1) << TP_IDX_BITS) - 1)
#define TP_MAX_ITEMS ((size_t)TP_IDX_MASK)
/* idle spin before sleeping, and the caller's spin on stragglers before yielding */
#define TP_IDLE_SPIN_NS 1000000L
#define TP_WAIT_SPIN_NS 50000L
#define TP_YIELD_AFTER_NS 20000L
#define TP_LINGER_NS 50000L

struct pte_xnn_pool {
  int threads; /* including the caller */
  pthread_t *workers;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  atomic_int sleepers;
  atomic_bool stop;
  atomic_bool active; /* inside an execute: idle workers spin */
  atomic_uint wakes;  /* bumped by a begin that wakes the workers */
  atomic_uint_least64_t ended_at; /* tp_now_ns() at the last end */
  bool used;          /* a job ran since the last begin (owner only) */
  atomic_int busy;    /* 1 while one caller owns the pool (an execute, or one parallel call) */
  int refs;           /* shared pools: delegates holding it (under tp_shared_mu) */
  bool shared;
  /* job: gen << 48 | n << 24 | next (n, next < 2^24) */
  _Alignas(64) atomic_uint_least64_t word;
  _Alignas(64) atomic_size_t done; /* items finished in the current job */
  /* written by the caller before publishing the word, read after a successful claim */
  pte_xnn_task_fn fn;
  void *ctx;
  size_t base;
};

typedef struct worker_arg {
  pte_xnn_pool *p;
  int tid;
} worker_arg;

static inline void tp_pause(void) {
#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
  __builtin_ia32_pause();
#endif
}

static inline uint64_t tp_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline size_t tp_n(uint64_t w) { return (size_t)((w >> TP_IDX_BITS) & TP_IDX_MASK); }
static inline size_t tp_next(uint64_t w) { return (size_t)(w & TP_IDX_MASK); }

/* Claims and runs items of the job in `w` (the word as last loaded) until none are left; returns
 * the exhausted word last seen (it changes only when the next job is published). */
static uint64_t tp_drain(pte_xnn_pool *p, uint64_t w, int tid) {
  while (tp_next(w) < tp_n(w)) {
    if (!atomic_compare_exchange_weak_explicit(&p->word, &w, w + 1, memory_order_acquire, memory_order_acquire))
      continue; /* w reloaded */
    p->fn(p->ctx, p->base + tp_next(w), tid);
    atomic_fetch_add_explicit(&p->done, 1, memory_order_release);
    w = atomic_load_explicit(&p->word, memory_order_acquire);
  }
  return w;
}

static void *tp_worker(void *arg) {
  worker_arg *wa = (worker_arg *)arg;
  pte_xnn_pool *p = wa->p;
  const int tid = wa->tid;
  free(wa);
  uint64_t seen = atomic_load_explicit(&p->word, memory_order_acquire);
  for (;;) {
    uint64_t w = atomic_load_explicit(&p->word, memory_order_acquire);
    if (w != seen) {
      seen = tp_drain(p, w, tid);
      continue;
    }
    if (atomic_load_explicit(&p->stop, memory_order_acquire)) break;
    /* idle: spin while an execute is running, then sleep until the word changes */
    const unsigned wakes = atomic_load(&p->wakes); /* a begin from now on wakes us again */
    const uint64_t t0 = tp_now_ns();
    bool changed = false;
    for (unsigned i = 1;; i++) {
      tp_pause();
      if (atomic_load_explicit(&p->word, memory_order_relaxed) != seen) {
        changed = true;
        break;
      }
      if ((i & 63u) == 0) {
        const uint64_t now = tp_now_ns(), dt = now - t0;
        if (atomic_load_explicit(&p->stop, memory_order_relaxed) || dt > (uint64_t)TP_IDLE_SPIN_NS) break;
        /* after an execute, linger briefly: back-to-back executes then need no wake-up */
        if (!atomic_load_explicit(&p->active, memory_order_relaxed) &&
            now - atomic_load_explicit(&p->ended_at, memory_order_relaxed) > (uint64_t)TP_LINGER_NS)
          break;
        /* on a busy machine this core may be shared with the caller (running a serial node) */
        if (dt > (uint64_t)TP_YIELD_AFTER_NS) sched_yield();
      }
    }
    if (changed) continue;
    pthread_mutex_lock(&p->mu);
    atomic_fetch_add(&p->sleepers, 1); /* seq_cst: pairs with the caller's store + load */
    /* woken by a new job, or by begin (then spin again) */
    while (atomic_load(&p->word) == seen && !atomic_load(&p->stop) && atomic_load(&p->wakes) == wakes)
      pthread_cond_wait(&p->cv, &p->mu);
    atomic_fetch_sub(&p->sleepers, 1);
    pthread_mutex_unlock(&p->mu);
  }
  return NULL;
}

static void tp_wake(pte_xnn_pool *p) {
  if (atomic_load(&p->sleepers) == 0) return;
  pthread_mutex_lock(&p->mu);
  pthread_cond_broadcast(&p->cv);
  pthread_mutex_unlock(&p->mu);
}

pte_xnn_pool *pte_xnn_pool_create(int threads) {
  if (threads <= 1) return NULL;
  if (threads > PTE_XNN_MAX_THREADS) threads = PTE_XNN_MAX_THREADS;
  pte_xnn_pool *p = (pte_xnn_pool *)aligned_alloc(64, (sizeof *p + 63) & ~(size_t)63);
  if (!p) return NULL;
  p->workers = (pthread_t *)calloc((size_t)threads, sizeof(pthread_t));
  if (!p->workers) {
    free(p);
    return NULL;
  }
  pthread_mutex_init(&p->mu, NULL);
  pthread_cond_init(&p->cv, NULL);
  atomic_init(&p->sleepers, 0);
  atomic_init(&p->stop, false);
  atomic_init(&p->active, false);
  atomic_init(&p->wakes, 0);
  atomic_init(&p->ended_at, 0);
  p->used = false;
  atomic_init(&p->busy, 0);
  p->refs = 0;
  p->shared = false;
  atomic_init(&p->word, 0);
  atomic_init(&p->done, 0);
  p->fn = NULL;
  p->ctx = NULL;
  p->base = 0;
  p->threads = 1;
  for (int t = 1; t < threads; t++) {
    worker_arg *wa = (worker_arg *)malloc(sizeof *wa);
    if (!wa) break;
    wa->p = p;
    wa->tid = t;
    if (pthread_create(&p->workers[t], NULL, tp_worker, wa) != 0) {
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
  atomic_store(&p->stop, true);
  pthread_mutex_lock(&p->mu);
  pthread_cond_broadcast(&p->cv);
  pthread_mutex_unlock(&p->mu);
  for (int t = 1; t < p->threads; t++) pthread_join(p->workers[t], NULL);
  pthread_cond_destroy(&p->cv);
  pthread_mutex_destroy(&p->mu);
  free(p->workers);
  free(p);
}

int pte_xnn_pool_threads(const pte_xnn_pool *p) { return p ? p->threads : 1; }

/* The pool this thread owns for its current execute (begin .. end), if any. */
static _Thread_local pte_xnn_pool *tp_owned;

static bool tp_try_own(pte_xnn_pool *p) {
  int idle = 0;
  return atomic_compare_exchange_strong_explicit(&p->busy, &idle, 1, memory_order_acquire, memory_order_relaxed);
}

static void tp_disown(pte_xnn_pool *p) { atomic_store_explicit(&p->busy, 0, memory_order_release); }

void pte_xnn_pool_begin(pte_xnn_pool *p) {
  if (!p || tp_owned == p) return;
  if (!tp_try_own(p)) return; /* another thread's execute has it: this one runs serially */
  tp_owned = p;
  /* when the previous execute ran jobs, wake the sleepers now so that they are spinning by the
   * time the first job comes; a graph whose nodes all run serially never wakes them */
  atomic_store(&p->active, true);
  if (p->used) {
    atomic_fetch_add(&p->wakes, 1);
    tp_wake(p);
  }
  p->used = false;
}

void pte_xnn_pool_end(pte_xnn_pool *p) {
  if (!p || tp_owned != p) return;
  atomic_store_explicit(&p->ended_at, tp_now_ns(), memory_order_relaxed);
  atomic_store_explicit(&p->active, false, memory_order_relaxed);
  tp_owned = NULL;
  tp_disown(p);
}

void pte_xnn_pool_sleep(pte_xnn_pool *p) {
  if (p) atomic_store_explicit(&p->ended_at, 0, memory_order_relaxed); /* the linger is over */
}

/* One job of n <= TP_MAX_ITEMS items starting at `base`. */
static void tp_run(pte_xnn_pool *p, pte_xnn_task_fn fn, void *ctx, size_t base, size_t n) {
  p->fn = fn;
  p->ctx = ctx;
  p->base = base;
  p->used = true;
  atomic_store_explicit(&p->done, 0, memory_order_relaxed);
  const uint64_t old = atomic_load_explicit(&p->word, memory_order_relaxed);
  const uint64_t gen = (old >> (2 * TP_IDX_BITS)) + 1;
  const uint64_t w = (gen << (2 * TP_IDX_BITS)) | ((uint64_t)n << TP_IDX_BITS);
  atomic_store(&p->word, w); /* seq_cst: a worker going to sleep sees it, or we see the sleeper */
  tp_wake(p);
  (void)tp_drain(p, w, 0);
  if (atomic_load_explicit(&p->done, memory_order_acquire) == n) return;
  const uint64_t t0 = tp_now_ns();
  for (unsigned i = 1; atomic_load_explicit(&p->done, memory_order_acquire) != n; i++) {
    tp_pause();
    /* a straggler holds the last items: let it have the core if it shares ours */
    if ((i & 63u) == 0 && tp_now_ns() - t0 > (uint64_t)TP_WAIT_SPIN_NS) sched_yield();
  }
}

void pte_xnn_parallel(pte_xnn_pool *p, pte_xnn_task_fn fn, void *ctx, size_t n) {
  if (n == 0) return;
  const bool owned = p && tp_owned == p, own_now = p && !owned && n > 1 && tp_try_own(p);
  if (!p || n == 1 || (!owned && !own_now)) { /* no pool, one item, or the pool is another thread's */
    for (size_t i = 0; i < n; i++) fn(ctx, i, 0);
    return;
  }
  for (size_t base = 0; base < n; base += TP_MAX_ITEMS)
    tp_run(p, fn, ctx, base, n - base < TP_MAX_ITEMS ? n - base : TP_MAX_ITEMS);
  if (own_now) tp_disown(p);
}

/* ---- process-wide pools, one per thread count ---- */
#define TP_SHARED_MAX 8
static pthread_mutex_t tp_shared_mu = PTHREAD_MUTEX_INITIALIZER;
static pte_xnn_pool *tp_shared[TP_SHARED_MAX];

pte_xnn_pool *pte_xnn_pool_acquire(int threads) {
  if (threads <= 1) return NULL;
  if (threads > PTE_XNN_MAX_THREADS) threads = PTE_XNN_MAX_THREADS;
  pthread_mutex_lock(&tp_shared_mu);
  pte_xnn_pool *p = NULL;
  int free_slot = -1;
  for (int i = 0; i < TP_SHARED_MAX; i++) {
    if (tp_shared[i] && tp_shared[i]->threads == threads) {
      p = tp_shared[i];
      break;
    }
    if (!tp_shared[i] && free_slot < 0) free_slot = i;
  }
  if (!p) {
    p = pte_xnn_pool_create(threads); /* may come back with fewer threads (thread creation failed) */
    if (p && free_slot >= 0) {
      p->shared = true;
      tp_shared[free_slot] = p;
    }
  }
  if (p) p->refs++;
  pthread_mutex_unlock(&tp_shared_mu);
  return p;
}

void pte_xnn_pool_release(pte_xnn_pool *p) {
  if (!p) return;
  pthread_mutex_lock(&tp_shared_mu);
  bool last = --p->refs <= 0;
  if (last && p->shared)
    for (int i = 0; i < TP_SHARED_MAX; i++)
      if (tp_shared[i] == p) tp_shared[i] = NULL;
  pthread_mutex_unlock(&tp_shared_mu);
  if (last) pte_xnn_pool_destroy(p);
}

typedef struct tp_group {
  pte_xnn_task_fn fn;
  void *ctx;
  size_t n, per;
} tp_group;

static void tp_group_task(void *ctx, size_t item, int tid) {
  const tp_group *g = (const tp_group *)ctx;
  const size_t i0 = item * g->per, i1 = i0 + g->per < g->n ? i0 + g->per : g->n;
  for (size_t i = i0; i < i1; i++) g->fn(g->ctx, i, tid);
}

void pte_xnn_parallel_grouped(pte_xnn_pool *p, pte_xnn_task_fn fn, void *ctx, size_t n, size_t groups) {
  if (!p || groups <= 1 || n <= 1) {
    for (size_t i = 0; i < n; i++) fn(ctx, i, 0);
    return;
  }
  if (groups >= n) {
    pte_xnn_parallel(p, fn, ctx, n);
    return;
  }
  tp_group g = {fn, ctx, n, (n + groups - 1) / groups};
  pte_xnn_parallel(p, tp_group_task, &g, (n + g.per - 1) / g.per);
}
