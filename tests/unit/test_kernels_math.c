/* Unit test of templates/math.c: the unary functions on hand-computed and special values
 * (NaN, +-0, +-inf), and Pow/Max/Min on broadcast loop spaces against hand-computed
 * outputs. The template is compiled after kernels.h with extern kernels, so every prototype
 * there is checked against its definition. */
#include "../../templates/kernels.h"

#define O2C_KERNEL
#include "../../templates/math.c"

#include <stdio.h>
#include <string.h>

#include "check.h"

static uint32_t bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

/* same value, including the sign of zero; any NaN matches any NaN */
static int same(float a, float b)
{
    if (isnan(a) || isnan(b))
        return isnan(a) && isnan(b);
    return bits(a) == bits(b);
}

static int same_all(const float *a, const float *b, int n)
{
    for (int i = 0; i < n; i++)
        if (!same(a[i], b[i])) {
            printf("  element %d: got %a want %a\n", i, (double)a[i], (double)b[i]);
            return 0;
        }
    return 1;
}

static int close_to(float got, double want, double rel)
{
    return fabs((double)got - want) <= rel * fabs(want) + 1e-30;
}

static void test_simple_unary(void)
{
    const float x[6] = {-1.5f, -0.0f, 0.0f, 2.5f, NAN, -INFINITY};
    float y[6];

    const float abs_want[6] = {1.5f, 0.0f, 0.0f, 2.5f, NAN, INFINITY};
    abs_f32(6, x, y);
    check(same_all(y, abs_want, 6), "abs");

    const float neg_want[6] = {1.5f, 0.0f, -0.0f, -2.5f, NAN, INFINITY};
    neg_f32(6, x, y);
    check(same_all(y, neg_want, 6), "neg");

    const float floor_want[6] = {-2.0f, -0.0f, 0.0f, 2.0f, NAN, -INFINITY};
    floor_f32(6, x, y);
    check(same_all(y, floor_want, 6), "floor");

    const float ceil_want[6] = {-1.0f, -0.0f, 0.0f, 3.0f, NAN, -INFINITY};
    ceil_f32(6, x, y);
    check(same_all(y, ceil_want, 6), "ceil");

    /* numpy.sign(-0.0) is +0.0 */
    const float sign_want[6] = {-1.0f, 0.0f, 0.0f, 1.0f, NAN, -1.0f};
    sign_f32(6, x, y);
    check(same_all(y, sign_want, 6), "sign (numpy: +0 for -0, NaN for NaN)");

    const float rec_want[6] = {-1.0f / 1.5f, -INFINITY, INFINITY, 0.4f, NAN, -0.0f};
    reciprocal_f32(6, x, y);
    check(same_all(y, rec_want, 6), "reciprocal");

    const float softsign_want[6] = {-1.5f / 2.5f, -0.0f, 0.0f, 2.5f / 3.5f, NAN, NAN};
    softsign_f32(6, x, y);
    check(same_all(y, softsign_want, 6), "softsign (-inf/inf is NaN)");
    {
        const float rx[8] = {0.5f, 1.5f, 2.5f, -0.5f, -1.5f, 2.4f, -2.6f, 7.0f};
        const float rwant[8] = {0.0f, 2.0f, 2.0f, -0.0f, -2.0f, 2.0f, -3.0f, 7.0f};
        float ry[8];
        round_f32(8, rx, ry);
        check(same_all(ry, rwant, 8), "round: halves to even, sign kept");
    }

    const float sq_in[3] = {4.0f, 2.0f, -1.0f};
    sqrt_f32(3, sq_in, y);
    check(y[0] == 2.0f && y[1] == sqrtf(2.0f) && isnan(y[2]), "sqrt");

    const float e_in[3] = {0.0f, 1.0f, -INFINITY};
    exp_f32(3, e_in, y);
    check(y[0] == 1.0f && y[1] == o2c_expf(1.0f) && y[2] == 0.0f, "exp");
    log_f32(3, e_in, y);
    check(y[0] == -INFINITY && y[1] == 0.0f && isnan(y[2]), "log");
    erf_f32(3, e_in, y);
    check(y[0] == 0.0f && y[1] == o2c_erff(1.0f) && y[2] == -1.0f, "erf");
    sin_f32(2, e_in, y);
    check(y[0] == 0.0f && y[1] == sinf(1.0f), "sin");
    cos_f32(2, e_in, y);
    check(y[0] == 1.0f && y[1] == cosf(1.0f), "cos");

    /* inverse and hyperbolic trig at points with exact values */
    const float t_in[2] = {0.0f, 1.0f};
    tan_f32(2, t_in, y);
    check(y[0] == 0.0f && y[1] == tanf(1.0f), "tan");
    asin_f32(2, t_in, y);
    check(y[0] == 0.0f && fabsf(y[1] - 1.5707963f) < 1e-6f, "asin");
    acos_f32(2, t_in, y);
    check(fabsf(y[0] - 1.5707963f) < 1e-6f && y[1] == 0.0f, "acos");
    atan_f32(2, t_in, y);
    check(y[0] == 0.0f && fabsf(y[1] - 0.78539816f) < 1e-6f, "atan");
    sinh_f32(2, t_in, y);
    check(y[0] == 0.0f && fabsf(y[1] - 1.1752012f) < 1e-6f, "sinh");
    cosh_f32(2, t_in, y);
    check(y[0] == 1.0f && fabsf(y[1] - 1.5430806f) < 1e-6f, "cosh");
    asinh_f32(2, t_in, y);
    check(y[0] == 0.0f && fabsf(y[1] - 0.88137359f) < 1e-6f, "asinh");
    acosh_f32(2, t_in, y);
    check(isnan(y[0]) && y[1] == 0.0f, "acosh");
    atanh_f32(2, t_in, y);
    check(y[0] == 0.0f && y[1] == INFINITY, "atanh");
    /* swish(x, alpha) = x / (1 + exp(-alpha x)): 0 at 0, 1/2 at x = 1 with alpha 0 */
    swish_f32(2, 0.0f, t_in, y);
    check(y[0] == 0.0f && y[1] == 0.5f, "swish alpha 0");
    swish_f32(2, 1.0f, t_in, y);
    check(y[0] == 0.0f && fabsf(y[1] - 0.73105858f) < 1e-6f, "swish alpha 1");
    /* Swish(x) with alpha 1 must give the bits of Mul(x, Sigmoid(x)), which the compiler
     * rewrites into it: every 4099th float bit pattern (specials included). */
    {
        int bad = 0;
        for (uint64_t u = 0; u <= 0xffffffffu && !bad; u += 4099) {
            const uint32_t b32 = (uint32_t)u;
            float v, sw, sg;
            memcpy(&v, &b32, sizeof v);
            swish_f32(1, 1.0f, &v, &sw);
            sg = o2c_sigmoidf(v);
            if (!same(sw, v * sg)) {
                printf("  swish(%a) = %a, x * sigmoid(x) = %a\n", (double)v, (double)sw,
                       (double)(v * sg));
                bad = 1;
            }
        }
        check(!bad, "swish alpha 1 is x * sigmoid(x), bit for bit");
    }

    const double d_in[2] = {0.0, 1.0};
    double dy[2];
    exp_f64(2, d_in, dy);
    check(dy[0] == 1.0 && dy[1] == exp(1.0), "exp_f64");
    log_f64(2, d_in, dy);
    check(dy[0] == -INFINITY && dy[1] == 0.0, "log_f64");

    const int64_t ix[4] = {-5, 0, 7, INT64_MIN};
    int64_t iy[4];
    abs_i64(4, ix, iy);
    check(iy[0] == 5 && iy[1] == 0 && iy[2] == 7 && iy[3] == INT64_MIN, "abs_i64 (wraps at min)");
    neg_i64(4, ix, iy);
    check(iy[0] == 5 && iy[1] == 0 && iy[2] == -7 && iy[3] == INT64_MIN, "neg_i64 (wraps at min)");
}

