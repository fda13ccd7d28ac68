/* math.c — elementwise math: unary functions and activations x[n] -> y[n], and the
 * broadcasting binary ops Pow, Max and Min.
 *
 * Unary kernels take x[n] and write y[n], both contiguous; y may be x (in place).
 *
 * Binary kernels take the iteration space already simplified by the compiler (size-1 dims
 * dropped, dims the operands step through as one merged; see broadcast_loop in
 * compiler/ops/tensor.c):
 *   rank          number of loop dims, 1..8
 *   dims          [rank] loop shape, row-major; y is contiguous [dims]
 *   sa, sb        [rank] element stride of a (b) along each loop dim, 0 where broadcast
 * Element (i0..ir-1) reads a[sum i_d*sa[d]] and b[sum i_d*sb[d]] and writes y[flat index].
 * y may be a (or b) only when that operand is contiguous with the output's shape.
 *
 * Numerics: each element is one C expression evaluated in float (double where the onnx
 * reference promotes, documented at the kernel), never contracted into an fma (gcc: ISO
 * mode; clang: the pragma below). Formulas are the onnx reference's (numpy). exp, log, erf,
 * tanh, expm1 and log1p are the project's own (templates/mathfn.c: documented ulp bounds, the
 * same bits on every compiler and target); the trigonometric and hyperbolic functions and
 * Pow still call the platform's libm (sinf, powf, ...), so those are bit-reproducible only for
 * a given libm.
 *
 * Part of the templates: the compiler pastes this text into the generated C file and also
 * links it to fold constants. It includes only standard headers and defines every function
 * with O2C_KERNEL, which the includer sets (generated code: static; compiler: empty).
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "mathfn.c" /* o2c_expf, ...: the transcendentals of every template */

#ifndef O2C_KERNEL
#define O2C_KERNEL static
#endif

#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

/* ---- Unary, float32: x[n] -> y[n] ---- */

#define O2C_MATH_UNARY(NAME, EXPR)                                                                 \
    O2C_KERNEL void NAME(int64_t n, const float *x, float *y)                                      \
    {                                                                                              \
        for (int64_t i = 0; i < n; i++) {                                                          \
            const float v = x[i];                                                                  \
            y[i] = EXPR;                                                                           \
        }                                                                                          \
    }

O2C_MATH_UNARY(abs_f32, fabsf(v))
O2C_MATH_UNARY(neg_f32, -v)
O2C_MATH_UNARY(exp_f32, o2c_expf(v))
O2C_MATH_UNARY(log_f32, o2c_logf(v))
O2C_MATH_UNARY(sqrt_f32, sqrtf(v))
O2C_MATH_UNARY(reciprocal_f32, 1.0f / v)
O2C_MATH_UNARY(floor_f32, floorf(v))
O2C_MATH_UNARY(ceil_f32, ceilf(v))
O2C_MATH_UNARY(sin_f32, sinf(v))
O2C_MATH_UNARY(cos_f32, cosf(v))
O2C_MATH_UNARY(tan_f32, tanf(v))
O2C_MATH_UNARY(asin_f32, asinf(v))
O2C_MATH_UNARY(acos_f32, acosf(v))
O2C_MATH_UNARY(atan_f32, atanf(v))
O2C_MATH_UNARY(sinh_f32, sinhf(v))
O2C_MATH_UNARY(cosh_f32, coshf(v))
O2C_MATH_UNARY(asinh_f32, asinhf(v))
O2C_MATH_UNARY(acosh_f32, acoshf(v))
O2C_MATH_UNARY(atanh_f32, atanhf(v))
/* numpy.sign: 1, -1, 0 for +-0 (always +0), NaN for NaN. */
O2C_MATH_UNARY(sign_f32, v > 0.0f ? 1.0f : v < 0.0f ? -1.0f : v == 0.0f ? 0.0f : v)
/* Round: to the nearest integer, halves to even (rintf in the default rounding mode, which C
 * programs run in unless they change it). */
O2C_MATH_UNARY(round_f32, rintf(v))

/* Softsign = x / (1 + |x|). */
O2C_MATH_UNARY(softsign_f32, v / (1.0f + fabsf(v)))

/* o2c_erff in rows of passes (mathfn.c): the same bits. */
O2C_KERNEL void erf_f32(int64_t n, const float *x, float *y)
{
    o2c_erff_rows(n, x, y);
}

/* Softplus = log(1 + exp(x)) as numpy.logaddexp(0, x) computes it (the onnx reference),
 * which never overflows: log(2) at 0, log1p(exp(x)) below, x + log1p(exp(-x)) above; NaN
 * stays NaN. */
