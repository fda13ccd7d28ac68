/* reduce.c — reductions over any set of axes (ReduceSum, ReduceMean, ...) and
 * LayerNormalization.
 *
 * Reduction kernels all take the same arguments, prepared by the compiler (size-1 dims
 * dropped and neighbouring dims of the same kind merged; see compiler/ops/reduce.c):
 *   out_rank      number of kept dims, 0..8
 *   out_dims      [out_rank] kept dims, in input order; y is contiguous [out_dims]
 *   out_strides   [out_rank] element stride of x along each kept dim
 *   red_rank      number of reduced dims, 0..8 (0: each element is reduced alone)
 *   red_dims      [red_rank] reduced dims, in input order
 *   red_strides   [red_rank] element stride of x along each reduced dim
 *   x             input; output element o reduces x[base(o) + sum r_d*red_strides[d]]
 *   y             output, must not overlap x
 * The elements of one output are visited in ascending index order (last reduced dim
 * fastest; with one kept and one reduced dim, 8 outputs' chains are interleaved, each in that
 * order), and accumulated from the first one with plain + or * in that order: no fma,
 * no reassociation (gcc: ISO mode; clang: the pragma below). Over an empty set the result is
 * the identity of the operation: 0 (sum, L1, L2, sum of squares), 1 (prod), -inf/+inf or the
 * integer type's min/max (max/min), NaN (mean, 0/0) and -inf (log-sum-exp), as in the onnx
 * reference.
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

/* Steps an odometer over dims[0..rank-1] (last fastest), keeping *off, the element offset,
 * in step with it. Used by every kernel below as its loop over outputs and reduced rows. */
#define O2C_REDUCE_NEXT(rank, dims, strides, idx, off)                                             \
    for (int d_ = (rank)-1; d_ >= 0; d_--) {                                                       \
        idx[d_]++;                                                                                 \
        off += strides[d_];                                                                        \
        if (idx[d_] < dims[d_])                                                                    \
            break;                                                                                 \
        off -= strides[d_] * dims[d_];                                                             \
        idx[d_] = 0;                                                                               \
    }

/* One reduction kernel: ACC_T acc = INIT; for each element v (type T) in order: STEP;
 * then y[o] = FINISH (count is the number of reduced elements, as int64_t). */
#define O2C_REDUCE_KERNEL(NAME, T, ACC_T, INIT, STEP, FINISH)                                      \
    O2C_KERNEL void NAME(int out_rank, const int64_t *out_dims, const int64_t *out_strides,        \
                         int red_rank, const int64_t *red_dims, const int64_t *red_strides,        \
                         const T *x, T *y)                                                         \
    {                                                                                              \
        int64_t n_out = 1, count = 1, oidx[8] = {0}, base = 0;                                     \
        for (int d = 0; d < out_rank; d++)                                                         \
            n_out *= out_dims[d];                                                                  \
        for (int d = 0; d < red_rank; d++)                                                         \
            count *= red_dims[d];                                                                  \
        /* the last reduced dim is the inner loop; the others are walked as rows */                \
        const int64_t inner = red_rank ? red_dims[red_rank - 1] : 1;                               \
        const int64_t step = red_rank ? red_strides[red_rank - 1] : 0;                             \
        const int64_t rows = inner ? count / inner : 0;                                            \
        if (out_rank == 1 && red_rank == 1) {                                                      \
            /* one kept and one reduced dim (a mean over each channel's plane): 8 outputs at       \
             * a time, 8 independent chains, each still in index order (the last block             \
             * repeats its last output for the chains past n_out, and drops them) */               \
            for (int64_t o = 0; o < n_out; o += 8) {                                               \
                const int64_t w = n_out - o < 8 ? n_out - o : 8;                                   \
                ACC_T accs[8];                                                                     \
                const T *xc[8];                                                                    \
                for (int c = 0; c < 8; c++) {                                                      \
                    accs[c] = INIT;                                                                \
                    xc[c] = x + (o + (c < w ? c : w - 1)) * out_strides[0];                        \
                }                                                                                  \
                for (int64_t i = 0; i < inner; i++)                                                \
                    for (int c = 0; c < 8; c++) {                                                  \
                        const T v = xc[c][i * step];                                               \
                        ACC_T acc = accs[c];                                                       \
                        STEP;                                                                      \
                        accs[c] = acc;                                                             \
                    }                                                                              \
                for (int64_t c = 0; c < w; c++) {                                                  \
                    const ACC_T acc = accs[c];                                                     \
                    y[o + c] = FINISH;                                                             \
                }                                                                                  \
            }                                                                                      \
            return;                                                                                \
        }                                                                                          \
        for (int64_t o = 0; o < n_out; o++) {                                                      \
            ACC_T acc = INIT;                                                                      \
            int64_t ridx[8] = {0}, off = base;                                                     \
            for (int64_t r = 0; r < rows; r++) {                                                   \
                const T *xr = x + off;                                                             \
                for (int64_t i = 0; i < inner; i++) {                                              \
                    const T v = xr[i * step];                                                      \
                    STEP;                                                                          \
                }                                                                                  \
                O2C_REDUCE_NEXT(red_rank - 1, red_dims, red_strides, ridx, off)                    \
            }                                                                                      \
            y[o] = FINISH;                                                                         \
            O2C_REDUCE_NEXT(out_rank, out_dims, out_strides, oidx, base)                           \
        }                                                                                          \
        (void)count;                                                                               \
    }

