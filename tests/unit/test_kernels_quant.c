/* Unit test of templates/quant.c on hand-computed values: rounding half to even and
 * saturation of QuantizeLinear (per tensor, per axis, blocked with a remainder block),
 * DequantizeLinear, DynamicQuantizeLinear, the integer products with zero points, the
 * requantisation of QLinearMatMul (ties, saturation, float16 scales), float16 conversions, and
 * ConvInteger/QLinearConv padding, strides, groups and per-channel parameters. The template is
 * compiled after kernels.h with extern kernels, so the prototypes there are checked. */
#include "../../templates/kernels.h"

#define O2C_KERNEL
/* small, so that random cases take both forms of depthwise and blocked convolutions */
#define QCONV_DW_BYTES    1024
#define QCONV_PLANE_BYTES 4096
#include "../../templates/quant.c"
#include "qconv_cases.h"

#include <stdio.h>

#include "check.h"

static int same_i(const int32_t *got, const int32_t *want, int n, const char *what)
{
    for (int i = 0; i < n; i++)
        if (got[i] != want[i]) {
            printf("  %s element %d: got %d want %d\n", what, i, (int)got[i], (int)want[i]);
            return 0;
        }
    return 1;
}

static const int64_t per_tensor[3] = {0, 0, 0};

static void test_quantize(void)
{
    const float x[9] = {0.5f, 1.5f, 2.5f, -0.5f, -1.5f, 300.0f, -300.0f, NAN, 127.5f};
    const float one = 1.0f;
    uint8_t yu[9];
    quantize_linear_f32(1, 9, 1, 1, per_tensor, x, &one, 2, NULL, yu);
    const uint8_t wu[9] = {0, 2, 2, 0, 0, 255, 0, 0, 128};
    check(!memcmp(yu, wu, 9), "quantize uint8: half to even, saturation, NaN -> 0");

    const int8_t zp8 = 1;
    int8_t yi[9];
    quantize_linear_f32(1, 9, 1, 1, per_tensor, x, &one, 3, &zp8, yi);
    const int8_t wi[9] = {1, 3, 3, 1, -1, 127, -128, -128, 127};
    check(!memcmp(yi, wi, 9), "quantize int8 with zero point 1");

    const int16_t zp16 = -7;
    int16_t y16[9];
    quantize_linear_f32(1, 9, 1, 1, per_tensor, x, &one, 5, &zp16, y16);
    const int16_t w16[9] = {-7, -5, -5, -7, -9, 293, -307, -32768, 121};
    check(!memcmp(y16, w16, sizeof w16), "quantize int16");

    /* per axis: x [2][3] along axis 1 with scales (1, 2, 4), zero points (0, 10, 20) */
    const float xa[6] = {1.0f, 2.0f, 4.0f, 3.0f, 5.0f, 6.0f};
    const float sa[3] = {1.0f, 2.0f, 4.0f};
    const uint8_t za[3] = {0, 10, 20};
    const int64_t axis_s[3] = {0, 1, 0};
    uint8_t ya[6];
    quantize_linear_f32(2, 3, 1, 1, axis_s, xa, sa, 2, za, ya);
    const uint8_t wa[6] = {1, 11, 21, 3, 12, 22}; /* 5/2 = 2.5 -> 2; 6/4 = 1.5 -> 2 */
    check(!memcmp(ya, wa, 6), "quantize per axis");

    /* blocked: x [5] with block 2 -> 3 scales (1, 10, 100), the last block of one element */
    const float xb[5] = {1.0f, 2.0f, 30.0f, 40.0f, 500.0f};
    const float sb[3] = {1.0f, 10.0f, 100.0f};
    const int64_t block_s[3] = {3, 1, 1}; /* outer stride nblocks*inner, block index, inner */
    uint8_t yb[5];
    quantize_linear_f32(1, 5, 1, 2, block_s, xb, sb, 2, NULL, yb);
    const uint8_t wb[5] = {1, 2, 3, 4, 5};
    check(!memcmp(yb, wb, 5), "quantize blocked with a remainder block");
}

/* The per-tensor 8-bit form (quantize_per_tensor_q8) against the general loop (the same
 * scale and zero point given per element along an axis): ties, saturation at both ends,
 * NaN and infinities, every zero point of both types. */
