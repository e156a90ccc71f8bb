/* tools/cli/hash_key.c — see hash_key.h. */
#include "hash_key.h"

#include <stdio.h>

pte_status pte_cli_hash_stream(pte_sha256_ctx *h, pte_source_read_fn rd, void *ctx, uint64_t nbytes, uint8_t *buf,
                               size_t cap, pte_cli_progress *progress, uint64_t *done, uint64_t total,
                               pte_error_info *err) {
  for (uint64_t off = 0; off < nbytes;) {
    size_t k = nbytes - off < cap ? (size_t)(nbytes - off) : cap;
    pte_status s = rd(ctx, off, buf, k, err);
    if (s != PTE_OK) return s;
    pte_sha256_update(h, buf, k);
    off += k;
    *done += k;
    if (progress && total) pte_cli_progress_update(progress, *done, total);
  }
  return PTE_OK;
}

void pte_cli_hash_hex(pte_sha256_ctx *h, char key[65]) {
  uint8_t dig[32];
  pte_sha256_final(h, dig);
  for (int i = 0; i < 32; i++) snprintf(key + 2 * i, 3, "%02x", dig[i]);
}
