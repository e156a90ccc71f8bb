/* Blob parsing: header, constants, values and the id map. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pte_gen/xnnpack_gen.h"
#include "xnn_compile_ctx.h"
#include "xnn_q4.h"

/* ============================================================================ small helpers */

static bool grow_ex(void **arr, size_t *cap, size_t need, size_t elem, bool clear) {
  if (need <= *cap) return true;
  size_t nc = *cap ? *cap * 2 : 16;
  while (nc < need) nc *= 2;
  void *p = realloc(*arr, nc * elem);
  if (!p) return false;
  if (clear) memset((uint8_t *)p + *cap * elem, 0, (nc - *cap) * elem);
  *arr = p;
  *cap = nc;
  return true;
}

bool pte_xnn_grow(void **arr, size_t *cap, size_t need, size_t elem) { return grow_ex(arr, cap, need, elem, true); }
bool pte_xnn_reserve(void **arr, size_t *cap, size_t need, size_t elem) { return grow_ex(arr, cap, need, elem, false); }

static inline uint32_t ld32le(const uint8_t *p) {
  return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

size_t pte_xnn_dtype_size(unsigned dt) {
  switch (dt) {
    case PTE_XD_FP32:
    case PTE_XD_QINT32:
    case PTE_XD_QCINT32:
    case PTE_XD_INT32:
      return 4;
    case PTE_XD_FP16:
    case PTE_XD_BF16:
      return 2;
    case PTE_XD_QINT8:
    case PTE_XD_QUINT8:
    case PTE_XD_QCINT8:
    case PTE_XD_QDINT8:
      return 1;
    default:
      return 0;
  }
}

const char *pte_xnn_dtype_name(unsigned dt) {
  static const char *names[PTE_XD_COUNT] = {"invalid", "fp32",   "fp16",  "qint8", "quint8",
                                            "qint32",  "qcint8", "qcint32", "qcint4", "qdint8",
                                            "qbint4",  "qpint8", "int32", "pfp32", "bf16"};
  return dt < PTE_XD_COUNT ? names[dt] : "unknown";
}

const char *pte_xnn_node_name(unsigned type) {
  const char *n = pte_xn_XNodeUnion_name((uint8_t)type);
  return n ? n : "unknown";
}

size_t pte_xnn_value_bytes(const pte_xnn_value *v) {
  size_t es = pte_xnn_dtype_size(v->dtype);
  size_t b = v->numel * es;
  if (v->dtype == PTE_XD_QDINT8) {
    size_t inner = 1;
    int nb = v->num_nonbatch_dims > 0 ? v->num_nonbatch_dims : 1;
    for (int i = v->rank - nb; i < v->rank; i++) inner *= v->shape[i] ? v->shape[i] : 1;
    if (v->rank == 0) inner = 1;
    size_t rows = inner ? v->numel / inner : 0;
    if (rows == 0) rows = 1;
    b = ((b + 63) & ~(size_t)63) + rows * sizeof(pte_xnn_qrow);
  }
  return b;
}

/* ============================================================================ header */

pte_status pte_xnn_parse_header(const void *blob, size_t size, pte_xnn_header *out, pte_error_info *err) {
  if (!blob || !out) return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "xnnpack: NULL blob or header");
  memset(out, 0, sizeof *out);
  const uint8_t *b = (const uint8_t *)blob;
  if (size < PTE_XNN_HEADER_MIN_SIZE)
    return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "xnnpack: blob of %zu bytes is smaller than the %d-byte header",
                         size, PTE_XNN_HEADER_MIN_SIZE);
  if (memcmp(b + 4, "XH00", 4) != 0) {
    out->present = false;
    out->flatbuffer_offset = 0;
    out->flatbuffer_size = size > 0xFFFFFFFFu ? 0xFFFFFFFFu : (uint32_t)size;
    return PTE_OK;
  }
  out->present = true;
  out->header_length = (uint16_t)(b[8] | (b[9] << 8));
  out->flatbuffer_offset = ld32le(b + 10);
  out->flatbuffer_size = ld32le(b + 14);
  out->constant_data_offset = ld32le(b + 18);
  out->constant_data_size = (uint64_t)ld32le(b + 22) | ((uint64_t)ld32le(b + 26) << 32);
  if (out->header_length < PTE_XNN_HEADER_MIN_SIZE)
    return pte_error_set(err, PTE_ERR_INVALID_PROGRAM, "xnnpack: XH00 header length %u < %d", out->header_length,
                         PTE_XNN_HEADER_MIN_SIZE);
  if (out->flatbuffer_size < 8)
    return pte_error_set(err, PTE_ERR_INVALID_PROGRAM, "xnnpack: flatbuffer size %u is too small",
                         out->flatbuffer_size);
  if (out->flatbuffer_offset < out->header_length ||
      (uint64_t)out->flatbuffer_offset + out->flatbuffer_size > (uint64_t)size)
    return pte_error_set(err, PTE_ERR_INVALID_PROGRAM,
                         "xnnpack: flatbuffer [%u, +%u) is outside the %zu-byte blob (or overlaps the header)",
                         out->flatbuffer_offset, out->flatbuffer_size, size);
  if (out->constant_data_offset > size || out->constant_data_size > (uint64_t)size - out->constant_data_offset)
    return pte_error_set(err, PTE_ERR_INVALID_PROGRAM,
                         "xnnpack: constant data [%u, +%llu) is outside the %zu-byte blob", out->constant_data_offset,
                         (unsigned long long)out->constant_data_size, size);
  if (out->constant_data_offset < out->header_length)
    return pte_error_set(err, PTE_ERR_INVALID_PROGRAM, "xnnpack: constant data offset %u overlaps the header",
                         out->constant_data_offset);
  {
    uint64_t fb0 = out->flatbuffer_offset, fb1 = fb0 + out->flatbuffer_size;
    uint64_t c0 = out->constant_data_offset, c1 = c0 + out->constant_data_size;
    if (out->constant_data_size > 0 && c0 < fb1 && fb0 < c1)
      return pte_error_set(err, PTE_ERR_INVALID_PROGRAM,
                           "xnnpack: constant data [%llu, %llu) overlaps the flatbuffer [%llu, %llu)",
                           (unsigned long long)c0, (unsigned long long)c1, (unsigned long long)fb0,
                           (unsigned long long)fb1);
  }
  return PTE_OK;
}

