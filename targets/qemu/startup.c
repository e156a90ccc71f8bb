/* startup.c — bare-metal start for the QEMU Arm MPS2/MPS3 boards (docs/mcu.md).
 *
 * Vector table, reset handler (.data copy, .bss clear, FPU enable, stack painting), fault
 * handlers that report over semihosting and exit with a failure code, and a SysTick handler that
 * counts timer wraps (the runner's instruction proxy under `-icount shift=0`). */
#include <stdint.h>

#include "semihost.h"

extern uint32_t __data_load[], __data_start[], __data_end[], __bss_start[], __bss_end[];
extern uint32_t __stack_bottom[], __stack_top[];

int main(void);
void pte_mcu_reset(void);
void pte_mcu_fault(void);
void pte_mcu_default(void);
void pte_mcu_systick(void);

volatile uint32_t pte_mcu_systick_wraps;

#define SCB_CPACR (*(volatile uint32_t *)0xE000ED88u)
#define STACK_PAINT 0xC5AC5AC5u

static inline uintptr_t cur_sp(void) {
  uintptr_t sp;
  __asm__ volatile("mov %0, sp" : "=r"(sp));
  return sp;
}

void pte_mcu_reset(void) {
  for (uint32_t *s = __data_load, *d = __data_start; d < __data_end;) *d++ = *s++;
  for (uint32_t *d = __bss_start; d < __bss_end;) *d++ = 0;
#if defined(__ARM_FP) || defined(__ARM_FEATURE_MVE)
  SCB_CPACR |= 0xFu << 20; /* CP10 + CP11 full access (FPU; on Armv8.1-M also the MVE registers) */
  __asm__ volatile("dsb\n\tisb" ::: "memory");
#endif
  /* paint the stack below the current frame: the runner finds the high-water mark afterwards */
  const uintptr_t limit = cur_sp() - 64u;
  for (volatile uint32_t *p = __stack_bottom; (uintptr_t)p < limit; p++) *p = STACK_PAINT;
  pte_mcu_exit(main());
}

size_t pte_mcu_stack_size(void) { return (size_t)((uintptr_t)__stack_top - (uintptr_t)__stack_bottom); }

size_t pte_mcu_stack_used(void) {
  const uint32_t *p = __stack_bottom;
  while (p < __stack_top && *p == STACK_PAINT) p++;
  return (size_t)((uintptr_t)__stack_top - (uintptr_t)p);
}

void pte_mcu_fault(void) {
  pte_mcu_puts("FAULT: hard fault / exception\n");
  pte_mcu_exit(99);
}

void pte_mcu_default(void) {
  pte_mcu_puts("FAULT: unexpected interrupt\n");
  pte_mcu_exit(98);
}

void pte_mcu_systick(void) { pte_mcu_systick_wraps++; }

typedef void (*pte_mcu_vector)(void);
#define PTE_MCU_IRQ4 pte_mcu_default, pte_mcu_default, pte_mcu_default, pte_mcu_default
#define PTE_MCU_IRQ32 PTE_MCU_IRQ4, PTE_MCU_IRQ4, PTE_MCU_IRQ4, PTE_MCU_IRQ4, PTE_MCU_IRQ4, PTE_MCU_IRQ4, PTE_MCU_IRQ4, PTE_MCU_IRQ4
__attribute__((section(".vectors"), used)) const pte_mcu_vector pte_mcu_vectors[16 + 32] = {
    (pte_mcu_vector)(uintptr_t)__stack_top,
    pte_mcu_reset,
    pte_mcu_fault,   /* NMI */
    pte_mcu_fault,   /* HardFault */
    pte_mcu_fault,   /* MemManage */
    pte_mcu_fault,   /* BusFault */
    pte_mcu_fault,   /* UsageFault */
    pte_mcu_fault,   /* SecureFault (v8-M) */
    0, 0, 0,
    pte_mcu_default, /* SVCall */
    pte_mcu_default, /* DebugMonitor */
    0,
    pte_mcu_default, /* PendSV */
    pte_mcu_systick, /* SysTick */
    PTE_MCU_IRQ32, /* external interrupts 0..31: none is enabled */
};
