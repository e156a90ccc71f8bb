/* llama::custom_sdpa.out and llama::sdpa_with_kv_cache.out: scaled dot-product attention of new
 * queries over a KV cache (semantics in include/pte/llm_kernels.h).
 *
 * Flash-style tiling: the query rows of a block of positions (every query head, up to SDPA_ROWS
 * rows, at least one position) are copied once, pre-multiplied by the scale and grouped by kv
 * head (grouped-query attention: the heads sharing a kv head read each K/V row once); keys are
 * walked in tiles of SDPA_KEYS (the inner loops take each cache row, all kv heads side by side,
 * in memory order), with a running maximum m, running sum l and an unnormalised accumulator per
 * row:
 *   s = q . k_j (+ mask), m' = max(m, max_j s), alpha = exp(m - m'), p_j = exp(s_j - m'),
 *   l = l alpha + sum p_j, acc = acc alpha + sum p_j v_j,
 * and out = acc / l at the end. Memory is O(rows x (keys + head_dim)) whatever the sequence
 * length; causal rows stop at their own position (keys past the last row of a block are never
 * read). The dot products, maxima, exponentials and accumulations are llm_attn_isa loops.
 */
#include <math.h>
#include <string.h>

#include "llm/llm_ops.h"

#define SDPA_ROWS 256 /* query rows (positions x query heads) per block */
#define SDPA_KEYS 256 /* keys per tile */

bool pte_llm_check_4d(pte_kernel_context *ctx, const char *op, const pte_tensor *t, const char *what) {
  if (t->dim != 4)
    PTE_K_BAD_FALSE("%s: %s must be a 4-D tensor [batch, seq, heads, head_dim], got rank %d", op, what,
                    (int)t->dim);
  for (int d = 0; d < 4; d++)
    if (t->dim_order[d] != d) PTE_K_BAD_FALSE("%s: %s must be in contiguous dim order", op, what);
  return true;
}

static bool sdpa_check_float(pte_kernel_context *ctx, const char *op, const pte_tensor *t, const char *what) {
  if (t->dtype != PTE_DTYPE_FLOAT)
    PTE_K_BAD_FALSE("%s: %s must be float32, got %s", op, what, pte_dtype_name(t->dtype));
  return true;
}

typedef struct sdpa_problem {
  const pte_tensor *q, *k, *v, *mask; /* mask NULL when absent */
  pte_tensor *out;
  int64_t start_pos;
  bool causal;
  float scale;
} sdpa_problem;

/* One call's work, split into `chunks` disjoint ranges of kv heads, each with its own scratch. */
typedef struct sdpa_job {
  const sdpa_problem *p;
  const llm_attn_isa *isa;
  float *scratch;
  size_t chunk_floats, chunks;
  int64_t P; /* positions per block */
  size_t T;  /* keys per tile */
} sdpa_job;

