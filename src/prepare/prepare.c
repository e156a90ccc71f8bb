#define _POSIX_C_SOURCE 200809L
/* prepare.c — the prepare coordinator: run each backend's initialize_backend_data hook once, then
 * write the program again with the replaced values (in-place flatbuffer patch, or a full rebuild
 * through the program builder when the patch cannot express the result). */
#include <stdlib.h>
#include <string.h>

#include "prepare/prepare_internal.h"
#include "pte/headers.h"
#include "pte/io.h"
#include "pte_gen/program_gen.h"

#define PP_DEFAULT_BUFFER ((size_t)4 << 20)
#define PP_DEFAULT_SPOOL_LIMIT ((uint64_t)32 << 20)
#define PP_MAX_ALIGN ((uint64_t)1 << 16)
#define PP_DIRECT_MIN ((uint64_t)64 << 10) /* heap values from this size skip the stream buffer */

const char *pte_prepare_backend_state_name(pte_prepare_backend_state s) {
  switch (s) {
    case PTE_PREPARE_NOT_REGISTERED: return "not registered";
    case PTE_PREPARE_UNAVAILABLE: return "unavailable";
    case PTE_PREPARE_NO_HOOK: return "no prepare hook";
    case PTE_PREPARE_SKIPPED: return "skipped";
    case PTE_PREPARE_NOT_SUPPORTED: return "not supported";
    case PTE_PREPARE_PREPARED: return "prepared";
  }
  return "unknown";
}

/* ------------------------------------------------------------------ discovery */

static pte_status oom(pte_pp_state *st, const char *what) {
  return pte_error_set(st->err, PTE_ERR_MEMORY_ALLOCATION_FAILED, "prepare: out of memory (%s)", what);
}

static pte_status discover(pte_pp_state *st) {
  pte_fb_vec plans = pte_et_Program_execution_plan(st->root);
  size_t total = 0;
  for (uint32_t pi = 0; pi < plans.len; pi++)
    total += pte_et_ExecutionPlan_delegates(pte_fb_vec_table(plans, pi)).len;
  st->cap_dels = total ? total : 1;
  st->backends = (pte_pp_backend *)pte_pp_alloc(st, st->cap_dels * sizeof *st->backends);
  st->items = (pte_pp_item *)pte_pp_alloc(st, st->cap_dels * sizeof *st->items);
  if (!st->backends || !st->items) return oom(st, "delegate table");
  for (uint32_t pi = 0; pi < plans.len; pi++) {
    pte_fb_table plan = pte_fb_vec_table(plans, pi);
    const char *mname = pte_et_ExecutionPlan_name(plan).ptr;
    pte_fb_vec dels = pte_et_ExecutionPlan_delegates(plan);
    for (uint32_t di = 0; di < dels.len; di++) {
      pte_fb_table d = pte_fb_vec_table(dels, di);
      const char *id = pte_et_BackendDelegate_id(d).ptr;
      if (!id) id = "";
      pte_fb_table ref = pte_et_BackendDelegate_processed(d);
      bool inl = pte_et_BackendDelegateDataReference_location(ref) == pte_et_DataLocation_INLINE;
      uint32_t idx = pte_et_BackendDelegateDataReference_index(ref);
      size_t b = 0;
      while (b < st->n_backends && strcmp(st->backends[b].id, id) != 0) b++;
      if (b == st->n_backends) {
        st->backends[b].id = id;
        st->n_backends++;
      }
      st->backends[b].n_delegates++;
      size_t it = 0;
      while (it < st->n_items &&
             !(st->items[it].backend == b && st->items[it].inline_data == inl && st->items[it].index == idx))
        it++;
      if (it == st->n_items) {
        pte_pp_item *x = &st->items[st->n_items++];
        x->backend = (uint32_t)b;
        x->inline_data = inl;
        x->index = idx;
        x->method_name = mname ? mname : "";
        x->delegate_index = di;
        x->delegate = d;
        x->ordinal = st->backends[b].n_items++;
        x->repl = -1;
      }
      st->items[it].n_delegates++;
    }
  }
  pte_fb_vec named = pte_et_Program_named_data(st->root);
  st->n_keys = named.len;
  st->keys = (pte_pp_key *)pte_pp_alloc(st, (st->n_keys ? st->n_keys : 1) * sizeof *st->keys);
  if (!st->keys) return oom(st, "named data table");
  for (uint32_t i = 0; i < named.len; i++) {
    pte_fb_table nd = pte_fb_vec_table(named, i);
    const char *k = pte_et_NamedData_key(nd).ptr;
    st->keys[i].key = k ? k : "";
    st->keys[i].segment = pte_et_NamedData_segment_index(nd);
    st->keys[i].repl = -1;
    st->keys[i].repl_backend = -1;
  }
  return PTE_OK;
}

