/* Unit test of templates/reduce.c: every reduction over hand-computed cases (inner axis,
 * middle axis, two separated axes, all axes, no axes, empty sets), the summation order,
 * NaN handling, integer wrap-around, and LayerNormalization against a step-by-step float
 * reference. The template is compiled after kernels.h with extern kernels, so every
 * prototype there is checked against its definition. */
#include "../../templates/kernels.h"

#define O2C_KERNEL
#include "../../templates/reduce.c"

#include <stdio.h>
#include <string.h>

#include "check.h"

static int eq_all(const float *a, const float *b, int n)
{
    for (int i = 0; i < n; i++)
        if (!(a[i] == b[i] || (isnan(a[i]) && isnan(b[i])))) {
            printf("  element %d: got %.9g want %.9g\n", i, (double)a[i], (double)b[i]);
            return 0;
        }
    return 1;
}

/* x [2][3][4] = 0..23 (strides 12, 4, 1) */
static float X[24];

static void test_sum_axes(void)
{
    float y[24];
    for (int i = 0; i < 24; i++)
        X[i] = (float)i;

    /* axis 2 (inner): kept [2][3] merged to [6] stride 4; reduced [4] stride 1 */
    {
        const int64_t od[1] = {6}, os[1] = {4}, rd[1] = {4}, rs[1] = {1};
        reduce_sum_f32(1, od, os, 1, rd, rs, X, y);
        const float want[6] = {6, 22, 38, 54, 70, 86};
        check(eq_all(y, want, 6), "sum over the inner axis");
    }
    /* axis 1 (middle): kept [2][4] strides 12, 1; reduced [3] stride 4 */
    {
        const int64_t od[2] = {2, 4}, os[2] = {12, 1}, rd[1] = {3}, rs[1] = {4};
        reduce_sum_f32(2, od, os, 1, rd, rs, X, y);
        const float want[8] = {12, 15, 18, 21, 48, 51, 54, 57};
        check(eq_all(y, want, 8), "sum over the middle axis");
    }
    /* axes 0 and 2: kept [3] stride 4; reduced [2][4] strides 12, 1 */
    {
        const int64_t od[1] = {3}, os[1] = {4}, rd[2] = {2, 4}, rs[2] = {12, 1};
        reduce_sum_f32(1, od, os, 2, rd, rs, X, y);
        const float want[3] = {0 + 1 + 2 + 3 + 12 + 13 + 14 + 15, 4 + 5 + 6 + 7 + 16 + 17 + 18 + 19,
                               8 + 9 + 10 + 11 + 20 + 21 + 22 + 23};
        check(eq_all(y, want, 3), "sum over two separated axes");
        reduce_mean_f32(1, od, os, 2, rd, rs, X, y);
        const float mean_want[3] = {60.0f / 8, 92.0f / 8, 124.0f / 8};
        check(eq_all(y, mean_want, 3), "mean over two separated axes");
        reduce_max_f32(1, od, os, 2, rd, rs, X, y);
        const float max_want[3] = {15, 19, 23};
        check(eq_all(y, max_want, 3), "max over two separated axes");
        reduce_min_f32(1, od, os, 2, rd, rs, X, y);
        const float min_want[3] = {0, 4, 8};
        check(eq_all(y, min_want, 3), "min over two separated axes");
    }
    /* all axes: no kept dims, reduced [24] */
    {
        const int64_t rd[1] = {24}, rs[1] = {1};
        reduce_sum_f32(0, NULL, NULL, 1, rd, rs, X, y);
        check(y[0] == 276.0f, "sum over all axes");
        reduce_sum_square_f32(0, NULL, NULL, 1, rd, rs, X, y);
        check(y[0] == 4324.0f, "sum of squares");
        reduce_l2_f32(0, NULL, NULL, 1, rd, rs, X, y);
        check(y[0] == sqrtf(4324.0f), "L2");
    }
    /* no reduced axes (noop_with_empty_axes semantics of a reduction over nothing): each
     * element alone */
    {
        const int64_t od[1] = {24}, os[1] = {1}, od3[1] = {3};
        const float neg[3] = {-2.0f, 3.0f, -0.5f};
        reduce_l1_f32(1, od3, os, 0, NULL, NULL, neg, y);
        check(y[0] == 2.0f && y[1] == 3.0f && y[2] == 0.5f, "L1 over no axes is |x|");
        reduce_sum_f32(1, od, os, 0, NULL, NULL, X, y);
        check(eq_all(y, X, 24), "sum over no axes is x");
    }
}

