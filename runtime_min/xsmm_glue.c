/* xsmm_glue.c — pasted into generated code that uses libxsmm kernels.
 *
 * The numerics contract says every product accumulates over k ascending with fmaf from 0.
 * libxsmm's JIT kernels do so for most shapes, but not all: measured with libxsmm 1.17 on an
 * AVX-512 CPU, (m=784, n=6, k=25) and (m=196, n=96, k=16) give different bits in their last
 * m-block. So init checks every dispatched kernel once against the portable product on
 * deterministic data, and keeps the portable kernel for shapes where the bits differ. */

/* Column-major C(m x n) = A(m x k) B(k x n), lda = m, ldb = k, ldc = m, computed by the
 * portable kernel as the row-major product C^T = B^T A^T. */
static void o2c_xsmm_reference(int64_t m, int64_t n, int64_t k, const float *a, const float *b,
                               float *c)
{
    gemm_f32(n, m, k, b, k, 1, a, m, 1, c);
}

/* Deterministic values in [-1, 1) with full mantissas, so a different order shows. */
static void o2c_fill(float *x, int64_t count, uint32_t seed)
{
    for (int64_t i = 0; i < count; i++) {
        seed = seed * 1664525u + 1013904223u;
        x[i] = (float)(seed >> 8) / 8388608.0f - 1.0f;
    }
}

/* 1 when kernel reproduces the portable bits; scratch holds (m*k + k*n + 2*m*n) floats. */
static int o2c_xsmm_matches(libxsmm_smmfunction kernel, int64_t m, int64_t n, int64_t k,
                            float *scratch)
{
    float *a = scratch, *b = a + m * k, *c = b + k * n, *want = c + m * n;
    o2c_fill(a, m * k, 12345u);
    o2c_fill(b, k * n, 67890u);
    kernel(a, b, c);
    o2c_xsmm_reference(m, n, k, a, b, want);
    return memcmp(c, want, (size_t)(m * n) * sizeof(float)) == 0;
}
