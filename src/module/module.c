/* The Module API (pte/module.h): a heap-backed convenience layer over program + method. */
#define _POSIX_C_SOURCE 200809L
#include "pte/module.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "module/host.h"
#include "pte/backend_xnnpack.h"
#include "pte/cortex_m_kernels.h"
#include "pte/custom_kernels.h"
#include "pte/llm_kernels.h"
#include "pte/portable_kernels.h"
#include "pte/ptd.h"
#include "pte/quantized_kernels.h"

typedef struct mod_method {
  const char *name; /* points into the program */
  bool loaded;
  pte_host_memory mem;
  pte_method *m;
  size_t n_inputs;
  void **in_bufs; /* staging copies of inputs the runtime does not copy itself */
  size_t *in_caps;
} mod_method;

struct pte_module {
  pte_module_options opts;
  pte_host_source src, data_src;
  pte_program prog;
  bool prog_loaded;
  pte_ptd ptd;
  bool have_ptd;
  size_t n_methods;
  mod_method *methods;
};

/* ------------------------------------------------------------------ registration */
static pthread_once_t mod_register_once = PTHREAD_ONCE_INIT;
static pte_error_info mod_register_err; /* written once, under pthread_once */

static void mod_register_impl(void) {
  pte_error_info *err = &mod_register_err;
  pte_status s = pte_register_portable_kernels();
  if (s != PTE_OK) {
    pte_error_set(err, s, "cannot register the portable kernels");
    return;
  }
  if ((s = pte_register_quantized_kernels()) != PTE_OK) {
    pte_error_set(err, s, "cannot register the quantized_decomposed kernels");
    return;
  }
  if ((s = pte_register_cortex_m_kernels()) != PTE_OK) {
    pte_error_set(err, s, "cannot register the cortex_m kernels");
    return;
  }
  if ((s = pte_register_custom_kernels()) != PTE_OK) {
    pte_error_set(err, s, "cannot register the custom (etnp / cadence) kernels");
    return;
  }
  if ((s = pte_register_llm_kernels()) != PTE_OK) {
    pte_error_set(err, s, "cannot register the LLM (llama::) kernels");
    return;
  }
  if ((s = pte_register_xnnpack_backend()) != PTE_OK) {
    pte_error_set(err, s, "cannot register the XNNPACK backend");
    return;
  }
  err->status = PTE_OK;
  err->msg[0] = 0;
}

pte_status pte_module_register_all(pte_error_info *err) {
  pthread_once(&mod_register_once, mod_register_impl);
  if (mod_register_err.status != PTE_OK && err) *err = mod_register_err;
  return mod_register_err.status;
}

/* ------------------------------------------------------------------ text helpers */
/* "float32[1, 3]"; upper bounds of a dynamic tensor as "float32[<=4, 3]". */
static const char *mod_shape_text(int dtype, const int32_t *sizes, int32_t dim, bool bounds, char *buf, size_t cap) {
  size_t n = 0;
  int w = snprintf(buf, cap, "%s[", pte_dtype_name(dtype));
  if (w > 0) n = (size_t)w < cap ? (size_t)w : cap - 1;
  for (int32_t d = 0; d < dim && d < PTE_MAX_RANK && n < cap; d++) {
    w = snprintf(buf + n, cap - n, "%s%s%d", d ? ", " : "", bounds ? "<=" : "", (int)sizes[d]);
    if (w > 0) n += (size_t)w < cap - n ? (size_t)w : cap - n - 1;
  }
  if (n + 1 < cap) buf[n++] = ']', buf[n] = 0;
  return buf;
}

static void mod_method_list(const pte_module *mod, char *buf, size_t cap) {
  size_t n = 0;
  buf[0] = 0;
  for (size_t i = 0; i < mod->n_methods && n < cap; i++) {
    int w = snprintf(buf + n, cap - n, "%s%s", i ? ", " : "", mod->methods[i].name);
    if (w > 0) n += (size_t)w < cap - n ? (size_t)w : cap - n - 1;
  }
}

