/* pte migrate IN -o OUT [--segment-alignment N] [--tensor-alignment N] — rewrite a .pte in the
 * current layout (constant segment, delegate blobs in segments, re-aligned), streaming. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "jsonw.h"
#include "progress.h"
#include "pte/data_writer.h"
#include "pte/io.h"
#include "pte/program.h"
#include "pte/writer.h"

static void help(FILE *f) {
  fprintf(f,
          "usage: pte migrate IN -o OUT [--segment-alignment N] [--tensor-alignment N]\n"
          "                  [--delegate-alignment N] [--keep-delegates-inline] [--no-fsync] [--json] [-q]\n"
          "\n"
          "Rewrites a .pte in the current layout, preserving its content: a legacy inline\n"
          "constant_buffer becomes the constant segment, inline delegate blobs move to segments,\n"
          "segments and constants are re-aligned. Data is streamed (never all in memory). The output\n"
          "is written to a temp file and renamed; OUT may equal IN to migrate in place.\n"
          "\n"
          "  -o, --output FILE         destination\n"
          "  --segment-alignment N     segment alignment (power of two, default 128; 16384 for iOS)\n"
          "  --tensor-alignment N      constant tensor alignment (power of two, default 16)\n"
          "  --delegate-alignment N    alignment of delegate data kept inline (default 16)\n"
          "  --keep-delegates-inline   leave inline delegate blobs inline\n"
          "  -q, --quiet               no progress bar (shown only on a terminal anyway)\n"
          "  --no-fsync                skip fsync on publish\n"
          "  --json                    print one JSON object describing the result\n"
          "  -h, --help                this help\n");
}

static bool parse_pow2(const char *s, uint64_t *out) {
  if (!s || !*s) return false;
  char *end = NULL;
  unsigned long long v = strtoull(s, &end, 10);
  if (*end || v == 0 || (v & (v - 1))) return false;
  *out = v;
  return true;
}

static int run_migrate(int argc, char **argv) {
  const char *in = NULL, *out = NULL;
  bool json = false, quiet = false;
  pte_writer_options wo;
  memset(&wo, 0, sizeof wo);
  pte_file_writer_options fo;
  pte_file_writer_options_init(&fo);
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      help(stdout);
      return PTE_EXIT_OK;
    } else if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
      if (!v) break;
      out = v;
      i++;
    } else if (!strcmp(a, "--segment-alignment") || !strcmp(a, "--tensor-alignment") || !strcmp(a, "--delegate-alignment")) {
      uint64_t *dst = a[2] == 's' ? &wo.segment_alignment : a[2] == 't' ? &wo.tensor_alignment : &wo.delegate_alignment;
      if (!parse_pow2(v, dst)) {
        fprintf(stderr, "pte migrate: %s needs a power of two, got '%s'\n", a, v ? v : "");
        return PTE_EXIT_USAGE;
      }
      i++;
    } else if (!strcmp(a, "--keep-delegates-inline")) {
      wo.keep_delegates_inline = true;
    } else if (!strcmp(a, "--no-fsync")) {
      fo.no_fsync = true;
    } else if (!strcmp(a, "--json")) {
      json = true;
    } else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
      quiet = true;
    } else if (a[0] == '-' && a[1]) {
      fprintf(stderr, "pte migrate: unknown option '%s'\n", a);
      return PTE_EXIT_USAGE;
    } else if (!in) {
      in = a;
    } else {
      fprintf(stderr, "pte migrate: more than one input given\n");
      return PTE_EXIT_USAGE;
    }
  }
  if (!in || !out) {
    fprintf(stderr, "pte migrate: %s\n", !in ? "no input file given" : "no output file given (-o OUT)");
    return PTE_EXIT_USAGE;
  }
  pte_error_info err;
  memset(&err, 0, sizeof err);
  pte_cli_progress prog;
  pte_cli_progress_init(&prog, quiet || json);
  pte_cli_progress_phase(&prog, "writing");
  wo.progress = pte_cli_progress_update;
  wo.progress_ctx = &prog;
  pte_status s = pte_migrate_file(in, out, &wo, &fo, &err);
  pte_cli_progress_end(&prog);
  if (s != PTE_OK) {
    fprintf(stderr, "pte migrate: %s: %s (0x%02x): %s\n", in, pte_status_name(s), (unsigned)s, err.msg);
    return PTE_EXIT_FAIL;
  }
  /* report what the result looks like */
  pte_mmap_loader ml;
  if (pte_mmap_loader_open(&ml, out, PTE_MLOCK_NONE, NULL) == PTE_OK) {
    pte_program p;
    if (pte_program_load(&ml.base, PTE_VERIFY_INTERNAL_CONSISTENCY, &p, &err) == PTE_OK) {
      const pte_program_header *h = pte_program_get_header(&p);
      unsigned long long bytes =
          (unsigned long long)(h->present ? h->segment_base_offset + h->segment_data_size : h->program_size);
      bool in_segment = pte_program_constant_storage(&p) == PTE_CONSTANTS_SEGMENT;
      if (json) {
        jsonw w;
        jw_init(&w, stdout);
        jw_obj(&w);
        jw_kstr(&w, "input", in);
        jw_kstr(&w, "output", out);
        jw_kuint(&w, "bytes", bytes);
        jw_kuint(&w, "segments", pte_program_num_segments(&p));
        jw_kstr(&w, "constants", in_segment ? "segment" : "none");
        jw_obj_end(&w);
        jw_end(&w);
      } else {
        printf("migrated %s -> %s: %llu bytes, %zu segments, %s\n", in, out, bytes, pte_program_num_segments(&p),
               in_segment ? "constants in segment" : "no constants");
      }
      pte_program_destroy(&p);
    }
    pte_mmap_loader_close(&ml);
  }
  return PTE_EXIT_OK;
}

const pte_cli_verb pte_cli_verb_migrate = {"migrate", "rewrite a .pte in the current layout (segments, alignment)", run_migrate};
