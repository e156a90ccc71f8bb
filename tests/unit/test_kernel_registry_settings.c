/* The kernel registry's build-time settings (include/pte/kernel.h): its capacity PTE_MAX_KERNELS
 * (RegistrationExceedingMaxKernels = 0x15 with a message naming the capacity when exceeded),
 * pte_register_kernels_ex's messages, and pte_register_prim_ops() (how an image built with
 * PTE_PRIM_OPS_BUILTIN=0 gets the primitive operators).
 * Expected values: the capacity is the header's PTE_MAX_KERNELS this test is compiled with (2000
 * unless CMake -DPTE_MAX_KERNELS says otherwise, which also reaches this file); 0x15 is upstream's
 * Error::RegistrationExceedingMaxKernels; 28 is the number of upstream's prim ops. */
#include <stdio.h>
#include <string.h>

#include "pte/kernel.h"
#include "test.h"

static void k_nop(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  (void)ctx;
  (void)args;
  (void)nargs;
}

static pte_kernel g_many[PTE_MAX_KERNELS + 1];
static char g_names[PTE_MAX_KERNELS + 1][20];

static void fill_many(void) {
  for (size_t i = 0; i <= PTE_MAX_KERNELS; i++) {
    snprintf(g_names[i], sizeof g_names[i], "t::cap%zu", i);
    g_many[i] = (pte_kernel){g_names[i], NULL, k_nop};
  }
}

TEST(capacity_is_the_build_setting) {
  CHECK_EQ_INT(pte_kernel_registry_capacity(), PTE_MAX_KERNELS);
  CHECK_EQ_INT(PTE_ERR_REGISTRATION_EXCEEDING_MAX_KERNELS, 0x15);
  CHECK(strcmp(pte_status_name(PTE_ERR_REGISTRATION_EXCEEDING_MAX_KERNELS), "RegistrationExceedingMaxKernels") == 0);
}

TEST(exactly_capacity_fits_one_more_fails) {
  pte_kernel_registry_reset();
  fill_many();
  pte_error_info err;
  memset(&err, 0, sizeof err);
  /* capacity + 1 in one call: nothing registered */
  CHECK_STATUS(pte_register_kernels_ex(g_many, PTE_MAX_KERNELS + 1, &err), PTE_ERR_REGISTRATION_EXCEEDING_MAX_KERNELS);
  CHECK_EQ_INT(pte_num_registered_kernels(), 0);
  char want[128];
  snprintf(want, sizeof want, "0 registered + %d new > capacity %d", PTE_MAX_KERNELS + 1, PTE_MAX_KERNELS);
  CHECK_MSG(strstr(err.msg, want) != NULL && strstr(err.msg, "PTE_MAX_KERNELS") != NULL, "%s", err.msg);
  /* capacity - 1, then 1: full */
  CHECK_OK(pte_register_kernels_ex(g_many, PTE_MAX_KERNELS - 1, &err));
  CHECK_OK(pte_register_kernels(&g_many[PTE_MAX_KERNELS - 1], 1));
  CHECK_EQ_INT(pte_num_registered_kernels(), PTE_MAX_KERNELS);
  CHECK(pte_kernel_lookup(g_names[PTE_MAX_KERNELS - 1], NULL, NULL, 0) == k_nop);
  /* one more: 0x15, the message names the counts */
  memset(&err, 0, sizeof err);
  CHECK_STATUS(pte_register_kernels_ex(&g_many[PTE_MAX_KERNELS], 1, &err), PTE_ERR_REGISTRATION_EXCEEDING_MAX_KERNELS);
  snprintf(want, sizeof want, "%d registered + 1 new > capacity %d", PTE_MAX_KERNELS, PTE_MAX_KERNELS);
  CHECK_MSG(strstr(err.msg, want) != NULL, "%s", err.msg);
  CHECK_EQ_INT(pte_num_registered_kernels(), PTE_MAX_KERNELS);
  CHECK(pte_kernel_lookup(g_names[PTE_MAX_KERNELS], NULL, NULL, 0) == NULL);
  /* prim ops do not fit either */
  CHECK_STATUS(pte_register_prim_ops(), PTE_ERR_REGISTRATION_EXCEEDING_MAX_KERNELS);
  pte_kernel_registry_reset();
}

TEST(ex_messages_name_the_kernel) {
  pte_kernel_registry_reset();
  pte_error_info err;
  memset(&err, 0, sizeof err);
  CHECK_STATUS(pte_register_kernels_ex(NULL, 3, &err), PTE_ERR_INVALID_ARGUMENT);
  CHECK_MSG(strstr(err.msg, "NULL table of 3 kernels") != NULL, "%s", err.msg);
  pte_kernel two[2] = {{"t::a", NULL, k_nop}, {"t::b", NULL, NULL}};
  CHECK_STATUS(pte_register_kernels_ex(two, 2, &err), PTE_ERR_INVALID_ARGUMENT);
  CHECK_MSG(strstr(err.msg, "kernel 1 has a NULL fn") != NULL, "%s", err.msg);
  CHECK_EQ_INT(pte_num_registered_kernels(), 0);
  pte_kernel a = {"t::a", "v1/6;0", k_nop};
  CHECK_OK(pte_register_kernels_ex(&a, 1, &err));
  CHECK_STATUS(pte_register_kernels_ex(&a, 1, &err), PTE_ERR_REGISTRATION_ALREADY_REGISTERED);
  CHECK_MSG(strstr(err.msg, "'t::a' (key v1/6;0) is already registered") != NULL, "%s", err.msg);
  pte_kernel_registry_reset();
}

