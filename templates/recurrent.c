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
 * Numerics: every product accumulates over k ascending with fmaf from 0 (gemm_f32 of
 * templates/gemm.c, pasted before this file, or in generated code a libxsmm kernel the init
 * check found bit-identical). X x W^T is one product over all T*B rows of X, or in generated
 * code whose arena budget is tight one per chunk of steps (each element is still its own
 * ascending-k sum, so the bits are those of a per-step product): the step kernels read xw
 * holding the rows of times xt0 .. xt0+xnt-1 (all: 0, T) in X's row order; then each
 * step is one product h x R^T (GRU with linear_before_reset = 0: h x [Rz Rr]^T, then
 * (r .* h) x Rh^T) followed by the gate pass below. Per element, in the onnx reference's
 * order (two roundings never fused):
 *   RNN   Ht = f(clip((xw + hr) + (wb + rb)))
 *   GRU   z  = f(clip((xw_z + hr_z) + (wb_z + rb_z)))   r likewise
 *         lbr=0: h = g(clip(((xw_h + (r.*Ht-1) x Rh^T) + wb_h) + rb_h))
 *         lbr=1: h = g(clip((xw_h + r * (hr_h + rb_h)) + wb_h))
 *         Ht = (1 - z) * h + z * Ht-1
 *   LSTM  gates = (xw + hr) + (wb + rb)
 *         i = f(clip(gi + pi * Ct-1)),  f = f(clip(gf + pf * Ct-1)) (input_forget: f = 1 - i)
 *         c = g(clip(gc)),  Ct = f * Ct-1 + i * c,  o = f(clip(go + po * Ct)),  Ht = o * h(Ct)
 * The gate pass works in place on the row of h x R^T, one loop per formula and activation
 * (Sigmoid and Tanh are loops over templates/mathfn.c's functions, which vectorise).
 *
 * The whole-layer kernels rnn_f32, gru_f32 and lstm_f32 (constant folding, tests) and the
 * generated code (compiler/ops/recurrent.c: the products emitted as libxsmm calls) run the
 * same pieces: rnn_begin_f32, the step's products, rnn_step_f32 / gru_reset_f32 +
 * gru_update_f32 / lstm_step_f32, rnn_end_f32.
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

/* Activation codes (the compiler's table in ops/recurrent.c uses the same numbers). */
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
 * the states (h, c, and GRU's r .* h and (r .* h) x Rh^T). */
O2C_KERNEL int64_t rnn_scratch_floats(int64_t T, int64_t B, int64_t H, int64_t G)
{
    return T * B * G * H + B * G * H + 3 * B * H;
}

/* Element offsets of the layout-dependent tensors. */
static int64_t rnn_x_row(int layout, int64_t T, int64_t B, int64_t t, int64_t b)
{
    return layout ? b * T + t : t * B + b;
}

/* The row of xw holding time t of batch b, xw holding times xt0 .. xt0+xnt-1. */
static int64_t rnn_xw_row(int layout, int64_t B, int64_t xt0, int64_t xnt, int64_t t, int64_t b)
{
    return rnn_x_row(layout, xnt, B, t - xt0, b);
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

/* The time index of step s of a batch of length len. */
static int64_t rnn_time(int reverse, int64_t len, int64_t s)
{
    return reverse ? len - 1 - s : s;
}

/* 1 when every x[0..n) lies in [-bound, bound] (none is NaN). */
static int rnn_row_within(int64_t n, const float *x, float bound)
{
    int ok = 1;
    for (int64_t j = 0; j < n; j++)
        ok &= fabsf(x[j]) <= bound;
    return ok;
}

/* x[0..n) = act(clip(x)) in place: one loop per activation, so the common ones vectorise
 * (each loop computes exactly rnn_activation). A sigmoid row within +-87 (gate
 * pre-activations always are, in practice) runs o2c_sigmoidf_bounded: the same bits for a
 * third less time. Tanh runs in rows of passes (o2c_tanhf_rows). */
static void rnn_act_row(int code, float alpha, float beta, int has_clip, float clip, int64_t n,
                        float *x)
{
    if (has_clip)
        for (int64_t j = 0; j < n; j++)
            x[j] = rnn_clip(1, clip, x[j]);
    if (code == RNN_ACT_SIGMOID && rnn_row_within(n, x, 87.0f))
        for (int64_t j = 0; j < n; j++)
            x[j] = o2c_sigmoidf_bounded(x[j]);
    else if (code == RNN_ACT_SIGMOID)
        for (int64_t j = 0; j < n; j++)
            x[j] = o2c_sigmoidf(x[j]);
    else if (code == RNN_ACT_TANH)
        o2c_tanhf_rows(n, x, x);
    else
        for (int64_t j = 0; j < n; j++)
            x[j] = rnn_activation(code, alpha, beta, x[j]);
}

/* q[0..n) = (g + q) + (wb + rb), the bias sum only when wb is given; rb NULL: wb holds the
 * sum wb + rb already (summed at compile time, the same float). */
static void rnn_gate_pre(int64_t n, const float *g, const float *wb, const float *rb, float *q)
{
    if (wb && rb)
        for (int64_t j = 0; j < n; j++) {
            const float bs = wb[j] + rb[j];
            q[j] = (g[j] + q[j]) + bs;
        }
    else if (wb)
        for (int64_t j = 0; j < n; j++)
            q[j] = (g[j] + q[j]) + wb[j];
    else
        for (int64_t j = 0; j < n; j++)
            q[j] = g[j] + q[j];
}

static void rnn_store_y(int64_t T, int64_t B, int64_t H, int64_t D, int layout, int64_t t,
                        int64_t d, int64_t b, const float *h, float *Y)
{
    if (Y)
        for (int64_t j = 0; j < H; j++)
            Y[rnn_y_at(layout, T, D, B, H, t, d, b) + j] = h[j];
}

/* Start of direction d: h (and c, when not NULL) from h0 / c0 or zeros, and Y's rows past
 * each batch's length zeroed. h, c [B][H]. */
O2C_KERNEL void rnn_begin_f32(int64_t T, int64_t B, int64_t H, int64_t D, int layout, int64_t d,
                              const int32_t *seq_lens, const float *h0, const float *c0, float *h,
                              float *c, float *Y)
{
    for (int64_t b = 0; b < B; b++)
        for (int64_t j = 0; j < H; j++) {
            const int64_t at = rnn_state_at(layout, D, B, H, d, b) + j;
            h[b * H + j] = h0 ? h0[at] : 0.0f;
            if (c)
                c[b * H + j] = c0 ? c0[at] : 0.0f;
        }
    if (Y)
        for (int64_t b = 0; b < B; b++)
            for (int64_t t = rnn_len(seq_lens, T, b); t < T; t++)
                for (int64_t j = 0; j < H; j++)
                    Y[rnn_y_at(layout, T, D, B, H, t, d, b) + j] = 0.0f;
}

/* End of direction d: Y_h, Y_c the final state; 0 for a batch of length 0 (as onnxruntime). */
O2C_KERNEL void rnn_end_f32(int64_t T, int64_t B, int64_t H, int64_t D, int layout, int64_t d,
                            const int32_t *seq_lens, const float *h, const float *c, float *Y_h,
                            float *Y_c)
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

/* RNN step s of direction d, after hr = h x R_d^T: xw [xnt*B][H] (above), hr [B][H]
 * (overwritten), wb [H] this direction's Wb and rb [H] its Rb (rb NULL: wb is their sum; both
 * NULL: no bias), h [B][H] updated for the batches still running, their Y rows written. */
O2C_KERNEL void rnn_step_f32(int64_t T, int64_t B, int64_t H, int64_t D, int layout, int reverse,
                             int64_t d, int64_t s, const int32_t *seq_lens, const float *xw,
                             int64_t xt0, int64_t xnt, float *hr, const float *wb, const float *rb,
                             int act, float alpha, float beta, int has_clip, float clip, float *h,
                             float *Y)
{
    for (int64_t b = 0; b < B; b++) {
        const int64_t len = rnn_len(seq_lens, T, b);
        if (s >= len)
            continue;
        const int64_t t = rnn_time(reverse, len, s);
        float *q = hr + b * H;
        rnn_gate_pre(H, xw + rnn_xw_row(layout, B, xt0, xnt, t, b) * H, wb, rb, q);
        rnn_act_row(act, alpha, beta, has_clip, clip, H, q);
        for (int64_t j = 0; j < H; j++)
            h[b * H + j] = q[j];
        rnn_store_y(T, B, H, D, layout, t, d, b, h + b * H, Y);
    }
}

/* GRU step s, first half, after hr = h x [Rz Rr (Rh when lbr)]^T, hr [B][hw] with hw = 3H
 * when lbr else 2H: the reset gate r into rh [B][H]; without lbr then rh = r .* h, the left
 * operand of the product (r .* h) x Rh^T that comes next. wb [6H]: Wb then Rb (or NULL). */
O2C_KERNEL void gru_reset_f32(int64_t T, int64_t B, int64_t H, int layout, int reverse, int64_t s,
                              const int32_t *seq_lens, int lbr, const float *xw, int64_t xt0,
                              int64_t xnt, float *hr, const float *wb, int fa, float f_al,
                              float f_be, int has_clip, float clip, const float *h, float *rh)
{
    const int64_t hw = lbr ? 3 * H : 2 * H;
    for (int64_t b = 0; b < B; b++) {
        const int64_t len = rnn_len(seq_lens, T, b);
        if (s >= len)
            continue;
        const int64_t t = rnn_time(reverse, len, s);
        float *q = hr + b * hw + H, *r = rh + b * H;
        rnn_gate_pre(H, xw + rnn_xw_row(layout, B, xt0, xnt, t, b) * 3 * H + H, wb ? wb + H : NULL,
                     wb ? wb + 4 * H : NULL, q);
        rnn_act_row(fa, f_al, f_be, has_clip, clip, H, q);
        for (int64_t j = 0; j < H; j++)
            r[j] = q[j];
    }
    if (!lbr)
        for (int64_t b = 0; b < B; b++)
            for (int64_t j = 0; j < H; j++)
                rh[b * H + j] = rh[b * H + j] * h[b * H + j];
}

/* GRU step s, second half: z, the candidate and the new h (Y rows written). hh [B][H] is
 * (r .* h) x Rh^T (lbr = 0; unused with lbr), rh [B][H] holds r (lbr = 1). */
O2C_KERNEL void gru_update_f32(int64_t T, int64_t B, int64_t H, int64_t D, int layout, int reverse,
                               int64_t d, int64_t s, const int32_t *seq_lens, int lbr,
                               const float *xw, int64_t xt0, int64_t xnt, float *hr,
                               const float *hh, const float *rh, const float *wb, int fa,
                               float f_al, float f_be, int ga, float g_al, float g_be, int has_clip,
                               float clip, float *h, float *Y)
{
    const int64_t hw = lbr ? 3 * H : 2 * H;
    const float *rb = wb ? wb + 3 * H : NULL;
    for (int64_t b = 0; b < B; b++) {
        const int64_t len = rnn_len(seq_lens, T, b);
        if (s >= len)
            continue;
        const int64_t t = rnn_time(reverse, len, s);
        const float *g = xw + rnn_xw_row(layout, B, xt0, xnt, t, b) * 3 * H;
        float *z = hr + b * hw;
        /* the candidate's pre-activation goes to the r part of hr (consumed already) */
        float *hc = z + H;
        rnn_gate_pre(H, g, wb, rb, z);
        rnn_act_row(fa, f_al, f_be, has_clip, clip, H, z);
        if (lbr) {
            const float *qh = z + 2 * H, *r = rh + b * H;
            for (int64_t j = 0; j < H; j++) {
                const float inner = wb ? qh[j] + rb[2 * H + j] : qh[j];
                const float t1 = r[j] * inner;
                const float v = g[2 * H + j] + t1;
                hc[j] = wb ? v + wb[2 * H + j] : v;
            }
        } else {
            const float *p = hh + b * H;
            for (int64_t j = 0; j < H; j++) {
                const float v = g[2 * H + j] + p[j];
                hc[j] = wb ? (v + wb[2 * H + j]) + rb[2 * H + j] : v;
            }
        }
        rnn_act_row(ga, g_al, g_be, has_clip, clip, H, hc);
        float *hb = h + b * H;
        for (int64_t j = 0; j < H; j++) {
            const float a1 = (1.0f - z[j]) * hc[j];
            const float a2 = z[j] * hb[j];
            hb[j] = a1 + a2;
        }
        rnn_store_y(T, B, H, D, layout, t, d, b, hb, Y);
    }
}

/* LSTM step s, after hr = h x R_d^T (hr [B][4H], gates i, o, f, c; overwritten): wb [4H] Wb
 * and rb [4H] Rb (as rnn_step_f32: rb NULL, wb their sum), p [3H] peepholes i, o, f (or
 * NULL); h, c [B][H] updated for the batches still running, their Y rows written. */
O2C_KERNEL void lstm_step_f32(int64_t T, int64_t B, int64_t H, int64_t D, int layout, int reverse,
                              int64_t d, int64_t s, const int32_t *seq_lens, int input_forget,
                              const float *xw, int64_t xt0, int64_t xnt, float *hr, const float *wb,
                              const float *rb, const float *p, int fa, float f_al, float f_be,
                              int ga, float g_al, float g_be, int ha, float h_al, float h_be,
                              int has_clip, float clip, float *h, float *c, float *Y)
{
    for (int64_t b = 0; b < B; b++) {
        const int64_t len = rnn_len(seq_lens, T, b);
        if (s >= len)
            continue;
        const int64_t t = rnn_time(reverse, len, s);
        float *q = hr + b * 4 * H, *hb = h + b * H, *cb = c + b * H;
        float *gi = q, *go = q + H, *gf = q + 2 * H, *gc = q + 3 * H;
        rnn_gate_pre(4 * H, xw + rnn_xw_row(layout, B, xt0, xnt, t, b) * 4 * H, wb, rb, q);
        if (p)
            for (int64_t j = 0; j < H; j++) {
                const float pi = p[j] * cb[j], pf = p[2 * H + j] * cb[j];
                gi[j] = gi[j] + pi;
                gf[j] = gf[j] + pf;
            }
        if (p) {
            rnn_act_row(fa, f_al, f_be, has_clip, clip, H, gi);
            if (!input_forget)
                rnn_act_row(fa, f_al, f_be, has_clip, clip, H, gf);
        } else /* o needs no Ct: i, o (and f) are one row, gates i, o, f being contiguous */
            rnn_act_row(fa, f_al, f_be, has_clip, clip, (input_forget ? 2 : 3) * H, gi);
        if (input_forget)
            for (int64_t j = 0; j < H; j++)
                gf[j] = 1.0f - gi[j];
        rnn_act_row(ga, g_al, g_be, has_clip, clip, H, gc);
        for (int64_t j = 0; j < H; j++) {
            const float c1 = gf[j] * cb[j], c2 = gi[j] * gc[j];
            cb[j] = c1 + c2;
        }
        if (p) {
            for (int64_t j = 0; j < H; j++) {
                const float po = p[H + j] * cb[j];
                go[j] = go[j] + po;
            }
            rnn_act_row(fa, f_al, f_be, has_clip, clip, H, go);
        }
        /* h(Ct) takes no clip */
        for (int64_t j = 0; j < H; j++)
            hb[j] = cb[j];
        rnn_act_row(ha, h_al, h_be, 0, 0.0f, H, hb);
        for (int64_t j = 0; j < H; j++)
            hb[j] = go[j] * hb[j];
        rnn_store_y(T, B, H, D, layout, t, d, b, hb, Y);
    }
}

/* ---- zero-scratch steps: a layer whose own tensors fill the arena's bound ----
 * Each unit j of step s on its own: its gate pre-activations are the dot products of x_t with
 * row j of W_d and of Ht-1 with row j of R_d (rnn_dot: over k ascending with fmaf from +0, the
 * bits of the products above), then the gate formulas of the step kernels above, in their
 * order, element by element. Ht-1 is Y's row of the step before (h0, or zeros, at step 0) and
 * Ht goes straight into Y's row of time t; LSTM's Ct replaces Ct-1 in Y_c (unit j reads and
 * writes only its own element), GRU's r .* Ht-1 (lbr = 0: every unit reads all of it) waits
 * in Y_h. So the layer needs no arena memory, at the cost of products that do not vectorise
 * (compiler/ops/recurrent.c picks these only where the bound leaves no room). Requires Y (and
 * Y_c for LSTM, Y_h for GRU with lbr = 0), no sequence_lens, Y not over X; rnn_units_end_f32
 * then writes Y_h from Y's last row. W_d [G*H][I], R_d [G*H][H], h0 / c0 as above. */

/* a[0..n) . w[0..n) in the order of every product; a NULL is a row of zeros. */
static float rnn_dot(int64_t n, const float *a, const float *w)
{
    float acc = 0.0f;
    for (int64_t k = 0; k < n; k++)
        acc = fmaf(a ? a[k] : 0.0f, w[k], acc);
    return acc;
}

/* Gate row g of unit j: (x . W_g + h . R_g) + (wb_g + rb_g), as rnn_gate_pre (wb [2GH]). */
static float rnn_unit_pre(int64_t I, int64_t H, int64_t GH, const float *x, const float *h,
                          const float *W, const float *R, int64_t g, const float *wb)
{
    const float v = rnn_dot(I, x, W + g * I) + rnn_dot(H, h, R + g * H);
    if (!wb)
        return v;
    const float bs = wb[g] + wb[GH + g];
    return v + bs;
}

static float rnn_unit_act(int code, float alpha, float beta, int has_clip, float clip, float x)
{
    return rnn_activation(code, alpha, beta, rnn_clip(has_clip, clip, x));
}

/* Ht-1 of batch b at step s (NULL: zeros), the row of Y the step before wrote, or h0. */
static const float *rnn_units_prev(int64_t T, int64_t B, int64_t H, int64_t D, int layout,
                                   int reverse, int64_t d, int64_t s, int64_t b, const float *h0,
                                   const float *Y)
{
    if (s == 0)
        return h0 ? h0 + rnn_state_at(layout, D, B, H, d, b) : NULL;
    return Y + rnn_y_at(layout, T, D, B, H, rnn_time(reverse, T, s - 1), d, b);
}

/* RNN step s of direction d, unit by unit. */
O2C_KERNEL void rnn_units_step_f32(int64_t T, int64_t B, int64_t I, int64_t H, int64_t D,
                                   int layout, int reverse, int64_t d, int64_t s, const float *X,
                                   const float *W, const float *R, const float *wb, const float *h0,
                                   int act, float alpha, float beta, int has_clip, float clip,
                                   float *Y)
{
    const int64_t t = rnn_time(reverse, T, s);
    for (int64_t b = 0; b < B; b++) {
        const float *x = X + rnn_x_row(layout, T, B, t, b) * I;
        const float *hp = rnn_units_prev(T, B, H, D, layout, reverse, d, s, b, h0, Y);
        float *y = Y + rnn_y_at(layout, T, D, B, H, t, d, b);
        for (int64_t j = 0; j < H; j++)
            y[j] = rnn_unit_act(act, alpha, beta, has_clip, clip,
                                rnn_unit_pre(I, H, H, x, hp, W, R, j, wb));
    }
}

/* GRU step s of direction d, unit by unit (gates z, r, h; wb [6H]). */
O2C_KERNEL void gru_units_step_f32(int64_t T, int64_t B, int64_t I, int64_t H, int64_t D,
                                   int layout, int reverse, int64_t d, int64_t s, int lbr,
                                   const float *X, const float *W, const float *R, const float *wb,
                                   const float *h0, int fa, float f_al, float f_be, int ga,
                                   float g_al, float g_be, int has_clip, float clip, float *Y,
                                   float *Y_h)
{
    const int64_t t = rnn_time(reverse, T, s), GH = 3 * H;
    const float *rb = wb ? wb + GH : NULL;
    for (int64_t b = 0; b < B; b++) {
        const float *x = X + rnn_x_row(layout, T, B, t, b) * I;
        const float *hp = rnn_units_prev(T, B, H, D, layout, reverse, d, s, b, h0, Y);
        float *y = Y + rnn_y_at(layout, T, D, B, H, t, d, b);
        float *rh = lbr ? NULL : Y_h + rnn_state_at(layout, D, B, H, d, b);
        if (!lbr) /* r .* Ht-1, the left operand of every unit's candidate product */
            for (int64_t k = 0; k < H; k++) {
                const float r = rnn_unit_act(fa, f_al, f_be, has_clip, clip,
                                             rnn_unit_pre(I, H, GH, x, hp, W, R, H + k, wb));
                rh[k] = r * (hp ? hp[k] : 0.0f);
            }
        for (int64_t j = 0; j < H; j++) {
            const float z = rnn_unit_act(fa, f_al, f_be, has_clip, clip,
                                         rnn_unit_pre(I, H, GH, x, hp, W, R, j, wb));
            const float xh = rnn_dot(I, x, W + (2 * H + j) * I);
            float hc;
            if (lbr) {
                const float r = rnn_unit_act(fa, f_al, f_be, has_clip, clip,
                                             rnn_unit_pre(I, H, GH, x, hp, W, R, H + j, wb));
                const float qh = rnn_dot(H, hp, R + (2 * H + j) * H);
                const float inner = wb ? qh + rb[2 * H + j] : qh;
                const float t1 = r * inner;
                const float v = xh + t1;
                hc = wb ? v + wb[2 * H + j] : v;
            } else {
                const float v = xh + rnn_dot(H, rh, R + (2 * H + j) * H);
                hc = wb ? (v + wb[2 * H + j]) + rb[2 * H + j] : v;
            }
            hc = rnn_unit_act(ga, g_al, g_be, has_clip, clip, hc);
            const float a1 = (1.0f - z) * hc;
            const float a2 = z * (hp ? hp[j] : 0.0f);
            y[j] = a1 + a2;
        }
    }
}

/* LSTM step s of direction d, unit by unit (gates i, o, f, c; wb [8H]; p [3H] or NULL); Ct in
 * Y_c. */
O2C_KERNEL void lstm_units_step_f32(int64_t T, int64_t B, int64_t I, int64_t H, int64_t D,
                                    int layout, int reverse, int64_t d, int64_t s, int input_forget,
                                    const float *X, const float *W, const float *R, const float *wb,
                                    const float *p, const float *h0, const float *c0, int fa,
                                    float f_al, float f_be, int ga, float g_al, float g_be, int ha,
                                    float h_al, float h_be, int has_clip, float clip, float *Y,
                                    float *Y_c)
{
    const int64_t t = rnn_time(reverse, T, s), GH = 4 * H;
    for (int64_t b = 0; b < B; b++) {
        const int64_t at = rnn_state_at(layout, D, B, H, d, b);
        const float *x = X + rnn_x_row(layout, T, B, t, b) * I;
        const float *hp = rnn_units_prev(T, B, H, D, layout, reverse, d, s, b, h0, Y);
        float *y = Y + rnn_y_at(layout, T, D, B, H, t, d, b);
        for (int64_t j = 0; j < H; j++) {
            const float cp = s ? Y_c[at + j] : c0 ? c0[at + j] : 0.0f;
            float gi = rnn_unit_pre(I, H, GH, x, hp, W, R, j, wb);
            float go = rnn_unit_pre(I, H, GH, x, hp, W, R, H + j, wb);
            float gf = rnn_unit_pre(I, H, GH, x, hp, W, R, 2 * H + j, wb);
            const float gc = rnn_unit_pre(I, H, GH, x, hp, W, R, 3 * H + j, wb);
            if (p) {
                const float pi = p[j] * cp, pf = p[2 * H + j] * cp;
                gi = gi + pi;
                gf = gf + pf;
            }
            const float i = rnn_unit_act(fa, f_al, f_be, has_clip, clip, gi);
            const float f =
                input_forget ? 1.0f - i : rnn_unit_act(fa, f_al, f_be, has_clip, clip, gf);
            const float c = rnn_unit_act(ga, g_al, g_be, has_clip, clip, gc);
            const float c1 = f * cp, c2 = i * c;
            const float cn = c1 + c2;
            if (p) {
                const float po = p[H + j] * cn;
                go = go + po;
            }
            const float o = rnn_unit_act(fa, f_al, f_be, has_clip, clip, go);
            y[j] = o * rnn_activation(ha, h_al, h_be, cn);
            Y_c[at + j] = cn;
        }
    }
}

/* End of a zero-scratch direction d: Y_h (when wanted) from Y's row of the last step. */
O2C_KERNEL void rnn_units_end_f32(int64_t T, int64_t B, int64_t H, int64_t D, int layout,
                                  int reverse, int64_t d, const float *Y, float *Y_h)
{
    for (int64_t b = 0; Y_h && b < B; b++)
        for (int64_t j = 0; j < H; j++)
            Y_h[rnn_state_at(layout, D, B, H, d, b) + j] =
                Y[rnn_y_at(layout, T, D, B, H, rnn_time(reverse, T, T - 1), d, b) + j];
}

/* ---- whole layers (constant folding and tests): the pieces above with gemm_f32 ---- */

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
        const float *wb = Bias ? Bias + d * 2 * H : NULL;
        gemm_f32(T * B, H, I, X, I, 1, W + d * H * I, 1, I, xw); /* xw = X x W_d^T */
        rnn_begin_f32(T, B, H, D, layout, d, seq_lens, h0, NULL, h, NULL, Y);
        for (int64_t s = 0; s < T; s++) {
            gemm_f32(B, H, H, h, H, 1, R + d * H * H, 1, H, hr); /* hr = h x R_d^T */
            rnn_step_f32(T, B, H, D, layout, reverse, d, s, seq_lens, xw, 0, T, hr, wb,
                         wb ? wb + H : NULL, act[d], alpha[d], beta[d], has_clip, clip, h, Y);
        }
        rnn_end_f32(T, B, H, D, layout, d, seq_lens, h, NULL, Y_h, NULL);
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
    const int lbr = linear_before_reset;
    const int64_t hw = lbr ? 3 * H : 2 * H; /* row width of hr */
    for (int64_t d = 0; d < D; d++) {
        const int reverse = (reverse_mask >> d) & 1;
        const float *Rd = R + d * 3 * H * H;
        const float *wb = Bias ? Bias + d * 6 * H : NULL;
        const int fa = act[2 * d], ga = act[2 * d + 1];
        gemm_f32(T * B, 3 * H, I, X, I, 1, W + d * 3 * H * I, 1, I, xw);
        rnn_begin_f32(T, B, H, D, layout, d, seq_lens, h0, NULL, h, NULL, Y);
        for (int64_t s = 0; s < T; s++) {
            gemm_f32(B, hw, H, h, H, 1, Rd, 1, H, hr);
            gru_reset_f32(T, B, H, layout, reverse, s, seq_lens, lbr, xw, 0, T, hr, wb, fa,
                          alpha[2 * d], beta[2 * d], has_clip, clip, h, rh);
            if (!lbr)
                gemm_f32(B, H, H, rh, H, 1, Rd + 2 * H * H, 1, H, hh);
            gru_update_f32(T, B, H, D, layout, reverse, d, s, seq_lens, lbr, xw, 0, T, hr, hh, rh,
                           wb, fa, alpha[2 * d], beta[2 * d], ga, alpha[2 * d + 1], beta[2 * d + 1],
                           has_clip, clip, h, Y);
        }
        rnn_end_f32(T, B, H, D, layout, d, seq_lens, h, NULL, Y_h, NULL);
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
        const float *wb = Bias ? Bias + d * 8 * H : NULL;
        const float *p = P ? P + d * 3 * H : NULL;
        const int32_t *a = act + 3 * d;
        const float *al = alpha + 3 * d, *be = beta + 3 * d;
        gemm_f32(T * B, 4 * H, I, X, I, 1, W + d * 4 * H * I, 1, I, xw);
        rnn_begin_f32(T, B, H, D, layout, d, seq_lens, h0, c0, h, c, Y);
        for (int64_t s = 0; s < T; s++) {
            gemm_f32(B, 4 * H, H, h, H, 1, R + d * 4 * H * H, 1, H, hr);
            lstm_step_f32(T, B, H, D, layout, reverse, d, s, seq_lens, input_forget, xw, 0, T, hr,
                          wb, wb ? wb + 4 * H : NULL, p, a[0], al[0], be[0], a[1], al[1], be[1],
                          a[2], al[2], be[2], has_clip, clip, h, c, Y);
        }
        rnn_end_f32(T, B, H, D, layout, d, seq_lens, h, c, Y_h, Y_c);
    }
}