static void test_activations(void)
{
    float y[8];

    /* numpy.logaddexp(0, x): log 2 at 0, never overflows, NaN stays NaN */
    const float sp_in[6] = {0.0f, 1.0f, -1.0f, 100.0f, -100.0f, NAN};
    softplus_f32(6, sp_in, y);
    check(y[0] == 0.693147182f && close_to(y[1], 1.3132616875182228, 1e-6) &&
              close_to(y[2], 0.31326168751822286, 1e-6) && y[3] == 100.0f && y[4] > 0.0f &&
              close_to(y[4], 3.720075976020836e-44, 0.05) && isnan(y[5]),
          "softplus");

    /* max(0, min(1, 0.2x + 0.5)) */
    const float hs_in[5] = {-5.0f, -2.5f, 0.0f, 1.0f, 10.0f};
    hard_sigmoid_f32(5, 0.2f, 0.5f, hs_in, y);
    check(y[0] == 0.0f && y[1] == -2.5f * 0.2f + 0.5f && y[2] == 0.5f &&
              y[3] == 1.0f * 0.2f + 0.5f && y[4] == 1.0f,
          "hard_sigmoid");
    const float nan1[1] = {NAN};
    hard_sigmoid_f32(1, 0.2f, 0.5f, nan1, y);
    check(isnan(y[0]), "hard_sigmoid NaN");

    /* x * max(0, min(1, x/6 + 1/2)): 0 below -3, x above 3 */
    const float hw_in[5] = {-4.0f, -3.0f, 0.0f, 1.0f, 3.0f};
    hard_swish_f32(5, hw_in, y);
    check(y[0] == -0.0f && y[1] == -0.0f && y[2] == 0.0f &&
              y[3] == 1.0f * (1.0f * (1.0f / 6.0f) + 0.5f) && y[4] == 3.0f,
          "hard_swish");

    const float elu_in[3] = {-1.0f, 0.0f, 2.0f};
    elu_f32(3, 2.0f, elu_in, y);
    check(y[0] == 2.0f * expm1f(-1.0f) && y[1] == 0.0f && y[2] == 2.0f, "elu");
    selu_f32(3, 1.5f, 2.0f, elu_in, y);
    check(y[0] == (1.5f * expm1f(-1.0f)) * 2.0f && y[1] == 0.0f && y[2] == 4.0f, "selu");

    /* gelu(x) = x * Phi(x): Phi(1) = 0.8413447460685429, Phi(-1) = 0.15865525393145707 */
    const float g_in[5] = {0.0f, 1.0f, -1.0f, 20.0f, -20.0f};
    gelu_f32(5, g_in, y);
    check(y[0] == 0.0f && close_to(y[1], 0.8413447460685429, 1e-6) &&
              close_to(y[2], -0.15865525393145707, 1e-6) && y[3] == 20.0f && y[4] == -0.0f,
          "gelu");
    /* tanh approximation: 0.5 * 1 * (1 + tanh(sqrt(2/pi) * 1.044715)) = 0.8411919906082768 */
    gelu_tanh_f32(5, g_in, y);
    check(y[0] == 0.0f && close_to(y[1], 0.8411919906082768, 1e-6) &&
              close_to(y[2], -0.15880800939172324, 1e-5) && y[3] == 20.0f && y[4] == -0.0f,
          "gelu_tanh");
}

