/* amalg_main.c — runs a corpus model on the amalgamated core (build/amalgamation/pte.c +
 * pte_kernels.c; tests/amalgamation/run.sh builds it with -Werror and runs it).
 *
 *   amalg_main MODEL.pte INPUT0.float32.bin EXPECTED0.float32.bin
 *
 * Reads the whole .pte into memory and loads it through the buffer loader with full verification,
 * registers the portable kernels, feeds input 0 from INPUT0 (raw little-endian float32, the
 * corpus io/ convention), executes "forward" and compares output 0 byte for byte with EXPECTED0
 * (the golden published with the upstream model, corpus io/). Prints one result line; exit 0 only
 * when everything matched. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pte.h"

static _Alignas(16) uint8_t g_pool[256u * 1024u];
static _Alignas(16) uint8_t g_planned[256u * 1024u];

static void *slurp(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  uint8_t *buf = NULL;
  size_t cap = 0, len = 0;
  for (;;) {
    if (len == cap) {
      size_t nc = cap ? cap * 2 : 4096;
      uint8_t *nb = realloc(buf, nc);
      if (!nb) { free(buf); fclose(f); return NULL; }
      buf = nb, cap = nc;
    }
    size_t r = fread(buf + len, 1, cap - len, f);
    if (r == 0) break;
    len += r;
  }
  fclose(f);
  *n = len;
  return buf;
}

static int fail(const char *what, const char *msg) {
  printf("FAIL: %s: %s\n", what, msg);
  return 1;
}

int main(int argc, char **argv) {
  if (argc != 4) return fail("usage", "amalg_main MODEL.pte INPUT0.float32.bin EXPECTED0.float32.bin");
  size_t nfile = 0, nin = 0, nexp = 0;
  /* the buffer loader wants the flatbuffer 16-byte aligned: malloc's alignment is enough here,
   * a misaligned buffer would fail with a message, not crash */
  uint8_t *file = slurp(argv[1], &nfile);
  float *in = slurp(argv[2], &nin);
  float *want = slurp(argv[3], &nexp);
  int rc = 1;
  pte_error_info err;
  memset(&err, 0, sizeof err);
  pte_program prog;
  pte_method *m = NULL;
  int loaded = 0;
  if (!file || !in || !want || nfile == 0 || nin == 0 || nexp == 0) {
    rc = fail("read", "a model, input or golden file is missing or empty");
    goto out;
  }
  if (pte_register_portable_kernels() != PTE_OK) { rc = fail("register kernels", "failed"); goto out; }
  pte_buffer_loader bl;
  pte_buffer_loader_init(&bl, file, nfile);
  if (pte_program_load(&bl.base, PTE_VERIFY_INTERNAL_CONSISTENCY, &prog, &err) != PTE_OK) {
    rc = fail("pte_program_load", err.msg);
    goto out;
  }
  loaded = 1;
  pte_method_meta meta;
  if (pte_method_meta_get(&prog, "forward", &meta, &err) != PTE_OK) { rc = fail("method meta", err.msg); goto out; }
  pte_planned_buffer planned[8];
  size_t np = pte_method_meta_num_planned_buffers(&meta), used = 0;
  if (np > 8) { rc = fail("planned buffers", "more than 8"); goto out; }
  for (size_t i = 0; i < np; i++) {
    uint64_t sz = 0;
    if (pte_method_meta_planned_buffer_size(&meta, i, &sz) != PTE_OK || sz > sizeof g_planned - used) {
      rc = fail("planned buffers", "too large");
      goto out;
    }
    planned[i].data = g_planned + used;
    planned[i].size = (size_t)sz;
    used += ((size_t)sz + 15u) & ~(size_t)15u;
  }
  pte_allocator ma;
  pte_allocator_init(&ma, g_pool, sizeof g_pool);
  pte_memory_manager mm;
  pte_memory_manager_init(&mm, &ma, planned, np, NULL);
  if (pte_method_load(&prog, "forward", &mm, NULL, NULL, &m, &err) != PTE_OK) { rc = fail("pte_method_load", err.msg); goto out; }
  if (pte_method_num_inputs(m) < 1 || pte_method_num_outputs(m) < 1) { rc = fail("method", "no input or output"); goto out; }
  const pte_evalue *iv = pte_method_get_input(m, 0);
  if (!iv || iv->tag != PTE_TAG_TENSOR || iv->u.tensor->dtype != PTE_DTYPE_FLOAT ||
      iv->u.tensor->numel * sizeof(float) != nin) {
    rc = fail("input 0", "not a float tensor of the input file's size");
    goto out;
  }
  const pte_tensor *it = iv->u.tensor;
  if (pte_method_set_input_tensor(m, 0, PTE_DTYPE_FLOAT, it->sizes, it->dim, in, nin, &err) != PTE_OK) {
    rc = fail("set input", err.msg);
    goto out;
  }
  if (pte_method_execute(m, &err) != PTE_OK) { rc = fail("pte_method_execute", err.msg); goto out; }
  const pte_evalue *ov = pte_method_get_output(m, 0);
  if (!ov || ov->tag != PTE_TAG_TENSOR || ov->u.tensor->dtype != PTE_DTYPE_FLOAT ||
      ov->u.tensor->numel * sizeof(float) != nexp) {
    rc = fail("output 0", "not a float tensor of the golden's size");
    goto out;
  }
  const float *o = (const float *)ov->u.tensor->data;
  size_t n = nexp / sizeof(float), bad = 0;
  for (size_t k = 0; k < n; k++)
    if (memcmp(&o[k], &want[k], sizeof(float)) != 0) {
      if (bad++ < 4) printf("  output[%zu] = %.9g, golden %.9g\n", k, (double)o[k], (double)want[k]);
    }
  if (bad) {
    printf("FAIL: %zu of %zu output values differ from the golden\n", bad, n);
    goto out;
  }
  printf("amalgamated core: %s forward output matches the golden (%zu values): 1 passed, 0 failed\n", argv[1], n);
  rc = 0;
out:
  if (m) pte_method_destroy(m);
  if (loaded) pte_program_destroy(&prog);
  free(file);
  free(in);
  free(want);
  return rc;
}
