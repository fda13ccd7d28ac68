/* gemm.c — the product kernel (Gemm, MatMul, and Conv via im2col) and its bias epilogue.
 *
 * Numerics contract (DESIGN.md, "Numerics: one evaluation order"): every output element is
 *
 *     acc = 0.0f;  for (k = 0; k < K; k++) acc = fmaf(A(i,k), B(k,j), acc);
 *
 * i.e. ascending k, one fmaf per step, starting from +0.0f. That is what libxsmm's JIT kernels
 * compute, so the portable and libxsmm backends give the same bits. gemm_f32 computes the
 * output in register tiles (below) that each run k upward; blocking over rows, columns and k
 * changes which elements are computed together, never the order of one element's sum. Bias and
 * alpha/beta come afterwards, in gemm_epilogue_f32.
 *
 * Part of the templates: the compiler pastes this text into the generated C file and also
 * links it to fold constants. It includes only standard headers and defines every function
 * with O2C_KERNEL, which the includer sets (generated code: static; compiler: empty).
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>

#ifndef O2C_KERNEL
#define O2C_KERNEL static
#endif

/* Multiplications and additions outside fmaf must never be contracted into an fma: gcc does
 * not contract in ISO mode (-std=c99/-std=c11); clang needs the pragma. */
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

/* Register blocking. A tile of GEMM_MR rows x GEMM_NR columns of Y is held in a local array
 * while k runs over a block of GEMM_KC steps; each element still sees k = 0, 1, 2, ... in order
 * (a tile that starts at k0 > 0 resumes from the partial sum it stored, and a float survives
 * the store and the reload unchanged), so the bits are those of the per-element loop. At -O3
 * gcc and clang keep the accumulators in vector registers: with AVX-512 12 x 32 in 24 of the 32
 * zmm registers, each k step 12 broadcasts of A, 2 loads of B and 24 independent fmas (6 rows:
 * 256^3 and 1024^3 at 54% and 40% of the two-FMA-unit Xeon's peak, 12 rows: 64% and 46%;
 * mlp_b64 portable 0.64x the time); elsewhere 6 x 32, and with AVX (16 registers of 8 lanes,
 * where 6 x 32 spilled its 24 accumulators) 6 x 16 in 12 (AMD Zen 3, benchmarks/gemm_kernels.c:
 * 256^3 830 -> 413 us, ResNet-18's 196x128 x 128x256 236 -> 152 us). GEMM_KC keeps a KC x NR
 * panel of B in L1 and GEMM_MC an MC x KC block of A in L2 while they are reused. No buffer is
 * allocated: the tiles read A and B in place. */
#if defined(__AVX512F__)
#define GEMM_MR 12
#define GEMM_NR 32
#elif defined(__AVX__)
#define GEMM_MR 6
#define GEMM_NR 16
#else
#define GEMM_MR 6
#define GEMM_NR 32
#endif
#define GEMM_KC 256
#define GEMM_MC 120

/* gcc vectorises a tile only as a function of its own (inlined into a caller it kept the
 * accumulators in memory): the tile body is inlined into one function per width. */
#if defined(__GNUC__)
#define GEMM_INLINE   __attribute__((always_inline)) inline
#define GEMM_NOINLINE __attribute__((noinline))
#else
#define GEMM_INLINE inline
#define GEMM_NOINLINE
#endif
/* A loop over the tile unrolled in full: clang vectorised `#pragma GCC unroll 32` loops of 16
 * columns into one-iteration loops over accumulators in memory (2-3x slower). */
#if defined(__clang__)
#define GEMM_UNROLL _Pragma("clang loop unroll(full)")
#elif defined(__GNUC__)
#define GEMM_UNROLL _Pragma("GCC unroll 32")
#else
#define GEMM_UNROLL
#endif

