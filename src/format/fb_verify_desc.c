/* fb_verify_desc.c — interpreter of the field descriptors tools/fbsgen emits (see
 * fb_verify_desc.h). Core: no allocation, no stdio. */
#include "format/fb_verify_desc.h"

pte_status pte_fb_verify_table_desc(pte_fb_verifier *v, uint32_t pos, const char *name, const pte_fb_vfield *fields,
                                    unsigned n) {
  pte_fb_table t;
  pte_status s = pte_fb_verify_table_begin(v, pos, name, &t);
  if (s != PTE_OK) return s;
  for (unsigned i = 0; i < n && s == PTE_OK; i++) {
    const pte_fb_vfield *f = &fields[i];
    bool req = f->required != 0;
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
