/* norm.c — BatchNormalization (inference form), InstanceNormalization, GroupNormalization.
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

/* y = scale * (x - mean) / sqrtf(var + eps) + bias, per element, evaluated left to right
 * exactly as the onnx reference writes it (numpy, float32):
 *     d = sqrtf(var[c] + eps)            (once per channel: same bits as per element)
 *     y = ((scale[c] * (x - mean[c])) / d) + bias[c]
 * four roundings, nothing contracted (gcc: ISO mode; clang: the pragma above).
 *   x, y                 [N][C][HW]  (HW = product of the spatial dims; y may be x)
 *   scale, bias, mean, var  [C] */
O2C_KERNEL void batchnorm_f32(int64_t N, int64_t C, int64_t HW, const float *x, const float *scale,
                              const float *bias, const float *mean, const float *var, float eps,
                              float *y)
{
    for (int64_t n = 0; n < N; n++) {
        for (int64_t c = 0; c < C; c++) {
            const float d = sqrtf(var[c] + eps);
            const float s = scale[c], m = mean[c], b = bias[c];
            const float *xc = x + (n * C + c) * HW; /* [HW] */
            float *yc = y + (n * C + c) * HW;
            for (int64_t p = 0; p < HW; p++)
                yc[p] = s * (xc[p] - m) / d + b;
        }
    }
}

/* BatchNormalization in training mode (opset 14+), as the onnx reference: per channel c, over
 * its N*HW elements in order, the batch mean and biased variance accumulated in double (sum;
 * then sum of (x - mean)^2 with the mean rounded to float), each rounded to float; y as in
 * batchnorm_f32 with those; the running statistics, in float:
 *     out_mean = mean * momentum + batch_mean * (1 - momentum)   (likewise out_var)
 *   x, y [N][C][HW] (y may be x); scale, bias, mean, var, out_mean, out_var [C] (the outputs
 *   may be NULL). */
O2C_KERNEL void batchnorm_train_f32(int64_t N, int64_t C, int64_t HW, const float *x,
                                    const float *scale, const float *bias, const float *mean,
                                    const float *var, float eps, float momentum, float *y,
                                    float *out_mean, float *out_var)
{
    const double count = (double)N * (double)HW;
    for (int64_t c = 0; c < C; c++) {
        double sum = 0.0, sq = 0.0;
        for (int64_t n = 0; n < N; n++)
            for (int64_t p = 0; p < HW; p++)
                sum += (double)x[(n * C + c) * HW + p];
        const float bm = (float)(sum / count);
        for (int64_t n = 0; n < N; n++)
            for (int64_t p = 0; p < HW; p++) {
                const double d = (double)(x[(n * C + c) * HW + p] - bm);
                sq += d * d;
            }
        const float bv = (float)(sq / count);
        const float d = sqrtf(bv + eps), s = scale[c], b = bias[c];
        for (int64_t n = 0; n < N; n++) {
            const float *xc = x + (n * C + c) * HW;
            float *yc = y + (n * C + c) * HW;
            for (int64_t p = 0; p < HW; p++)
                yc[p] = s * (xc[p] - bm) / d + b;
        }
        const float keep = 1.0f - momentum;
        if (out_mean)
            out_mean[c] = mean[c] * momentum + bm * keep;
        if (out_var)
            out_var[c] = var[c] * momentum + bv * keep;
    }
}

/* GroupNormalization (InstanceNormalization is G = C with per-channel scale and bias).
 * For each image n and group g (channels g*Cg .. g*Cg+Cg-1, Cg = C/G), over its Cg*HW
 * elements in order: mean and biased variance accumulated in double (sum, then sum of
 * (x - mean)^2), rounded to float; then per element, as the onnx reference writes it:
 *     d = sqrtf(var + eps);   y = scale * ((x - mean) / d) + bias
 * with scale, bias indexed by channel (per_channel != 0: [C]) or by group ([G], the opset
 * 18 GroupNormalization).   x, y [N][C][HW] (y may be x). */
O2C_KERNEL void groupnorm_f32(int64_t N, int64_t C, int64_t G, int64_t HW, const float *x,
                              const float *scale, const float *bias, int per_channel, float eps,
                              float *y)
{
    const int64_t Cg = C / G, len = Cg * HW;
    for (int64_t n = 0; n < N; n++) {
        for (int64_t g = 0; g < G; g++) {
            const float *xg = x + (n * C + g * Cg) * HW; /* [Cg*HW] */
            float *yg = y + (n * C + g * Cg) * HW;
            double s = 0.0;
            for (int64_t i = 0; i < len; i++)
                s += (double)xg[i];
            const double mean_d = s / (double)len;
            double v = 0.0;
            for (int64_t i = 0; i < len; i++) {
                const double t = (double)xg[i] - mean_d;
                v += t * t;
            }
            const float mean = (float)mean_d, var = (float)(v / (double)len);
            const float d = sqrtf(var + eps);
            for (int64_t c = 0; c < Cg; c++) {
                const int64_t ci = per_channel ? g * Cg + c : g;
                const float sc = scale[ci], b = bias[ci];
                for (int64_t p = 0; p < HW; p++)
                    yg[c * HW + p] = sc * ((xg[c * HW + p] - mean) / d) + b;
            }
        }
    }
}
