/* pte synth llama — a llama-architecture language model laid out the way upstream's LLM exporter
 * lays one out (export_llama with --use_kv_cache --use_sdpa_with_kv_cache, XNNPACK linears).
 *
 * Method "forward"(tokens Long[1, T], input_pos Long[1]) -> logits Float[1, vocab] (the last
 * position's logits, as upstream's default export without full logits):
 *   seq   = aten::sym_size.int(tokens, 1)                 (T; tokens is DYNAMIC_BOUND up to --seq
 *   pos   = aten::_local_scalar_dense(input_pos)           unless --static, then T = 1)
 *   end   = executorch_prim::add.Scalar(pos, seq)
 *   x     = aten::embedding(tok_embeddings [V, D], tokens)                        [1, T, D]
 *   cos, sin = aten::slice_copy(freqs_cos|sin [S, hd/2], 0, pos, end) viewed [1, T, 1, hd/2]
 *   per layer:
 *     h = RMSNorm(x) = x * rsqrt(mean(x*x, -1, keepdim) + eps) * attention_norm
 *     q, k, v = ONE XNNPACK delegate (three FullyConnected nodes, no bias)
 *     q, k viewed [1, T, heads, hd/2, 2]: (re, im) pairs rotated by (cos, sin) (select_copy,
 *       mul/sub/add, stack, view back to [1, T, heads, hd])
 *     llama::update_cache.out(k, k_cache, pos), llama::update_cache.out(v, v_cache, pos)
 *       (--attention sdpa_with_kv_cache: one llama::sdpa_with_kv_cache.out(q, k, v, k_cache,
 *       v_cache, pos, seq, None, 0.0, True, None) instead of the three calls)
 *       (k_cache / v_cache [1, S, kv_heads, hd]: mutable buffers, memory planned for the whole
 *       method in arena 2; --cache-init: in arena 1 with a zero initial value in the mutable segment)
 *     a = llama::custom_sdpa.out(q, k_cache, v_cache, pos, None, 0.0, is_causal=True, None)
 *     x = x + wo(a)                           (wo: one delegate)
 *     h = RMSNorm(x) * ffn_norm; x = x + w2(silu(w1 h) * w3 h)   (w1+w3 one delegate, w2 one)
 *   logits = output(RMSNorm(x)[:, -1, :])     (select_copy, then one delegate)
 * Metadata methods (no inputs, constant outputs), named as upstream's exporter names them:
 * get_max_seq_len, get_max_context_len, get_vocab_size, get_n_layers, get_bos_id, get_eos_ids,
 * use_kv_cache, use_sdpa_with_kv_cache, enable_dynamic_shape.
 *
 * Weights (deterministic, streamed; tests/support/llama_ref.c regenerates them independently):
 * tensor t (numbered below) element i (row-major in the PyTorch layout, linears [out, in]) is
 *   bias + scale * g(i, seed32(seed, t)),  g = two xorshift32 rounds mapped to [-1, 1) exactly as
 * `pte synth` (docs/writer.md), scale = 1/sqrt(in) for linears, 1 for the embedding, 0.25 with
 * bias 1 for norm weights. Numbering: 0 tok_embeddings [V, D]; layer l uses 1 + 9l + j with
 * j = 0 attention_norm [D], 1 wq [H hd, D], 2 wk [K hd, D], 3 wv [K hd, D], 4 wo [D, H hd],
 * 5 ffn_norm [D], 6 w1 [F, D], 7 w3 [F, D], 8 w2 [D, F]; then 1 + 9L norm [D], 2 + 9L output [V, D].
 * RoPE tables: freqs[p][j] = p * theta^(-2j/hd) (theta 10000), stored as float cos / sin. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "jsonw.h"
#include "progress.h"
#include "synth_llama.h"
#include "pte/backend_xnnpack.h"
#include "pte/data_writer.h"
#include "pte/tensor.h"
#include "pte/writer.h"

int pte_cli_synth_llama(int argc, char **argv);

/* ------------------------------------------------------------------ builder state */
/* sl_cfg, sl: synth_llama.h */

pte_cli_gen *sl_new_gen(sl *S, uint32_t tid, float scale, float bias) {
  if (S->n_gens == S->cap_gens) return NULL;
  pte_cli_gen *g = &S->gens[S->n_gens++];
  g->seed32 = pte_cli_gen_seed32(S->c.seed, tid);
  g->scale = scale;
  g->bias = bias;
  return g;
}

static pte_status sl_tensor(sl *S, int dtype, const int32_t *sizes, size_t dim, bool dyn, int32_t *v) {
  pte_wr_tensor t;
  memset(&t, 0, sizeof t);
  t.dtype = dtype;
  t.sizes = sizes;
  t.dim = dim;
  t.plan = PTE_WR_PLAN_AUTO;
  t.dynamism = dyn && S->c.dynamic ? PTE_SHAPE_DYNAMIC_BOUND : PTE_SHAPE_STATIC;
  return pte_writer_add_tensor(S->w, S->m, &t, v, &S->err);
}

/* An fp32 activation whose dim 1 is the sequence (dyn) or not. */
pte_status sl_act(sl *S, const int32_t *sizes, size_t dim, bool dyn, int32_t *v) {
  return sl_tensor(S, PTE_DTYPE_FLOAT, sizes, dim, dyn, v);
}

static pte_status sl_int(sl *S, int64_t x, int32_t *v) { return pte_writer_add_int(S->w, S->m, x, v, &S->err); }

static pte_status sl_call(sl *S, uint32_t op, const int32_t *args, size_t n) {
  return pte_writer_add_kernel_call(S->w, S->m, S->chain, op, args, n, NULL, &S->err);
}

