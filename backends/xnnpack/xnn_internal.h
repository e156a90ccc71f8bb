/* xnn_internal.h — private structures of the XNNPACK-compatible backend.
 *
 * A delegate blob is compiled at init into:
 *   - a value table (one entry per XValue, plus hidden values the compiler adds), each with its
 *     declared shape, current shape, quantization parameters and, at execute, a data pointer;
 *   - a node list in execution order, with operator parameters and packed weights;
 *   - a memory plan (an arena offset per internal value, reusing memory between values whose
 *     lifetimes do not overlap) recomputed whenever the input shapes change.
 * Tensors are row-major (4-D activations are NHWC as in XNNPACK).
 */
#ifndef PTE_BACKENDS_XNNPACK_INTERNAL_H
#define PTE_BACKENDS_XNNPACK_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pte/backend.h"
#include "pte/backend_xnnpack.h"
#include "pte/prepare.h"
#include "pte/status.h"

#define PTE_XNN_MAX_DIMS 6
#define PTE_XNN_INVALID_ID 0xFFFFFFFFu
#define PTE_XNN_MAX_THREADS 64

/* XNNDatatype values. */
enum {
  PTE_XD_INVALID = 0,
  PTE_XD_FP32 = 1,
  PTE_XD_FP16 = 2,
  PTE_XD_QINT8 = 3,
  PTE_XD_QUINT8 = 4,
  PTE_XD_QINT32 = 5,
  PTE_XD_QCINT8 = 6,
  PTE_XD_QCINT32 = 7,
  PTE_XD_QCINT4 = 8,
  PTE_XD_QDINT8 = 9,
  PTE_XD_QBINT4 = 10,
  PTE_XD_QPINT8 = 11,
  PTE_XD_INT32 = 12,
  PTE_XD_PFP32 = 13,
  PTE_XD_BF16 = 14,
  PTE_XD_COUNT = 15
};

/* XNNPACK flag bits that matter here. */
#define PTE_XNN_VALUE_FLAG_EXTERNAL_INPUT 0x1u
#define PTE_XNN_VALUE_FLAG_EXTERNAL_OUTPUT 0x2u
#define PTE_XNN_FLAG_TRANSPOSE_WEIGHTS 0x1u /* FC filter [K, N]; BMM: B is [.., N, K] */
#define PTE_XNN_FLAG_TENSORFLOW_SAME_PADDING 0x4u
#define PTE_XNN_FLAG_TENSORFLOW_RESHAPE_2D 0x4u
#define PTE_XNN_FLAG_TENSORFLOW_LEGACY_MODE 0x4u
#define PTE_XNN_FLAG_ALIGN_CORNERS 0x8u
#define PTE_XNN_FLAG_KEEP_DIMS 0x40u

/* Per-row parameters of a dynamically quantized (qdint8) value, stored after its int8 data. */
typedef struct pte_xnn_qrow {
  float scale;
  int32_t zero_point;
} pte_xnn_qrow;

typedef struct pte_xnn_value {
  uint32_t id;           /* serialized id_out */
  uint16_t dtype;        /* PTE_XD_* */
  uint8_t rank;
  bool is_input, is_output, is_const, hidden;
  uint32_t external_id;  /* args index for inputs/outputs */
  size_t decl[PTE_XNN_MAX_DIMS];  /* declared dims */
  size_t shape[PTE_XNN_MAX_DIMS]; /* current dims */
  size_t numel;
  /* quantization */
  float scale;
  int32_t zero_point;
  float *channel_scales; /* heap copy (per-channel quantization), or NULL */
  uint32_t n_channel_scales;
  uint32_t channel_dim;
  int32_t num_nonbatch_dims; /* qdint8 */
  /* qbint4 (PerChannelGroupQuant, xnn_q4.h): block size and N * K / block bf16 scales (heap copy) */
  uint32_t block_size;
  uint16_t *block_scales;
  size_t n_block_scales;
  /* constant bytes (valid until destroy when raw_needed; otherwise only during init) */
  const uint8_t *cdata;
  size_t csize;
  bool raw_needed; /* some node reads the unpacked bytes at execute */
  uint32_t const_index; /* constant_data / constant_buffer entry of the bytes (0: not a constant) */
  uint32_t scale_index; /* PerChannelQuant.scale_buffer_idx (0: none) */
  /* prepared constant (`pte prepare`, xnn_prepare.c): the entry holds packed weights (one XPW1
   * blob per group) instead of the tensor's bytes; cdata is NULL. Only a FullyConnected /
   * convolution filter may be prepared. */
  const uint8_t *prep;
  size_t prep_size;
  bool prep_foreign; /* packed for another ISA / tile: re-laid out at init (repack_prepared) */
  bool prep_in_blob; /* the payload lies inside the processed blob (prepared inline constants) */
  bool prep_deferred; /* its envelope and panel headers are checked at the first execute (the
                         blob's XPB1 table named it: init does not touch its pages) */
  /* planning */
  int def_node;  /* producing node, -1 for inputs/constants */
  int last_use;  /* last consuming node, -1 if none */
  size_t nbytes; /* current byte size (qdint8: data + row params) */
  size_t offset; /* arena offset of internal values */
  uint8_t *data; /* bound at execute */
  /* storage shared with another value (a StaticReshape's input and output, xnn_fuse.c): data is
   * values[alias].data; not planned itself. alias is never an aliased value. */
  bool aliased;
  uint32_t alias;
  int plan_last; /* last use of the storage (own and aliases'), for planning */
} pte_xnn_value;