/* three kernels with different bodies (distinct addresses even with identical-code folding) */
static int g_which;
static void k_a(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  k_nop(ctx, args, nargs);
  g_which = 1;
}
static void k_b(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  k_nop(ctx, args, nargs);
  g_which = 2;
}
static void k_c(pte_kernel_context *ctx, pte_evalue **args, size_t nargs) {
  k_nop(ctx, args, nargs);
  g_which = 3;
}

/* Lookup (an index over the registry's names): an exact key wins over the name's NULL-key
 * fallback in whatever order they were registered; an unknown key takes the fallback, or nothing
 * when the name has none; every one of a full registry's kernels is found, and a name that is not
 * registered is not (the expected values are the registrations themselves). */
TEST(lookup_exact_key_then_fallback) {
  pte_kernel_registry_reset();
  fill_many();
  /* the keyed and fallback kernels registered among many others, fallback in the middle */
  CHECK_OK(pte_register_kernels(g_many, 100));
  pte_kernel first[2] = {{"t::op", "v1/6;0", k_a}, {"t::keyed_only", "v1/6;0", k_a}};
  CHECK_OK(pte_register_kernels(first, 2));
  CHECK_OK(pte_register_kernels(g_many + 100, 100));
  pte_kernel fb = {"t::op", NULL, k_b};
  CHECK_OK(pte_register_kernels(&fb, 1));
  pte_kernel last = {"t::op", "v1/7;0", k_c};
  CHECK_OK(pte_register_kernels(&last, 1));
  CHECK(pte_kernel_lookup("t::op", "v1/6;0", NULL, 0) == k_a);
  CHECK(pte_kernel_lookup("t::op", "v1/7;0", NULL, 0) == k_c);
  CHECK(pte_kernel_lookup("t::op", "v1/4;0", NULL, 0) == k_b);
  CHECK(pte_kernel_lookup("t::op", NULL, NULL, 0) == k_b);
  CHECK(pte_kernel_lookup("t::keyed_only", "v1/6;0", NULL, 0) == k_a);
  CHECK(pte_kernel_lookup("t::keyed_only", "v1/4;0", NULL, 0) == NULL);
  CHECK(pte_kernel_lookup("t::missing", NULL, NULL, 0) == NULL);
  /* which names have a keyed kernel (method load builds keys only for those) */
  CHECK(pte_kernel_name_keyed("t::op", NULL, 0));
  CHECK(pte_kernel_name_keyed("t::keyed_only", NULL, 0));
  CHECK(!pte_kernel_name_keyed(g_names[3], NULL, 0));
  CHECK(!pte_kernel_name_keyed("t::missing", NULL, 0));
  pte_kernel mkeyed = {g_names[3], "v1/6;0", k_a};
  CHECK(pte_kernel_name_keyed(g_names[3], &mkeyed, 1));
  /* method kernels first: their fallback wins over the registry's exact key */
  pte_kernel mk = {"t::op", NULL, k_nop};
  CHECK(pte_kernel_lookup("t::op", "v1/6;0", &mk, 1) == k_nop);
  /* the name index after a reset: the old kernels are gone */
  pte_kernel_registry_reset();
  CHECK(pte_kernel_lookup("t::op", "v1/6;0", NULL, 0) == NULL);
  /* a full registry: every name found, an unregistered one not */
  CHECK_OK(pte_register_kernels(g_many, PTE_MAX_KERNELS));
  size_t found = 0;
  for (size_t i = 0; i < PTE_MAX_KERNELS; i++) found += pte_kernel_lookup(g_names[i], "v1/6;0", NULL, 0) == k_nop;
  CHECK_EQ_INT(found, PTE_MAX_KERNELS);
  CHECK(pte_kernel_lookup(g_names[PTE_MAX_KERNELS], NULL, NULL, 0) == NULL);
  pte_kernel_registry_reset();
}

TEST(register_prim_ops_adds_the_28) {
  pte_kernel_registry_reset();
  CHECK_OK(pte_register_prim_ops());
  CHECK_EQ_INT(pte_num_registered_kernels(), 28);
  CHECK_EQ_INT(pte_prim_kernel_count(), 28);
  for (size_t i = 0; i < 28; i++) {
    const pte_kernel *k = pte_registered_kernel(i);
    CHECK(k != NULL && k->key == NULL);
    if (!k) continue;
    CHECK_MSG(pte_prim_lookup(k->name) == k->fn, "%s", k->name);
  }
  CHECK(pte_kernel_lookup("executorch_prim::add.Scalar", NULL, NULL, 0) == pte_prim_lookup("executorch_prim::add.Scalar"));
  /* idempotent */
  CHECK_OK(pte_register_prim_ops());
  CHECK_EQ_INT(pte_num_registered_kernels(), 28);
  /* a registered kernel of the same name registered before them still wins */
  pte_kernel_registry_reset();
  pte_kernel mine = {"aten::sym_numel", NULL, k_nop};
  CHECK_OK(pte_register_kernels(&mine, 1));
  CHECK_STATUS(pte_register_prim_ops(), PTE_ERR_REGISTRATION_ALREADY_REGISTERED);
  CHECK(pte_kernel_lookup("aten::sym_numel", NULL, NULL, 0) == k_nop);
  pte_kernel_registry_reset();
}

int main(void) {
  RUN(capacity_is_the_build_setting);
  RUN(exactly_capacity_fits_one_more_fails);
  RUN(ex_messages_name_the_kernel);
  RUN(register_prim_ops_adds_the_28);
  RUN(lookup_exact_key_then_fallback);
  return test_summary();
}