O2C_KERNEL void softplus_f32(int64_t n, const float *x, float *y)
{
    for (int64_t i = 0; i < n; i++) {
        const float v = x[i];
        if (v == 0.0f)
            y[i] = 0.693147180559945309417232121458176568f;
        else if (v < 0.0f)
            y[i] = o2c_log1pf(o2c_expf(v));
        else if (v > 0.0f)
            y[i] = v + o2c_log1pf(o2c_expf(-v));
        else
            y[i] = v;
    }
}

/* HardSigmoid = max(0, min(1, x*alpha + beta)); NaN stays NaN (numpy minimum/maximum): t > 1 ?
 * 1 : t, then u < 0 ? 0 : u. The two choices are o2c_select's, one compare and one blend each:
 * gcc vectorised the ternaries of HardSwish below as three masked products, one per case. */
O2C_INLINE float hard_sigmoid_of(float t)
{
    const float u = o2c_select(t > 1.0f, 1.0f, t);
    return o2c_select(u < 0.0f, 0.0f, u);
}

O2C_KERNEL void hard_sigmoid_f32(int64_t n, float alpha, float beta, const float *x, float *y)
{
    for (int64_t i = 0; i < n; i++)
        y[i] = hard_sigmoid_of(x[i] * alpha + beta);
}

/* HardSwish = x * HardSigmoid(x, alpha = 1/6, beta = 0.5), ONNX's function body. */
O2C_KERNEL void hard_swish_f32(int64_t n, const float *x, float *y)
{
    const float alpha = 1.0f / 6.0f;
    for (int64_t i = 0; i < n; i++) {
        const float v = x[i];
        y[i] = v * hard_sigmoid_of(v * alpha + 0.5f);
    }
}

/* Elu = x > 0 ? x : alpha * expm1(x) (the onnx reference uses expm1). */
O2C_KERNEL void elu_f32(int64_t n, float alpha, const float *x, float *y)
{
    for (int64_t i = 0; i < n; i++) {
        const float v = x[i];
        y[i] = o2c_select(v > 0.0f, v, alpha * o2c_expm1f(v));
    }
}

/* 1 when every alpha * x[i] of x[0 .. n-1] lies in [-87, 87] (none is NaN): a compare of the
 * magnitude's bits, an integer reduction that vectorises. */
static int swish_within_87(int64_t n, float alpha, const float *x)
{
    uint32_t m = 0;
    for (int64_t i = 0; i < n; i++) {
        const uint32_t a = o2c_bits(alpha * x[i]) & 0x7fffffffu;
        m = a > m ? a : m;
    }
    return m <= 0x42ae0000u; /* 87.0f */
}

/* Swish on x[0 .. n-1] with n <= SWISH_CHUNK: see swish_f32. */
static void swish_chunk(int64_t n, float alpha, const float *x, float *y)
{
    if (swish_within_87(n, alpha, x)) {
        for (int64_t i = 0; i < n; i++) {
            const float v = x[i];
            y[i] = v * o2c_sigmoidf_finite(alpha * v);
        }
        return;
    }
    for (int64_t i = 0; i < n; i++) {
        const float v = x[i];
        y[i] = v * o2c_sigmoidf(alpha * v);
    }
}

/* Swish with alpha 1 on x[0 .. n-1] in one pass: each x with |x| < 86 (conv outputs, in
 * practice all) takes o2c_sigmoidf_within86, o2c_sigmoidf's bits for such x; any other (|x| >=
 * 86, inf, NaN) is copied as it is, and the call returns 1. Those are then exactly the
 * elements with |y| >= 86 or NaN, since a computed y has |y| <= |x| < 86 (the sigmoid is at
 * most 1): swish_f32 finishes them. */
static int swish1_within86(int64_t n, const float *x, float *y)
{
    uint32_t m = 0;
    for (int64_t i = 0; i < n; i++) {
        const float v = x[i];
        const uint32_t a = o2c_bits(v) & 0x7fffffffu;
        y[i] = o2c_select(a < 0x42ac0000u, v * o2c_sigmoidf_within86(v), v); /* 86.0f */
        m = a > m ? a : m;
    }
    return m >= 0x42ac0000u;
}

