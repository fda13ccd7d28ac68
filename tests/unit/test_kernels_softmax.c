/* Unit test of templates/softmax.c: hand-computed values, bit-identity with a reference that
 * copies each line out and follows the documented formula, inner/outer layouts, large and
 * infinite inputs, in-place use. */
#include "../../templates/softmax.c"

#include <stdio.h>
#include <string.h>

#include "check.h"

static uint32_t rng_state = 88172645u;

static float rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 17;
    rng_state ^= rng_state << 5;
    return (float)(rng_state >> 8) / 8388608.0f - 1.0f; /* [-1, 1) */
}

static int same_bits(const float *a, const float *b, int64_t n)
{
    return memcmp(a, b, (size_t)n * sizeof(float)) == 0;
}

#define MAXE 8192
static float X[MAXE], Y[MAXE], W[MAXE], LW[MAXE], line[MAXE];

/* Reference: copy the line into a contiguous buffer, then the documented steps. */
static void reference(int64_t outer, int64_t n, int64_t inner, const float *x, float *y, float *ly)
{
    for (int64_t o = 0; o < outer; o++) {
        for (int64_t j = 0; j < inner; j++) {
            for (int64_t i = 0; i < n; i++)
                line[i] = x[(o * n + i) * inner + j];
            float m = line[0];
            for (int64_t i = 1; i < n; i++)
                m = line[i] > m ? line[i] : m;
            volatile float s = 0.0f, lane[16] = {0};
            for (int64_t i = 0; i < n; i++) {
                s = s + o2c_expf(line[i] - m); /* logsoftmax: one serial sum */
                lane[i % 16] = lane[i % 16] + o2c_expf(line[i] - m); /* softmax: 16 lanes */
            }
            for (int w = 8; w >= 1; w /= 2)
                for (int c = 0; c < w; c++)
                    lane[c] = lane[c] + lane[c + w];
            for (int64_t i = 0; i < n; i++) {
                y[(o * n + i) * inner + j] = o2c_expf(line[i] - m) / lane[0];
                volatile float d = line[i] - m;
                ly[(o * n + i) * inner + j] = d - o2c_logf(s);
            }
        }
    }
}

