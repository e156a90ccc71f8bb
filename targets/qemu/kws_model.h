/* kws_model.h — writes the keyword-spotting test network (kws_model.c) and its input. Host only. */
#ifndef PTE_MCU_KWS_MODEL_H
#define PTE_MCU_KWS_MODEL_H
#include "pte/status.h"
/* Writes the .pte to pte_path and the float32 input (49x10, little-endian) to input_path.
 * Returns 0, or 1 with err set. */
int pte_mcu_kws_write(const char *pte_path, const char *input_path, pte_error_info *err);
#endif
