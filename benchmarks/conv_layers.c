/* conv_layers.c — CPU time and GFLOP/s of the dense conv kernels (templates/conv.c) on the conv
 * layers of torchvision's ResNet-18 at 224x224, one layer at a time, each with a fused Relu:
 * "band": as the compiler ran them before the channel-vector tiles (kxk convs in conv_band_f32's
 * 8x32 tiles on the band rows compiler/ops/conv.c picked, strided 1x1 convs in conv_f32);
 * "chan": conv_band_f32's channel-vector tiles on bands as large as the limit allows, what the
 * compiler picks now for every layer here in NCHW; "nhwc": templates/conv_nhwc.c on the same
 * layer in channels-last tensors (bands from conv_nhwc_rows with 65536 floats), what
 * `--layout nhwc` runs; "no plane": conv_nhwc_f32 without a band plane (geo R = 0, the tiles
 * reading x), what it runs under a scratch budget that holds no plane. Also tiny_resnet8's
 * convs (32x32 input, 16-64 channels), squeezenet1_1's kxk convs and tiny_mobilenetv1_vww's
 * conv1 (3 -> 8 channels), each net's sum printed
 * apart (count: how many layers of the net have the shape). All give the same bits; the
 * program checks that.
 *
 *     cc -std=c99 -O3 -march=native benchmarks/conv_layers.c -o conv_layers -lm
 *     ./conv_layers [rounds [peak GFLOP/s [name]]]
 *
 * With a peak (benchmarks/fma_peak.c measures it) the nhwc column also shows its share of it;
 * with a name only the layers whose name contains it run (e.g. "r8": tiny_resnet8's).
 *
 * Timing (layer_timer.h): interleaved rounds, 5 samples per layer and kernel in each round, the
 * minimum of the per-round medians of thread CPU time. It prints figures only. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
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

typedef struct Layer {
    const char *name;
    int64_t C, H, OC, K, s, pad; /* square input H x H, kernel K x K */
    int64_t R, Rc;               /* band rows of the 8x32 and the channel tiles (0: conv_f32) */
    int64_t count;               /* how many layers of its net have this shape */
    int net;                     /* NET_* */
} Layer;

enum { NET_RESNET18, NET_RESNET8, NET_SQUEEZENET, NET_VWW, NET_SHUFFLENET, NNET };
static const char *const net_names[NNET] = {"ResNet-18", "tiny_resnet8", "squeezenet1_1",
                                            "tiny_mobilenetv1_vww", "shufflenet_v2_x1_0"};