/* Integer sums and products wrap around (done in uint64_t), like numpy. */
O2C_REDUCE_KERNEL(reduce_sum_f32, float, float, 0.0f, acc = acc + v, acc)
O2C_REDUCE_KERNEL(reduce_sum_f64, double, double, 0.0, acc = acc + v, acc)
O2C_REDUCE_KERNEL(reduce_sum_i64, int64_t, uint64_t, 0u, acc = acc + (uint64_t)v, (int64_t)acc)
O2C_REDUCE_KERNEL(reduce_prod_f32, float, float, 1.0f, acc = acc * v, acc)
O2C_REDUCE_KERNEL(reduce_prod_i64, int64_t, uint64_t, 1u, acc = acc * (uint64_t)v, (int64_t)acc)
/* mean = sum / count, one division in float (numpy.mean with dtype float32) */
O2C_REDUCE_KERNEL(reduce_mean_f32, float, float, 0.0f, acc = acc + v, acc / (float)count)
O2C_REDUCE_KERNEL(reduce_sum_square_f32, float, float, 0.0f, acc = acc + v * v, acc)
O2C_REDUCE_KERNEL(reduce_l1_f32, float, float, 0.0f, acc = acc + fabsf(v), acc)
O2C_REDUCE_KERNEL(reduce_l2_f32, float, float, 0.0f, acc = acc + v * v, sqrtf(acc))
/* log of the sum; -inf over an empty set (log 0), as the onnx reference */
O2C_REDUCE_KERNEL(reduce_log_sum_f32, float, float, 0.0f, acc = acc + v, o2c_logf(acc))
/* max/min: a NaN makes the result NaN (numpy.maximum.reduce) */
O2C_REDUCE_KERNEL(reduce_max_f32, float, float, -INFINITY, acc = (v > acc || v != v) ? v : acc, acc)
O2C_REDUCE_KERNEL(reduce_min_f32, float, float, INFINITY, acc = (v < acc || v != v) ? v : acc, acc)
O2C_REDUCE_KERNEL(reduce_max_i64, int64_t, int64_t, INT64_MIN, acc = v > acc ? v : acc, acc)
O2C_REDUCE_KERNEL(reduce_min_i64, int64_t, int64_t, INT64_MAX, acc = v < acc ? v : acc, acc)
/* uint8, and bool (0/1): max is "any" (false over an empty set), min of uint8 is 255 over an
 * empty set, min of bool ("all") true */
O2C_REDUCE_KERNEL(reduce_max_u8, uint8_t, uint8_t, 0u, acc = v > acc ? v : acc, acc)
O2C_REDUCE_KERNEL(reduce_min_u8, uint8_t, uint8_t, 255u, acc = v < acc ? v : acc, acc)
O2C_REDUCE_KERNEL(reduce_min_bool, uint8_t, uint8_t, 1u, acc = v < acc ? v : acc, acc)

/* ReduceLogSumExp as the onnx reference computes it: m = the largest element that is not
 * +-inf (-inf if none; NaN if any is NaN), then y = log(sum of exp(x - m)) + m, the sum in
 * index order. Same arguments as the other reductions; float32 and float64 (EXP, LOG: the
 * libm functions of the type). */
