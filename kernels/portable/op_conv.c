/* Convolution: aten::convolution.out(Tensor input, Tensor weight, Tensor? bias, SymInt[] stride,
 *   SymInt[] padding, SymInt[] dilation, bool transposed, SymInt[] output_padding, SymInt groups,
 *   *, Tensor(a!) out).
 *
 * 1-D ([N, C, L]) and 2-D ([N, C, H, W]) inputs, any dim order (NCHW, channels-last, ...): all
 * tensors are addressed through their strides (a 1-D convolution is a 2-D one with H = 1).
 * Parameter lists may hold one value (used for every spatial dim) or one per spatial dim.
 *
 * float32/float64, non-transposed, at least 4 output channels per group: an implicit-GEMM: per
 * (batch, group) out[Cout_g, P] = W_g[Cout_g, Cin_g*kH*kW] x col[Cin_g*kH*kW, P] where the
 * im2col matrix `col` is never materialised — the GEMM's panel packer gathers it straight from
 * the input (zero for padding), so no temp memory is needed. The reduction index follows the
 * weight's own memory order, so NCHW and channels-last weights both stream with unit stride.
 * Everything else (depthwise/small groups, float16/bfloat16, integer dtypes, odd layouts) uses a
 * direct strided loop accumulating in float (float32), double (other floating) or int64 with
 * wrap-around (integers). transposed=true is a direct scatter loop.
 */
#include <string.h>

#include "portable/portable_nn.h"
#include "portable/util/kutil.h"
#include "portable/util/kutil_nn.h"

/* As in kutil_nn.c: let GCC at -O2 vectorise the fixed-trip and row loops (standard pragma). */
#if defined(__GNUC__) && !defined(__clang__) && defined(__OPTIMIZE__) && !defined(__OPTIMIZE_SIZE__)
#pragma GCC optimize("O3")
#endif

typedef pte_nn_conv_geom conv_geom;

/* ---- float32 / float64 implicit GEMM ------------------------------------------------------ */

typedef struct conv_pack {
  const conv_geom *g;
  const void *x;     /* input data (typed by the packer) */
  int64_t xoff;      /* offset of (n, first channel of the group) */
  int64_t p0;        /* first output position (oh*OW + ow) of this GEMM */
  int32_t kord[3];   /* reduction dims (0 = ci, 1 = kh, 2 = kw), outermost first */
  int64_t ksz[3];    /* their sizes */
} conv_pack;

/* Decodes reduction index kidx into (ci, kh, kw) following the weight's memory order. */
static inline void decode_k(const conv_pack *c, int64_t kidx, int64_t out[3]) {
  for (int i = 2; i >= 0; i--) {
    out[c->kord[i]] = kidx % c->ksz[i];
    kidx /= c->ksz[i];
  }
}

/* Moves (ci, kh, kw) to the next reduction index. */
static inline void next_k(const conv_pack *c, int64_t cik[3]) {
  for (int i = 2; i >= 0; i--) {
    int32_t d = c->kord[i];
    if (++cik[d] < c->ksz[i]) return;
    cik[d] = 0;
  }
}

/* Packs rows k0..k0+kc of the implicit im2col matrix for output positions p0+j0 .. +nr. When
 * the nr positions lie in one output row (the common case) each packed row is a strided copy of
 * one input row with zero fill for the padding; otherwise every element is bounds-checked. */