static void test_order_and_specials(void)
{
    float y[4];
    const int64_t rd[1] = {4}, rs[1] = {1};
    /* ascending order: ((1e8 + 1) - 1e8) + 1 = 1 in float (any other order gives 0 or 2) */
    const float order[4] = {1e8f, 1.0f, -1e8f, 1.0f};
    reduce_sum_f32(0, NULL, NULL, 1, rd, rs, order, y);
    check(y[0] == 1.0f, "sum in ascending index order");

    const float nan_in[4] = {1.0f, NAN, 3.0f, -INFINITY};
    reduce_max_f32(0, NULL, NULL, 1, rd, rs, nan_in, y);
    check(isnan(y[0]), "max with a NaN is NaN");
    reduce_min_f32(0, NULL, NULL, 1, rd, rs, nan_in, y);
    check(isnan(y[0]), "min with a NaN is NaN");

    const float prod_in[4] = {1.5f, -2.0f, 4.0f, 0.5f};
    reduce_prod_f32(0, NULL, NULL, 1, rd, rs, prod_in, y);
    check(y[0] == -6.0f, "prod");
    reduce_l1_f32(0, NULL, NULL, 1, rd, rs, prod_in, y);
    check(y[0] == 8.0f, "L1");
    const float ls_in[4] = {1.0f, 2.0f, 3.0f, 4.0f}; /* log(10) */
    reduce_log_sum_f32(0, NULL, NULL, 1, rd, rs, ls_in, y);
    check(y[0] == logf(10.0f), "log_sum");

    /* log-sum-exp: log(e^1 + e^2 + e^3 + e^4) = 4.440189698561196; shifted by the max */
    const float lse_in[4] = {1.0f, 2.0f, 3.0f, 4.0f};
    reduce_log_sum_exp_f32(0, NULL, NULL, 1, rd, rs, lse_in, y);
    check(fabsf(y[0] - 4.440189698561196f) < 1e-6f, "log_sum_exp");
    const float lse_big[4] = {1000.0f, 1000.0f, -INFINITY, 999.0f};
    reduce_log_sum_exp_f32(0, NULL, NULL, 1, rd, rs, lse_big, y);
    check(fabsf(y[0] - (1000.0f + logf(2.0f + expf(-1.0f)))) < 1e-3f,
          "log_sum_exp does not overflow, ignores -inf");
    const double lse_d[4] = {1.0, 2.0, 3.0, 4.0};
    double yd[1];
    reduce_log_sum_exp_f64(0, NULL, NULL, 1, rd, rs, lse_d, yd);
    check(fabs(yd[0] - 4.440189698561196) < 1e-12, "log_sum_exp_f64");
    reduce_sum_f64(0, NULL, NULL, 1, rd, rs, lse_d, yd);
    check(yd[0] == 10.0, "sum_f64");

    /* empty reduced set: the identities */
    const int64_t od[1] = {2}, os[1] = {0}, ed[1] = {0}, es[1] = {1};
    float e[2];
    reduce_sum_f32(1, od, os, 1, ed, es, lse_in, e);
    check(e[0] == 0.0f && e[1] == 0.0f, "empty sum is 0");
    reduce_prod_f32(1, od, os, 1, ed, es, lse_in, e);
    check(e[0] == 1.0f, "empty prod is 1");
    reduce_max_f32(1, od, os, 1, ed, es, lse_in, e);
    check(e[0] == -INFINITY, "empty max is -inf");
    reduce_min_f32(1, od, os, 1, ed, es, lse_in, e);
    check(e[0] == INFINITY, "empty min is +inf");
    reduce_mean_f32(1, od, os, 1, ed, es, lse_in, e);
    check(isnan(e[0]), "empty mean is NaN");
    reduce_log_sum_exp_f32(1, od, os, 1, ed, es, lse_in, e);
    check(e[0] == -INFINITY, "empty log_sum_exp is -inf");
    reduce_log_sum_f32(1, od, os, 1, ed, es, lse_in, e);
    check(e[0] == -INFINITY, "empty log_sum is -inf");
    reduce_l2_f32(1, od, os, 1, ed, es, lse_in, e);
    check(e[0] == 0.0f, "empty L2 is 0");
    /* an empty output writes nothing */
    e[0] = 7.0f;
    const int64_t zd[1] = {0};
    reduce_sum_f32(1, zd, os, 1, rd, rs, lse_in, e);
    check(e[0] == 7.0f, "empty output");
}

