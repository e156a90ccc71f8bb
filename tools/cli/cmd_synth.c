/* pte synth mlp|cnn|large|denoise -o OUT ... — generate benchmark/demo models with real structure.
 *
 * Weights come from a deterministic generator (docs/writer.md, "pte synth"): element i of tensor t
 * with seed s is a 32-bit integer hash of (i, s, t) mapped to a float in [-scale, scale), scale =
 * 1/sqrt(fan_in). The generator is a pte_source callback, so a model of any size is streamed to
 * disk without ever being in memory.
 *
 * --delegate xnnpack lowers the whole model into one XNNPACK delegate, as the exporter does: the
 * blob holds the graph, the weights are Program.named_data entries keyed by the sha256 hex of
 * their bytes (alignment 16, one segment each). A weight is streamed from the generator twice
 * (once through sha256 for its key, once to disk), through one bounded buffer. The delegated
 * models compute the same function as the portable ones with the same seed: the generator
 * numbers elements in the portable layout and the delegate's layouts are permutations of it. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "jsonw.h"
#include "progress.h"
#include "pte/backend_xnnpack.h"
#include "pte/data_writer.h"
#include "pte/tensor.h"
#include "pte/writer.h"

/* ------------------------------------------------------------------ generator */
typedef struct gen_ctx {
  uint32_t seed32;
  float scale;
} gen_ctx;

static uint32_t gen_seed32(uint64_t seed, uint32_t tensor_id) {
  return (uint32_t)((seed * 0x9E3779B97F4A7C15ull) >> 32) ^ (tensor_id * 0x85EBCA6Bu);
}

static inline float gen_value(uint32_t seed32, float scale, uint32_t i) {
  uint32_t r = i ^ seed32;
  r ^= r << 13;
  r ^= r >> 17;
  r ^= r << 5;
  r += 0x9E3779B9u;
  r ^= r << 13;
  r ^= r >> 17;
  r ^= r << 5;
  uint32_t bits = 0x3F800000u | (r >> 9);
  float f;
  memcpy(&f, &bits, 4);
  return (f - 1.5f) * 2.0f * scale;
}

/* n consecutive values from element `first` into out (a plain loop the compiler vectorizes). */
static void gen_block(uint32_t seed32, float scale, uint32_t first, float *out, size_t n) {
  for (size_t k = 0; k < n; k++) {
    uint32_t r = (first + (uint32_t)k) ^ seed32; /* two xorshift32 rounds: vectorizes with SSE2 */
    r ^= r << 13;
    r ^= r >> 17;
    r ^= r << 5;
    r += 0x9E3779B9u;
    r ^= r << 13;
    r ^= r >> 17;
    r ^= r << 5;
    union {
      uint32_t u;
      float f;
    } v;
    v.u = 0x3F800000u | (r >> 9);
    out[k] = (v.f - 1.5f) * 2.0f * scale;
  }
}

static pte_status gen_read(void *ctx, uint64_t offset, void *dst, size_t size, pte_error_info *err) {
  const gen_ctx *g = (const gen_ctx *)ctx;
  (void)err;
  uint8_t *out = (uint8_t *)dst;
  uint64_t first = offset / 4;
  size_t skip = (size_t)(offset % 4);
  if (skip) { /* partial leading element */
    float f = gen_value(g->seed32, g->scale, (uint32_t)first);
    size_t k = 4 - skip < size ? 4 - skip : size;
    memcpy(out, (const uint8_t *)&f + skip, k);
    out += k;
    size -= k;
    first++;
  }
  size_t n = size / 4;
  uint32_t base = (uint32_t)first;
  if (((uintptr_t)out & 3) == 0) {
    gen_block(g->seed32, g->scale, base, (float *)(void *)out, n);
  } else {
    float tmp[1024];
    for (size_t done = 0; done < n;) {
      size_t k = n - done < 1024 ? n - done : 1024;
      gen_block(g->seed32, g->scale, base + (uint32_t)done, tmp, k);
      memcpy(out + 4 * done, tmp, 4 * k);
      done += k;
    }
  }
  size_t tail = size - n * 4;
  if (tail) {
    float f = gen_value(g->seed32, g->scale, base + (uint32_t)n);
    memcpy(out + 4 * n, &f, tail);
  }
  return PTE_OK;
}

/* A generated constant as a delegate stores it: a permutation of the generator's (portable)
 * layout. Stored element s (row-major over sdims) is generator element sum_j s[j] * gstride[j]. */
typedef struct xgen {
  gen_ctx g;
  uint32_t rank;
  uint32_t sdims[4];
  uint64_t gstride[4]; /* generator stride of each stored axis */
  bool identity;
} xgen;

static pte_status xgen_read(void *ctx, uint64_t offset, void *dst, size_t size, pte_error_info *err) {
  const xgen *x = (const xgen *)ctx;
  if (x->identity) return gen_read((void *)&x->g, offset, dst, size, err);
  if (size == 0) return PTE_OK;
  uint8_t *out = (uint8_t *)dst;
  uint64_t e = offset / 4, end = offset + size;
  uint32_t s[4] = {0, 0, 0, 0};
  uint64_t rem = e, gi = 0;
  for (uint32_t j = x->rank; j-- > 0;) {
    s[j] = (uint32_t)(rem % x->sdims[j]);
    rem /= x->sdims[j];
    gi += s[j] * x->gstride[j];
  }
  const uint32_t last = x->rank - 1;
  for (uint64_t pos = offset; pos < end; e++) {
    float f = gen_value(x->g.seed32, x->g.scale, (uint32_t)gi);
    uint64_t lo = e * 4, skip = pos - lo;
    size_t k = (size_t)(4 - skip < end - pos ? 4 - skip : end - pos);
    memcpy(out, (const uint8_t *)&f + skip, k);
    out += k;
    pos += k;
    /* next stored element */
    s[last]++;
    gi += x->gstride[last];
    for (uint32_t j = last; j > 0 && s[j] == x->sdims[j]; j--) {
      gi -= (uint64_t)s[j] * x->gstride[j];
      s[j] = 0;
      s[j - 1]++;
      gi += x->gstride[j - 1];
    }
  }
  return PTE_OK;
}

