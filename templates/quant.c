/* quant.c — linear quantisation: QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear,
 * MatMulInteger, ConvInteger, QLinearMatMul, QLinearConv.
 *
 * Quantised element types are given as ONNX TensorProto.DataType numbers:
 *   2 uint8, 3 int8, 4 uint16, 5 int16, 6 int32 (int32 only as a DequantizeLinear input and
 *   the output of MatMulInteger/ConvInteger), and for QuantizeLinear / DequantizeLinear 21 uint4,
 *   22 int4, 25 uint2, 26 int2, one element per byte (uint8_t / int8_t, as lowtypes.c keeps
 *   them). Scale types: 1 float32, 10 float16 (raw bits).
 *
 * Numerics, as the onnx reference (numpy) computes them:
 *   quantize    q = saturate(rint(x / scale) + zero_point): x / scale in float, rint rounds
 *               half to even, the sum saturates to the type's range; NaN gives the type's
 *               minimum (what numpy's int cast of NaN gives on x86 before the clip).
 *   dequantize  y = (float)(x - zero_point) * scale (x - zero_point exact in int64).
 *   products    exact integer sums of (a - a_zp) * (b - b_zp) in int64 (any order gives the
 *               same value), stored as int32 (wrapping like numpy's int32 if out of range).
 *   requantise  (QLinearMatMul, QLinearConv) m = a_scale * b_scale / y_scale in the scale
 *               type (float16: each operation rounded to float16 as numpy does), then
 *               y = saturate(rint((double)acc * (double)m + y_zero_point)) in double, as
 *               numpy promotes int32 * float to float64.
 *
 * Part of the templates: the compiler pastes this text into the generated C file and also
 * links it to fold constants. It includes only standard headers and defines every function
 * with O2C_KERNEL, which the includer sets (generated code: static; compiler: empty).
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifndef O2C_KERNEL
#define O2C_KERNEL static
#endif

#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

/* ---- element access ---- */

/* Element i of a quantised tensor of `type` (2, 3, 4, 5, 6); 0 when p is NULL. */
O2C_KERNEL int64_t quant_load(int type, const void *p, int64_t i)
{
    if (!p)
        return 0;
    switch (type) {
    case 2:
    case 21:
    case 25: return ((const uint8_t *)p)[i];
    case 3:
    case 22:
    case 26: return ((const int8_t *)p)[i];
    case 4: return ((const uint16_t *)p)[i];
    case 5: return ((const int16_t *)p)[i];
    default: return ((const int32_t *)p)[i];
    }
}

static void quant_range(int type, double *lo, double *hi)
{
    switch (type) {
    case 2: *lo = 0.0, *hi = 255.0; break;
    case 3: *lo = -128.0, *hi = 127.0; break;
    case 4: *lo = 0.0, *hi = 65535.0; break;
    case 5: *lo = -32768.0, *hi = 32767.0; break;
    case 21: *lo = 0.0, *hi = 15.0; break;
    case 22: *lo = -8.0, *hi = 7.0; break;
    case 25: *lo = 0.0, *hi = 3.0; break;
    case 26: *lo = -2.0, *hi = 1.0; break;
    default: *lo = -2147483648.0, *hi = 2147483647.0; break;
    }
}

/* Stores the integral value v (already within the type's range). */
static void quant_store(int type, void *p, int64_t i, double v)
{
    switch (type) {
    case 2:
    case 21:
    case 25: ((uint8_t *)p)[i] = (uint8_t)v; break;
    case 3:
    case 22:
    case 26: ((int8_t *)p)[i] = (int8_t)v; break;
    case 4: ((uint16_t *)p)[i] = (uint16_t)v; break;
    case 5: ((int16_t *)p)[i] = (int16_t)v; break;
    default: ((int32_t *)p)[i] = (int32_t)v; break;
    }
}

/* v (integral or NaN) saturated to the type's range; NaN gives the minimum. */
static double quant_saturate(int type, double v)
{
    double lo, hi;
    quant_range(type, &lo, &hi);
    if (v != v || v < lo)
        return lo;
    return v > hi ? hi : v;
}

/* int64 -> int32, wrapping modulo 2^32 like numpy's int32 arithmetic. */
static int32_t quant_wrap32(int64_t v)
{
    uint32_t u = (uint32_t)v;
    int32_t r;
    memcpy(&r, &u, sizeof r);
    return r;
}

/* ---- float16 (for float16 scales) ---- */

O2C_KERNEL float quant_half_to_float(uint16_t h)
{
    const int e = (h >> 10) & 31, m = h & 1023;
    float v;
    if (e == 0)
        v = ldexpf((float)m, -24);
    else if (e == 31)
        v = m ? NAN : INFINITY;
    else
        v = ldexpf((float)(m | 1024), e - 25);
    return (h & 0x8000) ? -v : v;
}

/* float -> float16, round to nearest even, overflow to infinity. */
O2C_KERNEL uint16_t quant_float_to_half(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    const uint16_t sign = (uint16_t)((u >> 16) & 0x8000);
    const uint32_t a = u & 0x7fffffffu;
    if (a >= 0x7f800000u) /* inf or NaN */
        return (uint16_t)(sign | 0x7c00 | (a > 0x7f800000u ? 0x200 : 0));
    if (a >= 0x477ff000u) /* rounds to >= 65520: infinity */
        return (uint16_t)(sign | 0x7c00);
    if (a < 0x38800000u) { /* below 2^-14: a subnormal half, exact integer multiple of 2^-24 */
        const float scaled = fabsf(f) * 16777216.0f; /* exact: a power-of-two scaling */
        return (uint16_t)(sign | (uint16_t)rintf(scaled));
    }
    /* normal: drop 13 mantissa bits with round half to even */
    const uint32_t rest = a & 0x1fffu, half = 0x1000u;
    uint32_t h = ((a >> 13) - (112u << 10));
    if (rest > half || (rest == half && (h & 1u)))
        h++;
    return (uint16_t)(sign | h);
}

/* A scale element as float: scale_type 1 float32, 10 float16. */
static float quant_scale(int scale_type, const void *p, int64_t i)
{
    if (scale_type == 10)
        return quant_half_to_float(((const uint16_t *)p)[i]);
    return ((const float *)p)[i];
}

/* The requantisation multiplier a * b / c in the scale type (numpy: float16 operations
 * compute in float and round to float16 after each). */
static double quant_multiplier(int scale_type, float a, float b, float c)
{
    if (scale_type == 10) {
        const float p = quant_half_to_float(quant_float_to_half(a * b));
        return (double)quant_half_to_float(quant_float_to_half(p / c));
    }
    const float p = a * b;
    return (double)(p / c);
}

/* ---- QuantizeLinear / DequantizeLinear ----
 * x, y: [outer][len][inner] around the quantisation axis. The scale (and the zero point,
 * same layout, or NULL) of element (o, a, i) is at o*s[0] + (a / block)*s[1] + i*s[2]:
 *   per tensor  s = {0, 0, 0}, block = 1
 *   per axis    s = {0, 1, 0}, block = 1
 *   blocked     s = {nblocks*inner, inner, 1} with nblocks = ceil(len / block) */

/* Per tensor into uint8 / int8 (what QDQ models do between their integer ops): the values of
 * the general loop below in float, so that 16 lanes vectorise rather than 8: q + zp saturates
 * to [lo, hi] exactly when q saturates to [lo - zp, hi - zp] (small integers, exact in float;
 * a NaN q fails both compares and gives lo as quant_saturate does), and the sum of the clamped
 * q and zp is then a small integer. */
static int quantize_per_tensor_q8(int64_t n, const int64_t *s, const float *x, const float *scale,
                                  int y_type, const void *zero_point, void *y)
{
    if (s[0] || s[1] || s[2] || (y_type != 2 && y_type != 3))
        return 0;
    const float sc = scale[0];
    const int32_t zp = (int32_t)quant_load(y_type, zero_point, 0);
    const float lo = (float)((y_type == 2 ? 0 : -128) - zp);
    const float hi = (float)((y_type == 2 ? 255 : 127) - zp);
    for (int64_t e = 0; e < n; e++) {
        float q = rintf(x[e] / sc);
        q = q >= lo ? q : lo;
        q = q <= hi ? q : hi;
        const int32_t r = (int32_t)q + zp;
        if (y_type == 2)
            ((uint8_t *)y)[e] = (uint8_t)r;
        else
            ((int8_t *)y)[e] = (int8_t)r;
    }
    return 1;
}

O2C_KERNEL void quantize_linear_f32(int64_t outer, int64_t len, int64_t inner, int64_t block,
                                    const int64_t *s, const float *x, const float *scale,
                                    int y_type, const void *zero_point, void *y)
{
    if (quantize_per_tensor_q8(outer * len * inner, s, x, scale, y_type, zero_point, y))
        return;
    for (int64_t o = 0; o < outer; o++)
        for (int64_t a = 0; a < len; a++)
            for (int64_t i = 0; i < inner; i++) {
                const int64_t e = (o * len + a) * inner + i;
                const int64_t si = o * s[0] + (a / block) * s[1] + i * s[2];
                const float q = rintf(x[e] / scale[si]);
                const double v = (double)q + (double)quant_load(y_type, zero_point, si);
                quant_store(y_type, y, e, quant_saturate(y_type, v));
            }
}

