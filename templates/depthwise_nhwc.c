/* depthwise_nhwc.c — depthwise convolution (one input channel per group, multiplier 1) on
 * channels-last tensors.
 *
 * Layout: x [N][H][W][C] -> y [N][OH][OW][C]; weights packed at compile time by
 * depthwise_nhwc_pack_f32 to wp [KH][KW][C] (one tap's C weights contiguous, so a block of
 * channels is one vector load per tap); bias [C] or NULL. 1-D is H = KH = OH = 1 with
 * stride_h = dil_h = 1, pad_t = 0. The geometry is one int64_t array, geo[NHWC_GEO_LEN]
 * (indices below; pool_nhwc.c reads the same array).
 *
 * Numerics: the bits of depthwise_conv_f32 (templates/conv.c), i.e. of im2col + gemm_f32 with
 * Cg == 1: each output element is
 *     acc = +0.0f; for kh ascending, for kw ascending: acc = fmaf(w[c][kh][kw], x_or_0, acc)
 * with the padded taps included (fmaf(w, 0.0f, acc): the same bits for signed zeros, inf and
 * NaN weights), then y = acc + bias[c] (no bias: y = acc, never "+ 0.0f", which would turn
 * -0.0f into +0.0f), then the epilogues ep[0 .. nep-1] (conv.c's conv_epilogue_f32, the ops'
 * own kernels, with an Add's operand r in NHWC order like y). So the layout never changes a
 * result.
 *
 * Part of the templates: the compiler pastes this text into the generated C file (after
 * conv.c, elementwise.c and math.c, whose epilogue code it calls) and also links it to fold
 * constants. It includes only standard headers and defines every function with O2C_KERNEL,
 * which the includer sets (generated code: static; compiler: empty).
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

/* The geometry array of the NHWC window kernels (depthwise_nhwc.c, pool_nhwc.c; kernels.h
 * declares the same under the same guard). Output (oh, ow) at tap (kh, kw) reads input
 *     ih = oh*SH - PT + kh*DH,   iw = ow*SW - PL + kw*DW
 * (a position outside [0, H) x [0, W) is padding). PB and PR, the bottom and right padding,
 * matter only to AveragePool's count_include_pad. */
#ifndef O2C_NHWC_GEO
#define O2C_NHWC_GEO
enum {
    NHWC_GEO_N,
    NHWC_GEO_H,
    NHWC_GEO_W,
    NHWC_GEO_C,
    NHWC_GEO_OH,
    NHWC_GEO_OW,
    NHWC_GEO_KH,
    NHWC_GEO_KW,
    NHWC_GEO_SH,
    NHWC_GEO_SW,
    NHWC_GEO_PT,
    NHWC_GEO_PL,
    NHWC_GEO_PB,
    NHWC_GEO_PR,
    NHWC_GEO_DH,
    NHWC_GEO_DW,
    NHWC_GEO_LEN
};
#endif

/* From conv.c, which the generated file pastes whenever it pastes this one. */
struct ConvEpilogue;
O2C_KERNEL void conv_epilogue_f32(const struct ConvEpilogue *ep, int nep, int64_t at, int64_t len,
                                  float *yr);
O2C_KERNEL const struct ConvEpilogue *conv_epilogue_clip(const struct ConvEpilogue *ep, int *nep,
                                                         float *lo, float *hi);

/* ONNX depthwise weights to taps outer, channels inner (at compile time when constant).
 *   w   [C][KH][KW]  (the ONNX layout [C][1][KH][KW] as is)
 *   wp  [KH][KW][C]: wp[(kh*KW + kw)*C + c] = w[(c*KH + kh)*KW + kw] */
O2C_KERNEL void depthwise_nhwc_pack_f32(int64_t C, int64_t KH, int64_t KW, const float *w,
                                        float *wp)
{
    for (int64_t t = 0; t < KH * KW; t++)
        for (int64_t c = 0; c < C; c++)
            wp[t * C + c] = w[c * KH * KW + t];
}

#ifndef O2C_SMALL_CODE /* (the generated file's preamble; else the plain loop only) */
/* ---- the kernel ----
 *
 * Each output row is split by where its taps fall:
 *   interior  the positions whose every tap column lies inside the image run in row tiles of
 *             DWN_P positions x DWN_L channels: DWN_P accumulator vectors that gcc and clang keep
 *             in registers (8 zmm with AVX-512: 8 independent fma chains, enough to hide the fma
 *             latency); each tap loads its DWN_L weights once for the DWN_P positions, and each
 *             position's DWN_L inputs are contiguous in NHWC (no plane copies, no lanes wasted on
 *             short rows); 3- and 5-wide kernel rows at column stride 1 or 2 load each input
 *             column once for all the row's taps. When the interior is not a multiple of DWN_P,
 *             its last tile starts DWN_P positions before its end, overlapping the previous one;
 *   borders   the other positions (and the whole row when its interior is shorter than DWN_P)
 *             run in point tiles of one position x DWN_V*DWN_L channels (DWN_V independent fma
 *             chains), or of DWN_L channels when there are fewer than DWN_V*DWN_L; their padded
 *             taps read a zero vector.
 * Tap rows above or below the image read the zero vector too. So a padded tap is still
 * fmaf(w, 0.0f, acc) in its place in the order. Channel counts that are not a multiple of a
 * tile's channels run the last block at C - DWN_L (or C - DWN_V*DWN_L), overlapping the previous
 * one. Overlapped outputs are computed twice with the same bits. Fewer than DWN_L channels run
 * as flat row tiles (depthwise_nhwc_row_narrow) or the plain loop. */
/* DWN_L is the floats of one vector register of the target (16: AVX-512, 8: AVX, else 4: SSE,
 * NEON), so a row tile's DWN_P accumulators fit the registers: a wider tile only spills, and
 * gcc -O2 took 5 s to compile this file with DWN_L 16 on SSE (1 s with 4). Tiles never change
 * a bit. */
#if defined(__AVX512F__)
#define DWN_LANES 16
#elif defined(__AVX__)
#define DWN_LANES 8
#else
#define DWN_LANES 4
#endif
/* positions, channels per vector, point tile vectors */
enum { DWN_P = 8, DWN_L = DWN_LANES, DWN_V = 4 };
enum { DWN_MAX_KH = 64 }; /* taller kernels: depthwise_nhwc_tall */

static const float depthwise_nhwc_zeros[DWN_V * DWN_L]; /* the padding's inputs */

#if defined(__GNUC__)
#define DWN_INLINE __attribute__((always_inline)) inline
#else
#define DWN_INLINE inline
#endif

