#define _POSIX_C_SOURCE 200809L
/* libFuzzer target: .ptd (FlatTensor) load and every named-data-map accessor on the result. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "pte/data_loader.h"
#include "pte/ptd.h"

static volatile uint32_t fz_ptd_sink;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  uint8_t *buf = fz_aligned_copy(data, size);
  if (!buf) return 0;
  pte_buffer_loader bl;
  pte_buffer_loader_init(&bl, buf, size);
  pte_ptd ptd;
  pte_error_info err;
  if (pte_ptd_load(&bl.base, &ptd, &err) == PTE_OK) {
    const pte_named_data_map *m = pte_ptd_map(&ptd);
    (void)pte_ptd_header(&ptd);
    (void)pte_ptd_version(&ptd);
    size_t ns = pte_ptd_num_segments(&ptd);
    for (size_t i = 0; i <= ns && i < 64; i++) {
      uint64_t off, sz;
      (void)pte_ptd_segment(&ptd, i, &off, &sz);
    }
    uint32_t nk = 0;
    if (pte_named_data_map_num_keys(m, &nk) == PTE_OK) {
      for (uint32_t k = 0; k <= nk && k < 64; k++) {
        const char *key;
        if (pte_named_data_map_get_key(m, k, &key) != PTE_OK) continue;
        uint32_t seg;
        (void)pte_ptd_entry_segment(&ptd, key, &seg);
        pte_tensor_layout l;
        size_t want = 0;
        if (pte_named_data_map_get_tensor_layout(m, key, &l) == PTE_OK) {
          uint32_t acc = l.dtype;
          for (int32_t d = 0; d < l.dim; d++) acc += (uint32_t)l.sizes[d] + l.dim_order[d];
          fz_ptd_sink = acc;
          want = l.nbytes;
        }
        pte_freeable_buffer b;
        if (pte_named_data_map_get_data(m, key, &b) == PTE_OK) {
          const uint8_t *p = (const uint8_t *)b.data;
          if (b.size) fz_ptd_sink = p[0] + p[b.size - 1];
          if (!want) want = b.size;
          pte_freeable_buffer_free(&b);
        }
        if (want <= (1u << 20)) {
          uint8_t *dst = (uint8_t *)malloc(want ? want : 1);
          if (dst) {
            (void)pte_named_data_map_load_data_into(m, key, dst, want);
            (void)pte_named_data_map_load_data_into(m, key, dst, want ? want - 1 : 0);
            free(dst);
          }
        }
      }
    }
    pte_freeable_buffer b;
    (void)pte_named_data_map_get_data(m, "no such key", &b);
    pte_ptd_destroy(&ptd);
  }
  free(buf);
  return 0;
}
