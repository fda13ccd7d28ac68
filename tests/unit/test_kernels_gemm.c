/* Unit test of templates/gemm.c: hand-computed products, bit-identity with a per-element
 * ascending-k fmaf dot product over many shapes and stride layouts, and the epilogue. */
#include "../../templates/gemm.c"

#include <stdio.h>
#include <string.h>

#include "check.h"

static uint32_t rng_state = 12345u;

/* xorshift32; values spread over several binades so that a different summation order or a
 * missing fma changes the bits. */
static float rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 17;
    rng_state ^= rng_state << 5;
    const float m = (float)(rng_state >> 8) / 16777216.0f - 0.5f; /* [-0.5, 0.5) */
    const int e = (int)(rng_state & 7u) - 3;                      /* 2^-3 .. 2^4 */
    return ldexpf(m, e);
}

static int same_bits(const float *a, const float *b, int64_t n)
{
    return memcmp(a, b, (size_t)n * sizeof(float)) == 0;
}

#define MAXE 70000 /* the largest shape below, with its pad */

static float A_buf[MAXE], B_buf[MAXE], C_buf[MAXE], Y_got[MAXE], Y_want[MAXE];

/* Random A and B; Y_got marked, so that a write past the result shows. */
static void fill_operands(void)
{
    for (int i = 0; i < MAXE; i++) {
        A_buf[i] = rnd();
        B_buf[i] = rnd();
        Y_got[i] = 1e30f;
    }
}

/* Reference: the contract written as a per-element loop. */
static float dot_ref(int64_t K, const float *A, int64_t a_rs, int64_t a_cs, int64_t i,
                     const float *B, int64_t b_rs, int64_t b_cs, int64_t j)
{
    float acc = 0.0f;
    for (int64_t k = 0; k < K; k++)
        acc = fmaf(A[i * a_rs + k * a_cs], B[k * b_rs + j * b_cs], acc);
    return acc;
}

static void test_hand(void)
{
    const float A[6] = {1, 2, 3, 4, 5, 6};    /* [2][3] */
    const float B[6] = {7, 8, 9, 10, 11, 12}; /* [3][2] */
    const float want[4] = {58, 64, 139, 154};
    float Y[4];
    gemm_f32(2, 2, 3, A, 3, 1, B, 2, 1, Y);
    check(same_bits(Y, want, 4), "hand 2x3 * 3x2");

    /* A transposed: A stored [3][2] = A^T */
    const float At[6] = {1, 4, 2, 5, 3, 6};
    gemm_f32(2, 2, 3, At, 1, 2, B, 2, 1, Y);
    check(same_bits(Y, want, 4), "hand, A transposed");

    /* B transposed: B stored [2][3] = B^T */
    const float Bt[6] = {7, 9, 11, 8, 10, 12};
    gemm_f32(2, 2, 3, A, 3, 1, Bt, 1, 3, Y);
    check(same_bits(Y, want, 4), "hand, B transposed");

    /* Products of -x and 0 give -0, but the sum starts at +0: +0 + -0 = +0. */
    const float a1[1] = {-1.0f}, b1[1] = {0.0f};
    float y1[1];
    gemm_f32(1, 1, 1, a1, 1, 1, b1, 1, 1, y1);
    check(y1[0] == 0.0f && !signbit(y1[0]), "accumulation starts from +0.0f");

    /* K = 0: all zeros, whatever Y held. */
    float yz[6] = {1, 2, 3, 4, 5, 6};
    gemm_f32(2, 3, 0, A, 0, 1, B, 3, 1, yz);
    int ok = 1;
    for (int i = 0; i < 6; i++)
        ok &= yz[i] == 0.0f && !signbit(yz[i]);
    check(ok, "K = 0 gives zeros");
}

/* One random product in a given layout, compared bit for bit with dot_ref. The stored
 * matrices get a leading-dimension pad so that non-trivial row strides are exercised. */
