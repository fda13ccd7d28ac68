/* Unit test of templates/conv.c with templates/gemm.c: conv as the compiler emits it
 * (weight reorder, im2col per image and group, gemm, channel bias) must be bit-identical to
 * a direct 7-loop convolution that accumulates with fmaf in the documented k order
 * (taps outer, channels inner, padded taps included). Covers strides, dilations,
 * asymmetric padding, groups, depthwise, 1-D, 1x1, kernels larger than the input.
 * The direct depthwise kernel (Cg == 1) must give the bits of im2col + gemm (signed zeros,
 * inf and NaN weights on padded taps included); the 3-D im2col is checked against a direct
 * 3-D gather and ConvTranspose against hand values and a scatter-form reference. The dense
 * kernels with tile-store epilogues (Add, Relu, Clip, Add with the residual first, Swish,
 * HardSwish) must give the bits of the direct conv followed by the ops' own kernels as passes. */
/* gemm.c's float64 kernels are not called here (test_kernels_gemm.c tests them). */
#define O2C_KERNEL static __attribute__((unused))
#include "../../templates/conv.c"
#include "../../templates/elementwise.c"
#include "../../templates/gemm.c"
#include "../../templates/math.c"

#include <stdio.h>
#include <string.h>

static uint32_t rng_state = 521288629u; /* seeds rnd() in check.h */
#define CHECK_WITH_RND
#include "check.h"
#include "conv_cases.h"

#define MAXE 65536
static float X[MAXE], Wt[MAXE], Wr[MAXE], B[1024], COL[MAXE], Y[MAXE], R[MAXE], WORK[MAXE];
static float WP[MAXE], WP32[2 * MAXE], D[MAXE], RES[MAXE], E[MAXE];

/* Direct convolution. channels_inner = 1 is the documented order; 0 puts channels outer
 * (used only to show that the test can tell the two apart). */
static void conv_direct(const ConvCase *c, int channels_inner, float *y)
{
    const int64_t OH = out_size(c->H, c->KH, c->sh, c->pt, c->pb, c->dh);
    const int64_t OW = out_size(c->W, c->KW, c->sw, c->pl, c->pr, c->dw);
    const int64_t Cg = c->C / c->groups, OCg = c->OC / c->groups;
    for (int64_t n = 0; n < c->N; n++)
        for (int64_t oc = 0; oc < c->OC; oc++)
            for (int64_t oh = 0; oh < OH; oh++)
                for (int64_t ow = 0; ow < OW; ow++) {
                    const int64_t g = oc / OCg;
                    float acc = 0.0f;
                    for (int64_t t = 0; t < c->KH * c->KW * Cg; t++) {
                        int64_t kh, kw, ic;
                        if (channels_inner) {
                            ic = t % Cg;
                            kw = (t / Cg) % c->KW;
                            kh = t / Cg / c->KW;
                        } else {
                            kw = t % c->KW;
                            kh = (t / c->KW) % c->KH;
                            ic = t / c->KW / c->KH;
                        }
                        const int64_t ih = oh * c->sh - c->pt + kh * c->dh;
                        const int64_t iw = ow * c->sw - c->pl + kw * c->dw;
                        float xv = 0.0f;
                        if (ih >= 0 && ih < c->H && iw >= 0 && iw < c->W)
                            xv = X[((n * c->C + g * Cg + ic) * c->H + ih) * c->W + iw];
                        const float wv = Wt[((oc * Cg + ic) * c->KH + kh) * c->KW + kw];
                        acc = fmaf(wv, xv, acc);
                    }
                    y[((n * c->OC + oc) * OH + oh) * OW + ow] = acc + B[oc];
                }
}

/* Conv the way the compiler emits it. */
static void conv_im2col(const ConvCase *c, float *y)
{
    const int64_t OH = out_size(c->H, c->KH, c->sh, c->pt, c->pb, c->dh);
    const int64_t OW = out_size(c->W, c->KW, c->sw, c->pl, c->pr, c->dw);
    const int64_t Cg = c->C / c->groups, OCg = c->OC / c->groups;
    const int64_t K = c->KH * c->KW * Cg, P = OH * OW;
    conv_weight_reorder_f32(c->OC, Cg, c->KH, c->KW, Wt, Wr);
    for (int64_t n = 0; n < c->N; n++)
        for (int64_t g = 0; g < c->groups; g++) {
            im2col_f32(c->C, c->H, c->W, g * Cg, Cg, c->KH, c->KW, OH, OW, c->sh, c->sw, c->pt,
                       c->pl, c->dh, c->dw, X + n * c->C * c->H * c->W, COL);
            gemm_f32(OCg, P, K, Wr + g * OCg * K, K, 1, COL, P, 1, y + (n * c->OC + g * OCg) * P);
        }
    add_channel_bias_f32(c->N, c->OC, P, B, y);
}

