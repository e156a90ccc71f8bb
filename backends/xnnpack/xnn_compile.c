/* Blob parsing and verification, graph construction, memory planning, execute. */
#define _POSIX_C_SOURCE 200809L
#include <time.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "format/flatbuf.h"
#include "pte_gen/xnnpack_gen.h"
#include "xnn_internal.h"
#include "xnn_q4.h"

/* ============================================================================ small helpers */

static bool grow(void **arr, size_t *cap, size_t need, size_t elem) {
  if (need <= *cap) return true;
  size_t nc = *cap ? *cap * 2 : 16;
  while (nc < need) nc *= 2;
  void *p = realloc(*arr, nc * elem);
  if (!p) return false;
  memset((uint8_t *)p + *cap * elem, 0, (nc - *cap) * elem);
  *arr = p;
  *cap = nc;
  return true;
}

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

typedef struct cslot {
  bool loaded;
  const uint8_t *p;
  size_t size;
  int buf; /* index into tmp buffers, -1 if not a loaded buffer */
  bool prepared; /* p/size: packed weights from `pte prepare` (envelope payload or XPB1 entry) */
  bool foreign;  /* ... made for another ISA / tile (accepted with repack_prepared) */
  bool in_blob;  /* ... inside the processed blob */
} cslot;

typedef struct idmap_entry {
  uint32_t id, idx;
} idmap_entry;

typedef struct cctx {
  pte_xnn_delegate *d;
  const uint8_t *fb;
  size_t fb_size;
  pte_fb_table root;
  bool has_header;
  const uint8_t *cdata;
  uint64_t csize;
  const pte_xnn_xpb *xpb; /* prepared inline blob: constants come from its table */
  bool xpb_foreign;
  const pte_named_data_map *ndm;
  pte_error_info *err;
  cslot *slots;
  size_t n_slots;
  pte_freeable_buffer *tmp;
  size_t n_tmp, cap_tmp;
  idmap_entry *ids;
  size_t n_ids;
} cctx;

#define CERR(c, st, ...) pte_error_set((c)->err, (st), __VA_ARGS__)

static void cctx_release(cctx *c) {
  for (size_t i = 0; i < c->n_tmp; i++) pte_freeable_buffer_free(&c->tmp[i]);
  free(c->tmp);
  free(c->slots);
  free(c->ids);
  c->tmp = NULL;
  c->slots = NULL;
  c->ids = NULL;
}

