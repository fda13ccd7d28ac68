/* Unit test of templates/quant_nhwc.c: qconv_nhwc_s8 on random geometries (1-D to 3-D, padding,
 * strides, dilations, groups, depthwise, one-pixel products; uint8 and int8 activations and
 * outputs, per-tensor and per-channel scales, multipliers past the int32 clamp, extreme bytes
 * whose pairs of products overflow 16 bits) gives exactly
 * the bytes of quant.c's plain qconv on the same data transposed to channels-first. The
 * templates are compiled after kernels.h with extern kernels, so the prototypes are checked. */
#include "../../templates/kernels.h"

#define O2C_KERNEL
#define QNHWC_BAND_BYTES 256 /* several bands per image in the band form */
#define QNHWC_WQ         22  /* several chunks of widened quads (AVX2), split inside a source */
#include "../../templates/quant.c"
#include "../../templates/quant_nhwc.c"
#include "qconv_cases.h"

#include <stdio.h>

#include "check.h"

/* dst [N][C][S] = src [N][S][C] (to = 1) or back (to = 0), bytes. */
static void transpose(int64_t N, int64_t C, int64_t S, const uint8_t *src, uint8_t *dst, int to)
{
    for (int64_t n = 0; n < N; n++)
        for (int64_t c = 0; c < C; c++)
            for (int64_t s = 0; s < S; s++) {
                const int64_t cf = (n * C + c) * S + s, cl = (n * S + s) * C + c;
                if (to)
                    dst[cf] = src[cl];
                else
                    dst[cl] = src[cf];
            }
}

/* A 2-D depthwise window of 9 x 9 taps, more than QNHWC_TAPS: the taps in chunks (and, with
 * AVX2, the plain loop instead of the tap pairs). */
static void qnhwc_case_wide_taps(int64_t *geo)
{
    for (int j = 0; j < 3; j++)
        geo[2 + j] = geo[7 + j] = geo[10 + j] = geo[13 + j] = geo[19 + j] = 1, geo[16 + j] = 0;
    for (int j = 1; j < 3; j++) {
        const int64_t in = 9 + qrand() % 4, st = 1 + qrand() % 2, pb = qrand() % 5;
        const int64_t pe = qrand() % 5;
        geo[2 + j] = in, geo[7 + j] = 9, geo[13 + j] = st, geo[16 + j] = pb;
        geo[10 + j] = (in + pb + pe - 9) / st + 1;
    }
}

/* A 3-D window over one input plane padded along depth (padding 1 before, 0 or 1 after): output
 * planes of padding only, which the 2-D forms (band and row copies) must not take. */
static void qnhwc_case_padded_plane(int64_t *geo)
{
    const int64_t pe = qrand() % 2, st = 1 + qrand() % 2;
    geo[2] = geo[7] = geo[19] = 1, geo[13] = st, geo[16] = 1;
    geo[10] = (1 + 1 + pe - 1) / st + 1;
}