static void test_random(int64_t M, int64_t N, int64_t K, int a_trans, int b_trans, int64_t pad)
{
    int64_t a_rs, a_cs, b_rs, b_cs;
    if (!a_trans) {
        a_rs = K + pad;
        a_cs = 1;
    } else {
        a_rs = 1;
        a_cs = M + pad;
    }
    if (!b_trans) {
        b_rs = N + pad;
        b_cs = 1;
    } else {
        b_rs = 1;
        b_cs = K + pad;
    }
    fill_operands();
    gemm_f32(M, N, K, A_buf, a_rs, a_cs, B_buf, b_rs, b_cs, Y_got);
    for (int64_t i = 0; i < M; i++)
        for (int64_t j = 0; j < N; j++)
            Y_want[i * N + j] = dot_ref(K, A_buf, a_rs, a_cs, i, B_buf, b_rs, b_cs, j);
    char what[128];
    snprintf(what, sizeof what, "random M=%d N=%d K=%d a_trans=%d b_trans=%d pad=%d", (int)M,
             (int)N, (int)K, a_trans, b_trans, (int)pad);
    check(same_bits(Y_got, Y_want, M * N) && Y_got[M * N] == 1e30f, what);
}

/* gemm_rowpacked_f32 on B packed by gemm_pack_b_f32 (from a row-major or a transposed B)
 * gives the per-element loop's bits: full panels of either width and a partial last one. */
static void test_rowpacked(int64_t N, int64_t K, int b_trans)
{
    const int64_t b_rs = b_trans ? 1 : N, b_cs = b_trans ? K : 1;
    static float packed[MAXE];
    for (int small = 0; small < 2; small++) {
        const int64_t nv = gemm_rowpacked_width(small);
        fill_operands();
        gemm_pack_b_f32(N, K, nv, B_buf, b_rs, b_cs, packed);
        for (int64_t j = 0; j < N; j++)
            Y_want[j] = dot_ref(K, A_buf, K, 1, 0, B_buf, b_rs, b_cs, j);
        for (int reverse = 0; reverse < 2; reverse++) {
            for (int64_t j = 0; j <= N; j++)
                Y_got[j] = 1e30f;
            gemm_rowpacked_f32(N, K, A_buf, 1, packed, nv, Y_got, reverse);
            char what[128];
            snprintf(what, sizeof what, "rowpacked N=%d K=%d nv=%d b_trans=%d reverse=%d", (int)N,
                     (int)K, (int)nv, b_trans, reverse);
            check(same_bits(Y_got, Y_want, N) && Y_got[N] == 1e30f, what);
        }
    }
}

/* The test must be able to see a wrong order: on the same data, an unfused ascending sum
 * and a descending fmaf sum must both differ from gemm_f32 somewhere. */
/* B packed by gemm_pack_xsmm_f32 (row-major or transposed) in panels of GEMM_XSMM_PANEL
 * columns, each panel's product by gemm_f32_ldy into its columns of Y (as
 * o2c_xsmm_reference_panels runs it): the per-element loop's bits, every element written. */
static void test_xsmm_panels(int64_t M, int64_t N, int64_t K, int b_trans)
{
    const int64_t b_rs = b_trans ? 1 : N, b_cs = b_trans ? K : 1;
    static float packed[MAXE];
    fill_operands();
    gemm_pack_xsmm_f32(N, K, B_buf, b_rs, b_cs, packed);
    for (int64_t j0 = 0; j0 < N; j0 += GEMM_XSMM_PANEL) {
        const int64_t w = N - j0 < GEMM_XSMM_PANEL ? N - j0 : GEMM_XSMM_PANEL;
        gemm_f32_ldy(M, w, K, A_buf, K, 1, packed + j0 * K, w, 1, Y_got + j0, N);
    }
    for (int64_t i = 0; i < M; i++)
        for (int64_t j = 0; j < N; j++)
            Y_want[i * N + j] = dot_ref(K, A_buf, K, 1, i, B_buf, b_rs, b_cs, j);
    char what[128];
    snprintf(what, sizeof what, "xsmm panels M=%d N=%d K=%d b_trans=%d", (int)M, (int)N, (int)K,
             b_trans);
    check(same_bits(Y_got, Y_want, M * N) && Y_got[M * N] == 1e30f, what);
}

