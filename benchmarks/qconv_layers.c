/* qconv_layers.c — CPU time of the int8 conv kernels on the QLinearConv layers of the MLPerf Tiny
 * int8 models (benchmarks/gen_models.py: DS-CNN, MobileNetV1-0.25, ResNet-8) and on depthwise
 * layers of 224x224 int8 nets ("dw224"), one layer at a time: "nchw" qconv_s8
 * (templates/quant.c) on channels-first tensors, "nhwc" qconv_nhwc_s8 (templates/quant_nhwc.c)
 * on the same data channels-last. Both give the same bytes; the program checks that.
 *
 *     cc -std=c99 -O3 -march=native benchmarks/qconv_layers.c -o qconv_layers -lm
 *     ./qconv_layers [rounds]
 *
 * Timing (layer_timer.h): interleaved rounds, 7 samples per layer and kernel in each round, the
 * minimum of the per-round medians of thread CPU time. Per model: the sum over its layers (times
 * their count). It prints figures only. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layer_timer.h"

#define O2C_KERNEL static __attribute__((unused))
#include "../templates/quant.c"
#include "../templates/quant_nhwc.c"

typedef struct Layer {
    const char *model;
    int count;       /* layers of this geometry in the model */
    int64_t geo[24]; /* qconv's 22, then qconv_nhwc_s8's scratch budget and int32 flag (0, 0) */
} Layer;

#define G2(C, H, W, OC, G, K, OH, OW, S, P)                                                        \
    {                                                                                              \
        1, C, 1, H, W, OC, G, 1, K, K, 1, OH, OW, 1, S, S, 0, P, P, 1, 1, 1                        \
    }

static const Layer layers[] = {
    {"dscnn", 1, {1, 1, 1, 49, 10, 64, 1, 1, 10, 4, 1, 25, 5, 1, 2, 2, 0, 4, 1, 1, 1, 1}},
    {"dscnn", 4, G2(64, 25, 5, 64, 64, 3, 25, 5, 1, 1)},
    {"dscnn", 4, G2(64, 25, 5, 64, 1, 1, 25, 5, 1, 0)},
    {"dscnn", 1, G2(64, 1, 1, 12, 1, 1, 1, 1, 1, 0)},
    {"mobilenet", 1, G2(3, 96, 96, 8, 1, 3, 48, 48, 2, 1)},
    {"mobilenet", 1, G2(8, 48, 48, 8, 8, 3, 48, 48, 1, 1)},
    {"mobilenet", 1, G2(8, 48, 48, 16, 1, 1, 48, 48, 1, 0)},
    {"mobilenet", 1, G2(16, 48, 48, 16, 16, 3, 24, 24, 2, 1)},
    {"mobilenet", 1, G2(16, 24, 24, 32, 1, 1, 24, 24, 1, 0)},
    {"mobilenet", 1, G2(32, 24, 24, 32, 32, 3, 24, 24, 1, 1)},
    {"mobilenet", 1, G2(32, 24, 24, 32, 1, 1, 24, 24, 1, 0)},
    {"mobilenet", 1, G2(32, 24, 24, 32, 32, 3, 12, 12, 2, 1)},
    {"mobilenet", 1, G2(32, 12, 12, 64, 1, 1, 12, 12, 1, 0)},
    {"mobilenet", 1, G2(64, 12, 12, 64, 64, 3, 12, 12, 1, 1)},
    {"mobilenet", 1, G2(64, 12, 12, 64, 1, 1, 12, 12, 1, 0)},
    {"mobilenet", 1, G2(64, 12, 12, 64, 64, 3, 6, 6, 2, 1)},
    {"mobilenet", 1, G2(64, 6, 6, 128, 1, 1, 6, 6, 1, 0)},
    {"mobilenet", 5, G2(128, 6, 6, 128, 128, 3, 6, 6, 1, 1)},
    {"mobilenet", 5, G2(128, 6, 6, 128, 1, 1, 6, 6, 1, 0)},
    {"mobilenet", 1, G2(128, 6, 6, 128, 128, 3, 3, 3, 2, 1)},
    {"mobilenet", 1, G2(128, 3, 3, 256, 1, 1, 3, 3, 1, 0)},
    {"mobilenet", 1, G2(256, 3, 3, 256, 256, 3, 3, 3, 1, 1)},
    {"mobilenet", 1, G2(256, 3, 3, 256, 1, 1, 3, 3, 1, 0)},
    {"resnet8", 1, G2(3, 32, 32, 16, 1, 3, 32, 32, 1, 1)},
    {"resnet8", 2, G2(16, 32, 32, 16, 1, 3, 32, 32, 1, 1)},
    {"resnet8", 1, G2(16, 32, 32, 32, 1, 3, 16, 16, 2, 1)},
    {"resnet8", 1, G2(16, 32, 32, 32, 1, 1, 16, 16, 2, 0)},
    {"resnet8", 1, G2(32, 16, 16, 32, 1, 3, 16, 16, 1, 1)},
    {"resnet8", 1, G2(32, 16, 16, 64, 1, 3, 8, 8, 2, 1)},
    {"resnet8", 1, G2(32, 16, 16, 64, 1, 1, 8, 8, 2, 0)},
    {"resnet8", 1, G2(64, 8, 8, 64, 1, 3, 8, 8, 1, 1)},
    /* depthwise layers of 224x224 int8 nets (MobileNetV1-0.25's first, MobileNetV2's), whose
     * padded image is past the row form's default scratch: bands of rows, or the pixel form
     * (144 channels) */
    {"dw224", 1, G2(8, 112, 112, 8, 8, 3, 112, 112, 1, 1)},
    {"dw224", 1, G2(32, 112, 112, 32, 32, 3, 112, 112, 1, 1)},
    {"dw224", 1, G2(96, 112, 112, 96, 96, 3, 56, 56, 2, 1)},
    {"dw224", 1, G2(144, 56, 56, 144, 144, 3, 56, 56, 1, 1)},
    {"dw224", 1, G2(192, 28, 28, 192, 192, 3, 28, 28, 1, 1)},
    {"dw224", 1, G2(384, 14, 14, 384, 384, 3, 14, 14, 1, 1)},
    {"dw224", 1, G2(960, 7, 7, 960, 960, 3, 7, 7, 1, 1)},
};
enum { NLAYERS = sizeof layers / sizeof layers[0], SAMPLES = 7 };

