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

/* One product C(m x n) = A(m x k) B(k x n) as JIT kernels over row blocks of mb (lda = ldc =
 * m): kernel[0] for full blocks, kernel[1] for the last m % mb rows. Each row of C is one
 * kernel's, so each element's sum is still one kernel's k-ascending chain. full == NULL means
 * the portable kernel. */
typedef struct O2cXsmm {
    libxsmm_smmfunction kernel[2];
    int64_t m, n, k, mb;
} O2cXsmm;

O2C_KERNEL void o2c_xsmm_run(const O2cXsmm *x, const float *a, const float *b, float *c)
{
    if (!x->kernel[0]) {
        o2c_xsmm_reference(x->m, x->n, x->k, a, b, c);
        return;
    }
    int64_t i0 = 0;
    for (; i0 + x->mb <= x->m; i0 += x->mb)
        x->kernel[0](a + i0, b, c + i0);
    if (i0 < x->m)
        x->kernel[1](a + i0, b, c + i0);
}

static libxsmm_smmfunction o2c_xsmm_dispatch(int64_t mb, int64_t m, int64_t n, int64_t k)
{
    const libxsmm_blasint lda = (libxsmm_blasint)m, ldb = (libxsmm_blasint)k, ldc = lda;
    const float alpha = 1.0f, beta = 0.0f;
    const int flags = LIBXSMM_GEMM_FLAG_NONE, prefetch = LIBXSMM_PREFETCH_NONE;
    return libxsmm_smmdispatch((libxsmm_blasint)mb, (libxsmm_blasint)n, (libxsmm_blasint)k, &lda,
                               &ldb, &ldc, &alpha, &beta, &flags, &prefetch);
}

/* Deterministic values in [-1, 1) with full mantissas, so a different order shows. */
O2C_KERNEL void o2c_fill(float *x, int64_t count, uint32_t seed)
{
    for (int64_t i = 0; i < count; i++) {
        seed = seed * 1664525u + 1013904223u;
        x[i] = (float)(seed >> 8) / 8388608.0f - 1.0f;
    }
}

/* 1 when x reproduces the portable bits on a (m x k) and b (k x n), column-major; it writes
 * its result to c (m x n floats). Each column of c is compared in chunks of O2C_CHECK_CHUNK
 * elements with the portable product of that chunk (a row of the row-major product
 * c^T = b^T a^T), so the reference needs only a small stack buffer. */
#define O2C_CHECK_CHUNK 128
static int o2c_xsmm_matches(const O2cXsmm *x, const float *a, const float *b, float *c)
{
    const int64_t m = x->m, n = x->n, k = x->k;
    float want[O2C_CHECK_CHUNK];
    o2c_xsmm_run(x, a, b, c);
    for (int64_t j = 0; j < n; j++) {
        for (int64_t i0 = 0; i0 < m; i0 += O2C_CHECK_CHUNK) {
            const int64_t len = m - i0 < O2C_CHECK_CHUNK ? m - i0 : O2C_CHECK_CHUNK;
            gemm_f32(1, len, k, b + j * k, k, 1, a + i0, m, 1, want);
            if (memcmp(c + j * m + i0, want, (size_t)len * sizeof(float)) != 0)
                return 0;
        }
    }
    return 1;
}

/* Sets x up for C(m x n) = A(m x k) B(k x n): the first candidate blocking whose kernels
 * dispatch and give the portable bits on a and b (c: m x n floats of scratch), else the
 * portable kernel. */
O2C_KERNEL void o2c_xsmm_setup(O2cXsmm *x, int64_t m, int64_t n, int64_t k, const float *a,
                               const float *b, float *c)
{
    const int64_t candidates[2] = {m, m - m % 16};
    x->m = m;
    x->n = n;
    x->k = k;
    for (int i = 0; i < 2; i++) {
        const int64_t mb = candidates[i];
        if (mb == 0 || (i > 0 && mb == m))
            continue;
        x->mb = mb;
        x->kernel[0] = o2c_xsmm_dispatch(mb, m, n, k);
        x->kernel[1] = m % mb ? o2c_xsmm_dispatch(m % mb, m, n, k) : x->kernel[0];
        if (x->kernel[0] && x->kernel[1] && o2c_xsmm_matches(x, a, b, c))
            return;
    }
    x->kernel[0] = x->kernel[1] = 0; /* keep the portable bits */
}
