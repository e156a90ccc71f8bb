/* tests/oracle/oracle_driver.c — runs oracle case tables (tests/oracle/README.md).
 *
 *   pte_oracle CASES...            every case of every file: build a single-operator program
 *                                  with the writer, load it, run it, compare with the table
 *   pte_oracle --kernels OPS.md    every operator name of upstream-ops.md must load as a
 *                                  program with the portable + quantized (+ always-on prim)
 *                                  kernels registered
 *   pte_oracle --mutate[=N] CASES...  every argument of every case (of the first N cases of
 *                                  each operator) replaced by a wrong value: each program must
 *                                  end with a status, never crash
 *
 * The expected values come from the table (numpy / hand formulas in tests/oracle/ops_*.py),
 * never from pte. Values are converted to and from memory with the oracle's own code
 * (oracle_parse.c, no kernel utility), so a conversion bug in the kernels cannot hide itself.
 */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pte/data_loader.h"
#include "pte/data_writer.h"
#include "pte/io.h"
#include "pte/llm_kernels.h"
#include "pte/method.h"
#include "pte/portable_kernels.h"
#include "pte/program.h"
#include "pte/quantized_kernels.h"
#include "pte/writer.h"

#include "oracle.h"

/* ---- building and running one case --------------------------------------------------------- */

typedef struct or_build {
  pte_writer *w;
  uint32_t m;
  pte_error_info err;
  bool ok;
} or_build;

static void or_split_op(const char *op, char *name, size_t nsz, char *overload, size_t osz) {
  const char *ns = strstr(op, "::");
  const char *dot = strchr(ns ? ns + 2 : op, '.');
  if (dot) {
    snprintf(name, nsz, "%.*s", (int)(dot - op), op);
    snprintf(overload, osz, "%s", dot + 1);
  } else {
    snprintf(name, nsz, "%s", op);
    overload[0] = 0;
  }
}

static bool g_or_dynamic_outs; /* --dynamic-outs */

