/* Unit test of templates/pool_nhwc.c: the channels-last MaxPool, AveragePool (count_include_pad
 * both ways) and GlobalAveragePool must give, bit for bit, pool.c's NCHW kernels' results
 * transposed to NHWC (pool.c's own test checks those against hand values and the N-d kernels),
 * and GlobalAveragePool also reduce_mean_f32 over H and W (the form squeeze-excite blocks
 * export). Covers strides, dilations, asymmetric padding, ceil_mode outputs whose last window
 * runs past the padding, windows with no input tap, 1-D, batch 2, channel counts of 1 to 130,
 * NaN, infinities and signed zeros in the windows (a NaN result matches any NaN); and hand
 * values. */
#define O2C_KERNEL static __attribute__((unused))
/* depthwise_nhwc.c first, as in the generated file: pool_nhwc.c takes its NHWC_GEO indices
 * (depthwise_nhwc.c calls conv.c's epilogue, which calls elementwise.c and math.c) */
#include "../../templates/conv.c"
#include "../../templates/depthwise_nhwc.c"
#include "../../templates/elementwise.c"
#include "../../templates/math.c"
#include "../../templates/pool.c"
#include "../../templates/pool_nhwc.c"
#include "../../templates/reduce.c"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint32_t rng_state = 88172645u; /* seeds rnd() in check.h */
#define CHECK_WITH_RND
#define CHECK_WITH_ALLOC
#include "check.h"

typedef struct {
    const char *name;
    int64_t N, C, H, W, KH, KW;
    int64_t sh, sw, pt, pl, pb, pr, dh, dw;
    int ceil_mode;
} PoolCase;

static int64_t out_size(int64_t in, int64_t k, int64_t s, int64_t p0, int64_t p1, int64_t d,
                        int ceil_mode)
{
    const int64_t span = in + p0 + p1 - d * (k - 1) - 1;
    int64_t o = (ceil_mode ? (span + s - 1) / s : span / s) + 1;
    if (ceil_mode && (o - 1) * s >= in + p0) /* the last window must start inside */
        o--;
    return o;
}

/* The same bits, where a NaN matches any NaN: which NaN an addition of two NaNs (or of
 * inf + -inf and a NaN) returns depends on the operand order the compiler picks for the
 * commutative +, which neither IEEE 754 nor C fixes. */
static int same_bits(const float *a, const float *b, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        if (memcmp(&a[i], &b[i], sizeof(float)) && !(isnan(a[i]) && isnan(b[i])))
            return 0;
    return 1;
}

/* [N][C][P] -> [N][P][C] */
static void to_nhwc(int64_t N, int64_t C, int64_t P, const float *x, float *y)
{
    for (int64_t n = 0; n < N; n++)
        for (int64_t c = 0; c < C; c++)
            for (int64_t p = 0; p < P; p++)
                y[(n * P + p) * C + c] = x[(n * C + c) * P + p];
}

/* Random values with NaN, infinities and signed zeros sprinkled in (special = 1). */
static void fill(int64_t n, int special, float *x)
{
    const float sp[5] = {NAN, INFINITY, -INFINITY, -0.0f, 0.0f};
    for (int64_t i = 0; i < n; i++) {
        x[i] = rnd();
        if (special && rng_state % 7u == 0)
            x[i] = sp[rng_state / 7u % 5u];
    }
}

static void run_case(const PoolCase *c, int special)
{
    const int64_t OH = out_size(c->H, c->KH, c->sh, c->pt, c->pb, c->dh, c->ceil_mode);
    const int64_t OW = out_size(c->W, c->KW, c->sw, c->pl, c->pr, c->dw, c->ceil_mode);
    const int64_t nx = c->N * c->C * c->H * c->W, ny = c->N * c->C * OH * OW;
    float *x = alloc_floats(nx), *xh = alloc_floats(nx), *yn = alloc_floats(ny);
    float *want = alloc_floats(ny), *got = alloc_floats(ny);
    fill(nx, special, x);
    to_nhwc(c->N, c->C, c->H * c->W, x, xh);
    const int64_t geo[NHWC_GEO_LEN] = {c->N,  c->H,  c->W,  c->C,  OH,    OW,    c->KH, c->KW,
                                       c->sh, c->sw, c->pt, c->pl, c->pb, c->pr, c->dh, c->dw};
    const int64_t NC = c->N * c->C;
    char what[200];

    maxpool_f32(NC, c->H, c->W, OH, OW, c->KH, c->KW, c->sh, c->sw, c->pt, c->pl, c->pb, c->pr,
                c->dh, c->dw, x, yn);
    to_nhwc(c->N, c->C, OH * OW, yn, want);
    got[ny] = 4242.0f; /* the kernel must stay inside y */
    maxpool_nhwc_f32(geo, xh, got);
    snprintf(what, sizeof what, "MaxPool %s%s: bits of maxpool_f32", c->name,
             special ? " (specials)" : "");
    check(same_bits(want, got, ny) && got[ny] == 4242.0f, what);

    for (int include_pad = 0; include_pad < 2; include_pad++) {
        avgpool_f32(NC, c->H, c->W, OH, OW, c->KH, c->KW, c->sh, c->sw, c->pt, c->pl, c->pb, c->pr,
                    c->dh, c->dw, include_pad, x, yn);
        to_nhwc(c->N, c->C, OH * OW, yn, want);
        avgpool_nhwc_f32(geo, include_pad, xh, got);
        snprintf(what, sizeof what, "AveragePool %s count_include_pad=%d%s: bits of avgpool_f32",
                 c->name, include_pad, special ? " (specials)" : "");
        check(same_bits(want, got, ny) && got[ny] == 4242.0f, what);
    }

    /* GlobalAveragePool of the same input: [N][C] either way */
    const int64_t HW = c->H * c->W;
    global_avgpool_f32(NC, HW, x, want);
    got[NC] = 4242.0f;
    global_avgpool_nhwc_f32(c->N, HW, c->C, xh, got);
    snprintf(what, sizeof what, "GlobalAveragePool %s%s: bits of global_avgpool_f32", c->name,
             special ? " (specials)" : "");
    check(same_bits(want, got, NC) && got[NC] == 4242.0f, what);
    /* ReduceMean over axes (1, 2) of the NHWC tensor [N][HW][C]: kept n, c; reduced p */
    const int64_t out_dims[2] = {c->N, c->C}, out_strides[2] = {HW * c->C, 1};
    const int64_t red_dims[1] = {HW}, red_strides[1] = {c->C};
    reduce_mean_f32(2, out_dims, out_strides, 1, red_dims, red_strides, xh, want);
    snprintf(what, sizeof what, "GlobalAveragePool %s%s: bits of ReduceMean over H, W", c->name,
             special ? " (specials)" : "");
    check(same_bits(want, got, NC), what);

    free(x);
    free(xh);
    free(yn);
    free(want);
    free(got);
}

