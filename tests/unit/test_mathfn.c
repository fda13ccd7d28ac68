/* Unit test of templates/mathfn.c: each function against the double-precision libm function
 * (the reference, rounded to float only for the size of an ulp), over float bit patterns
 * sampled at a fixed stride through every exponent of both signs, a dense sweep of
 * [-16, 16], and the special values (NaN, +-inf, +-0, denormals, overflow and underflow
 * boundaries). Asserts the maximum error in ulps that mathfn.c documents, and that NaN, inf
 * and the sign of zero are what C99 Annex F says.
 *
 * `test_mathfn STRIDE` sweeps with another stride (1 = every float) and prints the maximum
 * errors: how the documented bounds were measured. */
#include "../../templates/mathfn.c"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

typedef struct Fn {
    const char *name;
    float (*f)(float);
    double (*ref)(double);
    double bound; /* ulps, as documented in mathfn.c */
} Fn;

static double ref_sigmoid(double x)
{
    return x > 0.0 ? 1.0 / (1.0 + exp(-x)) : exp(x) / (1.0 + exp(x));
}

static float f_exp(float x)
{
    return o2c_expf(x);
}
static float f_expm1(float x)
{
    return o2c_expm1f(x);
}
static float f_log(float x)
{
    return o2c_logf(x);
}
static float f_log1p(float x)
{
    return o2c_log1pf(x);
}
static float f_tanh(float x)
{
    return o2c_tanhf(x);
}
static float f_sigmoid(float x)
{
    return o2c_sigmoidf(x);
}
static float f_erf(float x)
{
    return o2c_erff(x);
}

static const Fn fns[] = {
    {"expf", f_exp, exp, 1.5},    {"expm1f", f_expm1, expm1, 2.0},
    {"logf", f_log, log, 1.0},    {"log1pf", f_log1p, log1p, 2.0},
    {"tanhf", f_tanh, tanh, 2.0}, {"sigmoidf", f_sigmoid, ref_sigmoid, 3.0},
    {"erff", f_erf, erf, 1.5},
};
enum { NFNS = sizeof fns / sizeof fns[0] };

static double max_err[NFNS];
static float worst_x[NFNS];
static long n_bad[NFNS];

/* Error of got in ulps of the reference's float rounding; infinity for a wrong NaN, inf or
 * sign of zero. */
static double ulp_error(float got, double want)
{
    if (want != want)
        return got != got ? 0.0 : INFINITY;
    if (got != got)
        return INFINITY;
    const float wf = (float)want;
    if (isinf(wf))
        return got == wf ? 0.0 : INFINITY;
    if (isinf(got))
        return INFINITY;
    if (got == 0.0f && wf == 0.0f && !signbit(got) != !signbit(want))
        return INFINITY;
    int e;
    frexp(want, &e); /* |want| = m 2^e, m in [0.5, 1) */
    if (e - 1 < -126)
        e = -125;
    const double ulp = ldexp(1.0, e - 1 - 23);
    return fabs((double)got - want) / ulp;
}

static void probe(int i, float x)
{
    const double err = ulp_error(fns[i].f(x), fns[i].ref((double)x));
    if (err > max_err[i] || err != err) {
        max_err[i] = err;
        worst_x[i] = x;
    }
    if (!(err <= fns[i].bound) && n_bad[i]++ < 5)
        printf("  %s(%a) = %a, reference %a: %g ulps\n", fns[i].name, (double)x,
               (double)fns[i].f(x), fns[i].ref((double)x), err);
}

static void sweep(uint32_t stride)
{
    for (int i = 0; i < NFNS; i++) {
        /* every stride-th bit pattern (all exponents, both signs, NaNs included) */
        for (uint64_t u = 0; u <= 0xffffffffu; u += stride)
            probe(i, o2c_from_bits((uint32_t)u));
        /* dense where the functions change shape: [-16, 16] in steps of 2^-12 */
        for (int k = -65536; k <= 65536; k++)
            probe(i, (float)k * 0x1p-12f);
    }
}

static const float specials[] = {
    0.0f,          -0.0f,          INFINITY,    -INFINITY,      NAN,
    0x1p-149f,     -0x1p-149f,     0x1p-126f,   -0x1p-126f,     0x1.fffffcp-127f,
    1.0f,          -1.0f,          88.72283f,   88.72284f,      89.0f,
    -87.33654f,    -103.27893f,    -103.97208f, -104.0f,        -150.0f,
    3.4028235e38f, -3.4028235e38f, 0.625f,      0.921875f,      3.92f,
    9.01f,         20.0f,          -20.0f,      0x1.6a09e6p+0f, 0x1.6a09e6p-1f,
    -0.99999994f,  1e-30f,         -1e-30f,     0x1p-25f,       -0x1p-25f,
    0.5f,
};

