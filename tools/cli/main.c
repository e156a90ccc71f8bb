/* pte — command-line front end. Each verb lives in its own file (tools/cli/cmd_<verb>.c). */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "pte/data_writer.h"
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
          "Run 'pte <command> --help' for a command's options. Options take their value as the next\n"
          "argument or after '=' (--method=forward). 'pte --version' (-V) prints the version.\n"
          "\n"
          "exit codes:\n"
          "  0  success\n"
          "  1  the operation failed (the message names the pte status, e.g. InvalidProgram)\n"
          "  2  bad command line\n");
}

int main(int argc, char **argv) {
  /* an interrupted synth / migrate / prepare / run --output-dir leaves no temp or lock file */
  (void)pte_file_writer_install_signal_cleanup();
  if (argc < 2) {
    usage(stderr);
    return PTE_EXIT_USAGE;
  }
  if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
    usage(stdout);
    return 0;
  }
  if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
    printf("pte %s\n", PTE_CLI_VERSION);
    return 0;
  }
  for (size_t i = 0; i < sizeof k_verbs / sizeof k_verbs[0]; i++) {
    if (strcmp(argv[1], k_verbs[i]->name) != 0) continue;
    /* --opt=value is --opt value, for every verb */
    char **args = (char **)calloc((size_t)argc * 2 + 1, sizeof *args);
    if (!args) return PTE_EXIT_FAIL;
    int n = 0;
    bool past = false; /* after "--" nothing is split */
    for (int k = 1; k < argc; k++) {
      char *a = argv[k], *eq = strchr(a, '=');
      if (!past && !strcmp(a, "--")) past = true;
      if (!past && a[0] == '-' && a[1] == '-' && eq && eq > a + 2) {
        *eq = 0;
        args[n++] = a;
        args[n++] = eq + 1;
      } else {
        args[n++] = a;
      }
    }
    for (int k = 1; k + 1 < n; k++) {
      if ((!strcmp(args[k], "-o") || !strcmp(args[k], "--output")) && !strcmp(args[k + 1], "-")) {
        fprintf(stderr, "pte %s: -o -: the output cannot go to stdout (the writer needs a seekable file); give a path\n",
                k_verbs[i]->name);
        fprintf(stderr, "(see 'pte %s --help')\n", k_verbs[i]->name);
        free(args);
        return PTE_EXIT_USAGE;
      }
    }
    int rc = pte_cli_run_guarded(k_verbs[i], n, args);
    if (rc == PTE_EXIT_USAGE) fprintf(stderr, "(see 'pte %s --help')\n", k_verbs[i]->name);
    free(args);
    return rc;
  }
  fprintf(stderr, "pte: unknown command '%s'\n\n", argv[1]);
  usage(stderr);
  return PTE_EXIT_USAGE;
}
