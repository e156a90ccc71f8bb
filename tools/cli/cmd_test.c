/* pte test FILE.bpte — run every embedded test case of a bundled program, compare the outputs. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "jsonw.h"
#include "pte/bundled.h"
#include "pte/headers.h"
#include "pte/method.h"
#include "pte/program.h"
#include "runner.h"

static void help(FILE *f) {
  fprintf(f,
          "usage: pte test FILE.bpte [--method M] [--rtol X] [--atol X] [--loader mmap|file|buffer] [--json]\n"
          "                [--verbose] [--max-memory BYTES] [--verify full|minimal] [--max-instructions N]\n"
          "\n"
          "Runs every test case embedded in a bundled program (.bpte): for each test suite, loads its\n"
          "method (all kernel libraries + XNNPACK backend), sets the case's inputs, executes, and compares\n"
          "every output with the expected one. Prints one line per failing case, then 'N passed, N failed'.\n"
          "\n"
          "Floating-point outputs match when |actual - expected| <= atol + rtol * |expected| element-wise\n"
          "(NaN matches NaN); integer and bool outputs must be equal; dtypes and shapes must be equal.\n"
          "BP08 files carry no tolerance, so the defaults are upstream's: rtol 1e-5, atol 1e-8.\n"
          "\n"
          "  --method M       only the suite of method M\n"
          "  --rtol X         relative tolerance (default 1e-5)\n"
          "  --atol X         absolute tolerance (default 1e-8)\n"
          "  --loader KIND    mmap (default), file or buffer\n"
          "  --json           print one JSON object (passed, failed, per-case results)\n"
          "  -v, --verbose    also print a line for every passing case\n"
          PTE_CLI_LOAD_OPTIONS_HELP
          "  -h, --help       this help\n"
          "\n"
          "Exit status: 0 every case passed, 1 a case failed or the file could not be loaded, 2 bad\n"
          "command line.\n");
}

static int fail(const char *label, pte_status s, const char *msg) {
  fprintf(stderr, "pte test: %s: %s (0x%02x): %s\n", label, pte_status_name(s), (unsigned)s, msg && *msg ? msg : "failed");
  return PTE_EXIT_FAIL;
}

typedef struct test_opts {
  const char *path, *method;
  double rtol, atol;
  pte_cli_loader_kind loader;
  bool json, verbose;
  pte_cli_load_options limits;
} test_opts;

static int usage_error(const char *fmt, const char *arg) {
  fprintf(stderr, "pte test: ");
  fprintf(stderr, fmt, arg);
  fprintf(stderr, "\n");
  return PTE_EXIT_USAGE;
}

static int parse_args(int argc, char **argv, test_opts *o) {
  memset(o, 0, sizeof *o);
  o->rtol = PTE_BUNDLED_DEFAULT_RTOL;
  o->atol = PTE_BUNDLED_DEFAULT_ATOL;
  pte_cli_options_default(&o->limits);
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      help(stdout);
      return -1;
    } else if (!strcmp(a, "--json")) {
      o->json = true;
    } else if (pte_cli_is_load_option(a)) {
      if (i + 1 >= argc) return usage_error("%s needs a value", a);
      char why[256];
      if (pte_cli_options_parse(&o->limits, a, argv[++i], why, sizeof why) < 0) return usage_error("%s", why);
    } else if (!strcmp(a, "-v") || !strcmp(a, "--verbose")) {
      o->verbose = true;
    } else if (!strcmp(a, "--method") || !strcmp(a, "--rtol") || !strcmp(a, "--atol") || !strcmp(a, "--loader")) {
      if (i + 1 >= argc) return usage_error("%s needs a value", a);
      const char *v = argv[++i];
      if (!strcmp(a, "--method")) o->method = v;
      else if (!strcmp(a, "--loader")) {
        if (!pte_cli_parse_loader(v, &o->loader)) return usage_error("--loader must be mmap, file or buffer, not '%s'", v);
      } else {
        char *e;
        double d = strtod(v, &e);
        if (e == v || *e || !(d >= 0) || isinf(d)) return usage_error("tolerances must be non-negative numbers, not '%s'", v);
        if (!strcmp(a, "--rtol")) o->rtol = d;
        else o->atol = d;
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

/* ------------------------------------------------------------------ comparison */
static void index_text(const int32_t *sizes, int32_t dim, size_t flat, char *buf, size_t cap) {
  int32_t idx[PTE_MAX_RANK];
  for (int32_t d = dim - 1; d >= 0; d--) {
    size_t s = sizes[d] > 0 ? (size_t)sizes[d] : 1;
    idx[d] = (int32_t)(flat % s);
    flat /= s;
  }
  size_t n = (size_t)snprintf(buf, cap, "[");
  for (int32_t d = 0; d < dim && n < cap; d++) n += (size_t)snprintf(buf + n, cap - n, "%s%d", d ? ", " : "", idx[d]);
  if (n < cap) snprintf(buf + n, cap - n, "]");
}

