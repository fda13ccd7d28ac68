/* Unit test of templates/types.c: the 16-bit float conversions (hand-computed bit patterns
 * for rounding ties, overflow, subnormals, NaN; every float16 round-trips), Cast with a
 * 16-bit end, Mod in both modes, BitShift, the bitwise ops, IsNaN and IsInf. The template is
 * compiled after kernels.h with extern kernels, so every prototype there is checked. */
#include "../../templates/kernels.h"

#define O2C_KERNEL
#include "../../templates/types.c"

#include <stdio.h>

#include "check.h"

static const int64_t dim6[1] = {6}, unit[1] = {1}, zero[1] = {0};

static void test_half(void)
{
    check(half_to_float(0x3c00) == 1.0f, "half 1");
    check(half_to_float(0xc000) == -2.0f, "half -2");
    check(half_to_float(0x7bff) == 65504.0f, "half max");
    check(half_to_float(0x0001) == ldexpf(1.0f, -24), "half smallest subnormal");
    check(half_to_float(0x03ff) == 1023.0f * ldexpf(1.0f, -24), "half largest subnormal");
    check(half_to_float(0x8000) == 0.0f && signbit(half_to_float(0x8000)), "half -0");
    check(half_to_float(0x7c00) == INFINITY && half_to_float(0xfc00) == -INFINITY, "half inf");
    check(isnan(half_to_float(0x7e00)) && isnan(half_to_float(0x7c01)), "half NaN");

    check(float_to_half(1.0f) == 0x3c00, "to half 1");
    check(float_to_half(65504.0f) == 0x7bff, "to half max");
    check(float_to_half(65519.0f) == 0x7bff, "to half below the overflow tie");
    check(float_to_half(65520.0f) == 0x7c00, "to half overflow tie -> inf");
    check(float_to_half(-1e10f) == 0xfc00, "to half -overflow");
    check(float_to_half(1.0f + ldexpf(1.0f, -11)) == 0x3c00, "to half tie to even (down)");
    check(float_to_half(1.0f + 3.0f * ldexpf(1.0f, -11)) == 0x3c02, "to half tie to even (up)");
    check(float_to_half(ldexpf(1.0f, -24)) == 0x0001, "to half smallest subnormal");
    check(float_to_half(ldexpf(1.0f, -25)) == 0x0000, "to half subnormal tie -> 0");
    check(float_to_half(1.5f * ldexpf(1.0f, -25)) == 0x0001, "to half above the tie");
    check(float_to_half(3.0f * ldexpf(1.0f, -25)) == 0x0002, "to half subnormal tie (up)");
    check(float_to_half(1023.5f * ldexpf(1.0f, -24)) == 0x0400, "to half subnormal carries");
    check(float_to_half(-0.0f) == 0x8000, "to half -0");
    check(float_to_half(INFINITY) == 0x7c00, "to half inf");
    check((float_to_half(NAN) & 0x7c00) == 0x7c00 && (float_to_half(NAN) & 0x3ff), "to half NaN");
    check(float_to_half(ldexpf(1.0f, -30)) == 0, "to half underflow");
    /* 1 + 2^-11 + 2^-40: via float it would be the tie 1 + 2^-11 and round to 1 */
    check(double_to_half(1.0 + ldexp(1.0, -11) + ldexp(1.0, -40)) == 0x3c01,
          "double to half rounds once");

    int bad = 0;
    for (uint32_t h = 0; h < 65536; h++) {
        float f = half_to_float((uint16_t)h);
        uint16_t back = float_to_half(f);
        if (isnan(f) ? (back & 0x7c00) != 0x7c00 || !(back & 0x3ff) || (back ^ h) & 0x8000
                     : back != h)
            bad++;
    }
    check(bad == 0, "every float16 round-trips through float");

    check(bfloat16_to_float(0x3f80) == 1.0f && bfloat16_to_float(0xc040) == -3.0f, "bf16 to float");
    check(float_to_bfloat16(1.0f) == 0x3f80, "to bf16 1");
    check(float_to_bfloat16(1.0f + ldexpf(1.0f, -8)) == 0x3f80, "to bf16 tie to even (down)");
    check(float_to_bfloat16(1.0f + 3.0f * ldexpf(1.0f, -8)) == 0x3f82, "to bf16 tie (up)");
    check(float_to_bfloat16(3.4028235e38f) == 0x7f80, "to bf16 overflow");
    check(float_to_bfloat16(ldexpf(1.0f, -133)) == 0x0001, "to bf16 subnormal");
    check(float_to_bfloat16(-0.0f) == 0x8000, "to bf16 -0");
    check((float_to_bfloat16(NAN) & 0x7f80) == 0x7f80 && (float_to_bfloat16(NAN) & 0x7f),
          "to bf16 NaN");
    bad = 0;
    for (uint32_t h = 0; h < 65536; h++) {
        float f = bfloat16_to_float((uint16_t)h);
        if (!isnan(f) && float_to_bfloat16(f) != h)
            bad++;
    }
    check(bad == 0, "every bfloat16 round-trips through float");
}