/* ============================================================================ compile context */
void pte_xnn_cc_release(cctx *c) {
  for (size_t i = 0; i < c->n_tmp; i++) pte_freeable_buffer_free(&c->tmp[i]);
  free(c->tmp);
  free(c->slots);
  free(c->ids);
  c->tmp = NULL;
  c->slots = NULL;
  c->ids = NULL;
}

bool pte_xnn_cc_own(pte_xnn_delegate *d, uint8_t *p) {
  if (!pte_xnn_grow((void **)&d->owned, &d->cap_owned, d->n_owned + 1, sizeof(uint8_t *))) return false;
  d->owned[d->n_owned++] = p;
  return true;
}

/* Resolves constant index idx to bytes (at least `need` of them). */
static pte_status get_constant(cctx *c, uint32_t idx, size_t need, const char *what, const uint8_t **out,
                               size_t *out_size, int *buf_index, const cslot **slot_out) {
  *buf_index = -1;
  if (slot_out) *slot_out = NULL;
  if (c->has_header) {
    pte_fb_vec cd = pte_xn_XNNGraph_constant_data(c->root);
    if (!cd.present || idx >= cd.len)
      return CERR(c, PTE_ERR_INVALID_PROGRAM, "xnnpack: %s: constant index %u out of range (%u constant_data entries)",
                  what, idx, cd.present ? cd.len : 0u);
    if (!c->slots) {
      c->slots = (cslot *)calloc(cd.len, sizeof(cslot));
      if (!c->slots) return CERR(c, PTE_ERR_MEMORY_ALLOCATION_FAILED, "xnnpack: out of memory");
      c->n_slots = cd.len;
    }
    cslot *sl = &c->slots[idx];
    if (!sl->loaded) {
      pte_fb_table e = pte_fb_vec_table(cd, idx);
      if (!pte_fb_table_present(e))
        return CERR(c, PTE_ERR_INVALID_PROGRAM, "xnnpack: %s: constant_data[%u] is null", what, idx);
      pte_fb_str key = pte_xn_ConstantDataOffset_named_key(e);
      uint64_t off = pte_xn_ConstantDataOffset_offset(e), sz = pte_xn_ConstantDataOffset_size(e);
      sl->buf = -1;
      if (key.ptr && key.len > 0) {
        if (!c->ndm)
          return CERR(c, PTE_ERR_NOT_FOUND, "xnnpack: %s: constant %u needs named data '%s' but there is no named data map",
                      what, idx, key.ptr);
        if (!pte_xnn_grow((void **)&c->tmp, &c->cap_tmp, c->n_tmp + 1, sizeof(pte_freeable_buffer)))
          return CERR(c, PTE_ERR_MEMORY_ALLOCATION_FAILED, "xnnpack: out of memory");
        pte_freeable_buffer fbuf;
        memset(&fbuf, 0, sizeof fbuf);
        pte_status s = pte_named_data_map_get_data(c->ndm, key.ptr, &fbuf);
        if (s != PTE_OK) {
          if (s == PTE_ERR_NOT_FOUND)
            return CERR(c, PTE_ERR_NOT_FOUND, "xnnpack: %s: named data key '%s' (constant %u) not found", what, key.ptr,
                        idx);
          return CERR(c, s, "xnnpack: %s: cannot load named data '%s' (%s)", what, key.ptr, pte_status_name(s));
        }
        c->tmp[c->n_tmp] = fbuf;
        sl->buf = (int)c->n_tmp++;
        uint32_t xkind = 0;
        const uint8_t *xp = NULL;
        size_t xs = 0;
        if (c->xpb && !c->d->repack_prepared && pte_xnn_xpb_find(c->xpb, idx, &xkind, &xp, &xs) &&
            xkind == PTE_XNN_XPB_NAMED && fbuf.data && fbuf.size >= PTE_PREPARED_HEADER_SIZE &&
            fbuf.size - PTE_PREPARED_HEADER_SIZE == xs) {
          /* the container says `pte prepare` packed this value: its payload follows the
           * 128-byte envelope header. Nothing is read here (the pages stay untouched until the
           * first execute, which checks the envelope and the panel headers before any kernel
           * reads them). */
          sl->prepared = true;
          sl->deferred = true;
          sl->p = (const uint8_t *)fbuf.data + PTE_PREPARED_HEADER_SIZE;
          sl->size = xs;
        } else if (pte_prepared_is_envelope(fbuf.data, fbuf.size)) {
          /* packed by `pte prepare`: the payload is used in place (or re-laid out, see prep_*) */
          pte_prepared_info pi;
          bool foreign = false;
          s = pte_xnn_envelope_check(fbuf.data, fbuf.size, c->d->k, c->d->repack_prepared, &pi, &foreign, c->err);
          if (s != PTE_OK) return s;
          sl->prepared = true;
          sl->foreign = foreign;
          sl->p = pi.payload;
          sl->size = (size_t)pi.payload_size;
        } else {
          sl->p = (const uint8_t *)fbuf.data;
          sl->size = fbuf.size;
          if (sz != 0 && sz != UINT64_MAX && sl->size > sz) sl->size = (size_t)sz;
        }
      } else if (c->xpb) {
        uint32_t kind = 0;
        if (!pte_xnn_xpb_find(c->xpb, idx, &kind, &sl->p, &sl->size))
          return CERR(c, PTE_ERR_INVALID_PROGRAM, "xnnpack: %s: constant %u is missing from the prepared blob", what, idx);
        if (kind == PTE_XNN_XPB_NAMED)
          return CERR(c, PTE_ERR_INVALID_PROGRAM,
                      "xnnpack: %s: constant %u has no named key but the prepared blob lists it as named data", what, idx);
        sl->prepared = kind == PTE_XNN_XPB_PACKED;
        sl->foreign = sl->prepared && c->xpb_foreign;
        sl->in_blob = sl->prepared;
      } else {
        if (off > c->csize || sz > c->csize - off)
          return CERR(c, PTE_ERR_INVALID_PROGRAM,
                      "xnnpack: %s: constant %u [%llu, +%llu) is outside the %llu-byte constant region", what, idx,
                      (unsigned long long)off, (unsigned long long)sz, (unsigned long long)c->csize);
        sl->p = c->cdata + off;
        sl->size = (size_t)sz;
      }
      sl->loaded = true;
    }
    if (slot_out) *slot_out = sl;
    if (sl->prepared) { /* packed bytes: their layout is checked by the node that packs them */
      *out = sl->p;
      *out_size = sl->size;
      *buf_index = sl->buf;
      return PTE_OK;
    }
    if (sl->size < need)
      return CERR(c, PTE_ERR_INVALID_PROGRAM, "xnnpack: %s: constant %u has %zu bytes, %zu needed", what, idx,
                  sl->size, need);
    /* kernels read constants through float/int32 pointers: the exporter aligns them to 16 */
    if (sl->size >= 4 && ((uintptr_t)sl->p & 3u) != 0)
      return CERR(c, PTE_ERR_INVALID_PROGRAM, "xnnpack: %s: constant %u is not 4-byte aligned in memory", what, idx);
    *out = sl->p;
    *out_size = sl->size;
    *buf_index = sl->buf;
    return PTE_OK;
  }
  /* bare flatbuffer: the deprecated constant_buffer table */
  pte_fb_vec cb = pte_xn_XNNGraph_constant_buffer(c->root);
  if (!cb.present || idx >= cb.len)
    return CERR(c, PTE_ERR_INVALID_PROGRAM, "xnnpack: %s: constant index %u out of range (%u constant_buffer entries)",
                what, idx, cb.present ? cb.len : 0u);
  pte_fb_table e = pte_fb_vec_table(cb, idx);
  pte_fb_vec st = pte_fb_table_present(e) ? pte_xn_Buffer_storage(e) : (pte_fb_vec){0};
  size_t have = st.present ? st.len : 0;
  if (have < need)
    return CERR(c, PTE_ERR_INVALID_PROGRAM, "xnnpack: %s: constant_buffer[%u] has %zu bytes, %zu needed", what, idx,
                have, need);
  *out = have ? pte_fb_vec_data(st) : NULL;
  *out_size = have;
  return PTE_OK;
}