/* A generated fp32 constant of the program (portable kernels read it). */
static pte_status sl_const(sl *S, const int32_t *sizes, size_t dim, uint32_t tid, float scale, float bias, int32_t *v) {
  pte_cli_gen *g = sl_new_gen(S, tid, scale, bias);
  if (!g) return pte_error_set(&S->err, PTE_ERR_INTERNAL, "llama: too many generated tensors");
  uint64_t numel = 1;
  for (size_t i = 0; i < dim; i++) numel *= (uint64_t)sizes[i];
  S->weight_params += numel;
  pte_source src = pte_source_callback(pte_cli_gen_read, g, numel * 4);
  pte_wr_tensor t;
  memset(&t, 0, sizeof t);
  t.dtype = PTE_DTYPE_FLOAT;
  t.sizes = sizes;
  t.dim = dim;
  return pte_writer_add_constant_tensor(S->w, S->m, &t, &src, v, &S->err);
}

/* view_copy(x, [sizes...]) where a size of -2 stands for the sequence length value. */
static pte_status sl_view(sl *S, int32_t x, const int32_t *sizes, size_t dim, int32_t *y) {
  int64_t items[8];
  int32_t osz[8];
  bool dyn = false;
  for (size_t i = 0; i < dim; i++) {
    int32_t v = -1;
    if (sizes[i] == -2) {
      items[i] = S->v_seq;
      osz[i] = S->c.dynamic ? S->c.seq : 1;
      dyn = true;
      continue;
    }
    pte_status s = sl_int(S, sizes[i], &v);
    if (s != PTE_OK) return s;
    items[i] = v;
    osz[i] = sizes[i];
  }
  int32_t l = -1, o = -1;
  pte_status s = pte_writer_add_int_list(S->w, S->m, items, dim, &l, &S->err);
  if (s == PTE_OK) s = sl_act(S, osz, dim, dyn, &o);
  int32_t args[4] = {x, l, o, o};
  if (s == PTE_OK) s = sl_call(S, S->op_view, args, 4);
  *y = o;
  return s;
}

static pte_status sl_binary(sl *S, uint32_t op, int32_t a, int32_t b, const int32_t *osz, size_t dim, bool dyn,
                            int32_t *y) {
  int32_t o = -1;
  pte_status s = sl_act(S, osz, dim, dyn, &o);
  if (s != PTE_OK) return s;
  if (op == S->op_mul) {
    int32_t args[4] = {a, b, o, o};
    s = sl_call(S, op, args, 4);
  } else {
    int32_t args[5] = {a, b, S->v_alpha, o, o};
    s = sl_call(S, op, args, 5);
  }
  *y = o;
  return s;
}

/* RMSNorm over the last dim of x [1, T, D] (or [1, D] when !dyn_seq... always rank 3 here). */
static pte_status sl_rmsnorm(sl *S, int32_t x, uint32_t tid, int32_t *y) {
  const int32_t TB = S->c.dynamic ? S->c.seq : 1, D = S->c.dim;
  int32_t full[3] = {1, TB, D}, red[3] = {1, TB, 1};
  int32_t sq = -1, ms = -1, ad = -1, r = -1, xn = -1, w = -1, o = -1, dl = -1;
  pte_status s = sl_binary(S, S->op_mul, x, x, full, 3, true, &sq);
  int64_t m1 = -1;
  if (s == PTE_OK) s = pte_writer_add_int_list_literal(S->w, S->m, &m1, 1, &dl, &S->err);
  if (s == PTE_OK) s = sl_act(S, red, 3, true, &ms);
  int32_t margs[6] = {sq, dl, S->v_true, S->v_none, ms, ms};
  if (s == PTE_OK) s = sl_call(S, S->op_mean, margs, 6);
  if (s == PTE_OK) s = sl_act(S, red, 3, true, &ad);
  int32_t aargs[5] = {ms, S->v_eps, S->v_alpha, ad, ad};
  if (s == PTE_OK) s = sl_call(S, S->op_adds, aargs, 5);
  if (s == PTE_OK) s = sl_act(S, red, 3, true, &r);
  int32_t rargs[3] = {ad, r, r};
  if (s == PTE_OK) s = sl_call(S, S->op_rsqrt, rargs, 3);
  if (s == PTE_OK) s = sl_binary(S, S->op_mul, x, r, full, 3, true, &xn);
  int32_t wsz[1] = {D};
  if (s == PTE_OK) s = sl_const(S, wsz, 1, tid, 0.25f, 1.0f, &w);
  if (s == PTE_OK) s = sl_binary(S, S->op_mul, xn, w, full, 3, true, &o);
  *y = o;
  return s;
}

