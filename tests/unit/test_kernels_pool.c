/* Unit test of templates/pool.c: hand-computed windows (padding, count_include_pad, ceil_mode
 * windows past the padded extent, NaN, empty windows) and bit-identity with a reference that,
 * like the onnx reference, first lays the input out on a padded canvas whose cells are
 * marked input / padding / beyond the padding. The N-d kernels (3-D, Indices, LpPool) must
 * give the bits of the 2-D ones on every 2-D case; plus hand values for 3-D windows,
 * indices, LpPool, GlobalMaxPool and MaxUnpool. */
#include "../../templates/pool.c"

#include <stdio.h>
#include <string.h>

static uint32_t rng_state = 1597334677u; /* seeds rnd() in check.h */
#define CHECK_WITH_RND
#include "check.h"

static int same_bits(const float *a, const float *b, int64_t n)
{
    return memcmp(a, b, (size_t)n * sizeof(float)) == 0;
}

typedef struct {
    const char *name;
    int64_t NC, H, W, KH, KW, sh, sw, pt, pl, pb, pr, dh, dw;
    int ceil_mode;
} PoolCase;

/* Output size as ONNX defines it (floor, or ceil dropping a window that would start in the
 * bottom/right padding). */
static int64_t out_size(int64_t in, int64_t k, int64_t s, int64_t p0, int64_t p1, int64_t d,
                        int ceil_mode)
{
    const int64_t span = in + p0 + p1 - d * (k - 1) - 1;
    int64_t o = (ceil_mode ? (span + s - 1) / s : span / s) + 1;
    if (ceil_mode && (o - 1) * s >= in + p0)
        o--;
    return o;
}

#define MAXE 32768
static float X[MAXE], Y[MAXE], R[MAXE], canvas[MAXE];
static unsigned char kind[MAXE]; /* 0 input, 1 padding, 2 beyond the padding */
static int64_t IDX[MAXE];

/* Reference pooling over a canvas of padded coordinates. op 0 = max, 1 = avg excluding pad,
 * 2 = avg including pad. */
static void pool_ref(const PoolCase *c, int op, int64_t OH, int64_t OW, const float *x, float *y)
{
    const int64_t CH = (OH - 1) * c->sh + (c->KH - 1) * c->dh + 1 + c->H + c->pt + c->pb;
    const int64_t CW = (OW - 1) * c->sw + (c->KW - 1) * c->dw + 1 + c->W + c->pl + c->pr;
    for (int64_t n = 0; n < c->NC; n++) {
        for (int64_t ph = 0; ph < CH; ph++)
            for (int64_t pw = 0; pw < CW; pw++) {
                const int64_t ih = ph - c->pt, iw = pw - c->pl;
                const int in = ih >= 0 && ih < c->H && iw >= 0 && iw < c->W;
                const int padded = ph < c->pt + c->H + c->pb && pw < c->pl + c->W + c->pr;
                kind[ph * CW + pw] = in ? 0 : padded ? 1 : 2;
                canvas[ph * CW + pw] = in ? x[(n * c->H + ih) * c->W + iw] : 0.0f;
            }
        for (int64_t oh = 0; oh < OH; oh++)
            for (int64_t ow = 0; ow < OW; ow++) {
                float best = -INFINITY;
                volatile float sum = 0.0f;
                int64_t cnt_in = 0, cnt_pad = 0;
                for (int64_t kh = 0; kh < c->KH; kh++)
                    for (int64_t kw = 0; kw < c->KW; kw++) {
                        const int64_t at = (oh * c->sh + kh * c->dh) * CW + ow * c->sw + kw * c->dw;
                        if (kind[at] == 0) {
                            best = canvas[at] > best ? canvas[at] : best;
                            sum = sum + canvas[at];
                            cnt_in++;
                        }
                        if (kind[at] <= 1)
                            cnt_pad++;
                    }
                float v = best;
                if (op == 1)
                    v = sum / (float)cnt_in;
                else if (op == 2)
                    v = sum / (float)cnt_pad;
                y[(n * OH + oh) * OW + ow] = v;
            }
    }
}

