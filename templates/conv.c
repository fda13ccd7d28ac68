/* conv.c — convolution kernels.
 *
 * The reduction index. Conv sums over input channel ic (within a group), kernel row kh and
 * kernel column kw. Flattened, with the kernel taps outer and the input channels inner:
 *
 *     k = (kh*KW + kw)*Cg + ic,      K = KH*KW*Cg      (3-D: taps (kd, kh, kw) row-major)
 *
 * which is what a batch-reduce GEMM over taps wants. The numerics contract of gemm.c (each
 * output accumulates over k ascending with fmaf from +0.0f) therefore fixes the order of the
 * conv sum too: taps in row-major order, for each tap the channels in order, padded taps
 * included (they contribute fmaf(w, 0.0f, acc)). The bias is added after the whole sum.
 *
 * The generated code computes that sum without an im2col copy:
 *   conv_f32            any kernel, stride, dilation, groups, 1-D/2-D/3-D: register tiles of
 *                       CONV_OB output channels x CONV_T output columns, over the input rows
 *                       of one output row gathered zero-padded (a few KB of work memory);
 *   conv_band_f32       2-D and 1-D: tiles of CONV_OB output channels x 32 positions over a band
 *                       of output rows flattened (rows padded to the kernel's reach), so narrow
 *                       outputs fill whole tiles; the input band is copied zero-padded;
 *   conv_pointwise_f32  1x1, unit strides, no padding: conv_band_f32's tiles on the input itself;
 *                       or, on short rows, tiles of 32 output channels x 7, 8 or 14 positions
 *                       of one output row over the same plane (no dropped columns);
 *   depthwise_conv_f32  one input channel per group (1-D and 2-D): a flat grid per channel.
 * Their weights are packed by conv_weight_pack_f32 (at compile time when constant).
 * im2col_f32 / im2col_3d_f32 + gemm_f32 (with conv_weight_reorder_f32's [OC][K] weights) is
 * the plain formulation of the same order; the unit test checks every kernel against it.
 * 1-D conv is the 2-D case with H = KH = OH = 1 (stride_h = dil_h = 1, pad_t = 0).
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

/* 3-D im2col: x [C][D][H][W], one image; col [KD*KH*KW*Cg][OD*OH*OW] with
 *     k = ((kd*KH + kh)*KW + kw)*Cg + ic
 * (taps outer in row-major order, channels inner, as in 2-D), holding
 * x[c0+ic][od*s[0] - pad[0] + kd*dil[0]][oh*s[1] - pad[1] + kh*dil[1]][ow*s[2] - pad[2] +
 * kw*dil[2]] or 0.0f in the padding. The weights for it are conv_weight_reorder_f32 with KH =
 * KD*KH. in = {D, H, W}, out = {OD, OH, OW}, k = {KD, KH, KW}; stride, pad (leading), dil: [3] */
O2C_KERNEL void im2col_3d_f32(int64_t c0, int64_t Cg, const int64_t *in, const int64_t *out,
                              const int64_t *k, const int64_t *stride, const int64_t *pad,
                              const int64_t *dil, const float *x, float *col)
{
    const int64_t P = out[0] * out[1] * out[2];
    for (int64_t kd = 0; kd < k[0]; kd++)
        for (int64_t kh = 0; kh < k[1]; kh++)
            for (int64_t kw = 0; kw < k[2]; kw++)
                for (int64_t ic = 0; ic < Cg; ic++) {
                    const float *xc = x + (c0 + ic) * in[0] * in[1] * in[2];
                    float *d = col + (((kd * k[1] + kh) * k[2] + kw) * Cg + ic) * P;
                    for (int64_t od = 0; od < out[0]; od++) {
                        const int64_t id = od * stride[0] - pad[0] + kd * dil[0];
                        for (int64_t oh = 0; oh < out[1]; oh++) {
                            const int64_t ih = oh * stride[1] - pad[1] + kh * dil[1];
                            for (int64_t ow = 0; ow < out[2]; ow++) {
                                const int64_t iw = ow * stride[2] - pad[2] + kw * dil[2];
                                const int inside = id >= 0 && id < in[0] && ih >= 0 && ih < in[1] &&
                                                   iw >= 0 && iw < in[2];
                                *d++ = inside ? xc[(id * in[1] + ih) * in[2] + iw] : 0.0f;
                            }
                        }
                    }
                }
}

/* ConvTranspose (1-D/2-D as 3-D with leading sizes 1), direct: output element
 * y[n][oc][od][oh][ow] (oc in group g = oc / OCg) gathers the input positions that the
 * scatter form would send to it: for each tap (kd, kh, kw) in row-major order with
 *     id = (od + pad[0] - kd*dil[0]) / stride[0]  (exact division, 0 <= id < D; same for h, w)
 * and for each input channel ic of the group in order:
 *     acc = fmaf(x[n][g*Cg + ic][id][ih][iw], w[g*Cg + ic][oc - g*OCg][kd][kh][kw], acc)
 * from acc = 0.0f (taps outer, channels inner, as Conv; taps that hit no input position are
 * skipped). The bias is added after, by add_channel_bias_f32.
 *   x [N][C][D][H][W], w [C][OCg][KD][KH][KW] (ONNX layout), y [N][G*OCg][OD][OH][OW];
 *   in = {D, H, W}, out = {OD, OH, OW}, k = {KD, KH, KW}; stride, pad (leading), dil: [3] */
O2C_KERNEL void convtranspose_f32(int64_t N, int64_t C, int64_t G, int64_t OCg, const int64_t *in,
                                  const int64_t *out, const int64_t *k, const int64_t *stride,
                                  const int64_t *pad, const int64_t *dil, const float *x,
                                  const float *w, float *y)
{
    const int64_t Cg = C / G, OC = G * OCg;
    const int64_t isz = in[0] * in[1] * in[2], ksz = k[0] * k[1] * k[2];
    int64_t pos[3];
    for (int64_t n = 0; n < N; n++)
        for (int64_t oc = 0; oc < OC; oc++) {
            const int64_t g = oc / OCg, ocg = oc % OCg;
            const float *xg = x + (n * C + g * Cg) * isz;     /* [Cg][D][H][W] */
            const float *wg = w + (g * Cg * OCg + ocg) * ksz; /* ic stride OCg*ksz */
            float *yc = y + (n * OC + oc) * out[0] * out[1] * out[2];
            for (int64_t od = 0; od < out[0]; od++)
                for (int64_t oh = 0; oh < out[1]; oh++)
                    for (int64_t ow = 0; ow < out[2]; ow++) {
                        const int64_t o[3] = {od, oh, ow};
                        float acc = 0.0f;
                        for (int64_t t = 0; t < ksz; t++) {
                            const int64_t tap[3] = {t / (k[1] * k[2]), t / k[2] % k[1], t % k[2]};
                            int ok = 1;
                            for (int i = 0; i < 3 && ok; i++) {
                                const int64_t num = o[i] + pad[i] - tap[i] * dil[i];
                                ok = num >= 0 && num % stride[i] == 0 && num / stride[i] < in[i];
                                pos[i] = ok ? num / stride[i] : 0;
                            }
                            if (!ok)
                                continue;
                            const int64_t xo = (pos[0] * in[1] + pos[1]) * in[2] + pos[2];
                            for (int64_t ic = 0; ic < Cg; ic++)
                                acc = fmaf(xg[ic * isz + xo], wg[ic * OCg * ksz + t], acc);
                        }
                        yc[(od * out[1] + oh) * out[2] + ow] = acc;
                    }
        }
}

/* ---- direct convolution (no im2col copy) ---- */

/* gcc vectorises a tile only as a function of its own: inlined into a caller it kept the
 * accumulators in scalars (10x slower). Other compilers ignore the hint. */
#if defined(__GNUC__)
#define CONV_NOINLINE __attribute__((noinline))
#else
#define CONV_NOINLINE
#endif

/* ---- epilogues in the tile store ----
 *
 * The ops fused after a Conv (compiler/fuse_epilogue.c: its activation, a residual Add) that
 * the dense kernels apply to each run of output they store, while it is in L1, instead of one
 * pass over the whole output per op. Each is computed by the op's own kernel (relu_f32 and
 * clip_f32 of elementwise.c, swish_f32 and hard_swish_f32 of math.c, which the generated file
 * pastes with this one) or, for Add, by
 * add_f32's expression (a + b, operands in the graph's order), on the values the separate
 * passes would read, in the graph's order: the bits are those of the unfused graph. */
enum {
    CONV_EP_RELU = 1,
    CONV_EP_CLIP = 2,
    CONV_EP_ADD = 3,
    CONV_EP_SWISH = 4,
    CONV_EP_HARD_SWISH = 5
};

struct ConvEpilogue {
    int op;         /* CONV_EP_* */
    int r_first;    /* Add: y = r + y (the conv's result is Add's second input); else y + r */
    float lo, hi;   /* Clip's bounds; Swish's alpha in lo */
    const float *r; /* Add: the other operand, with the output's shape [N][OC][...] */
};

/* From elementwise.c and math.c, which the generated file pastes whenever it pastes this one. */
O2C_KERNEL void relu_f32(int64_t n, const float *x, float *y);
O2C_KERNEL void clip_f32(int64_t n, float lo, float hi, const float *x, float *y);
O2C_KERNEL void swish_f32(int64_t n, float alpha, const float *x, float *y);
O2C_KERNEL void hard_swish_f32(int64_t n, const float *x, float *y);

/* Applies ep[0 .. nep-1] in order to yr[0 .. len-1], elements at .. at+len-1 of the output
 * (also the store of conv_nhwc.c, depthwise_nhwc.c and pool_nhwc.c, on runs of NHWC output). */
O2C_KERNEL void conv_epilogue_f32(const struct ConvEpilogue *ep, int nep, int64_t at, int64_t len,
                                  float *yr)
{
    for (int e = 0; e < nep; e++) {
        if (ep[e].op == CONV_EP_RELU) {
            relu_f32(len, yr, yr);
        } else if (ep[e].op == CONV_EP_CLIP) {
            clip_f32(len, ep[e].lo, ep[e].hi, yr, yr);
        } else if (ep[e].op == CONV_EP_SWISH) {
            swish_f32(len, ep[e].lo, yr, yr);
        } else if (ep[e].op == CONV_EP_HARD_SWISH) {
            hard_swish_f32(len, yr, yr);
        } else if (ep[e].r_first) {
            const float *r = ep[e].r + at;
            for (int64_t i = 0; i < len; i++)
                yr[i] = r[i] + yr[i];
        } else {
            const float *r = ep[e].r + at;
            for (int64_t i = 0; i < len; i++)
                yr[i] = yr[i] + r[i];
        }
    }
}

