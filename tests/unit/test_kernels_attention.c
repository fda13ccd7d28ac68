/* Unit test of templates/attention.c against hand-computed values: softmax weights, masks
 * (float, bool, causal, window, padding), fully masked rows, grouped heads, the past/present
 * cache, softcap and the qk_matmul_output modes, 16-bit rounding, 3-D strides. The templates
 * are compiled after kernels.h with extern kernels, so its prototypes and enum are checked. */
#include "../../templates/kernels.h"

#define O2C_KERNEL
#include "../../templates/attention.c"
#include "../../templates/types.c" /* the 16-bit conversions attention.c uses */

#include <stdio.h>
#include <string.h>

#include "check.h"

static float scratch[64];

/* geo for contiguous 4-D tensors, no mask, no window, mode 0. */
static void geo4(int64_t *g, int64_t B, int64_t Hq, int64_t Hkv, int64_t L, int64_t Snew, int64_t P,
                 int64_t D, int64_t Dv)
{
    memset(g, 0, ATT_NGEO * sizeof(int64_t));
    g[ATT_B] = B, g[ATT_HQ] = Hq, g[ATT_HKV] = Hkv, g[ATT_L] = L, g[ATT_SNEW] = Snew;
    g[ATT_P] = P, g[ATT_D] = D, g[ATT_DV] = Dv;
    g[ATT_Q_SB] = Hq * L * D, g[ATT_Q_SH] = L * D, g[ATT_Q_SL] = D;
    g[ATT_K_SB] = Hkv * Snew * D, g[ATT_K_SH] = Snew * D, g[ATT_K_SL] = D;
    g[ATT_V_SB] = Hkv * Snew * Dv, g[ATT_V_SH] = Snew * Dv, g[ATT_V_SL] = Dv;
    g[ATT_Y_SB] = Hq * L * Dv, g[ATT_Y_SH] = L * Dv, g[ATT_Y_SL] = Dv;
    g[ATT_LEFT] = g[ATT_RIGHT] = -1;
    g[ATT_SOFTMAX] = 1;
}

static int near(float a, float b)
{
    return fabsf(a - b) <= 1e-6f * (1.0f + fabsf(b));
}

static void test_weights(void)
{
    /* q = 1, keys 0 and ln 3: weights 1/4 and 3/4; values 2 and 6: y = 5 */
    int64_t g[ATT_NGEO];
    geo4(g, 1, 1, 1, 1, 2, 0, 1, 1);
    const float q[1] = {1}, k[2] = {0, logf(3.0f)}, v[2] = {2, 6};
    float y[1], qk[2];
    g[ATT_QK_MODE] = 3;
    attention_f32(g, 1.0f, 0.0f, q, k, v, NULL, NULL, NULL, NULL, y, NULL, NULL, qk, scratch);
    check(near(qk[0], 0.25f) && near(qk[1], 0.75f), "softmax weights 1/4, 3/4");
    check(near(y[0], 5.0f), "weighted values");
    /* sqrt_scale 2 multiplies the score by 4: keys 0 and ln(3) / 4 weigh 1/4 and 3/4 again */
    const float k2[2] = {0, logf(3.0f) / 4.0f};
    attention_f32(g, 2.0f, 0.0f, q, k2, v, NULL, NULL, NULL, NULL, y, NULL, NULL, qk, scratch);
    check(near(qk[1], 0.75f), "scale applied to Q and K");
    /* a float mask adds: mask [ln 3, 0] on keys [0, ln 3] gives equal weights */
    const float fmask[2] = {logf(3.0f), 0};
    g[ATT_MASK_KIND] = ATT_MASK_FLOAT, g[ATT_M_LEN] = 2;
    attention_f32(g, 1.0f, 0.0f, q, k, v, NULL, NULL, fmask, NULL, y, NULL, NULL, qk, scratch);
    check(near(y[0], 4.0f), "float mask added to the scores");
    /* a mask shorter than the keys masks the rest: only key 0 */
    g[ATT_M_LEN] = 1;
    attention_f32(g, 1.0f, 0.0f, q, k, v, NULL, NULL, fmask, NULL, y, NULL, NULL, qk, scratch);
    check(y[0] == 2.0f && qk[1] == 0.0f, "short mask pads with -inf");
}

