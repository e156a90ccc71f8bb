/* pte run FILE — load a method, feed it inputs, execute it, show/save its outputs. */
#define _POSIX_C_SOURCE 200809L
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

static void help(FILE *f) {
  fprintf(f,
          "usage: pte run FILE [--method M] [--data F.ptd] [--input PATH|VALUE]... [--input-fill ones|zeros|random]\n"
          "               [--seed N] [--output-dir DIR] [--repeat N] [--loader mmap|file|buffer] [--json]\n"
          "               [--num-executions N] [--print-output none|summary|all] [--profile] [--etdump F]\n"
          "               [--max-memory BYTES] [--verify full|minimal] [--max-instructions N] [--threads N]\n"
          "\n"
          "Loads one method of a .pte (or of the program inside a .bpte) with every kernel library pte\n"
          "ships (portable, quantized_decomposed, cortex_m, custom, llm) and the XNNPACK backend, sets its\n"
          "inputs, executes it and prints a summary of every output (dtype, shape, first values,\n"
          "min/max/mean for floats).\n"
          "\n"
          "  --method M          method to run (default: 'forward', or the only/first method)\n"
          "  --data F.ptd        external tensor data the program refers to by name\n"
          "  --input X           the next input, in order (repeat the flag for each input):\n"
          "                        tensor inputs: a .npy file (numpy's format; C or Fortran order) or a\n"
          "                        raw binary file holding exactly the input's bytes (dtype and shape\n"
          "                        taken from the method, data in the method's dim order). A .npy may have\n"
          "                        a smaller shape for a dynamic-bound input; float32 .npy data is\n"
          "                        converted for a bfloat16 input.\n"
          "                        scalar inputs: a literal (2.0, 7, true); it must equal the traced value\n"
          "  --input-fill KIND   fill tensor inputs not given with --input: ones, zeros or random\n"
          "                      (floats uniform in [0,1), integers in [0,10), bools 0/1); scalar inputs\n"
          "                      not given take their traced value. Without any --input, tensors are\n"
          "                      filled with ones.\n"
          "  --seed N            seed for --input-fill random (default 0)\n"
          "  --output-dir DIR    write each output as DIR/<method>.output<i>.npy (bfloat16 is written as\n"
          "                      float32; scalar outputs as 0-d arrays)\n"
          "  --output-format F   npy (default) or bin: the raw bytes in C order (<method>.output<i>.bin;\n"
          "                      scalars as int64 / float64 / one byte for bool)\n"
          "  --repeat N          load and execute N times (fresh load each time); report medians\n"
          "  --num-executions N  execute N times after one load; reports the first execute and the\n"
          "                      median of the others (steady state) separately\n"
          "  --print-output K    none, summary (default: first values, min/max/mean) or all values\n"
          "  --profile           time every instruction: a table per operator / delegate (calls, total,\n"
          "                      mean, %% of execute); with --num-executions > 1 the first execute is\n"
          "                      left out (steady state)\n"
          "  --etdump FILE       write every timed scope of every execute of the last load as an ETDump\n"
          "                      (upstream's devtools format, identifier ED00; schema/etdump.fbs)\n"
          "  --loader KIND       how the program is read: mmap (default), file (pread), buffer (whole file\n"
          "                      read into memory first)\n"
          PTE_CLI_LOAD_OPTIONS_HELP
          "  --json              print one JSON object (load_ms, execute_ms, inputs, outputs); on failure\n"
          "                      one object with \"ok\": false, the status and the message\n"
          "  -h, --help          this help\n"
          "\n"
          "load_ms = opening the file + pte_program_load (program_load_ms) + pte_method_load\n"
          "(method_load_ms); execute_ms = pte_method_execute; delegate_inits = backend init() calls of\n"
          "one method load (a share_handle delegate called N times is initialised once). Exit status:\n"
          "0 ok, 1 failure (the message names the pte status), 2 bad command line.\n");
}

#define MAX_INPUTS 256
#define SHOW_VALUES 8
#define JSON_VALUES 64

typedef enum { FILL_NONE, FILL_ONES, FILL_ZEROS, FILL_RANDOM } fill_kind;