static void test_binary(void)
{
    /* a [2][3] row-major, b [3] broadcast over rows: loop space rank 2, dims {2, 3} */
    const float a[6] = {1.0f, 2.0f, 3.0f, 4.0f, 0.5f, -2.0f};
    const float b[3] = {2.0f, 0.5f, -1.0f};
    const int64_t dims[2] = {2, 3}, sa[2] = {3, 1}, sb[2] = {0, 1};
    float y[6];
    pow_f32(2, dims, sa, sb, a, b, y);
    const float pow_want[6] = {1.0f, sqrtf(2.0f), 1.0f / 3.0f, 16.0f, sqrtf(0.5f), -0.5f};
    check(same_all(y, pow_want, 6), "pow_f32 broadcast over rows");

    /* exponent column [2][1] broadcast along the rows: b strides {1, 0} */
    const int64_t e64[2] = {2, 3};
    const int64_t sb_col[2] = {1, 0};
    pow_f32_i64(2, dims, sa, sb_col, a, e64, y);
    const float powi_want[6] = {1.0f, 4.0f, 9.0f, 64.0f, 0.125f, -8.0f};
    check(same_all(y, powi_want, 6), "pow_f32_i64 column broadcast");
    const int32_t e32[2] = {-1, 0};
    pow_f32_i32(2, dims, sa, sb_col, a, e32, y);
    const float powi32_want[6] = {1.0f, 0.5f, (float)(1.0 / 3.0), 1.0f, 1.0f, 1.0f};
    check(same_all(y, powi32_want, 6), "pow_f32_i32 (computed in double)");
    const uint32_t eu32[2] = {2, 3};
    pow_f32_u32(2, dims, sa, sb_col, a, eu32, y);
    check(same_all(y, powi_want, 6), "pow_f32_u32");
    const uint64_t eu64[2] = {2, 3};
    pow_f32_u64(2, dims, sa, sb_col, a, eu64, y);
    check(same_all(y, powi_want, 6), "pow_f32_u64");

    /* integer bases: numpy's integer power (wrapping) and truncated float powers */
    const int64_t d3[1] = {4}, s3[1] = {1};
    const int32_t ib[4] = {2, -3, 65536, 7};
    const int32_t ie[4] = {10, 3, 2, -1};
    int32_t wy[4];
    pow_i32_i32(1, d3, s3, s3, ib, ie, wy);
    check(wy[0] == 1024 && wy[1] == -27 && wy[2] == 0 && wy[3] == 0, "pow_i32_i32");
    const int64_t lb[4] = {2, -1, 3, 1}, le[4] = {62, -3, 40, -5};
    int64_t ly[4];
    pow_i64_i64(1, d3, s3, s3, lb, le, ly);
    check(ly[0] == ((int64_t)1 << 62) && ly[1] == -1 &&
              (uint64_t)ly[2] == 12157665459056928801ull && ly[3] == 1,
          "pow_i64_i64");
    const float fe[4] = {0.5f, 2.0f, 0.5f, NAN};
    pow_i32_f32(1, d3, s3, s3, ib, fe, wy);
    check(wy[0] == 1 && wy[1] == 9 && wy[2] == 256 && wy[3] == INT32_MIN, "pow_i32_f32");
    pow_i64_f32(1, d3, s3, s3, lb, fe, ly);
    check(ly[0] == 1 && ly[1] == 1 && ly[2] == 1 && ly[3] == 1, "pow_i64_f32 (pow(1, NaN) is 1)");

    /* scalar b: one dim, stride 0 */
    const int64_t d1[1] = {4}, s1[1] = {1}, s0[1] = {0};
    const float m[4] = {1.0f, NAN, -3.0f, 5.0f}, two[1] = {2.0f};
    max_f32(1, d1, s1, s0, m, two, y);
    const float max_want[4] = {2.0f, NAN, 2.0f, 5.0f};
    check(same_all(y, max_want, 4), "max_f32 (NaN propagates)");
    min_f32(1, d1, s1, s0, m, two, y);
    const float min_want[4] = {1.0f, NAN, -3.0f, 2.0f};
    check(same_all(y, min_want, 4), "min_f32 (NaN propagates)");
    const float nan1[1] = {NAN};
    max_f32(1, d1, s1, s0, m, nan1, y);
    check(isnan(y[0]) && isnan(y[3]), "max_f32 with NaN second operand");

    const int64_t im[4] = {INT64_MIN, 0, 9, INT64_MAX}, ione[1] = {1};
    int64_t iy[4];
    max_i64(1, d1, s1, s0, im, ione, iy);
    check(iy[0] == 1 && iy[1] == 1 && iy[2] == 9 && iy[3] == INT64_MAX, "max_i64");
    min_i64(1, d1, s1, s0, im, ione, iy);
    check(iy[0] == INT64_MIN && iy[1] == 0 && iy[2] == 1 && iy[3] == 1, "min_i64");

    const double da[2] = {1.0, NAN}, db[1] = {0.5};
    const int64_t d2[1] = {2};
    double dy[2];
    max_f64(1, d2, s1, s0, da, db, dy);
    check(dy[0] == 1.0 && isnan(dy[1]), "max_f64");
    min_f64(1, d2, s1, s0, da, db, dy);
    check(dy[0] == 0.5 && isnan(dy[1]), "min_f64");

    /* in place: y is a, contiguous with the output's shape */
    float inplace[6];
    memcpy(inplace, a, sizeof inplace);
    max_f32(2, dims, sa, sb, inplace, b, inplace);
    const float ip_want[6] = {2.0f, 2.0f, 3.0f, 4.0f, 0.5f, -1.0f};
    check(same_all(inplace, ip_want, 6), "max_f32 in place");
}

