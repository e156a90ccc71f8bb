/* Writer side: builds XNNPACK delegate blobs (XH00 header + XN00 graph + constants) the way the
 * exporter lays them out, with sha256-keyed named data or inline constants. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "format/flatbuf.h"
#include "pte_gen/xnnpack_gen.h"
#include "xnn_internal.h"

typedef struct btensor {
  pte_xnn_tensor_desc d;
  uint32_t dims[PTE_XNN_MAX_DIMS];
  uint8_t *data;
  float *scales;
  uint16_t *bscales; /* PER_CHANNEL_GROUP: bf16 block scales (a constant of their own) */
  char key[65]; /* named_key constants: the caller's key ("" otherwise) */
} btensor;

typedef struct bnode {
  pte_xnn_node_desc d;
  uint32_t a[PTE_XNN_MAX_DIMS], b[PTE_XNN_MAX_DIMS];
} bnode;

struct pte_xnn_builder {
  btensor *t;
  size_t n_t, cap_t;
  bnode *n;
  size_t n_n, cap_n;
};

static void *heap_realloc(void *ctx, void *ptr, size_t old_size, size_t new_size) {
  (void)ctx;
  (void)old_size;
  if (new_size == 0) {
    free(ptr);
    return NULL;
  }
  return realloc(ptr, new_size);
}

pte_xnn_builder *pte_xnn_builder_new(void) { return (pte_xnn_builder *)calloc(1, sizeof(pte_xnn_builder)); }

void pte_xnn_builder_free(pte_xnn_builder *b) {
  if (!b) return;
  for (size_t i = 0; i < b->n_t; i++) {
    free(b->t[i].data);
    free(b->t[i].scales);
    free(b->t[i].bscales);
  }
  free(b->t);
  free(b->n);
  free(b);
}

static size_t dt_size(int dt) { return pte_xnn_dtype_size((unsigned)dt); }
static bool dt_4bit(int dt) { return dt == PTE_XNN_DT_QCINT4 || dt == PTE_XNN_DT_QBINT4; }
/* constant bytes of a tensor: 4-bit types hold two elements a byte */
static size_t t_bytes(int dt, size_t numel) { return dt_4bit(dt) ? (numel + 1) / 2 : numel * dt_size(dt); }

pte_status pte_xnn_builder_add_tensor(pte_xnn_builder *b, const pte_xnn_tensor_desc *t, uint32_t *id) {
  if (!b || !t || !id) return PTE_ERR_INVALID_ARGUMENT;
  if (t->rank > PTE_XNN_MAX_DIMS || (t->rank && !t->dims) || (dt_size(t->dtype) == 0 && !dt_4bit(t->dtype)))
    return PTE_ERR_INVALID_ARGUMENT;
  size_t numel = 1;
  for (uint32_t i = 0; i < t->rank; i++) numel *= t->dims[i];
  if (dt_4bit(t->dtype) && (t->rank != 2 || (t->dims[1] & 1u))) return PTE_ERR_INVALID_ARGUMENT;
  if (t->data && t->nbytes != t_bytes(t->dtype, numel)) return PTE_ERR_INVALID_ARGUMENT;
  if (t->data && (t->flags & (PTE_XNN_VALUE_EXTERNAL_INPUT | PTE_XNN_VALUE_EXTERNAL_OUTPUT))) return PTE_ERR_INVALID_ARGUMENT;
  if (t->named_key) {
    size_t kl = strlen(t->named_key);
    if (t->data || kl == 0 || kl > 64 || t->nbytes != t_bytes(t->dtype, numel) ||
        (t->flags & (PTE_XNN_VALUE_EXTERNAL_INPUT | PTE_XNN_VALUE_EXTERNAL_OUTPUT)))
      return PTE_ERR_INVALID_ARGUMENT;
  }
  if (t->dq_datatype && (t->dq_datatype != PTE_XNN_DT_QINT8 || t->dtype != PTE_XNN_DT_FP32 ||
                         !(t->flags & PTE_XNN_VALUE_EXTERNAL_INPUT)))
    return PTE_ERR_INVALID_ARGUMENT;
  switch (t->quant) {
    case PTE_XNN_QUANT_NONE:
      if (t->dtype != PTE_XNN_DT_FP32 && t->dtype != PTE_XNN_DT_FP16 && t->dtype != PTE_XNN_DT_BF16)
        return PTE_ERR_INVALID_ARGUMENT;
      break;
    case PTE_XNN_QUANT_PER_CHANNEL_GROUP:
      if (t->dtype != PTE_XNN_DT_QBINT4 || !t->block_scales_bf16 == !t->block_scales_f32 || t->n_block_scales == 0 ||
          t->n_block_scales > 0xFFFFFFFFu)
        return PTE_ERR_INVALID_ARGUMENT;
      break;
    case PTE_XNN_QUANT_PER_TENSOR:
      if (t->dtype != PTE_XNN_DT_QINT8 && t->dtype != PTE_XNN_DT_QUINT8 && t->dtype != PTE_XNN_DT_QINT32)
        return PTE_ERR_INVALID_ARGUMENT;
      break;
    case PTE_XNN_QUANT_PER_CHANNEL:
      if ((t->dtype != PTE_XNN_DT_QCINT8 && t->dtype != PTE_XNN_DT_QCINT32 && t->dtype != PTE_XNN_DT_QCINT4) ||
          t->channel_dim >= t->rank ||
          !t->channel_scales || t->n_channel_scales != t->dims[t->channel_dim])
        return PTE_ERR_INVALID_ARGUMENT;
      break;
    case PTE_XNN_QUANT_PER_TOKEN:
      if (t->dtype != PTE_XNN_DT_QDINT8 || t->data) return PTE_ERR_INVALID_ARGUMENT;
      break;
    default:
      return PTE_ERR_INVALID_ARGUMENT;
  }
  if (b->n_t == b->cap_t) {
    size_t nc = b->cap_t ? b->cap_t * 2 : 16;
    btensor *p = (btensor *)realloc(b->t, nc * sizeof(btensor));
    if (!p) return PTE_ERR_MEMORY_ALLOCATION_FAILED;
    b->t = p;
    b->cap_t = nc;
  }
  btensor *e = &b->t[b->n_t];
  memset(e, 0, sizeof *e);
  e->d = *t;
  for (uint32_t i = 0; i < t->rank; i++) e->dims[i] = t->dims[i];
  e->d.dims = NULL;
  if (t->data) {
    e->data = (uint8_t *)malloc(t->nbytes ? t->nbytes : 1);
    if (!e->data) return PTE_ERR_MEMORY_ALLOCATION_FAILED;
    memcpy(e->data, t->data, t->nbytes);
  }
  if (t->quant == PTE_XNN_QUANT_PER_CHANNEL) {
    e->scales = (float *)malloc(t->n_channel_scales * sizeof(float) + 1);
    if (!e->scales) {
      free(e->data);
      return PTE_ERR_MEMORY_ALLOCATION_FAILED;
    }
    memcpy(e->scales, t->channel_scales, t->n_channel_scales * sizeof(float));
  }
  if (t->quant == PTE_XNN_QUANT_PER_CHANNEL_GROUP && t->block_scales_bf16) {
    e->bscales = (uint16_t *)malloc(t->n_block_scales * sizeof(uint16_t));
    if (!e->bscales) {
      free(e->data);
      return PTE_ERR_MEMORY_ALLOCATION_FAILED;
    }
    memcpy(e->bscales, t->block_scales_bf16, t->n_block_scales * sizeof(uint16_t));
  }
  if (t->quant == PTE_XNN_QUANT_PER_CHANNEL_GROUP && t->block_scales_f32) {
    e->scales = (float *)malloc(t->n_block_scales * sizeof(float));
    if (!e->scales) {
      free(e->data);
      return PTE_ERR_MEMORY_ALLOCATION_FAILED;
    }
    memcpy(e->scales, t->block_scales_f32, t->n_block_scales * sizeof(float));
  }
  if (t->named_key) memcpy(e->key, t->named_key, strlen(t->named_key) + 1);
  e->d.block_scales_bf16 = NULL;
  e->d.block_scales_f32 = NULL;
  e->d.data = NULL;
  e->d.channel_scales = NULL;
  e->d.named_key = NULL;
  *id = (uint32_t)b->n_t++;
  return PTE_OK;
}