static bool own(pte_xnn_delegate *d, uint8_t *p) {
  if (!grow((void **)&d->owned, &d->cap_owned, d->n_owned + 1, sizeof(uint8_t *))) return false;
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
        if (!grow((void **)&c->tmp, &c->cap_tmp, c->n_tmp + 1, sizeof(pte_freeable_buffer)))
          return CERR(c, PTE_ERR_MEMORY_ALLOCATION_FAILED, "xnnpack: out of memory");
        pte_freeable_buffer fbuf;
        memset(&fbuf, 0, sizeof fbuf);
        pte_status s = pte_ndm_get_data(c->ndm, key.ptr, &fbuf);
        if (s != PTE_OK) {
          if (s == PTE_ERR_NOT_FOUND)
            return CERR(c, PTE_ERR_NOT_FOUND, "xnnpack: %s: named data key '%s' (constant %u) not found", what, key.ptr,
                        idx);
          return CERR(c, s, "xnnpack: %s: cannot load named data '%s' (%s)", what, key.ptr, pte_status_name(s));
        }
        c->tmp[c->n_tmp] = fbuf;
        sl->buf = (int)c->n_tmp++;
        if (pte_prepared_is_envelope(fbuf.data, fbuf.size)) {
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

static bool lookup_id(const cctx *c, uint32_t id, uint32_t *idx) {
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
  if (!grow((void **)&d->values, &d->cap_values, d->n_values + 1, sizeof(pte_xnn_value))) return NULL;
  pte_xnn_value *v = &d->values[d->n_values++];
  memset(v, 0, sizeof *v);
  v->def_node = -1;
  v->last_use = -1;
  v->external_id = PTE_XNN_INVALID_ID;
  return v;
}

static pte_xnn_node *new_node(pte_xnn_delegate *d) {
  if (!grow((void **)&d->nodes, &d->cap_nodes, d->n_nodes + 1, sizeof(pte_xnn_node))) return NULL;
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
  if (!v->block_scales || !own(d, (uint8_t *)v->block_scales)) {
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

static pte_status parse_value(cctx *c, uint32_t vi, pte_fb_table xv, uint32_t *n_legacy_dq) {
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
      v->channel_scales = (float *)malloc((nch ? nch : 1) * sizeof(float));
      if (!v->channel_scales || !own(d, (uint8_t *)v->channel_scales)) {
        free(v->channel_scales);
        v->channel_scales = NULL;
        return CERR(c, PTE_ERR_MEMORY_ALLOCATION_FAILED, "xnnpack: out of memory");
      }
      v->n_channel_scales = (uint32_t)nch;
      uint32_t sbi = pte_xn_PerChannelQuant_scale_buffer_idx(qp);
      if (sbi) {
        const uint8_t *p;
        size_t psz;
        int bi;
        const cslot *sl;
        v->scale_index = sbi;
        pte_status s = get_constant(c, sbi, nch * sizeof(float), "per-channel scales", &p, &psz, &bi, &sl);
        if (s != PTE_OK) return s;
        if (sl && sl->prepared)
          return CERR(c, PTE_ERR_INVALID_PROGRAM, "xnnpack: value %u (id %u): per-channel scales constant %u holds prepared (packed) data",
                      vi, v->id, sbi);
        memcpy(v->channel_scales, p, nch * sizeof(float));
      } else {
        pte_fb_vec sc = pte_xn_PerChannelQuant_scale(qp);
        if (!sc.present || sc.len != nch)
          return CERR(c, PTE_ERR_INVALID_PROGRAM, "xnnpack: value %u (id %u): %u scales for %zu channels", vi, v->id,
                      sc.present ? sc.len : 0u, nch);
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
static pte_status expand_legacy_dq(cctx *c, pte_fb_vec xvalues) {
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
    pte_xnn_node *nd = new_node(d);
    if (!nd) return CERR(c, PTE_ERR_MEMORY_ALLOCATION_FAILED, "xnnpack: out of memory");
    nd->type = pte_xn_XNodeUnion_XNNConvert;
    nd->n_in = 1;
    nd->n_out = 1;
    nd->in[0] = (uint32_t)i;
    nd->out[0] = (uint32_t)(d->n_values - 1);
  }
  return PTE_OK;
}

static pte_status build_idmap(cctx *c) {
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

/* ============================================================================ nodes */

static pte_status map_id(cctx *c, size_t ni, unsigned type, const char *field, uint32_t id, bool optional,
                         uint32_t *out) {
  if (optional && id == PTE_XNN_INVALID_ID) {
    *out = PTE_XNN_INVALID_ID;
    return PTE_OK;
  }
  if (!lookup_id(c, id, out))
    return CERR(c, PTE_ERR_INVALID_PROGRAM, "xnnpack: node %zu (%s): %s %u is not a defined value", ni,
                pte_xnn_node_name(type), field, id);
  return PTE_OK;
}

static pte_status read_dims_vec(cctx *c, size_t ni, unsigned type, const char *what, pte_fb_vec vv, uint32_t n,
                                size_t *out) {
  if (n > PTE_XNN_MAX_DIMS)
    return CERR(c, PTE_ERR_INVALID_PROGRAM, "xnnpack: node %zu (%s): %u dims (at most %d)", ni, pte_xnn_node_name(type),
                n, PTE_XNN_MAX_DIMS);
  if (n > 0 && (!vv.present || vv.len != n))
    return CERR(c, PTE_ERR_INVALID_PROGRAM, "xnnpack: node %zu (%s): %s has %u entries, %u expected", ni,
                pte_xnn_node_name(type), what, vv.present ? vv.len : 0u, n);
  for (uint32_t i = 0; i < n; i++) out[i] = pte_fb_vec_u32(vv, i);
  return PTE_OK;
}

#define MAP(field, id, opt, dst)                                               \
  do {                                                                         \
    pte_status s_ = map_id(c, ni, type, field, (id), (opt), (dst));            \
    if (s_ != PTE_OK) return s_;                                               \
  } while (0)

static pte_status parse_node(cctx *c, size_t ni, pte_fb_table xn) {
  pte_xnn_delegate *d = c->d;
  unsigned type = pte_xn_XNode_xnode_union_type(xn);
  pte_fb_table t = pte_xn_XNode_xnode_union(xn);
  if (type == 0 || !pte_fb_table_present(t))
    return CERR(c, PTE_ERR_INVALID_PROGRAM, "xnnpack: node %zu has no operator", ni);
  pte_xnn_node *n = new_node(d);
  if (!n) return CERR(c, PTE_ERR_MEMORY_ALLOCATION_FAILED, "xnnpack: out of memory");
  n->type = (uint8_t)type;
  n->debug_handle = pte_xn_XNode_debug_handle(xn);
  pte_fb_table mm = pte_xn_XNode_output_min_max(xn);
  if (pte_fb_table_present(mm)) {
    n->out_min = pte_xn_OutputMinMax_output_min(mm);
    n->out_max = pte_xn_OutputMinMax_output_max(mm);
    if (isnan(n->out_min) || isnan(n->out_max) || n->out_min > n->out_max)
      return CERR(c, PTE_ERR_INVALID_PROGRAM, "xnnpack: node %zu (%s): invalid output range", ni, pte_xnn_node_name(type));
  }
  n->n_out = 1;
  switch (type) {
    case pte_xn_XNodeUnion_XNNAdd:
    case pte_xn_XNodeUnion_XNNDiv:
    case pte_xn_XNodeUnion_XNNMinimum:
    case pte_xn_XNodeUnion_XNNMaximum:
    case pte_xn_XNodeUnion_XNNMultiply:
    case pte_xn_XNodeUnion_XNNSubtract:
    case pte_xn_XNodeUnion_XNNPReLU:
    case pte_xn_XNodeUnion_XNNBatchMatrixMultiply:
      n->n_in = 2;
      MAP("input1_id", pte_xn__XNNNode2x1_input1_id(t), false, &n->in[0]);
      MAP("input2_id", pte_xn__XNNNode2x1_input2_id(t), false, &n->in[1]);
      MAP("output_id", pte_xn__XNNNode2x1_output_id(t), false, &n->out[0]);
      n->flags = pte_xn__XNNNode2x1_flags(t);
      break;
    case pte_xn_XNodeUnion_XNNSoftmax:
    case pte_xn_XNodeUnion_XNNSigmoid:
    case pte_xn_XNodeUnion_XNNClamp:
    case pte_xn_XNodeUnion_XNNFloor:
    case pte_xn_XNodeUnion_XNNConvert:
    case pte_xn_XNodeUnion_XNNGlobalAvgPooling2d:
    case pte_xn_XNodeUnion_XNNSquareRoot:
    case pte_xn_XNodeUnion_XNNCeiling:
    case pte_xn_XNodeUnion_XNNHardswish:
    case pte_xn_XNodeUnion_XNNNegate:
    case pte_xn_XNodeUnion_XNNSquare:
    case pte_xn_XNodeUnion_XNNAbs:
    case pte_xn_XNodeUnion_XNNReciprocalSquareRoot:
    case pte_xn_XNodeUnion_XNNLog:
    case pte_xn_XNodeUnion_XNNGelu:
    case pte_xn_XNodeUnion_XNNTanh:
    case pte_xn_XNodeUnion_XNNExp:
    case pte_xn_XNodeUnion_XNNSin:
      n->n_in = 1;
      MAP("input_id", pte_xn__XNNNode1x1_input_id(t), false, &n->in[0]);
      MAP("output_id", pte_xn__XNNNode1x1_output_id(t), false, &n->out[0]);
      n->flags = pte_xn__XNNNode1x1_flags(t);
      break;
    case pte_xn_XNodeUnion_XNNFullyConnected:
      n->n_in = 3;
      MAP("input1_id", pte_xn_XNNFullyConnected_input1_id(t), false, &n->in[0]);
      MAP("filter_id", pte_xn_XNNFullyConnected_filter_id(t), false, &n->in[1]);
      MAP("bias_id", pte_xn_XNNFullyConnected_bias_id(t), true, &n->in[2]);
      MAP("output_id", pte_xn_XNNFullyConnected_output_id(t), false, &n->out[0]);
      n->flags = pte_xn_XNNFullyConnected_flags(t);
      break;
    case pte_xn_XNodeUnion_XNNConv2d:
    case pte_xn_XNodeUnion_XNNDepthwiseConv2d: {
      pte_xnn_conv_params *p = &n->p.conv;
      p->pt = pte_xn__XNNNodeConv_padding_top(t);
      p->pr = pte_xn__XNNNodeConv_padding_right(t);
      p->pb = pte_xn__XNNNodeConv_padding_bottom(t);
      p->pl = pte_xn__XNNNodeConv_padding_left(t);
      p->kh = pte_xn__XNNNodeConv_kernel_height(t);
      p->kw = pte_xn__XNNNodeConv_kernel_width(t);
      p->sh = pte_xn__XNNNodeConv_subsampling_height(t);
      p->sw = pte_xn__XNNNodeConv_subsampling_width(t);
      p->dh = pte_xn__XNNNodeConv_dilation_height(t);
      p->dw = pte_xn__XNNNodeConv_dilation_width(t);
      p->gic = pte_xn__XNNNodeConv_group_input_channels(t);
      p->goc = pte_xn__XNNNodeConv_group_output_channels(t);
      p->groups = pte_xn__XNNNodeConv_groups(t);
      p->adj_h = pte_xn__XNNNodeConv_adjustment_height(t);
      p->adj_w = pte_xn__XNNNodeConv_adjustment_width(t);
      n->n_in = 3;
      MAP("input1_id", pte_xn__XNNNodeConv_input1_id(t), false, &n->in[0]);
      MAP("filter_id", pte_xn__XNNNodeConv_filter_id(t), false, &n->in[1]);
      MAP("bias_id", pte_xn__XNNNodeConv_bias_id(t), true, &n->in[2]);
      MAP("output_id", pte_xn__XNNNodeConv_output_id(t), false, &n->out[0]);
      n->flags = pte_xn__XNNNodeConv_flags(t);
      break;
    }
    case pte_xn_XNodeUnion_XNNAvgPooling2d:
    case pte_xn_XNodeUnion_XNNMaxPooling2d: {
      pte_xnn_pool_params *p = &n->p.pool;
      p->pt = pte_xn__XNNPooling2D_padding_top(t);
      p->pr = pte_xn__XNNPooling2D_padding_right(t);
      p->pb = pte_xn__XNNPooling2D_padding_bottom(t);
      p->pl = pte_xn__XNNPooling2D_padding_left(t);
      p->ph = pte_xn__XNNPooling2D_pooling_height(t);
      p->pw = pte_xn__XNNPooling2D_pooling_width(t);
      p->sh = pte_xn__XNNPooling2D_stride_height(t);
      p->sw = pte_xn__XNNPooling2D_stride_width(t);
      p->dh = pte_xn__XNNPooling2D_dilation_height(t);
      p->dw = pte_xn__XNNPooling2D_dilation_width(t);
      n->n_in = 1;
      MAP("input_id", pte_xn__XNNPooling2D_input_id(t), false, &n->in[0]);
      MAP("output_id", pte_xn__XNNPooling2D_output_id(t), false, &n->out[0]);
      n->flags = pte_xn__XNNPooling2D_flags(t);
      break;
    }
    case pte_xn_XNodeUnion_XNNStaticTranspose: {
      uint32_t nd = pte_xn_XNNStaticTranspose_num_dims(t);
      size_t perm[PTE_XNN_MAX_DIMS];
      pte_status s = read_dims_vec(c, ni, type, "perm", pte_xn_XNNStaticTranspose_perm(t), nd, perm);
      if (s != PTE_OK) return s;
      n->p.transpose.n = nd;
      for (uint32_t i = 0; i < nd; i++) n->p.transpose.perm[i] = (uint32_t)(perm[i] > 0xFFFF ? 0xFFFF : perm[i]);
      n->n_in = 1;
      MAP("input_id", pte_xn_XNNStaticTranspose_input_id(t), false, &n->in[0]);
      MAP("output_id", pte_xn_XNNStaticTranspose_output_id(t), false, &n->out[0]);
      n->flags = pte_xn_XNNStaticTranspose_flags(t);
      break;
    }
    case pte_xn_XNodeUnion_XNNStaticReshape: {
      uint32_t nd = pte_xn_XNNStaticReshape_num_dims(t);
      pte_status s = read_dims_vec(c, ni, type, "new_shape", pte_xn_XNNStaticReshape_new_shape(t), nd, n->p.reshape.shape);
      if (s != PTE_OK) return s;
      n->p.reshape.n = nd;
      n->n_in = 1;
      MAP("input_id", pte_xn_XNNStaticReshape_input_id(t), false, &n->in[0]);
      MAP("output_id", pte_xn_XNNStaticReshape_output_id(t), false, &n->out[0]);
      n->flags = pte_xn_XNNStaticReshape_flags(t);
      break;
    }
    case pte_xn_XNodeUnion_XNNStaticSlice: {
      uint32_t nd = pte_xn_XNNStaticSlice_num_dims(t);
      pte_status s = read_dims_vec(c, ni, type, "offsets", pte_xn_XNNStaticSlice_offsets(t), nd, n->p.slice.offsets);
      if (s == PTE_OK) s = read_dims_vec(c, ni, type, "sizes", pte_xn_XNNStaticSlice_sizes(t), nd, n->p.slice.sizes);
      if (s != PTE_OK) return s;
      n->p.slice.n = nd;
      n->n_in = 1;
      MAP("input_id", pte_xn_XNNStaticSlice_input_id(t), false, &n->in[0]);
      MAP("output_id", pte_xn_XNNStaticSlice_output_id(t), false, &n->out[0]);
      n->flags = pte_xn_XNNStaticSlice_flags(t);
      break;
    }
    case pte_xn_XNodeUnion_XNNStaticConstantPad: {
      pte_fb_vec pre = pte_xn_XNNStaticConstantPad_pre_paddings(t), post = pte_xn_XNNStaticConstantPad_post_paddings(t);
      uint32_t nd = pre.present ? pre.len : 0;
      pte_status s = read_dims_vec(c, ni, type, "pre_paddings", pre, nd, n->p.pad.pre);
      if (s == PTE_OK) s = read_dims_vec(c, ni, type, "post_paddings", post, nd, n->p.pad.post);
      if (s != PTE_OK) return s;
      n->p.pad.n = nd;
      n->p.pad.value = pte_xn_XNNStaticConstantPad_padding_value(t);
      n->n_in = 1;
      MAP("input_id", pte_xn_XNNStaticConstantPad_input_id(t), false, &n->in[0]);
      MAP("output_id", pte_xn_XNNStaticConstantPad_output_id(t), false, &n->out[0]);
      n->flags = pte_xn_XNNStaticConstantPad_flags(t);
      break;
    }
    case pte_xn_XNodeUnion_XNNStaticResizeBilinear2D:
      n->p.resize.h = pte_xn_XNNStaticResizeBilinear2D_new_height(t);
      n->p.resize.w = pte_xn_XNNStaticResizeBilinear2D_new_width(t);
      n->n_in = 1;
      MAP("input_id", pte_xn_XNNStaticResizeBilinear2D_input_id(t), false, &n->in[0]);
      MAP("output_id", pte_xn_XNNStaticResizeBilinear2D_output_id(t), false, &n->out[0]);
      n->flags = pte_xn_XNNStaticResizeBilinear2D_flags(t);
      break;
    case pte_xn_XNodeUnion_XNNConcatenate2:
    case pte_xn_XNodeUnion_XNNConcatenate3:
    case pte_xn_XNodeUnion_XNNConcatenate4:
    case pte_xn_XNodeUnion_XNNConcatenate5: {
      unsigned k = type == pte_xn_XNodeUnion_XNNConcatenate2   ? 2
                   : type == pte_xn_XNodeUnion_XNNConcatenate3 ? 3
                   : type == pte_xn_XNodeUnion_XNNConcatenate4 ? 4
                                                                : 5;
      n->p.cat.axis = pte_xn__XNNCat_axis(t);
      n->n_in = (uint8_t)k;
      MAP("input1_id", pte_xn__XNNCat_input1_id(t), false, &n->in[0]);
      MAP("input2_id", pte_xn__XNNCat_input2_id(t), false, &n->in[1]);
      if (k > 2) MAP("input3_id", pte_xn__XNNCat_input3_id(t), false, &n->in[2]);
      if (k > 3) MAP("input4_id", pte_xn__XNNCat_input4_id(t), false, &n->in[3]);
      if (k > 4) MAP("input5_id", pte_xn__XNNCat_input5_id(t), false, &n->in[4]);
      MAP("output_id", pte_xn__XNNCat_output_id(t), false, &n->out[0]);
      n->flags = pte_xn__XNNCat_flags(t);
      break;
    }
    case pte_xn_XNodeUnion_XNNELU:
      n->p.elu.alpha = pte_xn_XNNELU_alpha(t);
      n->n_in = 1;
      MAP("input_id", pte_xn_XNNELU_input_id(t), false, &n->in[0]);
      MAP("output_id", pte_xn_XNNELU_output_id(t), false, &n->out[0]);
      n->flags = pte_xn_XNNELU_flags(t);
      break;
    case pte_xn_XNodeUnion_XNNLeakyReLU:
      n->p.leaky.slope = pte_xn_XNNLeakyReLU_negative_slope(t);
      n->n_in = 1;
      MAP("input_id", pte_xn_XNNLeakyReLU_input_id(t), false, &n->in[0]);
      MAP("output_id", pte_xn_XNNLeakyReLU_output_id(t), false, &n->out[0]);
      n->flags = pte_xn_XNNLeakyReLU_flags(t);
      break;
    default:
      return CERR(c, PTE_ERR_NOT_IMPLEMENTED, "xnnpack: node %zu: %s is not supported", ni, pte_xnn_node_name(type));
  }
  return PTE_OK;
}
#undef MAP

/* Topological checks and lifetimes. */
static pte_status check_graph(cctx *c) {
  pte_xnn_delegate *d = c->d;
  for (size_t i = 0; i < d->n_nodes; i++) {
    pte_xnn_node *n = &d->nodes[i];
    for (unsigned k = 0; k < n->n_in; k++) {
      uint32_t vi = n->in[k];
      if (vi == PTE_XNN_INVALID_ID) continue;
      pte_xnn_value *v = &d->values[vi];
      if (!v->is_input && !v->is_const && v->def_node < 0)
        return CERR(c, PTE_ERR_INVALID_PROGRAM, "xnnpack: node %zu (%s) reads value %u before any node produces it", i,
                    pte_xnn_node_name(n->type), v->id);
      v->last_use = (int)i;
    }
    for (unsigned k = 0; k < n->n_out; k++) {
      pte_xnn_value *v = &d->values[n->out[k]];
      if (v->is_input || v->is_const)
        return CERR(c, PTE_ERR_INVALID_PROGRAM, "xnnpack: node %zu (%s) writes value %u, which is an input or a constant",
                    i, pte_xnn_node_name(n->type), v->id);
      if (v->def_node >= 0)
        return CERR(c, PTE_ERR_INVALID_PROGRAM, "xnnpack: value %u is produced by nodes %d and %zu", v->id, v->def_node, i);
      v->def_node = (int)i;
      if (v->last_use < (int)i) v->last_use = (int)i;
    }
  }
  for (size_t i = 0; i < d->n_values; i++) {
    pte_xnn_value *v = &d->values[i];
    if (v->is_output && v->def_node < 0 && !v->is_input)
      return CERR(c, PTE_ERR_INVALID_PROGRAM, "xnnpack: output value %u is not produced by any node", v->id);
  }
  return PTE_OK;
}

static void sort_by_external(const pte_xnn_value *values, uint32_t *idx, size_t n) {
  /* insertion sort: few externals, and no global state */
  for (size_t i = 1; i < n; i++) {
    uint32_t x = idx[i];
    size_t j = i;
    while (j > 0 && values[idx[j - 1]].external_id > values[x].external_id) {
      idx[j] = idx[j - 1];
      j--;
    }
    idx[j] = x;
  }
}

static pte_status collect_externals(cctx *c) {
  pte_xnn_delegate *d = c->d;
  size_t ni = 0, no = 0;
  for (size_t i = 0; i < d->n_values; i++) {
    if (d->values[i].is_input) ni++;
    if (d->values[i].is_output) no++;
  }
  d->inputs = (uint32_t *)malloc((ni ? ni : 1) * sizeof(uint32_t));
  d->outputs = (uint32_t *)malloc((no ? no : 1) * sizeof(uint32_t));
  if (!d->inputs || !d->outputs) return CERR(c, PTE_ERR_MEMORY_ALLOCATION_FAILED, "xnnpack: out of memory");
  d->n_inputs = d->n_outputs = 0;
  uint32_t max_ext = 0;
  bool any = false;
  for (size_t i = 0; i < d->n_values; i++) {
    pte_xnn_value *v = &d->values[i];
    if (!v->is_input && !v->is_output) continue;
    if (v->external_id == PTE_XNN_INVALID_ID || v->external_id >= 0x10000u)
      return CERR(c, PTE_ERR_INVALID_PROGRAM, "xnnpack: external value %u has invalid external id %u", v->id,
                  v->external_id);
    if (v->is_input) d->inputs[d->n_inputs++] = (uint32_t)i;
    if (v->is_output) d->outputs[d->n_outputs++] = (uint32_t)i;
    if (!any || v->external_id > max_ext) max_ext = v->external_id;
    any = true;
  }
  for (size_t i = 0; i < d->n_values; i++) {
    const pte_xnn_value *a = &d->values[i];
    if (!a->is_input && !a->is_output) continue;
    for (size_t j = i + 1; j < d->n_values; j++) {
      const pte_xnn_value *b = &d->values[j];
      if ((b->is_input || b->is_output) && b->external_id == a->external_id)
        return CERR(c, PTE_ERR_INVALID_PROGRAM, "xnnpack: values %u and %u share external id %u", a->id, b->id,
                    a->external_id);
    }
  }
  sort_by_external(d->values, d->inputs, d->n_inputs);
  sort_by_external(d->values, d->outputs, d->n_outputs);
  d->num_externs = any ? max_ext + 1 : 0;
  /* the graph's own input/output id lists must agree with the flags */
  pte_fb_vec in_ids = pte_xn_XNNGraph_input_ids(c->root), out_ids = pte_xn_XNNGraph_output_ids(c->root);
  for (int pass = 0; pass < 2; pass++) {
    pte_fb_vec vv = pass ? out_ids : in_ids;
    if (!vv.present) continue;
    for (uint32_t i = 0; i < vv.len; i++) {
      uint32_t id = pte_fb_vec_u32(vv, i), idx;
      if (!lookup_id(c, id, &idx))
        return CERR(c, PTE_ERR_INVALID_PROGRAM, "xnnpack: graph %s_ids[%u] = %u is not a defined value",
                    pass ? "output" : "input", i, id);
      const pte_xnn_value *v = &d->values[idx];
      /* a legacy dq input is listed by its serialized id, now the hidden fp32 external's */
      bool ok = pass ? v->is_output : (v->is_input || (v->dtype == PTE_XD_QDINT8 && v->def_node >= 0));
      if (!ok)
        return CERR(c, PTE_ERR_INVALID_PROGRAM, "xnnpack: graph %s_ids lists value %u, which is not an external %s",
                    pass ? "output" : "input", id, pass ? "output" : "input");
    }
  }
  return PTE_OK;
}

/* ============================================================================ planning */

typedef struct plan_item {
  uint32_t vi;
  size_t size;
} plan_item;

static int plan_cmp(const void *a, const void *b) {
  const plan_item *x = (const plan_item *)a, *y = (const plan_item *)b;
  if (x->size != y->size) return x->size > y->size ? -1 : 1;
  return x->vi < y->vi ? -1 : (x->vi > y->vi ? 1 : 0);
}

pte_status pte_xnn_plan(pte_xnn_delegate *d, bool check_decl, pte_error_info *err) {
  size_t scratch = 0, shared = 0;
  for (size_t i = 0; i < d->n_nodes; i++) {
    if (d->nodes[i].fuse == PTE_XNN_FUSE_SKIP) continue;
    pte_status s = pte_xnn_infer_node(d, i, check_decl, err);
    if (s != PTE_OK) return s;
    if (d->nodes[i].scratch > scratch) scratch = d->nodes[i].scratch;
    if (d->nodes[i].shared_scratch > shared) shared = d->nodes[i].shared_scratch;
  }
  /* greedy first-fit by decreasing size over values whose lifetimes overlap */
  size_t n_int = 0;
  for (size_t i = 0; i < d->n_values; i++) {
    pte_xnn_value *v = &d->values[i];
    v->nbytes = pte_xnn_value_bytes(v);
    v->plan_last = v->last_use;
  }
  for (size_t i = 0; i < d->n_values; i++) { /* a storage lives until its aliases' last use */
    pte_xnn_value *v = &d->values[i], *r = v->aliased ? &d->values[v->alias] : NULL;
    if (r && v->last_use > r->plan_last) r->plan_last = v->last_use;
  }
  for (size_t i = 0; i < d->n_values; i++) {
    pte_xnn_value *v = &d->values[i];
    if (!v->is_input && !v->is_output && !v->is_const && v->def_node >= 0 && !v->aliased) n_int++;
  }
  plan_item *items = (plan_item *)malloc((n_int ? n_int : 1) * sizeof(plan_item));
  if (!items) return pte_error_set(err, PTE_ERR_MEMORY_ALLOCATION_FAILED, "xnnpack: out of memory");
  size_t k = 0;
  for (size_t i = 0; i < d->n_values; i++) {
    pte_xnn_value *v = &d->values[i];
    if (!v->is_input && !v->is_output && !v->is_const && v->def_node >= 0 && !v->aliased) {
      items[k].vi = (uint32_t)i;
      items[k].size = (v->nbytes + 63) & ~(size_t)63;
      k++;
    }
  }
  qsort(items, n_int, sizeof(plan_item), plan_cmp);
  size_t total = 0;
  for (size_t a = 0; a < n_int; a++) {
    pte_xnn_value *v = &d->values[items[a].vi];
    size_t off = 0;
    /* find the lowest offset that does not collide with an already placed, overlapping value */
    bool moved = true;
    while (moved) {
      moved = false;
      for (size_t b = 0; b < a; b++) {
        pte_xnn_value *u = &d->values[items[b].vi];
        bool live = !(u->plan_last < v->def_node || v->plan_last < u->def_node);
        if (!live) continue;
        size_t u0 = u->offset, u1 = u->offset + items[b].size;
        if (off < u1 && u0 < off + items[a].size) {
          off = u1;
          moved = true;
        }
      }
    }
    v->offset = off;
    if (off + items[a].size > total) total = off + items[a].size;
  }
  free(items);
  d->scratch_per_thread = (scratch + 63) & ~(size_t)63;
  d->shared_scratch = (shared + 63) & ~(size_t)63;
  size_t need = total + d->shared_scratch + d->scratch_per_thread * (size_t)d->threads + 64;
  if (need > d->arena_cap) {
    uint8_t *p = (uint8_t *)pte_xnn_packed_alloc(need); /* >= 4 MiB: huge pages */
    if (!p) return pte_error_set(err, PTE_ERR_MEMORY_ALLOCATION_FAILED, "xnnpack: cannot allocate a %zu-byte arena", need);
    pte_xnn_aligned_free(d->arena);
    d->arena = p;
    d->arena_cap = need;
  }
  d->arena_size = total;
  d->planned = true;
  return PTE_OK;
}

/* ============================================================================ init / destroy */

void pte_xnn_delegate_destroy(pte_xnn_delegate *d) {
  if (!d) return;
  for (size_t i = 0; i < d->n_nodes; i++)
    if (!d->nodes[i].packed_borrowed) pte_xnn_packed_free(&d->nodes[i].packed);
  for (size_t i = 0; i < d->n_nodes; i++) free(d->nodes[i].dwq);
  for (size_t i = 0; i < d->n_bufs; i++) pte_freeable_buffer_free(&d->bufs[i]);
  for (size_t i = 0; i < d->n_owned; i++) free(d->owned[i]);
  pte_xnn_pool_destroy(d->pool);
  pte_xnn_aligned_free(d->arena);
  free(d->prof_ns);
  free(d->prof_calls);
  free(d->bufs);
  free(d->owned);
  free(d->values);
  free(d->nodes);
  free(d->inputs);
  free(d->outputs);
  free(d);
}

/* Prepared constants may only be FullyConnected / convolution filters that were consumed as
 * packed weights: any other use would read packed bytes as a tensor. */
static pte_status check_prepared_uses(pte_xnn_delegate *d, pte_error_info *err) {
  for (size_t i = 0; i < d->n_nodes; i++) {
    const pte_xnn_node *n = &d->nodes[i];
    for (unsigned k = 0; k < n->n_in; k++) {
      if (n->in[k] == PTE_XNN_INVALID_ID) continue;
      const pte_xnn_value *v = &d->values[n->in[k]];
      if (!v->prep) continue;
      const bool gemm = n->type == pte_xn_XNodeUnion_XNNFullyConnected || n->type == pte_xn_XNodeUnion_XNNConv2d ||
                        n->type == pte_xn_XNodeUnion_XNNDepthwiseConv2d;
      if (!gemm || k != 1 || !n->packed.bytes)
        return pte_error_set(err, PTE_ERR_INVALID_PROGRAM,
                             "xnnpack: node %zu (%s) reads value %u, whose constant %u holds prepared (packed) weights, "
                             "as a tensor",
                             i, pte_xnn_node_name(n->type), v->id, v->const_index);
    }
  }
  for (size_t i = 0; i < d->n_values; i++)
    if (d->values[i].prep && d->values[i].raw_needed)
      return pte_error_set(err, PTE_ERR_INVALID_PROGRAM,
                           "xnnpack: value %u: constant %u holds prepared (packed) weights but is read unpacked",
                           d->values[i].id, d->values[i].const_index);
  return PTE_OK;
}

/* XN00 or XN01 at bytes 4..8 of the flatbuffer (`present`: the blob had an XH00 header). */
static pte_status check_graph_id(const uint8_t *f, size_t n, bool present, pte_error_info *err) {
  if (n < 8) return pte_error_set(err, PTE_ERR_INVALID_PROGRAM, "xnnpack: flatbuffer too small");
  if (memcmp(f + 4, "XN00", 4) == 0 || memcmp(f + 4, "XN01", 4) == 0) return PTE_OK;
  char id[5];
  for (int i = 0; i < 4; i++) id[i] = (f[4 + i] >= 32 && f[4 + i] < 127) ? (char)f[4 + i] : '?';
  id[4] = 0;
  return pte_error_set(err, PTE_ERR_DELEGATE_INVALID_COMPATIBILITY, "xnnpack: graph identifier '%s' is not XN00 or XN01%s",
                       id, present ? "" : " (and the blob has no XH00 header)");
}

pte_status pte_xnn_parse_portable(const void *blob, size_t size, pte_xnn_header *h, const uint8_t **fb, size_t *fb_size,
                                  pte_error_info *err) {
  pte_xnn_header hh;
  if (!h) h = &hh;
  pte_status s = pte_xnn_parse_header(blob, size, h, err);
  if (s != PTE_OK) return s;
  const uint8_t *f = (const uint8_t *)blob + h->flatbuffer_offset;
  s = check_graph_id(f, h->flatbuffer_size, h->present, err);
  if (s != PTE_OK) return s;
  if (fb) *fb = f;
  if (fb_size) *fb_size = h->flatbuffer_size;
  return PTE_OK;
}

pte_status pte_xnn_delegate_init_internal(const void *blob, size_t size, const pte_named_data_map *ndm,
                                          const pte_xnn_init_cfg *cfg, pte_xnn_delegate **out, pte_error_info *err) {
  *out = NULL;
  if (!cfg || !cfg->k) return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "xnnpack: no kernels");
  const pte_xnn_kernels *k = cfg->k;
  const int threads = cfg->threads;
  pte_xnn_header h;
  pte_xnn_xpb xpb;
  bool has_xpb = false, xpb_foreign = false;
  const uint8_t *fb;
  size_t fb_size;
  pte_status s;
  memset(&h, 0, sizeof h);
  memset(&xpb, 0, sizeof xpb);
  /* prepared (pte prepare): an XPB1 container, or the portable blob sealed in the envelope */
  const uint8_t *pb;
  size_t pbs;
  s = pte_xnn_unwrap_blob(blob, size, k, cfg->repack_prepared, &pb, &pbs, &xpb, &has_xpb, &xpb_foreign, err);
  if (s != PTE_OK) return s;
  if (has_xpb) {
    h.present = true;
    fb = xpb.fb;
    fb_size = xpb.fb_size;
    s = check_graph_id(fb, fb_size, true, err);
  } else {
    blob = pb;
    size = pbs;
    s = pte_xnn_parse_portable(blob, size, &h, &fb, &fb_size, err);
  }
  if (s != PTE_OK) return s;
  /* the flatbuffer must be 4-aligned in memory for the verifier's alignment rules */
  uint8_t *copy = NULL;
  if (((uintptr_t)fb & 3u) != 0) {
    copy = (uint8_t *)pte_xnn_aligned_alloc(fb_size);
    if (!copy) return pte_error_set(err, PTE_ERR_MEMORY_ALLOCATION_FAILED, "xnnpack: out of memory");
    memcpy(copy, fb, fb_size);
    fb = copy;
  }
  pte_fb_verifier v;
  pte_fb_verifier_init(&v, fb, fb_size, err);
  uint32_t root_pos = 0;
  s = pte_fb_verify_root(&v, NULL, &root_pos);
  if (s == PTE_OK) s = pte_xn_XNNGraph_verify(&v, root_pos);
  if (s != PTE_OK) {
    /* a newer exporter's node kind shows up as an unknown union tag: say so */
    pte_fb_table r = pte_fb_root(fb, fb_size);
    pte_fb_vec nodes = pte_xn_XNNGraph_xnodes(r);
    for (uint32_t i = 0; nodes.present && i < nodes.len; i++) {
      uint8_t t = pte_xn_XNode_xnode_union_type(pte_fb_vec_table(nodes, i));
      if (t >= pte_xn_XNodeUnion_COUNT) {
        pte_xnn_aligned_free(copy);
        return pte_error_set(err, PTE_ERR_NOT_IMPLEMENTED, "xnnpack: node %u has unknown kind %u (newer exporter?)", i, t);
      }
    }
    pte_xnn_aligned_free(copy);
    if (err && err->msg[0]) {
      char tmp[PTE_ERROR_MSG_MAX];
      memcpy(tmp, err->msg, sizeof tmp);
      tmp[sizeof tmp - 1] = 0;
      return pte_error_set(err, PTE_ERR_INVALID_PROGRAM, "xnnpack: graph verification failed: %s", tmp);
    }
    return pte_error_set(err, PTE_ERR_INVALID_PROGRAM, "xnnpack: graph verification failed");
  }

  pte_xnn_delegate *d = (pte_xnn_delegate *)calloc(1, sizeof *d);
  if (!d) {
    pte_xnn_aligned_free(copy);
    return pte_error_set(err, PTE_ERR_MEMORY_ALLOCATION_FAILED, "xnnpack: out of memory");
  }
  d->k = k;
  d->threads = threads < 1 ? 1 : threads;
  if (d->threads > 1) { /* before packing: large weights are packed in parallel */
    d->pool = pte_xnn_pool_create(d->threads);
    d->threads = pte_xnn_pool_threads(d->pool);
  }
  d->repack_prepared = cfg->repack_prepared;
  d->blob_persistent = cfg->blob_persistent;
  d->lazy_pack = cfg->lazy_pack;
  d->lazy_node = cfg->pack_node;
  d->lazy_buf = cfg->lazy_pack ? cfg->pack_buf : NULL;
  d->lazy_buf_size = cfg->lazy_pack && cfg->pack_buf ? cfg->pack_buf_size : 0;
  cctx c;
  memset(&c, 0, sizeof c);
  c.d = d;
  c.fb = fb;
  c.fb_size = fb_size;
  c.root = pte_fb_table_at(fb, fb_size, root_pos);
  c.has_header = h.present;
  c.cdata = has_xpb ? NULL : (const uint8_t *)blob + h.constant_data_offset;
  c.csize = (h.present && !has_xpb) ? h.constant_data_size : 0;
  c.xpb = has_xpb ? &xpb : NULL;
  c.xpb_foreign = xpb_foreign;
  c.ndm = ndm;
  c.err = err;

  pte_fb_vec xvalues = pte_xn_XNNGraph_xvalues(c.root), xnodes = pte_xn_XNNGraph_xnodes(c.root);
  uint32_t n_legacy = 0;
  for (uint32_t i = 0; s == PTE_OK && xvalues.present && i < xvalues.len; i++)
    s = parse_value(&c, i, pte_fb_vec_table(xvalues, i), &n_legacy);
  if (s == PTE_OK && n_legacy) s = expand_legacy_dq(&c, xvalues);
  if (s == PTE_OK) s = build_idmap(&c);
  for (uint32_t i = 0; s == PTE_OK && xnodes.present && i < xnodes.len; i++)
    s = parse_node(&c, d->n_nodes, pte_fb_vec_table(xnodes, i));
  if (s == PTE_OK) s = check_graph(&c);
  if (s == PTE_OK) s = collect_externals(&c);
  for (size_t i = 0; s == PTE_OK && i < d->n_nodes; i++) s = pte_xnn_prepare_node(d, i, err);
  if (s == PTE_OK) s = check_prepared_uses(d, err);
  if (s == PTE_OK) pte_xnn_fuse(d);
  if (s == PTE_OK && !d->lazy_pack) s = pte_xnn_plan(d, true, err);
  /* keep what execute reads unpacked; drop the rest */
  if (s == PTE_OK) {
    bool *keep = (bool *)calloc(c.n_tmp ? c.n_tmp : 1, sizeof(bool));
    if (!keep) s = pte_error_set(err, PTE_ERR_MEMORY_ALLOCATION_FAILED, "xnnpack: out of memory");
    for (size_t i = 0; s == PTE_OK && i < d->n_values; i++) {
      pte_xnn_value *val = &d->values[i];
      if (!val->is_const) continue;
      if (!val->raw_needed) {
        val->cdata = NULL;
        continue;
      }
      /* a named-data buffer stays alive; bytes inside the blob are copied */
      bool from_buf = false;
      for (size_t b = 0; b < c.n_tmp; b++) {
        const uint8_t *p0 = (const uint8_t *)c.tmp[b].data;
        if (p0 && val->cdata >= p0 && val->cdata < p0 + c.tmp[b].size) {
          keep[b] = true;
          from_buf = true;
        }
      }
      if (!from_buf) {
        uint8_t *cp = (uint8_t *)pte_xnn_aligned_alloc(val->csize);
        if (!cp || !own(d, cp)) {
          pte_xnn_aligned_free(cp);
          s = pte_error_set(err, PTE_ERR_MEMORY_ALLOCATION_FAILED, "xnnpack: out of memory");
          break;
        }
        memcpy(cp, val->cdata, val->csize);
        val->cdata = cp;
      }
    }
    /* packed weights used in place keep their named-data buffer (a view into the mapped file
     * with the mmap loader) alive until destroy; never written */
    for (size_t i = 0; s == PTE_OK && i < d->n_nodes; i++) {
      const pte_xnn_node *n = &d->nodes[i];
      if (!n->packed_borrowed) continue;
      bool in_buf = false;
      for (size_t b = 0; b < c.n_tmp; b++) {
        const uint8_t *p0 = (const uint8_t *)c.tmp[b].data;
        if (p0 && n->packed.bytes >= p0 && n->packed.bytes < p0 + c.tmp[b].size) {
          keep[b] = true;
          in_buf = true;
        }
      }
      if (!in_buf) d->borrows_blob = true;
    }
    for (size_t b = 0; s == PTE_OK && b < c.n_tmp; b++) {
      if (!keep[b]) continue;
      if (!grow((void **)&d->bufs, &d->cap_bufs, d->n_bufs + 1, sizeof(pte_freeable_buffer))) {
        s = pte_error_set(err, PTE_ERR_MEMORY_ALLOCATION_FAILED, "xnnpack: out of memory");
        break;
      }
      d->bufs[d->n_bufs++] = c.tmp[b];
      memset(&c.tmp[b], 0, sizeof c.tmp[b]);
    }
    free(keep);
  }

  cctx_release(&c);
  pte_xnn_aligned_free(copy);
  if (s != PTE_OK) {
    pte_xnn_delegate_destroy(d);
    return s;
  }
  *out = d;
  return PTE_OK;
}

/* ============================================================================ execute */

static bool dtype_matches(unsigned xd, int pd) {
  switch (xd) {
    case PTE_XD_FP32: return pd == PTE_DTYPE_FLOAT;
    case PTE_XD_FP16: return pd == PTE_DTYPE_HALF;
    case PTE_XD_BF16: return pd == PTE_DTYPE_BFLOAT16;
    case PTE_XD_QINT8:
    case PTE_XD_QCINT8: return pd == PTE_DTYPE_CHAR || pd == PTE_DTYPE_QINT8;
    case PTE_XD_QUINT8: return pd == PTE_DTYPE_BYTE || pd == PTE_DTYPE_QUINT8;
    case PTE_XD_QINT32:
    case PTE_XD_QCINT32:
    case PTE_XD_INT32: return pd == PTE_DTYPE_INT || pd == PTE_DTYPE_QINT32;
    default: return false;
  }
}

static pte_status bind_tensor(pte_xnn_delegate *d, pte_xnn_value *v, pte_evalue **args, size_t nargs, bool input,
                              bool *changed, pte_error_info *err) {
  (void)d;
  if (v->external_id >= nargs)
    return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "xnnpack: %s value %u needs argument %u but only %zu were passed",
                         input ? "input" : "output", v->id, v->external_id, nargs);
  pte_evalue *ev = args[v->external_id];
  if (!ev || ev->tag != PTE_TAG_TENSOR || !ev->u.tensor)
    return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "xnnpack: argument %u is not a tensor", v->external_id);
  pte_tensor *t = ev->u.tensor;
  if (!dtype_matches(v->dtype, t->dtype))
    return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "xnnpack: argument %u is %s, the graph expects %s",
                         v->external_id, pte_dtype_name(t->dtype), pte_xnn_dtype_name(v->dtype));
  /* an input may come with another rank than declared (e.g. a 0-d constant for a [1] value):
   * like XNNPACK's reshape of an external value, it takes the tensor's shape */
  if (t->dim < 0 || t->dim > PTE_XNN_MAX_DIMS)
    return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "xnnpack: argument %u has rank %d, the graph expects %u",
                         v->external_id, (int)t->dim, (unsigned)v->rank);
  if (t->dim > 0 && t->dim_order && !pte_dim_order_is_contiguous(t->dim_order, t->dim)) {
    /* a non-default dim order is acceptable only when it does not change the memory layout */
    int32_t last = -1;
    for (int32_t i = 0; i < t->dim; i++) {
      int32_t dd = t->dim_order[i];
      if (t->sizes[dd] == 1) continue;
      if (dd < last)
        return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "xnnpack: argument %u is not contiguous", v->external_id);
      last = dd;
    }
  }
  if (input) {
    if (t->dim != (int32_t)v->rank) {
      *changed = true;
      v->rank = (uint8_t)t->dim;
    }
    for (uint32_t i = 0; i < v->rank; i++) {
      if (t->sizes[i] < 0)
        return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "xnnpack: argument %u has a negative size", v->external_id);
      if ((size_t)t->sizes[i] != v->shape[i]) *changed = true;
    }
    if (*changed) {
      size_t numel = 1;
      for (uint32_t i = 0; i < v->rank; i++) {
        v->shape[i] = (size_t)t->sizes[i];
        numel *= v->shape[i];
      }
      v->numel = numel;
    }
  }
  return PTE_OK;
}