static int idcmp(const void *a, const void *b) {
  const idmap_entry *x = (const idmap_entry *)a, *y = (const idmap_entry *)b;
  return x->id < y->id ? -1 : (x->id > y->id ? 1 : 0);
}

bool pte_xnn_cc_lookup_id(const cctx *c, uint32_t id, uint32_t *idx) {
  size_t lo = 0, hi = c->n_ids;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (c->ids[mid].id == id) {
      *idx = c->ids[mid].idx;
      return true;
    }
    if (c->ids[mid].id < id) lo = mid + 1;
    else hi = mid;
  }
  return false;
}

static pte_xnn_value *new_value(pte_xnn_delegate *d) {
  if (!pte_xnn_reserve((void **)&d->values, &d->cap_values, d->n_values + 1, sizeof(pte_xnn_value))) return NULL;
  pte_xnn_value *v = &d->values[d->n_values++];
  memset(v, 0, sizeof *v);
  v->def_node = -1;
  v->last_use = -1;
  v->external_id = PTE_XNN_INVALID_ID;
  return v;
}

pte_xnn_node *pte_xnn_cc_new_node(pte_xnn_delegate *d) {
  if (!pte_xnn_reserve((void **)&d->nodes, &d->cap_nodes, d->n_nodes + 1, sizeof(pte_xnn_node))) return NULL;
  pte_xnn_node *n = &d->nodes[d->n_nodes++];
  memset(n, 0, sizeof *n);
  for (int i = 0; i < 5; i++) n->in[i] = PTE_XNN_INVALID_ID;
  n->out[0] = n->out[1] = PTE_XNN_INVALID_ID;
  n->out_min = -INFINITY;
  n->out_max = INFINITY;
  return n;
}