static bool node_known(unsigned t) { return t >= 1 && t < pte_xn_XNodeUnion_COUNT && t != 21 && t != 36 && t != 39; }

static unsigned node_inputs(unsigned t) {
  switch (t) {
    case PTE_XNN_NODE_FULLY_CONNECTED:
    case PTE_XNN_NODE_CONV2D:
    case PTE_XNN_NODE_DEPTHWISE_CONV2D: return 3;
    case PTE_XNN_NODE_ADD:
    case PTE_XNN_NODE_DIV:
    case PTE_XNN_NODE_MINIMUM:
    case PTE_XNN_NODE_MAXIMUM:
    case PTE_XNN_NODE_MULTIPLY:
    case PTE_XNN_NODE_SUBTRACT:
    case PTE_XNN_NODE_PRELU:
    case PTE_XNN_NODE_BATCH_MATRIX_MULTIPLY:
    case PTE_XNN_NODE_CONCATENATE2: return 2;
    case PTE_XNN_NODE_CONCATENATE3: return 3;
    case PTE_XNN_NODE_CONCATENATE4: return 4;
    case PTE_XNN_NODE_CONCATENATE5: return 5;
    default: return 1;
  }
}

pte_status pte_xnn_builder_add_node(pte_xnn_builder *b, const pte_xnn_node_desc *n) {
  if (!b || !n || !node_known(n->type)) return PTE_ERR_INVALID_ARGUMENT;
  unsigned k = node_inputs(n->type);
  for (unsigned i = 0; i < k; i++) {
    bool optional = i == 2 && (n->type == PTE_XNN_NODE_FULLY_CONNECTED || n->type == PTE_XNN_NODE_CONV2D ||
                               n->type == PTE_XNN_NODE_DEPTHWISE_CONV2D);
    if (n->inputs[i] == PTE_XNN_NO_VALUE && optional) continue;
    if (n->inputs[i] >= b->n_t) return PTE_ERR_INVALID_ARGUMENT;
  }
  if (n->output >= b->n_t) return PTE_ERR_INVALID_ARGUMENT;
  bool uses_a = n->type == PTE_XNN_NODE_STATIC_TRANSPOSE || n->type == PTE_XNN_NODE_STATIC_RESHAPE ||
                n->type == PTE_XNN_NODE_STATIC_SLICE || n->type == PTE_XNN_NODE_STATIC_CONSTANT_PAD;
  bool uses_b = n->type == PTE_XNN_NODE_STATIC_SLICE || n->type == PTE_XNN_NODE_STATIC_CONSTANT_PAD;
  if (uses_a && (n->num_dims > PTE_XNN_MAX_DIMS || (n->num_dims && !n->a))) return PTE_ERR_INVALID_ARGUMENT;
  if (uses_b && n->num_dims && !n->b) return PTE_ERR_INVALID_ARGUMENT;
  if (b->n_n == b->cap_n) {
    size_t nc = b->cap_n ? b->cap_n * 2 : 16;
    bnode *p = (bnode *)realloc(b->n, nc * sizeof(bnode));
    if (!p) return PTE_ERR_MEMORY_ALLOCATION_FAILED;
    b->n = p;
    b->cap_n = nc;
  }
  bnode *e = &b->n[b->n_n++];
  memset(e, 0, sizeof *e);
  e->d = *n;
  if (uses_a)
    for (uint32_t i = 0; i < n->num_dims; i++) e->a[i] = n->a[i];
  if (uses_b)
    for (uint32_t i = 0; i < n->num_dims; i++) e->b[i] = n->b[i];
  e->d.a = e->d.b = NULL;
  return PTE_OK;
}

