/* mcu_select.c — selective kernel registration for the Cortex-M images (docs/mcu.md), host side:
 * `pte_mcu_host kernels MODEL.pte OUT.c MAX` reads the operator names of every method of MODEL and
 * writes OUT.c, which defines
 *
 *   pte_status pte_mcu_register_kernels(pte_error_info *err);
 *
 * registering only the kernel families (one family = one table of a kernel library, e.g. the
 * portable binary ops or the cortex_m convolutions) that hold one of those operators, in the same
 * order as registering the whole libraries (portable, cortex_m, quantized), so lookups resolve to
 * the same kernels. The image references only those tables, and --gc-sections drops every other
 * kernel. Operators found in no family but among the primitive operators add
 * pte_register_prim_ops() (the MCU core does not fall back to them by itself).
 * Fails (exit 1, a message naming the operator) when an operator has no kernel at all, or when the
 * selected kernels exceed MAX (the image's registry capacity, PTE_MAX_KERNELS).
 *
 * The family list below mirrors the libraries' register.c; mcu_select_check() compares it with the
 * libraries' own enumeration (pte_*_kernel(i)) so a family added there and not here is an error,
 * never a silently missing kernel. */
#include <stdio.h>
#include <string.h>

#include "format/flatbuf.h"
#include "mcu_select.h"
#include "pte/cortex_m_kernels.h"
#include "pte/portable_kernels.h"
#include "pte/program.h"
#include "pte/quantized_kernels.h"
#include "pte_gen/program_gen.h"

#include "cortex_m/cm_ops.h"
#include "portable/portable_activation.h"
#include "portable/portable_binary.h"
#include "portable/portable_bitwise.h"
#include "portable/portable_compare.h"
#include "portable/portable_copy.h"
#include "portable/portable_creation.h"
#include "portable/portable_index.h"
#include "portable/portable_math.h"
#include "portable/portable_nn.h"
#include "portable/portable_pad.h"
#include "portable/portable_rearrange.h"
#include "portable/portable_reduce.h"
#include "portable/portable_scatter.h"
#include "portable/portable_shape.h"
#include "portable/portable_unary.h"
#include "portable/portable_view.h"
#include "quantized/q_ops.h"

typedef struct sel_family {
  int lib;               /* 0 portable, 1 cortex_m, 2 quantized */
  const char *header;    /* declares the table, relative to kernels/ */
  const char *sym;       /* the table's name; its count is sym ## _count */
  const pte_kernel *kernels;
  const size_t *count;
} sel_family;

#define SEL_P(name, hdr) {0, "portable/" hdr, "pte_portable_" #name "_kernels", pte_portable_##name##_kernels, &pte_portable_##name##_kernels_count}
#define SEL_CM(name) {1, "cortex_m/cm_ops.h", "pte_cm_" #name "_kernels", pte_cm_##name##_kernels, &pte_cm_##name##_kernels_count}
#define SEL_Q(name) {2, "quantized/q_ops.h", "pte_q_" #name "_kernels", pte_q_##name##_kernels, &pte_q_##name##_kernels_count}

/* in each library's registration order (kernels/<lib>/register.c) */
static const sel_family k_sel_families[] = {
    SEL_P(binary, "portable_binary.h"),       SEL_P(unary, "portable_unary.h"),
    SEL_P(activation, "portable_activation.h"), SEL_P(compare, "portable_compare.h"),
    SEL_P(copy, "portable_copy.h"),           SEL_P(shape, "portable_shape.h"),
    SEL_P(index, "portable_index.h"),         SEL_P(reduce, "portable_reduce.h"),
    SEL_P(linalg, "portable_nn.h"),           SEL_P(conv, "portable_nn.h"),
    SEL_P(pool, "portable_nn.h"),             SEL_P(norm, "portable_nn.h"),
    SEL_P(softmax, "portable_nn.h"),          SEL_P(umath, "portable_math.h"),
    SEL_P(bitwise, "portable_bitwise.h"),     SEL_P(view, "portable_view.h"),
    SEL_P(rearrange, "portable_rearrange.h"), SEL_P(scatter, "portable_scatter.h"),
    SEL_P(pad, "portable_pad.h"),             SEL_P(creation, "portable_creation.h"),
    SEL_P(var, "portable_reduce.h"),          SEL_P(distance, "portable_nn.h"),
    SEL_P(upsample, "portable_nn.h"),         SEL_P(grid_sample, "portable_nn.h"),
    SEL_P(conv_backward, "portable_nn.h"),
    SEL_CM(quant),   SEL_CM(elementwise), SEL_CM(linear), SEL_CM(softmax),
    SEL_CM(shape),   SEL_CM(conv),        SEL_CM(pool),
    SEL_Q(quantize), SEL_Q(dequantize),   SEL_Q(choose_qparams), SEL_Q(embedding),
    SEL_Q(mixed),    SEL_Q(add),
};
#define SEL_N (sizeof k_sel_families / sizeof k_sel_families[0])

