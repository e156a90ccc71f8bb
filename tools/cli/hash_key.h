/* tools/cli/hash_key.h — named-data keys as the exporter makes them: the sha256 hex of a value's
 * bytes, streamed from a pte_source callback through one bounded buffer (tools/cli/hash_key.c;
 * used by `pte synth --delegate xnnpack` and `pte synth llama`). */
#ifndef PTE_TOOLS_HASH_KEY_H
#define PTE_TOOLS_HASH_KEY_H

#include <stddef.h>
#include <stdint.h>

#include "progress.h"
#include "pte/backend_xnnpack.h"
#include "pte/writer.h"

/* Streams bytes [0, nbytes) of rd(ctx) through buf (cap bytes) into h; *done grows by each chunk
 * and is reported to progress when progress is not NULL and total is not 0. */
pte_status pte_cli_hash_stream(pte_sha256_ctx *h, pte_source_read_fn rd, void *ctx, uint64_t nbytes, uint8_t *buf,
                               size_t cap, pte_cli_progress *progress, uint64_t *done, uint64_t total,
                               pte_error_info *err);
/* Finishes h into the lowercase hex of its digest (64 characters and a NUL). */
void pte_cli_hash_hex(pte_sha256_ctx *h, char key[65]);

#endif
