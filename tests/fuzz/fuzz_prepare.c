#define _POSIX_C_SOURCE 200809L
/* libFuzzer target: `pte prepare` (pte_initialize_and_save_backend_data_ex) on untrusted programs,
 * written through a growable memory DataWriter (64 MiB cap). Backends: the real XNNPACK backend
 * (its own prepare hook, if it has one) and a fuzz backend with a prepare hook under the other
 * delegate ids of the corpus ("OpenvinoBackend", "FuzzBackend"): it replaces every blob with its
 * first half and the first named-data key with 3 bytes. Prepare may refuse a program, but a
 * published output must load again with full verification and keep every method — otherwise the
 * target aborts. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "pte/backend_xnnpack.h"
#include "pte/data_loader.h"
#include "pte/data_writer.h"
#include "pte/io.h"
#include "pte/prepare.h"
#include "pte/program.h"

static pte_status fz_prep_hook(pte_backend_data_context *ctx, pte_backend_data_output *out) {
  pte_status s = pte_backend_data_set_envelope(out, 1, "fuzz", 4);
  pte_backend_data item;
  while (s == PTE_OK && (s = pte_next_backend_data(ctx, &item)) == PTE_OK)
    s = pte_replace_backend_data(out, item.index, item.processed, item.processed_size / 2);
  if (s != PTE_PREPARE_END_OF_INPUT) return s;
  uint32_t nk = 0;
  const char *key;
  if (ctx->named_data_map && pte_named_data_map_num_keys(ctx->named_data_map, &nk) == PTE_OK && nk > 0 &&
      pte_named_data_map_get_key(ctx->named_data_map, 0, &key) == PTE_OK) {
    static const uint8_t three[3] = {1, 2, 3};
    pte_prepared_value v = {three, 3};
    (void)pte_write_named_data(out, &key, &v, 1); /* may be refused (shared key...): fine */
  }
  return PTE_OK;
}

static const pte_backend fz_prep_backend = {NULL, fz_stub_init, fz_stub_execute, NULL, fz_prep_hook};
static uint8_t *temp_mem;
#define FZ_TEMP (16u << 20)

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  (void)pte_register_xnnpack_backend();
  (void)pte_register_backend("OpenvinoBackend", &fz_prep_backend);
  (void)pte_register_backend("FuzzBackend", &fz_prep_backend);
  temp_mem = (uint8_t *)malloc(FZ_TEMP);
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  uint8_t *buf = fz_aligned_copy(data, size);
  if (!buf || !temp_mem) {
    free(buf);
    return 0;
  }
  pte_buffer_loader bl;
  pte_buffer_loader_init(&bl, buf, size);
  pte_memory_writer mw;
  if (pte_memory_writer_init(&mw, pte_heap_realloc, NULL, 64u << 20) == PTE_OK) {
    pte_allocator temp;
    pte_allocator_init(&temp, temp_mem, FZ_TEMP);
    pte_prepare_options opt;
    memset(&opt, 0, sizeof opt);
    opt.spool_memory_limit = 64u << 20;
    pte_prepare_report report;
    pte_error_info err;
    if (pte_initialize_and_save_backend_data_ex(&bl.base, &mw.base, &temp, NULL, &opt, &report, &err) == PTE_OK &&
        pte_memory_writer_published(&mw)) {
      size_t n = 0;
      const uint8_t *out = pte_memory_writer_data(&mw, &n);
      uint8_t *copy = fz_aligned_copy(out, n);
      pte_buffer_loader bl2;
      pte_buffer_loader_init(&bl2, copy, n);
      pte_program in, q;
      if (!copy || pte_program_load(&bl2.base, PTE_VERIFY_INTERNAL_CONSISTENCY, &q, &err) != PTE_OK) abort();
      if (pte_program_load(&bl.base, PTE_VERIFY_INTERNAL_CONSISTENCY, &in, NULL) != PTE_OK) abort();
      if (pte_program_num_methods(&q) != pte_program_num_methods(&in)) abort();
      pte_program_destroy(&in);
      pte_program_destroy(&q);
      free(copy);
    }
    pte_data_writer_destroy(&mw.base);
  }
  free(buf);
  return 0;
}
