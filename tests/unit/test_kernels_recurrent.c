/* Unit test of templates/recurrent.c (with templates/gemm.c): RNN, GRU and LSTM cells on
 * hand-computed cases (identity/ReLU activations so that every value is exact), directions,
 * sequence lengths, layouts, clip, linear_before_reset, input_forget, peepholes, the
 * activation functions, and a bidirectional tanh RNN against a direct fmaf loop, bit for bit.
 * The templates are compiled after kernels.h with extern kernels, so the prototypes there are
 * checked against the definitions. */
#include "../../templates/kernels.h"

#define O2C_KERNEL
#include "../../templates/gemm.c"
#include "../../templates/recurrent.c"

#include <stdio.h>
#include <string.h>

#include "check.h"

static int same_all(const float *got, const float *want, int n, const char *what)
{
    for (int i = 0; i < n; i++)
        if (memcmp(&got[i], &want[i], sizeof(float)) != 0) {
            printf("  %s element %d: got %a (%g) want %a (%g)\n", what, i, (double)got[i],
                   (double)got[i], (double)want[i], (double)want[i]);
            return 0;
        }
    return 1;
}

static float scratch[4096];

enum { RELU = 0, TANH = 1, SIGMOID = 2, AFFINE = 3 };

static void test_activations(void)
{
    check(rnn_activation(0, 0, 0, -1.0f) == 0.0f && rnn_activation(0, 0, 0, 2.0f) == 2.0f, "relu");
    check(rnn_activation(1, 0, 0, 0.0f) == 0.0f, "tanh(0)");
    check(rnn_activation(2, 0, 0, 0.0f) == 0.5f, "sigmoid(0)");
    check(rnn_activation(3, 2.0f, 1.0f, 3.0f) == 7.0f, "affine 2*3+1");
    check(rnn_activation(4, 0.5f, 0, -2.0f) == -1.0f && rnn_activation(4, 0.5f, 0, 2.0f) == 2.0f,
          "leaky relu");
    check(rnn_activation(5, 1.0f, 0, 0.5f) == 0.0f && rnn_activation(5, 1.0f, 0, 2.0f) == 2.0f,
          "thresholded relu");
    check(rnn_activation(6, 2.0f, 0.5f, 0.0f) == 0.0f, "scaled tanh(0)");
    check(rnn_activation(7, 0.25f, 0.5f, 1.0f) == 0.75f &&
              rnn_activation(7, 0.25f, 0.5f, 9.0f) == 1.0f &&
              rnn_activation(7, 0.25f, 0.5f, -9.0f) == 0.0f,
          "hard sigmoid");
    check(rnn_activation(8, 1.0f, 0, 0.0f) == 0.0f &&
              rnn_activation(8, 2.0f, 0, -INFINITY) == -2.0f,
          "elu");
    check(rnn_activation(9, 0, 0, 1.0f) == 0.5f, "softsign(1)");
    check(fabsf(rnn_activation(10, 0, 0, 0.0f) - 0.69314718f) < 1e-7f, "softplus(0)");
}

/* RNN, H = I = 1, W = 0.5, R = 0.25, ReLU: forward h1 = 0.5, h2 = 1 + 0.125 = 1.125;
 * reverse h(t=1) = 1, h(t=0) = 0.5 + 0.25 = 0.75. Two batches, the second of length 1. */
