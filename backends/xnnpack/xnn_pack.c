#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE /* madvise */
/* Weight packing into self-contained blobs.
 *
 * Every packed blob starts with a 64-byte little-endian header:
 *   [0..4)  "XPW1"            [4..6) u16 format version (1)   [6..8) u16 header size (64)
 *   [8..12) u32 kind          [12..16) u32 ISA the panels were laid out for
 *   [16..20) u32 NR (panel width)  [20..24) u32 KR (k values interleaved per column: 1; 2 for int8)
 *   [24..28) u32 N            [28..32) u32 K
 *   [32..36) u32 panel count  [36..40) u32 reserved (0)
 *   [40..48) u64 panel stride (bytes)   [48..56) u64 total size (bytes)   [56..64) reserved (0)
 * followed by the panels, each 64-byte aligned (see xnn_internal.h for per-kind layouts). The
 * blob holds no pointers, so it can be written to a file and used in place from a mapping. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#if defined(__linux__)
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>
#endif

#include "xnn_internal.h"

void *pte_xnn_aligned_alloc(size_t size) {
  void *p = NULL;
  if (posix_memalign(&p, 64, size ? size : 64) != 0) return NULL;
  return p;
}

/* Large packed buffers: 2 MiB aligned and marked for transparent huge pages, so that filling
 * them takes one page fault per 2 MiB instead of one per 4 KiB (where the OS offers THP; the
 * advice is silently ignored otherwise). */
void *pte_xnn_packed_alloc(size_t size) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  if (size >= ((size_t)4 << 20)) {
    void *p = NULL;
    const size_t huge = (size_t)2 << 20;
    if (posix_memalign(&p, huge, (size + huge - 1) & ~(huge - 1)) != 0) return NULL;
    (void)madvise(p, (size + huge - 1) & ~(huge - 1), MADV_HUGEPAGE);
    return p;
  }
#endif
  return pte_xnn_aligned_alloc(size);
}

void pte_xnn_aligned_free(void *p) { free(p); }

/* Whether [p, p + n) lies inside one file mapping that is shared or read-only (its pages can be
 * dropped and read back from the file unchanged), from /proc/self/maps. */
bool pte_xnn_file_backed(const void *p, size_t n) {
#if defined(__linux__)
  if (!p || !n) return false;
  int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const uintptr_t a = (uintptr_t)p, e = a + n;
  char buf[8192];
  size_t have = 0;
  bool found = false, ok = false, eof = false;
  while (!found && !eof) {
    ssize_t r = read(fd, buf + have, sizeof buf - 1 - have);
    if (r <= 0) eof = true;
    else have += (size_t)r;
    buf[have] = 0;
    char *line = buf, *nl;
    while (!found && (nl = strchr(line, '\n')) != NULL) {
      *nl = 0; /* "start-end perms offset dev inode [path]" */
      char *q;
      const unsigned long long lo = strtoull(line, &q, 16);
      const unsigned long long hi = *q == '-' ? strtoull(q + 1, &q, 16) : 0;
      if (lo <= a && e <= hi) {
        found = true;
        char perms[5] = {0};
        while (*q == ' ') q++;
        memcpy(perms, q, 4);
        q += 4;
        (void)strtoull(q, &q, 16); /* offset */
        while (*q == ' ') q++;
        while (*q && *q != ' ') q++; /* dev */
        const unsigned long long inode = strtoull(q, &q, 10);
        ok = inode != 0 && (perms[3] == 's' || perms[1] == '-');
      }
      line = nl + 1;
    }
    const size_t rest = have - (size_t)(line - buf);
    memmove(buf, line, rest);
    have = rest;
    if (have == sizeof buf - 1) have = 0; /* a line longer than the buffer: skip it */
  }
  close(fd);
  return ok;
#else
  (void)p;
  (void)n;
  return false;
#endif
}

/* Drops the whole pages inside [p, p + n) from this process (pte prepare: input weights already
 * packed; only for bytes pte_xnn_file_backed accepted: they are read back from the file). */
void pte_xnn_release_pages(const void *p, size_t n) {
#if defined(__linux__)
  const uintptr_t page = 4096, a = ((uintptr_t)p + page - 1) & ~(page - 1), e = ((uintptr_t)p + n) & ~(page - 1);
  if (p && e > a) (void)madvise((void *)a, (size_t)(e - a), MADV_DONTNEED);
#else
  (void)p;
  (void)n;
#endif
}