/* The attention for kv heads [g0, g0 + H) with scratch `buf`. */
static void sdpa_heads(const sdpa_job *job, int64_t g0, int64_t H, float *buf) {
  const sdpa_problem *p = job->p;
  const llm_attn_isa *isa = job->isa;
  const pte_tensor *q = p->q, *kc = p->k, *vc = p->v;
  const int64_t B = q->sizes[0], S = q->sizes[1], Hq = q->sizes[2], D = q->sizes[3];
  const int64_t G = Hq / kc->sizes[2];
  const int64_t kv_len = p->start_pos + S, P = job->P;
  const size_t T = job->T, Dz = (size_t)D;
  const size_t Rmax = (size_t)(P * G * H);
  float *qbuf = buf, *acc = qbuf + Rmax * Dz, *sc = acc + Rmax * Dz, *mrow = sc + Rmax * T, *lrow = mrow + Rmax,
        *alpha = lrow + Rmax;
  const float *qd = (const float *)q->data;
  const float *md = p->mask ? (const float *)p->mask->data : NULL;
  float *od = (float *)p->out->data;
  const size_t ks = (size_t)kc->strides[1], vs = (size_t)vc->strides[1];
  const int64_t mstride = p->mask ? p->mask->strides[0] : 0;

  for (int64_t b = 0; b < B; b++) {
    const float *kbat = (const float *)kc->data + b * kc->strides[0] + g0 * kc->strides[2];
    const float *vbat = (const float *)vc->data + b * vc->strides[0] + g0 * vc->strides[2];
    for (int64_t s0 = 0; s0 < S; s0 += P) {
      const int64_t Pn = S - s0 < P ? S - s0 : P;
      const size_t Rg = (size_t)(Pn * G), Rn = (size_t)(Pn * G * H);
      /* row g * Rg + i: kv head g0 + g, position s0 + i / G, query head (g0 + g) * G + i % G */
      for (int64_t g = 0; g < H; g++)
        for (size_t i = 0; i < Rg; i++) {
          const int64_t s = s0 + (int64_t)i / G, h = (g0 + g) * G + (int64_t)i % G;
          const float *qr = qd + b * q->strides[0] + s * q->strides[1] + h * q->strides[2];
          float *dst = qbuf + ((size_t)g * Rg + i) * Dz;
          for (size_t d = 0; d < Dz; d++) dst[d] = qr[d] * p->scale;
        }
      for (size_t i = 0; i < Rn; i++) mrow[i] = -INFINITY, lrow[i] = 0.0f;
      memset(acc, 0, Rn * Dz * sizeof(float));
      const int64_t nkeys = p->causal && p->start_pos + s0 + Pn < kv_len ? p->start_pos + s0 + Pn : kv_len;
      for (int64_t j0 = 0; j0 < nkeys; j0 += (int64_t)T) {
        const size_t Tn = (size_t)(nkeys - j0 < (int64_t)T ? nkeys - j0 : (int64_t)T);
        isa->qk((size_t)H, Rg, Tn, Dz, qbuf, kbat + (size_t)j0 * ks, ks, (size_t)kc->strides[2], sc, T);
        for (size_t r = 0; r < Rn; r++) {
          float *row = sc + r * T;
          const int64_t s = s0 + (int64_t)(r % Rg) / G;
          if (md) {
            const float *mr = md + s * mstride + j0;
            for (size_t t = 0; t < Tn; t++) row[t] += mr[t];
          }
          size_t valid = Tn;
          if (p->causal) {
            const int64_t lim = p->start_pos + s + 1 - j0;
            valid = lim <= 0 ? 0 : (lim < (int64_t)Tn ? (size_t)lim : Tn);
            for (size_t t = valid; t < Tn; t++) row[t] = -INFINITY;
          }
          const float tmax = valid ? isa->rowmax(valid, row) : -INFINITY;
          const float mnew = tmax > mrow[r] ? tmax : mrow[r];
          if (mnew == -INFINITY) { /* nothing visible yet: contributes nothing */
            alpha[r] = 1.0f;
            memset(row, 0, Tn * sizeof(float));
            continue;
          }
          alpha[r] = expf(mrow[r] - mnew);
          lrow[r] = lrow[r] * alpha[r] + isa->expsum(Tn, row, mnew);
          mrow[r] = mnew;
        }
        isa->pv((size_t)H, Rg, Tn, Dz, sc, T, vbat + (size_t)j0 * vs, vs, (size_t)vc->strides[2], alpha, acc);
      }
      for (int64_t g = 0; g < H; g++)
        for (size_t i = 0; i < Rg; i++) {
          const size_t r = (size_t)g * Rg + i;
          const int64_t s = s0 + (int64_t)i / G, h = (g0 + g) * G + (int64_t)i % G;
          float *orow = od + b * p->out->strides[0] + s * p->out->strides[1] + h * p->out->strides[2];
          const float inv = lrow[r] > 0.0f ? 1.0f / lrow[r] : 0.0f;
          for (size_t d = 0; d < Dz; d++) orow[d] = acc[r * Dz + d] * inv;
        }
    }
  }
}

/* Part `part` of `nparts`: chunks [part * chunks / nparts, (part + 1) * chunks / nparts). */
static void sdpa_part(void *ctx, size_t part, size_t nparts) {
  const sdpa_job *job = (const sdpa_job *)ctx;
  const int64_t Hkv = job->p->k->sizes[2];
  const size_t c0 = part * job->chunks / nparts, c1 = (part + 1) * job->chunks / nparts;
  for (size_t c = c0; c < c1; c++) {
    const int64_t g0 = (int64_t)c * Hkv / (int64_t)job->chunks, g1 = (int64_t)(c + 1) * Hkv / (int64_t)job->chunks;
    if (g1 > g0) sdpa_heads(job, g0, g1 - g0, job->scratch + c * job->chunk_floats);
  }
}

