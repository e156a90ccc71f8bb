#define _POSIX_C_SOURCE 200809L
/* libFuzzer target: program load at both verification levels (and with a file-size limit), then
 * every accessor the program API exposes. Any crash, leak or sanitizer report is a bug. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "pte/data_loader.h"
#include "pte/program.h"

static volatile uint32_t fz_prog_sink;

static void exercise(const uint8_t *buf, size_t size, pte_verification v, const pte_program_limits *lim) {
  pte_buffer_loader bl;
  pte_buffer_loader_init(&bl, buf, size);
  pte_program prog;
  pte_error_info err;
  if (pte_program_load_with_limits(&bl.base, v, lim, &prog, &err) != PTE_OK) return;
  size_t n = pte_program_num_methods(&prog);
  for (size_t i = 0; i <= n && i < 64; i++) {
    const char *name = pte_program_method_name(&prog, i);
    size_t idx;
    if (name) (void)pte_program_find_method(&prog, name, &idx);
  }
  (void)pte_program_get_header(&prog);
  (void)pte_program_constant_storage(&prog);
  size_t fbs;
  (void)pte_program_flatbuffer(&prog, &fbs);
  size_t ns = pte_program_num_segments(&prog);
  for (size_t i = 0; i <= ns && i < 64; i++) {
    uint64_t off, sz;
    (void)pte_program_segment(&prog, i, &off, &sz);
    pte_freeable_buffer b;
    pte_segment_info info = {PTE_SEGMENT_BACKEND, i, "fuzz"};
    if (pte_program_load_segment(&prog, i, &info, &b) == PTE_OK) {
      if (b.size) fz_prog_sink = ((const uint8_t *)b.data)[b.size - 1];
      pte_freeable_buffer_free(&b);
    }
  }
  for (size_t i = 0; i < 8; i++) {
    const void *p;
    if (pte_program_constant_data(&prog, i, 4, &p) == PTE_OK) fz_prog_sink = ((const uint8_t *)p)[3];
  }
  uint8_t tmp[64];
  for (size_t msi = 0; msi < 2; msi++)
    for (size_t oi = 0; oi < 3; oi++) (void)pte_program_load_mutable_into(&prog, msi, oi, sizeof tmp, tmp);
  const pte_named_data_map *m = pte_program_named_data_map(&prog);
  uint32_t nk = 0;
  if (m && pte_named_data_map_num_keys(m, &nk) == PTE_OK) {
    for (uint32_t k = 0; k <= nk && k < 64; k++) {
      const char *key;
      pte_freeable_buffer b;
      if (pte_named_data_map_get_key(m, k, &key) != PTE_OK) continue;
      pte_tensor_layout l;
      (void)pte_named_data_map_get_tensor_layout(m, key, &l);
      if (pte_named_data_map_get_data(m, key, &b) == PTE_OK) {
        if (b.size) fz_prog_sink = ((const uint8_t *)b.data)[b.size - 1];
        size_t want = b.size;
        pte_freeable_buffer_free(&b);
        if (want <= (1u << 20)) {
          uint8_t *dst = (uint8_t *)malloc(want ? want : 1);
          if (dst) (void)pte_named_data_map_load_data_into(m, key, dst, want);
          free(dst);
        }
      }
    }
  }
  /* Method metadata for every method (no loading). */
  for (size_t i = 0; i < n && i < 64; i++) {
    const char *name = pte_program_method_name(&prog, i);
    pte_method_meta meta;
    if (!name || pte_method_meta_get(&prog, name, &meta, NULL) != PTE_OK) continue;
    uint64_t total;
    (void)pte_method_meta_planned_memory(&meta, &total);
    for (size_t k = 0; k < pte_method_meta_num_planned_buffers(&meta) && k < 64; k++)
      (void)pte_method_meta_planned_buffer_size(&meta, k, &total);
    for (size_t k = 0; k <= pte_method_meta_num_inputs(&meta) && k < 64; k++) {
      pte_tensor_info ti;
      pte_tag t;
      (void)pte_method_meta_input_tag(&meta, k, &t);
      (void)pte_method_meta_input_tensor_info(&meta, k, &ti);
    }
    for (size_t k = 0; k <= pte_method_meta_num_outputs(&meta) && k < 64; k++) {
      pte_tensor_info ti;
      pte_tag t;
      (void)pte_method_meta_output_tag(&meta, k, &t);
      (void)pte_method_meta_output_tensor_info(&meta, k, &ti);
    }
  }
  pte_program_destroy(&prog);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  /* The program buffer must be 16-aligned: copy into aligned memory of the exact size. */
  uint8_t *buf = fz_aligned_copy(data, size);
  if (!buf) return 0;
  exercise(buf, size, PTE_VERIFY_INTERNAL_CONSISTENCY, NULL);
  exercise(buf, size, PTE_VERIFY_MINIMAL, NULL);
  pte_program_limits lim = {size > 64 ? size - 1 : 64};
  exercise(buf, size, PTE_VERIFY_INTERNAL_CONSISTENCY, &lim);
  free(buf);
  return 0;
}
