/* kernels/portable/portable_index.h — indexing and gathering (kernels/portable/op_index.c).
 *
 * aten::index.Tensor_out (int64/int32 index tensors broadcast together, bool/uint8 masks, None
 * gaps), aten::index_select.out, aten::gather.out, aten::scatter.value_out,
 * aten::scatter.src_out, aten::scatter_add.out, aten::embedding.out, aten::upsample_nearest2d.vec_out.
 * Out-of-range indices fail with PTE_ERR_INVALID_ARGUMENT.
 * Fallback kernels (key NULL) handling every dtype and dim order the operator allows; register
 * with pte_register_kernels(pte_portable_index_kernels, pte_portable_index_kernels_count).
 */
#ifndef PTE_KERNELS_PORTABLE_INDEX_H
#define PTE_KERNELS_PORTABLE_INDEX_H

#include <stddef.h>

#include "pte/kernel.h"

extern const pte_kernel pte_portable_index_kernels[];
extern const size_t pte_portable_index_kernels_count;

#endif