/* ResNet-18's convs (BatchNorm folded), with the band rows the compiler picks. */
static const Layer layers[] = {
    {"conv1 7x7 s2 3->64 224", 3, 224, 64, 7, 2, 3, 17, 33, 1, NET_RESNET18},
    {"3x3 64->64 56", 64, 56, 64, 3, 1, 1, 5, 8, 4, NET_RESNET18},
    {"3x3 s2 64->128 56", 64, 56, 128, 3, 2, 1, 7, 7, 1, NET_RESNET18},
    {"3x3 128->128 28", 128, 28, 128, 3, 1, 1, 15, 15, 3, NET_RESNET18},
    {"1x1 s2 64->128 56", 64, 56, 128, 1, 2, 0, 0, 8, 1, NET_RESNET18},
    {"3x3 s2 128->256 28", 128, 28, 256, 3, 2, 1, 6, 6, 1, NET_RESNET18},
    {"3x3 256->256 14", 256, 14, 256, 3, 1, 1, 12, 12, 3, NET_RESNET18},
    {"1x1 s2 128->256 28", 128, 28, 256, 1, 2, 0, 0, 8, 1, NET_RESNET18},
    {"3x3 s2 256->512 14", 256, 14, 512, 3, 2, 1, 4, 4, 1, NET_RESNET18},
    {"3x3 512->512 7", 512, 7, 512, 3, 1, 1, 7, 7, 3, NET_RESNET18},
    {"1x1 s2 256->512 14", 256, 14, 512, 1, 2, 0, 0, 7, 1, NET_RESNET18},
    /* tiny_resnet8 (MLPerf Tiny), every layer once */
    {"r8 3x3 3->16 32", 3, 32, 16, 3, 1, 1, 0, 32, 1, NET_RESNET8},
    {"r8 3x3 16->16 32", 16, 32, 16, 3, 1, 1, 0, 32, 1, NET_RESNET8},
    {"r8 3x3 16->16 32", 16, 32, 16, 3, 1, 1, 0, 32, 1, NET_RESNET8},
    {"r8 3x3 s2 16->32 32", 16, 32, 32, 3, 2, 1, 0, 16, 1, NET_RESNET8},
    {"r8 3x3 32->32 16", 32, 16, 32, 3, 1, 1, 0, 16, 1, NET_RESNET8},
    {"r8 1x1 s2 16->32 32", 16, 32, 32, 1, 2, 0, 0, 16, 1, NET_RESNET8},
    {"r8 3x3 s2 32->64 16", 32, 16, 64, 3, 2, 1, 0, 8, 1, NET_RESNET8},
    {"r8 3x3 64->64 8", 64, 8, 64, 3, 1, 1, 0, 8, 1, NET_RESNET8},
    {"r8 1x1 s2 32->64 16", 32, 16, 64, 1, 2, 0, 0, 8, 1, NET_RESNET8},
    /* squeezenet1_1's kxk convs (its 1x1 convs are products) */
    {"sq conv1 3x3 s2 3->64 224", 3, 224, 64, 3, 2, 0, 0, 16, 1, NET_SQUEEZENET},
    {"sq 3x3 16->64 55", 16, 55, 64, 3, 1, 1, 0, 16, 2, NET_SQUEEZENET},
    {"sq 3x3 32->128 27", 32, 27, 128, 3, 1, 1, 0, 16, 2, NET_SQUEEZENET},
    {"sq 3x3 48->192 13", 48, 13, 192, 3, 1, 1, 0, 13, 2, NET_SQUEEZENET},
    {"sq 3x3 64->256 13", 64, 13, 256, 3, 1, 1, 0, 13, 2, NET_SQUEEZENET},
    /* tiny_mobilenetv1_vww's one dense kxk conv (its others are depthwise or 1x1) */
    {"vww conv1 3x3 s2 3->8 96", 3, 96, 8, 3, 2, 1, 0, 16, 1, NET_VWW},
    {"sh conv1 3x3 s2 3->24 224", 3, 224, 24, 3, 2, 1, 0, 16, 1, NET_SHUFFLENET},
};
enum { NL = sizeof layers / sizeof layers[0] };

typedef struct Buffers {
    float *x, *w, *wp, *wp32, *b, *y, *y2, *work;
    float *xn, *yn, *workn, *wpn; /* NHWC input, output, work memory and packed weight */
    float *yd;                    /* NHWC output without a band plane */
    int64_t OH, geo[CONV_NHWC_NGEO], geo0[CONV_NHWC_NGEO];
} Buffers;

/* n floats on a 64-byte line (never freed), as the generated code places its weights and its
 * arena (NAME_WEIGHT_ALIGN, NAME_STATIC_ARENA_ALIGN): from malloc, 16 bytes past a line, the
 * tiles' vector loads of the packed weights split lines, and ResNet-18's convs took 1.05-1.09x
 * the time. */
static float *alloc_floats(int64_t n)
{
    unsigned char *m = malloc((size_t)n * sizeof(float) + 256);
    if (!m) {
        fprintf(stderr, "conv_layers: out of memory\n");
        exit(2);
    }
    float *p = (float *)(m + (64 - (uintptr_t)m % 64) % 64);
    for (int64_t i = 0; i < n; i++)
        p[i] = (float)((i * 7919) % 2001 - 1000) * 1e-3f;
    return p;
}