/* ---- 4-bit weights (8da4w) ------------------------------------------------------------------- */

static uint16_t bf16_rne(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  u += 0x7FFFu + ((u >> 16) & 1u); /* finite positive scales only */
  return (uint16_t)(u >> 16);
}

pte_status pte_xnn_quantize_qb4w(const float *w, size_t n, size_t k, size_t block, uint8_t *nibbles,
                                 uint16_t *scales_bf16) {
  if (!w || !nibbles || !scales_bf16 || block == 0 || k % block != 0 || (k & 1u)) return PTE_ERR_INVALID_ARGUMENT;
  for (size_t i = 0; i < n * k; i++)
    if (!isfinite(w[i])) return PTE_ERR_INVALID_ARGUMENT;
  const size_t nb = k / block;
  memset(nibbles, 0, n * k / 2);
  for (size_t r = 0; r < n; r++)
    for (size_t b = 0; b < nb; b++) {
      const float *x = w + r * k + b * block;
      float lo = 0.0f, hi = 0.0f;
      for (size_t i = 0; i < block; i++) {
        if (x[i] < lo) lo = x[i];
        if (x[i] > hi) hi = x[i];
      }
      const float amax = -lo > hi ? -lo : hi;
      float scale = amax / 7.5f;
      if (scale < FLT_EPSILON) scale = FLT_EPSILON;
      scales_bf16[r * nb + b] = bf16_rne(scale);
      for (size_t i = 0; i < block; i++) {
        float q = nearbyintf(x[i] / scale); /* default rounding mode: half to even */
        q = q < -8.0f ? -8.0f : (q > 7.0f ? 7.0f : q);
        const size_t idx = r * k + b * block + i;
        const uint8_t u = (uint8_t)((int)q + 8);
        nibbles[idx >> 1] |= (uint8_t)((idx & 1) ? (u << 4) : u);
      }
    }
  return PTE_OK;
}

/* ---- serialisation -------------------------------------------------------------------------- */

typedef struct cinfo {
  uint32_t index;  /* constant_data index (0: none) */
  uint32_t sindex; /* its block scales' constant_data index (0: none) */
} cinfo;

/* Constant sources: 2 * i: tensor i's bytes; 2 * i + 1: tensor i's bf16 block scales. */
static const uint8_t *src_data(const pte_xnn_builder *b, size_t s) {
  const btensor *t = &b->t[s / 2];
  return (s & 1) ? (const uint8_t *)t->bscales : t->data;
}
static size_t src_size(const pte_xnn_builder *b, size_t s) {
  const btensor *t = &b->t[s / 2];
  return (s & 1) ? t->d.n_block_scales * sizeof(uint16_t) : t->d.nbytes;
}

