/* Minimal bare-metal startup for the cortex_m SIMD bit-exactness test under QEMU (MPS2/MPS3
 * boards): vector table, .data / .bss initialisation, semihosting output and exit, and the
 * memcpy / memset the kernels need (no C library is linked). */
#include <stddef.h>
#include <stdint.h>

extern uint32_t __data_load, __data_start, __data_end, __bss_start, __bss_end, __stack_top;
int main(void);

static int semihost(int op, const void *arg) {
  register int r0 __asm__("r0") = op;
  register const void *r1 __asm__("r1") = arg;
  __asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
  return r0;
}

void mcu_puts(const char *s) { semihost(0x04, s); } /* SYS_WRITE0 */

void mcu_exit(int code) {
  /* SYS_EXIT with ADP_Stopped_ApplicationExit and the code (semihosting 2.0 extended form) */
  const uint32_t block[2] = {0x20026u, (uint32_t)code};
  semihost(0x20, block); /* SYS_EXIT_EXTENDED */
  semihost(0x18, (const void *)0x20026u);
  for (;;) {
  }
}

void *memcpy(void *d, const void *s, size_t n) {
  uint8_t *dp = (uint8_t *)d;
  const uint8_t *sp = (const uint8_t *)s;
  while (n--) *dp++ = *sp++;
  return d;
}
void *memset(void *d, int c, size_t n) {
  uint8_t *dp = (uint8_t *)d;
  while (n--) *dp++ = (uint8_t)c;
  return d;
}

void reset_handler(void) {
  /* CP10 / CP11 full access: the FPU, and on Armv8.1-M the MVE registers */
  *(volatile uint32_t *)0xE000ED88u |= 0xFu << 20;
  __asm__ volatile("dsb\n\tisb" ::: "memory");
  uint32_t *src = &__data_load, *dst = &__data_start;
  while (dst < &__data_end) *dst++ = *src++;
  for (dst = &__bss_start; dst < &__bss_end;) *dst++ = 0;
  mcu_exit(main());
}

/* Reports the faulting PC (stacked frame: r0 r1 r2 r3 r12 lr pc xpsr) and exits 99. */
void mcu_fault_report(const uint32_t *frame) {
  char msg[] = "mcu_simd: fault at pc 0x00000000\n";
  const uint32_t pc = frame[6];
  for (int i = 0; i < 8; i++) msg[24 + i] = "0123456789abcdef"[(pc >> (28 - 4 * i)) & 0xFu];
  mcu_puts(msg);
  mcu_exit(99);
}
__attribute__((naked)) static void fault_handler(void) {
  __asm__ volatile("mrs r0, msp\n\tb mcu_fault_report");
}

__attribute__((section(".vectors"), used)) static void (*const k_vectors[16])(void) = {
    (void (*)(void))(uintptr_t)&__stack_top, reset_handler, fault_handler, fault_handler,
    fault_handler, fault_handler, fault_handler, 0, 0, 0, 0, fault_handler, fault_handler, 0,
    fault_handler, fault_handler};
