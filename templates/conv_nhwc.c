/* conv_nhwc.c — float 2-D (and 1-D) convolution in the channels-last layout.
 *
 * Layout. x [N][H][W][C] with C = G*Cg, y [N][OH][OW][OC] with OC = G*OCg; the weight comes in
 * the ONNX layout [OC][Cg][KH][KW] and is packed once (conv_nhwc_pack_f32, at compile time
 * when it is constant). 1-D is H = KH = OH = 1 (stride_h = dil_h = 1, pad_t = 0). Any kernel
 * size, stride, dilation, padding and group count; depthwise convs (Cg == 1) have their own
 * kernels (depthwise_nhwc.c), 1x1 stride-1 convs are products (gemm.c).
 *
 * Bits. Each output is the sum of conv.c, in conv.c's order: k = (kh*KW + kw)*Cg + ic
 * ascending, acc = fmaf(w, x, acc) from +0.0f, padded taps included (they contribute
 * fmaf(w, 0.0f, acc)), then y = acc + bias[oc] (no bias: y = acc), then the epilogues. So the
 * layout never changes a result: NHWC and NCHW give the same bits.
 *
 * Geometry. geo[CONV_NHWC_NGEO], indexed by the CONV_NHWC_* enum below (kernels.h declares the
 * same): sizes, kernel, strides, leading pads (the trailing ones are implied by OH, OW),
 * dilations, and R, the output rows per band, which conv_nhwc_rows picks for a work budget.
 *
 * Epilogues. struct ConvEpilogue and conv_epilogue_f32 of conv.c (which the generated file
 * pastes before this one, with elementwise.c and math.c: an op that runs this kernel lists the
 * templates "conv conv_nhwc elementwise math"). An Add's other operand r has y's NHWC shape:
 * element `at` of r is element `at` of y.
 *
 * Part of the templates: the compiler pastes this text into the generated C file and also
 * links it to fold constants. It includes only standard headers and defines every function
 * with O2C_KERNEL, which the includer sets (generated code: static; compiler: empty).
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifndef O2C_KERNEL
#define O2C_KERNEL static
#endif

#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

#ifndef ONNX2C_KERNELS_H
enum {
    CONV_NHWC_N,   /* images */
    CONV_NHWC_H,   /* input rows */
    CONV_NHWC_W,   /* input columns */
    CONV_NHWC_C,   /* input channels, G*Cg */
    CONV_NHWC_G,   /* groups */
    CONV_NHWC_OCG, /* output channels per group */
    CONV_NHWC_KH,
    CONV_NHWC_KW,
    CONV_NHWC_OH,
    CONV_NHWC_OW,
    CONV_NHWC_SH, /* strides */
    CONV_NHWC_SW,
    CONV_NHWC_PT, /* leading pads: top, left */
    CONV_NHWC_PL,
    CONV_NHWC_DH, /* dilations */
    CONV_NHWC_DW,
    CONV_NHWC_R, /* output rows per band: conv_nhwc_rows */
    CONV_NHWC_NGEO
};
#endif

/* From conv.c, which the generated file pastes before this one. */
struct ConvEpilogue;
O2C_KERNEL void conv_epilogue_f32(const struct ConvEpilogue *ep, int nep, int64_t at, int64_t len,
                                  float *yr);

/* Output channels per block of the packed weight. */
#define CONV_NHWC_OB 32

/* Floats of the packed weight: [G][NB][KH*KW][Cg][CONV_NHWC_OB], NB = ceil(OCg/OB). */
O2C_KERNEL int64_t conv_nhwc_packed_floats(const int64_t *geo)
{
    const int64_t G = geo[CONV_NHWC_G], OCg = geo[CONV_NHWC_OCG];
    const int64_t Cg = geo[CONV_NHWC_C] / G, taps = geo[CONV_NHWC_KH] * geo[CONV_NHWC_KW];
    return G * ((OCg + CONV_NHWC_OB - 1) / CONV_NHWC_OB) * taps * Cg * CONV_NHWC_OB;
}

/* The ONNX weight w [G*OCg][Cg][KH][KW] in blocks of OB output channels:
 * wp[g][b][t][ic][o] = w[g*OCg + b*OB + o][ic][t] (t = kh*KW + kw), 0.0f for the missing
 * channels of a group's last block, so that a (tap, channel) step reads its OB weights
 * contiguously. wp [conv_nhwc_packed_floats(geo)]. */
