/* pte/headers.h — the small fixed headers of pte files: parse, validate, write, sniff.
 *
 * .pte  bytes 0..7: u32 root offset + "ET12"; optional extended header "eh00" at byte 8:
 *         +0 "eh00" | +4 u32 header_length (>= 24; 32 current) | +8 u64 program_size |
 *         +16 u64 segment_base_offset | +24 u64 segment_data_size (only if header_length >= 32)
 * .ptd  bytes 0..7: u32 root offset + "FT01"; header "FH01" at byte 8:
 *         +0 "FH01" | +4 u32 header_length (>= 40) | +8 u64 flatbuffer_offset |
 *         +16 u64 flatbuffer_size | +24 u64 segment_base_offset | +32 u64 segment_data_size
 * .bpte a BundledProgram flatbuffer ("BP08") whose field `program` holds the .pte bytes.
 * All integers are little-endian. Parsers need the first PTE_HEAD_BYTES (64) bytes of the file,
 * as the upstream runtime does (a file shorter than 64 bytes cannot be loaded).
 *
 * Everything here is core code: no allocation, no I/O; errors are a pte_status plus a message in
 * the optional pte_error_info.
 */
#ifndef PTE_HEADERS_H
#define PTE_HEADERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pte/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PTE_HEAD_BYTES 64         /* bytes a parser needs (upstream kNumHeadBytes) */
#define PTE_HEADER_OFFSET 8       /* both headers start right after root offset + identifier */

#define PTE_EXTENDED_HEADER_MAGIC "eh00"
#define PTE_EXTENDED_HEADER_MIN_LENGTH 24 /* magic, length, program_size, segment_base_offset */
#define PTE_EXTENDED_HEADER_LENGTH 32     /* current: adds segment_data_size */

#define PTE_FLAT_TENSOR_HEADER_MAGIC "FH01"
#define PTE_FLAT_TENSOR_HEADER_LENGTH 40 /* current and minimum */

/* ---- .pte extended header ("eh00") --------------------------------------------------------- */
typedef struct pte_extended_header {
  uint32_t header_length;       /* as stored (>= 24) */
  uint64_t program_size;        /* flatbuffer region [0, program_size), headers included */
  uint64_t segment_base_offset; /* absolute offset of the first segment; 0 = no segments */
  uint64_t segment_data_size;   /* 0 when header_length < 32 (field absent) */
  bool has_segment_data_size;   /* header_length >= 32 */
} pte_extended_header;

/* Parses the extended header from the first `size` bytes of a .pte (upstream
 * ExtendedHeader::Parse semantics):
 *   PTE_OK                    header present; *out filled (extra bytes of a header longer than
 *                             32 are ignored)
 *   PTE_ERR_NOT_FOUND         magic at byte 8 is not exactly "eh00": no header — the whole file
 *                             is the flatbuffer and there are no segments
 *   PTE_ERR_INVALID_PROGRAM   header_length < 24
 *   PTE_ERR_INVALID_ARGUMENT  size < PTE_HEAD_BYTES (64), or NULL head/out (as upstream) */
pte_status pte_extended_header_parse(const void *head, size_t size, pte_extended_header *out,
                                     pte_error_info *err);

/* Checks a parsed header against the file size (the runtime size check of Program::load plus
 * basic consistency), overflow-safe. All failures are PTE_ERR_INVALID_PROGRAM with a message:
 *   - program_size > file_size
 *   - segment_base_offset != 0 and segment_base_offset < program_size (segments would overlap
 *     the flatbuffer)
 *   - when segment_data_size > 0 or both segment fields are 0: expected end
 *     (segment_base_offset + segment_data_size, or program_size when the base is 0) must be
 *     <= file_size (a sum that overflows 64 bits fails too). Old files with a base but no
 *     segment_data_size skip this check, as upstream. */
pte_status pte_extended_header_validate(const pte_extended_header *h, uint64_t file_size,
                                        pte_error_info *err);

/* Serializes *h into out[0 .. padded_length): "eh00", header_length, program_size,
 * segment_base_offset, segment_data_size (only if header_length >= 32), zero padding. This is the
 * block that goes at file offset 8. header_length 0 means PTE_EXTENDED_HEADER_LENGTH (32).
 * Errors (PTE_ERR_INVALID_ARGUMENT): header_length not 24 and < 32; padded_length < the header
 * length; out_size < padded_length; NULL pointers. */
pte_status pte_extended_header_write(const pte_extended_header *h, size_t padded_length,
                                     uint8_t *out, size_t out_size, pte_error_info *err);

