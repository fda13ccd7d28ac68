/* xsmm_glue.c — pasted into generated code that uses libxsmm kernels.
 *
 * The numerics contract says every product accumulates over k ascending with fmaf from 0.
 * libxsmm's JIT kernels do so for most shapes, but not all: measured with libxsmm 1.17 on an
 * AVX-512 CPU, (m=196, n=96, k=16) and (m=196, n=16, k=96) give different bits in their last
 * m-block, yet the same product run as two kernels, m=192 and m=4 (same lda and ldc), gives the
 * portable bits; (m=784, n=6, k=25) differs however it is split. So init tries, for each
 * product, one kernel for the whole shape and then the shape split at the last multiple of 16
 * rows, checks each candidate once against the portable product, and keeps the first that
 * gives the same bits, or the portable kernel when none does. The check uses no RAM beyond the
 * planned arena: the operands are a weight of the model or data generated into the arena, the
 * result goes into the arena, and the reference is computed in chunks on the stack
 * (codegen/emit.c, emit_kernel_init, says which). */

/* Column-major C(m x n) = A(m x k) B(k x n), lda = m, ldb = k, ldc = m, computed by the
 * portable kernel as the row-major product C^T = B^T A^T. */
O2C_KERNEL void o2c_xsmm_reference(int64_t m, int64_t n, int64_t k, const float *a, const float *b,
                                   float *c)
{
    gemm_f32(n, m, k, b, k, 1, a, m, 1, c);
}

/* The same product with A packed in row panels (gemm_pack_xsmm_f32 of templates/gemm.c): rows
 * i0 .. i0+w of A, w = panel or the last m % panel, at a + i0*k, column-major with lda = w;
 * C's columns ldc >= m floats apart (more: a slice of a wider tensor, the floats between the
 * columns untouched). */
O2C_KERNEL void o2c_xsmm_reference_panels(int64_t m, int64_t n, int64_t k, int64_t ldc,
                                          int64_t panel, const float *a, const float *b, float *c)
{
    for (int64_t i0 = 0; i0 < m; i0 += panel) {
        const int64_t w = m - i0 < panel ? m - i0 : panel;
        gemm_f32_ldy(n, w, k, b, k, 1, a + i0 * k, w, 1, c + i0, ldc);
    }
}

/* One product C(m x n) = A(m x k) B(k x n) as JIT kernels over row blocks of mb and k blocks of
 * kb (lda = ldc = m, ldb = k). kernel[r][s]: r = 0 for full row blocks, 1 for the last m % mb
 * rows; s = 0 for the first k block (beta = 0: the sums start from +0.0f), 1 for a full later
 * block, 2 for the last k % kb steps (both beta = 1: they resume from the partial sums in C).
 * Each row of C is one row block's, and its k blocks run in ascending order, so each element is
 * still one chain of fmas over k ascending from +0.0f (a float survives the store and reload
 * between blocks unchanged). Blocking over k keeps an mb x kb block of A in L2 while every
 * column of B and C passes it: one kernel over a 1024^3 product streams all of A once per
 * column block and measured 71% of peak, blocked 87-90%. panel != 0: A is packed in row
 * panels of that many rows (o2c_xsmm_reference_panels), mb = panel and kb = k: one kernel
 * (beta = 0) per panel over all k, C's columns ldc apart (m, or more: the kernel writes a
 * slice of a wider tensor); without panels ldc = m. kernel[0][0] == NULL means the portable
 * kernel. */
typedef struct O2cXsmm {
    libxsmm_smmfunction kernel[2][3];
    int64_t m, n, k, mb, kb, panel, ldc;
} O2cXsmm;

