/* gemm_kernels.c — GFLOP/s of the product kernels against the measured single-core FP32 peak.
 *
 *     cc -std=c99 -O3 -march=native benchmarks/gemm_kernels.c -o gemm_kernels \
 *        -lxsmm -lxsmmnoblas -lm          (or -DNO_XSMM ... -lm without libxsmm)
 *     ./gemm_kernels [rounds]
 *
 * Peak: 24 independent chains of fmas of the widest vectors (peak_vec.h) (the compiler's vector extension), so neither
 * latency nor memory limits them; the fastest of 400 short repetitions (fma_peak.c's 16 chains
 * measure less here: 225 against 275 GFLOP/s on the AVX-512 EPYC, so this peak is the higher).
 * Products (row-major Y[M][N] = A[M][K] x B[K][N], the generated code's layout): the portable
 * template gemm_f32, and libxsmm 1.17 exactly as generated code runs it: runtime_min/xsmm_glue.c
 * sets the product up (column-major Y^T = B^T A^T, blocked over rows and k when large, checked
 * against the portable bits) and o2c_xsmm_run calls its kernels; "portable" in the libxsmm row
 * means the glue kept the portable kernel; "libxsmm-p" is the product of a constant B, packed as
 * the compiler packs it (gemm_pack_xsmm_f32) and set up with o2c_xsmm_setup_panels. Timing:
 * interleaved rounds, in each round every variant takes 5 samples and keeps their median; a sample
 * repeats the product until it lasts about 100 us (a thread-CPU clock read costs about 1 us here,
 * as long as a 64^3 product); the figure is the minimum of the per-round medians (the machine is
 * shared, so short samples and many rounds). It prints figures only and never fails on time; it
 * exits 1 if a variant's bits differ from the portable ones. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define O2C_KERNEL static __attribute__((unused))
#include "../templates/gemm.c"
#include "../templates/vector_width.h"
#ifndef NO_XSMM
#include <libxsmm.h>
/* the glue uses libxsmm.h's types: after it, as in generated code */
#include "../runtime_min/xsmm_glue.c"
#endif

/* The vector type of the widest registers -march allows, and CPU time of this thread (time
 * the scheduler gives to other processes on a shared machine does not count): peak_vec.h. */
#include "peak_vec.h"
#define now_s cpu_seconds

/* FP32 fma throughput of one core in GFLOP/s. x * a + b must be one fma: gcc -std=c99 does not
 * contract it (ISO mode), and on an Intel core with two FMA units the separate multiply and add
 * read half the peak (118 against fma_peak.c's 236 GFLOP/s). */
#if defined(__GNUC__) && !defined(__clang__)
__attribute__((optimize("fp-contract=fast")))
#endif
static double
measure_peak(void)
{
#if defined(__clang__)
#pragma clang fp contract(fast)
#endif
    vec a, b, x[24];
    for (int i = 0; i < LANES; i++) {
        a[i] = 0.999999f;
        b[i] = 1e-7f;
    }
    for (int c = 0; c < 24; c++)
        x[c] = b + (float)c;
    const long iters = 200000;
    double best = 1e30;
    for (int rep = 0; rep < 400; rep++) {
        vec x0 = x[0], x1 = x[1], x2 = x[2], x3 = x[3], x4 = x[4], x5 = x[5], x6 = x[6], x7 = x[7],
            x8 = x[8], x9 = x[9], x10 = x[10], x11 = x[11], x12 = x[12], x13 = x[13], x14 = x[14],
            x15 = x[15], x16 = x[16], x17 = x[17], x18 = x[18], x19 = x[19], x20 = x[20],
            x21 = x[21], x22 = x[22], x23 = x[23];
        double t0 = now_s();
        for (long it = 0; it < iters; it++) {
            x0 = x0 * a + b, x1 = x1 * a + b, x2 = x2 * a + b, x3 = x3 * a + b;
            x4 = x4 * a + b, x5 = x5 * a + b, x6 = x6 * a + b, x7 = x7 * a + b;
            x8 = x8 * a + b, x9 = x9 * a + b, x10 = x10 * a + b, x11 = x11 * a + b;
            x12 = x12 * a + b, x13 = x13 * a + b, x14 = x14 * a + b, x15 = x15 * a + b;
            x16 = x16 * a + b, x17 = x17 * a + b, x18 = x18 * a + b, x19 = x19 * a + b;
            x20 = x20 * a + b, x21 = x21 * a + b, x22 = x22 * a + b, x23 = x23 * a + b;
            __asm__ volatile("" : "+v"(x0)); /* keep the loop */
        }
        double t = now_s() - t0;
        if (t < best)
            best = t;
        x[0] = x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7 + x8 + x9 + x10 + x11;
        x[0] += x12 + x13 + x14 + x15 + x16 + x17 + x18 + x19 + x20 + x21 + x22 + x23;
    }
    sink = x[0][0];
    return 2.0 * 24 * 16 * (double)iters / best / 1e9;
}