/* Tile: Y[0..mr)[0..W) over k in [k0, k1), B rows contiguous (b_cs == 1), W = NR, NR/2 or
 * NR/4 columns, 1 < mr <= MR rows. Rows mr..MR-1 repeat row mr-1 of A (no padding buffer, no
 * read past A) and are never stored: the last M % MR rows then read B once per tile instead
 * of once per row (M = 65 and 64 products, 6-row tiles and 5 or 4 rows left, were a third
 * slower by rows). The same arithmetic whatever mr, W: each element's chain over k. Every loop
 * over the tile is unrolled in full, so that the MR x W accumulators stay in vector registers
 * (above): without the pragmas gcc -O3 kept them in memory inside a large generated
 * file (mlp_b64 portable: 2 fmas in the loop, 10x slower), and an initialisation that chose
 * between 0 and Y per element went through the stack (products of k = 16: 1.5x slower). */
static GEMM_INLINE void gemm_tile_body_f32(const int W, int64_t mr, int64_t k0, int64_t k1,
                                           const float *restrict A, int64_t a_rs, int64_t a_cs,
                                           const float *restrict B, int64_t b_rs, float *restrict Y,
                                           int64_t ldy)
{
    float acc[GEMM_MR][GEMM_NR];
    int64_t row[GEMM_MR]; /* offset of the A row that tile row r reads */
    GEMM_UNROLL
    for (int r = 0; r < GEMM_MR; r++)
        row[r] = (r < mr ? r : mr - 1) * a_rs;
    GEMM_UNROLL
    for (int r = 0; r < GEMM_MR; r++) {
        if (k0 == 0 || r >= mr) {
            GEMM_UNROLL
            for (int c = 0; c < W; c++)
                acc[r][c] = 0.0f;
        } else {
            GEMM_UNROLL
            for (int c = 0; c < W; c++)
                acc[r][c] = Y[r * ldy + c];
        }
    }
    for (int64_t k = k0; k < k1; k++) {
        const float *restrict b = B + k * b_rs;
        GEMM_UNROLL
        for (int r = 0; r < GEMM_MR; r++) {
            const float a = A[row[r] + k * a_cs];
            GEMM_UNROLL
            for (int c = 0; c < W; c++)
                acc[r][c] = fmaf(a, b[c], acc[r][c]);
        }
    }
    GEMM_UNROLL
    for (int r = 0; r < GEMM_MR; r++)
        if (r < mr) {
            GEMM_UNROLL
            for (int c = 0; c < W; c++)
                Y[r * ldy + c] = acc[r][c];
        }
}

/* Full tile: MR rows, NR columns. */
O2C_KERNEL GEMM_NOINLINE void gemm_tile_f32(int64_t k0, int64_t k1, const float *restrict A,
                                            int64_t a_rs, int64_t a_cs, const float *restrict B,
                                            int64_t b_rs, float *restrict Y, int64_t ldy)
{
    gemm_tile_body_f32(GEMM_NR, GEMM_MR, k0, k1, A, a_rs, a_cs, B, b_rs, Y, ldy);
}

/* The tiles of mr rows (the bottom rows of a product: M % MR), and of NR/2 and NR/4 columns
 * (the last N % NR columns: a conv of 16, 24, 40, 80 or 144 output channels), which ran
 * through gemm_edge_f32's copies of B at 15-45% of peak. */
O2C_KERNEL GEMM_NOINLINE void gemm_tile_rows_f32(int64_t mr, int64_t k0, int64_t k1,
                                                 const float *restrict A, int64_t a_rs,
                                                 int64_t a_cs, const float *restrict B,
                                                 int64_t b_rs, float *restrict Y, int64_t ldy)
{
    gemm_tile_body_f32(GEMM_NR, mr, k0, k1, A, a_rs, a_cs, B, b_rs, Y, ldy);
}

