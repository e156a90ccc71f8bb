/* File headers: .pte extended header (eh00), .ptd FlatTensor header (FH01), kind sniffing and
 * the bundled-program unwrap. Core code: no allocation, no I/O. */
#include <string.h>

#include "format/flatbuf.h"
#include "format/headers.h"

static uint32_t ld32(const uint8_t *p) {
  return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}
static uint64_t ld64(const uint8_t *p) { return (uint64_t)ld32(p) | ((uint64_t)ld32(p + 4) << 32); }
static void hdr_st32(uint8_t *p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = (uint8_t)(v >> (8 * i));
}
static void hdr_st64(uint8_t *p, uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = (uint8_t)(v >> (8 * i));
}

/* ------------------------------------------------------------------ eh00 */
pte_status pte_extended_header_parse(const void *head, size_t size, pte_extended_header *out,
                                     pte_error_info *err) {
  if (!head || !out)
    return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "extended header: NULL argument");
  if (size < PTE_HEAD_BYTES)
    return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT,
                         "extended header: %zu head bytes < minimum %d", size, PTE_HEAD_BYTES);
  const uint8_t *h = (const uint8_t *)head + PTE_HEADER_OFFSET;
  if (memcmp(h, PTE_EXTENDED_HEADER_MAGIC, 4) != 0)
    return pte_error_set(err, PTE_ERR_NOT_FOUND, "no extended header (magic is not 'eh00')");
  uint32_t len = ld32(h + PTE_EH_OFF_LENGTH);
  if (len < PTE_EXTENDED_HEADER_MIN_LENGTH)
    return pte_error_set(err, PTE_ERR_INVALID_PROGRAM, "extended header length %u < %d", len,
                         PTE_EXTENDED_HEADER_MIN_LENGTH);
  out->header_length = len;
  out->program_size = ld64(h + PTE_EH_OFF_PROGRAM_SIZE);
  out->segment_base_offset = ld64(h + PTE_EH_OFF_SEGMENT_BASE);
  out->has_segment_data_size = len >= PTE_EXTENDED_HEADER_LENGTH;
  out->segment_data_size = out->has_segment_data_size ? ld64(h + PTE_EH_OFF_SEGMENT_DATA_SIZE) : 0;
  return PTE_OK;
}

pte_status pte_extended_header_validate(const pte_extended_header *h, uint64_t file_size,
                                        pte_error_info *err) {
  if (!h) return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "extended header: NULL argument");
  if (h->program_size > file_size)
    return pte_error_set(err, PTE_ERR_INVALID_PROGRAM,
                         "extended header: program_size %llu > file size %llu; file may be "
                         "truncated",
                         (unsigned long long)h->program_size, (unsigned long long)file_size);
  if (h->segment_base_offset != 0 && h->segment_base_offset < h->program_size)
    return pte_error_set(err, PTE_ERR_INVALID_PROGRAM,
                         "extended header: segment_base_offset %llu < program_size %llu",
                         (unsigned long long)h->segment_base_offset,
                         (unsigned long long)h->program_size);
  if (h->segment_data_size > 0 || (h->segment_base_offset == 0 && h->segment_data_size == 0)) {
    if (h->segment_base_offset == 0) return PTE_OK; /* expected = program_size, checked above */
    if (h->segment_data_size > UINT64_MAX - h->segment_base_offset)
      return pte_error_set(err, PTE_ERR_INVALID_PROGRAM,
                           "extended header: segment_base_offset %llu + segment_data_size %llu "
                           "overflows",
                           (unsigned long long)h->segment_base_offset,
                           (unsigned long long)h->segment_data_size);
    uint64_t expected = h->segment_base_offset + h->segment_data_size;
    if (expected > file_size)
      return pte_error_set(err, PTE_ERR_INVALID_PROGRAM,
                           "file size %llu < %llu expected from the extended header; file may "
                           "be truncated",
                           (unsigned long long)file_size, (unsigned long long)expected);
  }
  return PTE_OK;
}

pte_status pte_extended_header_write(const pte_extended_header *h, size_t padded_length,
                                     uint8_t *out, size_t out_size, pte_error_info *err) {
  if (!h || !out)
    return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "extended header: NULL argument");
  uint32_t len = h->header_length ? h->header_length : PTE_EXTENDED_HEADER_LENGTH;
  if (len != PTE_EXTENDED_HEADER_MIN_LENGTH && len < PTE_EXTENDED_HEADER_LENGTH)
    return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT,
                         "extended header length %u must be 24 or >= 32", len);
  if (padded_length < len)
    return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT,
                         "extended header padded length %zu < header length %u", padded_length,
                         len);
  if (out_size < padded_length)
    return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT,
                         "extended header: output of %zu bytes < padded length %zu", out_size,
                         padded_length);
  memset(out, 0, padded_length);
  memcpy(out, PTE_EXTENDED_HEADER_MAGIC, 4);
  hdr_st32(out + PTE_EH_OFF_LENGTH, len);
  hdr_st64(out + PTE_EH_OFF_PROGRAM_SIZE, h->program_size);
  hdr_st64(out + PTE_EH_OFF_SEGMENT_BASE, h->segment_base_offset);
  if (len >= PTE_EXTENDED_HEADER_LENGTH) hdr_st64(out + PTE_EH_OFF_SEGMENT_DATA_SIZE, h->segment_data_size);
  return PTE_OK;
}

