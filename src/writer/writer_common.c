#define _POSIX_C_SOURCE 200809L
/* writer_common.c — arena, sources, the streaming buffer and dedup shared by the writers. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "pte/io.h"
#include "pte/tensor.h"
#include "writer/writer_internal.h"

#ifndef O_CLOEXEC
#define O_CLOEXEC 0
#endif

/* ------------------------------------------------------------------ arena */
#define WR_BLOCK_HDR ((sizeof(pte_wr_block) + 15) & ~(size_t)15)
#define WR_BLOCK_MIN ((size_t)64 << 10)

void pte_wr_arena_init(pte_wr_arena *a, pte_writer_realloc_fn fn, void *ctx) {
  memset(a, 0, sizeof *a);
  a->fn = fn ? fn : pte_wr_default_realloc;
  a->ctx = ctx;
}

void pte_wr_arena_free(pte_wr_arena *a) {
  pte_wr_block *b = a->blocks;
  while (b) {
    pte_wr_block *next = b->next;
    a->fn(a->ctx, b, b->size, 0);
    b = next;
  }
  a->blocks = NULL;
  a->cur = NULL;
  a->left = 0;
  a->total = 0;
}

void *pte_wr_alloc(pte_wr_arena *a, size_t size) {
  size_t need = (size + 15) & ~(size_t)15;
  if (need < size) return NULL;
  if (need == 0) need = 16;
  if (need > a->left) {
    size_t bsize = need + WR_BLOCK_HDR;
    if (bsize < need) return NULL;
    if (bsize < WR_BLOCK_MIN) bsize = WR_BLOCK_MIN;
    pte_wr_block *b = (pte_wr_block *)a->fn(a->ctx, NULL, 0, bsize);
    if (!b) return NULL;
    b->size = bsize;
    b->next = a->blocks;
    a->blocks = b;
    a->total += bsize;
    uint8_t *start = (uint8_t *)b + WR_BLOCK_HDR;
    size_t avail = bsize - WR_BLOCK_HDR;
    if (bsize - WR_BLOCK_HDR - need >= a->left) { /* keep the block with more room as current */
      a->cur = start;
      a->left = avail;
    } else {
      memset(start, 0, need);
      return start; /* dedicated block; keep allocating from the old current one */
    }
  }
  uint8_t *p = a->cur;
  a->cur += need;
  a->left -= need;
  memset(p, 0, need);
  return p;
}

void *pte_wr_memdup(pte_wr_arena *a, const void *p, size_t size) {
  void *q = pte_wr_alloc(a, size);
  if (q && size) memcpy(q, p, size);
  return q;
}

char *pte_wr_strndup(pte_wr_arena *a, const char *s, size_t len) {
  if (!s) return NULL;
  char *q = (char *)pte_wr_alloc(a, len + 1);
  if (q) {
    memcpy(q, s, len);
    q[len] = 0;
  }
  return q;
}

char *pte_wr_strdup(pte_wr_arena *a, const char *s) { return s ? pte_wr_strndup(a, s, strlen(s)) : NULL; }

void *pte_wr_vec_push(pte_wr_arena *a, pte_wr_vec *v, size_t elem_size) {
  if (v->n == v->cap) {
    size_t cap = v->cap ? v->cap * 2 : 8;
    if (cap > SIZE_MAX / elem_size) return NULL;
    void *d = pte_wr_alloc(a, cap * elem_size);
    if (!d) return NULL;
    if (v->n) memcpy(d, v->data, v->n * elem_size);
    v->data = d; /* the old array stays in the arena until it is freed */
    v->cap = cap;
  }
  uint8_t *e = (uint8_t *)v->data + v->n * elem_size;
  memset(e, 0, elem_size);
  v->n++;
  return e;
}

uint64_t pte_wr_lcm(uint64_t a, uint64_t b) {
  if (!a) return b;
  if (!b) return a;
  uint64_t x = a, y = b;
  while (y) {
    uint64_t t = x % y;
    x = y;
    y = t;
  }
  return a / x * b;
}