#define O2C_LOG_SUM_EXP_KERNEL(NAME, T, EXP, LOG)                                                  \
    O2C_KERNEL void NAME(int out_rank, const int64_t *out_dims, const int64_t *out_strides,        \
                         int red_rank, const int64_t *red_dims, const int64_t *red_strides,        \
                         const T *x, T *y)                                                         \
    {                                                                                              \
        int64_t n_out = 1, count = 1, oidx[8] = {0}, base = 0;                                     \
        for (int d = 0; d < out_rank; d++)                                                         \
            n_out *= out_dims[d];                                                                  \
        for (int d = 0; d < red_rank; d++)                                                         \
            count *= red_dims[d];                                                                  \
        const int64_t inner = red_rank ? red_dims[red_rank - 1] : 1;                               \
        const int64_t step = red_rank ? red_strides[red_rank - 1] : 0;                             \
        const int64_t rows = inner ? count / inner : 0;                                            \
        for (int64_t o = 0; o < n_out; o++) {                                                      \
            T m = -(T)INFINITY, sum = 0;                                                           \
            int64_t ridx[8] = {0}, off = base;                                                     \
            for (int64_t r = 0; r < rows; r++) { /* pass 1: the shift m */                         \
                const T *xr = x + off;                                                             \
                for (int64_t i = 0; i < inner; i++) {                                              \
                    const T v = isinf(xr[i * step]) ? -(T)INFINITY : xr[i * step];                 \
                    m = (v > m || v != v) ? v : m;                                                 \
                }                                                                                  \
                O2C_REDUCE_NEXT(red_rank - 1, red_dims, red_strides, ridx, off)                    \
            }                                                                                      \
            for (int d = 0; d < 8; d++)                                                            \
                ridx[d] = 0;                                                                       \
            off = base;                                                                            \
            for (int64_t r = 0; r < rows; r++) { /* pass 2: the sum */                             \
                const T *xr = x + off;                                                             \
                for (int64_t i = 0; i < inner; i++)                                                \
                    sum = sum + EXP(xr[i * step] - m);                                             \
                O2C_REDUCE_NEXT(red_rank - 1, red_dims, red_strides, ridx, off)                    \
            }                                                                                      \
            y[o] = LOG(sum) + m;                                                                   \
            O2C_REDUCE_NEXT(out_rank, out_dims, out_strides, oidx, base)                           \
        }                                                                                          \
    }

O2C_LOG_SUM_EXP_KERNEL(reduce_log_sum_exp_f32, float, o2c_expf, o2c_logf)
O2C_LOG_SUM_EXP_KERNEL(reduce_log_sum_exp_f64, double, exp, log)

/* LayerNormalization over the last n elements, after the onnx reference:
 *     mean = (sum of x) / n              var = (sum of (x - mean)^2) / n
 *     inv  = 1 / sqrt(var + eps)         y   = ((x - mean) * inv) * scale + bias
 * each operation rounded to float, nothing contracted. Both sums are lane sums, so that they
 * vectorise: LAYERNORM_LANES = 16 partial sums from +0, lane c adding the terms of elements
 * c, c+16, c+32, ... in ascending order, then folded in halves (lane[c] = lane[c] + lane[c+w]
 * for w = 8, 4, 2, 1); the sum is lane[0]. (One serial sum of a 128-wide row is a 512-cycle
 * chain of dependent adds; onnxruntime and numpy do not sum serially either.)
 *   x, y            [rows][n]; y may be x
 *   scale, bias     [n] when their stride is 1, one value when it is 0; bias may be NULL
 *   mean, inv_std   [rows] outputs, or NULL when not wanted */
#define LAYERNORM_LANES 16

/* The lane sum of x[i] (m_sq == 0) or of (x[i] - m)^2 (m_sq != 0) over one row. */
static inline float layernorm_sum(int64_t n, const float *x, float m, int m_sq)
{
    float lane[LAYERNORM_LANES];
    for (int c = 0; c < LAYERNORM_LANES; c++)
        lane[c] = 0.0f;
    int64_t i = 0;
    for (; i + LAYERNORM_LANES <= n; i += LAYERNORM_LANES)
        for (int c = 0; c < LAYERNORM_LANES; c++) {
            const float d = x[i + c] - m;
            lane[c] = lane[c] + (m_sq ? d * d : x[i + c]);
        }
    for (int c = 0; i + c < n; c++) {
        const float d = x[i + c] - m;
        lane[c] = lane[c] + (m_sq ? d * d : x[i + c]);
    }
    return o2c_lane_sum16_f32(lane); /* LAYERNORM_LANES is 16 */
}

O2C_KERNEL void layernorm_f32(int64_t rows, int64_t n, const float *x, const float *scale,
                              int64_t scale_stride, const float *bias, int64_t bias_stride,
                              float eps, float *y, float *mean, float *inv_std)
{
    for (int64_t r = 0; r < rows; r++) {
        const float *xr = x + r * n;
        float *yr = y + r * n;
        const float m = layernorm_sum(n, xr, 0.0f, 0) / (float)n;
        const float sq = layernorm_sum(n, xr, m, 1);
        const float inv = 1.0f / sqrtf(sq / (float)n + eps);
        for (int64_t i = 0; i < n; i++) {
            const float t = ((xr[i] - m) * inv) * scale[i * scale_stride];
            yr[i] = bias ? t + bias[i * bias_stride] : t;
        }
        if (mean)
            mean[r] = m;
        if (inv_std)
            inv_std[r] = inv;
    }
}

/* The helpers above are local to this file: do not leak them into the includer. */
#undef O2C_REDUCE_KERNEL
#undef O2C_LOG_SUM_EXP_KERNEL
#undef O2C_REDUCE_NEXT