static double secs_since(const struct timespec *a) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (double)(now.tv_sec - a->tv_sec) + (double)(now.tv_nsec - a->tv_nsec) / 1e9;
}

/* ------------------------------------------------------------------ model building helpers */
typedef struct synth {
  pte_writer *w;
  uint32_t m, chain;
  uint64_t seed;
  uint32_t next_tensor_id;
  gen_ctx *gens; /* one per generated tensor (must outlive the write) */
  size_t n_gens, cap_gens;
  pte_error_info err;
  uint32_t op_addmm, op_relu, op_conv, op_pool, op_view;
  /* --delegate xnnpack */
  xgen *xgens;                /* generated delegate constants (must outlive the write) */
  size_t n_xgens, cap_xgens;
  uint8_t *hash_buf;          /* the one bounded buffer weights are hashed through */
  pte_cli_progress *progress; /* hashing phase */
  uint64_t hashed, to_hash;   /* bytes hashed so far / in all */
  char (*keys)[65];           /* named-data keys added so far (cap_xgens) */
  size_t n_keys;
  uint64_t named_bytes;       /* bytes of named data */
  pte_xnn_blob blob;          /* the delegate's processed bytes */
  size_t n_delegates, n_calls;
} synth;

static int fail_status(pte_status s, const pte_error_info *err) {
  fprintf(stderr, "pte synth: %s: %s\n", pte_status_name(s), err->msg);
  return PTE_EXIT_FAIL;
}

/* An activation / input tensor planned by the memory planner. */
static pte_status act(synth *S, const int32_t *sizes, size_t dim, int32_t *v) {
  pte_wr_tensor t;
  memset(&t, 0, sizeof t);
  t.dtype = PTE_DTYPE_FLOAT;
  t.sizes = sizes;
  t.dim = dim;
  t.plan = PTE_WR_PLAN_AUTO;
  return pte_writer_add_tensor(S->w, S->m, &t, v, &S->err);
}

/* A float constant filled by the generator. */
static pte_status weight(synth *S, const int32_t *sizes, size_t dim, uint32_t fan_in, int32_t *v) {
  /* callback contexts must stay put until the write: the array is reserved up front */
  if (S->n_gens == S->cap_gens) return pte_error_set(&S->err, PTE_ERR_INTERNAL, "too many generated tensors");
  gen_ctx *g = &S->gens[S->n_gens++];
  g->seed32 = gen_seed32(S->seed, S->next_tensor_id++);
  g->scale = 1.0f / sqrtf((float)(fan_in ? fan_in : 1));
  uint64_t numel = 1;
  for (size_t i = 0; i < dim; i++) numel *= (uint64_t)sizes[i];
  pte_source src = pte_source_callback(gen_read, g, numel * 4);
  pte_wr_tensor t;
  memset(&t, 0, sizeof t);
  t.dtype = PTE_DTYPE_FLOAT;
  t.sizes = sizes;
  t.dim = dim;
  return pte_writer_add_constant_tensor(S->w, S->m, &t, &src, v, &S->err);
}

static pte_status int_value(synth *S, int64_t x, int32_t *v) { return pte_writer_add_int(S->w, S->m, x, v, &S->err); }

/* out = relu?(x @ W + b) with W [in, out] (pre-transposed) via aten::addmm.out. */
static pte_status linear(synth *S, int32_t x, int32_t batch, int32_t in, int32_t out, bool relu, int32_t *y) {
  int32_t wsz[2] = {in, out}, bsz[1] = {out}, osz[2] = {batch, out};
  int32_t W, B, one, o;
  pte_status s = weight(S, wsz, 2, (uint32_t)in, &W);
  if (s == PTE_OK) s = weight(S, bsz, 1, (uint32_t)in, &B);
  if (s == PTE_OK) s = int_value(S, 1, &one);
  if (s == PTE_OK) s = act(S, osz, 2, &o);
  if (s != PTE_OK) return s;
  int32_t args[7] = {B, x, W, one, one, o, o};
  s = pte_writer_add_kernel_call(S->w, S->m, S->chain, S->op_addmm, args, 7, NULL, &S->err);
  if (s != PTE_OK || !relu) {
    *y = o;
    return s;
  }
  int32_t r;
  s = act(S, osz, 2, &r);
  if (s != PTE_OK) return s;
  int32_t rargs[3] = {o, r, r};
  s = pte_writer_add_kernel_call(S->w, S->m, S->chain, S->op_relu, rargs, 3, NULL, &S->err);
  *y = r;
  return s;
}

static pte_status begin(synth *S, const pte_writer_options *wo, bool portable_ops) {
  pte_status s = pte_writer_create(wo, &S->w, &S->err);
  if (s == PTE_OK) s = pte_writer_add_method(S->w, "forward", &S->m, &S->err);
  if (s == PTE_OK) s = pte_writer_add_chain(S->w, S->m, NULL, 0, NULL, 0, &S->chain, &S->err);
  if (!portable_ops) return s;
  if (s == PTE_OK) s = pte_writer_add_operator(S->w, S->m, "aten::addmm", "out", &S->op_addmm, &S->err);
  if (s == PTE_OK) s = pte_writer_add_operator(S->w, S->m, "aten::relu", "out", &S->op_relu, &S->err);
  return s;
}

static pte_status build_mlp(synth *S, const int32_t *widths, size_t n, int32_t batch) {
  int32_t isz[2] = {batch, widths[0]};
  int32_t x;
  pte_status s = act(S, isz, 2, &x);
  if (s != PTE_OK) return s;
  int32_t in = x;
  for (size_t i = 0; i + 1 < n && s == PTE_OK; i++) s = linear(S, x, batch, widths[i], widths[i + 1], i + 2 < n, &x);
  if (s == PTE_OK) s = pte_writer_set_inputs(S->w, S->m, &in, 1, &S->err);
  if (s == PTE_OK) s = pte_writer_set_outputs(S->w, S->m, &x, 1, &S->err);
  return s;
}