/* gcc vectorises a tile only as a function of its own (see conv.c's CONV_NOINLINE), and must
 * not clone it for constant tap counts (it then vectorises across the taps, see conv.c's
 * O2C_DW_NOIPA). */
#if defined(__GNUC__) && !defined(__clang__)
#define O2C_DWN_NOINLINE __attribute__((noipa))
#elif defined(__GNUC__)
#define O2C_DWN_NOINLINE __attribute__((noinline))
#else
#define O2C_DWN_NOINLINE
#endif

/* v = src[0 .. DWN_L): the tiles' input vector. gcc copies 64 bytes with memcpy as two 32-byte
 * moves (its Intel tunings), which the 64-byte loads of v right after cannot forward from: a
 * stall per fma (vww's 8-channel layer 7x slower, the benchmark models' depthwise layers
 * 1.3x-1.6x); copied by elements it is one vector. clang vectorises the 8-channel flat rows well
 * only from the memcpy (read in place: 5x slower). */
static DWN_INLINE void depthwise_nhwc_load(float v[DWN_L], const float *src)
{
#if defined(__clang__)
    memcpy(v, src, DWN_L * sizeof(float));
#else
    for (int l = 0; l < DWN_L; l++)
        v[l] = src[l];
#endif
}

/* clip_f32's expression: min(max(v, lo), hi). */
static DWN_INLINE float depthwise_nhwc_clip(float v, float lo, float hi)
{
    const float u = v < lo ? lo : v;
    return u > hi ? hi : u;
}

/* y[p*C + l] = clip(acc[p][l] (+ bias[l])) for p < np, l < DWN_L, clip = depthwise_nhwc_clip
 * to [lo, hi] (-inf, +inf: none). No bias is not "+ 0.0f" (that would turn -0.0f into +0.0f).
 * The test is outside the loops, where gcc still vectorises them. */
static DWN_INLINE void depthwise_nhwc_store(int64_t np, int64_t C, float acc[DWN_P][DWN_L],
                                            const float *restrict bias, float lo, float hi,
                                            float *restrict y)
{
    if (bias) {
        for (int64_t p = 0; p < np; p++)
            for (int l = 0; l < DWN_L; l++)
                y[p * C + l] = depthwise_nhwc_clip(acc[p][l] + bias[l], lo, hi);
    } else {
        for (int64_t p = 0; p < np; p++)
            for (int l = 0; l < DWN_L; l++)
                y[p * C + l] = depthwise_nhwc_clip(acc[p][l], lo, hi);
    }
}

/* A row tile: acc = 0, then for each tap in (kh, kw) order and each of the tile's positions p:
 * acc[p] = fmaf(w[tap], x at the tap, acc[p]), DWN_L channels side by side; then the store.
 * rows[kh] is the input row of tap row kh at the tile's first position's first tap, channel c0
 * (NULL: the row is padding); every tap column is inside the image: position p's tap kw is at
 * rows[kh] + p*sp + kw*dwc.
 *   w = wp + c0 (tap stride C), bias = bias + c0 or NULL, y = the first position's y + c0,
 *   position p's at y + p*ys */
O2C_DWN_NOINLINE static void depthwise_nhwc_tile(int64_t KH, int64_t KW, int64_t C, int64_t sp,
                                                 int64_t dwc, int64_t ys, const float *const *rows,
                                                 const float *w, const float *bias, float *y)
{
    float acc[DWN_P][DWN_L];
    for (int p = 0; p < DWN_P; p++)
        for (int l = 0; l < DWN_L; l++)
            acc[p][l] = 0.0f;
#pragma GCC unroll 1
    for (int64_t kh = 0; kh < KH; kh++) {
        /* a row in the padding reads zeros at offset 0 (clang vectorises this form only) */
        const int64_t in_row = rows[kh] != NULL;
        const float *r = in_row ? rows[kh] : depthwise_nhwc_zeros;
        const int64_t step = sp & -in_row, tap_step = dwc & -in_row;
#pragma GCC unroll 1
        for (int64_t kw = 0; kw < KW; kw++) {
            const float *restrict wv = w + (kh * KW + kw) * C;
            const float *src = r + kw * tap_step;
#pragma GCC unroll 8
            for (int p = 0; p < DWN_P; p++) {
                float xv[DWN_L];
                depthwise_nhwc_load(xv, src + p * step);
#pragma GCC unroll 16
                for (int l = 0; l < DWN_L; l++)
                    acc[p][l] = fmaf(wv[l], xv[l], acc[p][l]);
            }
        }
    }
    depthwise_nhwc_store(DWN_P, ys, acc, bias, -INFINITY, INFINITY, y);
}

/* Tap row kh of a reuse tile: its first input column, and in *col the column stride cs; a
 * row in the padding reads zeros at offset 0 (stride 0). */
static DWN_INLINE const float *depthwise_nhwc_tap_row(const float *const *rows, int64_t kh,
                                                      int64_t cs, int64_t *col)
{
    const int64_t in_row = rows[kh] != NULL;
    *col = cs & -in_row;
    return in_row ? rows[kh] : depthwise_nhwc_zeros;
}

/* depthwise_nhwc_tile for K x K-wide kernel rows with column stride S (1 or 2) and no column
 * dilation, as constants: the S*(DWN_P-1) + K input columns a kernel row's taps read are loaded
 * once per kernel row and each feeds up to K taps' fmas (stride 1: 10 vector loads instead of
 * 24 for a 3-wide row); each accumulator still sees the taps in (kh, kw) order. rows[kh] is the
 * tile's first input column of tap row kh, channel c0 (NULL: padding), its column j at
 * rows[kh] + j*cs; w = wp + c0 (tap stride C); y[p*ys + l] = the sum of position p, channel
 * c0 + l (+ bias[l]). Inlined into one function per (K, S). */