/* ------------------------------------------------------------------ open / destroy */
pte_status pte_module_open(const char *path, const pte_module_options *opts, pte_module **out, pte_error_info *err) {
  if (out) *out = NULL;
  if (!path || !out) return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "pte_module_open: NULL %s", path ? "out" : "path");
  pte_module_options o;
  memset(&o, 0, sizeof o);
  if (opts) o = *opts;
  if (o.num_threads < 0 || o.num_threads > 64)
    return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "pte_module_open: num_threads %d is outside 0..64",
                         o.num_threads);
  if ((unsigned)o.loader > PTE_MODULE_LOADER_BUFFER)
    return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "pte_module_open: unknown loader %d (mmap 0, file 1, buffer 2)",
                         (int)o.loader);
  if (!o.no_register) {
    pte_status s = pte_module_register_all(err);
    if (s != PTE_OK) return s;
  }
  pte_module *mod = calloc(1, sizeof *mod);
  if (!mod) return pte_error_set(err, PTE_ERR_MEMORY_ALLOCATION_FAILED, "out of memory");
  mod->opts = o;
  mod->opts.data_path = NULL; /* not kept: the caller's string */
  pte_host_loader_kind kind = (pte_host_loader_kind)o.loader;
  pte_status s = pte_host_source_open(&mod->src, path, kind, err);
  if (s == PTE_OK) {
    s = pte_program_load(pte_host_source_loader(&mod->src),
                         o.verify_minimal ? PTE_VERIFY_MINIMAL : PTE_VERIFY_INTERNAL_CONSISTENCY, &mod->prog, err);
    mod->prog_loaded = s == PTE_OK;
  }
  if (s == PTE_OK && o.data_path) {
    s = pte_host_source_open(&mod->data_src, o.data_path, kind, err);
    if (s == PTE_OK) s = pte_ptd_load(pte_host_source_loader(&mod->data_src), &mod->ptd, err);
    mod->have_ptd = s == PTE_OK;
  }
  if (s == PTE_OK) {
    mod->n_methods = pte_program_num_methods(&mod->prog);
    mod->methods = calloc(mod->n_methods ? mod->n_methods : 1, sizeof *mod->methods);
    if (!mod->methods) s = pte_error_set(err, PTE_ERR_MEMORY_ALLOCATION_FAILED, "out of memory");
    for (size_t i = 0; s == PTE_OK && i < mod->n_methods; i++) {
      mod->methods[i].name = pte_program_method_name(&mod->prog, i);
      if (!mod->methods[i].name) s = pte_error_set(err, PTE_ERR_INVALID_PROGRAM, "method %zu has no name", i);
    }
  }
  if (s != PTE_OK) {
    pte_module_destroy(mod);
    return s;
  }
  *out = mod;
  return PTE_OK;
}

static void mod_method_unload(mod_method *mm) {
  if (mm->m) pte_method_destroy(mm->m);
  mm->m = NULL;
  pte_host_memory_free(&mm->mem);
  for (size_t i = 0; mm->in_bufs && i < mm->n_inputs; i++) free(mm->in_bufs[i]);
  free(mm->in_bufs);
  free(mm->in_caps);
  mm->in_bufs = NULL;
  mm->in_caps = NULL;
  mm->loaded = false;
}

void pte_module_destroy(pte_module *mod) {
  if (!mod) return;
  for (size_t i = 0; mod->methods && i < mod->n_methods; i++) mod_method_unload(&mod->methods[i]);
  free(mod->methods);
  if (mod->prog_loaded) pte_program_destroy(&mod->prog);
  if (mod->have_ptd) pte_ptd_destroy(&mod->ptd);
  pte_host_source_close(&mod->data_src);
  pte_host_source_close(&mod->src);
  free(mod);
}

/* ------------------------------------------------------------------ methods */
size_t pte_module_num_methods(const pte_module *mod) { return mod ? mod->n_methods : 0; }

const char *pte_module_method_name(const pte_module *mod, size_t i) {
  return mod && i < mod->n_methods ? mod->methods[i].name : NULL;
}

const pte_program *pte_module_program(const pte_module *mod) { return mod ? &mod->prog : NULL; }

static mod_method *mod_find(const pte_module *mod, const char *method) {
  if (!mod || !method) return NULL;
  for (size_t i = 0; i < mod->n_methods; i++)
    if (!strcmp(mod->methods[i].name, method)) return &mod->methods[i];
  return NULL;
}

static pte_status mod_no_method(const pte_module *mod, const char *method, pte_error_info *err) {
  if (!mod || !method) return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "NULL %s", mod ? "method name" : "module");
  char list[160];
  mod_method_list(mod, list, sizeof list);
  return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "no method '%s' in this program (methods: %s)", method, list);
}

pte_status pte_module_method_meta(const pte_module *mod, const char *method, pte_method_meta *out,
                                  pte_error_info *err) {
  if (!mod_find(mod, method)) return mod_no_method(mod, method, err);
  if (!out) return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "NULL meta");
  return pte_method_meta_get(&mod->prog, method, out, err);
}

