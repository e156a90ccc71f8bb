/* pte/data_writer.h — where written files go (the output side of pte_data_loader).
 *
 * A pte_data_writer is a small vtable. Writers (the program writer, the .ptd writer, `pte
 * prepare`) put bytes at absolute offsets of an *unpublished* output; nothing is visible at the
 * destination until publish() succeeds. Destroying a writer that was not published discards
 * everything it wrote, so a failed write never leaves a partial file behind.
 *
 *   pte_file_writer fw;
 *   pte_file_writer_open(&fw, "out.pte", NULL, &err);       // temp file next to out.pte
 *   pte_data_writer_write(&fw.base, bytes, n, 0, &err);       // ... any number of writes
 *   pte_data_writer_publish(&fw.base, &err);                  // fsync, rename, fsync(dir)
 *   pte_data_writer_destroy(&fw.base);                        // always (discards if unpublished)
 *
 * Two implementations ship with pte:
 *   pte_file_writer    temp file in the destination's directory, pwrite, fsync + rename +
 *                      directory fsync on publish, an advisory lock against concurrent writers of
 *                      the same destination (src/io/data_writer_file.c, POSIX).
 *   pte_memory_writer  a growable (realloc callback) or fixed caller buffer, for tests and
 *                      embedded use (src/io/data_writer_memory.c; no OS calls).
 * Users can implement their own (flash partitions, network...).
 *
 * Thread safety: a writer is used by one thread at a time.
 */
#ifndef PTE_DATA_WRITER_H
#define PTE_DATA_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pte/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pte_data_writer pte_data_writer;

typedef struct pte_data_writer_vtable {
  /* Writes `size` bytes at absolute `offset` of the unpublished output. Bytes never written
   * (gaps) read as zero. Must not be called after publish. */
  pte_status (*write)(pte_data_writer *self, const void *data, size_t size, uint64_t offset,
                      pte_error_info *err);
  /* Sets the output's final length: grows with zero bytes (a hole in files) or truncates. May be
   * NULL (then the writer only grows through write()). Writers call it before streaming so that
   * unwritten all-zero ranges need no write at all. */
  pte_status (*set_size)(pte_data_writer *self, uint64_t size, pte_error_info *err);
  /* Makes the output visible at its destination (atomically for files). After success further
   * writes fail with PTE_ERR_INVALID_STATE. */
  pte_status (*publish)(pte_data_writer *self, pte_error_info *err);
  /* Releases the writer; discards the output if it was not published. Never fails. */
  void (*destroy)(pte_data_writer *self);
  /* Hint that the output will be `size` bytes: reserve the space now, so a full disk fails here,
   * before anything is streamed, and the file system can allocate contiguously. Does not change
   * the output's final length. May be NULL (nothing reserved). Writers call it before streaming
   * (not for sparse output, whose holes must stay unallocated). Initialise vtables with
   * designated initializers: hooks are only ever appended at the end. */
  pte_status (*reserve)(pte_data_writer *self, uint64_t size, pte_error_info *err);
} pte_data_writer_vtable;

struct pte_data_writer {
  const pte_data_writer_vtable *vt;
};

/* Convenience wrappers (they validate arguments: NULL writer, NULL data with size > 0, an offset
 * + size that overflows 64 bits -> PTE_ERR_INVALID_ARGUMENT). set_size on a writer without the
 * hook is PTE_ERR_NOT_SUPPORTED. destroy(NULL) is a no-op. */
pte_status pte_data_writer_write(pte_data_writer *w, const void *data, size_t size, uint64_t offset,
                                 pte_error_info *err);
pte_status pte_data_writer_set_size(pte_data_writer *w, uint64_t size, pte_error_info *err);
/* Calls the reserve hook; PTE_OK when the writer has none. */
pte_status pte_data_writer_reserve(pte_data_writer *w, uint64_t size, pte_error_info *err);
pte_status pte_data_writer_publish(pte_data_writer *w, pte_error_info *err);
void pte_data_writer_destroy(pte_data_writer *w);

/* ---- Memory writer (no OS calls) ---------------------------------------------------------------
 * Growable: bytes live in a block obtained from a realloc-style callback (pte_heap_realloc from
 * pte/io.h, or an arena); `max_size` bounds the growth (0 = no bound).
 * Fixed: writes go into a caller buffer of `capacity` bytes; nothing is allocated.
 * The bytes stay readable (pte_memory_writer_data) before and after publish; destroy releases a
 * growable block (a fixed buffer is the caller's). "Discarding" an unpublished memory writer just
 * means destroy() frees it. */
typedef void *(*pte_writer_realloc_fn)(void *ctx, void *ptr, size_t old_size, size_t new_size);

typedef struct pte_memory_writer {
  pte_data_writer base; /* must be first */
  /* private */
  pte_writer_realloc_fn realloc_fn; /* NULL for a fixed buffer */
  void *realloc_ctx;
  uint8_t *data;
  size_t size;     /* output length (highest byte written or set_size) */
  size_t capacity; /* bytes available at data */
  size_t max_size;
  bool published;
  bool destroyed;
} pte_memory_writer;

/* Growable memory writer. Errors: PTE_ERR_INVALID_ARGUMENT (NULL w or realloc_fn).
 * Writes past max_size (or past SIZE_MAX) fail with PTE_ERR_OUT_OF_RESOURCES; a failed
 * allocation is PTE_ERR_MEMORY_ALLOCATION_FAILED. */
pte_status pte_memory_writer_init(pte_memory_writer *w, pte_writer_realloc_fn realloc_fn, void *ctx,
                                  size_t max_size);
