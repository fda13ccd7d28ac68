/* Unit test of templates/nn.c: LRN, MeanVarianceNormalization and LpNormalization against
 * hand-computed values and per-element references in the documented order. */
#include "../../templates/nn.c"

#include <stdio.h>
#include <string.h>

static uint32_t rng_state = 2718281828u; /* seeds rnd() in check.h */
#define CHECK_WITH_RND
#include "check.h"

#define MAXE 4096
static float X[MAXE], Y[MAXE];

static void test_lrn(void)
{
    /* C = 3, size 3, alpha 3, beta 1, bias 1: c0 window {0,1}, c1 {0,1,2}, c2 {1,2} */
    const float x[3] = {1, 2, 3};
    float y[3];
    lrn_f32(1, 3, 1, 3, 3.0f, 1.0f, 1.0f, x, y);
    check(y[0] == 1.0f / 6.0f && y[1] == 2.0f / 15.0f && y[2] == 3.0f / 14.0f, "lrn hand size 3");
    /* even size 2: window [c, c+1] */
    lrn_f32(1, 3, 1, 2, 2.0f, 1.0f, 0.0f, x, y);
    check(y[0] == 1.0f / 5.0f && y[1] == 2.0f / 13.0f && y[2] == 3.0f / 9.0f, "lrn hand size 2");
    /* random against the reference order, N=2 C=5 HW=3 size 5 */
    for (int i = 0; i < 30; i++)
        X[i] = rnd();
    lrn_f32(2, 5, 3, 5, 1e-4f, 0.75f, 1.0f, X, Y);
    int ok = 1;
    for (int n = 0; n < 2; n++)
        for (int c = 0; c < 5; c++)
            for (int p = 0; p < 3; p++) {
                volatile float s = 0.0f;
                for (int j = c - 2; j <= c + 2; j++)
                    if (j >= 0 && j < 5) {
                        volatile float v = X[(n * 5 + j) * 3 + p];
                        v = v * v;
                        s = s + v;
                    }
                volatile float a = 1e-4f / 5.0f;
                a = a * s;
                a = 1.0f + a;
                const float want = X[(n * 5 + c) * 3 + p] / powf(a, 0.75f);
                ok &= Y[(n * 5 + c) * 3 + p] == want;
            }
    check(ok, "lrn random in the documented order");
}

static void test_mvn(void)
{
    /* [2][2], normalise over axis 1 (rows): row {1, 3}: mean 2, std 1 */
    const float x[4] = {1, 3, 5, 5};
    float y[4];
    const int64_t od[1] = {2}, os[1] = {2}, rd[1] = {2}, rs[1] = {1};
    mvn_f32(1, od, os, 1, rd, rs, x, y);
    check(y[0] == -1.0f / (1.0f + 1e-9f) && y[1] == 1.0f / (1.0f + 1e-9f) && y[2] == 0.0f &&
              y[3] == 0.0f,
          "mvn hand over the last axis");
    /* over axis 0 (columns, stride 2): columns {1,5}, {3,5} */
    const int64_t os0[1] = {1}, rs0[1] = {2};
    mvn_f32(1, od, os0, 1, rd, rs0, x, y);
    check(y[0] == -1.0f && y[2] == 1.0f && y[1] == -1.0f && y[3] == 1.0f, "mvn hand over axis 0");
    /* all axes reduced: rank-0 kept part */
    const int64_t rd2[2] = {2, 2}, rs2[2] = {2, 1};
    mvn_f32(0, od, os, 2, rd2, rs2, x, y);
    const float mean = 3.5f, sd = sqrtf(15.0f - 3.5f * 3.5f) + 1e-9f;
    check(y[0] == (1.0f - mean) / sd && y[3] == (5.0f - mean) / sd, "mvn over every axis");
}

static void test_lpnorm(void)
{
    /* [2][2] along axis 1 (inner 1): rows {3, 4} -> /5 and {-1, 1} */
    const float x[4] = {3, 4, -1, 1};
    float y[4];
    lpnorm_f32(2, 2, 1, 2, x, y);
    check(y[0] == 0.6f && y[1] == 0.8f && y[2] == -1.0f / sqrtf(2.0f), "lpnorm p=2 last axis");
    lpnorm_f32(2, 2, 1, 1, x, y);
    check(y[0] == 3.0f / 7.0f && y[2] == -0.5f && y[3] == 0.5f, "lpnorm p=1");
    /* along axis 0 (len 2, inner 2): columns {3, -1}, {4, 1} */
    lpnorm_f32(1, 2, 2, 1, x, y);
    check(y[0] == 0.75f && y[2] == -0.25f && y[1] == 0.8f && y[3] == 0.2f, "lpnorm p=1 axis 0");
    /* in place */
    float z[2] = {0.0f, -2.0f};
    lpnorm_f32(1, 2, 1, 2, z, z);
    check(z[0] == 0.0f && z[1] == -1.0f, "lpnorm in place");
}

static void test_offset(void)
{
    const int64_t dims[3] = {2, 3, 4}, strides[3] = {1, 8, 2};
    check(nn_offset(3, dims, strides, 0) == 0 && nn_offset(3, dims, strides, 23) == 1 + 16 + 6,
          "nn_offset");
}

int main(void)
{
    test_lrn();
    test_mvn();
    test_lpnorm();
    test_offset();
    printf("%d passed, %d failed\n", n_passed, n_failed);
    return n_failed != 0;
}
