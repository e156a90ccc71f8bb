#define _POSIX_C_SOURCE 200809L
/* libFuzzer target: method load + execute. The input is a .pte; it is loaded at both verification
 * levels (MINIMAL first: the method loader must then defend itself against everything the full
 * verifier would have caught) and every method is run with fixed inputs (tests/fuzz/fuzz_util.h):
 * portable kernels, the XNNPACK backend and stub backends for other ids registered, planned
 * memory capped at 4 MiB, at most 10,000 instructions per execute. Any crash, hang, leak or
 * sanitizer report is a bug. */
#include <stdint.h>
#include <stdlib.h>

#include "fuzz_util.h"
#include "pte/data_loader.h"
#include "pte/backend_xnnpack.h"
#include "pte/portable_kernels.h"
#include "pte/program.h"

#define FZ_POOL (8u << 20)
#define FZ_TEMP (1u << 20)

static uint8_t *pool, *temp;

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  (void)pte_register_portable_kernels();
  /* The real backend for XnnpackBackend delegates (FZ_NO_XNNPACK=1: the stub instead, to fuzz
   * the rest of the method path while an XNNPACK finding is open). */
  if (!getenv("FZ_NO_XNNPACK")) (void)pte_register_xnnpack_backend();
  fz_register_stub_backends(); /* stubs for the other ids */
  pool = (uint8_t *)malloc(FZ_POOL);
  temp = (uint8_t *)malloc(FZ_TEMP);
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  uint8_t *buf = fz_aligned_copy(data, size);
  if (!buf || !pool || !temp) {
    free(buf);
    return 0;
  }
  fz_run_opts o = {4u << 20, 4u << 20, 10000, 2, NULL, pool, FZ_POOL, temp, FZ_TEMP};
  for (int lv = 0; lv < 2; lv++) {
    pte_buffer_loader bl;
    pte_buffer_loader_init(&bl, buf, size);
    pte_program prog;
    if (pte_program_load(&bl.base, lv ? PTE_VERIFY_INTERNAL_CONSISTENCY : PTE_VERIFY_MINIMAL, &prog, NULL) != PTE_OK)
      continue;
    fz_run_all_methods(&prog, &o);
    pte_program_destroy(&prog);
  }
  free(buf);
  return 0;
}
