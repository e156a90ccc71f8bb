/* pte/writer.h — building and writing .pte programs and .ptd data files.
 *
 *   pte_writer *w;
 *   pte_writer_create(NULL, &w, &err);                        // default options
 *   uint32_t m;  pte_writer_add_method(w, "forward", &m);
 *   ... add constants (from sources), values, operators, chains, instructions, delegates ...
 *   pte_writer_write_file(w, "model.pte", NULL, &err);        // temp file + rename, streaming
 *   pte_writer_destroy(w);
 *
 * Data never has to be in memory: every constant, mutable initial value, delegate blob and named
 * blob is a pte_source (a memory span, a file range, a data loader range or a callback producing
 * bytes on demand). Writing first computes every segment's size and offset, builds the
 * flatbuffer (offsets relative to the segment base, as the format defines), writes header +
 * flatbuffer, then streams each source straight to its final file offset through ONE bounded
 * buffer (options.buffer_size, 4 MiB by default) in large sequential writes. The writer's memory
 * is the flatbuffer plus that buffer, whatever the constants' total size.
 *
 * Layout (byte for byte what the upstream serializer does, docs/writer.md):
 *   - segments in this order: the constant segment (always, index 0, even when empty), the
 *     mutable-data segment (only if it has entries), delegate blobs (walking methods, then their
 *     delegates), named data (in insertion order); each at align(prev_end, lcm(segment_alignment,
 *     the segment's own alignment)) relative to the segment base, no trailing padding;
 *   - Program.named_data entries sorted by key (byte order; the runtime then looks keys up by
 *     binary search), except in pte_writer_copy_program, which keeps the source's order;
 *   - constant entries packed at constant_tensor_alignment with the placeholder offsets[0] = 0;
 *     mutable entries packed without padding, also with a placeholder at index 0;
 *   - the "eh00" extended header (length 32, padded to max(tensor, delegate alignment)) only when
 *     there is at least one segment byte; segment_base_offset = align(program_size,
 *     segment_alignment).
 *
 * Errors: every function returns a pte_status and, when given a pte_error_info*, a message.
 * Builder calls report misuse immediately (PTE_ERR_INVALID_ARGUMENT with a message naming the
 * method/value), so nothing bad is ever written. Writing errors leave nothing at the destination.
 * Not thread-safe: one thread builds and writes a pte_writer.
 */
#ifndef PTE_WRITER_H
#define PTE_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pte/data_loader.h"
#include "pte/data_writer.h"
#include "pte/status.h"