#define PTE_CONV_DEFINE_PACK(NAME, T, NR)                                                          \
  static void NAME(void *vctx, int64_t k0, int64_t kc, int64_t j0, int64_t nr, T *bp) {            \
    const conv_pack *c = (const conv_pack *)vctx;                                                  \
    const conv_geom *g = c->g;                                                                     \
    const T *x = (const T *)c->x + c->xoff;                                                        \
    const int64_t pfirst = c->p0 + j0, plast = pfirst + nr - 1;                                    \
    const bool one_row = pfirst / g->OW == plast / g->OW;                                          \
    int64_t ih0[NR], iw0[NR];                                                                      \
    for (int64_t j = 0; j < nr; j++) {                                                             \
      int64_t p = pfirst + j;                                                                      \
      ih0[j] = (p / g->OW) * g->sH - g->pH;                                                        \
      iw0[j] = (p % g->OW) * g->sW - g->pW;                                                        \
    }                                                                                              \
    int64_t cik[3];                                                                                \
    decode_k(c, k0, cik);                                                                          \
    for (int64_t k = 0; k < kc; k++, next_k(c, cik)) {                                             \
      const int64_t dh = cik[1] * g->dH, dw = cik[2] * g->dW;                                      \
      const T *xc = x + cik[0] * g->si[1];                                                         \
      T *dst = bp + k * NR;                                                                        \
      int64_t j = 0;                                                                               \
      if (one_row) {                                                                               \
        const int64_t ih = ih0[0] + dh;                                                            \
        if (ih >= 0 && ih < g->H) {                                                                \
          const T *xr = xc + ih * g->si[2];                                                        \
          const int64_t st = g->sW * g->si[3];                                                     \
          for (; j < nr && iw0[j] + dw < 0; j++) dst[j] = (T)0;                                    \
          int64_t hi = nr;                                                                         \
          while (hi > j && iw0[hi - 1] + dw >= g->W) hi--;                                         \
          const int64_t base = (iw0[0] + dw) * g->si[3];                                           \
          for (; j < hi; j++) dst[j] = xr[base + j * st];                                          \
        }                                                                                          \
      } else {                                                                                     \
        for (; j < nr; j++) {                                                                      \
          const int64_t ih = ih0[j] + dh, iw = iw0[j] + dw;                                        \
          dst[j] = (ih >= 0 && ih < g->H && iw >= 0 && iw < g->W)                                  \
                       ? xc[ih * g->si[2] + iw * g->si[3]]                                         \
                       : (T)0;                                                                     \
        }                                                                                          \
      }                                                                                            \
      for (; j < NR; j++) dst[j] = (T)0;                                                           \
    }                                                                                              \
  }

PTE_CONV_DEFINE_PACK(conv_pack_f32, float, PTE_NN_NR_F32)
PTE_CONV_DEFINE_PACK(conv_pack_f64, double, PTE_NN_NR_F64)

/* Finds the memory order of the weight's (ci, kh, kw) dims; false unless they are dense. */
static bool weight_k_order(const conv_geom *g, conv_pack *c) {
  const int64_t sz[3] = {g->Cin_g, g->kH, g->kW};
  const int64_t st[3] = {g->sw[1], g->sw[2], g->sw[3]};
  int32_t ord[3] = {0, 1, 2};
  /* sort by stride descending; size-1 dims do not constrain the order */
  for (int a = 0; a < 3; a++)
    for (int b = a + 1; b < 3; b++) {
      int64_t sa = sz[ord[a]] == 1 ? -1 : st[ord[a]], sb = sz[ord[b]] == 1 ? -1 : st[ord[b]];
      if (sb > sa) {
        int32_t t = ord[a];
        ord[a] = ord[b];
        ord[b] = t;
      }
    }
  int64_t expect = 1;
  for (int i = 2; i >= 0; i--) {
    int32_t d = ord[i];
    if (sz[d] != 1 && st[d] != expect) return false;
    expect *= sz[d];
  }
  for (int i = 0; i < 3; i++) {
    c->kord[i] = ord[i];
    c->ksz[i] = sz[ord[i]];
  }
  return true;
}

