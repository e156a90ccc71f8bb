/* pte/evalue.h — the values a method operates on (upstream EValue).
 *
 * Every slot of a method's value table is a pte_evalue. Instructions refer to values by index;
 * kernels receive an array of pointers to the values named by their KernelCall.
 */
#ifndef PTE_EVALUE_H
#define PTE_EVALUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pte/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Tag values as upstream's EValue Tag enum. */
typedef enum pte_tag {
  PTE_TAG_NONE = 0,
  PTE_TAG_TENSOR = 1,
  PTE_TAG_STRING = 2,
  PTE_TAG_DOUBLE = 3,
  PTE_TAG_INT = 4,
  PTE_TAG_BOOL = 5,
  PTE_TAG_LIST_BOOL = 6,
  PTE_TAG_LIST_DOUBLE = 7,
  PTE_TAG_LIST_INT = 8,
  PTE_TAG_LIST_TENSOR = 9,
  PTE_TAG_LIST_SCALAR = 10,
  PTE_TAG_LIST_OPTIONAL_TENSOR = 11
} pte_tag;

const char *pte_tag_name(int tag);

typedef struct pte_evalue pte_evalue;

struct pte_evalue {
  uint32_t tag; /* pte_tag */
  union {
    int64_t i;
    double d;
    bool b;
    struct {
      const char *ptr; /* not NUL-terminated in general */
      size_t len;
    } str;
    pte_tensor *tensor;
    struct {
      pte_evalue **items; /* boxed: each an Int value (may change at run time: SymInt) */
      int64_t *unboxed;   /* scratch of len entries, refreshed by pte_evalue_int_list() */
      size_t len;
    } int_list;
    struct {
      const double *items;
      size_t len;
    } double_list;
    struct {
      const uint8_t *items; /* 0 / 1 */
      size_t len;
    } bool_list;
    struct {
      pte_evalue **items; /* each a Tensor value */
      size_t len;
    } tensor_list;
    struct {
      pte_evalue **items; /* each a Tensor value, or NULL for None */
      size_t len;
    } opt_tensor_list;
  } u;
};

static inline bool pte_evalue_is_tensor(const pte_evalue *v) { return v && v->tag == PTE_TAG_TENSOR; }
static inline bool pte_evalue_is_none(const pte_evalue *v) { return !v || v->tag == PTE_TAG_NONE; }

/* Reads the current integers of an IntList (unboxing from its Int values) and returns the
 * array (length in *len), or NULL if v is not an IntList or an item is not an Int. */
const int64_t *pte_evalue_int_list(pte_evalue *v, size_t *len);

/* Scalar reads with conversion from Int/Double/Bool; return false if v is not a scalar. */
bool pte_evalue_to_double(const pte_evalue *v, double *out);
bool pte_evalue_to_int(const pte_evalue *v, int64_t *out);

#ifdef __cplusplus
}
#endif
#endif