static pte_status build_cnn(synth *S, const int32_t *ch, size_t n, int32_t image, int32_t classes, int32_t batch) {
  pte_status s = pte_writer_add_operator(S->w, S->m, "aten::convolution", "out", &S->op_conv, &S->err);
  if (s == PTE_OK) s = pte_writer_add_operator(S->w, S->m, "aten::max_pool2d_with_indices", "out", &S->op_pool, &S->err);
  if (s == PTE_OK) s = pte_writer_add_operator(S->w, S->m, "aten::view_copy", "out", &S->op_view, &S->err);
  int32_t isz[4] = {batch, ch[0], image, image};
  int32_t x = -1, in;
  if (s == PTE_OK) s = act(S, isz, 4, &x);
  in = x;
  int32_t hw = image;
  int64_t one1[2] = {1, 1}, zero2[2] = {0, 0}, two2[2] = {2, 2};
  int32_t l_stride, l_pad, l_dil, l_opad, l_k2, l_s2, l_p0, l_d1, f, groups;
  if (s == PTE_OK) s = pte_writer_add_int_list_literal(S->w, S->m, one1, 2, &l_stride, &S->err);
  if (s == PTE_OK) s = pte_writer_add_int_list_literal(S->w, S->m, one1, 2, &l_pad, &S->err);
  if (s == PTE_OK) s = pte_writer_add_int_list_literal(S->w, S->m, one1, 2, &l_dil, &S->err);
  if (s == PTE_OK) s = pte_writer_add_int_list_literal(S->w, S->m, zero2, 2, &l_opad, &S->err);
  if (s == PTE_OK) s = pte_writer_add_int_list_literal(S->w, S->m, two2, 2, &l_k2, &S->err);
  if (s == PTE_OK) s = pte_writer_add_int_list_literal(S->w, S->m, two2, 2, &l_s2, &S->err);
  if (s == PTE_OK) s = pte_writer_add_int_list_literal(S->w, S->m, zero2, 2, &l_p0, &S->err);
  if (s == PTE_OK) s = pte_writer_add_int_list_literal(S->w, S->m, one1, 2, &l_d1, &S->err);
  if (s == PTE_OK) s = pte_writer_add_bool(S->w, S->m, false, &f, &S->err);
  if (s == PTE_OK) s = int_value(S, 1, &groups);
  for (size_t i = 0; i + 1 < n && s == PTE_OK; i++) {
    int32_t cin = ch[i], cout = ch[i + 1];
    int32_t wsz[4] = {cout, cin, 3, 3}, bsz[1] = {cout}, csz[4] = {batch, cout, hw, hw};
    int32_t W, B, c, r;
    s = weight(S, wsz, 4, (uint32_t)(cin * 9), &W);
    if (s == PTE_OK) s = weight(S, bsz, 1, (uint32_t)(cin * 9), &B);
    if (s == PTE_OK) s = act(S, csz, 4, &c);
    if (s == PTE_OK) s = act(S, csz, 4, &r);
    if (s != PTE_OK) break;
    int32_t cargs[11] = {x, W, B, l_stride, l_pad, l_dil, f, l_opad, groups, c, c};
    s = pte_writer_add_kernel_call(S->w, S->m, S->chain, S->op_conv, cargs, 11, NULL, &S->err);
    int32_t rargs[3] = {c, r, r};
    if (s == PTE_OK) s = pte_writer_add_kernel_call(S->w, S->m, S->chain, S->op_relu, rargs, 3, NULL, &S->err);
    hw /= 2;
    int32_t psz[4] = {batch, cout, hw, hw};
    int32_t p = -1, idx = -1;
    if (s == PTE_OK) s = act(S, psz, 4, &p);
    if (s == PTE_OK) {
      pte_wr_tensor t;
      memset(&t, 0, sizeof t);
      t.dtype = PTE_DTYPE_LONG;
      t.sizes = psz;
      t.dim = 4;
      t.plan = PTE_WR_PLAN_AUTO;
      s = pte_writer_add_tensor(S->w, S->m, &t, &idx, &S->err);
    }
    int32_t pargs[10] = {r, l_k2, l_s2, l_p0, l_d1, f, p, idx, p, idx};
    if (s == PTE_OK) s = pte_writer_add_kernel_call(S->w, S->m, S->chain, S->op_pool, pargs, 10, NULL, &S->err);
    x = p;
  }
  int32_t flat = ch[n - 1] * hw * hw;
  int64_t fsz[2] = {batch, flat};
  int32_t l_fsz = -1, v = -1, y;
  int32_t vsz[2] = {batch, flat};
  if (s == PTE_OK) s = pte_writer_add_int_list_literal(S->w, S->m, fsz, 2, &l_fsz, &S->err);
  if (s == PTE_OK) s = act(S, vsz, 2, &v);
  int32_t vargs[4] = {x, l_fsz, v, v};
  if (s == PTE_OK) s = pte_writer_add_kernel_call(S->w, S->m, S->chain, S->op_view, vargs, 4, NULL, &S->err);
  if (s == PTE_OK) s = linear(S, v, batch, flat, classes, false, &y);
  if (s == PTE_OK) s = pte_writer_set_inputs(S->w, S->m, &in, 1, &S->err);
  if (s == PTE_OK) s = pte_writer_set_outputs(S->w, S->m, &y, 1, &S->err);
  return s;
}

/* ------------------------------------------------------------------ XNNPACK-delegated models */
#define HASH_BUF_SIZE ((size_t)1 << 20)

static pte_status xerr(synth *S, pte_status s, const char *what) {
  return pte_error_set(&S->err, s, "xnnpack graph: cannot add %s (%s)", what, pte_status_name(s));
}

/* A generated fp32 constant of the delegate: stored shape sdims (rank r), stored axis j being axis
 * perm[j] of the generator's (portable) shape gdims (perm NULL: same layout). Its bytes become a
 * named-data entry keyed by their sha256; the graph value refers to that key. */
