/* xnnpack_lib_graph.c — what libXNNPACK (2022 snapshot) can run of a graph parsed by pte, and
 * the constants' bytes read again from the blob (see xnnpack_lib.h). */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/flatbuf.h"
#include "pte_gen/xnnpack_gen.h"
#include "xnnpack_lib_internal.h"

void pxl_msg(char *err, size_t cap, const char *fmt, ...) {
  if (!err || !cap) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, cap, fmt, ap);
  va_end(ap);
}

void pxl_append(char *err, size_t cap, const char *fmt, ...) {
  if (!err || !cap) return;
  size_t l = strlen(err);
  if (l + 1 >= cap) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err + l, cap - l, fmt, ap);
  va_end(ap);
}

/* ---- what the library can run ------------------------------------------------------------- */

bool pxl_dtype_ok(unsigned dt) {
  return dt == PTE_XD_FP32 || dt == PTE_XD_QINT8 || dt == PTE_XD_QUINT8 || dt == PTE_XD_QINT32 ||
         dt == PTE_XD_QCINT8 || dt == PTE_XD_QCINT32;
}

bool pxl_is_host_node(unsigned type) {
  return type == pte_xn_XNodeUnion_XNNStaticTranspose || type == pte_xn_XNodeUnion_XNNStaticSlice ||
         type == pte_xn_XNodeUnion_XNNConcatenate2 || type == pte_xn_XNodeUnion_XNNConcatenate3 ||
         type == pte_xn_XNodeUnion_XNNConcatenate4 || type == pte_xn_XNodeUnion_XNNConcatenate5;
}

bool pxl_is_lib_node(unsigned type) {
  switch (type) {
    case pte_xn_XNodeUnion_XNNAdd:
    case pte_xn_XNodeUnion_XNNSubtract:
    case pte_xn_XNodeUnion_XNNMultiply:
    case pte_xn_XNodeUnion_XNNDiv:
    case pte_xn_XNodeUnion_XNNMinimum:
    case pte_xn_XNodeUnion_XNNMaximum:
    case pte_xn_XNodeUnion_XNNPReLU:
    case pte_xn_XNodeUnion_XNNFullyConnected:
    case pte_xn_XNodeUnion_XNNConv2d:
    case pte_xn_XNodeUnion_XNNDepthwiseConv2d:
    case pte_xn_XNodeUnion_XNNAvgPooling2d:
    case pte_xn_XNodeUnion_XNNMaxPooling2d:
    case pte_xn_XNodeUnion_XNNGlobalAvgPooling2d:
    case pte_xn_XNodeUnion_XNNSoftmax:
    case pte_xn_XNodeUnion_XNNSigmoid:
    case pte_xn_XNodeUnion_XNNClamp:
    case pte_xn_XNodeUnion_XNNFloor:
    case pte_xn_XNodeUnion_XNNCeiling:
    case pte_xn_XNodeUnion_XNNSquareRoot:
    case pte_xn_XNodeUnion_XNNSquare:
    case pte_xn_XNodeUnion_XNNNegate:
    case pte_xn_XNodeUnion_XNNAbs:
    case pte_xn_XNodeUnion_XNNHardswish:
    case pte_xn_XNodeUnion_XNNELU:
    case pte_xn_XNodeUnion_XNNLeakyReLU:
    case pte_xn_XNodeUnion_XNNConvert:
    case pte_xn_XNodeUnion_XNNStaticReshape:
    case pte_xn_XNodeUnion_XNNStaticConstantPad:
    case pte_xn_XNodeUnion_XNNStaticResizeBilinear2D:
      return true;
    default:
      return false;
  }
}

/* ---- constants: bytes read again from the blob --------------------------------------------- */