static void test_sensitivity(void)
{
    const int64_t M = 16, N = 17, K = 100;
    for (int i = 0; i < MAXE; i++) {
        A_buf[i] = rnd();
        B_buf[i] = rnd();
    }
    gemm_f32(M, N, K, A_buf, K, 1, B_buf, N, 1, Y_got);
    int unfused_differs = 0, descending_differs = 0;
    for (int64_t i = 0; i < M; i++) {
        for (int64_t j = 0; j < N; j++) {
            float s = 0.0f, d = 0.0f;
            for (int64_t k = 0; k < K; k++) {
                volatile float p = A_buf[i * K + k] * B_buf[k * N + j];
                s = s + p;
            }
            for (int64_t k = K - 1; k >= 0; k--)
                d = fmaf(A_buf[i * K + k], B_buf[k * N + j], d);
            unfused_differs |= s != Y_got[i * N + j];
            descending_differs |= d != Y_got[i * N + j];
        }
    }
    check(unfused_differs, "test data distinguishes fmaf from mul+add");
    check(descending_differs, "test data distinguishes ascending from descending k");
}

static void test_epilogue_hand(void)
{
    float Y[4] = {1, 2, 3, 4};
    const float bias[2] = {10, 20};
    gemm_epilogue_f32(2, 2, 2.0f, bias, 0, 1, 0.5f, Y);
    const float want[4] = {7, 14, 11, 18};
    check(same_bits(Y, want, 4), "epilogue alpha=2, row bias, beta=0.5");

    float Y2[4] = {1, 2, 3, 4};
    const float col[2] = {100, 200};
    gemm_epilogue_f32(2, 2, 1.0f, col, 1, 0, 1.0f, Y2);
    const float want2[4] = {101, 102, 203, 204};
    check(same_bits(Y2, want2, 4), "epilogue column bias");

    float Y3[4] = {1, 2, 3, 4};
    gemm_epilogue_f32(2, 2, 3.0f, NULL, 0, 0, 5.0f, Y3);
    const float want3[4] = {3, 6, 9, 12};
    check(same_bits(Y3, want3, 4), "epilogue without C");
}

/* Reference epilogue: per element, each rounding forced through a volatile. */
static void test_epilogue_random(float alpha, float beta, int c_mode)
{
    const int64_t M = 7, N = 11;
    int64_t c_rs = 0, c_cs = 0;
    const float *C = C_buf;
    switch (c_mode) {
    case 0: C = NULL; break;
    case 1:
        c_rs = N;
        c_cs = 1;
        break; /* full [M][N] */
    case 2:
        c_rs = 0;
        c_cs = 1;
        break; /* row [N] */
    case 3:
        c_rs = 1;
        c_cs = 0;
        break; /* column [M][1] */
    case 4:
        c_rs = 0;
        c_cs = 0;
        break; /* scalar */
    case 5:
        c_rs = 1;
        c_cs = M;
        break; /* full, stored transposed */
    }
    for (int i = 0; i < MAXE; i++) {
        C_buf[i] = rnd();
        Y_got[i] = rnd();
    }
    for (int64_t i = 0; i < M; i++) {
        for (int64_t j = 0; j < N; j++) {
            volatile float y = Y_got[i * N + j];
            if (alpha != 1.0f)
                y = alpha * y;
            if (C) {
                volatile float t = C[i * c_rs + j * c_cs];
                if (beta != 1.0f)
                    t = beta * t;
                y = y + t;
            }
            Y_want[i * N + j] = y;
        }
    }
    gemm_epilogue_f32(M, N, alpha, C, c_rs, c_cs, beta, Y_got);
    char what[96];
    snprintf(what, sizeof what, "epilogue random alpha=%g beta=%g c_mode=%d", (double)alpha,
             (double)beta, c_mode);
    check(same_bits(Y_got, Y_want, M * N), what);
}

