/* conv_nhwc.c — float 2-D (and 1-D) convolution in the channels-last layout.
 *
 * Layout. x [N][H][W][C] with C = G*Cg (or, with geo[CONV_NHWC_XNCHW], [N][C][H][W]: a
 * graph input that the conv reads as it is, see below), y [N][OH][OW][OC] with OC = G*OCg; the
 * weight comes in
 * the ONNX layout [OC][Cg][KH][KW] and is packed once (conv_nhwc_pack_f32, at compile time
 * when it is constant). 1-D is H = KH = OH = 1 (stride_h = dil_h = 1, pad_t = 0). Any kernel
 * size, stride, dilation, padding and group count; depthwise convs (Cg == 1) have their own
 * kernels (depthwise_nhwc.c), 1x1 stride-1 convs are products (gemm.c).
 *
 * Bits. Each output is the sum of conv.c, in conv.c's order: k = (kh*KW + kw)*Cg + ic
 * ascending, acc = fmaf(w, x, acc) from +0.0f, padded taps included (they contribute
 * fmaf(w, 0.0f, acc)), then y = acc + bias[oc] (no bias: y = acc), then the epilogues. So the
 * layout never changes a result: NHWC and NCHW give the same bits.
 *
 * Geometry. geo[CONV_NHWC_NGEO], indexed by the CONV_NHWC_* enum below (kernels.h declares the
 * same): sizes, kernel, strides, leading pads (the trailing ones are implied by OH, OW),
 * dilations, and R, the output rows per band, which conv_nhwc_rows picks for a work budget (0: no
 * plane).
 *
 * Epilogues. struct ConvEpilogue and conv_epilogue_f32 of conv.c (which the generated file
 * pastes before this one, with elementwise.c and math.c: an op that runs this kernel lists the
 * templates "conv conv_nhwc elementwise math"). An Add's other operand r has y's NHWC shape:
 * element `at` of r is element `at` of y.
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

#ifndef ONNX2C_KERNELS_H
enum {
    CONV_NHWC_N,   /* images */
    CONV_NHWC_H,   /* input rows */
    CONV_NHWC_W,   /* input columns */
    CONV_NHWC_C,   /* input channels, G*Cg */
    CONV_NHWC_G,   /* groups */
    CONV_NHWC_OCG, /* output channels per group */
    CONV_NHWC_KH,
    CONV_NHWC_KW,
    CONV_NHWC_OH,
    CONV_NHWC_OW,
    CONV_NHWC_SH, /* strides */
    CONV_NHWC_SW,
    CONV_NHWC_PT, /* leading pads: top, left */
    CONV_NHWC_PL,
    CONV_NHWC_DH, /* dilations */
    CONV_NHWC_DW,
    CONV_NHWC_R,     /* output rows per band: conv_nhwc_rows */
    CONV_NHWC_XNCHW, /* 1: x is [N][C][H][W] (the band plane copy transposes it) */
    CONV_NHWC_YS,    /* floats from one output position to the next; 0: G*OCg (y dense) */
    CONV_NHWC_NGEO
};
#endif

/* From conv.c, which the generated file pastes before this one. */
struct ConvEpilogue;
O2C_KERNEL void conv_epilogue_f32(const struct ConvEpilogue *ep, int nep, int64_t at, int64_t len,
                                  float *yr);
O2C_KERNEL void conv_weight_pack_f32(int64_t G, int64_t OCg, int64_t Cg, int64_t taps, int64_t OB,
                                     const float *w, float *wp);
O2C_KERNEL int64_t conv_chan_positions(int64_t OW);
O2C_KERNEL const struct ConvEpilogue *conv_epilogue_clip(const struct ConvEpilogue *ep, int *nep,
                                                         float *lo, float *hi);
O2C_KERNEL const struct ConvEpilogue *conv_epilogue_add(const struct ConvEpilogue *ep, int *nep,
                                                        const float **r, int *r_first);

/* ---- the method ----
 *
 * NHWC makes the output channels of a position contiguous and the input channels of a
 * position contiguous. A register tile is OB = 32 output channels (16 where a group has at most
 * 16, which 32 would leave half empty: 16 -> 16 channels 1.45x faster) x J = 7, 8, 14 or 16
 * consecutive positions of one output row (conv_nhwc_positions picks J: the fewest dropped
 * positions; 16 only with 16-channel blocks; with the blocks outer, rows of 7 run two at a
 * time, conv_nhwc_tile7r2_f32), J*OB/16 accumulators of 16 lanes; each (tap,
 * channel) step is OB/16 vector loads of weights, J broadcasts of the positions' inputs and
 * J*OB/16 fmas, in the order above. The J inputs of a step are J floats sw*Cg apart: base
 * pointers at positions 0 and 8 and the strides 0 .. 7 times sw*Cg, which gcc and clang keep in
 * registers (the tile is one function per J and OB, its J loop unrolled; with one base pointer
 * 16 positions took 15 index registers, and spilled).
 *
 * Its input is a band plane: the input rows that a band of R output rows reads, for one group,
 * copied with their zero padding: plane[r][c][ic] = x[oh0*SH - PT + r][c - PL][c0 + ic], or 0.0f
 * in the padding, Wp columns (the reach of the row's last tile, dropped positions included) and
 * (R-1)*SH + (KH-1)*DH + 1 rows. The copy moves runs of Cg channels (the whole row when the
 * conv has one group): no transpose. Tap (kh, kw) of output (r, c) is then plane row
 * r*SH + kh*DH, column c*SW + kw*DW. With DW = 1 the KW taps of a kernel row read one run of
 * KW*Cg consecutive floats per position, in k order, so the tile runs a kernel row as one tap
 * of KW*Cg channels (the same steps in the same order: the packed weight [KH][KW][Cg][OB] is
 * [KH][KW*Cg][OB]); ResNet's first conv (3 channels, 7x7) then has 7 taps of 21 steps instead
 * of 49 of 3.
 *
 * Without a band plane (geo[CONV_NHWC_R] = 0: conv_nhwc_rows where not even one row fits the
 * scratch budget, so that the arena stays within the node-order bound) the tiles read x
 * itself, rows of W*C floats: a tile whose taps are all inside the image runs as above (a
 * kernel row as one tap of KW*Cg channels when the conv has one group); a tile that reaches
 * into the padding runs tap by tap, each tap straight from x when its J inputs are inside,
 * else from a stack copy of J x (at most 64) channels with 0.0f in the padding. The same steps
 * in the same order: the same bits. (tiny_resnet8's residual convs, whose x, residual and y
 * alone are the bound.)
 *
 * An NCHW x (geo[CONV_NHWC_XNCHW] = 1: the first conv of a CNN, on its [N][3][H][W] input)
 * always has a band plane, whose copy gathers each position's channels from the channel
 * planes: the plane, and so the tiles and the bits, are the same as from the NHWC x, and the
 * transposed copy of the input (a pass over it and its arena) is not needed.
 *
 * The tile is stored as J runs of OB contiguous output channels, with the bias and the
 * epilogues (in NCHW the store scatters a tile over OB channel planes). */

/* Output channels per block of the packed weight, the most (the tiles' accumulator width). */
#define CONV_NHWC_OB 32

/* The block of a conv: 32 output channels, 16 or 8 when a group has no more (8: vectors of 8
 * lanes, which run as many flops per cycle as 16 on AMD Zen 4, where a 16-lane fma takes both
 * halves of the unit, and on AVX2; tiny_mobilenetv1_vww's conv1, 3 -> 8 channels, had half of
 * its 16 lanes empty). */
static int64_t conv_nhwc_ob(const int64_t *geo)
{
    const int64_t OCg = geo[CONV_NHWC_OCG];
    return OCg <= 8 ? 8 : OCg <= 16 ? 16 : CONV_NHWC_OB;
}

/* Floats from one output position to the next: geo[CONV_NHWC_YS], or G*OCg (y dense). */
static int64_t conv_nhwc_ys(const int64_t *geo)
{
    return geo[CONV_NHWC_YS] ? geo[CONV_NHWC_YS] : geo[CONV_NHWC_G] * geo[CONV_NHWC_OCG];
}

/* Positions per tile, the most. */
#define CONV_NHWC_JMAX 16

/* Positions per tile: conv.c's conv_chan_positions (7, 8 or 14: the fewest dropped), or with
 * 16-channel blocks 16 where that drops no more (8 accumulators of 8 positions spent a fifth
 * of tiny_resnet8's 16-channel convs starting and storing tiles; 16 of 16: 1.04x faster, its
 * 3 -> 16 conv1 1.1x); 8-channel blocks always 16 (one function). */
static int64_t conv_nhwc_positions(const int64_t *geo)
{
    const int64_t OW = geo[CONV_NHWC_OW], J = conv_chan_positions(OW), ob = conv_nhwc_ob(geo);
    if (ob == 8 || (ob == 16 && (OW + 15) / 16 * 16 - OW <= (OW + J - 1) / J * J - OW))
        return 16;
    return J;
}

/* Floats of the weight blocks: [G][NB][KH*KW][Cg][OB], NB = ceil(OCg/OB). */
static int64_t conv_nhwc_weight_floats(const int64_t *geo)
{
    const int64_t G = geo[CONV_NHWC_G], OCg = geo[CONV_NHWC_OCG], ob = conv_nhwc_ob(geo);
    const int64_t Cg = geo[CONV_NHWC_C] / G, taps = geo[CONV_NHWC_KH] * geo[CONV_NHWC_KW];
    return G * ((OCg + ob - 1) / ob) * taps * Cg * ob;
}

/* Floats of the packed weight: the weight blocks, the padding tails [G][NB][KH][OB] and the
 * skip flag (conv_nhwc_pack_f32). */
O2C_KERNEL int64_t conv_nhwc_packed_floats(const int64_t *geo)
{
    const int64_t ob = conv_nhwc_ob(geo), NB = (geo[CONV_NHWC_OCG] + ob - 1) / ob;
    return conv_nhwc_weight_floats(geo) + geo[CONV_NHWC_G] * NB * geo[CONV_NHWC_KH] * ob + 1;
}

/* ---- Kernel rows in the padding ----
 *
 * A kernel row whose input row lies in the top or bottom padding adds fmaf(w, 0.0f, acc) for
 * each of its steps: with finite weights that leaves every acc as it is but -0.0f, so the
 * tiles skip such rows (a 3x3 conv's first and last output rows: 8% of the fmas of an 8x8
 * map, 10% of a 7x7 one) and keep the bits:
 * - rows before the first live one (the top padding) come first in k order, when acc is still
 *   +0.0f, which fmaf(w, 0.0f, +0.0f) leaves +0.0f for any finite w;
 * - rows after the last live one (the bottom padding) come last; they turn an acc of -0.0f
 *   (a sum that underflowed from below) into +0.0f when one of their weights has its sign bit
 *   clear (+0.0f + -0.0f or -0.0f + +0.0f), and leave every other acc as it is. That is
 *   acc + tail, where tail is those rows' fmas run from -0.0f (+0.0f or -0.0f): the tile adds
 *   the tail of its first skipped row to its sums before it stores them.
 * An inf or NaN weight makes a padded tap NaN: then no row is skipped (the flag). The same
 * bits as with the rows, so the other kernels (conv.c, the plain loop) need not skip them. */

/* Where the tails of (group g, block b) start: [KH][OB] after the weight blocks. */
static int64_t conv_nhwc_tails_at(const int64_t *geo, int64_t NB, int64_t g, int64_t b)
{
    return conv_nhwc_weight_floats(geo) + (g * NB + b) * geo[CONV_NHWC_KH] * conv_nhwc_ob(geo);
}

/* The ONNX weight w [G*OCg][Cg][KH][KW] in blocks of OB output channels (conv.c's
 * conv_weight_pack_f32): wp[g][b][t][ic][o] = w[g*OCg + b*OB + o][ic][t] (t = kh*KW + kw),
 * 0.0f for the missing channels of a group's last block, so that a (tap, channel) step reads
 * its OB weights contiguously; then per block and kernel row h the tail of the rows h .. KH-1
 * (their fmaf(w, 0.0f, s) in k order from s = -0.0f, per output channel), then the skip flag:
 * 1.0f when every weight is finite, else 0.0f. wp [conv_nhwc_packed_floats(geo)]. */
