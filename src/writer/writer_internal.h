/* writer_internal.h — shared machinery of the .pte and .ptd writers (internal).
 *
 *   wr_arena    bump allocator over the caller's realloc callback; everything a builder copies
 *               (strings, arrays, growable vectors) lives there and is freed at once.
 *   wr_vec      growable array inside an arena.
 *   sources     reading a pte_source range (memory, fd, path, loader, callback).
 *   wr_stream   the one bounded buffer every output byte goes through: sequential, large
 *               writes to a pte_data_writer, optional hole punching for zero runs, progress.
 *   dedup       content hash + byte compare of sources through the stream buffer.
 */
#ifndef PTE_WRITER_INTERNAL_H
#define PTE_WRITER_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pte/data_writer.h"
#include "pte/status.h"
#include "pte/writer.h"

#define PTE_WR_DEFAULT_BUFFER ((size_t)4 << 20)
#define PTE_WR_MIN_BUFFER ((size_t)4096)

/* ------------------------------------------------------------------ arena */
typedef struct pte_wr_block {
  struct pte_wr_block *next;
  size_t size; /* total bytes of this block including the header */
} pte_wr_block;

typedef struct pte_wr_arena {
  pte_writer_realloc_fn fn;
  void *ctx;
  pte_wr_block *blocks;
  uint8_t *cur;
  size_t left;
  uint64_t total; /* bytes obtained from the callback */
} pte_wr_arena;

void pte_wr_arena_init(pte_wr_arena *a, pte_writer_realloc_fn fn, void *ctx);
void pte_wr_arena_free(pte_wr_arena *a);
/* 16-aligned, zeroed; NULL on failure. */
void *pte_wr_alloc(pte_wr_arena *a, size_t size);
void *pte_wr_memdup(pte_wr_arena *a, const void *p, size_t size);
char *pte_wr_strdup(pte_wr_arena *a, const char *s); /* NULL s -> NULL */
char *pte_wr_strndup(pte_wr_arena *a, const char *s, size_t len);

typedef struct pte_wr_vec {
  void *data;
  size_t n, cap;
} pte_wr_vec;

/* Appends one zeroed element of elem_size bytes; returns it (NULL on allocation failure). */
void *pte_wr_vec_push(pte_wr_arena *a, pte_wr_vec *v, size_t elem_size);
#define PTE_WR_AT(vec, type, i) (((type *)(vec).data)[i])

/* ------------------------------------------------------------------ helpers */
static inline bool pte_wr_pow2(uint64_t x) { return x && !(x & (x - 1)); }
static inline uint64_t pte_wr_align(uint64_t x, uint64_t a) { return a <= 1 ? x : (x + a - 1) / a * a; }
uint64_t pte_wr_lcm(uint64_t a, uint64_t b);
void *pte_wr_default_realloc(void *ctx, void *ptr, size_t old_size, size_t new_size);

/* ------------------------------------------------------------------ sources */
/* Per-write cache of opened PATH sources. */
typedef struct pte_wr_src_cache {
  const char *path; /* path currently open */
  int fd;
} pte_wr_src_cache;

void pte_wr_src_cache_init(pte_wr_src_cache *c);
void pte_wr_src_cache_close(pte_wr_src_cache *c);

/* Checks a source when it is added (kind valid, memory pointer present, file/loader range inside
 * the file as it is now). `what` names it in messages. */
pte_status pte_wr_source_check(const pte_source *src, const char *what, pte_error_info *err);
/* Copies a source description into the arena (PATH strings are duplicated). */
pte_status pte_wr_source_copy(pte_wr_arena *a, const pte_source *src, pte_source *out, pte_error_info *err);
/* Reads [off, off + n) of a source. */
pte_status pte_wr_source_read(const pte_source *src, uint64_t off, void *dst, size_t n, pte_wr_src_cache *c,
                              const char *what, pte_error_info *err);
/* Same bytes without reading (same memory span, same fd/path/loader range). */
bool pte_wr_source_same(const pte_source *a, const pte_source *b);