/* The attention proper, on checked arguments: scratch for every chunk of kv heads (one chunk per
 * thread), then the chunks on the pool. */
static bool sdpa_compute(pte_kernel_context *ctx, const char *op, const sdpa_problem *p) {
  const pte_tensor *q = p->q;
  const int64_t S = q->sizes[1], Hq = q->sizes[2], D = q->sizes[3];
  const int64_t Hkv = p->k->sizes[2], G = Hq / Hkv;
  const int64_t kv_len = p->start_pos + S;
  sdpa_job job;
  memset(&job, 0, sizeof job);
  job.p = p;
  job.isa = pte_llm_attn_current();
  /* positions per block: every query head of P positions (at least one position) */
  const int64_t P0 = SDPA_ROWS / Hq > 1 ? SDPA_ROWS / Hq : 1;
  job.P = P0 < S ? P0 : S;
  job.T = (size_t)(kv_len < SDPA_KEYS ? kv_len : SDPA_KEYS);
  /* small calls (a decode step over a short context) stay on this thread: waking the pool costs
   * more than they take */
  const uint64_t macs = 2ull * (uint64_t)S * (uint64_t)kv_len * (uint64_t)Hq * (uint64_t)D;
  const int threads = macs < pte_llm_kernels_min_parallel_work() ? 1 : pte_llm_kernels_threads();
  job.chunks = (size_t)(threads < Hkv ? threads : Hkv);
  /* scratch per chunk (at most ceil(Hkv / chunks) heads): qbuf [R x D], acc [R x D],
   * scores [R x T], m, l, alpha [R] */
  const int64_t hmax = (Hkv + (int64_t)job.chunks - 1) / (int64_t)job.chunks;
  const size_t R = (size_t)(job.P * G * hmax);
  job.chunk_floats = (2 * R * (size_t)D + R * job.T + 3 * R + 15) / 16 * 16;
  const size_t nfloats = job.chunks == 1 ? 2 * R * (size_t)D + R * job.T + 3 * R : job.chunks * job.chunk_floats;
  job.scratch = pte_kernel_alloc_temp(ctx, nfloats * sizeof(float), 64);
  if (!job.scratch) {
    pte_kernel_fail(ctx, PTE_ERR_MEMORY_ALLOCATION_FAILED,
                    "%s: needs %zu bytes of temp memory for its tiles (%s)", op, nfloats * sizeof(float),
                    ctx->temp ? "the temp allocator is too small" : "no temp allocator");
    return false;
  }
  pte_llm_parallel(sdpa_part, &job, job.chunks);
  return true;
}

