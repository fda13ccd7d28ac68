/* lowtypes.c — the element types narrower than a byte or with 8-bit float formats: Cast to and
 * from them, and QuantizeLinear / DequantizeLinear for the float8 and float4 ones.
 *
 * Types (ONNX TensorProto.DataType numbers) and how one element is held in memory:
 *   17 float8e4m3fn    uint8_t code: 1 sign, 4 exponent (bias 7), 3 mantissa; NaN S.1111.111,
 *                      no infinity, max 448
 *   18 float8e4m3fnuz  uint8_t code, bias 8; NaN 0x80 (no -0), no infinity, max 240
 *   19 float8e5m2      uint8_t code, bias 15; IEEE-like: infinities and NaNs, max 57344
 *   20 float8e5m2fnuz  uint8_t code, bias 16; NaN 0x80 (no -0), no infinity, max 57344
 *   23 float4e2m1      uint8_t holding the 4-bit code in its low bits: 1 sign, 2 exponent (bias
 *                      1), 1 mantissa; no NaN or infinity, max 6
 *   24 float8e8m0      uint8_t code: an exponent only, 2^(code - 127); 0xFF is NaN
 *   21 uint4, 25 uint2 uint8_t value (0..15, 0..3)
 *   22 int4, 26 int2   int8_t value (-8..7, -2..1)
 * One byte per element everywhere in memory (arena, weights, the generated API), so every
 * byte-moving kernel (Reshape, Transpose, Gather, ...) handles these types unchanged and sizes
 * are element counts. Only serialized TensorProtos pack 4-bit types two to a byte and 2-bit
 * types four to a byte (first element in the lowest bits); the compiler's loader, the harness
 * and --emit-onnx pack and unpack at that boundary.
 *
 * Conversions, as onnx's reference computes them (ml_dtypes and onnx.numpy_helper):
 *   float8/float4 -> anything   decoded exactly to float, then converted as from float
 *                               (cast_half's o2c_store_from_float in types.c)
 *   -> float8 e4m3/e5m2 types   rounded to nearest even from the source value; with saturate
 *                               (the default) values beyond the largest finite one, infinities
 *                               included, become it; without, they become infinity (e5m2) or
 *                               NaN (the types without infinity); NaN stays NaN
 *   -> float4e2m1               rounded to nearest even, always saturating; NaN becomes -0
 *                               and -NaN +0 (ml_dtypes' bits)
 *   -> float8e8m0               the float32 exponent field, rounded by round_mode (up: any
 *                               fraction rounds up; down: truncated; nearest: onnx's bit rule),
 *                               the sign ignored; with saturate the largest code 0xFE is never
 *                               rounded into NaN; infinities and NaN give NaN
 *   -> int4/uint4/int2/uint2    integers wrap modulo 2^bits; floats truncate toward zero and
 *                               then wrap, NaN, infinities and values beyond int32 giving 0
 *                               (ml_dtypes on x86, where such an int conversion gives INT_MIN)
 *
 * Part of the templates: the compiler pastes this text into the generated C file (after
 * types.c, whose 16-bit float conversions it uses) and also links it to fold constants.
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

/* From types.c, which the generated file pastes before this one. */
O2C_KERNEL double o2c_load_as_double(int code, const void *x, int64_t i);
O2C_KERNEL void o2c_store_from_float(int code, void *y, int64_t i, float v);

/* ---- the small float formats ---- */

enum { LOW_IEEE, LOW_FN, LOW_FNUZ, LOW_FINITE };

typedef struct LowFloat {
    int exp_bits, man_bits, bias, kind;
} LowFloat;

/* The format of type `code`; exp_bits 0 for a type that is not a small float. */
static LowFloat low_float_format(int code)
{
    LowFloat f = {0, 0, 0, LOW_IEEE};
    switch (code) {
    case 17: f.exp_bits = 4, f.man_bits = 3, f.bias = 7, f.kind = LOW_FN; break;
    case 18: f.exp_bits = 4, f.man_bits = 3, f.bias = 8, f.kind = LOW_FNUZ; break;
    case 19: f.exp_bits = 5, f.man_bits = 2, f.bias = 15, f.kind = LOW_IEEE; break;
    case 20: f.exp_bits = 5, f.man_bits = 2, f.bias = 16, f.kind = LOW_FNUZ; break;
    case 23: f.exp_bits = 2, f.man_bits = 1, f.bias = 1, f.kind = LOW_FINITE; break;
    default: break;
    }
    return f;
}

