/* Unit test of templates/norm.c: hand-computed values and bit-identity with a per-element
 * reference that forces each of the four roundings in the onnx reference's order
 * scale * (x - mean) / sqrt(var + eps) + bias; groupnorm_f32 (GroupNormalization,
 * InstanceNormalization) against hand values and a per-group reference. */
#include "../../templates/norm.c"

#include <stdio.h>
#include <string.h>

static uint32_t rng_state = 3141592653u; /* seeds rnd() in check.h */
#define CHECK_WITH_RND
#include "check.h"

#define MAXE 8192
static float X[MAXE], Y[MAXE], R[MAXE], S[64], B[64], M[64], V[64];

static float bn_ref(float x, float s, float b, float m, float v, float eps)
{
    volatile float t = x - m;
    t = s * t;
    volatile float ve = v + eps;
    t = t / sqrtf(ve);
    t = t + b;
    return t;
}

static void test_hand(void)
{
    /* N=1, C=2, HW=2: channel 0 mean 1 var 4 (eps 0) scale 2 bias 3; channel 1 identity */
    const float x[4] = {1, 5, -2, 7}, s[2] = {2, 1}, b[2] = {3, 0}, m[2] = {1, 0}, v[2] = {4, 1};
    float y[4];
    batchnorm_f32(1, 2, 2, x, s, b, m, v, 0.0f, y);
    check(y[0] == 3 && y[1] == 7 && y[2] == -2 && y[3] == 7, "batchnorm hand");

    /* in place, with eps */
    float z[2] = {3.0f, -1.0f};
    const float one = 1.0f, zero = 0.0f, var = 3.0f;
    batchnorm_f32(1, 1, 2, z, &one, &zero, &zero, &var, 1.0f, z);
    check(z[0] == 1.5f && z[1] == -0.5f, "batchnorm in place with eps");
}

static void test_random(int64_t N, int64_t C, int64_t HW, float eps)
{
    const int64_t total = N * C * HW;
    for (int64_t i = 0; i < total; i++)
        X[i] = rnd();
    for (int64_t c = 0; c < C; c++) {
        S[c] = rnd();
        B[c] = rnd();
        M[c] = rnd();
        V[c] = fabsf(rnd());
    }
    Y[total] = 31.0f;
    batchnorm_f32(N, C, HW, X, S, B, M, V, eps, Y);
    for (int64_t n = 0; n < N; n++)
        for (int64_t c = 0; c < C; c++)
            for (int64_t p = 0; p < HW; p++) {
                const int64_t i = (n * C + c) * HW + p;
                R[i] = bn_ref(X[i], S[c], B[c], M[c], V[c], eps);
            }
    char what[96];
    snprintf(what, sizeof what, "batchnorm N=%d C=%d HW=%d eps=%g", (int)N, (int)C, (int)HW,
             (double)eps);
    check(memcmp(Y, R, (size_t)total * sizeof(float)) == 0 && Y[total] == 31.0f, what);
}

/* The data must tell the reference's order from the alternative (x - mean) / d * scale. */
static void test_sensitivity(void)
{
    const int64_t C = 16, HW = 64;
    test_random(1, C, HW, 1e-5f);
    int differs = 0;
    for (int64_t c = 0; c < C; c++)
        for (int64_t p = 0; p < HW; p++) {
            volatile float t = X[c * HW + p] - M[c];
            t = t / sqrtf(V[c] + 1e-5f);
            t = t * S[c];
            t = t + B[c];
            differs |= t != Y[c * HW + p];
        }
    check(differs, "test data distinguishes the evaluation orders");
}