/* ============================================================================ values */

static bool scale_ok(float s) { return isfinite(s) && s > 0.0f; }

/* PerChannelGroupQuant (qbint4 blockwise weights; the rules in xnn_q4.h). */
static pte_status parse_group_quant(cctx *c, uint32_t vi, pte_xnn_value *v, pte_fb_table qp) {
  if (v->dtype != PTE_XD_QBINT4)
    return CERR(c, PTE_ERR_NOT_IMPLEMENTED, "xnnpack: value %u (id %u): blockwise quantization on %s", vi, v->id,
                pte_xnn_dtype_name(v->dtype));
  if (v->rank != 2)
    return CERR(c, PTE_ERR_INVALID_PROGRAM, "xnnpack: value %u (id %u): qbint4 tensor has rank %u, 2 expected", vi, v->id,
                (unsigned)v->rank);
  const int32_t cd = pte_xn_PerChannelGroupQuant_channel_dim(qp);
  if (cd != 0)
    return CERR(c, PTE_ERR_NOT_IMPLEMENTED, "xnnpack: value %u (id %u): qbint4 channel_dim %d (0 supported)", vi, v->id,
                (int)cd);
  const int32_t bs = pte_xn_PerChannelGroupQuant_group_size(qp);
  const size_t nout = v->decl[0], kdim = v->decl[1];
  if (bs <= 0 || (uint32_t)bs % 32u != 0)
    return CERR(c, PTE_ERR_INVALID_PROGRAM, "xnnpack: value %u (id %u): qbint4 block size %d is not a positive multiple of 32",
                vi, v->id, (int)bs);
  if (kdim % (size_t)bs != 0)
    return CERR(c, PTE_ERR_INVALID_PROGRAM, "xnnpack: value %u (id %u): qbint4 block size %d does not divide K = %zu", vi,
                v->id, (int)bs, kdim);
  const size_t want = nout * (kdim / (size_t)bs);
  v->block_size = (uint32_t)bs;
  const uint32_t sbi = pte_xn_PerChannelGroupQuant_scale_buffer_idx(qp);
  pte_fb_vec s16 = pte_xn_PerChannelGroupQuant_scale_bf16(qp), s32 = pte_xn_PerChannelGroupQuant_scale(qp);
  /* the count is checked against what is serialized before anything is allocated */
  if (sbi) { /* bf16 scales in constant data (current exporters) */
    const uint32_t ns = pte_xn_PerChannelGroupQuant_num_scales(qp);
    if (ns != want)
      return CERR(c, PTE_ERR_INVALID_PROGRAM, "xnnpack: value %u (id %u): num_scales %u, %zu blocks (N %zu x K %zu / %d)",
                  vi, v->id, ns, want, nout, kdim, (int)bs);
    v->scale_index = sbi; /* resolved by load_group_scales: not touched when the weight is prepared */
  } else if (s16.present) {
    if (s16.len != want)
      return CERR(c, PTE_ERR_INVALID_PROGRAM, "xnnpack: value %u (id %u): %u bf16 scales, %zu blocks (N %zu x K %zu / %d)",
                  vi, v->id, s16.len, want, nout, kdim, (int)bs);
  } else if (!s32.present || s32.len != want) {
    return CERR(c, PTE_ERR_INVALID_PROGRAM, "xnnpack: value %u (id %u): %u scales, %zu blocks (N %zu x K %zu / %d)", vi,
                v->id, s32.present ? s32.len : 0u, want, nout, kdim, (int)bs);
  }
  v->n_block_scales = want;
  return PTE_OK;
}

/* The block scales of a qbint4 value that parse_group_quant accepted: resolved, copied as bf16 and
 * checked. Only for weights packed at init: prepared panels (`pte prepare`) already hold the
 * scales that prepare checked, so a prepared weight skips this and never touches the serialized
 * scales (its packed header is checked against the node's layout in use_prepared instead). */
