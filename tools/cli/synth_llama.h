/* tools/cli/synth_llama.h — internal to `pte synth llama`: the builder state shared by
 * cmd_synth_llama.c (graph, metadata, command line) and synth_llama_xnn.c (weight generator,
 * 8da4w quantization, XNNPACK linear delegates). */
#ifndef PTE_CLI_SYNTH_LLAMA_H
#define PTE_CLI_SYNTH_LLAMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "progress.h"
#include "pte/backend_xnnpack.h"
#include "pte/writer.h"
#include "synth_gen.h"


typedef struct sl_cfg {
  int32_t dim, layers, heads, kv_heads, vocab, seq, hidden, hd;
  uint64_t seed;
  bool dynamic, cache_init;
  bool fused;    /* llama::sdpa_with_kv_cache instead of update_cache + custom_sdpa */
  int quant;     /* 0 none (fp32 linears), 1 8da4w */
  int32_t group; /* 8da4w group size */
  double eps, theta;
  int32_t bos, eos;
} sl_cfg;

#define SL_HASH_BUF ((size_t)1 << 20)

typedef struct sl {
  sl_cfg c;
  pte_writer *w;
  uint32_t m, chain;
  pte_error_info err;
  pte_cli_gen *gens;
  size_t n_gens, cap_gens;
  pte_xnn_blob *blobs;
  size_t n_blobs, cap_blobs;
  uint8_t *hash_buf;
  float *freqs; /* cos table then sin table, [S, hd/2] each */
  uint64_t named_bytes, weight_params, cache_off;
  float *row;            /* 8da4w: one generated weight row (K floats) */
  uint8_t *qrow;         /* 8da4w: its nibbles (K / 2 bytes) */
  uint16_t *qscales;     /* 8da4w: its scales (K / G) when the caller does not want them */
  struct sl_q4 *q4s;     /* 8da4w weight sources (one per quantized weight) */
  size_t n_q4s;
  char (*keys)[65];      /* named-data keys added (scales returned by the blob builder) */
  size_t n_keys, cap_keys;
  size_t n_named;
  pte_cli_progress *progress;
  uint64_t hashed, to_hash;
  /* operators */
  uint32_t op_emb, op_mul, op_mean, op_adds, op_rsqrt, op_add, op_sub, op_silu, op_sel, op_slice, op_stack, op_view,
      op_symsize, op_item, op_padd, op_upd, op_sdpa;
  /* common values */
  int32_t v_seq, v_pos, v_end, v_none, v_false, v_true, v_zero_d, v_one, v_alpha, v_eps, v_m1;
} sl;

/* 8da4w (8-bit dynamic activations, 4-bit grouped weights), as the exporter's quantizer defines
 * it (torchao's recipe, pte_xnn_quantize_qb4w): each group of G consecutive inputs of an output
 * row gets a symmetric fp32 scale s = max(max |w| / 7.5, FLT_EPSILON), q = clamp(
 * round_half_even(w / s), -8, 7), and the scale is stored rounded to bf16 (nearest even), so the
 * weight the runtime uses is q * bf16(s); stored as the XNNPACK qbint4 filter (nibble
 * q + 8, two per byte, low nibble first, row-major [N, K]) with the [N, K / G] bf16 scales.
 * Activations are quantized per token at run time (a Convert to qdint8 in every delegate). */
typedef struct sl_q4 {
  sl *S;
  pte_cli_gen g;
  uint32_t n, k;
} sl_q4;

/* synth_llama_xnn.c */
pte_status sl_zero_read(void *ctx, uint64_t offset, void *dst, size_t size, pte_error_info *err);
/* One delegate: y_j = x W_j^T for the n weights (tensor ids tids[j], W_j [outs[j], in]); x is
 * [1, T, in] (rank 3) or [1, in] (rank 2). outputs[j] receives the program values. */
pte_status sl_xlinears(sl *S, int32_t x, uint32_t rank, uint32_t in, size_t n, const uint32_t *tids,
                       const uint32_t *outs, int32_t *outputs);

/* cmd_synth_llama.c */
pte_cli_gen *sl_new_gen(sl *S, uint32_t tid, float scale, float bias);
pte_status sl_act(sl *S, const int32_t *sizes, size_t dim, bool dyn, int32_t *v);

#endif
