/* conv.c — convolution as im2col + gemm_f32 (the compiler emits the calls; this file only
 * rearranges data, it does no product itself).
 *
 * The reduction index. Conv sums over input channel ic (within a group), kernel row kh and
 * kernel column kw. Flattened, with the kernel taps outer and the input channels inner:
 *
 *     k = (kh*KW + kw)*Cg + ic,      K = KH*KW*Cg
 *
 * which is what a batch-reduce GEMM over taps wants. The numerics contract of gemm.c (each
 * output accumulates over k ascending with fmaf from +0.0f) therefore fixes the order of the
 * conv sum too: taps in row-major order, for each tap the channels in order, padded taps
 * included (they contribute fmaf(w, 0.0f, acc)). The bias is added after the whole sum.
 *
 * For one image n and one group g (Cg input channels, OCg = OC/groups output channels):
 *     im2col_f32(C, H, W, g*Cg, Cg, ..., x + n*C*H*W, col)            col  [K][OH*OW]
 *     gemm_f32(OCg, OH*OW, K, w_r + g*OCg*K, K, 1, col, OH*OW, 1,
 *              y + (n*OC + g*OCg)*OH*OW)                              y    [OCg][OH*OW]
 * with w_r = conv_weight_reorder_f32(w) ([OC][K], done at compile time), then
 *     add_channel_bias_f32(N, OC, OH*OW, bias, y).
 * 1-D conv is the 2-D case with H = KH = OH = 1 (stride_h = dil_h = 1, pad_t = 0).
 *
 * Part of the templates: the compiler pastes this text into the generated C file and also
 * links it to fold constants. It includes only standard headers and defines every function
 * with O2C_KERNEL, which the includer sets (generated code: static; compiler: empty).
 */
#include <stddef.h>
#include <stdint.h>

#ifndef O2C_KERNEL
#define O2C_KERNEL static
#endif

#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

/* Unfolds the input patches of one image and one group into columns.
 *   x    [C][H][W], one image; channels c0 .. c0+Cg-1 are used
 *   col  [KH*KW*Cg][OH*OW]: col[k][oh*OW + ow] with k = (kh*KW + kw)*Cg + ic holds
 *        x[c0+ic][oh*stride_h - pad_t + kh*dil_h][ow*stride_w - pad_l + kw*dil_w],
 *        or 0.0f where that position is outside the image (padding).
 * Only the top and left padding matter here; bottom/right padding is implied by OH, OW. */
O2C_KERNEL void im2col_f32(int64_t C, int64_t H, int64_t W, int64_t c0, int64_t Cg, int64_t KH,
                           int64_t KW, int64_t OH, int64_t OW, int64_t stride_h, int64_t stride_w,
                           int64_t pad_t, int64_t pad_l, int64_t dil_h, int64_t dil_w,
                           const float *x, float *col)
{
    (void)C;                   /* the image's channel count only defines x's layout */
    const int64_t P = OH * OW; /* length of a col row */
    for (int64_t kh = 0; kh < KH; kh++) {
        for (int64_t kw = 0; kw < KW; kw++) {
            /* Output columns ow whose input column iw = ow*stride_w + off_w lies in [0, W):
             * ow in [ow_lo, ow_hi). Outside that range the row is padding. */
            const int64_t off_w = kw * dil_w - pad_l;
            int64_t ow_lo = off_w >= 0 ? 0 : (-off_w + stride_w - 1) / stride_w;
            int64_t ow_hi = W - off_w <= 0 ? 0 : (W - off_w + stride_w - 1) / stride_w;
            if (ow_hi > OW)
                ow_hi = OW;
            if (ow_lo > ow_hi)
                ow_lo = ow_hi;
            for (int64_t ic = 0; ic < Cg; ic++) {
                const float *xc = x + (c0 + ic) * H * W; /* channel [H][W] */
                float *dst = col + ((kh * KW + kw) * Cg + ic) * P;
                for (int64_t oh = 0; oh < OH; oh++) {
                    const int64_t ih = oh * stride_h - pad_t + kh * dil_h;
                    float *d = dst + oh * OW; /* [OW] */
                    if (ih < 0 || ih >= H) {
                        for (int64_t ow = 0; ow < OW; ow++)
                            d[ow] = 0.0f;
                        continue;
                    }
                    const float *xr = xc + ih * W; /* input row [W] */
                    for (int64_t ow = 0; ow < ow_lo; ow++)
                        d[ow] = 0.0f;
                    if (stride_w == 1) {
                        for (int64_t ow = ow_lo; ow < ow_hi; ow++)
                            d[ow] = xr[ow + off_w];
                    } else {
                        for (int64_t ow = ow_lo; ow < ow_hi; ow++)
                            d[ow] = xr[ow * stride_w + off_w];
                    }
                    for (int64_t ow = ow_hi; ow < OW; ow++)
                        d[ow] = 0.0f;
                }
            }
        }
    }
}

/* ONNX Conv weight to gemm rows in im2col's k order (used at compile time).
 *   w      [OC][Cg][KH][KW]  (ONNX layout)
 *   w_out  [OC][KH][KW][Cg]  i.e. [OC][K], row oc = the K weights of output channel oc */
O2C_KERNEL void conv_weight_reorder_f32(int64_t OC, int64_t Cg, int64_t KH, int64_t KW,
                                        const float *w, float *w_out)
{
    for (int64_t oc = 0; oc < OC; oc++)
        for (int64_t kh = 0; kh < KH; kh++)
            for (int64_t kw = 0; kw < KW; kw++)
                for (int64_t ic = 0; ic < Cg; ic++)
                    w_out[((oc * KH + kh) * KW + kw) * Cg + ic] =
                        w[((oc * Cg + ic) * KH + kh) * KW + kw];
}

/* y[n][c][p] = y[n][c][p] + bias[c].   y [N][C][HW], bias [C]. */
O2C_KERNEL void add_channel_bias_f32(int64_t N, int64_t C, int64_t HW, const float *bias, float *y)
{
    for (int64_t n = 0; n < N; n++) {
        for (int64_t c = 0; c < C; c++) {
            const float b = bias[c];
            float *yc = y + (n * C + c) * HW; /* [HW] */
            for (int64_t p = 0; p < HW; p++)
                yc[p] = yc[p] + b;
        }
    }
}