static const PoolCase cases[] = {
    /* name, N, C, H, W, KH, KW, sh, sw, pt, pl, pb, pr, dh, dw, ceil_mode */
    {"2x2 stride 2, 16 channels", 1, 16, 8, 8, 2, 2, 2, 2, 0, 0, 0, 0, 1, 1, 0},
    {"3x3 stride 2 pad 1, 5 channels", 1, 5, 9, 9, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 0},
    {"3x3 stride 2 ceil_mode, 33 channels", 1, 33, 10, 11, 3, 3, 2, 2, 0, 0, 0, 0, 1, 1, 1},
    {"ceil_mode with padding past the image", 2, 3, 7, 6, 3, 2, 2, 3, 1, 1, 1, 1, 1, 1, 1},
    {"dilation 2, asymmetric pad", 1, 7, 9, 10, 3, 2, 1, 2, 2, 0, 1, 2, 2, 3, 0},
    {"1-D, batch 2", 2, 4, 1, 20, 1, 5, 1, 3, 0, 2, 0, 2, 1, 1, 0},
    {"window the whole image (DS-CNN's 25x5)", 1, 64, 25, 5, 25, 5, 1, 1, 0, 0, 0, 0, 1, 1, 0},
    {"windows in the padding only", 1, 2, 3, 3, 2, 2, 3, 3, 3, 3, 3, 3, 1, 1, 0},
    {"1 channel 3x3 stride 1 pad 1", 1, 1, 6, 5, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 0},
    {"7x7 map, 32 channels, 7x7 window", 1, 32, 7, 7, 7, 7, 1, 1, 0, 0, 0, 0, 1, 1, 0},
    /* MaxPool's channel blocks (64 channels with AVX-512, 32 AVX, 16 else) and vectors: whole
     * blocks, a last vector overlapping the one before, windows in the padding and past it */
    {"3x3 stride 2 ceil_mode, 64 channels", 1, 64, 13, 13, 3, 3, 2, 2, 0, 0, 0, 0, 1, 1, 1},
    {"24 channels, 3x3 stride 2 pad 1", 1, 24, 12, 11, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 0},
    {"80 channels, dilation 2, padding", 2, 80, 9, 8, 3, 3, 2, 1, 1, 2, 2, 1, 2, 1, 1},
    {"130 channels, windows in the padding only", 1, 130, 3, 3, 2, 2, 3, 3, 3, 3, 3, 3, 1, 1, 0},
    {"1-D, 96 channels", 1, 96, 1, 12, 1, 4, 1, 3, 0, 2, 0, 2, 1, 1, 1},
};

/* Hand values: 1x2x2x2 NHWC input, 2x2 window: max, average, global average per channel. */
static void test_hand(void)
{
    const float x[8] = {1, -1, 2, -2, 3, -3, 10, -10}; /* [1][2][2][2]: c0 1 2 3 10, c1 -c0 */
    const int64_t geo[NHWC_GEO_LEN] = {1, 2, 2, 2, 1, 1, 2, 2, 1, 1, 0, 0, 0, 0, 1, 1};
    float y[2];
    maxpool_nhwc_f32(geo, x, y);
    check(y[0] == 10.0f && y[1] == -1.0f, "hand MaxPool per channel");
    avgpool_nhwc_f32(geo, 0, x, y);
    check(y[0] == 4.0f && y[1] == -4.0f, "hand AveragePool per channel");
    global_avgpool_nhwc_f32(1, 4, 2, x, y);
    check(y[0] == 4.0f && y[1] == -4.0f, "hand GlobalAveragePool per channel");
    /* padding 1 on every side, 2x2 window stride 2 -> 2x2 output; corner windows see 1 tap:
     * count_include_pad 1 divides by 4, else by 1 */
    const int64_t geo2[NHWC_GEO_LEN] = {1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 1, 1, 1, 1, 1, 1};
    float y2[8];
    avgpool_nhwc_f32(geo2, 1, x, y2);
    check(y2[0] == 0.25f && y2[7] == -2.5f, "hand AveragePool count_include_pad=1");
    avgpool_nhwc_f32(geo2, 0, x, y2);
    check(y2[0] == 1.0f && y2[7] == -10.0f, "hand AveragePool count_include_pad=0");
}

int main(void)
{
    test_hand();
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        run_case(&cases[i], 0);
        run_case(&cases[i], 1);
    }
    printf("%d passed, %d failed\n", n_passed, n_failed);
    return n_failed != 0;
}