static void run_case(const PoolCase *c)
{
    const int64_t OH = out_size(c->H, c->KH, c->sh, c->pt, c->pb, c->dh, c->ceil_mode);
    const int64_t OW = out_size(c->W, c->KW, c->sw, c->pl, c->pr, c->dw, c->ceil_mode);
    const int64_t total = c->NC * OH * OW;
    for (int64_t i = 0; i < c->NC * c->H * c->W; i++)
        X[i] = rnd();
    char what[160];
    for (int op = 0; op < 3; op++) {
        Y[total] = 999.0f;
        if (op == 0)
            maxpool_f32(c->NC, c->H, c->W, OH, OW, c->KH, c->KW, c->sh, c->sw, c->pt, c->pl, c->pb,
                        c->pr, c->dh, c->dw, X, Y);
        else
            avgpool_f32(c->NC, c->H, c->W, OH, OW, c->KH, c->KW, c->sh, c->sw, c->pt, c->pl, c->pb,
                        c->pr, c->dh, c->dw, op == 2, X, Y);
        pool_ref(c, op, OH, OW, X, R);
        static const char *const names[3] = {"maxpool", "avgpool exclude pad",
                                             "avgpool include pad"};
        snprintf(what, sizeof what, "%s %s (OH=%d OW=%d)", names[op], c->name, (int)OH, (int)OW);
        check(same_bits(Y, R, total) && Y[total] == 999.0f, what);
        /* the N-d kernel, with the 2-D geometry as 3-D with D = 1 */
        const int64_t in[3] = {1, c->H, c->W}, out[3] = {1, OH, OW}, k[3] = {1, c->KH, c->KW};
        const int64_t st[3] = {1, c->sh, c->sw}, dil[3] = {1, c->dh, c->dw};
        const int64_t pad[6] = {0, c->pt, c->pl, 0, c->pb, c->pr};
        R[total] = 999.0f;
        if (op == 0)
            maxpool_nd_f32(c->NC, in, out, k, st, pad, dil, 0, X, R, IDX);
        else
            avgpool_nd_f32(c->NC, in, out, k, st, pad, dil, op == 2, 0, X, R);
        snprintf(what, sizeof what, "%s_nd %s = 2-D kernel", names[op], c->name);
        check(same_bits(Y, R, total) && R[total] == 999.0f, what);
        if (op == 0) {
            int ok = 1;
            for (int64_t i = 0; i < total; i++)
                ok &= IDX[i] < 0 ? Y[i] == -INFINITY : X[IDX[i]] == Y[i];
            snprintf(what, sizeof what, "maxpool_nd indices %s point at the maxima", c->name);
            check(ok, what);
        }
    }
}

static const PoolCase cases[] = {
    /* name, NC, H, W, KH, KW, sh, sw, pt, pl, pb, pr, dh, dw, ceil_mode */
    {"2x2 stride 2", 3, 6, 6, 2, 2, 2, 2, 0, 0, 0, 0, 1, 1, 0},
    {"3x3 stride 1 pad 1", 2, 5, 7, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 0},
    {"3x3 stride 2 pad 1 (resnet)", 2, 9, 9, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 0},
    {"asym pad", 2, 6, 5, 3, 2, 2, 1, 0, 1, 2, 0, 1, 1, 0},
    {"dilation 2", 1, 9, 8, 3, 2, 1, 2, 1, 2, 1, 2, 2, 3, 0},
    {"ceil 2x2 stride 2 odd size", 2, 5, 7, 2, 2, 2, 2, 0, 0, 0, 0, 1, 1, 1},
    {"ceil 3x3 stride 2 pad 1", 2, 6, 8, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1},
    {"ceil stride 3 pad 1", 1, 10, 11, 3, 3, 3, 3, 1, 1, 1, 1, 1, 1, 1},
    {"ceil with dilation", 1, 10, 9, 2, 3, 3, 2, 0, 1, 0, 1, 2, 2, 1},
    {"1-D", 4, 1, 17, 1, 4, 1, 3, 0, 2, 0, 1, 1, 1, 0},
    {"1-D ceil", 4, 1, 18, 1, 4, 1, 3, 0, 2, 0, 1, 1, 1, 1},
    {"kernel = input", 2, 4, 3, 4, 3, 1, 1, 0, 0, 0, 0, 1, 1, 0},
    {"big kernel with pad", 1, 3, 3, 5, 5, 1, 1, 2, 2, 2, 2, 1, 1, 0},
};