O2C_KERNEL GEMM_NOINLINE void gemm_tile16_f32(int64_t mr, int64_t k0, int64_t k1,
                                              const float *restrict A, int64_t a_rs, int64_t a_cs,
                                              const float *restrict B, int64_t b_rs,
                                              float *restrict Y, int64_t ldy)
{
    gemm_tile_body_f32(GEMM_NR / 2, mr, k0, k1, A, a_rs, a_cs, B, b_rs, Y, ldy);
}

O2C_KERNEL GEMM_NOINLINE void gemm_tile8_f32(int64_t mr, int64_t k0, int64_t k1,
                                             const float *restrict A, int64_t a_rs, int64_t a_cs,
                                             const float *restrict B, int64_t b_rs,
                                             float *restrict Y, int64_t ldy)
{
    gemm_tile_body_f32(GEMM_NR / 4, mr, k0, k1, A, a_rs, a_cs, B, b_rs, Y, ldy);
}

/* The last nr < NR columns of mr rows as tiles NR/2 and NR/4 wide, while they fit; returns the
 * columns they covered (nr rounded down to a multiple of NR/4). */
static int64_t gemm_narrow_tiles_f32(int64_t mr, int64_t nr, int64_t k0, int64_t k1, const float *A,
                                     int64_t a_rs, int64_t a_cs, const float *B, int64_t b_rs,
                                     float *Y, int64_t ldy)
{
    int64_t c = 0;
    if (nr - c >= GEMM_NR / 2) {
        gemm_tile16_f32(mr, k0, k1, A, a_rs, a_cs, B + c, b_rs, Y + c, ldy);
        c += GEMM_NR / 2;
    }
    if (nr - c >= GEMM_NR / 4) {
        gemm_tile8_f32(mr, k0, k1, A, a_rs, a_cs, B + c, b_rs, Y + c, ldy);
        c += GEMM_NR / 4;
    }
    return c;
}

/* Edge tile: MR rows, nr <= W columns, any B stride (the last N % (NR/4) columns, or a
 * transposed B), W = NR/4, NR/2 or NR, the narrowest that holds nr. Each k step first copies
 * its B elements into a local row of W (zeros past nr), so the arithmetic is a W-wide tile's;
 * only the nr columns that exist are stored, through a local copy (the accumulators stay in
 * registers). The padded lanes compute fmaf(a, 0, acc) and are thrown away. */
static GEMM_INLINE void gemm_edge_body_f32(const int W, int64_t nr, int64_t k0, int64_t k1,
                                           const float *restrict A, int64_t a_rs, int64_t a_cs,
                                           const float *restrict B, int64_t b_rs, int64_t b_cs,
                                           float *restrict Y, int64_t ldy)
{
    float acc[GEMM_MR][GEMM_NR], part[GEMM_MR][GEMM_NR], bk[GEMM_NR];
    for (int r = 0; r < GEMM_MR; r++)
        for (int c = 0; c < W; c++)
            part[r][c] = k0 == 0 || c >= nr ? 0.0f : Y[r * ldy + c];
    GEMM_UNROLL
    for (int r = 0; r < GEMM_MR; r++) {
        GEMM_UNROLL
        for (int c = 0; c < W; c++)
            acc[r][c] = part[r][c];
    }
    for (int64_t k = k0; k < k1; k++) {
        GEMM_UNROLL
        for (int c = 0; c < W; c++)
            bk[c] = c < nr ? B[k * b_rs + c * b_cs] : 0.0f;
        GEMM_UNROLL
        for (int r = 0; r < GEMM_MR; r++) {
            const float a = A[r * a_rs + k * a_cs];
            GEMM_UNROLL
            for (int c = 0; c < W; c++)
                acc[r][c] = fmaf(a, bk[c], acc[r][c]);
        }
    }
    GEMM_UNROLL
    for (int r = 0; r < GEMM_MR; r++) {
        GEMM_UNROLL
        for (int c = 0; c < W; c++)
            part[r][c] = acc[r][c];
    }
    for (int r = 0; r < GEMM_MR; r++)
        for (int64_t c = 0; c < nr; c++)
            Y[r * ldy + c] = part[r][c];
}

