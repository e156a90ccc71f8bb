/* kernels/portable/portable_view.h — view-like copies (kernels/portable/op_view.c).
 *
 * aten::as_strided_copy.out, aten::diagonal_copy.out, aten::unfold_copy.out,
 * aten::narrow_copy.out, aten::unbind_copy.int_out, aten::view_as_real_copy.out (complex
 * half/float/double -> real with a trailing dim of 2), aten::detach_copy.out,
 * aten::lift_fresh_copy.out, aten::copy_ (in place, src broadcast and converted to self's dtype).
 * Pure data movement (every dtype, every dim order); fallback kernels (key NULL).
 */
#ifndef PTE_KERNELS_PORTABLE_VIEW_H
#define PTE_KERNELS_PORTABLE_VIEW_H

#include <stddef.h>

#include "pte/kernel.h"

extern const pte_kernel pte_portable_view_kernels[];
extern const size_t pte_portable_view_kernels_count;

#endif