O2C_KERNEL void conv_nhwc_pack_f32(const int64_t *geo, const float *w, float *wp)
{
    const int64_t G = geo[CONV_NHWC_G], OCg = geo[CONV_NHWC_OCG], Cg = geo[CONV_NHWC_C] / G;
    const int64_t taps = geo[CONV_NHWC_KH] * geo[CONV_NHWC_KW];
    const int64_t NB = (OCg + CONV_NHWC_OB - 1) / CONV_NHWC_OB;
    for (int64_t g = 0; g < G; g++)
        for (int64_t b = 0; b < NB; b++)
            for (int64_t t = 0; t < taps; t++)
                for (int64_t ic = 0; ic < Cg; ic++)
                    for (int64_t o = 0; o < CONV_NHWC_OB; o++) {
                        const int64_t ocg = b * CONV_NHWC_OB + o;
                        float v = 0.0f;
                        if (ocg < OCg)
                            v = w[((g * OCg + ocg) * Cg + ic) * taps + t];
                        wp[(((g * NB + b) * taps + t) * Cg + ic) * CONV_NHWC_OB + o] = v;
                    }
}

/* Output rows per band for a work memory of at most max_floats: what to store in
 * geo[CONV_NHWC_R] (at least 1; the other entries of geo must be set). */
O2C_KERNEL int64_t conv_nhwc_rows(const int64_t *geo, int64_t max_floats)
{
    (void)geo;
    (void)max_floats;
    return 1;
}

/* Floats of conv_nhwc_f32's work memory (0: work may be NULL). */
O2C_KERNEL int64_t conv_nhwc_work_floats(const int64_t *geo)
{
    (void)geo;
    return 0;
}

/* The convolution (see the top of the file for the layouts, the order and the geometry):
 *   x [N][H][W][G*Cg], wp from conv_nhwc_pack_f32, bias [G*OCg] or NULL, ep [nep] or NULL,
 *   y [N][OH][OW][G*OCg] (must not overlap x or an epilogue's operand),
 *   work [conv_nhwc_work_floats(geo)]. */
O2C_KERNEL void conv_nhwc_f32(const int64_t *geo, const float *x, const float *wp,
                              const float *bias, const struct ConvEpilogue *ep, int nep, float *y,
                              float *work)
{
    const int64_t N = geo[CONV_NHWC_N], H = geo[CONV_NHWC_H], W = geo[CONV_NHWC_W];
    const int64_t C = geo[CONV_NHWC_C], G = geo[CONV_NHWC_G], OCg = geo[CONV_NHWC_OCG];
    const int64_t KH = geo[CONV_NHWC_KH], KW = geo[CONV_NHWC_KW];
    const int64_t OH = geo[CONV_NHWC_OH], OW = geo[CONV_NHWC_OW];
    const int64_t sh = geo[CONV_NHWC_SH], sw = geo[CONV_NHWC_SW];
    const int64_t pt = geo[CONV_NHWC_PT], pl = geo[CONV_NHWC_PL];
    const int64_t dh = geo[CONV_NHWC_DH], dw = geo[CONV_NHWC_DW];
    const int64_t Cg = C / G, OC = G * OCg, taps = KH * KW;
    const int64_t NB = (OCg + CONV_NHWC_OB - 1) / CONV_NHWC_OB;
    (void)work;
    for (int64_t n = 0; n < N; n++)
        for (int64_t oh = 0; oh < OH; oh++)
            for (int64_t ow = 0; ow < OW; ow++) {
                const int64_t at = ((n * OH + oh) * OW + ow) * OC; /* this position's channels */
                for (int64_t oc = 0; oc < OC; oc++) {
                    const int64_t g = oc / OCg, ocg = oc % OCg;
                    const float *wb = wp +
                                      (g * NB + ocg / CONV_NHWC_OB) * taps * Cg * CONV_NHWC_OB +
                                      ocg % CONV_NHWC_OB;
                    float acc = 0.0f;
                    for (int64_t kh = 0; kh < KH; kh++)
                        for (int64_t kw = 0; kw < KW; kw++) {
                            const int64_t ih = oh * sh - pt + kh * dh, iw = ow * sw - pl + kw * dw;
                            const int inside = ih >= 0 && ih < H && iw >= 0 && iw < W;
                            const float *xp =
                                inside ? x + ((n * H + ih) * W + iw) * C + g * Cg : NULL;
                            const float *wt = wb + (kh * KW + kw) * Cg * CONV_NHWC_OB;
                            for (int64_t ic = 0; ic < Cg; ic++)
                                acc = fmaf(wt[ic * CONV_NHWC_OB], inside ? xp[ic] : 0.0f, acc);
                        }
                    y[at + oc] = bias ? acc + bias[oc] : acc;
                }
                if (nep)
                    conv_epilogue_f32(ep, nep, at, OC, y + at);
            }
}