static GEMM_NOINLINE void gemm_edge8_f32(int64_t nr, int64_t k0, int64_t k1, const float *A,
                                         int64_t a_rs, int64_t a_cs, const float *B, int64_t b_rs,
                                         int64_t b_cs, float *Y, int64_t ldy)
{
    gemm_edge_body_f32(GEMM_NR / 4, nr, k0, k1, A, a_rs, a_cs, B, b_rs, b_cs, Y, ldy);
}

static GEMM_NOINLINE void gemm_edge16_f32(int64_t nr, int64_t k0, int64_t k1, const float *A,
                                          int64_t a_rs, int64_t a_cs, const float *B, int64_t b_rs,
                                          int64_t b_cs, float *Y, int64_t ldy)
{
    gemm_edge_body_f32(GEMM_NR / 2, nr, k0, k1, A, a_rs, a_cs, B, b_rs, b_cs, Y, ldy);
}

static GEMM_NOINLINE void gemm_edge32_f32(int64_t nr, int64_t k0, int64_t k1, const float *A,
                                          int64_t a_rs, int64_t a_cs, const float *B, int64_t b_rs,
                                          int64_t b_cs, float *Y, int64_t ldy)
{
    gemm_edge_body_f32(GEMM_NR, nr, k0, k1, A, a_rs, a_cs, B, b_rs, b_cs, Y, ldy);
}

O2C_KERNEL void gemm_edge_f32(int64_t nr, int64_t k0, int64_t k1, const float *A, int64_t a_rs,
                              int64_t a_cs, const float *B, int64_t b_rs, int64_t b_cs, float *Y,
                              int64_t ldy)
{
    if (nr <= GEMM_NR / 4)
        gemm_edge8_f32(nr, k0, k1, A, a_rs, a_cs, B, b_rs, b_cs, Y, ldy);
    else if (nr <= GEMM_NR / 2)
        gemm_edge16_f32(nr, k0, k1, A, a_rs, a_cs, B, b_rs, b_cs, Y, ldy);
    else
        gemm_edge32_f32(nr, k0, k1, A, a_rs, a_cs, B, b_rs, b_cs, Y, ldy);
}

/* One row of Y over all k, for rows that do not fill a tile and for batch-1 products (GEMV),
 * where each B element is used once and reading B bounds the speed. With B rows contiguous and
 * B no larger than GEMM_NV_BYTES (a typical L2), GEMM_NV columns at a time stay in local
 * accumulators (8 independent vector chains with AVX-512, enough to hide the fma latency).
 * The rest of the row, a strided B, or a B that comes from memory, runs the plain loop
 * y[j] = fmaf(a_k, B[k][j], y[j]) with the row kept in Y: it reads B in memory order, which the
 * hardware prefetcher follows (the blocked loop measured slower for a 4 MiB B).
 * Either way k ascends. */
#define GEMM_NV       128
#define GEMM_NV_BYTES (1 << 20)
O2C_KERNEL void gemm_rowplain_f32(int64_t N, int64_t K, const float *restrict a, int64_t a_cs,
                                  const float *restrict B, int64_t b_rs, int64_t b_cs,
                                  float *restrict y)
{
    for (int64_t j = 0; j < N; j++)
        y[j] = 0.0f;
    for (int64_t k = 0; k < K; k++) {
        const float ak = a[k * a_cs];
        const float *restrict b = B + k * b_rs; /* row k of B, elements b_cs apart */
        if (b_cs == 1) {
            for (int64_t j = 0; j < N; j++)
                y[j] = fmaf(ak, b[j], y[j]);
        } else {
            for (int64_t j = 0; j < N; j++)
                y[j] = fmaf(ak, b[j * b_cs], y[j]);
        }
    }
}

