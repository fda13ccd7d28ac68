/* Unit test of templates/loss.c (and SoftmaxCrossEntropyLoss as logsoftmax_f32 + nll_loss_f32)
 * against hand-computed values. */
/* extern kernels: softmax.c defines more than this test calls */
#define O2C_KERNEL
#include "../../templates/loss.c"
#include "../../templates/softmax.c"

#include <math.h>
#include <stdio.h>

#include "check.h"

/* x [2][3][1] log-probabilities; rows (-1,-2,-3) and (-0.5,-1.5,-2.5). */
static const float X[6] = {-1, -2, -3, -0.5f, -1.5f, -2.5f};
static const float W[3] = {2, 1, 0.5f};

static int eq2(const float *y, float a, float b)
{
    return y[0] == a && y[1] == b;
}

static void test_reductions(void)
{
    const int64_t t[2] = {2, 0};
    float y[2];
    nll_loss_f32(2, 3, 1, X, t, NULL, 0, 0, 0, y);
    check(eq2(y, 3.0f, 0.5f), "none");
    nll_loss_f32(2, 3, 1, X, t, NULL, 0, 0, 1, y);
    check(y[0] == 3.5f, "sum");
    nll_loss_f32(2, 3, 1, X, t, NULL, 0, 0, 2, y);
    check(y[0] == 1.75f, "mean divides by the count");
    nll_loss_f32(2, 3, 1, X, t, W, 0, 0, 0, y);
    check(eq2(y, 1.5f, 1.0f), "none weighted");
    nll_loss_f32(2, 3, 1, X, t, W, 0, 0, 1, y);
    check(y[0] == 2.5f, "sum weighted");
    nll_loss_f32(2, 3, 1, X, t, W, 0, 0, 2, y);
    check(y[0] == 1.0f, "mean divides by the sum of weights (2.5 / 2.5)");
}

static void test_ignore(void)
{
    const int64_t t[2] = {2, 0};
    float y[2];
    nll_loss_f32(2, 3, 1, X, t, NULL, 1, 0, 0, y);
    check(eq2(y, 3.0f, 0.0f), "ignore 0: none");
    nll_loss_f32(2, 3, 1, X, t, NULL, 1, 0, 2, y);
    check(y[0] == 3.0f, "ignore 0: mean over the one kept element");
    nll_loss_f32(2, 3, 1, X, t, W, 1, 0, 2, y);
    check(y[0] == 3.0f, "ignore 0: weighted mean 1.5 / 0.5");
    const int64_t tn[2] = {-1, 1};
    nll_loss_f32(2, 3, 1, X, tn, W, 1, -1, 0, y);
    check(eq2(y, 0.0f, 1.5f), "negative ignore_index");
    nll_loss_f32(2, 3, 1, X, tn, NULL, 1, -1, 2, y);
    check(y[0] == 1.5f, "negative ignore_index mean");
    const int64_t th[2] = {1, 7};
    nll_loss_f32(2, 3, 1, X, th, W, 1, 10, 1, y);
    check(y[0] == 2.0f, "out-of-range target contributes nothing");
}

static void test_spatial(void)
{
    /* x [1][2][2]: class 0 (-1, -2), class 1 (-3, -4); targets (1, 0) */
    const float x[4] = {-1, -2, -3, -4};
    const int64_t t[2] = {1, 0};
    float y[2];
    nll_loss_f32(1, 2, 2, x, t, NULL, 0, 0, 0, y);
    check(eq2(y, 3.0f, 2.0f), "D = 2 picks x[n][t][d]");
    nll_loss_f32(1, 2, 2, x, t, NULL, 0, 0, 1, y);
    check(y[0] == 5.0f, "D = 2 sum");
}

static void test_sce(void)
{
    /* logsoftmax(0, ln 3) = (ln 1/4, ln 3/4): loss of target 0 is ln 4 */
    const float x[2] = {0.0f, logf(3.0f)};
    const int64_t t[1] = {0};
    float lp[2], y[1];
    logsoftmax_f32(1, 2, 1, x, lp);
    nll_loss_f32(1, 2, 1, lp, t, NULL, 0, 0, 2, y);
    check(fabsf(y[0] - logf(4.0f)) < 1e-6f, "softmax cross entropy");
    check(fabsf(lp[1] - logf(0.75f)) < 1e-6f, "log_prob");
}

int main(void)
{
    test_reductions();
    test_ignore();
    test_spatial();
    test_sce();
    printf("%d passed, %d failed\n", n_passed, n_failed);
    return n_failed != 0;
}