static void conv_gemm(const conv_geom *g, const pte_tensor *in, const pte_tensor *w,
                      const pte_tensor *bias, pte_tensor *out, conv_pack *cp) {
  const bool f32 = in->dtype == PTE_DTYPE_FLOAT;
  const int64_t Kdim = g->Cin_g * g->kH * g->kW;
  /* weight offset of reduction index kidx is kidx itself (dense in kord order): column stride 1 */
  /* output positions flatten into one stride when rows are contiguous in the out view */
  const bool flat = g->OH == 1 || g->so[2] == g->OW * g->so[3];
  const int64_t rows = flat ? 1 : g->OH, P = flat ? g->OH * g->OW : g->OW;
  cp->g = g;
  cp->x = in->data;
  for (int64_t n = 0; n < g->N; n++) {
    for (int64_t grp = 0; grp < g->groups; grp++) {
      cp->xoff = n * g->si[0] + grp * g->Cin_g * g->si[1];
      const int64_t co0 = grp * g->Cout_g;
      for (int64_t r = 0; r < rows; r++) {
        cp->p0 = r * g->OW;
        const int64_t coff = n * g->so[0] + co0 * g->so[1] + r * g->so[2];
        if (bias) {
          for (int64_t m = 0; m < g->Cout_g; m++) {
            double bv = pte_k_load_double(bias->data, bias->dtype,
                                          pte_k_offset_of_linear(bias, (size_t)(co0 + m)));
            for (int64_t p = 0; p < P; p++) {
              int64_t o = coff + m * g->so[1] + p * g->so[3];
              if (f32)
                ((float *)out->data)[o] = (float)bv;
              else
                ((double *)out->data)[o] = bv;
            }
          }
        }
        if (f32) {
          pte_nn_gemm_f32(g->Cout_g, P, Kdim, 1.0f, (const float *)w->data + co0 * g->sw[0],
                          g->sw[0], 1, NULL, 0, 0, conv_pack_f32, cp, (float *)out->data + coff,
                          g->so[1], g->so[3], bias != NULL);
        } else {
          pte_nn_gemm_f64(g->Cout_g, P, Kdim, 1.0, (const double *)w->data + co0 * g->sw[0],
                          g->sw[0], 1, NULL, 0, 0, conv_pack_f64, cp, (double *)out->data + coff,
                          g->so[1], g->so[3], bias != NULL);
        }
      }
    }
  }
}

/* ---- direct loops ------------------------------------------------------------------------- */

/* float32: for each output row, a block of up to CONV_OWB outputs is accumulated in a local
 * array; each (ci, kh, kw) tap adds weight * (a strided run of one input row) over the range of
 * outputs whose tap falls inside the input, so the inner loop has no bounds checks (and is a
 * unit-stride vector loop for NCHW with stride 1). */
#define CONV_OWB 64

static void conv_direct_f32(const conv_geom *g, const float *x, const float *w,
                            const pte_tensor *bias, float *y) {
  float acc[CONV_OWB];
  for (int64_t n = 0; n < g->N; n++) {
    for (int64_t co = 0; co < g->Cout; co++) {
      const int64_t grp = co / g->Cout_g;
      const float *xg = x + n * g->si[0] + grp * g->Cin_g * g->si[1];
      const float *wc = w + co * g->sw[0];
      const float bv = bias ? (float)pte_k_load_double(bias->data, bias->dtype,
                                                       pte_k_offset_of_linear(bias, (size_t)co))
                            : 0.0f;
      for (int64_t oh = 0; oh < g->OH; oh++) {
        for (int64_t ow0 = 0; ow0 < g->OW; ow0 += CONV_OWB) {
          const int64_t len = g->OW - ow0 < CONV_OWB ? g->OW - ow0 : CONV_OWB;
          for (int64_t j = 0; j < len; j++) acc[j] = bv;
          for (int64_t ci = 0; ci < g->Cin_g; ci++) {
            for (int64_t kh = 0; kh < g->kH; kh++) {
              const int64_t ih = oh * g->sH - g->pH + kh * g->dH;
              if (ih < 0 || ih >= g->H) continue;
              const float *xr = xg + ci * g->si[1] + ih * g->si[2];
              for (int64_t kw = 0; kw < g->kW; kw++) {
                const float wv = wc[ci * g->sw[1] + kh * g->sw[2] + kw * g->sw[3]];
                const int64_t off = kw * g->dW - g->pW; /* iw = ow * sW + off */
                int64_t lo = off >= 0 ? 0 : (-off + g->sW - 1) / g->sW;
                int64_t hi = g->W - 1 - off < 0 ? 0 : (g->W - 1 - off) / g->sW + 1;
                if (lo < ow0) lo = ow0;
                if (hi > ow0 + len) hi = ow0 + len;
                const int64_t st = g->sW * g->si[3];
                if (st == 1) {
                  for (int64_t ow = lo; ow < hi; ow++) acc[ow - ow0] += wv * xr[off + ow];
                } else {
                  const int64_t base = off * g->si[3];
                  for (int64_t ow = lo; ow < hi; ow++) acc[ow - ow0] += wv * xr[base + ow * st];
                }
              }
            }
          }
          float *yr = y + n * g->so[0] + co * g->so[1] + oh * g->so[2] + ow0 * g->so[3];
          for (int64_t j = 0; j < len; j++) yr[j * g->so[3]] = acc[j];
        }
      }
    }
  }
}