O2C_KERNEL void conv_nhwc_pack_f32(const int64_t *geo, const float *w, float *wp)
{
    const int64_t G = geo[CONV_NHWC_G], KH = geo[CONV_NHWC_KH], ob = conv_nhwc_ob(geo);
    const int64_t NB = (geo[CONV_NHWC_OCG] + ob - 1) / ob;
    const int64_t rowf = geo[CONV_NHWC_KW] * (geo[CONV_NHWC_C] / G) * ob; /* a kernel row's */
    conv_weight_pack_f32(G, geo[CONV_NHWC_OCG], geo[CONV_NHWC_C] / G, KH * geo[CONV_NHWC_KW], ob, w,
                         wp);
    float finite = 1.0f;
    for (int64_t i = 0; i < G * NB * KH * rowf; i++)
        finite = isfinite(wp[i]) ? finite : 0.0f;
    for (int64_t gb = 0; gb < G * NB; gb++)
        for (int64_t h = 0; h < KH; h++) {
            float *tail = wp + conv_nhwc_tails_at(geo, NB, gb / NB, gb % NB) + h * ob;
            const float *wr = wp + (gb * KH + h) * rowf;
            for (int64_t o = 0; o < ob; o++) {
                float s = -0.0f;
                for (int64_t i = 0; i < (KH - h) * rowf; i += ob)
                    s = fmaf(wr[i + o], 0.0f, s);
                tail[o] = s;
            }
        }
    wp[conv_nhwc_tails_at(geo, NB, G, 0)] = finite;
}

/* Columns of a band plane row: those the last tile of an output row reads. */
static int64_t conv_nhwc_plane_cols(const int64_t *geo)
{
    const int64_t OW = geo[CONV_NHWC_OW], J = conv_nhwc_positions(geo);
    return ((OW + J - 1) / J * J - 1) * geo[CONV_NHWC_SW] +
           (geo[CONV_NHWC_KW] - 1) * geo[CONV_NHWC_DW] + 1;
}

/* Rows of the band plane of R output rows. */
static int64_t conv_nhwc_plane_rows(const int64_t *geo, int64_t R)
{
    return (R - 1) * geo[CONV_NHWC_SH] + (geo[CONV_NHWC_KH] - 1) * geo[CONV_NHWC_DH] + 1;
}

static int64_t conv_nhwc_plane_floats(const int64_t *geo, int64_t R)
{
    return conv_nhwc_plane_rows(geo, R) * conv_nhwc_plane_cols(geo) * geo[CONV_NHWC_C] /
           geo[CONV_NHWC_G];
}

/* A 1x1 kernel without leading pads: its tiles read x itself (no band plane, below). */
static int conv_nhwc_pointwise(const int64_t *geo)
{
    return geo[CONV_NHWC_KH] == 1 && geo[CONV_NHWC_KW] == 1 && geo[CONV_NHWC_PT] == 0 &&
           geo[CONV_NHWC_PL] == 0;
}

/* Output rows per band for a work memory of at most max_floats: what to store in
 * geo[CONV_NHWC_R] (the other entries of geo must be set). The most rows that fit; 0 (no band
 * plane: the tiles read x, padding by their edge copies) when not even one row fits, as under
 * a scratch budget that holds no plane (plan_arena), and for 1x1 kernels without leading pads
 * (strided ones: their plane copied every column and the tiles read every other one; x
 * directly: ResNet-18's and tiny_resnet8's 1.1x-1.3x faster). 65536 floats (256 KiB, conv.c's band
 * budget) keep the plane in L2 while every block of output channels reads it. An NCHW x
 * (geo[CONV_NHWC_XNCHW]) always gets a plane, of one row at least. */
O2C_KERNEL int64_t conv_nhwc_rows(const int64_t *geo, int64_t max_floats)
{
    const int pointwise = conv_nhwc_pointwise(geo);
    if (geo[CONV_NHWC_XNCHW] && conv_nhwc_plane_floats(geo, 1) > max_floats)
        return 1; /* the tiles cannot read an NCHW x: one row, less than x's NHWC copy */
    if (!geo[CONV_NHWC_XNCHW] && (pointwise || conv_nhwc_plane_floats(geo, 1) > max_floats))
        return 0;
    int64_t R = 1;
    while (R < geo[CONV_NHWC_OH] && conv_nhwc_plane_floats(geo, R + 1) <= max_floats)
        R++;
    return R;
}

/* The weight of a group (all its blocks) up to which the tiles run outer and the blocks inner:
 * each tile's positions then leave with all their channels, whose epilogues run on one run
 * (ResNet-18's conv1 with Relu 1.12x faster, SqueezeNet's 1.2x), and the plane's few rows under
 * a tile stay in L1 while the weights come from L2 (1 MiB here: 3x3 128 -> 128 still gained).
 * Larger weights run the blocks outer, so that one block's weights stay in L2 while every tile
 * of the band reads it (all tiles outer: 512 -> 512 channels 4% slower). */
#ifndef CONV_NHWC_TILES_OUTER_BYTES /* (benchmarks/conv_layers.c sets it to compare) */
#define CONV_NHWC_TILES_OUTER_BYTES 1048576
#endif

/* Blocks outer over a band plane, the reduction in chunks of at most CONV_NHWC_KC steps:
 * each chunk of a block's weight (KC x OB floats, 16 KiB) runs over up to CONV_NHWC_KTILES
 * tiles of the band, their sums kept in work memory between chunks (the same chain of fmas, so
 * the same bits), so that it is read from memory once and then from L1, where one tile at a
 * time read a block's whole weight (ResNet-18's 512 -> 512 channels at 7x7: 590 KiB a block,
 * over L2 or DRAM once per output row). 14 tiles: a 14x14 map's band of 14 rows in one group
 * (ResNet-18's 256-channel layers; with groups of 8 the model was 1.02x slower). */
#define CONV_NHWC_KC     128
#define CONV_NHWC_KTILES 14

/* Whether a conv runs the blocks outer (its group's weight over CONV_NHWC_TILES_OUTER_BYTES). */
static int conv_nhwc_blocks_outer(const int64_t *geo)
{
    return conv_nhwc_weight_floats(geo) / geo[CONV_NHWC_G] * (int64_t)sizeof(float) >
           CONV_NHWC_TILES_OUTER_BYTES;
}

/* Floats of the sums that wait between chunks (conv_nhwc_chunked_band_f32): with a band plane
 * and the blocks outer, CONV_NHWC_KTILES tiles of J x OB; else 0. */
static int64_t conv_nhwc_chunk_floats(const int64_t *geo)
{
    return geo[CONV_NHWC_R] > 0 && conv_nhwc_blocks_outer(geo)
               ? CONV_NHWC_KTILES * conv_nhwc_positions(geo) * CONV_NHWC_OB
               : 0;
}

/* Where the chunks' sums start in work memory: after the plane, at a multiple of 16 floats. */
static int64_t conv_nhwc_acc_at(const int64_t *geo)
{
    return (conv_nhwc_plane_floats(geo, geo[CONV_NHWC_R]) + 15) / 16 * 16;
}

/* Floats of conv_nhwc_f32's work memory: the band plane of geo[CONV_NHWC_R] rows,
 * ((R-1)*SH + (KH-1)*DH + 1) * (((OW + 13)/14*14 - 1)*SW + (KW-1)*DW + 1) * C/G at most (an
 * overflow check of that product bounds it), then the chunks' sums (conv_nhwc_chunk_floats);
 * 0 without a plane (R = 0). */
O2C_KERNEL int64_t conv_nhwc_work_floats(const int64_t *geo)
{
    return geo[CONV_NHWC_R] > 0 ? conv_nhwc_acc_at(geo) + conv_nhwc_chunk_floats(geo) : 0;
}

#ifndef O2C_SMALL_CODE
/* Plane row d [W][Cg] (columns lo .. hi-1 of it, the others are padding) from input row ih of
 * channels c0 .. c0+Cg-1 of one NCHW image xn [C][H][W]: each channel plane's row is read
 * once, its floats written Cg apart. */
static void conv_nhwc_gather_f32(const int64_t *geo, const float *xn, int64_t c0, int64_t ih,
                                 int64_t lo, int64_t hi, float *d)
{
    const int64_t H = geo[CONV_NHWC_H], W = geo[CONV_NHWC_W], pl = geo[CONV_NHWC_PL];
    const int64_t Cg = geo[CONV_NHWC_C] / geo[CONV_NHWC_G];
    if (Cg == 3) { /* an RGB input: the three planes interleaved at once, which gcc vectorises */
        const float *restrict s0 = xn + (c0 * H + ih) * W + lo - pl;
        const float *restrict s1 = s0 + H * W, *restrict s2 = s1 + H * W;
        float *restrict dc = d + lo * 3;
        for (int64_t c = 0; c < hi - lo; c++) {
            dc[3 * c] = s0[c];
            dc[3 * c + 1] = s1[c];
            dc[3 * c + 2] = s2[c];
        }
        return;
    }
    for (int64_t ic = 0; ic < Cg; ic++) {
        const float *restrict s = xn + ((c0 + ic) * H + ih) * W + lo - pl;
        float *restrict dc = d + lo * Cg + ic;
        for (int64_t c = 0; c < hi - lo; c++)
            dc[c * Cg] = s[c];
    }
}

/* Copies the band plane of the band of Rb output rows from row oh0, channels c0 .. c0+Cg-1 of
 * one image xn [H][W][C] (or [C][H][W], geo[CONV_NHWC_XNCHW]; see above): the input rows those
 * rows read (conv_pool.c's bands of 2 new rows in a plane of 3 copied the rows of 3). */
static void conv_nhwc_fill_f32(const int64_t *geo, int64_t oh0, int64_t Rb, const float *xn,
                               int64_t c0, float *plane)
{
    const int64_t H = geo[CONV_NHWC_H], W = geo[CONV_NHWC_W], C = geo[CONV_NHWC_C];
    const int64_t Cg = C / geo[CONV_NHWC_G], pl = geo[CONV_NHWC_PL];
    const int64_t Wp = conv_nhwc_plane_cols(geo), rows = conv_nhwc_plane_rows(geo, Rb);
    /* the plane columns c with input column c - pl in [0, W): [lo, hi) */
    const int64_t lo = pl < Wp ? pl : Wp, hi = W + pl < Wp ? W + pl : Wp;
    for (int64_t r = 0; r < rows; r++) {
        const int64_t ih = oh0 * geo[CONV_NHWC_SH] - geo[CONV_NHWC_PT] + r;
        float *d = plane + r * Wp * Cg; /* [Wp][Cg] */
        if (ih < 0 || ih >= H || lo >= hi) {
            memset(d, 0, (size_t)(Wp * Cg) * sizeof(float));
            continue;
        }
        memset(d, 0, (size_t)(lo * Cg) * sizeof(float));
        const float *src = xn + (ih * W + lo - pl) * C + c0;
        if (geo[CONV_NHWC_XNCHW]) {
            conv_nhwc_gather_f32(geo, xn, c0, ih, lo, hi, d);
        } else if (Cg == C) {
            memcpy(d + lo * Cg, src, (size_t)((hi - lo) * Cg) * sizeof(float));
        } else {
            for (int64_t c = lo; c < hi; c++)
                memcpy(d + c * Cg, src + (c - lo) * C, (size_t)Cg * sizeof(float));
        }
        memset(d + hi * Cg, 0, (size_t)((Wp - hi) * Cg) * sizeof(float));
    }
}

/* gcc and clang keep a tile in registers once its J is a constant: the body is inlined into one
 * function per J. gcc would otherwise not vectorise it as a part of its caller; clang would
 * vectorise the J loop with gathers, and at -O2 unrolls it only when told to in full (with
 * `#pragma GCC unroll 16` it stayed rolled, the accumulators in memory: 3.5x slower). */
#if defined(__GNUC__)
#define CONV_NHWC_INLINE   __attribute__((always_inline)) inline
#define CONV_NHWC_NOINLINE __attribute__((noinline))
#else
#define CONV_NHWC_INLINE inline
#define CONV_NHWC_NOINLINE
#endif

/* One line into L2 ahead of its use: the next chunk of weight of conv_nhwc_chunked_band_f32,
 * while the tiles run the current one from L1, which the hardware prefetchers do not fetch
 * (they follow misses, and the chunk then has none). The tiles issue a line or two a step:
 * a tile's lines issued at once before it (as the chunk's loop did) stalled on the cache's
 * fill buffers, 7% of ResNet-18's time. */
static CONV_NHWC_INLINE void conv_nhwc_prefetch_line(const float *p)
{
#if defined(__GNUC__)
    __builtin_prefetch(p, 0, 2);
#else
    (void)p;
#endif
}

/* The store of the nob live channels of one position: v = acc[o] (+ bias[o]), then with a
 * residual r (a leading Add epilogue, conv_epilogue_add) v = r[o] + v (rfirst) or v + r[o],
 * add_f32's expression with the operands in the graph's order, then
 * yr[o] = min(max(v, lo), hi) (clip_f32's expression). No bias is not "+ 0.0f" (that would turn
 * -0.0f into +0.0f). */
