/* Dynamic shapes end to end: a program written with pte's writer whose input is DYNAMIC_BOUND
 * ([B, 6], B <= 8) and whose reshapes are driven by symbolic sizes computed by the primitive ops:
 *
 *   s0 = aten::sym_size.int(x, 0)                    (B)
 *   a  = executorch_prim::mul.Scalar(s0, 6)          (6B)
 *   r  = executorch_prim::floordiv.Scalar(a, 2)      (3B)
 *   y1 = aten::view_copy(x, [r, 2])                  [3B, 2]
 *   y2 = aten::mul.Scalar_out(y1, 2.0)               [3B, 2]
 *   t  = aten::sym_size.int(y2, 0)                   (3B)
 *   u  = executorch_prim::floordiv.int(t, 3)         (B)
 *   y3 = aten::view_copy(y2, [u, 3, 2])              [B, 3, 2]
 *   s  = aten::sum.IntList_out(y3, [2])              [B, 3]
 *   outputs: y3, s, u
 *
 * Only the portable library is registered: the prim ops come from the runtime. The method runs
 * at B = 8, 3, 1 and 5 (one loaded method: every tensor shrinks and grows again); expected values
 * are derived by hand: y3[b][j][k] = 2 x[b][2j+k], s[b][j] = 2 (x[b][2j] + x[b][2j+1]), u = B.
 * `pte run` (the CLI) runs the same file with a smaller .npy input written by numpy and its JSON
 * output is compared with numpy's result, and a 2^26-row bound (3 GiB planned) runs a [2, 6] input
 * (or says how many bytes it needs). Bad inputs (above the bound, wrong rank) are refused
 * with a specific message. */
#include "json.h"
#include "pte/data_loader.h"
#include "pte/data_writer.h"
#include "pte/io.h"
#include "pte/method.h"
#include "pte/portable_kernels.h"
#include "pte/program.h"
#include "pte/writer.h"
#include "test.h"

#define BMAX 8
static int32_t g_bmax = BMAX; /* the bound written into the program */

typedef struct builder {
  pte_writer *w;
  uint32_t m, chain;
  pte_error_info err;
  bool ok;
} builder;

static int32_t dyn_tensor(builder *b, size_t dim, const int32_t *bound) {
  int32_t v = -1;
  if (!b->ok) return v;
  pte_wr_tensor t;
  memset(&t, 0, sizeof t);
  t.dtype = PTE_DTYPE_FLOAT;
  t.dim = dim;
  t.sizes = bound;
  t.dynamism = PTE_SHAPE_DYNAMIC_BOUND;
  t.plan = PTE_WR_PLAN_AUTO;
  t.mem_id = 1;
  b->ok = pte_writer_add_tensor(b->w, b->m, &t, &v, &b->err) == PTE_OK;
  return v;
}
static int32_t ival(builder *b, int64_t x) {
  int32_t v = -1;
  if (b->ok) b->ok = pte_writer_add_int(b->w, b->m, x, &v, &b->err) == PTE_OK;
  return v;
}
static int32_t list(builder *b, const int64_t *value_indices, size_t n) {
  int32_t v = -1;
  if (b->ok) b->ok = pte_writer_add_int_list(b->w, b->m, value_indices, n, &v, &b->err) == PTE_OK;
  return v;
}
static void call(builder *b, const char *name, const char *overload, const int32_t *args, size_t n) {
  uint32_t op;
  if (b->ok) b->ok = pte_writer_add_operator(b->w, b->m, name, overload, &op, &b->err) == PTE_OK;
  if (b->ok) b->ok = pte_writer_add_kernel_call(b->w, b->m, b->chain, op, args, n, NULL, &b->err) == PTE_OK;
}

