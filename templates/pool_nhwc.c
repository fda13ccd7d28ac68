/* pool_nhwc.c — MaxPool, AveragePool and GlobalAveragePool (2-D and 1-D) on channels-last
 * tensors: x [N][H][W][C] -> y [N][OH][OW][C]; the geometry is depthwise_nhwc.c's array
 * geo[NHWC_GEO_LEN] (1-D: H = KH = OH = 1, stride_h = dil_h = 1, pad_t = pad_b = 0).
 *
 * Numerics: the bits of pool.c's NCHW kernels, element by element: the same window taps
 * (kh, then kw, ascending), the same rules for taps in the padding and past it (ceil_mode),
 * sums as plain float additions from +0.0f in tap order and one division by the count, max as
 * x > max from -INFINITY (NaNs skipped). Only the loop over channels moves inside, where it is
 * contiguous and vectorises; each channel's own chain of operations is unchanged. So the layout
 * never changes a result. GlobalAveragePool (and ReduceMean over H and W, which reduce.c
 * computes with the same sum and division) is global_avgpool_nhwc_f32.
 *
 * Part of the templates: the compiler pastes this text into the generated C file (after
 * depthwise_nhwc.c) and also links it to fold constants. It includes only standard headers
 * (and kernels.h where it is compiled alone) and defines every function with O2C_KERNEL, which
 * the includer sets (generated code: static; compiler: empty).
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>

#ifndef O2C_KERNEL
#define O2C_KERNEL static
#endif

#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

/* The geometry array's NHWC_GEO_* indices are depthwise_nhwc.c's: the generated file pastes it
 * first (the pool ops list "depthwise_nhwc pool_nhwc"); the compiler's own build of this file
 * alone takes them from kernels.h, which declares the same under the same guard. */
#ifndef O2C_NHWC_GEO
#include "kernels.h"
#endif

/* MaxPool's channel blocks: POOL_NHWC_CB channels of one output position in loops of that
 * fixed count, which gcc and clang turn into POOL_NHWC_V whole vectors of POOL_NHWC_L lanes (16:
 * AVX-512, 8: AVX, else 4) and keep in registers over a row of taps; one loop over C per tap
 * instead ran in vector steps with a remainder and bounds tests per tap: squeezenet1_1's pools
 * (111x111x64, 55x55x128, 27x27x256, 3x3 stride 2) 123-153, 41-42, 19-24 -> 98-107, 34-35, 16
 * us in the model (README). */
#if defined(__AVX512F__)
#define POOL_NHWC_L 16
#elif defined(__AVX__)
#define POOL_NHWC_L 8
#else
#define POOL_NHWC_L 4
#endif
enum { POOL_NHWC_V = 4, POOL_NHWC_CB = POOL_NHWC_V * POOL_NHWC_L };

/* in a function of its own (as depthwise_nhwc.c's tiles): inlined, clang's code took 1.6x the
 * time */
#if defined(__GNUC__) && !defined(__clang__)
#define O2C_POOL_NOINLINE __attribute__((noipa))
#elif defined(__GNUC__)
#define O2C_POOL_NOINLINE __attribute__((noinline))
#else
#define O2C_POOL_NOINLINE
#endif

/* clang unrolled the loops over the taps 8 times, which a 3x3 window never fills (squeezenet1_1's
 * 111x111x64 pool 147 -> 107 us with clang 14 without) */
#if defined(__clang__)
#define O2C_POOL_ROLLED _Pragma("clang loop unroll(disable)")
#else
#define O2C_POOL_ROLLED
#endif

/* y[l] = the max over taps (kh < nh, kw < nw, kh outer) of x[kh*rs + kw*cs + l] (x > max,
 * from -INFINITY) for l < width (inlined: POOL_NHWC_CB, or the channels of a narrow tensor).
 * The maxima in a local array, stored once: gcc stored y after every tap (squeezenet1_1's
 * 111x111x64 pool alone 104 -> 90 us). */
static inline void maxpool_nhwc_block(int64_t width, int64_t nh, int64_t nw, int64_t rs, int64_t cs,
                                      const float *restrict x, float *restrict y)
{
    float m[POOL_NHWC_CB];
    for (int64_t l = 0; l < width; l++)
        m[l] = -INFINITY;
    O2C_POOL_ROLLED
    for (int64_t kh = 0; kh < nh; kh++) {
        O2C_POOL_ROLLED
        for (int64_t kw = 0; kw < nw; kw++) {
            const float *restrict xp = x + kh * rs + kw * cs;
            for (int64_t l = 0; l < width; l++)
                m[l] = xp[l] > m[l] ? xp[l] : m[l];
        }
    }
    for (int64_t l = 0; l < width; l++)
        y[l] = m[l];
}

