/* attention.c — scaled dot-product attention (ONNX Attention, opsets 23 to 25).
 *
 * Layout. geo[] holds the sizes and strides named by the ATT_* enum below. Q, K, V and Y are
 * read through strides, so that 3-D inputs ([batch][seq][heads * size]) and 4-D inputs
 * ([batch][heads][seq][size]) need no transposes: element d of row i of head h of batch b of
 * Q is q[b*Q_SB + h*Q_SH + i*Q_SL + d]; K and V rows are their new (non-past) tokens; Y is
 * written the same way with Dv elements per row. past_k / past_v are [B][Hkv][P][D] / [..][Dv]
 * and present_k / present_v [B][Hkv][P + Snew][D] / [..][Dv]: the past rows, then the new
 * ones. Key / value row j (0 <= j < S = P + Snew) is past row j when j < P, else new row j - P.
 * Query head h reads key/value head h / (Hq / Hkv) (grouped-query attention).
 * qk_out is [B][Hq][L][S]. The mask, when present, is read at
 * mask[b*M_SB + h*M_SH + i*M_SL + j] for j < M_LEN (strides are 0 where it broadcasts); keys
 * j >= M_LEN are masked, as ONNX pads a short mask. nonpad, when given, is [B]: keys
 * j >= nonpad[b] are masked. Any of present_k, present_v, qk_out may be NULL (not wanted).
 *
 * Numerics, per query row (b, h, i), in this order, in float:
 *   qs[d] = q[d] * sqrt_scale, and each key element k[d] * sqrt_scale (the reference scales
 *       Q and K by sqrt(scale) before the product, rounding each)
 *   s[j] = qs[0]*ks[0] + ... accumulated over d ascending with fmaf from 0
 *   softcap > 0: s[j] = tanhf(s[j] / softcap) * softcap
 *   bias[j] = mask term + causal term + window term + padding term, float additions in that
 *       order, where the mask term is the float mask value, 0 / -inf for a bool mask (true
 *       attends), or 0; the others are 0 (allowed) or -inf. With offset = P, or
 *       nonpad[b] - L when nonpad is given, or 0, and p = offset + i: causal allows j <= p;
 *       the window allows p - LEFT <= j (LEFT >= 0) and j <= p + RIGHT (RIGHT >= 0)
 *   x[j] = s[j] + bias[j]
 *   softmax of x as softmax.c computes it (max, expf(x - max), ascending sum, divide), except
 *       that a max of -inf is replaced by 0 and a sum of 0 by 1; with SOFTMAX_F64 the max,
 *       exponentials, sum and quotients are double, the result rounded to float
 *   a row whose bias is -inf everywhere (no key attended) gives probabilities 0
 *   y[e] = sum_j p[j] * v[j][e], accumulated over j ascending with fmaf from 0
 * qk_out gets s before softcap (mode 0), after it (mode 1), x (mode 2) or p (mode 3).
 * Nothing is contracted into an fma beyond the explicit fmaf (gcc: ISO mode; clang: pragma).
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

/* Indices into geo[] (kernels.h declares the same enum for the compiler). */
#ifndef ONNX2C_KERNELS_H
enum {
    ATT_B,
    ATT_HQ,
    ATT_HKV,
    ATT_L,
    ATT_SNEW,
    ATT_P,
    ATT_D,
    ATT_DV,
    ATT_Q_SB,
    ATT_Q_SH,
    ATT_Q_SL,
    ATT_K_SB,
    ATT_K_SH,
    ATT_K_SL,
    ATT_V_SB,
    ATT_V_SH,
    ATT_V_SL,
    ATT_Y_SB,
    ATT_Y_SH,
    ATT_Y_SL,
    ATT_MASK_KIND,
    ATT_M_SB,
    ATT_M_SH,
    ATT_M_SL,
    ATT_M_LEN,
    ATT_CAUSAL,
    ATT_LEFT,
    ATT_RIGHT,
    ATT_QK_MODE,
    ATT_SOFTMAX,
    ATT_ROUND,
    ATT_NGEO
};
enum { ATT_MASK_NONE = 0, ATT_MASK_BOOL = 1, ATT_MASK_FLOAT = 2 };
#endif

/* Defined in types.c (pasted before this file in generated code; linked in the compiler). */
O2C_KERNEL float half_to_float(uint16_t h);
O2C_KERNEL float bfloat16_to_float(uint16_t h);
O2C_KERNEL uint16_t float_to_half(float f);
O2C_KERNEL uint16_t float_to_bfloat16(float f);

/* x rounded to float16 (type 10) or bfloat16 (16), to nearest even; other types: x. */
O2C_KERNEL float attention_round(int64_t type, float x)
{
    if (type == 10)
        return half_to_float(float_to_half(x));
    if (type == 16)
        return bfloat16_to_float(float_to_bfloat16(x));
    return x;
}