static void test_integers(void)
{
    const int64_t rd[1] = {3}, rs[1] = {1};
    const int64_t big[3] = {INT64_MAX, 1, 5};
    int64_t y[1];
    reduce_sum_i64(0, NULL, NULL, 1, rd, rs, big, y);
    check(y[0] == INT64_MIN + 5, "sum_i64 wraps");
    reduce_prod_i64(0, NULL, NULL, 1, rd, rs, big, y);
    check(y[0] == (int64_t)((uint64_t)INT64_MAX * 5u), "prod_i64 wraps");
    reduce_max_i64(0, NULL, NULL, 1, rd, rs, big, y);
    check(y[0] == INT64_MAX, "max_i64");
    reduce_min_i64(0, NULL, NULL, 1, rd, rs, big, y);
    check(y[0] == 1, "min_i64");

    const uint8_t b[6] = {0, 1, 0, 1, 1, 1}; /* [2][3] */
    const int64_t od[1] = {2}, os[1] = {3};
    uint8_t by[2];
    reduce_max_u8(1, od, os, 1, rd, rs, b, by);
    check(by[0] == 1 && by[1] == 1, "max of bools is any");
    reduce_min_bool(1, od, os, 1, rd, rs, b, by);
    check(by[0] == 0 && by[1] == 1, "min of bools is all");
    const int64_t ed[1] = {0};
    reduce_min_bool(1, od, os, 1, ed, rs, b, by);
    check(by[0] == 1, "empty min of bools is true");
    reduce_min_u8(1, od, os, 1, ed, rs, b, by);
    check(by[0] == 255, "empty min of uint8 is 255");
    reduce_max_u8(1, od, os, 1, ed, rs, b, by);
    check(by[0] == 0, "empty max of uint8/bool is 0");
}

/* One kept and one reduced dim (a mean over each channel's plane, as squeeze-excite blocks
 * write it), which the kernels run 8 channels at a time: each channel against a plain serial
 * loop in index order, bit for bit, for 19 channels of 37 (two blocks of 8 and a tail of 3),
 * with values whose sum depends on the order, a NaN and an inf. */
static void test_channel_planes(void)
{
    enum { C = 19, HW = 37, PITCH = 41 }; /* channels PITCH apart: a strided kept dim */
    static float x[C * PITCH];
    for (int i = 0; i < C * PITCH; i++)
        x[i] = (float)((i * 7919) % 1000 - 500) * 0.37f + (i % 3 ? 1e7f : -1e-3f);
    x[5 * PITCH + 11] = NAN;
    x[12 * PITCH + 3] = INFINITY;
    const int64_t od[1] = {C}, os[1] = {PITCH}, rd[1] = {HW}, rs[1] = {1};
    float y[C], want[C];
    volatile float acc;
    reduce_mean_f32(1, od, os, 1, rd, rs, x, y);
    for (int c = 0; c < C; c++) {
        acc = 0.0f;
        for (int i = 0; i < HW; i++)
            acc = acc + x[c * PITCH + i];
        want[c] = acc / (float)HW;
    }
    check(eq_all(y, want, C), "mean over channel planes, serial order per channel");
    reduce_max_f32(1, od, os, 1, rd, rs, x, y);
    for (int c = 0; c < C; c++) {
        acc = -INFINITY;
        for (int i = 0; i < HW; i++) {
            const float v = x[c * PITCH + i];
            acc = (v > acc || v != v) ? v : acc;
        }
        want[c] = acc;
    }
    check(eq_all(y, want, C) && isnan(y[5]) && y[12] == INFINITY, "max over channel planes");
    const int64_t id[1] = {3}, is[1] = {2};
    int64_t xi[C * 2 + 1], yi[C];
    for (int i = 0; i < C * 2 + 1; i++)
        xi[i] = i + 1;
    reduce_prod_i64(1, od, is, 1, id, rs, xi, yi); /* rows overlap: stride 2, 3 each */
    int ok = 1;
    for (int c = 0; c < C; c++)
        ok &= yi[c] == (int64_t)(2 * c + 1) * (2 * c + 2) * (2 * c + 3);
    check(ok, "prod_i64 over overlapping rows");
}