static void sizes_text(const int32_t *sizes, int32_t dim, char *buf, size_t cap) {
  size_t n = (size_t)snprintf(buf, cap, "[");
  for (int32_t d = 0; d < dim && n < cap; d++) n += (size_t)snprintf(buf + n, cap - n, "%s%d", d ? ", " : "", sizes[d]);
  if (n < cap) snprintf(buf + n, cap - n, "]");
}

static bool close_enough(double a, double e, double rtol, double atol) {
  if (isnan(a) || isnan(e)) return isnan(a) && isnan(e);
  if (isinf(a) || isinf(e)) return a == e;
  return fabs(a - e) <= atol + rtol * fabs(e);
}

/* Compares actual output tensor t with expected value ev. Returns true on match, else writes why. */
static bool compare_tensor(const pte_tensor *t, const pte_bundled_value *ev, double rtol, double atol, char *why,
                           size_t cap) {
  if (t->dtype != ev->tensor.dtype) {
    snprintf(why, cap, "dtype %s, expected %s", pte_dtype_name(t->dtype), pte_dtype_name(ev->tensor.dtype));
    return false;
  }
  bool same_shape = t->dim == ev->tensor.dim;
  for (int32_t d = 0; same_shape && d < t->dim; d++) same_shape = t->sizes[d] == ev->tensor.sizes[d];
  if (!same_shape) {
    char a[256], b[256];
    sizes_text(t->sizes, t->dim, a, sizeof a);
    sizes_text(ev->tensor.sizes, ev->tensor.dim, b, sizeof b);
    snprintf(why, cap, "shape %s, expected %s", a, b);
    return false;
  }
  size_t es = pte_dtype_size(t->dtype), nbytes = t->numel * es;
  if (nbytes != ev->tensor.nbytes) {
    snprintf(why, cap, "%zu bytes, expected %zu", nbytes, ev->tensor.nbytes);
    return false;
  }
  if (!nbytes) return true;
  uint8_t *act = malloc(nbytes), *exp = malloc(nbytes);
  if (!act || !exp) {
    free(act);
    free(exp);
    snprintf(why, cap, "out of memory");
    return false;
  }
  pte_cli_tensor_to_contiguous(t, act);
  /* expected data is in its own dim order (contiguous when absent) */
  pte_tensor et;
  memset(&et, 0, sizeof et);
  et.data = (void *)ev->tensor.data;
  et.sizes = (int32_t *)ev->tensor.sizes;
  et.dim_order = ev->tensor.dim_order;
  et.dim = ev->tensor.dim;
  et.dtype = ev->tensor.dtype;
  et.numel = t->numel;
  pte_cli_tensor_to_contiguous(&et, exp);
  bool isf = pte_cli_dtype_is_float(t->dtype);
  size_t bad = 0, first = 0;
  double worst = 0;
  size_t worst_i = 0;
  for (size_t k = 0; k < t->numel; k++) {
    bool ok;
    if (isf) {
      double a = pte_cli_elem_double(t->dtype, act, k), e = pte_cli_elem_double(t->dtype, exp, k);
      ok = close_enough(a, e, rtol, atol);
      if (!ok && !isnan(a - e) && fabs(a - e) > worst) {
        worst = fabs(a - e);
        worst_i = k;
      }
    } else if (t->dtype == PTE_DTYPE_BOOL) {
      ok = (act[k] != 0) == (exp[k] != 0);
    } else {
      ok = memcmp(act + k * es, exp + k * es, es) == 0;
    }
    if (!ok && bad++ == 0) first = k;
  }
  if (bad) {
    size_t k = isf && worst > 0 ? worst_i : first;
    char idx[256];
    index_text(t->sizes, t->dim, k, idx, sizeof idx);
    double a = pte_cli_elem_double(t->dtype, act, k), e = pte_cli_elem_double(t->dtype, exp, k);
    if (isf)
      snprintf(why, cap, "%zu of %zu elements differ (largest at %s: got %.9g, expected %.9g, |diff| %.3g)", bad, t->numel, idx,
               a, e, fabs(a - e));
    else
      snprintf(why, cap, "%zu of %zu elements differ (first at %s: got %.17g, expected %.17g)", bad, t->numel, idx, a, e);
  }
  free(act);
  free(exp);
  return bad == 0;
}