static void test_quantize_per_tensor(void)
{
    enum { N = 512 };
    static float x[N], sc[N];
    static uint8_t got[N], want[N], zps[N];
    static const int64_t axis_s[3] = {0, 1, 0};
    const float scales[3] = {1.0f, 0.0078125f, 0.37f};
    uint32_t r = 12345;
    for (int i = 0; i < N; i++) {
        r = r * 1664525u + 1013904223u;
        x[i] = (float)((int32_t)(r >> 8) % 20000) / 32.0f; /* ties at .5, and past +-255 */
    }
    x[0] = NAN, x[1] = INFINITY, x[2] = -INFINITY, x[3] = 3e38f, x[4] = -3e38f, x[5] = -0.0f;
    int bad = 0;
    for (int type = 2; type <= 3; type++)
        for (int z = 0; z < 256; z += 5)
            for (int k = 0; k < 3; k++) {
                for (int i = 0; i < N; i++)
                    sc[i] = scales[k], zps[i] = (uint8_t)z;
                quantize_linear_f32(1, N, 1, 1, per_tensor, x, sc, type, zps, got);
                quantize_linear_f32(1, N, 1, 1, axis_s, x, sc, type, zps, want);
                bad += memcmp(got, want, N) != 0;
            }
    check(!bad, "quantize per tensor (uint8, int8) equals the general loop for every zero point");
}

static void test_dequantize(void)
{
    const uint8_t x[3] = {0, 128, 255};
    const uint8_t zp = 128;
    const float s = 0.5f;
    float y[4];
    dequantize_linear_f32(1, 3, 1, 1, per_tensor, 2, x, &s, &zp, y);
    check(y[0] == -64.0f && y[1] == 0.0f && y[2] == 63.5f, "dequantize uint8");

    const int32_t xi[2] = {2147483647, -2147483647 - 1};
    const int32_t zi = -1;
    const float s1 = 1.0f;
    dequantize_linear_f32(1, 2, 1, 1, per_tensor, 6, xi, &s1, &zi, y);
    check(y[0] == 2147483648.0f && y[1] == -2147483648.0f, "dequantize int32, exact difference");

    const int8_t xa[4] = {1, 2, 3, 4};
    const float sa[2] = {1.0f, 0.25f};
    const int8_t za[2] = {1, -4};
    const int64_t axis_s[3] = {0, 1, 0};
    dequantize_linear_f32(1, 2, 2, 1, axis_s, 3, xa, sa, za, y);
    check(y[0] == 0.0f && y[1] == 1.0f && y[2] == 1.75f && y[3] == 2.0f, "dequantize per axis");

    /* per tensor, 8 bits: every byte and zero point, the general loop's values (axis form) */
    enum { N = 256 };
    uint8_t xb[N], zs[N];
    float got[N], want[N], scs[N];
    int bad = 0;
    for (int i = 0; i < N; i++)
        xb[i] = (uint8_t)i, scs[i] = 0.0371f;
    for (int type = 2; type <= 3; type++)
        for (int z = 0; z < N; z++) {
            memset(zs, z, sizeof zs); /* per axis, every element its own (equal) parameters */
            dequantize_linear_f32(1, N, 1, 1, per_tensor, type, xb, scs, zs, got);
            dequantize_linear_f32(1, N, 1, 1, axis_s, type, xb, scs, zs, want);
            bad += memcmp(got, want, sizeof got) != 0;
        }
    check(!bad, "dequantize per tensor (uint8, int8) equals the general loop for every zero point");
}

static void test_dynamic(void)
{
    const float x[3] = {-1.0f, 0.0f, 3.0f};
    uint8_t y[3], zp;
    float scale;
    dynamic_quantize_linear_f32(3, x, y, &scale, &zp);
    /* scale = 4/255; zp = rint(1 / scale) = rint(63.75) = 64; y = rint(x/scale) + 64 */
    const float want_scale = 4.0f / 255.0f;
    check(scale == want_scale && zp == 64, "dynamic quantize scale and zero point");
    check(y[0] == 0 && y[1] == 64 && y[2] == 255, "dynamic quantize values");

    const float z[2] = {0.0f, 0.0f};
    dynamic_quantize_linear_f32(2, z, y, &scale, &zp);
    check(scale == 1.0f && zp == 0 && y[0] == 0, "dynamic quantize of zeros");
}