/* The same for l < POOL_NHWC_L, one vector, apart for its pragma: gcc must not unroll the
 * loop (it then leaves 16 scalar maxima that it does not vectorise back, 2.8x the time); clang
 * vectorises it either way, and took 5x the time with the pragma. */
#if defined(__GNUC__) && !defined(__clang__)
#define O2C_POOL_NO_UNROLL _Pragma("GCC unroll 1")
#else
#define O2C_POOL_NO_UNROLL
#endif
static inline void maxpool_nhwc_vector(int64_t nh, int64_t nw, int64_t rs, int64_t cs,
                                       const float *restrict x, float *restrict y)
{
    O2C_POOL_NO_UNROLL
    for (int l = 0; l < POOL_NHWC_L; l++)
        y[l] = -INFINITY;
    for (int64_t kh = 0; kh < nh; kh++)
        for (int64_t kw = 0; kw < nw; kw++) {
            const float *restrict xp = x + kh * rs + kw * cs;
            O2C_POOL_NO_UNROLL
            for (int l = 0; l < POOL_NHWC_L; l++)
                y[l] = xp[l] > y[l] ? xp[l] : y[l];
        }
}

/* The max of the windows of np positions, xs floats apart in x and C in y, for their
 * C >= POOL_NHWC_L channels: per position blocks of POOL_NHWC_CB, then vectors, the last at
 * C - POOL_NHWC_L (overlapping the one before it, the same bits). A row's positions in one call
 * (a call per position: squeezenet1_1's 111x111x64 pool alone 90 -> 72 us). */
O2C_POOL_NOINLINE static void maxpool_nhwc_points(int64_t np, int64_t xs, int64_t nh, int64_t nw,
                                                  int64_t rs, int64_t cs, int64_t C, const float *x,
                                                  float *y)
{
    for (int64_t p = 0; p < np; p++, x += xs, y += C) {
        int64_t c0 = 0;
        for (; c0 + POOL_NHWC_CB <= C; c0 += POOL_NHWC_CB)
            maxpool_nhwc_block(POOL_NHWC_CB, nh, nw, rs, cs, x + c0, y + c0);
        for (; c0 < C; c0 += POOL_NHWC_L) {
            const int64_t c = C - c0 < POOL_NHWC_L ? C - POOL_NHWC_L : c0;
            maxpool_nhwc_vector(nh, nw, rs, cs, x + c, y + c);
        }
    }
}

/* The first tap index t of 0 .. K-1 whose position o*S - P + t*D lies at or past 0 (lo), and
 * the first one past it that lies at or past E (hi): the taps inside [0, E) are lo .. hi-1. */
static void pool_nhwc_taps(int64_t o, int64_t S, int64_t P, int64_t D, int64_t K, int64_t E,
                           int64_t *lo, int64_t *hi)
{
    int64_t t = 0;
    while (t < K && o * S - P + t * D < 0)
        t++;
    *lo = t;
    while (t < K && o * S - P + t * D < E)
        t++;
    *hi = t;
}

/* MaxPool as maxpool_f32: the max over the window's taps inside the image (x > max, from
 * -INFINITY: NaNs skipped, a window without input taps gives -INFINITY), taps in (kh, kw)
 * order, by blocks of channels (maxpool_nhwc_point), fewer than one vector's by the plain
 * loop.
 *   geo [NHWC_GEO_LEN], x [N][H][W][C], y [N][OH][OW][C] (not x) */
O2C_KERNEL void maxpool_nhwc_f32(const int64_t *geo, const float *x, float *y)
{
    const int64_t N = geo[NHWC_GEO_N], H = geo[NHWC_GEO_H], W = geo[NHWC_GEO_W];
    const int64_t C = geo[NHWC_GEO_C], OH = geo[NHWC_GEO_OH], OW = geo[NHWC_GEO_OW];
    const int64_t KH = geo[NHWC_GEO_KH], KW = geo[NHWC_GEO_KW];
    const int64_t SH = geo[NHWC_GEO_SH], SW = geo[NHWC_GEO_SW];
    const int64_t PT = geo[NHWC_GEO_PT], PL = geo[NHWC_GEO_PL];
    const int64_t DH = geo[NHWC_GEO_DH], DW = geo[NHWC_GEO_DW];
    const int64_t rs = DH * W * C, cs = DW * C; /* the distances of taps in a column, a row */
    for (int64_t n = 0; n < N; n++)
        for (int64_t oh = 0; oh < OH; oh++) {
            int64_t h0, h1;
            pool_nhwc_taps(oh, SH, PT, DH, KH, H, &h0, &h1);
            for (int64_t ow = 0; ow < OW;) {
                int64_t w0, w1;
                pool_nhwc_taps(ow, SW, PL, DW, KW, W, &w0, &w1);
                float *restrict yp = y + ((n * OH + oh) * OW + ow) * C; /* [C] */
                /* the first tap inside the image (any address when there is none) */
                const float *xp = x + n * H * W * C;
                if (h1 > h0 && w1 > w0)
                    xp += ((oh * SH - PT + h0 * DH) * W + ow * SW - PL + w0 * DW) * C;
                const int64_t nh = h1 > h0 && w1 > w0 ? h1 - h0 : 0, nw = w1 - w0;
                int64_t np = 1; /* with the positions after it whose windows are as wide */
                if (w0 == 0 && w1 == KW)
                    while (ow + np < OW && (ow + np) * SW - PL + (KW - 1) * DW < W)
                        np++;
                if (C >= POOL_NHWC_L)
                    maxpool_nhwc_points(np, SW * C, nh, nw, rs, cs, C, xp, yp);
                else
                    for (int64_t p = 0; p < np; p++)
                        maxpool_nhwc_block(C, nh, nw, rs, cs, xp + p * SW * C, yp + p * C);
                ow += np;
            }
        }
}