/* ------------------------------------------------------------------ FH01 */
pte_status pte_flat_tensor_header_parse(const void *head, size_t size,
                                        pte_flat_tensor_header *out, pte_error_info *err) {
  if (!head || !out)
    return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "FlatTensor header: NULL argument");
  if (size < PTE_HEAD_BYTES)
    return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT,
                         "FlatTensor header: %zu head bytes < minimum %d", size, PTE_HEAD_BYTES);
  const uint8_t *h = (const uint8_t *)head + PTE_HEADER_OFFSET;
  if (memcmp(h, PTE_FLAT_TENSOR_HEADER_MAGIC, 4) != 0)
    return pte_error_set(err, PTE_ERR_NOT_FOUND, "no FlatTensor header (magic is not 'FH01')");
  uint32_t len = ld32(h + PTE_FH_OFF_LENGTH);
  if (len < PTE_FLAT_TENSOR_HEADER_LENGTH)
    return pte_error_set(err, PTE_ERR_INVALID_EXTERNAL_DATA, "FlatTensor header length %u < %d",
                         len, PTE_FLAT_TENSOR_HEADER_LENGTH);
  out->header_length = len;
  out->flatbuffer_offset = ld64(h + PTE_FH_OFF_FLATBUFFER_OFFSET);
  out->flatbuffer_size = ld64(h + PTE_FH_OFF_FLATBUFFER_SIZE);
  out->segment_base_offset = ld64(h + PTE_FH_OFF_SEGMENT_BASE);
  out->segment_data_size = ld64(h + PTE_FH_OFF_SEGMENT_DATA_SIZE);
  return PTE_OK;
}

pte_status pte_flat_tensor_header_validate(const pte_flat_tensor_header *h, uint64_t file_size,
                                           pte_error_info *err) {
  if (!h) return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "FlatTensor header: NULL argument");
  if (h->segment_data_size > UINT64_MAX - h->segment_base_offset ||
      h->segment_base_offset + h->segment_data_size > file_size)
    return pte_error_set(err, PTE_ERR_INVALID_EXTERNAL_DATA,
                         "FlatTensor segment_base_offset %llu + segment_data_size %llu exceeds "
                         "file size %llu; file may be truncated",
                         (unsigned long long)h->segment_base_offset,
                         (unsigned long long)h->segment_data_size, (unsigned long long)file_size);
  if (h->flatbuffer_size > UINT64_MAX - h->flatbuffer_offset ||
      h->flatbuffer_offset + h->flatbuffer_size > file_size)
    return pte_error_set(err, PTE_ERR_INVALID_EXTERNAL_DATA,
                         "FlatTensor flatbuffer_offset %llu + flatbuffer_size %llu exceeds file "
                         "size %llu",
                         (unsigned long long)h->flatbuffer_offset,
                         (unsigned long long)h->flatbuffer_size, (unsigned long long)file_size);
  if (h->flatbuffer_offset < h->header_length)
    return pte_error_set(err, PTE_ERR_INVALID_EXTERNAL_DATA,
                         "FlatTensor flatbuffer_offset %llu < header length %u",
                         (unsigned long long)h->flatbuffer_offset, h->header_length);
  return PTE_OK;
}

pte_status pte_flat_tensor_header_write(const pte_flat_tensor_header *h, size_t padded_length,
                                        uint8_t *out, size_t out_size, pte_error_info *err) {
  if (!h || !out)
    return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "FlatTensor header: NULL argument");
  uint32_t len = h->header_length ? h->header_length : PTE_FLAT_TENSOR_HEADER_LENGTH;
  if (len < PTE_FLAT_TENSOR_HEADER_LENGTH)
    return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "FlatTensor header length %u < %d", len,
                         PTE_FLAT_TENSOR_HEADER_LENGTH);
  if (padded_length < len)
    return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT,
                         "FlatTensor header padded length %zu < header length %u", padded_length,
                         len);
  if (out_size < padded_length)
    return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT,
                         "FlatTensor header: output of %zu bytes < padded length %zu", out_size,
                         padded_length);
  memset(out, 0, padded_length);
  memcpy(out, PTE_FLAT_TENSOR_HEADER_MAGIC, 4);
  hdr_st32(out + PTE_FH_OFF_LENGTH, len);
  hdr_st64(out + PTE_FH_OFF_FLATBUFFER_OFFSET, h->flatbuffer_offset);
  hdr_st64(out + PTE_FH_OFF_FLATBUFFER_SIZE, h->flatbuffer_size);
  hdr_st64(out + PTE_FH_OFF_SEGMENT_BASE, h->segment_base_offset);
  hdr_st64(out + PTE_FH_OFF_SEGMENT_DATA_SIZE, h->segment_data_size);
  return PTE_OK;
}