enum { DWN_NX = 2 * (DWN_P - 1) + 5 }; /* input columns of the widest (K 5, S 2) */
enum { DWN_REUSE_KH = 5 };             /* the most tap rows of the reuse forms (strip size) */
static DWN_INLINE void depthwise_nhwc_tile_reuse(int K, int S, int64_t KH, int64_t C, int64_t cs,
                                                 int64_t ys, const float *const *rows,
                                                 const float *w, const float *bias, float lo,
                                                 float hi, float *y)
{
    float acc[DWN_P][DWN_L];
    for (int p = 0; p < DWN_P; p++)
        for (int l = 0; l < DWN_L; l++)
            acc[p][l] = 0.0f;
#pragma GCC unroll 1
    for (int64_t kh = 0; kh < KH; kh++) {
        int64_t col;
        const float *r = depthwise_nhwc_tap_row(rows, kh, cs, &col);
        float xv[DWN_NX][DWN_L];
#if defined(__clang__)
#pragma clang loop unroll(full)
#else
#pragma GCC unroll 19
#endif
        for (int j = 0; j < S * (DWN_P - 1) + K; j++)
            depthwise_nhwc_load(xv[j], r + j * col);
#if defined(__clang__)
#pragma clang loop unroll(full)
#else
#pragma GCC unroll 5
#endif
        for (int kw = 0; kw < K; kw++) {
            const float *restrict wv = w + (kh * K + kw) * C;
#pragma GCC unroll 8
            for (int p = 0; p < DWN_P; p++)
#pragma GCC unroll 16
                for (int l = 0; l < DWN_L; l++)
                    acc[p][l] = fmaf(wv[l], xv[p * S + kw][l], acc[p][l]);
        }
    }
    depthwise_nhwc_store(DWN_P, ys, acc, bias, lo, hi, y);
}

/* depthwise_nhwc_tile_reuse with the DWN_P accumulators as named vectors of 16 lanes (a GNU C
 * vector type: a zmm register each; gcc with AVX-512): the same fmaf per lane in the same order,
 * so the same bits. gcc zeroed the array's accumulators and stored them through the stack at
 * each tile's start and end (it keeps them in registers only inside the loop over the tap
 * rows), 32 vector moves next to the 72 fmas of a 3x3 tile: the depthwise layers of
 * MobileNetV2 1035 -> 982 us, VWW 54.2 -> 52.0 (benchmarks/depthwise_layers.c). clang 14 split
 * these vectors' fmas into lanes (1.3x slower): it keeps the arrays. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__AVX__) /* AVX-512 included */
#define DWN_VTILES 1
typedef float DwnV __attribute__((vector_size(DWN_L * sizeof(float))));

static DWN_INLINE DwnV depthwise_nhwc_vload(const float *p)
{
    DwnV r;
    memcpy(&r, p, sizeof r);
    return r;
}

static DWN_INLINE DwnV depthwise_nhwc_vfma(DwnV w, DwnV x, DwnV a)
{
    for (int l = 0; l < DWN_L; l++)
        a[l] = fmaf(w[l], x[l], a[l]);
    return a;
}

/* depthwise_nhwc_store of one position (bias NULL or not: a constant where inlined) */
static DWN_INLINE void depthwise_nhwc_vput(DwnV a, const float *restrict bias, float lo, float hi,
                                           float *restrict y)
{
    for (int l = 0; l < DWN_L; l++)
        y[l] = depthwise_nhwc_clip(bias ? a[l] + bias[l] : a[l], lo, hi);
}

#define DWN_P8(M)     M(0) M(1) M(2) M(3) M(4) M(5) M(6) M(7)
#define DWN_V_INIT(p) DwnV a##p = z;
#define DWN_V_FMA(p)  a##p = depthwise_nhwc_vfma(wv, xv[(p)*S + kw], a##p);
#define DWN_V_PUT(p)  depthwise_nhwc_vput(a##p, B, lo, hi, y + (p)*ys);
/* the 8 positions' stores, with the bias test outside them (B a constant where inlined) */
#define DWN_V_PUTS()                                                                               \
    if (bias) {                                                                                    \
        const float *const B = bias;                                                               \
        DWN_P8(DWN_V_PUT)                                                                          \
    } else {                                                                                       \
        const float *const B = NULL;                                                               \
        DWN_P8(DWN_V_PUT)                                                                          \
    }

static DWN_INLINE void depthwise_nhwc_vtile_reuse(int K, int S, int64_t KH, int64_t C, int64_t cs,
                                                  int64_t ys, const float *const *rows,
                                                  const float *w, const float *bias, float lo,
                                                  float hi, float *y)
{
    const DwnV z = {0.0f};
    DwnV xv[DWN_NX];
    DWN_P8(DWN_V_INIT)
#pragma GCC unroll 1
    for (int64_t kh = 0; kh < KH; kh++) {
        int64_t col;
        const float *r = depthwise_nhwc_tap_row(rows, kh, cs, &col);
#pragma GCC unroll 19
        for (int j = 0; j < S * (DWN_P - 1) + K; j++)
            xv[j] = depthwise_nhwc_vload(r + j * col);
#pragma GCC unroll 5
        for (int kw = 0; kw < K; kw++) {
            const DwnV wv = depthwise_nhwc_vload(w + (kh * K + kw) * C);
            DWN_P8(DWN_V_FMA)
        }
    }
    DWN_V_PUTS()
}

/* With AVX but not AVX-512 (16 registers of 8 lanes) the 8 accumulators, the 10 input columns
 * of a 3-wide kernel row and its weight did not fit: gcc spilled. The sliding form keeps the
 * row's K weights in registers and loads each input column once, for every tap that reads it:
 * column j feeds position (j - kw)/S of tap kw. Each accumulator still sees its taps in (kh,
 * kw) order (for one position the columns it reads come in kw order), so the same bits. The
 * column is pinned to a register by an empty asm: gcc 12 otherwise read it from memory again
 * as an operand of each of its K fmas. benchmarks/depthwise_layers.c on AMD Zen 3: the
 * depthwise layers of MobileNetV3-small 680 -> 484 us, EfficientNet-B0 3470 -> 2314. */
#define DWN_K5(M) M(0) M(1) M(2) M(3) M(4)
#define DWN_SLIDE_W(kw)                                                                            \
    const DwnV w##kw = depthwise_nhwc_vload(w + (kh * K + ((kw) < K ? (kw) : 0)) * C);
#define DWN_SLIDE_TAP(kw)                                                                          \
    if ((kw) < K) {                                                                                \
        DWN_P8X(DWN_SLIDE_FMA, kw)                                                                 \
    }
#define DWN_P8X(M, kw) M(0, kw) M(1, kw) M(2, kw) M(3, kw) M(4, kw) M(5, kw) M(6, kw) M(7, kw)
#define DWN_SLIDE_FMA(p, kw)                                                                       \
    if (j - (kw) == (p)*S)                                                                         \
        a##p = depthwise_nhwc_vfma(w##kw, x, a##p);

