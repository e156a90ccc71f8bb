/* pte/backend_xnnpack.h — the "XnnpackBackend" delegate backend, in pure C.
 *
 * Runs the XNNPACK delegate blobs ExecuTorch's exporter writes, without the XNNPACK library:
 *
 *   pte_register_xnnpack_backend();          // once, before loading methods
 *   ... pte_method_load(...) ...              // DelegateCalls to "XnnpackBackend" now run here
 *
 * What a blob is (docs/xnnpack.md has the byte layout): an optional 32-byte "XH00" header, an
 * XNNGraph flatbuffer (identifier "XN00" or "XN01", schema/xnnpack.fbs) describing tensor values
 * and nodes, then constant data. Constants live either in that trailing region (older exports:
 * ConstantDataOffset.offset) or in the program's named data (current exports: a sha256 key
 * looked up through the init context's NamedDataMap).
 *
 * init verifies the flatbuffer and every cross reference (value ids, external ids, constant
 * ranges, dtypes, shapes — inferring every node's output shape and comparing it with the
 * declared one), fetches the constants, packs weights into microkernel layouts (GEMM panels with
 * the bias fused in, depthwise taps) — or uses weights packed by `pte prepare` in place (see
 * "Prepared data") —, plans the scratch memory and frees the blob. execute binds
 * the call's tensors (inputs, then outputs, in external-id order as upstream), re-plans when an
 * input shape changed (DYNAMIC_BOUND inputs), resizes the outputs and runs the nodes.
 *
 * Kernels: fp32 GEMM microkernels for AVX-512, AVX2+FMA and portable C, chosen at run time from
 * the CPU (overridable, see pte_xnnpack_options.isa). Datatypes: fp32; static int8 (qint8
 * activations, qint8/qcint8 weights, qint32 bias) for FullyConnected / Conv2d; dynamically
 * quantized int8 activations (qdint8) with per-channel int8 weights (qcint8) for
 * FullyConnected / Conv2d; Convert between fp32 and qint8/quint8/qdint8.
 *
 * Memory: the backend's own data (packed weights, the activation arena, the delegate handle)
 * lives on the C heap, as XNNPACK's does; nothing is taken from the method allocator.
 * Threads: a delegate is used by one thread at a time (like a method). With num_threads > 1 it
 * uses the process-wide pool of that many threads (num_threads - 1 pthreads, created with the
 * first delegate that asks for that count, shared by all of them, ended with the last); while
 * one execute uses the pool, a delegate executing on another thread runs on its own thread.
 */
#ifndef PTE_BACKEND_XNNPACK_H
#define PTE_BACKEND_XNNPACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pte/backend.h"
#include "pte/evalue.h"
#include "pte/named_data_map.h"
#include "pte/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PTE_XNNPACK_BACKEND_ID "XnnpackBackend"

/* ---- Registration and options ---------------------------------------------------------------- */

/* Instruction sets for the microkernels. AUTO picks the best one the CPU (and OS) supports. */
typedef enum pte_xnn_isa {
  PTE_XNN_ISA_AUTO = 0,
  PTE_XNN_ISA_SCALAR = 1, /* portable C, always available */
  PTE_XNN_ISA_AVX2 = 2,   /* AVX2 + FMA */
  PTE_XNN_ISA_AVX512 = 3  /* AVX-512F */
} pte_xnn_isa;

typedef struct pte_xnnpack_options {
  int num_threads; /* 0 or 1: run on the calling thread (default); at most 64 */
  pte_xnn_isa isa; /* default AUTO */
} pte_xnnpack_options;

/* Registers the backend under "XnnpackBackend" (pte_register_backend). Calling it again is a
 * no-op returning PTE_OK. Errors: PTE_ERR_INVALID_ARGUMENT if another backend already holds the
 * id, PTE_ERR_INTERNAL if the registry is full. */
pte_status pte_register_xnnpack_backend(void);

/* The backend's function table (for registering under another name or calling it directly). */
const pte_backend *pte_xnnpack_backend(void);

/* Process-wide defaults used by delegates initialised afterwards (per-load runtime specs
 * override them). Errors: PTE_ERR_INVALID_ARGUMENT (NULL, num_threads outside 0..64, unknown
 * isa), PTE_ERR_NOT_SUPPORTED (isa not supported by this CPU). Not thread-safe. */
