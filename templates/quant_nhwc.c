/* quant_nhwc.c — QLinearConv's fast form (quant.c: qconv_s8) on channels-last tensors.
 *
 * x [N][D][H][W][C] uint8 or int8, y [N][OD][OH][OW][OC] uint8 or int8: what the layout pass
 * (compiler/layout_nhwc.c) makes of the integer convolutions of QDQ models, onnxruntime's
 * QLinearConv with channels_last = 1. The geometry geo[22] is qconv's (sizes, not layout); the
 * weights, bias_adj and mult come from quant.c as for qconv_s8 (qconv_s8_prepare), so that the
 * integers are qconv's exactly: the same exact int32 sum (the order of k is free for exact
 * sums), the same requantisation (qconv_s8_round). Activations are offset to uint8 as there
 * (int8 x ^ 0x80, its zero point + 128), padding taps read the offset zero point, whose share
 * bias_adj removes.
 *
 * Depthwise (one input and one output channel per group): weights [taps][Cp] (Cp = C rounded
 * up to 16, zero padded), each output pixel sums its taps across a block of up to
 * QNHWC_DWB channels, contiguous in x, w and y, so the loops over channels vectorise; the
 * requantisation runs across the block with each channel's multiplier.
 *
 * The others: weights [G][OCg/16][taps][Cq][16][4] (Cq = ceil(Cg/4); four input channels of
 * 16 output channels, zero padded): a tile of up to QNHWC_T consecutive output pixels and
 * up to QNHWC_NOB blocks of 16 output channels adds, per tap and quad of input channels, the
 * four bytes of each pixel (one 32-bit lane, contiguous in x) times the 16x4 weights: what
 * vpdpbusd does per 32-bit lane. With AVX512-VNNI (-march) that step is its intrinsic, else
 * the plain loop; both give the same exact integers.
 *
 * Part of the templates, pasted after quant.c, whose kernels it calls. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifndef O2C_KERNEL
#define O2C_KERNEL static
#endif

#if defined(__AVX512VNNI__) && defined(__AVX512BW__) && defined(__AVX512F__)
#include <immintrin.h>
#define QNHWC_VNNI 1
#endif

/* From quant.c, which the generated file pastes before this one. */
O2C_KERNEL int64_t quant_load(int type, const void *p, int64_t i);
O2C_KERNEL int32_t qconv_s8_round(int32_t a, double m, double yz, double lo, double hi);
O2C_KERNEL int32_t qconv_s8_round_small(int32_t a, double m, double yz, int32_t lo, int32_t hi);
O2C_KERNEL int qconv_s8_fits(const int64_t *geo, int32_t bias, double m, double yz);

#define QNHWC_OB  16 /* output channels per weight block: 16 int32 sums, one 512-bit vector */
#define QNHWC_NOB 4  /* most weight blocks per tile */
#define QNHWC_T   8  /* most output pixels per tile */
#define QNHWC_DWB 64 /* most channels per depthwise block */

static int qnhwc_depthwise(const int64_t *geo)
{
    return geo[1] == geo[6] && geo[5] == geo[6];
}

static int64_t qnhwc_up(int64_t n, int64_t m)
{
    return (n + m - 1) / m * m;
}

/* Bytes of qconv_nhwc_s8's packed weights. */
O2C_KERNEL int64_t qconv_nhwc_s8_wbytes(const int64_t *geo)
{
    const int64_t taps = geo[7] * geo[8] * geo[9], G = geo[6];
    if (qnhwc_depthwise(geo))
        return taps * qnhwc_up(geo[1], 16);
    return G * qnhwc_up(geo[5] / G, QNHWC_OB) * taps * qnhwc_up(geo[1] / G, 4);
}

/* wp = w [OC][Cg][KD][KH][KW] (the model's layout) in qconv_nhwc_s8's: depthwise [taps][Cp],
 * else [G][OCg/16][taps][Cq][16][4]; zero where the layout pads. */