/* A packed-weights blob (self-contained; see docs/xnnpack.md "Packed weights"). */
typedef struct pte_xnn_packed {
  uint8_t *bytes; /* 64-byte aligned, header included */
  size_t size;
} pte_xnn_packed;

/* Packed header layout (little-endian, 64 bytes). */
#define PTE_XNN_PACKED_MAGIC "XPW1"
#define PTE_XNN_PACKED_VERSION 1
#define PTE_XNN_PACKED_HEADER_SIZE 64
enum {
  PTE_XNN_PACK_F32_GEMM = 1, /* panels: [NR f32 bias][K x NR f32] */
  PTE_XNN_PACK_QS8_GEMM = 2, /* panels: [NR i32 bias'][NR f32 scale][K/2 x NR x 2 i8] (KR 2) */
  PTE_XNN_PACK_QD8_GEMM = 3, /* panels: [NR f32 bias][NR f32 wscale][NR i32 ksum][K/2 x NR x 2 i8] */
  PTE_XNN_PACK_F32_DWCONV = 4, /* [C f32 bias][KH*KW x C f32] */
  PTE_XNN_PACK_Q4_GEMM = 5     /* 4-bit weights, see xnn_q4.h */
};
typedef struct pte_xnn_packed_info {
  uint32_t kind, isa, nr, kr;
  uint32_t n, k;          /* logical output channels, reduction length */
  uint32_t n_panels;
  uint64_t panel_stride;  /* bytes from one panel to the next */
  uint64_t total_size;
} pte_xnn_packed_info;

bool pte_xnn_packed_info_get(const pte_xnn_packed *p, pte_xnn_packed_info *out);
void pte_xnn_packed_free(pte_xnn_packed *p);

/* Node kinds that need a variant choice at init. */
enum {
  PTE_XNN_V_F32 = 0,   /* fp32 everything */
  PTE_XNN_V_QS8 = 1,   /* static int8: qint8 in/out, qint8/qcint8 weights, int32 bias */
  PTE_XNN_V_QD8 = 2,   /* qdint8 input, qcint8 weights, fp32 bias/out */
  PTE_XNN_V_QD8_Q4 = 3 /* qdint8 input, qcint4 / qbint4 weights, fp32 bias/out (xnn_q4.h) */
};

typedef struct pte_xnn_conv_params {
  uint32_t pt, pr, pb, pl, kh, kw, sh, sw, dh, dw, gic, goc, groups, adj_h, adj_w;
} pte_xnn_conv_params;

typedef struct pte_xnn_pool_params {
  uint32_t pt, pr, pb, pl, ph, pw, sh, sw, dh, dw;
} pte_xnn_pool_params;

typedef struct pte_xnn_node {
  uint8_t type; /* pte_xn_XNodeUnion_* tag */
  uint8_t n_in, n_out;
  uint8_t variant;
  uint32_t in[5];  /* value indices (PTE_XNN_INVALID_ID: absent optional input, e.g. bias) */
  uint32_t out[2];
  uint32_t flags;
  uint32_t debug_handle;
  float out_min, out_max;
  union {
    pte_xnn_conv_params conv;
    pte_xnn_pool_params pool;
    struct { uint32_t n; uint32_t perm[PTE_XNN_MAX_DIMS]; } transpose;
    struct { uint32_t n; size_t shape[PTE_XNN_MAX_DIMS]; } reshape;
    struct { uint32_t n; size_t offsets[PTE_XNN_MAX_DIMS], sizes[PTE_XNN_MAX_DIMS]; } slice;
    struct { uint32_t n; size_t pre[PTE_XNN_MAX_DIMS], post[PTE_XNN_MAX_DIMS]; float value; } pad;
    struct { uint32_t h, w; } resize;
    struct { uint32_t axis; } cat;
    struct { float alpha; } elu;
    struct { float slope; } leaky;
  } p;
  /* prepared at init */
  pte_xnn_packed packed;
  bool packed_borrowed; /* packed.bytes points into prepared data (not owned, never written) */
  bool prep_check;      /* prepared weights whose envelope and headers the first execute checks */
  pte_xnn_packed_info prep_want; /* ... against this layout (prep_check) */
  bool weights_dynamic; /* FC/conv filter not constant: packed at execute into scratch */
  size_t scratch;       /* per-thread scratch bytes needed at the current shapes */
  size_t shared_scratch;/* scratch shared by all threads (e.g. run-time packed weights) */
  /* qs8 requantization bounds */
  int32_t qmin, qmax;
  /* conv: run-time paddings (differ from the serialized ones with TF SAME padding), group packing */
  uint32_t rt_pt, rt_pl;
  size_t group_stride; /* bytes between the packed blobs of consecutive groups */
  uint32_t n_groups;   /* GEMM groups (1 for FC) */
  bool as_dwconv;      /* depthwise with multiplier 1: direct kernel */
  uint8_t *dwq;        /* qs8 depthwise, multiplier 1: kernel-layout weights (owned; xnn_dw_qs8.c) */
  /* graph rewrites at init (xnn_fuse.c): PTE_XNN_FUSE_* */
  uint8_t fuse;
} pte_xnn_node;

