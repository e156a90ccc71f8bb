#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE /* MAP_POPULATE */
/* Mmap loader (POSIX): read-only shared mappings of the file, either one whole-file mapping made
 * at open (default; loads are views) or one mapping per load (upstream MmapDataLoader style). */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "io/io_internal.h"
#include "pte/io.h"

static pte_status mm_check(const pte_mmap_loader *l, uint64_t offset, size_t size) {
  if (offset > l->file_size || (uint64_t)size > l->file_size - offset)
    return PTE_ERR_INVALID_ARGUMENT;
  return PTE_OK;
}

/* Applies the mlock/madvise mode to the page-aligned range [start, start+len). */
static pte_status mm_apply_mode(const pte_mmap_loader *l, void *start, size_t len) {
  switch (l->mode) {
    case PTE_MLOCK:
      if (mlock(start, len) != 0) return PTE_ERR_NOT_SUPPORTED;
      return PTE_OK;
    case PTE_MLOCK_IGNORE_ERRORS:
      (void)mlock(start, len);
      return PTE_OK;
    case PTE_MADVISE:
      (void)posix_madvise(start, len, POSIX_MADV_SEQUENTIAL);
      (void)posix_madvise(start, len, POSIX_MADV_WILLNEED);
      return PTE_OK;
    default:
      return PTE_OK;
  }
}

/* free_fn of per-load buffers. The context carries the page size (no allocation): the mapping
 * start is the data pointer rounded down to a page, its length reaches data + size. */
static void mm_unmap(void *ctx, const void *data, size_t size) {
  uintptr_t ps = (uintptr_t)ctx;
  uintptr_t p = (uintptr_t)data;
  uintptr_t start = p & ~(ps - 1);
  munmap((void *)start, (size_t)(p - start) + size);
}

static pte_status mm_load(const pte_data_loader *self, uint64_t offset, size_t size,
                          const pte_segment_info *info, pte_freeable_buffer *out) {
  (void)info;
  const pte_mmap_loader *l = (const pte_mmap_loader *)self;
  pte_status s = mm_check(l, offset, size);
  if (s != PTE_OK) return s;
  if (size == 0) {
    *out = pte_freeable_buffer_view(NULL, 0);
    return PTE_OK;
  }
  uint64_t page_off = offset & ~(uint64_t)(l->page_size - 1);
  size_t delta = (size_t)(offset - page_off);
  if (size > SIZE_MAX - delta) return PTE_ERR_INVALID_ARGUMENT;
  size_t map_len = delta + size; /* offset+size <= file size: already clamped at EOF */
  if (l->map) {
    uint8_t *pages = (uint8_t *)(uintptr_t)l->map + (size_t)page_off;
    if (l->mode != PTE_MLOCK_NONE) {
      s = mm_apply_mode(l, pages, map_len);
      if (s != PTE_OK) return s;
    }
    *out = pte_freeable_buffer_view(pages + delta, size);
    return PTE_OK;
  }
  if (l->fd < 0) return PTE_ERR_ACCESS_FAILED;
  void *pages = mmap(NULL, map_len, PROT_READ, MAP_SHARED, l->fd, (off_t)page_off);
  if (pages == MAP_FAILED) return PTE_ERR_ACCESS_FAILED;
  s = mm_apply_mode(l, pages, map_len);
  if (s != PTE_OK) {
    munmap(pages, map_len);
    return s;
  }
  out->data = (const uint8_t *)pages + delta;
  out->size = size;
  out->free_fn = mm_unmap;
  out->free_ctx = (void *)(uintptr_t)l->page_size;
  return PTE_OK;
}

static pte_status mm_load_into(const pte_data_loader *self, uint64_t offset, size_t size,
                               const pte_segment_info *info, void *dst) {
  (void)info;
  const pte_mmap_loader *l = (const pte_mmap_loader *)self;
  pte_status s = mm_check(l, offset, size);
  if (s != PTE_OK) return s;
  if (size == 0) return PTE_OK;
  if (!dst) return PTE_ERR_INVALID_ARGUMENT;
  if (l->map) {
    memcpy(dst, l->map + (size_t)offset, size);
    return PTE_OK;
  }
  return pte_io_pread_all(l->fd, dst, size, offset);
}

static pte_status mm_size(const pte_data_loader *self, uint64_t *out) {
  *out = ((const pte_mmap_loader *)self)->file_size;
  return PTE_OK;
}

static const pte_data_loader_vtable mmap_vt = {mm_load, mm_load_into, mm_size};

pte_status pte_mmap_loader_open_ex(pte_mmap_loader *l, const char *path, pte_mlock_mode mode,
                                   unsigned flags, pte_error_info *err) {
  if (!l) return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "mmap loader: NULL loader");
  l->base.vt = &mmap_vt;
  l->fd = -1;
  l->file_size = 0;
  l->map = NULL;
  l->map_size = 0;
  l->mode = mode;
  long ps = sysconf(_SC_PAGESIZE);
  l->page_size = ps > 0 && ((unsigned long)ps & ((unsigned long)ps - 1)) == 0 ? (size_t)ps : 4096;
  if (!path) return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "mmap loader: NULL path");
  if ((unsigned)mode > (unsigned)PTE_MADVISE)
    return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "mmap loader: unknown mlock mode %d",
                         (int)mode);
  if ((flags & ~(unsigned)(PTE_MMAP_PER_LOAD | PTE_MMAP_POPULATE)) != 0 ||
      (flags & PTE_MMAP_PER_LOAD && flags & PTE_MMAP_POPULATE))
    return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "mmap loader: unknown or conflicting flags 0x%x", flags);
  pte_status s = pte_io_open_file(path, &l->fd, &l->file_size, err);
  if (s != PTE_OK) return s;
  if (!(flags & PTE_MMAP_PER_LOAD) && l->file_size > 0 && l->file_size <= (uint64_t)SIZE_MAX) {
    int mflags = MAP_SHARED;
#ifdef MAP_POPULATE
    if (flags & PTE_MMAP_POPULATE) mflags |= MAP_POPULATE;
#endif
    void *m = mmap(NULL, (size_t)l->file_size, PROT_READ, mflags, l->fd, 0);
    if (m != MAP_FAILED) { /* on failure: fall back to per-load mappings */
      l->map = (const uint8_t *)m;
      l->map_size = (size_t)l->file_size;
    }
  }
  return PTE_OK;
}

pte_status pte_mmap_loader_open(pte_mmap_loader *l, const char *path, pte_mlock_mode mode,
                                pte_error_info *err) {
  return pte_mmap_loader_open_ex(l, path, mode, PTE_MMAP_WHOLE_FILE, err);
}

void pte_mmap_loader_close(pte_mmap_loader *l) {
  if (!l) return;
  if (l->map) munmap((void *)(uintptr_t)l->map, l->map_size);
  l->map = NULL;
  l->map_size = 0;
  if (l->fd >= 0) close(l->fd);
  l->fd = -1;
}
