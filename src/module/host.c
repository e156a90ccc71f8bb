/* Heap-backed loading helpers shared by the Module API and the CLI (see host.h). */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include "module/host.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>

#define HOST_POOL_START (16u << 10)
#define HOST_POOL_MAX ((size_t)1 << 30)
#define HOST_POOL_GUESS_MAX ((size_t)64 << 20)
#define HOST_TEMP_SIZE (16u << 20)
/* planned buffers at least this large are anonymous mappings: zero pages on first touch, never
 * memset (calloc clears recycled heap chunks, which dominated repeated method loads) */
#define HOST_MAP_MIN ((size_t)256 << 10)

static void *host_zalloc(size_t size) {
#ifdef MAP_ANONYMOUS
  if (size >= HOST_MAP_MIN) {
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p;
  }
#endif
  return calloc(1, size ? size : 1);
}

static void host_zfree(void *p, size_t size) {
  (void)size;
  if (!p) return;
#ifdef MAP_ANONYMOUS
  if (size >= HOST_MAP_MIN) {
    munmap(p, size);
    return;
  }
#endif
  free(p);
}

double pte_host_now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Reads a stream to its end into 64-byte aligned memory (pipes, "-" = stdin). */
static uint8_t *read_stream(FILE *f, size_t *size) {
  size_t cap = 1 << 16, n = 0;
  uint8_t *buf = (uint8_t *)malloc(cap);
  while (buf) {
    if (n == cap) {
      uint8_t *nb = cap <= SIZE_MAX / 2 ? (uint8_t *)realloc(buf, cap * 2) : NULL;
      if (!nb) {
        free(buf);
        errno = ENOMEM;
        return NULL;
      }
      buf = nb;
      cap *= 2;
    }
    size_t k = fread(buf + n, 1, cap - n, f);
    n += k;
    if (k == 0) break;
  }
  if (!buf) {
    errno = ENOMEM;
    return NULL;
  }
  if (ferror(f)) {
    free(buf);
    errno = EIO;
    return NULL;
  }
  void *p = NULL;
  if (posix_memalign(&p, 64, n ? n : 1) != 0) {
    free(buf);
    errno = ENOMEM;
    return NULL;
  }
  memcpy(p, buf, n);
  free(buf);
  *size = n;
  return (uint8_t *)p;
}

uint8_t *pte_host_read_file(const char *path, size_t *size) {
  if (!strcmp(path, "-")) return read_stream(stdin, size);
  struct stat st;
  if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
    errno = EISDIR;
    return NULL;
  }
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) { /* a pipe, /dev/stdin: not seekable */
    uint8_t *p = read_stream(f, size);
    int e = errno;
    fclose(f);
    errno = e;
    return p;
  }
  if (fseek(f, 0, SEEK_END) != 0) {
    fclose(f);
    return NULL;
  }
  long n = ftell(f);
  if (n < 0 || fseek(f, 0, SEEK_SET) != 0) {
    fclose(f);
    if (n < 0 && errno == 0) errno = EIO;
    return NULL;
  }
  void *p = NULL;
  if (posix_memalign(&p, 64, (size_t)n ? (size_t)n : 1) != 0) {
    fclose(f);
    errno = ENOMEM;
    return NULL;
  }
  size_t got = fread(p, 1, (size_t)n, f);
  fclose(f);
  if (got != (size_t)n) {
    free(p);
    errno = EIO;
    return NULL;
  }
  *size = (size_t)n;
  return p;
}

pte_status pte_host_source_open(pte_host_source *s, const char *path, pte_host_loader_kind kind, pte_error_info *err) {
  memset(s, 0, sizeof *s);
  struct stat fst;
  /* "-" (stdin) and other streams cannot be mapped or pread: read them into memory */
  if (!strcmp(path, "-") || (stat(path, &fst) == 0 && !S_ISREG(fst.st_mode) && !S_ISDIR(fst.st_mode)))
    kind = PTE_HOST_LOADER_BUFFER;
  s->kind = kind;
  pte_status st = PTE_OK;
  switch (kind) {
    case PTE_HOST_LOADER_FILE: st = pte_file_loader_open(&s->fl, path, 0, err); break;
    case PTE_HOST_LOADER_BUFFER:
      s->bytes = pte_host_read_file(path, &s->size);
      if (!s->bytes)
        return pte_error_set(err, PTE_ERR_ACCESS_FAILED, "cannot read '%s': %s", !strcmp(path, "-") ? "stdin" : path,
                             errno == EISDIR ? "is a directory" : strerror(errno));
      pte_buffer_loader_init(&s->bl, s->bytes, s->size);
      break;
    case PTE_HOST_LOADER_MMAP: st = pte_mmap_loader_open(&s->ml, path, PTE_MLOCK_NONE, err); break;
    default: return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "unknown loader kind %d", (int)kind);
  }
  s->open = st == PTE_OK;
  return st;
}

