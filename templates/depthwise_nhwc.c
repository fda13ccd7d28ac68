/* depthwise_nhwc.c — depthwise convolution (one input channel per group, multiplier 1) on
 * channels-last tensors.
 *
 * Layout: x [N][H][W][C] -> y [N][OH][OW][C]; weights packed at compile time by
 * depthwise_nhwc_pack_f32 to wp [KH][KW][C] (one tap's C weights contiguous, so a block of
 * channels is one vector load per tap); bias [C] or NULL. 1-D is H = KH = OH = 1 with
 * stride_h = dil_h = 1, pad_t = 0. The geometry is one int64_t array, geo[NHWC_GEO_LEN]
 * (indices below; pool_nhwc.c reads the same array).
 *
 * Numerics: the bits of depthwise_conv_f32 (templates/conv.c), i.e. of im2col + gemm_f32 with
 * Cg == 1: each output element is
 *     acc = +0.0f; for kh ascending, for kw ascending: acc = fmaf(w[c][kh][kw], x_or_0, acc)
 * with the padded taps included (fmaf(w, 0.0f, acc): the same bits for signed zeros, inf and
 * NaN weights), then y = acc + bias[c] (no bias: y = acc, never "+ 0.0f", which would turn
 * -0.0f into +0.0f), then the epilogues ep[0 .. nep-1] (conv.c's conv_epilogue_f32, the ops'
 * own kernels, with an Add's operand r in NHWC order like y). So the layout never changes a
 * result.
 *
 * Part of the templates: the compiler pastes this text into the generated C file (after
 * conv.c, elementwise.c and math.c, whose epilogue code it calls) and also links it to fold
 * constants. It includes only standard headers and defines every function with O2C_KERNEL,
 * which the includer sets (generated code: static; compiler: empty).
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>

#ifndef O2C_KERNEL
#define O2C_KERNEL static
#endif

#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

/* The geometry array of the NHWC window kernels (depthwise_nhwc.c, pool_nhwc.c; kernels.h
 * declares the same under the same guard). Output (oh, ow) at tap (kh, kw) reads input
 *     ih = oh*SH - PT + kh*DH,   iw = ow*SW - PL + kw*DW
 * (a position outside [0, H) x [0, W) is padding). PB and PR, the bottom and right padding,
 * matter only to AveragePool's count_include_pad. */
#ifndef O2C_NHWC_GEO
#define O2C_NHWC_GEO
enum {
    NHWC_GEO_N,
    NHWC_GEO_H,
    NHWC_GEO_W,
    NHWC_GEO_C,
    NHWC_GEO_OH,
    NHWC_GEO_OW,
    NHWC_GEO_KH,
    NHWC_GEO_KW,
    NHWC_GEO_SH,
    NHWC_GEO_SW,
    NHWC_GEO_PT,
    NHWC_GEO_PL,
    NHWC_GEO_PB,
    NHWC_GEO_PR,
    NHWC_GEO_DH,
    NHWC_GEO_DW,
    NHWC_GEO_LEN
};
#endif

/* From conv.c, which the generated file pastes whenever it pastes this one. */
struct ConvEpilogue;
O2C_KERNEL void conv_epilogue_f32(const struct ConvEpilogue *ep, int nep, int64_t at, int64_t len,
                                  float *yr);

/* ONNX depthwise weights to taps outer, channels inner (at compile time when constant).
 *   w   [C][KH][KW]  (the ONNX layout [C][1][KH][KW] as is)
 *   wp  [KH][KW][C]: wp[(kh*KW + kw)*C + c] = w[(c*KH + kh)*KW + kw] */
O2C_KERNEL void depthwise_nhwc_pack_f32(int64_t C, int64_t KH, int64_t KW, const float *w,
                                        float *wp)
{
    for (int64_t t = 0; t < KH * KW; t++)
        for (int64_t c = 0; c < C; c++)
            wp[t * C + c] = w[c * KH * KW + t];
}

/* Depthwise convolution, channels last (see the top of the file for layouts and bits).
 *   geo [NHWC_GEO_LEN], x [N][H][W][C], wp [KH][KW][C] (depthwise_nhwc_pack_f32), bias [C] or
 *   NULL, ep [nep] (NULL when nep is 0), y [N][OH][OW][C] (not x). */
O2C_KERNEL void depthwise_nhwc_f32(const int64_t *geo, const float *x, const float *wp,
                                   const float *bias, const struct ConvEpilogue *ep, int nep,
                                   float *y)
{
    const int64_t N = geo[NHWC_GEO_N], H = geo[NHWC_GEO_H], W = geo[NHWC_GEO_W];
    const int64_t C = geo[NHWC_GEO_C], OH = geo[NHWC_GEO_OH], OW = geo[NHWC_GEO_OW];
    const int64_t KH = geo[NHWC_GEO_KH], KW = geo[NHWC_GEO_KW];
    const int64_t SH = geo[NHWC_GEO_SH], SW = geo[NHWC_GEO_SW];
    const int64_t PT = geo[NHWC_GEO_PT], PL = geo[NHWC_GEO_PL];
    const int64_t DH = geo[NHWC_GEO_DH], DW = geo[NHWC_GEO_DW];
    for (int64_t n = 0; n < N; n++)
        for (int64_t oh = 0; oh < OH; oh++) {
            const int64_t row = (n * OH + oh) * OW * C; /* output row [OW][C] */
            for (int64_t ow = 0; ow < OW; ow++)
                for (int64_t c = 0; c < C; c++) {
                    float acc = 0.0f;
                    for (int64_t kh = 0; kh < KH; kh++) {
                        const int64_t ih = oh * SH - PT + kh * DH;
                        for (int64_t kw = 0; kw < KW; kw++) {
                            const int64_t iw = ow * SW - PL + kw * DW;
                            const int inside = ih >= 0 && ih < H && iw >= 0 && iw < W;
                            const float xv = inside ? x[((n * H + ih) * W + iw) * C + c] : 0.0f;
                            acc = fmaf(wp[(kh * KW + kw) * C + c], xv, acc);
                        }
                    }
                    y[row + ow * C + c] = bias ? acc + bias[c] : acc;
                }
            conv_epilogue_f32(ep, nep, row, OW * C, y + row);
        }
}
