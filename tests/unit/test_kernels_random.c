/* Unit test of templates/random.c: MT19937 against its published reference outputs and
 * numpy.random.RandomState(0).random_sample(); seeded Dropout by hand. */
#include "../../templates/random.c"

#include <stdio.h>

#include "check.h"

static void test_mt19937(void)
{
    uint32_t mt[625];
    mt19937_seed(mt, 5489u); /* the reference implementation's default seed */
    check(mt19937_next(mt) == 3499211612u, "mt19937 first output for seed 5489");
    check(mt19937_next(mt) == 581869302u, "mt19937 second output for seed 5489");
    /* past the first refill: the 10000th output of the default seed is 4123659995 */
    for (int i = 2; i < 9999; i++)
        mt19937_next(mt);
    check(mt19937_next(mt) == 4123659995u, "mt19937 10000th output");
    mt19937_seed(mt, 0u);
    /* numpy.random.RandomState(0).random_sample(2) */
    const double u0 = mt19937_double(mt), u1 = mt19937_double(mt);
    check(u0 == 0.5488135039273248 && u1 == 0.7151893663724195, "random_sample of seed 0");
}

static void test_dropout(void)
{
    /* seed 0 draws 0.5488, 0.7152, 0.6028, 0.5449: ratio 0.6 keeps draws 1 and 2; the scale is
     * 1 / (1 - 0.6f) in float, 2.5000002 */
    volatile float one_minus = 1.0f - 0.6f;
    const float s = 1.0f / one_minus;
    const float x[4] = {1.0f, -2.0f, 4.0f, -8.0f};
    float y[4];
    uint8_t m[4];
    dropout_f32(4, 0u, 0.6f, x, y, m);
    check(y[0] == 0.0f && y[1] == -2.0f * s && y[2] == 4.0f * s && y[3] == 0.0f, "dropout values");
    check(m[0] == 0 && m[1] == 1 && m[2] == 1 && m[3] == 0, "dropout mask");
    dropout_f32(4, 0u, 0.6f, x, y, NULL);
    check(y[1] == -2.0f * s, "dropout without a mask, same draws on every call");
}

int main(void)
{
    test_mt19937();
    test_dropout();
    printf("%d passed, %d failed\n", n_passed, n_failed);
    return n_failed != 0;
}
