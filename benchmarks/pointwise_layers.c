/* pointwise_layers.c — CPU time of the channels-last 1x1 convs (conv_pointwise_nhwc_f32 of
 * templates/conv_nhwc.c, with a Clip epilogue) of the 224x224 CNNs of benchmarks/gen_models.py
 * (mobilenet_v2, efficientnet_b0, mobilenet_v3_small, shufflenet_v2_x1_0, squeezenet1_1): each
 * shape M positions x N output channels x K input channels (count: how many of these nets' convs
 * have it), in the compiler's row blocks (conv_pointwise_nhwc_rows), by three products:
 * "portable" (gemm_f32 on the [K][N] weight), "xsmm" (libxsmm 1.17 through runtime_min/xsmm_glue.c
 * on the same weight, o2c_xsmm_setup) and "xsmm-p" (the weight packed in panels of 64 output
 * channels, gemm_pack_xsmm_f32 and o2c_xsmm_setup_panels: what the libxsmm build runs from 16
 * output channels on; below 16 it runs the portable kernel). All give the same bits; the
 * program checks that.
 *
 *     cc -std=c99 -O3 -march=native benchmarks/pointwise_layers.c -o pointwise_layers \
 *        -lxsmm -lxsmmnoblas -lm
 *     ./pointwise_layers [rounds [cold]]
 *
 * cold = 1 evicts the caches (writes 64 MiB) before each sample, as the layers run inside a
 * model, whose weights and activations mostly come from L3 or memory; 0 (default) repeats
 * each conv for 2 ms per sample, with everything in cache. Timing: layer_timer.h. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layer_timer.h"

#define O2C_KERNEL static __attribute__((unused))
#include "../templates/conv.c"
#include "../templates/conv_nhwc.c"
#include "../templates/elementwise.c"
#include "../templates/gemm.c"
#include "../templates/math.c"
#include <libxsmm.h>
/* the glue uses libxsmm.h's types: after it, as in generated code */
#include "../runtime_min/xsmm_glue.c"

typedef struct Layer {
    int64_t M, N, K, count;
} Layer;

static const Layer layers[] = {
    {3025, 16, 64, 1},   {3025, 16, 128, 1}, {3136, 16, 16, 1},   {12544, 16, 32, 2},
    {784, 24, 72, 1},    {784, 24, 88, 1},   {3136, 24, 96, 2},   {3136, 24, 144, 2},
    {729, 32, 128, 1},   {729, 32, 256, 1},  {784, 32, 144, 1},   {784, 32, 192, 2},
    {196, 40, 96, 1},    {196, 40, 240, 2},  {784, 40, 144, 1},   {784, 40, 240, 1},
    {169, 48, 256, 1},   {169, 48, 384, 1},  {196, 48, 120, 1},   {196, 48, 144, 1},
    {784, 58, 24, 1},    {784, 58, 58, 7},   {3136, 58, 24, 1},   {169, 64, 384, 1},
    {169, 64, 512, 1},   {196, 64, 192, 1},  {196, 64, 384, 3},   {3025, 64, 16, 2},
    {3136, 72, 16, 1},   {196, 80, 240, 1},  {196, 80, 480, 2},   {784, 88, 24, 1},
    {49, 96, 288, 1},    {49, 96, 576, 2},   {196, 96, 384, 1},   {196, 96, 576, 2},
    {784, 96, 24, 1},    {12544, 96, 16, 2}, {196, 112, 480, 1},  {196, 112, 672, 2},
    {196, 116, 116, 16}, {784, 116, 116, 1}, {196, 120, 40, 1},   {729, 128, 32, 2},
    {196, 144, 48, 1},   {3136, 144, 24, 4}, {49, 160, 576, 1},   {49, 160, 960, 2},
    {49, 192, 672, 1},   {49, 192, 1152, 3}, {169, 192, 48, 2},   {784, 192, 32, 3},
    {49, 232, 232, 8},   {196, 232, 232, 1}, {196, 240, 40, 2},   {784, 240, 40, 2},
    {169, 256, 64, 2},   {196, 288, 48, 1},  {49, 320, 960, 1},   {49, 320, 1152, 1},
    {196, 384, 64, 4},   {196, 480, 80, 3},  {49, 576, 96, 3},    {196, 576, 96, 3},
    {196, 672, 112, 3},  {49, 960, 160, 3},  {169, 1000, 512, 1}, {49, 1024, 464, 1},
    {49, 1152, 192, 4},  {49, 1280, 320, 2},
};
enum { NLAYERS = sizeof layers / sizeof layers[0], VARIANTS = 3, FLUSH_BYTES = 64 << 20 };
static const char *const variant_names[VARIANTS] = {"portable", "xsmm", "xsmm-p"};