static DWN_INLINE void depthwise_nhwc_vtile_slide(int K, int S, int64_t KH, int64_t C, int64_t cs,
                                                  int64_t ys, const float *const *rows,
                                                  const float *w, const float *bias, float lo,
                                                  float hi, float *y)
{
    const DwnV z = {0.0f};
    DWN_P8(DWN_V_INIT)
#pragma GCC unroll 1
    for (int64_t kh = 0; kh < KH; kh++) {
        int64_t col;
        const float *r = depthwise_nhwc_tap_row(rows, kh, cs, &col);
        DWN_K5(DWN_SLIDE_W) /* the row's K weights (the others unused) */
#pragma GCC unroll 19
        for (int j = 0; j < S * (DWN_P - 1) + K; j++) {
            DwnV x = depthwise_nhwc_vload(r + j * col);
            __asm__("" : "+x"(x));
            DWN_K5(DWN_SLIDE_TAP) /* column j: position (j - kw)/S of each tap kw that reads it */
        }
    }
    DWN_V_PUTS()
}
#if defined(__AVX512F__)
#define DWN_TILE_REUSE depthwise_nhwc_vtile_reuse
#else
#define DWN_TILE_REUSE depthwise_nhwc_vtile_slide
#endif
#else
#define DWN_TILE_REUSE depthwise_nhwc_tile_reuse
#endif

/* The (K, S) forms of depthwise_nhwc_tile_reuse, form = 10*K + S (31, 32, 51 or 52); arguments
 * as its. One function per form: a test inside one copy would keep gcc's accumulators in
 * memory, and four copies in one function (a switch) spilled the 5-wide forms once the store
 * was inlined. */
#define DWN_FORM_FN(name, K, S)                                                                    \
    O2C_DWN_NOINLINE static void name(int64_t KH, int64_t C, int64_t cs, int64_t ys,               \
                                      const float *const *rows, const float *w, const float *bias, \
                                      float lo, float hi, float *y)                                \
    {                                                                                              \
        DWN_TILE_REUSE(K, S, KH, C, cs, ys, rows, w, bias, lo, hi, y);                             \
    }
DWN_FORM_FN(depthwise_nhwc_tile31, 3, 1)
DWN_FORM_FN(depthwise_nhwc_tile32, 3, 2)
DWN_FORM_FN(depthwise_nhwc_tile51, 5, 1)
DWN_FORM_FN(depthwise_nhwc_tile52, 5, 2)
#undef DWN_FORM_FN

static void depthwise_nhwc_tile_form(int form, int64_t KH, int64_t C, int64_t cs, int64_t ys,
                                     const float *const *rows, const float *w, const float *bias,
                                     float lo, float hi, float *y)
{
    switch (form) {
    case 31: depthwise_nhwc_tile31(KH, C, cs, ys, rows, w, bias, lo, hi, y); break;
    case 32: depthwise_nhwc_tile32(KH, C, cs, ys, rows, w, bias, lo, hi, y); break;
    case 51: depthwise_nhwc_tile51(KH, C, cs, ys, rows, w, bias, lo, hi, y); break;
    default: depthwise_nhwc_tile52(KH, C, cs, ys, rows, w, bias, lo, hi, y); break;
    }
}

/* A row of a reuse form (form = 10*K + S, KH <= DWN_REUSE_KH): tiles at ow0 = 0, DWN_P, ...
 * (the last at OW - DWN_P, overlapping, when OW >= DWN_P). A tile whose columns are all inside
 * the image reads them in place; another (at the borders) first copies its columns, zeros for
 * those in the padding, to a strip [KH][S*(DWN_P-1)+K][DWN_L], so that the same forms run it
 * (eight forms instead of four cost gcc -O2 ~0.6 s of compile time); a row shorter than DWN_P
 * stores its DWN_P positions to yb and copies the OW live ones. rows[kh] at column 0, channel 0
 * (NULL: padding), y = the row's output. */
static void depthwise_nhwc_row_reuse(int form, int64_t KH, int64_t C, int64_t W, int64_t OW,
                                     int64_t PL, const float *const *rows, const float *wp,
                                     const float *bias, float *y)
{
    const int K = form / 10, S = form % 10;
    const int64_t ncols = S * (DWN_P - 1) + K;
    const float *trows[DWN_REUSE_KH];
    float strip[DWN_REUSE_KH][DWN_NX][DWN_L], yb[DWN_P][DWN_L];
    for (int64_t ow = 0; ow < OW; ow += DWN_P) {
        const int64_t ow0 = OW - ow < DWN_P && OW >= DWN_P ? OW - DWN_P : ow;
        const int64_t np = OW - ow0 < DWN_P ? OW - ow0 : DWN_P, iw0 = ow0 * S - PL;
        const int interior = iw0 >= 0 && iw0 + ncols <= W;
        /* a border tile's strip columns j_lo .. j_hi-1 are inside the image, the rest zeros */
        const int64_t j_lo = iw0 < 0 ? -iw0 : 0, j_hi = W - iw0 < ncols ? W - iw0 : ncols;
        for (int64_t kh = 0; kh < KH && !interior; kh++)
            memset(strip[kh], 0, (size_t)ncols * sizeof strip[kh][0]);
        for (int64_t cb = 0; cb < C; cb += DWN_L) {
            const int64_t c0 = C - cb < DWN_L ? C - DWN_L : cb;
            for (int64_t kh = 0; kh < KH; kh++) {
                trows[kh] = rows[kh] && interior ? rows[kh] + iw0 * C + c0 : NULL;
                if (!rows[kh] || interior)
                    continue;
                for (int64_t j = j_lo; j < j_hi; j++)
                    memcpy(strip[kh][j], rows[kh] + (iw0 + j) * C + c0, sizeof strip[kh][j]);
                trows[kh] = strip[kh][0];
            }
            const float *b = bias ? bias + c0 : NULL;
            const int64_t cs = interior ? C : DWN_L;
            if (np == DWN_P) {
                depthwise_nhwc_tile_form(form, KH, C, cs, C, trows, wp + c0, b, -INFINITY, INFINITY,
                                         y + ow0 * C + c0);
                continue;
            }
            depthwise_nhwc_tile_form(form, KH, C, cs, DWN_L, trows, wp + c0, b, -INFINITY, INFINITY,
                                     yb[0]);
            for (int64_t p = 0; p < np; p++)
                memcpy(y + (ow0 + p) * C + c0, yb[p], sizeof yb[p]);
        }
    }
}

/* The interior of an output row of a K x K kernel of a reuse form (form = 10*K + S: K = 3 or 5,
 * column stride S = 1 or 2), no dilation, whose K tap rows are inside the image: positions lo ..
 * hi-1 (hi - lo >= DWN_P; every tap column inside) in the reuse form's row tiles read in place (the
 * last at hi - DWN_P, overlapping), their store y = min(max(acc (+ bias), clo), chi) (a leading
 * Relu or Clip, conv_epilogue_clip). The borders run point tiles (the caller): no per-tile strip
 * copies, no pass of the clip over the row (with both, the tiles were half of MobileNetV2's
 * 28x28x192 layer). rows[kh] at column 0, channel 0; y = the row's output. */
