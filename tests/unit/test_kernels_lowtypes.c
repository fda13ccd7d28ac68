/* Unit test of templates/lowtypes.c: float8 / float4 / float8e8m0 codes worked out by hand
 * (rounding ties, saturation and its absence, NaN, signed zeros, subnormals, the carry into
 * the smallest normal), 4-bit and 2-bit integer wrapping, cast_low between these types and
 * float / float16 / int8, QuantizeLinear and DequantizeLinear with float8 and float4, and the
 * 4-bit / 2-bit integer types in quant.c. (A comparison against ml_dtypes over
 * every float16 and 200k random floats agreed bit for bit when this was written.) */
#include "../../templates/kernels.h"

#define O2C_KERNEL
#include "../../templates/lowtypes.c"
#include "../../templates/quant.c"
#include "../../templates/types.c"

#include <stdio.h>

#include "check.h"

enum {
    E4M3FN = 17,
    E4M3FNUZ = 18,
    E5M2 = 19,
    E5M2FNUZ = 20,
    UINT4 = 21,
    INT4 = 22,
    FP4 = 23,
    E8M0 = 24,
    UINT2 = 25,
    INT2 = 26
};

static void test_e4m3fn(void)
{
    check(float_to_low(E4M3FN, 1.0, 1) == 0x38, "e4m3fn 1 = 0 0111 000");
    check(float_to_low(E4M3FN, 448.0, 1) == 0x7e, "e4m3fn max 448");
    check(float_to_low(E4M3FN, 464.0, 0) == 0x7e, "e4m3fn 464: tie to even 448");
    check(float_to_low(E4M3FN, 464.5, 0) == 0x7f, "e4m3fn above the tie, no saturate: NaN");
    check(float_to_low(E4M3FN, 464.5, 1) == 0x7e, "e4m3fn above the tie, saturate: 448");
    check(float_to_low(E4M3FN, -1e6, 0) == 0xff, "e4m3fn -1e6 no saturate: -NaN");
    check(float_to_low(E4M3FN, -1e6, 1) == 0xfe, "e4m3fn -1e6 saturate: -448");
    check(float_to_low(E4M3FN, INFINITY, 1) == 0x7e, "e4m3fn inf saturate");
    check(float_to_low(E4M3FN, INFINITY, 0) == 0x7f, "e4m3fn inf: NaN (no infinity)");
    check(float_to_low(E4M3FN, NAN, 1) == 0x7f && float_to_low(E4M3FN, -NAN, 1) == 0xff,
          "e4m3fn NaN keeps its sign");
    check(float_to_low(E4M3FN, ldexp(1.0, -9), 1) == 0x01, "e4m3fn smallest subnormal");
    check(float_to_low(E4M3FN, ldexp(1.0, -10), 1) == 0x00, "e4m3fn half of it: tie to 0");
    check(float_to_low(E4M3FN, ldexp(1.5, -10), 1) == 0x01, "e4m3fn 0.75 of it: up");
    check(float_to_low(E4M3FN, -ldexp(1.0, -10), 1) == 0x80, "e4m3fn -tiny: -0");
    check(float_to_low(E4M3FN, ldexp(7.5, -9), 1) == 0x08, "e4m3fn carry into smallest normal");
    check(float_to_low(E4M3FN, 96.0, 1) == 0x6c && float_to_low(E4M3FN, 100.0, 1) == 0x6c,
          "e4m3fn 100: tie to even 96 = 0 1101 100");
    check(low_to_float(E4M3FN, 0x7e) == 448.0f && low_to_float(E4M3FN, 0x01) == 1.0f / 512,
          "e4m3fn decode");
    check(isnan(low_to_float(E4M3FN, 0x7f)) && isnan(low_to_float(E4M3FN, 0xff)),
          "e4m3fn decode NaN");
    check(low_to_float(E4M3FN, 0x80) == 0.0f && signbit(low_to_float(E4M3FN, 0x80)),
          "e4m3fn decode -0");
}