/* Conv through conv_f32 (packed weights, no im2col); bias may be NULL, ep too (nep 0). */
static void conv_direct_kernel(const ConvCase *c, const float *bias, const struct ConvEpilogue *ep,
                               int nep, float *y)
{
    const int64_t Cg = c->C / c->groups, OCg = c->OC / c->groups, taps = c->KH * c->KW;
    const int64_t in[3] = {1, c->H, c->W}, k[3] = {1, c->KH, c->KW}, st[3] = {1, c->sh, c->sw};
    const int64_t pad[3] = {0, c->pt, c->pl}, dil[3] = {1, c->dh, c->dw};
    const int64_t out[3] = {1, out_size(c->H, c->KH, c->sh, c->pt, c->pb, c->dh),
                            out_size(c->W, c->KW, c->sw, c->pl, c->pr, c->dw)};
    const int64_t packed = conv_packed_floats(c->groups, OCg, Cg, taps, CONV_OB);
    WP[packed] = 555.0f;
    conv_weight_pack_f32(c->groups, OCg, Cg, taps, CONV_OB, Wt, WP);
    check(WP[packed] == 555.0f, "conv_weight_pack_f32 stays inside conv_packed_floats");
    y[c->N * c->OC * out[1] * out[2]] = 4242.0f;
    const int64_t wf = conv_work_floats(Cg, k, out, st, dil);
    WORK[wf] = 777.0f;
    conv_f32(c->N, c->C, c->groups, OCg, in, out, k, st, pad, dil, X, WP, bias, ep, nep, y, WORK);
    check(WORK[wf] == 777.0f, "conv_f32 stays inside conv_work_floats");
}

/* Conv through conv_direct_f32 (no work memory; WP packed by conv_direct_kernel). */
static void conv_nowork_kernel(const ConvCase *c, const struct ConvEpilogue *ep, int nep, float *y)
{
    const int64_t in[3] = {1, c->H, c->W}, k[3] = {1, c->KH, c->KW}, st[3] = {1, c->sh, c->sw};
    const int64_t pad[3] = {0, c->pt, c->pl}, dil[3] = {1, c->dh, c->dw};
    const int64_t out[3] = {1, out_size(c->H, c->KH, c->sh, c->pt, c->pb, c->dh),
                            out_size(c->W, c->KW, c->sw, c->pl, c->pr, c->dw)};
    y[c->N * c->OC * out[1] * out[2]] = 4242.0f;
    conv_direct_f32(c->N, c->C, c->groups, c->OC / c->groups, in, out, k, st, pad, dil, X, WP, B,
                    ep, nep, y);
}

/* Conv through conv_band_f32 in bands of R output rows (WP packed by conv_direct_kernel). */
static void conv_band_kernel(const ConvCase *c, int64_t R, const struct ConvEpilogue *ep, int nep,
                             float *y)
{
    const int64_t OH = out_size(c->H, c->KH, c->sh, c->pt, c->pb, c->dh);
    const int64_t OW = out_size(c->W, c->KW, c->sw, c->pl, c->pr, c->dw);
    const int64_t Cg = c->C / c->groups;
    const int64_t wf = conv_band_work_floats(Cg, c->KH, c->KW, OW, c->sh, c->sw, c->dh, c->dw, R);
    check(wf < MAXE, "conv_band_f32 work fits the test's buffer");
    WORK[wf] = 777.0f;
    y[c->N * c->OC * OH * OW] = 4242.0f;
    conv_band_f32(c->N, c->C, c->groups, c->OC / c->groups, c->H, c->W, c->KH, c->KW, OH, OW, c->sh,
                  c->sw, c->pt, c->pl, c->dh, c->dw, R, CONV_OB, X, WP, B, ep, nep, y, WORK);
    check(WORK[wf] == 777.0f, "conv_band_f32 stays inside conv_band_work_floats");
}

/* Conv through conv_band_f32's channel-vector tiles in bands of R output rows, on weights
 * packed in blocks of CONVC_OB channels. */
static void conv_chan_kernel(const ConvCase *c, int64_t R, const struct ConvEpilogue *ep, int nep,
                             float *y)
{
    const int64_t OH = out_size(c->H, c->KH, c->sh, c->pt, c->pb, c->dh);
    const int64_t OW = out_size(c->W, c->KW, c->sw, c->pl, c->pr, c->dw);
    const int64_t Cg = c->C / c->groups, OCg = c->OC / c->groups, taps = c->KH * c->KW;
    const int64_t packed = conv_packed_floats(c->groups, OCg, Cg, taps, CONVC_OB);
    check(packed < 2 * MAXE, "channel-vector weights fit the test's buffer");
    WP32[packed] = 555.0f;
    conv_weight_pack_f32(c->groups, OCg, Cg, taps, CONVC_OB, Wt, WP32);
    check(WP32[packed] == 555.0f, "conv_weight_pack_f32 (32) stays inside conv_packed_floats");
    const int64_t wf = conv_band_work_floats(Cg, c->KH, c->KW, OW, c->sh, c->sw, c->dh, c->dw, R);
    WORK[wf] = 777.0f;
    y[c->N * c->OC * OH * OW] = 4242.0f;
    conv_band_f32(c->N, c->C, c->groups, OCg, c->H, c->W, c->KH, c->KW, OH, OW, c->sh, c->sw, c->pt,
                  c->pl, c->dh, c->dw, R, CONVC_OB, X, WP32, B, ep, nep, y, WORK);
    check(WORK[wf] == 777.0f, "conv_band_f32 (32) stays inside conv_band_work_floats");
}

