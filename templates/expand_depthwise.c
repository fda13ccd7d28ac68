/* expand_depthwise.c — an inverted-residual block's expand 1x1 conv and the depthwise conv
 * that reads its output, as one step, channels last (compiler/fuse_expand_depthwise.c fuses
 * them): the expanded tensor is never stored whole, only a ring of its rows.
 *
 * Layout: x [N][H][W][K] -> e [N][H][W][C], e = the 1x1 conv (unit strides, no padding, one
 * group) = x[N*H*W][K] x w1[K][C] + b1, then its epilogues ep1 -> y [N][OH][OW][C], the
 * depthwise conv of e (geo[NHWC_GEO_LEN] of depthwise_nhwc.c, C its channels; wp, bias, ep as
 * depthwise_nhwc_f32's). w1 as conv_pointwise_nhwc_f32 reads it (row-major [K][C] for gemm_f32,
 * as full and tail read it where they are given).
 *
 * Method: y runs row by row (depthwise_nhwc_rows_f32, the unfused kernel's row code); just
 * before the first output row that reads an expanded row, that row is computed, E rows per
 * product (conv_pointwise_nhwc_f32 on E*W positions, E-aligned: the last product of an image
 * takes the H % E rows left, through tail), into a ring of nr rows [nr][W][C]
 * (expand_depthwise_ring_rows) where row ih lives at ih % nr. Each expanded row is computed
 * once and read while in cache, and the arena holds nr rows instead of H.
 *
 * Bits: each expanded element is the unfused 1x1 conv's (the product sums k ascending from
 * +0.0f whatever its rows, then + b1, then ep1, which take no operands here), and each output
 * the unfused depthwise conv's: the same bits.
 *
 * Part of the templates: pasted after gemm.c, conv.c, depthwise_nhwc.c and conv_nhwc.c, whose
 * kernels it calls; also linked into the compiler. Every function is O2C_KERNEL. */
#include <stddef.h>
#include <stdint.h>

#ifndef O2C_KERNEL
#define O2C_KERNEL static
#endif

#ifndef O2C_NHWC_GEO /* (the generated file has depthwise_nhwc.c's) */
#include "kernels.h"
#endif

/* From conv.c, depthwise_nhwc.c and conv_nhwc.c, which the generated file pastes before. */
struct ConvEpilogue;
O2C_KERNEL void depthwise_nhwc_rows_f32(const int64_t *geo, int64_t nr, const float *xr,
                                        const float *wp, const float *bias,
                                        const struct ConvEpilogue *ep, int nep, int64_t n,
                                        int64_t oh0, int64_t oh1, float *y);
O2C_KERNEL void conv_pointwise_nhwc_f32(int64_t M, int64_t N, int64_t K, int64_t rb,
                                        void (*full)(const float *, const float *, float *),
                                        void (*tail)(const float *, const float *, float *),
                                        const float *x, const float *w, const float *bias,
                                        const struct ConvEpilogue *ep, int nep, float *y);

/* Rows of the ring for the depthwise conv's geo and E rows
 * per product: an output row reads (KH-1)*DH + 1 consecutive rows, and a product computed for it
 * reaches at most E - 1 rows past the last of them, so that many plus E - 1, rounded up to a
 * multiple of E (each product's rows are then contiguous in the ring); at most H (no row then
 * wraps). */
O2C_KERNEL int64_t expand_depthwise_ring_rows(const int64_t *geo, int64_t E)
{
    const int64_t H = geo[NHWC_GEO_H], span = (geo[NHWC_GEO_KH] - 1) * geo[NHWC_GEO_DH] + 1;
    const int64_t nr = (span + E - 1 + E - 1) / E * E;
    return nr < H ? nr : H;
}

/* y = depthwise(epilogues(x * w1 + b1)), see above; ring [expand_depthwise_ring_rows][W][C]
 * floats of scratch; y must not overlap x, w1, the ring or an epilogue's operand. b1, bias
 * NULL for none; full and tail the libxsmm products of E*W and (H % E)*W rows, or NULL for
 * gemm_f32. */
O2C_KERNEL void expand_depthwise_nhwc_f32(const int64_t *geo, int64_t K, int64_t E,
                                          void (*full)(const float *, const float *, float *),
                                          void (*tail)(const float *, const float *, float *),
                                          const float *x, const float *w1, const float *b1,
                                          const struct ConvEpilogue *ep1, int nep1, const float *wp,
                                          const float *bias, const struct ConvEpilogue *ep, int nep,
                                          float *y, float *ring)
{
    const int64_t N = geo[NHWC_GEO_N], H = geo[NHWC_GEO_H], W = geo[NHWC_GEO_W];
    const int64_t C = geo[NHWC_GEO_C], OH = geo[NHWC_GEO_OH], KH = geo[NHWC_GEO_KH];
    const int64_t SH = geo[NHWC_GEO_SH], PT = geo[NHWC_GEO_PT], DH = geo[NHWC_GEO_DH];
    const int64_t nr = expand_depthwise_ring_rows(geo, E);
    for (int64_t n = 0; n < N; n++) {
        int64_t next = 0; /* the first expanded row not computed yet */
        for (int64_t oh = 0; oh < OH; oh++) {
            int64_t need = oh * SH - PT + (KH - 1) * DH + 1; /* rows the output row reads */
            need = need < H ? need : H;
            while (next < need) {
                const int64_t rows = H - next < E ? H - next : E;
                conv_pointwise_nhwc_f32(rows * W, C, K, E * W, full, tail,
                                        x + (n * H + next) * W * K, w1, b1, ep1, nep1,
                                        ring + (next % nr) * W * C);
                next += rows;
            }
            depthwise_nhwc_rows_f32(geo, nr, ring, wp, bias, ep, nep, n, oh, oh + 1, y);
        }
    }
}
