/* Elementwise nodes: binary arithmetic (NumPy broadcasting collapsed to vv / vs / sv kernel
 * calls per row, or a strided scalar loop), unary math (vector kernels of xnn_vmath.h; Gelu
 * and Sin through libm), the fused SiLU, softmax. Quantized operands go through fp32. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "xnn_ops.h"

typedef float (*binop_fn)(float a, float b, float p);
static float op_add(float a, float b, float p) { (void)p; return a + b; }
static float op_sub(float a, float b, float p) { (void)p; return a - b; }
static float op_mul(float a, float b, float p) { (void)p; return a * b; }
static float op_div(float a, float b, float p) { (void)p; return a / b; }
static float op_min(float a, float b, float p) { (void)p; return a < b ? a : (b < a ? b : (isnan(a) ? a : b)); }
static float op_max(float a, float b, float p) { (void)p; return a > b ? a : (b > a ? b : (isnan(a) ? a : b)); }
static float op_prelu(float a, float b, float p) { (void)p; return a < 0.0f ? a * b : a; }

/* scalar definitions by PTE_XNN_B_* (strided rows and quantized operands) */
static const binop_fn k_binops[PTE_XNN_B_COUNT] = {op_add, op_sub, op_mul, op_div, op_min, op_max, op_prelu};

/* Strides (elements) of a value broadcast to an output of rank r. */
void pte_xnn_bstrides(const pte_xnn_value *v, unsigned r, const size_t *odims, size_t *st) {
  size_t s = 1;
  for (int i = (int)r - 1; i >= 0; i--) {
    int vi = i - (int)(r - v->rank);
    size_t dv = vi >= 0 ? v->shape[vi] : 1;
    st[i] = (dv == 1 && odims[i] != 1) ? 0 : s;
    if (vi >= 0) s *= dv;
  }
}

typedef struct bin_job {
  pte_xnn_delegate *d;
  const pte_xnn_kernels *k;
  const pte_xnn_node *n;
  const pte_xnn_value *a, *b, *o;
  unsigned r;          /* collapsed rank */
  size_t dims[PTE_XNN_MAX_DIMS], sa[PTE_XNN_MAX_DIMS], sb[PTE_XNN_MAX_DIMS];
  size_t inner, outer;
  binop_fn fn;
  const pte_xnn_f32_binary_fn *vfn; /* [PTE_XNN_BS_*] */
} bin_job;

static void bin_rows(const bin_job *j, size_t o0, size_t o1) {
  const unsigned r = j->r;
  const size_t inner = j->inner;
  const size_t sai = j->sa[r - 1], sbi = j->sb[r - 1];
  const bool q = j->o->dtype != PTE_XD_FP32;
  float vmin = j->n->out_min, vmax = j->n->out_max;
  float buf_a[256], buf_b[256], buf_o[256];
  for (size_t o = o0; o < o1; o++) {
    size_t offa = 0, offb = 0;
    if (r == 2) { /* the common collapsed case: [outer, inner] */
      offa = o * j->sa[0];
      offb = o * j->sb[0];
    } else {
      size_t rem = o;
      for (int i = (int)r - 2; i >= 0; i--) {
        size_t idx = rem % j->dims[i];
        rem /= j->dims[i];
        offa += idx * j->sa[i];
        offb += idx * j->sb[i];
      }
    }
    const size_t out_off = o * inner;
    if (!q) {
      const float *pa = (const float *)j->a->data + offa, *pb = (const float *)j->b->data + offb;
      float *po = (float *)j->o->data + out_off;
      if (sai == 1 && sbi == 1) {
        j->vfn[PTE_XNN_BS_VV](inner, pa, pb, po, vmin, vmax);
      } else if (sai == 1 && sbi == 0) {
        j->vfn[PTE_XNN_BS_VS](inner, pa, pb, po, vmin, vmax);
      } else if (sai == 0 && sbi == 1) {
        j->vfn[PTE_XNN_BS_SV](inner, pa, pb, po, vmin, vmax);
      } else {
        for (size_t i = 0; i < inner; i++) po[i] = pte_xnn_clampf(j->fn(pa[i * sai], pb[i * sbi], 0.0f), vmin, vmax);
      }
    } else {
      for (size_t i0 = 0; i0 < inner; i0 += 256) {
        size_t cnt = inner - i0 < 256 ? inner - i0 : 256;
        /* dequantize a block of both operands, the fp32 vector kernel, requantize */
        for (size_t i = 0; i < cnt; i++) {
          buf_a[i] = xo_load_q(j->a, j->a->data, offa + (i0 + i) * sai);
          buf_b[i] = xo_load_q(j->b, j->b->data, offb + (i0 + i) * sbi);
        }
        j->vfn[PTE_XNN_BS_VV](cnt, buf_a, buf_b, buf_o, vmin, vmax);
        for (size_t i = 0; i < cnt; i++) xo_store_q(j->o, j->o->data, out_off + i0 + i, buf_o[i]);
      }
    }
  }
}