static void test_hand(void)
{
    float x16[16], y[16];
    for (int i = 0; i < 16; i++)
        x16[i] = (float)(i + 1);
    maxpool_f32(1, 4, 4, 2, 2, 2, 2, 2, 2, 0, 0, 0, 0, 1, 1, x16, y);
    check(y[0] == 6 && y[1] == 8 && y[2] == 14 && y[3] == 16, "maxpool 4x4, 2x2 stride 2");

    avgpool_f32(1, 3, 3, 2, 2, 2, 2, 1, 1, 0, 0, 0, 0, 1, 1, 0, x16, y);
    check(y[0] == 3 && y[1] == 4 && y[2] == 6 && y[3] == 7, "avgpool 3x3, 2x2 stride 1");

    /* 2x2 input, 3x3 kernel, pad 1: every window holds all 4 inputs */
    avgpool_f32(1, 2, 2, 2, 2, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, x16, y);
    check(y[0] == 10.0f / 9.0f && y[3] == 10.0f / 9.0f, "avgpool count_include_pad");
    avgpool_f32(1, 2, 2, 2, 2, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 0, x16, y);
    check(y[0] == 2.5f && y[3] == 2.5f, "avgpool excluding pad");

    /* ceil_mode 1-D: W=5, kernel 2, stride 2 -> 3 windows, the last holds x[4] only */
    const float x5[5] = {1, 2, 3, 4, 5};
    avgpool_f32(1, 1, 5, 1, 3, 1, 2, 1, 2, 0, 0, 0, 0, 1, 1, 1, x5, y);
    check(y[0] == 1.5f && y[1] == 3.5f && y[2] == 5.0f,
          "avgpool ceil window past the extent counts neither as input nor pad");
    maxpool_f32(1, 1, 5, 1, 3, 1, 2, 1, 2, 0, 0, 0, 0, 1, 1, x5, y);
    check(y[0] == 2 && y[1] == 4 && y[2] == 5, "maxpool ceil window");

    /* ceil_mode with pad 1: W=6, kernel 3, stride 2 -> 4 windows starting -1, 1, 3, 5; the
     * last covers x[5], the pad at 6 and 7 beyond it */
    const float x6[6] = {1, 2, 3, 4, 5, 6};
    avgpool_f32(1, 1, 6, 1, 4, 1, 3, 1, 2, 0, 1, 0, 1, 1, 1, 1, x6, y);
    check(y[0] == 3.0f / 3.0f && y[1] == 9.0f / 3.0f && y[2] == 15.0f / 3.0f && y[3] == 6.0f / 2.0f,
          "avgpool ceil with pad, include pad");
    avgpool_f32(1, 1, 6, 1, 4, 1, 3, 1, 2, 0, 1, 0, 1, 1, 1, 0, x6, y);
    check(y[0] == 1.5f && y[1] == 3.0f && y[2] == 5.0f && y[3] == 6.0f,
          "avgpool ceil with pad, exclude pad");

    /* NaN is skipped by max; a window with no input gives -inf */
    const float xn[2] = {NAN, 1.0f};
    maxpool_f32(1, 1, 2, 1, 1, 1, 2, 1, 1, 0, 0, 0, 0, 1, 1, xn, y);
    check(y[0] == 1.0f, "maxpool skips NaN");
    const float x1[1] = {7.0f};
    maxpool_f32(1, 1, 1, 1, 3, 1, 1, 1, 1, 0, 1, 0, 1, 1, 1, x1, y);
    check(y[0] == -INFINITY && y[1] == 7.0f && y[2] == -INFINITY,
          "maxpool window entirely in padding gives -inf");
    avgpool_f32(1, 1, 1, 1, 3, 1, 1, 1, 1, 0, 1, 0, 1, 1, 1, 1, x1, y);
    check(y[0] == 0.0f && !signbit(y[0]) && y[1] == 7.0f,
          "avgpool include pad, all-pad window is 0");
    avgpool_f32(1, 1, 1, 1, 3, 1, 1, 1, 1, 0, 1, 0, 1, 1, 1, 0, x1, y);
    check(isnan(y[0]) && y[1] == 7.0f, "avgpool exclude pad, all-pad window is NaN (0/0)");

    /* negative values: max must not be fooled by the padding (which is not 0 for max) */
    const float neg[4] = {-4, -3, -2, -1};
    maxpool_f32(1, 2, 2, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, neg, y);
    check(y[0] == -4 && y[4] == -1 && y[8] == -1, "maxpool ignores padding for negative inputs");

    /* global average */
    float g[2];
    global_avgpool_f32(2, 4, x16, g);
    check(g[0] == 2.5f && g[1] == 6.5f, "global_avgpool");
    const float mz[2] = {-0.0f, -0.0f};
    global_avgpool_f32(1, 2, mz, g);
    check(g[0] == 0.0f && !signbit(g[0]), "global_avgpool sums from +0.0f");
}

