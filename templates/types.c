/* types.c — integer and bit operations (Mod, BitShift, BitwiseAnd/Or/Xor/Not), float
 * classification (IsNaN, IsInf), and the 16-bit float formats: conversions between float16 /
 * bfloat16 and the other element types (Cast).
 *
 * Broadcasting kernels take the iteration space already simplified by the compiler (size-1
 * dims dropped, dims every operand steps through as one merged; see broadcast_loop in
 * compiler/ops/tensor.c):
 *   rank          number of loop dims, 1..8
 *   dims          [rank] loop shape, row-major; y is contiguous [dims]
 *   sa, sb        [rank] element stride of a (b) along each loop dim, 0 where broadcast
 * Element (i0..ir-1) reads a[sum i_d*sa[d]], b[sum i_d*sb[d]] and writes y[flat index].
 * Operands are passed as void pointers and read as the kernel's element type (the suffix:
 * f32, f64, i8, u8, i16, u16, i32, u32, i64, u64). y may be a (or b) only when that operand
 * is contiguous with the output's shape. Booleans are uint8_t 0 or 1.
 *
 * 16-bit floats are stored as their uint16_t bit patterns: float16 is IEEE binary16 (1 sign,
 * 5 exponent, 10 mantissa bits), bfloat16 the top 16 bits of a binary32. Widening to float is
 * exact; narrowing rounds to nearest, ties to even, from the source value itself (a double
 * is never rounded to float first, which could round twice), overflowing to +-inf, with
 * subnormals and signed zeros kept and NaN staying NaN (quiet, sign and top payload bits
 * kept).
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

/* ---- 16-bit floats: scalar conversions ---- */

