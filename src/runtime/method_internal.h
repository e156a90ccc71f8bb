/* method_internal.h — private layout of a loaded method (src/runtime/method*.c only). */
#ifndef PTE_RUNTIME_METHOD_INTERNAL_H
#define PTE_RUNTIME_METHOD_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "format/flatbuf.h"
#include "pte/method.h"

/* Schema slots (schema/program.fbs). */
enum {
  PTE_S_PROGRAM_EXECUTION_PLAN = 1,
  PTE_S_PROGRAM_BACKEND_DELEGATE_DATA = 3,
  PTE_S_INLINE_DATA_DATA = 0,

  PTE_S_PLAN_NAME = 0,
  PTE_S_PLAN_VALUES = 2,
  PTE_S_PLAN_INPUTS = 3,
  PTE_S_PLAN_OUTPUTS = 4,
  PTE_S_PLAN_CHAINS = 5,
  PTE_S_PLAN_OPERATORS = 6,
  PTE_S_PLAN_DELEGATES = 7,
  PTE_S_PLAN_NON_CONST_BUFFER_SIZES = 8,

  PTE_S_EVALUE_TYPE = 0,
  PTE_S_EVALUE_VAL = 1,

  PTE_S_TENSOR_SCALAR_TYPE = 0,
  PTE_S_TENSOR_STORAGE_OFFSET = 1,
  PTE_S_TENSOR_SIZES = 2,
  PTE_S_TENSOR_DIM_ORDER = 3,
  PTE_S_TENSOR_DATA_BUFFER_IDX = 5,
  PTE_S_TENSOR_ALLOCATION_INFO = 6,
  PTE_S_TENSOR_SHAPE_DYNAMISM = 8,
  PTE_S_TENSOR_EXTRA = 9,

  PTE_S_ALLOC_MEMORY_ID = 0,
  PTE_S_ALLOC_OFFSET_LOW = 1,
  PTE_S_ALLOC_OFFSET_HIGH = 2,

  PTE_S_EXTRA_FQN = 1,
  PTE_S_EXTRA_LOCATION = 2,

  PTE_S_CHAIN_INSTRUCTIONS = 2,
  PTE_S_INSTR_TYPE = 0,
  PTE_S_INSTR_ARGS = 1,

  PTE_S_OPERATOR_NAME = 0,
  PTE_S_OPERATOR_OVERLOAD = 1,

  PTE_S_DELEGATE_ID = 0,
  PTE_S_DELEGATE_PROCESSED = 1,
  PTE_S_DELEGATE_COMPILE_SPECS = 2,
  PTE_S_DELEGATE_SCRATCH = 3,      /* pte extension: [DelegateScratch] */
  PTE_S_DELEGATE_SHARE_HANDLE = 4, /* pte extension: bool */
  PTE_S_SCRATCH_MEMORY_ID = 0,
  PTE_S_SCRATCH_OFFSET = 1,
  PTE_S_SCRATCH_SIZE = 2,
  PTE_S_DATAREF_LOCATION = 0,
  PTE_S_DATAREF_INDEX = 1,
  PTE_S_SPEC_KEY = 0,
  PTE_S_SPEC_VALUE = 1
};

/* KernelTypes union tags. */
enum {
  PTE_KT_NONE = 0,
  PTE_KT_NULL = 1,
  PTE_KT_INT = 2,
  PTE_KT_BOOL = 3,
  PTE_KT_DOUBLE = 4,
  PTE_KT_TENSOR = 5,
  PTE_KT_STRING = 6,
  PTE_KT_INT_LIST = 7,
  PTE_KT_DOUBLE_LIST = 8,
  PTE_KT_BOOL_LIST = 9,
  PTE_KT_TENSOR_LIST = 10,
  PTE_KT_OPTIONAL_TENSOR_LIST = 11
};

/* InstructionArguments union tags. */
enum {
  PTE_INSTR_NONE = 0,
  PTE_INSTR_KERNEL = 1,
  PTE_INSTR_DELEGATE = 2,
  PTE_INSTR_MOVE = 3,
  PTE_INSTR_JUMP_FALSE = 4,
  PTE_INSTR_FREE = 5
};

typedef struct pte_instr {
  uint8_t kind;       /* PTE_INSTR_* */
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