typedef struct run_opts {
  const char *path, *method, *data, *outdir;
  const char *inputs[MAX_INPUTS];
  int n_inputs;
  fill_kind fill;
  bool fill_explicit;
  uint64_t seed;
  int repeat;
  pte_cli_loader_kind loader;
  bool json;
  pte_cli_load_options limits;
  int num_executions;
  int print_output; /* 0 none, 1 summary, 2 all */
  bool profile;
  const char *etdump;
  bool raw_outputs; /* --output-format bin */
} run_opts;

typedef enum { IN_UNSET, IN_FILE, IN_FILL, IN_LITERAL, IN_TRACED } in_kind;

typedef struct run_input {
  in_kind kind;
  const char *text;
  uint32_t tag;
  bool raw;          /* IN_FILE: raw bytes rather than .npy */
  int dtype;
  int32_t dim;
  int32_t sizes[PTE_MAX_RANK];
  void *data;        /* in the method's layout */
  size_t nbytes;
  pte_evalue ev;     /* scalars */
} run_input;

static int fail(const char *label, pte_status s, const char *msg) {
  fprintf(stderr, "pte run: %s: %s (0x%02x): %s\n", label, pte_status_name(s), (unsigned)s, msg && *msg ? msg : "failed");
  return PTE_EXIT_FAIL;
}

