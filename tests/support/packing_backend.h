/* tests/support/packing_backend.h — "TestPacking", a delegate backend that packs its weights at
 * init (like XNNPACK's GEMM packing) and can persist the packed weights with `prepare`
 * (test-only code: uses malloc and stdio; bench/prepare.c includes the .c directly).
 *
 * A delegate computes y = W x for a float W[n][n] (x, y: float[n]). Its processed blob is
 * portable ("PKW1"):
 *   0  "PKW1" | 4 u32 rows | 8 u32 cols | 12 u32 flags (1: weights in named data) |
 *   16 char key[48] (NUL-padded; flags & 1) | 64 float W[rows][cols] row-major (unless flags & 1)
 * init packs W into panels of 8 rows ("PKP1" payload: 0 "PKP1" | 4 rows | 8 cols | 12 u32 8 |
 * 64 float panels[ceil(rows/8)][cols][8], rows zero-padded) — work proportional to the weights.
 * execute runs on the panels, summing over columns in order (bit-identical however W was
 * obtained).
 *
 * initialize_backend_data (the prepare hook) packs once and stores the "PKP1" payload: into the
 * named-data key (named weights) or as the replaced processed blob (inline weights), with format
 * version PACKING_FORMAT_VERSION and fingerprint packing_fingerprint. At init, prepared data is
 * checked with pte_prepared_envelope_check and used in place (no packing, no copy).
 */
#ifndef PTE_TESTS_SUPPORT_PACKING_BACKEND_H
#define PTE_TESTS_SUPPORT_PACKING_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pte/backend.h"
#include "pte/prepare.h"
#include "pte/program.h"

#define PACKING_BACKEND_ID "TestPacking"
#define PACKING_FORMAT_VERSION 3u
#define PACKING_PANEL 8u

/* "This machine's" fingerprint (default "x86-test/panel 8"); tests change it to simulate another
 * device. */
extern char packing_fingerprint[33];

typedef enum packing_prepare_mode {
  PACKING_PREPARE_NORMAL = 0,
  PACKING_PREPARE_NOT_SUPPORTED_AFTER_WRITE = 1, /* writes, then returns NotSupported */
  PACKING_PREPARE_UNKNOWN_KEY = 2,               /* writes a key the program does not have */
  PACKING_PREPARE_FAIL = 3,                      /* returns InvalidProgram with a message */
  PACKING_PREPARE_NO_ENVELOPE = 4,               /* writes without set_envelope */
  PACKING_PREPARE_BAD_INDEX = 5                  /* replaces a blob it was not given */
} packing_prepare_mode;

typedef struct packing_stats {
  int inits, packs, direct, executes, destroys;
  int prepares, prepare_blobs;
  size_t temp_used_at_next_max; /* largest ctx->temp_allocator->used seen right after a next() */
  uint64_t packed_bytes;        /* bytes packed at init */
} packing_stats_t;

extern packing_stats_t packing_stats;
extern packing_prepare_mode packing_mode;
extern const pte_backend packing_backend;

/* Registers "TestPacking" (already registered with this table: OK). */
pte_status packing_backend_register(void);
void packing_reset(void); /* stats, mode, fingerprint */

/* ---- models ---------------------------------------------------------------------------------- */
typedef struct packing_layer {
  bool named;          /* weights in named data (else inline in the blob) */
  int32_t same_as;     /* >= 0: reuse that earlier layer's blob (one stored blob, two delegates) */
} packing_layer;

typedef struct packing_model_spec {
  uint32_t n;                  /* W is n x n */
  size_t n_layers;             /* <= 16; layer k: value k -> value k + 1 */
  const packing_layer *layers;
  uint32_t seed;
  bool alias_key;              /* also add key "alias" sharing layer 0's named weights segment */
  const char *foreign_id;      /* add method "foreign" with one delegate of this backend id */
  bool passthrough_delegate;   /* add method "passthrough" with "TestPassthrough" delegates */
  uint32_t n_passthrough;      /* how many (each its own blob; 0 = 1) */
  size_t passthrough_size;     /* bytes of each blob (0 = 4096) */
} packing_model_spec;

/* Weight key of layer k: "w<k>" (written into *buf). */
const char *packing_key(size_t k, char *buf, size_t n);
/* Writes the model with the pte writer into 64-aligned heap memory (free()); NULL on failure. */
uint8_t *packing_model_build(const packing_model_spec *spec, size_t *size, pte_error_info *err);
/* Deterministic weights of layer k (malloc'd n*n floats, small multiples of 1/16). */
float *packing_weights(const packing_model_spec *spec, size_t k);

/* Loads method "forward" of `bytes` (buffer loader), runs it on x[n] into y[n]. Returns the
 * status (message in *err); *load_ns (may be NULL) receives the pte_method_load time. */
pte_status packing_model_run(const uint8_t *bytes, size_t size, uint32_t n, const float *x, float *y,
                             uint64_t *load_ns, pte_error_info *err);

#endif
