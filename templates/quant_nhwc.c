/* quant_nhwc.c — QLinearConv's fast form (quant.c: qconv_s8) on channels-last tensors.
 *
 * x [N][D][H][W][C] uint8 or int8, y [N][OD][OH][OW][OC] uint8 or int8: what the layout pass
 * (compiler/layout_nhwc.c) makes of the integer convolutions of QDQ models, onnxruntime's
 * QLinearConv with channels_last = 1. The geometry geo[24] is qconv's geo[22] (sizes, not layout),
 * the scratch budget (qnhwc_cap) and whether the requantisation fits int32 (qconv_nhwc_s8_small);
 * the
 * weights, bias_adj and mult come from quant.c as for qconv_s8 (qconv_s8_prepare), so that the
 * integers are qconv's exactly: the same exact int32 sum (the order of k is free for exact
 * sums), the same requantisation (qconv_s8_round). Activations are offset to uint8 as there
 * (int8 x ^ 0x80, its zero point + 128), padding taps read the offset zero point, whose share
 * bias_adj removes.
 *
 * Depthwise (one input and one output channel per group): weights [taps][Cp] (Cp = C rounded
 * up to 16, zero padded), each output pixel sums its taps across a block of up to
 * QNHWC_DWB channels, contiguous in x, w and y, so the loops over channels vectorise; the
 * requantisation runs across the block with each channel's multiplier.
 *
 * The others: weights [G][OCg/16][taps][Cq][16][4] (Cq = ceil(Cg/4); four input channels of
 * 16 output channels, zero padded): a tile of up to QNHWC_T consecutive output pixels and
 * up to QNHWC_NOB blocks of 16 output channels adds, per tap and quad of input channels, the
 * four bytes of each pixel (one 32-bit lane, contiguous in x) times the 16x4 weights: what
 * vpdpbusd does per 32-bit lane. With AVX512-VNNI (-march) that step is its intrinsic, with
 * AVX2 exact 16-bit products (qnhwc_core_avx2), else the plain loop; all give the same exact
 * integers. Layers with 1 or 3 channels run the band
 * form (qnhwc_band_rows: quads of a padded kernel row instead of (tap, channel)); with
 * O2C_SMALL_CODE one plain loop reads the same packed weights (qnhwc_widx, qnhwc_dw_widx).
 *
 * Part of the templates, pasted after quant.c, whose kernels it calls. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifndef O2C_KERNEL
#define O2C_KERNEL static
#endif

#if defined(__AVX512VNNI__) && defined(__AVX512BW__) && defined(__AVX512F__)
#include <immintrin.h>
#define QNHWC_VNNI 1
#elif defined(__AVX2__)
#include <immintrin.h>
#define QNHWC_AVX2 1 /* the exact 16-bit products of qnhwc_core_avx2 */
#endif

/* From quant.c, which the generated file pastes before this one. */
O2C_KERNEL int64_t quant_load(int type, const void *p, int64_t i);
O2C_KERNEL int32_t qconv_s8_round(int32_t a, double m, double yz, double lo, double hi);
O2C_KERNEL int32_t qconv_s8_round_small(int32_t a, double m, double yz, int32_t lo, int32_t hi);
O2C_KERNEL int qconv_s8_fits(const int64_t *geo, int32_t bias, double m, double yz);
O2C_KERNEL int qconv_s8_pointwise(const int64_t *geo);

#define QNHWC_OB   16 /* output channels per weight block: 16 int32 sums, one 512-bit vector */
#define QNHWC_NOB  3  /* most weight blocks per tile (24 vectors of sums) */
#define QNHWC_T    8  /* most output pixels per tile */
#define QNHWC_DWB  64 /* most channels per depthwise block */
#define QNHWC_TAPS 64 /* most taps of the direct form */
#ifndef QNHWC_WQ      /* (the unit test lowers it to cover several chunks) */
#define QNHWC_WQ 128  /* quads of a tile's activations widened at once (AVX2: 8 KiB) */
#endif

/* The requantisation's forms, the kernels' `small` (geo[23] - 1 once known): every channel's
 * double clamp; the int32 clamp, every channel qconv_s8_fits; that and the rounding by an add,
 * each multiplier also qnhwc_add_rounds (AVX2; the other paths take it as the int32 clamp). */
enum { QNHWC_REQ_DOUBLE, QNHWC_REQ_INT32, QNHWC_REQ_ADD };

static int qnhwc_depthwise(const int64_t *geo)
{
    return geo[1] == geo[6] && geo[5] == geo[6];
}

static int64_t qnhwc_up(int64_t n, int64_t m)
{
    return (n + m - 1) / m * m;
}

/* The depthwise row form (2-D, C channels with lcm(C, 64) <= 256, or a multiple of 64): the
 * zero-point-
 * padded input rows of a band of output rows are copied once, split by column phase (stride), xp
 * [sw][Hp][Wq][C]; then each tap of an output row is one contiguous run of OW*C bytes of xp, times
 * the tap's weights repeated along the row ([taps][Lw], Lw = lcm(C, 64): whole vectors of 64
 * bytes keep their channels), summed into the row's OW*C accumulators, which are y's row: no
 * per-pixel work. The band is the whole image where its copy fits QNHWC_DW_BYTES of scratch, or
 * the node's budget (qnhwc_cap), else as many output rows as fit (a band's copy repeats the
 * kernel's rows shared with the band before); where not even one row fits (and for other channel
 * counts) each pixel sums its taps across its channels, looking up the border pixels (with the row
 * form at 64 channels, 25x5 maps, dscnn_int8 runs in 0.86x the time; at 8 channels the pixel form
 * took 8x the time of the NCHW kernel, 7 of 8 lanes of a block empty; at 96 channels 2x). */
#ifndef QNHWC_DW_BYTES /* (the unit test lowers it to cover both forms) */
#define QNHWC_DW_BYTES 131072
#endif

/* geo[22], past qconv's geometry: the bytes of scratch the node may take (its planned scratch
 * budget), 0 for no budget. The row and band copies below take at most that (or their default
 * caps), and fall back to the forms that need only a padding pixel or a tile's patches. */
static int64_t qnhwc_cap(const int64_t *geo, int64_t dflt)
{
    return geo[22] > 0 ? geo[22] : dflt;
}

static int64_t qnhwc_lw(int64_t C)
{
    int64_t a = C, b = 64; /* lcm(C, 64) = C * 64 / gcd */
    while (b)
        a %= b, a ^= b, b ^= a, a ^= b; /* (a, b) = (b, a % b) */
    return C * 64 / a;
}

/* {Hp, Wq, bytes of xp} of the row form's bands of R output rows. */
static void qnhwc_dw_extents(const int64_t *geo, int64_t R, int64_t *e)
{
    const int64_t sw = geo[15];
    e[0] = (R - 1) * geo[14] + (geo[8] - 1) * geo[20] + 1;
    e[1] = ((geo[12] - 1) * sw + (geo[9] - 1) * geo[21] + 1 + sw - 1) / sw;
    e[2] = sw * e[0] * e[1] * geo[1] + 64; /* the last run's vector reads past it */
}

/* Scratch of the row form: xp, then the bias and multipliers of Lw channels i % C. */
static int64_t qnhwc_dw_row_scratch(const int64_t *geo, const int64_t *e)
{
    return qnhwc_up(e[2], 64) + 12 * qnhwc_lw(geo[1]);
}

/* Whether the convolution is 2-D: one input plane, one tap and one output plane along depth, which
 * reads input plane 0. The row and band forms copy rows of that plane; a 3-D convolution of depth 1
 * may still pad it (depth padding 1: the output plane reads only padding). */
static int qnhwc_plane(const int64_t *geo)
{
    return geo[2] == 1 && geo[7] == 1 && geo[10] == 1 && geo[16] == 0;
}

/* The longest weight period Lw the row form takes: 256, or C where C is a larger multiple of 64
 * (its period is C, as many blocks of packed weights as the pixel form's); other periods would
 * repeat a layer's weights more (144 channels: 576). */
static int64_t qnhwc_dw_lw_max(int64_t C)
{
    return C > 256 && C % 64 == 0 ? C : 256;
}

/* Output rows per band of the row form: all where the whole image's copy fits the cap, else the
 * most that fit (0: not the row form). */
static int64_t qnhwc_dw_band(const int64_t *geo)
{
    int64_t e[3], R = geo[11];
    if (!qnhwc_depthwise(geo) || !qnhwc_plane(geo) || geo[8] * geo[9] > QNHWC_TAPS ||
        qnhwc_lw(geo[1]) > qnhwc_dw_lw_max(geo[1]))
        return 0;
    const int64_t cap = qnhwc_cap(geo, QNHWC_DW_BYTES);
    qnhwc_dw_extents(geo, R, e);
    if (qnhwc_dw_row_scratch(geo, e) <= cap)
        return R;
    for (R = 0; R < geo[11]; R++) { /* (the copy grows with R) */
        qnhwc_dw_extents(geo, R + 1, e);
        if (qnhwc_dw_row_scratch(geo, e) > cap)
            break;
    }
    return R;
}

static int qnhwc_dw_rows(const int64_t *geo)
{
    return qnhwc_dw_band(geo) > 0;
}

/* Depthwise weights come in blocks of 64 bytes of a run (row form: Lw / 64, whose channels
 * repeat) or of 64 channels (C rounded up). */
static int64_t qnhwc_dw_blocks(const int64_t *geo)
{
    return qnhwc_dw_rows(geo) ? qnhwc_lw(geo[1]) / 64 : qnhwc_up(geo[1], 64) / 64;
}

/* The general form's tile: QNHWC_T output pixels (a partial tile repeats its last pixel; those
 * sums are dropped) x nob blocks of 16 output channels. The packed weights' k is
 * (tap, input channel), Kq = ceil(taps * Cg / 4) quads: with Cg a multiple of 4 (and at most
 * QNHWC_TAPS taps) each quad is one 32-bit lane of a pixel, read in place ("direct"); else the
 * tile's patches are copied first, [QNHWC_T][4 Kq] bytes ("patch", what the first layers with
 * 1 or 3 channels take). */
static int qnhwc_direct(const int64_t *geo)
{
    return geo[1] / geo[6] % 4 == 0 && geo[7] * geo[8] * geo[9] <= QNHWC_TAPS;
}

/* Whether a tile sums two pixels per vector of 16 channels (lanes 0-7 one pixel's 8 output
 * channels, 8-15 the next pixel's, whose bytes follow in y): one group of exactly 8 output
 * channels (vww_int8's first layers), where a vector per pixel would leave half its lanes empty.
 * The packed weights repeat lanes 0-7 in 8-15. */
static int qnhwc_pairs(const int64_t *geo)
{
    return geo[6] == 1 && geo[5] == QNHWC_OB / 2 && !qnhwc_depthwise(geo);
}

/* The band form of the others (2-D, one group, no column dilation: the first layers, with 1 or 3
 * channels): a band of output rows copies its zero-point-padded input rows once, xb [Hb][Wp][C]
 * (up to QNHWC_BAND_BYTES, or the node's budget), so that every window, at the border too, is KH
 * runs of KW*C contiguous bytes, read in place as Qr = ceil(KW*C / 4) quads each; the up to 3 bytes
 * past a run (the next pixel's, or the slack after xb) weigh 0. The patch form before it looked up
 * each tap of a border window: 40 lookups per pixel in dscnn_int8's first layer. */
#ifndef QNHWC_BAND_BYTES /* (the unit test lowers it to cover several bands) */
#define QNHWC_BAND_BYTES 65536
#endif

static int64_t qnhwc_qr(const int64_t *geo)
{
    return (geo[9] * geo[1] + 3) / 4;
}

/* Bytes of a band of R output rows: its padded input rows, then 64 of slack. */
static int64_t qnhwc_band_bytes(const int64_t *geo, int64_t R)
{
    const int64_t Hb = (R - 1) * geo[14] + (geo[8] - 1) * geo[20] + 1;
    const int64_t Wp = (geo[12] - 1) * geo[15] + geo[9];
    return Hb * Wp * geo[1] + 64;
}