/* Magnitude bits (exponent and mantissa) of the largest finite value. */
static unsigned low_max_magnitude(LowFloat f)
{
    const unsigned all = (1u << (f.exp_bits + f.man_bits)) - 1;
    if (f.kind == LOW_IEEE) /* the top exponent is infinity and NaN */
        return all - (1u << f.man_bits);
    return f.kind == LOW_FN ? all - 1 : all;
}

/* Code -> float, exact. */
static float low_float_to_float(LowFloat f, unsigned code)
{
    const int width = f.exp_bits + f.man_bits;
    const unsigned mag = code & ((1u << width) - 1), emax = (1u << f.exp_bits) - 1;
    const unsigned e = mag >> f.man_bits, m = mag & ((1u << f.man_bits) - 1);
    const int neg = (code >> width) & 1;
    float v;
    if (f.kind == LOW_FNUZ && neg && mag == 0)
        return NAN;
    if ((f.kind == LOW_FN && mag == (1u << width) - 1) || (f.kind == LOW_IEEE && e == emax && m))
        return neg ? -NAN : NAN;
    if (f.kind == LOW_IEEE && e == emax)
        v = INFINITY;
    else if (e == 0)
        v = ldexpf((float)m, 1 - f.bias - f.man_bits);
    else
        v = ldexpf((float)(m | (1u << f.man_bits)), (int)e - f.bias - f.man_bits);
    return neg ? -v : v;
}

/* The code of an out-of-range magnitude: the largest finite value, infinity or NaN. */
static unsigned low_overflow(LowFloat f, unsigned sign, int saturate)
{
    if (saturate || f.kind == LOW_FINITE)
        return sign | low_max_magnitude(f);
    if (f.kind == LOW_IEEE)
        return sign | (((1u << f.exp_bits) - 1) << f.man_bits);
    return f.kind == LOW_FNUZ ? 1u << (f.exp_bits + f.man_bits)
                              : sign | ((1u << (f.exp_bits + f.man_bits)) - 1);
}

/* double -> code, rounded to nearest even from the double's value. */
static unsigned double_to_low_float(LowFloat f, double d, int saturate)
{
    const int width = f.exp_bits + f.man_bits;
    const unsigned sign = signbit(d) ? 1u << width : 0u;
    if (d != d) {
        if (f.kind == LOW_FINITE)
            return sign ^ (1u << width); /* ml_dtypes: the zero of the other sign */
        if (f.kind == LOW_IEEE)
            return sign | (((1u << f.exp_bits) - 1) << f.man_bits) | (1u << (f.man_bits - 1));
        return f.kind == LOW_FNUZ ? 1u << width : sign | ((1u << width) - 1);
    }
    const double a = fabs(d);
    if (a == (double)INFINITY)
        return low_overflow(f, sign, saturate);
    unsigned mag = 0;
    if (a != 0.0) {
        int ex;
        frexp(a, &ex); /* a = fraction * 2^ex, fraction in [0.5, 1) */
        const int emin = 1 - f.bias;
        int q = (ex - 1 > emin ? ex - 1 : emin) - f.man_bits; /* units of 2^q */
        const double r = ldexp(a, -q);                        /* exact */
        double m = floor(r);
        const double rest = r - m;
        if (rest > 0.5 || (rest == 0.5 && fmod(m, 2.0) == 1.0))
            m += 1.0;
        if (m >= ldexp(1.0, f.man_bits + 1)) { /* rounding carried into the next binade */
            m = ldexp(1.0, f.man_bits);
            q++;
        }
        const unsigned mi = (unsigned)m, lead = 1u << f.man_bits;
        /* In the lowest binade the exponent field is 0 for a subnormal (mi < lead) and 1 for
         * a normal (leading bit set, also when a subnormal rounded up): the bits are mi. */
        if (q == emin - f.man_bits)
            mag = mi;
        else
            mag = ((unsigned)(q + f.man_bits + f.bias) << f.man_bits) | (mi - lead);
        if (mag > low_max_magnitude(f))
            return low_overflow(f, sign, saturate);
    }
    if (mag == 0 && f.kind == LOW_FNUZ)
        return 0; /* no negative zero: that code is NaN */
    return sign | mag;
}

