/* --json output is one complete JSON document or nothing (tools/cli/json_guard.c). */
#ifndef PTE_TOOLS_JSON_GUARD_H
#define PTE_TOOLS_JSON_GUARD_H

#include <stdbool.h>
#include <stddef.h>

#include "cli.h"

/* Runs a verb. With --json (and without --help), everything the verb writes to stdout and stderr
 * is captured. The captured stdout is printed if it is exactly one valid JSON document (strict JSON,
 * valid UTF-8) and the verb succeeded or the document reports the failure itself ("ok": false at
 * its top level: prepare, test with failing cases); otherwise stdout gets one error object
 * instead:
 *   {"ok": false, "command": "inspect", "exit_code": 1, "status": "InvalidProgram", "code": 35,
 *    "message": "..."}
 * ("status"/"code" are null when the failure names no pte status, e.g. a usage error). Captured
 * stderr is replayed to stderr either way. */
int pte_cli_run_guarded(const pte_cli_verb *v, int argc, char **argv);

#endif
