/* pte/backend.h — delegate backends (upstream BackendInterface) and their registry.
 *
 * A method's DelegateCall instructions hand a subgraph, compiled ahead of time into an opaque
 * blob ("processed" data), to a backend such as "XnnpackBackend". A backend is a table of
 * function pointers registered under its id:
 *
 *   static const pte_backend my_backend = {my_is_available, my_init, my_execute, my_destroy,
 *                                          NULL};   // last: initialize_backend_data (optional)
 *   pte_register_backend("MyBackend", &my_backend);
 *
 * Life cycle, driven by pte_method_load / pte_method_execute / pte_method_destroy:
 *   - at load, before any init(): every delegate's scratch regions are checked (placement as for
 *     planned tensors; scratch on a delegate called more than once -> PTE_ERR_INVALID_PROGRAM),
 *     then every delegate's backend is looked up by id (not registered, or is_available()
 *     false -> PTE_ERR_NOT_FOUND, the message naming the backend id, the delegate and the
 *     method). A method whose backends are missing therefore fails without initialising anything;
 *   - then, for every delegate of the method, exactly once: its processed blob is fetched (INLINE
 *     from Program.backend_delegate_data, or SEGMENT through the data loader) and init() is
 *     called. init() returns an opaque handle; it may free the blob early with
 *     pte_freeable_buffer_free(processed) once it no longer needs it. If init() fails, the blob is
 *     freed, destroy() is not called for it, and the delegates initialised before it are
 *     destroyed;
 *   - every DelegateCall's delegate index is range-checked at load too (PTE_ERR_INVALID_PROGRAM,
 *     "delegate index N out of range"), never at execute;
 *   - every DelegateCall calls execute() with the handle and the call's arguments (inputs, then
 *     outputs, as EValue pointers into the method's value table);
 *   - pte_method_destroy() (and a load that fails after this delegate was initialised) calls
 *     destroy(handle) exactly once, then frees the blob if the backend has not.
 * A method loaded twice initialises its delegates twice: any sharing is the backend's business.
 *
 * One BackendDelegate, one handle. Every DelegateCall naming the same delegate index runs on the
 * SAME handle (one init, N executes, one destroy), each execute with that call's own arguments.
 * Upstream files may legally call one delegate several times, so the runtime accepts it whatever
 * the delegate's share_handle flag (a pte extension, docs/format.md) says; init() sees the number
 * of call sites in ctx->n_calls. A backend that keeps per-call state on its handle (e.g. caches
 * argument pointers at the first execute) must refuse n_calls > 1 with PTE_ERR_NOT_SUPPORTED; the
 * pte writer only emits one delegate for several calls when the backend set share_handle.
 *
 * Scratch (pte extension): a delegate may own planned scratch regions (BackendDelegate.scratch:
 * memory_id, offset, size). They are resolved at load against the memory manager's planned
 * buffers with the same checks as memory-planned tensors and handed to init() and to every
 * execute() (ctx->scratch). Method load refuses (PTE_ERR_INVALID_PROGRAM) a delegate with scratch
 * that is called by more than one DelegateCall or that sets share_handle: scratch contents belong
 * to one call site.
 *
 * The registry is a fixed table of PTE_MAX_BACKENDS entries. Register backends at start-up,
 * before loading methods: registration is not thread-safe (lookups are read-only).
 */
#ifndef PTE_BACKEND_H
#define PTE_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pte/allocator.h"
#include "pte/evalue.h"
#include "pte/event_tracer.h"
#include "pte/freeable_buffer.h"
#include "pte/named_data_map.h"
#include "pte/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef void pte_delegate_handle;

/* Contexts of the optional prepare hook (defined in pte/prepare_backend.h). */
struct pte_backend_data_context;
struct pte_backend_data_output;

/* One compile spec of a delegate (BackendDelegate.compile_specs): a key and raw bytes, both
 * pointing into the program's flatbuffer (valid while the program is loaded). */
typedef struct pte_compile_spec {
  const char *key;
  const void *value;
  size_t nbytes;
} pte_compile_spec;

/* ---- Runtime options (upstream BackendOption / LoadBackendOptionsMap) ----------------------- */
#define PTE_BACKEND_OPTION_KEY_MAX 64
#define PTE_BACKEND_OPTION_STRING_MAX 256

typedef enum pte_backend_option_type {
  PTE_BACKEND_OPTION_BOOL = 0,
  PTE_BACKEND_OPTION_INT = 1,
  PTE_BACKEND_OPTION_STRING = 2
} pte_backend_option_type;

typedef struct pte_backend_option {
  char key[PTE_BACKEND_OPTION_KEY_MAX];
  pte_backend_option_type type;
  union {
    bool b;
    int i;
    char s[PTE_BACKEND_OPTION_STRING_MAX];
  } value;
} pte_backend_option;

/* Options for one backend id, passed at method load (pte_method_options.backend_options). The
 * arrays are not copied: they must stay valid during the load. */
typedef struct pte_backend_load_options {
  const char *backend_id;
  const pte_backend_option *options;
  size_t n_options;
} pte_backend_load_options;

/* ---- Contexts ------------------------------------------------------------------------------- */

/* One resolved scratch region of a delegate (pte extension). */
typedef struct pte_delegate_scratch {
  void *data;         /* planned buffer (memory_id - 1) data + offset; NULL only if that buffer has
                         no data (size 0) */
  size_t size;        /* bytes */
  uint32_t memory_id; /* as stored: 1-based planned buffer id */
  uint64_t offset;    /* as stored: byte offset in that buffer */
} pte_delegate_scratch;