O2C_KERNEL void o2c_xsmm_run(const O2cXsmm *x, const float *a, const float *b, float *c)
{
    if (!x->kernel[0][0]) {
        if (x->panel)
            o2c_xsmm_reference_panels(x->m, x->n, x->k, x->ldc, x->panel, a, b, c);
        else
            o2c_xsmm_reference(x->m, x->n, x->k, a, b, c);
        return;
    }
    if (x->panel) { /* panels of mb = min(panel, m) rows; a tail without kernel: portable */
        for (int64_t i0 = 0; i0 < x->m; i0 += x->mb) {
            const int64_t w = x->m - i0 < x->mb ? x->m - i0 : x->mb;
            const float *ap = a + i0 * x->k;
            if (x->kernel[w == x->mb ? 0 : 1][0])
                x->kernel[w == x->mb ? 0 : 1][0](ap, b, c + i0);
            else
                gemm_f32_ldy(x->n, w, x->k, b, x->k, 1, ap, w, 1, c + i0, x->ldc);
        }
        return;
    }
    for (int64_t i0 = 0; i0 < x->m; i0 += x->mb) {
        const int r = i0 + x->mb <= x->m ? 0 : 1;
        for (int64_t k0 = 0; k0 < x->k; k0 += x->kb) {
            const int s = k0 == 0 ? 0 : k0 + x->kb <= x->k ? 1 : 2;
            x->kernel[r][s](a + i0 + k0 * x->m, b + k0, c + i0);
        }
    }
}

static libxsmm_smmfunction o2c_xsmm_dispatch(int64_t mb, int64_t kb, float beta, const O2cXsmm *x)
{
    /* a panel's rows are its leading dimension */
    const libxsmm_blasint lda = (libxsmm_blasint)(x->panel ? mb : x->m);
    const libxsmm_blasint ldb = (libxsmm_blasint)x->k, ldc = (libxsmm_blasint)x->ldc;
    const float alpha = 1.0f;
    const int flags = LIBXSMM_GEMM_FLAG_NONE, prefetch = LIBXSMM_PREFETCH_NONE;
    if (mb == 0 || kb == 0)
        return 0;
    return libxsmm_smmdispatch((libxsmm_blasint)mb, (libxsmm_blasint)x->n, (libxsmm_blasint)kb,
                               &lda, &ldb, &ldc, &alpha, &beta, &flags, &prefetch);
}

/* Dispatches the kernels of blocking (mb, kb); 0 when one of those that o2c_xsmm_run calls
 * does not dispatch. */
static int o2c_xsmm_block(O2cXsmm *x, int64_t mb, int64_t kb)
{
    const int64_t rows[2] = {mb, x->m % mb}, first = x->k < kb ? x->k : kb;
    const int64_t steps[3] = {first, x->k > kb ? kb : 0, x->k > kb ? x->k % kb : 0};
    x->mb = mb;
    x->kb = kb;
    for (int r = 0; r < 2; r++)
        for (int s = 0; s < 3; s++) {
            x->kernel[r][s] = o2c_xsmm_dispatch(rows[r], steps[s], s ? 1.0f : 0.0f, x);
            if (!x->kernel[r][s] && rows[r] && steps[s])
                return 0;
        }
    return 1;
}

/* Deterministic values in [-1, 1) with full mantissas, so a different order shows. */
O2C_KERNEL void o2c_fill(float *x, int64_t count, uint32_t seed)
{
    for (int64_t i = 0; i < count; i++) {
        seed = seed * 1664525u + 1013904223u;
        x[i] = (float)(seed >> 8) / 8388608.0f - 1.0f;
    }
}

/* 1 when x reproduces the portable bits on a (m x k, column-major or in x's row panels) and b
 * (k x n, column-major); it writes its result to c (n columns ldc apart). Each column of c is
 * compared in chunks of at most O2C_CHECK_CHUNK elements within one panel (all of A is one
 * panel of lda = m when it is not packed) with the portable product of that chunk (a row of
 * the row-major product c^T = b^T a^T), so the reference needs only a small stack buffer. */
#define O2C_CHECK_CHUNK 128
static int o2c_xsmm_matches(const O2cXsmm *x, const float *a, const float *b, float *c)
{
    const int64_t m = x->m, n = x->n, k = x->k, step = x->panel ? x->panel : m;
    float want[O2C_CHECK_CHUNK];
    o2c_xsmm_run(x, a, b, c);
    for (int64_t j = 0; j < n; j++) {
        for (int64_t p0 = 0; p0 < m; p0 += step) {
            const int64_t w = m - p0 < step ? m - p0 : step; /* the panel's rows, its lda */
            const float *ap = x->panel ? a + p0 * k : a + p0;
            for (int64_t i0 = 0; i0 < w; i0 += O2C_CHECK_CHUNK) {
                const int64_t len = w - i0 < O2C_CHECK_CHUNK ? w - i0 : O2C_CHECK_CHUNK;
                gemm_f32(1, len, k, b + j * k, k, 1, ap + i0, w, 1, want);
                if (memcmp(c + j * x->ldc + p0 + i0, want, (size_t)len * sizeof(float)) != 0)
                    return 0;
            }
        }
    }
    return 1;
}