static void test_rnn_hand(void)
{
    const float X[4] = {1.0f, 4.0f, 2.0f, 8.0f}; /* [T=2][B=2][1] */
    const float W[2] = {0.5f, 0.5f}, R[2] = {0.25f, 0.25f};
    const int32_t act[2] = {RELU, RELU};
    const float al[2] = {0, 0}, be[2] = {0, 0};
    const int32_t lens[2] = {2, 1};
    float Y[8], Yh[4];

    rnn_f32(2, 2, 1, 1, 1, 0, 0, X, W, R, NULL, lens, NULL, act, al, be, 0, 0.0f, Y, Yh, scratch);
    const float yf[4] = {0.5f, 2.0f, 1.125f, 0.0f}, yhf[2] = {1.125f, 2.0f};
    check(same_all(Y, yf, 4, "Y") && same_all(Yh, yhf, 2, "Y_h"), "rnn forward, lens 2 and 1");

    rnn_f32(2, 2, 1, 1, 1, 0, 1, X, W, R, NULL, lens, NULL, act, al, be, 0, 0.0f, Y, Yh, scratch);
    const float yr[4] = {0.75f, 2.0f, 1.0f, 0.0f}, yhr[2] = {0.75f, 2.0f};
    check(same_all(Y, yr, 4, "Y") && same_all(Yh, yhr, 2, "Y_h"), "rnn reverse, lens 2 and 1");

    /* bidirectional, layout 1: X [B][T][1], Y [B][T][D][1], Y_h [B][D][1]; bias Wb + Rb = 1
     * for the backward direction; initial_h 2 for the forward direction of batch 0. */
    const float Xl[4] = {1.0f, 2.0f, 4.0f, 8.0f};
    const float Bias[4] = {0, 0, 0.5f, 0.5f};
    const float h0[4] = {2.0f, 0.0f, 0.0f, 0.0f}; /* [B][D][1] */
    float Yb[8], Yhb[4];
    rnn_f32(2, 2, 1, 1, 2, 1, 2, Xl, W, R, Bias, NULL, h0, act, al, be, 0, 0.0f, Yb, Yhb, scratch);
    /* b0 fwd: h1 = 0.5 + 0.5 = 1, h2 = 1 + 0.25 = 1.25; b0 bwd: t1 = 1 + 1 = 2, t0 = 0.5 + 0.5 + 1
     * = 2 b1 fwd: 2, 4 + 0.5 = 4.5; b1 bwd: t1 = 4 + 1 = 5, t0 = 2 + 1.25 + 1 = 4.25 */
    const float yb[8] = {1.0f, 2.0f, 1.25f, 2.0f, 2.0f, 4.25f, 4.5f, 5.0f};
    const float yhb[4] = {1.25f, 2.0f, 4.5f, 4.25f};
    check(same_all(Yb, yb, 8, "Y") && same_all(Yhb, yhb, 4, "Y_h"),
          "rnn bidirectional, layout 1, bias, initial_h");

    /* a batch of length 0: Y and Y_h are 0 there (not initial_h) */
    const int32_t lens0[2] = {2, 0};
    const float h0s[2] = {0.0f, 3.0f};
    rnn_f32(2, 2, 1, 1, 1, 0, 0, X, W, R, NULL, lens0, h0s, act, al, be, 0, 0.0f, Y, Yh, scratch);
    const float y0[4] = {0.5f, 0.0f, 1.125f, 0.0f}, yh0[2] = {1.125f, 0.0f};
    check(same_all(Y, y0, 4, "Y") && same_all(Yh, yh0, 2, "Y_h"), "rnn, a batch of length 0");

    /* clip 0.6 on the pre-activation: forward h1 = 0.5, h2 = min(1.125, 0.6) */
    rnn_f32(2, 2, 1, 1, 1, 0, 0, X, W, R, NULL, NULL, NULL, act, al, be, 1, 0.6f, Y, Yh, scratch);
    check(Y[2] == 0.6f && Y[0] == 0.5f && Yh[0] == 0.6f, "rnn clip");
}

/* GRU, H = I = 1, identity activations (Affine 1, 0), W = (1, 2, 3), R = 0.5, x = 1, h0 = 1,
 * Rb_h = 1: z = 1.5, r = 2.5;
 *   lbr 0: h~ = 3 + (2.5 * 1) * 0.5 + 0 + 1 = 5.25, H = (1 - 1.5) * 5.25 + 1.5 = -1.125
 *   lbr 1: h~ = 3 + 2.5 * (0.5 + 1) + 0 = 6.75,    H = -0.5 * 6.75 + 1.5 = -1.875 */