O2C_KERNEL void gemm_row_f32(int64_t N, int64_t K, const float *restrict a, int64_t a_cs,
                             const float *restrict B, int64_t b_rs, int64_t b_cs, float *restrict y)
{
    int64_t panels = 0; /* column panels of GEMM_NV in local accumulators */
    if (b_cs == 1 && K * N <= GEMM_NV_BYTES / (int64_t)sizeof(float))
        panels = N / GEMM_NV;
    for (int64_t p = 0; p < panels; p++) {
        float acc[GEMM_NV];
        for (int c = 0; c < GEMM_NV; c++)
            acc[c] = 0.0f;
        for (int64_t k = 0; k < K; k++) {
            const float ak = a[k * a_cs];
            const float *restrict b = B + k * b_rs + p * GEMM_NV;
            for (int c = 0; c < GEMM_NV; c++)
                acc[c] = fmaf(ak, b[c], acc[c]);
        }
        for (int c = 0; c < GEMM_NV; c++)
            y[p * GEMM_NV + c] = acc[c];
    }
    const int64_t j0 = panels * GEMM_NV;
    if (j0 < N)
        gemm_rowplain_f32(N - j0, K, a, a_cs, B + j0 * b_cs, b_rs, b_cs, y + j0);
}

/* One full panel of gemm_rowpacked_f32: y[0..nv) = a x b, b the panel [K][nv]; nv is
 * GEMM_NV or GEMM_NV_SMALL, a constant where it is inlined, so each width gets its own loop of
 * nv / 16 vector accumulators. */
#define GEMM_NV_SMALL 64
static inline void gemm_panel_f32(int64_t K, const float *restrict a, int64_t a_cs,
                                  const float *restrict b, int nv, float *restrict y)
{
    float acc[GEMM_NV];
    for (int c = 0; c < nv; c++)
        acc[c] = 0.0f;
    for (int64_t k = 0; k < K; k++) {
        const float ak = a[k * a_cs];
        for (int c = 0; c < nv; c++)
            acc[c] = fmaf(ak, b[k * nv + c], acc[c]);
    }
    for (int c = 0; c < nv; c++)
        y[c] = acc[c];
}

/* y[N] = a[K] x B[K][N] with B packed at compile time (gemm_pack_b_f32) in panels of nv
 * columns (GEMM_NV or GEMM_NV_SMALL), each panel's K rows contiguous: the batch-1 product of
 * recurrent steps and of batch-1 layers against a constant weight. gemm_row_f32 reads a
 * panel's row k at B + k*N, one short run every N floats; packed, a panel is one stream of
 * K*nv floats that the prefetcher follows (LSTM step 1x128 x 128x512: 2.3 us -> 1.3 us).
 * reverse != 0 takes the panels from the last to the first: recurrent steps alternate, so that
 * each step starts on the panels that the step before read last, which are still in L1 when
 * they are small against L1 and B is not much larger than L1 (hence GEMM_NV_SMALL panels for
 * the alternating products: with a 32 KiB L1, a 128-column panel of an LSTM-64 step fills it).
 * Per element the same chain as every product, k ascending from +0.0f; the order of the
 * panels changes no element's sum.
 *   Bp  panel p (columns p*nv .. p*nv+w, w = nv or the last N % nv) at Bp + p*nv*K, [K][w] */
O2C_KERNEL void gemm_rowpacked_f32(int64_t N, int64_t K, const float *restrict a, int64_t a_cs,
                                   const float *restrict Bp, int64_t nv, float *restrict y,
                                   int reverse)
{
    const int64_t full = N / nv, j1 = full * nv; /* full panels; the rest from j1 */
    if (reverse && j1 < N)
        gemm_rowplain_f32(N - j1, K, a, a_cs, Bp + j1 * K, N - j1, 1, y + j1);
    for (int64_t q = 0; q < full; q++) {
        const int64_t j0 = (reverse ? full - 1 - q : q) * nv;
        if (nv == GEMM_NV_SMALL)
            gemm_panel_f32(K, a, a_cs, Bp + j0 * K, GEMM_NV_SMALL, y + j0);
        else
            gemm_panel_f32(K, a, a_cs, Bp + j0 * K, GEMM_NV, y + j0);
    }
    if (!reverse && j1 < N)
        gemm_rowplain_f32(N - j1, K, a, a_cs, Bp + j1 * K, N - j1, 1, y + j1);
}