/* ------------------------------------------------------------------ attention pieces */
/* Rotary embedding of x [1, T, nh, hd] with cos/sin [1, T, 1, hd/2] (pairs (2j, 2j+1)). */
static pte_status sl_rope(sl *S, int32_t x, int32_t nh, int32_t cosv, int32_t sinv, int32_t *y) {
  const int32_t TB = S->c.dynamic ? S->c.seq : 1, hd = S->c.hd;
  int32_t pairs[5] = {1, -2, nh, hd / 2, 2}, hsz[4] = {1, TB, nh, hd / 2}, psz[5] = {1, TB, nh, hd / 2, 2};
  int32_t xv = -1, re = -1, im = -1, a = -1, b = -1, c = -1, d = -1, ore = -1, oim = -1, l = -1, st = -1, four = -1, zero = -1, one = -1;
  pte_status s = sl_view(S, x, pairs, 5, &xv);
  if (s == PTE_OK) s = sl_int(S, 4, &four);
  if (s == PTE_OK) s = sl_int(S, 0, &zero);
  if (s == PTE_OK) s = sl_int(S, 1, &one);
  if (s == PTE_OK) s = sl_act(S, hsz, 4, true, &re);
  int32_t sa[5] = {xv, four, zero, re, re};
  if (s == PTE_OK) s = sl_call(S, S->op_sel, sa, 5);
  if (s == PTE_OK) s = sl_act(S, hsz, 4, true, &im);
  int32_t sb[5] = {xv, four, one, im, im};
  if (s == PTE_OK) s = sl_call(S, S->op_sel, sb, 5);
  if (s == PTE_OK) s = sl_binary(S, S->op_mul, re, cosv, hsz, 4, true, &a);
  if (s == PTE_OK) s = sl_binary(S, S->op_mul, im, sinv, hsz, 4, true, &b);
  if (s == PTE_OK) s = sl_binary(S, S->op_sub, a, b, hsz, 4, true, &ore);
  if (s == PTE_OK) s = sl_binary(S, S->op_mul, re, sinv, hsz, 4, true, &c);
  if (s == PTE_OK) s = sl_binary(S, S->op_mul, im, cosv, hsz, 4, true, &d);
  if (s == PTE_OK) s = sl_binary(S, S->op_add, c, d, hsz, 4, true, &oim);
  int32_t items[2] = {ore, oim};
  if (s == PTE_OK) s = pte_writer_add_tensor_list(S->w, S->m, items, 2, &l, &S->err);
  if (s == PTE_OK) s = sl_act(S, psz, 5, true, &st);
  int32_t ka[4] = {l, four, st, st};
  if (s == PTE_OK) s = sl_call(S, S->op_stack, ka, 4);
  int32_t back[4] = {1, -2, nh, hd};
  if (s == PTE_OK) s = sl_view(S, st, back, 4, y);
  return s;
}

/* A KV cache [1, S, K, hd], alive for the whole method (it persists across executes): by default
 * at an explicit offset of its own arena (mem_id 2), no initial value (attention reads only the
 * positions already written; the module's planned buffers start zeroed anyway); --cache-init:
 * auto-planned in arena 1 with a zero initial value in the mutable segment. */
static pte_status sl_cache(sl *S, int32_t *v) {
  int32_t sz[4] = {1, S->c.seq, S->c.kv_heads, S->c.hd};
  uint64_t nbytes = (uint64_t)S->c.seq * (uint64_t)S->c.kv_heads * (uint64_t)S->c.hd * 4;
  pte_wr_tensor t;
  memset(&t, 0, sizeof t);
  t.dtype = PTE_DTYPE_FLOAT;
  t.sizes = sz;
  t.dim = 4;
  if (S->c.cache_init) {
    pte_source src = pte_source_callback(sl_zero_read, NULL, nbytes);
    uint32_t mi;
    pte_status s = pte_writer_add_mutable(S->w, &src, &mi, &S->err);
    if (s != PTE_OK) return s;
    t.plan = PTE_WR_PLAN_AUTO;
    t.mutable_init = mi;
  } else {
    t.plan = PTE_WR_PLAN_EXPLICIT;
    t.mem_id = 2;
    t.mem_offset = S->cache_off;
    S->cache_off += (nbytes + 63) / 64 * 64;
  }
  return pte_writer_add_tensor(S->w, S->m, &t, v, &S->err);
}

static pte_status sl_layer(sl *S, uint32_t l, int32_t x, int32_t cosv, int32_t sinv, int32_t *xo) {
  const sl_cfg *c = &S->c;
  const int32_t TB = c->dynamic ? c->seq : 1, D = c->dim;
  const uint32_t base = 1 + 9 * l;
  int32_t h = -1, qkv[3], q4 = -1, k4 = -1, v4 = -1, qr = -1, kr = -1, kc = -1, vc = -1, du1 = -1, du2 = -1, att = -1, a3 = -1, o = -1, x1 = -1;
  pte_status s = sl_rmsnorm(S, x, base + 0, &h);
  uint32_t tids[3] = {base + 1, base + 2, base + 3};
  uint32_t outs[3] = {(uint32_t)(c->heads * c->hd), (uint32_t)(c->kv_heads * c->hd), (uint32_t)(c->kv_heads * c->hd)};
  if (s == PTE_OK) s = sl_xlinears(S, h, 3, (uint32_t)D, 3, tids, outs, qkv);
  int32_t qs[4] = {1, -2, c->heads, c->hd}, ks[4] = {1, -2, c->kv_heads, c->hd};
  if (s == PTE_OK) s = sl_view(S, qkv[0], qs, 4, &q4);
  if (s == PTE_OK) s = sl_view(S, qkv[1], ks, 4, &k4);
  if (s == PTE_OK) s = sl_view(S, qkv[2], ks, 4, &v4);
  if (s == PTE_OK) s = sl_rope(S, q4, c->heads, cosv, sinv, &qr);
  if (s == PTE_OK) s = sl_rope(S, k4, c->kv_heads, cosv, sinv, &kr);
  if (s == PTE_OK) s = sl_cache(S, &kc);
  if (s == PTE_OK) s = sl_cache(S, &vc);
  int32_t asz[4] = {1, TB, c->heads, c->hd};
  if (c->fused) { /* sdpa_with_kv_cache(q, k, v, k_cache, v_cache, start_pos, seq_len, None, 0.0, True, None) */
    if (s == PTE_OK) s = sl_act(S, asz, 4, true, &att);
    int32_t fa[13] = {qr, kr, v4, kc, vc, S->v_pos, S->v_seq, S->v_none, S->v_zero_d, S->v_true, S->v_none, att, att};
    if (s == PTE_OK) s = sl_call(S, S->op_sdpa, fa, 13);
  } else {
    int32_t one[1] = {1};
    if (s == PTE_OK) s = sl_act(S, one, 1, false, &du1);
    if (s == PTE_OK) s = sl_act(S, one, 1, false, &du2);
    int32_t u1[5] = {kr, kc, S->v_pos, du1, du1}, u2[5] = {v4, vc, S->v_pos, du2, du2};
    if (s == PTE_OK) s = sl_call(S, S->op_upd, u1, 5);
    if (s == PTE_OK) s = sl_call(S, S->op_upd, u2, 5);
    if (s == PTE_OK) s = sl_act(S, asz, 4, true, &att);
    int32_t sa[10] = {qr, kc, vc, S->v_pos, S->v_none, S->v_zero_d, S->v_true, S->v_none, att, att};
    if (s == PTE_OK) s = sl_call(S, S->op_sdpa, sa, 10);
  }
  int32_t fl[3] = {1, -2, c->heads * c->hd};
  if (s == PTE_OK) s = sl_view(S, att, fl, 3, &a3);
  uint32_t to = base + 4, od = (uint32_t)D;
  if (s == PTE_OK) s = sl_xlinears(S, a3, 3, (uint32_t)(c->heads * c->hd), 1, &to, &od, &o);
  int32_t full[3] = {1, TB, D};
  if (s == PTE_OK) s = sl_binary(S, S->op_add, x, o, full, 3, true, &x1);
  /* feed-forward */
  int32_t h2 = -1, gu[2], sg = -1, m = -1, d = -1, x2 = -1;
  if (s == PTE_OK) s = sl_rmsnorm(S, x1, base + 5, &h2);
  uint32_t ftids[2] = {base + 6, base + 7}, fouts[2] = {(uint32_t)c->hidden, (uint32_t)c->hidden};
  if (s == PTE_OK) s = sl_xlinears(S, h2, 3, (uint32_t)D, 2, ftids, fouts, gu);
  int32_t hsz[3] = {1, TB, c->hidden};
  if (s == PTE_OK) s = sl_act(S, hsz, 3, true, &sg);
  int32_t si[3] = {gu[0], sg, sg};
  if (s == PTE_OK) s = sl_call(S, S->op_silu, si, 3);
  if (s == PTE_OK) s = sl_binary(S, S->op_mul, sg, gu[1], hsz, 3, true, &m);
  uint32_t t2 = base + 8;
  if (s == PTE_OK) s = sl_xlinears(S, m, 3, (uint32_t)c->hidden, 1, &t2, &od, &d);
  if (s == PTE_OK) s = sl_binary(S, S->op_add, x1, d, full, 3, true, &x2);
  *xo = x2;
  return s;
}

