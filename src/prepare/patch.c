#define _POSIX_C_SOURCE 200809L
/* patch.c — prepare, step 3: the output stream (buffered copies from the input, the spool and
 * placed values) and the patch plan (new segment offsets and sizes, flatbuffer patches), or the
 * decision to rebuild (pte_pp_write_output, prepare_internal.h). */
#include <stdlib.h>
#include <string.h>

#include "prepare/prepare_internal.h"
#include "pte/headers.h"
#include "pte/io.h"
#include "pte_gen/program_gen.h"

#define PP_DIRECT_MIN ((uint64_t)64 << 10) /* heap values from this size skip the stream buffer */

/* ------------------------------------------------------------------ output stream */

typedef struct pp_patch {
  uint64_t pos;
  uint64_t value;
} pp_patch;

typedef struct pp_out {
  pte_pp_state *st;
  pte_data_writer *w;
  uint8_t *buf;
  size_t cap, fill;
  uint64_t off;   /* file offset of buf[0] */
  bool holes;     /* set_size worked: skipped ranges read as zero */
  bool no_fast;   /* copy_fd said NotSupported */
  uint64_t total, replaced;
} pp_out;

/* The copy_fd fast path: n bytes of src_fd at src_off to the current output position. Returns
 * PTE_ERR_NOT_SUPPORTED when the caller must use the buffer. */
static pte_status out_fast(pp_out *o, int src_fd, uint64_t src_off, uint64_t n);

static pte_status out_flush(pp_out *o) {
  if (o->fill == 0) return PTE_OK;
  pte_status s = pte_pp_write_memory(o->st, o->w, o->buf, o->fill, o->off);
  if (s != PTE_OK) return s;
  o->off += o->fill;
  o->fill = 0;
  if (o->st->opt->progress) o->st->opt->progress(o->st->opt->progress_ctx, o->off, o->total);
  return PTE_OK;
}

static pte_status out_seek(pp_out *o, uint64_t pos) {
  uint64_t cur = o->off + o->fill;
  if (pos < cur) return pte_error_set(o->st->err, PTE_ERR_INTERNAL, "prepare: output went backwards");
  uint64_t gap = pos - cur;
  if (gap > o->cap && o->holes) {
    pte_status s = out_flush(o);
    if (s != PTE_OK) return s;
    o->off = pos;
    return PTE_OK;
  }
  while (gap > 0) {
    if (o->fill == o->cap) {
      pte_status s = out_flush(o);
      if (s != PTE_OK) return s;
    }
    size_t n = o->cap - o->fill;
    if (n > gap) n = (size_t)gap;
    memset(o->buf + o->fill, 0, n);
    o->fill += n;
    gap -= n;
  }
  return PTE_OK;
}

static pte_status out_fast(pp_out *o, int src_fd, uint64_t src_off, uint64_t n) {
  const pte_prepare_options *opt = o->st->opt;
  if (!opt->copy_fd || o->no_fast || n < (64u << 10)) return PTE_ERR_NOT_SUPPORTED;
  pte_status s = out_flush(o);
  if (s != PTE_OK) return s;
  s = opt->copy_fd(opt->copy_fd_ctx, src_fd, src_off, o->off, n, o->st->err);
  if (s == PTE_ERR_NOT_SUPPORTED) {
    o->no_fast = true;
    return s;
  }
  if (s != PTE_OK) return s;
  o->off += n;
  if (opt->progress) opt->progress(opt->progress_ctx, o->off, o->total);
  return PTE_OK;
}

/* Copies [src, src + n) of the copy loader, applying patches (positions are output offsets ==
 * input offsets in the flatbuffer region). */