static pte_fb_ref build_node_params(pte_fb_builder *fb, const bnode *bn) {
  const pte_xnn_node_desc *n = &bn->d;
  const uint32_t out = n->output;
  switch (n->type) {
    case PTE_XNN_NODE_ADD:
    case PTE_XNN_NODE_DIV:
    case PTE_XNN_NODE_MINIMUM:
    case PTE_XNN_NODE_MAXIMUM:
    case PTE_XNN_NODE_MULTIPLY:
    case PTE_XNN_NODE_SUBTRACT:
    case PTE_XNN_NODE_PRELU:
    case PTE_XNN_NODE_BATCH_MATRIX_MULTIPLY:
      pte_xn__XNNNode2x1_start(fb);
      pte_xn__XNNNode2x1_add_input1_id(fb, n->inputs[0]);
      pte_xn__XNNNode2x1_add_input2_id(fb, n->inputs[1]);
      pte_xn__XNNNode2x1_add_output_id(fb, out);
      pte_xn__XNNNode2x1_add_flags(fb, n->flags);
      return pte_xn__XNNNode2x1_end(fb);
    case PTE_XNN_NODE_FULLY_CONNECTED:
      pte_xn_XNNFullyConnected_start(fb);
      pte_xn_XNNFullyConnected_add_input1_id(fb, n->inputs[0]);
      pte_xn_XNNFullyConnected_add_filter_id(fb, n->inputs[1]);
      pte_xn_XNNFullyConnected_add_bias_id(fb, n->inputs[2]);
      pte_xn_XNNFullyConnected_add_output_id(fb, out);
      pte_xn_XNNFullyConnected_add_flags(fb, n->flags);
      return pte_xn_XNNFullyConnected_end(fb);
    case PTE_XNN_NODE_CONV2D:
    case PTE_XNN_NODE_DEPTHWISE_CONV2D:
      pte_xn__XNNNodeConv_start(fb);
      pte_xn__XNNNodeConv_add_padding_top(fb, n->padding[0]);
      pte_xn__XNNNodeConv_add_padding_right(fb, n->padding[1]);
      pte_xn__XNNNodeConv_add_padding_bottom(fb, n->padding[2]);
      pte_xn__XNNNodeConv_add_padding_left(fb, n->padding[3]);
      pte_xn__XNNNodeConv_add_kernel_height(fb, n->kernel[0]);
      pte_xn__XNNNodeConv_add_kernel_width(fb, n->kernel[1]);
      pte_xn__XNNNodeConv_add_subsampling_height(fb, n->stride[0]);
      pte_xn__XNNNodeConv_add_subsampling_width(fb, n->stride[1]);
      pte_xn__XNNNodeConv_add_dilation_height(fb, n->dilation[0]);
      pte_xn__XNNNodeConv_add_dilation_width(fb, n->dilation[1]);
      pte_xn__XNNNodeConv_add_group_input_channels(fb, n->group_input_channels);
      pte_xn__XNNNodeConv_add_group_output_channels(fb, n->group_output_channels);
      pte_xn__XNNNodeConv_add_groups(fb, n->groups);
      pte_xn__XNNNodeConv_add_input1_id(fb, n->inputs[0]);
      pte_xn__XNNNodeConv_add_filter_id(fb, n->inputs[1]);
      pte_xn__XNNNodeConv_add_bias_id(fb, n->inputs[2]);
      pte_xn__XNNNodeConv_add_output_id(fb, out);
      pte_xn__XNNNodeConv_add_flags(fb, n->flags);
      return pte_xn__XNNNodeConv_end(fb);
    case PTE_XNN_NODE_AVG_POOLING_2D:
    case PTE_XNN_NODE_MAX_POOLING_2D:
      pte_xn__XNNPooling2D_start(fb);
      pte_xn__XNNPooling2D_add_padding_top(fb, n->padding[0]);
      pte_xn__XNNPooling2D_add_padding_right(fb, n->padding[1]);
      pte_xn__XNNPooling2D_add_padding_bottom(fb, n->padding[2]);
      pte_xn__XNNPooling2D_add_padding_left(fb, n->padding[3]);
      pte_xn__XNNPooling2D_add_pooling_height(fb, n->kernel[0]);
      pte_xn__XNNPooling2D_add_pooling_width(fb, n->kernel[1]);
      pte_xn__XNNPooling2D_add_stride_height(fb, n->stride[0]);
      pte_xn__XNNPooling2D_add_stride_width(fb, n->stride[1]);
      pte_xn__XNNPooling2D_add_dilation_height(fb, n->dilation[0]);
      pte_xn__XNNPooling2D_add_dilation_width(fb, n->dilation[1]);
      pte_xn__XNNPooling2D_add_input_id(fb, n->inputs[0]);
      pte_xn__XNNPooling2D_add_output_id(fb, out);
      pte_xn__XNNPooling2D_add_flags(fb, n->flags);
      return pte_xn__XNNPooling2D_end(fb);
    case PTE_XNN_NODE_STATIC_TRANSPOSE: {
      pte_fb_ref perm = pte_xn_XNNStaticTranspose_create_perm(fb, bn->a, n->num_dims);
      pte_xn_XNNStaticTranspose_start(fb);
      pte_xn_XNNStaticTranspose_add_num_dims(fb, n->num_dims);
      pte_xn_XNNStaticTranspose_add_perm(fb, perm);
      pte_xn_XNNStaticTranspose_add_input_id(fb, n->inputs[0]);
      pte_xn_XNNStaticTranspose_add_output_id(fb, out);
      pte_xn_XNNStaticTranspose_add_flags(fb, n->flags);
      return pte_xn_XNNStaticTranspose_end(fb);
    }
    case PTE_XNN_NODE_STATIC_RESHAPE: {
      pte_fb_ref ns = pte_xn_XNNStaticReshape_create_new_shape(fb, bn->a, n->num_dims);
      pte_xn_XNNStaticReshape_start(fb);
      pte_xn_XNNStaticReshape_add_num_dims(fb, n->num_dims);
      pte_xn_XNNStaticReshape_add_new_shape(fb, ns);
      pte_xn_XNNStaticReshape_add_input_id(fb, n->inputs[0]);
      pte_xn_XNNStaticReshape_add_output_id(fb, out);
      pte_xn_XNNStaticReshape_add_flags(fb, n->flags);
      return pte_xn_XNNStaticReshape_end(fb);
    }
    case PTE_XNN_NODE_STATIC_SLICE: {
      pte_fb_ref off = pte_xn_XNNStaticSlice_create_offsets(fb, bn->a, n->num_dims);
      pte_fb_ref sz = pte_xn_XNNStaticSlice_create_sizes(fb, bn->b, n->num_dims);
      pte_xn_XNNStaticSlice_start(fb);
      pte_xn_XNNStaticSlice_add_num_dims(fb, n->num_dims);
      pte_xn_XNNStaticSlice_add_offsets(fb, off);
      pte_xn_XNNStaticSlice_add_sizes(fb, sz);
      pte_xn_XNNStaticSlice_add_input_id(fb, n->inputs[0]);
      pte_xn_XNNStaticSlice_add_output_id(fb, out);
      pte_xn_XNNStaticSlice_add_flags(fb, n->flags);
      return pte_xn_XNNStaticSlice_end(fb);
    }
    case PTE_XNN_NODE_STATIC_CONSTANT_PAD: {
      pte_fb_ref pre = pte_xn_XNNStaticConstantPad_create_pre_paddings(fb, bn->a, n->num_dims);
      pte_fb_ref post = pte_xn_XNNStaticConstantPad_create_post_paddings(fb, bn->b, n->num_dims);
      pte_xn_XNNStaticConstantPad_start(fb);
      pte_xn_XNNStaticConstantPad_add_pre_paddings(fb, pre);
      pte_xn_XNNStaticConstantPad_add_post_paddings(fb, post);
      pte_xn_XNNStaticConstantPad_add_padding_value(fb, n->alpha);
      pte_xn_XNNStaticConstantPad_add_input_id(fb, n->inputs[0]);
      pte_xn_XNNStaticConstantPad_add_output_id(fb, out);
      pte_xn_XNNStaticConstantPad_add_flags(fb, n->flags);
      return pte_xn_XNNStaticConstantPad_end(fb);
    }
    case PTE_XNN_NODE_STATIC_RESIZE_BILINEAR_2D:
      pte_xn_XNNStaticResizeBilinear2D_start(fb);
      pte_xn_XNNStaticResizeBilinear2D_add_new_height(fb, n->new_h);
      pte_xn_XNNStaticResizeBilinear2D_add_new_width(fb, n->new_w);
      pte_xn_XNNStaticResizeBilinear2D_add_input_id(fb, n->inputs[0]);
      pte_xn_XNNStaticResizeBilinear2D_add_output_id(fb, out);
      pte_xn_XNNStaticResizeBilinear2D_add_flags(fb, n->flags);
      return pte_xn_XNNStaticResizeBilinear2D_end(fb);
    case PTE_XNN_NODE_CONCATENATE2:
    case PTE_XNN_NODE_CONCATENATE3:
    case PTE_XNN_NODE_CONCATENATE4:
    case PTE_XNN_NODE_CONCATENATE5: {
      unsigned k = node_inputs(n->type);
      pte_xn__XNNCat_start(fb);
      pte_xn__XNNCat_add_axis(fb, n->axis);
      pte_xn__XNNCat_add_input1_id(fb, n->inputs[0]);
      pte_xn__XNNCat_add_input2_id(fb, n->inputs[1]);
      if (k > 2) pte_xn__XNNCat_add_input3_id(fb, n->inputs[2]);
      if (k > 3) pte_xn__XNNCat_add_input4_id(fb, n->inputs[3]);
      if (k > 4) pte_xn__XNNCat_add_input5_id(fb, n->inputs[4]);
      pte_xn__XNNCat_add_output_id(fb, out);
      pte_xn__XNNCat_add_flags(fb, n->flags);
      return pte_xn__XNNCat_end(fb);
    }
    case PTE_XNN_NODE_ELU:
      pte_xn_XNNELU_start(fb);
      pte_xn_XNNELU_add_alpha(fb, n->alpha);
      pte_xn_XNNELU_add_input_id(fb, n->inputs[0]);
      pte_xn_XNNELU_add_output_id(fb, out);
      pte_xn_XNNELU_add_flags(fb, n->flags);
      return pte_xn_XNNELU_end(fb);
    case PTE_XNN_NODE_LEAKY_RELU:
      pte_xn_XNNLeakyReLU_start(fb);
      pte_xn_XNNLeakyReLU_add_negative_slope(fb, n->alpha);
      pte_xn_XNNLeakyReLU_add_input_id(fb, n->inputs[0]);
      pte_xn_XNNLeakyReLU_add_output_id(fb, out);
      pte_xn_XNNLeakyReLU_add_flags(fb, n->flags);
      return pte_xn_XNNLeakyReLU_end(fb);
    default:
      pte_xn__XNNNode1x1_start(fb);
      pte_xn__XNNNode1x1_add_input_id(fb, n->inputs[0]);
      pte_xn__XNNNode1x1_add_output_id(fb, out);
      pte_xn__XNNNode1x1_add_flags(fb, n->flags);
      return pte_xn__XNNNode1x1_end(fb);
  }
}