pte_status pte_xnnpack_set_default_options(const pte_xnnpack_options *opts);
void pte_xnnpack_get_default_options(pte_xnnpack_options *opts);

/* Runtime specs accepted at method load (pte_method_options.backend_options for
 * "XnnpackBackend"): "num_threads" (int, 0..64), "isa" (string "auto", "scalar", "avx2" or
 * "avx512") and "repack_prepared" (bool, default false: see "Prepared data" below). A spec of
 * the wrong type or value makes init fail with PTE_ERR_INVALID_ARGUMENT. */
#define PTE_XNNPACK_OPTION_NUM_THREADS "num_threads"
#define PTE_XNNPACK_OPTION_ISA "isa"
#define PTE_XNNPACK_OPTION_REPACK_PREPARED "repack_prepared"

/* Best ISA of this machine (never AUTO), and ISA names ("scalar", "avx2", "avx512", "auto"). */
pte_xnn_isa pte_xnnpack_detect_isa(void);
bool pte_xnnpack_isa_supported(pte_xnn_isa isa);
const char *pte_xnnpack_isa_name(pte_xnn_isa isa);

/* ---- Prepared data (`pte prepare`, pte/prepare.h; docs/xnnpack.md section 11) -------------------
 * The backend implements initialize_backend_data: pte_initialize_and_save_backend_data /
 * pte_prepare_file / `pte prepare` store its weights already packed, so a later method load uses
 * them in place (no packing, no copy: with the mmap loader they are read straight from the
 * mapped file) instead of packing them at every load.
 *   - named-data weights (current exports): a weight key whose every use, in every
 *     XnnpackBackend blob of the program, is the filter of a FullyConnected / Conv2d /
 *     DepthwiseConv2d node packed into the same bytes gets those packed bytes (bias fused) as its
 *     value; the key is unchanged. A weight needed in two packed forms (e.g. the same weights with
 *     two different biases) or read as a plain tensor anywhere stays portable; bias and scale
 *     keys always stay portable;
 *   - inline constants (older exports: weights inside the blob): the processed blob is replaced
 *     by an "XPB1" container (graph + every inline constant, packed ones packed);
 *   - bare-flatbuffer blobs (oldest exports) are left as they are.
 * Every prepared value is wrapped in the prepared-data envelope with format version 1 and the
 * fingerprint of the ISA the process defaults select (pte_xnnpack_set_default_options; AUTO:
 * this CPU's best): pte_xnnpack_fingerprint. At init, prepared data whose fingerprint differs
 * from the ISA chosen for this load fails with PTE_ERR_DELEGATE_INVALID_COMPATIBILITY ("prepared
 * for XnnpackBackend format 1 on 'avx512 8x32+16x16 i8 4x8', this machine is 'avx2 6x16 i8 4x8'
 * ..."), unless the runtime spec "repack_prepared" is true: then the packed panels are re-laid
 * out for this machine's tile (exact: same values, no arithmetic), which costs about what packing
 * does. The direct API (pte_xnn_delegate_init) never repacks and copies packed weights that lie
 * inside a prepared blob (the blob need not outlive it). */

/* Fingerprint stored with data prepared for `isa` (AUTO: this CPU's best), e.g.
 * "avx512 8x32+16x16 i8 4x8": ISA, fp32 GEMM tile(s) MRxNR, int8 tile. Writes at most 32
 * characters and a NUL into buf; returns the length. */
size_t pte_xnnpack_fingerprint(pte_xnn_isa isa, char buf[33]);

/* Process-wide counters of what delegate inits did with weights (tests and benchmarks). */
typedef struct pte_xnnpack_stats {
  uint64_t packs;           /* nodes whose weights were packed from portable data */
  uint64_t packed_bytes;    /* bytes those packings produced */
  uint64_t prepared;        /* nodes that used prepared packed weights in place (no copy) */
  uint64_t prepared_copies; /* nodes that copied prepared weights (misaligned, or direct API) */
  uint64_t repacks;         /* nodes that re-laid out weights prepared for another machine */
} pte_xnnpack_stats;
/* Thread-safe (relaxed atomics). */
void pte_xnnpack_stats_get(pte_xnnpack_stats *out);
void pte_xnnpack_stats_reset(void);

/* ---- Direct use (without the method runtime) ---------------------------------------------- */