const pte_data_loader *pte_host_source_loader(const pte_host_source *s) {
  switch (s->kind) {
    case PTE_HOST_LOADER_FILE: return &s->fl.base;
    case PTE_HOST_LOADER_BUFFER: return &s->bl.base;
    default: return &s->ml.base;
  }
}

void pte_host_source_close(pte_host_source *s) {
  if (!s->open) return;
  switch (s->kind) {
    case PTE_HOST_LOADER_FILE: pte_file_loader_close(&s->fl); break;
    case PTE_HOST_LOADER_BUFFER: free(s->bytes); break;
    default: pte_mmap_loader_close(&s->ml); break;
  }
  s->bytes = NULL;
  s->open = false;
}

/* ------------------------------------------------------------------ memory */
pte_status pte_host_memory_init(pte_host_memory *mem, const pte_method_meta *meta, pte_error_info *err) {
  memset(mem, 0, sizeof *mem);
  mem->n_planned = pte_method_meta_num_planned_buffers(meta);
  if (mem->n_planned) {
    mem->planned_mem = calloc(mem->n_planned, sizeof(void *));
    mem->planned = calloc(mem->n_planned, sizeof(pte_planned_buffer));
    if (!mem->planned_mem || !mem->planned) {
      pte_host_memory_free(mem);
      return pte_error_set(err, PTE_ERR_MEMORY_ALLOCATION_FAILED, "out of memory");
    }
  }
  for (size_t i = 0; i < mem->n_planned; i++) {
    uint64_t sz = 0;
    pte_status s = pte_method_meta_planned_buffer_size(meta, i, &sz);
    if (s != PTE_OK) {
      pte_host_memory_free(mem);
      return pte_error_set(err, s, "planned buffer %zu: size unavailable", i);
    }
    if (sz > SIZE_MAX - 64) {
      pte_host_memory_free(mem);
      return pte_error_set(err, PTE_ERR_MEMORY_ALLOCATION_FAILED, "planned buffer %zu is too large", i);
    }
    mem->planned_mem[i] = host_zalloc((size_t)sz);
    if (!mem->planned_mem[i]) {
      pte_host_memory_free(mem);
      return pte_error_set(err, PTE_ERR_MEMORY_ALLOCATION_FAILED, "cannot allocate planned buffer %zu (%llu bytes)", i,
                           (unsigned long long)sz);
    }
    mem->planned[i].data = mem->planned_mem[i];
    mem->planned[i].size = (size_t)sz;
  }
  /* The method allocator: a load that runs out of it starts over with twice the size (see
   * pte_host_method_load), and every attempt repeats the whole load, delegates included. Start
   * near what the method needs, about its share of the program flatbuffer (values, tensors,
   * instructions): twice the flatbuffer, at most HOST_POOL_GUESS_MAX (a malloc this large is
   * mapped lazily: pages the load does not use cost nothing). */
  size_t guess = HOST_POOL_START;
  while (guess < HOST_POOL_GUESS_MAX && guess / 2 < meta->fb_size) guess *= 2;
  mem->pool_size = guess;
  mem->pool = malloc(mem->pool_size);
  if (!mem->pool && guess > HOST_POOL_START) mem->pool = malloc(mem->pool_size = HOST_POOL_START);
  mem->temp_size = HOST_TEMP_SIZE;
  mem->temp_mem = malloc(mem->temp_size);
  if (!mem->pool || !mem->temp_mem) {
    pte_host_memory_free(mem);
    return pte_error_set(err, PTE_ERR_MEMORY_ALLOCATION_FAILED, "out of memory");
  }
  pte_allocator_init(&mem->ma, mem->pool, mem->pool_size);
  pte_allocator_init(&mem->temp, mem->temp_mem, mem->temp_size);
  pte_memory_manager_init(&mem->mm, &mem->ma, mem->planned, mem->n_planned, &mem->temp);
  return PTE_OK;
}

void pte_host_memory_free(pte_host_memory *mem) {
  for (size_t i = 0; mem->planned_mem && i < mem->n_planned; i++)
    host_zfree(mem->planned_mem[i], mem->planned ? mem->planned[i].size : 0);
  for (size_t i = 0; mem->out_bufs && i < mem->n_outputs; i++) free(mem->out_bufs[i]);
  free(mem->out_bufs);
  free(mem->planned_mem);
  free(mem->planned);
  free(mem->pool);
  free(mem->temp_mem);
  memset(mem, 0, sizeof *mem);
}

pte_status pte_host_method_load(pte_host_memory *mem, const pte_program *p, const char *name,
                                const pte_method_options *opts, pte_method **out, double *ms, pte_error_info *err) {
  for (;;) {
    pte_allocator_reset(&mem->ma);
    double t0 = pte_host_now_ms();
    pte_status s = pte_method_load_ex(p, name, &mem->mm, opts, out, err);
    double t1 = pte_host_now_ms();
    if (ms) *ms = t1 - t0;
    bool exhausted = s == PTE_ERR_MEMORY_ALLOCATION_FAILED && err && strstr(err->msg, "method allocator");
    if (!exhausted || mem->pool_size >= HOST_POOL_MAX) return s;
    size_t ns = mem->pool_size * 2;
    uint8_t *np = malloc(ns);
    if (!np) return s;
    free(mem->pool);
    mem->pool = np;
    mem->pool_size = ns;
    pte_allocator_init(&mem->ma, mem->pool, mem->pool_size);
  }
}