/* Exact values Annex F prescribes. */
static void check_exact(void)
{
    check(o2c_expf(-INFINITY) == 0.0f && o2c_expf(INFINITY) == INFINITY, "expf(+-inf)");
    check(o2c_expf(0.0f) == 1.0f && o2c_expf(-0.0f) == 1.0f, "expf(+-0) = 1");
    check(o2c_expf(89.0f) == INFINITY && o2c_expf(-104.0f) == 0.0f, "expf over/underflow");
    check(o2c_expf(-103.0f) > 0.0f && o2c_expf(-103.0f) < 0x1p-126f, "expf denormal result");
    check(o2c_logf(1.0f) == 0.0f && !signbit(o2c_logf(1.0f)), "logf(1) = +0");
    check(o2c_logf(0.0f) == -INFINITY && o2c_logf(-0.0f) == -INFINITY, "logf(+-0) = -inf");
    check(isnan(o2c_logf(-1.0f)) && isnan(o2c_logf(-INFINITY)), "logf(negative) = NaN");
    check(o2c_logf(INFINITY) == INFINITY, "logf(inf) = inf");
    check(o2c_expm1f(-INFINITY) == -1.0f && o2c_expm1f(INFINITY) == INFINITY, "expm1f(+-inf)");
    check(o2c_log1pf(-1.0f) == -INFINITY && isnan(o2c_log1pf(-2.0f)), "log1pf(-1), (-2)");
    check(o2c_log1pf(INFINITY) == INFINITY, "log1pf(inf)");
    check(o2c_tanhf(INFINITY) == 1.0f && o2c_tanhf(-INFINITY) == -1.0f, "tanhf(+-inf)");
    check(o2c_erff(INFINITY) == 1.0f && o2c_erff(-INFINITY) == -1.0f, "erff(+-inf)");
    check(o2c_sigmoidf(INFINITY) == 1.0f && o2c_sigmoidf(-INFINITY) == 0.0f, "sigmoid(+-inf)");
    check(o2c_sigmoidf(0.0f) == 0.5f && o2c_sigmoidf(-0.0f) == 0.5f, "sigmoid(+-0)");
    const float negz = -0.0f;
    check(signbit(o2c_expm1f(negz)) && signbit(o2c_log1pf(negz)) && signbit(o2c_tanhf(negz)) &&
              signbit(o2c_erff(negz)),
          "odd functions keep -0");
    for (int i = 0; i < NFNS; i++)
        check(isnan(fns[i].f(NAN)) && isnan(fns[i].f(-NAN)), "NaN in, NaN out");
}

/* o2c_expf_normal is o2c_expf without the clamps and the two-factor scaling: it must give
 * o2c_expf's bits over its whole domain, |x| <= 87 and NaN (every float of it with stride 1;
 * all 2^32 inputs of o2c_tanhf and o2c_erff, its callers, gave their former bits), and so
 * must o2c_sigmoidf_bounded o2c_sigmoidf's; o2c_expf_within86 and o2c_sigmoidf_within86 theirs
 * for |x| < 86 (all 2^32 inputs of swish_f32 with alpha 1 were checked once). */
