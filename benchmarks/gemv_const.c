/* gemv_const.c — CPU time of a batch-1 product against a constant weight (a CNN's classifier,
 * a squeeze-excite 1x1 conv at one pixel, a recurrent step): y[N] = a[K] x B[K][N], by the two
 * kernels the compiler could emit for it: "packed" (gemm_rowpacked_f32 of templates/gemm.c on B
 * packed in 128-column panels, gemm_pack_b_f32: what both backends run since the compiler's
 * gemv_const) and "xsmm-p" (libxsmm 1.17's n = 1 kernel on B packed in its 64-column panels,
 * gemm_pack_xsmm_f32 and o2c_xsmm_setup_panels: what the libxsmm backend ran for a B over
 * 1 MiB before). The two give the same bits; the program checks that.
 *
 *     cc -std=c99 -O3 -march=native benchmarks/gemv_const.c -o gemv_const \
 *        -lxsmm -lxsmmnoblas -lm -lpthread
 *     ./gemv_const [rounds]
 *
 * Each product runs warm (repeated for 2 ms per sample: B from L2 or L3) and cold (64 MiB
 * written before each sample: B from memory, as a classifier's weight, read once per
 * inference, comes in a model). Timing: layer_timer.h. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layer_timer.h"

#define O2C_KERNEL static __attribute__((unused))
#include "../templates/gemm.c"
#include <libxsmm.h>
/* the glue uses libxsmm.h's types: after it, as in generated code */
#include "../runtime_min/xsmm_glue.c"

typedef struct Shape {
    int64_t K, N;
    const char *name;
} Shape;

static const Shape shapes[] = {
    {512, 1000, "resnet18 fc"},
    {1024, 1000, "shufflenet_v2, mobilenet_v3_small fc"},
    {1280, 1000, "mobilenet_v2, efficientnet_b0 fc"},
    {576, 1024, "mobilenet_v3_small fc1"},
    {512, 512, "1 MiB"},
};
enum { NS = sizeof shapes / sizeof shapes[0], FLUSH_BYTES = 64 << 20 };

static char *flush_buf;

/* n floats on a 64-byte line, as the generated code places its weights */
static float *alloc_floats(int64_t n, uint32_t seed)
{
    unsigned char *m = malloc((size_t)n * sizeof(float) + 64);
    if (!m) {
        fprintf(stderr, "gemv_const: out of memory\n");
        exit(2);
    }
    float *p = (float *)(m + (64 - (uintptr_t)m % 64) % 64);
    for (int64_t i = 0; i < n; i++) {
        seed = seed * 1664525u + 1013904223u;
        p[i] = (float)(seed >> 8) / 8388608.0f - 1.0f;
    }
    return p;
}

typedef struct Run {
    const Shape *s;
    const float *a, *bp, *bx;
    float *y[2];
    O2cXsmm xsmm;
} Run;

static void run(Run *r, int kernel)
{
    if (kernel == 0)
        gemm_rowpacked_f32(r->s->N, r->s->K, r->a, 1, r->bp, gemm_rowpacked_width(0), r->y[0], 0);
    else
        o2c_xsmm_run(&r->xsmm, r->bx, r->a, r->y[1]);
}

/* One sample's seconds per product. */
static double sample(Run *r, int kernel, int cold)
{
    if (cold) {
        for (size_t i = 0; i < FLUSH_BYTES; i += 64)
            flush_buf[i]++;
        const double t0 = layer_now_s();
        run(r, kernel);
        return layer_now_s() - t0;
    }
    int reps = 0;
    const double t0 = layer_now_s();
    do {
        run(r, kernel);
        reps++;
    } while (layer_now_s() - t0 < 2e-3);
    return (layer_now_s() - t0) / reps;
}

int main(int argc, char **argv)
{
    const int rounds = argc > 1 ? atoi(argv[1]) : 5;
    flush_buf = calloc(FLUSH_BYTES, 1);
    libxsmm_init();
    static Run runs[NS];
    double best[NS][2][2];
    for (int i = 0; i < NS; i++) {
        Run *r = &runs[i];
        const int64_t K = shapes[i].K, N = shapes[i].N;
        float *b = alloc_floats(K * N, 7u + (uint32_t)i), *bp = alloc_floats(K * N, 0);
        float *bx = alloc_floats(K * N, 0);
        gemm_pack_b_f32(N, K, gemm_rowpacked_width(0), b, N, 1, bp);
        gemm_pack_xsmm_f32(N, K, b, N, 1, bx);
        r->s = &shapes[i];
        r->a = alloc_floats(K, 3u);
        r->bp = bp;
        r->bx = bx;
        r->y[0] = alloc_floats(N, 0);
        r->y[1] = alloc_floats(N, 0);
        o2c_xsmm_setup_panels(&r->xsmm, N, 1, K, N, bx, r->a, r->y[1]);
        for (int k = 0; k < 2; k++)
            best[i][k][0] = best[i][k][1] = 1e30;
    }
    for (int round = 0; round < rounds; round++)
        for (int i = 0; i < NS; i++)
            for (int cold = 0; cold < 2; cold++)
                for (int k = 0; k < 2; k++) {
                    double t[5];
                    for (int j = 0; j < 5; j++)
                        t[j] = sample(&runs[i], k, cold);
                    layer_keep_best(&best[i][k][cold], t, 5);
                }
    int status = 0;
    printf("%-12s %-38s %11s %11s %7s %11s %11s %7s\n", "K x N", "", "warm packed", "xsmm-p",
           "ratio", "cold packed", "xsmm-p", "ratio");
    for (int i = 0; i < NS; i++) {
        const Shape *s = &shapes[i];
        if (memcmp(runs[i].y[0], runs[i].y[1], (size_t)s->N * sizeof(float))) {
            printf("%lldx%lld: packed and xsmm-p differ\n", (long long)s->K, (long long)s->N);
            status = 1;
        }
        char kn[32];
        snprintf(kn, sizeof kn, "%lldx%lld", (long long)s->K, (long long)s->N);
        const double(*t)[2] = best[i];
        printf("%-12s %-38s %9.1f us %8.1f us %7.2f %8.1f us %8.1f us %7.2f\n", kn, s->name,
               t[0][0] * 1e6, t[1][0] * 1e6, t[1][0] / t[0][0], t[0][1] * 1e6, t[1][1] * 1e6,
               t[1][1] / t[0][1]);
    }
    return status;
}
