/* tests/support/malformed_catalogue.h — the malformed-input catalogue (tests/malformed/<name>.cases,
 * docs/robustness.md) as cases: base input, byte-level patches, entry point, expected status and
 * message; the parser of the .cases files. Run by tests/unit/test_malformed_catalogue.c. */
#ifndef PTE_TESTS_MALFORMED_CATALOGUE_H
#define PTE_TESTS_MALFORMED_CATALOGUE_H

#include <stddef.h>
#include <stdint.h>

#include "pte/status.h"

#define MAX_PATCHES 16

typedef enum patch_op {
  P_TRUNCATE = 1, /* size = value */
  P_APPEND,       /* value zero bytes added at the end */
  P_RAW,          /* write `width` bytes of value at absolute offset */
  P_BYTES,        /* write text at absolute offset */
  P_FIELD,        /* write value at the resolved schema path (scalar field or vector element) */
  P_VLEN,         /* write the u32 length of the vector at path */
  P_STR,          /* rewrite the string at path (same or shorter length) */
  P_HDR           /* named header field (eh00.*, fh01.*) */
} patch_op;

typedef struct patch {
  patch_op op;
  int width;        /* P_RAW: 1, 2, 4 or 8 */
  uint64_t offset;  /* P_RAW/P_BYTES */
  char path[160];   /* P_FIELD/P_VLEN/P_STR/P_HDR */
  char text[64];    /* P_BYTES/P_STR */
  int64_t value;
} patch;

typedef enum action {
  A_PROGRAM = 1, /* pte_program_load (+ every accessor) */
  A_METHOD,      /* program load, then pte_method_load_ex */
  A_EXECUTE,     /* program + method load (must succeed), fixed inputs, pte_method_execute */
  A_NAMED_DATA,  /* program load, then get_data of every key of the program's named data map */
  A_PTD,         /* pte_ptd_load (+ every accessor) */
  A_BPTE,        /* pte_bundled_program_load (+ every accessor) */
  A_BPTE_PROGRAM, /* bundled load (must succeed), then the embedded program's load */
  A_BPTE_METHOD,  /* bundled + embedded program load (must succeed), then a method load */
  A_XNN           /* pte_xnn_delegate_init on an XNNPACK blob (named data from the `with` program) */
} action;

typedef struct mcase {
  char id[64];
  char desc[240];
  char source[96]; /* file:line of the case */
  char file[96];   /* corpus file name, or "gen:<name>" */
  int segment;     /* >= 0: the input is that segment of `file` */
  char companion[96]; /* .ptd for a .pte case (or .pte for a .ptd case), unpatched */
  patch patches[MAX_PATCHES];
  int n_patches;
  action act;
  char method[32];
  int level;       /* -1 both (program action), else pte_verification */
  int planned;     /* 0 exact, 1 none, 2 shrink */
  uint64_t shrink;
  size_t pool;     /* method allocator bytes */
  uint64_t max_instructions;
  int runs;
  int bind_outputs;
  pte_status expect;
  char expect_msg[200];
} mcase;

/* The cases read by mc_load_catalogue (every tests/malformed/<name>.cases file, sorted; with
 * PTE_CATALOGUE_PENDING also tests/malformed/pending/), in file order. */
extern mcase mc_cases[256];
extern int mc_n_cases;
/* 0, or -1 after printing every problem (unknown keyword, duplicate id, missing field). */
int mc_load_catalogue(void);
/* $PTE_MALFORMED_DIR, else tests/malformed of this source tree. */
const char *mc_catalogue_dir(void);
/* The catalogue's name of a status ("INVALID_PROGRAM"), "?" if none. */
const char *mc_status_word(pte_status s);
const char *mc_action_name(action a);
/* Offset and width of a named header field (eh00.*, fh01.*); -1 if unknown. */
int mc_header_field(const char *name, uint64_t *off, int *width);
/* Bounded copy (truncates; always NUL-terminates). */
void mc_copy_str(char *dst, size_t cap, const char *src);

/* Little-endian store of the low `width` bytes of v. */
static inline void mc_st_le(uint8_t *p, uint64_t v, int width) {
  for (int i = 0; i < width; i++) p[i] = (uint8_t)(v >> (8 * i));
}

/* Generated base inputs (malformed_gen.c): gen:control / gen:unplanned-output, gen:op-<name>
 * (malloc; NULL on failure or an unknown name). */
uint8_t *mc_gen_control(size_t *out_size, int unplanned_output);
uint8_t *mc_gen_op(const char *which, size_t *out_size);

#endif
