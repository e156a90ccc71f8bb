/* llama_ref.c — see llama_ref.h. Written from the architecture description in
 * tools/cli/cmd_synth_llama.c and the llama reference model's published equations (RMSNorm,
 * rotary embeddings on adjacent pairs, grouped-query causal attention, SwiGLU); shares no code
 * with pte's kernels. Weights are held as the float values the generator defines; every sum is
 * a double. */
#include "llama_ref.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pte/kernel.h"
#include "pte/tensor.h"

struct llama_ref {
  llama_ref_cfg c;
  int hd;
  float *emb, *norm, *out;
  struct layer {
    float *an, *wq, *wk, *wv, *wo, *fn, *w1, *w3, *w2;
  } *L;
  double *kc, *vc; /* [layers][seq][kv_heads][hd] */
  uint32_t calls;  /* qd8 conversions since the last reset */
  llama_ref_tie ties[LLAMA_REF_MAX_TIES], flips[LLAMA_REF_MAX_FLIPS];
  size_t n_ties, n_flips;
};

float llama_ref_weight(uint64_t seed, uint32_t tid, float scale, float bias, uint32_t i) {
  uint32_t s = (uint32_t)((seed * 0x9E3779B97F4A7C15ull) >> 32) ^ (tid * 0x85EBCA6Bu);
  uint32_t r = i ^ s;
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
  return bias + (f - 1.5f) * 2.0f * scale;
}

static float *ref_gen(uint64_t seed, uint32_t tid, size_t n, float scale, float bias) {
  float *p = (float *)malloc(n * sizeof(float));
  if (!p) return NULL;
  for (size_t i = 0; i < n; i++) p[i] = llama_ref_weight(seed, tid, scale, bias, (uint32_t)i);
  return p;
}

/* bf16 of a float, round to nearest even (finite inputs) */
static float ref_bf16(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  u = (u + 0x7FFFu + ((u >> 16) & 1u)) & 0xFFFF0000u;
  memcpy(&f, &u, 4);
  return f;
}

/* 8da4w weights, the values the 4-bit filter represents (torchao's recipe, then XNNPACK's bf16
 * scales): per group of G inputs of a row, s = max(max|w| / 7.5, FLT_EPSILON) in fp32,
 * w' = bf16(s) * clamp(round_half_even(w / s), -8, 7). */
static float *ref_gen_q4(uint64_t seed, uint32_t tid, size_t rows, size_t cols, float scale, int group) {
  float *p = ref_gen(seed, tid, rows * cols, scale, 0.0f);
  if (!p || group <= 0) return p;
  for (size_t r = 0; r < rows; r++)
    for (size_t g = 0; g < cols; g += (size_t)group) {
      float *w = p + r * cols + g, mx = 0;
      for (int i = 0; i < group; i++) mx = fmaxf(mx, fabsf(w[i]));
      float s = fmaxf(mx / 7.5f, FLT_EPSILON), sb = ref_bf16(s);
      for (int i = 0; i < group; i++) {
        double q = nearbyint((double)(w[i] / s)); /* rounded with the fp32 scale */
        w[i] = (float)((q < -8 ? -8 : q > 7 ? 7 : q) * sb); /* applied with the stored bf16 one */
      }
    }
  return p;
}

/* Per-token dynamic int8, the qdint8 rule of docs/xnnpack.md (XNNPACK's f32 -> qd8 conversion,
 * whose parameters are computed in fp32: src/xnnpack/quantization.h,
 * xnn_f32_qd8_asymmetric_quantization_params): the input is the fp32 activation tensor of the
 * model, so the reference's double value is rounded to fp32 first; range [min(0, min), max(0, max)],
 * inv = 255 / (max - min) (1 if empty), the zero point nudged to an integer, q = clamp(rint(x * inv
 * + zp)) with an fp32 multiply and an fp32 add, scale 1 / inv in fp32; y = the dequantized values
 * (q - zp) * scale.
 * A rounding whose x * inv + zp lies within 2^-12 of a tie (16 fp32 ulps of the row's extreme
 * values) is recorded (llama_ref_ties): there the documented rule leaves the outcome to ulp-level
 * differences of the fp32 activation (whose operators do not fix their summation order), so the
 * other rounding is as valid; the roundings listed by llama_ref_set_flips go that other way. */