/* Builds the program of case c into a malloc'd 64-aligned buffer. */
static uint8_t *or_build_program(or_case *c, size_t *size, char *why, size_t why_sz) {
  or_build b;
  memset(&b, 0, sizeof b);
  pte_writer_options wopt;
  memset(&wopt, 0, sizeof wopt);
  wopt.no_thread = true;       /* tiny programs: no writer thread, a small streaming buffer */
  wopt.buffer_size = 64 * 1024;
  b.ok = pte_writer_create(&wopt, &b.w, &b.err) == PTE_OK;
  if (b.ok) b.ok = pte_writer_add_method(b.w, "forward", &b.m, &b.err) == PTE_OK;
  int32_t inputs[OR_MAX_VALUES];
  size_t nin = 0;
  for (size_t i = 0; b.ok && i < c->nv; i++) {
    or_value *v = &c->v[i];
    switch (v->kind) {
      case OV_TENSOR: {
        pte_wr_tensor t;
        memset(&t, 0, sizeof t);
        t.dtype = v->dtype;
        t.dim = (size_t)v->dim;
        t.sizes = v->sizes;
        t.dim_order = v->order;
        if (v->role == OR_CONST) {
          pte_source src = pte_source_memory(v->bytes, (uint64_t)(v->numel * or_esize(v->dtype)));
          b.ok = pte_writer_add_constant_tensor(b.w, b.m, &t, &src, &v->wv, &b.err) == PTE_OK;
        } else {
          /* --dynamic-outs: every out tensor is DYNAMIC_BOUND with an upper bound 2 larger in
           * each dimension, so each kernel must resize its out (to the same rank) */
          static int32_t bound[OR_MAX_VALUES][PTE_MAX_RANK];
          if (g_or_dynamic_outs && v->role == OR_OUT && v->dim > 0) {
            for (int d = 0; d < v->dim; d++) bound[i][d] = v->sizes[d] + 2;
            t.sizes = bound[i];
            t.dynamism = PTE_SHAPE_DYNAMIC_BOUND;
          }
          t.plan = PTE_WR_PLAN_AUTO; /* upstream plans inputs and outputs */
          t.mem_id = 1;
          b.ok = pte_writer_add_tensor(b.w, b.m, &t, &v->wv, &b.err) == PTE_OK;
          if (v->role == OR_IN) inputs[nin++] = v->wv;
        }
        break;
      }
      case OV_INT: b.ok = pte_writer_add_int(b.w, b.m, v->i, &v->wv, &b.err) == PTE_OK; break;
      case OV_DOUBLE: b.ok = pte_writer_add_double(b.w, b.m, v->d, &v->wv, &b.err) == PTE_OK; break;
      case OV_BOOL: b.ok = pte_writer_add_bool(b.w, b.m, v->i != 0, &v->wv, &b.err) == PTE_OK; break;
      case OV_NONE: b.ok = pte_writer_add_null(b.w, b.m, &v->wv, &b.err) == PTE_OK; break;
      case OV_STRING:
        b.ok = pte_writer_add_string(b.w, b.m, v->str, strlen(v->str), &v->wv, &b.err) == PTE_OK;
        break;
      case OV_IL:
        b.ok = pte_writer_add_int_list_literal(b.w, b.m, v->ilist, v->n, &v->wv, &b.err) == PTE_OK;
        break;
      case OV_DL: b.ok = pte_writer_add_double_list(b.w, b.m, v->dlist, v->n, &v->wv, &b.err) == PTE_OK; break;
      case OV_BL: {
        bool items[OR_MAX_LIST];
        for (size_t j = 0; j < v->n; j++) items[j] = v->ilist[j] != 0;
        b.ok = pte_writer_add_bool_list(b.w, b.m, items, v->n, &v->wv, &b.err) == PTE_OK;
        break;
      }
      case OV_TL:
      case OV_OTL: {
        int32_t items[OR_MAX_LIST];
        for (size_t j = 0; j < v->n; j++) items[j] = v->refs[j] < 0 ? -1 : c->v[v->refs[j]].wv;
        if (v->kind == OV_TL)
          b.ok = pte_writer_add_tensor_list(b.w, b.m, items, v->n, &v->wv, &b.err) == PTE_OK;
        else
          b.ok = pte_writer_add_optional_tensor_list(b.w, b.m, items, v->n, &v->wv, &b.err) == PTE_OK;
        break;
      }
    }
  }
  int32_t outs[OR_MAX_WANT], args[OR_MAX_VALUES];
  for (size_t i = 0; i < c->nrets; i++) outs[i] = c->v[c->rets[i]].wv;
  for (size_t i = 0; i < c->nargs; i++) args[i] = c->v[c->args[i]].wv;
  uint32_t chain = 0, op = 0;
  char name[128], overload[96];
  or_split_op(c->op, name, sizeof name, overload, sizeof overload);
  if (b.ok) b.ok = pte_writer_set_inputs(b.w, b.m, inputs, nin, &b.err) == PTE_OK;
  if (b.ok) b.ok = pte_writer_set_outputs(b.w, b.m, outs, c->nrets, &b.err) == PTE_OK;
  if (b.ok) b.ok = pte_writer_add_chain(b.w, b.m, inputs, nin, outs, c->nrets, &chain, &b.err) == PTE_OK;
  if (b.ok) b.ok = pte_writer_add_operator(b.w, b.m, name, overload, &op, &b.err) == PTE_OK;
  if (b.ok) b.ok = pte_writer_add_kernel_call(b.w, b.m, chain, op, args, c->nargs, NULL, &b.err) == PTE_OK;
  uint8_t *bytes = NULL;
  if (b.ok) {
    pte_memory_writer mw;
    b.ok = pte_memory_writer_init(&mw, pte_heap_realloc, NULL, 0) == PTE_OK;
    if (b.ok) {
      b.ok = pte_writer_write(b.w, &mw.base, &b.err) == PTE_OK;
      if (b.ok) {
        const uint8_t *d = pte_memory_writer_data(&mw, size);
        bytes = (uint8_t *)aligned_alloc(64, (*size + 63) / 64 * 64);
        if (bytes) memcpy(bytes, d, *size);
      }
      pte_data_writer_destroy(&mw.base);
    }
  }
  if (!b.ok) snprintf(why, why_sz, "writer: %s", b.err.msg);
  pte_writer_destroy(b.w);
  return bytes;
}

static const char *g_file;
static bool g_mutating;          /* --mutate: run only, never compare or print */
static pte_status g_last_status; /* status of the last run (first failing stage) */