/* Checks the attention arguments (query, caches, mask, out) and resizes out. */
static bool sdpa_check(pte_kernel_context *ctx, const char *op, sdpa_problem *p, bool has_scale, double scale) {
  const pte_tensor *q = p->q, *kc = p->k, *vc = p->v;
  if (!pte_llm_check_4d(ctx, op, q, "query") || !pte_llm_check_4d(ctx, op, kc, "key cache") ||
      !pte_llm_check_4d(ctx, op, vc, "value cache"))
    return false;
  if (!sdpa_check_float(ctx, op, q, "query") || !sdpa_check_float(ctx, op, kc, "key cache") ||
      !sdpa_check_float(ctx, op, vc, "value cache") || !sdpa_check_float(ctx, op, p->out, "out"))
    return false;
  const int64_t B = q->sizes[0], S = q->sizes[1], Hq = q->sizes[2], D = q->sizes[3];
  if (kc->sizes[0] != B || vc->sizes[0] != B)
    PTE_K_BAD_FALSE("%s: batch differs: query %lld, key cache %d, value cache %d", op, (long long)B,
                    (int)kc->sizes[0], (int)vc->sizes[0]);
  if (kc->sizes[3] != D || vc->sizes[3] != D)
    PTE_K_BAD_FALSE("%s: head_dim differs: query %lld, key cache %d, value cache %d", op, (long long)D,
                    (int)kc->sizes[3], (int)vc->sizes[3]);
  const int64_t Hkv = kc->sizes[2];
  if (vc->sizes[2] != Hkv)
    PTE_K_BAD_FALSE("%s: key cache has %lld heads but value cache %d", op, (long long)Hkv, (int)vc->sizes[2]);
  if (Hkv <= 0 || Hq % Hkv != 0)
    PTE_K_BAD_FALSE("%s: query heads (%lld) must be a multiple of the kv heads (%lld)", op, (long long)Hq,
                    (long long)Hkv);
  if (p->start_pos < 0) PTE_K_BAD_FALSE("%s: start_pos %lld is negative", op, (long long)p->start_pos);
  if (p->start_pos + S > kc->sizes[1] || p->start_pos + S > vc->sizes[1])
    PTE_K_BAD_FALSE("%s: start_pos %lld + seq_len %lld exceeds the cache length (key %d, value %d)", op,
                    (long long)p->start_pos, (long long)S, (int)kc->sizes[1], (int)vc->sizes[1]);
  const pte_tensor *mask = p->mask;
  if (mask && mask->numel == 0) mask = p->mask = NULL; /* an empty mask is no mask */
  if (mask) {
    if (p->causal) PTE_K_BAD_FALSE("%s: attn_mask and is_causal cannot both be set", op);
    if (!sdpa_check_float(ctx, op, mask, "attn_mask")) return false;
    if (mask->dim != 2 || mask->sizes[0] != S || mask->sizes[1] != p->start_pos + S)
      PTE_K_BAD_FALSE("%s: attn_mask must be [seq_len %lld, start_pos + seq_len %lld], got rank %d", op,
                      (long long)S, (long long)(p->start_pos + S), (int)mask->dim);
    if (mask->dim_order[0] != 0) PTE_K_BAD_FALSE("%s: attn_mask must be in contiguous dim order", op);
    if (!pte_k_check_data(ctx, mask, "attn_mask")) return false;
  }
  if (has_scale && !isfinite(scale)) PTE_K_BAD_FALSE("%s: scale must be finite, got %g", op, scale);
  p->scale = has_scale ? (float)scale : (float)(1.0 / sqrt((double)(D > 0 ? D : 1)));
  if (!pte_k_resize_like(ctx, p->out, q)) return false;
  if (!pte_llm_check_4d(ctx, op, p->out, "out")) return false;
  if (!pte_k_check_data(ctx, q, "query") || !pte_k_check_data(ctx, kc, "key cache") ||
      !pte_k_check_data(ctx, vc, "value cache") || !pte_k_check_data(ctx, p->out, "out"))
    return false;
  return true;
}

/* Runs a checked problem (nothing to do when some size is 0). */
static bool sdpa_run(pte_kernel_context *ctx, const char *op, const sdpa_problem *p) {
  if (p->out->numel == 0) return true;
  return sdpa_compute(ctx, op, p);
}

/* Reads (attn_mask?, drpout_p, is_causal, scale?) starting at args[i]. */
static bool sdpa_tail_args(pte_kernel_context *ctx, pte_evalue **args, size_t nargs, size_t i, sdpa_problem *p,
                           bool *has_scale, double *scale) {
  bool ok = true;
  p->mask = pte_k_arg_opt_tensor(ctx, args, nargs, i, &ok);
  if (!ok) return false;
  double drop = 0;
  if (!pte_k_arg_double(ctx, args, nargs, i + 1, &drop) || !pte_k_arg_bool(ctx, args, nargs, i + 2, &p->causal))
    return false;
  *has_scale = !pte_k_arg_is_none(args, nargs, i + 3);
  *scale = 0;
  if (*has_scale && !pte_k_arg_double(ctx, args, nargs, i + 3, scale)) return false;
  return true;
}

/* custom_sdpa.out(query, key, value, start_pos, attn_mask?, drpout_p, is_causal, scale?, *, out) */
static void llama_custom_sdpa_out(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  static const char op[] = "llama::custom_sdpa";
  if (!pte_k_check_nargs(ctx, nargs, 9, 10)) return;
  sdpa_problem p;
  memset(&p, 0, sizeof p);
  p.q = pte_k_arg_tensor(ctx, args, nargs, 0);
  p.k = pte_k_arg_tensor(ctx, args, nargs, 1);
  p.v = pte_k_arg_tensor(ctx, args, nargs, 2);
  if (!p.q || !p.k || !p.v || !pte_k_arg_int(ctx, args, nargs, 3, &p.start_pos)) return;
  bool has_scale = false;
  double scale = 0;
  if (!sdpa_tail_args(ctx, args, nargs, 4, &p, &has_scale, &scale)) return;
  if (!(p.out = pte_k_arg_tensor(ctx, args, nargs, 8))) return;
  if (!sdpa_check(ctx, op, &p, has_scale, scale) || !sdpa_run(ctx, op, &p)) return;
  pte_k_set_return(args, nargs, 8);
}

