/* depthwise_layers.c — CPU time of the depthwise conv kernels on the depthwise layers of the
 * benchmark models (DS-CNN, MobileNetV1-0.25 VWW, MobileNetV2, MobileNetV3-small,
 * EfficientNet-B0), one layer shape at a time with a fused Relu: "nchw" is templates/conv.c's
 * depthwise_conv_f32 (what `--layout nchw` runs, with the Relu as a pass), "nhwc" is
 * templates/depthwise_nhwc.c's depthwise_nhwc_f32 (the Relu in its store). Both give the same
 * bits; the program checks that. Per model it prints the sum over its layers (each shape
 * times its count in the model).
 *
 *     cc -std=c99 -O3 -march=native benchmarks/depthwise_layers.c -o depthwise_layers -lm
 *     ./depthwise_layers [rounds [model]]    (model: kws, vww, mnv2, mnv3s or effb0 only)
 *
 * Timing (layer_timer.h): interleaved rounds, 5 samples per layer and kernel in each round, the
 * minimum of the per-round medians of thread CPU time. It prints figures only. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layer_timer.h"

#define O2C_KERNEL static __attribute__((unused))
#include "../templates/conv.c"
#include "../templates/depthwise_nhwc.c"
#include "../templates/elementwise.c"
#include "../templates/math.c"

typedef struct Layer {
    const char *model;
    int64_t C, H, K, s; /* square H x H input, K x K kernel, stride s, padding K/2 */
    int64_t count;      /* how many layers of the model have this shape */
} Layer;

static const Layer layers[] = {
    {"kws", 64, 25, 3, 1, 4}, /* 25x5 really: H is the height, W below */
    {"vww", 8, 48, 3, 1, 1},     {"vww", 16, 48, 3, 2, 1},    {"vww", 32, 24, 3, 1, 1},
    {"vww", 32, 24, 3, 2, 1},    {"vww", 64, 12, 3, 1, 1},    {"vww", 64, 12, 3, 2, 1},
    {"vww", 128, 6, 3, 1, 5},    {"vww", 128, 6, 3, 2, 1},    {"vww", 256, 3, 3, 1, 1},
    {"mnv2", 32, 112, 3, 1, 1},  {"mnv2", 96, 112, 3, 2, 1},  {"mnv2", 144, 56, 3, 1, 1},
    {"mnv2", 144, 56, 3, 2, 1},  {"mnv2", 192, 28, 3, 1, 2},  {"mnv2", 192, 28, 3, 2, 1},
    {"mnv2", 384, 14, 3, 1, 4},  {"mnv2", 576, 14, 3, 1, 2},  {"mnv2", 576, 14, 3, 2, 1},
    {"mnv2", 960, 7, 3, 1, 3},   {"mnv3s", 16, 112, 3, 2, 1}, {"mnv3s", 72, 56, 3, 2, 1},
    {"mnv3s", 88, 28, 3, 1, 1},  {"mnv3s", 96, 28, 5, 2, 1},  {"mnv3s", 240, 14, 5, 1, 2},
    {"mnv3s", 120, 14, 5, 1, 1}, {"mnv3s", 144, 14, 5, 1, 1}, {"mnv3s", 288, 14, 5, 2, 1},
    {"mnv3s", 576, 7, 5, 1, 2},  {"effb0", 32, 112, 3, 1, 1}, {"effb0", 96, 112, 3, 2, 1},
    {"effb0", 144, 56, 3, 1, 1}, {"effb0", 144, 56, 5, 2, 1}, {"effb0", 240, 28, 5, 1, 1},
    {"effb0", 240, 28, 3, 2, 1}, {"effb0", 480, 14, 3, 1, 2}, {"effb0", 480, 14, 5, 1, 1},
    {"effb0", 672, 14, 5, 1, 2}, {"effb0", 672, 14, 5, 2, 1}, {"effb0", 1152, 7, 5, 1, 3},
    {"effb0", 1152, 7, 3, 1, 1},
};
enum { NL = sizeof layers / sizeof layers[0], SAMPLES = 5 };

typedef struct Run {
    int64_t H, W, OH, OW, pad;
    float *x, *xh, *w, *wp, *b, *y, *yh, *yt, *work;
    int64_t geo[NHWC_GEO_LEN];
} Run;

static float *alloc_floats(int64_t n)
{
    float *p = malloc((size_t)n * sizeof(float));
    if (!p) {
        fprintf(stderr, "depthwise_layers: out of memory\n");
        exit(1);
    }
    return p;
}