typedef struct Shape {
    int64_t M, N, K;
    const char *what;
} Shape;

enum { VARIANTS = 3 };
static const char *const variant_names[VARIANTS] = {"portable", "libxsmm", "libxsmm-p"};

typedef struct Case {
    Shape s;
    float *A, *B, *Bp, *Y[VARIANTS]; /* Bp: B packed for libxsmm-p */
    int have[VARIANTS];
    int reps; /* products per timed sample */
#ifndef NO_XSMM
    O2cXsmm xsmm, xsmm_p;
#endif
} Case;

static void fill(float *x, int64_t n, uint32_t seed)
{
    for (int64_t i = 0; i < n; i++) {
        seed = seed * 1664525u + 1013904223u;
        x[i] = (float)(seed >> 8) / 8388608.0f - 1.0f;
    }
}

static void run_variant(Case *c, int v)
{
    const Shape *s = &c->s;
    if (v == 0)
        gemm_f32(s->M, s->N, s->K, c->A, s->K, 1, c->B, s->N, 1, c->Y[0]);
#ifndef NO_XSMM
    else if (v == 1)
        o2c_xsmm_run(&c->xsmm, c->B, c->A, c->Y[1]);
    else
        o2c_xsmm_run(&c->xsmm_p, c->Bp, c->A, c->Y[2]);
#endif
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 15;
    static const Shape shapes[] = {
        {64, 64, 64, "64^3"},
        {128, 128, 128, "128^3"},
        {256, 256, 256, "256^3"},
        {512, 512, 512, "512^3"},
        {1024, 1024, 1024, "1024^3"},
        {784, 128, 64, "784x64 x 64x128 (r18 1x1)"},
        {196, 256, 128, "196x128 x 128x256 (r18)"},
        {49, 512, 256, "49x256 x 256x512 (r18)"},
        {128, 768, 768, "128x768 x 768x768 (bert)"},
        {128, 3072, 768, "128x768 x 768x3072"},
        {128, 768, 3072, "128x3072 x 3072x768"},
        {1, 128, 784, "GEMV 1x784 x 784x128"},
        {1, 1024, 1024, "GEMV 1x1024 x 1024x1024"},
        {2, 128, 784, "2x784 x 784x128"},
        {4, 128, 784, "4x784 x 784x128"},
        {1, 512, 512, "GEMV 1x512 x 512x512"},
    };
    enum { NSHAPES = sizeof shapes / sizeof shapes[0] };
    Case cases[NSHAPES];
    memset(cases, 0, sizeof cases);
#ifndef NO_XSMM
    libxsmm_init();
#endif
    int status = 0;
    for (int i = 0; i < NSHAPES; i++) {
        Case *c = &cases[i];
        c->s = shapes[i];
        c->A = malloc((size_t)(c->s.M * c->s.K) * sizeof(float));
        c->B = malloc((size_t)(c->s.K * c->s.N) * sizeof(float));
        fill(c->A, c->s.M * c->s.K, 1u + (uint32_t)i);
        fill(c->B, c->s.K * c->s.N, 100u + (uint32_t)i);
        for (int v = 0; v < VARIANTS; v++)
            c->Y[v] = malloc((size_t)(c->s.M * c->s.N) * sizeof(float));
        c->have[0] = 1;
#ifndef NO_XSMM
        o2c_xsmm_setup(&c->xsmm, c->s.N, c->s.M, c->s.K, c->B, c->A, c->Y[1]);
        c->have[1] = 1;
        c->Bp = malloc((size_t)(c->s.K * c->s.N) * sizeof(float));
        gemm_pack_xsmm_f32(c->s.N, c->s.K, c->B, c->s.N, 1, c->Bp);
        o2c_xsmm_setup_panels(&c->xsmm_p, c->s.N, c->s.M, c->s.K, c->s.N, c->Bp, c->A, c->Y[2]);
        c->have[2] = 1;
#endif
        for (int v = 0; v < VARIANTS; v++)
            if (c->have[v])
                run_variant(c, v);
        double t0 = now_s();
        run_variant(c, 0);
        double once = now_s() - t0;
        c->reps = once < 100e-6 ? (int)(100e-6 / (once > 1e-7 ? once : 1e-7)) + 1 : 1;
        for (int v = 1; v < VARIANTS; v++)
            if (c->have[v] && memcmp(c->Y[0], c->Y[v], (size_t)(c->s.M * c->s.N) * sizeof(float))) {
                printf("%s: %s bits differ from portable\n", c->s.what, variant_names[v]);
                status = 1;
            }
    }
    double peak = measure_peak();
    printf("single-core FP32 peak: %.1f GFLOP/s (%d rounds per product)\n", peak, rounds);

    double best[NSHAPES][VARIANTS];
    for (int i = 0; i < NSHAPES; i++)
        for (int v = 0; v < VARIANTS; v++)
            best[i][v] = 1e30;
    for (int r = 0; r < rounds; r++) {
        for (int i = 0; i < NSHAPES; i++) {
            Case *c = &cases[i];
            for (int v = 0; v < VARIANTS; v++) {
                if (!c->have[v])
                    continue;
                double t[5];
                for (int q = 0; q < 5; q++) {
                    double t0 = now_s();
                    for (int rep = 0; rep < c->reps; rep++)
                        run_variant(c, v);
                    t[q] = (now_s() - t0) / c->reps;
                }
                qsort(t, 5, sizeof t[0], cmp_double);
                if (t[2] < best[i][v])
                    best[i][v] = t[2];
            }
        }
    }
    printf("%-26s %-9s %10s %8s %7s\n", "product", "kernel", "us", "GFLOP/s", "% peak");
    for (int i = 0; i < NSHAPES; i++) {
        const Case *c = &cases[i];
        double flops = 2.0 * (double)c->s.M * (double)c->s.N * (double)c->s.K;
        for (int v = 0; v < VARIANTS; v++) {
            if (!c->have[v]) {
                printf("%-26s %-9s %10s\n", c->s.what, variant_names[v], "n/a");
                continue;
            }
            double g = flops / best[i][v] / 1e9;
            const char *name = variant_names[v];
#ifndef NO_XSMM
            if ((v == 1 && !c->xsmm.kernel[0][0]) || (v == 2 && !c->xsmm_p.kernel[0][0]))
                name = "portable"; /* the glue kept the portable kernel */
            else if (v == 1 && (c->xsmm.mb < c->s.N || c->xsmm.kb < c->s.K))
                name = "libxsmm-b"; /* blocked over rows or k */
#endif
            printf("%-26s %-9s %10.2f %8.1f %6.1f%%\n", c->s.what, name, best[i][v] * 1e6, g,
                   100.0 * g / peak);
        }
    }
    return status;
}
