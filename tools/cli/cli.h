/* Internal header for the pte CLI. */
#ifndef PTE_TOOLS_CLI_H
#define PTE_TOOLS_CLI_H

#define PTE_CLI_VERSION "0.1.0"
#define PTE_EXIT_OK 0
#define PTE_EXIT_FAIL 1
#define PTE_EXIT_USAGE 2

typedef struct pte_cli_verb {
  const char *name;
  const char *summary;
  int (*run)(int argc, char **argv); /* argv[0] is the verb */
} pte_cli_verb;

#define PTE_CLI_VERB(name) extern const pte_cli_verb pte_cli_verb_##name;
#include "verbs.def"
#undef PTE_CLI_VERB

#endif
