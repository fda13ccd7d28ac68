/* main.c — a digit classifier on a microcontroller: the model compiled by onnx2c (portable
 * backend, weights in their own file), run on one 28x28 image, the result printed. The same
 * file builds for the host and, with tests/cortex_m4's start-up code and linker script, for a
 * bare-metal Cortex-M4 (printf goes to the debugger through semihosting); both print the same
 * bytes. See examples/README.md for the commands.
 *
 *   onnx2c model.onnx -o digits.c --header digits.h --weights digits_weights.c \
 *          --name digits --gemm=portable
 *   cc -std=c99 -O2 -Ddigits_NO_STATIC_ARENA main.c digits.c digits_weights.c -lm
 * (-Ddigits_NO_STATIC_ARENA: the arena below is the only one.) */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "digits.h"
#include "sample.h" /* sample_image: a drawn "7" (examples/gen_examples.py) */

/* The arena lives where the application wants it; here a static buffer of the size the header
 * states, aligned as it asks (NAME_ARENA_ALIGN is 8: a double's alignment is enough). */
static union {
    double align;
    unsigned char bytes[digits_ARENA_BYTES];
} arena;

static uint32_t bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

int main(void)
{
    float probs[1][10];
    if (digits_run_arena(arena.bytes, sample_image, probs) != 0) {
        printf("digits: the model failed\n");
        return 1;
    }
    int best = 0;
    for (int i = 1; i < 10; i++)
        if (probs[0][i] > probs[0][best])
            best = i;
    /* The probabilities as bit patterns: every target prints the same line. */
    printf("digits: class %d, p = %d/1000\n", best, (int)(probs[0][best] * 1000.0f + 0.5f));
    for (int i = 0; i < 10; i++)
        printf("prob %d 0x%08lx\n", i, (unsigned long)bits(probs[0][i]));
    return 0;
}