/* pte_xnn_node.fuse */
enum {
  PTE_XNN_FUSE_NONE = 0,
  PTE_XNN_FUSE_SKIP = 1, /* absorbed into another node: not inferred, not run */
  PTE_XNN_FUSE_SILU = 2, /* Multiply(x, Sigmoid(x)): in[0] = in[1] = x, computes x * sigmoid(x) */
  PTE_XNN_FUSE_ALIAS = 3 /* StaticReshape whose output shares its input's storage: inferred, not run */
};

/* ---- CPU / kernels ------------------------------------------------------------------------ */
typedef enum {
  PTE_XNN_KISA_SCALAR = 0,
  PTE_XNN_KISA_AVX2 = 1,
  PTE_XNN_KISA_AVX512 = 2
} pte_xnn_kisa;

/* fp32 GEMM microkernel: C[mr x nc] = clamp(init + A[mr x kc] * W[kc x NR]) where init is the
 * NR-float bias when `bias` is non-NULL, else the current contents of C (accumulation across
 * K blocks). a_stride/c_stride are in elements. mr <= MR, nc <= NR. */
typedef void (*pte_xnn_f32_gemm_fn)(size_t mr, size_t nc, size_t kc, const float *a, size_t a_stride,
                                    const float *w, const float *bias, float *c, size_t c_stride,
                                    float vmin, float vmax);

/* int8 GEMM microkernel: raw int32 accumulators acc[mr x NR] = sum_k a[m][k] * w[k][n]
 * (a in int8 rows, w a K x NR int8 panel), written to acc (row stride NR). */
typedef void (*pte_xnn_i8_gemm_fn)(size_t mr, size_t kc, const int8_t *a, size_t a_stride, const int8_t *w,
                                   int32_t *acc);

/* Same over nseg K segments of kc each: segment s reads rows aseg[s] + r * a_stride and the
 * kc x NR weights at wseg[s]; the accumulators stay in registers across segments. */
typedef void (*pte_xnn_f32_igemm_fn)(size_t mr, size_t nc, size_t nseg, size_t kc, const float *const *aseg,
                                     size_t a_stride, const float *const *wseg, const float *bias, float *c,
                                     size_t c_stride, float vmin, float vmax);

typedef struct pte_xnn_kernels {
  pte_xnn_kisa isa;
  uint32_t f32_mr, f32_nr;
  pte_xnn_f32_gemm_fn f32_gemm;
  pte_xnn_f32_igemm_fn f32_igemm;
  /* optional narrow variant, used (and packed for) when N <= f32n_nr; 0/NULL when absent */
  uint32_t f32n_mr, f32n_nr;
  pte_xnn_f32_gemm_fn f32n_gemm;
  pte_xnn_f32_igemm_fn f32n_igemm;
  uint32_t i8_mr, i8_nr;
  pte_xnn_i8_gemm_fn i8_gemm;
  /* y[i] = clamp(x[i] * s + b) style helpers used by elementwise code */
  void (*f32_vadd)(size_t n, const float *a, const float *b, float *y, float vmin, float vmax);
  void (*f32_vmul)(size_t n, const float *a, const float *b, float *y, float vmin, float vmax);
  void (*f32_vclamp)(size_t n, const float *x, float *y, float vmin, float vmax);
  /* depthwise conv row: acc[c] over taps, C channels (see xnn_conv.c) */
  void (*f32_dw_row)(size_t c, size_t taps, const float **in, const float *w, const float *bias, float *out,
                     float vmin, float vmax);
} pte_xnn_kernels;

/* ---- Elementwise kernels (xnn_vmath.h, one instantiation per ISA) -------------------------- */
typedef struct pte_xnn_uparams {
  float vmin, vmax; /* Clamp bounds */
  float alpha;      /* ELU alpha, LeakyReLU slope */
} pte_xnn_uparams;
typedef void (*pte_xnn_f32_unary_fn)(size_t n, const float *x, float *y, const pte_xnn_uparams *p);
/* y[i] = clamp(a op b): vv both n long, vs b[0] for every i, sv a[0] for every i. */
typedef void (*pte_xnn_f32_binary_fn)(size_t n, const float *a, const float *b, float *y, float vmin, float vmax);
enum {
  PTE_XNN_U_ABS, PTE_XNN_U_NEG, PTE_XNN_U_SQUARE, PTE_XNN_U_SQRT, PTE_XNN_U_RSQRT, PTE_XNN_U_FLOOR, PTE_XNN_U_CEIL,
  PTE_XNN_U_CLAMP, PTE_XNN_U_SIGMOID, PTE_XNN_U_TANH, PTE_XNN_U_EXP, PTE_XNN_U_ELU, PTE_XNN_U_HARDSWISH,
  PTE_XNN_U_LEAKY, PTE_XNN_U_SILU, PTE_XNN_U_LOG, PTE_XNN_U_GELU, PTE_XNN_U_SIN, PTE_XNN_U_COUNT
};
enum { PTE_XNN_B_ADD, PTE_XNN_B_SUB, PTE_XNN_B_MUL, PTE_XNN_B_DIV, PTE_XNN_B_MIN, PTE_XNN_B_MAX, PTE_XNN_B_PRELU,
       PTE_XNN_B_COUNT };