static void or_fail(const or_case *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void or_fail(const or_case *c, const char *fmt, ...) {
  if (g_mutating) return;
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "FAIL %s [%s] (%s:%d): ", c->op, c->id, g_file, c->line);
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, "\n");
  va_end(ap);
}

static bool or_close(double got, double want, int dtype, const or_case *c) {
  if (isnan(want) || isnan(got)) return isnan(want) && isnan(got);
  if (isinf(want) || isinf(got)) return got == want;
  double rtol, atol;
  if (c->has_tol) {
    rtol = c->rtol;
    atol = c->atol;
  } else if (dtype == PTE_DTYPE_DOUBLE) {
    rtol = 1e-10;
    atol = 1e-12;
  } else if (dtype == PTE_DTYPE_HALF) {
    rtol = 1e-3;
    atol = 1e-3;
  } else if (dtype == PTE_DTYPE_BFLOAT16) {
    rtol = 8e-3;
    atol = 8e-3;
  } else {
    rtol = 1e-5;
    atol = 1e-6;
  }
  const double diff = fabs(got - want);
  return diff <= atol || diff <= rtol * fabs(want);
}

static bool or_check_output(const or_case *c, size_t k, const pte_evalue *ev) {
  const or_want *w = &c->want[k];
  if (!ev) {
    or_fail(c, "output %zu missing", k);
    return false;
  }
  if (w->kind != OV_TENSOR) {
    if (w->kind == OV_INT) {
      if (ev->tag != PTE_TAG_INT || ev->u.i != w->i) {
        or_fail(c, "output %zu: got tag %s value %" PRId64 ", want Int %" PRId64, k, pte_tag_name((int)ev->tag),
                ev->tag == PTE_TAG_INT ? ev->u.i : 0, w->i);
        return false;
      }
    } else if (w->kind == OV_BOOL) {
      if (ev->tag != PTE_TAG_BOOL || (ev->u.b ? 1 : 0) != w->i) {
        or_fail(c, "output %zu: got tag %s, want Bool %d", k, pte_tag_name((int)ev->tag), (int)w->i);
        return false;
      }
    } else {
      if (ev->tag != PTE_TAG_DOUBLE || !or_close(ev->u.d, w->d, PTE_DTYPE_DOUBLE, c)) {
        or_fail(c, "output %zu: got tag %s value %.17g, want Double %.17g", k, pte_tag_name((int)ev->tag),
                ev->tag == PTE_TAG_DOUBLE ? ev->u.d : 0.0, w->d);
        return false;
      }
    }
    return true;
  }
  if (ev->tag != PTE_TAG_TENSOR || !ev->u.tensor) {
    or_fail(c, "output %zu: got tag %s, want a tensor", k, pte_tag_name((int)ev->tag));
    return false;
  }
  const pte_tensor *t = ev->u.tensor;
  if (t->dtype != w->dtype) {
    or_fail(c, "output %zu: dtype %s, want %s", k, pte_dtype_name(t->dtype), pte_dtype_name(w->dtype));
    return false;
  }
  bool shape_ok = t->dim == w->dim;
  for (int32_t d = 0; shape_ok && d < w->dim; d++) shape_ok = t->sizes[d] == w->sizes[d];
  if (!shape_ok) {
    char g[128] = "", e[128] = "";
    size_t gl = 0, el = 0;
    for (int32_t d = 0; d < t->dim && gl < 100; d++) gl += (size_t)snprintf(g + gl, sizeof g - gl, "%s%d", d ? "," : "", t->sizes[d]);
    for (int32_t d = 0; d < w->dim && el < 100; d++) el += (size_t)snprintf(e + el, sizeof e - el, "%s%d", d ? "," : "", w->sizes[d]);
    or_fail(c, "output %zu: shape [%s], want [%s]", k, g, e);
    return false;
  }
  if (w->numel && !t->data) {
    or_fail(c, "output %zu: no data", k);
    return false;
  }
  if (w->check == 'X') return true;
  if (w->check == 'R') {
    for (size_t li = 0; li < w->numel; li++) {
      const size_t off = or_offset(t->sizes, t->strides, t->dim, li);
      const double g = or_is_float(w->dtype) ? or_load_d(t->data, off, t->dtype) : (double)or_load_i(t->data, off, t->dtype);
      if (!(g >= w->lo && g < w->hi)) {
        or_fail(c, "output %zu: element %zu = %.9g outside [%g, %g)", k, li, g, w->lo, w->hi);
        return false;
      }
    }
    return true;
  }
  size_t bad = 0, first = 0;
  for (size_t li = 0; li < w->numel; li++) {
    const size_t off = or_offset(t->sizes, t->strides, t->dim, li);
    bool same;
    if (or_is_float(w->dtype)) same = or_close(or_load_d(t->data, off, t->dtype), w->dv[li], w->dtype, c);
    else same = or_load_i(t->data, off, t->dtype) == w->iv[li];
    if (!same && bad++ == 0) first = li;
  }
  if (bad) {
    const size_t off = or_offset(t->sizes, t->strides, t->dim, first);
    if (or_is_float(w->dtype))
      or_fail(c, "output %zu: %zu of %zu elements differ; first at index %zu: got %.9g, want %.9g", k, bad,
              w->numel, first, or_load_d(t->data, off, t->dtype), w->dv[first]);
    else
      or_fail(c, "output %zu: %zu of %zu elements differ; first at index %zu: got %" PRId64 ", want %" PRId64, k,
              bad, w->numel, first, or_load_i(t->data, off, t->dtype), w->iv[first]);
    return false;
  }
  return true;
}