/* AveragePool as avgpool_f32: the sum of the window's input taps from +0.0f in tap order,
 * divided by the count (count_include_pad != 0: the taps inside the padded extent
 * [-PT, H+PB) x [-PL, W+PR); else the taps inside the image; a count of 0 gives NaN).
 *   geo [NHWC_GEO_LEN], x [N][H][W][C], y [N][OH][OW][C] (not x) */
O2C_KERNEL void avgpool_nhwc_f32(const int64_t *geo, int count_include_pad, const float *x,
                                 float *y)
{
    const int64_t N = geo[NHWC_GEO_N], H = geo[NHWC_GEO_H], W = geo[NHWC_GEO_W];
    const int64_t C = geo[NHWC_GEO_C], OH = geo[NHWC_GEO_OH], OW = geo[NHWC_GEO_OW];
    const int64_t KH = geo[NHWC_GEO_KH], KW = geo[NHWC_GEO_KW];
    const int64_t SH = geo[NHWC_GEO_SH], SW = geo[NHWC_GEO_SW];
    const int64_t PT = geo[NHWC_GEO_PT], PL = geo[NHWC_GEO_PL];
    const int64_t PB = geo[NHWC_GEO_PB], PR = geo[NHWC_GEO_PR];
    const int64_t DH = geo[NHWC_GEO_DH], DW = geo[NHWC_GEO_DW];
    for (int64_t n = 0; n < N; n++)
        for (int64_t oh = 0; oh < OH; oh++)
            for (int64_t ow = 0; ow < OW; ow++) {
                float *restrict yp = y + ((n * OH + oh) * OW + ow) * C; /* [C] */
                int64_t n_in = 0, n_padded = 0; /* taps in the image / in the padded extent */
                for (int64_t c = 0; c < C; c++)
                    yp[c] = 0.0f;
                for (int64_t kh = 0; kh < KH; kh++) {
                    const int64_t ih = oh * SH - PT + kh * DH;
                    const int h_in = ih >= 0 && ih < H, h_padded = ih >= -PT && ih < H + PB;
                    for (int64_t kw = 0; kw < KW; kw++) {
                        const int64_t iw = ow * SW - PL + kw * DW;
                        const int w_in = iw >= 0 && iw < W, w_padded = iw >= -PL && iw < W + PR;
                        n_padded += h_padded && w_padded;
                        if (!h_in || !w_in)
                            continue;
                        n_in++;
                        const float *restrict xp = x + ((n * H + ih) * W + iw) * C;
                        for (int64_t c = 0; c < C; c++)
                            yp[c] = yp[c] + xp[c];
                    }
                }
                const float count = (float)(count_include_pad ? n_padded : n_in);
                for (int64_t c = 0; c < C; c++)
                    yp[c] = yp[c] / count;
            }
}

/* GlobalAveragePool as global_avgpool_f32 (and ReduceMean over H, W as reduce_mean_f32):
 * y[n][c] = (x[n][0][c] + x[n][1][c] + ... + x[n][HW-1][c]) / HW, summed from +0.0f in order.
 *   x [N][HW][C], y [N][C] (not x; the same memory as [N][1][1][C] and [N][C][1][1]) */
O2C_KERNEL void global_avgpool_nhwc_f32(int64_t N, int64_t HW, int64_t C, const float *x, float *y)
{
    for (int64_t n = 0; n < N; n++) {
        float *restrict yn = y + n * C;
        for (int64_t c = 0; c < C; c++)
            yn[c] = 0.0f;
        for (int64_t p = 0; p < HW; p++) {
            const float *restrict xp = x + (n * HW + p) * C;
            for (int64_t c = 0; c < C; c++)
                yn[c] = yn[c] + xp[c];
        }
        for (int64_t c = 0; c < C; c++)
            yn[c] = yn[c] / (float)HW;
    }
}