/* A kernel that applies a Relu or a Clip in its store: when ep[0] is one, sets *lo and *hi to
 * its bounds (Relu: 0, +inf), takes it off (*nep - 1) and returns the others, ep + 1; otherwise
 * returns ep as it is. The store then computes u = v < lo ? lo : v, y = u > hi ? hi : u
 * (clip_f32's expression; relu_f32's bits with 0, +inf). */
O2C_KERNEL const struct ConvEpilogue *conv_epilogue_clip(const struct ConvEpilogue *ep, int *nep,
                                                         float *lo, float *hi)
{
    if (*nep < 1 || (ep[0].op != CONV_EP_RELU && ep[0].op != CONV_EP_CLIP))
        return ep;
    *lo = ep[0].op == CONV_EP_RELU ? 0.0f : ep[0].lo;
    *hi = ep[0].op == CONV_EP_RELU ? INFINITY : ep[0].hi;
    *nep -= 1;
    return ep + 1;
}

/* A kernel that applies an Add in its store: when ep[0] is one, sets *r and *r_first to its
 * operand and order, takes it off (*nep - 1) and returns the others, ep + 1; otherwise returns
 * ep as it is (*r, *r_first unchanged). The store then computes v = r[at] + v (r_first) or
 * v + r[at], before the clip of a Relu or Clip that follows (conv_epilogue_clip). */
O2C_KERNEL const struct ConvEpilogue *conv_epilogue_add(const struct ConvEpilogue *ep, int *nep,
                                                        const float **r, int *r_first)
{
    if (*nep < 1 || ep[0].op != CONV_EP_ADD)
        return ep;
    *r = ep[0].r;
    *r_first = ep[0].r_first;
    *nep -= 1;
    return ep + 1;
}

/* yr[i] = t[i] after the epilogues, for a run of len outputs at element `at` whose values t
 * (len <= CONVB_T, with the bias) are on the stack: every operand r[i] of an Add is read before
 * yr[i] is written, so the output may be an Add's operand (a Conv writing y over its
 * residual, compiler/ops/conv.c). The same ops on the same values as the epilogues after the
 * store, so the same bits. */
/* Whether an Add of ep[0 .. nep-1] reads the output itself (a Conv writing y over its
 * residual): yat is element `at` of the output. Only then do the stores take the stack copy
 * below; otherwise they store and the epilogues run on the stored run (measured 1.2x faster
 * on tiny_dscnn_kws, whose 1x1 convs have few channels per tile). */
static int conv_epilogues_read_y(const struct ConvEpilogue *ep, int nep, int64_t at,
                                 const float *yat)
{
    for (int e = 0; e < nep; e++)
        if (ep[e].op == CONV_EP_ADD && ep[e].r + at == yat)
            return 1;
    return 0;
}

static void conv_store_epilogues_f32(const struct ConvEpilogue *ep, int nep, int64_t at,
                                     int64_t len, float *t, float *yr)
{
    conv_epilogue_f32(ep, nep, at, len, t);
    for (int64_t i = 0; i < len; i++)
        yr[i] = t[i];
}

/* Output channels per weight block: conv_f32 and the 8x32 tiles, the channel-vector tiles.
 * (kernels.h declares the same for the compiler, and the test that compiles every template after
 * it.) */
#ifndef ONNX2C_KERNELS_H
enum { CONV_OB = 8, CONVC_OB = 32 };
#endif

/* One register tile of conv_f32: CONV_OB output channels x CONV_T output columns of one output
 * row, accumulated in a local array that gcc and clang (-O2 and up) keep in vector registers:
 * 8 zmm with AVX-512, where a (tap, channel) step is one vector load, 8 broadcasts and 8 fmas. */
enum { CONV_T = 16 };

/* Floats of conv_weight_pack_f32's output: [G][NB][taps][Cg][OB], NB = ceil(OCg/OB). */
O2C_KERNEL int64_t conv_packed_floats(int64_t G, int64_t OCg, int64_t Cg, int64_t taps, int64_t OB)
{
    return G * ((OCg + OB - 1) / OB) * taps * Cg * OB;
}

/* ONNX Conv weight to the kernels' blocks of OB output channels (at compile time when the
 * weight is constant): OB = CONV_OB for conv_f32, conv_band_f32 and conv_pointwise_f32,
 * CONVC_OB for conv_band_f32's channel-vector tiles.
 *   w   [G*OCg][Cg][taps]  (ONNX layout; taps = KD*KH*KW in row-major order)
 *   wp  [G][NB][taps][Cg][OB]: wp[g][b][t][ic][o] = w[g*OCg + b*OB + o][ic][t], 0.0f for the
 *       missing channels of a group's last block (their lanes are computed, never stored), so
 *       one tile reads its OB weights of a (tap, channel) step contiguously. */
O2C_KERNEL void conv_weight_pack_f32(int64_t G, int64_t OCg, int64_t Cg, int64_t taps, int64_t OB,
                                     const float *w, float *wp)
{
    const int64_t NB = (OCg + OB - 1) / OB;
    for (int64_t g = 0; g < G; g++)
        for (int64_t b = 0; b < NB; b++)
            for (int64_t t = 0; t < taps; t++)
                for (int64_t ic = 0; ic < Cg; ic++)
                    for (int64_t o = 0; o < OB; o++) {
                        const int64_t ocg = b * OB + o;
                        float v = 0.0f;
                        if (ocg < OCg)
                            v = w[((g * OCg + ocg) * Cg + ic) * taps + t];
                        wp[(((g * NB + b) * taps + t) * Cg + ic) * OB + o] = v;
                    }
}

/* acc[o][j] = fmaf(wv[o], xv[j], acc[o][j]): one (tap, channel) step of a tile. Fixed sizes;
 * the unroll pragma (gcc and clang; others ignore it) makes gcc -O2 unroll the channels so the
 * columns vectorise and the accumulators stay in registers. */
static inline void conv_step_f32(const float *restrict wv, const float *restrict xv,
                                 float acc[CONV_OB][CONV_T])
{
#pragma GCC unroll 8
    for (int o = 0; o < CONV_OB; o++) {
        const float w = wv[o];
        for (int j = 0; j < CONV_T; j++)
            acc[o][j] = fmaf(w, xv[j], acc[o][j]);
    }
}

/* Length of one phase of a conv_f32 input row: the CONV_T-column tiles of an output row read
 * columns ow0 + j + (kw*dil_w)/stride_w of it, so it holds ceil(OW/CONV_T)*CONV_T of them plus
 * the reach of the kernel. */
O2C_KERNEL int64_t conv_row_len(int64_t OW, int64_t KW, int64_t stride_w, int64_t dil_w)
{
    return (OW + CONV_T - 1) / CONV_T * CONV_T + (KW - 1) * dil_w / stride_w;
}

/* Floats of conv_f32's work memory: the input rows that one output row reads, for one group,
 * [KD*KH][Cg][stride_w][conv_row_len(...)]. Proportional to the kernel's rows and the input
 * width, never to the output size. */
O2C_KERNEL int64_t conv_work_floats(int64_t Cg, const int64_t *k, const int64_t *out,
                                    const int64_t *stride, const int64_t *dil)
{
    return k[0] * k[1] * Cg * stride[2] * conv_row_len(out[2], k[2], stride[2], dil[2]);
}

/* One zero-padded input row of a column phase: d[q] = xr[q*step + off] for the q < len with
 * 0 <= q*step + off < W, 0.0f for the others; xr NULL (a row in the padding): all 0.0f. */
static inline void conv_phase_row_f32(const float *xr, int64_t W, int64_t step, int64_t off,
                                      int64_t len, float *d)
{
    int64_t lo = off >= 0 ? 0 : (-off + step - 1) / step;
    int64_t hi = W - off <= 0 ? 0 : (W - off + step - 1) / step;
    if (hi > len)
        hi = len;
    if (!xr || lo > hi)
        lo = hi = len;
    for (int64_t q = 0; q < lo; q++)
        d[q] = 0.0f;
    if (step == 1 && hi > lo) {
        memcpy(d + lo, xr + lo + off, (size_t)(hi - lo) * sizeof(float));
    } else if (step == 2) { /* a constant stride: gcc vectorises it with permutes */
        for (int64_t q = lo; q < hi; q++)
            d[q] = xr[2 * q + off]; /* not (xr + off)[2 * q]: xr may be NULL, off negative */
    } else {
        for (int64_t q = lo; q < hi; q++)
            d[q] = xr[q * step + off];
    }
    for (int64_t q = hi; q < len; q++)
        d[q] = 0.0f;
}

/* Gathers the input rows that output row (od, oh) reads, zero-padded and split into the
 * stride_w phases of the columns: rows[r][ic][p][q] (r = kd*KH + kh) holds input column
 * iw = q*stride_w + p - pad_l of row (id, ih) of channel ic, or 0.0f where that is padding. A
 * tap (kd, kh, kw) of a tile at ow0 then reads the CONV_T contiguous floats at
 * rows[r][ic][(kw*dil_w) % stride_w][ow0 + (kw*dil_w) / stride_w ...].
 *   xg [Cg][D][H][W], rows [conv_work_floats(...)]. Geometry as im2col_3d_f32. */
