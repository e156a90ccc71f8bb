/* prog_checks.c — checks shared by the program, .ptd and bundled-program readers: serialized
 * tensor shapes, segment tables, key lookup (prog_internal.h; core: no allocation, no stdio). */
#include <stdint.h>
#include <string.h>

#include "format/flatbuf.h"
#include "pte/tensor.h"
#include "pte_gen/program_gen.h"
#include "runtime/prog_internal.h"

#define MAX_UNSORTED_SEGMENTS 4096u

int pte_rt_check_shape(int dtype, pte_fb_vec sizes, pte_fb_vec dim_order, bool require_dim_order,
                       uint64_t *nbytes, pte_error_info *detail) {
  if (nbytes) *nbytes = 0;
  if (!pte_dtype_valid(dtype)) {
    pte_error_set(detail, PTE_ERR_INVALID_PROGRAM, "invalid scalar type %d", dtype);
    return PTE_RT_SHAPE_BAD;
  }
  if (!sizes.present) {
    pte_error_set(detail, PTE_ERR_INVALID_PROGRAM, "tensor has no sizes");
    return PTE_RT_SHAPE_BAD;
  }
  uint32_t rank = sizes.len;
  if (rank > PTE_MAX_RANK) {
    pte_error_set(detail, PTE_ERR_INVALID_PROGRAM, "tensor rank %u exceeds the maximum of %d", rank,
                  PTE_MAX_RANK);
    return PTE_RT_SHAPE_BAD;
  }
  if (!pte_rt_vec_fits(sizes, 4)) {
    pte_error_set(detail, PTE_ERR_INVALID_PROGRAM, "tensor sizes run past the end of the buffer");
    return PTE_RT_SHAPE_BAD;
  }
  if (dim_order.present || require_dim_order) {
    if (!dim_order.present) {
      pte_error_set(detail, PTE_ERR_INVALID_PROGRAM, "tensor has no dim_order");
      return PTE_RT_SHAPE_BAD;
    }
    if (dim_order.len != rank) {
      pte_error_set(detail, PTE_ERR_INVALID_PROGRAM, "dim_order has %u entries for rank %u", dim_order.len,
                    rank);
      return PTE_RT_SHAPE_BAD;
    }
    if (!pte_rt_vec_fits(dim_order, 1)) {
      pte_error_set(detail, PTE_ERR_INVALID_PROGRAM, "dim_order runs past the end of the buffer");
      return PTE_RT_SHAPE_BAD;
    }
    const uint8_t *d = dim_order.buf + dim_order.data;
    uint32_t seen = 0;
    for (uint32_t i = 0; i < rank; i++) {
      if (d[i] >= rank || (seen & (1u << d[i]))) {
        pte_error_set(detail, PTE_ERR_INVALID_PROGRAM,
                      "dim_order is not a permutation of 0..%u (entry %u is %u)", rank ? rank - 1 : 0, i,
                      (unsigned)d[i]);
        return PTE_RT_SHAPE_BAD;
      }
      seen |= 1u << d[i];
    }
  }
  const uint8_t *s = sizes.buf + sizes.data;
  const uint64_t limit = (uint64_t)PTRDIFF_MAX;
  uint64_t numel = 1;
  bool overflow = false;
  for (uint32_t i = 0; i < rank; i++) {
    int32_t v = pte_fb_ld_i32(s + 4u * i);
    if (v < 0) {
      pte_error_set(detail, PTE_ERR_INVALID_PROGRAM, "size %d at dimension %u is negative", (int)v, i);
      return PTE_RT_SHAPE_BAD;
    }
    if (!overflow && v != 0 && numel > limit / (uint64_t)v) overflow = true;
    if (!overflow) numel *= (uint64_t)v;
  }
  size_t es = pte_dtype_size(dtype);
  if (!overflow && numel > limit / es) overflow = true;
  if (overflow) {
    pte_error_set(detail, PTE_ERR_INVALID_PROGRAM, "tensor byte size overflows (rank %u, element size %zu)",
                  rank, es);
    return PTE_RT_SHAPE_OVERFLOW;
  }
  if (nbytes) *nbytes = numel * es;
  return PTE_RT_SHAPE_OK;
}

