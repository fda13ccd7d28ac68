/* signal.c — DFT, STFT, the Hann/Hamming/Blackman windows, MelWeightMatrix.
 *
 * Numerics: the DFT is direct, O(n^2): each bin sums x[t] * e^(-+2 pi i k t / n) in double
 * over ascending t, with the twiddle angle reduced exactly as 2 pi ((k t) mod n) / n, and
 * rounds once to float at the end. The ONNX reference uses numpy's FFT (also double), so the
 * two agree to a few ulps of the largest term. Windows and mel weights are computed in double
 * and rounded once. Nothing is contracted (gcc: ISO mode; clang: the pragma).
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

#define O2C_TWO_PI 6.283185307179586476925286766559

/* Bin k of the length-n DFT of count samples (count <= n; the rest are zero): sample t is
 * x[t*xs] (+ i x[t*xs + 1] when complex_in), times w[t] in float when w is not NULL.
 * sign -1 forward, +1 inverse (unscaled). */
O2C_KERNEL void signal_dft_bin(int64_t n, int64_t count, const float *x, int64_t xs, int complex_in,
                               const float *w, int64_t k, int sign, double *re, double *im)
{
    double sr = 0.0, si = 0.0;
    for (int64_t t = 0; t < count; t++) {
        const double a = O2C_TWO_PI * (double)((k * t) % n) / (double)n;
        const double c = cos(a), s = (double)sign * sin(a);
        float xr = x[t * xs], xi = complex_in ? x[t * xs + 1] : 0.0f;
        if (w) {
            xr = xr * w[t];
            xi = xi * w[t];
        }
        sr = sr + ((double)xr * c - (double)xi * s);
        si = si + ((double)xi * c + (double)xr * s);
    }
    *re = sr;
    *im = si;
}

/* DFT along the middle axis: x [outer][len][inner][c_in] (c_in 1 real, 2 complex),
 * length-n transform of the first min(len, n) samples (zero padded), bins 0..K-1 to
 * y [outer][K][inner][c_out].
 * mode 0: forward, c_out 2.  mode 1: inverse with 1/n, c_out 2.
 * mode 2: inverse real (IRFFT, c_out 1): x holds bins 0..n/2 of a Hermitian spectrum;
 *   y[t] = (Re X0 + sum_{0<k<n/2} 2 Re(X_k e^(i 2 pi k t/n)) + [n even] Re X_{n/2} (-1)^t) / n,
 *   with the imaginary parts of X0 and X_{n/2} ignored (as numpy's irfft). */
O2C_KERNEL void dft_f32(int64_t outer, int64_t len, int64_t inner, int c_in, int64_t n, int64_t K,
                        int mode, const float *x, float *y)
{
    const int c_out = mode == 2 ? 1 : 2;
    const int64_t xs = inner * c_in;
    for (int64_t o = 0; o < outer; o++)
        for (int64_t i = 0; i < inner; i++) {
            const float *xl = x + o * len * xs + i * c_in;
            float *yl = y + o * K * inner * c_out + i * c_out;
            if (mode == 2) {
                const int64_t bins = len < n / 2 + 1 ? len : n / 2 + 1;
                for (int64_t t = 0; t < K; t++) {
                    double s = 0.0;
                    for (int64_t k = 0; k < bins; k++) {
                        const double a = O2C_TWO_PI * (double)((k * t) % n) / (double)n;
                        const double xr = xl[k * xs], xi = c_in == 2 ? xl[k * xs + 1] : 0.0;
                        if (k == 0 || 2 * k == n)
                            s = s + xr * cos(a);
                        else
                            s = s + 2.0 * (xr * cos(a) - xi * sin(a));
                    }
                    yl[t * inner] = (float)(s / (double)n);
                }
                continue;
            }
            const int64_t count = len < n ? len : n;
            for (int64_t k = 0; k < K; k++) {
                double re, im;
                signal_dft_bin(n, count, xl, xs, c_in == 2, NULL, k, mode == 0 ? -1 : 1, &re, &im);
                if (mode == 1) {
                    re = re / (double)n;
                    im = im / (double)n;
                }
                yl[k * inner * 2] = (float)re;
                yl[k * inner * 2 + 1] = (float)im;
            }
        }
}