static pte_status load_group_scales(cctx *c, uint32_t vi, pte_xnn_value *v, pte_fb_table qp) {
  pte_xnn_delegate *d = c->d;
  const size_t want = v->n_block_scales;
  const uint32_t sbi = pte_xn_PerChannelGroupQuant_scale_buffer_idx(qp);
  pte_fb_vec s16 = pte_xn_PerChannelGroupQuant_scale_bf16(qp), s32 = pte_xn_PerChannelGroupQuant_scale(qp);
  const uint8_t *src = NULL;
  if (sbi) {
    size_t psz;
    int bi;
    const cslot *sl;
    pte_status s = get_constant(c, sbi, want * sizeof(uint16_t), "block scales", &src, &psz, &bi, &sl);
    if (s != PTE_OK) return s;
    if (sl && sl->prepared)
      return CERR(c, PTE_ERR_INVALID_PROGRAM, "xnnpack: value %u (id %u): block scales constant %u holds prepared (packed) data",
                  vi, v->id, sbi);
  } else if (s16.present) {
    src = pte_fb_vec_data(s16);
  }
  v->block_scales = (uint16_t *)malloc((want ? want : 1) * sizeof(uint16_t));
  if (!v->block_scales || !pte_xnn_cc_own(d, (uint8_t *)v->block_scales)) {
    free(v->block_scales);
    v->block_scales = NULL;
    return CERR(c, PTE_ERR_MEMORY_ALLOCATION_FAILED, "xnnpack: out of memory");
  }
  if (src) {
    for (size_t i = 0; i < want; i++) v->block_scales[i] = (uint16_t)(src[2 * i] | (src[2 * i + 1] << 8));
  } else {
    for (size_t i = 0; i < want; i++) {
      uint32_t bits = pte_fb_vec_u32(s32, (uint32_t)i);
      float f;
      memcpy(&f, &bits, 4);
      v->block_scales[i] = pte_xnn_f32_to_bf16_upstream(f);
    }
  }
  for (size_t i = 0; i < want; i++) {
    const float f = pte_xnn_bf16_to_f32(v->block_scales[i]);
    if (!(f > 0.0f) || !isnormal(f))
      return CERR(c, PTE_ERR_INVALID_PROGRAM,
                  "xnnpack: value %u (id %u): block scale %zu (bf16 bits 0x%x) is not finite, normal and positive", vi, v->id, i,
                  (unsigned)v->block_scales[i]);
  }
  return PTE_OK;
}

