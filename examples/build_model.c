/* build_model.c — build a program with the writer API, write it, load it back and run it.
 *
 *   build_model out.pte
 *
 * forward(x: float[1,3]) = relu(linear(x, W, b)) with W = [[1,2,3],[-4,-5,-6]], b = [0.5, 0.5]:
 * two kernel calls (aten::linear.out, aten::relu.out), constants W and b in the constant segment,
 * x / hidden / output placed by the writer's memory planner. For x = ones it prints
 * "output 0: 6.5 0" (6.5 = 1+2+3+0.5; -15+0.5 clamped to 0).
 */
#include <stdio.h>
#include <string.h>

#include "pte/io.h"
#include "pte/method.h"
#include "pte/portable_kernels.h"
#include "pte/program.h"
#include "pte/writer.h"

static const float W[6] = {1, 2, 3, -4, -5, -6}, B[2] = {0.5f, 0.5f};

/* Adds a float tensor value (planned by the writer when data == NULL, else a constant). */
static pte_status tensor(pte_writer *w, uint32_t m, int dim, const int32_t *sizes, const float *data, size_t n,
                         int32_t *value, pte_error_info *err) {
  pte_wr_tensor t;
  memset(&t, 0, sizeof t);
  t.dtype = PTE_DTYPE_FLOAT;
  t.dim = (size_t)dim;
  t.sizes = sizes;
  if (!data) {
    t.plan = PTE_WR_PLAN_AUTO;
    return pte_writer_add_tensor(w, m, &t, value, err);
  }
  pte_source src = pte_source_memory(data, n * sizeof(float));
  return pte_writer_add_constant_tensor(w, m, &t, &src, value, err);
}

static pte_status build(const char *path, pte_error_info *err) {
  static const int32_t s_x[2] = {1, 3}, s_w[2] = {2, 3}, s_b[1] = {2}, s_y[2] = {1, 2};
  pte_writer *w;
  uint32_t m, chain, op_linear, op_relu;
  int32_t x, wv, bv, h, y;
  pte_status s = pte_writer_create(NULL, &w, err);
  if (s != PTE_OK) return s;
  if ((s = pte_writer_add_method(w, "forward", &m, err)) == PTE_OK &&
      (s = tensor(w, m, 2, s_x, NULL, 0, &x, err)) == PTE_OK &&
      (s = tensor(w, m, 2, s_w, W, 6, &wv, err)) == PTE_OK &&
      (s = tensor(w, m, 1, s_b, B, 2, &bv, err)) == PTE_OK &&
      (s = tensor(w, m, 2, s_y, NULL, 0, &h, err)) == PTE_OK &&
      (s = tensor(w, m, 2, s_y, NULL, 0, &y, err)) == PTE_OK &&
      (s = pte_writer_add_operator(w, m, "aten::linear", "out", &op_linear, err)) == PTE_OK &&
      (s = pte_writer_add_operator(w, m, "aten::relu", "out", &op_relu, err)) == PTE_OK &&
      (s = pte_writer_add_chain(w, m, &x, 1, &y, 1, &chain, err)) == PTE_OK) {
    /* out-variant kernels take their output twice: as the `out` argument and as the result */
    const int32_t linear_args[5] = {x, wv, bv, h, h}, relu_args[3] = {h, y, y};
    if ((s = pte_writer_add_kernel_call(w, m, chain, op_linear, linear_args, 5, NULL, err)) == PTE_OK &&
        (s = pte_writer_add_kernel_call(w, m, chain, op_relu, relu_args, 3, NULL, err)) == PTE_OK &&
        (s = pte_writer_set_inputs(w, m, &x, 1, err)) == PTE_OK &&
        (s = pte_writer_set_outputs(w, m, &y, 1, err)) == PTE_OK)
      s = pte_writer_write_file(w, path, NULL, err);
  }
  pte_writer_destroy(w);
  return s;
}

static pte_status run(const char *path, pte_error_info *err) {
  static unsigned char pool_mem[64 << 10], arena[4096];
  pte_file_loader fl;
  pte_program prog;
  pte_method *m;
  pte_method_meta meta;
  uint64_t planned = 0;
  pte_status s = pte_file_loader_open(&fl, path, 0, err);
  if (s != PTE_OK) return s;
  if ((s = pte_program_load(&fl.base, PTE_VERIFY_INTERNAL_CONSISTENCY, &prog, err)) != PTE_OK)
    return pte_file_loader_close(&fl), s;
  if ((s = pte_method_meta_get(&prog, "forward", &meta, err)) == PTE_OK &&
      (s = pte_method_meta_planned_buffer_size(&meta, 0, &planned)) == PTE_OK && planned > sizeof arena)
    s = pte_error_set(err, PTE_ERR_OUT_OF_RESOURCES, "planned memory %llu > %zu", (unsigned long long)planned,
                      sizeof arena);
  pte_allocator pool;
  pte_allocator_init(&pool, pool_mem, sizeof pool_mem);
  pte_planned_buffer buf = {arena, (size_t)planned};
  pte_memory_manager mm;
  pte_memory_manager_init(&mm, &pool, &buf, 1, NULL);
  if (s == PTE_OK && (s = pte_method_load(&prog, "forward", &mm, NULL, NULL, &m, err)) == PTE_OK) {
    const float ones[3] = {1, 1, 1};
    const int32_t sizes[2] = {1, 3};
    if ((s = pte_method_set_input_tensor(m, 0, PTE_DTYPE_FLOAT, sizes, 2, ones, sizeof ones, err)) == PTE_OK &&
        (s = pte_method_execute(m, err)) == PTE_OK) {
      const pte_tensor *out = pte_method_get_output(m, 0)->u.tensor;
      printf("output 0:");
      for (size_t k = 0; k < out->numel; k++) printf(" %g", ((const float *)out->data)[k]);
      printf("\n");
    }
    pte_method_destroy(m);
  }
  pte_program_destroy(&prog);
  pte_file_loader_close(&fl);
  return s;
}

int main(int argc, char **argv) {
  pte_error_info err;
  if (argc != 2) return fprintf(stderr, "usage: %s out.pte\n", argv[0]), 2;
  if (build(argv[1], &err) != PTE_OK) return fprintf(stderr, "build: %s\n", err.msg), 1;
  printf("wrote %s\n", argv[1]);
  pte_register_portable_kernels();
  if (run(argv[1], &err) != PTE_OK) return fprintf(stderr, "run: %s\n", err.msg), 1;
  return 0;
}