static pte_status out_copy(pp_out *o, uint64_t src, uint64_t n, const pp_patch *patches, size_t n_patches) {
  if (n_patches == 0) {
    pte_status s = out_fast(o, o->st->opt->input_fd, src, n);
    if (s != PTE_ERR_NOT_SUPPORTED) return s;
  }
  while (n > 0) {
    if (o->fill == o->cap) {
      pte_status s = out_flush(o);
      if (s != PTE_OK) return s;
    }
    size_t chunk = o->cap - o->fill;
    if (chunk > n) chunk = (size_t)n;
    uint8_t *dst = o->buf + o->fill;
    pte_status s = pte_data_loader_load_into(o->st->copy_loader, src, chunk, NULL, dst);
    if (s != PTE_OK)
      return pte_error_set(o->st->err, s, "prepare: cannot read %zu bytes at offset %llu of the input: %s", chunk,
                           (unsigned long long)src, pte_status_name(s));
    for (size_t i = 0; i < n_patches; i++) {
      for (unsigned k = 0; k < 8; k++) {
        uint64_t p = patches[i].pos + k;
        if (p >= src && p < src + chunk) dst[p - src] = (uint8_t)(patches[i].value >> (8 * k));
      }
    }
    o->fill += chunk;
    src += chunk;
    n -= chunk;
  }
  return PTE_OK;
}

static pte_status out_value(pp_out *o, const pte_pp_value *v) {
  uint64_t done = 0;
  if (v->mem && v->size >= PP_DIRECT_MIN) { /* on the heap: written from there, not copied first */
    pte_status s = out_flush(o);
    if (s == PTE_OK) s = pte_pp_write_memory(o->st, o->w, v->mem, (size_t)v->size, o->off);
    if (s != PTE_OK) return s;
    o->off += v->size;
    o->replaced += v->size;
    if (o->st->opt->progress) o->st->opt->progress(o->st->opt->progress_ctx, o->off, o->total);
    return PTE_OK;
  }
  if (!v->mem) {
    pte_status s = out_fast(o, o->st->spool_fd, v->file_off, v->size);
    if (s == PTE_OK) o->replaced += v->size;
    if (s != PTE_ERR_NOT_SUPPORTED) return s;
  }
  while (done < v->size) {
    if (o->fill == o->cap) {
      pte_status s = out_flush(o);
      if (s != PTE_OK) return s;
    }
    size_t chunk = o->cap - o->fill;
    if (chunk > v->size - done) chunk = (size_t)(v->size - done);
    pte_status s = pte_pp_value_read(o->st, v, done, o->buf + o->fill, chunk);
    if (s != PTE_OK) return s;
    o->fill += chunk;
    done += chunk;
  }
  o->replaced += v->size;
  return PTE_OK;
}

/* A value already in the output at the current position: leave its bytes alone. */
static pte_status out_skip(pp_out *o, const pte_pp_value *v) {
  pte_status s = out_flush(o);
  if (s != PTE_OK) return s;
  o->off += v->size;
  o->replaced += v->size;
  return PTE_OK;
}

static pte_status out_begin(pp_out *o, pte_pp_state *st, pte_data_writer *w, uint64_t total) {
  memset(o, 0, sizeof *o);
  o->st = st;
  o->w = w;
  o->total = total;
  o->cap = st->opt->buffer_size ? st->opt->buffer_size : PTE_PP_DEFAULT_BUFFER;
  o->buf = (uint8_t *)st->realloc_fn(st->realloc_ctx, NULL, 0, o->cap);
  if (!o->buf) return pte_pp_oom(st, "stream buffer");
  pte_status s = pte_data_writer_reserve(w, total, st->err); /* a full disk fails here, early */
  if (s != PTE_OK) return s;
  pte_error_info tmp;
  s = pte_data_writer_set_size(w, total, &tmp);
  if (s == PTE_OK) o->holes = st->n_placed == 0; /* placed values may have left bytes in the gaps */
  else if (s != PTE_ERR_NOT_SUPPORTED || st->n_placed) {
    *st->err = tmp;
    return s;
  }
  return PTE_OK;
}

static void out_end(pp_out *o) {
  if (o->buf) o->st->realloc_fn(o->st->realloc_ctx, o->buf, o->cap, 0);
  o->buf = NULL;
}

/* ------------------------------------------------------------------ planning the patch */

typedef struct pp_seg {
  uint64_t off, size;         /* original (relative to the base) */
  uint64_t new_off, new_size;
  int32_t value;              /* replacement, -1 none */
  uint32_t users_keys, users_items;
  bool core;                  /* constant / mutable segment */
  bool in_place;              /* value placed in the output at its final offset already */
} pp_seg;

typedef struct pp_plan {
  pp_seg *segs;
  uint64_t *order; /* pairs (offset, index) */
  pp_patch *patches;
  size_t n_patches;
  uint64_t align;
  uint64_t new_data_size, new_file_size;
  bool rebuild;
} pp_plan;