O2C_KERNEL void qconv_nhwc_s8_weights(const int64_t *geo, const int8_t *w, int8_t *wp)
{
    const int64_t taps = geo[7] * geo[8] * geo[9], G = geo[6], Cg = geo[1] / G, OCg = geo[5] / G;
    memset(wp, 0, (size_t)qconv_nhwc_s8_wbytes(geo));
    if (qnhwc_depthwise(geo)) {
        const int64_t Cp = qnhwc_up(geo[1], 16);
        for (int64_t c = 0; c < geo[1]; c++)
            for (int64_t k = 0; k < taps; k++)
                wp[k * Cp + c] = w[c * taps + k];
        return;
    }
    const int64_t Cq = qnhwc_up(Cg, 4) / 4, OCgp = qnhwc_up(OCg, QNHWC_OB);
    for (int64_t g = 0; g < G; g++)
        for (int64_t o = 0; o < OCg; o++)
            for (int64_t ic = 0; ic < Cg; ic++)
                for (int64_t k = 0; k < taps; k++) {
                    const int64_t b = (g * OCgp + o) / QNHWC_OB, j = o % QNHWC_OB;
                    const int64_t at =
                        ((b * taps + k) * Cq + ic / 4) * 4 * QNHWC_OB + j * 4 + ic % 4;
                    wp[at] = w[((g * OCg + o) * Cg + ic) * taps + k];
                }
}

/* Scratch bytes: one padding pixel of C bytes, rounded up to whole blocks and quads. */
O2C_KERNEL int64_t qconv_nhwc_s8_scratch(const int64_t *geo)
{
    return qnhwc_up(geo[1], QNHWC_DWB) + 4;
}

/* The requantisation of qconv_s8 (qconv_s8_round) of n sums acc of consecutive output channels
 * with multipliers m, as bytes (uint8, or int8's two's complement); small: every channel
 * qconv_s8_fits, so the int32 clamp of qconv_s8_round_small gives the same values. */
static void qnhwc_requant(int64_t n, const int32_t *restrict acc, const double *restrict m,
                          double yz, int y_type, int small, uint8_t *restrict y)
{
    if (small) {
        const int32_t lo = y_type == 2 ? 0 : -128, hi = y_type == 2 ? 255 : 127;
        for (int64_t j = 0; j < n; j++)
            y[j] = (uint8_t)qconv_s8_round_small(acc[j], m[j], yz, lo, hi);
        return;
    }
    const double lo = y_type == 2 ? 0.0 : -128.0, hi = y_type == 2 ? 255.0 : 127.0;
    for (int64_t j = 0; j < n; j++)
        y[j] = (uint8_t)qconv_s8_round(acc[j], m[j], yz, lo, hi);
}

/* The input pixel (id, ih, iw) of an image xn [D][H][W][C], or the padding pixel. */
static const uint8_t *qnhwc_pixel(const int64_t *geo, const uint8_t *xn, const uint8_t *pad,
                                  int64_t id, int64_t ih, int64_t iw)
{
    if (id < 0 || id >= geo[2] || ih < 0 || ih >= geo[3] || iw < 0 || iw >= geo[4])
        return pad;
    return xn + ((id * geo[3] + ih) * geo[4] + iw) * geo[1];
}

/* Where output pixel p's window starts: org = {od*sd - pd, oh*sh - ph, ow*sw - pw}. */
static void qnhwc_origin(const int64_t *geo, int64_t p, int64_t *org)
{
    const int64_t OH = geo[11], OW = geo[12];
    org[0] = p / (OH * OW) * geo[13] - geo[16];
    org[1] = p / OW % OH * geo[14] - geo[17];
    org[2] = p % OW * geo[15] - geo[18];
}

/* Depthwise, one image: y [P][C] from xn [D][H][W][C], w [taps][Cp]. */
static void qnhwc_depthwise_image(const int64_t *geo, const uint8_t *xn, const uint8_t *pad,
                                  uint8_t flip, const int8_t *w, const int32_t *bias_adj,
                                  const double *mult, int y_type, double yz, int small, uint8_t *y)
{
    const int64_t C = geo[1], KD = geo[7], KH = geo[8], KW = geo[9];
    const int64_t P = geo[10] * geo[11] * geo[12], Cp = qnhwc_up(C, 16);
    int32_t acc[QNHWC_DWB];
    for (int64_t p = 0; p < P; p++) {
        int64_t org[3];
        qnhwc_origin(geo, p, org);
        for (int64_t c0 = 0; c0 < C; c0 += QNHWC_DWB) {
            const int64_t cb = C - c0 < QNHWC_DWB ? C - c0 : QNHWC_DWB;
            for (int64_t c = 0; c < cb; c++)
                acc[c] = bias_adj[c0 + c];
            int64_t k = 0;
            for (int64_t kd = 0; kd < KD; kd++)
                for (int64_t kh = 0; kh < KH; kh++)
                    for (int64_t kw = 0; kw < KW; kw++, k++) {
                        const uint8_t *restrict src =
                            qnhwc_pixel(geo, xn, pad, org[0] + kd * geo[19], org[1] + kh * geo[20],
                                        org[2] + kw * geo[21]) +
                            c0;
                        const int8_t *restrict wk = w + k * Cp + c0;
                        for (int64_t c = 0; c < cb; c++)
                            acc[c] += (int32_t)(uint8_t)(src[c] ^ flip) * wk[c];
                    }
            qnhwc_requant(cb, acc, mult + c0, yz, y_type, small, y + p * C + c0);
        }
    }
}

