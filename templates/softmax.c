/* softmax.c — Softmax and LogSoftmax along one axis.
 *
 * Layout of both kernels: x and y viewed as [outer][n][inner] (outer = product of the dims
 * before the axis, n = the axis, inner = product of the dims after it); each of the
 * outer*inner lines x[o][0..n-1][j] is normalised on its own. y may be x (in place): each
 * line is read completely before any element of it is written, or element by element.
 *
 * Numerics, per line, in this order:
 *   m = max of the line: SOFTMAX_LANES running maxima, each started at x[0], lane c taking
 *       x[c], x[c+16], ... by "x > lane ? x : lane", then folded in halves like the sum
 *       below. A max is exact, so m is the value of one serial scan (of two equal zeros
 *       either may win, which no later step can tell apart: x - m differs for m = +0 and -0
 *       only when x is -0, and then in the sign of a zero, which exp maps to 1 and from which
 *       logsoftmax subtracts log(s) >= log(2)). A NaN first makes every lane and so m NaN; a
 *       NaN elsewhere is skipped by the comparison, but it still turns its own exp and so
 *       the whole line into NaN. Unlike the serial scan (a 65-long chain of compares per
 *       attention line, most of the kernel's time) the lanes vectorise.
 *   e[i] = expf(x[i] - m); when every d = x[i] - m of the line is >= -87 or <= -104 (-inf
 *       included; no NaN), softmax takes it from o2c_expf_normal, which gives o2c_expf's
 *       bits there at 2/3 of the cost (mathfn.c), or as +0 for d <= -104 (o2c_expf's value
 *       there: masked attention's -inf); the line's lane min (taken with the max) shows that
 *       in one test for most lines (min - m >= -87), others are checked element by element
 *   softmax:    s = the lane sum of e (below);  y[i] = e[i] / s
 *   logsoftmax: s = e[0] + e[1] + ... + e[n-1], plain additions in ascending index order;
 *               y[i] = (x[i] - m) - logf(s)
 * The lane sum (softmax_line_exps): SOFTMAX_LANES = 16 partial sums from +0, lane c adding
 * e[c], e[c+16], e[c+32], ... in ascending order; then lanes folded in halves, lane[c] =
 * lane[c] + lane[c+w] for w = 8, 4, 2, 1; s = lane[0]. One fixed order on every backend and
 * in constant folding; unlike one serial sum it vectorises (attention's 65-long lines: the
 * serial sum's 4-cycle chain was most of the kernel).
 * Nothing is contracted into an fma (gcc: ISO mode; clang: the pragma below).
 *
 * Part of the templates: the compiler pastes this text into the generated C file and also
 * links it to fold constants. It includes only standard headers and defines every function
 * with O2C_KERNEL, which the includer sets (generated code: static; compiler: empty).
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "mathfn.c" /* o2c_expf, ...: the transcendentals of every template */

#ifndef O2C_KERNEL
#define O2C_KERNEL static
#endif

#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

#define SOFTMAX_LANES 16 /* the folds (o2c_lane_sum16 and the two below) take 16 */

/* Softmax and LogSoftmax over lines x[0], x[inner], ..., x[(n-1)*inner], for float (expf,
 * logf) and double (exp, log): the same steps in the same order for both types. */
