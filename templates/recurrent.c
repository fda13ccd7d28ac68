/* recurrent.c — the recurrent layers RNN, GRU and LSTM (float32), one kernel each, running
 * every direction and time step of the layer.
 *
 * Shapes (ONNX names; D = directions 1 or 2, G = gates: RNN 1, GRU 3, LSTM 4):
 *   X       layout 0: [T][B][I]   layout 1: [B][T][I]
 *   W       [D][G*H][I]          gates stacked: RNN (i), GRU (z, r, h), LSTM (i, o, f, c)
 *   R       [D][G*H][H]
 *   Bias    [D][2*G*H] (Wb then Rb), or NULL for zeros
 *   seq_lens [B] int32, or NULL for T everywhere; values are clamped to 0..T (the compiler
 *           refuses constant values outside 1..T). Batch b runs steps 0..len-1 (reverse
 *           direction: from len-1 down to 0); Y is 0 at t >= len; Y_h/Y_c are the state after
 *           the last step run, 0 when len is 0 (as onnxruntime).
 *   h0, c0  layout 0: [D][B][H]   layout 1: [B][D][H], or NULL for zeros
 *   P       [D][3*H] peepholes (i, o, f), or NULL for zeros (LSTM)
 *   Y       layout 0: [T][D][B][H]   layout 1: [B][T][D][H], or NULL when not wanted
 *   Y_h, Y_c layout 0: [D][B][H]   layout 1: [B][D][H], or NULL
 *   act     per direction, the activation codes (RNN: f; GRU: f, g; LSTM: f, g, h), direction
 *           0's first, with alpha[] and beta[] alongside (codes: RNN_ACT_* below)
 *   clip    when has_clip, pre-activations are clamped to [-clip, clip] (not LSTM's h(C) input)
 *   scratch floats: see rnn_scratch_floats
 *
 * Numerics: the products use gemm_f32 (templates/gemm.c, pasted before this file): fmaf over k
 * ascending from 0. X x W^T is computed for every time step at once (each element is still its
 * own ascending-k sum, so the bits are those of a per-step product). Then per element, in the
 * onnx reference's order (two roundings never fused):
 *   RNN   Ht = f(clip((xw + hr) + (wb + rb)))
 *   GRU   z  = f(clip((xw_z + hr_z) + (wb_z + rb_z)))   r likewise
 *         lbr=0: h = g(clip(((xw_h + (r.*Ht-1) x Rh^T) + wb_h) + rb_h))
 *         lbr=1: h = g(clip((xw_h + r * (hr_h + rb_h)) + wb_h))
 *         Ht = (1 - z) * h + z * Ht-1
 *   LSTM  gates = (xw + hr) + (wb + rb)
 *         i = f(clip(gi + pi * Ct-1)),  f = f(clip(gf + pf * Ct-1)) (input_forget: f = 1 - i)
 *         c = g(clip(gc)),  Ct = f * Ct-1 + i * c,  o = f(clip(go + po * Ct)),  Ht = o * h(Ct)
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

/* Defined in gemm.c (pasted before this file in generated code; linked in the compiler). */
O2C_KERNEL void gemm_f32(int64_t M, int64_t N, int64_t K, const float *A, int64_t a_rs,
                         int64_t a_cs, const float *B, int64_t b_rs, int64_t b_cs, float *Y);

/* Activation codes (the compiler's table in ops_recurrent.c uses the same numbers). */
enum {
    RNN_ACT_RELU = 0,
    RNN_ACT_TANH = 1,
    RNN_ACT_SIGMOID = 2,
    RNN_ACT_AFFINE = 3,
    RNN_ACT_LEAKY_RELU = 4,
    RNN_ACT_THRESHOLDED_RELU = 5,
    RNN_ACT_SCALED_TANH = 6,
    RNN_ACT_HARD_SIGMOID = 7,
    RNN_ACT_ELU = 8,
    RNN_ACT_SOFTSIGN = 9,
    RNN_ACT_SOFTPLUS = 10
};