void *pte_wr_default_realloc(void *ctx, void *ptr, size_t old_size, size_t new_size) {
  return pte_heap_realloc(ctx, ptr, old_size, new_size);
}

/* ------------------------------------------------------------------ sources */
void pte_wr_src_cache_init(pte_wr_src_cache *c) {
  c->path = NULL;
  c->fd = -1;
}

void pte_wr_src_cache_close(pte_wr_src_cache *c) {
  if (c->fd >= 0) close(c->fd);
  c->fd = -1;
  c->path = NULL;
}

static const char *wr_errno_text(int e) {
  switch (e) {
    case ENOENT: return "no such file";
    case EACCES: return "permission denied";
    case EISDIR: return "is a directory";
    case EIO: return "I/O error";
    case EBADF: return "bad file descriptor";
    default: return "cannot read";
  }
}

static pte_status wr_pread(int fd, void *dst, size_t n, uint64_t off, const char *what, pte_error_info *err) {
  uint8_t *p = (uint8_t *)dst;
  while (n > 0) {
    size_t chunk = n > (size_t)1 << 30 ? (size_t)1 << 30 : n;
    if (off > (uint64_t)INT64_MAX - chunk)
      return pte_error_set(err, PTE_ERR_ACCESS_FAILED, "%s: offset %llu out of range", what, (unsigned long long)off);
    ssize_t r = pread(fd, p, chunk, (off_t)off);
    if (r < 0) {
      if (errno == EINTR) continue;
      return pte_error_set(err, PTE_ERR_ACCESS_FAILED, "%s: read failed: %s", what, wr_errno_text(errno));
    }
    if (r == 0)
      return pte_error_set(err, PTE_ERR_ACCESS_FAILED, "%s: file ended at offset %llu (shorter than the source's size)",
                           what, (unsigned long long)off);
    p += r;
    off += (uint64_t)r;
    n -= (size_t)r;
  }
  return PTE_OK;
}

pte_status pte_wr_source_check(const pte_source *src, const char *what, pte_error_info *err) {
  if (!src) return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "%s: NULL source", what);
  if (src->size > (uint64_t)INT64_MAX)
    return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "%s: source size %llu too large", what,
                         (unsigned long long)src->size);
  switch (src->kind) {
    case PTE_SOURCE_MEMORY:
      if (!src->data && src->size)
        return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "%s: memory source without data", what);
      if (src->size > (uint64_t)SIZE_MAX)
        return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "%s: memory source larger than the address space", what);
      return PTE_OK;
    case PTE_SOURCE_CALLBACK:
      if (!src->read) return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "%s: callback source without a function", what);
      return PTE_OK;
    case PTE_SOURCE_FD:
    case PTE_SOURCE_PATH: {
      struct stat st;
      if (src->offset > UINT64_MAX - src->size)
        return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "%s: file range overflows", what);
      if (src->kind == PTE_SOURCE_FD) {
        if (src->fd < 0) return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "%s: bad file descriptor %d", what, src->fd);
        if (fstat(src->fd, &st) != 0)
          return pte_error_set(err, PTE_ERR_ACCESS_FAILED, "%s: cannot stat fd %d: %s", what, src->fd, wr_errno_text(errno));
      } else {
        if (!src->path || !*src->path) return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "%s: empty path", what);
        if (stat(src->path, &st) != 0)
          return pte_error_set(err, PTE_ERR_ACCESS_FAILED, "%s: '%s': %s", what, src->path, wr_errno_text(errno));
      }
      if (S_ISDIR(st.st_mode)) return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "%s: source is a directory", what);
      if (S_ISREG(st.st_mode) && src->offset + src->size > (uint64_t)st.st_size)
        return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT,
                             "%s: file range [%llu, %llu) is past the end of the file (%llu bytes)", what,
                             (unsigned long long)src->offset, (unsigned long long)(src->offset + src->size),
                             (unsigned long long)st.st_size);
      return PTE_OK;
    }
    case PTE_SOURCE_LOADER: {
      if (!src->loader) return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "%s: NULL loader", what);
      uint64_t sz = 0;
      pte_status s = pte_data_loader_size(src->loader, &sz);
      if (s != PTE_OK) return pte_error_set(err, s, "%s: loader size failed", what);
      if (src->offset > UINT64_MAX - src->size || src->offset + src->size > sz)
        return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT,
                             "%s: loader range [%llu, +%llu) is past the end of the data (%llu bytes)", what,
                             (unsigned long long)src->offset, (unsigned long long)src->size, (unsigned long long)sz);
      return PTE_OK;
    }
    default:
      return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "%s: unknown source kind %d", what, (int)src->kind);
  }
}