/* float64: hand values; one case only a fused multiply-add gets right. */
static void test_f64(void)
{
    const double A[6] = {1, 2, 3, 4, 5, 6};     /* [2][3] */
    const double B[6] = {7, 8, 9, 10, 11, 12};  /* [3][2] */
    const double Bt[6] = {7, 9, 11, 8, 10, 12}; /* B stored [2][3] */
    double Y[4];
    gemm_f64(2, 2, 3, A, 3, 1, B, 2, 1, Y);
    check(Y[0] == 58 && Y[1] == 64 && Y[2] == 139 && Y[3] == 154, "f64 hand 2x3 * 3x2");
    gemm_f64(2, 2, 3, A, 3, 1, Bt, 1, 3, Y);
    check(Y[0] == 58 && Y[1] == 64 && Y[2] == 139 && Y[3] == 154, "f64 hand, B transposed");

    /* -1*1 + (1+2^-30)(1-2^-30) = -2^-60 exactly with fma; a separate multiply rounds the
     * product to 1 and gives 0. */
    const double a2[2] = {-1.0, 1.0 + ldexp(1.0, -30)}, b2[2] = {1.0, 1.0 - ldexp(1.0, -30)};
    double y1[1];
    gemm_f64(1, 1, 2, a2, 2, 1, b2, 1, 1, y1);
    check(y1[0] == -ldexp(1.0, -60), "f64 accumulates with fma");

    const double a1[1] = {-1.0}, b1[1] = {0.0};
    gemm_f64(1, 1, 1, a1, 1, 1, b1, 1, 1, y1);
    check(y1[0] == 0.0 && !signbit(y1[0]), "f64 accumulation starts from +0.0");

    double yz[2] = {1, 2};
    gemm_f64(1, 2, 0, A, 0, 1, B, 2, 1, yz);
    check(yz[0] == 0.0 && yz[1] == 0.0, "f64 K = 0 gives zeros");

    /* y = 2*y + 0.5*c with c a row [10, 20]; then beta = 1 adds c as is; no C: alpha only. */
    double ye[4] = {1, 2, 3, 4};
    const double c[2] = {10, 20};
    gemm_epilogue_f64(2, 2, 2.0, c, 0, 1, 0.5, ye);
    check(ye[0] == 7 && ye[1] == 14 && ye[2] == 11 && ye[3] == 18, "f64 epilogue alpha, beta");
    gemm_epilogue_f64(2, 2, 1.0, c, 0, 1, 1.0, ye);
    check(ye[0] == 17 && ye[1] == 34 && ye[2] == 21 && ye[3] == 38, "f64 epilogue bias");
    gemm_epilogue_f64(2, 2, 0.5, NULL, 0, 0, 1.0, ye);
    check(ye[0] == 8.5 && ye[1] == 17 && ye[2] == 10.5 && ye[3] == 19, "f64 epilogue no C");
}

/* float64, random: gemm_f64 against the per-element fma loop, bit for bit, in every layout. */
static double A64[MAXE], B64[MAXE], Y64_got[MAXE], Y64_want[MAXE];

static void test_random_f64(int64_t M, int64_t N, int64_t K, int a_trans, int b_trans)
{
    const int64_t pad = 1;
    const int64_t a_rs = a_trans ? 1 : K + pad, a_cs = a_trans ? M + pad : 1;
    const int64_t b_rs = b_trans ? 1 : N + pad, b_cs = b_trans ? K + pad : 1;
    for (int i = 0; i < MAXE; i++) {
        A64[i] = (double)rnd() * (1.0 + (double)rnd() * 1e-9); /* mantissas past float's */
        B64[i] = (double)rnd() * (1.0 - (double)rnd() * 1e-9);
        Y64_got[i] = 1e300;
    }
    gemm_f64(M, N, K, A64, a_rs, a_cs, B64, b_rs, b_cs, Y64_got);
    for (int64_t i = 0; i < M; i++) {
        for (int64_t j = 0; j < N; j++) {
            double acc = 0.0;
            for (int64_t k = 0; k < K; k++)
                acc = fma(A64[i * a_rs + k * a_cs], B64[k * b_rs + j * b_cs], acc);
            Y64_want[i * N + j] = acc;
        }
    }
    char what[128];
    snprintf(what, sizeof what, "f64 random M=%d N=%d K=%d a_trans=%d b_trans=%d", (int)M, (int)N,
             (int)K, a_trans, b_trans);
    check(memcmp(Y64_got, Y64_want, (size_t)(M * N) * sizeof(double)) == 0 &&
              Y64_got[M * N] == 1e300,
          what);
}

