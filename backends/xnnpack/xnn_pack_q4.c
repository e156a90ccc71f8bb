/* Packing of 4-bit FullyConnected weights (layout: xnn_q4.h) and half-precision helpers. */
#include <math.h>
#include <string.h>

#include "xnn_q4.h"

float pte_xnn_f16_to_f32(uint16_t h) {
  const uint32_t sign = (uint32_t)(h >> 15) & 1u, exp = (uint32_t)(h >> 10) & 0x1Fu, man = h & 0x3FFu;
  float v;
  if (exp == 0) v = ldexpf((float)man, -24);                      /* zero / subnormal */
  else if (exp == 31) v = man ? NAN : INFINITY;
  else v = ldexpf((float)(man | 0x400u), (int)exp - 25);
  return sign ? -v : v;
}

static void q4_st32(uint8_t *p, uint32_t v) {
  for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static void q4_st64(uint8_t *p, uint64_t v) {
  for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}

pte_xnn_packed_info pte_xnn_q4_layout(size_t n, size_t kdim, size_t block) {
  pte_xnn_packed_info o;
  memset(&o, 0, sizeof o);
  const size_t kp = pte_xnn_q4_kp(kdim), nb = block ? kdim / block : 1;
  const size_t panels = (n + PTE_XNN_Q4_NR - 1) / PTE_XNN_Q4_NR;
  size_t stride = 192 + kp * 8;
  if (block) stride += ((nb * 32) + 63) & ~(size_t)63;
  o.kind = PTE_XNN_PACK_Q4_GEMM;
  o.isa = 0;
  o.nr = PTE_XNN_Q4_NR;
  o.kr = (uint32_t)block;
  o.n = (uint32_t)n;
  o.k = (uint32_t)kdim;
  o.n_panels = (uint32_t)panels;
  o.panel_stride = stride;
  o.total_size = PTE_XNN_PACKED_HEADER_SIZE + (uint64_t)panels * stride;
  return o;
}

static inline unsigned q4_nib(const uint8_t *w, size_t idx) {
  const uint8_t b = w[idx >> 1];
  return (idx & 1) ? (unsigned)(b >> 4) : (unsigned)(b & 0x0F);
}

/* 8 nibbles n0..n7 (n_i at bits 4i) -> bytes (n0|n4<<4, n1|n5<<4, n2|n6<<4, n3|n7<<4): swap the
 * middle bytes, then the middle nibbles of each half. */
static inline uint32_t q4_chunk_word(uint32_t x) {
  uint32_t t = (x ^ (x >> 8)) & 0x0000FF00u;
  x = x ^ t ^ (t << 8);
  t = (x ^ (x >> 4)) & 0x00F000F0u;
  return x ^ t ^ (t << 4);
}
static inline uint32_t q4_ld32le(const uint8_t *p) {
  return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}
/* sum of the 8 nibbles of a word */
static inline uint32_t q4_nibble_sum(uint32_t v) {
  const uint32_t b = (v & 0x0F0F0F0Fu) + ((v >> 4) & 0x0F0F0F0Fu);
  return (b * 0x01010101u) >> 24;
}

void pte_xnn_pack_q4_panels(size_t n, size_t kdim, size_t block, const uint8_t *w, const float *cscale,
                            const uint16_t *bscale, const float *bias, uint8_t *dst, size_t p0, size_t p1) {
  const pte_xnn_packed_info li = pte_xnn_q4_layout(n, kdim, block);
  const size_t kp = pte_xnn_q4_kp(kdim), nb = block ? kdim / block : 1, bl = block ? block : kp;
  const size_t sc_bytes = block ? ((nb * 32) + 63) & ~(size_t)63 : 0;
  if (p0 == 0) {
    memset(dst, 0, PTE_XNN_PACKED_HEADER_SIZE);
    memcpy(dst, PTE_XNN_PACKED_MAGIC, 4);
    dst[4] = (uint8_t)PTE_XNN_PACKED_VERSION;
    dst[6] = (uint8_t)PTE_XNN_PACKED_HEADER_SIZE;
    q4_st32(dst + 8, li.kind);
    q4_st32(dst + 12, li.isa);
    q4_st32(dst + 16, li.nr);
    q4_st32(dst + 20, li.kr);
    q4_st32(dst + 24, li.n);
    q4_st32(dst + 28, li.k);
    q4_st32(dst + 32, li.n_panels);
    q4_st64(dst + 40, li.panel_stride);
    q4_st64(dst + 48, li.total_size);
  }
  const bool fast = kdim % 8 == 0; /* rows of whole 4-byte words: word arithmetic */
  for (size_t p = p0; p < p1; p++) {
    uint8_t *panel = dst + PTE_XNN_PACKED_HEADER_SIZE + p * li.panel_stride;
    float hb[16], hs[16], hk[16];
    uint16_t *ps = (uint16_t *)(void *)(panel + 192);
    uint8_t *chunks = panel + 192 + sc_bytes;
    for (size_t c = 0; c < 16; c++) {
      const size_t col = p * 16 + c;
      const bool live = col < n;
      hb[c] = live && bias ? bias[col] : 0.0f;
      hs[c] = live ? (block ? 1.0f : cscale[col]) : 0.0f;
      double ks = 0.0;
      for (size_t b = 0; b < nb; b++) {
        int32_t s = 0;
        if (fast && live) {
          const uint8_t *row = w + col * kdim / 2 + b * bl / 2;
          for (size_t q = 0; q < bl / 8; q++) s += (int32_t)q4_nibble_sum(q4_ld32le(row + 4 * q)) - 64;
        } else {
          for (size_t k = b * bl; live && k < b * bl + bl && k < kdim; k++) s += (int32_t)q4_nib(w, col * kdim + k) - 8;
        }
        const uint16_t bs = live && block ? bscale[col * nb + b] : 0;
        if (block) ps[b * 16 + c] = bs;
        ks += block ? (double)pte_xnn_bf16_to_f32(bs) * (double)s : (double)s;
      }
      hk[c] = (float)ks;
    }
    memcpy(panel, hb, 64);
    memcpy(panel + 64, hs, 64);
    memcpy(panel + 128, hk, 64);
    if (block && sc_bytes > nb * 32) memset(panel + 192 + nb * 32, 0, sc_bytes - nb * 32);
    if (fast) {
      for (size_t c = 0; c < 16; c++) {
        const size_t col = p * 16 + c;
        const uint8_t *row = w + col * kdim / 2;
        for (size_t q = 0; q < kp / 8; q++) {
          const uint32_t v = col < n ? q4_chunk_word(q4_ld32le(row + 4 * q)) : 0x88888888u;
          uint8_t *o = chunks + q * 64 + 4 * c;
          o[0] = (uint8_t)v, o[1] = (uint8_t)(v >> 8), o[2] = (uint8_t)(v >> 16), o[3] = (uint8_t)(v >> 24);
        }
      }
      continue;
    }
    for (size_t q = 0; q < kp / 8; q++) {
      uint8_t *ch = chunks + q * 64;
      for (size_t c = 0; c < 16; c++) {
        const size_t col = p * 16 + c;
        for (size_t j = 0; j < 4; j++) {
          const size_t k0 = 8 * q + j, k1 = 8 * q + 4 + j;
          const unsigned lo = col < n && k0 < kdim ? q4_nib(w, col * kdim + k0) : 8u;
          const unsigned hi = col < n && k1 < kdim ? q4_nib(w, col * kdim + k1) : 8u;
          ch[4 * c + j] = (uint8_t)(lo | (hi << 4));
        }
      }
    }
  }
}