static void depthwise_nhwc_run_interior(int form, int64_t C, int64_t lo, int64_t hi, int64_t PL,
                                        const float *const *rows, const float *wp,
                                        const float *bias, float clo, float chi, float *y)
{
    const int64_t K = form / 10, S = form % 10;
    const float *trows[DWN_REUSE_KH];
    for (int64_t ow = lo; ow < hi; ow += DWN_P) {
        const int64_t ow0 = hi - ow < DWN_P ? hi - DWN_P : ow, off = (ow0 * S - PL) * C;
        for (int64_t cb = 0; cb < C; cb += DWN_L) {
            const int64_t c0 = C - cb < DWN_L ? C - DWN_L : cb;
            for (int64_t kh = 0; kh < K; kh++)
                trows[kh] = rows[kh] + off + c0;
            depthwise_nhwc_tile_form(form, K, C, C, C, trows, wp + c0, bias ? bias + c0 : NULL, clo,
                                     chi, y + ow0 * C + c0);
        }
    }
}

/* A point tile: one output position, V*DWN_L channels from c0 (V = DWN_V or 1, a constant), in
 * V chains; the taps in (kh, kw) order, those outside the image reading zeros. rows[kh] is the
 * input row of tap row kh at column 0, channel c0 (NULL: padding); the position's first tap
 * column is iw0. Inlined into one function per V.
 *   w = wp + c0 (tap stride C), bias = bias + c0 or NULL, y = the position's y + c0 */
static DWN_INLINE void depthwise_nhwc_point(int V, int64_t KH, int64_t KW, int64_t C, int64_t W,
                                            int64_t iw0, int64_t DW, const float *const *rows,
                                            const float *w, const float *restrict bias,
                                            float *restrict y)
{
    float acc[DWN_V * DWN_L];
    for (int l = 0; l < V * DWN_L; l++)
        acc[l] = 0.0f;
#pragma GCC unroll 1
    for (int64_t kh = 0; kh < KH; kh++) {
        const float *r = rows[kh];
#pragma GCC unroll 1
        for (int64_t kw = 0; kw < KW; kw++) {
            const int64_t iw = iw0 + kw * DW;
            const float *restrict wv = w + (kh * KW + kw) * C;
            const float *restrict src = r && iw >= 0 && iw < W ? r + iw * C : depthwise_nhwc_zeros;
#pragma GCC unroll 64
            for (int l = 0; l < V * DWN_L; l++)
                acc[l] = fmaf(wv[l], src[l], acc[l]);
        }
    }
    if (bias)
        for (int l = 0; l < V * DWN_L; l++)
            y[l] = acc[l] + bias[l];
    else
        for (int l = 0; l < V * DWN_L; l++)
            y[l] = acc[l];
}

O2C_DWN_NOINLINE static void depthwise_nhwc_point4(int64_t KH, int64_t KW, int64_t C, int64_t W,
                                                   int64_t iw0, int64_t DW,
                                                   const float *const *rows, const float *w,
                                                   const float *bias, float *y)
{
    depthwise_nhwc_point(DWN_V, KH, KW, C, W, iw0, DW, rows, w, bias, y);
}

O2C_DWN_NOINLINE static void depthwise_nhwc_point1(int64_t KH, int64_t KW, int64_t C, int64_t W,
                                                   int64_t iw0, int64_t DW,
                                                   const float *const *rows, const float *w,
                                                   const float *bias, float *y)
{
    depthwise_nhwc_point(1, KH, KW, C, W, iw0, DW, rows, w, bias, y);
}

/* The positions ow_a .. ow_b-1 of one output row at the borders: point tiles of DWN_V*DWN_L
 * channels, or of DWN_L with fewer channels than that. rows[kh] is the input row of tap row kh
 * at column 0, channel 0 (NULL: padding), y = the row's output. */
static void depthwise_nhwc_border(int64_t KH, int64_t KW, int64_t C, int64_t W, int64_t SW,
                                  int64_t PL, int64_t DW, int64_t ow_a, int64_t ow_b,
                                  const float *const *rows, const float *wp, const float *bias,
                                  float *y)
{
    const int64_t CB = C >= DWN_V * DWN_L ? DWN_V * DWN_L : DWN_L; /* channels per tile */
    const float *crows[DWN_MAX_KH];
    for (int64_t ow = ow_a; ow < ow_b; ow++)
        for (int64_t cb = 0; cb < C; cb += CB) {
            const int64_t c0 = C - cb < CB ? C - CB : cb;
            for (int64_t kh = 0; kh < KH; kh++)
                crows[kh] = rows[kh] ? rows[kh] + c0 : NULL;
            const float *b = bias ? bias + c0 : NULL;
            if (CB == DWN_L)
                depthwise_nhwc_point1(KH, KW, C, W, ow * SW - PL, DW, crows, wp + c0, b,
                                      y + ow * C + c0);
            else
                depthwise_nhwc_point4(KH, KW, C, W, ow * SW - PL, DW, crows, wp + c0, b,
                                      y + ow * C + c0);
        }
}

/* The plain loop (channel counts below DWN_L): positions ow_a .. ow_b-1 of one output row
 * [OW][C], rows as in depthwise_nhwc_border; a position's C channels side by side. */
static void depthwise_nhwc_row_plain(int64_t KH, int64_t KW, int64_t C, int64_t W, int64_t SW,
                                     int64_t PL, int64_t DW, int64_t ow_a, int64_t ow_b,
                                     const float *const *rows, const float *wp, const float *bias,
                                     float *y)
{
    for (int64_t ow = ow_a; ow < ow_b; ow++) {
        float acc[DWN_L]; /* C < DWN_L chains side by side, not one after the other */
        for (int64_t c = 0; c < C; c++)
            acc[c] = 0.0f;
        for (int64_t kh = 0; kh < KH; kh++)
            for (int64_t kw = 0; kw < KW; kw++) {
                const int64_t iw = ow * SW - PL + kw * DW;
                const float *restrict xv =
                    rows[kh] && iw >= 0 && iw < W ? rows[kh] + iw * C : depthwise_nhwc_zeros;
                const float *restrict wv = wp + (kh * KW + kw) * C;
                for (int64_t c = 0; c < C; c++)
                    acc[c] = fmaf(wv[c], xv[c], acc[c]);
            }
        for (int64_t c = 0; c < C; c++)
            y[ow * C + c] = bias ? acc[c] + bias[c] : acc[c];
    }
}

