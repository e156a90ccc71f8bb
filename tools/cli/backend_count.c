/* Counting wrappers around the registered delegate backends (backend_count.h). */
#include "backend_count.h"

#include <string.h>

#include "pte/backend.h"

/* One slot per registry entry: the original table, its name and the counting copy. init() and
 * destroy() receive no backend identity, so every slot has its own pair of trampolines. */
typedef struct count_slot {
  const char *name;
  const pte_backend *orig;
  pte_backend wrapped;
} count_slot;

static count_slot g_slots[PTE_MAX_BACKENDS];
static uint64_t g_inits, g_destroys;

static pte_status count_init(size_t slot, pte_backend_init_context *ctx, pte_freeable_buffer *processed,
                             const pte_compile_spec *specs, size_t n_specs, pte_delegate_handle **handle) {
  pte_status s = g_slots[slot].orig->init(ctx, processed, specs, n_specs, handle);
  if (s == PTE_OK) g_inits++;
  return s;
}

static void count_destroy(size_t slot, pte_delegate_handle *handle) {
  g_destroys++;
  if (g_slots[slot].orig->destroy) g_slots[slot].orig->destroy(handle);
}

#define PTE_CLI_COUNT_SLOT(N)                                                                                    \
  static pte_status count_init_##N(pte_backend_init_context *ctx, pte_freeable_buffer *processed,              \
                                   const pte_compile_spec *specs, size_t n_specs, pte_delegate_handle **handle) { \
    return count_init(N, ctx, processed, specs, n_specs, handle);                                              \
  }                                                                                                            \
  static void count_destroy_##N(pte_delegate_handle *handle) { count_destroy(N, handle); }
PTE_CLI_COUNT_SLOT(0)
PTE_CLI_COUNT_SLOT(1)
PTE_CLI_COUNT_SLOT(2)
PTE_CLI_COUNT_SLOT(3)
PTE_CLI_COUNT_SLOT(4)
PTE_CLI_COUNT_SLOT(5)
PTE_CLI_COUNT_SLOT(6)
PTE_CLI_COUNT_SLOT(7)
PTE_CLI_COUNT_SLOT(8)
PTE_CLI_COUNT_SLOT(9)
PTE_CLI_COUNT_SLOT(10)
PTE_CLI_COUNT_SLOT(11)
PTE_CLI_COUNT_SLOT(12)
PTE_CLI_COUNT_SLOT(13)
PTE_CLI_COUNT_SLOT(14)
PTE_CLI_COUNT_SLOT(15)

typedef pte_status (*init_fn)(pte_backend_init_context *, pte_freeable_buffer *, const pte_compile_spec *, size_t,
                              pte_delegate_handle **);
typedef void (*destroy_fn)(pte_delegate_handle *);
static const init_fn k_inits[PTE_MAX_BACKENDS] = {count_init_0,  count_init_1,  count_init_2,  count_init_3,
                                                  count_init_4,  count_init_5,  count_init_6,  count_init_7,
                                                  count_init_8,  count_init_9,  count_init_10, count_init_11,
                                                  count_init_12, count_init_13, count_init_14, count_init_15};
static const destroy_fn k_destroys[PTE_MAX_BACKENDS] = {
    count_destroy_0, count_destroy_1, count_destroy_2,  count_destroy_3,  count_destroy_4,  count_destroy_5,
    count_destroy_6, count_destroy_7, count_destroy_8,  count_destroy_9,  count_destroy_10, count_destroy_11,
    count_destroy_12, count_destroy_13, count_destroy_14, count_destroy_15};

pte_status pte_cli_backend_count_install(pte_error_info *err) {
  size_t n = pte_num_registered_backends();
  if (n > PTE_MAX_BACKENDS) n = PTE_MAX_BACKENDS;
  for (size_t i = 0; i < n; i++) {
    g_slots[i].name = pte_registered_backend_name(i);
    g_slots[i].orig = pte_get_backend(g_slots[i].name);
    g_slots[i].wrapped = *g_slots[i].orig;
    g_slots[i].wrapped.init = k_inits[i];
    g_slots[i].wrapped.destroy = k_destroys[i];
  }
  pte_backend_registry_reset();
  for (size_t i = 0; i < n; i++) {
    pte_status s = pte_register_backend_ex(g_slots[i].name, &g_slots[i].wrapped, err);
    if (s != PTE_OK) {
      pte_backend_registry_reset();
      return s;
    }
  }
  g_inits = g_destroys = 0;
  return PTE_OK;
}

uint64_t pte_cli_backend_inits(void) { return g_inits; }
uint64_t pte_cli_backend_destroys(void) { return g_destroys; }
