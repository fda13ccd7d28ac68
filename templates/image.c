/* image.c — sampling and box ops: GridSample, AffineGrid, Col2Im, CenterCropPad, RoiAlign,
 * DeformConv, NonMaxSuppression.
 *
 * Numerics: interpolations sum their taps from +0.0f in ascending tap order, innermost
 * spatial dim first (as the ONNX reference nests its 1-D interpolations); products that are
 * reductions (AffineGrid, DeformConv) accumulate with fmaf from zero in ascending k. Every
 * other expression is evaluated in the order written; nothing is contracted (gcc: ISO mode;
 * clang: the pragma).
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

/* Spatial rank limit of GridSample (MAX_RANK 8 less N and C). */
#define O2C_GS_MAX_RANK 6

/* Reflects x into [lo, hi] off the nearer border until it lands inside (in double, as the
 * ONNX reference does with its float64 borders). */
O2C_KERNEL double gridsample_reflect(double x, double lo, double hi)
{
    const double rng = hi - lo;
    if (rng <= 0.0)
        return lo;
    if (x < lo) {
        const double dx = lo - x;
        const int64_t n = (int64_t)(dx / rng);
        const double r = dx - (double)n * rng;
        return n % 2 == 0 ? lo + r : hi - r;
    }
    if (x > hi) {
        const double dx = x - hi;
        const int64_t n = (int64_t)(dx / rng);
        const double r = dx - (double)n * rng;
        return n % 2 == 0 ? hi - r : lo + r;
    }
    return x;
}

/* Keys cubic convolution coefficients (alpha -0.75) of the 4 taps around fraction t. */
O2C_KERNEL void gridsample_cubic_coeffs(float t, float *c)
{
    const float a = -0.75f, x = fabsf(t), x1 = x + 1.0f, y = 1.0f - x, y1 = 2.0f - x;
    c[0] = ((a * x1 - 5.0f * a) * x1 + 8.0f * a) * x1 - 4.0f * a;
    c[1] = ((a + 2.0f) * x - (a + 3.0f)) * x * x + 1.0f;
    c[2] = ((a + 2.0f) * y - (a + 3.0f)) * y * y + 1.0f;
    c[3] = ((a * y1 - 5.0f * a) * y1 + 8.0f * a) * y1 - 4.0f * a;
}

/* Input index of integer tap i along a dim of size len: -1 for a zero (padding 0), clamped
 * (padding 1, border) or reflected (padding 2). */
O2C_KERNEL int64_t gridsample_tap(int64_t i, int64_t len, int padding, int align_corners)
{
    if (i >= 0 && i < len)
        return i;
    if (padding == 0)
        return -1;
    if (padding == 1)
        return i < 0 ? 0 : len - 1;
    const double lo = align_corners ? 0.0 : -0.5;
    const double hi = align_corners ? (double)len - 1.0 : (double)len - 0.5;
    const int64_t r = (int64_t)gridsample_reflect((double)i, lo, hi);
    return r < 0 ? 0 : r >= len ? len - 1 : r;
}

/* Sum over the taps of dims d..r-1: idx[d][t] input index (-1: zero), w[d][t] weight. */
O2C_KERNEL float gridsample_sum(int r, int d, int ntaps, const int64_t (*idx)[4],
                                const float (*w)[4], const int64_t *stride, const float *x)
{
    float s = 0.0f;
    if (d >= O2C_GS_MAX_RANK) /* never: r <= O2C_GS_MAX_RANK; bounds recursion for gcc */
        return s;
    for (int t = 0; t < ntaps; t++) {
        if (idx[d][t] < 0)
            continue;
        const float *p = x + idx[d][t] * stride[d];
        const float v = d == r - 1 ? *p : gridsample_sum(r, d + 1, ntaps, idx, w, stride, p);
        s = s + w[d][t] * v;
    }
    return s;
}