/* Packs B (element (k,j) at B[k*b_rs + j*b_cs]) into Bp[K*N] in panels of nv columns: panel
 * p (columns p*nv .. p*nv+w, w = nv or the last N % nv) at Bp + p*nv*K, [K][w]. */
static void gemm_pack_panels_f32(int64_t N, int64_t K, int64_t nv, const float *B, int64_t b_rs,
                                 int64_t b_cs, float *Bp)
{
    for (int64_t j0 = 0; j0 < N; j0 += nv) {
        const int64_t w = N - j0 < nv ? N - j0 : nv;
        for (int64_t k = 0; k < K; k++)
            for (int64_t c = 0; c < w; c++)
                Bp[j0 * K + k * w + c] = B[k * b_rs + (j0 + c) * b_cs];
    }
}

/* The panel width of gemm_rowpacked_f32: GEMM_NV_SMALL for small != 0, else GEMM_NV (for the
 * compiler, which packs B). */
O2C_KERNEL int64_t gemm_rowpacked_width(int small)
{
    return small ? GEMM_NV_SMALL : GEMM_NV;
}

/* Packs B for gemm_rowpacked_f32 in panels of nv (GEMM_NV or GEMM_NV_SMALL) columns. */
O2C_KERNEL void gemm_pack_b_f32(int64_t N, int64_t K, int64_t nv, const float *B, int64_t b_rs,
                                int64_t b_cs, float *Bp)
{
    gemm_pack_panels_f32(N, K, nv, B, b_rs, b_cs, Bp);
}

/* Packs a constant B for the libxsmm product in panels of GEMM_XSMM_PANEL columns (the
 * column-major kernel's rows; runtime_min/xsmm_glue.c, o2c_xsmm_setup_panels): one kernel per
 * panel then runs over all k with lda = the panel's width, so a panel is one contiguous
 * stream. Unpacked, the kernel reads column k of its A block at k*N floats: at N = 1024 each
 * column is its own 4 KiB page, the A block outgrows the L1 TLB, and 1024^3 ran at 68-77% of
 * peak whatever the row, column and k blocking (benchmarks/gemm_kernels.c); packed in 64-column
 * panels 93-98%, 128-column panels 83%. */
#define GEMM_XSMM_PANEL 64
O2C_KERNEL void gemm_pack_xsmm_f32(int64_t N, int64_t K, const float *B, int64_t b_rs, int64_t b_cs,
                                   float *Bp)
{
    gemm_pack_panels_f32(N, K, GEMM_XSMM_PANEL, B, b_rs, b_cs, Bp);
}

/* Y = A x B, row i of Y at Y + i*ldy (gemm_f32: ldy = N).
 *   A  element (i,k), 0 <= i < M, 0 <= k < K, at A[i*a_rs + k*a_cs]
 *      (row-major A: a_rs = K, a_cs = 1; transposed, A stored [K][M]: a_rs = 1, a_cs = M)
 *   B  element (k,j), 0 <= j < N, at B[k*b_rs + j*b_cs]
 *      (row-major B: b_rs = N, b_cs = 1; transposed, B stored [N][K]: b_rs = 1, b_cs = K)
 *   Y  [M][N], contiguous row-major; must not alias A or B.
 * K == 0 gives zeros. Rows in blocks of MR go through the tiles (loops: k blocks, row blocks
 * of MC, column panels of NR, row tiles of MR); with B's rows contiguous, a partial last
 * panel runs tiles NR/2 and NR/4 wide and only its last N % (NR/4) columns the edge tile.
 * The last mr = M % MR rows run as bottom tiles after the last row block's tiles of each
 * panel, while its B panel is in L1, when B's rows are contiguous and the rows are more than
 * two or too short for gemm_row_f32's column panels; else, and over the last N % (NR/4)
 * columns, by rows (gemm_row_f32). Measured
 * (gemm_kernels shapes, AVX-512): 2x784 x 784x128 3.5 us by rows, 5.0 as a tile; 3x784 5.3
 * and 5.1; 5x784 8.7 and 5.2; 2x64 x 64x64 0.36 and 0.20; 65x384 x 128 67% -> 83% of peak. */
