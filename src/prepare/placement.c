#define _POSIX_C_SOURCE 200809L
/* placement.c — prepare, segment layout and speculative placement of replaced values (prepare_internal.h). */
#include <stdlib.h>
#include <string.h>

#include "prepare/prepare_internal.h"
#include "pte/headers.h"
#include "pte/io.h"
#include "pte_gen/program_gen.h"

#define PP_MAX_ALIGN ((uint64_t)1 << 16)

/* A replaced value is written straight into the output at the offset it will have if no segment
 * before it (in file order) changes size any more ("speculative placement"), instead of being
 * spooled and copied later. Values that arrive in file order (the usual case) therefore hit the
 * output once. At the end, a value whose final offset differs is read back from the output into
 * the spool (the writer must be readable: options.read_back) and written again by the final pass.
 * A placement that would overlap another placed value is spooled instead. */

static int cmp_order(const void *a, const void *b) {
  const uint64_t *x = (const uint64_t *)a, *y = (const uint64_t *)b;
  if (x[0] != y[0]) return x[0] < y[0] ? -1 : 1;
  return x[1] < y[1] ? -1 : x[1] > y[1];
}

/* Alignment kept for every segment: max(128, largest power of two dividing every non-zero
 * original offset), at most 64 KiB. */
static uint64_t file_alignment(const uint64_t *offs, size_t n) {
  uint64_t a = 0;
  for (size_t i = 0; i < n; i++) {
    uint64_t o = offs[i];
    if (!o) continue;
    uint64_t low = o & (~o + 1);
    if (!a || low < a) a = low;
  }
  if (!a || a > PP_MAX_ALIGN) a = a ? PP_MAX_ALIGN : 128;
  return a < 128 ? 128 : a;
}

pte_status pte_pp_layout_init(pte_pp_state *st) {
  size_t n = st->n_segs ? st->n_segs : 1;
  st->seg_off = (uint64_t *)pte_pp_alloc(st, n * sizeof(uint64_t));
  st->seg_size = (uint64_t *)pte_pp_alloc(st, n * sizeof(uint64_t));
  st->order = (uint32_t *)pte_pp_alloc(st, n * sizeof(uint32_t));
  st->seg_val = (int32_t *)pte_pp_alloc(st, n * sizeof(int32_t));
  st->seg_simple = (bool *)pte_pp_alloc(st, n * sizeof(bool));
  uint64_t *pairs = (uint64_t *)pte_pp_alloc(st, n * 2 * sizeof(uint64_t));
  uint32_t *users = (uint32_t *)pte_pp_alloc(st, n * sizeof(uint32_t));
  if (!st->seg_off || !st->seg_size || !st->order || !st->seg_val || !st->seg_simple || !pairs || !users) {
    pte_pp_free(st, pairs, n * 2 * sizeof(uint64_t));
    pte_pp_free(st, users, n * sizeof(uint32_t));
    return pte_pp_oom(st, "segment table");
  }
  for (size_t i = 0; i < st->n_segs; i++) {
    pte_program_segment(&st->prog, i, &st->seg_off[i], &st->seg_size[i]);
    pairs[2 * i] = st->seg_off[i];
    pairs[2 * i + 1] = i;
    st->seg_val[i] = -1;
  }
  qsort(pairs, st->n_segs, 2 * sizeof(uint64_t), cmp_order);
  for (size_t i = 0; i < st->n_segs; i++) st->order[i] = (uint32_t)pairs[2 * i + 1];
  st->align = file_alignment(st->seg_off, st->n_segs);
  /* simple segment: exactly one user (one key or one stored blob), not constant/mutable data */
  for (size_t k = 0; k < st->n_keys; k++)
    if (st->keys[k].segment < st->n_segs) users[st->keys[k].segment]++;
  for (size_t i = 0; i < st->n_items; i++)
    if (!st->items[i].inline_data && st->items[i].index < st->n_segs) users[st->items[i].index]++;
  for (size_t i = 0; i < st->n_segs; i++) st->seg_simple[i] = users[i] == 1;
  pte_fb_table cseg = pte_et_Program_constant_segment(st->root);
  if (pte_fb_table_present(cseg) && pte_et_SubsegmentOffsets_segment_index(cseg) < st->n_segs)
    st->seg_simple[pte_et_SubsegmentOffsets_segment_index(cseg)] = false;
  pte_fb_vec ms = pte_et_Program_mutable_data_segments(st->root);
  for (uint32_t i = 0; i < ms.len; i++) {
    uint32_t mi = pte_et_SubsegmentOffsets_segment_index(pte_fb_vec_table(ms, i));
    if (mi < st->n_segs) st->seg_simple[mi] = false;
  }
  pte_pp_free(st, pairs, n * 2 * sizeof(uint64_t));
  pte_pp_free(st, users, n * sizeof(uint32_t));
  return PTE_OK;
}

