/* The portable library registers every operator the issue lists, exactly once. */
#include "pte/kernel.h"
#include "pte/portable_kernels.h"
#include "test.h"

/* MANIFEST's portable union (42 ops) plus the extra list. */
static const char *const k_required[] = {
    "aten::_log_softmax.out", "aten::_softmax.out", "aten::_to_copy.out", "aten::add.out", "aten::addmm.out",
    "aten::alias_copy.out", "aten::arange.start_out", "aten::argmax.out", "aten::clamp.out", "aten::clone.out",
    "aten::div.out", "aten::eq.Scalar_out", "aten::exp.out", "aten::expand_copy.out", "aten::full_like.out",
    "aten::gather.out", "aten::index.Tensor_out", "aten::index_select.out", "aten::max_pool2d_with_indices.out",
    "aten::mean.out", "aten::mm.out", "aten::mul.Scalar_out", "aten::mul.out", "aten::ne.Scalar_out", "aten::neg.out",
    "aten::permute_copy.out", "aten::pow.Tensor_Scalar_out", "aten::scalar_tensor.out", "aten::scatter.value_out",
    "aten::select_copy.int_out", "aten::sigmoid.out", "aten::slice_copy.Tensor_out", "aten::squeeze_copy.dims_out",
    "aten::sub.out", "aten::sum.IntList_out", "aten::tanh.out", "aten::unsqueeze_copy.out", "aten::view_copy.out",
    "aten::where.self_out", "dim_order_ops::_clone_dim_order.out", "dim_order_ops::_to_dim_order_copy.out",
    "executorch_prim::et_view.default",
    /* the additional list */
    "aten::convolution.out", "aten::relu.out", "aten::gelu.out", "aten::hardtanh.out", "aten::leaky_relu.out",
    "aten::silu.out", "aten::native_layer_norm.out", "aten::_native_batch_norm_legit_no_training.out",
    "aten::avg_pool2d.out", "aten::bmm.out", "aten::cat.out", "aten::split_with_sizes_copy.out",
    "aten::embedding.out", "aten::constant_pad_nd.out", "aten::rsqrt.out", "aten::sqrt.out", "aten::log.out",
    "aten::abs.out", "aten::amax.out", "aten::full.out", "aten::masked_fill.Scalar_out",
    "aten::upsample_nearest2d.vec_out", "aten::argmax.out", "aten::any.out", "aten::max.dim_max",
};

TEST(every_required_op_registered) {
  pte_kernel_registry_reset();
  CHECK_OK(pte_register_portable_kernels());
  size_t n = pte_num_registered_kernels();
  CHECK_EQ_INT(n, pte_portable_kernel_count());
  for (size_t i = 0; i < sizeof k_required / sizeof k_required[0]; i++)
    CHECK_MSG(pte_kernel_lookup(k_required[i], "v1/6;0,1", NULL, 0) != NULL, "missing %s", k_required[i]);
  /* adaptive average pooling under one of its upstream names */
  CHECK(pte_kernel_lookup("aten::_adaptive_avg_pool2d.out", NULL, NULL, 0) ||
        pte_kernel_lookup("aten::adaptive_avg_pool2d.out", NULL, NULL, 0));
}

TEST(registration_is_idempotent_and_unique) {
  pte_kernel_registry_reset();
  CHECK_OK(pte_register_portable_kernels());
  size_t n = pte_num_registered_kernels();
  CHECK_OK(pte_register_portable_kernels());
  CHECK_EQ_INT(pte_num_registered_kernels(), n);
  /* no name appears twice in the library */
  for (size_t i = 0; i < n; i++)
    for (size_t j = i + 1; j < n; j++)
      CHECK_MSG(strcmp(pte_portable_kernel(i)->name, pte_portable_kernel(j)->name) != 0, "duplicate %s",
                pte_portable_kernel(i)->name);
  CHECK(pte_portable_kernel(n) == NULL);
}

TEST(registry_errors) {
  pte_kernel_registry_reset();
  CHECK_OK(pte_register_portable_kernels());
  /* same name + NULL key again → already registered, nothing added */
  size_t n = pte_num_registered_kernels();
  pte_kernel dup = *pte_portable_kernel(0);
  CHECK_STATUS(pte_register_kernels(&dup, 1), PTE_ERR_REGISTRATION_ALREADY_REGISTERED);
  CHECK_EQ_INT(pte_num_registered_kernels(), n);
  /* an exact-key kernel under the same name is allowed and wins for its key */
  pte_kernel keyed = {dup.name, "v1/6;0", pte_portable_kernel(1)->fn};
  CHECK_OK(pte_register_kernels(&keyed, 1));
  CHECK(pte_kernel_lookup(dup.name, "v1/6;0", NULL, 0) == keyed.fn);
  CHECK(pte_kernel_lookup(dup.name, "v1/3;0", NULL, 0) == dup.fn);
  /* method-scoped table first */
  pte_kernel scoped = {dup.name, NULL, pte_portable_kernel(2)->fn};
  CHECK(pte_kernel_lookup(dup.name, "v1/3;0", &scoped, 1) == scoped.fn);
  /* full registry */
  static pte_kernel many[PTE_MAX_KERNELS];
  static char names[PTE_MAX_KERNELS][16];
  for (size_t i = 0; i < PTE_MAX_KERNELS; i++) {
    snprintf(names[i], sizeof names[i], "t::op%zu", i);
    many[i] = (pte_kernel){names[i], NULL, dup.fn};
  }
  CHECK_STATUS(pte_register_kernels(many, PTE_MAX_KERNELS), PTE_ERR_REGISTRATION_EXCEEDING_MAX_KERNELS);
  CHECK_EQ_INT(pte_num_registered_kernels(), n + 1);
  CHECK(pte_kernel_lookup("t::op0", NULL, NULL, 0) == NULL);
}

int main(void) {
  RUN(every_required_op_registered);
  RUN(registration_is_idempotent_and_unique);
  RUN(registry_errors);
  return test_summary();
}