static void test_groupnorm(void)
{
    /* one group of 4: mean 2.5, var 1.25; scale 2, bias 1, eps 0 */
    const float x[4] = {1, 2, 3, 4}, two = 2.0f, one = 1.0f;
    float y[4];
    groupnorm_f32(1, 1, 1, 4, x, &two, &one, 1, 0.0f, y);
    const float d = sqrtf(1.25f);
    check(y[0] == 2.0f * ((1.0f - 2.5f) / d) + 1.0f && y[3] == 2.0f * ((4.0f - 2.5f) / d) + 1.0f,
          "groupnorm hand, one group");

    /* instance norm: C = G = 2, HW = 2, per channel scale/bias */
    const float xi[4] = {0, 2, 10, 30}, sc[2] = {1, 3}, bi[2] = {0, -1};
    groupnorm_f32(1, 2, 2, 2, xi, sc, bi, 1, 0.0f, y);
    check(y[0] == -1.0f && y[1] == 1.0f && y[2] == -4.0f && y[3] == 2.0f, "instancenorm hand");

    /* groups of 2 channels, per-group (opset 18) vs per-channel (opset 21) scale */
    const int64_t N = 2, C = 6, G = 3, HW = 5;
    for (int64_t i = 0; i < N * C * HW; i++)
        X[i] = rnd();
    for (int64_t c = 0; c < C; c++) {
        S[c] = rnd();
        B[c] = rnd();
    }
    for (int per_channel = 0; per_channel < 2; per_channel++) {
        groupnorm_f32(N, C, G, HW, X, S, B, per_channel, 1e-5f, Y);
        int ok = 1;
        for (int64_t n = 0; n < N; n++)
            for (int64_t g = 0; g < G; g++) {
                const float *xg = X + (n * C + g * 2) * HW;
                double sum = 0, sq = 0;
                for (int i = 0; i < 2 * HW; i++)
                    sum += xg[i];
                const double mean = sum / (2 * HW);
                for (int i = 0; i < 2 * HW; i++)
                    sq += (xg[i] - mean) * (xg[i] - mean);
                const float m = (float)mean, dd = sqrtf((float)(sq / (2 * HW)) + 1e-5f);
                for (int i = 0; i < 2 * HW; i++) {
                    const int64_t ci = per_channel ? g * 2 + i / HW : g;
                    volatile float t = (xg[i] - m) / dd;
                    t = S[ci] * t;
                    t = t + B[ci];
                    ok &= Y[(n * C + g * 2) * HW + i] == t;
                }
            }
        check(ok, per_channel ? "groupnorm per-channel scale" : "groupnorm per-group scale");
    }
}

static void test_batchnorm_train(void)
{
    /* N=2, C=1, HW=2: x {1, 3, 5, 7}, batch mean 4, biased var (9+1+1+9)/4 = 5; eps 4 so
     * the divisor is 3; scale 3, bias 1: y = (x - 4) + 1. Running stats with momentum 0.75:
     * 8 * 0.75 + 4 * 0.25 = 7 and 1 * 0.75 + 5 * 0.25 = 2. */
    const float x[4] = {1, 3, 5, 7}, s[1] = {3}, b[1] = {1}, m[1] = {8}, v[1] = {1};
    float y[4], om[1], ov[1];
    batchnorm_train_f32(2, 1, 2, x, s, b, m, v, 4.0f, 0.75f, y, om, ov);
    check(y[0] == -2.0f && y[1] == 0.0f && y[2] == 2.0f && y[3] == 4.0f, "batchnorm train y");
    check(om[0] == 7.0f && ov[0] == 2.0f, "batchnorm train running stats");
    batchnorm_train_f32(2, 1, 2, x, s, b, m, v, 4.0f, 0.75f, y, NULL, NULL);
    check(y[3] == 4.0f, "batchnorm train without stats outputs");
}

int main(void)
{
    test_batchnorm_train();
    test_groupnorm();
    test_hand();
    test_random(1, 3, 10, 1e-5f);
    test_random(2, 8, 49, 1e-3f);
    test_random(4, 5, 1, 0.0f);
    test_random(1, 64, 100, 1e-5f);
    test_sensitivity();
    printf("%d passed, %d failed\n", n_passed, n_failed);
    return n_failed != 0;
}
