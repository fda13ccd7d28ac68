/* llm.c — ops of transformer and state-space language models: RMSNormalization,
 * RotaryEmbedding, SwiGLU, CausalConvWithState, LinearAttention.
 *
 * Numerics: sums start from +0.0f and run in ascending index order; dot products accumulate
 * with fmaf (as every product in onnx2c); every other expression is evaluated in the order
 * written and nothing is contracted (gcc: ISO mode; clang: the pragma).
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

/* Element offset of the i-th element (row-major over dims) under element strides. */
O2C_KERNEL int64_t llm_offset(int rank, const int64_t *dims, const int64_t *strides, int64_t i)
{
    int64_t off = 0;
    for (int d = rank - 1; d >= 0; d--) {
        off += (i % dims[d]) * strides[d];
        i /= dims[d];
    }
    return off;
}

/* RMSNormalization of each row of n elements (the dims from `axis` on):
 *     ms = (sum of x*x in ascending order) / n,  r = 1 / sqrtf(ms + eps),  y = (x * r) * w
 * as the ONNX reference computes it.
 *   x, y   [rows][n], contiguous (y may be x)
 *   w      the scale, read at llm_offset(rank, dims, w_strides, i) for element i of x, where
 *          dims is x's shape and w_strides its broadcast element strides (0 where broadcast) */
O2C_KERNEL void rmsnorm_f32(int64_t rows, int64_t n, int rank, const int64_t *dims,
                            const int64_t *w_strides, float eps, const float *x, const float *w,
                            float *y)
{
    for (int64_t r = 0; r < rows; r++) {
        const float *xr = x + r * n;
        float sq = 0.0f;
        for (int64_t i = 0; i < n; i++)
            sq = sq + xr[i] * xr[i];
        const float inv = 1.0f / sqrtf(sq / (float)n + eps);
        for (int64_t i = 0; i < n; i++) {
            const float s = w[llm_offset(rank, dims, w_strides, r * n + i)];
            y[r * n + i] = (xr[i] * inv) * s;
        }
    }
}

/* RotaryEmbedding. Each (b, s, h) names one head vector of D contiguous elements at
 * x + b*sb + s*ss + h*sh (y has the same layout; y may not be x). Its first rd elements are
 * rotated (rd even; the rest copied) by the angle row c = cos + p*(rd/2), sn = sin + p*(rd/2),
 * where p = pos[b*S + s] when pos is given (a position outside [0, max_pos) leaves the vector
 * unrotated) and p = b*S + s otherwise (caches [B][S][rd/2]). Pairs (x1, x2) are
 * (x[j], x[j + rd/2]) or, interleaved, (x[2j], x[2j+1]):
 *     y1 = c*x1 - sn*x2,   y2 = sn*x1 + c*x2 */
O2C_KERNEL void rotary_embedding_f32(int64_t B, int64_t S, int64_t H, int64_t D, int64_t sb,
                                     int64_t ss, int64_t sh, int64_t rd, int interleaved,
                                     const float *x, const float *cos_cache, const float *sin_cache,
                                     const int64_t *pos, int64_t max_pos, float *y)
{
    const int64_t half = rd / 2;
    for (int64_t b = 0; b < B; b++)
        for (int64_t s = 0; s < S; s++) {
            int64_t p = b * S + s;
            int rotate = 1;
            if (pos) {
                p = pos[b * S + s];
                rotate = p >= 0 && p < max_pos;
            }
            const float *c = cos_cache + (rotate ? p : 0) * half;
            const float *sn = sin_cache + (rotate ? p : 0) * half;
            for (int64_t h = 0; h < H; h++) {
                const float *xv = x + b * sb + s * ss + h * sh;
                float *yv = y + b * sb + s * ss + h * sh;
                for (int64_t j = rotate ? rd : 0; j < D; j++)
                    yv[j] = xv[j];
                for (int64_t j = 0; rotate && j < half; j++) {
                    const int64_t i1 = interleaved ? 2 * j : j;
                    const int64_t i2 = interleaved ? 2 * j + 1 : j + half;
                    const float x1 = xv[i1], x2 = xv[i2];
                    yv[i1] = c[j] * x1 - sn[j] * x2;
                    yv[i2] = sn[j] * x1 + c[j] * x2;
                }
            }
        }
}

/* SwiGLU: y = Swish_alpha(a) * b with math.c's swish_f32 expression,
 *     y = (a * (1 / (1 + expf(-(alpha * a))))) * b,   a, b, y [n] (y may be a or b). */
O2C_KERNEL void swiglu_f32(int64_t n, float alpha, const float *a, const float *b, float *y)
{
    for (int64_t i = 0; i < n; i++) {
        const float v = a[i];
        y[i] = (v * (1.0f / (1.0f + o2c_expf(-(alpha * v))))) * b[i];
    }
}