static void test_hand(void)
{
    const float x[3] = {1.0f, 2.0f, 3.0f};
    float y[4], y40[40];
    softmax_f32(1, 3, 1, x, y);
    const double e0 = exp(-2.0), e1 = exp(-1.0), s = e0 + e1 + 1.0;
    check(fabs(y[0] - e0 / s) < 1e-7 && fabs(y[1] - e1 / s) < 1e-7 && fabs(y[2] - 1.0 / s) < 1e-7,
          "softmax [1,2,3]");
    logsoftmax_f32(1, 3, 1, x, y);
    check(fabs(y[0] - log(e0 / s)) < 1e-6 && fabs(y[1] - log(e1 / s)) < 1e-6 &&
              fabs(y[2] - log(1.0 / s)) < 1e-6,
          "logsoftmax [1,2,3]");

    /* max subtraction: huge inputs do not overflow */
    const float big[2] = {1000.0f, 1000.0f};
    softmax_f32(1, 2, 1, big, y);
    check(y[0] == 0.5f && y[1] == 0.5f, "softmax of equal huge values");
    logsoftmax_f32(1, 2, 1, big, y);
    check(y[0] == -o2c_logf(2.0f) && y[1] == -o2c_logf(2.0f), "logsoftmax of equal huge values");

    /* -inf gets probability 0 (and -inf log-probability) */
    const float wi[3] = {-INFINITY, 0.0f, -INFINITY};
    softmax_f32(1, 3, 1, wi, y);
    check(y[0] == 0.0f && y[1] == 1.0f && y[2] == 0.0f, "softmax with -inf entries");
    logsoftmax_f32(1, 3, 1, wi, y);
    check(y[0] == -INFINITY && y[1] == 0.0f && y[2] == -INFINITY, "logsoftmax with -inf entries");

    /* NaN anywhere poisons its line only */
    const float nx[4] = {1.0f, NAN, 2.0f, 3.0f}; /* as [2][2], axis 1 */
    softmax_f32(2, 2, 1, nx, y);
    check(isnan(y[0]) && isnan(y[1]) && !isnan(y[2]) && !isnan(y[3]),
          "softmax NaN stays in its line");

    /* the lane max: a NaN first poisons the line, one past the first lanes too, and a tie
     * of -0 and +0 gives the serial scan's bits */
    float nl[40], ly[40];
    for (int i = 0; i < 40; i++)
        nl[i] = (float)(i % 7);
    nl[0] = NAN;
    softmax_f32(1, 40, 1, nl, y40);
    int all_nan = 1;
    for (int i = 0; i < 40; i++)
        all_nan = all_nan && isnan(y40[i]);
    check(all_nan, "softmax NaN first: whole line NaN");
    nl[0] = 1.0f;
    nl[37] = NAN;
    softmax_f32(1, 40, 1, nl, y40);
    all_nan = 1;
    for (int i = 0; i < 40; i++)
        all_nan = all_nan && isnan(y40[i]);
    check(all_nan, "softmax NaN in the tail: whole line NaN");
    for (int i = 0; i < 40; i++)
        nl[i] = i % 3 == 0 ? -0.0f : i % 3 == 1 ? 0.0f : -5.0f;
    reference(1, 40, 1, nl, y40, ly);
    softmax_f32(1, 40, 1, nl, W);
    logsoftmax_f32(1, 40, 1, nl, LW);
    check(same_bits(W, y40, 40) && same_bits(LW, ly, 40), "-0 and +0 tie: serial scan's bits");

    /* masked lines (every x - max >= -87 or <= -104: the o2c_expf_normal loop, +0 for the
     * masked) and one with x - max = -95 (the o2c_expf loop): the reference's bits */
    for (int i = 0; i < 40; i++)
        nl[i] = i % 4 == 1 ? -INFINITY : i % 4 == 2 ? -1e30f : i == 7 ? -104.5f : 0.25f * (float)i;
    reference(1, 40, 1, nl, y40, ly);
    softmax_f32(1, 40, 1, nl, W);
    check(same_bits(W, y40, 40) && W[1] == 0.0f && !signbit(W[1]), "softmax masked line");
    nl[7] = 9.75f - 95.0f;
    reference(1, 40, 1, nl, y40, ly);
    softmax_f32(1, 40, 1, nl, W);
    check(same_bits(W, y40, 40) && W[7] > 0.0f && W[7] < 0x1p-126f, "softmax denormal exp");

    /* n = 1: probability 1, log-probability 0 */
    const float one[4] = {5.0f, -3.0f, 0.0f, 1e30f};
    softmax_f32(4, 1, 1, one, y);
    check(y[0] == 1.0f && y[1] == 1.0f && y[2] == 1.0f && y[3] == 1.0f, "softmax n = 1");
    logsoftmax_f32(1, 1, 4, one, y);
    check(y[0] == 0.0f && y[1] == 0.0f && y[2] == 0.0f && y[3] == 0.0f, "logsoftmax n = 1");
}