static void ref_qd8(llama_ref *r, const double *x, size_t n, double *y) {
  float mn = 0.0f, mx = 0.0f;
  for (size_t i = 0; i < n; i++) {
    const float f = (float)x[i];
    mn = f < mn ? f : mn;
    mx = f > mx ? f : mx;
  }
  const float inv = mx > mn ? 255.0f / (mx - mn) : 1.0f;
  const float rmin_s = mn * inv, rmax_s = mx * inv;
  float zp = (-128.0f + rmin_s) + (127.0f + rmax_s) > 0.0f ? -128.0f - rmin_s : 127.0f - rmax_s;
  zp = rintf(fminf(127.0f, fmaxf(-128.0f, zp)));
  const float scale = 1.0f / inv;
  const uint32_t call = r->calls++;
  for (size_t i = 0; i < n; i++) {
    const float xi = (float)x[i] * inv;
    const float v = xi + zp;
    float q = rintf(v);
    /* within 2^-12 of a tie: 16 fp32 ulps of the row's extreme values (|x * inv| in [128, 255]) */
    const double margin = fabs(fabs((double)v - (double)q) - 0.5), tau = 0x1p-12;
    const float other = q + ((double)v > (double)q ? 1.0f : -1.0f);
    if (margin <= tau && other >= -128.0f && other <= 127.0f && q >= -128.0f && q <= 127.0f) {
      bool flip = false;
      for (size_t k = 0; k < r->n_flips; k++) flip |= r->flips[k].call == call && r->flips[k].elem == (uint32_t)i;
      if (r->n_ties < LLAMA_REF_MAX_TIES)
        r->ties[r->n_ties++] = (llama_ref_tie){call, (uint32_t)i, (float)(margin / tau)};
      if (flip) q = other;
    }
    q = fminf(127.0f, fmaxf(-128.0f, q));
    y[i] = ((double)q - (double)zp) * (double)scale;
  }
}

void llama_ref_free(llama_ref *r) {
  if (!r) return;
  free(r->emb), free(r->norm), free(r->out);
  if (r->L)
    for (int l = 0; l < r->c.layers; l++) {
      struct layer *y = &r->L[l];
      free(y->an), free(y->wq), free(y->wk), free(y->wv), free(y->wo), free(y->fn), free(y->w1), free(y->w3),
          free(y->w2);
    }
  free(r->L), free(r->kc), free(r->vc);
  free(r);
}

llama_ref *llama_ref_new(const llama_ref_cfg *cfg) {
  if (!cfg || cfg->dim <= 0 || cfg->heads <= 0 || cfg->kv_heads <= 0 || cfg->dim % cfg->heads ||
      cfg->heads % cfg->kv_heads || (cfg->dim / cfg->heads) % 2)
    return NULL;
  llama_ref *r = (llama_ref *)calloc(1, sizeof *r);
  if (!r) return NULL;
  r->c = *cfg;
  if (!r->c.hidden) r->c.hidden = (4 * cfg->dim * 2 / 3 + 255) / 256 * 256;
  const llama_ref_cfg *c = &r->c;
  const size_t D = (size_t)c->dim, F = (size_t)c->hidden, V = (size_t)c->vocab;
  r->hd = c->dim / c->heads;
  const size_t QD = (size_t)c->heads * (size_t)r->hd, KD = (size_t)c->kv_heads * (size_t)r->hd;
  const float sD = 1.0f / sqrtf((float)D), sQ = 1.0f / sqrtf((float)QD), sF = 1.0f / sqrtf((float)F);
  const int G = c->quant ? c->group : 0;
  if (c->quant && (c->group <= 0 || D % (size_t)c->group || QD % (size_t)c->group || F % (size_t)c->group)) {
    free(r);
    return NULL;
  }
  r->L = (struct layer *)calloc((size_t)c->layers, sizeof *r->L);
  r->emb = ref_gen(c->seed, 0, V * D, 1.0f, 0.0f);
  bool ok = r->L && r->emb;
  for (int l = 0; l < c->layers && ok; l++) {
    uint32_t b = 1 + 9 * (uint32_t)l;
    struct layer *y = &r->L[l];
    y->an = ref_gen(c->seed, b + 0, D, 0.25f, 1.0f);
    y->wq = ref_gen_q4(c->seed, b + 1, QD, D, sD, G);
    y->wk = ref_gen_q4(c->seed, b + 2, KD, D, sD, G);
    y->wv = ref_gen_q4(c->seed, b + 3, KD, D, sD, G);
    y->wo = ref_gen_q4(c->seed, b + 4, D, QD, sQ, G);
    y->fn = ref_gen(c->seed, b + 5, D, 0.25f, 1.0f);
    y->w1 = ref_gen_q4(c->seed, b + 6, F, D, sD, G);
    y->w3 = ref_gen_q4(c->seed, b + 7, F, D, sD, G);
    y->w2 = ref_gen_q4(c->seed, b + 8, D, F, sF, G);
    ok = y->an && y->wq && y->wk && y->wv && y->wo && y->fn && y->w1 && y->w3 && y->w2;
  }
  if (ok) {
    r->norm = ref_gen(c->seed, 1 + 9 * (uint32_t)c->layers, D, 0.25f, 1.0f);
    r->out = ref_gen_q4(c->seed, 2 + 9 * (uint32_t)c->layers, V, D, sD, G);
    size_t cn = (size_t)c->layers * (size_t)c->seq * KD;
    r->kc = (double *)calloc(cn, sizeof(double));
    r->vc = (double *)calloc(cn, sizeof(double));
    ok = r->norm && r->out && r->kc && r->vc;
  }
  if (!ok) {
    llama_ref_free(r);
    return NULL;
  }
  return r;
}

