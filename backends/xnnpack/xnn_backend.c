/* The "XnnpackBackend" function table, registration and options. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "xnn_internal.h"

static pte_xnnpack_options g_defaults = {1, PTE_XNN_ISA_AUTO};
static bool g_profile_default;

static pte_xnn_kisa to_kisa(pte_xnn_isa isa) {
  switch (isa) {
    case PTE_XNN_ISA_AVX512: return PTE_XNN_KISA_AVX512;
    case PTE_XNN_ISA_AVX2: return PTE_XNN_KISA_AVX2;
    case PTE_XNN_ISA_SCALAR: return PTE_XNN_KISA_SCALAR;
    default: return pte_xnn_cpu_best_isa();
  }
}

pte_xnn_isa pte_xnnpack_detect_isa(void) {
  switch (pte_xnn_cpu_best_isa()) {
    case PTE_XNN_KISA_AVX512: return PTE_XNN_ISA_AVX512;
    case PTE_XNN_KISA_AVX2: return PTE_XNN_ISA_AVX2;
    default: return PTE_XNN_ISA_SCALAR;
  }
}

bool pte_xnnpack_isa_supported(pte_xnn_isa isa) {
  pte_xnn_isa best = pte_xnnpack_detect_isa();
  switch (isa) {
    case PTE_XNN_ISA_AUTO:
    case PTE_XNN_ISA_SCALAR: return true;
    case PTE_XNN_ISA_AVX2: return best == PTE_XNN_ISA_AVX2 || best == PTE_XNN_ISA_AVX512;
    case PTE_XNN_ISA_AVX512: return best == PTE_XNN_ISA_AVX512;
  }
  return false;
}

const char *pte_xnnpack_isa_name(pte_xnn_isa isa) {
  switch (isa) {
    case PTE_XNN_ISA_AUTO: return "auto";
    case PTE_XNN_ISA_SCALAR: return "scalar";
    case PTE_XNN_ISA_AVX2: return "avx2";
    case PTE_XNN_ISA_AVX512: return "avx512";
  }
  return "unknown";
}

static pte_status check_options(const pte_xnnpack_options *o, pte_error_info *err) {
  if (!o) return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "xnnpack: NULL options");
  if (o->num_threads < 0 || o->num_threads > PTE_XNN_MAX_THREADS)
    return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "xnnpack: num_threads %d outside 0..%d", o->num_threads,
                         PTE_XNN_MAX_THREADS);
  if ((int)o->isa < (int)PTE_XNN_ISA_AUTO || (int)o->isa > (int)PTE_XNN_ISA_AVX512)
    return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "xnnpack: unknown isa %d", (int)o->isa);
  if (!pte_xnnpack_isa_supported(o->isa))
    return pte_error_set(err, PTE_ERR_NOT_SUPPORTED, "xnnpack: this CPU does not support %s",
                         pte_xnnpack_isa_name(o->isa));
  return PTE_OK;
}

pte_status pte_xnnpack_set_default_options(const pte_xnnpack_options *opts) {
  pte_status s = check_options(opts, NULL);
  if (s != PTE_OK) return s;
  g_defaults = *opts;
  return PTE_OK;
}

void pte_xnnpack_get_default_options(pte_xnnpack_options *opts) {
  if (opts) *opts = g_defaults;
}

pte_status pte_xnn_delegate_init(const void *blob, size_t size, const pte_named_data_map *named_data,
                                 const pte_xnnpack_options *opts, pte_xnn_delegate **out, pte_error_info *err) {
  if (out) *out = NULL;
  if (!blob || !out) return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "xnnpack: NULL blob or output handle");
  const pte_xnnpack_options *o = opts ? opts : &g_defaults;
  pte_status s = check_options(o, err);
  if (s != PTE_OK) return s;
  pte_xnn_init_cfg cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.threads = o->num_threads;
  cfg.k = pte_xnnpack_kernels_for_isa(o->isa);
  cfg.repack_prepared = false;
  cfg.blob_persistent = false; /* the caller may free the blob after this call */
  pte_status s2 = pte_xnn_delegate_init_internal(blob, size, named_data, &cfg, out, err);
  if (s2 == PTE_OK && g_profile_default && pte_xnn_delegate_set_profiling(*out, true) != PTE_OK) {
    pte_xnn_delegate_destroy(*out);
    *out = NULL;
    return pte_error_set(err, PTE_ERR_MEMORY_ALLOCATION_FAILED, "xnnpack: cannot allocate profiling counters");
  }
  return s2;
}

const pte_xnn_kernels *pte_xnnpack_kernels_for_isa(pte_xnn_isa isa) {
  const pte_xnn_kernels *k = pte_xnn_kernels_for(to_kisa(isa));
  return k ? k : pte_xnn_kernels_scalar();
}

