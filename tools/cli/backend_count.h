/* tools/cli/backend_count.h — counting delegate backend init()/destroy() calls in the CLI.
 *
 * pte_cli_backend_count_install() re-registers every registered backend under its own name with
 * a copy of its function table whose init() and destroy() also count calls (everything else is
 * the backend's own). `pte run --json` uses it to report how many delegate handles a method load
 * created ("delegate_inits"): a BackendDelegate marked share_handle that is called N times is
 * initialised once, N unshared delegates N times.
 */
#ifndef PTE_TOOLS_BACKEND_COUNT_H
#define PTE_TOOLS_BACKEND_COUNT_H

#include <stdint.h>

#include "pte/status.h"

/* Wraps every currently registered backend (call once, after registration, before loading).
 * Errors: those of pte_register_backend_ex (the registry is left reset on failure). */
pte_status pte_cli_backend_count_install(pte_error_info *err);

/* Successful init() calls and destroy() calls of the wrapped backends since installation. Handles
 * alive = inits - destroys (a failed load destroys what it initialised). */
uint64_t pte_cli_backend_inits(void);
uint64_t pte_cli_backend_destroys(void);

#endif