/* STFT: x [B][len][c_in]; frame f is samples f*step .. f*step+n-1, times window w[n] (NULL:
 * ones); y [B][frames][K][2] holds bins 0..K-1 of each frame's length-n forward DFT. */
O2C_KERNEL void stft_f32(int64_t B, int64_t len, int c_in, int64_t step, int64_t frames, int64_t n,
                         int64_t K, const float *w, const float *x, float *y)
{
    for (int64_t b = 0; b < B; b++)
        for (int64_t f = 0; f < frames; f++) {
            const float *xf = x + (b * len + f * step) * c_in;
            const int64_t avail = len - f * step, count = avail < n ? avail : n;
            for (int64_t k = 0; k < K; k++) {
                double re, im;
                signal_dft_bin(n, count, xf, c_in, c_in == 2, w, k, -1, &re, &im);
                float *yk = y + ((b * frames + f) * K + k) * 2;
                yk[0] = (float)re;
                yk[1] = (float)im;
            }
        }
}

/* Generalised cosine windows of `size` points, N = size (periodic) or size - 1 (symmetric):
 *   kind 0 Hann:     0.5 - 0.5 cos(2 pi t / N)
 *   kind 1 Hamming:  25/46 - 21/46 cos(2 pi t / N)
 *   kind 2 Blackman: 0.42 - 0.5 cos(2 pi t / N) + 0.08 cos(4 pi t / N)
 * in double, rounded once. */
O2C_KERNEL void window_f32(int kind, int64_t size, int periodic, float *y)
{
    const double N = (double)(periodic ? size : size - 1);
    for (int64_t t = 0; t < size; t++) {
        const double c1 = cos(O2C_TWO_PI * (double)t / N);
        double v;
        if (kind == 0)
            v = 0.5 - 0.5 * c1;
        else if (kind == 1)
            v = 25.0 / 46.0 - (1.0 - 25.0 / 46.0) * c1;
        else
            v = 0.42 - 0.5 * c1 + 0.08 * cos(2.0 * O2C_TWO_PI * (double)t / N);
        y[t] = (float)v;
    }
}

/* MelWeightMatrix: y [dft_length/2 + 1][bins], triangular filters between bins + 2 points
 * equally spaced on the mel scale (mel = 2595 log10(1 + f/700)) from lower to upper hertz,
 * each point mapped to the spectrogram bin floor((dft_length + 1) f / sample_rate); as the
 * ONNX reference. Points outside the spectrogram are skipped. */
O2C_KERNEL void melweight_f32(int64_t bins, int64_t dft_length, int64_t sample_rate, float lower_hz,
                              float upper_hz, float *y)
{
    const int64_t rows = dft_length / 2 + 1;
    for (int64_t i = 0; i < rows * bins; i++)
        y[i] = 0.0f;
    const double lo = 2595.0 * log1p((double)lower_hz / 700.0) / log(10.0);
    const double hi = 2595.0 * log1p((double)upper_hz / 700.0) / log(10.0);
    const double step = (hi - lo) / (double)(bins + 2);
    for (int64_t i = 0; i < bins; i++) {
        int64_t p[3];
        for (int j = 0; j < 3; j++) {
            const double mel = (double)(i + j) * step + lo;
            const double hz = 700.0 * expm1(mel / 2595.0 * log(10.0));
            p[j] = (int64_t)floor((double)(dft_length + 1) * hz / (double)sample_rate);
        }
        const int64_t up = p[1] - p[0], down = p[2] - p[1];
        if (up == 0 && p[1] >= 0 && p[1] < rows)
            y[p[1] * bins + i] = 1.0f;
        for (int64_t j = p[0]; up != 0 && j <= p[1]; j++)
            if (j >= 0 && j < rows)
                y[j * bins + i] = (float)((double)(j - p[0]) / (double)up);
        for (int64_t j = p[1]; down > 0 && j < p[2]; j++)
            if (j >= 0 && j < rows)
                y[j * bins + i] = (float)((double)(p[2] - j) / (double)down);
    }
}