O2C_KERNEL void conv_gather_rows_f32(int64_t Cg, const int64_t *in, const int64_t *k,
                                     const int64_t *out, const int64_t *stride, const int64_t *pad,
                                     const int64_t *dil, int64_t od, int64_t oh, const float *xg,
                                     float *rows)
{
    const int64_t isz = in[0] * in[1] * in[2], W = in[2], sw = stride[2];
    const int64_t L = conv_row_len(out[2], k[2], sw, dil[2]);
    for (int64_t kd = 0; kd < k[0]; kd++) {
        const int64_t id = od * stride[0] - pad[0] + kd * dil[0];
        for (int64_t kh = 0; kh < k[1]; kh++) {
            const int64_t ih = oh * stride[1] - pad[1] + kh * dil[1];
            const int row_in = id >= 0 && id < in[0] && ih >= 0 && ih < in[1];
            for (int64_t ic = 0; ic < Cg; ic++) {
                const float *xr = row_in ? xg + ic * isz + (id * in[1] + ih) * W : NULL;
                float *d = rows + ((kd * k[1] + kh) * Cg + ic) * sw * L; /* [sw][L] */
                for (int64_t p = 0; p < sw; p++, d += L)
                    conv_phase_row_f32(xr, W, sw, p - pad[2], L, d);
            }
        }
    }
}

/* yr[j] = acc[j] (+ b) for j < live. The full-width case has a fixed trip count, so it is a
 * vector store even at gcc -O2 (not unrolled: gcc -O3 would scalarise it). No bias is not "+ 0.0f"
 * (that would turn -0.0f into +0.0f). */
static inline void conv_store_f32(const float *acc, int has_bias, float b, int64_t live,
                                  float *restrict yr)
{
    if (live == CONV_T && has_bias) {
#pragma GCC unroll 1
        for (int j = 0; j < CONV_T; j++)
            yr[j] = acc[j] + b;
    } else if (live == CONV_T) {
#pragma GCC unroll 1
        for (int j = 0; j < CONV_T; j++)
            yr[j] = acc[j];
    } else if (has_bias) {
        for (int64_t j = 0; j < live; j++)
            yr[j] = acc[j] + b;
    } else {
        for (int64_t j = 0; j < live; j++)
            yr[j] = acc[j];
    }
}

/* The first nob rows of a tile's sums, columns ow0 .. ow0+live-1, stored to yb (channels ys
 * apart, element `at` of the output) with bias [nob] or NULL and the epilogues; in_y
 * (conv_epilogues_read_y): an Add reads y itself, so each run goes through the stack. */
static inline void conv_tile_store_f32(float acc[][CONV_T], int64_t nob, const float *bias,
                                       int in_y, const struct ConvEpilogue *ep, int nep, int64_t at,
                                       int64_t ow0, int64_t live, float *yb, int64_t ys)
{
    for (int64_t o = 0; o < nob; o++) {
        float *yr = yb + o * ys + ow0, t[CONV_T];
        const float b = bias ? bias[o] : 0.0f;
        if (in_y) {
            conv_store_f32(acc[o], bias != NULL, b, live, t);
            conv_store_epilogues_f32(ep, nep, at + o * ys + ow0, live, t, yr);
        } else {
            conv_store_f32(acc[o], bias != NULL, b, live, yr);
            if (nep)
                conv_epilogue_f32(ep, nep, at + o * ys + ow0, live, yr);
        }
    }
}

/* The tile at output position (od, oh, ow0 .. ow0+CONV_T-1) of one block, from the rows that
 * conv_gather_rows_f32 gathered: acc[o][j] is the whole sum of output channel o (of the
 * block) at column ow0 + j, taps in row-major order and for each tap the channels in order,
 * from +0.0f, padded taps included as fmaf(w, 0.0f, acc) (the k order of im2col_f32 +
 * gemm_f32, so the bits are the same); then yb[o*ys + ow0 + j] = acc[o][j] (+ bias[o]) for
 * the nob live channels and the columns < OW (the others are computed and dropped).
 *   rows: element (r, ic, p, q) at rows[(r*Cg + ic)*cs + p*L + q] (gathered rows: cs = sw*L;
 *   a pointwise conv reads its input as is: KR = KW = sw = 1, cs = the channel size),
 *   wb [taps][Cg][CONV_OB] (one block of conv_weight_pack_f32), bias [nob] or NULL,
 *   yb the block's first output row, channels ys apart, element `at` of the output, whose
 *   epilogues ep[0 .. nep-1] the stored columns then get. */
O2C_KERNEL CONV_NOINLINE void conv_tile_f32(int64_t Cg, int64_t KR, int64_t KW, int64_t sw,
                                            int64_t dil_w, int64_t L, int64_t cs, int64_t ow0,
                                            int64_t OW, const float *rows, const float *wb,
                                            const float *bias, const struct ConvEpilogue *ep,
                                            int nep, int64_t nob, float *yb, int64_t ys, int64_t at)
{
    const int64_t live = OW - ow0 < CONV_T ? OW - ow0 : CONV_T; /* columns inside the output */
    float acc[CONV_OB][CONV_T];
    for (int o = 0; o < CONV_OB; o++)
        for (int j = 0; j < CONV_T; j++)
            acc[o][j] = 0.0f;
    for (int64_t r = 0; r < KR; r++) {
        for (int64_t kw = 0; kw < KW; kw++) {
            const float *wt = wb + (r * KW + kw) * Cg * CONV_OB;
            const float *xt = rows + r * Cg * cs + (kw * dil_w % sw) * L + ow0 +
                              kw * dil_w / sw; /* channel 0 of this tap */
            for (int64_t ic = 0; ic < Cg; ic++)
                conv_step_f32(wt + ic * CONV_OB, xt + ic * cs, acc);
        }
    }
    conv_tile_store_f32(acc, nob, bias, conv_epilogues_read_y(ep, nep, at, yb), ep, nep, at, ow0,
                        live, yb, ys);
}

/* Convolution (1-D and 2-D as 3-D with leading sizes 1) without an im2col copy: per output
 * row, the input rows it reads are gathered once (conv_gather_rows_f32: a few KB) and every
 * block of output channels runs its register tiles over them. Each output element gets the
 * bits of im2col + gemm_f32 with the bias added after the whole sum: y = acc + bias[oc]
 * (bias may be NULL: y = acc), then the epilogues ep[0 .. nep-1] (ep NULL when nep is 0).
 *   x [N][G*Cg][D][H][W], wp from conv_weight_pack_f32, bias [G*OCg] or NULL,
 *   y [N][G*OCg][OD][OH][OW] (must not overlap x; may be an Add epilogue's operand: each r[i] is
 * read before y[i] is written), work [conv_work_floats(...)]. Geometry as im2col_3d_f32. */
O2C_KERNEL void conv_f32(int64_t N, int64_t C, int64_t G, int64_t OCg, const int64_t *in,
                         const int64_t *out, const int64_t *k, const int64_t *stride,
                         const int64_t *pad, const int64_t *dil, const float *x, const float *wp,
                         const float *bias, const struct ConvEpilogue *ep, int nep, float *y,
                         float *work)
{
    const int64_t Cg = C / G, OC = G * OCg, NB = (OCg + CONV_OB - 1) / CONV_OB;
    const int64_t isz = in[0] * in[1] * in[2], osz = out[0] * out[1] * out[2];
    const int64_t taps = k[0] * k[1] * k[2], OW = out[2];
    const int64_t L = conv_row_len(OW, k[2], stride[2], dil[2]);
    for (int64_t n = 0; n < N; n++)
        for (int64_t g = 0; g < G; g++)
            for (int64_t od = 0; od < out[0]; od++)
                for (int64_t oh = 0; oh < out[1]; oh++) {
                    conv_gather_rows_f32(Cg, in, k, out, stride, pad, dil, od, oh,
                                         x + (n * C + g * Cg) * isz, work);
                    for (int64_t b = 0; b < NB; b++) {
                        const int64_t oc0 = g * OCg + b * CONV_OB;
                        const int64_t nob =
                            OCg - b * CONV_OB < CONV_OB ? OCg - b * CONV_OB : CONV_OB;
                        const int64_t at = (n * OC + oc0) * osz + (od * out[1] + oh) * OW;
                        const float *wb = wp + (g * NB + b) * taps * Cg * CONV_OB;
                        for (int64_t ow0 = 0; ow0 < OW; ow0 += CONV_T)
                            conv_tile_f32(Cg, k[0] * k[1], k[2], stride[2], dil[2], L,
                                          stride[2] * L, ow0, OW, work, wb,
                                          bias ? bias + oc0 : NULL, ep, nep, nob, y + at, osz, at);
                    }
                }
}

/* ---- convolution without work memory ----
 *
 * For a conv whose scratch budget (compiler/ops/conv.c, plan_arena) holds none of the other
 * kernels' work memory: the arena is then at the node-order bound with the tensors alone.
 * conv_f32's tiles (CONV_OB output channels x CONV_T columns of one output row, the same
 * (tap, channel) steps, so the same bits; epilogues included) on the input as it is: per
 * step, the tile's CONV_T input columns are read straight from x where they lie inside the
 * row at stride 1, else copied, zero-padded, into a row of CONV_T floats on the stack. */

/* Input channels per copied block of conv_direct_sums_f32's edge steps. */
enum { CONV_EDGE_CH = 16 };

/* rows[i][j] = input column iw0 + j*sw of channel c0 + i's row (id, ih) for the j < CONV_T
 * inside it, 0.0f for the others (all, row_in 0: a row in the padding), i < nch. A function
 * of its own: inlined, it made gcc keep the tile's accumulators in scalars. */
static CONV_NOINLINE void conv_direct_edge_f32(const float *xr, int64_t isz, int64_t nch, int64_t W,
                                               int64_t iw0, int64_t sw, int row_in,
                                               float rows[CONV_EDGE_CH][CONV_T])
{
    for (int64_t i = 0; i < nch; i++)
        for (int j = 0; j < CONV_T; j++) {
            const int64_t iw = iw0 + j * sw;
            rows[i][j] = row_in && iw >= 0 && iw < W ? xr[i * isz + iw] : 0.0f;
        }
}

/* The steps of nch channels of one tap: xt channel 0's CONV_T input columns, channels cs
 * apart, wt [nch][CONV_OB]. A function of its own, the loop alone in it (with both callers in
 * one function gcc kept the accumulators of one in scalars). */
static CONV_NOINLINE void conv_direct_run_f32(int64_t nch, const float *wt, const float *xt,
                                              int64_t cs, float acc[CONV_OB][CONV_T])
{
    for (int64_t ic = 0; ic < nch; ic++)
        conv_step_f32(wt + ic * CONV_OB, xt + ic * cs, acc);
}