pte_status pte_wr_source_copy(pte_wr_arena *a, const pte_source *src, pte_source *out, pte_error_info *err) {
  *out = *src;
  if (src->kind == PTE_SOURCE_PATH) {
    out->path = pte_wr_strdup(a, src->path);
    if (!out->path) return pte_error_set(err, PTE_ERR_MEMORY_ALLOCATION_FAILED, "writer: out of memory");
  }
  return PTE_OK;
}

pte_status pte_wr_source_read(const pte_source *src, uint64_t off, void *dst, size_t n, pte_wr_src_cache *c,
                              const char *what, pte_error_info *err) {
  if (n == 0) return PTE_OK;
  if (off > src->size || n > src->size - off)
    return pte_error_set(err, PTE_ERR_INTERNAL, "%s: read [%llu, +%zu) past the source's %llu bytes", what,
                         (unsigned long long)off, n, (unsigned long long)src->size);
  switch (src->kind) {
    case PTE_SOURCE_MEMORY:
      memcpy(dst, (const uint8_t *)src->data + off, n);
      return PTE_OK;
    case PTE_SOURCE_FD:
      return wr_pread(src->fd, dst, n, src->offset + off, what, err);
    case PTE_SOURCE_PATH:
      if (!c->path || strcmp(c->path, src->path) != 0) {
        pte_wr_src_cache_close(c);
        c->fd = open(src->path, O_RDONLY | O_CLOEXEC);
        if (c->fd < 0)
          return pte_error_set(err, PTE_ERR_ACCESS_FAILED, "%s: cannot open '%s': %s", what, src->path,
                               wr_errno_text(errno));
        c->path = src->path;
      }
      return wr_pread(c->fd, dst, n, src->offset + off, what, err);
    case PTE_SOURCE_LOADER: {
      pte_segment_info info = {PTE_SEGMENT_PROGRAM, 0, NULL};
      pte_status s = pte_data_loader_load_into(src->loader, src->offset + off, n, &info, dst);
      if (s != PTE_OK) return pte_error_set(err, s, "%s: loader read at %llu failed", what, (unsigned long long)(src->offset + off));
      return PTE_OK;
    }
    case PTE_SOURCE_CALLBACK: {
      pte_error_info e2;
      e2.status = PTE_OK;
      e2.msg[0] = 0;
      pte_status s = src->read(src->ctx, off, dst, n, &e2);
      if (s != PTE_OK)
        return pte_error_set(err, s, "%s: source callback failed at offset %llu%s%s", what, (unsigned long long)off,
                             e2.msg[0] ? ": " : "", e2.msg);
      return PTE_OK;
    }
    default:
      return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "%s: unknown source kind", what);
  }
}

bool pte_wr_source_same(const pte_source *a, const pte_source *b) {
  if (a->kind != b->kind || a->size != b->size) return false;
  switch (a->kind) {
    case PTE_SOURCE_MEMORY: return a->data == b->data;
    case PTE_SOURCE_FD: return a->fd == b->fd && a->offset == b->offset;
    case PTE_SOURCE_PATH: return a->offset == b->offset && a->path && b->path && strcmp(a->path, b->path) == 0;
    case PTE_SOURCE_LOADER: return a->loader == b->loader && a->offset == b->offset;
    default: return false; /* callbacks: never assume */
  }
}

/* ------------------------------------------------------------------ stream */
static const uint8_t k_zero_block[4096];