static void ref_rmsnorm(const double *x, const float *w, size_t n, double *y) {
  double ss = 0;
  for (size_t i = 0; i < n; i++) ss += x[i] * x[i];
  double inv = 1.0 / sqrt(ss / (double)n + 1e-5);
  for (size_t i = 0; i < n; i++) y[i] = x[i] * inv * (double)w[i];
}

/* y[o] = sum_i W[o][i] x[i], W [out, in] row-major */
static void ref_matvec(const float *W, const double *x, size_t out, size_t in, double *y) {
  for (size_t o = 0; o < out; o++) {
    const float *row = W + o * in;
    double acc = 0;
    for (size_t i = 0; i < in; i++) acc += (double)row[i] * x[i];
    y[o] = acc;
  }
}

static void ref_rope(double *v, int nh, int hd, int p) {
  for (int h = 0; h < nh; h++)
    for (int j = 0; j < hd / 2; j++) {
      double ang = (double)p * pow(10000.0, -2.0 * j / (double)hd);
      double cs = cos(ang), sn = sin(ang);
      double *e = v + (size_t)h * (size_t)hd + 2 * (size_t)j;
      double re = e[0], im = e[1];
      e[0] = re * cs - im * sn;
      e[1] = re * sn + im * cs;
    }
}

/* The input of a delegated linear: per-token int8 for 8da4w, else as is (into buf). */
static const double *ref_lin_in(llama_ref *r, const double *x, size_t n, double *buf) {
  if (!r->c.quant) return x;
  ref_qd8(r, x, n, buf);
  return buf;
}

