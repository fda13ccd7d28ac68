/* norm.c — BatchNormalization (inference form).
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