static void plan_free(pte_pp_state *st, pp_plan *p) {
  pte_pp_free(st, p->segs, st->n_segs * sizeof *p->segs);
  pte_pp_free(st, p->order, st->n_segs * 2 * sizeof *p->order);
  pte_pp_free(st, p->patches, (2 * st->n_segs + 1) * sizeof *p->patches);
  memset(p, 0, sizeof *p);
}

static void rebuild_because(pte_pp_state *st, pp_plan *p, const char *fmt, const char *a, uint32_t n) {
  if (p->rebuild) return;
  p->rebuild = true;
  if (!st->report) return;
  pte_error_info tmp;
  pte_error_set(&tmp, PTE_OK, fmt, a, n);
  size_t len = strlen(tmp.msg);
  if (len >= sizeof st->report->rebuild_reason) len = sizeof st->report->rebuild_reason - 1;
  memcpy(st->report->rebuild_reason, tmp.msg, len);
  st->report->rebuild_reason[len] = 0;
}

static pte_status make_plan(pte_pp_state *st, pp_plan *p) {
  memset(p, 0, sizeof *p);
  size_t n = st->n_segs;
  p->segs = (pp_seg *)pte_pp_alloc(st, (n ? n : 1) * sizeof *p->segs);
  p->order = (uint64_t *)pte_pp_alloc(st, (n ? n : 1) * 2 * sizeof *p->order);
  p->patches = (pp_patch *)pte_pp_alloc(st, (2 * n + 1) * sizeof *p->patches);
  if (!p->segs || !p->order || !p->patches) return pte_pp_oom(st, "segment plan");
  for (size_t i = 0; i < n; i++) {
    pte_program_segment(&st->prog, i, &p->segs[i].off, &p->segs[i].size);
    p->segs[i].value = -1;
  }
  p->align = st->align;
  pte_fb_table cseg = pte_et_Program_constant_segment(st->root);
  if (pte_fb_table_present(cseg)) {
    uint32_t ci = pte_et_SubsegmentOffsets_segment_index(cseg);
    if (ci < n) p->segs[ci].core = true;
  }
  pte_fb_vec ms = pte_et_Program_mutable_data_segments(st->root);
  for (uint32_t i = 0; i < ms.len; i++) {
    uint32_t mi = pte_et_SubsegmentOffsets_segment_index(pte_fb_vec_table(ms, i));
    if (mi < n) p->segs[mi].core = true;
  }
  for (size_t k = 0; k < st->n_keys; k++)
    if (st->keys[k].segment < n) p->segs[st->keys[k].segment].users_keys++;
  for (size_t i = 0; i < st->n_items; i++)
    if (!st->items[i].inline_data && st->items[i].index < n) p->segs[st->items[i].index].users_items++;

  if (st->opt->force_rebuild) rebuild_because(st, p, "forced by options%s", "", 0);
  for (size_t i = 0; i < st->n_items && !p->rebuild; i++) {
    pte_pp_item *it = &st->items[i];
    if (it->repl < 0) continue;
    const char *id = st->backends[it->backend].id;
    if (it->inline_data) {
      rebuild_because(st, p, "a replaced blob of '%s' is stored inline (backend_delegate_data %u)", id, it->index);
      break;
    }
    pp_seg *sg = &p->segs[it->index];
    if (sg->users_items > 1 || sg->users_keys || sg->core)
      rebuild_because(st, p, "a replaced blob of '%s' shares segment %u with other data", id, it->index);
    sg->value = it->repl;
  }
  for (size_t k = 0; k < st->n_keys && !p->rebuild; k++) {
    pte_pp_key *key = &st->keys[k];
    if (key->repl < 0) continue;
    pp_seg *sg = &p->segs[key->segment];
    if (sg->users_keys > 1 || sg->users_items || sg->core)
      rebuild_because(st, p, "replaced named data '%s' shares segment %u with other data", key->key, key->segment);
    sg->value = key->repl;
  }
  if (p->rebuild) return PTE_OK;

  for (size_t i = 0; i < n; i++) {
    p->order[2 * i] = p->segs[i].off;
    p->order[2 * i + 1] = st->order[i];
  }
  uint64_t pos = 0, end = 0;
  for (size_t k = 0; k < n; k++) {
    pp_seg *sg = &p->segs[p->order[2 * k + 1]];
    sg->new_size = sg->value >= 0 ? st->values[sg->value].size : sg->size;
    sg->new_off = pte_pp_align_up(pos, p->align);
    pos = sg->new_off + sg->new_size;
    if (pos > end) end = pos;
  }
  p->new_data_size = end;
  pte_fb_vec segv = pte_et_Program_segments(st->root);
  for (size_t i = 0; i < n; i++) {
    pp_seg *sg = &p->segs[i];
    pte_fb_table t = pte_fb_vec_table(segv, (uint32_t)i);
    if (sg->new_off != sg->off) {
      uint32_t fp = pte_fb_field_pos(t, pte_et_DataSegment_offset_SLOT);
      if (!fp) {
        rebuild_because(st, p, "DataSegment %s%u: its offset field is absent (default 0) and cannot be patched", "",
                        (uint32_t)i);
        return PTE_OK;
      }
      p->patches[p->n_patches].pos = fp;
      p->patches[p->n_patches++].value = sg->new_off;
    }
    if (sg->new_size != sg->size) {
      uint32_t fp = pte_fb_field_pos(t, pte_et_DataSegment_size_SLOT);
      if (!fp) {
        rebuild_because(st, p, "DataSegment %s%u: its size field is absent (default 0) and cannot be patched", "",
                        (uint32_t)i);
        return PTE_OK;
      }
      p->patches[p->n_patches].pos = fp;
      p->patches[p->n_patches++].value = sg->new_size;
    }
  }
  const pte_program_header *h = pte_program_get_header(&st->prog);
  if (h->present && h->header_length >= PTE_EXTENDED_HEADER_LENGTH && h->segment_data_size != 0) {
    p->patches[p->n_patches].pos = PTE_HEADER_OFFSET + 24;
    p->patches[p->n_patches++].value = p->new_data_size;
  }
  p->new_file_size = st->base + p->new_data_size;
  return PTE_OK;
}

