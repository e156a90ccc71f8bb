/* pte/ptd.h — external tensor data files (.ptd, FlatTensor "FT01" with an "FH01" header).
 *
 *   pte_mmap_loader ml;  pte_mmap_loader_open(&ml, "model.ptd", PTE_MLOCK_NONE, &err);
 *   pte_ptd ptd;
 *   if (pte_ptd_load(&ml.base, &ptd, &err) != PTE_OK) puts(err.msg);
 *   const pte_named_data_map *map = pte_ptd_map(&ptd);   // give to pte_method_load(...)
 *   ...
 *   pte_ptd_destroy(&ptd);
 *
 * A loaded .ptd is a pte_named_data_map: keys are the tensors' fully-qualified names (or any
 * blob key); get_tensor_layout gives dtype/sizes/dim_order/nbytes, get_data returns the bytes
 * (a view for buffer/mmap loaders, a heap copy for the file loader — free it), load_data_into
 * copies them into caller memory. Loads go through the loader with SegmentInfo
 * {PTE_SEGMENT_CONSTANT, segment index} (get_data) and {PTE_SEGMENT_MUTABLE, segment index}
 * (load_data_into); the head and flatbuffer region use PTE_SEGMENT_PROGRAM. Key lookup is a
 * linear search (exact length + bytes); with duplicate keys the first entry wins.
 *
 * Loading reads the 64 head bytes, the FH01 header and the flatbuffer region
 * [0, flatbuffer_offset + flatbuffer_size) (kept for the map's lifetime: keys, sizes and dim
 * orders point into it). The flatbuffer is always fully verified, and every entry is checked up
 * front, so later lookups cannot fail on malformed data: every segment lies inside the segment
 * data declared by the header (strictly: offset + size <= segment_data_size, which upstream
 * checks loosely) and segments do not overlap; every entry has a key and a segment index in range;
 * every layout present has a valid dtype, sizes >= 0, rank <= 16, a dim_order that is a
 * permutation, and a byte size that fits in its segment.
 *
 * Differences from upstream FlatTensorDataMap (safer): an entry without a tensor_layout (an
 * opaque blob) gives PTE_ERR_INVALID_EXTERNAL_DATA from get_tensor_layout instead of crashing;
 * load_data_into requires `size` to equal the entry's byte size (layout nbytes, or the segment
 * size for a blob) instead of silently copying a different amount.
 *
 * The loader must outlive the pte_ptd, and the pte_ptd must not be moved (copied to another
 * address) after loading, because the map interface points back at it. Thread-safe for
 * concurrent lookups when the loader is.
 */
#ifndef PTE_PTD_H
#define PTE_PTD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pte/data_loader.h"
#include "pte/freeable_buffer.h"
#include "pte/headers.h"
#include "pte/named_data_map.h"
#include "pte/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pte_ptd {
  pte_named_data_map base; /* must be first: (const pte_named_data_map *)&ptd works */
  /* private */
  const pte_data_loader *loader;
  pte_freeable_buffer fb_data; /* [0, flatbuffer_offset + flatbuffer_size) */
  const uint8_t *fb;
  size_t fb_size;
  uint32_t root;
  bool named_sorted; /* named_data keys in byte order (pte's writer): lookups by binary search */
  uint64_t file_size;
  pte_flat_tensor_header header;
} pte_ptd;

/* Loads and fully verifies a .ptd. Errors (message in *err, which may be NULL):
 *   PTE_ERR_INVALID_EXTERNAL_DATA  file shorter than 64 bytes, no "FH01" header, header length
 *                                  < 40, header ranges past the end of the file, identifier not
 *                                  "FT01", malformed flatbuffer, missing segments / named_data,
 *                                  bad segment, bad entry (see above)
 *   PTE_ERR_INVALID_ARGUMENT       NULL loader / out; the loader returned a flatbuffer region not
 *                                  16-byte aligned
 *   any loader error               (PTE_ERR_ACCESS_FAILED...)
 * On failure nothing needs destroying. */
pte_status pte_ptd_load(const pte_data_loader *loader, pte_ptd *out, pte_error_info *err);

/* Releases the flatbuffer region. Buffers obtained from get_data are independent (free them
 * separately). Safe on a zeroed or already destroyed pte_ptd. */
void pte_ptd_destroy(pte_ptd *ptd);

/* The map interface (== &ptd->base). */
const pte_named_data_map *pte_ptd_map(const pte_ptd *ptd);

/* The parsed FH01 header. */
const pte_flat_tensor_header *pte_ptd_header(const pte_ptd *ptd);

/* FlatTensor.version (0 for every file written so far; not checked, as upstream). */
uint32_t pte_ptd_version(const pte_ptd *ptd);

/* Number of entries in FlatTensor.segments, and segment i's (offset, size) relative to the
 * segment base (PTE_ERR_NOT_FOUND if i is out of range). */
size_t pte_ptd_num_segments(const pte_ptd *ptd);
pte_status pte_ptd_segment(const pte_ptd *ptd, size_t i, uint64_t *offset, uint64_t *size);

/* Segment index of the entry called `key` (PTE_ERR_NOT_FOUND if absent). */
pte_status pte_ptd_entry_segment(const pte_ptd *ptd, const char *key, uint32_t *segment_index);

#ifdef __cplusplus
}
#endif
#endif