/* ------------------------------------------------------------------ sniffing */
pte_file_kind pte_sniff_file_kind(const void *head, size_t size) {
  if (!head || size < 8) return PTE_FILE_UNKNOWN;
  const uint8_t *id = (const uint8_t *)head + 4;
  if (memcmp(id, "ET12", 4) == 0) return PTE_FILE_PTE;
  if (id[0] == 'E' && id[1] == 'T') return PTE_FILE_PTE_WRONG_VERSION;
  if (memcmp(id, "FT01", 4) == 0) return PTE_FILE_PTD;
  if (memcmp(id, "BP08", 4) == 0) return PTE_FILE_BPTE;
  if (memcmp(id, "XN00", 4) == 0 || memcmp(id, "XN01", 4) == 0 || memcmp(id, "XH00", 4) == 0)
    return PTE_FILE_XNNPACK;
  return PTE_FILE_UNKNOWN;
}

const char *pte_file_kind_name(pte_file_kind k) {
  switch (k) {
    case PTE_FILE_PTE: return "pte";
    case PTE_FILE_PTE_WRONG_VERSION: return "pte (unsupported version)";
    case PTE_FILE_PTD: return "ptd";
    case PTE_FILE_BPTE: return "bpte";
    case PTE_FILE_XNNPACK: return "xnnpack";
    default: return "unknown";
  }
}

/* ------------------------------------------------------------------ BP08 */
pte_status pte_bundled_program_find_program(const void *buf, size_t buf_size, uint64_t file_size,
                                            uint64_t *offset, uint64_t *size, pte_error_info *err) {
  if (!buf || !offset || !size)
    return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "bundled program: NULL argument");
  if ((uint64_t)buf_size > file_size)
    return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT,
                         "bundled program: %zu bytes given but file size is %llu", buf_size,
                         (unsigned long long)file_size);
  const uint8_t *b = (const uint8_t *)buf;
  if (buf_size < 8)
    return pte_error_set(err, PTE_ERR_INVALID_PROGRAM, "bundled program: %zu bytes is too short",
                         buf_size);
  if (memcmp(b + 4, "BP08", 4) != 0)
    return pte_error_set(err, PTE_ERR_NOT_SUPPORTED,
                         "not a bundled program: identifier is not 'BP08'");
  pte_fb_table root = pte_fb_root(b, buf_size);
  if (!pte_fb_table_present(root))
    return pte_error_set(err, PTE_ERR_INVALID_PROGRAM, "bundled program: bad root table");
  uint32_t fpos = pte_fb_field_pos(root, PTE_BP_SLOT_PROGRAM);
  if (fpos == 0)
    return pte_error_set(err, PTE_ERR_INVALID_PROGRAM, "bundled program: no program field");
  if ((uint64_t)fpos + 4 > buf_size)
    return pte_error_set(err, PTE_ERR_INVALID_PROGRAM,
                         "bundled program: program field out of bounds");
  uint64_t vpos = (uint64_t)fpos + ld32(b + fpos);
  if (vpos + 4 > buf_size)
    return pte_error_set(err, PTE_ERR_INVALID_PROGRAM,
                         "bundled program: program vector at %llu out of bounds (%zu bytes read)",
                         (unsigned long long)vpos, buf_size);
  uint64_t count = ld32(b + vpos);
  uint64_t data = vpos + 4;
  if (count > file_size - data)
    return pte_error_set(err, PTE_ERR_INVALID_PROGRAM,
                         "bundled program: program bytes [%llu, +%llu) exceed file size %llu",
                         (unsigned long long)data, (unsigned long long)count,
                         (unsigned long long)file_size);
  if (data % PTE_BP_PROGRAM_ALIGN != 0)
    return pte_error_set(err, PTE_ERR_INVALID_PROGRAM,
                         "bundled program: program bytes at offset %llu are not %d-aligned",
                         (unsigned long long)data, PTE_BP_PROGRAM_ALIGN);
  *offset = data;
  *size = count;
  return PTE_OK;
}