typedef struct pte_xnn_delegate pte_xnn_delegate;

/* Compiles a blob (see above). `named_data` resolves named constants (may be NULL when the
 * blob has none); `opts` NULL means the process defaults. The blob need not outlive the call
 * (what execute needs is copied); named-data buffers still needed (raw constants, prepared
 * packed weights used in place) are kept until destroy. Prepared data (see "Prepared data") is
 * accepted when made for opts' ISA, else PTE_ERR_DELEGATE_INVALID_COMPATIBILITY.
 * Errors (message in *err):
 *   PTE_ERR_INVALID_ARGUMENT               NULL argument, blob shorter than 30 bytes, bad options
 *   PTE_ERR_NOT_SUPPORTED                  opts->isa is not supported by this CPU
 *   PTE_ERR_DELEGATE_INVALID_COMPATIBILITY flatbuffer identifier is neither XN00 nor XN01;
 *                                          prepared data made for another ISA / tile, format
 *                                          version or backend (the message names both)
 *   PTE_ERR_INVALID_PROGRAM                corrupt header (region out of bounds or overlapping),
 *                                          flatbuffer fails verification, duplicate or unknown
 *                                          value ids, bad external ids, constant out of range or
 *                                          too small, dtype/shape mismatch between a node and
 *                                          its values, node out of topological order
 *   PTE_ERR_NOT_FOUND                      a named constant's key is absent from named_data
 *   PTE_ERR_NOT_IMPLEMENTED                node kind or datatype combination not supported
 *   PTE_ERR_MEMORY_ALLOCATION_FAILED       out of heap
 * On failure nothing needs destroying. */
pte_status pte_xnn_delegate_init(const void *blob, size_t size, const pte_named_data_map *named_data,
                                 const pte_xnnpack_options *opts, pte_xnn_delegate **out, pte_error_info *err);

/* Runs the graph. args[external_id] are the call's tensors (nargs >= the graph's external
 * count). Input tensors must be contiguous with the value's element type (fp32 <-> FLOAT,
 * qint8 <-> CHAR/QINT8, quint8 <-> BYTE/QUINT8, int32 <-> INT) and rank; their sizes may
 * differ from the declared ones (the graph is re-planned). Output tensors are resized to the
 * computed shapes (pte_tensor_resize rules). Errors: PTE_ERR_INVALID_ARGUMENT (too few args, a
 * non-tensor or NULL arg, wrong dtype/rank/layout, missing data, an input shape the graph
 * cannot take, output resize refused), PTE_ERR_MEMORY_ALLOCATION_FAILED (arena growth). */
pte_status pte_xnn_delegate_execute(pte_xnn_delegate *d, pte_evalue **args, size_t nargs, pte_error_info *err);

void pte_xnn_delegate_destroy(pte_xnn_delegate *d);

/* Number of graph inputs/outputs, and args an execute needs (max external id + 1). */
size_t pte_xnn_delegate_num_inputs(const pte_xnn_delegate *d);
size_t pte_xnn_delegate_num_outputs(const pte_xnn_delegate *d);
size_t pte_xnn_delegate_num_args(const pte_xnn_delegate *d);
/* Chosen microkernel ISA and thread count. */
pte_xnn_isa pte_xnn_delegate_isa(const pte_xnn_delegate *d);
int pte_xnn_delegate_threads(const pte_xnn_delegate *d);
/* Bytes of packed weights and of the activation arena (for sizing reports). */
size_t pte_xnn_delegate_packed_bytes(const pte_xnn_delegate *d);
size_t pte_xnn_delegate_arena_bytes(const pte_xnn_delegate *d);

/* ---- Per-node time split (profiling) ------------------------------------------------------
 * With profiling on, execute reads a monotonic clock around every node and accumulates the
 * time per node; the totals per node kind and per node can be read at any time. Off by default
 * (the clock reads cost ~50 ns per node). pte_xnnpack_set_profiling_default(true) turns it on
 * for delegates created afterwards (e.g. by pte_method_load). */
typedef struct pte_xnn_node_time {
  unsigned type;    /* PTE_XNN_NODE_* */
  const char *name; /* node kind, e.g. "XNNConv2d" (static string) */
  uint32_t node;    /* node index in execution order (per-node listing; 0 in the per-kind one) */
  uint64_t calls;   /* executions */
  uint64_t ns;      /* accumulated nanoseconds */
} pte_xnn_node_time;
/* Turns profiling on or off for one delegate (on: allocates the counters, which start at 0). */
pte_status pte_xnn_delegate_set_profiling(pte_xnn_delegate *d, bool on);
void pte_xnnpack_set_profiling_default(bool on);