enum { PTE_XNN_BS_VV = 0, PTE_XNN_BS_VS = 1, PTE_XNN_BS_SV = 2 };
/* Depthwise convolution, npix pixels of one output row: out[p * out_step + ch] =
 * clamp(bias[ch] + sum over t < ntaps of in[t][p * in_step + ch] * wt[t][ch]), ch < c. */
typedef void (*pte_xnn_f32_dw_fn)(size_t npix, size_t c, size_t ntaps, const float *const *in, const float *const *wt,
                                  size_t in_step, const float *bias, float *out, size_t out_step, float vmin,
                                  float vmax);
enum { PTE_XNN_DW_ANY = 0, PTE_XNN_DW_3X3 = 1, PTE_XNN_DW_5X5 = 2 }; /* 3x3 / 5x5: ntaps 9 / 25 */
typedef struct pte_xnn_vec_kernels {
  pte_xnn_f32_unary_fn unary[PTE_XNN_U_COUNT];
  pte_xnn_f32_binary_fn binary[PTE_XNN_B_COUNT][3];
  pte_xnn_f32_dw_fn dw[3];
  /* y[i] = t + (u - t) ly, t = p00[i] + (p01[i] - p00[i]) lx, u = p10[i] + (p11[i] - p10[i]) lx */
  void (*bilerp)(size_t n, const float *p00, const float *p01, const float *p10, const float *p11, float lx, float ly,
                 float *y);
} pte_xnn_vec_kernels;
const pte_xnn_vec_kernels *pte_xnn_vec_kernels_scalar(void);
const pte_xnn_vec_kernels *pte_xnn_vec_kernels_avx2(void);   /* NULL if not compiled */
const pte_xnn_vec_kernels *pte_xnn_vec_kernels_avx512(void); /* NULL if not compiled */
/* Quantized global average pooling step (xnn_pool.c): acc[c] += (double)((float)(q - zp) * scale)
 * over `rows` pixels (row stride C bytes, int8 or uint8 when u8) and channels [0, cn), pixels in
 * order; the version for an elementwise table's ISA (every one bit-identical to the scalar one). */
typedef void (*pte_xnn_gavg_q8_fn)(const uint8_t *p, bool u8, size_t C, size_t rows, size_t cn, int32_t zp,
                                   float scale, double *acc);
pte_xnn_gavg_q8_fn pte_xnn_gavg_q8_for(const pte_xnn_vec_kernels *vec);
/* fp32 -> qdint8 of one row of n values (xnn_quantize.c): writes y, returns the row's parameters;
 * the version for an elementwise table's ISA (every one bit-identical to the scalar one). */
typedef pte_xnn_qrow (*pte_xnn_qd8_row_fn)(size_t n, const float *x, int8_t *y);
pte_xnn_qd8_row_fn pte_xnn_qd8_row_for(const pte_xnn_vec_kernels *vec);
/* The elementwise table matching a GEMM kernel table's ISA (never NULL). */
const pte_xnn_vec_kernels *pte_xnn_vec_kernels_for(const pte_xnn_kernels *k);

pte_xnn_kisa pte_xnn_cpu_best_isa(void);
const pte_xnn_kernels *pte_xnn_kernels_for(pte_xnn_kisa isa);
const pte_xnn_kernels *pte_xnn_kernels_scalar(void);
void pte_xnn_i8_gemm_4x8(size_t mr, size_t kc, const int8_t *a, size_t a_stride, const int8_t *w, int32_t *acc);
/* AVX-512 VNNI+VBMI qs8 tile (xnn_qs8_vnni.c): as pte_xnn_qs8_gemm_8x8_avx512bw, corr[i] = 128 x the
 * column sums of the first kc & ~7 k values of panel i (pte_xnn_qs8_vnni_corr) */
bool pte_xnn_have_qs8_vnni(void);
void pte_xnn_qs8_vnni_corr(size_t kc, const int8_t *w, int32_t *corr8);
void pte_xnn_qs8_gemm_8x8_vnni(size_t rows, size_t np, const size_t *nc, size_t kc, const int8_t *a, size_t as,
                               const int8_t *const *w, const int32_t *const *bias, const int32_t *const *corr,
                               const float *const *scale, int8_t *out, size_t ldc, float lo, float hi, int32_t zp);
/* qs8 GEMM tile + epilogue over np (1 or 2) adjacent NR-8 panels (xnn_kernels_avx512.c; needs
 * AVX-512BW/VL; see pte_xnn_qs8_gemm) */
void pte_xnn_qs8_gemm_8x8_avx512bw(size_t rows, size_t np, const size_t *nc, size_t kc, const int8_t *a, size_t as,
                                   const int8_t *const *w, const int32_t *const *bias, const float *const *scale,
                                   int8_t *out, size_t ldc, float lo, float hi, int32_t zp);