bool llama_ref_forward(llama_ref *r, const int64_t *tokens, int n, int pos, double *logits) {
  const llama_ref_cfg *c = &r->c;
  if (!tokens || n < 1 || pos < 0 || pos + n > c->seq || !logits) return false;
  for (int t = 0; t < n; t++)
    if (tokens[t] < 0 || tokens[t] >= c->vocab) return false;
  const size_t D = (size_t)c->dim, F = (size_t)c->hidden, hd = (size_t)r->hd;
  const size_t H = (size_t)c->heads, K = (size_t)c->kv_heads, QD = H * hd, KD = K * hd, S = (size_t)c->seq;
  double *x = (double *)malloc((size_t)n * D * sizeof(double));
  double *h = (double *)malloc(D * sizeof(double)), *q = (double *)malloc((size_t)n * QD * sizeof(double));
  double *k = (double *)malloc(KD * sizeof(double)), *v = (double *)malloc(KD * sizeof(double));
  double *att = (double *)malloc(QD * sizeof(double)), *o = (double *)malloc(D * sizeof(double));
  double *g = (double *)malloc(F * sizeof(double)), *u = (double *)malloc(F * sizeof(double));
  double *sc = (double *)malloc(S * sizeof(double));
  double *qb = (double *)malloc((D > F ? D : F) * sizeof(double) + QD * sizeof(double));
  bool ok = x && h && q && k && v && att && o && g && u && sc && qb;
  if (ok) {
    for (int t = 0; t < n; t++)
      for (size_t d = 0; d < D; d++) x[(size_t)t * D + d] = (double)r->emb[(size_t)tokens[t] * D + d];
    for (int l = 0; l < c->layers; l++) {
      const struct layer *y = &r->L[l];
      double *kc = r->kc + (size_t)l * S * KD, *vc = r->vc + (size_t)l * S * KD;
      /* projections + cache for every position first (the model updates the cache before SDPA) */
      for (int t = 0; t < n; t++) {
        ref_rmsnorm(x + (size_t)t * D, y->an, D, h);
        const double *hi = ref_lin_in(r, h, D, qb);
        ref_matvec(y->wq, hi, QD, D, q + (size_t)t * QD);
        ref_matvec(y->wk, hi, KD, D, k);
        ref_matvec(y->wv, hi, KD, D, v);
        ref_rope(q + (size_t)t * QD, (int)H, (int)hd, pos + t);
        ref_rope(k, (int)K, (int)hd, pos + t);
        memcpy(kc + (size_t)(pos + t) * KD, k, KD * sizeof(double));
        memcpy(vc + (size_t)(pos + t) * KD, v, KD * sizeof(double));
      }
      for (int t = 0; t < n; t++) {
        const int p = pos + t;
        for (size_t hh = 0; hh < H; hh++) {
          const size_t kh = hh / (H / K);
          const double *qv = q + (size_t)t * QD + hh * hd;
          double mx = -INFINITY;
          for (int j = 0; j <= p; j++) {
            double dot = 0;
            for (size_t e = 0; e < hd; e++) dot += qv[e] * kc[(size_t)j * KD + kh * hd + e];
            sc[j] = dot / sqrt((double)hd);
            if (sc[j] > mx) mx = sc[j];
          }
          double den = 0;
          for (int j = 0; j <= p; j++) den += (sc[j] = exp(sc[j] - mx));
          for (size_t e = 0; e < hd; e++) {
            double acc = 0;
            for (int j = 0; j <= p; j++) acc += sc[j] * vc[(size_t)j * KD + kh * hd + e];
            att[hh * hd + e] = acc / den;
          }
        }
        double *xt = x + (size_t)t * D;
        ref_matvec(y->wo, ref_lin_in(r, att, QD, qb), D, QD, o);
        for (size_t d = 0; d < D; d++) xt[d] += o[d];
        ref_rmsnorm(xt, y->fn, D, h);
        const double *h2 = ref_lin_in(r, h, D, qb);
        ref_matvec(y->w1, h2, F, D, g);
        ref_matvec(y->w3, h2, F, D, u);
        for (size_t f = 0; f < F; f++) g[f] = g[f] / (1.0 + exp(-g[f])) * u[f];
        ref_matvec(y->w2, ref_lin_in(r, g, F, qb), D, F, o);
        for (size_t d = 0; d < D; d++) xt[d] += o[d];
      }
    }
    ref_rmsnorm(x + (size_t)(n - 1) * D, r->norm, D, h);
    ref_matvec(r->out, ref_lin_in(r, h, D, qb), (size_t)c->vocab, D, logits);
  }
  free(x), free(h), free(q), free(k), free(v), free(att), free(o), free(g), free(u), free(sc), free(qb);
  return ok;
}

void llama_ref_reset(llama_ref *r) {
  const size_t cn = (size_t)r->c.layers * (size_t)r->c.seq * (size_t)r->c.kv_heads * (size_t)r->hd;
  memset(r->kc, 0, cn * sizeof(double));
  memset(r->vc, 0, cn * sizeof(double));
  r->calls = 0;
  r->n_ties = 0;
}

uint32_t llama_ref_calls(const llama_ref *r) { return r->calls; }

size_t llama_ref_ties(const llama_ref *r, const llama_ref_tie **ties) {
  *ties = r->ties;
  return r->n_ties;
}

bool llama_ref_set_flips(llama_ref *r, const llama_ref_tie *flips, size_t n) {
  if (n > LLAMA_REF_MAX_FLIPS || (n && !flips)) return false;
  if (n) memcpy(r->flips, flips, n * sizeof *flips);
  r->n_flips = n;
  return true;
}