static pte_status sl_op(sl *S, const char *name, const char *overload, uint32_t *op) {
  return pte_writer_add_operator(S->w, S->m, name, overload, op, &S->err);
}

static pte_status sl_forward(sl *S) {
  const sl_cfg *c = &S->c;
  const int32_t TB = c->dynamic ? c->seq : 1, D = c->dim, half = c->hd / 2;
  pte_status s = PTE_OK;
  struct {
    const char *n, *o;
    uint32_t *op;
  } ops[] = {
      {"aten::embedding", "out", &S->op_emb},       {"aten::mul", "out", &S->op_mul},
      {"aten::mean", "out", &S->op_mean},           {"aten::add", "Scalar_out", &S->op_adds},
      {"aten::rsqrt", "out", &S->op_rsqrt},         {"aten::add", "out", &S->op_add},
      {"aten::sub", "out", &S->op_sub},             {"aten::silu", "out", &S->op_silu},
      {"aten::select_copy", "int_out", &S->op_sel}, {"aten::slice_copy", "Tensor_out", &S->op_slice},
      {"aten::stack", "out", &S->op_stack},         {"aten::view_copy", "out", &S->op_view},
      {"aten::sym_size", "int", &S->op_symsize},    {"aten::_local_scalar_dense", "", &S->op_item},
      {"executorch_prim::add", "Scalar", &S->op_padd},
  };
  for (size_t i = 0; i < sizeof ops / sizeof ops[0] && s == PTE_OK; i++) s = sl_op(S, ops[i].n, ops[i].o, ops[i].op);
  if (c->fused) {
    if (s == PTE_OK) s = sl_op(S, "llama::sdpa_with_kv_cache", "out", &S->op_sdpa);
  } else {
    if (s == PTE_OK) s = sl_op(S, "llama::update_cache", "out", &S->op_upd);
    if (s == PTE_OK) s = sl_op(S, "llama::custom_sdpa", "out", &S->op_sdpa);
  }
  /* inputs */
  int32_t tsz[2] = {1, TB}, psz[1] = {1}, tokens = -1, ipos = -1;
  if (s == PTE_OK) s = sl_tensor(S, PTE_DTYPE_LONG, tsz, 2, true, &tokens);
  if (s == PTE_OK) s = sl_tensor(S, PTE_DTYPE_LONG, psz, 1, false, &ipos);
  /* common scalars */
  if (s == PTE_OK) s = pte_writer_add_null(S->w, S->m, &S->v_none, &S->err);
  if (s == PTE_OK) s = pte_writer_add_bool(S->w, S->m, false, &S->v_false, &S->err);
  if (s == PTE_OK) s = pte_writer_add_bool(S->w, S->m, true, &S->v_true, &S->err);
  if (s == PTE_OK) s = pte_writer_add_double(S->w, S->m, 0.0, &S->v_zero_d, &S->err);
  if (s == PTE_OK) s = pte_writer_add_double(S->w, S->m, c->eps, &S->v_eps, &S->err);
  if (s == PTE_OK) s = sl_int(S, 1, &S->v_alpha);
  if (s == PTE_OK) s = sl_int(S, 1, &S->v_one);
  if (s == PTE_OK) s = sl_int(S, -1, &S->v_m1);
  /* seq, pos, end (symbolic ints, computed each execution) */
  int32_t dim1 = -1;
  if (s == PTE_OK) s = sl_int(S, 1, &dim1);
  if (c->dynamic) {
    if (s == PTE_OK) s = sl_int(S, 0, &S->v_seq); /* placeholder Int the sym_size call writes */
    int32_t a[3] = {tokens, dim1, S->v_seq};
    if (s == PTE_OK) s = sl_call(S, S->op_symsize, a, 3);
  } else if (s == PTE_OK) {
    s = sl_int(S, 1, &S->v_seq);
  }
  if (s == PTE_OK) s = sl_int(S, 0, &S->v_pos);
  int32_t ia[2] = {ipos, S->v_pos};
  if (s == PTE_OK) s = sl_call(S, S->op_item, ia, 2);
  if (s == PTE_OK) s = sl_int(S, 0, &S->v_end);
  int32_t pa[3] = {S->v_pos, S->v_seq, S->v_end};
  if (s == PTE_OK) s = sl_call(S, S->op_padd, pa, 3);
  /* embedding */
  int32_t esz[2] = {c->vocab, D}, emb = -1, x = -1, pad = -1;
  int32_t xsz[3] = {1, TB, D};
  if (s == PTE_OK) s = sl_const(S, esz, 2, 0, 1.0f, 0.0f, &emb);
  if (s == PTE_OK) s = sl_int(S, -1, &pad);
  if (s == PTE_OK) s = sl_act(S, xsz, 3, true, &x);
  int32_t ea[7] = {emb, tokens, pad, S->v_false, S->v_false, x, x};
  if (s == PTE_OK) s = sl_call(S, S->op_emb, ea, 7);
  /* rope tables */
  int32_t fsz[2] = {c->seq, half}, fc = -1, fs = -1;
  for (int k = 0; k < 2 && s == PTE_OK; k++) {
    pte_source src = pte_source_memory(S->freqs + (size_t)k * (size_t)c->seq * (size_t)half,
                                       (uint64_t)c->seq * (uint64_t)half * 4);
    pte_wr_tensor t;
    memset(&t, 0, sizeof t);
    t.dtype = PTE_DTYPE_FLOAT;
    t.sizes = fsz;
    t.dim = 2;
    s = pte_writer_add_constant_tensor(S->w, S->m, &t, &src, k ? &fs : &fc, &S->err);
  }
  int32_t cs[2] = {-1, -1}, zero = -1;
  int32_t ssz[2] = {TB, half};
  if (s == PTE_OK) s = sl_int(S, 0, &zero);
  for (int k = 0; k < 2 && s == PTE_OK; k++) {
    int32_t sl_out = -1;
    s = sl_tensor(S, PTE_DTYPE_FLOAT, ssz, 2, true, &sl_out);
    int32_t a[7] = {k ? fs : fc, zero, S->v_pos, S->v_end, S->v_one, sl_out, sl_out};
    if (s == PTE_OK) s = sl_call(S, S->op_slice, a, 7);
    int32_t bsz[4] = {1, -2, 1, half};
    /* slice_copy's output has the sequence in dim 0; sl_view marks dim 1 dynamic as wanted */
    if (s == PTE_OK) s = sl_view(S, sl_out, bsz, 4, &cs[k]);
  }
  for (uint32_t l = 0; l < (uint32_t)c->layers && s == PTE_OK; l++) s = sl_layer(S, l, x, cs[0], cs[1], &x);
  /* final norm, last position, output projection */
  int32_t n = -1, last = -1, logits = -1;
  if (s == PTE_OK) s = sl_rmsnorm(S, x, 1 + 9 * (uint32_t)c->layers, &n);
  int32_t lsz[2] = {1, D};
  if (s == PTE_OK) s = sl_act(S, lsz, 2, false, &last);
  int32_t la[5] = {n, dim1, S->v_m1, last, last};
  if (s == PTE_OK) s = sl_call(S, S->op_sel, la, 5);
  uint32_t ot = 2 + 9 * (uint32_t)c->layers, ov = (uint32_t)c->vocab;
  if (s == PTE_OK) s = sl_xlinears(S, last, 2, (uint32_t)D, 1, &ot, &ov, &logits);
  int32_t in[2] = {tokens, ipos};
  if (s == PTE_OK) s = pte_writer_set_inputs(S->w, S->m, in, 2, &S->err);
  if (s == PTE_OK) s = pte_writer_set_outputs(S->w, S->m, &logits, 1, &S->err);
  return s;
}

