/* elementwise.c — activations and broadcast binary arithmetic.
 *
 * Unary kernels take x[n] and write y[n]; both contiguous, y may be x (in place).
 * Binary kernels (add, sub, mul, div in f32, f64, i8, u8, i16, u16, i32, u32, i64, u64) use
 * numpy broadcasting, described by
 * the output shape and one element stride per output dim for each operand (0 where that
 * operand is broadcast). See broadcast_coalesce below.
 *
 * Numerics: each element is one C expression evaluated in float, never contracted into an
 * fma (gcc: ISO mode; clang: the pragma below). Transcendentals are the project's own
 * (templates/mathfn.c), so results are the same bits on every compiler and target.
 *
 * Part of the templates: the compiler pastes this text into the generated C file and also
 * links it to fold constants. It includes only standard headers and defines every function
 * with O2C_KERNEL, which the includer sets (generated code: static; compiler: empty).
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "mathfn.c" /* o2c_expf, ...: the transcendentals of every template */

#ifndef O2C_KERNEL
#define O2C_KERNEL static
#endif

#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

/* ---- Unary activations: x[n] -> y[n] ---- */

/* ONNX Relu = numpy maximum(x, 0): NaN stays NaN, -0.0 stays -0.0. */
O2C_KERNEL void relu_f32(int64_t n, const float *x, float *y)
{
    for (int64_t i = 0; i < n; i++)
        y[i] = x[i] < 0.0f ? 0.0f : x[i];
}

/* ONNX LeakyRelu as the onnx reference computes it: x > 0 ? x : x * alpha (both computed, then
 * chosen: o2c_select, so that gcc vectorises). */
O2C_KERNEL void leaky_relu_f32(int64_t n, float alpha, const float *x, float *y)
{
    for (int64_t i = 0; i < n; i++)
        y[i] = o2c_select(x[i] > 0.0f, x[i], x[i] * alpha);
}

/* Numerically stable logistic, the onnx reference's formula:
 * x > 0 ? 1 / (1 + exp(-x)) : exp(x) / (1 + exp(x))  (o2c_sigmoidf). */
O2C_KERNEL void sigmoid_f32(int64_t n, const float *x, float *y)
{
    for (int64_t i = 0; i < n; i++)
        y[i] = o2c_sigmoidf(x[i]);
}

/* o2c_tanhf in rows of passes (mathfn.c): the same bits. */
O2C_KERNEL void tanh_f32(int64_t n, const float *x, float *y)
{
    o2c_tanhf_rows(n, x, y);
}

/* ONNX Clip = min(max(x, lo), hi). A NaN x stays NaN (both comparisons are false); with
 * lo > hi every element becomes hi, as numpy.clip does. No bound: pass -INFINITY/INFINITY. */
O2C_KERNEL void clip_f32(int64_t n, float lo, float hi, const float *x, float *y)
{
    for (int64_t i = 0; i < n; i++) {
        const float v = x[i] < lo ? lo : x[i];
        y[i] = v > hi ? hi : v;
    }
}

/* Clip for integer types, the same rule: min(max(x, lo), hi); lo > hi gives hi. */
#define O2C_CLIP_INT(SUFFIX, T)                                                                    \
    O2C_KERNEL void clip_##SUFFIX(int64_t n, T lo, T hi, const T *x, T *y)                         \
    {                                                                                              \
        for (int64_t i = 0; i < n; i++) {                                                          \
            const T v = x[i] < lo ? lo : x[i];                                                     \
            y[i] = v > hi ? hi : v;                                                                \
        }                                                                                          \
    }
O2C_CLIP_INT(i8, int8_t)
O2C_CLIP_INT(u8, uint8_t)
O2C_CLIP_INT(i16, int16_t)
O2C_CLIP_INT(u16, uint16_t)
O2C_CLIP_INT(i32, int32_t)
O2C_CLIP_INT(u32, uint32_t)
O2C_CLIP_INT(i64, int64_t)
O2C_CLIP_INT(u64, uint64_t)
#undef O2C_CLIP_INT

/* ---- Broadcast binary ops ----
 *
 * Arguments of every binary kernel:
 *   rank          number of output dims, 0..8 (0: a single element)
 *   out_dims      [rank] output shape, row-major
 *   a_strides     [rank] element stride of a along each output dim, 0 where a is broadcast
 *   b_strides     [rank] same for b
 *   a, b          operands; element (i0..ir-1) of a is a[sum_d i_d * a_strides[d]]
 *   y             output, contiguous row-major [out_dims]
 * y may be a (or b) when that operand has the output's shape and is contiguous (in place):
 * every element is read before the element at the same index is written.
 */