/* Swish = x * Sigmoid(alpha * x), with Sigmoid's own function (o2c_sigmoidf), so that the
 * compiler's rewrite of x * Sigmoid(x) into Swish keeps the bits of the two ops (alpha 1:
 * alpha * x is x). Alpha 1 (SiLU) runs swish1_within86 and, where it left elements, the plain
 * loop on those: one pass, with the range check in the loop and e^-|x| scaled by an integer
 * add (o2c_expf_within86). Other alphas: a chunk whose alpha * x all lie within +-87 takes
 * o2c_sigmoidf_finite, the same bits for all such floats at about 0.6 of the vector
 * instructions (no clamps, no two-factor scaling, no float to int conversion, no NaN test);
 * chunks of SWISH_CHUNK floats (16 KiB), so that the range check brings each into L1 for the
 * loop that follows. */
enum { SWISH_CHUNK = 4096 };
O2C_KERNEL void swish_f32(int64_t n, float alpha, const float *x, float *y)
{
    if (alpha == 1.0f) {
        if (swish1_within86(n, x, y))
            for (int64_t i = 0; i < n; i++) {
                const float v = y[i];
                if ((o2c_bits(v) & 0x7fffffffu) >= 0x42ac0000u)
                    y[i] = v * o2c_sigmoidf(v);
            }
        return;
    }
    for (int64_t i = 0; i < n; i += SWISH_CHUNK)
        swish_chunk(n - i < SWISH_CHUNK ? n - i : SWISH_CHUNK, alpha, x + i, y + i);
}

/* Selu = (x > 0 ? x : alpha * expm1(x)) * gamma. */
O2C_KERNEL void selu_f32(int64_t n, float alpha, float gamma, const float *x, float *y)
{
    for (int64_t i = 0; i < n; i++) {
        const float v = x[i];
        y[i] = o2c_select(v > 0.0f, v, alpha * o2c_expm1f(v)) * gamma;
    }
}

/* Gelu (approximate = "none"), in the order of ONNX's function body:
 * (0.5 * x) * (1 + erf(x / sqrt(2))). */
O2C_KERNEL void gelu_f32(int64_t n, const float *x, float *y)
{
    const float sqrt2 = sqrtf(2.0f);
    for (int64_t i0 = 0; i0 < n; i0 += O2C_ROW) {
        const int64_t m = n - i0 < O2C_ROW ? n - i0 : O2C_ROW;
        float e[O2C_ROW]; /* erf(x / sqrt2) of the row, in passes (mathfn.c) */
        for (int64_t i = 0; i < m; i++)
            e[i] = x[i0 + i] / sqrt2;
        o2c_erff_row(m, e, e);
        for (int64_t i = 0; i < m; i++) {
            const float v = x[i0 + i];
            y[i0 + i] = (0.5f * v) * (1.0f + e[i]);
        }
    }
}

/* Gelu (approximate = "tanh"), in the order of ONNX's function body:
 * (0.5 * x) * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3))), x^3 as (x * x) * x. */
O2C_KERNEL void gelu_tanh_f32(int64_t n, const float *x, float *y)
{
    const float k = sqrtf(0.63661975f); /* sqrt(2/pi) as the function body computes it */
    for (int64_t i0 = 0; i0 < n; i0 += O2C_ROW) {
        const int64_t m = n - i0 < O2C_ROW ? n - i0 : O2C_ROW;
        float t[O2C_ROW];
        for (int64_t i = 0; i < m; i++) {
            const float v = x[i0 + i];
            t[i] = k * (v + 0.044715f * ((v * v) * v));
        }
        o2c_tanhf_row(m, t, t);
        for (int64_t i = 0; i < m; i++) {
            const float v = x[i0 + i];
            y[i0 + i] = (0.5f * v) * (1.0f + t[i]);
        }
    }
}

/* ---- Unary, float64 (the double islands of exported function bodies, e.g. ReduceLogSumExp) ----
 */

O2C_KERNEL void exp_f64(int64_t n, const double *x, double *y)
{
    for (int64_t i = 0; i < n; i++)
        y[i] = exp(x[i]);
}

O2C_KERNEL void log_f64(int64_t n, const double *x, double *y)
{
    for (int64_t i = 0; i < n; i++)
        y[i] = log(x[i]);
}

/* ---- Unary, int64 (shape arithmetic): wrap around like numpy (|INT64_MIN| = INT64_MIN) ---- */

O2C_KERNEL void abs_i64(int64_t n, const int64_t *x, int64_t *y)
{
    for (int64_t i = 0; i < n; i++)
        y[i] = x[i] < 0 ? (int64_t)(0u - (uint64_t)x[i]) : x[i];
}

