/* pte/io.h — data loaders over the operating system (POSIX) and a heap realloc callback.
 *
 * These are the "outside the core" pieces: they call open/pread/fstat/mmap and the C heap. The
 * runtime itself only ever sees a pte_data_loader (pte/data_loader.h).
 *
 *   pte_file_loader   pread()s each requested range into a freshly allocated aligned heap buffer.
 *   pte_mmap_loader   hands out read-only mappings of the file (zero copy).
 *
 * Both loaders are safe for concurrent load()/load_into() calls from several threads (they only
 * use pread and mmap on an fd opened at open time). Neither is safe to close while another thread
 * is still using it.
 *
 * Range rules (both loaders, matching upstream FileDataLoader / MmapDataLoader):
 *   - offset + size past the end of the file        -> PTE_ERR_INVALID_ARGUMENT
 *   - size 0                                        -> PTE_OK with {NULL, 0} (nothing allocated)
 *   - an OS failure (read error, short read, EOF because the file shrank, mmap failure)
 *                                                   -> PTE_ERR_ACCESS_FAILED
 */
#ifndef PTE_IO_H
#define PTE_IO_H

#include <stddef.h>
#include <stdint.h>

#include "pte/data_loader.h"
#include "pte/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Default buffer alignment of the file loader: 64 bytes, a cache line. pte_program_load needs 16
 * (alignof(max_align_t)); 64 lets backends use what they prepared (`pte prepare`: envelope
 * payloads are 128 bytes into their 128-aligned segment) in place from the loaded buffer instead
 * of copying it into aligned memory: one read from the file, no second copy. */
#define PTE_FILE_LOADER_DEFAULT_ALIGNMENT 64

/* ---- File loader ---------------------------------------------------------------------------- */
typedef struct pte_file_loader {
  pte_data_loader base; /* must be first: pass &l->base to the runtime */
  int fd;               /* -1 when closed */
  uint64_t file_size;   /* size at open time (fstat) */
  size_t alignment;     /* power of two; every buffer returned by load() is aligned to it */
} pte_file_loader;

/* Opens `path` read-only and prepares *l. `alignment` is the alignment of buffers returned by
 * load(): a power of two, or 0 for PTE_FILE_LOADER_DEFAULT_ALIGNMENT.
 * Errors: PTE_ERR_INVALID_ARGUMENT (NULL l/path, alignment not a power of two);
 *         PTE_ERR_ACCESS_FAILED (cannot open / stat, path is a directory) with a message naming
 *         the path and the reason ("no such file", "permission denied", "is a directory", ...).
 * On failure *l is left closed (fd -1) and pte_file_loader_close() on it is harmless. */
pte_status pte_file_loader_open(pte_file_loader *l, const char *path, size_t alignment,
                                pte_error_info *err);

/* Like pte_file_loader_open, over an already open file descriptor. The descriptor is dup()ed:
 * the caller keeps ownership of `fd` and may close it right away. Reads use pread, so the fd's
 * file position is neither used nor changed.
 * Errors: PTE_ERR_INVALID_ARGUMENT (fd < 0, bad alignment); PTE_ERR_ACCESS_FAILED (dup/fstat
 * failed, e.g. "bad file descriptor", or the fd is a directory). */
pte_status pte_file_loader_from_fd(pte_file_loader *l, int fd, size_t alignment,
                                   pte_error_info *err);

/* Opens either a plain path or an "fd:///<n>" URI (upstream FileDescriptorDataLoader style: the
 * descriptor number n in decimal; it is dup()ed like pte_file_loader_from_fd).
 * Errors: those of the two functions above; a malformed "fd://" URI is PTE_ERR_INVALID_ARGUMENT. */
pte_status pte_file_loader_open_uri(pte_file_loader *l, const char *path_or_uri, size_t alignment,
                                    pte_error_info *err);

/* Closes the descriptor. Buffers already returned by load() stay valid (they are independent heap
 * allocations released by pte_freeable_buffer_free). Safe on a closed / failed loader. */
void pte_file_loader_close(pte_file_loader *l);