#define O2C_SOFTMAX_KERNELS(SUF, T, EXP, EXP_NORMAL, HAS_NORMAL, LOG, SELECT)                      \
    /* EXP_NORMAL: EXP on [-87, 87] at less cost, where HAS_NORMAL (float32) */                    \
    /* The lane max and min folded in halves like the sum (mathfn.c's o2c_lane_sum16): lane[c] =   \
     * "b > a ? b : a" (max) or "b < a ? b : a" (min) of a = lane[c], b = lane[c + w]. */          \
    static inline T softmax_fold_max_##SUF(const T l[SOFTMAX_LANES])                               \
    {                                                                                              \
        T h[8], q[4];                                                                              \
        for (int c = 0; c < 8; c++)                                                                \
            h[c] = l[c + 8] > l[c] ? l[c + 8] : l[c];                                              \
        for (int c = 0; c < 4; c++)                                                                \
            q[c] = h[c + 4] > h[c] ? h[c + 4] : h[c];                                              \
        const T d0 = q[2] > q[0] ? q[2] : q[0], d1 = q[3] > q[1] ? q[3] : q[1];                    \
        return d1 > d0 ? d1 : d0;                                                                  \
    }                                                                                              \
    static inline T softmax_fold_min_##SUF(const T l[SOFTMAX_LANES])                               \
    {                                                                                              \
        T h[8], q[4];                                                                              \
        for (int c = 0; c < 8; c++)                                                                \
            h[c] = l[c + 8] < l[c] ? l[c + 8] : l[c];                                              \
        for (int c = 0; c < 4; c++)                                                                \
            q[c] = h[c + 4] < h[c] ? h[c + 4] : h[c];                                              \
        const T d0 = q[2] < q[0] ? q[2] : q[0], d1 = q[3] < q[1] ? q[3] : q[1];                    \
        return d1 < d0 ? d1 : d0;                                                                  \
    }                                                                                              \
                                                                                                   \
    /* Max of the line; n >= 1: the lane max documented above, the value of a serial scan.         \
     * With n >= SOFTMAX_LANES the last partial block is the last SOFTMAX_LANES elements (seen     \
     * twice: a max does not change). The unroll pragmas keep gcc from unrolling the lane loop     \
     * into 16 scalar chains, which it then fails to vectorise (gcc 12). *lo gets the lane min     \
     * of the same loads (the min of the line, or NaN when x[0] is NaN).                           \
     */                                                                                            \
    static inline T softmax_line_range_##SUF(int64_t n, int64_t inner, const T *x, T *lo)          \
    {                                                                                              \
        T lane[SOFTMAX_LANES], low[SOFTMAX_LANES];                                                 \
        for (int c = 0; c < SOFTMAX_LANES; c++)                                                    \
            lane[c] = low[c] = x[0];                                                               \
        int64_t i = 0;                                                                             \
        for (; i + SOFTMAX_LANES <= n; i += SOFTMAX_LANES) {                                       \
            const T *p = x + i * inner;                                                            \
            _Pragma("GCC unroll 1") for (int c = 0; c < SOFTMAX_LANES; c++)                        \
            {                                                                                      \
                lane[c] = p[c * inner] > lane[c] ? p[c * inner] : lane[c];                         \
                low[c] = p[c * inner] < low[c] ? p[c * inner] : low[c];                            \
            }                                                                                      \
        }                                                                                          \
        if (i < n && n >= SOFTMAX_LANES) {                                                         \
            const T *p = x + (n - SOFTMAX_LANES) * inner;                                          \
            _Pragma("GCC unroll 1") for (int c = 0; c < SOFTMAX_LANES; c++)                        \
            {                                                                                      \
                lane[c] = p[c * inner] > lane[c] ? p[c * inner] : lane[c];                         \
                low[c] = p[c * inner] < low[c] ? p[c * inner] : low[c];                            \
            }                                                                                      \
        } else {                                                                                   \
            for (int c = 0; i + c < n; c++) {                                                      \
                lane[c] = x[(i + c) * inner] > lane[c] ? x[(i + c) * inner] : lane[c];             \
                low[c] = x[(i + c) * inner] < low[c] ? x[(i + c) * inner] : low[c];                \
            }                                                                                      \
        }                                                                                          \
        *lo = softmax_fold_min_##SUF(low);                                                         \
        return softmax_fold_max_##SUF(lane);                                                       \
    }                                                                                              \
                                                                                                   \
    O2C_KERNEL T softmax_line_max_##SUF(int64_t n, int64_t inner, const T *x)                      \
    {                                                                                              \
        T lo;                                                                                      \
        return softmax_line_range_##SUF(n, inner, x, &lo);                                         \
    }                                                                                              \
                                                                                                   \
    /* e^d as the line's pass takes it: EXP_NORMAL (+0 below -87) where normal; the exp of         \
     * every d is computed and then chosen (SELECT), so gcc if-converts and vectorises. */         \
    static inline T softmax_exp_##SUF(T d, int normal)                                             \
    {                                                                                              \
        if (!normal)                                                                               \
            return EXP(d);                                                                         \
        const T dc = SELECT(d < -87, -87, d);                                                      \
        return SELECT(d < -87, 0, EXP_NORMAL(dc));                                                 \
    }                                                                                              \
                                                                                                   \
    /* y = the exps of the line and their lane sum (above: lane c adds the elements c, c+16, ...   \
     * as they are computed). normal is a constant where it is inlined. */                         \
    static inline T softmax_line_exps_##SUF(int64_t n, int64_t inner, const T *xl, T m,            \
                                            int normal, T *yl)                                     \
    {                                                                                              \
        T lane[SOFTMAX_LANES];                                                                     \
        for (int c = 0; c < SOFTMAX_LANES; c++)                                                    \
            lane[c] = 0;                                                                           \
        int64_t i = 0;                                                                             \
        for (; i + SOFTMAX_LANES <= n; i += SOFTMAX_LANES)                                         \
            for (int c = 0; c < SOFTMAX_LANES; c++) {                                              \
                const T e = softmax_exp_##SUF(xl[(i + c) * inner] - m, normal);                    \
                yl[(i + c) * inner] = e;                                                           \
                lane[c] = lane[c] + e;                                                             \
            }                                                                                      \
        for (int c = 0; i + c < n; c++) {                                                          \
            const T e = softmax_exp_##SUF(xl[(i + c) * inner] - m, normal);                        \
            yl[(i + c) * inner] = e;                                                               \
            lane[c] = lane[c] + e;                                                                 \
        }                                                                                          \
        return o2c_lane_sum16_##SUF(lane);                                                         \
    }                                                                                              \
                                                                                                   \
    /* One line: the exps go to y with their lane sum, then the division; no loop carries a        \
     * dependency from one element to the next, so each vectorises. The range check needs no       \
     * pass of its own when the line's min - m >= -87: x - m is monotone in x, so every d then     \
     * is (a NaN min fails that test, and the line is checked element by element). */              \
    static inline void softmax_line_##SUF(int64_t n, int64_t inner, const T *xl, T *yl)            \
    {                                                                                              \
        T lo;                                                                                      \
        const T m = softmax_line_range_##SUF(n, inner, xl, &lo);                                   \
        /* every d in EXP_NORMAL's domain, or where EXP is +0 */                                   \
        int normal = HAS_NORMAL && lo - m >= -87;                                                  \
        if (HAS_NORMAL && !normal) {                                                               \
            normal = 1;                                                                            \
            for (int64_t i = 0; i < n; i++) {                                                      \
                const T d = xl[i * inner] - m;                                                     \
                normal &= (d >= -87) | (d <= -104);                                                \
            }                                                                                      \
        }                                                                                          \
        const T s = normal ? softmax_line_exps_##SUF(n, inner, xl, m, 1, yl)                       \
                           : softmax_line_exps_##SUF(n, inner, xl, m, 0, yl);                      \
        for (int64_t i = 0; i < n; i++)                                                            \
            yl[i * inner] = yl[i * inner] / s;                                                     \
    }                                                                                              \
                                                                                                   \
    O2C_KERNEL void softmax_##SUF(int64_t outer, int64_t n, int64_t inner, const T *x, T *y)       \
    {                                                                                              \
        if (n <= 0)                                                                                \
            return;                                                                                \
        for (int64_t o = 0; o < outer; o++) {                                                      \
            if (inner == 1) { /* the usual last axis: contiguous lines */                          \
                softmax_line_##SUF(n, 1, x + o * n, y + o * n);                                    \
                continue;                                                                          \
            }                                                                                      \
            for (int64_t j = 0; j < inner; j++) /* the line, elements inner apart */               \
                softmax_line_##SUF(n, inner, x + o * n * inner + j, y + o * n * inner + j);        \
        }                                                                                          \
    }                                                                                              \
                                                                                                   \
    O2C_KERNEL void logsoftmax_##SUF(int64_t outer, int64_t n, int64_t inner, const T *x, T *y)    \
    {                                                                                              \
        if (n <= 0)                                                                                \
            return;                                                                                \
        for (int64_t o = 0; o < outer; o++) {                                                      \
            for (int64_t j = 0; j < inner; j++) {                                                  \
                const T *xl = x + o * n * inner + j;                                               \
                T *yl = y + o * n * inner + j;                                                     \
                const T m = softmax_line_max_##SUF(n, inner, xl);                                  \
                T s = 0;                                                                           \
                for (int64_t i = 0; i < n; i++)                                                    \
                    s = s + EXP(xl[i * inner] - m);                                                \
                const T log_s = LOG(s);                                                            \
                for (int64_t i = 0; i < n; i++)                                                    \
                    yl[i * inner] = (xl[i * inner] - m) - log_s;                                   \
            }                                                                                      \
        }                                                                                          \
    }

/* c ? a : b for doubles (libm's exp: no vector loop to keep) */
static inline double softmax_select_f64(int c, double a, double b)
{
    return c ? a : b;
}

O2C_SOFTMAX_KERNELS(f32, float, o2c_expf, o2c_expf_normal, 1, o2c_logf, o2c_select)
O2C_SOFTMAX_KERNELS(f64, double, exp, exp, 0, log, softmax_select_f64)

#undef O2C_SOFTMAX_KERNELS