/* Output rows per band (0: not the band form). */
static int64_t qnhwc_band_rows(const int64_t *geo)
{
    if (qnhwc_depthwise(geo) || qnhwc_direct(geo) || geo[6] != 1 || !qnhwc_plane(geo) ||
        geo[21] != 1 || geo[8] > QNHWC_TAPS ||
        qnhwc_band_bytes(geo, 1) > qnhwc_cap(geo, QNHWC_BAND_BYTES))
        return 0;
    int64_t R = 1;
    while (R < geo[11] && qnhwc_band_bytes(geo, R + 1) <= qnhwc_cap(geo, QNHWC_BAND_BYTES))
        R++;
    return R;
}

/* Quads of the packed weights' k: (kernel row, Qr quads) in the band form, else
 * ceil(taps * Cg / 4) of (tap, input channel). */
static int64_t qnhwc_kq(const int64_t *geo)
{
    if (qnhwc_band_rows(geo))
        return geo[8] * qnhwc_qr(geo);
    return (geo[1] / geo[6] * geo[7] * geo[8] * geo[9] + 3) / 4;
}

/* Where the packed weights (not depthwise) hold the weight of output channel oc, input channel
 * ic of its group, tap k: [G][OCg/16][Kq][16][4], k of (tap, channel) or in the band form (band:
 * qnhwc_band_rows) of (kernel row, quads of the row's KW*C bytes). */
static int64_t qnhwc_widx(const int64_t *geo, int band, int64_t Kq, int64_t oc, int64_t ic,
                          int64_t k)
{
    const int64_t OCg = geo[5] / geo[6], g = oc / OCg, o = oc % OCg;
    const int64_t b = (g * qnhwc_up(OCg, QNHWC_OB) + o) / QNHWC_OB;
    const int64_t kk = band ? k / geo[9] * 4 * qnhwc_qr(geo) + k % geo[9] * geo[1] + ic
                            : k * (geo[1] / geo[6]) + ic;
    return ((b * Kq + kk / 4) * QNHWC_OB + o % QNHWC_OB) * 4 + kk % 4;
}

/* Where the packed depthwise weights hold position c's tap k (of taps): block c / 64, byte
 * c % 64; position c is channel c (in the row form, whose later blocks repeat the channels,
 * position c's channel is c % C). */
static int64_t qnhwc_dw_widx(int64_t taps, int64_t c, int64_t k)
{
    return ((c / 64 * taps + k) * 4 + c % 4) * 64 + c % 64;
}

/* Bytes of qconv_nhwc_s8's packed weights. */
O2C_KERNEL int64_t qconv_nhwc_s8_wbytes(const int64_t *geo)
{
    const int64_t taps = geo[7] * geo[8] * geo[9], G = geo[6];
    if (qnhwc_depthwise(geo))
        return qnhwc_dw_blocks(geo) * taps * 256;
    return G * qnhwc_up(geo[5] / G, QNHWC_OB) * 4 * qnhwc_kq(geo);
}

/* wp = w [OC][Cg][KD][KH][KW] (the model's layout) in qconv_nhwc_s8's: depthwise [taps][Cp],
 * else [G][OCg/16][taps][Cq][16][4]; zero where the layout pads. */
O2C_KERNEL void qconv_nhwc_s8_weights(const int64_t *geo, const int8_t *w, int8_t *wp)
{
    const int64_t taps = geo[7] * geo[8] * geo[9], G = geo[6], Cg = geo[1] / G, OCg = geo[5] / G;
    memset(wp, 0, (size_t)qconv_nhwc_s8_wbytes(geo));
    if (qnhwc_depthwise(geo)) { /* [blocks][taps][4][64]: byte i of row j is 0 unless i % 4 == j */
        const int rows = qnhwc_dw_rows(geo);
        const int64_t C = geo[1], nblk = qnhwc_dw_blocks(geo);
        for (int64_t b = 0; b < nblk; b++)
            for (int64_t k = 0; k < taps; k++)
                for (int64_t i = 0; i < 64; i++) {
                    const int64_t c = rows ? (b * 64 + i) % C : b * 64 + i;
                    if (c < C)
                        wp[qnhwc_dw_widx(taps, b * 64 + i, k)] = w[c * taps + k];
                }
        return;
    }
    const int64_t Kq = qnhwc_kq(geo), oc_n = G * OCg;
    const int band = qnhwc_band_rows(geo) > 0;
    const int64_t twin = qnhwc_pairs(geo) ? 4 * QNHWC_OB / 2 : 0; /* lanes 8-15 repeat 0-7 */
    for (int64_t oc = 0; oc < oc_n; oc++)
        for (int64_t ic = 0; ic < Cg; ic++)
            for (int64_t k = 0; k < taps; k++) {
                const int64_t i = qnhwc_widx(geo, band, Kq, oc, ic, k);
                wp[i] = w[(oc * Cg + ic) * taps + k];
                if (twin)
                    wp[i + twin] = wp[i];
            }
}

/* Scratch bytes: one padding pixel of C bytes, rounded up to whole blocks and quads, then the
 * patch form's patches. */
static int64_t qnhwc_pad_bytes(const int64_t *geo)
{
    return qnhwc_up(geo[1], QNHWC_DWB) + 64;
}

O2C_KERNEL int64_t qconv_nhwc_s8_scratch(const int64_t *geo)
{
    if (qnhwc_dw_rows(geo)) {
        int64_t e[3];
        qnhwc_dw_extents(geo, qnhwc_dw_band(geo), e);
        return qnhwc_dw_row_scratch(geo, e);
    }
    if (qnhwc_band_rows(geo))
        return qnhwc_band_bytes(geo, qnhwc_band_rows(geo));
    return qnhwc_pad_bytes(geo) + QNHWC_T * 4 * qnhwc_kq(geo);
}

#ifndef O2C_SMALL_CODE /* (the generated file's preamble; else the plain loop only) */
/* gcc and clang keep the tile in registers once nob is a constant: the body is inlined into one
 * function per nob; the requantisation inlined where it is called. */
#if defined(__GNUC__)
#define QNHWC_INLINE __attribute__((always_inline)) inline
#else
#define QNHWC_INLINE inline
#endif
#ifdef QNHWC_VNNI
/* The bytes of qnhwc_requant16 of the 16 sums in a (AVX-512F): the same values, 8 doubles at a
 * time. */
static __m128i qnhwc_requant16_q(__m512i a, const double *restrict m, double yz, int y_type,
                                 int small)
{
    const __m512d z = _mm512_set1_pd(yz);
    const __m512d a0 = _mm512_cvtepi32_pd(_mm512_castsi512_si256(a));
    const __m512d a1 = _mm512_cvtepi32_pd(_mm512_extracti64x4_epi64(a, 1));
    __m512d p0, p1;
    if (small) { /* a * m is exact (qconv_s8_fits): one fma rounds a * m + yz as the add does */
        p0 = _mm512_fmadd_pd(a0, _mm512_loadu_pd(m), z);
        p1 = _mm512_fmadd_pd(a1, _mm512_loadu_pd(m + 8), z);
    } else { /* the double clamp of qconv_s8_round (before the rounding: the same, lo and hi
              * being integers) */
        const __m512d lo = _mm512_set1_pd(y_type == 2 ? 0.0 : -128.0);
        const __m512d hi = _mm512_set1_pd(y_type == 2 ? 255.0 : 127.0);
        p0 = _mm512_add_pd(_mm512_mul_pd(a0, _mm512_loadu_pd(m)), z);
        p1 = _mm512_add_pd(_mm512_mul_pd(a1, _mm512_loadu_pd(m + 8)), z);
        p0 = _mm512_min_pd(_mm512_max_pd(p0, lo), hi);
        p1 = _mm512_min_pd(_mm512_max_pd(p1, lo), hi);
    }
    /* the conversion rounds in the current direction, as nearbyint: within int32 (small) */
    const __m512i r = _mm512_inserti64x4(_mm512_castsi256_si512(_mm512_cvtpd_epi32(p0)),
                                         _mm512_cvtpd_epi32(p1), 1);
    /* the clamp to the output's range is the narrowing's saturation (uint8: of values >= 0) */
    if (y_type == 2)
        return _mm512_cvtusepi32_epi8(_mm512_max_epi32(r, _mm512_setzero_si512()));
    return _mm512_cvtsepi32_epi8(r);
}
#endif

#if defined(QNHWC_VNNI) || defined(QNHWC_AVX2)
/* y[0..n) = the first n of the 16 bytes q (n <= 16). */
static void qnhwc_store16(int64_t n, __m128i q, uint8_t *restrict y)
{
    if (n == 16) { /* (a masked store costs more than a whole one) */
        _mm_storeu_si128((__m128i *)(void *)y, q);
        return;
    }
#ifdef __AVX512VL__ /* the n bytes, masked */
    _mm_mask_storeu_epi8((void *)y, (__mmask16)((1u << n) - 1), q);
#else
    uint8_t v[16];
    _mm_storeu_si128((__m128i *)(void *)v, q);
    for (int64_t j = 0; j < n; j++)
        y[j] = v[j];
#endif
}
#endif

#ifdef QNHWC_VNNI
/* qnhwc_requant16 of the 16 sums in a, stored. */
static void qnhwc_requant16_v(int64_t n, __m512i a, const double *restrict m, double yz, int y_type,
                              int small, uint8_t *restrict y)
{
    qnhwc_store16(n, qnhwc_requant16_q(a, m, yz, y_type, small), y);
}
#endif

#ifdef QNHWC_AVX2
/* qnhwc_requant16_q8 where small is QNHWC_REQ_ADD: a * m + (1.5 * 2^52 + yz) in one rounding
 * lies in [2^52, 2^53), whose spacing is 1, so the add is the rounding to an integer (ties to
 * even: the significand's last bit is the integer's) and the low 32 bits of the double are that
 * integer, two's complement: no conversion back from double, which costs AVX2 two instructions
 * per 4 values. The low halves are gathered by a shuffle and narrowed by the packs, which leave
 * the bytes in the order 0 1 4 5 8 9 12 13 2 3 6 7 10 11 14 15; one byte shuffle restores it. */
static __m128i qnhwc_requant16_add(__m256i a0, __m256i a1, const double *restrict m, double yz,
                                   int y_type)
{
    const __m256d c = _mm256_set1_pd(0x1.8p52 + yz);
    const __m128i a[4] = {_mm256_castsi256_si128(a0), _mm256_extracti128_si256(a0, 1),
                          _mm256_castsi256_si128(a1), _mm256_extracti128_si256(a1, 1)};
    __m256 d[4];
    for (int i = 0; i < 4; i++) {
        const __m256d v = _mm256_cvtepi32_pd(a[i]), mi = _mm256_loadu_pd(m + 4 * i);
#ifdef __FMA__ /* a * m is exact (qconv_s8_fits): the fma rounds once, as the add */
        d[i] = _mm256_castpd_ps(_mm256_fmadd_pd(v, mi, c));
#else
        d[i] = _mm256_castpd_ps(_mm256_add_pd(_mm256_mul_pd(v, mi), c));
#endif
    }
    const __m256i lo = _mm256_castps_si256(_mm256_shuffle_ps(d[0], d[1], 0x88));
    const __m256i hi = _mm256_castps_si256(_mm256_shuffle_ps(d[2], d[3], 0x88));
    const __m256i h = _mm256_packs_epi32(lo, hi);
    const __m128i h0 = _mm256_castsi256_si128(h), h1 = _mm256_extracti128_si256(h, 1);
    const __m128i b = y_type == 2 ? _mm_packus_epi16(h0, h1) : _mm_packs_epi16(h0, h1);
    return _mm_shuffle_epi8(b, _mm_setr_epi8(0, 1, 8, 9, 2, 3, 10, 11, 4, 5, 12, 13, 6, 7, 14, 15));
}

