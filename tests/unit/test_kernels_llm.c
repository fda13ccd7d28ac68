/* Unit test of templates/llm.c: RMSNormalization, RotaryEmbedding, SwiGLU,
 * CausalConvWithState and LinearAttention against hand-computed values (chosen so that every
 * intermediate is exact in float). */
#include "../../templates/llm.c"

#include <stdio.h>
#include <string.h>

#include "check.h"

static int same(const float *a, const float *b, int n)
{
    for (int i = 0; i < n; i++)
        if (a[i] != b[i])
            return 0;
    return 1;
}

static void test_rmsnorm(void)
{
    /* rows {3, 4} and {0, 0}: mean square 12.5 and 0; eps 3.5 -> rms 4 and sqrt(3.5) */
    const float x[4] = {3, 4, 0, 0}, w[2] = {2, -1};
    const int64_t dims[2] = {2, 2}, ws[2] = {0, 1};
    float y[4];
    rmsnorm_f32(2, 2, 2, dims, ws, 3.5f, x, w, y);
    const float want[4] = {1.5f, -1.0f, 0.0f, -0.0f};
    check(same(y, want, 4), "rmsnorm scale over the last axis");
    /* axis 0 over the whole [2][2] (one row), scale [2][2]: ms = 25/4, eps 3.75 -> rms sqrt(10) */
    const float x2[4] = {1, 2, 2, 4}, w2[4] = {1, 1, 1, 1};
    const int64_t ws2[2] = {2, 1};
    rmsnorm_f32(1, 4, 2, dims, ws2, 3.75f, x2, w2, y);
    const float inv = 1.0f / sqrtf(10.0f);
    check(y[0] == 1.0f * inv && y[1] == 2.0f * inv && y[3] == 4.0f * inv, "rmsnorm axis 0");
    /* scale broadcast along rows: [2][1] strides {1, 0} */
    const float w3[2] = {2, 3};
    const int64_t ws3[2] = {1, 0};
    rmsnorm_f32(2, 2, 2, dims, ws3, 3.5f, x, w3, y);
    check(y[0] == 1.5f && y[1] == 2.0f && y[2] == 0.0f, "rmsnorm scale broadcast per row");
}

static void test_rope(void)
{
    /* one head of D = 6, rd = 4 (half 2): cos {0, 1}, sin {1, 0} at position 1 */
    const float x[6] = {1, 2, 3, 4, 5, 6};
    const float cs[4] = {9, 9, 0, 1}, sn[4] = {9, 9, 1, 0};
    const int64_t pos[1] = {1};
    float y[6];
    /* halves: pairs (x0, x2) and (x1, x3): pair 0 rotated by 90 degrees, pair 1 kept */
    rotary_embedding_f32(1, 1, 1, 6, 6, 6, 6, 4, 0, x, cs, sn, pos, 2, y);
    const float want[6] = {-3, 2, 1, 4, 5, 6};
    check(same(y, want, 6), "rope halves with position ids");
    /* interleaved pairs (x0, x1) and (x2, x3) */
    rotary_embedding_f32(1, 1, 1, 6, 6, 6, 6, 4, 1, x, cs, sn, pos, 2, y);
    const float want_i[6] = {-2, 1, 3, 4, 5, 6};
    check(same(y, want_i, 6), "rope interleaved");
    /* a position out of range leaves the vector unrotated */
    const int64_t bad[1] = {7};
    rotary_embedding_f32(1, 1, 1, 6, 6, 6, 6, 4, 0, x, cs, sn, bad, 2, y);
    check(same(y, x, 6), "rope out-of-range position");
    /* no position ids, 2 heads of D = 2 at strides sh = 2 (the rank-3 layout), b*S+s row */
    const float x2[4] = {1, 2, 3, 4}, c2[1] = {0}, s2[1] = {-1};
    rotary_embedding_f32(1, 1, 2, 2, 4, 4, 2, 2, 0, x2, c2, s2, NULL, 0, y);
    const float want2[4] = {2, -1, 4, -3};
    check(same(y, want2, 4), "rope two heads without position ids");
}