static void test_cast(void)
{
    const uint16_t h[4] = {0x3e00 /* 1.5 */, 0xbe00 /* -1.5 */, 0x5cb0 /* 300 */, 0x7e00};
    int8_t i8[4];
    cast_half(4, 10, h, 3, i8);
    check(i8[0] == 1 && i8[1] == -1 && i8[2] == 127 && i8[3] == 0, "float16 -> int8");
    double d[4];
    cast_half(4, 10, h, 11, d);
    check(d[0] == 1.5 && d[1] == -1.5 && d[2] == 300.0 && isnan(d[3]), "float16 -> double");
    const int32_t i32[3] = {65504, 70000, -3};
    uint16_t y[3];
    cast_half(3, 6, i32, 10, y);
    check(y[0] == 0x7bff && y[1] == 0x7c00 && y[2] == 0xc200, "int32 -> float16");
    cast_half(3, 6, i32, 16, y);
    check(y[0] == 0x4780 && y[2] == 0xc040, "int32 -> bfloat16"); /* 65504 rounds to 65536 */
    const uint16_t bf[2] = {0x3f80, 0xc040};
    uint16_t hf[2];
    cast_half(2, 16, bf, 10, hf);
    check(hf[0] == 0x3c00 && hf[1] == 0xc200, "bfloat16 -> float16");
    uint8_t b[4];
    cast_half(4, 10, h, 9, b);
    check(b[0] == 1 && b[1] == 1 && b[2] == 1 && b[3] == 1, "float16 -> bool");
}

static void test_mod(void)
{
    const int32_t a[6] = {-4, 7, 5, 4, -7, 8}, b[6] = {2, -3, 8, -2, 3, 5};
    int32_t y[6];
    mod_i32(1, dim6, unit, unit, a, b, y);
    check(y[0] == 0 && y[1] == -2 && y[2] == 5 && y[3] == 0 && y[4] == 2 && y[5] == 3,
          "mod_i32 (sign of the divisor)");
    const int64_t a64[6] = {-4, 7, 5, 4, -7, 8}, b64[6] = {2, -3, 8, -2, 3, 5};
    int64_t y64[6];
    fmod_i64(1, dim6, unit, unit, a64, b64, y64);
    check(y64[0] == 0 && y64[1] == 1 && y64[2] == 5 && y64[3] == 0 && y64[4] == -1 && y64[5] == 3,
          "fmod_i64 (sign of the dividend)");
    const int8_t a8[3] = {-128, 5, -5}, b8[3] = {-1, 0, 0};
    int8_t y8[3];
    const int64_t d3[1] = {3};
    mod_i8(1, d3, unit, unit, a8, b8, y8);
    check(y8[0] == 0 && y8[1] == 0 && y8[2] == 0, "mod_i8 MIN % -1 and x % 0");
    fmod_i8(1, d3, unit, unit, a8, b8, y8);
    check(y8[0] == 0 && y8[1] == 0 && y8[2] == 0, "fmod_i8 MIN % -1 and x % 0");
    const uint8_t u[3] = {4, 7, 5}, v[1] = {3};
    uint8_t yu[3];
    mod_u8(1, d3, unit, zero, u, v, yu);
    check(yu[0] == 1 && yu[1] == 1 && yu[2] == 2, "mod_u8 broadcast");

    const float x[8] = {-0.0f, 0.0f, -3.0f, 1.0f, INFINITY, 1.0f, -4.5f, 4.5f};
    const float q[8] = {2.0f, -2.0f, INFINITY, -INFINITY, 2.0f, 0.0f, 2.0f, -2.0f};
    float r[8];
    const int64_t d8[1] = {8};
    mod_f32(1, d8, unit, unit, x, q, r);
    check(r[0] == 0.0f && !signbit(r[0]) && r[1] == 0.0f && signbit(r[1]), "mod_f32 zero sign");
    check(r[2] == INFINITY && r[3] == -INFINITY && isnan(r[4]) && isnan(r[5]),
          "mod_f32 infinities and NaN (numpy)");
    check(r[6] == 1.5f && r[7] == -1.5f, "mod_f32 mixed signs");
    fmod_f32(1, d8, unit, unit, x, q, r);
    check(r[2] == -3.0f && r[6] == -0.5f && r[7] == 0.5f, "fmod_f32");
    const double xd[2] = {-4.3, 7.2}, qd[2] = {2.1, -3.4};
    double rd[2];
    const int64_t d2[1] = {2};
    mod_f64(1, d2, unit, unit, xd, qd, rd);
    check(rd[0] == fmod(-4.3, 2.1) + 2.1 && rd[1] == fmod(7.2, -3.4) - 3.4, "mod_f64");
    fmod_f64(1, d2, unit, unit, xd, qd, rd);
    check(rd[0] == fmod(-4.3, 2.1) && rd[1] == fmod(7.2, -3.4), "fmod_f64");
}