static void test_other_float8(void)
{
    check(float_to_low(E4M3FNUZ, 1.0, 1) == 0x40, "e4m3fnuz 1 (bias 8)");
    check(float_to_low(E4M3FNUZ, 240.0, 1) == 0x7f, "e4m3fnuz max 240");
    check(float_to_low(E4M3FNUZ, 256.0, 0) == 0x80, "e4m3fnuz overflow: NaN 0x80");
    check(float_to_low(E4M3FNUZ, -256.0, 1) == 0xff, "e4m3fnuz saturate -240");
    check(float_to_low(E4M3FNUZ, -0.0, 1) == 0x00, "e4m3fnuz -0 -> +0");
    check(float_to_low(E4M3FNUZ, -ldexp(1.0, -12), 1) == 0x00, "e4m3fnuz -tiny -> +0");
    check(float_to_low(E4M3FNUZ, NAN, 0) == 0x80 && float_to_low(E4M3FNUZ, -NAN, 0) == 0x80,
          "e4m3fnuz NaN");
    check(isnan(low_to_float(E4M3FNUZ, 0x80)) && low_to_float(E4M3FNUZ, 0xff) == -240.0f,
          "e4m3fnuz decode");
    check(float_to_low(E5M2, 1.0, 1) == 0x3c, "e5m2 1 = 0 01111 00");
    check(float_to_low(E5M2, 57344.0, 0) == 0x7b, "e5m2 max");
    check(float_to_low(E5M2, 61440.0, 0) == 0x7c, "e5m2 tie above max rounds to inf");
    check(float_to_low(E5M2, 61440.0, 1) == 0x7b, "e5m2 saturate");
    check(float_to_low(E5M2, -INFINITY, 0) == 0xfc && float_to_low(E5M2, -INFINITY, 1) == 0xfb,
          "e5m2 -inf");
    check(float_to_low(E5M2, NAN, 0) == 0x7e && float_to_low(E5M2, -NAN, 0) == 0xfe, "e5m2 NaN");
    check(low_to_float(E5M2, 0x7c) == INFINITY && isnan(low_to_float(E5M2, 0x7d)),
          "e5m2 decode inf/NaN");
    check(low_to_float(E5M2, 0x01) == ldexpf(1.0f, -16), "e5m2 smallest subnormal");
    check(float_to_low(E5M2FNUZ, 1.0, 1) == 0x40, "e5m2fnuz 1 (bias 16)");
    check(float_to_low(E5M2FNUZ, 1e6, 0) == 0x80 && float_to_low(E5M2FNUZ, 1e6, 1) == 0x7f,
          "e5m2fnuz overflow");
    check(low_to_float(E5M2FNUZ, 0x7f) == 57344.0f, "e5m2fnuz decode max");
}

static void test_float4(void)
{
    check(float_to_low(FP4, 6.0, 0) == 0x7 && float_to_low(FP4, 1e6, 0) == 0x7,
          "float4 saturates always");
    check(float_to_low(FP4, 5.0, 0) == 0x6, "float4 5: tie to even 4");
    check(float_to_low(FP4, 0.25, 0) == 0x0 && float_to_low(FP4, 0.75, 0) == 0x2,
          "float4 ties at the subnormal");
    check(float_to_low(FP4, -3.5, 0) == 0xe, "float4 -3.5: tie to -4");
    check(float_to_low(FP4, -INFINITY, 0) == 0xf, "float4 -inf -> -6");
    check(float_to_low(FP4, NAN, 0) == 0x8 && float_to_low(FP4, -NAN, 0) == 0x0,
          "float4 NaN: ml_dtypes' zero of the other sign");
    check(float_to_low(FP4, -0.0, 0) == 0x8, "float4 -0");
    check(low_to_float(FP4, 0x7) == 6.0f && low_to_float(FP4, 0x1) == 0.5f &&
              low_to_float(FP4, 0xb) == -1.5f,
          "float4 decode");
}

static void test_e8m0(void)
{
    check(float_to_e8m0(1.0f, 1, 0) == 127 && float_to_e8m0(-4.0f, 1, 0) == 129,
          "e8m0 powers of two, sign ignored");
    check(float_to_e8m0(1.1f, 1, 0) == 128 && float_to_e8m0(1.1f, 1, 1) == 127, "e8m0 up/down");
    check(float_to_e8m0(3.0f, 1, 2) == 129 && float_to_e8m0(1.1f, 1, 2) == 127, "e8m0 nearest");
    check(float_to_e8m0(0.0f, 1, 0) == 0, "e8m0 zero");
    check(float_to_e8m0(ldexpf(1.5f, 127), 1, 0) == 0xfe &&
              float_to_e8m0(ldexpf(1.5f, 127), 0, 0) == 0xff,
          "e8m0 top: saturate or NaN");
    check(float_to_e8m0(INFINITY, 1, 0) == 0xff && float_to_e8m0(NAN, 1, 0) == 0xff,
          "e8m0 inf, NaN");
    check(e8m0_to_float(127) == 1.0f && e8m0_to_float(0) == ldexpf(1.0f, -127) &&
              isnan(e8m0_to_float(0xff)),
          "e8m0 decode");
}

static void test_ints(void)
{
    check(low_int_wrap(INT4, -9) == 7 && low_int_wrap(INT4, 8) == -8, "int4 wraps");
    check(low_int_wrap(UINT4, 16) == 0 && low_int_wrap(UINT4, -1) == 15, "uint4 wraps");
    check(low_int_wrap(INT2, 2) == -2 && low_int_wrap(UINT2, 5) == 1, "2-bit wraps");
    check(double_to_low_int(INT4, -2.7) == -2 && double_to_low_int(INT4, 100.5) == 4,
          "int4 from float: truncate, wrap");
    check(double_to_low_int(INT4, NAN) == 0 && double_to_low_int(INT4, 1e10) == 0 &&
              double_to_low_int(UINT4, -INFINITY) == 0,
          "int4 from NaN, huge: 0");
}

