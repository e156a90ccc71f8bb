/* pte/prepare.h — persisting device-specialised backend data ("pte prepare").
 *
 * Backends often transform their stored data at every method load: XNNPACK packs weights into
 * GEMM panels, a GPU backend compiles shaders, an NPU backend converts a graph. `prepare` does
 * that work ONCE per model per device and saves the result into a new .pte, so that later loads
 * read the prepared bytes directly:
 *
 *   pte prepare model.pte -o model.prepared.pte          (CLI, tools/cli/cmd_prepare.c)
 *   pte_prepare_file("model.pte", "model.prepared.pte", NULL, &report, &err);
 *   pte_initialize_and_save_backend_data(loader, writer, temp_allocator, tracer, &err);
 *
 * Users who never call prepare pay nothing: this code lives in its own library (pte_prepare);
 * the core runtime does not reference it. The backend-facing half (the envelope, the hook's
 * contexts and a worked example) is pte/prepare_backend.h, included here: header-only, so a
 * backend implementing the hook does not have to link pte_prepare.
 *
 * ---- What the coordinator does --------------------------------------------------------------
 * pte_initialize_and_save_backend_data(loader, writer, ...):
 *   1. loads the program (full verification) and lists every distinct backend id used by a
 *      delegate of any method, in order of first use;
 *   2. for each one that is registered, available and has initialize_backend_data, calls the
 *      hook ONCE (event tracer scope named by the backend id). PTE_ERR_NOT_SUPPORTED (or no hook,
 *      or not registered) -> its data is copied unchanged;
 *   3. if nothing was replaced, copies the input byte for byte; otherwise writes every segment
 *      exactly once at its final offset in file order (replacement bytes where a backend gave
 *      them, original bytes otherwise, streamed through one bounded buffer), then the flatbuffer
 *      with ONLY DataSegment.offset/size and the eh00 segment_data_size changed (same size, every
 *      other byte, unknown fields included, unchanged). Replaced values wait in a spool (heap,
 *      then an anonymous temp file) or, when the output can be read back (options.read_back),
 *      are written straight to their expected final offset during the hook ("speculative
 *      placement": values replaced in file order move once; misplaced ones are read back and
 *      rewritten);
 *   4. publishes the writer (tracer scope "Prepare::publish").
 * When the in-place patch cannot express the result it falls back to a full rebuild through the
 * program builder (pte_writer_copy_program, pte/writer.h): an offset/size field that must change
 * is absent from the flatbuffer (default-valued), a replaced named-data key shares its segment
 * with another key, a replaced delegate blob is stored inline or shared with a delegate of
 * another backend / with named data. The rebuild keeps every method, value and key, but not the
 * byte layout (report->rebuilt says so, with the reason).
 * A failure anywhere leaves the writer unpublished (destroy it to discard the output); the input
 * is only ever read.
 *
 * Layout rules of the output: segments keep their file order; segment_base_offset and the
 * flatbuffer size are unchanged; every segment starts at a multiple of A relative to the segment
 * base, A = max(128, the largest power of two dividing every non-zero original segment offset)
 * (so a file written with 16384-byte segment alignment keeps it); no trailing padding.
 *
 * docs/prepare.md has the full guide (delegate-blob replacement, shared keys, fault handling).
 */
#ifndef PTE_PREPARE_H
#define PTE_PREPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pte/allocator.h"
#include "pte/backend.h"
#include "pte/data_loader.h"
#include "pte/data_writer.h"
#include "pte/event_tracer.h"
#include "pte/prepare_backend.h"
#include "pte/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ==== The coordinator (library pte_prepare) ================================================== */

typedef enum pte_prepare_backend_state {
  PTE_PREPARE_NOT_REGISTERED = 0, /* no backend registered under this id: copied unchanged */
  PTE_PREPARE_UNAVAILABLE = 1,    /* registered but is_available() is false: copied unchanged */
  PTE_PREPARE_NO_HOOK = 2,        /* registered without initialize_backend_data: copied unchanged */
  PTE_PREPARE_SKIPPED = 3,        /* not selected by options.backends: copied unchanged */
  PTE_PREPARE_NOT_SUPPORTED = 4,  /* the hook returned PTE_ERR_NOT_SUPPORTED: copied unchanged */
  PTE_PREPARE_PREPARED = 5        /* the hook ran and returned PTE_OK */
} pte_prepare_backend_state;

/* "not registered", "unavailable", "no prepare hook", "skipped", "not supported", "prepared". */
const char *pte_prepare_backend_state_name(pte_prepare_backend_state s);

#define PTE_PREPARE_MAX_REPORTED_BACKENDS 32

