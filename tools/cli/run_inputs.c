#define _POSIX_C_SOURCE 200809L
/* run_inputs.c — `pte run` inputs: files (.npy or raw), fills, literals, in the method's layout. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "jsonw.h"
#include "profile.h"
#include "npy.h"
#include "pte/bundled.h"
#include "pte/headers.h"
#include "pte/method.h"
#include "pte/program.h"
#include "pte/ptd.h"
#include "runner.h"
#include "backend_count.h"
#include "run_internal.h"

int run_fail(const char *label, pte_status s, const char *msg) {
  fprintf(stderr, "pte run: %s: %s (0x%02x): %s\n", label, pte_status_name(s), (unsigned)s, msg && *msg ? msg : "failed");
  return PTE_EXIT_FAIL;
}

static uint64_t rng_next(uint64_t *s) {
  uint64_t x = *s;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  *s = x;
  return x * 0x2545F4914F6CDD1Dull;
}

static void set_elem(int dtype, void *data, size_t i, double v) {
  uint8_t *p = (uint8_t *)data + i * pte_dtype_size(dtype);
  switch (dtype) {
    case PTE_DTYPE_BYTE: case PTE_DTYPE_QUINT8: { uint8_t x = (uint8_t)v; memcpy(p, &x, 1); break; }
    case PTE_DTYPE_CHAR: case PTE_DTYPE_QINT8: { int8_t x = (int8_t)v; memcpy(p, &x, 1); break; }
    case PTE_DTYPE_BOOL: *p = v != 0; break;
    case PTE_DTYPE_SHORT: { int16_t x = (int16_t)v; memcpy(p, &x, 2); break; }
    case PTE_DTYPE_UINT16: { uint16_t x = (uint16_t)v; memcpy(p, &x, 2); break; }
    case PTE_DTYPE_INT: case PTE_DTYPE_QINT32: { int32_t x = (int32_t)v; memcpy(p, &x, 4); break; }
    case PTE_DTYPE_UINT32: { uint32_t x = (uint32_t)v; memcpy(p, &x, 4); break; }
    case PTE_DTYPE_LONG: { int64_t x = (int64_t)v; memcpy(p, &x, 8); break; }
    case PTE_DTYPE_UINT64: { uint64_t x = (uint64_t)v; memcpy(p, &x, 8); break; }
    case PTE_DTYPE_HALF: { uint16_t x = pte_npy_f32_to_f16((float)v); memcpy(p, &x, 2); break; }
    case PTE_DTYPE_BFLOAT16: { uint16_t x = pte_npy_f32_to_bf16((float)v); memcpy(p, &x, 2); break; }
    case PTE_DTYPE_FLOAT: { float x = (float)v; memcpy(p, &x, 4); break; }
    case PTE_DTYPE_DOUBLE: memcpy(p, &v, 8); break;
    case PTE_DTYPE_COMPLEX_FLOAT: { float x[2] = {(float)v, 0}; memcpy(p, x, 8); break; }
    case PTE_DTYPE_COMPLEX_DOUBLE: { double x[2] = {v, 0}; memcpy(p, x, 16); break; }
    default: break; /* other dtypes stay zero */
  }
}

/* Element i as text (exact for integers). */
void run_elem_text(int dtype, const void *data, size_t i, char *buf, size_t cap) {
  const uint8_t *p = (const uint8_t *)data + i * pte_dtype_size(dtype);
  switch (dtype) {
    case PTE_DTYPE_LONG: { int64_t v; memcpy(&v, p, 8); snprintf(buf, cap, "%lld", (long long)v); return; }
    case PTE_DTYPE_UINT64: { uint64_t v; memcpy(&v, p, 8); snprintf(buf, cap, "%llu", (unsigned long long)v); return; }
    case PTE_DTYPE_BOOL: snprintf(buf, cap, "%s", *p ? "true" : "false"); return;
    case PTE_DTYPE_COMPLEX_FLOAT: { float v[2]; memcpy(v, p, 8); snprintf(buf, cap, "%g%+gj", v[0], v[1]); return; }
    case PTE_DTYPE_COMPLEX_DOUBLE: { double v[2]; memcpy(v, p, 16); snprintf(buf, cap, "%g%+gj", v[0], v[1]); return; }
    default: break;
  }
  double v = pte_cli_elem_double(dtype, data, i);
  if (pte_cli_dtype_is_float(dtype)) snprintf(buf, cap, "%.7g", v);
  else snprintf(buf, cap, "%.0f", v);
}

void run_shape_text(int dtype, const int32_t *sizes, int32_t dim, char *buf, size_t cap) {
  size_t n = (size_t)snprintf(buf, cap, "%s[", pte_dtype_name(dtype));
  for (int32_t i = 0; i < dim && n < cap; i++) n += (size_t)snprintf(buf + n, cap - n, "%s%d", i ? ", " : "", sizes[i]);
  if (n < cap) snprintf(buf + n, cap - n, "]");
}