/* CausalConvWithState: a depthwise causal 1-D convolution over the padded sequence
 * p = concat(past [K-1] (zeros when past is NULL), x [L]) of each (batch, channel):
 *     acc = sum over k ascending of fmaf(w[c][k], p[t + k], acc) from 0,
 *     out = acc + bias[c] (bias may be NULL),  then, with silu set, out * (1 / (1 + expf(-out)))
 *   x, y   [B][C][L];  w [C][K];  bias [C];  past, present [B][C][K-1]
 *   present = the last K-1 elements of p (not written when present is NULL). */
O2C_KERNEL void causal_conv_f32(int64_t B, int64_t C, int64_t L, int64_t K, const float *x,
                                const float *w, const float *bias, const float *past, int silu,
                                float *y, float *present)
{
    const int64_t P = K - 1;
    for (int64_t bc = 0; bc < B * C; bc++) {
        const int64_t c = bc % C;
        const float *xr = x + bc * L, *pr = past ? past + bc * P : NULL, *wr = w + c * K;
        for (int64_t t = 0; t < L; t++) {
            float acc = 0.0f;
            for (int64_t k = 0; k < K; k++) {
                const int64_t j = t + k; /* index into p */
                const float v = j >= P ? xr[j - P] : pr ? pr[j] : 0.0f;
                acc = fmaf(wr[k], v, acc);
            }
            if (bias)
                acc = acc + bias[c];
            y[bc * L + t] = silu ? acc * (1.0f / (1.0f + o2c_expf(-acc))) : acc;
        }
        for (int64_t i = 0; present && i < P; i++) {
            const int64_t j = L + i;
            present[bc * P + i] = j >= P ? xr[j - P] : pr ? pr[j] : 0.0f;
        }
    }
}

/* LinearAttention (one recurrent step per token, in token order), for each batch b and
 * key/value head h of Hkv, on the state S = state[b][h] [dk][dv] (initialised from past, or
 * zeros when past is NULL; state may be past):
 *     gated:  S[d][m] = S[d][m] * expf(g[d])   (g per key dim, or one value per head)
 *     delta:  for each m: r = sum over d ascending of fmaf(S[d][m], k[d], r) from 0,
 *             u[m] = beta * (v[m] - r); else u = v
 *     write:  S[d][m] = S[d][m] + k[d] * u[m]
 *     read:   for each query head hq of the group of h (hq / (Hq / Hkv) == h):
 *             o[m] = scale * (sum over d ascending of fmaf(q[d], S[d][m], acc) from 0)
 *   q, out [B][T][Hq*dk], [B][T][Hq*dv];  k [B][T][Hkv*dk];  v [B][T][Hkv*dv]
 *   decay  [B][T][Hkv*dk] (decay_per_dim) or [B][T][Hkv], NULL when not gated
 *   beta   [B][T][Hkv] or [B][T][1] (beta_per_head 0), NULL when not delta
 *   past, state [B][Hkv][dk][dv]. */
O2C_KERNEL void linear_attention_f32(int64_t B, int64_t T, int64_t Hq, int64_t Hkv, int64_t dk,
                                     int64_t dv, float scale, const float *q, const float *k,
                                     const float *v, const float *past, const float *decay,
                                     int decay_per_dim, const float *beta, int beta_per_head,
                                     float *out, float *state)
{
    const int64_t group = Hq / Hkv;
    for (int64_t b = 0; b < B; b++)
        for (int64_t h = 0; h < Hkv; h++) {
            float *S = state + (b * Hkv + h) * dk * dv;
            for (int64_t i = 0; i < dk * dv; i++)
                S[i] = past ? past[(b * Hkv + h) * dk * dv + i] : 0.0f;
            for (int64_t t = 0; t < T; t++) {
                const int64_t bt = b * T + t;
                const float *kt = k + (bt * Hkv + h) * dk, *vt = v + (bt * Hkv + h) * dv;
                if (decay)
                    for (int64_t d = 0; d < dk; d++) {
                        const float g =
                            decay_per_dim ? decay[(bt * Hkv + h) * dk + d] : decay[bt * Hkv + h];
                        const float e = o2c_expf(g);
                        for (int64_t m = 0; m < dv; m++)
                            S[d * dv + m] = S[d * dv + m] * e;
                    }
                /* column m of S depends on column m only: update column by column */
                for (int64_t m = 0; m < dv; m++) {
                    float u = vt[m];
                    if (beta) {
                        float r = 0.0f;
                        for (int64_t d = 0; d < dk; d++)
                            r = fmaf(S[d * dv + m], kt[d], r);
                        u = beta[beta_per_head ? bt * Hkv + h : bt] * (u - r);
                    }
                    for (int64_t d = 0; d < dk; d++)
                        S[d * dv + m] = S[d * dv + m] + kt[d] * u;
                }
                for (int64_t g = 0; g < group; g++) {
                    const int64_t hq = h * group + g;
                    const float *qt = q + (bt * Hq + hq) * dk;
                    float *ot = out + (bt * Hq + hq) * dv;
                    for (int64_t m = 0; m < dv; m++) {
                        float acc = 0.0f;
                        for (int64_t d = 0; d < dk; d++)
                            acc = fmaf(qt[d], S[d * dv + m], acc);
                        ot[m] = scale * acc;
                    }
                }
            }
        }
}