/* ------------------------------------------------------------------ reference kernels */
static pte_tensor *ref_t(pte_evalue **args, size_t i) {
  return args[i] && args[i]->tag == PTE_TAG_TENSOR ? args[i]->u.tensor : NULL;
}

/* llama::update_cache.out(Tensor value, Tensor(a!) cache, SymInt start_pos, *, Tensor(b!) out) */
static void ref_update_cache(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  pte_tensor *val = nargs >= 4 ? ref_t(args, 0) : NULL, *cache = nargs >= 4 ? ref_t(args, 1) : NULL;
  if (!val || !cache || !args[2] || args[2]->tag != PTE_TAG_INT || val->dim != 4 || cache->dim != 4 ||
      val->dtype != PTE_DTYPE_FLOAT || cache->dtype != PTE_DTYPE_FLOAT) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "reference update_cache: bad arguments");
    return;
  }
  int64_t sp = args[2]->u.i, T = val->sizes[1];
  size_t row = (size_t)cache->sizes[2] * (size_t)cache->sizes[3];
  if (sp < 0 || sp + T > cache->sizes[1] || (size_t)val->sizes[2] * (size_t)val->sizes[3] != row) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "reference update_cache: start_pos %lld out of range",
                    (long long)sp);
    return;
  }
  memcpy((float *)cache->data + (size_t)sp * row, val->data, (size_t)T * row * sizeof(float));
}

/* llama::custom_sdpa.out(q, k, v, SymInt start_pos, Tensor? attn_mask, float dropout_p,
 * bool is_causal, float? scale, *, Tensor(a!) out); q [1, T, H, hd], k/v [1, S, K, hd]. */
static void ref_custom_sdpa(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  pte_tensor *q = nargs >= 9 ? ref_t(args, 0) : NULL, *kc = q ? ref_t(args, 1) : NULL, *vc = q ? ref_t(args, 2) : NULL;
  pte_tensor *out = q ? ref_t(args, 8) : NULL;
  if (!q || !kc || !vc || !out || !args[3] || args[3]->tag != PTE_TAG_INT || q->dim != 4 || kc->dim != 4) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "reference custom_sdpa: bad arguments");
    return;
  }
  if (pte_tensor_resize(out, q->sizes, 4) != PTE_OK) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "reference custom_sdpa: cannot resize out");
    return;
  }
  const int64_t sp = args[3]->u.i, T = q->sizes[1], H = q->sizes[2], hd = q->sizes[3], K = kc->sizes[2];
  const float *Q = (const float *)q->data, *Kd = (const float *)kc->data, *Vd = (const float *)vc->data;
  float *O = (float *)out->data;
  double sc[4096];
  if (sp + T > 4096 || sp + T > kc->sizes[1]) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "reference custom_sdpa: too long");
    return;
  }
  for (int64_t t = 0; t < T; t++)
    for (int64_t h = 0; h < H; h++) {
      const int64_t kh = h / (H / K), last = sp + t;
      const float *qv = Q + (t * H + h) * hd;
      double mx = -INFINITY, den = 0;
      for (int64_t j = 0; j <= last; j++) {
        double d = 0;
        for (int64_t e = 0; e < hd; e++) d += (double)qv[e] * Kd[(j * K + kh) * hd + e];
        sc[j] = d / sqrt((double)hd);
        if (sc[j] > mx) mx = sc[j];
      }
      for (int64_t j = 0; j <= last; j++) den += (sc[j] = exp(sc[j] - mx));
      for (int64_t e = 0; e < hd; e++) {
        double acc = 0;
        for (int64_t j = 0; j <= last; j++) acc += sc[j] * Vd[(j * K + kh) * hd + e];
        O[(t * H + h) * hd + e] = (float)(acc / den);
      }
    }
}

pte_status llama_ref_register_missing_kernels(void) {
  static const pte_kernel ks[2] = {{"llama::update_cache.out", NULL, ref_update_cache},
                                   {"llama::custom_sdpa.out", NULL, ref_custom_sdpa}};
  for (size_t i = 0; i < 2; i++) {
    if (pte_kernel_lookup(ks[i].name, NULL, NULL, 0)) continue;
    pte_status s = pte_register_kernels(&ks[i], 1);
    if (s != PTE_OK) return s;
  }
  return PTE_OK;
}