/* The 32-bit lane of input channels 4q .. 4q+3 of pixel px (n of them left, the rest 0). */
static uint32_t qnhwc_lane(const uint8_t *px, int64_t n)
{
    uint32_t v = 0;
    for (int64_t c = 0; c < n && c < 4; c++)
        v |= (uint32_t)px[c] << 8 * c;
    return v;
}

/* acc [nob][T][16] = bias + the sums of T output pixels whose windows start at org[t], for nob
 * blocks of 16 output channels of one group (xg: the image at the group's first channel; wb:
 * the first block's packed weights, blocks taps * Cq * 64 bytes apart). */
static void qnhwc_tile(const int64_t *geo, const uint8_t *xg, const uint8_t *pad, uint32_t flip4,
                       const int64_t (*org)[3], int64_t T, int64_t nob, const int8_t *wb,
                       const int32_t *bias, int32_t *restrict acc)
{
    const int64_t Cg = geo[1] / geo[6], Cf = Cg / 4, Cq = (Cg + 3) / 4;
    const int64_t KD = geo[7], KH = geo[8], KW = geo[9], bs = KD * KH * KW * Cq * 4 * QNHWC_OB;
    for (int64_t b = 0; b < nob; b++)
        for (int64_t t = 0; t < T; t++)
            for (int64_t j = 0; j < QNHWC_OB; j++)
                acc[(b * QNHWC_T + t) * QNHWC_OB + j] = bias[b * QNHWC_OB + j];
    const int8_t *wk = wb;
    for (int64_t kd = 0; kd < KD; kd++)
        for (int64_t kh = 0; kh < KH; kh++)
            for (int64_t kw = 0; kw < KW; kw++, wk += Cq * 4 * QNHWC_OB) {
                const uint8_t *px[QNHWC_T];
                for (int64_t t = 0; t < T; t++) {
                    px[t] = qnhwc_pixel(geo, xg, pad, org[t][0] + kd * geo[19],
                                        org[t][1] + kh * geo[20], org[t][2] + kw * geo[21]);
                }
                for (int64_t q = 0; q < Cq; q++) {
                    uint32_t a[QNHWC_T];
                    for (int64_t t = 0; t < T; t++) {
                        uint32_t v;
                        if (q < Cf)
                            memcpy(&v, px[t] + 4 * q, 4);
                        else
                            v = qnhwc_lane(px[t] + 4 * q, Cg - 4 * q);
                        a[t] = v ^ flip4;
                    }
                    for (int64_t b = 0; b < nob; b++) {
                        const int8_t *w = wk + b * bs + q * 4 * QNHWC_OB;
                        for (int64_t t = 0; t < T; t++) {
                            const int32_t a0 = (uint8_t)a[t], a1 = (uint8_t)(a[t] >> 8);
                            const int32_t a2 = (uint8_t)(a[t] >> 16), a3 = (uint8_t)(a[t] >> 24);
                            int32_t *r = acc + (b * QNHWC_T + t) * QNHWC_OB;
                            for (int64_t j = 0; j < QNHWC_OB; j++)
                                r[j] += a0 * w[4 * j] + a1 * w[4 * j + 1] + a2 * w[4 * j + 2] +
                                        a3 * w[4 * j + 3];
                        }
                    }
                }
            }
}