static int cmp_d(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_d);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* ------------------------------------------------------------------ values */
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
static void elem_text(int dtype, const void *data, size_t i, char *buf, size_t cap) {
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

static void shape_text(int dtype, const int32_t *sizes, int32_t dim, char *buf, size_t cap) {
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

static void *alloc64(size_t n) {
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
    return fail(in->text, PTE_ERR_ACCESS_FAILED, msg);
  }
  char want[256];
  shape_text(info->dtype, info->sizes, info->dim, want, sizeof want);
  if (pte_npy_is_npy(bytes, size)) {
    pte_npy_array a;
    char err[256];
    if (pte_npy_parse(bytes, size, &a, err, sizeof err) != 0) {
      free(bytes);
      snprintf(msg, sizeof msg, "input %zu: %s", i, err);
      return fail(in->text, PTE_ERR_INVALID_ARGUMENT, msg);
    }
    free(bytes);
    in->dtype = a.dtype;
    in->dim = a.dim;
    memcpy(in->sizes, a.sizes, sizeof a.sizes);
    in->data = a.data;
    in->nbytes = a.nbytes;
    size_t numel = a.nbytes / (pte_dtype_size(a.dtype) ? pte_dtype_size(a.dtype) : 1);
    if (info->dtype == PTE_DTYPE_BFLOAT16 && a.dtype == PTE_DTYPE_FLOAT) {
      uint16_t *c = alloc64(numel * 2);
      if (!c) return fail(in->text, PTE_ERR_MEMORY_ALLOCATION_FAILED, "out of memory");
      for (size_t k = 0; k < numel; k++) c[k] = pte_npy_f32_to_bf16((float)pte_cli_elem_double(PTE_DTYPE_FLOAT, a.data, k));
      free(in->data);
      in->data = c;
      in->dtype = PTE_DTYPE_BFLOAT16;
      in->nbytes = numel * 2;
    }
    /* .npy data is C order: rearrange for a method that wants another dim order */
    if (in->dim == info->dim && in->dim > 1 && !pte_dim_order_is_contiguous(info->dim_order, info->dim) &&
        pte_dim_order_valid(info->dim_order, info->dim)) {
      void *l = alloc64(in->nbytes);
      if (!l) return fail(in->text, PTE_ERR_MEMORY_ALLOCATION_FAILED, "out of memory");
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
    return fail(in->text, PTE_ERR_INVALID_ARGUMENT, msg);
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
  in->data = alloc64(info->nbytes);
  if (!in->data) return fail(in->text, PTE_ERR_MEMORY_ALLOCATION_FAILED, "out of memory");
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
static int prepare_inputs(const run_opts *o, pte_method *m, run_input *ins, size_t n_in, bool *default_fill) {
  const pte_method_meta *meta = pte_method_get_meta(m);
  char msg[512];
  if ((size_t)o->n_inputs > n_in) {
    snprintf(msg, sizeof msg, "method '%s' takes %zu input%s, %d given", pte_method_name(m), n_in, n_in == 1 ? "" : "s",
             o->n_inputs);
    return fail(o->path, PTE_ERR_INVALID_ARGUMENT, msg);
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
      if (s != PTE_OK) return fail(o->path, s, "cannot describe a tensor input");
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
          return fail(o->path, PTE_ERR_INVALID_ARGUMENT, msg);
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

static pte_status set_inputs(pte_method *m, run_input *ins, size_t n_in, pte_error_info *err) {
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

/* ------------------------------------------------------------------ outputs */
static void sanitize(const char *in, char *out, size_t cap) {
  size_t n = 0;
  for (; *in && n + 1 < cap; in++)
    out[n++] = (char)(((*in >= 'a' && *in <= 'z') || (*in >= 'A' && *in <= 'Z') || (*in >= '0' && *in <= '9') || *in == '_' ||
                       *in == '-' || *in == '.')
                          ? *in
                          : '_');
  out[n] = 0;
}

typedef struct out_ctx {
  const run_opts *o;
  jsonw *w;
  const char *method;
  int write_errors;
} out_ctx;

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

static void report_tensor(out_ctx *c, size_t i, const pte_tensor *t) {
  size_t es = pte_dtype_size(t->dtype), nbytes = t->numel * es;
  void *data = alloc64(nbytes);
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
    shape_text(t->dtype, t->sizes, t->dim, shape, sizeof shape);
    printf("output %-3zu %s = [", i, shape);
    const size_t show = c->o->print_output == 2 ? t->numel : SHOW_VALUES;
    for (size_t k = 0; k < t->numel && k < show; k++) {
      char v[64];
      elem_text(t->dtype, data, k, v, sizeof v);
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

static void report_scalar(out_ctx *c, size_t i, const pte_evalue *v) {
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

static void report_inputs(out_ctx *c, const run_input *ins, size_t n_in, bool default_fill) {
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
      shape_text(in->dtype, in->sizes, in->dim, shape, sizeof shape);
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

/* ------------------------------------------------------------------ main */
static const char *fmt_ms(double ms, char buf[32]) {
  if (ms >= 1.0) snprintf(buf, 32, "%.3f ms", ms);
  else snprintf(buf, 32, "%.1f us", ms * 1e3);
  return buf;
}

static int usage_error(const char *fmt, const char *arg) {
  fprintf(stderr, "pte run: ");
  fprintf(stderr, fmt, arg);
  fprintf(stderr, "\n");
  return PTE_EXIT_USAGE;
}

static int parse_args(int argc, char **argv, run_opts *o) {
  memset(o, 0, sizeof *o);
  o->repeat = 1;
  o->num_executions = 1;
  o->print_output = 1;
  o->loader = PTE_CLI_LOADER_MMAP;
  pte_cli_options_default(&o->limits);
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    bool has_val = i + 1 < argc;
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      help(stdout);
      return -1;
    } else if (!strcmp(a, "--json")) {
      o->json = true;
    } else if (!strcmp(a, "--profile")) {
      o->profile = true;
    } else if (!strcmp(a, "--num-executions") || !strcmp(a, "--print-output") || !strcmp(a, "--etdump") ||
               !strcmp(a, "--output-format")) {
      if (!has_val) return usage_error("%s needs a value", a);
      const char *v = argv[++i];
      if (!strcmp(a, "--etdump")) {
        o->etdump = v;
      } else if (!strcmp(a, "--output-format")) {
        if (strcmp(v, "npy") != 0 && strcmp(v, "bin") != 0) return usage_error("--output-format must be npy or bin, not '%s'", v);
        o->raw_outputs = !strcmp(v, "bin");
      } else if (!strcmp(a, "--num-executions")) {
        char *e;
        long n = strtol(v, &e, 10);
        if (e == v || *e || n < 1 || n > 10000000) return usage_error("--num-executions needs a count from 1 to 10000000, not '%s'", v);
        o->num_executions = (int)n;
      } else if (!strcmp(v, "none") || !strcmp(v, "summary") || !strcmp(v, "all")) {
        o->print_output = !strcmp(v, "none") ? 0 : !strcmp(v, "summary") ? 1 : 2;
      } else {
        return usage_error("--print-output must be none, summary or all, not '%s'", v);
      }
    } else if (pte_cli_is_load_option(a)) {
      if (!has_val) return usage_error("%s needs a value", a);
      char why[256];
      if (pte_cli_options_parse(&o->limits, a, argv[++i], why, sizeof why) < 0) return usage_error("%s", why);
    } else if (!strcmp(a, "--method") || !strcmp(a, "--data") || !strcmp(a, "--input") || !strcmp(a, "--output-dir") ||
               !strcmp(a, "--repeat") || !strcmp(a, "--loader") || !strcmp(a, "--input-fill") || !strcmp(a, "--seed")) {
      if (!has_val) return usage_error("%s needs a value", a);
      const char *v = argv[++i];
      if (!strcmp(a, "--method")) o->method = v;
      else if (!strcmp(a, "--data")) o->data = v;
      else if (!strcmp(a, "--output-dir")) o->outdir = v;
      else if (!strcmp(a, "--input")) {
        if (o->n_inputs >= MAX_INPUTS) return usage_error("too many --input flags (%s)", v);
        o->inputs[o->n_inputs++] = v;
      } else if (!strcmp(a, "--repeat")) {
        char *e;
        long n = strtol(v, &e, 10);
        if (e == v || *e || n < 1 || n > 1000000) return usage_error("--repeat needs a count from 1 to 1000000, not '%s'", v);
        o->repeat = (int)n;
      } else if (!strcmp(a, "--seed")) {
        char *e;
        unsigned long long n = strtoull(v, &e, 10);
        if (e == v || *e) return usage_error("--seed needs a number, not '%s'", v);
        o->seed = n;
      } else if (!strcmp(a, "--loader")) {
        if (!pte_cli_parse_loader(v, &o->loader)) return usage_error("--loader must be mmap, file or buffer, not '%s'", v);
      } else {
        o->fill_explicit = true;
        if (!strcmp(v, "ones")) o->fill = FILL_ONES;
        else if (!strcmp(v, "zeros")) o->fill = FILL_ZEROS;
        else if (!strcmp(v, "random")) o->fill = FILL_RANDOM;
        else return usage_error("--input-fill must be ones, zeros or random, not '%s'", v);
      }
    } else if (a[0] == '-' && a[1]) {
      return usage_error("unknown option '%s'", a);
    } else if (!o->path) {
      o->path = a;
    } else {
      return usage_error("more than one FILE given ('%s')", a);
    }
  }
  if (!o->path) return usage_error("%s", "no FILE given");
  return 0;
}

/* Picks the method: --method, else 'forward', else the first. */
static int pick_method(const run_opts *o, const pte_program *p, const char **name) {
  size_t n = pte_program_num_methods(p), idx;
  if (o->method) {
    if (pte_program_find_method(p, o->method, &idx) == PTE_OK) {
      *name = pte_program_method_name(p, idx);
      return 0;
    }
    char msg[1024];
    size_t len = (size_t)snprintf(msg, sizeof msg, "no method '%s' (methods:", o->method);
    for (size_t i = 0; i < n && len < sizeof msg; i++)
      len += (size_t)snprintf(msg + len, sizeof msg - len, "%s %s", i ? "," : "", pte_program_method_name(p, i));
    if (len < sizeof msg) snprintf(msg + len, sizeof msg - len, ")");
    return fail(o->path, PTE_ERR_INVALID_ARGUMENT, msg);
  }
  if (n == 0) return fail(o->path, PTE_ERR_INVALID_PROGRAM, "the program has no methods");
  *name = pte_program_find_method(p, "forward", &idx) == PTE_OK ? pte_program_method_name(p, idx)
                                                                 : pte_program_method_name(p, 0);
  return 0;
}

static int run_run(int argc, char **argv) {
  run_opts o;
  int pr = parse_args(argc, argv, &o);
  if (pr < 0) return PTE_EXIT_OK;
  if (pr > 0) return pr;

  pte_error_info err;
  memset(&err, 0, sizeof err);
  pte_status s = pte_cli_register_all(&err);
  if (s == PTE_OK) s = pte_cli_backend_count_install(&err); /* delegate_inits */
  if (s != PTE_OK) return fail("registration", s, err.msg);
  uint64_t delegate_inits = 0;

  int rc = PTE_EXIT_OK;
  pte_cli_source data_src;
  memset(&data_src, 0, sizeof data_src);
  pte_ptd ptd;
  bool have_ptd = false;
  pte_cli_memory mem;
  memset(&mem, 0, sizeof mem);
  bool mem_ready = false;
  run_input *ins = NULL;
  size_t n_in = 0;
  bool default_fill = false;
  const char *method_name = NULL;
  char method_buf[512] = "";
  double *t_prog = calloc((size_t)o.repeat, sizeof(double));
  double *t_meth = calloc((size_t)o.repeat, sizeof(double));
  double *t_exec = calloc((size_t)o.repeat, sizeof(double));
  double *t_steady = calloc((size_t)o.num_executions, sizeof(double));
  pte_cli_profile prof;
  bool prof_ready = false;
  memset(&prof, 0, sizeof prof);
  if (!t_prog || !t_meth || !t_exec || !t_steady) {
    rc = fail(o.path, PTE_ERR_MEMORY_ALLOCATION_FAILED, "out of memory");
    goto done;
  }

  if (o.outdir && mkdir(o.outdir, 0777) != 0 && errno != EEXIST) {
    char msg[512];
    snprintf(msg, sizeof msg, "cannot create the output directory: %s", strerror(errno));
    rc = fail(o.outdir, PTE_ERR_ACCESS_FAILED, msg);
    goto done;
  }
  if (o.data) {
    s = pte_cli_source_open(&data_src, o.data, o.loader, &err);
    if (s == PTE_OK) s = pte_ptd_load(pte_cli_source_loader(&data_src), &ptd, &err);
    if (s != PTE_OK) {
      rc = fail(o.data, s, err.msg);
      goto done;
    }
    have_ptd = true;
  }
  const pte_named_data_map *ext = have_ptd ? pte_ptd_map(&ptd) : NULL;

  for (int r = 0; r < o.repeat && rc == PTE_EXIT_OK; r++) {
    pte_cli_source src;
    pte_bundled_program bp;
    pte_program prog;
    bool src_open = false, bp_open = false, prog_open = false;
    pte_method *m = NULL;
    bool last = r == o.repeat - 1;

    double t0 = pte_cli_now_ms();
    s = pte_cli_source_open(&src, o.path, o.loader, &err);
    if (s != PTE_OK) {
      rc = fail(o.path, s, err.msg);
      goto iter_done;
    }
    src_open = true;
    const pte_data_loader *loader = pte_cli_source_loader(&src);
    uint8_t head[8] = {0};
    uint64_t fsize = 0;
    pte_loader_size(loader, &fsize);
    if (fsize >= 8) pte_loader_load_into(loader, 0, 8, NULL, head);
    pte_file_kind kind = pte_sniff_file_kind(head, fsize >= 8 ? 8 : (size_t)fsize);
    if (kind == PTE_FILE_BPTE) {
      s = pte_bundled_program_load(loader, &bp, &err);
      if (s != PTE_OK) {
        rc = fail(o.path, s, err.msg);
        goto iter_done;
      }
      bp_open = true;
      loader = pte_bundled_program_loader(&bp);
    } else if (kind == PTE_FILE_PTD || kind == PTE_FILE_XNNPACK) {
      rc = fail(o.path, PTE_ERR_INVALID_PROGRAM,
                kind == PTE_FILE_PTD ? "this is a .ptd data file, not a program (pass it with --data)"
                                     : "this is an XNNPACK delegate blob, not a program");
      goto iter_done;
    }
    s = pte_program_load(loader, o.limits.verify, &prog, &err);
    if (s != PTE_OK) {
      rc = fail(o.path, s, err.msg);
      goto iter_done;
    }
    prog_open = true;
    t_prog[r] = pte_cli_now_ms() - t0;

    if (!method_name) {
      const char *nm = NULL;
      if (pick_method(&o, &prog, &nm)) {
        rc = PTE_EXIT_FAIL;
        goto iter_done;
      }
      snprintf(method_buf, sizeof method_buf, "%s", nm);
      method_name = method_buf;
    }
    if (!mem_ready) {
      pte_method_meta meta;
      s = pte_method_meta_get(&prog, method_name, &meta, &err);
      if (s == PTE_OK) s = pte_cli_memory_init(&mem, &meta, &o.limits, &err);
      if (s != PTE_OK) {
        rc = fail(o.path, s, err.msg);
        goto iter_done;
      }
      mem_ready = true;
    }
    if ((o.profile || o.etdump) && last) { /* the last load is profiled */
      s = pte_cli_profile_init(&prof, &prog, method_name);
      if (s != PTE_OK) {
        rc = fail(o.path, s, "cannot set up the profile");
        goto iter_done;
      }
      prof_ready = true;
      prof.record = o.etdump != NULL;
      o.limits.tracer = &prof.base;
    }
    uint64_t inits0 = pte_cli_backend_inits(), destroys0 = pte_cli_backend_destroys();
    s = pte_cli_method_load(&mem, &prog, method_name, ext, &o.limits, &m, &t_meth[r], &err);
    /* handles this load created (retried attempts destroyed theirs) */
    delegate_inits = (pte_cli_backend_inits() - inits0) - (pte_cli_backend_destroys() - destroys0);
    if (s != PTE_OK) {
      char keys[512];
      if (!ext && pte_cli_external_keys(&prog, method_name, keys, sizeof keys) > 0 &&
          (s == PTE_ERR_INVALID_STATE || s == PTE_ERR_INVALID_EXTERNAL_DATA || s == PTE_ERR_NOT_FOUND)) {
        char msg[1152]; /* method name (< 512) + keys (< 512) + text */
        snprintf(msg, sizeof msg, "method '%s' needs external data (%s) from a .ptd file: pass --data FILE.ptd",
                 method_name, keys);
        rc = fail(o.path, s, msg);
      } else {
        rc = fail(o.path, s, err.msg);
      }
      goto iter_done;
    }
    s = pte_cli_bind_outputs(&mem, m, &err);
    if (s != PTE_OK) {
      rc = fail(o.path, s, err.msg);
      goto iter_done;
    }
    if (!ins) {
      n_in = pte_method_num_inputs(m);
      ins = calloc(n_in ? n_in : 1, sizeof *ins);
      if (!ins) {
        rc = fail(o.path, PTE_ERR_MEMORY_ALLOCATION_FAILED, "out of memory");
        goto iter_done;
      }
      if (prepare_inputs(&o, m, ins, n_in, &default_fill)) {
        rc = PTE_EXIT_FAIL;
        goto iter_done;
      }
    }
    s = set_inputs(m, ins, n_in, &err);
    if (s != PTE_OK) {
      rc = fail(o.path, s, err.msg);
      goto iter_done;
    }
    for (int e = 0; e < o.num_executions; e++) {
      /* inputs again before every execute after the first: memory planning may reuse an input's
       * memory for intermediates once the input is dead */
      if (e > 0 && (s = set_inputs(m, ins, n_in, &err)) != PTE_OK) {
        rc = fail(o.path, s, err.msg);
        goto iter_done;
      }
      double t4 = pte_cli_now_ms();
      s = pte_method_execute(m, &err);
      double dt = pte_cli_now_ms() - t4;
      if (s != PTE_OK) {
        rc = fail(o.path, s, err.msg);
        goto iter_done;
      }
      if (e == 0) t_exec[r] = dt; /* the first execute after the load */
      else t_steady[e - 1] = dt;
      if (e == 0 && prof_ready && o.num_executions > 1) pte_cli_profile_reset(&prof); /* steady state */
    }

    if (last) {
      double tp = median(t_prog, o.repeat), tm = median(t_meth, o.repeat), te = median(t_exec, o.repeat);
      size_t n_out = pte_method_num_outputs(m);
      jsonw w;
      out_ctx c = {&o, NULL, method_name, 0};
      if (o.json) {
        jw_init(&w, stdout);
        c.w = &w;
        jw_obj(&w);
        jw_kstr(&w, "file", o.path);
        jw_kstr(&w, "method", method_name);
        jw_kstr(&w, "loader", pte_cli_loader_name(o.loader));
        jw_key(&w, "data");
        if (o.data) jw_str(&w, o.data);
        else jw_null(&w);
        jw_kint(&w, "repeat", o.repeat);
        jw_key(&w, "load_ms");
        jw_double(&w, tp + tm);
        jw_key(&w, "program_load_ms");
        jw_double(&w, tp);
        jw_key(&w, "method_load_ms");
        jw_double(&w, tm);
        jw_key(&w, "execute_ms");
        jw_double(&w, te);
        jw_kbool(&w, "median", o.repeat > 1);
        jw_kint(&w, "num_executions", o.num_executions);
        jw_key(&w, "steady_execute_ms");
        if (o.num_executions > 1) jw_double(&w, median(t_steady, o.num_executions - 1));
        else jw_null(&w);
        jw_kuint(&w, "delegate_inits", delegate_inits);
      } else {
        printf("method     %s (%zu input%s, %zu output%s) of %s\n", method_name, n_in, n_in == 1 ? "" : "s", n_out,
               n_out == 1 ? "" : "s", o.path);
        printf("loader     %s%s%s\n", pte_cli_loader_name(o.loader), o.data ? ", data " : "", o.data ? o.data : "");
      }
      report_inputs(&c, ins, n_in, default_fill);
      if (!o.json) {
        char a[32], b[32], cc[32], d[32], med[64] = "";
        if (o.repeat > 1) snprintf(med, sizeof med, "  (median of %d runs)", o.repeat);
        printf("load       %s (program %s + method %s)%s\n", fmt_ms(tp + tm, a), fmt_ms(tp, b), fmt_ms(tm, cc), med);
        if (o.num_executions > 1) {
          char st[32];
          printf("execute    first %s%s, steady state %s (median of %d executes)\n", fmt_ms(te, d), med,
                 fmt_ms(median(t_steady, o.num_executions - 1), st), o.num_executions - 1);
        } else {
          printf("execute    %s%s\n", fmt_ms(te, d), med);
        }
        if (delegate_inits) printf("delegates  %llu backend init() call%s\n", (unsigned long long)delegate_inits,
                                   delegate_inits == 1 ? "" : "s");
      } else {
        jw_key(&w, "outputs");
        jw_arr(&w);
      }
      for (size_t i = 0; i < n_out; i++) {
        const pte_evalue *v = pte_method_get_output(m, i);
        if (!v) continue;
        if (v->tag == PTE_TAG_TENSOR) report_tensor(&c, i, v->u.tensor);
        else report_scalar(&c, i, v);
      }
      if (o.etdump) {
        s = pte_cli_profile_write_etdump(&prof, method_name, o.etdump, &err);
        if (s != PTE_OK) {
          rc = fail(o.etdump, s, err.msg);
          if (o.json) o.json = false, c.w = NULL; /* the guard prints the error object */
          goto iter_done;
        }
      }
      if (o.json) {
        jw_arr_end(&w);
        if (prof_ready && o.profile) {
          jw_key(&w, "profile");
          pte_cli_profile_json(&prof, &w);
        }
        jw_obj_end(&w);
        jw_end(&w);
      } else if (prof_ready && o.profile) {
        pte_cli_profile_print(&prof, stdout);
      }
      if (c.write_errors) rc = PTE_EXIT_FAIL;
    }

  iter_done:
    if (m) pte_method_destroy(m);
    if (prog_open) pte_program_destroy(&prog);
    if (bp_open) pte_bundled_program_destroy(&bp);
    if (src_open) pte_cli_source_close(&src);
  }

done:
  for (size_t i = 0; ins && i < n_in; i++) free(ins[i].data);
  free(ins);
  if (mem_ready) pte_cli_memory_free(&mem);
  if (have_ptd) pte_ptd_destroy(&ptd);
  pte_cli_source_close(&data_src);
  free(t_prog);
  free(t_meth);
  free(t_exec);
  free(t_steady);
  if (prof_ready) pte_cli_profile_free(&prof);
  return rc;
}

const pte_cli_verb pte_cli_verb_run = {"run", "load a method, set its inputs, execute it, show/save outputs", run_run};