static bool parse_literal(uint32_t tag, const char *s, pte_evalue *ev) {
  memset(ev, 0, sizeof *ev);
  ev->tag = tag;
  char *e;
  switch (tag) {
    case PTE_TAG_DOUBLE:
      errno = 0;
      ev->u.d = strtod(s, &e);
      return e != s && !*e;
    case PTE_TAG_INT: {
      errno = 0;
      long long v = strtoll(s, &e, 10);
      ev->u.i = v;
      return e != s && !*e && !errno;
    }
    case PTE_TAG_BOOL:
      if (!strcmp(s, "true") || !strcmp(s, "True") || !strcmp(s, "1")) ev->u.b = true;
      else if (!strcmp(s, "false") || !strcmp(s, "False") || !strcmp(s, "0")) ev->u.b = false;
      else return false;
      return true;
    case PTE_TAG_STRING:
      ev->u.str.ptr = s;
      ev->u.str.len = strlen(s);
      return true;
    case PTE_TAG_NONE: return !strcmp(s, "none") || !strcmp(s, "None");
    default: return false;
  }
}

void *run_alloc64(size_t n) {
  void *p = NULL;
  if (posix_memalign(&p, 64, n ? n : 1) != 0) return NULL;
  memset(p, 0, n ? n : 1);
  return p;
}

/* Reads a tensor input from a .npy or raw file. Returns 0, or prints the error and returns 1. */
static int load_tensor_input(run_input *in, size_t i, const pte_tensor_info *info) {
  size_t size = 0;
  uint8_t *bytes = pte_cli_read_file(in->text, &size);
  char msg[512];
  if (!bytes) {
    struct stat st;
    const bool dir = stat(in->text, &st) == 0 && S_ISDIR(st.st_mode);
    snprintf(msg, sizeof msg, "input %zu: cannot read: %s", i, dir ? "is a directory" : strerror(errno));
    return run_fail(in->text, PTE_ERR_ACCESS_FAILED, msg);
  }
  char want[256];
  run_shape_text(info->dtype, info->sizes, info->dim, want, sizeof want);
  if (pte_npy_is_npy(bytes, size)) {
    pte_npy_array a;
    char err[256];
    if (pte_npy_parse(bytes, size, &a, err, sizeof err) != 0) {
      free(bytes);
      snprintf(msg, sizeof msg, "input %zu: %s", i, err);
      return run_fail(in->text, PTE_ERR_INVALID_ARGUMENT, msg);
    }
    free(bytes);
    in->dtype = a.dtype;
    in->dim = a.dim;
    memcpy(in->sizes, a.sizes, sizeof a.sizes);
    in->data = a.data;
    in->nbytes = a.nbytes;
    size_t numel = a.nbytes / (pte_dtype_size(a.dtype) ? pte_dtype_size(a.dtype) : 1);
    if (info->dtype == PTE_DTYPE_BFLOAT16 && a.dtype == PTE_DTYPE_FLOAT) {
      uint16_t *c = run_alloc64(numel * 2);
      if (!c) return run_fail(in->text, PTE_ERR_MEMORY_ALLOCATION_FAILED, "out of memory");
      for (size_t k = 0; k < numel; k++) c[k] = pte_npy_f32_to_bf16((float)pte_cli_elem_double(PTE_DTYPE_FLOAT, a.data, k));
      free(in->data);
      in->data = c;
      in->dtype = PTE_DTYPE_BFLOAT16;
      in->nbytes = numel * 2;
    }
    /* .npy data is C order: rearrange for a method that wants another dim order */
    if (in->dim == info->dim && in->dim > 1 && !pte_dim_order_is_contiguous(info->dim_order, info->dim) &&
        pte_dim_order_valid(info->dim_order, info->dim)) {
      void *l = run_alloc64(in->nbytes);
      if (!l) return run_fail(in->text, PTE_ERR_MEMORY_ALLOCATION_FAILED, "out of memory");
      pte_cli_contiguous_to_layout(l, in->data, in->sizes, info->dim_order, in->dim, pte_dtype_size(in->dtype));
      free(in->data);
      in->data = l;
    }
    return 0;
  }
  in->raw = true;
  if (size != info->nbytes) {
    free(bytes);
    snprintf(msg, sizeof msg, "input %zu: raw file has %zu bytes, the method's %s input needs %zu", i, size, want,
             info->nbytes);
    return run_fail(in->text, PTE_ERR_INVALID_ARGUMENT, msg);
  }
  in->data = bytes;
  in->nbytes = size;
  in->dtype = info->dtype;
  in->dim = info->dim;
  memcpy(in->sizes, info->sizes, sizeof in->sizes);
  return 0;
}

