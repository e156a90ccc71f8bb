/* model_blob.c — links the .pte and its input bytes into flash as const arrays (.incbin): the
 * program is used in place through the buffer loader, never copied. The build passes the files as
 * PTE_MCU_MODEL_FILE / PTE_MCU_INPUT_FILE (absolute paths, unquoted). */
#define PTE_MCU_STR2(x) #x
#define PTE_MCU_STR(x) PTE_MCU_STR2(x)

__asm__(".section .rodata.pte_mcu_model,\"a\",%progbits\n"
        ".balign 64\n"
        ".global pte_mcu_model\n"
        "pte_mcu_model:\n"
        ".incbin \"" PTE_MCU_STR(PTE_MCU_MODEL_FILE) "\"\n"
        ".global pte_mcu_model_end\n"
        "pte_mcu_model_end:\n"
        ".section .rodata.pte_mcu_input,\"a\",%progbits\n"
        ".balign 16\n"
        ".global pte_mcu_input\n"
        "pte_mcu_input:\n"
        ".incbin \"" PTE_MCU_STR(PTE_MCU_INPUT_FILE) "\"\n"
        ".global pte_mcu_input_end\n"
        "pte_mcu_input_end:\n"
        ".text\n");
