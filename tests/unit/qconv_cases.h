/* qconv_cases.h — the random integer convolutions that test_kernels_quant.c (qconv_s8) and
 * test_kernels_quant_nhwc.c (qconv_nhwc_s8) compare with quant.c's plain qconv: xorshift32,
 * the spatial dims of a geometry, one-pixel products, and the data, weights and parameters of a
 * case. Include after quant.c. */
#ifndef QCONV_CASES_H
#define QCONV_CASES_H

#include <math.h>
#include <stdint.h>
#include <string.h>

static uint32_t qstate = 2463534242u;
static uint32_t qrand(void)
{
    qstate ^= qstate << 13;
    qstate ^= qstate >> 17;
    qstate ^= qstate << 5;
    return qstate;
}

/* geo's last sp spatial dims (the others 1): kernel 1-3, dilation 1-2, stride 1-2 (1 where
 * stride1), pads 0-1, an input up to `extra` more than the window. */
static void qconv_case_spatial(int sp, int stride1, int64_t extra, int64_t *geo)
{
    for (int j = 0; j < 3; j++)
        geo[7 + j] = geo[10 + j] = geo[13 + j] = geo[19 + j] = 1;
    for (int j = 3 - sp; j < 3; j++) {
        const int64_t k = 1 + qrand() % 3, dl = 1 + qrand() % 2;
        const int64_t st = stride1 ? 1 : 1 + qrand() % 2;
        const int64_t pb = qrand() % 2, pe = qrand() % 2;
        const int64_t in = (dl * (k - 1) + 1) + qrand() % extra;
        geo[2 + j] = in, geo[7 + j] = k, geo[13 + j] = st, geo[16 + j] = pb, geo[19 + j] = dl;
        geo[10 + j] = (in + pb + pe - (dl * (k - 1) + 1)) / st + 1;
    }
}

/* A batch-1 product: one pixel, 1-3 images, up to c_max input and oc_max output channels. */
static void qconv_case_pixel(int64_t c_max, int64_t oc_max, int64_t *geo)
{
    const int64_t N = 1 + qrand() % 3, C = 1 + qrand() % c_max, OC = 1 + qrand() % oc_max;
    const int64_t pg[22] = {N, C, 1, 1, 1, OC, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 1, 1, 1};
    memcpy(geo, pg, sizeof pg);
}

/* The parameters of a case; b is the bias or NULL. */
typedef struct QConvCase {
    int x_type, y_type, per_channel;
    uint8_t xz, yz;
    float xs, ys;
    const int32_t *b;
} QConvCase;

/* x [xn] activations, w [OC * K] int8 weights, bias and ws [OC], and c: uint8 or int8 in and
 * out, per-tensor or per-channel weight scales, power-of-two scales (many requantised values
 * are exact ties: half to even), every 7th trial a tiny output scale (multipliers past the
 * int32 clamp), a bias 3 times in 4. */
static void qconv_case_data(int trial, const int64_t *geo, uint8_t *x, int8_t *w, int32_t *bias,
                            float *ws, QConvCase *c)
{
    const int64_t K = geo[1] / geo[6] * geo[7] * geo[8] * geo[9];
    const int64_t xn = geo[0] * geo[1] * geo[2] * geo[3] * geo[4];
    c->x_type = qrand() % 2 ? 2 : 3;
    c->y_type = qrand() % 2 ? 2 : 3;
    for (int64_t i = 0; i < xn; i++)
        x[i] = (uint8_t)qrand();
    for (int64_t i = 0; i < geo[5] * K; i++)
        w[i] = (int8_t)qrand();
    c->per_channel = qrand() % 2;
    for (int64_t i = 0; i < geo[5]; i++) {
        bias[i] = (int32_t)(qrand() % 20001) - 10000;
        ws[i] = ldexpf(1.0f + (float)(qrand() % 8) / 8.0f, -(int)(qrand() % 4));
    }
    c->xz = (uint8_t)qrand();
    c->yz = (uint8_t)qrand();
    c->xs = ldexpf(1.0f, -(int)(qrand() % 6));
    const int ye = (int)(qrand() % 5);
    c->ys = ldexpf(1.0f, trial % 7 == 1 ? -24 : ye);
    c->b = qrand() % 4 ? bias : NULL;
}

#endif