static bool compare_output(const pte_evalue *v, const pte_bundled_value *ev, double rtol, double atol, char *why,
                           size_t cap) {
  static const char *const kinds[] = {"?", "Tensor", "Int", "Bool", "Double"};
  const char *ek = (unsigned)ev->kind <= 4 ? kinds[ev->kind] : "?";
  switch (ev->kind) {
    case PTE_BUNDLED_TENSOR:
      if (v->tag != PTE_TAG_TENSOR) break;
      return compare_tensor(v->u.tensor, ev, rtol, atol, why, cap);
    case PTE_BUNDLED_INT:
      if (v->tag != PTE_TAG_INT) break;
      if (v->u.i == ev->int_val) return true;
      snprintf(why, cap, "got %lld, expected %lld", (long long)v->u.i, (long long)ev->int_val);
      return false;
    case PTE_BUNDLED_BOOL:
      if (v->tag != PTE_TAG_BOOL) break;
      if (v->u.b == ev->bool_val) return true;
      snprintf(why, cap, "got %s, expected %s", v->u.b ? "true" : "false", ev->bool_val ? "true" : "false");
      return false;
    case PTE_BUNDLED_DOUBLE:
      if (v->tag != PTE_TAG_DOUBLE) break;
      if (close_enough(v->u.d, ev->double_val, rtol, atol)) return true;
      snprintf(why, cap, "got %.17g, expected %.17g", v->u.d, ev->double_val);
      return false;
    default: break;
  }
  snprintf(why, cap, "is a %s, expected a %s", pte_tag_name((int)v->tag), ek);
  return false;
}

/* Sets input k of the method from a bundled value. */
static pte_status set_case_input(pte_method *m, size_t k, const pte_bundled_value *bv, pte_error_info *err) {
  pte_evalue ev;
  memset(&ev, 0, sizeof ev);
  pte_tensor t;
  uint8_t order[PTE_MAX_RANK];
  switch (bv->kind) {
    case PTE_BUNDLED_TENSOR: {
      memset(&t, 0, sizeof t);
      for (int32_t d = 0; d < bv->tensor.dim && d < PTE_MAX_RANK; d++) order[d] = (uint8_t)d;
      t.data = (void *)bv->tensor.data;
      t.sizes = (int32_t *)bv->tensor.sizes;
      t.dim_order = bv->tensor.dim_order ? bv->tensor.dim_order : order;
      t.dim = bv->tensor.dim;
      t.dtype = bv->tensor.dtype;
      size_t es = pte_dtype_size(t.dtype);
      t.numel = es ? bv->tensor.nbytes / es : 0;
      t.capacity_bytes = bv->tensor.nbytes;
      ev.tag = PTE_TAG_TENSOR;
      ev.u.tensor = &t;
      break;
    }
    case PTE_BUNDLED_INT: ev.tag = PTE_TAG_INT; ev.u.i = bv->int_val; break;
    case PTE_BUNDLED_BOOL: ev.tag = PTE_TAG_BOOL; ev.u.b = bv->bool_val; break;
    case PTE_BUNDLED_DOUBLE: ev.tag = PTE_TAG_DOUBLE; ev.u.d = bv->double_val; break;
    default: return pte_error_set(err, PTE_ERR_INVALID_PROGRAM, "input %zu: unknown bundled value kind", k);
  }
  return pte_method_set_input(m, k, &ev, err);
}

