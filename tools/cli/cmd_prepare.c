/* pte prepare IN (-o OUT | --in-place) — persist device-specialised backend data (pte/prepare.h). */
#define _POSIX_C_SOURCE 200809L
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "jsonw.h"
#include "progress.h"
#include "pte/prepare.h"
#include "runner.h"

#define MAX_IDS 32

static void help(FILE *f) {
  fprintf(f,
          "usage: pte prepare IN (-o OUT | --in-place) [--backend ID]... [--json]\n"
          "                   [--passthrough ID]... [--lock-wait MS] [--no-fsync] [--rebuild] [-q]\n"
          "\n"
          "Runs the prepare hook (initialize_backend_data) of every registered backend used by IN once,\n"
          "and saves the device-specialised data it produces (e.g. packed weights) into OUT, so later\n"
          "loads skip that work. Backends without a hook, unregistered ones (QnnBackend...) and files\n"
          "without delegates are copied byte for byte. Replaced values carry an envelope naming the\n"
          "backend, its data-format version and this device's fingerprint; a backend refuses data\n"
          "prepared for another device (DelegateInvalidCompatibility) instead of misreading it.\n"
          "\n"
          "The output is written to a temp file next to OUT and renamed into place after fsync, under\n"
          "an advisory lock: IN is never modified (unless --in-place, which replaces it atomically),\n"
          "and a failure or crash leaves no partial OUT behind.\n"
          "\n"
          "  -o, --output OUT    where to write the prepared program\n"
          "  --in-place          replace IN atomically\n"
          "  --backend ID        prepare only this backend (repeatable; default: all registered)\n"
          "  --passthrough ID    register a pass-through preparer under ID (re-stores every blob of\n"
          "                      that backend unchanged in an envelope: benchmarks and tests)\n"
          "  --lock-wait MS      if another prepare holds OUT, wait up to MS ms (default: fail at once)\n"
          "  --no-fsync          skip fsync (scratch output only)\n"
          "  --rebuild           always rewrite the whole program instead of patching the segment table\n"
          "  --json              print one JSON object with the report\n"
          "  -q, --quiet         no progress bar, no report\n"
          "  -h, --help          this help\n"
          "\n"
          "Exit status: 0 prepared (or copied), 1 failure (nothing written), 2 bad command line.\n");
}

static int usage_error(const char *fmt, const char *arg) {
  fprintf(stderr, "pte prepare: ");
  fprintf(stderr, fmt, arg);
  fprintf(stderr, "\n");
  return PTE_EXIT_USAGE;
}

/* ---- progress on a TTY: the phases come from the tracer scopes of pte_prepare ------------------ */
typedef struct progress {
  pte_event_tracer base;
  pte_cli_progress bar;
  char phase[64];
} progress;

static uint64_t pg_begin(pte_event_tracer *t, const char *name, int32_t chain, int64_t dh) {
  progress *p = (progress *)t;
  (void)chain;
  (void)dh;
  if (!strcmp(name, "Prepare::publish")) {
    pte_cli_progress_note(&p->bar, "publishing (fsync, rename)...");
  } else if (strncmp(name, "Prepare::", 9) != 0) {
    char line[96];
    snprintf(line, sizeof line, "preparing %s...", name);
    pte_cli_progress_note(&p->bar, line);
  }
  pte_cli_progress_phase(&p->bar, "writing");
  return 1;
}

static void pg_end(pte_event_tracer *t, uint64_t tok) {
  (void)tok;
  pte_cli_progress_end(&((progress *)t)->bar);
}

static const pte_event_tracer_vtable k_pg_vt = {NULL, pg_begin, pg_end, NULL};

/* ---- report ----------------------------------------------------------------------------------- */
static double ms(uint64_t ns) { return (double)ns / 1e6; }