static void setup(const Layer *l, Run *r)
{
    r->H = l->H;
    r->W = strcmp(l->model, "kws") ? l->H : 5;
    r->pad = l->K / 2;
    r->OH = (r->H + 2 * r->pad - l->K) / l->s + 1;
    r->OW = (r->W + 2 * r->pad - l->K) / l->s + 1;
    const int64_t nx = l->C * r->H * r->W, ny = l->C * r->OH * r->OW, nw = l->C * l->K * l->K;
    r->x = alloc_floats(nx);
    r->xh = alloc_floats(nx);
    r->w = alloc_floats(nw);
    r->wp = alloc_floats(nw);
    r->b = alloc_floats(l->C);
    r->y = alloc_floats(ny);
    r->yh = alloc_floats(ny);
    r->yt = alloc_floats(ny);
    r->work =
        alloc_floats(depthwise_work_floats(l->C, 1, l->K, l->K, r->OH, r->OW, l->s, l->s, 1, 1));
    uint32_t s = 12345u;
    for (int64_t i = 0; i < nx; i++) {
        s = s * 1664525u + 1013904223u;
        r->x[i] = (float)(s >> 8) / 16777216.0f - 0.5f;
    }
    for (int64_t i = 0; i < nw; i++) {
        s = s * 1664525u + 1013904223u;
        r->w[i] = (float)(s >> 8) / 16777216.0f - 0.5f;
    }
    for (int64_t i = 0; i < l->C; i++)
        r->b[i] = 0.01f * (float)i;
    for (int64_t c = 0; c < l->C; c++)
        for (int64_t p = 0; p < r->H * r->W; p++)
            r->xh[p * l->C + c] = r->x[c * r->H * r->W + p];
    depthwise_nhwc_pack_f32(l->C, l->K, l->K, r->w, r->wp);
    const int64_t g[NHWC_GEO_LEN] = {1,    r->H, r->W,   l->C,   r->OH,  r->OW,  l->K, l->K,
                                     l->s, l->s, r->pad, r->pad, r->pad, r->pad, 1,    1};
    memcpy(r->geo, g, sizeof g);
}

static const struct ConvEpilogue relu_ep[1] = {{CONV_EP_RELU, 0, 0.0f, 0.0f, NULL}};

static void run_nchw(const Layer *l, Run *r)
{
    depthwise_conv_f32(1, l->C, 1, r->H, r->W, l->K, l->K, r->OH, r->OW, l->s, l->s, r->pad, r->pad,
                       1, 1, r->x, r->w, r->b, r->y, r->work);
    relu_f32(l->C * r->OH * r->OW, r->y, r->y);
}

static void run_nhwc(Run *r)
{
    depthwise_nhwc_f32(r->geo, r->xh, r->wp, r->b, relu_ep, 1, r->yh);
}

int main(int argc, char **argv)
{
    const int rounds = argc > 1 ? atoi(argv[1]) : 5;
    const char *only = argc > 2 ? argv[2] : NULL;
    static Run runs[NL];
    static double best[NL][2];
    for (int i = 0; i < NL; i++) {
        setup(&layers[i], &runs[i]);
        run_nchw(&layers[i], &runs[i]);
        run_nhwc(&runs[i]);
        const int64_t C = layers[i].C, P = runs[i].OH * runs[i].OW;
        for (int64_t c = 0; c < C; c++)
            for (int64_t p = 0; p < P; p++)
                runs[i].yt[p * C + c] = runs[i].y[c * P + p];
        if (memcmp(runs[i].yt, runs[i].yh, (size_t)(C * P) * sizeof(float))) {
            fprintf(stderr, "depthwise_layers: layer %d: nhwc bits differ from nchw\n", i);
            return 1;
        }
        best[i][0] = best[i][1] = 1e30;
    }
    for (int round = 0; round < rounds; round++)
        for (int i = 0; i < NL; i++)
            for (int k = 0; k < 2 && (!only || !strcmp(only, layers[i].model)); k++) {
                double t[SAMPLES];
                for (int s = 0; s < SAMPLES; s++) {
                    const double t0 = layer_now_s();
                    if (k == 0)
                        run_nchw(&layers[i], &runs[i]);
                    else
                        run_nhwc(&runs[i]);
                    t[s] = layer_now_s() - t0;
                }
                layer_keep_best(&best[i][k], t, SAMPLES);
            }
    printf("%-6s %-22s %10s %10s %7s %8s\n", "model", "layer", "nchw us", "nhwc us", "ratio",
           "GFLOP/s");
    const char *model = "";
    double sum[2] = {0, 0};
    for (int i = 0; i <= NL; i++) {
        if (i < NL && only && strcmp(only, layers[i].model))
            continue;
        if (i == NL || strcmp(layers[i].model, model)) {
            if (*model)
                printf("%-6s %-22s %10.1f %10.1f %7.2f\n", model, "(sum x count)", sum[0], sum[1],
                       sum[1] / sum[0]);
            if (i == NL)
                break;
            model = layers[i].model;
            sum[0] = sum[1] = 0;
        }
        const Layer *l = &layers[i];
        const Run *r = &runs[i];
        char name[64];
        snprintf(name, sizeof name, "%lldx%lldx%lld k%lld s%lld x%lld", (long long)r->H,
                 (long long)r->W, (long long)l->C, (long long)l->K, (long long)l->s,
                 (long long)l->count);
        const double flops = 2.0 * (double)(l->C * r->OH * r->OW * l->K * l->K);
        printf("%-6s %-22s %10.1f %10.1f %7.2f %8.1f\n", l->model, name, 1e6 * best[i][0],
               1e6 * best[i][1], best[i][1] / best[i][0], flops / best[i][1] * 1e-9);
        sum[0] += 1e6 * best[i][0] * (double)l->count;
        sum[1] += 1e6 * best[i][1] * (double)l->count;
    }
    return 0;
}