/* Copies n rows of len floats, src rows src_stride apart, to dst (contiguous). */
O2C_KERNEL void attention_copy_rows(int64_t n, int64_t len, const float *src, int64_t src_stride,
                                    float *dst)
{
    for (int64_t r = 0; r < n; r++)
        for (int64_t e = 0; e < len; e++)
            dst[r * len + e] = src[r * src_stride + e];
}

/* present = past rows then new rows, per (batch, kv head). */
O2C_KERNEL void attention_present(const int64_t *geo, int64_t len, const float *past,
                                  const float *x, int64_t x_sb, int64_t x_sh, int64_t x_sl,
                                  float *present)
{
    const int64_t P = geo[ATT_P], S = geo[ATT_P] + geo[ATT_SNEW];
    for (int64_t b = 0; b < geo[ATT_B]; b++)
        for (int64_t h = 0; h < geo[ATT_HKV]; h++) {
            float *dst = present + (b * geo[ATT_HKV] + h) * S * len;
            if (P > 0)
                attention_copy_rows(P, len, past + (b * geo[ATT_HKV] + h) * P * len, len, dst);
            attention_copy_rows(geo[ATT_SNEW], len, x + b * x_sb + h * x_sh, x_sl, dst + P * len);
        }
}

/* Additive bias of key j for query row i of batch b, head h (see the header comment). */
O2C_KERNEL float attention_bias(const int64_t *geo, const void *mask, const int64_t *nonpad,
                                int64_t b, int64_t h, int64_t i, int64_t j)
{
    const float neg_inf = -INFINITY;
    float bias = 0.0f;
    if (geo[ATT_MASK_KIND] != ATT_MASK_NONE) {
        const int64_t at = b * geo[ATT_M_SB] + h * geo[ATT_M_SH] + i * geo[ATT_M_SL] + j;
        if (j >= geo[ATT_M_LEN])
            bias = neg_inf;
        else if (geo[ATT_MASK_KIND] == ATT_MASK_BOOL)
            bias = ((const uint8_t *)mask)[at] ? 0.0f : neg_inf;
        else
            bias = ((const float *)mask)[at];
    }
    const int64_t offset = nonpad ? nonpad[b] - geo[ATT_L] : geo[ATT_P];
    const int64_t p = offset + i;
    if (geo[ATT_CAUSAL])
        bias = bias + (j <= p ? 0.0f : neg_inf);
    if (geo[ATT_LEFT] >= 0 || geo[ATT_RIGHT] >= 0) {
        const int allowed = (geo[ATT_LEFT] < 0 || p - j <= geo[ATT_LEFT]) &&
                            (geo[ATT_RIGHT] < 0 || j - p <= geo[ATT_RIGHT]);
        bias = bias + (allowed ? 0.0f : neg_inf);
    }
    if (nonpad)
        bias = bias + (j < nonpad[b] ? 0.0f : neg_inf);
    return bias;
}

/* In-place softmax of x[0..S-1] with the fully-masked conventions of the header comment, in
 * float (type 1), double (11) or step by step in float16 / bfloat16 (10 / 16). */
O2C_KERNEL void attention_softmax(int64_t S, int64_t type, float *x)
{
    float m = x[0];
    for (int64_t j = 1; j < S; j++)
        if (x[j] > m)
            m = x[j];
    if (m == -INFINITY)
        m = 0.0f;
    if (type == 11) {
        double s = 0.0;
        for (int64_t j = 0; j < S; j++)
            s = s + exp((double)x[j] - (double)m);
        if (s == 0.0)
            s = 1.0;
        for (int64_t j = 0; j < S; j++)
            x[j] = (float)(exp((double)x[j] - (double)m) / s);
        return;
    }
    float s = 0.0f;
    for (int64_t j = 0; j < S; j++) {
        x[j] = attention_round(type, o2c_expf(attention_round(type, x[j] - m)));
        s = type == 16 ? attention_round(type, s + x[j]) : s + x[j];
    }
    s = attention_round(type, s);
    if (s == 0.0f)
        s = 1.0f;
    for (int64_t j = 0; j < S; j++)
        x[j] = attention_round(type, x[j] / s);
}

/* Row j of the keys (or values) of batch b, kv head h: past row or new row. */
O2C_KERNEL const float *attention_kv_row(const int64_t *geo, const float *past, const float *x,
                                         int64_t sb, int64_t sh, int64_t sl, int64_t len, int64_t b,
                                         int64_t h, int64_t j)
{
    const int64_t P = geo[ATT_P];
    if (j < P)
        return past + ((b * geo[ATT_HKV] + h) * P + j) * len;
    return x + b * sb + h * sh + (j - P) * sl;
}