static void test_swiglu(void)
{
    /* a = 0: swish 0; large a: sigmoid 1; alpha 0: sigmoid 1/2 */
    const float a[3] = {0, 100, 4}, b[3] = {5, 3, 3};
    float y[3];
    swiglu_f32(2, 1.0f, a, b, y);
    check(y[0] == 0.0f && y[1] == 300.0f, "swiglu hand");
    swiglu_f32(3, 0.0f, a, b, y);
    check(y[2] == 6.0f, "swiglu alpha 0");
}

static void test_causal_conv(void)
{
    /* B 1, C 2, L 3, K 3: channel 0 weights {1, 10, 100}, channel 1 {1, 0, 0}, bias {0, 1} */
    const float x[6] = {1, 2, 3, 4, 5, 6}, w[6] = {1, 10, 100, 1, 0, 0}, bias[2] = {0, 1};
    const float past[4] = {7, 8, 9, 0};
    float y[6], st[4];
    causal_conv_f32(1, 2, 3, 3, x, w, NULL, NULL, 0, y, st);
    /* p0 = {0, 0, 1, 2, 3}: y = p[t] + 10 p[t+1] + 100 p[t+2]; p1 = {0, 0, 4, 5, 6}: y = p[t] */
    const float want[6] = {100, 210, 321, 0, 0, 4}, want_st[4] = {2, 3, 5, 6};
    check(same(y, want, 6) && same(st, want_st, 4), "causal conv no past");
    causal_conv_f32(1, 2, 3, 3, x, w, bias, past, 0, y, st);
    /* p0 = {7, 8, 1, 2, 3}, p1 = {9, 0, 4, 5, 6} */
    const float want_p[6] = {187, 218, 321, 10, 1, 5};
    check(same(y, want_p, 6) && same(st, want_st, 4), "causal conv past and bias");
    /* silu of 0 is 0; K = 1 has no state */
    const float z[2] = {0, 0}, w1[2] = {1, 1};
    causal_conv_f32(1, 2, 1, 1, z, w1, NULL, NULL, 1, y, NULL);
    check(y[0] == 0.0f && y[1] == 0.0f, "causal conv silu, k 1");
}

static void test_linear_attention(void)
{
    /* B 1, T 2, one head, dk 2, dv 1, scale 1, linear: S += k v; o = q . S */
    const float q[4] = {1, 1, 1, 2}, k[4] = {1, 0, 0, 1}, v[2] = {3, 5};
    float o[2], S[2];
    linear_attention_f32(1, 2, 1, 1, 2, 1, 1.0f, q, k, v, NULL, NULL, 0, NULL, 0, o, S);
    /* t0: S = {3, 0}, o = 3; t1: S = {3, 5}, o = 3 + 10 */
    check(o[0] == 3.0f && o[1] == 13.0f && S[0] == 3.0f && S[1] == 5.0f, "linear attention");
    /* gated with decay 0 (exp 1) per head and delta with beta 1/2, past {1, 1}, scale 2 */
    const float past[2] = {1, 1}, decay[2] = {0, 0}, beta[2] = {0.5f, 0.5f};
    linear_attention_f32(1, 2, 1, 1, 2, 1, 2.0f, q, k, v, past, decay, 0, beta, 1, o, S);
    /* t0: r = 1, u = (3 - 1)/2 = 1, S = {2, 1}, o = 2*3; t1: r = 1, u = 2, S = {2, 3},
     * o = 2*(2 + 6) */
    check(o[0] == 6.0f && o[1] == 16.0f && S[0] == 2.0f && S[1] == 3.0f, "gated delta");
    /* GQA: 2 query heads share the one kv head; T 1 */
    const float q2[4] = {1, 0, 0, 1}, k2[2] = {1, 1}, v2[1] = {4};
    linear_attention_f32(1, 1, 2, 1, 2, 1, 1.0f, q2, k2, v2, NULL, NULL, 0, NULL, 0, o, S);
    check(o[0] == 4.0f && o[1] == 4.0f, "linear attention gqa");
}

int main(void)
{
    test_rmsnorm();
    test_rope();
    test_swiglu();
    test_causal_conv();
    test_linear_attention();
    printf("%d passed, %d failed\n", n_passed, n_failed);
    return n_failed != 0;
}
