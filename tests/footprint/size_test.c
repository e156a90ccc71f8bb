#define _POSIX_C_SOURCE 200809L
/* size_test.c — the smallest useful program on the core runtime (docs/footprint.md).
 *
 * Reads a .pte into a static buffer, loads it with full verification, loads method "forward",
 * feeds every float input with 1.0, executes and checks that float outputs are finite. No kernels
 * are linked: pass a program without operators (e.g. the identity model berry_identity.pte), the
 * way an application links only the kernels its model needs. Linked at -Os with --gc-sections, its
 * .text is the "linked core" figure of `make footprint`. It uses no stdio and no heap: the file is
 * read with POSIX read(), everything else lives in static buffers.
 *
 * Exit status: 0 success; 2 usage / I/O error; otherwise 10 + the pte_status of the failing step
 * capped at 250. */
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <unistd.h>

#include "pte/allocator.h"
#include "pte/data_loader.h"
#include "pte/memory.h"
#include "pte/method.h"
#include "pte/program.h"

#define FILE_CAP (256u * 1024u)
#define POOL_CAP (64u * 1024u)
#define PLAN_CAP (64u * 1024u)

static _Alignas(16) uint8_t g_file[FILE_CAP];
static _Alignas(16) uint8_t g_pool[POOL_CAP];
static _Alignas(16) uint8_t g_planned[PLAN_CAP];
static float g_ones[4096];

static int fail(pte_status s) { return 10 + (int)(s > 240 ? 240 : s); }

int main(int argc, char **argv) {
  if (argc != 2) return 2;
  int fd = open(argv[1], O_RDONLY);
  if (fd < 0) return 2;
  size_t n = 0;
  for (;;) {
    ssize_t r = read(fd, g_file + n, FILE_CAP - n);
    if (r <= 0) break;
    n += (size_t)r;
  }
  close(fd);
  if (n == 0 || n == FILE_CAP) return 2;

  pte_error_info err;
  pte_buffer_loader bl;
  pte_buffer_loader_init(&bl, g_file, n);
  pte_program prog;
  pte_status s = pte_program_load(&bl.base, PTE_VERIFY_INTERNAL_CONSISTENCY, &prog, &err);
  if (s != PTE_OK) return fail(s);

  /* Planned buffers carved out of one static arena, sized from the method metadata. */
  pte_method_meta meta;
  s = pte_method_meta_get(&prog, "forward", &meta, &err);
  if (s != PTE_OK) return fail(s);
  pte_planned_buffer planned[8];
  size_t np = pte_method_meta_num_planned_buffers(&meta), used = 0;
  if (np > 8) return fail(PTE_ERR_OUT_OF_RESOURCES);
  for (size_t i = 0; i < np; i++) {
    uint64_t sz = 0;
    pte_method_meta_planned_buffer_size(&meta, i, &sz);
    if (sz > PLAN_CAP - used) return fail(PTE_ERR_OUT_OF_RESOURCES);
    planned[i].data = g_planned + used;
    planned[i].size = (size_t)sz;
    used += ((size_t)sz + 15u) & ~(size_t)15u;
  }
  pte_allocator ma;
  pte_allocator_init(&ma, g_pool, sizeof g_pool);
  pte_memory_manager mm;
  pte_memory_manager_init(&mm, &ma, planned, np, NULL);
  pte_method *m;
  s = pte_method_load(&prog, "forward", &mm, NULL, NULL, &m, &err);
  if (s != PTE_OK) return fail(s);

  for (size_t i = 0; i < pte_method_num_inputs(m); i++) {
    const pte_evalue *in = pte_method_get_input(m, i);
    if (!in || in->tag != PTE_TAG_TENSOR || in->u.tensor->dtype != PTE_DTYPE_FLOAT) continue;
    const pte_tensor *t = in->u.tensor;
    if (t->numel > sizeof g_ones / sizeof g_ones[0]) return fail(PTE_ERR_OUT_OF_RESOURCES);
    for (size_t k = 0; k < t->numel; k++) g_ones[k] = 1.0f;
    s = pte_method_set_input_tensor(m, i, PTE_DTYPE_FLOAT, t->sizes, t->dim, g_ones, t->numel * sizeof(float), &err);
    if (s != PTE_OK) return fail(s);
  }
  s = pte_method_execute(m, &err);
  if (s != PTE_OK) return fail(s);
  int rc = 0;
  for (size_t i = 0; i < pte_method_num_outputs(m); i++) {
    const pte_evalue *out = pte_method_get_output(m, i);
    if (!out || out->tag != PTE_TAG_TENSOR || out->u.tensor->dtype != PTE_DTYPE_FLOAT) continue;
    const float *d = (const float *)out->u.tensor->data;
    for (size_t k = 0; k < out->u.tensor->numel; k++)
      if (!(d[k] == d[k]) || d[k] > 3.0e38f || d[k] < -3.0e38f) rc = 3;
  }
  pte_method_destroy(m);
  pte_program_destroy(&prog);
  return rc;
}