typedef struct Data {
    int64_t xn, yn;
    uint8_t *x, *xl, *y, *yl, *scratch, *scratch_l;
    int8_t *wp, *wpl;
    int32_t *bias_adj;
    double *mult;
} Data;

static uint32_t rng = 2463534242u;
static uint32_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 17;
    rng ^= rng << 5;
    return rng;
}

static void *alloc(int64_t n)
{
    void *p = calloc((size_t)n + 64, 1);
    if (!p)
        exit(2);
    return p;
}

/* Random int8 data and weights, per-channel scales of ResNet-like size (outputs in range). */
static void setup(const int64_t *geo, Data *d)
{
    const int64_t S = geo[2] * geo[3] * geo[4], P = geo[10] * geo[11] * geo[12];
    const int64_t K = geo[1] / geo[6] * geo[7] * geo[8] * geo[9], OC = geo[5];
    d->xn = geo[0] * geo[1] * S, d->yn = geo[0] * OC * P;
    d->x = alloc(d->xn), d->xl = alloc(d->xn), d->y = alloc(d->yn), d->yl = alloc(d->yn);
    for (int64_t i = 0; i < d->xn; i++)
        d->x[i] = (uint8_t)next();
    for (int64_t c = 0; c < geo[1]; c++) /* xl [S][C] = x [C][S] */
        for (int64_t s = 0; s < S; s++)
            d->xl[s * geo[1] + c] = d->x[c * S + s];
    int8_t *w = alloc(OC * K);
    for (int64_t i = 0; i < OC * K; i++)
        w[i] = (int8_t)next();
    float *ws = alloc(4 * OC);
    for (int64_t i = 0; i < OC; i++)
        ws[i] = 0.002f + 0.0001f * (float)(next() % 16);
    const float xs = 0.05f, ys = 0.05f;
    const int8_t xz = -3;
    d->bias_adj = alloc(4 * OC), d->mult = alloc(8 * OC);
    if (!qconv_s8_prepare(geo, 3, &xz, w, NULL, 1, &xs, ws, 1, &ys, d->bias_adj, d->mult))
        exit(3);
    d->wp = alloc(qconv_s8_wbytes(geo)), d->wpl = alloc(qconv_nhwc_s8_wbytes(geo));
    qconv_s8_weights(geo, w, d->wp);
    qconv_nhwc_s8_weights(geo, w, d->wpl);
    d->scratch = alloc(qconv_s8_scratch(geo)), d->scratch_l = alloc(qconv_nhwc_s8_scratch(geo));
    free(w);
    free(ws);
}

