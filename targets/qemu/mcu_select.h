/* mcu_select.h — `pte_mcu_host kernels`: the selective kernel registration of a Cortex-M image
 * (mcu_select.c, docs/mcu.md). Host only. */
#ifndef PTE_MCU_SELECT_H
#define PTE_MCU_SELECT_H
#include <stddef.h>

#include "pte/program.h"

/* Writes out_path (C source defining pte_mcu_register_kernels) for the operators of prog. Returns
 * 0, or 1 with a message on stderr. */
int pte_mcu_select_write(const pte_program *prog, const char *model_name, const char *out_path, size_t max_kernels);

#endif
