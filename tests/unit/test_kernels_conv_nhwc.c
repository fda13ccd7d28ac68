/* Unit test of templates/conv_nhwc.c: the NHWC convolution must give, element by element, the
 * bits of the NCHW formulation of conv.c (im2col_f32 + gemm_f32 + add_channel_bias_f32: taps
 * outer, channels inner, fmaf from +0.0f, padded taps included, the bias after the sum) on
 * inputs and outputs transposed between the layouts, and those of a direct NHWC loop in the
 * same order. Covers strides, dilations, asymmetric padding, groups, 1-D, kernels larger than
 * the input, taps wholly in the padding, batches, few and many channels, output channel counts
 * that are not a multiple of the weight block (of 32, or of 16 for at most 16 per group), tiles
 * of 7, 8 and 14 positions, blocks inner (small weights) and outer (the 48 -> 72 and 256 -> 128
 * cases), band rows from 1 to the whole output and no band plane (a one-row plane on the stack
 * where that fits CONV_NHWC_EDGE_FLOATS, else the tiles reading x, the padding through their
 * edge copies, channel runs of 64 and fewer); inf and NaN weights on padded
 * taps; the tile-store epilogues (Add, Relu, Clip, Add with the residual first, Swish, HardSwish;
 * a leading Add, then Relu or Clip, in the stores)
 * against the ops' own kernels run as passes over the NHWC output; the same on an NCHW x
 * (geo[CONV_NHWC_XNCHW], every band size but none); that the kernel stays inside its packed
 * weight, work memory and output. */
#define O2C_KERNEL static __attribute__((unused))
#include "../../templates/conv.c"
#include "../../templates/conv_nhwc.c"
#include "../../templates/elementwise.c"
#include "../../templates/gemm.c"
#include "../../templates/math.c"

#include <stdio.h>
#include <string.h>

static uint32_t rng_state = 2463534242u; /* seeds rnd() in check.h */
#define CHECK_WITH_RND
#include "check.h"
#include "conv_cases.h"

#define MAXE 131072
static float XC[MAXE], XN[MAXE], Wt[4 * MAXE], Wr[4 * MAXE], WP[4 * MAXE], B[1024], COL[4 * MAXE];
static float YC[MAXE], REF[MAXE], D[MAXE], RES[MAXE], E[MAXE], WORK[4 * MAXE];

static void case_geo(const ConvCase *c, int64_t R, int64_t *geo)
{
    geo[CONV_NHWC_N] = c->N;
    geo[CONV_NHWC_H] = c->H;
    geo[CONV_NHWC_W] = c->W;
    geo[CONV_NHWC_C] = c->C;
    geo[CONV_NHWC_G] = c->groups;
    geo[CONV_NHWC_OCG] = c->OC / c->groups;
    geo[CONV_NHWC_KH] = c->KH;
    geo[CONV_NHWC_KW] = c->KW;
    geo[CONV_NHWC_OH] = out_size(c->H, c->KH, c->sh, c->pt, c->pb, c->dh);
    geo[CONV_NHWC_OW] = out_size(c->W, c->KW, c->sw, c->pl, c->pr, c->dw);
    geo[CONV_NHWC_SH] = c->sh;
    geo[CONV_NHWC_SW] = c->sw;
    geo[CONV_NHWC_PT] = c->pt;
    geo[CONV_NHWC_PL] = c->pl;
    geo[CONV_NHWC_DH] = c->dh;
    geo[CONV_NHWC_DW] = c->dw;
    geo[CONV_NHWC_R] = R;
    geo[CONV_NHWC_XNCHW] = 0;
    geo[CONV_NHWC_YS] = 0;
}

/* [N][C][P] -> [N][P][C] */
static void to_nhwc(int64_t N, int64_t C, int64_t P, const float *x, float *y)
{
    for (int64_t n = 0; n < N; n++)
        for (int64_t c = 0; c < C; c++)
            for (int64_t p = 0; p < P; p++)
                y[(n * P + p) * C + c] = x[(n * C + c) * P + p];
}

/* The NCHW conv of conv.c's plain formulation, transposed to NHWC into ref. */
static void conv_nchw_ref(const ConvCase *c, const int64_t *geo, float *ref)
{
    const int64_t OH = geo[CONV_NHWC_OH], OW = geo[CONV_NHWC_OW], P = OH * OW;
    const int64_t Cg = c->C / c->groups, OCg = c->OC / c->groups, K = c->KH * c->KW * Cg;
    conv_weight_reorder_f32(c->OC, Cg, c->KH, c->KW, Wt, Wr);
    for (int64_t n = 0; n < c->N; n++)
        for (int64_t g = 0; g < c->groups; g++) {
            im2col_f32(c->C, c->H, c->W, g * Cg, Cg, c->KH, c->KW, OH, OW, c->sh, c->sw, c->pt,
                       c->pl, c->dh, c->dw, XC + n * c->C * c->H * c->W, COL);
            gemm_f32(OCg, P, K, Wr + g * OCg * K, K, 1, COL, P, 1, YC + (n * c->OC + g * OCg) * P);
        }
    add_channel_bias_f32(c->N, c->OC, P, B, YC);
    to_nhwc(c->N, c->OC, P, YC, ref);
}