/* Fewer channels than DWN_L, C a divisor of DWN_L (C = 1, 2, 4 or 8 with AVX-512), unit
 * column stride, at most DWN_MAX_TAPS taps: the interior of a row, positions lo .. hi-1, is one
 * run of (hi - lo)*C floats whose element i reads, at tap (kh, kw), the input row's element
 * i + (kw*DW - PL)*C, with the weight of channel i % C. So it runs as row tiles of DWN_P x DWN_L
 * floats (DWN_L/C positions per vector) with the weights and bias repeated DWN_L/C times (wr,
 * br); the borders and runs shorter than one tile run the plain loop. rows as in
 * depthwise_nhwc_border, y = the row's output. */
enum { DWN_MAX_TAPS = 25 };
static void depthwise_nhwc_row_narrow(int64_t KH, int64_t KW, int64_t C, int64_t W, int64_t OW,
                                      int64_t PL, int64_t DW, int64_t lo, int64_t hi,
                                      const float *const *rows, const float *wp, const float *bias,
                                      const float *wr, const float *br, float *y)
{
    const int64_t a = lo * C, b = hi * C; /* the interior's floats */
    if (b - a < DWN_P * DWN_L) {
        depthwise_nhwc_row_plain(KH, KW, C, W, 1, PL, DW, 0, OW, rows, wp, bias, y);
        return;
    }
    depthwise_nhwc_row_plain(KH, KW, C, W, 1, PL, DW, 0, lo, rows, wp, bias, y);
    const float *tile_rows[DWN_MAX_KH];
    for (int64_t f = a; f < b; f += DWN_P * DWN_L) {
        const int64_t f0 = b - f < DWN_P * DWN_L ? b - DWN_P * DWN_L : f;
        for (int64_t kh = 0; kh < KH; kh++)
            tile_rows[kh] = rows[kh] ? rows[kh] + f0 - PL * C : NULL;
        depthwise_nhwc_tile(KH, KW, DWN_L, DWN_L, DW * C, DWN_L, tile_rows, wr, bias ? br : NULL,
                            y + f0);
    }
    depthwise_nhwc_row_plain(KH, KW, C, W, 1, PL, DW, hi, OW, rows, wp, bias, y);
}

/* Small maps at unit stride (the DS-CNN's 25x5, the MobileNets' 3x3 to 14x14): one block of
 * DWN_L channels at a time, the image is copied once into a zero-padded buffer xb [rows][Wp]
 * [DWN_L] (Wp: the padded width), where output (oh, ow) is the flat position f = oh*Wp + ow and
 * its tap (kh, kw) reads xb's position f + kh*DH*Wp + kw*DW: a 1-D convolution, whose row
 * tiles (a reuse form or depthwise_nhwc_tile) run at f = 0, DWN_P, ... over the whole map with
 * no border tiles and no per-tile copies of inputs; each tile's positions ow < OW are copied
 * out to y (with the first epilogue when it is a Relu or Clip, conv_epilogue_clip), those past
 * OW (Wp - OW of Wp: the kernel's width less one) read across the row's end and are dropped.
 * xb lives on the stack: at most DWN_FLAT_FLOATS (32 KB with AVX-512). */
enum { DWN_FLAT_FLOATS = 8192 };
typedef struct DwnFlat {
    int64_t Wp, rows, nv; /* padded width, xb's rows, flat positions (a multiple of DWN_P) */
} DwnFlat;

/* Whether the map runs flat, and its buffer's geometry (geo as depthwise_nhwc_f32's). */
static int depthwise_nhwc_flat_plan(const int64_t *geo, DwnFlat *f)
{
    const int64_t W = geo[NHWC_GEO_W], OH = geo[NHWC_GEO_OH], OW = geo[NHWC_GEO_OW];
    const int64_t KH = geo[NHWC_GEO_KH], KW = geo[NHWC_GEO_KW], PL = geo[NHWC_GEO_PL];
    const int64_t DH = geo[NHWC_GEO_DH], DW = geo[NHWC_GEO_DW];
    if (geo[NHWC_GEO_SH] != 1 || geo[NHWC_GEO_SW] != 1 || geo[NHWC_GEO_C] < DWN_L || OW < 1 ||
        OH < 1)
        return 0;
    f->Wp = W + PL > OW + (KW - 1) * DW ? W + PL : OW + (KW - 1) * DW;
    f->nv = ((OH - 1) * f->Wp + OW + DWN_P - 1) / DWN_P * DWN_P;
    f->rows = (f->nv - 1 + (KH - 1) * DH * f->Wp + (KW - 1) * DW) / f->Wp + 1;
    /* worth it when OW/Wp, the share of the flat tiles' positions that are outputs, is at most
     * 0.1 below the rows' OW/ow8 (ow8: OW rounded up to DWN_P; the rows' border copies cost
     * about that; measured on depthwise_layers.c's maps: 25x5 and 3x3 to 14x14 with 3x3
     * kernels, 14x14 with 5x5 flat, 7x7 with 5x5 not) */
    const int64_t ow8 = (OW + DWN_P - 1) / DWN_P * DWN_P;
    return f->rows * f->Wp * DWN_L <= DWN_FLAT_FLOATS &&
           10 * OW * ow8 + f->Wp * ow8 >= 10 * OW * f->Wp;
}

/* One image of depthwise_nhwc_f32 on the flat plan f: x [H][W][C], y [OH][OW][C]; form as there
 * (stride 1); lo, hi: the bounds of a Relu or Clip in the store (else -inf, +inf, which leave
 * every value as it is: clip_f32's expression). */