O2C_KERNEL void dequantize_linear_f32(int64_t outer, int64_t len, int64_t inner, int64_t block,
                                      const int64_t *s, int x_type, const void *x,
                                      const float *scale, const void *zero_point, float *y)
{
    if (!s[0] && !s[1] && !s[2] && (x_type == 2 || x_type == 3)) { /* per tensor, 8-bit */
        /* in int32 (the difference is exact there, and in float): 16 lanes, not 8 of int64 */
        const int64_t n = outer * len * inner;
        const int32_t zp = (int32_t)quant_load(x_type, zero_point, 0);
        const float sc = scale[0];
        if (x_type == 2)
            for (int64_t e = 0; e < n; e++)
                y[e] = (float)((int32_t)((const uint8_t *)x)[e] - zp) * sc;
        else
            for (int64_t e = 0; e < n; e++)
                y[e] = (float)((int32_t)((const int8_t *)x)[e] - zp) * sc;
        return;
    }
    for (int64_t o = 0; o < outer; o++)
        for (int64_t a = 0; a < len; a++)
            for (int64_t i = 0; i < inner; i++) {
                const int64_t e = (o * len + a) * inner + i;
                const int64_t si = o * s[0] + (a / block) * s[1] + i * s[2];
                const int64_t d = quant_load(x_type, x, e) - quant_load(x_type, zero_point, si);
                y[e] = (float)d * scale[si];
            }
}

/* ---- DynamicQuantizeLinear: x[n] float -> y[n] uint8, y_scale[1], y_zero_point[1] ----
 * max/min over x and 0 (NaN elements are skipped), then as the onnx reference:
 *   scale = (max - min) / 255 (1 when max == min), zp = rint(clamp(0 - min / scale, 0, 255)),
 *   y = saturate(rint(x / scale) + zp). */
O2C_KERNEL void dynamic_quantize_linear_f32(int64_t n, const float *x, uint8_t *y, float *y_scale,
                                            uint8_t *y_zero_point)
{
    float mx = 0.0f, mn = 0.0f;
    for (int64_t i = 0; i < n; i++) {
        if (x[i] > mx)
            mx = x[i];
        if (x[i] < mn)
            mn = x[i];
    }
    /* x all zero: scale 1, as onnxruntime (the onnx reference's code gives 1/255, its comment 1) */
    const float scale = mx == mn ? 1.0f : (mx - mn) / 255.0f;
    const float q = mn / scale;
    const float izp = 0.0f - q;
    const float zc = izp < 0.0f ? 0.0f : izp > 255.0f ? 255.0f : izp;
    const float zp = rintf(zc);
    for (int64_t i = 0; i < n; i++) {
        const float r = rintf(x[i] / scale);
        const float v = r + zp;
        y[i] = (uint8_t)quant_saturate(2, (double)v);
    }
    *y_scale = scale;
    *y_zero_point = (uint8_t)zp;
}

/* ---- MatMulInteger / QLinearMatMul: Y[M][N] from A[M][K], B[K][N], row-major ----
 * a_zp: one element or NULL; b_zp: element j*b_zp_stride (0: per tensor, 1: per column) or
 * NULL. MatMulInteger writes int32 (y_type 6, no scales); QLinearMatMul requantises with
 * a_scale[0], b_scale[j*b_scale_stride], y_scale[0], y_zp[0] (or NULL) into y_type. */
O2C_KERNEL void qmatmul(int64_t M, int64_t N, int64_t K, int a_type, const void *A,
                        const void *a_zp, int b_type, const void *B, const void *b_zp,
                        int64_t b_zp_stride, int scale_type, const void *a_scale,
                        const void *b_scale, int64_t b_scale_stride, const void *y_scale,
                        int y_type, const void *y_zp, void *Y)
{
    const int64_t az = quant_load(a_type, a_zp, 0);
    for (int64_t i = 0; i < M; i++)
        for (int64_t j = 0; j < N; j++) {
            const int64_t bz = quant_load(b_type, b_zp, j * b_zp_stride);
            int64_t acc = 0;
            for (int64_t k = 0; k < K; k++)
                acc += (quant_load(a_type, A, i * K + k) - az) *
                       (quant_load(b_type, B, k * N + j) - bz);
            if (y_type == 6) {
                ((int32_t *)Y)[i * N + j] = quant_wrap32(acc);
                continue;
            }
            const double m = quant_multiplier(scale_type, quant_scale(scale_type, a_scale, 0),
                                              quant_scale(scale_type, b_scale, j * b_scale_stride),
                                              quant_scale(scale_type, y_scale, 0));
            const double t = (double)quant_wrap32(acc) * m;
            const double v = t + (double)quant_load(y_type, y_zp, 0);
            quant_store(y_type, Y, i * N + j, quant_saturate(y_type, nearbyint(v)));
        }
}

/* ---- ConvInteger / QLinearConv: direct convolution, NCDHW (1-D and 2-D as 3-D) ----
 * geo[22] = {N, C, D, H, W, OC, group, KD, KH, KW, OD, OH, OW, stride d/h/w, pad-begin
 * d/h/w, dilation d/h/w}. x [N][C][D][H][W]; w [OC][C/group][KD][KH][KW]; y [N][OC][OD][OH][OW].
 * Padding contributes 0 (after the zero point is subtracted, as in the onnx reference).
 * x_zp: one element or NULL; w_zp: element oc*w_zp_stride or NULL; bias: int32 [OC] or NULL.
 * y_type 6 writes the int32 sums (ConvInteger); otherwise requantised as qmatmul with
 * x_scale[0], w_scale[oc*w_scale_stride], y_scale[0], y_zp. */
O2C_KERNEL void qconv(const int64_t *geo, int x_type, const void *x, const void *x_zp, int w_type,
                      const void *w, const void *w_zp, int64_t w_zp_stride, const int32_t *bias,
                      int scale_type, const void *x_scale, const void *w_scale,
                      int64_t w_scale_stride, const void *y_scale, int y_type, const void *y_zp,
                      void *y)
{
    const int64_t N = geo[0], C = geo[1], D = geo[2], H = geo[3], W = geo[4], OC = geo[5];
    const int64_t G = geo[6], KD = geo[7], KH = geo[8], KW = geo[9];
    const int64_t OD = geo[10], OH = geo[11], OW = geo[12];
    const int64_t Cg = C / G, OCg = OC / G;
    const int64_t xz = quant_load(x_type, x_zp, 0);
    for (int64_t n = 0; n < N; n++)
        for (int64_t oc = 0; oc < OC; oc++) {
            const int64_t g = oc / OCg;
            const int64_t wz = quant_load(w_type, w_zp, oc * w_zp_stride);
            double m = 0.0;
            if (y_type != 6)
                m = quant_multiplier(scale_type, quant_scale(scale_type, x_scale, 0),
                                     quant_scale(scale_type, w_scale, oc * w_scale_stride),
                                     quant_scale(scale_type, y_scale, 0));
            for (int64_t od = 0; od < OD; od++)
                for (int64_t oh = 0; oh < OH; oh++)
                    for (int64_t ow = 0; ow < OW; ow++) {
                        int64_t acc = bias ? bias[oc] : 0;
                        for (int64_t ic = 0; ic < Cg; ic++)
                            for (int64_t kd = 0; kd < KD; kd++) {
                                const int64_t id = od * geo[13] - geo[16] + kd * geo[19];
                                if (id < 0 || id >= D)
                                    continue;
                                for (int64_t kh = 0; kh < KH; kh++) {
                                    const int64_t ih = oh * geo[14] - geo[17] + kh * geo[20];
                                    if (ih < 0 || ih >= H)
                                        continue;
                                    for (int64_t kw = 0; kw < KW; kw++) {
                                        const int64_t iw = ow * geo[15] - geo[18] + kw * geo[21];
                                        if (iw < 0 || iw >= W)
                                            continue;
                                        const int64_t xi =
                                            (((n * C + g * Cg + ic) * D + id) * H + ih) * W + iw;
                                        const int64_t wi =
                                            (((oc * Cg + ic) * KD + kd) * KH + kh) * KW + kw;
                                        acc += (quant_load(x_type, x, xi) - xz) *
                                               (quant_load(w_type, w, wi) - wz);
                                    }
                                }
                            }
                        const int64_t yi = (((n * OC + oc) * OD + od) * OH + oh) * OW + ow;
                        if (y_type == 6) {
                            ((int32_t *)y)[yi] = quant_wrap32(acc);
                        } else {
                            const double t = (double)quant_wrap32(acc) * m;
                            const double v = t + (double)quant_load(y_type, y_zp, 0);
                            quant_store(y_type, y, yi, quant_saturate(y_type, nearbyint(v)));
                        }
                    }
        }
}

/* ---- QLinearConv, fast form: int8 weights with zero point 0 ----
 * What onnxruntime's quantiser writes (symmetric int8 weights, per tensor or per output
 * channel; uint8 or int8 activations; constant scales and zero points), and what the QDQ pass
 * (compiler/fuse_qdq.c) makes of Conv, Gemm and MatMul. The result is exactly qconv's: the
 * same integer sum, the same requantisation (qconv_s8_requant).
 *
 * Activations are offset to uint8 (int8 x + 128 and its zero point + 128; the difference
 * x - x_zp is unchanged), so every product is uint8 x int8, which gcc -O3 turns into vpdpbusd
 * where -march has AVX512-VNNI or AVX-VNNI (clang 14: vpdpwssd on widened halves). With a
 * weight zero point of 0,
 *     sum_k (x - x_zp) * w  =  sum_k x * w  -  x_zp * sum_k w,
 * and padding taps read x_zp, so the kernel sums x * w over every tap and the bias absorbs
 * -x_zp * sum_k w: qconv_s8_prepare (run by the compiler) computes that bias and each output
 * channel's multiplier, and refuses (returns 0) when a partial sum could leave int32
 * (|bias| + K * 255 * 128 must stay below 2^31) or a multiplier is not finite. The sums are exact,
 * so the order of k is free; k = (ic, kd, kh, kw), the weight's own layout [OC][Cg][KD][KH][KW].
 *
 * Depthwise convolutions (one input and one output channel per group) run directly, vectorised
 * across the padded plane (qconv_s8_plane). The others, with at least QCONV_BLOCKED output
 * pixels, run blocked: four k of one output position are one 32-bit lane, read in place from
 * the interleaved input in the plane form (qconv_s8_plane_blocked), else packed per tile of T
 * pixels as xq [Kp/4][T][4] (qconv_s8_block); the weights were packed by the compiler as
 * [G][OCg/8][Kp/4][8][4] (four k of eight output channels), so that one step adds to eight
 * output channels x T pixels the products of four k: exactly what vpdpbusd does per 32-bit
 * lane, with no horizontal sums. With AVX512-VNNI (-march) that step is written with its
 * intrinsic (immintrin.h, only then; gcc 12 and clang 14 do not find it in the plain loop),
 * otherwise as the plain loop; both give the same exact integers. Outputs with fewer pixels
 * (the products of batch-1 Gemm/MatMul) take dot products of each weight row [Kp] with four
 * patches at a time, which gcc vectorises as a reduction. */

