/* tools/cli/inspect.h — internal to `pte inspect`: the output sink shared by cmd_inspect.c (.pte,
 * command line) and inspect_data.c (.ptd, .bpte). */
#ifndef PTE_CLI_INSPECT_H
#define PTE_CLI_INSPECT_H

#include <stdbool.h>
#include <stdio.h>

#include "format/flatbuf.h"
#include "jsonw.h"
#include "pte/bundled.h"
#include "pte/ptd.h"

typedef struct out {
  bool json;
  jsonw w;
  FILE *f;
} out;

/* cmd_inspect.c: a flatbuffer string as JSON (null when absent). */
void inspect_put_fbstr(out *o, pte_fb_str s);
/* inspect_data.c */
void inspect_describe_ptd(out *o, const pte_ptd *ptd);
void inspect_describe_bundled(out *o, const pte_bundled_program *bp);

#endif