O2C_KERNEL void gemm_f32_ldy(int64_t M, int64_t N, int64_t K, const float *A, int64_t a_rs,
                             int64_t a_cs, const float *B, int64_t b_rs, int64_t b_cs, float *Y,
                             int64_t ldy)
{
    if (M <= 0 || N <= 0)
        return;
    if (K == 0) {
        for (int64_t i = 0; i < M; i++)
            for (int64_t j = 0; j < N; j++)
                Y[i * ldy + j] = 0.0f;
        return;
    }
    const int64_t mt = M - M % GEMM_MR, mr = M - mt; /* rows in full tiles; rows left */
    const int bottom = (mr > 2 || (mr == 2 && N < GEMM_NV)) && b_cs == 1;
    /* columns of the tiles (the rest, N % (NR/4), through gemm_edge_f32 or by rows) */
    const int64_t jn = b_cs == 1 ? N - N % (GEMM_NR / 4) : 0;
    const int64_t jt = bottom ? jn : 0;   /* columns of the bottom tiles */
    const int64_t iend = mt > 0 ? mt : 1; /* at least one row block: bottom tiles of M < MR */
    for (int64_t k0 = 0; k0 < K; k0 += GEMM_KC) {
        const int64_t k1 = K - k0 > GEMM_KC ? k0 + GEMM_KC : K;
        for (int64_t i0 = 0; i0 < iend; i0 += GEMM_MC) {
            const int64_t i1 = mt - i0 > GEMM_MC ? i0 + GEMM_MC : mt;
            for (int64_t j = 0; j < N; j += GEMM_NR) {
                const int64_t nr = N - j < GEMM_NR ? N - j : GEMM_NR;
                const float *b = B + j * b_cs;
                for (int64_t i = i0; i < i1; i += GEMM_MR) {
                    const float *a = A + i * a_rs;
                    float *y = Y + i * ldy + j;
                    if (nr == GEMM_NR && b_cs == 1) {
                        gemm_tile_f32(k0, k1, a, a_rs, a_cs, b, b_rs, y, ldy);
                        continue;
                    }
                    const int64_t c = b_cs == 1 ? gemm_narrow_tiles_f32(GEMM_MR, nr, k0, k1, a,
                                                                        a_rs, a_cs, b, b_rs, y, ldy)
                                                : 0;
                    if (c < nr)
                        gemm_edge_f32(nr - c, k0, k1, a, a_rs, a_cs, b + c * b_cs, b_rs, b_cs,
                                      y + c, ldy);
                }
                if (i1 == mt && j < jt) {
                    const float *a = A + mt * a_rs;
                    float *y = Y + mt * ldy + j;
                    if (nr == GEMM_NR)
                        gemm_tile_rows_f32(mr, k0, k1, a, a_rs, a_cs, b, b_rs, y, ldy);
                    else
                        gemm_narrow_tiles_f32(mr, nr, k0, k1, a, a_rs, a_cs, b, b_rs, y, ldy);
                }
            }
        }
    }
    if (jt < N)
        for (int64_t i = mt; i < M; i++)
            gemm_row_f32(N - jt, K, A + i * a_rs, a_cs, B + jt * b_cs, b_rs, b_cs,
                         Y + i * ldy + jt);
}