static Buffers setup(const Layer *l)
{
    Buffers b;
    b.OH = (l->H + 2 * l->pad - l->K) / l->s + 1;
    const int64_t taps = l->K * l->K;
    b.x = alloc_floats(l->C * l->H * l->H);
    b.w = alloc_floats(l->OC * l->C * taps);
    b.wp = alloc_floats(conv_packed_floats(1, l->OC, l->C, taps, CONV_OB));
    b.wp32 = alloc_floats(conv_packed_floats(1, l->OC, l->C, taps, CONVC_OB));
    b.b = alloc_floats(l->OC);
    b.y = alloc_floats(l->OC * b.OH * b.OH);
    b.y2 = alloc_floats(l->OC * b.OH * b.OH);
    conv_weight_pack_f32(1, l->OC, l->C, taps, CONV_OB, b.w, b.wp);
    conv_weight_pack_f32(1, l->OC, l->C, taps, CONVC_OB, b.w, b.wp32);
    const int64_t k[3] = {1, l->K, l->K}, out[3] = {1, b.OH, b.OH}, st[3] = {1, l->s, l->s};
    const int64_t dil[3] = {1, 1, 1};
    int64_t work =
        conv_work_floats(l->C, k, out, st, dil) + conv_pointwise_work_floats(l->C, b.OH * b.OH);
    for (int i = 0; i < 2; i++) {
        const int64_t R = i ? l->Rc : l->R;
        const int64_t band =
            R ? conv_band_work_floats(l->C, l->K, l->K, b.OH, l->s, l->s, 1, 1, R) : 0;
        work = band > work ? band : work;
    }
    b.work = alloc_floats(work);
    const int64_t geo[CONV_NHWC_NGEO] = {1,    l->H, l->H, l->C,   1,      l->OC, l->K, l->K, b.OH,
                                         b.OH, l->s, l->s, l->pad, l->pad, 1,     1,    1};
    memcpy(b.geo, geo, sizeof geo);
    b.geo[CONV_NHWC_R] = conv_nhwc_rows(b.geo, 65536);
    b.xn = alloc_floats(l->C * l->H * l->H);
    for (int64_t c = 0; c < l->C; c++)
        for (int64_t p = 0; p < l->H * l->H; p++)
            b.xn[p * l->C + c] = b.x[c * l->H * l->H + p];
    b.yn = alloc_floats(l->OC * b.OH * b.OH);
    b.workn = alloc_floats(conv_nhwc_work_floats(b.geo));
    b.wpn = alloc_floats(conv_nhwc_packed_floats(b.geo));
    conv_nhwc_pack_f32(b.geo, b.w, b.wpn);
    memcpy(b.geo0, b.geo, sizeof b.geo);
    b.geo0[CONV_NHWC_R] = 0;
    b.yd = alloc_floats(l->OC * b.OH * b.OH);
    return b;
}

/* The layer in NHWC (chan 2), with channel-vector tiles (chan 1) or as the compiler planned it
 * before them. */
static void run(const Layer *l, const Buffers *b, int chan, const struct ConvEpilogue *ep, int nep)
{
    const int64_t in[3] = {1, l->H, l->H}, k[3] = {1, l->K, l->K}, out[3] = {1, b->OH, b->OH};
    const int64_t st[3] = {1, l->s, l->s}, pad[3] = {0, l->pad, l->pad}, dil[3] = {1, 1, 1};
    if (chan == 3)
        conv_nhwc_f32(b->geo0, b->xn, b->wpn, b->b, ep, nep, b->yd, NULL);
    else if (chan == 2)
        conv_nhwc_f32(b->geo, b->xn, b->wpn, b->b, ep, nep, b->yn, b->workn);
    else if (chan)
        conv_band_f32(1, l->C, 1, l->OC, l->H, l->H, l->K, l->K, b->OH, b->OH, l->s, l->s, l->pad,
                      l->pad, 1, 1, l->Rc, CONVC_OB, b->x, b->wp32, b->b, ep, nep, b->y2, b->work);
    else if (l->R)
        conv_band_f32(1, l->C, 1, l->OC, l->H, l->H, l->K, l->K, b->OH, b->OH, l->s, l->s, l->pad,
                      l->pad, 1, 1, l->R, CONV_OB, b->x, b->wp, b->b, ep, nep, b->y, b->work);
    else if (l->K == 1 && l->s == 1 && !l->pad)
        conv_pointwise_f32(1, l->C, 1, l->OC, b->OH * b->OH, b->x, b->wp, b->b, ep, nep, b->y,
                           b->work);
    else
        conv_f32(1, l->C, 1, l->OC, in, out, k, st, pad, dil, b->x, b->wp, b->b, ep, nep, b->y,
                 b->work);
}