int pxl_constant(const pte_xnn_value *v, const uint8_t *blob, size_t size, const pte_named_data_map *ndm,
                        uint8_t **out, char *err, size_t cap) {
  const size_t need = v->numel * pte_xnn_dtype_size(v->dtype);
  pte_xnn_header h;
  pte_error_info e;
  memset(&e, 0, sizeof e);
  if (pte_xnn_parse_header(blob, size, &h, &e) != PTE_OK) {
    pxl_msg(err, cap, "blob header: %s", e.msg);
    return 1;
  }
  const uint8_t *fb = h.present ? blob + h.flatbuffer_offset : blob;
  size_t fbs = h.present ? h.flatbuffer_size : size;
  pte_fb_table root = pte_fb_root(fb, fbs);
  const uint8_t *src = NULL;
  size_t have = 0;
  pte_freeable_buffer fbuf;
  memset(&fbuf, 0, sizeof fbuf);
  uint32_t idx = v->const_index;
  if (h.present) {
    pte_fb_vec cd = pte_xn_XNNGraph_constant_data(root);
    if (!cd.present || idx >= cd.len) {
      pxl_msg(err, cap, "value id %u: constant %u out of range", v->id, idx);
      return 1;
    }
    pte_fb_table ent = pte_fb_vec_table(cd, idx);
    pte_fb_str key = pte_xn_ConstantDataOffset_named_key(ent);
    if (key.ptr && key.len > 0) {
      if (!ndm || pte_named_data_map_get_data(ndm, key.ptr, &fbuf) != PTE_OK) {
        pxl_msg(err, cap, "value id %u: named data '%s' not found", v->id, key.ptr);
        return 1;
      }
      src = (const uint8_t *)fbuf.data;
      have = fbuf.size;
    } else {
      uint64_t off = pte_xn_ConstantDataOffset_offset(ent), sz = pte_xn_ConstantDataOffset_size(ent);
      if (off > h.constant_data_size || sz > h.constant_data_size - off) {
        pxl_msg(err, cap, "value id %u: constant %u outside the constant region", v->id, idx);
        return 1;
      }
      src = blob + h.constant_data_offset + off;
      have = (size_t)sz;
    }
  } else {
    pte_fb_vec cb = pte_xn_XNNGraph_constant_buffer(root);
    if (!cb.present || idx >= cb.len) {
      pxl_msg(err, cap, "value id %u: constant_buffer %u out of range", v->id, idx);
      return 1;
    }
    pte_fb_vec st = pte_xn_Buffer_storage(pte_fb_vec_table(cb, idx));
    src = pte_fb_vec_data(st);
    have = st.present ? st.len : 0;
  }
  if (have < need) {
    pte_freeable_buffer_free(&fbuf);
    pxl_msg(err, cap, "value id %u: constant has %zu bytes, %zu needed", v->id, have, need);
    return 1;
  }
  uint8_t *p = (uint8_t *)aligned_alloc(64, (need + 63) / 64 * 64 + 64);
  if (!p) {
    pte_freeable_buffer_free(&fbuf);
    pxl_msg(err, cap, "out of memory");
    return 1;
  }
  if (need) memcpy(p, src, need);
  pte_freeable_buffer_free(&fbuf);
  *out = p;
  return 0;
}

/* Lists (by datatype / node kind, with the first ids) what the library cannot run. */
static void pxl_lacks_item(char *err, size_t cap, int *bad, const char *what, const char *unit, const size_t *ids,
                           size_t n) {
  pxl_append(err, cap, "%s%s (%s%s", (*bad)++ ? ", " : "library lacks: ", what, unit, n > 1 ? "s " : " ");
  for (size_t i = 0; i < n && i < 3; i++) pxl_append(err, cap, "%s%zu", i ? ", " : "", ids[i]);
  if (n > 3) pxl_append(err, cap, ", ... %zu in all", n);
  pxl_append(err, cap, ")");
}

int pxl_check_graph(const pte_xnn_delegate *d, char *err, size_t cap) {
  err[0] = 0;
  int bad = 0;
  const size_t nmax = d->n_values > d->n_nodes ? d->n_values : d->n_nodes;
  size_t *ids = (size_t *)malloc((nmax ? nmax : 1) * sizeof(size_t));
  if (!ids) {
    pxl_msg(err, cap, "out of memory");
    return 1;
  }
  for (unsigned dt = 0; dt < 256; dt++) {
    size_t n = 0;
    for (size_t i = 0; i < d->n_values; i++)
      if (d->values[i].dtype == dt && !pxl_dtype_ok(dt)) ids[n++] = d->values[i].id;
    if (!n) continue;
    char what[64];
    snprintf(what, sizeof what, "datatype %s", pte_xnn_dtype_name(dt));
    pxl_lacks_item(err, cap, &bad, what, "value id", ids, n);
  }
  size_t n = 0;
  for (size_t i = 0; i < d->n_values; i++)
    if (d->values[i].is_const && d->values[i].prep) ids[n++] = d->values[i].id;
  if (n) pxl_lacks_item(err, cap, &bad, "prepared (packed) constants", "value id", ids, n);
  for (unsigned t = 0; t < 256; t++) {
    if (pxl_is_lib_node(t) || pxl_is_host_node(t)) continue;
    n = 0;
    for (size_t i = 0; i < d->n_nodes; i++)
      if (d->nodes[i].type == t) ids[n++] = i;
    if (n) pxl_lacks_item(err, cap, &bad, pte_xnn_node_name(t), "node", ids, n);
  }
  n = 0;
  for (size_t i = 0; i < d->n_nodes; i++) { /* host concatenation copies bytes: same quantization only */
    const pte_xnn_node *nd = &d->nodes[i];
    if (!pxl_is_host_node(nd->type)) continue;
    const pte_xnn_value *ov = &d->values[nd->out[0]];
    for (int k = 0; k < nd->n_in; k++) {
      const pte_xnn_value *iv = &d->values[nd->in[k]];
      if (iv->dtype != ov->dtype || iv->scale != ov->scale || iv->zero_point != ov->zero_point) {
        ids[n++] = i;
        break;
      }
    }
  }
  if (n) pxl_lacks_item(err, cap, &bad, "data movement with requantization", "node", ids, n);
  free(ids);
  return bad;
}