static void test_bits(void)
{
    const int8_t a[6] = {-1, 1, 1, -128, -1, 5}, s[6] = {7, 8, -1, 1, 9, -1};
    int8_t y[6];
    shl_i8(1, dim6, unit, unit, a, s, y);
    check(y[0] == -128 && y[1] == 0 && y[2] == 0 && y[3] == 0 && y[4] == 0 && y[5] == 0,
          "shl_i8 overflow and out-of-range counts");
    shr_i8(1, dim6, unit, unit, a, s, y);
    check(y[0] == -1 && y[1] == 0 && y[2] == 0 && y[3] == -64 && y[4] == -1 && y[5] == 0,
          "shr_i8 arithmetic and out-of-range counts");
    const uint8_t u[2] = {255, 255}, us[2] = {8, 4};
    uint8_t yu[2];
    const int64_t d2[1] = {2};
    shr_u8(1, d2, unit, unit, u, us, yu);
    check(yu[0] == 0 && yu[1] == 15, "shr_u8");
    shl_u8(1, d2, unit, unit, u, us, yu);
    check(yu[0] == 0 && yu[1] == 240, "shl_u8");
    const uint64_t one[1] = {1}, s63[1] = {63};
    uint64_t y64[1];
    shl_u64(1, unit, unit, unit, one, s63, y64);
    check(y64[0] == (uint64_t)1 << 63, "shl_u64 by 63");
    const int32_t p[2] = {12, -1}, q[2] = {10, 0x0f0f};
    int32_t r[2];
    bitand_i32(1, d2, unit, unit, p, q, r);
    check(r[0] == 8 && r[1] == 0x0f0f, "bitand_i32");
    bitor_i32(1, d2, unit, unit, p, q, r);
    check(r[0] == 14 && r[1] == -1, "bitor_i32");
    bitxor_i32(1, d2, unit, unit, p, q, r);
    check(r[0] == 6 && r[1] == ~0x0f0f, "bitxor_i32");
    bitnot_i32(2, p, r);
    check(r[0] == -13 && r[1] == 0, "bitnot_i32");
    const uint16_t h[2] = {0, 0x00ff};
    uint16_t hr[2];
    bitnot_u16(2, h, hr);
    check(hr[0] == 0xffff && hr[1] == 0xff00, "bitnot_u16");
}

static void test_classify(void)
{
    const float x[5] = {1.0f, NAN, INFINITY, -INFINITY, -0.0f};
    const double xd[5] = {1.0, NAN, INFINITY, -INFINITY, -0.0};
    uint8_t y[5];
    isnan_f32(5, x, y);
    check(!y[0] && y[1] && !y[2] && !y[3] && !y[4], "isnan_f32");
    isnan_f64(5, xd, y);
    check(!y[0] && y[1] && !y[2] && !y[3] && !y[4], "isnan_f64");
    isinf_f32(5, 1, 1, x, y);
    check(!y[0] && !y[1] && y[2] && y[3] && !y[4], "isinf_f32 both");
    isinf_f32(5, 1, 0, x, y);
    check(y[2] && !y[3], "isinf_f32 positive only");
    isinf_f64(5, 0, 1, xd, y);
    check(!y[2] && y[3], "isinf_f64 negative only");
    isinf_f64(5, 0, 0, xd, y);
    check(!y[0] && !y[1] && !y[2] && !y[3] && !y[4], "isinf_f64 neither");
}

int main(void)
{
    test_half();
    test_cast();
    test_mod();
    test_bits();
    test_classify();
    printf("%d passed, %d failed\n", n_passed, n_failed);
    return n_failed != 0;
}