/* ------------------------------------------------------------------ layout and speculative placement
 * A replaced value is written straight into the output at the offset it will have if no segment
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

static uint64_t align_up(uint64_t x, uint64_t a) { return (x + a - 1) / a * a; }

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

static pte_status layout_init(pte_pp_state *st) {
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
    return oom(st, "segment table");
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

static void layout_free(pte_pp_state *st) {
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
    uint64_t off = align_up(pos, st->align);
    if (sg == target) return off;
    pos = off + (st->seg_val[sg] >= 0 ? st->values[st->seg_val[sg]].size : st->seg_size[sg]);
  }
  return pos;
}

/* Stores a value (header + payload) for segment `seg` (-1: not a segment): placed into the output
 * when possible, else spooled. */
static pte_status store_value(pte_pp_state *st, int32_t seg, const uint8_t *hdr, const void *payload, size_t size,
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
static void recompute_seg_val(pte_pp_state *st) {
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
static pte_status readback(pte_pp_state *st, int32_t vi) {
  if (!st->values[vi].placed) return PTE_OK;
  uint64_t size = st->values[vi].size, src = st->base + st->values[vi].spec_off;
  int32_t nv = -1;
  pte_status s = pte_pp_spool_alloc(st, size, &nv);
  if (s != PTE_OK) return s;
  size_t cap = st->opt->buffer_size ? st->opt->buffer_size : PP_DEFAULT_BUFFER;
  if (cap > size) cap = (size_t)size;
  uint8_t *buf = (uint8_t *)st->realloc_fn(st->realloc_ctx, NULL, 0, cap ? cap : 1);
  if (!buf) return oom(st, "read-back buffer");
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

/* ------------------------------------------------------------------ the hook's contexts */

typedef struct pp_run {
  pte_pp_state *st;
  uint32_t b;
  size_t cursor;            /* next position in st->items to look at */
  uint32_t handed;          /* items handed out so far */
  pte_freeable_buffer cur;  /* current blob (segment) */
  pte_compile_spec *specs;
  size_t specs_cap;
  bool env_set;
  bool sealed;              /* seal_blobs() ran */
  uint32_t format_version;
  uint8_t fingerprint[PTE_PREPARED_FINGERPRINT_MAX];
  size_t fingerprint_size;
  pte_allocator *temp;
  pte_backend_data_context ctx;
  pte_backend_data_output out;
} pp_run;

/* The stored bytes of a blob: inline in the flatbuffer, or its segment loaded into *buf. */
static pte_status item_bytes(pte_pp_state *st, const pte_pp_item *it, pte_freeable_buffer *buf, const void **data,
                             size_t *size) {
  const char *id = st->backends[it->backend].id;
  if (it->inline_data) {
    pte_fb_vec dd = pte_et_Program_backend_delegate_data(st->root);
    if (it->index >= dd.len)
      return pte_error_set(st->err, PTE_ERR_INVALID_PROGRAM, "prepare: inline delegate data %u out of range", it->index);
    pte_fb_vec v = pte_et_BackendDelegateInlineData_data(pte_fb_vec_table(dd, it->index));
    *data = v.present ? pte_fb_vec_data(v) : (const void *)"";
    *size = v.present ? v.len : 0;
    return PTE_OK;
  }
  pte_segment_info info = {PTE_SEGMENT_BACKEND, it->index, id};
  pte_status s = pte_program_load_segment(&st->prog, it->index, &info, buf);
  if (s != PTE_OK)
    return pte_error_set(st->err, s, "prepare: cannot load segment %u (delegate blob of '%s'): %s", it->index, id,
                         pte_status_name(s));
  *data = buf->data ? buf->data : (const void *)"";
  *size = buf->size;
  return PTE_OK;
}

static pte_status pp_next(pte_backend_data_context *ctx, pte_backend_data *out) {
  pp_run *r = (pp_run *)ctx->impl;
  pte_pp_state *st = r->st;
  pte_freeable_buffer_free(&r->cur);
  if (r->temp) pte_allocator_reset(r->temp);
  memset(out, 0, sizeof *out);
  while (r->cursor < st->n_items && st->items[r->cursor].backend != r->b) r->cursor++;
  if (r->cursor >= st->n_items) return PTE_PREPARE_END_OF_INPUT;
  pte_pp_item *it = &st->items[r->cursor++];
  pte_status s = item_bytes(st, it, &r->cur, &out->processed, &out->processed_size);
  if (s != PTE_OK) return s;
  pte_fb_vec specs = pte_et_BackendDelegate_compile_specs(it->delegate);
  if (specs.len > r->specs_cap) {
    pte_pp_free(st, r->specs, r->specs_cap * sizeof *r->specs);
    r->specs_cap = 0;
    r->specs = (pte_compile_spec *)pte_pp_alloc(st, specs.len * sizeof *r->specs);
    if (!r->specs) return oom(st, "compile specs");
    r->specs_cap = specs.len;
  }
  for (uint32_t i = 0; i < specs.len; i++) {
    pte_fb_table cs = pte_fb_vec_table(specs, i);
    pte_fb_vec v = pte_et_CompileSpec_value(cs);
    r->specs[i].key = pte_et_CompileSpec_key(cs).ptr;
    r->specs[i].value = v.present ? pte_fb_vec_data(v) : NULL;
    r->specs[i].nbytes = v.present ? v.len : 0;
  }
  out->index = it->ordinal;
  out->method_name = it->method_name;
  out->delegate_index = it->delegate_index;
  out->n_delegates = it->n_delegates;
  out->compile_specs = specs.len ? r->specs : NULL;
  out->n_compile_specs = specs.len;
  out->inline_data = it->inline_data;
  if (it->ordinal + 1 > r->handed) r->handed = it->ordinal + 1;
  return PTE_OK;
}

static pte_status pp_set_envelope(pte_backend_data_output *o, uint32_t format_version, const void *fp, size_t n) {
  pp_run *r = (pp_run *)o->impl;
  const char *id = r->st->backends[r->b].id;
  if (strlen(id) >= PTE_PREPARED_BACKEND_ID_BYTES)
    return pte_error_set(r->st->err, PTE_ERR_INVALID_ARGUMENT,
                         "prepare: backend id '%s' is longer than %u characters and cannot be recorded in an envelope",
                         id, PTE_PREPARED_BACKEND_ID_BYTES - 1);
  if (n > PTE_PREPARED_FINGERPRINT_MAX || (!fp && n))
    return pte_error_set(r->st->err, PTE_ERR_INVALID_ARGUMENT,
                         "prepare: backend '%s': fingerprint of %zu bytes (at most %u)", id, n,
                         PTE_PREPARED_FINGERPRINT_MAX);
  r->format_version = format_version;
  if (n) memcpy(r->fingerprint, fp, n);
  r->fingerprint_size = n;
  r->env_set = true;
  return PTE_OK;
}

static pte_status pp_header(pp_run *r, uint8_t *hdr, size_t payload) {
  pte_pp_state *st = r->st;
  const char *id = st->backends[r->b].id;
  if (!r->env_set)
    return pte_error_set(st->err, PTE_ERR_INVALID_STATE,
                         "prepare: backend '%s' wrote data before pte_backend_data_set_envelope()", id);
  return pte_prepared_envelope_header(hdr, id, r->format_version, r->fingerprint, r->fingerprint_size, payload, st->err);
}

static pte_status seal_blobs(pp_run *r);

static int32_t find_key(pte_pp_state *st, const char *k) {
  for (size_t i = 0; i < st->n_keys; i++)
    if (strcmp(st->keys[i].key, k) == 0) return (int32_t)i;
  return -1;
}

static pte_status pp_write_named(pte_backend_data_output *o, const char *const *keys, const pte_prepared_value *values,
                                 size_t n) {
  pp_run *r = (pp_run *)o->impl;
  pte_pp_state *st = r->st;
  const char *id = st->backends[r->b].id;
  if ((!keys || !values) && n)
    return pte_error_set(st->err, PTE_ERR_INVALID_ARGUMENT, "prepare: backend '%s': NULL keys or values", id);
  for (size_t i = 0; i < n; i++) {
    if (!keys[i]) return pte_error_set(st->err, PTE_ERR_INVALID_ARGUMENT, "prepare: backend '%s': NULL key", id);
    if (!values[i].data && values[i].size)
      return pte_error_set(st->err, PTE_ERR_INVALID_ARGUMENT, "prepare: backend '%s': NULL data for key '%s'", id, keys[i]);
    int32_t k = find_key(st, keys[i]);
    if (k < 0)
      return pte_error_set(st->err, PTE_ERR_INVALID_ARGUMENT,
                           "prepare: backend '%s' wrote named data '%s', which the program does not have (prepare "
                           "replaces values of existing keys; it cannot add, remove or rename keys)",
                           id, keys[i]);
    if (st->keys[k].repl_backend >= 0 && (uint32_t)st->keys[k].repl_backend != r->b)
      return pte_error_set(st->err, PTE_ERR_INVALID_ARGUMENT,
                           "prepare: named data '%s' was already replaced by backend '%s'; backend '%s' cannot replace it too",
                           keys[i], st->backends[st->keys[k].repl_backend].id, id);
  }
  if (n) {
    uint8_t probe[PTE_PREPARED_HEADER_SIZE];
    pte_status s = pp_header(r, probe, values[0].size);
    if (s == PTE_OK) s = seal_blobs(r);
    if (s != PTE_OK) return s;
  }
  for (size_t i = 0; i < n; i++) {
    uint8_t hdr[PTE_PREPARED_HEADER_SIZE];
    pte_status s = pp_header(r, hdr, values[i].size);
    if (s != PTE_OK) return s;
    int32_t v = -1;
    int32_t k = find_key(st, keys[i]);
    int32_t seg = st->keys[k].segment < st->n_segs ? (int32_t)st->keys[k].segment : -1;
    s = store_value(st, seg, hdr, values[i].data, values[i].size, &v);
    if (s != PTE_OK) return s;
    st->keys[k].repl = v;
    st->keys[k].repl_backend = (int32_t)r->b;
    if (seg >= 0 && st->seg_simple[seg]) st->seg_val[seg] = v;
  }
  return PTE_OK;
}

/* Stores data (the payload) in the envelope as the new value of blob `it`. */
static pte_status store_item(pp_run *r, pte_pp_item *it, const void *data, size_t size) {
  pte_pp_state *st = r->st;
  uint8_t hdr[PTE_PREPARED_HEADER_SIZE];
  pte_status s = pp_header(r, hdr, size);
  if (s != PTE_OK) return s;
  int32_t v = -1;
  int32_t seg = !it->inline_data && it->index < st->n_segs ? (int32_t)it->index : -1;
  s = store_value(st, seg, hdr, data, size, &v);
  if (s != PTE_OK) return s;
  it->repl = v;
  if (seg >= 0 && st->seg_simple[seg]) st->seg_val[seg] = v;
  return PTE_OK;
}

/* Sealing (docs/prepare.md, "Prepared files and other runtimes"): once a backend replaces any of
 * its data, every one of its blobs goes into the envelope too, its original bytes as the payload.
 * A runtime that knows only the backend's portable format then rejects the blob at init, instead
 * of reading prepared named data as portable values. Done at the backend's first write, before its
 * values are placed, so that the blobs' new sizes are known to the speculative placement. */
static pte_status seal_blobs(pp_run *r) {
  pte_pp_state *st = r->st;
  if (r->sealed) return PTE_OK;
  r->sealed = true;
  pte_status s = PTE_OK;
  for (size_t i = 0; s == PTE_OK && i < st->n_items; i++) {
    pte_pp_item *it = &st->items[i];
    if (it->backend != r->b || it->repl >= 0) continue;
    pte_freeable_buffer buf;
    memset(&buf, 0, sizeof buf);
    const void *data = NULL;
    size_t size = 0;
    s = item_bytes(st, it, &buf, &data, &size);
    if (s == PTE_OK && !pte_prepared_is_envelope(data, size)) {
      s = store_item(r, it, data, size);
      it->sealed = s == PTE_OK;
    }
    pte_freeable_buffer_free(&buf);
  }
  return s;
}

static pte_status pp_replace_blob(pte_backend_data_output *o, uint32_t index, const void *data, size_t size) {
  pp_run *r = (pp_run *)o->impl;
  pte_pp_state *st = r->st;
  const char *id = st->backends[r->b].id;
  if (!data && size) return pte_error_set(st->err, PTE_ERR_INVALID_ARGUMENT, "prepare: backend '%s': NULL data", id);
  if (index >= r->handed)
    return pte_error_set(st->err, PTE_ERR_INVALID_ARGUMENT,
                         "prepare: backend '%s' replaced blob %u, which it was not given (%u handed out)", id, index,
                         r->handed);
  pte_pp_item *it = NULL;
  for (size_t i = 0; i < st->n_items; i++)
    if (st->items[i].backend == r->b && st->items[i].ordinal == index) it = &st->items[i];
  if (!it) return pte_error_set(st->err, PTE_ERR_INTERNAL, "prepare: blob %u of '%s' not found", index, id);
  uint8_t probe[PTE_PREPARED_HEADER_SIZE];
  pte_status s = pp_header(r, probe, size);
  if (s == PTE_OK) s = seal_blobs(r);
  if (s != PTE_OK) return s;
  it->sealed = false;
  return store_item(r, it, data, size);
}

static const pte_backend_data_context_vtable k_ctx_vt = {pp_next};
static const pte_backend_data_output_vtable k_out_vt = {pp_set_envelope, pp_write_named, pp_replace_blob};

static bool selected(const pte_prepare_options *opt, const char *id) {
  if (!opt->backends) return true;
  for (size_t i = 0; i < opt->n_backends; i++)
    if (opt->backends[i] && strcmp(opt->backends[i], id) == 0) return true;
  return false;
}

static uint64_t segment_size(pte_pp_state *st, uint32_t s) {
  uint64_t off = 0, size = 0;
  pte_program_segment(&st->prog, s, &off, &size);
  return size;
}

static pte_status run_backends(pte_pp_state *st, pte_allocator *temp, pte_event_tracer *tracer) {
  for (size_t b = 0; b < st->n_backends; b++) {
    pte_pp_backend *be = &st->backends[b];
    if (be->report) {
      size_t n = strlen(be->id);
      if (n > sizeof be->report->id - 1) n = sizeof be->report->id - 1;
      memcpy(be->report->id, be->id, n);
      be->report->id[n] = 0;
      be->report->n_blobs = be->n_items;
      be->report->n_delegates = be->n_delegates;
    }
    const pte_backend *impl = pte_get_backend(be->id);
    if (!selected(st->opt, be->id)) be->state = PTE_PREPARE_SKIPPED;
    else if (!impl) be->state = PTE_PREPARE_NOT_REGISTERED;
    else if (impl->is_available && !impl->is_available()) be->state = PTE_PREPARE_UNAVAILABLE;
    else if (!impl->initialize_backend_data) be->state = PTE_PREPARE_NO_HOOK;
    else {
      pp_run r;
      memset(&r, 0, sizeof r);
      r.st = st;
      r.b = (uint32_t)b;
      r.temp = temp;
      r.ctx.vt = &k_ctx_vt;
      r.ctx.backend_id = be->id;
      r.ctx.named_data_map = pte_program_named_data_map(&st->prog);
      r.ctx.temp_allocator = temp;
      r.ctx.event_tracer = tracer;
      r.ctx.err = st->err;
      r.ctx.impl = &r;
      r.out.vt = &k_out_vt;
      r.out.impl = &r;
      if (temp) pte_allocator_reset(temp);
      st->err->msg[0] = 0;
      uint64_t t0 = pte_pp_now_ns();
      uint64_t tok = pte_tracer_begin(tracer, be->id, -1, (int64_t)b);
      pte_status s = impl->initialize_backend_data(&r.ctx, &r.out);
      pte_tracer_end(tracer, tok);
      uint64_t t1 = pte_pp_now_ns();
      pte_freeable_buffer_free(&r.cur);
      pte_pp_free(st, r.specs, r.specs_cap * sizeof *r.specs);
      if (temp) pte_allocator_reset(temp);
      if (be->report) be->report->time_ns = t1 - t0;
      if (s == PTE_ERR_NOT_SUPPORTED) {
        be->state = PTE_PREPARE_NOT_SUPPORTED;
        for (size_t i = 0; i < st->n_items; i++)
          if (st->items[i].backend == b) st->items[i].repl = -1, st->items[i].sealed = false;
        for (size_t k = 0; k < st->n_keys; k++)
          if (st->keys[k].repl_backend == (int32_t)b) st->keys[k].repl = st->keys[k].repl_backend = -1;
        recompute_seg_val(st);
        st->err->msg[0] = 0;
      } else if (s != PTE_OK) {
        char msg[PTE_ERROR_MSG_MAX];
        memcpy(msg, st->err->msg, sizeof msg);
        msg[sizeof msg - 1] = 0;
        return pte_error_set(st->err, s, "backend '%s' failed to prepare its data: %s", be->id,
                             msg[0] ? msg : pte_status_name(s));
      } else {
        be->state = PTE_PREPARE_PREPARED;
      }
    }
    if (be->report) be->report->state = be->state;
  }
  /* per-backend byte counts */
  for (size_t i = 0; i < st->n_items; i++) {
    pte_pp_item *it = &st->items[i];
    pte_pp_backend *be = &st->backends[it->backend];
    if (it->repl < 0 || !be->report) continue;
    uint64_t before = 0;
    if (it->inline_data) {
      pte_fb_vec dd = pte_et_Program_backend_delegate_data(st->root);
      before = pte_et_BackendDelegateInlineData_data(pte_fb_vec_table(dd, it->index)).len;
    } else {
      before = segment_size(st, it->index);
    }
    if (it->sealed) be->report->blobs_sealed++; /* the original bytes again, in the envelope */
    else be->report->blobs_replaced++;
    be->report->bytes_before += before;
    be->report->bytes_after += st->values[it->repl].size;
  }
  for (size_t k = 0; k < st->n_keys; k++) {
    pte_pp_key *key = &st->keys[k];
    if (key->repl < 0 || !st->backends[key->repl_backend].report) continue;
    pte_prepare_backend_report *rep = st->backends[key->repl_backend].report;
    rep->named_replaced++;
    rep->bytes_before += segment_size(st, key->segment);
    rep->bytes_after += st->values[key->repl].size;
  }
  return PTE_OK;
}

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
    pte_status s = pte_loader_load_into(o->st->copy_loader, src, chunk, NULL, dst);
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
  o->cap = st->opt->buffer_size ? st->opt->buffer_size : PP_DEFAULT_BUFFER;
  o->buf = (uint8_t *)st->realloc_fn(st->realloc_ctx, NULL, 0, o->cap);
  if (!o->buf) return oom(st, "stream buffer");
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
  if (!p->segs || !p->order || !p->patches) return oom(st, "segment plan");
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
    sg->new_off = align_up(pos, p->align);
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
        s = readback(st, st->items[i].repl);
        if (st->report) st->report->values_moved++;
      }
    for (size_t k = 0; k < st->n_keys && s == PTE_OK; k++)
      if (st->keys[k].repl >= 0 && st->values[st->keys[k].repl].placed) {
        s = readback(st, st->keys[k].repl);
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
      s = readback(st, sg->value);
      if (st->report) st->report->values_moved++;
    }
  }
  return s;
}

