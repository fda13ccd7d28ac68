/* Unit test of templates/depthwise_nhwc.c: the channels-last depthwise conv must give, bit for
 * bit, the NCHW kernel's result (templates/conv.c depthwise_conv_f32, itself tested against
 * im2col + gemm) transposed to NHWC, and that of a plain loop written here in the documented
 * order; with and without bias, with the tile-store epilogues of conv_cases.h (Add, Relu, Clip,
 * Add with the residual first, Swish, HardSwish, chained; residuals with -y, -0.0f, inf, NaN)
 * against the NCHW result followed by the ops' own kernels as passes; with signed zeros, inf
 * and NaN weights on padded taps. Covers strides,
 * dilations, asymmetric padding, 1-D, kernels larger than the input, taps entirely in the
 * padding, channel counts that are not a multiple of the vector blocks, batch 2. */
#define O2C_KERNEL static __attribute__((unused))
#include "../../templates/conv.c"
#include "../../templates/depthwise_nhwc.c"
#include "../../templates/elementwise.c"
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
    int64_t N, C, H, W, KH, KW;
    int64_t sh, sw, pt, pl, pb, pr, dh, dw;
} DwCase;

/* [N][C][P] -> [N][P][C] */
static void to_nhwc(int64_t N, int64_t C, int64_t P, const float *x, float *y)
{
    for (int64_t n = 0; n < N; n++)
        for (int64_t c = 0; c < C; c++)
            for (int64_t p = 0; p < P; p++)
                y[(n * P + p) * C + c] = x[(n * C + c) * P + p];
}

/* The documented order, written out once more: taps (kh, kw) ascending, padded taps as
 * fmaf(w, 0.0f, acc), then + bias. x NHWC, w ONNX [C][KH][KW], y NHWC. taps_kw_outer = 1
 * visits kw outer (only to show that the data tells the two orders apart). */
static void dw_plain(const DwCase *c, int64_t OH, int64_t OW, const float *x, const float *w,
                     const float *b, int taps_kw_outer, float *y)
{
    for (int64_t n = 0; n < c->N; n++)
        for (int64_t oh = 0; oh < OH; oh++)
            for (int64_t ow = 0; ow < OW; ow++)
                for (int64_t ch = 0; ch < c->C; ch++) {
                    float acc = 0.0f;
                    for (int64_t t = 0; t < c->KH * c->KW; t++) {
                        const int64_t kh = taps_kw_outer ? t % c->KH : t / c->KW;
                        const int64_t kw = taps_kw_outer ? t / c->KH : t % c->KW;
                        const int64_t ih = oh * c->sh - c->pt + kh * c->dh;
                        const int64_t iw = ow * c->sw - c->pl + kw * c->dw;
                        float xv = 0.0f;
                        if (ih >= 0 && ih < c->H && iw >= 0 && iw < c->W)
                            xv = x[((n * c->H + ih) * c->W + iw) * c->C + ch];
                        acc = fmaf(w[(ch * c->KH + kh) * c->KW + kw], xv, acc);
                    }
                    y[((n * OH + oh) * OW + ow) * c->C + ch] = b ? acc + b[ch] : acc;
                }
}

static void make_geo(const DwCase *c, int64_t OH, int64_t OW, int64_t *geo)
{
    const int64_t g[NHWC_GEO_LEN] = {c->N,  c->H,  c->W,  c->C,  OH,    OW,    c->KH, c->KW,
                                     c->sh, c->sw, c->pt, c->pl, c->pb, c->pr, c->dh, c->dw};
    memcpy(geo, g, sizeof g);
}

/* The NCHW kernel's result, [N][C][OH][OW]. */
static void dw_nchw(const DwCase *c, int64_t OH, int64_t OW, const float *x_nchw, const float *w,
                    const float *b, float *y)
{
    const int64_t wf =
        depthwise_work_floats(c->C, 1, c->KH, c->KW, OH, OW, c->sh, c->sw, c->dh, c->dw);
    float *work = alloc_floats(wf);
    depthwise_conv_f32(c->N, c->C, 1, c->H, c->W, c->KH, c->KW, OH, OW, c->sh, c->sw, c->pt, c->pl,
                       c->dh, c->dw, x_nchw, w, b, y, work);
    free(work);
}