/* Graph rewrites at init (default on; docs/xnnpack.md section 4): SiLU fusion, output-clamp
 * folding, reshapes in place. Off: delegates created afterwards keep the graph exactly as
 * serialized (pte_xnn_node.fuse stays 0), e.g. for a tool that translates the parsed graph. */
void pte_xnnpack_set_graph_rewrites(bool on);
bool pte_xnnpack_graph_rewrites(void);
/* Zeroes the counters. */
void pte_xnn_delegate_profile_reset(pte_xnn_delegate *d);
/* Totals per node kind that ran, largest time first; writes at most cap entries, returns how
 * many kinds there are. */
size_t pte_xnn_delegate_profile_kinds(const pte_xnn_delegate *d, pte_xnn_node_time *out, size_t cap);
/* Totals per node in execution order (cap entries at most); returns the node count. */
size_t pte_xnn_delegate_profile_nodes(const pte_xnn_delegate *d, pte_xnn_node_time *out, size_t cap);
/* Process-wide totals per node kind over every delegate with profiling on (e.g. those a method
 * created after pte_xnnpack_set_profiling_default(true)), since the last reset; same ordering
 * and return value as pte_xnn_delegate_profile_kinds. */
size_t pte_xnnpack_profile_kinds(pte_xnn_node_time *out, size_t cap);
void pte_xnnpack_profile_reset(void);

/* ---- Blob header ------------------------------------------------------------------------------ */

typedef struct pte_xnn_header {
  bool present;                  /* false: the whole blob is the flatbuffer */
  uint16_t header_length;        /* 30 in current blobs */
  uint32_t flatbuffer_offset;
  uint32_t flatbuffer_size;
  uint32_t constant_data_offset;
  uint64_t constant_data_size;
} pte_xnn_header;

#define PTE_XNN_HEADER_MIN_SIZE 30
#define PTE_XNN_HEADER_PADDED_SIZE 32

/* Parses and checks the header of a blob. Without "XH00" at bytes 4..8 the blob is a bare
 * flatbuffer (present false, flatbuffer = whole blob). Errors: PTE_ERR_INVALID_ARGUMENT (NULL,
 * size < 30), PTE_ERR_INVALID_PROGRAM (flatbuffer smaller than 8 bytes or out of bounds,
 * constant region out of bounds, regions overlapping). */
pte_status pte_xnn_parse_header(const void *blob, size_t size, pte_xnn_header *out, pte_error_info *err);

/* ---- SHA-256 (the exporter's named-data keys) -------------------------------------------------- */

typedef struct pte_sha256_ctx {
  uint32_t h[8];
  uint64_t len;
  uint8_t buf[64];
  size_t n;
} pte_sha256_ctx;

void pte_sha256_init(pte_sha256_ctx *c);
void pte_sha256_update(pte_sha256_ctx *c, const void *data, size_t n);
void pte_sha256_final(pte_sha256_ctx *c, uint8_t digest[32]);
void pte_sha256(const void *data, size_t n, uint8_t digest[32]);
/* Lower-case hex digest, NUL-terminated (65 bytes). */
void pte_sha256_hex(const void *data, size_t n, char hex[65]);

/* ---- Blob writer ------------------------------------------------------------------------------ */

/* Element types of graph values (XNNDatatype numbering). */
enum {
  PTE_XNN_DT_FP32 = 1,
  PTE_XNN_DT_QINT8 = 3,
  PTE_XNN_DT_QUINT8 = 4,
  PTE_XNN_DT_QINT32 = 5,
  PTE_XNN_DT_QCINT8 = 6,
  PTE_XNN_DT_QCINT32 = 7,
  PTE_XNN_DT_QDINT8 = 9,
  PTE_XNN_DT_FP16 = 2,   /* constant FullyConnected weights / bias (widened to fp32 at init) */
  PTE_XNN_DT_QCINT4 = 8, /* 4-bit per-channel FC filter [N, K] (K even): two weights a byte, low nibble
                            first, stored value = weight + 8; PTE_XNN_QUANT_PER_CHANNEL, channel_dim 0 */
  PTE_XNN_DT_QBINT4 = 10,/* 4-bit blockwise FC filter, same bytes; PTE_XNN_QUANT_PER_CHANNEL_GROUP */
  PTE_XNN_DT_BF16 = 14
};

