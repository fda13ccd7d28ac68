/* gemm.c — the product kernel (Gemm, MatMul, and Conv via im2col) and its bias epilogue.
 *
 * Numerics contract (DESIGN.md, "Numerics: one evaluation order"): every output element is
 *
 *     acc = 0.0f;  for (k = 0; k < K; k++) acc = fmaf(A(i,k), B(k,j), acc);
 *
 * i.e. ascending k, one fmaf per step, starting from +0.0f. That is what libxsmm's JIT kernels
 * compute, so the portable and libxsmm backends give the same bits. The loop nest below is
 * i, k, j rather than i, j, k: for a fixed k the inner loop runs across the output row (it
 * vectorises over j), and each y[i][j] still sees k = 0, 1, 2, ... in order, so the bits are
 * those of the per-element loop. Bias and alpha/beta come afterwards, in gemm_epilogue_f32.
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

/* Y = A x B.
 *   A  element (i,k), 0 <= i < M, 0 <= k < K, at A[i*a_rs + k*a_cs]
 *      (row-major A: a_rs = K, a_cs = 1; transposed, A stored [K][M]: a_rs = 1, a_cs = M)
 *   B  element (k,j), 0 <= j < N, at B[k*b_rs + j*b_cs]
 *      (row-major B: b_rs = N, b_cs = 1; transposed, B stored [N][K]: b_rs = 1, b_cs = K)
 *   Y  [M][N], contiguous row-major; must not alias A or B.
 * K == 0 gives zeros. */
O2C_KERNEL void gemm_f32(int64_t M, int64_t N, int64_t K, const float *A, int64_t a_rs,
                         int64_t a_cs, const float *B, int64_t b_rs, int64_t b_cs, float *Y)
{
    if (M <= 0 || N <= 0)
        return;
    for (int64_t i = 0; i < M; i++) {
        float *y = Y + i * N; /* row i of Y */
        for (int64_t j = 0; j < N; j++)
            y[j] = 0.0f;
        for (int64_t k = 0; k < K; k++) {
            const float a = A[i * a_rs + k * a_cs];
            const float *b = B + k * b_rs; /* row k of B, elements b_cs apart */
            if (b_cs == 1) {
                for (int64_t j = 0; j < N; j++)
                    y[j] = fmaf(a, b[j], y[j]);
            } else {
                for (int64_t j = 0; j < N; j++)
                    y[j] = fmaf(a, b[j * b_cs], y[j]);
            }
        }
    }
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
 * start; libxsmm is never used for them, so these loops are the only double path. Layouts as
 * in gemm_f32 and gemm_epilogue_f32. */
O2C_KERNEL void gemm_f64(int64_t M, int64_t N, int64_t K, const double *A, int64_t a_rs,
                         int64_t a_cs, const double *B, int64_t b_rs, int64_t b_cs, double *Y)
{
    if (M <= 0 || N <= 0)
        return;
    for (int64_t i = 0; i < M; i++) {
        double *y = Y + i * N; /* row i of Y */
        for (int64_t j = 0; j < N; j++)
            y[j] = 0.0;
        for (int64_t k = 0; k < K; k++) {
            const double a = A[i * a_rs + k * a_cs];
            const double *b = B + k * b_rs; /* row k of B, elements b_cs apart */
            for (int64_t j = 0; j < N; j++)
                y[j] = fma(a, b[j * b_cs], y[j]);
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