static void check_expf_normal(uint32_t stride)
{
    long bad = 0, bad_sig = 0, bad86 = 0;
    for (uint64_t u = 0; u <= 0xffffffffu; u += stride) {
        const float x = o2c_from_bits((uint32_t)u);
        if ((fabsf(x) <= 87.0f || x != x) && o2c_bits(o2c_expf_normal(x)) != o2c_bits(o2c_expf(x)))
            bad++;
        if (fabsf(x) <= 87.0f && o2c_bits(o2c_sigmoidf_bounded(x)) != o2c_bits(o2c_sigmoidf(x)))
            bad_sig++;
        if (fabsf(x) < 86.0f && (o2c_bits(o2c_expf_within86(x)) != o2c_bits(o2c_expf(x)) ||
                                 o2c_bits(o2c_sigmoidf_within86(x)) != o2c_bits(o2c_sigmoidf(x))))
            bad86++;
    }
    for (int k = -87 * 4096; k <= 87 * 4096; k++) {
        const float x = (float)k * 0x1p-12f;
        bad += o2c_bits(o2c_expf_normal(x)) != o2c_bits(o2c_expf(x));
        bad_sig += o2c_bits(o2c_sigmoidf_bounded(x)) != o2c_bits(o2c_sigmoidf(x));
        if (fabsf(x) < 86.0f)
            bad86 += o2c_bits(o2c_expf_within86(x)) != o2c_bits(o2c_expf(x)) ||
                     o2c_bits(o2c_sigmoidf_within86(x)) != o2c_bits(o2c_sigmoidf(x));
    }
    /* the ends of within86's domain, every float: 85 .. 86 of either sign */
    for (uint32_t u = 0x42aa0000u; u < 0x42ac0000u; u++) {
        const float x = o2c_from_bits(u), nx = -x;
        bad86 += o2c_bits(o2c_expf_within86(x)) != o2c_bits(o2c_expf(x)) ||
                 o2c_bits(o2c_expf_within86(nx)) != o2c_bits(o2c_expf(nx));
    }
    check(bad == 0, "expf_normal has expf's bits for |x| <= 87");
    check(bad_sig == 0, "sigmoidf_bounded has sigmoidf's bits for |x| <= 87");
    check(bad86 == 0,
          "expf_within86 and sigmoidf_within86 have expf's and sigmoidf's bits for |x| < 86");
}

/* The row forms (o2c_erff_row, o2c_tanhf_row) must give their scalar function's bits: every
 * stride-th float and the specials of both signs, cut into rows of every length from 1 to
 * O2C_ROW, each row computed out of place and in place. */
typedef struct Row {
    const char *what;
    float (*f)(float);
    void (*row)(int64_t, const float *, float *);
    float x[O2C_ROW]; /* the row being filled */
    int64_t n, len;   /* its count and the length at which it is checked */
    long bad;
} Row;

static void row_check(Row *r)
{
    float y[O2C_ROW], z[O2C_ROW];
    r->row(r->n, r->x, y);
    memcpy(z, r->x, (size_t)r->n * sizeof *z);
    r->row(r->n, z, z);
    for (int64_t i = 0; i < r->n; i++)
        r->bad += (o2c_bits(y[i]) != o2c_bits(r->f(r->x[i]))) + (o2c_bits(z[i]) != o2c_bits(y[i]));
    r->n = 0;
    r->len = r->len % O2C_ROW + 1;
}

static void row_push(Row *r, float v)
{
    r->x[r->n++] = v;
    if (r->n == r->len)
        row_check(r);
}

static void check_rows(uint32_t stride)
{
    Row rows[] = {
        {.what = "erff_row has erff's bits", .f = o2c_erff, .row = o2c_erff_row, .len = 1},
        {.what = "tanhf_row has tanhf's bits", .f = o2c_tanhf, .row = o2c_tanhf_row, .len = 1},
    };
    for (size_t k = 0; k < sizeof rows / sizeof rows[0]; k++) {
        Row *r = &rows[k];
        for (uint64_t u = 0; u <= 0xffffffffu; u += stride)
            row_push(r, o2c_from_bits((uint32_t)u));
        for (size_t i = 0; i < sizeof specials / sizeof specials[0]; i++) {
            row_push(r, specials[i]);
            row_push(r, -specials[i]);
        }
        row_check(r);
        check(r->bad == 0, r->what);
    }
}

int main(int argc, char **argv)
{
    const uint32_t stride = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 10) : 4099u;
    sweep(stride ? stride : 1);
    for (int i = 0; i < NFNS; i++)
        for (size_t k = 0; k < sizeof specials / sizeof specials[0]; k++) {
            probe(i, specials[k]);
            probe(i, -specials[k]);
        }
    for (int i = 0; i < NFNS; i++) {
        printf("%-9s max %.3f ulps at %a (bound %.0f)\n", fns[i].name, max_err[i],
               (double)worst_x[i], fns[i].bound);
        char what[64];
        snprintf(what, sizeof what, "%s within %.0f ulps", fns[i].name, fns[i].bound);
        check(n_bad[i] == 0, what);
    }
    check_exact();
    check_expf_normal(stride > 97 ? 97 : stride ? stride : 1);
    check_rows(stride > 97 ? 97 : stride ? stride : 1);
    printf("%d passed, %d failed\n", n_passed, n_failed);
    return n_failed != 0;
}
