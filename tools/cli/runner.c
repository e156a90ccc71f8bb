/* Shared load/run helpers of the CLI verbs (see runner.h). */
#define _POSIX_C_SOURCE 200809L
#include "runner.h"

#include <errno.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "format/flatbuf.h"
#include "npy.h"
#include "pte/backend_xnnpack.h"
#include "pte/cortex_m_kernels.h"
#include "pte/custom_kernels.h"
#include "pte/kernel.h"
#include "pte/module.h"
#include "pte/portable_kernels.h"
#include "pte/quantized_kernels.h"
#include "pte_gen/program_gen.h"


bool pte_cli_parse_loader(const char *s, pte_cli_loader_kind *out) {
  if (!strcmp(s, "mmap")) *out = PTE_CLI_LOADER_MMAP;
  else if (!strcmp(s, "file")) *out = PTE_CLI_LOADER_FILE;
  else if (!strcmp(s, "buffer")) *out = PTE_CLI_LOADER_BUFFER;
  else return false;
  return true;
}

const char *pte_cli_loader_name(pte_cli_loader_kind k) {
  switch (k) {
    case PTE_CLI_LOADER_FILE: return "file";
    case PTE_CLI_LOADER_BUFFER: return "buffer";
    default: return "mmap";
  }
}

double pte_cli_now_ms(void) { return pte_host_now_ms(); }

uint8_t *pte_cli_read_file(const char *path, size_t *size) { return pte_host_read_file(path, size); }

pte_status pte_cli_source_open(pte_cli_source *s, const char *path, pte_cli_loader_kind kind, pte_error_info *err) {
  return pte_host_source_open(s, path, (pte_host_loader_kind)kind, err);
}

const pte_data_loader *pte_cli_source_loader(const pte_cli_source *s) { return pte_host_source_loader(s); }

void pte_cli_source_close(pte_cli_source *s) { pte_host_source_close(s); }

/* ------------------------------------------------------------------ limits */
void pte_cli_options_default(pte_cli_load_options *l) {
  memset(l, 0, sizeof *l);
  l->verify = PTE_VERIFY_INTERNAL_CONSISTENCY;
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  l->max_memory = pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page / 2 : (uint64_t)4 << 30;
}

bool pte_cli_parse_bytes(const char *s, uint64_t *out) {
  if (!s || *s < '0' || *s > '9') return false;
  char *e;
  errno = 0;
  unsigned long long v = strtoull(s, &e, 10);
  if (errno) return false;
  unsigned shift = 0;
  if (*e) {
    switch (*e == 'k' ? 'K' : *e == 'm' ? 'M' : *e == 'g' ? 'G' : *e == 't' ? 'T' : *e) {
      case 'K': shift = 10; break;
      case 'M': shift = 20; break;
      case 'G': shift = 30; break;
      case 'T': shift = 40; break;
      default: return false;
    }
    e++;
    if (*e == 'i' && e[1] == 'B') e += 2;
    else if (*e == 'B') e++;
    if (*e) return false;
  }
  if (shift && v > (UINT64_MAX >> shift)) return false;
  *out = (uint64_t)v << shift;
  return true;
}

bool pte_cli_is_load_option(const char *opt) {
  return !strcmp(opt, "--max-memory") || !strcmp(opt, "--verify") || !strcmp(opt, "--max-instructions") ||
         !strcmp(opt, "--threads");
}

int pte_cli_options_parse(pte_cli_load_options *l, const char *opt, const char *val, char *why, size_t why_cap) {
  if (!strcmp(opt, "--max-memory")) {
    if (!pte_cli_parse_bytes(val, &l->max_memory) || l->max_memory == 0) {
      snprintf(why, why_cap, "--max-memory needs a size in bytes such as 1G, 512M or 4096, not '%s'", val);
      return -1;
    }
    return 1;
  }
  if (!strcmp(opt, "--verify")) {
    if (!strcmp(val, "full")) l->verify = PTE_VERIFY_INTERNAL_CONSISTENCY;
    else if (!strcmp(val, "minimal")) l->verify = PTE_VERIFY_MINIMAL;
    else {
      snprintf(why, why_cap, "--verify must be full or minimal, not '%s'", val);
      return -1;
    }
    return 1;
  }
  if (!strcmp(opt, "--threads")) {
    char *e;
    long n = strtol(val, &e, 10);
    if (e == val || *e || n < 1 || n > 64) {
      snprintf(why, why_cap, "--threads needs a count from 1 to 64, not '%s'", val);
      return -1;
    }
    l->threads = (int)n;
    return 1;
  }
  if (!strcmp(opt, "--max-instructions")) {
    char *e;
    errno = 0;
    unsigned long long n = strtoull(val, &e, 10);
    if (errno || e == val || *e || *val == '-' || n == 0) {
      snprintf(why, why_cap, "--max-instructions needs a positive count, not '%s'", val);
      return -1;
    }
    l->max_instructions = n;
    return 1;
  }
  return 0;
}

