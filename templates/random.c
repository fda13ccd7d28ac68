/* random.c — training-mode Dropout with a seed, reproducing the onnx reference bit for bit:
 * the reference draws numpy.random.RandomState(seed).uniform(0, 1, n), i.e. MT19937 seeded
 * with init_genrand(seed) and 53-bit doubles (a >> 5, b >> 6) / 2^53 from two outputs each.
 * The generator restarts from the seed on every call, so every inference gives the same mask,
 * as the reference does for a fixed seed.
 *
 * Numerics: keep = u >= (double)ratio (numpy compares the float64 draws with the float32
 * ratio in double); scale = 1.0f / (1.0f - ratio) in float; y = ((keep ? 1 : 0) * x) * scale
 * in float, left to right (the reference's mask * X * scale: a dropped NaN or inf stays NaN).
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

/* MT19937 state: mt[624] words and the position of the next one in mt[624] (624: refill). */
O2C_KERNEL void mt19937_seed(uint32_t *mt, uint32_t seed)
{
    mt[0] = seed;
    for (uint32_t i = 1; i < 624; i++)
        mt[i] = 1812433253u * (mt[i - 1] ^ (mt[i - 1] >> 30)) + i;
    mt[624] = 624;
}

O2C_KERNEL uint32_t mt19937_next(uint32_t *mt)
{
    if (mt[624] >= 624) {
        for (int k = 0; k < 624; k++) {
            const uint32_t y = (mt[k] & 0x80000000u) | (mt[(k + 1) % 624] & 0x7fffffffu);
            mt[k] = mt[(k + 397) % 624] ^ (y >> 1) ^ ((y & 1u) ? 0x9908b0dfu : 0u);
        }
        mt[624] = 0;
    }
    uint32_t y = mt[mt[624]++];
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c5680u;
    y ^= (y << 15) & 0xefc60000u;
    y ^= y >> 18;
    return y;
}

/* A double in [0, 1) from 53 random bits, as numpy's random_sample. */
O2C_KERNEL double mt19937_double(uint32_t *mt)
{
    const uint32_t a = mt19937_next(mt) >> 5, b = mt19937_next(mt) >> 6;
    return ((double)a * 67108864.0 + (double)b) / 9007199254740992.0;
}

/* x, y [n] (y may be x); mask [n] (0/1 bytes) or NULL. */
O2C_KERNEL void dropout_f32(int64_t n, uint32_t seed, float ratio, const float *x, float *y,
                            uint8_t *mask)
{
    uint32_t mt[625];
    mt19937_seed(mt, seed);
    const float scale = 1.0f / (1.0f - ratio);
    for (int64_t i = 0; i < n; i++) {
        const int keep = mt19937_double(mt) >= (double)ratio;
        const float m = keep ? 1.0f : 0.0f;
        y[i] = (m * x[i]) * scale;
        if (mask)
            mask[i] = (uint8_t)keep;
    }
}