bool pte_module_is_method_loaded(const pte_module *mod, const char *method) {
  const mod_method *mm = mod_find(mod, method);
  return mm && mm->loaded;
}

static pte_status mod_load(pte_module *mod, mod_method *mm, pte_error_info *err) {
  if (mm->loaded) return PTE_OK;
  pte_method_meta meta;
  pte_status s = pte_method_meta_get(&mod->prog, mm->name, &meta, err);
  if (s != PTE_OK) return s;
  uint64_t planned = 0;
  if ((s = pte_method_meta_planned_memory(&meta, &planned)) != PTE_OK)
    return pte_error_set(err, s, "method '%s': planned buffer sizes are invalid", mm->name);
  if (mod->opts.max_planned_memory && planned > mod->opts.max_planned_memory)
    return pte_error_set(err, PTE_ERR_OUT_OF_RESOURCES,
                         "method '%s' plans %llu bytes of memory, more than the limit of %llu bytes "
                         "(pte_module_options.max_planned_memory)",
                         mm->name, (unsigned long long)planned, (unsigned long long)mod->opts.max_planned_memory);
  if ((s = pte_host_memory_init(&mm->mem, &meta, err)) != PTE_OK) return s;
  pte_method_options mo;
  memset(&mo, 0, sizeof mo);
  mo.external_data = mod->have_ptd ? pte_ptd_map(&mod->ptd) : NULL;
  mo.max_instructions = mod->opts.max_instructions;
  mo.max_planned_memory = mod->opts.max_planned_memory;
  pte_backend_option threads;
  pte_backend_load_options bo = {PTE_XNNPACK_BACKEND_ID, &threads, 1};
  if (mod->opts.num_threads > 0) {
    memset(&threads, 0, sizeof threads);
    snprintf(threads.key, sizeof threads.key, "%s", PTE_XNNPACK_OPTION_NUM_THREADS);
    threads.type = PTE_BACKEND_OPTION_INT;
    threads.value.i = mod->opts.num_threads;
    mo.backend_options = &bo;
    mo.n_backend_options = 1;
  }
  s = pte_host_method_load(&mm->mem, &mod->prog, mm->name, &mo, &mm->m, NULL, err);
  if (s != PTE_OK) {
    mm->m = NULL;
    if (err && !mod->have_ptd && strstr(err->msg, "external data map is null")) {
      char core[PTE_ERROR_MSG_MAX];
      memcpy(core, err->msg, sizeof core);
      pte_error_set(err, s, "%s; no .ptd was given: open the module with pte_module_options.data_path", core);
    }
    mod_method_unload(mm);
    return s;
  }
  if ((s = pte_host_bind_outputs(&mm->mem, mm->m, err)) != PTE_OK) {
    mod_method_unload(mm);
    return s;
  }
  mm->n_inputs = pte_method_num_inputs(mm->m);
  /* non-tensor inputs start at the values the program was traced with (as the CLI does) */
  for (size_t i = 0; i < mm->n_inputs; i++) {
    const pte_evalue *cur = pte_method_get_input(mm->m, i);
    if (!cur || cur->tag == PTE_TAG_TENSOR) continue;
    pte_evalue v = *cur;
    if ((s = pte_method_set_input(mm->m, i, &v, err)) != PTE_OK) {
      mod_method_unload(mm);
      return s;
    }
  }
  mm->in_bufs = calloc(mm->n_inputs ? mm->n_inputs : 1, sizeof(void *));
  mm->in_caps = calloc(mm->n_inputs ? mm->n_inputs : 1, sizeof(size_t));
  if (!mm->in_bufs || !mm->in_caps) {
    mod_method_unload(mm);
    return pte_error_set(err, PTE_ERR_MEMORY_ALLOCATION_FAILED, "out of memory");
  }
  mm->loaded = true;
  return PTE_OK;
}

static mod_method *mod_get(pte_module *mod, const char *method, pte_status *s, pte_error_info *err) {
  mod_method *mm = mod_find(mod, method);
  if (!mm) {
    *s = mod_no_method(mod, method, err);
    return NULL;
  }
  *s = mod_load(mod, mm, err);
  return *s == PTE_OK ? mm : NULL;
}

pte_status pte_module_load_method(pte_module *mod, const char *method, pte_error_info *err) {
  pte_status s;
  mod_get(mod, method, &s, err);
  return s;
}

