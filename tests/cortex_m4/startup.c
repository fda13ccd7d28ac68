/* startup.c — the least a Cortex-M4 needs to run a model under qemu-system-arm -M mps2-an386:
 * a vector table (initial stack pointer, reset handler) and a reset handler that turns on the
 * FPU and enters newlib's semihosting start-up (rdimon-crt0: zeroes .bss, sets up the heap
 * and the file calls that go to the host, calls main, exits with its status). */
#include <stdint.h>

extern uint32_t __stack_top;
void _start(void);
void reset_handler(void);
void fault_handler(void);

__attribute__((section(".vectors"), used)) static void (*const vectors[16])(void) = {
    (void (*)(void))(&__stack_top), reset_handler, fault_handler, fault_handler,
    fault_handler, fault_handler, fault_handler, 0, 0, 0, 0, fault_handler, fault_handler, 0,
    fault_handler, fault_handler};

void reset_handler(void)
{
    volatile uint32_t *cpacr = (volatile uint32_t *)0xE000ED88u;
    *cpacr |= 0xFu << 20; /* CP10 and CP11: full access to the FPU */
    __asm__ volatile("dsb\n\tisb");
    _start();
    for (;;) {
    }
}

/* A fault ends the run through semihosting's SYS_EXIT with "run-time error". */
void fault_handler(void)
{
    register uint32_t op __asm__("r0") = 0x18u;
    register uint32_t arg __asm__("r1") = 0x20023u;
    __asm__ volatile("bkpt 0xab" : : "r"(op), "r"(arg));
    for (;;) {
    }
}

/* newlib's init/fini arrays call these; without gcc's crti/crtn (-nostartfiles) they are empty. */
void _init(void);
void _fini(void);
void _init(void)
{
}
void _fini(void)
{
}