/* ---- Mmap loader ---------------------------------------------------------------------------- */
/* What to do with mapped pages (upstream MmapDataLoader::MlockConfig). */
typedef enum pte_mlock_mode {
  PTE_MLOCK_NONE = 0,          /* plain mapping */
  PTE_MLOCK = 1,               /* mlock() loaded ranges; failure -> PTE_ERR_NOT_SUPPORTED */
  PTE_MLOCK_IGNORE_ERRORS = 2, /* mlock() loaded ranges, ignore failure (e.g. RLIMIT_MEMLOCK) */
  PTE_MADVISE = 3              /* posix_madvise SEQUENTIAL then WILLNEED on loaded ranges */
} pte_mlock_mode;

/* Mapping strategy flags for pte_mmap_loader_open_ex. */
enum {
  /* Map the whole file once at open. load() returns non-owning views into that mapping
   * (free_fn NULL): O(1), no system call per load. Views stay valid until
   * pte_mmap_loader_close(), so the loader must outlive every buffer it handed out (it must
   * outlive the Program anyway). This is the default of pte_mmap_loader_open. If the whole-file
   * mapping cannot be made (e.g. address space on 32-bit) open falls back to PER_LOAD.
   * Measured on a Program-like sequence (open, head, program, segment, 32 small loads, close):
   * ~9 us whole-file vs ~200 us per-load for a 1 KiB .pte (mmap+munmap per load dominates);
   * 2.7 MB .pte: ~270 us vs ~450 us. */
  PTE_MMAP_WHOLE_FILE = 0,
  /* One mapping per load() (upstream behaviour): the buffer owns its mapping, free_fn munmaps it,
   * and it stays valid after pte_mmap_loader_close(). */
  PTE_MMAP_PER_LOAD = 1,
  /* Combine with PTE_MMAP_WHOLE_FILE: pre-fault the whole mapping at open (Linux MAP_POPULATE;
   * elsewhere ignored). Open then costs about one page-table fill of the file (a few ms for
   * 64 MiB from the page cache), and later loads and the first execute touching the data
   * (e.g. prepared, packed weights used in place) take no page faults. */
  PTE_MMAP_POPULATE = 2
};

typedef struct pte_mmap_loader {
  pte_data_loader base; /* must be first */
  int fd;               /* -1 when closed */
  uint64_t file_size;
  size_t page_size;
  pte_mlock_mode mode;
  const uint8_t *map;   /* whole-file mapping, or NULL (per-load mode / empty file) */
  size_t map_size;
} pte_mmap_loader;

/* Opens `path` for mapping with the default strategy (PTE_MMAP_WHOLE_FILE).
 * In-memory alignment of a returned buffer equals the alignment of its file offset modulo the
 * page size (a 128-aligned segment is 128-aligned in memory).
 * Errors: PTE_ERR_INVALID_ARGUMENT (NULL argument, unknown mode); PTE_ERR_ACCESS_FAILED (open,
 * fstat or mmap failed, directory) with the path and reason in the message. With PTE_MLOCK, a
 * failing mlock() makes load() return PTE_ERR_NOT_SUPPORTED. */
pte_status pte_mmap_loader_open(pte_mmap_loader *l, const char *path, pte_mlock_mode mode,
                                pte_error_info *err);

/* As pte_mmap_loader_open with an explicit strategy: PTE_MMAP_WHOLE_FILE or PTE_MMAP_PER_LOAD. */
pte_status pte_mmap_loader_open_ex(pte_mmap_loader *l, const char *path, pte_mlock_mode mode,
                                   unsigned flags, pte_error_info *err);

/* Unmaps the whole-file mapping (if any) and closes the descriptor. In whole-file mode every
 * buffer obtained from load() becomes invalid; in per-load mode they stay valid until freed.
 * Safe on a closed / failed loader. */
void pte_mmap_loader_close(pte_mmap_loader *l);

/* ---- Heap realloc callback ----------------------------------------------------------------- */
/* A pte_fb_realloc_fn-compatible callback over the C heap, for builders and writers:
 * new_size 0 frees `ptr` and returns NULL; otherwise behaves like realloc(ptr, new_size) (NULL
 * on failure, leaving ptr untouched). `ctx` and `old_size` are ignored. */
void *pte_heap_realloc(void *ctx, void *ptr, size_t old_size, size_t new_size);

#ifdef __cplusplus
}
#endif
#endif
