/* Unit test of templates/signal.c: DFT (forward, inverse, one-sided, IRFFT, padding), STFT,
 * the three windows and MelWeightMatrix against hand-computed values. */
#include "../../templates/signal.c"

#include <stdio.h>
#include <string.h>

#include "check.h"

static int near(const float *got, const float *want, int n)
{
    for (int i = 0; i < n; i++)
        if (fabsf(got[i] - want[i]) > 1e-6f * (1.0f + fabsf(want[i])))
            return 0;
    return 1;
}

static void test_dft(void)
{
    /* DFT of {1, 2, 3, 4}: {10, -2+2i, -2, -2-2i} */
    const float x[4] = {1, 2, 3, 4};
    const float X[8] = {10, 0, -2, 2, -2, 0, -2, -2};
    float y[16];
    dft_f32(1, 4, 1, 1, 4, 4, 0, x, y);
    check(near(y, X, 8) && y[0] == 10.0f && y[1] == 0.0f, "dft forward real");
    dft_f32(1, 4, 1, 1, 4, 3, 0, x, y);
    check(near(y, X, 6), "dft onesided");
    const float xc[8] = {1, 0, 2, 0, 3, 0, 4, 0};
    float back[8];
    dft_f32(1, 4, 1, 2, 4, 4, 1, X, back);
    check(near(back, xc, 8), "dft inverse");
    dft_f32(1, 3, 1, 2, 4, 4, 2, X, back);
    check(near(back, x, 4), "dft irfft from bins 0..2");
    /* zero padded to 8: bin 4 = 1 - 2 + 3 - 4 = -2, bin 2 = 1 - 3 + (-2i + 4i) = -2 + 2i */
    dft_f32(1, 4, 1, 1, 8, 8, 0, x, y);
    check(fabsf(y[8] + 2.0f) < 1e-6f && fabsf(y[9]) < 1e-6f && fabsf(y[4] + 2.0f) < 1e-6f &&
              fabsf(y[5] - 2.0f) < 1e-6f,
          "dft zero padding");
    /* along the outer axis of [2][2][1]: columns {1, 3}, {2, 4} -> bins {4, -2}, {6, -2} */
    float z[8];
    dft_f32(1, 2, 2, 1, 2, 2, 0, x, z);
    const float zw[8] = {4, 0, 6, 0, -2, 0, -2, 0};
    check(near(z, zw, 8), "dft with inner stride");
}

static void test_stft(void)
{
    /* frames {1, 2}, {3, 4} of {1..5} (step 2, length 2): bins {3, -1}, {7, -1} */
    const float x[5] = {1, 2, 3, 4, 5};
    float y[8];
    stft_f32(1, 5, 1, 2, 2, 2, 2, NULL, x, y);
    const float want[8] = {3, 0, -1, 0, 7, 0, -1, 0};
    check(near(y, want, 8), "stft");
    const float w[2] = {1, 0};
    stft_f32(1, 5, 1, 2, 2, 2, 2, w, x, y);
    const float ww[8] = {1, 0, 1, 0, 3, 0, 3, 0};
    check(near(y, ww, 8), "stft with window");
}

static void test_windows(void)
{
    float y[4];
    window_f32(0, 4, 1, y);
    const float hann[4] = {0, 0.5f, 1, 0.5f};
    check(near(y, hann, 4), "hann periodic");
    window_f32(0, 3, 0, y);
    const float hann_s[3] = {0, 1, 0};
    check(near(y, hann_s, 3), "hann symmetric");
    window_f32(1, 2, 1, y);
    check(y[0] == (float)(4.0 / 46.0) && y[1] == 1.0f, "hamming periodic");
    window_f32(2, 2, 1, y);
    check(fabsf(y[0]) < 1e-7f && y[1] == 1.0f, "blackman periodic");
}

static void test_mel(void)
{
    /* 2 bins, dft 16, 16 kHz, 0..8000 Hz: mel points 0, 710, 1420, 2130 -> spectrogram
     * bins 0, 0, 1, 4: filter 0 is {1}, filter 1 rises to bin 1 and falls by thirds */
    float y[18];
    melweight_f32(2, 16, 16000, 0.0f, 8000.0f, y);
    const float want[18] = {1, 0, 0, 1, 0, 2.0f / 3.0f, 0, 1.0f / 3.0f, 0,
                            0, 0, 0, 0, 0, 0,           0, 0,           0};
    check(!memcmp(y, want, sizeof want), "mel weight matrix");
}

int main(void)
{
    test_dft();
    test_stft();
    test_windows();
    test_mel();
    printf("%d passed, %d failed\n", n_passed, n_failed);
    return n_failed != 0;
}