static void test_masks(void)
{
    /* L = 2, S = 2, causal + bool mask: row 0 allowed only key 0 by causality but the mask
     * forbids it -> fully masked, zero; row 1 sees key 1 only */
    int64_t g[ATT_NGEO];
    geo4(g, 1, 1, 1, 2, 2, 0, 1, 1);
    const float q[2] = {1, 1}, k[2] = {0, 0}, v[2] = {3, 5};
    const uint8_t bmask[4] = {0, 1, 0, 1};
    float y[2], qk[4];
    g[ATT_CAUSAL] = 1, g[ATT_MASK_KIND] = ATT_MASK_BOOL, g[ATT_M_SL] = 2, g[ATT_M_LEN] = 2;
    g[ATT_QK_MODE] = 3;
    attention_f32(g, 1.0f, 0.0f, q, k, v, NULL, NULL, bmask, NULL, y, NULL, NULL, qk, scratch);
    check(y[0] == 0.0f && qk[0] == 0.0f && qk[1] == 0.0f, "fully masked row is zero");
    check(y[1] == 5.0f && qk[2] == 0.0f && qk[3] == 1.0f, "causal and bool mask compose");
    /* mode 2 exposes score + bias */
    g[ATT_QK_MODE] = 2;
    attention_f32(g, 1.0f, 0.0f, q, k, v, NULL, NULL, bmask, NULL, y, NULL, NULL, qk, scratch);
    check(qk[0] == -INFINITY && qk[1] == -INFINITY && qk[2] == -INFINITY && qk[3] == 0.0f,
          "mode 2 is score plus bias");
    /* nonpad 3 of S = 4, L = 1, causal: offset 2, keys 0..2; left window 1: keys 1, 2 */
    int64_t g2[ATT_NGEO];
    geo4(g2, 1, 1, 1, 1, 4, 0, 1, 1);
    const float q1[1] = {0}, k4[4] = {0, 0, 0, 0}, v4[4] = {1, 2, 4, 8};
    const int64_t nonpad[1] = {3};
    g2[ATT_CAUSAL] = 1, g2[ATT_LEFT] = 1;
    attention_f32(g2, 1.0f, 0.0f, q1, k4, v4, NULL, NULL, NULL, nonpad, y, NULL, NULL, NULL,
                  scratch);
    check(y[0] == 3.0f, "window, causal offset and padding");
    /* right window 1 without causality, no nonpad: p = 0 sees keys 0, 1 */
    g2[ATT_CAUSAL] = 0, g2[ATT_LEFT] = -1, g2[ATT_RIGHT] = 1;
    attention_f32(g2, 1.0f, 0.0f, q1, k4, v4, NULL, NULL, NULL, NULL, y, NULL, NULL, NULL, scratch);
    check(y[0] == 1.5f, "right window");
    /* negative offset (nonpad 0 < L): the row is empty */
    const int64_t none[1] = {0};
    g2[ATT_RIGHT] = -1, g2[ATT_CAUSAL] = 1;
    attention_f32(g2, 1.0f, 0.0f, q1, k4, v4, NULL, NULL, NULL, none, y, NULL, NULL, NULL, scratch);
    check(y[0] == 0.0f, "negative causal offset masks everything");
}

static void test_cache_heads_softcap(void)
{
    /* Hq 2 share one kv head; past 1 row + 1 new row; D = 1, Dv = 2 */
    int64_t g[ATT_NGEO];
    geo4(g, 1, 2, 1, 1, 1, 1, 1, 2);
    const float q[2] = {0, 0}, k[1] = {7}, v[2] = {4, 6}, pk[1] = {5}, pv[2] = {2, 2};
    float y[4], presk[2], presv[4];
    attention_f32(g, 1.0f, 0.0f, q, k, v, pk, pv, NULL, NULL, y, presk, presv, NULL, scratch);
    check(presk[0] == 5.0f && presk[1] == 7.0f, "present key = past then new");
    check(presv[0] == 2.0f && presv[1] == 2.0f && presv[2] == 4.0f && presv[3] == 6.0f,
          "present value = past then new");
    check(y[0] == 3.0f && y[1] == 4.0f && y[2] == 3.0f && y[3] == 4.0f, "grouped heads");
    /* causal with past: offset P = 1, query 0 sees keys 0 and 1 */
    g[ATT_CAUSAL] = 1;
    attention_f32(g, 1.0f, 0.0f, q, k, v, pk, pv, NULL, NULL, y, NULL, NULL, NULL, scratch);
    check(y[0] == 3.0f, "causal offset is the past length");
    /* softcap 2 on score 3: 2 tanh(1.5); modes 0 and 1 */
    int64_t g1[ATT_NGEO];
    geo4(g1, 1, 1, 1, 1, 1, 0, 1, 1);
    const float q3[1] = {3}, k1[1] = {1}, v1[1] = {9};
    float qk[1], y1[1];
    attention_f32(g1, 1.0f, 2.0f, q3, k1, v1, NULL, NULL, NULL, NULL, y1, NULL, NULL, qk, scratch);
    check(qk[0] == 3.0f && y1[0] == 9.0f, "mode 0 is the raw score");
    g1[ATT_QK_MODE] = 1;
    attention_f32(g1, 1.0f, 2.0f, q3, k1, v1, NULL, NULL, NULL, NULL, y1, NULL, NULL, qk, scratch);
    check(qk[0] == tanhf(1.5f) * 2.0f, "mode 1 is the softcapped score");
    /* softmax in double gives the same simple weights */
    g1[ATT_SOFTMAX] = 11, g1[ATT_QK_MODE] = 3;
    attention_f32(g1, 1.0f, 2.0f, q3, k1, v1, NULL, NULL, NULL, NULL, y1, NULL, NULL, qk, scratch);
    check(qk[0] == 1.0f && y1[0] == 9.0f, "double softmax");
}