static void run_case(const DwCase *c)
{
    const int64_t OH = out_size(c->H, c->KH, c->sh, c->pt, c->pb, c->dh);
    const int64_t OW = out_size(c->W, c->KW, c->sw, c->pl, c->pr, c->dw);
    const int64_t nx = c->N * c->C * c->H * c->W, ny = c->N * c->C * OH * OW;
    const int64_t nw = c->C * c->KH * c->KW;
    float *x = alloc_floats(nx), *xh = alloc_floats(nx), *w = alloc_floats(nw);
    float *wp = alloc_floats(nw), *b = alloc_floats(c->C), *y = alloc_floats(ny);
    float *res = alloc_floats(ny), *rh = alloc_floats(ny), *e = alloc_floats(ny);
    float *want = alloc_floats(ny), *plain = alloc_floats(ny), *got = alloc_floats(ny);
    for (int64_t i = 0; i < nx; i++)
        x[i] = rnd();
    for (int64_t i = 0; i < nw; i++)
        w[i] = rnd();
    for (int64_t i = 0; i < c->C; i++)
        b[i] = rnd();
    to_nhwc(c->N, c->C, c->H * c->W, x, xh);
    depthwise_nhwc_pack_f32(c->C, c->KH, c->KW, w, wp);
    int64_t geo[NHWC_GEO_LEN];
    make_geo(c, OH, OW, geo);
    char what[200];

    for (int with_bias = 0; with_bias < 2; with_bias++) { /* y ends with the biased result */
        const float *bias = with_bias ? b : NULL;
        dw_nchw(c, OH, OW, x, w, bias, y);
        to_nhwc(c->N, c->C, OH * OW, y, want);
        dw_plain(c, OH, OW, xh, w, bias, 0, plain);
        snprintf(what, sizeof what, "%s%s: NCHW kernel = plain loop (the reference holds)", c->name,
                 with_bias ? "" : " (no bias)");
        check(same_bits(want, plain, ny, 0), what);
        got[ny] = 4242.0f; /* the kernel must stay inside y */
        depthwise_nhwc_f32(geo, xh, wp, bias, NULL, 0, got);
        snprintf(what, sizeof what, "%s%s: bits of depthwise_conv_f32", c->name,
                 with_bias ? "" : " (no bias)");
        check(same_bits(want, got, ny, 0) && got[ny] == 4242.0f, what);
    }

    /* the tile-store epilogues (conv_cases.h: Add, Relu, Clip, Add with the residual first,
     * Swish, HardSwish) against the NCHW result followed by the ops' passes, the residual in
     * NHWC order for the NHWC kernel */
    struct ConvEpilogue ep[6];
    epilogue_setup(ny, y, res, ep); /* y: the NCHW result with bias */
    to_nhwc(c->N, c->C, OH * OW, res, rh);
    for (int k = 0; k < 6; k++)
        if (ep[k].r)
            ep[k].r = rh;
    for (int k = 0; k < EPILOGUE_COUNTS; k++) {
        const int nep = epilogue_counts[k];
        epilogue_passes(ny, nep, y, res, e);
        to_nhwc(c->N, c->C, OH * OW, e, want);
        depthwise_nhwc_f32(geo, xh, wp, b, ep, nep, got);
        snprintf(what, sizeof what, "%s + %d epilogues in the store: bits of the passes", c->name,
                 nep);
        check(same_bits(want, got, ny, nep == 6), what);
    }
    free(x);
    free(xh);
    free(w);
    free(wp);
    free(b);
    free(y);
    free(res);
    free(rh);
    free(e);
    free(want);
    free(plain);
    free(got);
}

