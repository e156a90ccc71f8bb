#define _POSIX_C_SOURCE 200809L
/* File loader: pread() into aligned heap buffers (POSIX). Also the shared io helpers. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "io/io_internal.h"
#include "pte/io.h"

/* ------------------------------------------------------------------ shared helpers */
const char *pte_io_errno_text(int e) {
  switch (e) {
    case ENOENT: return "no such file";
    case EACCES: return "permission denied";
    case EPERM: return "operation not permitted";
    case EISDIR: return "is a directory";
    case ENOTDIR: return "a path component is not a directory";
    case ELOOP: return "too many symbolic links";
    case ENAMETOOLONG: return "file name too long";
    case EMFILE: return "too many open files";
    case ENFILE: return "too many open files in system";
    case ENOMEM: return "out of memory";
    case EBADF: return "bad file descriptor";
    case EINVAL: return "invalid argument";
    case EIO: return "I/O error";
    case ENXIO: return "no such device or address";
    case ENODEV: return "no such device";
    case EOVERFLOW: return "file too large";
    case EFBIG: return "file too large";
    case ETXTBSY: return "text file busy";
    case EAGAIN: return "resource temporarily unavailable";
    case EINTR: return "interrupted";
    default: return NULL;
  }
}

pte_status pte_io_fail(pte_error_info *err, const char *what, const char *path, int e) {
  const char *why = pte_io_errno_text(e);
  if (why) return pte_error_set(err, PTE_ERR_ACCESS_FAILED, "%s '%s': %s", what, path, why);
  return pte_error_set(err, PTE_ERR_ACCESS_FAILED, "%s '%s': errno %d", what, path, e);
}

pte_status pte_io_pread_all(int fd, void *dst, size_t size, uint64_t offset) {
  uint8_t *p = (uint8_t *)dst;
  while (size > 0) {
    size_t chunk = size > (size_t)INT32_MAX ? (size_t)INT32_MAX : size;
    if (offset > (uint64_t)INT64_MAX - chunk) return PTE_ERR_ACCESS_FAILED;
    ssize_t n = pread(fd, p, chunk, (off_t)offset);
    if (n < 0) {
      if (errno == EINTR) continue;
      return PTE_ERR_ACCESS_FAILED;
    }
    if (n == 0) return PTE_ERR_ACCESS_FAILED; /* EOF: the file shrank */
    p += (size_t)n;
    size -= (size_t)n;
    offset += (uint64_t)n;
  }
  return PTE_OK;
}

static pte_status stat_fd(int fd, uint64_t *size, const char *name, pte_error_info *err) {
  struct stat st;
  if (fstat(fd, &st) != 0) return pte_io_fail(err, "cannot stat", name, errno);
  if (S_ISDIR(st.st_mode)) return pte_io_fail(err, "cannot read", name, EISDIR);
  *size = st.st_size > 0 ? (uint64_t)st.st_size : 0;
  return PTE_OK;
}

pte_status pte_io_open_file(const char *path, int *fd, uint64_t *size, pte_error_info *err) {
  int f;
  do {
    f = open(path, O_RDONLY | O_CLOEXEC);
  } while (f < 0 && errno == EINTR);
  if (f < 0) return pte_io_fail(err, "cannot open", path, errno);
  pte_status s = stat_fd(f, size, path, err);
  if (s != PTE_OK) {
    close(f);
    return s;
  }
  *fd = f;
  return PTE_OK;
}

pte_status pte_io_dup_fd(int fd, int *out_fd, uint64_t *size, pte_error_info *err) {
  int f = fcntl(fd, F_DUPFD_CLOEXEC, 0);
  if (f < 0) {
    int e = errno;
    return pte_error_set(err, PTE_ERR_ACCESS_FAILED, "cannot duplicate fd %d: %s", fd,
                         pte_io_errno_text(e) ? pte_io_errno_text(e) : "error");
  }
  pte_status s = stat_fd(f, size, "fd", err);
  if (s != PTE_OK) {
    close(f);
    return s;
  }
  *out_fd = f;
  return PTE_OK;
}

/* ------------------------------------------------------------------ file loader */
static pte_status fl_check(const pte_file_loader *l, uint64_t offset, size_t size) {
  if (offset > l->file_size || (uint64_t)size > l->file_size - offset)
    return PTE_ERR_INVALID_ARGUMENT;
  return PTE_OK;
}