typedef struct pte_prepare_backend_report {
  char id[64];                     /* backend id (truncated to 63 characters) */
  pte_prepare_backend_state state;
  uint32_t n_blobs;                /* distinct delegate blobs of this backend */
  uint32_t n_delegates;            /* delegates (all methods) naming it */
  uint32_t blobs_replaced;         /* processed blobs it replaced */
  uint32_t named_replaced;         /* named-data keys it replaced */
  uint64_t bytes_before;           /* original size of the values it replaced (sealed blobs too) */
  uint64_t bytes_after;            /* size of their replacements, envelopes included */
  uint64_t time_ns;                /* wall time of its hook */
  uint32_t blobs_sealed;           /* blobs it left alone, stored again inside the envelope because
                                      it replaced other data of its own (docs/prepare.md) */
} pte_prepare_backend_report;

typedef struct pte_prepare_report {
  uint64_t size_before, size_after; /* file sizes */
  uint64_t bytes_replaced;          /* output bytes that came from replacements */
  uint64_t bytes_copied;            /* output bytes copied from the input (headers, flatbuffer,
                                       unchanged segments) */
  uint64_t time_ns;                 /* whole call */
  uint64_t write_ns;                /* writing the output (after the hooks) */
  uint64_t publish_ns;
  uint32_t values_in_place;         /* replaced values written once, straight to their final
                                       offset (speculative placement, see options.read_back) */
  uint32_t values_moved;            /* placed values read back and rewritten at another offset */
  bool changed;                     /* false: the output is a byte-for-byte copy of the input */
  bool rebuilt;                     /* the full-rebuild fallback was used */
  char rebuild_reason[160];
  size_t n_backends;                /* distinct backend ids in the program (may exceed the array) */
  pte_prepare_backend_report backends[PTE_PREPARE_MAX_REPORTED_BACKENDS];
} pte_prepare_report;

/* Called while writing: `done` of `total` output bytes written. */
typedef void (*pte_prepare_progress_fn)(void *ctx, uint64_t done, uint64_t total);

/* Zero-initialise (or pass NULL) for the defaults in brackets. */
typedef struct pte_prepare_options {
  const char *const *backends;   /* [all] prepare only these backend ids (others: SKIPPED) */
  size_t n_backends;
  size_t buffer_size;            /* [4 MiB] the one streaming buffer (>= 4096) */
  /* Replaced values are kept ("spooled") until every hook has run. Up to spool_memory_limit bytes
   * [unlimited when spool_dir is NULL, else 32 MiB] stay on the heap; the rest goes to an
   * anonymous temp file in spool_dir (created and unlinked at once, so nothing survives a
   * crash). */
  uint64_t spool_memory_limit;
  const char *spool_dir;
  /* The loader segment bytes are COPIED through [the program loader]. pte_prepare_file passes a
   * pread-based loader here and an mmap loader for the program, so that copying a large file does
   * not map it all into the process. */
  const pte_data_loader *copy_loader;
  pte_prepare_progress_fn progress;
  void *progress_ctx;
  /* Optional fast path for bytes copied unchanged (pte_prepare_file sets it): copy n bytes at
   * src_off of descriptor src_fd to output offset dst_off behind the writer's back (e.g.
   * copy_file_range into the file writer's temp file). src_fd is input_fd for input bytes, or the
   * spool file. Return PTE_OK, PTE_ERR_NOT_SUPPORTED (fall back to the buffer from now on) or an
   * error. Only use it with a writer whose output it really writes to. */
  pte_status (*copy_fd)(void *ctx, int src_fd, uint64_t src_off, uint64_t dst_off, uint64_t n, pte_error_info *err);
  void *copy_fd_ctx;
  int input_fd;                  /* descriptor of the input for copy_fd */
  /* Optional: reads back bytes [off, off + n) already written to the (unpublished) output. With
   * it, replaced values are written straight to the output at the offset they will have if they
   * arrive in file order ("speculative placement": no spool copy); a value that ends up elsewhere
   * is read back and rewritten at the end. Requires a writer with set_size. pte_prepare_file sets
   * it (pread of the temp file). */
  pte_status (*read_back)(void *ctx, uint64_t off, void *dst, size_t n, pte_error_info *err);
  void *read_back_ctx;
  pte_writer_realloc_fn realloc_fn; /* [pte_heap_realloc] the coordinator's own memory */
  void *realloc_ctx;
  bool force_rebuild;            /* [false] always take the full-rebuild path (tests) */
} pte_prepare_options;

/* The entry point: pte_initialize_and_save_backend_data_ex with default options and no
 * report. `temp_allocator` (may be NULL) is handed to the hooks as ctx->temp_allocator and reset
 * between blobs; `tracer` may be NULL. */