int main(void)
{
    test_hand();
    test_f64();

    static const int64_t shapes[][3] = {
        {1, 1, 1},
        {1, 7, 13},
        {5, 1, 9},
        {3, 4, 0},
        {7, 9, 33},
        {16, 17, 100},
        {2, 3, 500},
        {4, 64, 8},
        /* register tiles (6 x 32, 12 x 32 with AVX-512) with and without row and column tails, k
         * blocks of 256, row blocks of 120; rows outside tiles in column panels of 128 */
        {6, 32, 5},
        {12, 64, 0},
        {12, 64, 300},
        {13, 70, 257},
        {127, 33, 9},
        {126, 31, 513},
        {240, 96, 40},
        {1, 200, 300},
        {18, 1, 256},
        {5, 256, 7},
        /* the last M % 6 rows as bottom tiles (3 to 5 rows; 2 when N < 128), k blocks
         * resumed, column tails by rows */
        {65, 200, 300},
        {32, 64, 257},
        {8, 160, 40},
        {3, 96, 600},
        {10, 33, 17},
        /* 12-row tiles (AVX-512): 11, 1 and 3 rows left, a row block of 120 and a tail */
        {23, 64, 300},
        {25, 40, 260},
        {135, 48, 20},
        /* the last N % 32 columns as tiles 16 and 8 wide (full and bottom rows, k resumed),
         * the rest by the edge tile or by rows */
        {20, 24, 300},
        {9, 56, 40},
        {2, 8, 32},
        {6, 16, 16},
        {15, 47, 9},
    };
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        for (int at = 0; at < 2; at++)
            for (int bt = 0; bt < 2; bt++)
                for (int64_t pad = 0; pad <= 3; pad += 3)
                    test_random(shapes[s][0], shapes[s][1], shapes[s][2], at, bt, pad);

    static const int64_t shapes64[][3] = {
        {1, 5, 7}, {6, 16, 3}, {13, 37, 300}, {127, 17, 9}, {5, 40, 0}};
    for (size_t s = 0; s < sizeof shapes64 / sizeof shapes64[0]; s++)
        for (int at = 0; at < 2; at++)
            for (int bt = 0; bt < 2; bt++)
                test_random_f64(shapes64[s][0], shapes64[s][1], shapes64[s][2], at, bt);

    static const int64_t packed_shapes[][2] = {{1, 1},    {5, 3},     {128, 7},
                                               {192, 64}, {512, 128}, {300, 33}};
    for (size_t s = 0; s < sizeof packed_shapes / sizeof packed_shapes[0]; s++)
        for (int bt = 0; bt < 2; bt++)
            test_rowpacked(packed_shapes[s][0], packed_shapes[s][1], bt);
    /* one panel, full panels, a partial last panel; K = 0 */
    static const int64_t panel_shapes[][3] = {{3, 5, 7}, {13, 128, 40}, {7, 200, 257}, {4, 70, 0}};
    for (size_t s = 0; s < sizeof panel_shapes / sizeof panel_shapes[0]; s++)
        for (int bt = 0; bt < 2; bt++)
            test_xsmm_panels(panel_shapes[s][0], panel_shapes[s][1], panel_shapes[s][2], bt);

    test_sensitivity();
    test_epilogue_hand();
    const float alphas[2] = {1.0f, 0.7f}, betas[3] = {1.0f, -1.3f, 0.0f};
    for (int a = 0; a < 2; a++)
        for (int b = 0; b < 3; b++)
            for (int c = 0; c <= 5; c++)
                test_epilogue_random(alphas[a], betas[b], c);

    printf("%d passed, %d failed\n", n_passed, n_failed);
    return n_failed != 0;
}