/* Scalar conversions by type code (17, 18, 19, 20, 23). */
O2C_KERNEL float low_to_float(int code, uint8_t bits)
{
    return low_float_to_float(low_float_format(code), bits);
}

O2C_KERNEL uint8_t float_to_low(int code, double d, int saturate)
{
    return (uint8_t)double_to_low_float(low_float_format(code), d, saturate);
}

/* ---- float8e8m0 ---- */

O2C_KERNEL float e8m0_to_float(uint8_t code)
{
    return code == 0xff ? NAN : ldexpf(1.0f, (int)code - 127);
}

/* round_mode: 0 up, 1 down, 2 nearest (onnx.numpy_helper.to_float8e8m0, bit for bit). */
O2C_KERNEL uint8_t float_to_e8m0(float x, int saturate, int round_mode)
{
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    unsigned e = (u >> 23) & 0xffu;
    if (e == 0xff)
        return 0xff;
    int up = 0;
    if (round_mode == 0) {
        up = (u & 0x7fffffu) != 0;
    } else if (round_mode == 2) {
        const int g = (u & 0x400000u) != 0, r = (u & 0x200000u) != 0, s = (u & 0x1fffffu) != 0;
        up = g && (r || s || e > 0);
    }
    if (saturate && e == 0xfe)
        up = 0;
    return (uint8_t)(e + (unsigned)up);
}

/* ---- 4-bit and 2-bit integers ---- */

static int low_int_bits(int code)
{
    return code == 21 || code == 22 ? 4 : code == 25 || code == 26 ? 2 : 0;
}

/* v modulo 2^bits, sign-extended for the signed types (22 int4, 26 int2). */
O2C_KERNEL int low_int_wrap(int code, int64_t v)
{
    const int bits = low_int_bits(code);
    const unsigned mask = (1u << bits) - 1, u = (unsigned)((uint64_t)v & mask);
    if (code == 21 || code == 25)
        return (int)u;
    return (u & (1u << (bits - 1))) ? (int)u - (int)(mask + 1) : (int)u;
}

O2C_KERNEL int double_to_low_int(int code, double d)
{
    if (!(fabs(d) < 2147483648.0))
        return 0;
    return low_int_wrap(code, (int64_t)d);
}

/* ---- Cast ----
 * cast_low(n, src, x, dst, y, saturate, round_mode) converts x[n] of type src to y[n] of type
 * dst, where src or dst is one of the types above and the other one of them or a type
 * cast_half takes (1, 11, 2..7, 12, 13, 9, 10, 16). saturate and round_mode (0 up, 1 down,
 * 2 nearest) as the Cast attributes. y must not overlap x unless it is x and both types have
 * the same size. */

static int low_is_type(int code)
{
    return code >= 17 && code <= 26;
}

/* An integer source as int64 (exact); 0 when `code` is not an integer type. */
static int low_load_int(int code, const void *x, int64_t i, int64_t *v)
{
    switch (code) {
    case 2: *v = ((const uint8_t *)x)[i]; return 1;
    case 3: *v = ((const int8_t *)x)[i]; return 1;
    case 4: *v = ((const uint16_t *)x)[i]; return 1;
    case 5: *v = ((const int16_t *)x)[i]; return 1;
    case 6: *v = ((const int32_t *)x)[i]; return 1;
    case 7: *v = ((const int64_t *)x)[i]; return 1;
    case 12: *v = ((const uint32_t *)x)[i]; return 1;
    case 13: *v = (int64_t)((const uint64_t *)x)[i]; return 1; /* wraps; only low bits kept */
    case 9: *v = ((const uint8_t *)x)[i] != 0; return 1;
    case 21:
    case 25: *v = ((const uint8_t *)x)[i]; return 1;
    case 22:
    case 26: *v = ((const int8_t *)x)[i]; return 1;
    default: return 0;
    }
}

