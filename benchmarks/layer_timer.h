/* layer_timer.h — the timer of the per-layer benchmark programs (conv_layers.c,
 * depthwise_layers.c, qconv_layers.c), so that their figures are measured the same way.
 *
 * Timing: interleaved rounds; in each round every layer and kernel runs a few samples and keeps
 * their median; the figure is the minimum of the per-round medians. Samples are thread CPU time:
 * time the scheduler gives to other processes does not count, which keeps figures usable on a
 * shared machine. The programs print figures only and never fail on time.
 *
 * Include it after defining _POSIX_C_SOURCE (200809L) before the first system header:
 * clock_gettime and CLOCK_THREAD_CPUTIME_ID are POSIX, not C99. */
#ifndef LAYER_TIMER_H
#define LAYER_TIMER_H

#include <stdlib.h>
#include <time.h>

#include "../templates/vector_width.h"

/* Thread CPU time in seconds. */
static inline double layer_now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static inline int layer_cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Sorts the n samples t and returns their median (the upper one for even n). */
static inline double layer_median_s(double *t, int n)
{
    qsort(t, (size_t)n, sizeof t[0], layer_cmp_double);
    return t[n / 2];
}

/* *best = min(*best, median of the n samples t): called once per round, it leaves the minimum
 * of the per-round medians. Start *best at a large value (1e30). */
static inline void layer_keep_best(double *best, double *t, int n)
{
    const double m = layer_median_s(t, n);
    if (m < *best)
        *best = m;
}

#endif
