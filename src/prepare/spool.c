#define _GNU_SOURCE 1 /* O_TMPFILE (Linux); falls back to mkstemp + unlink elsewhere */
/* spool.c — where replaced values wait until every backend hook has run: the heap up to a limit,
 * then an anonymous temp file (unlinked at creation, so a crash leaves nothing behind). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "prepare/prepare_internal.h"

uint64_t pte_pp_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void *pte_pp_alloc(pte_pp_state *st, size_t size) {
  if (size == 0) size = 1;
  void *p = st->realloc_fn(st->realloc_ctx, NULL, 0, size);
  if (p) memset(p, 0, size);
  return p;
}

void pte_pp_free(pte_pp_state *st, void *p, size_t size) {
  if (p) st->realloc_fn(st->realloc_ctx, p, size ? size : 1, 0);
}

void pte_pp_prefault(const void *p, size_t n) {
  if (n == 0 || !p) return;
  long ps = sysconf(_SC_PAGESIZE);
  size_t page = ps > 0 && ((unsigned long)ps & ((unsigned long)ps - 1)) == 0 ? (size_t)ps : 4096;
  uintptr_t start = (uintptr_t)p & ~(uintptr_t)(page - 1);
  uintptr_t end = (uintptr_t)p + n;
#ifdef MADV_POPULATE_READ
  /* EINVAL: the kernel (< 5.14) or this kind of mapping does not support it: touch instead. Any
   * other error (memory not mapped...) is left to the write, which reports it as EFAULT. */
  if (madvise((void *)start, (size_t)(end - start), MADV_POPULATE_READ) == 0 || errno != EINVAL) return;
#endif
  /* no MADV_POPULATE_READ (other systems, old kernels): touch one byte per page */
  const volatile uint8_t *b = (const volatile uint8_t *)p;
  uint8_t sink = 0;
  size_t first = (size_t)(start + page - (uintptr_t)p) % page; /* first page boundary inside */
  sink ^= b[0];
  for (size_t i = first; i < n; i += page) sink ^= b[i];
  (void)sink;
}

pte_status pte_pp_write_memory(pte_pp_state *st, pte_data_writer *w, const void *data, size_t n, uint64_t off) {
  const uint8_t *p = (const uint8_t *)data;
  while (n > 0) {
    size_t chunk = n < PTE_PP_WRITE_CHUNK ? n : PTE_PP_WRITE_CHUNK;
    pte_pp_prefault(p, chunk);
    pte_status s = pte_data_writer_write(w, p, chunk, off, st->err);
    if (s != PTE_OK) return s;
    p += chunk;
    off += chunk;
    n -= chunk;
  }
  return PTE_OK;
}

static int spool_open(const char *dir) {
  int fd = -1;
#ifdef O_TMPFILE
  fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd >= 0) return fd;
#endif
  size_t n = strlen(dir) + 64;
  char *path = (char *)malloc(n);
  if (!path) return -1;
  snprintf(path, n, "%s/.pte-spool.%ld.XXXXXX", dir, (long)getpid());
  fd = mkstemp(path);
  if (fd >= 0) unlink(path);
  free(path);
  return fd;
}

static pte_status spool_pwrite(pte_pp_state *st, const void *data, size_t n, uint64_t off) {
  const uint8_t *p = (const uint8_t *)data;
  while (n > 0) {
    size_t chunk = n > PTE_PP_WRITE_CHUNK ? PTE_PP_WRITE_CHUNK : n;
    pte_pp_prefault(p, chunk);
    ssize_t w = pwrite(st->spool_fd, p, chunk, (off_t)off);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0)
      return pte_error_set(st->err, PTE_ERR_ACCESS_FAILED, "prepare: cannot write the spool file in '%s': %s",
                           st->opt->spool_dir, w < 0 ? strerror(errno) : "short write");
    p += w;
    off += (uint64_t)w;
    n -= (size_t)w;
  }
  return PTE_OK;
}

pte_status pte_pp_value_slot(pte_pp_state *st, int32_t *value) {
  if (st->n_values >= (size_t)INT32_MAX)
    return pte_error_set(st->err, PTE_ERR_OUT_OF_RESOURCES, "prepare: too many replaced values");
  if (st->n_values == st->cap_values) {
    size_t nc = st->cap_values ? st->cap_values * 2 : 16;
    pte_pp_value *nv = (pte_pp_value *)pte_pp_alloc(st, nc * sizeof *nv);
    if (!nv) return pte_error_set(st->err, PTE_ERR_MEMORY_ALLOCATION_FAILED, "prepare: out of memory (value table)");
    if (st->values) memcpy(nv, st->values, st->n_values * sizeof *nv);
    pte_pp_free(st, st->values, st->cap_values * sizeof *nv);
    st->values = nv;
    st->cap_values = nc;
  }
  memset(&st->values[st->n_values], 0, sizeof st->values[0]);
  st->values[st->n_values].seg = -1;
  *value = (int32_t)st->n_values++;
  return PTE_OK;
}

