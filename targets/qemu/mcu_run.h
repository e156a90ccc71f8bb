/* mcu_run.h — one inference of a .pte held in memory, with caller arenas and line output
 * (docs/mcu.md). The same code runs on the Cortex-M board under QEMU (runner.c) and on the host
 * (mcu_host.c `run`), so both print the same lines and the test compares them:
 *
 *   ram: method-pool 4096 planned 64 (1 buffers) input 12 bytes
 *   loaded: method-pool used 1234
 *   out 0 float32 3: 40000000 40400000 40800000      (elements as little-endian hex words)
 *   argmax 0: 2
 *
 * No heap, no stdio: formatting is done here into a line buffer handed to job->write. */
#ifndef PTE_MCU_RUN_H
#define PTE_MCU_RUN_H
#include <stddef.h>
#include <stdint.h>

typedef struct pte_mcu_job {
  const void *model;        /* the .pte bytes (16-byte aligned; used in place, never copied) */
  size_t model_size;
  const void *input;        /* every input tensor's bytes, concatenated in input order */
  size_t input_size;
  void *method_pool;        /* method allocator arena */
  size_t method_pool_size;
  void *planned;            /* one arena holding every planned buffer (each 16-byte aligned) */
  size_t planned_size;
  void (*write)(const char *line); /* receives whole NUL-terminated lines ending in '\n' */
  void (*before_execute)(void);    /* optional: called right before pte_method_execute */
  void (*after_execute)(void);     /* optional: right after it */
} pte_mcu_job;

/* Loads, runs and prints. Returns 0 on success, else a nonzero step code (the message is printed
 * as an "error:" line). */
int pte_mcu_run(const pte_mcu_job *job);

/* Line-building helpers (shared with runner.c). */
typedef struct pte_mcu_line {
  char buf[256];
  size_t n;
} pte_mcu_line;
void pte_mcu_line_str(pte_mcu_line *l, const char *s);
void pte_mcu_line_u64(pte_mcu_line *l, uint64_t v);
void pte_mcu_line_hex(pte_mcu_line *l, uint64_t v, int digits);
#endif
