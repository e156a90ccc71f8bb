/* writer_pte.h — the program builder's internal model (internal). */
#ifndef PTE_WRITER_PTE_H
#define PTE_WRITER_PTE_H

#include "writer/writer_internal.h"

/* The out-of-memory error of the program builder's allocations. */
#define PTE_WR_OOM(err) pte_error_set((err), PTE_ERR_MEMORY_ALLOCATION_FAILED, "writer: out of memory")

/* KernelTypes tags (also pte_wr value kinds). */
enum {
  WR_V_NULL = 1,
  WR_V_INT = 2,
  WR_V_BOOL = 3,
  WR_V_DOUBLE = 4,
  WR_V_TENSOR = 5,
  WR_V_STRING = 6,
  WR_V_INT_LIST = 7,
  WR_V_DOUBLE_LIST = 8,
  WR_V_BOOL_LIST = 9,
  WR_V_TENSOR_LIST = 10,
  WR_V_OPT_TENSOR_LIST = 11
};

/* InstructionArguments tags. */
enum { WR_I_KERNEL = 1, WR_I_DELEGATE = 2, WR_I_MOVE = 3, WR_I_JUMP_FALSE = 4, WR_I_FREE = 5 };

typedef struct wr_tensor {
  int8_t dtype, dynamism, layout, device_type, device_index;
  bool requires_grad, external, extra_info;
  uint32_t dim;
  int32_t *sizes;
  uint8_t *dim_order;
  uint32_t constant, mutable_init, external_buffer_idx;
  uint8_t plan;    /* pte_wr_plan */
  bool placed;     /* PLAN_AUTO: offset chosen */
  uint32_t mem_id;
  uint64_t mem_offset;
  char *fqn;
  uint64_t msi;
  uint64_t nbytes;
} wr_tensor;

typedef struct wr_value {
  uint8_t kind;
  union {
    int64_t i;
    bool b;
    double d;
    struct {
      char *s;
      size_t len;
    } str;
    struct {
      void *items; /* int64 / double / bool / int32 */
      size_t n;
    } list;
    wr_tensor *t;
  } u;
} wr_value;

typedef struct wr_framelist {
  pte_wr_frame *frames; /* strings in the arena */
  size_t n;
  bool set;
} wr_framelist;

typedef struct wr_instr {
  uint8_t kind;
  int32_t a, b; /* op/delegate index, move from/to, cond/dest, free value */
  int32_t *args;
  size_t n_args;
  wr_framelist stack;
} wr_instr;

typedef struct wr_chain {
  int32_t *inputs, *outputs;
  size_t n_inputs, n_outputs;
  pte_wr_vec instrs; /* wr_instr */
  bool has_stack;
} wr_chain;

typedef struct wr_operator {
  char *name, *overload;
} wr_operator;

typedef struct wr_spec {
  char *key;
  uint8_t *value;
  size_t len;
} wr_spec;

typedef struct wr_delegate {
  char *id;
  uint32_t blob;
  uint8_t location; /* pte_wr_blob_location */
  wr_spec *specs;
  size_t n_specs;
  pte_wr_scratch *scratch;
  size_t n_scratch;
  bool share_handle;
  /* layout */
  bool inline_data;
  uint32_t data_index; /* backend_delegate_data index or segment index */
} wr_delegate;

typedef struct wr_device {
  int32_t buffer_idx;
  int8_t type, index;
} wr_device;

typedef struct wr_module_use {
  uint32_t module, delegate;
} wr_module_use;

typedef struct wr_method {
  char *name;
  pte_wr_vec values;    /* wr_value */
  int32_t *inputs, *outputs;
  size_t n_inputs, n_outputs;
  pte_wr_vec chains;    /* wr_chain */
  pte_wr_vec ops;       /* wr_operator */
  pte_wr_vec delegates; /* wr_delegate */
  int64_t *buffer_sizes;
  size_t n_buffer_sizes;
  bool buffer_sizes_set;
  pte_wr_vec devices;   /* wr_device */
  char *meta_in, *meta_out;
  bool has_meta;
  pte_wr_vec module_uses; /* wr_module_use: shared delegate per module */
  bool planned;           /* planner ran since the last change */
} wr_method;

typedef struct wr_entry { /* constant / mutable entry */
  pte_source src;
  int32_t canon;
  uint64_t offset;
} wr_entry;

typedef struct wr_blob {
  pte_source src;
  int32_t canon;
  /* layout */
  bool in_segment, inline_used;
  uint64_t align;
  int32_t segment;      /* -1 none */
  int32_t inline_index; /* -1 none */
} wr_blob;

typedef struct wr_named {
  char *key;
  uint32_t blob;
  uint64_t align;
} wr_named;

typedef struct wr_module {
  wr_delegate d;
} wr_module;

enum { WR_SEG_CONSTANT = 0, WR_SEG_MUTABLE = 1, WR_SEG_BLOB = 2 };

typedef struct wr_segment {
  uint8_t kind;
  uint32_t blob;
  uint64_t size, align, offset;
} wr_segment;

struct pte_writer {
  pte_wr_arena arena;     /* the model */
  pte_wr_arena out_arena; /* layout / flatbuffer / stream buffer; reset per write */
  pte_writer_options opt;
  uint32_t version;
  pte_wr_vec constants; /* wr_entry, [0] = placeholder */
  pte_wr_vec mutables;  /* wr_entry, [0] = placeholder */
  pte_wr_vec blobs;     /* wr_blob */
  pte_wr_vec named;     /* wr_named */
  pte_wr_vec methods;   /* wr_method */
  pte_wr_vec modules;   /* wr_module */
  bool lenient_sizes;   /* copy path: a constant may be larger than a tensor using it */
  bool named_data_present; /* write Program.named_data even when empty */
  bool named_data_in_order; /* named_data in insertion order (copies); else sorted by key */
};

/* writer.c: an operator entry appended as is (no merging of equal names; copy path). */
pte_status pte_wr_add_operator_raw(pte_writer *w, uint32_t method, const char *name, const char *overload,
                                   uint32_t *op, pte_error_info *err);

/* planner.c */
pte_status pte_wr_plan_method(pte_writer *w, wr_method *m, const char *what, pte_error_info *err);

/* writer_validate.c: every value index in range and at least one chain (adds an empty chain to a
 * method without one, which then is not planned). */
pte_status pte_wr_validate_method(pte_writer *w, wr_method *m, pte_error_info *err);

#endif