void pte_pp_layout_free(pte_pp_state *st) {
  size_t n = st->n_segs ? st->n_segs : 1;
  pte_pp_free(st, st->seg_off, n * sizeof(uint64_t));
  pte_pp_free(st, st->seg_size, n * sizeof(uint64_t));
  pte_pp_free(st, st->order, n * sizeof(uint32_t));
  pte_pp_free(st, st->seg_val, n * sizeof(int32_t));
  pte_pp_free(st, st->seg_simple, n * sizeof(bool));
  st->seg_off = st->seg_size = NULL;
  st->order = NULL;
  st->seg_val = NULL;
  st->seg_simple = NULL;
}

/* Offset segment `target` gets if every segment before it keeps its current size. */
static uint64_t spec_offset(const pte_pp_state *st, uint32_t target) {
  uint64_t pos = 0;
  for (size_t k = 0; k < st->n_segs; k++) {
    uint32_t sg = st->order[k];
    uint64_t off = pte_pp_align_up(pos, st->align);
    if (sg == target) return off;
    pos = off + (st->seg_val[sg] >= 0 ? st->values[st->seg_val[sg]].size : st->seg_size[sg]);
  }
  return pos;
}

/* Stores a value (header + payload) for segment `seg` (-1: not a segment): placed into the output
 * when possible, else spooled. */
pte_status pte_pp_store_value(pte_pp_state *st, int32_t seg, const uint8_t *hdr, const void *payload, size_t size,
                              int32_t *out) {
  if (st->speculate && seg >= 0 && st->seg_simple[seg] && size <= UINT64_MAX - PTE_PREPARED_HEADER_SIZE) {
    uint64_t total = (uint64_t)size + PTE_PREPARED_HEADER_SIZE;
    uint64_t spec = spec_offset(st, (uint32_t)seg);
    bool free_range = spec <= UINT64_MAX - st->base - total;
    for (size_t i = 0; i < st->n_values && free_range; i++) {
      const pte_pp_value *v = &st->values[i];
      if (!v->placed || v->seg == seg || st->seg_val[v->seg] != (int32_t)i) continue; /* superseded */
      if (spec < v->spec_off + v->size && v->spec_off < spec + total) free_range = false;
    }
    if (free_range) {
      int32_t vi = -1;
      pte_status s = pte_pp_value_slot(st, &vi);
      if (s == PTE_OK) s = pte_data_writer_write(st->writer, hdr, PTE_PREPARED_HEADER_SIZE, st->base + spec, st->err);
      if (s == PTE_OK) s = pte_pp_write_memory(st, st->writer, payload, size, st->base + spec + PTE_PREPARED_HEADER_SIZE);
      if (s != PTE_OK) return s;
      pte_pp_value *v = &st->values[vi];
      v->size = total;
      v->placed = true;
      v->spec_off = spec;
      v->seg = seg;
      st->n_placed++;
      *out = vi;
      return PTE_OK;
    }
  }
  pte_status s = pte_pp_spool_add(st, hdr, payload, size, out);
  if (s == PTE_OK) st->values[*out].seg = seg;
  return s;
}

/* seg_val from the current replacements (after a rollback). */
void pte_pp_recompute_seg_val(pte_pp_state *st) {
  for (size_t i = 0; i < st->n_segs; i++) st->seg_val[i] = -1;
  for (size_t i = 0; i < st->n_items; i++)
    if (st->items[i].repl >= 0 && !st->items[i].inline_data && st->items[i].index < st->n_segs &&
        st->seg_simple[st->items[i].index])
      st->seg_val[st->items[i].index] = st->items[i].repl;
  for (size_t k = 0; k < st->n_keys; k++)
    if (st->keys[k].repl >= 0 && st->keys[k].segment < st->n_segs && st->seg_simple[st->keys[k].segment])
      st->seg_val[st->keys[k].segment] = st->keys[k].repl;
}

/* Moves a placed value back into the spool (read from the unpublished output). */
pte_status pte_pp_readback(pte_pp_state *st, int32_t vi) {
  if (!st->values[vi].placed) return PTE_OK;
  uint64_t size = st->values[vi].size, src = st->base + st->values[vi].spec_off;
  int32_t nv = -1;
  pte_status s = pte_pp_spool_alloc(st, size, &nv);
  if (s != PTE_OK) return s;
  size_t cap = st->opt->buffer_size ? st->opt->buffer_size : PTE_PP_DEFAULT_BUFFER;
  if (cap > size) cap = (size_t)size;
  uint8_t *buf = (uint8_t *)st->realloc_fn(st->realloc_ctx, NULL, 0, cap ? cap : 1);
  if (!buf) return pte_pp_oom(st, "read-back buffer");
  for (uint64_t off = 0; off < size && s == PTE_OK; off += cap) {
    size_t n = size - off < cap ? (size_t)(size - off) : cap;
    s = st->opt->read_back(st->opt->read_back_ctx, src + off, buf, n, st->err);
    if (s == PTE_OK) s = pte_pp_spool_write(st, nv, off, buf, n);
  }
  st->realloc_fn(st->realloc_ctx, buf, cap ? cap : 1, 0);
  if (s != PTE_OK) return s;
  int32_t seg = st->values[vi].seg;
  st->values[vi] = st->values[nv];
  st->values[vi].seg = seg;
  memset(&st->values[nv], 0, sizeof st->values[nv]); /* dead slot */
  st->values[nv].seg = -1;
  st->n_placed--;
  return PTE_OK;
}