/* Builds the program; writes it to `path` if non-NULL, else returns it in *bytes. */
static bool build(const char *path, uint8_t **bytes, size_t *size, pte_error_info *err) {
  builder b;
  memset(&b, 0, sizeof b);
  b.ok = pte_writer_create(NULL, &b.w, &b.err) == PTE_OK;
  if (b.ok) b.ok = pte_writer_add_method(b.w, "forward", &b.m, &b.err) == PTE_OK;
  const int32_t bx[] = {g_bmax, 6}, b12[] = {3 * g_bmax, 2}, b3[] = {g_bmax, 3, 2}, bs[] = {g_bmax, 3};
  const int32_t x = dyn_tensor(&b, 2, bx), y1 = dyn_tensor(&b, 2, b12), y2 = dyn_tensor(&b, 2, b12);
  const int32_t y3 = dyn_tensor(&b, 3, b3), s = dyn_tensor(&b, 2, bs);
  const int32_t zero = ival(&b, 0), two = ival(&b, 2), three = ival(&b, 3), six = ival(&b, 6);
  const int32_t s0 = ival(&b, 0), a = ival(&b, 0), r = ival(&b, 0), t = ival(&b, 0), u = ival(&b, 0);
  int32_t two_d = -1, f = -1, dtype_none = -1;
  if (b.ok) b.ok = pte_writer_add_double(b.w, b.m, 2.0, &two_d, &b.err) == PTE_OK;
  if (b.ok) b.ok = pte_writer_add_bool(b.w, b.m, false, &f, &b.err) == PTE_OK;
  if (b.ok) b.ok = pte_writer_add_null(b.w, b.m, &dtype_none, &b.err) == PTE_OK;
  const int64_t l1[] = {r, two}, l2[] = {u, three, two}, l3[] = {two};
  const int32_t L1 = list(&b, l1, 2), L2 = list(&b, l2, 3), L3 = list(&b, l3, 1);
  if (b.ok) b.ok = pte_writer_set_inputs(b.w, b.m, &x, 1, &b.err) == PTE_OK;
  const int32_t outs[3] = {y3, s, u};
  if (b.ok) b.ok = pte_writer_set_outputs(b.w, b.m, outs, 3, &b.err) == PTE_OK;
  if (b.ok) b.ok = pte_writer_add_chain(b.w, b.m, &x, 1, outs, 3, &b.chain, &b.err) == PTE_OK;
  call(&b, "aten::sym_size", "int", (const int32_t[]){x, zero, s0}, 3);
  call(&b, "executorch_prim::mul", "Scalar", (const int32_t[]){s0, six, a}, 3);
  call(&b, "executorch_prim::floordiv", "Scalar", (const int32_t[]){a, two, r}, 3);
  call(&b, "aten::view_copy", "out", (const int32_t[]){x, L1, y1, y1}, 4);
  call(&b, "aten::mul", "Scalar_out", (const int32_t[]){y1, two_d, y2, y2}, 4);
  call(&b, "aten::sym_size", "int", (const int32_t[]){y2, zero, t}, 3);
  call(&b, "executorch_prim::floordiv", "int", (const int32_t[]){t, three, u}, 3);
  call(&b, "aten::view_copy", "out", (const int32_t[]){y2, L2, y3, y3}, 4);
  call(&b, "aten::sum", "IntList_out", (const int32_t[]){y3, L3, f, dtype_none, s, s}, 6);
  if (b.ok) {
    if (path) {
      b.ok = pte_writer_write_file(b.w, path, NULL, &b.err) == PTE_OK;
    } else {
      pte_memory_writer mw;
      pte_memory_writer_init(&mw, pte_heap_realloc, NULL, 0);
      b.ok = pte_writer_write(b.w, &mw.base, &b.err) == PTE_OK;
      if (b.ok) {
        const uint8_t *d = pte_memory_writer_data(&mw, size);
        *bytes = (uint8_t *)aligned_alloc(64, (*size + 63) / 64 * 64);
        memcpy(*bytes, d, *size);
      }
      pte_data_writer_destroy(&mw.base);
    }
  }
  if (!b.ok) *err = b.err;
  pte_writer_destroy(b.w);
  return b.ok;
}