/* AVX2 version of the same kernel (also used by the AVX-512 table; x86 builds only) */
void pte_xnn_i8_gemm_4x8_avx2(size_t mr, size_t kc, const int8_t *a, size_t a_stride, const int8_t *w, int32_t *acc);
const pte_xnn_kernels *pte_xnn_kernels_avx2(void);   /* NULL if not compiled */
const pte_xnn_kernels *pte_xnn_kernels_avx512(void); /* NULL if not compiled */

/* ---- Thread pool -------------------------------------------------------------------------- */
typedef struct pte_xnn_pool pte_xnn_pool;
/* fn(ctx, item, tid) for item in [0, n); tid < pool threads. */
typedef void (*pte_xnn_task_fn)(void *ctx, size_t item, int tid);
pte_xnn_pool *pte_xnn_pool_create(int threads); /* NULL if threads <= 1 or creation failed */
/* The process-wide pool of `threads` threads (created on first use; NULL as create), shared by
 * every delegate that asks for that count; give it back with pte_xnn_pool_release (the last
 * release destroys it). A caller owns a pool from begin to end (or for one parallel call); a
 * caller on another thread meanwhile runs its items serially. */
pte_xnn_pool *pte_xnn_pool_acquire(int threads);
void pte_xnn_pool_release(pte_xnn_pool *p);
void pte_xnn_pool_destroy(pte_xnn_pool *p);
int pte_xnn_pool_threads(const pte_xnn_pool *p); /* 1 for NULL */
void pte_xnn_parallel(pte_xnn_pool *p, pte_xnn_task_fn fn, void *ctx, size_t n);
/* fn(ctx, i, tid) for i in [0, n) as at most `groups` runs of consecutive items (serial when
 * p is NULL or groups <= 1): fine-grained row loops handed out in a few pieces. */
void pte_xnn_parallel_grouped(pte_xnn_pool *p, pte_xnn_task_fn fn, void *ctx, size_t n, size_t groups);
/* Brackets one execute: in between, idle workers spin for the next job instead of sleeping. */
void pte_xnn_pool_begin(pte_xnn_pool *p);
void pte_xnn_pool_end(pte_xnn_pool *p);
/* Ends the workers' linger after end at once (they sleep): a benchmark that interleaves another
 * runtime calls it (pte_xnn_delegate_sleep_workers) so that they do not spin through its turn. */
void pte_xnn_pool_sleep(pte_xnn_pool *p);
void pte_xnn_delegate_sleep_workers(pte_xnn_delegate *d);

/* ---- Packing (xnn_pack.c) ----------------------------------------------------------------- */
/* fp32 GEMM tile chosen for a problem with n outputs (the narrow variant when it fits), and the
 * tile a packed blob was laid out for (by its NR). */
typedef struct pte_xnn_f32_tile {
  uint32_t mr, nr;
  pte_xnn_f32_gemm_fn gemm;
  pte_xnn_f32_igemm_fn igemm;
} pte_xnn_f32_tile;
pte_xnn_f32_tile pte_xnn_f32_tile_for_n(const pte_xnn_kernels *k, size_t n);
pte_xnn_f32_tile pte_xnn_f32_tile_for_nr(const pte_xnn_kernels *k, size_t nr);

/* Packs fp32 weights W (N x K row-major, or K x N when transposed) and optional bias[N]. */
pte_status pte_xnn_pack_f32_gemm(const pte_xnn_kernels *k, size_t n, size_t kdim, const float *w, bool transposed,
                                 const float *bias, pte_xnn_packed *out);
/* Into caller memory (run-time packing); returns the size needed when dst is NULL. */
size_t pte_xnn_pack_f32_gemm_into(const pte_xnn_kernels *k, size_t n, size_t kdim, const float *w,
                                  size_t w_row_stride, size_t w_col_stride, const float *bias, uint8_t *dst);
/* The header alone, and only panels [p0, p1) of the same blob: parallel packing. */
void pte_xnn_pack_f32_gemm_header(const pte_xnn_kernels *k, size_t n, size_t kdim, uint8_t *dst);
void pte_xnn_pack_f32_gemm_panels(const pte_xnn_kernels *k, size_t n, size_t kdim, const float *w,
                                  size_t w_row_stride, size_t w_col_stride, const float *bias, uint8_t *dst, size_t p0,
                                  size_t p1);
/* qs8: weights int8 N x K (zero point 0), per-channel or per-tensor weight scales, int32 bias. */
/* Element (o, i) of an int8 weight matrix is w[o * row_stride + i * col_stride]. The blob is
 * written at dst (pte_xnn_pack_*_size bytes, 64-aligned). */
size_t pte_xnn_pack_i8_size(const pte_xnn_kernels *k, size_t n, size_t kdim, bool qd8);
void pte_xnn_pack_qs8_gemm(const pte_xnn_kernels *k, size_t n, size_t kdim, const int8_t *w, size_t row_stride,
                           size_t col_stride, const int32_t *bias, int32_t in_zp, const float *req_scale /* [n] */,
                           uint8_t *dst);
/* qd8: weights int8 N x K, per-channel scales[n], fp32 bias or NULL. */
void pte_xnn_pack_qd8_gemm(const pte_xnn_kernels *k, size_t n, size_t kdim, const int8_t *w, size_t row_stride,
                           size_t col_stride, const float *wscale, const float *bias, uint8_t *dst);