/* Runs case c; returns true when it behaves as the table says. */
static bool or_run_case(or_case *c) {
  char why[320] = "";
  size_t size = 0;
  uint8_t *bytes = or_build_program(c, &size, why, sizeof why);
  if (!bytes) {
    or_fail(c, "could not build the program: %s", why);
    g_last_status = PTE_ERR_INVALID_PROGRAM;
    return false;
  }
  bool pass = false;
  pte_error_info err;
  memset(&err, 0, sizeof err);
  pte_buffer_loader bl;
  pte_buffer_loader_init(&bl, bytes, size);
  pte_program prog;
  pte_method *m = NULL;
  uint8_t *arena = NULL, *pool = NULL, *temp = NULL;
  pte_status st = pte_program_load(&bl.base, PTE_VERIFY_INTERNAL_CONSISTENCY, &prog, &err);
  const char *stage = "program load";
  if (st != PTE_OK) {
    or_fail(c, "program load: %s: %s", pte_status_name(st), err.msg);
    g_last_status = st;
    free(bytes);
    return false;
  }
  pte_method_meta meta;
  st = pte_method_meta_get(&prog, "forward", &meta, &err);
  uint64_t arena_size = 0;
  if (st == PTE_OK && pte_method_meta_num_planned_buffers(&meta) > 0)
    st = pte_method_meta_planned_buffer_size(&meta, 0, &arena_size);
  if (st == PTE_OK) {
    /* method and temp memory are reused from case to case (allocated once) */
    static uint8_t *s_pool, *s_temp;
    const size_t pool_size = (size_t)1 << 20, temp_size = (size_t)4 << 20;
    if (!s_pool) s_pool = (uint8_t *)malloc(pool_size);
    if (!s_temp) s_temp = (uint8_t *)malloc(temp_size);
    pool = s_pool;
    temp = s_temp;
    arena = (uint8_t *)aligned_alloc(64, ((size_t)arena_size + 64) / 64 * 64 + 64);
    if (!pool || !temp || !arena) {
      or_fail(c, "out of memory");
      g_last_status = PTE_ERR_MEMORY_ALLOCATION_FAILED;
      free(arena);
      pte_program_destroy(&prog);
      free(bytes);
      return false;
    }
    pte_allocator ma, ta;
    pte_allocator_init(&ma, pool, pool_size);
    pte_allocator_init(&ta, temp, temp_size);
    pte_planned_buffer pb = {arena, (size_t)arena_size};
    pte_memory_manager mm;
    pte_memory_manager_init(&mm, &ma, &pb, pte_method_meta_num_planned_buffers(&meta) > 0 ? 1 : 0, &ta);
    stage = "method load";
    st = pte_method_load(&prog, "forward", &mm, NULL, NULL, &m, &err);
    size_t in_idx = 0;
    for (size_t i = 0; st == PTE_OK && i < c->nv; i++) {
      or_value *v = &c->v[i];
      if (v->kind != OV_TENSOR || v->role != OR_IN) continue;
      stage = "set_input";
      st = pte_method_set_input_tensor(m, in_idx++, (pte_dtype)v->dtype, v->sizes, v->dim, v->bytes,
                                       v->numel * or_esize(v->dtype), &err);
    }
    if (st == PTE_OK) {
      stage = "execute";
      st = pte_method_execute(m, &err);
    }
  }
  g_last_status = st;
  if (g_mutating) {
    pass = true;
  } else if (c->expect_error) {
    if (st == PTE_OK) {
      or_fail(c, "expected an error (%s, \"%s\"), got Ok", c->err_status, c->err_sub);
    } else if (st == PTE_ERR_OPERATOR_MISSING && strcmp(c->err_status, "OperatorMissing") != 0) {
      /* a missing kernel is never the expected rejection of a bad argument */
      or_fail(c, "%s: %s: %s", stage, pte_status_name(st), err.msg);
    } else if (strcmp(c->err_status, "any") != 0 && strcmp(c->err_status, pte_status_name(st)) != 0) {
      or_fail(c, "%s: status %s (%s), expected %s", stage, pte_status_name(st), err.msg, c->err_status);
    } else if (c->err_sub[0] && !strstr(err.msg, c->err_sub)) {
      or_fail(c, "%s: message \"%s\" lacks \"%s\"", stage, err.msg, c->err_sub);
    } else if (!strstr(err.msg, c->op)) {
      or_fail(c, "%s: message \"%s\" does not name the operator", stage, err.msg);
    } else {
      pass = true;
    }
  } else if (st != PTE_OK) {
    or_fail(c, "%s: %s: %s", stage, pte_status_name(st), err.msg);
  } else if (pte_method_num_outputs(m) != c->nwant) {
    or_fail(c, "method has %zu outputs, table %zu", pte_method_num_outputs(m), c->nwant);
  } else {
    pass = true;
    for (size_t k = 0; k < c->nwant; k++) pass = or_check_output(c, k, pte_method_get_output(m, k)) && pass;
  }
  pte_method_destroy(m);
  pte_program_destroy(&prog);
  free(arena);
  free(bytes);
  return pass;
}

