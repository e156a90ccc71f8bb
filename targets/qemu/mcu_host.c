/* mcu_host.c — host side of the Cortex-M / QEMU runs (docs/mcu.md). Built by the host build as
 * pte_mcu_host; the cross build and tests/cli/mcu_qemu.sh call it:
 *
 *   pte_mcu_host plan MODEL.pte OUT.h        arena sizes for the runner: planned buffers from
 *                                            pte_method_meta, method pool from a host load (the
 *                                            host's 64-bit structures bound the 32-bit target's)
 *   pte_mcu_host run MODEL.pte INPUT.bin     the host reference run: the same driver (mcu_run.c)
 *                                            and the same lines as the board prints
 *   pte_mcu_host compare HOST.txt BOARD.txt  the "out" lines must be equal: int8 (and every
 *                                            non-float dtype) bit for bit, float32 within 1e-5
 *   pte_mcu_host kws OUT.pte OUT_INPUT.bin   writes the keyword-spotting network (kws_model.c)
 *   pte_mcu_host kernels MODEL.pte OUT.c MAX the image's selective kernel registration: only the
 *                                            kernel families its operators need (mcu_select.c)
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kws_model.h"
#include "mcu_run.h"
#include "mcu_select.h"
#include "pte/allocator.h"
#include "pte/cortex_m_kernels.h"
#include "pte/data_loader.h"
#include "pte/method.h"
#include "pte/portable_kernels.h"
#include "pte/program.h"
#include "pte/quantized_kernels.h"

static uint8_t *read_file(const char *path, size_t *size) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "pte_mcu_host: cannot open %s\n", path);
    return NULL;
  }
  size_t cap = 1 << 16, n = 0;
  uint8_t *buf = (uint8_t *)malloc(cap);
  for (;;) {
    if (!buf) break;
    if (n == cap) {
      uint8_t *nb = (uint8_t *)realloc(buf, cap * 2);
      if (!nb) {
        free(buf);
        buf = NULL;
        break;
      }
      buf = nb;
      cap *= 2;
    }
    size_t r = fread(buf + n, 1, cap - n, f);
    if (r == 0) break;
    n += r;
  }
  fclose(f);
  if (!buf) return NULL;
  /* 64-aligned copy, like the board's .balign 64 */
  uint8_t *al = (uint8_t *)aligned_alloc(64, (n + 63) / 64 * 64 + 64);
  if (al) memcpy(al, buf, n);
  free(buf);
  *size = n;
  return al;
}

typedef struct mcu_plan {
  size_t method_pool; /* host peak after load, rounded up to 64 */
  size_t planned;     /* sum of the planned buffers, each rounded up to 16 */
} mcu_plan;

static int plan_model(const uint8_t *bytes, size_t size, mcu_plan *plan) {
  pte_error_info err;
  memset(&err, 0, sizeof err);
  if (pte_register_portable_kernels() != PTE_OK || pte_register_cortex_m_kernels() != PTE_OK ||
      pte_register_quantized_kernels() != PTE_OK) {
    fprintf(stderr, "pte_mcu_host: kernel registration failed\n");
    return 1;
  }
  pte_buffer_loader bl;
  pte_buffer_loader_init(&bl, bytes, size);
  pte_program prog;
  if (pte_program_load(&bl.base, PTE_VERIFY_INTERNAL_CONSISTENCY, &prog, &err) != PTE_OK) {
    fprintf(stderr, "pte_mcu_host: program load: %s\n", err.msg);
    return 1;
  }
  pte_method_meta meta;
  if (pte_method_meta_get(&prog, "forward", &meta, &err) != PTE_OK) {
    fprintf(stderr, "pte_mcu_host: %s\n", err.msg);
    pte_program_destroy(&prog);
    return 1;
  }
  const size_t np = pte_method_meta_num_planned_buffers(&meta);
  pte_planned_buffer pb[8];
  size_t total = 0;
  int rc = np > 8 ? 1 : 0;
  uint8_t *arena = NULL;
  for (size_t i = 0; rc == 0 && i < np; i++) {
    uint64_t sz = 0;
    if (pte_method_meta_planned_buffer_size(&meta, i, &sz) != PTE_OK || sz > ((uint64_t)1 << 30)) rc = 1;
    total += ((size_t)sz + 15u) & ~(size_t)15u;
  }
  if (rc == 0) arena = (uint8_t *)aligned_alloc(16, total + 16);
  size_t off = 0;
  for (size_t i = 0; rc == 0 && arena && i < np; i++) {
    uint64_t sz = 0;
    pte_method_meta_planned_buffer_size(&meta, i, &sz);
    pb[i].data = arena + off;
    pb[i].size = (size_t)sz;
    off += ((size_t)sz + 15u) & ~(size_t)15u;
  }
  const size_t pool_cap = (size_t)8 << 20;
  uint8_t *pool = rc == 0 ? (uint8_t *)aligned_alloc(16, pool_cap) : NULL;
  if (rc == 0 && pool && arena) {
    pte_allocator ma;
    pte_allocator_init(&ma, pool, pool_cap);
    pte_memory_manager mm;
    pte_memory_manager_init(&mm, &ma, pb, np, NULL);
    pte_method *m = NULL;
    if (pte_method_load(&prog, "forward", &mm, NULL, NULL, &m, &err) != PTE_OK) {
      fprintf(stderr, "pte_mcu_host: method load: %s\n", err.msg);
      rc = 1;
    } else {
      plan->method_pool = (ma.peak + 63u) & ~(size_t)63u;
      plan->planned = total;
      pte_method_destroy(m);
    }
  } else if (rc == 0) {
    rc = 1;
  }
  free(pool);
  free(arena);
  pte_program_destroy(&prog);
  if (rc) fprintf(stderr, "pte_mcu_host: cannot plan the method memory\n");
  return rc;
}