/* The bytes of qnhwc_requant16 of the 16 sums in a0, a1 with AVX2: the same values, 4 doubles at
 * a time (a * m is exact, so the product and the add round as qconv_s8_round's; the conversion
 * rounds as nearbyint, in the current direction), narrowed by the saturating packs, which clamp as
 * the int32 and byte ranges do. */
static QNHWC_INLINE __m128i qnhwc_requant16_q8(__m256i a0, __m256i a1, const double *restrict m,
                                               double yz, int y_type, int small)
{
    if (small == QNHWC_REQ_ADD)
        return qnhwc_requant16_add(a0, a1, m, yz, y_type);
    const __m256d z = _mm256_set1_pd(yz);
    const __m256d lo = _mm256_set1_pd(y_type == 2 ? 0.0 : -128.0);
    const __m256d hi = _mm256_set1_pd(y_type == 2 ? 255.0 : 127.0);
    const __m128i a[4] = {_mm256_castsi256_si128(a0), _mm256_extracti128_si256(a0, 1),
                          _mm256_castsi256_si128(a1), _mm256_extracti128_si256(a1, 1)};
    __m128i r[4];
    for (int i = 0; i < 4; i++) {
        const __m256d v = _mm256_cvtepi32_pd(a[i]);
        __m256d p = _mm256_add_pd(_mm256_mul_pd(v, _mm256_loadu_pd(m + 4 * i)), z);
        if (!small) /* the double clamp of qconv_s8_round: p may be past int32 */
            p = _mm256_min_pd(_mm256_max_pd(p, lo), hi);
        r[i] = _mm256_cvtpd_epi32(p);
    }
    const __m128i h0 = _mm_packs_epi32(r[0], r[1]), h1 = _mm_packs_epi32(r[2], r[3]);
    return y_type == 2 ? _mm_packus_epi16(h0, h1) : _mm_packs_epi16(h0, h1);
}
#endif

/* y[0..n) = the requantisation of qconv_s8 (qconv_s8_round) of 16 sums acc of consecutive output
 * channels with multipliers m[16], as bytes (uint8, or int8's two's complement); small: every
 * channel qconv_s8_fits, so the int32 clamp of qconv_s8_round_small gives the same values
 * (QNHWC_REQ_ADD: AVX2 also rounds by an add).
 * Always 16 values, so that the loop is whole vectors; n <= 16 are stored. */
static QNHWC_INLINE void qnhwc_requant16(int64_t n, const int32_t *restrict acc,
                                         const double *restrict m, double yz, int y_type, int small,
                                         uint8_t *restrict y)
{
#ifdef QNHWC_VNNI
    qnhwc_requant16_v(n, _mm512_loadu_si512((const void *)acc), m, yz, y_type, small, y);
#elif defined(QNHWC_AVX2)
    const __m256i *a = (const __m256i *)(const void *)acc;
    qnhwc_store16(
        n,
        qnhwc_requant16_q8(_mm256_loadu_si256(a), _mm256_loadu_si256(a + 1), m, yz, y_type, small),
        y);
#else
    uint8_t v[16];
    if (small) {
        const int32_t lo = y_type == 2 ? 0 : -128, hi = y_type == 2 ? 255 : 127;
        for (int j = 0; j < 16; j++)
            v[j] = (uint8_t)qconv_s8_round_small(acc[j], m[j], yz, lo, hi);
    } else {
        const double lo = y_type == 2 ? 0.0 : -128.0, hi = y_type == 2 ? 255.0 : 127.0;
        for (int j = 0; j < 16; j++)
            v[j] = (uint8_t)qconv_s8_round(acc[j], m[j], yz, lo, hi);
    }
    for (int64_t j = 0; j < n; j++) /* (a loop: n is small and often 16) */
        y[j] = v[j];
#endif
}

/* mb[0..n) = mult[0..n), then zeros up to a multiple of 16 (whole vectors of qnhwc_requant16). */
static void qnhwc_mult_block(int64_t n, const double *mult, double *mb)
{
    for (int64_t j = 0; j < qnhwc_up(n, 16); j++)
        mb[j] = j < n ? mult[j] : 0.0;
}

/* The input pixel (id, ih, iw) of an image xn [D][H][W][C], or the padding pixel. */
static const uint8_t *qnhwc_pixel(const int64_t *geo, const uint8_t *xn, const uint8_t *pad,
                                  int64_t id, int64_t ih, int64_t iw)
{
    if (id < 0 || id >= geo[2] || ih < 0 || ih >= geo[3] || iw < 0 || iw >= geo[4])
        return pad;
    return xn + ((id * geo[3] + ih) * geo[4] + iw) * geo[1];
}

/* Where tap k reads, in bytes from its window's first pixel: off[k] = ((kd*dd*H + kh*dh)*W +
 * kw*dw)*C; and span[j] = the window's extent - 1 along depth, rows, columns. Once per call. */
static void qnhwc_taps(const int64_t *geo, int64_t *off, int64_t *span)
{
    const int64_t H = geo[3], W = geo[4], C = geo[1];
    int64_t k = 0;
    for (int64_t kd = 0; kd < geo[7]; kd++)
        for (int64_t kh = 0; kh < geo[8]; kh++)
            for (int64_t kw = 0; kw < geo[9]; kw++, k++)
                off[k] = ((kd * geo[19] * H + kh * geo[20]) * W + kw * geo[21]) * C;
    for (int j = 0; j < 3; j++)
        span[j] = (geo[7 + j] - 1) * geo[19 + j];
}

/* sums[0..n) += the depthwise sums of one block of 64 bytes: over taps k, the bytes
 * src[k][at .. at+n) offset to uint8 (flip) times their channels' weights wb [taps][4][64] (n <=
 * 64; fewer are read masked). With AVX512-VNNI one vpdpbusd per row j of a tap's weights sums the
 * bytes i = j mod 4 of each 32-bit lane (the others weigh 0), so lane l of sum j is byte
 * 4l + j, put back in order once per block; else the plain loop over the bytes. */
#ifdef QNHWC_VNNI
/* s[j] = the sums of the block's bytes 4l + j in lane l (qnhwc_dw_block's, in vpdpbusd's order). */
static void qnhwc_dw_lanes_v(int64_t taps, const uint8_t *const *src, int64_t at, int64_t n,
                             uint8_t flip, const int8_t *wb, __m512i *s)
{
    const __m512i f = _mm512_set1_epi8((char)flip);
    const __mmask64 mask = n >= 64 ? ~(__mmask64)0 : ((__mmask64)1 << n) - 1;
    __m512i s0 = _mm512_setzero_si512(), s1 = s0, s2 = s0, s3 = s0;
    for (int64_t k = 0; k < taps; k++) {
        const __m512i x = _mm512_xor_si512(_mm512_maskz_loadu_epi8(mask, src[k] + at), f);
        const int8_t *wk = wb + k * 256;
        s0 = _mm512_dpbusd_epi32(s0, x, _mm512_loadu_si512((const void *)wk));
        s1 = _mm512_dpbusd_epi32(s1, x, _mm512_loadu_si512((const void *)(wk + 64)));
        s2 = _mm512_dpbusd_epi32(s2, x, _mm512_loadu_si512((const void *)(wk + 128)));
        s3 = _mm512_dpbusd_epi32(s3, x, _mm512_loadu_si512((const void *)(wk + 192)));
    }
    s[0] = s0, s[1] = s1, s[2] = s2, s[3] = s3;
}

/* v[q] = the sums of bytes 16q .. 16q + 15 of the block (qnhwc_dw_block without the add). */
static void qnhwc_dw_sums_v(int64_t taps, const uint8_t *const *src, int64_t at, int64_t n,
                            uint8_t flip, const int8_t *wb, __m512i *v)
{
    __m512i s[4];
    qnhwc_dw_lanes_v(taps, src, at, n, flip, wb, s);
    const __m512i s0 = s[0], s1 = s[1], s2 = s[2], s3 = s[3];
    /* r_m's 128-bit lane q: bytes 16q + 4m .. 16q + 4m + 3; then v_q: bytes 16q .. 16q + 15 */
    const __m512i t0 = _mm512_unpacklo_epi32(s0, s1), t1 = _mm512_unpackhi_epi32(s0, s1);
    const __m512i t2 = _mm512_unpacklo_epi32(s2, s3), t3 = _mm512_unpackhi_epi32(s2, s3);
    const __m512i r0 = _mm512_unpacklo_epi64(t0, t2), r1 = _mm512_unpackhi_epi64(t0, t2);
    const __m512i r2 = _mm512_unpacklo_epi64(t1, t3), r3 = _mm512_unpackhi_epi64(t1, t3);
    const __m512i u0 = _mm512_shuffle_i32x4(r0, r1, 0x44), u1 = _mm512_shuffle_i32x4(r2, r3, 0x44);
    const __m512i u2 = _mm512_shuffle_i32x4(r0, r1, 0xEE), u3 = _mm512_shuffle_i32x4(r2, r3, 0xEE);
    v[0] = _mm512_shuffle_i32x4(u0, u1, 0x88), v[1] = _mm512_shuffle_i32x4(u0, u1, 0xDD);
    v[2] = _mm512_shuffle_i32x4(u2, u3, 0x88), v[3] = _mm512_shuffle_i32x4(u2, u3, 0xDD);
}
#endif

static void qnhwc_dw_block(int64_t taps, const uint8_t *const *src, int64_t at, int64_t n,
                           uint8_t flip, const int8_t *wb, int32_t *restrict sums)
{
#ifdef QNHWC_VNNI
    __m512i v[4];
    qnhwc_dw_sums_v(taps, src, at, n, flip, wb, v);
    for (int q = 0; q < 4; q++) {
        int32_t *r = sums + 16 * q;
        _mm512_storeu_si512((void *)r, _mm512_add_epi32(_mm512_loadu_si512((const void *)r), v[q]));
    }
#else
    for (int64_t k = 0; k < taps; k++) {
        const uint8_t *restrict x = src[k] + at;
        const int8_t *restrict wk = wb + k * 256;
        for (int64_t i = 0; i < n; i++)
            sums[i] += (int32_t)(uint8_t)(x[i] ^ flip) *
                       (wk[i] + wk[64 + i] + wk[128 + i] + wk[192 + i]); /* three are 0 */
    }
#endif
}

/* Depthwise by pixels, one image: y [P][C] from xn [D][H][W][C], w [C/64][taps][4][64]; taps
 * in groups of QNHWC_TAPS. */
static void qnhwc_depthwise_image(const int64_t *geo, const uint8_t *xn, const uint8_t *pad,
                                  uint8_t flip, const int8_t *w, const int32_t *bias_adj,
                                  const double *mult, int y_type, double yz, int small, uint8_t *y)
{
    const int64_t C = geo[1], KD = geo[7], KH = geo[8], KW = geo[9], taps = KD * KH * KW;
    const int64_t D = geo[2], H = geo[3], W = geo[4], OH = geo[11], OW = geo[12];
    const int64_t P = geo[10] * OH * OW;
    int32_t acc[64];
    double mb[64];
    int64_t off[QNHWC_TAPS], span[3] = {D, H, W}; /* (no window is inside: more taps) */
    const uint8_t *px[QNHWC_TAPS];
    if (taps <= QNHWC_TAPS)
        qnhwc_taps(geo, off, span);
    for (int64_t p = 0, od = 0, oh = 0, ow = 0; p < P; p++) {
        const int64_t org[3] = {od * geo[13] - geo[16], oh * geo[14] - geo[17],
                                ow * geo[15] - geo[18]};
        const int inside = org[0] >= 0 && org[0] + span[0] < D && org[1] >= 0 &&
                           org[1] + span[1] < H && org[2] >= 0 && org[2] + span[2] < W;
        for (int64_t c0 = 0; c0 < C; c0 += 64) {
            const int64_t cb = C - c0 < 64 ? C - c0 : 64;
            for (int64_t c = 0; c < 64; c++)
                acc[c] = c < cb ? bias_adj[c0 + c] : 0;
            for (int64_t k0 = 0; k0 < taps; k0 += QNHWC_TAPS) {
                const int64_t nk = taps - k0 < QNHWC_TAPS ? taps - k0 : QNHWC_TAPS;
                const uint8_t *base = inside ? xn + ((org[0] * H + org[1]) * W + org[2]) * C : xn;
                for (int64_t k = 0, kk = k0; inside && k < nk; k++, kk++)
                    px[k] = base + off[kk];
                for (int64_t k = 0, kk = k0; !inside && k < nk; k++, kk++) {
                    const int64_t kw = kk % KW, kh = kk / KW % KH, kd = kk / KW / KH;
                    px[k] = qnhwc_pixel(geo, xn, pad, org[0] + kd * geo[19], org[1] + kh * geo[20],
                                        org[2] + kw * geo[21]);
                }
                qnhwc_dw_block(nk, px, c0, cb, flip, w + (c0 / 64 * taps + k0) * 256, acc);
            }
            const double *m = mult + c0;
            if (cb % 16) { /* whole vectors of multipliers */
                qnhwc_mult_block(cb, mult + c0, mb);
                m = mb;
            }
            for (int64_t j = 0; j < cb; j += 16)
                qnhwc_requant16(cb - j < 16 ? cb - j : 16, acc + j, m + j, yz, y_type, small,
                                y + p * C + c0 + j);
        }
        if (++ow == OW && (ow = 0, ++oh == OH))
            oh = 0, od++;
    }
}

