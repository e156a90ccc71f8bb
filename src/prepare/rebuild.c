/* rebuild.c — the full-rebuild fallback of prepare: copy the loaded program into the program
 * builder (pte_writer_copy_program), point the replaced delegates / named-data keys at new blobs
 * made from the spooled values, and stream the result. Uses the builder's internal model
 * (src/writer/writer_pte.h) to swap blobs after the copy. */
#include <string.h>

#include "prepare/prepare_internal.h"
#include "pte/writer.h"
#include "pte_gen/program_gen.h"
#include "writer/writer_pte.h"

/* Forwards writes; publish() only records that the builder finished (the coordinator publishes
 * the real writer itself, inside its tracer scope). */
typedef struct pp_defer {
  pte_data_writer base;
  pte_data_writer *inner;
  uint64_t end;
  bool finished;
} pp_defer;

/* In prefaulted pieces of at most PTE_PP_WRITE_CHUNK, like every other write of prepare. */
static pte_status df_write(pte_data_writer *self, const void *data, size_t size, uint64_t offset, pte_error_info *err) {
  pp_defer *d = (pp_defer *)self;
  const uint8_t *p = (const uint8_t *)data;
  for (size_t done = 0; done < size;) {
    size_t n = size - done < PTE_PP_WRITE_CHUNK ? size - done : PTE_PP_WRITE_CHUNK;
    pte_pp_prefault(p + done, n);
    pte_status s = pte_data_writer_write(d->inner, p + done, n, offset + done, err);
    if (s != PTE_OK) return s;
    done += n;
  }
  if (offset + size > d->end) d->end = offset + size;
  return PTE_OK;
}

static pte_status df_set_size(pte_data_writer *self, uint64_t size, pte_error_info *err) {
  pp_defer *d = (pp_defer *)self;
  pte_status s = pte_data_writer_set_size(d->inner, size, err);
  if (s == PTE_OK) d->end = size;
  return s;
}

static pte_status df_reserve(pte_data_writer *self, uint64_t size, pte_error_info *err) {
  return pte_data_writer_reserve(((pp_defer *)self)->inner, size, err);
}

static pte_status df_publish(pte_data_writer *self, pte_error_info *err) {
  (void)err;
  ((pp_defer *)self)->finished = true;
  return PTE_OK;
}

static void df_destroy(pte_data_writer *self) { (void)self; }

static const pte_data_writer_vtable k_defer_vt = {
    .write = df_write, .set_size = df_set_size, .reserve = df_reserve, .publish = df_publish, .destroy = df_destroy};

static pte_source value_source(pte_pp_state *st, const pte_pp_value *v) {
  if (v->mem) return pte_source_memory(v->mem, v->size);
  return pte_source_fd(st->spool_fd, v->file_off, v->size);
}

static void rebuild_progress(void *ctx, uint64_t done, uint64_t total) {
  pte_pp_state *st = (pte_pp_state *)ctx;
  if (st->opt->progress) st->opt->progress(st->opt->progress_ctx, done, total);
}

