/* Kernel registry: a static table, filled explicitly by pte_register_kernels(). */
#include <stdarg.h>
#include <string.h>

#include "pte/kernel.h"
#include "base/vformat.h"

/* 1 (the default): pte_kernel_lookup() falls back to the built-in primitive operators (prim_ops.c).
 * 0: it does not, so a program without them links no prim_ops.c (pte_register_prim_ops()). */
#ifndef PTE_PRIM_OPS_BUILTIN
#define PTE_PRIM_OPS_BUILTIN 1
#endif

static pte_kernel g_kernels[PTE_MAX_KERNELS];
static size_t g_num_kernels;

/* Name index: open addressing (linear probing) over the registered kernels, at most half full;
 * a slot holds a kernel's index + 1 (0: empty). All kernels of one name share a probe run, so a
 * lookup compares names only along that run instead of scanning the whole registry. */
#define KHASH_SIZE_MIN (2u * (unsigned long)PTE_MAX_KERNELS)
/* the smallest power of two >= KHASH_SIZE_MIN: every bit below the highest of MIN - 1 set, + 1 */
#define KH_B1 ((KHASH_SIZE_MIN - 1u) | ((KHASH_SIZE_MIN - 1u) >> 1))
#define KH_B2 (KH_B1 | (KH_B1 >> 2))
#define KH_B4 (KH_B2 | (KH_B2 >> 4))
#define KH_B8 (KH_B4 | (KH_B4 >> 8))
#define KHASH_SIZE ((KH_B8 | (KH_B8 >> 16)) + 1u)
_Static_assert(KHASH_SIZE >= KHASH_SIZE_MIN && (KHASH_SIZE & (KHASH_SIZE - 1u)) == 0, "kernel name index size");
#if PTE_MAX_KERNELS < 65535
typedef uint16_t khash_slot;
#else
typedef uint32_t khash_slot;
#endif
static khash_slot g_khash[KHASH_SIZE];

static uint32_t khash_name(const char *s) {
  uint32_t h = 2166136261u; /* FNV-1a */
  while (*s) h = (h ^ (uint8_t)*s++) * 16777619u;
  return h;
}

static void khash_insert(size_t idx) {
  uint32_t i = khash_name(g_kernels[idx].name) & (KHASH_SIZE - 1u);
  while (g_khash[i]) i = (i + 1u) & (KHASH_SIZE - 1u);
  g_khash[i] = (khash_slot)(idx + 1);
}

static bool key_eq(const char *a, const char *b) {
  if (!a || !b) return a == b;
  return strcmp(a, b) == 0;
}

static bool registered(const pte_kernel *k, size_t upto_extra, const pte_kernel *extra) {
  for (uint32_t i = khash_name(k->name) & (KHASH_SIZE - 1u); g_khash[i]; i = (i + 1u) & (KHASH_SIZE - 1u)) {
    const pte_kernel *r = &g_kernels[g_khash[i] - 1];
    if (strcmp(r->name, k->name) == 0 && key_eq(r->key, k->key)) return true;
  }
  for (size_t i = 0; i < upto_extra; i++)
    if (strcmp(extra[i].name, k->name) == 0 && key_eq(extra[i].key, k->key)) return true;
  return false;
}

pte_status pte_register_kernels_ex(const pte_kernel *kernels, size_t n, pte_error_info *err) {
  if (n && !kernels) return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "pte_register_kernels: NULL table of %zu kernels", n);
  if (n > PTE_MAX_KERNELS - g_num_kernels)
    return pte_error_set(err, PTE_ERR_REGISTRATION_EXCEEDING_MAX_KERNELS,
                         "kernel registry full: %zu registered + %zu new > capacity %zu (build setting PTE_MAX_KERNELS)",
                         g_num_kernels, n, (size_t)PTE_MAX_KERNELS);
  for (size_t i = 0; i < n; i++) {
    if (!kernels[i].name || !kernels[i].fn)
      return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "pte_register_kernels: kernel %zu has a NULL %s", i,
                           kernels[i].name ? "fn" : "name");
    if (registered(&kernels[i], i, kernels))
      return pte_error_set(err, PTE_ERR_REGISTRATION_ALREADY_REGISTERED, "kernel '%s' (key %s) is already registered",
                           kernels[i].name, kernels[i].key ? kernels[i].key : "none");
  }
  for (size_t i = 0; i < n; i++) {
    g_kernels[g_num_kernels] = kernels[i];
    khash_insert(g_num_kernels++);
  }
  return PTE_OK;
}

pte_status pte_register_kernels(const pte_kernel *kernels, size_t n) { return pte_register_kernels_ex(kernels, n, NULL); }

size_t pte_kernel_registry_capacity(void) { return PTE_MAX_KERNELS; }