/* Scores of one query row qs[D] against all S keys into x[S] (and qk_out in modes 0, 1). */
O2C_KERNEL void attention_scores(const int64_t *geo, float sqrt_scale, float softcap,
                                 const float *qs, const float *k, const float *past_k, int64_t b,
                                 int64_t hk, float *x, float *qk_row)
{
    const int64_t D = geo[ATT_D], S = geo[ATT_P] + geo[ATT_SNEW], r = geo[ATT_ROUND];
    for (int64_t j = 0; j < S; j++) {
        const float *kr = attention_kv_row(geo, past_k, k, geo[ATT_K_SB], geo[ATT_K_SH],
                                           geo[ATT_K_SL], D, b, hk, j);
        float acc = 0.0f;
        for (int64_t d = 0; d < D; d++) {
            const float ks = attention_round(r, kr[d] * sqrt_scale);
            acc = fmaf(qs[d], ks, acc);
        }
        acc = attention_round(r, acc);
        if (qk_row && geo[ATT_QK_MODE] == 0)
            qk_row[j] = acc;
        if (softcap > 0.0f) {
            acc = attention_round(r, o2c_tanhf(attention_round(r, acc / softcap)));
            acc = attention_round(r, acc * softcap);
        }
        if (qk_row && geo[ATT_QK_MODE] == 1)
            qk_row[j] = acc;
        x[j] = acc;
    }
}

/* scratch holds D + S floats. */
O2C_KERNEL void attention_f32(const int64_t *geo, float sqrt_scale, float softcap, const float *q,
                              const float *k, const float *v, const float *past_k,
                              const float *past_v, const void *mask, const int64_t *nonpad,
                              float *y, float *present_k, float *present_v, float *qk_out,
                              float *scratch)
{
    const int64_t Hq = geo[ATT_HQ], L = geo[ATT_L], D = geo[ATT_D], Dv = geo[ATT_DV];
    const int64_t S = geo[ATT_P] + geo[ATT_SNEW], group = geo[ATT_HQ] / geo[ATT_HKV];
    const int64_t r = geo[ATT_ROUND];
    float *qs = scratch, *x = scratch + D;
    if (present_k)
        attention_present(geo, D, past_k, k, geo[ATT_K_SB], geo[ATT_K_SH], geo[ATT_K_SL],
                          present_k);
    if (present_v)
        attention_present(geo, Dv, past_v, v, geo[ATT_V_SB], geo[ATT_V_SH], geo[ATT_V_SL],
                          present_v);
    for (int64_t b = 0; b < geo[ATT_B]; b++)
        for (int64_t h = 0; h < Hq; h++)
            for (int64_t i = 0; i < L; i++) {
                const float *qr = q + b * geo[ATT_Q_SB] + h * geo[ATT_Q_SH] + i * geo[ATT_Q_SL];
                float *qk_row = qk_out ? qk_out + ((b * Hq + h) * L + i) * S : NULL;
                float *yr = y + b * geo[ATT_Y_SB] + h * geo[ATT_Y_SH] + i * geo[ATT_Y_SL];
                const int64_t hk = h / group;
                for (int64_t d = 0; d < D; d++)
                    qs[d] = attention_round(r, qr[d] * sqrt_scale);
                attention_scores(geo, sqrt_scale, softcap, qs, k, past_k, b, hk, x, qk_row);
                int attended = 0;
                for (int64_t j = 0; j < S; j++) {
                    const float bias = attention_bias(geo, mask, nonpad, b, h, i, j);
                    attended |= bias != -INFINITY;
                    x[j] = attention_round(r, x[j] + bias);
                    if (qk_row && geo[ATT_QK_MODE] == 2)
                        qk_row[j] = x[j];
                }
                if (S > 0)
                    attention_softmax(S, geo[ATT_SOFTMAX], x);
                for (int64_t j = 0; j < S; j++) {
                    x[j] = attended ? attention_round(r, x[j]) : 0.0f;
                    if (qk_row && geo[ATT_QK_MODE] == 3)
                        qk_row[j] = x[j];
                }
                for (int64_t e = 0; e < Dv; e++)
                    yr[e] = 0.0f;
                for (int64_t j = 0; j < S; j++) {
                    const float *vr = attention_kv_row(geo, past_v, v, geo[ATT_V_SB], geo[ATT_V_SH],
                                                       geo[ATT_V_SL], Dv, b, hk, j);
                    for (int64_t e = 0; e < Dv; e++)
                        yr[e] = fmaf(x[j], vr[e], yr[e]);
                }
                for (int64_t e = 0; e < Dv; e++)
                    yr[e] = attention_round(r, yr[e]);
            }
}