/* ------------------------------------------------------------------ main */
typedef struct tally {
  size_t passed, failed;
} tally;

static void case_result(const test_opts *o, jsonw *w, const char *method, size_t ci, bool ok, const char *why, tally *t) {
  if (ok) t->passed++;
  else t->failed++;
  if (w) {
    jw_obj(w);
    jw_kuint(w, "case", ci);
    jw_kbool(w, "passed", ok);
    if (!ok) jw_kstr(w, "message", why);
    jw_obj_end(w);
  } else if (!ok) {
    printf("FAIL %s case %zu: %s\n", method, ci, why);
  } else if (o->verbose) {
    printf("ok   %s case %zu\n", method, ci);
  }
}

static void run_suite(const test_opts *o, jsonw *w, const pte_program *prog, const pte_bundled_suite *suite, tally *t) {
  pte_error_info err;
  memset(&err, 0, sizeof err);
  pte_cli_memory mem;
  memset(&mem, 0, sizeof mem);
  bool mem_ready = false;
  pte_method *m = NULL;
  char why[1024];
  pte_method_meta meta;
  pte_status s = pte_method_meta_get(prog, suite->method_name, &meta, &err);
  if (s == PTE_OK) {
    s = pte_cli_memory_init(&mem, &meta, &o->limits, &err);
    mem_ready = s == PTE_OK;
  }
  if (s == PTE_OK) s = pte_cli_method_load(&mem, prog, suite->method_name, NULL, &o->limits, &m, NULL, &err);
  if (s == PTE_OK) s = pte_cli_bind_outputs(&mem, m, &err);
  if (s != PTE_OK) {
    snprintf(why, sizeof why, "cannot load the method: %s (0x%02x): %s", pte_status_name(s), (unsigned)s, err.msg);
    for (size_t c = 0; c < suite->num_cases; c++) case_result(o, w, suite->method_name, c, false, why, t);
    goto out;
  }
  for (size_t c = 0; c < suite->num_cases; c++) {
    pte_bundled_case tc;
    bool ok = true;
    why[0] = 0;
    s = pte_bundled_get_case(suite, c, &tc);
    if (s != PTE_OK) {
      snprintf(why, sizeof why, "cannot read the case: %s", pte_status_name(s));
      ok = false;
    }
    if (ok && tc.num_inputs != pte_method_num_inputs(m)) {
      snprintf(why, sizeof why, "the case has %zu inputs, the method takes %zu", tc.num_inputs, pte_method_num_inputs(m));
      ok = false;
    }
    for (size_t k = 0; ok && k < tc.num_inputs; k++) {
      pte_bundled_value bv;
      s = pte_bundled_case_input(&tc, k, &bv);
      if (s == PTE_OK) s = set_case_input(m, k, &bv, &err);
      if (s != PTE_OK) {
        snprintf(why, sizeof why, "input %zu: %s (0x%02x): %s", k, pte_status_name(s), (unsigned)s, err.msg);
        ok = false;
      }
    }
    if (ok) {
      s = pte_method_execute(m, &err);
      if (s != PTE_OK) {
        snprintf(why, sizeof why, "execute: %s (0x%02x): %s", pte_status_name(s), (unsigned)s, err.msg);
        ok = false;
      }
    }
    if (ok && tc.num_expected_outputs > pte_method_num_outputs(m)) {
      snprintf(why, sizeof why, "%zu expected outputs, the method has %zu", tc.num_expected_outputs,
               pte_method_num_outputs(m));
      ok = false;
    }
    for (size_t k = 0; ok && k < tc.num_expected_outputs; k++) {
      pte_bundled_value ev;
      char detail[768];
      s = pte_bundled_case_expected_output(&tc, k, &ev);
      if (s != PTE_OK) {
        snprintf(why, sizeof why, "expected output %zu unreadable: %s", k, pte_status_name(s));
        ok = false;
      } else if (!compare_output(pte_method_get_output(m, k), &ev, o->rtol, o->atol, detail, sizeof detail)) {
        snprintf(why, sizeof why, "output %zu: %s", k, detail);
        ok = false;
      }
    }
    case_result(o, w, suite->method_name, c, ok, why, t);
  }
out:
  if (m) pte_method_destroy(m);
  if (mem_ready) pte_cli_memory_free(&mem);
}