/* The same, panels [p0, p1) only (the header with panel 0): packing in slices. */
void pte_xnn_pack_qs8_gemm_panels(const pte_xnn_kernels *k, size_t n, size_t kdim, const int8_t *w, size_t row_stride,
                                  size_t col_stride, const int32_t *bias, int32_t in_zp, const float *req_scale,
                                  uint8_t *dst, size_t p0, size_t p1);
void pte_xnn_pack_qd8_gemm_panels(const pte_xnn_kernels *k, size_t n, size_t kdim, const int8_t *w, size_t row_stride,
                                  size_t col_stride, const float *wscale, const float *bias, uint8_t *dst, size_t p0,
                                  size_t p1);
/* depthwise: filter [1, KH, KW, C] (fp32), bias[C] or NULL. */
pte_status pte_xnn_pack_f32_dwconv(size_t c, size_t taps, const float *w, const float *bias, pte_xnn_packed *out);

/* ---- GEMM drivers (xnn_gemm.c) ------------------------------------------------------------ */
typedef struct pte_xnn_exec pte_xnn_exec;
/* C[M x N] = clamp(A[M x K] * packed + bias). */
void pte_xnn_f32_gemm(pte_xnn_exec *x, const uint8_t *packed, size_t m, const float *a, size_t lda, float *c,
                      size_t ldc, float vmin, float vmax);
/* Same on one thread, rows [m0, m1) and panels [p0, p1) only. */
void pte_xnn_f32_gemm_region(const pte_xnn_kernels *k, const uint8_t *packed, size_t m0, size_t m1, size_t p0,
                             size_t p1, const float *a, size_t lda, float *c, size_t ldc, float vmin, float vmax);
/* qs8: int8 A rows (zero point folded into the packed bias), requantized int8 output. */
void pte_xnn_qs8_gemm(pte_xnn_exec *x, const uint8_t *packed, size_t m, const int8_t *a, size_t lda, int8_t *c,
                      size_t ldc, int32_t out_zp, int32_t qmin, int32_t qmax);
/* qd8: int8 A rows; row m uses the quantization params rows[(row_off + m) / row_div]; fp32 out. */
void pte_xnn_qd8_gemm(pte_xnn_exec *x, const uint8_t *packed, size_t m, const int8_t *a, size_t lda,
                      const pte_xnn_qrow *rows, size_t row_off, size_t row_div, float *c, size_t ldc, float vmin,
                      float vmax);

/* ---- The compiled delegate ---------------------------------------------------------------- */
struct pte_xnn_delegate {
  pte_xnn_value *values;
  size_t n_values, cap_values;
  pte_xnn_node *nodes;
  size_t n_nodes, cap_nodes;
  uint32_t *inputs;  /* value indices, sorted by external id */
  uint32_t *outputs;
  size_t n_inputs, n_outputs;
  uint32_t num_externs; /* args needed: max external id + 1 */
  pte_freeable_buffer *bufs; /* named-data buffers kept for raw constants */
  size_t n_bufs, cap_bufs;
  uint8_t **owned; /* heap copies owned by the delegate */
  size_t n_owned, cap_owned;
  /* memory */
  uint8_t *arena;
  size_t arena_size, arena_cap;
  size_t scratch_per_thread, shared_scratch;
  bool planned;
  /* machine */
  const pte_xnn_kernels *k;
  pte_xnn_pool *pool;
  int threads;
  /* prepared data */
  bool repack_prepared; /* accept data prepared for another ISA / tile and re-lay it out */
  bool prep_checks_pending; /* some node has prep_check set */
  bool blob_persistent; /* the processed blob outlives the delegate (method runtime) */
  bool borrows_blob;    /* some packed weights point into the processed blob: keep it */
  /* lazy packing (pte_xnn_init_cfg.lazy_pack; the prepare hook): fresh FC/conv weights are not
   * packed except node lazy_node - 1; the others get packed.size (the bytes they would take),
   * packed.bytes NULL. Such a delegate is for inspection only, never executed. */
  bool lazy_pack;
  size_t lazy_node;
  uint8_t *lazy_buf; /* caller memory for node lazy_node - 1's packed weights when they fit */
  size_t lazy_buf_size;
  /* profiling (pte_xnn_delegate_set_profiling): per-node accumulated ns and calls */
  bool profiling;
  uint64_t *prof_ns, *prof_calls;
};

struct pte_xnn_exec {
  pte_xnn_delegate *d;
  const pte_xnn_kernels *k;
  const pte_xnn_vec_kernels *vec;
  pte_xnn_pool *pool;
  int threads;
  uint8_t *scratch;       /* threads * scratch_stride */
  size_t scratch_stride;
  uint8_t *shared;        /* shared scratch */
};

/* Per-thread scratch of thread tid. */
static inline uint8_t *pte_xnn_scratch(pte_xnn_exec *x, int tid) { return x->scratch + (size_t)tid * x->scratch_stride; }