/* The sums of the tile at (od, oh, ow0 .. ow0+CONV_T-1) of one block: xg [Cg][D][H][W] the
 * group's input, wb [taps][Cg][CONV_OB] (one block of conv_weight_pack_f32); acc as
 * conv_tile_f32's. (Only the sums: with the store in it, gcc kept the accumulators in
 * scalars.) */
O2C_KERNEL CONV_NOINLINE void conv_direct_sums_f32(int64_t Cg, const int64_t *in, const int64_t *k,
                                                   const int64_t *stride, const int64_t *pad,
                                                   const int64_t *dil, int64_t od, int64_t oh,
                                                   int64_t ow0, const float *xg, const float *wb,
                                                   float acc[CONV_OB][CONV_T])
{
    const int64_t isz = in[0] * in[1] * in[2], W = in[2], sw = stride[2];
    const int64_t taps = k[0] * k[1] * k[2];
    float rows[CONV_EDGE_CH][CONV_T];
    for (int o = 0; o < CONV_OB; o++)
        for (int j = 0; j < CONV_T; j++)
            acc[o][j] = 0.0f;
    for (int64_t t = 0; t < taps; t++) {
        const int64_t id = od * stride[0] - pad[0] + t / (k[1] * k[2]) * dil[0];
        const int64_t ih = oh * stride[1] - pad[1] + t / k[2] % k[1] * dil[1];
        const int64_t iw0 = ow0 * sw - pad[2] + t % k[2] * dil[2];
        const int row_in = id >= 0 && id < in[0] && ih >= 0 && ih < in[1];
        const float *wt = wb + t * Cg * CONV_OB;
        if (row_in && sw == 1 && iw0 >= 0 && iw0 + CONV_T <= W) {
            /* channel 0 of this tap, channels isz apart */
            conv_direct_run_f32(Cg, wt, xg + (id * in[1] + ih) * W + iw0, isz, acc);
            continue;
        }
        for (int64_t c0 = 0; c0 < Cg; c0 += CONV_EDGE_CH) {
            const int64_t nch = Cg - c0 < CONV_EDGE_CH ? Cg - c0 : CONV_EDGE_CH;
            conv_direct_edge_f32(row_in ? xg + c0 * isz + (id * in[1] + ih) * W : xg, isz, nch, W,
                                 iw0, sw, row_in, rows);
            conv_direct_run_f32(nch, wt + c0 * CONV_OB, rows[0], CONV_T, acc);
        }
    }
}

/* Convolution (1-D, 2-D and 3-D) without work memory, with conv_f32's bits (see above).
 *   x [N][G*Cg][D][H][W], wp from conv_weight_pack_f32 with OB = CONV_OB, bias [G*OCg] or
 *   NULL, y [N][G*OCg][OD][OH][OW] (must not overlap x; may be an Add epilogue's operand: each
 *   r[i] is read before y[i] is written). Geometry as
 *   im2col_3d_f32. */
O2C_KERNEL void conv_direct_f32(int64_t N, int64_t C, int64_t G, int64_t OCg, const int64_t *in,
                                const int64_t *out, const int64_t *k, const int64_t *stride,
                                const int64_t *pad, const int64_t *dil, const float *x,
                                const float *wp, const float *bias, const struct ConvEpilogue *ep,
                                int nep, float *y)
{
    const int64_t Cg = C / G, OC = G * OCg, NB = (OCg + CONV_OB - 1) / CONV_OB;
    const int64_t isz = in[0] * in[1] * in[2], osz = out[0] * out[1] * out[2];
    const int in_y = conv_epilogues_read_y(ep, nep, 0, y);
    const int64_t taps = k[0] * k[1] * k[2], OW = out[2];
    for (int64_t n = 0; n < N; n++)
        for (int64_t g = 0; g < G; g++)
            for (int64_t od = 0; od < out[0]; od++)
                for (int64_t oh = 0; oh < out[1]; oh++)
                    for (int64_t b = 0; b < NB; b++) {
                        const int64_t oc0 = g * OCg + b * CONV_OB;
                        const int64_t nob =
                            OCg - b * CONV_OB < CONV_OB ? OCg - b * CONV_OB : CONV_OB;
                        const int64_t at = (n * OC + oc0) * osz + (od * out[1] + oh) * OW;
                        const float *wb = wp + (g * NB + b) * taps * Cg * CONV_OB;
                        for (int64_t ow0 = 0; ow0 < OW; ow0 += CONV_T) {
                            const int64_t live = OW - ow0 < CONV_T ? OW - ow0 : CONV_T;
                            float acc[CONV_OB][CONV_T];
                            conv_direct_sums_f32(Cg, in, k, stride, pad, dil, od, oh, ow0,
                                                 x + (n * C + g * Cg) * isz, wb, acc);
                            conv_tile_store_f32(acc, nob, bias ? bias + oc0 : NULL, in_y, ep, nep,
                                                at, ow0, live, y + at, osz);
                        }
                    }
}

/* ---- banded 2-D convolution: tiles over flattened output rows ---- */

/* conv_f32's tiles cover CONV_T columns of one output row, so an output row 7 wide computes 16
 * columns and keeps 7. conv_band_f32 copies a band of input rows, zero-padded and split into the
 * stride phases of rows and columns, into a plane whose rows are Wq = OW + (KW-1)*dil_w/stride_w
 * wide: output (oh, ow) of the band sits at q = oh*Wq + ow, and each tap (kh, kw) of a tile of
 * CONVB_T consecutive q is one contiguous run of the plane, shifted by
 * (kh*dil_h/stride_h)*Wq + kw*dil_w/stride_w. A tile spans output rows; the q with ow >= OW
 * (Wq - OW per row) are computed and dropped. Each output's sum is conv_f32's: taps in
 * row-major order, for each tap the channels in order, from +0.0f, padded taps included. The
 * tiles are CONV_OB output channels x 32 q (16 accumulators: twice the fmas in flight of
 * conv_f32's tile, which the fma latency needs), over the weights of conv_weight_pack_f32. */
#define CONVB_T 32

/* Width of a phase row of the band plane. */
O2C_KERNEL int64_t conv_band_width(int64_t OW, int64_t KW, int64_t stride_w, int64_t dil_w)
{
    return OW + (KW - 1) * dil_w / stride_w;
}

/* Floats of one (row phase, column phase, channel) slab of a band of R output rows: the rows
 * its taps read. The slabs follow each other: the dropped q of a slab's last tile read the
 * next slab (or, after the last one, CONVB_T zeros), never past the plane. */
O2C_KERNEL int64_t conv_band_slab(int64_t R, int64_t KH, int64_t stride_h, int64_t dil_h,
                                  int64_t Wq)
{
    return (R + (KH - 1) * dil_h / stride_h) * Wq;
}

/* Phases of the band plane along a dim with kernel size K and stride s: the stride's, but
 * only phase 0 for a kernel 1 wide, whose one tap reads no other (a strided 1x1 conv copies a
 * quarter of its input, not all of it). */
O2C_KERNEL int64_t conv_band_phases(int64_t K, int64_t s)
{
    return K == 1 ? 1 : s;
}

/* Floats of conv_band_f32's work memory: the band plane [row phases][column phases][Cg][slab],
 * then CONVB_T zeros. No larger than conv_f32's rows for one output row when R = 1 and the
 * strides are 1. */
O2C_KERNEL int64_t conv_band_work_floats(int64_t Cg, int64_t KH, int64_t KW, int64_t OW,
                                         int64_t stride_h, int64_t stride_w, int64_t dil_h,
                                         int64_t dil_w, int64_t R)
{
    const int64_t Wq = conv_band_width(OW, KW, stride_w, dil_w);
    const int64_t phases = conv_band_phases(KH, stride_h) * conv_band_phases(KW, stride_w);
    return phases * Cg * conv_band_slab(R, KH, stride_h, dil_h, Wq) + CONVB_T;
}

/* Copies the input that a band of R output rows from oh0 reads into the band plane:
 * plane[ph][pw][ic][r*Wq + c] = x[ic][(oh0 + r)*stride_h + ph - pad_t][c*stride_w + pw - pad_l]
 * for the phases conv_band_phases keeps, 0.0f in the padding (rows past the image included),
 * then CONVB_T zeros. xg [Cg][H][W]. */
static void conv_band_fill_f32(int64_t Cg, int64_t H, int64_t W, int64_t KH, int64_t KW, int64_t sh,
                               int64_t sw, int64_t pad_t, int64_t pad_l, int64_t dil_h, int64_t Wq,
                               int64_t R, int64_t oh0, const float *xg, float *plane)
{
    const int64_t rows = R + (KH - 1) * dil_h / sh, S = rows * Wq;
    const int64_t nph = conv_band_phases(KH, sh), npw = conv_band_phases(KW, sw);
    for (int64_t ph = 0; ph < nph; ph++)
        for (int64_t pw = 0; pw < npw; pw++)
            for (int64_t ic = 0; ic < Cg; ic++) {
                float *d = plane + ((ph * npw + pw) * Cg + ic) * S;
                for (int64_t r = 0; r < rows; r++, d += Wq) {
                    const int64_t ih = (oh0 + r) * sh + ph - pad_t;
                    const float *xr = ih >= 0 && ih < H ? xg + (ic * H + ih) * W : NULL;
                    conv_phase_row_f32(xr, W, sw, pw - pad_l, Wq, d);
                }
            }
    for (int64_t i = 0; i < CONVB_T; i++)
        plane[nph * npw * Cg * S + i] = 0.0f;
}

/* Channel 0 of the tap at row offset rh = kh*dil_h, column offset rw = kw*dil_w in a band
 * plane (slabs S floats apart, phase rows Wq wide, npw column phases): its phase's slab,
 * shifted by the tap. */
static inline const float *conv_band_tap(const float *plane, int64_t rh, int64_t rw, int64_t sh,
                                         int64_t sw, int64_t npw, int64_t Cg, int64_t Wq, int64_t S)
{
    return plane + ((rh % sh) * npw + rw % sw) * Cg * S + (rh / sh) * Wq + rw / sw;
}