static void depthwise_nhwc_flat(const int64_t *geo, const DwnFlat *f, int form, const float *x,
                                const float *wp, const float *bias, float lo, float hi, float *y)
{
    const int64_t H = geo[NHWC_GEO_H], W = geo[NHWC_GEO_W], C = geo[NHWC_GEO_C];
    const int64_t OH = geo[NHWC_GEO_OH], OW = geo[NHWC_GEO_OW], KH = geo[NHWC_GEO_KH];
    const int64_t KW = geo[NHWC_GEO_KW], PT = geo[NHWC_GEO_PT], PL = geo[NHWC_GEO_PL];
    const int64_t DH = geo[NHWC_GEO_DH], DW = geo[NHWC_GEO_DW], Wp = f->Wp;
    const int64_t hc = H < f->rows - PT ? H : f->rows - PT; /* the image rows xb holds */
    float xb[DWN_FLAT_FLOATS], yb[DWN_P][DWN_L];
    const float *trows[DWN_MAX_KH];
    /* the padding, zeroed once: from z up to image row i's first column */
    int64_t z = 0;
    for (int64_t i = 0; i <= hc; i++) {
        const int64_t next = i < hc ? (PT + i) * Wp + PL : f->rows * Wp;
        if (next > z)
            memset(xb + z * DWN_L, 0, (size_t)(next - z) * DWN_L * sizeof(float));
        z = next + W;
    }
    for (int64_t cb = 0; cb < C; cb += DWN_L) {
        const int64_t c0 = C - cb < DWN_L ? C - DWN_L : cb;
        for (int64_t i = 0; i < hc; i++)
            for (int64_t iw = 0; iw < W; iw++)
                memcpy(xb + ((PT + i) * Wp + PL + iw) * DWN_L, x + (i * W + iw) * C + c0,
                       DWN_L * sizeof(float));
        const float *b = bias ? bias + c0 : NULL;
        int64_t oh = 0, ow = 0; /* of the tile's position p */
        for (int64_t f0 = 0; f0 < f->nv; f0 += DWN_P) {
            for (int64_t kh = 0; kh < KH; kh++)
                trows[kh] = xb + (f0 + kh * DH * Wp) * DWN_L;
            if (form)
                depthwise_nhwc_tile_form(form, KH, C, DWN_L, DWN_L, trows, wp + c0, b, -INFINITY,
                                         INFINITY, yb[0]);
            else
                depthwise_nhwc_tile(KH, KW, C, DWN_L, DW * DWN_L, DWN_L, trows, wp + c0, b, yb[0]);
            for (int p = 0; p < DWN_P; p++) {
                if (ow < OW && oh < OH) {
                    float *restrict yo = y + (oh * OW + ow) * C + c0;
                    /* a vector loop (vmaxps, vminps): unrolled first, gcc leaves it scalar */
#pragma GCC unroll 1
                    for (int l = 0; l < DWN_L; l++)
                        yo[l] = depthwise_nhwc_clip(yb[p][l], lo, hi);
                }
                if (++ow == Wp) {
                    ow = 0;
                    oh++;
                }
            }
        }
    }
}

#endif /* O2C_SMALL_CODE */

/* The plain loop, with the same bits: kernels taller than DWN_MAX_KH rows (none that a network
 * has) and, with O2C_SMALL_CODE, every depthwise conv. Arguments as depthwise_nhwc_rows_f32's. */
static void depthwise_nhwc_tall(const int64_t *geo, int64_t nr, const float *xr, const float *wp,
                                const float *bias, const struct ConvEpilogue *ep, int nep,
                                int64_t n, int64_t oh0, int64_t oh1, float *y)
{
    const int64_t H = geo[NHWC_GEO_H], W = geo[NHWC_GEO_W], C = geo[NHWC_GEO_C];
    const int64_t OH = geo[NHWC_GEO_OH], OW = geo[NHWC_GEO_OW];
    const int64_t KH = geo[NHWC_GEO_KH], KW = geo[NHWC_GEO_KW];
    for (int64_t oh = oh0; oh < oh1; oh++) {
        const int64_t row = (n * OH + oh) * OW * C; /* output row [OW][C] */
        for (int64_t ow = 0; ow < OW; ow++)
            for (int64_t c = 0; c < C; c++) {
                float acc = 0.0f;
                for (int64_t kh = 0; kh < KH; kh++) {
                    const int64_t ih =
                        oh * geo[NHWC_GEO_SH] - geo[NHWC_GEO_PT] + kh * geo[NHWC_GEO_DH];
                    for (int64_t kw = 0; kw < KW; kw++) {
                        const int64_t iw =
                            ow * geo[NHWC_GEO_SW] - geo[NHWC_GEO_PL] + kw * geo[NHWC_GEO_DW];
                        const int inside = ih >= 0 && ih < H && iw >= 0 && iw < W;
                        const float xv = inside ? xr[((ih % nr) * W + iw) * C + c] : 0.0f;
                        acc = fmaf(wp[(kh * KW + kw) * C + c], xv, acc);
                    }
                }
                y[row + ow * C + c] = bias ? acc + bias[c] : acc;
            }
        conv_epilogue_f32(ep, nep, row, OW * C, y + row);
    }
}

/* Output rows oh0 .. oh1-1 of image n of depthwise_nhwc_f32 (geo, wp, bias, ep, nep and y as
 * there: y the whole output, an Add's operand indexed as y), row by row with the row tiles.
 * The image's input row ih is at xr + (ih % nr)*W*C: nr = H for the image itself, fewer for a
 * ring of nr rows that holds at least the rows these outputs read (expand_depthwise.c fills
 * one from the 1x1 conv before it). The same bits for any nr. */