/* LayerNorm of one row with every rounding forced, in the kernel's documented order. */
static void layernorm_ref(int n, const float *x, const float *s, int ss, const float *b, int bs,
                          float eps, float *y, float *mean, float *inv)
{
    volatile float sum[16] = {0}, sq[16] = {0}; /* 16 lanes: element i in lane i % 16 */
    for (int i = 0; i < n; i++)
        sum[i % 16] = sum[i % 16] + x[i];
    for (int w = 8; w >= 1; w /= 2)
        for (int c = 0; c < w; c++)
            sum[c] = sum[c] + sum[c + w];
    volatile float m = sum[0] / (float)n;
    for (int i = 0; i < n; i++) {
        volatile float d = x[i] - m;
        volatile float d2 = d * d;
        sq[i % 16] = sq[i % 16] + d2;
    }
    for (int w = 8; w >= 1; w /= 2)
        for (int c = 0; c < w; c++)
            sq[c] = sq[c] + sq[c + w];
    volatile float var = sq[0] / (float)n;
    volatile float ve = var + eps;
    volatile float st = sqrtf(ve);
    volatile float iv = 1.0f / st;
    for (int i = 0; i < n; i++) {
        volatile float d = x[i] - m;
        volatile float t = d * iv;
        t = t * s[i * ss];
        y[i] = b ? t + b[i * bs] : t;
    }
    *mean = m;
    *inv = iv;
}

static void test_layernorm(void)
{
    /* hand case: row [1, 2, 3, 4], eps 0: mean 2.5, var 1.25 */
    const float x[8] = {1, 2, 3, 4, -1, 0.5f, 7, 2};
    const float s[4] = {1, 2, 0.5f, -1}, b[4] = {0, 1, 2, 3};
    float y[8], mean[2], inv[2];
    layernorm_f32(1, 4, x, s, 0, NULL, 0, 0.0f, y, mean, inv);
    check(mean[0] == 2.5f && inv[0] == 1.0f / sqrtf(1.25f), "layernorm mean and inv_std");
    check(fabsf(y[0] + 1.5f / sqrtf(1.25f)) < 1e-6f && fabsf(y[3] - 1.5f / sqrtf(1.25f)) < 1e-6f,
          "layernorm hand values (scalar scale, no bias)");

    float r[8], rm[2], ri[2];
    layernorm_f32(2, 4, x, s, 1, b, 1, 1e-5f, y, mean, inv);
    layernorm_ref(4, x, s, 1, b, 1, 1e-5f, r, &rm[0], &ri[0]);
    layernorm_ref(4, x + 4, s, 1, b, 1, 1e-5f, r + 4, &rm[1], &ri[1]);
    check(eq_all(y, r, 8) && eq_all(mean, rm, 2) && eq_all(inv, ri, 2),
          "layernorm bit-identical to the step-by-step reference");
    layernorm_f32(2, 4, x, s, 1, b, 0, 1e-5f, y, NULL, NULL);
    layernorm_ref(4, x, s, 1, b, 0, 1e-5f, r, &rm[0], &ri[0]);
    check(eq_all(y, r, 4), "layernorm scalar bias, no mean/inv outputs");

    /* rows long enough for full lanes and tails: n = 128 (a transformer width) and 37 */
    static float xl[3 * 128], sl[128], bl[128], yl[3 * 128], rl[3 * 128];
    uint32_t seed = 7u;
    for (int i = 0; i < 3 * 128; i++) {
        seed = seed * 1664525u + 1013904223u;
        xl[i] = (float)(seed >> 8) / 1048576.0f - 8.0f; /* [-8, 8) */
        if (i < 128) {
            sl[i] = 1.0f + (float)(i % 7) / 8.0f;
            bl[i] = (float)(i % 5) - 2.0f;
        }
    }
    const int widths[2] = {128, 37};
    for (int w = 0; w < 2; w++) {
        const int nw = widths[w];
        float lm[3], li[3], wm[3], wi[3];
        layernorm_f32(3, nw, xl, sl, 1, bl, 1, 1e-5f, yl, lm, li);
        for (int r = 0; r < 3; r++)
            layernorm_ref(nw, xl + r * nw, sl, 1, bl, 1, 1e-5f, rl + r * nw, &wm[r], &wi[r]);
        check(eq_all(yl, rl, 3 * nw) && eq_all(lm, wm, 3) && eq_all(li, wi, 3),
              nw == 128 ? "layernorm n=128 bit-identical to the lane-sum reference"
                        : "layernorm n=37 bit-identical to the lane-sum reference");
    }

    float inplace[8];
    memcpy(inplace, x, sizeof inplace);
    layernorm_f32(2, 4, inplace, s, 1, b, 1, 1e-5f, inplace, NULL, NULL);
    layernorm_f32(2, 4, x, s, 1, b, 1, 1e-5f, y, NULL, NULL);
    check(eq_all(inplace, y, 8), "layernorm in place");
}

int main(void)
{
    test_sum_axes();
    test_order_and_specials();
    test_integers();
    test_channel_planes();
    test_layernorm();
    printf("test_kernels_reduce: %d passed, %d failed\n", n_passed, n_failed);
    return n_failed ? 1 : 0;
}
