/* conv_pool.c — a dense conv and the MaxPool that reads its output, as one step, channels last
 * (compiler/fuse_conv_pool.c fuses them): the conv's output is never stored whole, only a band
 * of its rows (ResNet's and SqueezeNet's first conv: 112x112x64 floats, 3.2 MB, which left L2
 * for L3 and came back for the pool).
 *
 * Layout: x as conv_nhwc_f32's (cgeo[CONV_NHWC_NGEO], NHWC or an NCHW graph input) -> c, the
 * conv with its bias and epilogues (without operands: Relu, Clip) [N][OHc][OWc][OC] ->
 * y [N][OH][OW][OC], the MaxPool of c (pgeo[NHWC_GEO_LEN] of pool_nhwc.c, its H, W, C c's).
 *
 * Method: per image, the pool's output rows run P at a time; before each group the band holds
 * the conv rows that the group's windows read, [lo, hi): those already computed for the last
 * group are moved to the top of the band, the others computed into it (conv_nhwc_rows_f32),
 * then maxpool_nhwc_f32 runs the group's rows on the band as an image of hi - lo rows whose top
 * padding is what remains of the pool's above lo.
 *
 * Bits: each element of c is the unfused conv's (its sum does not depend on the rows computed
 * with it) and each window sees the same taps in the same order as over the whole c (the rows
 * of c that it reads are all in the band, the ones outside c are outside the band): the bits of
 * the two unfused ops.
 *
 * Part of the templates: pasted after conv_nhwc.c and pool_nhwc.c, whose kernels it calls; also
 * linked into the compiler. Every function is O2C_KERNEL. */
#include <stdint.h>
#include <string.h>

#ifndef O2C_KERNEL
#define O2C_KERNEL static
#endif

#ifndef O2C_NHWC_GEO /* (the generated file has depthwise_nhwc.c's and conv_nhwc.c's enums) */
#include "kernels.h"
#endif

/* From conv_nhwc.c and pool_nhwc.c, which the generated file pastes before. */
struct ConvEpilogue;
O2C_KERNEL void conv_nhwc_rows_f32(const int64_t *geo, const float *x, const float *wp,
                                   const float *bias, const struct ConvEpilogue *ep, int nep,
                                   int64_t ob, int64_t oe, float *y, float *work);
O2C_KERNEL void maxpool_nhwc_f32(const int64_t *geo, const float *x, float *y);

/* Conv rows that P pool rows read at most. */
O2C_KERNEL int64_t conv_maxpool_span(const int64_t *pgeo, int64_t P)
{
    const int64_t span =
        (P - 1) * pgeo[NHWC_GEO_SH] + (pgeo[NHWC_GEO_KH] - 1) * pgeo[NHWC_GEO_DH] + 1;
    return span < pgeo[NHWC_GEO_H] ? span : pgeo[NHWC_GEO_H];
}

/* Floats of the band for P pool rows per group. */
O2C_KERNEL int64_t conv_maxpool_band_floats(const int64_t *cgeo, const int64_t *pgeo, int64_t P)
{
    return conv_maxpool_span(pgeo, P) * pgeo[NHWC_GEO_W] * cgeo[CONV_NHWC_G] * cgeo[CONV_NHWC_OCG];
}

/* y = maxpool(conv(x)), see above. band [conv_maxpool_band_floats(cgeo, pgeo, P)] and work
 * [conv_nhwc_work_floats(cgeo)] (NULL when that is 0) of scratch; y must not overlap x, band or
 * work. wp, bias, ep as conv_nhwc_f32's (ep without operands). */
O2C_KERNEL void conv_maxpool_nhwc_f32(const int64_t *cgeo, const float *x, const float *wp,
                                      const float *bias, const struct ConvEpilogue *ep, int nep,
                                      const int64_t *pgeo, int64_t P, float *y, float *band,
                                      float *work)
{
    const int64_t N = cgeo[CONV_NHWC_N], OHc = pgeo[NHWC_GEO_H];
    const int64_t OH = pgeo[NHWC_GEO_OH], SH = pgeo[NHWC_GEO_SH], PT = pgeo[NHWC_GEO_PT];
    const int64_t reach = (pgeo[NHWC_GEO_KH] - 1) * pgeo[NHWC_GEO_DH] + 1;
    const int64_t rowf = pgeo[NHWC_GEO_W] * pgeo[NHWC_GEO_C];  /* a conv row */
    const int64_t orow = pgeo[NHWC_GEO_OW] * pgeo[NHWC_GEO_C]; /* a pool row */
    const int64_t xfloats = cgeo[CONV_NHWC_H] * cgeo[CONV_NHWC_W] * cgeo[CONV_NHWC_C];
    int64_t c1[CONV_NHWC_NGEO], p1[NHWC_GEO_LEN];
    memcpy(c1, cgeo, sizeof c1);
    memcpy(p1, pgeo, sizeof p1);
    c1[CONV_NHWC_N] = 1;
    p1[NHWC_GEO_N] = 1;
    for (int64_t n = 0; n < N; n++) {
        int64_t s0 = 0, s1 = 0; /* the band holds conv rows [s0, s1) */
        for (int64_t o0 = 0; o0 < OH; o0 += P) {
            const int64_t rows = OH - o0 < P ? OH - o0 : P;
            int64_t lo = o0 * SH - PT, hi = (o0 + rows - 1) * SH - PT + reach;
            lo = lo < 0 ? 0 : lo < OHc ? lo : OHc;
            hi = hi < lo ? lo : hi < OHc ? hi : OHc;
            if (lo < s1) { /* rows [lo, s1) were computed for the last group */
                memmove(band, band + (lo - s0) * rowf, (size_t)((s1 - lo) * rowf) * sizeof(float));
            } else {
                s1 = lo;
            }
            s0 = lo;
            if (hi > s1)
                conv_nhwc_rows_f32(c1, x + n * xfloats, wp, bias, ep, nep, s1, hi,
                                   band + (s1 - s0) * rowf, work);
            s1 = hi > s1 ? hi : s1;
            p1[NHWC_GEO_H] = s1 - s0;
            p1[NHWC_GEO_OH] = rows;
            p1[NHWC_GEO_PT] = PT + s0 - o0 * SH;
            maxpool_nhwc_f32(p1, band, y + (n * OH + o0) * orow);
        }
    }
}