#define QCONV_TILE       64     /* most output pixels per packed tile (dot form) */
#define QCONV_TILE_BYTES 8192   /* the scratch a tile may take, when more than 4 pixels */
#define QCONV_ROW        64     /* output columns per depthwise accumulator row */
#define QCONV_BLOCKED    8      /* fewest output pixels for the blocked form */
#define QCONV_OCB        8      /* output channels per block of the blocked form */
#define QCONV_TB         32     /* most pixels per tile of the blocked form (16 or 32) */
#define QCONV_TB_BYTES   16384  /* the scratch of a 32-pixel tile may take; else 16 pixels */
#ifndef QCONV_PLANE_BYTES       /* (the unit test lowers it to cover both forms) */
#define QCONV_PLANE_BYTES 65536 /* most interleaved input of the plane form (scratch) */
#endif

#if defined(__AVX512VNNI__) && defined(__AVX512BW__) && defined(__AVX512F__)
#include <immintrin.h>
#define QCONV_VNNI 1
#endif

/* A depthwise convolution runs over a whole zero-point-padded channel volume at once, split
 * by stride into phases: phase (a, b, c) holds the padded positions whose depth, row and column
 * leave remainders a, b, c by the strides, as a volume of Dq x Hq x Wq (the padded extents
 * divided by the strides, rounded up; see qconv_s8_dw_extents). Output (od, oh, ow) then sums,
 * for each tap, one phase at index (od*Hq + oh)*Wq + ow plus a fixed offset, so each tap is
 * one contiguous loop over ((OD-1)*Hq + OH-1)*Wq + OW accumulators (the columns ow >= OW are
 * computed and dropped). Stride 1 has one phase: the padded volume itself. Up to
 * QCONV_DW_BYTES of scratch; larger channels run a row at a time (qconv_s8_depthwise_rows). */
#ifndef QCONV_DW_BYTES /* (the unit test lowers it to cover both forms) */
#define QCONV_DW_BYTES 262144
#endif

static int64_t qconv_s8_pad16(int64_t n);

/* q = {Dq, Hq, Wq}; L the accumulators; PL the bytes per phase (16 more than its volume: the
 * taps read whole vectors of 16 past L). */
static void qconv_s8_dw_extents(const int64_t *geo, int64_t *q, int64_t *L, int64_t *PL)
{
    for (int j = 0; j < 3; j++) {
        const int64_t s = geo[13 + j];
        const int64_t padded = (geo[10 + j] - 1) * s + (geo[7 + j] - 1) * geo[19 + j] + 1;
        q[j] = (padded + s - 1) / s;
    }
    *L = ((geo[10] - 1) * q[1] + geo[11] - 1) * q[2] + geo[12];
    *PL = q[0] * q[1] * q[2] + 16;
}

#define QCONV_DW_TAPS 32

/* Where in the phases tap k = (kd, kh, kw) of output position 0 reads. */
static int64_t qconv_s8_dw_off(const int64_t *geo, const int64_t *q, int64_t PL, int64_t k)
{
    const int64_t sd = geo[13], sh = geo[14], sw = geo[15];
    const int64_t a = k / (geo[8] * geo[9]) * geo[19], b = k / geo[9] % geo[8] * geo[20];
    const int64_t e = k % geo[9] * geo[21];
    return ((a % sd * sh + b % sh) * sw + e % sw) * PL + (a / sd * q[1] + b / sh) * q[2] + e / sw;
}

/* Scratch of the depthwise plane form: the int32 accumulators, then the phases. */
static int64_t qconv_s8_dw_bytes(const int64_t *geo)
{
    int64_t q[3], L, PL;
    qconv_s8_dw_extents(geo, q, &L, &PL);
    return 4 * (qconv_s8_pad16(L) + 16) + geo[13] * geo[14] * geo[15] * PL;
}

static int qconv_s8_plane(const int64_t *geo)
{
    return geo[1] == geo[6] && geo[5] == geo[6] && qconv_s8_dw_bytes(geo) <= QCONV_DW_BYTES;
}

/* Whole blocks of 16 accumulators, the padding qconv_s8_requant needs. */
static int64_t qconv_s8_pad16(int64_t n)
{
    return (n + 15) / 16 * 16;
}

static int qconv_s8_depthwise(const int64_t *geo)
{
    return geo[1] == geo[6] && geo[5] == geo[6];
}

/* The blocked form (see above): not depthwise, and enough output pixels to fill a tile. */
static int qconv_s8_blocked(const int64_t *geo)
{
    return !qconv_s8_depthwise(geo) && geo[10] * geo[11] * geo[12] >= QCONV_BLOCKED;
}

/* The plane form of the blocked kernel: a group's input channels are interleaved once, four
 * at a time, into the zero-point-padded phases of the depthwise plane form (qconv_s8_plane) as
 * 32-bit lanes, xi [Cq][phases][PLL] (Cq = ceil(Cg/4); byte c of a lane of quad q is channel
 * 4q+c at that padded position). Output position i (the positions of qconv_s8_plane; the
 * columns ow >= OW are computed and dropped) reads for tap k and quad q the lane at i plus the
 * tap's offset (qconv_s8_dw_off), so the patches of T consecutive positions are T consecutive
 * lanes: no per-tile packing. k is (kd, kh, kw, channel), the weights
 * [G][OCg/8][taps*Cq][8][4] (channels past Cg weigh 0). */

/* Lanes per phase: its volume, and as far as the last tile of 32 reads past it. */
static int64_t qconv_s8_plane_pll(const int64_t *geo)
{
    int64_t q[3], L, PL;
    qconv_s8_dw_extents(geo, q, &L, &PL);
    return q[0] * q[1] * q[2] + QCONV_TB;
}

/* Lanes per quad: every phase. */
static int64_t qconv_s8_plane_lanes(const int64_t *geo)
{
    return geo[13] * geo[14] * geo[15] * qconv_s8_plane_pll(geo);
}

/* Whether the plane form's output positions are the output pixels (nothing dropped). */
static int qconv_s8_plane_direct(const int64_t *geo)
{
    int64_t q[3], L, PL;
    qconv_s8_dw_extents(geo, q, &L, &PL);
    return q[1] == geo[11] && q[2] == geo[12];
}

/* The blocked form where the interleaved input takes at most QCONV_PLANE_BYTES and the taps'
 * offsets fit their table (larger inputs keep the per-tile packing, whose scratch is one
 * tile). */
static int qconv_s8_plane_blocked(const int64_t *geo)
{
    const int64_t Cq = (geo[1] / geo[6] + 3) / 4;
    return qconv_s8_blocked(geo) && geo[7] * geo[8] * geo[9] <= QCONV_DW_TAPS &&
           4 * Cq * qconv_s8_plane_lanes(geo) <= QCONV_PLANE_BYTES;
}

/* The row length of qconv_s8's weights and patches: K rounded up to a multiple of 4 (blocked
 * form: whole 32-bit lanes; plane form: taps x channels rounded up to quads) or 32 (dot form: no
 * scalar tail, gcc vectorises 32 and 64 bytes at a time; K = 144 rounded to 160 runs 4x faster);
 * the padding weights are 0. Depthwise weights stay [C][K]. */
O2C_KERNEL int64_t qconv_s8_row(const int64_t *geo)
{
    const int64_t K = geo[1] / geo[6] * geo[7] * geo[8] * geo[9];
    if (qconv_s8_depthwise(geo))
        return K;
    if (qconv_s8_plane_blocked(geo))
        return geo[7] * geo[8] * geo[9] * ((geo[1] / geo[6] + 3) / 4 * 4);
    if (qconv_s8_blocked(geo))
        return (K + 3) / 4 * 4;
    return (K + 31) / 32 * 32;
}

/* Output channels per group, rounded up to whole blocks in the blocked form. */
static int64_t qconv_s8_ocg_padded(const int64_t *geo)
{
    const int64_t OCg = geo[5] / geo[6];
    return qconv_s8_blocked(geo) ? (OCg + QCONV_OCB - 1) / QCONV_OCB * QCONV_OCB : OCg;
}

/* Bytes of qconv_s8's packed weights (qconv_s8_weights). */
O2C_KERNEL int64_t qconv_s8_wbytes(const int64_t *geo)
{
    return geo[6] * qconv_s8_ocg_padded(geo) * qconv_s8_row(geo);
}

/* wp = w [OC][K] in the layout of qconv_s8's form, padded with zero weights (and zero output
 * channels): depthwise [C][K], dot form [OC][Kp], blocked form [G][OCg/8][Kp/4][8][4]
 * (Kp = qconv_s8_row(geo)); qconv_s8_wbytes(geo) bytes. */