O2C_KERNEL void neg_i64(int64_t n, const int64_t *x, int64_t *y)
{
    for (int64_t i = 0; i < n; i++)
        y[i] = (int64_t)(0u - (uint64_t)x[i]);
}

/* ---- Binary with broadcasting (arguments described at the top of the file) ---- */

#define O2C_MATH_BINARY(NAME, TA, TB, TY, OP)                                                      \
    O2C_KERNEL void NAME(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb,      \
                         const TA *a, const TB *b, TY *y)                                          \
    {                                                                                              \
        int64_t idx[8] = {0}, off_a = 0, off_b = 0, rows = 1;                                      \
        for (int d = 0; d < rank - 1; d++)                                                         \
            rows *= dims[d];                                                                       \
        const int64_t n = dims[rank - 1], as = sa[rank - 1], bs = sb[rank - 1];                    \
        for (int64_t row = 0; row < rows; row++) {                                                 \
            TY *yr = y + row * n;                                                                  \
            for (int64_t i = 0; i < n; i++)                                                        \
                yr[i] = OP(a[off_a + i * as], b[off_b + i * bs]);                                  \
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

/* Pow of float32 by float32 is numpy's float32 power, powf. With an integer exponent numpy
 * promotes both operands to float64, so the onnx reference computes pow in double and rounds
 * the result to float once. */
#define O2C_POW_F32(p, q)     powf((p), (q))
#define O2C_POW_F32_INT(p, q) ((float)pow((double)(p), (double)(q)))
/* numpy maximum/minimum: NaN in either operand gives NaN. */
#define O2C_MAX(p, q)     ((p) >= (q) || (p) != (p) ? (p) : (q))
#define O2C_MIN(p, q)     ((p) <= (q) || (p) != (p) ? (p) : (q))
#define O2C_MAX_INT(p, q) ((p) >= (q) ? (p) : (q))
#define O2C_MIN_INT(p, q) ((p) <= (q) ? (p) : (q))

/* Integer base, integer exponent: numpy's integer power, b >= 0 by squaring in uint64_t
 * (wrapping like numpy; the caller's type truncates it further). numpy refuses b < 0; here
 * it is the truncated real power: 1 for base 1, +-1 for base -1, else 0. */
O2C_KERNEL int64_t pow_int(int64_t a, int64_t b)
{
    if (b < 0)
        return a == 1 ? 1 : a == -1 ? ((b & 1) ? -1 : 1) : 0;
    uint64_t r = 1, p = (uint64_t)a;
    for (; b; b >>= 1) {
        if (b & 1)
            r = r * p;
        p = p * p;
    }
    return (int64_t)r;
}

/* Integer base, float exponent: numpy computes in double and astype() truncates toward zero;
 * NaN and out-of-range results give the type's minimum (what x86 conversions give numpy). */
O2C_KERNEL int64_t pow_to_i64(double r)
{
    return r >= -9223372036854775808.0 && r < 9223372036854775808.0 ? (int64_t)r : INT64_MIN;
}
O2C_KERNEL int32_t pow_to_i32(double r)
{
    return r >= -2147483648.0 && r < 2147483648.0 ? (int32_t)r : INT32_MIN;
}
#define O2C_POW_INT(p, q)   pow_int((int64_t)(p), (int64_t)(q))
#define O2C_POW_INT32(p, q) ((int32_t)pow_int((int64_t)(p), (int64_t)(q)))
#define O2C_POW_I64_F(p, q) pow_to_i64(pow((double)(p), (double)(q)))
#define O2C_POW_I32_F(p, q) pow_to_i32(pow((double)(p), (double)(q)))

O2C_MATH_BINARY(pow_f32, float, float, float, O2C_POW_F32)
O2C_MATH_BINARY(pow_f32_i64, float, int64_t, float, O2C_POW_F32_INT)
O2C_MATH_BINARY(pow_f32_i32, float, int32_t, float, O2C_POW_F32_INT)
O2C_MATH_BINARY(pow_f32_u64, float, uint64_t, float, O2C_POW_F32_INT)
O2C_MATH_BINARY(pow_f32_u32, float, uint32_t, float, O2C_POW_F32_INT)
O2C_MATH_BINARY(pow_i32_f32, int32_t, float, int32_t, O2C_POW_I32_F)
O2C_MATH_BINARY(pow_i64_f32, int64_t, float, int64_t, O2C_POW_I64_F)
O2C_MATH_BINARY(pow_i32_i32, int32_t, int32_t, int32_t, O2C_POW_INT32)
O2C_MATH_BINARY(pow_i32_i64, int32_t, int64_t, int32_t, O2C_POW_INT32)
O2C_MATH_BINARY(pow_i64_i32, int64_t, int32_t, int64_t, O2C_POW_INT)
O2C_MATH_BINARY(pow_i64_i64, int64_t, int64_t, int64_t, O2C_POW_INT)
O2C_MATH_BINARY(max_f32, float, float, float, O2C_MAX)
O2C_MATH_BINARY(min_f32, float, float, float, O2C_MIN)
O2C_MATH_BINARY(max_f64, double, double, double, O2C_MAX)
O2C_MATH_BINARY(min_f64, double, double, double, O2C_MIN)
O2C_MATH_BINARY(max_i64, int64_t, int64_t, int64_t, O2C_MAX_INT)
O2C_MATH_BINARY(min_i64, int64_t, int64_t, int64_t, O2C_MIN_INT)
O2C_MATH_BINARY(max_i8, int8_t, int8_t, int8_t, O2C_MAX_INT)
O2C_MATH_BINARY(min_i8, int8_t, int8_t, int8_t, O2C_MIN_INT)
O2C_MATH_BINARY(max_u8, uint8_t, uint8_t, uint8_t, O2C_MAX_INT)
O2C_MATH_BINARY(min_u8, uint8_t, uint8_t, uint8_t, O2C_MIN_INT)
O2C_MATH_BINARY(max_i16, int16_t, int16_t, int16_t, O2C_MAX_INT)
O2C_MATH_BINARY(min_i16, int16_t, int16_t, int16_t, O2C_MIN_INT)
O2C_MATH_BINARY(max_u16, uint16_t, uint16_t, uint16_t, O2C_MAX_INT)
O2C_MATH_BINARY(min_u16, uint16_t, uint16_t, uint16_t, O2C_MIN_INT)
O2C_MATH_BINARY(max_i32, int32_t, int32_t, int32_t, O2C_MAX_INT)
O2C_MATH_BINARY(min_i32, int32_t, int32_t, int32_t, O2C_MIN_INT)
O2C_MATH_BINARY(max_u32, uint32_t, uint32_t, uint32_t, O2C_MAX_INT)
O2C_MATH_BINARY(min_u32, uint32_t, uint32_t, uint32_t, O2C_MIN_INT)
O2C_MATH_BINARY(max_u64, uint64_t, uint64_t, uint64_t, O2C_MAX_INT)
O2C_MATH_BINARY(min_u64, uint64_t, uint64_t, uint64_t, O2C_MIN_INT)

/* Det of each of the batch n x n matrices x [batch][n][n] -> y [batch]: Gaussian elimination
 * in double with partial pivoting (the first row with the largest |a[i][k]|, as LAPACK's
 * getrf that numpy.linalg.det calls), det = sign * product of the pivots in order, rounded
 * to float once. a: scratch of n*n doubles. A zero pivot column gives 0. */
O2C_KERNEL void det_f32(int64_t batch, int64_t n, const float *x, float *y, double *a)
{
    for (int64_t b = 0; b < batch; b++) {
        for (int64_t i = 0; i < n * n; i++)
            a[i] = (double)x[b * n * n + i];
        double det = 1.0;
        for (int64_t k = 0; k < n && det != 0.0; k++) {
            int64_t p = k;
            for (int64_t i = k + 1; i < n; i++)
                if (fabs(a[i * n + k]) > fabs(a[p * n + k]))
                    p = i;
            if (a[p * n + k] == 0.0) {
                det = 0.0;
                break;
            }
            if (p != k) {
                for (int64_t j = k; j < n; j++) {
                    const double t = a[k * n + j];
                    a[k * n + j] = a[p * n + j];
                    a[p * n + j] = t;
                }
                det = -det;
            }
            det = det * a[k * n + k];
            for (int64_t i = k + 1; i < n; i++) {
                const double f = a[i * n + k] / a[k * n + k];
                for (int64_t j = k + 1; j < n; j++)
                    a[i * n + j] = a[i * n + j] - f * a[k * n + j];
            }
        }
        y[b] = (float)det;
    }
}

/* The helpers above are local to this file: do not leak them into the includer. */
#undef O2C_MATH_UNARY
#undef O2C_MATH_BINARY
#undef O2C_POW_F32
#undef O2C_POW_F32_INT
#undef O2C_POW_INT
#undef O2C_POW_INT32
#undef O2C_POW_I64_F
#undef O2C_POW_I32_F
#undef O2C_MAX
#undef O2C_MIN
#undef O2C_MAX_INT
#undef O2C_MIN_INT
