/* XNNPACK backend thread pool (backends/xnnpack/xnn_threadpool.c): every item of every job runs
 * exactly once, on a valid thread id, with the job's own context, across many back-to-back jobs
 * of varying sizes (0, 1, fewer items than threads, many), inside and outside begin/end, with
 * workers sent to sleep (pte_xnn_pool_sleep) or left idle long enough to fall asleep in between,
 * and with more threads than cores; the process-wide pools (pte_xnn_pool_acquire): one per thread
 * count, owned by one caller at a time, another thread's caller running its items serially, and
 * two threads driving one shared pool at once. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../backends/xnnpack/xnn_internal.h"
#include "test.h"

typedef struct tpt_job {
  atomic_uint *hits; /* per item */
  size_t n;
  int threads;
  atomic_uint bad_tid;
  atomic_uint out_of_range;
  unsigned tag; /* which job: a task that ran with a stale context would see another tag */
  unsigned expect_tag;
  atomic_uint bad_tag;
  atomic_uint by_tid[8];
  unsigned work; /* loop iterations per item */
} tpt_job;

static void tpt_task(void *ctx, size_t item, int tid) {
  tpt_job *j = (tpt_job *)ctx;
  if (tid < 0 || tid >= j->threads) atomic_fetch_add(&j->bad_tid, 1);
  else if (tid < 8) atomic_fetch_add(&j->by_tid[tid], 1);
  if (item >= j->n) {
    atomic_fetch_add(&j->out_of_range, 1);
    return;
  }
  if (j->tag != j->expect_tag) atomic_fetch_add(&j->bad_tag, 1);
  atomic_fetch_add(&j->hits[item], 1);
  /* a little work so that items spread over the threads */
  volatile unsigned s = 0;
  for (unsigned i = 0; i < (unsigned)(item % 7) * j->work; i++) s = s + i;
  (void)s;
}

static void tpt_sleep_us(long us) {
  struct timespec ts = {0, us * 1000L};
  nanosleep(&ts, NULL);
}

/* Runs `jobs` jobs of pseudo-random sizes on a pool of `threads`; returns the number of items that
 * were not run exactly once (0 expected) and counts the items run by workers (tid > 0). */
static size_t tpt_run(int threads, unsigned jobs, size_t max_n, unsigned work, bool bracket, long idle_us,
                      size_t *by_workers) {
  pte_xnn_pool *p = pte_xnn_pool_create(threads);
  if (!p || pte_xnn_pool_threads(p) != threads) {
    test_fail(__FILE__, __LINE__, "pool of %d threads not created (%d)", threads, pte_xnn_pool_threads(p));
    pte_xnn_pool_destroy(p);
    return 1;
  }
  atomic_uint *hits = (atomic_uint *)malloc((max_n + 1) * sizeof(atomic_uint));
  size_t wrong = 0;
  unsigned seed = 12345u;
  *by_workers = 0;
  for (unsigned it = 0; it < jobs; it++) {
    seed = seed * 1103515245u + 12345u;
    size_t n = (size_t)(seed >> 8) % (max_n + 1);
    if (it % 5 == 0) n = it % 3; /* 0, 1, 2 items */
    tpt_job j;
    memset(&j, 0, sizeof j);
    j.hits = hits;
    j.n = n;
    j.threads = threads;
    j.tag = it;
    j.expect_tag = it;
    j.work = work;
    for (size_t i = 0; i < n; i++) atomic_init(&hits[i], 0);
    if (bracket && it % 16 == 0) pte_xnn_pool_begin(p);
    pte_xnn_parallel(p, tpt_task, &j, n);
    if (bracket && it % 16 == 15) pte_xnn_pool_end(p);
    if (bracket && it % 32 == 31) pte_xnn_pool_sleep(p); /* workers go to sleep now */
    for (size_t i = 0; i < n; i++)
      if (atomic_load(&hits[i]) != 1) wrong++;
    wrong += atomic_load(&j.bad_tid) + atomic_load(&j.out_of_range) + atomic_load(&j.bad_tag);
    for (int t = 1; t < threads && t < 8; t++) *by_workers += atomic_load(&j.by_tid[t]);
    if (idle_us > 0 && it % 64 == 63) tpt_sleep_us(idle_us);
  }
  if (bracket) pte_xnn_pool_end(p);
  free(hits);
  pte_xnn_pool_destroy(p);
  return wrong;
}

