#define _POSIX_C_SOURCE 200809L
/* run_outputs.c — `pte run` outputs: text and JSON reports of outputs and inputs, .npy / raw files. */
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

static void sanitize(const char *in, char *out, size_t cap) {
  size_t n = 0;
  for (; *in && n + 1 < cap; in++)
    out[n++] = (char)(((*in >= 'a' && *in <= 'z') || (*in >= 'A' && *in <= 'Z') || (*in >= '0' && *in <= '9') || *in == '_' ||
                       *in == '-' || *in == '.')
                          ? *in
                          : '_');
  out[n] = 0;
}

static bool out_path(out_ctx *c, size_t i, char *buf, size_t cap) {
  if (!c->o->outdir) return false;
  char m[256];
  sanitize(c->method, m, sizeof m);
  snprintf(buf, cap, "%s/%s.output%zu.%s", c->o->outdir, m, i, c->o->raw_outputs ? "bin" : "npy");
  return true;
}

/* .npy, or with --output-format bin the raw bytes (C order) */
static void save_npy(out_ctx *c, const char *path, int dtype, const int32_t *sizes, int32_t dim, const void *data,
                     const char **saved) {
  char err[256];
  size_t numel = 1;
  for (int32_t d = 0; d < dim; d++) numel *= (size_t)sizes[d];
  int r = c->o->raw_outputs ? pte_cli_write_atomic(path, data, numel * pte_dtype_size(dtype), err, sizeof err)
                            : pte_npy_save(path, dtype, sizes, dim, data, err, sizeof err);
  if (r != 0) {
    fprintf(stderr, "pte run: %s: %s\n", path, err);
    c->write_errors++;
    return;
  }
  *saved = path;
}

void run_report_tensor(out_ctx *c, size_t i, const pte_tensor *t) {
  size_t es = pte_dtype_size(t->dtype), nbytes = t->numel * es;
  void *data = run_alloc64(nbytes);
  if (!data) {
    fprintf(stderr, "pte run: output %zu: out of memory\n", i);
    c->write_errors++;
    return;
  }
  pte_cli_tensor_to_contiguous(t, data);
  bool isf = pte_cli_dtype_is_float(t->dtype);
  double mn = INFINITY, mx = -INFINITY, sum = 0;
  size_t nan = 0;
  if (isf) {
    for (size_t k = 0; k < t->numel; k++) {
      double v = pte_cli_elem_double(t->dtype, data, k);
      if (isnan(v)) {
        nan++;
        continue;
      }
      if (v < mn) mn = v;
      if (v > mx) mx = v;
      sum += v;
    }
  }
  size_t finite_n = t->numel - nan;
  char path[4096];
  const char *saved = NULL;
  if (out_path(c, i, path, sizeof path)) {
    if (c->o->raw_outputs || pte_npy_descr(t->dtype)) save_npy(c, path, t->dtype, t->sizes, t->dim, data, &saved);
    else if (!c->w) printf("           (not saved: %s has no numpy dtype)\n", pte_dtype_name(t->dtype));
  }
  if (c->w) {
    jsonw *w = c->w;
    jw_obj(w);
    jw_kuint(w, "index", i);
    jw_kstr(w, "kind", "Tensor");
    jw_kstr(w, "dtype", pte_dtype_name(t->dtype));
    jw_key(w, "sizes");
    jw_arr(w);
    for (int32_t d = 0; d < t->dim; d++) jw_int(w, t->sizes[d]);
    jw_arr_end(w);
    jw_kuint(w, "numel", t->numel);
    const bool show = c->o->print_output == 2 || (c->o->print_output == 1 && t->numel <= JSON_VALUES);
    if (show && !pte_cli_dtype_is_complex(t->dtype)) {
      jw_key(w, "values");
      jw_arr(w);
      for (size_t k = 0; k < t->numel; k++) {
        if (isf) jw_double(w, pte_cli_elem_double(t->dtype, data, k));
        else if (t->dtype == PTE_DTYPE_BOOL) jw_bool(w, ((const uint8_t *)data)[k] != 0);
        else if (t->dtype == PTE_DTYPE_LONG) {
          int64_t v;
          memcpy(&v, (const uint8_t *)data + 8 * k, 8);
          jw_int(w, v);
        } else if (t->dtype == PTE_DTYPE_UINT64) {
          uint64_t v;
          memcpy(&v, (const uint8_t *)data + 8 * k, 8);
          jw_uint(w, v);
        } else jw_int(w, (int64_t)pte_cli_elem_double(t->dtype, data, k));
      }
      jw_arr_end(w);
    }
    if (isf && finite_n) {
      jw_key(w, "min");
      jw_double(w, mn);
      jw_key(w, "max");
      jw_double(w, mx);
      jw_key(w, "mean");
      jw_double(w, sum / (double)finite_n);
    }
    if (isf) jw_kuint(w, "nan_count", nan);
    jw_key(w, "file");
    if (saved) jw_str(w, saved);
    else jw_null(w);
    jw_obj_end(w);
  } else if (c->o->print_output) {
    char shape[256];
    run_shape_text(t->dtype, t->sizes, t->dim, shape, sizeof shape);
    printf("output %-3zu %s = [", i, shape);
    const size_t show = c->o->print_output == 2 ? t->numel : SHOW_VALUES;
    for (size_t k = 0; k < t->numel && k < show; k++) {
      char v[64];
      run_elem_text(t->dtype, data, k, v, sizeof v);
      printf("%s%s", k ? ", " : "", v);
    }
    printf("%s]", t->numel > show ? ", ..." : "");
    if (isf && finite_n) printf("  min %.7g  max %.7g  mean %.7g", mn, mx, sum / (double)finite_n);
    if (nan) printf("  (%zu NaN)", nan);
    if (saved) printf("  -> %s", saved);
    printf("\n");
  }
  free(data);
}