/* A metadata method: no inputs, constant outputs (Int or Bool). */
static pte_status sl_meta(sl *S, const char *name, const int64_t *ints, size_t n, bool is_bool) {
  uint32_t m;
  pte_status s = pte_writer_add_method(S->w, name, &m, &S->err);
  int32_t vals[8];
  for (size_t i = 0; i < n && s == PTE_OK; i++)
    s = is_bool ? pte_writer_add_bool(S->w, m, ints[i] != 0, &vals[i], &S->err)
                : pte_writer_add_int(S->w, m, ints[i], &vals[i], &S->err);
  if (s == PTE_OK) s = pte_writer_set_outputs(S->w, m, vals, n, &S->err);
  return s;
}

static pte_status sl_metadata(sl *S) {
  const sl_cfg *c = &S->c;
  int64_t v;
  pte_status s;
  v = c->seq;
  s = sl_meta(S, "get_max_seq_len", &v, 1, false);
  if (s == PTE_OK) s = sl_meta(S, "get_max_context_len", &v, 1, false);
  v = c->vocab;
  if (s == PTE_OK) s = sl_meta(S, "get_vocab_size", &v, 1, false);
  v = c->layers;
  if (s == PTE_OK) s = sl_meta(S, "get_n_layers", &v, 1, false);
  v = c->bos;
  if (s == PTE_OK) s = sl_meta(S, "get_bos_id", &v, 1, false);
  v = c->eos;
  if (s == PTE_OK) s = sl_meta(S, "get_eos_ids", &v, 1, false);
  v = 1;
  if (s == PTE_OK) s = sl_meta(S, "use_kv_cache", &v, 1, true);
  if (s == PTE_OK) s = sl_meta(S, "use_sdpa_with_kv_cache", &v, 1, true);
  v = c->dynamic;
  if (s == PTE_OK) s = sl_meta(S, "enable_dynamic_shape", &v, 1, true);
  return s;
}