#ifdef QNHWC_AVX2
/* AVX2 without VNNI: vpmaddubsw (u8 x s8, what onnxruntime uses there) saturates its 16-bit pair
 * sums, so both operands are widened to int16 and vpmaddwd adds exact pairs into int32. A tile
 * runs by groups of 8 output channels (half a block) and runs of 4 pixels: 8 accumulators of 8
 * lanes, in vpmaddwd's order (lane 2j + i: channel j of 4, k = 2i, 2i + 1 of each quad), added
 * pairwise at the end. The activations are widened once per tile, in chunks of QNHWC_WQ quads;
 * the weights (16 bytes: 4 channels x 4 k) as they are loaded. */

/* d[0..4m) = the bytes x[0..4m) offset to uint8 (f: flip in every byte) and widened: 16 bytes a
 * step (four quads; a pixel's run of quads in a source is mostly 4 to 16 of them), then 8, 4. */
static void qnhwc_widen_run(int64_t m, const uint8_t *x, __m128i f, int16_t *d)
{
    int64_t j = 0;
    for (; j + 4 <= m; j += 4) {
        const __m128i v =
            _mm_xor_si128(_mm_loadu_si128((const __m128i *)(const void *)(x + 4 * j)), f);
        _mm_storeu_si128((__m128i *)(void *)(d + 4 * j), _mm_cvtepu8_epi16(v));
        _mm_storeu_si128((__m128i *)(void *)(d + 4 * j + 8),
                         _mm_unpackhi_epi8(v, _mm_setzero_si128()));
    }
    if (j + 2 <= m) {
        const __m128i v = _mm_loadl_epi64((const __m128i *)(const void *)(x + 4 * j));
        _mm_storeu_si128((__m128i *)(void *)(d + 4 * j), _mm_cvtepu8_epi16(_mm_xor_si128(v, f)));
        j += 2;
    }
    if (j < m) {
        int32_t v;
        memcpy(&v, x + 4 * j, 4);
        _mm_storel_epi64((__m128i *)(void *)(d + 4 * j),
                         _mm_cvtepu8_epi16(_mm_xor_si128(_mm_cvtsi32_si128(v), f)));
    }
}

/* xw[t][4i + k] = byte k of quad u0 + i (quad q of source s: u = s * qper + q) of pixel t,
 * offset to uint8 (flip) and widened, i < n. */
static void qnhwc_widen(int64_t qper, const uint8_t *const (*src)[QNHWC_T], uint8_t flip,
                        int64_t u0, int64_t n, int16_t (*xw)[4 * QNHWC_WQ])
{
    const __m128i f = _mm_set1_epi8((char)flip);
    for (int64_t i = 0, s = u0 / qper, q = u0 % qper; i < n; s++, q = 0) {
        const int64_t m = qper - q < n - i ? qper - q : n - i;
        for (int t = 0; t < QNHWC_T; t++)
            qnhwc_widen_run(m, src[s][t] + 4 * q, f, xw[t] + 4 * i);
        i += m;
    }
}

static __m256i qnhwc_quad16(const int16_t *x)
{
    int64_t v;
    memcpy(&v, x, 8);
    return _mm256_set1_epi64x(v);
}

/* c[2r], c[2r + 1] (channels 0-3, 4-7) += pixel r's products of n quads (x [4][4 QNHWC_WQ], the
 * tile's widened activations from its run's first pixel) with one group's weights w (8 channels
 * x 4 bytes, each quad 64 bytes on). Inlined, so that a caller's local c stays in registers. */
static QNHWC_INLINE void qnhwc_quads4_avx2(int64_t n, const int16_t *x, const int8_t *w, __m256i *c)
{
    /* pointers stepped and constant offsets: with an index i < n, n known to be >= 1, gcc 12
     * hoisted the broadcasts and spilled */
    enum { X = 4 * QNHWC_WQ };
    __m256i c0 = c[0], c1 = c[1], c2 = c[2], c3 = c[3], c4 = c[4], c5 = c[5], c6 = c[6], c7 = c[7];
    for (const int8_t *end = w + n * 4 * QNHWC_OB; w < end; w += 4 * QNHWC_OB, x += 4) {
        const __m256i w0 = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(const void *)w));
        const __m256i w1 =
            _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(const void *)(w + 16)));
        __m256i a = qnhwc_quad16(x);
        c0 = _mm256_add_epi32(_mm256_madd_epi16(a, w0), c0);
        c1 = _mm256_add_epi32(_mm256_madd_epi16(a, w1), c1);
        a = qnhwc_quad16(x + X);
        c2 = _mm256_add_epi32(_mm256_madd_epi16(a, w0), c2);
        c3 = _mm256_add_epi32(_mm256_madd_epi16(a, w1), c3);
        a = qnhwc_quad16(x + 2 * X);
        c4 = _mm256_add_epi32(_mm256_madd_epi16(a, w0), c4);
        c5 = _mm256_add_epi32(_mm256_madd_epi16(a, w1), c5);
        a = qnhwc_quad16(x + 3 * X);
        c6 = _mm256_add_epi32(_mm256_madd_epi16(a, w0), c6);
        c7 = _mm256_add_epi32(_mm256_madd_epi16(a, w1), c7);
    }
    c[0] = c0, c[1] = c1, c[2] = c2, c[3] = c3, c[4] = c4, c[5] = c5, c[6] = c6, c[7] = c7;
}

/* r[0..8) = b + the sums of one pixel's 8 channels from its two vectors of pair sums c0, c1
 * (lanes 0 1 4 5 | 2 3 6 7 after the hadd, then in order). */
static QNHWC_INLINE void qnhwc_store8_avx2(__m256i c0, __m256i c1, __m256i b, int32_t *r)
{
    const __m256i h = _mm256_hadd_epi32(c0, c1);
    _mm256_storeu_si256((__m256i *)(void *)r,
                        _mm256_add_epi32(_mm256_permute4x64_epi64(h, 0xD8), b));
}

/* out + r*ps (8 int32) = bias + pixel r's sums of n quads (qnhwc_quads4_avx2's x and w) for the
 * 4 pixels of a run, where the tile's quads are widened in one chunk (up to QNHWC_WQ, every
 * layer of the benchmark's models): the sums start and end in registers, where through
 * qnhwc_core_avx2's c[] each run zeroed, loaded and stored them (the non-depthwise layers of
 * benchmarks/qconv_layers.c in 0.92x the time). */
static void qnhwc_run4_once_avx2(int64_t n, const int16_t *x, const int8_t *w, const int32_t *bias,
                                 int32_t *out, int64_t ps)
{
    __m256i c[8];
    for (int j = 0; j < 8; j++)
        c[j] = _mm256_setzero_si256();
    qnhwc_quads4_avx2(n, x, w, c);
    const __m256i b = _mm256_loadu_si256((const __m256i *)(const void *)bias);
    for (int r = 0; r < 4; r++)
        qnhwc_store8_avx2(c[2 * r], c[2 * r + 1], b, out + r * ps);
}

/* Where qnhwc_core_avx2 stores pixel 0 of group g (see below). */
static int32_t *qnhwc_group_out(int32_t *acc, int pairs, int g)
{
    return pairs ? acc : acc + g / 2 * QNHWC_T * QNHWC_OB + g % 2 * 8;
}

/* qnhwc_core's sums for ngrp groups of 8 output channels (group g: block g / 2's half g % 2,
 * bias + 8g) of QNHWC_T pixels; pixel t of group g goes to acc + (g / 2 * QNHWC_T + t) * 16 +
 * g % 2 * 8, or with pairs (one group, qnhwc_core_pairs) to acc + 8t. xw: the widened
 * activations; widened: xw holds them already (a tile's later pass, all quads in one chunk). */
static void qnhwc_core_avx2(int ngrp, int64_t nsrc, int64_t qper,
                            const uint8_t *const (*src)[QNHWC_T], uint32_t flip4, const int8_t *wb,
                            int64_t bs, const int32_t *bias, int32_t *restrict acc, int pairs,
                            int16_t (*xw)[4 * QNHWC_WQ], int widened)
{
    const int64_t nq = nsrc * qper;
    const int64_t ps = pairs ? 8 : QNHWC_OB; /* pixel t of group g: qnhwc_group_out + t * ps */
    if (nq <= QNHWC_WQ) {                    /* one chunk */
        if (!widened)
            qnhwc_widen(qper, src, (uint8_t)flip4, 0, nq, xw);
        for (int g = 0; g < ngrp; g++)
            for (int t0 = 0; t0 < QNHWC_T; t0 += 4)
                qnhwc_run4_once_avx2(nq, xw[t0], wb + g / 2 * bs + g % 2 * 32, bias + 8 * g,
                                     qnhwc_group_out(acc, pairs, g) + t0 * ps, ps);
        return;
    }
    __m256i c[2 * QNHWC_NOB][2 * QNHWC_T];
    for (int g = 0; g < ngrp; g++)
        for (int t = 0; t < 2 * QNHWC_T; t++)
            c[g][t] = _mm256_setzero_si256();
    for (int64_t u0 = 0; u0 < nq; u0 += QNHWC_WQ) { /* chunks: each widened in turn */
        const int64_t n = nq - u0 < QNHWC_WQ ? nq - u0 : QNHWC_WQ;
        qnhwc_widen(qper, src, (uint8_t)flip4, u0, n, xw);
        for (int g = 0; g < ngrp; g++) {
            const int8_t *w = wb + g / 2 * bs + g % 2 * 32 + u0 * 4 * QNHWC_OB;
            for (int t0 = 0; t0 < QNHWC_T; t0 += 4)
                qnhwc_quads4_avx2(n, xw[t0], w, c[g] + 2 * t0);
        }
    }
    for (int g = 0; g < ngrp; g++) {
        const __m256i b = _mm256_loadu_si256((const __m256i *)(const void *)(bias + 8 * g));
        for (int t = 0; t < QNHWC_T; t++)
            qnhwc_store8_avx2(c[g][2 * t], c[g][2 * t + 1], b,
                              qnhwc_group_out(acc, pairs, g) + t * ps);
    }
}
#endif

/* acc [nob][QNHWC_T][16] = bias + the sums over nsrc sources of qper quads each: source s of
 * pixel t starts at src[s][t], its quad q is the lane at byte 4q (offset to uint8 by flip4);
 * wb the first block's weights [Kq][16][4], blocks bs bytes apart (AVX2: qnhwc_core_n calls
 * qnhwc_core_avx2). */