/* How to compile a blob. */
typedef struct pte_xnn_init_cfg {
  int threads;
  const pte_xnn_kernels *k;
  bool repack_prepared; /* runtime spec "repack_prepared" */
  bool blob_persistent; /* the blob stays valid (and unchanged) until the delegate is destroyed:
                           prepared packed weights inside it are used in place, else copied */
  bool lazy_pack;       /* parse and check everything, pack only node pack_node - 1 (0: none);
                           the delegate cannot execute (pte prepare: one weight at a time) */
  size_t pack_node;
  uint8_t *pack_buf;    /* lazy_pack: that node's weights are packed here when they fit (the node */
  size_t pack_buf_size; /* borrows it: valid until the caller reuses it), else into new memory */
} pte_xnn_init_cfg;

/* Compiles a blob (xnn_compile.c); the public init wraps this with option handling. */
pte_status pte_xnn_delegate_init_internal(const void *blob, size_t size, const pte_named_data_map *ndm,
                                          const pte_xnn_init_cfg *cfg, pte_xnn_delegate **out, pte_error_info *err);

/* The portable format alone, as every runtime that does not know `pte prepare` reads a blob: the
 * XH00 header when bytes 4..8 say so, else a bare flatbuffer; then the XNNGraph identifier (XN00 or
 * XN01) at bytes 4..8 of the flatbuffer. *fb / *fb_size: the flatbuffer. Errors: those of
 * pte_xnn_parse_header, and PTE_ERR_DELEGATE_INVALID_COMPATIBILITY naming the identifier found
 * (what a prepared, enveloped blob gets: docs/prepare.md). */
pte_status pte_xnn_parse_portable(const void *blob, size_t size, pte_xnn_header *h, const uint8_t **fb, size_t *fb_size,
                                  pte_error_info *err);

/* The first execute's checks of prepared weights init used without reading (prep_check nodes):
 * envelope (backend, format, this machine's fingerprint, payload where the blob says) and every
 * group's panel header against the node; the errors of an eager init. */
pte_status pte_xnn_check_deferred(pte_xnn_delegate *d, pte_error_info *err);

/* ---- Prepared data (xnn_prepare.c) -------------------------------------------------------- */
/* Envelope format version of prepared XnnpackBackend data (bump on any layout change of XPW1
 * panels or of the XPB1 container). */
#define PTE_XNN_PREPARED_FORMAT 1u
/* Fingerprint of a kernel table: "<isa> <f32 MRxNR>[+<narrow MRxNR>] i8 <MRxNR>" (<= 32 bytes,
 * NUL-terminated in buf[33]); returns its length. */
size_t pte_xnn_fingerprint(const pte_xnn_kernels *k, char buf[33]);
/* Checks an envelope for this kernel table (pte_prepared_envelope_check). With `repack`, data of
 * XnnpackBackend format PTE_XNN_PREPARED_FORMAT made for another fingerprint is accepted too
 * (*foreign = true). */
pte_status pte_xnn_envelope_check(const void *data, size_t size, const pte_xnn_kernels *k, bool repack,
                                  pte_prepared_info *pi, bool *foreign, pte_error_info *err);

/* A prepared inline blob ("XPB1" container, payload of a replaced processed blob):
 *   [0..4) "XPB1"  [4..8) u32 version (1)  [8..12) u32 header size (64)  [12..16) u32 entries
 *   [16..24) u64 flatbuffer offset (multiple of 64)  [24..32) u64 flatbuffer size
 *   [32..40) u64 entry table offset (multiple of 8)   [40..64) reserved (0)
 *   entry (24 bytes): u32 constant index, u32 kind (0 raw bytes, 1 packed XPW1 blobs),
 *                     u64 offset (multiple of 64), u64 size
 * Offsets count from the payload start. Every constant_data entry without a named key is listed;
 * regions do not overlap the header, the table or each other. */
#define PTE_XNN_XPB_MAGIC "XPB1"
#define PTE_XNN_XPB_HEADER_SIZE 64u
#define PTE_XNN_XPB_ENTRY_SIZE 24u
/* XPB1 entry kinds: RAW / PACKED constants are stored in the container; NAMED (offset 0) says
 * that the constant's named-data value is an envelope of `size` packed payload bytes written by
 * the same `pte prepare` (init uses it without reading it; the first execute checks it). */
enum { PTE_XNN_XPB_RAW = 0, PTE_XNN_XPB_PACKED = 1, PTE_XNN_XPB_NAMED = 2 };
typedef struct pte_xnn_xpb {
  const uint8_t *base;
  size_t size;
  const uint8_t *fb;
  size_t fb_size;
  const uint8_t *table;
  uint32_t n_entries;
} pte_xnn_xpb;
/* Parses and bounds-checks a container (PTE_ERR_INVALID_PROGRAM with a message if malformed). */
pte_status pte_xnn_xpb_parse(const uint8_t *p, size_t size, pte_xnn_xpb *out, pte_error_info *err);
/* Entry for constant `idx`: true and its kind, data and size when listed. */
bool pte_xnn_xpb_find(const pte_xnn_xpb *x, uint32_t idx, uint32_t *kind, const uint8_t **data, size_t *size);