static bool wr_all_zero(const uint8_t *p, size_t n) {
  while (n >= sizeof k_zero_block) {
    if (memcmp(p, k_zero_block, sizeof k_zero_block) != 0) return false;
    p += sizeof k_zero_block;
    n -= sizeof k_zero_block;
  }
  return n == 0 || memcmp(p, k_zero_block, n) == 0;
}

/* Writes one chunk (skipping an all-zero chunk when sparse and the writer can set its size). */
static pte_status wr_put(pte_data_writer *out, bool sparse, const uint8_t *d, size_t n, uint64_t off,
                         pte_error_info *err) {
  if (sparse && out->vt->set_size && wr_all_zero(d, n)) return PTE_OK;
  return pte_data_writer_write(out, d, n, off, err);
}

typedef struct pte_wr_thread {
  pthread_t th;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  bool busy, quit;
  const uint8_t *data;
  size_t size;
  uint64_t off;
  pte_data_writer *out;
  bool sparse;
  pte_status status;
  pte_error_info err;
} pte_wr_thread;

static void *wr_thread_main(void *arg) {
  pte_wr_thread *t = (pte_wr_thread *)arg;
  pthread_mutex_lock(&t->mu);
  for (;;) {
    while (!t->busy && !t->quit) pthread_cond_wait(&t->cv, &t->mu);
    if (!t->busy) break; /* quit with nothing pending */
    const uint8_t *d = t->data;
    size_t n = t->size;
    uint64_t off = t->off;
    bool failed = t->status != PTE_OK;
    pthread_mutex_unlock(&t->mu);
    pte_error_info e;
    e.status = PTE_OK;
    e.msg[0] = 0;
    pte_status st = failed ? PTE_OK : wr_put(t->out, t->sparse, d, n, off, &e);
    pthread_mutex_lock(&t->mu);
    if (st != PTE_OK && t->status == PTE_OK) {
      t->status = st;
      t->err = e;
      t->err.status = st;
    }
    t->busy = false;
    pthread_cond_broadcast(&t->cv);
  }
  pthread_mutex_unlock(&t->mu);
  return NULL;
}

pte_status pte_wr_stream_init(pte_wr_stream *s, pte_wr_arena *a, size_t cap, bool threaded, pte_error_info *err) {
  memset(s, 0, sizeof *s);
  if (cap < PTE_WR_MIN_BUFFER) cap = PTE_WR_MIN_BUFFER;
  s->whole = (uint8_t *)pte_wr_alloc(a, cap);
  if (!s->whole) return pte_error_set(err, PTE_ERR_MEMORY_ALLOCATION_FAILED, "writer: cannot allocate a %zu-byte buffer", cap);
  s->cap_total = cap;
  s->buf = s->whole;
  s->cap = cap;
  s->threaded = threaded && cap >= 2 * PTE_WR_MIN_BUFFER;
  if (s->threaded) {
    s->thr_mem = (pte_wr_thread *)pte_wr_alloc(a, sizeof *s->thr_mem);
    if (!s->thr_mem) return pte_error_set(err, PTE_ERR_MEMORY_ALLOCATION_FAILED, "writer: out of memory");
  }
  pte_wr_src_cache_init(&s->cache);
  return PTE_OK;
}

pte_status pte_wr_stream_begin(pte_wr_stream *s, pte_data_writer *out, uint64_t total, bool sparse,
                               pte_writer_progress_fn progress, void *progress_ctx, pte_error_info *err) {
  if (!sparse) { /* holes must stay holes: no reservation for sparse output */
    pte_status st = pte_data_writer_reserve(out, total, err);
    if (st != PTE_OK) return st;
  }
  s->out = out;
  s->fill = 0;
  s->buf_off = 0;
  s->total = total;
  s->sparse = sparse;
  s->progress = progress;
  s->progress_ctx = progress_ctx;
  s->buf = s->whole;
  s->cap = s->cap_total;
  pte_wr_stream_end(s, NULL); /* a previous run's thread, if any */
  s->thr = NULL;
  if (s->threaded && s->thr_mem) {
    pte_wr_thread *t = s->thr_mem;
    memset(t, 0, sizeof *t);
    t->out = out;
    t->sparse = sparse;
    bool ok = pthread_mutex_init(&t->mu, NULL) == 0;
    if (ok && pthread_cond_init(&t->cv, NULL) != 0) {
      pthread_mutex_destroy(&t->mu);
      ok = false;
    }
    if (ok && pthread_create(&t->th, NULL, wr_thread_main, t) != 0) {
      pthread_cond_destroy(&t->cv);
      pthread_mutex_destroy(&t->mu);
      ok = false;
    }
    if (ok) {
      s->cap = s->cap_total / 2;
      s->halves[0] = s->whole;
      s->halves[1] = s->whole + s->cap;
      s->cur = 0;
      s->buf = s->halves[0];
      s->thr = t;
    } /* else: write inline */
  }
  return PTE_OK;
}