/* GridSample: x [N][C][in_dims...] (r spatial dims, r <= 6), grid [N][P][r] with component
 * j the coordinate of spatial dim r-1-j in [-1, 1], y [N][C][P].
 * mode 0 linear, 1 nearest (round half to even), 2 cubic; padding 0 zeros, 1 border,
 * 2 reflection. Coordinates as the ONNX reference: denormalise, then move points outside
 * the border range in (clamp or reflect), then interpolate with per-tap padding. */
O2C_KERNEL void gridsample_f32(int64_t N, int64_t C, int r, const int64_t *in_dims, int64_t P,
                               int mode, int padding, int align_corners, const float *x,
                               const float *grid, float *y)
{
    int64_t stride[O2C_GS_MAX_RANK], in_size = 1;
    for (int d = r - 1; d >= 0; d--) {
        stride[d] = in_size;
        in_size *= in_dims[d];
    }
    const int ntaps = mode == 0 ? 2 : mode == 1 ? 1 : 4;
    for (int64_t n = 0; n < N; n++)
        for (int64_t p = 0; p < P; p++) {
            int64_t idx[O2C_GS_MAX_RANK][4];
            float w[O2C_GS_MAX_RANK][4];
            for (int d = 0; d < r; d++) {
                const float g = grid[(n * P + p) * r + (r - 1 - d)];
                const float len = (float)in_dims[d];
                float c = align_corners ? (g + 1.0f) / 2.0f * (len - 1.0f)
                                        : ((g + 1.0f) * len - 1.0f) / 2.0f;
                if (mode == 1)
                    c = rintf(c);
                const float lo = align_corners ? 0.0f : -0.5f;
                const float hi = align_corners ? len - 1.0f : len - 0.5f;
                if ((c < lo || c > hi) && padding == 1)
                    c = c < 0.0f ? 0.0f : c > len - 1.0f ? len - 1.0f : c;
                else if ((c < lo || c > hi) && padding == 2)
                    c = (float)gridsample_reflect((double)c, (double)lo, (double)hi);
                const float f = mode == 1 ? c : floorf(c);
                const int64_t i0 = (int64_t)f;
                const float t = c - f;
                if (mode == 0) {
                    w[d][0] = 1.0f - t;
                    w[d][1] = t;
                } else if (mode == 1) {
                    w[d][0] = 1.0f;
                } else {
                    gridsample_cubic_coeffs(t, w[d]);
                }
                const int64_t first = mode == 2 ? i0 - 1 : i0;
                for (int k = 0; k < ntaps; k++)
                    idx[d][k] = gridsample_tap(first + k, in_dims[d], padding, align_corners);
            }
            for (int64_t ch = 0; ch < C; ch++) {
                const float *xc = x + (n * C + ch) * in_size;
                float v;
                if (mode == 1) {
                    int64_t off = 0;
                    int d = 0;
                    for (; d < r && idx[d][0] >= 0; d++)
                        off += idx[d][0] * stride[d];
                    v = d < r ? 0.0f : xc[off];
                } else {
                    v = gridsample_sum(r, 0, ntaps, (const int64_t(*)[4])idx, (const float(*)[4])w,
                                       stride, xc);
                }
                y[(n * C + ch) * P + p] = v;
            }
        }
}

/* NonMaxSuppression's overlap test of boxes a and b (4 floats each: [y1, x1, y2, x2] with
 * either corner order, or [x_center, y_center, width, height] when center_point_box):
 * true when IoU > iou_threshold. Float arithmetic as the ONNX reference. */