static size_t align_up(size_t x, size_t a) { return (x + a - 1) & ~(a - 1); }

static void put32(uint8_t *p, uint32_t v) {
  for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}

pte_status pte_xnn_builder_finish(pte_xnn_builder *b, pte_xnn_constants_mode mode, pte_xnn_blob *out,
                                  pte_error_info *err) {
  if (!b || !out) return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "xnnpack builder: NULL argument");
  memset(out, 0, sizeof *out);
  pte_status st = PTE_OK;
  /* 1. constants: dedupe by content key */
  size_t n_const = 0;
  for (size_t i = 0; i < b->n_t; i++) {
    if (b->t[i].key[0] && mode != PTE_XNN_CONSTANTS_NAMED)
      return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT,
                           "xnnpack builder: value %zu has a caller-stored named key: NAMED mode only", i);
    if (b->t[i].data || b->t[i].key[0]) n_const++;
    if (b->t[i].bscales && !b->t[i].d.block_scales_inline) n_const++;
  }
  cinfo *ci = (cinfo *)calloc(b->n_t ? b->n_t : 1, sizeof(cinfo));
  char(*keys)[65] = (char(*)[65])calloc(n_const + 1, 65);
  size_t *src = (size_t *)calloc(n_const + 1, sizeof(size_t)); /* tensor providing entry i (1-based) */
  size_t *offs = (size_t *)calloc(n_const + 1, sizeof(size_t));
  pte_fb_ref *refs = NULL;
  pte_fb_builder fb;
  pte_fb_builder_init(&fb, heap_realloc, NULL);
  if (!ci || !keys || !src || !offs) {
    st = pte_error_set(err, PTE_ERR_MEMORY_ALLOCATION_FAILED, "xnnpack builder: out of memory");
    goto done;
  }
  size_t n_entries = 1, region = 0;
  for (size_t si = 0; si < 2 * b->n_t; si++) {
    btensor *t = &b->t[si / 2];
    if ((si & 1) ? (!t->bscales || t->d.block_scales_inline) : (!t->data && !t->key[0])) continue;
    char key[65];
    if (!(si & 1) && t->key[0]) memcpy(key, t->key, sizeof key);
    else pte_sha256_hex(src_data(b, si), src_size(b, si), key);
    size_t found = 0;
    for (size_t e = 1; e < n_entries; e++)
      if (strcmp(keys[e], key) == 0 && src_size(b, src[e]) == src_size(b, si)) {
        found = e;
        break;
      }
    if (!found) {
      found = n_entries++;
      memcpy(keys[found], key, 65);
      src[found] = si;
      region = align_up(region, 16);
      offs[found] = region;
      region += src_size(b, si);
    }
    if (si & 1) ci[si / 2].sindex = (uint32_t)found;
    else ci[si / 2].index = (uint32_t)found;
  }
  if (mode == PTE_XNN_CONSTANTS_INLINE) region = align_up(region, 16);

  /* 2. flatbuffer */
  size_t n_refs = b->n_t > b->n_n ? b->n_t : b->n_n;
  if (n_entries > n_refs) n_refs = n_entries;
  refs = (pte_fb_ref *)calloc(n_refs + 1, sizeof(pte_fb_ref));
  if (!refs) {
    st = pte_error_set(err, PTE_ERR_MEMORY_ALLOCATION_FAILED, "xnnpack builder: out of memory");
    goto done;
  }
  pte_fb_ref version = pte_fb_create_string(&fb, "0", 1);
  /* constant_data */
  for (size_t e = 0; e < n_entries; e++) {
    pte_fb_ref key = 0;
    if (mode == PTE_XNN_CONSTANTS_NAMED) key = pte_fb_create_string(&fb, e ? keys[e] : "", e ? strlen(keys[e]) : 0);
    pte_xn_ConstantDataOffset_start(&fb);
    if (e) {
      if (mode == PTE_XNN_CONSTANTS_NAMED) pte_xn_ConstantDataOffset_add_offset(&fb, UINT64_MAX);
      else pte_xn_ConstantDataOffset_add_offset(&fb, offs[e]);
      pte_xn_ConstantDataOffset_add_size(&fb, src_size(b, src[e]));
    }
    if (key) pte_xn_ConstantDataOffset_add_named_key(&fb, key);
    refs[e] = pte_xn_ConstantDataOffset_end(&fb);
  }
  pte_fb_ref cdata = pte_xn_XNNGraph_create_constant_data(&fb, refs, n_entries);
  /* values */
  uint32_t n_in = 0, n_out = 0, max_ext = 0;
  bool any_ext = false;
  for (size_t i = 0; i < b->n_t; i++) {
    const btensor *t = &b->t[i];
    pte_fb_ref dims = pte_xn_XNNTensorValue_create_dims(&fb, t->dims, t->d.rank);
    bool ext = (t->d.flags & (PTE_XNN_VALUE_EXTERNAL_INPUT | PTE_XNN_VALUE_EXTERNAL_OUTPUT)) != 0;
    if (t->d.flags & PTE_XNN_VALUE_EXTERNAL_INPUT) n_in++;
    if (t->d.flags & PTE_XNN_VALUE_EXTERNAL_OUTPUT) n_out++;
    if (ext) {
      if (!any_ext || t->d.external_id > max_ext) max_ext = t->d.external_id;
      any_ext = true;
    }
    pte_xn_XNNTensorValue_start(&fb);
    pte_xn_XNNTensorValue_add_datatype(&fb, (int16_t)t->d.dtype);
    pte_xn_XNNTensorValue_add_num_dims(&fb, t->d.rank);
    pte_xn_XNNTensorValue_add_dims(&fb, dims);
    pte_xn_XNNTensorValue_add_constant_buffer_idx(&fb, ci[i].index);
    pte_xn_XNNTensorValue_add_external_id(&fb, ext ? t->d.external_id : PTE_XNN_INVALID_ID);
    pte_xn_XNNTensorValue_add_flags(&fb, t->d.flags);
    pte_xn_XNNTensorValue_add_id_out(&fb, (uint32_t)i);
    pte_xn_XNNTensorValue_add_dq_datatype(&fb, (int16_t)t->d.dq_datatype);
    pte_fb_ref tv = pte_xn_XNNTensorValue_end(&fb);
    uint8_t vtag = pte_xn_XValueUnion_XNNTensorValue;
    pte_fb_ref vref = tv;
    if (t->d.quant != PTE_XNN_QUANT_NONE) {
      pte_fb_ref qp;
      uint8_t qtag;
      if (t->d.quant == PTE_XNN_QUANT_PER_TENSOR) {
        pte_xn_PerTensorQuant_start(&fb);
        pte_xn_PerTensorQuant_add_scale(&fb, t->d.scale);
        pte_xn_PerTensorQuant_add_zero_point(&fb, t->d.zero_point);
        qp = pte_xn_PerTensorQuant_end(&fb);
        qtag = pte_xn_XNNQuantParams_PerTensorQuant;
      } else if (t->d.quant == PTE_XNN_QUANT_PER_CHANNEL) {
        pte_fb_ref sc = pte_xn_PerChannelQuant_create_scale(&fb, t->scales, t->d.n_channel_scales);
        pte_xn_PerChannelQuant_start(&fb);
        pte_xn_PerChannelQuant_add_scale(&fb, sc);
        pte_xn_PerChannelQuant_add_channel_dim(&fb, (int32_t)t->d.channel_dim);
        qp = pte_xn_PerChannelQuant_end(&fb);
        qtag = pte_xn_XNNQuantParams_PerChannelQuant;
      } else if (t->d.quant == PTE_XNN_QUANT_PER_CHANNEL_GROUP) {
        pte_fb_ref sc = 0, sc16 = 0;
        if (t->scales) sc = pte_xn_PerChannelGroupQuant_create_scale(&fb, t->scales, t->d.n_block_scales);
        else if (t->d.block_scales_inline) sc16 = pte_xn_PerChannelGroupQuant_create_scale_bf16(&fb, t->bscales, t->d.n_block_scales);
        pte_xn_PerChannelGroupQuant_start(&fb);
        if (sc) pte_xn_PerChannelGroupQuant_add_scale(&fb, sc);
        if (sc16) pte_xn_PerChannelGroupQuant_add_scale_bf16(&fb, sc16);
        pte_xn_PerChannelGroupQuant_add_channel_dim(&fb, 0);
        pte_xn_PerChannelGroupQuant_add_group_size(&fb, (int32_t)t->d.block_size);
        if (ci[i].sindex) {
          pte_xn_PerChannelGroupQuant_add_scale_buffer_idx(&fb, ci[i].sindex);
          pte_xn_PerChannelGroupQuant_add_num_scales(&fb, (uint32_t)t->d.n_block_scales);
        }
        qp = pte_xn_PerChannelGroupQuant_end(&fb);
        qtag = pte_xn_XNNQuantParams_PerChannelGroupQuant;
      } else {
        pte_xn_PerTokenDynamicQuant_start(&fb);
        pte_xn_PerTokenDynamicQuant_add_num_nonbatch_dims(&fb, t->d.num_nonbatch_dims);
        qp = pte_xn_PerTokenDynamicQuant_end(&fb);
        qtag = pte_xn_XNNQuantParams_PerTokenDynamicQuant;
      }
      pte_xn_XNNQuantizedTensorValue_start(&fb);
      pte_xn_XNNQuantizedTensorValue_add_tensor_value(&fb, tv);
      pte_xn_XNNQuantizedTensorValue_add_quant_params_type(&fb, qtag);
      pte_xn_XNNQuantizedTensorValue_add_quant_params(&fb, qp);
      vref = pte_xn_XNNQuantizedTensorValue_end(&fb);
      vtag = pte_xn_XValueUnion_XNNQuantizedTensorValue;
    }
    pte_xn_XValue_start(&fb);
    pte_xn_XValue_add_xvalue_union_type(&fb, vtag);
    pte_xn_XValue_add_xvalue_union(&fb, vref);
    refs[i] = pte_xn_XValue_end(&fb);
  }
  pte_fb_ref xvalues = pte_xn_XNNGraph_create_xvalues(&fb, refs, b->n_t);
  /* input/output id lists */
  uint32_t *ids = (uint32_t *)calloc(b->n_t + 1, sizeof(uint32_t));
  if (!ids) {
    st = pte_error_set(err, PTE_ERR_MEMORY_ALLOCATION_FAILED, "xnnpack builder: out of memory");
    goto done;
  }
  size_t k = 0;
  for (size_t i = 0; i < b->n_t; i++)
    if (b->t[i].d.flags & PTE_XNN_VALUE_EXTERNAL_INPUT) ids[k++] = (uint32_t)i;
  pte_fb_ref in_ids = pte_xn_XNNGraph_create_input_ids(&fb, ids, k);
  k = 0;
  for (size_t i = 0; i < b->n_t; i++)
    if (b->t[i].d.flags & PTE_XNN_VALUE_EXTERNAL_OUTPUT) ids[k++] = (uint32_t)i;
  pte_fb_ref out_ids = pte_xn_XNNGraph_create_output_ids(&fb, ids, k);
  free(ids);
  (void)n_in;
  (void)n_out;
  /* nodes */
  for (size_t i = 0; i < b->n_n; i++) {
    const bnode *bn = &b->n[i];
    pte_fb_ref params = build_node_params(&fb, bn);
    pte_fb_ref mm = 0;
    if (bn->d.has_min_max) {
      pte_xn_OutputMinMax_start(&fb);
      pte_xn_OutputMinMax_add_output_min(&fb, bn->d.out_min);
      pte_xn_OutputMinMax_add_output_max(&fb, bn->d.out_max);
      mm = pte_xn_OutputMinMax_end(&fb);
    }
    pte_xn_XNode_start(&fb);
    pte_xn_XNode_add_xnode_union_type(&fb, (uint8_t)bn->d.type);
    pte_xn_XNode_add_xnode_union(&fb, params);
    pte_xn_XNode_add_debug_handle(&fb, bn->d.debug_handle);
    if (mm) pte_xn_XNode_add_output_min_max(&fb, mm);
    refs[i] = pte_xn_XNode_end(&fb);
  }
  pte_fb_ref xnodes = pte_xn_XNNGraph_create_xnodes(&fb, refs, b->n_n);
  pte_xn_XNNGraph_start(&fb);
  pte_xn_XNNGraph_add_version(&fb, version);
  pte_xn_XNNGraph_add_xnodes(&fb, xnodes);
  pte_xn_XNNGraph_add_xvalues(&fb, xvalues);
  pte_xn_XNNGraph_add_num_externs(&fb, any_ext ? max_ext + 1 : 0);
  pte_xn_XNNGraph_add_input_ids(&fb, in_ids);
  pte_xn_XNNGraph_add_output_ids(&fb, out_ids);
  pte_xn_XNNGraph_add_constant_data(&fb, cdata);
  pte_fb_ref root = pte_xn_XNNGraph_end(&fb);
  const uint8_t *fbytes;
  size_t fsize;
  st = pte_xn_finish(&fb, root, &fbytes, &fsize);
  if (st != PTE_OK) {
    st = pte_error_set(err, st, "xnnpack builder: flatbuffer construction failed (%s)", pte_status_name(st));
    goto done;
  }
  /* 3. blob: header (padded to 32), graph (padded to 16), constant region */
  {
    const size_t fb_off = PTE_XNN_HEADER_PADDED_SIZE;
    const size_t c_off = align_up(fb_off + fsize, 16);
    const size_t c_size = mode == PTE_XNN_CONSTANTS_INLINE ? region : 0;
    const size_t total = c_off + c_size;
    out->data = (uint8_t *)calloc(1, total);
    if (!out->data) {
      st = pte_error_set(err, PTE_ERR_MEMORY_ALLOCATION_FAILED, "xnnpack builder: out of memory");
      goto done;
    }
    out->size = total;
    uint8_t *h = out->data;
    memcpy(h + 4, "XH00", 4);
    h[8] = PTE_XNN_HEADER_MIN_SIZE;
    h[9] = 0;
    put32(h + 10, (uint32_t)fb_off);
    put32(h + 14, (uint32_t)fsize);
    put32(h + 18, (uint32_t)c_off);
    put32(h + 22, (uint32_t)c_size);
    put32(h + 26, (uint32_t)((uint64_t)c_size >> 32));
    memcpy(h + fb_off, fbytes, fsize);
    if (mode == PTE_XNN_CONSTANTS_INLINE) {
      for (size_t e = 1; e < n_entries; e++) memcpy(h + c_off + offs[e], src_data(b, src[e]), src_size(b, src[e]));
    } else if (n_entries > 1) {
      out->named = (pte_xnn_named_blob *)calloc(n_entries - 1, sizeof(pte_xnn_named_blob));
      if (!out->named) {
        st = pte_error_set(err, PTE_ERR_MEMORY_ALLOCATION_FAILED, "xnnpack builder: out of memory");
        goto done;
      }
      for (size_t e = 1; e < n_entries; e++) {
        pte_xnn_named_blob *nb = &out->named[out->n_named];
        const uint8_t *sd = src_data(b, src[e]);
        const size_t sz = src_size(b, src[e]);
        if (!sd) continue; /* named_key: stored by the caller */
        uint8_t *copy = (uint8_t *)malloc(sz ? sz : 1);
        if (!copy) {
          st = pte_error_set(err, PTE_ERR_MEMORY_ALLOCATION_FAILED, "xnnpack builder: out of memory");
          goto done;
        }
        memcpy(copy, sd, sz);
        memcpy(nb->key, keys[e], 65);
        nb->data = copy;
        nb->size = sz;
        out->n_named++;
      }
    }
  }
