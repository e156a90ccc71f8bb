/* ptd_writer.c — the .ptd (FlatTensor) writer: same sources and streaming as the program writer. */
#include <string.h>
#include <stdlib.h>

#include "format/flatbuf.h"
#include "pte/headers.h"
#include "pte_gen/flat_tensor_gen.h"
#include "writer/writer_internal.h"

#define PTD_OOM(err) pte_error_set((err), PTE_ERR_MEMORY_ALLOCATION_FAILED, "ptd writer: out of memory")
#define PTD_HEADER_PAD 16 /* the FH01 header (40 bytes) is padded to 16 -> 48 */

typedef struct ptdw_entry {
  char *key;
  pte_source src;
  bool has_layout;
  int8_t dtype;
  int32_t *sizes;
  uint8_t *dim_order;
  size_t dim;
  uint64_t align;
} ptdw_entry;

typedef struct ptd_seg {
  size_t entry; /* canonical entry holding the bytes */
  uint64_t offset, size, align;
} ptd_seg;

struct pte_ptd_writer {
  pte_wr_arena arena, out_arena;
  pte_ptd_writer_options opt;
  pte_wr_vec entries; /* ptdw_entry */
};

pte_status pte_ptd_writer_create(const pte_ptd_writer_options *opt, pte_ptd_writer **out, pte_error_info *err) {
  if (!out) return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "ptd writer: NULL out");
  *out = NULL;
  pte_ptd_writer_options o;
  if (opt) o = *opt;
  else memset(&o, 0, sizeof o);
  if (!o.segment_alignment) o.segment_alignment = 128;
  if (!o.tensor_alignment) o.tensor_alignment = 16;
  if (!o.buffer_size) o.buffer_size = PTE_WR_DEFAULT_BUFFER;
  if (!o.realloc_fn) o.realloc_fn = pte_wr_default_realloc;
  if (!pte_wr_pow2(o.segment_alignment) || !pte_wr_pow2(o.tensor_alignment))
    return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "ptd writer: alignment %llu is not a power of two",
                         (unsigned long long)(pte_wr_pow2(o.segment_alignment) ? o.tensor_alignment : o.segment_alignment));
  if (o.buffer_size < PTE_WR_MIN_BUFFER)
    return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "ptd writer: buffer size %zu below %zu", o.buffer_size, PTE_WR_MIN_BUFFER);
  pte_wr_arena a;
  pte_wr_arena_init(&a, o.realloc_fn, o.realloc_ctx);
  pte_ptd_writer *w = (pte_ptd_writer *)pte_wr_alloc(&a, sizeof *w);
  if (!w) {
    pte_wr_arena_free(&a);
    return PTD_OOM(err);
  }
  w->arena = a;
  pte_wr_arena_init(&w->out_arena, o.realloc_fn, o.realloc_ctx);
  w->opt = o;
  *out = w;
  return PTE_OK;
}

void pte_ptd_writer_destroy(pte_ptd_writer *w) {
  if (!w) return;
  pte_wr_arena_free(&w->out_arena);
  pte_wr_arena a = w->arena;
  pte_wr_arena_free(&a);
}

static pte_status ptdw_add_entry(pte_ptd_writer *w, const char *key, const pte_source *src, ptdw_entry **out, pte_error_info *err) {
  if (!w) return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "ptd writer: NULL writer");
  if (!key || !*key) return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "ptd writer: empty key");
  for (size_t i = 0; i < w->entries.n; i++)
    if (strcmp(PTE_WR_AT(w->entries, ptdw_entry, i).key, key) == 0)
      return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "ptd writer: duplicate key '%s'", key);
  pte_status s = pte_wr_source_check(src, key, err);
  if (s != PTE_OK) return s;
  ptdw_entry *e = (ptdw_entry *)pte_wr_vec_push(&w->arena, &w->entries, sizeof *e);
  if (!e) return PTD_OOM(err);
  e->key = pte_wr_strdup(&w->arena, key);
  if (!e->key) {
    w->entries.n--;
    return PTD_OOM(err);
  }
  s = pte_wr_source_copy(&w->arena, src, &e->src, err);
  if (s != PTE_OK) {
    w->entries.n--;
    return s;
  }
  *out = e;
  return PTE_OK;
}