static void test_gru_hand(void)
{
    const float X[1] = {1.0f}, W[3] = {1.0f, 2.0f, 3.0f}, R[3] = {0.5f, 0.5f, 0.5f};
    const float Bias[6] = {0, 0, 0, 0, 0, 1.0f}, h0[1] = {1.0f};
    const int32_t act[2] = {AFFINE, AFFINE};
    const float al[2] = {1.0f, 1.0f}, be[2] = {0, 0};
    float Y[1], Yh[1];
    gru_f32(1, 1, 1, 1, 1, 0, 0, 0, X, W, R, Bias, NULL, h0, act, al, be, 0, 0.0f, Y, Yh, scratch);
    check(Y[0] == -1.125f && Yh[0] == -1.125f, "gru linear_before_reset 0");
    gru_f32(1, 1, 1, 1, 1, 0, 0, 1, X, W, R, Bias, NULL, h0, act, al, be, 0, 0.0f, Y, Yh, scratch);
    check(Y[0] == -1.875f && Yh[0] == -1.875f, "gru linear_before_reset 1");
    /* clip 2: z = 1.5, r = 2 -> h~ = clip(3 + 1 + 1) = 2, H = -0.5 * 2 + 1.5 = 0.5 */
    gru_f32(1, 1, 1, 1, 1, 0, 0, 0, X, W, R, Bias, NULL, h0, act, al, be, 1, 2.0f, Y, Yh, scratch);
    check(Y[0] == 0.5f, "gru clip");
}

/* LSTM, H = I = 1, identity activations, W = (1, 2, 3, 4) for (i, o, f, c), R = 0, x = 0.5,
 * c0 = 2, P = (0.5, 0.25, 1) for (i, o, f): gates 0.5, 1, 1.5, 2;
 *   i = 0.5 + 0.5 * 2 = 1.5, f = 1.5 + 2 = 3.5, c = 2, C = 7 + 3 = 10, o = 1 + 2.5 = 3.5, H = 35
 *   input_forget: f = 1 - 1.5 = -0.5, C = -1 + 3 = 2, o = 1.5, H = 3 */
static void test_lstm_hand(void)
{
    const float X[1] = {0.5f}, W[4] = {1.0f, 2.0f, 3.0f, 4.0f}, R[4] = {0, 0, 0, 0};
    const float c0[1] = {2.0f}, P[3] = {0.5f, 0.25f, 1.0f};
    const int32_t act[3] = {AFFINE, AFFINE, AFFINE};
    const float al[3] = {1.0f, 1.0f, 1.0f}, be[3] = {0, 0, 0};
    float Y[1], Yh[1], Yc[1];
    lstm_f32(1, 1, 1, 1, 1, 0, 0, 0, X, W, R, NULL, NULL, NULL, c0, P, act, al, be, 0, 0.0f, Y, Yh,
             Yc, scratch);
    check(Y[0] == 35.0f && Yh[0] == 35.0f && Yc[0] == 10.0f, "lstm peepholes");
    lstm_f32(1, 1, 1, 1, 1, 0, 0, 1, X, W, R, NULL, NULL, NULL, c0, P, act, al, be, 0, 0.0f, Y, Yh,
             Yc, scratch);
    check(Y[0] == 3.0f && Yc[0] == 2.0f, "lstm input_forget");
    /* clip 1.2 on i, f, c, o (not on h's input C): C = 1.2 * 2 + 1.2 * 1.2, H = 1.2 * C */
    lstm_f32(1, 1, 1, 1, 1, 0, 0, 0, X, W, R, NULL, NULL, NULL, c0, P, act, al, be, 1, 1.2f, Y, Yh,
             Yc, scratch);
    const float t1 = 1.2f * 2.0f, t2 = 1.2f * 1.2f;
    const float C = t1 + t2;
    check(Yc[0] == C && Yh[0] == 1.2f * C, "lstm clip");
    /* no Y wanted (NULL) still gives Y_h and Y_c */
    lstm_f32(1, 1, 1, 1, 1, 0, 0, 0, X, W, R, NULL, NULL, NULL, c0, P, act, al, be, 0, 0.0f, NULL,
             Yh, Yc, scratch);
    check(Yh[0] == 35.0f && Yc[0] == 10.0f, "lstm without Y");
}