static void test_matmul(void)
{
    /* (A - 1) = [[0, 1], [2, 3]], (B - (1, 2)) = [[4, 4], [6, 6]] -> [[6, 6], [26, 26]] */
    const uint8_t A[4] = {1, 2, 3, 4}, az = 1;
    const int8_t B[4] = {5, 6, 7, 8}, bz[2] = {1, 2};
    int32_t Y[4];
    qmatmul(2, 2, 2, 2, A, &az, 3, B, bz, 1, 1, NULL, NULL, 0, NULL, 6, NULL, Y);
    const int32_t want[4] = {6, 6, 26, 26};
    check(same_i(Y, want, 4, "Y"), "matmul integer, per-column zero point");

    /* requantise: m = 0.5 * 1 / 1; acc 5 -> 2.5 -> 2, acc 7 -> 3.5 -> 4; + zp 10 */
    const uint8_t a[2] = {1, 2}, b[4] = {1, 3, 2, 2}; /* B [2][2]: columns (1, 2), (3, 2) */
    const float as = 0.5f, bs = 1.0f, ys = 1.0f;
    const uint8_t yz = 10;
    uint8_t y[2];
    qmatmul(1, 2, 2, 2, a, NULL, 2, b, NULL, 0, 1, &as, &bs, 0, &ys, 2, &yz, y);
    check(y[0] == 12 && y[1] == 14, "qlinear matmul: half to even");

    const uint8_t yz2 = 250;
    const float ys2 = 0.1f;
    qmatmul(1, 2, 2, 2, a, NULL, 2, b, NULL, 0, 1, &as, &bs, 0, &ys2, 2, &yz2, y);
    check(y[0] == 255 && y[1] == 255, "qlinear matmul: saturation");

    /* float16 scales 0.5, 1, 1 (0x3800, 0x3c00, 0x3c00) give the same */
    const uint16_t hs[3] = {0x3800, 0x3c00, 0x3c00};
    qmatmul(1, 2, 2, 2, a, NULL, 2, b, NULL, 0, 10, &hs[0], &hs[1], 0, &hs[2], 2, &yz, y);
    check(y[0] == 12 && y[1] == 14, "qlinear matmul: float16 scales");
}

static void test_half(void)
{
    check(quant_half_to_float(0x3c00) == 1.0f && quant_half_to_float(0xc000) == -2.0f &&
              quant_half_to_float(0x0001) == ldexpf(1.0f, -24) &&
              quant_half_to_float(0x7bff) == 65504.0f && isinf(quant_half_to_float(0x7c00)),
          "half to float");
    check(quant_float_to_half(1.0f) == 0x3c00 && quant_float_to_half(-2.0f) == 0xc000 &&
              quant_float_to_half(65519.0f) == 0x7bff && quant_float_to_half(65520.0f) == 0x7c00,
          "float to half: normals and overflow");
    check(quant_float_to_half(1.0f + ldexpf(1.0f, -11)) == 0x3c00 &&
              quant_float_to_half(1.0f + 3.0f * ldexpf(1.0f, -11)) == 0x3c02,
          "float to half: ties to even");
    check(quant_float_to_half(ldexpf(1.0f, -25)) == 0x0000 &&
              quant_float_to_half(3.0f * ldexpf(1.0f, -25)) == 0x0002 &&
              quant_float_to_half(ldexpf(1.0f, -14)) == 0x0400,
          "float to half: subnormals");
}