pte_status pte_xnn_delegate_execute(pte_xnn_delegate *d, pte_evalue **args, size_t nargs, pte_error_info *err) {
  if (!d || (!args && nargs)) return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "xnnpack: NULL delegate or args");
  if (nargs < d->num_externs)
    return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "xnnpack: %zu arguments passed, the graph needs %u", nargs,
                         d->num_externs);
  bool changed = false;
  pte_status s;
  for (size_t i = 0; i < d->n_inputs; i++) {
    s = bind_tensor(d, &d->values[d->inputs[i]], args, nargs, true, &changed, err);
    if (s != PTE_OK) return s;
  }
  for (size_t i = 0; i < d->n_outputs; i++) {
    bool dummy = false;
    s = bind_tensor(d, &d->values[d->outputs[i]], args, nargs, false, &dummy, err);
    if (s != PTE_OK) return s;
  }
  if (changed || !d->planned) {
    d->planned = false;
    s = pte_xnn_plan(d, false, err);
    if (s != PTE_OK) {
      if (s == PTE_ERR_INVALID_PROGRAM) s = PTE_ERR_INVALID_ARGUMENT;
      if (err) err->status = s;
      return s;
    }
  }
  /* resize outputs and bind data */
  for (size_t i = 0; i < d->n_outputs; i++) {
    pte_xnn_value *v = &d->values[d->outputs[i]];
    pte_tensor *t = args[v->external_id]->u.tensor;
    int32_t sizes[PTE_XNN_MAX_DIMS];
    for (uint32_t k = 0; k < v->rank; k++) sizes[k] = (int32_t)v->shape[k];
    if (t->dim == (int32_t)v->rank) s = pte_tensor_resize(t, sizes, (int32_t)v->rank);
    else s = t->numel == v->numel ? PTE_OK : PTE_ERR_INVALID_ARGUMENT; /* e.g. [1] computed for a 0-d tensor */
    if (s != PTE_OK)
      return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "xnnpack: cannot resize output argument %u to the computed shape (%s)",
                           v->external_id, pte_status_name(s));
    if (!t->data && v->numel)
      return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "xnnpack: output argument %u has no data", v->external_id);
    v->data = (uint8_t *)t->data;
  }
  for (size_t i = 0; i < d->n_inputs; i++) {
    pte_xnn_value *v = &d->values[d->inputs[i]];
    pte_tensor *t = args[v->external_id]->u.tensor;
    if (!t->data && v->numel)
      return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "xnnpack: input argument %u has no data", v->external_id);
    v->data = (uint8_t *)t->data;
  }
  for (size_t i = 0; i < d->n_values; i++) {
    pte_xnn_value *v = &d->values[i];
    if (v->is_input || v->is_output) continue;
    if (v->is_const) v->data = (uint8_t *)(uintptr_t)v->cdata;
    else if (v->def_node >= 0) v->data = d->arena + v->offset;
  }
  for (size_t i = 0; i < d->n_values; i++) /* reshapes in place (xnn_fuse.c) */
    if (d->values[i].aliased) d->values[i].data = d->values[d->values[i].alias].data;
  pte_xnn_exec x;
  x.d = d;
  x.k = d->k;
  x.vec = pte_xnn_vec_kernels_for(d->k);
  x.pool = d->pool;
  x.threads = d->threads;
  x.shared = d->arena + d->arena_size;
  x.scratch = x.shared + d->shared_scratch;
  x.scratch_stride = d->scratch_per_thread;
  if (d->profiling) {
    for (size_t i = 0; i < d->n_nodes; i++) {
      struct timespec t0, t1;
      clock_gettime(CLOCK_MONOTONIC, &t0);
      s = pte_xnn_run_node(&x, i, err);
      clock_gettime(CLOCK_MONOTONIC, &t1);
      const uint64_t ns = (uint64_t)((int64_t)(t1.tv_sec - t0.tv_sec) * 1000000000 + (t1.tv_nsec - t0.tv_nsec));
      d->prof_ns[i] += ns;
      d->prof_calls[i]++;
      if (d->nodes[i].fuse != PTE_XNN_FUSE_SKIP) pte_xnn_profile_global_add(d->nodes[i].type, ns);
      if (s != PTE_OK) return s;
    }
    return PTE_OK;
  }
  for (size_t i = 0; i < d->n_nodes; i++) {
    s = pte_xnn_run_node(&x, i, err);
    if (s != PTE_OK) return s;
  }
  return PTE_OK;
}

