/* module_run.c — run a model with the Module API (pte/module.h).
 *   module_run model.pte [--data weights.ptd] [--method NAME] [input0.bin input1.bin ...]
 * Each input file holds raw C-order data of the method's tensor input (its declared dtype and
 * shape); without files, float inputs are all ones. Prints float32 outputs as
 * "output 0: 2 3 4" (arduino_AddModel.pte on [1,2,3]) and other outputs by dtype and shape. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pte/pte.h"

static void *read_file(const char *path, size_t *size) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  void *p = NULL;
  long n = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
  if (n >= 0 && fseek(f, 0, SEEK_SET) == 0 && (p = malloc((size_t)n + 1)) && fread(p, 1, (size_t)n, f) != (size_t)n) {
    free(p);
    p = NULL;
  }
  fclose(f);
  *size = (size_t)(n > 0 ? n : 0);
  return p;
}

static int fail(const char *what, const pte_error_info *err) {
  fprintf(stderr, "%s: %s (0x%02x): %s\n", what, pte_status_name(err->status), (unsigned)err->status, err->msg);
  return 1;
}

int main(int argc, char **argv) {
  pte_module_options opts = {0}; /* mmap loader, full verification, every kernel and backend */
  const char *method = "forward", *model = NULL, *inputs[16];
  int n_inputs = 0;
  for (int a = 1; a < argc; a++) {
    if (!strcmp(argv[a], "--data") && a + 1 < argc) opts.data_path = argv[++a];
    else if (!strcmp(argv[a], "--method") && a + 1 < argc) method = argv[++a];
    else if (!model) model = argv[a];
    else if (n_inputs < 16) inputs[n_inputs++] = argv[a];
  }
  if (!model) return fprintf(stderr, "usage: %s model.pte [--data F.ptd] [--method M] [input.bin]...\n", argv[0]), 2;

  pte_error_info err;
  pte_module *mod;
  pte_method_meta meta;
  if (pte_module_open(model, &opts, &mod, &err) != PTE_OK ||
      pte_module_method_meta(mod, method, &meta, &err) != PTE_OK) {
    pte_module_destroy(mod);
    return fail(model, &err);
  }
  int rc = 0;
  void *bufs[16] = {0};
  for (size_t i = 0; i < pte_method_meta_num_inputs(&meta) && i < 16 && rc == 0; i++) {
    pte_tensor_info ti;
    if (pte_method_meta_input_tensor_info(&meta, i, &ti) != PTE_OK) continue; /* scalars keep their traced values */
    size_t size = ti.nbytes;
    if ((int)i < n_inputs) {
      bufs[i] = read_file(inputs[i], &size);
      if (!bufs[i]) {
        fprintf(stderr, "%s: cannot read\n", inputs[i]);
        rc = 1;
      }
    } else {
      bufs[i] = calloc(1, ti.nbytes + 1);
      for (size_t k = 0; bufs[i] && ti.dtype == PTE_DTYPE_FLOAT && k < ti.nbytes / 4; k++) ((float *)bufs[i])[k] = 1.0f;
    }
    if (rc == 0 && pte_module_set_input(mod, method, i, (pte_dtype)ti.dtype, ti.sizes, ti.dim, bufs[i], size, &err) != PTE_OK)
      rc = fail(model, &err);
  }
  if (rc == 0 && pte_module_execute(mod, method, &err) != PTE_OK)
    rc = fail(model, &err);
  for (size_t i = 0; rc == 0 && i < pte_module_num_outputs(mod, method); i++) {
    const pte_tensor *t = pte_module_output_tensor(mod, method, i);
    if (!t) {
      printf("output %zu: (%s)\n", i, pte_tag_name((int)pte_module_output(mod, method, i)->tag));
      continue;
    }
    float *y = malloc(pte_tensor_nbytes(t) + 1); /* C order, whatever the method's dim order */
    if (!y || pte_module_output_copy(mod, method, i, y, pte_tensor_nbytes(t), &err) != PTE_OK) {
      free(y);
      rc = fail("output", &err);
      break;
    }
    printf("output %zu:", i);
    if (t->dtype == PTE_DTYPE_FLOAT)
      for (size_t k = 0; k < t->numel; k++) printf(" %g", y[k]);
    else
      printf(" %s tensor of %zu elements", pte_dtype_name(t->dtype), t->numel);
    printf("\n");
    free(y);
  }
  for (int i = 0; i < 16; i++) free(bufs[i]);
  pte_module_destroy(mod);
  return rc;
}
