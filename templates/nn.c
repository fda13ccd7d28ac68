/* nn.c — LRN, MeanVarianceNormalization, LpNormalization.
 *
 * Numerics: float sums from +0.0f in ascending index order (MVN's means in double), each
 * expression evaluated in the order written; nothing is contracted (gcc: ISO mode; clang:
 * the pragma).
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

/* LRN across channels: for channel c the window is c' in [c - (size-1)/2, c + ceil((size-1)/2)]
 * clipped to [0, C); s = sum of x[c']^2 in ascending c';
 *     y = x / powf(bias + (alpha / size) * s, beta)
 *   x, y [N][C][HW] (y not x). */
O2C_KERNEL void lrn_f32(int64_t N, int64_t C, int64_t HW, int64_t size, float alpha, float beta,
                        float bias, const float *x, float *y)
{
    const int64_t lo = (size - 1) / 2, hi = size / 2; /* floor and ceil of (size-1)/2 */
    const float a = alpha / (float)size;
    for (int64_t n = 0; n < N; n++)
        for (int64_t c = 0; c < C; c++) {
            const int64_t c0 = c - lo < 0 ? 0 : c - lo, c1 = c + hi >= C ? C - 1 : c + hi;
            for (int64_t p = 0; p < HW; p++) {
                float s = 0.0f;
                for (int64_t j = c0; j <= c1; j++) {
                    const float v = x[(n * C + j) * HW + p];
                    s = s + v * v;
                }
                y[(n * C + c) * HW + p] = x[(n * C + c) * HW + p] / powf(bias + a * s, beta);
            }
        }
}

/* Offset of the i-th element (row-major over dims) with element strides. */
O2C_KERNEL int64_t nn_offset(int rank, const int64_t *dims, const int64_t *strides, int64_t i)
{
    int64_t off = 0;
    for (int d = rank - 1; d >= 0; d--) {
        off += (i % dims[d]) * strides[d];
        i /= dims[d];
    }
    return off;
}

/* MeanVarianceNormalization as its ONNX function defines it, over the reduced dims (red_)
 * for each position of the kept dims (out_), dims and element strides of x (y has x's
 * layout; y may be x):
 *     mean = E[x], msq = E[x^2] (sums in double, rounded to float),
 *     y = (x - mean) / (sqrtf(msq - mean*mean) + 1e-9f)
 * rank 0..8 each; a rank of 0 is one position. */
O2C_KERNEL void mvn_f32(int out_rank, const int64_t *out_dims, const int64_t *out_strides,
                        int red_rank, const int64_t *red_dims, const int64_t *red_strides,
                        const float *x, float *y)
{
    int64_t n_out = 1, n_red = 1;
    for (int d = 0; d < out_rank; d++)
        n_out *= out_dims[d];
    for (int d = 0; d < red_rank; d++)
        n_red *= red_dims[d];
    for (int64_t o = 0; o < n_out; o++) {
        const int64_t base = nn_offset(out_rank, out_dims, out_strides, o);
        double s = 0.0, sq = 0.0;
        for (int64_t r = 0; r < n_red; r++) {
            const float v = x[base + nn_offset(red_rank, red_dims, red_strides, r)];
            s += (double)v;
            sq += (double)(v * v);
        }
        const float mean = (float)(s / (double)n_red), msq = (float)(sq / (double)n_red);
        const float sd = sqrtf(msq - mean * mean) + 1e-9f;
        for (int64_t r = 0; r < n_red; r++) {
            const int64_t off = base + nn_offset(red_rank, red_dims, red_strides, r);
            y[off] = (x[off] - mean) / sd;
        }
    }
}

/* LpNormalization along the middle axis: norm = sum |x| (p = 1) or sqrtf(sum x*x) (p = 2),
 * float sums in ascending order; y = x / norm, and 0 where the norm is 0 (as the ONNX
 * reference).   x, y [outer][len][inner] (y may be x). */
O2C_KERNEL void lpnorm_f32(int64_t outer, int64_t len, int64_t inner, int64_t p, const float *x,
                           float *y)
{
    for (int64_t o = 0; o < outer; o++)
        for (int64_t i = 0; i < inner; i++) {
            const float *xl = x + o * len * inner + i;
            float *yl = y + o * len * inner + i;
            float s = 0.0f;
            for (int64_t j = 0; j < len; j++)
                s = p == 1 ? s + fabsf(xl[j * inner]) : s + xl[j * inner] * xl[j * inner];
            const float norm = p == 1 ? s : sqrtf(s);
            for (int64_t j = 0; j < len; j++)
                yl[j * inner] = norm == 0.0f ? 0.0f : xl[j * inner] / norm;
        }
}