/* One activation, as the ONNX operator of the same name computes it. */
O2C_KERNEL float rnn_activation(int code, float alpha, float beta, float x)
{
    switch (code) {
    case RNN_ACT_RELU: return x > 0.0f ? x : 0.0f;
    case RNN_ACT_TANH: return o2c_tanhf(x);
    case RNN_ACT_SIGMOID: return o2c_sigmoidf(x);
    case RNN_ACT_AFFINE: {
        const float t = alpha * x;
        return t + beta;
    }
    case RNN_ACT_LEAKY_RELU: return x >= 0.0f ? x : alpha * x;
    case RNN_ACT_THRESHOLDED_RELU: return x > alpha ? x : 0.0f;
    case RNN_ACT_SCALED_TANH: return alpha * o2c_tanhf(beta * x);
    case RNN_ACT_HARD_SIGMOID: {
        const float t = alpha * x;
        const float u = t + beta;
        const float v = u > 1.0f ? 1.0f : u;
        return v < 0.0f ? 0.0f : v;
    }
    case RNN_ACT_ELU: return x >= 0.0f ? x : alpha * o2c_expm1f(x);
    case RNN_ACT_SOFTSIGN: return x / (1.0f + fabsf(x));
    case RNN_ACT_SOFTPLUS:
        if (x > 0.0f)
            return x + o2c_log1pf(o2c_expf(-x));
        return o2c_log1pf(o2c_expf(x));
    default: return x;
    }
}

static float rnn_clip(int has_clip, float clip, float x)
{
    if (!has_clip)
        return x;
    return x < -clip ? -clip : x > clip ? clip : x;
}

/* Floats of scratch the kernels need: X x W^T for every step, the recurrent product, and
 * the states (h, c, and GRU's r .* h). */
O2C_KERNEL int64_t rnn_scratch_floats(int64_t T, int64_t B, int64_t H, int64_t G)
{
    return T * B * G * H + B * G * H + 3 * B * H;
}

/* Element offsets of the layout-dependent tensors. */
static int64_t rnn_x_row(int layout, int64_t T, int64_t B, int64_t t, int64_t b)
{
    return layout ? b * T + t : t * B + b;
}

static int64_t rnn_state_at(int layout, int64_t D, int64_t B, int64_t H, int64_t d, int64_t b)
{
    return (layout ? b * D + d : d * B + b) * H;
}

static int64_t rnn_y_at(int layout, int64_t T, int64_t D, int64_t B, int64_t H, int64_t t,
                        int64_t d, int64_t b)
{
    return (layout ? (b * T + t) * D + d : (t * D + d) * B + b) * H;
}

static int64_t rnn_len(const int32_t *seq_lens, int64_t T, int64_t b)
{
    if (!seq_lens)
        return T;
    return seq_lens[b] < 0 ? 0 : seq_lens[b] > T ? T : (int64_t)seq_lens[b];
}

/* Start of one direction: xw for every step, and the initial state. */
static void rnn_prologue(int64_t T, int64_t B, int64_t I, int64_t H, int64_t D, int64_t G,
                         int layout, int64_t d, const float *X, const float *W, const float *h0,
                         const float *c0, float *xw, float *h, float *c)
{
    /* xw[row][G*H] = X[row] x W_d^T for all T*B rows of X, in X's row order. */
    gemm_f32(T * B, G * H, I, X, I, 1, W + d * G * H * I, 1, I, xw);
    for (int64_t b = 0; b < B; b++)
        for (int64_t j = 0; j < H; j++) {
            const int64_t at = rnn_state_at(layout, D, B, H, d, b) + j;
            h[b * H + j] = h0 ? h0[at] : 0.0f;
            if (c)
                c[b * H + j] = c0 ? c0[at] : 0.0f;
        }
}

static void rnn_zero_y(int64_t T, int64_t B, int64_t H, int64_t D, int layout,
                       const int32_t *seq_lens, int64_t d, float *Y)
{
    if (!Y)
        return;
    for (int64_t b = 0; b < B; b++)
        for (int64_t t = rnn_len(seq_lens, T, b); t < T; t++)
            for (int64_t j = 0; j < H; j++)
                Y[rnn_y_at(layout, T, D, B, H, t, d, b) + j] = 0.0f;
}