void run_report_scalar(out_ctx *c, size_t i, const pte_evalue *v) {
  char path[4096];
  const char *saved = NULL;
  int32_t none = 0;
  if (v->tag == PTE_TAG_INT || v->tag == PTE_TAG_DOUBLE || v->tag == PTE_TAG_BOOL) {
    if (out_path(c, i, path, sizeof path)) {
      if (v->tag == PTE_TAG_INT) save_npy(c, path, PTE_DTYPE_LONG, &none, 0, &v->u.i, &saved);
      else if (v->tag == PTE_TAG_DOUBLE) save_npy(c, path, PTE_DTYPE_DOUBLE, &none, 0, &v->u.d, &saved);
      else {
        uint8_t b = v->u.b;
        save_npy(c, path, PTE_DTYPE_BOOL, &none, 0, &b, &saved);
      }
    }
  }
  if (c->w) {
    jsonw *w = c->w;
    jw_obj(w);
    jw_kuint(w, "index", i);
    jw_kstr(w, "kind", pte_tag_name((int)v->tag));
    jw_key(w, "value");
    switch (v->tag) {
      case PTE_TAG_INT: jw_int(w, v->u.i); break;
      case PTE_TAG_DOUBLE: jw_double(w, v->u.d); break;
      case PTE_TAG_BOOL: jw_bool(w, v->u.b); break;
      case PTE_TAG_STRING: jw_strn(w, v->u.str.ptr ? v->u.str.ptr : "", v->u.str.len); break;
      default: jw_null(w); break;
    }
    jw_key(w, "file");
    if (saved) jw_str(w, saved);
    else jw_null(w);
    jw_obj_end(w);
  } else if (c->o->print_output) {
    printf("output %-3zu %s ", i, pte_tag_name((int)v->tag));
    switch (v->tag) {
      case PTE_TAG_INT: printf("%lld", (long long)v->u.i); break;
      case PTE_TAG_DOUBLE: printf("%.17g", v->u.d); break;
      case PTE_TAG_BOOL: printf("%s", v->u.b ? "true" : "false"); break;
      case PTE_TAG_STRING: printf("\"%.*s\"", (int)v->u.str.len, v->u.str.ptr ? v->u.str.ptr : ""); break;
      case PTE_TAG_NONE: break;
      default: printf("(not shown)"); break;
    }
    if (saved) printf("  -> %s", saved);
    printf("\n");
  }
}

void run_report_inputs(out_ctx *c, const run_input *ins, size_t n_in, bool default_fill) {
  if (c->w) {
    jsonw *w = c->w;
    jw_kbool(w, "default_fill", default_fill);
    jw_key(w, "inputs");
    jw_arr(w);
    for (size_t i = 0; i < n_in; i++) {
      const run_input *in = &ins[i];
      jw_obj(w);
      jw_kuint(w, "index", i);
      jw_kstr(w, "kind", pte_tag_name((int)in->tag));
      jw_key(w, "source");
      if (in->kind == IN_UNSET) jw_null(w);
      else jw_str(w, in->text);
      if (in->tag == PTE_TAG_TENSOR && in->kind != IN_UNSET) {
        jw_kstr(w, "dtype", pte_dtype_name(in->dtype));
        jw_key(w, "sizes");
        jw_arr(w);
        for (int32_t d = 0; d < in->dim; d++) jw_int(w, in->sizes[d]);
        jw_arr_end(w);
      } else if (in->kind != IN_UNSET) {
        jw_key(w, "value");
        switch (in->ev.tag) {
          case PTE_TAG_INT: jw_int(w, in->ev.u.i); break;
          case PTE_TAG_DOUBLE: jw_double(w, in->ev.u.d); break;
          case PTE_TAG_BOOL: jw_bool(w, in->ev.u.b); break;
          case PTE_TAG_STRING: jw_strn(w, in->ev.u.str.ptr ? in->ev.u.str.ptr : "", in->ev.u.str.len); break;
          default: jw_null(w); break;
        }
      }
      jw_obj_end(w);
    }
    jw_arr_end(w);
    return;
  }
  if (default_fill) printf("inputs     none given: tensor inputs filled with ones, scalars take their traced value\n");
  for (size_t i = 0; i < n_in; i++) {
    const run_input *in = &ins[i];
    printf("input %-4zu ", i);
    if (in->kind == IN_UNSET) {
      printf("%s (not set)\n", pte_tag_name((int)in->tag));
      continue;
    }
    if (in->tag == PTE_TAG_TENSOR) {
      char shape[256];
      run_shape_text(in->dtype, in->sizes, in->dim, shape, sizeof shape);
      if (in->kind == IN_FILE) printf("%s from %s%s\n", shape, in->text, in->raw ? " (raw)" : "");
      else printf("%s filled with %s\n", shape, in->text);
      continue;
    }
    printf("%s ", pte_tag_name((int)in->tag));
    switch (in->ev.tag) {
      case PTE_TAG_INT: printf("%lld", (long long)in->ev.u.i); break;
      case PTE_TAG_DOUBLE: printf("%.17g", in->ev.u.d); break;
      case PTE_TAG_BOOL: printf("%s", in->ev.u.b ? "true" : "false"); break;
      case PTE_TAG_STRING: printf("\"%.*s\"", (int)in->ev.u.str.len, in->ev.u.str.ptr ? in->ev.u.str.ptr : ""); break;
      default: break;
    }
    printf("%s\n", in->kind == IN_TRACED ? " (traced value)" : "");
  }
}

