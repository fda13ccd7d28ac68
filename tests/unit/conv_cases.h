/* conv_cases.h — what the float conv kernel tests (test_kernels_conv.c, test_kernels_conv_nhwc.c)
 * share: a 2-D conv case, the output size of one of its dims, and a bit comparison. Include it
 * after the templates (it uses memcmp and isnan). */
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

#endif
