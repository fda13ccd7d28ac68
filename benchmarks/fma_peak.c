/* fma_peak.c - single-core FP32 fused multiply-add throughput, the peak bench.py divides by.
 *
 *   cc -O3 -march=native -ffp-contract=fast benchmarks/fma_peak.c -o fma_peak && ./fma_peak
 *
 * Prints `peak_gflops=X width=W chains=24`: GFLOP/s of the widest vector registers -march
 * allows (W bytes: 64 with AVX-512, 32 with AVX, else 16), one FMA counted as 2 operations.
 *
 * 24 independent chains, acc = acc * m + c, each in a variable of its own so that all stay in
 * registers: the FMA units never wait on a result (on the AVX-512 EPYC 16 chains were not
 * enough: 235 against 288 GFLOP/s). The vectors are GNU C vector types (gcc and clang); the
 * build must contract a * b + c into one FMA, which -ffp-contract=fast makes sure of. m and c
 * keep every value finite and normal (the chains converge to c / (1 - m)). The figure is the
 * fastest of REPEATS short runs in the thread's CPU time: on a shared machine, time the
 * scheduler gives to other processes does not count, and a short run is more likely to see
 * neither an interruption nor a lower clock.
 */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>

#include "peak_vec.h"

#define CHAINS  24
#define ITERS   100000L /* per run: 2.4 M vector FMAs, well under a millisecond */
#define REPEATS 400

/* One run of ITERS rounds of CHAINS FMAs; returns its CPU seconds. */
static double run(vec m, vec c, vec start)
{
    vec a0 = start, a1 = start + 1, a2 = start + 2, a3 = start + 3, a4 = start + 4, a5 = start + 5,
        a6 = start + 6, a7 = start + 7, a8 = start + 8, a9 = start + 9, a10 = start + 10,
        a11 = start + 11, a12 = start + 12, a13 = start + 13, a14 = start + 14, a15 = start + 15,
        a16 = start + 16, a17 = start + 17, a18 = start + 18, a19 = start + 19, a20 = start + 20,
        a21 = start + 21, a22 = start + 22, a23 = start + 23;
    double t0 = cpu_seconds(), t;
    long i;
    for (i = 0; i < ITERS; i++) {
        a0 = a0 * m + c, a1 = a1 * m + c, a2 = a2 * m + c, a3 = a3 * m + c;
        a4 = a4 * m + c, a5 = a5 * m + c, a6 = a6 * m + c, a7 = a7 * m + c;
        a8 = a8 * m + c, a9 = a9 * m + c, a10 = a10 * m + c, a11 = a11 * m + c;
        a12 = a12 * m + c, a13 = a13 * m + c, a14 = a14 * m + c, a15 = a15 * m + c;
        a16 = a16 * m + c, a17 = a17 * m + c, a18 = a18 * m + c, a19 = a19 * m + c;
        a20 = a20 * m + c, a21 = a21 * m + c, a22 = a22 * m + c, a23 = a23 * m + c;
    }
    t = cpu_seconds() - t0;
    a0 += a1 + a2 + a3 + a4 + a5 + a6 + a7 + a8 + a9 + a10 + a11;
    a0 += a12 + a13 + a14 + a15 + a16 + a17 + a18 + a19 + a20 + a21 + a22 + a23;
    sink = a0[0];
    return t;
}

int main(void)
{
    vec m, c, start;
    double best = 1e30;
    int l, r;
    for (l = 0; l < LANES; l++) {
        m[l] = 0.999999f;
        c[l] = 1e-6f;
        start[l] = (float)l;
    }
    for (r = 0; r < REPEATS; r++) {
        double t = run(m, c, start);
        best = t > 0 && t < best ? t : best;
    }
    printf("peak_gflops=%.1f width=%d chains=%d\n",
           2.0 * LANES * CHAINS * (double)ITERS / best / 1e9, VEC_BYTES, CHAINS);
    return 0;
}