pte_status pte_ptd_writer_add_tensor(pte_ptd_writer *w, const char *key, int dtype, const int32_t *sizes, size_t dim,
                                     const uint8_t *dim_order, const pte_source *src, pte_error_info *err) {
  uint64_t nbytes = 0;
  pte_status s = pte_wr_check_shape(dtype, sizes, dim, dim_order, &nbytes, key ? key : "ptd tensor", err);
  if (s != PTE_OK) return s;
  if (src && src->size != nbytes)
    return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "ptd tensor '%s': source size disagrees with the tensor: %llu bytes given, %llu needed",
                         key ? key : "", (unsigned long long)src->size, (unsigned long long)nbytes);
  ptdw_entry *e = NULL;
  s = ptdw_add_entry(w, key, src, &e, err);
  if (s != PTE_OK) return s;
  e->has_layout = true;
  e->dtype = (int8_t)dtype;
  e->dim = dim;
  e->sizes = (int32_t *)pte_wr_memdup(&w->arena, sizes, dim * sizeof(int32_t));
  e->dim_order = (uint8_t *)pte_wr_alloc(&w->arena, dim ? dim : 1);
  if (!e->sizes || !e->dim_order) return PTD_OOM(err);
  for (size_t i = 0; i < dim; i++) e->dim_order[i] = dim_order ? dim_order[i] : (uint8_t)i;
  e->align = w->opt.tensor_alignment;
  return PTE_OK;
}

pte_status pte_ptd_writer_add_blob(pte_ptd_writer *w, const char *key, const pte_source *src, uint64_t alignment,
                                   pte_error_info *err) {
  if (w && alignment == 0) alignment = w->opt.tensor_alignment;
  if (w && !pte_wr_pow2(alignment))
    return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "ptd blob '%s': alignment %llu is not a power of two", key ? key : "",
                         (unsigned long long)alignment);
  ptdw_entry *e = NULL;
  pte_status s = ptdw_add_entry(w, key, src, &e, err);
  if (s != PTE_OK) return s;
  e->align = alignment;
  return PTE_OK;
}

typedef struct ptdw_key {
  const char *key;
  size_t index;
} ptdw_key;

static int ptdw_key_cmp(const void *x, const void *y) {
  return strcmp(((const ptdw_key *)x)->key, ((const ptdw_key *)y)->key);
}