typedef struct pte_backend_init_context {
  pte_allocator *runtime_allocator;       /* the method allocator: lives as long as the method */
  const char *method_name;
  const pte_named_data_map *named_data_map; /* external data map first, then the program's own
                                               named_data; NULL when neither exists */
  pte_event_tracer *event_tracer;         /* may be NULL */
  const pte_backend_option *runtime_specs; /* options given for this backend id at load */
  size_t n_runtime_specs;
  pte_error_info *err;                    /* optional: a backend may explain a failure here */
  uint32_t delegate_index;                /* index in ExecutionPlan.delegates */
  size_t n_calls;                         /* DelegateCall instructions naming this delegate (all
                                             of them run on the handle init returns) */
  bool share_handle;                      /* BackendDelegate.share_handle (pte extension) */
  const pte_delegate_scratch *scratch;    /* this delegate's planned scratch regions (n_scratch;
                                             NULL when none); valid while the method is loaded */
  size_t n_scratch;
} pte_backend_init_context;

typedef struct pte_backend_execution_context {
  pte_allocator *temp_allocator;  /* reset after the instruction; may be NULL */
  const char *method_name;
  pte_event_tracer *event_tracer; /* may be NULL */
  pte_error_info *err;            /* optional: a backend may explain a failure here */
  uint32_t delegate_index;        /* index in ExecutionPlan.delegates */
  const pte_delegate_scratch *scratch; /* the same regions init saw (NULL when none) */
  size_t n_scratch;
} pte_backend_execution_context;

/* Temp memory from an execution context (NULL when there is no temp allocator or it is full). */
void *pte_backend_alloc_temp(pte_backend_execution_context *ctx, size_t size, size_t align);

/* Typed lookups of the runtime specs of an init context (upstream get_runtime_spec<T>):
 * PTE_ERR_NOT_FOUND if the key is absent, PTE_ERR_INVALID_ARGUMENT if its type differs. */
pte_status pte_backend_runtime_spec_bool(const pte_backend_init_context *ctx, const char *key, bool *out);
pte_status pte_backend_runtime_spec_int(const pte_backend_init_context *ctx, const char *key, int *out);
pte_status pte_backend_runtime_spec_string(const pte_backend_init_context *ctx, const char *key,
                                           const char **out);

/* ---- The interface -------------------------------------------------------------------------- */
typedef struct pte_backend {
  /* True if the backend can run on this machine. NULL means always available. */
  bool (*is_available)(void);
  /* Prepares one delegate from its processed blob and compile specs; stores an opaque handle
   * (usually allocated from ctx->runtime_allocator) in *handle. A blob of the wrong version
   * should give PTE_ERR_DELEGATE_INVALID_COMPATIBILITY. Required. */
  pte_status (*init)(pte_backend_init_context *ctx, pte_freeable_buffer *processed,
                     const pte_compile_spec *compile_specs, size_t n_specs, pte_delegate_handle **handle);
  /* Runs one DelegateCall. args are the call's values: inputs, then outputs. Required. */
  pte_status (*execute)(pte_backend_execution_context *ctx, pte_delegate_handle *handle,
                        pte_evalue **args, size_t nargs);
  /* Releases a handle returned by init. Optional (NULL: nothing to release). */
  void (*destroy)(pte_delegate_handle *handle);
  /* Optional: ahead-of-time, once-per-device preparation of this backend's stored data (`pte
   * prepare`, pte/prepare_backend.h has the whole contract and a worked example). Called at most once per
   * program by pte_initialize_and_save_backend_data(), never by method load. The backend walks its
   * delegate blobs with pte_next_backend_data(ctx, ...) and may replace named-data values
   * (pte_write_named_data) or its own processed blobs (pte_replace_backend_data); replaced bytes
   * are wrapped in a prepared-data envelope that init() must check (pte_prepared_envelope_check).
   * Return PTE_OK, PTE_ERR_NOT_SUPPORTED (nothing to prepare: the data is copied unchanged, any
   * replacement made is dropped) or an error (prepare fails, nothing is published).
   * NULL: the backend does not prepare (same as PTE_ERR_NOT_SUPPORTED). */
  pte_status (*initialize_backend_data)(struct pte_backend_data_context *ctx, struct pte_backend_data_output *out);
} pte_backend;

#define PTE_MAX_BACKENDS 16

/* Registers `backend` under `name` (neither is copied: both must outlive every use).
 * Errors: PTE_ERR_INVALID_ARGUMENT (NULL name/backend, init or execute missing, a backend with
 * this name already registered), PTE_ERR_INTERNAL (all PTE_MAX_BACKENDS slots taken). */
pte_status pte_register_backend(const char *name, const pte_backend *backend);
/* Same, with a message in *err (may be NULL) naming the backend: "backend 'X' is already
 * registered", "backend registry is full (16 backends): cannot register 'X'", ... */
pte_status pte_register_backend_ex(const char *name, const pte_backend *backend, pte_error_info *err);

/* The backend registered under `name`, or NULL. */
const pte_backend *pte_get_backend(const char *name);

size_t pte_num_registered_backends(void);
/* Name of registered backend i (NULL if out of range). */
const char *pte_registered_backend_name(size_t i);

/* Test hook: forget every registered backend. Not thread-safe. */
void pte_backend_registry_reset(void);

#ifdef __cplusplus
}
#endif
#endif