static void write_stdout(const char *line) { fputs(line, stdout); }

static int cmd_plan(const char *model, const char *out) {
  size_t size = 0;
  uint8_t *bytes = read_file(model, &size);
  if (!bytes) return 1;
  mcu_plan plan;
  int rc = plan_model(bytes, size, &plan);
  free(bytes);
  if (rc) return rc;
  FILE *f = fopen(out, "w");
  if (!f) {
    fprintf(stderr, "pte_mcu_host: cannot write %s\n", out);
    return 1;
  }
  fprintf(f, "/* Written by pte_mcu_host plan from %s: the runner's static arenas. */\n", model);
  fprintf(f, "#define PTE_MCU_METHOD_POOL_BYTES %zuu\n#define PTE_MCU_PLANNED_BYTES %zuu\n", plan.method_pool,
          plan.planned);
  return fclose(f) == 0 ? 0 : 1;
}

static int cmd_run(const char *model, const char *input) {
  size_t size = 0, in_size = 0;
  uint8_t *bytes = read_file(model, &size);
  uint8_t *in = bytes ? read_file(input, &in_size) : NULL;
  mcu_plan plan;
  int rc = (bytes && in) ? plan_model(bytes, size, &plan) : 1;
  if (rc == 0) {
    void *pool = aligned_alloc(16, plan.method_pool + 16), *planned = aligned_alloc(16, plan.planned + 16);
    pte_mcu_job job;
    memset(&job, 0, sizeof job);
    job.model = bytes;
    job.model_size = size;
    job.input = in;
    job.input_size = in_size;
    job.method_pool = pool;
    job.method_pool_size = plan.method_pool;
    job.planned = planned;
    job.planned_size = plan.planned;
    job.write = write_stdout;
    rc = (pool && planned) ? pte_mcu_run(&job) : 1;
    printf("result: %s\n", rc == 0 ? "PASS" : "FAIL");
    free(pool);
    free(planned);
  }
  free(bytes);
  free(in);
  return rc;
}

/* ---- compare ---------------------------------------------------------------------------- */

typedef struct mcu_lines {
  char **v;
  size_t n;
  int pass;
} mcu_lines;

static int load_lines(const char *path, mcu_lines *ls) {
  memset(ls, 0, sizeof *ls);
  FILE *f = fopen(path, "r");
  if (!f) {
    fprintf(stderr, "pte_mcu_host: cannot open %s\n", path);
    return 1;
  }
  char line[1024];
  while (fgets(line, sizeof line, f)) {
    line[strcspn(line, "\r\n")] = '\0';
    if (!strcmp(line, "result: PASS")) ls->pass = 1;
    if (strncmp(line, "out ", 4) != 0 && strncmp(line, "argmax ", 7) != 0) continue;
    char **nv = (char **)realloc(ls->v, sizeof(char *) * (ls->n + 1));
    if (!nv) break;
    ls->v = nv;
    ls->v[ls->n] = strdup(line);
    if (ls->v[ls->n]) ls->n++;
  }
  fclose(f);
  return 0;
}

static void free_lines(mcu_lines *ls) {
  for (size_t i = 0; i < ls->n; i++) free(ls->v[i]);
  free(ls->v);
}

static float bits_to_float(unsigned long u) {
  const uint32_t w = (uint32_t)u;
  float f;
  memcpy(&f, &w, sizeof f);
  return f;
}