static pte_op_fn lookup_in(const pte_kernel *ks, size_t n, const char *name, const char *key, bool *found_name) {
  pte_op_fn fallback = NULL;
  for (size_t i = 0; i < n; i++) {
    if (strcmp(ks[i].name, name) != 0) continue;
    *found_name = true;
    if (ks[i].key == NULL) fallback = ks[i].fn;
    else if (key && strcmp(ks[i].key, key) == 0) return ks[i].fn;
  }
  return fallback;
}

pte_op_fn pte_kernel_lookup(const char *name, const char *key, const pte_kernel *method_kernels,
                            size_t n_method_kernels) {
  if (!name) return NULL;
  bool found = false;
  pte_op_fn fn = NULL;
  if (method_kernels) fn = lookup_in(method_kernels, n_method_kernels, name, key, &found);
  if (fn) return fn;
  pte_op_fn fallback = NULL; /* the registry: as lookup_in, along the name's probe run */
  for (uint32_t i = khash_name(name) & (KHASH_SIZE - 1u); g_khash[i]; i = (i + 1u) & (KHASH_SIZE - 1u)) {
    const pte_kernel *r = &g_kernels[g_khash[i] - 1];
    if (strcmp(r->name, name) != 0) continue;
    if (r->key == NULL) fallback = r->fn;
    else if (key && strcmp(r->key, key) == 0) return r->fn;
  }
  if (fallback) return fallback;
#if PTE_PRIM_OPS_BUILTIN
  return pte_prim_lookup(name); /* always available, after everything registered */
#else
  return NULL; /* prim ops only when registered (pte_register_prim_ops) */
#endif
}

bool pte_kernel_name_keyed(const char *name, const pte_kernel *method_kernels, size_t n_method_kernels) {
  if (!name) return false;
  for (size_t i = 0; method_kernels && i < n_method_kernels; i++)
    if (method_kernels[i].key && strcmp(method_kernels[i].name, name) == 0) return true;
  for (uint32_t i = khash_name(name) & (KHASH_SIZE - 1u); g_khash[i]; i = (i + 1u) & (KHASH_SIZE - 1u)) {
    const pte_kernel *r = &g_kernels[g_khash[i] - 1];
    if (r->key && strcmp(r->name, name) == 0) return true;
  }
  return false;
}

size_t pte_num_registered_kernels(void) { return g_num_kernels; }

const pte_kernel *pte_registered_kernel(size_t i) { return i < g_num_kernels ? &g_kernels[i] : NULL; }

void pte_kernel_registry_reset(void) {
  g_num_kernels = 0;
  memset(g_khash, 0, sizeof g_khash);
}

static bool put_num(char *buf, size_t cap, size_t *len, unsigned v) {
  if (v >= 100) return false; /* upstream: numbers must be < 100 */
  if (v >= 10) {
    if (*len + 1 >= cap) return false;
    buf[(*len)++] = (char)('0' + v / 10);
  }
  if (*len + 1 >= cap) return false;
  buf[(*len)++] = (char)('0' + v % 10);
  return true;
}

static bool put_ch(char *buf, size_t cap, size_t *len, char c) {
  if (*len + 1 >= cap) return false;
  buf[(*len)++] = c;
  return true;
}

pte_status pte_kernel_key(pte_evalue **args, size_t nargs, char *buf, size_t cap) {
  if (!buf || cap == 0) return PTE_ERR_INTERNAL;
  size_t len = 0;
  bool any = false;
  for (size_t i = 0; i < nargs; i++) {
    const pte_evalue *v = args[i];
    if (!v || v->tag != PTE_TAG_TENSOR || !v->u.tensor) continue;
    const pte_tensor *t = v->u.tensor;
    if (!any) {
      if (!put_ch(buf, cap, &len, 'v') || !put_ch(buf, cap, &len, '1') || !put_ch(buf, cap, &len, '/'))
        return PTE_ERR_INTERNAL;
    } else if (!put_ch(buf, cap, &len, '|')) {
      return PTE_ERR_INTERNAL;
    }
    any = true;
    if (!put_num(buf, cap, &len, t->dtype) || !put_ch(buf, cap, &len, ';')) return PTE_ERR_INTERNAL;
    for (int32_t d = 0; d < t->dim; d++) {
      if (d && !put_ch(buf, cap, &len, ',')) return PTE_ERR_INTERNAL;
      if (!put_num(buf, cap, &len, t->dim_order[d])) return PTE_ERR_INTERNAL;
    }
  }
  buf[len] = '\0';
  return PTE_OK;
}

void pte_kernel_fail(pte_kernel_context *ctx, pte_status s, const char *fmt, ...) {
  if (!ctx || ctx->failure != PTE_OK) return;
  ctx->failure = s;
  if (fmt) {
    va_list ap;
    va_start(ap, fmt);
    pte_vformat(ctx->msg, sizeof ctx->msg, fmt, ap);
    va_end(ap);
  }
}

void *pte_kernel_alloc_temp(pte_kernel_context *ctx, size_t size, size_t align) {
  if (!ctx || !ctx->temp) return NULL;
  return pte_allocator_alloc(ctx->temp, size, align);
}