static pte_status xconst(synth *S, pte_xnn_builder *b, uint32_t r, const uint32_t *gdims, const uint32_t *perm,
                         uint32_t fan_in, uint32_t *id) {
  if (S->n_xgens == S->cap_xgens) return pte_error_set(&S->err, PTE_ERR_INTERNAL, "too many generated tensors");
  xgen *x = &S->xgens[S->n_xgens++];
  memset(x, 0, sizeof *x);
  x->g.seed32 = gen_seed32(S->seed, S->next_tensor_id++);
  x->g.scale = 1.0f / sqrtf((float)(fan_in ? fan_in : 1));
  x->rank = r;
  x->identity = true;
  uint64_t gstride[4], numel = 1;
  for (uint32_t a = r; a-- > 0;) {
    gstride[a] = numel;
    numel *= gdims[a];
  }
  for (uint32_t j = 0; j < r; j++) {
    uint32_t a = perm ? perm[j] : j;
    x->sdims[j] = gdims[a];
    x->gstride[j] = gstride[a];
    if (a != j) x->identity = false;
  }
  const uint64_t nbytes = numel * 4;
  /* key: sha256 of the stored bytes, streamed through the bounded buffer */
  pte_sha256_ctx h;
  pte_sha256_init(&h);
  for (uint64_t off = 0; off < nbytes;) {
    size_t k = nbytes - off < HASH_BUF_SIZE ? (size_t)(nbytes - off) : HASH_BUF_SIZE;
    pte_status s = xgen_read(x, off, S->hash_buf, k, &S->err);
    if (s != PTE_OK) return s;
    pte_sha256_update(&h, S->hash_buf, k);
    off += k;
    S->hashed += k;
    if (S->progress && S->to_hash) pte_cli_progress_update(S->progress, S->hashed, S->to_hash);
  }
  uint8_t dig[32];
  pte_sha256_final(&h, dig);
  char key[65];
  for (int i = 0; i < 32; i++) snprintf(key + 2 * i, 3, "%02x", dig[i]);
  bool seen = false;
  for (size_t i = 0; i < S->n_keys && !seen; i++) seen = strcmp(S->keys[i], key) == 0;
  if (!seen) { /* identical bytes are stored once, as the exporter does */
    uint32_t blob;
    pte_source src = pte_source_callback(xgen_read, x, nbytes);
    pte_status s = pte_writer_add_blob(S->w, &src, &blob, &S->err);
    if (s == PTE_OK) s = pte_writer_add_named_data(S->w, key, blob, 16, &S->err);
    if (s != PTE_OK) return s;
    memcpy(S->keys[S->n_keys++], key, 65);
    S->named_bytes += nbytes;
  }
  pte_xnn_tensor_desc t;
  memset(&t, 0, sizeof t);
  t.dtype = PTE_XNN_DT_FP32;
  t.rank = r;
  t.dims = x->sdims;
  t.nbytes = (size_t)nbytes;
  t.named_key = key;
  pte_status s = pte_xnn_builder_add_tensor(b, &t, id);
  return s == PTE_OK ? PTE_OK : xerr(S, s, "a constant");
}

/* A non-constant fp32 graph value; ext >= 0 makes it external input (in) or output (!in). */
static pte_status xval(synth *S, pte_xnn_builder *b, uint32_t r, const uint32_t *dims, int ext, bool in, uint32_t *id) {
  pte_xnn_tensor_desc t;
  memset(&t, 0, sizeof t);
  t.dtype = PTE_XNN_DT_FP32;
  t.rank = r;
  t.dims = dims;
  if (ext >= 0) {
    t.flags = in ? PTE_XNN_VALUE_EXTERNAL_INPUT : PTE_XNN_VALUE_EXTERNAL_OUTPUT;
    t.external_id = (uint32_t)ext;
  }
  pte_status s = pte_xnn_builder_add_tensor(b, &t, id);
  return s == PTE_OK ? PTE_OK : xerr(S, s, "a value");
}

static pte_status xnode(synth *S, pte_xnn_builder *b, const pte_xnn_node_desc *n) {
  pte_status s = pte_xnn_builder_add_node(b, n);
  return s == PTE_OK ? PTE_OK : xerr(S, s, "a node");
}

/* y = relu?(x W^T + b) as one FullyConnected node (weight [out, in] as PyTorch stores it; the
 * generator's layout is the portable model's [in, out]); ReLU is the fused output clamp. */
static pte_status xlinear(synth *S, pte_xnn_builder *b, uint32_t x, uint32_t batch, uint32_t in, uint32_t out,
                          bool relu, int ext_out, uint32_t *y) {
  static const uint32_t tr[2] = {1, 0};
  uint32_t gw[2] = {in, out}, gb[1] = {out}, od[2] = {batch, out};
  uint32_t W, B;
  pte_status s = xconst(S, b, 2, gw, tr, in, &W);
  if (s == PTE_OK) s = xconst(S, b, 1, gb, NULL, in, &B);
  if (s == PTE_OK) s = xval(S, b, 2, od, ext_out, false, y);
  if (s != PTE_OK) return s;
  pte_xnn_node_desc n;
  memset(&n, 0, sizeof n);
  n.type = PTE_XNN_NODE_FULLY_CONNECTED;
  n.inputs[0] = x;
  n.inputs[1] = W;
  n.inputs[2] = B;
  n.output = *y;
  if (relu) {
    n.has_min_max = true;
    n.out_min = 0.0f;
    n.out_max = INFINITY;
  }
  return xnode(S, b, &n);
}

/* The MLP of build_mlp as one graph: input external id 0 [batch, widths[0]], output id 1. */
static pte_status xnn_mlp_graph(synth *S, pte_xnn_builder *b, const int32_t *widths, size_t n, int32_t batch) {
  uint32_t id[2] = {(uint32_t)batch, (uint32_t)widths[0]}, x;
  pte_status s = xval(S, b, 2, id, 0, true, &x);
  for (size_t i = 0; i + 1 < n && s == PTE_OK; i++)
    s = xlinear(S, b, x, (uint32_t)batch, (uint32_t)widths[i], (uint32_t)widths[i + 1], i + 2 < n, i + 2 < n ? -1 : 1,
                &x);
  return s;
}

/* The CNN of build_cnn as one graph (NCHW in and out of the delegate, NHWC inside, as the
 * exporter lowers it): transpose, per stage Conv2d 3x3 pad 1 (+ fused ReLU) and 2x2 max pooling,
 * transpose back, reshape to [batch, flat], FullyConnected. Conv weights are stored OHWI
 * (the generator's layout is OIHW). */