static void bin_task(void *ctx, size_t item, int tid) {
  (void)tid;
  const bin_job *j = (const bin_job *)ctx;
  const size_t per = (j->outer + 63) / 64;
  size_t o0 = item * per, o1 = o0 + per < j->outer ? o0 + per : j->outer;
  if (o0 < o1) bin_rows(j, o0, o1);
}

/* Splits a contiguous fp32 elementwise pass over the pool (chunks of 16 KiB and more). */
typedef struct ew_job {
  const pte_xnn_node *n;
  pte_xnn_f32_unary_fn fn;
  pte_xnn_uparams prm;
  const float *x;
  float *y;
  size_t numel, chunk;
  bool clamp_after; /* SiLU with a finite fused clamp */
  pte_xnn_f32_unary_fn clamp;
} ew_job;

static void ew_range(const ew_job *j, size_t i0, size_t i1) {
  j->fn(i1 - i0, j->x + i0, j->y + i0, &j->prm);
  if (j->clamp_after) j->clamp(i1 - i0, j->y + i0, j->y + i0, &j->prm);
}

static void ew_task(void *ctx, size_t item, int tid) {
  (void)tid;
  const ew_job *j = (const ew_job *)ctx;
  const size_t i0 = item * j->chunk, i1 = i0 + j->chunk < j->numel ? i0 + j->chunk : j->numel;
  if (i0 < i1) ew_range(j, i0, i1);
}

static void ew_run(pte_xnn_exec *x, ew_job *j) {
  if (x->threads > 1 && j->numel >= 65536) {
    const size_t parts = (size_t)x->threads * 4;
    j->chunk = ((j->numel + parts - 1) / parts + 15) & ~(size_t)15;
    pte_xnn_parallel(x->pool, ew_task, j, (j->numel + j->chunk - 1) / j->chunk);
  } else {
    ew_range(j, 0, j->numel);
  }
}

pte_status pte_xnn_run_binary(pte_xnn_exec *x, const pte_xnn_node *n) {
  pte_xnn_delegate *d = x->d;
  if (n->fuse == PTE_XNN_FUSE_SILU) {
    const pte_xnn_value *a = V(n->in[0]), *o = V(n->out[0]);
    ew_job e;
    memset(&e, 0, sizeof e);
    e.n = n;
    e.fn = x->vec->unary[PTE_XNN_U_SILU];
    e.prm.vmin = n->out_min;
    e.prm.vmax = n->out_max;
    e.x = (const float *)a->data;
    e.y = (float *)o->data;
    e.numel = o->numel;
    e.clamp_after = !(isinf(n->out_min) && n->out_min < 0) || !(isinf(n->out_max) && n->out_max > 0);
    e.clamp = x->vec->unary[PTE_XNN_U_CLAMP];
    ew_run(x, &e);
    return PTE_OK;
  }
  bin_job j;
  memset(&j, 0, sizeof j);
  j.d = d;
  j.k = x->k;
  j.n = n;
  j.a = V(n->in[0]);
  j.b = V(n->in[1]);
  j.o = V(n->out[0]);
  j.fn = k_binops[pte_xnn_kind_of(n->type)->vop];
  j.vfn = x->vec->binary[pte_xnn_kind_of(n->type)->vop];
  const unsigned r = j.o->rank;
  size_t sa[PTE_XNN_MAX_DIMS], sb[PTE_XNN_MAX_DIMS];
  pte_xnn_bstrides(j.a, r, j.o->shape, sa);
  pte_xnn_bstrides(j.b, r, j.o->shape, sb);
  if (j.o->numel == 0) return PTE_OK;
  /* collapse dims: drop size-1 dims, merge neighbours with matching contiguity */
  unsigned cr = 0;
  for (unsigned i = 0; i < r; i++) {
    if (j.o->shape[i] == 1) continue;
    if (cr > 0) {
      unsigned p = cr - 1;
      bool a_ok = (sa[i] == 0 && j.sa[p] == 0) || (sa[i] != 0 && j.sa[p] == sa[i] * j.o->shape[i]);
      bool b_ok = (sb[i] == 0 && j.sb[p] == 0) || (sb[i] != 0 && j.sb[p] == sb[i] * j.o->shape[i]);
      if (a_ok && b_ok) {
        j.dims[p] *= j.o->shape[i];
        j.sa[p] = sa[i];
        j.sb[p] = sb[i];
        continue;
      }
    }
    j.dims[cr] = j.o->shape[i];
    j.sa[cr] = sa[i];
    j.sb[cr] = sb[i];
    cr++;
  }
  if (cr == 0) {
    j.dims[0] = 1;
    j.sa[0] = j.sb[0] = 1;
    cr = 1;
  }
  j.r = cr;
  j.inner = j.dims[cr - 1];
  j.outer = j.o->numel / j.inner;
  if (x->threads > 1 && j.o->numel >= 65536) {
    pte_xnn_parallel(x->pool, bin_task, &j, 64);
  } else {
    bin_rows(&j, 0, j.outer);
  }
  return PTE_OK;
}