/* Direct NHWC loop; channels_inner = 0 sums the channels outer (only to show that the test
 * tells the orders apart). */
static void conv_nhwc_direct(const ConvCase *c, const int64_t *geo, int channels_inner, float *y)
{
    const int64_t OH = geo[CONV_NHWC_OH], OW = geo[CONV_NHWC_OW];
    const int64_t Cg = c->C / c->groups, OCg = c->OC / c->groups, K = c->KH * c->KW * Cg;
    for (int64_t n = 0; n < c->N; n++)
        for (int64_t oh = 0; oh < OH; oh++)
            for (int64_t ow = 0; ow < OW; ow++)
                for (int64_t oc = 0; oc < c->OC; oc++) {
                    const int64_t g = oc / OCg;
                    float acc = 0.0f;
                    for (int64_t t = 0; t < K; t++) {
                        const int64_t ic = channels_inner ? t % Cg : t / (c->KH * c->KW);
                        const int64_t tap = channels_inner ? t / Cg : t % (c->KH * c->KW);
                        const int64_t kh = tap / c->KW, kw = tap % c->KW;
                        const int64_t ih = oh * c->sh - c->pt + kh * c->dh;
                        const int64_t iw = ow * c->sw - c->pl + kw * c->dw;
                        float xv = 0.0f;
                        if (ih >= 0 && ih < c->H && iw >= 0 && iw < c->W)
                            xv = XN[((n * c->H + ih) * c->W + iw) * c->C + g * Cg + ic];
                        acc = fmaf(Wt[((oc * Cg + ic) * c->KH + kh) * c->KW + kw], xv, acc);
                    }
                    y[((n * OH + oh) * OW + ow) * c->OC + oc] = acc + B[oc];
                }
}

/* conv_nhwc_f32 into y with guards after the packed weight, the work memory and the output; x is
 * XN, or XC where geo says that x is NCHW. */
static void run_kernel(const ConvCase *c, const int64_t *geo, const float *bias,
                       const struct ConvEpilogue *ep, int nep, float *y)
{
    const int64_t packed = conv_nhwc_packed_floats(geo), wf = conv_nhwc_work_floats(geo);
    const int64_t total = c->N * geo[CONV_NHWC_OH] * geo[CONV_NHWC_OW] * c->OC;
    check(packed < 4 * MAXE && wf < 4 * MAXE && total < MAXE, "the case fits the test's buffers");
    WP[packed] = 555.0f;
    conv_nhwc_pack_f32(geo, Wt, WP);
    check(WP[packed] == 555.0f, "conv_nhwc_pack_f32 stays inside conv_nhwc_packed_floats");
    WORK[wf] = 777.0f;
    y[total] = 4242.0f;
    conv_nhwc_f32(geo, geo[CONV_NHWC_XNCHW] ? XC : XN, WP, bias, ep, nep, y, WORK);
    check(WORK[wf] == 777.0f, "conv_nhwc_f32 stays inside conv_nhwc_work_floats");
    check(y[total] == 4242.0f, "conv_nhwc_f32 stays inside its output");
}

/* The epilogues y + RES, Relu, Clip(-0.5, 0.75), RES + y, Swish(0.75), HardSwish (RES with
 * -0.0f, exact cancellations, inf and NaN among random values): the Add alone, the first four,
 * all six, against the conv followed by the passes the compiler emits without tile
 * epilogues. */
static void run_epilogues(const ConvCase *c, const int64_t *geo, int64_t total)
{
    struct ConvEpilogue ep[6];
    epilogue_setup(total, REF, RES, ep);
    char what[200];
    for (int k = 0; k < EPILOGUE_COUNTS; k++) {
        const int nep = epilogue_counts[k];
        epilogue_passes(total, nep, REF, RES, E);
        run_kernel(c, geo, B, ep, nep, D);
        snprintf(what, sizeof what, "conv_nhwc_f32 %s R=%d%s, %d epilogues: bits of conv + passes",
                 c->name, (int)geo[CONV_NHWC_R], geo[CONV_NHWC_XNCHW] ? " NCHW x" : "", nep);
        check(same_bits(D, E, total, nep == 6), what);
    }
    /* a leading Relu (alone) or Clip (then RES + y), which the tiles apply in their stores */
    const int64_t dims[1] = {total}, one[1] = {1};
    relu_f32(total, REF, E);
    run_kernel(c, geo, B, ep + 1, 1, D);
    snprintf(what, sizeof what, "conv_nhwc_f32 %s R=%d%s, Relu: bits of conv + pass", c->name,
             (int)geo[CONV_NHWC_R], geo[CONV_NHWC_XNCHW] ? " NCHW x" : "");
    check(same_bits(D, E, total, 0), what);
    /* a leading Add with the residual first (RES + y), which the stores apply */
    memcpy(E, REF, (size_t)total * sizeof(float));
    add_f32(1, dims, one, one, RES, E, E);
    run_kernel(c, geo, B, ep + 3, 1, D);
    snprintf(what, sizeof what, "conv_nhwc_f32 %s R=%d%s, RES + y: bits of conv + pass", c->name,
             (int)geo[CONV_NHWC_R], geo[CONV_NHWC_XNCHW] ? " NCHW x" : "");
    check(same_bits(D, E, total, 0), what);
    clip_f32(total, -0.5f, 0.75f, REF, E);
    add_f32(1, dims, one, one, RES, E, E);
    run_kernel(c, geo, B, ep + 2, 2, D);
    snprintf(what, sizeof what, "conv_nhwc_f32 %s R=%d%s, Clip, Add: bits of conv + passes",
             c->name, (int)geo[CONV_NHWC_R], geo[CONV_NHWC_XNCHW] ? " NCHW x" : "");
    check(same_bits(D, E, total, 0), what);
}