static void test_global_random(void)
{
    /* 37 channels: two blocks of 16 summed side by side and 5 alone */
    const int64_t NC = 37, HW = 49;
    float g[37];
    for (int64_t i = 0; i < NC * HW; i++)
        X[i] = rnd();
    global_avgpool_f32(NC, HW, X, g);
    int ok = 1;
    for (int64_t c = 0; c < NC; c++) {
        volatile float s = 0.0f;
        for (int64_t p = 0; p < HW; p++)
            s = s + X[c * HW + p];
        ok &= g[c] == s / 49.0f;
    }
    check(ok, "global_avgpool random, ascending sum then divide");
    /* as avgpool with the whole image as window */
    avgpool_f32(NC, 7, 7, 1, 1, 7, 7, 1, 1, 0, 0, 0, 0, 1, 1, 0, X, Y);
    check(same_bits(Y, g, NC), "global_avgpool equals avgpool with a 7x7 window");
    /* DS-CNN's pool: a 25x5 window over a 25x5 image, with and without count_include_pad */
    for (int64_t i = 0; i < NC * 125; i++)
        X[i] = rnd();
    for (int inc = 0; inc < 2; inc++) {
        avgpool_f32(NC, 25, 5, 1, 1, 25, 5, 25, 5, 0, 0, 0, 0, 1, 1, inc, X, Y);
        ok = 1;
        for (int64_t c = 0; c < NC; c++) {
            volatile float s = 0.0f;
            for (int64_t p = 0; p < 125; p++)
                s = s + X[c * 125 + p];
            const float want = s / 125.0f;
            ok &= same_bits(&Y[c], &want, 1);
        }
        check(ok, inc ? "avgpool 25x5 window = image, include pad: ascending sum then divide"
                      : "avgpool 25x5 window = image: ascending sum then divide");
    }
}

