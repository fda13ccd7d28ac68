/* Unit test of templates/conv_pool.c: a dense conv fused into the MaxPool that reads its output
 * must give, bit for bit, the unfused kernels' result: conv_nhwc_f32 over the whole image (itself
 * tested against the NCHW im2col product, test_kernels_conv_nhwc.c), then maxpool_nhwc_f32 on it
 * (tested against pool.c's kernel, test_kernels_pool_nhwc.c). Also conv_nhwc_rows_f32 on row
 * ranges against the same conv's rows. Covers ResNet's stem (7x7 s2 p3, pool 3x3 s2 p1) and
 * SqueezeNet's (3x3 s2, pool 3x3 s2), ceil-mode pools (a last window past the conv's rows),
 * pool padding on every side, dilated and 2x2 windows, stride 1 pools (rows kept for the next
 * group), an NHWC and an NCHW x, band groups of 1, 2, 3 pool rows and the whole image, convs
 * with and without a band plane, with and without bias, Relu and Clip epilogues, batch 2. */
#define O2C_KERNEL static __attribute__((unused))
#include "../../templates/conv.c"
#include "../../templates/conv_nhwc.c"
#include "../../templates/depthwise_nhwc.c"
#include "../../templates/elementwise.c"
#include "../../templates/gemm.c"
#include "../../templates/math.c"
#include "../../templates/pool_nhwc.c"
/* after depthwise_nhwc.c, whose NHWC_GEO_* it uses, and the kernels it calls */
#include "../../templates/conv_pool.c"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint32_t rng_state = 2463534242u; /* seeds rnd() in check.h */
#define CHECK_WITH_RND
#define CHECK_WITH_ALLOC
#include "check.h"
#include "conv_cases.h"

typedef struct {
    const char *name;
    int64_t N, C, H, W, OC, K, s, p;    /* the conv: square kernel K, stride s, pads p */
    int64_t PK, ps, pt, pl, pb, pr, pd; /* the pool: PK x PK, stride, pads, dilation */
    int64_t ceil;                       /* 1: ceil-mode output rows and columns */
} PoolCase;

static void to_nhwc(int64_t N, int64_t C, int64_t P, const float *x, float *y)
{
    for (int64_t n = 0; n < N; n++)
        for (int64_t c = 0; c < C; c++)
            for (int64_t p = 0; p < P; p++)
                y[(n * P + p) * C + c] = x[(n * C + c) * P + p];
}

static const struct ConvEpilogue relu[1] = {{CONV_EP_RELU, 0, 0.0f, 0.0f, NULL}};
static const struct ConvEpilogue clip[1] = {{CONV_EP_CLIP, 0, -0.25f, 0.5f, NULL}};

/* Pool output size, floor or ceil mode (a last window that starts in the padding dropped). */
static int64_t pool_size(int64_t in, int64_t k, int64_t s, int64_t p0, int64_t p1, int64_t d,
                         int64_t ceil)
{
    const int64_t span = in + p0 + p1 - d * (k - 1) - 1;
    int64_t o = (ceil ? (span + s - 1) / s : span / s) + 1;
    if (ceil && (o - 1) * s >= in + p0)
        o--;
    return o;
}

static void conv_geo(const PoolCase *c, int64_t nchw, int64_t *geo)
{
    const int64_t OH = out_size(c->H, c->K, c->s, c->p, c->p, 1);
    const int64_t OW = out_size(c->W, c->K, c->s, c->p, c->p, 1);
    const int64_t g[CONV_NHWC_NGEO] = {c->N, c->H, c->W, c->C, 1,    c->OC, c->K, c->K, OH,
                                       OW,   c->s, c->s, c->p, c->p, 1,     1,    0,    nchw};
    memcpy(geo, g, sizeof g);
}

/* conv_nhwc_rows_f32 on row ranges (one image) = those rows of conv_nhwc_f32. */
static void check_rows(const PoolCase *c, const int64_t *cg, const float *x, const float *wp,
                       const float *b, const float *whole, float *work)
{
    const int64_t OH = cg[CONV_NHWC_OH], row = cg[CONV_NHWC_OW] * c->OC;
    float *got = alloc_floats(OH * row);
    const int64_t ranges[][2] = {{0, 1}, {1, 3}, {OH / 2, OH}, {OH - 1, OH}, {0, OH}};
    for (int i = 0; i < 5; i++) {
        const int64_t ob = ranges[i][0], oe = ranges[i][1];
        if (ob >= oe || oe > OH)
            continue;
        conv_nhwc_rows_f32(cg, x, wp, b, NULL, 0, ob, oe, got, work);
        char what[200];
        snprintf(what, sizeof what, "%s: conv_nhwc_rows_f32 rows [%lld, %lld) (R=%lld)", c->name,
                 (long long)ob, (long long)oe, (long long)cg[CONV_NHWC_R]);
        check(same_bits(got, whole + ob * row, (oe - ob) * row, 0), what);
    }
    free(got);
}