static void test_cast(void)
{
    const float f[4] = {448.0f, -0.5f, 1e6f, NAN};
    const uint16_t h[2] = {0x5f00, 0xbc00}; /* float16 448, -1 */
    const int8_t i4[3] = {-8, 7, -1};
    const uint8_t e8[2] = {0x7e, 0xb0}, e8m0[2] = {0xfe, 127};
    uint8_t y[4];
    int8_t yi[3];
    float yf[3];
    uint16_t yh[2];
    cast_low(4, 1, f, E4M3FN, y, 1, 0);
    check(y[0] == 0x7e && y[1] == 0xb0 && y[2] == 0x7e && y[3] == 0x7f, "float -> e4m3fn");
    cast_low(4, 1, f, E4M3FN, y, 0, 0);
    check(y[2] == 0x7f, "float -> e4m3fn, no saturate");
    cast_low(2, 10, h, E4M3FN, y, 1, 0);
    check(y[0] == 0x7e && y[1] == 0xb8, "float16 -> e4m3fn");
    cast_low(2, E4M3FN, e8, 10, yh, 1, 0);
    check(yh[0] == 0x5f00 && yh[1] == 0xb800, "e4m3fn -> float16");
    cast_low(2, E8M0, e8m0, 10, yh, 1, 0);
    check(yh[0] == 0x7c00 && yh[1] == 0x3c00, "e8m0 -> float16: 2^127 overflows");
    cast_low(3, INT4, i4, 1, yf, 1, 0);
    check(yf[0] == -8.0f && yf[1] == 7.0f && yf[2] == -1.0f, "int4 -> float");
    cast_low(3, INT4, i4, 3, yi, 1, 0);
    check(yi[0] == -8 && yi[1] == 7 && yi[2] == -1, "int4 -> int8");
    cast_low(3, 1, (const float[]){-3.0f, 2.0f, 1.9f}, INT2, yi, 1, 0);
    check(yi[0] == 1 && yi[1] == -2 && yi[2] == 1, "float -> int2 wraps");
    cast_low(2, 1, (const float[]){3.0f, 1.1f}, E8M0, y, 1, 1);
    check(y[0] == 128 && y[1] == 127, "float -> e8m0 round down");
}

static void test_quant(void)
{
    const int64_t s0[3] = {0, 0, 0};
    const float x[5] = {0.0f, 1.0f, 2.0f, 100000.0f, 200.0f}, two = 2.0f, one = 1.0f;
    uint8_t y[5];
    float yf[5];
    int8_t yi[3];
    uint8_t yu[3];
    quantize_linear_low(1, 5, 1, 1, s0, x, &two, E4M3FN, NULL, 1, y);
    check(y[0] == 0x00 && y[1] == 0x30 && y[2] == 0x38 && y[3] == 0x7e && y[4] == 0x6c,
          "quantize e4m3fn: 0 .5 1 448(saturated) 96");
    quantize_linear_low(1, 5, 1, 1, s0, x, &two, E4M3FN, NULL, 0, y);
    check(y[3] == 0x7f, "quantize e4m3fn, no saturate: NaN");
    const uint8_t zp1 = 0x2; /* float4 1.0 */
    quantize_linear_low(1, 1, 1, 1, s0, (const float[]){3.0f}, &one, FP4, &zp1, 1, y);
    check(y[0] == 0x6, "quantize float4 3 + zero point 1 = 4");
    dequantize_linear_low(1, 2, 1, 1, s0, E4M3FN, (const uint8_t[]){0x38, 0xb0}, &two, yf);
    check(yf[0] == 2.0f && yf[1] == -1.0f, "dequantize e4m3fn");
    const int8_t zp_i4 = 1;
    quantize_linear_f32(1, 3, 1, 1, s0, (const float[]){-30.0f, 2.5f, 9.0f}, &two, INT4, &zp_i4,
                        yi);
    check(yi[0] == -8 && yi[1] == 2 && yi[2] == 5, "quantize int4: saturate, ties to even");
    quantize_linear_f32(1, 3, 1, 1, s0, (const float[]){-2.0f, 5.0f, 3.0f}, &two, UINT2, NULL, yu);
    check(yu[0] == 0 && yu[1] == 2 && yu[2] == 2, "quantize uint2");
    dequantize_linear_f32(1, 3, 1, 1, s0, INT4, (const int8_t[]){-8, 7, 0}, &two, &zp_i4, yf);
    check(yf[0] == -18.0f && yf[1] == 12.0f && yf[2] == -2.0f, "dequantize int4");
}

int main(void)
{
    test_e4m3fn();
    test_other_float8();
    test_float4();
    test_e8m0();
    test_ints();
    test_cast();
    test_quant();
    printf("%d passed, %d failed\n", n_passed, n_failed);
    return n_failed != 0;
}