/* With AVX but not AVX-512 (16 registers of 8 lanes) the tile's 32 vectors of sums stayed on the
 * stack; it runs as four sub-tiles of 4 channels x 16 q (8 accumulators, the fmas in flight that
 * two pipes of latency 4 need), each the same steps in the same order on its part of the tile
 * (the same bits), reading the tile's inputs again from L1. Named vectors (gcc unrolled an array
 * sub-tile's 16 q in full before it vectorised, and ran them as scalars); calls under constant
 * arguments, not a loop. A step's two input vectors are pinned to registers by an empty asm:
 * gcc 12 read each from memory again as an operand of its 4 fmas (12 loads per 8 fmas, 6 now),
 * and the NCHW 16 -> 16 channel 3x3 conv of resnet_block ran 1.45x slower. */
#if defined(__GNUC__) && defined(__AVX__) && !defined(__AVX512F__)
#define CONVB_SUB 1
typedef float ConvBandV __attribute__((vector_size(32)));

static inline __attribute__((always_inline)) ConvBandV conv_band_vload(const float *p)
{
    ConvBandV r;
    memcpy(&r, p, sizeof r);
    return r;
}

static inline __attribute__((always_inline)) ConvBandV conv_band_vfma(float w, ConvBandV x,
                                                                      ConvBandV a)
{
    for (int l = 0; l < 8; l++)
        a[l] = fmaf(w, x[l], a[l]);
    return a;
}

/* acc[o0 + o][j0 + j] for o < 4, j < 16: conv_band_tile_f32's sums. */
static inline __attribute__((always_inline)) void
conv_band_sub_f32(int o0, int j0, int64_t Cg, int64_t KH, int64_t KW, int64_t sh, int64_t sw,
                  int64_t dil_h, int64_t dil_w, int64_t Wq, int64_t S, const float *plane,
                  const float *wb, float acc[CONV_OB][CONVB_T])
{
    ConvBandV a00 = {0}, a01 = a00, a10 = a00, a11 = a00, a20 = a00, a21 = a00, a30 = a00;
    ConvBandV a31 = a00;
    for (int64_t kh = 0; kh < KH; kh++)
        for (int64_t kw = 0; kw < KW; kw++) {
            const float *xt = conv_band_tap(plane, kh * dil_h, kw * dil_w, sh, sw,
                                            conv_band_phases(KW, sw), Cg, Wq, S) +
                              j0;
            const float *wt = wb + (kh * KW + kw) * Cg * CONV_OB + o0;
            for (int64_t ic = 0; ic < Cg; ic++) {
                const float *xv = xt + ic * S, *wv = wt + ic * CONV_OB;
                ConvBandV x0 = conv_band_vload(xv), x1 = conv_band_vload(xv + 8);
                __asm__("" : "+x"(x0), "+x"(x1)); /* in registers, not 4 loads each */
                a00 = conv_band_vfma(wv[0], x0, a00), a01 = conv_band_vfma(wv[0], x1, a01);
                a10 = conv_band_vfma(wv[1], x0, a10), a11 = conv_band_vfma(wv[1], x1, a11);
                a20 = conv_band_vfma(wv[2], x0, a20), a21 = conv_band_vfma(wv[2], x1, a21);
                a30 = conv_band_vfma(wv[3], x0, a30), a31 = conv_band_vfma(wv[3], x1, a31);
            }
        }
    const ConvBandV v[4][2] = {{a00, a01}, {a10, a11}, {a20, a21}, {a30, a31}};
    for (int o = 0; o < 4; o++)
        memcpy(&acc[o0 + o][j0], v[o], sizeof v[o]);
}
#endif

#ifndef CONVB_SUB /* (else unused, and clang warns of an unused static function) */
/* acc[o][j] = fmaf(wv[o], xv[j], acc[o][j]): one (tap, channel) step of a band tile. */
static inline void conv_band_step_f32(const float *restrict wv, const float *restrict xv,
                                      float acc[CONV_OB][CONVB_T])
{
#pragma GCC unroll 8
    for (int o = 0; o < CONV_OB; o++) {
        const float w = wv[o];
        for (int j = 0; j < CONVB_T; j++)
            acc[o][j] = fmaf(w, xv[j], acc[o][j]);
    }
}
#endif

/* The sums of one band tile: acc[o][j] for channel o of the block at q = q0 + j, taps in
 * row-major order, for each tap the channels in order, from +0.0f.
 *   plane: the band plane from q0 on (slabs S floats apart), wb [taps][Cg][CONV_OB]. */
O2C_KERNEL CONV_NOINLINE void conv_band_tile_f32(int64_t Cg, int64_t KH, int64_t KW, int64_t sh,
                                                 int64_t sw, int64_t dil_h, int64_t dil_w,
                                                 int64_t Wq, int64_t S, const float *plane,
                                                 const float *wb, float acc[CONV_OB][CONVB_T])
{
#ifdef CONVB_SUB
    conv_band_sub_f32(0, 0, Cg, KH, KW, sh, sw, dil_h, dil_w, Wq, S, plane, wb, acc);
    conv_band_sub_f32(0, 16, Cg, KH, KW, sh, sw, dil_h, dil_w, Wq, S, plane, wb, acc);
    conv_band_sub_f32(4, 0, Cg, KH, KW, sh, sw, dil_h, dil_w, Wq, S, plane, wb, acc);
    conv_band_sub_f32(4, 16, Cg, KH, KW, sh, sw, dil_h, dil_w, Wq, S, plane, wb, acc);
#else
    for (int o = 0; o < CONV_OB; o++)
        for (int j = 0; j < CONVB_T; j++)
            acc[o][j] = 0.0f;
    for (int64_t kh = 0; kh < KH; kh++)
        for (int64_t kw = 0; kw < KW; kw++) {
            const float *xt = conv_band_tap(plane, kh * dil_h, kw * dil_w, sh, sw,
                                            conv_band_phases(KW, sw), Cg, Wq, S);
            const float *wt = wb + (kh * KW + kw) * Cg * CONV_OB;
            for (int64_t ic = 0; ic < Cg; ic++)
                conv_band_step_f32(wt + ic * CONV_OB, xt + ic * S, acc);
        }
#endif
}

/* y[r][c] = acc[j] (+ b) for the q = q0 + j = r*Wq + c below qend with c < OW, in runs of one
 * output row (a tile inside one row: one fixed-size loop, vector stores), then the epilogues
 * ep[0 .. nep-1] of each run (conv_store_epilogues_f32: y may be an Add's operand). yc [..][OW]:
 * the channel's rows from the band's first, element `at` of the output. */
static void conv_band_store_f32(const float *acc, int has_bias, float b, int64_t q0, int64_t qend,
                                int64_t Wq, int64_t OW, const struct ConvEpilogue *ep, int nep,
                                int64_t at, float *yc)
{
    int64_t r = q0 / Wq, c = q0 % Wq;
    float t[CONVB_T];
    if (c + CONVB_T <= OW && q0 + CONVB_T <= qend) {
        float *restrict yr = yc + r * OW + c;
        if (nep) { /* an Add reads y: the run's values and epilogues on the stack first */
            for (int j = 0; j < CONVB_T; j++)
                t[j] = has_bias ? acc[j] + b : acc[j];
            conv_store_epilogues_f32(ep, nep, at + r * OW + c, CONVB_T, t, yr);
        } else if (has_bias) { /* kept apart: a store through a conditional pointer cost 6% */
#pragma GCC unroll 1
            for (int j = 0; j < CONVB_T; j++)
                yr[j] = acc[j] + b;
        } else {
#pragma GCC unroll 1
            for (int j = 0; j < CONVB_T; j++)
                yr[j] = acc[j];
        }
        return;
    }
    for (int64_t j = 0; j < CONVB_T && q0 + j < qend; r++, c = 0) {
        int64_t len = Wq - c < CONVB_T - j ? Wq - c : CONVB_T - j;
        if (len > qend - q0 - j)
            len = qend - q0 - j;
        const int64_t live = c >= OW ? 0 : OW - c < len ? OW - c : len;
        float *yr = nep ? t : yc + r * OW + c;
        if (has_bias)
            for (int64_t i = 0; i < live; i++)
                yr[i] = acc[j + i] + b;
        else
            for (int64_t i = 0; i < live; i++)
                yr[i] = acc[j + i];
        if (nep && live)
            conv_store_epilogues_f32(ep, nep, at + r * OW + c, live, t, yc + r * OW + c);
        j += len;
    }
}

/* The tiles of one block of nob <= CONV_OB output channels over a band of Rb output rows:
 * yb[o*P + r*OW + c] = the sum at (r, c) (+ bias[o]) from the band plane (slabs S apart),
 * then the epilogues ep[0 .. nep-1] (yb[0]: element `at` of the output), wb [taps][Cg][CONV_OB],
 * bias [nob] or NULL. */
static void conv_band_block_f32(int64_t Cg, int64_t KH, int64_t KW, int64_t sh, int64_t sw,
                                int64_t dil_h, int64_t dil_w, int64_t Wq, int64_t S, int64_t Rb,
                                int64_t OW, int64_t P, const float *plane, const float *wb,
                                const float *bias, const struct ConvEpilogue *ep, int nep,
                                int64_t at, int64_t nob, float *yb)
{
    const int64_t qend =
        (Rb - 1) * Wq + OW; /* q of the band's outputs: to column OW of its last row */
    float acc[CONV_OB][CONVB_T];
    for (int64_t q0 = 0; q0 < qend; q0 += CONVB_T) {
        conv_band_tile_f32(Cg, KH, KW, sh, sw, dil_h, dil_w, Wq, S, plane + q0, wb, acc);
        for (int64_t o = 0; o < nob; o++)
            conv_band_store_f32(acc[o], bias != NULL, bias ? bias[o] : 0.0f, q0, qend, Wq, OW, ep,
                                nep, at + o * P, yb + o * P);
    }
}

/* Floats of conv_pointwise_f32's work memory: the last, partial tile [Cg][CONVB_T] when P is
 * less than one tile; none from one tile up (the last tile is then the last CONVB_T pixels). */
O2C_KERNEL int64_t conv_pointwise_work_floats(int64_t Cg, int64_t P)
{
    return P < CONVB_T ? Cg * CONVB_T : 0;
}