static CONV_NHWC_INLINE void conv_nhwc_store_f32(const float *acc, const float *restrict bias,
                                                 const float *restrict r, int rfirst, int64_t nob,
                                                 float lo, float hi, float *restrict yr)
{
    for (int64_t o = 0; o < nob; o++) {
        float v = bias ? acc[o] + bias[o] : acc[o];
        if (r)
            v = rfirst ? r[o] + v : v + r[o];
        const float u = v < lo ? lo : v;
        yr[o] = u > hi ? hi : u;
    }
}

/* Sub-tiles (AVX and AVX2 without AVX-512, below): a tile runs as sub-tiles of at most
 * CONV_NHWC_SUB_FLOATS accumulators and CONV_NHWC_SUB_OB channels: 12 registers of 8 lanes,
 * with a step's 2 weight vectors and 1 broadcast input 15 of the 16. */
#if !(defined(__GNUC__) && defined(__AVX512F__)) && defined(__AVX__)
#define CONV_NHWC_SUB_FLOATS 96
#define CONV_NHWC_SUB_OB     16

/* The OB <= 16 weights of one step of a sub-tile, wr[o] = wv[o], through vector registers that
 * the empty asm pins: gcc 12 otherwise read each weight vector from memory again as an operand
 * of each of its J fmas (3 loads per 2 fmas, the load ports' limit on AMD Zen 3; 2 + J loads
 * now). With 14 accumulators the pinned weights did not fit, hence 12. Same values, same fmas:
 * tiny_resnet8's convs 1.45x, ResNet-18's 1.3x faster (benchmarks/conv_layers.c). */
static CONV_NHWC_INLINE void conv_nhwc_step_weights(int OB, const float *wv, float *wr)
{
#if defined(__GNUC__)
    typedef float V8 __attribute__((vector_size(32)));
    V8 w0, w1;
    memcpy(&w0, wv, sizeof w0);
    if (OB > 8) {
        memcpy(&w1, wv + 8, sizeof w1);
        __asm__("" : "+x"(w0), "+x"(w1));
        memcpy(wr + 8, &w1, sizeof w1);
    } else
        __asm__("" : "+x"(w0));
    memcpy(wr, &w0, sizeof w0);
#else
    memcpy(wr, wv, (size_t)OB * sizeof *wr);
#endif
}
#endif

/* The sum of output channel o of the block at position j of the tile, from xt (the plane at the
 * tile's first position and tap (0, 0)): taps nt x nk (kernel rows x columns, or kernel rows x 1
 * folded), tap (a, b) at xt + a*th + b*tw, each tap Ck steps of consecutive channels, position j
 * at xt + j*xs; wb [nt*nk][Ck][OB]. With `more` the sums go on from acc[j][o] (the same chain
 * of fmas as one call over all the steps), else from +0.0f. Into acc[j][o], or, with yt (a tile
 * whose J positions and OB channels are all live), stored: v = sum (+ bias[o]), then
 * yt[j*ys + o] = min(max(v, lo), hi) in clip_f32's expression (a leading Relu or Clip epilogue,
 * conv_epilogue_clip; -inf, +inf keep every v, NaN and -0.0f included); no bias is not "+ 0.0f"
 * (that would turn -0.0f into +0.0f). pf: pfn lines (at most 2*Ck) that the steps prefetch
 * into L2 (conv_nhwc_prefetch_line; pfn a constant 0 but in the chunked band's tiles, where the
 * test in every step took 3% of a tiles-outer conv's time). bias, yt and acc are restrict (they
 * never overlap), and the accumulators start in two loops, not one choosing per element: else gcc
 * stored a tile with its bias one float at a time, reloading the bias after each store, and
 * zeroed the accumulators through the stack with narrow stores that the vector loads could not
 * forward from (tiny_resnet8's 3 -> 16 channel conv1 1.27x, its 16-channel convs 1.08x faster). */
static CONV_NHWC_INLINE void
conv_nhwc_tile_f32(int J, int H, int OB, int WS, int64_t nt, int64_t nk, int64_t Ck, int64_t th,
                   int64_t tw, int64_t xs, int64_t x2, const float *xt, const float *wb,
                   const float *restrict bias, float *restrict yt, int64_t ys,
                   const float *restrict rt, int rfirst, float lo, float hi, float *restrict acc,
                   int more, const float *pf, int64_t pfn)
{
    float a[CONV_NHWC_JMAX][CONV_NHWC_OB]; /* local, so that it lives in registers */
    if (more)
        for (int j = 0; j < J; j++)
            for (int o = 0; o < OB; o++)
                a[j][o] = acc[j * CONV_NHWC_OB + o];
    else
        for (int j = 0; j < J; j++)
            for (int o = 0; o < OB; o++)
                a[j][o] = 0.0f;
    for (int64_t t = 0; t < nt; t++)
        for (int64_t u = 0; u < nk; u++) {
            const float *xu = xt + t * th + u * tw;
            const float *wu = wb + (t * nk + u) * Ck * WS;
            for (int64_t ic = 0; ic < Ck; ic++) {
                if (ic < pfn) /* pfn lines of pf, up to two a step */
                    conv_nhwc_prefetch_line(pf + ic * 16);
                if (ic + Ck < pfn)
                    conv_nhwc_prefetch_line(pf + (ic + Ck) * 16);
#ifdef CONV_NHWC_SUB_FLOATS
                float wv[CONV_NHWC_SUB_OB];
                conv_nhwc_step_weights(OB, wu + ic * WS, wv);
#else
                const float *restrict wv = wu + ic * WS;
#endif
                const float *restrict xv = xu + ic, *restrict xv2 = xv + x2;
#if defined(__clang__)
#pragma clang loop vectorize(disable) unroll(full)
#else
#pragma GCC unroll 16
#endif
                for (int j = 0; j < J; j++) {
                    const float xj = (j < H ? xv : xv2)[(j < H ? j : j - H) * xs];
                    for (int o = 0; o < OB; o++)
                        a[j][o] = fmaf(wv[o], xj, a[j][o]);
                }
            }
        }
    if (!yt) {
        for (int j = 0; j < J; j++)
            for (int o = 0; o < OB; o++)
                acc[j * CONV_NHWC_OB + o] = a[j][o];
        return;
    }
    if (rt) {
        for (int j = 0; j < J; j++)
            conv_nhwc_store_f32(a[j], bias, rt + j * ys, rfirst, OB, lo, hi, yt + j * ys);
        return;
    }
    /* without a residual the store in a loop of its own (with the residual's test in it,
     * tiny_mobilenetv1_vww's 3 -> 8 channel conv1 was 1.07x slower; now 0.86x) */
    for (int j = 0; j < J; j++) {
        float *restrict yj = yt + j * ys;
        for (int o = 0; o < OB; o++) {
            const float v = bias ? a[j][o] + bias[o] : a[j][o], u = v < lo ? lo : v;
            yj[o] = u > hi ? hi : u;
        }
    }
}

#ifndef CONV_NHWC_SUB_FLOATS /* (AVX2 runs sub-tiles: else unused, which clang warns of) */
/* The array tile with its weight rows of OB floats and sums in acc (NULL: none). */
static CONV_NHWC_INLINE void conv_nhwc_whole_tile_f32(
    int J, int H, int OB, int64_t nt, int64_t nk, int64_t Ck, int64_t th, int64_t tw, int64_t xs,
    int64_t x2, const float *xt, const float *wb, const float *restrict bias, float *restrict yt,
    int64_t ys, const float *restrict rt, int rfirst, float lo, float hi,
    float (*restrict acc)[CONV_NHWC_OB], int more, const float *pf, int64_t pfn)
{
    conv_nhwc_tile_f32(J, H, OB, OB, nt, nk, Ck, th, tw, xs, x2, xt, wb, bias, yt, ys, rt, rfirst,
                       lo, hi, acc ? acc[0] : NULL, more, pf, pfn);
}
#endif

/* ---- The tiles in named vector registers (gcc and clang with AVX-512) ----
 *
 * The same tiles, the same steps and the same fmaf per lane (so the same bits), with each
 * position's accumulators as named variables of 16 lanes (a GNU C vector type: one zmm
 * register each) instead of an array: gcc keeps an array's tile in registers only inside the
 * loop over the steps; it zeroed it through the stack before and stored it there after, for
 * the store to read back, about 220 cycles a tile. With named vectors a tile starts and stores
 * in registers: a tile of 27 steps (a 3-channel 3x3 conv) 1033 -> 847 cycles, of 144 steps
 * 4375 -> 4197 (4032 fmas). The positions are written out by the list macros below, one
 * function per J and vectors per position (OB = 16 or 32), the others on the array tiles. */
#if defined(__GNUC__) && defined(__AVX512F__)
#define CONV_NHWC_VTILES 1
typedef float ConvNhwcV __attribute__((vector_size(64)));

/* clang unrolled the loop over the steps, and spilled the tiles of 8 positions (tiny_resnet8's
 * 32 -> 32 conv 1.5x slower) */
#if defined(__clang__)
#define CONV_NHWC_V_ROLLED _Pragma("clang loop unroll(disable)")
#else
#define CONV_NHWC_V_ROLLED
#endif

static CONV_NHWC_INLINE ConvNhwcV conv_nhwc_vzero(void)
{
    ConvNhwcV r;
    for (int l = 0; l < 16; l++)
        r[l] = 0.0f;
    return r;
}

static CONV_NHWC_INLINE ConvNhwcV conv_nhwc_vload(const float *p)
{
    ConvNhwcV r;
    memcpy(&r, p, sizeof r);
    return r;
}

static CONV_NHWC_INLINE ConvNhwcV conv_nhwc_vfma(ConvNhwcV w, float x, ConvNhwcV a)
{
    for (int l = 0; l < 16; l++)
        a[l] = fmaf(w[l], x, a[l]);
    return a;
}

/* conv_nhwc_store_f32 of 16 lanes, from bias + bo and r + ro (NULL or not: offsets, not
 * pointers made from NULL; clip_hi a constant where inlined) */
static CONV_NHWC_INLINE void conv_nhwc_vput(ConvNhwcV a, const float *restrict bias, int64_t bo,
                                            const float *restrict r, int64_t ro, int rfirst,
                                            float lo, float hi, int clip_hi, float *restrict y)
{
    for (int l = 0; l < 16; l++) {
        float v = bias ? a[l] + bias[bo + l] : a[l];
        if (r)
            v = rfirst ? r[ro + l] + v : v + r[ro + l];
        const float u = v < lo ? lo : v;
        y[l] = clip_hi && u > hi ? hi : u;
    }
}

#define CONV_NHWC_J5(M)  M(0) M(1) M(2) M(3) M(4)
#define CONV_NHWC_J7(M)  CONV_NHWC_J5(M) M(5) M(6)
#define CONV_NHWC_J8(M)  CONV_NHWC_J7(M) M(7)
#define CONV_NHWC_J13(M) CONV_NHWC_J8(M) M(8) M(9) M(10) M(11) M(12)
#define CONV_NHWC_J14(M) CONV_NHWC_J13(M) M(13)
#define CONV_NHWC_J16(M) CONV_NHWC_J14(M) M(14) M(15)

/* Per position j: its accumulators (from acc with `more`, else +0.0f), one step (input xj of
 * the first H positions at xv, of the others at xv2), their sums into acc, their store at yt
 * with the bias B, residual R and clip (CH: with the min) of the enclosing block. */
#define CONV_NHWC_V1_INIT(j) ConvNhwcV a##j##_0 = more ? conv_nhwc_vload(acc[j]) : z;
#define CONV_NHWC_V2_INIT(j)                                                                       \
    ConvNhwcV a##j##_0 = more ? conv_nhwc_vload(acc[j]) : z,                                       \
              a##j##_1 = more ? conv_nhwc_vload(acc[j] + 16) : z;
#define CONV_NHWC_V_X(j)     ((j) < H ? xv : xv2)[((j) < H ? (j) : (j)-H) * xs]
#define CONV_NHWC_V1_STEP(j) a##j##_0 = conv_nhwc_vfma(w0, CONV_NHWC_V_X(j), a##j##_0);
#define CONV_NHWC_V2_STEP(j)                                                                       \
    {                                                                                              \
        const float x##j = CONV_NHWC_V_X(j);                                                       \
        a##j##_0 = conv_nhwc_vfma(w0, x##j, a##j##_0);                                             \
        a##j##_1 = conv_nhwc_vfma(w1, x##j, a##j##_1);                                             \
    }