pte_status pte_xnn_cc_parse_value(cctx *c, uint32_t vi, pte_fb_table xv, uint32_t *n_legacy_dq) {
  pte_xnn_delegate *d = c->d;
  uint8_t tag = pte_xn_XValue_xvalue_union_type(xv);
  pte_fb_table u = pte_xn_XValue_xvalue_union(xv);
  pte_fb_table tv, qp = {0};
  uint8_t qtag = 0;
  if (tag == pte_xn_XValueUnion_XNNTensorValue) {
    tv = u;
  } else if (tag == pte_xn_XValueUnion_XNNQuantizedTensorValue) {
    tv = pte_xn_XNNQuantizedTensorValue_tensor_value(u);
    qtag = pte_xn_XNNQuantizedTensorValue_quant_params_type(u);
    qp = pte_xn_XNNQuantizedTensorValue_quant_params(u);
    if (qtag == 0 || !pte_fb_table_present(qp))
      return CERR(c, PTE_ERR_INVALID_PROGRAM, "xnnpack: value %u: quantized tensor without quant_params", vi);
  } else {
    return CERR(c, PTE_ERR_INVALID_PROGRAM, "xnnpack: value %u: unknown value kind %u", vi, tag);
  }
  if (!pte_fb_table_present(tv)) return CERR(c, PTE_ERR_INVALID_PROGRAM, "xnnpack: value %u: missing tensor_value", vi);

  pte_xnn_value *v = new_value(d);
  if (!v) return CERR(c, PTE_ERR_MEMORY_ALLOCATION_FAILED, "xnnpack: out of memory");
  int16_t dt = pte_xn_XNNTensorValue_datatype(tv);
  if (dt <= 0 || dt >= PTE_XD_COUNT)
    return CERR(c, PTE_ERR_INVALID_PROGRAM, "xnnpack: value %u: invalid datatype %d", vi, (int)dt);
  v->dtype = (uint16_t)dt;
  pte_fb_vec dims = pte_xn_XNNTensorValue_dims(tv);
  uint32_t rank = dims.present ? dims.len : 0;
  uint32_t num_dims = pte_xn_XNNTensorValue_num_dims(tv);
  if (rank > PTE_XNN_MAX_DIMS)
    return CERR(c, PTE_ERR_INVALID_PROGRAM, "xnnpack: value %u: %u dims (at most %d)", vi, rank, PTE_XNN_MAX_DIMS);
  if (num_dims != rank)
    return CERR(c, PTE_ERR_INVALID_PROGRAM, "xnnpack: value %u: num_dims %u but %u dims listed", vi, num_dims, rank);
  v->rank = (uint8_t)rank;
  size_t numel = 1;
  for (uint32_t i = 0; i < rank; i++) {
    uint32_t x = pte_fb_vec_u32(dims, i);
    if (x > 0x7FFFFFFFu) return CERR(c, PTE_ERR_INVALID_PROGRAM, "xnnpack: value %u: dim %u = %u too large", vi, i, x);
    v->decl[i] = v->shape[i] = x;
    if (x && numel > ((size_t)1 << 40) / x)
      return CERR(c, PTE_ERR_INVALID_PROGRAM, "xnnpack: value %u: too many elements", vi);
    numel *= x;
  }
  v->numel = numel;
  v->id = pte_xn_XNNTensorValue_id_out(tv);
  uint32_t flags = pte_xn_XNNTensorValue_flags(tv);
  if (flags & ~(PTE_XNN_VALUE_FLAG_EXTERNAL_INPUT | PTE_XNN_VALUE_FLAG_EXTERNAL_OUTPUT))
    return CERR(c, PTE_ERR_INVALID_PROGRAM, "xnnpack: value %u (id %u): unsupported flags 0x%x", vi, v->id, flags);
  v->is_input = (flags & PTE_XNN_VALUE_FLAG_EXTERNAL_INPUT) != 0;
  v->is_output = (flags & PTE_XNN_VALUE_FLAG_EXTERNAL_OUTPUT) != 0;
  if (v->is_input || v->is_output) v->external_id = pte_xn_XNNTensorValue_external_id(tv);

  /* quantization */
  v->scale = 1.0f;
  switch (qtag) {
    case 0:
      if (dt != PTE_XD_FP32 && dt != PTE_XD_FP16 && dt != PTE_XD_INT32 && dt != PTE_XD_BF16)
        return CERR(c, PTE_ERR_INVALID_PROGRAM, "xnnpack: value %u (id %u): %s tensor without quantization parameters",
                    vi, v->id, pte_xnn_dtype_name(dt));
      break;
    case pte_xn_XNNQuantParams_PerTensorQuant: {
      v->scale = pte_xn_PerTensorQuant_scale(qp);
      v->zero_point = pte_xn_PerTensorQuant_zero_point(qp);
      if (dt != PTE_XD_QINT8 && dt != PTE_XD_QUINT8 && dt != PTE_XD_QINT32)
        return CERR(c, PTE_ERR_INVALID_PROGRAM, "xnnpack: value %u (id %u): per-tensor quantization on %s", vi, v->id,
                    pte_xnn_dtype_name(dt));
      if (!scale_ok(v->scale))
        return CERR(c, PTE_ERR_INVALID_PROGRAM, "xnnpack: value %u (id %u): invalid scale", vi, v->id);
      int32_t lo = dt == PTE_XD_QINT8 ? -128 : (dt == PTE_XD_QUINT8 ? 0 : 0);
      int32_t hi = dt == PTE_XD_QINT8 ? 127 : (dt == PTE_XD_QUINT8 ? 255 : 0);
      if (v->zero_point < lo || v->zero_point > hi)
        return CERR(c, PTE_ERR_INVALID_PROGRAM, "xnnpack: value %u (id %u): zero point %d out of range for %s", vi, v->id,
                    (int)v->zero_point, pte_xnn_dtype_name(dt));
      break;
    }
    case pte_xn_XNNQuantParams_PerChannelQuant: {
      if (dt != PTE_XD_QCINT8 && dt != PTE_XD_QCINT32 && dt != PTE_XD_QCINT4)
        return CERR(c, PTE_ERR_NOT_IMPLEMENTED, "xnnpack: value %u (id %u): per-channel quantization on %s", vi, v->id,
                    pte_xnn_dtype_name(dt));
      int32_t cd = pte_xn_PerChannelQuant_channel_dim(qp);
      if (cd < 0 || (uint32_t)cd >= rank)
        return CERR(c, PTE_ERR_INVALID_PROGRAM, "xnnpack: value %u (id %u): channel_dim %d out of range", vi, v->id, (int)cd);
      v->channel_dim = (uint32_t)cd;
      size_t nch = v->decl[cd];
      /* the scales' source is resolved and its length checked before anything is allocated, so a
       * declared channel count the blob does not back is refused without allocating for it */
      uint32_t sbi = pte_xn_PerChannelQuant_scale_buffer_idx(qp);
      const uint8_t *p = NULL;
      pte_fb_vec sc = pte_xn_PerChannelQuant_scale(qp);
      if (sbi) {
        size_t psz;
        int bi;
        const cslot *sl;
        v->scale_index = sbi;
        if (nch > SIZE_MAX / sizeof(float))
          return CERR(c, PTE_ERR_INVALID_PROGRAM, "xnnpack: value %u (id %u): %zu channels", vi, v->id, nch);
        pte_status s = get_constant(c, sbi, nch * sizeof(float), "per-channel scales", &p, &psz, &bi, &sl);
        if (s != PTE_OK) return s;
        if (sl && sl->prepared)
          return CERR(c, PTE_ERR_INVALID_PROGRAM, "xnnpack: value %u (id %u): per-channel scales constant %u holds prepared (packed) data",
                      vi, v->id, sbi);
      } else if (!sc.present || sc.len != nch) {
        return CERR(c, PTE_ERR_INVALID_PROGRAM, "xnnpack: value %u (id %u): %u scales for %zu channels", vi, v->id,
                    sc.present ? sc.len : 0u, nch);
      }
      v->channel_scales = (float *)malloc((nch ? nch : 1) * sizeof(float));
      if (!v->channel_scales || !pte_xnn_cc_own(d, (uint8_t *)v->channel_scales)) {
        free(v->channel_scales);
        v->channel_scales = NULL;
        return CERR(c, PTE_ERR_MEMORY_ALLOCATION_FAILED, "xnnpack: out of memory");
      }
      v->n_channel_scales = (uint32_t)nch;
      if (p) {
        memcpy(v->channel_scales, p, nch * sizeof(float));
      } else {
        for (size_t i = 0; i < nch; i++) {
          uint32_t bits = pte_fb_vec_u32(sc, (uint32_t)i);
          memcpy(&v->channel_scales[i], &bits, 4);
        }
      }
      for (size_t i = 0; i < nch; i++)
        if (!scale_ok(v->channel_scales[i]))
          return CERR(c, PTE_ERR_INVALID_PROGRAM, "xnnpack: value %u (id %u): invalid scale for channel %zu", vi, v->id, i);
      break;
    }
    case pte_xn_XNNQuantParams_PerTokenDynamicQuant: {
      if (dt != PTE_XD_QDINT8)
        return CERR(c, PTE_ERR_NOT_IMPLEMENTED, "xnnpack: value %u (id %u): dynamic quantization to %s", vi, v->id,
                    pte_xnn_dtype_name(dt));
      int32_t nb = pte_xn_PerTokenDynamicQuant_num_nonbatch_dims(qp);
      if (nb < 1 || (uint32_t)nb > (rank ? rank : 1))
        return CERR(c, PTE_ERR_INVALID_PROGRAM, "xnnpack: value %u (id %u): num_nonbatch_dims %d out of range", vi, v->id,
                    (int)nb);
      v->num_nonbatch_dims = nb;
      break;
    }
    case pte_xn_XNNQuantParams_PerChannelGroupQuant: {
      pte_status s = parse_group_quant(c, vi, v, qp);
      if (s != PTE_OK) return s;
      break;
    }
    default:
      return CERR(c, PTE_ERR_INVALID_PROGRAM, "xnnpack: value %u: unknown quantization kind %u", vi, qtag);
  }
  if (dt == PTE_XD_QDINT8 && qtag != pte_xn_XNNQuantParams_PerTokenDynamicQuant)
    return CERR(c, PTE_ERR_INVALID_PROGRAM, "xnnpack: value %u (id %u): qdint8 needs PerTokenDynamicQuant", vi, v->id);
  if (dt == PTE_XD_QBINT4 && qtag != pte_xn_XNNQuantParams_PerChannelGroupQuant)
    return CERR(c, PTE_ERR_INVALID_PROGRAM, "xnnpack: value %u (id %u): qbint4 needs PerChannelGroupQuant", vi, v->id);
  const bool four_bit = dt == PTE_XD_QCINT4 || dt == PTE_XD_QBINT4;
  if ((dt == PTE_XD_QCINT8 || dt == PTE_XD_QCINT32 || dt == PTE_XD_QCINT4) && qtag != pte_xn_XNNQuantParams_PerChannelQuant)
    return CERR(c, PTE_ERR_INVALID_PROGRAM, "xnnpack: value %u (id %u): %s needs PerChannelQuant", vi, v->id,
                pte_xnn_dtype_name(dt));
  if (pte_xnn_dtype_size(dt) == 0 && !four_bit)
    return CERR(c, PTE_ERR_NOT_IMPLEMENTED, "xnnpack: value %u (id %u): datatype %s is not supported", vi, v->id,
                pte_xnn_dtype_name(dt));
  /* 4-bit filters: constant [N, K], two weights per byte (xnn_q4.h) */
  size_t cbytes = v->numel * pte_xnn_dtype_size(dt);
  if (four_bit) {
    if (rank != 2)
      return CERR(c, PTE_ERR_INVALID_PROGRAM, "xnnpack: value %u (id %u): %s tensor has rank %u, 2 expected", vi, v->id,
                  pte_xnn_dtype_name(dt), rank);
    if (dt == PTE_XD_QCINT4 && (v->decl[1] & 1u))
      return CERR(c, PTE_ERR_NOT_IMPLEMENTED, "xnnpack: value %u (id %u): qcint4 tensor with an odd inner dim %zu", vi,
                  v->id, v->decl[1]);
    if (dt == PTE_XD_QCINT4 && v->channel_dim != 0)
      return CERR(c, PTE_ERR_NOT_IMPLEMENTED, "xnnpack: value %u (id %u): qcint4 tensor with channel_dim %u (0 supported)",
                  vi, v->id, v->channel_dim);
    if (!pte_xn_XNNTensorValue_constant_buffer_idx(tv))
      return CERR(c, PTE_ERR_NOT_IMPLEMENTED, "xnnpack: value %u (id %u): %s tensor must be constant", vi, v->id,
                  pte_xnn_dtype_name(dt));
    cbytes = (v->numel + 1) / 2;
  }

  /* constant data */
  uint32_t cbi = pte_xn_XNNTensorValue_constant_buffer_idx(tv);
  if (cbi) {
    if (v->is_input || v->is_output)
      return CERR(c, PTE_ERR_INVALID_PROGRAM, "xnnpack: value %u (id %u): an external value cannot be constant", vi, v->id);
    if (dt == PTE_XD_QDINT8)
      return CERR(c, PTE_ERR_INVALID_PROGRAM, "xnnpack: value %u (id %u): qdint8 value cannot be constant", vi, v->id);
    const uint8_t *p;
    size_t psz;
    int bi;
    const cslot *sl;
    pte_status s = get_constant(c, cbi, cbytes, "tensor data", &p, &psz, &bi, &sl);
    if (s != PTE_OK) return s;
    v->is_const = true;
    v->const_index = cbi;
    if (sl && sl->prepared) {
      v->prep = p;
      v->prep_size = psz;
      v->prep_foreign = sl->foreign;
      v->prep_in_blob = sl->in_blob;
      v->prep_deferred = sl->deferred;
    } else {
      v->cdata = p;
      v->csize = cbytes;
    }
  }

  if (qtag == pte_xn_XNNQuantParams_PerChannelGroupQuant && !v->prep) {
    pte_status s = load_group_scales(c, vi, v, qp);
    if (s != PTE_OK) return s;
  }

  int16_t dq = pte_xn_XNNTensorValue_dq_datatype(tv);
  if (dq != PTE_XD_INVALID) {
    if (dq != PTE_XD_QINT8)
      return CERR(c, PTE_ERR_NOT_IMPLEMENTED, "xnnpack: value %u (id %u): dq_datatype %d not supported", vi, v->id, (int)dq);
    if (!v->is_input || dt != PTE_XD_FP32 || v->is_const)
      return CERR(c, PTE_ERR_INVALID_PROGRAM,
                  "xnnpack: value %u (id %u): dq_datatype is only allowed on fp32 external inputs", vi, v->id);
    (*n_legacy_dq)++;
  }
  return PTE_OK;
}

