/* mathfn.c — the transcendentals of every template, in plain C: range reduction plus fmaf
 * polynomials, so the same input gives the same bits with any C99 compiler at any -O level on
 * any target (the platform's libm is never called for these), and constant folding gets
 * exactly what the generated code computes.
 *
 * Every function is static inline, branch-free (both sides of a case are computed and one is
 * selected), without errno or tables, so gcc and clang vectorise the loops that call them.
 * Special values follow C99 Annex F: NaN in gives NaN out; +-inf, +-0 and overflow/underflow
 * give what the libm function returns; denormal inputs and results are handled (no flush).
 *
 * Maximum error against the double-precision libm function rounded to float, in ulps of the
 * float result: measured over every 17th float bit pattern plus [-16, 16] in steps of 2^-12
 * (`test_mathfn 17`), and the bound tests/unit/test_mathfn.c asserts:
 *   o2c_expf      1.00   (bound 1.5; two-step scaling: a denormal result is rounded once)
 *   o2c_expm1f    1.43   (bound 2)
 *   o2c_logf      0.80   (bound 1)
 *   o2c_log1pf    1.44   (bound 2)
 *   o2c_tanhf     1.31   (bound 2)
 *   o2c_sigmoidf  2.40   (bound 3; 1 / (1 + e^-x) for x > 0, e^x / (1 + e^x) otherwise)
 *   o2c_erff      1.02   (bound 1.5)
 *
 * Numerics: the polynomials are Cephes' (S. Moshier) for expf, logf and tanhf; erff's are
 * N. Juffa's minimax fit. Every multiply-add of a polynomial is an explicit fmaf; nothing else
 * may be contracted (clang's pragma below; gcc never contracts in ISO C mode, -std=c99).
 *
 * Part of the templates: the templates that need these include this file; in generated code
 * onnx2c pastes its text once, in place of the first such #include. */
#ifndef O2C_MATHFN_C
#define O2C_MATHFN_C

#include <math.h>
#include <stdint.h>
#include <string.h>

#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

/* Generated code pastes all of this file for any one function: unused ones must not warn. */
#if defined(__GNUC__)
#define O2C_INLINE static inline __attribute__((unused))
#else
#define O2C_INLINE static inline
#endif