static void test_random(int64_t outer, int64_t n, int64_t inner, float scale)
{
    const int64_t total = outer * n * inner;
    for (int64_t i = 0; i < total; i++)
        X[i] = scale * rnd();
    Y[total] = 777.0f;
    reference(outer, n, inner, X, W, LW);
    char what[128];
    softmax_f32(outer, n, inner, X, Y);
    snprintf(what, sizeof what, "softmax outer=%d n=%d inner=%d scale=%g", (int)outer, (int)n,
             (int)inner, (double)scale);
    check(same_bits(Y, W, total) && Y[total] == 777.0f, what);
    double sum_ok = 1;
    for (int64_t o = 0; o < outer; o++)
        for (int64_t j = 0; j < inner; j++) {
            double s = 0;
            for (int64_t i = 0; i < n; i++)
                s += Y[(o * n + i) * inner + j];
            sum_ok = sum_ok && fabs(s - 1.0) < 1e-5 * (double)n;
        }
    snprintf(what, sizeof what, "softmax lines sum to 1, outer=%d n=%d inner=%d", (int)outer,
             (int)n, (int)inner);
    check(sum_ok != 0, what);
    logsoftmax_f32(outer, n, inner, X, Y);
    snprintf(what, sizeof what, "logsoftmax outer=%d n=%d inner=%d scale=%g", (int)outer, (int)n,
             (int)inner, (double)scale);
    check(same_bits(Y, LW, total) && Y[total] == 777.0f, what);

    /* in place */
    memcpy(Y, X, (size_t)total * sizeof(float));
    softmax_f32(outer, n, inner, Y, Y);
    snprintf(what, sizeof what, "softmax in place, outer=%d n=%d inner=%d", (int)outer, (int)n,
             (int)inner);
    check(same_bits(Y, W, total), what);
    memcpy(Y, X, (size_t)total * sizeof(float));
    logsoftmax_f32(outer, n, inner, Y, Y);
    snprintf(what, sizeof what, "logsoftmax in place, outer=%d n=%d inner=%d", (int)outer, (int)n,
             (int)inner);
    check(same_bits(Y, LW, total), what);
}

/* float64: hand values, a line along a strided axis, and a difference float cannot see. */
static void test_f64(void)
{
    const double x[4] = {-INFINITY, 5, 5, -INFINITY};
    double y[4], ly[4];
    softmax_f64(1, 4, 1, x, y);
    check(y[0] == 0 && y[1] == 0.5 && y[2] == 0.5 && y[3] == 0, "f64 softmax hand");
    logsoftmax_f64(1, 4, 1, x, ly);
    check(ly[0] == -INFINITY && ly[1] == -log(2.0) && ly[2] == -log(2.0) && ly[3] == -INFINITY,
          "f64 logsoftmax hand");

    /* [outer 1][n 2][inner 2]: lines (x0, x2) = (3, 3) and (x1, x3) = (-INF, 7). */
    const double xs[4] = {3, -INFINITY, 3, 7};
    softmax_f64(1, 2, 2, xs, y);
    check(y[0] == 0.5 && y[2] == 0.5 && y[1] == 0 && y[3] == 1, "f64 softmax strided line");

    /* exp(-1e-10) is 1 in float but not in double: the larger input gets more than half. */
    const double xd[2] = {0.0, 1e-10};
    softmax_f64(1, 2, 1, xd, y);
    check(y[1] > 0.5 && y[0] < 0.5 && y[0] + y[1] > 1 - 1e-15, "f64 softmax keeps precision");

    double yi[3] = {1, 2, 3}; /* in place; 1 / (e^-2 + e^-1 + 1) for the last */
    softmax_f64(1, 3, 1, yi, yi);
    check(fabs(yi[2] - 1 / (exp(-2.0) + exp(-1.0) + 1)) < 1e-15, "f64 softmax in place");
}

int main(void)
{
    test_hand();
    test_f64();
    static const int64_t shapes[][3] = {
        {1, 3, 1}, {4, 10, 1}, {2, 5, 3},  {3, 1, 4},  {1, 1000, 1}, {1, 7, 64},
        {5, 2, 1}, {3, 16, 1}, {2, 65, 1}, {2, 33, 3}, /* lane sums: full lanes, tails, strided
                                                          lines */
    };
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        test_random(shapes[i][0], shapes[i][1], shapes[i][2], 1.0f);
        test_random(shapes[i][0], shapes[i][1], shapes[i][2], 100.0f);
    }
    softmax_f32(0, 3, 1, NULL, NULL);
    softmax_f32(2, 0, 1, NULL, NULL);
    logsoftmax_f32(2, 3, 0, NULL, NULL);
    check(1, "empty shapes touch nothing");
    printf("%d passed, %d failed\n", n_passed, n_failed);
    return n_failed != 0;
}
