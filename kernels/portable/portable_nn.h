/* kernels/portable/portable_nn.h — tables of the linear-algebra and neural-network kernel
 * families (kernels/portable/op_linalg.c, op_conv.c, op_pool.c, op_norm.c, op_softmax.c,
 * op_distance.c, op_upsample.c, op_grid_sample.c, op_conv_backward.c).
 * Register each with pte_register_kernels(table, count); every entry is a fallback kernel (key
 * NULL) that handles every dtype and dim order the operator allows.
 *
 * linalg:  aten::mm.out, aten::addmm.out, aten::bmm.out, aten::linear.out
 *          (float32/float64: cache-blocked GEMM; float16/bfloat16 computed in float32; integer
 *          dtypes with wrap-around like ATen; bool is rejected as in ATen)
 * conv:    aten::convolution.out (1-D and 2-D, groups incl. depthwise, stride, padding,
 *          dilation, optional bias, transposed; floating dtypes; any dim order incl. channels-last)
 * pool:    aten::max_pool2d_with_indices.out, aten::max_pool2d_with_indices_backward.grad_input,
 *          aten::avg_pool2d.out,
 *          aten::_adaptive_avg_pool2d.out, aten::adaptive_avg_pool2d.out
 * norm:    aten::native_layer_norm.out, aten::_native_batch_norm_legit_no_training.out,
 *          aten::_native_batch_norm_legit.out, aten::_native_batch_norm_legit.no_stats_out,
 *          aten::native_group_norm.out
 * softmax: aten::_softmax.out, aten::_log_softmax.out
 * distance: aten::_cdist_forward.out, aten::_pdist_forward.out
 * upsample: aten::upsample_bilinear2d.vec_out, aten::_upsample_bilinear2d_aa.out
 * grid_sample: aten::grid_sampler_2d.out
 * conv_backward: aten::convolution_backward.out
 *
 * Failures are reported through pte_kernel_fail(): PTE_ERR_INVALID_ARGUMENT for wrong argument
 * tags, shapes, dtypes ATen rejects or an out tensor that cannot be resized;
 * PTE_ERR_NOT_SUPPORTED for legal inputs outside what is implemented (e.g. 3-D convolution).
 */
#ifndef PTE_KERNELS_PORTABLE_PORTABLE_NN_H
#define PTE_KERNELS_PORTABLE_PORTABLE_NN_H

#include <stddef.h>

#include "pte/kernel.h"

#ifdef __cplusplus
extern "C" {
#endif

extern const pte_kernel pte_portable_linalg_kernels[];
extern const size_t pte_portable_linalg_kernels_count;

extern const pte_kernel pte_portable_conv_kernels[];
extern const size_t pte_portable_conv_kernels_count;

extern const pte_kernel pte_portable_pool_kernels[];
extern const size_t pte_portable_pool_kernels_count;

extern const pte_kernel pte_portable_norm_kernels[];
extern const size_t pte_portable_norm_kernels_count;

extern const pte_kernel pte_portable_softmax_kernels[];
extern const size_t pte_portable_softmax_kernels_count;

/* aten::_cdist_forward.out, aten::_pdist_forward.out (op_distance.c) */
extern const pte_kernel pte_portable_distance_kernels[];
extern const size_t pte_portable_distance_kernels_count;

/* aten::upsample_bilinear2d.vec_out, aten::_upsample_bilinear2d_aa.out (op_upsample.c) */
extern const pte_kernel pte_portable_upsample_kernels[];
extern const size_t pte_portable_upsample_kernels_count;

/* aten::grid_sampler_2d.out (op_grid_sample.c) */
extern const pte_kernel pte_portable_grid_sample_kernels[];
extern const size_t pte_portable_grid_sample_kernels_count;

/* aten::convolution_backward.out (op_conv_backward.c) */
extern const pte_kernel pte_portable_conv_backward_kernels[];
extern const size_t pte_portable_conv_backward_kernels_count;

#ifdef __cplusplus
}
#endif
#endif