static QNHWC_INLINE void qnhwc_core(int nob, int64_t nsrc, int64_t qper,
                                    const uint8_t *const (*src)[QNHWC_T], uint32_t flip4,
                                    const int8_t *wb, int64_t bs, const int32_t *bias,
                                    int32_t *restrict acc)
{
#if defined(QNHWC_VNNI)
    const int8_t *w = wb;
    __m512i c[QNHWC_NOB][QNHWC_T];
    const __m512i f = _mm512_set1_epi32((int)flip4);
    for (int b = 0; b < nob; b++) {
        const __m512i v = _mm512_loadu_si512((const void *)(bias + b * QNHWC_OB));
        for (int t = 0; t < QNHWC_T; t++)
            c[b][t] = v;
    }
    for (int64_t s = 0; s < nsrc; s++)
        for (int64_t q = 0; q < qper; q++, w += 4 * QNHWC_OB) {
            __m512i wv[QNHWC_NOB];
            for (int b = 0; b < nob; b++)
                wv[b] = _mm512_loadu_si512((const void *)(w + b * bs));
            for (int t = 0; t < QNHWC_T; t++) {
                int32_t v;
                memcpy(&v, src[s][t] + 4 * q, 4);
                const __m512i a = _mm512_xor_si512(_mm512_set1_epi32(v), f);
                for (int b = 0; b < nob; b++)
                    c[b][t] = _mm512_dpbusd_epi32(c[b][t], a, wv[b]);
            }
        }
    for (int b = 0; b < nob; b++)
        for (int t = 0; t < QNHWC_T; t++)
            _mm512_storeu_si512((void *)(acc + (b * QNHWC_T + t) * QNHWC_OB), c[b][t]);
#else
    const int8_t *w = wb;
    for (int b = 0; b < nob; b++)
        for (int t = 0; t < QNHWC_T; t++)
            for (int j = 0; j < QNHWC_OB; j++)
                acc[(b * QNHWC_T + t) * QNHWC_OB + j] = bias[b * QNHWC_OB + j];
    for (int64_t s = 0; s < nsrc; s++)
        for (int64_t q = 0; q < qper; q++, w += 4 * QNHWC_OB)
            for (int t = 0; t < QNHWC_T; t++) {
                uint32_t v;
                memcpy(&v, src[s][t] + 4 * q, 4);
                v ^= flip4;
                const int32_t a0 = (uint8_t)v, a1 = (uint8_t)(v >> 8);
                const int32_t a2 = (uint8_t)(v >> 16), a3 = (uint8_t)(v >> 24);
                for (int b = 0; b < nob; b++) {
                    const int8_t *wq = w + b * bs;
                    int32_t *r = acc + (b * QNHWC_T + t) * QNHWC_OB;
                    for (int j = 0; j < QNHWC_OB; j++)
                        r[j] += a0 * wq[4 * j] + a1 * wq[4 * j + 1] + a2 * wq[4 * j + 2] +
                                a3 * wq[4 * j + 3];
                }
            }
#endif
}

/* qnhwc_core for nob blocks; with AVX2 its loop over 2 * nob groups of qnhwc_core_avx2, to
 * which xw and widened go (the others: NULL and 0). */
static void qnhwc_core_n(int nob, int64_t nsrc, int64_t qper, const uint8_t *const (*src)[QNHWC_T],
                         uint32_t flip4, const int8_t *wb, int64_t bs, const int32_t *bias,
                         int32_t *restrict acc, int16_t (*xw)[4 * QNHWC_WQ], int widened)
{
#ifdef QNHWC_AVX2
    qnhwc_core_avx2(2 * nob, nsrc, qper, src, flip4, wb, bs, bias, acc, 0, xw, widened);
    return;
#endif
    (void)xw, (void)widened;
    if (nob == 1)
        qnhwc_core(1, nsrc, qper, src, flip4, wb, bs, bias, acc);
    else if (nob == 2)
        qnhwc_core(2, nsrc, qper, src, flip4, wb, bs, bias, acc);
    else
        qnhwc_core(QNHWC_NOB, nsrc, qper, src, flip4, wb, bs, bias, acc);
}

/* acc [QNHWC_T / 2][16] = bias (8 channels, twice) + the sums of qnhwc_core for one block of 8
 * output channels (qnhwc_pairs), vector p holding pixels 2p (lanes 0-7) and 2p + 1 (8-15). */
static void qnhwc_core_pairs(int64_t nsrc, int64_t qper, const uint8_t *const (*src)[QNHWC_T],
                             uint32_t flip4, const int8_t *wb, const int32_t *bias,
                             int32_t *restrict acc)
{
#if defined(QNHWC_AVX2)
    int16_t xw[QNHWC_T][4 * QNHWC_WQ];
    qnhwc_core_avx2(1, nsrc, qper, src, flip4, wb, 0, bias, acc, 1, xw, 0);
#elif defined(QNHWC_VNNI)
    const int8_t *w = wb;
    __m512i c[QNHWC_T / 2];
    const __m512i f = _mm512_set1_epi32((int)flip4);
    for (int p = 0; p < QNHWC_T / 2; p++)
        c[p] = _mm512_loadu_si512((const void *)bias);
    for (int64_t s = 0; s < nsrc; s++)
        for (int64_t q = 0; q < qper; q++, w += 4 * QNHWC_OB) {
            const __m512i wv = _mm512_loadu_si512((const void *)w);
            for (int p = 0; p < QNHWC_T / 2; p++) {
                int32_t v0, v1;
                memcpy(&v0, src[s][2 * p] + 4 * q, 4);
                memcpy(&v1, src[s][2 * p + 1] + 4 * q, 4);
                const __m512i a = _mm512_mask_set1_epi32(_mm512_set1_epi32(v0), 0xFF00, v1);
                c[p] = _mm512_dpbusd_epi32(c[p], _mm512_xor_si512(a, f), wv);
            }
        }
    for (int p = 0; p < QNHWC_T / 2; p++)
        _mm512_storeu_si512((void *)(acc + p * QNHWC_OB), c[p]);
#else
    const int8_t *w = wb;
    for (int p = 0; p < QNHWC_T / 2; p++)
        for (int j = 0; j < QNHWC_OB; j++)
            acc[p * QNHWC_OB + j] = bias[j];
    for (int64_t s = 0; s < nsrc; s++)
        for (int64_t q = 0; q < qper; q++, w += 4 * QNHWC_OB)
            for (int p = 0; p < QNHWC_T / 2; p++)
                for (int j = 0; j < QNHWC_OB; j++) { /* lane j: pixel 2p + j / 8 */
                    const uint8_t *x = src[s][2 * p + j / (QNHWC_OB / 2)] + 4 * q;
                    const uint8_t f = (uint8_t)flip4;
                    acc[p * QNHWC_OB + j] +=
                        (uint8_t)(x[0] ^ f) * w[4 * j] + (uint8_t)(x[1] ^ f) * w[4 * j + 1] +
                        (uint8_t)(x[2] ^ f) * w[4 * j + 2] + (uint8_t)(x[3] ^ f) * w[4 * j + 3];
                }
#endif
}

/* The block position (byte of 64) whose sum lane l of vector j holds, i = 16j + l (of the row's
 * i / 64-th block): 4l + j with AVX512-VNNI (qnhwc_dw_lanes_v), else i (the AVX2 tap pairs and
 * the plain loop keep the positions in order). */
static int64_t qnhwc_dw_pos(int64_t i)
{
#if defined(QNHWC_VNNI)
    return i / 64 * 64 + i % 16 * 4 + i % 64 / 16;
#else
    return i;
#endif
}

#ifdef QNHWC_AVX2
/* AVX2's depthwise sums (row and pixel forms, up to QNHWC_TAPS taps) take two taps per vpmaddwd:
 * the bytes of taps 2p and 2p + 1 at one block position, interleaved and widened to an int16
 * pair, times the pair of their weights, is one exact int32 (|x w| <= 255 * 128). That is 4
 * multiplies per 64 products where vpmaddubsw of one VNNI weight row (one product per 16-bit lane,
 * three of four weights 0) and vpmaddwd with ones took 16. The bytes are interleaved 32 at a time
 * and widened by interleaving with zeros, all within 128-bit lanes (a lane-crossing widening per
 * 16 bytes made the shuffles the bound), so sum vector j = 4h + r holds the positions 32h + 4r +
 * 0..3 in its lanes 0-3 and 32h + 16 + 4r + 0..3 in lanes 4-7 (qnhwc_dw_slot): the weights, bias
 * and multipliers are laid out in that slot order once per block, and the bytes put back in
 * position order after the requantisation (qnhwc_dw_bytes_avx2). More taps run the plain loop of
 * qnhwc_dw_block. */

/* The block position (0-63) whose sum slot i (vector i / 8, lane i % 8) holds. */
static int64_t qnhwc_dw_slot(int64_t i)
{
    const int64_t j = i / 8, l = i % 8;
    return j / 4 * 32 + j % 4 * 4 + l % 4 + l / 4 * 16;
}

/* wq[p][i] = the int16 weights of taps 2p, 2p + 1 (0 past the last tap) at the position of slot
 * i, from one block of the packed [taps][4][64] (its row i % 4 holds byte i; the others are 0):
 * the two taps' bytes interleaved and sign-extended as the activations are (pairsums below). */
static void qnhwc_dw_wpairs_avx2(int64_t taps, const int8_t *wb, int16_t (*wq)[64][2])
{
    const __m256i z = _mm256_setzero_si256();
    for (int64_t p = 0; 2 * p < taps; p++)
        for (int h = 0; h < 2; h++) {
            __m256i r[2];
            for (int t = 0; t < 2; t++) {
                const int8_t *wk = wb + (2 * p + t) * 256 + 32 * h;
                r[t] = z;
                for (int j = 0; 2 * p + t < taps && j < 4; j++)
                    r[t] = _mm256_or_si256(
                        r[t], _mm256_loadu_si256((const __m256i *)(const void *)(wk + 64 * j)));
            }
            const __m256i lo = _mm256_unpacklo_epi8(r[0], r[1]);
            const __m256i hi = _mm256_unpackhi_epi8(r[0], r[1]);
            const __m256i sl = _mm256_cmpgt_epi8(z, lo), sh = _mm256_cmpgt_epi8(z, hi);
            __m256i *d = (__m256i *)(void *)wq[p][32 * h];
            _mm256_storeu_si256(d, _mm256_unpacklo_epi8(lo, sl));
            _mm256_storeu_si256(d + 1, _mm256_unpackhi_epi8(lo, sl));
            _mm256_storeu_si256(d + 2, _mm256_unpacklo_epi8(hi, sh));
            _mm256_storeu_si256(d + 3, _mm256_unpackhi_epi8(hi, sh));
        }
}

/* bs, ms = the 64 bias and multipliers b, m of a block in slot order: runs of 4 positions. */
static void qnhwc_dw_slots(const int32_t *b, const double *m, int32_t *bs, double *ms)
{
    for (int64_t i = 0; i < 64; i += 4) {
        memcpy(bs + i, b + qnhwc_dw_slot(i), 4 * sizeof *b);
        memcpy(ms + i, m + qnhwc_dw_slot(i), 4 * sizeof *m);
    }
}

/* s[j] += the sums of slot vector j (see above) over np tap pairs: the bytes src[2p][at ..],
 * src[2p + 1][at ..] (64 of each, read whole) offset to uint8 (flip) times wq[p]. Inlined, so
 * that the row form's flip 0 (its copy is offset) costs nothing. */
