/* A core built with PTE_PRIM_OPS_BUILTIN=0 (the Cortex-M build, docs/mcu.md): kernel lookup does not
 * fall back to the primitive operators; pte_register_prim_ops() makes them available like any
 * kernel library. This test compiles the kernel registry (src/runtime/kernel.c) itself with that
 * setting, so its registry replaces the library's in this executable (the archive member is not
 * linked: every symbol it defines is already defined here). Expected: NULL before registration,
 * the prim-op table's own function after it (pte_prim_lookup, which does not depend on the
 * setting). */
#define PTE_PRIM_OPS_BUILTIN 0
#include "../../src/runtime/kernel.c"

#include "test.h"

static const char *const k_some[] = {"aten::sym_size.int", "aten::sym_numel", "executorch_prim::add.Scalar",
                                     "executorch_prim::et_view.default"};

TEST(no_fallback_until_registered) {
  pte_kernel_registry_reset();
  for (size_t i = 0; i < 4; i++) {
    CHECK_MSG(pte_prim_lookup(k_some[i]) != NULL, "%s", k_some[i]);
    CHECK_MSG(pte_kernel_lookup(k_some[i], NULL, NULL, 0) == NULL, "%s found without registration", k_some[i]);
  }
  CHECK_OK(pte_register_prim_ops());
  CHECK_EQ_INT(pte_num_registered_kernels(), 28);
  for (size_t i = 0; i < 4; i++)
    CHECK_MSG(pte_kernel_lookup(k_some[i], NULL, NULL, 0) == pte_prim_lookup(k_some[i]), "%s", k_some[i]);
  pte_kernel_registry_reset();
  CHECK(pte_kernel_lookup("aten::sym_numel", NULL, NULL, 0) == NULL);
}

int main(void) {
  RUN(no_fallback_until_registered);
  return test_summary();
}
