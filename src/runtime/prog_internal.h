/* prog_internal.h — helpers shared by the program, .ptd and bundled-program readers (internal).
 *
 * All of them work on the bounds-checked FlatBuffers reader (format/flatbuf.h), so they are safe
 * on unverified bytes too; they only format messages on failure.
 */
#ifndef PTE_RUNTIME_PROG_INTERNAL_H
#define PTE_RUNTIME_PROG_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "format/flatbuf.h"
#include "pte/program.h"
#include "pte/status.h"
#include "pte_gen/program_gen.h"

/* Minimum in-memory alignment of a flatbuffer region (alignof(max_align_t) on the usual ABIs,
 * what upstream requires). */
#define PTE_RT_BUFFER_ALIGN 16

/* A uint64_t as the type printf's %llu wants. */
static inline unsigned long long pte_rt_ull(uint64_t x) { return (unsigned long long)x; }

/* True when vector v really holds v.len elements of elem_size bytes inside its buffer. */
static inline bool pte_rt_vec_fits(pte_fb_vec v, size_t elem_size) {
  if (!v.present) return false;
  uint64_t room = (uint64_t)v.size - (uint64_t)v.data;
  return (uint64_t)v.len * (uint64_t)elem_size <= room;
}

/* Outcome of pte_rt_check_shape. */
enum {
  PTE_RT_SHAPE_OK = 0,
  PTE_RT_SHAPE_OVERFLOW = 1, /* only numel/nbytes overflowed (everything else fine) */
  PTE_RT_SHAPE_BAD = 2       /* anything else */
};

/* Checks a serialized tensor shape: dtype valid (0..29), sizes present with rank <= 16 and every
 * size >= 0, dim_order (if `require_dim_order`, or if present) of the same length and a
 * permutation of 0..rank-1, numel * element size representable (<= PTRDIFF_MAX). On success
 * *nbytes is the byte size. On failure `detail` (may be NULL) gets a message without prefix. */
int pte_rt_check_shape(int dtype, pte_fb_vec sizes, pte_fb_vec dim_order, bool require_dim_order,
                       uint64_t *nbytes, pte_error_info *detail);

/* Checks a vector of DataSegment tables (slot 0 offset u64, slot 1 size u64): every entry
 * present, offset + size without overflow and <= `limit` (the bytes available after the segment
 * base), and no two non-empty segments overlapping. Failures return `bad` with a message
 * mentioning `what` ("program", ".ptd"). */
pte_status pte_rt_check_segments(pte_fb_vec segments, uint64_t limit, const char *what,
                                 pte_status bad, pte_error_info *err);

/* Maps any verifier failure to `status`, keeping the message. */
static inline pte_status pte_rt_remap(pte_status s, pte_status status, pte_error_info *err) {
  if (s == PTE_OK) return s;
  if (err) err->status = status;
  return status;
}

/* Printable copy of a 4-byte identifier ("ET12"); non-printable bytes become '?'. */
static inline void pte_rt_ident(const uint8_t *p, char out[5]) {
  for (int i = 0; i < 4; i++) out[i] = (p[i] >= 0x20 && p[i] < 0x7f) ? (char)p[i] : '?';
  out[4] = 0;
}

/* Key lookup in a vector of tables whose string key is at `key_slot` (a generated <P>_<Table>_<field>_SLOT):
 * index or UINT32_MAX. */
uint32_t pte_rt_find_key(pte_fb_vec entries, unsigned key_slot, const char *key);
/* True when every entry has a key and the keys are strictly increasing in byte order (a key
 * that is a prefix of another sorts first); then pte_rt_find_key_sorted (binary search, same
 * answers) may be used. */
bool pte_rt_keys_sorted(pte_fb_vec entries, unsigned key_slot);
uint32_t pte_rt_find_key_sorted(pte_fb_vec entries, unsigned key_slot, const char *key);

/* A DataSegment table's offset and size. */
static inline void pte_rt_seg_get(pte_fb_table t, uint64_t *off, uint64_t *size) {
  *off = pte_et_DataSegment_offset(t);
  *size = pte_et_DataSegment_size(t);
}

/* The root table of a loaded program (bounds-checked reads). */
static inline pte_fb_table pte_rt_program_root(const pte_program *p) {
  return pte_fb_table_at(p->fb, p->fb_size, p->root);
}

/* Semantic validation of a loaded program whose flatbuffer passed the generated verifier
 * (program_validate.c): PTE_ERR_INVALID_PROGRAM with a message naming the method/value/instruction. */
pte_status pte_rt_validate_program(const pte_program *p, pte_error_info *err);

/* The vtable of the in-file named data map (program_data_map.c): pte_program.named_data. */
extern const pte_named_data_map_vtable pte_rt_program_data_map_vt;

#endif
