/* pte/bundled.h — bundled programs (.bpte, BundledProgram "BP08"): a .pte plus test cases.
 *
 *   pte_bundled_program bp;
 *   if (pte_bundled_program_load(&fl.base, &bp, &err) != PTE_OK) puts(err.msg);
 *   pte_program prog;                                  // the embedded program, no copy:
 *   pte_program_load(pte_bundled_program_loader(&bp), PTE_VERIFY_INTERNAL_CONSISTENCY, &prog, &err);
 *   pte_bundled_suite suite;
 *   pte_bundled_find_suite(&bp, "forward", &suite);
 *   for (size_t c = 0; c < suite.num_cases; c++) {
 *     pte_bundled_case tc;  pte_bundled_get_case(&suite, c, &tc);
 *     for (size_t i = 0; i < tc.num_inputs; i++) { pte_bundled_value v; pte_bundled_case_input(&tc, i, &v); ... }
 *     ... run the method, compare with pte_bundled_case_expected_output(&tc, k, &v) ...
 *   }
 *   pte_program_destroy(&prog);
 *   pte_bundled_program_destroy(&bp);
 *
 * Loading reads the whole BundledProgram flatbuffer through the loader (a view for buffer and mmap
 * loaders; a heap copy for the file loader), verifies it fully, and checks every test value up
 * front (tensor dtype valid, sizes >= 0, rank <= 16, dim_order a permutation when present, data
 * exactly numel * element size bytes), so the accessors below only fail on bad indices.
 *
 * The embedded program is exposed as a window loader over the SAME loader (no copy): offset 0 of
 * the window is the program's first byte in the .bpte, which the format puts at a 32-aligned file
 * offset, so mmap/buffer views keep the 16-byte alignment pte_program_load needs (for a buffer
 * loader, the caller's buffer must itself be 16-byte aligned).
 *
 * Tolerances: BP08 stores no tolerance. Comparing outputs is up to the caller; upstream's
 * defaults are rtol 1e-5 and atol 1e-8 (PTE_BUNDLED_DEFAULT_RTOL / _ATOL), i.e.
 * |actual - expected| <= atol + rtol * |expected| element-wise.
 *
 * All strings and arrays returned point into the loaded flatbuffer and stay valid until
 * pte_bundled_program_destroy. The loader must outlive the bundled program, and the
 * pte_bundled_program must not be moved after loading (the window loader points into it).
 */
#ifndef PTE_BUNDLED_H
#define PTE_BUNDLED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pte/data_loader.h"
#include "pte/freeable_buffer.h"
#include "pte/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PTE_BUNDLED_DEFAULT_RTOL 1e-5
#define PTE_BUNDLED_DEFAULT_ATOL 1e-8

typedef struct pte_bundled_program {
  /* private */
  const pte_data_loader *loader;
  pte_freeable_buffer data; /* the whole BundledProgram flatbuffer */
  const uint8_t *fb;
  size_t fb_size;
  uint32_t root;
  uint64_t program_offset; /* embedded program: file offset (32-aligned) and size */
  uint64_t program_size;
  pte_window_loader program_loader;
} pte_bundled_program;

/* Loads a .bpte. Errors (message in *err, may be NULL):
 *   PTE_ERR_INVALID_PROGRAM   file shorter than 8 bytes, identifier not "BP08" (message names the
 *                             identifier found), malformed flatbuffer, program field missing /
 *                             out of bounds / not 32-aligned, a malformed test value
 *   PTE_ERR_INVALID_ARGUMENT  NULL arguments; loader buffer not 16-byte aligned
 *   any loader error
 * On failure nothing needs destroying. */
pte_status pte_bundled_program_load(const pte_data_loader *loader, pte_bundled_program *bp, pte_error_info *err);
void pte_bundled_program_destroy(pte_bundled_program *bp);

/* A loader over the embedded .pte (a pte_window_loader inside *bp); pass it to pte_program_load. */
const pte_data_loader *pte_bundled_program_loader(const pte_bundled_program *bp);
/* File offset and size of the embedded .pte. */
void pte_bundled_program_location(const pte_bundled_program *bp, uint64_t *offset, uint64_t *size);
/* BundledProgram.version (2 for files written by current upstream). */
uint32_t pte_bundled_program_version(const pte_bundled_program *bp);

/* ---- Test suites (one per method) --------------------------------------------------------- */
typedef struct pte_bundled_suite {
  const char *method_name;
  size_t num_cases;
  /* private */
  const pte_bundled_program *bp;
  uint32_t pos;
} pte_bundled_suite;

size_t pte_bundled_num_suites(const pte_bundled_program *bp);
/* Suite i (PTE_ERR_INVALID_ARGUMENT if out of range). */
pte_status pte_bundled_get_suite(const pte_bundled_program *bp, size_t i, pte_bundled_suite *out);
/* Suite of method `method_name` (PTE_ERR_NOT_FOUND if none). */
pte_status pte_bundled_find_suite(const pte_bundled_program *bp, const char *method_name, pte_bundled_suite *out);

/* ---- Test cases ----------------------------------------------------------------------------- */
typedef struct pte_bundled_case {
  size_t num_inputs;
  size_t num_expected_outputs;
  /* private */
  const pte_bundled_program *bp;
  uint32_t pos;
} pte_bundled_case;

/* Case i of a suite (PTE_ERR_INVALID_ARGUMENT if out of range). */
pte_status pte_bundled_get_case(const pte_bundled_suite *suite, size_t i, pte_bundled_case *out);

/* ---- Values ---------------------------------------------------------------------------------- */
/* Numbered like the BP08 ValueUnion tags. */
typedef enum pte_bundled_value_kind {
  PTE_BUNDLED_TENSOR = 1,
  PTE_BUNDLED_INT = 2,
  PTE_BUNDLED_BOOL = 3,
  PTE_BUNDLED_DOUBLE = 4
} pte_bundled_value_kind;

typedef struct pte_bundled_value {
  pte_bundled_value_kind kind;
  int64_t int_val;   /* PTE_BUNDLED_INT */
  bool bool_val;     /* PTE_BUNDLED_BOOL */
  double double_val; /* PTE_BUNDLED_DOUBLE */
  struct {           /* PTE_BUNDLED_TENSOR */
    uint8_t dtype;            /* pte_dtype */
    int32_t dim;
    const int32_t *sizes;     /* [dim] (little-endian host assumed, as everywhere in pte) */
    const uint8_t *dim_order; /* [dim], or NULL when the file has none (then contiguous) */
    const void *data;         /* nbytes bytes, 16-byte aligned in the file; NULL when nbytes 0 */
    size_t nbytes;            /* numel * element size (verified to equal the stored length) */
  } tensor;
} pte_bundled_value;

/* Input / expected output i of a case (PTE_ERR_INVALID_ARGUMENT if out of range). */
pte_status pte_bundled_case_input(const pte_bundled_case *tc, size_t i, pte_bundled_value *out);
pte_status pte_bundled_case_expected_output(const pte_bundled_case *tc, size_t i, pte_bundled_value *out);

#ifdef __cplusplus
}
#endif
#endif