/* Bidirectional tanh RNN against a direct loop with the documented order, bit for bit. */
static void test_rnn_bits(void)
{
    enum { T = 3, B = 2, I = 3, H = 4, D = 2 };
    float X[T * B * I], W[D * H * I], R[D * H * H], Bias[D * 2 * H], h0[D * B * H];
    uint32_t s = 12345u;
    float *all[5] = {X, W, R, Bias, h0};
    int sizes[5] = {T * B * I, D * H * I, D * H * H, D * 2 * H, D * B * H};
    for (int a = 0; a < 5; a++)
        for (int i = 0; i < sizes[a]; i++) {
            s = s * 1664525u + 1013904223u;
            all[a][i] = (float)((int)(s >> 9) % 2001 - 1000) / 1000.0f;
        }
    const int32_t act[2] = {TANH, TANH};
    const float al[2] = {0, 0}, be[2] = {0, 0};
    float Y[T * D * B * H], Yh[D * B * H], want[T * D * B * H];
    rnn_f32(T, B, I, H, D, 0, 2, X, W, R, Bias, NULL, h0, act, al, be, 0, 0.0f, Y, Yh, scratch);
    for (int d = 0; d < D; d++)
        for (int b = 0; b < B; b++) {
            float h[H], hn[H];
            for (int j = 0; j < H; j++)
                h[j] = h0[(d * B + b) * H + j];
            for (int st = 0; st < T; st++) {
                int t = d ? T - 1 - st : st;
                for (int j = 0; j < H; j++) {
                    float xw = 0.0f, hr = 0.0f;
                    for (int k = 0; k < I; k++)
                        xw = fmaf(X[(t * B + b) * I + k], W[(d * H + j) * I + k], xw);
                    for (int k = 0; k < H; k++)
                        hr = fmaf(h[k], R[(d * H + j) * H + k], hr);
                    const float bs = Bias[d * 2 * H + j] + Bias[d * 2 * H + H + j];
                    const float v = xw + hr;
                    hn[j] = o2c_tanhf(v + bs);
                }
                for (int j = 0; j < H; j++) {
                    h[j] = hn[j];
                    want[((t * D + d) * B + b) * H + j] = hn[j];
                }
            }
        }
    check(same_all(Y, want, T * D * B * H, "Y"), "bidirectional tanh rnn, bits of a direct loop");
    check(rnn_scratch_floats(T, B, H, 1) <= (int64_t)(sizeof scratch / sizeof scratch[0]),
          "scratch size");
}

/* rnn_act_row's sigmoid rows: within +-87 (o2c_sigmoidf_bounded) and with one element
 * beyond (a denormal result), or NaN (o2c_sigmoidf), each element o2c_sigmoidf's bits. */
static void test_sigmoid_rows(void)
{
    float x[3][37], want[3][37];
    for (int r = 0; r < 3; r++)
        for (int j = 0; j < 37; j++)
            x[r][j] = (float)(j - 18) * 4.8f + 0.37f * (float)r;
    x[1][5] = -100.0f;
    x[2][30] = NAN;
    const char *what[3] = {"sigmoid row within 87", "sigmoid row with -100",
                           "sigmoid row with NaN"};
    for (int r = 0; r < 3; r++) {
        for (int j = 0; j < 37; j++)
            want[r][j] = o2c_sigmoidf(x[r][j]);
        rnn_act_row(SIGMOID, 0.0f, 0.0f, 0, 0.0f, 37, x[r]);
        check(same_all(x[r], want[r], 37, what[r]), what[r]);
    }
    check(want[1][5] > 0.0f && want[1][5] < 0x1p-126f, "sigmoid(-100) is denormal");
}

/* The zero-scratch kernels (unit by unit, state in Y / Y_c / Y_h) against the whole-layer
 * kernels, bit for bit: RNN, GRU (both linear_before_reset), LSTM (peepholes, input_forget),
 * bidirectional, both layouts, with and without bias, initial state and clip. */