/* Simplifies the iteration space of a broadcast binary op, so that the hot loop runs over
 * the longest possible row with fixed strides. Dims of size 1 are dropped, and dim d is
 * merged into dim d+1 when both operands step through the two dims as through one (stride
 * of d == stride of d+1 times size of d+1; y is contiguous, so it always can). A contiguous
 * same-shape pair collapses to one row with strides 1,1; a scalar operand to stride 0.
 * Writes the result, outermost first, to dims/sa/sb[0..r-1] (arrays of 8) and the number
 * of rows (product of dims[0..r-2]) to *rows; returns r >= 1, or 0 when the output is empty. */
O2C_KERNEL int broadcast_coalesce(int rank, const int64_t *out_dims, const int64_t *a_strides,
                                  const int64_t *b_strides, int64_t *dims, int64_t *sa, int64_t *sb,
                                  int64_t *rows)
{
    int r = 0;
    for (int d = 0; d < rank; d++) {
        if (out_dims[d] == 0)
            return 0;
        if (out_dims[d] == 1)
            continue;
        if (r > 0 && sa[r - 1] == a_strides[d] * out_dims[d] &&
            sb[r - 1] == b_strides[d] * out_dims[d]) {
            /* previous dim steps over exactly this one: merge them */
            dims[r - 1] *= out_dims[d];
            sa[r - 1] = a_strides[d];
            sb[r - 1] = b_strides[d];
        } else {
            dims[r] = out_dims[d];
            sa[r] = a_strides[d];
            sb[r] = b_strides[d];
            r++;
        }
    }
    if (r == 0) { /* scalar, or all dims of size 1: one element */
        dims[0] = 1;
        sa[0] = 0;
        sb[0] = 0;
        r = 1;
    }
    *rows = 1;
    for (int d = 0; d < r - 1; d++)
        *rows *= dims[d];
    return r;
}

/* Steps an odometer over the outer dims dims[0..n_outer-1] (the row index, last dim
 * fastest) and keeps the element offsets of a and b in step with it. */
O2C_KERNEL void broadcast_next_row(int n_outer, const int64_t *dims, const int64_t *sa,
                                   const int64_t *sb, int64_t *idx, int64_t *off_a, int64_t *off_b)
{
    for (int d = n_outer - 1; d >= 0; d--) {
        idx[d]++;
        *off_a += sa[d];
        *off_b += sb[d];
        if (idx[d] < dims[d])
            return;
        *off_a -= sa[d] * dims[d];
        *off_b -= sb[d] * dims[d];
        idx[d] = 0;
    }
}

/* Element operations, OP(T, p, q) for operands p, q of type T. Integer add/sub/mul wrap
 * around (two's complement, like numpy and onnxruntime) instead of overflowing, which would
 * be undefined behaviour in C: they are done in uint64_t and converted back to T
 * (implementation-defined, modulo 2^bits with gcc, clang and every two's-complement
 * compiler). Integer division truncates toward zero (C, and the onnx reference). There are
 * no error paths in generated code, so the two cases C leaves undefined get a defined
 * result, by documented choice: x / 0 gives 0 (numpy also gives 0, with a warning), and
 * MIN / -1 wraps to MIN. */
#define O2C_ADD_F(T, p, q) ((p) + (q))
#define O2C_SUB_F(T, p, q) ((p) - (q))
#define O2C_MUL_F(T, p, q) ((p) * (q))
#define O2C_DIV_F(T, p, q) ((p) / (q))
#define O2C_ADD_I(T, p, q) ((T)((uint64_t)(p) + (uint64_t)(q)))
#define O2C_SUB_I(T, p, q) ((T)((uint64_t)(p) - (uint64_t)(q)))
#define O2C_MUL_I(T, p, q) ((T)((uint64_t)(p) * (uint64_t)(q)))
#define O2C_DIV_S(T, p, q) ((q) == 0 ? (T)0 : (q) == -1 ? (T)(0u - (uint64_t)(p)) : (T)((p) / (q)))
#define O2C_DIV_U(T, p, q) ((q) == 0 ? (T)0 : (T)((p) / (q)))

/* One binary kernel: walk the coalesced rows; within a row, separate loops for the common
 * stride patterns (both contiguous, one operand constant along the row) so that they
 * vectorise, and a general strided loop. */