/* 1x1 convolution with unit strides and no padding: a product on the input itself, in
 * conv_band_f32's tiles over the P = D*H*W pixels of each channel. A last, partial tile is
 * the tile of the last CONVB_T pixels, of which only those past the previous tile are stored
 * (each output's sum is its own, so recomputing some changes no bit, and no work memory is
 * needed); with P < CONVB_T the pixels are copied, zero-padded, into work. The same bits as
 * conv_f32 (k = ic; epilogues included).
 *   x [N][G*Cg][P], wp from conv_weight_pack_f32 (taps = 1), bias [G*OCg] or NULL,
 *   ep [nep] or NULL, y [N][G*OCg][P] (must not overlap x; may be an Add epilogue's operand: each
 * r[i] is read before y[i] is written), work [conv_pointwise_work_floats(Cg, P)] (NULL when that is
 * 0). */
O2C_KERNEL void conv_pointwise_f32(int64_t N, int64_t C, int64_t G, int64_t OCg, int64_t P,
                                   const float *x, const float *wp, const float *bias,
                                   const struct ConvEpilogue *ep, int nep, float *y, float *work)
{
    const int64_t Cg = C / G, OC = G * OCg, NB = (OCg + CONV_OB - 1) / CONV_OB;
    const int in_y = conv_epilogues_read_y(ep, nep, 0, y);
    float acc[CONV_OB][CONVB_T];
    for (int64_t n = 0; n < N; n++)
        for (int64_t g = 0; g < G; g++) {
            const float *xg = x + (n * C + g * Cg) * P; /* [Cg][P] */
            for (int64_t p0 = 0; p0 < P; p0 += CONVB_T) {
                /* tile column j of channel ic at cols[ic*cs + j]; the stored ones from skip */
                const float *cols = xg + p0;
                int64_t cs = P, skip = 0;
                if (P - p0 < CONVB_T && P >= CONVB_T) {
                    skip = p0 - (P - CONVB_T);
                    cols = xg + P - CONVB_T;
                } else if (P - p0 < CONVB_T) {
                    for (int64_t ic = 0; ic < Cg; ic++)
                        for (int j = 0; j < CONVB_T; j++)
                            work[ic * CONVB_T + j] = p0 + j < P ? xg[ic * P + p0 + j] : 0.0f;
                    cols = work;
                    cs = CONVB_T;
                }
                for (int64_t b = 0; b < NB; b++) {
                    const int64_t oc0 = g * OCg + b * CONV_OB;
                    const int64_t nob = OCg - b * CONV_OB < CONV_OB ? OCg - b * CONV_OB : CONV_OB;
                    conv_band_tile_f32(Cg, 1, 1, 1, 1, 1, 1, 0, cs, cols,
                                       wp + (g * NB + b) * Cg * CONV_OB, acc);
                    for (int64_t o = 0; o < nob; o++) {
                        const int64_t at = (n * OC + oc0 + o) * P + p0;
                        conv_band_store_f32(acc[o] + skip, bias != NULL,
                                            bias ? bias[oc0 + o] : 0.0f, 0, P - p0, P, P, ep,
                                            in_y ? nep : 0, at, y + at);
                        if (nep && !in_y)
                            conv_epilogue_f32(ep, nep, at, P - p0 < CONVB_T ? P - p0 : CONVB_T,
                                              y + at);
                    }
                }
            }
        }
}

/* ---- channel-vector 2-D convolution: tiles of output channels x positions of one row ----
 *
 * conv_band_f32's tiles are 32 consecutive q of the band plane, so on short rows many of them
 * are the dropped columns past OW (7x7 output: 64 computed for 49 kept). Its channel-vector
 * tiles read the same band plane (conv_band_fill_f32) but vectorise across output channels:
 * a tile is
 * CONVC_OB = 32 output channels x J consecutive positions of one output row (J = 7, 8 or 14,
 * whichever drops the fewest), 2*J accumulators of 16 lanes; each (tap, channel) step is two
 * vector loads of the 32 weights, J broadcasts of the positions' inputs and 2*J fmas. Only
 * the positions past OW of a row's last tile are dropped (none when J divides OW). The sums
 * are conv_f32's, element by element: taps in row-major order, for each tap the channels in
 * order, from +0.0f, padded taps included; the weights are conv_weight_pack_f32's with
 * OB = CONVC_OB. The tile's dropped positions read at most J - 2 floats past the slab: into
 * the next slab or the plane's CONVB_T zeros. */

/* gcc and clang keep the tile in registers once its J is a constant: the body is inlined into
 * one function per J. clang would otherwise vectorise the J loop with gathers, and at -O2 it
 * unrolls that loop only when told to in full (`#pragma GCC unroll 16` left it rolled, the
 * accumulators in memory: 3.5x slower). */
#if defined(__GNUC__)
#define CONV_ALWAYS_INLINE __attribute__((always_inline)) inline
#else
#define CONV_ALWAYS_INLINE inline
#endif

static CONV_ALWAYS_INLINE void conv_chan_tile_f32(int J, int64_t Cg, int64_t KH, int64_t KW,
                                                  int64_t sh, int64_t sw, int64_t dil_h,
                                                  int64_t dil_w, int64_t Wq, int64_t S,
                                                  const float *plane, const float *wb,
                                                  float acc[][CONVC_OB])
{
    float a[14][CONVC_OB]; /* local, so that it lives in registers */
    for (int j = 0; j < J; j++)
        for (int o = 0; o < CONVC_OB; o++)
            a[j][o] = 0.0f;
    for (int64_t kh = 0; kh < KH; kh++)
        for (int64_t kw = 0; kw < KW; kw++) {
            const float *xt = conv_band_tap(plane, kh * dil_h, kw * dil_w, sh, sw,
                                            conv_band_phases(KW, sw), Cg, Wq, S);
            const float *wt = wb + (kh * KW + kw) * Cg * CONVC_OB;
            for (int64_t ic = 0; ic < Cg; ic++) {
                const float *restrict wv = wt + ic * CONVC_OB;
                const float *restrict xv = xt + ic * S;
#if defined(__clang__)
#pragma clang loop vectorize(disable) unroll(full)
#else
#pragma GCC unroll 16
#endif
                for (int j = 0; j < J; j++) {
                    const float xj = xv[j];
                    for (int o = 0; o < CONVC_OB; o++)
                        a[j][o] = fmaf(wv[o], xj, a[j][o]);
                }
            }
        }
    for (int j = 0; j < J; j++)
        for (int o = 0; o < CONVC_OB; o++)
            acc[j][o] = a[j][o];
}

/* The sums of one tile of J = 7, 8 or 14 positions from plane (the band plane at the tile's first
 * position): acc[j][o] for channel o of the block. wb [taps][Cg][CONVC_OB]. */
O2C_KERNEL CONV_NOINLINE void conv_chan_tile7_f32(int64_t Cg, int64_t KH, int64_t KW, int64_t sh,
                                                  int64_t sw, int64_t dil_h, int64_t dil_w,
                                                  int64_t Wq, int64_t S, const float *plane,
                                                  const float *wb, float acc[][CONVC_OB])
{
    conv_chan_tile_f32(7, Cg, KH, KW, sh, sw, dil_h, dil_w, Wq, S, plane, wb, acc);
}

O2C_KERNEL CONV_NOINLINE void conv_chan_tile8_f32(int64_t Cg, int64_t KH, int64_t KW, int64_t sh,
                                                  int64_t sw, int64_t dil_h, int64_t dil_w,
                                                  int64_t Wq, int64_t S, const float *plane,
                                                  const float *wb, float acc[][CONVC_OB])
{
    conv_chan_tile_f32(8, Cg, KH, KW, sh, sw, dil_h, dil_w, Wq, S, plane, wb, acc);
}

O2C_KERNEL CONV_NOINLINE void conv_chan_tile14_f32(int64_t Cg, int64_t KH, int64_t KW, int64_t sh,
                                                   int64_t sw, int64_t dil_h, int64_t dil_w,
                                                   int64_t Wq, int64_t S, const float *plane,
                                                   const float *wb, float acc[][CONVC_OB])
{
    conv_chan_tile_f32(14, Cg, KH, KW, sh, sw, dil_h, dil_w, Wq, S, plane, wb, acc);
}

/* Positions per channel-vector tile for output rows OW wide: of 14, 8 and 7, the one that
 * drops the fewest positions per row (the larger on a tie). */
O2C_KERNEL int64_t conv_chan_positions(int64_t OW)
{
    int64_t best = 14;
    for (int64_t J = 8; J >= 7; J--)
        if ((OW + J - 1) / J * J - OW < (OW + best - 1) / best * best - OW)
            best = J;
    return best;
}

/* conv_band_block_f32 with channel-vector tiles: wb [taps][Cg][CONVC_OB], nob <= CONVC_OB. */
static void conv_chan_block_f32(int64_t Cg, int64_t KH, int64_t KW, int64_t sh, int64_t sw,
                                int64_t dil_h, int64_t dil_w, int64_t Wq, int64_t S, int64_t Rb,
                                int64_t OW, int64_t P, const float *plane, const float *wb,
                                const float *bias, const struct ConvEpilogue *ep, int nep,
                                int64_t at, int64_t nob, float *yb)
{
    const int64_t J = conv_chan_positions(OW);
    float acc[14][CONVC_OB];
    for (int64_t r = 0; r < Rb; r++)
        for (int64_t c0 = 0; c0 < OW; c0 += J) {
            const float *pt = plane + r * Wq + c0;
            if (J == 7)
                conv_chan_tile7_f32(Cg, KH, KW, sh, sw, dil_h, dil_w, Wq, S, pt, wb, acc);
            else if (J == 8)
                conv_chan_tile8_f32(Cg, KH, KW, sh, sw, dil_h, dil_w, Wq, S, pt, wb, acc);
            else
                conv_chan_tile14_f32(Cg, KH, KW, sh, sw, dil_h, dil_w, Wq, S, pt, wb, acc);
            const int64_t live = OW - c0 < J ? OW - c0 : J;
            for (int64_t o = 0; o < nob; o++) {
                float t[14], *yr = yb + o * P + r * OW + c0;
                if (nep) { /* an Add reads y: the run's values and epilogues on the stack */
                    for (int64_t j = 0; j < live; j++)
                        t[j] = bias ? acc[j][o] + bias[o] : acc[j][o];
                    conv_store_epilogues_f32(ep, nep, at + o * P + r * OW + c0, live, t, yr);
                } else if (bias) {
                    for (int64_t j = 0; j < live; j++)
                        yr[j] = acc[j][o] + bias[o];
                } else {
                    for (int64_t j = 0; j < live; j++)
                        yr[j] = acc[j][o];
                }
            }
        }
}

