/* kernels/portable/portable_pad.h — reflection and replication padding (kernels/portable/op_pad.c).
 *
 * aten::reflection_pad1d.out, reflection_pad2d.out, reflection_pad3d.out,
 * aten::replication_pad1d.out, replication_pad2d.out, replication_pad3d.out. padding lists the
 * last dim's (before, after) pair first; negative entries crop. Every dtype, any dim order;
 * fallback kernels (key NULL).
 */
#ifndef PTE_KERNELS_PORTABLE_PAD_H
#define PTE_KERNELS_PORTABLE_PAD_H

#include <stddef.h>

#include "pte/kernel.h"

extern const pte_kernel pte_portable_pad_kernels[];
extern const size_t pte_portable_pad_kernels_count;

#endif
