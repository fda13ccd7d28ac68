/* pool.c — MaxPool, AveragePool, GlobalAveragePool.
 *
 * Layout: x [NC][H][W] -> y [NC][OH][OW] (NC = batch*channels; 1-D pooling is H = KH = OH = 1
 * with stride_h = dil_h = 1, pad_t = pad_b = 0). Output (oh, ow) looks at the window taps
 *     ih = oh*stride_h - pad_t + kh*dil_h,   iw = ow*stride_w - pad_l + kw*dil_w,
 * 0 <= kh < KH, 0 <= kw < KW. OH and OW come from the compiler (floor or ceil_mode); with
 * ceil_mode the last window may run past the padded extent [-pad_t, H+pad_b) x
 * [-pad_l, W+pad_r), and those taps count as neither input nor padding (as in the onnx
 * reference and onnxruntime).
 *
 * Numerics: sums are plain float additions from +0.0f in ascending tap order (kh, then kw),
 * then one division by the count; nothing is contracted (gcc: ISO mode; clang: the pragma).
 *
 * Part of the templates: the compiler pastes this text into the generated C file and also
 * links it to fold constants. It includes only standard headers and defines every function
 * with O2C_KERNEL, which the includer sets (generated code: static; compiler: empty).
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

/* Max over the window's taps that fall inside the image; padding never wins. Comparisons
 * are x > max, so NaN inputs are skipped (like the onnx reference, which drops NaNs from
 * the window); a window with no input tap at all gives -INFINITY. pad_b and pad_r are
 * accepted for symmetry with avgpool_f32 and not needed. */
O2C_KERNEL void maxpool_f32(int64_t NC, int64_t H, int64_t W, int64_t OH, int64_t OW, int64_t KH,
                            int64_t KW, int64_t stride_h, int64_t stride_w, int64_t pad_t,
                            int64_t pad_l, int64_t pad_b, int64_t pad_r, int64_t dil_h,
                            int64_t dil_w, const float *x, float *y)
{
    (void)pad_b;
    (void)pad_r;
    for (int64_t c = 0; c < NC; c++) {
        const float *xc = x + c * H * W; /* [H][W] */
        float *yc = y + c * OH * OW;     /* [OH][OW] */
        for (int64_t oh = 0; oh < OH; oh++) {
            for (int64_t ow = 0; ow < OW; ow++) {
                float m = -INFINITY;
                for (int64_t kh = 0; kh < KH; kh++) {
                    const int64_t ih = oh * stride_h - pad_t + kh * dil_h;
                    if (ih < 0 || ih >= H)
                        continue;
                    for (int64_t kw = 0; kw < KW; kw++) {
                        const int64_t iw = ow * stride_w - pad_l + kw * dil_w;
                        if (iw >= 0 && iw < W && xc[ih * W + iw] > m)
                            m = xc[ih * W + iw];
                    }
                }
                yc[oh * OW + ow] = m;
            }
        }
    }
}

/* ONNX AveragePool: sum of the window's input taps / count, where count is
 *   count_include_pad != 0: the taps inside the padded extent [-pad_t, H+pad_b) x
 *                           [-pad_l, W+pad_r) (padding counts as zeros, taps past it
 *                           from ceil_mode do not count);
 *   count_include_pad == 0: the taps inside the image only.
 * A window with a count of 0 gives 0/0 = NaN. */
O2C_KERNEL void avgpool_f32(int64_t NC, int64_t H, int64_t W, int64_t OH, int64_t OW, int64_t KH,
                            int64_t KW, int64_t stride_h, int64_t stride_w, int64_t pad_t,
                            int64_t pad_l, int64_t pad_b, int64_t pad_r, int64_t dil_h,
                            int64_t dil_w, int count_include_pad, const float *x, float *y)
{
    for (int64_t c = 0; c < NC; c++) {
        const float *xc = x + c * H * W; /* [H][W] */
        float *yc = y + c * OH * OW;     /* [OH][OW] */
        for (int64_t oh = 0; oh < OH; oh++) {
            for (int64_t ow = 0; ow < OW; ow++) {
                float s = 0.0f;
                int64_t n_in = 0, n_padded = 0; /* taps in the image / in the padded extent */
                for (int64_t kh = 0; kh < KH; kh++) {
                    const int64_t ih = oh * stride_h - pad_t + kh * dil_h;
                    const int h_in = ih >= 0 && ih < H;
                    const int h_padded = ih >= -pad_t && ih < H + pad_b;
                    for (int64_t kw = 0; kw < KW; kw++) {
                        const int64_t iw = ow * stride_w - pad_l + kw * dil_w;
                        const int w_in = iw >= 0 && iw < W;
                        const int w_padded = iw >= -pad_l && iw < W + pad_r;
                        if (h_in && w_in) {
                            s = s + xc[ih * W + iw];
                            n_in++;
                        }
                        if (h_padded && w_padded)
                            n_padded++;
                    }
                }
                yc[oh * OW + ow] = s / (float)(count_include_pad ? n_padded : n_in);
            }
        }
    }
}

/* y[c] = (x[c][0] + x[c][1] + ... + x[c][HW-1]) / HW, summed from +0.0f in order.
 *   x [NC][HW], y [NC]. */
O2C_KERNEL void global_avgpool_f32(int64_t NC, int64_t HW, const float *x, float *y)
{
    for (int64_t c = 0; c < NC; c++) {
        const float *xc = x + c * HW;
        float s = 0.0f;
        for (int64_t p = 0; p < HW; p++)
            s = s + xc[p];
        y[c] = s / (float)HW;
    }
}
