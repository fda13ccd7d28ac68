/* peak_vec.h — what fma_peak.c and read_bandwidth.c share: the widest vector registers -march
 * allows as a GNU C vector type (VEC_BYTES: 64 with AVX-512, 32 with AVX, else 16), the
 * thread's CPU time, and a sink that keeps results alive.
 *
 * Include it after defining _POSIX_C_SOURCE (199309L or later) before the first system header:
 * clock_gettime and CLOCK_THREAD_CPUTIME_ID are POSIX, not C99. */
#ifndef PEAK_VEC_H
#define PEAK_VEC_H

#include <time.h>

#if defined(__AVX512F__)
#define VEC_BYTES 64
#elif defined(__AVX__)
#define VEC_BYTES 32
#else
#define VEC_BYTES 16
#endif
#define LANES (VEC_BYTES / 4)

typedef float vec __attribute__((vector_size(VEC_BYTES)));

/* The thread's CPU time in seconds: time the scheduler gives to other processes does not
 * count. */
static double cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* sink keeps the results alive, so the loops cannot be removed. */
static volatile float sink;

#endif