static QNHWC_INLINE void qnhwc_dw_pairsums_avx2(int64_t np, const uint8_t *const *src, int64_t at,
                                                uint8_t flip, const int16_t (*wq)[64][2],
                                                __m256i *s)
{
    const __m256i f = _mm256_set1_epi8((char)flip), z = _mm256_setzero_si256();
    __m256i c0 = s[0], c1 = s[1], c2 = s[2], c3 = s[3], c4 = s[4], c5 = s[5], c6 = s[6];
    __m256i c7 = s[7];
    for (int64_t p = 0; p < np; p++) {
        const uint8_t *a = src[2 * p] + at, *b = src[2 * p + 1] + at;
        const __m256i *w = (const __m256i *)(const void *)wq[p];
#define QNHWC_DW_HALF(h, s0, s1, s2, s3)                                                           \
    {                                                                                              \
        __m256i xa = _mm256_loadu_si256((const __m256i *)(const void *)(a + 32 * h));              \
        __m256i xb = _mm256_loadu_si256((const __m256i *)(const void *)(b + 32 * h));              \
        if (flip)                                                                                  \
            xa = _mm256_xor_si256(xa, f), xb = _mm256_xor_si256(xb, f);                            \
        const __m256i lo = _mm256_unpacklo_epi8(xa, xb), hi = _mm256_unpackhi_epi8(xa, xb);        \
        s0 = _mm256_add_epi32(                                                                     \
            _mm256_madd_epi16(_mm256_unpacklo_epi8(lo, z), _mm256_loadu_si256(w + 4 * h)), s0);    \
        s1 = _mm256_add_epi32(                                                                     \
            _mm256_madd_epi16(_mm256_unpackhi_epi8(lo, z), _mm256_loadu_si256(w + 4 * h + 1)),     \
            s1);                                                                                   \
        s2 = _mm256_add_epi32(                                                                     \
            _mm256_madd_epi16(_mm256_unpacklo_epi8(hi, z), _mm256_loadu_si256(w + 4 * h + 2)),     \
            s2);                                                                                   \
        s3 = _mm256_add_epi32(                                                                     \
            _mm256_madd_epi16(_mm256_unpackhi_epi8(hi, z), _mm256_loadu_si256(w + 4 * h + 3)),     \
            s3);                                                                                   \
    }
        QNHWC_DW_HALF(0, c0, c1, c2, c3)
        QNHWC_DW_HALF(1, c4, c5, c6, c7)
#undef QNHWC_DW_HALF
    }
    s[0] = c0, s[1] = c1, s[2] = c2, s[3] = c3, s[4] = c4, s[5] = c5, s[6] = c6, s[7] = c7;
}

/* y[0..n) = the first n (<= 64) bytes of a block from its slot-ordered sums s (bias included),
 * requantised with the slot-ordered multipliers m: per half of 32 positions, the two
 * requantisations' 16 bytes hold positions (0-3, 16-19, 4-7, 20-23) and (8-11, 24-27, 12-15,
 * 28-31), 4-byte groups that two shuffles put in order. */
static void qnhwc_dw_bytes_avx2(int64_t n, const __m256i *s, const double *m, double yz, int y_type,
                                int small, uint8_t *restrict y)
{
    for (int h = 0; h < 2 && 32 * h < n; h++) {
        const __m128 r0 = _mm_castsi128_ps(
            qnhwc_requant16_q8(s[4 * h], s[4 * h + 1], m + 32 * h, yz, y_type, small));
        const __m128 r1 = _mm_castsi128_ps(
            qnhwc_requant16_q8(s[4 * h + 2], s[4 * h + 3], m + 32 * h + 16, yz, y_type, small));
        const int64_t left = n - 32 * h;
        qnhwc_store16(left < 16 ? left : 16, _mm_castps_si128(_mm_shuffle_ps(r0, r1, 0x88)),
                      y + 32 * h);
        if (left > 16)
            qnhwc_store16(left < 32 ? left - 16 : 16,
                          _mm_castps_si128(_mm_shuffle_ps(r0, r1, 0xDD)), y + 32 * h + 16);
    }
}

/* The row form's loops (qnhwc_dw_rows_image) over the output rows oh0 .. oh1 - 1 of a band with
 * the tap pairs: block by block of the weights' period Lw, so that each block's pairs, bias and
 * multipliers are laid out once; off the taps' offsets in the band's first output row (off[taps]
 * = off[0]: the odd tap's partner, weight 0), rstep bytes on per row. */
static void qnhwc_dw_rows_avx2(const int64_t *geo, const uint8_t *xp, int64_t rstep,
                               const int64_t *off, const int8_t *w, const int32_t *brow,
                               const double *mrow, int y_type, double yz, int small, uint8_t *y,
                               int64_t oh0, int64_t oh1)
{
    const int64_t taps = geo[8] * geo[9], np = (taps + 1) / 2;
    const int64_t Lw = qnhwc_lw(geo[1]), n = geo[12] * geo[1];
    int16_t wq[QNHWC_TAPS / 2][64][2];
    int32_t bs[64];
    double ms[64];
    const uint8_t *src[QNHWC_TAPS + 1];
    for (int64_t b = 0; b < Lw && b < n; b += 64) {
        qnhwc_dw_wpairs_avx2(taps, w + b / 64 * taps * 256, wq);
        qnhwc_dw_slots(brow + b, mrow + b, bs, ms);
        for (int64_t oh = oh0; oh < oh1; oh++) {
            for (int64_t k = 0; k < 2 * np; k++)
                src[k] = xp + (oh - oh0) * rstep + off[k];
            for (int64_t i0 = b; i0 < n; i0 += Lw) {
                __m256i s[8];
                for (int j = 0; j < 8; j++)
                    s[j] = _mm256_loadu_si256((const __m256i *)(const void *)(bs + 8 * j));
                qnhwc_dw_pairsums_avx2(np, src, i0, 0, (const int16_t(*)[64][2])wq, s);
                qnhwc_dw_bytes_avx2(n - i0 < 64 ? n - i0 : 64, s, ms, yz, y_type, small,
                                    y + oh * n + i0);
            }
        }
    }
}

/* The pixel form (qnhwc_depthwise_image) with the tap pairs, at most QNHWC_TAPS taps: block by
 * block of 64 channels, whose pairs are made once; each pixel looks its window's taps up (the
 * padding pixel across the border); a block of fewer than 64 channels copies its taps' bytes
 * first, so that no read passes the image. */
static void qnhwc_dw_pixels_avx2(const int64_t *geo, const uint8_t *xn, const uint8_t *pad,
                                 uint8_t flip, const int8_t *w, const int32_t *bias_adj,
                                 const double *mult, int y_type, double yz, int small, uint8_t *y)
{
    const int64_t C = geo[1], taps = geo[7] * geo[8] * geo[9], np = (taps + 1) / 2;
    const int64_t D = geo[2], H = geo[3], W = geo[4], P = geo[10] * geo[11] * geo[12];
    int16_t wq[QNHWC_TAPS / 2][64][2];
    uint8_t part[QNHWC_TAPS][64];
    int32_t bias[64], bs[64];
    double mb[64], ms[64];
    int64_t off[QNHWC_TAPS], span[3];
    const uint8_t *px[QNHWC_TAPS + 1];
    qnhwc_taps(geo, off, span);
    memset(part, 0, sizeof part);
    for (int64_t c0 = 0; c0 < C; c0 += 64) {
        const int64_t cb = C - c0 < 64 ? C - c0 : 64;
        qnhwc_dw_wpairs_avx2(taps, w + c0 / 64 * taps * 256, wq);
        for (int64_t j = 0; j < 64; j++)
            bias[j] = j < cb ? bias_adj[c0 + j] : 0, mb[j] = j < cb ? mult[c0 + j] : 0.0;
        qnhwc_dw_slots(bias, mb, bs, ms);
        for (int64_t p = 0, od = 0, oh = 0, ow = 0; p < P; p++) {
            const int64_t org[3] = {od * geo[13] - geo[16], oh * geo[14] - geo[17],
                                    ow * geo[15] - geo[18]};
            const int inside = org[0] >= 0 && org[0] + span[0] < D && org[1] >= 0 &&
                               org[1] + span[1] < H && org[2] >= 0 && org[2] + span[2] < W;
            const uint8_t *base = inside ? xn + ((org[0] * H + org[1]) * W + org[2]) * C : xn;
            for (int64_t k = 0; k < taps; k++) {
                const int64_t kw = k % geo[9], kh = k / geo[9] % geo[8], kd = k / geo[9] / geo[8];
                px[k] = c0 + (inside ? base + off[k]
                                     : qnhwc_pixel(geo, xn, pad, org[0] + kd * geo[19],
                                                   org[1] + kh * geo[20], org[2] + kw * geo[21]));
                if (cb < 64)
                    px[k] = (const uint8_t *)memcpy(part[k], px[k], (size_t)cb);
            }
            px[taps] = px[0]; /* the odd tap's partner, weight 0 */
            __m256i v[8];
            for (int j = 0; j < 8; j++)
                v[j] = _mm256_loadu_si256((const __m256i *)(const void *)(bs + 8 * j));
            if (flip)
                qnhwc_dw_pairsums_avx2(np, px, 0, 0x80, (const int16_t(*)[64][2])wq, v);
            else
                qnhwc_dw_pairsums_avx2(np, px, 0, 0, (const int16_t(*)[64][2])wq, v);
            qnhwc_dw_bytes_avx2(cb, v, ms, yz, y_type, small, y + p * C + c0);
            if (++ow == geo[12] && (ow = 0, ++oh == geo[11]))
                oh = 0, od++;
        }
    }
}
#endif

#ifdef QNHWC_VNNI
/* y[0..n) = the first n of the block's 64 bytes, q[j] lane l holding byte 4l + j: interleaved
 * byte by byte, then pairs by pairs (4 x 4 transposes of the 16-byte vectors). */
static void qnhwc_dw_store_v(int64_t n, const __m128i *q, uint8_t *restrict y)
{
    const __m128i t0 = _mm_unpacklo_epi8(q[0], q[1]), t1 = _mm_unpackhi_epi8(q[0], q[1]);
    const __m128i t2 = _mm_unpacklo_epi8(q[2], q[3]), t3 = _mm_unpackhi_epi8(q[2], q[3]);
    const __m128i o[4] = {_mm_unpacklo_epi16(t0, t2), _mm_unpackhi_epi16(t0, t2),
                          _mm_unpacklo_epi16(t1, t3), _mm_unpackhi_epi16(t1, t3)};
    for (int64_t j = 0; j < n; j += 16)
        qnhwc_store16(n - j < 16 ? n - j : 16, o[j / 16], y + j);
}
#endif

/* xp (see qnhwc_dw_rows) = the Hp rows from padded row r0 on of image xn [H][W][C] offset to
 * uint8 (flip), zero-point padded. */
static void qnhwc_dw_fill(const int64_t *geo, const int64_t *e, int64_t r0, const uint8_t *xn,
                          uint8_t flip, uint8_t xz, uint8_t *restrict xp)
{
    const int64_t H = geo[3], W = geo[4], C = geo[1], sw = geo[15], pt = geo[17], pl = geo[18];
    const int64_t Hp = e[0], Wq = e[1];
    const uint64_t flip8 = (uint64_t)flip * 0x0101010101010101u;
    memset(xp, xz, (size_t)e[2]);
    for (int64_t r = 0, ih = r0 - pt; r < Hp && ih < H; r++, ih++) {
        if (ih < 0)
            continue;
        const uint8_t *restrict src = xn + ih * W * C;
        if (sw == 1) {
            const int64_t n = (W < Wq - pl ? W : Wq - pl) * C;
            uint8_t *restrict dst = xp + (r * Wq + pl) * C;
            for (int64_t i = 0; i < n; i++)
                dst[i] = (uint8_t)(src[i] ^ flip);
            continue;
        }
        for (int64_t b = 0; b < sw; b++) { /* padded column jq * sw + b = iw + pl */
            uint8_t *restrict dst = xp + ((b * Hp + r) * Wq) * C;
            for (int64_t jq = 0, iw = b - pl; jq < Wq && iw < W; jq++, iw += sw, dst += C) {
                if (iw < 0)
                    continue;
                int64_t c = 0;
                for (; c + 8 <= C; c += 8) { /* 8 channels as one word (C is small and varies) */
                    uint64_t v;
                    memcpy(&v, src + iw * C + c, 8);
                    v ^= flip8;
                    memcpy(dst + c, &v, 8);
                }
                for (; c < C; c++)
                    dst[c] = (uint8_t)(src[iw * C + c] ^ flip);
            }
        }
    }
}

