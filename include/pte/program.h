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
 * loader must outlive the program, and a loaded pte_program must not be moved to another address
 * (its named-data map points back at it). Loading reads the first 64 bytes, the flatbuffer
 * region [0, program_size) (kept for the program's lifetime; every string/vector the API returns
 * points into it) and the constant segment; other segments (delegate blobs, mutable data, named
 * data) are loaded on demand. A loaded program is immutable: any number of threads may load
 * methods from it at once (if the loader is thread-safe).
 *
 * Load steps (upstream Program::load): the 64 head bytes; the eh00 extended header (absent: the
 * whole file is the flatbuffer and there are no segments); header checks against the file size;
 * the flatbuffer region, which must be 16-byte aligned in memory; identifier "ET12";
 * verification; named data map; constants (constant_segment with more than one offset is loaded
 * as one segment, otherwise the legacy inline constant_buffer is used).
 *
 * Differences from upstream (all stricter or clearer, never more permissive):
 *   - a file shorter than 64 bytes is PTE_ERR_INVALID_PROGRAM (upstream: the loader's error);
 *   - header consistency (program_size <= file size, segment base not inside the flatbuffer) is
 *     checked up front with a message instead of failing later in the loader;
 *   - a constant segment with bytes in a file that has no segment data is rejected;
 *   - PTE_VERIFY_INTERNAL_CONSISTENCY runs many more semantic checks (see below);
 *   - pte_program_constant_data requires inline constant storage to hold at least nbytes.
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
  /* Full structural verification of the flatbuffer (every table, vector, string and union in
   * bounds and aligned) plus semantic validation, so that method loading never meets an index
   * or size it has to distrust. Every failure is PTE_ERR_INVALID_PROGRAM with a message naming
   * the method, value index or chain/instruction index. Checked:
   *   - execution_plan present; every plan has name, values, inputs, outputs, chains,
   *     delegates (may be empty) and non_const_buffer_sizes (entries >= 0); inputs/outputs are
   *     value indices in range; operators have name and overload; delegates have an id and a
   *     processed reference whose SEGMENT index < segments or INLINE index <
   *     backend_delegate_data; compile specs have key and value;
   *   - values: no NONE tag, a payload for every non-Null value; Tensor: valid scalar type
   *     (0..29), sizes present with rank <= 16 and each >= 0, dim_order of the same length and a
   *     permutation, numel * element size without overflow (forgiven, as upstream, for non-STATIC
   *     tensors that are method inputs), memory-planned tensors inside their planned buffer
   *     (1 <= memory_id < len(non_const_buffer_sizes), offset + nbytes <= buffer size), EXTERNAL
   *     tensors have a fully_qualified_name, constants (data_buffer_idx > 0, not planned) have an
   *     index and bytes inside the constant segment / constant_buffer, planned tensors with
   *     initial data have them inside mutable_data_segments[0]; String has a value; IntList items
   *     are indices of Int values; TensorList items are Tensors that come earlier in values;
   *     OptionalTensorList items are -1 or earlier Tensor/Null values;
   *   - instructions: no NONE; KernelCall op_index < operators, DelegateCall delegate_index <
   *     delegates, args / Move / JumpFalse / Free value indices in range, JumpFalse destination
   *     within the chain (== length allowed: end of chain);
   *   - segments: offset + size without overflow and inside the segment data (segment_data_size,
   *     or file size - segment base for 24-byte headers, 0 without a header), non-empty segments
   *     do not overlap; constant_segment / mutable_data_segments indices in range with every
   *     offset inside their segment; named_data keys present and segment indices in range.
   * Default. */
  PTE_VERIFY_INTERNAL_CONSISTENCY = 1
} pte_verification;

/* Parsed eh00 extended header. For plain flatbuffer files `present` is false, program_size is the
 * file size and the other fields are 0. */
typedef struct pte_program_header {
  bool present;
  uint32_t header_length;   /* 24 or 32 (or larger, forward compatible) */
  uint64_t program_size;
  uint64_t segment_base_offset;
  uint64_t segment_data_size; /* 0 for 24-byte headers */
} pte_program_header;

/* Limits a caller can impose on untrusted files (0 = no limit). */
typedef struct pte_program_limits {
  uint64_t max_file_size; /* larger files: PTE_ERR_OUT_OF_RESOURCES before anything is loaded */
} pte_program_limits;

/* Named data stored inside the .pte (opaque blobs; see pte_program_named_data_map). */
typedef struct pte_program_data_map {
  pte_named_data_map base;
  const struct pte_program *program;
} pte_program_data_map;
typedef pte_program_data_map pte_pte_data_map; /* deprecated name, kept so existing code compiles */

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
  pte_program_data_map named_data;
  uint32_t root;                      /* root table position */
  bool named_data_sorted;             /* named_data keys in byte order: binary search */
} pte_program;

