/* libFuzzer target: program load at both verification levels, then touch everything the
 * program API exposes. Any crash, leak or sanitizer report is a bug. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pte/data_loader.h"
#include "pte/program.h"

static void exercise(const uint8_t *buf, size_t size, pte_verification v) {
  pte_buffer_loader bl;
  pte_buffer_loader_init(&bl, buf, size);
  pte_program prog;
  pte_error_info err;
  if (pte_program_load(&bl.base, v, &prog, &err) != PTE_OK) return;
  size_t n = pte_program_num_methods(&prog);
  for (size_t i = 0; i < n; i++) {
    const char *name = pte_program_method_name(&prog, i);
    size_t idx;
    if (name) (void)pte_program_find_method(&prog, name, &idx);
  }
  size_t ns = pte_program_num_segments(&prog);
  for (size_t i = 0; i < ns && i < 64; i++) {
    pte_freeable_buffer b;
    pte_segment_info info = {PTE_SEGMENT_BACKEND, i, "fuzz"};
    if (pte_program_load_segment(&prog, i, &info, &b) == PTE_OK) pte_freeable_buffer_free(&b);
  }
  for (size_t i = 0; i < 8; i++) {
    const void *p;
    (void)pte_program_constant_data(&prog, i, 4, &p);
  }
  const pte_named_data_map *m = pte_program_named_data_map(&prog);
  uint32_t nk = 0;
  if (m && pte_ndm_num_keys(m, &nk) == PTE_OK) {
    for (uint32_t k = 0; k < nk && k < 64; k++) {
      const char *key;
      pte_freeable_buffer b;
      if (pte_ndm_get_key(m, k, &key) == PTE_OK && pte_ndm_get_data(m, key, &b) == PTE_OK)
        pte_freeable_buffer_free(&b);
    }
  }
  pte_program_destroy(&prog);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  /* The program buffer must be 16-aligned: copy into aligned memory. */
  void *buf = NULL;
  if (posix_memalign(&buf, 64, size ? size : 1) != 0) return 0;
  if (size) memcpy(buf, data, size);
  exercise(buf, size, PTE_VERIFY_INTERNAL_CONSISTENCY);
  exercise(buf, size, PTE_VERIFY_MINIMAL);
  free(buf);
  return 0;
}