static void conv_direct(const conv_geom *g, const pte_tensor *in, const pte_tensor *w,
                        const pte_tensor *bias, pte_tensor *out) {
  const int dt = in->dtype;
  const bool isf = pte_k_is_floating(dt);
  if (dt == PTE_DTYPE_FLOAT) {
    conv_direct_f32(g, (const float *)in->data, (const float *)w->data, bias, (float *)out->data);
    return;
  }
  for (int64_t n = 0; n < g->N; n++) {
    for (int64_t co = 0; co < g->Cout; co++) {
      const int64_t grp = co / g->Cout_g;
      const int64_t xb = n * g->si[0] + grp * g->Cin_g * g->si[1];
      const int64_t wb = co * g->sw[0];
      double bv = 0.0;
      int64_t ibv = 0;
      if (bias) {
        int64_t bo = pte_k_offset_of_linear(bias, (size_t)co);
        if (isf)
          bv = pte_k_load_double(bias->data, bias->dtype, bo);
        else
          ibv = pte_k_load_int64(bias->data, bias->dtype, bo);
      }
      for (int64_t oh = 0; oh < g->OH; oh++) {
        for (int64_t ow = 0; ow < g->OW; ow++) {
          const int64_t ih0 = oh * g->sH - g->pH, iw0 = ow * g->sW - g->pW;
          const int64_t oo = n * g->so[0] + co * g->so[1] + oh * g->so[2] + ow * g->so[3];
          if (isf) {
            double acc = bv;
            for (int64_t ci = 0; ci < g->Cin_g; ci++)
              for (int64_t kh = 0; kh < g->kH; kh++) {
                const int64_t ih = ih0 + kh * g->dH;
                if (ih < 0 || ih >= g->H) continue;
                for (int64_t kw = 0; kw < g->kW; kw++) {
                  const int64_t iw = iw0 + kw * g->dW;
                  if (iw < 0 || iw >= g->W) continue;
                  acc += pte_k_load_double(in->data, dt, xb + ci * g->si[1] + ih * g->si[2] + iw * g->si[3]) *
                         pte_k_load_double(w->data, dt, wb + ci * g->sw[1] + kh * g->sw[2] + kw * g->sw[3]);
                }
              }
            pte_k_store_double(out->data, dt, oo, acc);
          } else {
            uint64_t acc = (uint64_t)ibv;
            for (int64_t ci = 0; ci < g->Cin_g; ci++)
              for (int64_t kh = 0; kh < g->kH; kh++) {
                const int64_t ih = ih0 + kh * g->dH;
                if (ih < 0 || ih >= g->H) continue;
                for (int64_t kw = 0; kw < g->kW; kw++) {
                  const int64_t iw = iw0 + kw * g->dW;
                  if (iw < 0 || iw >= g->W) continue;
                  acc += (uint64_t)pte_k_load_int64(in->data, dt, xb + ci * g->si[1] + ih * g->si[2] + iw * g->si[3]) *
                         (uint64_t)pte_k_load_int64(w->data, dt, wb + ci * g->sw[1] + kh * g->sw[2] + kw * g->sw[3]);
                }
              }
            pte_k_store_int64(out->data, dt, oo, pte_k_wrap_u64(acc));
          }
        }
      }
    }
  }
}

