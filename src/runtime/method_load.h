/* method_load.h — shared by the files of method load (internal): method.c (chains, entry points),
 * method_values.c (values, tensors and their data), method_delegates.c (delegates, scratch). */
#ifndef PTE_RUNTIME_METHOD_LOAD_H
#define PTE_RUNTIME_METHOD_LOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "method_internal.h"

typedef struct load_ctx {
  pte_method *m;
  const pte_memory_manager *mm;
  const pte_method_options *opts;
  const pte_named_data_map *external;
  pte_fb_table plan;
  pte_fb_vec values;
  size_t n_planned_declared;
  pte_error_info *err;
} load_ctx;

#define LERR(c, st, ...) pte_error_set((c)->err, (st), __VA_ARGS__)

/* Who owns a planned region, rendered only for error messages: "value 3" or
 * "delegate 0 ('TestScratch') scratch 1". */
typedef struct region_owner {
  const char *delegate_id; /* NULL: a tensor value */
  size_t index;            /* value index, or delegate index */
  size_t scratch;          /* scratch entry (delegates) */
} region_owner;

/* Appends printf-style text at buf + *len (bounded by cap; *len stays < cap). */
void pte_rt_appendf(char *buf, size_t cap, size_t *len, const char *fmt, ...);
/* Address of bytes [off, off + nbytes) of planned buffer memory_id (1-based), with the checks
 * every planned region gets (memory-planned tensors and delegate scratch alike). */
pte_status pte_rt_planned_region(load_ctx *c, const region_owner *who, uint32_t mem_id, uint64_t off, uint64_t nbytes,
                                 void **out);
/* method_values.c: every value of the plan (tensors placed: planned, constant, external). */
pte_status pte_rt_parse_values(load_ctx *c);
/* method_values.c: the plan's inputs (or outputs) as value indices. */
pte_status pte_rt_parse_io(load_ctx *c, bool inputs, const uint32_t **out, size_t *n_out);
/* method_delegates.c: processed data, scratch and init of every delegate. */
pte_status pte_rt_init_delegates(load_ctx *c);

#endif
