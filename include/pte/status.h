/* pte/status.h — status codes returned by every fallible pte call.
 *
 * The numeric values are upstream ExecuTorch's Error enum, so a status printed by pte can be
 * compared with an ExecuTorch log line. Every function that can fail returns a pte_status; on
 * failure, functions that take a pte_error_info* fill it with a one-line message naming what is
 * wrong (the message never allocates).
 */
#ifndef PTE_STATUS_H
#define PTE_STATUS_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum pte_status {
  /* system */
  PTE_OK = 0x00,
  PTE_ERR_INTERNAL = 0x01,
  PTE_ERR_INVALID_STATE = 0x02,
  PTE_END_OF_METHOD = 0x03,
  PTE_ERR_ALREADY_LOADED = 0x04,
  /* logical */
  PTE_ERR_NOT_SUPPORTED = 0x10,
  PTE_ERR_NOT_IMPLEMENTED = 0x11,
  PTE_ERR_INVALID_ARGUMENT = 0x12,
  PTE_ERR_INVALID_TYPE = 0x13,
  PTE_ERR_OPERATOR_MISSING = 0x14,
  PTE_ERR_REGISTRATION_EXCEEDING_MAX_KERNELS = 0x15,
  PTE_ERR_REGISTRATION_ALREADY_REGISTERED = 0x16,
  /* resource */
  PTE_ERR_NOT_FOUND = 0x20,
  PTE_ERR_MEMORY_ALLOCATION_FAILED = 0x21,
  PTE_ERR_ACCESS_FAILED = 0x22,
  PTE_ERR_INVALID_PROGRAM = 0x23,
  PTE_ERR_INVALID_EXTERNAL_DATA = 0x24,
  PTE_ERR_OUT_OF_RESOURCES = 0x25,
  /* delegate */
  PTE_ERR_DELEGATE_INVALID_COMPATIBILITY = 0x30,
  PTE_ERR_DELEGATE_MEMORY_ALLOCATION_FAILED = 0x31,
  PTE_ERR_DELEGATE_INVALID_HANDLE = 0x32
} pte_status;

/* Upstream name of a status ("Ok", "InvalidProgram", ...); "Unknown" for other values. */
const char *pte_status_name(pte_status s);

/* A fixed-size, allocation-free error message. Functions that accept a pte_error_info* write a
 * one-line, NUL-terminated description there on failure (the pointer may be NULL). */
#define PTE_ERROR_MSG_MAX 256
typedef struct pte_error_info {
  pte_status status;
  char msg[PTE_ERROR_MSG_MAX];
} pte_error_info;

/* Formats into err (if non-NULL) and returns s. Supports %s %d %u %ld %lu %lld %llu %zu %x %llx %c %%
 * (no floating point); implemented without stdio. */
pte_status pte_error_set(pte_error_info *err, pte_status s, const char *fmt, ...);

#ifdef __cplusplus
}
#endif
#endif
