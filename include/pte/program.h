/* pte/program.h — a loaded .pte program.
 *
 *   pte_file_loader fl;                     // or pte_mmap_loader / pte_buffer_loader
 *   pte_file_loader_open(&fl, "model.pte", 16, &err);
 *   pte_program prog;
 *   if (pte_program_load(&fl.base, PTE_VERIFY_INTERNAL_CONSISTENCY, &prog, &err) != PTE_OK)
 *     puts(err.msg);
 *   ... pte_method_load(&prog, "forward", ...) ...
 *   pte_program_destroy(&prog);
 *
 * The pte_program struct is caller storage (stack, static, arena); its fields are private. The
 * loader must outlive the program. Loading reads the header and the flatbuffer (kept for the
 * program's lifetime; every string/vector the API returns points into it) and the constant
 * segment; other segments (delegate blobs, mutable data, named data) are loaded on demand.
 * A loaded program is immutable: any number of threads may load methods from it at once.
 */
#ifndef PTE_PROGRAM_H
#define PTE_PROGRAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pte/data_loader.h"
#include "pte/freeable_buffer.h"
#include "pte/named_data_map.h"
#include "pte/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum pte_verification {
  /* Root offset sanity only. Accessors stay bounds-checked, so a bad file still cannot make pte
   * read outside the buffer, but errors surface later and less precisely. */
  PTE_VERIFY_MINIMAL = 0,
  /* Full structural verification of the flatbuffer plus semantic checks (tensor sizes, dim
   * orders, value indices, segment ranges...) before the program is used. Default. */
  PTE_VERIFY_INTERNAL_CONSISTENCY = 1
} pte_verification;

/* Parsed eh00 extended header (has_header false for plain flatbuffer files). */
typedef struct pte_program_header {
  bool present;
  uint32_t header_length;   /* 24 or 32 (or larger, forward compatible) */
  uint64_t program_size;
  uint64_t segment_base_offset;
  uint64_t segment_data_size; /* 0 for 24-byte headers */
} pte_program_header;

/* Limits a caller can impose on untrusted files (0 = no limit). */
typedef struct pte_program_limits {
  uint64_t max_file_size;
} pte_program_limits;

/* Named data stored inside the .pte (opaque blobs). */
typedef struct pte_pte_data_map {
  pte_named_data_map base;
  const struct pte_program *program;
} pte_pte_data_map;

typedef struct pte_program {
  /* private */
  const pte_data_loader *loader;
  pte_freeable_buffer program_data; /* header + flatbuffer region */
  const uint8_t *fb;                /* == program_data.data */
  size_t fb_size;
  pte_program_header header;
  uint64_t file_size;
  pte_freeable_buffer constant_segment; /* loaded constant segment (may be empty) */
  uint32_t constant_segment_index;
  int constant_storage;               /* pte_constant_storage */
  bool has_named_data;
  pte_pte_data_map named_data;
  uint32_t root;                      /* root table position */
} pte_program;

typedef enum pte_constant_storage {
  PTE_CONSTANTS_NONE = 0,    /* no constants at all */
  PTE_CONSTANTS_SEGMENT = 1, /* constant_segment (current format) */
  PTE_CONSTANTS_INLINE = 2   /* legacy inline constant_buffer */
} pte_constant_storage;

/* Loads and (per `verification`) verifies a program. Errors (message in *err, may be NULL):
 * PTE_ERR_INVALID_PROGRAM (bad header, identifier, structure, sizes, constants stored both
 * ways...), PTE_ERR_INVALID_ARGUMENT (misaligned program buffer, named_data without segments),
 * PTE_ERR_ACCESS_FAILED (loader), PTE_ERR_NOT_FOUND (constant segment index out of range),
 * PTE_ERR_OUT_OF_RESOURCES (limits exceeded). On failure nothing needs destroying. */
pte_status pte_program_load(const pte_data_loader *loader, pte_verification verification,
                            pte_program *program, pte_error_info *err);
pte_status pte_program_load_with_limits(const pte_data_loader *loader, pte_verification verification,
                                        const pte_program_limits *limits, pte_program *program,
                                        pte_error_info *err);
void pte_program_destroy(pte_program *program);

size_t pte_program_num_methods(const pte_program *program);
/* Name of method i (NULL if out of range). */
const char *pte_program_method_name(const pte_program *program, size_t i);
/* Index of the method called `name`, or PTE_ERR_INVALID_ARGUMENT if absent. */
pte_status pte_program_find_method(const pte_program *program, const char *name, size_t *index);

const pte_program_header *pte_program_get_header(const pte_program *program);
pte_constant_storage pte_program_constant_storage(const pte_program *program);

/* Constant data of buffer `idx` (data_buffer_idx of a tensor) with at least nbytes bytes.
 * PTE_ERR_INVALID_ARGUMENT/INVALID_PROGRAM if idx or nbytes is out of range. */
pte_status pte_program_constant_data(const pte_program *program, size_t idx, size_t nbytes,
                                     const void **out);

/* Number of entries in Program.segments, and segment i's (offset, size) relative to the
 * segment base. */
size_t pte_program_num_segments(const pte_program *program);
pte_status pte_program_segment(const pte_program *program, size_t i, uint64_t *offset, uint64_t *size);

/* Loads segment i through the loader (PTE_ERR_NOT_FOUND if the file has no segments or i is out
 * of range). */
pte_status pte_program_load_segment(const pte_program *program, size_t i, const pte_segment_info *info,
                                    pte_freeable_buffer *out);

/* Copies `size` bytes of mutable data subsegment (mutable_data_segments[msi].offsets[offset_index])
 * into dst, with every index and range checked. */
pte_status pte_program_load_mutable_into(const pte_program *program, size_t msi, size_t offset_index,
                                         size_t size, void *dst);

/* The .pte's own named data (opaque blobs), or NULL if the program has no named_data. */
const pte_named_data_map *pte_program_named_data_map(const pte_program *program);

/* Raw flatbuffer bytes (for tools: inspect, writers, prepare). */
const uint8_t *pte_program_flatbuffer(const pte_program *program, size_t *size);

#ifdef __cplusplus
}
#endif
#endif
