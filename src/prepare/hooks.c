#define _POSIX_C_SOURCE 200809L
/* hooks.c — prepare, step 2: each selected backend's initialize_backend_data hook, with the
 * contexts it reads its blobs and named data from and writes the replacements to
 * (pte_pp_run_backends, prepare_internal.h). */
#include <stdlib.h>
#include <string.h>

#include "prepare/prepare_internal.h"
#include "pte/headers.h"
#include "pte/io.h"
#include "pte_gen/program_gen.h"

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
    if (!r->specs) return pte_pp_oom(st, "compile specs");
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
    s = pte_pp_store_value(st, seg, hdr, values[i].data, values[i].size, &v);
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
  s = pte_pp_store_value(st, seg, hdr, data, size, &v);
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

pte_status pte_pp_run_backends(pte_pp_state *st, pte_allocator *temp, pte_event_tracer *tracer) {
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
        pte_pp_recompute_seg_val(st);
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