/* The output rows oh0 .. oh1 - 1 of the row form from their band's copy xp (see
 * qnhwc_dw_rows_image). */
static void qnhwc_dw_band_rows(const int64_t *geo, const uint8_t *xp, const int64_t *e,
                               const int64_t *off, const int8_t *w, const int32_t *brow,
                               const double *mrow, int y_type, double yz, int small, uint8_t *y,
                               int64_t oh0, int64_t oh1)
{
    const int64_t C = geo[1], taps = geo[8] * geo[9], Lw = qnhwc_lw(C), n = geo[12] * C;
    const int64_t rstep = geo[14] * e[1] * C;
#ifdef QNHWC_AVX2
    qnhwc_dw_rows_avx2(geo, xp, rstep, off, w, brow, mrow, y_type, yz, small, y, oh0, oh1);
    return;
#endif
    const uint8_t *src[QNHWC_TAPS];
    for (int64_t oh = oh0; oh < oh1; oh++) {
        const uint8_t *row = xp + (oh - oh0) * rstep;
        for (int64_t k = 0; k < taps; k++)
            src[k] = row + off[k];
        for (int64_t i0 = 0; i0 < n; i0 += 64) {
            const int64_t nb = n - i0 < 64 ? n - i0 : 64, b = i0 % Lw;
#ifdef QNHWC_VNNI /* the sums stay in registers, in vpdpbusd's order until they are bytes */
            __m512i s[4];
            __m128i q[4];
            qnhwc_dw_lanes_v(taps, src, i0, 64, 0, w + b / 64 * taps * 256, s); /* xp: offset */
            for (int j = 0; j < 4; j++) {
                const __m512i bj = _mm512_loadu_si512((const void *)(brow + b + 16 * j));
                q[j] = qnhwc_requant16_q(_mm512_add_epi32(s[j], bj), mrow + b + 16 * j, yz, y_type,
                                         small);
            }
            qnhwc_dw_store_v(nb, q, y + oh * n + i0);
#else
            int32_t acc[64];
            memcpy(acc, brow + b, sizeof acc);
            qnhwc_dw_block(taps, src, i0, 64, 0, w + b / 64 * taps * 256, acc); /* xp: offset */
            for (int64_t j = 0; j < nb; j += 16)
                qnhwc_requant16(nb - j < 16 ? nb - j : 16, acc + j, mrow + b + j, yz, y_type, small,
                                y + oh * n + i0 + j);
#endif
        }
    }
}

/* The depthwise row form, one image: y [OH][OW][C] from xn [H][W][C]; w [Lw/64][taps][4][64]. */
static void qnhwc_dw_rows_image(const int64_t *geo, const uint8_t *xn, uint8_t flip, uint8_t xz,
                                const int8_t *w, const int32_t *bias_adj, const double *mult,
                                int y_type, double yz, int small, uint8_t *y, uint8_t *scratch)
{
    const int64_t C = geo[1], KH = geo[8], KW = geo[9], OH = geo[11];
    const int64_t sh = geo[14], sw = geo[15], dh = geo[20], dw = geo[21], taps = KH * KW;
    const int64_t Lw = qnhwc_lw(C), R = qnhwc_dw_band(geo);
    int64_t e[3];
    qnhwc_dw_extents(geo, R, e);
    uint8_t *xp = scratch;
    int32_t *brow = (int32_t *)(void *)(scratch + qnhwc_up(e[2], 64));
    double *mrow = (double *)(void *)(brow + Lw);
    int64_t off[QNHWC_TAPS + 1];
    for (int64_t i = 0; i < Lw; i++) { /* channel i % C, in the lanes' order (qnhwc_dw_pos) */
        const int64_t c = qnhwc_dw_pos(i) % C;
        brow[i] = bias_adj[c], mrow[i] = mult[c];
    }
    for (int64_t k = 0; k < taps; k++) { /* where the run of tap k starts in a band's first row */
        const int64_t kh = k / KW, c0 = k % KW * dw;
        off[k] = ((c0 % sw * e[0] + kh * dh) * e[1] + c0 / sw) * C;
    }
    off[taps] = off[0];
    for (int64_t oh0 = 0; oh0 < OH; oh0 += R) {
        qnhwc_dw_fill(geo, e, oh0 * sh, xn, flip, xz, xp);
        qnhwc_dw_band_rows(geo, xp, e, off, w, brow, mrow, y_type, yz, small, y, oh0,
                           oh0 + R < OH ? oh0 + R : OH);
    }
}

/* dst[0..n) = src[0..n): the few bytes of a patch's tap or kernel row (1 to 3 channels, mostly),
 * where a call of memcpy would cost more than the copy. */
static void qnhwc_copy(int64_t n, const uint8_t *restrict src, uint8_t *restrict dst)
{
    if (n == 1) {
        dst[0] = src[0];
        return;
    }
    for (int64_t i = 0; i < n; i++)
        dst[i] = src[i];
}

/* The sources of tile pixel t whose window starts at org (see qnhwc_core): direct form
 * src[k][t] = the pixel tap k reads (at the group's first channel xg - xn), patch form the
 * patch row [4 Kq] of the tile's pixel t, copied. Windows inside the image take the tap
 * offsets; those that cross its border look each pixel up. */
static void qnhwc_sources(const int64_t *geo, const uint8_t *xn, int64_t g0, const uint8_t *pad,
                          const int64_t *off, const int64_t *span, const int64_t *org, int direct,
                          uint8_t *row, const uint8_t *(*src)[QNHWC_T], int64_t t)
{
    const int64_t D = geo[2], H = geo[3], W = geo[4], C = geo[1], Cg = C / geo[6];
    const int64_t KD = geo[7], KH = geo[8], KW = geo[9], taps = KD * KH * KW;
    const int inside = org[0] >= 0 && org[0] + span[0] < D && org[1] >= 0 && org[1] + span[1] < H &&
                       org[2] >= 0 && org[2] + span[2] < W;
    if (inside) {
        const uint8_t *base = xn + ((org[0] * H + org[1]) * W + org[2]) * C + g0;
        if (direct) {
            for (int64_t k = 0; k < taps; k++)
                src[k][t] = base + off[k];
            return;
        }
        src[0][t] = row;
        if (Cg == C && geo[21] == 1) { /* a window row is KW * C contiguous bytes */
            for (int64_t r = 0; r < KD * KH; r++)
                qnhwc_copy(KW * C, base + off[r * KW], row + r * KW * C);
            return;
        }
        for (int64_t k = 0; k < taps; k++)
            qnhwc_copy(Cg, base + off[k], row + k * Cg);
        return;
    }
    int64_t k = 0;
    for (int64_t kd = 0; kd < KD; kd++)
        for (int64_t kh = 0; kh < KH; kh++)
            for (int64_t kw = 0; kw < KW; kw++, k++) {
                const uint8_t *px = qnhwc_pixel(geo, xn, pad, org[0] + kd * geo[19],
                                                org[1] + kh * geo[20], org[2] + kw * geo[21]);
                px += px == pad ? 0 : g0;
                if (direct)
                    src[k][t] = px;
                else
                    qnhwc_copy(Cg, px, row + k * Cg);
            }
    if (!direct)
        src[0][t] = row;
}

/* One tile of group g: yt [T][OC] (at the group's first channel) = the requantised sums of the
 * tile's sources (see qnhwc_core), over the group's output channels in blocks of up to
 * QNHWC_NOB * 16. */
static void qnhwc_tile(const int64_t *geo, int64_t g, int64_t T, int64_t Kq, int64_t nsrc,
                       int64_t qper, const uint8_t *const (*src)[QNHWC_T], uint32_t flip4,
                       const int8_t *w, const int32_t *bias_adj, const double *mult, int y_type,
                       double yz, int small, uint8_t *yt)
{
    const int64_t OC = geo[5], OCg = OC / geo[6];
    const int64_t OCgp = qnhwc_up(OCg, QNHWC_OB), bs = Kq * 4 * QNHWC_OB;
    int32_t acc[QNHWC_NOB * QNHWC_T * QNHWC_OB], bias[QNHWC_NOB * QNHWC_OB];
    double mb[QNHWC_NOB * QNHWC_OB];
    if (qnhwc_pairs(geo)) { /* 8 channels of two pixels per vector: 16 bytes of y */
        for (int64_t j = 0; j < QNHWC_OB; j++)
            bias[j] = bias_adj[j % (QNHWC_OB / 2)], mb[j] = mult[j % (QNHWC_OB / 2)];
        qnhwc_core_pairs(nsrc, qper, src, flip4, w, bias, acc);
        for (int64_t t = 0; t < T; t += 2)
            qnhwc_requant16(T - t < 2 ? QNHWC_OB / 2 : QNHWC_OB, acc + t / 2 * QNHWC_OB, mb, yz,
                            y_type, small, yt + t * OC);
        return;
    }
    /* passes of up to QNHWC_NOB blocks, as even as whole blocks allow (64 channels: 2 + 2 blocks,
     * not 3 + 1, whose second pass would broadcast each pixel's quads for one block: kws_int8
     * 0.95x the time) */
    const int64_t nblk = (OCg + QNHWC_OB - 1) / QNHWC_OB,
                  npass = (nblk + QNHWC_NOB - 1) / QNHWC_NOB;
    const int64_t step = (nblk + npass - 1) / npass * QNHWC_OB;
#ifdef QNHWC_AVX2
    int16_t xw[QNHWC_T][4 * QNHWC_WQ]; /* widened in the first pass, read by the later ones */
#else
    int16_t(*xw)[4 * QNHWC_WQ] = NULL;
#endif
    for (int64_t o0 = 0; o0 < OCg; o0 += step) {
        const int64_t no = OCg - o0 < step ? OCg - o0 : step;
        const int nob = (int)((no + QNHWC_OB - 1) / QNHWC_OB);
        const int32_t *bb = bias_adj + g * OCg + o0;
        const double *mm = mult + g * OCg + o0;
        if (no % QNHWC_OB) { /* whole vectors: zeros past the group's channels */
            for (int64_t j = 0; j < nob * QNHWC_OB; j++)
                bias[j] = j < no ? bb[j] : 0;
            qnhwc_mult_block(no, mm, mb);
            bb = bias, mm = mb;
        }
        qnhwc_core_n(nob, nsrc, qper, src, flip4, w + (g * OCgp + o0) * 4 * Kq, bs, bb, acc, xw,
                     o0 > 0);
        for (int64_t t = 0; t < T; t++)
            for (int64_t b = 0; b < nob; b++) {
                const int64_t n = no - b * QNHWC_OB < QNHWC_OB ? no - b * QNHWC_OB : QNHWC_OB;
                qnhwc_requant16(n, acc + (b * QNHWC_T + t) * QNHWC_OB, mm + b * QNHWC_OB, yz,
                                y_type, small, yt + t * OC + g * OCg + o0 + b * QNHWC_OB);
            }
    }
}

/* One image of the general form: y [P][OC] from xn [D][H][W][C]; patch: the patch form's
 * scratch. */
