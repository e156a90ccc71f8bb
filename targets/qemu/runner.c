/* runner.c — bare-metal runner for the QEMU MPS2/MPS3 boards (docs/mcu.md).
 *
 * The .pte and its input are linked into flash (model_blob.c); the method allocator pool and the
 * planned-buffer arena are static arrays sized at build time by the host tool (`pte_mcu_host
 * plan` writes pte_mcu_plan.h from pte_method_meta and a host load). Prints the RAM need before
 * running, the outputs (mcu_run.c), the stack high-water mark (stack painting, startup.c) and the
 * SysTick count of the inference (instructions x ticks-per-ns under `qemu -icount shift=0`), then
 * exits through semihosting with 0 on success. */
#include <stdint.h>

#include "mcu_run.h"
#include "pte_mcu_plan.h"
#include "semihost.h"

#ifndef PTE_MCU_SYSCLK_HZ
#define PTE_MCU_SYSCLK_HZ 25000000u
#endif

extern const uint8_t pte_mcu_model[], pte_mcu_model_end[];
extern const uint8_t pte_mcu_input[], pte_mcu_input_end[];

static _Alignas(16) uint8_t g_method_pool[PTE_MCU_METHOD_POOL_BYTES];
static _Alignas(16) uint8_t g_planned[PTE_MCU_PLANNED_BYTES > 0 ? PTE_MCU_PLANNED_BYTES : 16];

#define SYST_CSR (*(volatile uint32_t *)0xE000E010u)
#define SYST_RVR (*(volatile uint32_t *)0xE000E014u)
#define SYST_CVR (*(volatile uint32_t *)0xE000E018u)

static uint64_t g_ticks;

static void write_line(const char *s) { pte_mcu_puts(s); }

static void systick_start(void) {
  pte_mcu_systick_wraps = 0;
  SYST_RVR = 0x00FFFFFFu;
  SYST_CVR = 0;
  SYST_CSR = 0x7u; /* enable, interrupt on wrap, processor clock */
}

static void systick_stop(void) {
  const uint32_t cur = SYST_CVR;
  SYST_CSR = 0;
  g_ticks = (uint64_t)pte_mcu_systick_wraps * 0x01000000u + (0x00FFFFFFu - cur);
}

/* A loop of exactly 2 * n + 3 instructions timed like the inference: the ticks-per-instruction
 * calibration of the SysTick count under `qemu -icount shift=0` (1 instruction = 1 ns). */
static void calibration_loop(uint32_t n) {
  __asm__ volatile("1:\n\tsubs %0, %0, #1\n\tbne 1b" : "+r"(n) : : "cc");
}

int main(void) {
  pte_mcu_line l = {{0}, 0};
  pte_mcu_line_str(&l, "pte mcu runner: " PTE_MCU_BOARD_NAME ", stack ");
  pte_mcu_line_u64(&l, pte_mcu_stack_size());
  pte_mcu_line_str(&l, " bytes\n");
  write_line(l.buf);

  pte_mcu_job job = {
      .model = pte_mcu_model,
      .model_size = (size_t)(pte_mcu_model_end - pte_mcu_model),
      .input = pte_mcu_input,
      .input_size = (size_t)(pte_mcu_input_end - pte_mcu_input),
      .method_pool = g_method_pool,
      .method_pool_size = sizeof g_method_pool,
      .planned = g_planned,
      .planned_size = PTE_MCU_PLANNED_BYTES,
      .write = write_line,
      .before_execute = systick_start,
      .after_execute = systick_stop,
  };
  systick_start();
  calibration_loop(1000000u);
  systick_stop();
  const uint64_t calib_ticks = g_ticks;
  g_ticks = 0;
  const int rc = pte_mcu_run(&job);

  l.n = 0;
  l.buf[0] = '\0';
  pte_mcu_line_str(&l, "stack high-water: ");
  pte_mcu_line_u64(&l, pte_mcu_stack_used());
  pte_mcu_line_str(&l, " of ");
  pte_mcu_line_u64(&l, pte_mcu_stack_size());
  pte_mcu_line_str(&l, " bytes\n");
  write_line(l.buf);
  l.n = 0;
  pte_mcu_line_str(&l, "execute systick: ");
  pte_mcu_line_u64(&l, g_ticks);
  pte_mcu_line_str(&l, " ticks at ");
  pte_mcu_line_u64(&l, PTE_MCU_SYSCLK_HZ);
  pte_mcu_line_str(&l, " Hz; calibration 2000000 instructions = ");
  pte_mcu_line_u64(&l, calib_ticks);
  pte_mcu_line_str(&l, " ticks\n");
  write_line(l.buf);
  write_line(rc == 0 ? "result: PASS\n" : "result: FAIL\n");
  return rc;
}