static void test_rounding(void)
{
    /* bfloat16 keeps 8 significant bits, float16 11; ties go to even */
    check(attention_round(16, 1.0f + 0x1p-8f) == 1.0f, "bfloat16 tie to even");
    check(attention_round(16, 1.0f + 0x1.8p-8f) == 1.0f + 0x1p-7f, "bfloat16 rounds up");
    check(attention_round(10, 1.0f + 0x1p-11f) == 1.0f, "float16 tie to even");
    check(attention_round(1, 1.0f + 0x1p-11f) == 1.0f + 0x1p-11f, "float32 unchanged");
    /* bfloat16 throughout: q 1, keys 0 and 0.5, values 2 and 1. exp(-0.5) rounds to
     * 0.60546875; the sum 1.60546875 is a tie, to even 1.609375; the weights
     * 0.60546875 / 1.609375 -> 0.376953125 and 1 / 1.609375 -> 0.62109375;
     * y = 2 * 0.376953125 + 0.62109375 = 1.375 (as numpy with ml_dtypes computes it) */
    int64_t g[ATT_NGEO];
    geo4(g, 1, 1, 1, 1, 2, 0, 1, 1);
    g[ATT_ROUND] = 16, g[ATT_SOFTMAX] = 16, g[ATT_QK_MODE] = 3;
    const float q[1] = {1}, k[2] = {0, 0.5f}, v[2] = {2, 1};
    float y[1], qk[2];
    attention_f32(g, 1.0f, 0.0f, q, k, v, NULL, NULL, NULL, NULL, y, NULL, NULL, qk, scratch);
    check(qk[0] == 0.376953125f && qk[1] == 0.62109375f, "bfloat16 softmax steps");
    check(y[0] == 1.375f, "bfloat16 output");
}

static void test_3d_strides(void)
{
    /* 3-D: Q [1][1][2 heads * D 1], K, V [1][2][1 head * 1]; Y [1][1][2 heads * 1] */
    int64_t g[ATT_NGEO];
    geo4(g, 1, 2, 1, 1, 2, 0, 1, 1);
    g[ATT_Q_SB] = 2, g[ATT_Q_SH] = 1, g[ATT_Q_SL] = 2;
    g[ATT_K_SB] = 2, g[ATT_K_SH] = 1, g[ATT_K_SL] = 1;
    g[ATT_V_SB] = 2, g[ATT_V_SH] = 1, g[ATT_V_SL] = 1;
    g[ATT_Y_SB] = 2, g[ATT_Y_SH] = 1, g[ATT_Y_SL] = 2;
    const float q[2] = {0, 1}, k[2] = {0, logf(3.0f)}, v[2] = {2, 6};
    float y[2];
    attention_f32(g, 1.0f, 0.0f, q, k, v, NULL, NULL, NULL, NULL, y, NULL, NULL, NULL, scratch);
    check(y[0] == 4.0f && near(y[1], 5.0f), "3-D head strides");
}

int main(void)
{
    test_weights();
    test_masks();
    test_cache_heads_softcap();
    test_rounding();
    test_3d_strides();
    printf("%d passed, %d failed\n", n_passed, n_failed);
    return n_failed != 0;
}