/* Filler of the floats between a strided output's rows, which the kernels must not touch. */
#define GAP_FLOAT 1234.5f
/* Floats between rows in the strided runs: a width that keeps no row aligned. */
#define GAP 3

/* Whether P rows of `len` floats ys apart in y equal those of want (len apart), and the GAP
 * floats after each row still hold GAP_FLOAT. */
static int rows_match(int64_t P, int64_t len, int64_t ys, const float *y, const float *want,
                      int any_nan)
{
    for (int64_t p = 0; p < P; p++) {
        if (!same_bits(y + p * ys, want + p * len, len, any_nan))
            return 0;
        for (int64_t i = len; i < ys; i++)
            if (y[p * ys + i] != GAP_FLOAT)
                return 0;
    }
    return 1;
}

/* conv_nhwc_f32 with geo[CONV_NHWC_YS] (a Concat's channels, plan_arena's strided slices):
 * each position's channels GAP floats apart, as the dense run want, with the epilogues
 * ep[0 .. nep-1] (none of them an Add: the compiler gives no operand of y's shape then). */
static void run_strided(const ConvCase *c, const int64_t *geo0, const struct ConvEpilogue *ep,
                        int nep, const float *want, const char *what)
{
    int64_t geo[CONV_NHWC_NGEO];
    memcpy(geo, geo0, sizeof geo);
    const int64_t P = c->N * geo[CONV_NHWC_OH] * geo[CONV_NHWC_OW], ys = c->OC + GAP;
    if (P * ys >= MAXE)
        return; /* the larger cases: the others cover the strided stores */
    geo[CONV_NHWC_YS] = ys;
    for (int64_t i = 0; i <= P * ys; i++)
        D[i] = GAP_FLOAT;
    conv_nhwc_pack_f32(geo, Wt, WP);
    conv_nhwc_f32(geo, geo[CONV_NHWC_XNCHW] ? XC : XN, WP, B, ep, nep, D, WORK);
    check(rows_match(P, c->OC, ys, D, want, 1) && D[P * ys] == GAP_FLOAT, what);
}

/* The strided stores against the dense bits: with no epilogue, a Relu and a Clip (the tiles'
 * stores), Swish and HardSwish (conv_epilogue_f32 on each position's run). */
static void run_strided_epilogues(const ConvCase *c, const int64_t *geo, int64_t total)
{
    struct ConvEpilogue ep[6];
    epilogue_setup(total, REF, RES, ep);
    char what[200];
    snprintf(what, sizeof what, "conv_nhwc_f32 %s R=%d%s, y rows %d apart: the dense bits", c->name,
             (int)geo[CONV_NHWC_R], geo[CONV_NHWC_XNCHW] ? " NCHW x" : "", (int)(c->OC + GAP));
    run_strided(c, geo, NULL, 0, REF, what);
    relu_f32(total, REF, E);
    clip_f32(total, -0.5f, 0.75f, E, E);
    run_strided(c, geo, ep + 1, 2, E, what);
    swish_f32(total, 0.75f, REF, E);
    hard_swish_f32(total, E, E);
    run_strided(c, geo, ep + 4, 2, E, what);
}