static const DwCase cases[] = {
    /* name, N, C, H, W, KH, KW, sh, sw, pt, pl, pb, pr, dh, dw */
    {"3x3 pad 1, 5 channels", 1, 5, 7, 7, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
    {"3x3 stride 2, 16 channels", 1, 16, 8, 8, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1},
    {"1-D pad, batch 2", 2, 3, 1, 9, 1, 3, 1, 1, 0, 2, 0, 1, 1, 2},
    {"dilation 2 asymmetric, 24 channels", 1, 24, 6, 7, 3, 2, 2, 1, 2, 0, 1, 3, 2, 2},
    {"1x1, 20 channels", 1, 20, 3, 3, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1},
    {"taps entirely in padding", 1, 2, 4, 4, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3},
    {"kernel larger than input", 1, 17, 2, 2, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
    {"DS-CNN 25x5, 64 channels", 1, 64, 25, 5, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
    {"5x5 on 7x7, 72 channels", 1, 72, 7, 7, 5, 5, 1, 1, 2, 2, 2, 2, 1, 1},
    {"5x5 stride 2 on 28x28, 40 channels", 1, 40, 28, 28, 5, 5, 2, 2, 2, 2, 2, 2, 1, 1},
    {"3x3 stride 2 on 40x41 pad 0/1, 8 channels", 1, 8, 40, 41, 3, 3, 2, 2, 0, 0, 1, 1, 1, 1},
    {"stride (2,3) dilation (3,2), 33 channels", 1, 33, 13, 17, 3, 4, 2, 3, 1, 2, 3, 0, 3, 2},
    {"3x3 on 3x3, batch 2, 7 channels", 2, 7, 3, 3, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
    {"7x7 kernel on 14x14, 96 channels", 1, 96, 14, 14, 7, 7, 1, 1, 3, 3, 3, 3, 1, 1},
    {"3x3 on 56x56, 1 channel", 1, 1, 56, 56, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
    {"3x3 on 1x40 wide row, 48 channels", 1, 48, 1, 40, 1, 3, 1, 1, 0, 1, 0, 1, 1, 1},
    {"3x3 on 112x112, 32 channels", 1, 32, 112, 112, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
    {"3x3 stride 2 on 23x29, 88 channels, batch 2", 2, 88, 23, 29, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1},
    {"1x9 kernel dilation 3 on 5x31, 16 channels", 1, 16, 5, 31, 1, 9, 1, 1, 0, 7, 0, 5, 1, 3},
    {"66 rows of kernel (the plain loop), 16 channels", 1, 16, 70, 3, 66, 2, 1, 1, 2, 0, 1, 1, 1,
     1},
    {"3x3 stride 3 pad 2, 8 columns, 40 channels", 1, 40, 9, 24, 3, 3, 3, 3, 2, 2, 2, 2, 1, 1},
    {"8 channels 3x3 on 48x48 (narrow tiles)", 1, 8, 48, 48, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
    {"4 channels 5x5 dilation 2 on 9x37, batch 2", 2, 4, 9, 37, 5, 5, 1, 1, 4, 3, 4, 5, 2, 2},
    {"2 channels 1x3 on 1x70 (1-D)", 1, 2, 1, 70, 1, 3, 1, 1, 0, 1, 0, 1, 1, 1},
    {"8 channels 3x3 stride 2 on 33x33 (plain)", 1, 8, 33, 33, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1},
    {"8 channels 7x7 on 20x20 (plain: 49 taps)", 1, 8, 20, 20, 7, 7, 1, 1, 3, 3, 3, 3, 1, 1},
    {"8 channels on 17 columns: interior of exactly one tile", 1, 8, 4, 18, 3, 3, 1, 1, 1, 1, 1, 1,
     1, 1},
    /* small maps at unit stride run flat (one zero-padded copy of the image per channel block) */
    {"3x2 dilation (2,3) on 9x11 pad 2/1/0/3, 20 channels (flat)", 1, 20, 9, 11, 3, 2, 1, 1, 2, 1,
     0, 3, 2, 3},
    {"3x3 on 6x6, batch 2, 24 channels (flat)", 2, 24, 6, 6, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
    {"5x5 on 14x14, 40 channels (flat)", 1, 40, 14, 14, 5, 5, 1, 1, 2, 2, 2, 2, 1, 1},
    {"3x3 pad 0 on 5x5, 16 channels (flat)", 1, 16, 5, 5, 3, 3, 1, 1, 0, 0, 0, 0, 1, 1},
    {"5x5 stride 2 on 7x7, 36 channels (rows of 4: point tiles)", 1, 36, 7, 7, 5, 5, 2, 2, 2, 2, 2,
     2, 1, 1},
};

/* Special weights and inputs: padded taps are fmaf(w, 0, acc), as in the NCHW kernel. */
static void test_special(void)
{
    const DwCase c = {"special", 1, 2, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1};
    const float specials[6] = {-0.0f, 0.0f, INFINITY, -INFINITY, NAN, 1.0f};
    float x[18], xh[18], w[8], wp[8], want[32], got[32], zb[2] = {0.0f, 0.0f};
    int64_t geo[NHWC_GEO_LEN];
    make_geo(&c, 4, 4, geo);
    for (int t = 0; t < 6; t++) {
        for (int i = 0; i < 18; i++)
            x[i] = (i % 3) ? -0.0f : rnd();
        for (int i = 0; i < 8; i++)
            w[i] = (i == t || i == 7 - t) ? specials[t] : -0.0f;
        to_nhwc(1, 2, 9, x, xh);
        depthwise_nhwc_pack_f32(2, 2, 2, w, wp);
        for (int with_bias = 0; with_bias < 2; with_bias++) {
            float yn[32];
            dw_nchw(&c, 4, 4, x, w, with_bias ? zb : NULL, yn);
            to_nhwc(1, 2, 16, yn, want);
            depthwise_nhwc_f32(geo, xh, wp, with_bias ? zb : NULL, NULL, 0, got);
            char what[80];
            snprintf(what, sizeof what, "special weight %d%s: bits of depthwise_conv_f32", t,
                     with_bias ? " (+0 bias)" : "");
            check(memcmp(want, got, sizeof got) == 0, what);
        }
    }
}

/* The data must be able to reveal a change of tap order. */
static void test_sensitivity(void)
{
    const DwCase *c = &cases[8]; /* 5x5 on 7x7 */
    const int64_t n = c->C * 49;
    float *x = alloc_floats(n), *w = alloc_floats(c->C * 25), *y0 = alloc_floats(n);
    float *y1 = alloc_floats(n);
    for (int64_t i = 0; i < n; i++)
        x[i] = rnd();
    for (int64_t i = 0; i < c->C * 25; i++)
        w[i] = rnd();
    dw_plain(c, 7, 7, x, w, NULL, 0, y0);
    dw_plain(c, 7, 7, x, w, NULL, 1, y1);
    check(memcmp(y0, y1, (size_t)n * sizeof(float)) != 0,
          "test data distinguishes kh-outer from kw-outer tap order");
    free(x);
    free(w);
    free(y0);
    free(y1);
}

/* Hand values: 1 channel 3x3 input 1..9, 2x2 kernel (1, 2, 3, 4), bias 1, no padding. */
static void test_hand(void)
{
    const float x[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9}, w[4] = {1, 2, 3, 4}, b[1] = {1};
    const int64_t geo[NHWC_GEO_LEN] = {1, 3, 3, 1, 2, 2, 2, 2, 1, 1, 0, 0, 0, 0, 1, 1};
    float wp[4], y[4];
    depthwise_nhwc_pack_f32(1, 2, 2, w, wp);
    depthwise_nhwc_f32(geo, x, wp, b, NULL, 0, y);
    const float want[4] = {1 + 1 * 1 + 2 * 2 + 3 * 4 + 4 * 5, 1 + 2 + 6 + 15 + 24,
                           1 + 4 + 10 + 21 + 32, 1 + 5 + 12 + 24 + 36};
    check(memcmp(y, want, sizeof want) == 0, "hand 3x3 input, 2x2 kernel, bias");
    /* packing: [C=2][KH=1][KW=2] -> [1][2][2] taps outer */
    const float w2[4] = {1, 2, 3, 4};
    float w2p[4];
    depthwise_nhwc_pack_f32(2, 1, 2, w2, w2p);
    const float want2[4] = {1, 3, 2, 4};
    check(memcmp(w2p, want2, sizeof want2) == 0, "pack: taps outer, channels inner");
}

int main(void)
{
    test_hand();
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        run_case(&cases[i]);
    test_special();
    test_sensitivity();
    printf("%d passed, %d failed\n", n_passed, n_failed);
    return n_failed != 0;
}