pte_status pte_xnn_run_unary(pte_xnn_exec *x, const pte_xnn_node *n) {
  pte_xnn_delegate *d = x->d;
  const pte_xnn_value *a = V(n->in[0]), *o = V(n->out[0]);
  ew_job e;
  memset(&e, 0, sizeof e);
  e.n = n;
  const int u = pte_xnn_kind_of(n->type)->vop;
  e.fn = x->vec->unary[u];
  e.prm.vmin = n->out_min;
  e.prm.vmax = n->out_max;
  e.prm.alpha = n->type == pte_xn_XNodeUnion_XNNELU ? n->p.elu.alpha : n->p.leaky.slope;
  if (xo_f32(a)) {
    e.x = (const float *)a->data;
    e.y = (float *)o->data;
    e.numel = a->numel;
    ew_run(x, &e);
    return PTE_OK;
  }
  /* quantized: dequantize a block, the fp32 kernel, requantize */
  float buf[256];
  for (size_t i0 = 0; i0 < a->numel; i0 += 256) {
    const size_t cnt = a->numel - i0 < 256 ? a->numel - i0 : 256;
    for (size_t i = 0; i < cnt; i++) buf[i] = xo_load_q(a, a->data, i0 + i);
    e.fn(cnt, buf, buf, &e.prm);
    for (size_t i = 0; i < cnt; i++) xo_store_q(o, o->data, i0 + i, buf[i]);
  }
  return PTE_OK;
}

/* Softmax over the last dim: y = exp(x - max) / sum, with the vector exp. */
pte_status pte_xnn_run_softmax(pte_xnn_exec *x, const pte_xnn_node *n) {
  pte_xnn_delegate *d = x->d;
  const pte_xnn_value *a = V(n->in[0]), *o = V(n->out[0]);
  const size_t c = a->shape[a->rank - 1];
  if (c == 0) return PTE_OK;
  const size_t rows = a->numel / c;
  const pte_xnn_uparams none = {-INFINITY, INFINITY, 0.0f};
  for (size_t r = 0; r < rows; r++) {
    const float *pa = (const float *)a->data + r * c;
    float *po = (float *)o->data + r * c;
    float mx = pa[0];
    for (size_t i = 1; i < c; i++) mx = pa[i] > mx ? pa[i] : mx;
    x->vec->binary[PTE_XNN_B_SUB][PTE_XNN_BS_VS](c, pa, &mx, po, -INFINITY, INFINITY);
    x->vec->unary[PTE_XNN_U_EXP](c, po, po, &none);
    float sum = 0.0f;
    for (size_t i = 0; i < c; i++) sum += po[i];
    const float inv = 1.0f / sum;
    x->vec->binary[PTE_XNN_B_MUL][PTE_XNN_BS_VS](c, po, &inv, po, -INFINITY, INFINITY);
  }
  return PTE_OK;
}