static void print_text(const char *in, const char *out, const pte_prepare_report *r) {
  printf("pte prepare: %s -> %s (%.1f ms)\n", in, out, ms(r->time_ns));
  size_t nb = r->n_backends < PTE_PREPARE_MAX_REPORTED_BACKENDS ? r->n_backends : PTE_PREPARE_MAX_REPORTED_BACKENDS;
  for (size_t i = 0; i < nb; i++) {
    const pte_prepare_backend_report *b = &r->backends[i];
    printf("  %-20s %s", b->id, pte_prepare_backend_state_name(b->state));
    if (b->state == PTE_PREPARE_PREPARED) {
      printf(": %u blob%s and %u named value%s replaced", b->blobs_replaced, b->blobs_replaced == 1 ? "" : "s",
             b->named_replaced, b->named_replaced == 1 ? "" : "s");
      if (b->blobs_sealed) printf(", %u blob%s sealed", b->blobs_sealed, b->blobs_sealed == 1 ? "" : "s");
      printf(" (%llu -> %llu bytes) in %.1f ms", (unsigned long long)b->bytes_before,
             (unsigned long long)b->bytes_after, ms(b->time_ns));
    }
    else if (b->state == PTE_PREPARE_NOT_SUPPORTED)
      printf(" (hook ran %.1f ms): copied unchanged", ms(b->time_ns));
    else
      printf(": copied unchanged");
    printf(" [%u delegate%s, %u blob%s]\n", b->n_delegates, b->n_delegates == 1 ? "" : "s", b->n_blobs,
           b->n_blobs == 1 ? "" : "s");
  }
  if (r->n_backends > nb) printf("  ... and %zu more backends\n", r->n_backends - nb);
  if (r->n_backends == 0) printf("  no delegates\n");
  printf("  bytes replaced %llu, bytes copied %llu\n", (unsigned long long)r->bytes_replaced,
         (unsigned long long)r->bytes_copied);
  long long d = (long long)r->size_after - (long long)r->size_before;
  printf("  size %llu -> %llu bytes (%s%lld)\n", (unsigned long long)r->size_before, (unsigned long long)r->size_after,
         d >= 0 ? "+" : "", d);
  if (!r->changed) printf("  layout: unchanged (byte-for-byte copy)\n");
  else if (r->rebuilt) printf("  layout: full rebuild (%s)\n", r->rebuild_reason);
  else printf("  layout: segment table patched in place\n");
  printf("  time: write %.1f ms, publish %.1f ms\n", ms(r->write_ns), ms(r->publish_ns));
}

static void print_json(const char *in, const char *out, const pte_prepare_report *r, pte_status s,
                       const char *msg) {
  jsonw w;
  jw_init(&w, stdout);
  jw_obj(&w);
  jw_kstr(&w, "input", in);
  jw_kstr(&w, "output", out);
  jw_kbool(&w, "ok", s == PTE_OK);
  if (s != PTE_OK) {
    jw_kstr(&w, "status", pte_status_name(s));
    jw_kint(&w, "code", (int64_t)s);
    jw_kstr(&w, "message", msg);
  }
  jw_kbool(&w, "changed", r->changed);
  jw_kbool(&w, "rebuilt", r->rebuilt);
  if (r->rebuilt) jw_kstr(&w, "rebuild_reason", r->rebuild_reason);
  jw_kuint(&w, "size_before", r->size_before);
  jw_kuint(&w, "size_after", r->size_after);
  jw_kuint(&w, "bytes_replaced", r->bytes_replaced);
  jw_kuint(&w, "bytes_copied", r->bytes_copied);
  jw_key(&w, "time_ms");
  jw_double(&w, ms(r->time_ns));
  jw_key(&w, "write_ms");
  jw_double(&w, ms(r->write_ns));
  jw_key(&w, "publish_ms");
  jw_double(&w, ms(r->publish_ns));
  jw_key(&w, "backends");
  jw_arr(&w);
  size_t nb = r->n_backends < PTE_PREPARE_MAX_REPORTED_BACKENDS ? r->n_backends : PTE_PREPARE_MAX_REPORTED_BACKENDS;
  for (size_t i = 0; i < nb; i++) {
    const pte_prepare_backend_report *b = &r->backends[i];
    jw_obj(&w);
    jw_kstr(&w, "id", b->id);
    jw_kstr(&w, "state", pte_prepare_backend_state_name(b->state));
    jw_kuint(&w, "delegates", b->n_delegates);
    jw_kuint(&w, "blobs", b->n_blobs);
    jw_kuint(&w, "blobs_replaced", b->blobs_replaced);
    jw_kuint(&w, "named_replaced", b->named_replaced);
    jw_kuint(&w, "blobs_sealed", b->blobs_sealed);
    jw_kuint(&w, "bytes_before", b->bytes_before);
    jw_kuint(&w, "bytes_after", b->bytes_after);
    jw_key(&w, "time_ms");
    jw_double(&w, ms(b->time_ns));
    jw_obj_end(&w);
  }
  jw_arr_end(&w);
  jw_obj_end(&w);
  jw_end(&w);
}