static int run_test(int argc, char **argv) {
  test_opts o;
  int pr = parse_args(argc, argv, &o);
  if (pr < 0) return PTE_EXIT_OK;
  if (pr > 0) return pr;
  pte_error_info err;
  memset(&err, 0, sizeof err);
  pte_status s = pte_cli_register_all(&err);
  if (s != PTE_OK) return fail("registration", s, err.msg);

  pte_cli_source src;
  s = pte_cli_source_open(&src, o.path, o.loader, &err);
  if (s != PTE_OK) return fail(o.path, s, err.msg);
  const pte_data_loader *loader = pte_cli_source_loader(&src);
  uint8_t head[8] = {0};
  uint64_t fsize = 0;
  pte_data_loader_size(loader, &fsize);
  if (fsize >= 8) pte_data_loader_load_into(loader, 0, 8, NULL, head);
  if (pte_sniff_file_kind(head, fsize >= 8 ? 8 : (size_t)fsize) != PTE_FILE_BPTE) {
    pte_cli_source_close(&src);
    return fail(o.path, PTE_ERR_INVALID_PROGRAM, "not a bundled program (.bpte, identifier BP08): nothing to test");
  }
  pte_bundled_program bp;
  s = pte_bundled_program_load(loader, &bp, &err);
  if (s != PTE_OK) {
    pte_cli_source_close(&src);
    return fail(o.path, s, err.msg);
  }
  pte_program prog;
  s = pte_program_load(pte_bundled_program_loader(&bp), o.limits.verify, &prog, &err);
  if (s != PTE_OK) {
    pte_bundled_program_destroy(&bp);
    pte_cli_source_close(&src);
    return fail(o.path, s, err.msg);
  }
  jsonw w;
  jsonw *wp = NULL;
  if (o.json) {
    jw_init(&w, stdout);
    wp = &w;
    jw_obj(&w);
    jw_kstr(&w, "file", o.path);
    jw_key(&w, "rtol");
    jw_double(&w, o.rtol);
    jw_key(&w, "atol");
    jw_double(&w, o.atol);
    jw_key(&w, "suites");
    jw_arr(&w);
  }
  tally t = {0, 0};
  size_t n = pte_bundled_num_suites(&bp), ran = 0;
  for (size_t i = 0; i < n; i++) {
    pte_bundled_suite suite;
    if (pte_bundled_get_suite(&bp, i, &suite) != PTE_OK) continue;
    if (o.method && strcmp(o.method, suite.method_name) != 0) continue;
    ran++;
    if (wp) {
      jw_obj(wp);
      jw_kstr(wp, "method", suite.method_name);
      jw_key(wp, "cases");
      jw_arr(wp);
    }
    run_suite(&o, wp, &prog, &suite, &t);
    if (wp) {
      jw_arr_end(wp);
      jw_obj_end(wp);
    }
  }
  int rc = t.failed ? PTE_EXIT_FAIL : PTE_EXIT_OK;
  if (o.method && !ran) {
    if (wp) {
      jw_arr_end(wp);
      jw_obj_end(wp);
      jw_end(wp);
      wp = NULL;
      o.json = false;
    }
    char msg[512];
    snprintf(msg, sizeof msg, "no test suite for method '%s'", o.method);
    rc = fail(o.path, PTE_ERR_NOT_FOUND, msg);
  } else if (wp) {
    jw_arr_end(wp);
    jw_kbool(wp, "ok", t.failed == 0);
    jw_kuint(wp, "passed", t.passed);
    jw_kuint(wp, "failed", t.failed);
    jw_obj_end(wp);
    jw_end(wp);
  } else {
    printf("%zu passed, %zu failed\n", t.passed, t.failed);
  }
  pte_program_destroy(&prog);
  pte_bundled_program_destroy(&bp);
  pte_cli_source_close(&src);
  return rc;
}

const pte_cli_verb pte_cli_verb_test = {"test", "run the test cases embedded in a bundled program (.bpte)", run_test};