/* float16 bits -> float, exact. */
O2C_KERNEL float half_to_float(uint16_t h)
{
    const uint32_t sign = (uint32_t)(h & 0x8000u) << 16, exp = (h >> 10) & 0x1fu, man = h & 0x3ffu;
    uint32_t bits;
    if (exp == 0x1f) { /* inf, NaN: payload moves to the top of the float mantissa */
        bits = sign | 0x7f800000u | (man << 13);
    } else if (exp != 0) { /* normal */
        bits = sign | ((exp + 112u) << 23) | (man << 13);
    } else if (man == 0) { /* signed zero */
        bits = sign;
    } else { /* subnormal: man * 2^-24, a normal float */
        uint32_t e = 113, m = man;
        while (!(m & 0x400u)) {
            m <<= 1;
            e--;
        }
        bits = sign | (e << 23) | ((m & 0x3ffu) << 13);
    }
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

/* bfloat16 bits -> float, exact. */
O2C_KERNEL float bfloat16_to_float(uint16_t h)
{
    const uint32_t bits = (uint32_t)h << 16;
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

/* Rounds the magnitude m (an integer count of units of 2^shift below the target's last
 * mantissa bit, i.e. m >> shift is the truncated result) to nearest, ties to even. */
O2C_KERNEL uint64_t o2c_round_shift(uint64_t m, int shift)
{
    if (shift <= 0)
        return m << -shift;
    if (shift > 63)
        return 0;
    const uint64_t q = m >> shift, rem = m & ((((uint64_t)1) << shift) - 1),
                   half = ((uint64_t)1) << (shift - 1);
    return q + (rem > half || (rem == half && (q & 1)));
}

/* double -> binary16 (exp_bits 5, man_bits 10) or bfloat16 (8, 7): rounded to nearest even
 * from the double value. */
O2C_KERNEL uint16_t o2c_double_to_small(double d, int exp_bits, int man_bits)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    const uint16_t sign = (uint16_t)((u >> 48) & 0x8000u);
    const int dexp = (int)((u >> 52) & 0x7ff);
    const uint64_t dman = u & 0xfffffffffffffull;
    const int bias = (1 << (exp_bits - 1)) - 1, emax = (1 << exp_bits) - 1;
    const uint16_t inf = (uint16_t)(sign | (emax << man_bits));
    if (dexp == 0x7ff) {
        if (!dman)
            return inf;
        /* NaN: quiet, keep the top payload bits */
        return (uint16_t)(inf | (1u << (man_bits - 1)) | (uint16_t)(dman >> (52 - man_bits)));
    }
    if (dexp == 0 && dman == 0)
        return sign;
    /* value = m * 2^(e - 52) with m having its leading 1 at bit 52 (subnormal doubles are far
     * below the smallest half/bfloat16 subnormal and round to zero below). */
    const uint64_t m = dexp ? dman | ((uint64_t)1 << 52) : dman;
    const int e = dexp ? dexp - 1023 : -1022;
    /* target exponent field: e + bias when normal; below 1 the result is subnormal, whose
     * units are 2^(1 - bias - man_bits). */
    int texp = e + bias;
    uint64_t r;
    if (texp >= 1) {
        r = o2c_round_shift(m, 52 - man_bits); /* mantissa with the leading 1, maybe carried */
        if (r >> (man_bits + 1)) {             /* rounding carried into a new leading bit */
            r >>= 1;
            texp++;
        }
        if (texp >= emax)
            return inf;
        return (uint16_t)(sign | (texp << man_bits) | (uint16_t)(r & ((1u << man_bits) - 1)));
    }
    /* subnormal: units of 2^(1 - bias - man_bits); value / unit = m * 2^(e - 52 - (1 - bias -
     * man_bits)) */
    const int shift = 52 - man_bits + 1 - texp; /* >= 52 - man_bits + 1 */
    r = o2c_round_shift(m, shift);
    /* r may reach 1 << man_bits: then it is the smallest normal, which the bits encode */
    return (uint16_t)(sign | r);
}

/* float -> float16 bits, rounded to nearest even (float -> double is exact). */
O2C_KERNEL uint16_t float_to_half(float f)
{
    return o2c_double_to_small((double)f, 5, 10);
}

O2C_KERNEL uint16_t double_to_half(double d)
{
    return o2c_double_to_small(d, 5, 10);
}

O2C_KERNEL uint16_t float_to_bfloat16(float f)
{
    return o2c_double_to_small((double)f, 8, 7);
}

O2C_KERNEL uint16_t double_to_bfloat16(double d)
{
    return o2c_double_to_small(d, 8, 7);
}

/* ---- Cast with a 16-bit float at one end ----
 * cast_half(n, src, x, dst, y) converts x[n] of ONNX type src to y[n] of type dst, where src
 * or dst is 10 (float16) or 16 (bfloat16) and the other is one of 1 float, 11 double, 2 uint8,
 * 3 int8, 4 uint16, 5 int16, 6 int32, 7 int64, 12 uint32, 13 uint64, 9 bool, 10, 16 (other
 * numbers do nothing). Rules as cast_tensor's (numpy astype):
 *   16-bit -> anything  widened to float exactly, then converted as from float: to an
 *                       integer truncated toward zero, NaN giving 0 and out-of-range values
 *                       saturating (where numpy is undefined); to bool x != 0
 *   anything -> 16-bit  rounded to nearest even from the value as a double (exact for every
 *                       source but int64/uint64 beyond 2^53, which round twice); bool 0 or 1
 * y must not overlap x unless it is x and both types have the same size. */

/* One element of type `code` at x[i], as a double (exact but for 64-bit integers > 2^53). */
O2C_KERNEL double o2c_load_as_double(int code, const void *x, int64_t i)
{
    switch (code) {
    case 1: return ((const float *)x)[i];
    case 11: return ((const double *)x)[i];
    case 2: return ((const uint8_t *)x)[i];
    case 3: return ((const int8_t *)x)[i];
    case 4: return ((const uint16_t *)x)[i];
    case 5: return ((const int16_t *)x)[i];
    case 6: return ((const int32_t *)x)[i];
    case 7: return (double)((const int64_t *)x)[i];
    case 12: return ((const uint32_t *)x)[i];
    case 13: return (double)((const uint64_t *)x)[i];
    case 9: return ((const uint8_t *)x)[i] != 0;
    case 10: return half_to_float(((const uint16_t *)x)[i]);
    case 16: return bfloat16_to_float(((const uint16_t *)x)[i]);
    default: return 0.0;
    }
}

/* A float (widened 16-bit value) to integer type: truncation, NaN -> 0, saturation. */
#define O2C_FLOAT_TO_INT(v, T, MIN, MAX, LO, HI)                                                   \
    ((v) != (v) ? (T)0 : !((v) > (LO)) ? (T)(MIN) : !((v) < (HI)) ? (T)(MAX) : (T)(v))

O2C_KERNEL void o2c_store_from_float(int code, void *y, int64_t i, float v)
{
    switch (code) {
    case 1: ((float *)y)[i] = v; break;
    case 11: ((double *)y)[i] = v; break;
    case 2: ((uint8_t *)y)[i] = O2C_FLOAT_TO_INT(v, uint8_t, 0, UINT8_MAX, -1.0f, 256.0f); break;
    case 3:
        ((int8_t *)y)[i] = O2C_FLOAT_TO_INT(v, int8_t, INT8_MIN, INT8_MAX, -129.0f, 128.0f);
        break;
    case 4:
        ((uint16_t *)y)[i] = O2C_FLOAT_TO_INT(v, uint16_t, 0, UINT16_MAX, -1.0f, 65536.0f);
        break;
    case 5:
        ((int16_t *)y)[i] = O2C_FLOAT_TO_INT(v, int16_t, INT16_MIN, INT16_MAX, -32769.0f, 32768.0f);
        break;
    case 6:
        ((int32_t *)y)[i] =
            O2C_FLOAT_TO_INT(v, int32_t, INT32_MIN, INT32_MAX, -2147483904.0f, 2147483648.0f);
        break;
    case 7:
        ((int64_t *)y)[i] = O2C_FLOAT_TO_INT(v, int64_t, INT64_MIN, INT64_MAX,
                                             -9223373136366403584.0f, 9223372036854775808.0f);
        break;
    case 12:
        ((uint32_t *)y)[i] = O2C_FLOAT_TO_INT(v, uint32_t, 0, UINT32_MAX, -1.0f, 4294967296.0f);
        break;
    case 13:
        ((uint64_t *)y)[i] =
            O2C_FLOAT_TO_INT(v, uint64_t, 0, UINT64_MAX, -1.0f, 18446744073709551616.0f);
        break;
    case 9: ((uint8_t *)y)[i] = (uint8_t)(v != 0.0f); break;
    case 10: ((uint16_t *)y)[i] = float_to_half(v); break;
    case 16: ((uint16_t *)y)[i] = float_to_bfloat16(v); break;
    default: break;
    }
}

O2C_KERNEL void cast_half(int64_t n, int src, const void *x, int dst, void *y)
{
    uint16_t *yh = (uint16_t *)y;
    if (src == 10 || src == 16) {
        const uint16_t *xh = (const uint16_t *)x;
        for (int64_t i = 0; i < n; i++) {
            const float v = src == 10 ? half_to_float(xh[i]) : bfloat16_to_float(xh[i]);
            o2c_store_from_float(dst, y, i, v);
        }
    } else if (dst == 10) {
        for (int64_t i = 0; i < n; i++)
            yh[i] = double_to_half(o2c_load_as_double(src, x, i));
    } else if (dst == 16) {
        for (int64_t i = 0; i < n; i++)
            yh[i] = double_to_bfloat16(o2c_load_as_double(src, x, i));
    }
}

/* ---- Broadcast binary kernels ---- */

#define O2C_TYPES_BINARY(NAME, TA, TY, OP)                                                         \
    O2C_KERNEL void NAME(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb,      \
                         const void *a, const void *b, void *y)                                    \
    {                                                                                              \
        const TA *ta = (const TA *)a, *tb = (const TA *)b;                                         \
        TY *ty = (TY *)y;                                                                          \
        int64_t idx[8] = {0}, off_a = 0, off_b = 0, rows = 1;                                      \
        for (int d = 0; d < rank - 1; d++)                                                         \
            rows *= dims[d];                                                                       \
        const int64_t n = dims[rank - 1], as = sa[rank - 1], bs = sb[rank - 1];                    \
        for (int64_t row = 0; row < rows; row++) {                                                 \
            TY *yr = ty + row * n;                                                                 \
            for (int64_t i = 0; i < n; i++) {                                                      \
                const TA p = ta[off_a + i * as], q = tb[off_b + i * bs];                           \
                yr[i] = OP(TA, p, q);                                                              \
            }                                                                                      \
            for (int d = rank - 2; d >= 0; d--) { /* odometer over the outer dims */               \
                idx[d]++;                                                                          \
                off_a += sa[d];                                                                    \
                off_b += sb[d];                                                                    \
                if (idx[d] < dims[d])                                                              \
                    break;                                                                         \
                off_a -= sa[d] * dims[d];                                                          \
                off_b -= sb[d] * dims[d];                                                          \
                idx[d] = 0;                                                                        \
            }                                                                                      \
        }                                                                                          \
    }

/* Mod. fmod=1 is C's remainder (sign of the dividend): fmod for floats, % for integers.
 * fmod=0 is numpy.mod (sign of the divisor): for integers r = a % b, plus b when r is nonzero
 * and its sign differs from b's; for floats numpy's divmod rule: r = fmod(a, b); if r != 0 and
 * (b < 0) != (r < 0) then r += b (rounded in T); a zero r takes b's sign. Integer division by
 * zero gives 0 (as numpy, without its warning), MIN % -1 gives 0 (undefined in C). */
#define O2C_FMOD_S(T, p, q) ((q) == 0 || (q) == -1 ? (T)0 : (T)((p) % (q)))
#define O2C_FMOD_U(T, p, q) ((q) == 0 ? (T)0 : (T)((p) % (q)))
#define O2C_MOD_S(T, p, q)                                                                         \
    ((q) == 0 || (q) == -1          ? (T)0                                                         \
     : (p) % (q) == 0               ? (T)0                                                         \
     : ((p) % (q) < 0) != ((q) < 0) ? (T)((p) % (q) + (q))                                         \
                                    : (T)((p) % (q)))
#define O2C_FMOD_F32(T, p, q) fmodf((p), (q))
#define O2C_FMOD_F64(T, p, q) fmod((p), (q))
O2C_KERNEL float o2c_mod_f32(float a, float b)
{
    float r = fmodf(a, b);
    if (b == 0.0f)
        return r;
    if (r != 0.0f) {
        if ((b < 0.0f) != (r < 0.0f))
            r += b;
    } else {
        r = copysignf(0.0f, b);
    }
    return r;
}
O2C_KERNEL double o2c_mod_f64(double a, double b)
{
    double r = fmod(a, b);
    if (b == 0.0)
        return r;
    if (r != 0.0) {
        if ((b < 0.0) != (r < 0.0))
            r += b;
    } else {
        r = copysign(0.0, b);
    }
    return r;
}
#define O2C_MOD_F32(T, p, q) o2c_mod_f32((p), (q))
#define O2C_MOD_F64(T, p, q) o2c_mod_f64((p), (q))

O2C_TYPES_BINARY(fmod_f32, float, float, O2C_FMOD_F32)
O2C_TYPES_BINARY(fmod_f64, double, double, O2C_FMOD_F64)
O2C_TYPES_BINARY(mod_f32, float, float, O2C_MOD_F32)
O2C_TYPES_BINARY(mod_f64, double, double, O2C_MOD_F64)

/* BitShift. Left: bits shifted out are lost (done on the unsigned type, so no overflow);
 * right: arithmetic for signed types (numpy right_shift). A shift count below 0 or at least
 * the bit width gives 0 (left), or 0 / -1 by the sign of a (right), as the onnx reference. */
#define O2C_SHL_S(T, p, q)                                                                         \
    ((q) < 0 || (uint64_t)(q) >= 8 * sizeof(T) ? (T)0 : (T)((uint64_t)(p) << (q)))
#define O2C_SHL_U(T, p, q) ((uint64_t)(q) >= 8 * sizeof(T) ? (T)0 : (T)((uint64_t)(p) << (q)))
#define O2C_SHR_U(T, p, q) ((uint64_t)(q) >= 8 * sizeof(T) ? (T)0 : (T)((p) >> (q)))
/* Signed right shift of a negative value is implementation-defined in C; written out as the
 * complement of the shifted complement so that it is arithmetic everywhere. */
#define O2C_SHR_S(T, p, q)                                                                         \
    ((q) < 0 || (uint64_t)(q) >= 8 * sizeof(T) ? ((p) < 0 ? (T)-1 : (T)0)                          \
     : (p) < 0                                 ? (T) ~(T)((T) ~(p) >> (q))                         \
                                               : (T)((p) >> (q)))
#define O2C_AND(T, p, q) ((T)((p) & (q)))
#define O2C_OR(T, p, q)  ((T)((p) | (q)))
#define O2C_XOR(T, p, q) ((T)((p) ^ (q)))

/* Every integer kernel of one element type. */
#define O2C_TYPES_INT(SUFFIX, T, FMOD, MOD, SHL, SHR)                                              \
    O2C_TYPES_BINARY(fmod_##SUFFIX, T, T, FMOD)                                                    \
    O2C_TYPES_BINARY(mod_##SUFFIX, T, T, MOD)                                                      \
    O2C_TYPES_BINARY(shl_##SUFFIX, T, T, SHL)                                                      \
    O2C_TYPES_BINARY(shr_##SUFFIX, T, T, SHR)                                                      \
    O2C_TYPES_BINARY(bitand_##SUFFIX, T, T, O2C_AND)                                               \
    O2C_TYPES_BINARY(bitor_##SUFFIX, T, T, O2C_OR)                                                 \
    O2C_TYPES_BINARY(bitxor_##SUFFIX, T, T, O2C_XOR)                                               \
    O2C_KERNEL void bitnot_##SUFFIX(int64_t n, const void *x, void *y)                             \
    {                                                                                              \
        const T *tx = (const T *)x;                                                                \
        T *ty = (T *)y;                                                                            \
        for (int64_t i = 0; i < n; i++)                                                            \
            ty[i] = (T)~tx[i];                                                                     \
    }

O2C_TYPES_INT(i8, int8_t, O2C_FMOD_S, O2C_MOD_S, O2C_SHL_S, O2C_SHR_S)
O2C_TYPES_INT(u8, uint8_t, O2C_FMOD_U, O2C_FMOD_U, O2C_SHL_U, O2C_SHR_U)
O2C_TYPES_INT(i16, int16_t, O2C_FMOD_S, O2C_MOD_S, O2C_SHL_S, O2C_SHR_S)
O2C_TYPES_INT(u16, uint16_t, O2C_FMOD_U, O2C_FMOD_U, O2C_SHL_U, O2C_SHR_U)
O2C_TYPES_INT(i32, int32_t, O2C_FMOD_S, O2C_MOD_S, O2C_SHL_S, O2C_SHR_S)
O2C_TYPES_INT(u32, uint32_t, O2C_FMOD_U, O2C_FMOD_U, O2C_SHL_U, O2C_SHR_U)
O2C_TYPES_INT(i64, int64_t, O2C_FMOD_S, O2C_MOD_S, O2C_SHL_S, O2C_SHR_S)
O2C_TYPES_INT(u64, uint64_t, O2C_FMOD_U, O2C_FMOD_U, O2C_SHL_U, O2C_SHR_U)

/* ---- IsNaN, IsInf: x[n] -> bool y[n] ---- */

O2C_KERNEL void isnan_f32(int64_t n, const void *x, uint8_t *y)
{
    const float *t = (const float *)x;
    for (int64_t i = 0; i < n; i++)
        y[i] = (uint8_t)(t[i] != t[i]);
}

O2C_KERNEL void isnan_f64(int64_t n, const void *x, uint8_t *y)
{
    const double *t = (const double *)x;
    for (int64_t i = 0; i < n; i++)
        y[i] = (uint8_t)(t[i] != t[i]);
}

/* y = (x == +inf && detect_positive) || (x == -inf && detect_negative) */
O2C_KERNEL void isinf_f32(int64_t n, int detect_positive, int detect_negative, const void *x,
                          uint8_t *y)
{
    const float *t = (const float *)x;
    for (int64_t i = 0; i < n; i++)
        y[i] = (uint8_t)((detect_positive && t[i] == INFINITY) ||
                         (detect_negative && t[i] == -INFINITY));
}

O2C_KERNEL void isinf_f64(int64_t n, int detect_positive, int detect_negative, const void *x,
                          uint8_t *y)
{
    const double *t = (const double *)x;
    for (int64_t i = 0; i < n; i++)
        y[i] = (uint8_t)((detect_positive && t[i] == (double)INFINITY) ||
                         (detect_negative && t[i] == -(double)INFINITY));
}

/* The helpers above are local to this file: do not leak them into the includer. */
#undef O2C_FLOAT_TO_INT
#undef O2C_TYPES_BINARY
#undef O2C_FMOD_S
#undef O2C_FMOD_U
#undef O2C_MOD_S
#undef O2C_FMOD_F32
#undef O2C_FMOD_F64
#undef O2C_MOD_F32
#undef O2C_MOD_F64
#undef O2C_SHL_S
#undef O2C_SHL_U
#undef O2C_SHR_U
#undef O2C_SHR_S
#undef O2C_AND
#undef O2C_OR
#undef O2C_XOR
#undef O2C_TYPES_INT