#define CONV_NHWC_V1_SAVE(j) memcpy(acc[j], &a##j##_0, sizeof(ConvNhwcV));
#define CONV_NHWC_V2_SAVE(j)                                                                       \
    memcpy(acc[j], &a##j##_0, sizeof(ConvNhwcV));                                                  \
    memcpy(acc[j] + 16, &a##j##_1, sizeof(ConvNhwcV));
#define CONV_NHWC_V1_PUT(j)                                                                        \
    conv_nhwc_vput(a##j##_0, B, 0, R, (j)*ys, rfirst, lo, hi, CH, yt + (j)*ys);
#define CONV_NHWC_V2_PUT(j)                                                                        \
    CONV_NHWC_V1_PUT(j)                                                                            \
    conv_nhwc_vput(a##j##_1, B, 16, R, (j)*ys + 16, rfirst, lo, hi, CH, yt + (j)*ys + 16);

/* The store of a tile, each form of it with its bias, residual and clip known (B, R, CH). */
#define CONV_NHWC_V_PUTS_B(PUT, FORJ)                                                              \
    if (bias) {                                                                                    \
        const float *const B = bias;                                                               \
        FORJ(PUT)                                                                                  \
    } else {                                                                                       \
        const float *const B = NULL;                                                               \
        FORJ(PUT)                                                                                  \
    }
#define CONV_NHWC_V_PUTS(PUT, FORJ)                                                                \
    if (rt) {                                                                                      \
        const float *const R = rt;                                                                 \
        const int CH = 1;                                                                          \
        CONV_NHWC_V_PUTS_B(PUT, FORJ)                                                              \
    } else if (hi == INFINITY) { /* a Relu or none: the min keeps every value */                   \
        const float *const R = NULL;                                                               \
        const int CH = 0;                                                                          \
        CONV_NHWC_V_PUTS_B(PUT, FORJ)                                                              \
    } else {                                                                                       \
        const float *const R = NULL;                                                               \
        const int CH = 1;                                                                          \
        CONV_NHWC_V_PUTS_B(PUT, FORJ)                                                              \
    }

/* A vector tile of FORJ's positions and NV = 1 or 2 vectors per position (OB = 16 NV):
 * conv_nhwc_tile_f32's arguments but J and OB, H a constant. */
#define CONV_NHWC_VTILE_FN(name, FORJ, NV)                                                         \
    static CONV_NHWC_INLINE void name(                                                             \
        int H, int64_t nt, int64_t nk, int64_t Ck, int64_t th, int64_t tw, int64_t xs, int64_t x2, \
        const float *xt, const float *wb, const float *restrict bias, float *restrict yt,          \
        int64_t ys, const float *restrict rt, int rfirst, float lo, float hi,                      \
        float(*restrict acc)[CONV_NHWC_OB], int more, const float *pf, int64_t pfn)                \
    {                                                                                              \
        const ConvNhwcV z = conv_nhwc_vzero();                                                     \
        FORJ(CONV_NHWC_V##NV##_INIT)                                                               \
        for (int64_t t = 0; t < nt; t++)                                                           \
            for (int64_t u = 0; u < nk; u++) {                                                     \
                const float *xu = xt + t * th + u * tw;                                            \
                const float *wu = wb + (t * nk + u) * Ck * 16 * NV;                                \
                CONV_NHWC_V_ROLLED                                                                 \
                for (int64_t ic = 0; ic < Ck; ic++) {                                              \
                    if (ic < pfn)                                                                  \
                        conv_nhwc_prefetch_line(pf + ic * 16);                                     \
                    if (ic + Ck < pfn)                                                             \
                        conv_nhwc_prefetch_line(pf + (ic + Ck) * 16);                              \
                    const ConvNhwcV w0 = conv_nhwc_vload(wu + ic * 16 * NV);                       \
                    const ConvNhwcV w1 = conv_nhwc_vload(wu + ic * 16 * NV + 16 * (NV - 1));       \
                    const float *restrict xv = xu + ic, *restrict xv2 = xv + x2;                   \
                    (void)w1;                                                                      \
                    FORJ(CONV_NHWC_V##NV##_STEP)                                                   \
                }                                                                                  \
            }                                                                                      \
        if (!yt) {                                                                                 \
            FORJ(CONV_NHWC_V##NV##_SAVE)                                                           \
            return;                                                                                \
        }                                                                                          \
        CONV_NHWC_V_PUTS(CONV_NHWC_V##NV##_PUT, FORJ)                                              \
    }
CONV_NHWC_VTILE_FN(conv_nhwc_vtile5x2, CONV_NHWC_J5, 2)
CONV_NHWC_VTILE_FN(conv_nhwc_vtile7x2, CONV_NHWC_J7, 2)
CONV_NHWC_VTILE_FN(conv_nhwc_vtile8x2, CONV_NHWC_J8, 2)
CONV_NHWC_VTILE_FN(conv_nhwc_vtile13x2, CONV_NHWC_J13, 2)
CONV_NHWC_VTILE_FN(conv_nhwc_vtile14x2, CONV_NHWC_J14, 2)
CONV_NHWC_VTILE_FN(conv_nhwc_vtile7x1, CONV_NHWC_J7, 1)
CONV_NHWC_VTILE_FN(conv_nhwc_vtile8x1, CONV_NHWC_J8, 1)
CONV_NHWC_VTILE_FN(conv_nhwc_vtile14x1, CONV_NHWC_J14, 1)
CONV_NHWC_VTILE_FN(conv_nhwc_vtile16x1, CONV_NHWC_J16, 1)
/* a tile of J positions and OB channels: the vector tile VT (H, then the array tile's
 * arguments after J, H and OB) */
#define CONV_NHWC_TILE(J, H, OB, VT, ...) VT(H, __VA_ARGS__)
#define CONV_NHWC_ARRAY_TILE              conv_nhwc_whole_tile_f32
#else
/* ---- Sub-tiles (AVX and AVX2 without AVX-512) ----
 *
 * With 16 vector registers of 8 lanes a tile of J positions x OB channels has more
 * accumulators than registers (7 x 32: 28), and gcc kept them on the stack: ResNet-18's convs
 * ran at 43% of the FMA peak of an AVX2 machine (AMD Zen 3), 75% as sub-tiles. A tile runs as
 * sub-tiles of at most CONV_NHWC_SUB_FLOATS accumulators: channel halves of 16, each in
 * balanced sub-tiles of JS positions (16 as 6 + 6 + 4: 4 + 4 + 4 + 4 left tiny_resnet8's
 * 16-channel convs 1.3x slower; 14 as 5 + 5 + 4, 7 as 4 + 3, so that a step's weights stay in
 * registers, conv_nhwc_step_weights), each the same steps in the same order on its part of the
 * tile (the same bits), reading the tile's inputs again from L1. A sub-tile's positions lie in
 * one of the tile's two runs (the first H, from xt, and the others, from xt + x2; one run where
 * x2 = H*xs). Other targets without AVX-512 run the whole tile (NEON's 32 registers of 4 lanes
 * would want sub-tiles too: not measured). */
#ifdef CONV_NHWC_SUB_FLOATS /* AVX or AVX2 (above) */

/* Positions p .. p+n-1 of the tile, one run from xb, in up to 4 sub-tiles of JS positions
 * (calls under constant tests, not a loop: gcc unrolls the tiles' loops only where their
 * bounds are constants when it inlines them). */
static CONV_NHWC_INLINE void
conv_nhwc_sub_run_f32(int n, int p, int JS, int o0, int OS, int OB, int64_t nt, int64_t nk,
                      int64_t Ck, int64_t th, int64_t tw, int64_t xs, const float *xb,
                      const float *wb, const float *restrict bias, float *restrict yt, int64_t ys,
                      const float *restrict rt, int rfirst, float lo, float hi,
                      float (*restrict acc)[CONV_NHWC_OB], int more, const float *pf, int64_t pfn)
{
    /* sub-tile k: positions p + k JS .. (at most JS), channels o0 .. o0 + OS - 1; the
     * prefetches in the tile's first sub-tile */
#define CONV_NHWC_SUB(k)                                                                           \
    if (n > (k)*JS) {                                                                              \
        const int64_t at = (p + (k)*JS) * ys + o0;                                                 \
        conv_nhwc_tile_f32(n - (k)*JS < JS ? n - (k)*JS : JS, CONV_NHWC_JMAX, OS, OB, nt, nk, Ck,  \
                           th, tw, xs, 0, xb + (k)*JS * xs, wb + o0, bias ? bias + o0 : NULL,      \
                           yt ? yt + at : NULL, ys, rt ? rt + at : NULL, rfirst, lo, hi,           \
                           acc ? acc[p + (k)*JS] + o0 : NULL, more, pf,                            \
                           o0 == 0 && p + (k)*JS == 0 ? pfn : 0);                                  \
    }
    CONV_NHWC_SUB(0) CONV_NHWC_SUB(1) CONV_NHWC_SUB(2) CONV_NHWC_SUB(3)
#undef CONV_NHWC_SUB
}

/* conv_nhwc_tile_f32's tile (J, H and OB constants) as sub-tiles: one run of positions where
 * x2 = H*xs, else the first H positions and the others apart. */
static CONV_NHWC_INLINE void
conv_nhwc_sub_tiles_f32(int J, int H, int OB, int64_t nt, int64_t nk, int64_t Ck, int64_t th,
                        int64_t tw, int64_t xs, int64_t x2, const float *xt, const float *wb,
                        const float *restrict bias, float *restrict yt, int64_t ys,
                        const float *restrict rt, int rfirst, float lo, float hi,
                        float (*restrict acc)[CONV_NHWC_OB], int more, const float *pf, int64_t pfn)
{
    /* (expressions, not a loop: constants that gcc folds before it unrolls the tiles) */
    const int OS = OB < CONV_NHWC_SUB_OB ? OB : CONV_NHWC_SUB_OB;
    const int runs = (J * OS + CONV_NHWC_SUB_FLOATS - 1) / CONV_NHWC_SUB_FLOATS;
    const int JS = (J + runs - 1) / runs;        /* balanced: 16 as 6 + 6 + 4 */
    const int one = H >= J || x2 == H * xs;      /* one run of positions */
#define CONV_NHWC_SUB_HALF(o0)                                                                     \
    if ((o0) < OB && one)                                                                          \
        conv_nhwc_sub_run_f32(J, 0, JS, o0, OS, OB, nt, nk, Ck, th, tw, xs, xt, wb, bias, yt, ys,  \
                              rt, rfirst, lo, hi, acc, more, pf, pfn);                             \
    else if ((o0) < OB) {                                                                          \
        conv_nhwc_sub_run_f32(H, 0, JS, o0, OS, OB, nt, nk, Ck, th, tw, xs, xt, wb, bias, yt, ys,  \
                              rt, rfirst, lo, hi, acc, more, pf, pfn);                             \
        conv_nhwc_sub_run_f32(J - H, H, JS, o0, OS, OB, nt, nk, Ck, th, tw, xs, xt + x2, wb, bias, \
                              yt, ys, rt, rfirst, lo, hi, acc, more, pf, pfn);                     \
    }
    CONV_NHWC_SUB_HALF(0) CONV_NHWC_SUB_HALF(OS) /* the channel halves, or one */
#undef CONV_NHWC_SUB_HALF
}
#define CONV_NHWC_ARRAY_TILE conv_nhwc_sub_tiles_f32
#else
#define CONV_NHWC_ARRAY_TILE conv_nhwc_whole_tile_f32 /* (other targets: not measured split) */
#endif
#define CONV_NHWC_TILE(J, H, OB, VT, ...) CONV_NHWC_ARRAY_TILE(J, H, OB, __VA_ARGS__)
#endif

/* One tile function per J and OB (conv_nhwc_tile_f32's arguments after those two). */
#define CONV_NHWC_TILE_FN(name, J, OB, VT)                                                         \
    static CONV_NHWC_NOINLINE void name(                                                           \
        int64_t nt, int64_t nk, int64_t Ck, int64_t th, int64_t tw, int64_t xs, const float *xt,   \
        const float *wb, const float *bias, float *yt, int64_t ys, const float *rt, int rfirst,    \
        float lo, float hi, float acc[][CONV_NHWC_OB], int more)                                   \
    {                                                                                              \
        CONV_NHWC_TILE(J, 8, OB, VT, nt, nk, Ck, th, tw, xs, 8 * xs, xt, wb, bias, yt, ys, rt,     \
                       rfirst, lo, hi, acc, more, NULL, 0);                                        \
    }
CONV_NHWC_TILE_FN(conv_nhwc_tile5_f32, 5, 32, conv_nhwc_vtile5x2)
CONV_NHWC_TILE_FN(conv_nhwc_tile7_f32, 7, 32, conv_nhwc_vtile7x2)
CONV_NHWC_TILE_FN(conv_nhwc_tile8_f32, 8, 32, conv_nhwc_vtile8x2)
CONV_NHWC_TILE_FN(conv_nhwc_tile14_f32, 14, 32, conv_nhwc_vtile14x2)
#ifdef CONV_NHWC_VTILES /* (26 accumulators: only in 32 registers, conv_nhwc_split) */
CONV_NHWC_TILE_FN(conv_nhwc_tile13_f32, 13, 32, conv_nhwc_vtile13x2)
#endif
CONV_NHWC_TILE_FN(conv_nhwc_tile7x16_f32, 7, 16, conv_nhwc_vtile7x1)
CONV_NHWC_TILE_FN(conv_nhwc_tile8x16_f32, 8, 16, conv_nhwc_vtile8x1)
CONV_NHWC_TILE_FN(conv_nhwc_tile14x16_f32, 14, 16, conv_nhwc_vtile14x1)
CONV_NHWC_TILE_FN(conv_nhwc_tile16x16_f32, 16, 16, conv_nhwc_vtile16x1)
/* (8 channels: the array tile, whose 16 accumulators of 8 lanes fit the registers) */
static CONV_NHWC_NOINLINE void conv_nhwc_tile16x8_f32(int64_t nt, int64_t nk, int64_t Ck,
                                                      int64_t th, int64_t tw, int64_t xs,
                                                      const float *xt, const float *wb,
                                                      const float *bias, float *yt, int64_t ys,
                                                      const float *rt, int rfirst, float lo,
                                                      float hi, float acc[][CONV_NHWC_OB], int more)
{
    CONV_NHWC_ARRAY_TILE(16, 8, 8, nt, nk, Ck, th, tw, xs, 8 * xs, xt, wb, bias, yt, ys, rt, rfirst,
                         lo, hi, acc, more, NULL, 0);
}

/* The tiles of conv_nhwc_chunked_band_f32 with 32-channel blocks: one tap of Ck steps, which
 * prefetches pfn lines of pf (the group's next chunk of weight). J = 7, 8 or 14 positions of
 * one row; or two output rows of 7 as one tile of 14 positions (conv_nhwc_tile7r2_f32, OW = 7:
 * ResNet-18's 512-channel layers), the second row's inputs x2 floats after the first's: twice
 * the fmas per weight a 7-position tile loads, the 28 accumulators of a 14-position tile. The
 * rows' outputs are one run of 14 positions (a row of 7 is the whole output row). */
#define CONV_NHWC_CHUNK_TILE_FN(name, J, H, VT)                                                    \
    static CONV_NHWC_NOINLINE void name(                                                           \
        int64_t Ck, int64_t xs, int64_t x2, const float *xt, const float *wb, const float *bias,   \
        float *yt, int64_t ys, const float *rt, int rfirst, float lo, float hi,                    \
        float acc[][CONV_NHWC_OB], int more, const float *pf, int64_t pfn)                         \
    {                                                                                              \
        CONV_NHWC_TILE(J, H, 32, VT, 1, 1, Ck, 0, 0, xs, x2, xt, wb, bias, yt, ys, rt, rfirst, lo, \
                       hi, acc, more, pf, pfn);                                                    \
    }
CONV_NHWC_CHUNK_TILE_FN(conv_nhwc_chunk7_f32, 7, 8, conv_nhwc_vtile7x2)
CONV_NHWC_CHUNK_TILE_FN(conv_nhwc_chunk8_f32, 8, 8, conv_nhwc_vtile8x2)
CONV_NHWC_CHUNK_TILE_FN(conv_nhwc_chunk14_f32, 14, 8, conv_nhwc_vtile14x2)
CONV_NHWC_CHUNK_TILE_FN(conv_nhwc_tile7r2_f32, 14, 7, conv_nhwc_vtile14x2)

/* The geometry of conv_nhwc_f32's loops, from geo. */
typedef struct ConvNhwcLoop {
    int64_t Cg, OC, ys, ob, NB, J, rs, nk, Ck, th, tw, xs, wfloats; /* ys: y's position stride */
    float lo, hi;     /* the stores' clip: a leading Relu or Clip epilogue, or -inf, +inf */
    const float *res; /* the stores' Add: its other operand (element `at` for y's; dense y
                       * only), or NULL */
    int rfirst;       /* its Add's order (ConvEpilogue's r_first) */
    const float *y;   /* the output buffer: element y0 of the output, whose offsets res's are */
    int64_t y0; /* the output's element at y[0] (a row range's first row: conv_nhwc_rows_f32) */
    const float *tails; /* the packed weight's padding tails, or NULL: no row skipped */
} ConvNhwcLoop;

/* The kernel rows [*h0, *h1) that output row oh runs: those whose input rows lie inside the
 * image where L skips the others ("Kernel rows in the padding"), else all; all as well where
 * every row is padding (rare: pads of a kernel's size). */
static void conv_nhwc_live_rows(const int64_t *geo, const ConvNhwcLoop *L, int64_t oh, int64_t *h0,
                                int64_t *h1)
{
    const int64_t KH = geo[CONV_NHWC_KH], DH = geo[CONV_NHWC_DH];
    const int64_t ih = oh * geo[CONV_NHWC_SH] - geo[CONV_NHWC_PT]; /* kernel row 0's input row */
    int64_t a = 0, e = KH;
    if (L->tails) {
        while (a < KH && ih + a * DH < 0)
            a++;
        while (e > a && ih + (e - 1) * DH >= geo[CONV_NHWC_H])
            e--;
    }
    *h0 = a < e ? a : 0;
    *h1 = a < e ? e : KH;
}

/* acc[j][o] + the tail of kernel rows h1 .. KH-1 of (group g, block b), for the live
 * positions j of a tile that skipped those rows. */
static void conv_nhwc_add_tail(const int64_t *geo, const ConvNhwcLoop *L, int64_t g, int64_t b,
                               int64_t h1, int64_t live, float acc[][CONV_NHWC_OB])
{
    const float *tail = L->tails + ((g * L->NB + b) * geo[CONV_NHWC_KH] + h1) * L->ob;
    for (int64_t j = 0; j < live; j++)
        for (int64_t o = 0; o < L->ob; o++)
            acc[j][o] = acc[j][o] + tail[o];
}

/* The first position of the tile at c0 of a row: c0, or for a last tile that the row's OW - c0
 * positions do not fill, OW - J where OW >= J. Its first positions are then computed again,
 * the same fmas in the same order, and stored again (with their epilogues, on the values the
 * tile stores), so that it runs as a whole tile stored from its registers instead of through
 * its sums in memory (SqueezeNet's 55- and 27-position rows, 3 x 14 + 13 and 14 + 13). Safe
 * because y overlaps no epilogue's operand (conv_nhwc_f32): storing a position again reads
 * the same residual. */
static int64_t conv_nhwc_tile_start(const ConvNhwcLoop *L, int64_t OW, int64_t c0)
{
    return c0 + L->J > OW && OW >= L->J ? OW - L->J : c0;
}

/* The residual a tile stored at yt adds (L's Add epilogue, indexed as y), or NULL. */
static const float *conv_nhwc_tile_residual(const ConvNhwcLoop *L, const float *yt)
{
    return yt && L->res ? L->res + L->y0 + (yt - L->y) : NULL;
}

/* The tile function of a block width ob and J positions (each has conv_nhwc_tile_f32's
 * arguments after J and OB). */
typedef void (*ConvNhwcTileFn)(int64_t nt, int64_t nk, int64_t Ck, int64_t th, int64_t tw,
                               int64_t xs, const float *xt, const float *wb, const float *bias,
                               float *yt, int64_t ys, const float *rt, int rfirst, float lo,
                               float hi, float acc[][CONV_NHWC_OB], int more);

static ConvNhwcTileFn conv_nhwc_tile_fn(int64_t ob, int64_t J)
{
    if (ob == 8)
        return conv_nhwc_tile16x8_f32;
    if (ob == 16)
        return J == 7    ? conv_nhwc_tile7x16_f32
               : J == 8  ? conv_nhwc_tile8x16_f32
               : J == 16 ? conv_nhwc_tile16x16_f32
                         : conv_nhwc_tile14x16_f32;
#ifdef CONV_NHWC_VTILES
    if (J == 13)
        return conv_nhwc_tile13_f32;
#endif
    return J == 5   ? conv_nhwc_tile5_f32
           : J == 7 ? conv_nhwc_tile7_f32
           : J == 8 ? conv_nhwc_tile8_f32
                    : conv_nhwc_tile14_f32;
}

/* One tile of L's block width and positions (the arguments of conv_nhwc_tile_f32). */
static void conv_nhwc_run_tile_f32(const ConvNhwcLoop *L, int64_t nt, int64_t nk, int64_t Ck,
                                   int64_t th, int64_t tw, int64_t xs, const float *xt,
                                   const float *wb, const float *bb, float *yt, int64_t ys,
                                   float acc[][CONV_NHWC_OB], int more)
{
    conv_nhwc_tile_fn(L->ob, L->J)(nt, nk, Ck, th, tw, xs, xt, wb, bb, yt, ys,
                                   conv_nhwc_tile_residual(L, yt), L->rfirst, L->lo, L->hi, acc,
                                   more);
}

/* An edge tile's stack copies (conv_nhwc_edge_f32): all the input it reads, rows x cols x Cg
 * floats, or one kernel row of it, cols x Cg, where that is at most CONV_NHWC_EDGE_FLOATS
 * (8 KiB: a 3x3 kernel's whole input up to 64 channels per group at 8 positions), else one
 * tap's J inputs in runs of at most CONV_NHWC_EDGE_CH channels. */
#define CONV_NHWC_EDGE_FLOATS 2048
#define CONV_NHWC_EDGE_CH     64

/* buf [rows][cols][Cg] = the group's input rows ih0 + t*DH, columns iw0 + c of one image xg
 * (t < rows, c < cols), 0.0f outside the image. */
static void conv_nhwc_edge_copy_f32(const int64_t *geo, const float *xg, int64_t Cg, int64_t ih0,
                                    int64_t rows, int64_t iw0, int64_t cols, float *buf)
{
    const int64_t H = geo[CONV_NHWC_H], W = geo[CONV_NHWC_W], C = geo[CONV_NHWC_C];
    /* the columns c with input column iw0 + c in [0, W): [lo, hi) */
    const int64_t lo = iw0 < 0 ? (-iw0 < cols ? -iw0 : cols) : 0;
    const int64_t hi = W - iw0 < cols ? (W - iw0 > lo ? W - iw0 : lo) : cols;
    for (int64_t t = 0; t < rows; t++) {
        const int64_t ih = ih0 + t * geo[CONV_NHWC_DH];
        float *d = buf + t * cols * Cg; /* [cols][Cg] */
        if (ih < 0 || ih >= H) {
            memset(d, 0, (size_t)(cols * Cg) * sizeof(float));
            continue;
        }
        memset(d, 0, (size_t)(lo * Cg) * sizeof(float));
        const float *src = xg + (ih * W + iw0 + lo) * C;
        if (Cg == C) /* one group: the row's columns are one run (one memcpy, not one each) */
            memcpy(d + lo * Cg, src, (size_t)((hi - lo) * Cg) * sizeof(float));
        else
            for (int64_t c = lo; c < hi; c++)
                memcpy(d + c * Cg, src + (c - lo) * C, (size_t)Cg * sizeof(float));
        memset(d + hi * Cg, 0, (size_t)((cols - hi) * Cg) * sizeof(float));
    }
}

/* The sums of a tile without a band plane whose taps reach into the padding, into acc, in k
 * order, from a stack copy of its input with 0.0f in the padding (so padded taps count as
 * fmaf(w, 0.0f, acc), as in the plane): all of it, as a plane of KH rows, in one tile; where
 * that is too large for the stack kernel row by kernel row, a row whose inputs are all inside
 * straight from x, the others copied (a kernel row one tap of KW*Cg channels where DW = 1, as
 * in the plane), or tap by tap in runs of channels. xg: x of one image at the group's first
 * channel; (oh, c0): the tile's output row and first column; wb: the block's packed weight. */
static void conv_nhwc_edge_f32(const int64_t *geo, const ConvNhwcLoop *L, const float *xg,
                               int64_t oh, int64_t c0, const float *wb, float acc[][CONV_NHWC_OB])
{
    const int64_t H = geo[CONV_NHWC_H], W = geo[CONV_NHWC_W], C = geo[CONV_NHWC_C];
    const int64_t KH = geo[CONV_NHWC_KH], KW = geo[CONV_NHWC_KW], sw = geo[CONV_NHWC_SW];
    const int64_t dw = geo[CONV_NHWC_DW], Cg = L->Cg, J = L->J;
    const int64_t iw0 = c0 * sw - geo[CONV_NHWC_PL], cols = (J - 1) * sw + (KW - 1) * dw + 1;
    const int64_t rowf = KW * Cg * L->ob; /* packed weight floats of a kernel row */
    const int64_t ih0 = oh * geo[CONV_NHWC_SH] - geo[CONV_NHWC_PT];
    const int fold = dw == 1; /* in a copy a kernel row's KW*Cg inputs are consecutive */
    float buf[CONV_NHWC_EDGE_FLOATS > CONV_NHWC_JMAX * CONV_NHWC_EDGE_CH
                  ? CONV_NHWC_EDGE_FLOATS
                  : CONV_NHWC_JMAX * CONV_NHWC_EDGE_CH];
    if (KH * cols * Cg <= CONV_NHWC_EDGE_FLOATS) {
        conv_nhwc_edge_copy_f32(geo, xg, Cg, ih0, KH, iw0, cols, buf);
        conv_nhwc_run_tile_f32(L, KH, fold ? 1 : KW, fold ? KW * Cg : Cg, cols * Cg, dw * Cg,
                               sw * Cg, buf, wb, NULL, NULL, 0, acc, 0);
        return;
    }
    int more = 0;
    for (int64_t t = 0; t < KH; t++) {
        const int64_t ih = oh * geo[CONV_NHWC_SH] - geo[CONV_NHWC_PT] + t * geo[CONV_NHWC_DH];
        const int row_in = ih >= 0 && ih < H;
        const float *xr = row_in ? xg + ih * W * C : NULL; /* the input row */
        if (row_in && iw0 >= 0 && iw0 + cols <= W) {
            conv_nhwc_run_tile_f32(L, 1, L->nk, L->Ck, 0, L->tw, L->xs, xr + iw0 * C, wb + t * rowf,
                                   NULL, NULL, 0, acc, more);
            more = 1;
            continue;
        }
        if (cols * Cg <= CONV_NHWC_EDGE_FLOATS) {
            conv_nhwc_edge_copy_f32(geo, xg, Cg, ih, 1, iw0, cols, buf);
            conv_nhwc_run_tile_f32(L, 1, fold ? 1 : KW, fold ? KW * Cg : Cg, 0, dw * Cg, sw * Cg,
                                   buf, wb + t * rowf, NULL, NULL, 0, acc, more);
            more = 1;
            continue;
        }
        for (int64_t u = 0; u < KW; u++) {
            const int64_t iu = iw0 + u * dw;
            const float *wt = wb + t * rowf + u * Cg * L->ob;
            if (row_in && iu >= 0 && iu + (J - 1) * sw < W) {
                conv_nhwc_run_tile_f32(L, 1, 1, Cg, 0, 0, sw * C, xr + iu * C, wt, NULL, NULL, 0,
                                       acc, more);
                more = 1;
                continue;
            }
            for (int64_t c = 0; c < Cg; c += CONV_NHWC_EDGE_CH) {
                const int64_t nch = Cg - c < CONV_NHWC_EDGE_CH ? Cg - c : CONV_NHWC_EDGE_CH;
                for (int64_t j = 0; j < J; j++) {
                    const int64_t iw = iu + j * sw;
                    float *d = buf + j * nch;
                    if (row_in && iw >= 0 && iw < W)
                        memcpy(d, xr + iw * C + c, (size_t)nch * sizeof(float));
                    else
                        memset(d, 0, (size_t)nch * sizeof(float));
                }
                conv_nhwc_run_tile_f32(L, 1, 1, nch, 0, 0, nch, buf, wt + c * L->ob, NULL, NULL, 0,
                                       acc, more);
                more = 1;
            }
        }
    }
}

/* The end of a tile at output element `at` (live positions, nob channels): unless the tile
 * stored itself (stored), its sums acc stored with the bias bb and the residual; then the
 * epilogues on each position's run of channels unless `later` (the caller runs them). */
static void conv_nhwc_finish_f32(const ConvNhwcLoop *L, const struct ConvEpilogue *ep, int nep,
                                 int later, float acc[][CONV_NHWC_OB], int stored, const float *bb,
                                 int64_t at, int64_t live, int64_t nob, float *y)
{
    for (int64_t j = 0; j < live; j++) {
        if (!stored)
            conv_nhwc_store_f32(acc[j], bb, L->res ? L->res + at + j * L->ys : NULL, L->rfirst, nob,
                                L->lo, L->hi, y + (at - L->y0) + j * L->ys);
        if (nep && !later)
            conv_epilogue_f32(ep, nep, at + j * L->ys, nob, y + (at - L->y0) + j * L->ys);
    }
}

/* Tile (r, c0) of block b of a band from output row oh0 of image n, group g: its sums, stored
 * with the bias, then the epilogues on each position's run of channels unless `later` (the
 * caller applies them to the tile's positions at once). With a band plane the tile reads
 * `plane`; without one (geo[CONV_NHWC_R] = 0, r = 0) it reads x: straight where all its taps
 * are inside, else through conv_nhwc_edge_f32. */
static void conv_nhwc_block_tile_f32(const int64_t *geo, const ConvNhwcLoop *L, const float *plane,
                                     const float *x, const float *wp, const float *bias,
                                     const struct ConvEpilogue *ep, int nep, int later, int64_t n,
                                     int64_t g, int64_t oh0, int64_t b, int64_t r, int64_t c0,
                                     float *y)
{
    const int64_t OCg = geo[CONV_NHWC_OCG], OW = geo[CONV_NHWC_OW], KH = geo[CONV_NHWC_KH];
    const int64_t ob = L->ob, oc0 = g * OCg + b * ob, J = L->J;
    const int64_t nob = OCg - b * ob < ob ? OCg - b * ob : ob;
    const int64_t live = OW - c0 < J ? OW - c0 : J;
    const float *wb = wp + (g * L->NB + b) * L->wfloats, *bb = bias ? bias + oc0 : NULL;
    const int64_t at = ((n * geo[CONV_NHWC_OH] + oh0 + r) * OW + c0) * L->ys + oc0;
    float *yt = live == J && nob == ob ? y + (at - L->y0) : NULL;
    float acc[CONV_NHWC_JMAX][CONV_NHWC_OB];
    if (!plane) {
        const int64_t H = geo[CONV_NHWC_H], W = geo[CONV_NHWC_W], C = geo[CONV_NHWC_C];
        const int64_t ih = oh0 * geo[CONV_NHWC_SH] - geo[CONV_NHWC_PT];
        const int64_t iw = c0 * geo[CONV_NHWC_SW] - geo[CONV_NHWC_PL];
        const float *xg = x + n * H * W * C + g * L->Cg;
        if (ih < 0 || ih + (KH - 1) * geo[CONV_NHWC_DH] >= H || iw < 0 ||
            iw + (J - 1) * geo[CONV_NHWC_SW] + (geo[CONV_NHWC_KW] - 1) * geo[CONV_NHWC_DW] >= W) {
            conv_nhwc_edge_f32(geo, L, xg, oh0, c0, wb, acc);
            yt = NULL;
        } else {
            conv_nhwc_run_tile_f32(L, KH, L->nk, L->Ck, L->th, L->tw, L->xs, xg + (ih * W + iw) * C,
                                   wb, bb, yt, L->ys, acc, 0);
        }
    } else {
        int64_t h0, h1;
        conv_nhwc_live_rows(geo, L, oh0 + r, &h0, &h1);
        const float *xt = plane + r * geo[CONV_NHWC_SH] * L->rs + c0 * L->xs + h0 * L->th;
        yt = h1 == KH ? yt : NULL; /* the tail goes into the sums before they are stored */
        conv_nhwc_run_tile_f32(L, h1 - h0, L->nk, L->Ck, L->th, L->tw, L->xs, xt,
                               wb + h0 * L->nk * L->Ck * ob, bb, yt, L->ys, acc, 0);
        if (h1 < KH)
            conv_nhwc_add_tail(geo, L, g, b, h1, live, acc);
    }
    conv_nhwc_finish_f32(L, ep, nep, later, acc, yt != NULL, bb, at, live, nob, y);
}

/* Steps a tile runs (taps x channels) from which a row's last positions that fewer than J leave
 * take tiles of their own (conv_nhwc_split): a position saved is then 2 x 64 fmas at least,
 * more than another tile's start and store. */
#define CONV_NHWC_SPLIT_STEPS 64

/* The positions of the one or two whole tiles that take a row's last rem < J positions, a
 * first and *second (0: one tile), tiles with a function of their own (32 channels: 5, 7, 8,
 * with AVX-512 13; 16: 7, 8, 14); 0 where none do or the tiles run few steps (the last tile
 * then starts at OW - J, conv_nhwc_tile_start). SqueezeNet's rows of 13, 27 = 14 + 13 and
 * 55 = 3 x 14 + 13 positions, whose last 13 took a tile of 14: 8 + 5 (13x13 48 -> 192 and
 * 64 -> 256 channels: 1.07x faster with AVX2); with AVX-512, whose 32 registers hold the 26
 * accumulators, one tile of 13, which loads each weight vector once instead of twice (the
 * two 13x13 convs of squeezenet1_1 0.88x the time of 8 + 5, the model 0.96x). */
#ifdef CONV_NHWC_VTILES
#define CONV_NHWC_REM13 13, 0
#else
#define CONV_NHWC_REM13 8, 5
#endif
static int64_t conv_nhwc_split(const ConvNhwcLoop *L, int64_t KH, int64_t rem, int64_t *second)
{
    static const signed char split32[14][2] = {{0, 0}, {0, 0}, {0, 0}, {0, 0},           {0, 0},
                                               {5, 0}, {0, 0}, {7, 0}, {8, 0},           {0, 0},
                                               {5, 5}, {0, 0}, {7, 5}, {CONV_NHWC_REM13}};
    static const signed char split16[16][2] = {{0, 0}, {0, 0}, {0, 0},  {0, 0}, {0, 0}, {0, 0},
                                               {0, 0}, {7, 0}, {8, 0},  {0, 0}, {0, 0}, {0, 0},
                                               {0, 0}, {0, 0}, {14, 0}, {8, 7}};
    *second = 0;
    if (KH * L->nk * L->Ck < CONV_NHWC_SPLIT_STEPS || rem <= 0 || rem >= L->J)
        return 0;
    const signed char *t = L->ob == CONV_NHWC_OB && rem < 14 ? split32[rem]
                           : L->ob == 16 && rem < 16         ? split16[rem]
                                                             : NULL;
    if (!t)
        return 0;
    *second = t[1];
    return t[0];
}

/* The tiles of block b at positions c .. c+J-1 of band row r that lie within OW: one tile of L,
 * or for a row's last positions the tiles of conv_nhwc_split, or else one that starts at
 * conv_nhwc_tile_start. Returns the first position they store. */
static int64_t conv_nhwc_span_f32(const int64_t *geo, const ConvNhwcLoop *L, const float *plane,
                                  const float *x, const float *wp, const float *bias,
                                  const struct ConvEpilogue *ep, int nep, int later, int64_t n,
                                  int64_t g, int64_t oh0, int64_t b, int64_t r, int64_t c, float *y)
{
    const int64_t OW = geo[CONV_NHWC_OW];
    int64_t second;
    const int64_t first = conv_nhwc_split(L, geo[CONV_NHWC_KH], OW - c, &second);
    if (!first) {
        const int64_t c0 = conv_nhwc_tile_start(L, OW, c);
        conv_nhwc_block_tile_f32(geo, L, plane, x, wp, bias, ep, nep, later, n, g, oh0, b, r, c0,
                                 y);
        return c0;
    }
    ConvNhwcLoop t = *L;
    t.J = first;
    conv_nhwc_block_tile_f32(geo, &t, plane, x, wp, bias, ep, nep, later, n, g, oh0, b, r, c, y);
    if (second) {
        t.J = second;
        conv_nhwc_block_tile_f32(geo, &t, plane, x, wp, bias, ep, nep, later, n, g, oh0, b, r,
                                 c + first, y);
    }
    return c;
}

/* Whether the chunked band runs its tiles two output rows at a time (conv_nhwc_tile7r2_f32):
 * rows of one 7-position tile of 32 channels. */
static int conv_nhwc_row_pairs(const ConvNhwcLoop *L, int64_t OW)
{
    return OW == 7 && L->J == 7 && L->ob == 32;
}

/* One tile of the chunked band: Ck steps of one tap, two rows (x2 floats apart) or one, its
 * residual as conv_nhwc_run_tile_f32's; prefetching pfn lines of pf but with 16- and 8-channel
 * blocks (a group over CONV_NHWC_TILES_OUTER_BYTES of 16 channels or fewer: none in the
 * benchmark's models). */
static void conv_nhwc_run_chunk_f32(const ConvNhwcLoop *L, int two, int64_t Ck, int64_t x2,
                                    const float *xt, const float *wb, const float *bb, float *yt,
                                    float acc[][CONV_NHWC_OB], int more, const float *pf,
                                    int64_t pfn)
{
    const float *rt = conv_nhwc_tile_residual(L, yt);
    if (L->ob != 32) {
        conv_nhwc_run_tile_f32(L, 1, 1, Ck, 0, 0, L->xs, xt, wb, bb, yt, L->ys, acc, more);
        return;
    }
    if (two)
        conv_nhwc_tile7r2_f32(Ck, L->xs, x2, xt, wb, bb, yt, L->ys, rt, L->rfirst, L->lo, L->hi,
                              acc, more, pf, pfn);
    else if (L->J == 7)
        conv_nhwc_chunk7_f32(Ck, L->xs, 8 * L->xs, xt, wb, bb, yt, L->ys, rt, L->rfirst, L->lo,
                             L->hi, acc, more, pf, pfn);
    else if (L->J == 8)
        conv_nhwc_chunk8_f32(Ck, L->xs, 8 * L->xs, xt, wb, bb, yt, L->ys, rt, L->rfirst, L->lo,
                             L->hi, acc, more, pf, pfn);
    else
        conv_nhwc_chunk14_f32(Ck, L->xs, 8 * L->xs, xt, wb, bb, yt, L->ys, rt, L->rfirst, L->lo,
                              L->hi, acc, more, pf, pfn);
}

/* A band of Rb output rows with the blocks outer, in groups of tiles (CONV_NHWC_KTILES
 * positions' tiles, or half as many tiles of two rows: conv_nhwc_row_pairs) that run each chunk
 * of a block's weight in turn, their sums in acc between chunks. */
static void conv_nhwc_chunked_band_f32(const int64_t *geo, const ConvNhwcLoop *L,
                                       const float *plane, const float *wp, const float *bias,
                                       const struct ConvEpilogue *ep, int nep, int64_t n, int64_t g,
                                       int64_t oh0, int64_t Rb, float (*acc)[CONV_NHWC_OB],
                                       float *y)
{
    const int64_t OCg = geo[CONV_NHWC_OCG], OW = geo[CONV_NHWC_OW], KH = geo[CONV_NHWC_KH];
    const int64_t ob = L->ob, J = L->J, SH = geo[CONV_NHWC_SH];
    const int pairs = conv_nhwc_row_pairs(L, OW);
    const int64_t nc = pairs ? 1 : (OW + J - 1) / J, ntiles = pairs ? (Rb + 1) / 2 : Rb * nc;
    const int64_t group = pairs ? CONV_NHWC_KTILES / 2 : CONV_NHWC_KTILES, tj = pairs ? 2 * J : J;
    const float *wend = wp + (g + 1) * L->NB * L->wfloats; /* the end of the group's weight */
    for (int64_t b = 0; b < L->NB; b++) {
        const int64_t oc0 = g * OCg + b * ob, nob = OCg - b * ob < ob ? OCg - b * ob : ob;
        const float *wb = wp + (g * L->NB + b) * L->wfloats, *bb = bias ? bias + oc0 : NULL;
        for (int64_t i0 = 0; i0 < ntiles; i0 += group) {
            const int64_t nt = ntiles - i0 < group ? ntiles - i0 : group;
            for (int64_t t = 0; t < KH; t++)
                for (int64_t u = 0; u < L->nk; u++)
                    for (int64_t k0 = 0; k0 < L->Ck; k0 += CONV_NHWC_KC) {
                        const int64_t kc = L->Ck - k0 < CONV_NHWC_KC ? L->Ck - k0 : CONV_NHWC_KC;
                        const float *wk = wb + ((t * L->nk + u) * L->Ck + k0) * ob;
                        /* the next chunk of weight, a part in each tile of the group */
                        const float *next = wk + kc * ob;
                        const int64_t left = next < wend ? (wend - next + 15) / 16 : 0;
                        const int64_t all = (kc * ob + 15) / 16 < left ? (kc * ob + 15) / 16 : left;
                        const int64_t part = (all + nt - 1) / nt;
                        for (int64_t i = 0; i < nt; i++) {
                            const int64_t pfn = all - i * part < part ? all - i * part : part;
                            const int64_t r = pairs ? 2 * (i0 + i) : (i0 + i) / nc;
                            const int64_t c0 =
                                pairs ? 0 : conv_nhwc_tile_start(L, OW, (i0 + i) % nc * J);
                            const int two = pairs && r + 1 < Rb;
                            /* each row's kernel rows; a row pair runs a chunk that only one of
                             * its rows reads as a tile of that row, from sums zeroed before */
                            int64_t a0, a1, b0, b1;
                            conv_nhwc_live_rows(geo, L, oh0 + r, &a0, &a1);
                            conv_nhwc_live_rows(geo, L, oh0 + r + two, &b0, &b1);
                            const int64_t h0 = a0 < b0 ? a0 : b0, h1 = a1 > b1 ? a1 : b1;
                            if (t < h0 || t >= h1)
                                continue;
                            const int same = a0 == b0 && a1 == b1;
                            const int first = t == h0 && u == 0 && k0 == 0;
                            const int last = t == h1 - 1 && u == L->nk - 1 && k0 + kc == L->Ck;
                            const int64_t row = OW - c0 < J ? OW - c0 : J, live = (two + 1) * row;
                            const int64_t at =
                                ((n * geo[CONV_NHWC_OH] + oh0 + r) * OW + c0) * L->ys + oc0;
                            float *yt =
                                last && same && h1 == KH && live == (two + 1) * J && nob == ob
                                    ? y + (at - L->y0)
                                    : NULL;
                            float(*ai)[CONV_NHWC_OB] = acc + i * tj;
                            if (first && !same)
                                memset(ai, 0, (size_t)(2 * J) * sizeof ai[0]);
                            const float *xk =
                                plane + r * SH * L->rs + c0 * L->xs + t * L->th + u * L->tw + k0;
                            const int inA = t >= a0 && t < a1, inB = t >= b0 && t < b1;
                            const float *pf = next + i * part * 16;
                            if (same || (inA && inB))
                                conv_nhwc_run_chunk_f32(L, two, kc, SH * L->rs, xk, wk,
                                                        yt ? bb : NULL, yt, ai, !first || !same, pf,
                                                        pfn);
                            else
                                conv_nhwc_run_chunk_f32(L, 0, kc, 0, inA ? xk : xk + SH * L->rs, wk,
                                                        NULL, NULL, inA ? ai : ai + J, 1, pf, pfn);
                            if (!last)
                                continue;
                            if (a1 < KH)
                                conv_nhwc_add_tail(geo, L, g, b, a1, row, ai);
                            if (two && b1 < KH)
                                conv_nhwc_add_tail(geo, L, g, b, b1, row, ai + J);
                            conv_nhwc_finish_f32(L, ep, nep, 0, ai, yt != NULL, bb, at, live, nob,
                                                 y);
                        }
                    }
        }
    }
}

/* The loop geometry of a conv: with a band plane (its row stride rs) or, without one, x (the
 * tap steps and position stride over x's rows of W*C floats). */
static ConvNhwcLoop conv_nhwc_loop(const int64_t *geo)
{
    const int64_t C = geo[CONV_NHWC_C], G = geo[CONV_NHWC_G], KW = geo[CONV_NHWC_KW];
    const int64_t dw = geo[CONV_NHWC_DW], plane = geo[CONV_NHWC_R] > 0;
    ConvNhwcLoop L;
    L.Cg = C / G;
    L.OC = G * geo[CONV_NHWC_OCG];
    L.ys = conv_nhwc_ys(geo);
    L.ob = conv_nhwc_ob(geo);
    L.NB = (geo[CONV_NHWC_OCG] + L.ob - 1) / L.ob;
    L.J = conv_nhwc_positions(geo);
    /* the row stride and channels per position: the plane's, or x's */
    const int64_t cs = plane ? L.Cg : C;
    L.rs = plane ? conv_nhwc_plane_cols(geo) * L.Cg : geo[CONV_NHWC_W] * C;
    /* the taps: kernel rows x columns, or with unit column dilation kernel rows of KW*Cg steps
     * (a position's KW*Cg inputs of a kernel row are consecutive: in x only with one group) */
    const int fold = dw == 1 && cs == L.Cg;
    L.nk = fold ? 1 : KW;
    L.Ck = fold ? KW * L.Cg : L.Cg;
    L.th = geo[CONV_NHWC_DH] * L.rs;
    L.tw = dw * cs;
    L.xs = geo[CONV_NHWC_SW] * cs;
    L.wfloats = geo[CONV_NHWC_KH] * KW * L.Cg * L.ob;
    L.lo = -INFINITY;
    L.hi = INFINITY;
    L.res = NULL;
    L.rfirst = 0;
    L.y = NULL;
    L.y0 = 0;
    L.tails = NULL;
    return L;
}

/* Output rows [ob, oe) of conv_nhwc_f32 (y from row ob on: conv_nhwc_rows_f32) with a band
 * plane of geo[CONV_NHWC_R] rows in work, or without one (work NULL, geo[CONV_NHWC_R] = 0);
 * acc: room for the chunks' sums of blocks-outer convs (conv_nhwc_chunk_floats), or NULL (their
 * tiles then run whole, one at a time). */
static void conv_nhwc_bands_f32(const int64_t *geo, const float *x, const float *wp,
                                const float *bias, const struct ConvEpilogue *ep, int nep,
                                int64_t ob, int64_t oe, float *y, float *work,
                                float (*acc)[CONV_NHWC_OB])
{
    const int64_t N = geo[CONV_NHWC_N], H = geo[CONV_NHWC_H], W = geo[CONV_NHWC_W];
    const int64_t C = geo[CONV_NHWC_C], G = geo[CONV_NHWC_G];
    const int64_t OH = geo[CONV_NHWC_OH], OW = geo[CONV_NHWC_OW];
    const int64_t R = geo[CONV_NHWC_R] > 0 ? geo[CONV_NHWC_R] : 1;
    ConvNhwcLoop L = conv_nhwc_loop(geo);
    if (wp[conv_nhwc_tails_at(geo, L.NB, G, 0)] != 0.0f) /* every weight finite */
        L.tails = wp + conv_nhwc_tails_at(geo, L.NB, 0, 0);
    /* a leading Add, then a Relu or Clip, in the tiles' stores (no pass over each tile for
     * them: tiny_resnet8's and ResNet's residual convs read their residual in the store) */
    L.y = y;
    L.y0 = ob * OW * L.ys;
    ep = conv_epilogue_add(ep, &nep, &L.res, &L.rfirst);
    ep = conv_epilogue_clip(ep, &nep, &L.lo, &L.hi);
    const float *plane = work;
    const int tiles_outer = !conv_nhwc_blocks_outer(geo);
    /* the epilogues once per tile, on its positions' channels as one run */
    const int later = tiles_outer && G == 1 && nep && L.ys == L.OC;
    for (int64_t n = 0; n < N; n++)
        for (int64_t g = 0; g < G; g++)
            for (int64_t oh0 = ob; oh0 < oe; oh0 += R) {
                const int64_t Rb = oe - oh0 < R ? oe - oh0 : R;
                if (plane)
                    conv_nhwc_fill_f32(geo, oh0, Rb, x + n * H * W * C, g * L.Cg, work);
                if (!tiles_outer && plane && acc) {
                    conv_nhwc_chunked_band_f32(geo, &L, plane, wp, bias, ep, nep, n, g, oh0, Rb,
                                               acc, y);
                    continue;
                }
                if (!tiles_outer) {
                    for (int64_t b = 0; b < L.NB; b++)
                        for (int64_t r = 0; r < Rb; r++)
                            for (int64_t c = 0; c < OW; c += L.J)
                                conv_nhwc_span_f32(geo, &L, plane, x, wp, bias, ep, nep, 0, n, g,
                                                   oh0, b, r, c, y);
                    continue;
                }
                for (int64_t r = 0; r < Rb; r++)
                    for (int64_t c = 0; c < OW; c += L.J) {
                        int64_t c0 = c;
                        for (int64_t b = 0; b < L.NB; b++)
                            c0 = conv_nhwc_span_f32(geo, &L, plane, x, wp, bias, ep, nep, later, n,
                                                    g, oh0, b, r, c, y);
                        if (later) {
                            const int64_t at = ((n * OH + oh0 + r) * OW + c0) * L.ys;
                            const int64_t live = (OW - c < L.J ? OW : c + L.J) - c0;
                            conv_epilogue_f32(ep, nep, at, live * L.OC, y + (at - L.y0));
                        }
                    }
            }
}

/* conv_nhwc_f32 without work memory (geo[CONV_NHWC_R] = 0) where one row's band plane fits in
 * CONV_NHWC_EDGE_FLOATS: bands of one row in a plane on the stack, no larger than the edge
 * tiles' copy that it replaces (conv_nhwc_edge_f32 copies every tile's KH input rows, each
 * tile apart, and stores through its accumulators: tiny_resnet8's residual 16 -> 16 conv, whose
 * every tile reaches into the padding, 1.1x faster). A function of its own, so that its frame
 * is not added to the edge tiles'. */
static CONV_NHWC_NOINLINE void conv_nhwc_stack_plane_f32(const int64_t *geo, const float *x,
                                                         const float *wp, const float *bias,
                                                         const struct ConvEpilogue *ep, int nep,
                                                         int64_t ob, int64_t oe, float *y)
{
    int64_t geo1[CONV_NHWC_NGEO];
    float plane[CONV_NHWC_EDGE_FLOATS];
    memcpy(geo1, geo, sizeof geo1);
    geo1[CONV_NHWC_R] = 1;
    conv_nhwc_bands_f32(geo1, x, wp, bias, ep, nep, ob, oe, y, plane, NULL);
}

#else  /* O2C_SMALL_CODE (the generated file's preamble): the plain loop only */

/* Each output in the order above (taps (kh, kw), then input channels, ascending; padded taps
 * fmaf(w, 0.0f, acc)), read from the packed weight, then the bias and, per output row, the
 * epilogues: the bits of the tiles in a fraction of their code. Arguments as conv_nhwc_f32's. */
static void conv_nhwc_plain_f32(const int64_t *geo, const float *x, const float *wp,
                                const float *bias, const struct ConvEpilogue *ep, int nep,
                                int64_t ob_, int64_t oe, float *y)
{
    const int64_t N = geo[CONV_NHWC_N], H = geo[CONV_NHWC_H], W = geo[CONV_NHWC_W];
    const int64_t C = geo[CONV_NHWC_C], G = geo[CONV_NHWC_G], OCg = geo[CONV_NHWC_OCG];
    const int64_t KH = geo[CONV_NHWC_KH], KW = geo[CONV_NHWC_KW];
    const int64_t OH = geo[CONV_NHWC_OH], OW = geo[CONV_NHWC_OW];
    const int64_t Cg = C / G, OC = G * OCg, ob = conv_nhwc_ob(geo), NB = (OCg + ob - 1) / ob;
    const int nchw = geo[CONV_NHWC_XNCHW] != 0;
    const int64_t cs = nchw ? H * W : 1; /* x's channel stride */
    const int64_t ys = conv_nhwc_ys(geo);
    const int64_t y0 = ob_ * OW * ys; /* the output's element at y[0] */
    for (int64_t n = 0; n < N; n++)
        for (int64_t oh = ob_; oh < oe; oh++) {
            const int64_t row = (n * OH + oh) * OW * ys; /* output row [OW][ys] */
            float *yr = y + (row - y0);
            for (int64_t ow = 0; ow < OW; ow++)
                for (int64_t oc = 0; oc < OC; oc++) {
                    const int64_t g = oc / OCg, o = oc % OCg;
                    const float *wo = wp + (g * NB + o / ob) * KH * KW * Cg * ob + o % ob;
                    float acc = 0.0f;
                    for (int64_t kh = 0; kh < KH; kh++) {
                        const int64_t ih =
                            oh * geo[CONV_NHWC_SH] - geo[CONV_NHWC_PT] + kh * geo[CONV_NHWC_DH];
                        for (int64_t kw = 0; kw < KW; kw++) {
                            const int64_t iw =
                                ow * geo[CONV_NHWC_SW] - geo[CONV_NHWC_PL] + kw * geo[CONV_NHWC_DW];
                            const int inside = ih >= 0 && ih < H && iw >= 0 && iw < W;
                            const int64_t at = nchw ? ((n * C + g * Cg) * H + ih) * W + iw
                                                    : ((n * H + ih) * W + iw) * C + g * Cg;
                            const float *xp = inside ? x + at : x;
                            const float *wt = wo + (kh * KW + kw) * Cg * ob;
                            for (int64_t ic = 0; ic < Cg; ic++)
                                acc = fmaf(wt[ic * ob], inside ? xp[ic * cs] : 0.0f, acc);
                        }
                    }
                    yr[ow * ys + oc] = bias ? acc + bias[oc] : acc;
                }
            if (ys == OC)
                conv_epilogue_f32(ep, nep, row, OW * OC, yr);
            else
                for (int64_t ow = 0; ow < OW; ow++)
                    conv_epilogue_f32(ep, nep, row + ow * ys, OC, yr + ow * ys);
        }
}
#endif /* O2C_SMALL_CODE */

/* Output rows [ob, oe) of conv_nhwc_f32 (below), into y [oe - ob][OW][G*OCg] (the same values:
 * each output's sum does not depend on the rows around it); a range other than [0, OH) needs
 * geo[CONV_NHWC_N] = 1. An Add epilogue's operand is indexed as the whole output's. Where a
 * following op reads the rows as they are made (conv_pool.c). */
O2C_KERNEL void conv_nhwc_rows_f32(const int64_t *geo, const float *x, const float *wp,
                                   const float *bias, const struct ConvEpilogue *ep, int nep,
                                   int64_t ob, int64_t oe, float *y, float *work)
{
#ifdef O2C_SMALL_CODE
    (void)work;
    conv_nhwc_plain_f32(geo, x, wp, bias, ep, nep, ob, oe, y);
#else
    const int64_t R = geo[CONV_NHWC_R];
    if (R == 0 && !conv_nhwc_pointwise(geo) &&
        conv_nhwc_plane_floats(geo, 1) <= CONV_NHWC_EDGE_FLOATS)
        conv_nhwc_stack_plane_f32(geo, x, wp, bias, ep, nep, ob, oe, y);
    else
        conv_nhwc_bands_f32(geo, x, wp, bias, ep, nep, ob, oe, y, R > 0 ? work : NULL,
                            R > 0 && conv_nhwc_chunk_floats(geo)
                                ? (float(*)[CONV_NHWC_OB])(work + conv_nhwc_acc_at(geo))
                                : NULL);
#endif
}

/* The convolution (see the top of the file for the layouts, the order and the geometry): per
 * image, group and band of geo[CONV_NHWC_R] output rows, the band plane is filled once, then
 * the tiles of every block of 32 output channels run over it, each stored with the bias and
 * the epilogues while it is in L1. With geo[CONV_NHWC_R] = 0 there is no plane: the bands are
 * single rows whose tiles read x (conv_nhwc_block_tile_f32); an NCHW x needs R >= 1.
 *   x [N][H][W][G*Cg] (geo[CONV_NHWC_XNCHW]: [N][G*Cg][H][W]), wp from conv_nhwc_pack_f32,
 *   bias [G*OCg] or NULL, ep [nep] or NULL,
 *   y [N][OH][OW][G*OCg] (must not overlap x or an epilogue's operand); with
 *     geo[CONV_NHWC_YS] = ys, position p's G*OCg outputs at y + p*ys (the channels of a
 *     Concat's output that is wider: plan_arena's strided slices), the floats between them
 *     untouched; then no epilogue may have an operand of y's shape (it is indexed as y),
 *   work [conv_nhwc_work_floats(geo)] (NULL when that is 0). */
O2C_KERNEL void conv_nhwc_f32(const int64_t *geo, const float *x, const float *wp,
                              const float *bias, const struct ConvEpilogue *ep, int nep, float *y,
                              float *work)
{
    conv_nhwc_rows_f32(geo, x, wp, bias, ep, nep, 0, geo[CONV_NHWC_OH], y, work);
}

/* ---- 1x1 convs: the product by row blocks, the epilogues on each block ----
 *
 * A 1x1 conv with unit strides, no padding and one group is the product
 * y[M][N] = x[M][K] x w[K][N] over the M = N*H*W positions (K input and N output channels), k
 * ascending from +0.0f as every product. The generated code runs it by blocks of rb positions
 * (conv_pointwise_nhwc_rows): each block's product (its libxsmm kernel, or gemm_f32), then on
 * that block, while it is in L2, y + bias[j] (gemm_epilogue_f32's order) and the epilogues
 * (conv_epilogue_f32): the same ops on the same values as the passes over the whole output
 * they replace, so the same bits, without a pass over the whole output per op (efficientnet's
 * Swish alone took about 7% of its time as a pass). */

/* From gemm.c, which the generated file pastes before conv.c. */
O2C_KERNEL void gemm_f32_ldy(int64_t M, int64_t N, int64_t K, const float *A, int64_t a_rs,
                             int64_t a_cs, const float *B, int64_t b_rs, int64_t b_cs, float *Y,
                             int64_t ldy);

/* Floats of x and y that a block keeps in L2 (256 KiB: with the weight, within the 512 KiB to
 * 1 MiB per core of current x86 and Arm server cores). */
#define CONV_PW_BLOCK_FLOATS (1 << 16)

/* Positions per block: the fewest blocks whose x and y rows fit in CONV_PW_BLOCK_FLOATS, or
 * take at least as many floats as the weight, which each block reads again (squeezenet's
 * classifier, 512 -> 1000 channels at 13x13: one block, 1.1x slower in three), and at least 64
 * rows; of equal size where that takes at most twice as many blocks (a divisor of M: one
 * libxsmm kernel, not two), else rounded up to a multiple of 8 rows. */
O2C_KERNEL int64_t conv_pointwise_nhwc_rows(int64_t M, int64_t N, int64_t K)
{
    const int64_t floats = K * N > CONV_PW_BLOCK_FLOATS ? K * N : CONV_PW_BLOCK_FLOATS;
    int64_t most = floats / (N + K > 0 ? N + K : 1);
    most = most < 64 ? 64 : most;
    if (M <= most)
        return M;
    const int64_t blocks = (M + most - 1) / most;
    for (int64_t b = blocks; b <= 2 * blocks; b++)
        if (M % b == 0)
            return M / b;
    return ((M + blocks - 1) / blocks + 7) / 8 * 8;
}

/* y[M][N] = x[M][K] x w[K][N] (+ bias[N]), then ep[0 .. nep-1], by blocks of rb rows: full
 * blocks through full(w, x, y), a last block of M % rb rows through tail (the generated
 * code's libxsmm products of those rows, xsmm_product<i>), or gemm_f32 where that is NULL.
 * x row-major and contiguous; y row-major with rows ldy >= N floats apart (N: contiguous;
 * more: the channels of a Concat's output that is wider, plan_arena's strided slices, the
 * floats between the rows untouched, and then no epilogue may have an operand of y's shape;
 * full and tail must then write rows ldy apart too); w row-major [K][N] for gemm_f32, and as
 * full and tail read it where they are given (the generated code's libxsmm products: packed
 * in panels by gemm_pack_xsmm_f32; tail is then given whenever M % rb rows are left); y must
 * not overlap x, w or an epilogue's operand; bias NULL for none (y = acc, not acc + 0.0f). */
O2C_KERNEL void conv_pointwise_nhwc_ldy_f32(int64_t M, int64_t N, int64_t K, int64_t rb,
                                            void (*full)(const float *, const float *, float *),
                                            void (*tail)(const float *, const float *, float *),
                                            const float *x, const float *w, const float *bias,
                                            const struct ConvEpilogue *ep, int nep, float *y,
                                            int64_t ldy)
{
    for (int64_t i0 = 0; i0 < M; i0 += rb) {
        const int64_t rows = M - i0 < rb ? M - i0 : rb;
        void (*product)(const float *, const float *, float *) = rows == rb ? full : tail;
        float *yb = y + i0 * ldy;
        if (product)
            product(w, x + i0 * K, yb);
        else
            gemm_f32_ldy(rows, N, K, x + i0 * K, K, 1, w, N, 1, yb, ldy);
        if (bias)
            for (int64_t i = 0; i < rows; i++)
                for (int64_t j = 0; j < N; j++)
                    yb[i * ldy + j] = yb[i * ldy + j] + bias[j];
        if (nep && ldy == N)
            conv_epilogue_f32(ep, nep, i0 * N, rows * N, yb);
        else if (nep)
            for (int64_t i = 0; i < rows; i++)
                conv_epilogue_f32(ep, nep, (i0 + i) * ldy, N, yb + i * ldy);
    }
}

/* conv_pointwise_nhwc_ldy_f32 into a contiguous y (ldy = N). */
O2C_KERNEL void conv_pointwise_nhwc_f32(int64_t M, int64_t N, int64_t K, int64_t rb,
                                        void (*full)(const float *, const float *, float *),
                                        void (*tail)(const float *, const float *, float *),
                                        const float *x, const float *w, const float *bias,
                                        const struct ConvEpilogue *ep, int nep, float *y)
{
    conv_pointwise_nhwc_ldy_f32(M, N, K, rb, full, tail, x, w, bias, ep, nep, y, N);
}