/* Y_h, Y_c: the final state; 0 for a batch of length 0 (as onnxruntime). */
static void rnn_epilogue(int64_t T, int64_t B, int64_t H, int64_t D, int layout,
                         const int32_t *seq_lens, int64_t d, const float *h, const float *c,
                         float *Y_h, float *Y_c)
{
    for (int64_t b = 0; b < B; b++) {
        const int empty = rnn_len(seq_lens, T, b) == 0;
        for (int64_t j = 0; j < H; j++) {
            const int64_t at = rnn_state_at(layout, D, B, H, d, b) + j;
            if (Y_h)
                Y_h[at] = empty ? 0.0f : h[b * H + j];
            if (Y_c)
                Y_c[at] = empty ? 0.0f : c[b * H + j];
        }
    }
}

/* The time index of step s of a batch of length len. */
static int64_t rnn_time(int reverse, int64_t len, int64_t s)
{
    return reverse ? len - 1 - s : s;
}

/* RNN. reverse_mask bit d: direction d runs backwards (reverse: 1; bidirectional: 2). */
O2C_KERNEL void rnn_f32(int64_t T, int64_t B, int64_t I, int64_t H, int64_t D, int layout,
                        int reverse_mask, const float *X, const float *W, const float *R,
                        const float *Bias, const int32_t *seq_lens, const float *h0,
                        const int32_t *act, const float *alpha, const float *beta, int has_clip,
                        float clip, float *Y, float *Y_h, float *scratch)
{
    float *xw = scratch, *hr = xw + T * B * H, *h = hr + B * H;
    for (int64_t d = 0; d < D; d++) {
        const int reverse = (reverse_mask >> d) & 1;
        const float *Rd = R + d * H * H;
        const float *wb = Bias ? Bias + d * 2 * H : NULL;
        rnn_prologue(T, B, I, H, D, 1, layout, d, X, W, h0, NULL, xw, h, NULL);
        rnn_zero_y(T, B, H, D, layout, seq_lens, d, Y);
        for (int64_t s = 0; s < T; s++) {
            gemm_f32(B, H, H, h, H, 1, Rd, 1, H, hr); /* hr = h x R^T */
            for (int64_t b = 0; b < B; b++) {
                const int64_t len = rnn_len(seq_lens, T, b);
                if (s >= len)
                    continue;
                const int64_t t = rnn_time(reverse, len, s);
                const float *g = xw + rnn_x_row(layout, T, B, t, b) * H;
                for (int64_t j = 0; j < H; j++) {
                    float v = g[j] + hr[b * H + j];
                    if (wb) {
                        const float bs = wb[j] + wb[H + j];
                        v = v + bs;
                    }
                    h[b * H + j] =
                        rnn_activation(act[d], alpha[d], beta[d], rnn_clip(has_clip, clip, v));
                }
                if (Y)
                    for (int64_t j = 0; j < H; j++)
                        Y[rnn_y_at(layout, T, D, B, H, t, d, b) + j] = h[b * H + j];
            }
        }
        rnn_epilogue(T, B, H, D, layout, seq_lens, d, h, NULL, Y_h, NULL);
    }
}