pte_status pte_host_bind_outputs(pte_host_memory *mem, pte_method *m, pte_error_info *err) {
  size_t n = pte_method_num_outputs(m);
  if (!mem->out_bufs) {
    mem->out_bufs = calloc(n ? n : 1, sizeof(void *));
    if (!mem->out_bufs) return pte_error_set(err, PTE_ERR_MEMORY_ALLOCATION_FAILED, "out of memory");
    mem->n_outputs = n;
  }
  const pte_method_meta *meta = pte_method_get_meta(m);
  for (size_t i = 0; i < n && i < mem->n_outputs; i++) {
    pte_tag tag;
    if (pte_method_meta_output_tag(meta, i, &tag) != PTE_OK || tag != PTE_TAG_TENSOR) continue;
    pte_tensor_info info;
    if (pte_method_meta_output_tensor_info(meta, i, &info) != PTE_OK || info.is_memory_planned) continue;
    if (!mem->out_bufs[i]) {
      mem->out_bufs[i] = calloc(1, info.nbytes ? info.nbytes : 1);
      if (!mem->out_bufs[i]) return pte_error_set(err, PTE_ERR_MEMORY_ALLOCATION_FAILED, "out of memory");
    }
    pte_status s = pte_method_set_output_data_ptr(m, i, mem->out_bufs[i], info.nbytes, err);
    /* an output that is also an input (identity) or a constant keeps its own data */
    if (s == PTE_ERR_INVALID_STATE) continue;
    if (s != PTE_OK) return s;
  }
  return PTE_OK;
}

/* ------------------------------------------------------------------ layouts */
void pte_host_copy_strided(void *dst, const int64_t *dst_strides, const void *src, const int64_t *src_strides,
                           const int32_t *sizes, int32_t dim, size_t es) {
  size_t numel = 1;
  for (int32_t d = 0; d < dim; d++) numel *= (size_t)(sizes[d] > 0 ? sizes[d] : 0);
  if (!numel) return;
  int32_t idx[PTE_MAX_RANK] = {0};
  int64_t so = 0, doff = 0;
  uint8_t *D = dst;
  const uint8_t *S = src;
  for (size_t n = 0; n < numel; n++) {
    memcpy(D + (size_t)doff * es, S + (size_t)so * es, es);
    for (int32_t d = dim - 1; d >= 0; d--) {
      idx[d]++;
      so += src_strides[d];
      doff += dst_strides[d];
      if (idx[d] < sizes[d]) break;
      so -= src_strides[d] * sizes[d];
      doff -= dst_strides[d] * sizes[d];
      idx[d] = 0;
    }
  }
}

/* Strides of the C order and of the dim_order layout; false when no rearranging is needed. */
static bool host_strides(const int32_t *sizes, const uint8_t *dim_order, int32_t dim, int64_t *cs, int64_t *ls) {
  if (dim <= 1 || dim > PTE_MAX_RANK || !dim_order || pte_dim_order_is_contiguous(dim_order, dim)) return false;
  int32_t s32[PTE_MAX_RANK];
  if (pte_strides_from_dim_order(sizes, dim_order, dim, s32) != PTE_OK) return false;
  int64_t acc = 1;
  for (int32_t d = dim - 1; d >= 0; d--) {
    cs[d] = acc;
    acc *= sizes[d] > 1 ? sizes[d] : 1;
    ls[d] = s32[d];
  }
  return true;
}

static size_t host_numel(const int32_t *sizes, int32_t dim) {
  size_t n = 1;
  for (int32_t d = 0; d < dim; d++) n *= (size_t)(sizes[d] > 0 ? sizes[d] : 0);
  return n;
}

void pte_host_contiguous_to_layout(void *dst, const void *src, const int32_t *sizes, const uint8_t *dim_order,
                                   int32_t dim, size_t es) {
  int64_t cs[PTE_MAX_RANK], ls[PTE_MAX_RANK];
  size_t n = host_numel(sizes, dim) * es;
  if (!n) return;
  if (!host_strides(sizes, dim_order, dim, cs, ls)) memcpy(dst, src, n);
  else pte_host_copy_strided(dst, ls, src, cs, sizes, dim, es);
}

void pte_host_layout_to_contiguous(void *dst, const void *src, const int32_t *sizes, const uint8_t *dim_order,
                                   int32_t dim, size_t es) {
  int64_t cs[PTE_MAX_RANK], ls[PTE_MAX_RANK];
  size_t n = host_numel(sizes, dim) * es;
  if (!n) return;
  if (!host_strides(sizes, dim_order, dim, cs, ls)) memcpy(dst, src, n);
  else pte_host_copy_strided(dst, cs, src, ls, sizes, dim, es);
}