/* The list above against each library's own enumeration, kernel by kernel. */
static int mcu_select_check(void) {
  size_t (*count[3])(void) = {pte_portable_kernel_count, pte_cortex_m_kernel_count, pte_quantized_kernel_count};
  const pte_kernel *(*at[3])(size_t) = {pte_portable_kernel, pte_cortex_m_kernel, pte_quantized_kernel};
  static const char *const lib_name[3] = {"portable", "cortex_m", "quantized"};
  for (int lib = 0; lib < 3; lib++) {
    size_t i = 0;
    for (size_t f = 0; f < SEL_N; f++) {
      if (k_sel_families[f].lib != lib) continue;
      for (size_t k = 0; k < *k_sel_families[f].count; k++, i++) {
        const pte_kernel *want = at[lib](i);
        if (!want || want->fn != k_sel_families[f].kernels[k].fn) {
          fprintf(stderr, "pte_mcu_host kernels: family list out of date: %s kernel %zu is not %s[%zu] (update mcu_select.c)\n",
                  lib_name[lib], i, k_sel_families[f].sym, k);
          return 1;
        }
      }
    }
    if (i != count[lib]()) {
      fprintf(stderr, "pte_mcu_host kernels: family list out of date: %s has %zu kernels, the list %zu (update mcu_select.c)\n",
              lib_name[lib], count[lib](), i);
      return 1;
    }
  }
  return 0;
}

static int family_has(const sel_family *f, const char *name) {
  for (size_t k = 0; k < *f->count; k++)
    if (strcmp(f->kernels[k].name, name) == 0) return 1;
  return 0;
}

int pte_mcu_select_write(const pte_program *prog, const char *model_name, const char *out_path, size_t max_kernels) {
  if (mcu_select_check() != 0) return 1;
  size_t fbsize = 0;
  const uint8_t *fb = pte_program_flatbuffer(prog, &fbsize);
  pte_fb_table root = pte_fb_root(fb, fbsize);
  pte_fb_vec plans = pte_et_Program_execution_plan(root);
  unsigned char used[SEL_N];
  memset(used, 0, sizeof used);
  const char *why[SEL_N] = {0};
  static char names[256][200]; /* the operators, for the comments */
  size_t n_names = 0;
  int prim = 0;
  for (uint32_t m = 0; m < plans.len; m++) {
    pte_fb_vec ops = pte_et_ExecutionPlan_operators(pte_fb_vec_table(plans, m));
    for (uint32_t i = 0; i < ops.len; i++) {
      pte_fb_table op = pte_fb_vec_table(ops, i);
      pte_fb_str nm = pte_et_Operator_name(op), ov = pte_et_Operator_overload(op);
      char name[200];
      snprintf(name, sizeof name, "%.*s%s%.*s", (int)nm.len, nm.ptr ? nm.ptr : "", ov.len ? "." : "", (int)ov.len,
               ov.ptr ? ov.ptr : "");
      size_t seen = 0;
      while (seen < n_names && strcmp(names[seen], name) != 0) seen++;
      if (seen < n_names) continue;
      if (n_names == sizeof names / sizeof names[0]) {
        fprintf(stderr, "pte_mcu_host kernels: more than %zu distinct operators\n", n_names);
        return 1;
      }
      memcpy(names[n_names++], name, sizeof name);
      int found = 0;
      for (size_t f = 0; f < SEL_N; f++)
        if (family_has(&k_sel_families[f], name)) {
          if (!used[f]) why[f] = names[n_names - 1];
          used[f] = 1;
          found = 1;
        }
      if (!found && pte_prim_lookup(name)) found = prim = 1;
      if (!found) {
        fprintf(stderr, "pte_mcu_host kernels: operator %s of %s has no kernel in the portable, cortex_m or quantized "
                        "libraries nor among the prim ops\n", name, model_name);
        return 1;
      }
    }
  }
  size_t total = prim ? pte_prim_kernel_count() : 0;
  for (size_t f = 0; f < SEL_N; f++)
    if (used[f]) total += *k_sel_families[f].count;
  if (total > max_kernels) {
    fprintf(stderr, "pte_mcu_host kernels: %s needs %zu kernels, the registry holds %zu (raise PTE_MAX_KERNELS)\n",
            model_name, total, max_kernels);
    return 1;
  }
  FILE *o = fopen(out_path, "w");
  if (!o) {
    fprintf(stderr, "pte_mcu_host kernels: cannot write %s\n", out_path);
    return 1;
  }
  fprintf(o, "/* Generated by `pte_mcu_host kernels` from %s: the kernel families its operators need\n"
             " * (targets/qemu/mcu_select.c). %zu kernels registered; registry capacity %zu. Operators:\n",
          model_name, total, max_kernels);
  for (size_t i = 0; i < n_names; i++) fprintf(o, " *   %s\n", names[i]);
  fprintf(o, " */\n#include \"pte/kernel.h\"\n");
  for (size_t f = 0; f < SEL_N; f++) {
    if (!used[f]) continue;
    size_t g = 0; /* one #include per header */
    while (g < f && !(used[g] && strcmp(k_sel_families[g].header, k_sel_families[f].header) == 0)) g++;
    if (g == f) fprintf(o, "#include \"%s\"\n", k_sel_families[f].header);
  }
  fprintf(o, "\npte_status pte_mcu_register_kernels(pte_error_info *err);\n\n");
  fprintf(o, "pte_status pte_mcu_register_kernels(pte_error_info *err) {\n  pte_status s = PTE_OK;\n");
  for (size_t f = 0; f < SEL_N; f++)
    if (used[f])
      fprintf(o, "  if (s == PTE_OK) s = pte_register_kernels_ex(%s, %s_count, err); /* %s */\n", k_sel_families[f].sym,
              k_sel_families[f].sym, why[f]);
  if (prim) fprintf(o, "  if (s == PTE_OK) s = pte_register_prim_ops();\n");
  fprintf(o, "  return s;\n}\n");
  if (fclose(o) != 0) {
    fprintf(stderr, "pte_mcu_host kernels: cannot write %s\n", out_path);
    return 1;
  }
  return 0;
}