static void test_conv(void)
{
    /* x [1][1][3][3] = 1..9 with zero point 1 -> 0..8; w [2][1][2][2] = all 2 with per-channel
     * zero points (1, 2) -> ones and zeros; pads 1: output [1][2][4][4] */
    uint8_t x[9];
    for (int i = 0; i < 9; i++)
        x[i] = (uint8_t)(i + 1);
    const uint8_t xz = 1, w[8] = {2, 2, 2, 2, 2, 2, 2, 2}, wz[2] = {1, 2};
    const int64_t geo[22] = {1, 1, 1, 3, 3, 2, 1, 1, 2, 2, 1, 4, 4, 1, 1, 1, 0, 1, 1, 1, 1, 1};
    int32_t y[32];
    qconv(geo, 2, x, &xz, 2, w, wz, 1, NULL, 1, NULL, NULL, 0, NULL, 6, NULL, y);
    /* channel 0: sums of 2x2 windows of the zero-padded (x - 1) */
    const int32_t want0[16] = {0, 1, 3, 2, 3, 8, 12, 7, 9, 20, 24, 13, 6, 13, 15, 8};
    int32_t zeros[16] = {0};
    check(same_i(y, want0, 16, "channel 0") && same_i(y + 16, zeros, 16, "channel 1"),
          "conv integer: padding, per-channel zero point");

    /* no padding, bias 3, requantised to int8 with m = 0.25 * 2 / 1: window sums 8, 12, 20, 24
     * + 3 = 11, 15, 23, 27; * 0.5 = 5.5, 7.5, 11.5, 13.5 -> 6, 8, 12, 14; + zp -2 */
    const int64_t geo2[22] = {1, 1, 1, 3, 3, 1, 1, 1, 2, 2, 1, 1, 1, 1, 1, 1, 0, 0, 0, 1, 1, 1};
    const int32_t bias = 3;
    const float xs = 0.25f, ws = 2.0f, ys = 1.0f;
    const int8_t yz = -2;
    int8_t yq[1];
    qconv(geo2, 2, x, &xz, 2, w, wz, 1, &bias, 1, &xs, &ws, 0, &ys, 3, &yz, yq);
    check(yq[0] == 4, "qlinear conv: first window"); /* 8 + 3 = 11 -> 5.5 -> 6, - 2 */

    const int64_t geo3[22] = {1, 1, 1, 3, 3, 1, 1, 1, 2, 2, 1, 2, 2, 1, 1, 1, 0, 0, 0, 1, 1, 1};
    int8_t y4[4];
    qconv(geo3, 2, x, &xz, 2, w, wz, 1, &bias, 1, &xs, &ws, 0, &ys, 3, &yz, y4);
    check(y4[0] == 4 && y4[1] == 6 && y4[2] == 10 && y4[3] == 12, "qlinear conv: half to even");

    /* groups: 2 input channels, 2 output channels, group 2, 1x1 kernel of 1 with zero point 0:
     * each output channel copies its own input channel minus the input zero point */
    const uint8_t xg[4] = {5, 6, 7, 8}, wg[2] = {1, 3}, xgz = 5;
    const int64_t geo4[22] = {1, 2, 1, 1, 2, 2, 2, 1, 1, 1, 1, 1, 2, 1, 1, 1, 0, 0, 0, 1, 1, 1};
    int32_t yg[4];
    qconv(geo4, 2, xg, &xgz, 2, wg, NULL, 0, NULL, 1, NULL, NULL, 0, NULL, 6, NULL, yg);
    const int32_t wantg[4] = {0, 1, 6, 9};
    check(same_i(yg, wantg, 4, "Y"), "conv integer: groups");
}

/* qconv_s8 (int8 weights, zero point 0, precomputed bias and multipliers) gives exactly
 * qconv's bytes: random geometries with padding, strides, dilations, groups, depthwise, 1-D and
 * 3-D, uint8 and int8 activations and outputs, per-tensor and per-channel scales, ties. */