/* Waits until the thread has nothing in flight; returns its status (copied into err). */
static pte_status wr_thread_wait(pte_wr_thread *t, pte_error_info *err) {
  pthread_mutex_lock(&t->mu);
  while (t->busy) pthread_cond_wait(&t->cv, &t->mu);
  pte_status st = t->status;
  if (st != PTE_OK && err) *err = t->err;
  pthread_mutex_unlock(&t->mu);
  return st;
}

pte_status pte_wr_stream_end(pte_wr_stream *s, pte_error_info *err) {
  pte_wr_thread *t = s->thr;
  if (!t) return PTE_OK;
  pte_status st = wr_thread_wait(t, err);
  pthread_mutex_lock(&t->mu);
  t->quit = true;
  pthread_cond_broadcast(&t->cv);
  pthread_mutex_unlock(&t->mu);
  pthread_join(t->th, NULL);
  pthread_cond_destroy(&t->cv);
  pthread_mutex_destroy(&t->mu);
  s->thr = NULL;
  return st;
}

pte_status pte_wr_stream_flush(pte_wr_stream *s, pte_error_info *err) {
  if (s->fill == 0) return PTE_OK;
  if (s->thr) {
    pte_wr_thread *t = s->thr;
    pthread_mutex_lock(&t->mu);
    while (t->busy) pthread_cond_wait(&t->cv, &t->mu);
    pte_status st = t->status;
    if (st != PTE_OK) {
      if (err) *err = t->err;
      pthread_mutex_unlock(&t->mu);
      return st;
    }
    t->data = s->buf;
    t->size = s->fill;
    t->off = s->buf_off;
    t->busy = true;
    pthread_cond_broadcast(&t->cv);
    pthread_mutex_unlock(&t->mu);
    s->cur ^= 1;
    s->buf = s->halves[s->cur]; /* the previous job on this half finished above */
  } else {
    pte_status st = wr_put(s->out, s->sparse, s->buf, s->fill, s->buf_off, err);
    if (st != PTE_OK) return st;
  }
  s->buf_off += s->fill;
  s->fill = 0;
  if (s->progress) s->progress(s->progress_ctx, s->buf_off, s->total);
  return PTE_OK;
}

pte_status pte_wr_stream_bytes(pte_wr_stream *s, const void *data, size_t n, pte_error_info *err) {
  const uint8_t *p = (const uint8_t *)data;
  while (n > 0) {
    if (s->fill == s->cap) {
      pte_status st = pte_wr_stream_flush(s, err);
      if (st != PTE_OK) return st;
    }
    size_t k = s->cap - s->fill;
    if (k > n) k = n;
    memcpy(s->buf + s->fill, p, k);
    s->fill += k;
    p += k;
    n -= k;
  }
  return PTE_OK;
}

pte_status pte_wr_stream_pad_to(pte_wr_stream *s, uint64_t off, pte_error_info *err) {
  uint64_t pos = pte_wr_stream_pos(s);
  if (off < pos) return pte_error_set(err, PTE_ERR_INTERNAL, "writer: layout went backwards (%llu < %llu)",
                                      (unsigned long long)off, (unsigned long long)pos);
  uint64_t n = off - pos;
  while (n > 0) {
    if (s->fill == s->cap) {
      pte_status st = pte_wr_stream_flush(s, err);
      if (st != PTE_OK) return st;
    }
    size_t k = s->cap - s->fill;
    if ((uint64_t)k > n) k = (size_t)n;
    memset(s->buf + s->fill, 0, k);
    s->fill += k;
    n -= k;
  }
  return PTE_OK;
}