/* Legacy dq_datatype inputs: the fp32 external keeps a hidden id; a new qdint8 value takes the
 * serialized id and a Convert node (run first) fills it. */
pte_status pte_xnn_cc_expand_legacy_dq(cctx *c, pte_fb_vec xvalues) {
  pte_xnn_delegate *d = c->d;
  size_t n = d->n_values;
  for (size_t i = 0; i < n; i++) {
    pte_fb_table xv = pte_fb_vec_table(xvalues, (uint32_t)i);
    pte_fb_table u = pte_xn_XValue_xvalue_union(xv);
    pte_fb_table tv = pte_xn_XValue_xvalue_union_type(xv) == pte_xn_XValueUnion_XNNTensorValue
                          ? u
                          : pte_xn_XNNQuantizedTensorValue_tensor_value(u);
    if (pte_xn_XNNTensorValue_dq_datatype(tv) == PTE_XD_INVALID) continue;
    pte_xnn_value *q = new_value(d);
    if (!q) return CERR(c, PTE_ERR_MEMORY_ALLOCATION_FAILED, "xnnpack: out of memory");
    pte_xnn_value *f = &d->values[i];
    *q = *f;
    q->dtype = PTE_XD_QDINT8;
    q->is_input = q->is_output = false;
    q->external_id = PTE_XNN_INVALID_ID;
    q->num_nonbatch_dims = 1;
    q->scale = 1.0f;
    f->hidden = true;
    pte_xnn_node *nd = pte_xnn_cc_new_node(d);
    if (!nd) return CERR(c, PTE_ERR_MEMORY_ALLOCATION_FAILED, "xnnpack: out of memory");
    nd->type = pte_xn_XNodeUnion_XNNConvert;
    nd->n_in = 1;
    nd->n_out = 1;
    nd->in[0] = (uint32_t)i;
    nd->out[0] = (uint32_t)(d->n_values - 1);
  }
  return PTE_OK;
}

