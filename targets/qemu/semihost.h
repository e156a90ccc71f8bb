/* semihost.h — Arm semihosting (bkpt 0xab) for the QEMU runner: console output and exit code.
 * QEMU: -semihosting-config enable=on,target=native. */
#ifndef PTE_MCU_SEMIHOST_H
#define PTE_MCU_SEMIHOST_H
#include <stddef.h>
#include <stdint.h>

#define PTE_SH_SYS_WRITE0 0x04
#define PTE_SH_SYS_EXIT 0x18
#define PTE_SH_SYS_EXIT_EXTENDED 0x20

static inline uintptr_t pte_mcu_semihost(uintptr_t op, const void *arg) {
  register uintptr_t r0 __asm__("r0") = op;
  register const void *r1 __asm__("r1") = arg;
  __asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
  return r0;
}

static inline void pte_mcu_puts(const char *s) { (void)pte_mcu_semihost(PTE_SH_SYS_WRITE0, s); }

/* Ends the QEMU run with `code` as the process exit status (0 = pass). */
__attribute__((noreturn)) static inline void pte_mcu_exit(int code) {
  /* ADP_Stopped_ApplicationExit = 0x20026, with the status as the subcode */
  const uint32_t block[2] = {0x20026u, (uint32_t)code};
  (void)pte_mcu_semihost(PTE_SH_SYS_EXIT_EXTENDED, block);
  /* hosts without SYS_EXIT_EXTENDED: plain exit (status lost for nonzero codes) */
  (void)pte_mcu_semihost(PTE_SH_SYS_EXIT, (const void *)(uintptr_t)(code == 0 ? 0x20026u : 0x20023u));
  for (;;) {
  }
}

size_t pte_mcu_stack_size(void);
size_t pte_mcu_stack_used(void);
extern volatile uint32_t pte_mcu_systick_wraps;
#endif