/* ---- backend interface -------------------------------------------------------------------- */

static pte_status be_init(pte_backend_init_context *ctx, pte_freeable_buffer *processed,
                          const pte_compile_spec *compile_specs, size_t n_specs, pte_delegate_handle **handle) {
  (void)compile_specs;
  (void)n_specs;
  pte_error_info *err = ctx ? ctx->err : NULL;
  if (!ctx || !processed || !handle) return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "xnnpack: NULL init argument");
  pte_xnnpack_options o = g_defaults;
  int threads;
  pte_status s = pte_backend_runtime_spec_int(ctx, PTE_XNNPACK_OPTION_NUM_THREADS, &threads);
  if (s == PTE_OK) o.num_threads = threads;
  else if (s != PTE_ERR_NOT_FOUND)
    return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "xnnpack: option '%s' must be an int",
                         PTE_XNNPACK_OPTION_NUM_THREADS);
  const char *isa;
  s = pte_backend_runtime_spec_string(ctx, PTE_XNNPACK_OPTION_ISA, &isa);
  if (s == PTE_OK) {
    if (strcmp(isa, "auto") == 0) o.isa = PTE_XNN_ISA_AUTO;
    else if (strcmp(isa, "scalar") == 0) o.isa = PTE_XNN_ISA_SCALAR;
    else if (strcmp(isa, "avx2") == 0) o.isa = PTE_XNN_ISA_AVX2;
    else if (strcmp(isa, "avx512") == 0) o.isa = PTE_XNN_ISA_AVX512;
    else return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "xnnpack: unknown isa '%s'", isa);
  } else if (s != PTE_ERR_NOT_FOUND) {
    return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "xnnpack: option '%s' must be a string", PTE_XNNPACK_OPTION_ISA);
  }
  if (o.isa != PTE_XNN_ISA_AUTO && !pte_xnnpack_isa_supported(o.isa))
    return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "xnnpack: this CPU does not support %s",
                         pte_xnnpack_isa_name(o.isa));
  bool repack = false;
  s = pte_backend_runtime_spec_bool(ctx, PTE_XNNPACK_OPTION_REPACK_PREPARED, &repack);
  if (s != PTE_OK && s != PTE_ERR_NOT_FOUND)
    return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "xnnpack: option '%s' must be a bool",
                         PTE_XNNPACK_OPTION_REPACK_PREPARED);
  s = check_options(&o, err);
  if (s != PTE_OK) return s;
  pte_xnn_init_cfg cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.threads = o.num_threads;
  cfg.k = pte_xnnpack_kernels_for_isa(o.isa);
  cfg.repack_prepared = repack;
  cfg.blob_persistent = true; /* the runtime frees the blob after destroy unless we free it */
  pte_xnn_delegate *d = NULL;
  s = pte_xnn_delegate_init_internal(processed->data, processed->size, ctx->named_data_map, &cfg, &d, err);
  if (s != PTE_OK) return s;
  if (g_profile_default && pte_xnn_delegate_set_profiling(d, true) != PTE_OK) {
    pte_xnn_delegate_destroy(d);
    return pte_error_set(err, PTE_ERR_MEMORY_ALLOCATION_FAILED, "xnnpack: cannot allocate profiling counters");
  }
  /* everything execute needs was copied or kept: release the blob now, as upstream does —
   * unless prepared packed weights are used in place from it (the runtime frees it after
   * destroy) */
  if (!d->borrows_blob) pte_freeable_buffer_free(processed);
  *handle = d;
  return PTE_OK;
}

static pte_status be_execute(pte_backend_execution_context *ctx, pte_delegate_handle *handle, pte_evalue **args,
                             size_t nargs) {
  pte_error_info *err = ctx ? ctx->err : NULL;
  if (!handle) return pte_error_set(err, PTE_ERR_DELEGATE_INVALID_HANDLE, "xnnpack: NULL delegate handle");
  return pte_xnn_delegate_execute((pte_xnn_delegate *)handle, args, nargs, err);
}

static void be_destroy(pte_delegate_handle *handle) { pte_xnn_delegate_destroy((pte_xnn_delegate *)handle); }

static const pte_backend k_backend = {NULL, be_init, be_execute, be_destroy, pte_xnn_initialize_backend_data};

const pte_backend *pte_xnnpack_backend(void) { return &k_backend; }

pte_status pte_register_xnnpack_backend(void) {
  const pte_backend *cur = pte_get_backend(PTE_XNNPACK_BACKEND_ID);
  if (cur == &k_backend) return PTE_OK;
  if (cur) return PTE_ERR_INVALID_ARGUMENT;
  return pte_register_backend(PTE_XNNPACK_BACKEND_ID, &k_backend);
}

/* ---- profiling ---------------------------------------------------------------------------- */