static void fill(uint32_t *s, float *a, int n)
{
    for (int i = 0; i < n; i++) {
        *s = *s * 1664525u + 1013904223u;
        a[i] = (float)((int)(*s >> 9) % 2001 - 1000) / 700.0f;
    }
}

static void test_units_bits(void)
{
    enum { T = 4, B = 2, I = 3, H = 5, D = 2, G = 4 };
    static float X[T * B * I], W[D * G * H * I], R[D * G * H * H], Bias[D * 2 * G * H];
    static float h0[D * B * H], c0[D * B * H], P[D * 3 * H];
    uint32_t s = 777u;
    fill(&s, X, T * B * I), fill(&s, W, D * G * H * I), fill(&s, R, D * G * H * H);
    fill(&s, Bias, D * 2 * G * H), fill(&s, h0, D * B * H), fill(&s, c0, D * B * H);
    fill(&s, P, D * 3 * H);
    const int32_t act[6] = {SIGMOID, TANH, TANH, SIGMOID, TANH, TANH};
    const float al[6] = {0}, be[6] = {0};
    for (int cell = 0; cell < 3; cell++)
        for (int v = 0; v < 8; v++) {
            const int layout = v & 1, extra = (v >> 1) & 1, flag = (v >> 2) & 1;
            const int g = cell == 0 ? 1 : cell == 1 ? 3 : 4, nacts = cell + 1;
            const float *bias = extra ? Bias : NULL, *hi = extra ? h0 : NULL;
            const float *ci = extra ? c0 : NULL, *pp = flag ? P : NULL;
            const int clip = extra && !flag;
            int32_t a[6];
            for (int d = 0; d < D; d++)
                for (int k = 0; k < nacts; k++)
                    a[d * nacts + k] = cell == 0 ? TANH : act[k];
            float Y[T * D * B * H], Yh[D * B * H], Yc[D * B * H];
            float uY[T * D * B * H], uYh[D * B * H], uYc[D * B * H];
            if (cell == 0)
                rnn_f32(T, B, I, H, D, layout, 2, X, W, R, bias, NULL, hi, a, al, be, clip, 0.9f, Y,
                        Yh, scratch);
            else if (cell == 1)
                gru_f32(T, B, I, H, D, layout, 2, flag, X, W, R, bias, NULL, hi, a, al, be, clip,
                        0.9f, Y, Yh, scratch);
            else
                lstm_f32(T, B, I, H, D, layout, 2, flag && extra, X, W, R, bias, NULL, hi, ci, pp,
                         a, al, be, clip, 0.9f, Y, Yh, Yc, scratch);
            for (int d = 0; d < D; d++) {
                const float *Wd = W + d * g * H * I, *Rd = R + d * g * H * H;
                const float *wb = bias ? bias + d * 2 * g * H : NULL;
                const float *pd = pp ? pp + d * 3 * H : NULL;
                const int32_t *ad = a + d * nacts;
                for (int st = 0; st < T; st++) {
                    if (cell == 0)
                        rnn_units_step_f32(T, B, I, H, D, layout, d, d, st, X, Wd, Rd, wb, hi,
                                           ad[0], 0, 0, clip, 0.9f, uY);
                    else if (cell == 1)
                        gru_units_step_f32(T, B, I, H, D, layout, d, d, st, flag, X, Wd, Rd, wb, hi,
                                           ad[0], 0, 0, ad[1], 0, 0, clip, 0.9f, uY, uYh);
                    else
                        lstm_units_step_f32(T, B, I, H, D, layout, d, d, st, flag && extra, X, Wd,
                                            Rd, wb, pd, hi, ci, ad[0], 0, 0, ad[1], 0, 0, ad[2], 0,
                                            0, clip, 0.9f, uY, uYc);
                }
                rnn_units_end_f32(T, B, H, D, layout, d, d, uY, uYh);
            }
            char what[64];
            snprintf(what, sizeof what, "units %s layout %d extra %d flag %d",
                     cell == 0   ? "rnn"
                     : cell == 1 ? "gru"
                                 : "lstm",
                     layout, extra, flag);
            check(same_all(uY, Y, T * D * B * H, what) && same_all(uYh, Yh, D * B * H, what) &&
                      (cell < 2 ? 1 : same_all(uYc, Yc, D * B * H, what)),
                  what);
        }
}