static int fill_tensor_input(run_input *in, const pte_tensor_info *info, fill_kind fill, uint64_t *rng) {
  in->dtype = info->dtype;
  in->dim = info->dim;
  memcpy(in->sizes, info->sizes, sizeof in->sizes);
  in->nbytes = info->nbytes;
  in->data = run_alloc64(info->nbytes);
  if (!in->data) return run_fail(in->text, PTE_ERR_MEMORY_ALLOCATION_FAILED, "out of memory");
  size_t es = pte_dtype_size(info->dtype), numel = es ? info->nbytes / es : 0;
  for (size_t k = 0; k < numel; k++) {
    double v = 0;
    if (fill == FILL_ONES) v = 1;
    else if (fill == FILL_RANDOM) {
      uint64_t r = rng_next(rng);
      if (pte_cli_dtype_is_float(info->dtype) || pte_cli_dtype_is_complex(info->dtype)) v = (double)(r >> 11) * 0x1.0p-53;
      else if (info->dtype == PTE_DTYPE_BOOL) v = (double)(r >> 63);
      else v = (double)((r >> 32) % 10);
    }
    set_elem(info->dtype, in->data, k, v);
  }
  return 0;
}

static const char *fill_name(fill_kind f) {
  return f == FILL_ONES ? "ones" : f == FILL_ZEROS ? "zeros" : f == FILL_RANDOM ? "random" : "none";
}

/* Prepares inputs once the method is loaded (traced scalars come from the loaded method). */
int run_prepare_inputs(const run_opts *o, pte_method *m, run_input *ins, size_t n_in, bool *default_fill) {
  const pte_method_meta *meta = pte_method_get_meta(m);
  char msg[512];
  if ((size_t)o->n_inputs > n_in) {
    snprintf(msg, sizeof msg, "method '%s' takes %zu input%s, %d given", pte_method_name(m), n_in, n_in == 1 ? "" : "s",
             o->n_inputs);
    return run_fail(o->path, PTE_ERR_INVALID_ARGUMENT, msg);
  }
  fill_kind fill = o->fill_explicit ? o->fill : (o->n_inputs == 0 ? FILL_ONES : FILL_NONE);
  *default_fill = !o->fill_explicit && o->n_inputs == 0 && n_in > 0;
  uint64_t rng = o->seed * 0x9E3779B97F4A7C15ull + 0x2545F4914F6CDD1Dull;
  for (size_t i = 0; i < n_in; i++) {
    run_input *in = &ins[i];
    const pte_evalue *cur = pte_method_get_input(m, i);
    in->tag = cur ? cur->tag : PTE_TAG_NONE;
    pte_tensor_info info;
    memset(&info, 0, sizeof info);
    if (in->tag == PTE_TAG_TENSOR) {
      pte_status s = pte_method_meta_input_tensor_info(meta, i, &info);
      if (s != PTE_OK) return run_fail(o->path, s, "cannot describe a tensor input");
    }
    if ((int)i < o->n_inputs) {
      in->text = o->inputs[i];
      if (in->tag == PTE_TAG_TENSOR) {
        in->kind = IN_FILE;
        if (load_tensor_input(in, i, &info)) return 1;
      } else {
        in->kind = IN_LITERAL;
        if (!parse_literal(in->tag, in->text, &in->ev)) {
          snprintf(msg, sizeof msg, "input %zu is a %s: '%s' is not a valid literal for it", i, pte_tag_name((int)in->tag),
                   in->text);
          return run_fail(o->path, PTE_ERR_INVALID_ARGUMENT, msg);
        }
      }
    } else if (fill != FILL_NONE) {
      if (in->tag == PTE_TAG_TENSOR) {
        in->kind = IN_FILL;
        in->text = fill_name(fill);
        if (fill_tensor_input(in, &info, fill, &rng)) return 1;
      } else {
        in->kind = IN_TRACED;
        in->text = "traced";
        if (cur) in->ev = *cur;
      }
    }
  }
  return 0;
}

pte_status run_set_inputs(pte_method *m, run_input *ins, size_t n_in, pte_error_info *err) {
  for (size_t i = 0; i < n_in; i++) {
    run_input *in = &ins[i];
    pte_status s = PTE_OK;
    if (in->kind == IN_UNSET) continue;
    if (in->tag == PTE_TAG_TENSOR) s = pte_method_set_input_tensor(m, i, (pte_dtype)in->dtype, in->sizes, in->dim, in->data, in->nbytes, err);
    else s = pte_method_set_input(m, i, &in->ev, err);
    if (s != PTE_OK) return s;
  }
  return PTE_OK;
}

