/* softmax.c — Softmax and LogSoftmax along one axis.
 *
 * Layout of both kernels: x and y viewed as [outer][n][inner] (outer = product of the dims
 * before the axis, n = the axis, inner = product of the dims after it); each of the
 * outer*inner lines x[o][0..n-1][j] is normalised on its own. y may be x (in place): each
 * line is read completely before any element of it is written, or element by element.
 *
 * Numerics, per line, in this order:
 *   m = max of the line (ascending index; a NaN elsewhere than first is skipped by the
 *       comparison, but it still turns its own exp and so the whole line into NaN)
 *   e[i] = expf(x[i] - m)
 *   s = e[0] + e[1] + ... + e[n-1], plain float additions in ascending index order
 *   softmax:    y[i] = e[i] / s
 *   logsoftmax: y[i] = (x[i] - m) - logf(s)
 * Nothing is contracted into an fma (gcc: ISO mode; clang: the pragma below).
 *
 * Part of the templates: the compiler pastes this text into the generated C file and also
 * links it to fold constants. It includes only standard headers and defines every function
 * with O2C_KERNEL, which the includer sets (generated code: static; compiler: empty).
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

/* Max of the line x[0], x[inner], ..., x[(n-1)*inner]; n >= 1. */
O2C_KERNEL float softmax_line_max(int64_t n, int64_t inner, const float *x)
{
    float m = x[0];
    for (int64_t i = 1; i < n; i++)
        if (x[i * inner] > m)
            m = x[i * inner];
    return m;
}

O2C_KERNEL void softmax_f32(int64_t outer, int64_t n, int64_t inner, const float *x, float *y)
{
    if (n <= 0)
        return;
    for (int64_t o = 0; o < outer; o++) {
        for (int64_t j = 0; j < inner; j++) {
            const float *xl = x + o * n * inner + j; /* the line, elements inner apart */
            float *yl = y + o * n * inner + j;
            const float m = softmax_line_max(n, inner, xl);
            float s = 0.0f;
            for (int64_t i = 0; i < n; i++) {
                const float e = expf(xl[i * inner] - m);
                yl[i * inner] = e;
                s = s + e;
            }
            for (int64_t i = 0; i < n; i++)
                yl[i * inner] = yl[i * inner] / s;
        }
    }
}

O2C_KERNEL void logsoftmax_f32(int64_t outer, int64_t n, int64_t inner, const float *x, float *y)
{
    if (n <= 0)
        return;
    for (int64_t o = 0; o < outer; o++) {
        for (int64_t j = 0; j < inner; j++) {
            const float *xl = x + o * n * inner + j; /* the line, elements inner apart */
            float *yl = y + o * n * inner + j;
            const float m = softmax_line_max(n, inner, xl);
            float s = 0.0f;
            for (int64_t i = 0; i < n; i++)
                s = s + expf(xl[i * inner] - m);
            const float log_s = logf(s);
            for (int64_t i = 0; i < n; i++)
                yl[i * inner] = (xl[i * inner] - m) - log_s;
        }
    }
}

/* float64 versions for double models: the same steps with exp and log in double. */
O2C_KERNEL double softmax_line_max_f64(int64_t n, int64_t inner, const double *x)
{
    double m = x[0];
    for (int64_t i = 1; i < n; i++)
        if (x[i * inner] > m)
            m = x[i * inner];
    return m;
}

O2C_KERNEL void softmax_f64(int64_t outer, int64_t n, int64_t inner, const double *x, double *y)
{
    if (n <= 0)
        return;
    for (int64_t o = 0; o < outer; o++) {
        for (int64_t j = 0; j < inner; j++) {
            const double *xl = x + o * n * inner + j; /* the line, elements inner apart */
            double *yl = y + o * n * inner + j;
            const double m = softmax_line_max_f64(n, inner, xl);
            double s = 0.0;
            for (int64_t i = 0; i < n; i++) {
                const double e = exp(xl[i * inner] - m);
                yl[i * inner] = e;
                s = s + e;
            }
            for (int64_t i = 0; i < n; i++)
                yl[i * inner] = yl[i * inner] / s;
        }
    }
}

O2C_KERNEL void logsoftmax_f64(int64_t outer, int64_t n, int64_t inner, const double *x,
                               double *y)
{
    if (n <= 0)
        return;
    for (int64_t o = 0; o < outer; o++) {
        for (int64_t j = 0; j < inner; j++) {
            const double *xl = x + o * n * inner + j; /* the line, elements inner apart */
            double *yl = y + o * n * inner + j;
            const double m = softmax_line_max_f64(n, inner, xl);
            double s = 0.0;
            for (int64_t i = 0; i < n; i++)
                s = s + exp(xl[i * inner] - m);
            const double log_s = log(s);
            for (int64_t i = 0; i < n; i++)
                yl[i * inner] = (xl[i * inner] - m) - log_s;
        }
    }
}