O2C_KERNEL void depthwise_nhwc_rows_f32(const int64_t *geo, int64_t nr, const float *xr,
                                        const float *wp, const float *bias,
                                        const struct ConvEpilogue *ep, int nep, int64_t n,
                                        int64_t oh0, int64_t oh1, float *y)
{
#ifdef O2C_SMALL_CODE
    depthwise_nhwc_tall(geo, nr, xr, wp, bias, ep, nep, n, oh0, oh1, y);
#else
    const int64_t H = geo[NHWC_GEO_H], W = geo[NHWC_GEO_W], C = geo[NHWC_GEO_C];
    const int64_t OH = geo[NHWC_GEO_OH], OW = geo[NHWC_GEO_OW];
    const int64_t KH = geo[NHWC_GEO_KH], KW = geo[NHWC_GEO_KW];
    const int64_t SH = geo[NHWC_GEO_SH], SW = geo[NHWC_GEO_SW];
    const int64_t PT = geo[NHWC_GEO_PT], PL = geo[NHWC_GEO_PL];
    const int64_t DH = geo[NHWC_GEO_DH], DW = geo[NHWC_GEO_DW];
    if (KH > DWN_MAX_KH) {
        depthwise_nhwc_tall(geo, nr, xr, wp, bias, ep, nep, n, oh0, oh1, y);
        return;
    }
    /* interior columns: ow*SW - PL >= 0 and ow*SW - PL + (KW-1)*DW <= W-1 */
    const int64_t last = W - 1 - (KW - 1) * DW + PL; /* ow*SW <= last */
    int64_t lo = (PL + SW - 1) / SW, hi = last < 0 ? 0 : last / SW + 1;
    if (hi > OW)
        hi = OW;
    if (lo > hi)
        lo = hi;
    const int tiles = hi - lo >= DWN_P; /* else the whole row runs at the borders' tiles */
    /* the row tile: 10*KW + SW for the reuse forms, 0 for depthwise_nhwc_tile */
    const int form = DW == 1 && (KW == 3 || KW == 5) && (SW == 1 || SW == 2) && KH <= DWN_REUSE_KH
                         ? (int)(10 * KW + SW)
                         : 0;
    const int narrow = C > 0 && C < DWN_L && DWN_L % C == 0 && SW == 1 && KH * KW <= DWN_MAX_TAPS;
    float wr[DWN_MAX_TAPS * DWN_L], br[DWN_L]; /* narrow: weights and bias repeated */
    /* 3x3 or 5x5, stride 1 or 2: rows with every tap row inside run depthwise_nhwc_run_interior
     * with the clip in its store */
    const int interior = form && KH == KW && DH == 1 && C >= DWN_L && hi - lo >= DWN_P;
    float clo = -INFINITY, chi = INFINITY;
    int nlater = nep;
    const struct ConvEpilogue *later = conv_epilogue_clip(ep, &nlater, &clo, &chi);
    for (int64_t i = 0; narrow && i < KH * KW * DWN_L; i++)
        wr[i] = wp[i / DWN_L * C + i % C];
    for (int64_t i = 0; narrow && bias && i < DWN_L; i++)
        br[i] = bias[i % C];
    for (int64_t oh = oh0; oh < oh1; oh++) {
        const int64_t row = (n * OH + oh) * OW * C; /* output row [OW][C] */
        const float *rows[DWN_MAX_KH], *tile_rows[DWN_MAX_KH];
        for (int64_t kh = 0; kh < KH; kh++) {
            const int64_t ih = oh * SH - PT + kh * DH;
            rows[kh] = ih >= 0 && ih < H ? xr + (ih % nr) * W * C : NULL;
        }
        int inside = interior;
        for (int64_t kh = 0; kh < KH && inside; kh++)
            inside = rows[kh] != NULL;
        if (inside) {
            /* (the borders with point tiles, then clipped like the interior's store) */
            depthwise_nhwc_border(KH, KW, C, W, SW, PL, DW, 0, lo, rows, wp, bias, y + row);
            depthwise_nhwc_border(KH, KW, C, W, SW, PL, DW, hi, OW, rows, wp, bias, y + row);
            for (int64_t i = 0; i < lo * C; i++)
                y[row + i] = depthwise_nhwc_clip(y[row + i], clo, chi);
            for (int64_t i = hi * C; i < OW * C; i++)
                y[row + i] = depthwise_nhwc_clip(y[row + i], clo, chi);
            depthwise_nhwc_run_interior(form, C, lo, hi, PL, rows, wp, bias, clo, chi, y + row);
            conv_epilogue_f32(later, nlater, row, OW * C, y + row);
            continue;
        }
        if (narrow) {
            depthwise_nhwc_row_narrow(KH, KW, C, W, OW, PL, DW, lo, hi, rows, wp, bias, wr, br,
                                      y + row);
        } else if (C < DWN_L) {
            depthwise_nhwc_row_plain(KH, KW, C, W, SW, PL, DW, 0, OW, rows, wp, bias, y + row);
        } else if (form && 2 * OW > DWN_P) {
            /* (rows of at most DWN_P/2 outputs run point tiles: a row tile would waste
             * over half its positions; vww's 6x6x128 stride 2 layer 0.54x the time) */
            depthwise_nhwc_row_reuse(form, KH, C, W, OW, PL, rows, wp, bias, y + row);
        } else if (!tiles) {
            depthwise_nhwc_border(KH, KW, C, W, SW, PL, DW, 0, OW, rows, wp, bias, y + row);
        } else {
            depthwise_nhwc_border(KH, KW, C, W, SW, PL, DW, 0, lo, rows, wp, bias, y + row);
            for (int64_t ow = lo; ow < hi; ow += DWN_P) {
                const int64_t ow0 = hi - ow < DWN_P ? hi - DWN_P : ow;
                for (int64_t cb = 0; cb < C; cb += DWN_L) {
                    const int64_t c0 = C - cb < DWN_L ? C - DWN_L : cb;
                    const int64_t off = (ow0 * SW - PL) * C + c0;
                    for (int64_t kh = 0; kh < KH; kh++)
                        tile_rows[kh] = rows[kh] ? rows[kh] + off : NULL;
                    depthwise_nhwc_tile(KH, KW, C, SW * C, DW * C, C, tile_rows, wp + c0,
                                        bias ? bias + c0 : NULL, y + row + ow0 * C + c0);
                }
            }
            depthwise_nhwc_border(KH, KW, C, W, SW, PL, DW, hi, OW, rows, wp, bias, y + row);
        }
        conv_epilogue_f32(ep, nep, row, OW * C, y + row);
    }
#endif
}

/* Depthwise convolution, channels last (see the top of the file for layouts and bits).
 *   geo [NHWC_GEO_LEN], x [N][H][W][C], wp [KH][KW][C] (depthwise_nhwc_pack_f32), bias [C] or
 *   NULL, ep [nep] (NULL when nep is 0), y [N][OH][OW][C] (not x). */
O2C_KERNEL void depthwise_nhwc_f32(const int64_t *geo, const float *x, const float *wp,
                                   const float *bias, const struct ConvEpilogue *ep, int nep,
                                   float *y)
{
    const int64_t N = geo[NHWC_GEO_N], H = geo[NHWC_GEO_H], W = geo[NHWC_GEO_W];
    const int64_t C = geo[NHWC_GEO_C], OH = geo[NHWC_GEO_OH];
#ifndef O2C_SMALL_CODE
    DwnFlat flat;
    if (geo[NHWC_GEO_KH] <= DWN_MAX_KH && depthwise_nhwc_flat_plan(geo, &flat)) {
        const int64_t OW = geo[NHWC_GEO_OW], KW = geo[NHWC_GEO_KW], DW = geo[NHWC_GEO_DW];
        const int form = DW == 1 && (KW == 3 || KW == 5) ? (int)(10 * KW + 1) : 0;
        float lo = -INFINITY, hi = INFINITY;
        int nlater = nep;
        const struct ConvEpilogue *later = conv_epilogue_clip(ep, &nlater, &lo, &hi);
        for (int64_t n = 0; n < N; n++) {
            const int64_t at = n * OH * OW * C;
            depthwise_nhwc_flat(geo, &flat, form, x + n * H * W * C, wp, bias, lo, hi, y + at);
            conv_epilogue_f32(later, nlater, at, OH * OW * C, y + at);
        }
        return;
    }
#endif
    for (int64_t n = 0; n < N; n++)
        depthwise_nhwc_rows_f32(geo, H, x + n * H * W * C, wp, bias, ep, nep, n, 0, OH, y);
}