static pte_status xnn_cnn_graph(synth *S, pte_xnn_builder *b, const int32_t *ch, size_t n, int32_t image,
                                int32_t classes, int32_t batch) {
  static const uint32_t to_nhwc[4] = {0, 2, 3, 1}, to_nchw[4] = {0, 3, 1, 2}, ohwi[4] = {0, 2, 3, 1};
  const uint32_t N = (uint32_t)batch;
  uint32_t hw = (uint32_t)image;
  uint32_t d_in[4] = {N, (uint32_t)ch[0], hw, hw}, d_t[4] = {N, hw, hw, (uint32_t)ch[0]};
  uint32_t x, t = -1;
  pte_status s = xval(S, b, 4, d_in, 0, true, &x);
  if (s == PTE_OK) s = xval(S, b, 4, d_t, -1, false, &t);
  pte_xnn_node_desc nd;
  memset(&nd, 0, sizeof nd);
  nd.type = PTE_XNN_NODE_STATIC_TRANSPOSE;
  nd.inputs[0] = x;
  nd.output = t;
  nd.num_dims = 4;
  nd.a = to_nhwc;
  if (s == PTE_OK) s = xnode(S, b, &nd);
  x = t;
  for (size_t i = 0; i + 1 < n && s == PTE_OK; i++) {
    uint32_t cin = (uint32_t)ch[i], cout = (uint32_t)ch[i + 1];
    uint32_t gw[4] = {cout, cin, 3, 3}, gb[1] = {cout}, d_c[4] = {N, hw, hw, cout};
    uint32_t W, B, c, p = -1;
    s = xconst(S, b, 4, gw, ohwi, cin * 9, &W);
    if (s == PTE_OK) s = xconst(S, b, 1, gb, NULL, cin * 9, &B);
    if (s == PTE_OK) s = xval(S, b, 4, d_c, -1, false, &c);
    if (s != PTE_OK) break;
    memset(&nd, 0, sizeof nd);
    nd.type = PTE_XNN_NODE_CONV2D;
    nd.inputs[0] = x;
    nd.inputs[1] = W;
    nd.inputs[2] = B;
    nd.output = c;
    nd.padding[0] = nd.padding[1] = nd.padding[2] = nd.padding[3] = 1;
    nd.kernel[0] = nd.kernel[1] = 3;
    nd.stride[0] = nd.stride[1] = 1;
    nd.dilation[0] = nd.dilation[1] = 1;
    nd.groups = 1;
    nd.group_input_channels = cin;
    nd.group_output_channels = cout;
    nd.has_min_max = true;
    nd.out_min = 0.0f;
    nd.out_max = INFINITY;
    s = xnode(S, b, &nd);
    hw /= 2;
    uint32_t d_p[4] = {N, hw, hw, cout};
    if (s == PTE_OK) s = xval(S, b, 4, d_p, -1, false, &p);
    memset(&nd, 0, sizeof nd);
    nd.type = PTE_XNN_NODE_MAX_POOLING_2D;
    nd.inputs[0] = c;
    nd.output = p;
    nd.kernel[0] = nd.kernel[1] = 2;
    nd.stride[0] = nd.stride[1] = 2;
    nd.dilation[0] = nd.dilation[1] = 1;
    if (s == PTE_OK) s = xnode(S, b, &nd);
    x = p;
  }
  const uint32_t cl = (uint32_t)ch[n - 1], flat = cl * hw * hw;
  uint32_t d_back[4] = {N, cl, hw, hw}, d_flat[2] = {N, flat}, back = -1, v = -1, y;
  if (s == PTE_OK) s = xval(S, b, 4, d_back, -1, false, &back);
  memset(&nd, 0, sizeof nd);
  nd.type = PTE_XNN_NODE_STATIC_TRANSPOSE;
  nd.inputs[0] = x;
  nd.output = back;
  nd.num_dims = 4;
  nd.a = to_nchw;
  if (s == PTE_OK) s = xnode(S, b, &nd);
  if (s == PTE_OK) s = xval(S, b, 2, d_flat, -1, false, &v);
  memset(&nd, 0, sizeof nd);
  nd.type = PTE_XNN_NODE_STATIC_RESHAPE;
  nd.inputs[0] = back;
  nd.output = v;
  nd.num_dims = 2;
  nd.a = d_flat;
  if (s == PTE_OK) s = xnode(S, b, &nd);
  if (s == PTE_OK) s = xlinear(S, b, v, N, flat, (uint32_t)classes, false, 1, &y);
  return s;
}

/* Finishes the graph into S->blob and adds it as a lowered module of the program. */
static pte_status xnn_module(synth *S, pte_xnn_builder *b, bool share, uint32_t *module) {
  pte_status s = pte_xnn_builder_finish(b, PTE_XNN_CONSTANTS_NAMED, &S->blob, &S->err);
  if (s != PTE_OK) return s;
  uint32_t blob;
  pte_source src = pte_source_memory(S->blob.data, S->blob.size);
  s = pte_writer_add_blob(S->w, &src, &blob, &S->err);
  if (s != PTE_OK) return s;
  pte_wr_delegate d;
  memset(&d, 0, sizeof d);
  d.id = PTE_XNNPACK_BACKEND_ID;
  d.blob = blob;
  d.share_handle = share;
  return pte_writer_add_lowered_module(S->w, &d, module, &S->err);
}

/* A model lowered whole into one delegate: method = one DelegateCall(input, output), both
 * memory planned as the exporter plans them. */
static pte_status build_delegated(synth *S, pte_xnn_builder *b, const int32_t *in_sz, size_t in_dim,
                                  const int32_t *out_sz, size_t out_dim) {
  uint32_t module;
  int32_t x = -1, y = -1;
  pte_status s = xnn_module(S, b, false, &module);
  if (s == PTE_OK) s = act(S, in_sz, in_dim, &x);
  if (s == PTE_OK) s = act(S, out_sz, out_dim, &y);
  int32_t args[2] = {x, y};
  if (s == PTE_OK) s = pte_writer_call_module(S->w, S->m, S->chain, module, args, 2, NULL, &S->err);
  if (s == PTE_OK) s = pte_writer_set_inputs(S->w, S->m, &x, 1, &S->err);
  if (s == PTE_OK) s = pte_writer_set_outputs(S->w, S->m, &y, 1, &S->err);
  S->n_calls = 1;
  return s;
}