O2C_KERNEL void gemm_f32(int64_t M, int64_t N, int64_t K, const float *A, int64_t a_rs,
                         int64_t a_cs, const float *B, int64_t b_rs, int64_t b_cs, float *Y)
{
    gemm_f32_ldy(M, N, K, A, a_rs, a_cs, B, b_rs, b_cs, Y, N);
}

/* Gemm epilogue, applied to the product in place: Y = alpha*Y + beta*C, exactly as
 *     if (alpha != 1) y = alpha * y;
 *     if (C != NULL)  { t = (beta == 1) ? c : beta * c;  y = y + t; }
 * (two roundings at most per step, never fused).
 *   Y  [M][N], contiguous row-major, the result of gemm_f32.
 *   C  element (i,j) at C[i*c_rs + j*c_cs]; a stride of 0 broadcasts that dimension
 *      (bias row [N]: c_rs = 0, c_cs = 1; column [M][1]: c_rs = 1, c_cs = 0; scalar: 0, 0).
 *      NULL means no bias. Must not alias Y. */
O2C_KERNEL void gemm_epilogue_f32(int64_t M, int64_t N, float alpha, const float *C, int64_t c_rs,
                                  int64_t c_cs, float beta, float *Y)
{
    if (M <= 0 || N <= 0)
        return;
    for (int64_t i = 0; i < M; i++) {
        float *y = Y + i * N; /* row i of Y */
        if (alpha != 1.0f) {
            for (int64_t j = 0; j < N; j++)
                y[j] = alpha * y[j];
        }
        if (C != NULL) {
            const float *c = C + i * c_rs; /* row i of C, elements c_cs apart */
            if (beta == 1.0f) {
                for (int64_t j = 0; j < N; j++)
                    y[j] = y[j] + c[j * c_cs];
            } else {
                for (int64_t j = 0; j < N; j++) {
                    const float t = beta * c[j * c_cs];
                    y[j] = y[j] + t;
                }
            }
        }
    }
}

/* float64 versions for double models (Gemm, MatMul): the same contract with fma and a +0.0
 * start; libxsmm is never used for them, so these loops are the only double path. Double
 * models are references rather than deployments, so the product is the plain row loop (each
 * row of Y kept in Y while k ascends, vectorised across j) rather than a second copy of the
 * float register tiles. Layouts as in gemm_f32 and gemm_epilogue_f32. */
O2C_KERNEL void gemm_f64(int64_t M, int64_t N, int64_t K, const double *A, int64_t a_rs,
                         int64_t a_cs, const double *B, int64_t b_rs, int64_t b_cs, double *Y)
{
    for (int64_t i = 0; i < M; i++) {
        const double *restrict a = A + i * a_rs; /* row i of A, elements a_cs apart */
        double *restrict y = Y + i * N;          /* row i of Y */
        for (int64_t j = 0; j < N; j++)
            y[j] = 0.0;
        for (int64_t k = 0; k < K; k++) {
            const double ak = a[k * a_cs];
            const double *restrict b = B + k * b_rs; /* row k of B, elements b_cs apart */
            for (int64_t j = 0; j < N; j++)
                y[j] = fma(ak, b[j * b_cs], y[j]);
        }
    }
}

O2C_KERNEL void gemm_epilogue_f64(int64_t M, int64_t N, double alpha, const double *C, int64_t c_rs,
                                  int64_t c_cs, double beta, double *Y)
{
    if (M <= 0 || N <= 0)
        return;
    for (int64_t i = 0; i < M; i++) {
        double *y = Y + i * N; /* row i of Y */
        if (alpha != 1.0) {
            for (int64_t j = 0; j < N; j++)
                y[j] = alpha * y[j];
        }
        if (C != NULL) {
            const double *c = C + i * c_rs; /* row i of C, elements c_cs apart */
            for (int64_t j = 0; j < N; j++) {
                const double t = beta == 1.0 ? c[j * c_cs] : beta * c[j * c_cs];
                y[j] = y[j] + t;
            }
        }
    }
}
