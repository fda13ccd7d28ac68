/* Unit test of templates/expand_depthwise.c: the expand 1x1 conv fused into the depthwise conv
 * that reads its output must give, bit for bit, the unfused kernels' result: the 1x1 conv over
 * the whole tensor (conv_pointwise_nhwc_f32 by its own row blocks, bias, epilogues), then
 * depthwise_nhwc_f32 on it (itself tested against the NCHW kernel and a plain loop); and the
 * expanded tensor must be the plain product loop's (k ascending, fmaf from +0.0f, + bias).
 * Covers stride 1 and 2, 3x3 and 5x5 kernels, top and bottom padding rows (symmetric and
 * asymmetric: rows that only the padding reads, expanded rows no output reads), dilation 2,
 * rows per product E = 1, 2, 3 and whole images (a ring as tall as the image), maps shorter
 * than the kernel, channel counts below, at and between the vector blocks, batch 2, the 1x1
 * conv's operand-free epilogues (Relu, Clip, Swish, HardSwish) and the depthwise conv's
 * (conv_cases.h's: residual Adds, Relu, Clip, Swish, HardSwish). */
#define O2C_KERNEL static __attribute__((unused))
#include "../../templates/conv.c"
#include "../../templates/conv_nhwc.c"
#include "../../templates/depthwise_nhwc.c"
#include "../../templates/elementwise.c"
#include "../../templates/expand_depthwise.c"
#include "../../templates/gemm.c"
#include "../../templates/math.c"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint32_t rng_state = 2463534242u; /* seeds rnd() in check.h */
#define CHECK_WITH_RND
#define CHECK_WITH_ALLOC
#include "check.h"
#include "conv_cases.h"

typedef struct {
    const char *name;
    int64_t N, K, C, H, W, KH, KW;
    int64_t sh, sw, pt, pl, pb, pr, dh, dw;
} FuseCase;

/* e[M][C] = x[M][K] x w1[K][C] + b1, the documented order written out. */
static void product_plain(int64_t M, int64_t K, int64_t C, const float *x, const float *w1,
                          const float *b1, float *e)
{
    for (int64_t i = 0; i < M; i++)
        for (int64_t j = 0; j < C; j++) {
            float acc = 0.0f;
            for (int64_t k = 0; k < K; k++)
                acc = fmaf(x[i * K + k], w1[k * C + j], acc);
            e[i * C + j] = acc + b1[j];
        }
}

/* The 1x1 conv's epilogue sets: none, Relu, Clip, Swish, HardSwish + Clip. */
static const struct ConvEpilogue ep1_sets[][2] = {
    {{CONV_EP_RELU, 0, 0.0f, 0.0f, NULL}, {CONV_EP_RELU, 0, 0.0f, 0.0f, NULL}},
    {{CONV_EP_CLIP, 0, 0.0f, 6.0f, NULL}, {CONV_EP_RELU, 0, 0.0f, 0.0f, NULL}},
    {{CONV_EP_SWISH, 0, 1.0f, 0.0f, NULL}, {CONV_EP_RELU, 0, 0.0f, 0.0f, NULL}},
    {{CONV_EP_HARD_SWISH, 0, 0.0f, 0.0f, NULL}, {CONV_EP_CLIP, 0, -0.5f, 0.75f, NULL}},
};
static const int ep1_counts[] = {0, 1, 1, 1, 2};