TEST(pool_runs_every_item_once) {
  size_t workers = 0;
  size_t wrong = tpt_run(2, 3000, 300, 50, false, 0, &workers);
  CHECK_MSG(wrong == 0, "2 threads, no bracket: %zu items not run exactly once", wrong);
  wrong = tpt_run(2, 3000, 300, 50, true, 0, &workers);
  CHECK_MSG(wrong == 0, "2 threads, begin/end: %zu items not run exactly once", wrong);
  wrong = tpt_run(4, 2000, 1000, 50, true, 0, &workers);
  CHECK_MSG(wrong == 0, "4 threads (more than cores): %zu items not run exactly once", wrong);
}

TEST(pool_wakes_sleeping_workers) {
  /* idle gaps long enough for the workers to stop spinning and sleep (> 1 ms) */
  size_t workers = 0;
  size_t wrong = tpt_run(2, 640, 400, 50, true, 3000, &workers);
  CHECK_MSG(wrong == 0, "with sleeps: %zu items not run exactly once", wrong);
  wrong = tpt_run(3, 640, 400, 50, false, 3000, &workers);
  CHECK_MSG(wrong == 0, "with sleeps, no bracket: %zu items not run exactly once", wrong);
}

TEST(pool_workers_take_part) {
  /* jobs of slow items (~0.1 s in all): a worker that is never woken would leave them all to
   * the caller */
  size_t workers = 0;
  size_t wrong = tpt_run(2, 40, 1000, 2000, true, 0, &workers);
  CHECK_MSG(wrong == 0, "%zu items not run exactly once", wrong);
  CHECK_MSG(workers > 0, "no item ran on a worker thread");
}

TEST(pool_grouped_runs_every_item_once) {
  pte_xnn_pool *p = pte_xnn_pool_create(2);
  CHECK(p != NULL);
  if (!p) return;
  static atomic_uint hits[1000];
  for (size_t n = 0; n <= 1000; n += 37)
    for (size_t groups = 0; groups <= 70; groups += 7) {
      for (size_t i = 0; i < n; i++) atomic_init(&hits[i], 0);
      tpt_job j;
      memset(&j, 0, sizeof j);
      j.hits = hits;
      j.n = n;
      j.threads = 2;
      j.work = 10;
      pte_xnn_pool_begin(p);
      pte_xnn_parallel_grouped(p, tpt_task, &j, n, groups);
      pte_xnn_pool_end(p);
      size_t wrong = atomic_load(&j.bad_tid) + atomic_load(&j.out_of_range);
      for (size_t i = 0; i < n; i++) wrong += atomic_load(&hits[i]) != 1;
      CHECK_MSG(wrong == 0, "n=%zu groups=%zu: %zu items not run exactly once", n, groups, wrong);
    }
  pte_xnn_pool_destroy(p);
}

TEST(pool_null_and_serial) {
  CHECK(pte_xnn_pool_create(1) == NULL);
  CHECK(pte_xnn_pool_create(0) == NULL);
  CHECK_EQ_INT(pte_xnn_pool_threads(NULL), 1);
  atomic_uint hits[5];
  for (int i = 0; i < 5; i++) atomic_init(&hits[i], 0);
  tpt_job j;
  memset(&j, 0, sizeof j);
  j.hits = hits;
  j.n = 5;
  j.threads = 1;
  pte_xnn_pool_begin(NULL);
  pte_xnn_parallel(NULL, tpt_task, &j, 5);
  pte_xnn_pool_end(NULL);
  for (int i = 0; i < 5; i++) CHECK_EQ_INT((int)atomic_load(&hits[i]), 1);
  CHECK_EQ_INT((int)atomic_load(&j.bad_tid), 0);
}

TEST(shared_pool_one_per_thread_count) {
  pte_xnn_pool *a = pte_xnn_pool_acquire(2), *b = pte_xnn_pool_acquire(2), *c = pte_xnn_pool_acquire(3);
  CHECK(a != NULL && a == b);
  CHECK(c != NULL && c != a);
  CHECK_EQ_INT(pte_xnn_pool_threads(a), 2);
  CHECK_EQ_INT(pte_xnn_pool_threads(c), 3);
  CHECK(pte_xnn_pool_acquire(1) == NULL);
  pte_xnn_pool_release(b);
  pte_xnn_pool *d = pte_xnn_pool_acquire(2); /* a still holds it: the same pool */
  CHECK(d == a);
  pte_xnn_pool_release(d);
  pte_xnn_pool_release(a);
  pte_xnn_pool_release(c);
  pte_xnn_pool_release(NULL);
}

/* While the main thread owns the pool (begin), another thread's parallel call runs every item
 * itself (tid 0, on that thread); after end it may use the workers again. */
typedef struct tpt_other {
  pte_xnn_pool *p;
  tpt_job *j;
  pthread_t self;
  atomic_uint on_other_thread;
} tpt_other;

