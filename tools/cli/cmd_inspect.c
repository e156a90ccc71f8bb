#include <stdio.h>

#include "cli.h"

static int run_inspect(int argc, char **argv) {
  (void)argc;
  (void)argv;
  fprintf(stderr, "pte inspect: not implemented yet\n");
  return PTE_EXIT_FAIL;
}

const pte_cli_verb pte_cli_verb_inspect = {"inspect", "show what a .pte/.ptd/.bpte file contains", run_inspect};