static void run_case(const ConvCase *c)
{
    int64_t geo[CONV_NHWC_NGEO];
    case_geo(c, 1, geo);
    const int64_t OH = geo[CONV_NHWC_OH], OW = geo[CONV_NHWC_OW], P = OH * OW;
    const int64_t total = c->N * c->OC * P;
    for (int64_t i = 0; i < c->N * c->C * c->H * c->W; i++)
        XC[i] = rnd();
    to_nhwc(c->N, c->C, c->H * c->W, XC, XN);
    for (int64_t i = 0; i < c->OC * (c->C / c->groups) * c->KH * c->KW; i++)
        Wt[i] = rnd();
    for (int64_t i = 0; i < c->OC; i++)
        B[i] = rnd();
    conv_nchw_ref(c, geo, REF);
    conv_nhwc_direct(c, geo, 1, D);
    char what[200];
    snprintf(what, sizeof what, "direct NHWC loop %s = NCHW im2col + gemm", c->name);
    check(same_bits(D, REF, total, 0), what);
    /* band rows: none (the tiles read x), one, two, what conv_nhwc_rows picks for a small and
     * a large budget, all */
    const int pointwise = c->KH == 1 && c->KW == 1 && c->pt == 0 && c->pl == 0;
    check(pointwise ? conv_nhwc_rows(geo, 1 << 20) == 0
                    : conv_nhwc_rows(geo, conv_nhwc_plane_floats(geo, 1) - 1) == 0 &&
                          conv_nhwc_rows(geo, conv_nhwc_plane_floats(geo, 1)) == 1,
          "conv_nhwc_rows gives no plane to 1x1 convs and where one row does not fit, else at "
          "least one row");
    geo[CONV_NHWC_XNCHW] = 1;
    check(conv_nhwc_rows(geo, 0) == 1 && conv_nhwc_rows(geo, 1 << 20) >= 1,
          "conv_nhwc_rows gives an NCHW x a plane of at least one row");
    const int64_t rows[6] = {0, 1, 2, conv_nhwc_rows(geo, 4096), conv_nhwc_rows(geo, 1 << 20), OH};
    for (int i = 0; i < 12; i++) {
        const int nchw = i >= 6; /* the same bands once more on the NCHW x (a plane: R >= 1) */
        if (nchw && rows[i - 6] == 0)
            continue;
        case_geo(c, rows[i % 6] < OH ? rows[i % 6] : OH, geo);
        geo[CONV_NHWC_XNCHW] = nchw;
        check(geo[CONV_NHWC_R] > 0 || conv_nhwc_work_floats(geo) == 0,
              "no band plane takes no work memory");
        run_kernel(c, geo, B, NULL, 0, D);
        snprintf(what, sizeof what, "conv_nhwc_f32 %s (OH=%d OW=%d R=%d%s) = NCHW im2col + gemm",
                 c->name, (int)OH, (int)OW, (int)geo[CONV_NHWC_R], nchw ? ", NCHW x" : "");
        check(same_bits(D, REF, total, 0), what);
    }
    /* no bias: y = acc, not acc + 0.0f (which would turn -0.0f into +0.0f) */
    for (int64_t i = 0; i < c->OC; i++)
        B[i] = -0.0f;
    conv_nchw_ref(c, geo, REF);
    run_kernel(c, geo, NULL, NULL, 0, D);
    snprintf(what, sizeof what, "conv_nhwc_f32 %s without bias = NCHW with a -0.0f bias", c->name);
    check(same_bits(D, REF, total, 0), what);
    for (int64_t i = 0; i < c->OC; i++)
        B[i] = rnd();
    conv_nchw_ref(c, geo, REF);
    run_epilogues(c, geo, total);
    run_strided_epilogues(c, geo, total);
    geo[CONV_NHWC_XNCHW] = 1;
    run_epilogues(c, geo, total);
    run_strided_epilogues(c, geo, total);
    case_geo(c, 0, geo);
    run_epilogues(c, geo, total);
    run_strided_epilogues(c, geo, total);
}