pte_status pte_pp_spool_alloc(pte_pp_state *st, uint64_t size, int32_t *value) {
  if (size > (uint64_t)SIZE_MAX)
    return pte_error_set(st->err, PTE_ERR_INVALID_ARGUMENT, "prepare: value of %llu bytes is too large",
                         (unsigned long long)size);
  pte_pp_value v;
  memset(&v, 0, sizeof v);
  v.size = size;
  v.seg = -1;
  bool to_file = st->opt->spool_dir && st->spool_mem + v.size > st->spool_limit;
  if (!to_file) {
    v.mem = (uint8_t *)st->realloc_fn(st->realloc_ctx, NULL, 0, v.size ? (size_t)v.size : 1);
    if (!v.mem) {
      if (!st->opt->spool_dir)
        return pte_error_set(st->err, PTE_ERR_MEMORY_ALLOCATION_FAILED,
                             "prepare: out of memory keeping a replaced value of %llu bytes", (unsigned long long)size);
      to_file = true;
    } else {
      st->spool_mem += v.size;
    }
  }
  if (to_file) {
    if (st->spool_fd < 0) {
      st->spool_fd = spool_open(st->opt->spool_dir);
      if (st->spool_fd < 0)
        return pte_error_set(st->err, PTE_ERR_ACCESS_FAILED, "prepare: cannot create a spool file in '%s': %s",
                             st->opt->spool_dir, strerror(errno));
    }
    v.file_off = st->spool_end;
    st->spool_end += v.size;
  }
  pte_status s = pte_pp_value_slot(st, value);
  if (s != PTE_OK) {
    if (v.mem) {
      st->realloc_fn(st->realloc_ctx, v.mem, (size_t)v.size, 0);
      st->spool_mem -= v.size;
    }
    return s;
  }
  st->values[*value] = v;
  return PTE_OK;
}

pte_status pte_pp_spool_write(pte_pp_state *st, int32_t value, uint64_t off, const void *data, size_t n) {
  pte_pp_value *v = &st->values[value];
  if (off > v->size || n > v->size - off)
    return pte_error_set(st->err, PTE_ERR_INTERNAL, "prepare: spool write out of range");
  if (n == 0) return PTE_OK;
  if (v->mem) {
    memcpy(v->mem + off, data, n);
    return PTE_OK;
  }
  return spool_pwrite(st, data, n, v->file_off + off);
}

pte_status pte_pp_spool_add(pte_pp_state *st, const uint8_t header[PTE_PREPARED_HEADER_SIZE], const void *payload,
                            size_t size, int32_t *value) {
  if (size > SIZE_MAX - PTE_PREPARED_HEADER_SIZE)
    return pte_error_set(st->err, PTE_ERR_INVALID_ARGUMENT, "prepare: value of %zu bytes is too large", size);
  int32_t v = -1;
  pte_status s = pte_pp_spool_alloc(st, (uint64_t)size + PTE_PREPARED_HEADER_SIZE, &v);
  if (s == PTE_OK) s = pte_pp_spool_write(st, v, 0, header, PTE_PREPARED_HEADER_SIZE);
  if (s == PTE_OK) s = pte_pp_spool_write(st, v, PTE_PREPARED_HEADER_SIZE, payload, size);
  if (s == PTE_OK) *value = v;
  return s;
}

pte_status pte_pp_value_read(pte_pp_state *st, const pte_pp_value *v, uint64_t off, void *dst, size_t n) {
  if (v->placed) return pte_error_set(st->err, PTE_ERR_INTERNAL, "prepare: value is in the output, not the spool");
  if (off > v->size || n > v->size - off)
    return pte_error_set(st->err, PTE_ERR_INTERNAL, "prepare: spool read out of range");
  if (v->mem) {
    memcpy(dst, v->mem + off, n);
    return PTE_OK;
  }
  uint8_t *p = (uint8_t *)dst;
  uint64_t pos = v->file_off + off;
  while (n > 0) {
    size_t chunk = n > ((size_t)1 << 30) ? ((size_t)1 << 30) : n;
    ssize_t r = pread(st->spool_fd, p, chunk, (off_t)pos);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0)
      return pte_error_set(st->err, PTE_ERR_ACCESS_FAILED, "prepare: cannot read the spool file: %s",
                           r < 0 ? strerror(errno) : "unexpected end");
    p += r;
    pos += (uint64_t)r;
    n -= (size_t)r;
  }
  return PTE_OK;
}

void pte_pp_spool_free(pte_pp_state *st) {
  for (size_t i = 0; i < st->n_values; i++)
    if (st->values[i].mem) st->realloc_fn(st->realloc_ctx, st->values[i].mem, (size_t)st->values[i].size, 0);
  pte_pp_free(st, st->values, st->cap_values * sizeof *st->values);
  st->values = NULL;
  st->n_values = st->cap_values = 0;
  if (st->spool_fd >= 0) close(st->spool_fd);
  st->spool_fd = -1;
}