O2C_KERNEL int nms_suppress(const float *a, const float *b, int center_point_box,
                            float iou_threshold)
{
    float amin[2], amax[2], bmin[2], bmax[2]; /* [0] x, [1] y */
    for (int d = 0; d < 2; d++) {
        if (center_point_box) {
            amin[d] = a[d] - a[d + 2] / 2.0f;
            amax[d] = a[d] + a[d + 2] / 2.0f;
            bmin[d] = b[d] - b[d + 2] / 2.0f;
            bmax[d] = b[d] + b[d + 2] / 2.0f;
        } else {
            const int i = 1 - d; /* x is coordinate 1 of [y1, x1, y2, x2] */
            amin[d] = a[i] <= a[i + 2] ? a[i] : a[i + 2];
            amax[d] = a[i] <= a[i + 2] ? a[i + 2] : a[i];
            bmin[d] = b[i] <= b[i + 2] ? b[i] : b[i + 2];
            bmax[d] = b[i] <= b[i + 2] ? b[i + 2] : b[i];
        }
    }
    float ext[2];
    for (int d = 0; d < 2; d++) {
        const float lo = amin[d] > bmin[d] ? amin[d] : bmin[d];
        const float hi = amax[d] < bmax[d] ? amax[d] : bmax[d];
        if (hi <= lo)
            return 0;
        ext[d] = hi - lo;
    }
    const float inter = ext[0] * ext[1];
    const float area_a = (amax[0] - amin[0]) * (amax[1] - amin[1]);
    const float area_b = (bmax[0] - bmin[0]) * (bmax[1] - bmin[1]);
    const float uni = area_a + area_b - inter;
    if (inter <= 0.0f || area_a <= 0.0f || area_b <= 0.0f || uni <= 0.0f)
        return 0;
    return inter / uni > iou_threshold;
}

/* NonMaxSuppression: boxes [B][nbox][4], scores [B][C][nbox]. Per batch and class, boxes
 * (with score > score_threshold when has_score_threshold) are taken by descending score, the
 * lower index first among equal scores, and kept unless one already kept overlaps them
 * (nms_suppress), up to max_per_class. Writes [batch, class, box] triples to out (when not
 * NULL) and returns their number. work: 2*nbox int64 of scratch. */
O2C_KERNEL int64_t nms_i64(int64_t B, int64_t C, int64_t nbox, const float *boxes,
                           const float *scores, int64_t max_per_class, float iou_threshold,
                           int has_score_threshold, float score_threshold, int center_point_box,
                           int64_t *out, int64_t *work)
{
    int64_t total = 0;
    int64_t *order = work, *kept = work + nbox;
    for (int64_t b = 0; b < B; b++)
        for (int64_t c = 0; c < C; c++) {
            const float *s = scores + (b * C + c) * nbox;
            int64_t cand = 0, nkept = 0;
            for (int64_t i = 0; i < nbox; i++) {
                if (has_score_threshold && !(s[i] > score_threshold))
                    continue;
                int64_t j = cand++; /* insertion sort, stable: ties keep index order */
                for (; j > 0 && s[order[j - 1]] < s[i]; j--)
                    order[j] = order[j - 1];
                order[j] = i;
            }
            for (int64_t k = 0; k < cand && nkept < max_per_class; k++) {
                const float *box = boxes + (b * nbox + order[k]) * 4;
                int keep = 1;
                for (int64_t j = 0; j < nkept && keep; j++)
                    keep = !nms_suppress(box, boxes + (b * nbox + kept[j]) * 4, center_point_box,
                                         iou_threshold);
                if (!keep)
                    continue;
                kept[nkept++] = order[k];
                if (out) {
                    out[total * 3] = b;
                    out[total * 3 + 1] = c;
                    out[total * 3 + 2] = order[k];
                }
                total++;
            }
        }
    return total;
}

/* Col2Im: x [N][C * prod(block)][prod(nblocks)] -> y [N][C][image...] (r spatial dims),
 * geo = {image[r], block[r], nblocks[r], strides[r], pads_begin[r], dilations[r]}. Each
 * column element is added to the image pixel its block covers (skipped in the padding), in
 * ascending column order from +0.0f. */