#define O2C_BINARY_KERNEL(NAME, T, OP)                                                             \
    O2C_KERNEL void NAME(int rank, const int64_t *out_dims, const int64_t *a_strides,              \
                         const int64_t *b_strides, const T *a, const T *b, T *y)                   \
    {                                                                                              \
        int64_t dims[8], sa[8], sb[8], idx[8] = {0}, rows, off_a = 0, off_b = 0;                   \
        const int r =                                                                              \
            broadcast_coalesce(rank, out_dims, a_strides, b_strides, dims, sa, sb, &rows);         \
        if (r == 0)                                                                                \
            return;                                                                                \
        const int64_t n = dims[r - 1], as = sa[r - 1], bs = sb[r - 1];                             \
        for (int64_t row = 0; row < rows; row++) {                                                 \
            const T *ar = a + off_a, *br = b + off_b;                                              \
            T *yr = y + row * n;                                                                   \
            if (as == 1 && bs == 1) {                                                              \
                for (int64_t i = 0; i < n; i++)                                                    \
                    yr[i] = OP(T, ar[i], br[i]);                                                   \
            } else if (as == 1 && bs == 0) {                                                       \
                const T bv = br[0];                                                                \
                for (int64_t i = 0; i < n; i++)                                                    \
                    yr[i] = OP(T, ar[i], bv);                                                      \
            } else if (as == 0 && bs == 1) {                                                       \
                const T av = ar[0];                                                                \
                for (int64_t i = 0; i < n; i++)                                                    \
                    yr[i] = OP(T, av, br[i]);                                                      \
            } else {                                                                               \
                for (int64_t i = 0; i < n; i++)                                                    \
                    yr[i] = OP(T, ar[i * as], br[i * bs]);                                         \
            }                                                                                      \
            broadcast_next_row(r - 1, dims, sa, sb, idx, &off_a, &off_b);                          \
        }                                                                                          \
    }

/* add, sub, mul, div for one element type: NAME_<suffix>, DIV the signed or unsigned rule. */
#define O2C_BINARY_INT_KERNELS(SUFFIX, T, DIV)                                                     \
    O2C_BINARY_KERNEL(add_##SUFFIX, T, O2C_ADD_I)                                                  \
    O2C_BINARY_KERNEL(sub_##SUFFIX, T, O2C_SUB_I)                                                  \
    O2C_BINARY_KERNEL(mul_##SUFFIX, T, O2C_MUL_I)                                                  \
    O2C_BINARY_KERNEL(div_##SUFFIX, T, DIV)

O2C_BINARY_KERNEL(add_f32, float, O2C_ADD_F)
O2C_BINARY_KERNEL(sub_f32, float, O2C_SUB_F)
O2C_BINARY_KERNEL(mul_f32, float, O2C_MUL_F)
O2C_BINARY_KERNEL(div_f32, float, O2C_DIV_F)
O2C_BINARY_KERNEL(add_f64, double, O2C_ADD_F)
O2C_BINARY_KERNEL(sub_f64, double, O2C_SUB_F)
O2C_BINARY_KERNEL(mul_f64, double, O2C_MUL_F)
O2C_BINARY_KERNEL(div_f64, double, O2C_DIV_F)
O2C_BINARY_INT_KERNELS(i64, int64_t, O2C_DIV_S)
O2C_BINARY_INT_KERNELS(i8, int8_t, O2C_DIV_S)
O2C_BINARY_INT_KERNELS(u8, uint8_t, O2C_DIV_U)
O2C_BINARY_INT_KERNELS(i16, int16_t, O2C_DIV_S)
O2C_BINARY_INT_KERNELS(u16, uint16_t, O2C_DIV_U)
O2C_BINARY_INT_KERNELS(i32, int32_t, O2C_DIV_S)
O2C_BINARY_INT_KERNELS(u32, uint32_t, O2C_DIV_U)
O2C_BINARY_INT_KERNELS(u64, uint64_t, O2C_DIV_U)

/* The helpers above are local to this file: do not leak them into the includer. */
#undef O2C_BINARY_KERNEL
#undef O2C_BINARY_INT_KERNELS
#undef O2C_ADD_F
#undef O2C_SUB_F
#undef O2C_MUL_F
#undef O2C_DIV_F
#undef O2C_ADD_I
#undef O2C_SUB_I
#undef O2C_MUL_I
#undef O2C_DIV_S
#undef O2C_DIV_U