/* "20.0 GiB (21474836480 bytes)", or "64 bytes" below 1 KiB. */
static const char *human_bytes(uint64_t n, char buf[64]) {
  static const char *units[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double v = (double)n;
  int u = 0;
  while (v >= 1024.0 && u < 6) v /= 1024.0, u++;
  if (u == 0) snprintf(buf, 64, "%llu bytes", (unsigned long long)n);
  else snprintf(buf, 64, "%.1f %s (%llu bytes)", v, units[u], (unsigned long long)n);
  return buf;
}

/* ------------------------------------------------------------------ memory */
pte_status pte_cli_memory_init(pte_cli_memory *mem, const pte_method_meta *meta, const pte_cli_load_options *lim,
                               pte_error_info *err) {
  memset(mem, 0, sizeof *mem);
  size_t n_planned = pte_method_meta_num_planned_buffers(meta);
  uint64_t total = 0;
  for (size_t i = 0; i < n_planned; i++) {
    uint64_t sz = 0;
    pte_status s = pte_method_meta_planned_buffer_size(meta, i, &sz);
    if (s != PTE_OK) return pte_error_set(err, s, "planned buffer %zu: size unavailable", i);
    total = sz > UINT64_MAX - total ? UINT64_MAX : total + sz;
  }
  if (lim && total > lim->max_memory) {
    char a[64], b[64];
    return pte_error_set(err, PTE_ERR_OUT_OF_RESOURCES,
                         "method '%s' plans %s of memory, more than the limit of %s; raise it with --max-memory BYTES",
                         pte_method_meta_name(meta), human_bytes(total, a), human_bytes(lim->max_memory, b));
  }
  return pte_host_memory_init(mem, meta, err);
}

void pte_cli_memory_free(pte_cli_memory *mem) { pte_host_memory_free(mem); }

pte_status pte_cli_method_load(pte_cli_memory *mem, const pte_program *p, const char *name,
                               const pte_named_data_map *ext, const pte_cli_load_options *lim, pte_method **out, double *ms,
                               pte_error_info *err) {
  pte_method_options opts;
  memset(&opts, 0, sizeof opts);
  opts.external_data = ext;
  pte_backend_option threads;
  pte_backend_load_options bo = {PTE_XNNPACK_BACKEND_ID, &threads, 1};
  if (lim) {
    opts.max_instructions = lim->max_instructions;
    opts.max_planned_memory = lim->max_memory;
    opts.tracer = lim->tracer;
    if (lim->threads > 0) {
      memset(&threads, 0, sizeof threads);
      snprintf(threads.key, sizeof threads.key, "%s", PTE_XNNPACK_OPTION_NUM_THREADS);
      threads.type = PTE_BACKEND_OPTION_INT;
      threads.value.i = lim->threads;
      opts.backend_options = &bo;
      opts.n_backend_options = 1;
    }
  }
  return pte_host_method_load(mem, p, name, &opts, out, ms, err);
}

pte_status pte_cli_bind_outputs(pte_cli_memory *mem, pte_method *m, pte_error_info *err) {
  return pte_host_bind_outputs(mem, m, err);
}

/* ------------------------------------------------------------------ element access */
bool pte_cli_dtype_is_float(int dtype) {
  return dtype == PTE_DTYPE_FLOAT || dtype == PTE_DTYPE_DOUBLE || dtype == PTE_DTYPE_HALF || dtype == PTE_DTYPE_BFLOAT16;
}

bool pte_cli_dtype_is_complex(int dtype) {
  return dtype == PTE_DTYPE_COMPLEX_HALF || dtype == PTE_DTYPE_COMPLEX_FLOAT || dtype == PTE_DTYPE_COMPLEX_DOUBLE;
}

double pte_cli_elem_double(int dtype, const void *data, size_t i) {
  const uint8_t *p = (const uint8_t *)data + i * pte_dtype_size(dtype);
  switch (dtype) {
    case PTE_DTYPE_BYTE: case PTE_DTYPE_QUINT8: case PTE_DTYPE_BITS8: return *p;
    case PTE_DTYPE_CHAR: case PTE_DTYPE_QINT8: { int8_t v; memcpy(&v, p, 1); return v; }
    case PTE_DTYPE_BOOL: return *p ? 1.0 : 0.0;
    case PTE_DTYPE_SHORT: { int16_t v; memcpy(&v, p, 2); return v; }
    case PTE_DTYPE_UINT16: case PTE_DTYPE_BITS16: { uint16_t v; memcpy(&v, p, 2); return v; }
    case PTE_DTYPE_INT: case PTE_DTYPE_QINT32: { int32_t v; memcpy(&v, p, 4); return v; }
    case PTE_DTYPE_UINT32: { uint32_t v; memcpy(&v, p, 4); return v; }
    case PTE_DTYPE_LONG: { int64_t v; memcpy(&v, p, 8); return (double)v; }
    case PTE_DTYPE_UINT64: { uint64_t v; memcpy(&v, p, 8); return (double)v; }
    case PTE_DTYPE_HALF: { uint16_t v; memcpy(&v, p, 2); return pte_npy_f16_to_f32(v); }
    case PTE_DTYPE_BFLOAT16: { uint16_t v; memcpy(&v, p, 2); return pte_npy_bf16_to_f32(v); }
    case PTE_DTYPE_FLOAT: { float v; memcpy(&v, p, 4); return v; }
    case PTE_DTYPE_DOUBLE: { double v; memcpy(&v, p, 8); return v; }
    default: return 0.0;
  }
}

void pte_cli_tensor_to_contiguous(const pte_tensor *t, void *dst) {
  if (!t->numel || !pte_dtype_size(t->dtype) || !t->data) return;
  pte_host_layout_to_contiguous(dst, t->data, t->sizes, t->dim_order, t->dim, pte_dtype_size(t->dtype));
}

void pte_cli_contiguous_to_layout(void *dst, const void *src, const int32_t *sizes, const uint8_t *dim_order,
                                  int32_t dim, size_t es) {
  pte_host_contiguous_to_layout(dst, src, sizes, dim_order, dim, es);
}

/* ------------------------------------------------------------------ external data */
size_t pte_cli_external_keys(const pte_program *p, const char *name, char *buf, size_t cap) {
  if (cap) buf[0] = 0;
  size_t fbsize;
  const uint8_t *fb = pte_program_flatbuffer(p, &fbsize);
  pte_fb_table root = pte_fb_root(fb, fbsize);
  pte_fb_vec plans = pte_et_Program_execution_plan(root);
  size_t count = 0, len = 0;
  for (uint32_t m = 0; m < plans.len; m++) {
    pte_fb_table plan = pte_fb_vec_table(plans, m);
    pte_fb_str pn = pte_et_ExecutionPlan_name(plan);
    if (!pn.ptr || strlen(name) != pn.len || memcmp(pn.ptr, name, pn.len) != 0) continue;
    pte_fb_vec values = pte_et_ExecutionPlan_values(plan);
    for (uint32_t i = 0; i < values.len; i++) {
      pte_fb_table ev = pte_fb_vec_table(values, i);
      if (pte_et_EValue_val_type(ev) != pte_et_KernelTypes_Tensor) continue;
      pte_fb_table t = pte_et_EValue_val(ev);
      pte_fb_table extra = pte_et_Tensor_extra_tensor_info(t);
      if (!pte_fb_table_present(extra) || pte_et_ExtraTensorInfo_location(extra) != pte_et_TensorDataLocation_EXTERNAL)
        continue;
      pte_fb_str k = pte_et_ExtraTensorInfo_fully_qualified_name(extra);
      count++;
      if (len < cap) {
        int w = snprintf(buf + len, cap - len, "%s%.*s", count > 1 ? ", " : "", (int)k.len, k.ptr ? k.ptr : "?");
        if (w > 0) len += (size_t)w;
        if (len >= cap) {
          len = cap;
          if (cap > 4) memcpy(buf + cap - 4, "...", 4);
        }
      }
    }
    break;
  }
  return count;
}

/* ------------------------------------------------------------------ registration */
bool pte_cli_op_available(const char *name) {
  /* a fallback kernel (or a primitive op: lookup consults them after the registry) */
  if (pte_kernel_lookup(name, "", NULL, 0)) return true;
  for (size_t i = 0; i < pte_num_registered_kernels(); i++) /* kernels for exact dtype keys only */
    if (!strcmp(pte_registered_kernel(i)->name, name)) return true;
  return false;
}

pte_status pte_cli_register_all(pte_error_info *err) { return pte_module_register_all(err); }