/* ---- bad-argument sweep (--mutate) --------------------------------------------------------- */

/* Every argument of every case replaced in turn by a value of the wrong kind, shape or dtype
 * (None, Ints including negative and huge, a Double, a Bool, lists, 0-d / empty / bool / int64
 * tensors): each program must load and run to a status, never crash (run it in the ASan build to
 * also catch memory errors). */
enum { MS_NONE, MS_INT7, MS_INTNEG, MS_INTHUGE, MS_DOUBLE, MS_BOOL, MS_INTLIST, MS_TLIST, MS_T0D_F32, MS_T1D_I64,
       MS_TEMPTY, MS_TBOOL2D, MS_OTHER_DTYPE, MS_EXTRA_DIM, MS_COUNT };

static size_t g_mut_runs, g_mut_ok, g_mut_refused;

/* kind MS_OTHER_DTYPE / MS_EXTRA_DIM derive from the replaced tensor `orig`: the same shape with
 * another dtype (int8 for floats, float32 otherwise), or the same dtype with a trailing dim 2. */
static bool or_add_substitute(or_case *m, int kind, const or_value *orig) {
  if (m->nv >= OR_MAX_VALUES) return false;
  if ((kind == MS_OTHER_DTYPE || kind == MS_EXTRA_DIM) && (orig->kind != OV_TENSOR || orig->dim >= 16)) return false;
  or_value *v = &m->v[m->nv];
  memset(v, 0, sizeof *v);
  snprintf(v->name, sizeof v->name, "@sub");
  switch (kind) {
    case MS_NONE: v->kind = OV_NONE; break;
    case MS_INT7: v->kind = OV_INT; v->i = 7; break;
    case MS_INTNEG: v->kind = OV_INT; v->i = -5; break;
    case MS_INTHUGE: v->kind = OV_INT; v->i = (int64_t)1 << 40; break;
    case MS_DOUBLE: v->kind = OV_DOUBLE; v->d = 0.5; break;
    case MS_BOOL: v->kind = OV_BOOL; v->i = 1; break;
    case MS_INTLIST: v->kind = OV_IL; v->n = 2; v->ilist[0] = 1; v->ilist[1] = -1; break;
    case MS_TLIST: {
      v->kind = OV_TL;
      for (size_t j = 0; j < m->nv && v->n < 2; j++)
        if (m->v[j].kind == OV_TENSOR) v->refs[v->n++] = (int)j;
      break;
    }
    default: {
      static const int64_t k_i64[3] = {0, 5, -7};
      static const float k_f = 1.5f;
      static const uint8_t k_b[6] = {1, 0, 1, 1, 0, 0};
      v->kind = OV_TENSOR;
      v->role = OR_IN;
      const void *src = NULL;
      if (kind == MS_T0D_F32) { v->dtype = PTE_DTYPE_FLOAT; v->dim = 0; src = &k_f; }
      else if (kind == MS_T1D_I64) { v->dtype = PTE_DTYPE_LONG; v->dim = 1; v->sizes[0] = 3; src = k_i64; }
      else if (kind == MS_TEMPTY) { v->dtype = PTE_DTYPE_FLOAT; v->dim = 1; v->sizes[0] = 0; }
      else if (kind == MS_TBOOL2D) { v->dtype = PTE_DTYPE_BOOL; v->dim = 2; v->sizes[0] = 2; v->sizes[1] = 3; src = k_b; }
      else {
        v->dtype = kind == MS_EXTRA_DIM ? orig->dtype : (or_is_float(orig->dtype) ? PTE_DTYPE_CHAR : PTE_DTYPE_FLOAT);
        if (v->dtype == PTE_DTYPE_COMPLEX_FLOAT) v->dtype = PTE_DTYPE_FLOAT;
        v->dim = orig->dim;
        memcpy(v->sizes, orig->sizes, sizeof v->sizes);
        if (kind == MS_EXTRA_DIM) v->sizes[v->dim++] = 2;
      }
      v->numel = 1;
      for (int32_t d = 0; d < v->dim; d++) { v->numel *= (size_t)v->sizes[d]; v->order[d] = (uint8_t)d; }
      const size_t nb = v->numel * or_esize(v->dtype);
      v->bytes = calloc(1, nb ? nb : 1); /* zeros: also a zero divisor / index 0 */
      if (!v->bytes) return false;
      if (src && nb) memcpy(v->bytes, src, nb);
    }
  }
  m->nv++;
  return true;
}