/* Node kinds (XNodeUnion tags). */
enum {
  PTE_XNN_NODE_ADD = 1,
  PTE_XNN_NODE_FULLY_CONNECTED = 2,
  PTE_XNN_NODE_SOFTMAX = 3,
  PTE_XNN_NODE_SIGMOID = 4,
  PTE_XNN_NODE_STATIC_TRANSPOSE = 5,
  PTE_XNN_NODE_CLAMP = 6,
  PTE_XNN_NODE_CONV2D = 7,
  PTE_XNN_NODE_DIV = 8,
  PTE_XNN_NODE_STATIC_RESIZE_BILINEAR_2D = 9,
  PTE_XNN_NODE_STATIC_CONSTANT_PAD = 10,
  PTE_XNN_NODE_AVG_POOLING_2D = 11,
  PTE_XNN_NODE_MINIMUM = 12,
  PTE_XNN_NODE_DEPTHWISE_CONV2D = 13,
  PTE_XNN_NODE_MAX_POOLING_2D = 14,
  PTE_XNN_NODE_MULTIPLY = 15,
  PTE_XNN_NODE_SUBTRACT = 16,
  PTE_XNN_NODE_FLOOR = 17,
  PTE_XNN_NODE_CONVERT = 18,
  PTE_XNN_NODE_GLOBAL_AVG_POOLING_2D = 19,
  PTE_XNN_NODE_STATIC_RESHAPE = 20,
  PTE_XNN_NODE_SQUARE_ROOT = 22,
  PTE_XNN_NODE_CEILING = 23,
  PTE_XNN_NODE_HARDSWISH = 24,
  PTE_XNN_NODE_LEAKY_RELU = 25,
  PTE_XNN_NODE_MAXIMUM = 26,
  PTE_XNN_NODE_NEGATE = 27,
  PTE_XNN_NODE_SQUARE = 28,
  PTE_XNN_NODE_ELU = 29,
  PTE_XNN_NODE_ABS = 30,
  PTE_XNN_NODE_PRELU = 31,
  PTE_XNN_NODE_CONCATENATE2 = 32,
  PTE_XNN_NODE_CONCATENATE3 = 33,
  PTE_XNN_NODE_CONCATENATE4 = 34,
  PTE_XNN_NODE_STATIC_SLICE = 35,
  PTE_XNN_NODE_BATCH_MATRIX_MULTIPLY = 37,
  PTE_XNN_NODE_CONCATENATE5 = 38,
  PTE_XNN_NODE_RECIPROCAL_SQUARE_ROOT = 40,
  PTE_XNN_NODE_LOG = 41,
  PTE_XNN_NODE_GELU = 42,
  PTE_XNN_NODE_TANH = 43,
  PTE_XNN_NODE_EXP = 44,
  PTE_XNN_NODE_SIN = 45
};

#define PTE_XNN_VALUE_EXTERNAL_INPUT 0x1u
#define PTE_XNN_VALUE_EXTERNAL_OUTPUT 0x2u
#define PTE_XNN_NO_VALUE 0xFFFFFFFFu /* an absent optional input (e.g. no bias) */

typedef enum pte_xnn_quant {
  PTE_XNN_QUANT_NONE = 0,
  PTE_XNN_QUANT_PER_TENSOR = 1,  /* scale, zero_point */
  PTE_XNN_QUANT_PER_CHANNEL = 2, /* channel_scales[n_channel_scales] along channel_dim */
  PTE_XNN_QUANT_PER_TOKEN = 3,   /* qdint8: num_nonbatch_dims */
  PTE_XNN_QUANT_PER_CHANNEL_GROUP = 4 /* qbint4: block_size, block_scales_bf16[N * K / block_size] ([N, K / B]
                                         row-major), written as a bf16 constant (scale_buffer_idx) */
} pte_xnn_quant;