O2C_KERNEL void col2im_f32(int64_t N, int64_t C, int r, const int64_t *geo, const float *x,
                           float *y)
{
    const int64_t *img = geo, *blk = geo + r, *nb = geo + 2 * r, *st = geo + 3 * r,
                  *pad = geo + 4 * r, *dil = geo + 5 * r;
    int64_t img_size = 1, blk_size = 1, L = 1;
    for (int d = 0; d < r; d++) {
        img_size *= img[d];
        blk_size *= blk[d];
        L *= nb[d];
    }
    for (int64_t i = 0; i < N * C * img_size; i++)
        y[i] = 0.0f;
    for (int64_t nc = 0; nc < N * C; nc++)
        for (int64_t k = 0; k < blk_size; k++)
            for (int64_t l = 0; l < L; l++) {
                int64_t off = 0, kr = k, lr = l, scale = 1;
                int inside = 1;
                for (int d = r - 1; d >= 0; d--) {
                    const int64_t kd = kr % blk[d], ld = lr % nb[d];
                    kr /= blk[d];
                    lr /= nb[d];
                    const int64_t p = ld * st[d] - pad[d] + kd * dil[d];
                    inside &= p >= 0 && p < img[d];
                    off += p * scale;
                    scale *= img[d];
                }
                if (inside)
                    y[nc * img_size + off] =
                        y[nc * img_size + off] + x[(nc * blk_size + k) * L + l];
            }
}

/* CenterCropPad on elements of elem_size bytes: geo = {in_dims[rank], out_dims[rank],
 * shift[rank]}; output index o reads input index o + shift per dim (shift > 0 crops, < 0
 * pads), zero bytes where that is outside the input. */
O2C_KERNEL void center_crop_pad_bytes(int rank, const int64_t *geo, int64_t elem_size,
                                      const void *xv, void *yv)
{
    const unsigned char *x = (const unsigned char *)xv;
    unsigned char *y = (unsigned char *)yv;
    const int64_t *in = geo, *out = geo + rank, *shift = geo + 2 * rank;
    int64_t total = 1;
    for (int d = 0; d < rank; d++)
        total *= out[d];
    for (int64_t o = 0; o < total; o++) {
        int64_t rest = o, off = 0, scale = 1;
        int inside = 1;
        for (int d = rank - 1; d >= 0; d--) {
            const int64_t i = rest % out[d] + shift[d];
            rest /= out[d];
            inside &= i >= 0 && i < in[d];
            off += i * scale;
            scale *= in[d];
        }
        for (int64_t b = 0; b < elem_size; b++)
            y[o * elem_size + b] = inside ? x[off * elem_size + b] : 0;
    }
}

/* RoiAlign: x [N][C][H][W], rois [R][4] as (x1, y1, x2, y2), batch [R] (clamped to [0, N)),
 * y [R][C][OH][OW]. Each output bin averages (mode_max 0) or takes the max (1) of a grid of
 * bilinear samples (sampling_ratio per side, or ceil(roi size / bins) when 0); samples more
 * than one pixel outside the map count as 0; corner weights and their order as the ONNX
 * reference (float arithmetic). half_pixel shifts the roi by -0.5 and does not force a
 * minimum roi size of 1. */