static void test_conv_s8(void)
{
    enum { MAXB = 1 << 16 };
    static uint8_t x[MAXB], y_ref[MAXB], y_fast[MAXB];
    static int32_t scratch_words[MAXB / 4]; /* the arena's alignment */
    uint8_t *scratch = (uint8_t *)scratch_words;
    static int8_t w[MAXB];
    static int32_t bias[256], bias_adj[256];
    static double mult[256];
    static float ws[256];
    int failures = 0, fast = 0, depthwise = 0, plane = 0, blocked = 0, tb16 = 0, pixel1 = 0;
    int plane_blocked = 0, dw_rows = 0, wide_m = 0, packed = 0, pixel_long = 0;
    for (int trial = 0; trial < 600; trial++) {
        const int sp = 1 + (int)(qrand() % 3); /* spatial dims */
        const int64_t G = qrand() % 3 == 0 ? 1 + qrand() % 8 : 1;
        const int dw = G > 1 && qrand() % 2;
        /* every 6th: wide channels (several blocks of 8 outputs, 16-pixel tiles of K > 512) */
        const int wide = trial % 6 == 5;
        const int64_t Cg = dw ? 1 : 1 + qrand() % (wide ? 90 : 6);
        const int64_t OCg = dw ? 1 : 1 + qrand() % (wide ? 20 : 5);
        /* unused leading spatial dims (1-D, 2-D) have size, kernel, stride, dilation 1 */
        int64_t geo[22] = {1 + qrand() % 2, G * Cg, 1, 1, 1, G * OCg, G};
        /* the plane form: stride 1 */
        qconv_case_spatial(sp, dw && trial % 2, sp == 1 ? 80 : 7, geo);
        if (trial % 32 == 3) /* a batch-1 product: one pixel, up to 140 channels */
            qconv_case_pixel(200, 140, geo);
        if (trial % 32 == 19) /* ... with patches of several chunks (QCONV_GEMV_KC) */
            qconv_case_pixel(1300, 40, geo);
        const int64_t K = geo[1] / geo[6] * geo[7] * geo[8] * geo[9];
        const int64_t xn = geo[0] * geo[1] * geo[2] * geo[3] * geo[4];
        const int64_t yn = geo[0] * geo[5] * geo[10] * geo[11] * geo[12];
        if (xn > MAXB || yn > MAXB || geo[5] * K > MAXB || qconv_s8_scratch(geo) > MAXB)
            continue;
        QConvCase c;
        qconv_case_data(trial, geo, x, w, bias, ws, &c);
        const int x_type = c.x_type, y_type = c.y_type, per_channel = c.per_channel;
        const uint8_t xz = c.xz, yz = c.yz;
        const float xs = c.xs, ys = c.ys;
        const int32_t *b = c.b;
        qconv(geo, x_type, x, &xz, 3, w, NULL, 0, b, 1, &xs, ws, per_channel, &ys, y_type, &yz,
              y_ref);
        if (!qconv_s8_prepare(geo, x_type, &xz, w, b, 1, &xs, ws, per_channel, &ys, bias_adj,
                              mult)) {
            failures++;
            continue;
        }
        memset(y_fast, 0xA5, (size_t)yn);
        static int8_t wp[MAXB];
        if (qconv_s8_wbytes(geo) > MAXB)
            continue;
        qconv_s8_weights(geo, w, wp);
        qconv_s8(geo, x_type, x, &xz, wp, bias_adj, mult, y_type, &yz, y_fast, scratch);
        fast++;
        depthwise += qconv_s8_depthwise(geo) && geo[6] > 1;
        plane += qconv_s8_depthwise(geo) && geo[6] > 1 && qconv_s8_plane(geo) &&
                 geo[13] * geo[14] * geo[15] > 1;
        dw_rows += qconv_s8_depthwise(geo) && geo[6] > 1 && !qconv_s8_plane(geo);
        blocked += qconv_s8_blocked(geo) && geo[5] / geo[6] > QCONV_OCB;
        tb16 += qconv_s8_blocked(geo) && qconv_s8_tb(geo) == 16;
        plane_blocked += qconv_s8_plane_blocked(geo);
        packed += qconv_s8_blocked(geo) && !qconv_s8_plane_blocked(geo);
        wide_m += !qconv_s8_fits(geo, bias_adj[0], mult[0], (double)yz);
        pixel1 += !qconv_s8_depthwise(geo) && geo[10] * geo[11] * geo[12] == 1;
        pixel_long += !qconv_s8_depthwise(geo) && geo[10] * geo[11] * geo[12] == 1 &&
                      qconv_s8_row(geo) > QCONV_GEMV_KC;
        if (memcmp(y_ref, y_fast, (size_t)yn)) {
            failures++;
            printf("  trial %d differs (G %lld Cg %lld OCg %lld, K %lld)\n", trial, (long long)G,
                   (long long)Cg, (long long)OCg, (long long)K);
        }
    }
    printf("  qconv_s8: %d geometries (%d depthwise, %d of them strided planes, %d by rows; "
           "blocked: %d of more "
           "than 8 outputs, %d of 16-pixel tiles, %d in the plane form, %d packed per tile; %d of "
           "one pixel, %d of them longer than a chunk; %d with "
           "multipliers past the int32 clamp)\n",
           fast, depthwise, plane, dw_rows, blocked, tb16, plane_blocked, packed, pixel1,
           pixel_long, wide_m);
    check(!failures && fast > 200 && depthwise > 20 && plane > 5 && dw_rows > 5 && blocked > 5 &&
              tb16 > 2 && plane_blocked > 20 && packed > 10 && wide_m > 20 && pixel1 > 20 &&
              pixel_long > 3,
          "qconv_s8 equals qconv byte for byte");

    /* the prepare step refuses sums that could leave int32 */
    const int64_t big[22] = {1, 70000, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 1, 1, 1};
    static int8_t wbig[70000];
    const uint8_t z = 0;
    const float one = 1.0f;
    check(!qconv_s8_prepare(big, 2, &z, wbig, NULL, 1, &one, &one, 0, &one, bias_adj, mult),
          "qconv_s8_prepare refuses K = 70000 (the int32 bound)");
    int32_t hb = 2147483000;
    const int64_t one_tap[22] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 1, 1, 1};
    check(!qconv_s8_prepare(one_tap, 2, &z, wbig, &hb, 1, &one, &one, 0, &one, bias_adj, mult),
          "qconv_s8_prepare refuses a bias next to the int32 bound");
}

int main(void)
{
    test_quantize();
    test_quantize_per_tensor();
    test_dequantize();
    test_dynamic();
    test_matmul();
    test_half();
    test_conv();
    test_conv_s8();
    printf("%d passed, %d failed\n", n_passed, n_failed);
    return n_failed ? 1 : 0;
}