/* GRU: act[2*d + 0] = f, act[2*d + 1] = g (alpha, beta alongside). */
O2C_KERNEL void gru_f32(int64_t T, int64_t B, int64_t I, int64_t H, int64_t D, int layout,
                        int reverse_mask, int linear_before_reset, const float *X, const float *W,
                        const float *R, const float *Bias, const int32_t *seq_lens, const float *h0,
                        const int32_t *act, const float *alpha, const float *beta, int has_clip,
                        float clip, float *Y, float *Y_h, float *scratch)
{
    float *xw = scratch, *hr = xw + T * B * 3 * H, *h = hr + B * 3 * H, *rh = h + B * H;
    float *hh = rh + B * H; /* GRU (lbr = 0): (r .* h) x Rh^T */
    for (int64_t d = 0; d < D; d++) {
        const int reverse = (reverse_mask >> d) & 1;
        const float *Rd = R + d * 3 * H * H;
        const float *wb = Bias ? Bias + d * 6 * H : NULL, *rb = Bias ? wb + 3 * H : NULL;
        const int fa = act[2 * d], ga = act[2 * d + 1];
        const float f_al = alpha[2 * d], f_be = beta[2 * d];
        const float g_al = alpha[2 * d + 1], g_be = beta[2 * d + 1];
        rnn_prologue(T, B, I, H, D, 3, layout, d, X, W, h0, NULL, xw, h, NULL);
        rnn_zero_y(T, B, H, D, layout, seq_lens, d, Y);
        for (int64_t s = 0; s < T; s++) {
            /* hr[b][0..3H) = h x R^T (lbr = 0 uses only the z and r parts of it) */
            const int64_t hw = linear_before_reset ? 3 * H : 2 * H; /* row width of hr */
            gemm_f32(B, hw, H, h, H, 1, Rd, 1, H, hr);
            for (int64_t b = 0; b < B; b++) {
                const int64_t len = rnn_len(seq_lens, T, b);
                if (s >= len)
                    continue;
                const int64_t t = rnn_time(reverse, len, s);
                const float *g = xw + rnn_x_row(layout, T, B, t, b) * 3 * H;
                const float *q = hr + b * hw;
                /* r gate first (it feeds r .* h); kept in rh, z is recomputed below */
                for (int64_t j = 0; j < H; j++) {
                    float v = g[H + j] + q[H + j];
                    if (wb) {
                        const float bs = wb[H + j] + rb[H + j];
                        v = v + bs;
                    }
                    rh[b * H + j] = rnn_activation(fa, f_al, f_be, rnn_clip(has_clip, clip, v));
                }
            }
            if (!linear_before_reset) {
                /* rh = r .* h, then hh = rh x Rh^T */
                for (int64_t b = 0; b < B; b++)
                    for (int64_t j = 0; j < H; j++)
                        rh[b * H + j] = rh[b * H + j] * h[b * H + j];
                gemm_f32(B, H, H, rh, H, 1, Rd + 2 * H * H, 1, H, hh);
            }
            for (int64_t b = 0; b < B; b++) {
                const int64_t len = rnn_len(seq_lens, T, b);
                if (s >= len)
                    continue;
                const int64_t t = rnn_time(reverse, len, s);
                const float *g = xw + rnn_x_row(layout, T, B, t, b) * 3 * H;
                const float *q = hr + b * hw;
                for (int64_t j = 0; j < H; j++) {
                    float vz = g[j] + q[j];
                    if (wb) {
                        const float bs = wb[j] + rb[j];
                        vz = vz + bs;
                    }
                    const float zg = rnn_activation(fa, f_al, f_be, rnn_clip(has_clip, clip, vz));
                    float vh;
                    if (linear_before_reset) {
                        const float r = rh[b * H + j];
                        const float inner = wb ? q[2 * H + j] + rb[2 * H + j] : q[2 * H + j];
                        const float t1 = r * inner;
                        vh = g[2 * H + j] + t1;
                        if (wb)
                            vh = vh + wb[2 * H + j];
                    } else {
                        vh = g[2 * H + j] + hh[b * H + j];
                        if (wb) {
                            vh = vh + wb[2 * H + j];
                            vh = vh + rb[2 * H + j];
                        }
                    }
                    const float hc = rnn_activation(ga, g_al, g_be, rnn_clip(has_clip, clip, vh));
                    const float a1 = (1.0f - zg) * hc;
                    const float a2 = zg * h[b * H + j];
                    h[b * H + j] = a1 + a2;
                }
                if (Y)
                    for (int64_t j = 0; j < H; j++)
                        Y[rnn_y_at(layout, T, D, B, H, t, d, b) + j] = h[b * H + j];
            }
        }
        rnn_epilogue(T, B, H, D, layout, seq_lens, d, h, NULL, Y_h, NULL);
    }
}