done:
  pte_fb_builder_free(&fb);
  free(ci);
  free(keys);
  free(src);
  free(offs);
  free(refs);
  if (st != PTE_OK) pte_xnn_blob_free(out);
  return st;
}

void pte_xnn_blob_free(pte_xnn_blob *blob) {
  if (!blob) return;
  for (size_t i = 0; i < blob->n_named; i++) free((void *)blob->named[i].data);
  free(blob->named);
  free(blob->data);
  memset(blob, 0, sizeof *blob);
}

/* ---- named data map over a blob ------------------------------------------------------------- */

static const pte_xnn_named_blob *bdm_find(const pte_named_data_map *m, const char *key) {
  const pte_xnn_blob *b = ((const pte_xnn_blob_data_map *)m)->blob;
  for (size_t i = 0; key && i < b->n_named; i++)
    if (strcmp(b->named[i].key, key) == 0) return &b->named[i];
  return NULL;
}

static pte_status bdm_layout(const pte_named_data_map *m, const char *key, pte_tensor_layout *out) {
  (void)out;
  return bdm_find(m, key) ? PTE_ERR_NOT_IMPLEMENTED : PTE_ERR_NOT_FOUND;
}
static pte_status bdm_get(const pte_named_data_map *m, const char *key, pte_freeable_buffer *out) {
  const pte_xnn_named_blob *e = bdm_find(m, key);
  if (!e) return PTE_ERR_NOT_FOUND;
  *out = pte_freeable_buffer_view(e->data, e->size);
  return PTE_OK;
}
static pte_status bdm_load(const pte_named_data_map *m, const char *key, void *buf, size_t size) {
  const pte_xnn_named_blob *e = bdm_find(m, key);
  if (!e) return PTE_ERR_NOT_FOUND;
  if (size != e->size) return PTE_ERR_INVALID_ARGUMENT;
  memcpy(buf, e->data, size);
  return PTE_OK;
}
static pte_status bdm_num(const pte_named_data_map *m, uint32_t *out) {
  *out = (uint32_t)((const pte_xnn_blob_data_map *)m)->blob->n_named;
  return PTE_OK;
}
static pte_status bdm_key(const pte_named_data_map *m, uint32_t i, const char **out) {
  const pte_xnn_blob *b = ((const pte_xnn_blob_data_map *)m)->blob;
  if (i >= b->n_named) return PTE_ERR_INVALID_ARGUMENT;
  *out = b->named[i].key;
  return PTE_OK;
}
static const pte_named_data_map_vtable k_bdm_vt = {bdm_layout, bdm_get, bdm_load, bdm_num, bdm_key};

void pte_xnn_blob_data_map_init(pte_xnn_blob_data_map *m, const pte_xnn_blob *blob) {
  m->base.vt = &k_bdm_vt;
  m->blob = blob;
}