pte_status pte_pp_rebuild(pte_pp_state *st, pte_data_writer *out, uint64_t segment_alignment, uint64_t *size_after) {
  pte_writer_options wo;
  memset(&wo, 0, sizeof wo);
  wo.segment_alignment = segment_alignment;
  wo.no_dedup = true; /* the input is deduplicated already; keep one segment per stored blob */
  wo.buffer_size = st->opt->buffer_size;
  wo.realloc_fn = st->realloc_fn;
  wo.realloc_ctx = st->realloc_ctx;
  wo.progress = rebuild_progress;
  wo.progress_ctx = st;
  pte_writer *w = NULL;
  pte_status s = pte_writer_create(&wo, &w, st->err);
  if (s != PTE_OK) return s;
  s = pte_writer_copy_program(w, &st->prog, st->err);
  int32_t *seg_blob = NULL, *inl_blob = NULL;
  size_t n_blobs = w->blobs.n;
  if (s == PTE_OK) {
    seg_blob = (int32_t *)pte_pp_alloc(st, (st->n_segs + 1) * sizeof *seg_blob);
    inl_blob = (int32_t *)pte_pp_alloc(st, (st->n_inline + 1) * sizeof *inl_blob);
    if (!seg_blob || !inl_blob) s = pte_error_set(st->err, PTE_ERR_MEMORY_ALLOCATION_FAILED, "prepare: out of memory");
  }
  if (s == PTE_OK) {
    for (size_t i = 0; i < st->n_segs; i++) seg_blob[i] = -1;
    for (size_t i = 0; i < st->n_inline; i++) inl_blob[i] = -1;
    pte_fb_vec dd = pte_et_Program_backend_delegate_data(st->root);
    for (size_t b = 0; b < n_blobs; b++) {
      const pte_source *src = &PTE_WR_AT(w->blobs, wr_blob, b).src;
      if (src->kind == PTE_SOURCE_LOADER && src->loader == st->loader && src->offset >= st->base) {
        for (size_t i = 0; i < st->n_segs; i++) {
          uint64_t off = 0, size = 0;
          pte_program_segment(&st->prog, i, &off, &size);
          if (seg_blob[i] < 0 && off == src->offset - st->base && size == src->size) {
            seg_blob[i] = (int32_t)b;
            break;
          }
        }
      } else if (src->kind == PTE_SOURCE_MEMORY) {
        for (size_t i = 0; i < st->n_inline; i++) {
          pte_fb_vec data = pte_et_BackendDelegateInlineData_data(pte_fb_vec_table(dd, (uint32_t)i));
          const void *p = data.present ? pte_fb_vec_data(data) : NULL;
          if (inl_blob[i] < 0 && p == src->data && (data.present ? data.len : 0) == src->size) {
            inl_blob[i] = (int32_t)b;
            break;
          }
        }
      }
    }
  }
  /* replaced delegate blobs: only the delegates of the backend that replaced them move */
  for (size_t i = 0; s == PTE_OK && i < st->n_items; i++) {
    pte_pp_item *it = &st->items[i];
    if (it->repl < 0) continue;
    int32_t old = it->inline_data ? (it->index < st->n_inline ? inl_blob[it->index] : -1)
                                  : (it->index < st->n_segs ? seg_blob[it->index] : -1);
    if (old < 0) {
      s = pte_error_set(st->err, PTE_ERR_INTERNAL, "prepare: rebuild cannot find the stored blob %u", it->index);
      break;
    }
    pte_source src = value_source(st, &st->values[it->repl]);
    uint32_t nb = 0;
    s = pte_writer_add_blob(w, &src, &nb, st->err);
    const char *id = st->backends[it->backend].id;
    for (size_t m = 0; s == PTE_OK && m < w->methods.n; m++) {
      wr_method *wm = &PTE_WR_AT(w->methods, wr_method, m);
      for (size_t d = 0; d < wm->delegates.n; d++) {
        wr_delegate *wd = &PTE_WR_AT(wm->delegates, wr_delegate, d);
        if (wd->blob == (uint32_t)old && wd->id && strcmp(wd->id, id) == 0) {
          wd->blob = nb;
          wd->location = PTE_WR_BLOB_SEGMENT;
        }
      }
    }
  }
  for (size_t k = 0; s == PTE_OK && k < st->n_keys; k++) {
    pte_pp_key *key = &st->keys[k];
    if (key->repl < 0) continue;
    pte_source src = value_source(st, &st->values[key->repl]);
    uint32_t nb = 0;
    s = pte_writer_add_blob(w, &src, &nb, st->err);
    bool found = false;
    for (size_t n = 0; s == PTE_OK && n < w->named.n; n++) {
      wr_named *nd = &PTE_WR_AT(w->named, wr_named, n);
      if (nd->key && strcmp(nd->key, key->key) == 0) {
        nd->blob = nb;
        if (nd->align < PTE_PREPARED_PAYLOAD_ALIGN) nd->align = PTE_PREPARED_PAYLOAD_ALIGN;
        found = true;
      }
    }
    if (s == PTE_OK && !found)
      s = pte_error_set(st->err, PTE_ERR_INTERNAL, "prepare: rebuild lost named data '%s'", key->key);
  }
  pp_defer d;
  memset(&d, 0, sizeof d);
  d.base.vt = &k_defer_vt;
  d.inner = out;
  if (s == PTE_OK) s = pte_writer_write(w, &d.base, st->err);
  if (s == PTE_OK && !d.finished) s = pte_error_set(st->err, PTE_ERR_INTERNAL, "prepare: rebuild did not finish");
  if (s == PTE_OK) *size_after = d.end;
  pte_pp_free(st, seg_blob, (st->n_segs + 1) * sizeof *seg_blob);
  pte_pp_free(st, inl_blob, (st->n_inline + 1) * sizeof *inl_blob);
  pte_writer_destroy(w);
  return s;
}