/* ------------------------------------------------------------------ tokenizer.bin */
/* llama2.c's tokenizer.bin: int32 max_token_length, then per id: float score, int32 len, bytes.
 * Vocabulary: 0 <unk>, 1 <s>, 2 </s>, 3..258 byte pieces <0xNN>, then the printable ASCII
 * characters (space written as itself), then two-character pieces of lowercase letters and space
 * (each a merge of two single-character pieces) until the vocabulary is full. */
static int sl_write_tokenizer(const char *path, int32_t vocab) {
  FILE *f = fopen(path, "wb");
  if (!f) {
    fprintf(stderr, "pte synth llama: cannot create %s: %s\n", path, strerror(errno));
    return PTE_EXIT_FAIL;
  }
  int32_t maxlen = 7;
  fwrite(&maxlen, 4, 1, f);
  static const char alpha[] = " etaoinshrdlcumwfgypbvkjxqz";
  int32_t id = 0, pair = 0;
  for (; id < vocab; id++) {
    char buf[16];
    float score = 0.0f;
    if (id == 0) snprintf(buf, sizeof buf, "<unk>");
    else if (id == 1) snprintf(buf, sizeof buf, "<s>");
    else if (id == 2) snprintf(buf, sizeof buf, "</s>");
    else if (id < 259) snprintf(buf, sizeof buf, "<0x%02X>", id - 3);
    else if (id < 259 + 95) {
      buf[0] = (char)(32 + id - 259), buf[1] = 0;
      score = -(float)(id - 259);
    } else {
      int a = pair / 27, b = pair % 27;
      if (a >= 27) break;
      buf[0] = alpha[a], buf[1] = alpha[b], buf[2] = 0;
      score = 10.0f - (float)pair * 0.01f;
      pair++;
    }
    int32_t len = (int32_t)strlen(buf);
    fwrite(&score, 4, 1, f);
    fwrite(&len, 4, 1, f);
    fwrite(buf, 1, (size_t)len, f);
  }
  for (; id < vocab; id++) { /* beyond the pieces: unused ids */
    char buf[16];
    snprintf(buf, sizeof buf, "<x%d>", (int)id);
    float score = -1e6f;
    int32_t len = (int32_t)strlen(buf);
    fwrite(&score, 4, 1, f);
    fwrite(&len, 4, 1, f);
    fwrite(buf, 1, (size_t)len, f);
  }
  if (fclose(f) != 0) {
    fprintf(stderr, "pte synth llama: cannot write %s\n", path);
    return PTE_EXIT_FAIL;
  }
  return PTE_EXIT_OK;
}

/* ------------------------------------------------------------------ command line */
static void sl_help(FILE *f) {
  fprintf(f,
          "usage: pte synth llama -o OUT --dim D --layers L --heads H --kv-heads K --vocab V --seq S\n"
          "                       [--hidden F] [--quant none] [--static] [--seed N] [--tokenizer-out FILE]\n"
          "\n"
          "A llama-architecture language model laid out as upstream's exporter lays one out: token\n"
          "embedding, RMSNorm, rotary embeddings from input_pos, attention through llama::update_cache\n"
          "and llama::custom_sdpa with the KV cache in mutable buffers, SwiGLU feed-forward, final norm,\n"
          "output projection; every linear in an XNNPACK delegate. forward(tokens[1, T], input_pos[1])\n"
          "returns the last position's logits [1, V]; T is dynamic up to S (--static: T = 1).\n"
          "Metadata methods: get_max_seq_len, get_max_context_len, get_vocab_size, get_n_layers,\n"
          "get_bos_id (1), get_eos_ids (2), use_kv_cache, use_sdpa_with_kv_cache, enable_dynamic_shape.\n"
          "\n"
          "options:\n"
          "  --dim D / --layers L / --heads H / --kv-heads K / --vocab V / --seq S   the shape (required;\n"
          "                             D divisible by H, head dim even, H divisible by K)\n"
          "  --hidden F                 feed-forward width (default: upstream's rule from D)\n"
          "  --quant none|8da4w         fp32 linears (default), or 8-bit dynamic activations x 4-bit\n"
          "                             grouped weights (qdint8 Convert + qbint4 FullyConnected, bf16 scales)\n"
          "  --group-size G             8da4w group size (default 128, or 32 when some linear has fewer\n"
          "                             than 128 inputs); a multiple of 32 dividing every linear's input\n"
          "  --static                   fixed T = 1 (token-by-token prefill)\n"
          "  --attention custom_sdpa|sdpa_with_kv_cache   update_cache + custom_sdpa (default, current\n"
          "                             exports) or the fused llama::sdpa_with_kv_cache (older exports)\n"
          "  --cache-init               store the KV caches' zero initial value in the mutable segment\n"
          "                             (default: caches in their own planned arena, no initial data)\n"
          "  --seed N                   weight generator seed (default 0)\n"
          "  --tokenizer-out FILE       also write a matching llama2.c tokenizer.bin (V >= 259)\n"
          "  --no-fsync, -q, --json, -h as for the other synth models\n");
}

static bool sl_parse_i32(const char *s, int32_t lo, int32_t hi, int32_t *out) {
  if (!s || !*s) return false;
  char *end = NULL;
  errno = 0;
  long v = strtol(s, &end, 10);
  if (errno || *end || v < lo || v > hi) return false;
  *out = (int32_t)v;
  return true;
}

static double sl_secs(const struct timespec *a) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (double)(now.tv_sec - a->tv_sec) + (double)(now.tv_nsec - a->tv_nsec) / 1e9;
}