/* Applies the patches to a copy of the flatbuffer and verifies it (cheap insurance). */
static pte_status verify_patched(pte_pp_state *st, const pp_plan *p) {
  uint8_t *copy = (uint8_t *)st->realloc_fn(st->realloc_ctx, NULL, 0, st->fb_size ? st->fb_size : 1);
  if (!copy) return oom(st, "flatbuffer copy");
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

/* ------------------------------------------------------------------ entry points */

static void st_free(pte_pp_state *st) {
  pte_pp_spool_free(st);
  layout_free(st);
  pte_pp_free(st, st->backends, st->cap_dels * sizeof *st->backends);
  pte_pp_free(st, st->items, st->cap_dels * sizeof *st->items);
  pte_pp_free(st, st->keys, (st->n_keys ? st->n_keys : 1) * sizeof *st->keys);
  st->backends = NULL;
  st->items = NULL;
  st->keys = NULL;
  if (st->prog_loaded) pte_program_destroy(&st->prog);
  st->prog_loaded = false;
}

pte_status pte_initialize_and_save_backend_data_ex(const pte_data_loader *loader, pte_data_writer *writer,
                                                   pte_allocator *temp_allocator, pte_event_tracer *tracer,
                                                   const pte_prepare_options *opt_in, pte_prepare_report *report,
                                                   pte_error_info *err) {
  pte_error_info local;
  if (!err) err = &local;
  err->msg[0] = 0;
  if (report) memset(report, 0, sizeof *report);
  if (!loader || !writer) return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "prepare: NULL loader or writer");
  pte_prepare_options opt;
  if (opt_in) opt = *opt_in;
  else memset(&opt, 0, sizeof opt);
  if (opt.buffer_size && opt.buffer_size < 4096)
    return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "prepare: buffer size %zu is below 4096", opt.buffer_size);
  if (opt.n_backends && !opt.backends)
    return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "prepare: NULL backend list");
  uint64_t t_start = pte_pp_now_ns();
  pte_pp_state st;
  memset(&st, 0, sizeof st);
  st.opt = &opt;
  st.err = err;
  st.report = report;
  st.realloc_fn = opt.realloc_fn ? opt.realloc_fn : pte_heap_realloc;
  st.realloc_ctx = opt.realloc_fn ? opt.realloc_ctx : NULL;
  st.spool_fd = -1;
  st.spool_limit = opt.spool_memory_limit ? opt.spool_memory_limit : (opt.spool_dir ? PP_DEFAULT_SPOOL_LIMIT : UINT64_MAX);
  st.loader = loader;
  st.copy_loader = opt.copy_loader ? opt.copy_loader : loader;

  pte_status s = pte_loader_size(loader, &st.file_size);
  if (s != PTE_OK) {
    pte_error_set(err, s, "prepare: cannot get the input size");
    goto done;
  }
  if (report) report->size_before = st.file_size;
  s = pte_program_load(loader, PTE_VERIFY_INTERNAL_CONSISTENCY, &st.prog, err);
  if (s != PTE_OK) goto done;
  st.prog_loaded = true;
  st.fb = pte_program_flatbuffer(&st.prog, &st.fb_size);
  st.root = pte_fb_root(st.fb, st.fb_size);
  {
    const pte_program_header *h = pte_program_get_header(&st.prog);
    st.base = h->present ? h->segment_base_offset : 0;
  }
  st.n_segs = pte_program_num_segments(&st.prog);
  st.n_inline = pte_et_Program_backend_delegate_data(st.root).len;
  s = discover(&st);
  if (s == PTE_OK) s = layout_init(&st);
  if (s != PTE_OK) goto done;
  st.writer = writer;
  st.speculate = opt.read_back && writer->vt && writer->vt->set_size && st.base > 0;
  for (size_t b = 0; report && b < st.n_backends && b < PTE_PREPARE_MAX_REPORTED_BACKENDS; b++)
    st.backends[b].report = &report->backends[b];
  if (report) report->n_backends = st.n_backends;

  s = run_backends(&st, temp_allocator, tracer);
  if (s != PTE_OK) goto done;

  bool any = false;
  for (size_t i = 0; i < st.n_items; i++) any = any || st.items[i].repl >= 0;
  for (size_t k = 0; k < st.n_keys; k++) any = any || st.keys[k].repl >= 0;

  uint64_t t_write = pte_pp_now_ns();
  uint64_t tok = pte_tracer_begin(tracer, "Prepare::write", -1, -1);
  if (!any && !opt.force_rebuild) {
    s = write_verbatim(&st, writer);
  } else {
    if (report) report->changed = true;
    pp_plan plan;
    s = make_plan(&st, &plan);
    if (s == PTE_OK) s = settle_placed(&st, &plan);
    if (s == PTE_OK && !plan.rebuild) s = verify_patched(&st, &plan);
    if (s == PTE_OK && !plan.rebuild) {
      s = write_patched(&st, &plan, writer);
    } else if (s == PTE_OK) {
      uint64_t size_after = 0;
      if (report) report->rebuilt = true;
      s = pte_pp_rebuild(&st, writer, plan.align ? plan.align : 128, &size_after);
      if (s == PTE_OK && report) {
        uint64_t repl = 0;
        for (size_t i = 0; i < st.n_items; i++)
          if (st.items[i].repl >= 0) repl += st.values[st.items[i].repl].size;
        for (size_t k = 0; k < st.n_keys; k++)
          if (st.keys[k].repl >= 0) repl += st.values[st.keys[k].repl].size;
        report->size_after = size_after;
        report->bytes_replaced = repl;
        report->bytes_copied = size_after > repl ? size_after - repl : 0;
      }
    }
    plan_free(&st, &plan);
  }
  pte_tracer_end(tracer, tok);
  if (report) report->write_ns = pte_pp_now_ns() - t_write;
  if (s != PTE_OK) goto done;

  uint64_t t_pub = pte_pp_now_ns();
  tok = pte_tracer_begin(tracer, "Prepare::publish", -1, -1);
  s = pte_data_writer_publish(writer, err);
  pte_tracer_end(tracer, tok);
  if (report) report->publish_ns = pte_pp_now_ns() - t_pub;
  if (s == PTE_OK) err->msg[0] = 0;

done:
  st_free(&st);
  if (report) report->time_ns = pte_pp_now_ns() - t_start;
  return s;
}

pte_status pte_initialize_and_save_backend_data(const pte_data_loader *loader, pte_data_writer *writer,
                                                pte_allocator *temp_allocator, pte_event_tracer *tracer,
                                                pte_error_info *err) {
  return pte_initialize_and_save_backend_data_ex(loader, writer, temp_allocator, tracer, NULL, NULL, err);
}