/* The dense kernels with the epilogues y + RES, Relu, Clip(-0.5, 0.75), RES + y, Swish(0.75),
 * HardSwish (RES with -0.0f, exact cancellations, inf and NaN among random values): the Add
 * alone, the first four, all six, against R (the direct conv) followed by the passes the compiler
 * emits without tile epilogues: add_f32, relu_f32, clip_f32, add_f32, swish_f32,
 * hard_swish_f32. */
/* The dense kernels writing y over the residual: the Adds of ep read D, which holds RES when
 * the kernel starts and is its output (a Conv whose y takes its residual's buffer,
 * compiler/ops/conv.c); the bits must be those with separate buffers (E). */
static void run_over_residual(const ConvCase *c, int64_t total, int64_t OH,
                              const struct ConvEpilogue *ep, int nep, int pointwise)
{
    struct ConvEpilogue epa[6];
    for (int i = 0; i < nep; i++) {
        epa[i] = ep[i];
        if (ep[i].op == CONV_EP_ADD)
            epa[i].r = D;
    }
    char what[200];
    for (int kernel = 0; kernel < 7; kernel++) {
        if (kernel == 6 && !pointwise)
            continue;
        memcpy(D, RES, (size_t)total * sizeof(float));
        const char *name = "conv_f32";
        if (kernel == 0) {
            conv_direct_kernel(c, B, epa, nep, D);
        } else if (kernel <= 4) {
            const int64_t R = kernel % 2 ? 1 : OH;
            if (kernel <= 2)
                conv_band_kernel(c, R, epa, nep, D);
            else
                conv_chan_kernel(c, R, epa, nep, D);
            name = kernel <= 2 ? "conv_band_f32" : "conv_band_f32 (32)";
        } else if (kernel == 5) {
            conv_nowork_kernel(c, epa, nep, D);
            name = "conv_direct_f32";
        } else {
            conv_pointwise_f32(c->N, c->C, c->groups, c->OC / c->groups, total / c->N / c->OC, X,
                               WP, B, epa, nep, D, WORK);
            name = "conv_pointwise_f32";
        }
        snprintf(what, sizeof what, "%s %s, %d epilogues, y over its residual: same bits", name,
                 c->name, nep);
        check(same_bits(D, E, total, nep == 6), what);
    }
}

static void run_epilogues(const ConvCase *c, int64_t total, int64_t OH, int64_t OW)
{
    struct ConvEpilogue ep[6];
    epilogue_setup(total, R, RES, ep);
    const int pointwise = c->KH == 1 && c->KW == 1 && c->sh == 1 && c->sw == 1 && !c->pt &&
                          !c->pl && !c->pb && !c->pr;
    char what[200];
    for (int k = 0; k < EPILOGUE_COUNTS; k++) {
        const int nep = epilogue_counts[k];
        epilogue_passes(total, nep, R, RES, E);
        conv_direct_kernel(c, B, ep, nep, D);
        snprintf(what, sizeof what, "conv_f32 %s, %d epilogues: bits of conv + passes", c->name,
                 nep);
        check(same_bits(D, E, total, nep == 6), what);
        const int64_t bands[2] = {1, OH};
        for (int i = 0; i < 2; i++) {
            conv_band_kernel(c, bands[i], ep, nep, D);
            snprintf(what, sizeof what,
                     "conv_band_f32 %s R=%d, %d epilogues: bits of conv + passes", c->name,
                     (int)bands[i], nep);
            check(same_bits(D, E, total, nep == 6), what);
            conv_chan_kernel(c, bands[i], ep, nep, D);
            snprintf(what, sizeof what,
                     "conv_band_f32 (32) %s R=%d, %d epilogues: bits of conv + passes", c->name,
                     (int)bands[i], nep);
            check(same_bits(D, E, total, nep == 6), what);
        }
        conv_nowork_kernel(c, ep, nep, D);
        snprintf(what, sizeof what, "conv_direct_f32 %s, %d epilogues: bits of conv + passes",
                 c->name, nep);
        check(same_bits(D, E, total, nep == 6), what);
        if (pointwise) {
            conv_pointwise_f32(c->N, c->C, c->groups, c->OC / c->groups, OH * OW, X, WP, B, ep, nep,
                               D, WORK);
            snprintf(what, sizeof what,
                     "conv_pointwise_f32 %s, %d epilogues: bits of conv + passes", c->name, nep);
            check(same_bits(D, E, total, nep == 6), what);
        }
        run_over_residual(c, total, OH, ep, nep, pointwise);
    }
}

