/* xsmm_glue.c — pasted into generated code that uses libxsmm kernels.
 *
 * The numerics contract says every product accumulates over k ascending with fmaf from 0.
 * libxsmm's JIT kernels do so for most shapes, but not all: measured with libxsmm 1.17 on an
 * AVX-512 CPU, (m=784, n=6, k=25) and (m=196, n=96, k=16) give different bits in their last
 * m-block. So init checks every dispatched kernel once against the portable product, and keeps
 * the portable kernel for shapes where the bits differ. The check uses no RAM beyond the planned
 * arena: the operands are a weight of the model or data generated into the arena, the result
 * goes into the arena, and the reference is computed in chunks on the stack (codegen/emit.c,
 * emit_kernel_init, says which). */

/* Column-major C(m x n) = A(m x k) B(k x n), lda = m, ldb = k, ldc = m, computed by the
 * portable kernel as the row-major product C^T = B^T A^T. */
static void o2c_xsmm_reference(int64_t m, int64_t n, int64_t k, const float *a, const float *b,
                               float *c)
{
    gemm_f32(n, m, k, b, k, 1, a, m, 1, c);
}

/* Deterministic values in [-1, 1) with full mantissas, so a different order shows. */
O2C_KERNEL void o2c_fill(float *x, int64_t count, uint32_t seed)
{
    for (int64_t i = 0; i < count; i++) {
        seed = seed * 1664525u + 1013904223u;
        x[i] = (float)(seed >> 8) / 8388608.0f - 1.0f;
    }
}

/* 1 when kernel reproduces the portable bits on a (m x k) and b (k x n), column-major; it
 * writes its result to c (m x n floats). Each column of c is compared in chunks of
 * O2C_CHECK_CHUNK elements with the portable product of that chunk (a row of the row-major
 * product c^T = b^T a^T), so the reference needs only a small stack buffer. */
#define O2C_CHECK_CHUNK 128
static int o2c_xsmm_matches(libxsmm_smmfunction kernel, int64_t m, int64_t n, int64_t k,
                            const float *a, const float *b, float *c)
{
    float want[O2C_CHECK_CHUNK];
    kernel(a, b, c);
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