/* Values placed in the output: those at their final offset stay (the final pass skips them), the
 * others go back to the spool first (before the final pass overwrites their bytes). The rebuild
 * rewrites everything, so it needs every value in the spool. */
static pte_status settle_placed(pte_pp_state *st, pp_plan *p) {
  if (!st->n_placed) return PTE_OK;
  pte_status s = PTE_OK;
  if (p->rebuild) {
    for (size_t i = 0; i < st->n_items && s == PTE_OK; i++)
      if (st->items[i].repl >= 0 && st->values[st->items[i].repl].placed) {
        s = pte_pp_readback(st, st->items[i].repl);
        if (st->report) st->report->values_moved++;
      }
    for (size_t k = 0; k < st->n_keys && s == PTE_OK; k++)
      if (st->keys[k].repl >= 0 && st->values[st->keys[k].repl].placed) {
        s = pte_pp_readback(st, st->keys[k].repl);
        if (st->report) st->report->values_moved++;
      }
    return s;
  }
  for (size_t i = 0; i < st->n_segs && s == PTE_OK; i++) {
    pp_seg *sg = &p->segs[i];
    if (sg->value < 0 || !st->values[sg->value].placed) continue;
    if (st->values[sg->value].spec_off == sg->new_off) {
      sg->in_place = true;
      if (st->report) st->report->values_in_place++;
    } else {
      s = pte_pp_readback(st, sg->value);
      if (st->report) st->report->values_moved++;
    }
  }
  return s;
}

