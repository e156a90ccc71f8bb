/* passthrough.c — a preparer that re-stores every blob unchanged (benchmarks, tests, and
 * `pte prepare --passthrough ID`). */
#include "pte/prepare.h"

static pte_status pt_init(pte_backend_init_context *ctx, pte_freeable_buffer *processed,
                          const pte_compile_spec *specs, size_t n_specs, pte_delegate_handle **handle) {
  (void)processed;
  (void)specs;
  (void)n_specs;
  (void)handle;
  return pte_error_set(ctx ? ctx->err : NULL, PTE_ERR_NOT_SUPPORTED, "the pass-through preparer cannot run delegates");
}

static pte_status pt_execute(pte_backend_execution_context *ctx, pte_delegate_handle *handle, pte_evalue **args,
                             size_t nargs) {
  (void)ctx;
  (void)handle;
  (void)args;
  (void)nargs;
  return PTE_ERR_NOT_SUPPORTED;
}

static pte_status pt_prepare(pte_backend_data_context *ctx, pte_backend_data_output *out) {
  static const char fp[] = "passthrough";
  pte_status s = pte_backend_data_set_envelope(out, 1, fp, sizeof fp - 1);
  pte_backend_data item;
  while (s == PTE_OK && (s = pte_next_backend_data(ctx, &item)) == PTE_OK) {
    if (pte_prepared_is_envelope(item.processed, item.processed_size)) continue; /* prepared already */
    s = pte_replace_backend_data(out, item.index, item.processed, item.processed_size);
  }
  return s == PTE_PREPARE_END_OF_INPUT ? PTE_OK : s;
}

static const pte_backend k_passthrough = {NULL, pt_init, pt_execute, NULL, pt_prepare};

const pte_backend *pte_prepare_passthrough_backend(void) { return &k_passthrough; }
