#define _POSIX_C_SOURCE 200809L
/* prepare.c — the prepare coordinator: run each backend's initialize_backend_data hook once, then
 * write the program again with the replaced values (in-place flatbuffer patch, or a full rebuild
 * through the program builder when the patch cannot express the result). The steps: discover.c
 * (delegates and keys), hooks.c (the backends' hooks), placement.c (layout, speculative
 * placement), patch.c (output stream, patch plan), rebuild.c, spool.c. */
#include <stdlib.h>
#include <string.h>

#include "prepare/prepare_internal.h"
#include "pte/headers.h"
#include "pte/io.h"
#include "pte_gen/program_gen.h"

#define PP_DEFAULT_SPOOL_LIMIT ((uint64_t)32 << 20)

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

pte_status pte_pp_oom(pte_pp_state *st, const char *what) {
  return pte_error_set(st->err, PTE_ERR_MEMORY_ALLOCATION_FAILED, "prepare: out of memory (%s)", what);
}

/* ------------------------------------------------------------------ entry points */

static void st_free(pte_pp_state *st) {
  pte_pp_spool_free(st);
  pte_pp_layout_free(st);
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

  pte_status s = pte_data_loader_size(loader, &st.file_size);
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
  s = pte_pp_discover(&st);
  if (s == PTE_OK) s = pte_pp_layout_init(&st);
  if (s != PTE_OK) goto done;
  st.writer = writer;
  st.speculate = opt.read_back && writer->vt && writer->vt->set_size && st.base > 0;
  for (size_t b = 0; report && b < st.n_backends && b < PTE_PREPARE_MAX_REPORTED_BACKENDS; b++)
    st.backends[b].report = &report->backends[b];
  if (report) report->n_backends = st.n_backends;

  s = pte_pp_run_backends(&st, temp_allocator, tracer);
  if (s != PTE_OK) goto done;

  bool any = false;
  for (size_t i = 0; i < st.n_items; i++) any = any || st.items[i].repl >= 0;
  for (size_t k = 0; k < st.n_keys; k++) any = any || st.keys[k].repl >= 0;

  uint64_t t_write = pte_pp_now_ns();
  uint64_t tok = pte_tracer_begin(tracer, "Prepare::write", -1, -1);
  s = pte_pp_write_output(&st, writer, any);
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
