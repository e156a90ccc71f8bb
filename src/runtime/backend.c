/* Backend registry (a fixed table) and backend context helpers. */
#include <string.h>

#include "pte/backend.h"

typedef struct backend_entry {
  const char *name;
  const pte_backend *backend;
} backend_entry;

static backend_entry g_backends[PTE_MAX_BACKENDS];
static size_t g_num_backends;

pte_status pte_register_backend_ex(const char *name, const pte_backend *backend, pte_error_info *err) {
  if (!name || !backend)
    return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "pte_register_backend: NULL %s", name ? "backend" : "name");
  if (!backend->init || !backend->execute)
    return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "backend '%s' lacks %s()", name, backend->init ? "execute" : "init");
  for (size_t i = 0; i < g_num_backends; i++)
    if (strcmp(g_backends[i].name, name) == 0)
      return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "backend '%s' is already registered", name);
  if (g_num_backends >= PTE_MAX_BACKENDS)
    return pte_error_set(err, PTE_ERR_INTERNAL, "backend registry is full (%d backends): cannot register '%s'",
                         PTE_MAX_BACKENDS, name);
  g_backends[g_num_backends].name = name;
  g_backends[g_num_backends].backend = backend;
  g_num_backends++;
  return PTE_OK;
}

pte_status pte_register_backend(const char *name, const pte_backend *backend) {
  return pte_register_backend_ex(name, backend, NULL);
}

const pte_backend *pte_get_backend(const char *name) {
  if (!name) return NULL;
  for (size_t i = 0; i < g_num_backends; i++)
    if (strcmp(g_backends[i].name, name) == 0) return g_backends[i].backend;
  return NULL;
}

size_t pte_num_registered_backends(void) { return g_num_backends; }

const char *pte_registered_backend_name(size_t i) { return i < g_num_backends ? g_backends[i].name : NULL; }

void pte_backend_registry_reset(void) { g_num_backends = 0; }

void *pte_backend_alloc_temp(pte_backend_execution_context *ctx, size_t size, size_t align) {
  if (!ctx || !ctx->temp_allocator) return NULL;
  return pte_allocator_alloc(ctx->temp_allocator, size, align);
}

static const pte_backend_option *find_spec(const pte_backend_init_context *ctx, const char *key) {
  if (!ctx || !key || !ctx->runtime_specs) return NULL;
  for (size_t i = 0; i < ctx->n_runtime_specs; i++)
    if (strncmp(ctx->runtime_specs[i].key, key, PTE_BACKEND_OPTION_KEY_MAX) == 0) return &ctx->runtime_specs[i];
  return NULL;
}

pte_status pte_backend_runtime_spec_bool(const pte_backend_init_context *ctx, const char *key, bool *out) {
  const pte_backend_option *o = find_spec(ctx, key);
  if (!o) return PTE_ERR_NOT_FOUND;
  if (o->type != PTE_BACKEND_OPTION_BOOL || !out) return PTE_ERR_INVALID_ARGUMENT;
  *out = o->value.b;
  return PTE_OK;
}

pte_status pte_backend_runtime_spec_int(const pte_backend_init_context *ctx, const char *key, int *out) {
  const pte_backend_option *o = find_spec(ctx, key);
  if (!o) return PTE_ERR_NOT_FOUND;
  if (o->type != PTE_BACKEND_OPTION_INT || !out) return PTE_ERR_INVALID_ARGUMENT;
  *out = o->value.i;
  return PTE_OK;
}

pte_status pte_backend_runtime_spec_string(const pte_backend_init_context *ctx, const char *key,
                                           const char **out) {
  const pte_backend_option *o = find_spec(ctx, key);
  if (!o) return PTE_ERR_NOT_FOUND;
  if (o->type != PTE_BACKEND_OPTION_STRING || !out) return PTE_ERR_INVALID_ARGUMENT;
  *out = o->value.s;
  return PTE_OK;
}