/* 2-D (and 1-D: H = KH = OH = 1) convolution in bands of R output rows, with the bits of
 * conv_f32 (epilogues included): per band, the plane is filled once and every block of OB
 * output channels runs its tiles over it: 8x32 band tiles for OB = CONV_OB, channel-vector
 * tiles for OB = CONVC_OB; then the block's band of output (Rb*OW floats per channel, still in
 * cache) gets the epilogues, or, where an Add reads y itself, each run a tile stores gets them
 * first (conv_store_epilogues_f32).
 *   x [N][G*Cg][H][W], wp from conv_weight_pack_f32 with the same OB, bias [G*OCg] or NULL,
 *   ep [nep] or NULL, y [N][G*OCg][OH][OW] (must not overlap x; may be an Add epilogue's operand:
 * each r[i] is read before y[i] is written), work [conv_band_work_floats(..., R)]. */
O2C_KERNEL void conv_band_f32(int64_t N, int64_t C, int64_t G, int64_t OCg, int64_t H, int64_t W,
                              int64_t KH, int64_t KW, int64_t OH, int64_t OW, int64_t stride_h,
                              int64_t stride_w, int64_t pad_t, int64_t pad_l, int64_t dil_h,
                              int64_t dil_w, int64_t R, int64_t OB, const float *x, const float *wp,
                              const float *bias, const struct ConvEpilogue *ep, int nep, float *y,
                              float *work)
{
    const int in_y = conv_epilogues_read_y(ep, nep, 0, y);
    const int64_t Cg = C / G, OC = G * OCg, NB = (OCg + OB - 1) / OB, taps = KH * KW;
    const int64_t Wq = conv_band_width(OW, KW, stride_w, dil_w), P = OH * OW;
    const int64_t S = conv_band_slab(R, KH, stride_h, dil_h, Wq);
    for (int64_t n = 0; n < N; n++)
        for (int64_t g = 0; g < G; g++)
            for (int64_t oh0 = 0; oh0 < OH; oh0 += R) {
                const int64_t Rb = OH - oh0 < R ? OH - oh0 : R;
                conv_band_fill_f32(Cg, H, W, KH, KW, stride_h, stride_w, pad_t, pad_l, dil_h, Wq, R,
                                   oh0, x + (n * C + g * Cg) * H * W, work);
                for (int64_t b = 0; b < NB; b++) {
                    const int64_t oc0 = g * OCg + b * OB,
                                  nob = OCg - b * OB < OB ? OCg - b * OB : OB;
                    const float *wb = wp + (g * NB + b) * taps * Cg * OB;
                    const int64_t at = (n * OC + oc0) * P + oh0 * OW; /* band of channel oc0 */
                    const float *bb = bias ? bias + oc0 : NULL;
                    if (OB == CONVC_OB)
                        conv_chan_block_f32(Cg, KH, KW, stride_h, stride_w, dil_h, dil_w, Wq, S, Rb,
                                            OW, P, work, wb, bb, ep, in_y ? nep : 0, at, nob,
                                            y + at);
                    else
                        conv_band_block_f32(Cg, KH, KW, stride_h, stride_w, dil_h, dil_w, Wq, S, Rb,
                                            OW, P, work, wb, bb, ep, in_y ? nep : 0, at, nob,
                                            y + at);
                    for (int64_t o = 0; o < nob && nep && !in_y; o++)
                        conv_epilogue_f32(ep, nep, at + o * P, Rb * OW, y + at + o * P);
                }
            }
}

/* ---- depthwise convolution ----
 *
 * With one input channel per group every output element is a sum over the taps only, so the
 * kernel vectorises across output positions. It avoids tiles that straddle rows (a 7- or
 * 14-wide row fills half a 16-lane tile) by computing each channel on a flat grid, and avoids
 * half-empty blocks on small outputs (a 3x3 output is 15 grid positions) by stacking the grids
 * of a group of channels:
 *
 * Each channel is copied, zero-padded, into stride_h*stride_w phase planes,
 *     plane[a][b][r][q] = x[r*stride_h + a - pad_t][q*stride_w + b - pad_l]  (0.0f outside),
 * each [PR][PQ] with PR = OH + RA, PQ = OW + CB, RA = (KH-1)*dil_h / stride_h and
 * CB = (KW-1)*dil_w / stride_w. Output (oh, ow) at tap (kh, kw) reads plane
 * [kh*dil_h % stride_h][kw*dil_w % stride_w] at row oh + kh*dil_h / stride_h and column
 * ow + kw*dil_w / stride_w, i.e. at flat index g + (kh*dil_h / stride_h)*PQ + kw*dil_w / stride_w
 * with g = oh*PQ + ow. So on the grid g = 0 .. OH*PQ - 1 (row pitch PQ: the CB columns past OW
 * of each row are computed and dropped) each tap is one contiguous run of every plane. The CH
 * channels of a group lie one after another in each phase, in slots of PSc floats (PR*PQ
 * rounded up to 16), so the group's grids are one flat grid too (a slot's rows past OH and its
 * rounding are computed and dropped; a tap there may read the next slot) and every 16-lane
 * vector of it belongs to one channel (the last slot's grid ends after its OH rows). A block of
 * DW_B grid positions is DW_B/16 vector loads and fmas per tap, its accumulators in registers: 8
 * independent fma chains with AVX-512, enough to hide the fma latency (4 chains ran at half the
 * rate); a block within one channel broadcasts one weight per tap, a block across channels one per
 * vector. The grid is whole blocks (the last one partly junk, computed at full rate rather than in
 * latency-bound 16-wide tails) and the planes carry a zero tail so that the last block reads inside
 * them. The planes are cleared once per call; a group writes only the input's own positions, so the
 * padding stays zero. Neither the block nor the group size changes the bits. */
enum { DW_B = 128, DW_V = DW_B / 16 }; /* grid positions per block, vectors per block */
enum { DW_GROUP_FLOATS = 2048 };       /* most grid floats of a group of several channels */

/* Sizes of the planes and the grid, in floats (see above). */
typedef struct DepthwiseGeom {
    int64_t RA, CB, PR, PQ;
    int64_t PSc; /* one channel's slot: PR*PQ rounded up to 16 */
    int64_t CH;  /* channels per group */
    int64_t GB;  /* grid of a full group, rounded up to whole DW_B blocks */
    int64_t PS;  /* floats of one phase plane of a group, its zero tail included */
} DepthwiseGeom;

static inline int64_t depthwise_round_block(int64_t n)
{
    return (n + DW_B - 1) / DW_B * DW_B;
}

/* Channels per group: one with a multiplier M > 1 (its output channels share the plane),
 * else the fewest that leave at most 1/8 of the rounded grid junk, else the least junk, and
 * no more than DW_GROUP_FLOATS of grid (or one channel). */
static inline int64_t depthwise_group(int64_t C, int64_t M, int64_t PSc, int64_t last)
{
    int64_t most = DW_GROUP_FLOATS / PSc, best = 1;
    if (M > 1 || most < 1)
        return 1;
    if (most > C)
        most = C;
    double best_junk = 1.0;
    for (int64_t ch = 1; ch <= most; ch++) {
        const int64_t span = (ch - 1) * PSc + last, rounded = depthwise_round_block(span);
        const double junk = (double)(rounded - span) / (double)rounded;
        if (junk * 8.0 <= 1.0)
            return ch;
        if (junk < best_junk) {
            best = ch;
            best_junk = junk;
        }
    }
    return best;
}

static inline DepthwiseGeom depthwise_geom(int64_t C, int64_t M, int64_t KH, int64_t KW, int64_t OH,
                                           int64_t OW, int64_t stride_h, int64_t stride_w,
                                           int64_t dil_h, int64_t dil_w)
{
    DepthwiseGeom g;
    g.RA = (KH - 1) * dil_h / stride_h;
    g.CB = (KW - 1) * dil_w / stride_w;
    g.PR = OH + g.RA;
    g.PQ = OW + g.CB;
    g.PSc = (g.PR * g.PQ + 15) / 16 * 16;
    g.CH = depthwise_group(C, M, g.PSc, OH * g.PQ);
    g.GB = depthwise_round_block((g.CH - 1) * g.PSc + OH * g.PQ);
    g.PS = g.GB + g.RA * g.PQ + g.CB; /* the last block's furthest read fits */
    return g;
}

/* Floats of depthwise_conv_f32's work memory: the phase planes of one group and its grid. */
O2C_KERNEL int64_t depthwise_work_floats(int64_t C, int64_t M, int64_t KH, int64_t KW, int64_t OH,
                                         int64_t OW, int64_t stride_h, int64_t stride_w,
                                         int64_t dil_h, int64_t dil_w)
{
    const DepthwiseGeom g = depthwise_geom(C, M, KH, KW, OH, OW, stride_h, stride_w, dil_h, dil_w);
    return stride_h * stride_w * g.PS + g.GB;
}

/* The nch channels xc [nch][H][W] into their slots of the phase planes
 * [stride_h][stride_w][PS] (see above): only the positions that hold input are written. */