/* One image of the general form: y [P][OC] from xn [D][H][W][C]. */
static void qnhwc_image(const int64_t *geo, const uint8_t *xn, const uint8_t *pad, uint8_t flip,
                        const int8_t *w, const int32_t *bias_adj, const double *mult, int y_type,
                        double yz, int small, uint8_t *y)
{
    const int64_t G = geo[6], Cg = geo[1] / G, OC = geo[5], OCg = OC / G;
    const int64_t P = geo[10] * geo[11] * geo[12], taps = geo[7] * geo[8] * geo[9];
    const int64_t OCgp = qnhwc_up(OCg, QNHWC_OB), Cq = (Cg + 3) / 4;
    const uint32_t flip4 = (uint32_t)flip * 0x01010101u;
    int32_t acc[QNHWC_NOB * QNHWC_T * QNHWC_OB], bias[QNHWC_NOB * QNHWC_OB];
    for (int64_t g = 0; g < G; g++)
        for (int64_t p0 = 0; p0 < P; p0 += QNHWC_T) {
            const int64_t T = P - p0 < QNHWC_T ? P - p0 : QNHWC_T;
            int64_t org[QNHWC_T][3];
            for (int64_t t = 0; t < T; t++)
                qnhwc_origin(geo, p0 + t, org[t]);
            for (int64_t o0 = 0; o0 < OCg; o0 += QNHWC_NOB * QNHWC_OB) {
                const int64_t no =
                    OCg - o0 < QNHWC_NOB * QNHWC_OB ? OCg - o0 : QNHWC_NOB * QNHWC_OB;
                const int64_t nob = (no + QNHWC_OB - 1) / QNHWC_OB;
                for (int64_t j = 0; j < nob * QNHWC_OB; j++)
                    bias[j] = j < no ? bias_adj[g * OCg + o0 + j] : 0;
                qnhwc_tile(geo, xn + g * Cg, pad, flip4, (const int64_t(*)[3])org, T, nob,
                           w + (g * OCgp + o0) * taps * Cq * 4, bias, acc);
                for (int64_t t = 0; t < T; t++)
                    for (int64_t b = 0; b < nob; b++) {
                        const int64_t n =
                            no - b * QNHWC_OB < QNHWC_OB ? no - b * QNHWC_OB : QNHWC_OB;
                        const int64_t oc = g * OCg + o0 + b * QNHWC_OB;
                        qnhwc_requant(n, acc + (b * QNHWC_T + t) * QNHWC_OB, mult + oc, yz, y_type,
                                      small, y + (p0 + t) * OC + oc);
                    }
            }
        }
}

/* QLinearConv with int8 weights of zero point 0 on channels-last tensors: x [N][D][H][W][C]
 * of x_type (2 uint8, 3 int8), x_zp one element or NULL; w from qconv_nhwc_s8_weights;
 * bias_adj, mult from qconv_s8_prepare; y [N][OD][OH][OW][OC] of y_type (2 or 3) with y_zp (or
 * NULL); scratch: qconv_nhwc_s8_scratch(geo) bytes. The bytes of qconv_s8 (and qconv) in the
 * other layout. */
O2C_KERNEL void qconv_nhwc_s8(const int64_t *geo, int x_type, const void *x, const void *x_zp,
                              const int8_t *w, const int32_t *bias_adj, const double *mult,
                              int y_type, const void *y_zp, void *y, uint8_t *scratch)
{
    const int64_t N = geo[0], C = geo[1], OC = geo[5];
    const int64_t plane = geo[2] * geo[3] * geo[4], P = geo[10] * geo[11] * geo[12];
    const uint8_t flip = x_type == 3 ? 0x80 : 0;
    const uint8_t xz = (uint8_t)(quant_load(x_type, x_zp, 0) + (x_type == 3 ? 128 : 0));
    const double yz = (double)quant_load(y_type, y_zp, 0);
    int small = 1;
    for (int64_t oc = 0; oc < OC; oc++)
        small = small && qconv_s8_fits(geo, bias_adj[oc], mult[oc], yz);
    /* the padding pixel: bytes that read as the zero point once offset */
    memset(scratch, xz ^ flip, (size_t)qconv_nhwc_s8_scratch(geo));
    for (int64_t n = 0; n < N; n++) {
        const uint8_t *xn = (const uint8_t *)x + n * plane * C;
        uint8_t *yn = (uint8_t *)y + n * P * OC;
        if (qnhwc_depthwise(geo))
            qnhwc_depthwise_image(geo, xn, scratch, flip, w, bias_adj, mult, y_type, yz, small, yn);
        else
            qnhwc_image(geo, xn, scratch, flip, w, bias_adj, mult, y_type, yz, small, yn);
    }
}