/* Fixed-buffer memory writer over buf[0..capacity). Writes past capacity fail with
 * PTE_ERR_OUT_OF_RESOURCES. Errors: PTE_ERR_INVALID_ARGUMENT (NULL w, NULL buf with capacity > 0). */
pte_status pte_memory_writer_init_fixed(pte_memory_writer *w, void *buf, size_t capacity);
/* The bytes written so far and their length (valid until the next write / destroy). */
const uint8_t *pte_memory_writer_data(const pte_memory_writer *w, size_t *size);
bool pte_memory_writer_published(const pte_memory_writer *w);

/* ---- File writer (POSIX) -------------------------------------------------------------------- */
typedef enum pte_file_writer_lock {
  PTE_FILE_LOCK_FAIL_FAST = 0, /* a second writer of the same destination fails at once */
  PTE_FILE_LOCK_WAIT = 1,      /* wait up to lock_timeout_ms for the other writer to finish */
  PTE_FILE_LOCK_NONE = 2       /* no locking (the caller guarantees exclusivity) */
} pte_file_writer_lock;

typedef struct pte_file_writer_options {
  /* The destination may already exist and is then replaced atomically (its permission bits are
   * kept). false: an existing destination is an error (PTE_ERR_INVALID_STATE), checked at open
   * and again at publish. Default (NULL options): true. */
  bool replace_existing;
  pte_file_writer_lock lock;     /* default FAIL_FAST */
  uint32_t lock_timeout_ms;      /* for PTE_FILE_LOCK_WAIT; 0 = wait forever */
  bool no_fsync;                 /* skip the data and directory fsync (tests, scratch output) */
  bool no_preallocate;           /* do not preallocate (see below) */
  uint32_t mode;                 /* permission bits of a new file (default 0666, minus umask) */
} pte_file_writer_options;

/* Defaults: replace_existing true, FAIL_FAST, fsync on, mode 0666. */
void pte_file_writer_options_init(pte_file_writer_options *o);

typedef struct pte_file_writer {
  pte_data_writer base; /* must be first */
  /* private */
  int fd;                /* temp file, -1 when closed */
  int lock_fd;           /* lock file, -1 when not held */
  char *dest;            /* heap copies (malloc) */
  char *temp;
  char *lock_path;
  uint64_t size;         /* highest byte written / set_size */
  uint64_t alloc_end;    /* preallocated up to here (may exceed size until publish) */
  bool prealloc_off;     /* preallocation unsupported here, or disabled by an option */
  pte_file_writer_options opt;
  bool published;
  uint64_t wb_from;      /* sequential output not yet handed to early writeback: [wb_from, wb_next) */
  uint64_t wb_next;
  int live_slot;         /* slot in the registry of live temp files (signal cleanup), -1 none */
  int live_lock_slot;    /* slot in the registry of held lock files, -1 none */
} pte_file_writer;

/* Prepares writing `dest_path`: takes the advisory lock (file "<dir>/.<name>.lock", removed when
 * released), checks the destination (replace_existing), and creates the temp file
 * "<dir>/.<name>.<pid>.<n>.tmp" in the destination's directory (same file system, so publish can
 * rename). Errors (message names the path and reason):
 *   PTE_ERR_INVALID_ARGUMENT  NULL w/path, empty path, path is a directory, bad options
 *   PTE_ERR_INVALID_STATE     another writer holds the destination's lock ("is being written by
 *                             another process/writer"), or the destination exists and
 *                             replace_existing is false
 *   PTE_ERR_ACCESS_FAILED     the directory is missing or not writable, lock/temp file creation
 *                             failed
 * On failure nothing is left behind and pte_data_writer_destroy(&w->base) is harmless. */
pte_status pte_file_writer_open(pte_file_writer *w, const char *dest_path,
                                const pte_file_writer_options *opt, pte_error_info *err);
/* (After creating its temp file, open also removes the temp files ".<name>.<pid>.<n>.tmp" an earlier
 * writer of the same destination left when it was killed: under the lock all of them, without a
 * lock only those whose process is gone.) */

/* Removes the temp files of writers of dest_path except `keep` (may be NULL): every one when
 * any_pid (call it holding the destination's lock), else only those of processes that no longer
 * exist. Returns how many were removed. */
size_t pte_file_writer_remove_stale_temps(const char *dest_path, const char *keep, bool any_pid);

/* For programs (the CLI): on SIGINT, SIGTERM and SIGHUP, remove the temp and lock files of every
 * file writer of this process that has not published, then die of the signal as before. Signals the
 * process ignores stay ignored. Call once at start-up; PTE_ERR_INTERNAL if sigaction fails. */
pte_status pte_file_writer_install_signal_cleanup(void);

/* Preallocation (unless no_preallocate): reserve(size) posix_fallocate()s the whole range up
 * front; without it, writes that append sequentially reserve space ahead of themselves in steps
 * of 64 MiB (or 1/8 of what was written, if larger). Either way file systems with delayed
 * allocation (ext4) allocate large extents and a full disk is reported early ("no space left on
 * device" -> PTE_ERR_ACCESS_FAILED). Writes that skip ahead (holes) never trigger it, so sparse
 * output stays sparse; publish truncates to the highest byte written (or set_size). File systems
 * without native fallocate are tolerated (it is then not used).
 * Write errors: PTE_ERR_ACCESS_FAILED (pwrite failed, e.g. "No space left on device"),
 * PTE_ERR_INVALID_STATE after publish. Publish: fsync(temp), fchmod, rename(temp, dest),
 * fsync(directory); errors PTE_ERR_ACCESS_FAILED (the temp file is removed, the destination is
 * untouched) or PTE_ERR_INVALID_STATE (destination appeared and replace_existing is false). */

#ifdef __cplusplus
}
#endif
#endif
