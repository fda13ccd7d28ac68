/* check.h — the pass/fail bookkeeping the kernel tests share: check() counts and reports
 * each assertion; main() prints "N passed, M failed" from n_passed/n_failed. With
 * CHECK_WITH_RND defined (after a `static uint32_t rng_state = SEED;`), rnd() gives
 * deterministic floats of varied magnitude in about [-4, 4). With CHECK_WITH_ALLOC,
 * alloc_floats(n) gives n floats and one of slack, or ends the test. */
#ifndef CHECK_H
#define CHECK_H

#include <stdint.h>
#include <stdio.h>

static int n_passed, n_failed;

static void check(int ok, const char *what)
{
    if (ok) {
        n_passed++;
    } else {
        n_failed++;
        printf("FAIL: %s\n", what);
    }
}

#ifdef CHECK_WITH_RND
#include <math.h>

static float rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 17;
    rng_state ^= rng_state << 5;
    const float m = (float)(rng_state >> 8) / 16777216.0f - 0.5f;
    return ldexpf(m, (int)(rng_state & 7u) - 3);
}
#endif

#ifdef CHECK_WITH_ALLOC
#include <stdlib.h>

static float *alloc_floats(int64_t n)
{
    float *p = malloc((size_t)(n + 1) * sizeof(float));
    if (!p) {
        printf("FAIL: out of memory\n");
        exit(1);
    }
    return p;
}
#endif

#endif