/* A stored blob, portable or in the envelope. An envelope (checked for this kernel table, see
 * pte_xnn_envelope_check) holds either an XPB1 container (*has_xpb, *xpb filled) or a sealed
 * portable blob (the original bytes, stored again because prepare replaced this backend's named
 * data): then *portable / *portable_size are the payload. Without an envelope they are the blob. */
pte_status pte_xnn_unwrap_blob(const void *blob, size_t size, const pte_xnn_kernels *k, bool repack,
                               const uint8_t **portable, size_t *portable_size, pte_xnn_xpb *xpb, bool *has_xpb,
                               bool *foreign, pte_error_info *err);

/* Header of one packed blob of `kind` laid out with panel width nr (isa: the header's ISA field). */
pte_xnn_packed_info pte_xnn_packed_layout(uint32_t kind, uint32_t isa, size_t nr, size_t n, size_t kdim);
/* The layout these kernels pack (kind, isa, nr, kr, n, k, panels, stride, total) for n x kdim
 * (depthwise: n = channels, kdim = taps). */
pte_xnn_packed_info pte_xnn_packed_expect(const pte_xnn_kernels *k, uint32_t kind, size_t n, size_t kdim);
/* Reads a packed header at p (avail bytes); false if it is not an XPW1 header. */
bool pte_xnn_packed_header_read(const uint8_t *p, size_t avail, pte_xnn_packed_info *out);
/* Re-lays out one packed blob (header src_info, already validated) for the layout `dst_info`
 * (same kind, n, k; pte_xnn_packed_expect): exact, no arithmetic on the values. */
void pte_xnn_packed_relayout(const uint8_t *src, const pte_xnn_packed_info *src_info, uint8_t *dst,
                             const pte_xnn_packed_info *dst_info);

/* Adds one profiled node execution to the process-wide per-kind totals. */
void pte_xnn_profile_global_add(unsigned type, uint64_t ns);

/* Init counters (pte_xnnpack_stats). */
enum { PTE_XNN_STAT_PACKS, PTE_XNN_STAT_PACKED_BYTES, PTE_XNN_STAT_PREPARED, PTE_XNN_STAT_PREPARED_COPIES,
       PTE_XNN_STAT_REPACKS, PTE_XNN_STAT_COUNT };
void pte_xnn_stat_add(int which, uint64_t n);

/* Kernel table for an ISA option (AUTO: this CPU's best; never NULL). */
const pte_xnn_kernels *pte_xnnpack_kernels_for_isa(pte_xnn_isa isa);

/* The prepare hook (initialize_backend_data). */
pte_status pte_xnn_initialize_backend_data(pte_backend_data_context *ctx, pte_backend_data_output *out);

/* ---- Compiler pieces ---------------------------------------------------------------------- */
/* Shape inference of node i from its inputs' current shapes; fills output shapes, node scratch.
 * check_decl: compare with the declared output shapes (init). */
pte_status pte_xnn_infer_node(pte_xnn_delegate *d, size_t i, bool check_decl, pte_error_info *err);
/* Runs shape inference for every node and computes the memory plan. */
pte_status pte_xnn_plan(pte_xnn_delegate *d, bool check_decl, pte_error_info *err);
/* Graph rewrites after the nodes are prepared (xnn_fuse.c): Sigmoid + Multiply -> SiLU, output
 * Clamp folded into the producing node's fused clamp. */
void pte_xnn_fuse(pte_xnn_delegate *d);
/* Executes node i. */
pte_status pte_xnn_run_node(pte_xnn_exec *x, size_t i, pte_error_info *err);
/* Prepares node i at init (validates dtypes, packs weights). */
pte_status pte_xnn_prepare_node(pte_xnn_delegate *d, size_t i, pte_error_info *err);

size_t pte_xnn_dtype_size(unsigned dtype); /* bytes per element (0 if unsupported) */
const char *pte_xnn_dtype_name(unsigned dtype);
const char *pte_xnn_node_name(unsigned type);
size_t pte_xnn_value_bytes(const pte_xnn_value *v); /* nbytes for the current shape */

/* fp32 math helpers shared by ops and tests */
static inline float pte_xnn_clampf(float x, float lo, float hi) { return x < lo ? lo : (x > hi ? hi : x); }
/* Quantizes x with scale/zp into [qmin, qmax] (round half to even). */
int32_t pte_xnn_quantize(float x, float inv_scale, int32_t zp, int32_t qmin, int32_t qmax);
/* Dynamic-quantization parameters of a row (XNNPACK qd8 rule). */
pte_xnn_qrow pte_xnn_qd8_params(float rmin, float rmax, float *inv_scale);

/* Heap with alignment (backend memory lives outside the method allocator). */
void *pte_xnn_aligned_alloc(size_t size);
/* Packed weights: like pte_xnn_aligned_alloc; >= 4 MiB: 2 MiB aligned + MADV_HUGEPAGE (free with
 * pte_xnn_aligned_free). */
void *pte_xnn_packed_alloc(size_t size);
/* Whether [p, p + n) lies in one shared or read-only file mapping, and dropping the whole pages
 * inside such a range from this process (read back from the file when touched again). */
bool pte_xnn_file_backed(const void *p, size_t n);
void pte_xnn_release_pages(const void *p, size_t n);
void pte_xnn_aligned_free(void *p);

#endif