static void run_case(const FuseCase *c)
{
    const int64_t OH = out_size(c->H, c->KH, c->sh, c->pt, c->pb, c->dh);
    const int64_t OW = out_size(c->W, c->KW, c->sw, c->pl, c->pr, c->dw);
    const int64_t M = c->N * c->H * c->W, nx = M * c->K, ne = M * c->C;
    const int64_t ny = c->N * OH * OW * c->C, nw = c->C * c->KH * c->KW;
    float *x = alloc_floats(nx), *w1 = alloc_floats(c->K * c->C), *b1 = alloc_floats(c->C);
    float *e = alloc_floats(ne), *eplain = alloc_floats(ne), *w = alloc_floats(nw);
    float *wp = alloc_floats(nw), *b = alloc_floats(c->C), *res = alloc_floats(ny);
    struct ConvEpilogue ep[6];
    float *want = alloc_floats(ny), *got = alloc_floats(ny);
    for (int64_t i = 0; i < nx; i++)
        x[i] = rnd();
    for (int64_t i = 0; i < c->K * c->C; i++)
        w1[i] = rnd();
    for (int64_t i = 0; i < c->C; i++) {
        b1[i] = rnd();
        b[i] = rnd();
    }
    for (int64_t i = 0; i < nw; i++)
        w[i] = rnd();
    depthwise_nhwc_pack_f32(c->C, c->KH, c->KW, w, wp);
    const int64_t geo[NHWC_GEO_LEN] = {c->N,  c->H,  c->W,  c->C,  OH,    OW,    c->KH, c->KW,
                                       c->sh, c->sw, c->pt, c->pl, c->pb, c->pr, c->dh, c->dw};
    char what[200];
    for (int64_t i = 0; i < ny; i++)
        want[i] = rnd();
    epilogue_setup(ny, want, res, ep); /* the depthwise conv's: Add, Relu, Clip, Add, ... */

    /* the unfused 1x1 conv is the plain product */
    product_plain(M, c->K, c->C, x, w1, b1, eplain);
    conv_pointwise_nhwc_f32(M, c->C, c->K, conv_pointwise_nhwc_rows(M, c->C, c->K), NULL, NULL, x,
                            w1, b1, NULL, 0, e);
    snprintf(what, sizeof what, "%s: unfused 1x1 conv = plain product", c->name);
    check(same_bits(e, eplain, ne, 0), what);

    const int64_t Es[] = {1, 2, 3, c->H};
    for (int s = 0; s < (int)(sizeof ep1_counts / sizeof ep1_counts[0]); s++)
        for (int ne = 0; ne <= EPILOGUE_COUNTS; ne++)
            for (int ei = 0; ei < 4; ei++) {
                const int64_t E = Es[ei] < c->H ? Es[ei] : c->H;
                const struct ConvEpilogue *ep1 = ep1_counts[s] ? ep1_sets[s - 1] : NULL;
                const int nep = ne ? epilogue_counts[ne - 1] : 0;
                const float *bias = ne % 2 ? b : NULL; /* with and without the depthwise bias */
                conv_pointwise_nhwc_f32(M, c->C, c->K, conv_pointwise_nhwc_rows(M, c->C, c->K),
                                        NULL, NULL, x, w1, b1, ep1, ep1_counts[s], e);
                depthwise_nhwc_f32(geo, e, wp, bias, ep, nep, want);
                const int64_t nr = expand_depthwise_ring_rows(geo, E);
                float *ring = alloc_floats(nr * c->W * c->C);
                for (int64_t i = 0; i < ny; i++)
                    got[i] = NAN;
                expand_depthwise_nhwc_f32(geo, c->K, E, NULL, NULL, x, w1, b1, ep1, ep1_counts[s],
                                          wp, bias, ep, nep, got, ring);
                snprintf(what, sizeof what, "%s: E %lld (ring %lld rows), 1x1 epilogues %d, %d",
                         c->name, (long long)E, (long long)nr, s, nep);
                check(same_bits(got, want, ny, 1), what);
                free(ring);
            }
    free(x), free(w1), free(b1), free(e), free(eplain), free(w), free(wp), free(b), free(res);
    free(want), free(got);
}

int main(void)
{
    (void)epilogue_passes; /* (conv_cases.h's, for the other conv tests) */
    static const FuseCase cases[] = {
        /* name                       N  K   C   H   W  KH KW sh sw pt pl pb pr dh dw */
        {"3x3 s1 p1 (MobileNetV2)", 1, 8, 48, 9, 11, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
        {"3x3 s2 p1, even H", 1, 6, 32, 10, 12, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1},
        {"3x3 s2 p1, odd H", 2, 5, 20, 9, 9, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1},
        {"3x3 s2 SAME_UPPER (pads 0, 1)", 1, 7, 24, 8, 8, 3, 3, 2, 2, 0, 0, 1, 1, 1, 1},
        {"5x5 s1 p2 (EfficientNet)", 1, 4, 40, 12, 10, 5, 5, 1, 1, 2, 2, 2, 2, 1, 1},
        {"5x5 s2 p2", 1, 9, 36, 13, 14, 5, 5, 2, 2, 2, 2, 2, 2, 1, 1},
        {"5x5 on a 3x3 map", 1, 3, 16, 3, 3, 5, 5, 1, 1, 2, 2, 2, 2, 1, 1},
        {"3x3 dilation 2", 1, 5, 17, 11, 9, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2},
        {"3x3 no padding", 2, 6, 64, 7, 20, 3, 3, 1, 1, 0, 0, 0, 0, 1, 1},
        {"narrow channels", 1, 3, 4, 8, 24, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
        {"few channels, stride 2", 1, 2, 3, 9, 10, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1},
        {"1 output row", 1, 4, 16, 3, 30, 3, 3, 1, 1, 0, 1, 0, 1, 1, 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        run_case(&cases[i]);
    printf("%d passed, %d failed\n", n_passed, n_failed);
    return n_failed != 0;
}