/* Applies the patches to a copy of the flatbuffer and verifies it (cheap insurance). */
static pte_status verify_patched(pte_pp_state *st, const pp_plan *p) {
  uint8_t *copy = (uint8_t *)st->realloc_fn(st->realloc_ctx, NULL, 0, st->fb_size ? st->fb_size : 1);
  if (!copy) return pte_pp_oom(st, "flatbuffer copy");
  memcpy(copy, st->fb, st->fb_size);
  for (size_t i = 0; i < p->n_patches; i++)
    for (unsigned k = 0; k < 8; k++)
      if (p->patches[i].pos + k < st->fb_size) copy[p->patches[i].pos + k] = (uint8_t)(p->patches[i].value >> (8 * k));
  pte_fb_verifier v;
  pte_fb_verifier_init(&v, copy, st->fb_size, st->err);
  uint32_t root = 0;
  pte_status s = pte_fb_verify_root(&v, "ET12", &root);
  if (s == PTE_OK) s = pte_et_Program_verify(&v, root);
  pte_fb_vec segv = pte_et_Program_segments(pte_fb_root(copy, st->fb_size));
  for (uint32_t i = 0; s == PTE_OK && i < segv.len; i++) {
    pte_fb_table t = pte_fb_vec_table(segv, i);
    if (pte_et_DataSegment_offset(t) != p->segs[i].new_off || pte_et_DataSegment_size(t) != p->segs[i].new_size)
      s = pte_error_set(st->err, PTE_ERR_INTERNAL, "prepare: patched segment %u reads back wrong", i);
  }
  st->realloc_fn(st->realloc_ctx, copy, st->fb_size, 0);
  if (s != PTE_OK && s != PTE_ERR_INTERNAL) s = PTE_ERR_INTERNAL;
  return s;
}

static pte_status write_patched(pte_pp_state *st, const pp_plan *p, pte_data_writer *w) {
  pp_out o;
  pte_status s = out_begin(&o, st, w, p->new_file_size);
  if (s == PTE_OK) s = out_copy(&o, 0, st->base, p->patches, p->n_patches);
  for (size_t k = 0; s == PTE_OK && k < st->n_segs; k++) {
    const pp_seg *sg = &p->segs[p->order[2 * k + 1]];
    s = out_seek(&o, st->base + sg->new_off);
    if (s != PTE_OK) break;
    if (sg->in_place) s = out_skip(&o, &st->values[sg->value]);
    else if (sg->value >= 0) s = out_value(&o, &st->values[sg->value]);
    else s = out_copy(&o, st->base + sg->off, sg->size, NULL, 0);
  }
  if (s == PTE_OK) s = out_seek(&o, p->new_file_size);
  if (s == PTE_OK) s = out_flush(&o);
  if (s == PTE_OK && st->report) {
    st->report->size_after = p->new_file_size;
    st->report->bytes_replaced = o.replaced;
    st->report->bytes_copied = p->new_file_size - o.replaced;
  }
  out_end(&o);
  return s;
}

static pte_status write_verbatim(pte_pp_state *st, pte_data_writer *w) {
  pp_out o;
  pte_status s = out_begin(&o, st, w, st->file_size);
  if (s == PTE_OK) s = out_copy(&o, 0, st->file_size, NULL, 0);
  if (s == PTE_OK) s = out_flush(&o);
  if (s == PTE_OK && st->report) {
    st->report->size_after = st->file_size;
    st->report->bytes_copied = st->file_size;
  }
  out_end(&o);
  return s;
}


/* Writes the output: the input verbatim when nothing was replaced (and no rebuild is forced),
 * else the planned in-place patch, or the full rebuild when the patch cannot express the result. */
pte_status pte_pp_write_output(pte_pp_state *st, pte_data_writer *writer, bool any) {
  pte_status s;
  if (!any && !st->opt->force_rebuild) {
    s = write_verbatim(st, writer);
  } else {
    if (st->report) st->report->changed = true;
    pp_plan plan;
    s = make_plan(st, &plan);
    if (s == PTE_OK) s = settle_placed(st, &plan);
    if (s == PTE_OK && !plan.rebuild) s = verify_patched(st, &plan);
    if (s == PTE_OK && !plan.rebuild) {
      s = write_patched(st, &plan, writer);
    } else if (s == PTE_OK) {
      uint64_t size_after = 0;
      if (st->report) st->report->rebuilt = true;
      s = pte_pp_rebuild(st, writer, plan.align ? plan.align : 128, &size_after);
      if (s == PTE_OK && st->report) {
        uint64_t repl = 0;
        for (size_t i = 0; i < st->n_items; i++)
          if (st->items[i].repl >= 0) repl += st->values[st->items[i].repl].size;
        for (size_t k = 0; k < st->n_keys; k++)
          if (st->keys[k].repl >= 0) repl += st->values[st->keys[k].repl].size;
        st->report->size_after = size_after;
        st->report->bytes_replaced = repl;
        st->report->bytes_copied = size_after > repl ? size_after - repl : 0;
      }
    }
    plan_free(st, &plan);
  }
  return s;
}