/* ---- .ptd FlatTensor header ("FH01") -------------------------------------------------------- */
typedef struct pte_flat_tensor_header {
  uint32_t header_length;       /* as stored (>= 40) */
  uint64_t flatbuffer_offset;   /* = the inserted (padded) header length; region [0, off+size) */
  uint64_t flatbuffer_size;     /* flatbuffer size before header insertion */
  uint64_t segment_base_offset; /* absolute */
  uint64_t segment_data_size;
} pte_flat_tensor_header;

/* Parses the FlatTensor header from the first `size` bytes of a .ptd (upstream
 * FlatTensorHeader::Parse semantics):
 *   PTE_OK                         *out filled
 *   PTE_ERR_NOT_FOUND              magic at byte 8 is not "FH01" (the upstream loader then
 *                                  fails; a .ptd must have the header)
 *   PTE_ERR_INVALID_EXTERNAL_DATA  header_length < 40
 *   PTE_ERR_INVALID_ARGUMENT       size < PTE_HEAD_BYTES (64), or NULL head/out */
pte_status pte_flat_tensor_header_parse(const void *head, size_t size,
                                        pte_flat_tensor_header *out, pte_error_info *err);

/* Checks a parsed FlatTensor header against the file size, overflow-safe; failures are
 * PTE_ERR_INVALID_EXTERNAL_DATA with a message:
 *   - segment_base_offset + segment_data_size > file_size (the upstream load-time check)
 *   - flatbuffer_offset + flatbuffer_size > file_size (the flatbuffer region cannot be loaded)
 *   - flatbuffer_offset < header_length (the flatbuffer would start inside the header) */
pte_status pte_flat_tensor_header_validate(const pte_flat_tensor_header *h, uint64_t file_size,
                                           pte_error_info *err);

/* Serializes *h into out[0 .. padded_length): "FH01", header_length, the four u64 fields, zero
 * padding (the block at file offset 8). header_length 0 means 40.
 * Errors (PTE_ERR_INVALID_ARGUMENT): header_length < 40; padded_length < header_length;
 * out_size < padded_length; NULL pointers. */
pte_status pte_flat_tensor_header_write(const pte_flat_tensor_header *h, size_t padded_length,
                                        uint8_t *out, size_t out_size, pte_error_info *err);

/* ---- File kind sniffing --------------------------------------------------------------------- */
typedef enum pte_file_kind {
  PTE_FILE_UNKNOWN = 0,
  PTE_FILE_PTE = 1,               /* identifier "ET12" */
  PTE_FILE_PTE_WRONG_VERSION = 2, /* identifier "ET" + two other bytes (upstream
                                     HeaderStatus::IncompatibleVersion) */
  PTE_FILE_PTD = 3,               /* "FT01" */
  PTE_FILE_BPTE = 4,              /* "BP08" */
  PTE_FILE_XNNPACK = 5            /* XNNPACK delegate blob: "XN00"/"XN01" flatbuffer or "XH00" */
} pte_file_kind;

/* Looks at bytes 4..7 of `head` (fewer than 8 bytes -> PTE_FILE_UNKNOWN). */
pte_file_kind pte_sniff_file_kind(const void *head, size_t size);

/* "pte", "pte (unsupported version)", "ptd", "bpte", "xnnpack", "unknown". */
const char *pte_file_kind_name(pte_file_kind k);

/* ---- Bundled program (.bpte) ------------------------------------------------------------------ */
/* Locates the embedded program inside a BundledProgram ("BP08"; root table field slot 2,
 * `program: [ubyte] (force_align: 32)`). `buf` holds the first `buf_size` bytes of the file
 * (the root table, its vtable and the vector's length must lie inside them; the whole file is
 * always enough) and `file_size` is the total size. On success *offset and *size give the program
 * bytes' position in the file: in bounds of file_size and 32-aligned relative to the file start.
 * Errors: PTE_ERR_NOT_SUPPORTED (identifier is not "BP08"); PTE_ERR_INVALID_PROGRAM (fewer than
 * 8 bytes, bad root table, program field missing, vector out of bounds or misaligned);
 * PTE_ERR_INVALID_ARGUMENT (NULL pointers, buf_size > file_size). */
pte_status pte_bundled_program_find_program(const void *buf, size_t buf_size, uint64_t file_size,
                                            uint64_t *offset, uint64_t *size, pte_error_info *err);

#ifdef __cplusplus
}
#endif
#endif