typedef enum pte_constant_storage {
  PTE_CONSTANTS_NONE = 0,    /* no constants at all */
  PTE_CONSTANTS_SEGMENT = 1, /* constant_segment (current format) */
  PTE_CONSTANTS_INLINE = 2   /* legacy inline constant_buffer */
} pte_constant_storage;

/* Loads and (per `verification`) verifies a program. Errors (message in *err, may be NULL; on
 * success err->msg is cleared):
 *   PTE_ERR_INVALID_PROGRAM  file < 64 bytes; eh00 header length < 24; program_size > file size
 *                            or < 8; segment base inside the flatbuffer; base + segment_data_size
 *                            > file size ("file may be truncated"); identifier not "ET12"
 *                            ("ET??": "incompatible version"); root offset outside [8, size-4];
 *                            any verification failure; constants stored both inline and in a
 *                            segment ("only one should be used", every level); constant segment
 *                            index out of range or no segments (every level)
 *   PTE_ERR_INVALID_ARGUMENT NULL loader/program, unknown verification level, program bytes not
 *                            16-byte aligned in memory, named_data present without segments
 *   PTE_ERR_OUT_OF_RESOURCES file larger than limits->max_file_size
 *   any loader error         (PTE_ERR_ACCESS_FAILED...)
 * On failure nothing needs destroying (the struct is zeroed). */
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

/* Constant data of buffer `idx` (data_buffer_idx of a tensor), which must hold at least nbytes
 * bytes: with PTE_CONSTANTS_SEGMENT, constant_segment.offsets[idx] + nbytes <= segment size;
 * with PTE_CONSTANTS_INLINE, constant_buffer[idx].storage has >= nbytes bytes. A 0-byte answer
 * is a valid non-NULL pointer. PTE_ERR_INVALID_ARGUMENT if idx or nbytes is out of range or the
 * program has no constants. */
pte_status pte_program_constant_data(const pte_program *program, size_t idx, size_t nbytes,
                                     const void **out);

/* Number of entries in Program.segments, and segment i's (offset, size) relative to the
 * segment base (PTE_ERR_NOT_FOUND if i is out of range; offset/size may be NULL). */
size_t pte_program_num_segments(const pte_program *program);
pte_status pte_program_segment(const pte_program *program, size_t i, uint64_t *offset, uint64_t *size);

/* Loads segment i through the loader (upstream LoadSegment): PTE_ERR_NOT_FOUND if the file has no
 * segment data (no header or segment base 0) or i is out of range; PTE_ERR_INVALID_PROGRAM if
 * base + offset overflows; otherwise the loader's result. `info` may be NULL: then
 * {PTE_SEGMENT_BACKEND, i, NULL}. The caller frees *out. */
pte_status pte_program_load_segment(const pte_program *program, size_t i, const pte_segment_info *info,
                                    pte_freeable_buffer *out);

/* Copies `size` bytes of mutable data subsegment (mutable_data_segments[msi].offsets[offset_index])
 * into dst (SegmentInfo {PTE_SEGMENT_MUTABLE, segment index}). Checks in upstream order:
 * PTE_ERR_NOT_FOUND if the file has no segment data, no mutable_data_segments, msi out of
 * range, no offsets, offset_index out of range, or its segment index out of range;
 * PTE_ERR_INVALID_ARGUMENT if offset + size exceeds the segment (or dst is NULL with size > 0). */
pte_status pte_program_load_mutable_into(const pte_program *program, size_t msi, size_t offset_index,
                                         size_t size, void *dst);

/* The .pte's own named data (upstream PteDataMap), or NULL if the program has no named_data
 * field (an empty vector still gives a map). Keys are the NamedData keys (e.g. sha256 hex of
 * XNNPACK weights). get_data loads the key's whole segment again on every call (SegmentInfo
 * {PTE_SEGMENT_CONSTANT, segment index}; a view for buffer/mmap loaders, free it);
 * load_data_into copies it (size must equal the segment size, else PTE_ERR_INVALID_ARGUMENT);
 * get_tensor_layout is PTE_ERR_NOT_IMPLEMENTED (opaque blobs only, as upstream); unknown keys
 * are PTE_ERR_NOT_FOUND. Lookup is a linear search. */
const pte_named_data_map *pte_program_named_data_map(const pte_program *program);

/* Raw flatbuffer bytes: the region [0, program_size), header included (for tools and the method
 * loader). Use pte_program_root() for the Program table position. */
const uint8_t *pte_program_flatbuffer(const pte_program *program, size_t *size);

/* Position of the root Program table inside the flatbuffer (0 when not loaded). */
uint32_t pte_program_root(const pte_program *program);

#ifdef __cplusplus
}
#endif
#endif