TEST(sym_size_chain_at_three_sizes) {
  pte_kernel_registry_reset();
  CHECK_OK(pte_register_portable_kernels());
  pte_error_info err;
  memset(&err, 0, sizeof err);
  uint8_t *bytes = NULL;
  size_t size = 0;
  CHECK_MSG(build(NULL, &bytes, &size, &err), "build: %s", err.msg);
  pte_buffer_loader bl;
  pte_buffer_loader_init(&bl, bytes, size);
  pte_program prog;
  CHECK_MSG(pte_program_load(&bl.base, PTE_VERIFY_INTERNAL_CONSISTENCY, &prog, &err) == PTE_OK, "load: %s", err.msg);
  pte_method_meta meta;
  CHECK_OK(pte_method_meta_get(&prog, "forward", &meta, &err));
  uint64_t arena_size = 0;
  CHECK_OK(pte_method_meta_planned_buffer_size(&meta, 0, &arena_size));
  uint8_t *arena = (uint8_t *)calloc(1, (size_t)arena_size + 64);
  static uint8_t pool[64 * 1024];
  pte_allocator ma;
  pte_allocator_init(&ma, pool, sizeof pool);
  pte_planned_buffer pb = {arena, (size_t)arena_size};
  pte_memory_manager mm;
  pte_memory_manager_init(&mm, &ma, &pb, 1, NULL);
  pte_method *m = NULL;
  CHECK_MSG(pte_method_load(&prog, "forward", &mm, NULL, NULL, &m, &err) == PTE_OK, "method: %s", err.msg);

  const int sizes_b[] = {8, 3, 1, 5};
  for (size_t run = 0; run < 4; run++) {
    const int B = sizes_b[run];
    float x[BMAX * 6];
    for (int i = 0; i < B * 6; i++) x[i] = (float)(i * 7 % 13) * 0.5f - 2.0f + (float)run;
    const int32_t xs[] = {B, 6};
    CHECK_MSG(pte_method_set_input_tensor(m, 0, PTE_DTYPE_FLOAT, xs, 2, x, sizeof(float) * (size_t)(B * 6), &err) ==
                  PTE_OK,
              "B=%d input: %s", B, err.msg);
    CHECK_MSG(pte_method_execute(m, &err) == PTE_OK, "B=%d execute: %s", B, err.msg);
    const pte_evalue *o0 = pte_method_get_output(m, 0), *o1 = pte_method_get_output(m, 1);
    const pte_evalue *o2 = pte_method_get_output(m, 2);
    CHECK(o0 && o0->tag == PTE_TAG_TENSOR && o1 && o1->tag == PTE_TAG_TENSOR && o2);
    CHECK_MSG(o2->tag == PTE_TAG_INT && o2->u.i == B, "B=%d: u is %s %lld", B, pte_tag_name((int)o2->tag),
              (long long)o2->u.i);
    const pte_tensor *y3 = o0->u.tensor, *s = o1->u.tensor;
    CHECK_MSG(y3->dim == 3 && y3->sizes[0] == B && y3->sizes[1] == 3 && y3->sizes[2] == 2, "B=%d: y3 [%d,%d,%d]", B,
              (int)y3->sizes[0], (int)y3->sizes[1], (int)y3->sizes[2]);
    CHECK_MSG(s->dim == 2 && s->sizes[0] == B && s->sizes[1] == 3, "B=%d: s [%d,%d]", B, (int)s->sizes[0],
              (int)s->sizes[1]);
    CHECK_EQ_INT(y3->numel, (size_t)(B * 6));
    const float *py = (const float *)y3->data, *ps = (const float *)s->data;
    for (int bb = 0; bb < B; bb++)
      for (int j = 0; j < 3; j++) {
        for (int k = 0; k < 2; k++)
          CHECK_MSG(py[bb * 6 + j * 2 + k] == 2.0f * x[bb * 6 + 2 * j + k], "B=%d y3[%d][%d][%d]", B, bb, j, k);
        const float want = 2.0f * x[bb * 6 + 2 * j] + 2.0f * x[bb * 6 + 2 * j + 1];
        CHECK_MSG(ps[bb * 3 + j] == want, "B=%d s[%d][%d] = %g, expected %g", B, bb, j, ps[bb * 3 + j], want);
      }
  }
  /* above the bound and wrong rank: refused with a specific message */
  float big[9 * 6] = {0};
  const int32_t s9[] = {9, 6}, s3[] = {2, 3, 1};
  CHECK_STATUS(pte_method_set_input_tensor(m, 0, PTE_DTYPE_FLOAT, s9, 2, big, sizeof big, &err), PTE_ERR_NOT_SUPPORTED);
  CHECK_CONTAINS(err.msg, "input 0: float32[9, 6] has 54 elements, more than the 48 its dynamic bound holds (192 bytes)");
  CHECK_STATUS(pte_method_set_input_tensor(m, 0, PTE_DTYPE_FLOAT, s3, 3, big, 24, &err), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(err.msg, ", got float32[2, 3, 1]"); /* the rank differs */
  pte_method_destroy(m);
  pte_program_destroy(&prog);
  free(arena);
  free(bytes);
}

/* `pte run` on the same program with a smaller input; numpy is the oracle. */
TEST(cli_runs_smaller_input_against_numpy) {
  const char *cli = getenv("PTE_CLI");
  CHECK_MSG(cli != NULL, "PTE_CLI must be set (run through ctest)");
  char dir[1024], prog[1200], npy[1200], cmd[4096];
  snprintf(dir, sizeof dir, "%s", test_tmp_path("dyn_sym"));
  snprintf(cmd, sizeof cmd, "mkdir -p '%s'", dir);
  CHECK(system(cmd) == 0);
  snprintf(prog, sizeof prog, "%s/sym.pte", dir);
  snprintf(npy, sizeof npy, "%s/x.npy", dir);
  pte_error_info err;
  memset(&err, 0, sizeof err);
  CHECK_MSG(build(prog, NULL, NULL, &err), "build: %s", err.msg);
  /* numpy writes a [5, 6] input and prints the expected s = (2x).reshape(5,3,2).sum(2) */
  snprintf(cmd, sizeof cmd,
           "/usr/bin/python3 -c 'import numpy as np\n"
           "x=(np.arange(30,dtype=np.float32)*np.float32(0.375)-np.float32(4)).reshape(5,6)\n"
           "np.save(\"%s\",x)\n"
           "s=(np.float32(2)*x).reshape(5,3,2).sum(axis=2,dtype=np.float32)\n"
           "print(\" \".join(repr(float(v)) for v in s.ravel()))'",
           npy);
  int code = -1;
  char *expect = test_run_capture(cmd, &code);
  CHECK_MSG(expect && code == 0, "python3/numpy oracle unavailable");
  double want[15];
  int n = 0;
  for (char *p = expect; n < 15;) {
    char *end;
    want[n] = strtod(p, &end);
    if (end == p) break;
    p = end;
    n++;
  }
  free(expect);
  CHECK_EQ_INT(n, 15);
  snprintf(cmd, sizeof cmd, "'%s' run '%s' --input '%s' --json 2>&1", cli, prog, npy);
  char *out = test_run_capture(cmd, &code);
  CHECK_MSG(out && code == 0, "pte run failed (%d): %s", code, out ? out : "");
  char jerr[256];
  test_json *j = test_json_parse(out, strlen(out), jerr, sizeof jerr);
  CHECK_MSG(j != NULL, "JSON: %s in %.300s", jerr, out);
  free(out);
  const test_json *o0 = test_json_path(j, "outputs[0].sizes"), *o1 = test_json_path(j, "outputs[1].sizes");
  bool shapes = test_json_len(o0) == 3 && test_json_int(test_json_at(o0, 0), -1) == 5 &&
                test_json_int(test_json_at(o0, 1), -1) == 3 && test_json_int(test_json_at(o0, 2), -1) == 2 &&
                test_json_len(o1) == 2 && test_json_int(test_json_at(o1, 0), -1) == 5 &&
                test_json_int(test_json_at(o1, 1), -1) == 3;
  const test_json *vals = test_json_path(j, "outputs[1].values");
  size_t nv = test_json_len(vals);
  double got[15];
  for (size_t i = 0; i < nv && i < 15; i++) got[i] = test_json_num(test_json_at(vals, i), NAN);
  test_json_free(j);
  CHECK_MSG(shapes, "pte run reported other output shapes");
  CHECK_EQ_INT(nv, 15);
  for (int i = 0; i < 15; i++) CHECK_MSG(got[i] == want[i], "s[%d] = %.9g, numpy %.9g", i, got[i], want[i]);
}

/* A bound of 2^26 rows: the planned arena is 3 GiB (3221225472 bytes). `pte run` with a [2, 6]
 * input either runs it (the arena is only touched where the small tensors live) with the
 * hand-derived s = [2, 10, 18, 26, 34, 42] for x = 0..11, or, where the allocation is refused,
 * says how many bytes the method needs. */
TEST(cli_huge_bound_small_input) {
  const char *cli = getenv("PTE_CLI");
  CHECK_MSG(cli != NULL, "PTE_CLI must be set (run through ctest)");
  char dir[1024], prog[1200], npy[1200], cmd[4096];
  snprintf(dir, sizeof dir, "%s", test_tmp_path("dyn_huge"));
  snprintf(cmd, sizeof cmd, "mkdir -p '%s'", dir);
  CHECK(system(cmd) == 0);
  snprintf(prog, sizeof prog, "%s/huge.pte", dir);
  snprintf(npy, sizeof npy, "%s/x.npy", dir);
  pte_error_info err;
  memset(&err, 0, sizeof err);
  g_bmax = 1 << 26;
  bool built = build(prog, NULL, NULL, &err);
  g_bmax = BMAX;
  CHECK_MSG(built, "build: %s", err.msg);
  snprintf(cmd, sizeof cmd,
           "/usr/bin/python3 -c 'import numpy as np; np.save(\"%s\", np.arange(12, dtype=np.float32).reshape(2, 6))'",
           npy);
  int code = -1;
  char *o = test_run_capture(cmd, &code);
  free(o);
  CHECK_MSG(code == 0, "python3/numpy unavailable");
  snprintf(cmd, sizeof cmd, "'%s' run '%s' --input '%s' 2>&1", cli, prog, npy);
  char *out = test_run_capture(cmd, &code);
  CHECK(out != NULL);
  bool ran = code == 0 && strstr(out, "float32[2, 3] = [2, 10, 18, 26, 34, 42]") && strstr(out, "Int 2");
  bool refused = code == 1 && strstr(out, "3221225472 bytes");
  if (!ran && !refused) fprintf(stderr, "  rc %d: %s\n", code, out);
  free(out);
  CHECK(ran || refused);
}

int main(void) {
  RUN(sym_size_chain_at_three_sizes);
  RUN(cli_runs_smaller_input_against_numpy);
  RUN(cli_huge_bound_small_input);
  return test_summary();
}