O2C_KERNEL void qconv_s8_weights(const int64_t *geo, const int8_t *w, int8_t *wp)
{
    const int64_t OC = geo[5], G = geo[6], OCg = OC / G;
    const int64_t K = geo[1] / G * geo[7] * geo[8] * geo[9], Kp = qconv_s8_row(geo);
    if (!qconv_s8_blocked(geo)) {
        for (int64_t oc = 0; oc < OC; oc++)
            for (int64_t k = 0; k < Kp; k++)
                wp[oc * Kp + k] = k < K ? w[oc * K + k] : 0;
        return;
    }
    const int64_t OCgp = qconv_s8_ocg_padded(geo), Cg = geo[1] / G;
    const int64_t taps = geo[7] * geo[8] * geo[9], Cq = (Cg + 3) / 4;
    const int plane = qconv_s8_plane_blocked(geo);
    for (int64_t g = 0; g < G; g++)
        for (int64_t o = 0; o < OCgp; o++)
            for (int64_t k = 0; k < Kp; k++) {
                const int64_t i =
                    ((g * OCgp + o / QCONV_OCB * QCONV_OCB) * Kp + k / 4 * 4 * QCONV_OCB) +
                    o % QCONV_OCB * 4 + k % 4;
                /* plane form: k = (tap, channel) with channels in whole quads */
                const int64_t ic = k / 4 % Cq * 4 + k % 4, tap = k / 4 / Cq;
                const int64_t src = plane ? ic * taps + tap : k;
                wp[i] = o < OCg && (plane ? ic < Cg : k < K) ? w[(g * OCg + o) * K + src] : 0;
            }
}

/* Pixels per tile of the blocked form: 32, or 16 where a 32-pixel tile's patches would take
 * more than QCONV_TB_BYTES. */
static int64_t qconv_s8_tb(const int64_t *geo)
{
    return qconv_s8_row(geo) * QCONV_TB > QCONV_TB_BYTES ? 16 : QCONV_TB;
}

/* Output pixels per tile: up to 64 (long rows vectorise the requantisation), fewer where the
 * patches are long, so that the scratch stays within QCONV_TILE_BYTES (at least 4 pixels, one
 * qconv_dot4), and never more than the output has. */
static int64_t qconv_s8_tile(const int64_t *geo)
{
    const int64_t P = geo[10] * geo[11] * geo[12];
    int64_t t = QCONV_TILE_BYTES / qconv_s8_row(geo) / 4 * 4;
    t = t < 4 ? 4 : t > QCONV_TILE ? QCONV_TILE : t;
    return P < t ? P : t;
}

/* Scratch bytes qconv_s8 needs for geometry geo (qconv's layout). */
O2C_KERNEL int64_t qconv_s8_scratch(const int64_t *geo)
{
    const int64_t C = geo[1], OC = geo[5], G = geo[6], OW = geo[12];
    if (qconv_s8_plane(geo))
        return qconv_s8_dw_bytes(geo);
    if (C == G && OC == G) { /* depthwise, strided: one padded input row */
        const int64_t cols = OW < QCONV_ROW ? OW : QCONV_ROW;
        return (cols - 1) * geo[15] + (geo[9] - 1) * geo[21] + 1;
    }
    if (qconv_s8_plane_blocked(geo)) { /* the interleaved input, then the kept columns */
        int64_t q[3], L, PL;
        qconv_s8_dw_extents(geo, q, &L, &PL);
        const int64_t Cq = (C / G + 3) / 4, stage = QCONV_OCB * ((L + QCONV_TB - 1) / QCONV_TB);
        return 4 * Cq * qconv_s8_plane_lanes(geo) +
               (qconv_s8_plane_direct(geo) ? 0 : stage * QCONV_TB);
    }
    if (qconv_s8_blocked(geo))
        return qconv_s8_tb(geo) * qconv_s8_row(geo);
    return qconv_s8_tile(geo) * qconv_s8_row(geo);
}

/* bias_adj[OC] = bias - x_zp * sum_k w (x_zp offset as above), mult[OC] = the requantisation
 * multiplier of qconv. Returns 0 when the sums may overflow int32 (use qconv then). */
O2C_KERNEL int qconv_s8_prepare(const int64_t *geo, int x_type, const void *x_zp, const int8_t *w,
                                const int32_t *bias, int scale_type, const void *x_scale,
                                const void *w_scale, int64_t w_scale_stride, const void *y_scale,
                                int32_t *bias_adj, double *mult)
{
    const int64_t OC = geo[5], K = geo[1] / geo[6] * geo[7] * geo[8] * geo[9];
    const int64_t xz = quant_load(x_type, x_zp, 0) + (x_type == 3 ? 128 : 0);
    const int64_t limit = 2147483647;
    if (K > limit / (255 * 128))
        return 0;
    for (int64_t oc = 0; oc < OC; oc++) {
        int64_t sum = 0;
        for (int64_t k = 0; k < K; k++)
            sum += w[oc * K + k];
        const int64_t b = (bias ? bias[oc] : 0) - xz * sum;
        if (b > limit - K * 255 * 128 || -b > limit - K * 255 * 128)
            return 0;
        bias_adj[oc] = (int32_t)b;
        mult[oc] = quant_multiplier(scale_type, quant_scale(scale_type, x_scale, 0),
                                    quant_scale(scale_type, w_scale, oc * w_scale_stride),
                                    quant_scale(scale_type, y_scale, 0));
        if (!(mult[oc] - mult[oc] == 0.0)) /* infinite or NaN: qconv saturates NaN sums */
            return 0;
    }
    return 1;
}

/* One requantised value as qconv computes it (the product and the sum in double, rint half to
 * even, saturation); finite multipliers, so no NaN to saturate. Branch-free once inlined. */
O2C_KERNEL int32_t qconv_s8_round(int32_t a, double m, double yz, double lo, double hi)
{
    const double p = (double)a * m;
    double v = nearbyint(p + yz);
    v = v < lo ? lo : v;
    v = v > hi ? hi : v;
    return (int32_t)v;
}

/* Whether every sum of output channel with bias_adj `bias` and multiplier m has
 * |acc * m| + |yz| < 2^30 (|acc| <= |bias| + K * 255 * 128): then qconv_s8_round_small gives
 * qconv_s8_round's values. The margin to 2^31 covers the rounding of this bound. And
 * |acc| < 2^29: m is a float (24 bits) or float16, so acc * m is exact in double and one fused
 * multiply-add rounds acc * m + yz as qconv_s8_round's sum does (quant_nhwc.c's vectors). */
O2C_KERNEL int qconv_s8_fits(const int64_t *geo, int32_t bias, double m, double yz)
{
    const double K = (double)(geo[1] / geo[6] * geo[7] * geo[8] * geo[9]);
    const double acc = fabs((double)bias) + K * 32640.0;
    return acc < 536870912.0 && acc * fabs(m) + fabs(yz) < 1073741824.0;
}

/* qconv_s8_round where |a * m| + |yz| < 2^30: the rounded value is integral and within int32,
 * so the clamp can follow the conversion, as integer min and max (half the vector work of the
 * double compares and blends). */
O2C_KERNEL int32_t qconv_s8_round_small(int32_t a, double m, double yz, int32_t lo, int32_t hi)
{
    int32_t v = (int32_t)nearbyint((double)a * m + yz);
    v = v < lo ? lo : v;
    return v > hi ? hi : v;
}

/* acc[0..n) requantised in place (qconv_s8_round), whole vectors of 16 (qconv_s8_requant_m). */
static void qconv_s8_round_n(int64_t n, int32_t *restrict acc, double m, double yz, int y_type,
                             int small)
{
    const int64_t nr = qconv_s8_pad16(n);
    if (small) {
        const int32_t lo = y_type == 2 ? 0 : -128, hi = y_type == 2 ? 255 : 127;
        for (int64_t t0 = 0; t0 < nr; t0 += 16)
            for (int t = 0; t < 16; t++)
                acc[t0 + t] = qconv_s8_round_small(acc[t0 + t], m, yz, lo, hi);
        return;
    }
    const double lo = y_type == 2 ? 0.0 : -128.0, hi = y_type == 2 ? 255.0 : 127.0;
    for (int64_t t0 = 0; t0 < nr; t0 += 16)
        for (int t = 0; t < 16; t++)
            acc[t0 + t] = qconv_s8_round(acc[t0 + t], m, yz, lo, hi);
}

/* y[0..n) = acc[0..n) requantised with multiplier m, or m[t] per element when per is set (as
 * bytes: uint8, or int8's two's complement). acc holds qconv_s8_pad16(n) initialised values,
 * all overwritten: the rounding loop then runs whole vectors of 16 and never its scalar tail,
 * whose data-dependent branches (gcc compares and jumps there) cost more than the rest; the
 * narrowing loop after it has no branches. */
static void qconv_s8_requant_m(int64_t n, int32_t *restrict acc, const double *m, int per,
                               double yz, int y_type, void *restrict y, int small)
{
    const double lo = y_type == 2 ? 0.0 : -128.0, hi = y_type == 2 ? 255.0 : 127.0;
    const int64_t nr = qconv_s8_pad16(n);
    uint8_t *yo = (uint8_t *)y;
    if (per) {
        for (int64_t t = 0; t < nr; t++)
            acc[t] = qconv_s8_round(acc[t], m[t], yz, lo, hi);
    } else {
        qconv_s8_round_n(n, acc, m[0], yz, y_type, small);
    }
    for (int64_t t = 0; t < n; t++)
        yo[t] = (uint8_t)acc[t];
}

static void qconv_s8_requant(int64_t n, int32_t *restrict acc, double m, double yz, int y_type,
                             void *restrict y, int small)
{
    qconv_s8_requant_m(n, acc, &m, 0, yz, y_type, y, small);
}

