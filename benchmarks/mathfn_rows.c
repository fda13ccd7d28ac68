/* mathfn_rows.c — ns per element of the transcendentals as one vector loop per function (what
 * the kernels ran before the row forms) against the row forms of templates/mathfn.c (passes
 * over O2C_ROW elements, what gelu_f32, erf_f32, tanh_f32, gelu_tanh_f32 and the recurrent
 * cells run now), on rows of the sizes the benchmark models call them with: Gelu over the ViT's
 * 65x256 MLP activations, Tanh over an LSTM-128 step's cell. The program checks
 * that both give the same bits.
 *
 *     cc -std=c99 -O3 -march=native benchmarks/mathfn_rows.c -o mathfn_rows -lm
 *     ./mathfn_rows [rounds]
 *
 * Timing (layer_timer.h): interleaved rounds, 5 samples per kernel and round, the minimum of
 * the per-round medians of thread CPU time. It prints figures only. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layer_timer.h"

#define O2C_KERNEL static __attribute__((unused))
#include "../templates/elementwise.c"
#include "../templates/math.c"

#define SAMPLES 5
#define REPEAT  20

/* The loops the kernels ran before: one vector loop per function. */
static void gelu_loop(int64_t n, const float *x, float *y)
{
    const float sqrt2 = sqrtf(2.0f);
    for (int64_t i = 0; i < n; i++) {
        const float v = x[i];
        y[i] = (0.5f * v) * (1.0f + o2c_erff(v / sqrt2));
    }
}

static void tanh_loop(int64_t n, const float *x, float *y)
{
    for (int64_t i = 0; i < n; i++)
        y[i] = o2c_tanhf(x[i]);
}

typedef void (*Kernel)(int64_t, const float *, float *);
typedef struct Case {
    const char *name;
    int64_t n;
    float scale; /* inputs uniform in [-scale, scale] */
    Kernel loop, rows;
} Case;

static const Case cases[] = {
    {"Gelu 65x256 (ViT MLP)", 65 * 256, 4.0f, gelu_loop, gelu_f32},
    {"Tanh 128 (LSTM-128 step)", 128, 4.0f, tanh_loop, tanh_f32},
};
#define NCASES (int)(sizeof cases / sizeof cases[0])

static double sample_s(Kernel k, int64_t n, const float *x, float *y)
{
    const double t0 = layer_now_s();
    for (int r = 0; r < REPEAT; r++)
        k(n, x, y);
    return (layer_now_s() - t0) / REPEAT;
}

int main(int argc, char **argv)
{
    const int rounds = argc > 1 ? atoi(argv[1]) : 10;
    double best[NCASES][2];
    float *x[NCASES], *y[NCASES][2];
    srand(1);
    for (int c = 0; c < NCASES; c++) {
        x[c] = malloc((size_t)cases[c].n * sizeof(float));
        for (int b = 0; b < 2; b++)
            y[c][b] = malloc((size_t)cases[c].n * sizeof(float));
        for (int64_t i = 0; i < cases[c].n; i++)
            x[c][i] = cases[c].scale * (2.0f * (float)rand() / (float)RAND_MAX - 1.0f);
        best[c][0] = best[c][1] = 1e30;
    }
    for (int r = 0; r < rounds; r++)
        for (int c = 0; c < NCASES; c++)
            for (int b = 0; b < 2; b++) {
                double t[SAMPLES];
                const Kernel k = b ? cases[c].rows : cases[c].loop;
                for (int s = 0; s < SAMPLES; s++)
                    t[s] = sample_s(k, cases[c].n, x[c], y[c][b]);
                layer_keep_best(&best[c][b], t, SAMPLES);
            }
    printf("%-28s %10s %10s %10s %s\n", "function", "loop ns/el", "rows ns/el", "rows/loop",
           "bits");
    for (int c = 0; c < NCASES; c++) {
        const double n = (double)cases[c].n;
        const int same = !memcmp(y[c][0], y[c][1], (size_t)cases[c].n * sizeof(float));
        printf("%-28s %10.3f %10.3f %10.2f %s\n", cases[c].name, 1e9 * best[c][0] / n,
               1e9 * best[c][1] / n, best[c][1] / best[c][0], same ? "same" : "DIFFERENT");
    }
    return 0;
}
