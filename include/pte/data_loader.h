/* pte/data_loader.h — where program bytes come from.
 *
 * A pte_data_loader is a small vtable (SQLite-VFS style): the runtime asks it for byte ranges of
 * the file and never touches files itself. Three loaders ship with pte (see pte/io.h): a buffer
 * loader (bytes already in memory; core, no OS calls), a file loader (pread into aligned memory)
 * and an mmap loader. Users can write their own (flash, network, encrypted storage...).
 *
 * Loaders must be thread-safe for concurrent load()/load_into() calls.
 */
#ifndef PTE_DATA_LOADER_H
#define PTE_DATA_LOADER_H

#include <stddef.h>
#include <stdint.h>

#include "pte/freeable_buffer.h"
#include "pte/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Why a range is loaded (upstream SegmentInfo::Type values). */
typedef enum pte_segment_type {
  PTE_SEGMENT_PROGRAM = 0,
  PTE_SEGMENT_CONSTANT = 1,
  PTE_SEGMENT_BACKEND = 2,
  PTE_SEGMENT_MUTABLE = 3,
  PTE_SEGMENT_EXTERNAL = 4
} pte_segment_type;

typedef struct pte_segment_info {
  pte_segment_type type;
  size_t segment_index;
  const char *descriptor; /* backend id for PTE_SEGMENT_BACKEND, else NULL */
} pte_segment_info;

typedef struct pte_data_loader pte_data_loader;

typedef struct pte_data_loader_vtable {
  /* Returns bytes [offset, offset+size) in *out. A range past the end is
   * PTE_ERR_INVALID_ARGUMENT; PTE_ERR_ACCESS_FAILED is for OS failures (a file that shrank after
   * open, a failed read or mapping). size 0 gives {NULL, 0}. */
  pte_status (*load)(const pte_data_loader *self, uint64_t offset, size_t size,
                     const pte_segment_info *info, pte_freeable_buffer *out);
  /* Copies bytes [offset, offset+size) into dst. May be NULL (then load + memcpy is used). */
  pte_status (*load_into)(const pte_data_loader *self, uint64_t offset, size_t size,
                          const pte_segment_info *info, void *dst);
  /* Total size in bytes of the underlying data. */
  pte_status (*size)(const pte_data_loader *self, uint64_t *out_size);
} pte_data_loader_vtable;

struct pte_data_loader {
  const pte_data_loader_vtable *vt;
};

/* Convenience wrappers (they validate arguments and fall back to load+copy for load_into). */
pte_status pte_data_loader_load(const pte_data_loader *l, uint64_t offset, size_t size,
                                const pte_segment_info *info, pte_freeable_buffer *out);
pte_status pte_data_loader_load_into(const pte_data_loader *l, uint64_t offset, size_t size,
                                     const pte_segment_info *info, void *dst);
pte_status pte_data_loader_size(const pte_data_loader *l, uint64_t *out_size);
/* Deprecated names, kept so existing code compiles: */
#define pte_loader_load pte_data_loader_load
#define pte_loader_load_into pte_data_loader_load_into
#define pte_loader_size pte_data_loader_size

/* ---- Buffer loader (core: no OS calls, no allocation) ---------------------------------------
 * Views caller-owned bytes. For pte_program_load the bytes must be 16-byte aligned. */
typedef struct pte_buffer_loader {
  pte_data_loader base; /* must be first */
  const uint8_t *data;
  size_t size;
} pte_buffer_loader;

void pte_buffer_loader_init(pte_buffer_loader *l, const void *data, size_t size);

/* ---- Window loader (core: no OS calls, no allocation) ---------------------------------------
 * Presents bytes [offset, offset+size) of another loader as a loader of its own: offset 0 of the
 * window is `offset` of `inner`. Used to load the program embedded in a bundled program (.bpte)
 * without copying. Loads are forwarded to `inner` (so buffers keep inner's ownership rules and
 * alignment: a window at a 32-aligned inner offset keeps mmap/buffer alignment); a range past the
 * window's end is PTE_ERR_INVALID_ARGUMENT. `inner` must outlive the window. Thread-safe when
 * `inner` is. */
typedef struct pte_window_loader {
  pte_data_loader base; /* must be first */
  const pte_data_loader *inner;
  uint64_t offset;
  uint64_t size;
} pte_window_loader;

/* Initialises *w. Errors: PTE_ERR_INVALID_ARGUMENT (NULL w/inner, offset + size overflows or
 * exceeds the inner loader's size); any error of the inner loader's size(). */
pte_status pte_window_loader_init(pte_window_loader *w, const pte_data_loader *inner,
                                  uint64_t offset, uint64_t size);

#ifdef __cplusplus
}
#endif
#endif