/* acc[0..3] += the dot products of w[K] with patches a, a + K, a + 2K, a + 3K. */
static void qconv_dot4(int64_t K, const uint8_t *restrict a, const int8_t *restrict w,
                       int32_t *restrict acc)
{
    const uint8_t *a1 = a + K, *a2 = a + 2 * K, *a3 = a + 3 * K;
    int32_t s0 = acc[0], s1 = acc[1], s2 = acc[2], s3 = acc[3];
    for (int64_t k = 0; k < K; k++) {
        const int32_t wk = w[k];
        s0 += (int32_t)a[k] * wk;
        s1 += (int32_t)a1[k] * wk;
        s2 += (int32_t)a2[k] * wk;
        s3 += (int32_t)a3[k] * wk;
    }
    acc[0] = s0, acc[1] = s1, acc[2] = s2, acc[3] = s3;
}

static int32_t qconv_dot1(int64_t K, const uint8_t *restrict a, const int8_t *restrict w,
                          int32_t acc)
{
    for (int64_t k = 0; k < K; k++)
        acc += (int32_t)a[k] * (int32_t)w[k];
    return acc;
}

/* acc[0..3] += the dot products of a16[K] with the weight rows w, w + ws, w + 2ws, w + 3ws.
 * The operands as int16 (products of two int16 summed in int32): the multiply-add of int16
 * pairs that every x86 vector unit has (pmaddwd), where byte operands left gcc a widening
 * multiply and widening adds; four rows give four independent sums. */
static void qconv_dot16x4(int64_t K, const int16_t *restrict a16, const int8_t *restrict w,
                          int64_t ws, int32_t *restrict acc)
{
    const int8_t *w1 = w + ws, *w2 = w + 2 * ws, *w3 = w + 3 * ws;
    int32_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    for (int64_t k = 0; k < K; k++) {
        const int32_t x = a16[k];
        s0 += x * (int16_t)w[k];
        s1 += x * (int16_t)w1[k];
        s2 += x * (int16_t)w2[k];
        s3 += x * (int16_t)w3[k];
    }
    acc[0] += s0, acc[1] += s1, acc[2] += s2, acc[3] += s3;
}

static int32_t qconv_dot16(int64_t K, const int16_t *restrict a16, const int8_t *restrict w)
{
    int32_t s = 0;
    for (int64_t k = 0; k < K; k++)
        s += (int32_t)a16[k] * (int16_t)w[k];
    return s;
}

/* Bytes of a one-pixel product's patch widened at a time (on the stack, twice that). */
#define QCONV_GEMV_KC 512

/* acc[j] += the dot product of the patch a[Kp] with weight row j (w + j*Kp), j < no: the one
 * pixel of a batch-1 product (tiny_autoencoder_int8's layers: 640 x 128 10.4 -> 3.2 us,
 * 128 x 128 2.1 -> 0.62 us on AMD Zen 3 against one qconv_dot1 per channel). The patch is
 * widened to int16 once per chunk of QCONV_GEMV_KC bytes, which four rows at a time then read
 * from L1. Integer sums, exact in any order: the same bits. */
static void qconv_s8_gemv(int64_t Kp, const uint8_t *a, const int8_t *w, int64_t no, int32_t *acc)
{
    int16_t a16[QCONV_GEMV_KC];
    for (int64_t k0 = 0; k0 < Kp; k0 += QCONV_GEMV_KC) {
        const int64_t kn = Kp - k0 < QCONV_GEMV_KC ? Kp - k0 : QCONV_GEMV_KC;
        for (int64_t k = 0; k < kn; k++)
            a16[k] = a[k0 + k];
        int64_t j = 0;
        for (; j + 4 <= no; j += 4)
            qconv_dot16x4(kn, a16, w + j * Kp + k0, Kp, acc + j);
        for (; j < no; j++)
            acc[j] += qconv_dot16(kn, a16, w + j * Kp + k0);
    }
}

/* A 1x1 convolution with strides 1 and no padding: output pixel p reads input pixel p. */
O2C_KERNEL int qconv_s8_pointwise(const int64_t *geo)
{
    int pointwise = geo[7] * geo[8] * geo[9] == 1;
    for (int i = 13; i < 19; i++) /* strides 1, no padding */
        pointwise = pointwise && geo[i] == (i < 16);
    for (int i = 2; i < 5; i++) /* nor padding at the end */
        pointwise = pointwise && geo[8 + i] == geo[i];
    return pointwise;
}

/* The patches of output pixels p0 .. p0+nt-1 of one group's input xg [Cg][D][H][W], offset
 * to uint8 (flip), padding taps = xz: tap k of pixel t at col[t * ts + k / 4 * qs + k % 4]
 * (dot form: ts = Kp, qs = 4, col [tile][Kp]; blocked form: ts = 4, qs = 4T, col [Kp/4][T][4]).
 * The bytes no tap writes are the caller's (they meet zero weights or are dropped). */
static void qconv_s8_pack(const int64_t *geo, const uint8_t *xg, uint8_t flip, uint8_t xz,
                          int64_t p0, int64_t nt, int64_t ts, int64_t qs, uint8_t *col)
{
    const int64_t D = geo[2], H = geo[3], W = geo[4], Cg = geo[1] / geo[6];
    const int64_t KD = geo[7], KH = geo[8], KW = geo[9], OH = geo[11], OW = geo[12];
#define QCONV_AT(t, k) col[(t)*ts + ((k) >> 2) * qs + ((k)&3)]
    if (qconv_s8_pointwise(geo)) { /* the patch of pixel p is column p of xg [Cg][P] */
        for (int64_t c = 0; c < Cg; c++)
            for (int64_t t = 0; t < nt; t++)
                QCONV_AT(t, c) = (uint8_t)(xg[c * D * H * W + p0 + t] ^ flip);
        return;
    }
    for (int64_t t = 0; t < nt; t++) {
        const int64_t p = p0 + t, od = p / (OH * OW), oh = p / OW % OH, ow = p % OW;
        const int64_t d0 = od * geo[13] - geo[16], h0 = oh * geo[14] - geo[17];
        const int64_t w0 = ow * geo[15] - geo[18];
        int64_t k = 0;
        if (d0 >= 0 && d0 + (KD - 1) * geo[19] < D && h0 >= 0 && h0 + (KH - 1) * geo[20] < H &&
            w0 >= 0 && w0 + (KW - 1) * geo[21] < W) { /* every tap inside: no bounds checks */
            for (int64_t ic = 0; ic < Cg; ic++)
                for (int64_t kd = 0; kd < KD; kd++)
                    for (int64_t kh = 0; kh < KH; kh++) {
                        const uint8_t *src =
                            xg + ((ic * D + d0 + kd * geo[19]) * H + h0 + kh * geo[20]) * W + w0;
                        for (int64_t kw = 0; kw < KW; kw++, k++)
                            QCONV_AT(t, k) = (uint8_t)(src[kw * geo[21]] ^ flip);
                    }
            continue;
        }
        for (int64_t ic = 0; ic < Cg; ic++)
            for (int64_t kd = 0; kd < KD; kd++) {
                const int64_t id = od * geo[13] - geo[16] + kd * geo[19];
                for (int64_t kh = 0; kh < KH; kh++) {
                    const int64_t ih = oh * geo[14] - geo[17] + kh * geo[20];
                    const int inside = id >= 0 && id < D && ih >= 0 && ih < H;
                    const int64_t row = ((ic * D + id) * H + ih) * W; /* read only inside */
                    for (int64_t kw = 0; kw < KW; kw++, k++) {
                        const int64_t iw = ow * geo[15] - geo[18] + kw * geo[21];
                        QCONV_AT(t, k) =
                            inside && iw >= 0 && iw < W ? (uint8_t)(xg[row + iw] ^ flip) : xz;
                    }
                }
            }
    }
#undef QCONV_AT
}

/* The blocked form's patches of output pixels p0 .. p0+nt-1 (as qconv_s8_pack with ts = 4,
 * qs = 4T), a run of pixels of one output row at a time: each tap is then a strided run of one
 * input row, checked against the row's ends once. Not for pointwise convolutions. */
static void qconv_s8_pack_rows(const int64_t *geo, const uint8_t *xg, uint8_t flip, uint8_t xz,
                               int64_t p0, int64_t nt, int64_t T, uint8_t *restrict xq)
{
    const int64_t D = geo[2], H = geo[3], W = geo[4], Cg = geo[1] / geo[6];
    const int64_t KD = geo[7], KH = geo[8], KW = geo[9], OH = geo[11], OW = geo[12];
    const int64_t sw = geo[15], dw = geo[21];
    for (int64_t t = 0; t < nt;) {
        const int64_t p = p0 + t, od = p / (OH * OW), oh = p / OW % OH, ow = p % OW;
        const int64_t c = OW - ow < nt - t ? OW - ow : nt - t;
        int64_t k = 0;
        for (int64_t ic = 0; ic < Cg; ic++)
            for (int64_t kd = 0; kd < KD; kd++) {
                const int64_t id = od * geo[13] - geo[16] + kd * geo[19];
                for (int64_t kh = 0; kh < KH; kh++) {
                    const int64_t ih = oh * geo[14] - geo[17] + kh * geo[20];
                    const int inside = id >= 0 && id < D && ih >= 0 && ih < H;
                    const uint8_t *row = xg + (inside ? ((ic * D + id) * H + ih) * W : 0);
                    for (int64_t kw = 0; kw < KW; kw++, k++) {
                        uint8_t *dst = xq + (k >> 2) * 4 * T + (k & 3) + 4 * t;
                        const int64_t iw0 = ow * sw - geo[18] + kw * dw;
                        if (!inside) {
                            for (int64_t j = 0; j < c; j++)
                                dst[4 * j] = xz;
                        } else if (iw0 >= 0 && iw0 + (c - 1) * sw < W) {
                            const uint8_t *src = row + iw0;
                            for (int64_t j = 0; j < c; j++)
                                dst[4 * j] = (uint8_t)(src[j * sw] ^ flip);
                        } else {
                            for (int64_t j = 0; j < c; j++) {
                                const int64_t iw = iw0 + j * sw;
                                dst[4 * j] = iw >= 0 && iw < W ? (uint8_t)(row[iw] ^ flip) : xz;
                            }
                        }
                    }
                }
            }
        t += c;
    }
}