static void run_case(const ConvCase *c)
{
    const int64_t OH = out_size(c->H, c->KH, c->sh, c->pt, c->pb, c->dh);
    const int64_t OW = out_size(c->W, c->KW, c->sw, c->pl, c->pr, c->dw);
    const int64_t total = c->N * c->OC * OH * OW;
    for (int64_t i = 0; i < c->N * c->C * c->H * c->W; i++)
        X[i] = rnd();
    for (int64_t i = 0; i < c->OC * (c->C / c->groups) * c->KH * c->KW; i++)
        Wt[i] = rnd();
    for (int64_t i = 0; i < c->OC; i++)
        B[i] = rnd();
    Y[total] = 4242.0f;
    conv_im2col(c, Y);
    conv_direct(c, 1, R);
    char what[160];
    snprintf(what, sizeof what, "conv %s (OH=%d OW=%d) bit-identical to direct", c->name, (int)OH,
             (int)OW);
    check(memcmp(Y, R, (size_t)total * sizeof(float)) == 0 && Y[total] == 4242.0f, what);
    conv_direct_kernel(c, B, NULL, 0, D);
    snprintf(what, sizeof what, "conv_f32 %s bit-identical to direct", c->name);
    check(memcmp(D, R, (size_t)total * sizeof(float)) == 0 && D[total] == 4242.0f, what);
    conv_nowork_kernel(c, NULL, 0, D);
    snprintf(what, sizeof what, "conv_direct_f32 %s bit-identical to direct", c->name);
    check(memcmp(D, R, (size_t)total * sizeof(float)) == 0 && D[total] == 4242.0f, what);
    const int64_t bands[3] = {1, 2, OH}; /* one row per band, two, the whole output */
    for (int i = 0; i < 3; i++) {
        conv_band_kernel(c, bands[i], NULL, 0, D);
        snprintf(what, sizeof what, "conv_band_f32 %s R=%d bit-identical to direct", c->name,
                 (int)bands[i]);
        check(memcmp(D, R, (size_t)total * sizeof(float)) == 0 && D[total] == 4242.0f, what);
        conv_chan_kernel(c, bands[i], NULL, 0, D);
        snprintf(what, sizeof what, "conv_band_f32 (32) %s R=%d bit-identical to direct", c->name,
                 (int)bands[i]);
        check(memcmp(D, R, (size_t)total * sizeof(float)) == 0 && D[total] == 4242.0f, what);
    }
    if (c->KH == 1 && c->KW == 1 && c->sh == 1 && c->sw == 1 && !c->pt && !c->pl && !c->pb &&
        !c->pr) {
        const int64_t wf = conv_pointwise_work_floats(c->C / c->groups, OH * OW);
        WORK[wf] = 777.0f;
        D[total] = 4242.0f;
        conv_pointwise_f32(c->N, c->C, c->groups, c->OC / c->groups, OH * OW, X, WP, B, NULL, 0, D,
                           WORK);
        snprintf(what, sizeof what, "conv_pointwise_f32 %s bit-identical to direct", c->name);
        check(memcmp(D, R, (size_t)total * sizeof(float)) == 0 && D[total] == 4242.0f &&
                  WORK[wf] == 777.0f,
              what);
    }
    run_epilogues(c, total, OH, OW);
    if (c->C / c->groups == 1) {
        R[total] = 4242.0f;
        const int64_t wf = depthwise_work_floats(c->C, c->OC / c->C, c->KH, c->KW, OH, OW, c->sh,
                                                 c->sw, c->dh, c->dw);
        WORK[wf] = 777.0f; /* the kernel must stay inside its work memory */
        depthwise_conv_f32(c->N, c->C, c->OC / c->C, c->H, c->W, c->KH, c->KW, OH, OW, c->sh, c->sw,
                           c->pt, c->pl, c->dh, c->dw, X, Wt, B, R, WORK);
        snprintf(what, sizeof what, "depthwise %s bit-identical to im2col + gemm", c->name);
        check(memcmp(Y, R, (size_t)total * sizeof(float)) == 0 && R[total] == 4242.0f &&
                  WORK[wf] == 777.0f,
              what);
    }
}