int pte_cli_synth_llama(int argc, char **argv) {
  sl_cfg c;
  memset(&c, 0, sizeof c);
  c.dynamic = true;
  c.eps = 1e-5;
  c.theta = 10000.0;
  c.bos = 1;
  c.eos = 2;
  const char *out = NULL, *tok_out = NULL;
  bool json = false, quiet = false;
  pte_file_writer_options fo;
  pte_file_writer_options_init(&fo);
  for (int i = 2; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    bool ok = true;
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      sl_help(stdout);
      return PTE_EXIT_OK;
    } else if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
      out = v, i++, ok = v != NULL;
    } else if (!strcmp(a, "--dim")) {
      ok = sl_parse_i32(v, 2, 1 << 16, &c.dim), i++;
    } else if (!strcmp(a, "--layers")) {
      ok = sl_parse_i32(v, 1, 1024, &c.layers), i++;
    } else if (!strcmp(a, "--heads")) {
      ok = sl_parse_i32(v, 1, 1024, &c.heads), i++;
    } else if (!strcmp(a, "--kv-heads")) {
      ok = sl_parse_i32(v, 1, 1024, &c.kv_heads), i++;
    } else if (!strcmp(a, "--vocab")) {
      ok = sl_parse_i32(v, 3, 1 << 20, &c.vocab), i++;
    } else if (!strcmp(a, "--seq")) {
      ok = sl_parse_i32(v, 1, 1 << 16, &c.seq), i++;
    } else if (!strcmp(a, "--hidden")) {
      ok = sl_parse_i32(v, 1, 1 << 20, &c.hidden), i++;
    } else if (!strcmp(a, "--quant")) {
      ok = v && (!strcmp(v, "none") || !strcmp(v, "8da4w")), i++;
      if (ok) c.quant = !strcmp(v, "8da4w");
    } else if (!strcmp(a, "--group-size")) {
      ok = sl_parse_i32(v, 32, 1 << 16, &c.group) && c.group % 32 == 0, i++; /* XNNPACK qbint4 blocks */
    } else if (!strcmp(a, "--attention")) {
      ok = v && (!strcmp(v, "custom_sdpa") || !strcmp(v, "sdpa_with_kv_cache")), i++;
      if (ok) c.fused = !strcmp(v, "sdpa_with_kv_cache");
    } else if (!strcmp(a, "--cache-init")) {
      c.cache_init = true;
    } else if (!strcmp(a, "--static")) {
      c.dynamic = false;
    } else if (!strcmp(a, "--seed")) {
      char *end = NULL;
      ok = v && *v;
      if (ok) c.seed = strtoull(v, &end, 10), ok = *end == 0;
      i++;
    } else if (!strcmp(a, "--tokenizer-out")) {
      tok_out = v, i++, ok = v != NULL;
    } else if (!strcmp(a, "--no-fsync")) {
      fo.no_fsync = true;
    } else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
      quiet = true;
    } else if (!strcmp(a, "--json")) {
      json = true;
    } else {
      fprintf(stderr, "pte synth llama: unknown option '%s'\n", a);
      return PTE_EXIT_USAGE;
    }
    if (!ok) {
      fprintf(stderr, "pte synth llama: bad or missing value for %s\n", a);
      return PTE_EXIT_USAGE;
    }
  }
  if (!out) {
    fprintf(stderr, "pte synth llama: no output file (-o OUT)\n");
    return PTE_EXIT_USAGE;
  }
  if (!c.dim || !c.layers || !c.heads || !c.kv_heads || !c.vocab || !c.seq) {
    fprintf(stderr, "pte synth llama: --dim, --layers, --heads, --kv-heads, --vocab and --seq are required\n");
    return PTE_EXIT_USAGE;
  }
  if (c.dim % c.heads || (c.dim / c.heads) % 2 || c.heads % c.kv_heads) {
    fprintf(stderr, "pte synth llama: dim %d must split into %d heads of an even size, heads divisible by kv-heads %d\n",
            (int)c.dim, (int)c.heads, (int)c.kv_heads);
    return PTE_EXIT_USAGE;
  }
  if (tok_out && c.vocab < 259) {
    fprintf(stderr, "pte synth llama: --tokenizer-out needs --vocab >= 259 (3 specials + 256 byte pieces)\n");
    return PTE_EXIT_USAGE;
  }
  c.hd = c.dim / c.heads;
  if (c.quant && !c.group) c.group = c.dim < 128 || c.heads * c.hd < 128 ? 32 : 128;
  if (!c.hidden) { /* upstream's FeedForward rule: 2/3 of 4 dim, rounded up to a multiple of 256 */
    int64_t h = 4 * (int64_t)c.dim * 2 / 3;
    c.hidden = (int32_t)((h + 255) / 256 * 256);
  }
  if (c.quant && (c.dim % c.group || (c.heads * c.hd) % c.group || c.hidden % c.group)) {
    fprintf(stderr, "pte synth llama: 8da4w group size %d must divide dim %d and hidden %d\n", (int)c.group,
            (int)c.dim, (int)c.hidden);
    return PTE_EXIT_USAGE;
  }
  struct timespec t0;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  pte_cli_progress prog;
  pte_cli_progress_init(&prog, quiet);
  pte_writer_options wo;
  memset(&wo, 0, sizeof wo);
  wo.progress = pte_cli_progress_update;
  wo.progress_ctx = &prog;
  wo.no_dedup = true;
  sl S;
  memset(&S, 0, sizeof S);
  S.c = c;
  S.cap_gens = 9 * (size_t)c.layers + 8;
  S.cap_blobs = 4 * (size_t)c.layers + 2;
  S.gens = (pte_cli_gen *)calloc(S.cap_gens, sizeof *S.gens);
  S.blobs = (pte_xnn_blob *)calloc(S.cap_blobs, sizeof *S.blobs);
  S.hash_buf = (uint8_t *)malloc(SL_HASH_BUF);
  const size_t kmax = (size_t)(c.hidden > c.dim ? c.hidden : c.dim) + (size_t)c.heads * (size_t)c.hd;
  S.row = (float *)malloc(kmax * sizeof(float));
  S.qrow = (uint8_t *)malloc(kmax);
  S.qscales = (uint16_t *)malloc(kmax * sizeof(uint16_t));
  S.q4s = (struct sl_q4 *)calloc(S.cap_gens, sizeof *S.q4s);
  S.cap_keys = S.cap_blobs * 4 + 8;
  S.keys = (char(*)[65])calloc(S.cap_keys, 65);
  const int32_t half = c.hd / 2;
  S.freqs = (float *)malloc((size_t)c.seq * (size_t)half * 2 * sizeof(float));
  pte_status s = PTE_OK;
  if (!S.gens || !S.blobs || !S.hash_buf || !S.freqs || !S.row || !S.qrow || !S.qscales || !S.q4s || !S.keys) {
    s = pte_error_set(&S.err, PTE_ERR_MEMORY_ALLOCATION_FAILED, "llama: out of memory");
  } else {
    for (int32_t p = 0; p < c.seq; p++)
      for (int32_t j = 0; j < half; j++) {
        double f = (double)p * pow(c.theta, -2.0 * j / (double)c.hd);
        S.freqs[(size_t)p * (size_t)half + (size_t)j] = (float)cos(f);
        S.freqs[(size_t)(c.seq + p) * (size_t)half + (size_t)j] = (float)sin(f);
      }
    uint64_t lin = (uint64_t)c.layers * ((uint64_t)c.dim * (uint64_t)(c.heads + 2 * c.kv_heads) * (uint64_t)c.hd +
                                         (uint64_t)c.heads * (uint64_t)c.hd * (uint64_t)c.dim +
                                         3 * (uint64_t)c.dim * (uint64_t)c.hidden) +
                   (uint64_t)c.vocab * (uint64_t)c.dim;
    S.progress = &prog;
    S.to_hash = lin * 4;
    pte_cli_progress_phase(&prog, "hashing");
    s = pte_writer_create(&wo, &S.w, &S.err);
  }
  if (s == PTE_OK) s = pte_writer_add_method(S.w, "forward", &S.m, &S.err);
  if (s == PTE_OK) s = pte_writer_add_chain(S.w, S.m, NULL, 0, NULL, 0, &S.chain, &S.err);
  if (s == PTE_OK) s = sl_forward(&S);
  if (s == PTE_OK) s = sl_metadata(&S);
  pte_writer_layout lay;
  memset(&lay, 0, sizeof lay);
  if (s == PTE_OK) s = pte_writer_compute_layout(S.w, &lay, &S.err);
  pte_cli_progress_phase(&prog, "writing");
  if (s == PTE_OK) s = pte_writer_write_file(S.w, out, &fo, &S.err);
  pte_cli_progress_end(&prog);
  int rc = PTE_EXIT_OK;
  if (s != PTE_OK) {
    fprintf(stderr, "pte synth: %s: %s\n", pte_status_name(s), S.err.msg);
    rc = PTE_EXIT_FAIL;
  }
  if (rc == PTE_EXIT_OK && tok_out) rc = sl_write_tokenizer(tok_out, c.vocab);
  if (rc == PTE_EXIT_OK) {
    double el = sl_secs(&t0);
    if (json) {
      jsonw jw;
      jw_init(&jw, stdout);
      jw_obj(&jw);
      jw_kstr(&jw, "output", out);
      jw_kstr(&jw, "model", "llama");
      jw_kuint(&jw, "bytes", lay.file_size);
      jw_kuint(&jw, "parameters", S.weight_params);
      jw_kuint(&jw, "dim", (uint64_t)c.dim);
      jw_kuint(&jw, "layers", (uint64_t)c.layers);
      jw_kuint(&jw, "heads", (uint64_t)c.heads);
      jw_kuint(&jw, "kv_heads", (uint64_t)c.kv_heads);
      jw_kuint(&jw, "vocab", (uint64_t)c.vocab);
      jw_kuint(&jw, "seq", (uint64_t)c.seq);
      jw_kuint(&jw, "hidden", (uint64_t)c.hidden);
      jw_kstr(&jw, "quant", c.quant ? "8da4w" : "none");
      if (c.quant) jw_kuint(&jw, "group_size", (uint64_t)c.group);
      jw_kuint(&jw, "delegates", S.n_blobs);
      jw_kuint(&jw, "named_bytes", S.named_bytes);
      if (tok_out) jw_kstr(&jw, "tokenizer", tok_out);
      jw_key(&jw, "seconds");
      jw_double(&jw, el);
      jw_obj_end(&jw);
      jw_end(&jw);
    } else {
      printf("wrote %s: %llu bytes (llama dim %d, %d layers, %d/%d heads, vocab %d, seq %d, hidden %d, %llu "
             "parameters, %s, %zu XNNPACK delegates, %s) in %.2f s\n",
             out, (unsigned long long)lay.file_size, (int)c.dim, (int)c.layers, (int)c.heads, (int)c.kv_heads,
             (int)c.vocab, (int)c.seq, (int)c.hidden, (unsigned long long)S.weight_params,
             c.quant ? "8da4w" : "fp32 linears", S.n_blobs,
             c.dynamic ? "dynamic seq" : "static seq 1", el);
      if (tok_out) printf("wrote %s (llama2.c tokenizer.bin, %d pieces)\n", tok_out, (int)c.vocab);
    }
  }
  pte_writer_destroy(S.w);
  for (size_t i = 0; i < S.n_blobs; i++) pte_xnn_blob_free(&S.blobs[i]);
  free(S.blobs);
  free(S.gens);
  free(S.hash_buf);
  free(S.freqs);
  free(S.row);
  free(S.qrow);
  free(S.qscales);
  free(S.q4s);
  free(S.keys);
  return rc;
}
