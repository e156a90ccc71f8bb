/* fb_verify_desc.h — table-driven FlatBuffers table verification (internal).
 *
 * tools/fbsgen describes every field of a table as one pte_fb_vfield (what kind of field, its
 * vtable slot, element size/alignment, nested verifier) and each generated <P>_<Table>_verify()
 * is a one-line call of pte_fb_verify_table_desc(). Checks, order and messages are exactly those
 * of calling the pte_fb_verify_* functions of format/flatbuf.h one field after the other (which
 * is what the interpreter does); only the code size differs: one small loop instead of a
 * function body per table (docs/footprint.md).
 */
#ifndef PTE_FORMAT_FB_VERIFY_DESC_H
#define PTE_FORMAT_FB_VERIFY_DESC_H

#include <stdint.h>

#include "format/flatbuf.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum pte_fb_vkind {
  PTE_FB_VK_INLINE = 0,    /* scalar or struct: pte_fb_verify_field(slot, size, align) */
  PTE_FB_VK_STR = 1,       /* pte_fb_verify_str(slot, required) */
  PTE_FB_VK_VEC = 2,       /* vector of scalars/structs: pte_fb_verify_vec(slot, size, align, required) */
  PTE_FB_VK_VEC_STR = 3,   /* pte_fb_verify_vec_str(slot, required) */
  PTE_FB_VK_VEC_TABLE = 4, /* pte_fb_verify_vec_table(slot, u.fn, required) */
  PTE_FB_VK_TABLE = 5,     /* pte_fb_verify_table_field(slot, u.fn, required) */
  PTE_FB_VK_UNION = 6      /* pte_fb_verify_union(slot - 1, slot, u.tags, n_tags); required: the
                              value must be present ("<Table>: required union (field N) is missing") */
} pte_fb_vkind;

typedef struct pte_fb_vfield {
  uint8_t kind;      /* pte_fb_vkind */
  uint8_t required;  /* 0 / 1 */
  uint16_t slot;     /* vtable slot (a union's value slot; its type tag is slot - 1) */
  uint16_t size;     /* inline size or vector element size */
  uint16_t align;    /* inline or element alignment; for PTE_FB_VK_UNION: number of tags */
  union {
    pte_fb_verify_fn fn;           /* PTE_FB_VK_TABLE / PTE_FB_VK_VEC_TABLE */
    const pte_fb_verify_fn *tags;  /* PTE_FB_VK_UNION: verifier per tag (entry 0 = NONE) */
  } u;
} pte_fb_vfield;

/* Verifies the table at pos named `name` (for messages) with fields[0..n): table header first
 * (pte_fb_verify_table_begin), then every field in order, stopping at the first failure.
 * Returns PTE_OK or PTE_ERR_INVALID_PROGRAM with the message of the failing check. */
pte_status pte_fb_verify_table_desc(pte_fb_verifier *v, uint32_t pos, const char *name, const pte_fb_vfield *fields,
                                    unsigned n);

#ifdef __cplusplus
}
#endif
#endif