/* LSTM without peepholes (lstm_step_f32 activates gates i, o, f as one row, or i, o with
 * input_forget) against the unit-by-unit kernel, bit for bit: H = 37 (vector loops and their
 * remainder), the output gate's weights scaled so that its pre-activations leave +-87 (that
 * row takes o2c_sigmoidf) while i and f stay within, then every gate within. */
static void test_lstm_gate_rows(void)
{
    enum { T = 3, B = 1, I = 4, H = 37, G = 4 };
    static float X[T * B * I], W[G * H * I], R[G * H * H], Bias[2 * G * H];
    float Y[T * B * H], Yh[B * H], Yc[B * H], uY[T * B * H], uYc[B * H];
    const int32_t a[3] = {SIGMOID, TANH, TANH};
    const float al[3] = {0}, be[3] = {0};
    for (int v = 0; v < 4; v++) {
        const int input_forget = v & 1, big = !(v >> 1);
        uint32_t s = 4242u;
        fill(&s, X, T * B * I), fill(&s, W, G * H * I), fill(&s, R, G * H * H);
        fill(&s, Bias, 2 * G * H);
        for (int i = 0; big && i < H * I; i++)
            W[H * I + i] *= 90.0f; /* gate o */
        lstm_f32(T, B, I, H, 1, 0, 0, input_forget, X, W, R, Bias, NULL, NULL, NULL, NULL, a, al,
                 be, 0, 0.0f, Y, Yh, Yc, scratch);
        for (int st = 0; st < T; st++)
            lstm_units_step_f32(T, B, I, H, 1, 0, 0, 0, st, input_forget, X, W, R, Bias, NULL, NULL,
                                NULL, a[0], 0, 0, a[1], 0, 0, a[2], 0, 0, 0, 0.0f, uY, uYc);
        char what[64];
        snprintf(what, sizeof what, "lstm gate rows, input_forget %d, o beyond 87 %d", input_forget,
                 big);
        check(same_all(Y, uY, T * B * H, what) && same_all(Yc, uYc, B * H, what), what);
        /* the steps with Wb + Rb summed beforehand (rb NULL), as generated code passes a
         * constant bias: the same bits */
        float bs[G * H], sY[T * B * H], *xw = scratch, *hr = xw + T * G * H, *h = hr + G * H;
        float *c = h + H;
        for (int j = 0; j < G * H; j++)
            bs[j] = Bias[j] + Bias[G * H + j];
        gemm_f32(T * B, G * H, I, X, I, 1, W, 1, I, xw);
        rnn_begin_f32(T, B, H, 1, 0, 0, NULL, NULL, NULL, h, c, sY);
        for (int st = 0; st < T; st++) {
            gemm_f32(B, G * H, H, h, H, 1, R, 1, H, hr);
            lstm_step_f32(T, B, H, 1, 0, 0, 0, st, NULL, input_forget, xw, 0, T, hr, bs, NULL, NULL,
                          a[0], 0, 0, a[1], 0, 0, a[2], 0, 0, 0, 0.0f, h, c, sY);
        }
        snprintf(what, sizeof what, "lstm summed bias, input_forget %d, o beyond 87 %d",
                 input_forget, big);
        check(same_all(sY, Y, T * B * H, what) && same_all(c, Yc, B * H, what), what);
    }
}

int main(void)
{
    test_activations();
    test_rnn_hand();
    test_gru_hand();
    test_lstm_hand();
    test_rnn_bits();
    test_sigmoid_rows();
    test_units_bits();
    test_lstm_gate_rows();
    printf("%d passed, %d failed\n", n_passed, n_failed);
    return n_failed ? 1 : 0;
}