pte_status pte_xnn_cc_build_idmap(cctx *c) {
  pte_xnn_delegate *d = c->d;
  c->ids = (idmap_entry *)malloc((d->n_values ? d->n_values : 1) * sizeof(idmap_entry));
  if (!c->ids) return CERR(c, PTE_ERR_MEMORY_ALLOCATION_FAILED, "xnnpack: out of memory");
  c->n_ids = 0;
  for (size_t i = 0; i < d->n_values; i++) {
    if (d->values[i].hidden) continue;
    c->ids[c->n_ids].id = d->values[i].id;
    c->ids[c->n_ids].idx = (uint32_t)i;
    c->n_ids++;
  }
  qsort(c->ids, c->n_ids, sizeof(idmap_entry), idcmp);
  for (size_t i = 1; i < c->n_ids; i++)
    if (c->ids[i].id == c->ids[i - 1].id)
      return CERR(c, PTE_ERR_INVALID_PROGRAM, "xnnpack: two values have id %u", c->ids[i].id);
  for (size_t i = 0; i < c->n_ids; i++)
    if (c->ids[i].id == PTE_XNN_INVALID_ID)
      return CERR(c, PTE_ERR_INVALID_PROGRAM, "xnnpack: a value uses the reserved id 0xFFFFFFFF");
  return PTE_OK;
}