void pte_xnnpack_set_profiling_default(bool on) { g_profile_default = on; }

static bool g_rewrites = true;
void pte_xnnpack_set_graph_rewrites(bool on) { g_rewrites = on; }
bool pte_xnnpack_graph_rewrites(void) { return g_rewrites; }

pte_status pte_xnn_delegate_set_profiling(pte_xnn_delegate *d, bool on) {
  if (!d) return PTE_ERR_INVALID_ARGUMENT;
  if (on && !d->prof_ns) {
    d->prof_ns = (uint64_t *)calloc(d->n_nodes ? d->n_nodes : 1, sizeof(uint64_t));
    d->prof_calls = (uint64_t *)calloc(d->n_nodes ? d->n_nodes : 1, sizeof(uint64_t));
    if (!d->prof_ns || !d->prof_calls) {
      free(d->prof_ns);
      free(d->prof_calls);
      d->prof_ns = d->prof_calls = NULL;
      return PTE_ERR_MEMORY_ALLOCATION_FAILED;
    }
  }
  d->profiling = on;
  return PTE_OK;
}

void pte_xnn_delegate_profile_reset(pte_xnn_delegate *d) {
  if (!d || !d->prof_ns) return;
  memset(d->prof_ns, 0, d->n_nodes * sizeof(uint64_t));
  memset(d->prof_calls, 0, d->n_nodes * sizeof(uint64_t));
}

size_t pte_xnn_delegate_profile_nodes(const pte_xnn_delegate *d, pte_xnn_node_time *out, size_t cap) {
  if (!d) return 0;
  for (size_t i = 0; i < d->n_nodes && i < cap && out; i++) {
    out[i].type = d->nodes[i].type;
    out[i].name = pte_xnn_node_name(d->nodes[i].type);
    out[i].node = (uint32_t)i;
    out[i].calls = d->prof_calls ? d->prof_calls[i] : 0;
    out[i].ns = d->prof_ns ? d->prof_ns[i] : 0;
  }
  return d->n_nodes;
}

/* Fills out[] (at most cap) with the kinds that ran, largest time first; returns their count. */
static size_t prof_sorted(const uint64_t *ns, const uint64_t *calls, pte_xnn_node_time *out, size_t cap) {
  size_t n = 0;
  for (unsigned t = 0; t < 256; t++) {
    if (!calls[t]) continue;
    /* insertion by decreasing time */
    size_t pos = n < cap ? n : cap;
    while (pos > 0 && out && out[pos - 1].ns < ns[t]) {
      if (pos < cap) out[pos] = out[pos - 1];
      pos--;
    }
    if (pos < cap && out) {
      out[pos].type = t;
      out[pos].name = pte_xnn_node_name(t);
      out[pos].node = 0;
      out[pos].calls = calls[t];
      out[pos].ns = ns[t];
    }
    n++;
  }
  return n;
}

size_t pte_xnn_delegate_profile_kinds(const pte_xnn_delegate *d, pte_xnn_node_time *out, size_t cap) {
  if (!d || !d->prof_ns) return 0;
  uint64_t ns[256] = {0}, calls[256] = {0};
  for (size_t i = 0; i < d->n_nodes; i++) {
    if (d->nodes[i].fuse == PTE_XNN_FUSE_SKIP) continue; /* absorbed into another node */
    ns[d->nodes[i].type] += d->prof_ns[i];
    calls[d->nodes[i].type] += d->prof_calls[i];
  }
  return prof_sorted(ns, calls, out, cap);
}

/* Process-wide totals of every delegate that profiles (pte_xnnpack_profile_kinds). */
static _Atomic uint64_t g_prof_ns[256], g_prof_calls[256];

void pte_xnn_profile_global_add(unsigned type, uint64_t ns) {
  atomic_fetch_add_explicit(&g_prof_ns[type & 255], ns, memory_order_relaxed);
  atomic_fetch_add_explicit(&g_prof_calls[type & 255], 1, memory_order_relaxed);
}

size_t pte_xnnpack_profile_kinds(pte_xnn_node_time *out, size_t cap) {
  uint64_t ns[256], calls[256];
  for (unsigned t = 0; t < 256; t++) {
    ns[t] = atomic_load_explicit(&g_prof_ns[t], memory_order_relaxed);
    calls[t] = atomic_load_explicit(&g_prof_calls[t], memory_order_relaxed);
  }
  return prof_sorted(ns, calls, out, cap);
}

void pte_xnnpack_profile_reset(void) {
  for (unsigned t = 0; t < 256; t++) {
    atomic_store_explicit(&g_prof_ns[t], 0, memory_order_relaxed);
    atomic_store_explicit(&g_prof_calls[t], 0, memory_order_relaxed);
  }
}