static size_t g_mut_per_op = (size_t)-1; /* cases mutated per operator (--mutate=N) */

static void or_mutate(const or_case *c) {
  static or_case m;
  static char s_op[128];
  static size_t s_done;
  if (strcmp(s_op, c->op) != 0) {
    snprintf(s_op, sizeof s_op, "%s", c->op);
    s_done = 0;
  }
  if (s_done++ >= g_mut_per_op) return;
  for (size_t i = 0; i < c->nargs; i++) {
    for (int kind = 0; kind < MS_COUNT; kind++) {
      memcpy(&m, c, sizeof m); /* shares the value arrays with c: read-only while running */
      if (!or_add_substitute(&m, kind, &c->v[c->args[i]])) continue;
      m.args[i] = (int)(m.nv - 1);
      if (getenv("ORACLE_TRACE")) fprintf(stderr, "mutate %s [%s] arg %zu kind %d\n", c->op, c->id, i, kind);
      (void)or_run_case(&m);
      g_mut_runs++;
      if (g_last_status == PTE_OK) g_mut_ok++;
      else g_mut_refused++;
      free(m.v[m.nv - 1].bytes);
    }
  }
}

/* ---- reading a file ------------------------------------------------------------------------ */

static char *or_read_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *buf = (char *)malloc((size_t)(n > 0 ? n : 0) + 1);
  if (buf) {
    size_t got = fread(buf, 1, (size_t)(n > 0 ? n : 0), f);
    buf[got] = 0;
  }
  fclose(f);
  return buf;
}