static void qconv_s8_block_plane(int64_t taps, const int64_t *off, int64_t Cq, int64_t LX,
                                 int64_t T, const uint32_t *xi, const int8_t *restrict wb,
                                 const int32_t *restrict bias, int32_t *restrict acc);

/* acc [8][QCONV_TB] (the first T of each row) = bias[j] + sum_k xq[k/4][t][k%4] * wb[k/4][j][k%4]
 * over Kp = 4 Kq, T 16 or 32 pixels: one block of the blocked form, the plane form's block with
 * one tap whose quads are T lanes apart (xq is 4-byte aligned scratch). */
static void qconv_s8_block(int64_t Kq, int64_t T, const uint8_t *restrict xq,
                           const int8_t *restrict wb, const int32_t *restrict bias,
                           int32_t *restrict acc)
{
    const int64_t at = 0;
    qconv_s8_block_plane(1, &at, Kq, T, T, (const uint32_t *)(const void *)xq, wb, bias, acc);
}

/* One group of the blocked form: y [OCg][P] from xg [Cg][D][H][W]; w the group's packed
 * weights; scratch: qconv_s8_tb(geo) * Kp bytes. */
static void qconv_s8_blocked_group(const int64_t *geo, const uint8_t *xg, uint8_t flip, uint8_t xz,
                                   const int8_t *w, const int32_t *bias_adj, const double *mult,
                                   int y_type, double yz, uint8_t *y, uint8_t *scratch)
{
    const int64_t OCg = geo[5] / geo[6], P = geo[10] * geo[11] * geo[12];
    const int64_t Kp = qconv_s8_row(geo), T = qconv_s8_tb(geo);
    int32_t acc[QCONV_OCB * QCONV_TB], bias[QCONV_OCB];
    for (int64_t p0 = 0; p0 < P; p0 += T) {
        const int64_t nt = P - p0 < T ? P - p0 : T;
        memset(scratch, 0, (size_t)(Kp * T)); /* k >= K and pixels >= nt */
        if (qconv_s8_pointwise(geo))
            qconv_s8_pack(geo, xg, flip, xz, p0, nt, 4, 4 * T, scratch);
        else
            qconv_s8_pack_rows(geo, xg, flip, xz, p0, nt, T, scratch);
        for (int64_t o0 = 0; o0 < OCg; o0 += QCONV_OCB) {
            const int64_t no = OCg - o0 < QCONV_OCB ? OCg - o0 : QCONV_OCB;
            for (int64_t j = 0; j < QCONV_OCB; j++)
                bias[j] = j < no ? bias_adj[o0 + j] : 0;
            qconv_s8_block(Kp / 4, T, scratch, w + o0 * Kp, bias, acc);
            for (int64_t j = 0; j < no; j++)
                qconv_s8_requant(nt, acc + j * QCONV_TB, mult[o0 + j], yz, y_type,
                                 y + (o0 + j) * P + p0,
                                 qconv_s8_fits(geo, bias[j], mult[o0 + j], yz));
        }
    }
}

/* dst[j] = the four channel bytes r[0..3][j * sw] ^ flip as one lane (a channel past the group,
 * r[c] NULL, reads xz), j < n. */
static void qconv_s8_lanes(int64_t n, int64_t sw, const uint8_t *const *r, uint8_t flip, uint8_t xz,
                           uint32_t *restrict dst)
{
    const uint32_t flip4 = (uint32_t)flip * 0x01010101u;
    if (r[3] && sw == 1) {
        const uint8_t *restrict r0 = r[0], *restrict r1 = r[1], *restrict r2 = r[2];
        const uint8_t *restrict r3 = r[3];
        for (int64_t w = 0; w < n; w++)
            dst[w] = ((uint32_t)r0[w] | (uint32_t)r1[w] << 8 | (uint32_t)r2[w] << 16 |
                      (uint32_t)r3[w] << 24) ^
                     flip4;
        return;
    }
    for (int64_t w = 0; w < n; w++) {
        uint32_t v = 0;
        for (int c = 0; c < 4; c++)
            v |= (uint32_t)(r[c] ? (uint8_t)(r[c][w * sw] ^ flip) : xz) << 8 * c;
        dst[w] = v;
    }
}

/* xi [Cq][LX] = a group's input xg [Cg][D][H][W] as the plane form's lanes (see
 * qconv_s8_plane_blocked), offset to uint8 (flip); padding and channels past Cg read xz. */
static void qconv_s8_interleave(const int64_t *geo, const uint8_t *xg, uint8_t flip, uint8_t xz,
                                int64_t Cq, int64_t LX, uint32_t *restrict xi)
{
    const int64_t Cg = geo[1] / geo[6], D = geo[2], H = geo[3], W = geo[4];
    const int64_t sd = geo[13], sh = geo[14], sw = geo[15], left = geo[18];
    int64_t q[3], L, PL;
    qconv_s8_dw_extents(geo, q, &L, &PL);
    const int64_t PLL = qconv_s8_plane_pll(geo);
    const uint32_t fill = (uint32_t)xz * 0x01010101u;
    /* without padding or strides (pointwise) the volume is one run of D*H*W lanes */
    const int whole = sd * sh * sw == 1 && q[0] == D && q[1] == H && q[2] == W;
    for (int64_t i = 0; i < Cq * LX; i++)
        xi[i] = fill;
    for (int64_t g = 0; g < Cq; g++)
        /* column phase b takes the columns w = w0, w0 + sw, ... (w + left = b mod sw); the
         * phases of the rows are counted, not divided */
        for (int64_t b = 0; b < sw; b++) {
            const int64_t w0 = ((b - left) % sw + sw) % sw, col = (w0 + left) / sw;
            int64_t n = w0 < W ? (W - 1 - w0) / sw + 1 : 0;
            n = n < q[2] - col ? n : q[2] - col;
            if (whole)
                n = D * H * W;
            for (int64_t id = 0, pa = geo[16] % sd, pi = geo[16] / sd;
                 id < (whole ? 1 : D) && pi < q[0]; id++) {
                for (int64_t ih = 0, ha = geo[17] % sh, hi = geo[17] / sh;
                     ih < (whole ? 1 : H) && hi < q[1]; ih++) {
                    uint32_t *dst = xi + g * LX + ((pa * sh + ha) * sw + b) * PLL +
                                    (pi * q[1] + hi) * q[2] + col;
                    const uint8_t *r[4];
                    for (int c = 0; c < 4; c++)
                        r[c] =
                            4 * g + c < Cg ? xg + (((4 * g + c) * D + id) * H + ih) * W + w0 : NULL;
                    qconv_s8_lanes(n, sw, r, flip, xz, dst);
                    if (++ha == sh)
                        ha = 0, hi++;
                }
                if (++pa == sd)
                    pa = 0, pi++;
            }
        }
}

/* acc [8][QCONV_TB] (the first T of each row) = bias[j] + the sums of the plane form for the T
 * output positions whose lanes start at xi (qconv_s8_block, with the patches read in place). */
static void qconv_s8_block_plane(int64_t taps, const int64_t *off, int64_t Cq, int64_t LX,
                                 int64_t T, const uint32_t *xi, const int8_t *restrict wb,
                                 const int32_t *restrict bias, int32_t *restrict acc)
{
    const int8_t *wq = wb;
#ifdef QCONV_VNNI
    __m512i c0[QCONV_OCB], c1[QCONV_OCB];
    for (int j = 0; j < QCONV_OCB; j++)
        c0[j] = c1[j] = _mm512_set1_epi32(bias[j]);
    for (int64_t k = 0; k < taps; k++) {
        const uint32_t *xt = xi + off[k];
        if (T == 32) {
            for (int64_t q = 0; q < Cq; q++, wq += 4 * QCONV_OCB) {
                const __m512i a0 = _mm512_loadu_si512((const void *)(xt + q * LX));
                const __m512i a1 = _mm512_loadu_si512((const void *)(xt + q * LX + 16));
                for (int j = 0; j < QCONV_OCB; j++) {
                    int32_t w4;
                    memcpy(&w4, wq + j * 4, 4);
                    const __m512i b = _mm512_set1_epi32(w4);
                    c0[j] = _mm512_dpbusd_epi32(c0[j], a0, b);
                    c1[j] = _mm512_dpbusd_epi32(c1[j], a1, b);
                }
            }
        } else {
            for (int64_t q = 0; q < Cq; q++, wq += 4 * QCONV_OCB) {
                const __m512i a0 = _mm512_loadu_si512((const void *)(xt + q * LX));
                for (int j = 0; j < QCONV_OCB; j++) {
                    int32_t w4;
                    memcpy(&w4, wq + j * 4, 4);
                    c0[j] = _mm512_dpbusd_epi32(c0[j], a0, _mm512_set1_epi32(w4));
                }
            }
        }
    }
    for (int j = 0; j < QCONV_OCB; j++) {
        _mm512_storeu_si512((void *)(acc + j * QCONV_TB), c0[j]);
        if (T == 32)
            _mm512_storeu_si512((void *)(acc + j * QCONV_TB + 16), c1[j]);
    }
#else
    for (int j = 0; j < QCONV_OCB; j++)
        for (int64_t t = 0; t < T; t++)
            acc[j * QCONV_TB + t] = bias[j];
    for (int64_t k = 0; k < taps; k++) {
        const uint32_t *xt = xi + off[k];
        for (int64_t q = 0; q < Cq; q++, wq += 4 * QCONV_OCB) {
            const uint8_t *a = (const uint8_t *)(xt + q * LX);
            for (int j = 0; j < QCONV_OCB; j++) {
                const int8_t *w = wq + j * 4;
                const int32_t w0 = w[0], w1 = w[1], w2 = w[2], w3 = w[3];
                int32_t *r = acc + j * QCONV_TB;
                for (int64_t t = 0; t < T; t++)
                    r[t] +=
                        a[4 * t] * w0 + a[4 * t + 1] * w1 + a[4 * t + 2] * w2 + a[4 * t + 3] * w3;
            }
        }
    }
#endif
}