pte_method *pte_module_method(pte_module *mod, const char *method, pte_error_info *err) {
  pte_status s;
  mod_method *mm = mod_get(mod, method, &s, err);
  return mm ? mm->m : NULL;
}

/* ------------------------------------------------------------------ inputs */
static pte_status mod_input_index(const mod_method *mm, size_t i, pte_error_info *err) {
  if (i < mm->n_inputs) return PTE_OK;
  return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "method '%s' takes %zu input%s: there is no input %zu", mm->name,
                       mm->n_inputs, mm->n_inputs == 1 ? "" : "s", i);
}

pte_status pte_module_set_input(pte_module *mod, const char *method, size_t i, pte_dtype dtype, const int32_t *sizes,
                                int32_t dim, const void *data, size_t nbytes, pte_error_info *err) {
  pte_status s;
  mod_method *mm = mod_get(mod, method, &s, err);
  if (!mm) return s;
  if ((s = mod_input_index(mm, i, err)) != PTE_OK) return s;
  const pte_method_meta *meta = pte_method_get_meta(mm->m);
  const pte_evalue *cur = pte_method_get_input(mm->m, i);
  if (!cur || cur->tag != PTE_TAG_TENSOR)
    return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT,
                         "method '%s' input %zu is a%s %s, not a tensor (set it with pte_module_set_input_value)",
                         mm->name, i, cur && cur->tag == PTE_TAG_INT ? "n" : "", pte_tag_name(cur ? (int)cur->tag : 0));
  pte_tensor_info info;
  if ((s = pte_method_meta_input_tensor_info(meta, i, &info)) != PTE_OK)
    return pte_error_set(err, s, "method '%s' input %zu: cannot describe it", mm->name, i);
  if (dim < 0 || dim > PTE_MAX_RANK || (dim > 0 && !sizes))
    return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "method '%s' input %zu: bad rank %d (0..%d, sizes non-NULL)",
                         mm->name, i, (int)dim, PTE_MAX_RANK);
  if (!pte_dtype_valid((int)dtype))
    return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "method '%s' input %zu: unknown dtype %d", mm->name, i,
                         (int)dtype);
  bool dynamic = info.dynamism != PTE_SHAPE_STATIC;
  char want[192], got[192];
  mod_shape_text(info.dtype, info.sizes, info.dim, dynamic, want, sizeof want);
  for (int32_t d = 0; d < dim; d++)
    if (sizes[d] < 0)
      return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "method '%s' input %zu: negative size %d in dimension %d",
                           mm->name, i, (int)sizes[d], (int)d);
  mod_shape_text((int)dtype, sizes, dim, false, got, sizeof got);
  if ((int)dtype != (int)info.dtype || dim != info.dim)
    return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "method '%s' input %zu: expected %s, got %s (%s differs)",
                         mm->name, i, want, got, (int)dtype != (int)info.dtype ? "dtype" : "rank");
  for (int32_t d = 0; d < dim; d++) {
    bool bad = dynamic ? sizes[d] > info.sizes[d] : sizes[d] != info.sizes[d];
    if (bad)
      return pte_error_set(err, PTE_ERR_NOT_SUPPORTED, "method '%s' input %zu: expected %s, got %s (dimension %d %s)",
                           mm->name, i, want, got, (int)d, dynamic ? "exceeds its bound" : "differs");
  }
  size_t numel;
  if (pte_numel(sizes, dim, &numel) != PTE_OK || numel > SIZE_MAX / pte_dtype_size((int)dtype))
    return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "method '%s' input %zu: shape %s overflows", mm->name, i, got);
  size_t need = numel * pte_dtype_size((int)dtype);
  if (nbytes != need)
    return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "method '%s' input %zu: %s is %zu bytes, got %zu bytes", mm->name,
                         i, got, need, nbytes);
  if (need && !data)
    return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "method '%s' input %zu: NULL data", mm->name, i);
  bool contiguous = dim <= 1 || pte_dim_order_is_contiguous(info.dim_order, info.dim);
  const void *pass = data;
  if (!info.is_memory_planned || !contiguous) {
    /* the runtime keeps an unplanned input's pointer: give it the module's own copy */
    size_t cap = info.nbytes > need ? info.nbytes : need;
    if (mm->in_caps[i] < cap) {
      void *nb = NULL;
      if (posix_memalign(&nb, 64, cap ? cap : 1) != 0)
        return pte_error_set(err, PTE_ERR_MEMORY_ALLOCATION_FAILED, "method '%s' input %zu: out of memory (%zu bytes)",
                             mm->name, i, cap);
      free(mm->in_bufs[i]);
      mm->in_bufs[i] = nb;
      mm->in_caps[i] = cap;
    }
    pte_host_contiguous_to_layout(mm->in_bufs[i], data, sizes, info.dim_order, dim, pte_dtype_size((int)dtype));
    pass = mm->in_bufs[i];
  }
  s = pte_method_set_input_tensor(mm->m, i, dtype, sizes, dim, pass, nbytes, err);
  if (s != PTE_OK && err) {
    char core[PTE_ERROR_MSG_MAX];
    memcpy(core, err->msg, sizeof core);
    pte_error_set(err, s, "method '%s' input %zu: %s", mm->name, i, core);
  }
  return s;
}