static void test_det(void)
{
    /* [[1, 2], [3, 4]] = -2; [[0, 1], [1, 0]] needs a row swap: -1; [[1, 2], [2, 4]] is
     * singular: 0; [[2, 0, 1], [1, 3, 2], [1, 1, 4]] = 2*(12-2) - 0 + 1*(1-3) = 18 */
    const float x[12] = {1, 2, 3, 4, 0, 1, 1, 0, 1, 2, 2, 4};
    float y[3];
    double a[9];
    det_f32(3, 2, x, y, a);
    check(y[0] == -2.0f && y[1] == -1.0f && y[2] == 0.0f, "det 2x2");
    const float x3[9] = {2, 0, 1, 1, 3, 2, 1, 1, 4};
    det_f32(1, 3, x3, y, a);
    check(fabsf(y[0] - 18.0f) < 1e-5f, "det 3x3");
    det_f32(1, 0, x3, y, a);
    check(y[0] == 1.0f, "det of a 0x0 matrix is 1");
}

/* swish_f32 on runs against the plain loop x * o2c_sigmoidf(alpha * x), bit for bit: runs
 * within +-87 take the bounded sigmoid, runs with one element out of range (or NaN, inf) the
 * general one. Every 257th float of magnitude up to 87 in runs of 1021 (all within), then
 * every 4099th bit pattern in runs of 509 (specials and large values in most runs). */