static void fl_free(void *ctx, const void *data, size_t size) {
  (void)ctx;
  (void)size;
  free((void *)(uintptr_t)data);
}

static pte_status fl_load(const pte_data_loader *self, uint64_t offset, size_t size,
                          const pte_segment_info *info, pte_freeable_buffer *out) {
  (void)info;
  const pte_file_loader *l = (const pte_file_loader *)self;
  pte_status s = fl_check(l, offset, size);
  if (s != PTE_OK) return s;
  if (size == 0) {
    *out = pte_freeable_buffer_view(NULL, 0);
    return PTE_OK;
  }
  size_t align = l->alignment < sizeof(void *) ? sizeof(void *) : l->alignment;
  void *p = NULL;
  if (posix_memalign(&p, align, size) != 0 || !p) return PTE_ERR_MEMORY_ALLOCATION_FAILED;
  s = pte_io_pread_all(l->fd, p, size, offset);
  if (s != PTE_OK) {
    free(p);
    return s;
  }
  out->data = p;
  out->size = size;
  out->free_fn = fl_free;
  out->free_ctx = NULL;
  return PTE_OK;
}

static pte_status fl_load_into(const pte_data_loader *self, uint64_t offset, size_t size,
                               const pte_segment_info *info, void *dst) {
  (void)info;
  const pte_file_loader *l = (const pte_file_loader *)self;
  pte_status s = fl_check(l, offset, size);
  if (s != PTE_OK) return s;
  if (size == 0) return PTE_OK;
  if (!dst) return PTE_ERR_INVALID_ARGUMENT;
  return pte_io_pread_all(l->fd, dst, size, offset);
}

static pte_status fl_size(const pte_data_loader *self, uint64_t *out) {
  *out = ((const pte_file_loader *)self)->file_size;
  return PTE_OK;
}

static const pte_data_loader_vtable file_vt = {fl_load, fl_load_into, fl_size};

static pte_status fl_prepare(pte_file_loader *l, size_t alignment, pte_error_info *err) {
  l->base.vt = &file_vt;
  l->fd = -1;
  l->file_size = 0;
  if (alignment == 0) alignment = PTE_FILE_LOADER_DEFAULT_ALIGNMENT;
  l->alignment = alignment;
  if ((alignment & (alignment - 1)) != 0)
    return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT,
                         "file loader alignment %zu is not a power of two", alignment);
  return PTE_OK;
}

pte_status pte_file_loader_open(pte_file_loader *l, const char *path, size_t alignment,
                                pte_error_info *err) {
  if (!l) return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "file loader: NULL loader");
  pte_status s = fl_prepare(l, alignment, err);
  if (s != PTE_OK) return s;
  if (!path) return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "file loader: NULL path");
  return pte_io_open_file(path, &l->fd, &l->file_size, err);
}

pte_status pte_file_loader_from_fd(pte_file_loader *l, int fd, size_t alignment,
                                   pte_error_info *err) {
  if (!l) return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "file loader: NULL loader");
  pte_status s = fl_prepare(l, alignment, err);
  if (s != PTE_OK) return s;
  if (fd < 0)
    return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "file loader: invalid fd %d", fd);
  return pte_io_dup_fd(fd, &l->fd, &l->file_size, err);
}

pte_status pte_file_loader_open_uri(pte_file_loader *l, const char *path_or_uri, size_t alignment,
                                    pte_error_info *err) {
  static const char prefix[] = "fd:///";
  if (path_or_uri && strncmp(path_or_uri, "fd://", 5) == 0) {
    if (!l) return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "file loader: NULL loader");
    pte_status s = fl_prepare(l, alignment, err);
    if (s != PTE_OK) return s;
    const char *p = path_or_uri + sizeof prefix - 1;
    long v = 0;
    int ok = strncmp(path_or_uri, prefix, sizeof prefix - 1) == 0 && *p != '\0';
    for (; ok && *p; ++p) {
      if (*p < '0' || *p > '9') ok = 0;
      else if ((v = v * 10 + (*p - '0')) > INT_MAX) ok = 0;
    }
    if (!ok)
      return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT,
                           "malformed fd URI '%s' (expected fd:///<n>)", path_or_uri);
    return pte_file_loader_from_fd(l, (int)v, alignment, err);
  }
  return pte_file_loader_open(l, path_or_uri, alignment, err);
}

void pte_file_loader_close(pte_file_loader *l) {
  if (!l) return;
  if (l->fd >= 0) close(l->fd);
  l->fd = -1;
}