/* Transposed convolution: every input element scatters into the outputs it contributes to.
 * Weight is [Cin, Cout/groups, kH, kW]. Accumulates in the out tensor for float32/float64 and
 * integers, through a double/int64 read-modify-write otherwise. */
static void conv_transposed(const conv_geom *g, const pte_tensor *in, const pte_tensor *w,
                            const pte_tensor *bias, pte_tensor *out) {
  const int dt = in->dtype;
  const bool isf = pte_k_is_floating(dt);
  /* out = bias (or 0) */
  for (int64_t n = 0; n < g->N; n++)
    for (int64_t co = 0; co < g->Cout; co++) {
      double bv = 0.0;
      int64_t ibv = 0;
      if (bias) {
        int64_t bo = pte_k_offset_of_linear(bias, (size_t)co);
        if (isf)
          bv = pte_k_load_double(bias->data, bias->dtype, bo);
        else
          ibv = pte_k_load_int64(bias->data, bias->dtype, bo);
      }
      for (int64_t oh = 0; oh < g->OH; oh++)
        for (int64_t ow = 0; ow < g->OW; ow++) {
          int64_t oo = n * g->so[0] + co * g->so[1] + oh * g->so[2] + ow * g->so[3];
          if (isf)
            pte_k_store_double(out->data, dt, oo, bv);
          else
            pte_k_store_int64(out->data, dt, oo, ibv);
        }
    }
  /* half/bfloat16 would round on every partial sum; accumulate those per output instead */
  const bool gather = dt == PTE_DTYPE_HALF || dt == PTE_DTYPE_BFLOAT16;
  if (gather) {
    for (int64_t n = 0; n < g->N; n++)
      for (int64_t co = 0; co < g->Cout; co++) {
        const int64_t grp = co / g->Cout_g, col = co % g->Cout_g;
        for (int64_t oh = 0; oh < g->OH; oh++)
          for (int64_t ow = 0; ow < g->OW; ow++) {
            int64_t oo = n * g->so[0] + co * g->so[1] + oh * g->so[2] + ow * g->so[3];
            double acc = pte_k_load_double(out->data, dt, oo);
            for (int64_t cil = 0; cil < g->Cin_g; cil++) {
              const int64_t ci = grp * g->Cin_g + cil;
              for (int64_t kh = 0; kh < g->kH; kh++) {
                int64_t th = oh + g->pH - kh * g->dH;
                if (th < 0 || th % g->sH) continue;
                int64_t ih = th / g->sH;
                if (ih >= g->H) continue;
                for (int64_t kw = 0; kw < g->kW; kw++) {
                  int64_t tw = ow + g->pW - kw * g->dW;
                  if (tw < 0 || tw % g->sW) continue;
                  int64_t iw = tw / g->sW;
                  if (iw >= g->W) continue;
                  acc += pte_k_load_double(in->data, dt, n * g->si[0] + ci * g->si[1] + ih * g->si[2] + iw * g->si[3]) *
                         pte_k_load_double(w->data, dt, ci * g->sw[0] + col * g->sw[1] + kh * g->sw[2] + kw * g->sw[3]);
                }
              }
            }
            pte_k_store_double(out->data, dt, oo, acc);
          }
      }
    return;
  }
  for (int64_t n = 0; n < g->N; n++)
    for (int64_t ci = 0; ci < g->Cin; ci++) {
      const int64_t grp = ci / g->Cin_g;
      for (int64_t ih = 0; ih < g->H; ih++)
        for (int64_t iw = 0; iw < g->W; iw++) {
          const int64_t xo = n * g->si[0] + ci * g->si[1] + ih * g->si[2] + iw * g->si[3];
          for (int64_t col = 0; col < g->Cout_g; col++) {
            const int64_t co = grp * g->Cout_g + col;
            for (int64_t kh = 0; kh < g->kH; kh++) {
              const int64_t oh = ih * g->sH - g->pH + kh * g->dH;
              if (oh < 0 || oh >= g->OH) continue;
              for (int64_t kw = 0; kw < g->kW; kw++) {
                const int64_t ow = iw * g->sW - g->pW + kw * g->dW;
                if (ow < 0 || ow >= g->OW) continue;
                const int64_t oo = n * g->so[0] + co * g->so[1] + oh * g->so[2] + ow * g->so[3];
                const int64_t wo = ci * g->sw[0] + col * g->sw[1] + kh * g->sw[2] + kw * g->sw[3];
                if (dt == PTE_DTYPE_FLOAT) {
                  ((float *)out->data)[oo] += ((const float *)in->data)[xo] * ((const float *)w->data)[wo];
                } else if (dt == PTE_DTYPE_DOUBLE) {
                  ((double *)out->data)[oo] += ((const double *)in->data)[xo] * ((const double *)w->data)[wo];
                } else {
                  uint64_t v = (uint64_t)pte_k_load_int64(out->data, dt, oo) +
                               (uint64_t)pte_k_load_int64(in->data, dt, xo) *
                                   (uint64_t)pte_k_load_int64(w->data, dt, wo);
                  pte_k_store_int64(out->data, dt, oo, pte_k_wrap_u64(v));
                }
              }
            }
          }
        }
    }
}