/* One group of the plane form: y [OCg][P] from xg [Cg][D][H][W]; w the group's packed weights;
 * scratch: qconv_s8_scratch(geo) bytes (the interleaved input, then 8 channels' requantised
 * positions unless they are the output pixels). */
static void qconv_s8_plane_group(const int64_t *geo, const uint8_t *xg, uint8_t flip, uint8_t xz,
                                 const int8_t *w, const int32_t *bias_adj, const double *mult,
                                 int y_type, double yz, uint8_t *y, uint8_t *scratch)
{
    const int64_t OCg = geo[5] / geo[6], OD = geo[10], OH = geo[11], OW = geo[12];
    const int64_t P = OD * OH * OW, Cq = (geo[1] / geo[6] + 3) / 4, Kp = qconv_s8_row(geo);
    const int64_t LX = qconv_s8_plane_lanes(geo), PLL = qconv_s8_plane_pll(geo);
    const int64_t taps = geo[7] * geo[8] * geo[9];
    int64_t q[3], L, PL;
    qconv_s8_dw_extents(geo, q, &L, &PL);
    const int64_t T = L >= 96 ? 32 : 16, Ls = (L + QCONV_TB - 1) / QCONV_TB * QCONV_TB;
    const int direct = qconv_s8_plane_direct(geo);
    uint32_t *xi = (uint32_t *)(void *)scratch;
    uint8_t *stage = scratch + 4 * Cq * LX;
    int32_t acc[QCONV_OCB * QCONV_TB], bias[QCONV_OCB];
    int64_t off[QCONV_DW_TAPS]; /* where tap k reads (qconv_s8_plane_blocked: taps fit) */
    for (int64_t k = 0; k < taps; k++)
        off[k] = qconv_s8_dw_off(geo, q, PLL, k);
    qconv_s8_interleave(geo, xg, flip, xz, Cq, LX, xi);
    for (int64_t o0 = 0; o0 < OCg; o0 += QCONV_OCB) {
        const int64_t no = OCg - o0 < QCONV_OCB ? OCg - o0 : QCONV_OCB;
        for (int64_t j = 0; j < QCONV_OCB; j++)
            bias[j] = j < no ? bias_adj[o0 + j] : 0;
        for (int64_t i0 = 0; i0 < L; i0 += T) {
            const int64_t nt = L - i0 < T ? L - i0 : T;
            qconv_s8_block_plane(taps, off, Cq, LX, T, xi + i0, w + o0 * Kp, bias, acc);
            for (int64_t j = 0; j < no; j++)
                qconv_s8_requant(nt, acc + j * QCONV_TB, mult[o0 + j], yz, y_type,
                                 direct ? y + (o0 + j) * P + i0 : stage + j * Ls + i0,
                                 qconv_s8_fits(geo, bias[j], mult[o0 + j], yz));
        }
        for (int64_t j = 0; !direct && j < no; j++)
            for (int64_t od = 0; od < OD; od++)
                for (int64_t oh = 0; oh < OH; oh++)
                    memcpy(y + (o0 + j) * P + (od * OH + oh) * OW,
                           stage + j * Ls + (od * q[1] + oh) * q[2], (size_t)OW);
    }
}

/* dst[j] = src[j * sw] ^ flip for j < n (stride 2 as a constant, which gcc vectorises). */
static void qconv_s8_dw_copy(int64_t n, int64_t sw, const uint8_t *restrict src, uint8_t flip,
                             uint8_t *restrict dst)
{
    if (sw == 2) { /* in blocks of 16 (gcc's wide loop needs 64), then the rest */
        int64_t j0 = 0;
        for (; j0 + 16 <= n; j0 += 16)
            for (int t = 0; t < 16; t++)
                dst[j0 + t] = (uint8_t)(src[2 * (j0 + t)] ^ flip);
        for (; j0 < n; j0++)
            dst[j0] = (uint8_t)(src[2 * j0] ^ flip);
        return;
    }
    for (int64_t j = 0; j < n; j++)
        dst[j] = (uint8_t)(src[j * sw] ^ flip);
}

/* xp = the zero-point-padded phases of one channel xc [D][H][W] (see qconv_s8_plane), offset
 * to uint8 (flip); the caller set xp to xz once, and only the channel's own positions are
 * written. Stride 1 copies rows of fewer than 16 columns 16 bytes at a time, the bytes past the
 * row set to xz: they are padding or are overwritten by the rows after them. */
static void qconv_s8_dw_fill(const int64_t *geo, const int64_t *q, int64_t PL, const uint8_t *xc,
                             uint8_t flip, uint8_t xz, uint8_t *restrict xp)
{
    const int64_t D = geo[2], H = geo[3], W = geo[4], sd = geo[13], sh = geo[14], sw = geo[15];
    const int64_t left = geo[18];
    if (sd * sh * sw == 1) {
        const int64_t n = W < q[2] - left ? W : q[2] - left; /* columns past the last tap unread */
        if (n <= 0)
            return;
        uint8_t keep[16], pad[16]; /* the bytes of a 16-byte row copy: the row's, then xz */
        for (int t = 0; t < 16; t++)
            keep[t] = t < n ? 0xff : 0, pad[t] = t < n ? 0 : xz;
        for (int64_t id = 0; id < D && id + geo[16] < q[0]; id++)
            for (int64_t ih = 0; ih < H && ih + geo[17] < q[1]; ih++) {
                const int64_t at = (id * H + ih) * W;
                const uint8_t *src = xc + at;
                uint8_t *row = xp + ((id + geo[16]) * q[1] + ih + geo[17]) * q[2] + left;
                if (n < 16 && at + 16 <= D * H * W) {
                    uint8_t v[16];
                    for (int t = 0; t < 16; t++)
                        v[t] = (uint8_t)(((src[t] ^ flip) & keep[t]) | pad[t]);
                    memcpy(row, v, 16);
                    continue;
                }
                for (int64_t w = 0; w < n; w++)
                    row[w] = (uint8_t)(src[w] ^ flip);
            }
        return;
    }
    /* column phase b takes the columns w = w0, w0 + sw, ... (w + left = b mod sw); the phases of
     * the rows are counted, not divided (divisions by a run-time stride are slow) */
    for (int64_t b = 0; b < sw; b++) {
        const int64_t w0 = ((b - left) % sw + sw) % sw, col = (w0 + left) / sw;
        int64_t n = w0 < W ? (W - 1 - w0) / sw + 1 : 0;
        n = n < q[2] - col ? n : q[2] - col;
        for (int64_t id = 0, pa = geo[16] % sd, pi = geo[16] / sd; id < D && pi < q[0]; id++) {
            for (int64_t ih = 0, ha = geo[17] % sh, hi = geo[17] / sh; ih < H && hi < q[1]; ih++) {
                uint8_t *dst = xp + ((pa * sh + ha) * sw + b) * PL + (pi * q[1] + hi) * q[2] + col;
                qconv_s8_dw_copy(n, sw, xc + (id * H + ih) * W + w0, flip, dst);
                if (++ha == sh)
                    ha = 0, hi++;
            }
            if (++pa == sd)
                pa = 0, pi++;
        }
    }
}

/* acc[0..n) += src[0..n) * wk, n a multiple of 16 (blocks of 16: no scalar tail). */
static void qconv_s8_dw_tap(int64_t n, const uint8_t *restrict src, int32_t wk,
                            int32_t *restrict acc)
{
    for (int64_t i0 = 0; i0 < n; i0 += 16)
        for (int t = 0; t < 16; t++)
            acc[i0 + t] += (int32_t)src[i0 + t] * wk;
}

/* y [OD][OH][OW] = the kept columns of the requantised positions acc (see qconv_s8_plane), 16
 * at a time where the channel's output has room (past the row's end the next rows overwrite
 * them; acc has 16 values past its last row). */
static void qconv_s8_dw_narrow(const int64_t *geo, const int64_t *q, const int32_t *restrict acc,
                               uint8_t *restrict y)
{
    const int64_t OD = geo[10], OH = geo[11], OW = geo[12], P = OD * OH * OW;
    for (int64_t od = 0; od < OD; od++)
        for (int64_t oh = 0; oh < OH; oh++) {
            const int32_t *r = acc + (od * q[1] + oh) * q[2];
            const int64_t at = (od * OH + oh) * OW;
            int64_t ow = 0;
            for (; ow < OW && at + ow + 16 <= P; ow += 16) {
                uint8_t v[16];
                for (int t = 0; t < 16; t++)
                    v[t] = (uint8_t)r[ow + t];
                memcpy(y + at + ow, v, 16);
            }
            for (; ow < OW; ow++)
                y[at + ow] = (uint8_t)r[ow];
        }
}

/* The depthwise plane form for the C channels of one image: y [C][OD][OH][OW] from
 * x [C][D][H][W], w [C][KD][KH][KW]; scratch: qconv_s8_dw_bytes(geo). */