size_t pte_xnn_delegate_num_inputs(const pte_xnn_delegate *d) { return d ? d->n_inputs : 0; }
size_t pte_xnn_delegate_num_outputs(const pte_xnn_delegate *d) { return d ? d->n_outputs : 0; }
size_t pte_xnn_delegate_num_args(const pte_xnn_delegate *d) { return d ? d->num_externs : 0; }
int pte_xnn_delegate_threads(const pte_xnn_delegate *d) { return d ? d->threads : 0; }
pte_xnn_isa pte_xnn_delegate_isa(const pte_xnn_delegate *d) {
  if (!d) return PTE_XNN_ISA_AUTO;
  switch (d->k->isa) {
    case PTE_XNN_KISA_AVX512: return PTE_XNN_ISA_AVX512;
    case PTE_XNN_KISA_AVX2: return PTE_XNN_ISA_AVX2;
    default: return PTE_XNN_ISA_SCALAR;
  }
}
size_t pte_xnn_delegate_packed_bytes(const pte_xnn_delegate *d) {
  size_t t = 0;
  for (size_t i = 0; d && i < d->n_nodes; i++) t += d->nodes[i].packed.size;
  return t;
}
size_t pte_xnn_delegate_arena_bytes(const pte_xnn_delegate *d) { return d ? d->arena_cap : 0; }