static int swish_runs_match(float alpha, uint32_t lo, uint32_t hi, uint32_t step, int run)
{
    enum { RUN_MAX = 1024 };
    float x[RUN_MAX], y[RUN_MAX], z[RUN_MAX], want[RUN_MAX];
    uint64_t u = lo;
    while (u <= hi) {
        int n = 0;
        for (; n < run && u <= hi; n++, u += step) {
            const uint32_t b32 = (uint32_t)u;
            memcpy(&x[n], &b32, sizeof x[n]);
            want[n] = x[n] * o2c_sigmoidf(alpha * x[n]);
        }
        swish_f32(n, alpha, x, y);
        memcpy(z, x, sizeof z);
        swish_f32(n, alpha, z, z); /* in place (alpha 1 finishes the elements it left in y) */
        if (!same_all(y, want, n) || !same_all(z, want, n)) {
            printf("  swish alpha %a, run from %a\n", (double)alpha, (double)x[0]);
            return 0;
        }
    }
    return 1;
}

static void test_swish_runs(void)
{
    const float alphas[3] = {1.0f, 0.5f, -2.0f};
    for (int a = 0; a < 3; a++) {
        check(swish_runs_match(alphas[a], 0, 0x42ae0000u, 257, 1021) &&
                  swish_runs_match(alphas[a], 0x80000000u, 0xc2ae0000u, 257, 1021),
              "swish runs within +-87: the plain loop's bits");
        check(swish_runs_match(alphas[a], 0, 0xffffffffu, 4099, 509),
              "swish runs over all floats: the plain loop's bits");
    }
    /* alpha 1 computes |x| < 86 in its loop and leaves the others to the plain one: every
     * float from 85 to 88 of either sign, in runs across the bound */
    check(swish_runs_match(1.0f, 0x42aa0000u, 0x42b00000u, 1, 1000) &&
              swish_runs_match(1.0f, 0xc2aa0000u, 0xc2b00000u, 1, 1000),
          "swish alpha 1 around |x| = 86: the plain loop's bits");
    /* zeros, denormals and tiny floats: every 69632nd bit pattern below 2^-100 */
    check(swish_runs_match(1.0f, 0, 0x0d800000u, 17 * 4096, 1000) &&
              swish_runs_match(1.0f, 0x80000000u, 0x8d800000u, 17 * 4096, 1000),
          "swish alpha 1 of zeros, denormals and tiny floats: the plain loop's bits");
    /* a run of several chunks (SWISH_CHUNK), one of them with a value out of range, its last
     * with a NaN */
    enum { LONG = 3 * SWISH_CHUNK + 77 };
    static float x[LONG], y[LONG], want[LONG];
    for (int i = 0; i < LONG; i++)
        x[i] = (float)(i % 2001 - 1000) / 37.0f;
    x[SWISH_CHUNK + 5] = -100.0f;
    x[LONG - 3] = NAN;
    for (int i = 0; i < LONG; i++)
        want[i] = x[i] * o2c_sigmoidf(x[i]);
    swish_f32(LONG, 1.0f, x, y);
    check(same_all(y, want, LONG), "swish over chunks, one out of range, one NaN: plain bits");
}