static void qconv_s8_depthwise_planes(const int64_t *geo, const uint8_t *x, uint8_t flip,
                                      uint8_t xz, const int8_t *w, const int32_t *bias_adj,
                                      const double *mult, int y_type, double yz, uint8_t *y,
                                      uint8_t *scratch)
{
    const int64_t C = geo[1], OD = geo[10], OH = geo[11], OW = geo[12], P = OD * OH * OW;
    const int64_t sd = geo[13], sh = geo[14], sw = geo[15], K = geo[7] * geo[8] * geo[9];
    int64_t q[3], L, PL;
    qconv_s8_dw_extents(geo, q, &L, &PL);
    const int64_t La = qconv_s8_pad16(L) + 16; /* the narrowing below reads 16 past a row */
    int32_t *acc = (int32_t *)(void *)scratch;
    uint8_t *xp = scratch + 4 * La;
    memset(xp, xz, (size_t)(sd * sh * sw * PL));
    int64_t off[QCONV_DW_TAPS]; /* where tap k reads, the first taps (divisions are slow) */
    for (int64_t k = 0; k < K && k < QCONV_DW_TAPS; k++)
        off[k] = qconv_s8_dw_off(geo, q, PL, k);
    for (int64_t c = 0; c < C; c++) {
        const int8_t *wc = w + c * K;
        uint8_t *yc = y + c * P;
        qconv_s8_dw_fill(geo, q, PL, x + c * geo[2] * geo[3] * geo[4], flip, xz, xp);
        for (int64_t i = 0; i < La; i++)
            acc[i] = bias_adj[c];
        /* in blocks of 16, so that gcc leaves no scalar tail */
        for (int64_t k = 0; k < K; k++)
            qconv_s8_dw_tap(La - 16,
                            xp + (k < QCONV_DW_TAPS ? off[k] : qconv_s8_dw_off(geo, q, PL, k)),
                            wc[k], acc);
        /* requantised in place, then the kept columns narrowed into y (rows of fewer than 16
         * 16 at a time where the channel's output has room; the next rows overwrite the rest) */
        qconv_s8_round_n(L, acc, mult[c], yz, y_type, qconv_s8_fits(geo, bias_adj[c], mult[c], yz));
        qconv_s8_dw_narrow(geo, q, acc, yc);
    }
}

/* One channel of a strided depthwise convolution, a row of output columns at a time. */
static void qconv_s8_depthwise_rows(const int64_t *geo, const uint8_t *xc, uint8_t flip, uint8_t xz,
                                    const int8_t *wc, int32_t bias, double m, int y_type, double yz,
                                    uint8_t *y, uint8_t *row)
{
    const int64_t D = geo[2], H = geo[3], W = geo[4], KD = geo[7], KH = geo[8], KW = geo[9];
    const int64_t OD = geo[10], OH = geo[11], OW = geo[12], sw = geo[15], dw = geo[21];
    int32_t acc[QCONV_ROW];
    for (int64_t od = 0; od < OD; od++)
        for (int64_t oh = 0; oh < OH; oh++)
            for (int64_t ow0 = 0; ow0 < OW; ow0 += QCONV_ROW) {
                const int64_t nt = OW - ow0 < QCONV_ROW ? OW - ow0 : QCONV_ROW;
                const int64_t lo = ow0 * sw - geo[18], len = (nt - 1) * sw + (KW - 1) * dw + 1;
                for (int64_t t = 0; t < qconv_s8_pad16(nt); t++)
                    acc[t] = bias;
                for (int64_t kd = 0; kd < KD; kd++)
                    for (int64_t kh = 0; kh < KH; kh++) {
                        const int64_t id = od * geo[13] - geo[16] + kd * geo[19];
                        const int64_t ih = oh * geo[14] - geo[17] + kh * geo[20];
                        const int inside = id >= 0 && id < D && ih >= 0 && ih < H;
                        const int64_t src = (id * H + ih) * W; /* read only inside */
                        /* the input row these taps read, padded with the zero point */
                        int64_t j0 = lo >= 0 ? 0 : -lo, j1 = W - lo; /* iw = lo + j in [0, W) */
                        if (!inside)
                            j0 = j1 = len;
                        j0 = j0 < len ? j0 : len;
                        j1 = j1 < len ? j1 : len;
                        j1 = j1 > j0 ? j1 : j0;
                        for (int64_t j = 0; j < j0; j++)
                            row[j] = xz;
                        for (int64_t j = j0; j < j1; j++)
                            row[j] = (uint8_t)(xc[src + lo + j] ^ flip);
                        for (int64_t j = j1; j < len; j++)
                            row[j] = xz;
                        for (int64_t kw = 0; kw < KW; kw++) {
                            const int32_t wk = wc[(kd * KH + kh) * KW + kw];
                            const uint8_t *r = row + kw * dw;
                            for (int64_t t = 0; t < nt; t++)
                                acc[t] += (int32_t)r[t * sw] * wk;
                        }
                    }
                qconv_s8_requant(nt, acc, m, yz, y_type, y + (od * OH + oh) * OW + ow0,
                                 qconv_s8_fits(geo, bias, m, yz));
            }
}

/* QLinearConv with int8 weights of zero point 0: x [N][C][D][H][W] uint8 or int8 (x_type 2 or
 * 3), x_zp one element or NULL; w [OC][Kp] from qconv_s8_weights; bias_adj, mult from
 * qconv_s8_prepare;
 * y [N][OC][OD][OH][OW] of y_type (2 or 3) with y_zp (or NULL); scratch: qconv_s8_scratch(geo)
 * bytes, 4-byte aligned. */
O2C_KERNEL void qconv_s8(const int64_t *geo, int x_type, const void *x, const void *x_zp,
                         const int8_t *w, const int32_t *bias_adj, const double *mult, int y_type,
                         const void *y_zp, void *y, uint8_t *scratch)
{
    const int64_t N = geo[0], C = geo[1], OC = geo[5], G = geo[6];
    const int64_t Cg = C / G, OCg = OC / G, K = Cg * geo[7] * geo[8] * geo[9];
    const int64_t Kp = qconv_s8_row(geo);
    const int64_t plane = geo[2] * geo[3] * geo[4], P = geo[10] * geo[11] * geo[12];
    const uint8_t flip = x_type == 3 ? 0x80 : 0;
    const uint8_t xz = (uint8_t)(quant_load(x_type, x_zp, 0) + (x_type == 3 ? 128 : 0));
    const double yz = (double)quant_load(y_type, y_zp, 0);
    const uint8_t *xb = (const uint8_t *)x;
    uint8_t *yb = (uint8_t *)y; /* both output types are one byte */
    const int64_t tile = qconv_s8_tile(geo);
    int32_t acc[QCONV_TILE];
    for (int64_t n = 0; n < N; n++)
        for (int64_t g = 0; g < G; g++) {
            const uint8_t *xg = xb + (n * C + g * Cg) * plane;
            if (Cg == 1 && OCg == 1) {
                uint8_t *yc = yb + (n * OC + g) * P;
                if (qconv_s8_plane(geo)) {
                    qconv_s8_depthwise_planes(geo, xg, flip, xz, w, bias_adj, mult, y_type, yz, yc,
                                              scratch);
                    break; /* every channel */
                }
                qconv_s8_depthwise_rows(geo, xg, flip, xz, w + g * K, bias_adj[g], mult[g], y_type,
                                        yz, yc, scratch);
                continue;
            }
            if (qconv_s8_plane_blocked(geo)) {
                qconv_s8_plane_group(geo, xg, flip, xz, w + g * qconv_s8_ocg_padded(geo) * Kp,
                                     bias_adj + g * OCg, mult + g * OCg, y_type, yz,
                                     yb + (n * OC + g * OCg) * P, scratch);
                continue;
            }
            if (qconv_s8_blocked(geo)) {
                qconv_s8_blocked_group(geo, xg, flip, xz, w + g * qconv_s8_ocg_padded(geo) * Kp,
                                       bias_adj + g * OCg, mult + g * OCg, y_type, yz,
                                       yb + (n * OC + g * OCg) * P, scratch);
                continue;
            }
            for (int64_t p0 = 0; p0 < P; p0 += tile) {
                const int64_t nt = P - p0 < tile ? P - p0 : tile;
                for (int64_t t = 0; t < nt; t++) /* the padding bytes meet zero weights */
                    memset(scratch + t * Kp + K, 0, (size_t)(Kp - K));
                qconv_s8_pack(geo, xg, flip, xz, p0, nt, Kp, 4, scratch);
                if (P == 1) { /* one pixel (batch-1 products): the channels' sums together */
                    for (int64_t o0 = g * OCg; o0 < (g + 1) * OCg; o0 += QCONV_TILE) {
                        const int64_t no =
                            (g + 1) * OCg - o0 < QCONV_TILE ? (g + 1) * OCg - o0 : QCONV_TILE;
                        double m[QCONV_TILE];
                        for (int64_t j = 0; j < qconv_s8_pad16(no); j++) {
                            acc[j] = j < no ? bias_adj[o0 + j] : 0;
                            m[j] = j < no ? mult[o0 + j] : 0.0;
                        }
                        qconv_s8_gemv(Kp, scratch, w + o0 * Kp, no, acc);
                        qconv_s8_requant_m(no, acc, m, 1, yz, y_type, yb + n * OC + o0, 0);
                    }
                    continue;
                }
                for (int64_t oc = g * OCg; oc < (g + 1) * OCg; oc++) {
                    const int8_t *wr = w + oc * Kp;
                    int64_t t = 0;
                    for (; t < qconv_s8_pad16(nt); t++)
                        acc[t] = bias_adj[oc];
                    for (t = 0; t + 4 <= nt; t += 4)
                        qconv_dot4(Kp, scratch + t * Kp, wr, acc + t);
                    for (; t < nt; t++)
                        acc[t] = qconv_dot1(Kp, scratch + t * Kp, wr, acc[t]);
                    qconv_s8_requant(nt, acc, mult[oc], yz, y_type, yb + (n * OC + oc) * P + p0,
                                     qconv_s8_fits(geo, bias_adj[oc], mult[oc], yz));
                }
            }
        }
}