typedef struct pte_xnn_tensor_desc {
  int dtype;            /* PTE_XNN_DT_* */
  uint32_t rank;        /* <= 6 */
  const uint32_t *dims; /* [rank] */
  uint32_t flags;       /* PTE_XNN_VALUE_EXTERNAL_INPUT / _OUTPUT */
  uint32_t external_id; /* delegate argument index of inputs/outputs */
  const void *data;     /* constant bytes (copied), or NULL */
  size_t nbytes;
  pte_xnn_quant quant;
  float scale;
  int32_t zero_point;
  const float *channel_scales; /* copied */
  uint32_t n_channel_scales;
  uint32_t channel_dim;
  int32_t num_nonbatch_dims;
  int dq_datatype; /* legacy dynamic quantization of an fp32 input: PTE_XNN_DT_QINT8, or 0 */
  /* A constant whose bytes the caller stores itself (e.g. streamed into Program.named_data):
   * its named-data key (1..64 characters, copied; normally the sha256 hex of the bytes). data
   * must be NULL and nbytes the constant's size (numel * element size). NAMED mode only; such
   * constants get a ConstantDataOffset entry with this key but are not returned in
   * pte_xnn_blob.named (`pte synth --delegate xnnpack` streams its weights this way). */
  const char *named_key;
  /* PTE_XNN_QUANT_PER_CHANNEL_GROUP (copied; their consistency with dims is checked by the runtime) */
  uint32_t block_size;
  const uint16_t *block_scales_bf16;
  size_t n_block_scales;
  /* older forms of the same scales: block_scales_f32 (instead of bf16) writes the fp32 `scale`
   * list, which readers round to bf16 (upstream's rule); block_scales_inline keeps bf16 scales in
   * the graph (`scale_bf16`) instead of a constant */
  const float *block_scales_f32;
  bool block_scales_inline;
} pte_xnn_tensor_desc;

/* One node. Fields a kind does not use are ignored. */
typedef struct pte_xnn_node_desc {
  unsigned type;           /* PTE_XNN_NODE_* */
  uint32_t inputs[5];      /* value ids (PTE_XNN_NO_VALUE for an absent bias) */
  uint32_t output;
  uint32_t flags;
  bool has_min_max;        /* fused output clamp */
  float out_min, out_max;
  uint32_t debug_handle;
  /* conv / pooling: padding top, right, bottom, left; kernel or pooling h, w; stride h, w;
   * dilation h, w; conv groups and per-group channels */
  uint32_t padding[4], kernel[2], stride[2], dilation[2];
  uint32_t groups, group_input_channels, group_output_channels;
  /* transpose perm / reshape new_shape / slice offsets+sizes / pad pre+post (num_dims each) */
  uint32_t num_dims;
  const uint32_t *a, *b;
  float alpha;          /* ELU alpha, LeakyReLU slope, pad value */
  uint32_t new_h, new_w;/* resize */
  uint32_t axis;        /* concatenate */
} pte_xnn_node_desc;

typedef struct pte_xnn_builder pte_xnn_builder;

/* Where a built blob keeps its constants. */
typedef enum pte_xnn_constants_mode {
  PTE_XNN_CONSTANTS_NAMED = 0, /* sha256-keyed named data, as current exporters (default) */
  PTE_XNN_CONSTANTS_INLINE = 1 /* in the blob's constant region, as older exporters */
} pte_xnn_constants_mode;

typedef struct pte_xnn_named_blob {
  char key[65];       /* sha256 hex of the bytes */
  const uint8_t *data;/* owned by the pte_xnn_blob */
  size_t size;
} pte_xnn_named_blob;

/* A finished blob: the delegate's processed bytes (XH00 header, XN00 graph padded to 16,
 * constant region) and, in NAMED mode, the constants to store in Program.named_data (each
 * distinct key once, 16-byte alignment expected). Free with pte_xnn_blob_free. */
typedef struct pte_xnn_blob {
  uint8_t *data;
  size_t size;
  pte_xnn_named_blob *named;
  size_t n_named;
} pte_xnn_blob;

/* Builder (heap). Values get ids 0, 1, 2, ... in the order they are added. */
pte_xnn_builder *pte_xnn_builder_new(void);
void pte_xnn_builder_free(pte_xnn_builder *b);
/* Adds a value and stores its id in *id. Errors: PTE_ERR_INVALID_ARGUMENT (bad dtype, rank,
 * quantization fields, data size != numel * element size, named_key together with data or on an
 * external value, a key that is empty or longer than 64 characters),
 * PTE_ERR_MEMORY_ALLOCATION_FAILED. */