/* HardSigmoid and HardSwish against their formulas as plain scalar expressions, bit for bit
 * (NaN as NaN): every 4099th float bit pattern in one run, and every float of [-4, 4] in steps
 * of 2^-12, where both clamps and the slope meet. */
static float hard_sigmoid_ref(float x, float alpha, float beta)
{
    const float t = x * alpha + beta;
    const float u = t > 1.0f ? 1.0f : t;
    return u < 0.0f ? 0.0f : u;
}

static void test_hard_activations(void)
{
    enum { N = 0xffffffffu / 4099 + 1 + 8 * 4096 + 1 };
    static float x[N], y[N], want[N];
    int n = 0;
    for (uint64_t u = 0; u <= 0xffffffffu; u += 4099) {
        const uint32_t b32 = (uint32_t)u;
        memcpy(&x[n++], &b32, sizeof x[0]);
    }
    for (int k = -4 * 4096; k <= 4 * 4096; k++)
        x[n++] = (float)k * 0x1p-12f;
    for (int i = 0; i < n; i++)
        want[i] = hard_sigmoid_ref(x[i], 0.2f, 0.5f);
    hard_sigmoid_f32(n, 0.2f, 0.5f, x, y);
    check(same_all(y, want, n), "hard_sigmoid: the formula's bits");
    for (int i = 0; i < n; i++)
        want[i] = x[i] * hard_sigmoid_ref(x[i], 1.0f / 6.0f, 0.5f);
    hard_swish_f32(n, x, y);
    check(same_all(y, want, n), "hard_swish: the formula's bits");
}

int main(void)
{
    test_det();
    test_simple_unary();
    test_activations();
    test_swish_runs();
    test_hard_activations();
    test_binary();
    printf("test_kernels_math: %d passed, %d failed\n", n_passed, n_failed);
    return n_failed ? 1 : 0;
}