static void qnhwc_image(const int64_t *geo, const uint8_t *xn, const uint8_t *pad, uint8_t flip,
                        const int8_t *w, const int32_t *bias_adj, const double *mult, int y_type,
                        double yz, int small, uint8_t *y, uint8_t *patch)
{
    const int64_t G = geo[6], Cg = geo[1] / G, OC = geo[5];
    const int64_t taps = geo[7] * geo[8] * geo[9], OH = geo[11], OW = geo[12];
    const int64_t P = geo[10] * OH * OW, Kq = qnhwc_kq(geo);
    const uint32_t flip4 = (uint32_t)flip * 0x01010101u;
    const int direct = qnhwc_direct(geo), pointwise = direct && qconv_s8_pointwise(geo);
    const uint8_t *src[QNHWC_TAPS][QNHWC_T]; /* direct: [tap][pixel]; patch: [0][pixel] */
    int64_t off[QNHWC_TAPS], span[3];
    if (direct)
        qnhwc_taps(geo, off, span);
    else if (taps <= QNHWC_TAPS)
        qnhwc_taps(geo, off, span);
    else
        span[0] = geo[2], span[1] = geo[3], span[2] = geo[4]; /* no window is inside */
    for (int64_t g = 0; g < G; g++)
        for (int64_t p0 = 0, od = 0, oh = 0, ow = 0; p0 < P; p0 += QNHWC_T) {
            const int64_t T = P - p0 < QNHWC_T ? P - p0 : QNHWC_T;
            for (int64_t t = 0; pointwise && t < QNHWC_T; t++) /* pixel p reads pixel p */
                src[0][t] = xn + (p0 + (t < T ? t : T - 1)) * geo[1] + g * Cg;
            for (int64_t t = 0; !pointwise && t < QNHWC_T; t++) {
                const int64_t org[3] = {od * geo[13] - geo[16], oh * geo[14] - geo[17],
                                        ow * geo[15] - geo[18]};
                qnhwc_sources(geo, xn, g * Cg, pad, off, span, org, direct, patch + t * 4 * Kq, src,
                              t);
                if (t + 1 < T && ++ow == OW) /* a partial tile repeats its last pixel */
                    if (ow = 0, ++oh == OH)
                        oh = 0, od++;
            }
            if (++ow == OW && (ow = 0, ++oh == OH)) /* the next tile's first pixel (no divides) */
                oh = 0, od++;
            qnhwc_tile(geo, g, T, Kq, direct ? taps : 1, direct ? Cg / 4 : Kq,
                       (const uint8_t *const(*)[QNHWC_T])src, flip4, w, bias_adj, mult, y_type, yz,
                       small, y + p0 * OC);
        }
}

/* The band form (qnhwc_band_rows), one image: y [OH][OW][OC] from xn [H][W][C]; xb: the band's
 * scratch. */
static void qnhwc_band_image(const int64_t *geo, const uint8_t *xn, uint8_t flip, uint8_t xz,
                             const int8_t *w, const int32_t *bias_adj, const double *mult,
                             int y_type, double yz, int small, uint8_t *y, uint8_t *xb)
{
    const int64_t H = geo[3], W = geo[4], C = geo[1], OC = geo[5], KH = geo[8], OH = geo[11];
    const int64_t OW = geo[12], sh = geo[14], sw = geo[15], pt = geo[17], pl = geo[18];
    const int64_t dh = geo[20], R = qnhwc_band_rows(geo), Wp = (OW - 1) * sw + geo[9];
    const int64_t Kq = qnhwc_kq(geo), Qr = qnhwc_qr(geo);
    const int64_t run = (W < Wp - pl ? W : Wp - pl) * C; /* bytes of an input row in xb */
    const uint32_t flip4 = (uint32_t)flip * 0x01010101u;
    const uint8_t *src[QNHWC_TAPS][QNHWC_T]; /* [kernel row][pixel] */
    for (int64_t oh0 = 0; oh0 < OH; oh0 += R) {
        const int64_t nr = OH - oh0 < R ? OH - oh0 : R, Hb = (nr - 1) * sh + (KH - 1) * dh + 1;
        memset(xb, xz ^ flip, (size_t)qnhwc_band_bytes(geo, nr)); /* bytes that read as xz */
        for (int64_t i = 0; i < Hb; i++) {
            const int64_t ih = oh0 * sh - pt + i;
            if (ih >= 0 && ih < H && run > 0)
                memcpy(xb + (i * Wp + pl) * C, xn + ih * W * C, (size_t)run);
        }
        const int64_t P = nr * OW;
        for (int64_t p0 = 0, oh = 0, ow = 0; p0 < P; p0 += QNHWC_T) {
            const int64_t T = P - p0 < QNHWC_T ? P - p0 : QNHWC_T;
            for (int64_t t = 0; t < QNHWC_T; t++) {
                const uint8_t *px = xb + (oh * sh * Wp + ow * sw) * C;
                for (int64_t r = 0; r < KH; r++)
                    src[r][t] = px + r * dh * Wp * C;
                if (t + 1 < T && ++ow == OW) /* a partial tile repeats its last pixel */
                    ow = 0, oh++;
            }
            if (++ow == OW)
                ow = 0, oh++;
            qnhwc_tile(geo, 0, T, Kq, KH, Qr, (const uint8_t *const(*)[QNHWC_T])src, flip4, w,
                       bias_adj, mult, y_type, yz, small, y + (oh0 * OW + p0) * OC);
        }
    }
}

#else  /* O2C_SMALL_CODE: the plain loop only */
/* One image: each output, its sum over taps and input channels (padding taps read xz, offset
 * like the inputs by flip), requantised as qconv_s8_round (small: qconv_s8_round_small). */
static void qnhwc_plain_image(const int64_t *geo, const uint8_t *xn, uint8_t flip, uint8_t xz,
                              const int8_t *w, const int32_t *bias_adj, const double *mult,
                              int y_type, double yz, int small, uint8_t *y)
{
    const int64_t C = geo[1], OC = geo[5], G = geo[6], Cg = C / G, OCg = OC / G;
    const int64_t KD = geo[7], KH = geo[8], KW = geo[9], taps = KD * KH * KW, Kq = qnhwc_kq(geo);
    const int dw = qnhwc_depthwise(geo), band = qnhwc_band_rows(geo) > 0;
    const int32_t lo = y_type == 2 ? 0 : -128, hi = y_type == 2 ? 255 : 127;
    for (int64_t od = 0, p = 0; od < geo[10]; od++)
        for (int64_t oh = 0; oh < geo[11]; oh++)
            for (int64_t ow = 0; ow < geo[12]; ow++, p++)
                for (int64_t oc = 0; oc < OC; oc++) {
                    const int64_t g = oc / OCg;
                    int32_t acc = bias_adj[oc];
                    for (int64_t k = 0; k < taps; k++) {
                        const int64_t id = od * geo[13] - geo[16] + k / (KH * KW) * geo[19];
                        const int64_t ih = oh * geo[14] - geo[17] + k / KW % KH * geo[20];
                        const int64_t iw = ow * geo[15] - geo[18] + k % KW * geo[21];
                        const int in = id >= 0 && id < geo[2] && ih >= 0 && ih < geo[3] &&
                                       iw >= 0 && iw < geo[4];
                        const uint8_t *px = xn + ((id * geo[3] + ih) * geo[4] + iw) * C + g * Cg;
                        for (int64_t ic = 0; ic < Cg; ic++)
                            acc += (in ? (uint8_t)(px[ic] ^ flip) : xz) *
                                   w[dw ? qnhwc_dw_widx(taps, oc, k)
                                        : qnhwc_widx(geo, band, Kq, oc, ic, k)];
                    }
                    y[p * OC + oc] =
                        (uint8_t)(small ? qconv_s8_round_small(acc, mult[oc], yz, lo, hi)
                                        : qconv_s8_round(acc, mult[oc], yz, lo, hi));
                }
}
#endif /* O2C_SMALL_CODE */

/* Whether adding 1.5 * 2^52 + yz rounds a * m + yz (a an int32 sum, yz an integer zero point)
 * as qconv_s8_round does, for every a whose byte the clamp does not decide: m is a multiple of
 * 2^-42, so a * m and a * m + yz are multiples of 2^-42 too, exact in double below 2^11 in
 * magnitude, where nearbyint and the add's rounding agree; larger values clamp either way (both
 * roundings are monotonic). Float multipliers of 2^-19 and more are such multiples. */
static int qnhwc_add_rounds(double m)
{
    const double t = m * 0x1p42;
    return t == floor(t);
}

/* geo[23]: 1 + the requantisation's form (QNHWC_REQ_*): 3 when every output channel qconv_s8_fits
 * (the int32 clamp and single fma hold) and each multiplier qnhwc_add_rounds, 2 when they all fit,
 * 1 when one does not: what the compiler finds once with this function; 0 for unknown, which the
 * kernel then finds out at each call. */
O2C_KERNEL int qconv_nhwc_s8_small(const int64_t *geo, const int32_t *bias_adj, const double *mult,
                                   int y_type, const void *y_zp)
{
    const double yz = (double)quant_load(y_type, y_zp, 0);
    int add = 1;
    for (int64_t oc = 0; oc < geo[5]; oc++) {
        if (!qconv_s8_fits(geo, bias_adj[oc], mult[oc], yz))
            return 1 + QNHWC_REQ_DOUBLE;
        add &= qnhwc_add_rounds(mult[oc]);
    }
    return 1 + (add ? QNHWC_REQ_ADD : QNHWC_REQ_INT32);
}

/* QLinearConv with int8 weights of zero point 0 on channels-last tensors: x [N][D][H][W][C]
 * of x_type (2 uint8, 3 int8), x_zp one element or NULL; w from qconv_nhwc_s8_weights;
 * bias_adj, mult from qconv_s8_prepare; y [N][OD][OH][OW][OC] of y_type (2 or 3) with y_zp (or
 * NULL); scratch: qconv_nhwc_s8_scratch(geo) bytes. The bytes of qconv_s8 (and qconv) in the
 * other layout. */
O2C_KERNEL void qconv_nhwc_s8(const int64_t *geo, int x_type, const void *x, const void *x_zp,
                              const int8_t *w, const int32_t *bias_adj, const double *mult,
                              int y_type, const void *y_zp, void *y, uint8_t *scratch)
{
    const int64_t N = geo[0], C = geo[1], OC = geo[5];
    const int64_t plane = geo[2] * geo[3] * geo[4], P = geo[10] * geo[11] * geo[12];
    const uint8_t flip = x_type == 3 ? 0x80 : 0;
    const uint8_t xz = (uint8_t)(quant_load(x_type, x_zp, 0) + (x_type == 3 ? 128 : 0));
    const double yz = (double)quant_load(y_type, y_zp, 0);
    const int small =
        (int)(geo[23] ? geo[23] : qconv_nhwc_s8_small(geo, bias_adj, mult, y_type, y_zp)) - 1;
#ifdef O2C_SMALL_CODE
    (void)scratch;
    for (int64_t n = 0; n < N; n++)
        qnhwc_plain_image(geo, (const uint8_t *)x + n * plane * C, flip, xz, w, bias_adj, mult,
                          y_type, yz, small, (uint8_t *)y + n * P * OC);
#else
    /* the padding pixel: bytes that read as the zero point */
    if (!qnhwc_dw_rows(geo) && !qnhwc_band_rows(geo)) {
        memset(scratch, xz ^ flip, (size_t)qnhwc_pad_bytes(geo));
        memset(scratch + qnhwc_pad_bytes(geo), 0, (size_t)(QNHWC_T * 4 * qnhwc_kq(geo)));
    }
    for (int64_t n = 0; n < N; n++) {
        const uint8_t *xn = (const uint8_t *)x + n * plane * C;
        uint8_t *yn = (uint8_t *)y + n * P * OC;
        if (qnhwc_dw_rows(geo))
            qnhwc_dw_rows_image(geo, xn, flip, xz, w, bias_adj, mult, y_type, yz, small, yn,
                                scratch);
        else if (qnhwc_band_rows(geo))
            qnhwc_band_image(geo, xn, flip, xz, w, bias_adj, mult, y_type, yz, small, yn, scratch);
#ifdef QNHWC_AVX2
        else if (qnhwc_depthwise(geo) && geo[7] * geo[8] * geo[9] <= QNHWC_TAPS)
            qnhwc_dw_pixels_avx2(geo, xn, scratch, flip, w, bias_adj, mult, y_type, yz, small, yn);
#endif
        else if (qnhwc_depthwise(geo))
            qnhwc_depthwise_image(geo, xn, scratch, flip, w, bias_adj, mult, y_type, yz, small, yn);
        else
            qnhwc_image(geo, xn, scratch, flip, w, bias_adj, mult, y_type, yz, small, yn,
                        scratch + qnhwc_pad_bytes(geo));
    }
#endif
}