/* The libxsmm product that conv_pointwise_nhwc_f32 calls: the glue's state of the variant. */
static O2cXsmm xsmm_state;
static void xsmm_block(const float *a, const float *b, float *c)
{
    o2c_xsmm_run(&xsmm_state, a, b, c);
}

static void fill(float *x, int64_t n, uint32_t seed)
{
    for (int64_t i = 0; i < n; i++) {
        seed = seed * 1664525u + 1013904223u;
        x[i] = (float)(seed >> 8) / 8388608.0f - 1.0f;
    }
}

static char *flush_buf;
static void flush_caches(void)
{
    for (size_t i = 0; i < FLUSH_BYTES; i += 64)
        flush_buf[i]++;
}

typedef struct Run {
    const Layer *l;
    int64_t rb;
    const float *x, *w;
    float *y;
    void (*product)(const float *, const float *, float *);
} Run;

static void run_conv(const Run *r)
{
    static const struct ConvEpilogue clip[1] = {{CONV_EP_CLIP, 0, 0.0f, 6.0f, NULL}};
    conv_pointwise_nhwc_f32(r->l->M, r->l->N, r->l->K, r->rb, r->product, r->product, r->x, r->w,
                            NULL, clip, 1, r->y);
}

/* One sample's seconds per conv. */
static double sample(const Run *r, int cold)
{
    if (cold) {
        flush_caches();
        const double t0 = layer_now_s();
        run_conv(r);
        return layer_now_s() - t0;
    }
    int reps = 0;
    const double t0 = layer_now_s();
    do {
        run_conv(r);
        reps++;
    } while (layer_now_s() - t0 < 2e-3);
    return (layer_now_s() - t0) / reps;
}

int main(int argc, char **argv)
{
    const int rounds = argc > 1 ? atoi(argv[1]) : 3, cold = argc > 2 ? atoi(argv[2]) : 0;
    double total[VARIANTS] = {0};
    int status = 0;
    flush_buf = calloc(FLUSH_BYTES, 1);
    libxsmm_init();
    printf("%-20s %5s %4s", "M x N x K", "count", "rb");
    for (int v = 0; v < VARIANTS; v++)
        printf(" %9s us", variant_names[v]);
    printf("   (%s caches)\n", cold ? "cold" : "warm");
    for (int i = 0; i < NLAYERS; i++) {
        const Layer *l = &layers[i];
        const int64_t rb = conv_pointwise_nhwc_rows(l->M, l->N, l->K);
        float *x = malloc((size_t)(l->M * l->K) * sizeof(float));
        float *w = malloc((size_t)(l->K * l->N) * sizeof(float));
        float *wp = malloc((size_t)(l->K * l->N) * sizeof(float));
        float *y = malloc((size_t)(l->M * l->N) * sizeof(float));
        float *want = malloc((size_t)(l->M * l->N) * sizeof(float));
        fill(x, l->M * l->K, 1u + (uint32_t)i);
        fill(w, l->K * l->N, 100u + (uint32_t)i);
        gemm_pack_xsmm_f32(l->N, l->K, w, l->N, 1, wp);
        Run portable = {l, rb, x, w, want, NULL};
        run_conv(&portable);
        printf("%5lld x %4lld x %4lld %5lld %4lld", (long long)l->M, (long long)l->N,
               (long long)l->K, (long long)l->count, (long long)rb);
        for (int v = 0; v < VARIANTS; v++) {
            Run r = {l, rb, x, v == 2 ? wp : w, y, v ? xsmm_block : NULL};
            if (l->M % rb) { /* its last block would need a kernel of its own: not timed */
                printf(" %12s", "-");
                continue;
            }
            if (v == 1)
                o2c_xsmm_setup(&xsmm_state, l->N, rb, l->K, w, x, y);
            else if (v == 2)
                o2c_xsmm_setup_panels(&xsmm_state, l->N, rb, l->K, l->N, wp, x, y);
            run_conv(&r);
            if (memcmp(y, want, (size_t)(l->M * l->N) * sizeof(float))) {
                printf(" bits differ");
                status = 1;
                continue;
            }
            double best = 1e30;
            for (int round = 0; round < rounds; round++) {
                double t[5];
                for (int q = 0; q < 5; q++)
                    t[q] = sample(&r, cold);
                layer_keep_best(&best, t, 5);
            }
            total[v] += best * (double)l->count;
            printf(" %12.1f", best * 1e6);
        }
        printf("\n");
        free(x), free(w), free(wp), free(y), free(want);
    }
    printf("%-31s", "sum over the nets' convs");
    for (int v = 0; v < VARIANTS; v++)
        printf(" %12.0f", total[v] * 1e6);
    printf("\n");
    return status;
}
