/* run_internal.h — shared by the `pte run` verb's files (internal to the CLI): cmd_run.c (options,
 * the run loop), run_inputs.c (input values), run_outputs.c (printing and saving outputs). */
#ifndef PTE_TOOLS_CLI_RUN_INTERNAL_H
#define PTE_TOOLS_CLI_RUN_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "jsonw.h"
#include "pte/method.h"
#include "pte/tensor.h"
#include "runner.h"

#define MAX_INPUTS 256
#define SHOW_VALUES 8
#define JSON_VALUES 64

typedef enum { FILL_NONE, FILL_ONES, FILL_ZEROS, FILL_RANDOM } fill_kind;

typedef struct run_opts {
  const char *path, *method, *data, *outdir;
  const char *inputs[MAX_INPUTS];
  int n_inputs;
  fill_kind fill;
  bool fill_explicit;
  uint64_t seed;
  int repeat;
  pte_cli_loader_kind loader;
  bool json;
  pte_cli_load_options limits;
  int num_executions;
  int print_output; /* 0 none, 1 summary, 2 all */
  bool profile;
  const char *etdump;
  bool raw_outputs; /* --output-format bin */
} run_opts;

typedef enum { IN_UNSET, IN_FILE, IN_FILL, IN_LITERAL, IN_TRACED } in_kind;

typedef struct run_input {
  in_kind kind;
  const char *text;
  uint32_t tag;
  bool raw;          /* IN_FILE: raw bytes rather than .npy */
  int dtype;
  int32_t dim;
  int32_t sizes[PTE_MAX_RANK];
  void *data;        /* in the method's layout */
  size_t nbytes;
  pte_evalue ev;     /* scalars */
} run_input;

typedef struct out_ctx {
  const run_opts *o;
  jsonw *w;
  const char *method;
  int write_errors;
} out_ctx;

/* run_inputs.c */
/* Prints "pte run: label: STATUS (0xNN): msg" to stderr; returns PTE_EXIT_FAIL. */
int run_fail(const char *label, pte_status s, const char *msg);
void run_elem_text(int dtype, const void *data, size_t i, char *buf, size_t cap);
void run_shape_text(int dtype, const int32_t *sizes, int32_t dim, char *buf, size_t cap);
void *run_alloc64(size_t n); /* 64-byte aligned, zeroed; free() */
/* Reads or fills every input of m into ins (sizes and layout from the method); 0 or an exit code. */
int run_prepare_inputs(const run_opts *o, pte_method *m, run_input *ins, size_t n_in, bool *default_fill);
pte_status run_set_inputs(pte_method *m, run_input *ins, size_t n_in, pte_error_info *err);

/* run_outputs.c: text or JSON (c->w) reports, outputs saved under --outdir */
void run_report_tensor(out_ctx *c, size_t i, const pte_tensor *t);
void run_report_scalar(out_ctx *c, size_t i, const pte_evalue *v);
void run_report_inputs(out_ctx *c, const run_input *ins, size_t n_in, bool default_fill);

#endif