static void tpt_other_task(void *ctx, size_t item, int tid) {
  tpt_other *o = (tpt_other *)ctx;
  if (pthread_equal(pthread_self(), o->self)) atomic_fetch_add(&o->on_other_thread, 1);
  tpt_task(o->j, item, tid);
}

static void *tpt_other_main(void *arg) {
  tpt_other *o = (tpt_other *)arg;
  o->self = pthread_self();
  pte_xnn_parallel(o->p, tpt_other_task, o, o->j->n);
  return NULL;
}

TEST(shared_pool_owned_by_another_thread_runs_serially) {
  pte_xnn_pool *p = pte_xnn_pool_acquire(2);
  CHECK(p != NULL);
  if (!p) return;
  static atomic_uint hits[200];
  for (size_t i = 0; i < 200; i++) atomic_init(&hits[i], 0);
  tpt_job j;
  memset(&j, 0, sizeof j);
  j.hits = hits, j.n = 200, j.threads = 2, j.work = 200;
  tpt_other o;
  memset(&o, 0, sizeof o);
  o.p = p, o.j = &j;
  atomic_init(&o.on_other_thread, 0);
  pte_xnn_pool_begin(p); /* this thread owns it */
  pthread_t t;
  CHECK(pthread_create(&t, NULL, tpt_other_main, &o) == 0);
  pthread_join(t, NULL);
  pte_xnn_pool_end(p);
  size_t wrong = atomic_load(&j.bad_tid) + atomic_load(&j.out_of_range);
  for (size_t i = 0; i < 200; i++) wrong += atomic_load(&hits[i]) != 1;
  CHECK_MSG(wrong == 0, "%zu items not run exactly once", wrong);
  CHECK_EQ_INT((int)atomic_load(&o.on_other_thread), 200); /* all on the calling thread */
  CHECK_EQ_INT((int)atomic_load(&j.by_tid[1]), 0);
  pte_xnn_pool_release(p);
}

/* Two threads, each bracketing many jobs on the one shared pool: whoever owns it uses the
 * workers, the other runs serially; every item of every job still runs exactly once. */
typedef struct tpt_driver {
  pte_xnn_pool *p;
  size_t wrong;
} tpt_driver;

static void *tpt_driver_main(void *arg) {
  tpt_driver *dr = (tpt_driver *)arg;
  atomic_uint *hits = (atomic_uint *)malloc(301 * sizeof(atomic_uint));
  if (!hits) {
    dr->wrong = 1;
    return NULL;
  }
  unsigned seed = (unsigned)(uintptr_t)arg;
  for (unsigned it = 0; it < 1500; it++) {
    seed = seed * 1103515245u + 12345u;
    size_t n = (size_t)(seed >> 8) % 301;
    tpt_job j;
    memset(&j, 0, sizeof j);
    j.hits = hits, j.n = n, j.threads = 2, j.work = 20, j.tag = it, j.expect_tag = it;
    for (size_t i = 0; i < n; i++) atomic_init(&hits[i], 0);
    if (it % 8 == 0) pte_xnn_pool_begin(dr->p);
    pte_xnn_parallel(dr->p, tpt_task, &j, n);
    if (it % 8 == 7) pte_xnn_pool_end(dr->p);
    for (size_t i = 0; i < n; i++) dr->wrong += atomic_load(&hits[i]) != 1;
    dr->wrong += atomic_load(&j.bad_tid) + atomic_load(&j.out_of_range) + atomic_load(&j.bad_tag);
  }
  pte_xnn_pool_end(dr->p);
  free(hits);
  return NULL;
}

TEST(shared_pool_two_threads_at_once) {
  pte_xnn_pool *p = pte_xnn_pool_acquire(2);
  CHECK(p != NULL);
  if (!p) return;
  tpt_driver d[2] = {{p, 0}, {p, 0}};
  pthread_t t[2];
  for (int i = 0; i < 2; i++) CHECK(pthread_create(&t[i], NULL, tpt_driver_main, &d[i]) == 0);
  for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
  CHECK_MSG(d[0].wrong == 0 && d[1].wrong == 0, "items not run exactly once: %zu, %zu", d[0].wrong, d[1].wrong);
  pte_xnn_pool_release(p);
}

int main(void) {
  RUN(pool_runs_every_item_once);
  RUN(pool_wakes_sleeping_workers);
  RUN(pool_workers_take_part);
  RUN(pool_grouped_runs_every_item_once);
  RUN(pool_null_and_serial);
  RUN(shared_pool_one_per_thread_count);
  RUN(shared_pool_owned_by_another_thread_runs_serially);
  RUN(shared_pool_two_threads_at_once);
  return test_summary();
}
