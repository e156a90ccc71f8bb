/* fault_writer.h — a pte_data_writer that fails on purpose (test support; tests/support/fault_writer.c). */
#ifndef PTE_TESTS_FAULT_WRITER_H
#define PTE_TESTS_FAULT_WRITER_H

#include <stdint.h>

#include "pte/data_writer.h"

/* A pte_data_writer that forwards to `inner` and fails on purpose: the fail_at-th operation
 * (1-based, counting every write, set_size, reserve and publish call) returns
 * PTE_ERR_ACCESS_FAILED ("injected failure at operation N (write)") without reaching `inner`;
 * 0 never fails.
 * before_publish (may be NULL) runs just before the inner publish (e.g. to make the rename fail
 * for real). destroy() destroys `inner` too. ops counts the operations seen. */
typedef struct pte_fault_writer {
  pte_data_writer base;
  pte_data_writer *inner;
  uint64_t fail_at;
  uint64_t ops;
  uint64_t writes, set_sizes, reserves, publishes;
  const char *failed_op;            /* "write" / "set_size" / "reserve" / "publish" once failed */
  void (*before_publish)(void *ctx);
  void *before_publish_ctx;
} pte_fault_writer;

void pte_fault_writer_init(pte_fault_writer *w, pte_data_writer *inner, uint64_t fail_at);

#endif