/* ---- the operator ------------------------------------------------------------------------- */

static void op_convolution(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  if (!pte_k_check_nargs(ctx, nargs, 10, 11)) return;
  pte_tensor *in = pte_k_arg_tensor(ctx, args, nargs, 0);
  pte_tensor *w = pte_k_arg_tensor(ctx, args, nargs, 1);
  bool ok;
  pte_tensor *bias = pte_k_arg_opt_tensor(ctx, args, nargs, 2, &ok);
  if (!in || !w || !ok) return;
  conv_geom g;
  if (!pte_nn_conv_geom_read(ctx, "convolution", args, nargs, 3, in, w, &g)) return;
  pte_tensor *out = pte_k_arg_tensor(ctx, args, nargs, 9);
  if (!out) return;
  /* dtypes: one floating or integer dtype throughout */
  const int dt = in->dtype;
  if (!pte_k_is_floating(dt) && !pte_k_is_integral(dt)) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "convolution: dtype %s not supported",
                    pte_dtype_name(dt));
    return;
  }
  if (w->dtype != dt || out->dtype != dt || (bias && bias->dtype != dt)) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "convolution: input, weight, bias and out must "
                    "share one dtype");
    return;
  }
  if (bias && (int64_t)bias->numel != g.Cout) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "convolution: bias must have %d elements",
                    (int)g.Cout);
    return;
  }
  if (out->dim != in->dim) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "convolution: out must be %d-D", (int)in->dim);
    return;
  }
  int32_t osz[4] = {(int32_t)g.N, (int32_t)g.Cout, (int32_t)g.OH, (int32_t)g.OW};
  if (g.one_d) osz[2] = (int32_t)g.OW;
  if (!pte_k_resize_out(ctx, out, osz, in->dim)) return;
  if (!pte_k_check_data(ctx, in, "input") || !pte_k_check_data(ctx, w, "weight") ||
      (bias && !pte_k_check_data(ctx, bias, "bias")))
    return;
  pte_nn_view4(in, g.si);
  pte_nn_view4(w, g.sw);
  pte_nn_view4(out, g.so);
  if (out->numel == 0) {
    pte_k_set_return(args, nargs, 9);
    return;
  }
  if (g.transposed) {
    conv_transposed(&g, in, w, bias, out);
  } else {
    conv_pack cp;
    memset(&cp, 0, sizeof cp);
    const bool gemm_ok = (dt == PTE_DTYPE_FLOAT || dt == PTE_DTYPE_DOUBLE) && g.Cout_g >= 4 &&
                         weight_k_order(&g, &cp);
    if (gemm_ok)
      conv_gemm(&g, in, w, bias, out, &cp);
    else
      conv_direct(&g, in, w, bias, out);
  }
  pte_k_set_return(args, nargs, 9);
}

const pte_kernel pte_portable_conv_kernels[] = {
    {"aten::convolution.out", NULL, op_convolution},
};
const size_t pte_portable_conv_kernels_count =
    sizeof pte_portable_conv_kernels / sizeof pte_portable_conv_kernels[0];
