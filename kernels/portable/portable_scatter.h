/* kernels/portable/portable_scatter.h — writing into indexed places, and data-dependent
 * selection (kernels/portable/op_scatter.c).
 *
 * aten::index_put.out, aten::index_put_ (accumulate adds with the dtype's arithmetic, duplicates
 * applied in index order), aten::select_scatter.out, aten::slice_scatter.out,
 * aten::masked_scatter.out, aten::masked_select.out, aten::nonzero.out. masked_select and
 * nonzero resize a dynamic out to the data-dependent size and fail with a message naming the
 * needed shape when out is static and does not have it. Fallback kernels (key NULL).
 */
#ifndef PTE_KERNELS_PORTABLE_SCATTER_H
#define PTE_KERNELS_PORTABLE_SCATTER_H

#include <stddef.h>

#include "pte/kernel.h"

extern const pte_kernel pte_portable_scatter_kernels[];
extern const size_t pte_portable_scatter_kernels_count;

#endif