void pte_xnn_packed_free(pte_xnn_packed *p) {
  if (!p) return;
  pte_xnn_aligned_free(p->bytes);
  p->bytes = NULL;
  p->size = 0;
}

static void st16(uint8_t *p, uint16_t v) {
  p[0] = (uint8_t)v;
  p[1] = (uint8_t)(v >> 8);
}
static void st32(uint8_t *p, uint32_t v) {
  for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static void st64(uint8_t *p, uint64_t v) {
  for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static uint32_t ld32(const uint8_t *p) {
  return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}
static uint64_t ld64(const uint8_t *p) { return (uint64_t)ld32(p) | ((uint64_t)ld32(p + 4) << 32); }

static size_t align64(size_t x) { return (x + 63) & ~(size_t)63; }

static void write_header_kr(uint8_t *h, uint32_t kind, uint32_t isa, uint32_t nr, uint32_t kr, size_t n, size_t k,
                            size_t panels, size_t stride, size_t total) {
  memset(h, 0, PTE_XNN_PACKED_HEADER_SIZE);
  memcpy(h, PTE_XNN_PACKED_MAGIC, 4);
  st16(h + 4, PTE_XNN_PACKED_VERSION);
  st16(h + 6, PTE_XNN_PACKED_HEADER_SIZE);
  st32(h + 8, kind);
  st32(h + 12, isa);
  st32(h + 16, nr);
  st32(h + 20, kr);
  st32(h + 24, (uint32_t)n);
  st32(h + 28, (uint32_t)k);
  st32(h + 32, (uint32_t)panels);
  st64(h + 40, (uint64_t)stride);
  st64(h + 48, (uint64_t)total);
}

static void write_header(uint8_t *h, uint32_t kind, uint32_t isa, uint32_t nr, size_t n, size_t k, size_t panels,
                         size_t stride, size_t total) {
  write_header_kr(h, kind, isa, nr, 1, n, k, panels, stride, total);
}

bool pte_xnn_packed_info_get(const pte_xnn_packed *p, pte_xnn_packed_info *o) {
  if (!p || !p->bytes || p->size < PTE_XNN_PACKED_HEADER_SIZE) return false;
  const uint8_t *h = p->bytes;
  if (memcmp(h, PTE_XNN_PACKED_MAGIC, 4) != 0) return false;
  o->kind = ld32(h + 8);
  o->isa = ld32(h + 12);
  o->nr = ld32(h + 16);
  o->kr = ld32(h + 20);
  o->n = ld32(h + 24);
  o->k = ld32(h + 28);
  o->n_panels = ld32(h + 32);
  o->panel_stride = ld64(h + 40);
  o->total_size = ld64(h + 48);
  return o->total_size == p->size;
}

static pte_status alloc_packed(size_t total, pte_xnn_packed *out) {
  out->bytes = (uint8_t *)pte_xnn_packed_alloc(total);
  if (!out->bytes) return PTE_ERR_MEMORY_ALLOCATION_FAILED;
  out->size = total;
  return PTE_OK;
}

static bool too_big(size_t n, size_t k) { return n > 0xFFFFFFFFu || k > 0xFFFFFFFFu; }

pte_xnn_f32_tile pte_xnn_f32_tile_for_nr(const pte_xnn_kernels *k, size_t nr) {
  pte_xnn_f32_tile t;
  if (k->f32n_gemm && nr == k->f32n_nr) {
    t.mr = k->f32n_mr, t.nr = k->f32n_nr, t.gemm = k->f32n_gemm, t.igemm = k->f32n_igemm;
  } else {
    t.mr = k->f32_mr, t.nr = k->f32_nr, t.gemm = k->f32_gemm, t.igemm = k->f32_igemm;
  }
  return t;
}

pte_xnn_f32_tile pte_xnn_f32_tile_for_n(const pte_xnn_kernels *k, size_t n) {
  return pte_xnn_f32_tile_for_nr(k, (k->f32n_gemm && n <= k->f32n_nr) ? k->f32n_nr : k->f32_nr);
}

/* ---- fp32 GEMM: panel = [NR bias][K x NR weights] ------------------------------------------ */
size_t pte_xnn_pack_f32_gemm_into(const pte_xnn_kernels *kr, size_t n, size_t kdim, const float *w,
                                  size_t w_row_stride, size_t w_col_stride, const float *bias, uint8_t *dst) {
  const size_t nr = pte_xnn_f32_tile_for_n(kr, n).nr;
  const size_t panels = (n + nr - 1) / nr;
  const size_t stride = align64((nr + kdim * nr) * sizeof(float));
  const size_t total = PTE_XNN_PACKED_HEADER_SIZE + panels * stride;
  if (!dst) return total;
  write_header(dst, PTE_XNN_PACK_F32_GEMM, (uint32_t)kr->isa, (uint32_t)nr, n, kdim, panels, stride, total);
  pte_xnn_pack_f32_gemm_panels(kr, n, kdim, w, w_row_stride, w_col_stride, bias, dst, 0, panels);
  return total;
}

void pte_xnn_pack_f32_gemm_header(const pte_xnn_kernels *kr, size_t n, size_t kdim, uint8_t *dst) {
  const size_t nr = pte_xnn_f32_tile_for_n(kr, n).nr;
  const size_t panels = (n + nr - 1) / nr;
  const size_t stride = align64((nr + kdim * nr) * sizeof(float));
  write_header(dst, PTE_XNN_PACK_F32_GEMM, (uint32_t)kr->isa, (uint32_t)nr, n, kdim, panels, stride,
               PTE_XNN_PACKED_HEADER_SIZE + panels * stride);
}

void pte_xnn_pack_f32_gemm_panels(const pte_xnn_kernels *kr, size_t n, size_t kdim, const float *w,
                                  size_t w_row_stride, size_t w_col_stride, const float *bias, uint8_t *dst, size_t p0,
                                  size_t p1) {
  const size_t nr = pte_xnn_f32_tile_for_n(kr, n).nr;
  const size_t stride = align64((nr + kdim * nr) * sizeof(float));
  for (size_t p = p0; p < p1; p++) {
    float *panel = (float *)(dst + PTE_XNN_PACKED_HEADER_SIZE + p * stride);
    const size_t n0 = p * nr;
    for (size_t j = 0; j < nr; j++) panel[j] = (bias && n0 + j < n) ? bias[n0 + j] : 0.0f;
    float *pw = panel + nr;
    if (n0 + nr <= n && w_col_stride == 1 && nr <= 32) {
      /* full panel, rows contiguous in K: transpose 8 k x nr blocks (reads whole cache lines
       * of each row, writes 8 full panel rows) */
      const float *rows[32];
      for (size_t j = 0; j < nr; j++) rows[j] = w + (n0 + j) * w_row_stride;
      size_t i = 0;
      for (; i + 8 <= kdim; i += 8) {
        float *d8 = pw + i * nr;
        for (size_t j = 0; j < nr; j++) {
          const float *r = rows[j] + i;
          d8[j] = r[0];
          d8[nr + j] = r[1];
          d8[2 * nr + j] = r[2];
          d8[3 * nr + j] = r[3];
          d8[4 * nr + j] = r[4];
          d8[5 * nr + j] = r[5];
          d8[6 * nr + j] = r[6];
          d8[7 * nr + j] = r[7];
        }
      }
      for (; i < kdim; i++)
        for (size_t j = 0; j < nr; j++) pw[i * nr + j] = rows[j][i];
      const size_t used = (nr + kdim * nr) * sizeof(float);
      memset((uint8_t *)panel + used, 0, stride - used);
      continue;
    }
    /* element (out channel o, reduction index i) of W is w[o * w_row_stride + i * w_col_stride] */
    for (size_t i = 0; i < kdim; i++) {
      for (size_t j = 0; j < nr; j++) {
        const size_t o = n0 + j;
        pw[i * nr + j] = o < n ? w[o * w_row_stride + i * w_col_stride] : 0.0f;
      }
    }
    /* zero the alignment tail so the blob is deterministic */
    const size_t used = (nr + kdim * nr) * sizeof(float);
    memset((uint8_t *)panel + used, 0, stride - used);
  }
}

pte_status pte_xnn_pack_f32_gemm(const pte_xnn_kernels *k, size_t n, size_t kdim, const float *w, bool transposed,
                                 const float *bias, pte_xnn_packed *out) {
  if (too_big(n, kdim)) return PTE_ERR_NOT_SUPPORTED;
  size_t total = pte_xnn_pack_f32_gemm_into(k, n, kdim, w, 0, 0, bias, NULL);
  pte_status s = alloc_packed(total, out);
  if (s != PTE_OK) return s;
  if (transposed)
    pte_xnn_pack_f32_gemm_into(k, n, kdim, w, 1, n, bias, out->bytes);
  else
    pte_xnn_pack_f32_gemm_into(k, n, kdim, w, kdim, 1, bias, out->bytes);
  return PTE_OK;
}

/* ---- int8 GEMMs ------------------------------------------------------------------------------ */
size_t pte_xnn_pack_i8_size(const pte_xnn_kernels *k, size_t n, size_t kdim, bool qd8) {
  const size_t nr = k->i8_nr;
  const size_t panels = (n + nr - 1) / nr;
  const size_t stride = align64(nr * (qd8 ? 12 : 8) + ((kdim + 1) & ~(size_t)1) * nr);
  return PTE_XNN_PACKED_HEADER_SIZE + panels * stride;
}

/* The K/2 x NR x 2 int8 block of one panel (KR = 2): column j holds output channel n0 + j (zero
 * past n, and the odd K tail is zero); column sums into sum[NR]. Every byte is written once. */
static void pack_i8_block(size_t nr, size_t n0, size_t n, size_t kdim, const int8_t *w, size_t rs, size_t cs,
                          int8_t *pw, int64_t *sum) {
  const size_t k2 = (kdim + 1) & ~(size_t)1;
  for (size_t j = 0; j < nr; j++) sum[j] = 0;
  for (size_t i = 0; i < k2; i += 2) {
    int8_t *row = pw + (i / 2) * nr * 2;
    for (size_t j = 0; j < nr; j++) {
      const size_t o = n0 + j;
      int8_t v0 = 0, v1 = 0;
      if (o < n) {
        v0 = w[o * rs + i * cs];
        v1 = i + 1 < kdim ? w[o * rs + (i + 1) * cs] : 0;
      }
      row[2 * j] = v0;
      row[2 * j + 1] = v1;
      sum[j] += v0 + v1;
    }
  }
}

void pte_xnn_pack_qs8_gemm(const pte_xnn_kernels *k, size_t n, size_t kdim, const int8_t *w, size_t rs, size_t cs,
                           const int32_t *bias, int32_t in_zp, const float *req_scale, uint8_t *dst) {
  pte_xnn_pack_qs8_gemm_panels(k, n, kdim, w, rs, cs, bias, in_zp, req_scale, dst, 0, SIZE_MAX);
}

void pte_xnn_pack_qs8_gemm_panels(const pte_xnn_kernels *k, size_t n, size_t kdim, const int8_t *w, size_t rs,
                                  size_t cs, const int32_t *bias, int32_t in_zp, const float *req_scale, uint8_t *dst,
                                  size_t p0, size_t p1) {
  const size_t nr = k->i8_nr;
  const size_t panels = (n + nr - 1) / nr;
  const size_t used = nr * 8 + ((kdim + 1) & ~(size_t)1) * nr;
  const size_t stride = align64(used);
  const size_t total = PTE_XNN_PACKED_HEADER_SIZE + panels * stride;
  int64_t sum[64];
  if (p0 == 0) write_header_kr(dst, PTE_XNN_PACK_QS8_GEMM, (uint32_t)k->isa, (uint32_t)nr, 2, n, kdim, panels, stride, total);
  for (size_t p = p0; p < p1 && p < panels; p++) {
    uint8_t *panel = dst + PTE_XNN_PACKED_HEADER_SIZE + p * stride;
    int32_t *pb = (int32_t *)panel;
    float *ps = (float *)(panel + nr * 4);
    pack_i8_block(nr, p * nr, n, kdim, w, rs, cs, (int8_t *)(panel + nr * 8), sum);
    for (size_t j = 0; j < nr; j++) {
      const size_t o = p * nr + j;
      /* fold the input zero point: sum_k (x - zx) w = sum_k x w - zx sum_k w */
      pb[j] = o < n ? (int32_t)((bias ? (int64_t)bias[o] : 0) - (int64_t)in_zp * sum[j]) : 0;
      ps[j] = o < n ? req_scale[o] : 0.0f;
    }
    memset(panel + used, 0, stride - used);
  }
}

void pte_xnn_pack_qd8_gemm(const pte_xnn_kernels *k, size_t n, size_t kdim, const int8_t *w, size_t rs, size_t cs,
                           const float *wscale, const float *bias, uint8_t *dst) {
  pte_xnn_pack_qd8_gemm_panels(k, n, kdim, w, rs, cs, wscale, bias, dst, 0, SIZE_MAX);
}

void pte_xnn_pack_qd8_gemm_panels(const pte_xnn_kernels *k, size_t n, size_t kdim, const int8_t *w, size_t rs,
                                  size_t cs, const float *wscale, const float *bias, uint8_t *dst, size_t p0,
                                  size_t p1) {
  const size_t nr = k->i8_nr;
  const size_t panels = (n + nr - 1) / nr;
  const size_t used = nr * 12 + ((kdim + 1) & ~(size_t)1) * nr;
  const size_t stride = align64(used);
  const size_t total = PTE_XNN_PACKED_HEADER_SIZE + panels * stride;
  int64_t sum[64];
  if (p0 == 0) write_header_kr(dst, PTE_XNN_PACK_QD8_GEMM, (uint32_t)k->isa, (uint32_t)nr, 2, n, kdim, panels, stride, total);
  for (size_t p = p0; p < p1 && p < panels; p++) {
    uint8_t *panel = dst + PTE_XNN_PACKED_HEADER_SIZE + p * stride;
    float *pb = (float *)panel;
    float *ps = (float *)(panel + nr * 4);
    int32_t *pk = (int32_t *)(panel + nr * 8);
    pack_i8_block(nr, p * nr, n, kdim, w, rs, cs, (int8_t *)(panel + nr * 12), sum);
    for (size_t j = 0; j < nr; j++) {
      const size_t o = p * nr + j;
      pb[j] = o < n && bias ? bias[o] : 0.0f;
      ps[j] = o < n ? wscale[o] : 0.0f;
      pk[j] = (int32_t)sum[j];
    }
    memset(panel + used, 0, stride - used);
  }
}

/* ---- depthwise: [C bias][taps x C] ------------------------------------------------------------ */
pte_status pte_xnn_pack_f32_dwconv(size_t c, size_t taps, const float *w, const float *bias, pte_xnn_packed *out) {
  if (too_big(c, taps)) return PTE_ERR_NOT_SUPPORTED;
  const size_t stride = align64((c + taps * c) * sizeof(float));
  const size_t total = PTE_XNN_PACKED_HEADER_SIZE + stride;
  pte_status s = alloc_packed(total, out);
  if (s != PTE_OK) return s;
  write_header(out->bytes, PTE_XNN_PACK_F32_DWCONV, 0, (uint32_t)c, c, taps, 1, stride, total);
  float *pb = (float *)(out->bytes + PTE_XNN_PACKED_HEADER_SIZE);
  memset(pb, 0, stride);
  for (size_t ch = 0; ch < c; ch++) pb[ch] = bias ? bias[ch] : 0.0f;
  memcpy(pb + c, w, taps * c * sizeof(float));
  return PTE_OK;
}

/* ---- layouts (prepared data) ------------------------------------------------------------------ */
pte_xnn_packed_info pte_xnn_packed_layout(uint32_t kind, uint32_t isa, size_t nr, size_t n, size_t kdim) {
  pte_xnn_packed_info o;
  memset(&o, 0, sizeof o);
  const size_t k2 = (kdim + 1) & ~(size_t)1;
  size_t panel = 0, panels = nr ? (n + nr - 1) / nr : 0;
  o.kr = 1;
  switch (kind) {
    case PTE_XNN_PACK_F32_GEMM: panel = (nr + kdim * nr) * sizeof(float); break;
    case PTE_XNN_PACK_QS8_GEMM: panel = nr * 8 + k2 * nr, o.kr = 2; break;
    case PTE_XNN_PACK_QD8_GEMM: panel = nr * 12 + k2 * nr, o.kr = 2; break;
    case PTE_XNN_PACK_F32_DWCONV: panel = (n + kdim * n) * sizeof(float), panels = 1; break;
    default: break;
  }
  o.kind = kind;
  o.isa = isa;
  o.nr = (uint32_t)nr;
  o.n = (uint32_t)n;
  o.k = (uint32_t)kdim;
  o.n_panels = (uint32_t)panels;
  o.panel_stride = align64(panel);
  o.total_size = PTE_XNN_PACKED_HEADER_SIZE + (uint64_t)panels * o.panel_stride;
  return o;
}

pte_xnn_packed_info pte_xnn_packed_expect(const pte_xnn_kernels *k, uint32_t kind, size_t n, size_t kdim) {
  switch (kind) {
    case PTE_XNN_PACK_F32_GEMM:
      return pte_xnn_packed_layout(kind, (uint32_t)k->isa, pte_xnn_f32_tile_for_n(k, n).nr, n, kdim);
    case PTE_XNN_PACK_QS8_GEMM:
    case PTE_XNN_PACK_QD8_GEMM: return pte_xnn_packed_layout(kind, (uint32_t)k->isa, k->i8_nr, n, kdim);
    default: return pte_xnn_packed_layout(kind, 0, n, n, kdim); /* depthwise: ISA independent */
  }
}

bool pte_xnn_packed_header_read(const uint8_t *h, size_t avail, pte_xnn_packed_info *o) {
  if (!h || avail < PTE_XNN_PACKED_HEADER_SIZE || memcmp(h, PTE_XNN_PACKED_MAGIC, 4) != 0) return false;
  if ((uint32_t)(h[4] | (h[5] << 8)) != PTE_XNN_PACKED_VERSION ||
      (uint32_t)(h[6] | (h[7] << 8)) != PTE_XNN_PACKED_HEADER_SIZE)
    return false;
  o->kind = ld32(h + 8);
  o->isa = ld32(h + 12);
  o->nr = ld32(h + 16);
  o->kr = ld32(h + 20);
  o->n = ld32(h + 24);
  o->k = ld32(h + 28);
  o->n_panels = ld32(h + 32);
  o->panel_stride = ld64(h + 40);
  o->total_size = ld64(h + 48);
  return true;
}

/* Copies every value of a packed blob into another panel width: output channel o moves from
 * column o % si->nr of panel o / si->nr to column o % di->nr of panel o / di->nr, with its
 * per-column fields (bias, scales, column sums) and its K weights. */
void pte_xnn_packed_relayout(const uint8_t *src, const pte_xnn_packed_info *si, uint8_t *dst,
                             const pte_xnn_packed_info *di) {
  write_header_kr(dst, di->kind, di->isa, di->nr, di->kr, di->n, di->k, di->n_panels, (size_t)di->panel_stride,
                  (size_t)di->total_size);
  const size_t n = di->n, kdim = di->k, snr = si->nr, dnr = di->nr;
  const uint8_t *sb = src + PTE_XNN_PACKED_HEADER_SIZE;
  uint8_t *db = dst + PTE_XNN_PACKED_HEADER_SIZE;
  memset(db, 0, (size_t)di->n_panels * (size_t)di->panel_stride);
  if (di->kind == PTE_XNN_PACK_F32_GEMM) {
    /* panel: [NR f32 bias][K x NR f32] */
    for (size_t o = 0; o < n; o++) {
      const uint8_t *sp = sb + (o / snr) * si->panel_stride;
      uint8_t *dp = db + (o / dnr) * di->panel_stride;
      const size_t sj = o % snr, dj = o % dnr;
      memcpy(dp + dj * 4, sp + sj * 4, 4);
      for (size_t i = 0; i < kdim; i++) memcpy(dp + (dnr + i * dnr + dj) * 4, sp + (snr + i * snr + sj) * 4, 4);
    }
    return;
  }
  /* int8: [NR x fields of 4 bytes][K/2 x NR x 2 i8] */
  const size_t fields = di->kind == PTE_XNN_PACK_QD8_GEMM ? 3 : 2;
  const size_t k2 = (kdim + 1) & ~(size_t)1;
  for (size_t o = 0; o < n; o++) {
    const uint8_t *sp = sb + (o / snr) * si->panel_stride;
    uint8_t *dp = db + (o / dnr) * di->panel_stride;
    const size_t sj = o % snr, dj = o % dnr;
    for (size_t f = 0; f < fields; f++) memcpy(dp + (f * dnr + dj) * 4, sp + (f * snr + sj) * 4, 4);
    const uint8_t *sw = sp + fields * snr * 4;
    uint8_t *dw = dp + fields * dnr * 4;
    for (size_t i = 0; i < k2; i++) dw[(i / 2) * dnr * 2 + dj * 2 + (i & 1)] = sw[(i / 2) * snr * 2 + sj * 2 + (i & 1)];
  }
}