static const int8_t x_zp = -3, y_zp = 5;

static double run(const int64_t *geo, Data *d, int nhwc)
{
    const double t0 = layer_now_s();
    if (nhwc)
        qconv_nhwc_s8(geo, 3, d->xl, &x_zp, d->wpl, d->bias_adj, d->mult, 3, &y_zp, d->yl,
                      d->scratch_l);
    else
        qconv_s8(geo, 3, d->x, &x_zp, d->wp, d->bias_adj, d->mult, 3, &y_zp, d->y, d->scratch);
    return layer_now_s() - t0;
}

int main(int argc, char **argv)
{
    const int rounds = argc > 1 ? atoi(argv[1]) : 5;
    static Data data[NLAYERS];
    static double best[NLAYERS][2];
    for (int l = 0; l < NLAYERS; l++) {
        setup(layers[l].geo, &data[l]);
        best[l][0] = best[l][1] = 1e9;
    }
    for (int r = 0; r < rounds; r++)
        for (int l = 0; l < NLAYERS; l++)
            for (int f = 0; f < 2; f++) {
                double s[SAMPLES];
                for (int i = 0; i < SAMPLES; i++)
                    s[i] = run(layers[l].geo, &data[l], f);
                layer_keep_best(&best[l][f], s, SAMPLES);
            }
    printf("%-10s %5s %5s %3s %5s %4s %2s %6s %3s  %9s %9s  %s\n", "model", "C", "HxW", "K", "OC",
           "G", "S", "count", "", "nchw_us", "nhwc_us", "nhwc/nchw");
    const char *models[] = {"dscnn", "mobilenet", "resnet8", "dw224"};
    int bad = 0;
    for (int mi = 0; mi < 4; mi++) {
        double sum[2] = {0, 0};
        for (int l = 0; l < NLAYERS; l++) {
            const Layer *L = &layers[l];
            if (strcmp(L->model, models[mi]))
                continue;
            const int64_t *g = L->geo, S = g[10] * g[11] * g[12];
            for (int64_t c = 0; c < g[5]; c++) /* the same bytes in the other layout */
                for (int64_t s = 0; s < S; s++)
                    bad += data[l].y[c * S + s] != data[l].yl[s * g[5] + c];
            printf(
                "%-10s %5lld %2lldx%-2lld %lldx%lld %5lld %4lld %2lld %6d %3s  %9.2f %9.2f  %.2f\n",
                L->model, (long long)g[1], (long long)g[3], (long long)g[4], (long long)g[8],
                (long long)g[9], (long long)g[5], (long long)g[6], (long long)g[14], L->count, "",
                1e6 * best[l][0], 1e6 * best[l][1], best[l][1] / best[l][0]);
            sum[0] += L->count * best[l][0], sum[1] += L->count * best[l][1];
        }
        printf("%-10s total  nchw %.1f us  nhwc %.1f us  nhwc/nchw %.2f\n\n", models[mi],
               1e6 * sum[0], 1e6 * sum[1], sum[1] / sum[0]);
    }
    if (bad)
        printf("MISMATCH: %d bytes differ between the layouts\n", bad);
    return bad ? 1 : 0;
}