/* Returns the number of differing values (exact for all but float32 words). */
static size_t compare_line(const char *a, const char *b, int is_float, size_t *values) {
  const char *ca = strchr(a, ':'), *cb = strchr(b, ':');
  if (!ca || !cb || (ca - a) != (cb - b) || strncmp(a, b, (size_t)(ca - a)) != 0) return 1;
  size_t bad = 0;
  ca++;
  cb++;
  for (;;) {
    char *ea, *eb;
    const unsigned long ua = strtoul(ca, &ea, 16), ub = strtoul(cb, &eb, 16);
    if (ea == ca || eb == cb) {
      if ((ea == ca) != (eb == cb)) bad++; /* different counts */
      break;
    }
    ++*values;
    if (is_float) {
      const float fa = bits_to_float(ua), fb = bits_to_float(ub);
      const float tol = 1e-5f + 1e-5f * fabsf(fa);
      if (!(fabsf(fa - fb) <= tol) && !(isnan(fa) && isnan(fb))) bad++;
    } else if (ua != ub) {
      bad++;
    }
    ca = ea;
    cb = eb;
  }
  return bad;
}

static int cmd_compare(const char *host_path, const char *board_path) {
  mcu_lines h, b;
  if (load_lines(host_path, &h)) return 1;
  if (load_lines(board_path, &b)) {
    free_lines(&h);
    return 1;
  }
  int rc = 0;
  char fname[32];
  snprintf(fname, sizeof fname, " %s ", pte_dtype_name(PTE_DTYPE_FLOAT));
  size_t values = 0, bad = 0;
  if (!h.pass || !b.pass) {
    fprintf(stderr, "compare: %s did not pass\n", !h.pass ? host_path : board_path);
    rc = 1;
  }
  if (h.n == 0) {
    fprintf(stderr, "compare: no outputs in %s\n", host_path);
    rc = 1;
  }
  if (h.n != b.n) {
    fprintf(stderr, "compare: %zu output lines on the host, %zu on the board\n", h.n, b.n);
    rc = 1;
  }
  for (size_t i = 0; rc == 0 && i < h.n; i++) {
    const int is_float = strstr(h.v[i], fname) != NULL && strncmp(h.v[i], "out ", 4) == 0;
    size_t d = strncmp(h.v[i], "argmax ", 7) == 0 ? (size_t)(strcmp(h.v[i], b.v[i]) != 0)
                                                  : compare_line(h.v[i], b.v[i], is_float, &values);
    if (d) {
      fprintf(stderr, "compare: differs (%zu values)\n  host:  %s\n  board: %s\n", d, h.v[i], b.v[i]);
      bad += d;
    }
  }
  if (bad) rc = 1;
  if (rc == 0) printf("compare: %zu output lines, %zu values equal (int bit for bit, float32 within 1e-5)\n", h.n, values);
  free_lines(&h);
  free_lines(&b);
  return rc;
}

static int cmd_kernels(const char *model, const char *out, const char *max) {
  char *end = NULL;
  const unsigned long cap = strtoul(max, &end, 10);
  if (!end || *end || cap == 0) {
    fprintf(stderr, "pte_mcu_host kernels: MAX_KERNELS '%s' is not a positive number\n", max);
    return 2;
  }
  size_t size = 0;
  uint8_t *bytes = read_file(model, &size);
  if (!bytes) return 1;
  pte_error_info err;
  memset(&err, 0, sizeof err);
  pte_buffer_loader bl;
  pte_buffer_loader_init(&bl, bytes, size);
  pte_program prog;
  int rc = 1;
  if (pte_program_load(&bl.base, PTE_VERIFY_INTERNAL_CONSISTENCY, &prog, &err) != PTE_OK) {
    fprintf(stderr, "pte_mcu_host kernels: program load of %s: %s\n", model, err.msg);
  } else {
    rc = pte_mcu_select_write(&prog, model, out, cap);
    pte_program_destroy(&prog);
  }
  free(bytes);
  return rc;
}

int main(int argc, char **argv) {
  if (argc == 4 && !strcmp(argv[1], "plan")) return cmd_plan(argv[2], argv[3]);
  if (argc == 4 && !strcmp(argv[1], "run")) return cmd_run(argv[2], argv[3]);
  if (argc == 4 && !strcmp(argv[1], "compare")) return cmd_compare(argv[2], argv[3]);
  if (argc == 5 && !strcmp(argv[1], "kernels")) return cmd_kernels(argv[2], argv[3], argv[4]);
  if (argc == 4 && !strcmp(argv[1], "kws")) {
    pte_error_info err;
    memset(&err, 0, sizeof err);
    if (pte_mcu_kws_write(argv[2], argv[3], &err) != 0) {
      fprintf(stderr, "pte_mcu_host kws: %s\n", err.msg);
      return 1;
    }
    return 0;
  }
  fprintf(stderr,
          "usage: pte_mcu_host plan MODEL.pte OUT.h | run MODEL.pte INPUT.bin | compare HOST.txt BOARD.txt |\n"
          "       kws OUT.pte OUT_INPUT.bin | kernels MODEL.pte OUT.c MAX_KERNELS\n");
  return 2;
}