O2C_KERNEL void roialign_f32(int64_t N, int64_t C, int64_t H, int64_t W, int64_t R, int64_t OH,
                             int64_t OW, int64_t sampling_ratio, float spatial_scale,
                             int half_pixel, int mode_max, const float *x, const float *rois,
                             const int64_t *batch, float *y)
{
    for (int64_t r = 0; r < R; r++) {
        const float off = half_pixel ? 0.5f : 0.0f;
        const float *roi = rois + r * 4;
        const float sw = roi[0] * spatial_scale - off, sh = roi[1] * spatial_scale - off;
        float rw = roi[2] * spatial_scale - off - sw, rh = roi[3] * spatial_scale - off - sh;
        if (!half_pixel) {
            rw = rw > 1.0f ? rw : 1.0f;
            rh = rh > 1.0f ? rh : 1.0f;
        }
        const float bh = rh / (float)OH, bw = rw / (float)OW;
        const int64_t gh = sampling_ratio > 0 ? sampling_ratio : (int64_t)ceilf(rh / (float)OH);
        const int64_t gw = sampling_ratio > 0 ? sampling_ratio : (int64_t)ceilf(rw / (float)OW);
        const int64_t count = gh * gw > 1 ? gh * gw : 1;
        const int64_t b = batch[r] < 0 ? 0 : batch[r] >= N ? N - 1 : batch[r];
        for (int64_t c = 0; c < C; c++) {
            const float *xc = x + (b * C + c) * H * W;
            for (int64_t ph = 0; ph < OH; ph++)
                for (int64_t pw = 0; pw < OW; pw++) {
                    float acc = 0.0f;
                    for (int64_t iy = 0; iy < gh; iy++)
                        for (int64_t ix = 0; ix < gw; ix++) {
                            float yy = sh + (float)ph * bh + ((float)iy + 0.5f) * bh / (float)gh;
                            float xx = sw + (float)pw * bw + ((float)ix + 0.5f) * bw / (float)gw;
                            float v = 0.0f;
                            if (!(yy < -1.0f || yy > (float)H || xx < -1.0f || xx > (float)W)) {
                                yy = yy > 0.0f ? yy : 0.0f;
                                xx = xx > 0.0f ? xx : 0.0f;
                                int64_t y0 = (int64_t)yy, x0 = (int64_t)xx, y1, x1;
                                if (y0 >= H - 1) {
                                    y1 = y0 = H - 1;
                                    yy = (float)y0;
                                } else {
                                    y1 = y0 + 1;
                                }
                                if (x0 >= W - 1) {
                                    x1 = x0 = W - 1;
                                    xx = (float)x0;
                                } else {
                                    x1 = x0 + 1;
                                }
                                const float ly = yy - (float)y0, lx = xx - (float)x0;
                                const float hy = 1.0f - ly, hx = 1.0f - lx;
                                const float t1 = hy * hx * xc[y0 * W + x0];
                                const float t2 = hy * lx * xc[y0 * W + x1];
                                const float t3 = ly * hx * xc[y1 * W + x0];
                                const float t4 = ly * lx * xc[y1 * W + x1];
                                if (mode_max) {
                                    v = t1 > t2 ? t1 : t2;
                                    v = v > t3 ? v : t3;
                                    v = v > t4 ? v : t4;
                                } else {
                                    v = t1 + t2 + t3 + t4;
                                }
                            }
                            if (!mode_max)
                                acc = acc + v;
                            else if ((iy == 0 && ix == 0) || v > acc)
                                acc = v;
                        }
                    y[((r * C + c) * OH + ph) * OW + pw] = mode_max ? acc : acc / (float)count;
                }
        }
    }
}

/* AffineGrid: theta [N][r][r+1], grid [N][dims...][r] for r = 2 (dims H, W) or 3 (D, H, W).
 * The base point of pixel (.., h, w) is (x_w, y_h, [z_d], 1) with, per dim of size len,
 * c_i = -1 + i * 2/(len-1) (align_corners; -1 when len is 1) or -1 + (i + 1/2) * 2/len;
 * grid = theta x base, summed in double in ascending k and rounded once. */
O2C_KERNEL void affine_grid_f32(int64_t N, int r, const int64_t *dims, int align_corners,
                                const float *theta, float *grid)
{
    int64_t P = 1;
    for (int d = 0; d < r; d++)
        P *= dims[d];
    for (int64_t n = 0; n < N; n++)
        for (int64_t p = 0; p < P; p++) {
            double base[4];
            int64_t rest = p;
            for (int d = r - 1; d >= 0; d--) { /* base[0] is the innermost dim (x) */
                const int64_t i = rest % dims[d], len = dims[d];
                rest /= len;
                double c;
                if (align_corners)
                    c = len > 1 ? -1.0 + (double)i * (2.0 / (double)(len - 1)) : -1.0;
                else
                    c = -1.0 + 1.0 / (double)len + (double)i * (2.0 / (double)len);
                base[r - 1 - d] = c;
            }
            base[r] = 1.0;
            for (int j = 0; j < r; j++) {
                const float *row = theta + (n * r + j) * (r + 1);
                double s = 0.0;
                for (int k = 0; k <= r; k++)
                    s = s + (double)row[k] * base[k];
                grid[(n * P + p) * r + j] = (float)s;
            }
        }
}

