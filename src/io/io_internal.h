/* io_internal.h — helpers shared by the POSIX loaders in src/io (internal). */
#ifndef PTE_IO_INTERNAL_H
#define PTE_IO_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "pte/status.h"

/* Short lower-case description of an errno value ("no such file", ...), or NULL if unknown. */
const char *pte_io_errno_text(int e);

/* Records "<what> '<path>': <reason>" in err and returns PTE_ERR_ACCESS_FAILED. */
pte_status pte_io_fail(pte_error_info *err, const char *what, const char *path, int e);

/* Reads exactly `size` bytes at `offset` into dst with pread, in chunks <= INT32_MAX, retrying
 * on EINTR. EOF before `size` bytes or any error -> PTE_ERR_ACCESS_FAILED. */
pte_status pte_io_pread_all(int fd, void *dst, size_t size, uint64_t offset);

/* open(O_RDONLY|O_CLOEXEC) + fstat, rejecting directories. On success *fd and *size are set. */
pte_status pte_io_open_file(const char *path, int *fd, uint64_t *size, pte_error_info *err);

/* dup(fd) (close-on-exec) + fstat, rejecting directories. */
pte_status pte_io_dup_fd(int fd, int *out_fd, uint64_t *size, pte_error_info *err);

#endif
