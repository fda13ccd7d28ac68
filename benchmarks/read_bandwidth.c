/* read_bandwidth.c - single-core read bandwidth from each level of the cache, the floor under
 * every product that reads its weights once per use: a recurrent step at batch 1 reads its
 * whole recurrent weight (conv_lstm's LSTM-128: 4*128 x 128 floats, 256 KiB) for one fma per
 * element, so it runs at the speed its weight streams in, not at the FMA peak.
 *
 *   cc -O3 -march=native benchmarks/read_bandwidth.c -o read_bandwidth && ./read_bandwidth
 *
 * Prints one line per buffer size, `kib=K gbytes_per_s=B us_per_pass=T`: the buffer is summed
 * over and over (8 independent vector sums, so that no addition waits on another: only the
 * loads limit the loop), and T is the time of one pass over it. A buffer that fits L1 shows
 * the load units; one between L1 and L2 the L2's bandwidth; one beyond L3 the DRAM's. The
 * figure is the fastest of REPEATS runs of the thread's CPU time (as fma_peak.c). GNU C vector
 * types, gcc or clang.
 */
#define _POSIX_C_SOURCE 200112L
#include <stdio.h>
#include <stdlib.h>

#include "peak_vec.h"

#define REPEATS 20

/* passes sums over v[0 .. n-1] (n a multiple of 8); returns its CPU seconds. */
static double run(const vec *v, long n, long passes)
{
    vec s0 = {0}, s1 = {0}, s2 = {0}, s3 = {0}, s4 = {0}, s5 = {0}, s6 = {0}, s7 = {0};
    const double t0 = cpu_seconds();
    for (long p = 0; p < passes; p++)
        for (long i = 0; i < n; i += 8) {
            s0 += v[i];
            s1 += v[i + 1];
            s2 += v[i + 2];
            s3 += v[i + 3];
            s4 += v[i + 4];
            s5 += v[i + 5];
            s6 += v[i + 6];
            s7 += v[i + 7];
        }
    const double t = cpu_seconds() - t0;
    const vec s = ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7));
    for (int l = 0; l < LANES; l++)
        sink += s[l];
    return t;
}

int main(void)
{
    static const long kib[] = {16, 128, 256, 512, 4096, 65536};
    for (size_t k = 0; k < sizeof kib / sizeof kib[0]; k++) {
        const long bytes = kib[k] * 1024, n = bytes / VEC_BYTES;
        vec *v = NULL;
        if (posix_memalign((void **)&v, 64, (size_t)bytes)) {
            fprintf(stderr, "read_bandwidth: out of memory\n");
            return 1;
        }
        for (long i = 0; i < n; i++)
            for (int l = 0; l < LANES; l++)
                v[i][l] = (float)((i * LANES + l) % 1000) * 1e-3f;
        /* about 64 MiB read per run: long enough for the clock, short enough to dodge the
         * scheduler */
        const long passes = (64L << 20) / bytes > 0 ? (64L << 20) / bytes : 1;
        double best = 1e30;
        for (int r = 0; r < REPEATS; r++) {
            const double t = run(v, n, passes);
            best = t < best ? t : best;
        }
        printf("kib=%ld gbytes_per_s=%.1f us_per_pass=%.3f\n", kib[k],
               (double)bytes * passes / best * 1e-9, best / passes * 1e6);
        free(v);
    }
    return 0;
}