/* Bilinear sample of plane x [H][W] at (h, w), zero outside (DeformConv's sampling). */
O2C_KERNEL float deform_sample(int64_t H, int64_t W, const float *x, float h, float w)
{
    const float fh = floorf(h), fw = floorf(w), th = h - fh, tw = w - fw;
    const int64_t h0 = (int64_t)fh, w0 = (int64_t)fw;
    float s = 0.0f;
    for (int64_t i = 0; i < 2; i++) {
        float row = 0.0f;
        for (int64_t j = 0; j < 2; j++) {
            const int64_t hh = h0 + i, ww = w0 + j;
            if (hh >= 0 && hh < H && ww >= 0 && ww < W)
                row = row + (j ? tw : 1.0f - tw) * x[hh * W + ww];
        }
        s = s + (i ? th : 1.0f - th) * row;
    }
    return s;
}

/* DeformConv 2-D: x [N][C][H][W], w [OC][C/group][KH][KW], offset [N][OG*KH*KW*2][OH][OW]
 * ((h, w) per tap of offset group OG), mask [N][OG*KH*KW][OH][OW] (NULL: ones), bias [OC]
 * (NULL: none), y [N][OC][OH][OW]. geo = {group, OG, KH, KW, stride_h, stride_w, pad_t,
 * pad_l, dil_h, dil_w}. Each tap samples its channel bilinearly (deform_sample) at the
 * kernel position plus its offset; y = sum over k = (ic, kh, kw) ascending of
 * fmaf(sample * mask, weight, acc) from 0, then + bias. */
O2C_KERNEL void deform_conv_f32(int64_t N, int64_t C, int64_t H, int64_t W, int64_t OC, int64_t OH,
                                int64_t OW, const int64_t *geo, const float *x, const float *w,
                                const float *offset, const float *mask, const float *bias, float *y)
{
    const int64_t G = geo[0], OG = geo[1], KH = geo[2], KW = geo[3];
    const int64_t Cg = C / G, OCg = OC / G, Cog = C / OG, K2 = KH * KW;
    for (int64_t n = 0; n < N; n++)
        for (int64_t oc = 0; oc < OC; oc++)
            for (int64_t i = 0; i < OH; i++)
                for (int64_t j = 0; j < OW; j++) {
                    float acc = 0.0f;
                    for (int64_t icg = 0; icg < Cg; icg++) {
                        const int64_t ic = (oc / OCg) * Cg + icg, og = ic / Cog;
                        const float *xc = x + (n * C + ic) * H * W;
                        for (int64_t kh = 0; kh < KH; kh++)
                            for (int64_t kw = 0; kw < KW; kw++) {
                                const int64_t tap = og * K2 + kh * KW + kw;
                                const float dh =
                                    offset[((n * OG * K2 * 2 + tap * 2) * OH + i) * OW + j];
                                const float dw =
                                    offset[((n * OG * K2 * 2 + tap * 2 + 1) * OH + i) * OW + j];
                                const float m =
                                    mask ? mask[((n * OG * K2 + tap) * OH + i) * OW + j] : 1.0f;
                                const float ph = (float)(i * geo[4] - geo[6] + kh * geo[8]) + dh;
                                const float pw = (float)(j * geo[5] - geo[7] + kw * geo[9]) + dw;
                                const float v = deform_sample(H, W, xc, ph, pw) * m;
                                acc = fmaf(v, w[((oc * Cg + icg) * KH + kh) * KW + kw], acc);
                            }
                    }
                    y[((n * OC + oc) * OH + i) * OW + j] = bias ? acc + bias[oc] : acc;
                }
}