/* denoise: x_{t+1} = x_t - block(x_t) for `steps` steps, block = Linear(w, w) + ReLU + Linear(w, w)
 * lowered into ONE XNNPACK module called at every step (share: one BackendDelegate for all the
 * calls; otherwise one per call, all referencing the one stored blob); the subtraction is the
 * portable aten::sub.out. */
static pte_status build_denoise(synth *S, pte_xnn_builder *b, int32_t width, int32_t batch, uint32_t steps,
                                bool share) {
  const int32_t widths[3] = {width, width, width};
  uint32_t module, op_sub;
  pte_status s = xnn_mlp_graph(S, b, widths, 3, batch);
  if (s == PTE_OK) s = xnn_module(S, b, share, &module);
  if (s == PTE_OK) s = pte_writer_add_operator(S->w, S->m, "aten::sub", "out", &op_sub, &S->err);
  int32_t sz[2] = {batch, width}, x = -1, in, one;
  if (s == PTE_OK) s = int_value(S, 1, &one);
  if (s == PTE_OK) s = act(S, sz, 2, &x);
  in = x;
  for (uint32_t t = 0; t < steps && s == PTE_OK; t++) {
    int32_t eps, nx = -1;
    s = act(S, sz, 2, &eps);
    if (s == PTE_OK) s = act(S, sz, 2, &nx);
    int32_t dargs[2] = {x, eps};
    if (s == PTE_OK) s = pte_writer_call_module(S->w, S->m, S->chain, module, dargs, 2, NULL, &S->err);
    int32_t sargs[5] = {x, eps, one, nx, nx};
    if (s == PTE_OK) s = pte_writer_add_kernel_call(S->w, S->m, S->chain, op_sub, sargs, 5, NULL, &S->err);
    x = nx;
  }
  if (s == PTE_OK) s = pte_writer_set_inputs(S->w, S->m, &in, 1, &S->err);
  if (s == PTE_OK) s = pte_writer_set_outputs(S->w, S->m, &x, 1, &S->err);
  S->n_calls = steps;
  S->n_delegates = share ? 1 : steps;
  return s;
}

/* ------------------------------------------------------------------ command line */
static void help(FILE *f) {
  fprintf(f,
          "usage: pte synth mlp     -o OUT [--widths 784,256,128,10] [--batch N] [--delegate xnnpack] [options]\n"
          "       pte synth cnn     -o OUT [--channels 3,16,32] [--image 32] [--classes 10] [--batch N]\n"
          "                              [--delegate xnnpack] [options]\n"
          "       pte synth large   -o OUT --size 4G [--layers 4] [--delegate xnnpack] [options]\n"
          "       pte synth denoise -o OUT [--steps 10] [--width 256] [--batch N] [--no-share] [options]\n"
          "       pte synth llama   -o OUT --dim D --layers L --heads H --kv-heads K --vocab V --seq S ...\n"
          "                              (pte synth llama --help)\n"
          "\n"
          "Generates a .pte with real structure and deterministic weights (streamed from a generator,\n"
          "never held in memory):\n"
          "  mlp      Linear layers (aten::addmm.out) with ReLU between them; input [batch, widths[0]].\n"
          "  cnn      3x3 convolutions (padding 1) + ReLU + 2x2 max pooling per stage, then a Linear\n"
          "           classifier; input [batch, channels[0], image, image].\n"
          "  large    an MLP of --layers square layers whose float weights add up to about --size bytes\n"
          "           (suffixes K, M, G; e.g. 4G): a multi-GiB model for streaming benchmarks.\n"
          "  denoise  x <- x - block(x), --steps times, where block (Linear + ReLU + Linear, width\n"
          "           --width) is ONE lowered XNNPACK module called at every step (a DelegateCall per\n"
          "           step, aten::sub.out between them). The module is marked share_handle: the file\n"
          "           has one BackendDelegate (one backend init) for all the calls. --no-share writes\n"
          "           one BackendDelegate per call instead, all referencing the one stored blob.\n"
          "Activations are memory planned by the writer's planner (alignment 16).\n"
          "\n"
          "--delegate xnnpack lowers the whole model into one XnnpackBackend delegate as the exporter\n"
          "does (FullyConnected / Conv2d nodes with ReLU fused as an output clamp, NHWC inside for the\n"
          "cnn; weights in Program.named_data under the sha256 hex of their bytes, alignment 16). The\n"
          "delegated model computes the same function as the portable one with the same seed.\n"
          "\n"
          "options:\n"
          "  -o, --output FILE          output .pte (written to a temp file, then renamed)\n"
          "  --seed N                   generator seed (default 0)\n"
          "  --delegate none|xnnpack    mlp, cnn, large: portable kernels (default) or one XNNPACK delegate\n"
          "  --steps N                  denoise: steps (DelegateCalls), 1..10000 (default 10)\n"
          "  --width N                  denoise: width of the block (default 256)\n"
          "  --no-share                 denoise: one BackendDelegate per call\n"
          "  --segment-alignment N      segment alignment (default 128; e.g. 16384)\n"
          "  --tensor-alignment N       constant alignment (default 16)\n"
          "  --no-fsync                 skip fsync on publish\n"
          "  -q, --quiet                no progress bar (shown only on a terminal anyway)\n"
          "  --json                     print one JSON object describing the written file\n"
          "  -h, --help                 this help\n");
}

static bool parse_u64(const char *s, uint64_t *out) {
  if (!s || !*s) return false;
  char *end = NULL;
  errno = 0;
  double d = strtod(s, &end);
  if (errno || end == s || d < 0) return false;
  double mul = 1;
  if (*end == 'K' || *end == 'k') mul = 1024.0, end++;
  else if (*end == 'M' || *end == 'm') mul = 1024.0 * 1024, end++;
  else if (*end == 'G' || *end == 'g') mul = 1024.0 * 1024 * 1024, end++;
  if (*end == 'i' || *end == 'B') end++;
  if (*end == 'B') end++;
  if (*end) return false;
  d *= mul;
  if (d > 1.8e19) return false;
  *out = (uint64_t)d;
  return true;
}

