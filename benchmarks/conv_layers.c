/* conv_layers.c — CPU time and GFLOP/s of the dense conv kernels (templates/conv.c) on the conv
 * layers of torchvision's ResNet-18 at 224x224, one layer at a time, each with a fused Relu:
 * "band": as the compiler ran them before the channel-vector tiles (kxk convs in conv_band_f32's
 * 8x32 tiles on the band rows compiler/ops/conv.c picked, strided 1x1 convs in conv_f32);
 * "chan": conv_band_f32's channel-vector tiles on bands as large as the limit allows, what the
 * compiler picks now for every layer here. Both give the same bits; the program checks that.
 *
 *     cc -std=c99 -O3 -march=native benchmarks/conv_layers.c -o conv_layers -lm
 *     ./conv_layers [rounds]
 *
 * Timing: interleaved rounds, in each round every layer runs 5 samples and keeps their median;
 * the figure is the minimum of the per-round medians (thread CPU time: time the scheduler gives
 * to other processes does not count). It prints figures only, and never fails on time. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define O2C_KERNEL static __attribute__((unused))
#include "../templates/conv.c"
#include "../templates/elementwise.c"
#include "../templates/math.c"

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

typedef struct Layer {
    const char *name;
    int64_t C, H, OC, K, s, pad; /* square input H x H, kernel K x K */
    int64_t R, Rc;               /* band rows of the 8x32 and the channel tiles (0: conv_f32) */
    int64_t count;               /* how many layers of ResNet-18 have this shape */
} Layer;

/* ResNet-18's convs (BatchNorm folded), with the band rows the compiler picks. */
static const Layer layers[] = {
    {"conv1 7x7 s2 3->64 224", 3, 224, 64, 7, 2, 3, 17, 33, 1},
    {"3x3 64->64 56", 64, 56, 64, 3, 1, 1, 5, 8, 4},
    {"3x3 s2 64->128 56", 64, 56, 128, 3, 2, 1, 7, 7, 1},
    {"3x3 128->128 28", 128, 28, 128, 3, 1, 1, 15, 15, 3},
    {"1x1 s2 64->128 56", 64, 56, 128, 1, 2, 0, 0, 8, 1},
    {"3x3 s2 128->256 28", 128, 28, 256, 3, 2, 1, 6, 6, 1},
    {"3x3 256->256 14", 256, 14, 256, 3, 1, 1, 12, 12, 3},
    {"1x1 s2 128->256 28", 128, 28, 256, 1, 2, 0, 0, 8, 1},
    {"3x3 s2 256->512 14", 256, 14, 512, 3, 2, 1, 4, 4, 1},
    {"3x3 512->512 7", 512, 7, 512, 3, 1, 1, 7, 7, 3},
    {"1x1 s2 256->512 14", 256, 14, 512, 1, 2, 0, 0, 7, 1},
};
enum { NL = sizeof layers / sizeof layers[0] };

typedef struct Buffers {
    float *x, *w, *wp, *wp32, *b, *y, *y2, *work;
    int64_t OH;
} Buffers;

static float *alloc_floats(int64_t n)
{
    float *p = malloc((size_t)n * sizeof(float) + 256);
    if (!p) {
        fprintf(stderr, "conv_layers: out of memory\n");
        exit(2);
    }
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
    int64_t work = conv_work_floats(l->C, k, out, st, dil) + conv_pointwise_work_floats(l->C);
    for (int i = 0; i < 2; i++) {
        const int64_t R = i ? l->Rc : l->R;
        const int64_t band =
            R ? conv_band_work_floats(l->C, l->K, l->K, b.OH, l->s, l->s, 1, 1, R) : 0;
        work = band > work ? band : work;
    }
    b.work = alloc_floats(work);
    return b;
}

/* The layer with channel-vector tiles (chan 1) or as the compiler planned it before them. */
static void run(const Layer *l, const Buffers *b, int chan, const struct ConvEpilogue *ep, int nep)
{
    const int64_t in[3] = {1, l->H, l->H}, k[3] = {1, l->K, l->K}, out[3] = {1, b->OH, b->OH};
    const int64_t st[3] = {1, l->s, l->s}, pad[3] = {0, l->pad, l->pad}, dil[3] = {1, 1, 1};
    if (chan)
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

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    const int rounds = argc > 1 ? atoi(argv[1]) : 5;
    Buffers bufs[NL];
    double best[NL][2];
    for (int i = 0; i < NL; i++) {
        bufs[i] = setup(&layers[i]);
        best[i][0] = best[i][1] = 1e30;
    }
    const struct ConvEpilogue relu[1] = {{CONV_EP_RELU, 0, 0.0f, 0.0f, NULL}};
    for (int r = 0; r < rounds; r++)
        for (int i = 0; i < NL; i++)
            for (int chan = 0; chan < (layers[i].Rc ? 2 : 1); chan++) {
                double t[5];
                for (int j = 0; j < 5; j++) {
                    const double t0 = now_s();
                    run(&layers[i], &bufs[i], chan, relu, 1);
                    t[j] = now_s() - t0;
                }
                qsort(t, 5, sizeof t[0], cmp_double);
                if (t[2] < best[i][chan])
                    best[i][chan] = t[2];
            }
    int status = 0;
    double total[2] = {0.0, 0.0}, flops_total = 0.0;
    printf("%-24s %6s %10s %8s %10s %8s %6s\n", "layer (+Relu)", "count", "band us", "GFLOP/s",
           "chan us", "GFLOP/s", "chan/band");
    for (int i = 0; i < NL; i++) {
        const Layer *l = &layers[i];
        const int64_t n = l->OC * bufs[i].OH * bufs[i].OH;
        const double flops = 2.0 * (double)n * (double)(l->C * l->K * l->K);
        const double b = best[i][0], c = l->Rc ? best[i][1] : best[i][0];
        if (l->Rc && memcmp(bufs[i].y, bufs[i].y2, (size_t)n * sizeof(float))) {
            printf("%s: the channel and the 8x32 tiles differ\n", l->name);
            status = 1;
        }
        printf("%-24s %6lld %10.1f %8.1f %10.1f %8.1f %6.2f\n", l->name, (long long)l->count,
               b * 1e6, flops / b * 1e-9, c * 1e6, flops / c * 1e-9, c / b);
        total[0] += b * (double)l->count;
        total[1] += (c < b ? c : b) * (double)l->count;
        flops_total += flops * (double)l->count;
    }
    printf("all ResNet-18 convs: band %.1f us (%.1f GFLOP/s), the faster of band and chan per "
           "layer %.1f us (%.1f GFLOP/s)\n",
           total[0] * 1e6, flops_total / total[0] * 1e-9, total[1] * 1e6,
           flops_total / total[1] * 1e-9);
    return status;
}
