/* fb_verify_desc.c — interpreter of the field descriptors tools/fbsgen emits (see
 * fb_verify_desc.h). Core: no allocation, no stdio. */
#include "format/fb_verify_desc.h"

#if !defined(__OPTIMIZE_SIZE__)
/* The vtable entry of `slot` (0: absent), as the checks read it. */
static inline uint32_t vt_entry(const pte_fb_table *t, unsigned slot) {
  uint32_t vo = 4u + 2u * slot;
  return vo + 2u > t->vt_len ? 0 : pte_fb_ld_u16(t->buf + t->vt + vo);
}
#endif

pte_status pte_fb_verify_table_desc(pte_fb_verifier *v, uint32_t pos, const char *name, const pte_fb_vfield *fields,
                                    unsigned n) {
  pte_fb_table t;
  pte_status s = pte_fb_verify_table_begin(v, pos, name, &t);
  if (s != PTE_OK) return s;
  for (unsigned i = 0; i < n && s == PTE_OK; i++) {
    const pte_fb_vfield *f = &fields[i];
    bool req = f->required != 0;
#if !defined(__OPTIMIZE_SIZE__) /* fast paths (size-optimised builds keep the plain calls) */
    /* an absent optional field passes every check below (a union: both its slots absent), so it
     * costs one vtable read instead of a call */
    if (!req && vt_entry(&t, f->slot) == 0 && (f->kind != PTE_FB_VK_UNION || vt_entry(&t, f->slot - 1u) == 0)) continue;
    if (f->kind == PTE_FB_VK_INLINE) {
      /* the checks of pte_fb_verify_field, inline; it runs (for its message) only on a failure */
      const uint32_t fo = vt_entry(&t, f->slot);
      const uint64_t at = (uint64_t)t.pos + fo;
      if (fo >= 4 && at + f->size <= (uint64_t)t.size && (f->align <= 1 || at % f->align == 0)) continue;
    }
#endif
    switch (f->kind) {
      case PTE_FB_VK_INLINE: s = pte_fb_verify_field(v, t, f->slot, f->size, f->align); break;
      case PTE_FB_VK_STR: s = pte_fb_verify_str(v, t, f->slot, req); break;
      case PTE_FB_VK_VEC: s = pte_fb_verify_vec(v, t, f->slot, f->size, f->align, req, NULL); break;
      case PTE_FB_VK_VEC_STR: s = pte_fb_verify_vec_str(v, t, f->slot, req); break;
      case PTE_FB_VK_VEC_TABLE: s = pte_fb_verify_vec_table(v, t, f->slot, f->u.fn, req); break;
      case PTE_FB_VK_TABLE: s = pte_fb_verify_table_field(v, t, f->slot, f->u.fn, req); break;
      case PTE_FB_VK_UNION:
        if (req && pte_fb_field_pos(t, f->slot) == 0)
          s = pte_error_set(v->err, PTE_ERR_INVALID_PROGRAM, "%s: required union (field %u) is missing", name,
                            (unsigned)f->slot);
        else
          s = pte_fb_verify_union(v, t, f->slot - 1u, f->slot, f->u.tags, f->align);
        break;
      default: s = pte_error_set(v->err, PTE_ERR_INVALID_PROGRAM, "%s: bad field descriptor %u", name, i); break;
    }
  }
  pte_fb_verify_table_end(v);
  return s;
}