/* ------------------------------------------------------------------ stream */
struct pte_wr_thread;

/* With a writer thread the buffer is split in two halves: the caller fills one while the thread
 * writes the other (generation/reading overlaps the system calls; memory stays `cap`). */
typedef struct pte_wr_stream {
  pte_data_writer *out;
  uint8_t *buf;     /* half being filled (or the whole buffer without a thread) */
  size_t cap;       /* capacity of buf */
  size_t fill;
  uint64_t buf_off; /* file offset of buf[0] */
  uint64_t total;   /* expected final size (progress) */
  bool sparse;
  pte_writer_progress_fn progress;
  void *progress_ctx;
  pte_wr_src_cache cache;
  uint8_t *whole;   /* the allocation (cap_total bytes) */
  size_t cap_total;
  uint8_t *halves[2];
  int cur;
  bool threaded;
  struct pte_wr_thread *thr;     /* running writer thread, or NULL */
  struct pte_wr_thread *thr_mem; /* its state (allocated at init when threaded) */
} pte_wr_stream;

/* The buffer comes from the arena (so it is freed with the builder). `threaded`: use a writer
 * thread (falls back to writing inline if the thread cannot be started). */
pte_status pte_wr_stream_init(pte_wr_stream *s, pte_wr_arena *a, size_t cap, bool threaded, pte_error_info *err);
/* Starts a write of `total` bytes: reserves the space in `out` (unless sparse) and starts the
 * writer thread. */
pte_status pte_wr_stream_begin(pte_wr_stream *s, pte_data_writer *out, uint64_t total, bool sparse,
                               pte_writer_progress_fn progress, void *progress_ctx, pte_error_info *err);
/* Stops the writer thread (waiting for its current write); safe to call any number of times and
 * on every error path. Returns the thread's first error (or PTE_OK). */
pte_status pte_wr_stream_end(pte_wr_stream *s, pte_error_info *err);
static inline uint64_t pte_wr_stream_pos(const pte_wr_stream *s) { return s->buf_off + s->fill; }
pte_status pte_wr_stream_bytes(pte_wr_stream *s, const void *data, size_t n, pte_error_info *err);
/* Zero bytes up to absolute offset `off` (>= the current position). */
pte_status pte_wr_stream_pad_to(pte_wr_stream *s, uint64_t off, pte_error_info *err);
pte_status pte_wr_stream_source(pte_wr_stream *s, const pte_source *src, const char *what, pte_error_info *err);
pte_status pte_wr_stream_flush(pte_wr_stream *s, pte_error_info *err);
/* Flushes, sets the final size and publishes. */
pte_status pte_wr_stream_finish(pte_wr_stream *s, pte_error_info *err);

/* ------------------------------------------------------------------ dedup */
/* 64-bit content hash of a source (reads it through buf). */
pte_status pte_wr_source_hash(const pte_source *src, uint8_t *buf, size_t cap, pte_wr_src_cache *c, uint64_t *out,
                              pte_error_info *err);
/* Byte equality of two sources of equal size (reads both through the two halves of buf). */
pte_status pte_wr_source_equal(const pte_source *a, const pte_source *b, uint8_t *buf, size_t cap,
                               pte_wr_src_cache *c, bool *equal, pte_error_info *err);

/* Dedup over a list of sources: canon[i] = the first j <= i with identical bytes (j == i when
 * unique). Sources of size 0 are never merged. Uses `buf` as scratch. */
pte_status pte_wr_dedup(const pte_source *const *srcs, size_t n, int32_t *canon, pte_wr_arena *a, uint8_t *buf,
                        size_t cap, pte_error_info *err);

/* Shape checks shared by the program and .ptd writers: dtype, rank, sizes, dim_order, nbytes. */
pte_status pte_wr_check_shape(int dtype, const int32_t *sizes, size_t dim, const uint8_t *dim_order,
                              uint64_t *nbytes, const char *what, pte_error_info *err);

#endif
