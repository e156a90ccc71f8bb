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
#include "run_internal.h"

static int cmp_d(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_d);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
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
    return run_fail(o->path, PTE_ERR_INVALID_ARGUMENT, msg);
  }
  if (n == 0) return run_fail(o->path, PTE_ERR_INVALID_PROGRAM, "the program has no methods");
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
  if (s != PTE_OK) return run_fail("registration", s, err.msg);
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
    rc = run_fail(o.path, PTE_ERR_MEMORY_ALLOCATION_FAILED, "out of memory");
    goto done;
  }

  if (o.outdir && mkdir(o.outdir, 0777) != 0 && errno != EEXIST) {
    char msg[512];
    snprintf(msg, sizeof msg, "cannot create the output directory: %s", strerror(errno));
    rc = run_fail(o.outdir, PTE_ERR_ACCESS_FAILED, msg);
    goto done;
  }
  if (o.data) {
    s = pte_cli_source_open(&data_src, o.data, o.loader, &err);
    if (s == PTE_OK) s = pte_ptd_load(pte_cli_source_loader(&data_src), &ptd, &err);
    if (s != PTE_OK) {
      rc = run_fail(o.data, s, err.msg);
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
      rc = run_fail(o.path, s, err.msg);
      goto iter_done;
    }
    src_open = true;
    const pte_data_loader *loader = pte_cli_source_loader(&src);
    uint8_t head[8] = {0};
    uint64_t fsize = 0;
    pte_data_loader_size(loader, &fsize);
    if (fsize >= 8) pte_data_loader_load_into(loader, 0, 8, NULL, head);
    pte_file_kind kind = pte_sniff_file_kind(head, fsize >= 8 ? 8 : (size_t)fsize);
    if (kind == PTE_FILE_BPTE) {
      s = pte_bundled_program_load(loader, &bp, &err);
      if (s != PTE_OK) {
        rc = run_fail(o.path, s, err.msg);
        goto iter_done;
      }
      bp_open = true;
      loader = pte_bundled_program_loader(&bp);
    } else if (kind == PTE_FILE_PTD || kind == PTE_FILE_XNNPACK) {
      rc = run_fail(o.path, PTE_ERR_INVALID_PROGRAM,
                kind == PTE_FILE_PTD ? "this is a .ptd data file, not a program (pass it with --data)"
                                     : "this is an XNNPACK delegate blob, not a program");
      goto iter_done;
    }
    s = pte_program_load(loader, o.limits.verify, &prog, &err);
    if (s != PTE_OK) {
      rc = run_fail(o.path, s, err.msg);
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
        rc = run_fail(o.path, s, err.msg);
        goto iter_done;
      }
      mem_ready = true;
    }
    if ((o.profile || o.etdump) && last) { /* the last load is profiled */
      s = pte_cli_profile_init(&prof, &prog, method_name);
      if (s != PTE_OK) {
        rc = run_fail(o.path, s, "cannot set up the profile");
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
        rc = run_fail(o.path, s, msg);
      } else {
        rc = run_fail(o.path, s, err.msg);
      }
      goto iter_done;
    }
    s = pte_cli_bind_outputs(&mem, m, &err);
    if (s != PTE_OK) {
      rc = run_fail(o.path, s, err.msg);
      goto iter_done;
    }
    if (!ins) {
      n_in = pte_method_num_inputs(m);
      ins = calloc(n_in ? n_in : 1, sizeof *ins);
      if (!ins) {
        rc = run_fail(o.path, PTE_ERR_MEMORY_ALLOCATION_FAILED, "out of memory");
        goto iter_done;
      }
      if (run_prepare_inputs(&o, m, ins, n_in, &default_fill)) {
        rc = PTE_EXIT_FAIL;
        goto iter_done;
      }
    }
    s = run_set_inputs(m, ins, n_in, &err);
    if (s != PTE_OK) {
      rc = run_fail(o.path, s, err.msg);
      goto iter_done;
    }
    for (int e = 0; e < o.num_executions; e++) {
      /* inputs again before every execute after the first: memory planning may reuse an input's
       * memory for intermediates once the input is dead */
      if (e > 0 && (s = run_set_inputs(m, ins, n_in, &err)) != PTE_OK) {
        rc = run_fail(o.path, s, err.msg);
        goto iter_done;
      }
      double t4 = pte_cli_now_ms();
      s = pte_method_execute(m, &err);
      double dt = pte_cli_now_ms() - t4;
      if (s != PTE_OK) {
        rc = run_fail(o.path, s, err.msg);
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
      run_report_inputs(&c, ins, n_in, default_fill);
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
        if (v->tag == PTE_TAG_TENSOR) run_report_tensor(&c, i, v->u.tensor);
        else run_report_scalar(&c, i, v);
      }
      if (o.etdump) {
        s = pte_cli_profile_write_etdump(&prof, method_name, o.etdump, &err);
        if (s != PTE_OK) {
          rc = run_fail(o.etdump, s, err.msg);
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