/* Element i as a double: exact for every type here and every cast_half type. */
static double low_load(int code, const void *x, int64_t i)
{
    const LowFloat f = low_float_format(code);
    int64_t v;
    if (f.exp_bits)
        return low_float_to_float(f, ((const uint8_t *)x)[i]);
    if (code == 24)
        return e8m0_to_float(((const uint8_t *)x)[i]);
    if (low_int_bits(code) && low_load_int(code, x, i, &v))
        return (double)v;
    return o2c_load_as_double(code, x, i);
}

static void low_store(int code, void *y, int64_t i, int src, const void *x, int saturate,
                      int round_mode)
{
    const LowFloat f = low_float_format(code);
    uint8_t *yb = (uint8_t *)y;
    int64_t v;
    if (f.exp_bits)
        yb[i] = (uint8_t)double_to_low_float(f, low_load(src, x, i), saturate);
    else if (code == 24)
        yb[i] = float_to_e8m0((float)low_load(src, x, i), saturate, round_mode);
    else if (low_load_int(src, x, i, &v))
        ((int8_t *)y)[i] = (int8_t)low_int_wrap(code, v);
    else
        ((int8_t *)y)[i] = (int8_t)double_to_low_int(code, low_load(src, x, i));
}

O2C_KERNEL void cast_low(int64_t n, int src, const void *x, int dst, void *y, int saturate,
                         int round_mode)
{
    for (int64_t i = 0; i < n; i++) {
        if (low_is_type(dst))
            low_store(dst, y, i, src, x, saturate, round_mode);
        else /* every value of these types is a float (e8m0's 2^-127 a subnormal one) */
            o2c_store_from_float(dst, y, i, (float)low_load(src, x, i));
    }
}

/* ---- QuantizeLinear / DequantizeLinear for float8 and float4 ----
 * Layout and scale indexing as quantize_linear_f32 in quant.c: x, y are [outer][len][inner],
 * the scale (and zero point) of element (o, a, i) is at o*s[0] + (a / block)*s[1] + i*s[2].
 *   quantize    float8: x / scale in float, converted with `saturate`; the zero point (zero
 *               for these types) is not read. float4: x / scale + zero_point in float,
 *               converted (always saturating).
 *   dequantize  (float)x * scale; the zero point is not read (the reference ignores it). */

O2C_KERNEL void quantize_linear_low(int64_t outer, int64_t len, int64_t inner, int64_t block,
                                    const int64_t *s, const float *x, const float *scale,
                                    int y_type, const void *zero_point, int saturate, void *y)
{
    const LowFloat f = low_float_format(y_type);
    for (int64_t o = 0; o < outer; o++)
        for (int64_t a = 0; a < len; a++)
            for (int64_t i = 0; i < inner; i++) {
                const int64_t e = (o * len + a) * inner + i;
                const int64_t si = o * s[0] + (a / block) * s[1] + i * s[2];
                float v = x[e] / scale[si];
                if (f.kind == LOW_FINITE && zero_point)
                    v = v + low_float_to_float(f, ((const uint8_t *)zero_point)[si]);
                ((uint8_t *)y)[e] = (uint8_t)double_to_low_float(f, (double)v, saturate);
            }
}

O2C_KERNEL void dequantize_linear_low(int64_t outer, int64_t len, int64_t inner, int64_t block,
                                      const int64_t *s, int x_type, const void *x,
                                      const float *scale, float *y)
{
    const LowFloat f = low_float_format(x_type);
    for (int64_t o = 0; o < outer; o++)
        for (int64_t a = 0; a < len; a++)
            for (int64_t i = 0; i < inner; i++) {
                const int64_t e = (o * len + a) * inner + i;
                const int64_t si = o * s[0] + (a / block) * s[1] + i * s[2];
                y[e] = low_float_to_float(f, ((const uint8_t *)x)[e]) * scale[si];
            }
}
