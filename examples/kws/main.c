/* main.c — a keyword spotter (a DS-CNN on 49 frames of 10 MFCCs) on a microcontroller: the
 * model compiled by onnx2c (portable backend, one file), run on one window of features, the
 * keyword printed. The same file builds for the host and, with tests/cortex_m4's start-up code
 * and linker script, for a bare-metal Cortex-M4 (printf through semihosting); both print the
 * same bytes. See examples/README.md for the commands.
 *
 *   onnx2c model.onnx -o kws.c --header kws.h --name kws --gemm=portable
 *   cc -std=c99 -O2 main.c kws.c -lm */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "kws.h"
#include "sample.h" /* sample_mfcc: synthetic features (examples/gen_examples.py) */

static const char *const keywords[12] = {"_silence_", "_unknown_", "yes",  "no",
                                         "up",        "down",      "left", "right",
                                         "on",        "off",       "stop", "go"};

static uint32_t bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

int main(void)
{
    /* kws_run uses the model's static arena (kws_ARENA_BYTES of .bss). A real device feeds
     * it a new window of MFCCs every few tens of milliseconds. */
    float probs[1][12];
    if (kws_run(sample_mfcc, probs) != 0) {
        printf("kws: the model failed\n");
        return 1;
    }
    int best = 0;
    for (int i = 1; i < 12; i++)
        if (probs[0][i] > probs[0][best])
            best = i;
    printf("kws: keyword %d '%s', p = %d/1000\n", best, keywords[best],
           (int)(probs[0][best] * 1000.0f + 0.5f));
    for (int i = 0; i < 12; i++)
        printf("prob %d 0x%08lx\n", i, (unsigned long)bits(probs[0][i]));
    return 0;
}
