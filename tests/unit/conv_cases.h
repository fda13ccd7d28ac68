/* conv_cases.h — what the float conv kernel tests (test_kernels_conv.c, test_kernels_conv_nhwc.c)
 * share: a 2-D conv case, the output size of one of its dims, a bit comparison, and the
 * tile-store epilogues with their reference. Include it after the templates (conv.c,
 * elementwise.c, math.c) and check.h with CHECK_WITH_RND. */
#ifndef CONV_CASES_H
#define CONV_CASES_H

#include <stdint.h>

/* Sizes, groups, kernel, strides (sh, sw), pads (top, left, bottom, right), dilations. */
typedef struct {
    const char *name;
    int64_t N, C, H, W, OC, groups, KH, KW;
    int64_t sh, sw, pt, pl, pb, pr, dh, dw;
} ConvCase;

/* The output size of a dim `in` long with kernel k, stride s, pads p0 and p1, dilation d. */
static int64_t out_size(int64_t in, int64_t k, int64_t s, int64_t p0, int64_t p1, int64_t d)
{
    return (in + p0 + p1 - d * (k - 1) - 1) / s + 1;
}

/* a[i] and b[i] have the same bits for i < n; with any_nan, two NaNs also count as the same:
 * the sign of the NaN that Swish or HardSwish makes of a NaN input is the compiler's choice of
 * operand order in a product (x86 keeps the first operand's NaN), not the kernel's. */
static int same_bits(const float *a, const float *b, int64_t n, int any_nan)
{
    for (int64_t i = 0; i < n; i++)
        if (memcmp(a + i, b + i, sizeof(float)) && !(any_nan && isnan(a[i]) && isnan(b[i])))
            return 0;
    return 1;
}

/* The epilogues y + res, Relu, Clip(-0.5, 0.75), res + y, Swish(0.75), HardSwish, in ep[6],
 * their operand res [total] made from the conv's output y: -y (exact cancellations), -0.0f,
 * inf and NaN among random values. The tests run the first 1, 4 and 6 of them. */
enum { EPILOGUE_COUNTS = 3 };
static const int epilogue_counts[EPILOGUE_COUNTS] = {1, 4, 6};

static void epilogue_setup(int64_t total, const float *y, float *res, struct ConvEpilogue ep[6])
{
    for (int64_t i = 0; i < total; i++)
        res[i] = i % 11 == 0   ? -y[i]
                 : i % 17 == 0 ? -0.0f
                 : i % 23 == 0 ? INFINITY
                 : i % 29 == 0 ? NAN
                               : rnd();
    const struct ConvEpilogue e[6] = {
        {CONV_EP_ADD, 0, 0.0f, 0.0f, res},     {CONV_EP_RELU, 0, 0.0f, 0.0f, NULL},
        {CONV_EP_CLIP, 0, -0.5f, 0.75f, NULL}, {CONV_EP_ADD, 1, 0.0f, 0.0f, res},
        {CONV_EP_SWISH, 0, 0.75f, 0.0f, NULL}, {CONV_EP_HARD_SWISH, 0, 0.0f, 0.0f, NULL}};
    memcpy(ep, e, sizeof e);
}

/* e = the first nep epilogues applied to the conv's output y as the passes the compiler emits
 * without tile epilogues: add_f32, relu_f32, clip_f32, add_f32, swish_f32, hard_swish_f32. */
static void epilogue_passes(int64_t total, int nep, const float *y, const float *res, float *e)
{
    const int64_t dims[1] = {total}, one[1] = {1};
    add_f32(1, dims, one, one, y, res, e);
    if (nep >= 4) {
        relu_f32(total, e, e);
        clip_f32(total, -0.5f, 0.75f, e, e);
        add_f32(1, dims, one, one, res, e, e);
    }
    if (nep == 6) {
        swish_f32(total, 0.75f, e, e);
        hard_swish_f32(total, e, e);
    }
}

#endif
