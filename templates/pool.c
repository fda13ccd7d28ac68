/* pool.c — MaxPool, AveragePool, GlobalAveragePool (2-D kernels); N-d MaxPool (with Indices,
 * float, uint8, int8), AveragePool and LpPool; GlobalMaxPool; MaxUnpool.
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

/* y[c] = (x[c][0] + x[c][1] + ... + x[c][HW-1]) / HW, summed from +0.0f in order.
 *   x [NC][HW], y [NC].
 * One channel's sum is a chain of dependent additions (latency-bound: 4 cycles each), so
 * POOL_L channels are summed side by side, each still in ascending p: the same bits,
 * POOL_L independent chains. */
enum { POOL_L = 16 };
O2C_KERNEL void global_avgpool_f32(int64_t NC, int64_t HW, const float *x, float *y)
{
    for (int64_t c0 = 0; c0 < NC; c0 += POOL_L) {
        if (NC - c0 < POOL_L) { /* the last channels, one chain each */
            for (int64_t c = c0; c < NC; c++) {
                float s = 0.0f;
                for (int64_t p = 0; p < HW; p++)
                    s = s + x[c * HW + p];
                y[c] = s / (float)HW;
            }
            break;
        }
        float s[POOL_L];
        for (int l = 0; l < POOL_L; l++)
            s[l] = 0.0f;
        for (int64_t p = 0; p < HW; p++)
            for (int l = 0; l < POOL_L; l++)
                s[l] = s[l] + x[(c0 + l) * HW + p];
        for (int l = 0; l < POOL_L; l++)
            y[c0 + l] = s[l] / (float)HW;
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
    /* a window that is exactly the image (DS-CNN's 25x5 pool): the taps in order are the
     * image in order and the count is H*W either way, so global_avgpool_f32 gives the bits */
    if (OH == 1 && OW == 1 && KH == H && KW == W && !pad_t && !pad_l && !pad_b && !pad_r &&
        (KH == 1 || dil_h == 1) && (KW == 1 || dil_w == 1)) {
        global_avgpool_f32(NC, H * W, x, y);
        return;
    }
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

/* ---- N-d pooling (1-D, 2-D, 3-D as 3-D with leading sizes 1) ----
 * x [NC][D][H][W] -> y [NC][OD][OH][OW]; in = {D, H, W}, out = {OD, OH, OW},
 * k = {KD, KH, KW}, stride, dil [3]; pad [6] = {begin d, h, w, end d, h, w}. Output
 * (od, oh, ow) looks at the taps id = od*stride[0] - pad[0] + kd*dil[0] (same for h, w),
 * visited in row-major tap order (kd, then kh, then kw); the same rules as the 2-D kernels
 * above (which give the same bits for 1-D and 2-D). */

/* 1 when the tap t of output o lies in the image; *off = its offset in x's channel. */
O2C_KERNEL int pool_tap_nd(const int64_t *in, const int64_t *k, const int64_t *stride,
                           const int64_t *pad, const int64_t *dil, const int64_t *o, int64_t t,
                           int64_t *pos, int *padded)
{
    const int64_t tap[3] = {t / (k[1] * k[2]), t / k[2] % k[1], t % k[2]};
    int inside = 1, in_pad = 1;
    for (int i = 0; i < 3; i++) {
        pos[i] = o[i] * stride[i] - pad[i] + tap[i] * dil[i];
        inside = inside && pos[i] >= 0 && pos[i] < in[i];
        in_pad = in_pad && pos[i] >= -pad[i] && pos[i] < in[i] + pad[3 + i];
    }
    *padded = in_pad;
    return inside;
}

/* MaxPool with the optional Indices output (NULL when not wanted): the index of the first
 * maximum (x > max, so NaNs are skipped) in the whole input tensor flattened, row-major
 * ((c*D + id)*H + ih)*W + iw with c over NC, or with storage_order 1 (2-D only) the
 * column-major spatial index c*H*W + iw*H + ih. A window without input taps gives -INFINITY
 * and index -1. */
O2C_KERNEL void maxpool_nd_f32(int64_t NC, const int64_t *in, const int64_t *out, const int64_t *k,
                               const int64_t *stride, const int64_t *pad, const int64_t *dil,
                               int storage_order, const float *x, float *y, int64_t *indices)
{
    const int64_t isz = in[0] * in[1] * in[2], osz = out[0] * out[1] * out[2];
    const int64_t ksz = k[0] * k[1] * k[2];
    for (int64_t c = 0; c < NC; c++) {
        const float *xc = x + c * isz;
        for (int64_t p = 0; p < osz; p++) {
            const int64_t o[3] = {p / (out[1] * out[2]), p / out[2] % out[1], p % out[2]};
            float m = -INFINITY;
            int64_t best = -1;
            for (int64_t t = 0; t < ksz; t++) {
                int64_t pos[3];
                int padded;
                if (!pool_tap_nd(in, k, stride, pad, dil, o, t, pos, &padded))
                    continue;
                const int64_t off = (pos[0] * in[1] + pos[1]) * in[2] + pos[2];
                if (xc[off] > m) {
                    m = xc[off];
                    best = storage_order ? (pos[2] * in[1] + pos[1]) * in[0] + pos[0] : off;
                }
            }
            y[c * osz + p] = m;
            if (indices)
                indices[c * osz + p] = best < 0 ? -1 : c * isz + best;
        }
    }
}

/* maxpool_nd_f32 for uint8 and int8 (MaxPool-12): x > max from the type's minimum, so a
 * window without input taps gives 0 (uint8) or -128 (int8) and index -1. */
O2C_KERNEL void maxpool_nd_u8(int64_t NC, const int64_t *in, const int64_t *out, const int64_t *k,
                              const int64_t *stride, const int64_t *pad, const int64_t *dil,
                              int storage_order, const uint8_t *x, uint8_t *y, int64_t *indices)
{
    const int64_t isz = in[0] * in[1] * in[2], osz = out[0] * out[1] * out[2];
    const int64_t ksz = k[0] * k[1] * k[2];
    for (int64_t c = 0; c < NC; c++) {
        const uint8_t *xc = x + c * isz;
        for (int64_t p = 0; p < osz; p++) {
            const int64_t o[3] = {p / (out[1] * out[2]), p / out[2] % out[1], p % out[2]};
            uint8_t m = 0;
            int64_t best = -1;
            for (int64_t t = 0; t < ksz; t++) {
                int64_t pos[3];
                int padded;
                if (!pool_tap_nd(in, k, stride, pad, dil, o, t, pos, &padded))
                    continue;
                const int64_t off = (pos[0] * in[1] + pos[1]) * in[2] + pos[2];
                if (best < 0 || xc[off] > m) {
                    m = xc[off];
                    best = storage_order ? (pos[2] * in[1] + pos[1]) * in[0] + pos[0] : off;
                }
            }
            y[c * osz + p] = m;
            if (indices)
                indices[c * osz + p] = best < 0 ? -1 : c * isz + best;
        }
    }
}

O2C_KERNEL void maxpool_nd_i8(int64_t NC, const int64_t *in, const int64_t *out, const int64_t *k,
                              const int64_t *stride, const int64_t *pad, const int64_t *dil,
                              int storage_order, const int8_t *x, int8_t *y, int64_t *indices)
{
    const int64_t isz = in[0] * in[1] * in[2], osz = out[0] * out[1] * out[2];
    const int64_t ksz = k[0] * k[1] * k[2];
    for (int64_t c = 0; c < NC; c++) {
        const int8_t *xc = x + c * isz;
        for (int64_t p = 0; p < osz; p++) {
            const int64_t o[3] = {p / (out[1] * out[2]), p / out[2] % out[1], p % out[2]};
            int8_t m = -128;
            int64_t best = -1;
            for (int64_t t = 0; t < ksz; t++) {
                int64_t pos[3];
                int padded;
                if (!pool_tap_nd(in, k, stride, pad, dil, o, t, pos, &padded))
                    continue;
                const int64_t off = (pos[0] * in[1] + pos[1]) * in[2] + pos[2];
                if (best < 0 || xc[off] > m) {
                    m = xc[off];
                    best = storage_order ? (pos[2] * in[1] + pos[1]) * in[0] + pos[0] : off;
                }
            }
            y[c * osz + p] = m;
            if (indices)
                indices[c * osz + p] = best < 0 ? -1 : c * isz + best;
        }
    }
}

/* AveragePool (count_include_pad as avgpool_f32) and LpPool (lp = p > 0, count ignored):
 *   avg: s = sum of input taps from +0.0f in tap order, y = s / count
 *   lp:  s = sum of |x|^p (x*x for p = 2, |x| for p = 1, else powf) over the input taps
 *        (padding contributes 0), y = sqrtf(s) for p = 2, s for p = 1, else powf(s, 1/p). */
O2C_KERNEL void avgpool_nd_f32(int64_t NC, const int64_t *in, const int64_t *out, const int64_t *k,
                               const int64_t *stride, const int64_t *pad, const int64_t *dil,
                               int count_include_pad, int64_t lp, const float *x, float *y)
{
    const int64_t isz = in[0] * in[1] * in[2], osz = out[0] * out[1] * out[2];
    const int64_t ksz = k[0] * k[1] * k[2];
    for (int64_t c = 0; c < NC; c++) {
        const float *xc = x + c * isz;
        for (int64_t p = 0; p < osz; p++) {
            const int64_t o[3] = {p / (out[1] * out[2]), p / out[2] % out[1], p % out[2]};
            float s = 0.0f;
            int64_t n_in = 0, n_padded = 0;
            for (int64_t t = 0; t < ksz; t++) {
                int64_t pos[3];
                int padded;
                const int inside = pool_tap_nd(in, k, stride, pad, dil, o, t, pos, &padded);
                n_padded += padded;
                if (!inside)
                    continue;
                const float v = xc[(pos[0] * in[1] + pos[1]) * in[2] + pos[2]];
                n_in++;
                if (lp == 0)
                    s = s + v;
                else if (lp == 1)
                    s = s + fabsf(v);
                else if (lp == 2)
                    s = s + v * v;
                else
                    s = s + powf(fabsf(v), (float)lp);
            }
            float r;
            if (lp == 0)
                r = s / (float)(count_include_pad ? n_padded : n_in);
            else if (lp == 1)
                r = s;
            else if (lp == 2)
                r = sqrtf(s);
            else
                r = powf(s, 1.0f / (float)lp);
            y[c * osz + p] = r;
        }
    }
}

/* y[c] = max over x[c][0..HW-1] (x > max: NaNs skipped; -INFINITY when all are NaN).
 *   x [NC][HW], y [NC]. */
O2C_KERNEL void global_maxpool_f32(int64_t NC, int64_t HW, const float *x, float *y)
{
    for (int64_t c = 0; c < NC; c++) {
        float m = -INFINITY;
        for (int64_t p = 0; p < HW; p++)
            if (x[c * HW + p] > m)
                m = x[c * HW + p];
        y[c] = m;
    }
}

/* MaxUnpool: y = 0, then x[i] goes to the element that indices[i] names in the unpooled
 * shape `in_dims` (a later duplicate wins; indices outside it are ignored). An output_shape
 * larger than that shape pads at the end of each dim (as the ONNX reference does), so the
 * index is re-laid out in `out_dims`.   x, indices [nx], y [prod(out_dims)]. */
O2C_KERNEL void maxunpool_f32(int64_t nx, const float *x, const int64_t *indices, int rank,
                              const int64_t *in_dims, const int64_t *out_dims, float *y)
{
    int64_t nin = 1, ny = 1;
    for (int d = 0; d < rank; d++) {
        nin *= in_dims[d];
        ny *= out_dims[d];
    }
    for (int64_t i = 0; i < ny; i++)
        y[i] = 0.0f;
    for (int64_t i = 0; i < nx; i++) {
        int64_t rest = indices[i], at = 0, stride = 1;
        if (rest < 0 || rest >= nin)
            continue;
        for (int d = rank - 1; d >= 0; d--) {
            at += rest % in_dims[d] * stride;
            rest /= in_dims[d];
            stride *= out_dims[d];
        }
        y[at] = x[i];
    }
}