static void run_case(const PoolCase *c)
{
    const int64_t nx = c->N * c->C * c->H * c->W, nw = c->OC * c->C * c->K * c->K;
    float *xc = alloc_floats(nx), *xn = alloc_floats(nx), *w = alloc_floats(nw);
    float *b = alloc_floats(c->OC);
    for (int64_t i = 0; i < nx; i++)
        xc[i] = rnd();
    to_nhwc(c->N, c->C, c->H * c->W, xc, xn);
    for (int64_t i = 0; i < nw; i++)
        w[i] = rnd();
    for (int64_t i = 0; i < c->OC; i++)
        b[i] = rnd();
    for (int nchw = 0; nchw < 2; nchw++) {
        int64_t cg[CONV_NHWC_NGEO];
        conv_geo(c, nchw, cg);
        const int64_t OHc = cg[CONV_NHWC_OH], OWc = cg[CONV_NHWC_OW];
        const int64_t OH = pool_size(OHc, c->PK, c->ps, c->pt, c->pb, c->pd, c->ceil);
        const int64_t OW = pool_size(OWc, c->PK, c->ps, c->pl, c->pr, c->pd, c->ceil);
        const int64_t pg[NHWC_GEO_LEN] = {c->N,  OHc,   OWc,   c->OC, OH,    OW,    c->PK, c->PK,
                                          c->ps, c->ps, c->pt, c->pl, c->pb, c->pr, c->pd, c->pd};
        const int64_t nc = c->N * OHc * OWc * c->OC, ny = c->N * OH * OW * c->OC;
        float *wp = alloc_floats(conv_nhwc_packed_floats(cg)), *conv = alloc_floats(nc);
        float *want = alloc_floats(ny), *got = alloc_floats(ny);
        conv_nhwc_pack_f32(cg, w, wp);
        const float *x = nchw ? xc : xn;
        /* conv band rows: none (an NHWC x only), one, what a large budget gives */
        const int64_t Rs[3] = {nchw ? 1 : 0, 1, conv_nhwc_rows(cg, 1 << 16)};
        for (int ri = 0; ri < 3; ri++)
            for (int e = 0; e < 3; e++) {
                cg[CONV_NHWC_R] = Rs[ri];
                const struct ConvEpilogue *ep = e == 1 ? relu : e == 2 ? clip : NULL;
                const float *bias = e == 1 ? NULL : b;
                float *work = alloc_floats(conv_nhwc_work_floats(cg));
                conv_nhwc_f32(cg, x, wp, bias, ep, e > 0, conv, work);
                maxpool_nhwc_f32(pg, conv, want);
                if (e == 0 && c->N == 1)
                    check_rows(c, cg, x, wp, b, conv, work);
                const int64_t Ps[4] = {1, 2, 3, OH};
                for (int pi = 0; pi < 4; pi++) {
                    const int64_t P = Ps[pi] < OH ? Ps[pi] : OH;
                    float *band = alloc_floats(conv_maxpool_band_floats(cg, pg, P));
                    for (int64_t i = 0; i < ny; i++)
                        got[i] = NAN;
                    conv_maxpool_nhwc_f32(cg, x, wp, bias, ep, e > 0, pg, P, got, band, work);
                    char what[200];
                    snprintf(what, sizeof what,
                             "%s: %s x, conv R %lld, epilogue %d, %lld pool rows a band", c->name,
                             nchw ? "NCHW" : "NHWC", (long long)Rs[ri], e, (long long)P);
                    check(same_bits(got, want, ny, 0), what);
                    free(band);
                }
                free(work);
            }
        free(wp), free(conv), free(want), free(got);
    }
    free(xc), free(xn), free(w), free(b);
}

int main(void)
{
    (void)epilogue_passes, (void)epilogue_setup; /* (conv_cases.h's, for the other tests) */
    static const PoolCase cases[] = {
        /* name                          N  C   H   W  OC  K  s  p  PK ps pt pl pb pr pd ceil */
        {"ResNet stem 7x7 s2 p3, pool 3x3 s2 p1", 1, 3, 30, 28, 64, 7, 2, 3, 3, 2, 1, 1, 1, 1, 1,
         0},
        {"SqueezeNet stem 3x3 s2, pool 3x3 s2 ceil", 1, 3, 23, 25, 64, 3, 2, 0, 3, 2, 0, 0, 0, 0, 1,
         1},
        {"pool 2x2 s2, 16 channels, 2 images", 2, 8, 12, 10, 16, 3, 1, 1, 2, 2, 0, 0, 0, 0, 1, 0},
        {"pool 3x3 s1 p1 (rows kept), 40 channels", 1, 5, 9, 11, 40, 3, 1, 1, 3, 1, 1, 1, 1, 1, 1,
         0},
        {"pool dilation 2, pads 2 1 0 2", 1, 4, 13, 12, 24, 3, 1, 1, 3, 2, 2, 1, 0, 2, 2, 0},
        {"pool larger than the conv's rows", 1, 3, 6, 6, 8, 3, 2, 1, 5, 3, 2, 2, 2, 2, 1, 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        run_case(&cases[i]);
    printf("%d passed, %d failed\n", n_passed, n_failed);
    return n_failed != 0;
}