pte_status pte_ptd_writer_write(pte_ptd_writer *w, pte_data_writer *out, pte_error_info *err) {
  if (!w || !out) return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "ptd writer: NULL argument");
  pte_wr_arena_free(&w->out_arena);
  pte_wr_arena_init(&w->out_arena, w->opt.realloc_fn, w->opt.realloc_ctx);
  pte_wr_arena *a = &w->out_arena;
  size_t n = w->entries.n;
  pte_wr_stream st;
  pte_status s = pte_wr_stream_init(&st, a, w->opt.buffer_size, !w->opt.no_thread, err);
  if (s != PTE_OK) return s;
  int32_t *canon = (int32_t *)pte_wr_alloc(a, (n ? n : 1) * sizeof(int32_t));
  int32_t *seg_of = (int32_t *)pte_wr_alloc(a, (n ? n : 1) * sizeof(int32_t));
  const pte_source **srcs = (const pte_source **)pte_wr_alloc(a, (n ? n : 1) * sizeof(*srcs));
  ptd_seg *segs = (ptd_seg *)pte_wr_alloc(a, (n ? n : 1) * sizeof(ptd_seg));
  pte_fb_ref *refs = (pte_fb_ref *)pte_wr_alloc(a, (n ? n : 1) * sizeof(pte_fb_ref));
  if (!canon || !seg_of || !srcs || !segs || !refs) return PTD_OOM(err);
  for (size_t i = 0; i < n; i++) {
    srcs[i] = &PTE_WR_AT(w->entries, ptdw_entry, i).src;
    seg_of[i] = -1;
  }
  if (w->opt.no_dedup)
    for (size_t i = 0; i < n; i++) canon[i] = (int32_t)i;
  else if ((s = pte_wr_dedup(srcs, n, canon, a, st.buf, st.cap, err)) != PTE_OK)
    return s;
  size_t n_segs = 0;
  for (size_t i = 0; i < n; i++) {
    ptdw_entry *e = &PTE_WR_AT(w->entries, ptdw_entry, i);
    size_t c = (size_t)canon[i];
    if (seg_of[c] < 0) {
      seg_of[c] = (int32_t)n_segs;
      segs[n_segs].entry = c;
      segs[n_segs].size = e->src.size;
      segs[n_segs].align = e->align;
      n_segs++;
    } else if (e->align > segs[seg_of[c]].align) {
      segs[seg_of[c]].align = e->align;
    }
    seg_of[i] = seg_of[c];
  }
  uint64_t prev_end = 0;
  for (size_t i = 0; i < n_segs; i++) {
    segs[i].offset = pte_wr_align(prev_end, pte_wr_lcm(w->opt.segment_alignment, segs[i].align));
    segs[i].size = srcs[segs[i].entry]->size;
    prev_end = segs[i].offset + segs[i].size;
  }
  /* flatbuffer */
  pte_fb_builder b;
  pte_fb_builder_init(&b, w->opt.realloc_fn, w->opt.realloc_ctx);
  pte_fb_ref *seg_refs = (pte_fb_ref *)pte_wr_alloc(a, (n_segs ? n_segs : 1) * sizeof(pte_fb_ref));
  if (!seg_refs) {
    pte_fb_builder_free(&b);
    return PTD_OOM(err);
  }
  for (size_t i = 0; i < n_segs; i++) {
    pte_ft_DataSegment_start(&b);
    pte_fb_add_u64_forced(&b, pte_ft_DataSegment_offset_SLOT, segs[i].offset);
    pte_fb_add_u64_forced(&b, pte_ft_DataSegment_size_SLOT, segs[i].size);
    seg_refs[i] = pte_ft_DataSegment_end(&b);
  }
  pte_fb_ref segs_v = pte_ft_FlatTensor_create_segments(&b, seg_refs, n_segs);
  /* named_data in key byte order (the runtime then finds keys by binary search); the segments
   * keep insertion order */
  ptdw_key *order = (ptdw_key *)pte_wr_alloc(a, (n ? n : 1) * sizeof *order);
  if (!order) {
    pte_fb_builder_free(&b);
    return PTD_OOM(err);
  }
  for (size_t i = 0; i < n; i++) order[i].key = PTE_WR_AT(w->entries, ptdw_entry, i).key, order[i].index = i;
  if (n > 1) qsort(order, n, sizeof *order, ptdw_key_cmp);
  for (size_t j = 0; j < n; j++) {
    const size_t i = order[j].index;
    ptdw_entry *e = &PTE_WR_AT(w->entries, ptdw_entry, i);
    pte_fb_ref key = pte_fb_create_string(&b, e->key, strlen(e->key));
    pte_fb_ref layout = 0;
    if (e->has_layout) {
      pte_fb_ref sz = pte_ft_TensorLayout_create_sizes(&b, e->sizes, e->dim);
      pte_fb_ref dord = pte_ft_TensorLayout_create_dim_order(&b, e->dim_order, e->dim);
      pte_ft_TensorLayout_start(&b);
      pte_ft_TensorLayout_add_scalar_type(&b, e->dtype);
      pte_ft_TensorLayout_add_sizes(&b, sz);
      pte_ft_TensorLayout_add_dim_order(&b, dord);
      layout = pte_ft_TensorLayout_end(&b);
    }
    pte_ft_NamedData_start(&b);
    pte_ft_NamedData_add_key(&b, key);
    pte_fb_add_u32_forced(&b, pte_ft_NamedData_segment_index_SLOT, (uint32_t)seg_of[i]);
    pte_ft_NamedData_add_tensor_layout(&b, layout);
    refs[j] = pte_ft_NamedData_end(&b);
  }
  pte_fb_ref named_v = pte_ft_FlatTensor_create_named_data(&b, refs, n);
  pte_ft_FlatTensor_start(&b);
  pte_ft_FlatTensor_add_version(&b, 0);
  pte_ft_FlatTensor_add_segments(&b, segs_v);
  pte_ft_FlatTensor_add_named_data(&b, named_v);
  pte_fb_ref root = pte_ft_FlatTensor_end(&b);
  const uint8_t *fb = NULL;
  size_t fb_size = 0;
  s = pte_fb_finish(&b, root, pte_ft_FILE_IDENTIFIER, 16, &fb, &fb_size);
  if (s != PTE_OK) {
    pte_fb_builder_free(&b);
    return pte_error_set(err, s, "ptd writer: building the flatbuffer failed (%s)", pte_status_name(s));
  }
  uint64_t padded_header = pte_wr_align(PTE_FLAT_TENSOR_HEADER_LENGTH, PTD_HEADER_PAD);
  uint64_t base = pte_wr_align(padded_header + pte_wr_align(fb_size, PTD_HEADER_PAD), w->opt.segment_alignment);
  pte_flat_tensor_header h = {PTE_FLAT_TENSOR_HEADER_LENGTH, padded_header, fb_size, base, prev_end};
  uint8_t header[64];
  s = pte_flat_tensor_header_write(&h, (size_t)padded_header, header, sizeof header, err);
  uint64_t total = base + prev_end;
  if (s == PTE_OK) {
    s = pte_wr_stream_begin(&st, out, total, w->opt.sparse, w->opt.progress, w->opt.progress_ctx, err);
  }
  if (s == PTE_OK) {
    uint8_t head[8];
    memcpy(head, fb, 8);
    uint32_t r = pte_fb_ld_u32(head) + (uint32_t)padded_header;
    head[0] = (uint8_t)r;
    head[1] = (uint8_t)(r >> 8);
    head[2] = (uint8_t)(r >> 16);
    head[3] = (uint8_t)(r >> 24);
    if (s == PTE_OK) s = pte_wr_stream_bytes(&st, head, 8, err);
    if (s == PTE_OK) s = pte_wr_stream_bytes(&st, header, (size_t)padded_header, err);
    if (s == PTE_OK) s = pte_wr_stream_bytes(&st, fb + 8, fb_size - 8, err);
  }
  pte_fb_builder_free(&b);
  for (size_t i = 0; i < n_segs && s == PTE_OK; i++) {
    s = pte_wr_stream_pad_to(&st, base + segs[i].offset, err);
    if (s == PTE_OK) s = pte_wr_stream_source(&st, srcs[segs[i].entry], PTE_WR_AT(w->entries, ptdw_entry, segs[i].entry).key, err);
  }
  if (s == PTE_OK) s = pte_wr_stream_pad_to(&st, total, err);
  if (s == PTE_OK) s = pte_wr_stream_finish(&st, err);
  pte_wr_stream_end(&st, NULL);
  pte_wr_src_cache_close(&st.cache);
  pte_wr_arena_free(&w->out_arena);
  return s;
}

pte_status pte_ptd_writer_write_file(pte_ptd_writer *w, const char *path, const pte_file_writer_options *fopt,
                                     pte_error_info *err) {
  if (!w) return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "ptd writer: NULL writer");
  pte_file_writer fw;
  pte_status s = pte_file_writer_open(&fw, path, fopt, err);
  if (s != PTE_OK) return s;
  s = pte_ptd_writer_write(w, &fw.base, err);
  pte_data_writer_destroy(&fw.base);
  return s;
}
