/* pte — command-line front end. Each verb lives in its own file (tools/cli/cmd_<verb>.c). */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "json_guard.h"

static const pte_cli_verb *const k_verbs[] = {
#define PTE_CLI_VERB(name) &pte_cli_verb_##name,
#include "verbs.def"
#undef PTE_CLI_VERB
};

static void usage(FILE *f) {
  fprintf(f,
          "usage: pte <command> [options]\n"
          "\n"
          "commands:\n");
  for (size_t i = 0; i < sizeof k_verbs / sizeof k_verbs[0]; i++)
    fprintf(f, "  %-10s %s\n", k_verbs[i]->name, k_verbs[i]->summary);
  fprintf(f,
          "\n"
          "Run 'pte <command> --help' for a command's options.\n"
          "\n"
          "exit codes:\n"
          "  0  success\n"
          "  1  the operation failed (the message names the pte status, e.g. InvalidProgram)\n"
          "  2  bad command line\n");
}

int main(int argc, char **argv) {
  if (argc < 2) {
    usage(stderr);
    return PTE_EXIT_USAGE;
  }
  if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
    usage(stdout);
    return 0;
  }
  if (!strcmp(argv[1], "--version")) {
    printf("pte %s\n", PTE_CLI_VERSION);
    return 0;
  }
  for (size_t i = 0; i < sizeof k_verbs / sizeof k_verbs[0]; i++)
    if (!strcmp(argv[1], k_verbs[i]->name)) return pte_cli_run_guarded(k_verbs[i], argc - 1, argv + 1);
  fprintf(stderr, "pte: unknown command '%s'\n\n", argv[1]);
  usage(stderr);
  return PTE_EXIT_USAGE;
}