static int or_run_file(const char *path, size_t *n_cases, size_t *n_fail) {
  char *text = or_read_file(path);
  if (!text) {
    fprintf(stderr, "cannot read %s\n", path);
    return 1;
  }
  g_file = path;
  static or_case c;
  memset(&c, 0, sizeof c);
  bool in_case = false;
  static or_parser p;
  memset(&p, 0, sizeof p);
  p.path = path;
  g_parse_ok = true;
  for (char *line = text, *nl; line && *line; line = nl) {
    nl = strchr(line, '\n');
    if (nl) *nl++ = 0;
    p.line++;
    char copy[256];
    snprintf(copy, sizeof copy, "%s", line);
    p.ntok = 0;
    p.pos = 0;
    char *s2 = NULL;
    for (char *t = strtok_r(line, " \t\r", &s2); t && p.ntok < 20000; t = strtok_r(NULL, " \t\r", &s2))
      p.tok[p.ntok++] = t;
    if (p.ntok == 0 || p.tok[0][0] == '#') continue;
    const char *cmd = or_next(&p);
    if (strcmp(cmd, "case") == 0) {
      if (in_case) or_perr(&p, "case without end");
      or_free_case(&c);
      memset(&c, 0, sizeof c);
      snprintf(c.op, sizeof c.op, "%s", or_next(&p));
      snprintf(c.id, sizeof c.id, "%s", or_next(&p));
      c.line = p.line;
      in_case = true;
    } else if (!in_case) {
      or_perr(&p, "statement outside a case");
    } else if (strcmp(cmd, "tol") == 0) {
      c.rtol = or_next_d(&p);
      c.atol = or_next_d(&p);
      c.has_tol = true;
    } else if (strcmp(cmd, "v") == 0) {
      or_parse_value(&p, &c);
    } else if (strcmp(cmd, "args") == 0 || strcmp(cmd, "ret") == 0) {
      const bool is_args = cmd[0] == 'a';
      while (p.pos < p.ntok) {
        int idx = or_find(&c, or_next(&p));
        if (idx < 0) or_perr(&p, "unknown value");
        if (is_args && c.nargs < OR_MAX_VALUES) c.args[c.nargs++] = idx < 0 ? 0 : idx;
        else if (!is_args && c.nrets < OR_MAX_WANT) c.rets[c.nrets++] = idx < 0 ? 0 : idx;
        else or_perr(&p, "too many args / rets");
      }
    } else if (strcmp(cmd, "want") == 0) {
      or_parse_want(&p, &c);
    } else if (strcmp(cmd, "error") == 0) {
      c.expect_error = true;
      snprintf(c.err_status, sizeof c.err_status, "%s", or_next(&p));
      /* the rest of the original line (may contain spaces) */
      const char *r = strstr(copy, c.err_status);
      r = r ? r + strlen(c.err_status) : "";
      while (*r == ' ') r++;
      snprintf(c.err_sub, sizeof c.err_sub, "%s", r);
      p.pos = p.ntok;
    } else if (strcmp(cmd, "end") == 0) {
      if (!c.expect_error && c.nwant != c.nrets) or_perr(&p, "want count differs from ret count");
      if (!c.expect_error && c.nwant == 0) or_perr(&p, "case without expectations");
      if (!g_parse_ok) {
        fprintf(stderr, "%s:%d: stopping at the parse error\n", path, p.line);
        break;
      }
      /* --dynamic-outs runs the value cases only: an error case may be about a static out */
      if (!(g_or_dynamic_outs && c.expect_error)) {
        (*n_cases)++;
        if (g_mutating) or_mutate(&c);
        else if (!or_run_case(&c)) (*n_fail)++;
      }
      in_case = false;
    } else {
      or_perr(&p, "unknown statement");
    }
    if (p.pos != p.ntok) or_perr(&p, "trailing tokens");
    if (!g_parse_ok) break;
  }
  if (in_case && g_parse_ok) or_perr(&p, "last case has no end");
  or_free_case(&c);
  free(text);
  return g_parse_ok ? 0 : 1;
}

/* ---- kernel coverage ----------------------------------------------------------------------- */

/* True when a program calling `op` (no arguments) loads: the kernel registry has a fallback for
 * the name (method load resolves every operator before running anything). */
