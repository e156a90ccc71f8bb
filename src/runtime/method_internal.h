/* method_internal.h — private layout of a loaded method (src/runtime/method*.c only). */
#ifndef PTE_RUNTIME_METHOD_INTERNAL_H
#define PTE_RUNTIME_METHOD_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "format/flatbuf.h"
#include "pte/method.h"
#include "pte_gen/program_gen.h"

typedef struct pte_instr {
  uint8_t kind;       /* pte_et_InstructionArguments_* */
  uint32_t a;         /* kernel: op index; delegate: delegate index; move: from; jf: cond; free: value */
  size_t b;           /* move: to; jf: destination instruction (negative: SIZE_MAX, ends the chain) */
  pte_op_fn fn;       /* kernel function */
  pte_evalue **args;  /* kernel / delegate arguments */
  size_t nargs;
} pte_instr;

typedef struct pte_chain_rt {
  pte_instr *instrs;
  size_t n;
} pte_chain_rt;

typedef struct pte_delegate_rt {
  const pte_backend *backend;
  const char *id;
  pte_delegate_handle *handle;
  pte_freeable_buffer processed;
  pte_delegate_scratch *scratch;  /* resolved BackendDelegate.scratch (pte extension) */
  size_t n_scratch;
  uint32_t n_calls;               /* DelegateCall instructions naming this delegate */
  bool share_handle;              /* BackendDelegate.share_handle (pte extension) */
  bool initialized;
} pte_delegate_rt;

/* A resolved EXTERNAL constant (one per distinct key), in a list. */
typedef struct pte_external_const {
  const char *key;
  pte_freeable_buffer buf;
  struct pte_external_const *next;
} pte_external_const;

typedef struct pte_operator_rt {
  const char *name; /* "name.overload", NUL-terminated, in the method allocator */
  bool missing;
  uint8_t keyed;    /* load (not in size-optimised builds): 0 not asked yet, 1 no kernel of this
                       name has a key (fn is the kernel of every instruction), 2 the lookup
                       depends on the argument key */
  pte_op_fn fn;
} pte_operator_rt;

struct pte_method {
  const pte_program *program;
  pte_method_meta meta;
  const char *name;
  pte_allocator *method_allocator;
  pte_allocator *temp;          /* the manager's temp allocator, the carved arena, or NULL */
  pte_allocator temp_arena;
  pte_event_tracer *tracer;
  uint64_t max_instructions;

  pte_evalue *values;
  size_t n_values;
  size_t n_tensors;

  const uint32_t *inputs;       /* value indices */
  size_t n_inputs;
  bool *input_set;
  const uint32_t *outputs;
  size_t n_outputs;

  uint32_t *unbacked;           /* tensor values used by instructions whose data is supplied later */
  size_t n_unbacked;

  pte_chain_rt *chains;
  size_t n_chains;
  pte_operator_rt *ops;
  size_t n_ops;

  pte_delegate_rt *delegates;
  size_t n_delegates;
  pte_external_const *ext;      /* list of resolved external constants */
  pte_merged_data_map merged;
  const pte_named_data_map *delegate_map;

  size_t chain_idx, instr_idx;  /* step state */
  bool initialized;
};

/* The ExecutionPlan table a meta refers to. */
static inline pte_fb_table pte_method_plan_table(const pte_method_meta *meta) {
  return pte_fb_table_at(meta->fb, meta->fb_size, meta->plan);
}

/* Placement fields of a flatbuffer Tensor, read once. */
typedef struct pte_tensor_fb {
  pte_fb_table alloc;  /* allocation_info (absent: pos 0) */
  pte_fb_table extra;  /* extra_tensor_info */
  pte_fb_vec dim_order;
  uint32_t data_buffer_idx;
  bool has_alloc;
  bool external;       /* extra_tensor_info.location == EXTERNAL */
} pte_tensor_fb;

/* Shared by method.c / method_meta.c: reads one flatbuffer Tensor into *info (no data pointer)
 * and, if fb != NULL, its placement fields. */
pte_status pte_method_read_tensor_info(pte_fb_table t, pte_tensor_info *info, pte_tensor_fb *fb, pte_error_info *err,
                                       size_t value_index);

#endif