static const ConvCase cases[] = {
    /* name, N, C, H, W, OC, groups, KH, KW, sh, sw, pt, pl, pb, pr, dh, dw */
    {"3x3 valid", 1, 3, 5, 5, 4, 1, 3, 3, 1, 1, 0, 0, 0, 0, 1, 1},
    {"3x3 pad 1", 1, 3, 6, 7, 4, 1, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
    {"stride 2 asym pad", 1, 2, 7, 8, 3, 1, 3, 3, 2, 2, 1, 0, 0, 1, 1, 1},
    {"dilation 2 pad 2", 1, 2, 9, 9, 3, 1, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2},
    {"dilation (2,3) stride (1,2)", 1, 3, 10, 12, 2, 1, 2, 3, 1, 2, 1, 3, 0, 2, 2, 3},
    {"groups 2", 1, 4, 6, 6, 6, 2, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
    {"groups 3, 33 channels each", 1, 9, 5, 6, 99, 3, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
    {"one input channel", 1, 1, 9, 9, 40, 1, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
    {"1-D", 1, 3, 1, 20, 4, 1, 1, 5, 1, 3, 0, 2, 0, 2, 1, 2},
    {"1-D batch 2 groups 3", 2, 6, 1, 16, 3, 3, 1, 3, 1, 1, 0, 1, 0, 1, 1, 1},
    {"1x1", 1, 8, 5, 5, 4, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1},
    {"1x1 stride 2", 1, 16, 9, 10, 40, 1, 1, 1, 2, 2, 0, 0, 0, 0, 1, 1},
    {"kernel larger than input", 1, 2, 2, 2, 3, 1, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
    {"taps entirely in padding", 1, 2, 4, 4, 2, 1, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3},
    {"batch 2", 2, 3, 6, 5, 4, 1, 3, 2, 1, 1, 1, 0, 1, 0, 1, 1},
    {"non-square 7x3 kernel 1x3", 1, 2, 7, 3, 3, 1, 1, 3, 2, 1, 0, 1, 1, 1, 1, 1},
    {"many channels", 1, 64, 4, 4, 8, 1, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
    {"5x5 stride 3 big pad", 1, 3, 11, 9, 2, 1, 5, 5, 3, 3, 4, 4, 4, 4, 1, 1},
    {"7x7 stride 2, 3 channels (ResNet conv1)", 1, 3, 30, 29, 40, 1, 7, 7, 2, 2, 3, 3, 3, 3, 1, 1},
    {"3x3 32->64 wide rows", 1, 32, 9, 31, 64, 1, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
    {"3x3 stride 2 48->72, 2 images", 2, 48, 10, 11, 72, 1, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1},
    {"3x3 96->32 7x7", 1, 96, 7, 7, 32, 1, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
    {"3x3 256->128 7x7 (1.2 MB of weights)", 1, 256, 7, 7, 128, 1, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
    {"3x3 stride 2 24->40 13x13, 7x7 out (a partial block), 2 images", 2, 24, 13, 13, 40, 1, 3, 3,
     2, 2, 1, 1, 1, 1, 1, 1},
    {"3x3 16->16 8x8", 1, 16, 8, 8, 16, 1, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
    {"3x3 16->16 16x32, 2 images", 2, 16, 16, 32, 16, 1, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
    {"1-D 16 wide, 12 channels", 1, 12, 1, 18, 12, 1, 1, 3, 1, 1, 0, 0, 0, 0, 1, 1},
    {"dilation 2 stride 2, 8 channels", 1, 8, 11, 12, 36, 1, 3, 3, 2, 2, 2, 1, 2, 2, 2, 2},
    {"dilation (3,2) stride (2,3), 12 channels", 1, 12, 13, 14, 20, 1, 3, 3, 2, 3, 3, 2, 3, 3, 3,
     2},
    {"3x3 250->20 5x6 (edge taps in runs of 64, 64, 64, 58 channels)", 1, 250, 5, 6, 20, 1, 3, 3, 1,
     1, 1, 1, 1, 1, 1, 1},
    {"3x3 96->40 4x20 (edge rows by rows)", 1, 96, 4, 20, 40, 1, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
    {"3x3 8->12 5x31 (16-position tiles, the last one partial)", 1, 8, 5, 31, 12, 1, 3, 3, 1, 1, 1,
     1, 1, 1, 1, 1},
    /* a row's last positions as tiles of their own (conv_nhwc_split), else a last tile that
     * starts at OW - J (conv_nhwc_tile_start) */
    {"3x3 24->40 5x13 (a row's 13 as 13 with AVX-512, else 8 + 5; a partial block)", 1, 24, 5, 13,
     40, 1, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
    {"3x3 24->64 4x26 (rows of 14 + 7 + 5)", 1, 24, 4, 26, 64, 1, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
    {"3x3 24->32 3x10 (rows of 5 + 5)", 1, 24, 3, 10, 32, 1, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
    {"3x3 3->32 4x27 (27 steps: rows of 14 + 13 as 14 and 14 from position 13)", 1, 3, 4, 27, 32, 1,
     3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
    {"groups 2, 16->16 each, 16 wide (16-position tiles, no plane: on the stack)", 1, 32, 4, 16, 32,
     2, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
    {"3x3 16->16 5x48 (16-position edge tiles: a plane row over the stack's)", 1, 16, 5, 48, 16, 1,
     3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
    {"groups 2, 16->16 each, 48 wide (16-position edge tiles)", 1, 32, 4, 48, 32, 2, 3, 3, 1, 1, 1,
     1, 1, 1, 1, 1},
    /* weights over 1 MiB: blocks outer, the reduction in chunks of 128 steps over groups of 8
     * tiles (conv_nhwc_chunked_band_f32); a last chunk of 72 and 96 steps, a partial block */
    {"3x3 200->150 12x20 dilation (1,2) (chunked, tap by tap)", 1, 200, 12, 20, 150, 1, 3, 3, 1, 1,
     1, 2, 1, 2, 1, 2},
    {"3x3 stride 2 160->200 15x15, 2 images (chunked, kernel rows)", 2, 160, 15, 15, 200, 1, 3, 3,
     2, 2, 1, 1, 1, 1, 1, 1},
    /* chunked row pairs (conv_nhwc_tile7r2_f32) whose last pair's second row has a kernel row
     * in the bottom padding: that row's chunk runs as a tile of the first row alone */
    {"3x3 256->128 8x7 (chunked row pairs, one row of a pair in the padding)", 1, 256, 8, 7, 128, 1,
     3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
};

/* inf and NaN weights, on taps that are padding for some outputs: channel 3 has an inf weight
 * on its top-left tap, which makes NaN (fmaf(inf, 0.0f, acc)) of exactly the outputs in the
 * first row or column, as in NCHW, and +-inf of the others; channel 7 a NaN weight, channel 10
 * a -inf one on its bottom-right tap. */
static void test_special_weights(void)
{
    const ConvCase c = {"inf/NaN weights", 1, 5, 6, 6, 35, 1, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1};
    int64_t geo[CONV_NHWC_NGEO];
    case_geo(&c, 2, geo);
    const int64_t OH = geo[CONV_NHWC_OH], OW = geo[CONV_NHWC_OW], total = c.OC * OH * OW;
    for (int64_t i = 0; i < c.C * c.H * c.W; i++)
        XC[i] = rnd();
    to_nhwc(1, c.C, c.H * c.W, XC, XN);
    for (int64_t i = 0; i < c.OC * c.C * 9; i++)
        Wt[i] = rnd();
    Wt[(3 * c.C + 1) * 9 + 0] = INFINITY;
    Wt[(7 * c.C + 2) * 9 + 4] = NAN;
    Wt[(10 * c.C + 4) * 9 + 8] = -INFINITY;
    for (int64_t i = 0; i < c.OC; i++)
        B[i] = rnd();
    conv_nchw_ref(&c, geo, REF);
    run_kernel(&c, geo, B, NULL, 0, D);
    int64_t nan3 = 0, inf3 = 0;
    for (int64_t p = 0; p < OH * OW; p++) {
        nan3 += isnan(D[p * c.OC + 3]) != 0;
        inf3 += isinf(D[p * c.OC + 3]) != 0;
    }
    check(nan3 == OH + OW - 1 && inf3 == OH * OW - nan3,
          "an inf weight on a padded tap gives NaN exactly where the tap is padding");
    check(same_bits(D, REF, total, 0), "conv_nhwc_f32 with inf/NaN weights = NCHW im2col + gemm");
    case_geo(&c, 0, geo);
    run_kernel(&c, geo, B, NULL, 0, D);
    check(same_bits(D, REF, total, 0),
          "conv_nhwc_f32 without a band plane, inf/NaN weights = NCHW im2col + gemm");
    case_geo(&c, 1, geo);
    geo[CONV_NHWC_XNCHW] = 1;
    run_kernel(&c, geo, B, NULL, 0, D);
    check(same_bits(D, REF, total, 0),
          "conv_nhwc_f32 on an NCHW x, inf/NaN weights = NCHW im2col + gemm");
}

/* Kernel rows in the padding, which the tiles skip (templates/conv_nhwc.c, "Kernel rows in
 * the padding"): x of 1e-30 and weights of -1e-30 on every kernel row but the last make sums
 * that underflow to -0.0f; the last row's weights are -0.5 for the even output channels and
 * +0.5 for the odd ones, so that where that row reads the bottom padding its fmaf(w, 0.0f,
 * -0.0f) leaves -0.0f in the even channels and makes +0.0f of the odd ones. The kernel must
 * give those signs (the tail it adds for the skipped rows), without a bias, in every band size
 * (a stack plane for the 2-group case) and through the chunked band (256 -> 128 in row pairs,
 * 200 -> 150 and 160 -> 200). */
static void test_padding_rows(void)
{
    static const int which[] = {1, 3, 19, 21, 22, 24, 25, 36, 39, 40, 41};
    for (size_t k = 0; k < sizeof which / sizeof which[0]; k++) {
        const ConvCase *c = &cases[which[k]];
        int64_t geo[CONV_NHWC_NGEO];
        case_geo(c, 1, geo);
        const int64_t OH = geo[CONV_NHWC_OH], OW = geo[CONV_NHWC_OW];
        const int64_t total = c->N * c->OC * OH * OW, Cg = c->C / c->groups;
        for (int64_t i = 0; i < c->N * c->C * c->H * c->W; i++)
            XC[i] = 1e-30f;
        to_nhwc(c->N, c->C, c->H * c->W, XC, XN);
        for (int64_t oc = 0; oc < c->OC; oc++)
            for (int64_t t = 0; t < Cg * c->KH * c->KW; t++)
                Wt[oc * Cg * c->KH * c->KW + t] = t % (c->KH * c->KW) / c->KW < c->KH - 1 ? -1e-30f
                                                  : oc % 2                                ? 0.5f
                                                                                          : -0.5f;
        for (int64_t i = 0; i < c->OC; i++)
            B[i] = -0.0f;
        conv_nchw_ref(c, geo, REF);
        int64_t neg = 0, pos = 0;
        for (int64_t i = 0; i < total; i++) {
            neg += REF[i] == 0.0f && signbit(REF[i]);
            pos += REF[i] == 0.0f && !signbit(REF[i]);
        }
        char what[200];
        snprintf(what, sizeof what, "%s: the bottom padding gives -0.0f and +0.0f sums", c->name);
        check(neg > 0 && pos > 0, what);
        const int64_t rows[4] = {0, 1, 2, OH};
        for (int i = 0; i < 4; i++) {
            case_geo(c, rows[i], geo);
            run_kernel(c, geo, NULL, NULL, 0, D);
            snprintf(what, sizeof what,
                     "conv_nhwc_f32 %s R=%d, sums of -0.0f before the bottom padding: the bits of "
                     "NCHW im2col + gemm",
                     c->name, (int)rows[i]);
            check(same_bits(D, REF, total, 0), what);
        }
    }
}

/* ---- conv_pointwise_nhwc_f32: 1x1 convs as products by row blocks ---- */

/* Stand-ins for the generated code's libxsmm products of a fixed row count: the plain loop,
 * k ascending with fmaf from +0.0f, over pw_rows[0] (full blocks) or pw_rows[1] (the tail)
 * rows; pw_calls counts the calls. */
static int64_t pw_rows[2], pw_N, pw_K, pw_ldy, pw_calls[2];

static void pw_plain(int which, const float *w, const float *x, float *y)
{
    pw_calls[which]++;
    for (int64_t i = 0; i < pw_rows[which]; i++)
        for (int64_t j = 0; j < pw_N; j++) {
            float acc = 0.0f;
            for (int64_t k = 0; k < pw_K; k++)
                acc = fmaf(x[i * pw_K + k], w[k * pw_N + j], acc);
            y[i * pw_ldy + j] = acc;
        }
}

static void pw_full(const float *w, const float *x, float *y)
{
    pw_plain(0, w, x, y);
}

static void pw_tail(const float *w, const float *x, float *y)
{
    pw_plain(1, w, x, y);
}

/* conv_pointwise_nhwc_f32 on c (a 1x1 conv, unit strides, no padding) into D, with the
 * guard after the output: the portable product (kernels NULL) or the stand-ins. */
static void run_pointwise(const ConvCase *c, int64_t rb, int kernels, const float *bias,
                          const struct ConvEpilogue *ep, int nep)
{
    const int64_t M = c->N * c->H * c->W, total = M * c->OC;
    pw_rows[0] = rb;
    pw_rows[1] = M % rb;
    pw_N = pw_ldy = c->OC;
    pw_K = c->C;
    pw_calls[0] = pw_calls[1] = 0;
    D[total] = 4242.0f;
    conv_pointwise_nhwc_f32(M, c->OC, c->C, rb, kernels ? pw_full : NULL,
                            kernels && M % rb ? pw_tail : NULL, XN, WP, bias, ep, nep, D);
    check(D[total] == 4242.0f, "conv_pointwise_nhwc_f32 stays inside its output");
    check(!kernels || (pw_calls[0] == M / rb && pw_calls[1] == (M % rb != 0)),
          "conv_pointwise_nhwc_f32 calls the full kernel per full block, the tail one once");
}

/* conv_pointwise_nhwc_ldy_f32 into rows GAP floats wider than N (a Concat's channels), blocks
 * of rb rows, the portable product and the stand-ins (which write rows pw_ldy apart, as the
 * generated code's libxsmm products with ldc): the dense bits of REF, with no epilogue, then
 * Relu, Clip, Swish and HardSwish, the gaps untouched. */
static void test_pointwise_strided(const ConvCase *c, int64_t rb, const struct ConvEpilogue *ep)
{
    const int64_t M = c->N * c->H * c->W, total = M * c->OC, ldy = c->OC + GAP;
    if (M * ldy >= MAXE)
        return;
    relu_f32(total, REF, E);
    clip_f32(total, -0.5f, 0.75f, E, E);
    swish_f32(total, 0.75f, E, E);
    hard_swish_f32(total, E, E);
    const struct ConvEpilogue eps[4] = {ep[1], ep[2], ep[4], ep[5]};
    char what[200];
    for (int k = 0; k < 2; k++)
        for (int nep = 0; nep <= 4; nep += 4) {
            pw_rows[0] = rb;
            pw_rows[1] = M % rb;
            pw_N = c->OC;
            pw_ldy = ldy;
            pw_K = c->C;
            for (int64_t i = 0; i <= M * ldy; i++)
                D[i] = GAP_FLOAT;
            conv_pointwise_nhwc_ldy_f32(M, c->OC, c->C, rb, k ? pw_full : NULL,
                                        k && M % rb ? pw_tail : NULL, XN, WP, B, nep ? eps : NULL,
                                        nep, D, ldy);
            snprintf(what, sizeof what,
                     "conv_pointwise_nhwc_ldy_f32 %s rb=%d%s, %d epilogues, rows %d apart: the "
                     "dense bits, the gaps untouched",
                     c->name, (int)rb, k ? " (kernels)" : "", nep, (int)ldy);
            check(rows_match(M, c->OC, ldy, D, nep ? E : REF, 1) && D[M * ldy] == GAP_FLOAT, what);
        }
}

/* Against the NCHW im2col + gemm + bias of conv.c, then the epilogues as passes, for block
 * sizes of one row, of sizes that leave a tail, conv_pointwise_nhwc_rows' and all M, with
 * the portable product and with the kernel stand-ins; without bias y = acc. */
static void test_pointwise_case(const ConvCase *c)
{
    int64_t geo[CONV_NHWC_NGEO];
    case_geo(c, 0, geo);
    const int64_t M = c->N * c->H * c->W, total = M * c->OC;
    check(total < MAXE && c->C * c->OC < 4 * MAXE, "the case fits the test's buffers");
    for (int64_t i = 0; i < M * c->C; i++)
        XC[i] = rnd();
    to_nhwc(c->N, c->C, c->H * c->W, XC, XN);
    for (int64_t i = 0; i < c->OC * c->C; i++)
        Wt[i] = rnd();
    for (int64_t oc = 0; oc < c->OC; oc++)
        for (int64_t ic = 0; ic < c->C; ic++)
            WP[ic * c->OC + oc] = Wt[oc * c->C + ic];
    for (int64_t i = 0; i < c->OC; i++)
        B[i] = -0.0f;
    conv_nchw_ref(c, geo, REF);
    char what[200];
    const int64_t blocks[5] = {1, 7, 24, conv_pointwise_nhwc_rows(M, c->OC, c->C), M};
    for (int k = 0; k < 2; k++) {
        run_pointwise(c, blocks[3], k, NULL, NULL, 0);
        snprintf(what, sizeof what, "conv_pointwise_nhwc_f32 %s%s without bias = NCHW with -0.0f",
                 c->name, k ? " (kernels)" : "");
        check(same_bits(D, REF, total, 0), what);
    }
    for (int64_t i = 0; i < c->OC; i++)
        B[i] = rnd();
    conv_nchw_ref(c, geo, REF);
    struct ConvEpilogue ep[6];
    epilogue_setup(total, REF, RES, ep);
    test_pointwise_strided(c, blocks[3], ep);
    for (int b = 0; b < 5; b++)
        for (int k = 0; k < 2; k++) {
            run_pointwise(c, blocks[b] < M ? blocks[b] : M, k, B, NULL, 0);
            snprintf(what, sizeof what, "conv_pointwise_nhwc_f32 %s rb=%d%s = NCHW im2col + gemm",
                     c->name, (int)blocks[b], k ? " (kernels)" : "");
            check(same_bits(D, REF, total, 0), what);
            for (int e = 0; e < EPILOGUE_COUNTS; e++) {
                const int nep = epilogue_counts[e];
                epilogue_passes(total, nep, REF, RES, E);
                run_pointwise(c, blocks[b] < M ? blocks[b] : M, k, B, ep, nep);
                snprintf(what, sizeof what,
                         "conv_pointwise_nhwc_f32 %s rb=%d%s, %d epilogues: bits of conv + passes",
                         c->name, (int)blocks[b], k ? " (kernels)" : "", nep);
                check(same_bits(D, E, total, nep == 6), what);
            }
        }
}

/* The blocks: at most M rows, a divisor of M or a multiple of 8, a block's x and y rows within
 * the budget or the weight's floats unless that is under 64 rows. */
static void test_pointwise_rows(void)
{
    static const int64_t shapes[][3] = {{12544, 16, 32}, {12544, 96, 16},    {3136, 144, 24},
                                        {196, 672, 112}, {49, 1152, 192},    {1, 8, 8},
                                        {997, 40, 200},  {5000, 1000, 1000}, {169, 1000, 512}};
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        const int64_t M = shapes[i][0], N = shapes[i][1], K = shapes[i][2];
        const int64_t rb = conv_pointwise_nhwc_rows(M, N, K);
        check(rb >= 1 && rb <= M && (M % rb == 0 || rb % 8 == 0) &&
                  (rb * (N + K) <= CONV_PW_BLOCK_FLOATS || rb * (N + K) <= K * N || rb <= 64),
              "conv_pointwise_nhwc_rows: a divisor of M or a multiple of 8, within the budget");
    }
}

static void test_pointwise(void)
{
    static const ConvCase pw[] = {
        /* name, N, C, H, W, OC, groups, KH, KW, sh, sw, pt, pl, pb, pr, dh, dw */
        {"1x1 8->4 5x5", 1, 8, 5, 5, 4, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1},
        {"1x1 24->40 13x11, 2 images", 2, 24, 13, 11, 40, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1},
        {"1x1 16->96 28x28 (blocks)", 1, 16, 28, 28, 96, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1},
        {"1x1 300->70 7x9 (k past 256)", 1, 300, 7, 9, 70, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1},
        {"1x1 3->1 1x1", 1, 3, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1},
    };
    for (size_t i = 0; i < sizeof pw / sizeof pw[0]; i++)
        test_pointwise_case(&pw[i]);
    test_pointwise_rows();
}

/* The direct loop with the channels outer differs from the documented order: the comparisons
 * above can fail. */
static void test_sensitivity(void)
{
    const ConvCase *c = &cases[16]; /* many channels */
    int64_t geo[CONV_NHWC_NGEO];
    case_geo(c, 1, geo);
    for (int64_t i = 0; i < c->C * c->H * c->W; i++)
        XC[i] = rnd();
    to_nhwc(1, c->C, c->H * c->W, XC, XN);
    for (int64_t i = 0; i < c->OC * c->C * 9; i++)
        Wt[i] = rnd();
    conv_nchw_ref(c, geo, REF);
    conv_nhwc_direct(c, geo, 0, D);
    check(!same_bits(D, REF, c->OC * 16, 0), "channels-outer order gives other bits");
}

int main(void)
{
    (void)gemm_epilogue_f32; /* gemm.c is included for gemm_f32 only */
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        run_case(&cases[i]);
    test_special_weights();
    test_padding_rows();
    test_pointwise();
    test_sensitivity();
    printf("%d passed, %d failed\n", n_passed, n_failed);
    return n_failed != 0;
}