static size_t parse_list(const char *s, int32_t *out, size_t cap) {
  size_t n = 0;
  while (s && *s && n < cap) {
    char *end = NULL;
    long v = strtol(s, &end, 10);
    if (end == s || v <= 0 || v > (1L << 24)) return 0;
    out[n++] = (int32_t)v;
    s = *end == ',' ? end + 1 : end;
    if (*end && *end != ',') return 0;
  }
  return n;
}

int pte_cli_synth_llama(int argc, char **argv);

static int run_synth(int argc, char **argv) {
  if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
    help(argc < 2 ? stderr : stdout);
    return argc < 2 ? PTE_EXIT_USAGE : PTE_EXIT_OK;
  }
  const char *kind = argv[1];
  if (!strcmp(kind, "llama")) return pte_cli_synth_llama(argc, argv); /* cmd_synth_llama.c */
  const bool denoise = !strcmp(kind, "denoise");
  if (strcmp(kind, "mlp") && strcmp(kind, "cnn") && strcmp(kind, "large") && !denoise) {
    fprintf(stderr, "pte synth: unknown model kind '%s' (mlp, cnn, large, denoise, llama)\n", kind);
    return PTE_EXIT_USAGE;
  }
  const char *out = NULL;
  int32_t widths[64] = {784, 256, 128, 10}, chans[16] = {3, 16, 32};
  size_t n_widths = 4, n_chans = 3;
  uint64_t seed = 0, size = 0, layers = 4, image = 32, classes = 10, batch = 1, steps = 10, width = 256;
  pte_writer_options wo;
  memset(&wo, 0, sizeof wo);
  pte_file_writer_options fo;
  pte_file_writer_options_init(&fo);
  bool json = false;
  bool quiet = false, have_size = false, xnn = denoise, no_share = false, denoise_opt = false;
  for (int i = 2; i < argc; i++) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    bool ok = true;
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      help(stdout);
      return PTE_EXIT_OK;
    } else if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
      out = v, i++, ok = v != NULL;
    } else if (!strcmp(a, "--seed")) {
      ok = parse_u64(v, &seed), i++;
    } else if (!strcmp(a, "--size")) {
      ok = parse_u64(v, &size), i++, have_size = true;
    } else if (!strcmp(a, "--layers")) {
      ok = parse_u64(v, &layers) && layers >= 1 && layers <= 1024, i++;
    } else if (!strcmp(a, "--image")) {
      ok = parse_u64(v, &image) && image >= 1 && image <= 4096, i++;
    } else if (!strcmp(a, "--classes")) {
      ok = parse_u64(v, &classes) && classes >= 1 && classes <= (1u << 20), i++;
    } else if (!strcmp(a, "--batch")) {
      ok = parse_u64(v, &batch) && batch >= 1 && batch <= 4096, i++;
    } else if (!strcmp(a, "--widths")) {
      n_widths = parse_list(v, widths, 64), ok = n_widths >= 2, i++;
    } else if (!strcmp(a, "--channels")) {
      n_chans = parse_list(v, chans, 16), ok = n_chans >= 2, i++;
    } else if (!strcmp(a, "--delegate")) {
      ok = v && (!strcmp(v, "xnnpack") || !strcmp(v, "none")), i++;
      if (ok) xnn = !strcmp(v, "xnnpack");
      if (ok && denoise && !xnn) {
        fprintf(stderr, "pte synth denoise: the model is XNNPACK-delegated by definition\n");
        return PTE_EXIT_USAGE;
      }
    } else if (!strcmp(a, "--steps")) {
      ok = parse_u64(v, &steps) && steps >= 1 && steps <= 10000, i++, denoise_opt = true;
    } else if (!strcmp(a, "--width")) {
      ok = parse_u64(v, &width) && width >= 1 && width <= 16384, i++, denoise_opt = true;
    } else if (!strcmp(a, "--no-share")) {
      no_share = true, denoise_opt = true;
    } else if (!strcmp(a, "--segment-alignment")) {
      ok = parse_u64(v, &wo.segment_alignment), i++;
    } else if (!strcmp(a, "--tensor-alignment")) {
      ok = parse_u64(v, &wo.tensor_alignment), i++;
    } else if (!strcmp(a, "--no-fsync")) {
      fo.no_fsync = true;
    } else if (!strcmp(a, "--quiet") || !strcmp(a, "-q")) {
      quiet = true;
    } else if (!strcmp(a, "--json")) {
      json = true;
    } else {
      fprintf(stderr, "pte synth: unknown option '%s'\n", a);
      return PTE_EXIT_USAGE;
    }
    if (!ok) {
      fprintf(stderr, "pte synth: bad or missing value for %s\n", a);
      return PTE_EXIT_USAGE;
    }
  }
  if (!out) {
    fprintf(stderr, "pte synth: no output file (-o OUT)\n");
    return PTE_EXIT_USAGE;
  }
  if (denoise_opt && !denoise) {
    fprintf(stderr, "pte synth %s: --steps, --width and --no-share are denoise options\n", kind);
    return PTE_EXIT_USAGE;
  }
  if ((wo.segment_alignment && (wo.segment_alignment & (wo.segment_alignment - 1))) ||
      (wo.tensor_alignment && (wo.tensor_alignment & (wo.tensor_alignment - 1)))) {
    fprintf(stderr, "pte synth: alignments must be powers of two\n");
    return PTE_EXIT_USAGE;
  }
  if (!strcmp(kind, "large") && (!have_size || size < 4096)) {
    fprintf(stderr, "pte synth large: --size (at least 4K) is required\n");
    return PTE_EXIT_USAGE;
  }
  if (!strcmp(kind, "cnn") && (image >> (n_chans - 1)) < 1) {
    fprintf(stderr, "pte synth cnn: image %llu is too small for %zu pooling stages\n", (unsigned long long)image, n_chans - 1);
    return PTE_EXIT_USAGE;
  }
  struct timespec t_start;
  clock_gettime(CLOCK_MONOTONIC, &t_start);
  pte_cli_progress prog;
  pte_cli_progress_init(&prog, quiet);
  wo.progress = pte_cli_progress_update;
  wo.progress_ctx = &prog;
  wo.no_dedup = true; /* generated tensors are distinct; skip the hashing pass */
  synth S;
  memset(&S, 0, sizeof S);
  S.seed = seed;
  /* generator contexts must not move once handed out: reserve them all now */
  S.cap_gens = 2 * (n_widths + n_chans + layers) + 8;
  S.gens = (gen_ctx *)calloc(S.cap_gens, sizeof *S.gens);
  pte_xnn_builder *xb = NULL;
  if (xnn) {
    S.cap_xgens = S.cap_gens;
    S.xgens = (xgen *)calloc(S.cap_xgens, sizeof *S.xgens);
    S.keys = (char(*)[65])calloc(S.cap_xgens, 65);
    S.hash_buf = (uint8_t *)malloc(HASH_BUF_SIZE);
    S.n_delegates = 1;
    xb = pte_xnn_builder_new();
  }
  if (!S.gens || (xnn && (!S.xgens || !S.keys || !S.hash_buf || !xb))) {
    free(S.gens), free(S.xgens), free(S.keys), free(S.hash_buf), pte_xnn_builder_free(xb);
    return fail_status(pte_error_set(&S.err, PTE_ERR_MEMORY_ALLOCATION_FAILED, "out of memory"), &S.err);
  }
  /* `large`: layers of W x W floats (+ bias) totalling about `size` bytes; W a multiple of 16 */
  int32_t lw[1025];
  if (!strcmp(kind, "large")) {
    double per = (double)size / (double)layers / 4.0;
    int64_t W = (int64_t)sqrt(per);
    W = W / 16 * 16;
    if (W < 16) W = 16;
    if (W > 46336) W = 46336; /* W*W elements must fit a 32-bit index */
    for (uint64_t i = 0; i <= layers; i++) lw[i] = (int32_t)W;
  }
  if (xnn && !strcmp(kind, "large")) { /* the weights go through sha256 (their keys) first */
    S.progress = &prog;
    S.to_hash = size;
    pte_cli_progress_phase(&prog, "hashing");
  }
  pte_status s = begin(&S, &wo, !xnn);
  if (s == PTE_OK) {
    const int32_t B = (int32_t)batch;
    if (denoise) {
      s = build_denoise(&S, xb, (int32_t)width, B, (uint32_t)steps, !no_share);
    } else if (!strcmp(kind, "cnn")) {
      if (xnn) {
        int32_t isz[4] = {B, chans[0], (int32_t)image, (int32_t)image}, osz[2] = {B, (int32_t)classes};
        s = xnn_cnn_graph(&S, xb, chans, n_chans, (int32_t)image, (int32_t)classes, B);
        if (s == PTE_OK) s = build_delegated(&S, xb, isz, 4, osz, 2);
      } else {
        s = build_cnn(&S, chans, n_chans, (int32_t)image, (int32_t)classes, B);
      }
    } else {
      const int32_t *wv = !strcmp(kind, "large") ? lw : widths;
      size_t nw = !strcmp(kind, "large") ? (size_t)layers + 1 : n_widths;
      if (xnn) {
        int32_t isz[2] = {B, wv[0]}, osz[2] = {B, wv[nw - 1]};
        s = xnn_mlp_graph(&S, xb, wv, nw, B);
        if (s == PTE_OK) s = build_delegated(&S, xb, isz, 2, osz, 2);
      } else {
        s = build_mlp(&S, wv, nw, B);
      }
    }
  }
  pte_writer_layout lay;
  memset(&lay, 0, sizeof lay);
  if (s == PTE_OK) s = pte_writer_compute_layout(S.w, &lay, &S.err);
  pte_cli_progress_phase(&prog, "writing");
  if (s == PTE_OK) s = pte_writer_write_file(S.w, out, &fo, &S.err);
  pte_cli_progress_end(&prog);
  int rc = PTE_EXIT_OK;
  if (s != PTE_OK) {
    rc = fail_status(s, &S.err);
  } else if (json) {
    jsonw jw;
    jw_init(&jw, stdout);
    jw_obj(&jw);
    jw_kstr(&jw, "output", out);
    jw_kstr(&jw, "model", kind);
    jw_kuint(&jw, "bytes", lay.file_size);
    jw_kstr(&jw, "delegate", xnn ? "XnnpackBackend" : "none");
    if (xnn) {
      jw_kuint(&jw, "delegates", S.n_delegates);
      jw_kuint(&jw, "delegate_calls", S.n_calls);
      jw_kuint(&jw, "named_tensors", S.n_keys);
      jw_kuint(&jw, "named_bytes", S.named_bytes);
    } else {
      jw_kuint(&jw, "constant_bytes", lay.constant_segment_size);
    }
    jw_key(&jw, "seconds");
    jw_double(&jw, secs_since(&t_start));
    jw_obj_end(&jw);
    jw_end(&jw);
  } else if (xnn) {
    double el = secs_since(&t_start);
    printf("wrote %s: %llu bytes (%s, XnnpackBackend: %zu delegate%s, %zu delegate call%s, blob %zu bytes, %zu named "
           "tensors %llu bytes) in %.2f s\n",
           out, (unsigned long long)lay.file_size, kind, S.n_delegates, S.n_delegates == 1 ? "" : "s", S.n_calls,
           S.n_calls == 1 ? "" : "s", S.blob.size, S.n_keys, (unsigned long long)S.named_bytes, el);
  } else {
    double el = secs_since(&t_start);
    printf("wrote %s: %llu bytes (%s, %zu generated tensors, constants %llu bytes) in %.2f s\n", out,
           (unsigned long long)lay.file_size, kind, S.n_gens, (unsigned long long)lay.constant_segment_size, el);
  }
  pte_writer_destroy(S.w);
  pte_xnn_builder_free(xb);
  pte_xnn_blob_free(&S.blob);
  free(S.gens);
  free(S.xgens);
  free(S.keys);
  free(S.hash_buf);
  return rc;
}

const pte_cli_verb pte_cli_verb_synth = {"synth", "generate benchmark/demo models (mlp, cnn, large, denoise, llama)", run_synth};
