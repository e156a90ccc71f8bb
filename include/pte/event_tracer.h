/* pte/event_tracer.h — a minimal profiling / debugging sink (upstream EventTracer, reduced).
 *
 * A tracer is a vtable the caller implements (ETDump writers, timers, loggers...). The runtime
 * calls it through the NULL-safe wrappers below, so a NULL tracer, or a NULL slot in its vtable,
 * costs one branch and does nothing.
 *
 * What the runtime reports:
 *   load        scope "Method::init" (chain -1, debug handle -1)
 *   execute     event block "Execute", scope "Method::execute"
 *   each step   scope "OPERATOR_CALL", "DELEGATE_CALL", "JF_CALL", "MOVE_CALL" or "FREE_CALL"
 *               with the chain index and the instruction index as debug handle (the index maps
 *               back to the exporter's graph)
 *   delegates   after each DelegateCall, every argument with PTE_EVALUE_LOG_INTERMEDIATE
 *   end         every method output with PTE_EVALUE_LOG_OUTPUT
 * Kernels and backends receive the tracer too (pte_kernel_context.event_tracer, backend contexts).
 */
#ifndef PTE_EVENT_TRACER_H
#define PTE_EVENT_TRACER_H

#include <stdint.h>

#include "pte/evalue.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pte_event_tracer pte_event_tracer;

typedef enum pte_evalue_log_kind {
  PTE_EVALUE_LOG_OUTPUT = 0,       /* a method output, after execute */
  PTE_EVALUE_LOG_INTERMEDIATE = 1  /* an intermediate value (delegate arguments) */
} pte_evalue_log_kind;

typedef struct pte_event_tracer_vtable {
  /* Starts a named block of events ("Execute"). Optional. */
  void (*create_event_block)(pte_event_tracer *t, const char *name);
  /* Opens a profiling scope and returns a token handed back to end_profiling. `chain` and
   * `debug_handle` are -1 when the scope is not tied to an instruction. */
  uint64_t (*begin_profiling)(pte_event_tracer *t, const char *name, int32_t chain, int64_t debug_handle);
  void (*end_profiling)(pte_event_tracer *t, uint64_t token);
  /* Records a value. `v` is only valid during the call. */
  void (*log_evalue)(pte_event_tracer *t, const pte_evalue *v, pte_evalue_log_kind kind);
} pte_event_tracer_vtable;

struct pte_event_tracer {
  const pte_event_tracer_vtable *vt;
};

static inline void pte_tracer_create_event_block(pte_event_tracer *t, const char *name) {
  if (t && t->vt && t->vt->create_event_block) t->vt->create_event_block(t, name);
}
static inline uint64_t pte_tracer_begin(pte_event_tracer *t, const char *name, int32_t chain,
                                        int64_t debug_handle) {
  return (t && t->vt && t->vt->begin_profiling) ? t->vt->begin_profiling(t, name, chain, debug_handle) : 0;
}
static inline void pte_tracer_end(pte_event_tracer *t, uint64_t token) {
  if (t && t->vt && t->vt->end_profiling) t->vt->end_profiling(t, token);
}
static inline void pte_tracer_log_evalue(pte_event_tracer *t, const pte_evalue *v, pte_evalue_log_kind kind) {
  if (t && t->vt && t->vt->log_evalue) t->vt->log_evalue(t, v, kind);
}

#ifdef __cplusplus
}
#endif
#endif