#ifdef __cplusplus
extern "C" {
#endif

struct pte_program;

/* ---- Sources ---------------------------------------------------------------------------------- */

/* Produces bytes [offset, offset + size) of a source into dst (size <= the writer's buffer size;
 * calls arrive in increasing offset order while writing, but dedup may read a source more than
 * once). Return PTE_OK, or an error (with a message in err) to abort the write. */
typedef pte_status (*pte_source_read_fn)(void *ctx, uint64_t offset, void *dst, size_t size,
                                         pte_error_info *err);

typedef enum pte_source_kind {
  PTE_SOURCE_MEMORY = 1,   /* data[0 .. size) */
  PTE_SOURCE_FD = 2,       /* bytes [offset, offset + size) of an open file descriptor (pread) */
  PTE_SOURCE_PATH = 3,     /* bytes [offset, offset + size) of the file `path` (opened at write
                              time; the path string is copied) */
  PTE_SOURCE_LOADER = 4,   /* bytes [offset, offset + size) of a pte_data_loader (load_into) */
  PTE_SOURCE_CALLBACK = 5  /* read(ctx, ...) */
} pte_source_kind;

/* A description of bytes, not the bytes. Memory, descriptors, loaders and callback contexts must
 * stay valid until the pte_writer is destroyed. */
typedef struct pte_source {
  pte_source_kind kind;
  uint64_t size;
  const void *data;               /* MEMORY */
  int fd;                         /* FD */
  const char *path;               /* PATH */
  const pte_data_loader *loader;  /* LOADER */
  uint64_t offset;                /* FD / PATH / LOADER: start of the range */
  pte_source_read_fn read;        /* CALLBACK */
  void *ctx;                      /* CALLBACK */
} pte_source;

static inline pte_source pte_source_memory(const void *data, uint64_t size) {
  pte_source s = {PTE_SOURCE_MEMORY, size, data, -1, 0, 0, 0, 0, 0};
  return s;
}
static inline pte_source pte_source_fd(int fd, uint64_t offset, uint64_t size) {
  pte_source s = {PTE_SOURCE_FD, size, 0, fd, 0, 0, offset, 0, 0};
  return s;
}
static inline pte_source pte_source_path(const char *path, uint64_t offset, uint64_t size) {
  pte_source s = {PTE_SOURCE_PATH, size, 0, -1, path, 0, offset, 0, 0};
  return s;
}
static inline pte_source pte_source_loader(const pte_data_loader *loader, uint64_t offset, uint64_t size) {
  pte_source s = {PTE_SOURCE_LOADER, size, 0, -1, 0, loader, offset, 0, 0};
  return s;
}
static inline pte_source pte_source_callback(pte_source_read_fn read, void *ctx, uint64_t size) {
  pte_source s = {PTE_SOURCE_CALLBACK, size, 0, -1, 0, 0, 0, read, ctx};
  return s;
}

/* ---- Options ---------------------------------------------------------------------------------- */

/* Called after every buffer flushed: `done` of `total` output bytes written. */
typedef void (*pte_writer_progress_fn)(void *ctx, uint64_t done, uint64_t total);

/* A zero-initialised struct (or NULL) gives the defaults in brackets. */
typedef struct pte_writer_options {
  uint64_t segment_alignment;  /* [128] power of two; 16384 for iOS page-aligned segments */
  uint64_t tensor_alignment;   /* [16] power of two: constant entries inside the constant segment */
  uint64_t delegate_alignment; /* [16] power of two: force_align of inline delegate data */
  bool keep_delegates_inline;  /* [false] false: non-empty delegate blobs go to segments
                                  (upstream extract_delegate_segments=True) */
  bool no_dedup;               /* [false] false: identical constants / blobs are stored once
                                  (compared by content: a hash pass, then a byte compare) */
  size_t buffer_size;          /* [4 MiB] the one streaming buffer (at least 4096 bytes) */
  bool sparse;                 /* [false] buffer-sized runs of zero bytes are not written (holes
                                  in files; the writer's set_size hook provides the zeros) */
  bool no_thread;              /* [false] false: a writer thread issues the writes while the
                                  caller's thread reads/generates the next half of the buffer
                                  (the data writer is then called from that thread, never from
                                  two threads at once) */
  uint64_t plan_alignment;     /* [16] power of two: memory planner offsets */
  pte_writer_progress_fn progress;
  void *progress_ctx;
  pte_writer_realloc_fn realloc_fn; /* [pte_heap_realloc] all of the writer's memory */
  void *realloc_ctx;
} pte_writer_options;

/* ---- Program builder ---------------------------------------------------------------------------- */

typedef struct pte_writer pte_writer;

/* Creates an empty program builder. Errors: PTE_ERR_INVALID_ARGUMENT (NULL out, an alignment that
 * is not a power of two, buffer_size < 4096), PTE_ERR_MEMORY_ALLOCATION_FAILED. */
pte_status pte_writer_create(const pte_writer_options *opt, pte_writer **out, pte_error_info *err);
/* Frees everything (sources are not touched). NULL is a no-op. */
void pte_writer_destroy(pte_writer *w);

/* Program.version (default 0). */
void pte_writer_set_version(pte_writer *w, uint32_t version);

/* Constant data: appends an entry to the constant segment and returns its data_buffer_idx
 * (>= 1; index 0 is the reserved placeholder). */
pte_status pte_writer_add_constant(pte_writer *w, const pte_source *src, uint32_t *index,
                                   pte_error_info *err);
/* Initial value of a memory-planned tensor (mutable buffer): appends an entry to the mutable
 * segment and returns its index (>= 1), to be used as pte_wr_tensor.mutable_init. */
pte_status pte_writer_add_mutable(pte_writer *w, const pte_source *src, uint32_t *index,
                                  pte_error_info *err);
/* A stored blob (delegate payload and/or named data). Blobs with identical bytes are stored once
 * (unless no_dedup). */
pte_status pte_writer_add_blob(pte_writer *w, const pte_source *src, uint32_t *blob, pte_error_info *err);
/* Program.named_data entry `key` -> blob, stored in its own segment aligned to `alignment`
 * (0 = 1; a power of two). Errors: PTE_ERR_INVALID_ARGUMENT for a duplicate key ("duplicate named
 * data key"), an empty key, an unknown blob or a bad alignment. */
pte_status pte_writer_add_named_data(pte_writer *w, const char *key, uint32_t blob, uint64_t alignment,
                                     pte_error_info *err);

/* A method (ExecutionPlan). Errors: PTE_ERR_INVALID_ARGUMENT for an empty or duplicate name. */
pte_status pte_writer_add_method(pte_writer *w, const char *name, uint32_t *method, pte_error_info *err);

/* -- values -- */

typedef enum pte_wr_plan {
  PTE_WR_PLAN_NONE = 0,     /* no allocation_info: a constant, or data supplied at run time */
  PTE_WR_PLAN_AUTO = 1,     /* the memory planner chooses the offset in arena mem_id (0 -> 1) */
  PTE_WR_PLAN_EXPLICIT = 2  /* allocation_info = {mem_id (>= 1), mem_offset} as given */
} pte_wr_plan;

/* A tensor value. Zero-initialise, then set what applies. */
typedef struct pte_wr_tensor {
  int dtype;                   /* pte_dtype (0..29) */
  size_t dim;                  /* rank <= 16 */
  const int32_t *sizes;        /* [dim], each >= 0 (upper bounds for DYNAMIC_BOUND) */
  const uint8_t *dim_order;    /* [dim] permutation, NULL = contiguous 0..dim-1 */
  int dynamism;                /* pte_shape_dynamism */
  bool requires_grad;
  int8_t layout;
  uint32_t constant;           /* constant index from pte_writer_add_constant (0 = none) */
  pte_wr_plan plan;
  uint32_t mem_id;             /* arena (1-based) for PLAN_EXPLICIT / PLAN_AUTO */
  uint64_t mem_offset;         /* PLAN_EXPLICIT */
  uint32_t mutable_init;       /* mutable index (pte_writer_add_mutable) giving the planned
                                  tensor's initial value (requires a plan) */
  bool external;               /* data in a .ptd under `fqn` (location EXTERNAL) */
  const char *fqn;             /* ExtraTensorInfo.fully_qualified_name (required when external) */
  uint32_t external_buffer_idx;/* data_buffer_idx written for an external tensor (upstream writes a
                                  running index there; the runtime ignores it) */
  int8_t device_type;          /* ExtraTensorInfo.device_type (0 = CPU) */
  int8_t device_index;
  uint64_t mutable_data_segments_idx;
  bool extra_info;             /* write ExtraTensorInfo even if every field is default */
} pte_wr_tensor;

/* Adds a tensor value. Checks: dtype valid, rank <= 16, sizes >= 0, dim_order a permutation,
 * numel * element size without overflow, DYNAMIC_UNBOUND allowed (the runtime refuses it),
 * constant / mutable_init indices that exist and whose source size equals dtype x numel
 * ("source size disagrees" -> PTE_ERR_INVALID_ARGUMENT), no constant together with a plan,
 * external needs fqn and no constant. */
pte_status pte_writer_add_tensor(pte_writer *w, uint32_t method, const pte_wr_tensor *t, int32_t *value,
                                 pte_error_info *err);
/* Convenience: pte_writer_add_constant(src) + a constant tensor using it. */
pte_status pte_writer_add_constant_tensor(pte_writer *w, uint32_t method, const pte_wr_tensor *t,
                                          const pte_source *src, int32_t *value, pte_error_info *err);

pte_status pte_writer_add_null(pte_writer *w, uint32_t method, int32_t *value, pte_error_info *err);
pte_status pte_writer_add_int(pte_writer *w, uint32_t method, int64_t v, int32_t *value, pte_error_info *err);
pte_status pte_writer_add_bool(pte_writer *w, uint32_t method, bool v, int32_t *value, pte_error_info *err);
pte_status pte_writer_add_double(pte_writer *w, uint32_t method, double v, int32_t *value, pte_error_info *err);
/* A String value (len bytes; may contain NUL). */
pte_status pte_writer_add_string(pte_writer *w, uint32_t method, const char *s, size_t len, int32_t *value,
                                 pte_error_info *err);
/* IntList: `items` are value indices of Int values (as upstream: not literal integers); they are
 * range-checked when writing. */
pte_status pte_writer_add_int_list(pte_writer *w, uint32_t method, const int64_t *items, size_t n,
                                   int32_t *value, pte_error_info *err);
/* Convenience: adds one Int value per literal and an IntList of them. */
pte_status pte_writer_add_int_list_literal(pte_writer *w, uint32_t method, const int64_t *ints, size_t n,
                                           int32_t *value, pte_error_info *err);
pte_status pte_writer_add_double_list(pte_writer *w, uint32_t method, const double *items, size_t n,
                                      int32_t *value, pte_error_info *err);
pte_status pte_writer_add_bool_list(pte_writer *w, uint32_t method, const bool *items, size_t n,
                                    int32_t *value, pte_error_info *err);
/* TensorList: every item must be an earlier Tensor value. OptionalTensorList: also -1 (None) or
 * an earlier Null value. */
pte_status pte_writer_add_tensor_list(pte_writer *w, uint32_t method, const int32_t *items, size_t n,
                                      int32_t *value, pte_error_info *err);
pte_status pte_writer_add_optional_tensor_list(pte_writer *w, uint32_t method, const int32_t *items, size_t n,
                                               int32_t *value, pte_error_info *err);

/* Method inputs and outputs (value indices, checked when writing). */
pte_status pte_writer_set_inputs(pte_writer *w, uint32_t method, const int32_t *values, size_t n,
                                 pte_error_info *err);
pte_status pte_writer_set_outputs(pte_writer *w, uint32_t method, const int32_t *values, size_t n,
                                  pte_error_info *err);

/* Operator "name" + "overload" (overload may be "" or NULL). The same pair added twice returns the
 * same index. */
pte_status pte_writer_add_operator(pte_writer *w, uint32_t method, const char *name, const char *overload,
                                   uint32_t *op, pte_error_info *err);

/* -- chains and instructions -- */

/* A new chain (Chain.inputs / outputs are informational; NULL/0 writes empty lists). A method
 * without chains gets one empty chain when written. */
pte_status pte_writer_add_chain(pte_writer *w, uint32_t method, const int32_t *inputs, size_t n_inputs,
                                const int32_t *outputs, size_t n_outputs, uint32_t *chain, pte_error_info *err);
/* Instructions are appended to `chain`; *index (may be NULL) receives the instruction's index
 * within the chain. Value, operator and delegate indices are checked when writing. */
pte_status pte_writer_add_kernel_call(pte_writer *w, uint32_t method, uint32_t chain, uint32_t op,
                                      const int32_t *args, size_t n, uint32_t *index, pte_error_info *err);
pte_status pte_writer_add_delegate_call(pte_writer *w, uint32_t method, uint32_t chain, uint32_t delegate,
                                        const int32_t *args, size_t n, uint32_t *index, pte_error_info *err);
pte_status pte_writer_add_move_call(pte_writer *w, uint32_t method, uint32_t chain, int32_t from, int32_t to,
                                    uint32_t *index, pte_error_info *err);
/* Jump to `destination` (an instruction index in the same chain) when value `cond` is false. */
pte_status pte_writer_add_jump_false_call(pte_writer *w, uint32_t method, uint32_t chain, int32_t cond,
                                          int32_t destination, uint32_t *index, pte_error_info *err);
pte_status pte_writer_add_free_call(pte_writer *w, uint32_t method, uint32_t chain, int32_t value,
                                    uint32_t *index, pte_error_info *err);

/* Stack trace of one instruction (Chain.stacktrace; informational). */
typedef struct pte_wr_frame {
  const char *filename;
  int32_t lineno;
  const char *name;
  const char *context;
} pte_wr_frame;
pte_status pte_writer_set_stacktrace(pte_writer *w, uint32_t method, uint32_t chain, uint32_t instruction,
                                     const pte_wr_frame *frames, size_t n, pte_error_info *err);

/* -- delegates -- */

typedef struct pte_wr_compile_spec {
  const char *key;
  const void *value;
  size_t value_len;
} pte_wr_compile_spec;

/* A scratch region of a planned arena reserved for a delegate (pte extension, see
 * docs/format.md). */
typedef struct pte_wr_scratch {
  uint32_t mem_id; /* >= 1 */
  uint64_t offset;
  uint64_t size;
} pte_wr_scratch;

typedef enum pte_wr_blob_location {
  PTE_WR_BLOB_AUTO = 0,   /* segment unless keep_delegates_inline (empty blobs stay inline) */
  PTE_WR_BLOB_INLINE = 1, /* Program.backend_delegate_data */
  PTE_WR_BLOB_SEGMENT = 2 /* a segment, even when keep_delegates_inline */
} pte_wr_blob_location;

typedef struct pte_wr_delegate {
  const char *id;                        /* backend name, e.g. "XnnpackBackend" */
  uint32_t blob;                         /* from pte_writer_add_blob */
  pte_wr_blob_location location;
  const pte_wr_compile_spec *compile_specs;
  size_t n_compile_specs;
  const pte_wr_scratch *scratch;         /* pte extension: trailing BackendDelegate.scratch */
  size_t n_scratch;
  bool share_handle;                     /* pte extension: BackendDelegate.share_handle */
} pte_wr_delegate;

/* A BackendDelegate entry of `method`, index in *delegate. */
pte_status pte_writer_add_delegate(pte_writer *w, uint32_t method, const pte_wr_delegate *d, uint32_t *delegate,
                                   pte_error_info *err);

/* A lowered module: a delegate description that methods call through pte_writer_call_module.
 * Each call of a module from a method becomes a DelegateCall. With share_handle set and no
 * scratch, all calls of the module within one method use ONE BackendDelegate (one backend init);
 * otherwise every call gets its own BackendDelegate, all referencing the one stored blob.
 * Different modules never merge, even with identical bytes (their blobs may still be deduped). */
pte_status pte_writer_add_lowered_module(pte_writer *w, const pte_wr_delegate *d, uint32_t *module,
                                         pte_error_info *err);
/* Appends a DelegateCall of `module` to `chain`; *delegate (may be NULL) receives the
 * BackendDelegate index used. */
pte_status pte_writer_call_module(pte_writer *w, uint32_t method, uint32_t chain, uint32_t module,
                                  const int32_t *args, size_t n, uint32_t *delegate, pte_error_info *err);

/* -- memory plan and metadata -- */

/* ExecutionPlan.non_const_buffer_sizes as stored (entry 0 is the reserved placeholder, usually 0).
 * Without this call the sizes are computed: for every arena the end of the highest tensor in it
 * (explicit offsets, memory planner results, delegate scratch), aligned to plan_alignment; [0]
 * when nothing is planned. Explicit sizes that are too small for the plan are an error at write
 * time. */
pte_status pte_writer_set_buffer_sizes(pte_writer *w, uint32_t method, const int64_t *sizes, size_t n,
                                       pte_error_info *err);
/* Sparse device of planned buffer `buffer_idx` (1-based) (ExecutionPlan.non_const_buffer_device). */
pte_status pte_writer_set_buffer_device(pte_writer *w, uint32_t method, int32_t buffer_idx, int8_t device_type,
                                        int8_t device_index, pte_error_info *err);
/* ContainerMetadata (pytree strings; either may be NULL). */
pte_status pte_writer_set_container_meta(pte_writer *w, uint32_t method, const char *encoded_inputs,
                                         const char *encoded_outputs, pte_error_info *err);

/* Runs the memory planner for `method` now (it also runs automatically when writing): every
 * PLAN_AUTO tensor gets an offset in its arena. Greedy by lifetime (largest tensors first, each at
 * the lowest plan_alignment-aligned offset that does not overlap a tensor whose lifetime
 * [first use, last use] intersects; inputs live from the start, outputs and mutable-initialised
 * tensors to the end, MoveCall joins the two values' lifetimes, a method with a JumpFalseCall
 * keeps every planned tensor alive for the whole method). Explicitly placed tensors and delegate
 * scratch regions are treated as occupied for the whole method. *arena_size (may be NULL)
 * receives the size of arena 1. Errors: PTE_ERR_INVALID_ARGUMENT (bad method), value indices out
 * of range. */
pte_status pte_writer_plan_memory(pte_writer *w, uint32_t method, uint64_t *arena_size, pte_error_info *err);
/* Offset chosen for a PLAN_AUTO tensor value (after planning). PTE_ERR_NOT_FOUND if the value is
 * not an auto-planned tensor or the method has not been planned yet. */
pte_status pte_writer_planned_offset(const pte_writer *w, uint32_t method, int32_t value, uint32_t *mem_id,
                                     uint64_t *offset);

/* -- writing -- */

typedef struct pte_writer_layout {
  uint64_t file_size;
  uint64_t program_size;        /* header + flatbuffer */
  uint64_t segment_base_offset; /* 0 when there is no segment data (and no header) */
  uint64_t segment_data_size;
  uint32_t header_length;       /* 32, or 0 when the file has no extended header */
  uint32_t padded_header_length;
  size_t n_segments;
  uint64_t constant_segment_size;
} pte_writer_layout;

/* Validates the program and computes the final layout without writing (reads sources only for
 * deduplication). Errors: those of pte_writer_write before anything is written. */
pte_status pte_writer_compute_layout(pte_writer *w, pte_writer_layout *out, pte_error_info *err);

/* Writes the whole file through `out` and publishes it. On failure (a source failed, a write
 * failed, validation failed) the output is not published: destroy the data writer to discard it.
 * Errors: PTE_ERR_INVALID_ARGUMENT / INVALID_PROGRAM (validation: out-of-range indices, a
 * constant entry whose tensors disagree about its size, buffer sizes too small for the plan...),
 * any source error (returned as the source reported it, message prefixed with what was being
 * written), any data writer error, PTE_ERR_MEMORY_ALLOCATION_FAILED. */
pte_status pte_writer_write(pte_writer *w, pte_data_writer *out, pte_error_info *err);
/* pte_writer_write into a pte_file_writer for `path` (fopt NULL = defaults): on any failure the
 * destination is left untouched and no temp file remains. */
pte_status pte_writer_write_file(pte_writer *w, const char *path, const pte_file_writer_options *fopt,
                                 pte_error_info *err);

/* -- copying and migrating -- */

/* Adds everything of a loaded program to an EMPTY builder: methods, values, instructions,
 * operators, delegates (blobs from their segments or inline data), constants (from the constant
 * segment or the legacy inline constant_buffer), mutable data, named data, stack traces,
 * container metadata, buffer devices, version. Sources point into the program's loader and
 * flatbuffer, so `p` (and its loader) must stay loaded until the builder is written/destroyed.
 * The result is written in the current layout (constant segment, delegates in segments unless
 * keep_delegates_inline, the builder's alignments). The BackendDelegate pte extensions are
 * copied too. Errors: PTE_ERR_INVALID_STATE (builder not empty), PTE_ERR_INVALID_PROGRAM
 * (structure the writer cannot represent, e.g. a delegate referencing a missing segment). */
pte_status pte_writer_copy_program(pte_writer *w, const struct pte_program *p, pte_error_info *err);

/* Rewrites `in_path` into `out_path` in the current layout (pte migrate): loads it (mmap),
 * copies it with pte_writer_copy_program and streams the result. in_path == out_path rewrites in
 * place (atomically). Errors: those of pte_program_load, pte_writer_copy_program and
 * pte_writer_write_file. */
pte_status pte_migrate_file(const char *in_path, const char *out_path, const pte_writer_options *opt,
                            const pte_file_writer_options *fopt, pte_error_info *err);

/* ---- .ptd (FlatTensor) writer --------------------------------------------------------------------
 * Layout as upstream's serializer: "FH01" header (length 40) padded to 16 and inserted after the
 * identifier, segment base = align(48 + flatbuffer size, segment_alignment), one segment per unique
 * blob at align(prev_end, lcm(segment_alignment, entry alignment)), no trailing padding. */

typedef struct pte_ptd_writer pte_ptd_writer;

typedef struct pte_ptd_writer_options {
  uint64_t segment_alignment; /* [128] power of two */
  uint64_t tensor_alignment;  /* [16] power of two: alignment of tensor entries */
  bool no_dedup;
  size_t buffer_size;         /* [4 MiB] */
  bool sparse;
  bool no_thread;             /* as pte_writer_options.no_thread */
  pte_writer_progress_fn progress;
  void *progress_ctx;
  pte_writer_realloc_fn realloc_fn;
  void *realloc_ctx;
} pte_ptd_writer_options;

pte_status pte_ptd_writer_create(const pte_ptd_writer_options *opt, pte_ptd_writer **out, pte_error_info *err);
void pte_ptd_writer_destroy(pte_ptd_writer *w);
/* A tensor entry with its TensorLayout. dim_order NULL = contiguous. Errors
 * (PTE_ERR_INVALID_ARGUMENT): duplicate key, bad dtype/sizes/dim_order, source size != dtype x
 * numel. */
pte_status pte_ptd_writer_add_tensor(pte_ptd_writer *w, const char *key, int dtype, const int32_t *sizes,
                                     size_t dim, const uint8_t *dim_order, const pte_source *src,
                                     pte_error_info *err);
/* An opaque entry (no TensorLayout), aligned to `alignment` (0 = tensor_alignment). */
pte_status pte_ptd_writer_add_blob(pte_ptd_writer *w, const char *key, const pte_source *src, uint64_t alignment,
                                   pte_error_info *err);
/* Writes and publishes (see pte_writer_write). named_data is written in key byte order (segments in
 * insertion order), so pte_ptd_load finds keys by binary search; files from other writers are
 * searched linearly. */
pte_status pte_ptd_writer_write(pte_ptd_writer *w, pte_data_writer *out, pte_error_info *err);
pte_status pte_ptd_writer_write_file(pte_ptd_writer *w, const char *path, const pte_file_writer_options *fopt,
                                     pte_error_info *err);

#ifdef __cplusplus
}
#endif
#endif