pte_status pte_module_set_input_value(pte_module *mod, const char *method, size_t i, const pte_evalue *v,
                                      pte_error_info *err) {
  pte_status s;
  mod_method *mm = mod_get(mod, method, &s, err);
  if (!mm) return s;
  if ((s = mod_input_index(mm, i, err)) != PTE_OK) return s;
  if (!v) return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "method '%s' input %zu: NULL value", mm->name, i);
  s = pte_method_set_input(mm->m, i, v, err);
  if (s != PTE_OK && err) {
    char core[PTE_ERROR_MSG_MAX];
    memcpy(core, err->msg, sizeof core);
    pte_error_set(err, s, "method '%s' input %zu: %s", mm->name, i, core);
  }
  return s;
}

/* ------------------------------------------------------------------ execute / outputs */
pte_status pte_module_execute(pte_module *mod, const char *method, pte_error_info *err) {
  pte_status s;
  mod_method *mm = mod_get(mod, method, &s, err);
  if (!mm) return s;
  s = pte_method_execute(mm->m, err);
  if (s != PTE_OK && err) {
    char core[PTE_ERROR_MSG_MAX];
    memcpy(core, err->msg, sizeof core);
    pte_error_set(err, s, "method '%s': %s", mm->name, core);
  }
  return s;
}

pte_status pte_module_forward(pte_module *mod, pte_error_info *err) { return pte_module_execute(mod, "forward", err); }

size_t pte_module_num_outputs(const pte_module *mod, const char *method) {
  const mod_method *mm = mod_find(mod, method);
  return mm && mm->loaded ? pte_method_num_outputs(mm->m) : 0;
}

const pte_evalue *pte_module_output(const pte_module *mod, const char *method, size_t i) {
  const mod_method *mm = mod_find(mod, method);
  return mm && mm->loaded ? pte_method_get_output(mm->m, i) : NULL;
}

const pte_tensor *pte_module_output_tensor(const pte_module *mod, const char *method, size_t i) {
  const pte_evalue *v = pte_module_output(mod, method, i);
  return v && v->tag == PTE_TAG_TENSOR ? v->u.tensor : NULL;
}

pte_status pte_module_output_copy(const pte_module *mod, const char *method, size_t i, void *dst, size_t cap,
                                  pte_error_info *err) {
  const mod_method *mm = mod_find(mod, method);
  if (!mm) return mod_no_method(mod, method, err);
  if (!mm->loaded)
    return pte_error_set(err, PTE_ERR_INVALID_STATE, "method '%s' is not loaded: execute it first", mm->name);
  size_t n = pte_method_num_outputs(mm->m);
  if (i >= n)
    return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "method '%s' has %zu output%s: there is no output %zu", mm->name,
                         n, n == 1 ? "" : "s", i);
  const pte_evalue *v = pte_method_get_output(mm->m, i);
  if (!v || v->tag != PTE_TAG_TENSOR)
    return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "method '%s' output %zu is a %s, not a tensor", mm->name, i,
                         pte_tag_name(v ? (int)v->tag : 0));
  const pte_tensor *t = v->u.tensor;
  size_t nb = pte_tensor_nbytes(t);
  if (cap < nb)
    return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "method '%s' output %zu: %zu bytes needed, buffer has %zu",
                         mm->name, i, nb, cap);
  if (nb && !dst) return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "method '%s' output %zu: NULL buffer", mm->name, i);
  if (nb && !t->data)
    return pte_error_set(err, PTE_ERR_INVALID_STATE, "method '%s' output %zu has no data (not executed yet?)", mm->name,
                         i);
  pte_host_layout_to_contiguous(dst, t->data, t->sizes, t->dim_order, t->dim, pte_dtype_size(t->dtype));
  return PTE_OK;
}