/* LSTM: act[3*d + 0] = f, act[3*d + 1] = g, act[3*d + 2] = h (alpha, beta alongside). */
O2C_KERNEL void lstm_f32(int64_t T, int64_t B, int64_t I, int64_t H, int64_t D, int layout,
                         int reverse_mask, int input_forget, const float *X, const float *W,
                         const float *R, const float *Bias, const int32_t *seq_lens,
                         const float *h0, const float *c0, const float *P, const int32_t *act,
                         const float *alpha, const float *beta, int has_clip, float clip, float *Y,
                         float *Y_h, float *Y_c, float *scratch)
{
    float *xw = scratch, *hr = xw + T * B * 4 * H, *h = hr + B * 4 * H, *c = h + B * H;
    for (int64_t d = 0; d < D; d++) {
        const int reverse = (reverse_mask >> d) & 1;
        const float *Rd = R + d * 4 * H * H;
        const float *wb = Bias ? Bias + d * 8 * H : NULL, *rb = Bias ? wb + 4 * H : NULL;
        const float *p = P ? P + d * 3 * H : NULL;
        const int fa = act[3 * d], ga = act[3 * d + 1], ha = act[3 * d + 2];
        const float f_al = alpha[3 * d], f_be = beta[3 * d];
        const float g_al = alpha[3 * d + 1], g_be = beta[3 * d + 1];
        const float h_al = alpha[3 * d + 2], h_be = beta[3 * d + 2];
        rnn_prologue(T, B, I, H, D, 4, layout, d, X, W, h0, c0, xw, h, c);
        rnn_zero_y(T, B, H, D, layout, seq_lens, d, Y);
        for (int64_t s = 0; s < T; s++) {
            gemm_f32(B, 4 * H, H, h, H, 1, Rd, 1, H, hr); /* hr = h x R^T */
            for (int64_t b = 0; b < B; b++) {
                const int64_t len = rnn_len(seq_lens, T, b);
                if (s >= len)
                    continue;
                const int64_t t = rnn_time(reverse, len, s);
                const float *g = xw + rnn_x_row(layout, T, B, t, b) * 4 * H;
                const float *q = hr + b * 4 * H;
                for (int64_t j = 0; j < H; j++) {
                    float gate[4]; /* i, o, f, c */
                    for (int k = 0; k < 4; k++) {
                        gate[k] = g[k * H + j] + q[k * H + j];
                        if (wb) {
                            const float bs = wb[k * H + j] + rb[k * H + j];
                            gate[k] = gate[k] + bs;
                        }
                    }
                    const float cp = c[b * H + j];
                    float vi = gate[0], vf = gate[2];
                    if (p) {
                        const float pi = p[j] * cp, pf = p[2 * H + j] * cp;
                        vi = vi + pi;
                        vf = vf + pf;
                    }
                    const float ig = rnn_activation(fa, f_al, f_be, rnn_clip(has_clip, clip, vi));
                    const float fg =
                        input_forget ? 1.0f - ig
                                     : rnn_activation(fa, f_al, f_be, rnn_clip(has_clip, clip, vf));
                    const float cg =
                        rnn_activation(ga, g_al, g_be, rnn_clip(has_clip, clip, gate[3]));
                    const float c1 = fg * cp, c2 = ig * cg;
                    const float cn = c1 + c2;
                    float vo = gate[1];
                    if (p) {
                        const float po = p[H + j] * cn;
                        vo = vo + po;
                    }
                    const float og = rnn_activation(fa, f_al, f_be, rnn_clip(has_clip, clip, vo));
                    c[b * H + j] = cn;
                    h[b * H + j] = og * rnn_activation(ha, h_al, h_be, cn);
                }
                if (Y)
                    for (int64_t j = 0; j < H; j++)
                        Y[rnn_y_at(layout, T, D, B, H, t, d, b) + j] = h[b * H + j];
            }
        }
        rnn_epilogue(T, B, H, D, layout, seq_lens, d, h, c, Y_h, Y_c);
    }
}