int main(int argc, char **argv)
{
    const int rounds = argc > 1 ? atoi(argv[1]) : 5;
    const double peak = argc > 2 ? atof(argv[2]) : 0.0;
    const char *only = argc > 3 ? argv[3] : "";
    Buffers bufs[NL];
    double best[NL][4];
    for (int i = 0; i < NL; i++) {
        if (strstr(layers[i].name, only))
            bufs[i] = setup(&layers[i]);
        best[i][0] = best[i][1] = best[i][2] = best[i][3] = 1e30;
    }
    const struct ConvEpilogue relu[1] = {{CONV_EP_RELU, 0, 0.0f, 0.0f, NULL}};
    for (int r = 0; r < rounds; r++)
        for (int i = 0; i < NL; i++)
            for (int chan = 0; chan < 4 && strstr(layers[i].name, only); chan++) {
                double t[5];
                for (int j = 0; j < 5; j++) {
                    const double t0 = layer_now_s();
                    run(&layers[i], &bufs[i], chan, relu, 1);
                    t[j] = layer_now_s() - t0;
                }
                layer_keep_best(&best[i][chan], t, 5);
            }
    int status = 0;
    double total[3] = {0.0, 0.0, 0.0}, flops_total = 0.0;
    double nets[NNET][5] = {{0.0}}; /* per net: each kernel's time summed, then the FLOPs */
    printf("%-24s %5s %9s %7s %9s %7s %9s %7s %5s %9s %9s %9s\n", "layer (+Relu)", "count",
           "band us", "GFLOP/s", "chan us", "GFLOP/s", "nhwc us", "GFLOP/s", "%peak", "nhwc/chan",
           "noplane", "/nhwc");
    for (int i = 0; i < NL; i++) {
        const Layer *l = &layers[i];
        const Buffers *b = &bufs[i];
        if (!strstr(l->name, only))
            continue;
        const int64_t P = b->OH * b->OH, n = l->OC * P;
        const double flops = 2.0 * (double)n * (double)(l->C * l->K * l->K);
        if (memcmp(b->y, b->y2, (size_t)n * sizeof(float))) {
            printf("%s: the channel and the 8x32 tiles differ\n", l->name);
            status = 1;
        }
        for (int64_t j = 0; j < n; j++)
            if (memcmp(&b->yn[j % P * l->OC + j / P], &b->y2[j], sizeof(float))) {
                printf("%s: NHWC and NCHW differ\n", l->name);
                status = 1;
                break;
            }
        if (memcmp(b->yd, b->yn, (size_t)n * sizeof(float))) {
            printf("%s: NHWC with and without a band plane differ\n", l->name);
            status = 1;
        }
        const double *t = best[i];
        printf("%-24s %5lld %9.1f %7.1f %9.1f %7.1f %9.1f %7.1f %5.0f %9.2f %9.1f %9.2f\n", l->name,
               (long long)l->count, t[0] * 1e6, flops / t[0] * 1e-9, t[1] * 1e6,
               flops / t[1] * 1e-9, t[2] * 1e6, flops / t[2] * 1e-9,
               peak > 0.0 ? 100.0 * flops / t[2] * 1e-9 / peak : 0.0, t[2] / t[1], t[3] * 1e6,
               t[3] / t[2]);
        for (int k = 0; k < 4; k++)
            nets[l->net][k] += t[k] * (double)l->count;
        nets[l->net][4] += flops * (double)l->count;
        if (l->net != NET_RESNET18)
            continue;
        total[0] += t[0] * (double)l->count;
        total[1] += (t[1] < t[0] ? t[1] : t[0]) * (double)l->count;
        total[2] += t[2] * (double)l->count;
        flops_total += flops * (double)l->count;
    }
    printf("all ResNet-18 convs: band %.1f us (%.1f GFLOP/s), the faster of band and chan per "
           "layer %.1f us (%.1f GFLOP/s), nhwc %.1f us (%.1f GFLOP/s",
           total[0] * 1e6, flops_total / total[0] * 1e-9, total[1] * 1e6,
           flops_total / total[1] * 1e-9, total[2] * 1e6, flops_total / total[2] * 1e-9);
    if (peak > 0.0)
        printf(", %.0f%% of %.1f", 100.0 * flops_total / total[2] * 1e-9 / peak, peak);
    printf(")\n");
    for (int k = NET_RESNET8; k < NNET; k++) {
        const double *t = nets[k];
        printf("all %s kxk convs: chan %.1f us, nhwc %.1f us (%.1f GFLOP/s", net_names[k],
               t[1] * 1e6, t[2] * 1e6, t[4] / t[2] * 1e-9);
        if (peak > 0.0)
            printf(", %.0f%% of peak", 100.0 * t[4] / t[2] * 1e-9 / peak);
        printf("), no plane %.1f us\n", t[3] * 1e6);
    }
    return status;
}