static void test_nd_hand(void)
{
    float x[128], y[64];
    int64_t idx[64];
    for (int i = 0; i < 128; i++)
        x[i] = (float)(i % 64);
    x[21] = x[64 + 21] = 100.0f; /* (d 1, h 1, w 1) of a 4x4x4 cube */
    /* 3-D max 2x2x2 stride 2: 8 windows, the first holds 100 at index 21 */
    const int64_t in[3] = {4, 4, 4}, out[3] = {2, 2, 2}, k[3] = {2, 2, 2}, st[3] = {2, 2, 2};
    const int64_t one[3] = {1, 1, 1}, nopad[6] = {0, 0, 0, 0, 0, 0};
    maxpool_nd_f32(1, in, out, k, st, nopad, one, 0, x, y, idx);
    check(y[0] == 100.0f && idx[0] == 21 && y[7] == 63.0f && idx[7] == 63, "maxpool 3-D hand");
    /* the second image's indices count the first one's elements */
    maxpool_nd_f32(2, in, out, k, st, nopad, one, 0, x, y, idx);
    check(idx[8] == 64 + 21 && idx[15] == 127, "maxpool indices include the channel");
    /* 3-D average of a 2x2x2 window */
    avgpool_nd_f32(1, in, out, k, st, nopad, one, 0, 0, x, y);
    check(y[7] == (42.0f + 43 + 46 + 47 + 58 + 59 + 62 + 63) / 8.0f, "avgpool 3-D hand");

    /* storage_order 1 (2-D): column-major spatial index */
    const float x6[6] = {1, 9, 3, 4, 5, 6}; /* [2][3]: max 9 at (h 0, w 1) */
    const int64_t in2[3] = {1, 2, 3}, out2[3] = {1, 1, 1}, k2[3] = {1, 2, 3};
    maxpool_nd_f32(1, in2, out2, k2, one, nopad, one, 1, x6, y, idx);
    check(y[0] == 9.0f && idx[0] == 2, "maxpool storage_order 1 index w*H + h");
    maxpool_nd_f32(1, in2, out2, k2, one, nopad, one, 0, x6, y, idx);
    check(idx[0] == 1, "maxpool storage_order 0 index h*W + w");

    /* LpPool 1-D: p = 2 -> sqrt(3^2 + 4^2) = 5; p = 1 -> |3| + |-4|; p = 3; pad counts 0 */
    const float x2[2] = {3.0f, -4.0f};
    const int64_t in1[3] = {1, 1, 2}, out1[3] = {1, 1, 3}, k1[3] = {1, 1, 2};
    const int64_t pad1[6] = {0, 0, 1, 0, 0, 1};
    avgpool_nd_f32(1, in1, out1, k1, one, pad1, one, 0, 2, x2, y);
    check(y[0] == 3.0f && y[1] == 5.0f && y[2] == 4.0f, "lppool p=2 with pads");
    avgpool_nd_f32(1, in1, out1, k1, one, pad1, one, 0, 1, x2, y);
    check(y[0] == 3.0f && y[1] == 7.0f && y[2] == 4.0f, "lppool p=1");
    avgpool_nd_f32(1, in1, out1, k1, one, pad1, one, 0, 3, x2, y);
    check(fabsf(y[1] - cbrtf(91.0f)) <= 1e-5f, "lppool p=3");

    /* uint8 / int8 max: padding never wins, ties keep the first index */
    const uint8_t xu[4] = {7, 200, 200, 3};
    uint8_t yu[4];
    const int64_t inq[3] = {1, 1, 4}, outq[3] = {1, 1, 3}, kq[3] = {1, 1, 2};
    const int64_t padq[6] = {0, 0, 1, 0, 0, 0};
    maxpool_nd_u8(1, inq, outq, kq, one, padq, one, 0, xu, yu, idx);
    check(yu[0] == 7 && yu[1] == 200 && yu[2] == 200 && idx[0] == 0 && idx[1] == 1 && idx[2] == 1,
          "maxpool uint8 with pad and ties");
    const int8_t xs[4] = {-100, -128, -5, -7};
    int8_t ys[4];
    maxpool_nd_i8(1, inq, outq, kq, one, padq, one, 0, xs, ys, NULL);
    check(ys[0] == -100 && ys[1] == -100 && ys[2] == -5, "maxpool int8, padding is not 0");

    /* GlobalMaxPool skips NaN */
    const float g4[4] = {NAN, -2.0f, -1.0f, -3.0f};
    global_maxpool_f32(2, 2, g4, y);
    check(y[0] == -2.0f && y[1] == -1.0f, "global_maxpool");

    /* MaxUnpool: zeros, scattered values, out-of-range indices ignored */
    const float xv[3] = {5, 6, 7};
    const int64_t iv[3] = {3, 0, 9};
    for (int i = 0; i < 5; i++)
        y[i] = 42.0f;
    const int64_t d4[1] = {4};
    maxunpool_f32(3, xv, iv, 1, d4, d4, y);
    check(y[0] == 6 && y[1] == 0 && y[2] == 0 && y[3] == 5 && y[4] == 42.0f, "maxunpool");

    /* MaxUnpool to a larger output_shape: index 3 of the 2x2 unpooled shape is (1,1), which
     * is element 4 of a 3x3 output */
    const int64_t d22[2] = {2, 2}, d33[2] = {3, 3};
    float y9[9];
    maxunpool_f32(3, xv, iv, 2, d22, d33, y9);
    check(y9[4] == 5 && y9[0] == 6 && y9[1] == 0 && y9[3] == 0 && y9[8] == 0, "maxunpool shape");
}

int main(void)
{
    test_hand();
    test_global_random();
    test_nd_hand();
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        run_case(&cases[i]);
    printf("%d passed, %d failed\n", n_passed, n_failed);
    return n_failed != 0;
}
