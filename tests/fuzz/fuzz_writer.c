#define _POSIX_C_SOURCE 200809L
/* libFuzzer target: the program writer as a consumer of untrusted programs (what `pte migrate`
 * does): a .pte that loads with full verification is copied into a pte_writer
 * (pte_writer_copy_program) and written through a growable memory DataWriter (64 MiB cap). The
 * writer may refuse a program it cannot represent, but what it writes must load again with full
 * verification and have the same methods — otherwise the target aborts (a writer bug). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "pte/data_loader.h"
#include "pte/data_writer.h"
#include "pte/io.h"
#include "pte/program.h"
#include "pte/writer.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  uint8_t *buf = fz_aligned_copy(data, size);
  if (!buf) return 0;
  pte_buffer_loader bl;
  pte_buffer_loader_init(&bl, buf, size);
  pte_program p;
  if (pte_program_load(&bl.base, PTE_VERIFY_INTERNAL_CONSISTENCY, &p, NULL) == PTE_OK) {
    pte_writer *w = NULL;
    pte_error_info err;
    if (pte_writer_create(NULL, &w, &err) == PTE_OK) {
      pte_memory_writer mw;
      if (pte_writer_copy_program(w, &p, &err) == PTE_OK &&
          pte_memory_writer_init(&mw, pte_heap_realloc, NULL, 64u << 20) == PTE_OK) {
        if (pte_writer_write(w, &mw.base, &err) == PTE_OK && pte_data_writer_publish(&mw.base, &err) == PTE_OK) {
          size_t n = 0;
          const uint8_t *out = pte_memory_writer_data(&mw, &n);
          uint8_t *copy = fz_aligned_copy(out, n);
          pte_buffer_loader bl2;
          pte_buffer_loader_init(&bl2, copy, n);
          pte_program q;
          pte_error_info e2;
          if (!copy || pte_program_load(&bl2.base, PTE_VERIFY_INTERNAL_CONSISTENCY, &q, &e2) != PTE_OK) abort();
          if (pte_program_num_methods(&q) != pte_program_num_methods(&p)) abort();
          for (size_t i = 0; i < pte_program_num_methods(&p); i++) {
            const char *a = pte_program_method_name(&p, i), *b = pte_program_method_name(&q, i);
            if (!a || !b || strcmp(a, b) != 0) abort();
          }
          pte_program_destroy(&q);
          free(copy);
        }
        pte_data_writer_destroy(&mw.base);
      }
      pte_writer_destroy(w);
    }
    pte_program_destroy(&p);
  }
  free(buf);
  return 0;
}
