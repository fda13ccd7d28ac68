/* pool_nhwc.c — MaxPool, AveragePool and GlobalAveragePool (2-D and 1-D) on channels-last
 * tensors: x [N][H][W][C] -> y [N][OH][OW][C]; the geometry is depthwise_nhwc.c's array
 * geo[NHWC_GEO_LEN] (1-D: H = KH = OH = 1, stride_h = dil_h = 1, pad_t = pad_b = 0).
 *
 * Numerics: the bits of pool.c's NCHW kernels, element by element: the same window taps
 * (kh, then kw, ascending), the same rules for taps in the padding and past it (ceil_mode),
 * sums as plain float additions from +0.0f in tap order and one division by the count, max as
 * x > max from -INFINITY (NaNs skipped). Only the loop over channels moves inside, where it is
 * contiguous and vectorises; each channel's own chain of operations is unchanged. So the layout
 * never changes a result. GlobalAveragePool (and ReduceMean over H and W, which reduce.c
 * computes with the same sum and division) is global_avgpool_nhwc_f32.
 *
 * Part of the templates: the compiler pastes this text into the generated C file (after
 * depthwise_nhwc.c) and also links it to fold constants. It includes only standard headers
 * (and kernels.h where it is compiled alone) and defines every function with O2C_KERNEL, which
 * the includer sets (generated code: static; compiler: empty).
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

/* The geometry array's NHWC_GEO_* indices are depthwise_nhwc.c's: the generated file pastes it
 * first (the pool ops list "depthwise_nhwc pool_nhwc"); the compiler's own build of this file
 * alone takes them from kernels.h, which declares the same under the same guard. */
#ifndef O2C_NHWC_GEO
#include "kernels.h"
#endif

/* MaxPool as maxpool_f32: the max over the window's taps inside the image (x > max, from
 * -INFINITY: NaNs skipped, a window without input taps gives -INFINITY).
 *   geo [NHWC_GEO_LEN], x [N][H][W][C], y [N][OH][OW][C] (not x) */
O2C_KERNEL void maxpool_nhwc_f32(const int64_t *geo, const float *x, float *y)
{
    const int64_t N = geo[NHWC_GEO_N], H = geo[NHWC_GEO_H], W = geo[NHWC_GEO_W];
    const int64_t C = geo[NHWC_GEO_C], OH = geo[NHWC_GEO_OH], OW = geo[NHWC_GEO_OW];
    const int64_t KH = geo[NHWC_GEO_KH], KW = geo[NHWC_GEO_KW];
    const int64_t SH = geo[NHWC_GEO_SH], SW = geo[NHWC_GEO_SW];
    const int64_t PT = geo[NHWC_GEO_PT], PL = geo[NHWC_GEO_PL];
    const int64_t DH = geo[NHWC_GEO_DH], DW = geo[NHWC_GEO_DW];
    for (int64_t n = 0; n < N; n++)
        for (int64_t oh = 0; oh < OH; oh++)
            for (int64_t ow = 0; ow < OW; ow++) {
                float *restrict yp = y + ((n * OH + oh) * OW + ow) * C; /* [C] */
                for (int64_t c = 0; c < C; c++)
                    yp[c] = -INFINITY;
                for (int64_t kh = 0; kh < KH; kh++) {
                    const int64_t ih = oh * SH - PT + kh * DH;
                    if (ih < 0 || ih >= H)
                        continue;
                    for (int64_t kw = 0; kw < KW; kw++) {
                        const int64_t iw = ow * SW - PL + kw * DW;
                        if (iw < 0 || iw >= W)
                            continue;
                        const float *restrict xp = x + ((n * H + ih) * W + iw) * C;
                        for (int64_t c = 0; c < C; c++)
                            yp[c] = xp[c] > yp[c] ? xp[c] : yp[c];
                    }
                }
            }
}

/* AveragePool as avgpool_f32: the sum of the window's input taps from +0.0f in tap order,
 * divided by the count (count_include_pad != 0: the taps inside the padded extent
 * [-PT, H+PB) x [-PL, W+PR); else the taps inside the image; a count of 0 gives NaN).
 *   geo [NHWC_GEO_LEN], x [N][H][W][C], y [N][OH][OW][C] (not x) */
O2C_KERNEL void avgpool_nhwc_f32(const int64_t *geo, int count_include_pad, const float *x,
                                 float *y)
{
    const int64_t N = geo[NHWC_GEO_N], H = geo[NHWC_GEO_H], W = geo[NHWC_GEO_W];
    const int64_t C = geo[NHWC_GEO_C], OH = geo[NHWC_GEO_OH], OW = geo[NHWC_GEO_OW];
    const int64_t KH = geo[NHWC_GEO_KH], KW = geo[NHWC_GEO_KW];
    const int64_t SH = geo[NHWC_GEO_SH], SW = geo[NHWC_GEO_SW];
    const int64_t PT = geo[NHWC_GEO_PT], PL = geo[NHWC_GEO_PL];
    const int64_t PB = geo[NHWC_GEO_PB], PR = geo[NHWC_GEO_PR];
    const int64_t DH = geo[NHWC_GEO_DH], DW = geo[NHWC_GEO_DW];
    for (int64_t n = 0; n < N; n++)
        for (int64_t oh = 0; oh < OH; oh++)
            for (int64_t ow = 0; ow < OW; ow++) {
                float *restrict yp = y + ((n * OH + oh) * OW + ow) * C; /* [C] */
                int64_t n_in = 0, n_padded = 0; /* taps in the image / in the padded extent */
                for (int64_t c = 0; c < C; c++)
                    yp[c] = 0.0f;
                for (int64_t kh = 0; kh < KH; kh++) {
                    const int64_t ih = oh * SH - PT + kh * DH;
                    const int h_in = ih >= 0 && ih < H, h_padded = ih >= -PT && ih < H + PB;
                    for (int64_t kw = 0; kw < KW; kw++) {
                        const int64_t iw = ow * SW - PL + kw * DW;
                        const int w_in = iw >= 0 && iw < W, w_padded = iw >= -PL && iw < W + PR;
                        n_padded += h_padded && w_padded;
                        if (!h_in || !w_in)
                            continue;
                        n_in++;
                        const float *restrict xp = x + ((n * H + ih) * W + iw) * C;
                        for (int64_t c = 0; c < C; c++)
                            yp[c] = yp[c] + xp[c];
                    }
                }
                const float count = (float)(count_include_pad ? n_padded : n_in);
                for (int64_t c = 0; c < C; c++)
                    yp[c] = yp[c] / count;
            }
}

/* GlobalAveragePool as global_avgpool_f32 (and ReduceMean over H, W as reduce_mean_f32):
 * y[n][c] = (x[n][0][c] + x[n][1][c] + ... + x[n][HW-1][c]) / HW, summed from +0.0f in order.
 *   x [N][HW][C], y [N][C] (not x; the same memory as [N][1][1][C] and [N][C][1][1]) */
O2C_KERNEL void global_avgpool_nhwc_f32(int64_t N, int64_t HW, int64_t C, const float *x, float *y)
{
    for (int64_t n = 0; n < N; n++) {
        float *restrict yn = y + n * C;
        for (int64_t c = 0; c < C; c++)
            yn[c] = 0.0f;
        for (int64_t p = 0; p < HW; p++) {
            const float *restrict xp = x + (n * HW + p) * C;
            for (int64_t c = 0; c < C; c++)
                yn[c] = yn[c] + xp[c];
        }
        for (int64_t c = 0; c < C; c++)
            yn[c] = yn[c] / (float)HW;
    }
}