static bool or_op_loads(const char *op, char *why, size_t why_sz) {
  or_case *c = (or_case *)calloc(1, sizeof *c);
  if (!c) return false;
  snprintf(c->op, sizeof c->op, "%s", op);
  size_t size = 0;
  uint8_t *bytes = or_build_program(c, &size, why, why_sz);
  bool ok = false;
  if (bytes) {
    pte_error_info err;
    memset(&err, 0, sizeof err);
    pte_buffer_loader bl;
    pte_buffer_loader_init(&bl, bytes, size);
    pte_program prog;
    if (pte_program_load(&bl.base, PTE_VERIFY_INTERNAL_CONSISTENCY, &prog, &err) == PTE_OK) {
      static uint8_t pool[1 << 16];
      pte_allocator ma;
      pte_allocator_init(&ma, pool, sizeof pool);
      pte_memory_manager mm;
      pte_memory_manager_init(&mm, &ma, NULL, 0, NULL);
      pte_method *m = NULL;
      pte_status st = pte_method_load(&prog, "forward", &mm, NULL, NULL, &m, &err);
      ok = st == PTE_OK;
      if (!ok) snprintf(why, why_sz, "%s: %s", pte_status_name(st), err.msg);
      pte_method_destroy(m);
      pte_program_destroy(&prog);
    } else {
      snprintf(why, why_sz, "program load: %s", err.msg);
    }
    free(bytes);
  }
  free(c);
  return ok;
}

static int or_kernels(const char *ops_md) {
  char *text = or_read_file(ops_md);
  if (!text) {
    fprintf(stderr, "cannot read %s\n", ops_md);
    return 1;
  }
  size_t total = 0, missing = 0;
  bool in_block = false;
  char *save = NULL;
  for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
    if (strncmp(line, "```", 3) == 0) {
      in_block = !in_block;
      continue;
    }
    if (!in_block) continue;
    while (*line && isspace((unsigned char)*line)) line++;
    char *end = line + strlen(line);
    while (end > line && isspace((unsigned char)end[-1])) *--end = 0;
    if (!strstr(line, "::") || strchr(line, ' ')) continue;
    total++;
    char why[320] = "";
    if (!or_op_loads(line, why, sizeof why)) {
      missing++;
      printf("MISSING %s (%s)\n", line, why);
    }
  }
  free(text);
  printf("%zu operator names in %s, %zu without a kernel\n", total, ops_md, missing);
  if (total != 247) {
    printf("FAIL: expected the 247 names of upstream ExecuTorch 1.5.0, parsed %zu\n", total);
    return 1;
  }
  return missing ? 1 : 0;
}

int main(int argc, char **argv) {
  if (pte_register_portable_kernels() != PTE_OK || pte_register_quantized_kernels() != PTE_OK ||
      pte_register_llm_kernels() != PTE_OK) {
    fprintf(stderr, "kernel registration failed\n");
    return 1;
  }
  if (argc == 3 && strcmp(argv[1], "--kernels") == 0) return or_kernels(argv[2]);
  if (argc >= 3 && strncmp(argv[1], "--mutate", 8) == 0) {
    g_mutating = true;
    if (argv[1][8] == '=') g_mut_per_op = (size_t)strtoul(argv[1] + 9, NULL, 10);
    size_t n_cases = 0, n_fail = 0;
    int rc = 0;
    for (int i = 2; i < argc; i++) rc |= or_run_file(argv[i], &n_cases, &n_fail);
    printf("bad-argument sweep: %zu cases, %zu programs, %zu ran, %zu refused with a status, no crash\n", n_cases,
           g_mut_runs, g_mut_ok, g_mut_refused);
    return (rc || g_mut_runs == 0) ? 1 : 0;
  }
  if (argc >= 2 && strcmp(argv[1], "--dynamic-outs") == 0) {
    g_or_dynamic_outs = true;
    argv++;
    argc--;
  }
  if (argc < 2) {
    fprintf(stderr, "usage: pte_oracle [--dynamic-outs] CASES... | --kernels upstream-ops.md | --mutate[=N] CASES...\n");
    return 2;
  }
  size_t n_cases = 0, n_fail = 0;
  int rc = 0;
  for (int i = 1; i < argc; i++) rc |= or_run_file(argv[i], &n_cases, &n_fail);
  printf("%zu cases, %zu passed, %zu failed%s\n", n_cases, n_cases - n_fail, n_fail,
         rc ? " (table parse error)" : "");
  if (n_cases == 0) {
    printf("FAIL: no cases (a missing table is not a pass)\n");
    return 1;
  }
  return (rc || n_fail) ? 1 : 0;
}