static void depthwise_planes_f32(int64_t H, int64_t W, const DepthwiseGeom *g, int64_t stride_h,
                                 int64_t stride_w, int64_t pad_t, int64_t pad_l, int64_t nch,
                                 const float *xc, float *planes)
{
    const int64_t PQ = g->PQ;
    for (int64_t a = 0; a < stride_h; a++) {
        /* plane rows r with input row ih = r*stride_h + a - pad_t in [0, H) */
        const int64_t off_h = a - pad_t;
        int64_t r_lo = off_h >= 0 ? 0 : (-off_h + stride_h - 1) / stride_h;
        int64_t r_hi = H - off_h <= 0 ? 0 : (H - off_h + stride_h - 1) / stride_h;
        if (r_hi > g->PR)
            r_hi = g->PR;
        for (int64_t b = 0; b < stride_w; b++) {
            const int64_t off_w = b - pad_l; /* iw = q*stride_w + off_w */
            int64_t q_lo = off_w >= 0 ? 0 : (-off_w + stride_w - 1) / stride_w;
            int64_t q_hi = W - off_w <= 0 ? 0 : (W - off_w + stride_w - 1) / stride_w;
            if (q_hi > PQ)
                q_hi = PQ;
            float *plane = planes + (a * stride_w + b) * g->PS;
            for (int64_t i = 0; i < nch; i++)
                for (int64_t r = r_lo; r < r_hi; r++) {
                    const float *xr = xc + (i * H + r * stride_h + off_h) * W + off_w;
                    float *d = plane + i * g->PSc + r * PQ;
                    if (stride_w == 1)
                        for (int64_t q = q_lo; q < q_hi; q++)
                            d[q] = xr[q];
                    else
                        for (int64_t q = q_lo; q < q_hi; q++)
                            d[q] = xr[q * stride_w];
                }
        }
    }
}

/* Grid positions g0 .. g0+DW_B-1 of a group whose vectors all belong to one channel, with
 * weights wk [KH][KW]: every tap in (kh, kw) order, each one fmaf per position from +0.0f.
 * The taps are not unrolled (gcc -O3 would then vectorise across them); the fixed-size inner
 * loop is DW_B/16 vector fmas on accumulators that stay in registers. planes as
 * depthwise_planes_f32 wrote them, grid [GB]. */
/* gcc's interprocedural passes (inlining, clones for constant arguments) would see constant
 * tap counts and strides here, unroll the taps and vectorise across them, leaving scalar fmas
 * on accumulators in memory (2.3x slower on mobilenet_v3_small): keep them out. */
#if defined(__GNUC__) && !defined(__clang__)
#define O2C_DW_NOIPA __attribute__((noipa))
#else
#define O2C_DW_NOIPA
#endif
O2C_DW_NOIPA static void depthwise_block_f32(int64_t KH, int64_t KW, int64_t stride_h,
                                             int64_t stride_w, int64_t dil_h, int64_t dil_w,
                                             const DepthwiseGeom *g, const float *wk,
                                             const float *planes, int64_t g0, float *grid)
{
    float acc[DW_B];
    for (int j = 0; j < DW_B; j++)
        acc[j] = 0.0f;
    /* kh*dil_h = ra*stride_h + a and kw*dil_w = cb*stride_w + b, stepped without divisions
     * (an integer division per tap cost more than the tap's 8 fmas) */
    int64_t a = 0, ra = 0;
#pragma GCC unroll 1
    for (int64_t kh = 0; kh < KH; kh++) {
        const float *prow = planes + a * stride_w * g->PS + ra * g->PQ + g0;
        int64_t b = 0, cb = 0;
#pragma GCC unroll 1
        for (int64_t kw = 0; kw < KW; kw++) {
            const float w = wk[kh * KW + kw];
            const float *restrict src = prow + b * g->PS + cb;
#pragma GCC unroll 128
            for (int j = 0; j < DW_B; j++)
                acc[j] = fmaf(w, src[j], acc[j]);
            for (b += dil_w; b >= stride_w; b -= stride_w)
                cb++;
        }
        for (a += dil_h; a >= stride_h; a -= stride_h)
            ra++;
    }
    for (int j = 0; j < DW_B; j++)
        grid[g0 + j] = acc[j];
}

/* depthwise_block_f32 for a block across channels: vector v of the block (grid positions
 * g0 + 16*v ...) has the weights wv[v] [KH][KW]. A copy of the tap stepping on purpose: one
 * function for both blocks made gcc -O3 emit scalar fmas for the plain block. */
O2C_DW_NOIPA static void depthwise_block_mixed_f32(int64_t KH, int64_t KW, int64_t stride_h,
                                                   int64_t stride_w, int64_t dil_h, int64_t dil_w,
                                                   const DepthwiseGeom *g, const float *const *wv,
                                                   const float *planes, int64_t g0, float *grid)
{
    float acc[DW_B];
    for (int j = 0; j < DW_B; j++)
        acc[j] = 0.0f;
    int64_t a = 0, ra = 0;
#pragma GCC unroll 1
    for (int64_t kh = 0; kh < KH; kh++) {
        const float *prow = planes + a * stride_w * g->PS + ra * g->PQ + g0;
        int64_t b = 0, cb = 0;
#pragma GCC unroll 1
        for (int64_t kw = 0; kw < KW; kw++) {
            const int64_t t = kh * KW + kw;
            const float *restrict src = prow + b * g->PS + cb;
#pragma GCC unroll 8
            for (int v = 0; v < DW_V; v++) {
                const float w = wv[v][t];
#pragma GCC unroll 16
                for (int l = 0; l < 16; l++)
                    acc[v * 16 + l] = fmaf(w, src[v * 16 + l], acc[v * 16 + l]);
            }
            for (b += dil_w; b >= stride_w; b -= stride_w)
                cb++;
        }
        for (a += dil_h; a >= stride_h; a -= stride_h)
            ra++;
    }
    for (int j = 0; j < DW_B; j++)
        grid[g0 + j] = acc[j];
}

/* The blocks of one group: nch channel slots, output channel (c0 + i)*M + m in slot i. */
static void depthwise_group_f32(int64_t KH, int64_t KW, int64_t OH, int64_t stride_h,
                                int64_t stride_w, int64_t dil_h, int64_t dil_w,
                                const DepthwiseGeom *g, int64_t M, int64_t c0, int64_t m,
                                int64_t nch, const float *w, const float *planes, float *grid)
{
    const int64_t taps = KH * KW, vpc = g->PSc / 16; /* vectors per slot */
    const int64_t end = depthwise_round_block((nch - 1) * g->PSc + OH * g->PQ);
    int64_t slot = 0, v_in_slot = 0; /* of the block's first vector */
    for (int64_t g0 = 0; g0 < end; g0 += DW_B) {
        const float *wv[DW_V];
        int64_t s = slot, v = v_in_slot;
        for (int j = 0; j < DW_V; j++) {
            const int64_t at = s < nch ? s : nch - 1; /* the rounding past the last slot */
            wv[j] = w + ((c0 + at) * M + m) * taps;
            if (++v == vpc) {
                v = 0;
                s++;
            }
        }
        slot = s;
        v_in_slot = v;
        if (wv[0] == wv[DW_V - 1])
            depthwise_block_f32(KH, KW, stride_h, stride_w, dil_h, dil_w, g, wv[0], planes, g0,
                                grid);
        else
            depthwise_block_mixed_f32(KH, KW, stride_h, stride_w, dil_h, dil_w, g, wv, planes, g0,
                                      grid);
    }
}

/* yc[oh][ow] = grid[oh*PQ + ow] (+ b): one slot of the grid without its dropped columns. No
 * bias is not "+ 0.0f" (that would turn -0.0f into +0.0f). yc [OH][OW]. */
static void depthwise_store_f32(const DepthwiseGeom *g, int64_t OH, int64_t OW, const float *grid,
                                const float *bias, int64_t oc, float *yc)
{
    for (int64_t oh = 0; oh < OH; oh++) {
        const float *src = grid + oh * g->PQ;
        float *dst = yc + oh * OW;
        if (bias) {
            const float b = bias[oc];
            for (int64_t ow = 0; ow < OW; ow++)
                dst[ow] = src[ow] + b;
        } else {
            memcpy(dst, src, (size_t)OW * sizeof(float));
        }
    }
}

/* Convolution with one input channel per group (Cg == 1: depthwise, M = OC/C output channels
 * per input channel), computed directly with the bits of im2col + gemm_f32: with Cg == 1 the
 * reduction index is the tap, k = kh*KW + kw, so each output element is
 *     acc = 0.0f; for kh, for kw: acc = fmaf(w[oc][kh][kw], x_or_0, acc)
 * padded taps included (fmaf(w, 0.0f, acc): the same bits for signed zeros, inf and NaN
 * weights); then y = acc + bias[oc] (bias NULL: y = acc). Geometry as im2col_f32 (1-D:
 * H = KH = OH = 1). Each group of input channels is copied once into its phase planes and
 * computed on the flat grid described above.
 *   x [N][C][H][W], w [C*M][KH][KW] (the ONNX layout [OC][1][KH][KW] as is), bias [C*M] or
 *   NULL, y [N][C*M][OH][OW] (not x), work [depthwise_work_floats(C, M, ...)] */
O2C_KERNEL void depthwise_conv_f32(int64_t N, int64_t C, int64_t M, int64_t H, int64_t W,
                                   int64_t KH, int64_t KW, int64_t OH, int64_t OW, int64_t stride_h,
                                   int64_t stride_w, int64_t pad_t, int64_t pad_l, int64_t dil_h,
                                   int64_t dil_w, const float *x, const float *w, const float *bias,
                                   float *y, float *work)
{
    const DepthwiseGeom g = depthwise_geom(C, M, KH, KW, OH, OW, stride_h, stride_w, dil_h, dil_w);
    const int64_t OC = C * M;
    float *planes = work, *grid = work + stride_h * stride_w * g.PS; /* [GB] */
    memset(planes, 0, (size_t)(stride_h * stride_w * g.PS) * sizeof(float));
    for (int64_t n = 0; n < N; n++)
        for (int64_t c0 = 0; c0 < C; c0 += g.CH) {
            const int64_t nch = C - c0 < g.CH ? C - c0 : g.CH;
            depthwise_planes_f32(H, W, &g, stride_h, stride_w, pad_t, pad_l, nch,
                                 x + (n * C + c0) * H * W, planes);
            for (int64_t m = 0; m < M; m++) {
                depthwise_group_f32(KH, KW, OH, stride_h, stride_w, dil_h, dil_w, &g, M, c0, m, nch,
                                    w, planes, grid);
                for (int64_t i = 0; i < nch; i++) {
                    const int64_t oc = (c0 + i) * M + m;
                    depthwise_store_f32(&g, OH, OW, grid + i * g.PSc, bias, oc,
                                        y + (n * OC + oc) * OH * OW);
                }
            }
        }
}