static void test_conv_nhwc(void)
{
    enum { MAXB = 1 << 16 };
    static uint8_t x[MAXB], xf[MAXB], y_ref[MAXB], y_refl[MAXB], y_fast[MAXB], scratch[MAXB];
    static int8_t w[MAXB], wp[MAXB];
    static int32_t bias[512], bias_adj[512];
    static double mult[512];
    static float ws[512];
    int failures = 0, runs = 0, depthwise = 0, wide = 0, grouped = 0, pixel1 = 0, clamp = 0;
    int tails = 0, dw_rows = 0, dw_pixels = 0, patch = 0, bands = 0, budgeted = 0, pairs = 0;
    int extreme = 0, chunked = 0, wide_taps = 0, padded_plane = 0, dw_bands = 0;
    int add_rounds = 0, fine_mult = 0;
    int dw_rows_wide = 0, dw_rows_many = 0;
    for (int trial = 0; trial < 800; trial++) {
        const int sp = trial % 4 == 0 ? 1 + (int)(qrand() % 3) : 2; /* mostly 2-D */
        int64_t G = qrand() % 3 == 0 ? 1 + qrand() % 8 : 1;
        const int dw = G > 1 && qrand() % 2;
        const int big = trial % 5 == 4; /* several tiles of 4 blocks, wide depthwise blocks */
        const int64_t Cg = dw ? 1 : 1 + qrand() % (big ? 80 : 9);
        const int64_t OCg = dw ? 1 : 1 + qrand() % (big ? 140 : 20);
        int64_t geo[24] = {1 + qrand() % 2, G * Cg, 1, 1, 1, G * OCg, G};
        if (dw && big)
            geo[1] = geo[5] = geo[6] = G = 60 + qrand() % 140;
        qconv_case_spatial(sp, 0, sp == 1 ? 30 : 7, geo);
        if (dw && trial % 8 == 5)
            qnhwc_case_wide_taps(geo);
        if (trial % 16 == 9)
            qnhwc_case_padded_plane(geo);
        if (trial % 16 == 3) /* a batch-1 product: one pixel, up to 200 channels */
            qconv_case_pixel(200, 200, geo);
        if (trial % 20 == 17) { /* depthwise, 96 channels (by rows: 3 blocks of 64 positions) or
                                 * 320 (by rows: a multiple of 64 past 256) */
            const int64_t C = trial % 40 == 37 ? 320 : 96;
            int64_t g[24] = {1, C, 1, 1, 1, C, C};
            qconv_case_spatial(2, 0, 7, g);
            memcpy(geo, g, sizeof g);
        }
        if (trial % 3 == 1) /* a scratch budget: the copies take at most that, or fall back */
            geo[22] = 64 + qrand() % 4096;
        if (dw && trial % 4 == 2 && qnhwc_dw_band(geo) > 2) { /* a budget of 1-2 output rows */
            int64_t e[3];
            qnhwc_dw_extents(geo, 1 + qrand() % 2, e);
            geo[22] = qnhwc_dw_row_scratch(geo, e);
        }
        const int64_t K = geo[1] / geo[6] * geo[7] * geo[8] * geo[9];
        const int64_t S = geo[2] * geo[3] * geo[4], P = geo[10] * geo[11] * geo[12];
        const int64_t xn = geo[0] * geo[1] * S, yn = geo[0] * geo[5] * P;
        if (xn > MAXB || yn > MAXB || geo[5] * K > MAXB || qconv_nhwc_s8_scratch(geo) > MAXB ||
            qconv_nhwc_s8_wbytes(geo) > MAXB || geo[5] > 512)
            continue;
        QConvCase c;
        qconv_case_data(trial, geo, x, w, bias, ws, &c);
        const int x_type = c.x_type, y_type = c.y_type, per_channel = c.per_channel;
        if (trial % 9 == 7) { /* activations at 255 once offset, weights +-127, -128 by pairs of
                               * channels: a pair of products sums to +-64770, past int16 (what
                               * vpmaddubsw would saturate) */
            for (int64_t i = 0; i < xn; i++)
                x[i] = i % 7 ? (x_type == 2 ? 255 : 127) : x[i];
            /* w [OC][ci][taps], ci the channels per group as geo has them (not Cg: a one-pixel
             * case changed them) */
            const int64_t ci = geo[1] / geo[6], taps = K / ci;
            for (int64_t i = 0; i < geo[5] * K; i++)
                w[i] = (int8_t)(i / taps % ci / 2 % 2 ? -128 : 127);
            extreme++;
        }
        if (trial % 11 == 3) /* a multiplier with bits below 2^-42: no rounding by the add */
            ws[0] = 0x1.000002p-20f;
        const uint8_t xz = c.xz, yz = c.yz;
        const float xs = c.xs, ys = c.ys;
        const int32_t *b = c.b;
        transpose(geo[0], geo[1], S, x, xf, 1);
        qconv(geo, x_type, xf, &xz, 3, w, NULL, 0, b, 1, &xs, ws, per_channel, &ys, y_type, &yz,
              y_ref);
        transpose(geo[0], geo[5], P, y_ref, y_refl, 0);
        if (!qconv_s8_prepare(geo, x_type, &xz, w, b, 1, &xs, ws, per_channel, &ys, bias_adj,
                              mult)) {
            failures++;
            continue;
        }
        memset(y_fast, 0xA5, (size_t)yn);
        if (trial % 2) /* the int32 flag found before (as the compiler does), else by the kernel */
            geo[23] = qconv_nhwc_s8_small(geo, bias_adj, mult, y_type, &yz);
        const int form = qconv_nhwc_s8_small(geo, bias_adj, mult, y_type, &yz) - 1;
        add_rounds += form == QNHWC_REQ_ADD;
        fine_mult += form == QNHWC_REQ_INT32;
        qconv_nhwc_s8_weights(geo, w, wp);
        qconv_nhwc_s8(geo, x_type, x, &xz, wp, bias_adj, mult, y_type, &yz, y_fast, scratch);
        runs++;
        const int copies = qnhwc_dw_rows(geo) || qnhwc_band_rows(geo);
        budgeted += geo[22] && copies;
        pairs += qnhwc_pairs(geo) && P > 1;
        if (geo[22] && copies && qconv_nhwc_s8_scratch(geo) > geo[22]) {
            failures++;
            printf("  trial %d takes %lld bytes of scratch over its budget %lld\n", trial,
                   (long long)qconv_nhwc_s8_scratch(geo), (long long)geo[22]);
        }
        depthwise += qnhwc_depthwise(geo) && geo[6] > 1;
        dw_rows += qnhwc_dw_rows(geo) && geo[6] > 1 && geo[15] > 1;
        dw_pixels += qnhwc_depthwise(geo) && geo[6] > 1 && !qnhwc_dw_rows(geo);
        dw_bands += qnhwc_dw_band(geo) && qnhwc_dw_band(geo) < geo[11];
        dw_rows_wide += qnhwc_dw_rows(geo) && geo[1] > 64 && geo[1] % 64;
        dw_rows_many += qnhwc_dw_rows(geo) && geo[1] > 256;
        wide_taps += qnhwc_depthwise(geo) && geo[6] > 1 && geo[8] * geo[9] > QNHWC_TAPS;
        padded_plane += geo[2] == 1 && geo[16] == 1;
        patch += !qnhwc_depthwise(geo) && !qnhwc_direct(geo) && !qnhwc_band_rows(geo) && P > 1;
        bands += qnhwc_band_rows(geo) && qnhwc_band_rows(geo) < geo[11];
        wide += qnhwc_depthwise(geo) ? geo[1] > QNHWC_DWB : geo[5] / geo[6] > QNHWC_NOB * QNHWC_OB;
        grouped += !qnhwc_depthwise(geo) && geo[6] > 1;
        pixel1 += P == 1;
        chunked += !qnhwc_depthwise(geo) && qnhwc_kq(geo) > QNHWC_WQ;
        tails += !qnhwc_depthwise(geo) && geo[1] / geo[6] % 4 && geo[1] / geo[6] > 4;
        for (int64_t oc = 0; oc < geo[5]; oc++)
            if (!qconv_s8_fits(geo, bias_adj[oc], mult[oc], (double)yz)) {
                clamp++;
                break;
            }
        if (memcmp(y_refl, y_fast, (size_t)yn)) {
            failures++;
            printf("  trial %d differs (G %lld C %lld OC %lld, K %lld)\n", trial, (long long)G,
                   (long long)geo[1], (long long)geo[5], (long long)K);
        }
    }
    printf("  qconv_nhwc_s8: %d geometries (%d depthwise: %d strided by rows, %d by pixels; %d "
           "wider than a tile, %d grouped, %d with channel tails, %d in the patch form, %d in "
           "several bands, %d of one pixel, %d with multipliers past the int32 clamp, %d copies "
           "under a scratch budget, %d of 8 channels by pixel pairs, %d of extreme bytes, %d "
           "of more than %d quads, %d depthwise of more than %d taps, %d of one plane padded "
           "along depth, %d depthwise rows in several bands, %d by rows of 96 channels, %d of "
           "320, %d rounded by an add, %d within int32 not so)\n",
           runs, depthwise, dw_rows, dw_pixels, wide, grouped, tails, patch, bands, pixel1, clamp,
           budgeted, pairs, extreme, chunked, QNHWC_WQ, wide_taps, QNHWC_TAPS, padded_plane,
           dw_bands, dw_rows_wide, dw_rows_many, add_rounds, fine_mult);
    check(!failures && runs > 300 && depthwise > 30 && dw_rows > 10 && dw_pixels > 10 &&
              wide > 20 && grouped > 20 && tails > 20 && patch > 50 && bands > 20 && pixel1 > 20 &&
              clamp > 20 && budgeted > 20 && pairs > 10 && extreme > 30 && chunked > 10 &&
              wide_taps > 3 && padded_plane > 10 && dw_bands > 5 && dw_rows_wide > 3 &&
              dw_rows_many > 3 && add_rounds > 300 && fine_mult > 20,
          "qconv_nhwc_s8 equals qconv byte for byte (channels-last)");
}

int main(void)
{
    test_conv_nhwc();
    printf("%d passed, %d failed\n", n_passed, n_failed);
    return n_failed ? 1 : 0;
}