static int cmd_prepare(int argc, char **argv) {
  const char *in = NULL, *out = NULL;
  bool in_place = false, json = false, quiet = false, rebuild = false, no_fsync = false;
  const char *backends[MAX_IDS], *passthrough[MAX_IDS];
  size_t n_backends = 0, n_pass = 0;
  long lock_wait = -1;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      help(stdout);
      return PTE_EXIT_OK;
    } else if (!strcmp(a, "--in-place")) {
      in_place = true;
    } else if (!strcmp(a, "--json")) {
      json = true;
    } else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
      quiet = true;
    } else if (!strcmp(a, "--rebuild")) {
      rebuild = true;
    } else if (!strcmp(a, "--no-fsync")) {
      no_fsync = true;
    } else if (!strcmp(a, "-o") || !strcmp(a, "--output") || !strcmp(a, "--backend") || !strcmp(a, "--passthrough") ||
               !strcmp(a, "--lock-wait")) {
      if (i + 1 >= argc) return usage_error("%s needs a value", a);
      const char *v = argv[++i];
      if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
        if (out) return usage_error("%s", "more than one output given");
        out = v;
      } else if (!strcmp(a, "--backend")) {
        if (n_backends == MAX_IDS) return usage_error("%s", "too many --backend options");
        backends[n_backends++] = v;
      } else if (!strcmp(a, "--passthrough")) {
        if (n_pass == MAX_IDS) return usage_error("%s", "too many --passthrough options");
        passthrough[n_pass++] = v;
      } else {
        char *e;
        lock_wait = strtol(v, &e, 10);
        if (e == v || *e || lock_wait < 0) return usage_error("--lock-wait needs milliseconds, not '%s'", v);
      }
    } else if (a[0] == '-' && a[1]) {
      return usage_error("unknown option '%s'", a);
    } else if (!in) {
      in = a;
    } else {
      return usage_error("more than one input given ('%s')", a);
    }
  }
  if (!in) return usage_error("%s", "no input file given");
  if (!out && !in_place) return usage_error("%s", "give -o OUT or --in-place");
  if (out && in_place) return usage_error("%s", "-o and --in-place exclude each other");
  if (in_place) out = in;

  pte_error_info err;
  pte_status s = pte_cli_register_all(&err);
  if (s != PTE_OK) {
    fprintf(stderr, "pte prepare: %s\n", err.msg);
    return PTE_EXIT_FAIL;
  }
  for (size_t i = 0; i < n_pass; i++) {
    if (pte_get_backend(passthrough[i])) {
      fprintf(stderr, "pte prepare: --passthrough %s: a backend is already registered under this id\n", passthrough[i]);
      return PTE_EXIT_USAGE;
    }
    s = pte_register_backend_ex(passthrough[i], pte_prepare_passthrough_backend(), &err);
    if (s != PTE_OK) {
      fprintf(stderr, "pte prepare: --passthrough %s: %s\n", passthrough[i], err.msg);
      return PTE_EXIT_FAIL;
    }
  }

  progress pg;
  memset(&pg, 0, sizeof pg);
  pg.base.vt = &k_pg_vt;
  pte_cli_progress_init(&pg.bar, quiet || json);
  pte_prepare_file_options fo;
  memset(&fo, 0, sizeof fo);
  pte_file_writer_options_init(&fo.file);
  fo.file.no_fsync = no_fsync;
  if (lock_wait >= 0) {
    fo.file.lock = PTE_FILE_LOCK_WAIT;
    fo.file.lock_timeout_ms = lock_wait ? (uint32_t)lock_wait : 1;
  }
  fo.prepare.backends = n_backends ? backends : NULL;
  fo.prepare.n_backends = n_backends;
  fo.prepare.force_rebuild = rebuild;
  fo.prepare.progress = pte_cli_progress_update;
  fo.prepare.progress_ctx = &pg.bar;
  fo.tracer = &pg.base;
  pte_prepare_report rep;
  s = pte_prepare_file(in, out, &fo, &rep, &err);
  pte_cli_progress_end(&pg.bar);
  if (json) {
    print_json(in, out, &rep, s, err.msg);
  } else if (s == PTE_OK && !quiet) {
    print_text(in, out, &rep);
  }
  if (s != PTE_OK) {
    fprintf(stderr, "pte prepare: %s (0x%02x): %s\n", pte_status_name(s), (unsigned)s, err.msg);
    return PTE_EXIT_FAIL;
  }
  for (size_t i = 0; i < n_backends && !quiet && !json; i++) {
    bool seen = false;
    for (size_t k = 0; k < rep.n_backends && k < PTE_PREPARE_MAX_REPORTED_BACKENDS; k++)
      seen = seen || !strcmp(rep.backends[k].id, backends[i]);
    if (!seen) fprintf(stderr, "pte prepare: warning: --backend %s: no delegate of that backend in %s\n", backends[i], in);
  }
  return PTE_EXIT_OK;
}

const pte_cli_verb pte_cli_verb_prepare = {"prepare", "persist device-specialised backend data (packed weights...)",
                                           cmd_prepare};