O2C_INLINE uint32_t o2c_bits(float x)
{
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

O2C_INLINE float o2c_from_bits(uint32_t u)
{
    float x;
    memcpy(&x, &u, sizeof x);
    return x;
}

/* The sum of 16 lane sums, folded in halves: l[c] + l[c + w] for w = 8, 4, 2, 1 (softmax and
 * LayerNorm's one summation order). Each step goes into an array of its own: folded in place,
 * gcc stored the lanes and reloaded parts of them, which the store could not forward (a
 * quarter of an attention line's softmax time on AMD Zen 4). */
#define O2C_LANE_SUM16(SUF, T)                                                                     \
    O2C_INLINE T o2c_lane_sum16_##SUF(const T l[16])                                               \
    {                                                                                              \
        T h[8], q[4];                                                                              \
        for (int c = 0; c < 8; c++)                                                                \
            h[c] = l[c] + l[c + 8];                                                                \
        for (int c = 0; c < 4; c++)                                                                \
            q[c] = h[c] + h[c + 4];                                                                \
        const T d0 = q[0] + q[2], d1 = q[1] + q[3];                                                \
        return d0 + d1;                                                                            \
    }
O2C_LANE_SUM16(f32, float)
O2C_LANE_SUM16(f64, double)
#undef O2C_LANE_SUM16

/* |mag| with the sign of sgn (exact). */
O2C_INLINE float o2c_with_sign(float mag, float sgn)
{
    return o2c_from_bits((o2c_bits(mag) & 0x7fffffffu) | (o2c_bits(sgn) & 0x80000000u));
}

/* c ? a : b on the bits: both sides are computed, so gcc cannot sink one side's float
 * arithmetic into a branch (which it then refuses to if-convert, as that arithmetic might
 * trap) and the loop stays vectorisable. */
O2C_INLINE float o2c_select(int c, float a, float b)
{
    const uint32_t mask = 0u - (uint32_t)(c != 0);
    return o2c_from_bits((o2c_bits(a) & mask) | (o2c_bits(b) & ~mask));
}

/* 2^n for -126 <= n <= 127. */
O2C_INLINE float o2c_pow2i(int32_t n)
{
    return o2c_from_bits((uint32_t)(n + 127) << 23);
}

/* Rounds x * log2(e) to an integer kf (|x| < 2^21) with the 1.5 * 2^23 shifter: the product
 * and the two additions each round once, never contracted. */
O2C_INLINE float o2c_exp_reduce(float x, float *r)
{
    const float shift = 0x1.8p23f;
    const float t = x * 0x1.715476p+0f + shift;
    const float kf = t - shift;
    /* r = x - kf * ln2, ln2 in two parts (hi + lo = ln2 to 2^-50) */
    float rr = fmaf(kf, -0x1.62e43p-1f, x);
    *r = fmaf(kf, 0x1.05c61p-29f, rr);
    return kf;
}

/* e^r - 1 - r over r^2, for |r| <= ln2 / 2 (Cephes expf). */
O2C_INLINE float o2c_exp_poly(float r)
{
    float p = 1.9875691500e-4f;
    p = fmaf(p, r, 1.3981999507e-3f);
    p = fmaf(p, r, 8.3334519073e-3f);
    p = fmaf(p, r, 4.1665795894e-2f);
    p = fmaf(p, r, 1.6666665459e-1f);
    return fmaf(p, r, 5.0000001201e-1f);
}

/* e^x. x is clamped to [-104, 89] (e^-104 rounds to 0, e^89 overflows) so n fits. */
O2C_INLINE float o2c_expf(float x)
{
    const float xc = o2c_select(x > 89.0f, 89.0f, o2c_select(x < -104.0f, -104.0f, x));
    const float xs = o2c_select(x != x, 0.0f, xc);
    float r;
    const float kf = o2c_exp_reduce(xs, &r);
    const int32_t n = (int32_t)kf, n1 = n / 2;
    const float e = fmaf(o2c_exp_poly(r), r * r, r) + 1.0f;
    /* 2^n in two factors: the first product is exact, the second rounds once, also into
     * the denormals; n = 128 overflows to inf */
    const float y = e * o2c_pow2i(n1) * o2c_pow2i(n - n1);
    return o2c_select(x != x, x + x, y);
}

/* o2c_exp_reduce's steps and the polynomial, keeping the shifted sum t: e^x = e * 2^kf for the
 * e returned, and t's bits, in *tb, are 0x4b400000 + kf for |kf| < 2^22, so 2^kf comes from
 * integer arithmetic on them, which needs no float to int conversion (undefined for NaN, hence
 * guarded in o2c_expf) and no clamp. */
O2C_INLINE float o2c_exp_finite_parts(float x, uint32_t *tb)
{
    const float shift = 0x1.8p23f;
    const float t = x * 0x1.715476p+0f + shift;
    const float kf = t - shift;
    const float rr = fmaf(kf, -0x1.62e43p-1f, x);
    const float r = fmaf(kf, 0x1.05c61p-29f, rr);
    *tb = o2c_bits(t);
    return fmaf(o2c_exp_poly(r), r * r, r) + 1.0f;
}

/* e^x for |x| <= 87 that is not NaN, where 2^n is a normal float: the bits of o2c_expf, which
 * scales in two factors only so that n may leave [-126, 127]; here one factor is exact and
 * e * 2^n rounds once, as e * 2^n1 * 2^(n-n1) does (its first product is exact). Without the
 * clamps and the second scaling a vector of it costs about 2/3 of o2c_expf's (and without the
 * float to int conversion, o2c_exp_finite_parts, 0.9 of that again: all 2^32 inputs give the
 * bits of the former code). For loops that check their range first (o2c_sigmoidf_finite); a NaN is
 * o2c_expf_normal's. */
O2C_INLINE float o2c_expf_finite(float x)
{
    uint32_t tb;
    const float e = o2c_exp_finite_parts(x, &tb);
    return e * o2c_from_bits((tb - 0x4b400000u + 127u) << 23);
}

/* o2c_expf_finite for |x| < 86, with its bits and no multiply: e^x is a normal float there
 * (kf >= -124 and e >= 0.7), so e * 2^kf is exact, and it is e with kf added to its exponent,
 * an integer sum on the bits (t's bits shifted by 23 are kf << 23, mod 2^32). For loops that
 * check their range first (swish_f32); other x give garbage, never undefined behaviour. */
O2C_INLINE float o2c_expf_within86(float x)
{
    uint32_t tb;
    const float e = o2c_exp_finite_parts(x, &tb);
    return o2c_from_bits(o2c_bits(e) + (tb << 23));
}

/* o2c_expf_finite for |x| <= 87 or NaN: a NaN runs through its arithmetic and returns x + x
 * as o2c_expf does. For callers whose argument is bounded: o2c_tanhf (0 .. 19), o2c_erff
 * (-17 .. 0), o2c_sigmoidf_bounded and Softmax's checked lines. */
O2C_INLINE float o2c_expf_normal(float x)
{
    const float y = o2c_expf_finite(x);
    return o2c_select(x != x, x + x, y);
}

/* e^x - 1: 2^n * (e^r - 1) + (2^n - 1), exact in its last step's inputs for |n| <= 24. */
O2C_INLINE float o2c_expm1f(float x)
{
    const float xc = o2c_select(x > 20.0f, 20.0f, o2c_select(x < -20.0f, -20.0f, x));
    const float xs = o2c_select(x != x, 0.0f, xc);
    float r;
    const float kf = o2c_exp_reduce(xs, &r);
    const float t = o2c_pow2i((int32_t)kf);
    const float pm = fmaf(o2c_exp_poly(r), r * r, r);
    const float y = fmaf(t, pm, t - 1.0f);
    /* above 20, e^x - 1 rounds to e^x; below -20 the clamp gives -1 */
    const float big = o2c_expf(x);
    return o2c_select(x != x, x + x, o2c_select(x == 0.0f, x, o2c_select(x > 20.0f, big, y)));
}

/* log x: x = 2^k * m, m in [sqrt(1/2), sqrt(2)), log x = k ln2 + log m (Cephes logf). The
 * cases are told apart on the bits (integer compares: gcc does not if-convert a float compare
 * that might trap). */
O2C_INLINE float o2c_logf(float x)
{
    const uint32_t ux = o2c_bits(x);
    const int sub = ux < 0x00800000u; /* +0 or denormal: scaled by 2^23 */
    const float xs = x * o2c_select(sub, 0x1p23f, 1.0f);
    const uint32_t u = o2c_bits(xs);
    const float m0 = o2c_from_bits((u & 0x7fffffu) | 0x3f800000u); /* [1, 2) */
    const int big = (u & 0x7fffffu) > 0x3504f3u;                   /* m0 > sqrt(2) */
    const float m = m0 * o2c_select(big, 0.5f, 1.0f);
    const int32_t k = (int32_t)((u >> 23) & 0xffu) - 127 - 23 * sub + big;
    const float e = (float)k;
    const float f = m - 1.0f;
    const float z = f * f;
    float p = 7.0376836292e-2f;
    p = fmaf(p, f, -1.1514610310e-1f);
    p = fmaf(p, f, 1.1676998740e-1f);
    p = fmaf(p, f, -1.2420140846e-1f);
    p = fmaf(p, f, 1.4249322787e-1f);
    p = fmaf(p, f, -1.6668057665e-1f);
    p = fmaf(p, f, 2.0000714765e-1f);
    p = fmaf(p, f, -2.4999993993e-1f);
    p = fmaf(p, f, 3.3333331174e-1f);
    float y = p * f * z;
    y = fmaf(e, -2.12194440e-4f, y); /* ln2 = 0.693359375 - 2.12194440e-4 */
    y = fmaf(z, -0.5f, y);
    const float l = fmaf(e, 0.693359375f, f + y);
    const float xx = x + x;                                /* inf, or NaN quieted */
    float r = o2c_select(ux >= 0x7f800000u, xx, l);        /* +inf, +NaN */
    r = o2c_select((ux & 0x7fffffffu) == 0, -INFINITY, r); /* +-0 */
    r = o2c_select(ux > 0x80000000u, NAN, r);              /* negative */
    return o2c_select(ux > 0xff800000u, xx, r);            /* -NaN */
}

/* log(1 + x): u = 1 + x rounds, c = (u - 1) - x is that rounding, log(1 + x) = log u - c / u
 * to first order (Goldberg's correction, branch-free). */
O2C_INLINE float o2c_log1pf(float x)
{
    const float u = 1.0f + x;
    const float c = (u - 1.0f) - x;
    const float q = c / o2c_select(u == 0.0f, 1.0f, u);
    const float y = o2c_logf(u) - q;
    return o2c_select(x == 0.0f || x == INFINITY, x, y);
}

/* tanh x: an odd polynomial below 0.625, 1 - 2 / (e^2|x| + 1) above (both Cephes); tanh
 * rounds to 1 beyond 9.01, so the exponential's argument is clamped there. In three steps, so
 * that o2c_tanhf_row can run them as passes: the polynomial side in *small and the
 * exponential's argument (o2c_tanh_parts), the exponential, the choice (o2c_tanh_pick). */
O2C_INLINE float o2c_tanh_parts(float x, float *small)
{
    const float a = fabsf(x);
    const float z = a * a;
    float p = -5.70498872745e-3f;
    p = fmaf(p, z, 2.06390887954e-2f);
    p = fmaf(p, z, -5.37397155531e-2f);
    p = fmaf(p, z, 1.33314422036e-1f);
    p = fmaf(p, z, -3.33332819422e-1f);
    *small = fmaf(p * z, a, a);
    const float ac = o2c_select(a > 9.5f, 9.5f, a);
    return ac + ac;
}

O2C_INLINE float o2c_tanh_pick(float x, float small, float e)
{
    const float large = 1.0f - 2.0f / (e + 1.0f);
    return o2c_with_sign(o2c_select(fabsf(x) < 0.625f, small, large), x);
}

O2C_INLINE float o2c_tanhf(float x)
{
    float small;
    const float e = o2c_expf_normal(o2c_tanh_parts(x, &small));
    return o2c_tanh_pick(x, small, e);
}

/* 1 / (1 + e^-x): the exponential of -|x| never overflows; x > 0 gives 1 / (1 + e^-x),
 * otherwise e^x / (1 + e^x). The numerator is chosen before the one division (the same
 * operations as dividing in each branch), so that a vector loop divides once, not twice.
 * o2c_sigmoid_pick is that last step, from x and e = e^-|x|. */
O2C_INLINE float o2c_sigmoid_pick(float x, float e)
{
    const float d = 1.0f + e;
    return o2c_select(x > 0.0f, 1.0f, e) / d;
}

O2C_INLINE float o2c_sigmoidf(float x)
{
    return o2c_sigmoid_pick(x, o2c_expf(-fabsf(x)));
}

/* o2c_sigmoidf for |x| <= 87, with its bits: e^-|x| is then o2c_expf_normal's. For loops
 * that check a whole row's range first (templates/recurrent.c, rnn_act_row). */
O2C_INLINE float o2c_sigmoidf_bounded(float x)
{
    return o2c_sigmoid_pick(x, o2c_expf_normal(-fabsf(x)));
}

/* o2c_sigmoidf_bounded for x that is not NaN, with its bits (o2c_expf_finite; swish_f32's
 * checked runs). */
O2C_INLINE float o2c_sigmoidf_finite(float x)
{
    return o2c_sigmoid_pick(x, o2c_expf_finite(-fabsf(x)));
}

/* o2c_sigmoidf_finite for |x| < 86, with its bits (o2c_expf_within86; swish_f32's alpha-1
 * loop, which checks each x). */
O2C_INLINE float o2c_sigmoidf_within86(float x)
{
    return o2c_sigmoid_pick(x, o2c_expf_within86(-fabsf(x)));
}

/* erf x: an odd polynomial up to 0.921875; above, 1 - e^(polynomial in |x|); erf rounds to
 * 1 beyond 3.92, so that side is clamped to 4. In three steps, as o2c_tanhf: both polynomials
 * (the exponent q of the large side returned, q in [-17, 0]), the exponential, the choice. */
O2C_INLINE float o2c_erf_parts(float x, float *small)
{
    const float a = fabsf(x), s = x * x;
    float r = -5.96761703e-4f;
    r = fmaf(r, s, 4.99119423e-3f);
    r = fmaf(r, s, -2.67681349e-2f);
    r = fmaf(r, s, 1.12819925e-1f);
    r = fmaf(r, s, -3.76125336e-1f);
    r = fmaf(r, s, 1.28379166e-1f);
    *small = fmaf(r, x, x);
    const float t = o2c_select(a > 4.0f, 4.0f, a), ts = t * t;
    float q = fmaf(-1.72853470e-5f, t, 3.83197126e-4f);
    const float v = fmaf(-3.88396438e-3f, t, 2.42546219e-2f);
    q = fmaf(q, ts, v);
    q = fmaf(q, t, -1.06777877e-1f);
    q = fmaf(q, t, -6.34846687e-1f);
    q = fmaf(q, t, -1.28717512e-1f);
    return fmaf(q, t, -t);
}

O2C_INLINE float o2c_erf_pick(float x, float small, float e)
{
    const float large = o2c_with_sign(1.0f - e, x);
    return o2c_select(fabsf(x) <= 0.921875f, small, large);
}

O2C_INLINE float o2c_erff(float x)
{
    float small;
    const float e = o2c_expf_normal(o2c_erf_parts(x, &small));
    return o2c_erf_pick(x, small, e);
}

/* ---- Rows in passes ----
 * A vector loop of o2c_erff is one dependency chain per element of about 115 cycles (two
 * polynomials, then the exponential, then the choice), far longer than the out-of-order
 * window can overlap with the elements after it: on AMD Zen 3 Gelu ran at a third of the rate
 * its arithmetic allows. The row forms compute the same operations in the same order, so the
 * same bits, as passes over at most O2C_ROW elements (in L1), each pass a loop of its own with
 * a short chain (benchmarks/mathfn_rows.c: Gelu 0.7-0.8x the time, Tanh 0.9x; Sigmoid, whose
 * chain is the exponential and one division, gained 2% and has no row form). y may be x. */
#define O2C_ROW 64

/* NAME##_row (n <= O2C_ROW) and NAME##_rows (any n) of a function written as PARTS (the
 * polynomials; returns the exponential's argument, *small the other side), o2c_expf_normal
 * and PICK (the choice): one pass per step. */
#define O2C_ROW_FORMS(NAME, PARTS, PICK)                                                           \
    O2C_INLINE void NAME##_row(int64_t n, const float *x, float *y)                                \
    {                                                                                              \
        float small[O2C_ROW], e[O2C_ROW];                                                          \
        for (int64_t i = 0; i < n; i++)                                                            \
            e[i] = PARTS(x[i], &small[i]);                                                         \
        for (int64_t i = 0; i < n; i++)                                                            \
            e[i] = o2c_expf_normal(e[i]);                                                          \
        for (int64_t i = 0; i < n; i++)                                                            \
            y[i] = PICK(x[i], small[i], e[i]);                                                     \
    }                                                                                              \
    O2C_INLINE void NAME##_rows(int64_t n, const float *x, float *y)                               \
    {                                                                                              \
        for (int64_t i0 = 0; i0 < n; i0 += O2C_ROW)                                                \
            NAME##_row(n - i0 < O2C_ROW ? n - i0 : O2C_ROW, x + i0, y + i0);                       \
    }
O2C_ROW_FORMS(o2c_erff, o2c_erf_parts, o2c_erf_pick)
O2C_ROW_FORMS(o2c_tanhf, o2c_tanh_parts, o2c_tanh_pick)
#undef O2C_ROW_FORMS

#endif