pte_status pte_initialize_and_save_backend_data(const pte_data_loader *loader, pte_data_writer *writer,
                                                pte_allocator *temp_allocator, pte_event_tracer *tracer,
                                                pte_error_info *err);

/* Prepares the program read through `loader` into `writer` and publishes it (see the top of this
 * header). `report` (may be NULL) is filled even on failure as far as the work went.
 * Errors (message in *err):
 *   any pte_program_load error        the input is not a valid program
 *   any error a hook returns          (other than PTE_ERR_NOT_SUPPORTED) "backend 'X': ..."
 *   PTE_ERR_INVALID_ARGUMENT          NULL loader/writer, bad options, a hook broke the rules
 *   PTE_ERR_MEMORY_ALLOCATION_FAILED  bookkeeping, spool
 *   any loader / writer error         reading the input, writing or publishing the output
 * The writer is published only on success. */
pte_status pte_initialize_and_save_backend_data_ex(const pte_data_loader *loader, pte_data_writer *writer,
                                                   pte_allocator *temp_allocator, pte_event_tracer *tracer,
                                                   const pte_prepare_options *opt, pte_prepare_report *report,
                                                   pte_error_info *err);

/* ---- Files (POSIX) -------------------------------------------------------------------------- */
typedef struct pte_prepare_file_options {
  pte_prepare_options prepare;   /* spool_dir defaults to the destination's directory */
  pte_file_writer_options file;  /* lock mode/timeout, fsync...; an all-zero struct means the
                                    pte_file_writer_options_init defaults */
  size_t temp_allocator_size;    /* [64 MiB] heap temp allocator handed to the hooks (0: default;
                                    the pages are only touched when used) */
  pte_event_tracer *tracer;
} pte_prepare_file_options;

/* Prepares the file `in_path` into `out_path` (which may equal in_path: replaced atomically).
 * Opens the input twice (mmap per-load for the program, pread for copying), takes the
 * destination's advisory lock (pte_file_writer_open), removes temp files that an earlier killed
 * writer of the same destination left behind (".<name>.<pid>.<n>.tmp" next to it; safe because
 * the lock is held), writes through a temp file and publishes with fsync + rename + directory
 * fsync. With fsync on, writeback of the temp file is started every 16 MiB written (Linux
 * sync_file_range; a hint) so that the final fsync waits for little. On failure the destination
 * is untouched and no temp file remains.
 * Errors: those of pte_file_loader_open / pte_file_writer_open (PTE_ERR_INVALID_STATE: "'X' is
 * being written by another writer") and pte_initialize_and_save_backend_data_ex. */
pte_status pte_prepare_file(const char *in_path, const char *out_path, const pte_prepare_file_options *opt,
                            pte_prepare_report *report, pte_error_info *err);

/* Removes ".<name>.<digits>.<digits>.tmp" files next to `dest_path` (stale temp files of the file
 * writer), except `keep` (may be NULL). Only call while holding the destination's lock. Returns
 * the number removed. */
size_t pte_prepare_remove_stale_temps(const char *dest_path, const char *keep);

/* ---- Describing stored values (pte inspect) -------------------------------------------------- */
/* Classifies one stored value (a delegate blob or a named-data value) from its first bytes:
 * `head` holds the first head_size bytes (>= 128 is enough), total_size is the value's size.
 *   PTE_OK             prepared: *info filled (payload NULL when head_size < total size)
 *   PTE_ERR_NOT_FOUND  portable (no envelope)
 *   other              a malformed envelope (see pte_prepared_envelope_parse), *info partial */
pte_status pte_prepared_describe(const void *head, size_t head_size, uint64_t total_size, pte_prepared_info *info);

/* One line for `pte inspect`: "portable" or "prepared for X format N on 'fp' (payload B bytes)".
 * Returns buf (always NUL-terminated). */
const char *pte_prepared_describe_text(const void *head, size_t head_size, uint64_t total_size, char *buf,
                                       size_t buf_size);

/* ---- The pass-through preparer ---------------------------------------------------------------- */

/* A "pass-through" preparer: a backend table whose initialize_backend_data re-stores every blob
 * it is given, unchanged, as its prepared payload (format version 1, fingerprint "passthrough").
 * init/execute return PTE_ERR_NOT_SUPPORTED (it cannot run anything). Register it under the id
 * of a backend whose files you want to push through the full replace path (bench, tests,
 * `pte prepare --passthrough ID`). */
const pte_backend *pte_prepare_passthrough_backend(void);

#ifdef __cplusplus
}
#endif
#endif