pte_status pte_rt_check_segments(pte_fb_vec segments, uint64_t limit, const char *what, pte_status bad,
                                 pte_error_info *err) {
  if (!segments.present) return PTE_OK;
  uint64_t prev_end = 0;
  bool sorted = true;
  for (uint32_t i = 0; i < segments.len; i++) {
    pte_fb_table t = pte_fb_vec_table(segments, i);
    if (!pte_fb_table_present(t)) return pte_error_set(err, bad, "%s segment %u is missing", what, i);
    uint64_t off, size;
    pte_rt_seg_get(t, &off, &size);
    if (size > UINT64_MAX - off)
      return pte_error_set(err, bad, "%s segment %u: offset %llu + size %llu overflows", what, i, pte_rt_ull(off),
                           pte_rt_ull(size));
    if (off + size > limit)
      return pte_error_set(err, bad,
                           "%s segment %u (offset %llu, size %llu) lies outside the segment data (%llu bytes)",
                           what, i, pte_rt_ull(off), pte_rt_ull(size), pte_rt_ull(limit));
    if (size == 0) continue;
    if (off < prev_end) sorted = false;
    else prev_end = off + size;
  }
  if (sorted) return PTE_OK;
  /* Unsorted: pairwise check of non-empty segments (bounded, so a hostile table cannot make this
   * quadratic in an unbounded way). */
  if (segments.len > MAX_UNSORTED_SEGMENTS)
    return pte_error_set(err, bad, "%s has %u segments that are not in ascending order (at most %u allowed)",
                         what, segments.len, MAX_UNSORTED_SEGMENTS);
  for (uint32_t i = 0; i < segments.len; i++) {
    uint64_t oi, si;
    pte_rt_seg_get(pte_fb_vec_table(segments, i), &oi, &si);
    if (si == 0) continue;
    for (uint32_t j = i + 1; j < segments.len; j++) {
      uint64_t oj, sj;
      pte_rt_seg_get(pte_fb_vec_table(segments, j), &oj, &sj);
      if (sj == 0) continue;
      if (oi < oj + sj && oj < oi + si)
        return pte_error_set(err, bad,
                             "%s segments %u (offset %llu, size %llu) and %u (offset %llu, size %llu) overlap",
                             what, i, pte_rt_ull(oi), pte_rt_ull(si), j, pte_rt_ull(oj), pte_rt_ull(sj));
    }
  }
  return PTE_OK;
}

uint32_t pte_rt_find_key(pte_fb_vec entries, unsigned key_slot, const char *key) {
  if (!key || !entries.present) return UINT32_MAX;
  size_t klen = strlen(key);
  for (uint32_t i = 0; i < entries.len; i++) {
    pte_fb_str s = pte_fb_get_str(pte_fb_vec_table(entries, i), key_slot);
    if (s.ptr && s.len == klen && memcmp(s.ptr, key, klen) == 0) return i;
  }
  return UINT32_MAX;
}

/* Byte order of two keys (a shorter key that is a prefix of the other sorts first). */
static int rt_key_cmp(const char *a, size_t alen, const char *b, size_t blen) {
  int c = memcmp(a, b, alen < blen ? alen : blen);
  if (c) return c;
  return alen < blen ? -1 : alen > blen;
}

bool pte_rt_keys_sorted(pte_fb_vec entries, unsigned key_slot) {
  if (!entries.present) return false;
  pte_fb_str prev = {NULL, 0};
  for (uint32_t i = 0; i < entries.len; i++) {
    pte_fb_str s = pte_fb_get_str(pte_fb_vec_table(entries, i), key_slot);
    if (!s.ptr) return false;
    if (i > 0 && rt_key_cmp(prev.ptr, prev.len, s.ptr, s.len) >= 0) return false;
    prev = s;
  }
  return true;
}

uint32_t pte_rt_find_key_sorted(pte_fb_vec entries, unsigned key_slot, const char *key) {
  if (!key || !entries.present) return UINT32_MAX;
  const size_t klen = strlen(key);
  uint32_t lo = 0, hi = entries.len;
  while (lo < hi) {
    const uint32_t mid = lo + (hi - lo) / 2;
    pte_fb_str s = pte_fb_get_str(pte_fb_vec_table(entries, mid), key_slot);
    if (!s.ptr) return pte_rt_find_key(entries, key_slot, key); /* not what the sortedness check saw */
    const int c = rt_key_cmp(s.ptr, s.len, key, klen);
    if (c == 0) return mid;
    if (c < 0) lo = mid + 1;
    else hi = mid;
  }
  return UINT32_MAX;
}