/* Sets x up for C(m x n) = A(m x k) B(k x n): the first candidate blocking whose kernels
 * dispatch and give the portable bits on a and b (c: m x n floats of scratch), else the
 * portable kernel. Candidates: rows and k in blocks of O2C_XSMM_MB x O2C_XSMM_KB when A is
 * larger than O2C_XSMM_A_FLOATS (half a typical L2), then one kernel for the whole shape, then
 * the rows split at the last multiple of 16, then rows in blocks of 64 (libxsmm 1.17 on
 * AVX-512 gives other bits for m = 80 and 144, whole vectors, in every n and k tried, and
 * the portable bits in blocks of 16, 32, 48 or 64 rows: efficientnet's 1x1 convs of 80 and
 * 144 output channels, which had run the portable kernel at half libxsmm's speed). */
#define O2C_XSMM_MB       128
#define O2C_XSMM_KB       256
#define O2C_XSMM_A_FLOATS (1 << 16)
#define O2C_XSMM_MB_SAFE  64
O2C_KERNEL void o2c_xsmm_setup(O2cXsmm *x, int64_t m, int64_t n, int64_t k, const float *a,
                               const float *b, float *c)
{
    const int blocked = m * k > O2C_XSMM_A_FLOATS && (m > O2C_XSMM_MB || k > O2C_XSMM_KB);
    const int64_t mbs[4] = {blocked ? O2C_XSMM_MB : 0, m, m - m % 16, O2C_XSMM_MB_SAFE};
    const int64_t kbs[4] = {O2C_XSMM_KB, k, k, k};
    x->m = m;
    x->n = n;
    x->k = k;
    x->panel = 0;
    x->ldc = m;
    for (int i = 0; i < 4; i++) {
        if (mbs[i] == 0 || (i >= 2 && mbs[i] >= m))
            continue;
        if (o2c_xsmm_block(x, mbs[i] < m ? mbs[i] : m, kbs[i]) && o2c_xsmm_matches(x, a, b, c))
            return;
    }
    memset(x->kernel, 0, sizeof x->kernel); /* keep the portable bits */
}

/* o2c_xsmm_setup for an A packed in row panels of GEMM_XSMM_PANEL (a constant weight packed at
 * compile time by gemm_pack_xsmm_f32), C's columns ldc >= m apart (c: n*ldc floats of
 * scratch): one kernel per panel over all k, if it dispatches and
 * gives the portable bits; else the full panels' kernel with the portable kernel on the last
 * m % panel rows (libxsmm 1.17 with lda = 4 .. 16, the width of a tail panel, gave other bits
 * for every n and k tried); else the portable kernel on the packed A. Measured against the
 * blocked unpacked kernels (benchmarks/gemm_kernels.c): 1024^3 68% -> 93-98% of peak. */
O2C_KERNEL void o2c_xsmm_setup_panels(O2cXsmm *x, int64_t m, int64_t n, int64_t k, int64_t ldc,
                                      const float *a, const float *b, float *c)
{
    x->m = m;
    x->n = n;
    x->k = k;
    x->panel = GEMM_XSMM_PANEL;
    x->ldc = ldc;
    if (!o2c_xsmm_block(x, m < x->panel ? m : x->panel, k)) {
        memset(x->kernel, 0, sizeof x->kernel);
        return;
    }
    if (o2c_xsmm_matches(x, a, b, c))
        return;
    x->kernel[1][0] = 0; /* the tail panel, if any, on the portable kernel */
    if (x->m > x->mb && o2c_xsmm_matches(x, a, b, c))
        return;
    memset(x->kernel, 0, sizeof x->kernel); /* keep the portable bits */
}