pte_status pte_wr_stream_source(pte_wr_stream *s, const pte_source *src, const char *what, pte_error_info *err) {
  uint64_t done = 0;
  while (done < src->size) {
    if (s->fill == s->cap) {
      pte_status st = pte_wr_stream_flush(s, err);
      if (st != PTE_OK) return st;
    }
    size_t k = s->cap - s->fill;
    if ((uint64_t)k > src->size - done) k = (size_t)(src->size - done);
    pte_status st = pte_wr_source_read(src, done, s->buf + s->fill, k, &s->cache, what, err);
    if (st != PTE_OK) return st;
    s->fill += k;
    done += k;
  }
  return PTE_OK;
}

pte_status pte_wr_stream_finish(pte_wr_stream *s, pte_error_info *err) {
  pte_status st = pte_wr_stream_flush(s, err);
  pte_status st2 = pte_wr_stream_end(s, st == PTE_OK ? err : NULL);
  if (st == PTE_OK) st = st2;
  if (st == PTE_OK && s->out->vt->set_size) st = pte_data_writer_set_size(s->out, s->buf_off, err);
  pte_wr_src_cache_close(&s->cache);
  if (st != PTE_OK) return st;
  return pte_data_writer_publish(s->out, err);
}

/* ------------------------------------------------------------------ dedup */
static inline uint64_t wr_rotl(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

pte_status pte_wr_source_hash(const pte_source *src, uint8_t *buf, size_t cap, pte_wr_src_cache *c, uint64_t *out,
                              pte_error_info *err) {
  uint64_t h = 0x9e3779b97f4a7c15ull ^ src->size;
  uint64_t done = 0;
  cap &= ~(size_t)7;
  while (done < src->size) {
    size_t k = cap;
    if ((uint64_t)k > src->size - done) k = (size_t)(src->size - done);
    pte_status s = pte_wr_source_read(src, done, buf, k, c, "dedup", err);
    if (s != PTE_OK) return s;
    size_t i = 0;
    for (; i + 8 <= k; i += 8) {
      uint64_t w;
      memcpy(&w, buf + i, 8);
      h = wr_rotl(h ^ (w * 0x87c37b91114253d5ull), 31) * 0x4cf5ad432745937full;
    }
    for (; i < k; i++) h = (h ^ buf[i]) * 0x100000001b3ull;
    done += k;
  }
  *out = h ^ (h >> 29);
  return PTE_OK;
}

pte_status pte_wr_source_equal(const pte_source *a, const pte_source *b, uint8_t *buf, size_t cap,
                               pte_wr_src_cache *c, bool *equal, pte_error_info *err) {
  *equal = false;
  if (a->size != b->size) return PTE_OK;
  if (pte_wr_source_same(a, b)) {
    *equal = true;
    return PTE_OK;
  }
  size_t half = cap / 2;
  uint64_t done = 0;
  while (done < a->size) {
    size_t k = half;
    if ((uint64_t)k > a->size - done) k = (size_t)(a->size - done);
    pte_status s = pte_wr_source_read(a, done, buf, k, c, "dedup", err);
    if (s == PTE_OK) s = pte_wr_source_read(b, done, buf + half, k, c, "dedup", err);
    if (s != PTE_OK) return s;
    if (memcmp(buf, buf + half, k) != 0) return PTE_OK;
    done += k;
  }
  *equal = true;
  return PTE_OK;
}

typedef struct wr_sz_idx {
  uint64_t size;
  size_t idx;
} wr_sz_idx;

static int wr_cmp_sz(const void *pa, const void *pb) {
  const wr_sz_idx *a = (const wr_sz_idx *)pa, *b = (const wr_sz_idx *)pb;
  if (a->size != b->size) return a->size < b->size ? -1 : 1;
  return a->idx < b->idx ? -1 : (a->idx > b->idx);
}

pte_status pte_wr_dedup(const pte_source *const *srcs, size_t n, int32_t *canon, pte_wr_arena *a, uint8_t *buf,
                        size_t cap, pte_error_info *err) {
  for (size_t i = 0; i < n; i++) canon[i] = (int32_t)i;
  if (n < 2) return PTE_OK;
  wr_sz_idx *order = (wr_sz_idx *)pte_wr_alloc(a, n * sizeof *order);
  uint64_t *hash = (uint64_t *)pte_wr_alloc(a, n * sizeof *hash);
  bool *hashed = (bool *)pte_wr_alloc(a, n);
  if (!order || !hash || !hashed) return pte_error_set(err, PTE_ERR_MEMORY_ALLOCATION_FAILED, "writer: out of memory");
  for (size_t i = 0; i < n; i++) {
    order[i].size = srcs[i]->size;
    order[i].idx = i;
  }
  qsort(order, n, sizeof *order, wr_cmp_sz);
  pte_wr_src_cache cache;
  pte_wr_src_cache_init(&cache);
  pte_status st = PTE_OK;
  for (size_t g = 0; g < n && st == PTE_OK;) {
    size_t e = g + 1;
    while (e < n && order[e].size == order[g].size) e++;
    if (e - g > 1 && order[g].size > 0) {
      /* members in index order: each is compared with the earlier unique ones */
      for (size_t i = g + 1; i < e && st == PTE_OK; i++) {
        size_t ii = order[i].idx;
        for (size_t j = g; j < i; j++) {
          size_t jj = order[j].idx;
          if (canon[jj] != (int32_t)jj) continue; /* only compare against unique blobs */
          bool eq = pte_wr_source_same(srcs[ii], srcs[jj]);
          if (!eq) {
            if (!hashed[ii]) {
              st = pte_wr_source_hash(srcs[ii], buf, cap, &cache, &hash[ii], err);
              if (st != PTE_OK) break;
              hashed[ii] = true;
            }
            if (!hashed[jj]) {
              st = pte_wr_source_hash(srcs[jj], buf, cap, &cache, &hash[jj], err);
              if (st != PTE_OK) break;
              hashed[jj] = true;
            }
            if (hash[ii] == hash[jj]) st = pte_wr_source_equal(srcs[ii], srcs[jj], buf, cap, &cache, &eq, err);
            if (st != PTE_OK) break;
          }
          if (eq) {
            canon[ii] = (int32_t)jj;
            break;
          }
        }
      }
    }
    g = e;
  }
  pte_wr_src_cache_close(&cache);
  return st;
}

/* ------------------------------------------------------------------ shapes */
pte_status pte_wr_check_shape(int dtype, const int32_t *sizes, size_t dim, const uint8_t *dim_order,
                              uint64_t *nbytes, const char *what, pte_error_info *err) {
  if (!pte_dtype_valid(dtype))
    return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "%s: invalid dtype %d", what, dtype);
  if (dim > PTE_MAX_RANK)
    return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "%s: rank %zu exceeds %d", what, dim, PTE_MAX_RANK);
  if (dim && !sizes) return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "%s: NULL sizes", what);
  uint64_t numel = 1;
  bool overflow = false;
  for (size_t i = 0; i < dim; i++) {
    if (sizes[i] < 0) return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "%s: negative size %d in dim %zu", what, sizes[i], i);
    if (sizes[i] && numel > (uint64_t)INT64_MAX / (uint64_t)sizes[i]) overflow = true;
    else numel *= (uint64_t)sizes[i];
  }
  if (dim_order) {
    unsigned seen = 0;
    for (size_t i = 0; i < dim; i++) {
      if (dim_order[i] >= dim || (seen & (1u << dim_order[i])))
        return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "%s: dim_order is not a permutation of 0..%zu", what,
                             dim ? dim - 1 : 0);
      seen |= 1u << dim_order[i];
    }
  }
  uint64_t es = pte_dtype_size(dtype);
  if (overflow || (es && numel > (uint64_t)INT64_MAX / es))
    return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "%s: numel x element size overflows", what);
  if (nbytes) *nbytes = numel * es;
  return PTE_OK;
}