static const ConvCase cases[] = {
    /* name, N, C, H, W, OC, groups, KH, KW, sh, sw, pt, pl, pb, pr, dh, dw */
    {"3x3 valid", 1, 3, 5, 5, 4, 1, 3, 3, 1, 1, 0, 0, 0, 0, 1, 1},
    {"3x3 pad 1", 1, 3, 6, 7, 4, 1, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
    {"stride 2 asym pad", 1, 2, 7, 8, 3, 1, 3, 3, 2, 2, 1, 0, 0, 1, 1, 1},
    {"dilation 2 pad 2", 1, 2, 9, 9, 3, 1, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2},
    {"dilation (2,3) stride (1,2)", 1, 3, 10, 12, 2, 1, 2, 3, 1, 2, 1, 3, 0, 2, 2, 3},
    {"groups 2", 1, 4, 6, 6, 6, 2, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
    {"depthwise", 1, 5, 7, 7, 5, 5, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
    {"depthwise x2 stride 2", 1, 4, 8, 8, 8, 4, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1},
    {"1-D", 1, 3, 1, 20, 4, 1, 1, 5, 1, 3, 0, 2, 0, 2, 1, 2},
    {"1-D batch 2 groups 3", 2, 6, 1, 16, 3, 3, 1, 3, 1, 1, 0, 1, 0, 1, 1, 1},
    {"1x1", 1, 8, 5, 5, 4, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1},
    {"1x1 stride 2", 1, 8, 5, 6, 4, 1, 1, 1, 2, 2, 0, 0, 0, 0, 1, 1},
    {"1x1 7x7 (last tile shifted)", 2, 6, 7, 7, 10, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1},
    {"1x1 4x8 groups 2 (one tile)", 1, 4, 4, 8, 6, 2, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1},
    {"kernel larger than input", 1, 2, 2, 2, 3, 1, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
    {"taps entirely in padding", 1, 2, 4, 4, 2, 1, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3},
    {"batch 2", 2, 3, 6, 5, 4, 1, 3, 2, 1, 1, 1, 0, 1, 0, 1, 1},
    {"non-square 7x3 kernel 1x3", 1, 2, 7, 3, 3, 1, 1, 3, 2, 1, 0, 1, 1, 1, 1, 1},
    {"many channels", 1, 64, 4, 4, 8, 1, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
    {"5x5 stride 3 big pad", 1, 3, 11, 9, 2, 1, 5, 5, 3, 3, 4, 4, 4, 4, 1, 1},
    {"depthwise 1-D pad", 2, 3, 1, 9, 3, 3, 1, 3, 1, 1, 0, 2, 0, 1, 1, 2},
    {"depthwise x3 dil 2 asym", 1, 2, 6, 7, 6, 2, 3, 2, 2, 1, 2, 0, 1, 3, 2, 2},
    {"single channel (Cg 1, groups 1)", 1, 1, 6, 6, 3, 1, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
    {"depthwise 1x1", 1, 4, 3, 3, 4, 4, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1},
    {"depthwise taps in padding", 1, 2, 4, 4, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3},
    {"wide rows, 3 column tiles, 2.5 channel blocks", 1, 3, 5, 40, 20, 1, 3, 3, 1, 1, 1, 1, 1, 1, 1,
     1},
    {"wide stride 2 dilation 2 groups 2", 2, 4, 9, 70, 18, 2, 3, 3, 2, 2, 2, 2, 1, 2, 2, 2},
    {"1-D wide dilation 2", 1, 5, 1, 50, 9, 1, 1, 5, 1, 1, 0, 0, 0, 0, 1, 2},
    {"1x1 groups 2, 3 blocks, P = 2.3 tiles", 2, 6, 6, 6, 20, 2, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1},
    {"1x1 P = 1 tile exactly, 1-D", 1, 9, 1, 16, 8, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1},
    {"exact tile: 16 columns, 8 channels", 1, 6, 16, 16, 8, 1, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
    {"depthwise 5x5 stride 2, grid of 3 blocks and 2 tails", 1, 3, 28, 28, 3, 3, 5, 5, 2, 2, 2, 2,
     2, 2, 1, 1},
    {"depthwise 5x5 on 7x7, grid 1 block + 1 tail", 1, 4, 7, 7, 4, 4, 5, 5, 1, 1, 2, 2, 2, 2, 1, 1},
    {"depthwise 3x3 stride 2 on 40x41, pad 0/1", 1, 2, 40, 41, 2, 2, 3, 3, 2, 2, 0, 0, 1, 1, 1, 1},
    {"depthwise x2 stride (2,3) dilation (3,2) asym", 1, 2, 13, 17, 4, 2, 3, 4, 2, 3, 1, 2, 3, 0, 3,
     2},
    {"depthwise 7 channels, 3x3 outputs in groups of 4, batch 2", 2, 7, 3, 3, 7, 7, 3, 3, 1, 1, 1,
     1, 1, 1, 1, 1},
    {"depthwise 10 channels 6x6 stride 2, blocks across channels", 1, 10, 12, 12, 10, 10, 3, 3, 2,
     2, 1, 1, 1, 1, 1, 1},
    {"depthwise 64 channels 25x5 (DS-CNN)", 1, 64, 25, 5, 64, 64, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
    {"depthwise 13 channels 5x5 on 7x7", 1, 13, 7, 7, 13, 13, 5, 5, 1, 1, 2, 2, 2, 2, 1, 1},
    {"7x7 output, 2 blocks: band tiles span rows", 1, 16, 7, 7, 16, 1, 3, 3, 1, 1, 1, 1, 1, 1, 1,
     1},
    {"stride 2 with 3 row phases, dilation 3", 1, 3, 13, 11, 9, 1, 3, 2, 3, 2, 2, 1, 2, 0, 3, 1},
    {"40 channels: 2 blocks of 32, rows of 9", 1, 5, 9, 9, 40, 1, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
    {"70 channels, groups 2, stride 2, rows of 29", 1, 4, 12, 58, 70, 2, 3, 3, 2, 2, 1, 1, 1, 1, 1,
     1},
};

static void test_hand(void)
{
    /* 1x1x3x3 input 1..9, 2x2 kernel of ones, bias 1 */
    const float x[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9}, w[4] = {1, 1, 1, 1}, b[1] = {1};
    float col[16], y[4];
    im2col_f32(1, 3, 3, 0, 1, 2, 2, 2, 2, 1, 1, 0, 0, 1, 1, x, col);
    const float want_col[16] = {1, 2, 4, 5, 2, 3, 5, 6, 4, 5, 7, 8, 5, 6, 8, 9};
    check(memcmp(col, want_col, sizeof want_col) == 0, "im2col hand 3x3, 2x2 kernel");
    gemm_f32(1, 4, 4, w, 4, 1, col, 4, 1, y);
    add_channel_bias_f32(1, 1, 4, b, y);
    const float want_y[4] = {13, 17, 25, 29};
    check(memcmp(y, want_y, sizeof want_y) == 0, "conv hand 3x3 input, 2x2 kernel, bias");

    /* padding: 2x2 input, 2x2 kernel, pad 1 everywhere -> 3x3 output, zeros in the pad */
    const float x2[4] = {1, 2, 3, 4};
    float col2[36];
    im2col_f32(1, 2, 2, 0, 1, 2, 2, 3, 3, 1, 1, 1, 1, 1, 1, x2, col2);
    const float want_col2[36] = {
        0, 0, 0, 0, 1, 2, 0, 3, 4, /* tap (0,0) */
        0, 0, 0, 1, 2, 0, 3, 4, 0, /* tap (0,1) */
        0, 1, 2, 0, 3, 4, 0, 0, 0, /* tap (1,0) */
        1, 2, 0, 3, 4, 0, 0, 0, 0, /* tap (1,1) */
    };
    check(memcmp(col2, want_col2, sizeof want_col2) == 0, "im2col hand with padding");

    /* rows are taps outer, channels inner: 2 channels, 1x2 kernel, 1x2 input, 1x1 output */
    const float x3[4] = {1, 2, 10, 20}; /* [2][1][2] */
    float col3[4];
    im2col_f32(2, 1, 2, 0, 2, 1, 2, 1, 1, 1, 1, 0, 0, 1, 1, x3, col3);
    const float want_col3[4] = {1, 10, 2, 20}; /* k = kw*2 + ic */
    check(memcmp(col3, want_col3, sizeof want_col3) == 0, "im2col k order: taps outer");

    /* group selection: c0 picks the group's channels */
    float col4[2];
    im2col_f32(2, 1, 2, 1, 1, 1, 2, 1, 1, 1, 1, 0, 0, 1, 1, x3, col4);
    check(col4[0] == 10 && col4[1] == 20, "im2col c0 selects the group");

    /* weight reorder: [OC=1][Cg=2][KH=1][KW=2] -> [1][1][2][2] */
    const float w5[4] = {1, 2, 3, 4}; /* (ic0: kw0 kw1) (ic1: kw0 kw1) */
    float w5r[4];
    conv_weight_reorder_f32(1, 2, 1, 2, w5, w5r);
    const float want_w5r[4] = {1, 3, 2, 4};
    check(memcmp(w5r, want_w5r, sizeof want_w5r) == 0, "weight reorder to taps outer");

    float yb[8] = {0, 0, 0, 0, 1, 1, 1, 1};
    const float bias2[2] = {5, -5};
    add_channel_bias_f32(2, 2, 2, bias2, yb);
    const float want_yb[8] = {5, 5, -5, -5, 6, 6, -4, -4};
    check(memcmp(yb, want_yb, sizeof want_yb) == 0, "channel bias over batch");
}

/* The data must be able to reveal a change of k order. */
static void test_sensitivity(void)
{
    const ConvCase *c = &cases[16]; /* many channels */
    run_case(c);
    conv_direct(c, 0, R);
    const int64_t total = c->N * c->OC * 4 * 4;
    check(memcmp(Y, R, (size_t)total * sizeof(float)) != 0,
          "test data distinguishes channels-inner from channels-outer order");
}

/* Depthwise with special weights and inputs: padded taps are fmaf(w, 0, acc) as in col. */
static void test_depthwise_special(void)
{
    const ConvCase c = {"special", 1, 2, 3, 3, 2, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1};
    const float specials[6] = {-0.0f, 0.0f, INFINITY, -INFINITY, NAN, 1.0f};
    for (int t = 0; t < 6; t++) {
        for (int i = 0; i < 18; i++)
            X[i] = (i % 3) ? -0.0f : rnd();
        for (int i = 0; i < 8; i++)
            Wt[i] = (i == t || i == 7 - t) ? specials[t] : -0.0f;
        B[0] = B[1] = 0.0f;
        conv_im2col(&c, Y);
        depthwise_conv_f32(1, 2, 1, 3, 3, 2, 2, 4, 4, 1, 1, 1, 1, 1, 1, X, Wt, B, R, WORK);
        char what[80];
        snprintf(what, sizeof what, "depthwise special weight %d: bits of im2col + gemm", t);
        check(memcmp(Y, R, 32 * sizeof(float)) == 0, what);
        conv_direct_kernel(&c, B, NULL, 0, D);
        snprintf(what, sizeof what, "conv_f32 special weight %d: bits of im2col + gemm", t);
        check(memcmp(Y, D, 32 * sizeof(float)) == 0, what);
    }
}

/* 3-D im2col against a direct gather; and the 2-D case as 3-D with D = 1. */
static void test_im2col_3d(void)
{
    const int64_t C = 3, c0 = 1, Cg = 2, in[3] = {4, 5, 3}, k[3] = {2, 3, 2};
    const int64_t st[3] = {2, 1, 2}, pad[3] = {1, 1, 0}, dil[3] = {1, 2, 1};
    const int64_t out[3] = {3, 3, 1}; /* (4+1+0-2)/2+1, (5+1+1-5)/1+1, (3+0+1-2)/2+1 */
    for (int64_t i = 0; i < C * in[0] * in[1] * in[2]; i++)
        X[i] = rnd();
    im2col_3d_f32(c0, Cg, in, out, k, st, pad, dil, X, COL);
    int ok = 1;
    const int64_t P = out[0] * out[1] * out[2];
    for (int64_t kd = 0; kd < k[0]; kd++)
        for (int64_t kh = 0; kh < k[1]; kh++)
            for (int64_t kw = 0; kw < k[2]; kw++)
                for (int64_t ic = 0; ic < Cg; ic++)
                    for (int64_t p = 0; p < P; p++) {
                        const int64_t od = p / (out[1] * out[2]), oh = p / out[2] % out[1];
                        const int64_t ow = p % out[2];
                        const int64_t id = od * st[0] - pad[0] + kd * dil[0];
                        const int64_t ih = oh * st[1] - pad[1] + kh * dil[1];
                        const int64_t iw = ow * st[2] - pad[2] + kw * dil[2];
                        float want = 0.0f;
                        if (id >= 0 && id < in[0] && ih >= 0 && ih < in[1] && iw >= 0 && iw < in[2])
                            want = X[(((c0 + ic) * in[0] + id) * in[1] + ih) * in[2] + iw];
                        const int64_t row = ((kd * k[1] + kh) * k[2] + kw) * Cg + ic;
                        ok = ok && COL[row * P + p] == want;
                    }
    check(ok, "im2col_3d matches a direct 3-D gather");

    const int64_t in2[3] = {1, 6, 7}, out2[3] = {1, 3, 4}, k2[3] = {1, 3, 3};
    const int64_t st2[3] = {1, 2, 2}, pad2[3] = {0, 1, 1}, dil2[3] = {1, 1, 1};
    im2col_3d_f32(0, 3, in2, out2, k2, st2, pad2, dil2, X, COL);
    im2col_f32(3, 6, 7, 0, 3, 3, 3, 3, 4, 2, 2, 1, 1, 1, 1, X, R);
    check(memcmp(COL, R, 3 * 9 * 12 * sizeof(float)) == 0, "im2col_3d with D = 1 is im2col_f32");
}

/* 3-D conv_f32 (groups 2, strides, pads, dilations, no bias) against im2col_3d + gemm_f32, and
 * with a bias against the same plus add_channel_bias_f32. */
static void test_conv_3d(void)
{
    const int64_t N = 2, C = 4, G = 2, Cg = 2, OCg = 5, in[3] = {5, 6, 20}, k[3] = {2, 3, 3};
    const int64_t st[3] = {2, 1, 1}, pad[3] = {1, 1, 2}, dil[3] = {1, 2, 2};
    const int64_t out[3] = {3, 4, 20}; /* (5+1+0-2)/2+1, (6+1+1-5)+1, (20+2+2-5)+1 */
    const int64_t taps = 18, K = taps * Cg, P = 3 * 4 * 20, isz = 5 * 6 * 20;
    for (int64_t i = 0; i < N * C * isz; i++)
        X[i] = rnd();
    for (int64_t i = 0; i < G * OCg * K; i++)
        Wt[i] = rnd();
    for (int64_t i = 0; i < G * OCg; i++)
        B[i] = rnd();
    conv_weight_reorder_f32(G * OCg, Cg, k[0] * k[1], k[2], Wt, Wr);
    for (int64_t n = 0; n < N; n++)
        for (int64_t g = 0; g < G; g++) {
            im2col_3d_f32(g * Cg, Cg, in, out, k, st, pad, dil, X + n * C * isz, COL);
            gemm_f32(OCg, P, K, Wr + g * OCg * K, K, 1, COL, P, 1, R + (n * G + g) * OCg * P);
        }
    conv_weight_pack_f32(G, OCg, Cg, taps, CONV_OB, Wt, WP);
    conv_f32(N, C, G, OCg, in, out, k, st, pad, dil, X, WP, NULL, NULL, 0, Y, WORK);
    check(memcmp(Y, R, (size_t)(N * G * OCg * P) * sizeof(float)) == 0,
          "conv_f32 3-D without bias bit-identical to im2col_3d + gemm");
    add_channel_bias_f32(N, G * OCg, P, B, R);
    conv_f32(N, C, G, OCg, in, out, k, st, pad, dil, X, WP, B, NULL, 0, Y, WORK);
    check(memcmp(Y, R, (size_t)(N * G * OCg * P) * sizeof(float)) == 0,
          "conv_f32 3-D with bias bit-identical to im2col_3d + gemm + bias");
}

/* ConvTranspose: hand values and a scatter-form reference on integer data (exact sums). */
static void test_convtranspose(void)
{
    const int64_t one[3] = {1, 1, 1}, zero[3] = {0, 0, 0};
    const float x[3] = {1, 2, 3}, w[3] = {1, 1, 1};
    float y[8];
    const int64_t in1[3] = {1, 1, 3}, out1[3] = {1, 1, 5}, k1[3] = {1, 1, 3};
    convtranspose_f32(1, 1, 1, 1, in1, out1, k1, one, zero, one, x, w, y);
    const float want1[5] = {1, 3, 6, 5, 3};
    check(memcmp(y, want1, sizeof want1) == 0, "convtranspose 1-D hand");

    const int64_t in2[3] = {1, 1, 2}, out2[3] = {1, 1, 5}, st2[3] = {1, 1, 2};
    convtranspose_f32(1, 1, 1, 1, in2, out2, k1, st2, zero, one, x, w, y);
    const float want2[5] = {1, 1, 3, 2, 2};
    check(memcmp(y, want2, sizeof want2) == 0, "convtranspose 1-D stride 2 hand");

    /* pad 1 at the start crops the first output; output_padding-like extra tail is zero */
    const int64_t out3[3] = {1, 1, 5}, pad3[3] = {0, 0, 1};
    convtranspose_f32(1, 1, 1, 1, in2, out3, k1, st2, pad3, one, x, w, y);
    const float want3[5] = {1, 3, 2, 2, 0};
    check(memcmp(y, want3, sizeof want3) == 0, "convtranspose pad and extra output");

    /* 2-D, groups 2, strides (2,1), dilations (1,2), pads (1,0): scatter reference */
    const int64_t N = 2, C = 4, G = 2, OCg = 3, Cg = C / G;
    const int64_t in[3] = {1, 3, 4}, k[3] = {1, 2, 3}, st[3] = {1, 2, 1}, dl[3] = {1, 1, 2};
    const int64_t pb[3] = {0, 1, 0}, pe[3] = {0, 0, 2};
    int64_t out[3] = {1, 0, 0};
    for (int i = 1; i < 3; i++)
        out[i] = st[i] * (in[i] - 1) + dl[i] * (k[i] - 1) + 1 - pb[i] - pe[i];
    for (int64_t i = 0; i < N * C * 12; i++)
        X[i] = (float)((int)(i * 7 % 11) - 5);
    for (int64_t i = 0; i < C * OCg * 6; i++)
        Wt[i] = (float)((int)(i * 5 % 7) - 3);
    const int64_t osz = out[1] * out[2];
    for (int64_t i = 0; i < N * G * OCg * osz; i++)
        R[i] = 0.0f;
    for (int64_t n = 0; n < N; n++)
        for (int64_t c = 0; c < C; c++)
            for (int64_t ih = 0; ih < in[1]; ih++)
                for (int64_t iw = 0; iw < in[2]; iw++)
                    for (int64_t o = 0; o < OCg; o++)
                        for (int64_t kh = 0; kh < k[1]; kh++)
                            for (int64_t kw = 0; kw < k[2]; kw++) {
                                const int64_t oh = ih * st[1] - pb[1] + kh * dl[1];
                                const int64_t ow = iw * st[2] - pb[2] + kw * dl[2];
                                if (oh < 0 || oh >= out[1] || ow < 0 || ow >= out[2])
                                    continue;
                                const int64_t oc = c / Cg * OCg + o;
                                R[((n * G * OCg + oc) * out[1] + oh) * out[2] + ow] +=
                                    X[((n * C + c) * in[1] + ih) * in[2] + iw] *
                                    Wt[((c * OCg + o) * k[1] + kh) * k[2] + kw];
                            }
    convtranspose_f32(N, C, G, OCg, in, out, k, st, pb, dl, X, Wt, Y);
    check(memcmp(Y, R, (size_t)(N * G * OCg * osz) * sizeof(float)) == 0,
          "convtranspose 2-D groups/strides/dilations/pads = scatter reference");
}

int main(void)
{
    (void)gemm_epilogue_f32; /* gemm.c is included for gemm_f32 only */
    test_hand();
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        run_case(&cases[i]);
    test_sensitivity();
    test_depthwise_special();
    test_im2col_3d();
    test_conv_3d();
    test_convtranspose();
    printf("%d passed, %d failed\n", n_passed, n_failed);
    return n_failed != 0;
}
