/* prepare_internal.h — shared state of the prepare coordinator (internal to pte_prepare). */
#ifndef PTE_PREPARE_INTERNAL_H
#define PTE_PREPARE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "format/flatbuf.h"
#include "pte/prepare.h"
#include "pte/program.h"

/* A replaced value: envelope header + payload, on the heap or in the spool file. */
typedef struct pte_pp_value {
  uint64_t size;     /* envelope included */
  uint8_t *mem;      /* heap copy, or NULL when in the spool file / the output */
  uint64_t file_off; /* position in the spool file */
  bool placed;       /* written straight into the output at spec_off (speculative placement) */
  uint64_t spec_off; /* relative to the segment base */
  int32_t seg;       /* segment it was placed for (-1: none) */
} pte_pp_value;

/* A distinct stored blob of one backend. */
typedef struct pte_pp_item {
  uint32_t backend;       /* backend ordinal */
  bool inline_data;       /* Program.backend_delegate_data (else a segment) */
  uint32_t index;         /* segment or inline index */
  const char *method_name;
  uint32_t delegate_index;
  pte_fb_table delegate;  /* first delegate using it */
  uint32_t n_delegates;
  uint32_t ordinal;       /* index among the backend's items */
  int32_t repl;           /* value index, -1 none */
  bool sealed;            /* repl holds the original bytes in the envelope (seal_blobs) */
} pte_pp_item;

typedef struct pte_pp_key {
  const char *key;
  uint32_t segment;
  int32_t repl;           /* value index, -1 none */
  int32_t repl_backend;   /* backend that replaced it, -1 none */
} pte_pp_key;

typedef struct pte_pp_backend {
  const char *id;         /* points into the flatbuffer */
  pte_prepare_backend_state state;
  uint32_t n_items, n_delegates;
  pte_prepare_backend_report *report; /* NULL past PTE_PREPARE_MAX_REPORTED_BACKENDS */
} pte_pp_backend;

typedef struct pte_pp_state {
  const pte_prepare_options *opt;
  pte_writer_realloc_fn realloc_fn;
  void *realloc_ctx;
  pte_error_info *err;
  pte_program prog;
  bool prog_loaded;
  const pte_data_loader *loader, *copy_loader;
  const uint8_t *fb;
  size_t fb_size;
  pte_fb_table root;
  uint64_t file_size, base;
  size_t n_segs, n_inline;
  pte_pp_backend *backends;
  size_t n_backends;
  pte_pp_item *items;
  size_t n_items;
  size_t cap_dels; /* allocated entries of backends / items */
  pte_pp_key *keys;
  size_t n_keys;
  /* spool */
  pte_pp_value *values;
  size_t n_values, cap_values;
  uint64_t spool_mem, spool_limit;
  int spool_fd;
  uint64_t spool_end;
  /* segments in file order, for speculative placement */
  uint64_t *seg_off, *seg_size;
  uint32_t *order;
  int32_t *seg_val;       /* current value of a simple (unshared) segment, -1 none */
  bool *seg_simple;
  uint64_t align;
  bool speculate;
  pte_data_writer *writer;
  size_t n_placed;
  /* results */
  pte_prepare_report *report;
} pte_pp_state;

/* Default size of the output stream and read-back buffers (options.buffer_size 0). */
#define PTE_PP_DEFAULT_BUFFER ((size_t)4 << 20)

static inline uint64_t pte_pp_align_up(uint64_t x, uint64_t a) { return (x + a - 1) / a * a; }

/* PTE_ERR_MEMORY_ALLOCATION_FAILED, "prepare: out of memory (what)" (prepare.c). */
pte_status pte_pp_oom(pte_pp_state *st, const char *what);

/* discover.c: st->backends, items and keys from the program's delegates and named data. */
pte_status pte_pp_discover(pte_pp_state *st);

/* placement.c: segment layout in file order and speculative placement of replaced values. */
pte_status pte_pp_layout_init(pte_pp_state *st);
void pte_pp_layout_free(pte_pp_state *st);
/* Stores a value (header + payload) for segment `seg` (-1: not a segment): placed into the output
 * when possible, else spooled; *out is its value index. */
pte_status pte_pp_store_value(pte_pp_state *st, int32_t seg, const uint8_t *hdr, const void *payload, size_t size,
                              int32_t *out);
void pte_pp_recompute_seg_val(pte_pp_state *st);
/* Moves a placed value whose final offset differs back into the spool (reads the output). */
pte_status pte_pp_readback(pte_pp_state *st, int32_t vi);

/* hooks.c: runs the selected backends' initialize_backend_data hooks. */
pte_status pte_pp_run_backends(pte_pp_state *st, pte_allocator *temp, pte_event_tracer *tracer);

/* patch.c: writes the output through w (not published): verbatim when !any_replaced and no
 * rebuild is forced, else patched in place or rebuilt (pte_pp_rebuild). */
pte_status pte_pp_write_output(pte_pp_state *st, pte_data_writer *w, bool any_replaced);

/* memory through the options' realloc callback */
void *pte_pp_alloc(pte_pp_state *st, size_t size); /* zeroed */
void pte_pp_free(pte_pp_state *st, void *p, size_t size);

/* Reads [off, off + n) of a spooled value into dst. */
pte_status pte_pp_value_read(pte_pp_state *st, const pte_pp_value *v, uint64_t off, void *dst, size_t n);

/* rebuild.c: the full-rebuild fallback; writes through `out` (not published). */
pte_status pte_pp_rebuild(pte_pp_state *st, pte_data_writer *out, uint64_t segment_alignment, uint64_t *size_after);

/* spool.c */
pte_status pte_pp_value_slot(pte_pp_state *st, int32_t *value); /* an empty value record */
pte_status pte_pp_spool_alloc(pte_pp_state *st, uint64_t size, int32_t *value);
pte_status pte_pp_spool_write(pte_pp_state *st, int32_t value, uint64_t off, const void *data, size_t n);
pte_status pte_pp_spool_add(pte_pp_state *st, const uint8_t header[PTE_PREPARED_HEADER_SIZE], const void *payload,
                            size_t size, int32_t *value);
void pte_pp_spool_free(pte_pp_state *st);

uint64_t pte_pp_now_ns(void);

/* Every write of memory to the output goes to the writer in pieces of at most this size, each made
 * present first (pte_pp_prefault). Two reasons, both measured (docs/prepare.md, "How bytes reach
 * the output"):
 *  - a write() whose source pages are not mapped yet (a value that is a view of the mmap'd input,
 *    as the pass-through preparer gives) copies short at the first missing page; Linux then retries
 *    with ever smaller page-cache folios, down to 4 KiB for the rest of that call: one 128 MiB
 *    pwrite from a fresh mapping ran 3x slower than from present pages;
 *  - the page cache sizes its folios after the write length: on the development VM writes of
 *    4 MiB or more (2 MiB folios) ran up to 10x slower at random, 1 MiB writes did not (likely the
 *    host's free-page reporting). 1 MiB pieces cost ~2k syscalls per GiB. */
#define PTE_PP_WRITE_CHUNK ((size_t)1 << 20)

/* Makes the pages of [p, p + n) present (MADV_POPULATE_READ where available, else one read per
 * page). Only reads the memory; a no-op for n == 0. */
void pte_pp_prefault(const void *p, size_t n);

/* pte_data_writer_write of caller memory in PTE_PP_WRITE_CHUNK pieces, each prefaulted. */
pte_status pte_pp_write_memory(pte_pp_state *st, pte_data_writer *w, const void *data, size_t n, uint64_t off);

#endif