pte_status pte_xnn_builder_add_tensor(pte_xnn_builder *b, const pte_xnn_tensor_desc *t, uint32_t *id);
/* Adds a node. Errors: PTE_ERR_INVALID_ARGUMENT (unknown kind, id not yet defined, too many dims),
 * PTE_ERR_MEMORY_ALLOCATION_FAILED. Graph-level consistency is checked by the runtime. */
pte_status pte_xnn_builder_add_node(pte_xnn_builder *b, const pte_xnn_node_desc *n);
/* Serialises the graph. The builder stays usable (finish again for another mode). Errors:
 * PTE_ERR_INVALID_ARGUMENT (NULL, a named_key constant in INLINE mode),
 * PTE_ERR_MEMORY_ALLOCATION_FAILED, or the flatbuffer builder's status. */
pte_status pte_xnn_builder_finish(pte_xnn_builder *b, pte_xnn_constants_mode mode, pte_xnn_blob *out,
                                  pte_error_info *err);
void pte_xnn_blob_free(pte_xnn_blob *blob);

/* Ready-made graphs (as the exporter lowers them). Weights use PyTorch layouts.
 * Linear / MLP: input external id 0 [batch, widths[0]], output external id 1
 * [batch, widths[n_layers]]; layer i has weight [widths[i+1], widths[i]] and bias (may be NULL);
 * relu adds a fused [0, inf) clamp to every layer but the last (or to all when relu_last). */
pte_status pte_xnn_blob_build_mlp(size_t batch, size_t n_layers, const size_t *widths, const float *const *weights,
                                  const float *const *biases, bool relu_hidden, bool relu_last,
                                  pte_xnn_constants_mode mode, pte_xnn_blob *out, pte_error_info *err);
/* 4-bit blockwise weights the way the 8da4w recipe (torchao's int8-dynamic-activation /
 * int4-weight quantizer) makes them, in the bytes a qbint4 filter takes: per block of `block`
 * consecutive weights of a row of W [n, k] (row-major fp32), scale = max(-min(0, lo), max(0, hi)) / 7.5
 * (at least FLT_EPSILON), q = clamp(round-half-even(w / scale), -8, 7); nibbles[n * k / 2] hold
 * q + 8 (element (r, c) at nibble r * k + c, the even one in the low 4 bits); scales_bf16[n * k / block]
 * ([n, k / block]) the fp32 scales rounded to bf16 (nearest, ties to even), as stored for the runtime.
 * Errors: PTE_ERR_INVALID_ARGUMENT (NULL, block 0 or not dividing k, k odd, a non-finite weight). */
pte_status pte_xnn_quantize_qb4w(const float *w, size_t n, size_t k, size_t block, uint8_t *nibbles,
                                 uint16_t *scales_bf16);
pte_status pte_xnn_blob_build_linear(size_t batch, size_t in_features, size_t out_features, const float *weight,
                                     const float *bias, pte_xnn_constants_mode mode, pte_xnn_blob *out,
                                     pte_error_info *err);
/* Conv2d on an NCHW input [n, c_in, h, w]: transposes to NHWC, convolves (weight OIHW
 * [c_out, c_in / groups, kh, kw], depthwise node when groups == c_in == c_out / multiplier),
 * optional fused ReLU, transposes back. Input external id 0, output 1. */
typedef struct pte_xnn_conv2d_spec {
  uint32_t n, c_in, h, w;
  uint32_t c_out, kh, kw;
  uint32_t stride_h, stride_w, pad_h, pad_w, dilation_h, dilation_w, groups;
  bool relu;
} pte_xnn_conv2d_spec;
pte_status pte_xnn_blob_build_conv2d(const pte_xnn_conv2d_spec *spec, const float *weight, const float *bias,
                                     pte_xnn_constants_mode mode, pte_xnn_blob *out, pte_error_info *err);

/* A pte_named_data_map over a finished blob's named constants (for running it directly).
 * The map points into *blob, which must outlive it. */
typedef struct pte_xnn_blob_data_map {
  pte_named_data_map base;
  const pte_xnn_blob *blob;
} pte_xnn_blob_data_map;
void pte_xnn_blob_data_map_init(pte_xnn_blob_data_map *m, const pte_xnn_blob *blob);

#ifdef __cplusplus
}
#endif
#endif
