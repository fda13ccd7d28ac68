/* loss.c — NegativeLogLikelihoodLoss (SoftmaxCrossEntropyLoss is logsoftmax_f32 of
 * softmax.c followed by this kernel on its result).
 *
 * Layout: x [N][C][D] (D = product of the dims after the class axis, 1 when there are
 * none), target [N][D] int64, weight [C] or NULL; y [N][D] for reduction none, else y[0].
 *
 * Numerics, per element (n, d) in ascending order, as the ONNX function body defines it:
 *   w = 0 when target == ignore_index (has_ignore) or target is outside [0, C) (the spec
 *       leaves that undefined; this keeps the read in bounds), else weight[target] (1 when
 *       weight is NULL)
 *   l = -x[n][target][d] * w, one float product (0 where w is 0)
 *   none: y[n][d] = l;  sum: y = sum of l;  mean: y = sum of l / sum of w.
 * The sums run in double, ascending (n, d), and are rounded to float once at the end, so they
 * do not depend on the summation order of numpy's pairwise sums beyond float rounding.
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

/* reduction: 0 none, 1 sum, 2 mean. */
O2C_KERNEL void nll_loss_f32(int64_t N, int64_t C, int64_t D, const float *x, const int64_t *target,
                             const float *weight, int has_ignore, int64_t ignore_index,
                             int reduction, float *y)
{
    double sum = 0.0, wsum = 0.0;
    for (int64_t n = 0; n < N; n++)
        for (int64_t d = 0; d < D; d++) {
            const int64_t t = target[n * D + d];
            float l = 0.0f, w = 0.0f;
            if (!(has_ignore && t == ignore_index) && t >= 0 && t < C) {
                w = weight ? weight[t] : 1.0f;
                l = -x[(n * C + t) * D + d] * w;
            }
            if (reduction == 0)
                y[n * D + d] = l;
            sum += (double)l;
            wsum += (double)w;
        }
    if (reduction == 1)
        y[0] = (float)sum;
    else if (reduction == 2)
        y[0] = (float)(sum / wsum);
}