/* sdpa_with_kv_cache.out(query, key, value, key_cache, value_cache, start_pos, seq_len,
 *                        attn_mask?, drpout_p, is_causal, scale?, *, out) */
static void llama_sdpa_with_kv_cache_out(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  static const char op[] = "llama::sdpa_with_kv_cache";
  if (!pte_k_check_nargs(ctx, nargs, 12, 13)) return;
  sdpa_problem p;
  memset(&p, 0, sizeof p);
  p.q = pte_k_arg_tensor(ctx, args, nargs, 0);
  pte_tensor *key = pte_k_arg_tensor(ctx, args, nargs, 1);
  pte_tensor *value = pte_k_arg_tensor(ctx, args, nargs, 2);
  pte_tensor *kc = pte_k_arg_tensor(ctx, args, nargs, 3);
  pte_tensor *vc = pte_k_arg_tensor(ctx, args, nargs, 4);
  int64_t seq_len = 0;
  if (!p.q || !key || !value || !kc || !vc || !pte_k_arg_int(ctx, args, nargs, 5, &p.start_pos) ||
      !pte_k_arg_int(ctx, args, nargs, 6, &seq_len))
    return;
  bool has_scale = false;
  double scale = 0;
  if (!sdpa_tail_args(ctx, args, nargs, 7, &p, &has_scale, &scale)) return;
  if (!(p.out = pte_k_arg_tensor(ctx, args, nargs, 11))) return;
  if (seq_len < 0) PTE_K_BAD("%s: seq_len %lld is negative", op, (long long)seq_len);
  if (!pte_llm_check_4d(ctx, op, kc, "key cache") || !pte_llm_check_4d(ctx, op, vc, "value cache")) return;
  if (p.start_pos < 0 || p.start_pos >= kc->sizes[1] || p.start_pos >= vc->sizes[1] ||
      seq_len > kc->sizes[1] - p.start_pos || seq_len > vc->sizes[1] - p.start_pos)
    PTE_K_BAD("%s: start_pos %lld + seq_len %lld exceeds the cache length (key %d, value %d)", op,
              (long long)p.start_pos, (long long)seq_len, (int)kc->sizes[1], (int)vc->sizes[1]);
  if (!sdpa_check_float(ctx, op, key, "key") || !sdpa_check_float(ctx, op, value, "value") ||
      !sdpa_check_float(ctx, op, kc, "key cache") || !sdpa_check_float(ctx, op, vc, "value cache"))
    return;
  p.k = kc;
  p.v = vc;
  /* every check before the caches change */
  if (!sdpa_check(ctx, op, &p, has_scale, scale) ||
      !pte_llm_update_cache(ctx, op, key, kc, p.start_pos, "key cache", false) ||
      !pte_llm_update_cache(ctx, op, value, vc, p.start_pos, "value cache", false))
    return;
  if (key->sizes[1] != p.q->sizes[1] || value->sizes[1] != p.q->sizes[1])
    PTE_K_BAD("%s: key and value must have the query's seq_len %d (got %d and %d)", op, (int)p.q->sizes[1],
              (int)key->sizes[1], (int)value->sizes[1]);
  pte_llm_update_cache(ctx, op, key, kc, p.start_pos, "key cache", true);
  pte_llm_update_cache(ctx, op, value, vc, p.start_pos, "value cache", true);
  if (!sdpa_run(ctx, op, &p)) return;
  pte_k_set_return(args, nargs, 11);
}

const pte_kernel pte_llm_sdpa_kernels[] = {
    {"llama::custom_sdpa.out", NULL, llama_custom_sdpa_out},
    {"llama::sdpa_with_kv_cache.out", NULL, llama_sdpa_with_kv_cache_out},
};
const size_t pte_llm_sdpa_kernels_count = sizeof pte_llm_sdpa_kernels / sizeof pte_llm_sdpa_kernels[0];
