/* describe.c — classifying stored values as portable or prepared (for pte inspect). */
#include <stdint.h>
#include <string.h>

#include "pte/prepare.h"

pte_status pte_prepared_describe(const void *head, size_t head_size, uint64_t total_size, pte_prepared_info *info) {
  if (!info) return PTE_ERR_INVALID_ARGUMENT;
  memset(info, 0, sizeof *info);
  if (!head || head_size > total_size) return PTE_ERR_INVALID_ARGUMENT;
  if (!pte_prepared_is_envelope(head, head_size)) return PTE_ERR_NOT_FOUND;
  if (head_size < PTE_PREPARED_HEADER_SIZE && head_size < total_size) {
    /* not enough bytes to read the header although the value is longer */
    return PTE_ERR_INVALID_ARGUMENT;
  }
  /* The parser reads only the header bytes; the payload bounds are checked against the real
   * size. */
  size_t size = total_size > (uint64_t)SIZE_MAX ? SIZE_MAX : (size_t)total_size;
  pte_status s = pte_prepared_envelope_parse(head, size, info, NULL);
  if (head_size < total_size) info->payload = NULL;
  return s;
}

const char *pte_prepared_describe_text(const void *head, size_t head_size, uint64_t total_size, char *buf,
                                       size_t buf_size) {
  if (!buf || buf_size == 0) return buf;
  pte_prepared_info pi;
  pte_status s = pte_prepared_describe(head, head_size, total_size, &pi);
  pte_error_info e;
  if (s == PTE_ERR_NOT_FOUND) {
    pte_error_set(&e, PTE_OK, "portable");
  } else if (s == PTE_OK) {
    char fp[2 * PTE_PREPARED_FINGERPRINT_MAX + 4];
    pte_prepared_fingerprint_text(pi.fingerprint, pi.fingerprint_size, fp, sizeof fp);
    pte_error_set(&e, PTE_OK, "prepared for %s format %u on %s (payload %llu bytes)", pi.backend_id, pi.format_version,
                  fp, (unsigned long long)pi.payload_size);
  } else {
    pte_error_info pe;
    pte_prepared_info tmp;
    if (head_size >= total_size) pte_prepared_envelope_parse(head, head_size, &tmp, &pe);
    else pte_error_set(&pe, s, "header not available");
    pte_error_set(&e, PTE_OK, "malformed prepared envelope (%s): %s", pte_status_name(s), pe.msg);
  }
  size_t n = strlen(e.msg);
  if (n >= buf_size) n = buf_size - 1;
  memcpy(buf, e.msg, n);
  buf[n] = 0;
  return buf;
}
