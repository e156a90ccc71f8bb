#include "pte/evalue.h"

static const char *const k_tag_names[] = {"None", "Tensor", "String", "Double", "Int", "Bool",
                                          "ListBool", "ListDouble", "ListInt", "ListTensor",
                                          "ListScalar", "ListOptionalTensor"};

const char *pte_tag_name(int tag) {
  return (tag >= 0 && tag <= PTE_TAG_LIST_OPTIONAL_TENSOR) ? k_tag_names[tag] : "Invalid";
}

const int64_t *pte_evalue_int_list(pte_evalue *v, size_t *len) {
  if (!v || v->tag != PTE_TAG_LIST_INT) return NULL;
  size_t n = v->u.int_list.len;
  for (size_t i = 0; i < n; i++) {
    const pte_evalue *it = v->u.int_list.items[i];
    if (!it || it->tag != PTE_TAG_INT) return NULL;
    v->u.int_list.unboxed[i] = it->u.i;
  }
  if (len) *len = n;
  static const int64_t k_empty[1] = {0}; /* a valid pointer even for an empty list */
  return n ? v->u.int_list.unboxed : k_empty;
}

bool pte_evalue_to_double(const pte_evalue *v, double *out) {
  if (!v) return false;
  switch (v->tag) {
    case PTE_TAG_DOUBLE: *out = v->u.d; return true;
    case PTE_TAG_INT: *out = (double)v->u.i; return true;
    case PTE_TAG_BOOL: *out = v->u.b ? 1.0 : 0.0; return true;
    default: return false;
  }
}

bool pte_evalue_to_int(const pte_evalue *v, int64_t *out) {
  if (!v) return false;
  switch (v->tag) {
    case PTE_TAG_INT: *out = v->u.i; return true;
    case PTE_TAG_BOOL: *out = v->u.b ? 1 : 0; return true;
    case PTE_TAG_DOUBLE:
      if (!(v->u.d >= -9.2233720368547758e18 && v->u.d < 9.2233720368547758e18)) return false;
      *out = (int64_t)v->u.d;
      return true;
    default: return false;
  }
}
